// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The region query between shapes (include/meshcontact/shape.h): closed forms for sphere-plane and sphere-sphere, an
// exact polyhedral clip for a mesh against a plane, mc_query_regions for two meshes; cylinders against planes and
// meshes in cylinder_plane.c and cylinder_mesh.c.
//
// Spherical cap of height h on a ball of radius R (0 <= h <= 2R): volume pi h^2 (3R - h) / 3, its centroid at
// 3 (2R - h)^2 / (4 (3R - h)) from the ball's centre towards the cap, the circle bounding it of radius^2 h (2R - h).
// Mesh against plane: with the origin on the plane, the cut face adds nothing to the divergence-theorem sums of the
// volume (x . n = 0 on it) and of the first moment (the moment's component i is 1/2 of the integral of x_i^2 n_i over
// the boundary: n_x = n_y = 0 and z = 0 on the cut), so the clipped triangles alone give both; the cut's vector area
// is minus theirs (the boundary is closed).
#include "meshcontact/shape.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/tri_tri.h"
#include "src/base/union_find.h"
#include "src/contact/cut_point.h"
#include "src/contact/cylinder_mesh.h"
#include "src/contact/cylinder_plane.h"
#include "src/contact/gauss.h"
#include "src/contact/regions.h"
#include "src/contact/workspace.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

mc_shape mc_shape_mesh(const mc_mesh* mesh)
{
    mc_shape s;
    memset(&s, 0, sizeof s);
    s.type = MC_SHAPE_MESH;
    s.mesh = mesh;
    return s;
}

mc_shape mc_shape_sphere(double radius)
{
    mc_shape s;
    memset(&s, 0, sizeof s);
    s.type = MC_SHAPE_SPHERE;
    s.radius = radius;
    return s;
}

mc_shape mc_shape_cylinder(double radius, double length)
{
    mc_shape s;
    memset(&s, 0, sizeof s);
    s.type = MC_SHAPE_CYLINDER;
    s.radius = radius;
    s.length = length;
    return s;
}

mc_shape mc_shape_plane(void)
{
    mc_shape s;
    memset(&s, 0, sizeof s);
    s.type = MC_SHAPE_PLANE;
    return s;
}

/// Scratch of the mesh-plane clip (in the workspace, kept between queries).
struct mc_shape_scratch
{
    uint32_t* tris; // candidate triangles (mesh order)
    uint32_t tri_cap;
    uint32_t* parent; // union-find over candidate slots
    uint32_t parent_cap;
    uint64_t* keys; // hash: triangle -> slot (UINT64_MAX empty)
    uint32_t* vals;
    uint32_t hash_cap;
    uint32_t* root_region; // slot -> region index (for roots)
    uint32_t root_cap;
    struct clip_sums* sums; // per region
    uint32_t sums_cap;
};

void mc_shape_scratch_destroy(struct mc_shape_scratch* s)
{
    if (s == NULL)
    {
        return;
    }
    mc_free(s->tris);
    mc_free(s->parent);
    mc_free(s->keys);
    mc_free(s->vals);
    mc_free(s->root_region);
    mc_free(s->sums);
    mc_free(s);
}

size_t mc_shape_scratch_byte_count(const struct mc_shape_scratch* s)
{
    if (s == NULL)
    {
        return 0;
    }
    return mc_alloc_size(s) + mc_alloc_size(s->tris) + mc_alloc_size(s->parent) + mc_alloc_size(s->keys) +
           mc_alloc_size(s->vals) + mc_alloc_size(s->root_region) + mc_alloc_size(s->sums);
}

// ---------------------------------------------------------------------------------------------------------------
// Closed forms

static double cap_volume(double r, double h)
{
    return PI * h * h * (3.0 * r - h) / 3.0;
}

/// Distance from the ball's centre to the centroid of its cap of height h.
static double cap_centroid(double r, double h)
{
    double a = 2.0 * r - h;
    return 3.0 * a * a / (4.0 * (3.0 * r - h));
}

/// A region whose solid is a whole ball (no contact surface): area 0, zero normal.
static void whole_ball_region(mc_vec3 centre, double r, double depth, mc_vec3 pi_, mc_vec3 pj, mc_region* g)
{
    memset(g, 0, sizeof *g);
    g->volume = 4.0 / 3.0 * PI * r * r * r;
    g->centroid = centre;
    g->depth = depth;
    g->point_i = pi_;
    g->point_j = pj;
}

/// Fill area, radius, normal and vector areas of a region whose contact surface is a disk of area `area` with unit
/// normal `u` from I into J.
static void set_disk(mc_region* g, double area, mc_vec3 u)
{
    g->area = area;
    g->radius = sqrt(area / PI);
    g->normal = u;
    g->s_i = mc_scale(u, area);
    g->s_j = mc_scale(u, -area);
}

/// Sphere (I) against the half-space z <= 0 of the plane's frame (J). `c` is the centre in the plane's frame;
/// `rot` turns plane-frame vectors into world vectors, `origin` is the plane's origin in the world.
static uint32_t sphere_plane(double r, mc_vec3 c, const mc_mat33* rot, mc_vec3 origin, mc_region* g)
{
    double h = r - c.z; // penetration
    if (!(h > 0.0))
    {
        return 0;
    }
    mc_vec3 up = mc_mat33_mul_vec(rot, mc_v3(0, 0, 1));
    mc_vec3 cw = mc_add(origin, mc_mat33_mul_vec(rot, c));
    mc_vec3 deepest = mc_sub(cw, mc_scale(up, r));
    mc_vec3 above = mc_add(origin, mc_mat33_mul_vec(rot, mc_v3(c.x, c.y, 0.0)));
    if (h >= 2.0 * r)
    {
        whole_ball_region(cw, r, h, deepest, above, g);
        return 1;
    }
    memset(g, 0, sizeof *g);
    g->volume = cap_volume(r, h);
    g->centroid = mc_sub(cw, mc_scale(up, cap_centroid(r, h)));
    set_disk(g, PI * h * (2.0 * r - h), mc_scale(up, -1.0));
    g->depth = h;
    g->point_i = deepest;
    g->point_j = above;
    return 1;
}

/// Squared radius of the circle where spheres of radii r1, r2 with centres d apart meet (Heron-like product form).
static double meeting_circle(double r1, double r2, double d)
{
    double p = (r1 + r2 - d) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2);
    return fmax(0.0, p) / (4.0 * d * d);
}

/// The lens of balls (c1, r1) and (c2, r2), d = |c2 - c1| > 0, u = (c2 - c1) / d, with r1 + r2 > d > |r1 - r2|:
/// volume and centroid.
static double lens(mc_vec3 c1, double r1, mc_vec3 c2, double r2, double d, mc_vec3 u, mc_vec3* centroid)
{
    double h1 = (r2 - r1 + d) * (r2 + r1 - d) / (2.0 * d); // cap of ball 1 towards c2
    double h2 = (r1 - r2 + d) * (r1 + r2 - d) / (2.0 * d); // cap of ball 2 towards c1
    double v1 = cap_volume(r1, h1), v2 = cap_volume(r2, h2);
    mc_vec3 g1 = mc_add(c1, mc_scale(u, cap_centroid(r1, h1)));
    mc_vec3 g2 = mc_sub(c2, mc_scale(u, cap_centroid(r2, h2)));
    *centroid = mc_scale(mc_add(mc_scale(g1, v1), mc_scale(g2, v2)), 1.0 / (v1 + v2));
    return v1 + v2;
}

/// Ball (c1, r1) against ball (c2, r2), both solid (I, J): the lens.
static uint32_t sphere_sphere(mc_vec3 c1, double r1, mc_vec3 c2, double r2, mc_region* g)
{
    mc_vec3 dv = mc_sub(c2, c1);
    double d = mc_length(dv);
    if (!(d < r1 + r2))
    {
        return 0;
    }
    mc_vec3 u = d > 0.0 ? mc_scale(dv, 1.0 / d) : mc_v3(0, 0, 1);
    mc_vec3 pi_ = mc_add(c1, mc_scale(u, r1)), pj = mc_sub(c2, mc_scale(u, r2));
    if (d + r1 <= r2 || d + r2 <= r1)
    {
        bool first = r1 <= r2; // the smaller ball is inside the other
        whole_ball_region(first ? c1 : c2, first ? r1 : r2, r1 + r2 - d, pi_, pj, g);
        return 1;
    }
    memset(g, 0, sizeof *g);
    g->volume = lens(c1, r1, c2, r2, d, u, &g->centroid);
    set_disk(g, PI * meeting_circle(r1, r2, d), u);
    g->depth = r1 + r2 - d;
    g->point_i = pi_;
    g->point_j = pj;
    return 1;
}

/// Ball (c1, r1) (I) against the outside of ball (c2, r2) (J, a socket): the ball minus the socket's ball.
static uint32_t sphere_socket(mc_vec3 c1, double r1, mc_vec3 c2, double r2, mc_region* g)
{
    mc_vec3 dv = mc_sub(c2, c1);
    double d = mc_length(dv);
    if (!(d + r1 > r2))
    {
        return 0; // the ball is inside the socket's sphere
    }
    mc_vec3 u = d > 0.0 ? mc_scale(dv, 1.0 / d) : mc_v3(0, 0, 1);
    mc_vec3 pi_ = mc_sub(c1, mc_scale(u, r1)), pj = mc_sub(c2, mc_scale(u, r2));
    double v1 = 4.0 / 3.0 * PI * r1 * r1 * r1;
    memset(g, 0, sizeof *g);
    if (!(d < r1 + r2))
    {
        whole_ball_region(c1, r1, d + r1 - r2, pi_, pj, g); // apart: the whole ball is in the socket's solid
        return 1;
    }
    if (d + r2 <= r1)
    {
        // The socket's ball is inside the ball: the ball minus it, no contact surface.
        double v2 = 4.0 / 3.0 * PI * r2 * r2 * r2;
        g->volume = v1 - v2;
        g->centroid = mc_scale(mc_sub(mc_scale(c1, v1), mc_scale(c2, v2)), 1.0 / g->volume);
        g->depth = d + r1 - r2;
        g->point_i = pi_;
        g->point_j = pj;
        return 1;
    }
    mc_vec3 lc;
    double vl = lens(c1, r1, c2, r2, d, u, &lc);
    g->volume = v1 - vl;
    g->centroid = mc_scale(mc_sub(mc_scale(c1, v1), mc_scale(lc, vl)), 1.0 / g->volume);
    set_disk(g, PI * meeting_circle(r1, r2, d), mc_scale(u, -1.0));
    g->depth = d + r1 - r2;
    g->point_i = pi_;
    g->point_j = pj;
    return 1;
}

