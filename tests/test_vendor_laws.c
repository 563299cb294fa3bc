// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of RecurDyn's and DYMORE's contact laws and of the friction curves: each law against the vendor's formula
// written out here at random states (forces, friction, torque), partial derivatives against central differences, a
// ball dropped on a plane with DYMORE's damping against the Hunt-Crossley closed form, RecurDyn's rebound damping
// floor during separation, a stiffness curve sampled from k g^e against IMPACT, and the parameter checks.
#include "meshcontact/meshcontact.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 2685821657736338717ull;
    return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

static bool rel_close(double got, double want, double rel, double abs_floor)
{
    return fabs(got - want) <= rel * fabs(want) + abs_floor;
}

// Adams' cubic STEP, written out (the ramp of RecurDyn's damping to the boundary penetration).
static double oracle_step(double x, double x0, double h0, double x1, double h1)
{
    if (x <= x0)
    {
        return h0;
    }
    if (x >= x1)
    {
        return h1;
    }
    double d = (x - x0) / (x1 - x0);
    return h0 + (h1 - h0) * d * d * (3.0 - 2.0 * d);
}

// RecurDyn: f_n = max(f_ns + f_nd, R_df f_ns), f_ns = K g^ms, f_nd = C sign(gd) |gd|^md g^mi STEP(g, 0, 0, bp, 1).
static double oracle_recurdyn(double g, double gd, double K, double ms, double C, double md, double mi, double bp,
                              double rdf, double gmax)
{
    if (g <= 0.0 || g > gmax)
    {
        return 0.0;
    }
    double fns = K * pow(g, ms);
    double sgn = gd > 0.0 ? 1.0 : (gd < 0.0 ? -1.0 : 0.0);
    double fnd = C * sgn * pow(fabs(gd), md) * pow(g, mi) * oracle_step(g, 0.0, 0.0, bp, 1.0);
    return fmax(fmax(fns + fnd, rdf * fns), 0.0);
}

// DYMORE: F = max(0, F_el (1 + mu gdot)), F_el = k a^e.
static double oracle_dymore(double a, double ad, double k, double e, double mu, double gmax)
{
    if (a <= 0.0 || a > gmax)
    {
        return 0.0;
    }
    return fmax(0.0, k * pow(a, e) * (1.0 + mu * ad));
}

// Piecewise linear interpolation written out (for laws whose curves are linear), with the end-slope extrapolation.
static double oracle_linear(const double* x, const double* y, int n, double t)
{
    int i = 0;
    if (t >= x[n - 1])
    {
        i = n - 2;
    }
    else
    {
        while (i < n - 2 && t >= x[i + 1])
        {
            ++i;
        }
    }
    return y[i] + (y[i + 1] - y[i]) / (x[i + 1] - x[i]) * (t - x[i]);
}

static mc_contact_kinematics random_kinematics(double depth, double rate)
{
    mc_contact_kinematics k;
    memset(&k, 0, sizeof k);
    k.depth = depth;
    k.rate = rate;
    k.radius = uniform(0.01, 0.1);
    k.area = PI * k.radius * k.radius;
    k.volume = 0.5 * k.area * depth;
    k.point = mc_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    k.normal = mc_v3(0.0, 0.0, 1.0);
    k.slip_velocity = mc_v3(uniform(-0.5, 0.5), uniform(-0.5, 0.5), 0.0);
    k.spin_rate = uniform(-20.0, 20.0);
    return k;
}

// Friction force on J and torque (about the point) from a coefficient mu(v) or force F(v), written out.
static void oracle_friction(const mc_contact_kinematics* k, double fn, double (*law)(double, void*), void* ctx,
                            bool is_force, mc_vec3* force, mc_vec3* torque)
{
    double scale = is_force ? 1.0 : fn;
    double v = sqrt(k->slip_velocity.x * k->slip_velocity.x + k->slip_velocity.y * k->slip_velocity.y);
    double f = law(v, ctx) * scale;
    *force = mc_v3(-f * k->slip_velocity.x / v, -f * k->slip_velocity.y / v, 0.0);
    double w = k->spin_rate, r = k->radius;
    double mag = law(fabs(w) * r / 2.0, ctx) * scale * 2.0 / 3.0 * r;
    *torque = mc_v3(0.0, 0.0, w > 0.0 ? -mag : mag);
}

