// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// OBB-tree build: top-down, boxes fitted to the exact area-weighted second moments of their triangles.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996.
//
// One pass over a node's triangles does everything: the node's axes are already known (from moment sums gathered
// by the parent's pass), so the pass projects the triangles' vertices for the extents, classifies the centroids
// against the split plane, partitions the triangles in place and accumulates each child's moment sums. The build
// is O(n log n) with one sequential sweep per level and no allocation per node. Only the choice of the split axis
// (split_axis: the box axis along which the centroids spread most) looks at the triangles before that pass, at most
// 128 of them per node.
#include "bvh/bvh_internal.h"
#include "src/base/core.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Per-triangle data of the build (one cache line), permuted together with the triangle order. Vertices are stored
// as float offsets from the mesh's bbox center: the extents computed from them are inflated by a bound of that
// rounding, so boxes stay conservative for the exact double vertices.
typedef struct build_tri
{
    float v[3][4]; // v[k][0..2]: vertex k - origin (float); v[0][3] = area, v[1][3], v[2][3] = local moments 4, 5
    float w[4];    // local moments 0..3
} build_tri;
// Local second moment about the centroid: area/12 * sum_k d_k d_k^T, d_k = vertex k - centroid, as
// (xx, yy, zz, xy, xz, yz).
#define BT_AREA(t) ((t)->v[0][3])
#define BT_LOCAL(t, i) ((i) < 4 ? (t)->w[i] : (t)->v[(i)-3][3])

// Moment sums of a set of triangles relative to a reference point r.
typedef struct moments
{
    double area;  // sum A
    double m1[3]; // sum A (c - r)
    double m2[6]; // sum A (c - r)(c - r)^T + local
} moments;

typedef struct build_item
{
    uint32_t node;
    uint32_t begin, end;
    uint32_t depth;
    double area;       // total area
    double mean[3];    // area-weighted mean of the centroids (relative to the origin)
    double cov[6];     // covariance about the mean
    double axes[3][3]; // the node's box axes (rows), solved when its parent was split (the root's: to convergence)
} build_item;

static inline void moments_add(moments* s, const build_tri* t, double c0, double c1, double c2)
{
    double a = BT_AREA(t);
    s->area += a;
    s->m1[0] += a * c0;
    s->m1[1] += a * c1;
    s->m1[2] += a * c2;
    s->m2[0] += a * c0 * c0 + BT_LOCAL(t, 0);
    s->m2[1] += a * c1 * c1 + BT_LOCAL(t, 1);
    s->m2[2] += a * c2 * c2 + BT_LOCAL(t, 2);
    s->m2[3] += a * c0 * c1 + BT_LOCAL(t, 3);
    s->m2[4] += a * c0 * c2 + BT_LOCAL(t, 4);
    s->m2[5] += a * c1 * c2 + BT_LOCAL(t, 5);
}

// Centroid of a build triangle relative to r.
static inline void centroid_rel(const build_tri* t, const double r[3], double c[3])
{
    const double third = 1.0 / 3.0;
    c[0] = ((double)t->v[0][0] + (double)t->v[1][0] + (double)t->v[2][0]) * third - r[0];
    c[1] = ((double)t->v[0][1] + (double)t->v[1][1] + (double)t->v[2][1]) * third - r[1];
    c[2] = ((double)t->v[0][2] + (double)t->v[1][2] + (double)t->v[2][2]) * third - r[2];
}

// Mean and covariance from sums about r.
static void moments_finish(const moments* s, const double r[3], build_item* item)
{
    double inv = s->area > 0.0 ? 1.0 / s->area : 0.0;
    item->area = s->area;
    double d[3] = {s->m1[0] * inv, s->m1[1] * inv, s->m1[2] * inv};
    for (int k = 0; k < 3; ++k)
    {
        item->mean[k] = r[k] + d[k];
    }
    item->cov[0] = s->m2[0] * inv - d[0] * d[0];
    item->cov[1] = s->m2[1] * inv - d[1] * d[1];
    item->cov[2] = s->m2[2] * inv - d[2] * d[2];
    item->cov[3] = s->m2[3] * inv - d[0] * d[1];
    item->cov[4] = s->m2[4] * inv - d[0] * d[2];
    item->cov[5] = s->m2[5] * inv - d[1] * d[2];
}

typedef struct builder
{
    build_tri* tris;
    uint32_t* order;
    double origin[3];
    mc_bvh_node* nodes;
    uint32_t node_count, node_capacity;
    build_item* stack;
    uint32_t stack_count, stack_capacity;
    uint64_t* side_bits; // one bit per triangle of the node being split: 1 = right side
    const struct mc_mesh* mesh;
    uint32_t* tri_vertex; // the tree's leaf-order vertex indices, written by finish_leaves after the build
    float* tri_local;     // the tree's leaf-local float vertices, written by finish_leaves over the dead records (see
                          // mc_bvh_build)
    int wide;             // use the 16-lane pass (classify_avx512)
    uint32_t* leaves;     // leaf node indices in the order they were made (about position order)
    uint32_t leaf_count, leaf_capacity;
    double leaf_limit_diag; // the mesh's bounding-box diagonal (leaf_fits)
} builder;

static inline void swap_tri(builder* b, uint32_t i, uint32_t j)
{
    build_tri t = b->tris[i];
    b->tris[i] = b->tris[j];
    b->tris[j] = t;
    uint32_t o = b->order[i];
    b->order[i] = b->order[j];
    b->order[j] = o;
}

// Projection ranges of vertices on three axes, in float arithmetic (SSE when available). The error of every
// projection is bounded in projection_error().
typedef struct proj_state
{
#if defined(__SSE2__)
    __m128 col[3]; // col[c] = (axis0[c], axis1[c], axis2[c], 0)
    __m128 lo, hi; // running ranges (lane 3 unused)
#else
    float ax[3][3];
    float lo[3], hi[3];
#endif
} proj_state;

