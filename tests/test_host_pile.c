// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A host with 200 parts and no geometry code of its own (issue 36): the parts' meshes (shipped CAD parts and Spot,
// and primitives) are rebuilt by the library in their principal frames at the centre of mass and in metres
// (mc_mesh_get_mass_properties, mc_mesh_create_transformed), so that the host integrates each body about its own
// reference point with a diagonal inertia, and the library's wrenches are already about the centres of mass. The
// host drops them on a floor (an analytic plane) and integrates them with semi-implicit Euler; the test checks what
// a host relies on: centred, principal meshes, no part through the floor, contact events as the parts land, the same
// bits on one and two threads.
#include "meshcontact/meshcontact.h"
#include "scenes.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARTS 200
#define KINDS 5

/// One kind of part: its mesh in the principal frame, in metres, and its mass properties there.
typedef struct kind
{
    mc_mesh* mesh;
    mc_mass_properties mp;
} kind;

/// Rebuild `source` (file units `scale` metres each) in its principal frame at its centre of mass: the only geometry
/// a host needs, from the library.
static void make_kind(mc_mesh* source, double scale, kind* out)
{
    mc_mass_properties raw;
    cr_assert_eq(mc_mesh_get_mass_properties(source, 1.0, &raw, NULL), MC_OK);
    // x' = Q^T (s x - s c): the pose's rotation is Q^T, its translation -Q^T s c.
    mc_pose to_principal;
    to_principal.q = mc_quat_conj(raw.principal_rotation);
    to_principal.p = mc_neg(mc_quat_rotate(to_principal.q, mc_scale(raw.centroid, scale)));
    cr_assert_eq(mc_mesh_create_transformed(source, &to_principal, scale, MC_SELF_CHECK_SKIP, &out->mesh, NULL, NULL),
                 MC_OK);
    mc_mesh_destroy(source);
    cr_assert_eq(mc_mesh_get_mass_properties(out->mesh, 1000.0, &out->mp, NULL), MC_OK); // 1000 kg/m^3
    // Centred and principal to rounding: the centroid within 1e-12 of the part's size, the products of inertia within
    // 1e-12 of the largest moment (one rounding of every coordinate, sums of ~1e4 terms).
    const mc_mesh_report* r = mc_mesh_get_report(out->mesh);
    double size = mc_length(mc_sub(r->bbox_max, r->bbox_min));
    cr_assert_lt(mc_length(out->mp.centroid), 1e-12 * size);
    double big = out->mp.principal_moments.z;
    cr_assert_lt(fabs(out->mp.inertia.m[0][1]) + fabs(out->mp.inertia.m[0][2]) + fabs(out->mp.inertia.m[1][2]),
                 1e-12 * big);
}

static mc_mesh* primitive(mc_primitive_type type, mc_vec3 dims)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    d.chord_tolerance = 0.05 * dims.x;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, NULL), MC_OK);
    return m;
}

/// The pile after `steps` steps of `dt` on `threads` threads: final poses and twists, events seen, lowest point.
typedef struct pile_result
{
    mc_pose pose[PARTS];
    mc_twist twist[PARTS];
    uint32_t begins;
    double lowest; // lowest centre height over the run
} pile_result;

