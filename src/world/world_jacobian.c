// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Jacobians of the contact wrenches (mc_world_get_jacobian): the derivatives of each pair's region geometry under a
// rigid motion of J relative to I, analytic for two meshes with the Adams or volume/area depth (the region stage's
// sums in derivative form, src/contact/region_derivative.h), central differences of the region query over the 12
// pose coordinates otherwise (analytic shapes, the extent and smooth depths); then chained through the kinematics and
// the force laws by forward-mode derivatives (dual numbers with one slot per pose and twist coordinate), so the
// damping block is exact.
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/contact/regions.h"
#include "src/world/contact_force.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <string.h>

// Derivative slots: 0..5 pose of I (translation, rotation), 6..11 pose of J, 12..17 twist of I (v, w), 18..23 J.
#define JN 24
#define GEO 8   // geometry values per region: depth, normal (3), centroid (3), area
#define DIRS 24 // perturbed queries per pair: 12 coordinates x 2 signs

typedef struct dual
{
    double v;
    double d[JN];
} dual;

typedef struct dvec
{
    dual x, y, z;
} dvec;

static dual dconst(double v)
{
    dual r;
    memset(&r, 0, sizeof r);
    r.v = v;
    return r;
}

static dual dseed(double v, int slot)
{
    dual r = dconst(v);
    r.d[slot] = 1.0;
    return r;
}

static dual dadd(dual a, dual b)
{
    a.v += b.v;
    for (int k = 0; k < JN; ++k)
    {
        a.d[k] += b.d[k];
    }
    return a;
}

static dual dsub(dual a, dual b)
{
    a.v -= b.v;
    for (int k = 0; k < JN; ++k)
    {
        a.d[k] -= b.d[k];
    }
    return a;
}

static dual dscale(dual a, double s)
{
    a.v *= s;
    for (int k = 0; k < JN; ++k)
    {
        a.d[k] *= s;
    }
    return a;
}

static dual dmul(dual a, dual b)
{
    dual r;
    r.v = a.v * b.v;
    for (int k = 0; k < JN; ++k)
    {
        r.d[k] = a.d[k] * b.v + a.v * b.d[k];
    }
    return r;
}

static dual ddiv(dual a, dual b)
{
    dual r;
    r.v = a.v / b.v;
    for (int k = 0; k < JN; ++k)
    {
        r.d[k] = (a.d[k] - r.v * b.d[k]) / b.v;
    }
    return r;
}

// f(a) with f(a.v) = value and f'(a.v) = slope.
static dual dchain(dual a, double value, double slope)
{
    dual r = dscale(a, slope);
    r.v = value;
    return r;
}

static dual dsqrt(dual a)
{
    double s = sqrt(a.v);
    return dchain(a, s, s > 0.0 ? 0.5 / s : 0.0);
}

static dual dpow(dual a, double e)
{
    return dchain(a, pow(a.v, e), e * pow(a.v, e - 1.0));
}

static dvec dv(dual x, dual y, dual z)
{
    dvec r = {x, y, z};
    return r;
}

static dvec dvconst(mc_vec3 a)
{
    return dv(dconst(a.x), dconst(a.y), dconst(a.z));
}

static dvec dvseed(mc_vec3 a, int slot)
{
    return dv(dseed(a.x, slot), dseed(a.y, slot + 1), dseed(a.z, slot + 2));
}

static dvec dvadd(dvec a, dvec b)
{
    return dv(dadd(a.x, b.x), dadd(a.y, b.y), dadd(a.z, b.z));
}

static dvec dvsub(dvec a, dvec b)
{
    return dv(dsub(a.x, b.x), dsub(a.y, b.y), dsub(a.z, b.z));
}

static dvec dvmul(dvec a, dual s)
{
    return dv(dmul(a.x, s), dmul(a.y, s), dmul(a.z, s));
}

static dual dvdot(dvec a, dvec b)
{
    return dadd(dadd(dmul(a.x, b.x), dmul(a.y, b.y)), dmul(a.z, b.z));
}

static dvec dvcross(dvec a, dvec b)
{
    return dv(dsub(dmul(a.y, b.z), dmul(a.z, b.y)), dsub(dmul(a.z, b.x), dmul(a.x, b.z)),
              dsub(dmul(a.x, b.y), dmul(a.y, b.x)));
}

// mc_step_fcn with derivatives.
static dual dstep(dual x, double x0, double h0, double x1, double h1)
{
    if (!(x0 < x1))
    {
        return dconst(x.v >= x1 ? h1 : h0);
    }
    if (x.v <= x0)
    {
        return dconst(h0);
    }
    if (x.v >= x1)
    {
        return dconst(h1);
    }
    double w = x1 - x0;
    double d = (x.v - x0) / w;
    return dchain(x, h0 + (h1 - h0) * d * d * (3.0 - 2.0 * d), (h1 - h0) * 6.0 * d * (1.0 - d) / w);
}