static inline void proj_init(proj_state* ps, float ax[3][3])
{
#if defined(__SSE2__)
    for (int c = 0; c < 3; ++c)
    {
        ps->col[c] = _mm_setr_ps(ax[0][c], ax[1][c], ax[2][c], 0.0f);
    }
    ps->lo = _mm_set1_ps(INFINITY);
    ps->hi = _mm_set1_ps(-INFINITY);
#else
    memcpy(ps->ax, ax, sizeof ps->ax);
    for (int r = 0; r < 3; ++r)
    {
        ps->lo[r] = INFINITY;
        ps->hi[r] = -INFINITY;
    }
#endif
}

static inline void proj_tri(proj_state* ps, const build_tri* t)
{
#if defined(__SSE2__)
    __m128 p[3];
    for (int k = 0; k < 3; ++k)
    {
        __m128 v = _mm_load_ps(t->v[k]);
        p[k] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_shuffle_ps(v, v, 0x00), ps->col[0]),
                                     _mm_mul_ps(_mm_shuffle_ps(v, v, 0x55), ps->col[1])),
                          _mm_mul_ps(_mm_shuffle_ps(v, v, 0xaa), ps->col[2]));
    }
    // Reduce the triangle first: one dependent min and max per triangle on the running ranges.
    ps->lo = _mm_min_ps(ps->lo, _mm_min_ps(_mm_min_ps(p[0], p[1]), p[2]));
    ps->hi = _mm_max_ps(ps->hi, _mm_max_ps(_mm_max_ps(p[0], p[1]), p[2]));
#else
    for (int k = 0; k < 3; ++k)
    {
        for (int r = 0; r < 3; ++r)
        {
            float p = ps->ax[r][0] * t->v[k][0] + ps->ax[r][1] * t->v[k][1] + ps->ax[r][2] * t->v[k][2];
            ps->lo[r] = p < ps->lo[r] ? p : ps->lo[r];
            ps->hi[r] = p > ps->hi[r] ? p : ps->hi[r];
        }
    }
#endif
}

static inline void proj_result(const proj_state* ps, double lo[3], double hi[3])
{
#if defined(__SSE2__)
    float l[4], h[4];
    _mm_storeu_ps(l, ps->lo);
    _mm_storeu_ps(h, ps->hi);
#else
    const float* l = ps->lo;
    const float* h = ps->hi;
#endif
    for (int r = 0; r < 3; ++r)
    {
        lo[r] = l[r];
        hi[r] = h[r];
    }
}

// The running ranges grown by the ranges rl, rh of a pass (one per axis).
static inline void proj_merge(proj_state* ps, const float rl[3], const float rh[3])
{
#if defined(__SSE2__)
    ps->lo = _mm_min_ps(ps->lo, _mm_setr_ps(rl[0], rl[1], rl[2], INFINITY));
    ps->hi = _mm_max_ps(ps->hi, _mm_setr_ps(rh[0], rh[1], rh[2], -INFINITY));
#else
    for (int r = 0; r < 3; ++r)
    {
        ps->lo[r] = rl[r] < ps->lo[r] ? rl[r] : ps->lo[r];
        ps->hi[r] = rh[r] > ps->hi[r] ? rh[r] : ps->hi[r];
    }
#endif
}

// The pass over an internal node works on groups of four triangles, one per lane: the records are transposed so
// that every lane holds one triangle (x, y, z of each vertex, area, local moments), and the pass computes the
// projections, the side and the left side's moment sums lane by lane. Moment sums are kept in float over a run of
// SUM_RUN triangles in 16 lane accumulators (lane L sums the triangles run + 16 i + L in order of i: the natural order
// of the 16-lane pass; the 4-lane pass keeps four accumulators of four lanes, one per quarter of each group of 16),
// then folded in a fixed order, (lanes 0-3 + 4-7) + (8-11 + 12-15), and added to double totals lane by lane (the sums
// only steer the axes and the split, and any axes give a valid box; the order never changes, so the build stays
// deterministic and every pass builds the same tree).
#define SUM_RUN 256u

// Moment sums per lane: area, A c (3), A c c^T + L (6: xx, yy, zz, xy, xz, yz).
enum
{
    MS_COUNT = 10
};

// The lane-pass totals (area, first moment, second moment) as moment sums.
static void sums_to_moments(const double tot[MS_COUNT], moments* m)
{
    m->area = tot[0];
    for (int k = 0; k < 3; ++k)
    {
        m->m1[k] = tot[1 + k];
    }
    for (int k = 0; k < 6; ++k)
    {
        m->m2[k] = tot[4 + k];
    }
}

// The pass over an internal node's triangles (bvh/classify_lanes.h): a portable instance (4 lanes of SSE2, or plain C)
// and, where the CPU has AVX-512F, a 16-lane one; all build bitwise the same tree.
#define MC_CL(name) name##_portable
#define MC_CL_TARGET
#if defined(__SSE2__)
#define MC_CL_KIND 1
#else
#define MC_CL_KIND 0
#endif
#include "bvh/classify_lanes.h"
#if MC_BUILD_AVX512
#define MC_CL(name) name##_avx512
#define MC_CL_TARGET __attribute__((target("avx512f")))
#define MC_CL_KIND 3
#include "bvh/classify_lanes.h"
#endif

// First position >= i (relative to the node) whose bit is 1, or count when none.
static inline uint32_t next_right(const uint64_t* bits, uint32_t i, uint32_t count)
{
    uint32_t w = i >> 6;
    uint64_t m = bits[w] & (~0ull << (i & 63u));
    while (m == 0)
    {
        if ((++w) << 6 >= count)
        {
            return count;
        }
        m = bits[w];
    }
    uint32_t r = (w << 6) + (uint32_t)__builtin_ctzll(m);
    return r < count ? r : count;
}

// Last position < j (relative to the node) whose bit is 0, or UINT32_MAX when none.
static inline uint32_t prev_left(const uint64_t* bits, uint32_t j)
{
    if (j == 0)
    {
        return UINT32_MAX;
    }
    uint32_t k = j - 1u, w = k >> 6;
    uint64_t m = ~bits[w] & (~0ull >> (63u - (k & 63u)));
    while (m == 0)
    {
        if (w == 0)
        {
            return UINT32_MAX;
        }
        m = ~bits[--w];
    }
    return (w << 6) + 63u - (uint32_t)__builtin_clzll(m);
}

