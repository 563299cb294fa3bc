// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the nodal forces of flexible bodies (mc_nodal_forces): a compressed plate pressed by a flat rigid face
// (equal forces on symmetric nodes, penetration the press depth), sums equal to the region forces, the moment lost
// against an independent sum, a vertex-free region (a rigid corner through a face), flex against flex.
#include "scenes.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 20000u

static mc_vec3 sum_forces(const mc_nodal_force* f, uint32_t n, uint32_t region)
{
    mc_vec3 s = mc_v3(0.0, 0.0, 0.0);
    for (uint32_t k = 0; k < n; ++k)
    {
        if (f[k].region == region)
        {
            s = mc_add(s, f[k].force);
        }
    }
    return s;
}

// The flex plate: a box grid [-1, 1] x [-1, 1] x [-0.1, 0], then compressed uniformly through its thickness (z times
// 0.8, x and y kept: a deformation the tree refits); the rigid block's bottom face [-0.49, 0.49]^2 is pressed 0.01
// below the plate's top face. Every plate vertex inside the block is a top-face vertex at depth 0.01 (the press), so
// Adams' rule gives them equal forces, and nodes symmetric under x -> -x, y -> -y and x <-> y get the same force
// bitwise up to the last node's remainder (1e-12 relative covers it: one rounding per node of the sum).
Test(flex, compressed_plate_under_a_flat_face_gets_equal_symmetric_forces)
{
    mc_mesh* plate = scene_box_grid(mc_v3(1.0, 1.0, 0.05), 12000);
    cr_assert(plate != NULL);
    uint32_t nv = mc_mesh_get_vertex_count(plate);
    const mc_vec3* p0 = mc_mesh_get_positions(plate);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    for (uint32_t v = 0; v < nv; ++v)
    {
        p[3 * v] = p0[v].x;
        p[3 * v + 1] = p0[v].y;
        p[3 * v + 2] = 0.8 * (p0[v].z - 0.05); // top face at z = 0, thickness 0.08
    }
    cr_assert(eq(int, mc_mesh_set_positions(plate, p, nv, NULL), MC_OK));
    free(p);
    mc_mesh* block = scene_box(mc_v3(-0.49, -0.49, -0.01), mc_v3(0.49, 0.49, 0.5)); // no grid line on its sides
    mc_pose id = mc_pose_identity();
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region reg[4];
    uint32_t nr = 0;
    cr_assert(eq(int, mc_query_regions(block, &id, plate, &id, NULL, ws, reg, 4, &nr, NULL), MC_OK));
    cr_assert(eq(u32, nr, 1u));
    cr_assert(fabs(reg[0].volume - 0.98 * 0.98 * 0.01) < 1e-12, "volume %.17g", reg[0].volume);
    mc_vec3 force = mc_v3(0.0, 0.0, -250.0); // the block pushes the plate down
    static mc_nodal_force nodes[MAX_NODES];
    uint32_t n = 0;
    mc_vec3 lost;
    cr_assert(eq(int, mc_nodal_forces(plate, &id, block, &id, reg, &force, 1, nodes, MAX_NODES, &n, &lost), MC_OK));
    cr_assert(gt(u32, n, 100u), "%u nodes", n);
    const mc_vec3* pos = mc_mesh_get_positions(plate);
    double share = force.z / n;
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_vec3 x = pos[nodes[k].vertex];
        cr_assert(fabs(x.z) == 0.0 && fabs(x.x) <= 0.49 && fabs(x.y) <= 0.49, "node %u at (%g, %g, %g)",
                  nodes[k].vertex, x.x, x.y, x.z);
        cr_assert(fabs(nodes[k].penetration - 0.01) <= 1e-15, "penetration %.17g", nodes[k].penetration);
        cr_assert(fabs(nodes[k].force.z - share) <= 1e-12 * fabs(share) && nodes[k].force.x == 0.0 &&
                      nodes[k].force.y == 0.0,
                  "node %u: %.17g, equal share %.17g", nodes[k].vertex, nodes[k].force.z, share);
        if (k > 0)
        {
            cr_assert(gt(u32, nodes[k].vertex, nodes[k - 1].vertex), "increasing vertex order");
        }
    }
    mc_vec3 s = sum_forces(nodes, n, 0);
    cr_assert(mc_length(mc_sub(s, force)) <= 1e-12 * mc_length(force));
    // Symmetric nodes: the interior grid vertices inside the face are symmetric about the centre, so the moment lost
    // is only the remainder's rounding.
    cr_assert(mc_length(lost) <= 1e-12 * mc_length(force), "moment lost %g", mc_length(lost));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(block);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// Real scenes (the shipped meshes as J, flexible), random forces per region: sums equal the region forces within