// ---------------------------------------------------------------------------------------------------------------
// Mesh against plane

/// Per-region sums of the clip.
struct clip_sums
{
    mc_vec3 origin;     // a point on the plane (mesh frame)
    double volume_x6;   // 6 V
    mc_vec3 moment_x24; // 24 * first moment about origin
    mc_vec3 area_x2;    // 2 * vector area of the mesh part below
    double deepest;     // largest -height of its vertices below
    uint32_t deep_vertex;
    uint32_t first; // smallest candidate slot (order tie-break)
    uint32_t below, cut;
    bool init;
    bool origin_set, origin_cut; // origin chosen; it is a cut point (on the plane)
};
typedef struct clip_sums clip_sums;

/// Tetrahedron (origin, a, b, c) terms.
static void add_tri(clip_sums* r, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_vec3 pa = mc_sub(a, r->origin), pb = mc_sub(b, r->origin), pc = mc_sub(c, r->origin);
    double det = mc_dot(pa, mc_cross(pb, pc));
    r->volume_x6 += det;
    r->moment_x24 = mc_add(r->moment_x24, mc_scale(mc_add(mc_add(pa, pb), pc), det));
    r->area_x2 = mc_add(r->area_x2, mc_cross(mc_sub(b, a), mc_sub(c, a)));
}

/// Heights of a triangle's corners above the plane n . x + d = 0 (n unit, mesh frame).
static void heights(const mc_mesh* m, uint32_t f, mc_vec3 n, double d, mc_vec3 p[3], double h[3])
{
    for (int k = 0; k < 3; ++k)
    {
        p[k] = m->positions[m->indices[3u * f + (uint32_t)k]];
        h[k] = mc_dot(n, p[k]) + d;
    }
}

/// Add triangle f's part below the plane to r.
static void clip_triangle(const mc_mesh* m, uint32_t f, mc_vec3 n, double d, clip_sums* r)
{
    mc_vec3 p[3];
    double h[3];
    heights(m, f, n, d, p, h);
    int below = (h[0] < 0.0) + (h[1] < 0.0) + (h[2] < 0.0);
    if (below == 3)
    {
        add_tri(r, p[0], p[1], p[2]);
        return;
    }
    // Rotate so that corner 0 is the odd one (the only one below, or the only one above).
    int k = 0;
    for (int i = 0; i < 3; ++i)
    {
        if ((h[i] < 0.0) == (below == 1))
        {
            k = i;
        }
    }
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    mc_vec3 x1 = mc_edge_cut_point(p[k], h[k], p[k1], h[k1]), x2 = mc_edge_cut_point(p[k], h[k], p[k2], h[k2]);
    if (below == 1)
    {
        add_tri(r, p[k], x1, x2);
    }
    else
    {
        add_tri(r, x1, p[k1], p[k2]);
        add_tri(r, x1, p[k2], x2);
    }
}

static bool hash_prepare(struct mc_shape_scratch* s, uint32_t n)
{
    uint32_t cap = 64;
    while (cap < 2u * n)
    {
        cap *= 2u;
    }
    if (cap > s->hash_cap)
    {
        uint64_t* k = mc_realloc(s->keys, (size_t)cap * sizeof *k);
        if (k == NULL)
        {
            return false;
        }
        s->keys = k;
        uint32_t* v = mc_realloc(s->vals, (size_t)cap * sizeof *v);
        if (v == NULL)
        {
            return false;
        }
        s->vals = v;
        s->hash_cap = cap;
    }
    memset(s->keys, 0xFF, (size_t)s->hash_cap * sizeof *s->keys);
    return true;
}

static uint32_t hash_slot(const struct mc_shape_scratch* s, uint32_t tri, bool insert, uint32_t value)
{
    uint32_t mask = s->hash_cap - 1u;
    uint32_t i = (uint32_t)((tri * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (s->keys[i] != UINT64_MAX && s->keys[i] != tri)
    {
        i = (i + 1u) & mask;
    }
    if (insert && s->keys[i] == UINT64_MAX)
    {
        s->keys[i] = tri;
        s->vals[i] = value;
    }
    return s->keys[i] == tri ? s->vals[i] : MC_NONE;
}

/// The candidate triangles with a corner below the plane, each in a union-find set with its neighbours across the
/// edges that have a corner below (such a neighbour has that corner too). Returns the number kept (compacted).
static uint32_t connect_below(struct mc_shape_scratch* s, const mc_mesh* m, uint32_t n_cand, mc_vec3 n, double d)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < n_cand; ++k)
    {
        mc_vec3 p[3];
        double h[3];
        heights(m, s->tris[k], n, d, p, h);
        if (h[0] < 0.0 || h[1] < 0.0 || h[2] < 0.0)
        {
            s->tris[kept++] = s->tris[k];
        }
    }
    for (uint32_t k = 0; k < kept; ++k)
    {
        s->parent[k] = k;
        hash_slot(s, s->tris[k], true, k);
    }
    for (uint32_t k = 0; k < kept; ++k)
    {
        uint32_t f = s->tris[k];
        for (uint32_t e = 0; e < 3u; ++e)
        {
            uint32_t h = 3u * f + e;
            mc_vec3 a = m->positions[m->indices[h]], b = m->positions[m->indices[3u * f + (e + 1u) % 3u]];
            if (mc_dot(n, a) + d < 0.0 || mc_dot(n, b) + d < 0.0)
            {
                uint32_t other = hash_slot(s, m->twin[h] / 3u, false, 0);
                if (other != MC_NONE)
                {
                    mc_uf_union(s->parent, k, other);
                }
            }
        }
    }
    return kept;
}

/// A cavity's shell (a component of negative volume) below the plane bounds a hole of the piece around it, not a
/// piece of its own: a ray from one of its triangles lying wholly below, into the solid, that meets another triangle
/// of the mesh before the plane joins the two sets (the segment runs inside the solid and below the plane, so the
/// hit bounds the same piece). Left apart (a separate region of negative volume, as documented in shape.h) when the ray
/// meets the plane first or is ambiguous.
static void join_cavities_below(struct mc_shape_scratch* s, const mc_mesh* m, uint32_t kept, mc_vec3 n, double d)
{
    if (m->report.inward_components == 0)
    {
        return;
    }
    for (uint32_t k = 0; k < kept; ++k)
    {
        uint32_t f = s->tris[k];
        uint32_t comp = m->vertex_component[m->indices[3u * f]];
        mc_vec3 p[3];
        double h[3];
        heights(m, f, n, d, p, h);
        if (!(m->component_volume[comp] < 0.0) || !(h[0] < 0.0 && h[1] < 0.0 && h[2] < 0.0) ||
            m->vertex_halfedge[m->component_vertex[comp]] / 3u != f)
        {
            continue; // one triangle per cavity shell: the one its first vertex's first half-edge belongs to
        }
        mc_vec3 c = mc_scale(mc_add(mc_add(p[0], p[1]), p[2]), 1.0 / 3.0);
        mc_vec3 dir = mc_scale(m->face_normals[f], -1.0);
        double hc = mc_dot(n, c) + d, rate = mc_dot(n, dir);
        double t_plane = rate > 0.0 ? -hc / rate : INFINITY;
        const mc_mesh_report* r = &m->report;
        double reach = 2.0 * mc_length(mc_sub(r->bbox_max, r->bbox_min));
        double t = 0.0;
        bool ambiguous = false;
        uint32_t g = mc_bvh_ray_first_hit(m, 0, NULL, c, dir, reach, f, &t, &ambiguous);
        if (g == MC_NONE || ambiguous || !(t < t_plane * (1.0 - 1e-9)))
        {
            continue;
        }
        uint32_t other = hash_slot(s, g, false, 0);
        if (other != MC_NONE)
        {
            mc_uf_union(s->parent, k, other);
        }
    }
}

/// Each region's origin for the sums: one of its cut points when it is cut (on the plane, where the cut face adds
/// nothing, and near the piece), else its first vertex (a whole component below the plane: no cut face; an origin on
/// a far plane would cost digits).
static void choose_origins(struct mc_shape_scratch* s, const mc_mesh* m, uint32_t kept, mc_vec3 n, double d,
                           clip_sums* sums)
{
    for (uint32_t k = 0; k < kept; ++k)
    {
        clip_sums* r = &sums[s->root_region[mc_uf_find(s->parent, k)]];
        if (r->origin_cut)
        {
            continue;
        }
        mc_vec3 p[3];
        double h[3];
        heights(m, s->tris[k], n, d, p, h);
        if (!r->origin_set)
        {
            r->origin = p[0];
            r->origin_set = true;
        }
        for (int c = 0; c < 3 && !r->origin_cut; ++c)
        {
            int c1 = (c + 1) % 3;
            if ((h[c] < 0.0) != (h[c1] < 0.0))
            {
                r->origin = mc_edge_cut_point(p[c], h[c], p[c1], h[c1]);
                r->origin_cut = true;
            }
        }
    }
}

static int compare_clip(const void* pa, const void* pb)
{
    const clip_sums* a = pa;
    const clip_sums* b = pb;
    if (a->volume_x6 != b->volume_x6)
    {
        return a->volume_x6 > b->volume_x6 ? -1 : 1;
    }
    return (a->first > b->first) - (a->first < b->first);
}

