// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scenario files with the laws of issue 33: RECURDYN and DYMORE parameters by their vendor names into the force model,
// SPLINE statements, and Adams user routines loaded from the example routine library (tests/routines), which
// reproduces the built-in IMPACT law bit for bit; the errors for a missing library or symbol and a wrong USER() count.
#include "src/app/scenario.h"
#include "src/app/scenario_laws.h"
#include "src/app/simulate.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MC_ROUTINE_LIBRARY
#error "MC_ROUTINE_LIBRARY: the path of the example routine module (tests/meson.build)"
#endif

// A ball (ANALYTIC sphere) 0.5 mm above an analytic plane, falling into it: contact within a few ms. %s is the
// CONTACT's law part.
static const char* scene_fmt = "UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n"
                               "ACCGRAV/KGRAV=-9.81\n"
                               "PART/1, GROUND\n"
                               "GRAPHICS/1, PART=1, PLANE\n"
                               "PART/2, MASS=4.084, IP=4.084e-3,4.084e-3,4.084e-3, QG=0,0,0.0505, VZ=-0.3, VX=0.2\n"
                               "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, ANALYTIC\n"
                               "%s\n"
                               "SPLINE/7, X=0,1e-4,3e-4,1e-3,3e-3, Y=0,1,5,30,160, METHOD=AKIMA\n"
                               "SPLINE/8, X=-2,-0.1,0.1,2, Y=-300,-40,40,250, METHOD=LINEAR\n"
                               "SPLINE/9, X=0,0.05,0.2,1, Y=0,0.4,0.3,0.25\n"
                               "SIMULATE/DYNAMIC, END=0.02, STEPS=40\n";

static bool parse(const char* contact, app_scenario** scn, app_scenario_error* err)
{
    char text[4096];
    snprintf(text, sizeof text, scene_fmt, contact);
    return app_scenario_parse_string(text, "laws.scn", ".", scn, err);
}

static app_scenario* parse_ok(const char* contact)
{
    app_scenario* scn = NULL;
    app_scenario_error err;
    cr_assert(parse(contact, &scn, &err), "parse failed: %s", err.message);
    return scn;
}

static void parse_fails(const char* contact, const char* const* needles, int count)
{
    app_scenario* scn = NULL;
    app_scenario_error err;
    memset(&err, 0, sizeof err);
    cr_assert_not(parse(contact, &scn, &err), "parsed: %s", contact);
    cr_assert(strchr(err.message, '\n') == NULL, "not one line: %s", err.message);
    cr_assert(strncmp(err.message, "laws.scn:7: ", 12) == 0, "no file:line: %s", err.message);
    for (int k = 0; k < count; ++k)
    {
        cr_assert(strstr(err.message, needles[k]) != NULL, "'%s' not in: %s", needles[k], err.message);
    }
}

// The contact's model as the simulator builds it: IMPACT's parameters from the statement (as sim_setup.c's force_model
// copies them, here for IMPACT only), then the laws of scenario_laws.h on top.
static mc_force_model model_of(const app_scenario* scn)
{
    cr_assert(eq(int, scn->contact_count, 1));
    const app_scenario_contact* c = &scn->contacts[0];
    mc_force_model m = mc_default_force_model();
    if (c->laws == NULL || c->laws->normal == APP_LAW_NORMAL_NONE)
    {
        cr_assert(eq(int, c->model, APP_SCENARIO_IMPACT));
        m.stiffness = c->stiffness;
        m.exponent = c->exponent;
        m.damping = c->damping;
        m.dmax = c->dmax;
    }
    m.friction = c->friction == APP_SCENARIO_FRICTION_ON ? MC_FRICTION_ON : MC_FRICTION_OFF;
    app_laws_apply(c->laws, &m);
    return m;
}

