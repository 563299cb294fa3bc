// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Smooth depth benchmark (issue 13): a tessellated steel-like ball (radius 0.05, chord tolerance 1e-3, 1e-4, 1e-5)
// rolling on a 12-triangle plate at a fixed penetration h, through mc_world_evaluate with IMPACT (STIFFNESS 1e8,
// EXPONENT 1.5, no damping): the normal force over one facet period and more (200 poses along 0.02 of travel, the
// ball turned to match), with the Adams depth and with MC_DEPTH_SMOOTH, its ripple (max - min) / (k h^e), its
// mean relative to k h^e, and the CPU time of one evaluation. Prints a markdown table.
#include "scene_builders.h"
#include "scenes.h"

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

typedef struct roll_result
{
    double fmin, fmax, fmean;
    double seconds; // CPU seconds per evaluation (mean)
    int lost;       // poses without any force (the facets above the plate)
} roll_result;

static int roll(mc_mesh* ball, mc_mesh* plate, double radius, double h, mc_depth_method method, roll_result* out)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    wd.depth_method = method;
    mc_world* w = NULL;
    if (mc_world_create(&wd, &w) != MC_OK)
    {
        return -1;
    }
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id bi = mc_world_create_body(w, &bd);
    bd.mesh = ball;
    mc_body_id bj = mc_world_create_body(w, &bd);
    mc_force_model model = mc_default_force_model();
    model.stiffness = 1e8;
    model.exponent = 1.5;
    model.damping = 0.0;
    mc_contact_id cid;
    if (wscene_contact(w, bi, bj, &model, &cid) != MC_OK)
    {
        mc_world_destroy(w);
        return -1;
    }
    const int poses = 200;
    out->fmin = INFINITY;
    out->fmax = 0.0;
    out->fmean = 0.0;
    out->lost = 0;
    double cpu = 0.0;
    for (int k = 0; k < poses; ++k)
    {
        double travel = 0.02 * k / poses;
        double angle = travel / radius;
        mc_pose p = mc_pose_identity();
        p.p = mc_v3(travel, 0.0, radius - h);
        p.q.w = cos(0.5 * angle);
        p.q.y = sin(0.5 * angle);
        mc_body_set_pose(w, bj, &p);
        double t0 = cpu_now();
        if (mc_world_evaluate(w) != MC_OK)
        {
            mc_world_destroy(w);
            return -1;
        }
        cpu += cpu_now() - t0;
        double f = mc_body_get_wrench(w, bj).force.z;
        out->lost += !(f > 0.0);
        out->fmin = fmin(out->fmin, f);
        out->fmax = fmax(out->fmax, f);
        out->fmean += f / poses;
    }
    out->seconds = cpu / poses;
    mc_world_destroy(w);
    return 0;
}

// The analytic ball against tessellated balls of 2k to 1M triangles (issue 13: converging to the closed-form lens):
// a ball of radius 1 at the origin, a UV sphere of radius 0.6 at (1.2, 0.01, 0.02). The tessellation's own volume
// deficit is O(1 / triangles), so the lens error should fall about tenfold per tenfold refinement.
static int lens_table(void)
{
    const double pi = 3.14159265358979323846;
    double d = sqrt(1.44 + 0.0001 + 0.0004), s = 1.6 - d;
    double want = pi * s * s * (d * d + 2.0 * d * 1.6 - 3.0 * 0.16) / (12.0 * d);
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return 1;
    }
    printf("| tessellated ball (triangles) | lens volume | closed form | relative error | CPU ms per query |\n"
           "|---|---|---|---|---|\n");
    const uint32_t sizes[4] = {2000, 20000, 200000, 1000000};
    for (int k = 0; k < 4; ++k)
    {
        mc_mesh* m = scene_uv_sphere(0.6, sizes[k]);
        if (m == NULL)
        {
            return 1;
        }
        mc_shape ball = mc_shape_sphere(1.0), mesh = mc_shape_mesh(m);
        mc_pose pi_ = mc_pose_identity(), pj = mc_pose_identity();
        pj.p = mc_v3(1.2, 0.01, 0.02);
        mc_query_options opt = mc_default_query_options();
        opt.worker_count = 1;
        mc_region r;
        uint32_t n = 0;
        double t0 = cpu_now();
        mc_status st = mc_query_shape_regions(&ball, &pi_, &mesh, &pj, &opt, ws, &r, 1, &n, NULL);
        double t1 = cpu_now();
        if (st != MC_OK || n != 1)
        {
            fprintf(stderr, "bench_smooth: lens query failed\n");
            return 1;
        }
        printf("| %u | %.12g | %.12g | %.3g | %.2f |\n", mc_mesh_get_triangle_count(m), r.volume, want,
               fabs(r.volume - want) / want, 1e3 * (t1 - t0));
        mc_mesh_destroy(m);
    }
    mc_workspace_destroy(ws);
    return 0;
}

int main(int argc, char** argv)
{
    if (argc == 2 && strcmp(argv[1], "--lens") == 0)
    {
        return lens_table();
    }
    if (argc > 1)
    {
        fprintf(stderr, "usage: bench_smooth [--lens]\n");
        return 2;
    }
    const double radius = 0.05, k = 1e8, e = 1.5;
    const double tolerances[3] = {1e-3, 1e-4, 1e-5};
    const double depths[2] = {1e-3, 1e-4};
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    if (plate == NULL)
    {
        return 1;
    }
    printf(
        "| chord tolerance (triangles) | h | depth | force min / k h^e | max | mean | ripple | poses without force | "
        "CPU us per evaluation |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int t = 0; t < 3; ++t)
    {
        mc_primitive_def pd = mc_default_primitive_def();
        pd.dims = mc_v3(radius, radius, radius);
        pd.chord_tolerance = tolerances[t] * radius / 0.05; // the tolerances of issue 13's table (radius 0.05)
        mc_mesh* ball = NULL;
        if (mc_mesh_create_primitive(&pd, &ball, NULL) != MC_OK)
        {
            return 1;
        }
        for (int d = 0; d < 2; ++d)
        {
            double h = depths[d];
            double ref = k * pow(h, e);
            for (int m = 0; m < 2; ++m)
            {
                mc_depth_method method = m == 0 ? MC_DEPTH_ADAMS : MC_DEPTH_SMOOTH;
                roll_result r;
                if (roll(ball, plate, radius, h, method, &r) != 0)
                {
                    fprintf(stderr, "bench_smooth: evaluation failed\n");
                    return 1;
                }
                printf("| %g (%u) | %g | %s | %.6f | %.6f | %.6f | %.3g | %d | %.1f |\n", tolerances[t],
                       mc_mesh_get_triangle_count(ball), h, m == 0 ? "Adams" : "smooth", r.fmin / ref, r.fmax / ref,
                       r.fmean / ref, (r.fmax - r.fmin) / ref, r.lost, 1e6 * r.seconds);
            }
        }
        mc_mesh_destroy(ball);
    }
    mc_mesh_destroy(plate);
    return 0;
}
