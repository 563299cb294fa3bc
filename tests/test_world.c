// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the world: ids with generations, bulk setters, contact definitions, evaluation of a sphere on a plate
// (IMPACT force, sliding friction, spin torque), equal and opposite wrenches, determinism, no allocation when warm.
#include "scene_builders.h"
#include "src/base/parallel.h"
#include "src/world/world_memory.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

// Sphere radius R on a plate whose top face is z = 0. The UV sphere has latitude step 1 degree and a vertex at
// its bottom pole, so the faceted cap lies between the true sphere and the sphere shrunk by the chord error
// DELTA = R (1 - cos 1 deg) (the sagitta of one latitude step); the measured depth may differ from h by at most
// that much, which bounds the force error: k (h - DELTA)^e <= Fn <= k (h + DELTA)^e.
#define R_SPHERE 0.1
#define N_LAT 180
#define N_LON 180
static const double DELTA = R_SPHERE * (1.0 - 0.99984769515639124); // cos(1 deg)

typedef struct scene
{
    mc_mesh* plate;
    mc_mesh* sphere;
    mc_world* world;
    mc_body_id plate_id;
    mc_body_id sphere_id[4];
    mc_contact_id contact;
} scene;

static mc_force_model test_model(void)
{
    mc_force_model m = mc_default_force_model();
    m.stiffness = 1e7;
    m.exponent = 1.5;
    m.damping = 0.0;
    m.dmax = 1e-4;
    m.friction = MC_FRICTION_ON;
    m.mu_static = 0.5;
    m.mu_dynamic = 0.3;
    m.stiction_velocity = 0.01;
    m.friction_velocity = 0.02;
    return m;
}

