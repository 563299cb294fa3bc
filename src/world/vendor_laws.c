// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// RecurDyn's standard contact force and DYMORE's contact force (with curves), their partial derivatives, the friction
// law of a model with a friction curve, and the checks of these parameters.
// Based on: FunctionBay RecurDyn/Solver contact force (K, m_s, C, m_d, m_i, boundary penetration, rebound damping
// factor, maximum penetration, splines); DYMORE user's manual, contact models (Hertz k a^(3/2), nonlinear spring,
// dissipation proportional to the elastic force); K. H. Hunt and F. R. E. Crossley, "Coefficient of restitution
// interpreted as damping in vibroimpact", J. Appl. Mech. 42(2), 1975.
#include "src/base/core.h"
#include "src/world/contact_force.h"

#include <math.h>
#include <stdbool.h>

static void set2(double* a, double va, double* b, double vb)
{
    if (a != NULL)
    {
        *a = va;
    }
    if (b != NULL)
    {
        *b = vb;
    }
}

// Elastic force and its slope: stiffness_curve(g) or k g^e.
static double elastic(const mc_force_model* m, double g, double* slope)
{
    if (m->stiffness_curve != NULL)
    {
        *slope = mc_curve_eval(m->stiffness_curve, g, 1);
        return mc_curve_eval(m->stiffness_curve, g, 0);
    }
    *slope = m->stiffness * m->exponent * pow(g, m->exponent - 1.0);
    return m->stiffness * pow(g, m->exponent);
}

double mc_recurdyn_force(const mc_force_model* m, double g, double gdot, double* dfdg, double* dfdrate)
{
    set2(dfdg, 0.0, dfdrate, 0.0);
    if (m == NULL || !(g > 0.0) || g > m->max_penetration)
    {
        return 0.0;
    }
    double dfs = 0.0;
    double fs = elastic(m, g, &dfs);
    // velocity term v(gdot) = C sign(gdot) |gdot|^m_d, or the damping curve
    double vel = 0.0, dvel = 0.0;
    if (m->damping_curve != NULL)
    {
        vel = mc_curve_eval(m->damping_curve, gdot, 0);
        dvel = mc_curve_eval(m->damping_curve, gdot, 1);
    }
    else if (gdot != 0.0)
    {
        double a = fabs(gdot);
        double p = pow(a, m->damping_exponent);
        vel = gdot > 0.0 ? m->damping * p : -m->damping * p;
        dvel = m->damping * m->damping_exponent * p / a; // d(sign |x|^md)/dx = md |x|^(md-1)
    }
    // indentation factor g^m_i and the boundary ramp
    double ind = m->indentation_exponent != 0.0 ? pow(g, m->indentation_exponent) : 1.0;
    double dind = m->indentation_exponent != 0.0 ? m->indentation_exponent * ind / g : 0.0;
    double ramp = mc_step_fcn(g, 0.0, 0.0, m->dmax, 1.0);
    double dramp = mc_step_fcn_derivative(g, 0.0, 0.0, m->dmax, 1.0);
    double fd = vel * ind * ramp;
    double f = fs + fd;
    double floor_f = m->rebound_damping_factor * fs;
    if (f > floor_f && f > 0.0)
    {
        set2(dfdg, dfs + vel * (dind * ramp + ind * dramp), dfdrate, dvel * ind * ramp);
        return f;
    }
    if (floor_f > 0.0)
    {
        set2(dfdg, m->rebound_damping_factor * dfs, dfdrate, 0.0);
        return floor_f;
    }
    return 0.0;
}

double mc_dymore_force(const mc_force_model* m, double g, double gdot, double* dfdg, double* dfdrate)
{
    set2(dfdg, 0.0, dfdrate, 0.0);
    if (m == NULL || !(g > 0.0) || g > m->max_penetration)
    {
        return 0.0;
    }
    double del = 0.0;
    double fel = elastic(m, g, &del);
    double factor = 1.0 + m->dissipation * gdot;
    double f = fel * factor;
    if (!(f > 0.0))
    {
        return 0.0;
    }
    set2(dfdg, del * factor, dfdrate, fel * m->dissipation);
    return f;
}

double mc_model_friction(const mc_force_model* m, double v, double* slope)
{
    if (m->friction_curve != NULL)
    {
        if (slope != NULL)
        {
            *slope = mc_curve_eval(m->friction_curve, v, 1);
        }
        return mc_curve_eval(m->friction_curve, v, 0);
    }
    if (slope != NULL)
    {
        double ramp = mc_step_fcn(v, -m->stiction_velocity, -1.0, m->stiction_velocity, 1.0);
        double dramp = mc_step_fcn_derivative(v, -m->stiction_velocity, -1.0, m->stiction_velocity, 1.0);
        double mu = mc_step_fcn(v, m->stiction_velocity, m->mu_static, m->friction_velocity, m->mu_dynamic);
        double dmu = mc_step_fcn_derivative(v, m->stiction_velocity, m->mu_static, m->friction_velocity, m->mu_dynamic);
        *slope = dramp * mu + ramp * dmu;
    }
    return mc_friction_coefficient(v, m->mu_static, m->mu_dynamic, m->stiction_velocity, m->friction_velocity);
}

static mc_status bad(mc_error* err, const char* name, double value, const char* range)
{
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s = %.15g is out of range: must be %s", name, value,
                        range);
}

static bool finite_nonneg(double v)
{
    return v >= 0.0 && isfinite(v);
}

mc_status mc_vendor_law_check(const mc_force_model* m, mc_error* err)
{
    bool recurdyn = m->normal_law == MC_NORMAL_RECURDYN;
    if (m->stiffness_curve == NULL)
    {
        if (!finite_nonneg(m->stiffness))
        {
            return bad(err, recurdyn ? "STIFFNESS (K)" : "STIFFNESS (k)", m->stiffness, "finite and >= 0");
        }
        if (!(m->exponent > 0.0) || !isfinite(m->exponent))
        {
            return bad(err, recurdyn ? "STIFFNESS_EXPONENT (m_s)" : "EXPONENT", m->exponent, "finite and > 0");
        }
    }
    if (!(m->max_penetration > 0.0))
    {
        return bad(err, "MAX_PENETRATION", m->max_penetration, "> 0 (infinity: none)");
    }
    if (!recurdyn)
    {
        return finite_nonneg(m->dissipation) ? MC_OK : bad(err, "DISSIPATION (mu)", m->dissipation, "finite and >= 0");
    }
    if (m->damping_curve == NULL)
    {
        if (!finite_nonneg(m->damping))
        {
            return bad(err, "DAMPING (C)", m->damping, "finite and >= 0");
        }
        if (!(m->damping_exponent > 0.0) || !isfinite(m->damping_exponent))
        {
            return bad(err, "DAMPING_EXPONENT (m_d)", m->damping_exponent, "finite and > 0");
        }
    }
    if (!finite_nonneg(m->indentation_exponent))
    {
        return bad(err, "INDENTATION_EXPONENT (m_i)", m->indentation_exponent, "finite and >= 0");
    }
    if (!(m->dmax > 0.0) || !isfinite(m->dmax))
    {
        return bad(err, "BOUNDARY_PENETRATION", m->dmax, "finite and > 0");
    }
    if (!(m->rebound_damping_factor >= 0.0 && m->rebound_damping_factor <= 1.0))
    {
        return bad(err, "REBOUND_DAMPING_FACTOR (R_df)", m->rebound_damping_factor, "between 0 and 1");
    }
    return MC_OK;
}
