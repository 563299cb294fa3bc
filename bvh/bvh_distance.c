// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Minimum distance between two meshes through their OBB trees: depth-first branch and bound on node pairs, with
// separating-axis gaps (the line of the centres, the 9 cross axes, the length of each box's 3 face-axis gaps) as the
// lower bound of two boxes' distance; at leaf pairs each leaf's triangles are culled against the other leaf's box on
// sixteen float lanes, then pairs by cheap bounds, and the survivors get the exact triangle distance.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree", SIGGRAPH 1996 (the 15 axes); E. Larsen, S. Gottschalk,
// M. C. Lin, D. Manocha, "Fast Proximity Queries with Swept Sphere Volumes", UNC TR99-018 (branch and bound).
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/tri_distance.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// A node pair waiting on the stack with its lower bound.
typedef struct dist_item
{
    uint32_t a, b; ///< node of I's tree, node of J's tree
    double bound;  ///< lower bound of the distance of their boxes
} dist_item;

/// A box in I's frame: rows of axes, centre, half extents.
typedef struct box_i
{
    double axis[3][3];
    double center[3];
    double extent[3];
} box_i;

/// J's box in I's frame, computed once per query (stamp: the query that computed it; 0: none).
typedef struct j_box
{
    box_i box;      ///< the box mapped into I's frame
    uint32_t stamp; ///< query number of the scratch when box was made
} j_box;

struct mc_distance_scratch
{
    dist_item* stack;       ///< traversal stack
    uint32_t capacity;      ///< allocated items
    j_box* jbox;            ///< J's node boxes in I's frame, one per node of J's tree
    uint32_t jbox_capacity; ///< allocated entries
    uint32_t query;         ///< number of the current query (the stamp of its boxes; never 0)
};

void mc_distance_scratch_destroy(struct mc_distance_scratch* s)
{
    if (s != NULL)
    {
        mc_free(s->stack);
        mc_free(s->jbox);
        mc_free(s);
    }
}

size_t mc_distance_scratch_byte_count(const struct mc_distance_scratch* s)
{
    return s == NULL ? 0 : mc_alloc_size(s) + mc_alloc_size(s->stack) + mc_alloc_size(s->jbox);
}

/// The query's fixed data.
typedef struct dist_query
{
    const struct mc_mesh* mi;
    const struct mc_mesh* mj;
    double rot[3][3]; ///< J -> I rotation
    double trans[3];  ///< J -> I translation
    double abs_slack; ///< absolute rounding allowance of the box bounds (coordinate magnitudes)
    double best;      ///< smallest distance found (or max_distance)
    j_box* jbox;      ///< the scratch's boxes of J's nodes
    uint32_t stamp;   ///< the stamp of this query's boxes
    mc_bvh_distance_result* out;
} dist_query;

static void box_of_i(const mc_bvh_node* n, box_i* b)
{
    for (int k = 0; k < 3; ++k)
    {
        for (int c = 0; c < 3; ++c)
        {
            b->axis[k][c] = n->axis[k][c];
        }
        b->center[k] = n->center[k];
        b->extent[k] = n->extent[k];
    }
}

static void box_of_j(const dist_query* q, const mc_bvh_node* n, box_i* b)
{
    for (int k = 0; k < 3; ++k)
    {
        for (int r = 0; r < 3; ++r)
        {
            b->axis[k][r] = q->rot[r][0] * n->axis[k][0] + q->rot[r][1] * n->axis[k][1] + q->rot[r][2] * n->axis[k][2];
        }
        b->center[k] =
            q->rot[k][0] * n->center[0] + q->rot[k][1] * n->center[1] + q->rot[k][2] * n->center[2] + q->trans[k];
        b->extent[k] = n->extent[k];
    }
}

/// J's node `node` mapped into I's frame, made on first use in the query (bitwise what box_of_j makes).
static const box_i* box_j(const dist_query* q, uint32_t node)
{
    j_box* e = &q->jbox[node];
    if (e->stamp != q->stamp)
    {
        box_of_j(q, &q->mj->bvh->nodes[node], &e->box);
        e->stamp = q->stamp;
    }
    return &e->box;
}

