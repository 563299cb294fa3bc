// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark driver of the pair stage: OBB-tree build and tree-vs-tree queries on generated and real mesh pairs,
// optionally against FCL's OBB and OBBRSS trees on the very same meshes and poses.
//
// usage: bench_collide [-t 1,2] [-r repeats] [-q query-repeats] [-k queries-per-sample] [-b name-filter]
// [-s 1000,10000,...] [-f mesh-file]... [-o out.csv] [--no-fcl] [--fcl-first]
#include "bvh/bvh_internal.h"
#include "mesh/mesh_internal.h"
#include "meshcontact/meshcontact.h"
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MC_BENCH_FCL
#include "fcl_bench.h"
#endif

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct options
{
    int threads[8];
    int thread_count;
    int repeats;
    int query_repeats; // queries timed per scene and thread count (ours and FCL's); builds use repeats
    int batch;         // back-to-back queries per timed sample (the sample's mean is taken); 0: auto (see run_scene)
    const char* filter;
    const char* files[8]; // -f: the user's mesh files, each against a shifted, turned copy of itself
    int file_count;
    uint32_t sizes[8];
    int size_count;
    const char* out;
    int fcl;
    int fcl_first; // --fcl-first: all of FCL's samples before ours (the order before 2026-11-29), not alternated
    int build_only;
} options;

static int parse_list(const char* text, long* out, int max)
{
    int n = 0;
    const char* p = text;
    while (*p != '\0' && n < max)
    {
        char* end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0)
        {
            return -1;
        }
        out[n++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
        {
            return -1;
        }
    }
    return n;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_collide [-t 1,2] [-r repeats] [-q query-repeats (default: repeats)] "
            "[-k queries-per-sample (default: auto, about 20 us a sample; ours and FCL's alike)] [-b name-filter] "
            "[-s 1000,10000,100000,1000000] [-f mesh-file (up to 8: each against a shifted, turned copy of "
            "itself)]... [-o out.csv] [--no-fcl] [--fcl-first] [--build-only]\n");
}

static int parse_args(int argc, char** argv, options* o)
{
    memset(o, 0, sizeof *o);
    o->threads[0] = 1;
    o->threads[1] = 2;
    o->thread_count = 2;
    o->repeats = 5;
    o->sizes[0] = 1000;
    o->sizes[1] = 10000;
    o->sizes[2] = 100000;
    o->sizes[3] = 1000000;
    o->size_count = 4;
    o->fcl = 1;
    for (int a = 1; a < argc; ++a)
    {
        long v[8];
        if (strcmp(argv[a], "-t") == 0 && a + 1 < argc)
        {
            int n = parse_list(argv[++a], v, 8);
            if (n <= 0)
            {
                return -1;
            }
            for (int k = 0; k < n; ++k)
            {
                o->threads[k] = (int)v[k];
            }
            o->thread_count = n;
        }
        else if (strcmp(argv[a], "-s") == 0 && a + 1 < argc)
        {
            int n = parse_list(argv[++a], v, 8);
            if (n <= 0)
            {
                return -1;
            }
            for (int k = 0; k < n; ++k)
            {
                o->sizes[k] = (uint32_t)v[k];
            }
            o->size_count = n;
        }
        else if (strcmp(argv[a], "-f") == 0 && a + 1 < argc)
        {
            if (o->file_count == 8)
            {
                return -1;
            }
            o->files[o->file_count++] = argv[++a];
        }
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
        {
            o->repeats = atoi(argv[++a]);
            if (o->repeats < 1)
            {
                return -1;
            }
        }
        else if (strcmp(argv[a], "-q") == 0 && a + 1 < argc)
        {
            o->query_repeats = atoi(argv[++a]);
            if (o->query_repeats < 1)
            {
                return -1;
            }
        }
        else if (strcmp(argv[a], "-k") == 0 && a + 1 < argc)
        {
            const char* k = argv[++a];
            o->batch = strcmp(k, "auto") == 0 ? 0 : atoi(k);
            if (o->batch < 1 && strcmp(k, "auto") != 0)
            {
                return -1;
            }
        }
        else if (strcmp(argv[a], "-b") == 0 && a + 1 < argc)
        {
            o->filter = argv[++a];
        }
        else if (strcmp(argv[a], "-o") == 0 && a + 1 < argc)
        {
            o->out = argv[++a];
        }
        else if (strcmp(argv[a], "--no-fcl") == 0)
        {
            o->fcl = 0;
        }
        else if (strcmp(argv[a], "--fcl-first") == 0)
        {
            o->fcl_first = 1;
        }
        else if (strcmp(argv[a], "--build-only") == 0)
        {
            o->build_only = 1;
        }
        else
        {
            return -1;
        }
    }
    if (o->query_repeats == 0)
    {
        o->query_repeats = o->repeats;
    }
    return 0;
}