// 1e-12 relative, the moment lost equals minus the nodal forces' moment about the centroid summed independently here
// (1e-9 of |F| times the region's extent: two sums of the same products in different orders), penetrations positive.
Test(flex, nodal_forces_sum_to_the_region_forces_on_real_scenes)
{
    static mc_nodal_force nodes[MAX_NODES];
    uint64_t rng = 7;
    int checked = 0;
    for (int k = 0; k < scene_real_count(); ++k)
    {
        scene_pair s;
        cr_assert(eq(int, scene_make_real(k, &s), 0));
        mc_workspace* ws = NULL;
        cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
        mc_region reg[16];
        uint32_t nr = 0;
        cr_assert(
            eq(int, mc_query_regions(s.mesh_i, &s.pose_i, s.mesh_j, &s.pose_j, NULL, ws, reg, 16, &nr, NULL), MC_OK));
        nr = nr > 16u ? 16u : nr;
        mc_vec3 forces[16], lost[16];
        for (uint32_t r = 0; r < nr; ++r)
        {
            forces[r] = mc_scale(reg[r].normal, 100.0 + 900.0 * scene_random(&rng));
            forces[r] = mc_add(forces[r], mc_v3(10.0 * scene_random(&rng), -5.0, 3.0)); // a friction part
        }
        uint32_t n = 0;
        cr_assert(
            eq(int,
               mc_nodal_forces(s.mesh_j, &s.pose_j, s.mesh_i, &s.pose_i, reg, forces, nr, nodes, MAX_NODES, &n, lost),
               MC_OK),
            "%s", s.name);
        const mc_vec3* pos = mc_mesh_get_positions(s.mesh_j);
        for (uint32_t r = 0; r < nr; ++r)
        {
            mc_vec3 sum = sum_forces(nodes, n, r);
            cr_assert(mc_length(mc_sub(sum, forces[r])) <= 1e-12 * mc_length(forces[r]), "%s region %u", s.name, r);
            mc_vec3 m = mc_v3(0.0, 0.0, 0.0);
            double reach = 0.0;
            for (uint32_t q = 0; q < n; ++q)
            {
                if (nodes[q].region == r)
                {
                    mc_vec3 arm = mc_sub(mc_pose_transform(&s.pose_j, pos[nodes[q].vertex]), reg[r].centroid);
                    m = mc_add(m, mc_cross(arm, nodes[q].force));
                    reach = fmax(reach, mc_length(arm));
                    cr_assert(nodes[q].penetration >= 0.0);
                }
            }
            cr_assert(mc_length(mc_add(m, lost[r])) <= 1e-9 * mc_length(forces[r]) * (reach + 1e-300),
                      "%s region %u: moment lost %g vs %g", s.name, r, mc_length(lost[r]), mc_length(m));
            checked++;
        }
        // Too small a buffer: MC_ERR_CAPACITY and the count.
        uint32_t n2 = 0;
        if (n > 1u)
        {
            cr_assert(
                eq(int, mc_nodal_forces(s.mesh_j, &s.pose_j, s.mesh_i, &s.pose_i, reg, forces, nr, nodes, 1, &n2, NULL),
                   MC_ERR_CAPACITY));
            cr_assert(ge(u32, n2, 2u));
        }
        mc_workspace_destroy(ws);
        scene_pair_destroy(&s);
    }
    cr_assert(ge(int, checked, 5));
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// A rigid cube turned corner-down (its diagonal along z) pressed 0.02 into the middle of a coarse flex plate's top
// face (12 triangles: no plate vertex near): no node inside, so the force goes to the three vertices of the top
// triangle under the corner, by barycentric weights (non-negative, summing to 1), and the moment lost is minus the
// offset of the centroid's closest point crossed with F.
Test(flex, a_corner_through_a_face_loads_the_triangle_under_it)
{
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.2), mc_v3(1.0, 1.0, 0.0));
    mc_mesh* cube = scene_box(mc_v3(-0.1, -0.1, -0.1), mc_v3(0.1, 0.1, 0.1));
    mc_pose id = mc_pose_identity(), pc = mc_pose_identity();
    // Rotate (1, 1, 1)/sqrt(3) onto (0, 0, -1): the corner (-0.1, -0.1, -0.1) ... choose the rotation taking
    // (-1, -1, -1) to (0, 0, -1).
    mc_vec3 a = mc_normalize(mc_v3(-1.0, -1.0, -1.0)), b = mc_v3(0.0, 0.0, -1.0);
    mc_vec3 axis = mc_cross(a, b);
    double s = mc_length(axis), c = mc_dot(a, b), half = 0.5 * atan2(s, c);
    axis = mc_scale(axis, sin(half) / s);
    pc.q = (mc_quat){cos(half), axis.x, axis.y, axis.z};
    pc.p = mc_v3(0.13, 0.07, 0.1 * sqrt(3.0) - 0.02);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region reg[4];
    uint32_t nr = 0;
    cr_assert(eq(int, mc_query_regions(cube, &pc, plate, &id, NULL, ws, reg, 4, &nr, NULL), MC_OK));
    cr_assert(eq(u32, nr, 1u));
    mc_vec3 force = mc_v3(1.0, 2.0, -40.0);
    mc_nodal_force nodes[8];
    uint32_t n = 0;
    mc_vec3 lost;
    cr_assert(eq(int, mc_nodal_forces(plate, &id, cube, &pc, reg, &force, 1, nodes, 8, &n, &lost), MC_OK));
    cr_assert(eq(u32, n, 3u));
    const mc_vec3* pos = mc_mesh_get_positions(plate);
    mc_vec3 q = mc_v3(0.0, 0.0, 0.0);
    for (uint32_t k = 0; k < 3; ++k)
    {
        mc_vec3 x = pos[nodes[k].vertex];
        cr_assert(eq(dbl, x.z, 0.0), "a top-face vertex");
        double w = nodes[k].force.z / force.z;
        cr_assert(w >= -1e-15 && w <= 1.0 + 1e-15);
        q = mc_add(q, mc_scale(x, w));
        cr_assert(eq(dbl, nodes[k].penetration, 0.0));
    }
    cr_assert(mc_length(mc_sub(sum_forces(nodes, n, 0), force)) <= 1e-12 * mc_length(force));
    // The weighted point is the centroid's projection onto the top face (the centroid is above it, inside the
    // triangle's footprint).
    cr_assert(fabs(q.x - reg[0].centroid.x) < 1e-12 && fabs(q.y - reg[0].centroid.y) < 1e-12 && fabs(q.z) < 1e-12);
    mc_vec3 want = mc_scale(mc_cross(mc_sub(q, reg[0].centroid), force), -1.0);
    cr_assert(mc_length(mc_sub(lost, want)) <= 1e-12 * mc_length(force));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(cube);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// Flex against flex: two deformed spheres pressed together; each mesh's nodal forces sum to the force on it (+F on J,
