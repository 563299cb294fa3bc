// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Broad phase: world boxes of the bodies that belong to a contact, a bounding volume tree over them (median split
// along the longest axis of the box centres), the tree collided with itself (each unordered leaf pair once), and the
// overlapping body pairs turned into candidate contact pairs through the bodies' contact memberships. Sorted by
// (contact, I body, J body), the candidates depend only on the current poses: not on history or worker_count.
// Based on: the self-collision of one bounding volume hierarchy (as in Box2D's dynamic tree pair query and RAPID's
// tree traversal); rebuilt per evaluation rather than updated, which keeps it history-free.
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

// World AABB of a body: the mesh's body-frame box, rotated (|R| applied to the half extents).
static void body_update_box(mc_body* b)
{
    const mc_mesh_report* r = mc_mesh_get_report(b->mesh);
    mc_vec3 c = mc_scale(mc_add(r->bbox_min, r->bbox_max), 0.5);
    mc_vec3 h = mc_scale(mc_sub(r->bbox_max, r->bbox_min), 0.5);
    mc_mat33 m = mc_quat_to_mat33(b->pose.q);
    mc_vec3 wc = mc_pose_transform(&b->pose, c);
    double e[3];
    for (int i = 0; i < 3; ++i)
    {
        e[i] = fabs(m.m[i][0]) * h.x + fabs(m.m[i][1]) * h.y + fabs(m.m[i][2]) * h.z;
        e[i] = e[i] * (1.0 + 1e-12) + 1e-300; // rounding of the rotation: never cull a touching pair
    }
    double pad = 1e-12 * (fabs(wc.x) + fabs(wc.y) + fabs(wc.z));
    b->box_min = mc_v3(wc.x - e[0] - pad, wc.y - e[1] - pad, wc.z - e[2] - pad);
    b->box_max = mc_v3(wc.x + e[0] + pad, wc.y + e[1] + pad, wc.z + e[2] + pad);
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
    const mc_body* ba = &ctx->bodies[a];
    const mc_body* bb = &ctx->bodies[b];
    uint32_t i = 0, j = 0;
    while (i < ba->member_count && j < bb->member_count)
    {
        const mc_membership* ma = &ba->members[i];
        const mc_membership* mb = &bb->members[j];
        if (ma->contact != mb->contact)
        {
            i += ma->contact < mb->contact;
            j += mb->contact < ma->contact;
            continue;
        }
        ++i, ++j;
        bool ab = (ma->flags & MC_MEMBER_I) && (mb->flags & MC_MEMBER_J);
        bool ba_ = (mb->flags & MC_MEMBER_I) && (ma->flags & MC_MEMBER_J);
        if ((!ab && !ba_) || mc_contact_excludes(&w->contacts[ma->contact], a, b))
        {
            continue;
        }
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
        k->contact = ma->contact;
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
        emit_pair(ctx, a->right, b->right, false);
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
    qsort(w->found, w->found_count, sizeof *w->found, cmp_key);
    return MC_OK;
}
