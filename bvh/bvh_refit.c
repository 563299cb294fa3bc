// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Refit of a mesh's OBB tree after its vertices moved (mc_mesh_set_positions): the topology and the node axes stay,
// the boxes follow the vertices: each node's box is refitted on its axes to the vertices of its triangles, the tightest
// box on those axes, as the build fits it (a box grown from the children's boxes was cheaper but inflated by their
// turned axes: past 1.5 times the built tree's measure under a mere uniform scaling of a sphere, so the criterion
// rebuilt it at every step). Every box stays conservative as the build's are (mc_obb_finish with a bound of the
// projections' rounding), so the queries on a refitted tree find exactly the pairs of a fresh one.
//
// Cost. An inner node's vertex set is projected once per vertex, not once per triangle corner (about 6 corners a
// vertex on a closed surface), and mostly without gathers: the plan (made at the tree's first deformation) numbers
// the triangles' vertices in the order of their first use along tri_order. A node's triangles are a range of
// tri_order, so the vertices first used by them are a range of that numbering; the node's other vertices (its border:
// used by an earlier triangle too, a ring about the square root of its size) are listed. Each step copies the
// vertices, less the origin, into three coordinate arrays in that order; a node's box is then a streaming pass over
// its range (SIMD, SoA) and gathers for its border. Still n log n (every level of the tree passes over all the
// vertices once), but at 8 lanes and 5 operations a vertex and axis. With AVX-512 a leaf is refitted whole from its
// triangles' corners, gathered once for both its box and its leaf-local float vertices, and the inner nodes' boxes
// are finished four at a time. Measured at 100k triangles (bench_deform, 18k nodes): the inner nodes and the leaves
// cost about the same in all; the top levels' long projections are a small part (fitting the nodes of more than
// 1000, 5000 or 20000 vertices from their children's boxes saved at most 5% and raised the tree's measure 1.375,
// 1.23 and 1.055 times: not done).
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define MC_REFIT_AVX2 1
#include <immintrin.h>
#else
#define MC_REFIT_AVX2 0
#endif

int mc_bvh_refit_portable = 0;
int mc_bvh_refit_portable_leaves = 0;

/// The vertices of the tree's triangles in the order of their first use along tri_order, and each node's share.
struct mc_refit_plan
{
    uint32_t vertex_count;  ///< distinct vertices of the triangles
    uint32_t* vertex;       ///< vertex_count mesh vertex indices, in the order of first use along tri_order
    uint32_t* range;        ///< 2 per node: the node's first and end index into `vertex` (first used by its triangles)
    uint32_t* border_first; ///< node_count + 1 offsets into `border`
    uint32_t* border;       ///< per node: indices into `vertex` (below its range) of its triangles' other vertices
    double* coords;         ///< 3 arrays of stride doubles: x, y, z of `vertex` less the origin (refilled each refit)
    /// per node: its slot in leaf_vertex / leaf_corner when it is a leaf of at most 16 distinct vertices, else MC_NONE
    uint32_t* leaf_slot;
    int32_t* leaf_vertex; ///< 16 per slot: 3 v for the leaf's distinct vertices v (the first one repeated to 16)
    uint8_t* leaf_corner; ///< 48 per slot: corner c of the leaf's triangle p is its distinct vertex [16 c + p]
    size_t stride;        ///< length of each coordinate array
    size_t byte_count;    ///< bytes owned
};

void mc_refit_plan_destroy(struct mc_refit_plan* plan)
{
    if (plan == NULL)
    {
        return;
    }
    mc_free(plan->vertex);
    mc_free(plan->range);
    mc_free(plan->border_first);
    mc_free(plan->border);
    mc_free(plan->coords);
    mc_free(plan->leaf_slot);
    mc_free(plan->leaf_vertex);
    mc_free(plan->leaf_corner);
    mc_free(plan);
}

// Error bound of projections computed in double from double offsets (three products and two sums of terms of
// magnitude at most |v - o|_1 <= sqrt(3) (1 + 1e-6) sum_k |a_k . (v - o)|, each rounding 2^-53): 1e-14 of the
// projection sum S covers them with a wide margin.
static double refit_error(const double lo[3], const double hi[3])
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        double a = fabs(lo[k]), b = fabs(hi[k]);
        s += a > b ? a : b;
    }
    return 1e-14 * s + MC_BVH_FLOAT_TINY;
}

