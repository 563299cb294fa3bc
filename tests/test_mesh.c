// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of mesh creation from arrays: welding, checks, zero-area triangle repair, reorientation, flip, topology.
#include "mesh/mesh_internal.h"
#include "mesh/soup.h"
#include "meshcontact/meshcontact.h"
#include "src/base/core.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Cube [-1, 1]^3, outward counter-clockwise triangles.
static const double s_cube_pos[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                        {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
static const uint32_t s_cube_tri[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                           {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};

static void check_leaks(void)
{
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    mc_set_assert_fcn(NULL);
}

TestSuite(mesh, .fini = check_leaks);

static mc_mesh_def cube_def(void)
{
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &s_cube_pos[0][0];
    d.vertex_count = 8;
    d.indices = &s_cube_tri[0][0];
    d.triangle_count = 12;
    return d;
}

// Topology invariants every created mesh must satisfy (independent re-derivation from indices).
static void check_topology(const mc_mesh* m)
{
    for (uint32_t h = 0; h < 3 * m->triangle_count; ++h)
    {
        uint32_t t = m->twin[h];
        cr_assert(ne(u32, t, MC_NONE));
        cr_assert(eq(u32, m->twin[t], h));
        uint32_t u = m->indices[h], v = m->indices[3 * MC_HE_TRI(h) + (MC_HE_LOCAL(h) + 1) % 3];
        uint32_t tu = m->indices[t], tv = m->indices[3 * MC_HE_TRI(t) + (MC_HE_LOCAL(t) + 1) % 3];
        cr_assert(eq(u32, u, tv));
        cr_assert(eq(u32, v, tu));
    }
    for (uint32_t v = 0; v < m->vertex_count; ++v)
    {
        uint32_t h = m->vertex_halfedge[v];
        cr_assert(lt(u32, h, 3 * m->triangle_count));
        cr_assert(eq(u32, m->indices[h], v));
        cr_assert(lt(u32, m->vertex_component[v], m->component_count));
    }
    for (uint32_t c = 0; c < m->component_count; ++c)
    {
        cr_assert(eq(u32, m->vertex_component[m->component_vertex[c]], c));
    }
    for (uint32_t t = 0; t < m->triangle_count; ++t)
    {
        mc_vec3 a = m->positions[m->indices[3 * t]], b = m->positions[m->indices[3 * t + 1]],
                c = m->positions[m->indices[3 * t + 2]];
        mc_vec3 n = mc_cross(mc_sub(b, a), mc_sub(c, a));
        // unit normals: 1e-14 is a few ulps of the normalisation
        cr_assert(epsilon_eq(dbl, mc_length(m->face_normals[t]), 1.0, 1e-14));
        cr_assert(gt(dbl, mc_dot(n, m->face_normals[t]), 0.0));
    }
    cr_assert(ne(ptr, m->bvh, NULL));
}

Test(mesh, cube_is_closed_oriented_and_measured)
{
    mc_mesh_def d = cube_def();
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(r.closed && r.manifold && r.oriented && r.contact_ready && !r.reoriented && !r.flipped);
    cr_assert(eq(u32, r.triangles, 12));
    cr_assert(eq(u32, r.vertices, 8));
    cr_assert(eq(u32, r.components, 1));
    // exact arithmetic on small integers: the sums are exact
    cr_assert(eq(dbl, r.volume, 8.0));
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
    cr_assert(eq(dbl, r.area, 24.0));
    cr_assert(eq(dbl, r.bbox_min.x, -1.0));
    cr_assert(eq(dbl, r.bbox_max.z, 1.0));
    check_topology(m);
    // outward: the normal of every face points away from the centre
    for (uint32_t t = 0; t < m->triangle_count; ++t)
    {
        cr_assert(gt(dbl, mc_dot(m->face_normals[t], m->positions[m->indices[3 * t]]), 0.0));
    }
    cr_assert(eq(u32, m->component_count, 1));
    cr_assert(gt(sz, mc_mesh_get_byte_count(m), 0));
    mc_mesh_destroy(m);
}

Test(mesh, scale_multiplies_coordinates)
{
    mc_mesh_def d = cube_def();
    d.scale = 0.001;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    // 0.002^3: a few roundings of the products
    cr_assert(ieee_ulp_eq(dbl, r.volume, 8e-9, 8));
    cr_assert(eq(dbl, m->positions[0].x, -0.001));
    cr_assert(eq(dbl, r.scale, 0.001));
    cr_assert(eq(dbl, m->scale, 0.001));
    mc_mesh_destroy(m);
}

Test(mesh, triangle_soup_is_welded_exactly)
{
    double soup[36][3];
    uint32_t idx[36];
    for (int t = 0; t < 12; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            memcpy(soup[3 * t + k], s_cube_pos[s_cube_tri[t][k]], sizeof soup[0]);
            idx[3 * t + k] = (uint32_t)(3 * t + k);
        }
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &soup[0][0];
    d.vertex_count = 36;
    d.indices = idx;
    d.triangle_count = 12;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(u32, r.input_vertices, 36));
    cr_assert(eq(u32, r.vertices, 8));
    cr_assert(eq(u32, r.welded_vertices, 28));
    cr_assert(eq(u32, m->vertex_count, 8));
    cr_assert(r.closed);
    check_topology(m);
    mc_mesh_destroy(m);
}

Test(mesh, negative_zero_welds_with_zero)
{
    // Octahedron with one vertex given as -0.
    double p[7][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {-0.0, 0, 1}};
    uint32_t t[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 6}, {3, 0, 6}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 7;
    d.indices = &t[0][0];
    d.triangle_count = 8;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(u32, r.vertices, 6));
    cr_assert(r.closed);
    // octahedron volume 4/3; small integers, at most a few roundings
    cr_assert(ieee_ulp_eq(dbl, r.volume, 4.0 / 3.0, 4));
    mc_mesh_destroy(m);
}

Test(mesh, weld_tolerance_merges_near_vertices)
{
    double p[9][3];
    memcpy(p, s_cube_pos, sizeof s_cube_pos);
    p[8][0] = 1 + 1e-9; // a near copy of vertex 6 used by two triangles
    p[8][1] = 1;
    p[8][2] = 1;
    uint32_t t[12][3];
    memcpy(t, s_cube_tri, sizeof t);
    t[2][2] = 8; // {4, 5, 6} -> {4, 5, 8}
    t[3][1] = 8; // {4, 6, 7} -> {4, 8, 7}
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 9;
    d.indices = &t[0][0];
    d.triangle_count = 12;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(eq(ptr, m, NULL));
    cr_assert(r.closed == false);
    cr_assert(eq(u32, r.boundary_edges, 4)); // 6-5, 7-6 on the sides vs 5-8, 8-7 on top
    cr_assert(eq(u32, r.vertices, 9));
    // tolerance 1e-9 * diagonal 3.46 = 3.5e-9 > 1e-9: merged; 1e-10 * 3.46 = 3.5e-10 < 1e-9: not merged
    d.weld_tolerance = 1e-9;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(u32, r.vertices, 8));
    cr_assert(eq(u32, r.welded_vertices, 1));
    cr_assert(r.closed && r.contact_ready);
    check_topology(m);
    mc_mesh_destroy(m);
    d.weld_tolerance = 1e-10;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_MESH_NOT_CLOSED));
    d.weld_tolerance = 1e-300;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_INVALID_ARGUMENT));
}

