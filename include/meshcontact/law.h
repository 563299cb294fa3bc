// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Building blocks of contact laws usable without a world: tabulated curves (linear, Adams CUBSPL, Adams AKISPL) and
// Adams' IMPACT and BISTOP functions with Adams' own arguments, with their partial derivatives.
// Based on: MSC Adams/Solver function reference (IMPACT, BISTOP, STEP, CUBSPL, AKISPL); H. Akima, "A new method of
// interpolation and smooth curve fitting based on local procedures", J. ACM 17(4), 1970; C. de Boor, "A Practical
// Guide to Splines" (1978), the not-a-knot cubic spline (his routine CUBSPL).
#pragma once

#include "base.h"

#ifdef __cplusplus
extern "C"
{
#endif

    // ------------------------------------------------------------------------------------------------------------
    // Curves: y(x) through tabulated points
    // ------------------------------------------------------------------------------------------------------------

    /// How a curve passes through its points (the SPLINE statement's interpolation methods in Adams, plus linear).
    typedef enum mc_curve_method
    {
        /// Piecewise linear: straight segments between the points (RecurDyn and DYMORE linear splines). Needs >= 2
        /// points. Exact for data on one straight line; error <= h^2 max|y''| / 8 on a segment of length h.
        MC_CURVE_LINEAR = 0,
        /// Cubic spline with not-a-knot end conditions (Adams CUBSPL; de Boor's CUBSPL): twice continuously
        /// differentiable, exact for any cubic polynomial. Needs >= 4 points. Error O(h^4): for smooth data at most
        /// (5/384) h^4 max|y''''| away from the ends (a little more in the end intervals).
        MC_CURVE_CUBIC = 1,
        /// Akima's local cubic (Adams AKISPL): once continuously differentiable, a point moves only the curve over the
        /// two intervals on each side of it, and no overshoot on flat runs (three collinear points give a straight
        /// segment). Slopes by Akima (1970), with his two extra points at each end (the segment slopes continued
        /// linearly: m[-1] = 2 m[0] - m[1], m[-2] = 2 m[-1] - m[0]). Needs >= 4 points. Exact for data on one straight
        /// line; error O(h^2) for smooth data in general.
        MC_CURVE_AKIMA = 2,
    } mc_curve_method;

    /// A tabulated curve y(x). Immutable once created: one curve may be evaluated by any number of threads at once.
    typedef struct mc_curve mc_curve;

    /// Create a curve through the points (x[i], y[i]), i < count. The arrays are copied (memory through the
    /// allocator hook, mc_set_allocator).
    /// @param x abscissae, strictly increasing, finite
    /// @param y ordinates, finite
    /// @param count number of points: >= 2 for MC_CURVE_LINEAR, >= 4 for MC_CURVE_CUBIC and MC_CURVE_AKIMA
    /// @param method interpolation method
    /// @param out receives the curve on success only (destroy with mc_curve_destroy)
    /// @param err may be NULL; on failure its message names the offending index and value ("x[3] = 0.2 is not
    ///        greater than x[2] = 0.2: abscissae must be strictly increasing"), the count and what the method needs,
    ///        or the unknown method
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL pointer, unsorted or repeated abscissa, too few points, unknown
    ///         method), MC_ERR_NON_FINITE (NaN or infinity in x or y) or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_curve_create(const double* x, const double* y, int count, mc_curve_method method,
                                     mc_curve** out, mc_error* err);

    /// Destroy a curve; NULL is ignored. A contact model that refers to the curve must be destroyed first.
    MC_API void mc_curve_destroy(mc_curve* curve);

    /// Evaluate a curve or one of its derivatives (Adams' iord).
    /// Inside [x[0], x[count-1]] the interpolant of the method. Outside, linear extrapolation from the end point with
    /// the end slope: y(x) = y_end + y'_end (x - x_end), so order 1 gives y'_end and order 2 gives 0 there. The value
    /// and the slope are continuous at the ends (the second derivative jumps to 0 there).
    /// At a knot, order 2 of a cubic and order 1 and 2 of a linear curve take the interval on the right (the last
    /// knot the interval on its left).
    /// @param curve a curve (NULL gives 0)
    /// @param x abscissa (NaN gives NaN)
    /// @param order 0: y, 1: dy/dx, 2: d2y/dx2; any other value gives 0
    /// @return the value
    MC_API double mc_curve_eval(const mc_curve* curve, double x, int order);

    /// @return the number of points of the curve (0 for NULL).
    MC_API int mc_curve_count(const mc_curve* curve);

    /// @return the curve's method (MC_CURVE_LINEAR for NULL).
    MC_API mc_curve_method mc_curve_get_method(const mc_curve* curve);

    /// Copy a curve's points into caller arrays (either may be NULL).
    /// @param capacity entries available in x and y
    /// @return the number of points (all are copied when capacity >= it; otherwise the first `capacity`)
    MC_API int mc_curve_get_points(const mc_curve* curve, double* x, double* y, int capacity);

    // ------------------------------------------------------------------------------------------------------------
    // Adams' IMPACT and BISTOP (function expressions, with Adams' arguments)
    // ------------------------------------------------------------------------------------------------------------

    /// Adams IMPACT(x, x', x1, k, e, cmax, d): a one-sided collision force that turns on when the distance x falls
    /// below the free length x1 (Adams/Solver function reference, IMPACT):
    ///
    ///     IMPACT = max(0, k (x1 - x)^e - STEP(x, x1 - d, cmax, x1, 0) x')    for x < x1
    ///            = 0                                                          for x >= x1
    ///
    /// STEP is Adams' cubic STEP (mc_step_fcn in world.h): the damping coefficient rises from 0 at the free length to
    /// cmax at the penetration d. The penetration-form law of a contact, mc_impact_force(g, gdot, k, e, c, dmax), is
    /// IMPACT(-g, -gdot, 0, k, e, c, dmax) (the same law; the two differ by rounding only).
    /// @param x distance (length), @param xdot its time derivative (length / s; negative while approaching)
    /// @param x1 free length (length), @param k stiffness (>= 0, force / length^e), @param e exponent (> 0)
    /// @param cmax maximum damping coefficient (>= 0, force s / length), @param d penetration of full damping (> 0)
    /// @return the force (>= 0)
    MC_API double mc_adams_impact(double x, double xdot, double x1, double k, double e, double cmax, double d);

    /// IMPACT and its partial derivatives dF/dx and dF/dx' (for Jacobians). Where the max(0, .) clamps, and for
    /// x >= x1, both are 0 (for e < 1, dF/dx is unbounded as x -> x1 from below).
    /// @param dfdx, dfdxdot out, may be NULL
    /// @return IMPACT(x, x', x1, k, e, cmax, d)
    MC_API double mc_adams_impact_partials(double x, double xdot, double x1, double k, double e, double cmax, double d,
                                           double* dfdx, double* dfdxdot);

    /// Adams BISTOP(x, x', x1, x2, k, e, cmax, d): a gap element, free between x1 and x2, an IMPACT-like force at
    /// either end (Adams/Solver function reference, BISTOP):
    ///
    ///     BISTOP = max(0, k (x1 - x)^e - STEP(x, x1 - d, cmax, x1, 0) x')    for x < x1
    ///            = 0                                                          for x1 <= x <= x2
    ///            = min(0, -k (x - x2)^e - STEP(x, x2, 0, x2 + d, cmax) x')   for x > x2
    ///
    /// @param x1 lower bound, @param x2 upper bound (x1 < x2; with x1 >= x2 the result is 0)
    /// Other parameters as mc_adams_impact. @return the force: >= 0 below x1, <= 0 above x2
    MC_API double mc_adams_bistop(double x, double xdot, double x1, double x2, double k, double e, double cmax,
                                  double d);

    /// BISTOP and its partial derivatives dF/dx and dF/dx' (0 where a clamp or the free gap holds).
    /// @param dfdx, dfdxdot out, may be NULL
    /// @return BISTOP(x, x', x1, x2, k, e, cmax, d)
    MC_API double mc_adams_bistop_partials(double x, double xdot, double x1, double x2, double k, double e, double cmax,
                                           double d, double* dfdx, double* dfdxdot);

    /// Derivative of Adams' cubic STEP(x, x0, h0, x1, h1) with respect to x: 6 (h1 - h0) D (1 - D) / (x1 - x0) with
    /// D = (x - x0) / (x1 - x0) inside (x0, x1), 0 outside (and 0 when x0 >= x1).
    MC_API double mc_step_fcn_derivative(double x, double x0, double h0, double x1, double h1);

#ifdef __cplusplus
}
#endif