// The triangles of a node: a contiguous range of tri_order from its leftmost leaf's first to its rightmost leaf's end
// (children split their parent's range).
static void node_range(const mc_bvh_node* nodes, const mc_bvh_node* node, uint32_t* first, uint32_t* end)
{
    const mc_bvh_node* l = node;
    while (!mc_bvh_is_leaf(l))
    {
        l = &nodes[l->data];
    }
    const mc_bvh_node* r = node;
    while (!mc_bvh_is_leaf(r))
    {
        r = &nodes[r->data + 1u];
    }
    *first = mc_bvh_leaf_first(l);
    *end = mc_bvh_leaf_first(r) + mc_bvh_leaf_count(r);
}

static struct mc_refit_plan* plan_free_null(struct mc_refit_plan* plan, uint32_t* number, uint32_t* seen,
                                            uint32_t* stamp)
{
    mc_free(number);
    mc_free(seen);
    mc_free(stamp);
    mc_refit_plan_destroy(plan);
    return NULL;
}

static struct mc_refit_plan* make_plan(const mc_bvh* bvh, uint32_t mesh_vertices)
{
    uint32_t nt = bvh->triangle_count, nn = bvh->node_count;
    struct mc_refit_plan* plan = mc_calloc(1, sizeof *plan);
    uint32_t* number = mc_alloc_array(mesh_vertices > 0 ? mesh_vertices : 1u, sizeof *number); // vertex -> index
    uint32_t* seen = mc_alloc_array((size_t)nt + 1u, sizeof *seen); // vertices first used before each position
    uint32_t* stamp = NULL;
    if (plan == NULL || number == NULL || seen == NULL)
    {
        return plan_free_null(plan, number, seen, stamp);
    }
    plan->vertex = mc_alloc_array(mesh_vertices > 0 ? mesh_vertices : 1u, sizeof *plan->vertex);
    plan->range = mc_alloc_array(2u * (size_t)nn, sizeof *plan->range);
    plan->border_first = mc_alloc_array((size_t)nn + 1u, sizeof *plan->border_first);
    if (plan->vertex == NULL || plan->range == NULL || plan->border_first == NULL)
    {
        return plan_free_null(plan, number, seen, stamp);
    }
    memset(number, 0xff, (size_t)mesh_vertices * sizeof *number);
    uint32_t count = 0;
    for (uint32_t p = 0; p < nt; ++p)
    {
        seen[p] = count;
        for (uint32_t c = 0; c < 3u; ++c)
        {
            uint32_t v = bvh->tri_vertex[3u * p + c];
            if (number[v] == MC_NONE)
            {
                number[v] = count;
                plan->vertex[count++] = v;
            }
        }
    }
    seen[nt] = count;
    plan->vertex_count = count;
    // Border lists: per node, its triangles' vertices numbered below its range, each once (stamped with the node).
    stamp = mc_alloc_array(count > 0 ? count : 1u, sizeof *stamp);
    uint32_t capacity = 0, used = 0;
    if (stamp == NULL)
    {
        return plan_free_null(plan, number, seen, stamp);
    }
    memset(stamp, 0xff, (size_t)count * sizeof *stamp);
    for (uint32_t n = 0; n < nn; ++n)
    {
        uint32_t first = 0, end = 0;
        node_range(bvh->nodes, &bvh->nodes[n], &first, &end);
        uint32_t lo = seen[first];
        plan->range[2u * n] = lo;
        plan->range[2u * n + 1u] = seen[end];
        plan->border_first[n] = used;
        for (size_t i = 3u * (size_t)first; i < 3u * (size_t)end; ++i)
        {
            uint32_t k = number[bvh->tri_vertex[i]];
            if (k < lo && stamp[k] != n)
            {
                stamp[k] = n;
                if (!mc_array_reserve((void**)&plan->border, &capacity, (uint64_t)used + 1u, sizeof *plan->border,
                                      1024u))
                {
                    return plan_free_null(plan, number, seen, stamp);
                }
                plan->border[used++] = k;
            }
        }
    }
    plan->border_first[nn] = used;
    // Each coordinate array is padded to a multiple of 8 doubles (the 8-lane loop's masked tail stays inside).
    plan->stride = ((size_t)count + 7u) & ~(size_t)7u;
    plan->coords = mc_alloc_array(3u * (plan->stride > 0 ? plan->stride : 8u), sizeof *plan->coords);
    if (plan->coords == NULL)
    {
        return plan_free_null(plan, number, seen, stamp);
    }
    // The leaves' distinct vertices and corner maps (leaf_avx512): each corner picked from 16 gathered vertices.
    uint32_t leaves = 0;
    for (uint32_t n = 0; n < nn; ++n)
    {
        leaves += mc_bvh_is_leaf(&bvh->nodes[n]) ? 1u : 0u;
    }
    plan->leaf_slot = mc_alloc_array(nn > 0 ? nn : 1u, sizeof *plan->leaf_slot);
    plan->leaf_vertex = mc_alloc_array(16u * (size_t)(leaves > 0 ? leaves : 1u), sizeof *plan->leaf_vertex);
    plan->leaf_corner = mc_alloc_array(48u * (size_t)(leaves > 0 ? leaves : 1u), sizeof *plan->leaf_corner);
    if (plan->leaf_slot == NULL || plan->leaf_vertex == NULL || plan->leaf_corner == NULL)
    {
        return plan_free_null(plan, number, seen, stamp);
    }
    uint32_t slots = 0;
    for (uint32_t n = 0; n < nn; ++n)
    {
        const mc_bvh_node* node = &bvh->nodes[n];
        plan->leaf_slot[n] = MC_NONE;
        if (!mc_bvh_is_leaf(node))
        {
            continue;
        }
        uint32_t begin = mc_bvh_leaf_first(node), tris = mc_bvh_leaf_count(node), distinct = 0, list[16];
        int32_t* lv = plan->leaf_vertex + 16u * (size_t)slots;
        uint8_t* lc = plan->leaf_corner + 48u * (size_t)slots;
        memset(lc, 0, 48u);
        bool fits = true;
        for (uint32_t p = 0; p < tris && fits; ++p)
        {
            for (uint32_t c = 0; c < 3u && fits; ++c)
            {
                uint32_t v = bvh->tri_vertex[3u * (begin + p) + c], j = 0;
                while (j < distinct && list[j] != v)
                {
                    ++j;
                }
                if (j == distinct)
                {
                    fits = distinct < 16u && v <= (UINT32_MAX / 3u) && 3u * v <= (uint32_t)INT32_MAX;
                    if (fits)
                    {
                        list[distinct++] = v;
                    }
                }
                lc[16u * c + p] = (uint8_t)j;
            }
        }
        if (!fits)
        {
            continue;
        }
        for (uint32_t j = 0; j < 16u; ++j)
        {
            lv[j] = (int32_t)(3u * list[j < distinct ? j : 0u]);
        }
        plan->leaf_slot[n] = slots++;
    }
    plan->byte_count =
        sizeof *plan + (size_t)mesh_vertices * sizeof *plan->vertex +
        (2u * (size_t)nn + (size_t)nn + 1u + capacity + (size_t)nn + 16u * (size_t)leaves) * sizeof(uint32_t) +
        48u * (size_t)leaves + 3u * (plan->stride > 0 ? plan->stride : 8u) * sizeof(double);
    mc_free(number);
    mc_free(seen);
    mc_free(stamp);
    return plan;
}

