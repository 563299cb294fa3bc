// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the force laws: STEP, IMPACT, POISSON, friction curve and torque against hand-computed values,
// continuity at the STEP boundaries, the validity rule, parameter checks and user callbacks.
#include "src/world/contact_force.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// Hand-computed values below are exact decimal results of the formulas; a few ulps cover the rounding of the
// operations (pow, a handful of products and sums).
#define ULPS 8

static const double PI = 3.14159265358979323846;

Test(contact_force, step_matches_hand_values)
{
    cr_assert(ieee_ulp_eq(dbl, mc_step_fcn(0.5, 0.0, 0.0, 1.0, 1.0), 0.5, ULPS));
    // D = 0.25: D^2 (3 - 2 D) = 0.0625 * 2.5 = 0.15625
    cr_assert(ieee_ulp_eq(dbl, mc_step_fcn(0.25, 0.0, 0.0, 1.0, 1.0), 0.15625, ULPS));
    // x0 = 1, h0 = 2, x1 = 3, h1 = -2, x = 1.5: D = 0.25 -> 2 - 4 * 0.15625 = 1.375
    cr_assert(ieee_ulp_eq(dbl, mc_step_fcn(1.5, 1.0, 2.0, 3.0, -2.0), 1.375, ULPS));
    // clamped outside [x0, x1]
    cr_assert(eq(dbl, mc_step_fcn(-7.0, 1.0, 2.0, 3.0, -2.0), 2.0));
    cr_assert(eq(dbl, mc_step_fcn(9.0, 1.0, 2.0, 3.0, -2.0), -2.0));
    cr_assert(eq(dbl, mc_step_fcn(1.0, 1.0, 2.0, 3.0, -2.0), 2.0));
    cr_assert(eq(dbl, mc_step_fcn(3.0, 1.0, 2.0, 3.0, -2.0), -2.0));
}