// Pass 2: in-place partition by the side bits (Hoare: the first right triangle from the front swaps with the last left
// one from the back), so only misplaced triangles move. Returns the split position.
static uint32_t partition_by_bits(builder* b, uint32_t begin, uint32_t end, uint32_t n_left)
{
    uint32_t count = end - begin, i = 0, j = count;
    const uint64_t* bits = b->side_bits;
    for (;;)
    {
        i = next_right(bits, i, count);
        j = prev_left(bits, j);
        if (j == UINT32_MAX || i >= j)
        {
            break;
        }
        swap_tri(b, begin + i, begin + j);
        ++i;
    }
    return begin + n_left;
}

// Right side's sums about the node's mean: the node's total (area, first moment 0, second moment area * cov) minus
// the left side's. The subtraction loses at most |total| / |right| ulps, harmless for fitting axes.
static void split_sums(const build_item* it, const moments* left, moments* right)
{
    right->area = it->area - left->area;
    for (int k = 0; k < 3; ++k)
    {
        right->m1[k] = -left->m1[k];
    }
    for (int k = 0; k < 6; ++k)
    {
        right->m2[k] = it->area * it->cov[k] - left->m2[k];
    }
    if (!(right->area > 0.0))
    {
        right->area = 0.0;
    }
}

// Partition only (fallback axes).
static uint32_t partition_only(builder* b, uint32_t begin, uint32_t end, const double split[3], const double mean[3],
                               moments* left, moments* right)
{
    memset(left, 0, sizeof *left);
    memset(right, 0, sizeof *right);
    uint32_t i = begin, j = end;
    while (i < j)
    {
        double c[3];
        centroid_rel(&b->tris[i], mean, c);
        if (split[0] * c[0] + split[1] * c[1] + split[2] * c[2] < 0.0)
        {
            moments_add(left, &b->tris[i], c[0], c[1], c[2]);
            ++i;
        }
        else
        {
            moments_add(right, &b->tris[i], c[0], c[1], c[2]);
            --j;
            swap_tri(b, i, j);
        }
    }
    return i;
}

static mc_status push_item(builder* b, const build_item* item)
{
    if (b->stack_count == b->stack_capacity)
    {
        uint32_t cap = b->stack_capacity * 2u;
        build_item* s = mc_realloc(b->stack, (size_t)cap * sizeof *s);
        if (s == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        b->stack = s;
        b->stack_capacity = cap;
    }
    b->stack[b->stack_count++] = *item;
    return MC_OK;
}

static mc_status alloc_children(builder* b, uint32_t* first)
{
    if (b->node_count + 2u > b->node_capacity)
    {
        uint64_t cap = (uint64_t)b->node_capacity + b->node_capacity / 4u + 64u;
        if (cap > 2ull * MC_BVH_MAX_TRIANGLES)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        mc_bvh_node* n = mc_realloc(b->nodes, (size_t)cap * sizeof *n);
        if (n == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        b->nodes = n;
        b->node_capacity = (uint32_t)cap;
    }
    *first = b->node_count;
    b->node_count += 2u;
    return MC_OK;
}

// Error bound of the projections computed from the float vertices (see build_tri) in float arithmetic: each float
// coordinate is within 2^-24 |x| (plus 2^-53 from the double subtraction) of the exact offset v - origin, and the
// projection (three products, two sums, no fused operations) adds at most gamma_3 = 3 * 2^-24 / (1 - 3 * 2^-24) times
// sum_c |a_c v_c|. Together < 2.5e-7 |v|_1 <= 2.5e-7 sqrt(3) |v|_2, and |v|_2 <= (1 + 1e-6) sum_k |a_k . v| <=
// S = sum_k max(|lo_k|, |hi_k|) up to the same errors (the axes are orthonormal to 1e-6). 6e-7 * S covers it.
static double projection_error(const double lo[3], const double hi[3])
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        double a = fabs(lo[k]), b = fabs(hi[k]);
        s += a > b ? a : b;
    }
    return 6e-7 * s + MC_BVH_FLOAT_TINY; // and each float operation's absolute error in gradual underflow
}

// The leaves' entries of tri_vertex and tri_local (offsets of the double vertices from the leaf's stored float center,
// rounded to float), in one pass after the build, leaf by leaf in the order the leaves were made (about position
// order). The records are all dead by then, so tri_local may overwrite them. The triangles come in leaf order, not in
// mesh order, so their index and vertex lines are prefetched a few triangles ahead.
static void finish_leaves(builder* b, uint32_t n)
{
    const mc_vec3* pos = b->mesh->positions;
    const uint32_t* indices = b->mesh->indices;
    const uint32_t* order = b->order;
    const size_t stride = mc_bvh_local_stride(n);
    for (uint32_t li = 0; li < b->leaf_count; ++li)
    {
        const mc_bvh_node* node = &b->nodes[b->leaves[li]];
        uint32_t begin = mc_bvh_leaf_first(node), end = begin + mc_bvh_leaf_count(node);
        double c[3] = {node->center[0], node->center[1], node->center[2]};
        for (uint32_t p = begin; p < end; ++p)
        {
            if (p + 16u < n)
            {
                __builtin_prefetch(&indices[3u * (size_t)order[p + 16u]]);
            }
            if (p + 8u < n)
            {
                const uint32_t* ahead = &indices[3u * (size_t)order[p + 8u]];
                __builtin_prefetch(&pos[ahead[0]]);
                __builtin_prefetch(&pos[ahead[1]]);
                __builtin_prefetch(&pos[ahead[2]]);
            }
            const uint32_t* ix = &indices[3u * (size_t)order[p]];
            uint32_t* tv = &b->tri_vertex[3u * (size_t)p];
            float* out = &b->tri_local[p];
            for (uint32_t v = 0; v < 3u; ++v)
            {
                tv[v] = ix[v];
                mc_vec3 x = pos[ix[v]];
                out[(3u * v) * stride] = (float)(x.x - c[0]);
                out[(3u * v + 1u) * stride] = (float)(x.y - c[1]);
                out[(3u * v + 2u) * stride] = (float)(x.z - c[2]);
            }
        }
    }
}

