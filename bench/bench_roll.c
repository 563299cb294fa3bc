// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark of a ball rolling on a plate through the world API: normal-force ripple and CPU time per evaluation of an
// analytic ball (mc_shape_sphere body) against faceted balls at three chord tolerances, on a 12-triangle plate.
// The ball (R = 0.05, IMPACT k = 1e8, e = 1.5, as issue 13's table) rolls 0.2 m along a line crossing the plate's
// diagonal edge, turning by x / R about y as rolling does, with its centre at R - h: the force should be k h^e at
// every position. Ripple = (max Fn - min Fn) / (k h^e). Prints CSV: body,h,triangles,ripple,min_fn,max_fn,us_per_eval.
#include "scene_builders.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R 0.05
#define K 1e8
#define E 1.5
#define POSITIONS 2000

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Roll the ball body over POSITIONS positions at penetration h; prints one CSV row. @return 0 or 1 on failure.
static int roll(const char* name, const mc_mesh* ball_mesh, uint32_t triangles, double h)
{
    mc_mesh* plate = wscene_box(mc_v3(-1.0, -0.5, -0.1), mc_v3(1.0, 0.5, 0.0));
    mc_world* w = NULL;
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    if (plate == NULL || mc_world_create(&wd, &w) != MC_OK)
    {
        return 1;
    }
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id ground = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    if (ball_mesh != NULL)
    {
        bd.mesh = ball_mesh;
    }
    else
    {
        bd.shape = mc_shape_sphere(R);
    }
    mc_body_id ball = mc_world_create_body(w, &bd);
    mc_force_model model = mc_default_force_model();
    model.stiffness = K;
    model.exponent = E;
    mc_contact_id c;
    if (wscene_contact(w, ground, ball, &model, &c) != MC_OK)
    {
        return 1;
    }
    double lo = INFINITY, hi = 0.0, seconds = 0.0;
    for (int k = 0; k < POSITIONS; ++k)
    {
        double x = -0.1 + 0.2 * k / (POSITIONS - 1);
        double a = x / R; // rolling: the ball turns about y by the distance over the radius
        mc_pose p = {mc_v3(x, 0.05 * x, R - h), {cos(0.5 * a), 0.0, sin(0.5 * a), 0.0}};
        mc_body_set_pose(w, ball, &p);
        double t0 = cpu_seconds();
        if (mc_world_evaluate(w) != MC_OK)
        {
            return 1;
        }
        seconds += cpu_seconds() - t0;
        double fn = 0.0;
        mc_contact_region r;
        if (mc_world_get_regions(w, &r, 1) >= 1)
        {
            fn = mc_body_get_wrench(w, ball).force.z;
        }
        lo = fmin(lo, fn);
        hi = fmax(hi, fn);
    }
    double want = K * pow(h, E);
    printf("%s,%.0e,%u,%.3e,%.9g,%.9g,%.2f\n", name, h, triangles, (hi - lo) / want, lo, hi, 1e6 * seconds / POSITIONS);
    mc_world_destroy(w);
    mc_mesh_destroy(plate);
    return 0;
}

int main(void)
{
    printf("body,h,triangles,ripple,min_fn,max_fn,us_per_eval\n");
    const double hs[] = {1e-3, 1e-4};
    const double chords[] = {1e-3, 1e-4, 1e-5};
    int fails = 0;
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
    {
        fails += roll("analytic", NULL, 0, hs[i]);
        for (size_t j = 0; j < sizeof chords / sizeof chords[0]; ++j)
        {
            mc_primitive_def d = mc_default_primitive_def();
            d.type = MC_PRIMITIVE_ELLIPSOID;
            d.dims = mc_v3(R, R, R);
            d.chord_tolerance = chords[j];
            mc_mesh* m = NULL;
            if (mc_mesh_create_primitive(&d, &m, NULL) != MC_OK)
            {
                return 1;
            }
            char name[32];
            snprintf(name, sizeof name, "faceted_chord_%.0e", chords[j]);
            fails += roll(name, m, mc_mesh_get_triangle_count(m), hs[i]);
            mc_mesh_destroy(m);
        }
    }
    return fails != 0;
}
