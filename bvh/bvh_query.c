// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact point-in-mesh parity through the OBB tree (mc_bvh_point_parity, mc_mesh_contains_point), and the first
// triangle along a ray (mc_bvh_ray_first_hit, floating point).
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/tri_tri.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------
// Point parity

// Conservative segment-box test: the segment is (m - h, m + h) in the mesh frame. Separating axes: the 3 box axes
// and the 3 cross products of the segment direction with them. @return 1 when they may intersect.
static int segment_box(const mc_bvh_node* n, mc_vec3 m, mc_vec3 h, double abs_slack)
{
    double d[3] = {m.x - n->center[0], m.y - n->center[1], m.z - n->center[2]};
    double t[3], hh[3], ah[3];
    double e[3] = {n->extent[0], n->extent[1], n->extent[2]};
    double hv[3] = {h.x, h.y, h.z};
    for (int i = 0; i < 3; ++i)
    {
        t[i] = n->axis[i][0] * d[0] + n->axis[i][1] * d[1] + n->axis[i][2] * d[2];
        hh[i] = n->axis[i][0] * hv[0] + n->axis[i][1] * hv[1] + n->axis[i][2] * hv[2];
        ah[i] = fabs(hh[i]);
    }
    // Relative slack as in the box-box test (float axes orthonormal to ~1.2e-7 per component).
    double slack =
        4e-6 * (fabs(d[0]) + fabs(d[1]) + fabs(d[2]) + e[0] + e[1] + e[2] + ah[0] + ah[1] + ah[2]) + abs_slack;
    for (int i = 0; i < 3; ++i)
    {
        if (fabs(t[i]) > e[i] + ah[i] + slack)
        {
            return 0;
        }
    }
    for (int i = 0; i < 3; ++i)
    {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        if (fabs(t[j] * hh[k] - t[k] * hh[j]) > e[j] * ah[k] + e[k] * ah[j] + slack)
        {
            return 0;
        }
    }
    return 1;
}

static mc_vec3 mesh_vertex(const struct mc_mesh* mesh, int mapped, struct mc_pair_scratch* scratch, uint32_t v)
{
    return mapped ? mc_pair_scratch_j_vertex(scratch, v) : mesh->positions[v];
}

/// Crossings of the parity segment counted per component (mc_bvh_point_containers): odd[c] bit 0 is the parity of
/// the crossings of component c's triangles, bit 1 says c is in touched[0 .. count).
typedef struct crossing_tally
{
    uint8_t* odd;       ///< component_count flags
    uint32_t* touched;  ///< the components crossed at least once, in the order met
    uint32_t count;     ///< entries of touched
    uint32_t capacity;  ///< allocated entries of touched
    bool out_of_memory; ///< touched could not grow
} crossing_tally;

/// One crossing of a triangle of component c: flips the total parity, or c's own when tallying.
static void count_crossing(int* parity, crossing_tally* tally, uint32_t c)
{
    *parity ^= 1;
    if (tally == NULL)
    {
        return;
    }
    if (!(tally->odd[c] & 2u))
    {
        if (!mc_array_reserve((void**)&tally->touched, &tally->capacity, (uint64_t)tally->count + 1u,
                              sizeof *tally->touched, 16u))
        {
            tally->out_of_memory = true;
            return;
        }
        tally->touched[tally->count++] = c;
        tally->odd[c] |= 2u;
    }
    tally->odd[c] ^= 1u;
}

