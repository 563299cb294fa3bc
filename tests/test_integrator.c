// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the simulator's BDF integrator (INTEGRATOR/BDF): its Newton Jacobian against central differences of its
// right-hand side, agreement with fine-step RK4 on a bounce, no tunnelling through a thin plate, unit quaternions
// and an exact spin through rotation-vector rebases, the tolerance failure message, bad options, bitwise
// determinism over thread counts, and the stepper's count of Newton failures against error test rejections.
#include "src/app/scenario.h"
#include "src/app/sim_bdf.h"
#include "src/app/simulate.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static app_scenario* parse_ok(const char* text)
{
    app_scenario* scn = NULL;
    app_scenario_error err;
    bool ok = app_scenario_parse_string(text, "integ.scn", ".", &scn, &err);
    cr_assert(ok, "parse failed: %s", err.message);
    return scn;
}

static app_sim* sim_with(const app_scenario* scn, int threads)
{
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = threads;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "sim create failed: %s", err);
    return sim;
}

static void run_ok(app_sim* sim)
{
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "run failed: %s", err);
}

/// A 1 kg ball of radius 0.05 m above a plate whose top face is z = 0, with `integrator` (an INTEGRATOR statement or
/// ""), CONTACT arguments `contact`, the ball's lowest point `gap` above the plate, falling at vz.
static app_scenario* ball_scene(const char* integrator, const char* contact, double gap, double vz, double end,
                                int steps)
{
    char text[2048];
    snprintf(text, sizeof text,
             "ACCGRAV/KGRAV=-9.81\n"
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
             "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,%.17g, VZ=%.17g\n"
             "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, %s\n"
             "%s\n"
             "SIMULATE/DYNAMIC, END=%.17g, STEPS=%d\n",
             0.05 + gap, vz, contact, integrator, end, steps);
    return parse_ok(text);
}

