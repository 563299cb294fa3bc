// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Broad phase: world boxes of the bodies that belong to a contact, a bounding volume tree over them (median split
// along the longest axis of the box centres), the tree collided with itself (each unordered leaf pair once), and the
// overlapping body pairs turned into candidate contact pairs through the bodies' contact memberships. Sorted by
// (contact, I body, J body), the candidates depend only on the current poses: not on history or worker_count.
// Based on: the self-collision of one bounding volume hierarchy (as in Box2D's dynamic tree pair query and RAPID's
// tree traversal); rebuilt per evaluation rather than updated, which keeps it history-free.
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// A tree node: box and children (leaf: left < 0 and right = the body slot).
typedef struct mc_bp_node
{
    mc_vec3 lo;     ///< box lower corner
    mc_vec3 hi;     ///< box upper corner
    int32_t left;   ///< left child node, or -1 for a leaf
    uint32_t right; ///< right child node, or the body slot of a leaf
} mc_bp_node;

void mc_broadphase_free(mc_broadphase* bp)
{
    mc_free(bp->proxies);
    mc_free(bp->unbounded);
    mc_free(bp->nodes);
    memset(bp, 0, sizeof *bp);
}

void mc_body_init_bounds(mc_body* b)
{
    const mc_bvh* t = b->mesh->bvh;
    if (t != NULL && t->node_count > 0)
    {
        const mc_bvh_node* root = &t->nodes[0];
        b->obb_center = mc_v3(root->center[0], root->center[1], root->center[2]);
        for (int k = 0; k < 3; ++k)
        {
            double e = root->extent[k];
            b->obb_half[k] = mc_v3(e * root->axis[k][0], e * root->axis[k][1], e * root->axis[k][2]);
        }
    }
    else // no tree (no triangles): the axis-aligned box of the report
    {
        const mc_mesh_report* r = mc_mesh_get_report(b->mesh);
        b->obb_center = mc_scale(mc_add(r->bbox_min, r->bbox_max), 0.5);
        mc_vec3 h = mc_scale(mc_sub(r->bbox_max, r->bbox_min), 0.5);
        b->obb_half[0] = mc_v3(h.x, 0.0, 0.0);
        b->obb_half[1] = mc_v3(0.0, h.y, 0.0);
        b->obb_half[2] = mc_v3(0.0, 0.0, h.z);
    }
    const mc_vec3* p = mc_mesh_get_positions(b->mesh);
    double r2 = 0.0;
    for (uint32_t v = 0; v < mc_mesh_get_vertex_count(b->mesh); ++v)
    {
        mc_vec3 d = mc_sub(p[v], b->obb_center);
        r2 = fmax(r2, mc_dot(d, d));
    }
    b->radius = sqrt(r2) * (1.0 + 1e-12) + 1e-300; // rounding of the distances: never cull a touching pair
}

// World AABB of a body: its root OBB (the float box as stored contains every vertex) rotated into the world, then
// padded for the rounding of the rotation. Also the bounding sphere's world centre.
static void body_update_box(mc_body* b)
{
    mc_vec3 wc = mc_pose_transform(&b->pose, b->obb_center);
    mc_vec3 a0 = mc_quat_rotate(b->pose.q, b->obb_half[0]);
    mc_vec3 a1 = mc_quat_rotate(b->pose.q, b->obb_half[1]);
    mc_vec3 a2 = mc_quat_rotate(b->pose.q, b->obb_half[2]);
    double ex = fabs(a0.x) + fabs(a1.x) + fabs(a2.x);
    double ey = fabs(a0.y) + fabs(a1.y) + fabs(a2.y);
    double ez = fabs(a0.z) + fabs(a1.z) + fabs(a2.z);
    double pad = 1e-12 * (fabs(wc.x) + fabs(wc.y) + fabs(wc.z) + ex + ey + ez) + 1e-300;
    b->center = wc;
    b->box_min = mc_v3(wc.x - ex - pad, wc.y - ey - pad, wc.z - ez - pad);
    b->box_max = mc_v3(wc.x + ex + pad, wc.y + ey + pad, wc.z + ez + pad);
}

// Bounding spheres of two bounded bodies overlap (padded for the rounding of the world centres).
static bool spheres_overlap(const mc_body* a, const mc_body* b)
{
    mc_vec3 d = mc_sub(a->center, b->center);
    double pad = 1e-12 * (fabs(a->center.x) + fabs(a->center.y) + fabs(a->center.z) + fabs(b->center.x) +
                          fabs(b->center.y) + fabs(b->center.z) + a->radius + b->radius);
    double r = a->radius + b->radius + pad;
    return mc_dot(d, d) <= r * r;
}

static bool overlap(mc_vec3 alo, mc_vec3 ahi, mc_vec3 blo, mc_vec3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z && blo.z <= ahi.z;
}