// Build records of triangles [t0, t1): float vertices relative to the origin o, area, local second moments; and the
// root's moment sums about o, added in triangle order (double, from the exact vertices).
static void make_records(builder* b, mc_vec3 o, uint32_t t0, uint32_t t1, moments* root_sums)
{
    const struct mc_mesh* mesh = b->mesh;
    for (uint32_t t = t0; t < t1; ++t)
    {
        const uint32_t* ix = &mesh->indices[3u * t];
        mc_vec3 p = mc_sub(mesh->positions[ix[0]], o), q = mc_sub(mesh->positions[ix[1]], o),
                r = mc_sub(mesh->positions[ix[2]], o);
        build_tri* bt = &b->tris[t];
        mc_vec3 c = mc_scale(mc_add(mc_add(p, q), r), 1.0 / 3.0);
        mc_vec3 n = mc_cross(mc_sub(q, p), mc_sub(r, p));
        double area = 0.5 * sqrt((n.x * n.x + n.y * n.y) + n.z * n.z);
        // Second moment of a triangle about its centroid: A/12 * sum_k d_k d_k^T (exact for a uniform density).
        mc_vec3 d[3] = {mc_sub(p, c), mc_sub(q, c), mc_sub(r, c)};
        double w = area * (1.0 / 12.0);
        double l[6];
        l[0] = (d[0].x * d[0].x + d[1].x * d[1].x) + d[2].x * d[2].x;
        l[1] = (d[0].y * d[0].y + d[1].y * d[1].y) + d[2].y * d[2].y;
        l[2] = (d[0].z * d[0].z + d[1].z * d[1].z) + d[2].z * d[2].z;
        l[3] = (d[0].x * d[0].y + d[1].x * d[1].y) + d[2].x * d[2].y;
        l[4] = (d[0].x * d[0].z + d[1].x * d[1].z) + d[2].x * d[2].z;
        l[5] = (d[0].y * d[0].z + d[1].y * d[1].z) + d[2].y * d[2].z;
        bt->v[0][0] = (float)p.x, bt->v[0][1] = (float)p.y, bt->v[0][2] = (float)p.z;
        bt->v[1][0] = (float)q.x, bt->v[1][1] = (float)q.y, bt->v[1][2] = (float)q.z;
        bt->v[2][0] = (float)r.x, bt->v[2][1] = (float)r.y, bt->v[2][2] = (float)r.z;
        bt->v[0][3] = (float)area;
        for (int k = 0; k < 4; ++k)
        {
            bt->w[k] = (float)(w * l[k]);
        }
        bt->v[1][3] = (float)(w * l[4]);
        bt->v[2][3] = (float)(w * l[5]);
        b->order[t] = t;
        double ac[3] = {area * c.x, area * c.y, area * c.z};
        root_sums->area += area;
        root_sums->m1[0] += ac[0];
        root_sums->m1[1] += ac[1];
        root_sums->m1[2] += ac[2];
        root_sums->m2[0] += ac[0] * c.x + w * l[0];
        root_sums->m2[1] += ac[1] * c.y + w * l[1];
        root_sums->m2[2] += ac[2] * c.z + w * l[2];
        root_sums->m2[3] += ac[0] * c.y + w * l[3];
        root_sums->m2[4] += ac[0] * c.z + w * l[4];
        root_sums->m2[5] += ac[1] * c.z + w * l[5];
    }
}

#if MC_BUILD_AVX512
// make_records on 8 triangles at a time (AVX-512F, double lanes): the same IEEE operations per lane, and the root sums
// added lane by lane in triangle order, so the records and sums are bitwise make_records'. Returns the number of
// triangles done (a multiple of 8); make_records does the rest.
__attribute__((target("avx512f"))) static uint32_t make_records_avx512(builder* b, mc_vec3 o, uint32_t n,
                                                                       moments* root_sums)
{
    const struct mc_mesh* mesh = b->mesh;
    const double* pos = &mesh->positions[0].x;
    const __m512d ox = _mm512_set1_pd(o.x), oy = _mm512_set1_pd(o.y), oz = _mm512_set1_pd(o.z);
    const __m512d third = _mm512_set1_pd(1.0 / 3.0), half = _mm512_set1_pd(0.5), twelfth = _mm512_set1_pd(1.0 / 12.0);
    const __m256i three = _mm256_set1_epi32(3), lane3 = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    uint32_t t = 0;
    for (; t + 8u <= n; t += 8u)
    {
        const int* ix = (const int*)&mesh->indices[3u * t];
        __m512d vx[3], vy[3], vz[3];
        for (int k = 0; k < 3; ++k)
        {
            __m256i vi = _mm256_mullo_epi32(_mm256_i32gather_epi32(ix + k, lane3, 4), three);
            vx[k] = _mm512_sub_pd(_mm512_i32gather_pd(vi, pos, 8), ox);
            vy[k] = _mm512_sub_pd(_mm512_i32gather_pd(vi, pos + 1, 8), oy);
            vz[k] = _mm512_sub_pd(_mm512_i32gather_pd(vi, pos + 2, 8), oz);
        }
        __m512d cx = _mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(vx[0], vx[1]), vx[2]), third);
        __m512d cy = _mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(vy[0], vy[1]), vy[2]), third);
        __m512d cz = _mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(vz[0], vz[1]), vz[2]), third);
        __m512d ex = _mm512_sub_pd(vx[1], vx[0]), ey = _mm512_sub_pd(vy[1], vy[0]), ez = _mm512_sub_pd(vz[1], vz[0]);
        __m512d fx = _mm512_sub_pd(vx[2], vx[0]), fy = _mm512_sub_pd(vy[2], vy[0]), fz = _mm512_sub_pd(vz[2], vz[0]);
        __m512d nx = _mm512_sub_pd(_mm512_mul_pd(ey, fz), _mm512_mul_pd(ez, fy));
        __m512d ny = _mm512_sub_pd(_mm512_mul_pd(ez, fx), _mm512_mul_pd(ex, fz));
        __m512d nz = _mm512_sub_pd(_mm512_mul_pd(ex, fy), _mm512_mul_pd(ey, fx));
        __m512d area = _mm512_mul_pd(
            half, _mm512_sqrt_pd(_mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(nx, nx), _mm512_mul_pd(ny, ny)),
                                               _mm512_mul_pd(nz, nz))));
        __m512d dx[3], dy[3], dz[3];
        for (int k = 0; k < 3; ++k)
        {
            dx[k] = _mm512_sub_pd(vx[k], cx);
            dy[k] = _mm512_sub_pd(vy[k], cy);
            dz[k] = _mm512_sub_pd(vz[k], cz);
        }
        __m512d w = _mm512_mul_pd(area, twelfth);