typedef struct lin_curve
{
    const double* x;
    const double* y;
    int n;
} lin_curve;

static double lin_law(double v, void* ctx)
{
    const lin_curve* c = ctx;
    return oracle_linear(c->x, c->y, c->n, v);
}

static void check_vec(mc_vec3 got, mc_vec3 want, double rel, const char* what, int s)
{
    double scale = fmax(fabs(want.x), fmax(fabs(want.y), fabs(want.z)));
    cr_assert(fabs(got.x - want.x) <= rel * scale + 1e-300 && fabs(got.y - want.y) <= rel * scale + 1e-300 &&
                  fabs(got.z - want.z) <= rel * scale + 1e-300,
              "%s state %d: (%.17g %.17g %.17g) vs (%.17g %.17g %.17g)", what, s, got.x, got.y, got.z, want.x, want.y,
              want.z);
}

Test(vendor_laws, recurdyn_equals_its_formula_at_random_states)
{
    // 1e-12 relative: the same operations in another order (pow, a STEP, a handful of products).
    // Friction through a linear friction-coefficient curve (RecurDyn's friction spline).
    const double fx[4] = {0.0, 0.05, 0.2, 1.0}, fy[4] = {0.0, 0.4, 0.25, 0.2};
    mc_curve* fc = NULL;
    cr_assert(eq(int, mc_curve_create(fx, fy, 4, MC_CURVE_LINEAR, &fc, NULL), MC_OK));
    lin_curve lc = {fx, fy, 4};
    int floor_active = 0, ramp = 0, beyond = 0, sum_active = 0;
    for (int s = 0; s < 200; ++s)
    {
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_RECURDYN;
        m.stiffness = uniform(1e4, 1e7);
        m.exponent = uniform(1.0, 2.5);
        m.damping = uniform(0.0, 1e4);
        m.damping_exponent = uniform(0.5, 2.0);
        m.indentation_exponent = s % 4 == 0 ? 0.0 : uniform(0.0, 1.5);
        m.dmax = uniform(1e-4, 1e-3);
        m.rebound_damping_factor = s % 5 == 0 ? 0.0 : uniform(0.0, 1.0);
        m.max_penetration = s % 3 == 0 ? INFINITY : uniform(1e-3, 2e-3);
        m.friction = MC_FRICTION_ON;
        m.friction_curve = fc;
        cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
        double g = uniform(1e-6, 2.5e-3), gd = uniform(-2.0, 2.0);
        double want = oracle_recurdyn(g, gd, m.stiffness, m.exponent, m.damping, m.damping_exponent,
                                      m.indentation_exponent, m.dmax, m.rebound_damping_factor, m.max_penetration);
        cr_assert(rel_close(mc_recurdyn_force(&m, g, gd, NULL, NULL), want, 1e-12, 1e-300), "state %d", s);
        mc_contact_kinematics k = random_kinematics(g, gd);
        mc_contact_force out;
        cr_assert(eq(int, mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &out), MC_OK));
        cr_assert(rel_close(out.normal_force, want, 1e-12, 1e-300), "state %d: %.17g vs %.17g", s, out.normal_force,
                  want);
        mc_vec3 ff, ft;
        oracle_friction(&k, want, lin_law, &lc, false, &ff, &ft);
        if (want > 0.0)
        {
            check_vec(out.friction_force, ff, 1e-12, "friction", s);
            check_vec(out.friction_torque, ft, 1e-12, "torque", s);
        }
        double fns = m.stiffness * pow(g, m.exponent);
        beyond += g > m.max_penetration;
        if (g <= m.max_penetration)
        {
            floor_active += want == m.rebound_damping_factor * fns && want > 0.0;
            sum_active += want > m.rebound_damping_factor * fns;
            ramp += g < m.dmax && gd != 0.0 && want > 0.0;
        }
    }
    cr_assert(floor_active >= 20 && ramp >= 20 && beyond >= 20 && sum_active >= 20, "branches %d %d %d %d",
              floor_active, ramp, beyond, sum_active);
    mc_curve_destroy(fc);
}

