// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Jacobian benchmark (issue 12): CPU time of mc_world_get_jacobian with the analytic region derivatives against the
// central differences of the region query (24 queries per pair, forced through the internal switch), on a tessellated
// ball, real meshes of the corpus on plates, a scan against its copy and two CAD exports through each other; one
// worker, minimum over repeats; the time of one mc_world_evaluate for scale and the relative difference of the two
// blocks (Frobenius norms, stiffness and damping). Prints a markdown table.
// Usage: bench_jacobian [REPEATS [adams|volume_area|extent [SCENE]]]   (MC_SOURCE_ROOT: the repository, for the
// corpus; SCENE: only the scenes whose name contains it)
#include "scene_builders.h"
#include "scenes.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Minimum CPU seconds of one call over `repeats`; the blocks of the last call in *out.
static double time_jacobian(mc_world* w, int repeats, mc_jacobian_block* out, uint32_t cap, uint32_t* n)
{
    double best = INFINITY;
    for (int r = 0; r < repeats; ++r)
    {
        double t0 = cpu_now();
        if (mc_world_get_jacobian(w, out, cap, n) != MC_OK)
        {
            return NAN;
        }
        best = fmin(best, cpu_now() - t0);
    }
    return best;
}

static double frob_rel(const mc_jacobian_block* a, const mc_jacobian_block* b, uint32_t n, bool damping)
{
    double d = 0.0, s = 0.0;
    for (uint32_t k = 0; k < n; ++k)
    {
        for (int r = 0; r < 12; ++r)
        {
            for (int c = 0; c < 12; ++c)
            {
                double x = damping ? a[k].damping[r][c] : a[k].stiffness[r][c];
                double y = damping ? b[k].damping[r][c] : b[k].stiffness[r][c];
                d += (x - y) * (x - y);
                s += y * y;
            }
        }
    }
    return s > 0.0 ? sqrt(d / s) : sqrt(d);
}

static mc_depth_method depth_method = MC_DEPTH_ADAMS;
static const char* only = NULL; // run only the scenes whose name contains this

static bool selected(const char* name)
{
    return only == NULL || strstr(name, only) != NULL;
}

static int run(const char* name, mc_mesh* mi, mc_mesh* mj, mc_pose pi, mc_pose pj, int repeats)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    wd.depth_method = depth_method;
    mc_world* w = NULL;
    if (mc_world_create(&wd, &w) != MC_OK)
    {
        return -1;
    }
    mc_body_def bd = mc_default_body_def();
    bd.mesh = mi;
    bd.pose = pi;
    mc_body_id bi = mc_world_create_body(w, &bd);
    bd.mesh = mj;
    bd.pose = pj;
    mc_body_id bj = mc_world_create_body(w, &bd);
    mc_force_model m = mc_default_force_model();
    m.stiffness = 1e5;
    m.exponent = 1.5;
    m.damping = 10.0;
    m.dmax = 1e-4;
    m.friction = MC_FRICTION_ON;
    m.mu_static = 0.5;
    m.mu_dynamic = 0.3;
    m.stiction_velocity = 1.0;
    m.friction_velocity = 10.0;
    mc_contact_id cid;
    mc_twist t = {mc_v3(0.01, -0.02, 0.0), mc_v3(0.0, 0.0, 0.1)}; // sliding and spinning in the plane
    if (wscene_contact(w, bi, bj, &m, &cid) != MC_OK || mc_body_set_velocity(w, bj, &t) != MC_OK)
    {
        mc_world_destroy(w);
        return -1;
    }
    // One region query of the pair (what the differences repeat 24 times; the world's evaluate reuses its regions
    // at unchanged poses, so it is timed through the query itself, on a warm workspace).
    mc_workspace* ws = NULL;
    mc_region qr[64];
    uint32_t qn = 0;
    double eval = INFINITY;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        mc_world_destroy(w);
        return -1;
    }
    for (int r = 0; r < repeats + 1; ++r)
    {
        double t0 = cpu_now();
        mc_status qs = mc_query_regions(mi, &pi, mj, &pj, NULL, ws, qr, 64, &qn, NULL);
        eval = r == 0 ? eval : fmin(eval, qs == MC_OK ? cpu_now() - t0 : NAN);
    }
    mc_workspace_destroy(ws);
    if (mc_world_evaluate(w) != MC_OK)
    {
        mc_world_destroy(w);
        return -1;
    }
    mc_jacobian_block a[8], d[8];
    uint32_t na = 0, nd = 0;
    double ta = time_jacobian(w, repeats, a, 8, &na);
    mc_world_set_jacobian_differences(w, true);
    double td = time_jacobian(w, repeats, d, 8, &nd);
    mc_contact_region reg[64];
    uint32_t regions = mc_world_get_regions(w, reg, 64);
    double norm = 0.0;
    for (uint32_t k = 0; k < na; ++k)
    {
        for (int r = 0; r < 144; ++r)
        {
            norm += a[k].stiffness[r / 12][r % 12] * a[k].stiffness[r / 12][r % 12];
        }
    }
    printf("| %s | %u | %.3g | %.3g | %.3g | %.3g | %.1fx | %.2g | %.2g |\n", name, regions, 1e3 * eval, 1e3 * td,
           1e3 * ta, sqrt(norm), td / ta, na == nd ? frob_rel(a, d, na, false) : NAN,
           na == nd ? frob_rel(a, d, na, true) : NAN);
    mc_world_destroy(w);
    return 0;
}

int main(int argc, char** argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    if (argc > 2)
    {
        depth_method = strcmp(argv[2], "volume_area") == 0 ? MC_DEPTH_VOLUME_AREA
                       : strcmp(argv[2], "extent") == 0    ? MC_DEPTH_EXTENT
                                                           : MC_DEPTH_ADAMS;
    }
    only = argc > 3 ? argv[3] : NULL;
    printf(
        "| scene | regions | one region query (ms CPU) | Jacobian, differences (ms) | Jacobian, analytic (ms) | |K| | "
        "speed-up | stiffness difference | damping difference |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    mc_mesh* ball = scene_uv_sphere(0.05, 5000);
    mc_pose pj = mc_pose_identity();
    pj.p = mc_v3(0.01, 0.02, 0.05 - 1.3e-3);
    pj.q = mc_quat_normalize((mc_quat){0.98, 0.12, 0.15, 0.05});
    int bad = selected("ball_on_plate_5k") ? run("ball_on_plate_5k", plate, ball, mc_pose_identity(), pj, repeats) : 0;
    mc_mesh_destroy(plate);
    mc_mesh_destroy(ball);
    for (int q = 0; q < 5; ++q)
    {
        scene_pair sp;
        int st = q < 2    ? scene_make_real(q, &sp)
                 : q == 2 ? scene_make_file("data/spot.obj", "spot_shifted", 0.2, 0.3, &sp)
                 : q == 3 ? scene_make_real(5, &sp)
                          : scene_make_real(2, &sp); // knob_in_box
        if (st != 0)
        {
            fprintf(stderr, "bench_jacobian: scene %d missing\n", q);
            bad = 1;
            continue;
        }
        bad |= selected(sp.name) ? run(sp.name, sp.mesh_i, sp.mesh_j, sp.pose_i, sp.pose_j, repeats) : 0;
        scene_pair_destroy(&sp);
    }
    return bad != 0;
}