Test(scenario_laws, recurdyn_parameters_by_their_names)
{
    app_scenario* scn = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, RECURDYN, STIFFNESS=2e7, STIFFNESS_EXPONENT=1.4, "
                                 "DAMPING=300, DAMPING_EXPONENT=1.2, INDENTATION_EXPONENT=0.5, "
                                 "BOUNDARY_PENETRATION=1e-4, REBOUND_DAMPING_FACTOR=0.25, MAXIMUM_PENETRATION=0.01, "
                                 "COULOMB_FRICTION=ON, FRICTION_SPLINE=9");
    mc_force_model m = model_of(scn);
    cr_assert(eq(int, m.normal_law, MC_NORMAL_RECURDYN));
    cr_assert(eq(dbl, m.stiffness, 2e7));
    cr_assert(eq(dbl, m.exponent, 1.4));
    cr_assert(eq(dbl, m.damping, 300.0));
    cr_assert(eq(dbl, m.damping_exponent, 1.2));
    cr_assert(eq(dbl, m.indentation_exponent, 0.5));
    cr_assert(eq(dbl, m.dmax, 1e-4));
    cr_assert(eq(dbl, m.rebound_damping_factor, 0.25));
    cr_assert(eq(dbl, m.max_penetration, 0.01));
    cr_assert(m.friction_curve != NULL && m.stiffness_curve == NULL);
    cr_assert(eq(int, m.friction_curve_kind, MC_FRICTION_CURVE_COEFFICIENT));
    cr_assert(eq(int, mc_curve_count(m.friction_curve), 4));
    cr_assert(eq(int, mc_curve_get_method(m.friction_curve), MC_CURVE_CUBIC)); // SPLINE's default
    // the simulator's estimates (time scale, penetration scale) read IMPACT's equivalents
    cr_assert(eq(int, scn->contacts[0].model, APP_SCENARIO_IMPACT));
    cr_assert(eq(dbl, scn->contacts[0].stiffness, 2e7));
    cr_assert(eq(dbl, scn->contacts[0].exponent, 1.4));
    cr_assert(eq(dbl, scn->contacts[0].damping, 300.0));
    cr_assert(eq(dbl, scn->contacts[0].dmax, 1e-4));
    // the simulation runs with it
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "%s", err);
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(scenario_laws, dymore_and_splines)
{
    app_scenario* scn = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, DYMORE, STIFFNESS_SPLINE=7, DISSIPATION=0.4, "
                                 "COULOMB_FRICTION=ON, FRICTION_SPLINE=8, FRICTION_SPLINE_TYPE=FORCE");
    mc_force_model m = model_of(scn);
    cr_assert(eq(int, m.normal_law, MC_NORMAL_DYMORE));
    cr_assert(eq(dbl, m.dissipation, 0.4));
    cr_assert(m.stiffness_curve != NULL);
    cr_assert(eq(int, mc_curve_get_method(m.stiffness_curve), MC_CURVE_AKIMA));
    cr_assert(eq(dbl, mc_curve_eval(m.stiffness_curve, 3e-4, 0), 5.0));
    cr_assert(eq(int, mc_curve_get_method(m.friction_curve), MC_CURVE_LINEAR));
    cr_assert(eq(int, m.friction_curve_kind, MC_FRICTION_CURVE_FORCE));
    app_scenario_destroy(scn);
    scn = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, DYMORE, STIFFNESS=1e9, EXPONENT=1.5, DISSIPATION=0.2, "
                   "MAXIMUM_PENETRATION=0.002\nINTEGRATOR/RK4");
    m = model_of(scn);
    cr_assert(eq(dbl, m.stiffness, 1e9));
    cr_assert(eq(dbl, m.max_penetration, 0.002));
    // RK4's default step comes from the contact time scale, here DYMORE's k and e
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "%s", err);
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(scenario_laws, bad_law_arguments_are_one_line_errors)
{
    const char* r[2] = {"REBOUND_DAMPING_FACTOR", "R_df"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, RECURDYN, STIFFNESS=1e7, REBOUND_DAMPING_FACTOR=2", r, 2);
    const char* two[1] = {"one normal law"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, RECURDYN, IMPACT, STIFFNESS=1e7", two, 1);
    const char* spl[1] = {"SPLINE/99 is not defined"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, DYMORE, STIFFNESS_SPLINE=99", spl, 1);
    const char* bp[1] = {"BOUNDARY_PENETRATION"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, RECURDYN, STIFFNESS=1e7, DAMPING=10", bp, 1);
    const char* only[1] = {"belongs to RECURDYN or DYMORE"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, DISSIPATION=0.1", only, 1);
    // a bad SPLINE names its line and the index
    app_scenario* scn = NULL;
    app_scenario_error err;
    const char* text = "PART/1, GROUND\nSPLINE/3, X=0,2,1,3, Y=0,1,2,3\nSIMULATE/DYNAMIC, END=1\n";
    cr_assert_not(app_scenario_parse_string(text, "s.scn", ".", &scn, &err));
    cr_assert(strstr(err.message, "s.scn:2: SPLINE/3") != NULL && strstr(err.message, "x[2]") != NULL, "%s",
              err.message);
}

// ---------------------------------------------------------------------------------------------------------------
// User routines
// ---------------------------------------------------------------------------------------------------------------

#define IMPACT_LAW "IMPACT, STIFFNESS=1e8, EXPONENT=1.5, DAMPING=2e3, DMAX=1e-4"
#define USER_LAW                                                                                                       \
    "NORMAL_FUNCTION=USER(1e8, 1.5, 2e3, 1e-4), NORMAL_ROUTINE=\"" MC_ROUTINE_LIBRARY "::mc_example_impact\""

static uint64_t rng = 88172645463325252ull;
static double uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * ((double)(rng >> 11) * (1.0 / 9007199254740992.0));
}

static char* run_csv(const app_scenario* scn)
{
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "%s", err);
    char* buf = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    cr_assert(f != NULL);
    cr_assert(app_sim_run(sim, f, NULL, err, sizeof err), "%s", err);
    fclose(f);
    app_sim_destroy(sim);
    return buf;
}

Test(scenario_laws, routine_library_reproduces_impact_bit_for_bit)
{
    // RK4 with a given step: the run depends on the law's values only (BDF also uses the contact Jacobian, which for a
    // user law is differenced, world.h: there the runs agree to the integrator's tolerance, not bitwise).
    app_scenario* a = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, " IMPACT_LAW "\nINTEGRATOR/RK4, HMAX=2e-5");
    app_scenario* b = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, " USER_LAW "\nINTEGRATOR/RK4, HMAX=2e-5");
    mc_force_model ma = model_of(a);
    mc_force_model mb = model_of(b);
    cr_assert(eq(int, mb.normal_law, MC_NORMAL_USER));
    // the law itself at random states, all branches (ramp, full damping, clamped, no contact): the same bits
    for (int s = 0; s < 2000; ++s)
    {
        mc_contact_kinematics k;
        memset(&k, 0, sizeof k);
        k.depth = uniform(-1e-4, 5e-4);
        k.rate = uniform(-3.0, 3.0);
        k.area = 1e-4;
        k.volume = 1e-9;
        k.radius = sqrt(k.area / 3.14159265358979323846);
        k.normal = mc_v3(0.0, 0.0, 1.0);
        mc_contact_force fa, fb;
        cr_assert(eq(int, mc_contact_force_evaluate(&ma, &k, MC_ANALYSIS_DYNAMIC, &fa), MC_OK));
        cr_assert(eq(int, mc_contact_force_evaluate(&mb, &k, MC_ANALYSIS_DYNAMIC, &fb), MC_OK));
        cr_assert(memcmp(&fa.normal_force, &fb.normal_force, sizeof fa.normal_force) == 0, "state %d: %.17g vs %.17g",
                  s, fa.normal_force, fb.normal_force);
    }
    // and a whole simulation through the impact: the same CSV, byte for byte
    char* ca = run_csv(a);
    char* cb = run_csv(b);
    cr_assert(strlen(ca) > 1000);
    cr_assert(strcmp(ca, cb) == 0, "the runs differ");
    free(ca);
    free(cb);
    app_scenario_destroy(a);
    app_scenario_destroy(b);
}

Test(scenario_laws, friction_routine_is_called)
{
    app_scenario* scn =
        parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, " IMPACT_LAW ", COULOMB_FRICTION=ON, "
                 "FRICTION_FUNCTION=USER(0.3), FRICTION_ROUTINE=\"" MC_ROUTINE_LIBRARY "::mc_example_coulomb\"");
    mc_force_model m = model_of(scn);
    cr_assert(m.friction_fcn != NULL);
    cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
    mc_contact_kinematics k;
    memset(&k, 0, sizeof k);
    k.depth = 1e-4;
    k.rate = 0.0;
    k.area = 1e-4;
    k.volume = 1e-9;
    k.normal = mc_v3(0.0, 0.0, 1.0);
    k.slip_velocity = mc_v3(0.6, -0.8, 0.0);
    mc_contact_force f;
    cr_assert(eq(int, mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f), MC_OK));
    // 1e8 * (1e-4)^1.5 = 100 N; friction -0.3 * 100 * (0.6, -0.8)
    cr_assert(fabs(f.normal_force - 100.0) < 1e-9);
    cr_assert(fabs(f.friction_force.x + 18.0) < 1e-9 && fabs(f.friction_force.y - 24.0) < 1e-9);
    app_scenario_destroy(scn);
}

Test(scenario_laws, missing_library_symbol_and_wrong_count_name_file_line_library_symbol)
{
    const char* lib[3] = {"NORMAL_ROUTINE", "no-such-library.so", "mc_example_impact"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3,4), "
                "NORMAL_ROUTINE=no-such-library.so::mc_example_impact",
                lib, 3);
    const char* sym[3] = {"NORMAL_ROUTINE", MC_ROUTINE_LIBRARY, "no_such_function"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3,4), NORMAL_ROUTINE=\"" MC_ROUTINE_LIBRARY
                "::no_such_function\"",
                sym, 3);
    const char* count[4] = {MC_ROUTINE_LIBRARY, "mc_example_impact", "takes 4", "got 3"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3), NORMAL_ROUTINE=\"" MC_ROUTINE_LIBRARY
                "::mc_example_impact\"",
                count, 4);
    const char* many[1] = {"at most 30"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                "21,22,23,24,25,26,27,28,29,30,31), NORMAL_ROUTINE=\"" MC_ROUTINE_LIBRARY "::mc_example_impact\"",
                many, 1);
    const char* alone[1] = {"go together"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3,4)", alone, 1);
    const char* form[1] = {"library::function"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, NORMAL_FUNCTION=USER(1,2,3,4), NORMAL_ROUTINE=justaname", form, 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Contact step control (RecurDyn MAX_STEP_SIZE_FACTOR, DYMORE CHARACTERISTIC_PENETRATION)
// ---------------------------------------------------------------------------------------------------------------

Test(scenario_laws, step_control_formulas)
{
    app_scenario* scn = parse_ok("CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, MAX_STEP_SIZE_FACTOR=0.1, "
                                 "CHARACTERISTIC_PENETRATION=1e-5, Q_MIN=4, ALPHA=1.5");
    const app_contact_laws* l = scn->contacts[0].laws;
    cr_assert(l != NULL && l->normal == APP_LAW_NORMAL_NONE);
    // not in contact: no limit
    cr_assert(isinf(app_laws_step_limit(l, 1e-3, 0, 0.0, 1.0)));
    // kappa = (2e-5 / 1e-5) / 4 = 0.5 <= 1: dq = eps = 1e-5, at 0.5 m/s: 2e-5 s (below 0.1 HMAX = 1e-4)
    cr_assert(ieee_ulp_eq(dbl, app_laws_step_limit(l, 1e-3, 1, 2e-5, -0.5), 2e-5, 4));
    // kappa = (2e-4 / 1e-5) / 4 = 5: dq = 1e-5 5^1.5, at 2 m/s
    cr_assert(ieee_ulp_eq(dbl, app_laws_step_limit(l, 1e-3, 1, 2e-4, 2.0), 1e-5 * pow(5.0, 1.5) / 2.0, 4));
    // slow: the factor wins; at rest, only the factor
    cr_assert(ieee_ulp_eq(dbl, app_laws_step_limit(l, 1e-3, 1, 2e-5, 1e-3), 1e-4, 4));
    cr_assert(ieee_ulp_eq(dbl, app_laws_step_limit(l, 1e-3, 1, 2e-5, 0.0), 1e-4, 4));
    app_scenario_destroy(scn);
    const char* bad[1] = {"MAX_STEP_SIZE_FACTOR"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, MAX_STEP_SIZE_FACTOR=2", bad, 1);
    const char* alone[1] = {"go with CHARACTERISTIC_PENETRATION"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, Q_MIN=3", alone, 1);
}

// A ball resting on the plane (at its equilibrium depth (m g / k)^(2/3) = 5.43e-5 m, damped): every BDF step is in
// contact, so with MAX_STEP_SIZE_FACTOR=0.05 and HMAX=1e-3 no step is longer than 5e-5 s; without it BDF strides
// far longer steps (the check can fail).
static double resting_run(const char* extra, int* overlap_warnings, double* min_step)
{
    char contact[512];
    snprintf(contact, sizeof contact,
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, DAMPING=2e3, DMAX=1e-5%s\n"
             "INTEGRATOR/BDF, HMAX=1e-3",
             extra);
    char text[4096];
    snprintf(text, sizeof text,
             "ACCGRAV/KGRAV=-9.81\nPART/1, GROUND\nGRAPHICS/1, PART=1, PLANE\n"
             "PART/2, MASS=4.084, IP=4.084e-3,4.084e-3,4.084e-3, QG=0,0,0.0499457\n"
             "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, ANALYTIC\n%s\nSIMULATE/DYNAMIC, END=0.05, STEPS=5\n",
             contact);
    app_scenario* scn = NULL;
    app_scenario_error perr;
    cr_assert(app_scenario_parse_string(text, "rest.scn", ".", &scn, &perr), "%s", perr.message);
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "%s", err);
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    app_sim_step_stats st = app_sim_get_step_stats(sim);
    int nw = 0;
    const char* const* w = app_sim_get_warnings(sim, &nw);
    *overlap_warnings = 0;
    for (int k = 0; k < nw; ++k)
    {
        *overlap_warnings += strstr(w[k], "start interpenetrating") != NULL;
    }
    *min_step = st.min_step;
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    return st.max_step;
}

Test(scenario_laws, max_step_size_factor_bounds_bdf_steps_in_contact)
{
    int nw = 0;
    double hmin = 0.0;
    double with = resting_run(", MAX_STEP_SIZE_FACTOR=0.05", &nw, &hmin);
    double without = resting_run("", &nw, &hmin);
    cr_log_info("longest step: %.3g with the factor, %.3g without", with, without);
    cr_assert(with <= 5e-5 * (1.0 + 1e-12), "longest step %g", with);
    cr_assert(without > 2.0 * 5e-5, "without the factor the longest step is only %g", without);
}

// DYMORE's initial contact flag: the resting ball starts in contact; without the flag a warning says so, with it none,
// and the first BDF step is at most 1e-3 of the contact time scale (the shortest step shrinks accordingly).
Test(scenario_laws, initial_contact_flag_silences_the_overlap_warning_and_starts_small)
{
    int warned = 0, silent = 0;
    double h_plain = 0.0, h_flag = 0.0;
    resting_run("", &warned, &h_plain);
    resting_run(", INITIAL_CONTACT=ON", &silent, &h_flag);
    cr_log_info("shortest step %.3g without the flag, %.3g with it", h_plain, h_flag);
    cr_assert(eq(int, warned, 1));
    cr_assert(eq(int, silent, 0));
    cr_assert(h_flag < h_plain, "shortest step %g with the flag, %g without", h_flag, h_plain);
    const char* bad[1] = {"INITIAL_CONTACT is ON or OFF"};
    parse_fails("CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, INITIAL_CONTACT=YES", bad, 1);
}