/// Regions of mesh m's solid below the plane n . x + d <= 0 of m's frame (n unit). `to_world`: m's pose.
static mc_status mesh_plane(struct mc_shape_scratch* s, const mc_mesh* m, mc_vec3 n, double d, const mc_pose* to_world,
                            mc_region* regions, uint32_t capacity, uint32_t* count)
{
    uint32_t n_cand = 0;
    mc_status st = mc_bvh_halfspace_triangles(m, n, d, &s->tris, &s->tri_cap, &n_cand);
    if (st != MC_OK)
    {
        return st;
    }
    if (!mc_array_reserve((void**)&s->parent, &s->parent_cap, n_cand, sizeof *s->parent, 64) ||
        !mc_array_reserve((void**)&s->root_region, &s->root_cap, n_cand, sizeof *s->root_region, 64) ||
        !hash_prepare(s, n_cand))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    uint32_t kept = connect_below(s, m, n_cand, n, d);
    join_cavities_below(s, m, kept, n, d);
    // One sums record per set, numbered in order of the sets' smallest slots.
    uint32_t nreg = 0;
    for (uint32_t k = 0; k < kept; ++k)
    {
        uint32_t r = mc_uf_find(s->parent, k);
        s->root_region[k] = r == k ? nreg++ : MC_NONE;
    }
    if (nreg == 0)
    {
        *count = 0;
        return MC_OK; // nothing below the plane
    }
    if (!mc_array_reserve((void**)&s->sums, &s->sums_cap, nreg, sizeof *s->sums, 8))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    clip_sums* sums = s->sums;
    memset(sums, 0, (size_t)nreg * sizeof *sums);
    choose_origins(s, m, kept, n, d, sums);
    for (uint32_t k = 0; k < kept; ++k) // slots in increasing order: a region's first visit is its smallest slot
    {
        clip_sums* r = &sums[s->root_region[mc_uf_find(s->parent, k)]];
        uint32_t f = s->tris[k];
        mc_vec3 p[3];
        double h[3];
        heights(m, f, n, d, p, h);
        if (!r->init)
        {
            r->deepest = -1.0;
            r->first = k;
            r->init = true;
        }
        for (int c = 0; c < 3; ++c)
        {
            // Each vertex below is counted once, from the triangle whose corner leaves it along the vertex's first
            // half-edge; each cut edge once, from its canonical half-edge.
            uint32_t hc = 3u * f + (uint32_t)c;
            uint32_t v = m->indices[hc];
            if (h[c] < 0.0 && m->vertex_halfedge[v] == hc)
            {
                r->below++;
                if (-h[c] > r->deepest)
                {
                    r->deepest = -h[c];
                    r->deep_vertex = v;
                }
            }
            if ((h[c] < 0.0) != (h[(c + 1) % 3] < 0.0) && hc < m->twin[hc])
            {
                r->cut++;
            }
        }
        clip_triangle(m, f, n, d, r);
    }
    qsort(sums, nreg, sizeof *sums, compare_clip);
    mc_mat33 rot = mc_quat_to_mat33(to_world->q);
    for (uint32_t k = 0; k < nreg && k < capacity; ++k)
    {
        const clip_sums* r = &sums[k];
        mc_region* g = &regions[k];
        memset(g, 0, sizeof *g);
        g->volume = r->volume_x6 / 6.0;
        mc_vec3 c =
            g->volume != 0.0 ? mc_add(r->origin, mc_scale(r->moment_x24, 1.0 / (4.0 * r->volume_x6))) : r->origin;
        g->centroid = mc_add(to_world->p, mc_mat33_mul_vec(&rot, c));
        mc_vec3 si = mc_mat33_mul_vec(&rot, mc_scale(r->area_x2, 0.5));
        g->area = mc_length_scaled(si); // its square underflows for a tiny contact (fuzz_shapes)
        g->radius = sqrt(g->area / PI);
        g->normal = g->area > 0.0 ? mc_normalize(si) : mc_v3(0, 0, 0);
        g->s_i = si;
        g->s_j = mc_scale(si, -1.0);
        g->depth = r->deepest;
        mc_vec3 deep = m->positions[r->deep_vertex];
        g->point_i = mc_add(to_world->p, mc_mat33_mul_vec(&rot, deep));
        g->point_j = mc_add(to_world->p, mc_mat33_mul_vec(&rot, mc_add(deep, mc_scale(n, r->deepest))));
        g->crossings = r->cut;
        g->inside_vertices = r->below;
    }
    *count = nreg;
    return nreg > capacity ? MC_ERR_CAPACITY : MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Sphere against mesh
//
// Pyramids from the ball's centre c over the mesh's faces, signed by the side of c (h_s = n . (v0 - c) > 0: c on the
// inner side), sum to the polyhedron; the ball's part of one pyramid is (R^3/3) Omega(F) - (R^3/3) Omega(F in D) +
// (h_s/3) A(F in D), D the disk of radius a = sqrt(R^2 - h^2) around the foot f of c on the face's plane, Omega the
// signed solid angle from c. The Omega(F) terms of all faces sum to 4 pi [c inside], so V = (4 pi / 3) R^3 [c inside]
// + the sum over the faces that meet the ball of (h_s A_in - R^3 Omega_in) / 3. The first moment about c likewise:
// (R^4/4) W_in subtracted (W = integral of the direction over the solid angle, whose sum over all faces is 0) plus the
// pyramids over F in D. F in D is built from the three signed triangles (f, v_i, v_i+1), each cut by the circle into
// triangles (f, X, Y) and circular sectors around f, whose solid angles, direction integrals (Stokes: half the sum of
// x cross dl over the boundary: great arcs theta * unit normal, the small circle of a sector in closed form),
// areas and centroids have closed forms.

#define PLANE_SNAP 1e-12 // a face plane within this fraction of R from the centre counts as through it

typedef struct ball_sums
{
    double vol_x3;  // 3 V less the (4 pi) R^3 [c inside] term
    mc_vec3 moment; // first moment about c
    mc_vec3 area;   // vector area of the mesh surface inside the ball (the mesh's normals)
    bool whole;     // the whole mesh is inside the ball (vol_x3 and moment are the mesh's own)
    // Faces far from c (FAR_RATIO) take their term by quadrature (wedge_point): their first moment about `ref`, a
    // point of the mesh, in moment_ref, and their part of vol_x3 also in vol_ref_x3 (`moment` holds the others' about
    // c).
    mc_vec3 ref;
    mc_vec3 moment_ref;
    double vol_ref_x3;
    uint32_t far_faces;
} ball_sums;

/// A face farther from c than FAR_RATIO times its longest edge takes its first moment by quadrature about a point of
/// the mesh (wedge_triangle, wedge_segment) rather than from the closed forms about c: those sum terms of order R^4
/// (the cone's direction integral, from unit vectors, with an error of eps R^4) to the moment of the solid between the
/// face and the sphere, which for a face D from c is of order R^4 (L / D)^2 at most (L the face's size) and much less
/// near the sphere: that rounding moved the centroid of a ball 2^12 times a torus's size by 0.3 under turns of the
/// scene (and by 1e-11 at 16 times a cube's size, 1e8 at 2^20: test
/// analytic::a_ball_much_larger_than_a_cube_matches_the_integrated_centroid). The quadrature's integrand is analytic
/// but where rho = |x - c| vanishes, at least D from the face, so the rules converge fast there (wedge_rule picks the
/// order). Nearer faces keep the closed forms, whose error there is eps (D / L)^2 of the moment at most (a face 0.03
/// from c inside a ball of radius 1.5 was 6e-7 off by quadrature, its integrand varying on the scale of that
/// distance).
#define FAR_RATIO 8.0

/// Signed solid angle of the triangle (a, b, c) seen from the origin (Van Oosterom and Strackee), with its triple
/// product a . (b x c) given (`num`: the caller computes it from the triangle's own edges; from a, b and c, whose
/// lengths are the ball's radius, its rounding is eps R^3, and r^3 times the angle's error was the size of the
/// whole region for a ball 2^18 times the mesh's size).
static double solid_angle(mc_vec3 a, mc_vec3 b, mc_vec3 c, double num)
{
    double la = mc_length(a), lb = mc_length(b), lc = mc_length(c);
    double den = la * lb * lc + mc_dot(a, b) * lc + mc_dot(a, c) * lb + mc_dot(b, c) * la;
    return num != 0.0 ? 2.0 * atan2(num, den) : 0.0; // a flat triangle (through the origin) subtends nothing
}

/// Integral of x cross dl along the great arc from unit u to unit v.
static mc_vec3 great_arc(mc_vec3 u, mc_vec3 v)
{
    mc_vec3 x = mc_cross(u, v);
    double s = mc_length(x);
    return s > 0.0 ? mc_scale(x, atan2(s, mc_dot(u, v)) / s) : mc_v3(0, 0, 0);
}

/// Geometry of one face against the ball.
typedef struct ball_face
{
    mc_vec3 c;  // ball centre
    double r;   // radius
    mc_vec3 n;  // face unit normal
    double hs;  // n . (v0 - c)
    mc_vec3 f;  // foot of c on the plane
    double a;   // disk radius
    mc_vec3 k;  // unit direction from c to f (sign(hs) n)
    mc_vec3 uf; // = k
    double sgn; // +1: c on the inner side of the face (a positive pyramid), -1: on the outer side
} ball_face;

static mc_vec3 unit_from(const ball_face* bf, mc_vec3 x)
{
    return mc_normalize(mc_sub(x, bf->c));
}

/// A triangle (a, x, y) of the face's plane inside the disk, a = f (ua = k) for the pieces around the foot, or the
/// face itself: its pyramid from c and the cone of the sphere over it.
static void add_plane_triangle(const ball_face* bf, mc_vec3 a, mc_vec3 ua, mc_vec3 x, mc_vec3 y, ball_sums* sum)
{
    double area = 0.5 * mc_dot(bf->n, mc_cross(mc_sub(x, a), mc_sub(y, a)));
    // (a - c) . ((x - c) x (y - c)) = (a - c) . ((x - a) x (y - a)) (the other terms are orthogonal to a - c), and
    // n . (a - c) = hs for a point of the plane: 2 hs area, from the triangle's own edges (relative rounding only).
    double omega = solid_angle(mc_sub(a, bf->c), mc_sub(x, bf->c), mc_sub(y, bf->c), 2.0 * bf->hs * area);
    mc_vec3 ux = unit_from(bf, x), uy = unit_from(bf, y);
    mc_vec3 w = mc_scale(mc_add(mc_add(great_arc(ua, ux), great_arc(ux, uy)), great_arc(uy, ua)), 0.5);
    double r3 = bf->r * bf->r * bf->r;
    sum->vol_x3 += bf->hs * area - r3 * omega;
    mc_vec3 g = mc_scale(mc_add(mc_add(a, x), y), 1.0 / 3.0);
    sum->moment =
        mc_add(sum->moment, mc_add(mc_scale(w, -0.25 * r3 * bf->r), mc_scale(mc_sub(g, bf->c), 0.25 * bf->hs * area)));
    sum->area = mc_add(sum->area, mc_scale(bf->n, area));
}

/// The triangle piece (f, x, y) of the face inside the disk.
static void add_disk_triangle(const ball_face* bf, mc_vec3 x, mc_vec3 y, ball_sums* sum)
{
    add_plane_triangle(bf, bf->f, bf->uf, x, y, sum);
}

/// The sector of the disk from point x to point y of its circle (turning about n by less than pi).
/// (1/3) times the integral of (R^2 - z^2)^(3/2) for z from R - delta to R (the radial moment of a cap of height
/// delta per radian of azimuth), by its binomial series for small delta (the closed form cancels to (delta/R)^2).
static double cap_radial_moment(double r, double delta)
{
    if (delta > 0.1 * r)
    {
        double hh = r - delta, a = sqrt(delta * (2.0 * r - delta));
        double f = 0.375 * r * r * r * r * atan2(a, hh) - 0.125 * hh * (5.0 * r * r - 2.0 * hh * hh) * a;
        return f / 3.0;
    }
    // (R^2 - z^2) = t (2R - t), t = R - z: the integral of t^(3/2) (2R)^(3/2) (1 - t / 2R)^(3/2) over [0, delta].
    double y = delta / (2.0 * r), coef = 1.0, term_sum = 0.0, yk = 1.0;
    for (int k = 0; k < 30; ++k)
    {
        term_sum += coef * yk / (k + 2.5);
        coef *= (1.5 - k) / (k + 1.0) * -1.0;
        yk *= y;
    }
    return pow(2.0 * r, 1.5) * pow(delta, 2.5) * term_sum / 3.0;
}

/// The sector of the disk from point x to point y of its circle (turning about n by less than pi): the wedge of the cap
/// beyond the plane over it, in closed form (volume phi delta^2 (3R - delta) / 6, first moment about c: along k
/// phi delta^2 (2R - delta)^2 / 8, along the sector's bisector 2 sin(phi / 2) times the cap's radial moment), with the
/// sign of the pyramid (-sign(hs)); delta = R - |hs|.
static void add_disk_sector(const ball_face* bf, mc_vec3 x, mc_vec3 y, ball_sums* sum)
{
    mc_vec3 dx = mc_sub(x, bf->f), dy = mc_sub(y, bf->f);
    double turn = mc_dot(bf->n, mc_cross(dx, dy));
    if (turn == 0.0)
    {
        return; // x, f, y on a line: a flat piece (phi 0, or +-pi for a sub-triangle whose edge passes through f)
    }
    double phi = atan2(turn, mc_dot(dx, dy)); // about n
    double r = bf->r, delta = r - fabs(bf->hs), sign = -bf->sgn;
    mc_vec3 bis = mc_add(mc_normalize(dx), mc_normalize(dy));
    double lb = mc_length(bis);
    bis = lb > 0.0 ? mc_scale(bis, 1.0 / lb) : mc_normalize(dx);
    double d2 = delta * delta;
    sum->vol_x3 += sign * 0.5 * phi * d2 * (3.0 * r - delta);
    mc_vec3 axial = mc_scale(bf->k, 0.125 * phi * d2 * (2.0 * r - delta) * (2.0 * r - delta));
    mc_vec3 radial = mc_scale(bis, 2.0 * sin(0.5 * phi) * cap_radial_moment(r, delta));
    sum->moment = mc_add(sum->moment, mc_scale(mc_add(axial, radial), sign));
    sum->area = mc_add(sum->area, mc_scale(bf->n, 0.5 * bf->a * bf->a * phi));
}

/// The part of segment p -> q inside the face's disk: parameters t1 < t2 within [0, 1] of p + t (q - p). @return -1
/// when p = q, 0 when the segment misses the disk (t1 = 2, t2 = -1), 1 when it meets it.
static int disk_chord(const ball_face* bf, mc_vec3 p, mc_vec3 q, double* t1, double* t2)
{
    mc_vec3 d = mc_sub(q, p), pf = mc_sub(p, bf->f);
    double dd = mc_dot(d, d);
    *t1 = 2.0;
    *t2 = -1.0; // empty
    if (!(dd > 0.0))
    {
        return -1;
    }
    double b = mc_dot(pf, d), cc = mc_dot(pf, pf) - bf->a * bf->a;
    double disc = b * b - dd * cc;
    if (disc > 0.0)
    {
        double sq = sqrt(disc);
        *t1 = fmax((-b - sq) / dd, 0.0);
        *t2 = fmin((-b + sq) / dd, 1.0);
    }
    return *t1 < *t2;
}

static void add_sub_triangle(const ball_face* bf, mc_vec3 p, mc_vec3 q, ball_sums* sum)
{
    double t1, t2;
    int meets = disk_chord(bf, p, q, &t1, &t2);
    if (meets < 0)
    {
        return;
    }
    mc_vec3 d = mc_sub(q, p);
    // Points on the circle along the radial directions of p and q, for the sectors.
    double a = bf->a;
    mc_vec3 pc = mc_add(bf->f, mc_scale(mc_normalize(mc_sub(p, bf->f)), a));
    mc_vec3 qc = mc_add(bf->f, mc_scale(mc_normalize(mc_sub(q, bf->f)), a));
    if (meets == 0)
    {
        add_disk_sector(bf, pc, qc, sum);
        return;
    }
    mc_vec3 x = mc_add(p, mc_scale(d, t1)), y = mc_add(p, mc_scale(d, t2));
    if (t1 > 0.0)
    {
        add_disk_sector(bf, pc, x, sum);
    }
    add_disk_triangle(bf, x, y, sum);
    if (t2 < 1.0)
    {
        add_disk_sector(bf, y, qc, sum);
    }
}

/// The part of the ball beyond the face's plane that the cone from the centre through a circular segment of the disk
/// holds (the segment between a chord and its minor arc of half-angle t about the foot f, t <= pi / 4), the segment's
/// share of R^3 Omega / 3 - h_s A / 3, with no term of the sector's size. Over the azimuth psi about the axis (c, f)
/// from the segment's axis, the polar angles from the chord's point at rho1 = d / cos(psi) from f (d = a cos t) to
/// the circle hold h (R - m)^2 (2R + m) / (6 m) per radian, m = sqrt(h^2 + rho1^2) the distance from c to that point:
/// R - m = D / (R + m), D = a^2 - rho1^2 from a cos(psi) - d = 2a sin((t + psi) / 2) sin((t - psi) / 2) (no
/// cancellation). For rho1 = 0 this is the sector's delta^2 (3R - delta) / 6. Smooth in psi, vanishing as (t - psi)^2
/// at both ends: the 20-point Gauss rule. h = |hs|.
static double segment_cone_cap(double r, double h, double a, double t)
{
    double d = a * cos(t), sum = 0.0;
    for (int k = 0; k < 20; ++k)
    {
        double wk, psi = t * mc_gauss20_node(k, &wk), cp = cos(psi);
        double big_d = 2.0 * a * sin(0.5 * (t + psi)) * sin(0.5 * (t - psi)) * (a * cp + d) / (cp * cp);
        double rho1 = d / cp, m = sqrt(h * h + rho1 * rho1), rm = big_d / (r + m);
        sum += wk * h * rm * rm * (2.0 * r + m) / (6.0 * m);
    }
    return sum * t;
}

/// Sums of wedge_point.
typedef struct wedge_sums
{
    double vol;     // the solid's volume
    double area;    // the plane's area integrated over
    mc_vec3 moment; // its first moment about ref
} wedge_sums;

/// The solid between the face's plane and the sphere along the rays from c, at a point x of the plane inside the disk
/// (q = x - f, fr = f - ref, rim2 = a^2 - |q|^2 = R^2 - rho^2 given by the caller without cancellation, rho = |x - c|):
/// per unit of the plane's area its volume is (|h| / rho^3) s (R^2 + R rho + rho^2) / 3 with s = R - rho
/// = rim2 / (R + rho) (the integral of r^2 over r from rho to R on the ray's solid angle, |h| / rho^3 per unit area),
/// and its first moment about ref that volume times x - ref plus (x - c) / rho times (|h| / rho^3) s^2 (3R^2 + 2R rho +
/// rho^2) / 12 (the integral of (r - rho) r^2: every term a product of small or exact factors, none of order R^4).
/// Adds w times both, and w, to *ws.
static inline void wedge_point(const ball_face* bf, mc_vec3 fr, mc_vec3 q, double rim2, double w, wedge_sums* ws)
{
    // In an order whose intermediate values keep the size of the lengths' powers they stand for (w / rho / rho is
    // dimensionless: no power of rho alone underflows or overflows before the result would).
    double h = fabs(bf->hs), r = bf->r;
    double rho = sqrt(h * h + mc_dot(q, q));
    double s = rim2 / (r + rho);
    double ks = w * (h / rho) / rho / rho * s;
    double v = ks * ((r + rho) * r + rho * rho) / 3.0;
    double t = ks * (s / rho) * ((3.0 * r + 2.0 * rho) * r + rho * rho) / 12.0;
    mc_vec3 xr = mc_add(fr, q), xc = mc_add(mc_scale(bf->n, bf->hs), q);
    ws->vol += v;
    ws->area += w;
    ws->moment = mc_add(ws->moment, mc_add(mc_scale(xr, v), mc_scale(xc, t)));
}

/// Node i < n of the n-point Gauss rule mapped to [0, 1], and its weight.
static inline double gauss_unit(int n, int i, double* w)
{
    double x = mc_gauss_node(n, i, w);
    *w *= 0.5;
    return 0.5 + 0.5 * x;
}

/// wedge_point over the triangle (p, x, y) of the face's plane inside the disk: the n x n Gauss rule on the square
/// mapped onto it (p + xi ((x - p) + eta (y - x)), Jacobian xi times twice its area, signed about n).
static void wedge_triangle(const ball_face* bf, mc_vec3 fr, int rule, mc_vec3 p, mc_vec3 x, mc_vec3 y, wedge_sums* ws)
{
    mc_vec3 e1 = mc_sub(x, p), e2 = mc_sub(y, x), pf = mc_sub(p, bf->f);
    double area2 = mc_dot(bf->n, mc_cross(e1, e2)), a2 = bf->a * bf->a;
    if (area2 == 0.0)
    {
        return;
    }
    for (int i = 0; i < rule; ++i)
    {
        double wi, xi = gauss_unit(rule, i, &wi);
        for (int j = 0; j < rule; ++j)
        {
            double wj, eta = gauss_unit(rule, j, &wj);
            mc_vec3 q = mc_add(pf, mc_scale(mc_add(e1, mc_scale(e2, eta)), xi));
            wedge_point(bf, fr, q, a2 - mc_dot(q, q), area2 * xi * wi * wj, ws);
        }
    }
}

/// wedge_point over the circular segment between the chord from y to x (points of the disk's circle) and its minor
/// arc of half-angle t about f: polar coordinates about f, the azimuth psi in [-t, t] from the chord's middle (the
/// segment's depth vanishes as (t - psi)^2 at both ends, as segment_cone_cap's integrand) and the distance from
/// d / cos(psi) (the chord, d = a cos t) to a, whose span 2a sin((t + psi) / 2) sin((t - psi) / 2) / cos(psi) and the
/// rims' a^2 - r^2 = (a - r)(a + r) come without cancellation; the rules' sizes below.
static void wedge_segment(const ball_face* bf, mc_vec3 fr, mc_vec3 y, mc_vec3 x, double t, wedge_sums* ws)
{
    mc_vec3 u = mc_normalize(mc_sub(x, y));
    mc_vec3 mid = mc_sub(mc_scale(mc_add(x, y), 0.5), bf->f);
    mc_vec3 ax = mc_normalize(mc_sub(mid, mc_scale(u, mc_dot(mid, u)))); // from f towards the chord
    double a = bf->a, d = a * cos(t);
    // The rules' sizes: in psi, 1 / cos(psi)'s poles are (pi / 2 - t) / t half-widths away, 5.3 at t = 1/4, where 8
    // points leave (12.5)^-16, 3e-18; across, the segment is t^2 / 2 of a deep, so within t = 1/10 the integrand is a
    // polynomial of low degree to (t^2 / 4)^6 and 3 points take it to 1e-16 of the segment's share (a segment's share
    // of the face's moment is smaller still).
    int np = t > 0.25 ? 20 : 8, nr = t > 0.1 ? 8 : 3;
    for (int k = 0; k < np; ++k)
    {
        double wp, psi = t * mc_gauss_node(np, k, &wp), cp = cos(psi);
        wp *= t;
        mc_vec3 e = mc_add(mc_scale(ax, cp), mc_scale(u, sin(psi)));
        double rho1 = d / cp, span = 2.0 * a * sin(0.5 * (t + psi)) * sin(0.5 * (t - psi)) / cp;
        for (int j = 0; j < nr; ++j)
        {
            double wj, tau = gauss_unit(nr, j, &wj);
            double rr = rho1 + tau * span, rim = (1.0 - tau) * span;
            wedge_point(bf, fr, mc_scale(e, rr), rim * (a + rr), wp * wj * span * rr, ws);
        }
    }
}

/// The order of wedge_triangle's rule for a face `ratio` times its longest edge from c (> FAR_RATIO): the integrand's
/// nearest singularity (c) is then about 4 ratio half-widths of the rule's interval away, and the n-point rule's
/// error falls as (4 ratio)^-2n; measured on a cube under a ball 11 edges from its centre, it is about 4000 times
/// that (a centroid 5e-7 off with 3 points, 2.6e-10 with 4, 1.3e-13 with 5): the fewest points, 3 to 8, for
/// 1e5 (4 ratio)^-2n < 1e-17. A ball on a fine plate, faces 50 times their size from its centre, takes 5 x 5 points
/// (8 x 8 took 3.4 times as long as the closed forms).
static int wedge_rule(double ratio)
{
    int n = (int)ceil(11.0 / log10(4.0 * ratio));
    return n < 3 ? 3 : (n > 8 ? 8 : n);
}

/// A far face's term into the sums: minus sgn times the solid between its part in the disk and the sphere (ws: that
/// solid's volume and first moment about ref, and the plane's area it covers, signed about n).
static void add_far_face(ball_sums* sum, const ball_face* bf, const wedge_sums* ws)
{
    double vol = -bf->sgn * ws->vol;
    sum->vol_x3 += 3.0 * vol;
    sum->vol_ref_x3 += 3.0 * vol;
    sum->moment_ref = mc_add(sum->moment_ref, mc_scale(ws->moment, -bf->sgn));
    sum->area = mc_add(sum->area, mc_scale(bf->n, ws->area));
    sum->far_faces++;
}

static inline double sq_dist(mc_vec3 a, mc_vec3 b)
{
    mc_vec3 d = mc_sub(a, b);
    return mc_dot(d, d);
}

/// 3 V of the part of face f's plane inside both the face and the disk (the pieces of ball_against_face), summed from
/// a point o of the face's own boundary rather than around the foot f: triangles (o, X, Y) over the straight pieces
/// and over the chords of the arcs, plus each minor arc's segment (segment_cone_cap). A ball much larger than the
/// mesh puts f R / L face sizes away, and the pieces around it (ball_against_face's sub-triangles and sectors, of
/// that size) cancel to the face's: their rounding grew as eps (R / L)^3. With `quad` (not NULL) and the face far
/// from c for the pieces' size (`dist` from it), the same pieces by quadrature instead (wedge_triangle,
/// wedge_segment): the solid between them and the sphere in *quad (add_far_face), *by_quadrature set and *vol_x3
/// not.
/// @return false when the face's pieces take no such form (no edge meets the disk, or an arc of pi / 2 or more): the
/// caller keeps the pieces around f.
static bool face_in_disk_vol_x3(const ball_face* bf, const mc_vec3 p[3], double* vol_x3, mc_vec3 fr, double dist,
                                wedge_sums* quad, bool* by_quadrature)
{
    mc_vec3 x[3], y[3];
    bool in[3];
    int n = 0;
    for (int i = 0; i < 3; ++i)
    {
        double t1, t2;
        in[i] = disk_chord(bf, p[i], p[(i + 1) % 3], &t1, &t2) > 0;
        if (in[i])
        {
            mc_vec3 d = mc_sub(p[(i + 1) % 3], p[i]);
            x[i] = t1 > 0.0 ? mc_add(p[i], mc_scale(d, t1)) : p[i];
            y[i] = t2 < 1.0 ? mc_add(p[i], mc_scale(d, t2)) : p[(i + 1) % 3];
            n++;
        }
    }
    if (n == 0)
    {
        return false;
    }
    // The pieces' size: the largest distance between their points on the face's edges (the arcs between them are
    // minor, within that of their chords). A face far from c for that size takes the quadrature (FAR_RATIO): a face
    // through a cap 1e-9 deep at a mesh vertex is a piece 1e-5 across though the face and the disk are of size 1.
    mc_vec3 pts[6];
    int np = 0;
    for (int i = 0; i < 3; ++i)
    {
        if (in[i])
        {
            pts[np++] = x[i];
            pts[np++] = y[i];
        }
    }
    double size2 = 0.0;
    for (int i = 0; i < np; ++i)
    {
        for (int j = i + 1; j < np; ++j)
        {
            size2 = fmax(size2, sq_dist(pts[i], pts[j]));
        }
    }
    *by_quadrature = quad != NULL && size2 > 0.0 && dist * dist > FAR_RATIO * FAR_RATIO * size2;
    int rule = *by_quadrature ? wedge_rule(dist / sqrt(size2)) : 0;
    if (!*by_quadrature)
    {
        quad = NULL;
    }
    ball_sums tmp = {0};
    int first = in[0] ? 0 : (in[1] ? 1 : 2);
    mc_vec3 o = x[first], uo = unit_from(bf, o);
    double h = fabs(bf->hs), segments = 0.0;
    wedge_sums ws = {0};
    for (int k = 0; k < 3; ++k)
    {
        int i = (first + k) % 3;
        if (!in[i])
        {
            continue;
        }
        if (quad != NULL)
        {
            wedge_triangle(bf, fr, rule, o, x[i], y[i], &ws);
        }
        else
        {
            add_plane_triangle(bf, o, uo, x[i], y[i], &tmp);
        }
        int j = (i + 1) % 3;
        while (!in[j])
        {
            j = (j + 1) % 3;
        }
        // From y[i] the boundary follows the circle, turning about n, to x[j] (the same point when the face's corner
        // between them lies inside the disk).
        mc_vec3 cy = mc_sub(y[i], bf->f), cx = mc_sub(x[j], bf->f);
        double chord = mc_length(mc_sub(x[j], y[i]));
        if (chord == 0.0)
        {
            continue;
        }
        if (!(mc_dot(bf->n, mc_cross(cy, cx)) > 0.0) || chord >= 2.0 * bf->a * 0x1.6a09e667f3bcdp-1)
        {
            return false; // an arc of pi / 2 or more (half-angle past pi / 4: no cancellation to avoid)
        }
        double t = asin(fmin(chord / (2.0 * bf->a), 1.0));
        if (quad != NULL)
        {
            wedge_triangle(bf, fr, rule, o, y[i], x[j], &ws);
            wedge_segment(bf, fr, y[i], x[j], t, &ws);
        }
        else
        {
            add_plane_triangle(bf, o, uo, y[i], x[j], &tmp);
            segments += segment_cone_cap(bf->r, h, bf->a, t);
        }
    }
    if (quad != NULL)
    {
        *quad = ws;
        return true;
    }
    *vol_x3 = tmp.vol_x3 - bf->sgn * 3.0 * segments;
    return true;
}

/// Face f of mesh m (mesh frame) against the ball (c, r). The side of c is the exact orientation under the symbolic
/// rule (c as a point of J, as mc_mesh_contains_point decides it), so that a face through c takes the side the
/// containment test gave c: its pyramid is flat but its cap wedge (a hemisphere's part) is not.
static void ball_against_face(const mc_mesh* m, uint32_t f, mc_vec3 c, double r, ball_sums* sum)
{
    const uint32_t* v = &m->indices[3u * f];
    mc_vec3 p[3] = {m->positions[v[0]], m->positions[v[1]], m->positions[v[2]]};
    ball_face bf;
    bf.c = c;
    bf.r = r;
    bf.n = m->face_normals[f];
    double h = fabs(mc_dot(bf.n, mc_sub(p[0], c)));
    if (!(h < r))
    {
        return; // the plane misses the ball
    }
    mc_vec3 q = mc_closest_on_triangle(c, p[0], p[1], p[2]);
    if (!(mc_dot(mc_sub(q, c), mc_sub(q, c)) < r * r))
    {
        // The face misses the ball though its plane does not: its pieces around the foot (three sectors) cancel to
        // nothing, from terms of the disk's size (eps R^3 of rounding, which was most of a ball 2^16 times larger than
        // the torus it cut).
        return;
    }
    if (h <= PLANE_SNAP * r)
    {
        h = 0.0; // on the plane to 1e-12 R: its limit (the error is below 1e-12 of the ball's terms; a centre 1e-310
                 // off a face, found by the shape harness, made the solid angles of denormals meaningless)
    }
    int side = mc_sym_orient_point_plane(&p[0], &p[1], &p[2], &c, 1, NULL); // > 0: c on the outer side
    if (side == 0)
    {
        return; // an exactly degenerate triangle (not in a checked mesh)
    }
    bf.hs = side > 0 ? -h : h;
    bf.sgn = side > 0 ? -1.0 : 1.0;
    bf.f = mc_add(c, mc_scale(bf.n, bf.hs));
    bf.a = sqrt((r - h) * (r + h));
    bf.k = mc_scale(bf.n, side > 0 ? -1.0 : 1.0);
    bf.uf = bf.k;
    double r2 = r * r, dist2 = sq_dist(q, c);
    mc_vec3 fr = mc_sub(bf.f, sum->ref);
    if (h > 0.0 && mc_dot(mc_sub(p[0], c), mc_sub(p[0], c)) < r2 && mc_dot(mc_sub(p[1], c), mc_sub(p[1], c)) < r2 &&
        mc_dot(mc_sub(p[2], c), mc_sub(p[2], c)) < r2)
    {
        // The whole face inside the ball: its own pyramid and cone, the sum of the three pieces around the foot
        // below without their cancelling parts. A ball much larger than the mesh puts the foot far from the face, where
        // those pieces' areas and angles were R times the face's and their rounding the size of the region (a torus
        // near the surface of a ball 2^18 times its size took three times its own volume; the fuzz harness found
        // 2.4e-5 too much at 2^12). A face far from c: the solid between it and the sphere by quadrature instead.
        double edge2 = fmax(fmax(sq_dist(p[1], p[0]), sq_dist(p[2], p[1])), sq_dist(p[0], p[2]));
        if (dist2 > FAR_RATIO * FAR_RATIO * edge2)
        {
            wedge_sums ws = {0};
            wedge_triangle(&bf, fr, wedge_rule(sqrt(dist2 / edge2)), p[0], p[1], p[2], &ws);
            ws.area = 0.5 * mc_dot(bf.n, mc_cross(mc_sub(p[1], p[0]), mc_sub(p[2], p[0])));
            add_far_face(sum, &bf, &ws);
            return;
        }
        add_plane_triangle(&bf, p[0], unit_from(&bf, p[0]), p[1], p[2], sum);
        return;
    }
    // A face the sphere cuts: its volume from its own pieces when they take that form, the first moment and vector
    // area from the pieces around the foot; a face far from c: all three by quadrature over its own pieces (the
    // moment's rounding about c grows fast with R / L: the centroid of a ball 2^12 times a torus's size moved by 0.3
    // under turns of the scene; tests/fuzz/open/README.md).
    double vol_x3 = 0.0;
    wedge_sums ws = {0};
    bool quadrature = false;
    bool own = h > 0.0 && face_in_disk_vol_x3(&bf, p, &vol_x3, fr, sqrt(dist2), &ws, &quadrature);
    if (own && quadrature)
    {
        add_far_face(sum, &bf, &ws);
        return;
    }
    double before = sum->vol_x3;
    for (int i = 0; i < 3; ++i)
    {
        if (h == 0.0)
        {
            // c on the face's plane: every piece is a wedge of the hemisphere on the far side (the limit of the
            // triangle pieces as h -> 0 too), over the angle of the sub-triangle at c.
            mc_vec3 dp = mc_sub(p[i], c), dq = mc_sub(p[(i + 1) % 3], c);
            if (mc_dot(dp, dp) > 0.0 && mc_dot(dq, dq) > 0.0)
            {
                add_disk_sector(&bf, mc_add(c, mc_scale(mc_normalize(dp), r)), mc_add(c, mc_scale(mc_normalize(dq), r)),
                                sum);
            }
            continue;
        }
        // Vertices at the foot itself make no sub-triangle.
        if (mc_dot(mc_sub(p[i], bf.f), mc_sub(p[i], bf.f)) > 0.0 &&
            mc_dot(mc_sub(p[(i + 1) % 3], bf.f), mc_sub(p[(i + 1) % 3], bf.f)) > 0.0)
        {
            add_sub_triangle(&bf, p[i], p[(i + 1) % 3], sum);
        }
    }
    if (own)
    {
        sum->vol_x3 = before + vol_x3;
    }
}

/// The point of mesh m's surface closest to c among the triangles within `reach` (widened until one is found).
static mc_status closest_surface_point(struct mc_shape_scratch* s, const mc_mesh* m, mc_vec3 c, double reach,
                                       mc_vec3* closest, double* dist)
{
    const mc_mesh_report* rep = &m->report;
    double span = mc_length(mc_sub(rep->bbox_max, rep->bbox_min)) + mc_length(mc_sub(c, rep->bbox_min));
    for (;;)
    {
        uint32_t n = 0;
        mc_status st = mc_bvh_ball_triangles(m, c, reach, &s->tris, &s->tri_cap, &n);
        if (st != MC_OK)
        {
            return st;
        }
        double best = INFINITY;
        for (uint32_t k = 0; k < n; ++k)
        {
            const uint32_t* v = &m->indices[3u * s->tris[k]];
            mc_vec3 q = mc_closest_on_triangle(c, m->positions[v[0]], m->positions[v[1]], m->positions[v[2]]);
            double d2 = mc_dot(mc_sub(q, c), mc_sub(q, c));
            if (d2 < best)
            {
                best = d2;
                *closest = q;
            }
        }
        if (n > 0 || reach > span)
        {
            *dist = sqrt(best);
            return MC_OK;
        }
        reach *= 2.0;
    }
}

/// False when c lies on the planes (within PLANE_SNAP R) of two faces among `tris` with different normals (the faces
/// through c are then not all coplanar, and the exact limit of each face's term would depend on how c leaves the edge).
static bool planes_through_centre_agree(const mc_mesh* m, const uint32_t* tris, uint32_t n, mc_vec3 c, double r)
{
    const mc_vec3* first = NULL;
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_vec3* p = &m->positions[m->indices[3u * tris[k]]];
        const mc_vec3* nrm = &m->face_normals[tris[k]];
        if (fabs(mc_dot(*nrm, mc_sub(*p, c))) > PLANE_SNAP * r)
        {
            continue;
        }
        if (first == NULL)
        {
            first = nrm;
        }
        else if (memcmp(first, nrm, sizeof *nrm) != 0)
        {
            return false;
        }
    }
    return true;
}