// -F on I), both deformed after creation.
Test(flex, flex_against_flex_forces_on_both_meshes)
{
    mc_mesh* a = scene_uv_sphere(0.5, 3000);
    mc_mesh* b = scene_uv_sphere(0.4, 2000);
    mc_mesh* m[2] = {a, b};
    for (int k = 0; k < 2; ++k)
    {
        uint32_t nv = mc_mesh_get_vertex_count(m[k]);
        const mc_vec3* x = mc_mesh_get_positions(m[k]);
        double* p = malloc(3u * (size_t)nv * sizeof *p);
        for (uint32_t v = 0; v < nv; ++v)
        {
            p[3 * v] = x[v].x * (1.0 + 0.1 * k);
            p[3 * v + 1] = x[v].y;
            p[3 * v + 2] = x[v].z * (1.0 - 0.05 * k) + 0.02 * sin(3.0 * x[v].x);
        }
        cr_assert(eq(int, mc_mesh_set_positions(m[k], p, nv, NULL), MC_OK));
        free(p);
    }
    mc_pose pa = mc_pose_identity(), pb = mc_pose_identity();
    pb.p = mc_v3(0.1, 0.05, 0.85);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region reg[4];
    uint32_t nr = 0;
    cr_assert(eq(int, mc_query_regions(a, &pa, b, &pb, NULL, ws, reg, 4, &nr, NULL), MC_OK));
    cr_assert(eq(u32, nr, 1u));
    mc_vec3 fj = mc_scale(reg[0].normal, 500.0), fi = mc_scale(fj, -1.0);
    static mc_nodal_force na[MAX_NODES], nb[MAX_NODES];
    uint32_t ca = 0, cb = 0;
    cr_assert(eq(int, mc_nodal_forces(b, &pb, a, &pa, reg, &fj, 1, nb, MAX_NODES, &cb, NULL), MC_OK));
    cr_assert(eq(int, mc_nodal_forces(a, &pa, b, &pb, reg, &fi, 1, na, MAX_NODES, &ca, NULL), MC_OK));
    cr_assert(gt(u32, ca, 3u));
    cr_assert(gt(u32, cb, 3u));
    cr_assert(mc_length(mc_sub(sum_forces(nb, cb, 0), fj)) <= 1e-12 * 500.0);
    cr_assert(mc_length(mc_sub(sum_forces(na, ca, 0), fi)) <= 1e-12 * 500.0);
    // The inside nodes of each mesh are those the region query counted.
    cr_assert(eq(u32, ca + cb, reg[0].inside_vertices));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(flex, bad_input)
{
    mc_mesh* a = scene_uv_sphere(0.5, 500);
    mc_pose id = mc_pose_identity();
    mc_region r;
    memset(&r, 0, sizeof r);
    mc_vec3 f = mc_v3(NAN, 0.0, 0.0);
    uint32_t n = 0;
    cr_assert(eq(int, mc_nodal_forces(a, &id, a, &id, &r, &f, 1, NULL, 0, &n, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_nodal_forces(NULL, &id, a, &id, &r, &f, 1, NULL, 0, &n, NULL), MC_ERR_INVALID_ARGUMENT));
    f = mc_v3(1.0, 0.0, 0.0);
    cr_assert(eq(int, mc_nodal_forces(a, &id, a, &id, &r, &f, 1, NULL, 0, NULL, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_nodal_forces(a, &id, a, &id, NULL, &f, 1, NULL, 0, &n, NULL), MC_ERR_INVALID_ARGUMENT));
    mc_mesh_destroy(a);
}
