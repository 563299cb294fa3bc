// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tabulated curves y(x): piecewise linear, not-a-knot cubic spline (Adams CUBSPL), Akima's spline (Adams AKISPL).
// Based on: C. de Boor, "A Practical Guide to Splines" (1978), the not-a-knot cubic in slope form; H. Akima, "A new
// method of interpolation and smooth curve fitting based on local procedures", J. ACM 17(4), 589-602, 1970.
#include "meshcontact/law.h"
#include "src/base/core.h"

#include <math.h>
#include <string.h>

// Every method is stored as a cubic Hermite interpolant: the points and a slope per point (for the linear method the
// slopes are unused). One layout, one evaluation, no per-method state.
struct mc_curve
{
    mc_curve_method method;
    int count;
    double* x;     // count abscissae, strictly increasing
    double* y;     // count ordinates
    double* slope; // count slopes dy/dx at the points (cubic and Akima)
};

static int min_points(mc_curve_method method)
{
    return method == MC_CURVE_LINEAR ? 2 : 4;
}

static const char* method_name(mc_curve_method method)
{
    switch (method)
    {
    case MC_CURVE_LINEAR:
        return "linear";
    case MC_CURVE_CUBIC:
        return "cubic (CUBSPL)";
    case MC_CURVE_AKIMA:
        return "Akima (AKISPL)";
    }
    return "unknown";
}

static mc_status check_points(const double* x, const double* y, int count, mc_curve_method method, mc_error* err)
{
    if (method != MC_CURVE_LINEAR && method != MC_CURVE_CUBIC && method != MC_CURVE_AKIMA)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "curve: unknown interpolation method %d",
                            (int)method);
    }
    if (count < min_points(method))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "curve: %d point%s, the %s method needs at least %d",
                            count, count == 1 ? "" : "s", method_name(method), min_points(method));
    }
    if (x == NULL || y == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "curve: the x or y array is NULL");
    }
    for (int i = 0; i < count; ++i)
    {
        if (!isfinite(x[i]))
        {
            return mc_set_error(err, MC_ERR_NON_FINITE, -1, -1, "curve: x[%d] = %g is not finite", i, x[i]);
        }
        if (!isfinite(y[i]))
        {
            return mc_set_error(err, MC_ERR_NON_FINITE, -1, -1, "curve: y[%d] = %g is not finite", i, y[i]);
        }
        if (i > 0 && !(x[i] > x[i - 1]))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "curve: x[%d] = %.17g is not greater than x[%d] = %.17g: abscissae must be strictly "
                                "increasing",
                                i, x[i], i - 1, x[i - 1]);
        }
    }
    return MC_OK;
}