/// True when every corner of the mesh's bounding box lies inside the ball.
static bool mesh_inside_ball(const mc_mesh* m, mc_vec3 c, double r)
{
    const mc_mesh_report* rep = &m->report;
    for (int k = 0; k < 8; ++k)
    {
        mc_vec3 q = mc_v3((k & 1) ? rep->bbox_max.x : rep->bbox_min.x, (k & 2) ? rep->bbox_max.y : rep->bbox_min.y,
                          (k & 4) ? rep->bbox_max.z : rep->bbox_min.z);
        if (!(mc_length(mc_sub(q, c)) < r))
        {
            return false;
        }
    }
    return true;
}

/// True when the ball is clearly apart from the mesh's bounding box (its distance to the box above r by more than
/// rounding). Then no face meets the ball, and the per-face sums are skipped: far from the mesh (the fuzz harness put
/// the ball 2^64 away) the faces' coordinates relative to the centre round to a few points and their solid angles
/// no longer cancel (a unit mesh 1.8e19 away took the whole ball's volume).
static bool ball_misses_box(const mc_mesh* m, mc_vec3 c, double r)
{
    const mc_mesh_report* rep = &m->report;
    double lo[3] = {rep->bbox_min.x, rep->bbox_min.y, rep->bbox_min.z};
    double hi[3] = {rep->bbox_max.x, rep->bbox_max.y, rep->bbox_max.z};
    double p[3] = {c.x, c.y, c.z}, d2 = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        double e = p[k] < lo[k] ? lo[k] - p[k] : (p[k] > hi[k] ? p[k] - hi[k] : 0.0);
        d2 += e * e;
    }
    // Each excess is within an ulp of its value, the sum and the root a few more: 1e-9 relative is far above that.
    return sqrt(d2) > r * (1.0 + 1e-9);
}

