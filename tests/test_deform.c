// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of deforming meshes (mc_mesh_set_positions): after deformations of the shipped real meshes, pairs and regions
// equal those of a mesh created fresh from the deformed positions (the oracle: an independent build of everything the
// queries read); a breathing sphere against a plate gives the analytic cap volume; world caches follow; the tree's
// rebuild criterion; allocation-free once warm; bad input refused with the mesh unchanged.
#include "bvh/bvh_internal.h"
#include "mesh/mesh_internal.h"
#include "scene_builders.h"
#include "scenes.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A random deformation: x -> A x + a d (sin(k_c . x + phase_c))_c, A = I plus entries uniform in [-0.05, 0.05] (a
// non-uniform stretch and shear, which turns the material under the tree's fixed box axes), d the bbox diagonal,
// wavelength 2 d. The affine part maps the piecewise-linear surface onto itself exactly (no self-intersection can
// appear); the sine part bends it, and the flat triangles between the moved vertices of a CAD part (some as long as the
// part) depart from the bent surface by up to about a d (pi / d)^2 L^2 / 8, which at a = 0.012 closed the thin slots of
// the Prusa lever (mc_mesh_count_self_intersections is asserted 0 before every comparison).
static double* deformed_positions(const mc_mesh* m, const mc_vec3* rest, double a, uint64_t* rng)
{
    uint32_t nv = mc_mesh_get_vertex_count(m);
    const mc_mesh_report* r = mc_mesh_get_report(m);
    double d = mc_length(mc_sub(r->bbox_max, r->bbox_min));
    double k = 3.14159265358979323846 / d;
    mc_vec3 dir[3];
    double phase[3], am[3][3];
    for (int c = 0; c < 3; ++c)
    {
        dir[c] = mc_scale(mc_quat_rotate(scene_random_quat(rng), mc_v3(1.0, 0.0, 0.0)), k);
        phase[c] = 6.283185307179586 * scene_random(rng);
        for (int q = 0; q < 3; ++q)
        {
            am[c][q] = (c == q ? 1.0 : 0.0) + 0.1 * (scene_random(rng) - 0.5);
        }
    }
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    cr_assert(p != NULL);
    for (uint32_t v = 0; v < nv; ++v)
    {
        double x[3] = {rest[v].x, rest[v].y, rest[v].z};
        for (int c = 0; c < 3; ++c)
        {
            p[3 * v + c] =
                am[c][0] * x[0] + am[c][1] * x[1] + am[c][2] * x[2] + a * d * sin(mc_dot(dir[c], rest[v]) + phase[c]);
        }
    }
    return p;
}

static mc_vec3* copy_positions(const mc_mesh* m)
{
    uint32_t nv = mc_mesh_get_vertex_count(m);
    mc_vec3* c = malloc((size_t)nv * sizeof *c);
    cr_assert(c != NULL);
    memcpy(c, mc_mesh_get_positions(m), (size_t)nv * sizeof *c);
    return c;
}

// The oracle: a mesh created from the deformed mesh's positions and triangles (self-check refusing).
static mc_mesh* fresh_copy_of(const mc_mesh* m, const char* what)
{
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = &mc_mesh_get_positions(m)[0].x;
    md.vertex_count = mc_mesh_get_vertex_count(m);
    md.indices = mc_mesh_get_indices(m);
    md.triangle_count = mc_mesh_get_triangle_count(m);
    mc_mesh* f = NULL;
    mc_error err;
    cr_assert(eq(int, mc_mesh_create(&md, &f, NULL, &err), MC_OK), "%s: fresh mesh: %s", what, err.message);
    cr_assert(eq(u32, mc_mesh_get_vertex_count(f), md.vertex_count), "the fresh mesh welded vertices");
    cr_assert(eq(u32, mc_mesh_get_triangle_count(f), md.triangle_count), "the fresh mesh dropped triangles");
    cr_assert(eq(int, memcmp(mc_mesh_get_indices(f), md.indices, 3u * md.triangle_count * sizeof(uint32_t)), 0));
    return f;
}

static mc_mesh* fresh_copy(const mc_mesh* m)
{
    return fresh_copy_of(m, "");
}

#define MAX_PAIRS 400000u
#define MAX_REGIONS 64u