// Not-a-knot cubic spline, slope form (the third derivative is continuous at x[1] and x[n-2]). Interior rows:
//   h[i] s[i-1] + 2 (h[i-1] + h[i]) s[i] + h[i-1] s[i+1] = 3 (h[i] m[i-1] + h[i-1] m[i])
// with h[i] = x[i+1] - x[i] and m[i] = (y[i+1] - y[i]) / h[i]; the end rows, reduced to two unknowns each with the
// not-a-knot condition, keep the system tridiagonal (solved by the Thomas algorithm: the matrix is diagonally
// dominant for n >= 4). `work` holds 3 n doubles.
static void cubic_slopes(int n, const double* x, const double* y, double* s, double* work)
{
    double* lower = work;
    double* diag = work + n;
    double* upper = work + 2 * n;
    double h0 = x[1] - x[0], h1 = x[2] - x[1];
    double m0 = (y[1] - y[0]) / h0, m1 = (y[2] - y[1]) / h1;
    diag[0] = h1;
    upper[0] = h0 + h1;
    s[0] = ((h0 + 2.0 * (h0 + h1)) * h1 * m0 + h0 * h0 * m1) / (h0 + h1);
    lower[0] = 0.0;
    for (int i = 1; i < n - 1; ++i)
    {
        double hl = x[i] - x[i - 1], hr = x[i + 1] - x[i];
        double ml = (y[i] - y[i - 1]) / hl, mr = (y[i + 1] - y[i]) / hr;
        lower[i] = hr;
        diag[i] = 2.0 * (hl + hr);
        upper[i] = hl;
        s[i] = 3.0 * (hr * ml + hl * mr);
    }
    double ha = x[n - 2] - x[n - 3], hb = x[n - 1] - x[n - 2];
    double ma = (y[n - 2] - y[n - 3]) / ha, mb = (y[n - 1] - y[n - 2]) / hb;
    lower[n - 1] = ha + hb;
    diag[n - 1] = ha;
    upper[n - 1] = 0.0;
    s[n - 1] = (hb * hb * ma + (2.0 * (ha + hb) + hb) * ha * mb) / (ha + hb);
    // Thomas algorithm: forward elimination, back substitution.
    for (int i = 1; i < n; ++i)
    {
        double w = lower[i] / diag[i - 1];
        diag[i] -= w * upper[i - 1];
        s[i] -= w * s[i - 1];
    }
    s[n - 1] /= diag[n - 1];
    for (int i = n - 2; i >= 0; --i)
    {
        s[i] = (s[i] - upper[i] * s[i + 1]) / diag[i];
    }
}

// Segment slope of Akima's extended sequence: index j in [-2, n+1) of the n - 1 segments plus two on each side,
// continued linearly (Akima 1970, eq. for the end points: the differences of the slopes are kept constant).
static double akima_segment(int n, const double* x, const double* y, int j)
{
    int last = n - 2; // index of the last real segment
    if (j >= 0 && j <= last)
    {
        return (y[j + 1] - y[j]) / (x[j + 1] - x[j]);
    }
    if (j < 0)
    {
        double m0 = akima_segment(n, x, y, 0), m1 = akima_segment(n, x, y, 1);
        return m0 + (double)(-j) * (m0 - m1); // m[-1] = 2 m0 - m1, m[-2] = 3 m0 - 2 m1
    }
    double ml = akima_segment(n, x, y, last), mp = akima_segment(n, x, y, last - 1);
    return ml + (double)(j - last) * (ml - mp);
}

static void akima_slopes(int n, const double* x, const double* y, double* s)
{
    for (int i = 0; i < n; ++i)
    {
        // slope at point i from the segments i-2, i-1 (left) and i, i+1 (right)
        double m_a = akima_segment(n, x, y, i - 2), m_b = akima_segment(n, x, y, i - 1);
        double m_c = akima_segment(n, x, y, i), m_d = akima_segment(n, x, y, i + 1);
        double w_left = fabs(m_d - m_c), w_right = fabs(m_b - m_a);
        s[i] = w_left + w_right > 0.0 ? (w_left * m_b + w_right * m_c) / (w_left + w_right) : 0.5 * (m_b + m_c);
    }
}

mc_status mc_curve_create(const double* x, const double* y, int count, mc_curve_method method, mc_curve** out,
                          mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "curve: out is NULL");
    }
    mc_status status = check_points(x, y, count, method, err);
    if (status != MC_OK)
    {
        return status;
    }
    size_t n = (size_t)count;
    mc_curve* c = mc_calloc(1, sizeof *c);
    double* data = mc_alloc_array(3 * n, sizeof(double)); // x, y, slope
    double* work = method == MC_CURVE_CUBIC ? mc_alloc_array(3 * n, sizeof(double)) : NULL;
    if (c == NULL || data == NULL || (method == MC_CURVE_CUBIC && work == NULL))
    {
        mc_free(c);
        mc_free(data);
        mc_free(work);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "curve: out of memory (%d points)", count);
    }
    c->method = method;
    c->count = count;
    c->x = data;
    c->y = data + n;
    c->slope = data + 2 * n;
    memcpy(c->x, x, n * sizeof(double));
    memcpy(c->y, y, n * sizeof(double));
    switch (method)
    {
    case MC_CURVE_LINEAR:
        memset(c->slope, 0, n * sizeof(double)); // unused: the linear evaluation takes segment slopes
        break;
    case MC_CURVE_CUBIC:
        cubic_slopes(count, c->x, c->y, c->slope, work);
        break;
    case MC_CURVE_AKIMA:
        akima_slopes(count, c->x, c->y, c->slope);
        break;
    }
    mc_free(work);
    *out = c;
    return MC_OK;
}