/// The mesh's own volume (3 V in vol_x3) and first moment about c, from the tetrahedra (c, triangle); its whole surface
/// is inside the ball, whose vector area is 0.
static void whole_mesh_sums(const mc_mesh* m, mc_vec3 c, ball_sums* sum)
{
    const mc_mesh_report* rep = &m->report;
    mc_vec3 o = mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5); // local origin: the box centre
    double v6 = 0.0;
    mc_vec3 m24 = mc_v3(0, 0, 0);
    for (uint32_t f = 0; f < m->triangle_count; ++f)
    {
        const uint32_t* v = &m->indices[3u * f];
        mc_vec3 a = mc_sub(m->positions[v[0]], o), b = mc_sub(m->positions[v[1]], o), d = mc_sub(m->positions[v[2]], o);
        double det = mc_dot(a, mc_cross(b, d));
        v6 += det;
        m24 = mc_add(m24, mc_scale(mc_add(mc_add(a, b), d), det));
    }
    sum->vol_x3 = 0.5 * v6;
    // First moment about c: about o, then shifted by V (o - c).
    sum->moment = mc_add(mc_scale(m24, 1.0 / 24.0), mc_scale(mc_sub(o, c), v6 / 6.0));
    sum->area = mc_v3(0, 0, 0);
    sum->whole = true;
}