mc_status mc_bvh_refit_prepare(struct mc_mesh* mesh)
{
    mc_bvh* bvh = mesh->bvh;
    if (bvh->refit_plan != NULL)
    {
        return MC_OK;
    }
    struct mc_refit_plan* plan = make_plan(bvh, mesh->vertex_count);
    if (plan == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    bvh->refit_plan = plan;
    bvh->byte_count += plan->byte_count;
    mesh->byte_count += plan->byte_count;
    return MC_OK;
}

// What a node's box is fitted to: its range [b, e) of the plan's coordinates and its border list.
typedef struct refit_span
{
    const double* x; ///< the plan's coordinates (x, y, z arrays)
    const double* y;
    const double* z;
    uint32_t b, e;          ///< the node's range
    const uint32_t* border; ///< its border list
    uint32_t border_count;  ///< its length
} refit_span;

// The projection ranges of a node's points on the three axes: lo[k], hi[k] = min, max of
// (ax[k][0] x + ax[k][1] y) + ax[k][2] z, in this order of operations in every variant (no contraction: the build has
// -ffp-contract=off), so all variants give the same ranges (up to the sign of a zero, which the caller clears).
static void project_point(const refit_span* s, uint32_t i, double ax[3][3], double lo[3], double hi[3])
{
    for (int k = 0; k < 3; ++k)
    {
        double q = ax[k][0] * s->x[i] + ax[k][1] * s->y[i] + ax[k][2] * s->z[i];
        lo[k] = q < lo[k] ? q : lo[k];
        hi[k] = q > hi[k] ? q : hi[k];
    }
}

static void project_portable(const refit_span* s, double ax[3][3], double lo[3], double hi[3])
{
    for (uint32_t i = s->b; i < s->e; ++i)
    {
        project_point(s, i, ax, lo, hi);
    }
    for (uint32_t j = 0; j < s->border_count; ++j)
    {
        project_point(s, s->border[j], ax, lo, hi);
    }
}

// The leaf-local float vertices of triangle positions [begin, end) from their leaf's center c, as the build writes
// them (finish_leaves).
static void local_portable(const mc_vec3* pos, const uint32_t* tri_vertex, uint32_t begin, uint32_t end,
                           const double c[3], float* tri_local, size_t stride)
{
    for (uint32_t p = begin; p < end; ++p)
    {
        float* out = &tri_local[p];
        for (uint32_t v = 0; v < 3u; ++v)
        {
            mc_vec3 xv = pos[tri_vertex[3u * p + v]];
            out[(3u * v) * stride] = (float)(xv.x - c[0]);
            out[(3u * v + 1u) * stride] = (float)(xv.y - c[1]);
            out[(3u * v + 2u) * stride] = (float)(xv.z - c[2]);
        }
    }
}

#if MC_REFIT_AVX2
__attribute__((target("avx2"))) static void project_avx2(const refit_span* s, double ax[3][3], double lo[3],
                                                         double hi[3])
{
    __m256d a[3][3], vl[3], vh[3];
    for (int k = 0; k < 3; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            a[k][d] = _mm256_set1_pd(ax[k][d]);
        }
        vl[k] = _mm256_set1_pd(lo[k]);
        vh[k] = _mm256_set1_pd(hi[k]);
    }
    uint32_t i = s->b;
    for (; i + 4u <= s->e; i += 4u)
    {
        __m256d px = _mm256_loadu_pd(s->x + i), py = _mm256_loadu_pd(s->y + i), pz = _mm256_loadu_pd(s->z + i);
        for (int k = 0; k < 3; ++k)
        {
            __m256d q = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[k][0], px), _mm256_mul_pd(a[k][1], py)),
                                      _mm256_mul_pd(a[k][2], pz));
            vl[k] = _mm256_min_pd(q, vl[k]);
            vh[k] = _mm256_max_pd(q, vh[k]);
        }
    }
    uint32_t j = 0;
    for (; j + 4u <= s->border_count; j += 4u)
    {
        __m128i idx = _mm_loadu_si128((const __m128i*)(s->border + j));
        __m256d px = _mm256_i32gather_pd(s->x, idx, 8), py = _mm256_i32gather_pd(s->y, idx, 8),
                pz = _mm256_i32gather_pd(s->z, idx, 8);
        for (int k = 0; k < 3; ++k)
        {
            __m256d q = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[k][0], px), _mm256_mul_pd(a[k][1], py)),
                                      _mm256_mul_pd(a[k][2], pz));
            vl[k] = _mm256_min_pd(q, vl[k]);
            vh[k] = _mm256_max_pd(q, vh[k]);
        }
    }
    for (int k = 0; k < 3; ++k)
    {
        double l[4], h[4];
        _mm256_storeu_pd(l, vl[k]);
        _mm256_storeu_pd(h, vh[k]);
        for (int q = 0; q < 4; ++q)
        {
            lo[k] = l[q] < lo[k] ? l[q] : lo[k];
            hi[k] = h[q] > hi[k] ? h[q] : hi[k];
        }
    }
    for (; i < s->e; ++i)
    {
        project_point(s, i, ax, lo, hi);
    }
    for (; j < s->border_count; ++j)
    {
        project_point(s, s->border[j], ax, lo, hi);
    }
}
#endif

