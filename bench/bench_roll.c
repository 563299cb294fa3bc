// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark of a ball rolling on a plate through the world API: normal-force ripple and CPU time per evaluation of an
// analytic ball (mc_shape_sphere body) against faceted balls at three chord tolerances, on a 12-triangle plate.
// The ball (R = 0.05, IMPACT k = 1e8, e = 1.5, as issue 13's table) rolls 0.2 m along a line crossing the plate's
// diagonal edge, turning by x / R about y as rolling does, with its centre at R - h: the force should be k h^e at
// every position. Ripple = (max Fn - min Fn) / (k h^e). Prints CSV: body,h,triangles,ripple,min_fn,max_fn,us_per_eval.
// With the argument `cylinder`: a cylinder (R = 0.05, L = 0.1) on a plane body instead, analytic (mc_shape_cylinder)
// against faceted at the same chord tolerances, in two motions at depth h: lying along y and rolling 0.2 m along x
// (`roller`), and tilted 30 degrees on a cap's edge, spinning once about its own axis (`edge`).
#include "scene_builders.h"

#include <math.h>
#include <stdbool.h>
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

/// What moves: a ball rolling on the plate, a cylinder lying and rolling on a plane, a tilted one turning on its edge.
typedef enum motion
{
    BALL,
    ROLLER,
    EDGE,
} motion;

#define LENGTH 0.1
#define PI 3.14159265358979323846
#define TILT 0.5235987755982988 // 30 degrees

/// The body's pose at step k of POSITIONS, its deepest point h below z = 0.
static mc_pose pose_at(motion m, int k, double h)
{
    double x = -0.1 + 0.2 * k / (POSITIONS - 1), a = x / R; // rolling: turned by the distance over the radius
    mc_quat roll = {cos(0.5 * a), 0.0, sin(0.5 * a), 0.0};
    if (m == BALL)
    {
        return (mc_pose){mc_v3(x, 0.05 * x, R - h), roll};
    }
    if (m == ROLLER) // axis z laid along y (turned about x), then rolled about y
    {
        mc_quat lie = {cos(0.25 * PI), sin(0.25 * PI), 0.0, 0.0};
        return (mc_pose){mc_v3(x, 0.0, R - h), mc_quat_mul(roll, lie)};
    }
    double b = 2.0 * PI * k / POSITIONS; // EDGE: tilted about y, spun about its own axis
    mc_quat tilt = {cos(0.5 * TILT), 0.0, sin(0.5 * TILT), 0.0}, turn = {cos(0.5 * b), 0.0, 0.0, sin(0.5 * b)};
    return (mc_pose){mc_v3(0.0, 0.0, R * sin(TILT) + 0.5 * LENGTH * cos(TILT) - h), mc_quat_mul(tilt, turn)};
}

// Move the body (its mesh, or the analytic shape of the motion when NULL) over POSITIONS poses at penetration h, on a
// 12-triangle plate (the ball) or a plane body (cylinders); prints one CSV row. @return 0 or 1 on failure.
static int roll(const char* name, motion m, const mc_mesh* mesh, uint32_t triangles, double h)
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
    if (m == BALL)
    {
        bd.mesh = plate;
    }
    else
    {
        bd.shape = mc_shape_plane();
    }
    mc_body_id ground = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    if (mesh != NULL)
    {
        bd.mesh = mesh;
    }
    else
    {
        bd.shape = m == BALL ? mc_shape_sphere(R) : mc_shape_cylinder(R, LENGTH);
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
        mc_pose p = pose_at(m, k, h);
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

int main(int argc, char** argv)
{
    printf("body,h,triangles,ripple,min_fn,max_fn,us_per_eval\n");
    bool cylinders = argc > 1 && strcmp(argv[1], "cylinder") == 0;
    const double hs[] = {1e-3, 1e-4};
    const double chords[] = {1e-3, 1e-4, 1e-5};
    int fails = 0;
    for (int mi = cylinders ? ROLLER : BALL; mi <= (cylinders ? EDGE : BALL); ++mi)
    {
        const char* what = mi == BALL ? "" : mi == ROLLER ? "roller_" : "edge_";
        for (size_t i = 0; i < sizeof hs / sizeof hs[0]; ++i)
        {
            char name[48];
            snprintf(name, sizeof name, "%sanalytic", what);
            fails += roll(name, (motion)mi, NULL, 0, hs[i]);
            for (size_t j = 0; j < sizeof chords / sizeof chords[0]; ++j)
            {
                mc_primitive_def d = mc_default_primitive_def();
                d.type = mi == BALL ? MC_PRIMITIVE_ELLIPSOID : MC_PRIMITIVE_CYLINDER;
                d.dims = mc_v3(R, R, mi == BALL ? R : LENGTH);
                d.chord_tolerance = chords[j];
                mc_mesh* m = NULL;
                if (mc_mesh_create_primitive(&d, &m, NULL) != MC_OK)
                {
                    return 1;
                }
                snprintf(name, sizeof name, "%sfaceted_chord_%.0e", what, chords[j]);
                fails += roll(name, (motion)mi, m, mc_mesh_get_triangle_count(m), hs[i]);
                mc_mesh_destroy(m);
            }
        }
    }
    return fails != 0;
}