/// The ball (c, r) of mesh m's frame (I: the ball) against mesh m (J); `to_world` is m's pose.
static mc_status sphere_mesh(struct mc_shape_scratch* s, mc_vec3 c, double r, const mc_mesh* m, const mc_pose* to_world,
                             mc_region* g, uint32_t* count)
{
    uint32_t n_cand = 0;
    *count = 0;
    // Coordinates below MC_COORDINATE_SNAP as 0, as mc_mesh_contains_point takes them: the side of each face and the
    // containment below must see the same centre (a centre 1e-310 off a face was outside by one and inside by the
    // other: the ball counted one and a half times, found by the shape harness).
    c = mc_v3(mc_snap_tiny(c.x), mc_snap_tiny(c.y), mc_snap_tiny(c.z));
    if (ball_misses_box(m, c, r))
    {
        return MC_OK; // apart: the ball outside the box is outside the mesh's solid (flipped meshes are refused before)
    }
    mc_status st = mc_bvh_ball_triangles(m, c, r, &s->tris, &s->tri_cap, &n_cand);
    if (st != MC_OK)
    {
        return st;
    }
    if (!planes_through_centre_agree(m, s->tris, n_cand, c, r))
    {
        // The centre exactly on two planes of faces that meet the ball (on an edge or a vertex of the mesh): each
        // face's limit would depend on the direction the centre leaves from. Evaluated with the centre moved by
        // 2^-27 R along a fixed direction instead: the volume changes by about the area inside the ball times that,
        // and the nearly flat pyramids lose about 2^27 ulps; both near 1e-8 relative (measured at a box's edge and
        // corner: 1.7e-8, 2.6e-8).
        c = mc_add(c, mc_scale(mc_v3(1.0, 0.7548776662466927, 0.5698402909980532), 0x1p-27 * r));
        st = mc_bvh_ball_triangles(m, c, r, &s->tris, &s->tri_cap, &n_cand);
        if (st != MC_OK)
        {
            return st;
        }
    }
    ball_sums sum;
    memset(&sum, 0, sizeof sum);
    sum.ref = mc_scale(mc_add(m->report.bbox_min, m->report.bbox_max), 0.5);
    if (mesh_inside_ball(m, c, r))
    {
        // The whole mesh inside the ball: its own solid, summed directly (the pyramid terms, of order R^3 each, would
        // cancel to it with an error of R^3 ulps: a ball of radius 1e12 around a unit tetrahedron gave 2.5e19).
        whole_mesh_sums(m, c, &sum);
    }
    else
    {
        for (uint32_t k = 0; k < n_cand; ++k)
        {
            ball_against_face(m, s->tris[k], c, r, &sum);
        }
    }
    mc_vec3 closest = c;
    double dist = 0.0;
    st = closest_surface_point(s, m, c, r, &closest, &dist);
    if (st != MC_OK)
    {
        return st;
    }
    bool inside = mc_mesh_contains_point(m, c);
    double volume = (inside && !sum.whole ? 4.0 * PI * r * r * r : 0.0) / 3.0 + sum.vol_x3 / 3.0;
    if (!(volume > 0.0) || (!inside && !(dist < r)))
    {
        return MC_OK; // apart (or touching)
    }
    mc_mat33 rot = mc_quat_to_mat33(to_world->q);
    memset(g, 0, sizeof *g);
    g->volume = volume;
    mc_vec3 centroid = mc_add(c, mc_scale(sum.moment, 1.0 / volume));
    if (sum.far_faces > 0)
    {
        // About ref: the quadrature faces' moments, plus the others' (about c) moved by their volume times c - ref.
        double v_c = volume - sum.vol_ref_x3 / 3.0;
        mc_vec3 m_ref = mc_add(mc_add(sum.moment, mc_scale(mc_sub(c, sum.ref), v_c)), sum.moment_ref);
        centroid = mc_add(sum.ref, mc_scale(m_ref, 1.0 / volume));
    }
    g->centroid = mc_add(to_world->p, mc_mat33_mul_vec(&rot, centroid));
    mc_vec3 sj = mc_mat33_mul_vec(&rot, sum.area);
    g->area = mc_length_scaled(sj); // its square underflows for a tiny contact (fuzz_shapes)
    g->radius = sqrt(g->area / PI);
    g->normal = g->area > 0.0 ? mc_scale(mc_normalize(sj), -1.0) : mc_v3(0, 0, 0);
    g->s_i = mc_scale(sj, -1.0);
    g->s_j = sj;
    // Depth: R - distance from the centre to the surface (R + distance when the centre is inside the mesh).
    mc_vec3 u = dist > 0.0 ? mc_scale(mc_sub(closest, c), 1.0 / dist) : mc_v3(0, 0, 0);
    mc_vec3 deepest = inside ? mc_sub(c, mc_scale(u, r)) : mc_add(c, mc_scale(u, r));
    g->depth = inside ? r + dist : r - dist;
    g->point_i = mc_add(to_world->p, mc_mat33_mul_vec(&rot, deepest));
    g->point_j = mc_add(to_world->p, mc_mat33_mul_vec(&rot, closest));
    g->crossings = 0;
    g->inside_vertices = 0;
    *count = 1;
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Parallel cylinders

/// A circular segment of a circle of radius r cut by a chord at distance x from the centre (the far side), with
/// half-chord a (given accurately): area and the distance of its centroid from the centre.
static double circle_segment(double r, double x, double a, double* centroid)
{
    double theta = atan2(a, x);
    double area = r * r * mc_segment_shape(theta);
    *centroid = area > 0.0 ? 2.0 * a * a * a / (3.0 * area) : r;
    return area;
}

/// Lens of circles (0, r1) and (d u, r2) in the plane: area and the distance of its centroid from the first centre
/// along u; *half_chord receives half the common chord (0 when one circle holds the other).
static double circle_lens(double r1, double r2, double d, double* centroid, double* half_chord)
{
    *half_chord = 0.0;
    if (d + r1 <= r2)
    {
        *centroid = 0.0;
        return PI * r1 * r1;
    }
    if (d + r2 <= r1)
    {
        *centroid = d;
        return PI * r2 * r2;
    }
    double a = sqrt(meeting_circle(r1, r2, d));
    double x = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    double g1 = 0.0, g2 = 0.0;
    double s1 = circle_segment(r1, x, a, &g1), s2 = circle_segment(r2, d - x, a, &g2);
    *half_chord = a;
    *centroid = (s1 * g1 + s2 * (d - g2)) / (s1 + s2);
    return s1 + s2;
}

/// Cylinder I (radius r1, length l1, frame of I) against cylinder J, parallel, J's centre at (x, y, z) in I's frame:
/// external, or a pin (I) in a hole (J flipped). Region in I's frame (`to_world`: I's pose).
static uint32_t cylinders(double r1, double l1, double r2, double l2, bool hole, mc_vec3 cj, const mc_pose* to_world,
                          mc_region* g)
{
    double zlo = fmax(-0.5 * l1, cj.z - 0.5 * l2), zhi = fmin(0.5 * l1, cj.z + 0.5 * l2), len = zhi - zlo;
    double d = sqrt(cj.x * cj.x + cj.y * cj.y);
    if (!(len > 0.0) || (!hole && !(d < r1 + r2)) || (hole && !(d + r1 > r2)))
    {
        return 0;
    }
    mc_vec3 u = d > 0.0 ? mc_v3(cj.x / d, cj.y / d, 0.0) : mc_v3(1, 0, 0);
    double xg = 0.0, half_chord = 0.0;
    double lens = circle_lens(r1, r2, d, &xg, &half_chord);
    double cross = hole ? PI * r1 * r1 - lens : lens;                    // I's section inside J
    double xc = hole ? (cross > 0.0 ? -lens * xg / cross : 0.0) : xg;    // its centroid along u
    mc_vec3 side = mc_scale(u, (hole ? -2.0 : 2.0) * half_chord * len);  // I's side inside J
    bool top = 0.5 * l1 > cj.z - 0.5 * l2 && 0.5 * l1 < cj.z + 0.5 * l2; // I's end faces inside J's length
    bool bottom = -0.5 * l1 > cj.z - 0.5 * l2 && -0.5 * l1 < cj.z + 0.5 * l2;
    mc_vec3 si = mc_add(side, mc_v3(0, 0, cross * ((top ? 1.0 : 0.0) - (bottom ? 1.0 : 0.0))));
    double radial = hole ? d + r1 - r2 : r1 + r2 - d;
    mc_mat33 rot = mc_quat_to_mat33(to_world->q);
    memset(g, 0, sizeof *g);
    g->volume = cross * len;
    if (!(g->volume > 0.0))
    {
        return 0;
    }
    mc_vec3 local_c = mc_add(mc_scale(u, xc), mc_v3(0, 0, 0.5 * (zlo + zhi)));
    g->centroid = mc_add(to_world->p, mc_mat33_mul_vec(&rot, local_c));
    mc_vec3 swi = mc_mat33_mul_vec(&rot, si);
    g->area = mc_length_scaled(swi); // its square underflows for a tiny contact (fuzz_shapes)
    g->radius = sqrt(g->area / PI);
    g->normal = g->area > 0.0 ? mc_normalize(swi) : mc_v3(0, 0, 0);
    g->s_i = swi;
    g->s_j = mc_scale(swi, -1.0);
    // Depth: the radial penetration, or the axial overlap when that is smaller (discs stacked end to end).
    mc_vec3 mid = mc_v3(0, 0, 0.5 * (zlo + zhi));
    mc_vec3 pi_, pj;
    if (radial <= len)
    {
        g->depth = radial;
        pi_ = mc_add(mid, mc_scale(u, hole ? -r1 : r1));
        pj = mc_add(mid, mc_scale(u, d - r2)); // J's surface along u (the wall behind the pin, for a hole)
    }
    else
    {
        g->depth = len;
        pi_ = mc_add(mc_scale(u, xc), mc_v3(0, 0, zlo));
        pj = mc_add(mc_scale(u, xc), mc_v3(0, 0, zhi));
    }
    g->point_i = mc_add(to_world->p, mc_mat33_mul_vec(&rot, pi_));
    g->point_j = mc_add(to_world->p, mc_mat33_mul_vec(&rot, pj));
    return 1;
}

// ---------------------------------------------------------------------------------------------------------------
// Dispatch

/// Mirror regions computed with I and J swapped.
static void mirror(mc_region* regions, uint32_t n)
{
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_region* g = &regions[k];
        g->normal = mc_scale(g->normal, -1.0);
        mc_vec3 t = g->s_i;
        g->s_i = g->s_j;
        g->s_j = t;
        t = g->point_i;
        g->point_i = g->point_j;
        g->point_j = t;
    }
}