// Pairs bitwise (indices, points, flags) and regions (counts exactly, volumes within 1e-13 relative: the region
// stage's sums run over the same values in an order that can follow the tree, so they agree to rounding) of (a_i, a_j)
// and (b_i, b_j) at the same poses, with `workers` threads.
static void expect_same_queries(const mc_mesh* a_i, const mc_mesh* a_j, const mc_mesh* b_i, const mc_mesh* b_j,
                                const mc_pose* pi, const mc_pose* pj, int workers, const char* what)
{
    static mc_triangle_pair pa[MAX_PAIRS], pb[MAX_PAIRS];
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    uint32_t na = 0, nb = 0;
    cr_assert(eq(int, mc_query_triangle_pairs(a_i, pi, a_j, pj, &opt, ws, pa, MAX_PAIRS, &na, NULL), MC_OK));
    cr_assert(eq(int, mc_query_triangle_pairs(b_i, pi, b_j, pj, &opt, ws, pb, MAX_PAIRS, &nb, NULL), MC_OK));
    cr_assert(eq(u32, na, nb), "%s: %u pairs deformed, %u fresh", what, na, nb);
    cr_assert(gt(u32, na, 0u), "%s: the scene has contact", what);
    for (uint32_t k = 0; k < na; ++k)
    {
        cr_assert(pa[k].i == pb[k].i && pa[k].j == pb[k].j, "%s: pair %u differs", what, k);
        for (int c = 0; c < 2; ++c)
        {
            const mc_crossing *x = &pa[k].crossing[c], *y = &pb[k].crossing[c];
            cr_assert(memcmp(&x->point, &y->point, sizeof x->point) == 0 && x->body == y->body && x->edge == y->edge &&
                          x->entering == y->entering && x->degenerate == y->degenerate,
                      "%s: crossing %d of pair %u differs", what, c, k);
        }
    }
    mc_region ra[MAX_REGIONS], rb[MAX_REGIONS];
    uint32_t ca = 0, cb = 0;
    cr_assert(eq(int, mc_query_regions(a_i, pi, a_j, pj, &opt, ws, ra, MAX_REGIONS, &ca, NULL), MC_OK));
    cr_assert(eq(int, mc_query_regions(b_i, pi, b_j, pj, &opt, ws, rb, MAX_REGIONS, &cb, NULL), MC_OK));
    cr_assert(eq(u32, ca, cb), "%s: %u regions deformed, %u fresh", what, ca, cb);
    for (uint32_t k = 0; k < ca; ++k)
    {
        cr_assert(eq(u32, ra[k].crossings, rb[k].crossings), "%s: region %u", what, k);
        cr_assert(eq(u32, ra[k].inside_vertices, rb[k].inside_vertices), "%s: region %u", what, k);
        double tol = 1e-13 * fabs(rb[k].volume);
        cr_assert(fabs(ra[k].volume - rb[k].volume) <= tol, "%s: region %u volume %.17g, fresh %.17g", what, k,
                  ra[k].volume, rb[k].volume);
        cr_assert(mc_length(mc_sub(ra[k].centroid, rb[k].centroid)) <= 1e-12 * (1.0 + mc_length(rb[k].centroid)),
                  "%s: region %u centroid", what, k);
    }
    mc_workspace_destroy(ws);
}

// Real scenes: J deformed alone (flex against rigid) three times in a row, then both meshes (flex against flex), each
// state compared with fresh meshes, with 1 and 2 threads.
static void check_real_scene(int k, uint64_t seed, int* compared, int* skipped)
{
    scene_pair s;
    cr_assert(eq(int, scene_make_real(k, &s), 0), "scene %s (set MC_SOURCE_ROOT)", scene_real_name(k));
    mc_vec3* rest_i = copy_positions(s.mesh_i);
    mc_vec3* rest_j = copy_positions(s.mesh_j);
    uint64_t rng = seed;
    for (int step = 0; step < 3; ++step)
    {
        bool both = step == 2;
        double* pj = deformed_positions(s.mesh_j, rest_j, 0.001 * (step + 1), &rng);
        mc_error err;
        cr_assert(eq(int, mc_mesh_set_positions(s.mesh_j, pj, mc_mesh_get_vertex_count(s.mesh_j), &err), MC_OK), "%s",
                  err.message);
        free(pj);
        if (both && s.mesh_i != s.mesh_j)
        {
            double* pi = deformed_positions(s.mesh_i, rest_i, 0.002, &rng);
            cr_assert(eq(int, mc_mesh_set_positions(s.mesh_i, pi, mc_mesh_get_vertex_count(s.mesh_i), &err), MC_OK),
                      "%s", err.message);
            free(pi);
        }
        char what[96];
        snprintf(what, sizeof what, "%s step %d", s.name, step);
        // A deformation that made the surface intersect itself is the host's error; the checker must agree with the
        // creation self-check of the oracle (which then refuses the mesh), and the state is not compared.
        uint64_t self_pairs = 1;
        cr_assert(eq(int, mc_mesh_count_self_intersections(s.mesh_j, &self_pairs, NULL), MC_OK));
        if (self_pairs > 0)
        {
            mc_mesh_def md = mc_default_mesh_def();
            md.positions = &mc_mesh_get_positions(s.mesh_j)[0].x;
            md.vertex_count = mc_mesh_get_vertex_count(s.mesh_j);
            md.indices = mc_mesh_get_indices(s.mesh_j);
            md.triangle_count = mc_mesh_get_triangle_count(s.mesh_j);
            mc_mesh* f = NULL;
            mc_mesh_report rep;
            cr_assert(eq(int, mc_mesh_create(&md, &f, &rep, NULL), MC_ERR_SELF_INTERSECTING), "%s", what);
            cr_assert(eq(u64, rep.self_intersecting_pairs, self_pairs), "%s", what);
            ++*skipped;
            continue;
        }
        ++*compared;
        mc_mesh* fj = fresh_copy_of(s.mesh_j, what);
        mc_mesh* fi = s.mesh_i == s.mesh_j ? fj : fresh_copy_of(s.mesh_i, what);
        expect_same_queries(s.mesh_i, s.mesh_j, fi, fj, &s.pose_i, &s.pose_j, 1 + step % 2, what);
        if (fi != fj)
        {
            mc_mesh_destroy(fi);
        }
        mc_mesh_destroy(fj);
    }
    free(rest_i);
    free(rest_j);
    scene_pair_destroy(&s);
}

