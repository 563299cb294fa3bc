// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// World benchmark: a ~10k-triangle sphere resting on a ~10k-triangle box (tests/scenes.c, SCENE_SPHERE_BOX), full
// mc_world_evaluate (broad phase, pairs, regions, forces with friction) per call; minimum and median over many calls.
// Each call moves J by one ulp along x (alternately), so every call runs the query: a pair whose poses are bitwise
// unchanged since its last query reuses its regions (world.h), which is not what this benchmark measures.
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
    int calls = 2000, threads = 1;
    uint32_t triangles = 10000;
    const char* csv = NULL;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
        {
            calls = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
        {
            threads = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc)
        {
            triangles = (uint32_t)atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
        {
            csv = argv[++i];
        }
        else
        {
            fprintf(stderr, "usage: bench_world [-n calls] [-t threads] [-k triangles per mesh] [-o out.csv]\n");
            return 2;
        }
    }
    if (calls < 1 || threads < 1)
    {
        fprintf(stderr, "bench_world: -n and -t must be positive\n");
        return 2;
    }
    scene_pair sp;
    if (scene_make(SCENE_SPHERE_BOX, triangles, &sp) != 0)
    {
        fprintf(stderr, "bench_world: cannot build the scene\n");
        return 1;
    }
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = threads;
    mc_world* w = NULL;
    if (mc_world_create(&wd, &w) != MC_OK)
    {
        return 1;
    }
    mc_body_def bd = mc_default_body_def();
    bd.mesh = sp.mesh_i;
    bd.pose = sp.pose_i;
    mc_body_id bi = mc_world_create_body(w, &bd);
    bd.mesh = sp.mesh_j;
    bd.pose = sp.pose_j;
    bd.velocity.v = mc_v3(0.1, 0.02, -0.01); // sliding and spinning: the friction paths run too
    bd.velocity.w = mc_v3(0.0, 0.3, 1.0);
    mc_body_id bj = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &bi;
    cd.i_count = 1;
    cd.j_bodies = &bj;
    cd.j_count = 1;
    cd.model.stiffness = 1e7;
    cd.model.damping = 1e3;
    cd.model.dmax = 1e-3;
    cd.model.friction = MC_FRICTION_ON;
    mc_contact_id cid;
    mc_error err;
    if (mc_world_create_contact(w, &cd, &cid, &err) != MC_OK)
    {
        fprintf(stderr, "bench_world: %s\n", err.message);
        return 1;
    }
    double* t = malloc(sizeof(double) * (size_t)calls);
    if (t == NULL)
    {
        return 1;
    }
    mc_world_evaluate(w); // warm-up: buffers grow, J's vertex cache fills
    double* tp = malloc(sizeof(double) * (size_t)calls);
    double* tr = malloc(sizeof(double) * (size_t)calls);
    if (tp == NULL || tr == NULL)
    {
        return 1;
    }
    mc_pose pj0 = sp.pose_j, pj1 = sp.pose_j;
    pj1.p.x = nextafter(pj1.p.x, 1e300);
    for (int k = 0; k < calls; ++k)
    {
        mc_body_set_pose(w, bj, k % 2 == 0 ? &pj1 : &pj0);
        double t0 = now();
        mc_status s = mc_world_evaluate(w);
        t[k] = now() - t0;
        if (s != MC_OK)
        {
            fprintf(stderr, "bench_world: evaluate failed: %s\n", mc_status_string(s));
            return 1;
        }
        mc_step_info si = mc_world_get_step_info(w);
        tp[k] = si.seconds_pairs;
        tr[k] = si.seconds_regions;
    }
    qsort(t, (size_t)calls, sizeof *t, cmp_double);
    qsort(tp, (size_t)calls, sizeof *tp, cmp_double);
    qsort(tr, (size_t)calls, sizeof *tr, cmp_double);
    mc_step_info info = mc_world_get_step_info(w);
    mc_wrench wj = mc_body_get_wrench(w, bj);
    printf("scene %s: %u + %u triangles, threads %d, calls %d\n", sp.name, mc_mesh_get_triangle_count(sp.mesh_i),
           mc_mesh_get_triangle_count(sp.mesh_j), threads, calls);
    printf("regions %u, triangle pairs %llu, triangle tests %llu, box tests %llu\n", info.regions,
           (unsigned long long)info.triangle_pairs, (unsigned long long)info.triangle_tests,
           (unsigned long long)info.box_tests);
    printf("force on J: %.6g %.6g %.6g\n", wj.force.x, wj.force.y, wj.force.z);
    printf("mc_world_evaluate: min %.2f us, median %.2f us; stages (min / median): pairs %.2f / %.2f us, regions "
           "%.2f / %.2f us\n",
           1e6 * t[0], 1e6 * t[calls / 2], 1e6 * tp[0], 1e6 * tp[calls / 2], 1e6 * tr[0], 1e6 * tr[calls / 2]);
    if (csv != NULL)
    {
        FILE* f = fopen(csv, "w");
        if (f == NULL)
        {
            fprintf(stderr, "bench_world: cannot write %s\n", csv);
            return 1;
        }
        fprintf(f, "scene,triangles_i,triangles_j,threads,calls,min_us,median_us,regions,triangle_pairs\n");
        fprintf(f, "%s,%u,%u,%d,%d,%.3f,%.3f,%u,%llu\n", sp.name, mc_mesh_get_triangle_count(sp.mesh_i),
                mc_mesh_get_triangle_count(sp.mesh_j), threads, calls, 1e6 * t[0], 1e6 * t[calls / 2], info.regions,
                (unsigned long long)info.triangle_pairs);
        fclose(f);
    }
    free(t);
    free(tp);
    free(tr);
    mc_world_destroy(w);
    scene_pair_destroy(&sp);
    return 0;
}
