// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// An example contact routine library (meshcontact/routine.h): Adams IMPACT as a user normal routine, written with the
// same operations in the same order as the library's mc_impact_force (so a scenario using it reproduces the built-in
// IMPACT law bit for bit), and a Coulomb friction routine with a constant coefficient. Built by Meson as a shared
// module (tests/meson.build) and named from scenarios with NORMAL_ROUTINE=<module>::mc_example_impact.
#include "meshcontact/routine.h"

#include <math.h>

#if defined(_WIN32)
#define EXAMPLE_EXPORT __declspec(dllexport)
#else
#define EXAMPLE_EXPORT __attribute__((visibility("default")))
#endif

// Adams' cubic STEP, as mc_step_fcn computes it.
static double step(double x, double x0, double h0, double x1, double h1)
{
    if (!(x0 < x1))
    {
        return x >= x1 ? h1 : h0;
    }
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

/// USER() takes exactly 4 values: a scenario giving another count is refused when it is read (routine.h).
EXAMPLE_EXPORT extern const int mc_example_impact_parameter_count;
EXAMPLE_EXPORT const int mc_example_impact_parameter_count = 4;

/// USER(k, e, c, dmax): Fn = max(0, k g^e + STEP(g, 0, 0, dmax, c) gdot), 0 when g <= 0.
EXAMPLE_EXPORT double mc_example_impact(const mc_contact_kinematics* kin, const double* par, int npar);
EXAMPLE_EXPORT double mc_example_impact(const mc_contact_kinematics* kin, const double* par, int npar)
{
    if (npar != 4 || !(kin->depth > 0.0))
    {
        return 0.0;
    }
    double c = step(kin->depth, 0.0, 0.0, par[3], par[2]);
    double f = par[0] * pow(kin->depth, par[1]) + c * kin->rate;
    return f > 0.0 ? f : 0.0;
}

/// USER(mu): friction force -mu Fn v_s / |v_s| (zero without slip), no torque.
EXAMPLE_EXPORT void mc_example_coulomb(const mc_contact_kinematics* kin, double normal_force, const double* par,
                                       int npar, mc_vec3* friction_force, mc_vec3* friction_torque);
EXAMPLE_EXPORT void mc_example_coulomb(const mc_contact_kinematics* kin, double normal_force, const double* par,
                                       int npar, mc_vec3* friction_force, mc_vec3* friction_torque)
{
    (void)friction_torque;
    double v = mc_length(kin->slip_velocity);
    if (npar < 1 || !(v > 0.0))
    {
        return;
    }
    *friction_force = mc_scale(kin->slip_velocity, -par[0] * normal_force / v);
}