Test(mesh, inward_cube_is_reoriented)
{
    uint32_t t[12][3];
    for (int i = 0; i < 12; ++i)
    {
        t[i][0] = s_cube_tri[i][0];
        t[i][1] = s_cube_tri[i][2];
        t[i][2] = s_cube_tri[i][1];
    }
    mc_mesh_def d = cube_def();
    d.indices = &t[0][0];
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(r.reoriented);
    cr_assert(eq(dbl, r.signed_volume_as_read, -8.0));
    cr_assert(eq(dbl, r.volume, 8.0));
    check_topology(m);
    for (uint32_t i = 0; i < m->triangle_count; ++i)
    {
        cr_assert(gt(dbl, mc_dot(m->face_normals[i], m->positions[m->indices[3 * i]]), 0.0));
    }
    cr_assert(m->report.reoriented);
    mc_mesh_destroy(m);
}

Test(mesh, flip_flag_reverses_after_reorientation)
{
    for (int inward = 0; inward < 2; ++inward)
    {
        uint32_t t[12][3];
        for (int i = 0; i < 12; ++i)
        {
            t[i][0] = s_cube_tri[i][0];
            t[i][1] = s_cube_tri[i][inward ? 2 : 1];
            t[i][2] = s_cube_tri[i][inward ? 1 : 2];
        }
        mc_mesh_def d = cube_def();
        d.indices = &t[0][0];
        d.flip = true;
        mc_mesh* m = NULL;
        mc_mesh_report r;
        cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
        cr_assert(eq(int, r.reoriented, inward));
        cr_assert(r.flipped && m->flipped);
        cr_assert(eq(dbl, r.volume, 8.0));
        check_topology(m);
        // flipped: every normal points towards the centre
        for (uint32_t i = 0; i < m->triangle_count; ++i)
        {
            cr_assert(lt(dbl, mc_dot(m->face_normals[i], m->positions[m->indices[3 * i]]), 0.0));
        }
        mc_mesh_destroy(m);
    }
}

Test(mesh, open_mesh_fails_with_full_report_unless_allowed)
{
    mc_mesh_def d = cube_def();
    d.triangle_count = 11;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(eq(ptr, m, NULL));
    cr_assert(eq(int, e.status, MC_ERR_MESH_NOT_CLOSED));
    cr_assert(eq(u32, r.boundary_edges, 3));
    cr_assert(eq(u32, r.input_triangles, 11));
    cr_assert(r.closed == false && r.oriented && r.manifold && r.contact_ready == false);
    cr_assert(eq(dbl, r.area, 22.0));
    d.require_closed = false;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK));
    cr_assert(eq(u32, m->triangle_count, 11));
    uint32_t none = 0;
    for (uint32_t h = 0; h < 33; ++h)
    {
        none += m->twin[h] == MC_NONE;
    }
    cr_assert(eq(u32, none, 3));
    mc_mesh_destroy(m);
}

Test(mesh, nonmanifold_and_misoriented_edges_are_counted)
{
    // Cube plus a second copy of one triangle: edges 0-2, 2-1, 1-0 used three times, each in one direction twice.
    uint32_t t[13][3];
    memcpy(t, s_cube_tri, sizeof s_cube_tri);
    memcpy(t[12], s_cube_tri[0], sizeof t[12]);
    mc_mesh_def d = cube_def();
    d.indices = &t[0][0];
    d.triangle_count = 13;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(eq(u32, r.nonmanifold_edges, 3));
    cr_assert(eq(u32, r.misoriented_edges, 3));
    cr_assert(eq(u32, r.boundary_edges, 0));
    cr_assert(r.closed == false && r.manifold == false && r.oriented == false);
}

Test(mesh, pinched_vertex_is_not_manifold)
{
    // Two tetrahedra sharing only vertex 0.
    double p[7][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    uint32_t t[8][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}, {0, 5, 4}, {0, 4, 6}, {0, 6, 5}, {4, 5, 6}};
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 7;
    d.indices = &t[0][0];
    d.triangle_count = 8;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(r.closed && r.oriented && !r.manifold);
    cr_assert(eq(u32, r.pinched_vertices, 1));
    cr_assert(eq(u32, r.components, 1));
}

Test(mesh, disjoint_cubes_make_two_components)
{
    double p[16][3];
    uint32_t t[24][3];
    for (int i = 0; i < 8; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            p[i][k] = s_cube_pos[i][k];
            p[i + 8][k] = s_cube_pos[i][k] + (k == 0 ? 5.0 : 0.0);
        }
    }
    for (int i = 0; i < 12; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            t[i][k] = s_cube_tri[i][k];
            t[i + 12][k] = s_cube_tri[i][k] + 8;
        }
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 16;
    d.indices = &t[0][0];
    d.triangle_count = 24;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(u32, r.components, 2));
    cr_assert(eq(u32, m->component_count, 2));
    cr_assert(eq(dbl, r.volume, 16.0));
    check_topology(m);
    cr_assert(ne(u32, m->vertex_component[m->component_vertex[0]], m->vertex_component[m->component_vertex[1]]));
    mc_mesh_destroy(m);
}