// Plain comparisons rather than fmin / fmax, which GCC leaves as library calls (their NaN rules); no NaN reaches here
// (finite coordinates).
static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}

static double dot3(const double* u, const double* v)
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

/// Lower bound of the distance between two boxes (0 when they may overlap): the largest gap between their projections
/// on the 15 separating axes, divided by the axis length. Projection on a unit direction shortens every distance, so
/// each gap is a lower bound; the formulas assume orthonormal axes, which the float axes are to ~1.2e-7 per component,
/// so a relative slack (as in the overlap test of bvh_collide.c) and an absolute one for the rounding of the
/// coordinates are subtracted.
static double box_gap(const dist_query* q, const box_i* a, const box_i* b)
{
    double d[3] = {b->center[0] - a->center[0], b->center[1] - a->center[1], b->center[2] - a->center[2]};
    double t[3], tb[3];
    for (int k = 0; k < 3; ++k)
    {
        t[k] = dot3(a->axis[k], d);
        tb[k] = dot3(b->axis[k], d);
    }
    const double* ea = a->extent;
    const double* eb = b->extent;
    double slack =
        4e-6 * (fabs(t[0]) + fabs(t[1]) + fabs(t[2]) + ea[0] + ea[1] + ea[2] + eb[0] + eb[1] + eb[2]) + q->abs_slack;
    // The line through the centres, u = d / |d|: each box projects to its centre +- sum e_k |axis_k . u|, and axis_k
    // . u is t_k / |d| (tb_k / |d| for b). On curved meshes the boxes often face each other across a diagonal that
    // none of the 15 axes sees: this is then the tightest of the 16, and it needs neither the 9 products of the axes
    // nor more than one square root, so it goes first.
    double d2 = dot3(d, d);
    double gap = -INFINITY;
    if (d2 > 0.0)
    {
        double dl = sqrt(d2);
        double reach = ea[0] * fabs(t[0]) + ea[1] * fabs(t[1]) + ea[2] * fabs(t[2]) + eb[0] * fabs(tb[0]) +
                       eb[1] * fabs(tb[1]) + eb[2] * fabs(tb[2]);
        gap = dl - reach / dl;
        if (gap - slack >= q->best)
        {
            return gap - slack; // pruned: a bound at least the best prunes whatever its value
        }
    }
    double c[3][3], ac[3][3];
    for (int k = 0; k < 3; ++k)
    {
        for (int l = 0; l < 3; ++l)
        {
            c[k][l] = dot3(a->axis[k], b->axis[l]);
            ac[k][l] = fabs(c[k][l]);
        }
    }
    // Every point of b lies beyond a by at least the gap on each of a's face axes where b's interval is outside a's,
    // and a point's distance to box a is the length of its excesses along a's (orthonormal) axes: the length of the
    // three face-axis gaps of a (and likewise of b) is a lower bound, sqrt(2) to sqrt(3) times the largest gap when
    // the boxes are apart diagonally. Each gap is rounded within slack, their length within sqrt(3) slack: 2 slack.
    double sa = 0.0, sb = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        double ga = fabs(t[k]) - ea[k] - (eb[0] * ac[k][0] + eb[1] * ac[k][1] + eb[2] * ac[k][2]);
        double gb = fabs(tb[k]) - eb[k] - (ea[0] * ac[0][k] + ea[1] * ac[1][k] + ea[2] * ac[2][k]);
        sa += ga > 0.0 ? ga * ga : 0.0;
        sb += gb > 0.0 ? gb * gb : 0.0;
    }
    gap = max2(gap, sqrt(max2(sa, sb)) - slack);
    if (gap - slack >= q->best)
    {
        return gap - slack; // pruned on the face axes: the cross axes (and their square roots) are not needed
    }
    static const int next[3] = {1, 2, 0}, prev[3] = {2, 0, 1};
    for (int k = 0; k < 3; ++k)
    {
        int k1 = next[k], k2 = prev[k];
        for (int l = 0; l < 3; ++l)
        {
            int l1 = next[l], l2 = prev[l];
            double len2 = c[k1][l] * c[k1][l] + c[k2][l] * c[k2][l];
            if (len2 < 1e-6)
            {
                continue; // nearly parallel axes: the face axes bound as well
            }
            double proj = fabs(t[k2] * c[k1][l] - t[k1] * c[k2][l]);
            double ra = ea[k1] * ac[k2][l] + ea[k2] * ac[k1][l];
            double rb = eb[l1] * ac[k][l2] + eb[l2] * ac[k][l1];
            double num = proj - ra - rb;
            // The square root and division only for an axis that raises the bound (num / |axis| > gap).
            if (num > 0.0 && (gap < 0.0 || num * num > gap * gap * len2))
            {
                gap = num / sqrt(len2);
            }
        }
    }
    return max2(gap - slack, 0.0);
}

