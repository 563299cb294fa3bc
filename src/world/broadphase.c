// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Broad phase: world boxes and bounding spheres of the bodies that belong to a contact, and the candidate pairs:
// bodies whose boxes and spheres overlap and that a contact pairs (through the bodies' memberships, exclusions
// applied), sorted by (contact, I body, J body). The candidates depend only on the current poses, bodies and
// contacts: not on history or worker_count.
// How they are found (Box2D's enlarged boxes and moved bodies, with a static tree that is refitted or rebuilt): each
// body gets a fat box and a fat sphere, its tight ones grown by a margin (MC_BP_MARGIN of its bounding radius). A
// bounding volume tree over the fat boxes (median split along the widest spread of the centres, up to MC_BP_LEAF
// bodies a leaf), collided with itself, gives the fat pairs: a superset of the candidates as long as every body's
// tight box and sphere stay inside its fat ones. Each evaluation filters the fat pairs with the tight boxes and
// spheres, a few tests a pair. Bodies that left their fat volumes get new ones; when they are at most a quarter of
// the bodies, the tree is refitted and queried with each of them for its new fat pairs, which replace its old ones
// (a merge of sorted lists); otherwise, and when bodies or contacts were created or destroyed, or once the tree has
// been updated for as many bodies as it holds, everything is rebuilt. Without coherence (mc_world_def.coherence
// false) the margin is zero and the tree is rebuilt every evaluation. Either way the same exact tests decide each
// candidate.
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// A tree node: box and children. A leaf holds up to MC_BP_LEAF bodies, a contiguous run of the build order.
typedef struct mc_bp_node
{
    mc_vec3 lo;     ///< box lower corner
    mc_vec3 hi;     ///< box upper corner
    int32_t left;   ///< left child node, or minus the body count of a leaf
    uint32_t right; ///< right child node, or a leaf's first position in the build order
} mc_bp_node;

/// The broad phase's view of one bounded body (indexed by body slot): its tight box and sphere at the current poses,
/// and the fat ones of the last rebuild. Packed, because the tree reads each box many times and a body is a large
/// record.
typedef struct mc_bp_proxy
{
    mc_vec3 lo;     ///< world AABB lower corner (this evaluation)
    mc_vec3 hi;     ///< world AABB upper corner
    mc_vec3 centre; ///< bounding sphere centre in the world (this evaluation)
    double radius;  ///< bounding sphere radius
    mc_vec3 fat_lo; ///< fat box lower corner (last rebuild): lo then, less the margin
    mc_vec3 fat_hi; ///< fat box upper corner
    mc_vec3 fat_c;  ///< sphere centre at the last rebuild
    double margin;  ///< how far the centre may move from fat_c (and the fat sphere's extra radius)
} mc_bp_proxy;

/// Bodies per leaf: a leaf pair is tested as all its body pairs, cheaper than descending to single bodies.
#define MC_BP_LEAF 4

/// The fat boxes' margin, as a fraction of the body's bounding radius (Box2D grows its boxes by a fixed length; a
/// fraction of the size suits meshes of any unit). Larger margins mean fewer rebuilds and more fat pairs to filter.
#define MC_BP_MARGIN 0.1