// Build time of mc_bvh_build (min over repeats; the mesh's tree is replaced by an identical one each time).
// cpu receives the thread CPU time of the fastest run (less sensitive to a busy machine than wall time).
static double time_build(mc_mesh* m, int repeats, double* cpu)
{
    double best = INFINITY;
    for (int r = 0; r < repeats; ++r)
    {
        double t0 = now(), c0 = cpu_now();
        if (mc_bvh_build(m) != MC_OK)
        {
            return NAN;
        }
        double t = now() - t0, c = cpu_now() - c0;
        if (t < best)
        {
            best = t;
            *cpu = c;
        }
    }
    return best;
}

typedef struct fcl_result
{
    double build_s;   // build time of mesh I's model (min over repeats), wall clock
    double build_cpu; // thread CPU time of that build
    double query_s;   // collide time (min over repeats), wall clock
    double query_cpu; // thread CPU time of the collide (min over repeats)
    uint64_t pairs;   // contacts reported
    double tree_bpt;  // tree bytes per triangle of mesh I
    double total_bpt; // tree + mesh arrays per triangle
} fcl_result;

#ifdef MC_BENCH_FCL
/// One FCL tree kind on a scene: its two models (one when the scene's meshes are the same) and the poses.
typedef struct fcl_side
{
    fcl_bench_model* fm[2];
    double pa[3], qa[4], pb[3], qb[4];
} fcl_side;

/// Build the FCL models of a scene (mesh I's build timed, min over `repeats`, one build for 500k triangles and more)
/// and start out's query minima.
static void fcl_open(fcl_bench_bv bv, const scene_pair* s, int repeats, fcl_side* fs, fcl_result* out)
{
    const mc_mesh* mm[2] = {s->mesh_i, s->mesh_j};
    fs->fm[0] = fs->fm[1] = NULL;
    size_t tree = 0, mesh = 0;
    out->build_s = INFINITY;
    out->build_cpu = INFINITY;
    int build_repeats = mc_mesh_get_triangle_count(s->mesh_i) >= 500000u ? 1 : repeats;
    for (int k = 0; k < 2; ++k)
    {
        if (k == 1 && mm[1] == mm[0])
        {
            fs->fm[1] = fs->fm[0];
            break;
        }
        for (int r = 0; r < (k == 0 ? build_repeats : 1); ++r)
        {
            double sec = 0, cpu = 0;
            size_t tb = 0, mb = 0;
            fcl_bench_model* m =
                fcl_bench_build(bv, (const double*)mc_mesh_get_positions(mm[k]), mc_mesh_get_vertex_count(mm[k]),
                                mc_mesh_get_indices(mm[k]), mc_mesh_get_triangle_count(mm[k]), &sec, &cpu, &tb, &mb);
            if (k == 0)
            {
                out->build_s = sec < out->build_s ? sec : out->build_s;
                out->build_cpu = cpu < out->build_cpu ? cpu : out->build_cpu;
                tree = tb;
                mesh = mb;
            }
            if (fs->fm[k] != NULL)
            {
                fcl_bench_destroy(fs->fm[k]);
            }
            fs->fm[k] = m;
        }
    }
    double pa[3] = {s->pose_i.p.x, s->pose_i.p.y, s->pose_i.p.z};
    double qa[4] = {s->pose_i.q.w, s->pose_i.q.x, s->pose_i.q.y, s->pose_i.q.z};
    double pb[3] = {s->pose_j.p.x, s->pose_j.p.y, s->pose_j.p.z};
    double qb[4] = {s->pose_j.q.w, s->pose_j.q.x, s->pose_j.q.y, s->pose_j.q.z};
    memcpy(fs->pa, pa, sizeof pa);
    memcpy(fs->qa, qa, sizeof qa);
    memcpy(fs->pb, pb, sizeof pb);
    memcpy(fs->qb, qb, sizeof qb);
    out->query_s = INFINITY;
    out->query_cpu = INFINITY;
    double nt = (double)mc_mesh_get_triangle_count(s->mesh_i);
    out->tree_bpt = (double)tree / nt;
    out->total_bpt = (double)(tree + mesh) / nt;
}

