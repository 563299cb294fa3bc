// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact bench MESH_I MESH_J`: how fast the library is on the user's own pair, stage by stage (import, mesh
// creation, cold query, warm pair query, warm region query, full force evaluation), with memory and thread scaling,
// in the line format of the benchmarks in bench/ (or one JSON object) so that the figures can be pasted into an issue.
#include "src/app/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define BENCH_MAX_THREADS 8       // entries of --threads
#define BENCH_SAMPLE_SECONDS 2e-4 // a sample repeats a fast call until it lasts at least this long
#define BENCH_MAX_CALLS_PER_SAMPLE 4096

static void print_help(FILE* f)
{
    fprintf(
        f, "usage: meshcontact bench MESH_I MESH_J [--pose-i P] [--pose-j P] [--scale S] [--threads LIST]\n"
           "                         [--repeat N] [--max-triangles N] [--accept-self-intersections] [--json]\n\n"
           "Measure the library on your own pair of meshes at their poses, stage by stage, each as the minimum,\n"
           "median and maximum of N samples (wall time; a sample repeats a call lasting under 0.2 ms until it\n"
           "does, and gives the time per call):\n"
           "  import        mc_mesh_import_file of each file (read, weld, checks, OBB tree, self-check)\n"
           "  create        mc_mesh_create from the imported arrays (checks and OBB tree, self-check skipped)\n"
           "  create_checked  the same with the self-check (intersecting triangles, nesting of shells)\n"
           "  cold_query    a region query on a new workspace (its buffers grow; the first sample also builds\n"
           "                the meshes' region blocks)\n"
           "  pairs         a warm mc_query_triangle_pairs (intersecting triangle pairs only)\n"
           "  regions       a warm mc_query_regions (pairs, then volumes, centroids, areas, depths)\n"
           "  evaluate      a warm mc_world_evaluate of a world with the two bodies and one IMPACT contact\n"
           "                (default force model, bodies at rest): regions plus force laws and wrenches\n"
           "The warm stages run once per thread count of --threads. Memory: the meshes' bytes per triangle (with\n"
           "their OBB trees), the workspace's bytes, and the process's peak resident set size.\n\n"
           "options:\n"
           "  --pose-i P        pose of MESH_I: tx,ty,tz,qw,qx,qy,qz (quaternion normalised) or tx,ty,tz; default\n"
           "                    origin\n"
           "  --pose-j P        pose of MESH_J, same format\n"
           "  --scale S         multiply every coordinate of both meshes by S\n"
           "  --threads LIST    comma-separated thread counts of the warm stages (default 1; at most 8 entries)\n"
           "  --repeat N        samples per stage (default 20; import and create: at most 5)\n" CLI_MAX_TRIANGLES_HELP(
               "                    ") "  --accept-self-intersections\n"
                                       "                    use meshes that intersect themselves (see 'meshcontact "
                                       "info')\n"
                                       "  --json            print one JSON object: {\"mesh_i\",\"mesh_j\",\"triangles_"
                                       "i\",\"triangles_j\",\n"
                                       "                    \"triangle_pairs\",\"regions\",\"total_volume\",\"stages\":"
                                       "[{\"stage\",\"threads\",\n"
                                       "                    \"calls\",\"min_ms\",\"median_ms\",\"max_ms\"}],"
                                       "\"mesh_bytes_per_triangle\",\n"
                                       "                    \"workspace_bytes\",\"peak_rss_bytes\"}\n"
                                       "  --help            this text\n\n"
                                       "exit status: 0 on success, 1 when a mesh cannot be read or used for contact "
                                       "or a query fails, 2 on a usage error.\n");
}

/// Parsed command line.
typedef struct bench_args
{
    const char* path[2];
    mc_pose pose[2];
    double scale;
    double max_triangles;
    const char* threads_text;
    int threads[BENCH_MAX_THREADS];
    int thread_count;
    int repeat;
    bool json;
    bool accept_self_intersections;
} bench_args;

/// One measured stage: min / median / max milliseconds per call over the samples.
typedef struct bench_stage
{
    const char* name;
    int threads; // 0: not a threaded stage
    int calls;   // calls per sample
    double min_ms, median_ms, max_ms;
} bench_stage;

