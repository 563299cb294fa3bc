// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The region query between shapes (include/meshcontact/shape.h): closed forms for sphere-plane and sphere-sphere, an
// exact polyhedral clip for a mesh against a plane, mc_query_regions for two meshes.
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
#include "src/base/union_find.h"
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

/// The point where edge (a, b) with heights ha < 0 <= hb (or the reverse) meets the plane, computed from the
/// lexicographically smaller end so that both triangles of the edge get bitwise the same point.
static mc_vec3 cut_point(mc_vec3 a, double ha, mc_vec3 b, double hb)
{
    bool swap = b.x < a.x || (b.x == a.x && (b.y < a.y || (b.y == a.y && b.z < a.z)));
    if (swap)
    {
        mc_vec3 t = a;
        a = b;
        b = t;
        double th = ha;
        ha = hb;
        hb = th;
    }
    double t = ha / (ha - hb);
    return mc_add(a, mc_scale(mc_sub(b, a), t));
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
    mc_vec3 x1 = cut_point(p[k], h[k], p[k1], h[k1]), x2 = cut_point(p[k], h[k], p[k2], h[k2]);
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
    // One sums record per set, numbered in order of the sets' smallest slots.
    uint32_t nreg = 0;
    for (uint32_t k = 0; k < kept; ++k)
    {
        uint32_t r = mc_uf_find(s->parent, k);
        s->root_region[k] = r == k ? nreg++ : MC_NONE;
    }
    if (!mc_array_reserve((void**)&s->sums, &s->sums_cap, nreg, sizeof *s->sums, 8))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    clip_sums* sums = s->sums;
    memset(sums, 0, (size_t)nreg * sizeof *sums);
    for (uint32_t k = 0; k < kept; ++k) // slots in increasing order: a region's first visit is its smallest slot
    {
        clip_sums* r = &sums[s->root_region[mc_uf_find(s->parent, k)]];
        uint32_t f = s->tris[k];
        mc_vec3 p[3];
        double h[3];
        heights(m, f, n, d, p, h);
        if (!r->init)
        {
            int lowest = h[0] <= h[1] && h[0] <= h[2] ? 0 : (h[1] <= h[2] ? 1 : 2);
            r->origin = mc_sub(p[lowest], mc_scale(n, h[lowest])); // on the plane (up to rounding)
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
        g->area = mc_length(si);
        g->radius = sqrt(g->area / PI);
        g->normal = g->area > 0.0 ? mc_scale(si, 1.0 / g->area) : mc_v3(0, 0, 0);
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
    }
    return false;
}

static bool unbounded(const mc_shape* s)
{
    return s->type == MC_SHAPE_PLANE || (s->type == MC_SHAPE_SPHERE && s->flip) ||
           (s->type == MC_SHAPE_MESH && mc_mesh_get_report(s->mesh)->flipped);
}

/// Point p (world) in the frame of `pose`.
static mc_vec3 to_local(const mc_pose* pose, mc_vec3 p)
{
    return mc_quat_rotate(mc_quat_conj(pose->q), mc_sub(p, pose->p));
}

/// The ordered pair (a, b) with a's kind <= b's kind (mesh < sphere < plane): regions in that order, mirrored by the
/// caller when it swapped.
static mc_status ordered_pair(const mc_shape* a, const mc_pose* pa, const mc_shape* b, const mc_pose* pb,
                              const mc_query_options* opt, mc_workspace* ws, mc_region* regions, uint32_t capacity,
                              uint32_t* count, mc_query_stats* stats)
{
    mc_region one;
    *count = 0;
    if (a->type == MC_SHAPE_MESH && b->type == MC_SHAPE_MESH)
    {
        return mc_query_regions(a->mesh, pa, b->mesh, pb, opt, ws, regions, capacity, count, stats);
    }
    if (a->type == MC_SHAPE_MESH && b->type == MC_SHAPE_SPHERE)
    {
        return MC_ERR_UNSUPPORTED;
    }
    if (a->type == MC_SHAPE_MESH) // against a plane: the plane's normal and offset in the mesh's frame
    {
        if (ws->shapes == NULL && (ws->shapes = mc_calloc(1, sizeof *ws->shapes)) == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        mc_vec3 n = mc_quat_rotate(mc_quat_conj(pa->q), mc_quat_rotate(pb->q, mc_v3(0, 0, 1)));
        n = mc_normalize(n);
        mc_vec3 o = to_local(pa, pb->p);
        return mesh_plane(ws->shapes, a->mesh, n, -mc_dot(n, o), pa, regions, capacity, count);
    }
    if (b->type == MC_SHAPE_SPHERE) // sphere, sphere
    {
        // Two balls are computed in one canonical order (smaller radius first, then position), so that the pair
        // gives bitwise mirrored regions either way round; a ball and a socket always as (ball, socket).
        bool turn = a->flip || (!b->flip && (b->radius < a->radius ||
                                             (b->radius == a->radius && memcmp(&pb->p, &pa->p, sizeof pa->p) < 0)));
        const mc_shape* s1 = turn ? b : a;
        const mc_shape* s2 = turn ? a : b;
        const mc_pose* p1 = turn ? pb : pa;
        const mc_pose* p2 = turn ? pa : pb;
        uint32_t n = s2->flip ? sphere_socket(p1->p, s1->radius, p2->p, s2->radius, &one)
                              : sphere_sphere(p1->p, s1->radius, p2->p, s2->radius, &one);
        if (n == 1 && turn)
        {
            mirror(&one, 1);
        }
        *count = n;
    }
    else // sphere, plane
    {
        mc_mat33 rot = mc_quat_to_mat33(pb->q);
        *count = sphere_plane(a->radius, to_local(pb, pa->p), &rot, pb->p, &one);
    }
    if (*count == 1 && capacity >= 1)
    {
        regions[0] = one;
    }
    return *count > capacity ? MC_ERR_CAPACITY : MC_OK;
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