Test(deform, real_scenes_equal_fresh_meshes)
{
    int compared = 0, skipped = 0;
    for (int k = 0; k < scene_real_count(); ++k)
    {
        if (strcmp(scene_real_name(k), "box_beside_holder") != 0) // no contact to compare there
        {
            check_real_scene(k, 0x9e3779b97f4a7c15ull + (uint64_t)k, &compared, &skipped);
        }
    }
    cr_log_info("%d deformed states compared, %d self-intersecting ones skipped", compared, skipped);
    cr_assert(ge(int, compared, 4 * skipped), "most deformations are valid (%d compared, %d skipped)", compared,
              skipped);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// The sphere breathing: radius s R0 about a fixed center at height c above a plate's top face (z = 0). Every vertex of
// the UV sphere is on the sphere and its facets are planar polygons inscribed in it, so the faceted solid lies between
// the sphere and the concentric sphere of radius s R0 cos(theta), theta the largest angular radius of a facet (below
// the diagonal of a latitude-longitude cell: sqrt(dlat^2 + dlon^2) / 2 * ... < dlat here, dlon = dlat); the cap volume
// pi h^2 (3 r - h) / 3 of both radii brackets the measured volume.
static double cap_volume(double r, double h)
{
    return h <= 0.0 ? 0.0 : 3.14159265358979323846 * h * h * (3.0 * r - h) / 3.0;
}

Test(deform, breathing_sphere_gives_the_cap_volume)
{
    const double r0 = 0.5, c = 0.45;
    mc_mesh* sphere = scene_uv_sphere(r0, 8000);
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -0.5), mc_v3(2.0, 2.0, 0.0));
    cr_assert(sphere != NULL && plate != NULL);
    uint32_t nv = mc_mesh_get_vertex_count(sphere);
    uint32_t nlat = (uint32_t)floor(sqrt(8000.0 / 4.0) + 0.5); // as scene_uv_sphere chooses it
    double dlat = 3.14159265358979323846 / nlat;
    double cos_theta = cos(dlat);
    mc_vec3* rest = copy_positions(sphere);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(0.0, 0.0, c);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    for (int step = 0; step < 5; ++step)
    {
        double s = 1.0 + 0.04 * sin(0.9 * step); // 0.96 .. 1.04
        for (uint32_t v = 0; v < nv; ++v)
        {
            p[3 * v] = s * rest[v].x;
            p[3 * v + 1] = s * rest[v].y;
            p[3 * v + 2] = s * rest[v].z;
        }
        cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
        mc_region reg[4];
        uint32_t n = 0;
        cr_assert(eq(int, mc_query_regions(plate, &pi, sphere, &pj, NULL, ws, reg, 4, &n, NULL), MC_OK));
        cr_assert(eq(u32, n, 1u));
        double r = s * r0;
        double hi = cap_volume(r, r - c), lo = cap_volume(r * cos_theta, r * cos_theta - c);
        cr_assert(reg[0].volume <= hi * (1.0 + 1e-12) && reg[0].volume >= lo * (1.0 - 1e-12),
                  "s %.4f: volume %.10g outside [%.10g, %.10g]", s, reg[0].volume, lo, hi);
        mc_mesh* f = fresh_copy(sphere);
        expect_same_queries(plate, sphere, plate, f, &pi, &pj, 1, "breathing sphere");
        mc_mesh_destroy(f);
    }
    // A uniform scaling keeps the tree's measure: refits only.
    mc_mesh_deform_info info = mc_mesh_get_deform_info(sphere);
    cr_assert(eq(u32, info.refits, 5u));
    cr_assert(eq(u32, info.rebuilds, 0u));
    cr_assert(fabs(info.tree_cost / info.tree_cost_built - 1.0) < 1e-3, "ratio %g",
              info.tree_cost / info.tree_cost_built);
    mc_workspace_destroy(ws);
    free(p);
    free(rest);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// A bar twisted about its axis: the refitted boxes keep their axes while the material turns, so their measure grows