#define BENCH_MAX_STAGES (5 + 3 * BENCH_MAX_THREADS)

/// Everything measured.
typedef struct bench_result
{
    uint32_t triangles[2];
    uint64_t triangle_pairs;
    uint32_t region_count;
    double total_volume;
    bench_stage stages[BENCH_MAX_STAGES];
    int stage_count;
    double mesh_bytes_per_triangle;
    size_t workspace_bytes;
    long peak_rss_bytes;
} bench_result;

static bool parse_thread_list(const char* text, bench_args* a)
{
    a->thread_count = 0;
    const char* p = text;
    while (*p != '\0')
    {
        char* end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1024 || a->thread_count == BENCH_MAX_THREADS || (*end != ',' && *end != '\0'))
        {
            return false;
        }
        a->threads[a->thread_count++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
        {
            return false;
        }
    }
    return a->thread_count > 0;
}

static int parse_args(int argc, char** argv, bench_args* a)
{
    memset(a, 0, sizeof *a);
    a->pose[0] = mc_pose_identity();
    a->pose[1] = mc_pose_identity();
    a->scale = 1.0;
    a->repeat = 20;
    const char* pose_needs = "tx,ty,tz or tx,ty,tz,qw,qx,qy,qz (finite numbers, non-zero quaternion)";
    const cli_option options[] = {
        {"json", 0, CLI_FLAG, &a->json, 0, NULL, NULL, NULL},
        {"pose-i", 0, CLI_POSE, &a->pose[0], 0, NULL, NULL, pose_needs},
        {"pose-j", 0, CLI_POSE, &a->pose[1], 0, NULL, NULL, pose_needs},
        {"scale", 0, CLI_NUMBER, &a->scale, 0, cli_positive, NULL, "a positive number"},
        {"max-triangles", 0, CLI_NUMBER, &a->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"threads", 0, CLI_TEXT, &a->threads_text, 0, NULL, NULL, NULL},
        {"repeat", 0, CLI_COUNT, &a->repeat, 0, NULL, NULL, "a positive integer"},
        {"accept-self-intersections", 0, CLI_FLAG, &a->accept_self_intersections, 0, NULL, NULL, NULL},
    };
    static const char* const operand_names[] = {"MESH_I", "MESH_J"};
    const cli_syntax syntax = {"bench", print_help, options, CLI_LENGTH(options), operand_names, a->path, 2};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    if (a->threads_text == NULL)
    {
        a->threads[0] = 1;
        a->thread_count = 1;
    }
    else if (!parse_thread_list(a->threads_text, a))
    {
        return cli_usage_error("bench", "--threads needs up to %d comma-separated positive integers, got '%s'",
                               BENCH_MAX_THREADS, a->threads_text);
    }
    if (a->repeat > 100000)
    {
        return cli_usage_error("bench", "--repeat needs a positive integer up to 100000, got %d", a->repeat);
    }
    return CLI_CONTINUE;
}

static int compare_doubles(const void* pa, const void* pb)
{
    double a = *(const double*)pa, b = *(const double*)pb;
    return (a > b) - (a < b);
}

/// Fill a stage from `n` per-call times (seconds), sorting them.
static void stage_from_samples(bench_stage* st, const char* name, int threads, int calls, double* t, int n)
{
    qsort(t, (size_t)n, sizeof *t, compare_doubles);
    st->name = name;
    st->threads = threads;
    st->calls = calls;
    st->min_ms = 1e3 * t[0];
    st->max_ms = 1e3 * t[n - 1];
    st->median_ms = 1e3 * (n % 2 == 1 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]));
}

/// A call to measure: returns MC_OK or the status that stops the bench.
typedef mc_status bench_call_fcn(void* ctx);