#define MC_L3(a, b)                                                                                                    \
    _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(a[0], b[0]), _mm512_mul_pd(a[1], b[1])), _mm512_mul_pd(a[2], b[2]))
        __m512d l[6] = {MC_L3(dx, dx), MC_L3(dy, dy), MC_L3(dz, dz), MC_L3(dx, dy), MC_L3(dx, dz), MC_L3(dy, dz)};
#undef MC_L3
        __m512d wl[6];
        for (int k = 0; k < 6; ++k)
        {
            wl[k] = _mm512_mul_pd(w, l[k]);
        }
        // Records: 16 floats per triangle, transposed from the lanes through a small buffer.
        float f[16][8];
        __m512d fields[16] = {vx[0], vy[0], vz[0], area,  vx[1], vy[1], vz[1], wl[4],
                              vx[2], vy[2], vz[2], wl[5], wl[0], wl[1], wl[2], wl[3]};
        for (int q = 0; q < 16; ++q)
        {
            _mm256_storeu_ps(f[q], _mm512_cvtpd_ps(fields[q]));
        }
        for (uint32_t lane = 0; lane < 8u; ++lane)
        {
            float* rec = b->tris[t + lane].v[0];
            for (int q = 0; q < 16; ++q)
            {
                rec[q] = f[q][lane];
            }
            b->order[t + lane] = t + lane;
        }
        // Root sums, lane by lane in triangle order.
        double sa[8], sm1[3][8], sm2[6][8];
        __m512d acx = _mm512_mul_pd(area, cx), acy = _mm512_mul_pd(area, cy), acz = _mm512_mul_pd(area, cz);
        _mm512_storeu_pd(sa, area);
        _mm512_storeu_pd(sm1[0], acx);
        _mm512_storeu_pd(sm1[1], acy);
        _mm512_storeu_pd(sm1[2], acz);
        _mm512_storeu_pd(sm2[0], _mm512_add_pd(_mm512_mul_pd(acx, cx), wl[0]));
        _mm512_storeu_pd(sm2[1], _mm512_add_pd(_mm512_mul_pd(acy, cy), wl[1]));
        _mm512_storeu_pd(sm2[2], _mm512_add_pd(_mm512_mul_pd(acz, cz), wl[2]));
        _mm512_storeu_pd(sm2[3], _mm512_add_pd(_mm512_mul_pd(acx, cy), wl[3]));
        _mm512_storeu_pd(sm2[4], _mm512_add_pd(_mm512_mul_pd(acx, cz), wl[4]));
        _mm512_storeu_pd(sm2[5], _mm512_add_pd(_mm512_mul_pd(acy, cz), wl[5]));
        for (int lane = 0; lane < 8; ++lane)
        {
            root_sums->area += sa[lane];
            for (int k = 0; k < 3; ++k)
            {
                root_sums->m1[k] += sm1[k][lane];
            }
            for (int k = 0; k < 6; ++k)
            {
                root_sums->m2[k] += sm2[k][lane];
            }
        }
    }
    return t;
}
#endif

// The box of a node from its projection ranges, to be finished with the others of its round (finish_jobs).
static void make_job(const proj_state* ps, float axes_f[3][3], uint32_t node, mc_obb_job* job)
{
    proj_result(ps, job->lo, job->hi);
    memcpy(job->axes_f, axes_f, sizeof job->axes_f);
    job->proj_err = projection_error(job->lo, job->hi);
    job->node = node;
}

static void finish_jobs(builder* b, const mc_obb_job* jobs, uint32_t n)
{
#if MC_BUILD_AVX512
    if (b->wide)
    {
        for (uint32_t k = 0; k < n; k += 4u)
        {
            mc_obb_finish4(jobs + k, n - k < 4u ? n - k : 4u, b->origin, b->nodes);
        }
        return;
    }
#endif
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_obb_finish((float(*)[3])jobs[k].axes_f, jobs[k].lo, jobs[k].hi, b->origin, jobs[k].proj_err,
                      &b->nodes[jobs[k].node]);
    }
}

// A leaf's box should hug its triangles. Leaves of a fine mesh are small patches, but the few large triangles of a
// coarse part (a box of 12 triangles, a plate, a coarse CAD export) made one leaf as large as the part, whose box
// overlaps everything near or inside it and sends a query to every leaf of the other mesh (a fine part inside a
// 12-triangle box was 30 to 200 times slower than FCL, whose leaves hold one triangle). So a node of up to
// MC_BVH_LEAF_MAX triangles is a leaf when it has one triangle or its box's largest extent is at most LEAF_SPAN of the
// mesh's bounding-box diagonal (fine meshes: every leaf; coarse ones are split down to small or single triangles).
// Projects the node's triangles onto ps (whose ranges are the node's box either way).
#define LEAF_SPAN 0.25
#define LEAF_THIN 0.15
#define SPLIT_SPREAD 1.0f
#define SPLIT_SAMPLES 64u

static bool leaf_fits(proj_state* ps, const builder* b, const build_item* it)
{
    for (uint32_t t = it->begin; t < it->end; ++t)
    {
        proj_tri(ps, &b->tris[t]);
    }
    if (it->end - it->begin == 1u)
    {
        return true;
    }
    double lo[3], hi[3];
    proj_result(ps, lo, hi);
    double wide = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double thin = fmin(hi[0] - lo[0], fmin(hi[1] - lo[1], hi[2] - lo[2]));
    return wide <= LEAF_SPAN * b->leaf_limit_diag || thin <= LEAF_THIN * wide;
}