// n spheres (1..4) resting at depth h on the plate, at spread-out (x, y) positions off the plate's diagonals.
/// The world of a scene on meshes it does not own (s->plate and s->sphere already set).
static void scene_make_world(scene* s, int n, double h, int workers)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = workers;
    cr_assert(eq(int, mc_world_create(&wd, &s->world), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = s->plate;
    s->plate_id = mc_world_create_body(s->world, &bd);
    const double xy[4][2] = {{0.1, -0.13}, {-0.27, 0.21}, {0.31, 0.24}, {-0.22, -0.3}};
    for (int k = 0; k < n; ++k)
    {
        bd = mc_default_body_def();
        bd.mesh = s->sphere;
        bd.pose.p = mc_v3(xy[k][0], xy[k][1], R_SPHERE - h * (1.0 + 0.1 * k));
        s->sphere_id[k] = mc_world_create_body(s->world, &bd);
        cr_assert(mc_body_is_valid(s->world, s->sphere_id[k]));
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &s->plate_id;
    cd.i_count = 1;
    cd.j_bodies = s->sphere_id;
    cd.j_count = (uint32_t)n;
    cd.model = test_model();
    mc_error err;
    cr_assert(eq(int, mc_world_create_contact(s->world, &cd, &s->contact, &err), MC_OK), "%s", err.message);
}

static void scene_make(scene* s, int n, double h, int workers)
{
    memset(s, 0, sizeof *s);
    s->plate = wscene_box(mc_v3(-0.5, -0.5, -0.1), mc_v3(0.5, 0.5, 0.0));
    s->sphere = wscene_uv_sphere(R_SPHERE, N_LAT, N_LON);
    cr_assert(s->plate != NULL && s->sphere != NULL, "mesh creation failed");
    scene_make_world(s, n, h, workers);
}

static void scene_free(scene* s)
{
    mc_world_destroy(s->world);
    mc_mesh_destroy(s->sphere);
    mc_mesh_destroy(s->plate);
}

static uint32_t get_records(mc_world* w, mc_contact_region* out, uint32_t cap)
{
    uint32_t n = mc_world_get_regions(w, out, cap);
    cr_assert(n <= cap, "more regions (%u) than expected", n);
    return n;
}

// Programmer errors (stale ids, NaN poses) assert in debug builds (STYLE S9); these tests check the release-mode
// safe path, so the hook counts the asserts and lets the call continue.
static int s_asserts;
static int continue_on_assert(const char* condition, const char* file, int line)
{
    (void)condition, (void)file, (void)line;
    ++s_asserts;
    return 0;
}

Test(world, body_ids_have_generations)
{
    mc_set_assert_fcn(continue_on_assert);
    mc_mesh* box = wscene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    cr_assert(box != NULL);
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = box;
    int tag = 7;
    bd.user_data = &tag;
    mc_body_id a = mc_world_create_body(w, &bd);
    cr_assert(mc_body_is_valid(w, a));
    cr_assert(eq(ptr, mc_body_get_user_data(w, a), &tag));
    cr_assert(eq(int, mc_body_is_valid(w, mc_null_body_id), 0));
    mc_world_destroy_body(w, a);
    cr_assert(eq(int, mc_body_is_valid(w, a), 0));
    mc_world_clear_error(w);
    mc_world_destroy_body(w, a); // stale: nothing happens, and the last error says so
    cr_assert(eq(int, mc_world_get_last_error(w)->status, MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(mc_world_get_last_error(w)->message, "stale body id") != NULL, "%s",
              mc_world_get_last_error(w)->message);
    mc_body_id b = mc_world_create_body(w, &bd);
    cr_assert(eq(i32, b.index1, a.index1), "the slot is reused");
    cr_assert(ne(u32, b.generation, a.generation), "with a new generation");
    cr_assert(eq(int, mc_body_is_valid(w, a), 0));
    cr_assert(eq(ptr, mc_body_get_user_data(w, a), NULL));
    cr_assert(eq(int, mc_body_set_velocity(w, a, &(mc_twist){{1, 0, 0}, {0, 0, 0}}), MC_ERR_INVALID_ARGUMENT));
    // a NULL mesh or a non-finite pose gives the null id
    mc_body_def bad = mc_default_body_def();
    cr_assert(eq(i32, mc_world_create_body(w, &bad).index1, 0));
    bad.mesh = box;
    bad.pose.p.x = NAN;
    cr_assert(eq(i32, mc_world_create_body(w, &bad).index1, 0));
    mc_world_destroy(w);
    mc_mesh_destroy(box);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, bulk_setters_check_everything_before_writing)
{
    mc_set_assert_fcn(continue_on_assert);
    mc_mesh* box = wscene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = box;
    mc_body_id ids[2] = {mc_world_create_body(w, &bd), mc_world_create_body(w, &bd)};
    mc_pose poses[2] = {mc_pose_identity(), mc_pose_identity()};
    poses[0].p = mc_v3(1, 2, 3);
    poses[1].q = (mc_quat){2.0, 0.0, 0.0, 0.0}; // normalised by the world
    cr_assert(eq(int, mc_world_set_poses(w, ids, poses, 2), MC_OK));
    cr_assert(eq(dbl, mc_body_get_pose(w, ids[0]).p.y, 2.0));
    cr_assert(eq(dbl, mc_body_get_pose(w, ids[1]).q.w, 1.0));
    poses[0].p = mc_v3(5, 5, 5);
    poses[1].p.z = INFINITY;
    cr_assert(eq(int, mc_world_set_poses(w, ids, poses, 2), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(dbl, mc_body_get_pose(w, ids[0]).p.x, 1.0), "nothing written on failure");
    mc_twist tw[2] = {{{1, 0, 0}, {0, 0, 1}}, {{0, 2, 0}, {0, 0, 0}}};
    cr_assert(eq(int, mc_world_set_velocities(w, ids, tw, 2), MC_OK));
    cr_assert(eq(dbl, mc_body_get_velocity(w, ids[1]).v.y, 2.0));
    mc_world_destroy(w);
    mc_mesh_destroy(box);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, contact_definition_errors_are_clear)
{
    mc_set_assert_fcn(continue_on_assert);
    mc_mesh* box = wscene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = box;
    mc_body_id a = mc_world_create_body(w, &bd);
    mc_body_id b = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &a;
    cd.i_count = 1;
    cd.j_bodies = &b;
    cd.j_count = 1;
    cd.model.exponent = -1.0;
    mc_error err;
    mc_contact_id c = {0, 0};
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "EXPONENT") != NULL, "%s", err.message);
    cr_assert(eq(i32, c.index1, 0), "out-param untouched on failure");
    cd.model = mc_default_force_model();
    cd.j_count = 0;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cd.j_count = 1;
    mc_body_id stale = a;
    stale.generation += 5;
    cd.j_bodies = &stale;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "J body") != NULL, "%s", err.message);
    cd.j_bodies = &b;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_OK));
    cr_assert(mc_contact_is_valid(w, c));
    mc_world_destroy_contact(w, c);
    cr_assert(eq(int, mc_contact_is_valid(w, c), 0));
    mc_world_clear_error(w);
    mc_world_destroy_contact(w, c);
    cr_assert(eq(int, mc_world_get_last_error(w)->status, MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(mc_world_get_last_error(w)->message, "stale") != NULL, "%s", mc_world_get_last_error(w)->message);
    mc_world_destroy(w);
    mc_mesh_destroy(box);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, sphere_on_plate_gives_k_h_to_the_e)
{
    const double h = 5e-3;
    scene s;
    scene_make(&s, 1, h, 1);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_contact_region rec[4];
    uint32_t n = get_records(s.world, rec, 4);
    cr_assert(eq(u32, n, 1));
    mc_force_model m = test_model();
    cr_assert(eq(int, rec[0].rejected, 0));
    cr_assert(le(dbl, fabs(rec[0].region.depth - h), DELTA), "depth %.9g vs h %.9g", rec[0].region.depth, h);
    double lo = m.stiffness * pow(h - DELTA, m.exponent), hi = m.stiffness * pow(h + DELTA, m.exponent);
    cr_assert(rec[0].normal_force >= lo && rec[0].normal_force <= hi, "Fn %.9g not in [%.9g, %.9g]",
              rec[0].normal_force, lo, hi);
    // the plate's part is a flat disc: the normal is +z up to rounding
    cr_assert(epsilon_eq(dbl, rec[0].region.normal.z, 1.0, 1e-12));
    // area of the cap's cross-section pi (2 R h - h^2), within the faceting (the disc's radius is off by at most
    // the chord error, relative error of A ~ 2 DELTA / sqrt(2 R h) ~ 1e-3; allow 1%)
    double a = PI * (2.0 * R_SPHERE * h - h * h);
    cr_assert(epsilon_eq(dbl, rec[0].region.area, a, 0.01 * a));
    // the wrench on the sphere is the normal force, on the plate its opposite; no friction at rest
    mc_wrench ws = mc_body_get_wrench(s.world, s.sphere_id[0]);
    mc_wrench wp = mc_body_get_wrench(s.world, s.plate_id);
    cr_assert(ieee_ulp_eq(dbl, ws.force.z, rec[0].normal_force * rec[0].region.normal.z, 4));
    cr_assert(eq(dbl, wp.force.z, -ws.force.z));
    cr_assert(eq(dbl, mc_length(rec[0].friction_force), 0.0));
    mc_step_info info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.regions, 1));
    cr_assert(eq(u32, info.candidate_pairs, 1));
    scene_free(&s);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, sliding_sphere_gets_mu_dynamic_friction)
{
    scene s;
    scene_make(&s, 1, 5e-3, 2);
    mc_twist v = {{1.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}; // slip 1 m/s >> vd = 0.02
    cr_assert(eq(int, mc_body_set_velocity(s.world, s.sphere_id[0], &v), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_contact_region rec[4];
    cr_assert(eq(u32, get_records(s.world, rec, 4), 1));
    double fn = rec[0].normal_force;
    cr_assert(fn > 0.0);
    // slip = 1 m/s along x exactly (the normal is +z to rounding): Ft = -mu_d Fn x
    cr_assert(ieee_ulp_eq(dbl, rec[0].friction_coefficient, 0.3, 4));
    cr_assert(epsilon_eq(dbl, rec[0].friction_force.x, -0.3 * fn, 1e-9 * fn));
    cr_assert(epsilon_eq(dbl, rec[0].friction_force.y, 0.0, 1e-9 * fn));
    mc_wrench ws = mc_body_get_wrench(s.world, s.sphere_id[0]);
    cr_assert(epsilon_eq(dbl, ws.force.x, -0.3 * fn, 1e-9 * fn));
    // the friction force acts at the contact point below the centre: torque about the centre (c - o) x F has
    // y component (c.z - o.z) * F.x; c.z - o.z < 0 and F.x < 0 -> positive, rolling the ball forward
    cr_assert(ws.torque.y > 0.0);
    // static analysis with DYNAMICS_ONLY removes friction
    mc_force_model m = test_model();
    m.friction = MC_FRICTION_DYNAMICS_ONLY;
    cr_assert(eq(int, mc_contact_set_model(s.world, s.contact, &m, NULL), MC_OK));
    mc_world_set_analysis(s.world, MC_ANALYSIS_STATIC);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    get_records(s.world, rec, 4);
    cr_assert(eq(dbl, mc_length(rec[0].friction_force), 0.0));
    scene_free(&s);
}

Test(world, spinning_sphere_gets_two_thirds_torque)
{
    const double h = 5e-3;
    scene s;
    scene_make(&s, 1, h, 1);
    mc_twist v = {{0.0, 0.0, 0.0}, {0.0, 0.0, 10.0}}; // spin about the vertical through the contact point
    cr_assert(eq(int, mc_body_set_velocity(s.world, s.sphere_id[0], &v), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_contact_region rec[4];
    cr_assert(eq(u32, get_records(s.world, rec, 4), 1));
    double fn = rec[0].normal_force, r = rec[0].region.radius;
    // spin slip speed |w| R / 2 = 10 * 0.0315 / 2 > vd: mu_d. Torque on J: -mu_d Fn (2/3) R z.
    double want = -0.3 * fn * (2.0 / 3.0) * r;
    cr_assert(epsilon_eq(dbl, rec[0].friction_torque.z, want, 1e-9 * fabs(want)));
    // R against the exact cap radius sqrt(2 R h - h^2) (faceting: 1%)
    double r_exact = sqrt(2.0 * R_SPHERE * h - h * h);
    cr_assert(epsilon_eq(dbl, r, r_exact, 0.01 * r_exact));
    // the centroid is on the spin axis: no slip from the spin itself, so no friction force
    cr_assert(lt(dbl, rec[0].slip_speed, 1e-9));
    mc_wrench ws = mc_body_get_wrench(s.world, s.sphere_id[0]);
    cr_assert(epsilon_eq(dbl, ws.torque.z, want, 1e-6 * fabs(want)));
    scene_free(&s);
}

Test(world, wrenches_are_equal_and_opposite)
{
    scene s;
    scene_make(&s, 1, 4e-3, 1);
    mc_pose p = mc_body_get_pose(s.world, s.sphere_id[0]);
    p.q = mc_quat_normalize((mc_quat){0.9, 0.1, -0.2, 0.3});
    mc_body_set_pose(s.world, s.sphere_id[0], &p);
    mc_twist v = {{0.3, -0.2, -0.05}, {1.0, 2.0, 5.0}};
    mc_body_set_velocity(s.world, s.sphere_id[0], &v);
    mc_pose pp = mc_pose_identity();
    pp.p = mc_v3(0.02, -0.01, 0.0); // plate reference point is not the world origin
    mc_body_set_pose(s.world, s.plate_id, &pp);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_wrench wi = mc_body_get_wrench(s.world, s.plate_id);
    mc_wrench wj = mc_body_get_wrench(s.world, s.sphere_id[0]);
    cr_assert(mc_length(wj.force) > 0.0);
    cr_assert(eq(dbl, wi.force.x, -wj.force.x));
    cr_assert(eq(dbl, wi.force.y, -wj.force.y));
    cr_assert(eq(dbl, wi.force.z, -wj.force.z));
    // moments about the world origin cancel: tau_I + o_I x F_I + tau_J + o_J x F_J = 0 (to rounding)
    mc_vec3 mi = mc_add(wi.torque, mc_cross(pp.p, wi.force));
    mc_vec3 mj = mc_add(wj.torque, mc_cross(p.p, wj.force));
    mc_vec3 sum = mc_add(mi, mj);
    double scale = mc_length(mj) + mc_length(wj.force) * 0.2;
    cr_assert(lt(dbl, mc_length(sum), 1e-12 * scale), "moment imbalance %g", mc_length(sum));
    scene_free(&s);
}

Test(world, rejected_regions_are_reported_with_zero_force)
{
    // A 2 cm cube pushed 1.9 cm into the plate: A = 4e-4 <= 2 g^2 = 7.2e-4 -> rejected by Adams' rule
    mc_mesh* plate = wscene_box(mc_v3(-0.5, -0.5, -0.1), mc_v3(0.5, 0.5, 0.0));
    mc_mesh* cube = wscene_box(mc_v3(-0.01, -0.01, -0.01), mc_v3(0.01, 0.01, 0.01));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id a = mc_world_create_body(w, &bd);
    bd.mesh = cube;
    bd.pose.p = mc_v3(0.123, 0.077, 0.01 - 0.019);
    mc_body_id b = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &a;
    cd.i_count = 1;
    cd.j_bodies = &b;
    cd.j_count = 1;
    mc_contact_id c;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, NULL), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    mc_contact_region rec[2];
    cr_assert(eq(u32, mc_world_get_regions(w, rec, 2), 1));
    cr_assert(epsilon_eq(dbl, rec[0].region.depth, 0.019, 1e-9));
    cr_assert(eq(int, rec[0].rejected, 1));
    cr_assert(eq(dbl, rec[0].normal_force, 0.0));
    cr_assert(eq(dbl, mc_length(mc_body_get_wrench(w, b).force), 0.0));
    mc_step_info info = mc_world_get_step_info(w);
    cr_assert(eq(u32, info.rejected_regions, 1));
    cr_assert(ne(u32, info.flags & MC_STEP_REJECTED_REGIONS, 0u));
    // shallower (5 mm): A = 4e-4 > 2 g^2 = 5e-5 -> a force
    mc_pose p = mc_body_get_pose(w, b);
    p.p.z = 0.01 - 0.005;
    mc_body_set_pose(w, b, &p);
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    cr_assert(eq(u32, mc_world_get_regions(w, rec, 2), 1));
    cr_assert(eq(int, rec[0].rejected, 0));
    cr_assert(rec[0].normal_force > 0.0);
    mc_world_destroy(w);
    mc_mesh_destroy(cube);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// Evaluate the 4-sphere scene with a given worker count; return records and wrenches for comparison.
static uint32_t run_scene(int workers, mc_contact_region* rec, uint32_t cap, mc_wrench* wr)
{
    scene s;
    scene_make(&s, 4, 3e-3, workers);
    mc_body_id ids[5] = {s.plate_id, s.sphere_id[0], s.sphere_id[1], s.sphere_id[2], s.sphere_id[3]};
    mc_twist tw[4] = {{{0.1, 0.2, -0.3}, {1, 2, 3}},
                      {{-0.5, 0.0, 0.1}, {0, 0, -4}},
                      {{0.0, 0.01, 0.0}, {3, 0, 0}},
                      {{0.0, 0.0, -1.0}, {0, 1, 0}}};
    mc_world_set_velocities(s.world, ids + 1, tw, 4);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    uint32_t n = get_records(s.world, rec, cap);
    mc_world_get_wrenches(s.world, ids, wr, 5);
    // same state again: bitwise the same answer
    mc_contact_region* again = calloc(cap, sizeof *again);
    mc_wrench wr2[5];
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    cr_assert(eq(u32, get_records(s.world, again, cap), n));
    mc_world_get_wrenches(s.world, ids, wr2, 5);
    cr_assert(eq(int, memcmp(again, rec, n * sizeof *rec), 0), "records differ between two evaluations");
    cr_assert(eq(int, memcmp(wr2, wr, sizeof wr2), 0), "wrenches differ between two evaluations");
    free(again);
    scene_free(&s);
    return n;
}

Test(world, same_state_gives_same_bits_for_any_worker_count)
{
    mc_contact_region r1[8], r2[8], r3[8];
    mc_wrench w1[5], w2[5], w3[5];
    memset(r1, 0, sizeof r1), memset(r2, 0, sizeof r2), memset(r3, 0, sizeof r3);
    uint32_t n1 = run_scene(1, r1, 8, w1);
    uint32_t n2 = run_scene(2, r2, 8, w2);
    uint32_t n3 = run_scene(3, r3, 8, w3);
    cr_assert(eq(u32, n1, 4));
    cr_assert(eq(u32, n2, n1));
    cr_assert(eq(u32, n3, n1));
    // ids inside records are equal too: the worlds are built identically
    cr_assert(eq(int, memcmp(r1, r2, sizeof r1), 0));
    cr_assert(eq(int, memcmp(r1, r3, sizeof r1), 0));
    cr_assert(eq(int, memcmp(w1, w2, sizeof w1), 0));
    cr_assert(eq(int, memcmp(w1, w3, sizeof w1), 0));
}

static atomic_long s_alloc_calls;

static atomic_long s_fail_at; // when non-zero, the allocation with this number (1-based count) fails
static void* counting_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    if (atomic_fetch_add(&s_alloc_calls, 1) + 1 == atomic_load(&s_fail_at))
    {
        return NULL;
    }
    return malloc(size);
}

static void counting_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

Test(world, no_allocation_once_warm)
{
    mc_set_allocator(counting_alloc, counting_free);
    scene s;
    scene_make(&s, 4, 3e-3, 2);
    mc_twist v = {{0.2, 0.0, -0.1}, {0.0, 0.0, 2.0}};
    mc_world_set_velocities(s.world, s.sphere_id, (mc_twist[4]){v, v, v, v}, 4);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK)); // warm-up: buffers grow here
    cr_assert(gt(long, atomic_load(&s_alloc_calls), 0), "the hook is in use");
    atomic_store(&s_alloc_calls, 0);
    for (int k = 0; k < 5; ++k)
    {
        cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    }
    cr_assert(eq(long, atomic_load(&s_alloc_calls), 0), "evaluations allocated once warm");
    cr_assert(eq(u32, mc_world_get_step_info(s.world).regions, 4));
    scene_free(&s);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    // one touching pair: the query itself runs on two threads (the other path of mc_world_evaluate)
    scene_make(&s, 1, 3e-3, 2);
    mc_body_set_velocity(s.world, s.sphere_id[0], &v);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    atomic_store(&s_alloc_calls, 0);
    for (int k = 0; k < 5; ++k)
    {
        cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    }
    cr_assert(eq(long, atomic_load(&s_alloc_calls), 0), "single-pair evaluations allocated once warm");
    scene_free(&s);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

// The first (cold) evaluation fails each of its allocations in turn: MC_ERR_OUT_OF_MEMORY (or, for the optional
// region blocks only, the right wrenches without them), no body state changed by a failed call, and a retry with
// memory back gives the reference wrenches bit for bit; destroying everything leaves nothing allocated.
Test(world, cold_evaluation_survives_every_allocation_failure)
{
    mc_set_allocator(counting_alloc, counting_free);
    atomic_store(&s_fail_at, 0);
    mc_twist v = {{0.2, 0.0, -0.1}, {0.0, 0.0, 2.0}};
    // A sphere of 60 x 60 quads (7200 triangles, not the other tests' 64800): the same allocations (two workers,
    // four pairs, their regions), each failing run a tenth of the work; under the sanitizers this test was the suite's
    // longest by far (197 allocations, each a new world and a cold evaluation).
    scene s;
    memset(&s, 0, sizeof s);
    s.plate = wscene_box(mc_v3(-0.5, -0.5, -0.1), mc_v3(0.5, 0.5, 0.0));
    s.sphere = wscene_uv_sphere(R_SPHERE, 60, 60);
    cr_assert(s.plate != NULL && s.sphere != NULL, "mesh creation failed");
    scene_make_world(&s, 4, 3e-3, 2);
    mc_world_set_velocities(s.world, s.sphere_id, (mc_twist[4]){v, v, v, v}, 4);
    atomic_store(&s_alloc_calls, 0);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    long calls = atomic_load(&s_alloc_calls);
    mc_wrench want[4];
    mc_world_get_wrenches(s.world, s.sphere_id, want, 4);
    cr_assert(calls > 0);
    for (int b = 0; b < 4; ++b)
    {
        cr_assert(want[b].force.z > 0.0, "sphere %d is pushed up by the plate", b);
    }
    // Every failing run gets a new world on the same two meshes (made once: mesh creation's own failures are
    // bvh::mesh_creation_survives_every_allocation_failure's). A mesh keeps no state from an evaluation: a fresh world
    // on them makes the same allocations (checked below: every failure is reached).
    mc_world_destroy(s.world);
    int64_t meshes_bytes = mc_get_byte_count();
    for (long k = 1; k <= calls; ++k)
    {
        atomic_store(&s_fail_at, 0);
        scene_make_world(&s, 4, 3e-3, 2);
        mc_world_set_velocities(s.world, s.sphere_id, (mc_twist[4]){v, v, v, v}, 4);
        atomic_store(&s_alloc_calls, 0);
        atomic_store(&s_fail_at, k);
        mc_status st = mc_world_evaluate(s.world);
        atomic_store(&s_fail_at, 0);
        cr_assert(st == MC_OK || st == MC_ERR_OUT_OF_MEMORY, "allocation %ld of %ld: status %d", k, calls, (int)st);
        if (st != MC_OK)
        {
            cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK), "allocation %ld: no recovery", k);
        }
        else
        {
            // The failure was reached: a call that allocates less than the reference would leave it unreached.
            cr_assert(atomic_load(&s_alloc_calls) >= k, "allocation %ld: only %ld calls", k,
                      atomic_load(&s_alloc_calls));
        }
        mc_wrench got[4];
        mc_world_get_wrenches(s.world, s.sphere_id, got, 4);
        for (int b = 0; b < 4; ++b)
        {
            // Bit for bit after a failed call and its retry; 1e-12 relative when only the region blocks failed
            // (sums in another order).
            double scale = mc_length(want[b].force) + 1.0;
            cr_assert(mc_length(mc_sub(got[b].force, want[b].force)) <= (st == MC_OK ? 1e-12 * scale : 0.0),
                      "allocation %ld, body %d: force differs", k, b);
        }
        mc_world_destroy(s.world);
        cr_assert(eq(i64, mc_get_byte_count(), meshes_bytes), "allocation %ld: bytes left", k);
    }
    mc_mesh_destroy(s.sphere);
    mc_mesh_destroy(s.plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    mc_set_allocator(NULL, NULL);
}

Test(world, flipped_container_pushes_the_sphere_up)
{
    // The plate's top face is the floor of a flipped box (the solid is the outside of the box): the sphere resting
    // on the floor must feel the same force as on the plate, within the same faceting bounds.
    const double h = 5e-3;
    mc_mesh* cavity = wscene_box(mc_v3(-0.5, -0.5, 0.0), mc_v3(0.5, 0.5, 1.0));
    mc_mesh* sphere = wscene_uv_sphere(R_SPHERE, N_LAT, N_LON);
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = cavity;
    bd.flip = true;
    mc_body_id a = mc_world_create_body(w, &bd);
    cr_assert(mc_body_is_valid(w, a));
    bd = mc_default_body_def();
    bd.mesh = sphere;
    bd.pose.p = mc_v3(0.1, -0.13, R_SPHERE - h);
    mc_body_id b = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &a;
    cd.i_count = 1;
    cd.j_bodies = &b;
    cd.j_count = 1;
    cd.model = test_model();
    mc_contact_id c;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, NULL), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    mc_contact_region rec[2];
    cr_assert(eq(u32, mc_world_get_regions(w, rec, 2), 1));
    cr_assert(epsilon_eq(dbl, rec[0].region.normal.z, 1.0, 1e-12));
    mc_force_model m = test_model();
    double lo = m.stiffness * pow(h - DELTA, m.exponent), hi = m.stiffness * pow(h + DELTA, m.exponent);
    cr_assert(rec[0].normal_force >= lo && rec[0].normal_force <= hi, "Fn %.9g not in [%.9g, %.9g]",
              rec[0].normal_force, lo, hi);
    cr_assert(gt(dbl, mc_body_get_wrench(w, b).force.z, 0.0));
    mc_world_destroy(w);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(cavity);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, poisson_force_while_approaching_is_p_h)
{
    const double h = 5e-3;
    scene s;
    scene_make(&s, 1, h, 1);
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_POISSON;
    m.penalty = 1e6;
    m.restitution = 0.5;
    m.normal_transition_velocity = 1e-3;
    cr_assert(eq(int, mc_contact_set_model(s.world, s.contact, &m, NULL), MC_OK));
    mc_twist down = {{0.0, 0.0, -0.5}, {0.0, 0.0, 0.0}}; // approaching at 0.5 m/s >> vt
    mc_body_set_velocity(s.world, s.sphere_id[0], &down);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_contact_region rec[2];
    cr_assert(eq(u32, get_records(s.world, rec, 2), 1));
    cr_assert(epsilon_eq(dbl, rec[0].rate, 0.5, 1e-12));
    double fa = rec[0].normal_force;
    cr_assert(fa >= m.penalty * (h - DELTA) && fa <= m.penalty * (h + DELTA), "Fn %.9g", fa);
    // separating at the same depth: eps^2 of it
    mc_twist up = {{0.0, 0.0, 0.5}, {0.0, 0.0, 0.0}};
    mc_body_set_velocity(s.world, s.sphere_id[0], &up);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    get_records(s.world, rec, 2);
    cr_assert(ieee_ulp_eq(dbl, rec[0].normal_force, 0.25 * fa, 4));
    scene_free(&s);
}

typedef struct seen_by_callback
{
    int calls;
    mc_contact_kinematics kin;
} seen_by_callback;

static double volumetric_law(const mc_contact_kinematics* kin, const mc_force_model* model, void* user)
{
    seen_by_callback* seen = user;
    seen->calls++;
    seen->kin = *kin;
    return model->stiffness * kin->volume;
}

Test(world, user_normal_law_sees_the_region)
{
    scene s;
    scene_make(&s, 1, 5e-3, 1);
    seen_by_callback seen;
    memset(&seen, 0, sizeof seen);
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_USER;
    m.normal_fcn = volumetric_law;
    m.stiffness = 1e9;
    m.user_data = &seen;
    cr_assert(eq(int, mc_contact_set_model(s.world, s.contact, &m, NULL), MC_OK));
    mc_twist v = {{0.2, 0.0, -0.1}, {0.0, 0.0, 0.0}};
    mc_body_set_velocity(s.world, s.sphere_id[0], &v);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_contact_region rec[2];
    cr_assert(eq(u32, get_records(s.world, rec, 2), 1));
    cr_assert(eq(int, seen.calls, 1));
    cr_assert(eq(dbl, seen.kin.volume, rec[0].region.volume));
    cr_assert(eq(dbl, seen.kin.depth, rec[0].region.depth));
    cr_assert(eq(dbl, seen.kin.area, rec[0].region.area));
    cr_assert(eq(dbl, seen.kin.rate, rec[0].rate));
    cr_assert(epsilon_eq(dbl, seen.kin.slip_velocity.x, 0.2, 1e-12));
    cr_assert(eq(dbl, rec[0].normal_force, 1e9 * rec[0].region.volume));
    scene_free(&s);
}

// Rotate a vector by q.
static mc_vec3 rot(mc_quat q, mc_vec3 v)
{
    return mc_quat_rotate(q, v);
}

Test(world, moving_the_scene_rigidly_rotates_the_forces)
{
    scene s;
    scene_make(&s, 2, 4e-3, 1);
    mc_body_id ids[3] = {s.plate_id, s.sphere_id[0], s.sphere_id[1]};
    mc_twist tw[3] = {{{0.01, 0.0, 0.0}, {0.0, 0.0, 0.1}}, {{0.3, -0.2, -0.05}, {1, 2, 5}}, {{0, 0.4, 0}, {0, -3, 0}}};
    mc_world_set_velocities(s.world, ids, tw, 3);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_wrench before[3];
    mc_world_get_wrenches(s.world, ids, before, 3);
    // x -> q x + t for every pose; velocities rotate with it
    mc_quat q = mc_quat_normalize((mc_quat){0.8, -0.3, 0.4, 0.2});
    mc_vec3 t = mc_v3(1.5, -2.0, 0.7);
    mc_pose poses[3];
    for (int k = 0; k < 3; ++k)
    {
        mc_pose p = mc_body_get_pose(s.world, ids[k]);
        poses[k].p = mc_add(rot(q, p.p), t);
        poses[k].q = mc_quat_mul(q, p.q);
        tw[k].v = rot(q, tw[k].v);
        tw[k].w = rot(q, tw[k].w);
    }
    mc_world_set_poses(s.world, ids, poses, 3);
    mc_world_set_velocities(s.world, ids, tw, 3);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_wrench after[3];
    mc_world_get_wrenches(s.world, ids, after, 3);
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 f = rot(q, before[k].force), tq = rot(q, before[k].torque);
        // rounding of the moved coordinates (|t| ~ 2.6 vs the 5 mm contact) perturbs depths by ~1e-15 relative to
        // the coordinates, i.e. ~1e-12 of the depth; forces follow with the exponent: 1e-9 relative is ample.
        double fs = mc_length(before[k].force), ts = mc_length(before[k].torque) + 0.2 * fs;
        cr_assert(lt(dbl, mc_length(mc_sub(after[k].force, f)), 1e-9 * fs), "body %d force", k);
        cr_assert(lt(dbl, mc_length(mc_sub(after[k].torque, tq)), 1e-9 * ts), "body %d torque", k);
    }
    scene_free(&s);
}