static double node_size(const mc_bvh_node* n)
{
    return (double)n->extent[0] + (double)n->extent[1] + (double)n->extent[2];
}

/// Triangle of a leaf with its bounding sphere (about its centroid).
typedef struct leaf_tri
{
    mc_vec3 v[3];
    mc_vec3 center;
    double radius;
    mc_vec3 normal; ///< unit normal (the mesh's face normal, rotated for J)
    double offset;  ///< normal . v[0]
    uint32_t index; ///< mesh order
} leaf_tri;

/// The lanes (triangles) of leaf n that may come nearer than the best distance to the other leaf's box, found on the
/// leaf's float vertex offsets (mc_bvh.tri_local), sixteen lanes at once. The distance from a point to a box is the
/// length of its excesses beyond the box along the box's (orthonormal) axes, and each of the triangle's points lies
/// beyond the box by at least the gap of the triangle's projection interval on each axis, so the length of those
/// gaps is a lower bound of the triangle's distance to the box; it is compared squared (no square root).
/// @param other the other box, its axes (rows) in n's mesh frame (its center is not used)
/// @param w the other box's axes . (n's center - the other box's center)
/// Rounding: the offsets are within 2^-24 relative of the exact ones and their 1-norm is < 2 sum of n's extents, so
/// every float projection below errs by < 4e-7 (|w_k| + 2 sum e_n) (the roundings of axis, w and the four-term sums),
/// and the gap length and its square as much again relatively: the slack 4e-6 (|w|_1 + 6 sum e_n + sum e) plus the
/// absolute allowance of the coordinates is ten times that, and covers the float axes' non-orthonormality as in
/// box_gap. Squares stay far below the float range while the magnitudes stay below 1e15 (else every lane is kept).
/// @return the bit mask of the lanes kept
static uint32_t leaf_lanes(const dist_query* q, const mc_bvh* t, const mc_bvh_node* n, const box_i* other,
                           const double w[3])
{
    uint32_t count = mc_bvh_leaf_count(n), all = count == 32u ? ~0u : (1u << count) - 1u;
    const double* e = other->extent;
    double mag = fabs(w[0]) + fabs(w[1]) + fabs(w[2]) + 6.0 * node_size(n) + e[0] + e[1] + e[2];
    double lim = q->best + 4e-6 * mag + q->abs_slack;
    if (!(mag < 1e15))
    {
        return all;
    }
    float lim2 = lim < 1e15 ? (float)(lim * lim) : INFINITY;
    size_t stride = mc_bvh_local_stride(t->triangle_count);
    const float* local = t->tri_local + mc_bvh_leaf_first(n);
    uint32_t mask = 0;
#if defined(__SSE2__)
    // Four registers of four lanes; the same IEEE operations in the same order as the portable loop below (minps and
    // maxps are u < lo ? u : lo and u > hi ? u : hi), so both give the same lanes.
    __m128 sum[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (int k = 0; k < 3; ++k)
    {
        const double* a = other->axis[k];
        __m128 a0 = _mm_set1_ps((float)a[0]), a1 = _mm_set1_ps((float)a[1]), a2 = _mm_set1_ps((float)a[2]);
        __m128 wk = _mm_set1_ps((float)w[k]), ek = _mm_set1_ps((float)e[k]), nek = _mm_set1_ps(-(float)e[k]);
        for (int r = 0; r < 4; ++r)
        {
            __m128 lo = _mm_setzero_ps(), hi = _mm_setzero_ps();
            for (size_t v = 0; v < 3; ++v)
            {
                const float* x = local + 3u * v * stride + 4 * r;
                __m128 u = _mm_add_ps(_mm_add_ps(_mm_add_ps(wk, _mm_mul_ps(a0, _mm_loadu_ps(x))),
                                                 _mm_mul_ps(a1, _mm_loadu_ps(x + stride))),
                                      _mm_mul_ps(a2, _mm_loadu_ps(x + 2u * stride)));
                lo = v == 0 ? u : _mm_min_ps(u, lo);
                hi = v == 0 ? u : _mm_max_ps(u, hi);
            }
            __m128 out = _mm_max_ps(_mm_sub_ps(nek, hi), _mm_sub_ps(lo, ek));
            out = _mm_max_ps(out, _mm_setzero_ps());
            sum[r] = _mm_add_ps(sum[r], _mm_mul_ps(out, out));
        }
    }
    __m128 lim4 = _mm_set1_ps(lim2);
    for (int r = 0; r < 4; ++r)
    {
        mask |= (uint32_t)_mm_movemask_ps(_mm_cmplt_ps(sum[r], lim4)) << (4 * r);
    }
#else
    float sum[MC_BVH_LEAF_MAX] = {0.0f};
    for (int k = 0; k < 3; ++k)
    {
        const double* a = other->axis[k];
        float a0 = (float)a[0], a1 = (float)a[1], a2 = (float)a[2], wk = (float)w[k], ek = (float)e[k];
        for (uint32_t l = 0; l < MC_BVH_LEAF_MAX; ++l)
        {
            float lo = 0.0f, hi = 0.0f;
            for (size_t v = 0; v < 3; ++v)
            {
                const float* x = local + 3u * v * stride + l;
                float u = wk + a0 * x[0] + a1 * x[stride] + a2 * x[2u * stride];
                lo = v == 0 || u < lo ? u : lo;
                hi = v == 0 || u > hi ? u : hi;
            }
            float below = -ek - hi, above = lo - ek;
            float out = below > above ? below : above;
            out = out > 0.0f ? out : 0.0f;
            sum[l] += out * out;
        }
    }
    for (uint32_t l = 0; l < MC_BVH_LEAF_MAX; ++l)
    {
        mask |= sum[l] < lim2 ? 1u << l : 0u;
    }
#endif
    return mask & all;
}

/// Load the triangles of leaf n in `lanes` (mapped into I's frame for J) with their bounding spheres and planes.
/// @return the number loaded, at the front of out
static uint32_t leaf_load(const dist_query* q, const struct mc_mesh* m, const mc_bvh_node* n, int mapped,
                          uint32_t lanes, leaf_tri* out)
{
    const mc_bvh* t = m->bvh;
    uint32_t f = mc_bvh_leaf_first(n), kept = 0;
    for (uint32_t k = 0; lanes >> k != 0u; ++k)
    {
        if (((lanes >> k) & 1u) == 0u)
        {
            continue;
        }
        leaf_tri* lt = &out[kept++];
        for (int c = 0; c < 3; ++c)
        {
            mc_vec3 p = m->positions[t->tri_vertex[3u * (f + k) + (uint32_t)c]];
            if (mapped)
            {
                p = mc_v3(q->rot[0][0] * p.x + q->rot[0][1] * p.y + q->rot[0][2] * p.z + q->trans[0],
                          q->rot[1][0] * p.x + q->rot[1][1] * p.y + q->rot[1][2] * p.z + q->trans[1],
                          q->rot[2][0] * p.x + q->rot[2][1] * p.y + q->rot[2][2] * p.z + q->trans[2]);
            }
            lt->v[c] = p;
        }
        lt->center = mc_scale(mc_add(mc_add(lt->v[0], lt->v[1]), lt->v[2]), 1.0 / 3.0);
        double r2 = 0.0;
        for (int c = 0; c < 3; ++c)
        {
            mc_vec3 e = mc_sub(lt->v[c], lt->center);
            r2 = max2(r2, mc_dot(e, e));
        }
        double r = sqrt(r2); // the largest of the three lengths (the square root is monotone and correctly rounded)
        // Inflated by a relative 1e-12 so that the rounding of centre and radius keeps the sphere around the triangle.
        lt->radius = r * (1.0 + 1e-12) + 1e-12 * (fabs(lt->center.x) + fabs(lt->center.y) + fabs(lt->center.z));
        lt->index = t->tri_order[f + k];
        mc_vec3 nrm = m->face_normals[lt->index];
        if (mapped)
        {
            nrm = mc_v3(q->rot[0][0] * nrm.x + q->rot[0][1] * nrm.y + q->rot[0][2] * nrm.z,
                        q->rot[1][0] * nrm.x + q->rot[1][1] * nrm.y + q->rot[1][2] * nrm.z,
                        q->rot[2][0] * nrm.x + q->rot[2][1] * nrm.y + q->rot[2][2] * nrm.z);
        }
        lt->normal = nrm;
        lt->offset = mc_dot(nrm, lt->v[0]);
    }
    return kept;
}

/// Lower bound of the distance from triangle t to the plane of triangle p when t lies entirely on one side of it (0
/// otherwise): every point of p is on its plane, so no point of t is nearer to p than that.
static double plane_gap(const leaf_tri* p, const leaf_tri* t)
{
    double h0 = mc_dot(p->normal, t->v[0]) - p->offset;
    double h1 = mc_dot(p->normal, t->v[1]) - p->offset;
    double h2 = mc_dot(p->normal, t->v[2]) - p->offset;
    double lo = min2(h0, min2(h1, h2)), hi = max2(h0, max2(h1, h2));
    return lo > 0.0 ? lo : (hi < 0.0 ? -hi : 0.0);
}

/// Lower bound of a pair's distance from their projections on the line through their centroids (a unit direction:
/// the gap between the projection intervals; 0 when they overlap). Rounding as for plane_gap.
static double axis_gap(const leaf_tri* a, const leaf_tri* b)
{
    mc_vec3 u = mc_sub(b->center, a->center);
    double len = mc_length(u);
    if (!(len > 0.0))
    {
        return 0.0;
    }
    double amax = max2(mc_dot(u, a->v[0]), max2(mc_dot(u, a->v[1]), mc_dot(u, a->v[2])));
    double bmin = min2(mc_dot(u, b->v[0]), min2(mc_dot(u, b->v[1]), mc_dot(u, b->v[2])));
    return (bmin - amax) / len;
}

/// Measure a triangle pair unless a cheap bound (its bounding spheres' `sphere_gap`, then each triangle against the
/// other's plane, then their projections on the line of their centroids) shows it cannot beat the best distance.
/// @return 1 when the distance reached 0 (stop)
static int try_pair(dist_query* q, const leaf_tri* a, const leaf_tri* b, double sphere_gap)
{
    // The face normals are unit and normal to their triangle up to rounding, so a plane gap may exceed the pair's
    // distance by a few ulps of the coordinates: a pair skipped that way could only have lowered the best distance by
    // that much (the rounding of the triangle distance itself), and pairs that tie with the best (a flat face under
    // an edge) are skipped at once.
    if (sphere_gap >= q->best || max2(plane_gap(a, b), plane_gap(b, a)) >= q->best || axis_gap(a, b) >= q->best)
    {
        return 0;
    }
    ++q->out->triangle_tests;
    mc_tri_distance d = mc_tri_tri_distance(a->v, b->v);
    if (d.distance < q->best)
    {
        q->best = d.distance;
        q->out->distance = d.distance;
        q->out->point_i = d.point_a;
        q->out->point_j = d.point_b;
        q->out->tri_i = a->index;
        q->out->tri_j = b->index;
    }
    return d.distance == 0.0;
}

static void leaf_leaf(dist_query* q, const mc_bvh_node* na, uint32_t b)
{
    leaf_tri ta[MC_BVH_LEAF_MAX], tb[MC_BVH_LEAF_MAX];
    const mc_bvh_node* nb = &q->mj->bvh->nodes[b];
    box_i ba;
    box_of_i(na, &ba);
    const box_i* bb = box_j(q, b);
    // I's leaf against J's box (in I's frame), then J's leaf against I's box (its axes taken into J's frame; the
    // centre offset is the same in either frame).
    double d[3] = {bb->center[0] - ba.center[0], bb->center[1] - ba.center[1], bb->center[2] - ba.center[2]};
    double w[3] = {-dot3(bb->axis[0], d), -dot3(bb->axis[1], d), -dot3(bb->axis[2], d)};
    uint32_t lanes_a = leaf_lanes(q, q->mi->bvh, na, bb, w);
    if (lanes_a == 0u)
    {
        return;
    }
    box_i aj = ba;
    for (int k = 0; k < 3; ++k)
    {
        w[k] = dot3(ba.axis[k], d);
        for (int c = 0; c < 3; ++c)
        {
            aj.axis[k][c] = q->rot[0][c] * ba.axis[k][0] + q->rot[1][c] * ba.axis[k][1] + q->rot[2][c] * ba.axis[k][2];
        }
    }
    uint32_t lanes_b = leaf_lanes(q, q->mj->bvh, nb, &aj, w);
    if (lanes_b == 0u)
    {
        return;
    }
    uint32_t ca = leaf_load(q, q->mi, na, 0, lanes_a, ta);
    uint32_t cb = leaf_load(q, q->mj, nb, 1, lanes_b, tb);
    if (ca == 0 || cb == 0)
    {
        return; // not reached (each mask has a lane)
    }
    // Bounding-sphere bounds of all pairs; the pair with the smallest goes first, so that the best distance drops
    // before the others are bounded (a first leaf pair would otherwise measure all of its pairs).
    double lbm[MC_BVH_LEAF_MAX * MC_BVH_LEAF_MAX];
    uint32_t first = 0;
    for (uint32_t i = 0; i < ca; ++i)
    {
        for (uint32_t j = 0; j < cb; ++j)
        {
            double lb = mc_length(mc_sub(tb[j].center, ta[i].center)) - ta[i].radius - tb[j].radius;
            lbm[i * cb + j] = lb;
            first = lb < lbm[first] ? i * cb + j : first;
        }
    }
    if (try_pair(q, &ta[first / cb], &tb[first % cb], lbm[first]))
    {
        return;
    }
    for (uint32_t k = 0; k < ca * cb; ++k)
    {
        if (k != first && try_pair(q, &ta[k / cb], &tb[k % cb], lbm[k]))
        {
            return;
        }
    }
}

mc_status mc_bvh_distance(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                          double max_distance, struct mc_distance_scratch** scratch, mc_bvh_distance_result* out)
{
    MC_ASSERT(mi != NULL && mj != NULL && mi->bvh != NULL && mj->bvh != NULL && scratch != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->distance = INFINITY;
    out->tri_i = out->tri_j = MC_NONE;
    if (*scratch == NULL)
    {
        *scratch = mc_calloc(1, sizeof **scratch);
        if (*scratch == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    struct mc_distance_scratch* s = *scratch;
    dist_query q;
    q.mi = mi;
    q.mj = mj;
    mc_mat33 r = mc_quat_to_mat33(j_in_i->q);
    memcpy(q.rot, r.m, sizeof q.rot);
    q.trans[0] = j_in_i->p.x;
    q.trans[1] = j_in_i->p.y;
    q.trans[2] = j_in_i->p.z;
    double mag =
        mi->bvh->max_abs_coord + mj->bvh->max_abs_coord + fabs(q.trans[0]) + fabs(q.trans[1]) + fabs(q.trans[2]);
    q.abs_slack = 1e-12 * mag;
    out->magnitude = mag;
    q.best = max_distance;
    q.out = out;
    const mc_bvh* ti = mi->bvh;
    const mc_bvh* tj = mj->bvh;
    // Depth-first: each split pops one pair and pushes at most two, so the stack never holds more than the sum of
    // the depths plus one.
    uint64_t need = (uint64_t)ti->depth + tj->depth + 2u;
    if (!mc_array_reserve((void**)&s->stack, &s->capacity, need, sizeof(dist_item), 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    uint32_t had = s->jbox_capacity;
    if (!mc_array_reserve((void**)&s->jbox, &s->jbox_capacity, tj->node_count, sizeof(j_box), 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    if (s->jbox_capacity > had)
    {
        memset(&s->jbox[had], 0, (size_t)(s->jbox_capacity - had) * sizeof(j_box)); // stamp 0: not made
    }
    if (++s->query == 0u)
    {
        for (uint32_t k = 0; k < s->jbox_capacity; ++k)
        {
            s->jbox[k].stamp = 0; // the query number wrapped: forget every box
        }
        s->query = 1u;
    }
    q.jbox = s->jbox;
    q.stamp = s->query;
    box_i ba;
    box_of_i(&ti->nodes[0], &ba);
    const box_i* bb = box_j(&q, 0);
    ++out->box_tests;
    uint32_t sp = 0;
    s->stack[sp++] = (dist_item){0, 0, box_gap(&q, &ba, bb)};
    while (sp > 0 && q.best > 0.0)
    {
        dist_item it = s->stack[--sp];
        if (it.bound >= q.best)
        {
            continue;
        }
        const mc_bvh_node* na = &ti->nodes[it.a];
        const mc_bvh_node* nb = &tj->nodes[it.b];
        int leaf_a = mc_bvh_is_leaf(na), leaf_b = mc_bvh_is_leaf(nb);
        if (leaf_a && leaf_b)
        {
            leaf_leaf(&q, na, it.b);
            continue;
        }
        // Split the larger internal node; the nearer child pair goes on top of the stack.
        int split_a = !leaf_a && (leaf_b || node_size(na) >= node_size(nb));
        dist_item child[2];
        double centre2[2];
        for (uint32_t c = 0; c < 2; ++c)
        {
            child[c].a = split_a ? na->data + c : it.a;
            child[c].b = split_a ? it.b : nb->data + c;
            if (split_a)
            {
                box_of_i(&ti->nodes[child[c].a], &ba);
                if (c == 0)
                {
                    bb = box_j(&q, it.b);
                }
            }
            else
            {
                bb = box_j(&q, child[c].b);
                if (c == 0)
                {
                    box_of_i(na, &ba);
                }
            }
            ++out->box_tests;
            child[c].bound = box_gap(&q, &ba, bb);
            double d[3] = {bb->center[0] - ba.center[0], bb->center[1] - ba.center[1], bb->center[2] - ba.center[2]};
            centre2[c] = dot3(d, d);
        }
        // Equal bounds (boxes that overlap: 0): the pair with the nearer centres first.
        int near = child[1].bound < child[0].bound || (child[1].bound == child[0].bound && centre2[1] < centre2[0]);
        MC_ASSERT(sp + 2u <= s->capacity);
        if (child[1 - near].bound < q.best)
        {
            s->stack[sp++] = child[1 - near];
        }
        if (child[near].bound < q.best)
        {
            s->stack[sp++] = child[near];
        }
    }
    return MC_OK;
}
