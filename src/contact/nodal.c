// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Nodal forces of flexible bodies (mc_nodal_forces, include/meshcontact/flex.h): each region's force spread over the
// deformable mesh's vertices inside the other solid in proportion to their penetration (Adams' rule), or over the
// nearest triangle's vertices when no vertex is inside.
#include "bvh/bvh.h"
#include "meshcontact/flex.h"
#include "src/base/core.h"

#include <math.h>

// The closest point of triangle (a, b, c) to p, with its barycentric coordinates (Ericson, Real-Time Collision
// Detection, 5.1.5).
static mc_vec3 closest_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c, double w[3])
{
    mc_vec3 ab = mc_sub(b, a), ac = mc_sub(c, a), ap = mc_sub(p, a);
    double d1 = mc_dot(ab, ap), d2 = mc_dot(ac, ap);
    w[0] = 1.0, w[1] = 0.0, w[2] = 0.0;
    if (d1 <= 0.0 && d2 <= 0.0)
    {
        return a;
    }
    mc_vec3 bp = mc_sub(p, b);
    double d3 = mc_dot(ab, bp), d4 = mc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
    {
        w[0] = 0.0, w[1] = 1.0;
        return b;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
    {
        double v = d1 / (d1 - d3);
        w[0] = 1.0 - v, w[1] = v;
        return mc_mul_add(a, v, ab);
    }
    mc_vec3 cp = mc_sub(p, c);
    double d5 = mc_dot(ab, cp), d6 = mc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
    {
        w[0] = 0.0, w[2] = 1.0;
        return c;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
    {
        double v = d2 / (d2 - d6);
        w[0] = 1.0 - v, w[2] = v;
        return mc_mul_add(a, v, ac);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
    {
        double v = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        w[0] = 0.0, w[1] = 1.0 - v, w[2] = v;
        return mc_mul_add(b, v, mc_sub(c, b));
    }
    double den = 1.0 / (va + vb + vc);
    double v = vb * den, u = vc * den;
    w[0] = 1.0 - v - u, w[1] = v, w[2] = u;
    return mc_add(a, mc_add(mc_scale(ab, v), mc_scale(ac, u)));
}

typedef struct nodal_ctx
{
    const mc_mesh* flex;
    const mc_pose* flex_pose;
    const mc_mesh* other;
    const mc_pose* other_pose;
    const mc_region* regions;
    const mc_vec3* forces;
    uint32_t region_count;
    mc_nodal_force* out;
    uint32_t capacity;
    uint32_t count;
} nodal_ctx;

static void push(nodal_ctx* c, uint32_t vertex, uint32_t region, double penetration, mc_vec3 force)
{
    if (c->count < c->capacity)
    {
        c->out[c->count] = (mc_nodal_force){vertex, region, penetration, force};
    }
    c->count++;
}

// The region whose centroid is nearest to x (world), the first on ties; MC_NONE when no region has a force.
static uint32_t nearest_region(const nodal_ctx* c, mc_vec3 x)
{
    uint32_t best = MC_NONE;
    double best_d = INFINITY;
    for (uint32_t r = 0; r < c->region_count; ++r)
    {
        mc_vec3 f = c->forces[r];
        if (f.x == 0.0 && f.y == 0.0 && f.z == 0.0)
        {
            continue;
        }
        mc_vec3 d = mc_sub(x, c->regions[r].centroid);
        double dd = mc_dot(d, d);
        if (dd < best_d)
        {
            best_d = dd;
            best = r;
        }
    }
    return best;
}

// Pass 1: every vertex of flex inside other, its region and its penetration along the region's force direction.
static void inside_nodes(nodal_ctx* c)
{
    const mc_mesh* o = c->other;
    const mc_mesh_report* rep = mc_mesh_get_report(o);
    double diag = mc_length(mc_sub(rep->bbox_max, rep->bbox_min));
    double pad = 1e-9 * diag;
    bool bounded = !rep->flipped;
    const mc_vec3* pos = mc_mesh_get_positions(c->flex);
    for (uint32_t v = 0; v < mc_mesh_get_vertex_count(c->flex); ++v)
    {
        mc_vec3 xw = mc_pose_transform(c->flex_pose, pos[v]);
        mc_vec3 xo = mc_pose_inv_transform(c->other_pose, xw);
        if (bounded && (xo.x < rep->bbox_min.x - pad || xo.y < rep->bbox_min.y - pad || xo.z < rep->bbox_min.z - pad ||
                        xo.x > rep->bbox_max.x + pad || xo.y > rep->bbox_max.y + pad || xo.z > rep->bbox_max.z + pad))
        {
            continue;
        }
        if (!mc_mesh_contains_point(o, xo))
        {
            continue;
        }
        uint32_t r = nearest_region(c, xw);
        if (r == MC_NONE)
        {
            continue;
        }
        mc_vec3 dw = mc_normalize(c->forces[r]);
        mc_vec3 d = mc_quat_rotate(mc_quat_conj(c->other_pose->q), dw);
        double t = 0.0;
        bool ambiguous = false;
        double reach = 4.0 * diag + 2.0 * mc_length(mc_sub(xo, mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5)));
        if (mc_bvh_ray_first_hit(o, 0, NULL, xo, d, reach, MC_NONE, &t, &ambiguous) == MC_NONE)
        {
            t = 0.0; // no exit along the force (a flipped other's unbounded solid): no weight of its own
        }
        push(c, v, r, t, mc_v3(0.0, 0.0, 0.0));
    }
}

// Pass 2 for region r with nodes among out[0 .. n): shares of F by penetration (equal shares when every penetration
// is 0), the deepest node taking F minus the others so that they sum to F; returns the moment about the centroid.
static mc_vec3 share_region(nodal_ctx* c, uint32_t n, uint32_t r, bool* any)
{
    mc_vec3 f = c->forces[r], cen = c->regions[r].centroid;
    double total = 0.0;
    uint32_t nodes = 0, deepest = MC_NONE;
    for (uint32_t k = 0; k < n; ++k)
    {
        if (c->out[k].region == r)
        {
            total += c->out[k].penetration;
            nodes++;
            deepest = deepest == MC_NONE || c->out[k].penetration > c->out[deepest].penetration ? k : deepest;
        }
    }
    *any = nodes > 0;
    if (nodes == 0)
    {
        return mc_v3(0.0, 0.0, 0.0);
    }
    mc_vec3 rest = mc_v3(0.0, 0.0, 0.0), moment = mc_v3(0.0, 0.0, 0.0);
    const mc_vec3* pos = mc_mesh_get_positions(c->flex);
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_nodal_force* e = &c->out[k];
        if (e->region != r || k == deepest)
        {
            continue;
        }
        double w = total > 0.0 ? e->penetration / total : 1.0 / (double)nodes;
        e->force = mc_scale(f, w);
        rest = mc_add(rest, e->force);
        moment = mc_add(moment, mc_cross(mc_sub(mc_pose_transform(c->flex_pose, pos[e->vertex]), cen), e->force));
    }
    mc_nodal_force* e = &c->out[deepest];
    e->force = mc_sub(f, rest);
    return mc_add(moment, mc_cross(mc_sub(mc_pose_transform(c->flex_pose, pos[e->vertex]), cen), e->force));
}

// A region without inside node: its force on the vertices of the flex triangle nearest its centroid, by the
// barycentric coordinates of the centroid's closest point on it. Returns the moment about the centroid.
static mc_vec3 vertex_free_region(nodal_ctx* c, uint32_t r)
{
    const mc_vec3* pos = mc_mesh_get_positions(c->flex);
    const uint32_t* idx = mc_mesh_get_indices(c->flex);
    mc_vec3 cen = mc_pose_inv_transform(c->flex_pose, c->regions[r].centroid);
    double best = INFINITY, bw[3] = {1.0, 0.0, 0.0};
    uint32_t bt = 0;
    mc_vec3 bq = pos[idx[0]];
    for (uint32_t t = 0; t < mc_mesh_get_triangle_count(c->flex); ++t)
    {
        double w[3];
        mc_vec3 q = closest_on_triangle(cen, pos[idx[3 * t]], pos[idx[3 * t + 1]], pos[idx[3 * t + 2]], w);
        mc_vec3 d = mc_sub(q, cen);
        double dd = mc_dot(d, d);
        if (dd < best)
        {
            best = dd, bt = t, bq = q;
            bw[0] = w[0], bw[1] = w[1], bw[2] = w[2];
        }
    }
    mc_vec3 f = c->forces[r], rest = mc_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < 2; ++k)
    {
        mc_vec3 fk = mc_scale(f, bw[k]);
        rest = mc_add(rest, fk);
        push(c, idx[3 * bt + (uint32_t)k], r, 0.0, fk);
    }
    push(c, idx[3 * bt + 2], r, 0.0, mc_sub(f, rest));
    mc_vec3 qw = mc_pose_transform(c->flex_pose, bq);
    return mc_cross(mc_sub(qw, c->regions[r].centroid), f);
}