Test(vendor_laws, recurdyn_with_stiffness_and_damping_splines)
{
    // RecurDyn's splines: f_ns = stiffness_curve(g), C sign |gdot|^m_d replaced by damping_curve(gdot); the
    // indentation factor g^m_i and the ramp stay. Linear curves, interpolated here independently. 1e-12.
    const double kx[5] = {0.0, 2e-4, 5e-4, 1e-3, 2e-3}, ky[5] = {0.0, 30.0, 100.0, 260.0, 700.0};
    const double cx[4] = {-2.0, -0.1, 0.1, 2.0}, cy[4] = {-300.0, -40.0, 40.0, 250.0};
    mc_curve *kc = NULL, *cc = NULL;
    cr_assert(eq(int, mc_curve_create(kx, ky, 5, MC_CURVE_LINEAR, &kc, NULL), MC_OK));
    cr_assert(eq(int, mc_curve_create(cx, cy, 4, MC_CURVE_LINEAR, &cc, NULL), MC_OK));
    for (int s = 0; s < 40; ++s)
    {
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_RECURDYN;
        m.stiffness_curve = kc;
        m.damping_curve = cc;
        m.indentation_exponent = uniform(0.0, 1.0);
        m.dmax = uniform(1e-4, 1e-3);
        m.rebound_damping_factor = uniform(0.0, 1.0);
        cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
        double g = uniform(1e-6, 2.5e-3), gd = uniform(-2.5, 2.5);
        double fns = oracle_linear(kx, ky, 5, g);
        double fnd = oracle_linear(cx, cy, 4, gd) * pow(g, m.indentation_exponent) * oracle_step(g, 0, 0, m.dmax, 1);
        double want = fmax(fmax(fns + fnd, m.rebound_damping_factor * fns), 0.0);
        cr_assert(rel_close(mc_recurdyn_force(&m, g, gd, NULL, NULL), want, 1e-12, 1e-300), "state %d", s);
    }
    mc_curve_destroy(kc);
    mc_curve_destroy(cc);
}

Test(vendor_laws, dymore_equals_its_formula_at_random_states)
{
    // 1e-12 relative. Friction through a linear friction-FORCE curve (the force itself, not mu Fn).
    const double fx[3] = {0.0, 0.1, 1.0}, fy[3] = {0.0, 5.0, 3.0};
    mc_curve* fc = NULL;
    cr_assert(eq(int, mc_curve_create(fx, fy, 3, MC_CURVE_LINEAR, &fc, NULL), MC_OK));
    lin_curve lc = {fx, fy, 3};
    int clamped = 0, pushing = 0;
    for (int s = 0; s < 100; ++s)
    {
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_DYMORE;
        m.stiffness = uniform(1e5, 1e9);
        m.exponent = s % 2 == 0 ? 1.5 : uniform(1.0, 2.0);
        m.dissipation = uniform(0.0, 2.0);
        m.max_penetration = s % 4 == 0 ? uniform(5e-4, 1e-3) : INFINITY;
        m.friction = MC_FRICTION_ON;
        m.friction_curve = fc;
        m.friction_curve_kind = MC_FRICTION_CURVE_FORCE;
        cr_assert(eq(int, mc_force_model_check(&m, NULL), MC_OK));
        double a = uniform(1e-6, 1e-3), ad = uniform(-2.0, 2.0);
        double want = oracle_dymore(a, ad, m.stiffness, m.exponent, m.dissipation, m.max_penetration);
        cr_assert(rel_close(mc_dymore_force(&m, a, ad, NULL, NULL), want, 1e-12, 1e-300), "state %d", s);
        mc_contact_kinematics k = random_kinematics(a, ad);
        mc_contact_force out;
        cr_assert(eq(int, mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &out), MC_OK));
        cr_assert(rel_close(out.normal_force, want, 1e-12, 1e-300), "state %d", s);
        if (want > 0.0)
        {
            mc_vec3 ff, ft;
            oracle_friction(&k, want, lin_law, &lc, true, &ff, &ft);
            check_vec(out.friction_force, ff, 1e-12, "friction", s);
            check_vec(out.friction_torque, ft, 1e-12, "torque", s);
        }
        clamped += want == 0.0 && a <= m.max_penetration;
        pushing += want > 0.0;
    }
    cr_assert(clamped >= 20 && pushing >= 20, "branches %d %d", clamped, pushing);
    // DYMORE's nonlinear spring: F_el from a curve
    const double kx[4] = {0.0, 1e-4, 3e-4, 1e-3}, ky[4] = {0.0, 10.0, 50.0, 400.0};
    mc_curve* kc = NULL;
    cr_assert(eq(int, mc_curve_create(kx, ky, 4, MC_CURVE_LINEAR, &kc, NULL), MC_OK));
    for (int s = 0; s < 30; ++s)
    {
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_DYMORE;
        m.stiffness_curve = kc;
        m.dissipation = uniform(0.0, 1.0);
        double a = uniform(1e-6, 1.2e-3), ad = uniform(-2.0, 2.0);
        double want = fmax(0.0, oracle_linear(kx, ky, 4, a) * (1.0 + m.dissipation * ad));
        cr_assert(rel_close(mc_dymore_force(&m, a, ad, NULL, NULL), want, 1e-12, 1e-300), "curve state %d", s);
    }
    mc_curve_destroy(kc);
    mc_curve_destroy(fc);
}

