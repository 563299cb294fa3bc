// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark of the distance query (mc_query_distance) on the bench scenes moved apart, against FCL's fcl::distance
// on OBBRSS trees (its usual choice for distance) with the same meshes and poses, in the same process.
//
// usage: bench_distance [-r repeats] [-s 1000,10000,...] [-b name-filter] [-o out.csv]
// Each scene (generated kinds at each size, the real-mesh scenes) has J moved away from I along the line between
// their bounding-box centres until the distance is a given fraction of the scene's diagonal (1% and 10%, by
// bisection on the shift with mc_query_distance). Times are the calling thread's CPU time, minimum over the repeats
// (the machine is shared); the two libraries alternate within each repeat.
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

typedef struct options
{
    int repeats;
    long sizes[8];
    int size_count;
    const char* filter;
    const char* out;
} options;

static double scene_diagonal(const scene_pair* s, mc_vec3* ci, mc_vec3* cj)
{
    const mc_mesh_report* ri = mc_mesh_get_report(s->mesh_i);
    const mc_mesh_report* rj = mc_mesh_get_report(s->mesh_j);
    *ci = mc_pose_transform(&s->pose_i, mc_scale(mc_add(ri->bbox_min, ri->bbox_max), 0.5));
    *cj = mc_pose_transform(&s->pose_j, mc_scale(mc_add(rj->bbox_min, rj->bbox_max), 0.5));
    return fmax(mc_length(mc_sub(ri->bbox_max, ri->bbox_min)), mc_length(mc_sub(rj->bbox_max, rj->bbox_min)));
}

static double distance_at(const scene_pair* s, const mc_pose* pj, mc_workspace* ws, mc_distance_result* r)
{
    if (mc_query_distance(s->mesh_i, &s->pose_i, s->mesh_j, pj, INFINITY, NULL, ws, r) != MC_OK)
    {
        return -1.0;
    }
    return r->kind == MC_DISTANCE_SEPARATED ? r->distance : 0.0;
}

/// J's pose moved along `dir` so that the distance is `target` (within 1%), by bisection on the shift.
static mc_pose moved_apart(const scene_pair* s, mc_vec3 dir, double diag, double target, mc_workspace* ws)
{
    mc_distance_result r;
    double lo = 0.0, hi = diag;
    mc_pose pj = s->pose_j;
    for (;;)
    {
        pj.p = mc_add(s->pose_j.p, mc_scale(dir, hi));
        if (distance_at(s, &pj, ws, &r) >= target)
        {
            break;
        }
        lo = hi;
        hi *= 2.0;
    }
    for (int it = 0; it < 60; ++it)
    {
        double mid = 0.5 * (lo + hi);
        pj.p = mc_add(s->pose_j.p, mc_scale(dir, mid));
        double d = distance_at(s, &pj, ws, &r);
        if (fabs(d - target) <= 0.01 * target)
        {
            return pj;
        }
        *(d < target ? &lo : &hi) = mid;
    }
    pj.p = mc_add(s->pose_j.p, mc_scale(dir, hi));
    return pj;
}

#ifdef MC_BENCH_FCL
static fcl_bench_model* fcl_model(const mc_mesh* m)
{
    uint32_t nv = mc_mesh_get_vertex_count(m);
    double* p = malloc(sizeof(double) * 3 * nv);
    const mc_vec3* v = mc_mesh_get_positions(m);
    for (uint32_t k = 0; k < nv; ++k)
    {
        p[3 * k] = v[k].x, p[3 * k + 1] = v[k].y, p[3 * k + 2] = v[k].z;
    }
    double sec, cpu;
    size_t tb, mb;
    fcl_bench_model* f = fcl_bench_build(FCL_BENCH_OBBRSS, p, nv, mc_mesh_get_indices(m), mc_mesh_get_triangle_count(m),
                                         &sec, &cpu, &tb, &mb);
    free(p);
    return f;
}
#endif

static void run_scene(const options* o, const scene_pair* s, FILE* csv)
{
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return;
    }
    mc_vec3 ci, cj;
    double diag = scene_diagonal(s, &ci, &cj);
    mc_vec3 dir = mc_sub(cj, ci);
    dir = mc_length(dir) > 1e-3 * diag ? mc_normalize(dir) : mc_normalize(mc_v3(1.0, 0.5, 0.25));
#ifdef MC_BENCH_FCL
    fcl_bench_model* fi = fcl_model(s->mesh_i);
    fcl_bench_model* fj = s->mesh_j == s->mesh_i ? fi : fcl_model(s->mesh_j);