// Split edge (u, v) of a closed mesh at its midpoint m, leaving a T-junction closed by the zero-area triangle
// (u, v, m); the repair must remove it and split the neighbour, keeping the mesh closed and the volume.
Test(mesh, collinear_degenerate_is_repaired_keeping_closedness_and_volume)
{
    double p[9][3];
    memcpy(p, s_cube_pos, sizeof s_cube_pos);
    // edge 4 -> 5 of triangle {4, 5, 6}: midpoint 8
    p[8][0] = 0, p[8][1] = -1, p[8][2] = 1;
    uint32_t t[14][3];
    memcpy(t, s_cube_tri, sizeof s_cube_tri);
    // {4, 5, 6} -> {4, 8, 6} + {8, 5, 6}
    t[2][0] = 4, t[2][1] = 8, t[2][2] = 6;
    t[12][0] = 8, t[12][1] = 5, t[12][2] = 6;
    t[13][0] = 4, t[13][1] = 5, t[13][2] = 8; // zero-area, edges 4->5, 5->8, 8->4
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 9;
    d.indices = &t[0][0];
    d.triangle_count = 14;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(r.closed && r.oriented && r.contact_ready);
    cr_assert(eq(u32, r.degenerate_triangles, 1));
    cr_assert(eq(u32, r.dropped_triangles, 1));
    cr_assert(eq(u32, r.repaired_triangles, 1));
    cr_assert(eq(u32, r.triangles, 14)); // one removed, one neighbour split in two
    cr_assert(eq(dbl, r.volume, 8.0));
    cr_assert(eq(dbl, r.area, 24.0));
    check_topology(m);
    for (uint32_t i = 0; i < m->triangle_count; ++i)
    {
        const mc_vec3* P = m->positions;
        const uint32_t* x = m->indices + 3 * i;
        cr_assert(not(mc_triangle_is_degenerate(P[x[0]], P[x[1]], P[x[2]])));
    }
    mc_mesh_destroy(m);
}

// Edge 4 -> 5 split at two points (thirds); the crack is closed by two zero-area triangles, one of which has the
// other as its neighbour across its long edge when processed first: repairs must iterate. Both orders.
Test(mesh, chained_collinear_degenerates_are_repaired_in_any_order)
{
    for (int order = 0; order < 2; ++order)
    {
        double p[10][3];
        memcpy(p, s_cube_pos, sizeof s_cube_pos);
        p[8][0] = -0.5, p[8][1] = -1, p[8][2] = 1; // m1 (exact: -1 + 0.5)
        p[9][0] = 0.5, p[9][1] = -1, p[9][2] = 1;  // m2
        uint32_t t[16][3];
        memcpy(t, s_cube_tri, sizeof s_cube_tri);
        // {4, 5, 6} -> {4, 8, 6}, {8, 9, 6}, {9, 5, 6}
        t[2][0] = 4, t[2][1] = 8, t[2][2] = 6;
        t[12][0] = 8, t[12][1] = 9, t[12][2] = 6;
        t[13][0] = 9, t[13][1] = 5, t[13][2] = 6;
        // zero-area: (u, v, m2) = (4, 5, 9) and (u, m2, m1) = (4, 9, 8)
        uint32_t d1[3] = {4, 5, 9}, d2[3] = {4, 9, 8};
        memcpy(t[14], order ? d2 : d1, sizeof d1);
        memcpy(t[15], order ? d1 : d2, sizeof d1);
        mc_mesh_def d = mc_default_mesh_def();
        d.positions = &p[0][0];
        d.vertex_count = 10;
        d.indices = &t[0][0];
        d.triangle_count = 16;
        mc_mesh* m = NULL;
        mc_mesh_report r;
        cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK), "order %d", order);
        cr_assert(r.closed && r.contact_ready);
        cr_assert(eq(u32, r.degenerate_triangles, 2));
        cr_assert(eq(dbl, r.volume, 8.0));
        cr_assert(eq(dbl, r.area, 24.0));
        check_topology(m);
        for (uint32_t i = 0; i < m->triangle_count; ++i)
        {
            const mc_vec3* P = m->positions;
            const uint32_t* x = m->indices + 3 * i;
            cr_assert(not(mc_triangle_is_degenerate(P[x[0]], P[x[1]], P[x[2]])));
        }
        mc_mesh_destroy(m);
    }
}

Test(mesh, inner_inward_shell_is_counted_as_inward_component)
{
    // Outer cube [-1, 1]^3 outward plus an inner cube [-0.5, 0.5]^3 wound inward (a cavity): volume 8 - 1.
    double p[16][3];
    uint32_t t[24][3];
    for (int i = 0; i < 8; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            p[i][k] = s_cube_pos[i][k];
            p[i + 8][k] = 0.5 * s_cube_pos[i][k];
        }
    }
    for (int i = 0; i < 12; ++i)
    {
        t[i][0] = s_cube_tri[i][0], t[i][1] = s_cube_tri[i][1], t[i][2] = s_cube_tri[i][2];
        t[i + 12][0] = s_cube_tri[i][0] + 8, t[i + 12][1] = s_cube_tri[i][2] + 8, t[i + 12][2] = s_cube_tri[i][1] + 8;
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 16;
    d.indices = &t[0][0];
    d.triangle_count = 24;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(dbl, r.volume, 7.0));
    cr_assert(eq(u32, r.inward_components, 1));
    cr_assert(eq(u32, m->component_count, 2));
    cr_assert(r.reoriented == false);
    mc_mesh_destroy(m);
    // the whole thing inside out: reoriented, and still one inward component (now the cavity again)
    for (int i = 0; i < 24; ++i)
    {
        uint32_t x = t[i][1];
        t[i][1] = t[i][2];
        t[i][2] = x;
    }
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(r.reoriented);
    cr_assert(eq(dbl, r.volume, 7.0));
    cr_assert(eq(u32, r.inward_components, 1));
    mc_mesh_destroy(m);
}