Test(vendor_laws, partial_derivatives_match_central_differences)
{
    // Central differences, steps 1e-6 of the depth and of the rate scale: truncation O(h^2) and rounding
    // O(1e-16 / 1e-6) keep them within 1e-7 relative of the analytic slopes away from the kinks (states within 1 %
    // of a kink are skipped: the floor, the clamp, the ramp's end, the curve's knots are one-sided there).
    const double kx[6] = {0.0, 2e-4, 5e-4, 1e-3, 2e-3, 3e-3}, ky[6] = {0.0, 30.0, 100.0, 260.0, 700.0, 1500.0};
    mc_curve* kc = NULL;
    cr_assert(eq(int, mc_curve_create(kx, ky, 6, MC_CURVE_CUBIC, &kc, NULL), MC_OK));
    int tested = 0;
    for (int s = 0; s < 2000 && tested < 60; ++s)
    {
        mc_force_model m = mc_default_force_model();
        bool recurdyn = s % 2 == 0;
        m.normal_law = recurdyn ? MC_NORMAL_RECURDYN : MC_NORMAL_DYMORE;
        m.stiffness = uniform(1e4, 1e7);
        m.exponent = uniform(1.0, 2.5);
        m.damping = uniform(0.0, 1e4);
        m.damping_exponent = uniform(1.0, 2.0);
        m.indentation_exponent = uniform(0.0, 1.5);
        m.dmax = uniform(1e-4, 1e-3);
        m.rebound_damping_factor = uniform(0.0, 0.9);
        m.dissipation = uniform(0.0, 1.0);
        m.stiffness_curve = s % 3 == 0 ? kc : NULL;
        double g = uniform(1e-5, 2.5e-3), gd = uniform(-2.0, 2.0);
        double (*law)(const mc_force_model*, double, double, double*, double*) =
            recurdyn ? mc_recurdyn_force : mc_dymore_force;
        double fg = 0.0, fr = 0.0;
        double f = law(&m, g, gd, &fg, &fr);
        double hg = 1e-6 * g, hr = 1e-6;
        // skip states near a kink: the force must stay on one branch over the stencil (checked by linearity of the
        // three values at 10x the step)
        double a = law(&m, g - 10 * hg, gd, NULL, NULL), b = law(&m, g + 10 * hg, gd, NULL, NULL);
        double c = law(&m, g, gd - 10 * hr, NULL, NULL), d = law(&m, g, gd + 10 * hr, NULL, NULL);
        if (!(f > 0.0) || fabs(a + b - 2 * f) > 1e-6 * f || fabs(c + d - 2 * f) > 1e-6 * f ||
            fabs(g - m.dmax) < 0.01 * g || fabs(gd) < 0.01)
        {
            continue;
        }
        bool near_knot = false;
        for (int i = 0; i < 6; ++i)
        {
            near_knot = near_knot || (m.stiffness_curve != NULL && fabs(g - kx[i]) < 0.01 * g);
        }
        if (near_knot)
        {
            continue;
        }
        double ng = (law(&m, g + hg, gd, NULL, NULL) - law(&m, g - hg, gd, NULL, NULL)) / (2 * hg);
        double nr = (law(&m, g, gd + hr, NULL, NULL) - law(&m, g, gd - hr, NULL, NULL)) / (2 * hr);
        cr_assert(rel_close(fg, ng, 1e-7, 1e-9 * f / g), "state %d (%s): dF/dg %.17g vs %.17g", s,
                  recurdyn ? "RecurDyn" : "DYMORE", fg, ng);
        cr_assert(rel_close(fr, nr, 1e-7, 1e-9 * f), "state %d: dF/dgdot %.17g vs %.17g", s, fr, nr);
        ++tested;
    }
    cr_assert(tested >= 40, "only %d states", tested);
    mc_curve_destroy(kc);
}