// The friction law of the model (Adams' coefficient, or its friction curve) at a speed v >= 0, with derivatives.
static dual dfriction_coefficient(dual v, const mc_force_model* m)
{
    if (m->friction_curve != NULL)
    {
        double slope = 0.0;
        double value = mc_model_friction(m, v.v, &slope);
        return dchain(v, value, slope);
    }
    dual ramp = dstep(v, -m->stiction_velocity, -1.0, m->stiction_velocity, 1.0);
    return dmul(ramp, dstep(v, m->stiction_velocity, m->mu_static, m->friction_velocity, m->mu_dynamic));
}

// The friction law's slope at zero speed: mu(v) / v -> mu'(0) = 1.5 mu_s / v_s (the STEP ramp through 0); a friction
// curve's slope at 0 (the limit when the curve passes through 0; otherwise the force jumps at v = 0).
static double friction_slope_at_zero(const mc_force_model* m)
{
    if (m->friction_curve != NULL)
    {
        return mc_curve_eval(m->friction_curve, 0.0, 1);
    }
    return 1.5 * m->mu_static / m->stiction_velocity;
}

// Body states of a pair as duals: positions (pose slots), twists (twist slots).
typedef struct pair_state
{
    dvec p_i, v_i, w_i;
    dvec p_j, v_j, w_j;
} pair_state;

static mc_vec3 dvvalue(const dvec* a)
{
    return mc_v3(a->x.v, a->y.v, a->z.v);
}

static mc_vec3 dvslot(const dvec* a, int k)
{
    return mc_v3(a->x.d[k], a->y.d[k], a->z.d[k]);
}

// a.v = value, a.d = da * ga + db * gb: a function of two duals with its partial derivatives.
static dual dchain2(dual a, double da, dual b, double db, double value)
{
    dual r = dadd(dscale(a, da), dscale(b, db));
    r.v = value;
    return r;
}

// The region's kinematics (as mc_contact_kinematics_compute gives them) and their derivatives per slot, for the user
// laws (the volume is held fixed: its tangent is 0).
typedef struct kin_duals
{
    mc_contact_kinematics value;
    mc_contact_kinematics tangent[JN];
} kin_duals;

static void kin_from_duals(const dual* depth, const dual* rate, const dual* area, const dual* radius, const dvec* c,
                           const dvec* n, const dvec* slip, const dual* spin, double volume, kin_duals* k)
{
    k->value.depth = depth->v;
    k->value.rate = rate->v;
    k->value.area = area->v;
    k->value.volume = volume;
    k->value.radius = radius->v;
    k->value.point = dvvalue(c);
    k->value.normal = dvvalue(n);
    k->value.slip_velocity = dvvalue(slip);
    k->value.spin_rate = spin->v;
    for (int s = 0; s < JN; ++s)
    {
        mc_contact_kinematics* t = &k->tangent[s];
        t->depth = depth->d[s];
        t->rate = rate->d[s];
        t->area = area->d[s];
        t->volume = 0.0;
        t->radius = radius->d[s];
        t->point = dvslot(c, s);
        t->normal = dvslot(n, s);
        t->slip_velocity = dvslot(slip, s);
        t->spin_rate = spin->d[s];
    }
}

static dvec dvfrom(mc_vec3 value, const mc_vec3* slots)
{
    dvec r = dvconst(value);
    for (int s = 0; s < JN; ++s)
    {
        r.x.d[s] = slots[s].x;
        r.y.d[s] = slots[s].y;
        r.z.d[s] = slots[s].z;
    }
    return r;
}

// The normal force law in derivative form (contact_force.c's switch): IMPACT and POISSON in duals, RecurDyn's and
// DYMORE's from their partial derivatives, a user law by differences along each slot's direction.
static dual normal_force_dual(const mc_force_model* m, const dual* depth, const dual* rate, const kin_duals* k)
{
    switch (m->normal_law)
    {
    case MC_NORMAL_IMPACT:
    {
        dual damp = dstep(*depth, 0.0, 0.0, m->dmax, m->damping);
        return dadd(dscale(dpow(*depth, m->exponent), m->stiffness), dmul(damp, *rate));
    }
    case MC_NORMAL_POISSON:
    {
        dual factor = dstep(*rate, -m->normal_transition_velocity, m->restitution * m->restitution,
                            m->normal_transition_velocity, 1.0);
        return dmul(dscale(*depth, m->penalty), factor);
    }
    case MC_NORMAL_RECURDYN:
    case MC_NORMAL_DYMORE:
    {
        double dg = 0.0, dr = 0.0;
        double v = m->normal_law == MC_NORMAL_RECURDYN ? mc_recurdyn_force(m, depth->v, rate->v, &dg, &dr)
                                                       : mc_dymore_force(m, depth->v, rate->v, &dg, &dr);
        return dchain2(*depth, dg, *rate, dr, v);
    }
    case MC_NORMAL_USER:
    {
        dual r = dconst(0.0);
        r.v = mc_user_normal_partials(m, &k->value, k->tangent, JN, r.d);
        return r;
    }
    }
    return dconst(0.0);
}