// Property test: a closed subdivided cube whose vertices are snapped to a coarse grid (consistently for copies of the
// same point) gets zero-area triangles, collapsed edges and T-junction cracks. Whenever the snapped mesh is closed,
// oriented and manifold as read, cleaning must make it usable, keep its volume and leave no zero-area triangle.
Test(mesh, snapped_subdivided_cubes_are_cleaned)
{
    enum
    {
        N = 4,
        NV = 6 * (N + 1) * (N + 1),
        NT = 6 * N * N * 2
    };
    static double p[NV * 3];
    static uint32_t idx[NT * 3];
    uint32_t usable = 0, repaired = 0;
    srand(11);
    for (int it = 0; it < 600; ++it)
    {
        int nv = 0, nt = 0, g = 2 + rand() % 4;
        for (int f = 0; f < 6; ++f)
        {
            int ax = f / 2, s = (f % 2) ? 1 : -1, base = nv;
            for (int i = 0; i <= N; ++i)
            {
                for (int j = 0; j <= N; ++j)
                {
                    int c[3];
                    c[ax] = s * N;
                    c[(ax + 1) % 3] = 2 * i - N;
                    c[(ax + 2) % 3] = 2 * j - N;
                    unsigned h = (unsigned)(c[0] + 17) * 1315423911u ^ (unsigned)(c[1] + 31) * 2654435761u ^
                                 (unsigned)(c[2] + 7) * 97531u ^ (unsigned)it * 2246822519u;
                    h ^= h >> 13;
                    h *= 0x5bd1e995u;
                    h ^= h >> 15;
                    for (int k = 0; k < 3; ++k)
                    {
                        p[3 * nv + k] = (h >> (4 * k)) % 3 == 0 ? g * (double)(c[k] / g) : (double)c[k];
                    }
                    nv++;
                }
            }
            for (int i = 0; i < N; ++i)
            {
                for (int j = 0; j < N; ++j)
                {
                    uint32_t a = (uint32_t)(base + i * (N + 1) + j), b = a + N + 1;
                    uint32_t q[4] = {a, b, b + 1, a + 1};
                    if (s < 0)
                    {
                        uint32_t x = q[1];
                        q[1] = q[3];
                        q[3] = x;
                    }
                    uint32_t tri[2][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}};
                    memcpy(idx + 3 * nt, tri, sizeof tri);
                    nt += 2;
                }
            }
        }
        mc_mesh_def d = mc_default_mesh_def();
        d.positions = p;
        d.vertex_count = (uint32_t)nv;
        d.indices = idx;
        d.triangle_count = (uint32_t)nt;
        d.self_check = MC_SELF_CHECK_ACCEPT; // snapping folds some cubes onto themselves; this test is the cleaning
        mc_mesh* m = NULL;
        mc_mesh_report r;
        mc_status st = mc_mesh_create(&d, &m, &r, NULL);
        if (r.closed && r.oriented && r.nonmanifold_edges == 0 && r.pinched_vertices == 0)
        {
            cr_assert(eq(int, st, MC_OK), "iteration %d", it);
        }
        if (st != MC_OK)
        {
            continue;
        }
        ++usable;
        repaired += r.repaired_triangles > 0;
        check_topology(m);
        for (uint32_t i = 0; i < m->triangle_count; ++i)
        {
            const uint32_t* x = m->indices + 3 * i;
            cr_assert(not(mc_triangle_is_degenerate(m->positions[x[0]], m->positions[x[1]], m->positions[x[2]])));
        }
        // small integers: both volumes are exact sums
        cr_assert(eq(dbl, r.volume, fabs(r.signed_volume_as_read)), "iteration %d", it);
        mc_mesh_destroy(m);
    }
    // the generator must really exercise the repair (about a quarter of the usable cases in practice)
    cr_assert(gt(u32, usable, 100));
    cr_assert(gt(u32, repaired, 20));
}

Test(mesh, repeated_index_triangle_is_dropped)
{
    uint32_t t[13][3];
    memcpy(t, s_cube_tri, sizeof s_cube_tri);
    t[12][0] = 0, t[12][1] = 0, t[12][2] = 6; // needle along the body diagonal (not an edge of the cube)
    mc_mesh_def d = cube_def();
    d.indices = &t[0][0];
    d.triangle_count = 13;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(u32, r.degenerate_triangles, 1));
    cr_assert(eq(u32, r.triangles, 12));
    cr_assert(r.closed && r.contact_ready);
    check_topology(m);
    mc_mesh_destroy(m);
}

Test(mesh, degenerate_test_is_exact)
{
    // 0.1, 0.2, 0.3 are not exact in binary, but b = 2a and c = 4a exactly (scaling by 2 commutes with rounding).
    mc_vec3 a = mc_v3(0.1, 0.2, 0.3), b = mc_v3(0.2, 0.4, 0.6), c = mc_v3(0.4, 0.8, 1.2);
    cr_assert(mc_triangle_is_degenerate(a, b, c));
    mc_vec3 c2 = mc_v3(0.4, 0.8, nextafter(1.2, 2.0));
    cr_assert(not(mc_triangle_is_degenerate(a, b, c2)));
    // The float cross product of these is exactly zero (u^2 is lost in (1 + u)^2), the exact one is (0, 0, u^2).
    double u = 0x1p-52;
    mc_vec3 p = mc_v3(0, 0, 0), q = mc_v3(1 + u, 1, 0), s = mc_v3(1 + 2 * u, 1 + u, 0);
    mc_vec3 fc = mc_cross(mc_sub(q, p), mc_sub(s, p));
    cr_assert(fc.x == 0.0 && fc.y == 0.0 && fc.z == 0.0);
    cr_assert(not(mc_triangle_is_degenerate(p, q, s)));
    cr_assert(mc_triangle_is_degenerate(p, p, s));
    cr_assert(mc_triangle_is_degenerate(p, p, p));
}

Test(mesh, invalid_input_is_rejected)
{
    mc_mesh* m = NULL;
    mc_mesh_report r;
    mc_error e;
    mc_mesh_def d = cube_def();
    double p[8][3];
    memcpy(p, s_cube_pos, sizeof p);
    p[3][1] = NAN;
    d.positions = &p[0][0];
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_NON_FINITE));
    cr_assert(ne(ptr, strstr(e.message, "vertex 3"), NULL));
    p[3][1] = INFINITY;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_NON_FINITE));
    p[3][1] = 1e300;
    d.scale = 1e10; // overflows when scaled: outside the coordinate range (MC_COORDINATE_MAX)
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_OUT_OF_RANGE));
    d = cube_def();
    uint32_t t[12][3];
    memcpy(t, s_cube_tri, sizeof t);
    t[7][2] = 8;
    d.indices = &t[0][0];
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(ne(ptr, strstr(e.message, "triangle 7"), NULL));
    d = cube_def();
    d.triangle_count = 0;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_EMPTY_MESH));
    d = cube_def();
    d.scale = 0.0;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_INVALID_ARGUMENT));
    d.scale = NAN;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_INVALID_ARGUMENT));
    // all triangles of zero area
    double flat[3][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    uint32_t ft[3] = {0, 1, 2};
    d = mc_default_mesh_def();
    d.positions = &flat[0][0];
    d.vertex_count = 3;
    d.indices = ft;
    d.triangle_count = 1;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_EMPTY_MESH));
    cr_assert(eq(u32, r.degenerate_triangles, 1));
    cr_assert(eq(ptr, m, NULL));
}

