// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The mesh self-check: intersecting triangle pairs of one mesh (its OBB tree against itself, each unordered pair of
// nodes once, the exact rule of src/base/tri_tri_closed.h at the leaves, parallel over a frontier of node pairs), and
// the nesting of its connected components by exact point parity.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996 (separating axis test and tree traversal).
#include "bvh/bvh_internal.h"
#include "bvh/bvh_self_fan.h"
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/base/tri_tri_closed.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// A pair of nodes of the tree; a == b is a node against itself (the pairs of triangles under it).
typedef struct self_pair
{
    uint32_t a, b;
} self_pair;

/// Per-worker results and traversal stack, padded to its own cache lines.
typedef struct self_worker
{
    uint64_t pair_count;
    uint32_t first[2];
    uint64_t box_tests;
    uint64_t triangle_tests;
    self_pair* stack;
    uint32_t stack_capacity;
    int failed;
    uint32_t* collect; ///< serial runs only: where the pairs go (2 per pair), NULL when not wanted
    uint64_t collect_capacity;
    char pad[64];
} self_worker;

typedef struct self_ctx
{
    const struct mc_mesh* mesh;
    const mc_bvh* tree;
    const mc_vec3* pos;
    double rel_slack; ///< relative slack of the box test
    double abs_slack; ///< absolute slack of the box test
    /// float bounds of the triangle at each tree position, rounded outward (make_boxes): lo[c][p], hi[c][p] for
    /// component c, with MC_BVH_LEAF_MAX padding entries after the last triangle (a 16-lane read stays inside)
    float* lo[3];
    float* hi[3];
    float* node_box; ///< 6 per node: the union of its triangles' float bounds (make_node_boxes)
    /// NULL, or one flag per connected component, set (relaxed atomic stores of 1) when a triangle of the component is
    /// in an intersecting pair
    _Atomic(unsigned char)* component_hit;
    /// NULL, or one flag per vertex: fan vertices (bvh_self_fan.h); the pairs of triangles that share one are left to
    /// mc_self_fan_pairs
    const uint8_t* fan;
    /// NULL (no fan), or per node a fan vertex that all its triangles share (MC_NONE: none): two nodes with the same
    /// one hold only such pairs, and their pair is skipped whole
    uint32_t* node_fan;
    const self_pair* items;
    self_worker* workers;
} self_ctx;

// Node pairs per worker the serial expansion aims for before the parallel loop (as in bvh_collide.c).
#define SELF_FRONTIER_PER_WORKER 64u
// Frontier items per task of the dynamic loop.
#define SELF_ITEMS_PER_CHUNK 4u
// Below this many triangles the check runs on one thread.
#define SELF_PARALLEL_MIN_TRIANGLES 50000u

// ---------------------------------------------------------------------------------------------------------------
// Box test

// Separating axis test of two boxes of one tree (one frame) with the 15 candidate axes; conservative: an axis only
// separates when the gap exceeds a bound of the rounding (the float axes are orthonormal only to ~1.2e-7 per
// component, see bvh_collide.c, ctx_init), so boxes that touch are never separated. @return 1 when they may overlap.
static int boxes_overlap(const self_ctx* cx, const mc_bvh_node* na, const mc_bvh_node* nb)
{
    double a[3][3], b[3][3], ea[3], eb[3], d[3], t[3], r[3][3], ar[3][3];
    for (int k = 0; k < 3; ++k)
    {
        for (int c = 0; c < 3; ++c)
        {
            a[k][c] = na->axis[k][c];
            b[k][c] = nb->axis[k][c];
        }
        ea[k] = na->extent[k];
        eb[k] = nb->extent[k];
        d[k] = (double)nb->center[k] - (double)na->center[k];
    }
    double slack =
        cx->rel_slack * (fabs(d[0]) + fabs(d[1]) + fabs(d[2]) + ea[0] + ea[1] + ea[2] + eb[0] + eb[1] + eb[2]) +
        cx->abs_slack;
    for (int i = 0; i < 3; ++i)
    {
        t[i] = a[i][0] * d[0] + a[i][1] * d[1] + a[i][2] * d[2];
        for (int k = 0; k < 3; ++k)
        {
            r[i][k] = a[i][0] * b[k][0] + a[i][1] * b[k][1] + a[i][2] * b[k][2];
            ar[i][k] = fabs(r[i][k]);
        }
        if (fabs(t[i]) > ea[i] + eb[0] * ar[i][0] + eb[1] * ar[i][1] + eb[2] * ar[i][2] + slack)
        {
            return 0;
        }
    }
    for (int k = 0; k < 3; ++k)
    {
        double tb = b[k][0] * d[0] + b[k][1] * d[1] + b[k][2] * d[2];
        if (fabs(tb) > eb[k] + ea[0] * ar[0][k] + ea[1] * ar[1][k] + ea[2] * ar[2][k] + slack)
        {
            return 0;
        }
    }
    for (int i = 0; i < 3; ++i)
    {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int k = 0; k < 3; ++k)
        {
            int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            double dist = fabs(t[i2] * r[i1][k] - t[i1] * r[i2][k]);
            double rad = ea[i1] * ar[i2][k] + ea[i2] * ar[i1][k] + eb[k1] * ar[i][k2] + eb[k2] * ar[i][k1];
            if (dist > rad + slack)
            {
                return 0;
            }
        }
    }
    return 1;
}

