// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// JOINT reactions and MOTION driver forces (sim_mb.cpp, app_sim_get_reactions) against closed forms: the hinge
// reaction of a compound pendulum swinging from 1 rad (Newton's law for the centre of mass, the angular velocity from
// the energy), and the driver torque of a crank turned at constant speed against gravity (virtual work).
#include "meshcontact/vec_math.h"
#include "src/app/scenario.h"
#include "src/app/sim_mb.h"
#include "src/app/simulate.h"
#include "tests/sim_test.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

static app_scenario* parse_ok(const char* text)
{
    return sim_test_parse(text, "reactions.scn", NULL);
}

static mc_vec3 part_position(const app_sim* sim, int part)
{
    mc_pose pose;
    mc_twist tw;
    mc_wrench w;
    app_sim_get_part(sim, part, &pose, &tw, &w);
    return pose.p;
}

// A 1 kg part hinged at the origin about the ground's y axis, its centre of mass d = 0.5 from the hinge, inertia
// 0.02 about it (I = 0.27 about the hinge), as data/pendulum.scn; %s: the part's pose, then the rest.
static const char* const PENDULUM = "UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n"
                                    "ACCGRAV/KGRAV=-9.81\n"
                                    "PART/1, GROUND\n"
                                    "MARKER/1, PART=1, REULER=0,90D,0\n"
                                    "PART/2, MASS=1, IP=0.02,0.02,0.02, %s\n"
                                    "MARKER/2, PART=2, QP=0,0,0.5, REULER=0,90D,0\n"
                                    "JOINT/1, I=2, J=1, REVOLUTE\n"
                                    "%s";

Test(mech_reactions, pendulum_hinge_reaction_is_newtons_law)
{
    if (!app_mb_available())
    {
        cr_skip_test("no Simbody in this build (libsimbody-dev)");
    }
    // Let go from 1 rad: at every sample the hinge's force on the part is R = m a - m g with a = alpha x r - w^2 r
    // (r from the hinge to the centre of mass, w^2 = 2 m g (z0 - z) / I from the energy, alpha = (r x m g) / I);
    // at the bottom R = m g + m w^2 d. The hinge carries no moment about the marker (symmetric inertia, planar).
    // Tolerance 1e-5 m g: the integrator's relative accuracy is 1e-7 (ERROR=), the energy drifts by less
    // (measured 3.5e-8 N).
    char text[1024];
    snprintf(text, sizeof text, PENDULUM, "QG=-0.420735492403948,0,-0.270151152934070, REULER=90D,1,-90D",
             "SIMULATE/DYNAMIC, END=1.2, STEPS=120\n");
    app_scenario* scn = parse_ok(text);
    app_sim* sim = sim_ok(scn);
    const double m = 1.0, g = 9.81, d = 0.5, io = 0.27, z0 = -0.270151152934070;
    double worst = 0.0, worst_t = 0.0, bottom = 0.0, bottom_z = 0.0;
    char err[700];
    for (int k = 0; k <= 120; ++k)
    {
        if (k > 0)
        {
            cr_assert(app_sim_step(sim, 0.01, err, sizeof err), "%s", err);
        }
        mc_vec3 r = part_position(sim, 1);
        mc_wrench jw;
        double unused;
        cr_assert(app_sim_get_reactions(sim, &jw, &unused, err, sizeof err), "%s", err);
        double w2 = 2.0 * m * g * (z0 - r.z) / io;
        mc_vec3 mg = {0.0, 0.0, -m * g};
        mc_vec3 alpha = mc_scale(mc_cross(r, mg), 1.0 / io);
        mc_vec3 a = mc_sub(mc_cross(alpha, r), mc_scale(r, w2));
        mc_vec3 expect = mc_sub(mc_scale(a, m), mg);
        double e = fmax(mc_length(mc_sub(jw.force, expect)), mc_length(jw.torque));
        if (e > worst)
        {
            worst = e;
            worst_t = app_sim_get_time(sim);
        }
        if (r.z < bottom_z)
        {
            bottom_z = r.z;
            bottom = jw.force.z;
        }
    }
    cr_expect(worst < 1e-5 * m * g, "reaction off by %.3g N at t = %g", worst, worst_t);
    // the lowest sample is near the bottom (within 0.01 s of it): the closed form there is m g + m w^2 d = 19.75 N
    double w2 = 2.0 * m * g * (z0 + d) / io;
    cr_expect(fabs(bottom - (m * g + m * w2 * d)) < 0.05, "bottom reaction %.6g, closed form %.6g", bottom,
              m * g + m * w2 * d);
    printf("pendulum hinge reaction: worst %.3g N at t = %g; near the bottom %.6g N (closed form %.6g)\n", worst,
           worst_t, bottom, m * g + m * w2 * d);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(mech_reactions, crank_driver_torque_is_virtual_work)
{
    if (!app_mb_available())
    {
        cr_skip_test("no Simbody in this build (libsimbody-dev)");
    }
    // The same part hanging, turned by a MOTION at 2 pi rad/s: the kinetic energy stays constant, so the driver's
    // power equals the rate of the potential energy m g z, z = -d cos(theta): T = m g d sin(theta), theta = 2 pi t
    // (positive: the driver lifts the part on the first half turn). Tolerance 1e-6 m g d: the motion's second
    // derivative is a central difference, exact for a linear function up to rounding
    // (1e-9 rad/s^2; measured 4.8e-10 N m).
    char text[1024];
    snprintf(text, sizeof text, PENDULUM, "QG=0,0,-0.5, REULER=90D,0,-90D",
             "MOTION/1, JOINT=1, ROTATION, FUNCTION=2*PI*TIME\nSIMULATE/DYNAMIC, END=1, STEPS=100\n");
    app_scenario* scn = parse_ok(text);
    app_sim* sim = sim_ok(scn);
    const double m = 1.0, g = 9.81, d = 0.5, pi = 3.14159265358979323846;
    double worst = 0.0, worst_t = 0.0, peak = 0.0;
    char err[700];
    for (int k = 0; k <= 100; ++k)
    {
        if (k > 0)
        {
            cr_assert(app_sim_step(sim, 0.01, err, sizeof err), "%s", err);
        }
        double t = app_sim_get_time(sim);
        mc_wrench jw;
        double torque;
        cr_assert(app_sim_get_reactions(sim, &jw, &torque, err, sizeof err), "%s", err);
        double e = fabs(torque - m * g * d * sin(2.0 * pi * t));
        peak = fmax(peak, torque);
        if (e > worst)
        {
            worst = e;
            worst_t = t;
        }
    }
    cr_expect(worst < 1e-6 * m * g * d, "driver torque off by %.3g N m at t = %g", worst, worst_t);
    cr_expect(fabs(peak - m * g * d) < 1e-3, "peak torque %.9g, m g d %.9g", peak, m * g * d);
    printf("crank driver torque: worst %.3g N m at t = %g (peak %.9g)\n", worst, worst_t, peak);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}