static int no_trap(const char* c, const char* f, int l)
{
    (void)c, (void)f, (void)l;
    return 0;
}

Test(mesh, undefaulted_def_is_rejected)
{
    mc_set_assert_fcn(no_trap);
    mc_mesh_def d;
    memset(&d, 0, sizeof d);
    d.positions = &s_cube_pos[0][0];
    d.vertex_count = 8;
    d.indices = &s_cube_tri[0][0];
    d.triangle_count = 12;
    d.scale = 1;
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create(&d, &m, NULL, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_mesh_create(NULL, &m, NULL, NULL), MC_ERR_INVALID_ARGUMENT));
}

Test(mesh, stride_skips_extra_fields)
{
    double p[8][4];
    for (int i = 0; i < 8; ++i)
    {
        memcpy(p[i], s_cube_pos[i], 3 * sizeof(double));
        p[i][3] = NAN; // must never be read
    }
    mc_mesh_def d = cube_def();
    d.positions = &p[0][0];
    d.position_stride = sizeof p[0];
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(eq(dbl, r.volume, 8.0));
    mc_mesh_destroy(m);
}

// ---------------------------------------------------------------------------------------------------------------
// Self-check: intersecting triangles and nested shells (mc_self_check)

/// An axis-aligned cube shell from corner lo with edge `size`, wound outward or inward.
typedef struct cube_shell
{
    mc_vec3 lo;
    double size;
    int inward;
} cube_shell;

static double s_shell_pos[4 * 8][3];
static uint32_t s_shell_tri[4 * 12][3];

/// One mesh made of the given cube shells (at most 4), each its own component.
static mc_mesh_def shells_def(const cube_shell* c, int n)
{
    for (int k = 0; k < n; ++k)
    {
        for (int i = 0; i < 8; ++i)
        {
            s_shell_pos[8 * k + i][0] = c[k].lo.x + c[k].size * 0.5 * (s_cube_pos[i][0] + 1.0);
            s_shell_pos[8 * k + i][1] = c[k].lo.y + c[k].size * 0.5 * (s_cube_pos[i][1] + 1.0);
            s_shell_pos[8 * k + i][2] = c[k].lo.z + c[k].size * 0.5 * (s_cube_pos[i][2] + 1.0);
        }
        for (int i = 0; i < 12; ++i)
        {
            s_shell_tri[12 * k + i][0] = s_cube_tri[i][0] + 8u * (uint32_t)k;
            s_shell_tri[12 * k + i][1] = s_cube_tri[i][c[k].inward ? 2 : 1] + 8u * (uint32_t)k;
            s_shell_tri[12 * k + i][2] = s_cube_tri[i][c[k].inward ? 1 : 2] + 8u * (uint32_t)k;
        }
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &s_shell_pos[0][0];
    d.vertex_count = 8u * (uint32_t)n;
    d.indices = &s_shell_tri[0][0];
    d.triangle_count = 12u * (uint32_t)n;
    return d;
}

// The case: cubes [0, 1]^3 and [0.5, 1.5]^3 in one mesh. The union is 1.875, the divergence theorem gives 2.
Test(mesh, overlapping_cubes_are_refused_unless_accepted)
{
    const cube_shell c[2] = {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(0.5, 0.5, 0.5), 1.0, 0}};
    mc_mesh_def d = shells_def(c, 2);
    mc_mesh* m = NULL;
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_ERR_SELF_INTERSECTING));
    cr_assert(eq(ptr, m, NULL));
    cr_assert(r.self_checked && r.contact_ready == false && r.self_check_accepted == false);
    cr_assert(r.closed && r.manifold && r.oriented);
    cr_assert(gt(u64, r.self_intersecting_pairs, 0));
    uint32_t i = r.self_intersection_sample[0], j = r.self_intersection_sample[1];
    cr_assert(i < j && j < 24u);
    cr_assert(i < 12u && j >= 12u, "a pair of one triangle of each cube");
    char want[200];
    snprintf(want, sizeof want, "%llu pairs of triangles intersect (the first: triangles %u and %u)",
             (unsigned long long)r.self_intersecting_pairs, i, j);
    cr_assert(ne(ptr, strstr(e.message, want), NULL), "%s", e.message);
    cr_assert(eq(u32, r.nested_components + r.inverted_components + r.cavity_components, 0),
              "intersecting components are not classified");
    // Accepted on request: created, with the warning, and the volume counts the overlap twice.
    d.self_check = MC_SELF_CHECK_ACCEPT;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK));
    cr_assert(r.self_checked && r.self_check_accepted && r.contact_ready == false);
    cr_assert(eq(dbl, r.volume, 2.0));
    cr_assert(eq(int, memcmp(mc_mesh_get_report(m), &r, sizeof r), 0));
    mc_mesh_destroy(m);
    // Skipped: nothing checked, usable as before the check existed.
    d.self_check = MC_SELF_CHECK_SKIP;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK));
    cr_assert(r.self_checked == false && r.contact_ready && r.self_intersecting_pairs == 0);
    mc_mesh_destroy(m);
}

Test(mesh, nested_shells_are_classified)
{
    struct
    {
        const char* what;
        cube_shell c[3];
        int n;
        mc_status want;
        uint32_t cavities, nested, inverted;
        double volume;
    } cases[] = {
        {"cavity (inner shell wound inward)",
         {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 1}},
         2,
         MC_OK,
         1,
         0,
         0,
         7.0},
        {"nested shell wound the same way",
         {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}},
         2,
         MC_ERR_SELF_INTERSECTING,
         0,
         1,
         0,
         9.0},
        {"island in a cavity",
         {{mc_v3(-2, -2, -2), 4.0, 0}, {mc_v3(-1, -1, -1), 2.0, 1}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}},
         3,
         MC_OK,
         1,
         0,
         0,
         57.0},
        {"island wound inward in a cavity",
         {{mc_v3(-2, -2, -2), 4.0, 0}, {mc_v3(-1, -1, -1), 2.0, 1}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 1}},
         3,
         MC_ERR_SELF_INTERSECTING,
         1,
         0,
         1,
         55.0},
        {"separate shell wound inward (reversed on its own)",
         {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(3, 0, 0), 0.5, 1}},
         2,
         MC_OK,
         0,
         0,
         0,
         1.125},
        {"separate shells", {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(3, 0, 0), 0.5, 0}}, 2, MC_OK, 0, 0, 0, 1.125},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        for (int flip = 0; flip < 2; ++flip)
        {
            mc_mesh_def d = shells_def(cases[k].c, cases[k].n);
            d.flip = flip;
            mc_mesh* m = NULL;
            mc_mesh_report r;
            mc_error e;
            cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), cases[k].want), "%s (flip %d): %s", cases[k].what, flip,
                      e.message);
            cr_assert(r.self_checked && r.self_intersecting_pairs == 0, "%s", cases[k].what);
            cr_assert(eq(u32, r.cavity_components, cases[k].cavities), "%s", cases[k].what);
            cr_assert(eq(u32, r.nested_components, cases[k].nested), "%s", cases[k].what);
            cr_assert(eq(u32, r.inverted_components, cases[k].inverted), "%s", cases[k].what);
            cr_assert(eq(dbl, r.volume, cases[k].volume), "%s", cases[k].what);
            cr_assert(eq(int, r.contact_ready, cases[k].want == MC_OK));
            if (cases[k].want != MC_OK)
            {
                // the sample is the first triangle of the first misnested component (components by smallest vertex)
                cr_assert(eq(u32, r.nesting_sample_triangle, 12u * (uint32_t)(cases[k].n - 1)), "%s", cases[k].what);
                cr_assert(ne(ptr, strstr(e.message, "(the first misnested: the component of triangle"), NULL), "%s",
                          e.message);
            }
            mc_mesh_destroy(m);
        }
    }
}