Test(contact_force, impact_matches_hand_values)
{
    // k = 1e5, e = 1.5, g = 1e-3: k g^e = 1e5 * 1e-4.5 = 3.1622776601683795;
    // c = 10, dmax = 2e-3: STEP(1e-3, 0, 0, 2e-3, 10) = 5; gdot = 0.5 -> 2.5. Total 5.6622776601683795.
    cr_assert(ieee_ulp_eq(dbl, mc_impact_force(1e-3, 0.5, 1e5, 1.5, 10.0, 2e-3), 5.6622776601683795, ULPS));
    // beyond dmax: full damping, g = 4e-3: 1e5 * 4e-3^1.5 = 25.298221281347036, + 10 * 0.5
    cr_assert(ieee_ulp_eq(dbl, mc_impact_force(4e-3, 0.5, 1e5, 1.5, 10.0, 2e-3), 30.298221281347036, ULPS));
    // separating fast: the damping term would pull, the force is clamped at zero
    cr_assert(eq(dbl, mc_impact_force(1e-3, -10.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
    // no penetration: zero, whatever the rate
    cr_assert(eq(dbl, mc_impact_force(0.0, 5.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
    cr_assert(eq(dbl, mc_impact_force(-1e-3, 5.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
}

Test(contact_force, poisson_matches_hand_values)
{
    // p = 1000, g = 0.01, eps = 0.5, vt = 0.1: approaching p g = 10; separating eps^2 p g = 2.5;
    // at gdot = 0 the STEP is half way: 10 * (1 + 0.25) / 2 = 6.25
    cr_assert(ieee_ulp_eq(dbl, mc_poisson_force(0.01, 1.0, 1000.0, 0.5, 0.1), 10.0, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_poisson_force(0.01, -1.0, 1000.0, 0.5, 0.1), 2.5, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_poisson_force(0.01, 0.0, 1000.0, 0.5, 0.1), 6.25, ULPS));
    cr_assert(eq(dbl, mc_poisson_force(0.0, 1.0, 1000.0, 0.5, 0.1), 0.0));
    // eps = 0 (plastic): nothing pushes back while separating
    cr_assert(eq(dbl, mc_poisson_force(0.01, -1.0, 1000.0, 0.0, 0.1), 0.0));
}

Test(contact_force, poisson_energy_ratio_is_restitution_squared)
{
    // Oracle for the header's claim: integrate a unit mass on the POISSON spring (no gravity) through one impact
    // with a fine symplectic scheme; the exit speed over the entry speed must be eps (error O(vt / v0) + O(dt)).
    const double p = 1e4, vt = 1e-4, v0 = 1.0;
    const double eps_values[3] = {0.2, 0.5, 0.9};
    for (int k = 0; k < 3; ++k)
    {
        double eps = eps_values[k];
        double g = 0.0, gdot = v0, dt = 1e-6;
        int steps = 0;
        do
        {
            double f = mc_poisson_force(g, gdot, p, eps, vt);
            gdot -= f * dt; // the force decelerates the approach (m = 1)
            g += gdot * dt;
            ++steps;
        } while (g > 0.0 && steps < 10000000);
        // 1e-3 covers dt v0 sqrt(p) ~ 1e-4 of time-stepping error and vt / v0 = 1e-4 of blending.
        cr_assert(epsilon_eq(dbl, -gdot / v0, eps, 1e-3), "eps %g: ratio %.6f", eps, -gdot / v0);
    }
}

Test(contact_force, friction_curve_matches_hand_values)
{
    const double ms = 0.5, md = 0.3, vs = 0.1, vd = 0.2;
    cr_assert(eq(dbl, mc_friction_coefficient(0.0, ms, md, vs, vd), 0.0));
    // v = 0.05: D = (0.05 + 0.1) / 0.2 = 0.75, D^2 (3 - 2D) = 0.84375, ramp = -1 + 2 * 0.84375 = 0.6875 -> 0.34375
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(0.05, ms, md, vs, vd), 0.34375, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(0.1, ms, md, vs, vd), 0.5, ULPS));
    // v = 0.15: D = 0.5 -> 0.5 - 0.2 * 0.5 = 0.4
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(0.15, ms, md, vs, vd), 0.4, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(0.2, ms, md, vs, vd), 0.3, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(5.0, ms, md, vs, vd), 0.3, ULPS));
    cr_assert(ieee_ulp_eq(dbl, mc_friction_coefficient(-0.15, ms, md, vs, vd), -0.4, ULPS));
}

// |f(x + d) - f(x - d)| must shrink with d (continuity): with a bounded slope L, it is at most 2 L d.
static void check_continuous(double (*f)(double), double x, double slope_bound, const char* what)
{
    for (double d = 1e-4; d > 1e-10; d *= 0.1)
    {
        double jump = fabs(f(x + d) - f(x - d));
        cr_assert(jump <= 2.0 * slope_bound * d + 1e-15, "%s jumps by %g across %g (d = %g)", what, jump, x, d);
    }
}

static double impact_of_depth(double g)
{
    return mc_impact_force(g, 0.7, 1e5, 1.5, 50.0, 2e-3);
}
static double poisson_of_rate(double v)
{
    return mc_poisson_force(0.01, v, 1000.0, 0.5, 0.1);
}
static double mu_of_speed(double v)
{
    return mc_friction_coefficient(v, 0.5, 0.3, 0.1, 0.2);
}

Test(contact_force, forces_are_continuous_at_step_boundaries)
{
    // slope bounds: IMPACT near dmax: k e g^(e-1) + 1.5 c gdot / dmax ~ 7e3 + 2.7e4; POISSON: 1.5 p g (1-eps^2) / vt
    // = 112.5; friction: 1.5 * 2 * mu_s / vs = 15 and 1.5 * 0.2 / 0.1 = 3.
    check_continuous(impact_of_depth, 2e-3, 4e4, "IMPACT at dmax");
    check_continuous(impact_of_depth, 1e-9, 4e4, "IMPACT near 0");
    check_continuous(poisson_of_rate, 0.1, 120.0, "POISSON at +vt");
    check_continuous(poisson_of_rate, -0.1, 120.0, "POISSON at -vt");
    check_continuous(mu_of_speed, 0.1, 16.0, "mu at vs");
    check_continuous(mu_of_speed, 0.2, 16.0, "mu at vd");
    check_continuous(mu_of_speed, 0.0, 16.0, "mu at 0");
}

static mc_contact_kinematics flat_kinematics(double depth, double radius)
{
    mc_contact_kinematics k;
    memset(&k, 0, sizeof k);
    k.depth = depth;
    k.radius = radius;
    k.area = PI * radius * radius;
    k.volume = k.area * depth * 0.5;
    k.normal = mc_v3(0.0, 0.0, 1.0);
    k.point = mc_v3(0.0, 0.0, 0.0);
    return k;
}

static mc_force_model friction_model(void)
{
    mc_force_model m = mc_default_force_model();
    m.stiffness = 1e6;
    m.exponent = 1.0;
    m.friction = MC_FRICTION_ON;
    m.mu_static = 0.5;
    m.mu_dynamic = 0.3;
    m.stiction_velocity = 0.1;
    m.friction_velocity = 0.2;
    return m;
}

Test(contact_force, sliding_friction_is_mu_dynamic_times_fn)
{
    mc_force_model m = friction_model();
    cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
    mc_contact_kinematics k = flat_kinematics(1e-3, 0.05);
    k.slip_velocity = mc_v3(0.6, -0.8, 0.0); // |v| = 1 > vd
    mc_contact_force f;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, f.rejected, 0));
    cr_assert(ieee_ulp_eq(dbl, f.normal_force, 1000.0, ULPS)); // 1e6 * 1e-3
    cr_assert(ieee_ulp_eq(dbl, f.friction_coefficient, 0.3, ULPS));
    cr_assert(ieee_ulp_eq(dbl, f.friction_force.x, -0.3 * 1000.0 * 0.6, ULPS));
    cr_assert(ieee_ulp_eq(dbl, f.friction_force.y, 0.3 * 1000.0 * 0.8, ULPS));
    cr_assert(eq(dbl, f.friction_force.z, 0.0));
    cr_assert(ieee_ulp_eq(dbl, f.slip_speed, 1.0, ULPS));
    // no spin: no torque
    cr_assert(eq(dbl, mc_length(f.friction_torque), 0.0));
    // DYNAMICS_ONLY: on in a dynamic analysis, off in a static one
    m.friction = MC_FRICTION_DYNAMICS_ONLY;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(ieee_ulp_eq(dbl, f.friction_force.x, -180.0, ULPS));
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_STATIC, &f);
    cr_assert(eq(dbl, mc_length(f.friction_force), 0.0));
    cr_assert(ieee_ulp_eq(dbl, f.normal_force, 1000.0, ULPS));
    m.friction = MC_FRICTION_OFF;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(dbl, mc_length(f.friction_force), 0.0));
}

Test(contact_force, spin_torque_is_mu_fn_two_thirds_r)
{
    mc_force_model m = friction_model();
    const double radius = 0.05;
    mc_contact_kinematics k = flat_kinematics(1e-3, radius);
    // spin slip speed |w| R / 2 = 10 * 0.025 = 0.25 > vd: mu_d; torque 0.3 * 1000 * (2/3) * 0.05 = 10, opposing w
    k.spin_rate = 10.0;
    mc_contact_force f;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(ieee_ulp_eq(dbl, f.friction_torque.z, -10.0, ULPS));
    cr_assert(eq(dbl, f.friction_torque.x, 0.0));
    k.spin_rate = -10.0;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(ieee_ulp_eq(dbl, f.friction_torque.z, 10.0, ULPS));
    // spin slip speed 4 * 0.025 = 0.1 = vs: mu_s -> 0.5 * 1000 * (2/3) * 0.05 = 16.666...
    k.spin_rate = 4.0;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(ieee_ulp_eq(dbl, f.friction_torque.z, -50.0 / 3.0, ULPS));
}

Test(contact_force, validity_rule_rejects_small_area)
{
    mc_force_model m = friction_model();
    mc_contact_kinematics k = flat_kinematics(0.1, 0.05);
    k.slip_velocity = mc_v3(1.0, 0.0, 0.0);
    k.spin_rate = 3.0;
    k.area = 2.0 * 0.1 * 0.1; // A = 2 g^2 exactly: rejected
    mc_contact_force f;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, f.rejected, 1));
    cr_assert(eq(dbl, f.normal_force, 0.0));
    cr_assert(eq(dbl, mc_length(f.friction_force), 0.0));
    cr_assert(eq(dbl, mc_length(f.friction_torque), 0.0));
    k.area = 2.0 * 0.1 * 0.1 * (1.0 + 1e-12); // just above: valid
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, f.rejected, 0));
    cr_assert(f.normal_force > 0.0);
    // A region of negative volume (a self-intersecting input mesh, e.g. the scanned bunny against a copy of
    // itself) is not a penetration: rejected, zero force, even though its area passes the rule.
    k.volume = -7.6e-12;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, f.rejected, 1));
    cr_assert(eq(dbl, f.normal_force, 0.0));
}