/// Time `call`: `repeat` samples, each of as many calls as make it last BENCH_SAMPLE_SECONDS (the count is fixed
/// from one calibration call). A failed call stops the measurement and returns its status.
static mc_status measure(bench_call_fcn* call, void* ctx, int repeat, const char* name, int threads, bench_result* r)
{
    double t0 = cli_now();
    mc_status s = call(ctx);
    double once = cli_now() - t0;
    if (s != MC_OK)
    {
        return s;
    }
    int calls = once >= BENCH_SAMPLE_SECONDS
                    ? 1
                    : (int)fmin(BENCH_MAX_CALLS_PER_SAMPLE, ceil(BENCH_SAMPLE_SECONDS / fmax(once, 1e-9)));
    double* t = malloc((size_t)repeat * sizeof *t);
    if (t == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    for (int k = 0; k < repeat && s == MC_OK; ++k)
    {
        double a = cli_now();
        for (int c = 0; c < calls && s == MC_OK; ++c)
        {
            s = call(ctx);
        }
        t[k] = (cli_now() - a) / calls;
    }
    if (s == MC_OK)
    {
        stage_from_samples(&r->stages[r->stage_count++], name, threads, calls, t, repeat);
    }
    free(t);
    return s;
}

/// What the query stages share.
typedef struct bench_ctx
{
    const bench_args* a;
    mc_mesh* mesh[2];
    mc_workspace* ws;
    mc_query_options opt;
    mc_triangle_pair* pairs; // the pair stage's buffer
    uint32_t pair_capacity;
    mc_region* regions;
    uint32_t region_capacity;
    uint32_t region_count;
    mc_query_stats stats;
    mc_world* world;
    const char* path; // the import stage's file
    mc_mesh_def def;  // the create stage's arrays
    mc_import_options import_options;
} bench_ctx;

static mc_status call_import(void* p)
{
    bench_ctx* c = p;
    mc_mesh* m = NULL;
    mc_status s = mc_mesh_import_file(c->path, &c->import_options, &m, NULL, NULL);
    mc_mesh_destroy(m);
    return s;
}

static mc_status call_create(void* p)
{
    bench_ctx* c = p;
    mc_mesh* m = NULL;
    mc_status s = mc_mesh_create(&c->def, &m, NULL, NULL);
    mc_mesh_destroy(m);
    return s;
}

/// A pair query into a caller buffer, as a host would make it (the buffer grows once to the pair count).
static mc_status call_pairs(void* p)
{
    bench_ctx* c = p;
    uint32_t n = 0;
    mc_status s = mc_query_triangle_pairs(c->mesh[0], &c->a->pose[0], c->mesh[1], &c->a->pose[1], &c->opt, c->ws,
                                          c->pairs, c->pair_capacity, &n, NULL);
    if (s == MC_ERR_CAPACITY)
    {
        mc_triangle_pair* grown = realloc(c->pairs, (size_t)n * sizeof *grown);
        if (grown == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        c->pairs = grown;
        c->pair_capacity = n;
        s = mc_query_triangle_pairs(c->mesh[0], &c->a->pose[0], c->mesh[1], &c->a->pose[1], &c->opt, c->ws, c->pairs,
                                    c->pair_capacity, &n, NULL);
    }
    return s;
}

static mc_status call_regions(void* p)
{
    bench_ctx* c = p;
    mc_status s = mc_query_regions(c->mesh[0], &c->a->pose[0], c->mesh[1], &c->a->pose[1], &c->opt, c->ws, c->regions,
                                   c->region_capacity, &c->region_count, &c->stats);
    return s == MC_ERR_CAPACITY ? MC_OK : s; // only the count is needed beyond the buffer
}

static mc_status call_cold(void* p)
{
    bench_ctx* c = p;
    mc_workspace* warm = c->ws;
    mc_status s = mc_workspace_create(&c->ws);
    if (s == MC_OK)
    {
        s = call_regions(c);
        mc_workspace_destroy(c->ws);
    }
    c->ws = warm;
    return s;
}

static mc_status call_evaluate(void* p)
{
    bench_ctx* c = p;
    return mc_world_evaluate(c->world);
}

/// The import and create stages of both meshes (at most 5 samples each: they are slow on large meshes).
static mc_status measure_creation(bench_ctx* c, bench_result* r)
{
    static const char* const import_names[2] = {"import_i", "import_j"};
    static const char* const create_names[2] = {"create_i", "create_j"};
    static const char* const check_names[2] = {"create_checked_i", "create_checked_j"};
    int repeat = c->a->repeat < 5 ? c->a->repeat : 5;
    c->import_options = mc_default_import_options();
    c->import_options.scale = c->a->scale;
    if (c->a->max_triangles > 0)
    {
        c->import_options.max_triangles = (uint64_t)c->a->max_triangles;
    }
    if (c->a->accept_self_intersections)
    {
        c->import_options.self_check = MC_SELF_CHECK_ACCEPT;
    }
    for (int k = 0; k < 2; ++k)
    {
        c->path = c->a->path[k];
        mc_status s = measure(call_import, c, repeat, import_names[k], 0, r);
        c->def = mc_default_mesh_def();
        c->def.positions = (const double*)mc_mesh_get_positions(c->mesh[k]);
        c->def.vertex_count = mc_mesh_get_vertex_count(c->mesh[k]);
        c->def.indices = mc_mesh_get_indices(c->mesh[k]);
        c->def.triangle_count = mc_mesh_get_triangle_count(c->mesh[k]);
        c->def.self_check = MC_SELF_CHECK_SKIP;
        if (s == MC_OK)
        {
            s = measure(call_create, c, repeat, create_names[k], 0, r);
        }
        if (s == MC_OK)
        {
            c->def.self_check = MC_SELF_CHECK_ACCEPT;
            s = measure(call_create, c, repeat, check_names[k], 0, r);
        }
        if (s != MC_OK)
        {
            return s;
        }
    }
    return MC_OK;
}

/// A world with the two bodies at their poses and one IMPACT contact (default model), worker count `threads`.
static mc_status make_world(bench_ctx* c, int threads)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = threads;
    mc_status s = mc_world_create(&wd, &c->world);
    if (s != MC_OK)
    {
        return s;
    }
    mc_body_id ids[2];
    for (int k = 0; k < 2; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = c->mesh[k];
        bd.pose = c->a->pose[k];
        ids[k] = mc_world_create_body(c->world, &bd);
        if (!mc_body_is_valid(c->world, ids[k]))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &ids[0];
    cd.i_count = 1;
    cd.j_bodies = &ids[1];
    cd.j_count = 1;
    mc_contact_id cid;
    return mc_world_create_contact(c->world, &cd, &cid, NULL);
}

/// The warm stages at one thread count.
static mc_status measure_warm(bench_ctx* c, int threads, bench_result* r)
{
    c->opt.worker_count = threads;
    mc_status s = measure(call_pairs, c, c->a->repeat, "pairs", threads, r);
    if (s == MC_OK)
    {
        s = measure(call_regions, c, c->a->repeat, "regions", threads, r);
    }
    if (s == MC_OK)
    {
        s = make_world(c, threads);
    }
    if (s == MC_OK)
    {
        s = measure(call_evaluate, c, c->a->repeat, "evaluate", threads, r);
    }
    mc_world_destroy(c->world);
    c->world = NULL;
    return s;
}

static mc_status run_bench(bench_ctx* c, bench_result* r)
{
    mc_status s = measure_creation(c, r);
    if (s == MC_OK)
    {
        s = mc_workspace_create(&c->ws);
    }
    if (s != MC_OK)
    {
        return s;
    }
    c->opt = mc_default_query_options();
    c->opt.worker_count = c->a->threads[0];
    s = measure(call_cold, c, c->a->repeat < 5 ? c->a->repeat : 5, "cold_query", c->a->threads[0], r);
    for (int k = 0; k < c->a->thread_count && s == MC_OK; ++k)
    {
        s = measure_warm(c, c->a->threads[k], r);
    }
    if (s == MC_OK)
    {
        r->triangle_pairs = c->stats.triangle_pairs;
        r->region_count = c->region_count;
        for (uint32_t k = 0; k < c->region_count && k < c->region_capacity; ++k)
        {
            r->total_volume += c->regions[k].volume;
        }
        r->workspace_bytes = mc_workspace_get_byte_count(c->ws);
    }
    return s;
}

static void print_text(const bench_args* a, const bench_result* r)
{
    printf("mesh i %s (%u triangles)\nmesh j %s (%u triangles)\n", a->path[0], r->triangles[0], a->path[1],
           r->triangles[1]);
    printf("triangle pairs %llu, regions %u, total volume %.17g\n", (unsigned long long)r->triangle_pairs,
           r->region_count, r->total_volume);
    printf("%-16s %7s %6s %12s %12s %12s\n", "stage", "threads", "calls", "min ms", "median ms", "max ms");
    for (int k = 0; k < r->stage_count; ++k)
    {
        const bench_stage* s = &r->stages[k];
        char threads[16] = "-";
        if (s->threads > 0)
        {
            snprintf(threads, sizeof threads, "%d", s->threads);
        }
        printf("%-16s %7s %6d %12.4f %12.4f %12.4f\n", s->name, threads, s->calls, s->min_ms, s->median_ms, s->max_ms);
    }
    printf("mesh bytes per triangle %.1f (with the OBB trees), workspace %zu bytes, peak RSS %.1f MB\n",
           r->mesh_bytes_per_triangle, r->workspace_bytes, (double)r->peak_rss_bytes / 1e6);
}

static void print_json(const bench_args* a, const bench_result* r)
{
    printf("{\"mesh_i\":");
    cli_json_string(stdout, a->path[0]);
    printf(",\"mesh_j\":");
    cli_json_string(stdout, a->path[1]);
    printf(",\"triangles_i\":%u,\"triangles_j\":%u,\"triangle_pairs\":%llu,\"regions\":%u,\"total_volume\":",
           r->triangles[0], r->triangles[1], (unsigned long long)r->triangle_pairs, r->region_count);
    cli_json_double(stdout, r->total_volume);
    printf(",\"stages\":[");
    for (int k = 0; k < r->stage_count; ++k)
    {
        const bench_stage* s = &r->stages[k];
        printf("%s{\"stage\":\"%s\",\"threads\":%d,\"calls\":%d,\"min_ms\":", k > 0 ? "," : "", s->name, s->threads,
               s->calls);
        cli_json_double(stdout, s->min_ms);
        printf(",\"median_ms\":");
        cli_json_double(stdout, s->median_ms);
        printf(",\"max_ms\":");
        cli_json_double(stdout, s->max_ms);
        printf("}");
    }
    printf("],\"mesh_bytes_per_triangle\":");
    cli_json_double(stdout, r->mesh_bytes_per_triangle);
    printf(",\"workspace_bytes\":%zu,\"peak_rss_bytes\":%ld}\n", r->workspace_bytes, r->peak_rss_bytes);
}

int cli_bench(int argc, char** argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.a = &a;
    for (int k = 0; k < 2; ++k)
    {
        if (cli_load_mesh(a.path[k], a.scale, a.max_triangles, a.accept_self_intersections, &c.mesh[k]) != 0)
        {
            mc_mesh_destroy(c.mesh[0]);
            return 1;
        }
    }
    bench_result r;
    memset(&r, 0, sizeof r);
    c.region_capacity = 256;
    c.regions = malloc(c.region_capacity * sizeof *c.regions);
    mc_status st = c.regions == NULL ? MC_ERR_OUT_OF_MEMORY : run_bench(&c, &r);
    for (int k = 0; k < 2; ++k)
    {
        r.triangles[k] = mc_mesh_get_triangle_count(c.mesh[k]);
    }
    r.mesh_bytes_per_triangle = (double)(mc_mesh_get_byte_count(c.mesh[0]) + mc_mesh_get_byte_count(c.mesh[1])) /
                                (double)(r.triangles[0] + r.triangles[1]);
    struct rusage ru;
    r.peak_rss_bytes = getrusage(RUSAGE_SELF, &ru) == 0 ? 1024L * ru.ru_maxrss : -1L;
    mc_workspace_destroy(c.ws);
    free(c.regions);
    free(c.pairs);
    mc_mesh_destroy(c.mesh[0]);
    mc_mesh_destroy(c.mesh[1]);
    if (st != MC_OK)
    {
        return cli_fail(NULL, "bench failed: %s%s%s", mc_status_string(st), cli_last_log()[0] != '\0' ? ": " : "",
                        cli_last_log());
    }
    if (a.json)
    {
        print_json(&a, &r);
    }
    else
    {
        print_text(&a, &r);
    }
    fflush(stdout);
    return 0;
}