// Outward from its own centre: every triangle of the component of vertex v's normal points away from `centre`.
static void check_outward_component(const mc_mesh* m, uint32_t component, mc_vec3 centre)
{
    for (uint32_t t = 0; t < m->triangle_count; ++t)
    {
        const uint32_t* x = m->indices + 3 * t;
        if (m->vertex_component[x[0]] == component)
        {
            cr_assert(gt(dbl, mc_dot(m->face_normals[t], mc_sub(m->positions[x[0]], centre)), 0.0),
                      "triangle %u of component %u faces inward", t, component);
        }
    }
}

// Issue 32: a mesh of separate closed shells (OpenFOAM's simpleCar.stl: two, one wound inward) is oriented shell by
// shell, like CGAL's orient_to_bound_a_volume: each shell that is inside none, holds none and touches none is wound
// outward on its own. Cubes of sizes 1 and 0.5 apart: volume 1 + 0.125 whichever way each is wound.
Test(mesh, separate_shells_are_oriented_one_by_one)
{
    static const struct
    {
        int inward[2];
        uint32_t reversed;
    } cases[] = {{{0, 1}, 1}, {{1, 0}, 1}, {{1, 1}, 2}, {{0, 0}, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        for (int flip = 0; flip < 2; ++flip)
        {
            const cube_shell c[2] = {{mc_v3(0, 0, 0), 1.0, cases[k].inward[0]},
                                     {mc_v3(3, 0, 0), 0.5, cases[k].inward[1]}};
            mc_mesh_def d = shells_def(c, 2);
            d.flip = flip;
            mc_mesh* m = NULL;
            mc_mesh_report r;
            mc_error e;
            cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK), "case %zu flip %d: %s", k, flip, e.message);
            cr_assert(r.contact_ready && r.self_checked && !r.self_check_accepted);
            cr_assert(eq(u32, r.reoriented_shells, cases[k].reversed), "case %zu", k);
            cr_assert(eq(int, r.reoriented, cases[k].reversed > 0), "case %zu", k);
            cr_assert(eq(u32, r.inverted_components + r.nested_components + r.cavity_components, 0));
            cr_assert(eq(u32, r.inward_components, 0));
            cr_assert(eq(dbl, r.volume, 1.125), "case %zu flip %d: volume %.17g", k, flip, r.volume);
            cr_assert(eq(dbl, r.signed_volume_as_read,
                         (cases[k].inward[0] ? -1.0 : 1.0) + (cases[k].inward[1] ? -0.125 : 0.125)));
            cr_assert(eq(int, memcmp(mc_mesh_get_report(m), &r, sizeof r), 0));
            check_topology(m);
            cr_assert(eq(u32, m->component_count, 2));
            // Components by smallest vertex: the unit cube is 0. A flipped mesh holds every triangle reversed.
            for (uint32_t comp = 0; comp < 2; ++comp)
            {
                cr_assert(eq(dbl, m->component_volume[comp], (flip ? -1.0 : 1.0) * (comp == 0 ? 1.0 : 0.125)));
            }
            if (!flip)
            {
                check_outward_component(m, 0, mc_v3(0.5, 0.5, 0.5));
                check_outward_component(m, 1, mc_v3(3.25, 0.25, 0.25));
                // The contact pipeline sees two solids: points inside either are inside the mesh.
                cr_assert(mc_mesh_contains_point(m, mc_v3(0.5, 0.5, 0.5)));
                cr_assert(mc_mesh_contains_point(m, mc_v3(3.25, 0.25, 0.25)));
                cr_assert(not(mc_mesh_contains_point(m, mc_v3(2.0, 0.25, 0.25))));
            }
            mc_mesh_destroy(m);
        }
    }
}