#if MC_BUILD_AVX512
#define MC_REFIT_512 __attribute__((target("avx512f,avx512vl")))
MC_REFIT_512 static inline void lanes_project(__m512d a[3][3], __m512d vl[3], __m512d vh[3], __mmask8 m, __m512d px,
                                              __m512d py, __m512d pz)
{
    for (int k = 0; k < 3; ++k)
    {
        __m512d q = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(a[k][0], px), _mm512_mul_pd(a[k][1], py)),
                                  _mm512_mul_pd(a[k][2], pz));
        vl[k] = _mm512_mask_min_pd(vl[k], m, q, vl[k]);
        vh[k] = _mm512_mask_max_pd(vh[k], m, q, vh[k]);
    }
}

MC_REFIT_512 static void project_avx512(const refit_span* s, double ax[3][3], double lo[3], double hi[3])
{
    __m512d a[3][3], vl[3], vh[3];
    for (int k = 0; k < 3; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            a[k][d] = _mm512_set1_pd(ax[k][d]);
        }
        vl[k] = _mm512_set1_pd(lo[k]);
        vh[k] = _mm512_set1_pd(hi[k]);
    }
    // Tails are masked: lanes past the end neither load (a masked load or gather does not touch them) nor change
    // their ranges.
    for (uint32_t i = s->b; i < s->e; i += 8u)
    {
        __mmask8 m = s->e - i >= 8u ? (__mmask8)0xff : (__mmask8)((1u << (s->e - i)) - 1u);
        lanes_project(a, vl, vh, m, _mm512_maskz_loadu_pd(m, s->x + i), _mm512_maskz_loadu_pd(m, s->y + i),
                      _mm512_maskz_loadu_pd(m, s->z + i));
    }
    for (uint32_t j = 0; j < s->border_count; j += 8u)
    {
        uint32_t left = s->border_count - j;
        __mmask8 m = left >= 8u ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u);
        __m256i idx = _mm256_maskz_loadu_epi32(m, s->border + j);
        __m512d zero = _mm512_setzero_pd();
        lanes_project(a, vl, vh, m, _mm512_mask_i32gather_pd(zero, m, idx, s->x, 8),
                      _mm512_mask_i32gather_pd(zero, m, idx, s->y, 8), _mm512_mask_i32gather_pd(zero, m, idx, s->z, 8));
    }
    for (int k = 0; k < 3; ++k)
    {
        double l = _mm512_reduce_min_pd(vl[k]), h = _mm512_reduce_max_pd(vh[k]);
        lo[k] = l < lo[k] ? l : lo[k];
        hi[k] = h > hi[k] ? h : hi[k];
    }
}

