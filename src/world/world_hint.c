// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact prediction: a lower bound of the time until the first contact onset of the separated body pairs under
// constant velocities (mc_world_get_step_hint), from the distance query and a bound of the bodies' point speeds.
// Pairs are found by a sweep over the bodies' bounding spheres sorted along x within a time horizon that grows by 4
// until it covers the best bound (cost grows with the bodies and the pairs near each other, not with their square).
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/// Does some contact definition pair body slots a < b (one in its I list, the other in its J list, not excluded)?
static bool pair_defined(const mc_world* w, uint32_t a, uint32_t b)
{
    uint32_t i = 0, j = 0, contact = 0;
    bool a_is_i = false;
    return mc_next_pairing_contact(w, a, b, &i, &j, &contact, &a_is_i);
}

/// The largest speed any point of body b's boundary can reach at any time while its twist stays constant: a point x
/// moves at v + w x (x - p(t)) and |x - p(t)| stays at most |c - p| + r (c, r: a bounding sphere of the boundary, p:
/// the reference point); the distance of two solids changes only as fast as their boundaries move. A flipped mesh's
/// boundary is its (finite) surface, a socket's its sphere; a plane's or a hole's is unbounded: any speed is possible
/// when it turns (INFINITY).
static double speed_bound(const mc_body* b, mc_vec3 center)
{
    double v = mc_length(b->velocity.v);
    double w = mc_length(b->velocity.w);
    if (w == 0.0)
    {
        return v;
    }
    mc_vec3 c = center;
    double r = b->radius;
    if (b->unbounded && b->mesh != NULL)
    {
        const mc_mesh_report* rep = mc_mesh_get_report(b->mesh);
        c = mc_pose_transform(&b->pose, mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5));
        r = 0.5 * mc_length(mc_sub(rep->bbox_max, rep->bbox_min)) * (1.0 + 1e-12);
    }
    else if (b->unbounded && b->shape.type == MC_SHAPE_SPHERE)
    {
        c = b->pose.p;
        r = b->shape.radius;
    }
    else if (b->unbounded)
    {
        return INFINITY;
    }
    return v + w * (mc_length(mc_sub(c, b->pose.p)) + r);
}

typedef struct hint_body
{
    uint32_t slot; ///< body slot
    mc_vec3 c;     ///< bounding sphere centre, world frame
    double r;      ///< bounding sphere radius
    double s;      ///< speed bound
} hint_body;

static int cmp_lo(const void* pa, const void* pb)
{
    const hint_body* a = pa;
    const hint_body* b = pb;
    double la = a->c.x - a->r, lb = b->c.x - b->r;
    return la < lb ? -1 : la > lb ? 1 : (a->slot > b->slot) - (a->slot < b->slot); // total order: deterministic
}

/// Height above the plane body `pl` (its half-space z <= 0) of the lowest point of body b: its mesh's vertices (a
/// polyhedron's lowest point is a vertex), a ball's centre less its radius, a cylinder's lowest rim point.
/// @return false when b is none of these (then the caller bounds the distance otherwise)
static bool height_above_plane(const mc_body* pl, const mc_body* b, double* h)
{
    mc_pose to_plane = mc_pose_inverse(&pl->pose);
    mc_pose rel = mc_pose_mul(&to_plane, &b->pose); // b's frame to the plane's frame
    if (b->mesh != NULL)
    {
        if (b->unbounded)
        {
            return false;
        }
        const mc_vec3* p = mc_mesh_get_positions(b->mesh);
        double lo = INFINITY;
        for (uint32_t k = 0; k < mc_mesh_get_vertex_count(b->mesh); ++k)
        {
            lo = fmin(lo, mc_pose_transform(&rel, p[k]).z);
        }
        *h = lo;
        return true;
    }
    if (b->shape.flip)
    {
        return false;
    }
    if (b->shape.type == MC_SHAPE_SPHERE)
    {
        *h = rel.p.z - b->shape.radius;
        return true;
    }
    if (b->shape.type == MC_SHAPE_CYLINDER)
    {
        double az = mc_quat_rotate(rel.q, mc_v3(0.0, 0.0, 1.0)).z; // axis' z component in the plane frame
        *h = rel.p.z - fabs(az) * 0.5 * b->shape.length - b->shape.radius * sqrt(fmax(0.0, 1.0 - az * az));
        return true;
    }
    return false;
}

