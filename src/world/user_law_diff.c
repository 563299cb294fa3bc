// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Derivatives of user force laws (normal_fcn, friction_fcn) for mc_world_get_jacobian: central differences of the
// callback along the direction in which the region's kinematics move for one state coordinate.
#include "src/world/contact_force.h"

#include <math.h>
#include <string.h>

static double vmax(mc_vec3 a)
{
    return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}

static mc_vec3 vstep(mc_vec3 a, double t, mc_vec3 d)
{
    return mc_v3(a.x + t * d.x, a.y + t * d.y, a.z + t * d.z);
}

// Kinematics moved by t along the tangent d (the volume is held: the Jacobian does not track it).
static mc_contact_kinematics moved(const mc_contact_kinematics* k, const mc_contact_kinematics* d, double t)
{
    mc_contact_kinematics r = *k;
    r.depth += t * d->depth;
    r.rate += t * d->rate;
    r.area += t * d->area;
    r.radius += t * d->radius;
    r.point = vstep(k->point, t, d->point);
    r.normal = vstep(k->normal, t, d->normal);
    r.slip_velocity = vstep(k->slip_velocity, t, d->slip_velocity);
    r.spin_rate += t * d->spin_rate;
    return r;
}

// Step along the tangent that moves every quantity by at most 1e-6 of its own scale (lengths: the larger of the depth
// and the radius; the area; the unit normal; velocities: the largest speed of the region, at least 1e-6 of the length
// scale per second; the normal force); 0 when the tangent is zero.
static double step_for(const mc_contact_kinematics* k, const mc_contact_kinematics* d, double fn, double dfn)
{
    double len = fmax(fmax(k->depth, k->radius), 1e-300);
    double area = fmax(k->area, 1e-300);
    double speed = fmax(fmax(fabs(k->rate), vmax(k->slip_velocity)), fmax(fabs(k->spin_rate) * k->radius, 1e-6 * len));
    double r = 0.0;
    r = fmax(r, fabs(d->depth) / len);
    r = fmax(r, fabs(d->radius) / len);
    r = fmax(r, vmax(d->point) / len);
    r = fmax(r, fabs(d->area) / area);
    r = fmax(r, vmax(d->normal));
    r = fmax(r, fabs(d->rate) / speed);
    r = fmax(r, vmax(d->slip_velocity) / speed);
    r = fmax(r, fabs(d->spin_rate) * k->radius / speed);
    if (fn > 0.0)
    {
        r = fmax(r, fabs(dfn) / fn);
    }
    return r > 0.0 && isfinite(r) ? 1e-6 / r : 0.0;
}

static double user_normal(const mc_force_model* m, const mc_contact_kinematics* k)
{
    double f = m->normal_fcn(k, m, m->user_data);
    return f > 0.0 ? f : 0.0;
}

double mc_user_normal_partials(const mc_force_model* m, const mc_contact_kinematics* kin,
                               const mc_contact_kinematics* tangents, int count, double* out)
{
    double f = user_normal(m, kin);
    for (int s = 0; s < count; ++s)
    {
        double t = step_for(kin, &tangents[s], 0.0, 0.0);
        if (t == 0.0)
        {
            out[s] = 0.0;
            continue;
        }
        mc_contact_kinematics plus = moved(kin, &tangents[s], t), minus = moved(kin, &tangents[s], -t);
        out[s] = (user_normal(m, &plus) - user_normal(m, &minus)) / (2.0 * t);
    }
    return f;
}

// The friction callback's force (projected on the tangent plane, as contact_force.c does) and torque.
static void user_friction(const mc_force_model* m, const mc_contact_kinematics* k, double fn, mc_vec3* force,
                          mc_vec3* torque)
{
    mc_vec3 f = mc_v3(0.0, 0.0, 0.0);
    mc_vec3 t = mc_v3(0.0, 0.0, 0.0);
    m->friction_fcn(k, fn, m, m->user_data, &f, &t);
    *force = mc_mul_add(f, -mc_dot(f, k->normal), k->normal);
    *torque = t;
}

void mc_user_friction_partials(const mc_force_model* m, const mc_contact_kinematics* kin, double fn,
                               const mc_contact_kinematics* tangents, const double* dfn, int count, mc_vec3* force,
                               mc_vec3* torque, mc_vec3* dforce, mc_vec3* dtorque)
{
    user_friction(m, kin, fn, force, torque);
    for (int s = 0; s < count; ++s)
    {
        double t = step_for(kin, &tangents[s], fn, dfn[s]);
        if (t == 0.0)
        {
            dforce[s] = mc_v3(0.0, 0.0, 0.0);
            dtorque[s] = mc_v3(0.0, 0.0, 0.0);
            continue;
        }
        mc_contact_kinematics plus = moved(kin, &tangents[s], t), minus = moved(kin, &tangents[s], -t);
        mc_vec3 fp, tp, fm, tm;
        user_friction(m, &plus, fn + t * dfn[s], &fp, &tp);
        user_friction(m, &minus, fn - t * dfn[s], &fm, &tm);
        dforce[s] = mc_scale(mc_sub(fp, fm), 0.5 / t);
        dtorque[s] = mc_scale(mc_sub(tp, tm), 0.5 / t);
    }
}