mc_status mc_nodal_forces(const mc_mesh* flex, const mc_pose* flex_pose, const mc_mesh* other,
                          const mc_pose* other_pose, const mc_region* regions, const mc_vec3* forces,
                          uint32_t region_count, mc_nodal_force* out, uint32_t capacity, uint32_t* count,
                          mc_vec3* moment_lost)
{
    if (flex == NULL || flex_pose == NULL || other == NULL || other_pose == NULL || count == NULL ||
        (region_count > 0 && (regions == NULL || forces == NULL)) || (capacity > 0 && out == NULL) ||
        !mc_pose_is_valid(flex_pose) || !mc_pose_is_valid(other_pose) || other->bvh == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t r = 0; r < region_count; ++r)
    {
        if (!isfinite(forces[r].x) || !isfinite(forces[r].y) || !isfinite(forces[r].z))
        {
            return MC_ERR_INVALID_ARGUMENT;
        }
    }
    nodal_ctx c = {flex, flex_pose, other, other_pose, regions, forces, region_count, out, capacity, 0};
    mc_mesh_use_begin(flex);
    mc_mesh_use_begin(other);
    inside_nodes(&c);
    uint32_t n = c.count;
    for (uint32_t r = 0; r < region_count; ++r)
    {
        // Past the caller's buffer nothing is shared out (the call fails with the count of inside nodes).
        mc_vec3 f = forces[r], m = mc_v3(0.0, 0.0, 0.0);
        bool any = n > capacity;
        if (n <= capacity)
        {
            m = share_region(&c, n, r, &any);
        }
        if (!any && !(f.x == 0.0 && f.y == 0.0 && f.z == 0.0))
        {
            m = vertex_free_region(&c, r);
        }
        if (moment_lost != NULL)
        {
            moment_lost[r] = mc_scale(m, -1.0);
        }
    }
    mc_mesh_use_end(flex);
    mc_mesh_use_end(other);
    *count = c.count;
    return c.count > capacity ? MC_ERR_CAPACITY : MC_OK;
}