static bool shape_valid(const mc_shape* s)
{
    switch (s->type)
    {
    case MC_SHAPE_MESH:
        return s->mesh != NULL;
    case MC_SHAPE_SPHERE:
        return isfinite(s->radius) && s->radius > 0.0 && s->radius <= MC_COORDINATE_MAX;
    case MC_SHAPE_PLANE:
        return true;
    case MC_SHAPE_CYLINDER:
        return isfinite(s->radius) && s->radius > 0.0 && s->radius <= MC_COORDINATE_MAX && isfinite(s->length) &&
               s->length > 0.0 && s->length <= MC_COORDINATE_MAX;
    }
    return false;
}

static bool unbounded(const mc_shape* s)
{
    return s->type == MC_SHAPE_PLANE || ((s->type == MC_SHAPE_SPHERE || s->type == MC_SHAPE_CYLINDER) && s->flip) ||
           (s->type == MC_SHAPE_MESH && mc_mesh_get_report(s->mesh)->flipped);
}

/// Point p (world) in the frame of `pose`.
static mc_vec3 to_local(const mc_pose* pose, mc_vec3 p)
{
    return mc_quat_rotate(mc_quat_conj(pose->q), mc_sub(p, pose->p));
}

/// Whether two solids of one kind (balls, cylinders) are computed the other way round: one canonical order (a hole
/// or socket always second, else the smaller radius, then the shorter length, then the position first), so that a
/// pair gives bitwise mirrored regions either way round.
static bool canonical_turn(const mc_shape* a, const mc_pose* pa, const mc_shape* b, const mc_pose* pb)
{
    if (a->flip || b->flip)
    {
        return a->flip;
    }
    if (b->radius != a->radius)
    {
        return b->radius < a->radius;
    }
    if (b->length != a->length)
    {
        return b->length < a->length;
    }
    return memcmp(&pb->p, &pa->p, sizeof pa->p) < 0;
}

/// Store a single region computed as (I, J) (`mirrored`: computed as (J, I)) and give the capacity status.
static mc_status put_one(mc_region* one, uint32_t n, bool mirrored, mc_region* regions, uint32_t capacity,
                         uint32_t* count)
{
    *count = n;
    if (n == 1 && mirrored)
    {
        mirror(one, 1);
    }
    if (n == 1 && capacity >= 1)
    {
        regions[0] = *one;
    }
    return n > capacity ? MC_ERR_CAPACITY : MC_OK;
}