void mc_broadphase_free(mc_broadphase* bp)
{
    mc_free(bp->proxies);
    mc_free(bp->moved);
    mc_free(bp->list);
    mc_free(bp->order);
    mc_free(bp->unbounded);
    mc_free(bp->nodes);
    mc_free(bp->fat.data);
    mc_free(bp->fresh.data);
    mc_free(bp->spare.data);
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

// Tight world box and sphere of a bounded body: its root OBB (the float box as stored contains every vertex)
// rotated into the world, then padded for the rounding of the rotation; the sphere's centre is the OBB's.
static void proxy_update(mc_bp_proxy* x, const mc_body* b)
{
    mc_vec3 wc = mc_pose_transform(&b->pose, b->obb_center);
    mc_vec3 a0 = mc_quat_rotate(b->pose.q, b->obb_half[0]);
    mc_vec3 a1 = mc_quat_rotate(b->pose.q, b->obb_half[1]);
    mc_vec3 a2 = mc_quat_rotate(b->pose.q, b->obb_half[2]);
    double ex = fabs(a0.x) + fabs(a1.x) + fabs(a2.x);
    double ey = fabs(a0.y) + fabs(a1.y) + fabs(a2.y);
    double ez = fabs(a0.z) + fabs(a1.z) + fabs(a2.z);
    double pad = 1e-12 * (fabs(wc.x) + fabs(wc.y) + fabs(wc.z) + ex + ey + ez) + 1e-300;
    x->centre = wc;
    x->radius = b->radius;
    x->lo = mc_v3(wc.x - ex - pad, wc.y - ey - pad, wc.z - ez - pad);
    x->hi = mc_v3(wc.x + ex + pad, wc.y + ey + pad, wc.z + ez + pad);
}

// The fat box and sphere from the tight ones (a rebuild).
static void proxy_fatten(mc_bp_proxy* x, double fraction)
{
    double m = fraction * x->radius;
    x->margin = m;
    x->fat_c = x->centre;
    x->fat_lo = mc_v3(x->lo.x - m, x->lo.y - m, x->lo.z - m);
    x->fat_hi = mc_v3(x->hi.x + m, x->hi.y + m, x->hi.z + m);
}

// The tight box is inside the fat box and the centre has moved less than the margin (with room for the rounding of
// the distance), so every pair the tight tests accept is among the fat pairs.
static bool proxy_inside(const mc_bp_proxy* x)
{
    mc_vec3 d = mc_sub(x->centre, x->fat_c);
    double m = 0.999 * x->margin;
    return x->fat_lo.x <= x->lo.x && x->fat_lo.y <= x->lo.y && x->fat_lo.z <= x->lo.z && x->hi.x <= x->fat_hi.x &&
           x->hi.y <= x->fat_hi.y && x->hi.z <= x->fat_hi.z && mc_dot(d, d) <= m * m;
}

static bool overlap(mc_vec3 alo, mc_vec3 ahi, mc_vec3 blo, mc_vec3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z && blo.z <= ahi.z;
}

// The exact test of a candidate: tight boxes overlap and bounding spheres overlap (padded for the rounding of the
// world centres).
static bool tight_overlap(const mc_bp_proxy* a, const mc_bp_proxy* b)
{
    if (!overlap(a->lo, a->hi, b->lo, b->hi))
    {
        return false;
    }
    mc_vec3 d = mc_sub(a->centre, b->centre);
    double pad = 1e-12 * (fabs(a->centre.x) + fabs(a->centre.y) + fabs(a->centre.z) + fabs(b->centre.x) +
                          fabs(b->centre.y) + fabs(b->centre.z) + a->radius + b->radius);
    double r = a->radius + b->radius + pad;
    return mc_dot(d, d) <= r * r;
}

// The rebuild's test: fat boxes overlap and fat spheres overlap. Its sphere allowance exceeds the tight test's by the
// two margins and a relative 1e-9, far above the rounding of either test, so it accepts every pair the tight test
// can accept while both bodies stay inside their fat volumes.
static bool fat_overlap(const mc_bp_proxy* a, const mc_bp_proxy* b)
{
    if (!overlap(a->fat_lo, a->fat_hi, b->fat_lo, b->fat_hi))
    {
        return false;
    }
    mc_vec3 d = mc_sub(a->fat_c, b->fat_c);
    double pad = 1e-12 * (fabs(a->fat_c.x) + fabs(a->fat_c.y) + fabs(a->fat_c.z) + fabs(b->fat_c.x) + fabs(b->fat_c.y) +
                          fabs(b->fat_c.z) + a->radius + b->radius);
    double r = (a->radius + b->radius + a->margin + b->margin) * (1.0 + 1e-9) + 2.0 * pad;
    return mc_dot(d, d) <= r * r;
}

typedef struct bp_ctx
{
    mc_world* w;
    const mc_bp_proxy* proxies; ///< by body slot
    const uint32_t* order;      ///< body slots in build order (each leaf a contiguous run)
    mc_bp_node* nodes;
    uint32_t node_count;
    int axis;
    mc_key_list* out; ///< where emit_pair appends
    bool oom;
} bp_ctx;

// Append the fat pairs of bodies x and y (slots, x != y) to ctx->out: one per contact listing both that pairs them
// and does not exclude them, I being the body from the I list, or the lower slot when both orientations are listed.
// `always` (a flipped body's pairs: no box) is kept in the key's `pair` field, which the filter reads; `flag_only`
// (two flipped bodies) only raises MC_STEP_UNBOUNDED_PAIR, in bp->fat_flags.
static void emit_pair(bp_ctx* ctx, uint32_t x, uint32_t y, bool always, bool flag_only)
{
    mc_world* w = ctx->w;
    mc_key_list* out = ctx->out;
    uint32_t a = x < y ? x : y, b = x < y ? y : x;
    uint32_t i = 0, j = 0, contact = 0;
    bool ab = false;
    while (mc_next_pairing_contact(w, a, b, &i, &j, &contact, &ab))
    {
        if (flag_only)
        {
            w->bp.fat_flags |= MC_STEP_UNBOUNDED_PAIR;
            continue;
        }
        if (!mc_array_reserve((void**)&out->data, &out->capacity, (uint64_t)out->count + 1, sizeof *out->data, 64))
        {
            ctx->oom = true;
            return;
        }
        mc_pair_key* k = &out->data[out->count++];
        k->contact = contact;
        k->body_i = ab ? a : b;
        k->body_j = ab ? b : a;
        k->pair = always;
    }
}

// Twice the fat box centre along ctx->axis (the sort key of the build).
static double key(const bp_ctx* ctx, uint32_t slot)
{
    const mc_bp_proxy* x = &ctx->proxies[slot];
    return ctx->axis == 0   ? x->fat_lo.x + x->fat_hi.x
           : ctx->axis == 1 ? x->fat_lo.y + x->fat_hi.y
                            : x->fat_lo.z + x->fat_hi.z;
}

// Total order along ctx->axis: centre, then slot.
static bool before(const bp_ctx* ctx, uint32_t s, uint32_t t)
{
    double a = key(ctx, s), b = key(ctx, t);
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

// Grow the box (lo, hi) to hold the box (l, h).
static inline void box_join(mc_vec3* lo, mc_vec3* hi, mc_vec3 l, mc_vec3 h)
{
    *lo = mc_v3(fmin(lo->x, l.x), fmin(lo->y, l.y), fmin(lo->z, l.z));
    *hi = mc_v3(fmax(hi->x, h.x), fmax(hi->y, h.y), fmax(hi->z, h.z));
}

// Fat box of the bodies p[0, n) into node, and the axis along which their centres spread most.
static int box_and_axis(const bp_ctx* ctx, const uint32_t* p, uint32_t n, mc_bp_node* node)
{
    double c0[3] = {INFINITY, INFINITY, INFINITY}, c1[3] = {-INFINITY, -INFINITY, -INFINITY};
    mc_vec3 bl = ctx->proxies[p[0]].fat_lo, bh = ctx->proxies[p[0]].fat_hi;
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_bp_proxy* x = &ctx->proxies[p[k]];
        box_join(&bl, &bh, x->fat_lo, x->fat_hi);
        double c[3] = {x->fat_lo.x + x->fat_hi.x, x->fat_lo.y + x->fat_hi.y, x->fat_lo.z + x->fat_hi.z};
        for (int a = 0; a < 3; ++a)
        {
            c0[a] = c[a] < c0[a] ? c[a] : c0[a];
            c1[a] = c[a] > c1[a] ? c[a] : c1[a];
        }
    }
    node->lo = bl;
    node->hi = bh;
    double ex = c1[0] - c0[0], ey = c1[1] - c0[1], ez = c1[2] - c0[2];
    return ex >= ey && ex >= ez ? 0 : (ey >= ez ? 1 : 2);
}

// Build the subtree over build-order positions [first, first + n) (n >= 1); @return its node index.
static uint32_t build(bp_ctx* ctx, uint32_t* order, uint32_t first, uint32_t n)
{
    uint32_t id = ctx->node_count++;
    int axis = box_and_axis(ctx, order + first, n, &ctx->nodes[id]);
    if (n <= MC_BP_LEAF)
    {
        ctx->nodes[id].left = -(int32_t)n;
        ctx->nodes[id].right = first;
        return id;
    }
    ctx->axis = axis;
    uint32_t half = n / 2;
    select_kth(ctx, order + first, n, half);
    uint32_t l = build(ctx, order, first, half);
    uint32_t r = build(ctx, order, first + half, n - half);
    ctx->nodes[id].left = (int32_t)l;
    ctx->nodes[id].right = r;
    return id;
}

static void test_fat(bp_ctx* ctx, uint32_t x, uint32_t y)
{
    if (fat_overlap(&ctx->proxies[x], &ctx->proxies[y]))
    {
        emit_pair(ctx, x, y, false, false);
    }
}

// Fat pairs between subtrees s and t (disjoint).
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
        for (uint32_t x = a->right; x < a->right + (uint32_t)-a->left; ++x)
        {
            for (uint32_t y = b->right; y < b->right + (uint32_t)-b->left; ++y)
            {
                test_fat(ctx, ctx->order[x], ctx->order[y]);
            }
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

// Fat pairs within subtree s.
static void self(bp_ctx* ctx, uint32_t s)
{
    const mc_bp_node* a = &ctx->nodes[s];
    if (ctx->oom)
    {
        return;
    }
    if (a->left < 0)
    {
        uint32_t end = a->right + (uint32_t)-a->left;
        for (uint32_t x = a->right; x < end; ++x)
        {
            for (uint32_t y = x + 1; y < end; ++y)
            {
                test_fat(ctx, ctx->order[x], ctx->order[y]);
            }
        }
        return;
    }
    uint32_t l = (uint32_t)a->left, r = a->right;
    self(ctx, l);
    self(ctx, r);
    cross(ctx, l, r);
}

// Digit d (0..11, least significant first) of a key ordered by (contact, body_i, body_j).
static uint32_t digit(const mc_pair_key* k, int d)
{
    uint32_t f = d < 4 ? k->body_j : (d < 8 ? k->body_i : k->contact);
    return (f >> (8 * (d % 4))) & 255u;
}

// Sort keys[0, n) by (contact, body_i, body_j): least significant digit radix sort, 8 bits a pass, skipping the
// passes whose digit is the same in every key (usually all but four: one contact, fewer than 65536 bodies). The keys
// are distinct, so the result is the one order. tmp has room for n keys.
static void sort_keys(mc_pair_key* keys, mc_pair_key* tmp, uint32_t n)
{
    uint32_t count[12][256];
    memset(count, 0, sizeof count);
    for (uint32_t k = 0; k < n; ++k)
    {
        for (int d = 0; d < 12; ++d)
        {
            count[d][digit(&keys[k], d)]++;
        }
    }
    mc_pair_key* src = keys;
    mc_pair_key* dst = tmp;
    for (int d = 0; d < 12; ++d)
    {
        if (count[d][digit(&src[0], d)] == n)
        {
            continue; // one digit value for all: the pass keeps the order
        }
        uint32_t start[256];
        uint32_t sum = 0;
        for (int v = 0; v < 256; ++v)
        {
            start[v] = sum;
            sum += count[d][v];
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            dst[start[digit(&src[k], d)]++] = src[k];
        }
        mc_pair_key* t = src;
        src = dst;
        dst = t;
    }
    if (src != keys)
    {
        memcpy(keys, src, (size_t)n * sizeof *keys);
    }
}

// Tight boxes and spheres of the bodies that belong to a contact: bounded ones go to bp->list (ascending slots),
// flipped ones to bp->unbounded; bp->moved marks the bounded ones that left their fat box or sphere. @return their
// count in *moved_count, or false when out of memory.
static bool gather_proxies(mc_world* w, uint32_t* np, uint32_t* nu, uint32_t* moved_count)
{
    mc_broadphase* bp = &w->bp;
    uint32_t n = 0, u = 0, moved = 0;
    for (uint32_t s = 0; s < w->body_slots; ++s)
    {
        const mc_body* b = &w->bodies[s];
        if (!b->alive || b->member_count == 0)
        {
            continue;
        }
        // Room for every slot, allocated at the first member (a world without contacts allocates nothing).
        if (n + u == 0 &&
            (!mc_array_reserve((void**)&bp->proxies, &bp->proxy_capacity, w->body_slots, sizeof *bp->proxies, 64) ||
             !mc_array_reserve((void**)&bp->moved, &bp->moved_capacity, w->body_slots, sizeof *bp->moved, 64) ||
             !mc_array_reserve((void**)&bp->list, &bp->list_capacity, w->body_slots, sizeof *bp->list, 64) ||
             !mc_array_reserve((void**)&bp->order, &bp->order_capacity, w->body_slots, sizeof *bp->order, 64)))
        {
            return false;
        }
        bp->moved[s] = 0;
        if (b->unbounded)
        {
            if (!mc_array_reserve((void**)&bp->unbounded, &bp->unbounded_capacity, (uint64_t)u + 1,
                                  sizeof *bp->unbounded, 4))
            {
                return false;
            }
            bp->unbounded[u++] = s;
            continue;
        }
        proxy_update(&bp->proxies[s], b);
        // (without valid fat pairs the fat volumes may be unset: the rebuild sets them all)
        bp->moved[s] = bp->fat_valid && !proxy_inside(&bp->proxies[s]);
        moved += bp->moved[s];
        bp->list[n++] = s;
    }
    *np = n;
    *nu = u;
    *moved_count = moved;
    return true;
}

// Sort a key list (radix, with bp->spare as the second buffer). @return false when out of memory.
static bool sort_list(mc_broadphase* bp, mc_key_list* l)
{
    if (l->count > 1)
    {
        if (!mc_array_reserve((void**)&bp->spare.data, &bp->spare.capacity, l->count, sizeof *bp->spare.data, 64))
        {
            return false;
        }
        sort_keys(l->data, bp->spare.data, l->count);
    }
    return true;
}

// New fat boxes for every bounded body, the tree over them, and the fat pairs, sorted. On failure the fat pairs are
// marked invalid (the next evaluation rebuilds).
static bool rebuild(mc_world* w, uint32_t n, uint32_t u)
{
    mc_broadphase* bp = &w->bp;
    bp->fat_valid = false;
    bp->fat.count = 0;
    bp->fat_flags = 0;
    bp->node_count = 0;
    if (n > 0 && !mc_array_reserve((void**)&bp->nodes, &bp->node_capacity, 2 * (uint64_t)n - 1, sizeof *bp->nodes, 64))
    {
        return false;
    }
    double fraction = w->coherence ? MC_BP_MARGIN : 0.0;
    for (uint32_t k = 0; k < n; ++k)
    {
        proxy_fatten(&bp->proxies[bp->list[k]], fraction);
        bp->order[k] = bp->list[k];
    }
    bp_ctx ctx = {w, bp->proxies, bp->order, bp->nodes, 0, 0, &bp->fat, false};
    if (n > 0)
    {
        self(&ctx, build(&ctx, bp->order, 0, n));
    }
    // Unbounded bodies overlap everything: pair them with every proxy; two unbounded bodies are only flagged.
    for (uint32_t k = 0; k < u && !ctx.oom; ++k)
    {
        for (uint32_t m = 0; m < n && !ctx.oom; ++m)
        {
            emit_pair(&ctx, bp->unbounded[k], bp->list[m], true, false);
        }
        for (uint32_t m = k + 1; m < u; ++m)
        {
            emit_pair(&ctx, bp->unbounded[k], bp->unbounded[m], false, true);
        }
    }
    if (ctx.oom || !sort_list(bp, &bp->fat))
    {
        bp->fat.count = 0;
        return false;
    }
    bp->node_count = ctx.node_count;
    bp->built_count = n;
    bp->moved_since = 0;
    bp->fat_valid = true;
    return true;
}

// Refit: every node's box again from its leaves' fat boxes (children follow their parent in preorder).
static void refit(mc_broadphase* bp)
{
    for (uint32_t id = bp->node_count; id-- > 0;)
    {
        mc_bp_node* node = &bp->nodes[id];
        if (node->left < 0)
        {
            const mc_bp_proxy* x = &bp->proxies[bp->order[node->right]];
            mc_vec3 lo = x->fat_lo, hi = x->fat_hi;
            for (uint32_t k = node->right + 1; k < node->right + (uint32_t)-node->left; ++k)
            {
                x = &bp->proxies[bp->order[k]];
                box_join(&lo, &hi, x->fat_lo, x->fat_hi);
            }
            node->lo = lo;
            node->hi = hi;
            continue;
        }
        const mc_bp_node* a = &bp->nodes[node->left];
        const mc_bp_node* b = &bp->nodes[node->right];
        node->lo = a->lo;
        node->hi = a->hi;
        box_join(&node->lo, &node->hi, b->lo, b->hi);
    }
}

// The fat pairs of moved body m with the bodies of subtree s: each other body once (a moved one only from the lower
// slot's query).
static void query_moved(bp_ctx* ctx, uint32_t s, uint32_t m)
{
    const mc_bp_node* node = &ctx->nodes[s];
    const mc_bp_proxy* x = &ctx->proxies[m];
    if (ctx->oom || !overlap(node->lo, node->hi, x->fat_lo, x->fat_hi))
    {
        return;
    }
    if (node->left >= 0)
    {
        query_moved(ctx, (uint32_t)node->left, m);
        query_moved(ctx, node->right, m);
        return;
    }
    for (uint32_t k = node->right; k < node->right + (uint32_t)-node->left; ++k)
    {
        uint32_t o = ctx->order[k];
        if (o != m && (!ctx->w->bp.moved[o] || o > m))
        {
            test_fat(ctx, m, o);
        }
    }
}

// Update for the k bodies that left their fat volumes (Box2D's moved bodies): new fat volumes for them, the tree
// refitted, their fat pairs found again by querying it, and merged into the kept ones. On failure the fat pairs are
// marked invalid (the next evaluation rebuilds).
static bool update_moved(mc_world* w, uint32_t n, uint32_t u, uint32_t k)
{
    mc_broadphase* bp = &w->bp;
    bp->fat_valid = false;
    for (uint32_t q = 0; q < n; ++q)
    {
        if (bp->moved[bp->list[q]])
        {
            proxy_fatten(&bp->proxies[bp->list[q]], MC_BP_MARGIN);
        }
    }
    refit(bp);
    bp->fresh.count = 0;
    bp_ctx ctx = {w, bp->proxies, bp->order, bp->nodes, bp->node_count, 0, &bp->fresh, false};
    for (uint32_t q = 0; q < n && !ctx.oom; ++q)
    {
        uint32_t m = bp->list[q];
        if (bp->moved[m])
        {
            query_moved(&ctx, 0, m);
            for (uint32_t v = 0; v < u && !ctx.oom; ++v)
            {
                emit_pair(&ctx, bp->unbounded[v], m, true, false);
            }
        }
    }
    uint64_t total = (uint64_t)bp->fat.count + bp->fresh.count;
    if (ctx.oom || !sort_list(bp, &bp->fresh) ||
        !mc_array_reserve((void**)&bp->spare.data, &bp->spare.capacity, total, sizeof *bp->spare.data, 64))
    {
        return false;
    }
    // Merge: the kept pairs (neither body moved) and the fresh ones, both sorted, into spare; then swap.
    mc_key_list* out = &bp->spare;
    out->count = 0;
    uint32_t i = 0, j = 0;
    while (i < bp->fat.count || j < bp->fresh.count)
    {
        if (i < bp->fat.count && (bp->moved[bp->fat.data[i].body_i] || bp->moved[bp->fat.data[i].body_j]))
        {
            ++i; // a pair of a moved body: the fresh list has it if it still is one
            continue;
        }
        bool take_fat =
            j >= bp->fresh.count || (i < bp->fat.count && mc_pair_key_cmp(&bp->fat.data[i], &bp->fresh.data[j]) < 0);
        out->data[out->count++] = take_fat ? bp->fat.data[i++] : bp->fresh.data[j++];
    }
    mc_key_list t = bp->fat;
    bp->fat = *out;
    *out = t;
    bp->moved_since += k;
    bp->fat_valid = true;
    return true;
}

mc_status mc_broadphase_collect(mc_world* w)
{
    mc_broadphase* bp = &w->bp;
    w->found_count = 0;
    uint32_t n = 0, u = 0, k = 0;
    if (!gather_proxies(w, &n, &u, &k))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // A rebuild when the bodies or contacts changed, without coherence, or when the moved bodies are many (then it
    // costs little more than their queries) or the tree has been updated for as many bodies as it holds (its boxes
    // have loosened).
    bool full = !bp->fat_valid || !w->coherence || 4u * k > n || bp->moved_since + k > bp->built_count;
    if (full || k > 0)
    {
        if (!(full ? rebuild(w, n, u) : update_moved(w, n, u, k)))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        w->info.broad_rebuilt = full;
        w->info.broad_moved = k;
    }
    w->info.broad_pairs = bp->fat.count;
    if (!mc_array_reserve((void**)&w->found, &w->found_capacity, bp->fat.count, sizeof *w->found, 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // The filter: the fat pairs in their sorted order, kept when the tight volumes overlap now.
    w->info.flags |= bp->fat_flags;
    for (uint32_t q = 0; q < bp->fat.count; ++q)
    {
        const mc_pair_key* f = &bp->fat.data[q];
        if (f->pair || tight_overlap(&bp->proxies[f->body_i], &bp->proxies[f->body_j]))
        {
            mc_pair_key* c = &w->found[w->found_count++];
            *c = *f;
            c->pair = 0;
        }
    }
    return MC_OK;
}