/// mc_bvh_point_parity, with the triangles of component `skip` (mc_mesh.vertex_component; MC_NONE: none) left out;
/// `tally` (may be NULL) also counts the crossings per component.
static int point_parity(const struct mc_mesh* mesh, int mesh_body, struct mc_pair_scratch* scratch, mc_vec3 p,
                        int point_body, uint32_t skip, crossing_tally* tally)
{
    MC_ASSERT(mesh != NULL && mesh->bvh != NULL && mesh_body != point_body);
    MC_ASSERT(mesh_body == 0 || scratch != NULL);
    const mc_bvh* t = mesh->bvh;
    int mapped = mesh_body == 1 && scratch != NULL;
    // Far end: strictly beyond the mesh's bounding box along +x, in the mesh's frame; then in I's frame.
    mc_vec3 pm = mapped ? mc_pair_scratch_unmap_j(scratch, p) : p;
    mc_vec3 lo = mc_v3(t->bbox_lo[0], t->bbox_lo[1], t->bbox_lo[2]);
    mc_vec3 hi = mc_v3(t->bbox_hi[0], t->bbox_hi[1], t->bbox_hi[2]);
    double span = (hi.x - lo.x) + (hi.y - lo.y) + (hi.z - lo.z);
    double xfar = fmax(hi.x, pm.x) + span + 1.0;
    mc_vec3 qm = mc_v3(xfar, pm.y, pm.z);
    mc_vec3 q = mapped ? mc_pair_scratch_map_j(scratch, qm) : qm;
    mc_vec3 m = mc_scale(mc_add(pm, qm), 0.5), h = mc_scale(mc_sub(qm, pm), 0.5);
    double mag = t->max_abs_coord + fabs(pm.x) + fabs(pm.y) + fabs(pm.z) + fabs(xfar) +
                 (mapped ? mc_pair_scratch_translation_norm(scratch) : 0.0);
    double abs_slack = 1e-12 * mag;
    int parity = 0;
    uint32_t stack[256];
    uint32_t sp = 0;
    int overflow = 0;
    stack[sp++] = 0;
    while (sp > 0)
    {
        const mc_bvh_node* n = &t->nodes[stack[--sp]];
        if (!segment_box(n, m, h, abs_slack))
        {
            continue;
        }
        if (!mc_bvh_is_leaf(n))
        {
            if (sp + 2u > sizeof stack / sizeof stack[0])
            {
                overflow = 1;
                break;
            }
            stack[sp++] = n->data + 1u;
            stack[sp++] = n->data;
            continue;
        }
        uint32_t f = mc_bvh_leaf_first(n), c = mc_bvh_leaf_count(n);
        for (uint32_t k = 0; k < c; ++k)
        {
            const uint32_t* tv = &t->tri_vertex[3u * (f + k)];
            if (skip != MC_NONE && mesh->vertex_component[tv[0]] == skip)
            {
                continue;
            }
            mc_vec3 a = mesh_vertex(mesh, mapped, scratch, tv[0]);
            mc_vec3 b = mesh_vertex(mesh, mapped, scratch, tv[1]);
            mc_vec3 cc = mesh_vertex(mesh, mapped, scratch, tv[2]);
            if (mc_edge_triangle_cross(p, q, a, b, cc, point_body, NULL, NULL) != 0)
            {
                count_crossing(&parity, tally, mesh->vertex_component[tv[0]]);
            }
        }
    }
    if (overflow)
    {
        // Degenerate (very deep) tree: count over every triangle instead.
        parity = 0;
        for (uint32_t k = 0; tally != NULL && k < tally->count; ++k)
        {
            tally->odd[tally->touched[k]] &= 2u;
        }
        for (uint32_t k = 0; k < mesh->triangle_count; ++k)
        {
            const uint32_t* tv = &mesh->indices[3u * k];
            if (skip != MC_NONE && mesh->vertex_component[tv[0]] == skip)
            {
                continue;
            }
            mc_vec3 a = mesh_vertex(mesh, mapped, scratch, tv[0]);
            mc_vec3 b = mesh_vertex(mesh, mapped, scratch, tv[1]);
            mc_vec3 cc = mesh_vertex(mesh, mapped, scratch, tv[2]);
            if (mc_edge_triangle_cross(p, q, a, b, cc, point_body, NULL, NULL) != 0)
            {
                count_crossing(&parity, tally, mesh->vertex_component[tv[0]]);
            }
        }
    }
    return parity;
}

int mc_bvh_point_parity(const struct mc_mesh* mesh, int mesh_body, struct mc_pair_scratch* scratch, mc_vec3 p,
                        int point_body)
{
    return point_parity(mesh, mesh_body, scratch, p, point_body, MC_NONE, NULL);
}

int mc_bvh_point_parity_without(const struct mc_mesh* mesh, mc_vec3 p, uint32_t component)
{
    return point_parity(mesh, 0, NULL, p, 1, component, NULL);
}

static int cmp_u32(const void* pa, const void* pb)
{
    uint32_t a = *(const uint32_t*)pa, b = *(const uint32_t*)pb;
    return a < b ? -1 : (a > b);
}