static mc_status check_with(mc_force_model m, char* message, size_t size)
{
    mc_error err;
    memset(&err, 0, sizeof err);
    mc_status s = mc_force_model_check(&m, &err);
    snprintf(message, size, "%s", s == MC_OK ? "" : err.message);
    return s;
}

Test(contact_force, parameter_ranges_are_checked_with_clear_messages)
{
    char msg[512];
    mc_force_model m = mc_default_force_model();
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_OK));
    struct
    {
        const char* name;
        int field;
        double value;
    } cases[] = {
        {"STIFFNESS", 0, -1.0},
        {"EXPONENT", 1, 0.0},
        {"DAMPING", 2, -0.5},
        {"DMAX", 3, 0.0},
        {"EXPONENT", 1, NAN},
        {"MU_DYNAMIC", 4, 0.6},
        {"STICTION_TRANSITION", 5, 0.0},
        {"FRICTION_TRANSITION", 6, 0.05},
        {"MU_STATIC", 7, -0.1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    {
        m = friction_model();
        switch (cases[c].field)
        {
        case 0:
            m.stiffness = cases[c].value;
            break;
        case 1:
            m.exponent = cases[c].value;
            break;
        case 2:
            m.damping = cases[c].value;
            break;
        case 3:
            m.dmax = cases[c].value;
            break;
        case 4:
            m.mu_dynamic = cases[c].value;
            break;
        case 5:
            m.stiction_velocity = cases[c].value;
            break;
        case 6:
            m.friction_velocity = cases[c].value;
            break;
        case 7:
            m.mu_static = cases[c].value;
            break;
        }
        cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_ERR_INVALID_ARGUMENT), "case %s", cases[c].name);
        cr_assert(strstr(msg, cases[c].name) != NULL, "message '%s' does not name %s", msg, cases[c].name);
    }
    m = mc_default_force_model();
    m.normal_law = MC_NORMAL_POISSON;
    m.restitution = 1.5;
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(msg, "RESTITUTION") != NULL);
    m.restitution = 0.5;
    m.penalty = 0.0;
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(msg, "PENALTY") != NULL);
    m.normal_law = MC_NORMAL_USER;
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(msg, "normal_fcn") != NULL);
    // friction parameters are not checked when friction is off
    m = mc_default_force_model();
    m.mu_dynamic = 9.0;
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_OK));
    // un-defaulted model
    memset(&m, 0, sizeof m);
    cr_assert(eq(int, check_with(m, msg, sizeof msg), MC_ERR_INVALID_ARGUMENT));
}