// with the twist; past 1.5 times the built measure the tree is rebuilt (and the rebuilt tree's measure is the fresh
// mesh's). Results equal the fresh mesh's either way.
Test(deform, twisted_bar_rebuilds_its_tree_past_the_criterion)
{
    mc_mesh* bar = scene_box_grid(mc_v3(2.0, 0.25, 0.25), 6000);
    mc_mesh* other = scene_uv_sphere(0.4, 2000);
    cr_assert(bar != NULL && other != NULL);
    uint32_t nv = mc_mesh_get_vertex_count(bar);
    mc_vec3* rest = copy_positions(bar);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(1.3, 0.0, 0.5);
    double last_ratio = 1.0;
    bool rebuilt = false;
    for (int step = 1; step <= 8; ++step)
    {
        double twist = 0.25 * step; // radians per unit length along x
        for (uint32_t v = 0; v < nv; ++v)
        {
            double a = twist * rest[v].x, ca = cos(a), sa = sin(a);
            p[3 * v] = rest[v].x;
            p[3 * v + 1] = ca * rest[v].y - sa * rest[v].z;
            p[3 * v + 2] = sa * rest[v].y + ca * rest[v].z;
        }
        cr_assert(eq(int, mc_mesh_set_positions(bar, p, nv, NULL), MC_OK));
        mc_mesh_deform_info info = mc_mesh_get_deform_info(bar);
        cr_assert(info.tree_cost <= 1.5 * info.tree_cost_built, "the criterion holds after every call");
        if (info.rebuilds > 0 && !rebuilt)
        {
            rebuilt = true;
            cr_assert(gt(dbl, last_ratio, 1.0), "the refits degraded the tree before the rebuild");
        }
        last_ratio = info.tree_cost / info.tree_cost_built;
        mc_mesh* f = fresh_copy(bar);
        expect_same_queries(bar, other, f, other, &pi, &pj, 2, "twisted bar");
        mc_mesh_destroy(f);
    }
    cr_assert(rebuilt, "a twist of 2 rad per unit length over a 4-long bar rebuilds the tree");
    free(p);
    free(rest);
    mc_mesh_destroy(bar);
    mc_mesh_destroy(other);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// World: a body whose mesh is deformed at an unchanged pose must not reuse its last regions; its bounds follow (a
// sphere grown into a plate it did not touch gets a contact). Wrenches equal those of a world built on fresh meshes.
Test(deform, world_follows_a_deformed_mesh_at_the_same_pose)
{
    mc_mesh* sphere = scene_uv_sphere(0.5, 4000);
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -0.5), mc_v3(2.0, 2.0, 0.0));
    uint32_t nv = mc_mesh_get_vertex_count(sphere);
    mc_vec3* rest = copy_positions(sphere);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id plate_id = mc_world_create_body(w, &bd);
    bd.mesh = sphere;
    bd.pose.p = mc_v3(0.0, 0.0, 0.52); // 0.02 above the plate
    mc_body_id sphere_id = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &plate_id;
    cd.i_count = 1;
    cd.j_bodies = &sphere_id;
    cd.j_count = 1;
    cd.model = mc_default_force_model();
    cd.model.stiffness = 1e5;
    mc_contact_id cid;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &cid, NULL), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    cr_assert(eq(dbl, mc_body_get_wrench(w, sphere_id).force.z, 0.0), "no contact before the growth");
    uint32_t count = 0;
    for (int step = 0; step < 3; ++step)
    {
        double s = 1.06 + 0.02 * step;
        for (uint32_t v = 0; v < nv; ++v)
        {
            p[3 * v] = s * rest[v].x;
            p[3 * v + 1] = s * rest[v].y;
            p[3 * v + 2] = s * rest[v].z;
        }
        cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
        mc_wrench got = mc_body_get_wrench(w, sphere_id);
        cr_assert(gt(dbl, got.force.z, 0.0), "step %d: the grown sphere is pushed up", step);
        // The same world on a fresh mesh.
        mc_mesh* f = fresh_copy(sphere);
        mc_world* w2 = NULL;
        cr_assert(eq(int, mc_world_create(&wd, &w2), MC_OK));
        bd.mesh = plate;
        bd.pose = mc_pose_identity();
        mc_body_id a = mc_world_create_body(w2, &bd);
        bd.mesh = f;
        bd.pose.p = mc_v3(0.0, 0.0, 0.52);
        mc_body_id b = mc_world_create_body(w2, &bd);
        cd.i_bodies = &a;
        cd.j_bodies = &b;
        cr_assert(eq(int, mc_world_create_contact(w2, &cd, &cid, NULL), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(w2), MC_OK));
        mc_wrench want = mc_body_get_wrench(w2, b);
        // Forces from volumes equal to 1e-13 relative: the same to 1e-11 of the force.
        cr_assert(mc_length(mc_sub(got.force, want.force)) <= 1e-11 * mc_length(want.force), "step %d: %.17g vs %.17g",
                  step, got.force.z, want.force.z);
        mc_world_destroy(w2);
        mc_mesh_destroy(f);
        // Jacobians need an evaluation of the current geometry: a deformation after the evaluation is refused.
        mc_status js = mc_world_get_jacobian(w, NULL, 0, &count);
        cr_assert(js == MC_ERR_CAPACITY && count > 0, "sized (%d)", (int)js);
        cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK)); // the same positions, a new version
        cr_assert(eq(int, mc_world_get_jacobian(w, NULL, 0, &count), MC_ERR_INVALID_ARGUMENT));
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
        cd.i_bodies = &plate_id;
        cd.j_bodies = &sphere_id;
        bd.pose.p = mc_v3(0.0, 0.0, 0.52);
    }
    mc_world_destroy(w);
    free(p);
    free(rest);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// A flipped body (a spherical socket: the solid outside a sphere) queries the world's flipped copy of its mesh: the
