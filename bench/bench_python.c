// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The C side of the Python binding's overhead benchmark (bench/bench_python.py runs both, interleaved): a warm
// two-body world, a mesh file against a tessellated sphere pressed into it, timed per call exactly as the Python side
// times it. Three figures, medians over `calls` calls, in microseconds:
//   evaluate  mc_world_evaluate alone, J moved by one ulp along x between calls (so the pair's query runs each time:
//             bitwise unchanged poses would reuse the last regions; bench_world does the same);
//   step      a host step: mc_world_set_poses and mc_world_set_velocities of both bodies, mc_world_evaluate,
//             mc_world_get_wrenches (J moved by one ulp as above);
//   reuse     mc_world_evaluate at unchanged poses (the regions are reused: almost nothing but the call itself);
//   cold      mc_world_evaluate of a world without temporal coherence (mc_world_def.coherence false), J moved by one
//             ulp between calls: the whole query from the roots of the trees each time.
// Usage: bench_python MESH SCALE TX TY TZ QW QX QY QZ RADIUS TRIANGLES CALLS
// (the pose is J's, the sphere's; the mesh is I at the identity; one worker thread.)
#include "meshcontact/meshcontact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

static double median_us(double* t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return 1e6 * t[n / 2];
}

int main(int argc, char** argv)
{
    if (argc != 13)
    {
        fprintf(stderr, "usage: bench_python MESH SCALE TX TY TZ QW QX QY QZ RADIUS TRIANGLES CALLS\n");
        return 2;
    }
    mc_import_options io = mc_default_import_options();
    io.scale = atof(argv[2]);
    mc_pose pj = {{atof(argv[3]), atof(argv[4]), atof(argv[5])},
                  {atof(argv[6]), atof(argv[7]), atof(argv[8]), atof(argv[9])}};
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_ELLIPSOID;
    pd.dims = mc_v3(atof(argv[10]), atof(argv[10]), atof(argv[10]));
    uint32_t triangles = (uint32_t)atol(argv[11]);
    int calls = atoi(argv[12]);
    mc_mesh *mi = NULL, *mj = NULL;
    mc_error err;
    if (calls < 1 || mc_mesh_import_file(argv[1], &io, &mi, NULL, &err) != MC_OK ||
        mc_mesh_create_primitive_count(&pd, triangles, &mj, &err) != MC_OK)
    {
        fprintf(stderr, "bench_python: %s\n", calls < 1 ? "CALLS must be positive" : err.message);
        return 1;
    }
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* w = NULL;
    mc_world_create(&wd, &w);
    wd.coherence = false;
    mc_world* cold = NULL;
    mc_world_create(&wd, &cold);
    mc_body_def bd = mc_default_body_def();
    bd.mesh = mi;
    mc_body_id ids[2];
    ids[0] = mc_world_create_body(w, &bd);
    bd.mesh = mj;
    bd.pose = pj;
    ids[1] = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &ids[0];
    cd.i_count = 1;
    cd.j_bodies = &ids[1];
    cd.j_count = 1;
    cd.model.stiffness = 1e7;
    cd.model.damping = 1e3;
    cd.model.dmax = 1e-3;
    cd.model.friction = MC_FRICTION_ON;
    mc_contact_id cid;
    if (mc_world_create_contact(w, &cd, &cid, &err) != MC_OK)
    {
        fprintf(stderr, "bench_python: %s\n", err.message);
        return 1;
    }
    // The same bodies and contact in the world without coherence (the same slots, so the same ids).
    bd.mesh = mi;
    bd.pose = mc_pose_identity();
    mc_world_create_body(cold, &bd);
    bd.mesh = mj;
    bd.pose = pj;
    mc_world_create_body(cold, &bd);
    mc_world_create_contact(cold, &cd, &cid, &err);
    double* t = malloc(sizeof(double) * (size_t)calls);
    if (t == NULL)
    {
        return 1;
    }
    mc_pose poses[2][2] = {{mc_pose_identity(), pj}, {mc_pose_identity(), pj}};
    poses[1][1].p.x = nextafter(pj.p.x, 1e300);
    mc_twist twists[2] = {{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}, {{0.1, 0.02, -0.01}, {0.0, 0.3, 1.0}}};
    mc_wrench wrenches[2];
    mc_world_set_velocities(w, ids, twists, 2);
    mc_world_evaluate(w); // warm-up: buffers grow, the vertex caches fill
    mc_world_set_poses(w, ids, poses[1], 2);
    mc_world_evaluate(w);
    if (mc_world_get_step_info(w).regions == 0)
    {
        fprintf(stderr, "bench_python: the sphere does not touch the mesh at that pose\n");
        return 1;
    }
    for (int k = 0; k < calls; ++k)
    {
        mc_body_set_pose(w, ids[1], &poses[k % 2][1]);
        double t0 = now();
        mc_status s = mc_world_evaluate(w);
        t[k] = now() - t0;
        if (s != MC_OK)
        {
            return 1;
        }
    }
    printf("evaluate %.3f\n", median_us(t, calls));
    for (int k = 0; k < calls; ++k)
    {
        double t0 = now();
        mc_world_set_poses(w, ids, poses[k % 2], 2);
        mc_world_set_velocities(w, ids, twists, 2);
        mc_status s = mc_world_evaluate(w);
        mc_world_get_wrenches(w, ids, wrenches, 2);
        t[k] = now() - t0;
        if (s != MC_OK)
        {
            return 1;
        }
    }
    printf("step %.3f\n", median_us(t, calls));
    for (int k = 0; k < calls; ++k)
    {
        double t0 = now();
        mc_status s = mc_world_evaluate(w);
        t[k] = now() - t0;
        if (s != MC_OK)
        {
            return 1;
        }
    }
    printf("reuse %.3f\n", median_us(t, calls));
    mc_world_set_velocities(cold, ids, twists, 2);
    mc_world_evaluate(cold);
    int cold_calls = calls / 10 > 0 ? calls / 10 : 1;
    for (int k = 0; k < cold_calls; ++k)
    {
        mc_body_set_pose(cold, ids[1], &poses[k % 2][1]);
        double t0 = now();
        mc_status s = mc_world_evaluate(cold);
        t[k] = now() - t0;
        if (s != MC_OK)
        {
            return 1;
        }
    }
    printf("cold %.3f\n", median_us(t, cold_calls));
    mc_world_destroy(cold);
    printf("check %a %a %a\n", wrenches[1].force.x, wrenches[1].force.y, wrenches[1].force.z);
    free(t);
    mc_world_destroy(w);
    mc_mesh_destroy(mi);
    mc_mesh_destroy(mj);
    return 0;
}