// One region's force law in derivative form (contact_force.c's contact_force_compute, same branches), accumulated
// into the pair's two wrenches. @return false when the region is rejected (no force).
static bool region_wrench(const mc_force_model* m, bool friction, const dual* depth, const dvec* n, const dvec* c,
                          const dual* area, double volume, const pair_state* s, dvec out[4])
{
    double g = depth->v;
    if (!(area->v > 2.0 * g * g) || !(volume > 0.0) || !(g > 0.0))
    {
        return false;
    }
    dvec vi = dvadd(s->v_i, dvcross(s->w_i, dvsub(*c, s->p_i)));
    dvec vj = dvadd(s->v_j, dvcross(s->w_j, dvsub(*c, s->p_j)));
    dvec vrel = dvsub(vj, vi);
    dual vn = dvdot(vrel, *n);
    dual rate = dscale(vn, -1.0);
    dvec slip = dvsub(vrel, dvmul(*n, vn));
    dual spin = dvdot(dvsub(s->w_j, s->w_i), *n);
    dual radius = dsqrt(dscale(*area, 1.0 / 3.14159265358979323846));
    bool user = m->normal_law == MC_NORMAL_USER || (friction && m->friction_fcn != NULL);
    kin_duals kin; // filled for the user laws only (the others never read it)
    if (user)
    {
        kin_from_duals(depth, &rate, area, &radius, c, n, &slip, &spin, volume, &kin);
    }
    dual fn = normal_force_dual(m, depth, &rate, &kin);
    if (!(fn.v > 0.0))
    {
        return false; // the law would pull: clamped to 0 (no derivative on this side)
    }
    dvec force = dvmul(*n, fn);
    dvec torque = dvconst(mc_v3(0.0, 0.0, 0.0));
    if (friction && m->friction_fcn != NULL)
    {
        mc_vec3 f0, t0, df[JN], dt[JN];
        mc_user_friction_partials(m, &kin.value, fn.v, kin.tangent, fn.d, JN, &f0, &t0, df, dt);
        force = dvadd(force, dvfrom(f0, df));
        torque = dvfrom(t0, dt);
    }
    else if (friction)
    {
        // a friction force curve gives the force itself: its factor is 1, not Fn
        bool force_curve = m->friction_curve != NULL && m->friction_curve_kind == MC_FRICTION_CURVE_FORCE;
        dual scale = force_curve ? dconst(1.0) : fn;
        double slope0 = friction_slope_at_zero(m);
        dual v = dvdot(slip, slip);
        if (v.v > 0.0)
        {
            dual speed = dsqrt(v);
            dual mu = dfriction_coefficient(speed, m);
            force = dvsub(force, dvmul(slip, ddiv(dmul(mu, scale), speed)));
        }
        else
        {
            force = dvsub(force, dvmul(slip, dscale(scale, slope0)));
        }
        if (spin.v != 0.0)
        {
            double sign = spin.v > 0.0 ? 1.0 : -1.0;
            dual arg = dscale(dmul(spin, radius), 0.5 * sign);
            dual mag = dscale(dmul(dmul(dfriction_coefficient(arg, m), scale), radius), 2.0 / 3.0);
            torque = dvmul(*n, dscale(mag, -sign));
        }
        else
        {
            // mag -> slope0 |w| R / 2 * Fn (2/3) R, with the sign of -w
            dual lin = dscale(dmul(dmul(dmul(spin, radius), radius), scale), -slope0 / 3.0);
            torque = dvmul(*n, lin);
        }
    }
    dvec moment_j = dvadd(dvcross(dvsub(*c, s->p_j), force), torque);
    dvec moment_i = dvadd(dvcross(dvsub(*c, s->p_i), force), torque);
    out[0] = dvsub(out[0], force);
    out[1] = dvsub(out[1], moment_i);
    out[2] = dvadd(out[2], force);
    out[3] = dvadd(out[3], moment_j);
    return true;
}

static void region_values(const mc_region* r, double g[GEO])
{
    g[0] = r->depth;
    g[1] = r->normal.x;
    g[2] = r->normal.y;
    g[3] = r->normal.z;
    g[4] = r->centroid.x;
    g[5] = r->centroid.y;
    g[6] = r->centroid.z;
    g[7] = r->area;
}