// copy follows the mesh's deformations at the next evaluation. A ball touching the socket's wall from inside; the
// socket shrinks step by step (the wall closes in on the ball): the wrench equals that of a world whose socket is a
// fresh mesh made from the shrunk positions, and the copy the queries use has the shrunk positions. The source mesh
// is in use while the flipped body lives (mc_mesh_destroy refuses).
Test(deform, flipped_body_follows_its_deformed_mesh)
{
    mc_mesh* socket = scene_uv_sphere(1.0, 1500);
    mc_mesh* ball = scene_uv_sphere(0.3, 500);
    uint32_t nv = mc_mesh_get_vertex_count(socket);
    mc_vec3* rest = copy_positions(socket);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    mc_world_def wd = mc_default_world_def();
    mc_contact_def cd = mc_default_contact_def();
    cd.i_count = 1;
    cd.j_count = 1;
    cd.model = mc_default_force_model();
    cd.model.stiffness = 1e5;
    mc_world* ws[2] = {NULL, NULL};
    mc_body_id sock[2], bl[2];
    mc_mesh* fresh = NULL;
    for (int step = 0; step < 3; ++step)
    {
        double s = 1.0 - 0.01 * step;
        for (uint32_t v = 0; v < nv; ++v)
        {
            p[3 * v] = s * rest[v].x, p[3 * v + 1] = s * rest[v].y, p[3 * v + 2] = s * rest[v].z;
        }
        if (step > 0)
        {
            cr_assert(eq(int, mc_mesh_set_positions(socket, p, nv, NULL), MC_OK));
            mc_world_destroy(ws[1]);
            mc_mesh_destroy(fresh);
        }
        fresh = scene_mesh_from_arrays(p, nv, mc_mesh_get_indices(socket), mc_mesh_get_triangle_count(socket));
        cr_assert(fresh != NULL);
        for (int k = step == 0 ? 0 : 1; k < 2; ++k) // world 0 lives through the steps; world 1 is made fresh each step
        {
            cr_assert(eq(int, mc_world_create(&wd, &ws[k]), MC_OK));
            mc_body_def bd = mc_default_body_def();
            bd.mesh = k == 0 ? socket : fresh;
            bd.flip = true;
            sock[k] = mc_world_create_body(ws[k], &bd);
            bd.mesh = ball;
            bd.flip = false;
            bd.pose.p = mc_v3(0.72, 0.0, 0.0); // the ball reaches x = 1.02: 0.02 into the wall
            bl[k] = mc_world_create_body(ws[k], &bd);
            cd.i_bodies = &sock[k];
            cd.j_bodies = &bl[k];
            mc_contact_id cid;
            cr_assert(eq(int, mc_world_create_contact(ws[k], &cd, &cid, NULL), MC_OK));
        }
        cr_assert(eq(int, mc_world_evaluate(ws[0]), MC_OK), "step %d", step);
        cr_assert(eq(int, mc_world_evaluate(ws[1]), MC_OK));
        const mc_mesh* copy = mc_body_get_mesh(ws[0], sock[0]);
        cr_assert(copy != socket && mc_mesh_get_report(copy)->flipped);
        cr_assert(eq(int, memcmp(mc_mesh_get_positions(copy), p, 3u * (size_t)nv * sizeof *p), 0), "step %d", step);
        mc_wrench got = mc_body_get_wrench(ws[0], bl[0]), want = mc_body_get_wrench(ws[1], bl[1]);
        cr_assert(lt(dbl, got.force.x, 0.0), "step %d: the wall pushes the ball back to the centre", step);
        // Forces from volumes equal to 1e-13 relative (refitted against built trees): the same to 1e-11 of the force.
        cr_assert(mc_length(mc_sub(got.force, want.force)) <= 1e-11 * mc_length(want.force), "step %d: %.17g vs %.17g",
                  step, got.force.x, want.force.x);
        cr_assert(eq(int, mc_mesh_destroy(socket), MC_ERR_INVALID_ARGUMENT), "the flipped body uses its mesh");
    }
    mc_world_destroy(ws[0]);
    mc_world_destroy(ws[1]);
    mc_mesh_destroy(fresh);
    free(p);
    free(rest);
    cr_assert(eq(int, mc_mesh_destroy(socket), MC_OK));
    mc_mesh_destroy(ball);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

static atomic_long s_alloc_calls;
static void* counting_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    atomic_fetch_add(&s_alloc_calls, 1);
    return malloc(size);
}
static void counting_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