/// One FCL sample (`batch` queries, mean taken); kept in out's minima when `keep` (the first sample warms).
static void fcl_sample(fcl_side* fs, int batch, int keep, fcl_result* out)
{
    double sec = 0, cpu = 0;
    out->pairs = fcl_bench_collide(fs->fm[0], fs->pa, fs->qa, fs->fm[1], fs->pb, fs->qb, batch, &sec, &cpu);
    if (keep)
    {
        out->query_s = sec < out->query_s ? sec : out->query_s;
        out->query_cpu = cpu < out->query_cpu ? cpu : out->query_cpu;
    }
}

static void fcl_close(fcl_side* fs)
{
    if (fs->fm[1] != fs->fm[0])
    {
        fcl_bench_destroy(fs->fm[1]);
    }
    fcl_bench_destroy(fs->fm[0]);
}
#endif

// FNV-1a hash of the pairs of a query (indices, crossing points' bits, flags), field by field (no padding bytes): two
// builds or kernels give the same hash when their outputs are bitwise the same.
static uint64_t hash_bytes(uint64_t h, const void* p, size_t n)
{
    const unsigned char* b = p;
    for (size_t k = 0; k < n; ++k)
    {
        h = (h ^ b[k]) * 0x100000001b3ull;
    }
    return h;
}

static uint64_t hash_pairs(const mc_triangle_pair* p, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < n; ++k)
    {
        h = hash_bytes(h, &p[k].i, sizeof p[k].i);
        h = hash_bytes(h, &p[k].j, sizeof p[k].j);
        for (int e = 0; e < 2; ++e)
        {
            const mc_crossing* c = &p[k].crossing[e];
            h = hash_bytes(h, &c->point, sizeof c->point);
            unsigned char f[4] = {c->body, c->edge, (unsigned char)c->entering, c->degenerate};
            h = hash_bytes(h, f, sizeof f);
        }
    }
    return h;
}

// Queries per timed sample when -k is not given, the same for ours and FCL's: enough back-to-back queries for a
// sample to last about AUTO_BATCH_SECONDS by one serial warm query of ours (at most 1000), so that the clock reads
// around a sample (about 0.2 us: two of them read the thread CPU clock through a system call) weigh little on the
// smallest queries (a part inside a box finds nothing in about 1 us); 1 for queries that long already.
#define AUTO_BATCH_SECONDS 20e-6

static int auto_batch(scene_pair* s, mc_workspace* ws, mc_triangle_pair* buf, uint32_t cap)
{
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    uint32_t n = 0;
    double best = INFINITY;
    for (int r = 0; r < 4; ++r) // the first warms the workspace
    {
        double t0 = now();
        mc_query_triangle_pairs(s->mesh_i, &s->pose_i, s->mesh_j, &s->pose_j, &opt, ws, buf, cap, &n, NULL);
        double t = now() - t0;
        best = r > 0 && t < best ? t : best;
    }
    if (!(best < AUTO_BATCH_SECONDS))
    {
        return 1;
    }
    double k = ceil(AUTO_BATCH_SECONDS / fmax(best, 1e-8));
    return k > 1000.0 ? 1000 : (int)k;
}