mc_status mc_bvh_point_containers(const struct mc_mesh* mesh, mc_vec3 p, uint32_t component, uint8_t* odd,
                                  uint32_t** containers, uint32_t* capacity, uint32_t* count)
{
    crossing_tally tally = {odd, *containers, 0, *capacity, false};
    (void)point_parity(mesh, 0, NULL, p, 1, component, &tally);
    // Keep the components crossed an odd number of times (in place: touched is the caller's array), clear the flags.
    uint32_t n = 0;
    for (uint32_t k = 0; k < tally.count; ++k)
    {
        uint32_t c = tally.touched[k];
        if (odd[c] & 1u)
        {
            tally.touched[n++] = c;
        }
        odd[c] = 0;
    }
    if (n > 1)
    {
        qsort(tally.touched, n, sizeof *tally.touched, cmp_u32);
    }
    *containers = tally.touched;
    *capacity = tally.capacity;
    *count = tally.out_of_memory ? 0 : n;
    return tally.out_of_memory ? MC_ERR_OUT_OF_MEMORY : MC_OK;
}

bool mc_mesh_contains_point(const mc_mesh* mesh, mc_vec3 point)
{
    if (mesh == NULL || mesh->bvh == NULL || !isfinite(point.x) || !isfinite(point.y) || !isfinite(point.z))
    {
        return false;
    }
    // Beyond the coordinate range the point is outside every mesh (whose coordinates are within it): decided
    // without the predicates, whose exact range it would leave. Components below MC_COORDINATE_SNAP count as 0, as
    // the queries round mapped coordinates.
    double c[3] = {point.x, point.y, point.z};
    for (int k = 0; k < 3; ++k)
    {
        if (fabs(c[k]) > MC_COORDINATE_MAX)
        {
            return mesh->flipped;
        }
        c[k] = mc_snap_tiny(c[k]);
    }
    point = mc_v3(c[0], c[1], c[2]);
    // The point is a vertex of the other body (J) for the symbolic rule: it is displaced by (eps, eps^2, eps^3).
    int inside = mc_bvh_point_parity(mesh, 0, NULL, point, 1);
    return mesh->flipped ? !inside : inside != 0;
}

// ---------------------------------------------------------------------------------------------------------------
// First hit along a ray

#define RAY_EDGE_MARGIN 1e-9 // barycentric distance from a triangle's boundary below which a hit is ambiguous

/// Ray p + t d against triangle (a, b, c) (Moller-Trumbore, double). @return t > 0, or -1 when it misses; *near_edge
/// when the hit is within RAY_EDGE_MARGIN of the boundary or the ray grazes the plane.
static double ray_triangle(mc_vec3 p, mc_vec3 d, mc_vec3 a, mc_vec3 b, mc_vec3 c, bool* near_edge)
{
    mc_vec3 e1 = mc_sub(b, a), e2 = mc_sub(c, a);
    mc_vec3 pv = mc_cross(d, e2);
    double det = mc_dot(e1, pv);
    double scale = mc_length(e1) * mc_length(e2) * mc_length(d);
    if (!(fabs(det) > 1e-12 * scale))
    {
        return -1.0; // parallel to the plane (or degenerate): no transversal hit
    }
    double inv = 1.0 / det;
    mc_vec3 tv = mc_sub(p, a);
    double u = mc_dot(tv, pv) * inv;
    mc_vec3 qv = mc_cross(tv, e1);
    double v = mc_dot(d, qv) * inv;
    double t = mc_dot(e2, qv) * inv;
    double w = 1.0 - u - v;
    if (u < -RAY_EDGE_MARGIN || v < -RAY_EDGE_MARGIN || w < -RAY_EDGE_MARGIN || !(t > 0.0))
    {
        return -1.0;
    }
    if (u < RAY_EDGE_MARGIN || v < RAY_EDGE_MARGIN || w < RAY_EDGE_MARGIN || fabs(det) < 1e-6 * scale)
    {
        *near_edge = true;
    }
    return t;
}