Test(integrator, jacobian_matches_central_differences_of_the_rhs)
{
    // An ellipsoid with an anisotropic inertia sliding and spinning on the plate, 0.3 mm deep, IMPACT with damping
    // and friction (slip 0.5 m/s, well above the transition velocities, so the friction is smooth there).
    app_scenario* scn = parse_ok("ACCGRAV/KGRAV=-9.81\n"
                                 "PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                                 "PART/2, MASS=1, IP=1e-3,1.5e-3,2e-3, QG=0.01,0.02,0.0497, REULER=10D,20D,5D,\n"
                                 ", VX=0.5, VY=-0.2, VZ=-0.1, WX=3, WY=-2, WZ=5\n"
                                 "GRAPHICS/2, PART=2, ELLIPSOID, XSCALE=0.1, YSCALE=0.1, ZSCALE=0.1, "
                                 "CHORD_TOLERANCE=2e-4\n"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=50, "
                                 "DMAX=1e-4,\n"
                                 ", COULOMB_FRICTION=ON, MU_STATIC=0.4, MU_DYNAMIC=0.3, "
                                 "STICTION_TRANSITION_VELOCITY=0.01, FRICTION_TRANSITION_VELOCITY=0.02\n"
                                 "SIMULATE/DYNAMIC, END=0.01, STEPS=1\n");
    app_sim* sim = sim_with(scn, 1);
    int n = app_sim_ode_size(sim);
    cr_assert(eq(int, n, 12));
    double y[12], yp[12], ym[12], fp[12], fm[12], jac[144], fd[144];
    app_sim_ode_state(sim, y);
    cr_assert(app_sim_ode_jacobian(sim, y, jac));
    // Central differences of the whole right-hand side, steps of 1e-7 of each component's natural size (the depth
    // 3e-4 m, rotation 3e-4 / 0.05, speeds 1 m/s): truncation O(step^2) and rounding O(1e-16 / step) both far
    // below the tolerance.
    const double size[4] = {3e-4, 6e-3, 1.0, 20.0};
    for (int j = 0; j < n; ++j)
    {
        double h = 1e-7 * size[j / 3];
        memcpy(yp, y, sizeof y);
        memcpy(ym, y, sizeof y);
        yp[j] += h;
        ym[j] -= h;
        cr_assert(app_sim_ode_rhs(sim, yp, fp) && app_sim_ode_rhs(sim, ym, fm));
        for (int i = 0; i < n; ++i)
        {
            fd[i * n + j] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    // Per block of 3 x 3 (position, rotation, velocity, angular velocity rows and columns): the assembled Jacobian
    // is forward differences of the contact with steps of 1e-6 of the error scales (relative error ~ step / depth,
    // a few 1e-6), the rigid-body terms are exact at phi = 0: 1e-4 of each block's norm (measured: 2.3e-6) catches
    // any wrong sign, lever arm, frame or missing term of the assembly.
    double worst = 0.0;
    for (int bi = 0; bi < 4; ++bi)
    {
        for (int bj = 0; bj < 4; ++bj)
        {
            double num = 0.0, den = 0.0;
            for (int i = 3 * bi; i < 3 * bi + 3; ++i)
            {
                for (int j = 3 * bj; j < 3 * bj + 3; ++j)
                {
                    num += (jac[i * n + j] - fd[i * n + j]) * (jac[i * n + j] - fd[i * n + j]);
                    den += fd[i * n + j] * fd[i * n + j];
                }
            }
            double rel = den > 0.0 ? sqrt(num / den) : sqrt(num);
            cr_log_info("block (%d,%d): |J| %.4g, relative difference %.3g", bi, bj, sqrt(den), rel);
            // Blocks that are zero in the oracle must be (near) zero in the Jacobian too: absolute 1e-6 of the
            // largest contact block's scale (1e7 N/m / 1 kg).
            cr_assert(den > 0.0 ? rel < 1e-4 : sqrt(num) < 10.0, "block (%d,%d): %g", bi, bj, rel);
            worst = den > 0.0 ? fmax(worst, rel) : worst;
        }
    }
    cr_log_info("largest relative block difference %.3g", worst);
    // The contact terms are there: d(dv/dt)/dp is of the order of the contact stiffness over the mass.
    cr_assert(fabs(jac[8 * n + 2]) > 1e4, "d(vz')/dz = %g", jac[8 * n + 2]);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

/// The ball's first bounce: its first contact incident and the apex height after it.
typedef struct bounce
{
    app_sim_incident incident; ///< the first incident
    double apex;               ///< largest z after it
} bounce;

static bounce first_bounce(const char* integrator)
{
    // Damped IMPACT: the rebound depends on the damping's integral over the impact, a sensitive test of accuracy.
    // 2 cm drop: the impact starts at 0.0639 s, lasts about 15 ms, the apex is 30 ms later, the next impact at 0.14 s.
    app_scenario* scn =
        ball_scene(integrator, "IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=100, DMAX=1e-3", 0.02, 0.0, 0.13, 260);
    app_sim* sim = sim_with(scn, 1);
    bounce b = {.apex = -INFINITY};
    char err[700] = "";
    for (int k = 1; k <= 260; ++k)
    {
        cr_assert(app_sim_step(sim, 0.13 / 260, err, sizeof err), "%s", err);
        int n = 0;
        const app_sim_incident* in = app_sim_get_incidents(sim, &n);
        mc_pose p;
        app_sim_get_part(sim, 1, &p, NULL, NULL);
        if (n == 1 && !in[0].open)
        {
            b.incident = in[0];
            b.apex = fmax(b.apex, p.p.z);
        }
    }
    int n = 0;
    app_sim_get_incidents(sim, &n);
    cr_assert(eq(int, n, 1), "%d incidents", n);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    return b;
}

Test(integrator, bdf_and_rk4_agree_on_a_bounce)
{
    bounce bdf = first_bounce("");
    bounce rk4 = first_bounce("INTEGRATOR/RK4, HMAX=2e-6"); // a tenth of its default step
    cr_log_info("start: BDF %.9g, RK4 %.9g; end: BDF %.9g, RK4 %.9g; apex: BDF %.9g, RK4 %.9g", bdf.incident.start,
                rk4.incident.start, bdf.incident.end, rk4.incident.end, bdf.apex, rk4.apex);
    // The rebound height above the touching height 0.05 within 1 % (measured 0.07 %).
    cr_assert(fabs(bdf.apex - rk4.apex) <= 0.01 * (rk4.apex - 0.05), "%g vs %g", bdf.apex, rk4.apex);
    cr_assert(rk4.apex - 0.05 > 0.002 && rk4.apex - 0.05 < 0.019, "the damping took a part: %g", rk4.apex);
    // The impact's start and end within one output interval, 0.5 ms (incident times are step boundaries: RK4's
    // 2e-6 s, BDF's own, up to an output interval long; measured 0.4 ms and 0).
    cr_assert(fabs(bdf.incident.start - rk4.incident.start) <= 0.5e-3, "%g", bdf.incident.start);
    cr_assert(fabs(bdf.incident.end - rk4.incident.end) <= 0.5e-3, "%g", bdf.incident.end);
}

Test(integrator, a_thin_plate_hit_at_10_m_s_is_not_tunnelled_through)
{
    // A 1 mm plate (top face z = 0), a 1 cm steel ball 5 cm above it at 10 m/s, no gravity: with outputs every
    // 10 ms (a 10 cm flight per output interval, which a BDF step of that length would jump), the ball must bounce.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=0.2, Y=0.2, Z=0.001, QP=-0.1,-0.1,-0.001\n"
                                 "PART/2, MASS=0.0327, IP=1.31e-6,1.31e-6,1.31e-6, QG=0,0,0.06, VZ=-10\n"
                                 "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.01, CHORD_TOLERANCE=1e-4\n"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, EXPONENT=1.5\n"
                                 "SIMULATE/DYNAMIC, END=0.02, STEPS=2\n");
    app_sim* sim = sim_with(scn, 1);
    run_ok(sim);
    mc_pose p;
    mc_twist t;
    app_sim_get_part(sim, 1, &p, &t, NULL);
    int n = 0;
    app_sim_get_incidents(sim, &n);
    cr_log_info("after 20 ms: z %.6g, vz %.6g, %d incidents", p.p.z, t.v.z, n);
    // No damping: it leaves at (nearly) 10 m/s and is back above its start, 1 incident.
    cr_assert(eq(int, n, 1));
    cr_assert(t.v.z > 9.0, "vz %g", t.v.z);
    cr_assert(p.p.z > 0.01, "z %g", p.p.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(integrator, quaternions_stay_unit_through_rebases_and_the_spin_is_exact)
{
    // Torque-free spin about a principal axis at 20 rad/s for 1 s: 20 rad, so the rotation vector is moved into the
    // reference orientation about 20 times. No contact is ever touched (the plate is 10 m below).
    app_scenario* scn = parse_ok("PART/1,GROUND\nGRAPHICS/1,PART=1,BOX,X=1,Y=1,Z=1,QP=0,0,-10\n"
                                 "PART/2,MASS=2,IP=1,2,3,QG=0,0,1,WZ=20\nGRAPHICS/2,PART=2,SPHERE,RADIUS=0.1\n"
                                 "CONTACT/1,IGEOM=1,JGEOM=2,IMPACT,STIFFNESS=1e6\nSIMULATE/END=1,STEPS=100\n");
    app_sim* sim = sim_with(scn, 1);
    run_ok(sim);
    mc_pose p;
    app_sim_get_part(sim, 1, &p, NULL, NULL);
    app_sim_step_stats st = app_sim_get_step_stats(sim);
    double norm = sqrt(p.q.w * p.q.w + p.q.x * p.q.x + p.q.y * p.q.y + p.q.z * p.q.z);
    cr_log_info("|q| - 1 = %.3g, q = (%.12g, %.12g), rebases %llu", norm - 1.0, p.q.w, p.q.z,
                (unsigned long long)st.rebases);
    // Unit to rounding: q is exp(phi) q_ref, a product of unit quaternions (a few ulps per rebase).
    cr_assert(fabs(norm - 1.0) < 1e-14);
    cr_assert(st.rebases >= 15, "%llu rebases", (unsigned long long)st.rebases);
    // q = (cos 10, 0, 0, sin 10): the angle grows linearly, which BDF of order >= 2 integrates exactly; 1e-6 covers
    // the order-1 start after each rebase with ERROR=1e-4 (measured 1e-9).
    cr_assert(epsilon_eq(dbl, p.q.w, cos(10.0), 1e-6));
    cr_assert(epsilon_eq(dbl, p.q.z, sin(10.0), 1e-6));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(integrator, an_unreachable_tolerance_stops_with_the_time_and_the_contact)
{
    // No gravity: the ball flies at a constant 0.5 m/s (which BDF integrates exactly with any step) and lands at
    // t = 0.02 s; HMIN=1e-4 is longer than the impact's onset can be stepped with ERROR=1e-9.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                                 "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.06, VZ=-0.5\n"
                                 "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3\n"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
                                 "INTEGRATOR/ERROR=1e-9, HMIN=1e-4\n"
                                 "SIMULATE/DYNAMIC, END=0.1, STEPS=10\n");
    app_sim* sim = sim_with(scn, 1);
    char err[700] = "";
    cr_assert_not(app_sim_run(sim, NULL, NULL, err, sizeof err));
    cr_log_info("%s", err);
    cr_assert(strstr(err, "the BDF integrator cannot meet INTEGRATOR/ERROR=1e-09 at t = 0.02") != NULL, "%s", err);
    cr_assert(strstr(err, "below HMIN=0.0001") != NULL, "%s", err);
    cr_assert(strstr(err, "CONTACT/1: PART/1 BOX - PART/2 SPHERE carries the largest normal force") != NULL, "%s", err);
    // The state reached is kept: the ball is at the plate.
    mc_pose p;
    app_sim_get_part(sim, 1, &p, NULL, NULL);
    cr_assert(p.p.z < 0.0501 && p.p.z > 0.049, "z = %g", p.p.z);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(integrator, bad_integrator_options_are_refused)
{
    static const struct
    {
        const char* stmt;
        const char* message;
    } cases[] = {
        {"INTEGRATOR/ERROR=0", "ERROR must be > 0 and finite"},
        {"INTEGRATOR/ERROR=-1e-3", "ERROR must be > 0 and finite"},
        {"INTEGRATOR/ERROR=nan", "ERROR"},
        {"INTEGRATOR/HINIT=inf", "HINIT"},
        {"INTEGRATOR/HMIN=0", "HMIN must be > 0 and finite"},
        {"INTEGRATOR/HMAX=-1", "HMAX must be > 0"},
        {"INTEGRATOR/RK4, ERROR=1e-3", "ERROR is for the BDF integrator"},
        {"INTEGRATOR/RK4, BDF", "INTEGRATOR takes one of RK4, BDF and GSTIFF"},
        {"INTEGRATOR/GEAR", "unknown argument 'GEAR'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        char text[1024];
        snprintf(text, sizeof text, "PART/1, GROUND\n%s\nSIMULATE/END=1\n", cases[k].stmt);
        app_scenario* scn = NULL;
        app_scenario_error err;
        cr_assert_not(app_scenario_parse_string(text, "bad.scn", ".", &scn, &err), "%s accepted", cases[k].stmt);
        cr_assert(strstr(err.message, "bad.scn:2: ") != NULL, "%s", err.message);
        cr_assert(strstr(err.message, cases[k].message) != NULL, "%s: %s", cases[k].stmt, err.message);
    }
    // The good ones, and GSTIFF as BDF.
    app_scenario* scn = parse_ok("PART/1, GROUND\nINTEGRATOR/GSTIFF, ERROR=1e-5, HMAX=1e-3, HINIT=1e-6, HMIN=1e-9\n"
                                 "SIMULATE/END=1\n");
    cr_assert(eq(int, (int)scn->integrator, (int)APP_SCENARIO_BDF));
    cr_assert(eq(dbl, scn->error, 1e-5));
    cr_assert(eq(dbl, scn->hinit, 1e-6));
    cr_assert(eq(dbl, scn->hmin, 1e-9));
    app_scenario_destroy(scn);
}

Test(integrator, bdf_is_bitwise_the_same_on_one_and_two_threads)
{
    // The ball slides and spins with friction after landing: contact Jacobians, onsets and rejections all run.
    mc_pose pose[2];
    mc_twist twist[2];
    uint64_t evals[2];
    for (int k = 0; k < 2; ++k)
    {
        app_scenario* scn = ball_scene("",
                                       "IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=100, DMAX=1e-4, "
                                       "COULOMB_FRICTION=ON, MU_STATIC=0.3, MU_DYNAMIC=0.2",
                                       0.005, -0.5, 0.1, 50);
        scn->parts[1].v.x = 0.7;
        scn->parts[1].w_body.z = 30.0;
        app_sim* sim = sim_with(scn, k + 1);
        run_ok(sim);
        app_sim_get_part(sim, 1, &pose[k], &twist[k], NULL);
        evals[k] = app_sim_get_evaluations(sim);
        app_sim_destroy(sim);
        app_scenario_destroy(scn);
    }
    cr_assert(memcmp(&pose[0], &pose[1], sizeof pose[0]) == 0);
    cr_assert(memcmp(&twist[0], &twist[1], sizeof twist[0]) == 0);
    cr_assert(eq(u64, evals[0], evals[1]));
}

// y' = -lambda y, stiff (lambda 1e4), with its exact Jacobian or (zero_jacobian) a zero one.
typedef struct decay
{
    double lambda;
    bool zero_jacobian;
} decay;

static int decay_rhs(double t, const double* y, double* dydt, void* user)
{
    (void)t;
    dydt[0] = -((const decay*)user)->lambda * y[0];
    return 0;
}

static int decay_jac(double t, const double* y, sim_bsm* dfdy, void* user)
{
    (void)t;
    (void)y;
    const decay* d = user;
    sim_bsm_add(dfdy, 0, 0, d->zero_jacobian ? 0.0 : -d->lambda);
    return 0;
}

static sim_bdf_counts decay_run(sim_bdf_method method, bool zero_jacobian, double hinit, double* y_end)
{
    decay d = {1e4, zero_jacobian};
    double scale = 1.0, y = 1.0, t = 0.0, h = hinit;
    sim_bdf_def def = sim_bdf_default_def();
    def.n = 1;
    def.block_size = 1;
    def.rhs = decay_rhs;
    def.jac = decay_jac;
    def.user = &d;
    def.abs_scale = &scale;
    def.error = 1e-8;
    def.hinit = hinit;
    def.method = method;
    sim_bdf* b = sim_bdf_create(&def);
    cr_assert(b != NULL);
    while (t < 1e-3)
    {
        cr_assert(eq(int, (int)sim_bdf_step(b, &t, 1e-3, &h, &y), (int)SIM_BDF_OK));
    }
    sim_bdf_counts c = sim_bdf_get_counts(b);
    cr_assert(eq(u64, (uint64_t)(c.corrector_failures + c.error_test_failures), (uint64_t)sim_bdf_failed_steps(b)));
    sim_bdf_destroy(b);
    *y_end = y;
    return c;
}

Test(integrator, newton_failures_are_told_apart_from_error_test_rejections)
{
    // With the exact Jacobian of a linear ODE the Newton iteration converges in at most two iterations: a first step
    // of 10 decay times fails only the error test. With a zero Jacobian (plain functional iteration, which diverges
    // once h lambda > 1) the same first step fails in the corrector, and the step is halved on each failure. Both
    // the block-sparse NDF (the default) and GSL's msbdf.
    for (int m = 0; m < 2; ++m)
    {
        sim_bdf_method method = m == 0 ? SIM_BDF_METHOD_NDF : SIM_BDF_METHOD_MSBDF;
        double y_exact = 0.0, y_zero = 0.0;
        sim_bdf_counts exact = decay_run(method, false, 1e-3, &y_exact);
        cr_assert(eq(u64, (uint64_t)exact.corrector_failures, 0));
        cr_assert(gt(u64, (uint64_t)exact.error_test_failures, 0));
        sim_bdf_counts zero = decay_run(method, true, 1e-3, &y_zero);
        cr_assert(gt(u64, (uint64_t)zero.corrector_failures, 0));
        cr_assert(gt(u64, (uint64_t)zero.attempts, (uint64_t)exact.attempts));
        // both reach exp(-10) within the tolerance's reach (1e-8 absolute per step, some hundreds of steps)
        cr_assert(lt(dbl, fabs(y_exact - exp(-10.0)), 1e-5), "%g", y_exact);
        cr_assert(lt(dbl, fabs(y_zero - exp(-10.0)), 1e-5), "%g", y_zero);
    }
}

/// Run a shipped scenario (data/<name>.scn) to its end with BDF on one thread.
static app_sim* run_shipped(const char* name, app_scenario** scn_out)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(root != NULL, "MC_SOURCE_ROOT is not set (meson test sets it)");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s.scn", root, name);
    app_scenario* scn = NULL;
    app_scenario_error perr;
    cr_assert(app_scenario_parse_file(path, &scn, &perr), "%s: %s", path, perr.message);
    app_sim* sim = sim_with(scn, 1);
    run_ok(sim);
    *scn_out = scn;
    return sim;
}

Test(integrator, contact_predictor_lands_new_contacts_shallow)
{
    // Adams' contact predictor (app_sim_step_bdf): a trial state that finds a new contact deeper than a tenth of its
    // impact penetration stops the step, which is retaken to land just past the onset estimated from the depth and
    // its rate, at order one. On the shipped drops every first-contact penetration (the depth at the end of the
    // incident's first step) is then at most 10 % of the impact penetration the approach rate predicts, and on the
    // ball drop and the pile the predictor acts (it is not a dormant rule).
    static const char* const names[] = {"ball_drop", "ball_pile", "spot_drop"};
    for (int k = 0; k < 3; ++k)
    {
        app_scenario* scn = NULL;
        app_sim* sim = run_shipped(names[k], &scn);
        int n = 0;
        const app_sim_incident* in = app_sim_get_incidents(sim, &n);
        cr_assert(gt(int, n, 0), "%s: no incident", names[k]);
        int measured = 0;
        for (int i = 0; i < n; ++i)
        {
            if (in[i].impact_depth > 0.0)
            {
                ++measured;
                cr_assert(le(dbl, in[i].onset_depth, 0.1 * in[i].impact_depth),
                          "%s incident %d at t = %g: %g > 10 %% of %g", names[k], i, in[i].start, in[i].onset_depth,
                          in[i].impact_depth);
            }
        }
        cr_assert(gt(int, measured, 0), "%s: no incident with an approach rate", names[k]);
        app_sim_step_stats st = app_sim_get_step_stats(sim);
        cr_log_info("%s: %d incidents, %llu predictor retakes, %llu steps, %llu evaluations", names[k], n,
                    (unsigned long long)st.onset_rejections, (unsigned long long)st.steps,
                    (unsigned long long)app_sim_get_evaluations(sim));
        if (k < 2)
        {
            cr_assert(gt(u64, (uint64_t)st.onset_rejections, 0), "%s: the predictor never acted", names[k]);
        }
        if (k == 0)
        {
            // The estimate is the energy balance m v^2 / 2 = k g^(e+1) / (e + 1) of an undamped IMPACT: the ball's
            // deepest penetration matches it within the faceting of the tessellated ball (chord 5e-4 of 0.05 m
            // changes the contact depth law by about 1 %: 2 % allowed).
            cr_assert(lt(dbl, fabs(in[0].max_depth - in[0].impact_depth), 0.02 * in[0].impact_depth), "%g vs %g",
                      in[0].max_depth, in[0].impact_depth);
        }
        app_sim_destroy(sim);
        app_scenario_destroy(scn);
    }
}