typedef struct bp_ctx
{
    mc_world* w;
    const mc_body* bodies;
    mc_bp_node* nodes;
    uint32_t node_count;
    int axis;
    bool oom;
} bp_ctx;

// Append the candidate pairs of bodies x and y (slots, x != y): one per contact listing both that pairs them and
// does not exclude them. I is the body from the I list, or the lower slot when both orientations are listed.
static void emit_pair(bp_ctx* ctx, uint32_t x, uint32_t y, bool flag_only)
{
    mc_world* w = ctx->w;
    uint32_t a = x < y ? x : y, b = x < y ? y : x;
    uint32_t i = 0, j = 0, contact = 0;
    bool ab = false;
    while (mc_next_pairing_contact(w, a, b, &i, &j, &contact, &ab))
    {
        if (flag_only)
        {
            w->info.flags |= MC_STEP_UNBOUNDED_PAIR;
            continue;
        }
        if (!mc_array_reserve((void**)&w->found, &w->found_capacity, (uint64_t)w->found_count + 1, sizeof *w->found,
                              64))
        {
            ctx->oom = true;
            return;
        }
        mc_pair_key* k = &w->found[w->found_count++];
        k->contact = contact;
        k->body_i = ab ? a : b;
        k->body_j = ab ? b : a;
        k->pair = 0;
    }
}

static double centre(const mc_body* b, int axis)
{
    return axis == 0   ? b->box_min.x + b->box_max.x
           : axis == 1 ? b->box_min.y + b->box_max.y
                       : b->box_min.z + b->box_max.z;
}

// Total order on proxies along ctx->axis: centre, then slot.
static bool before(const bp_ctx* ctx, uint32_t s, uint32_t t)
{
    double a = centre(&ctx->bodies[s], ctx->axis), b = centre(&ctx->bodies[t], ctx->axis);
    return a < b || (a == b && s < t);
}

// Reorder p[0, n) so that p[k] is the k-th in the order `before`, smaller ones before it, larger after (Hoare-style
// quickselect with a median-of-three pivot; deterministic).
static void select_kth(const bp_ctx* ctx, uint32_t* p, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi > lo)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t x = p[lo], y = p[mid], z = p[hi];
        uint32_t piv = before(ctx, x, y) ? (before(ctx, y, z) ? y : (before(ctx, x, z) ? z : x))
                                         : (before(ctx, x, z) ? x : (before(ctx, y, z) ? z : y));
        uint32_t i = lo, j = hi;
        while (i <= j)
        {
            while (before(ctx, p[i], piv))
            {
                ++i;
            }
            while (before(ctx, piv, p[j]))
            {
                --j;
            }
            if (i <= j)
            {
                uint32_t t = p[i];
                p[i] = p[j];
                p[j] = t;
                ++i;
                if (j == 0)
                {
                    break;
                }
                --j;
            }
        }
        if (k <= j)
        {
            hi = j;
        }
        else if (k >= i)
        {
            lo = i;
        }
        else
        {
            return;
        }
    }
}

static int longest_axis(const bp_ctx* ctx, const uint32_t* p, uint32_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = 0; k < n; ++k)
    {
        for (int a = 0; a < 3; ++a)
        {
            double c = centre(&ctx->bodies[p[k]], a);
            lo[a] = c < lo[a] ? c : lo[a];
            hi[a] = c > hi[a] ? c : hi[a];
        }
    }
    double ex = hi[0] - lo[0], ey = hi[1] - lo[1], ez = hi[2] - lo[2];
    return ex >= ey && ex >= ez ? 0 : (ey >= ez ? 1 : 2);
}

// Build the subtree over p[0, n) (n >= 1); @return its node index.
static uint32_t build(bp_ctx* ctx, uint32_t* p, uint32_t n)
{
    uint32_t id = ctx->node_count++;
    mc_bp_node* node = &ctx->nodes[id];
    if (n == 1)
    {
        const mc_body* b = &ctx->bodies[p[0]];
        node->lo = b->box_min;
        node->hi = b->box_max;
        node->left = -1;
        node->right = p[0];
        return id;
    }
    ctx->axis = longest_axis(ctx, p, n);
    uint32_t half = n / 2;
    select_kth(ctx, p, n, half);
    uint32_t l = build(ctx, p, half);
    uint32_t r = build(ctx, p + half, n - half);
    node = &ctx->nodes[id];
    const mc_bp_node* a = &ctx->nodes[l];
    const mc_bp_node* b = &ctx->nodes[r];
    node->lo = mc_v3(fmin(a->lo.x, b->lo.x), fmin(a->lo.y, b->lo.y), fmin(a->lo.z, b->lo.z));
    node->hi = mc_v3(fmax(a->hi.x, b->hi.x), fmax(a->hi.y, b->hi.y), fmax(a->hi.z, b->hi.z));
    node->left = (int32_t)l;
    node->right = r;
    return id;
}