// Work of one call: the pairs with regions, their steps, and the perturbed geometry of every region in every
// direction (geo[(first region of the pair + r) * DIRS + direction]).
typedef struct jac_ctx
{
    mc_world* w;
    const uint32_t* pairs; // indices into w->active
    const uint32_t* first; // first region slot of each listed pair
    const double* h;       // per pair: 12 steps
    double (*geo)[GEO];    // perturbed values
    uint8_t* status;       // per task: 0 done, 1 capacity (retry serially), 2 failed, 3 topology changed
    uint32_t* need;        // per task: regions found
    mc_region** buffers;   // per worker
    uint32_t* capacities;  // per worker
    int inner_workers;
    const uint8_t* analytic;     // per listed pair: derivatives from the region stage (1) or differences (0)
    mc_region_derivative* deriv; // per region slot (analytic pairs)
    mc_region_derivative** dbuf; // per worker, capacities[worker] entries
} jac_ctx;

static mc_pose perturbed_pose(const mc_pose* p, int coord, double h)
{
    mc_pose r = *p;
    if (coord < 3)
    {
        double* x = coord == 0 ? &r.p.x : (coord == 1 ? &r.p.y : &r.p.z);
        *x += h;
        return r;
    }
    double half = 0.5 * h;
    mc_quat dq = {cos(half), 0.0, 0.0, 0.0};
    double sn = sin(half);
    if (coord == 3)
    {
        dq.x = sn;
    }
    else if (coord == 4)
    {
        dq.y = sn;
    }
    else
    {
        dq.z = sn;
    }
    r.q = mc_quat_normalize(mc_quat_mul(dq, p->q));
    return r;
}

// The analytic pair k (task of direction 0): one region query with derivatives, at the evaluation's poses (the same
// regions, bitwise: checked).
static void jac_task_analytic(jac_ctx* x, uint32_t task, mc_region* buf, mc_region_derivative* dbuf, uint32_t cap,
                              mc_workspace* ws, int workers)
{
    uint32_t k = task / DIRS;
    x->status[task] = 0;
    x->need[task] = 0;
    if (task % DIRS != 0)
    {
        return;
    }
    const mc_pair* p = &x->w->pairs[x->w->active[x->pairs[k]].pair];
    const mc_body* bi = &x->w->bodies[p->body_i];
    const mc_body* bj = &x->w->bodies[p->body_j];
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    opt.depth_method = x->w->contacts[p->contact].depth;
    uint32_t count = 0;
    mc_status st =
        mc_query_regions_derivatives(bi->mesh, &bi->pose, bj->mesh, &bj->pose, &opt, ws, buf, dbuf, cap, &count);
    x->need[task] = count;
    if (st == MC_ERR_CAPACITY)
    {
        x->status[task] = 1;
        return;
    }
    bool same = st == MC_OK && count == p->region_count;
    for (uint32_t r = 0; same && r < count; ++r)
    {
        same = memcmp(&buf[r], &p->regions[r], sizeof buf[r]) == 0;
    }
    if (!same)
    {
        x->status[task] = 2;
        return;
    }
    memcpy(&x->deriv[x->first[k]], dbuf, (size_t)count * sizeof *dbuf);
}

static void jac_task_one(jac_ctx* x, uint32_t task, mc_region* buf, uint32_t cap, mc_workspace* ws, int workers)
{
    uint32_t k = task / DIRS;
    uint32_t dir = task % DIRS;
    int coord = (int)(dir / 2);
    double sign = (dir & 1) ? -1.0 : 1.0;
    const mc_pair* p = &x->w->pairs[x->w->active[x->pairs[k]].pair];
    const mc_body* bi = &x->w->bodies[p->body_i];
    const mc_body* bj = &x->w->bodies[p->body_j];
    mc_pose pi = bi->pose;
    mc_pose pj = bj->pose;
    double h = x->h[k * 12 + (uint32_t)coord];
    if (coord < 6)
    {
        pi = perturbed_pose(&bi->pose, coord, sign * h);
    }
    else
    {
        pj = perturbed_pose(&bj->pose, coord - 6, sign * h);
    }
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    opt.depth_method = x->w->contacts[p->contact].depth;
    uint32_t count = 0;
    mc_status st = mc_pair_query_regions(x->w, p, &pi, &pj, &opt, ws, buf, cap, &count, NULL);
    x->need[task] = count;
    if (st == MC_ERR_CAPACITY)
    {
        x->status[task] = 1;
        return;
    }
    if (st != MC_OK)
    {
        x->status[task] = 2;
        return;
    }
    x->status[task] = count == p->region_count ? 0 : 3;
    for (uint32_t r = 0; r < p->region_count; ++r)
    {
        double* out = x->geo[(x->first[k] + r) * DIRS + dir];
        uint32_t best = r;
        if (count != p->region_count)
        {
            // match by nearest centroid (a region that vanished keeps its own values: zero derivative)
            double bd = INFINITY;
            best = UINT32_MAX;
            for (uint32_t q = 0; q < count; ++q)
            {
                double d = mc_length(mc_sub(buf[q].centroid, p->regions[r].centroid));
                if (d < bd)
                {
                    bd = d;
                    best = q;
                }
            }
        }
        region_values(best == UINT32_MAX ? &p->regions[r] : &buf[best], out);
    }
}