typedef struct callback_log
{
    int normal_calls;
    int friction_calls;
    mc_contact_kinematics seen;
    double seen_fn;
} callback_log;

static double user_normal(const mc_contact_kinematics* kin, const mc_force_model* model, void* user)
{
    callback_log* log = user;
    log->normal_calls++;
    log->seen = *kin;
    return model->stiffness * kin->volume; // a volumetric law
}

static void user_friction(const mc_contact_kinematics* kin, double fn, const mc_force_model* model, void* user,
                          mc_vec3* force, mc_vec3* torque)
{
    (void)model;
    callback_log* log = user;
    log->friction_calls++;
    log->seen_fn = fn;
    *force = mc_add(mc_scale(kin->slip_velocity, -2.0), mc_v3(0.0, 0.0, 7.0)); // normal part must be removed
    *torque = mc_v3(0.0, 0.0, -1.5);
}

Test(contact_force, user_callbacks_replace_the_laws)
{
    callback_log log;
    memset(&log, 0, sizeof log);
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_USER;
    m.normal_fcn = user_normal;
    m.friction = MC_FRICTION_ON;
    m.friction_fcn = user_friction;
    m.mu_dynamic = 99.0; // not checked: the user law replaces Coulomb
    m.stiffness = 1e9;
    m.user_data = &log;
    cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
    mc_contact_kinematics k = flat_kinematics(1e-3, 0.05);
    k.slip_velocity = mc_v3(0.25, 0.5, 0.0);
    mc_contact_force f;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, log.normal_calls, 1));
    cr_assert(eq(int, log.friction_calls, 1));
    cr_assert(eq(dbl, log.seen.depth, 1e-3));
    cr_assert(eq(dbl, log.seen.volume, k.volume));
    cr_assert(ieee_ulp_eq(dbl, f.normal_force, 1e9 * k.volume, ULPS));
    cr_assert(eq(dbl, log.seen_fn, f.normal_force));
    cr_assert(eq(dbl, f.friction_force.x, -0.5));
    cr_assert(eq(dbl, f.friction_force.y, -1.0));
    cr_assert(eq(dbl, f.friction_force.z, 0.0));
    cr_assert(eq(dbl, f.friction_torque.z, -1.5));
    // rejected regions never reach the callbacks
    k.area = 1e-9;
    mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f);
    cr_assert(eq(int, f.rejected, 1));
    cr_assert(eq(int, log.normal_calls, 1));
}