// The same with tessellated spheres (radius 1 at the origin, radius 0.5 at x = 3, one wound inward), the volume the
// sum of the two spheres' own (created alone); and the result is the mesh made of the outward spheres, but for the
// report's reorientation.
Test(mesh, separate_tessellated_spheres_are_oriented_one_by_one)
{
    mc_primitive_def p = mc_default_primitive_def();
    p.type = MC_PRIMITIVE_ELLIPSOID;
    double* pos[2];
    uint32_t *idx[2], nv[2], nt[2];
    double alone[2];
    for (int k = 0; k < 2; ++k)
    {
        double radius = k == 0 ? 1.0 : 0.5;
        p.dims = mc_v3(radius, radius, radius);
        cr_assert(eq(int, mc_primitive_tessellate_count(&p, 3000, &pos[k], &nv[k], &idx[k], &nt[k], NULL), MC_OK));
        for (uint32_t v = 0; v < nv[k]; ++v)
        {
            pos[k][3 * v] += 3.0 * k;
        }
        mc_mesh_def d = mc_default_mesh_def();
        d.positions = pos[k];
        d.vertex_count = nv[k];
        d.indices = idx[k];
        d.triangle_count = nt[k];
        mc_mesh* m = NULL;
        cr_assert(eq(int, mc_mesh_create(&d, &m, NULL, NULL), MC_OK));
        alone[k] = mc_mesh_get_report(m)->volume;
        mc_mesh_destroy(m);
    }
    uint32_t vt = nv[0] + nv[1], tt = nt[0] + nt[1];
    double* ap = malloc(3 * (size_t)vt * sizeof *ap);
    uint32_t* ai = malloc(3 * (size_t)tt * sizeof *ai);
    memcpy(ap, pos[0], 3 * (size_t)nv[0] * sizeof *ap);
    memcpy(ap + 3 * (size_t)nv[0], pos[1], 3 * (size_t)nv[1] * sizeof *ap);
    mc_mesh* want = NULL;
    for (int inward = -1; inward < 2; ++inward) // -1: both outward (the reference)
    {
        for (int k = 0; k < 2; ++k)
        {
            uint32_t base = k == 0 ? 0 : 3 * nt[0], off = k == 0 ? 0 : nv[0];
            for (uint32_t t = 0; t < nt[k]; ++t)
            {
                ai[base + 3 * t] = idx[k][3 * t] + off;
                ai[base + 3 * t + 1] = idx[k][3 * t + (inward == k ? 2 : 1)] + off;
                ai[base + 3 * t + 2] = idx[k][3 * t + (inward == k ? 1 : 2)] + off;
            }
        }
        mc_mesh_def d = mc_default_mesh_def();
        d.positions = ap;
        d.vertex_count = vt;
        d.indices = ai;
        d.triangle_count = tt;
        mc_mesh* m = NULL;
        mc_mesh_report r;
        mc_error e;
        cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK), "sphere %d inward: %s", inward, e.message);
        cr_assert(r.contact_ready);
        cr_assert(eq(u32, r.reoriented_shells, inward < 0 ? 0u : 1u));
        // Both sums are of the same triangles' terms in another grouping: a few ulps.
        cr_assert(ieee_ulp_eq(dbl, r.volume, alone[0] + alone[1], 8), "volume %.17g, spheres %.17g + %.17g", r.volume,
                  alone[0], alone[1]);
        if (inward < 0)
        {
            want = m;
            continue;
        }
        // Vertices are numbered by first use, which the reversed input changes: compare the triangles as point sets.
        cr_assert(eq(u32, m->triangle_count, want->triangle_count));
        for (uint32_t t = 0; t < tt; ++t)
        {
            for (int j = 0; j < 3; ++j)
            {
                mc_vec3 a = m->positions[m->indices[3 * t + j]], b = want->positions[want->indices[3 * t + j]];
                cr_assert(a.x == b.x && a.y == b.y && a.z == b.z, "triangle %u corner %d", t, j);
            }
        }
        cr_assert(eq(dbl, r.volume, want->report.volume));
        mc_mesh_destroy(m);
    }
    mc_mesh_destroy(want);
    free(ap);
    free(ai);
    for (int k = 0; k < 2; ++k)
    {
        mc_free_arrays(pos[k], idx[k]);
    }
}

// Shells that nest keep the whole-mesh rule: the outer box outward and the cavity inward is a solid with a cavity
// (unchanged), both the other way round too (the whole mesh reversed); a cavity wound outward is a shell nested with
// the same winding, refused (a wrong-way cavity or a second solid inside the first: not decided here). A separate
// shell next to the solid is oriented on its own, and the solid's shells by their own total volume, even when the
// separate shell is the larger (here the whole mesh's volume is negative as read).
Test(mesh, nested_shells_keep_the_whole_mesh_rule_beside_separate_ones)
{
    const struct
    {
        const char* what;
        cube_shell c[3];
        int n;
        mc_status want;
        uint32_t reversed, cavities, nested;
        double volume;
    } cases[] = {
        {"cavity", {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 1}}, 2, MC_OK, 0, 1, 0, 7.0},
        {"cavity, all inside out",
         {{mc_v3(-1, -1, -1), 2.0, 1}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}},
         2,
         MC_OK,
         2,
         1,
         0,
         7.0},
        {"cavity wound outward",
         {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}},
         2,
         MC_ERR_SELF_INTERSECTING,
         0,
         0,
         1,
         9.0},
        {"cavity wound outward, all inside out",
         {{mc_v3(-1, -1, -1), 2.0, 1}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 1}},
         2,
         MC_ERR_SELF_INTERSECTING,
         2,
         0,
         1,
         9.0},
        {"cavity and a larger separate shell wound inward",
         {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 1}, {mc_v3(5, 0, 0), 2.5, 1}},
         3,
         MC_OK,
         1,
         1,
         0,
         22.625},
        {"solid with a cavity inside out and a separate shell",
         {{mc_v3(-1, -1, -1), 2.0, 1}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}, {mc_v3(5, 0, 0), 0.5, 0}},
         3,
         MC_OK,
         2,
         1,
         0,
         7.125},
        {"cavity wound outward and a separate shell wound inward: the separate one is reversed, the nest refused",
         {{mc_v3(-1, -1, -1), 2.0, 0}, {mc_v3(-0.5, -0.5, -0.5), 1.0, 0}, {mc_v3(5, 0, 0), 0.5, 1}},
         3,
         MC_ERR_SELF_INTERSECTING,
         1,
         0,
         1,
         9.125},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        mc_mesh_def d = shells_def(cases[k].c, cases[k].n);
        mc_mesh* m = NULL;
        mc_mesh_report r;
        mc_error e;
        cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), cases[k].want), "%s: %s", cases[k].what, e.message);
        cr_assert(r.self_checked && r.self_intersecting_pairs == 0 && r.inverted_components == 0, "%s", cases[k].what);
        cr_assert(eq(u32, r.reoriented_shells, cases[k].reversed), "%s", cases[k].what);
        cr_assert(eq(u32, r.cavity_components, cases[k].cavities), "%s", cases[k].what);
        cr_assert(eq(u32, r.nested_components, cases[k].nested), "%s", cases[k].what);
        cr_assert(eq(dbl, r.volume, cases[k].volume), "%s: %.17g", cases[k].what, r.volume);
        cr_assert(eq(u32, r.inward_components, cases[k].cavities), "%s", cases[k].what);
        if (m != NULL)
        {
            check_topology(m);
            check_outward_component(m, 0, mc_v3(0, 0, 0));
            mc_mesh_destroy(m);
        }
        // Accepted, the misnested mesh is created as reported; skipped, the whole mesh is oriented by its volume.
        d.self_check = MC_SELF_CHECK_ACCEPT;
        cr_assert(eq(int, mc_mesh_create(&d, &m, &r, &e), MC_OK), "%s", cases[k].what);
        cr_assert(eq(u32, r.reoriented_shells, cases[k].reversed), "%s", cases[k].what);
        mc_mesh_destroy(m);
    }
    // Without the self-check nothing is classified: the whole mesh is reversed by its total volume (here negative),
    // and a separate shell stays as wound against it.
    const cube_shell apart[2] = {{mc_v3(0, 0, 0), 1.0, 1}, {mc_v3(3, 0, 0), 0.5, 0}};
    mc_mesh_def d = shells_def(apart, 2);
    d.self_check = MC_SELF_CHECK_SKIP;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_OK));
    cr_assert(r.reoriented && r.self_checked == false);
    cr_assert(eq(u32, r.reoriented_shells, 2));
    cr_assert(eq(dbl, r.volume, 0.875));
    cr_assert(eq(u32, r.inward_components, 1));
    mc_mesh_destroy(m);
}