static void run_scene(const options* o, scene_pair* s, FILE* csv)
{
    mc_mesh* mi = s->mesh_i;
    uint32_t nt = mc_mesh_get_triangle_count(mi);
    int build_repeats = nt >= 500000u ? (o->repeats < 3 ? o->repeats : 3) : o->repeats;
    double build_cpu = 0.0;
    double build_s = time_build(mi, build_repeats, &build_cpu);
    double tree_bpt = (double)mc_bvh_byte_count(mi->bvh) / (double)nt;
    double mesh_bpt =
        (double)(mc_mesh_get_vertex_count(mi) * sizeof(mc_vec3) + 3u * (size_t)nt * sizeof(uint32_t)) / (double)nt;
    if (o->build_only)
    {
        printf("%-28s %8u tri  build %8.2f ms (min of %d; cpu %8.2f ms)  %5.1f B/tri (tree) + %5.1f B/tri (mesh "
               "arrays)  depth %u\n",
               s->name, nt, 1e3 * build_s, build_repeats, 1e3 * build_cpu, tree_bpt, mesh_bpt, mi->bvh->depth);
        return;
    }
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return;
    }
    uint32_t cap = 1u << 20;
    mc_triangle_pair* buf = malloc((size_t)cap * sizeof *buf);
    int batch = o->batch > 0 ? o->batch : auto_batch(s, ws, buf, cap);
    fcl_result fo, fr;
    memset(&fo, 0, sizeof fo);
    memset(&fr, 0, sizeof fr);
    int have_fcl = 0;
#ifdef MC_BENCH_FCL
    fcl_side so, sr;
    if (o->fcl)
    {
        fcl_open(FCL_BENCH_OBB, s, o->repeats, &so, &fo);
        fcl_open(FCL_BENCH_OBBRSS, s, o->repeats, &sr, &fr);
        have_fcl = 1;
        for (int r = 0; r < o->query_repeats + 1 && o->fcl_first; ++r)
        {
            fcl_sample(&so, batch, r > 0, &fo);
        }
        for (int r = 0; r < o->query_repeats + 1 && o->fcl_first; ++r)
        {
            fcl_sample(&sr, batch, r > 0, &fr);
        }
    }