// The box axis to split a node across: the one along which the triangles' centroids spread most. The principal axis
// of the area moments (axis 0) is that axis for compact triangles; for long thin triangles their own length dominates
// the moments, and a cap fanned from its axis (spokes from the centre to the rim) has its principal axis along the
// spokes while its centroids spread across them: splitting along the spokes grouped spokes of far-apart angles into
// wide leaves.
static int split_axis(const builder* b, const build_item* it, float ax[3][3])
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    // Every triangle of a small node; a large node's spread from SPLIT_SAMPLES evenly strided triangles (it only picks
    // the axis, and a pass over all would cost a quarter of the build).
    uint32_t count = it->end - it->begin, step = count > 2u * SPLIT_SAMPLES ? count / SPLIT_SAMPLES : 1u;
    for (uint32_t t = it->begin; t < it->end; t += step)
    {
        const build_tri* bt = &b->tris[t];
        float c[3];
        for (int k = 0; k < 3; ++k)
        {
            c[k] = bt->v[0][k] + bt->v[1][k] + bt->v[2][k];
        }
        for (int r = 0; r < 3; ++r)
        {
            float p = ax[r][0] * c[0] + ax[r][1] * c[1] + ax[r][2] * c[2];
            lo[r] = p < lo[r] ? p : lo[r];
            hi[r] = p > hi[r] ? p : hi[r];
        }
    }
    int best = 0;
    for (int r = 1; r < 3; ++r)
    {
        best = hi[r] - lo[r] > SPLIT_SPREAD * (hi[best] - lo[best]) ? r : best;
    }
    return best;
}

// Items split per round of build_tree (their children's axes are solved in one call).
#define BUILD_BATCH 4u

// Make the node of `it`: a leaf, or an internal node whose two children (without axes yet) go to kids[0..1]. Its box is
// left to finish in *job.
// @return 1 when children were made; *st receives MC_ERR_OUT_OF_MEMORY when the node array could not grow.
static int split_item(builder* b, const build_item* it, build_item kids[2], mc_obb_job* job, mc_status* st)
{
    float axes_f[3][3];
    double axes[3][3];
    memcpy(axes, it->axes, sizeof axes);
    mc_obb_round_axes(axes, axes_f);
    proj_state ps;
    proj_init(&ps, axes_f);
    uint32_t count = it->end - it->begin;
    if (count <= MC_BVH_LEAF_MAX && leaf_fits(&ps, b, it))
    {
        make_job(&ps, axes_f, it->node, job);
        b->nodes[it->node].data = MC_BVH_LEAF_BIT | (it->begin << MC_BVH_LEAF_BITS) | (count - 1u);
        if (b->leaf_count == b->leaf_capacity)
        {
            uint32_t cap = b->leaf_capacity * 2u + 64u;
            uint32_t* l = mc_realloc(b->leaves, (size_t)cap * sizeof *l);
            if (l == NULL)
            {
                *st = MC_ERR_OUT_OF_MEMORY;
                return 0;
            }
            b->leaves = l;
            b->leaf_capacity = cap;
        }
        b->leaves[b->leaf_count++] = it->node;
        return 0;
    }
    moments left, right;
    int k = split_axis(b, it, axes_f);
    const double* split = axes[k];
#if MC_BUILD_AVX512
    uint32_t n_left = b->wide ? classify_avx512(b, it->begin, it->end, &ps, axes_f, split, it->mean, &left)
                              : classify_portable(b, it->begin, it->end, &ps, axes_f, split, it->mean, &left);
#else
    uint32_t n_left = classify_portable(b, it->begin, it->end, &ps, axes_f, split, it->mean, &left);
#endif
    uint32_t mid = partition_by_bits(b, it->begin, it->end, n_left);
    split_sums(it, &left, &right);
    make_job(&ps, axes_f, it->node, job);
    for (int r = 1; r < 3 && (mid == it->begin || mid == it->end); ++r)
    {
        mid = partition_only(b, it->begin, it->end, axes[(k + r) % 3], it->mean, &left, &right);
    }
    if (mid == it->begin || mid == it->end)
    {
        // Every centroid on one side along all three axes (coincident centroids): split by count.
        mid = it->begin + count / 2u;
        memset(&left, 0, sizeof left);
        memset(&right, 0, sizeof right);
        for (uint32_t t = it->begin; t < it->end; ++t)
        {
            double c[3];
            centroid_rel(&b->tris[t], it->mean, c);
            moments_add(t < mid ? &left : &right, &b->tris[t], c[0], c[1], c[2]);
        }
    }
    uint32_t first = 0;
    *st = alloc_children(b, &first);
    if (*st != MC_OK)
    {
        return 0;
    }
    b->nodes[it->node].data = first;
    moments_finish(&left, it->mean, &kids[0]);
    moments_finish(&right, it->mean, &kids[1]);
    kids[0].node = first;
    kids[0].begin = it->begin;
    kids[0].end = mid;
    kids[1].node = first + 1u;
    kids[1].begin = mid;
    kids[1].end = it->end;
    kids[0].depth = kids[1].depth = it->depth + 1u;
    return 1;
}

// Axes of n children (pairs 2j, 2j + 1 from the parent axes guess[j]): one warm Jacobi sweep each.
static void solve_children(const builder* b, build_item* kids, double guess[][3][3], uint32_t n)
{
#if MC_BUILD_AVX512
    if (b->wide && n > 2u)
    {
        const double* m[8];
        double(*g[8])[3];
        double(*out[8])[3];
        double scratch[3][3];
        for (uint32_t l = 0; l < 8u; ++l)
        {
            m[l] = kids[l < n ? l : 0u].cov;
            g[l] = guess[(l < n ? l : 0u) / 2u];
            out[l] = l < n ? kids[l].axes : scratch;
        }
        mc_obb_eigen_sym3_warm8(m, g, out);
        return;
    }
#else
    (void)b;
#endif
    for (uint32_t j = 0; 2u * j < n; ++j)
    {
        mc_obb_eigen_sym3_warm2(kids[2u * j].cov, kids[2u * j + 1u].cov, guess[j], kids[2u * j].axes,
                                kids[2u * j + 1u].axes);
    }
}