// A ball (analytic sphere, radius R, mass M) on an analytic plane, integrated here with RK4 (no gravity: it meets
// the plane at speed v0): returns the exit speed. `check` (may be NULL) sees every evaluated region.
typedef void region_check(const mc_contact_region* r, const mc_force_model* m, void* ctx);

static double ball_bounce(const mc_force_model* model, double v0, double dt, region_check* check, void* ctx)
{
    const double R = 0.1, M = 1.0;
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_plane();
    mc_body_id ground = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    bd.shape = mc_shape_sphere(R);
    bd.pose.p = mc_v3(0.0, 0.0, R + 1e-9);
    mc_body_id ball = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &ground;
    cd.i_count = 1;
    cd.j_bodies = &ball;
    cd.j_count = 1;
    cd.model = *model;
    mc_contact_id cid;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &cid, NULL), MC_OK));
    double z = R + 1e-9, v = -v0;
    // acceleration of the ball at (z, v)
#define ACCEL(zz, vv, out)                                                                                             \
    do                                                                                                                 \
    {                                                                                                                  \
        mc_pose p = mc_pose_identity();                                                                                \
        p.p = mc_v3(0.0, 0.0, (zz));                                                                                   \
        mc_twist t = {mc_v3(0.0, 0.0, (vv)), mc_v3(0.0, 0.0, 0.0)};                                                    \
        cr_assert(eq(int, mc_body_set_pose(w, ball, &p), MC_OK));                                                      \
        cr_assert(eq(int, mc_body_set_velocity(w, ball, &t), MC_OK));                                                  \
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));                                                               \
        mc_contact_region reg;                                                                                         \
        if (check != NULL && mc_world_get_regions(w, &reg, 1) == 1)                                                    \
        {                                                                                                              \
            check(&reg, model, ctx);                                                                                   \
        }                                                                                                              \
        (out) = mc_body_get_wrench(w, ball).force.z / M;                                                               \
    } while (0)
    int steps = 0;
    while ((z < R + 2e-9 || v < 0.0) && steps < 200000)
    {
        double a1, a2, a3, a4;
        ACCEL(z, v, a1);
        ACCEL(z + 0.5 * dt * v, v + 0.5 * dt * a1, a2);
        ACCEL(z + 0.5 * dt * (v + 0.5 * dt * a1), v + 0.5 * dt * a2, a3);
        ACCEL(z + dt * (v + 0.5 * dt * a2), v + dt * a3, a4);
        z += dt * (v + dt * (a1 + a2 + a3) / 6.0);
        v += dt * (a1 + 2 * a2 + 2 * a3 + a4) / 6.0;
        ++steps;
    }
