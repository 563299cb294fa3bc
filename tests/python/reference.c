// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The C side of the Python binding's bit-for-bit test (tests/python/test_reference.py): a fixed scene of real meshes
// (data/spot.obj, data/prusa/LCD-knob.stl) and primitives, through the public API only, with every result printed as
// `key value...` lines, doubles in hex (%a: exact), integers in decimal, arrays as an FNV-1a hash of their bytes. The
// test builds the same scene through the Python package and compares every value bitwise.
// Usage: python_reference DATA_DIR
#include "meshcontact/meshcontact.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char* what, mc_status s, const mc_error* err)
{
    fprintf(stderr, "python_reference: %s: %s %s\n", what, mc_status_string(s), err != NULL ? err->message : "");
    exit(1);
}

static uint64_t fnv1a(const void* data, size_t size)
{
    const unsigned char* p = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t k = 0; k < size; ++k)
    {
        h = (h ^ p[k]) * 1099511628211ull;
    }
    return h;
}

static void put_vec(const char* key, mc_vec3 v)
{
    printf("%s %a %a %a\n", key, v.x, v.y, v.z);
}

static void put_region(const char* prefix, const mc_region* r)
{
    char key[128];
    printf("%s.volume %a\n", prefix, r->volume);
    snprintf(key, sizeof key, "%s.centroid", prefix);
    put_vec(key, r->centroid);
    printf("%s.area %a\n%s.radius %a\n", prefix, r->area, prefix, r->radius);
    snprintf(key, sizeof key, "%s.normal", prefix);
    put_vec(key, r->normal);
    printf("%s.depth %a\n", prefix, r->depth);
    snprintf(key, sizeof key, "%s.point_i", prefix);
    put_vec(key, r->point_i);
    snprintf(key, sizeof key, "%s.point_j", prefix);
    put_vec(key, r->point_j);
    snprintf(key, sizeof key, "%s.s_i", prefix);
    put_vec(key, r->s_i);
    snprintf(key, sizeof key, "%s.s_j", prefix);
    put_vec(key, r->s_j);
    printf("%s.crossings %u\n%s.inside_vertices %u\n", prefix, r->crossings, prefix, r->inside_vertices);
}

static void put_mesh(const char* name, const mc_mesh* m)
{
    const mc_mesh_report* r = mc_mesh_get_report(m);
    uint32_t nv = mc_mesh_get_vertex_count(m), nt = mc_mesh_get_triangle_count(m);
    printf("%s.counts %u %u\n", name, nv, nt);
    printf("%s.volume %a\n%s.area %a\n%s.signed_volume_as_read %a\n", name, r->volume, name, r->area, name,
           r->signed_volume_as_read);
    printf("%s.bbox %a %a %a %a %a %a\n", name, r->bbox_min.x, r->bbox_min.y, r->bbox_min.z, r->bbox_max.x,
           r->bbox_max.y, r->bbox_max.z);
    printf("%s.positions_hash %" PRIu64 "\n", name, fnv1a(mc_mesh_get_positions(m), sizeof(mc_vec3) * nv));
    printf("%s.indices_hash %" PRIu64 "\n", name, fnv1a(mc_mesh_get_indices(m), sizeof(uint32_t) * 3 * nt));
}

static mc_mesh* import(const char* dir, const char* file, double scale)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    mc_import_options o = mc_default_import_options();
    o.scale = scale;
    mc_mesh* m = NULL;
    mc_error err;
    mc_status s = mc_mesh_import_file(path, &o, &m, NULL, &err);
    if (s != MC_OK)
    {
        fail(path, s, &err);
    }
    return m;
}

static mc_mesh* primitive(mc_primitive_type type, mc_vec3 dims, uint32_t triangles)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    mc_mesh* m = NULL;
    mc_error err;
    mc_status s =
        triangles ? mc_mesh_create_primitive_count(&d, triangles, &m, &err) : mc_mesh_create_primitive(&d, &m, &err);
    if (s != MC_OK)
    {
        fail("primitive", s, &err);
    }
    return m;
}

static mc_pose pose(double x, double y, double z, double qw, double qx, double qy, double qz)
{
    mc_pose p = {{x, y, z}, {qw, qx, qy, qz}};
    return p;
}

