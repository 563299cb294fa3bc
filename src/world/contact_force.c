// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact force laws per region: STEP, IMPACT, POISSON, Coulomb friction and friction torque, Adams validity rule.
// Based on: MSC Adams/Solver documentation of the CONTACT statement and the IMPACT and STEP functions.
#include "src/world/contact_force.h"

#include "src/base/core.h"

#include <math.h>
#include <string.h>

#define FORCE_MODEL_COOKIE ((int)MC_DEF_COOKIE)

double mc_step_fcn(double x, double x0, double h0, double x1, double h1)
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

double mc_impact_force(double depth, double rate, double stiffness, double exponent, double damping, double dmax)
{
    if (!(depth > 0.0))
    {
        return 0.0;
    }
    double c = mc_step_fcn(depth, 0.0, 0.0, dmax, damping);
    double f = stiffness * pow(depth, exponent) + c * rate;
    return f > 0.0 ? f : 0.0;
}

double mc_poisson_force(double depth, double rate, double penalty, double restitution, double transition_velocity)
{
    if (!(depth > 0.0))
    {
        return 0.0;
    }
    double factor = mc_step_fcn(rate, -transition_velocity, restitution * restitution, transition_velocity, 1.0);
    double f = penalty * depth * factor;
    return f > 0.0 ? f : 0.0;
}

double mc_friction_coefficient(double slip_speed, double mu_static, double mu_dynamic, double stiction_velocity,
                               double friction_velocity)
{
    double v = fabs(slip_speed);
    double ramp = mc_step_fcn(v, -stiction_velocity, -1.0, stiction_velocity, 1.0);
    double mu = ramp * mc_step_fcn(v, stiction_velocity, mu_static, friction_velocity, mu_dynamic);
    return slip_speed < 0.0 ? -mu : mu;
}

mc_force_model mc_default_force_model(void)
{
    mc_force_model m = {0};
    m.normal_law = MC_NORMAL_IMPACT;
    m.stiffness = 1e5;
    m.exponent = 1.5;
    m.damping = 0.0;
    m.dmax = 1e-4;
    m.penalty = 1e5;
    m.restitution = 1.0;
    m.normal_transition_velocity = 1e-3;
    m.friction = MC_FRICTION_OFF;
    m.mu_static = 0.3;
    m.mu_dynamic = 0.1;
    m.stiction_velocity = 0.1;
    m.friction_velocity = 1.0;
    m.stiction = false;
    m.max_stiction_deformation = 1e-4;
    m.damping_exponent = 1.0;
    m.indentation_exponent = 0.0;
    m.rebound_damping_factor = 0.0;
    m.max_penetration = INFINITY;
    m.dissipation = 0.0;
    m.internal_value = FORCE_MODEL_COOKIE;
    return m;
}

static mc_status bad(mc_error* err, const char* name, double value, const char* range)
{
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s = %.15g is out of range: must be %s", name, value,
                        range);
}