// A node of one triangle gets the triangle's own frame (its longest edge, the in-plane normal to it, the plane's
// normal): its box is then flat. Small nodes of large triangles (a coarse part: a box of 12 triangles, a plate) get
// axes solved to convergence from scratch. The one warm sweep from the parent's axes that every other node gets
// leaves such a node's axes off by degrees when its parent was of another shape (the triangles of a box split off
// across its faces): measured on a 12-triangle box around a part, single-triangle leaves 4 % of the box's size thick
// where the triangle is flat, and the part inside reached every one of them. Fine meshes' nodes of up to
// MC_BVH_LEAF_MAX triangles are far smaller than COARSE_NODE of the mesh's diagonal and keep the warm sweep.
#define COARSE_NODE 0.02

static void refine_small_axes(const builder* b, build_item* kid)
{
    uint32_t count = kid->end - kid->begin;
    if (count == 1u)
    {
        const build_tri* t = &b->tris[kid->begin];
        double v[3][3];
        for (int k = 0; k < 3; ++k)
        {
            for (int c = 0; c < 3; ++c)
            {
                v[k][c] = t->v[k][c];
            }
        }
        double e[3][3], len[3];
        for (int k = 0; k < 3; ++k)
        {
            len[k] = 0.0;
            for (int c = 0; c < 3; ++c)
            {
                e[k][c] = v[(k + 1) % 3][c] - v[k][c];
                len[k] += e[k][c] * e[k][c];
            }
        }
        int l = len[0] >= len[1] ? (len[0] >= len[2] ? 0 : 2) : (len[1] >= len[2] ? 1 : 2);
        const double* a = e[l];
        const double* c2 = e[(l + 1) % 3];
        double n[3] = {a[1] * c2[2] - a[2] * c2[1], a[2] * c2[0] - a[0] * c2[2], a[0] * c2[1] - a[1] * c2[0]};
        double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), la = sqrt(len[l]);
        if (!(nn > 0.0) || !(la > 0.0) || !(nn > 1e-12 * la * la))
        {
            return; // degenerate: the solved axes stay
        }
        double ax[3][3];
        for (int c = 0; c < 3; ++c)
        {
            ax[0][c] = a[c] / la;
            ax[2][c] = n[c] / nn;
        }
        // ax[1] = ax[2] x ax[0]: unit, in the plane, right-handed with the other two.
        ax[1][0] = ax[2][1] * ax[0][2] - ax[2][2] * ax[0][1];
        ax[1][1] = ax[2][2] * ax[0][0] - ax[2][0] * ax[0][2];
        ax[1][2] = ax[2][0] * ax[0][1] - ax[2][1] * ax[0][0];
        memcpy(kid->axes, ax, sizeof ax);
        return;
    }
    double size2 = kid->cov[0] + kid->cov[1] + kid->cov[2];
    if (count <= MC_BVH_LEAF_MAX && size2 > COARSE_NODE * COARSE_NODE * b->leaf_limit_diag * b->leaf_limit_diag)
    {
        mc_obb_eigen_sym3(kid->cov, kid->axes, NULL);
    }
}

// root_sums: the moment sums of all triangles about the origin (exact double vertices, gathered while the records
// were made; the origin is the bbox center, so the covariance below does not cancel badly).
static mc_status build_tree(builder* b, uint32_t tri_count, const moments* root_sums, uint32_t* depth_out)
{
    double zero[3] = {0.0, 0.0, 0.0};
    build_item root;
    memset(&root, 0, sizeof root);
    moments_finish(root_sums, zero, &root);
    root.node = 0;
    root.begin = 0;
    root.end = tri_count;
    root.depth = 1;
    // The root's covariance is solved to convergence; every other node's axes come from one warm Jacobi sweep started
    // at its parent's axes, solved for both children at once when the parent is split.
    mc_obb_eigen_sym3_guess(root.cov, NULL, root.axes, NULL);
    b->node_count = 1;
    mc_status st = push_item(b, &root);
    uint32_t max_depth = 1;
    // Items are taken from the stack BUILD_BATCH at a time: each is split (or made a leaf), then the axes of all their
    // children are solved together (eight warm starts per AVX-512 call, or two per SSE2 call), and the children are
    // pushed so that the first item's left child comes next. The batching fixes the node numbering (children are
    // allocated in item order), the same on every machine; the boxes and the triangle order do not depend on it.
    while (st == MC_OK && b->stack_count > 0)
    {
        build_item items[BUILD_BATCH], kids[2 * BUILD_BATCH];
        double guess[BUILD_BATCH][3][3];
        uint32_t n_items = b->stack_count < BUILD_BATCH ? b->stack_count : BUILD_BATCH, n_kids = 0;
        for (uint32_t k = 0; k < n_items; ++k)
        {
            items[k] = b->stack[--b->stack_count];
        }
        mc_obb_job jobs[BUILD_BATCH];
        uint32_t n_jobs = 0;
        for (uint32_t k = 0; k < n_items && st == MC_OK; ++k)
        {
            const build_item* it = &items[k];
            max_depth = it->depth > max_depth ? it->depth : max_depth;
            if (split_item(b, it, &kids[n_kids], &jobs[n_jobs], &st))
            {
                memcpy(guess[n_kids / 2u], it->axes, sizeof guess[0]);
                n_kids += 2u;
            }
            n_jobs += st == MC_OK;
        }
        if (st != MC_OK)
        {
            break;
        }
        finish_jobs(b, jobs, n_jobs);
        solve_children(b, kids, guess, n_kids);
        for (uint32_t k = 0; k < n_kids; ++k)
        {
            refine_small_axes(b, &kids[k]);
        }
        for (uint32_t k = n_kids; k > 0 && st == MC_OK; k -= 2u)
        {
            st = push_item(b, &kids[k - 1u]);
            if (st == MC_OK)
            {
                st = push_item(b, &kids[k - 2u]);
            }
        }
    }
    *depth_out = max_depth;
    return st;
}

int mc_bvh_build_portable = 0;

int mc_bvh_build_wide_available(void)
{
#if MC_BUILD_AVX512
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 1 : 0;
#else
    return 0;
#endif
}