Test(deform, refit_and_query_allocate_nothing_once_warm)
{
    mc_set_allocator(counting_alloc, counting_free);
    mc_mesh* sphere = scene_uv_sphere(0.5, 4000);
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -0.5), mc_v3(2.0, 2.0, 0.0));
    uint32_t nv = mc_mesh_get_vertex_count(sphere);
    mc_vec3* rest = copy_positions(sphere);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(0.0, 0.0, 0.48);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region reg[4];
    uint32_t n = 0;
    for (int step = 0; step < 6; ++step)
    {
        if (step == 1)
        {
            atomic_store(&s_alloc_calls, 0); // warm after one deformation and one query
        }
        double s = 1.05 - 0.01 * step; // the largest contact first: later queries fit in its buffers
        for (uint32_t v = 0; v < nv; ++v)
        {
            p[3 * v] = s * rest[v].x;
            p[3 * v + 1] = s * rest[v].y;
            p[3 * v + 2] = s * rest[v].z;
        }
        cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
        cr_assert(eq(int, mc_query_regions(plate, &pi, sphere, &pj, NULL, ws, reg, 4, &n, NULL), MC_OK));
        cr_assert(eq(u32, n, 1u));
    }
    cr_assert(eq(long, atomic_load(&s_alloc_calls), 0), "deformations and queries allocated once warm");
    mc_workspace_destroy(ws);
    free(p);
    free(rest);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// The refit's oracle: every node's box refitted as the first version of the refit fitted it, from all the corners of
// its triangles (tri_vertex over the node's range of tri_order, no plan, no SIMD), must be bitwise the refitted box:
// the plan's ranges and border lists then hold exactly the extreme vertices of every node. And the SIMD kernels
// (refit, in both ways of the leaves, and staging) against the portable loops on a copy of the mesh: the same tree,
// leaf-local vertices, normals, volumes and area, bitwise.
static void expect_reference_boxes(const mc_mesh* m)
{
    const mc_bvh* bvh = m->bvh;
    double origin[3];
    for (int k = 0; k < 3; ++k)
    {
        origin[k] = 0.5 * (bvh->bbox_lo[k] + bvh->bbox_hi[k]);
    }
    for (uint32_t n = 0; n < bvh->node_count; ++n)
    {
        const mc_bvh_node* node = &bvh->nodes[n];
        const mc_bvh_node *l = node, *r = node;
        while (!mc_bvh_is_leaf(l))
        {
            l = &bvh->nodes[l->data];
        }
        while (!mc_bvh_is_leaf(r))
        {
            r = &bvh->nodes[r->data + 1u];
        }
        uint32_t first = mc_bvh_leaf_first(l), end = mc_bvh_leaf_first(r) + mc_bvh_leaf_count(r);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        float af[3][3];
        memcpy(af, node->axis, sizeof af);
        for (size_t i = 3u * (size_t)first; i < 3u * (size_t)end; ++i)
        {
            mc_vec3 v = m->positions[bvh->tri_vertex[i]];
            double p[3] = {v.x - origin[0], v.y - origin[1], v.z - origin[2]};
            for (int k = 0; k < 3; ++k)
            {
                double q = (double)af[k][0] * p[0] + (double)af[k][1] * p[1] + (double)af[k][2] * p[2];
                lo[k] = q < lo[k] ? q : lo[k];
                hi[k] = q > hi[k] ? q : hi[k];
            }
        }
        double s = 0.0;
        for (int k = 0; k < 3; ++k)
        {
            lo[k] += 0.0, hi[k] += 0.0;
            s += fmax(fabs(lo[k]), fabs(hi[k]));
        }
        mc_bvh_node want = *node;
        mc_obb_finish(af, lo, hi, origin, 1e-14 * s + MC_BVH_FLOAT_TINY, &want);
        cr_assert(eq(int, memcmp(&want, node, sizeof want), 0),
                  "node %u of %u: refitted box differs from the reference", n, bvh->node_count);
    }
}