/// A lower bound of the distance of two bodies' solids (exact for meshes, balls, and a plane with a mesh, a ball or
/// a cylinder), or *in_contact when they touch or overlap. Other analytic pairs: the shape query tells contact, and
/// the bounding spheres' gap (0 for an unbounded body) bounds the distance from below.
static mc_status pair_distance(mc_world* w, const hint_body* ha, const hint_body* hb, double max_d, double* d,
                               bool* in_contact)
{
    const mc_body* ba = &w->bodies[ha->slot];
    const mc_body* bb = &w->bodies[hb->slot];
    *in_contact = false;
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1; // many small queries: threads would only wait (the result does not depend on it)
    if (ba->mesh != NULL && bb->mesh != NULL)
    {
        mc_distance_result r;
        mc_status st = mc_query_distance(ba->mesh, &ba->pose, bb->mesh, &bb->pose, fmax(max_d, DBL_MIN), &opt,
                                         w->workspaces[0], &r);
        if (st != MC_OK)
        {
            return st;
        }
        // Pairs in contact (crossing, contained or touching) are left out: no onset of theirs can be missed.
        *in_contact = !(r.kind == MC_DISTANCE_BEYOND || (r.kind == MC_DISTANCE_SEPARATED && r.distance > 0.0));
        *d = r.kind == MC_DISTANCE_BEYOND ? INFINITY : r.distance; // beyond max_d: no better than the caller's bound
        return MC_OK;
    }
    double g = 0.0;
    bool exact = false;
    const mc_shape* sa = &ba->shape;
    const mc_shape* sb = &bb->shape;
    if (ba->mesh == NULL && bb->mesh == NULL && sa->type == MC_SHAPE_SPHERE && sb->type == MC_SHAPE_SPHERE &&
        !sa->flip && !sb->flip)
    {
        g = mc_length(mc_sub(bb->pose.p, ba->pose.p)) - sa->radius - sb->radius;
        exact = true;
    }
    else if (ba->mesh == NULL && sa->type == MC_SHAPE_PLANE)
    {
        exact = height_above_plane(ba, bb, &g);
    }
    else if (bb->mesh == NULL && sb->type == MC_SHAPE_PLANE)
    {
        exact = height_above_plane(bb, ba, &g);
    }
    if (exact)
    {
        *in_contact = !(g > 0.0);
        *d = g;
        return MC_OK;
    }
    mc_shape qa = ba->mesh != NULL ? mc_shape_mesh(ba->mesh) : *sa;
    mc_shape qb = bb->mesh != NULL ? mc_shape_mesh(bb->mesh) : *sb;
    uint32_t n = 0;
    mc_status st = mc_query_shape_regions(&qa, &ba->pose, &qb, &bb->pose, &opt, w->workspaces[0], NULL, 0, &n, NULL);
    if (st == MC_ERR_UNSUPPORTED || st == MC_ERR_UNBOUNDED)
    {
        *in_contact = true; // the evaluation skips this pair too (MC_STEP_PAIR_FAILED): it has no onset
        return MC_OK;
    }
    if (st != MC_OK && st != MC_ERR_CAPACITY)
    {
        return st;
    }
    *in_contact = n > 0;
    *d = ba->unbounded || bb->unbounded ? 0.0
                                        : fmax(0.0, mc_length(mc_sub(hb->c, ha->c)) - ha->r - hb->r -
                                                        1e-12 * (mc_length(ha->c) + mc_length(hb->c) + ha->r + hb->r));
    return MC_OK;
}

// One pair: skipped when not paired by a contact, nothing moves, or its spheres' gap already gives at least the best
// bound or the horizon; else its distance bound updates *best (a distance beyond horizon * speed does not).
static mc_status visit(mc_world* w, const hint_body* a, const hint_body* b, double horizon, double* best)
{
    double speed = a->s + b->s;
    if (!(speed > 0.0))
    {
        return MC_OK; // nothing moves: no onset ever
    }
    uint32_t lo = a->slot < b->slot ? a->slot : b->slot;
    uint32_t hi = a->slot < b->slot ? b->slot : a->slot;
    double reach = fmin(*best, horizon) * speed;
    if (!w->bodies[a->slot].unbounded && !w->bodies[b->slot].unbounded)
    {
        // Bounding spheres first, with a relative allowance for the rounding of the centres.
        double gap =
            mc_length(mc_sub(b->c, a->c)) - a->r - b->r - 1e-12 * (mc_length(a->c) + mc_length(b->c) + a->r + b->r);
        if (gap >= reach)
        {
            return MC_OK;
        }
    }
    if (!pair_defined(w, lo, hi))
    {
        return MC_OK;
    }
    double d = 0.0;
    bool contact = false;
    mc_status st = pair_distance(w, a, b, reach, &d, &contact);
    if (st == MC_OK && !contact && isfinite(speed))
    {
        *best = fmin(*best, d / speed);
    }
    else if (st == MC_OK && !contact)
    {
        *best = fmin(*best, 0.0); // a turning unbounded body: any speed is possible
    }
    return st;
}