static void jac_task(uint32_t begin, uint32_t end, int worker, void* vctx)
{
    jac_ctx* x = vctx;
    for (uint32_t t = begin; t < end; ++t)
    {
        if (x->analytic[t / DIRS])
        {
            jac_task_analytic(x, t, x->buffers[worker], x->dbuf[worker], x->capacities[worker],
                              x->w->workspaces[worker], x->inner_workers);
        }
        else
        {
            jac_task_one(x, t, x->buffers[worker], x->capacities[worker], x->w->workspaces[worker], x->inner_workers);
        }
    }
}

// Steps of one pair: translations h = 1e-6 x the smallest equivalent radius of its regions (at least 1e-9 x the
// largest centroid coordinate, the rounding floor), rotations the angle that moves the farthest region centroid by h.
static void pair_steps(const mc_world* w, const mc_pair* p, double h[12])
{
    const mc_body* bi = &w->bodies[p->body_i];
    const mc_body* bj = &w->bodies[p->body_j];
    double rmin = INFINITY, cmax = 0.0, arm_i = 0.0, arm_j = 0.0;
    for (uint32_t r = 0; r < p->region_count; ++r)
    {
        const mc_region* g = &p->regions[r];
        rmin = fmin(rmin, g->radius);
        mc_vec3 c = g->centroid;
        cmax = fmax(cmax, mc_max_abs3(c));
        arm_i = fmax(arm_i, fmax(mc_length(mc_sub(c, bi->pose.p)), g->radius));
        arm_j = fmax(arm_j, fmax(mc_length(mc_sub(c, bj->pose.p)), g->radius));
    }
    double ht = fmax(1e-6 * rmin, 1e-9 * cmax);
    if (!(ht > 0.0) || !isfinite(ht))
    {
        ht = 1e-9 * fmax(cmax, 1.0);
    }
    for (int k = 0; k < 3; ++k)
    {
        h[k] = ht;
        h[6 + k] = ht;
        h[3 + k] = arm_i > 0.0 ? ht / arm_i : ht;
        h[9 + k] = arm_j > 0.0 ? ht / arm_j : ht;
    }
}

static double dual_slot(const dvec* v, int axis, int slot)
{
    const dual* d = axis == 0 ? &v->x : (axis == 1 ? &v->y : &v->z);
    return d->d[slot];
}

// A region's geometry as duals from its differenced values (geo: the region's DIRS perturbed values). @return true
// when a perturbed value is on the other side of the validity switch or of contact onset.
static bool differenced_geometry(const mc_region* reg, const double h[12], double (*geo)[GEO], dual g[GEO])
{
    double nominal[GEO];
    region_values(reg, nominal);
    bool switches = false;
    for (int q = 0; q < GEO; ++q)
    {
        g[q] = dconst(nominal[q]);
    }
    bool valid = nominal[7] > 2.0 * nominal[0] * nominal[0] && nominal[0] > 0.0;
    for (int coord = 0; coord < 12; ++coord)
    {
        const double* plus = geo[(uint32_t)coord * 2];
        const double* minus = geo[(uint32_t)coord * 2 + 1];
        for (int q = 0; q < GEO; ++q)
        {
            g[q].d[coord] = (plus[q] - minus[q]) / (2.0 * h[coord]);
        }
        switches = switches || (plus[7] > 2.0 * plus[0] * plus[0] && plus[0] > 0.0) != valid ||
                   (minus[7] > 2.0 * minus[0] * minus[0] && minus[0] > 0.0) != valid;
    }
    return switches;
}

static mc_vec3 axis3(int k)
{
    return mc_v3(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0);
}

// The motion of J relative to I, in I's body frame (a point x of J moving by delta + theta x x), for a unit step of
// world pose coordinate col (translation of I, rotation of I about its reference point, then J's).
static void relative_motion(const mc_mat33* ri, const mc_pose* pi, const mc_pose* pj, int col, double s[6])
{
    mc_vec3 e = axis3(col % 3);
    mc_vec3 delta = mc_v3(0.0, 0.0, 0.0), theta = delta;
    switch (col / 3)
    {
    case 0:
        delta = mc_neg(e);
        break;
    case 1:
        theta = mc_neg(e);
        break;
    case 2:
        delta = e;
        break;
    default:
        theta = e;
        delta = mc_cross(e, mc_sub(pi->p, pj->p)); // J turning about its own point moves I's origin point
        break;
    }
    delta = mc_mat33_tmul_vec(ri, delta);
    theta = mc_mat33_tmul_vec(ri, theta);
    double v[6] = {delta.x, delta.y, delta.z, theta.x, theta.y, theta.z};
    memcpy(s, v, sizeof v);
}

static mc_vec3 slot_sum(const mc_vec3 d[MC_DSLOTS], const double s[6])
{
    mc_vec3 r = mc_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r = mc_mul_add(r, s[k], d[k]);
    }
    return r;
}