Test(world, contact_lists_make_every_pair_and_skip_destroyed_bodies)
{
    scene s;
    scene_make(&s, 3, 3e-3, 2);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_step_info info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.defined_pairs, 3));
    cr_assert(eq(u32, info.regions, 3));
    mc_contact_region rec[4];
    cr_assert(eq(u32, get_records(s.world, rec, 4), 3));
    for (int k = 0; k < 3; ++k)
    {
        // records come in J-list order, each naming its bodies and contact
        cr_assert(eq(i32, rec[k].body_j.index1, s.sphere_id[k].index1));
        cr_assert(eq(i32, rec[k].body_i.index1, s.plate_id.index1));
        cr_assert(eq(i32, rec[k].contact.index1, s.contact.index1));
    }
    // the plate's wrench is minus the sum of the spheres' (in the fixed order of the reduction)
    mc_vec3 sum = mc_v3(0, 0, 0);
    for (int k = 0; k < 3; ++k)
    {
        sum = mc_add(sum, mc_body_get_wrench(s.world, s.sphere_id[k]).force);
    }
    cr_assert(epsilon_eq(dbl, mc_body_get_wrench(s.world, s.plate_id).force.z, -sum.z, 1e-12 * fabs(sum.z)));
    // a size query returns the count without writing
    cr_assert(eq(u32, mc_world_get_regions(s.world, NULL, 0), 3));
    mc_world_destroy_body(s.world, s.sphere_id[1]);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.defined_pairs, 2));
    cr_assert(eq(u32, get_records(s.world, rec, 4), 2));
    cr_assert(eq(i32, rec[1].body_j.index1, s.sphere_id[2].index1));
    // a new body in the freed slot is not part of the old contact
    mc_body_def bd = mc_default_body_def();
    bd.mesh = s.sphere;
    bd.pose.p = mc_v3(0.0, 0.0, 0.05);
    mc_body_id fresh = mc_world_create_body(s.world, &bd);
    cr_assert(eq(i32, fresh.index1, s.sphere_id[1].index1));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(s.world).defined_pairs, 2));
    scene_free(&s);
}

Test(world, flipping_a_flipped_mesh_gives_back_the_solid)
{
    // body flip on a mesh that is already flipped (mc_mesh_def.flip) must give the plain sphere's force; the body's
    // mesh (mc_body_get_mesh) is the world's copy and answers mc_query_regions with the record's region
    mc_mesh* plate = wscene_box(mc_v3(-0.5, -0.5, -0.1), mc_v3(0.5, 0.5, 0.0));
    mc_mesh* sphere = wscene_uv_sphere(R_SPHERE, 60, 60);
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = (const double*)mc_mesh_get_positions(sphere);
    md.position_stride = sizeof(mc_vec3);
    md.vertex_count = mc_mesh_get_vertex_count(sphere);
    md.indices = mc_mesh_get_indices(sphere);
    md.triangle_count = mc_mesh_get_triangle_count(sphere);
    md.flip = true;
    mc_mesh* inverted = NULL;
    cr_assert(eq(int, mc_mesh_create(&md, &inverted, NULL, NULL), MC_OK));
    double fn[2];
    for (int variant = 0; variant < 2; ++variant)
    {
        mc_world_def wd = mc_default_world_def();
        mc_world* w = NULL;
        cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
        mc_body_def bd = mc_default_body_def();
        bd.mesh = plate;
        mc_body_id a = mc_world_create_body(w, &bd);
        bd.mesh = variant ? inverted : sphere;
        bd.flip = variant != 0;
        bd.pose.p = mc_v3(0.1, -0.13, R_SPHERE - 5e-3);
        mc_body_id b = mc_world_create_body(w, &bd);
        mc_contact_def cd = mc_default_contact_def();
        cd.i_bodies = &a;
        cd.i_count = 1;
        cd.j_bodies = &b;
        cd.j_count = 1;
        mc_contact_id c;
        cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, NULL), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
        mc_contact_region rec;
        cr_assert(eq(u32, mc_world_get_regions(w, &rec, 1), 1));
        cr_assert(eq(u32, mc_world_get_step_info(w).flags, 0));
        fn[variant] = rec.normal_force;
        // mc_body_get_mesh: the given mesh, or the world's flipped copy (here flipped back: a solid), with which the
        // query gives the record's region bit for bit; NULL for a stale id.
        const mc_mesh* mb = mc_body_get_mesh(w, b);
        cr_assert(mc_body_get_mesh(w, a) == plate);
        cr_assert(variant ? mb != inverted && !mc_mesh_get_report(mb)->flipped : mb == sphere);
        mc_workspace* ws = NULL;
        cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
        mc_region q;
        uint32_t nq = 0;
        mc_pose pa = mc_body_get_pose(w, a), pb = mc_body_get_pose(w, b);
        cr_assert(eq(int, mc_query_regions(plate, &pa, mb, &pb, NULL, ws, &q, 1, &nq, NULL), MC_OK));
        cr_assert(eq(u32, nq, 1));
        cr_assert(memcmp(&q, &rec.region, sizeof q) == 0);
        mc_workspace_destroy(ws);
        mc_world_destroy_body(w, b);
        cr_assert(mc_body_get_mesh(w, b) == NULL);
        mc_world_destroy(w);
    }
    cr_assert(gt(dbl, fn[0], 0.0));
    cr_assert(ieee_ulp_eq(dbl, fn[1], fn[0], 4), "flipped twice %.17g vs plain %.17g", fn[1], fn[0]);
    mc_mesh_destroy(inverted);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(plate);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, max_capacity_reports_high_water_marks)
{
    scene s;
    scene_make(&s, 3, 3e-3, 2);
    mc_world_capacity c = mc_world_get_max_capacity(s.world);
    cr_assert(eq(u32, c.body_count, 4));
    cr_assert(eq(u32, c.contact_count, 1));
    cr_assert(eq(u32, c.region_count, 0), "no evaluation yet");
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    c = mc_world_get_max_capacity(s.world);
    mc_step_info info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, c.pair_count, 3), "three spheres on the plate: three candidate pairs");
    cr_assert(eq(u32, c.region_count, 3));
    cr_assert(eq(u32, c.pair_region_count, 1));
    cr_assert(eq(u32, info.regions, c.region_count));
    // The workspace figure is the largest worker's scratch: positive after queries, within the library's total.
    cr_assert(gt(sz, c.workspace_bytes, (size_t)0));
    cr_assert(le(i64, (int64_t)c.workspace_bytes, mc_get_byte_count()));
    // Lift two spheres off the plate: the marks stay.
    for (int k = 1; k < 3; ++k)
    {
        mc_pose p = mc_pose_identity();
        p.p = mc_v3(0.0, 0.0, 5.0 + k);
        mc_body_set_pose(s.world, s.sphere_id[k], &p);
    }
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(s.world).regions, 1));
    mc_world_capacity later = mc_world_get_max_capacity(s.world);
    cr_assert(eq(u32, later.region_count, 3));
    cr_assert(eq(u32, later.pair_count, 3));
    cr_assert(ge(sz, later.workspace_bytes, c.workspace_bytes));
    mc_world_capacity none = mc_world_get_max_capacity(NULL);
    cr_assert(eq(u32, none.body_count, 0));
    scene_free(&s);
}