static void queries(mc_mesh* spot, mc_mesh* ball, mc_mesh* knob)
{
    mc_workspace* ws = NULL;
    mc_workspace_create(&ws);
    mc_query_options o = mc_default_query_options();
    mc_pose pa = pose(0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0);
    mc_pose pb = pose(0.2, -0.1, 0.55, 0.9, 0.1, 0.3, -0.2);
    mc_region regions[64];
    uint32_t n = 0;
    char key[64];
    const char* depths[] = {"adams", "volume_area", "extent", "smooth"};
    for (int d = 0; d < 4; ++d)
    {
        o.depth_method = (mc_depth_method)d;
        mc_status s = mc_query_regions(spot, &pa, ball, &pb, &o, ws, regions, 64, &n, NULL);
        if (s != MC_OK)
        {
            fail("mc_query_regions", s, NULL);
        }
        printf("regions.%s.count %u\n", depths[d], n);
        for (uint32_t k = 0; k < n; ++k)
        {
            snprintf(key, sizeof key, "regions.%s.%u", depths[d], k);
            put_region(key, &regions[k]);
        }
    }
    o.depth_method = MC_DEPTH_ADAMS;
    uint32_t np = 0;
    mc_query_triangle_pairs(spot, &pa, ball, &pb, &o, ws, NULL, 0, &np, NULL);
    mc_triangle_pair* pairs = malloc(sizeof *pairs * (np ? np : 1));
    mc_status s = mc_query_triangle_pairs(spot, &pa, ball, &pb, &o, ws, pairs, np, &np, NULL);
    if (s != MC_OK || pairs == NULL)
    {
        fail("mc_query_triangle_pairs", s, NULL);
    }
    printf("pairs.count %u\n", np);
    for (uint32_t k = 0; k < np; ++k)
    {
        const mc_triangle_pair* p = &pairs[k];
        printf("pairs.%u %u %u", k, p->i, p->j);
        for (int e = 0; e < 2; ++e)
        {
            const mc_crossing* x = &p->crossing[e];
            printf(" %a %a %a %u %u %d %u", x->point.x, x->point.y, x->point.z, x->body, x->edge, x->entering,
                   x->degenerate);
        }
        printf("\n");
    }
    free(pairs);

    mc_distance_result dr;
    mc_pose pf = pose(1.5, 0.25, -0.125, 0.5, 0.5, 0.5, 0.5);
    s = mc_query_distance(spot, &pa, knob, &pf, 1e300, &o, ws, &dr);
    if (s != MC_OK)
    {
        fail("mc_query_distance", s, NULL);
    }
    printf("distance %a\n", dr.distance);
    put_vec("distance.point_i", dr.point_i);
    put_vec("distance.point_j", dr.point_j);
    printf("distance.triangles %u %u\ndistance.kind %d\n", dr.triangle_i, dr.triangle_j, (int)dr.kind);

    for (int k = 0; k < 8; ++k)
    {
        mc_vec3 q = {-0.4 + 0.1 * k, 0.05 * k - 0.2, 0.125 * (k % 3) - 0.1};
        printf("contains.%d %d\n", k, mc_mesh_contains_point(spot, q) ? 1 : 0);
    }

    // Analytic shapes: a sphere on a plane, a tilted cylinder on a plane, the tessellated ball against a sphere.
    mc_shape plane = mc_shape_plane(), sph = mc_shape_sphere(0.25), cyl = mc_shape_cylinder(0.1, 0.4);
    mc_shape mesh_ball = mc_shape_mesh(ball);
    struct
    {
        const char* name;
        const mc_shape* a;
        mc_pose pa;
        const mc_shape* b;
        mc_pose pb;
    } cases[] = {
        {"plane_sphere", &plane, pose(0, 0, 0, 1, 0, 0, 0), &sph, pose(0.0, 0.0, 0.2, 1, 0, 0, 0)},
        {"cylinder_plane", &cyl, pose(0, 0, 0.15, 0.9, 0.3, 0.1, 0.0), &plane, pose(0, 0, 0, 1, 0, 0, 0)},
        {"sphere_mesh", &sph, pose(0.1, 0.2, 0.3, 1, 0, 0, 0), &mesh_ball, pose(0.0, 0.1, 0.0, 0.8, 0.0, 0.6, 0.0)},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    {
        o.depth_method = MC_DEPTH_ADAMS;
        s = mc_query_shape_regions(cases[c].a, &cases[c].pa, cases[c].b, &cases[c].pb, &o, ws, regions, 64, &n, NULL);
        if (s != MC_OK)
        {
            fail(cases[c].name, s, NULL);
        }
        printf("shape.%s.count %u\n", cases[c].name, n);
        for (uint32_t k = 0; k < n; ++k)
        {
            snprintf(key, sizeof key, "shape.%s.%u", cases[c].name, k);
            put_region(key, &regions[k]);
        }
    }
    mc_workspace_destroy(ws);
}

static void put_world(mc_world* w, const char* tag, const mc_body_id* ids, uint32_t count)
{
    mc_step_info si = mc_world_get_step_info(w);
    printf("%s.info %u %u %u %u %u %u %" PRIu64 "\n", tag, si.flags, si.candidate_pairs, si.touching_pairs, si.regions,
           si.rejected_regions, si.reused_pairs, si.triangle_pairs);
    mc_wrench wr[16];
    mc_world_get_wrenches(w, ids, wr, count);
    char key[96];
    for (uint32_t k = 0; k < count; ++k)
    {
        printf("%s.wrench.%u %a %a %a %a %a %a\n", tag, k, wr[k].force.x, wr[k].force.y, wr[k].force.z, wr[k].torque.x,
               wr[k].torque.y, wr[k].torque.z);
    }
    uint32_t n = mc_world_get_regions(w, NULL, 0);
    mc_contact_region* rec = malloc(sizeof *rec * (n ? n : 1));
    if (rec == NULL)
    {
        exit(1);
    }
    mc_world_get_regions(w, rec, n);
    printf("%s.records %u\n", tag, n);
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_contact_region* r = &rec[k];
        snprintf(key, sizeof key, "%s.record.%u", tag, k);
        printf("%s.ids %d %u %d %u %d %u\n", key, r->contact.index1, r->contact.generation, r->body_i.index1,
               r->body_i.generation, r->body_j.index1, r->body_j.generation);
        snprintf(key, sizeof key, "%s.record.%u.region", tag, k);
        put_region(key, &r->region);
        snprintf(key, sizeof key, "%s.record.%u", tag, k);
        printf("%s.forces %a %a %a %a %a %a %a %a %a %a %a %a %a %a %d %d\n", key, r->rate, r->slip_velocity.x,
               r->slip_velocity.y, r->slip_velocity.z, r->slip_speed, r->spin_rate, r->normal_force,
               r->friction_force.x, r->friction_force.y, r->friction_force.z, r->friction_torque.x,
               r->friction_torque.y, r->friction_torque.z, r->friction_coefficient, r->rejected ? 1 : 0,
               r->sticking ? 1 : 0);
    }
    free(rec);
    uint32_t nb = 0;
    mc_status s = mc_world_get_jacobian(w, NULL, 0, &nb);
    if (s != MC_OK && s != MC_ERR_CAPACITY)
    {
        fail("mc_world_get_jacobian", s, NULL);
    }
    mc_jacobian_block* jb = malloc(sizeof *jb * (nb ? nb : 1));
    if (jb == NULL || mc_world_get_jacobian(w, jb, nb, &nb) != MC_OK)
    {
        fail("mc_world_get_jacobian", MC_ERR_OUT_OF_MEMORY, NULL);
    }
    printf("%s.jacobian %u\n", tag, nb);
    for (uint32_t k = 0; k < nb; ++k)
    {
        printf("%s.jacobian.%u %d %d %u %u %" PRIu64 " %" PRIu64 "\n", tag, k, jb[k].body_i.index1, jb[k].body_j.index1,
               jb[k].regions, jb[k].flags, fnv1a(jb[k].stiffness, sizeof jb[k].stiffness),
               fnv1a(jb[k].damping, sizeof jb[k].damping));
    }
    free(jb);
}

