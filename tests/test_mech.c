// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the mechanism statements (src/app/scenario_mech.c) and their forces in the simulator (sim_forces.c): the
// IMPACT documentation's two examples (data/impact_ball.scn, data/impact_spline.scn), the marker measures against
// hand-computed values, springs, single-component and vector forces against closed-form motions, bad input naming
// file, line and column, and a run-time domain error naming the time and the expression.
#include "meshcontact/law.h"
#include "src/app/scenario.h"
#include "src/app/scenario_mech.h"
#include "src/app/sim_forces.h"
#include "src/app/simulate.h"
#include "tests/sim_test.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static app_scenario* parse_ok(const char* text)
{
    return sim_test_parse(text, "mech.scn", NULL);
}

static app_scenario* parse_data(const char* name)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", root != NULL ? root : ".", name);
    app_scenario* scn = NULL;
    app_scenario_error err;
    cr_assert(app_scenario_parse_file(path, &scn, &err), "%s", err.message);
    return scn;
}

static void run_to(app_sim* sim, double t_end, int steps)
{
    char err[700] = "";
    double h = t_end / steps;
    for (int k = 0; k < steps; ++k)
    {
        cr_assert(app_sim_step(sim, h, err, sizeof err), "step failed: %s", err);
    }
}

static mc_pose part_pose(const app_sim* sim, int part)
{
    mc_pose pose;
    mc_twist tw;
    mc_wrench w;
    app_sim_get_part(sim, part, &pose, &tw, &w);
    return pose;
}

static mc_twist part_twist(const app_sim* sim, int part)
{
    mc_pose pose;
    mc_twist tw;
    mc_wrench w;
    app_sim_get_part(sim, part, &pose, &tw, &w);
    return tw;
}

Test(mech, impact_documentation_ball_rests_at_the_static_penetration)
{
    // SFORCE/1, I=11, J=21, TRANSLATION, ACTIONONLY, FUNCTION=IMPACT(DZ(11,21,21), VZ(11,21,21,21), 1.0, 100, 1.5,
    // 25, 0.1) as written: at rest k p^e = m g, p = (m g / k)^(1 / e) below the free length 1. The ball, dropped
    // from 0.2 above, is overdamped at rest (25 against 2 sqrt(k e p^(e-1) m) = 16.6) and its slow mode decays as
    // exp(-3.2 t): after 10 s the transient is below 1e-13, far under the 1e-6 the issue asks.
    app_scenario* scn = parse_data("impact_ball.scn");
    double want = pow(1.0 * 9.81 / 100.0, 1.0 / 1.5);
    for (int integrator = 0; integrator < 2; ++integrator)
    {
        scn->integrator = integrator == 0 ? APP_SCENARIO_BDF : APP_SCENARIO_RK4;
        scn->hmax = integrator == 0 ? 0.0 : 1e-3;
        app_sim* sim = sim_ok(scn);
        run_to(sim, 10.0, 100);
        double pen = 1.0 - part_pose(sim, 1).p.z;
        cr_expect(fabs(pen - want) < 1e-6 * want, "%s: penetration %.12g, want %.12g (%.2e relative)",
                  integrator == 0 ? "BDF" : "RK4", pen, want, fabs(pen - want) / want);
        cr_expect(fabs(part_twist(sim, 1).v.z) < 1e-9);
        app_sim_destroy(sim);
    }
    app_scenario_destroy(scn);
}

/// 1 - AKISPL(x, z, 3) of SPLINE/3, built independently of the simulator: Akima in x per row, then across z.
static double spline_free_length(const app_scenario_spline* s, double x, double z)
{
    double rows[8];
    cr_assert(s->nz <= 8);
    for (int r = 0; r < s->nz; ++r)
    {
        mc_curve* c = NULL;
        cr_assert(mc_curve_create(s->x, s->y + r * s->nx, s->nx, MC_CURVE_AKIMA, &c, NULL) == MC_OK);
        rows[r] = mc_curve_eval(c, x, 0);
        mc_curve_destroy(c);
    }
    mc_curve* across = NULL;
    cr_assert(mc_curve_create(s->z, rows, s->nz, MC_CURVE_AKIMA, &across, NULL) == MC_OK);
    double v = mc_curve_eval(across, z, 0);
    mc_curve_destroy(across);
    return 1.0 - v;
}