#undef ACCEL
    cr_assert(steps < 200000);
    mc_world_destroy(w);
    return v;
}

// Hunt-Crossley exit speed: mu v0 - ln(1 + mu v0) = -mu v1 - ln(1 - mu v1), v1 in (0, v0) by bisection.
static double hunt_crossley_exit(double mu, double v0)
{
    double target = mu * v0 - log1p(mu * v0);
    double lo = 0.0, hi = fmin(v0, 1.0 / mu);
    for (int it = 0; it < 200; ++it)
    {
        double mid = 0.5 * (lo + hi);
        double val = -mu * mid - log1p(-mu * mid); // increasing in mid
        if (val < target)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

Test(vendor_laws, dymore_ball_rebounds_with_the_hunt_crossley_restitution)
{
    // Hertz k a^(3/2), m = 1 kg, v0 = 1 m/s: contact lasts ~ 3.2 (m / k)^(2/5) v0^(-1/5) = 5 ms; 2500 RK4 steps of
    // 2 us over it. The 1 % bar covers the integrator (the force has a a^(1/2) kink at onset: first-order error
    // in dt there, ~1e-4) and the depth's rounding.
    const double mus[3] = {0.05, 0.3, 1.0};
    for (int k = 0; k < 3; ++k)
    {
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_DYMORE;
        m.stiffness = 1e7;
        m.exponent = 1.5;
        m.dissipation = mus[k];
        double v1 = ball_bounce(&m, 1.0, 2e-6, NULL, NULL);
        double want = hunt_crossley_exit(mus[k], 1.0);
        cr_assert(fabs(v1 - want) <= 0.01 * want, "mu %g: exit %.6f, Hunt-Crossley %.6f", mus[k], v1, want);
        cr_assert(want < 0.99 && want > 0.3); // the damping matters at these mu
    }
}

typedef struct floor_ctx
{
    int separating;
    int at_floor;
    double worst; // min over separating states of (Fn - rdf f_ns) / f_ns
    double rdf;   // the floor checked
} floor_ctx;

static void check_floor(const mc_contact_region* r, const mc_force_model* m, void* vctx)
{
    floor_ctx* c = vctx;
    if (r->rejected || !(r->region.depth > 0.0) || !(r->rate < 0.0))
    {
        return;
    }
    double fns = m->stiffness * pow(r->region.depth, m->exponent);
    double excess = (r->normal_force - c->rdf * fns) / fns;
    c->separating++;
    c->at_floor += fabs(excess) <= 1e-12;
    c->worst = fmin(c->worst, excess);
}

Test(vendor_laws, recurdyn_rebound_never_drops_below_rdf_fns_while_separating)
{
    // Heavy damping that would pull during separation: with R_df = 0.5 every separating state has
    // Fn >= 0.5 K g^m_s (to rounding, 1e-12), and the floor is reached (the law is exercised).
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_RECURDYN;
    m.stiffness = 1e7;
    m.exponent = 1.5;
    m.damping = 3e3;
    m.dmax = 1e-5;
    m.rebound_damping_factor = 0.5;
    floor_ctx c = {0, 0, INFINITY, 0.5};
    double v1 = ball_bounce(&m, 1.0, 2e-6, check_floor, &c);
    cr_assert(v1 > 0.0);
    cr_assert(c.separating > 100 && c.at_floor > 10, "separating %d, at the floor %d", c.separating, c.at_floor);
    cr_assert(c.worst >= -1e-12, "Fn fell below R_df f_ns by %g of f_ns", -c.worst);
    // the same bounce with R_df = 0 does fall below 0.5 f_ns (so the check above can fail)
    m.rebound_damping_factor = 0.0;
    floor_ctx c0 = {0, 0, INFINITY, 0.5};
    ball_bounce(&m, 1.0, 2e-6, check_floor, &c0);
    cr_assert(c0.worst < -0.4, "R_df = 0: Fn - 0.5 f_ns at least %g f_ns", c0.worst);
}

Test(vendor_laws, stiffness_curve_sampled_from_the_power_law_reproduces_impact)
{
    // RecurDyn's law with m_d = 1, m_i = 0, R_df = 0 and boundary penetration = DMAX is IMPACT; its stiffness curve
    // sampled from k g^e at N + 1 points on [0, G]:
    // - linear: the error on a segment [a, b] (h = b - a) is at most h^2 max|y''| / 8 = h^2 k e (e - 1) a^(e - 2) / 8
    //   for 1 < e < 2 (y'' is largest at a), and k h^e (4/27) on the first one (max of t - t^(3/2) is 4/27 at
    //   t = 4/9, for e = 3/2): law.h's bound for MC_CURVE_LINEAR;
    // - cubic (not-a-knot) sampled from k g^2 or k g^3, polynomials of degree <= 3: exact (1e-12 relative).
    const double k = 1e6, c = 50.0, dmax = 1e-4, G = 1e-3;
    const int N = 40;
    double x[41], y[41];
    for (int e3 = 0; e3 < 3; ++e3)
    {
        double e = e3 == 0 ? 1.5 : (e3 == 1 ? 2.0 : 3.0);
        mc_curve_method method = e3 == 0 ? MC_CURVE_LINEAR : MC_CURVE_CUBIC;
        for (int i = 0; i <= N; ++i)
        {
            x[i] = G * (double)i / (double)N;
            y[i] = k * pow(x[i], e);
        }
        mc_curve* curve = NULL;
        cr_assert(eq(int, mc_curve_create(x, y, N + 1, method, &curve, NULL), MC_OK));
        mc_force_model m = mc_default_force_model();
        m.normal_law = MC_NORMAL_RECURDYN;
        m.stiffness_curve = curve;
        m.damping = c;
        m.dmax = dmax;
        for (int s = 0; s < 50; ++s)
        {
            double g = uniform(1e-7, G), gd = uniform(-0.01, 0.5);
            double want = mc_impact_force(g, gd, k, e, c, dmax);
            double got = mc_recurdyn_force(&m, g, gd, NULL, NULL);
            double h = G / N;
            double bound;
            if (method == MC_CURVE_LINEAR)
            {
                double a = floor(g / h) * h;
                bound = a == 0.0 ? k * pow(h, e) * 4.0 / 27.0 : h * h * k * e * (e - 1.0) * pow(a, e - 2.0) / 8.0;
            }
            else
            {
                bound = 1e-12 * k * pow(G, e);
            }
            cr_assert(fabs(got - want) <= bound + 1e-12 * want, "e %g, g %g: %.17g vs IMPACT %.17g (bound %g)", e, g,
                      got, want, bound);
        }
        mc_curve_destroy(curve);
    }
}

Test(vendor_laws, model_check_names_the_vendor_parameter)
{
    mc_error err;
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_RECURDYN;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_OK));
    m.rebound_damping_factor = 1.5;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "R_df") != NULL, "%s", err.message);
    m.rebound_damping_factor = 0.0;
    m.damping_exponent = 0.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "m_d") != NULL, "%s", err.message);
    m.damping_exponent = 1.0;
    m.indentation_exponent = -1.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "m_i") != NULL, "%s", err.message);
    m.indentation_exponent = 0.0;
    m.max_penetration = 0.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "MAX_PENETRATION") != NULL, "%s", err.message);
    m = mc_default_force_model();
    m.normal_law = MC_NORMAL_DYMORE;
    m.dissipation = -1.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "mu") != NULL, "%s", err.message);
    // stiction needs the Coulomb law's coefficients, not a friction curve
    const double fx[2] = {0.0, 1.0}, fy[2] = {0.3, 0.2};
    mc_curve* fc = NULL;
    cr_assert(eq(int, mc_curve_create(fx, fy, 2, MC_CURVE_LINEAR, &fc, NULL), MC_OK));
    m = mc_default_force_model();
    m.friction = MC_FRICTION_ON;
    m.friction_curve = fc;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_OK));
    m.stiction = true;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    mc_curve_destroy(fc);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}