static double slot_dot(const double d[MC_DSLOTS], const double s[6])
{
    double r = 0.0;
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r += d[k] * s[k];
    }
    return r;
}

// A region's geometry as duals from the region stage's derivatives (I's frame, J's relative motion), mapped to the 12
// world pose coordinates: quantities of I's frame turn and move with I. @return true when a step of h along the
// coordinates could cross the validity switch A > 2 g^2 or contact onset (first-order estimate), or the depth has no
// derivative here.
static bool analytic_geometry(const mc_region* reg, const mc_region_derivative* d, const mc_pose* pi, const mc_pose* pj,
                              const double h[12], dual g[GEO])
{
    double nominal[GEO];
    region_values(reg, nominal);
    for (int q = 0; q < GEO; ++q)
    {
        g[q] = dconst(nominal[q]);
    }
    mc_mat33 ri = mc_quat_to_mat33(mc_quat_normalize(pi->q));
    double margin = reg->area - 2.0 * reg->depth * reg->depth, reach_margin = 0.0, reach_depth = 0.0;
    for (int col = 0; col < 12; ++col)
    {
        double s[6];
        relative_motion(&ri, pi, pj, col, s);
        mc_vec3 e = axis3(col % 3);
        mc_vec3 dn = mc_mat33_mul_vec(&ri, slot_sum(d->normal, s));
        mc_vec3 dc = mc_mat33_mul_vec(&ri, slot_sum(d->centroid, s));
        if (col / 3 == 0)
        {
            dc = mc_add(dc, e);
        }
        else if (col / 3 == 1)
        {
            dn = mc_add(dn, mc_cross(e, reg->normal));
            dc = mc_add(dc, mc_cross(e, mc_sub(reg->centroid, pi->p)));
        }
        double dg = slot_dot(d->depth, s), da = slot_dot(d->area, s);
        double v[GEO] = {dg, dn.x, dn.y, dn.z, dc.x, dc.y, dc.z, da};
        for (int q = 0; q < GEO; ++q)
        {
            g[q].d[col] = v[q];
        }
        reach_margin += fabs(da - 4.0 * reg->depth * dg) * h[col];
        reach_depth += fabs(dg) * h[col];
    }
    return d->flags != 0 || fabs(margin) <= reach_margin || reg->depth <= reach_depth;
}

// One block from the pair's nominal regions and their derivatives (analytic, or from the perturbed geometry).
static mc_status fill_block(const mc_world* w, const mc_pair* p, const double h[12], double (*geo)[GEO],
                            const mc_region_derivative* deriv, uint32_t topology_changed, mc_jacobian_block* b)
{
    const mc_contact_slot* cs = &w->contacts[p->contact];
    const mc_body* bi = &w->bodies[p->body_i];
    const mc_body* bj = &w->bodies[p->body_j];
    memset(b, 0, sizeof *b);
    b->contact.index1 = (int32_t)p->contact + 1;
    b->contact.generation = cs->generation;
    b->body_i.index1 = (int32_t)p->body_i + 1;
    b->body_i.generation = bi->generation;
    b->body_j.index1 = (int32_t)p->body_j + 1;
    b->body_j.generation = bj->generation;
    b->regions = p->region_count;
    b->flags = topology_changed ? MC_JACOBIAN_TOPOLOGY_CHANGED : 0u;
    pair_state s;
    s.p_i = dvseed(bi->pose.p, 0);
    s.p_j = dvseed(bj->pose.p, 6);
    s.v_i = dvseed(bi->velocity.v, 12);
    s.w_i = dvseed(bi->velocity.w, 15);
    s.v_j = dvseed(bj->velocity.v, 18);
    s.w_j = dvseed(bj->velocity.w, 21);
    dvec out[4];
    for (int k = 0; k < 4; ++k)
    {
        out[k] = dvconst(mc_v3(0.0, 0.0, 0.0));
    }
    bool friction = mc_friction_active(&cs->model, w->analysis);
    for (uint32_t r = 0; r < p->region_count; ++r)
    {
        const mc_region* reg = &p->regions[r];
        dual g[GEO];
        bool switches = deriv != NULL ? analytic_geometry(reg, &deriv[r], &bi->pose, &bj->pose, h, g)
                                      : differenced_geometry(reg, h, &geo[r * DIRS], g);
        dvec n = dv(g[1], g[2], g[3]);
        dvec c = dv(g[4], g[5], g[6]);
        bool applied = region_wrench(&cs->model, friction, &g[0], &n, &c, &g[7], reg->volume, &s, out);
        if (switches || (!applied && reg->depth > 0.0 && reg->area > 2.0 * reg->depth * reg->depth))
        {
            b->flags |= MC_JACOBIAN_NEAR_SWITCH;
        }
    }
    for (int row = 0; row < 12; ++row)
    {
        for (int col = 0; col < 12; ++col)
        {
            double ks = dual_slot(&out[row / 3], row % 3, col);
            double ds = dual_slot(&out[row / 3], row % 3, 12 + col);
            if (!isfinite(ks) || !isfinite(ds))
            {
                memset(b->stiffness, 0, sizeof b->stiffness);
                memset(b->damping, 0, sizeof b->damping);
                return MC_ERR_OUT_OF_RANGE;
            }
            b->stiffness[row][col] = ks;
            b->damping[row][col] = ds;
        }
    }
    return MC_OK;
}