Test(mech, impact_documentation_vforce_follows_the_spline_surface)
{
    // VFORCE/1 ... FY=IMPACT(DY(4,1,1), VY(4,1,1), 1-AKISPL(DX(4,1,1), DZ(4,1,1), 3), 1e7, 1.01, 1e4, .25): the
    // ball glides along x at 1 m/s (no x force), its height follows the free length 1 - AKISPL less the static
    // penetration (m g / k)^(1 / 1.01) = 1.1e-6 (the curvature changes the load by at most 1 %: v^2 |S''| = 0.1
    // against g). The start velocity is the smooth surface's slope, 1e-3 m/s off Akima's, which sets the ball
    // oscillating on the undamped contact (the damping is nil at micrometre penetrations) at omega = sqrt(k / m) =
    // 3162 rad/s with an amplitude of 1e-3 / 3162 = 3.2e-7: measured 2.8e-7 off the spline with INTEGRATOR/ERROR=1e-7
    // (5.3e-6 with the default 1e-5). Against the smooth surface the spline samples (S = 0.5 + 0.1 sin x + 0.05 z)
    // the error is Akima's interpolation error at h = 0.25: measured 1.0e-4.
    app_scenario* scn = parse_data("impact_spline.scn");
    cr_assert(scn->mech != NULL && scn->mech->spline_count == 1);
    const app_scenario_spline* s = &scn->mech->splines[0];
    app_sim* sim = sim_ok(scn);
    double pen = pow(9.81 / 1e7, 1.0 / 1.01);
    double worst_spline = 0.0, worst_surface = 0.0;
    char err[700];
    for (int k = 1; k <= 100; ++k)
    {
        cr_assert(app_sim_step(sim, 0.05, err, sizeof err), "%s", err);
        mc_vec3 p = part_pose(sim, 1).p;
        worst_spline = fmax(worst_spline, fabs(p.y - (spline_free_length(s, p.x, p.z) - pen)));
        worst_surface = fmax(worst_surface, fabs(p.y - (1.0 - (0.5 + 0.1 * sin(p.x) + 0.05 * p.z) - pen)));
    }
    mc_vec3 p = part_pose(sim, 1).p;
    cr_expect(fabs(p.x - 5.0) < 1e-9, "x = %.12g: no force along x", p.x); // glides at 1 m/s
    cr_expect(fabs(p.z - 0.5) < 1e-12);
    cr_expect(worst_spline < 1e-6, "off the spline surface by %.3g", worst_spline);
    cr_expect(worst_surface < 2e-4, "off the sampled surface by %.3g", worst_surface);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech, marker_measures_match_hand_computed_values)
{
    // Part 2 at (1, 2, 3) turned 90 degrees about z, v = (0.1, 0.2, 0.3), w = (0, 0, 2); marker 11 on it at QP =
    // (1, 0, 0), so at (1, 3, 3) in the ground, moving at v + w x (0, 1, 0) = (-1.9, 0.2, 0.3). Marker 21 on the
    // ground at (0, 0, 1) turned 90 degrees about z: x_J = (0, 1, 0), y_J = (-1, 0, 0). d = (1, 3, 2).
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "PART/2, MASS=1, IP=1,1,1\n"
                                 "MARKER/11, PART=2, QP=1,0,0\n"
                                 "MARKER/21, PART=1, QP=0,0,1, REULER=90D,0,0\n"
                                 "SFORCE/1, I=11, J=21, TRANSLATION, FUNCTION=0\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    mc_vec3 cm[2] = {{0, 0, 0}, {0, 0, 0}};
    double c = sqrt(0.5);
    app_part_motion m[2] = {{{0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
                            {{1, 2, 3}, {c, 0, 0, c}, {0.1, 0.2, 0.3}, {0, 0, 2}}};
    app_sim_forces* f = NULL;
    char err[300];
    cr_assert(app_sim_forces_create(scn, cm, m, &f, err, sizeof err), "%s", err);
    cr_assert(f != NULL);
    const int i = app_scenario_find_marker(scn->mech, 11), j = app_scenario_find_marker(scn->mech, 21);
    struct
    {
        app_expr_measure kind;
        int m[4];
        double want;
    } cases[] = {
        {APP_EXPR_DX, {i, j, j, -1}, 3.0},
        {APP_EXPR_DY, {i, j, j, -1}, -1.0},
        {APP_EXPR_DZ, {i, j, j, -1}, 2.0},
        {APP_EXPR_DX, {i, -1, -1, -1}, 1.0},
        {APP_EXPR_DY, {i, -1, -1, -1}, 3.0},
        {APP_EXPR_DX, {i, j, -1, -1}, 1.0},
        {APP_EXPR_DM, {i, j, -1, -1}, sqrt(14.0)},
        {APP_EXPR_VX, {i, j, j, -1}, 0.2},
        {APP_EXPR_VY, {i, j, j, -1}, 1.9},
        {APP_EXPR_VZ, {i, j, j, j}, 0.3}, // J fixed: its frame does not rotate
        {APP_EXPR_VX, {i, -1, -1, -1}, -1.9},
        // Differentiated in marker 11's frame (turning at w): v - w x d = (-1.9, 0.2, 0.3) - (-6, 2, 0).
        {APP_EXPR_VX, {i, j, -1, i}, 4.1},
        {APP_EXPR_VY, {i, j, -1, i}, -1.8},
        {APP_EXPR_VR, {i, j, -1, -1}, -0.7 / sqrt(14.0)},
        {APP_EXPR_WZ, {i, -1, -1, -1}, 2.0},
        {APP_EXPR_WX, {i, j, j, -1}, 0.0},
        {APP_EXPR_WZ, {j, i, -1, -1}, -2.0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        double got = app_sim_forces_measure(f, cases[k].kind, cases[k].m);
        // A 90-degree quaternion is sqrt(0.5) rounded: components carry a few ulps.
        cr_expect(fabs(got - cases[k].want) < 1e-14, "case %zu: %.17g, want %.17g", k, got, cases[k].want);
    }
    app_sim_forces_destroy(f);
    app_scenario_destroy(scn);
}

Test(mech, springdamper_period_preload_and_rotation)
{
    // Translational: m = 2, K = 50 along z from its free length 1 stretched by 0.1, no damping: z = 1 + 0.1 cos(5 t).
    // RK4 with h = 1e-3 (omega h = 5e-3): its error over 1 s is about (omega h)^4 / 120 per radian, under 1e-12.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "MARKER/21, PART=1\n"
                                 "PART/2, MASS=2, IP=1,1,2, QG=0,0,1.1\n"
                                 "MARKER/11, PART=2\n"
                                 "SPRINGDAMPER/1, I=11, J=21, TRANSLATION, K=50, C=0, LENGTH=1\n"
                                 "PART/3, MASS=1, IP=1,1,2, REULER=0.1,0,0\n"
                                 "MARKER/31, PART=3\n"
                                 "MARKER/32, PART=1\n"
                                 "SPRINGDAMPER/2, I=31, J=32, ROTATION, KT=8, CT=0\n"
                                 "INTEGRATOR/RK4, HMAX=1e-3\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    app_sim* sim = sim_ok(scn);
    run_to(sim, 1.0, 1000);
    cr_expect(fabs(part_pose(sim, 1).p.z - (1.0 + 0.1 * cos(5.0))) < 1e-9, "z = %.12g", part_pose(sim, 1).p.z);
    // Rotational: KT = 8, Izz = 2, from 0.1 rad: angle 0.1 cos(2 t).
    mc_quat q = part_pose(sim, 2).q;
    double angle = 2.0 * atan2(q.z, q.w);
    cr_expect(fabs(angle - 0.1 * cos(2.0)) < 1e-9, "angle %.12g, want %.12g", angle, 0.1 * cos(2.0));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    // Preload and critical damping: at rest where K (r - LENGTH) = FORCE, r = 1 + 5 / 50; the slowest decay
    // exp(-5 t) leaves 1e-20 of the 0.1 offset after 10 s.
    scn = parse_ok("PART/1, GROUND\n"
                   "MARKER/21, PART=1\n"
                   "PART/2, MASS=2, IP=1,1,1, QG=0,0,1\n"
                   "MARKER/11, PART=2\n"
                   "SPRINGDAMPER/1, I=11, J=21, TRANSLATION, K=50, C=20, LENGTH=1, FORCE=5\n"
                   "SIMULATE/DYNAMIC, END=10\n");
    sim = sim_ok(scn);
    run_to(sim, 10.0, 100);
    cr_expect(fabs(part_pose(sim, 1).p.z - 1.1) < 1e-9, "z = %.12g", part_pose(sim, 1).p.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech, sforce_vforce_vtorque_closed_form_motions)
{
    // SFORCE translational action-reaction of 2 between parts of masses 1 and 4 on the x axis: accelerations -2 and
    // +0.5 along the line (which stays the x axis), x = x0 + a t^2 / 2. SFORCE rotational 3 TIME about z on a part
    // with Izz = 1.5: w = t^2, angle t^3 / 3. VFORCE FX=1 along the axes of a marker turned 90 degrees about z:
    // along the ground's y, y = t^2 / 2 (mass 1). VTORQUE TZ=TIME on Izz = 2: w = t^2 / 4. RK4 is exact for these
    // polynomials in t up to rounding.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "MARKER/1, PART=1\n"
                                 "MARKER/2, PART=1, REULER=90D,0,0\n"
                                 "MARKER/3, PART=1, FLOATING\n"
                                 "PART/2, MASS=1, IP=1,1,1, QG=-1,0,0\n"
                                 "MARKER/20, PART=2\n"
                                 "PART/3, MASS=4, IP=1,1,1, QG=1,0,0\n"
                                 "MARKER/30, PART=3\n"
                                 "SFORCE/1, I=30, J=20, TRANSLATION, FUNCTION=2\n"
                                 "PART/4, MASS=1, IP=1,1,1.5, QG=0,5,0\n"
                                 "MARKER/40, PART=4\n"
                                 "SFORCE/2, I=40, J=1, ROTATION, ACTIONONLY, FUNCTION=3*TIME\n"
                                 "PART/5, MASS=1, IP=1,1,2, QG=0,0,5\n"
                                 "MARKER/50, PART=5\n"
                                 "VFORCE/1, I=50, JFLOAT=3, RM=2, FX=1\n"
                                 "VTORQUE/1, I=50, JFLOAT=3, RM=1, TZ=TIME\n"
                                 "INTEGRATOR/RK4, HMAX=1e-2\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    app_sim* sim = sim_ok(scn);
    run_to(sim, 1.0, 100);
    cr_expect(fabs(part_pose(sim, 1).p.x - (-1.0 - 1.0)) < 1e-12, "x2 = %.15g", part_pose(sim, 1).p.x);
    cr_expect(fabs(part_pose(sim, 2).p.x - (1.0 + 0.25)) < 1e-12, "x3 = %.15g", part_pose(sim, 2).p.x);
    cr_expect(fabs(part_twist(sim, 3).w.z - 1.0) < 1e-12, "w4 = %.15g", part_twist(sim, 3).w.z);
    mc_vec3 p5 = part_pose(sim, 4).p;
    cr_expect(fabs(p5.y - 0.5) < 1e-12 && fabs(p5.x) < 1e-12, "p5 = %.15g %.15g", p5.x, p5.y);
    cr_expect(fabs(part_twist(sim, 4).w.z - 0.25) < 1e-12, "w5 = %.15g", part_twist(sim, 4).w.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech, variables_feed_forces)
{
    // VARIABLE/1 = 2 * VARVAL(2), VARIABLE/2 = TIME: SFORCE = VARVAL(1) = 2 t on mass 1 from rest: x = t^3 / 3.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "MARKER/1, PART=1\n"
                                 "PART/2, MASS=1, IP=1,1,1\n"
                                 "MARKER/2, PART=2\n"
                                 "VARIABLE/1, FUNCTION=2 * VARVAL(2)\n"
                                 "VARIABLE/2, FUNCTION=TIME\n"
                                 "SFORCE/1, I=2, J=1, TRANSLATION, ACTIONONLY, FUNCTION=VARVAL(1)\n"
                                 "INTEGRATOR/RK4, HMAX=1e-2\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    app_sim* sim = sim_ok(scn);
    run_to(sim, 1.0, 100);
    cr_expect(fabs(part_pose(sim, 1).p.z - 1.0 / 3.0) < 1e-12, "z = %.15g", part_pose(sim, 1).p.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

static void expect_bad(const char* body, const char* where, const char* what)
{
    char text[2000];
    snprintf(text, sizeof text,
             "PART/1, GROUND\n"   // line 1
             "MARKER/1, PART=1\n" // line 2
             "PART/2, MASS=1, IP=1,1,1\n"
             "MARKER/2, PART=2\n" // line 4
             "MARKER/3, PART=2, QP=0,0,1\n"
             "MARKER/4, PART=1, FLOATING\n"
             "%s\n" // line 7
             "SIMULATE/DYNAMIC, END=1\n",
             body);
    app_scenario* scn = NULL;
    app_scenario_error err;
    memset(&err, 0, sizeof err);
    cr_expect(app_scenario_parse_string(text, "bad.scn", NULL, &scn, &err) == false, "accepted: %s", body);
    app_scenario_destroy(scn);
    cr_expect(strstr(err.message, where) == err.message, "'%s': '%s' does not start with '%s'", body, err.message,
              where);
    cr_expect(strstr(err.message, what) != NULL, "'%s': '%s' lacks '%s'", body, err.message, what);
}

Test(mech, bad_input_names_file_line_and_column)
{
    // Expressions: the column of the offending token, on the line it is on.
    expect_bad("SFORCE/1, I=2, J=1, TRANSLATION, FUNCTION=IMPACT(DZ(2,1,1) + , 1)",
               "bad.scn:7:62:", "expected a number");
    expect_bad("SFORCE/1, I=2, J=1, TRANSLATION, FUNCTION=1 +\n, FOO(2)", "bad.scn:8:3:", "unknown name 'FOO'");
    expect_bad("SFORCE/1, I=2, J=1, TRANSLATION, FUNCTION=DX(2, 9)", "bad.scn:7:49:", "MARKER/9 is not defined");
    expect_bad("VARIABLE/1, FUNCTION=VARVAL(5)", "bad.scn:7:29:", "VARIABLE/5 is not defined");
    expect_bad("VFORCE/1, I=2, JFLOAT=4, RM=1, FX=0\\ FY=AKISPL(1, 0, 7)\\ FZ=0",
               "bad.scn:7:54:", "SPLINE/7 is not defined");
    // References and structure.
    expect_bad("SFORCE/1, I=2, J=3, TRANSLATION, FUNCTION=1", "bad.scn:7:", "markers of one part");
    expect_bad("MARKER/9, PART=5", "bad.scn:7:", "PART/5 is not defined");
    expect_bad("SFORCE/1, I=2, J=8, TRANSLATION, FUNCTION=1", "bad.scn:7:", "MARKER/8 is not defined");
    expect_bad("SFORCE/1, I=2, J=1, FUNCTION=1", "bad.scn:7:", "TRANSLATION or ROTATION");
    expect_bad("SFORCE/1, I=2, J=1, TRANSLATION", "bad.scn:7:", "FUNCTION=");
    expect_bad("SFORCE/1, I=2, J=4, TRANSLATION, FUNCTION=1", "bad.scn:7:", "is FLOATING");
    expect_bad("VFORCE/1, I=2, JFLOAT=1, RM=1, FX=1", "bad.scn:7:", "is not FLOATING");
    expect_bad("MARKER/5, PART=1, FLOATING, QP=1,0,0", "bad.scn:7:", "takes no QP");
    expect_bad("MARKER/2, PART=1", "bad.scn:7:", "MARKER/2 is defined twice");
    expect_bad("SPRINGDAMPER/1, I=2, J=1, TRANSLATION, K=-1", "bad.scn:7:", "K must not be negative");
    expect_bad("SPRINGDAMPER/1, I=2, J=1, ROTATION, K=1", "bad.scn:7:", "unknown argument 'K'");
    // Splines: unsorted or too few points, rows that do not fill the table.
    expect_bad("SPLINE/1, X=0,1,3,2, Y=0,0,0,0", "bad.scn:7:", "x[3] = 2 is not greater than x[2] = 3");
    expect_bad("SPLINE/1, X=0,1,2, Y=0,0,0", "bad.scn:7:", "at least 4");
    expect_bad("SPLINE/1, X=0,1,2,3, Y=0,0,0", "bad.scn:7:", "has 4 X values and 3 Y values");
    expect_bad("SPLINE/1, X=0,1,2,3, Z=0,1, Y=0,0,0,0", "bad.scn:7:", "per value of Z");
    expect_bad("SPLINE/1, X=0,1,2,3, Z=1,0, Y=0,0,0,0,0,0,0,0", "bad.scn:7:", "Z is not strictly increasing");
}

Test(mech, a_domain_error_stops_with_the_time_and_the_expression)
{
    // The ball falls from z = 1.2 and the SQRT turns negative when z < 1.1, at t = sqrt(2 * 0.1 / 9.81) = 0.1428.
    app_scenario* scn = parse_ok("ACCGRAV/KGRAV=-9.81\n"
                                 "PART/1, GROUND\n"
                                 "MARKER/21, PART=1\n"
                                 "PART/2, MASS=1, IP=1,1,1, QG=0,0,1.2\n"
                                 "MARKER/11, PART=2\n"
                                 "SFORCE/1, I=11, J=21, TRANSLATION, ACTIONONLY,\n"
                                 ", FUNCTION=0 * SQRT(DZ(11,21,21) - 1.1)\n"
                                 "INTEGRATOR/RK4, HMAX=1e-3\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    app_sim* sim = sim_ok(scn);
    char err[700] = "";
    bool ok = true;
    for (int k = 0; ok && k < 1000; ++k)
    {
        ok = app_sim_step(sim, 1e-3, err, sizeof err);
    }
    cr_expect(ok == false);
    cr_expect(strstr(err, "mech.scn:7:16: SFORCE/1 FUNCTION= at t = 0.14") == err, "%s", err);
    cr_expect(strstr(err, "SQRT of a negative number") != NULL, "%s", err);
    cr_expect(strstr(err, "'0 * SQRT(DZ(11,21,21) - 1.1)'") != NULL, "%s", err);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech, force_values_and_variables_in_the_motion_csv)
{
    // The ball of the IMPACT example at rest: the SFORCE carries m g = 9.81; VARIABLE/7 = DZ(11,21,21) reports the
    // height, 1 - (m g / 100)^(1/1.5). Both within the 1e-6 the rest position holds to (see the first test).
    app_scenario* scn = parse_ok("ACCGRAV/KGRAV=-9.81\n"
                                 "PART/1, GROUND\n"
                                 "MARKER/21, PART=1\n"
                                 "PART/2, MASS=1, IP=0.4,0.4,0.4, QG=0,0,1.2\n"
                                 "MARKER/11, PART=2\n"
                                 "SFORCE/1, I=11, J=21, TRANSLATION, ACTIONONLY,\n"
                                 ", FUNCTION=IMPACT(DZ(11,21,21), VZ(11,21,21,21), 1.0, 100, 1.5, 25, 0.1)\n"
                                 "VARIABLE/7, FUNCTION=DZ(11,21,21)\n"
                                 "SIMULATE/DYNAMIC, END=10, STEPS=10\n");
    app_sim* sim = sim_ok(scn);
    FILE* csv = tmpfile();
    cr_assert(csv != NULL);
    char err[700] = "";
    cr_assert(app_sim_run(sim, csv, NULL, err, sizeof err), "%s", err);
    rewind(csv);
    char line[4096], last[4096] = "";
    cr_assert(fgets(line, sizeof line, csv) != NULL);
    cr_expect(strstr(line, ",contact") == NULL && strstr(line, "part2_tz,sforce1,variable7\n") != NULL, "%s", line);
    while (fgets(line, sizeof line, csv) != NULL)
    {
        strcpy(last, line);
    }
    fclose(csv);
    // The last two columns.
    char* c2 = strrchr(last, ',');
    cr_assert(c2 != NULL);
    *c2 = '\0';
    char* c1 = strrchr(last, ',');
    cr_assert(c1 != NULL);
    double force = strtod(c1 + 1, NULL), height = strtod(c2 + 1, NULL);
    cr_expect(fabs(force - 9.81) < 1e-6 * 9.81, "sforce1 %.12g", force);
    cr_expect(fabs(height - (1.0 - pow(0.0981, 1.0 / 1.5))) < 1e-6, "variable7 %.12g", height);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

// ---------------------------------------------------------------------------------------------------------------
// JOINT and MOTION (the multibody library, src/app/sim_mb.cpp)
// ---------------------------------------------------------------------------------------------------------------

#include "src/app/sim_mb.h"

/// Times where x goes through 0 (linear interpolation between samples), at most `cap`.
static int zero_crossings(const double* t, const double* x, int n, double* out, int cap)
{
    int k = 0;
    for (int i = 1; i < n && k < cap; ++i)
    {
        if ((x[i - 1] > 0.0) != (x[i] > 0.0))
        {
            out[k++] = t[i - 1] + (t[i] - t[i - 1]) * x[i - 1] / (x[i - 1] - x[i]);
        }
    }
    return k;
}

Test(mech, pendulum_period_is_the_closed_form)
{
    if (!app_mb_available())
    {
        cr_skip_test("no Simbody in this build (libsimbody-dev)");
    }
    // data/pendulum.scn: T = 2 pi sqrt(I / (m g d)) (1 + a^2 / 16 + ...) for the amplitude a = 0.01: the amplitude's
    // share is 6.25e-6, inside the 1e-4; with it the period agrees to 1e-8 (measured 1e-10; the crossings are
    // interpolated between samples 1 ms apart, where the motion is nearly linear).
    app_scenario* scn = parse_data("pendulum.scn");
    app_sim* sim = sim_ok(scn);
    enum
    {
        N = 6000
    };
    static double t[N + 1], x[N + 1];
    char err[700];
    t[0] = 0.0;
    x[0] = part_pose(sim, 1).p.x;
    for (int k = 1; k <= N; ++k)
    {
        cr_assert(app_sim_step(sim, 1e-3, err, sizeof err), "%s", err);
        t[k] = app_sim_get_time(sim);
        x[k] = part_pose(sim, 1).p.x;
        // the hinge holds: the centre of mass stays 0.5 from it
        double r = mc_length(part_pose(sim, 1).p);
        cr_assert(fabs(r - 0.5) < 1e-8, "r = %.12g at t = %g", r, t[k]);
    }
    double c[16];
    int nc = zero_crossings(t, x, N + 1, c, 16);
    cr_assert(nc >= 7);
    double period = 2.0 * (c[nc - 1] - c[0]) / (nc - 1);
    double t0 = 2.0 * PI * sqrt(0.27 / (9.81 * 0.5));
    cr_expect(fabs(period / t0 - 1.0) < 1e-4, "period %.10g, closed form %.10g", period, t0);
    cr_expect(fabs(period / (t0 * (1.0 + 0.01 * 0.01 / 16.0)) - 1.0) < 1e-8, "period %.12g", period);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech, slider_crank_follows_the_closed_form)
{
    if (!app_mb_available())
    {
        cr_skip_test("no Simbody in this build (libsimbody-dev)");
    }
    // data/slider_crank.scn: MOTION turns the crank (r = 0.1) at 2 pi rad/s, the rod is l = 0.3; the loop is closed
    // by JOINT/4. The slider stays at x = r cos a + sqrt(l^2 - r^2 sin^2 a): the issue asks 1e-6 of the crank length
    // (1e-7 m); the constraint projection holds it to its tolerance, measured 7e-10.
    app_scenario* scn = parse_data("slider_crank.scn");
    app_sim* sim = sim_ok(scn);
    char err[700];
    double worst = 0.0;
    for (int k = 1; k <= 400; ++k)
    {
        cr_assert(app_sim_step(sim, 2.5e-3, err, sizeof err), "%s", err);
        double a = 2.0 * PI * app_sim_get_time(sim);
        double want = 0.1 * cos(a) + sqrt(0.09 - 0.01 * sin(a) * sin(a));
        mc_vec3 p = part_pose(sim, 3).p;
        worst = fmax(worst, fmax(fabs(p.x - want), fabs(p.y)));
        // the crank turns as driven: its centre of mass at 0.05 (cos a, sin a)
        mc_vec3 c = part_pose(sim, 1).p;
        cr_assert(fabs(c.x - 0.05 * cos(a)) < 1e-8 && fabs(c.y - 0.05 * sin(a)) < 1e-8, "crank at t = %g",
                  app_sim_get_time(sim));
    }
    cr_expect(worst < 1e-7, "slider off the closed form by %.3g", worst);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

static void expect_sim_refused(const char* text, const char* what)
{
    app_scenario* scn = parse_ok(text);
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_expect(app_sim_create(scn, &opt, &sim, err, sizeof err) == false, "accepted");
    app_sim_destroy(sim);
    cr_expect(strstr(err, what) != NULL, "'%s' lacks '%s'", err, what);
    app_scenario_destroy(scn);
}

Test(mech, bad_joints_and_motions_are_refused_with_the_statement)
{
    expect_bad("JOINT/1, I=2, J=3, REVOLUTE", "bad.scn:7:", "JOINT/1: I=2 and J=3 are markers of one part");
    expect_bad("JOINT/1, I=2, J=1", "bad.scn:7:", "needs one type");
    expect_bad("JOINT/1, I=2, J=1, SPHERICAL\nMOTION/1, JOINT=1, FUNCTION=TIME",
               "bad.scn:8:", "JOINT/1 is SPHERICAL, which cannot take a TRANSLATION motion");
    expect_bad("JOINT/1, I=2, J=1, REVOLUTE\nMOTION/1, JOINT=1, TRANSLATION, FUNCTION=TIME",
               "bad.scn:8:", "REVOLUTE, which cannot take a TRANSLATION motion");
    expect_bad("MOTION/1, JOINT=4, FUNCTION=TIME", "bad.scn:7:", "JOINT/4 is not defined");
    expect_bad("JOINT/1, I=2, J=1, PLANAR\nMOTION/1, JOINT=1, ROTATION, FUNCTION=TIME",
               "bad.scn:8:", "JOINT/1 is PLANAR, which cannot take a ROTATION motion");
    expect_bad("JOINT/1, I=2, J=1, CYLINDRICAL\nMOTION/1, JOINT=1, FUNCTION=TIME",
               "bad.scn:8:", "MOTION/1: JOINT/1 is CYLINDRICAL: give TRANSLATION or ROTATION");
    expect_bad("JOINT/1, I=2, J=1, CYLINDRICAL\nMOTION/1, JOINT=1, ROTATION, FUNCTION=TIME\n"
               "MOTION/2, JOINT=1, ROTATION, FUNCTION=TIME",
               "bad.scn:9:", "MOTION/2: JOINT/1 is driven by MOTION/1 already");
    if (app_mb_available())
    {
        // A MOTION is a function of time: a marker measure in it stops the run with the reason.
        app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                     "MARKER/1, PART=1\n"
                                     "PART/2, MASS=1, IP=1,1,1\n"
                                     "MARKER/2, PART=2\n"
                                     "JOINT/1, I=2, J=1, REVOLUTE\n"
                                     "MOTION/1, JOINT=1, FUNCTION=DX(2)\n"
                                     "SIMULATE/DYNAMIC, END=1\n");
        app_sim* sim = NULL;
        char err[700] = "";
        app_sim_options opt = app_sim_default_options();
        opt.worker_count = 1;
        bool ok = app_sim_create(scn, &opt, &sim, err, sizeof err);
        for (int k = 0; ok && k < 10; ++k)
        {
            ok = app_sim_step(sim, 0.1, err, sizeof err);
        }
        cr_expect(ok == false);
        cr_expect(strstr(err, "MOTION/1 FUNCTION=") != NULL && strstr(err, "only TIME") != NULL, "%s", err);
        app_sim_destroy(sim);
        app_scenario_destroy(scn);
    }
    expect_bad("JOINT/1, I=2, J=1, REVOLUTE\nMOTION/1, JOINT=1, FUNCTION=2 * * TIME",
               "bad.scn:8:33:", "expected a number");
    if (!app_mb_available())
    {
        return;
    }
    // A motion cannot drive a loop's closing joint; the multibody library integrates, not RK4. (Every joint type can
    // close a loop: test_mech_loops.c.)
    const char* base = "PART/1, GROUND\n"
                       "MARKER/1, PART=1\n"
                       "PART/2, MASS=1, IP=1,1,1\n"
                       "MARKER/2, PART=2\n"
                       "MARKER/3, PART=2\n";
    char text[1000];
    snprintf(text, sizeof text,
             "%sJOINT/1, I=2, J=1, REVOLUTE\nJOINT/2, I=3, J=1, REVOLUTE\nMOTION/2, JOINT=2, FUNCTION=TIME\n"
             "SIMULATE/DYNAMIC, END=1\n",
             base);
    expect_sim_refused(text, "mech.scn:7: JOINT/2 closes a loop of joints: a MOTION cannot drive it");
    snprintf(text, sizeof text, "%sJOINT/1, I=2, J=1, REVOLUTE\nINTEGRATOR/RK4\nSIMULATE/DYNAMIC, END=1\n", base);
    expect_sim_refused(text, "INTEGRATOR/RK4 cannot integrate JOINTs");
}

Test(mech, a_spline_curve_serves_contacts_and_expressions)
{
    // SPLINE/5 samples t^3 at 6 points: the not-a-knot cubic (CUBSPL) reproduces a cubic exactly, so SFORCE = t^3
    // on mass 1 from rest gives x = t^5 / 20; RK4 with h = 0.01 adds under 1e-10 (Simpson's rule on the quartic v).
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "MARKER/1, PART=1\n"
                                 "PART/2, MASS=1, IP=1,1,1\n"
                                 "MARKER/2, PART=2\n"
                                 "SPLINE/5, X=0, 0.4, 0.8, 1.2, 1.6, 2, Y=0, 0.064, 0.512, 1.728, 4.096, 8\n"
                                 "SFORCE/1, I=2, J=1, TRANSLATION, ACTIONONLY, FUNCTION=CUBSPL(TIME, 0, 5)\n"
                                 "INTEGRATOR/RK4, HMAX=1e-2\n"
                                 "SIMULATE/DYNAMIC, END=1\n");
    app_sim* sim = sim_ok(scn);
    run_to(sim, 1.0, 100);
    cr_expect(fabs(part_pose(sim, 1).p.z - 1.0 / 20.0) < 1e-10, "z = %.15g", part_pose(sim, 1).p.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    // A LINEAR curve of 2 points serves a contact law, not AKISPL: the run stops at once, naming why.
    scn = parse_ok("PART/1, GROUND\n"
                   "MARKER/1, PART=1\n"
                   "PART/2, MASS=1, IP=1,1,1\n"
                   "MARKER/2, PART=2\n"
                   "SPLINE/5, X=0, 1, Y=0, 1, METHOD=LINEAR\n"
                   "SFORCE/1, I=2, J=1, TRANSLATION, ACTIONONLY, FUNCTION=AKISPL(TIME, 0, 5)\n"
                   "INTEGRATOR/RK4, HMAX=1e-2\n"
                   "SIMULATE/DYNAMIC, END=1\n");
    app_sim* s2 = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_expect(app_sim_create(scn, &opt, &s2, err, sizeof err) == false);
    cr_expect(strstr(err, "mech.scn:6:") != NULL && strstr(err, "fewer than 4 points") != NULL, "%s", err);
    app_sim_destroy(s2);
    app_scenario_destroy(scn);
}

// The plot of a mechanism: per JOINT the magnitudes of its reaction force and torque, per MOTION its driver, at every
// output row (sim_outputs.c). Each curve's largest value (its polyline's data-peak) equals the largest value of the
// same quantity computed from the CSV's columns (jointID_fx .. _tz, motionID_f). Tolerance 1e-8 relative: the CSV's
// components and the data-peak are both written with 9 significant digits (each rounded by at most 5e-9 relative).
Test(mech, plot_shows_joint_reactions_and_motion_drivers)
{
    if (!app_mb_available())
    {
        cr_skip_test("no Simbody in this build (libsimbody-dev)");
    }
    app_scenario* scn = parse_data("slider_crank.scn");
    cr_assert(scn->mech != NULL && scn->mech->joint_count == 4 && scn->mech->motion_count == 1);
    app_sim* sim = sim_ok(scn);
    const char* dir = getenv("TMPDIR");
    char svg[600];
    snprintf(svg, sizeof svg, "%s/mc_mech_plot_XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    int fd = mkstemp(svg);
    cr_assert(fd >= 0);
    close(fd);
    FILE* csv = tmpfile();
    cr_assert(csv != NULL);
    app_sim_outputs outs = {csv, NULL, svg, NULL, NULL};
    char err[700] = "";
    cr_assert(app_sim_run_outputs(sim, &outs, err, sizeof err), "%s", err);
    // The CSV: find joint1_fx and motion1_f, then the largest |F|, |T| per joint and driver over the rows.
    rewind(csv);
    static char line[16384];
    cr_assert(fgets(line, sizeof line, csv) != NULL);
    int col_j = -1, col_m = -1, col = 0;
    for (char* c = strtok(line, ",\n"); c != NULL; c = strtok(NULL, ",\n"), ++col)
    {
        col_j = strcmp(c, "joint1_fx") == 0 ? col : col_j;
        col_m = strcmp(c, "motion1_f") == 0 ? col : col_m;
    }
    cr_assert(col_j > 0 && col_m == col_j + 24, "joint columns at %d, motion at %d", col_j, col_m);
    double want[9];
    for (int k = 0; k < 9; ++k)
    {
        want[k] = -INFINITY;
    }
    int rows = 0;
    while (fgets(line, sizeof line, csv) != NULL)
    {
        double v[25];
        const char* c = line;
        for (int k = 0; k < col_j; ++k)
        {
            c = strchr(c, ',') + 1;
        }
        for (int k = 0; k < 25; ++k) // motion1_f is the last column: no comma after it
        {
            char* end = NULL;
            v[k] = strtod(c, &end);
            c = *end == ',' ? end + 1 : end;
        }
        for (int j = 0; j < 4; ++j)
        {
            want[j] =
                fmax(want[j], sqrt(v[6 * j] * v[6 * j] + v[6 * j + 1] * v[6 * j + 1] + v[6 * j + 2] * v[6 * j + 2]));
            want[4 + j] = fmax(want[4 + j], sqrt(v[6 * j + 3] * v[6 * j + 3] + v[6 * j + 4] * v[6 * j + 4] +
                                                 v[6 * j + 5] * v[6 * j + 5]));
        }
        want[8] = fmax(want[8], v[24]);
        ++rows;
    }
    fclose(csv);
    cr_assert(rows == scn->steps + 1, "%d rows", rows);
    // The SVG: three panels (no contacts here), nine curves in the order force, torque, driver.
    FILE* f = fopen(svg, "rb");
    cr_assert(f != NULL);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    remove(svg);
    cr_expect(strstr(text, "Joint reaction force on I") != NULL && strstr(text, "Joint reaction torque on I") != NULL &&
              strstr(text, "MOTION driver force or torque") != NULL && strstr(text, "MOTION/1 (torque)") != NULL);
    const char* p = text;
    for (int k = 0; k < 9; ++k)
    {
        p = strstr(p, "data-peak=\"");
        cr_assert(p != NULL, "curve %d missing", k);
        p += 11;
        double peak = strtod(p, NULL);
        cr_expect(fabs(peak - want[k]) <= 1e-8 * fmax(fabs(want[k]), 1e-12), "curve %d: plot %.9g, CSV %.9g", k, peak,
                  want[k]);
    }
    cr_expect(strstr(p, "data-peak=\"") == NULL, "more curves than the joints and motions");
    cr_expect(want[8] > 0.0 && want[0] > 0.0, "the crank needs a driver torque and its pin carries a force");
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}