Test(deform, refit_matches_the_reference_and_its_kernels_agree)
{
    scene_pair s;
    cr_assert(eq(int, scene_make_real(0, &s), 0), "scene %s (set MC_SOURCE_ROOT)", scene_real_name(0));
    mc_mesh* meshes[3] = {s.mesh_j, scene_uv_sphere(0.5, 2000), scene_torus(1.0, 0.3, 1200)};
    for (int q = 0; q < 3; ++q)
    {
        mc_mesh* a = meshes[q];
        uint32_t nv = mc_mesh_get_vertex_count(a), nt = mc_mesh_get_triangle_count(a);
        mc_mesh* b = scene_mesh_from_arrays(&mc_mesh_get_positions(a)[0].x, nv, mc_mesh_get_indices(a), nt);
        cr_assert(b != NULL);
        cr_assert(eq(u32, mc_mesh_get_triangle_count(b), nt));
        mc_vec3* rest = copy_positions(a);
        uint64_t rng = 0x5eed + (uint64_t)q;
        for (int step = 0; step < 2; ++step)
        {
            double* p = deformed_positions(a, rest, 0.002 * (step + 1), &rng);
            mc_bvh_refit_portable_leaves = step == 1; // the AVX-512 leaves from all their corners at the 2nd step
            cr_assert(eq(int, mc_mesh_set_positions(a, p, nv, NULL), MC_OK));
            mc_bvh_refit_portable_leaves = 0;
            mc_bvh_refit_portable = 1;
            mc_stage_portable = 1;
            mc_status st = mc_mesh_set_positions(b, p, nv, NULL);
            mc_bvh_refit_portable = 0;
            mc_stage_portable = 0;
            cr_assert(eq(int, st, MC_OK));
            expect_reference_boxes(a);
            const mc_bvh *ta = a->bvh, *tb = b->bvh;
            cr_assert(eq(u32, ta->node_count, tb->node_count));
            cr_assert(eq(int, memcmp(ta->nodes, tb->nodes, ta->node_count * sizeof *ta->nodes), 0), "mesh %d", q);
            size_t local = 9u * mc_bvh_local_stride(nt) * sizeof(float);
            cr_assert(eq(int, memcmp(ta->tri_local, tb->tri_local, local), 0), "mesh %d: leaf-local vertices", q);
            cr_assert(eq(int, memcmp(a->face_normals, b->face_normals, nt * sizeof(mc_vec3)), 0), "mesh %d", q);
            const mc_mesh_report *ra = mc_mesh_get_report(a), *rb = mc_mesh_get_report(b);
            cr_assert(ra->volume == rb->volume && ra->area == rb->area, "mesh %d: volume or area", q);
            free(p);
        }
        free(rest);
        mc_mesh_destroy(b);
    }
    mc_mesh_destroy(meshes[1]);
    mc_mesh_destroy(meshes[2]);
    scene_pair_destroy(&s);
}

// Refused input leaves the mesh as it was: same positions, same version.
static void expect_refused(mc_mesh* m, const double* p, uint32_t n, mc_status want, const char* what)
{
    mc_mesh_deform_info before = mc_mesh_get_deform_info(m);
    uint32_t nv = mc_mesh_get_vertex_count(m);
    mc_vec3* saved = copy_positions(m);
    mc_error err;
    err.message[0] = '\0';
    cr_assert(eq(int, mc_mesh_set_positions(m, p, n, &err), want), "%s", what);
    cr_assert(gt(sz, strlen(err.message), 0), "%s: the error says why", what);
    cr_assert(eq(int, memcmp(saved, mc_mesh_get_positions(m), (size_t)nv * sizeof *saved), 0), "%s: unchanged", what);
    cr_assert(eq(u64, mc_mesh_get_deform_info(m).version, before.version), "%s", what);
    free(saved);
}