// Analytic derivatives for two meshes with the Adams, volume/area or extent depth; differences otherwise.
static uint8_t analytic_pair(const mc_world* w, const mc_pair* p)
{
    if (w->jacobian_differences)
    {
        return 0;
    }
    mc_depth_method d = w->contacts[p->contact].depth;
    bool depth = d == MC_DEPTH_DEFAULT || d == MC_DEPTH_ADAMS || d == MC_DEPTH_VOLUME_AREA || d == MC_DEPTH_EXTENT;
    return depth && w->bodies[p->body_i].mesh != NULL && w->bodies[p->body_j].mesh != NULL;
}

typedef struct jac_scratch
{
    uint32_t* pairs;
    uint32_t* first;
    double* h;
    double (*geo)[GEO];
    uint8_t* status;
    uint32_t* need;
    mc_region** buffers;
    uint32_t* capacities;
    int workers;
    uint8_t* analytic;
    mc_region_derivative* deriv;
    mc_region_derivative** dbuf;
} jac_scratch;

static void scratch_free(jac_scratch* s)
{
    for (int k = 0; k < s->workers; ++k)
    {
        mc_free(s->buffers != NULL ? s->buffers[k] : NULL);
        mc_free(s->dbuf != NULL ? s->dbuf[k] : NULL);
    }
    mc_free(s->buffers);
    mc_free(s->dbuf);
    mc_free(s->analytic);
    mc_free(s->deriv);
    mc_free(s->capacities);
    mc_free(s->pairs);
    mc_free(s->first);
    mc_free(s->h);
    mc_free(s->geo);
    mc_free(s->status);
    mc_free(s->need);
}

