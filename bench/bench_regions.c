// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Region-stage benchmark: pairs + regions (mc_query_regions) on the generated scenes and corpus meshes, single
// thread by default; optional check against the clipping oracle (-c) and comparison with CGAL's exact-constructions
// corefinement (when built with CGAL; -C limits the mesh size it is run on).
#include "bvh/bvh.h"
#include "clip_oracle.h"
#include "manifold_peer.h"
#include "meshcontact/meshcontact.h"
#include "scenes.h"
#include "src/contact/workspace.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MC_BENCH_CGAL
#include "cgal_bench.h"
#endif

typedef struct options
{
    int repeats;
    int threads;
    long sizes[8];
    int size_count;
    const char* filter;
    const char* files[8]; // -f: the user's mesh files, each against a shifted, turned copy of itself
    int file_count;
    const char* csv;
    int check;
    long cgal_max;
    bool manifold; // -M: Manifold (manifold-3d under node) on every scene
} options;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// CPU time of the calling thread (not inflated by preemption on a busy machine; single-thread runs only).
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_regions [-r repeats] [-t threads] [-s size,size,...] [-b name-substring] [-o csv]\n"
                    "                     [-f mesh-file]... (up to 8: each against a shifted, turned copy of itself)\n"
                    "                     [-c] (check against the clipping oracle) [-C max-triangles-for-CGAL]\n"
                    "                     [-M] (Manifold's intersection + volume: manifold-3d under node, installed\n"
                    "                     into bench/manifold/node_modules by npm when missing)\n");
}

static int parse_args(int argc, char** argv, options* o)
{
    memset(o, 0, sizeof *o);
    o->repeats = 20;
    o->threads = 1;
    o->sizes[0] = 10000;
    o->sizes[1] = 100000;
    o->sizes[2] = 1000000;
    o->size_count = 3;
    o->cgal_max = 100000;
    for (int k = 1; k < argc; ++k)
    {
        const char* a = argv[k];
        const char* v = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "-c") == 0 || strcmp(a, "-M") == 0)
        {
            o->check = o->check || a[1] == 'c';
            o->manifold = o->manifold || a[1] == 'M';
            continue;
        }
        if (v == NULL)
        {
            usage();
            return -1;
        }
        ++k;
        if (strcmp(a, "-r") == 0)
        {
            o->repeats = atoi(v);
        }
        else if (strcmp(a, "-t") == 0)
        {
            o->threads = atoi(v);
        }
        else if (strcmp(a, "-b") == 0)
        {
            o->filter = v;
        }
        else if (strcmp(a, "-f") == 0 && o->file_count < 8)
        {
            o->files[o->file_count++] = v;
        }
        else if (strcmp(a, "-o") == 0)
        {
            o->csv = v;
        }
        else if (strcmp(a, "-C") == 0)
        {
            o->cgal_max = atol(v);
        }
        else if (strcmp(a, "-s") == 0)
        {
            o->size_count = 0;
            char* end = NULL;
            const char* p = v;
            while (*p && o->size_count < 8)
            {
                o->sizes[o->size_count++] = strtol(p, &end, 10);
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p)
                {
                    break;
                }
            }
        }
        else
        {
            usage();
            return -1;
        }
    }
    if (o->repeats < 1 || o->threads < 1)
    {
        usage();
        return -1;
    }
    return 0;
}

// FNV-1a of the written regions, field by field (no padding bytes): two builds give the same hash when their regions
// are bitwise the same.
static uint64_t hash_regions(const mc_region* r, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < n; ++k)
    {
        double f[22] = {r[k].volume,    r[k].centroid.x, r[k].centroid.y, r[k].centroid.z, r[k].area,
                        r[k].radius,    r[k].normal.x,   r[k].normal.y,   r[k].normal.z,   r[k].depth,
                        r[k].point_i.x, r[k].point_i.y,  r[k].point_i.z,  r[k].point_j.x,  r[k].point_j.y,
                        r[k].point_j.z, r[k].s_i.x,      r[k].s_i.y,      r[k].s_i.z,      r[k].s_j.x,
                        r[k].s_j.y,     r[k].s_j.z};
        const unsigned char* b = (const unsigned char*)f;
        for (size_t i = 0; i < sizeof f; ++i)
        {
            h = (h ^ b[i]) * 0x100000001b3ull;
        }
    }
    return h;
}