/// The workspace's shape scratch, created on first use (NULL when out of memory).
static struct mc_shape_scratch* shape_scratch(mc_workspace* ws)
{
    if (ws->shapes == NULL)
    {
        ws->shapes = mc_calloc(1, sizeof *ws->shapes);
    }
    return ws->shapes;
}

/// The ordered pair (a, b) with a's kind <= b's kind (mesh < sphere < plane < cylinder): regions in that order,
/// mirrored by the caller when it swapped.
static mc_status ordered_pair(const mc_shape* a, const mc_pose* pa, const mc_shape* b, const mc_pose* pb,
                              const mc_query_options* opt, mc_workspace* ws, mc_region* regions, uint32_t capacity,
                              uint32_t* count, mc_query_stats* stats)
{
    mc_region one;
    memset(&one, 0, sizeof one);
    *count = 0;
    if (a->type == MC_SHAPE_MESH && b->type == MC_SHAPE_MESH)
    {
        return mc_query_regions(a->mesh, pa, b->mesh, pb, opt, ws, regions, capacity, count, stats);
    }
    if (b->type == MC_SHAPE_CYLINDER)
    {
        if (a->type == MC_SHAPE_PLANE && !b->flip) // computed as (cylinder, plane), then mirrored
        {
            mc_vec3 n = mc_normalize(mc_quat_rotate(mc_quat_conj(pb->q), mc_quat_rotate(pa->q, mc_v3(0, 0, 1))));
            uint32_t n_reg = mc_cylinder_plane(b->radius, b->length, n, to_local(pb, pa->p), pb, &one);
            return put_one(&one, n_reg, true, regions, capacity, count);
        }
        if (a->type == MC_SHAPE_MESH) // computed as (cylinder, mesh), then mirrored
        {
            if (b->flip || mc_mesh_get_report(a->mesh)->flipped)
            {
                return MC_ERR_UNSUPPORTED; // a hole against a mesh, a cylinder against a flipped mesh: not yet
            }
            if (shape_scratch(ws) == NULL)
            {
                return MC_ERR_OUT_OF_MEMORY;
            }
            uint32_t n = 0;
            mc_status st = mc_cylinder_mesh(b->radius, b->length, pb, a->mesh, pa, &ws->shapes->tris,
                                            &ws->shapes->tri_cap, &one, &n);
            return st != MC_OK ? st : put_one(&one, n, true, regions, capacity, count);
        }
        if (a->type == MC_SHAPE_SPHERE) // computed as (cylinder, ball), then mirrored
        {
            if (a->flip || b->flip)
            {
                return MC_ERR_UNSUPPORTED; // a socket or a hole: not yet
            }
            uint32_t n = mc_cylinder_sphere(b->radius, b->length, pb, pa->p, a->radius, &one);
            return put_one(&one, n, true, regions, capacity, count);
        }
        // Cylinders: parallel axes only; the pin (the solid one) as I when one is a hole.
        mc_vec3 axis_a = mc_quat_rotate(pa->q, mc_v3(0, 0, 1)), axis_b = mc_quat_rotate(pb->q, mc_v3(0, 0, 1));
        if (a->type != MC_SHAPE_CYLINDER || mc_length(mc_cross(axis_a, axis_b)) > 1e-12)
        {
            return MC_ERR_UNSUPPORTED;
        }
        bool turn = canonical_turn(a, pa, b, pb);
        const mc_shape* s1 = turn ? b : a;
        const mc_shape* s2 = turn ? a : b;
        const mc_pose* p1 = turn ? pb : pa;
        const mc_pose* p2 = turn ? pa : pb;
        uint32_t n = cylinders(s1->radius, s1->length, s2->radius, s2->length, s2->flip, to_local(p1, p2->p), p1, &one);
        return put_one(&one, n, turn, regions, capacity, count);
    }
    if (a->type == MC_SHAPE_MESH && b->type == MC_SHAPE_SPHERE)
    {
        if (b->flip || mc_mesh_get_report(a->mesh)->flipped)
        {
            return MC_ERR_UNSUPPORTED; // a socket against a mesh, a ball against a flipped mesh: not yet
        }
        if (shape_scratch(ws) == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        // Computed as (ball, mesh), then mirrored to (mesh, ball).
        uint32_t n = 0;
        mc_status st = sphere_mesh(ws->shapes, to_local(pa, pb->p), b->radius, a->mesh, pa, &one, &n);
        return st != MC_OK ? st : put_one(&one, n, true, regions, capacity, count);
    }
    if (a->type == MC_SHAPE_MESH) // against a plane: the plane's normal and offset in the mesh's frame
    {
        if (shape_scratch(ws) == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        mc_vec3 n = mc_quat_rotate(mc_quat_conj(pa->q), mc_quat_rotate(pb->q, mc_v3(0, 0, 1)));
        n = mc_normalize(n);
        mc_vec3 o = to_local(pa, pb->p);
        return mesh_plane(ws->shapes, a->mesh, n, -mc_dot(n, o), pa, regions, capacity, count);
    }
    if (b->type == MC_SHAPE_SPHERE) // sphere, sphere (a ball and a socket always as (ball, socket))
    {
        bool turn = canonical_turn(a, pa, b, pb);
        const mc_shape* s1 = turn ? b : a;
        const mc_shape* s2 = turn ? a : b;
        const mc_pose* p1 = turn ? pb : pa;
        const mc_pose* p2 = turn ? pa : pb;
        uint32_t n = s2->flip ? sphere_socket(p1->p, s1->radius, p2->p, s2->radius, &one)
                              : sphere_sphere(p1->p, s1->radius, p2->p, s2->radius, &one);
        return put_one(&one, n, turn, regions, capacity, count);
    }
    // sphere, plane
    mc_mat33 rot = mc_quat_to_mat33(pb->q);
    uint32_t n = sphere_plane(a->radius, to_local(pb, pa->p), &rot, pb->p, &one);
    return put_one(&one, n, false, regions, capacity, count);
}

static bool region_finite(const mc_region* g)
{
    double sum = g->volume + g->area + g->radius + g->depth + g->centroid.x + g->centroid.y + g->centroid.z +
                 g->normal.x + g->normal.y + g->normal.z + g->point_i.x + g->point_i.y + g->point_i.z + g->point_j.x +
                 g->point_j.y + g->point_j.z + g->s_i.x + g->s_i.y + g->s_i.z + g->s_j.x + g->s_j.y + g->s_j.z;
    return isfinite(sum);
}

mc_status mc_query_shape_regions(const mc_shape* shape_i, const mc_pose* pose_i, const mc_shape* shape_j,
                                 const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                 mc_region* regions, uint32_t capacity, uint32_t* region_count, mc_query_stats* stats)
{
    if (shape_i == NULL || shape_j == NULL || pose_i == NULL || pose_j == NULL || ws == NULL || region_count == NULL ||
        (regions == NULL && capacity > 0) || !shape_valid(shape_i) || !shape_valid(shape_j) ||
        !mc_pose_is_valid(pose_i) || !mc_pose_is_valid(pose_j))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    *region_count = 0;
    if (stats != NULL)
    {
        memset(stats, 0, sizeof *stats);
    }
    if (unbounded(shape_i) && unbounded(shape_j))
    {
        return MC_ERR_UNBOUNDED;
    }
    mc_pose pi = *pose_i, pj = *pose_j;
    pi.q = mc_quat_normalize(pi.q);
    pj.q = mc_quat_normalize(pj.q);
    bool swap = shape_i->type > shape_j->type;
    mc_status st = swap ? ordered_pair(shape_j, &pj, shape_i, &pi, options, ws, regions, capacity, region_count, stats)
                        : ordered_pair(shape_i, &pi, shape_j, &pj, options, ws, regions, capacity, region_count, stats);
    uint32_t written = *region_count < capacity ? *region_count : capacity;
    if (st != MC_OK && st != MC_ERR_CAPACITY)
    {
        return st;
    }
    if (swap)
    {
        mirror(regions, written);
    }
    for (uint32_t k = 0; k < written; ++k)
    {
        if (!region_finite(&regions[k]))
        {
            memset(regions, 0, (size_t)written * sizeof *regions);
            *region_count = 0;
            return MC_ERR_OUT_OF_RANGE;
        }
    }
    if (stats != NULL && !(shape_i->type == MC_SHAPE_MESH && shape_j->type == MC_SHAPE_MESH))
    {
        stats->regions = *region_count;
        stats->threads = 1;
    }
    return st;
}

/// Is a shape of this kind and flip an unbounded solid?
static bool kind_unbounded(mc_shape_type type, bool flip)
{
    return type == MC_SHAPE_PLANE || flip;
}

mc_status mc_shape_pair_support(mc_shape_type type_a, bool flip_a, mc_shape_type type_b, bool flip_b,
                                bool* parallel_only)
{
    if (parallel_only != NULL)
    {
        *parallel_only = false;
    }
    if ((unsigned)type_a > (unsigned)MC_SHAPE_CYLINDER || (unsigned)type_b > (unsigned)MC_SHAPE_CYLINDER)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    flip_a = flip_a && type_a != MC_SHAPE_PLANE;
    flip_b = flip_b && type_b != MC_SHAPE_PLANE;
    if (kind_unbounded(type_a, flip_a) && kind_unbounded(type_b, flip_b))
    {
        return MC_ERR_UNBOUNDED;
    }
    // The rules of ordered_pair, with the kinds ordered mesh < sphere < plane < cylinder.
    bool swap = type_a > type_b;
    mc_shape_type lo = swap ? type_b : type_a, hi = swap ? type_a : type_b;
    bool flip_lo = swap ? flip_b : flip_a, flip_hi = swap ? flip_a : flip_b;
    if (hi == MC_SHAPE_CYLINDER)
    {
        if (lo == MC_SHAPE_PLANE)
        {
            return MC_OK; // a hole against a plane is two unbounded solids (above)
        }
        if (lo == MC_SHAPE_CYLINDER)
        {
            if (parallel_only != NULL)
            {
                *parallel_only = true;
            }
            return MC_OK;
        }
        // A cylinder against a mesh or a ball; not a hole, nor against a flipped mesh or a socket.
        return flip_lo || flip_hi ? MC_ERR_UNSUPPORTED : MC_OK;
    }
    if (lo == MC_SHAPE_MESH && hi == MC_SHAPE_SPHERE && (flip_lo || flip_hi))
    {
        return MC_ERR_UNSUPPORTED; // a socket against a mesh, a ball against a flipped mesh
    }
    return MC_OK;
}