// Perturbed queries of every listed pair (parallel over pair x direction), capacity retries serially.
static mc_status run_queries(mc_world* w, jac_scratch* s, uint32_t npairs, uint32_t max_regions)
{
    uint32_t tasks = npairs * DIRS;
    s->workers = w->worker_count;
    s->buffers = mc_alloc_array((size_t)s->workers, sizeof *s->buffers);
    s->dbuf = mc_alloc_array((size_t)s->workers, sizeof *s->dbuf);
    s->capacities = mc_alloc_array((size_t)s->workers, sizeof *s->capacities);
    s->status = mc_alloc_array(tasks, sizeof *s->status);
    s->need = mc_alloc_array(tasks, sizeof *s->need);
    if (s->buffers == NULL || s->dbuf == NULL || s->capacities == NULL || s->status == NULL || s->need == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    memset(s->buffers, 0, (size_t)s->workers * sizeof *s->buffers);
    memset(s->dbuf, 0, (size_t)s->workers * sizeof *s->dbuf);
    for (int k = 0; k < s->workers; ++k)
    {
        s->capacities[k] = 2 * max_regions + 8;
        s->buffers[k] = mc_alloc_array(s->capacities[k], sizeof(mc_region));
        s->dbuf[k] = mc_alloc_array(s->capacities[k], sizeof(mc_region_derivative));
        if (s->buffers[k] == NULL || s->dbuf[k] == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    jac_ctx ctx = {w,          s->pairs,      s->first, s->h,        s->geo,   s->status, s->need,
                   s->buffers, s->capacities, 1,        s->analytic, s->deriv, s->dbuf};
    bool serial = tasks < (uint32_t)s->workers;
    ctx.inner_workers = serial ? w->worker_count : 1;
    if (serial)
    {
        jac_task(0, tasks, 0, &ctx);
    }
    else
    {
        mc_parallel_for(w->worker_count, jac_task, tasks, 1, &ctx);
    }
    for (uint32_t t = 0; t < tasks; ++t)
    {
        if (s->status[t] == 1)
        {
            uint32_t cap = s->need[t];
            mc_region* grown = mc_alloc_array(cap, sizeof(mc_region));
            mc_region_derivative* dgrown = mc_alloc_array(cap, sizeof(mc_region_derivative));
            mc_free(s->buffers[0]);
            mc_free(s->dbuf[0]);
            s->buffers[0] = grown;
            s->dbuf[0] = dgrown;
            if (grown == NULL || dgrown == NULL)
            {
                return MC_ERR_OUT_OF_MEMORY;
            }
            s->capacities[0] = cap;
            ctx.inner_workers = w->worker_count;
            if (s->analytic[t / DIRS])
            {
                jac_task_analytic(&ctx, t, grown, dgrown, cap, w->workspaces[0], w->worker_count);
            }
            else
            {
                jac_task_one(&ctx, t, grown, cap, w->workspaces[0], w->worker_count);
            }
        }
        if (s->status[t] == 1 || s->status[t] == 2)
        {
            return MC_ERR_OUT_OF_RANGE;
        }
    }
    return MC_OK;
}

mc_status mc_world_get_jacobian(mc_world* w, mc_jacobian_block* out, uint32_t capacity, uint32_t* count)
{
    if (w == NULL || count == NULL || (out == NULL && capacity > 0))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (!w->evaluated || !w->candidates_valid)
    {
        mc_log("mc_world_get_jacobian: no successful mc_world_evaluate at the current poses: evaluate first");
        return MC_ERR_INVALID_ARGUMENT;
    }
    uint32_t available = 0, write = 0, max_regions = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[k].pair];
        const mc_body* bi = &w->bodies[p->body_i];
        const mc_body* bj = &w->bodies[p->body_j];
        if (p->region_count == 0)
        {
            continue;
        }
        if (memcmp(&p->pose_i, &bi->pose, sizeof bi->pose) != 0 || memcmp(&p->pose_j, &bj->pose, sizeof bj->pose) != 0)
        {
            mc_log("mc_world_get_jacobian: bodies %u and %u moved since the last mc_world_evaluate: evaluate first",
                   p->body_i, p->body_j);
            return MC_ERR_INVALID_ARGUMENT;
        }
        const mc_force_model* m = &w->contacts[p->contact].model;
        if (m->stiction && mc_friction_active(m, w->analysis))
        {
            mc_log("mc_world_get_jacobian: contact %u has STICTION on, whose friction law (mc_stiction_force) is not "
                   "differentiated yet",
                   p->contact);
            return MC_ERR_UNSUPPORTED;
        }
        available++;
        max_regions = p->region_count > max_regions ? p->region_count : max_regions;
    }
    *count = available;
    write = available < capacity ? available : capacity;
    if (write == 0)
    {
        return available > capacity ? MC_ERR_CAPACITY : MC_OK;
    }
    jac_scratch s;
    memset(&s, 0, sizeof s);
    s.pairs = mc_alloc_array(write, sizeof *s.pairs);
    s.first = mc_alloc_array(write, sizeof *s.first);
    s.h = mc_alloc_array((size_t)write * 12, sizeof *s.h);
    s.analytic = mc_alloc_array(write, sizeof *s.analytic);
    mc_status st = MC_OK;
    if (s.pairs == NULL || s.first == NULL || s.h == NULL || s.analytic == NULL)
    {
        st = MC_ERR_OUT_OF_MEMORY;
    }
    uint32_t listed = 0;
    uint64_t total_regions = 0;
    for (uint32_t k = 0; st == MC_OK && k < w->active_count && listed < write; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[k].pair];
        if (p->region_count == 0)
        {
            continue;
        }
        s.pairs[listed] = k;
        s.analytic[listed] = analytic_pair(w, p);
        s.first[listed] = (uint32_t)total_regions;
        pair_steps(w, p, &s.h[(size_t)listed * 12]);
        total_regions += p->region_count;
        listed++;
    }
    if (st == MC_OK)
    {
        s.geo = mc_alloc_array((size_t)total_regions * DIRS, sizeof *s.geo);
        s.deriv = mc_alloc_array((size_t)total_regions, sizeof *s.deriv);
        st = s.geo == NULL || s.deriv == NULL ? MC_ERR_OUT_OF_MEMORY : run_queries(w, &s, write, max_regions);
    }
    for (uint32_t k = 0; st == MC_OK && k < write; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[s.pairs[k]].pair];
        uint32_t changed = 0;
        for (uint32_t d = 0; d < DIRS; ++d)
        {
            changed |= s.status[k * DIRS + d] == 3;
        }
        st = fill_block(w, p, &s.h[(size_t)k * 12], &s.geo[(size_t)s.first[k] * DIRS],
                        s.analytic[k] ? &s.deriv[s.first[k]] : NULL, changed, &out[k]);
        if (st != MC_OK)
        {
            mc_log("mc_world_get_jacobian: bodies %u and %u: a derivative overflowed", p->body_i, p->body_j);
        }
    }
    scratch_free(&s);
    if (st != MC_OK)
    {
        return st;
    }
    return available > capacity ? MC_ERR_CAPACITY : MC_OK;
}

mc_status mc_world_set_jacobian_method(mc_world* world, mc_jacobian_method method)
{
    if (world == NULL || (method != MC_JACOBIAN_ANALYTIC && method != MC_JACOBIAN_DIFFERENCES))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    world->jacobian_differences = method == MC_JACOBIAN_DIFFERENCES;
    return MC_OK;
}

void mc_world_set_jacobian_differences(mc_world* w, bool differences)
{
    if (w != NULL)
    {
        w->jacobian_differences = differences;
    }
}
