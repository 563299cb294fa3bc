// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SIMULATE/STATIC (sim_static.c) on free parts against closed forms. A 0.1 m cube of 1 kg resting on a plate under
// gravity tilted by 30 degrees (a slope of 30 degrees: g sin 30 along -x, g cos 30 along -z), IMPACT contact
// k = 1e6, e = 1.5:
//   - held by a spring along the slope (K = 1000, anchored at the equilibrium height so that it pulls along x only),
//     COULOMB_FRICTION=DYNAMICS_ONLY: friction is off in the static analysis, so the spring alone holds the block:
//     its extension is m g sin 30 / K and the penetration d solves k d^1.5 = m g cos 30;
//   - held by friction alone (COULOMB_FRICTION=ON, STICTION=ON, tan 30 < MU_STATIC): the solve converges, friction
//     carries m g sin 30 and the contact creeps at most MAX_STICTION_DEFORMATION;
//   - the same with DYNAMICS_ONLY: nothing holds the block in a static analysis, the solve refuses with a message
//     naming the part and the direction.
#include "meshcontact/vec_math.h"
#include "src/app/scenario.h"
#include "src/app/sim_static.h"
#include "src/app/simulate.h"
#include "tests/sim_test.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 9.81, SIN30 = 0.5, COS30 = 0.86602540378443865;

// %s: the CONTACT's friction keywords and any spring, then any SIMULATE/DYNAMIC after the STATIC; the block starts 0.3
// mm deep (IMPACT's force is flat at zero depth: a Newton step from exact touching has nothing to follow).
static const char* const SLOPE = "UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n"
                                 "ACCGRAV/IGRAV=-4.905, KGRAV=-8.4957092110677\n"
                                 "PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=4, Y=4, Z=0.2, QP=-2,-2,-0.2\n"
                                 "MARKER/11, PART=1, QP=-1,0,%.17g\n"
                                 "PART/2, MASS=1, IP=1.6666666666666667e-3,1.6666666666666667e-3,1.6666666666666667e-3,"
                                 " QG=0,0,0.0497\n"
                                 "GRAPHICS/2, PART=2, BOX, X=0.1, Y=0.1, Z=0.1, QP=-0.05,-0.05,-0.05\n"
                                 "MARKER/21, PART=2\n"
                                 "%s"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=10, "
                                 "DMAX=1e-4, %s\n"
                                 "SIMULATE/STATIC\n"
                                 "%s";

static app_sim* make_run(const char* spring, const char* friction, const char* dynamic, app_scenario** scn_out)
{
    double d = pow(G * COS30 / 1e6, 1.0 / 1.5);
    char text[3000];
    snprintf(text, sizeof text, SLOPE, 0.05 - d, spring, friction, dynamic);
    app_scenario* scn = sim_test_parse(text, "static.scn", NULL);
    *scn_out = scn;
    return sim_ok(scn);
}

static app_sim* make(const char* spring, const char* friction, app_scenario** scn_out)
{
    return make_run(spring, friction, "", scn_out);
}