static void world(mc_mesh* spot, mc_mesh* ball, mc_mesh* knob, mc_mesh* plate, mc_mesh* torus)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 2;
    mc_world* w = NULL;
    if (mc_world_create(&wd, &w) != MC_OK)
    {
        fail("mc_world_create", MC_ERR_OUT_OF_MEMORY, NULL);
    }
    const mc_mesh* meshes[5] = {plate, spot, ball, torus, knob};
    // The plate's top is at z = 0.1; each part sinks into it by 0.01 (bottom from its report's bounding box).
    double sx[5] = {0.0, 0.0, 0.75, -0.75, 0.5}, sy[5] = {0.0, 0.0, 0.25, 0.5, -0.625};
    mc_body_id ids[5];
    for (int k = 0; k < 5; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = meshes[k];
        double z = k == 0 ? 0.0 : 0.1 - mc_mesh_get_report(meshes[k])->bbox_min.z - 0.01;
        bd.pose = pose(sx[k], sy[k], z, 1, 0, 0, 0);
        bd.velocity.v = mc_v3(0.01 * k, -0.02, -0.1);
        bd.velocity.w = mc_v3(0.0, 0.1 * k, 0.5);
        ids[k] = mc_world_create_body(w, &bd);
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = ids;
    cd.i_count = 1;
    cd.j_bodies = ids + 1;
    cd.j_count = 4;
    cd.model.stiffness = 1e6;
    cd.model.damping = 1e2;
    cd.model.dmax = 1e-3;
    cd.model.friction = MC_FRICTION_ON;
    mc_contact_id c1, c2;
    mc_error err;
    mc_status s = mc_world_create_contact(w, &cd, &c1, &err);
    if (s != MC_OK)
    {
        fail("contact 1", s, &err);
    }
    cd = mc_default_contact_def();
    cd.i_bodies = ids + 1;
    cd.i_count = 4;
    cd.mode = MC_CONTACT_GROUP;
    cd.model.normal_law = MC_NORMAL_POISSON;
    cd.model.penalty = 1e5;
    cd.model.restitution = 0.5;
    cd.depth_method = MC_DEPTH_VOLUME_AREA;
    s = mc_world_create_contact(w, &cd, &c2, &err);
    if (s != MC_OK)
    {
        fail("contact 2", s, &err);
    }
    if ((s = mc_world_evaluate(w)) != MC_OK)
    {
        fail("mc_world_evaluate", s, NULL);
    }
    put_world(w, "world.0", ids, 5);
    // Move the ball into the torus's neighbour and spin the spot: a second evaluation (coherence, moved pairs).
    mc_pose poses[2] = {pose(0.0625, 0.0, 0.1 - mc_mesh_get_report(spot)->bbox_min.z - 0.0125, 0.99, 0.0, 0.0, 0.05),
                        pose(0.5, 0.375, 0.1 + 0.3 - 0.02, 1, 0, 0, 0)};
    mc_body_id moved[2] = {ids[1], ids[2]};
    mc_twist tw[2] = {{{0.1, 0.0, 0.0}, {0.0, 0.0, 1.0}}, {{0.0, -0.05, -0.2}, {0.3, 0.0, 0.0}}};
    if (mc_world_set_poses(w, moved, poses, 2) != MC_OK || mc_world_set_velocities(w, moved, tw, 2) != MC_OK)
    {
        fail("mc_world_set_poses", MC_ERR_INVALID_ARGUMENT, NULL);
    }
    if ((s = mc_world_evaluate(w)) != MC_OK)
    {
        fail("mc_world_evaluate", s, NULL);
    }
    put_world(w, "world.1", ids, 5);
    double hint = 0.0;
    mc_world_get_step_hint(w, &hint);
    printf("world.hint %a\n", hint);
    mc_world_destroy(w);
}

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        fprintf(stderr, "usage: python_reference DATA_DIR\n");
        return 2;
    }
    mc_mesh* spot = import(argv[1], "spot.obj", 1.0);
    mc_mesh* knob = import(argv[1], "prusa/LCD-knob.stl", 1e-3);
    mc_mesh* ball = primitive(MC_PRIMITIVE_ELLIPSOID, mc_v3(0.3, 0.3, 0.3), 2000);
    mc_mesh* plate = primitive(MC_PRIMITIVE_BOX, mc_v3(3.0, 3.0, 0.2), 0);
    mc_mesh* torus = primitive(MC_PRIMITIVE_TORUS, mc_v3(0.2, 0.05, 0.0), 0);
    put_mesh("spot", spot);
    put_mesh("knob", knob);
    put_mesh("ball", ball);
    put_mesh("plate", plate);
    put_mesh("torus", torus);
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_FRUSTUM;
    d.dims = mc_v3(0.3, 0.1, 0.5);
    d.chord_tolerance = 1e-3;
    if (mc_primitive_tessellate(&d, &pos, &nv, &idx, &nt, NULL) != MC_OK)
    {
        fail("mc_primitive_tessellate", MC_ERR_INVALID_ARGUMENT, NULL);
    }
    printf("frustum.counts %u %u\nfrustum.hash %" PRIu64 " %" PRIu64 "\n", nv, nt, fnv1a(pos, sizeof(double) * 3 * nv),
           fnv1a(idx, sizeof(uint32_t) * 3 * nt));
    mc_free_arrays(pos, idx);
    queries(spot, ball, knob);
    world(spot, ball, knob, plate, torus);
    printf("impact %a\npoisson %a\nmu %a\n", mc_impact_force(1e-3, 0.2, 1e7, 1.5, 1e3, 1e-3),
           mc_poisson_force(1e-3, -0.1, 1e5, 0.5, 1e-2), mc_friction_coefficient(0.05, 0.3, 0.1, 0.1, 1.0));
    mc_mesh_destroy(spot);
    mc_mesh_destroy(knob);
    mc_mesh_destroy(ball);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(torus);
    return mc_get_byte_count() == 0 ? 0 : 1;
}