static void run_pile(const kind* kinds, int threads, int steps, double dt, pile_result* out)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = threads;
    mc_world* w = NULL;
    cr_assert_eq(mc_world_create(&wd, &w), MC_OK);
    mc_body_def fd = mc_default_body_def();
    fd.shape = mc_shape_plane();
    mc_body_id floor = mc_world_create_body(w, &fd);
    cr_assert(mc_body_is_valid(w, floor));
    mc_body_id ids[PARTS + 1];
    mc_pose pose[PARTS];
    mc_twist twist[PARTS];
    uint64_t rng = 36;
    for (int k = 0; k < PARTS; ++k)
    {
        // A 10 x 20 grid, 8 cm apart, one layer 6 cm above the floor, turned at random, falling.
        pose[k].p = mc_v3(0.08 * (k % 10), 0.08 * (k / 10), 0.06);
        pose[k].q = scene_random_quat(&rng);
        twist[k].v = mc_v3(0, 0, -0.5);
        twist[k].w = mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5);
        mc_body_def bd = mc_default_body_def();
        bd.mesh = kinds[k % KINDS].mesh;
        bd.pose = pose[k];
        ids[k] = mc_world_create_body(w, &bd);
        cr_assert(mc_body_is_valid(w, ids[k]));
    }
    ids[PARTS] = floor;
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = ids;
    cd.i_count = PARTS + 1;
    cd.model.stiffness = 1e4; // N / m^1.5 on parts of 0.7 to 20 g (rocking of the lightest: ~2 ms, 10 steps)
    cd.model.exponent = 1.5;
    cd.model.damping = 2.0;
    cd.model.dmax = 1e-4;
    mc_contact_id contact;
    cr_assert_eq(mc_world_create_contact(w, &cd, &contact, NULL), MC_OK);
    mc_wrench wrench[PARTS];
    mc_contact_event events[4 * PARTS];
    out->begins = 0;
    out->lowest = INFINITY;
    for (int s = 0; s < steps; ++s)
    {
        cr_assert_eq(mc_world_set_poses(w, ids, pose, PARTS), MC_OK);
        cr_assert_eq(mc_world_set_velocities(w, ids, twist, PARTS), MC_OK, "%s", mc_world_get_last_error(w)->message);
        cr_assert_eq(mc_world_evaluate(w), MC_OK);
        cr_assert_eq(mc_world_get_wrenches(w, ids, wrench, PARTS), MC_OK);
        uint32_t ne = mc_world_get_events(w, events, 4 * PARTS);
        for (uint32_t e = 0; e < ne && e < 4 * PARTS; ++e)
        {
            out->begins += events[e].type == MC_CONTACT_BEGIN;
        }
        for (int k = 0; k < PARTS; ++k)
        {
            // Semi-implicit Euler about the centre of mass (the body's reference point): v += (F / m + g) dt,
            // w += I_world^-1 (T - w x I_world w) dt with I_world = R diag(I) R^T, then x += v dt, q += (w q / 2) dt.
            const mc_mass_properties* mp = &kinds[k % KINDS].mp;
            mc_vec3 a = mc_add(mc_scale(wrench[k].force, 1.0 / mp->mass), mc_v3(0, 0, -9.81));
            twist[k].v = mc_add(twist[k].v, mc_scale(a, dt));
            mc_vec3 wb = mc_quat_rotate(mc_quat_conj(pose[k].q), twist[k].w); // body frame
            mc_vec3 tb = mc_quat_rotate(mc_quat_conj(pose[k].q), wrench[k].torque);
            mc_vec3 I = mp->principal_moments; // the principal frame is the body frame
            mc_vec3 Iw = mc_v3(I.x * wb.x, I.y * wb.y, I.z * wb.z);
            mc_vec3 rhs = mc_sub(tb, mc_cross(wb, Iw));
            wb = mc_add(wb, mc_scale(mc_v3(rhs.x / I.x, rhs.y / I.y, rhs.z / I.z), dt));
            twist[k].w = mc_quat_rotate(pose[k].q, wb);
            pose[k].p = mc_add(pose[k].p, mc_scale(twist[k].v, dt));
            mc_vec3 wq = mc_scale(twist[k].w, 0.5 * dt);
            mc_quat dq = {-(wq.x * pose[k].q.x + wq.y * pose[k].q.y + wq.z * pose[k].q.z),
                          wq.x * pose[k].q.w + wq.y * pose[k].q.z - wq.z * pose[k].q.y,
                          -wq.x * pose[k].q.z + wq.y * pose[k].q.w + wq.z * pose[k].q.x,
                          wq.x * pose[k].q.y - wq.y * pose[k].q.x + wq.z * pose[k].q.w};
            mc_quat q = {pose[k].q.w + dq.w, pose[k].q.x + dq.x, pose[k].q.y + dq.y, pose[k].q.z + dq.z};
            pose[k].q = mc_quat_normalize(q);
            out->lowest = fmin(out->lowest, pose[k].p.z);
        }
    }
    memcpy(out->pose, pose, sizeof pose);
    memcpy(out->twist, twist, sizeof twist);
    mc_world_destroy(w);
}

Test(host_pile, two_hundred_parts_need_no_geometry_code_of_the_host, .timeout = 240)
{
    kind kinds[KINDS];
    mc_mesh* knob = scene_import("data/prusa/LCD-knob.stl");
    mc_mesh* lever = scene_import("data/prusa/fs-lever.stl");
    mc_mesh* spot = scene_import("data/spot.obj");
    cr_assert(knob != NULL && lever != NULL && spot != NULL, "data/ meshes (MC_SOURCE_ROOT)");
    make_kind(knob, 1e-3, &kinds[0]);  // millimetres: 31 mm
    make_kind(lever, 1e-3, &kinds[1]); // 21 mm
    make_kind(spot, 0.03, &kinds[2]);  // Spot at 3 cm
    make_kind(primitive(MC_PRIMITIVE_ELLIPSOID, mc_v3(0.012, 0.012, 0.012)), 1.0, &kinds[3]);
    make_kind(primitive(MC_PRIMITIVE_TORUS, mc_v3(0.012, 0.005, 0)), 1.0, &kinds[4]);
    // 0.07 s at 0.2 ms: the parts land (0.04 m to fall at 0.5 m/s and g: 0.05 s) and settle into the floor.
    static pile_result one, two;
    run_pile(kinds, 1, 350, 2e-4, &one);
    run_pile(kinds, 2, 350, 2e-4, &two);
    cr_assert(memcmp(&one, &two, sizeof one) == 0, "1 and 2 threads differ");
    cr_assert_geq(one.begins, PARTS, "every part lands: %u contact begins", one.begins);
    // No centre below the floor: the parts are >= 5 mm thick and the contact stops them within ~1 mm.
    cr_assert_gt(one.lowest, 0.0, "a part went through the floor: lowest centre %g", one.lowest);
    for (int k = 0; k < PARTS; ++k)
    {
        cr_assert(isfinite(one.pose[k].p.x + one.pose[k].p.y + one.pose[k].p.z + one.twist[k].v.z));
        cr_assert_lt(one.pose[k].p.z, 0.1, "part %d left upward", k);
    }
    for (int k = 0; k < KINDS; ++k)
    {
        cr_assert_eq(mc_mesh_destroy(kinds[k].mesh), MC_OK);
    }
}