// A leaf whole, from its triangles' corners (at most 16 triangles: 16 lanes, two halves of 8 doubles): the corners
// gathered once from the positions, projected on the leaf's axes as the plan's coordinates are (p = x - origin, then
// the same operations), the box finished, and the leaf-local float vertices written from the new center
// (local_portable's values). The same box as refit_node's: the corners are the leaf's vertices, each possibly repeated.
MC_REFIT_512 static void leaf_avx512(const mc_vec3* pos, const uint32_t* tri_vertex, const double origin[3],
                                     mc_bvh_node* node, float* tri_local, size_t stride)
{
    uint32_t begin = mc_bvh_leaf_first(node), count = mc_bvh_leaf_count(node);
    __mmask16 m16 = (__mmask16)((1u << count) - 1u);
    __mmask8 mh[2] = {(__mmask8)m16, (__mmask8)(m16 >> 8u)};
    __m512i three = _mm512_set1_epi32(3);
    __m512i lane = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), three);
    const double* base = &pos[0].x;
    __m512d x[3][2][3]; // [corner][half][component]
    for (uint32_t v = 0; v < 3u; ++v)
    {
        __m512i vi =
            _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m16, _mm512_add_epi32(lane, _mm512_set1_epi32((int)v)),
                                        (const int*)(tri_vertex + 3u * begin), 4);
        __m512i off = _mm512_mullo_epi32(vi, three); // doubles from pos[0].x to the vertex
        __m256i half[2] = {_mm512_castsi512_si256(off), _mm512_extracti64x4_epi64(off, 1)};
        for (uint32_t h = 0; h < 2u; ++h)
        {
            for (uint32_t k = 0; k < 3u; ++k)
            {
                x[v][h][k] = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), mh[h], half[h], base + k, 8);
            }
        }
    }
    float af[3][3];
    __m512d a[3][3], vl[3], vh[3], o[3];
    for (int k = 0; k < 3; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            af[k][d] = node->axis[k][d];
            a[k][d] = _mm512_set1_pd((double)af[k][d]);
        }
        vl[k] = _mm512_set1_pd(INFINITY);
        vh[k] = _mm512_set1_pd(-INFINITY);
        o[k] = _mm512_set1_pd(origin[k]);
    }
    for (uint32_t v = 0; v < 3u; ++v)
    {
        for (uint32_t h = 0; h < 2u; ++h)
        {
            if (mh[h] != 0)
            {
                lanes_project(a, vl, vh, mh[h], _mm512_sub_pd(x[v][h][0], o[0]), _mm512_sub_pd(x[v][h][1], o[1]),
                              _mm512_sub_pd(x[v][h][2], o[2]));
            }
        }
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
    {
        lo[k] = _mm512_reduce_min_pd(vl[k]) + 0.0; // + 0.0: as refit_node
        hi[k] = _mm512_reduce_max_pd(vh[k]) + 0.0;
    }
    mc_obb_finish(af, lo, hi, origin, refit_error(lo, hi), node);
    for (uint32_t k = 0; k < 3u; ++k)
    {
        __m512d ck = _mm512_set1_pd((double)node->center[k]);
        for (uint32_t v = 0; v < 3u; ++v)
        {
            float* out = tri_local + (3u * v + k) * stride + begin;
            for (uint32_t h = 0; h < 2u; ++h)
            {
                if (mh[h] != 0)
                {
                    _mm256_mask_storeu_ps(out + 8u * h, mh[h], _mm512_cvtpd_ps(_mm512_sub_pd(x[v][h][k], ck)));
                }
            }
        }
    }
}