Test(world, workspace_byte_count_follows_its_scratch)
{
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    size_t empty = mc_workspace_get_byte_count(ws);
    cr_assert(gt(sz, empty, (size_t)0));
    cr_assert(eq(sz, mc_workspace_get_byte_count(NULL), (size_t)0));
    mc_mesh* sphere = wscene_uv_sphere(R_SPHERE, 40, 40);
    cr_assert(eq(int, mc_mesh_prepare_regions(sphere), MC_OK));
    int64_t before = mc_get_byte_count();
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(1.5 * R_SPHERE, 0.0, 0.0);
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region out[4];
    uint32_t n = 0;
    cr_assert(eq(int, mc_query_regions(sphere, &pi, sphere, &pj, &opt, ws, out, 4, &n, NULL), MC_OK));
    cr_assert(eq(u32, n, 1));
    // Everything the library allocated in the query is workspace scratch (the mesh's blocks were prepared), and
    // the workspace counts it exactly.
    int64_t grown = mc_get_byte_count() - before;
    size_t used = mc_workspace_get_byte_count(ws);
    cr_assert(gt(sz, used, empty));
    cr_assert(eq(i64, (int64_t)(used - empty), grown));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(sphere);
}

// mc_parallel_for / mc_parallel_for_dynamic (src/base/parallel.c): every item exactly once, valid worker indices.
typedef struct par_probe
{
    atomic_int visits[1000];
    atomic_int bad_worker;
    int workers;
} par_probe;

static void par_task(uint32_t begin, uint32_t end, int worker, void* ctx)
{
    par_probe* p = ctx;
    if (worker < 0 || worker >= p->workers)
    {
        atomic_fetch_add(&p->bad_worker, 1);
    }
    for (uint32_t k = begin; k < end; ++k)
    {
        atomic_fetch_add(&p->visits[k], 1);
    }
}

Test(world, parallel_loops_visit_every_item_once)
{
    const uint32_t counts[] = {0, 1, 7, 64, 999, 1000};
    for (int dyn = 0; dyn < 2; ++dyn)
    {
        for (int workers = 1; workers <= 3; ++workers)
        {
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
            {
                static par_probe p;
                memset(&p, 0, sizeof p);
                p.workers = workers;
                int used = dyn ? mc_parallel_for_dynamic(workers, par_task, counts[c], 16, &p)
                               : mc_parallel_for(workers, par_task, counts[c], 8, &p);
                cr_assert(used >= (counts[c] > 0) && used <= workers, "used %d of %d", used, workers);
                cr_assert(eq(int, atomic_load(&p.bad_worker), 0));
                for (uint32_t k = 0; k < 1000; ++k)
                {
                    cr_assert(eq(int, atomic_load(&p.visits[k]), k < counts[c] ? 1 : 0),
                              "dyn %d workers %d count %u item %u", dyn, workers, counts[c], k);
                }
            }
        }
    }
}

// One touching pair: the parallelism is inside its query, and step info reports the threads that query ran on (a
// small pair stays on one), not the world's worker_count.
Test(world, step_info_threads_are_those_the_single_query_used)
{
    scene s;
    scene_make(&s, 1, 1e-3, 4);
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_step_info info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.candidate_pairs, 1));
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 4;
    mc_pose pp = mc_body_get_pose(s.world, s.plate_id), ps = mc_body_get_pose(s.world, s.sphere_id[0]);
    mc_region reg[4];
    uint32_t n = 0;
    mc_query_stats st;
    cr_assert(eq(int, mc_query_regions(s.plate, &pp, s.sphere, &ps, &opt, ws, reg, 4, &n, &st), MC_OK));
    cr_assert(eq(int, info.threads, st.threads));
    cr_assert(info.threads >= 1 && info.threads <= 4);
    mc_workspace_destroy(ws);
    scene_free(&s);
}

// ---------------------------------------------------------------------------------------------------------------
// Contact groups: many bodies in one definition
// ---------------------------------------------------------------------------------------------------------------

// A 3 x 2 x 2 grid of unit cube-spheres (972 triangles), each overlapping its face neighbours, turned by fixed
// rotations, plus one sphere far away; created in a shuffled slot order so that slot order is not grid order.
#define GRID_N 13
typedef struct grid
{
    mc_mesh* sphere;
    mc_world* world;
    mc_body_id ids[GRID_N];
    mc_pose poses[GRID_N];
} grid;

static void grid_make_world(grid* g, int workers, bool coherence)
{
    memset(g, 0, sizeof *g);
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_ELLIPSOID;
    pd.dims = mc_v3(1, 1, 1);
    mc_error err;
    cr_assert(eq(int, mc_mesh_create_primitive_count(&pd, 972, &g->sphere, &err), MC_OK));
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = workers;
    wd.coherence = coherence;
    cr_assert(eq(int, mc_world_create(&wd, &g->world), MC_OK));
    static const int order[GRID_N] = {7, 2, 11, 0, 5, 12, 9, 3, 1, 10, 4, 8, 6};
    for (int k = 0; k < GRID_N; ++k)
    {
        int c = order[k];
        mc_pose p = mc_pose_identity();
        p.p = c == 12 ? mc_v3(50, 50, 50) : mc_v3(1.9 * (c % 3), 1.9 * ((c / 3) % 2), 1.9 * (c / 6));
        p.q = mc_quat_normalize((mc_quat){1.0, 0.1 * c, 0.05 * (c % 4), -0.03 * c});
        mc_body_def bd = mc_default_body_def();
        bd.mesh = g->sphere;
        bd.pose = p;
        g->ids[c] = mc_world_create_body(g->world, &bd);
        g->poses[c] = p;
        cr_assert(mc_body_is_valid(g->world, g->ids[c]));
    }
}

static void grid_make(grid* g, int workers)
{
    grid_make_world(g, workers, true);
}

static void grid_free(grid* g)
{
    mc_world_destroy(g->world);
    mc_mesh_destroy(g->sphere);
}

static mc_contact_id grid_contact(grid* g, mc_contact_mode mode, const mc_body_id* i, uint32_t ni, const mc_body_id* j,
                                  uint32_t nj, const mc_body_pair* ex, uint32_t nex)
{
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = mode;
    cd.i_bodies = i;
    cd.i_count = ni;
    cd.j_bodies = j;
    cd.j_count = nj;
    cd.excluded_pairs = ex;
    cd.excluded_count = nex;
    cd.model = test_model();
    mc_contact_id id;
    mc_error err;
    cr_assert(eq(int, mc_world_create_contact(g->world, &cd, &id, &err), MC_OK), "%s", err.message);
    return id;
}

// Oracle: the stateless query of every unordered pair of grid bodies (I = the lower slot), brute force over all
// pairs. @return the number of touching pairs; lo/hi receive their slots (index1) in (lo, hi) order.
static int grid_oracle(const grid* g, int32_t* lo, int32_t* hi, mc_region* first)
{
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    int n = 0;
    for (int32_t a = 1; a <= GRID_N; ++a)
    {
        for (int32_t b = a + 1; b <= GRID_N; ++b)
        {
            mc_pose pa = mc_body_get_pose(g->world, (mc_body_id){a, 1});
            mc_pose pb = mc_body_get_pose(g->world, (mc_body_id){b, 1});
            mc_region r[4];
            uint32_t count = 0;
            cr_assert(eq(int, mc_query_regions(g->sphere, &pa, g->sphere, &pb, NULL, ws, r, 4, &count, NULL), MC_OK));
            if (count > 0)
            {
                cr_assert(eq(u32, count, 1), "one region per touching pair");
                lo[n] = a, hi[n] = b, first[n] = r[0];
                ++n;
            }
        }
    }
    mc_workspace_destroy(ws);
    return n;
}

Test(world, group_evaluates_each_touching_pair_once_with_the_lower_slot_as_i)
{
    grid g;
    grid_make(&g, 2);
    mc_contact_id c = grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    int32_t lo[GRID_N * GRID_N], hi[GRID_N * GRID_N];
    mc_region want[GRID_N * GRID_N];
    int n = grid_oracle(&g, lo, hi, want);
    cr_assert(eq(int, n, 20), "a 3 x 2 x 2 grid has 20 face-neighbour pairs (got %d)", n);
    mc_contact_region rec[64];
    cr_assert(eq(u32, get_records(g.world, rec, 64), (uint32_t)n));
    mc_step_info info = mc_world_get_step_info(g.world);
    cr_assert(eq(u32, info.defined_pairs, GRID_N * (GRID_N - 1) / 2));
    cr_assert(eq(u32, info.touching_pairs, (uint32_t)n));
    mc_vec3 total = mc_v3(0, 0, 0), moment = mc_v3(0, 0, 0);
    double scale = 0.0;
    for (int k = 0; k < n; ++k)
    {
        // sorted by (I slot, J slot): the oracle's order; the same geometry bit for bit as the stateless query
        cr_assert(eq(i32, rec[k].contact.index1, c.index1));
        cr_assert(eq(i32, rec[k].body_i.index1, lo[k]));
        cr_assert(eq(i32, rec[k].body_j.index1, hi[k]));
        cr_assert(eq(int, memcmp(&rec[k].region, &want[k], sizeof want[k]), 0), "pair %d: region differs", k);
        cr_assert(gt(dbl, rec[k].normal_force, 0.0));
        scale += rec[k].normal_force;
    }
    // equal and opposite: the wrenches of all bodies sum to zero force and zero moment about the origin
    for (int k = 0; k < GRID_N; ++k)
    {
        mc_wrench w = mc_body_get_wrench(g.world, g.ids[k]);
        total = mc_add(total, w.force);
        moment = mc_add(moment, mc_add(w.torque, mc_cross(g.poses[k].p, w.force)));
    }
    // each pair's contribution cancels exactly in exact arithmetic; rounding of 20 sums of O(scale) terms: 1e-12
    cr_assert(le(dbl, mc_length(total), 1e-12 * scale), "net force %g", mc_length(total));
    cr_assert(le(dbl, mc_length(moment), 1e-11 * scale), "net moment %g", mc_length(moment));
    cr_assert(eq(dbl, mc_length(mc_body_get_wrench(g.world, g.ids[12]).force), 0.0), "the far sphere is free");
    grid_free(&g);
}

// Records and wrenches of a world, for bitwise comparisons.
typedef struct snapshot
{
    uint32_t n;
    mc_contact_region rec[64];
    mc_wrench wr[GRID_N];
} snapshot;

static void take(grid* g, snapshot* s)
{
    memset(s, 0, sizeof *s);
    cr_assert(eq(int, mc_world_evaluate(g->world), MC_OK));
    s->n = get_records(g->world, s->rec, 64);
    mc_world_get_wrenches(g->world, g->ids, s->wr, GRID_N);
}

static void same(const snapshot* a, const snapshot* b, const char* what)
{
    cr_assert(eq(u32, a->n, b->n), "%s: record counts differ", what);
    cr_assert(eq(int, memcmp(a->rec, b->rec, a->n * sizeof a->rec[0]), 0), "%s: records differ", what);
    cr_assert(eq(int, memcmp(a->wr, b->wr, sizeof a->wr), 0), "%s: wrenches differ", what);
}

Test(world, overlapping_lists_in_any_order_equal_the_group)
{
    snapshot ref, got;
    grid g;
    grid_make(&g, 1);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    take(&g, &ref);
    grid_free(&g);
    // I = J = every body, in two different orders: the same pairs, I the lower slot, the same bits
    grid_make(&g, 1);
    mc_body_id rev[GRID_N], rot[GRID_N];
    for (int k = 0; k < GRID_N; ++k)
    {
        rev[k] = g.ids[GRID_N - 1 - k];
        rot[k] = g.ids[(k + 5) % GRID_N];
    }
    grid_contact(&g, MC_CONTACT_LISTS, rev, GRID_N, rot, GRID_N, NULL, 0);
    take(&g, &got);
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, GRID_N * (GRID_N - 1) / 2));
    grid_free(&g);
    same(&ref, &got, "lists I = J = all");
}