static inline float node_size(const mc_bvh_node* n)
{
    float s = n->extent[0] > n->extent[1] ? n->extent[0] : n->extent[1];
    return s > n->extent[2] ? s : n->extent[2];
}

// ---------------------------------------------------------------------------------------------------------------
// Leaves

/// v rounded to float toward -infinity (down) or +infinity (up): the float bounds of a triangle then contain its
/// exact bounds, and a strict gap between two float bounds is a strict gap between the exact ones (the closed
/// triangles are apart). One step of the float's bit pattern when the conversion went the wrong way.
static inline float round_down(double v)
{
    float f = (float)v;
    if ((double)f <= v)
    {
        return f;
    }
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f > 0.0f ? u - 1u : (f < 0.0f ? u + 1u : 0x80000001u); // 0: the negative denormal closest to it
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float round_up(double v)
{
    return -round_down(-v);
}

static inline double min3(double a, double b, double c)
{
    double m = a < b ? a : b;
    return m < c ? m : c;
}

static inline double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/// Fill the float bounds of the triangles at tree positions [begin, end).
static void make_boxes(uint32_t begin, uint32_t end, int worker_index, void* ctx)
{
    (void)worker_index;
    const self_ctx* cx = ctx;
    for (uint32_t p = begin; p < end; ++p)
    {
        if (p + 8u < end) // the vertices come in leaf order, not in mesh order: fetch them a few triangles ahead
        {
            const uint32_t* ahead = &cx->tree->tri_vertex[3u * (p + 8u)];
            __builtin_prefetch(&cx->pos[ahead[0]]);
            __builtin_prefetch(&cx->pos[ahead[1]]);
            __builtin_prefetch(&cx->pos[ahead[2]]);
        }
        const uint32_t* tv = &cx->tree->tri_vertex[3u * p];
        mc_vec3 a = cx->pos[tv[0]], b = cx->pos[tv[1]], c = cx->pos[tv[2]];
        cx->lo[0][p] = round_down(min3(a.x, b.x, c.x));
        cx->lo[1][p] = round_down(min3(a.y, b.y, c.y));
        cx->lo[2][p] = round_down(min3(a.z, b.z, c.z));
        cx->hi[0][p] = round_up(max3(a.x, b.x, c.x));
        cx->hi[1][p] = round_up(max3(a.y, b.y, c.y));
        cx->hi[2][p] = round_up(max3(a.z, b.z, c.z));
    }
}

/// The float bounds of the triangle at tree position p: lo x y z, hi x y z.
static inline void tri_box(const self_ctx* cx, uint32_t p, float b[6])
{
    for (int c = 0; c < 3; ++c)
    {
        b[c] = cx->lo[c][p];
        b[c + 3] = cx->hi[c][p];
    }
}

static inline int boxes_apart(const float* p, const float* q)
{
    return p[0] > q[3] || q[0] > p[3] || p[1] > q[4] || q[1] > p[4] || p[2] > q[5] || q[2] > p[5];
}

/// Bit k set when the triangle at tree position first + k (k < 16) is not apart from box u (lanes past the mesh's end
/// read the padding: mask them).
static inline uint32_t overlap_mask(const self_ctx* cx, uint32_t first, const float u[6])
{
#if defined(__SSE2__)
    uint32_t apart = 0;
    for (uint32_t g = 0; g < MC_BVH_LEAF_MAX; g += 4u)
    {
        __m128 a = _mm_setzero_ps();
        for (int c = 0; c < 3; ++c)
        {
            __m128 lo = _mm_loadu_ps(&cx->lo[c][first + g]), hi = _mm_loadu_ps(&cx->hi[c][first + g]);
            a = _mm_or_ps(a, _mm_or_ps(_mm_cmpgt_ps(lo, _mm_set1_ps(u[c + 3])), _mm_cmpgt_ps(_mm_set1_ps(u[c]), hi)));
        }
        apart |= (uint32_t)_mm_movemask_ps(a) << g;
    }
    return ~apart & ((1u << MC_BVH_LEAF_MAX) - 1u);
#else
    uint32_t keep = 0;
    for (uint32_t k = 0; k < MC_BVH_LEAF_MAX; ++k)
    {
        float b[6];
        tri_box(cx, first + k, b);
        keep |= (uint32_t)!boxes_apart(b, u) << k;
    }
    return keep;
#endif
}

/// The union of the bounds of the triangles of `mask` at positions first + k.
static void union_box(const self_ctx* cx, uint32_t first, uint32_t mask, float u[6])
{
    u[0] = u[1] = u[2] = INFINITY;
    u[3] = u[4] = u[5] = -INFINITY;
    for (; mask != 0; mask &= mask - 1u)
    {
        uint32_t p = first + (uint32_t)__builtin_ctz(mask);
        for (int c = 0; c < 3; ++c)
        {
            u[c] = cx->lo[c][p] < u[c] ? cx->lo[c][p] : u[c];
            u[c + 3] = cx->hi[c][p] > u[c + 3] ? cx->hi[c][p] : u[c + 3];
        }
    }
}

/// The triangles of one leaf that survived the culling, with what the exact rule needs.
typedef struct leaf_tris
{
    uint32_t first;                  ///< tree position of the leaf's first triangle
    mc_tri_plane t[MC_BVH_LEAF_MAX]; ///< corners and planes (loaded for the survivors only)
    uint32_t vi[MC_BVH_LEAF_MAX][3]; ///< vertex indices
} leaf_tris;

static void leaf_load(const self_ctx* cx, const mc_bvh_node* n, uint32_t mask, leaf_tris* l)
{
    l->first = mc_bvh_leaf_first(n);
    for (; mask != 0; mask &= mask - 1u)
    {
        uint32_t k = (uint32_t)__builtin_ctz(mask);
        const uint32_t* tv = &cx->tree->tri_vertex[3u * (l->first + k)];
        l->vi[k][0] = tv[0];
        l->vi[k][1] = tv[1];
        l->vi[k][2] = tv[2];
        mc_tri_plane_init(&l->t[k], cx->pos[tv[0]], cx->pos[tv[1]], cx->pos[tv[2]]);
    }
}

static void record_pair(const self_ctx* cx, self_worker* w, uint32_t ti, uint32_t tj)
{
    if (cx->component_hit != NULL)
    {
        const struct mc_mesh* m = cx->mesh;
        atomic_store_explicit(&cx->component_hit[m->vertex_component[m->indices[3u * ti]]], 1, memory_order_relaxed);
        atomic_store_explicit(&cx->component_hit[m->vertex_component[m->indices[3u * tj]]], 1, memory_order_relaxed);
    }
    uint32_t i = ti < tj ? ti : tj, j = ti < tj ? tj : ti;
    if (w->pair_count == 0 || i < w->first[0] || (i == w->first[0] && j < w->first[1]))
    {
        w->first[0] = i;
        w->first[1] = j;
    }
    if (w->collect != NULL && w->pair_count < w->collect_capacity)
    {
        w->collect[2u * w->pair_count] = i;
        w->collect[2u * w->pair_count + 1u] = j;
    }
    w->pair_count++;
}

/// Do triangles (vertex indices) t and u share a fan vertex?
static inline int fan_pair(const self_ctx* cx, const uint32_t* t, const uint32_t* u)
{
    int n = 0;
    for (int x = 0; x < 3; ++x)
    {
        n |= ((t[x] == u[0]) | (t[x] == u[1]) | (t[x] == u[2])) & cx->fan[t[x]];
    }
    return n;
}

static void fan_emit(void* ctx, uint32_t t, uint32_t u)
{
    const self_ctx* cx = ctx;
    record_pair(cx, &cx->workers[0], t, u);
}

/// Triangle p of l against the triangles `mask` of m (all loaded): bounds, then the exact rule.
static inline void test_triangle(const self_ctx* cx, self_worker* w, const leaf_tris* l, uint32_t p, const leaf_tris* m,
                                 uint32_t mask)
{
    float b[6];
    tri_box(cx, l->first + p, b);
    const uint32_t* vp = l->vi[p];
    int at_fan = cx->fan != NULL && (cx->fan[vp[0]] | cx->fan[vp[1]] | cx->fan[vp[2]]);
    for (mask &= overlap_mask(cx, m->first, b); mask != 0; mask &= mask - 1u)
    {
        uint32_t q = (uint32_t)__builtin_ctz(mask);
        if (at_fan && fan_pair(cx, vp, m->vi[q]))
        {
            continue; // decided by mc_self_fan_pairs
        }
        w->triangle_tests++;
        if (mc_tri_tri_self_intersect(&l->t[p], l->vi[p], &m->t[q], m->vi[q]))
        {
            record_pair(cx, w, cx->tree->tri_order[l->first + p], cx->tree->tri_order[m->first + q]);
        }
    }
}

static inline uint32_t all_of(uint32_t count)
{
    return count >= 32u ? ~0u : (1u << count) - 1u;
}

/// Every pair of distinct triangles of one leaf.
static void leaf_self(const self_ctx* cx, self_worker* w, const mc_bvh_node* n)
{
    leaf_tris l;
    uint32_t all = all_of(mc_bvh_leaf_count(n));
    leaf_load(cx, n, all, &l);
    for (uint32_t p = 0; (all >> (p + 1u)) != 0; ++p)
    {
        test_triangle(cx, w, &l, p, &l, all & ~((2u << p) - 1u));
    }
}

/// Every triangle of leaf a against every triangle of leaf b (node indices): the triangles of each that meet the
/// bounds of the other's (survivors), then the survivors pairwise.
static void leaf_pair(const self_ctx* cx, self_worker* w, uint32_t a, uint32_t b)
{
    const mc_bvh_node* na = &cx->tree->nodes[a];
    const mc_bvh_node* nb = &cx->tree->nodes[b];
    uint32_t fa = mc_bvh_leaf_first(na), fb = mc_bvh_leaf_first(nb);
    uint32_t keep_b = overlap_mask(cx, fb, &cx->node_box[6u * a]) & all_of(mc_bvh_leaf_count(nb));
    if (keep_b == 0)
    {
        return;
    }
    float u[6];
    union_box(cx, fb, keep_b, u);
    uint32_t keep_a = overlap_mask(cx, fa, u) & all_of(mc_bvh_leaf_count(na));
    if (keep_a == 0)
    {
        return;
    }
    leaf_tris l, m;
    leaf_load(cx, na, keep_a, &l);
    leaf_load(cx, nb, keep_b, &m);
    for (; keep_a != 0; keep_a &= keep_a - 1u)
    {
        test_triangle(cx, w, &l, (uint32_t)__builtin_ctz(keep_a), &m, keep_b);
    }
}

/// A fan vertex of all the triangles at tree positions [first, first + count), or MC_NONE.
static uint32_t leaf_fan(const self_ctx* cx, uint32_t first, uint32_t count)
{
    const uint32_t* tv = &cx->tree->tri_vertex[3u * first];
    for (int x = 0; x < 3; ++x)
    {
        uint32_t v = tv[x];
        int all = cx->fan[v];
        for (uint32_t k = 1; all && k < count; ++k)
        {
            const uint32_t* u = &tv[3u * k];
            all = u[0] == v || u[1] == v || u[2] == v;
        }
        if (all)
        {
            return v;
        }
    }
    return MC_NONE;
}

/// Fill cx->node_fan bottom-up: a leaf's shared fan vertex, an internal node's when both children have the same.
static void make_node_fans(const self_ctx* cx)
{
    const mc_bvh* t = cx->tree;
    for (uint32_t n = t->node_count; n-- > 0;)
    {
        const mc_bvh_node* node = &t->nodes[n];
        cx->node_fan[n] = mc_bvh_is_leaf(node) ? leaf_fan(cx, mc_bvh_leaf_first(node), mc_bvh_leaf_count(node))
                          : cx->node_fan[node->data] == cx->node_fan[node->data + 1u] ? cx->node_fan[node->data]
                                                                                      : MC_NONE;
    }
}

/// Fill cx->node_box bottom-up (children have larger indices than their parent).
static void make_node_boxes(const self_ctx* cx)
{
    const mc_bvh* t = cx->tree;
    for (uint32_t n = t->node_count; n-- > 0;)
    {
        const mc_bvh_node* node = &t->nodes[n];
        float* o = &cx->node_box[6u * n];
        if (mc_bvh_is_leaf(node))
        {
            union_box(cx, mc_bvh_leaf_first(node), all_of(mc_bvh_leaf_count(node)), o);
            continue;
        }
        const float* c0 = &cx->node_box[6u * node->data];
        const float* c1 = &cx->node_box[6u * (node->data + 1u)];
        for (int c = 0; c < 3; ++c)
        {
            o[c] = c0[c] < c1[c] ? c0[c] : c1[c];
            o[c + 3] = c0[c + 3] > c1[c + 3] ? c0[c + 3] : c1[c + 3];
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Traversal

static int push(self_worker* w, uint32_t* sp, uint32_t a, uint32_t b)
{
    if (*sp == w->stack_capacity)
    {
        uint32_t cap = w->stack_capacity < 64u ? 64u : 2u * w->stack_capacity;
        self_pair* ns = mc_realloc(w->stack, (size_t)cap * sizeof *ns);
        if (ns == NULL)
        {
            w->failed = 1;
            return 0;
        }
        w->stack = ns;
        w->stack_capacity = cap;
    }
    w->stack[(*sp)++] = (self_pair){a, b};
    return 1;
}

/// The children of a node pair that may hold intersecting triangles, in `out` (up to 3); leaf pairs are tested at
/// once. A node against itself gives its children against themselves and each other; two different nodes (whose boxes
/// overlap) give the larger one's children (or the internal one's) against the other.
static uint32_t expand(const self_ctx* cx, self_worker* w, self_pair pr, self_pair out[3])
{
    const mc_bvh_node* na = &cx->tree->nodes[pr.a];
    const mc_bvh_node* nb = &cx->tree->nodes[pr.b];
    int la = mc_bvh_is_leaf(na), lb = mc_bvh_is_leaf(nb);
    if (cx->node_fan != NULL && cx->node_fan[pr.a] != MC_NONE && cx->node_fan[pr.a] == cx->node_fan[pr.b])
    {
        return 0; // every triangle pair shares that fan vertex: mc_self_fan_pairs decides them
    }
    if (pr.a == pr.b)
    {
        if (la)
        {
            leaf_self(cx, w, na);
            return 0;
        }
        uint32_t c = na->data;
        out[0] = (self_pair){c, c + 1u};
        out[1] = (self_pair){c + 1u, c + 1u};
        out[2] = (self_pair){c, c};
        return 3;
    }
    // The nodes' float bounds first (cheap); two leaves then go to the culling of their triangles, which is tighter
    // than their boxes; other pairs get the oriented box test.
    if (boxes_apart(&cx->node_box[6u * pr.a], &cx->node_box[6u * pr.b]))
    {
        return 0;
    }
    if (la && lb)
    {
        leaf_pair(cx, w, pr.a, pr.b);
        return 0;
    }
    w->box_tests++;
    if (!boxes_overlap(cx, na, nb))
    {
        return 0;
    }
    if (lb || (!la && node_size(na) >= node_size(nb)))
    {
        out[0] = (self_pair){na->data + 1u, pr.b};
        out[1] = (self_pair){na->data, pr.b};
    }
    else
    {
        out[0] = (self_pair){pr.a, nb->data + 1u};
        out[1] = (self_pair){pr.a, nb->data};
    }
    return 2;
}

/// Depth-first traversal from one node pair.
static void traverse(const self_ctx* cx, self_worker* w, self_pair start)
{
    uint32_t sp = 0;
    if (!push(w, &sp, start.a, start.b))
    {
        return;
    }
    while (sp > 0)
    {
        self_pair next[3];
        uint32_t n = expand(cx, w, w->stack[--sp], next);
        for (uint32_t k = 0; k < n; ++k)
        {
            if (!push(w, &sp, next[k].a, next[k].b))
            {
                return;
            }
        }
    }
}

static void traverse_items(uint32_t begin, uint32_t end, int worker_index, void* ctx)
{
    const self_ctx* cx = ctx;
    self_worker* w = &cx->workers[worker_index];
    for (uint32_t k = begin; k < end && !w->failed; ++k)
    {
        traverse(cx, w, cx->items[k]);
    }
}

/// Breadth-first expansion from the root pair until at least `target` node pairs are waiting (or none is left): the
/// frontier the parallel loop shares out. Expanding a pair here does exactly what its traversal would (leaf pairs
/// are tested on the way, by worker w), so the result does not depend on where the frontier stops.
/// @return the frontier (*count items), NULL when out of memory.
static self_pair* expand_frontier(const self_ctx* cx, self_worker* w, uint32_t target, uint32_t* count)
{
    uint32_t n = 1, cap = 3u * target + 3u; // a level of fewer than `target` pairs expands into at most 3 target
    self_pair* cur = mc_alloc_array(cap, sizeof *cur);
    self_pair* nxt = mc_alloc_array(cap, sizeof *nxt);
    if (cur == NULL || nxt == NULL)
    {
        mc_free(cur);
        mc_free(nxt);
        return NULL;
    }
    cur[0] = (self_pair){0, 0};
    while (n > 0 && n < target)
    {
        uint32_t m = 0;
        for (uint32_t k = 0; k < n; ++k)
        {
            m += expand(cx, w, cur[k], &nxt[m]);
        }
        self_pair* t = cur;
        cur = nxt;
        nxt = t;
        n = m;
    }
    mc_free(nxt);
    *count = n;
    return cur;
}

/// The context's arrays (triangle and node bounds, component flags when `components`), the bounds filled.
/// @return MC_OK, or MC_ERR_OUT_OF_MEMORY with nothing kept
static mc_status ctx_alloc(self_ctx* cx, int workers, int components)
{
    const mc_bvh* tree = cx->tree;
    size_t stride = (size_t)tree->triangle_count + MC_BVH_LEAF_MAX;
    float* boxes = mc_alloc_array(stride, 6u * sizeof(float));
    cx->node_box = mc_alloc_array((size_t)tree->node_count, 6u * sizeof(float));
    cx->component_hit = components ? mc_calloc(cx->mesh->component_count, sizeof *cx->component_hit) : NULL;
    if (boxes == NULL || cx->node_box == NULL || (components && cx->component_hit == NULL))
    {
        mc_free(boxes);
        mc_free(cx->node_box);
        mc_free((void*)cx->component_hit);
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_advise_large(boxes, stride * 6u * sizeof(float));
    for (int c = 0; c < 3; ++c)
    {
        cx->lo[c] = boxes + (size_t)c * stride;
        cx->hi[c] = boxes + (size_t)(3 + c) * stride;
        for (uint32_t k = 0; k < MC_BVH_LEAF_MAX; ++k)
        {
            cx->lo[c][tree->triangle_count + k] = INFINITY;
            cx->hi[c][tree->triangle_count + k] = -INFINITY;
        }
    }
    mc_parallel_for(workers, make_boxes, tree->triangle_count, 4096u, cx);
    make_node_boxes(cx);
    return MC_OK;
}

static void ctx_free(self_ctx* cx)
{
    mc_free(cx->lo[0]); // the block of all six bound arrays
    mc_free(cx->node_box);
    mc_free((void*)cx->component_hit);
}

/// Sum the workers' counts and take the smallest first pair; free their stacks. @return MC_ERR_OUT_OF_MEMORY when a
/// worker failed.
static mc_status merge_workers(self_worker* ws, int workers, mc_self_result* out)
{
    mc_status st = MC_OK;
    for (int k = 0; k < workers; ++k)
    {
        const self_worker* w = &ws[k];
        st = w->failed ? MC_ERR_OUT_OF_MEMORY : st;
        if (w->pair_count > 0 && (out->pair_count == 0 || w->first[0] < out->first[0] ||
                                  (w->first[0] == out->first[0] && w->first[1] < out->first[1])))
        {
            out->first[0] = w->first[0];
            out->first[1] = w->first[1];
        }
        out->pair_count += w->pair_count;
        out->box_tests += w->box_tests;
        out->triangle_tests += w->triangle_tests;
        mc_free(w->stack);
    }
    return st;
}

mc_status mc_bvh_self_intersections(const struct mc_mesh* mesh, int worker_count, uint32_t* pairs, uint64_t capacity,
                                    uint8_t* component_hit, mc_self_result* out)
{
    memset(out, 0, sizeof *out);
    out->first[0] = out->first[1] = MC_NONE;
    if (component_hit != NULL)
    {
        memset(component_hit, 0, mesh->component_count);
    }
    const mc_bvh* tree = mesh->bvh;
    if (tree == NULL || tree->node_count == 0)
    {
        return MC_OK;
    }
    int workers = pairs != NULL || mesh->triangle_count < SELF_PARALLEL_MIN_TRIANGLES
                      ? 1
                      : mc_parallel_worker_count(worker_count);
    self_worker* ws = mc_calloc((size_t)workers, sizeof *ws);
    // Slack as the pair query's box test with an identity pose (bvh_collide.c, ctx_init).
    self_ctx cx = {
        mesh, tree, mesh->positions, 4e-6, 1e-13 * 6.0 * tree->max_abs_coord, {NULL}, {NULL}, NULL, NULL, NULL, NULL,
        NULL, ws};
    // Fan vertices, and per node the one its triangles share.
    uint8_t* fan = NULL;
    mc_status fan_st = ws == NULL ? MC_ERR_OUT_OF_MEMORY : mc_self_fan_vertices(mesh, MC_SELF_FAN_DEGREE, &fan);
    uint32_t* node_fan = fan != NULL ? mc_alloc_array(tree->node_count, sizeof *node_fan) : NULL;
    fan_st = fan != NULL && node_fan == NULL ? MC_ERR_OUT_OF_MEMORY : fan_st;
    cx.fan = fan;
    cx.node_fan = node_fan;
    if (node_fan != NULL)
    {
        make_node_fans(&cx);
    }
    if (fan_st != MC_OK || ctx_alloc(&cx, workers, component_hit != NULL) != MC_OK)
    {
        mc_free(ws);
        mc_free(fan);
        mc_free(node_fan);
        return MC_ERR_OUT_OF_MEMORY;
    }
    ws[0].collect = pairs;
    ws[0].collect_capacity = pairs != NULL ? capacity : 0;
    uint32_t item_count = 0;
    self_pair* items =
        expand_frontier(&cx, &ws[0], workers > 1 ? SELF_FRONTIER_PER_WORKER * (uint32_t)workers : 1u, &item_count);
    if (items != NULL)
    {
        cx.items = items;
        out->threads = mc_parallel_for_dynamic(workers, traverse_items, item_count, SELF_ITEMS_PER_CHUNK, &cx);
    }
    mc_status st = items == NULL ? MC_ERR_OUT_OF_MEMORY : MC_OK;
    if (st == MC_OK && fan != NULL)
    {
        // After the traversal, on worker 0 (its collection): the pairs at the fan vertices.
        st = mc_self_fan_pairs(mesh, fan, fan_emit, &cx, &ws[0].triangle_tests);
    }
    mc_status merged = merge_workers(ws, workers, out);
    st = st == MC_OK ? merged : st;
    mc_free(fan);
    mc_free(node_fan);
    for (uint32_t c = 0; st == MC_OK && component_hit != NULL && c < mesh->component_count; ++c)
    {
        component_hit[c] = atomic_load_explicit(&cx.component_hit[c], memory_order_relaxed);
    }
    mc_free(items);
    mc_free(ws);
    ctx_free(&cx);
    if (st != MC_OK)
    {
        memset(out, 0, sizeof *out);
        out->first[0] = out->first[1] = MC_NONE;
    }
    return st;
}

// ---------------------------------------------------------------------------------------------------------------
// Nesting of components

/// Six times the signed volume of each component (divergence theorem, from the bounding box centre), read as if the
/// mesh were not flipped (a flipped mesh holds every triangle reversed), into vol (component_count, zeroed here);
/// first_tri (may be NULL) receives each component's smallest triangle index.
static void component_windings(const struct mc_mesh* mesh, double* vol, uint32_t* first_tri)
{
    uint32_t nc = mesh->component_count;
    memset(vol, 0, (size_t)nc * sizeof *vol);
    if (first_tri != NULL)
    {
        memset(first_tri, 0xff, (size_t)nc * sizeof *first_tri);
    }
    const mc_mesh_report* rep = &mesh->report;
    mc_vec3 centre = mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5);
    for (uint32_t t = 0; t < mesh->triangle_count; ++t)
    {
        const uint32_t* tv = &mesh->indices[3u * t];
        uint32_t c = mesh->vertex_component[tv[0]];
        mc_vec3 p0 = mc_sub(mesh->positions[tv[0]], centre);
        mc_vec3 p1 = mc_sub(mesh->positions[tv[1]], centre);
        mc_vec3 p2 = mc_sub(mesh->positions[tv[2]], centre);
        vol[c] += mc_dot(p0, mc_cross(p1, p2));
        if (first_tri != NULL && first_tri[c] == MC_NONE)
        {
            first_tri[c] = t;
        }
    }
    for (uint32_t c = 0; mesh->flipped && c < nc; ++c)
    {
        vol[c] = -vol[c];
    }
}

mc_status mc_bvh_classify_components(const struct mc_mesh* mesh, const uint8_t* skip, mc_nesting* out)
{
    memset(out, 0, sizeof *out);
    out->first_problem = MC_NONE;
    uint32_t nc = mesh->component_count;
    if (nc < 2 || mesh->bvh == NULL)
    {
        return MC_OK; // one component: outward after the reorientation, nested in nothing
    }
    double* vol = mc_calloc(nc, sizeof *vol);
    uint32_t* first_tri = mc_alloc_array(nc, sizeof *first_tri);
    if (vol == NULL || first_tri == NULL)
    {
        mc_free(vol);
        mc_free(first_tri);
        return MC_ERR_OUT_OF_MEMORY;
    }
    component_windings(mesh, vol, first_tri);
    for (uint32_t c = 0; c < nc; ++c)
    {
        if (skip != NULL && skip[c])
        {
            continue;
        }
        // Winding as if not flipped; depth parity from one vertex.
        bool outward = vol[c] > 0.0;
        int odd = mc_bvh_point_parity_without(mesh, mesh->positions[mesh->component_vertex[c]], c);
        bool problem = false;
        if (odd && !outward)
        {
            out->cavities++;
        }
        else if (odd)
        {
            out->same_winding++;
            problem = true;
        }
        else if (!outward)
        {
            out->inverted++;
            problem = true;
        }
        if (problem && out->first_problem == MC_NONE)
        {
            out->first_problem = first_tri[c];
        }
    }
    mc_free(vol);
    mc_free(first_tri);
    return MC_OK;
}

mc_status mc_bvh_shells_to_reverse(const struct mc_mesh* mesh, const uint8_t* entangled, uint8_t* reverse,
                                   uint32_t* count)
{
    uint32_t nc = mesh->component_count;
    memset(reverse, 0, nc);
    *count = 0;
    if (nc < 2 || mesh->bvh == NULL)
    {
        return MC_OK; // one shell: oriented by the whole mesh's volume already
    }
    double* vol = mc_alloc_array(nc, sizeof *vol);
    uint8_t* odd = mc_calloc(nc, 1);
    uint8_t* linked = mc_calloc(nc, 1); // bit 0: inside another component, bit 1: holds another one
    uint32_t* inside = NULL;
    uint32_t capacity = 0, n = 0;
    mc_status st = vol == NULL || odd == NULL || linked == NULL ? MC_ERR_OUT_OF_MEMORY : MC_OK;
    for (uint32_t d = 0; st == MC_OK && d < nc; ++d)
    {
        // The components that hold d's vertex. For a d that intersects none of them, they hold all of d; for an
        // entangled d only the ones it does not intersect are sure, and those are the ones a disjoint shell can be.
        st = mc_bvh_point_containers(mesh, mesh->positions[mesh->component_vertex[d]], d, odd, &inside, &capacity, &n);
        linked[d] |= n > 0 ? 1u : 0u;
        for (uint32_t k = 0; k < n; ++k)
        {
            linked[inside[k]] |= 2u;
        }
    }
    if (st == MC_OK)
    {
        component_windings(mesh, vol, NULL);
        double rest = 0.0; // six times the total volume of the shells that are not disjoint
        for (uint32_t c = 0; c < nc; ++c)
        {
            bool disjoint = linked[c] == 0 && (entangled == NULL || !entangled[c]);
            reverse[c] = disjoint ? vol[c] < 0.0 : 2u;
            rest += disjoint ? 0.0 : vol[c];
        }
        for (uint32_t c = 0; c < nc; ++c)
        {
            reverse[c] = reverse[c] == 2u ? rest < 0.0 : reverse[c];
            *count += reverse[c];
        }
    }
    mc_free(vol);
    mc_free(odd);
    mc_free(linked);
    mc_free(inside);
    return st;
}