uint32_t mc_bvh_ray_first_hit(const struct mc_mesh* mesh, int mesh_body, struct mc_pair_scratch* scratch, mc_vec3 p,
                              mc_vec3 d, double t_max, uint32_t skip, double* t_hit, bool* ambiguous)
{
    MC_ASSERT(mesh != NULL && mesh->bvh != NULL && (mesh_body == 0 || scratch != NULL));
    const mc_bvh* t = mesh->bvh;
    int mapped = mesh_body == 1;
    double best = t_max, second = INFINITY;
    bool best_near_edge = false;
    uint32_t hit = MC_NONE;
    uint32_t stack[256];
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp > 0)
    {
        // The segment p .. p + best d in the mesh's frame (shrinks as hits are found).
        mc_vec3 q = mc_add(p, mc_scale(d, best));
        mc_vec3 pm = mapped ? mc_pair_scratch_unmap_j(scratch, p) : p;
        mc_vec3 qm = mapped ? mc_pair_scratch_unmap_j(scratch, q) : q;
        double mag = t->max_abs_coord + fabs(pm.x) + fabs(pm.y) + fabs(pm.z) + fabs(qm.x) + fabs(qm.y) + fabs(qm.z) +
                     (mapped ? mc_pair_scratch_translation_norm(scratch) : 0.0);
        const mc_bvh_node* n = &t->nodes[stack[--sp]];
        if (!segment_box(n, mc_scale(mc_add(pm, qm), 0.5), mc_scale(mc_sub(qm, pm), 0.5), 1e-9 * mag))
        {
            continue;
        }
        if (!mc_bvh_is_leaf(n))
        {
            if (sp + 2u > sizeof stack / sizeof stack[0])
            {
                *ambiguous = true; // a degenerate, very deep tree: give up rather than miss a hit
                return MC_NONE;
            }
            stack[sp++] = n->data + 1u;
            stack[sp++] = n->data;
            continue;
        }
        uint32_t f = mc_bvh_leaf_first(n), cnt = mc_bvh_leaf_count(n);
        for (uint32_t k = 0; k < cnt; ++k)
        {
            uint32_t tri = t->tri_order[f + k];
            if (tri == skip)
            {
                continue;
            }
            const uint32_t* tv = &t->tri_vertex[3u * (f + k)];
            bool near_edge = false;
            double th =
                ray_triangle(p, d, mesh_vertex(mesh, mapped, scratch, tv[0]), mesh_vertex(mesh, mapped, scratch, tv[1]),
                             mesh_vertex(mesh, mapped, scratch, tv[2]), &near_edge);
            if (th < 0.0 || th > t_max)
            {
                continue;
            }
            if (th < best || hit == MC_NONE)
            {
                second = fmin(second, best);
                best = th;
                hit = tri;
                best_near_edge = near_edge;
            }
            else
            {
                second = fmin(second, th);
            }
        }
    }
    if (hit != MC_NONE)
    {
        *t_hit = best;
        if (best_near_edge || second - best <= 1e-9 * t_max)
        {
            *ambiguous = true;
        }
    }
    return hit;
}

// ---------------------------------------------------------------------------------------------------------------
// Triangles near a half-space

/// Append every triangle of the mesh (a degenerate, very deep tree). @return false when out of memory.
static bool all_triangles(const struct mc_mesh* mesh, uint32_t** tris, uint32_t* capacity, uint32_t* count)
{
    if (!mc_array_reserve((void**)tris, capacity, mesh->triangle_count, sizeof **tris, 64))
    {
        return false;
    }
    for (uint32_t k = 0; k < mesh->triangle_count; ++k)
    {
        (*tris)[k] = k;
    }
    *count = mesh->triangle_count;
    return true;
}

/// Kinds of query_region.
typedef enum region_kind
{
    REGION_BALL,
    REGION_HALFSPACE,
    REGION_SEGMENT,
} region_kind;

/// A region of the mesh's frame for collect_triangles: a ball (centre, radius), a half-space n . x + d <= 0, or a
/// segment (middle m, half vector h: from m - h to m + h).
typedef struct query_region
{
    region_kind kind;
    mc_vec3 c; // centre, normal n, or the segment's middle m
    double r;  // radius, or offset d
    double slack;
    mc_vec3 h; // the segment's half vector
} query_region;

/// Whether node nd's box may meet the region (conservative: less a slack for the float box, axes orthonormal to
/// ~1.2e-7).
static bool box_meets(const mc_bvh_node* nd, const query_region* q)
{
    double mag = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        mag += fabs(nd->center[k]) + nd->extent[k];
    }
    double v[3] = {q->c.x, q->c.y, q->c.z};
    if (q->kind == REGION_SEGMENT)
    {
        return segment_box(nd, q->c, q->h, q->slack) != 0;
    }
    if (q->kind == REGION_BALL)
    {
        // Distance from the centre to the box along its axes.
        double out = 0.0;
        for (int k = 0; k < 3; ++k)
        {
            double d = fabs(nd->axis[k][0] * (v[0] - nd->center[0]) + nd->axis[k][1] * (v[1] - nd->center[1]) +
                            nd->axis[k][2] * (v[2] - nd->center[2])) -
                       nd->extent[k];
            out += d > 0.0 ? d * d : 0.0;
        }
        return sqrt(out) - 4e-6 * (mag + fabs(v[0]) + fabs(v[1]) + fabs(v[2])) <= q->r;
    }
    // Lowest value of n . x + d over the box.
    double c = q->r, r = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        c += v[k] * nd->center[k];
        r += nd->extent[k] * fabs(v[0] * nd->axis[k][0] + v[1] * nd->axis[k][1] + v[2] * nd->axis[k][2]);
    }
    return c - r <= 4e-6 * (fabs(v[0]) + fabs(v[1]) + fabs(v[2])) * mag + q->slack;
}