// Every winding of a nest of three shells (an outer cube of size 4, a cavity of size 2 in it, an island of size 1 in
// the cavity) beside a separate cube of size 5 (its volume 125 decides the whole mesh's sign as read), against the
// rule: the separate cube is wound outward on its own; the nest is reversed as a whole when its total volume is
// negative (its outer shell is inward: 64 > 8 + 1), then classified (the cavity must end inward, the island outward).
Test(mesh, windings_of_a_nest_beside_a_separate_shell_follow_the_rule)
{
    for (int w = 0; w < 16; ++w)
    {
        int in_a = w & 1, in_b = (w >> 1) & 1, in_c = (w >> 2) & 1, in_d = (w >> 3) & 1;
        const cube_shell c[4] = {{mc_v3(-2, -2, -2), 4.0, in_a},
                                 {mc_v3(-1, -1, -1), 2.0, in_b},
                                 {mc_v3(-0.5, -0.5, -0.5), 1.0, in_c},
                                 {mc_v3(10, 0, 0), 5.0, in_d}};
        // After the nest's reversal (when its outer shell is inward): the cavity's and the island's final windings.
        bool cavity_inward = in_b != in_a, island_inward = in_c != in_a;
        uint32_t nested = cavity_inward ? 0u : 1u, inverted = island_inward ? 1u : 0u;
        uint32_t reversed = (in_a ? 3u : 0u) + (in_d ? 1u : 0u);
        double volume = 64.0 + (cavity_inward ? -8.0 : 8.0) + (island_inward ? -1.0 : 1.0) + 125.0;
        for (int mode = 0; mode < 2; ++mode)
        {
            for (int flip = 0; flip < 2; ++flip)
            {
                mc_mesh_def d = shells_def(c, 4);
                d.flip = flip;
                d.self_check = mode == 0 ? MC_SELF_CHECK_REFUSE : MC_SELF_CHECK_ACCEPT;
                mc_mesh* m = NULL;
                mc_mesh_report r;
                mc_status st = mc_mesh_create(&d, &m, &r, NULL);
                bool ok = nested + inverted == 0;
                cr_assert(eq(int, st, ok || mode == 1 ? MC_OK : MC_ERR_SELF_INTERSECTING), "windings %d", w);
                cr_assert(eq(u32, r.nested_components, nested), "windings %d", w);
                cr_assert(eq(u32, r.inverted_components, inverted), "windings %d", w);
                cr_assert(eq(u32, r.cavity_components, cavity_inward ? 1u : 0u), "windings %d", w);
                cr_assert(eq(u32, r.reoriented_shells, reversed), "windings %d", w);
                cr_assert(eq(int, r.reoriented, reversed > 0), "windings %d", w);
                cr_assert(eq(dbl, r.volume, volume), "windings %d: %.17g", w, r.volume);
                cr_assert(eq(u32, r.inward_components, (cavity_inward ? 1u : 0u) + (island_inward ? 1u : 0u)));
                cr_assert(eq(int, r.contact_ready, ok));
                if (m != NULL)
                {
                    check_topology(m);
                    cr_assert(eq(int, memcmp(mc_mesh_get_report(m), &r, sizeof r), 0));
                    mc_mesh_destroy(m);
                }
            }
        }
    }
}

// Touching counts: a cube standing on another's face (flush faces, distinct vertices) is not the boundary of a solid.
// An identical duplicate is welded onto the original and refused as non-manifold before the self-check.
Test(mesh, touching_and_duplicated_shells_are_refused)
{
    const cube_shell flush[2] = {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(0.25, 0.25, 1.0), 0.5, 0}};
    mc_mesh_def d = shells_def(flush, 2);
    mc_mesh* m = NULL;
    mc_mesh_report r;
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_SELF_INTERSECTING));
    cr_assert(gt(u64, r.self_intersecting_pairs, 0));
    const cube_shell twice[2] = {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(0, 0, 0), 1.0, 0}};
    d = shells_def(twice, 2);
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(r.self_checked == false && r.nonmanifold_edges > 0);
    // A copy shrunk by one ulp of its size around the cube's centre: nested, same winding.
    const cube_shell inside[2] = {{mc_v3(0, 0, 0), 1.0, 0}, {mc_v3(0x1p-50, 0x1p-50, 0x1p-50), 1.0 - 0x1p-49, 0}};
    d = shells_def(inside, 2);
    cr_assert(eq(int, mc_mesh_create(&d, &m, &r, NULL), MC_ERR_SELF_INTERSECTING));
    cr_assert(r.nested_components == 1 && r.self_intersecting_pairs == 0);
}

Test(mesh, tessellated_spheres_and_tori_do_not_intersect_themselves)
{
    mc_primitive_def p = mc_default_primitive_def();
    const uint32_t sizes[3] = {1000, 10000, 100000};
    for (int shape = 0; shape < 2; ++shape)
    {
        p.type = shape == 0 ? MC_PRIMITIVE_ELLIPSOID : MC_PRIMITIVE_TORUS;
        p.dims = shape == 0 ? mc_v3(1, 1, 1) : mc_v3(1, 0.3, 0);
        for (int k = 0; k < 3; ++k)
        {
            mc_mesh* m = NULL;
            cr_assert(eq(int, mc_mesh_create_primitive_count(&p, sizes[k], &m, NULL), MC_OK));
            const mc_mesh_report* r = mc_mesh_get_report(m);
            cr_assert(r->self_checked && r->contact_ready && r->self_intersecting_pairs == 0);
            cr_assert(eq(u32, r->self_intersection_sample[0], UINT32_MAX));
            cr_assert(eq(u32, r->nesting_sample_triangle, UINT32_MAX));
            mc_mesh_destroy(m);
        }
    }
}