Test(world, lists_that_overlap_in_part_pair_each_body_pair_once)
{
    // I = {0..7}, J = {4..12}: pairs inside {4..7} are listed both ways (I = lower slot); the others one way (I from
    // the I list, even when its slot is higher). Oracle: the definition's rule applied to the brute-force pairs.
    grid g;
    grid_make(&g, 2);
    grid_contact(&g, MC_CONTACT_LISTS, g.ids, 8, g.ids + 4, GRID_N - 4, NULL, 0);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    int32_t lo[GRID_N * GRID_N], hi[GRID_N * GRID_N];
    mc_region want[GRID_N * GRID_N];
    int n = grid_oracle(&g, lo, hi, want);
    int32_t grid_of[GRID_N + 1]; // slot -> grid cell
    for (int k = 0; k < GRID_N; ++k)
    {
        grid_of[g.ids[k].index1] = k;
    }
    mc_contact_region rec[64];
    uint32_t m = get_records(g.world, rec, 64);
    uint32_t expected = 0;
    for (int k = 0; k < n; ++k)
    {
        int ca = grid_of[lo[k]], cb = grid_of[hi[k]];
        bool ab = ca < 8 && cb >= 4, ba = cb < 8 && ca >= 4;
        if (!ab && !ba)
        {
            continue;
        }
        int32_t want_i = ab ? lo[k] : hi[k], want_j = ab ? hi[k] : lo[k];
        bool found = false;
        for (uint32_t r = 0; r < m; ++r)
        {
            if (rec[r].body_i.index1 == want_i && rec[r].body_j.index1 == want_j)
            {
                cr_assert(not(found), "pair %d-%d twice", want_i, want_j);
                found = true;
            }
            cr_assert(not(rec[r].body_i.index1 == want_j && rec[r].body_j.index1 == want_i), "pair both ways");
        }
        cr_assert(found, "pair %d-%d missing", want_i, want_j);
        ++expected;
    }
    cr_assert(eq(u32, m, expected));
    // |I| |J| - m - m (m - 1) / 2 with m = |I & J| = 4: 8 * 9 - 4 - 6 = 62 defined pairs
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, 62));
    grid_free(&g);
}

Test(world, excluded_pairs_are_not_evaluated)
{
    snapshot all, ex;
    grid g;
    grid_make(&g, 2);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    take(&g, &all);
    grid_free(&g);
    grid_make(&g, 2);
    // two touching pairs (cells 0-1 and 4-10), one of them given twice and reversed, and a pair that does not touch
    mc_body_pair ex_pairs[4] = {
        {g.ids[0], g.ids[1]}, {g.ids[10], g.ids[4]}, {g.ids[4], g.ids[10]}, {g.ids[0], g.ids[12]}};
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, ex_pairs, 4);
    take(&g, &ex);
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, GRID_N * (GRID_N - 1) / 2 - 3));
    cr_assert(eq(u32, ex.n, all.n - 2));
    // the other records are those of the full group, bit for bit, in the same order
    uint32_t k = 0;
    for (uint32_t r = 0; r < all.n; ++r)
    {
        int32_t i = all.rec[r].body_i.index1, j = all.rec[r].body_j.index1;
        bool excluded = false;
        for (int e = 0; e < 4; ++e)
        {
            int32_t a = ex_pairs[e].a.index1, b = ex_pairs[e].b.index1;
            excluded = excluded || (a == i && b == j) || (a == j && b == i);
        }
        if (!excluded)
        {
            cr_assert(lt(u32, k, ex.n));
            cr_assert(eq(int, memcmp(&ex.rec[k], &all.rec[r], sizeof all.rec[r]), 0), "record %u differs", r);
            ++k;
        }
    }
    cr_assert(eq(u32, k, ex.n));
    grid_free(&g);
}

Test(world, group_results_do_not_depend_on_workers_or_history)
{
    snapshot ref, got;
    grid g;
    grid_make(&g, 1);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    take(&g, &ref);
    grid_free(&g);
    for (int workers = 2; workers <= 3; ++workers)
    {
        grid_make(&g, workers);
        grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
        // history: first a state where every body is apart, then one where all overlap in one place, then back
        mc_pose apart[GRID_N], pile[GRID_N];
        for (int k = 0; k < GRID_N; ++k)
        {
            apart[k] = g.poses[k];
            apart[k].p = mc_scale(g.poses[k].p, 3.0);
            pile[k] = g.poses[k];
            pile[k].p = mc_scale(g.poses[k].p, 0.01);
        }
        cr_assert(eq(int, mc_world_set_poses(g.world, g.ids, apart, GRID_N), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
        cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, 0));
        cr_assert(eq(int, mc_world_set_poses(g.world, g.ids, pile, GRID_N), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
        cr_assert(eq(int, mc_world_set_poses(g.world, g.ids, g.poses, GRID_N), MC_OK));
        take(&g, &got);
        same(&ref, &got, workers == 2 ? "2 workers after a history" : "3 workers after a history");
        grid_free(&g);
    }
}

Test(world, group_and_list_errors_create_nothing)
{
    mc_set_assert_fcn(continue_on_assert);
    grid g;
    grid_make(&g, 1);
    mc_body_id* id = g.ids;
    mc_body_id twice_i[3] = {id[0], id[1], id[0]};
    mc_body_id dead = id[11];
    mc_world_destroy_body(g.world, dead);
    mc_body_pair bad_dead = {id[0], dead}, bad_same = {id[2], id[2]}, bad_undefined = {id[1], id[2]};
    mc_body_pair stale = {id[0], {id[1].index1, id[1].generation + 3}};
    struct
    {
        mc_contact_mode mode;
        const mc_body_id* i;
        uint32_t ni;
        const mc_body_id* j;
        uint32_t nj;
        const mc_body_pair* ex;
        uint32_t nex;
        const char* message;
    } cases[] = {
        {MC_CONTACT_LISTS, twice_i, 3, id + 5, 2, NULL, 0, "listed twice in the contact's I list"},
        {MC_CONTACT_LISTS, id + 5, 2, twice_i, 3, NULL, 0, "listed twice in the contact's J list"},
        {MC_CONTACT_GROUP, twice_i, 3, NULL, 0, NULL, 0, "listed twice in the contact's group"},
        {MC_CONTACT_GROUP, id, 1, NULL, 0, NULL, 0, "at least two bodies"},
        {MC_CONTACT_GROUP, id, 3, id + 3, 1, NULL, 0, "takes one list"},
        {MC_CONTACT_GROUP, id, 3, NULL, 0, &bad_dead, 1, "invalid or destroyed body"},
        {MC_CONTACT_GROUP, id, 3, NULL, 0, &stale, 1, "invalid or destroyed body"},
        {MC_CONTACT_GROUP, id, 3, NULL, 0, &bad_same, 1, "the same body twice"},
        {MC_CONTACT_LISTS, id, 1, id + 1, 2, &bad_undefined, 1, "not a pair of this contact"},
        {MC_CONTACT_LISTS, id, 1, id, 1, NULL, 0, "pair no two different bodies"},
        {MC_CONTACT_GROUP, id, 3, NULL, 0, NULL, 2, "excluded_pairs is NULL"},
        {MC_CONTACT_LISTS, id, 2, &dead, 1, NULL, 0, "J body 0 of the contact is not a valid body"},
        {(mc_contact_mode)7, id, 2, id + 2, 1, NULL, 0, "contact mode 7"},
    };
    int64_t bytes = mc_get_byte_count();
    uint32_t slots = mc_world_get_max_capacity(g.world).contact_count;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    {
        mc_contact_def cd = mc_default_contact_def();
        cd.mode = cases[k].mode;
        cd.i_bodies = cases[k].i;
        cd.i_count = cases[k].ni;
        cd.j_bodies = cases[k].j;
        cd.j_count = cases[k].nj;
        cd.excluded_pairs = cases[k].ex;
        cd.excluded_count = cases[k].nex;
        mc_contact_id c = {0, 0};
        mc_error err;
        memset(&err, 0, sizeof err);
        cr_assert(eq(int, mc_world_create_contact(g.world, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT), "case %zu", k);
        cr_assert(strstr(err.message, cases[k].message) != NULL, "case %zu: '%s'", k, err.message);
        cr_assert(eq(i32, c.index1, 0), "case %zu: out-param untouched", k);
        // nothing half-created: no slot, and no memory kept beyond the capacity of the bodies' membership lists
        cr_assert(eq(u32, mc_world_get_max_capacity(g.world).contact_count, slots), "case %zu", k);
        cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
        cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, 0), "case %zu: no pair defined", k);
    }
    cr_assert(le(i64, mc_get_byte_count() - bytes, (int64_t)(GRID_N * 2 * 2 * sizeof(uint32_t) + 4096)));
    // a valid definition still works after all that, and destroying it unlinks its bodies
    mc_contact_id c = grid_contact(&g, MC_CONTACT_GROUP, id, 3, NULL, 0, NULL, 0);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, 3));
    mc_world_destroy_contact(g.world, c);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, 0));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, 0));
    grid_free(&g);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    mc_set_assert_fcn(NULL);
}

Test(world, unchanged_pairs_reuse_their_regions_bit_for_bit)
{
    // Oracle: a fresh world at the same state (a cold query of every pair).
    snapshot cold, warm;
    grid g;
    grid_make(&g, 2);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    take(&g, &cold);
    mc_step_info info = mc_world_get_step_info(g.world);
    cr_assert(eq(u32, info.reused_pairs, 0), "first evaluation: every pair is queried");
    uint32_t candidates = info.candidate_pairs;
    // same poses, new velocities: every pair reused, forces recomputed
    mc_twist v = {{0.0, 0.0, -0.5}, {0.0, 2.0, 0.0}};
    cr_assert(eq(int, mc_body_set_velocity(g.world, g.ids[4], &v), MC_OK));
    take(&g, &warm);
    info = mc_world_get_step_info(g.world);
    cr_assert(eq(u32, info.reused_pairs, candidates));
    cr_assert(eq(u64, info.triangle_tests, 0), "no query ran");
    grid_free(&g);
    grid_make(&g, 1);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    cr_assert(eq(int, mc_body_set_velocity(g.world, g.ids[4], &v), MC_OK));
    take(&g, &cold);
    same(&cold, &warm, "reused regions vs a cold world with the same velocities");
    // move one body by one ulp-sized step: its pairs are queried again, the others reused; still bitwise cold
    mc_pose p = g.poses[4];
    p.p.x = nextafter(p.p.x, 10.0);
    cr_assert(eq(int, mc_body_set_pose(g.world, g.ids[4], &p), MC_OK));
    take(&g, &warm);
    info = mc_world_get_step_info(g.world);
    cr_assert(lt(u32, info.reused_pairs, info.candidate_pairs));
    cr_assert(gt(u32, info.reused_pairs, 0));
    grid_free(&g);
    grid_make(&g, 3);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    cr_assert(eq(int, mc_body_set_velocity(g.world, g.ids[4], &v), MC_OK));
    cr_assert(eq(int, mc_body_set_pose(g.world, g.ids[4], &p), MC_OK));
    take(&g, &cold);
    same(&cold, &warm, "partly reused vs cold");
    grid_free(&g);
}