Test(deform, bad_input_is_refused_and_the_mesh_kept)
{
    mc_mesh* sphere = scene_uv_sphere(0.5, 800);
    uint32_t nv = mc_mesh_get_vertex_count(sphere);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    cr_assert(eq(int, mc_mesh_set_positions(NULL, p, nv, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_mesh_set_positions(sphere, NULL, nv, NULL), MC_ERR_INVALID_ARGUMENT));
    expect_refused(sphere, p, nv - 1, MC_ERR_INVALID_ARGUMENT, "wrong length");
    p[7] = NAN;
    expect_refused(sphere, p, nv, MC_ERR_NON_FINITE, "NaN");
    p[7] = INFINITY;
    expect_refused(sphere, p, nv, MC_ERR_NON_FINITE, "infinity");
    p[7] = 0x1p70;
    expect_refused(sphere, p, nv, MC_ERR_OUT_OF_RANGE, "out of range");
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    // Triangle 0's third vertex onto the midpoint of its first two: zero area.
    const uint32_t* t = mc_mesh_get_indices(sphere);
    for (int c = 0; c < 3; ++c)
    {
        p[3 * t[2] + c] = 0.5 * (p[3 * t[0] + c] + p[3 * t[1] + c]);
    }
    mc_vec3 a = mc_v3(p[3 * t[0]], p[3 * t[0] + 1], p[3 * t[0] + 2]);
    mc_vec3 b = mc_v3(p[3 * t[1]], p[3 * t[1] + 1], p[3 * t[1] + 2]);
    mc_vec3 m = mc_v3(p[3 * t[2]], p[3 * t[2] + 1], p[3 * t[2] + 2]);
    if (mc_length(mc_cross(mc_sub(b, a), mc_sub(m, a))) == 0.0) // the midpoint rounded onto the line (exact check)
    {
        expect_refused(sphere, p, nv, MC_ERR_INVALID_ARGUMENT, "zero-area triangle");
    }
    // Mirrored: the solid turned inside out.
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    for (uint32_t v = 0; v < nv; ++v)
    {
        p[3 * v] = -p[3 * v];
    }
    expect_refused(sphere, p, nv, MC_ERR_INVALID_ARGUMENT, "inside out");
    // Accepted but the host's duty: one vertex pushed through the far side of the sphere; the checker sees it.
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    uint64_t pairs = 0;
    uint32_t first[2];
    cr_assert(eq(int, mc_mesh_count_self_intersections(sphere, &pairs, first), MC_OK));
    cr_assert(eq(u64, pairs, 0));
    cr_assert(first[0] == UINT32_MAX && first[1] == UINT32_MAX);
    for (int c = 0; c < 3; ++c)
    {
        p[3 * t[0] + c] = -1.5 * p[3 * t[0] + c];
    }
    cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
    cr_assert(eq(int, mc_mesh_count_self_intersections(sphere, &pairs, first), MC_OK));
    cr_assert(gt(u64, pairs, 0), "the spike through the sphere intersects it");
    cr_assert(first[0] < first[1]);
    // And a good one still works after the refusals.
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
    free(p);
    mc_mesh_destroy(sphere);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

#ifndef NDEBUG
static int s_asserts;
static int count_assert(const char* condition, const char* file, int line)
{
    (void)condition, (void)file, (void)line;
    ++s_asserts;
    return 0;
}
#endif

// Debug builds: a deformation while a query holds the mesh is asserted and refused. The query is simulated by the
// hook the pair stage and mc_query_regions call (mc_mesh_use_begin), as a concurrent thread would hold it.
Test(deform, deformation_during_a_query_is_detected_in_debug_builds)
{
#ifdef NDEBUG
    cr_skip_test("release build: the rule is documented, not checked");
#else
    mc_mesh* sphere = scene_uv_sphere(0.5, 800);
    uint32_t nv = mc_mesh_get_vertex_count(sphere);
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    memcpy(p, mc_mesh_get_positions(sphere), 3u * (size_t)nv * sizeof *p);
    mc_set_assert_fcn(count_assert);
    s_asserts = 0;
    mc_mesh_use_begin(sphere);
    cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, s_asserts, 1));
    mc_mesh_use_end(sphere);
    cr_assert(eq(int, mc_mesh_set_positions(sphere, p, nv, NULL), MC_OK));
    cr_assert(eq(int, s_asserts, 1));
    mc_set_assert_fcn(NULL);
    free(p);
    mc_mesh_destroy(sphere);
#endif
}