// leaf_avx512 for a leaf of at most 16 distinct vertices (the plan's leaf_vertex and leaf_corner): its distinct
// vertices gathered once (6 gathers), projected for the box, and each corner picked from them by a two-register
// permute for the leaf-local writes. The same values in the same operations as leaf_avx512: bitwise its results.
MC_REFIT_512 static void leaf16_avx512(const mc_vec3* pos, const int32_t* lv, const uint8_t* lc, const double origin[3],
                                       mc_bvh_node* node, float* tri_local, size_t stride)
{
    uint32_t begin = mc_bvh_leaf_first(node), count = mc_bvh_leaf_count(node);
    __mmask16 m16 = (__mmask16)((1u << count) - 1u);
    __mmask8 mh[2] = {(__mmask8)m16, (__mmask8)(m16 >> 8u)};
    __m512i off = _mm512_loadu_si512((const void*)lv);
    __m256i half[2] = {_mm512_castsi512_si256(off), _mm512_extracti64x4_epi64(off, 1)};
    const double* base = &pos[0].x;
    __m512d x[3][2]; // [component][half of the 16 distinct vertices]
    for (uint32_t k = 0; k < 3u; ++k)
    {
        for (uint32_t h = 0; h < 2u; ++h)
        {
            x[k][h] = _mm512_i32gather_pd(half[h], base + k, 8);
        }
    }
    float af[3][3];
    __m512d a[3][3], vl[3], vh[3], o[3];
    for (int k = 0; k < 3; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            af[k][d] = node->axis[k][d];
            a[k][d] = _mm512_set1_pd((double)af[k][d]);
        }
        vl[k] = _mm512_set1_pd(INFINITY);
        vh[k] = _mm512_set1_pd(-INFINITY);
        o[k] = _mm512_set1_pd(origin[k]);
    }
    for (uint32_t h = 0; h < 2u; ++h) // the padding repeats a vertex: no change to the ranges
    {
        lanes_project(a, vl, vh, (__mmask8)0xff, _mm512_sub_pd(x[0][h], o[0]), _mm512_sub_pd(x[1][h], o[1]),
                      _mm512_sub_pd(x[2][h], o[2]));
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
    {
        lo[k] = _mm512_reduce_min_pd(vl[k]) + 0.0; // + 0.0: as refit_node
        hi[k] = _mm512_reduce_max_pd(vh[k]) + 0.0;
    }
    mc_obb_finish(af, lo, hi, origin, refit_error(lo, hi), node);
    for (uint32_t v = 0; v < 3u; ++v)
    {
        for (uint32_t h = 0; h < 2u; ++h)
        {
            if (mh[h] == 0)
            {
                continue;
            }
            __m512i pick = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(lc + 16u * v + 8u * h)));
            for (uint32_t k = 0; k < 3u; ++k)
            {
                __m512d xv = _mm512_permutex2var_pd(x[k][0], pick, x[k][1]);
                __m512d ck = _mm512_set1_pd((double)node->center[k]);
                float* out = tri_local + (3u * v + k) * stride + begin + 8u * h;
                _mm256_mask_storeu_ps(out, mh[h], _mm512_cvtpd_ps(_mm512_sub_pd(xv, ck)));
            }
        }
    }
}
#endif