Test(contact_force, kinematics_from_twists)
{
    // Region at c = (1, 0, 0), normal +z. I at rest at the origin; J's reference point at (1, 0, 1) moving with
    // v = (0.5, 0, -2) and w = (0, 0, 3) (spin about the normal through J's reference point above c).
    mc_region r;
    memset(&r, 0, sizeof r);
    r.centroid = mc_v3(1.0, 0.0, 0.0);
    r.normal = mc_v3(0.0, 0.0, 1.0);
    r.depth = 1e-3;
    r.area = 0.01;
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(1.0, 0.0, 1.0);
    mc_twist vi = {{0, 0, 0}, {0, 0, 0}};
    mc_twist vj = {{0.5, 0.0, -2.0}, {0.0, 0.0, 3.0}};
    mc_contact_kinematics k = mc_contact_kinematics_compute(&r, &pi, &vi, &pj, &vj);
    // w x (c - o_J) = (0,0,3) x (0,0,-1) = 0: v_rel = (0.5, 0, -2); rate = 2, slip = (0.5, 0, 0), spin = 3
    cr_assert(eq(dbl, k.rate, 2.0));
    cr_assert(eq(dbl, k.slip_velocity.x, 0.5));
    cr_assert(eq(dbl, k.slip_velocity.z, 0.0));
    cr_assert(eq(dbl, k.spin_rate, 3.0));
    // I rotating about z at the origin: its point c moves with (0,0,1) x (1,0,0) = (0,1,0); J at rest now
    mc_twist wi = {{0, 0, 0}, {0.0, 0.0, 1.0}};
    mc_twist zero = {{0, 0, 0}, {0, 0, 0}};
    k = mc_contact_kinematics_compute(&r, &pi, &wi, &pj, &zero);
    cr_assert(eq(dbl, k.slip_velocity.y, -1.0));
    cr_assert(eq(dbl, k.spin_rate, -1.0));
    cr_assert(eq(dbl, k.rate, 0.0));
}