mc_status mc_force_model_check(const mc_force_model* m, mc_error* err)
{
    if (m == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "force model is NULL");
    }
    if (m->internal_value != FORCE_MODEL_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "force model was not initialised with mc_default_force_model()");
    }
    switch (m->normal_law)
    {
    case MC_NORMAL_IMPACT:
        if (!(m->stiffness >= 0.0) || !isfinite(m->stiffness))
        {
            return bad(err, "STIFFNESS", m->stiffness, "finite and >= 0");
        }
        if (!(m->exponent > 0.0) || !isfinite(m->exponent))
        {
            return bad(err, "EXPONENT", m->exponent, "finite and > 0");
        }
        if (!(m->damping >= 0.0) || !isfinite(m->damping))
        {
            return bad(err, "DAMPING", m->damping, "finite and >= 0");
        }
        if (!(m->dmax > 0.0) || !isfinite(m->dmax))
        {
            return bad(err, "DMAX", m->dmax, "finite and > 0");
        }
        break;
    case MC_NORMAL_POISSON:
        if (!(m->penalty > 0.0) || !isfinite(m->penalty))
        {
            return bad(err, "PENALTY", m->penalty, "finite and > 0");
        }
        if (!(m->restitution >= 0.0 && m->restitution <= 1.0))
        {
            return bad(err, "RESTITUTION_COEFFICIENT", m->restitution, "between 0 and 1");
        }
        if (!(m->normal_transition_velocity > 0.0) || !isfinite(m->normal_transition_velocity))
        {
            return bad(err, "NORMAL_TRANSITION_VELOCITY", m->normal_transition_velocity, "finite and > 0");
        }
        break;
    case MC_NORMAL_RECURDYN:
    case MC_NORMAL_DYMORE:
        if (mc_vendor_law_check(m, err) != MC_OK)
        {
            return MC_ERR_INVALID_ARGUMENT;
        }
        break;
    case MC_NORMAL_USER:
        if (m->normal_fcn == NULL)
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "normal law is USER (CNFSUB) but no normal_fcn callback is given");
        }
        break;
    default:
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown normal law %d", (int)m->normal_law);
    }
    if (m->friction != MC_FRICTION_OFF && m->friction != MC_FRICTION_ON && m->friction != MC_FRICTION_DYNAMICS_ONLY)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown COULOMB_FRICTION mode %d", (int)m->friction);
    }
    if (m->stiction && (m->friction == MC_FRICTION_OFF || m->friction_fcn != NULL))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "STICTION = ON needs COULOMB_FRICTION = ON or DYNAMICS_ONLY with the built-in Coulomb law "
                            "(no friction callback)");
    }
    if (m->friction_curve != NULL && m->stiction)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "STICTION = ON needs the Coulomb law's MU_STATIC and MU_DYNAMIC, not a friction curve");
    }
    if (m->friction_curve_kind != MC_FRICTION_CURVE_COEFFICIENT && m->friction_curve_kind != MC_FRICTION_CURVE_FORCE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown friction curve kind %d",
                            (int)m->friction_curve_kind);
    }
    if (m->friction == MC_FRICTION_OFF || m->friction_fcn != NULL || m->friction_curve != NULL)
    {
        return MC_OK;
    }
    if (m->stiction && (!(m->max_stiction_deformation > 0.0) || !isfinite(m->max_stiction_deformation)))
    {
        return bad(err, "MAX_STICTION_DEFORMATION", m->max_stiction_deformation, "finite and > 0");
    }
    if (m->stiction && !(m->mu_static > 0.0))
    {
        return bad(err, "MU_STATIC", m->mu_static, "> 0 with STICTION = ON");
    }
    if (!(m->mu_static >= 0.0) || !isfinite(m->mu_static))
    {
        return bad(err, "MU_STATIC", m->mu_static, "finite and >= 0");
    }
    if (!(m->mu_dynamic >= 0.0) || !isfinite(m->mu_dynamic))
    {
        return bad(err, "MU_DYNAMIC", m->mu_dynamic, "finite and >= 0");
    }
    if (m->mu_dynamic > m->mu_static)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "MU_DYNAMIC = %.15g exceeds MU_STATIC = %.15g: must be MU_DYNAMIC <= MU_STATIC",
                            m->mu_dynamic, m->mu_static);
    }
    if (!(m->stiction_velocity > 0.0) || !isfinite(m->stiction_velocity))
    {
        return bad(err, "STICTION_TRANSITION_VELOCITY", m->stiction_velocity, "finite and > 0");
    }
    if (!(m->friction_velocity > m->stiction_velocity) || !isfinite(m->friction_velocity))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "FRICTION_TRANSITION_VELOCITY = %.15g must be finite and greater than "
                            "STICTION_TRANSITION_VELOCITY = %.15g",
                            m->friction_velocity, m->stiction_velocity);
    }
    return MC_OK;
}

static void contact_force_compute(const mc_force_model* m, const mc_contact_kinematics* kin, mc_analysis analysis,
                                  mc_contact_force* out)
{
    mc_contact_force r = {0};
    r.slip_speed = mc_length(kin->slip_velocity);
    double g = kin->depth;
    double nl = mc_length(kin->normal);
    // A region of non-positive volume only arises from an input mesh that intersects itself: no valid penetration.
    if (!(kin->area > 2.0 * g * g) || !(nl > 0.5 && nl < 1.5) || !isfinite(g) || !(kin->volume > 0.0))
    {
        r.rejected = true;
        *out = r;
        return;
    }
    double fn = 0.0;
    switch (m->normal_law)
    {
    case MC_NORMAL_IMPACT:
        fn = mc_impact_force(g, kin->rate, m->stiffness, m->exponent, m->damping, m->dmax);
        break;
    case MC_NORMAL_POISSON:
        fn = mc_poisson_force(g, kin->rate, m->penalty, m->restitution, m->normal_transition_velocity);
        break;
    case MC_NORMAL_USER:
        fn = m->normal_fcn != NULL ? m->normal_fcn(kin, m, m->user_data) : 0.0;
        break;
    case MC_NORMAL_RECURDYN:
        fn = mc_recurdyn_force(m, g, kin->rate, NULL, NULL);
        break;
    case MC_NORMAL_DYMORE:
        fn = mc_dymore_force(m, g, kin->rate, NULL, NULL);
        break;
    }
    if (!(fn > 0.0) && !isnan(fn))
    {
        fn = 0.0; // a law gives no pull; NaN and infinity are kept for mc_contact_force_evaluate to refuse
    }
    r.normal_force = fn;
    if (mc_friction_active(m, analysis))
    {
        mc_vec3 n = kin->normal;
        if (m->friction_fcn != NULL)
        {
            mc_vec3 f = mc_v3(0.0, 0.0, 0.0);
            mc_vec3 t = mc_v3(0.0, 0.0, 0.0);
            m->friction_fcn(kin, fn, m, m->user_data, &f, &t);
            r.friction_force = mc_mul_add(f, -mc_dot(f, n), n);
            r.friction_torque = t;
        }
        else if (fn > 0.0)
        {
            // a friction force curve gives the force itself: the factor that multiplies it is 1, not Fn
            bool force_curve = m->friction_curve != NULL && m->friction_curve_kind == MC_FRICTION_CURVE_FORCE;
            double scale = force_curve ? 1.0 : fn;
            double v = r.slip_speed;
            if (v > 0.0)
            {
                double mu = m->friction_curve != NULL
                                ? mc_model_friction(m, v, NULL)
                                : mc_friction_coefficient(v, m->mu_static, m->mu_dynamic, m->stiction_velocity,
                                                          m->friction_velocity);
                r.friction_coefficient = force_curve ? mu / fn : mu;
                r.friction_force = mc_scale(kin->slip_velocity, -mu * scale / v);
            }
            double w = kin->spin_rate;
            if (w != 0.0)
            {
                double radius = kin->radius;
                double mu_t = m->friction_curve != NULL
                                  ? mc_model_friction(m, fabs(w) * radius * 0.5, NULL)
                                  : mc_friction_coefficient(fabs(w) * radius * 0.5, m->mu_static, m->mu_dynamic,
                                                            m->stiction_velocity, m->friction_velocity);
                double mag = mu_t * scale * (2.0 / 3.0) * radius;
                r.friction_torque = mc_scale(n, w > 0.0 ? -mag : mag);
            }
        }
    }
    *out = r;
}