// Overlapping leaf pairs between subtrees s and t (disjoint).
static void cross(bp_ctx* ctx, uint32_t s, uint32_t t)
{
    const mc_bp_node* a = &ctx->nodes[s];
    const mc_bp_node* b = &ctx->nodes[t];
    if (ctx->oom || !overlap(a->lo, a->hi, b->lo, b->hi))
    {
        return;
    }
    if (a->left < 0 && b->left < 0)
    {
        if (spheres_overlap(&ctx->bodies[a->right], &ctx->bodies[b->right]))
        {
            emit_pair(ctx, a->right, b->right, false);
        }
        return;
    }
    // Descend the inner node with the larger box (by the sum of its extents), or the only inner one.
    double ea = (a->hi.x - a->lo.x) + (a->hi.y - a->lo.y) + (a->hi.z - a->lo.z);
    double eb = (b->hi.x - b->lo.x) + (b->hi.y - b->lo.y) + (b->hi.z - b->lo.z);
    if (b->left < 0 || (a->left >= 0 && ea >= eb))
    {
        cross(ctx, (uint32_t)a->left, t);
        cross(ctx, a->right, t);
    }
    else
    {
        cross(ctx, s, (uint32_t)b->left);
        cross(ctx, s, b->right);
    }
}

// Overlapping leaf pairs within subtree s.
static void self(bp_ctx* ctx, uint32_t s)
{
    const mc_bp_node* a = &ctx->nodes[s];
    if (a->left < 0 || ctx->oom)
    {
        return;
    }
    uint32_t l = (uint32_t)a->left, r = a->right;
    self(ctx, l);
    self(ctx, r);
    cross(ctx, l, r);
}

static int cmp_key(const void* pa, const void* pb)
{
    const mc_pair_key* a = pa;
    const mc_pair_key* b = pb;
    if (a->contact != b->contact)
    {
        return a->contact < b->contact ? -1 : 1;
    }
    if (a->body_i != b->body_i)
    {
        return a->body_i < b->body_i ? -1 : 1;
    }
    return (a->body_j > b->body_j) - (a->body_j < b->body_j);
}

// Boxes of the bodies that belong to a contact; bounded ones become proxies, flipped ones go to the unbounded list.
static bool gather_proxies(mc_world* w, uint32_t* np, uint32_t* nu)
{
    mc_broadphase* bp = &w->bp;
    uint32_t n = 0, u = 0;
    for (uint32_t s = 0; s < w->body_slots; ++s)
    {
        mc_body* b = &w->bodies[s];
        if (!b->alive || b->member_count == 0)
        {
            continue;
        }
        bool ok = b->unbounded ? mc_array_reserve((void**)&bp->unbounded, &bp->unbounded_capacity, (uint64_t)u + 1,
                                                  sizeof *bp->unbounded, 4)
                               : mc_array_reserve((void**)&bp->proxies, &bp->proxy_capacity, (uint64_t)n + 1,
                                                  sizeof *bp->proxies, 64);
        if (!ok)
        {
            return false;
        }
        if (b->unbounded)
        {
            bp->unbounded[u++] = s;
        }
        else
        {
            body_update_box(b);
            bp->proxies[n++] = s;
        }
    }
    *np = n;
    *nu = u;
    return true;
}

mc_status mc_broadphase_collect(mc_world* w)
{
    mc_broadphase* bp = &w->bp;
    w->found_count = 0;
    uint32_t n = 0, u = 0;
    if (!gather_proxies(w, &n, &u) || (n > 0 && !mc_array_reserve((void**)&bp->nodes, &bp->node_capacity,
                                                                  2 * (uint64_t)n - 1, sizeof *bp->nodes, 64)))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    bp_ctx ctx = {w, w->bodies, bp->nodes, 0, 0, false};
    if (n > 0)
    {
        uint32_t root = build(&ctx, bp->proxies, n);
        self(&ctx, root);
    }
    // Unbounded bodies overlap everything: pair them with every proxy; two unbounded bodies are only flagged.
    for (uint32_t k = 0; k < u && !ctx.oom; ++k)
    {
        for (uint32_t m = 0; m < n && !ctx.oom; ++m)
        {
            emit_pair(&ctx, bp->unbounded[k], bp->proxies[m], false);
        }
        for (uint32_t m = k + 1; m < u; ++m)
        {
            emit_pair(&ctx, bp->unbounded[k], bp->unbounded[m], true);
        }
    }
    if (ctx.oom)
    {
        w->found_count = 0;
        return MC_ERR_OUT_OF_MEMORY;
    }
    if (w->found_count > 1)
    {
        qsort(w->found, w->found_count, sizeof *w->found, cmp_key);
    }
    return MC_OK;
}
