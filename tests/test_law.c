// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of law.h: curves (linear, not-a-knot cubic, Akima) against independent oracles (exact reproduction of lines
// and cubics, an independent Akima written from the paper, convergence orders), their refusals, and Adams' IMPACT and
// BISTOP against their definitions evaluated independently, with partial derivatives against central differences.
#include "meshcontact/meshcontact.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Deterministic generator for the random states (xorshift64*): uniform in [lo, hi).
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
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

// ---------------------------------------------------------------------------------------------------------------
// Curves
// ---------------------------------------------------------------------------------------------------------------

Test(law, linear_curve_hand_values_and_extrapolation)
{
    const double x[3] = {0.0, 1.0, 3.0};
    const double y[3] = {1.0, 3.0, 2.0};
    mc_curve* c = NULL;
    cr_assert(eq(int, mc_curve_create(x, y, 3, MC_CURVE_LINEAR, &c, NULL), MC_OK));
    // exact binary fractions: no rounding
    cr_assert(eq(dbl, mc_curve_eval(c, 0.5, 0), 2.0));
    cr_assert(eq(dbl, mc_curve_eval(c, 2.0, 0), 2.5));
    cr_assert(eq(dbl, mc_curve_eval(c, 0.5, 1), 2.0));
    cr_assert(eq(dbl, mc_curve_eval(c, 2.0, 1), -0.5));
    cr_assert(eq(dbl, mc_curve_eval(c, 2.0, 2), 0.0));
    // at a knot the slope of the interval on the right; at the last knot the one on the left
    cr_assert(eq(dbl, mc_curve_eval(c, 1.0, 1), -0.5));
    cr_assert(eq(dbl, mc_curve_eval(c, 3.0, 1), -0.5));
    // linear extrapolation with the end slopes
    cr_assert(eq(dbl, mc_curve_eval(c, -1.0, 0), -1.0));
    cr_assert(eq(dbl, mc_curve_eval(c, 5.0, 0), 1.0));
    cr_assert(eq(dbl, mc_curve_eval(c, 5.0, 1), -0.5));
    cr_assert(eq(dbl, mc_curve_eval(c, -5.0, 2), 0.0));
    cr_assert(eq(int, mc_curve_count(c), 3));
    cr_assert(eq(int, mc_curve_get_method(c), MC_CURVE_LINEAR));
    double xs[3], ys[3];
    cr_assert(eq(int, mc_curve_get_points(c, xs, ys, 3), 3));
    cr_assert(eq(dbl, xs[2], 3.0));
    cr_assert(eq(dbl, ys[1], 3.0));
    cr_assert(isnan(mc_curve_eval(c, NAN, 0)));
    cr_assert(eq(dbl, mc_curve_eval(c, 0.5, 3), 0.0));
    mc_curve_destroy(c);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

static double cubic_poly(const double p[4], double x, int order)
{
    switch (order)
    {
    case 0:
        return p[0] + x * (p[1] + x * (p[2] + x * p[3]));
    case 1:
        return p[1] + x * (2.0 * p[2] + 3.0 * x * p[3]);
    default:
        return 2.0 * p[2] + 6.0 * x * p[3];
    }
}

Test(law, cubic_curve_reproduces_any_cubic)
{
    // Oracle: the not-a-knot spline of a cubic polynomial is the polynomial itself (a natural or clamped spline is
    // not), on any grid, so values and both derivatives must match at random points inside. Tolerance: the slopes come
    // from a tridiagonal solve of O(n) operations on O(1) data: 1e-10 relative to the polynomial's scale (the
    // grids' spacings range over 50:1, which amplifies rounding by at most that ratio).
    for (int trial = 0; trial < 25; ++trial)
    {
        int n = 4 + trial % 9;
        double x[12], y[12], p[4];
        for (int k = 0; k < 4; ++k)
        {
            p[k] = uniform(-2.0, 2.0);
        }
        x[0] = uniform(-1.0, 0.0);
        for (int i = 1; i < n; ++i)
        {
            x[i] = x[i - 1] + uniform(0.02, 1.0);
        }
        for (int i = 0; i < n; ++i)
        {
            y[i] = cubic_poly(p, x[i], 0);
        }
        mc_curve* c = NULL;
        cr_assert(eq(int, mc_curve_create(x, y, n, MC_CURVE_CUBIC, &c, NULL), MC_OK));
        double scale = 0.0;
        for (int i = 0; i < n; ++i)
        {
            scale = fmax(scale, fabs(y[i]));
        }
        for (int s = 0; s < 20; ++s)
        {
            double t = uniform(x[0], x[n - 1]);
            for (int order = 0; order < 3; ++order)
            {
                double want = cubic_poly(p, t, order);
                double got = mc_curve_eval(c, t, order);
                double tol = 1e-10 * (scale + 1.0) * (order == 0 ? 1.0 : order == 1 ? 50.0 : 2500.0);
                cr_assert(fabs(got - want) <= tol, "n %d, t %g, order %d: %.17g vs %.17g", n, t, order, got, want);
            }
        }
        mc_curve_destroy(c);
    }
}

Test(law, cubic_curve_is_c2_and_fourth_order)
{
    // sin sampled on a uniform grid: the error at the midpoints of the intervals shrinks 16-fold per halving of h
    // (O(h^4)); measured ratios lie between 14 and 18 (the end intervals converge at the same order).
    double err[2];
    for (int level = 0; level < 2; ++level)
    {
        int n = level == 0 ? 11 : 21;
        double x[21], y[21];
        for (int i = 0; i < n; ++i)
        {
            x[i] = 2.0 * (double)i / (double)(n - 1);
            y[i] = sin(x[i]);
        }
        mc_curve* c = NULL;
        cr_assert(eq(int, mc_curve_create(x, y, n, MC_CURVE_CUBIC, &c, NULL), MC_OK));
        double e = 0.0;
        for (int i = 0; i + 1 < n; ++i)
        {
            double t = 0.5 * (x[i] + x[i + 1]);
            e = fmax(e, fabs(mc_curve_eval(c, t, 0) - sin(t)));
            // C2 at the knots: the second derivative just left of knot i+1 equals its value there, up to the
            // third derivative's contribution over 1e-9 (|y'''| < 10 on these grids).
            if (i + 2 < n)
            {
                double xl = x[i + 1] - 1e-9;
                cr_assert(fabs(mc_curve_eval(c, xl, 2) - mc_curve_eval(c, x[i + 1], 2)) < 1e-7);
                cr_assert(fabs(mc_curve_eval(c, xl, 1) - mc_curve_eval(c, x[i + 1], 1)) < 1e-7);
            }
        }
        err[level] = e;
        // the knots are interpolated exactly (up to rounding of the Hermite form)
        for (int i = 0; i < n; ++i)
        {
            cr_assert(fabs(mc_curve_eval(c, x[i], 0) - y[i]) < 1e-15);
        }
        mc_curve_destroy(c);
    }
    double ratio = err[0] / err[1];
    cr_assert(ratio > 14.0 && ratio < 18.0, "error ratio %g (errors %g, %g)", ratio, err[0], err[1]);
}

// Akima's slope at point i written straight from the paper (eq. (1) of Akima 1970) with the end extension of section
// 2.3 (the estimated points continue the quadratic through the three end points, which is what continuing the
// differences of the segment slopes gives), independently of the library's code path.
static double akima_oracle_slope(const double* x, const double* y, int n, int i)
{
    // slopes m[-2 .. n] stored at m[j + 2]
    double m[40];
    for (int j = 0; j < n - 1; ++j)
    {
        m[j + 2] = (y[j + 1] - y[j]) / (x[j + 1] - x[j]);
    }
    m[1] = 2.0 * m[2] - m[3];
    m[0] = 2.0 * m[1] - m[2];
    m[n + 1] = 2.0 * m[n] - m[n - 1];
    m[n + 2] = 2.0 * m[n + 1] - m[n];
    double m1 = m[i], m2 = m[i + 1], m3 = m[i + 2], m4 = m[i + 3];
    double a = fabs(m4 - m3), b = fabs(m2 - m1);
    if (a + b == 0.0)
    {
        return (m2 + m3) / 2.0;
    }
    return (a * m2 + b * m3) / (a + b);
}

// Cubic Hermite with the standard basis functions h00, h10, h01, h11 (a different arrangement than the library's).
static double hermite(double x0, double x1, double y0, double y1, double s0, double s1, double t)
{
    double h = x1 - x0, u = (t - x0) / h;
    double h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u;
    double h01 = -2 * u * u * u + 3 * u * u, h11 = u * u * u - u * u;
    return h00 * y0 + h10 * h * s0 + h01 * y1 + h11 * h * s1;
}

Test(law, akima_curve_matches_independent_akima)
{
    // Tolerance 1e-12 relative to the data scale: both sides evaluate the same cubic in different arrangements
    // (a few dozen roundings of O(1) numbers; the 1:50 spacing ratio can amplify them by that much).
    for (int trial = 0; trial < 25; ++trial)
    {
        int n = 4 + trial % 12;
        double x[16], y[16];
        x[0] = uniform(-1.0, 1.0);
        y[0] = uniform(-1.0, 1.0);
        for (int i = 1; i < n; ++i)
        {
            x[i] = x[i - 1] + uniform(0.02, 1.0);
            y[i] = uniform(-1.0, 1.0);
        }
        if (trial % 5 == 0)
        {
            y[2] = y[1]; // flat runs: the a + b = 0 branch
            y[3] = y[1];
        }
        mc_curve* c = NULL;
        cr_assert(eq(int, mc_curve_create(x, y, n, MC_CURVE_AKIMA, &c, NULL), MC_OK));
        for (int s = 0; s < 20; ++s)
        {
            double t = uniform(x[0], x[n - 1]);
            int i = 0;
            while (i < n - 2 && t >= x[i + 1])
            {
                ++i;
            }
            double want = hermite(x[i], x[i + 1], y[i], y[i + 1], akima_oracle_slope(x, y, n, i),
                                  akima_oracle_slope(x, y, n, i + 1), t);
            cr_assert(fabs(mc_curve_eval(c, t, 0) - want) <= 1e-12 * 50.0, "%.17g vs %.17g", mc_curve_eval(c, t, 0),
                      want);
        }
        // the slope at each knot is Akima's
        for (int i = 0; i < n; ++i)
        {
            double want = akima_oracle_slope(x, y, n, i);
            double got = mc_curve_eval(c, x[i], 1);
            cr_assert(fabs(got - want) <= 1e-12 * (fabs(want) + 50.0), "knot %d: %.17g vs %.17g", i, got, want);
        }
        mc_curve_destroy(c);
    }
}

Test(law, akima_keeps_straight_runs_straight)
{
    // Akima's property (his eq. (1)): when the two segments on one side of a point have equal slopes, the point's
    // slope is that one; so a run of collinear points ending in a corner stays a straight line up to the corner.
    // Segments 0, 0, 0, 1, 2, 3: the slopes at points 0..3 are exactly 0 and the curve is exactly 0 on [0, 3].
    const double x[7] = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
    const double y[7] = {0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 6.0};
    mc_curve* c = NULL;
    cr_assert(eq(int, mc_curve_create(x, y, 7, MC_CURVE_AKIMA, &c, NULL), MC_OK));
    for (double t = 0.0; t <= 3.0; t += 0.125)
    {
        cr_assert(eq(dbl, mc_curve_eval(c, t, 0), 0.0), "t %g: %g", t, mc_curve_eval(c, t, 0));
    }
    // the corner interval: slopes 0 and (1 * 1 + 1 * 2) / 2 = 1.5 at its ends, monotone (no overshoot)
    cr_assert(eq(dbl, mc_curve_eval(c, 4.0, 1), 1.5));
    double prev = 0.0;
    for (double t = 3.0; t <= 4.0; t += 0.0625)
    {
        double v = mc_curve_eval(c, t, 0);
        cr_assert(v >= prev && v <= 1.0);
        prev = v;
    }
    mc_curve_destroy(c);
}

Test(law, curve_refuses_bad_points_naming_the_index)
{
    mc_curve* c = NULL;
    mc_error err;
    const double y[5] = {0.0, 1.0, 2.0, 3.0, 4.0};
    const double unsorted[5] = {0.0, 1.0, 3.0, 2.0, 4.0};
    cr_assert(eq(int, mc_curve_create(unsorted, y, 5, MC_CURVE_LINEAR, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "x[3]") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "increasing") != NULL, "%s", err.message);
    const double repeated[5] = {0.0, 1.0, 1.0, 2.0, 4.0};
    cr_assert(eq(int, mc_curve_create(repeated, y, 5, MC_CURVE_AKIMA, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "x[2]") != NULL, "%s", err.message);
    const double good[5] = {0.0, 1.0, 2.0, 3.0, 4.0};
    cr_assert(eq(int, mc_curve_create(good, y, 3, MC_CURVE_CUBIC, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "at least 4") != NULL, "%s", err.message);
    cr_assert(eq(int, mc_curve_create(good, y, 3, MC_CURVE_AKIMA, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_curve_create(good, y, 1, MC_CURVE_LINEAR, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "at least 2") != NULL, "%s", err.message);
    const double nan_y[5] = {0.0, 1.0, 2.0, NAN, 4.0};
    cr_assert(eq(int, mc_curve_create(good, nan_y, 5, MC_CURVE_CUBIC, &c, &err), MC_ERR_NON_FINITE));
    cr_assert(strstr(err.message, "y[3]") != NULL, "%s", err.message);
    const double inf_x[5] = {0.0, 1.0, INFINITY, 3.0, 4.0};
    cr_assert(eq(int, mc_curve_create(inf_x, y, 5, MC_CURVE_LINEAR, &c, &err), MC_ERR_NON_FINITE));
    cr_assert(strstr(err.message, "x[2]") != NULL, "%s", err.message);
    cr_assert(eq(int, mc_curve_create(good, y, 5, (mc_curve_method)7, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_curve_create(NULL, y, 5, MC_CURVE_LINEAR, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_curve_create(good, y, 5, MC_CURVE_LINEAR, NULL, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(c == NULL);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    cr_assert(eq(dbl, mc_curve_eval(NULL, 1.0, 0), 0.0));
    cr_assert(eq(int, mc_curve_count(NULL), 0));
    mc_curve_destroy(NULL);
}

static int fail_after;
static void* failing_alloc(size_t size, size_t alignment)
{
    if (fail_after-- <= 0)
    {
        return NULL;
    }
    void* p = NULL;
    return posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) == 0 ? p : NULL;
}
static void plain_free(void* ptr, size_t size)
{
    (void)size;
    free(ptr);
}

Test(law, curve_creation_survives_allocation_failure)
{
    const double x[5] = {0.0, 1.0, 2.0, 3.0, 4.0};
    const double y[5] = {0.0, 1.0, 0.0, 1.0, 0.0};
    for (int k = 0; k < 3; ++k)
    {
        fail_after = k;
        mc_set_allocator(failing_alloc, plain_free);
        mc_curve* c = NULL;
        mc_status s = mc_curve_create(x, y, 5, MC_CURVE_CUBIC, &c, NULL);
        if (s == MC_OK)
        {
            mc_curve_destroy(c);
        }
        else
        {
            cr_assert(eq(int, s, MC_ERR_OUT_OF_MEMORY));
            cr_assert(c == NULL);
        }
        cr_assert(eq(i64, mc_get_byte_count(), 0));
        mc_set_allocator(NULL, NULL);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Adams IMPACT and BISTOP
// ---------------------------------------------------------------------------------------------------------------

// Adams' STEP written out independently of mc_step_fcn.
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
    double a = h1 - h0, d = (x - x0) / (x1 - x0);
    return h0 + a * d * d * (3.0 - 2.0 * d);
}

static double oracle_impact(double x, double xd, double x1, double k, double e, double cmax, double d)
{
    if (x >= x1)
    {
        return 0.0;
    }
    return fmax(0.0, k * pow(x1 - x, e) - oracle_step(x, x1 - d, cmax, x1, 0.0) * xd);
}

static double oracle_bistop(double x, double xd, double x1, double x2, double k, double e, double cmax, double d)
{
    if (x < x1)
    {
        return fmax(0.0, k * pow(x1 - x, e) - oracle_step(x, x1 - d, cmax, x1, 0.0) * xd);
    }
    if (x <= x2)
    {
        return 0.0;
    }
    return fmin(0.0, -k * pow(x - x2, e) - oracle_step(x, x2, 0.0, x2 + d, cmax) * xd);
}

Test(law, impact_hand_values)
{
    // x1 = 0, x = -1e-3 (penetration 1e-3), k = 1e5, e = 1.5: k delta^e = 3.1622776601683795 (as in
    // test_contact_force); d = 2e-3: STEP(-1e-3, -2e-3, 10, 0, 0) = 5 (half way); xdot = -0.5 -> +2.5. 8 ulps: pow
    // and four operations.
    cr_assert(ieee_ulp_eq(dbl, mc_adams_impact(-1e-3, -0.5, 0.0, 1e5, 1.5, 10.0, 2e-3), 5.6622776601683795, 8));
    cr_assert(eq(dbl, mc_adams_impact(1.0, -0.5, 1.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
    cr_assert(eq(dbl, mc_adams_impact(1.5, -0.5, 1.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
    // separating fast: clamped at zero
    cr_assert(eq(dbl, mc_adams_impact(0.999, 10.0, 1.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
    // BISTOP: the upper stop mirrors the lower one
    cr_assert(ieee_ulp_eq(dbl, mc_adams_bistop(1e-3, 0.5, -1.0, 0.0, 1e5, 1.5, 10.0, 2e-3), -5.6622776601683795, 8));
    cr_assert(eq(dbl, mc_adams_bistop(1.5, 3.0, 1.0, 2.0, 1e5, 1.5, 10.0, 2e-3), 0.0));
}

Test(law, impact_and_bistop_equal_adams_definitions_at_random_states)
{
    // >= 20 random states per law, in every branch (inside the damping ramp, beyond it, clamped, free): 1e-12
    // relative (the same operations up to the arrangement of STEP: a few roundings).
    int clamped = 0, ramp = 0, full = 0, upper = 0;
    for (int s = 0; s < 200; ++s)
    {
        double x1 = uniform(-1.0, 1.0), d = uniform(1e-4, 1e-2);
        double x = x1 - uniform(-0.2 * d, 3.0 * d);
        double xd = uniform(-2.0, 2.0);
        double k = uniform(1e3, 1e7), e = uniform(0.5, 3.0), cmax = uniform(0.0, 1e3);
        double want = oracle_impact(x, xd, x1, k, e, cmax, d);
        double got = mc_adams_impact(x, xd, x1, k, e, cmax, d);
        cr_assert(rel_close(got, want, 1e-12, 1e-300), "state %d: %.17g vs %.17g", s, got, want);
        if (x < x1 && want == 0.0)
        {
            ++clamped;
        }
        else if (x < x1 && x > x1 - d)
        {
            ++ramp;
        }
        else if (x < x1)
        {
            ++full;
        }
        double x2 = x1 + uniform(0.0, 0.5);
        double y = s % 2 == 0 ? x2 + uniform(-0.2 * d, 3.0 * d) : x1 - uniform(-0.2 * d, 3.0 * d);
        double wb = oracle_bistop(y, xd, x1, x2, k, e, cmax, d);
        double gb = mc_adams_bistop(y, xd, x1, x2, k, e, cmax, d);
        cr_assert(rel_close(gb, wb, 1e-12, 1e-300), "bistop state %d: %.17g vs %.17g", s, gb, wb);
        upper += y > x2 && wb < 0.0;
    }
    cr_assert(clamped >= 20 && ramp >= 20 && full >= 20 && upper >= 20, "branches %d %d %d %d", clamped, ramp, full,
              upper);
}

Test(law, impact_matches_penetration_form)
{
    // mc_impact_force(g, gdot, ...) = IMPACT(-g, -gdot, 0, ...): same law, STEP arranged differently (1e-12).
    for (int s = 0; s < 50; ++s)
    {
        double dmax = uniform(1e-4, 1e-2), g = uniform(0.0, 3.0 * dmax), gd = uniform(-1.0, 1.0);
        double k = uniform(1e3, 1e7), e = uniform(1.0, 2.5), c = uniform(0.0, 1e3);
        double a = mc_impact_force(g, gd, k, e, c, dmax);
        double b = mc_adams_impact(-g, -gd, 0.0, k, e, c, dmax);
        cr_assert(rel_close(a, b, 1e-12, 1e-300), "%.17g vs %.17g", a, b);
    }
}

Test(law, partials_match_central_differences)
{
    // Central differences with step h = 1e-6 d (x) and 1e-6 (xdot): truncation O(h^2 f''') and rounding
    // O(eps f / h), both below 1e-6 relative for these smooth states (clamp boundaries avoided by skipping states
    // with the force below 1 % of the spring term).
    int tested = 0;
    for (int s = 0; s < 400 && tested < 40; ++s)
    {
        double x1 = uniform(-1.0, 1.0), d = uniform(1e-3, 1e-2);
        double x = x1 - uniform(0.05 * d, 3.0 * d);
        if (fabs(x - (x1 - d)) < 0.01 * d)
        {
            continue; // STEP's second derivative jumps at x1 - d
        }
        double xd = uniform(-0.5, 0.5), k = uniform(1e4, 1e6), e = uniform(1.1, 2.5), cmax = uniform(0.0, 1e2);
        double f = mc_adams_impact(x, xd, x1, k, e, cmax, d);
        if (!(f > 0.01 * k * pow(x1 - x, e)))
        {
            continue;
        }
        double dfdx, dfdxd;
        double f2 = mc_adams_impact_partials(x, xd, x1, k, e, cmax, d, &dfdx, &dfdxd);
        cr_assert(eq(dbl, f, f2));
        double h = 1e-6 * d;
        double num_x =
            (mc_adams_impact(x + h, xd, x1, k, e, cmax, d) - mc_adams_impact(x - h, xd, x1, k, e, cmax, d)) / (2.0 * h);
        double num_v =
            (mc_adams_impact(x, xd + 1e-6, x1, k, e, cmax, d) - mc_adams_impact(x, xd - 1e-6, x1, k, e, cmax, d)) /
            2e-6;
        cr_assert(rel_close(dfdx, num_x, 1e-6, 1e-9 * fabs(f) / d), "%.17g vs %.17g", dfdx, num_x);
        cr_assert(rel_close(dfdxd, num_v, 1e-6, 1e-9 * fabs(f)), "%.17g vs %.17g", dfdxd, num_v);
        // the upper stop of BISTOP, mirrored: x2 = x1 + 1, position mirrored about x1 + 1/2
        double x2 = x1 + 1.0, y = x2 + (x1 - x);
        double gb = mc_adams_bistop_partials(y, -xd, x1, x2, k, e, cmax, d, &dfdx, &dfdxd);
        cr_assert(rel_close(gb, -f, 1e-12, 1e-300));
        num_x =
            (mc_adams_bistop(y + h, -xd, x1, x2, k, e, cmax, d) - mc_adams_bistop(y - h, -xd, x1, x2, k, e, cmax, d)) /
            (2.0 * h);
        num_v = (mc_adams_bistop(y, -xd + 1e-6, x1, x2, k, e, cmax, d) -
                 mc_adams_bistop(y, -xd - 1e-6, x1, x2, k, e, cmax, d)) /
                2e-6;
        cr_assert(rel_close(dfdx, num_x, 1e-6, 1e-9 * fabs(f) / d), "%.17g vs %.17g", dfdx, num_x);
        cr_assert(rel_close(dfdxd, num_v, 1e-6, 1e-9 * fabs(f)), "%.17g vs %.17g", dfdxd, num_v);
        ++tested;
    }
    cr_assert(tested >= 20, "only %d states", tested);
    // clamped and free states: zero partials
    double dfdx = 1.0, dfdxd = 1.0;
    cr_assert(eq(dbl, mc_adams_impact_partials(2.0, 0.0, 1.0, 1e5, 1.5, 10.0, 1e-3, &dfdx, &dfdxd), 0.0));
    cr_assert(eq(dbl, dfdx, 0.0));
    cr_assert(eq(dbl, dfdxd, 0.0));
    cr_assert(eq(dbl, mc_adams_bistop_partials(1.5, 0.0, 1.0, 2.0, 1e5, 1.5, 10.0, 1e-3, &dfdx, &dfdxd), 0.0));
    cr_assert(eq(dbl, dfdx, 0.0));
}

Test(law, step_derivative_matches_differences)
{
    // 1e-7 relative: central differences with h = 1e-6 of the step width on a cubic (truncation exactly
    // f''' h^2 / 6 = 2 a h^2 relative 1e-12, rounding 1e-10).
    for (int s = 0; s < 30; ++s)
    {
        double x0 = uniform(-1.0, 1.0), w = uniform(0.1, 2.0), h0 = uniform(-5.0, 5.0), h1 = uniform(-5.0, 5.0);
        double x = x0 + uniform(0.01, 0.99) * w, h = 1e-6 * w;
        double num = (mc_step_fcn(x + h, x0, h0, x0 + w, h1) - mc_step_fcn(x - h, x0, h0, x0 + w, h1)) / (2.0 * h);
        double an = mc_step_fcn_derivative(x, x0, h0, x0 + w, h1);
        cr_assert(rel_close(an, num, 1e-7, 1e-8 * fabs(h1 - h0) / w), "%.17g vs %.17g", an, num);
    }
    cr_assert(eq(dbl, mc_step_fcn_derivative(-3.0, 0.0, 1.0, 1.0, 2.0), 0.0));
    cr_assert(eq(dbl, mc_step_fcn_derivative(3.0, 0.0, 1.0, 1.0, 2.0), 0.0));
}