static bool vec_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

mc_status mc_contact_force_evaluate(const mc_force_model* m, const mc_contact_kinematics* kin, mc_analysis analysis,
                                    mc_contact_force* out)
{
    if (m == NULL || kin == NULL || out == NULL)
    {
        if (out != NULL)
        {
            memset(out, 0, sizeof *out);
            out->rejected = true;
        }
        return MC_ERR_INVALID_ARGUMENT;
    }
    contact_force_compute(m, kin, analysis, out);
    const mc_contact_force* f = out;
    if (isfinite(f->normal_force) && vec_finite(f->friction_force) && vec_finite(f->friction_torque) &&
        isfinite(f->friction_coefficient) && isfinite(f->slip_speed))
    {
        return MC_OK;
    }
    memset(out, 0, sizeof *out);
    out->rejected = true;
    return MC_ERR_OUT_OF_RANGE;
}

mc_contact_kinematics mc_contact_kinematics_compute(const mc_region* region, const mc_pose* pose_i,
                                                    const mc_twist* vel_i, const mc_pose* pose_j, const mc_twist* vel_j)
{
    mc_contact_kinematics k;
    mc_vec3 c = region->centroid;
    mc_vec3 n = region->normal;
    mc_vec3 vi = mc_add(vel_i->v, mc_cross(vel_i->w, mc_sub(c, pose_i->p)));
    mc_vec3 vj = mc_add(vel_j->v, mc_cross(vel_j->w, mc_sub(c, pose_j->p)));
    mc_vec3 vrel = mc_sub(vj, vi);
    double vn = mc_dot(vrel, n);
    k.depth = region->depth;
    k.rate = -vn;
    k.area = region->area;
    k.volume = region->volume;
    k.radius = region->radius;
    k.point = c;
    k.normal = n;
    k.slip_velocity = mc_mul_add(vrel, -vn, n);
    k.spin_rate = mc_dot(mc_sub(vel_j->w, vel_i->w), n);
    return k;
}

double mc_stiction_force(const mc_force_model* m, double fn, mc_vec3 creep, mc_vec3 slip, mc_vec3* force,
                         mc_vec3* creep_kept)
{
    mc_vec3 zero = mc_v3(0.0, 0.0, 0.0);
    if (m == NULL)
    {
        if (force != NULL)
        {
            *force = zero;
        }
        if (creep_kept != NULL)
        {
            *creep_kept = zero;
        }
        return 0.0;
    }
    double v = mc_length(slip);
    double mu_lim = mc_step_fcn(v, m->stiction_velocity, m->mu_static, m->friction_velocity, m->mu_dynamic);
    double dmax = m->max_stiction_deformation;
    double cap = dmax * (mu_lim / m->mu_static);
    double len = mc_length(creep);
    mc_vec3 kept = len > cap ? mc_scale(creep, cap / len) : creep;
    mc_vec3 u = mc_add(mc_scale(kept, 1.0 / dmax), mc_scale(slip, 1.0 / m->stiction_velocity));
    double ul = mc_length(u);
    double mu = m->mu_static * ul <= mu_lim ? m->mu_static * ul : mu_lim;
    mc_vec3 f = fn > 0.0 && ul > 0.0 ? mc_scale(u, -mu * fn / ul) : zero;
    if (force != NULL)
    {
        *force = f;
    }
    if (creep_kept != NULL)
    {
        *creep_kept = kept;
    }
    return fn > 0.0 && ul > 0.0 ? mu : 0.0;
}