#endif
    double q1 = NAN;
    for (int ti = 0; ti < o->thread_count; ++ti)
    {
        mc_query_options opt = mc_default_query_options();
        opt.worker_count = o->threads[ti];
        uint32_t n = 0;
        mc_query_stats st;
        double best = INFINITY, best_cpu = INFINITY;
        // FCL's samples follow each block of ours: seven blocks (fewer when there are fewer samples).
        int block = (o->query_repeats + 1 + 6) / 7;
        (void)block;
        for (int r = 0; r < o->query_repeats + 1; ++r) // first run warms the workspace
        {
            // One sample: `batch` queries back to back (as a simulator calls them, step after step), mean taken.
            mc_status rc = MC_OK;
            double t0 = now(), c0 = cpu_now();
            // No stats asked in a timed sample (as FCL is asked for none): the query then reads no clock.
            for (int k = 0; k < batch && (rc == MC_OK || rc == MC_ERR_CAPACITY); ++k)
            {
                rc = mc_query_triangle_pairs(mi, &s->pose_i, s->mesh_j, &s->pose_j, &opt, ws, buf, cap, &n, NULL);
            }
            double t = (now() - t0) / batch, c = (cpu_now() - c0) / batch;
            if (rc != MC_OK && rc != MC_ERR_CAPACITY)
            {
                fprintf(stderr, "%s: query failed: %s\n", s->name, mc_status_string(rc));
                break;
            }
            if (r > 0)
            {
                best = t < best ? t : best;
                best_cpu = c < best_cpu ? c : best_cpu;
            }
#ifdef MC_BENCH_FCL
            if (have_fcl && ti == 0 && !o->fcl_first && ((r + 1) % block == 0 || r == o->query_repeats))
            {
                // FCL's samples alternate with ours by blocks (first thread count): after each block of our samples
                // the same number of FCL OBB samples, then of OBBRSS, so that both minima come from the same stretch
                // of a shared VM whose speed drifts by tens of percent between seconds (since 2026-11-29; before,
                // all of FCL's samples ran first). Blocks, not single samples: a sample right after the other
                // library's finds its data out of cache, and the queries are timed warm.
                int from = r + 1 - ((r + 1) % block == 0 ? block : (r + 1) % block);
                for (int k = from; k <= r; ++k)
                {
                    fcl_sample(&so, batch, k > 0, &fo);
                }
                for (int k = from; k <= r; ++k)
                {
                    fcl_sample(&sr, batch, k > 0, &fr);
                }
            }
#endif
        }
        // The counters (and threads used), from one more query outside the timed samples.
        mc_query_triangle_pairs(mi, &s->pose_i, s->mesh_j, &s->pose_j, &opt, ws, buf, cap, &n, &st);
        if (ti == 0)
        {
            q1 = best;
        }
        // CPU time is the calling thread's only: meaningful for single-thread runs.
        double qcpu = st.threads == 1 ? best_cpu : NAN;
        printf("%-22s %8u tri  build %8.2f ms (cpu %8.2f)  %5.1f B/tri | t=%d query %8.3f ms (cpu %8.3f)  pairs %6u  "
               "box %8llu  tri %8llu  x%.2f vs t=%d  k=%d  hash %016llx",
               s->name, nt, 1e3 * build_s, 1e3 * build_cpu, tree_bpt, st.threads, 1e3 * best, 1e3 * qcpu, n,
               (unsigned long long)st.box_tests, (unsigned long long)st.triangle_tests, q1 / best, o->threads[0], batch,
               (unsigned long long)hash_pairs(buf, n < cap ? n : cap));
        if (have_fcl)
        {
            printf(" | FCL OBB build %8.2f ms (cpu %8.2f, x%.1f) %5.1f B/tri query %8.3f ms (cpu %8.3f, x%.1f) pairs "
                   "%llu | OBBRSS build %8.2f ms query %8.3f ms pairs %llu",
                   1e3 * fo.build_s, 1e3 * fo.build_cpu, fo.build_cpu / build_cpu, fo.tree_bpt, 1e3 * fo.query_s,
                   1e3 * fo.query_cpu, fo.query_cpu / qcpu, (unsigned long long)fo.pairs, 1e3 * fr.build_s,
                   1e3 * fr.query_s, (unsigned long long)fr.pairs);
        }
        printf("\n");
        fflush(stdout);
        if (csv != NULL)
        {
            fprintf(csv, "%s,%u,%u,%d,%d,%.4f,%.4f,%.2f,%.2f,%.6f,%.6f,%u,%llu,%llu", s->name, nt,
                    mc_mesh_get_triangle_count(s->mesh_j), o->threads[ti], st.threads, 1e3 * build_s, 1e3 * build_cpu,
                    tree_bpt, mesh_bpt, 1e3 * best, 1e3 * qcpu, n, (unsigned long long)st.box_tests,
                    (unsigned long long)st.triangle_tests);
            if (have_fcl)
            {
                fprintf(
                    csv,
                    ",%.4f,%.4f,%.6f,%.6f,%llu,%.2f,%.2f,%.4f,%.4f,%.6f,%.6f,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%d\n",
                    1e3 * fo.build_s, 1e3 * fo.build_cpu, 1e3 * fo.query_s, 1e3 * fo.query_cpu,
                    (unsigned long long)fo.pairs, fo.tree_bpt, fo.total_bpt, 1e3 * fr.build_s, 1e3 * fr.build_cpu,
                    1e3 * fr.query_s, 1e3 * fr.query_cpu, (unsigned long long)fr.pairs, fr.tree_bpt, fr.total_bpt,
                    fo.build_s / build_s, fo.build_cpu / build_cpu, fo.query_s / best, fo.query_cpu / qcpu, batch);
            }
            else
            {
                fprintf(csv, ",,,,,,,,,,,,,,,,,,,%d\n", batch);
            }
            fflush(csv);
        }
    }
#ifdef MC_BENCH_FCL
    if (have_fcl)
    {
        fcl_close(&so);
        fcl_close(&sr);
    }
#endif
    free(buf);
    mc_workspace_destroy(ws);
}