void mc_curve_destroy(mc_curve* curve)
{
    if (curve == NULL)
    {
        return;
    }
    mc_free(curve->x);
    mc_free(curve);
}

int mc_curve_count(const mc_curve* curve)
{
    return curve != NULL ? curve->count : 0;
}

mc_curve_method mc_curve_get_method(const mc_curve* curve)
{
    return curve != NULL ? curve->method : MC_CURVE_LINEAR;
}

int mc_curve_get_points(const mc_curve* curve, double* x, double* y, int capacity)
{
    if (curve == NULL)
    {
        return 0;
    }
    int k = capacity < curve->count ? (capacity > 0 ? capacity : 0) : curve->count;
    if (x != NULL && k > 0)
    {
        memcpy(x, curve->x, (size_t)k * sizeof(double));
    }
    if (y != NULL && k > 0)
    {
        memcpy(y, curve->y, (size_t)k * sizeof(double));
    }
    return curve->count;
}

// Interval i with x[i] <= t < x[i+1] (the last interval for t = x[n-1]); t inside [x[0], x[n-1]].
static int find_interval(const mc_curve* c, double t)
{
    int lo = 0, hi = c->count - 1; // invariant: x[lo] <= t, and t < x[hi] or hi = n - 1
    while (hi - lo > 1)
    {
        int mid = lo + (hi - lo) / 2;
        if (c->x[mid] <= t)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return lo;
}

// Value or derivative of the interpolant on interval i at t (t may lie at the interval's ends).
static double eval_interval(const mc_curve* c, int i, double t, int order)
{
    double h = c->x[i + 1] - c->x[i];
    double y0 = c->y[i], y1 = c->y[i + 1];
    double m = (y1 - y0) / h;
    if (c->method == MC_CURVE_LINEAR)
    {
        return order == 0 ? y0 + m * (t - c->x[i]) : order == 1 ? m : 0.0;
    }
    // Cubic Hermite in the local coordinate u = t - x[i]: y = y0 + s0 u + a u^2 + b u^3.
    double s0 = c->slope[i], s1 = c->slope[i + 1];
    double a = (3.0 * m - 2.0 * s0 - s1) / h;
    double b = (s0 + s1 - 2.0 * m) / (h * h);
    double u = t - c->x[i];
    switch (order)
    {
    case 0:
        return y0 + u * (s0 + u * (a + u * b));
    case 1:
        return s0 + u * (2.0 * a + 3.0 * b * u);
    default:
        return 2.0 * a + 6.0 * b * u;
    }
}

double mc_curve_eval(const mc_curve* curve, double x, int order)
{
    if (curve == NULL || order < 0 || order > 2)
    {
        return 0.0;
    }
    if (isnan(x))
    {
        return x;
    }
    const mc_curve* c = curve;
    int n = c->count;
    if (x < c->x[0] || x > c->x[n - 1])
    {
        // Linear extrapolation with the end value and the end slope of the interpolant.
        int left = x < c->x[0];
        int i = left ? 0 : n - 2;
        double xe = left ? c->x[0] : c->x[n - 1];
        double ye = left ? c->y[0] : c->y[n - 1];
        double se = eval_interval(c, i, xe, 1);
        return order == 0 ? ye + se * (x - xe) : order == 1 ? se : 0.0;
    }
    int i = find_interval(c, x);
    if (i > n - 2)
    {
        i = n - 2;
    }
    return eval_interval(c, i, x, order);
}