typedef void project_fn(const refit_span* s, double ax[3][3], double lo[3], double hi[3]);

// The projection kernel for this CPU; *wide = 1 when the leaves are refitted whole by leaf_avx512.
static project_fn* pick_kernels(int* wide)
{
    *wide = 0;
    if (mc_bvh_refit_portable)
    {
        return project_portable;
    }
#if MC_BUILD_AVX512
    if (mc_bvh_build_wide_available())
    {
        *wide = 1;
        return project_avx512;
    }
#endif
#if MC_REFIT_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
    {
        return project_avx2;
    }
#endif
    return project_portable;
}

// A node's box on its own (kept) axes from its vertices: its range of the plan's coordinates and its border.
static void refit_job(const struct mc_refit_plan* plan, project_fn* project, uint32_t n, const mc_bvh_node* node,
                      mc_obb_job* job)
{
    double ax[3][3];
    for (int k = 0; k < 3; ++k)
    {
        job->lo[k] = INFINITY;
        job->hi[k] = -INFINITY;
        for (int d = 0; d < 3; ++d)
        {
            job->axes_f[k][d] = node->axis[k][d];
            ax[k][d] = job->axes_f[k][d];
        }
    }
    refit_span s = {plan->coords,
                    plan->coords + plan->stride,
                    plan->coords + 2u * plan->stride,
                    plan->range[2u * n],
                    plan->range[2u * n + 1u],
                    plan->border != NULL ? plan->border + plan->border_first[n] : NULL, // no offset from NULL
                    plan->border_first[n + 1u] - plan->border_first[n]};
    project(&s, ax, job->lo, job->hi);
    for (int k = 0; k < 3; ++k)
    {
        job->lo[k] += 0.0; // a -0 becomes +0: the ranges do not depend on the order the variants met the points in
        job->hi[k] += 0.0;
    }
    job->proj_err = refit_error(job->lo, job->hi);
    job->node = n;
}

// A node's box on its own (kept) axes from its vertices: its range of the plan's coordinates and its border.
static void refit_node(const struct mc_refit_plan* plan, project_fn* project, uint32_t n, const double origin[3],
                       mc_bvh_node* node)
{
    mc_obb_job job;
    refit_job(plan, project, n, node, &job);
    mc_obb_finish(job.axes_f, job.lo, job.hi, origin, job.proj_err, node);
}