/// The triangles of the leaves whose boxes may meet the region, in tree order.
static mc_status collect_triangles(const struct mc_mesh* mesh, const query_region* q, uint32_t** tris,
                                   uint32_t* capacity, uint32_t* count)
{
    MC_ASSERT(mesh != NULL && mesh->bvh != NULL);
    const mc_bvh* t = mesh->bvh;
    *count = 0;
    uint32_t stack[256];
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp > 0)
    {
        const mc_bvh_node* nd = &t->nodes[stack[--sp]];
        if (!box_meets(nd, q))
        {
            continue;
        }
        if (!mc_bvh_is_leaf(nd))
        {
            if (sp + 2u > sizeof stack / sizeof stack[0])
            {
                return all_triangles(mesh, tris, capacity, count) ? MC_OK : MC_ERR_OUT_OF_MEMORY;
            }
            stack[sp++] = nd->data + 1u;
            stack[sp++] = nd->data;
            continue;
        }
        uint32_t f = mc_bvh_leaf_first(nd), cnt = mc_bvh_leaf_count(nd);
        if (!mc_array_reserve((void**)tris, capacity, (uint64_t)*count + cnt, sizeof **tris, 64))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t k = 0; k < cnt; ++k)
        {
            (*tris)[(*count)++] = t->tri_order[f + k];
        }
    }
    return MC_OK;
}

mc_status mc_bvh_ball_triangles(const struct mc_mesh* mesh, mc_vec3 c, double r, uint32_t** tris, uint32_t* capacity,
                                uint32_t* count)
{
    query_region q = {REGION_BALL, c, r, 0.0, {0, 0, 0}};
    return collect_triangles(mesh, &q, tris, capacity, count);
}

mc_status mc_bvh_halfspace_triangles(const struct mc_mesh* mesh, mc_vec3 n, double d, uint32_t** tris,
                                     uint32_t* capacity, uint32_t* count)
{
    double nn = fabs(n.x) + fabs(n.y) + fabs(n.z);
    query_region q = {REGION_HALFSPACE, n, d, 1e-12 * (fabs(d) + nn * mesh->bvh->max_abs_coord), {0, 0, 0}};
    return collect_triangles(mesh, &q, tris, capacity, count);
}

mc_status mc_bvh_ray_triangles(const struct mc_mesh* mesh, mc_vec3 p, mc_vec3 d, double slack, uint32_t** tris,
                               uint32_t* capacity, uint32_t* count)
{
    // The ray as the segment from p to p + t d with t beyond every vertex's projection (|x - p| <= |p| + |x| and
    // |x| <= sqrt(3) max_abs_coord), plus segment_box's own slack (relative to the coordinates, as the parity
    // segment's) and the caller's: boxes wider by s meet the segment's cross axes within s (|h|_1 + 1) (its cross-axis
    // sums are |h| times distances).
    double len = mc_length(d);
    double far = (fabs(p.x) + fabs(p.y) + fabs(p.z) + 2.0 * mesh->bvh->max_abs_coord + 1.0) / (len > 0.0 ? len : 1.0);
    mc_vec3 b = mc_add(p, mc_scale(d, far));
    mc_vec3 m = mc_scale(mc_add(p, b), 0.5), h = mc_scale(mc_sub(b, p), 0.5);
    double mag = mesh->bvh->max_abs_coord + fabs(p.x) + fabs(p.y) + fabs(p.z) + fabs(b.x) + fabs(b.y) + fabs(b.z);
    double hs = 1.0 + fabs(h.x) + fabs(h.y) + fabs(h.z);
    query_region q = {REGION_SEGMENT, m, 0.0, (1e-12 * mag + fmax(slack, 0.0)) * hs, h};
    return collect_triangles(mesh, &q, tris, capacity, count);
}