// FNV-1a over bytes (the hash of all wrenches and records of a step).
static uint64_t fnv_bytes(uint64_t h, const void* p, size_t n)
{
    const unsigned char* b = p;
    for (size_t i = 0; i < n; ++i)
    {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

// The poses of step k of a jittered sequence: every body moved by its own pattern of +-1e-7 (a host's resting step),
// plus, on some steps, one body turned by 0.01 rad or shifted by 0.15 (a front entry's gap is then exceeded and it
// is descended again; 0.15 also breaks contacts: the spheres overlap by 0.1), and the last steps back at the start (a
// front refined elsewhere meets its old poses).
static void coherence_poses(const grid* g, int k, mc_pose* out)
{
    for (int b = 0; b < GRID_N; ++b)
    {
        out[b] = g->poses[b];
        out[b].p.x += 1e-7 * (double)((b + k) % 3 - 1);
        out[b].p.z -= 1e-7 * (double)((b * 5 + k) % 3 - 1);
    }
    if (k % 4 == 1)
    {
        out[k % 12].p = mc_add(out[k % 12].p, mc_v3(0.15, -0.02, 0.01));
    }
    if (k % 4 == 2)
    {
        mc_quat dq = mc_quat_normalize((mc_quat){1.0, 0.005, -0.003, 0.002}); // about 0.012 rad
        out[(k + 5) % 12].q = mc_quat_normalize(mc_quat_mul(dq, out[(k + 5) % 12].q));
    }
    if (k >= 14)
    {
        memcpy(out, g->poses, sizeof g->poses);
    }
}

// The three worlds of the coherence tests, one group contact over the grid each: coherence off with 1 worker (the
// oracle: every moved pair queried from the roots), on with 1 and with 2 workers.
static void three_grids(grid g[3])
{
    const int workers[3] = {1, 1, 2};
    for (int w = 0; w < 3; ++w)
    {
        grid_make_world(&g[w], workers[w], w > 0);
        grid_contact(&g[w], MC_CONTACT_GROUP, g[w].ids, GRID_N, NULL, 0, NULL, 0);
    }
}

Test(world, coherent_queries_equal_cold_ones_bit_for_bit)
{
    // Three worlds on the same jittered sequence of 16 steps: traversal fronts on with 1 and 2 workers, off (every
    // moved pair queried from the roots: the oracle) with 1. Records and wrenches bitwise equal at every step, and
    // the hash of all of them over the sequence too; the fronts must also have skipped box tests, and pairs must have
    // replayed their certified triangle pairs (the test fails if coherence or the certified reuse never engages).
    grid g[3];
    three_grids(g);
    uint64_t hash[3] = {1469598103934665603ull, 1469598103934665603ull, 1469598103934665603ull};
    uint64_t box_tests[3] = {0, 0, 0};
    uint64_t certified[3] = {0, 0, 0}, planned[3] = {0, 0, 0};
    uint32_t touching_min = UINT32_MAX, touching_max = 0;
    static snapshot snap[3];
    for (int k = 0; k < 16; ++k)
    {
        mc_pose poses[GRID_N];
        coherence_poses(&g[0], k, poses);
        for (int w = 0; w < 3; ++w)
        {
            cr_assert(eq(int, mc_world_set_poses(g[w].world, g[w].ids, poses, GRID_N), MC_OK));
            take(&g[w], &snap[w]);
            mc_step_info info = mc_world_get_step_info(g[w].world);
            box_tests[w] += k > 0 ? info.box_tests : 0; // the first step records the fronts
            certified[w] += info.certified_pairs;
            planned[w] += info.planned_pairs;
            hash[w] = fnv_bytes(hash[w], snap[w].rec, snap[w].n * sizeof snap[w].rec[0]);
            hash[w] = fnv_bytes(hash[w], snap[w].wr, sizeof snap[w].wr);
            touching_min = info.touching_pairs < touching_min ? info.touching_pairs : touching_min;
            touching_max = info.touching_pairs > touching_max ? info.touching_pairs : touching_max;
        }
        same(&snap[0], &snap[1], "coherent (1 worker) vs cold");
        same(&snap[0], &snap[2], "coherent (2 workers) vs cold");
    }
    cr_assert(eq(u64, hash[1], hash[0]));
    cr_assert(eq(u64, hash[2], hash[0]));
    cr_assert(lt(u32, touching_min, touching_max), "the 0.15 shifts break contacts");
    cr_assert(lt(u64, 2u * box_tests[1], box_tests[0]), "fronts: %llu box tests, cold %llu",
              (unsigned long long)box_tests[1], (unsigned long long)box_tests[0]);
    cr_assert(eq(u64, certified[0], 0));
    cr_assert(gt(u64, certified[1], 0), "no pair replayed its certified triangle pairs");
    cr_assert(gt(u64, certified[2], 0), "no pair replayed its certified triangle pairs (2 workers)");
    cr_assert(eq(u64, planned[0], 0));
    cr_assert(gt(u64, planned[1], 0), "no pair restored its region plan");
    cr_assert(gt(u64, planned[2], 0), "no pair restored its region plan (2 workers)");
    for (int w = 0; w < 3; ++w)
    {
        grid_free(&g[w]);
    }
}

// xorshift64 (tests only): a fixed sequence.
static uint64_t next_random(uint64_t* x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

// Uniform in [-1, 1).
static double random_unit(uint64_t* x)
{
    return (double)(next_random(x) >> 11) * 0x1p-52 - 1.0;
}

// Step k of a random walk for certified_reuse_under_random_motions: each body moves from its pose of the step before by
// nothing, a tiny translation (1e-10 to 1e-7: below the certified margins of most pairs), a small one (about 1e-6,
// near them), a larger one (1e-5 or 1e-3: past them, the fronts rebase or descend) or a turn of about 2e-4 rad.
static void random_motion(uint64_t* rng, mc_pose* cur)
{
    for (int b = 0; b < GRID_N; ++b)
    {
        unsigned kind = (unsigned)(next_random(rng) % 8u);
        mc_vec3 d = mc_v3(random_unit(rng), random_unit(rng), random_unit(rng));
        double scale = kind <= 1u ? 0.0
                                  : (kind <= 3u ? 1e-10 * pow(10.0, 3.0 * (0.5 + 0.5 * random_unit(rng)))
                                                : (kind == 4u ? 1e-6 : (kind == 5u ? 1e-5 : 1e-3)));
        if (kind == 7u)
        {
            mc_quat dq = mc_quat_normalize((mc_quat){1.0, 1e-4 * d.x, 1e-4 * d.y, 1e-4 * d.z});
            cur[b].q = mc_quat_normalize(mc_quat_mul(dq, cur[b].q));
            continue;
        }
        cur[b].p = mc_add(cur[b].p, mc_scale(d, scale));
    }
}

Test(world, certified_reuse_under_random_motions_equals_cold_bit_for_bit)
{
    // 80 steps of random motions of every body (random_motion: from none to 1e-3 and small turns), coherence on with
    // 1 and 2 workers against coherence off (the oracle: every moved pair queried from the roots). Records and wrenches
    // bitwise equal at every step; some pairs must have replayed their certified triangle pairs, some must have
    // been tested again after the first step (motions past their margins), and some of those restored their region
    // plan from the same combinatorics (mc_step_info.restored_pairs).
    grid g[3];
    three_grids(g);
    mc_pose cur[GRID_N];
    memcpy(cur, g[0].poses, sizeof cur);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    uint64_t certified[3] = {0, 0, 0}, planned[3] = {0, 0, 0}, restored[3] = {0, 0, 0}, tested = 0;
    static snapshot snap[3];
    // Debug and sanitizer builds take 30 of the 80 steps (CI's time budget): certified replays, retests and restored
    // plans all occur within them (the counts are asserted below).
#ifdef NDEBUG
    const int steps = 80;
#else
    const int steps = 30;
#endif
    for (int k = 0; k < steps; ++k)
    {
        if (k > 0)
        {
            random_motion(&rng, cur);
        }
        for (int w = 0; w < 3; ++w)
        {
            cr_assert(eq(int, mc_world_set_poses(g[w].world, g[w].ids, cur, GRID_N), MC_OK));
            take(&g[w], &snap[w]);
            mc_step_info info = mc_world_get_step_info(g[w].world);
            certified[w] += info.certified_pairs;
            planned[w] += info.planned_pairs;
            restored[w] += info.restored_pairs;
            if (w == 1 && k > 0)
            {
                tested += info.candidate_pairs - info.reused_pairs - info.certified_pairs;
            }
        }
        same(&snap[0], &snap[1], "coherent (1 worker) vs cold");
        same(&snap[0], &snap[2], "coherent (2 workers) vs cold");
    }
    cr_assert(eq(u64, certified[0], 0));
    cr_assert(gt(u64, certified[1], 0), "no pair replayed its certified triangle pairs");
    cr_assert(gt(u64, certified[2], 0), "no pair replayed its certified triangle pairs (2 workers)");
    cr_assert(gt(u64, tested, 0), "no pair was tested again");
    cr_assert(gt(u64, planned[1], 0), "no pair restored its region plan");
    cr_assert(gt(u64, planned[2], 0), "no pair restored its region plan (2 workers)");
    // Pairs tested again whose triangle pairs kept their combinatorics restore the plan too (certified_reuse bit 2),
    // counted apart: none without coherence, some with it.
    cr_assert(eq(u64, restored[0], 0));
    cr_assert(gt(u64, restored[1], 0), "no tested pair restored its region plan by its combinatorics");
    cr_assert(gt(u64, restored[2], 0), "no tested pair restored its region plan by its combinatorics (2 workers)");
    cr_assert(lt(u64, planned[1], certified[1] + 1u), "a plan is restored only with certified pairs");
    for (int w = 0; w < 3; ++w)
    {
        grid_free(&g[w]);
    }
}

Test(world, sustained_motions_query_without_fronts_bit_for_bit)
{
    // 24 steps in which every body keeps moving: body b by 1e-2 (b + 1) along x, the sign alternating each step, so
    // any two bodies move 1e-2 or more apart (past WORLD_FRONT_MOTION of a unit sphere's reach, 8.7e-3) at every step
    // and the grid stays in place. The coherent worlds must then query every moved pair from the roots as the cold one
    // does, without recording a front (which a sustained motion never pays back): no library memory is taken after
    // the first evaluation (a front's first recording would allocate its entries), the same box tests at every step,
    // and the records and wrenches bit for bit, with 1 and 2 workers.
    grid g[3];
    three_grids(g);
    mc_pose cur[GRID_N];
    memcpy(cur, g[0].poses, sizeof cur);
    static snapshot snap[3];
    uint64_t box_tests[3] = {0, 0, 0};
    int64_t warm_bytes = 0;
    for (int k = 0; k < 24; ++k)
    {
        for (int b = 0; b < GRID_N && k > 0; ++b)
        {
            cur[b].p.x += (k % 2 == 0 ? 1e-2 : -1e-2) * (double)(b + 1);
        }
        for (int w = 0; w < 3; ++w)
        {
            cr_assert(eq(int, mc_world_set_poses(g[w].world, g[w].ids, cur, GRID_N), MC_OK));
            take(&g[w], &snap[w]);
            mc_step_info info = mc_world_get_step_info(g[w].world);
            box_tests[w] = info.box_tests;
            cr_assert(eq(u32, info.certified_pairs, 0));
        }
        same(&snap[0], &snap[1], "coherent (1 worker) vs cold");
        same(&snap[0], &snap[2], "coherent (2 workers) vs cold");
        cr_assert(gt(u32, snap[0].n, 0u));
        cr_assert(eq(u64, box_tests[1], box_tests[0]), "step %d: %llu box tests, cold %llu", k,
                  (unsigned long long)box_tests[1], (unsigned long long)box_tests[0]);
        cr_assert(eq(u64, box_tests[2], box_tests[0]), "step %d (2 workers)", k);
        warm_bytes = k == 0 ? mc_get_byte_count() : warm_bytes;
        cr_assert(eq(i64, mc_get_byte_count(), warm_bytes), "step %d: the worlds took memory (a front recorded)", k);
    }
    for (int w = 0; w < 3; ++w)
    {
        grid_free(&g[w]);
    }
}

// A motion of body b at step k for enlarged_boxes_give_the_candidates_of_a_cold_broad_phase. Small ones (translations
// of 0, 0.003 or 0.03 and turns of 0.005 rad) stay inside the enlarged boxes, which grow a unit sphere's box by 0.1;
// big ones (0.2 or 0.6, turns of 0.3 rad) leave them. Steps 4 i and 4 i + 2 are small for all bodies, steps 4 i + 1 big
// for bodies i and i + 1 mod 13 only (the broad phase updates those two, pairs of two moved bodies included), steps
// 4 i + 3 big for about half the bodies (it rebuilds).
static void broad_motion(uint64_t* rng, int k, int b, mc_vec3* offset, mc_quat* q)
{
    unsigned kind = (unsigned)(next_random(rng) % 6u);
    mc_vec3 d = mc_v3(random_unit(rng), random_unit(rng), random_unit(rng));
    bool big = k % 4 == 3 || (k % 4 == 1 && (b == (k / 4) % GRID_N || b == (k / 4 + 1) % GRID_N));
    if (k % 4 == 1 && big)
    {
        kind = 1u + (unsigned)(k / 4) % 2u * 4u; // 0.2 or a turn of 0.3
    }
    static const double small_step[6] = {0.0, 0.003, 0.03, 0.0, 0.003, 0.03};
    static const double big_step[6] = {0.0, 0.2, 0.6, 0.03, 0.2, 0.0};
    double step = big ? big_step[kind] : small_step[kind];
    if (kind == 5u)
    {
        double turn = big ? 0.3 : 0.005;
        mc_quat dq = mc_quat_normalize((mc_quat){1.0, 0.5 * turn * d.x, 0.5 * turn * d.y, 0.5 * turn * d.z});
        *q = mc_quat_normalize(mc_quat_mul(dq, *q));
        return;
    }
    mc_vec3 o = mc_add(*offset, mc_scale(d, step));
    // keep within 0.8 of the grid pose (the grid spacing is 1.9): bodies meet and part, but never pile up
    *offset = mc_v3(fmax(-0.8, fmin(0.8, o.x)), fmax(-0.8, fmin(0.8, o.y)), fmax(-0.8, fmin(0.8, o.z)));
}

Test(world, enlarged_boxes_give_the_candidates_of_a_cold_broad_phase)
{
    // 80 steps of broad_motion for every body. World 0 keeps its enlarged boxes and fat pairs while every body stays
    // inside them, updates the bodies that left them when they are few and rebuilds otherwise (coherence on); world 1
    // rebuilds its tree every evaluation (coherence off: the oracle of the broad phase); the brute-force query of
    // every pair (grid_oracle) gives the touching pairs. At every step: the same candidate count, the same records and
    // wrenches bit for bit, the touching pairs of the brute force, and the fat pairs a superset of the candidates.
    // World 0 must have kept, updated and rebuilt (else the test would not exercise each way), world 1 rebuilt every
    // time.
    grid g[2];
    grid_make_world(&g[0], 1, true);
    grid_make_world(&g[1], 1, false);
    for (int w = 0; w < 2; ++w)
    {
        grid_contact(&g[w], MC_CONTACT_GROUP, g[w].ids, GRID_N, NULL, 0, NULL, 0);
    }
    mc_vec3 offset[GRID_N];
    mc_quat q[GRID_N];
    for (int b = 0; b < GRID_N; ++b)
    {
        offset[b] = mc_v3(0, 0, 0);
        q[b] = g[0].poses[b].q;
    }
    uint64_t rng = 0xD1B54A32D192ED03ull;
    uint32_t kept = 0, updated = 0, rebuilt = 0, touching_min = UINT32_MAX, touching_max = 0;
    static snapshot snap[2];
    for (int k = 0; k < 80; ++k)
    {
        mc_pose cur[GRID_N];
        for (int b = 0; b < GRID_N; ++b)
        {
            if (k > 0)
            {
                broad_motion(&rng, k, b, &offset[b], &q[b]);
            }
            cur[b].p = mc_add(g[0].poses[b].p, offset[b]);
            cur[b].q = q[b];
        }
        mc_step_info info[2];
        for (int w = 0; w < 2; ++w)
        {
            cr_assert(eq(int, mc_world_set_poses(g[w].world, g[w].ids, cur, GRID_N), MC_OK));
            take(&g[w], &snap[w]);
            info[w] = mc_world_get_step_info(g[w].world);
            cr_assert(ge(u32, info[w].broad_pairs, info[w].candidate_pairs), "step %d, world %d", k, w);
        }
        same(&snap[0], &snap[1], "enlarged boxes vs rebuilt");
        cr_assert(eq(u32, info[0].candidate_pairs, info[1].candidate_pairs), "step %d", k);
        cr_assert(eq(u32, info[1].broad_rebuilt, 1), "step %d: coherence off rebuilds", k);
        kept += k > 0 && info[0].broad_rebuilt == 0 && info[0].broad_moved == 0;
        updated += k > 0 && info[0].broad_rebuilt == 0 && info[0].broad_moved > 0;
        rebuilt += k > 0 && info[0].broad_rebuilt == 1;
        int32_t lo[GRID_N * GRID_N], hi[GRID_N * GRID_N];
        mc_region first[GRID_N * GRID_N];
        int n = grid_oracle(&g[0], lo, hi, first);
        cr_assert(eq(u32, info[0].touching_pairs, (uint32_t)n), "step %d: brute force", k);
        touching_min = info[0].touching_pairs < touching_min ? info[0].touching_pairs : touching_min;
        touching_max = info[0].touching_pairs > touching_max ? info[0].touching_pairs : touching_max;
    }
    cr_assert(gt(u32, kept, 0), "the fat pairs were never kept");
    cr_assert(gt(u32, updated, 0), "the moved bodies' pairs were never updated");
    cr_assert(gt(u32, rebuilt, 0), "no rebuild after the first step");
    cr_assert(lt(u32, touching_min, touching_max), "the motions make and break contacts");
    for (int w = 0; w < 2; ++w)
    {
        grid_free(&g[w]);
    }
}

// n bodies of `mesh` in a row along x, `spacing` apart from the origin, and one group of them all (the default force
// model when `model` is NULL).
static void row_group(mc_world* w, const mc_mesh* mesh, int n, double spacing, mc_body_id* ids,
                      const mc_force_model* model)
{
    for (int k = 0; k < n; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = mesh;
        bd.pose.p = mc_v3(spacing * k, 0.0, 0.0);
        ids[k] = mc_world_create_body(w, &bd);
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = ids;
    cd.i_count = (uint32_t)n;
    if (model != NULL)
    {
        cd.model = *model;
    }
    mc_contact_id c;
    mc_error err;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_OK), "%s", err.message);
}

Test(world, two_moved_bodies_find_each_other_through_the_refitted_tree)
{
    // 13 unit spheres in a row, 3 apart (no contact; four to a leaf of the broad phase's tree). Then the two at the
    // ends move next to each other, off the row: two moved bodies of 13 make an update, not a rebuild, and their pair
    // is found only if the tree's boxes follow the moved bodies (the far leaves' boxes did not contain them).
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_ELLIPSOID;
    pd.dims = mc_v3(1, 1, 1);
    mc_mesh* sphere = NULL;
    mc_error err;
    cr_assert(eq(int, mc_mesh_create_primitive_count(&pd, 972, &sphere, &err), MC_OK));
    mc_world* w = NULL;
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_id ids[13];
    mc_force_model model = test_model();
    row_group(w, sphere, 13, 3.0, ids, &model);
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    mc_step_info info = mc_world_get_step_info(w);
    cr_assert(eq(u32, info.broad_rebuilt, 1));
    cr_assert(eq(u32, info.candidate_pairs, 0));
    mc_pose a = mc_pose_identity(), b = mc_pose_identity();
    a.p = mc_v3(18.0, 5.0, 0.0);
    b.p = mc_v3(19.5, 5.0, 0.0);
    cr_assert(eq(int, mc_body_set_pose(w, ids[0], &a), MC_OK));
    cr_assert(eq(int, mc_body_set_pose(w, ids[12], &b), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    info = mc_world_get_step_info(w);
    cr_assert(eq(u32, info.broad_rebuilt, 0), "two of 13 bodies moved: an update");
    cr_assert(eq(u32, info.broad_moved, 2));
    cr_assert(eq(u32, info.candidate_pairs, 1), "the two moved spheres overlap");
    cr_assert(eq(u32, info.touching_pairs, 1));
    mc_world_destroy(w);
    mc_mesh_destroy(sphere);
}

Test(world, group_memory_grows_with_bodies_not_pairs)
{
    // 3000 unit boxes 2 apart in a line, one group: 4498500 defined pairs, none touching. Pair records of every
    // combination (about 100 bytes each) would take 450 MB; bodies, memberships, the broad phase and the contact's
    // member list take a few hundred bytes per body.
    enum
    {
        N = 3000
    };
    mc_mesh* box = wscene_box(mc_v3(-0.5, -0.5, -0.5), mc_v3(0.5, 0.5, 0.5));
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 2;
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    int64_t before = mc_get_byte_count();
    mc_body_id* ids = malloc(N * sizeof *ids);
    row_group(w, box, N, 2.0, ids, NULL);
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    mc_step_info info = mc_world_get_step_info(w);
    cr_assert(eq(u32, info.defined_pairs, (uint32_t)N * (N - 1) / 2));
    cr_assert(eq(u32, info.candidate_pairs, 0));
    int64_t bytes = mc_get_byte_count() - before;
    cr_assert(lt(i64, bytes, (int64_t)N * 1024), "%lld bytes for %d bodies", (long long)bytes, N);
    // move every other box 1.01 right: 0.01 into its right neighbour, N / 2 touching pairs, records only for them
    for (int k = 0; k < N; k += 2)
    {
        mc_pose p = mc_pose_identity();
        p.p = mc_v3(2.0 * k + 1.01, 0.0, 0.0);
        cr_assert(eq(int, mc_body_set_pose(w, ids[k], &p), MC_OK));
    }
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    info = mc_world_get_step_info(w);
    cr_assert(eq(u32, info.touching_pairs, N / 2));
    cr_assert(eq(u32, info.candidate_pairs, N / 2), "no other box is within 0.01 of a moved one");
    free(ids);
    mc_world_destroy(w);
    mc_mesh_destroy(box);
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

Test(world, a_body_pair_in_two_definitions_is_evaluated_in_each)
{
    // Oracle: the group alone (records of the group) and the pair alone (its stateless query, as in the group).
    snapshot group_only, both;
    grid g;
    grid_make(&g, 2);
    mc_contact_id cg = grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    take(&g, &group_only);
    // a second definition listing cells 0 and 1 the other way round (I = cell 1): both definitions evaluate it
    mc_contact_id cl = grid_contact(&g, MC_CONTACT_LISTS, &g.ids[1], 1, &g.ids[0], 1, NULL, 0);
    take(&g, &both);
    cr_assert(eq(u32, both.n, group_only.n + 1));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, GRID_N * (GRID_N - 1) / 2 + 1));
    // the group's records come first (lower contact slot), unchanged; the last record is the second definition's
    cr_assert(eq(int, memcmp(both.rec, group_only.rec, group_only.n * sizeof both.rec[0]), 0));
    const mc_contact_region* last = &both.rec[both.n - 1];
    cr_assert(eq(i32, last->contact.index1, cl.index1));
    cr_assert(eq(i32, last->body_i.index1, g.ids[1].index1));
    cr_assert(eq(i32, last->body_j.index1, g.ids[0].index1));
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region r[4];
    uint32_t count = 0;
    mc_pose p1 = mc_body_get_pose(g.world, g.ids[1]), p0 = mc_body_get_pose(g.world, g.ids[0]);
    cr_assert(eq(int, mc_query_regions(g.sphere, &p1, g.sphere, &p0, NULL, ws, r, 4, &count, NULL), MC_OK));
    mc_workspace_destroy(ws);
    cr_assert(eq(u32, count, 1));
    cr_assert(eq(int, memcmp(&last->region, &r[0], sizeof r[0]), 0), "I = cell 1: the query the other way round");
    // destroying the group leaves the other definition's pair alone; its bodies are unlinked from the group
    mc_world_destroy_contact(g.world, cg);
    take(&g, &both);
    cr_assert(eq(u32, both.n, 1));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).defined_pairs, 1));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, 1));
    cr_assert(eq(int, memcmp(&both.rec[0].region, &r[0], sizeof r[0]), 0));
    grid_free(&g);
}