mc_status mc_world_get_step_hint(mc_world* world, double* step_out)
{
    if (world == NULL || step_out == NULL)
    {
        return mc_world_fail(world, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_get_step_hint", "NULL %s",
                             world == NULL ? "world" : "step_out");
    }
    MC_ASSERT(!world->evaluating);
    uint32_t n = 0, nu = 0;
    for (uint32_t k = 0; k < world->body_slots; ++k)
    {
        const mc_body* b = &world->bodies[k];
        n += b->alive && b->member_count > 0;
    }
    hint_body* hb = mc_alloc_array(n > 0 ? n : 1, sizeof *hb);
    if (hb == NULL)
    {
        return mc_world_fail(world, MC_ERR_OUT_OF_MEMORY, -1, "mc_world_get_step_hint", "out of memory (%u bodies)", n);
    }
    // Bounded bodies first (sorted below), the unbounded ones at the end.
    uint32_t nb = 0;
    for (uint32_t k = 0; k < world->body_slots; ++k)
    {
        const mc_body* b = &world->bodies[k];
        if (!b->alive || b->member_count == 0)
        {
            continue;
        }
        hint_body x;
        x.slot = k;
        x.c = b->unbounded ? b->pose.p : mc_pose_transform(&b->pose, b->obb_center);
        x.r = b->unbounded ? INFINITY : b->radius;
        x.s = speed_bound(b, x.c);
        if (b->unbounded)
        {
            hb[n - 1 - nu++] = x;
        }
        else
        {
            hb[nb++] = x;
        }
    }
    double best = INFINITY;
    mc_status st = MC_OK;
    // Pairs with an unbounded body (few: planes, sockets, holes, flipped meshes): each with every other body.
    for (uint32_t u = nb; u < n && st == MC_OK; ++u)
    {
        for (uint32_t k = 0; k < n && st == MC_OK; ++k)
        {
            if (k != u && (k < nb || hb[k].slot > hb[u].slot))
            {
                st = visit(world, &hb[u], &hb[k], INFINITY, &best);
            }
        }
    }
    // Bounded pairs: sweep along x within the horizon T (every pair whose spheres' gap is below T times its speed is
    // visited), T growing by 4 until it reaches the best bound found or covers every pair.
    qsort(hb, nb, sizeof *hb, cmp_lo);
    double smax = 0.0, smin = INFINITY, rmax = 0.0;
    mc_vec3 lo = mc_v3(INFINITY, INFINITY, INFINITY), hi = mc_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t k = 0; k < nb; ++k)
    {
        smax = fmax(smax, hb[k].s);
        smin = hb[k].s > 0.0 ? fmin(smin, hb[k].s) : smin;
        rmax = fmax(rmax, hb[k].r);
        lo = mc_v3(fmin(lo.x, hb[k].c.x), fmin(lo.y, hb[k].c.y), fmin(lo.z, hb[k].c.z));
        hi = mc_v3(fmax(hi.x, hb[k].c.x), fmax(hi.y, hb[k].c.y), fmax(hi.z, hb[k].c.z));
    }
    if (nb >= 2 && smax > 0.0 && st == MC_OK)
    {
        double t_end = (mc_length(mc_sub(hi, lo)) + 2.0 * rmax) / smin * 1.0000001; // every moving pair within
        double t = fmin(hb[nb / 2].r / smax, t_end);                                // a neighbourhood first
        t = t > 0.0 ? t : t_end;
        for (;;)
        {
            for (uint32_t i = 0; i < nb && st == MC_OK; ++i)
            {
                for (uint32_t j = i + 1; j < nb && st == MC_OK; ++j)
                {
                    double h = fmin(t, best);
                    // hb[j..] start further along x: none can be within reach once this one is not
                    if (hb[j].c.x - hb[j].r - (hb[i].c.x + hb[i].r) >
                        h * (hb[i].s + smax) * (1.0 + 1e-12) + 1e-12 * (fabs(hb[i].c.x) + fabs(hb[j].c.x)))
                    {
                        break;
                    }
                    double speed = hb[i].s + hb[j].s;
                    double gap = mc_length(mc_sub(hb[j].c, hb[i].c)) - hb[i].r - hb[j].r;
                    if (gap <= h * speed * (1.0 + 1e-12) + 1e-12 * (mc_length(hb[i].c) + mc_length(hb[j].c)))
                    {
                        st = visit(world, &hb[i], &hb[j], t, &best);
                    }
                }
            }
            if (st != MC_OK || best <= t || t >= t_end)
            {
                break;
            }
            t = fmin(4.0 * t, t_end);
        }
    }
    mc_free(hb);
    if (st != MC_OK)
    {
        return mc_world_fail(world, st, -1, "mc_world_get_step_hint", "a distance query failed (%s)",
                             mc_status_string(st));
    }
    *step_out = best;
    return MC_OK;
}