Test(static, spring_holds_the_block_when_friction_is_dynamics_only)
{
    app_scenario* scn;
    app_sim* sim = make("SPRINGDAMPER/1, I=21, J=11, TRANSLATION, K=1000, C=0, LENGTH=1\n",
                        "COULOMB_FRICTION=DYNAMICS_ONLY, MU_STATIC=0.5, MU_DYNAMIC=0.3", &scn);
    char err[700] = "";
    cr_assert(app_sim_static(sim, err, sizeof err), "%s", err);
    mc_pose pose;
    app_sim_get_part(sim, 1, &pose, NULL, NULL);
    double d = pow(G * COS30 / 1e6, 1.0 / 1.5);
    double x = -G * SIN30 / 1000.0;
    // Tolerances: the solve stops at an imbalance of 1e-4 N (IMBALANCE's default); along the spring (1000 N/m) that
    // is 1e-7 m, against the contact's stiffness 1.5 k d^0.5 = 3.1e4 N/m 3e-9 m; the spring's residual tilt (the
    // anchor sits on the closed-form height, the block within 3e-9 of it) is 3e-9 rad.
    printf("static spring: x %.12g (closed form %.12g), depth %.12g (%.12g)\n", pose.p.x, x, 0.05 - pose.p.z, d);
    cr_expect(fabs(pose.p.x - x) < 1e-7, "x %.12g, closed form %.12g", pose.p.x, x);
    cr_expect(fabs((0.05 - pose.p.z) - d) < 1e-8, "depth %.12g, closed form %.12g", 0.05 - pose.p.z, d);
    app_sim_contact_summary cs = app_sim_get_contact(sim, 0);
    cr_expect(fabs(cs.normal_force - G * COS30) < 1e-3, "normal force %.9g, m g cos 30 = %.9g", cs.normal_force,
              G * COS30);
    cr_expect(mc_length(cs.friction_on_j) < 1e-12, "no friction in statics with DYNAMICS_ONLY: %.3g",
              mc_length(cs.friction_on_j));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(static, friction_on_holds_the_block_and_dynamics_only_does_not)
{
    app_scenario* scn;
    app_sim* sim = make(
        "", "COULOMB_FRICTION=ON, MU_STATIC=0.7, MU_DYNAMIC=0.5, STICTION=ON, MAX_STICTION_DEFORMATION=1e-4", &scn);
    char err[700] = "";
    cr_assert(app_sim_static(sim, err, sizeof err), "%s", err);
    app_sim_contact_summary cs = app_sim_get_contact(sim, 0);
    // Friction carries the slope's pull, to the solve's imbalance 1e-4 N; the block stays within the creep of the
    // stiction springs plus the tilt of its 0.05 m half height (well under a millimetre).
    printf("static friction: friction %.9g N (m g sin 30 = %.9g), normal %.9g\n", mc_length(cs.friction_on_j),
           G * SIN30, cs.normal_force);
    cr_expect(fabs(mc_length(cs.friction_on_j) - G * SIN30) < 1e-3, "friction %.9g", mc_length(cs.friction_on_j));
    cr_expect(mc_length(cs.friction_on_j) <= 0.7 * cs.normal_force, "within MU_STATIC N");
    mc_pose pose;
    app_sim_get_part(sim, 1, &pose, NULL, NULL);
    cr_expect(fabs(pose.p.x) < 1e-3, "the block held: x = %.3g", pose.p.x);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);

    sim = make(
        "", "COULOMB_FRICTION=DYNAMICS_ONLY, MU_STATIC=0.7, MU_DYNAMIC=0.5, STICTION=ON, MAX_STICTION_DEFORMATION=1e-4",
        &scn);
    cr_assert(!app_sim_static(sim, err, sizeof err), "DYNAMICS_ONLY friction must be off in statics");
    cr_expect(strstr(err, "no equilibrium") != NULL && strstr(err, "PART/2 force x") != NULL, "%s", err);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(static, dynamic_run_after_static_starts_at_rest_at_the_equilibrium)
{
    // The same scenario with a dynamic run after the equilibrium: the run starts there, at rest, and stays (the
    // forces balance to IMBALANCE = 1e-4 N: over 0.5 s that moves a 1 kg part by at most a t^2 / 2 = 1.25e-5 m,
    // less as the spring and the contact push back; measured 0).
    app_scenario* scn;
    app_sim* sim = make_run("SPRINGDAMPER/1, I=21, J=11, TRANSLATION, K=1000, C=0, LENGTH=1\n",
                            "COULOMB_FRICTION=DYNAMICS_ONLY, MU_STATIC=0.5, MU_DYNAMIC=0.3",
                            "SIMULATE/DYNAMIC, END=0.5, STEPS=50\n", &scn);
    char err[700] = "";
    double d = pow(G * COS30 / 1e6, 1.0 / 1.5);
    FILE* csv = tmpfile();
    cr_assert(csv != NULL);
    cr_assert(app_sim_run(sim, csv, NULL, err, sizeof err), "%s", err);
    mc_pose pose;
    app_sim_get_part(sim, 1, &pose, NULL, NULL);
    double x = -G * SIN30 / 1000.0;
    printf("after 0.5 s: x %.12g (equilibrium %.12g), depth %.12g (%.12g)\n", pose.p.x, x, 0.05 - pose.p.z, d);
    cr_expect(fabs(pose.p.x - x) < 1e-6 && fabs((0.05 - pose.p.z) - d) < 1e-6, "moved: x %.9g, depth %.9g", pose.p.x,
              0.05 - pose.p.z);
    rewind(csv);
    char line[8192];
    int rows = -1;
    while (fgets(line, sizeof line, csv) != NULL)
    {
        ++rows;
    }
    cr_expect(rows == 51, "%d rows: the equilibrium at time 0, then 50", rows);
    fclose(csv);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}