Test(world, the_broad_phase_sees_every_change_after_unchanged_evaluations)
{
    // Oracle: brute-force touching pairs (grid_oracle) and the grid's geometry; in this grid the bounding spheres of
    // non-neighbours are apart, so the candidates are exactly the touching pairs.
    grid g;
    grid_make(&g, 2);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    int32_t lo[GRID_N * GRID_N], hi[GRID_N * GRID_N];
    mc_region want[GRID_N * GRID_N];
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    uint32_t n0 = (uint32_t)grid_oracle(&g, lo, hi, want);
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, n0));
    // the same poses set again, bitwise: nothing changes
    mc_pose same_poses[GRID_N];
    for (int k = 0; k < GRID_N; ++k)
    {
        same_poses[k] = mc_body_get_pose(g.world, g.ids[k]);
    }
    cr_assert(eq(int, mc_world_set_poses(g.world, g.ids, same_poses, GRID_N), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, n0));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).reused_pairs, n0));
    // one body moved far away (single setter): its pairs go
    mc_pose far = mc_pose_identity();
    far.p = mc_v3(-40, 0, 0);
    cr_assert(eq(int, mc_body_set_pose(g.world, g.ids[0], &far), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    uint32_t n1 = (uint32_t)grid_oracle(&g, lo, hi, want);
    cr_assert(lt(u32, n1, n0));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, n1));
    // a body destroyed: its pairs go
    mc_world_destroy_body(g.world, g.ids[4]);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    uint32_t n2 = mc_world_get_step_info(g.world).candidate_pairs;
    cr_assert(lt(u32, n2, n1));
    // a second definition over two touching bodies: one more candidate
    grid_contact(&g, MC_CONTACT_LISTS, &g.ids[1], 1, &g.ids[2], 1, NULL, 0);
    cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(g.world).candidate_pairs, n2 + 1));
    grid_free(&g);
}

// Contact prediction (mc_world_get_step_hint). The pose of a body with constant twist (v, w) at time t.
static mc_pose hint_pose_at(mc_pose p0, mc_twist tw, double t)
{
    mc_pose p;
    p.p = mc_add(p0.p, mc_scale(tw.v, t));
    double a = mc_length(tw.w) * t;
    mc_vec3 axis = a > 0.0 ? mc_normalize(tw.w) : mc_v3(1.0, 0.0, 0.0);
    mc_quat r = {cos(0.5 * a), axis.x * sin(0.5 * a), axis.y * sin(0.5 * a), axis.z * sin(0.5 * a)};
    p.q = mc_quat_normalize(mc_quat_mul(r, p0.q));
    return p;
}

// Are the two solids in contact (crossing, contained or at distance 0) at these poses? (The distance query is
// checked against brute force in test_distance.)
static bool hint_in_contact(const mc_mesh* a, const mc_pose* pa, const mc_mesh* b, const mc_pose* pb)
{
    mc_workspace* ws = NULL;
    cr_assert(mc_workspace_create(&ws) == MC_OK);
    mc_distance_result r;
    cr_assert(mc_query_distance(a, pa, b, pb, INFINITY, NULL, ws, &r) == MC_OK);
    mc_workspace_destroy(ws);
    return r.kind != MC_DISTANCE_SEPARATED || r.distance == 0.0;
}