void mc_bvh_refit(struct mc_mesh* mesh)
{
    mc_bvh* bvh = mesh->bvh;
    struct mc_refit_plan* plan = bvh->refit_plan;
    const mc_vec3* pos = mesh->positions;
    // The bounding box of the positions is the report's, just computed by the staging; the largest |coordinate| is
    // the largest |corner coordinate| of it.
    const mc_vec3 bmin = mesh->report.bbox_min, bmax = mesh->report.bbox_max;
    double lo[3] = {bmin.x, bmin.y, bmin.z}, hi[3] = {bmax.x, bmax.y, bmax.z}, max_abs = 0.0;
    double origin[3];
    for (int k = 0; k < 3; ++k)
    {
        origin[k] = 0.5 * (lo[k] + hi[k]);
        bvh->bbox_lo[k] = lo[k];
        bvh->bbox_hi[k] = hi[k];
        double a = fabs(lo[k]), b = fabs(hi[k]);
        max_abs = a > max_abs ? a : max_abs;
        max_abs = b > max_abs ? b : max_abs;
    }
    bvh->max_abs_coord = max_abs;
    double *x = plan->coords, *y = x + plan->stride, *z = y + plan->stride;
    for (uint32_t i = 0; i < plan->vertex_count; ++i)
    {
        mc_vec3 v = pos[plan->vertex[i]];
        x[i] = v.x - origin[0];
        y[i] = v.y - origin[1];
        z[i] = v.z - origin[2];
    }
    int wide = 0;
    project_fn* project = pick_kernels(&wide);
    size_t stride = mc_bvh_local_stride(bvh->triangle_count);
#if MC_BUILD_AVX512
    mc_obb_job jobs[4];
    uint32_t job_count = 0;
#endif
    for (uint32_t n = bvh->node_count; n-- > 0;)
    {
        mc_bvh_node* node = &bvh->nodes[n];
#if MC_BUILD_AVX512
        if (wide)
        {
            // Inner nodes' boxes four at a time (mc_obb_finish4: bitwise mc_obb_finish's boxes); no box is read
            // before the loop ends but the leaves' own (each leaf's center, by leaf_avx512 itself).
            if (mc_bvh_is_leaf(node))
            {
                uint32_t slot = plan->leaf_slot[n];
                if (slot != MC_NONE && !mc_bvh_refit_portable_leaves)
                {
                    leaf16_avx512(pos, plan->leaf_vertex + 16u * (size_t)slot, plan->leaf_corner + 48u * (size_t)slot,
                                  origin, node, bvh->tri_local, stride);
                }
                else
                {
                    leaf_avx512(pos, bvh->tri_vertex, origin, node, bvh->tri_local, stride);
                }
            }
            else
            {
                refit_job(plan, project, n, node, &jobs[job_count++]);
                if (job_count == 4u)
                {
                    mc_obb_finish4(jobs, job_count, origin, bvh->nodes);
                    job_count = 0;
                }
            }
            continue;
        }
#endif
        refit_node(plan, project, n, origin, node);
        if (mc_bvh_is_leaf(node))
        {
            double c[3] = {node->center[0], node->center[1], node->center[2]};
            uint32_t begin = mc_bvh_leaf_first(node);
            local_portable(pos, bvh->tri_vertex, begin, begin + mc_bvh_leaf_count(node), c, bvh->tri_local, stride);
        }
    }
#if MC_BUILD_AVX512
    if (job_count > 0)
    {
        mc_obb_finish4(jobs, job_count, origin, bvh->nodes);
    }
#endif
}

double mc_bvh_cost(const mc_bvh* bvh, double mesh_area)
{
    double sum = 0.0;
    for (uint32_t n = 0; n < bvh->node_count; ++n)
    {
        const float* e = bvh->nodes[n].extent;
        sum += 8.0 * ((double)e[0] * e[1] + (double)e[1] * e[2] + (double)e[2] * e[0]);
    }
    return mesh_area > 0.0 ? sum / mesh_area : sum;
}