#endif
    static const double fractions[2] = {0.01, 0.1};
    for (int f = 0; f < 2; ++f)
    {
        mc_pose pj = moved_apart(s, dir, diag, fractions[f] * diag, ws);
        mc_distance_result r;
        double best = INFINITY, fcl_best = INFINITY, fcl_d = NAN;
        for (int k = 0; k < o->repeats; ++k)
        {
            double c0 = cpu_now();
            mc_query_distance(s->mesh_i, &s->pose_i, s->mesh_j, &pj, INFINITY, NULL, ws, &r);
            best = fmin(best, cpu_now() - c0);
#ifdef MC_BENCH_FCL
            double pi_[3] = {s->pose_i.p.x, s->pose_i.p.y, s->pose_i.p.z};
            double qi[4] = {s->pose_i.q.w, s->pose_i.q.x, s->pose_i.q.y, s->pose_i.q.z};
            double pj_[3] = {pj.p.x, pj.p.y, pj.p.z};
            double qj[4] = {pj.q.w, pj.q.x, pj.q.y, pj.q.z};
            double sec, cpu;
            fcl_d = fcl_bench_distance(fi, pi_, qi, fj, pj_, qj, NULL, &sec, &cpu);
            fcl_best = fmin(fcl_best, cpu);
#endif
        }
        double rel = fabs(r.distance - fcl_d) / r.distance;
        printf("%-28s %7u %7u gap %4.0f%% d %.10g  mc %9.4f ms (%6llu boxes %6llu tris)  fcl %9.4f ms d %.10g  "
               "rel.diff %.1e  fcl/mc %.2f\n",
               s->name, mc_mesh_get_triangle_count(s->mesh_i), mc_mesh_get_triangle_count(s->mesh_j),
               100.0 * fractions[f], r.distance, 1e3 * best, (unsigned long long)r.box_tests,
               (unsigned long long)r.triangle_tests, 1e3 * fcl_best, fcl_d, rel, fcl_best / best);
        fflush(stdout);
        if (csv != NULL)
        {
            fprintf(csv, "%s,%u,%u,%g,%.17g,%.6f,%llu,%llu,%.6f,%.17g,%.3e,%.3f\n", s->name,
                    mc_mesh_get_triangle_count(s->mesh_i), mc_mesh_get_triangle_count(s->mesh_j), fractions[f],
                    r.distance, 1e3 * best, (unsigned long long)r.box_tests, (unsigned long long)r.triangle_tests,
                    1e3 * fcl_best, fcl_d, rel, fcl_best / best);
        }
    }
#ifdef MC_BENCH_FCL
    if (fj != fi)
    {
        fcl_bench_destroy(fj);
    }
    fcl_bench_destroy(fi);
#endif
    mc_workspace_destroy(ws);
}

/// A real scene run through scene_each_real.
typedef struct bench_run
{
    const options* o;
    FILE* csv;
} bench_run;

static void visit_real(const scene_pair* s, void* ctx)
{
    const bench_run* b = ctx;
    run_scene(b->o, s, b->csv);
}

static int wanted(const options* o, const char* name)
{
    return o->filter == NULL || strstr(name, o->filter) != NULL;
}

int main(int argc, char** argv)
{
    options o = {5, {1000, 10000, 100000}, 3, NULL, NULL};
    for (int a = 1; a < argc; ++a)
    {
        if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
        {
            o.repeats = atoi(argv[++a]);
        }
        else if (strcmp(argv[a], "-s") == 0 && a + 1 < argc)
        {
            o.size_count = 0;
            for (char* p = argv[++a]; *p != '\0' && o.size_count < 8;)
            {
                char* end = NULL;
                o.sizes[o.size_count++] = strtol(p, &end, 10);
                p = *end == ',' ? end + 1 : end;
                if (end == p && *end != '\0')
                {
                    break;
                }
            }
        }
        else if (strcmp(argv[a], "-b") == 0 && a + 1 < argc)
        {
            o.filter = argv[++a];
        }
        else if (strcmp(argv[a], "-o") == 0 && a + 1 < argc)
        {
            o.out = argv[++a];
        }
        else
        {
            fprintf(stderr, "usage: bench_distance [-r repeats] [-s 1000,10000,...] [-b name-filter] [-o out.csv]\n");
            return 2;
        }
    }
    if (o.repeats < 1)
    {
        o.repeats = 1;
    }
    FILE* csv = o.out != NULL ? fopen(o.out, "w") : NULL;
    if (csv != NULL)
    {
        fprintf(csv, "scene,triangles_i,triangles_j,gap_fraction,distance,cpu_ms,box_tests,tri_tests,fcl_obbrss_cpu_ms,"
                     "fcl_distance,rel_diff,fcl_over_mc\n");
    }
#ifdef MC_BENCH_FCL
    printf("FCL %s: fcl::distance on OBBRSS trees, same meshes and poses\n", fcl_bench_version());
#else
    printf("FCL not found at configure time: meshcontact only\n");
#endif
    for (int si = 0; si < o.size_count; ++si)
    {
        for (int k = 0; k < SCENE_KIND_COUNT; ++k)
        {
            char name[64];
            scene_make_name((scene_kind)k, (uint32_t)o.sizes[si], name, sizeof name);
            scene_pair s;
            if (!wanted(&o, name) || scene_make((scene_kind)k, (uint32_t)o.sizes[si], &s) != 0)
            {
                continue;
            }
            run_scene(&o, &s, csv);
            scene_pair_destroy(&s);
        }
    }
    bench_run ctx = {&o, csv};
    scene_each_real(o.filter, visit_real, &ctx);
    if (csv != NULL)
    {
        fclose(csv);
    }
    return 0;
}
