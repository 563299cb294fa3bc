// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Adams' IMPACT and BISTOP functions with Adams' arguments (x, x', x1, ...), their partial derivatives, STEP's slope.
// Based on: MSC Adams/Solver function reference (IMPACT, BISTOP, STEP).
#include "meshcontact/law.h"
#include "meshcontact/world.h"

#include <math.h>

double mc_step_fcn_derivative(double x, double x0, double h0, double x1, double h1)
{
    if (!(x0 < x1) || x <= x0 || x >= x1)
    {
        return 0.0;
    }
    double w = x1 - x0;
    double d = (x - x0) / w;
    return (h1 - h0) * 6.0 * d * (1.0 - d) / w;
}

// One-sided stop: delta = penetration (> 0), the damping coefficient c and its slope dc/dx, force f = sign (k delta^e)
// - c xdot clamped to the side's sign. Shared by IMPACT (sign +1, below x1) and BISTOP's upper stop (sign -1).
static double stop_force(double delta, double ddelta_dx, double sign, double xdot, double k, double e, double c,
                         double dc_dx, double* dfdx, double* dfdxdot)
{
    double spring = k * pow(delta, e);
    double f = sign * spring - c * xdot;
    if (!(sign * f > 0.0))
    {
        if (dfdx != NULL)
        {
            *dfdx = 0.0;
        }
        if (dfdxdot != NULL)
        {
            *dfdxdot = 0.0;
        }
        return 0.0;
    }
    if (dfdx != NULL)
    {
        // d(delta^e)/dx = e delta^(e-1) ddelta/dx
        double dspring = k * e * pow(delta, e - 1.0) * ddelta_dx;
        *dfdx = sign * dspring - dc_dx * xdot;
    }
    if (dfdxdot != NULL)
    {
        *dfdxdot = -c;
    }
    return f;
}

static void zero_partials(double* dfdx, double* dfdxdot)
{
    if (dfdx != NULL)
    {
        *dfdx = 0.0;
    }
    if (dfdxdot != NULL)
    {
        *dfdxdot = 0.0;
    }
}

double mc_adams_impact_partials(double x, double xdot, double x1, double k, double e, double cmax, double d,
                                double* dfdx, double* dfdxdot)
{
    if (!(x < x1))
    {
        zero_partials(dfdx, dfdxdot);
        return 0.0;
    }
    double c = mc_step_fcn(x, x1 - d, cmax, x1, 0.0);
    double dc = mc_step_fcn_derivative(x, x1 - d, cmax, x1, 0.0);
    return stop_force(x1 - x, -1.0, 1.0, xdot, k, e, c, dc, dfdx, dfdxdot);
}

double mc_adams_impact(double x, double xdot, double x1, double k, double e, double cmax, double d)
{
    return mc_adams_impact_partials(x, xdot, x1, k, e, cmax, d, NULL, NULL);
}

double mc_adams_bistop_partials(double x, double xdot, double x1, double x2, double k, double e, double cmax, double d,
                                double* dfdx, double* dfdxdot)
{
    if (!(x1 < x2) || !(x < x1 || x > x2))
    {
        zero_partials(dfdx, dfdxdot);
        return 0.0;
    }
    if (x < x1)
    {
        return mc_adams_impact_partials(x, xdot, x1, k, e, cmax, d, dfdx, dfdxdot);
    }
    double c = mc_step_fcn(x, x2, 0.0, x2 + d, cmax);
    double dc = mc_step_fcn_derivative(x, x2, 0.0, x2 + d, cmax);
    return stop_force(x - x2, 1.0, -1.0, xdot, k, e, c, dc, dfdx, dfdxdot);
}

double mc_adams_bistop(double x, double xdot, double x1, double x2, double k, double e, double cmax, double d)
{
    return mc_adams_bistop_partials(x, xdot, x1, x2, k, e, cmax, d, NULL, NULL);
}