mc_status mc_bvh_build(struct mc_mesh* mesh)
{
    if (mesh == NULL || mesh->triangle_count == 0 || mesh->positions == NULL || mesh->indices == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    uint32_t n = mesh->triangle_count;
    if (n >= MC_BVH_MAX_TRIANGLES)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_bvh* bvh = mc_calloc(1, sizeof *bvh);
    builder b;
    memset(&b, 0, sizeof b);
    // The records share one block with the tree's tri_local: once the tree is built, finish_leaves writes the
    // leaf-local vertices (36 B per triangle and some padding) over records nobody reads any more, and the block is
    // shrunk afterwards.
    // This saves the first touch of a second 64 B per triangle (page faults cost about as much as a level of the
    // build).
    size_t stride = mc_bvh_local_stride(n);
    size_t local_bytes = 9u * stride * sizeof(float), block_bytes = (size_t)n * sizeof *b.tris;
    block_bytes = block_bytes > local_bytes ? block_bytes : local_bytes;
    b.tris = mc_alloc(block_bytes);
    b.tri_local = (float*)b.tris;
    b.mesh = mesh;
    b.leaf_limit_diag = mc_length(mc_sub(mesh->report.bbox_max, mesh->report.bbox_min));
    b.wide = mc_bvh_build_wide_available() && !mc_bvh_build_portable;
    // Leaves hold up to MC_BVH_LEAF_MAX = 16 triangles, about 11 on average (measured: 0.16 n to 0.18 n nodes on the
    // bench meshes); the array grows by 25% when needed.
    b.node_capacity = n < 64u ? 2u * n : n / 5u + n / 64u;
    b.nodes = mc_alloc_array(b.node_capacity, sizeof *b.nodes);
    b.stack_capacity = 64;
    b.stack = mc_alloc_array(b.stack_capacity, sizeof *b.stack);
    b.side_bits = mc_alloc_array(n / 64u + 1u, sizeof *b.side_bits);
    if (bvh != NULL)
    {
        bvh->tri_order = mc_alloc_array(n, sizeof *bvh->tri_order);
        bvh->tri_vertex = mc_alloc_array(3u * (size_t)n, sizeof *bvh->tri_vertex);
        b.tri_vertex = bvh->tri_vertex;
    }
    // The build sweeps the records once per level and the queries walk the tree's arrays: huge pages where possible.
    mc_advise_large(b.tris, block_bytes);
    if (bvh != NULL)
    {
        mc_advise_large(bvh->tri_order, (size_t)n * sizeof *bvh->tri_order);
        mc_advise_large(bvh->tri_vertex, 3u * (size_t)n * sizeof *bvh->tri_vertex);
    }
    mc_advise_large(b.nodes, (size_t)b.node_capacity * sizeof *b.nodes);
    mc_status st = MC_OK;
    if (bvh == NULL || b.tris == NULL || b.nodes == NULL || b.stack == NULL || b.side_bits == NULL ||
        bvh->tri_order == NULL || bvh->tri_vertex == NULL)
    {
        st = MC_ERR_OUT_OF_MEMORY;
    }
    double max_abs = 0.0;
    if (st == MC_OK)
    {
        b.order = bvh->tri_order;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        {
            double p[3] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z};
            for (int k = 0; k < 3; ++k)
            {
                lo[k] = p[k] < lo[k] ? p[k] : lo[k];
                hi[k] = p[k] > hi[k] ? p[k] : hi[k];
                double a = fabs(p[k]);
                max_abs = a > max_abs ? a : max_abs;
            }
        }
        for (int k = 0; k < 3; ++k)
        {
            b.origin[k] = 0.5 * (lo[k] + hi[k]);
            bvh->bbox_lo[k] = lo[k];
            bvh->bbox_hi[k] = hi[k];
        }
        mc_vec3 o = mc_v3(b.origin[0], b.origin[1], b.origin[2]);
        moments root_sums;
        memset(&root_sums, 0, sizeof root_sums);
        uint32_t t0 = 0;
#if MC_BUILD_AVX512
        if (b.wide)
        {
            t0 = make_records_avx512(&b, o, n, &root_sums);
        }
#endif
        make_records(&b, o, t0, n, &root_sums);
        st = build_tree(&b, n, &root_sums, &bvh->depth);
        if (st == MC_OK)
        {
            finish_leaves(&b, n);
        }
    }
    mc_free(b.stack);
    mc_free(b.side_bits);
    mc_free(b.leaves);
    if (st != MC_OK)
    {
        mc_free(b.tris);
        mc_free(b.nodes);
        if (bvh != NULL)
        {
            mc_free(bvh->tri_order);
            mc_free(bvh->tri_vertex);
            mc_free(bvh);
        }
        return st;
    }
    // Zero the padding of the component arrays, then shrink the record block to tri_local's size (a failed shrink
    // keeps the block).
    for (int q = 0; q < 9; ++q)
    {
        memset(b.tri_local + (size_t)q * stride + n, 0, MC_BVH_LOCAL_PAD * sizeof(float));
    }
    float* shrunk = local_bytes < block_bytes ? mc_realloc(b.tris, local_bytes) : NULL;
    bvh->tri_local = shrunk != NULL ? shrunk : (float*)b.tris;
    local_bytes = shrunk != NULL ? local_bytes : block_bytes;
    bvh->nodes = b.nodes;
    bvh->node_count = b.node_count;
    bvh->node_capacity = b.node_capacity;
    bvh->triangle_count = n;
    bvh->max_abs_coord = max_abs;
    bvh->byte_count = sizeof *bvh + (size_t)b.node_capacity * sizeof *b.nodes + (size_t)n * sizeof *bvh->tri_order +
                      3u * (size_t)n * sizeof *bvh->tri_vertex + local_bytes;
    if (mesh->bvh != NULL)
    {
        mc_bvh_destroy(mesh->bvh);
    }
    mesh->bvh = bvh;
    return MC_OK;
}

void mc_bvh_destroy(mc_bvh* bvh)
{
    if (bvh == NULL)
    {
        return;
    }
    mc_free(bvh->nodes);
    mc_free(bvh->tri_order);
    mc_free(bvh->tri_vertex);
    mc_free(bvh->tri_local);
    mc_refit_plan_destroy(bvh->refit_plan);
    mc_free(bvh);
}

size_t mc_bvh_byte_count(const mc_bvh* bvh)
{
    return bvh == NULL ? 0 : bvh->byte_count;
}