/// What run_visited needs: the options and the CSV.
typedef struct scene_run_ctx
{
    const options* o;
    FILE* csv;
} scene_run_ctx;

/// scene_each's visitor: time the scene.
static void run_visited(const scene_pair* s, void* ctx)
{
    const scene_run_ctx* c = ctx;
    run_scene(c->o, (scene_pair*)s, c->csv);
}

static int wanted(const options* o, const char* name)
{
    return o->filter == NULL || strstr(name, o->filter) != NULL;
}

int main(int argc, char** argv)
{
    options o;
    if (parse_args(argc, argv, &o) != 0)
    {
        usage();
        return 2;
    }
    FILE* csv = NULL;
    if (o.out != NULL)
    {
        csv = fopen(o.out, "w");
        if (csv == NULL)
        {
            fprintf(stderr, "bench_collide: %s: cannot open\n", o.out);
            return 1;
        }
        fprintf(csv, "scene,triangles_i,triangles_j,threads_requested,threads_used,build_ms,build_cpu_ms,"
                     "tree_bytes_per_tri,mesh_bytes_per_tri,query_ms,query_cpu_ms,pairs,box_tests,tri_tests,"
                     "fcl_obb_build_ms,fcl_obb_build_cpu_ms,fcl_obb_query_ms,fcl_obb_query_cpu_ms,fcl_obb_pairs,"
                     "fcl_obb_tree_bytes_per_tri,fcl_obb_total_bytes_per_tri,fcl_obbrss_build_ms,"
                     "fcl_obbrss_build_cpu_ms,fcl_obbrss_query_ms,fcl_obbrss_query_cpu_ms,fcl_obbrss_pairs,"
                     "fcl_obbrss_tree_bytes_per_tri,fcl_obbrss_total_bytes_per_tri,build_speedup_vs_fcl_obb,"
                     "build_cpu_speedup_vs_fcl_obb,query_speedup_vs_fcl_obb,query_cpu_speedup_vs_fcl_obb,batch\n");
    }
#ifdef MC_BENCH_FCL
    if (o.fcl)
    {
        printf("FCL %s found: comparing with its OBB and OBBRSS trees\n", fcl_bench_version());
    }
#else
    printf("FCL not found at configure time: meshcontact only\n");
#endif
    for (int si = 0; si < o.size_count; ++si)
    {
        for (int k = 0; k < SCENE_KIND_COUNT; ++k)
        {
            char name[64];
            scene_make_name((scene_kind)k, o.sizes[si], name, sizeof name);
            if (!wanted(&o, name))
            {
                continue;
            }
            scene_pair s;
            double t0 = now();
            if (scene_make((scene_kind)k, o.sizes[si], &s) != 0)
            {
                fprintf(stderr, "%s: scene could not be built\n", name);
                continue;
            }
            fprintf(stderr, "%s: meshes made in %.2f s\n", s.name, now() - t0);
            run_scene(&o, &s, csv);
            scene_pair_destroy(&s);
        }
    }
    // Real meshes of data/, then the user's files (-f), each against a shifted, turned copy of itself.
    for (int k = 0; k < scene_shifted_count() + o.file_count; ++k)
    {
        char name[64];
        scene_shifted_name(k, o.files, name, sizeof name);
        scene_pair s;
        if (wanted(&o, name) && scene_make_shifted(k, o.files, &s) != 0)
        {
            fprintf(stderr, "%s: could not import its mesh (set MC_SOURCE_ROOT to the repository root)\n", name);
            return 1;
        }
        if (wanted(&o, name))
        {
            run_scene(&o, &s, csv);
            scene_pair_destroy(&s);
        }
    }
    // Real meshes against coarse boxes and each other (scene_make_real), then the CAD-export scenes (scene_make_cad:
    // gears in mesh, a shaft in a bore, crossed shafts).
    scene_run_ctx ctx = {&o, csv};
    scene_each(&scene_source_real, o.filter, run_visited, &ctx);
    scene_each(&scene_source_cad, o.filter, run_visited, &ctx);
    if (csv != NULL)
    {
        fclose(csv);
    }
    return 0;
}