// A thin plate (1 mm) and a cube above it with a twist; returns the hint and, by a fine scan of the motion, brackets
// the first contact time: in contact at *t_hi, at no scanned time before *t_lo = *t_hi - dt.
static double hint_scene(mc_twist tw, double gap, mc_quat q0, double* t_lo, double* t_hi)
{
    mc_mesh* plate = wscene_box(mc_v3(-0.5, -0.5, -0.001), mc_v3(0.5, 0.5, 0.0));
    mc_mesh* cube = wscene_box(mc_v3(-0.01, -0.01, -0.01), mc_v3(0.01, 0.01, 0.01));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id a = mc_world_create_body(w, &bd);
    bd.mesh = cube;
    // Lowest point of the (rotated) cube `gap` above the plate.
    double low = 0.0;
    for (int k = 0; k < 8; ++k)
    {
        mc_vec3 c = mc_v3(k & 1 ? 0.01 : -0.01, k & 2 ? 0.01 : -0.01, k & 4 ? 0.01 : -0.01);
        low = fmin(low, mc_quat_rotate(q0, c).z);
    }
    bd.pose.p = mc_v3(0.02, -0.03, gap - low);
    bd.pose.q = q0;
    mc_body_id b = mc_world_create_body(w, &bd);
    cr_assert(eq(int, mc_body_set_velocity(w, b, &tw), MC_OK));
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &a;
    cd.i_count = 1;
    cd.j_bodies = &b;
    cd.j_count = 1;
    mc_contact_id c;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, NULL), MC_OK));
    double hint = -1.0;
    cr_assert(eq(int, mc_world_get_step_hint(w, &hint), MC_OK));
    mc_pose p0 = bd.pose, pa = mc_pose_identity();
    // Scan in steps of hint / 400 until contact (at most 100 hints).
    double dt = hint / 400.0;
    *t_hi = INFINITY;
    for (int k = 1; k <= 40000; ++k)
    {
        mc_pose pb = hint_pose_at(p0, tw, k * dt);
        if (hint_in_contact(plate, &pa, cube, &pb))
        {
            *t_hi = k * dt;
            *t_lo = (k - 1) * dt;
            break;
        }
    }
    mc_world_destroy(w);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(cube);
    return hint;
}

Test(world, step_hint_face_on_is_the_time_of_impact)
{
    // A cube falling flat at 2 m/s, 1 cm above the plate: contact at exactly 5 ms, and the bound d / |v| is exact
    // for a pure translation (no rotation term): the hint must lie in the scan's bracket (the scan step is hint/400).
    double lo = 0.0, hi = 0.0;
    mc_twist tw = {mc_v3(0.0, 0.0, -2.0), mc_v3(0.0, 0.0, 0.0)};
    double hint = hint_scene(tw, 0.01, mc_quat_identity(), &lo, &hi);
    cr_assert(fabs(hint - 0.005) <= 1e-12, "hint %.17g", hint);
    cr_assert(hint <= hi && hint >= lo, "hint %g, contact in (%g, %g]", hint, lo, hi);
}

Test(world, step_hint_never_exceeds_the_first_contact)
{
    uint64_t rng = 3;
    for (int n = 0; n < 8; ++n)
    {
        // Random orientation and twist, moving down on the whole (some spin fast: the rotation term dominates).
        double u[7];
        for (int k = 0; k < 7; ++k)
        {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(rng >> 11) * 0x1.0p-53 * 2.0 - 1.0;
        }
        mc_quat q0 = mc_quat_normalize((mc_quat){u[0], u[1], u[2], u[3]});
        mc_twist tw = {mc_v3(0.5 * u[4], 0.5 * u[5], -1.0 - fabs(u[6])), mc_v3(40.0 * u[6], -30.0 * u[5], 20.0 * u[4])};
        double lo = 0.0, hi = 0.0;
        double hint = hint_scene(tw, 0.005, q0, &lo, &hi);
        cr_assert(isfinite(hi), "case %d: no contact found", n);
        // The guarantee: no scanned time before the hint is in contact (the first contact is after lo >= hint).
        cr_assert(hint <= lo + 1e-15, "case %d: hint %g, contact in (%g, %g]", n, hint, lo, hi);
        // Conservative but useful: the bound loses the rotation term (|w| (|c - p| + r), up to ~0.9 m/s here,
        // against |v| of 1-2 m/s); measured 0.65-0.91 of the contact time on these cases.
        cr_assert(hint >= 0.5 * lo, "case %d: hint %g is below half the contact time %g", n, hint, lo);
        cr_log_info("step hint case %d: hint %.4g s, first contact in (%.4g, %.4g] s, ratio %.3f", n, hint, lo, hi,
                    hint / hi);
    }
}

Test(world, step_hint_pairs_in_contact_and_still_bodies)
{
    mc_mesh* plate = wscene_box(mc_v3(-0.5, -0.5, -0.1), mc_v3(0.5, 0.5, 0.0));
    mc_mesh* cube = wscene_box(mc_v3(-0.01, -0.01, -0.01), mc_v3(0.01, 0.01, 0.01));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    double hint = 0.0;
    cr_assert(eq(int, mc_world_get_step_hint(w, &hint), MC_OK));
    cr_assert(hint == INFINITY); // no bodies
    mc_body_def bd = mc_default_body_def();
    bd.mesh = plate;
    mc_body_id ids[3];
    ids[0] = mc_world_create_body(w, &bd);
    bd.mesh = cube;
    bd.pose.p = mc_v3(0.0, 0.0, 0.005); // in the plate by 5 mm
    ids[1] = mc_world_create_body(w, &bd);
    bd.pose.p = mc_v3(0.2, 0.0, 0.05); // 4 cm above it
    ids[2] = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = ids;
    cd.i_count = 1;
    cd.j_bodies = ids + 1;
    cd.j_count = 2;
    mc_contact_id c;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, NULL), MC_OK));
    cr_assert(eq(int, mc_world_get_step_hint(w, &hint), MC_OK));
    cr_assert(hint == INFINITY); // nothing moves
    mc_twist down = {mc_v3(0.0, 0.0, -1.0), mc_v3(0.0, 0.0, 0.0)};
    cr_assert(eq(int, mc_body_set_velocity(w, ids[1], &down), MC_OK));
    // The pair in contact is left out; the other one cannot close.
    cr_assert(eq(int, mc_world_get_step_hint(w, &hint), MC_OK));
    cr_assert(hint == INFINITY, "hint %g", hint);
    cr_assert(eq(int, mc_body_set_velocity(w, ids[2], &down), MC_OK));
    cr_assert(eq(int, mc_world_get_step_hint(w, &hint), MC_OK));
    cr_assert(fabs(hint - 0.04) < 1e-12, "hint %.17g", hint);
    cr_assert(eq(int, mc_world_get_step_hint(w, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_world_get_step_hint(NULL, &hint), MC_ERR_INVALID_ARGUMENT));
    mc_world_destroy(w);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(cube);
}

// A comb of `teeth` separate unit boxes (one mesh, one component each) in a row along x, 0.2 apart.
static mc_mesh* comb(int teeth)
{
    double* pos = calloc(24u * (size_t)teeth, sizeof *pos);
    uint32_t* idx = calloc(36u * (size_t)teeth, sizeof *idx);
    static const uint32_t box_idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                         2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    for (int t = 0; t < teeth; ++t)
    {
        for (int c = 0; c < 8; ++c)
        {
            pos[24 * t + 3 * c + 0] = 0.2 * t + ((c & 1) ? 0.1 : 0.0);
            pos[24 * t + 3 * c + 1] = (c & 2) ? 0.1 : 0.0;
            pos[24 * t + 3 * c + 2] = (c & 4) ? 0.1 : 0.0;
        }
        for (int k = 0; k < 36; ++k)
        {
            idx[36 * t + k] = 8u * (uint32_t)t + box_idx[k];
        }
    }
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = pos;
    md.vertex_count = 8u * (uint32_t)teeth;
    md.indices = idx;
    md.triangle_count = 12u * (uint32_t)teeth;
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create(&md, &m, NULL, NULL), MC_OK));
    free(pos);
    free(idx);
    return m;
}

// A pair's first evaluation keeps its regions from the one query (query_pair's first buffer of 8 regions) or, with
// more, queries again into a buffer of their count: a comb of 3 and of 12 teeth pressed 0.01 into a plate (3 and 12
// regions) gives, in its first evaluation and in a second one at the same poses (cold and coherent worlds), the
// regions mc_query_regions gives at those poses, bit for bit, in the order of decreasing volume (the teeth pressed
// deeper the further along x, so no two volumes tie).
Test(world, a_first_evaluation_keeps_every_region_of_its_one_query)
{
    mc_mesh* plate = wscene_box(mc_v3(-1, -1, -1), mc_v3(3, 1, 0));
    for (int teeth = 3; teeth <= 12; teeth += 9)
    {
        mc_mesh* m = comb(teeth);
        mc_pose pc = mc_pose_identity();
        pc.p = mc_v3(0.0, 0.0, -0.01);
        pc.q = mc_quat_normalize((mc_quat){1.0, 0.0, 0.01, 0.0}); // tilted: the teeth go deeper along +x
        mc_region want[16];
        uint32_t n_want = 0;
        mc_workspace* ws = NULL;
        cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
        mc_pose id = mc_pose_identity();
        cr_assert(eq(int, mc_query_regions(plate, &id, m, &pc, NULL, ws, want, 16, &n_want, NULL), MC_OK));
        cr_assert(eq(u32, n_want, (uint32_t)teeth));
        mc_workspace_destroy(ws);
        for (int coherent = 0; coherent < 2; ++coherent)
        {
            mc_world_def wd = mc_default_world_def();
            wd.coherence = coherent != 0;
            mc_world* w = NULL;
            cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
            mc_body_def bd = mc_default_body_def();
            bd.mesh = plate;
            mc_body_id bp = mc_world_create_body(w, &bd);
            bd.mesh = m;
            bd.pose = pc;
            mc_body_id bc = mc_world_create_body(w, &bd);
            mc_contact_id cid;
            cr_assert(eq(int, wscene_contact(w, bp, bc, NULL, &cid), MC_OK));
            for (int call = 0; call < 2; ++call)
            {
                cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
                mc_contact_region got[16];
                uint32_t n = get_records(w, got, 16);
                cr_assert(eq(u32, n, n_want), "teeth %d coherent %d call %d: %u regions", teeth, coherent, call, n);
                for (uint32_t k = 0; k < n; ++k)
                {
                    cr_assert(got[k].region.volume == want[k].volume &&
                                  memcmp(&got[k].region.centroid, &want[k].centroid, sizeof(mc_vec3)) == 0 &&
                                  got[k].region.area == want[k].area && got[k].region.depth == want[k].depth,
                              "teeth %d coherent %d call %d region %u: volume %.17g want %.17g", teeth, coherent, call,
                              k, got[k].region.volume, want[k].volume);
                }
            }
            mc_world_destroy(w);
        }
        mc_mesh_destroy(m);
    }
    mc_mesh_destroy(plate);
}

Test(world, memory_statistics_add_up_and_region_buffers_fit_their_regions)
{
    // mc_world_memory_get (world_memory.h) on a coherent grid of spheres over 8 steps of coherence_poses. At every step
    // it counts the live pairs (the step's candidates), at most one front per pair record (live or pooled), every
    // part's used bytes within its held bytes, and the held parts sum to at most what the library holds beside the mesh
    // (mc_get_byte_count). From the second step on the fronts are recorded (a pair's second coherent query) and hold
    // entries. At the first step each touching pair's region buffer holds exactly its one region (world_evaluate.c,
    // query_pair: sized to the count; 4 regions, 736 bytes for 184, before).
    grid g;
    grid_make_world(&g, 1, true);
    grid_contact(&g, MC_CONTACT_GROUP, g.ids, GRID_N, NULL, 0, NULL, 0);
    cr_assert(eq(sz, mc_world_memory_held(&(mc_world_memory){0}), 0));
    for (int k = 0; k < 8; ++k)
    {
        mc_pose poses[GRID_N];
        coherence_poses(&g, k, poses);
        cr_assert(eq(int, mc_world_set_poses(g.world, g.ids, poses, GRID_N), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(g.world), MC_OK));
        mc_step_info info = mc_world_get_step_info(g.world);
        mc_world_memory m = mc_world_memory_get(g.world);
        const mc_front_memory* f = &m.front;
        cr_assert(eq(u32, m.pairs, info.candidate_pairs), "step %d", k);
        cr_assert(f->fronts <= m.pairs + m.pooled && m.plan_used <= m.plan_held && m.regions_used <= m.regions_held,
                  "step %d", k);
        cr_assert(f->entries_used <= f->entries_held && f->pool_used <= f->pool_held &&
                  f->order_used <= f->order_held && f->cert_used <= f->cert_held && f->leaf_count <= f->entry_count);
        cr_assert(m.pair_records >= m.pairs * 100u && m.workspaces > 0u && m.lists > 0u);
        int64_t beside_mesh = mc_get_byte_count() - (int64_t)mc_mesh_get_byte_count(g.sphere);
        cr_assert(le(i64, (int64_t)mc_world_memory_held(&m), beside_mesh), "step %d", k);
        if (k == 0)
        {
            cr_assert(gt(u32, info.touching_pairs, 10));
            cr_assert(eq(sz, m.regions_used, (size_t)info.touching_pairs * sizeof(mc_region)));
            cr_assert(eq(sz, m.regions_held, m.regions_used));
        }
        else
        {
            cr_assert(f->fronts > 0u && f->entry_count > f->leaf_count && f->leaf_count > 0u && f->pool_used > 0u,
                      "step %d: %zu fronts, %zu entries", k, f->fronts, f->entry_count);
        }
    }
    cr_assert(eq(sz, mc_world_memory_held(&(mc_world_memory){0}), 0));
    grid_free(&g);
}