static void run_scene(const options* o, scene_pair* s, FILE* csv)
{
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return;
    }
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = o->threads;
    mc_region regions[256];
    uint32_t n = 0;
    mc_query_stats st;
    double best = INFINITY, best_pairs = INFINITY, best_regions = INFINITY, best_cpu = INFINITY;
    mc_status rc = MC_OK;
    for (int r = 0; r <= o->repeats; ++r) // the first run warms the workspace and the caches
    {
        double t0 = now(), c0 = cpu_now();
        rc = mc_query_regions(s->mesh_i, &s->pose_i, s->mesh_j, &s->pose_j, &opt, ws, regions, 256, &n, &st);
        double t = now() - t0, ct = cpu_now() - c0;
        if (rc != MC_OK && rc != MC_ERR_CAPACITY)
        {
            fprintf(stderr, "%s: query failed: %s\n", s->name, mc_status_string(rc));
            mc_workspace_destroy(ws);
            return;
        }
        if (r > 0)
        {
            best = fmin(best, t);
            best_cpu = fmin(best_cpu, ct);
            best_pairs = fmin(best_pairs, st.seconds_pairs);
            best_regions = fmin(best_regions, st.seconds_regions);
        }
    }
    double volume = 0.0;
    mc_vec3 moment = {0.0, 0.0, 0.0}, s_i = {0.0, 0.0, 0.0}; // world frame
    for (uint32_t k = 0; k < n && k < 256; ++k)
    {
        volume += regions[k].volume;
        moment = mc_mul_add(moment, regions[k].volume, regions[k].centroid);
        s_i = mc_mul_add(s_i, regions[k].area, regions[k].normal);
    }
    printf("%-26s tris %8u+%-8u pairs %7llu crossings %7llu inside %8llu regions %3u  V %.12g  total %8.3f ms"
           " (pairs %7.3f, regions %7.3f; thread cpu %8.3f)  region hash %016llx",
           s->name, mc_mesh_get_triangle_count(s->mesh_i), mc_mesh_get_triangle_count(s->mesh_j),
           (unsigned long long)st.triangle_pairs, (unsigned long long)st.crossings,
           (unsigned long long)st.inside_vertices, n, volume, 1e3 * best, 1e3 * best_pairs, 1e3 * best_regions,
           1e3 * best_cpu, (unsigned long long)hash_regions(regions, n < 256 ? n : 256));
    double oracle_rel = NAN, cgal_rel = NAN, cgal_ratio = NAN;
    // The oracle and CGAL work in I's frame with J's vertices exactly as the pair stage mapped them.
    mc_pose inv_i = mc_pose_inverse(&s->pose_i);
    mc_pose j_in_i = mc_pose_mul(&inv_i, &s->pose_j);
    mc_pair_result pr;
    if ((o->check
#ifdef MC_BENCH_CGAL
         || (long)(mc_mesh_get_triangle_count(s->mesh_i) + mc_mesh_get_triangle_count(s->mesh_j)) <= 2 * o->cgal_max
#endif
         ) &&
        mc_collide(s->mesh_i, s->mesh_j, &j_in_i, o->threads, &ws->pairs, &pr, NULL) == MC_OK)
    {
        if (o->check)
        {
            clip_oracle_result orc;
            if (clip_oracle_compute(s->mesh_i, s->mesh_j, &pr, ws, &orc) == 0)
            {
                oracle_rel = fabs(volume - orc.volume) / orc.volume;
                printf("  oracle rel %.2e%s", oracle_rel, orc.inconsistent_edges ? " INCONSISTENT" : "");
                // The centroid relative to the intersection's size (cube root of its volume), S_I relative to its
                // length; the oracle's are in I's frame.
                mc_vec3 c_or = mc_pose_transform(&s->pose_i, orc.centroid);
                mc_vec3 s_or = mc_quat_rotate(s->pose_i.q, orc.s_i);
                double size = cbrt(orc.volume);
                printf(" centroid %.2e S_I %.2e", mc_length(mc_sub(mc_scale(moment, 1.0 / volume), c_or)) / size,
                       mc_length(mc_sub(s_i, s_or)) / mc_length(s_or));
            }
        }
#ifdef MC_BENCH_CGAL
        if ((long)(mc_mesh_get_triangle_count(s->mesh_i) + mc_mesh_get_triangle_count(s->mesh_j)) <= 2 * o->cgal_max)
        {
            const mc_mesh* m[2] = {s->mesh_i, s->mesh_j};
            double* pos[2];
            for (int b = 0; b < 2; ++b)
            {
                uint32_t nv = mc_mesh_get_vertex_count(m[b]);
                pos[b] = malloc(sizeof(double) * 3 * nv);
                const mc_vec3* p = mc_mesh_get_positions(m[b]);
                for (uint32_t v = 0; v < nv; ++v)
                {
                    mc_vec3 q = b == 0 ? p[v] : mc_pair_scratch_j_vertex(ws->pairs, v);
                    pos[b][3 * v] = q.x, pos[b][3 * v + 1] = q.y, pos[b][3 * v + 2] = q.z;
                }
            }
            double cv = 0.0, cs = 0.0;
            if (cgal_bench_intersection(pos[0], mc_mesh_get_vertex_count(m[0]), mc_mesh_get_indices(m[0]),
                                        mc_mesh_get_triangle_count(m[0]), pos[1], mc_mesh_get_vertex_count(m[1]),
                                        mc_mesh_get_indices(m[1]), mc_mesh_get_triangle_count(m[1]), &cv, &cs) == 0)
            {
                cgal_rel = fabs(volume - cv) / fabs(cv);
                cgal_ratio = cs / best;
                printf("  CGAL(exact) V %.12g rel %.2e time %.3f s ratio %.0fx", cv, cgal_rel, cs, cgal_ratio);
            }
            else
            {
                printf("  CGAL failed");
            }
            free(pos[0]);
            free(pos[1]);
        }
#endif
    }
    // Manifold (-M): "f64" is the comparison (same float64 input on every side, Manifold's tolerance at its double
    // epsilon); "f32" the same on float32-rounded input; "f32 default" manifold-3d's float-sized tolerance (before).
    double manifold_rel = NAN, manifold_ratio = NAN, manifold_exact = NAN, ours_exact_d = NAN;
    double f32_rel = NAN, exact_ours = NAN, exact_manifold = NAN, default_exact = NAN, default_ratio = NAN;
    double tol = NAN, tol_default = NAN;
    manifold_peer_result mp;
    if (o->manifold && manifold_peer_run(s, o->repeats, &mp) == 0)
    {
        manifold_rel = fabs(mp.f64.volume - mp.volume_ours_d) / fabs(mp.volume_ours_d);
        manifold_ratio = mp.f64.seconds / best;
        f32_rel = fabs(mp.f32.volume - mp.volume_ours) / fabs(mp.volume_ours);
        default_ratio = mp.f32_default.seconds / best;
        tol = mp.f64.tolerance;
        tol_default = mp.f32_default.tolerance;
        printf("  Manifold(f64 input) V %.17g (ours %.17g, rel %.2e; status %s; tolerance %.3g, inputs' volumes rel "
               "%.1e) time %.3f ms ratio %.1fx",
               mp.f64.volume, mp.volume_ours_d, manifold_rel, mp.status, tol, mp.f64.input_rel, 1e3 * mp.f64.seconds,
               manifold_ratio);
        printf("  Manifold(f32 input) V %.17g (ours %.17g, rel %.2e) time %.3f ms", mp.f32.volume, mp.volume_ours,
               f32_rel, 1e3 * mp.f32.seconds);
        printf("  Manifold(f32, default tolerance %.3g) V %.17g time %.3f ms ratio %.1fx", tol_default,
               mp.f32_default.volume, 1e3 * mp.f32_default.seconds, default_ratio);
        if (!isnan(mp.volume_exact))
        {
            // The arbiter: CGAL's exact corefinement of the same input, against each side.
            manifold_exact = fabs(mp.f64.volume - mp.volume_exact_d) / fabs(mp.volume_exact_d);
            ours_exact_d = fabs(mp.volume_ours_d - mp.volume_exact_d) / fabs(mp.volume_exact_d);
            exact_ours = fabs(mp.volume_ours - mp.volume_exact) / fabs(mp.volume_exact);
            exact_manifold = fabs(mp.f32.volume - mp.volume_exact) / fabs(mp.volume_exact);
            default_exact = fabs(mp.f32_default.volume - mp.volume_exact) / fabs(mp.volume_exact);
            printf("  CGAL(exact) f64 input V %.17g: ours rel %.2e, Manifold rel %.2e; f32 input V %.17g: ours rel "
                   "%.2e, Manifold rel %.2e, Manifold(default tolerance) rel %.2e",
                   mp.volume_exact_d, ours_exact_d, manifold_exact, mp.volume_exact, exact_ours, exact_manifold,
                   default_exact);
        }
    }
    printf("\n");
    fflush(stdout);
    if (csv != NULL)
    {
        fprintf(csv,
                "%s,%d,%u,%u,%llu,%llu,%u,%.17g,%.6f,%.6f,%.6f,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,%.3g,"
                "%.3g,%.3g,%.3g\n",
                s->name, o->threads, mc_mesh_get_triangle_count(s->mesh_i), mc_mesh_get_triangle_count(s->mesh_j),
                (unsigned long long)st.triangle_pairs, (unsigned long long)st.inside_vertices, n, volume, 1e3 * best,
                1e3 * best_pairs, 1e3 * best_regions, oracle_rel, cgal_rel, cgal_ratio, manifold_rel, manifold_ratio,
                manifold_exact, ours_exact_d, f32_rel, exact_ours, exact_manifold, default_exact, default_ratio, tol,
                tol_default);
    }
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
        return 2;
    }
    if (o.manifold && manifold_peer_setup() != 0)
    {
        return 1;
    }
    FILE* csv = NULL;
    if (o.csv != NULL)
    {
        csv = fopen(o.csv, "w");
        if (csv == NULL)
        {
            fprintf(stderr, "bench_regions: cannot write %s\n", o.csv);
            return 1;
        }
        fprintf(csv, "scene,threads,tris_i,tris_j,pairs,inside_vertices,regions,volume,ms_total,ms_pairs,ms_regions,"
                     "oracle_rel,cgal_rel,cgal_time_ratio,manifold_rel,manifold_time_ratio,manifold_exact_rel,"
                     "ours_exact_rel,float_manifold_rel,float_exact_ours_rel,float_exact_manifold_rel,"
                     "float_default_exact_manifold_rel,manifold_default_time_ratio,manifold_tolerance,"
                     "manifold_default_tolerance\n");
    }
    for (int k = 0; k < SCENE_KIND_COUNT; ++k)
    {
        for (int z = 0; z < o.size_count; ++z)
        {
            char name[64];
            scene_make_name((scene_kind)k, (uint32_t)o.sizes[z], name, sizeof name);
            if (!wanted(&o, name))
            {
                continue;
            }
            scene_pair s;
            if (scene_make((scene_kind)k, (uint32_t)o.sizes[z], &s) != 0)
            {
                fprintf(stderr, "%s: could not build the scene\n", name);
                continue;
            }
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
    // Real meshes against coarse boxes and each other (scene_make_real), then the CAD-export scenes (scene_make_cad).
    scene_run_ctx ctx = {&o, csv};
    scene_each(&scene_source_real, o.filter, run_visited, &ctx);
    scene_each(&scene_source_cad, o.filter, run_visited, &ctx);
    if (csv != NULL)
    {
        fclose(csv);
    }
    return 0;
}
