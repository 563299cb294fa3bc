// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// What a host needs besides the forces (issues 36 and 41): failing world calls that say what and where (the
// world's last error, mc_error.index) and change nothing; the Adams depth hazard flagged in the region records and
// counted in the step info (a torus lying on a floor); meshes that cannot be destroyed while bodies use them; the
// step hint with analytic bodies and many bodies.
#include <criterion/criterion.h>
#include <math.h>
#include <meshcontact/meshcontact.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Debug builds trap on programmer errors (MC_ASSERT); these tests make such errors on purpose.
static int no_trap(const char* condition, const char* file, int line)
{
    (void)condition;
    (void)file;
    (void)line;
    return 0;
}

static void setup(void)
{
    mc_set_assert_fcn(no_trap);
}

static void teardown(void)
{
    mc_set_assert_fcn(NULL);
}

static mc_mesh* primitive(mc_primitive_type type, mc_vec3 dims, double chord)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    d.chord_tolerance = chord;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, NULL), MC_OK);
    return m;
}

static mc_world* world(void)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 2;
    mc_world* w = NULL;
    cr_assert_eq(mc_world_create(&wd, &w), MC_OK);
    return w;
}

static mc_body_id body_at(mc_world* w, const mc_mesh* m, mc_vec3 p)
{
    mc_body_def bd = mc_default_body_def();
    bd.mesh = m;
    bd.pose.p = p;
    mc_body_id id = mc_world_create_body(w, &bd);
    cr_assert_neq(id.index1, 0, "%s", mc_world_get_last_error(w)->message);
    return id;
}

static void expect_error(const mc_world* w, mc_status status, int64_t index, const char* fn, const char* reason)
{
    const mc_error* e = mc_world_get_last_error(w);
    cr_assert_eq(e->status, status, "status %d: %s", e->status, e->message);
    cr_assert_eq(e->index, index, "index %lld: %s", (long long)e->index, e->message);
    cr_assert(strstr(e->message, fn) != NULL, "'%s' does not name %s", e->message, fn);
    cr_assert(strstr(e->message, reason) != NULL, "'%s' does not say '%s'", e->message, reason);
}

TestSuite(host_api, .init = setup, .fini = teardown);

// A bad entry in the middle of each list: the error names the index and the reason, and nothing is changed.
Test(host_api, bulk_calls_name_the_bad_entry_and_change_nothing)
{
    mc_mesh* m = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    mc_world* w = world();
    mc_body_id ids[4];
    for (int k = 0; k < 4; ++k)
    {
        ids[k] = body_at(w, m, mc_v3(3.0 * k, 0, 0));
    }
    mc_body_id gone = body_at(w, m, mc_v3(0, 5, 0));
    mc_world_destroy_body(w, gone);
    cr_assert_eq(mc_world_get_last_error(w)->status, MC_OK);

    mc_pose poses[4];
    mc_twist tw[4];
    for (int k = 0; k < 4; ++k)
    {
        poses[k] = mc_pose_identity();
        poses[k].p = mc_v3(10.0 + k, 1, 2);
        tw[k] = (mc_twist){mc_v3(1, 2, 3), mc_v3(0, 0, 1)};
    }
    mc_pose before[4];
    for (int k = 0; k < 4; ++k)
    {
        before[k] = mc_body_get_pose(w, ids[k]);
    }
    // stale id in the middle
    mc_body_id bad_ids[4] = {ids[0], gone, ids[2], ids[3]};
    cr_assert_eq(mc_world_set_poses(w, bad_ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_set_poses", "stale body id");
    // never-created and null ids
    bad_ids[1] = (mc_body_id){77, 1};
    cr_assert_eq(mc_world_set_poses(w, bad_ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_set_poses", "never created");
    bad_ids[1] = mc_null_body_id;
    cr_assert_eq(mc_world_set_poses(w, bad_ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_set_poses", "null body id");
    // a zero quaternion, a translation of 1e30, a NaN
    mc_pose p2 = poses[2];
    poses[2].q = (mc_quat){0, 0, 0, 0};
    cr_assert_eq(mc_world_set_poses(w, ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 2, "mc_world_set_poses", "quaternion is zero");
    poses[2] = p2;
    poses[2].p.x = 1e30;
    cr_assert_eq(mc_world_set_poses(w, ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 2, "mc_world_set_poses", "MC_COORDINATE_MAX");
    poses[2].p.x = NAN;
    cr_assert_eq(mc_world_set_poses(w, ids, poses, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 2, "mc_world_set_poses", "not finite");
    poses[2] = p2;
    for (int k = 0; k < 4; ++k)
    {
        mc_pose now = mc_body_get_pose(w, ids[k]);
        cr_assert_eq(memcmp(&now, &before[k], sizeof now), 0, "body %d moved", k);
    }
    // velocities
    tw[1].w.y = INFINITY;
    cr_assert_eq(mc_world_set_velocities(w, ids, tw, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_set_velocities", "not finite");
    tw[1].w.y = 0;
    cr_assert_eq(mc_world_set_velocities(w, bad_ids, tw, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_set_velocities", "null body id");
    for (int k = 0; k < 4; ++k)
    {
        mc_twist v = mc_body_get_velocity(w, ids[k]);
        cr_assert(v.v.x == 0 && v.w.z == 0, "body %d's velocity changed", k);
    }
    // the good lists work, and do not clear the record (errno-like)
    cr_assert_eq(mc_world_set_poses(w, ids, poses, 4), MC_OK);
    cr_assert_eq(mc_world_set_velocities(w, ids, tw, 4), MC_OK);
    cr_assert_eq(mc_world_get_last_error(w)->status, MC_ERR_INVALID_ARGUMENT);
    mc_world_clear_error(w);
    cr_assert_eq(mc_world_get_last_error(w)->status, MC_OK);
    cr_assert_eq(mc_world_get_last_error(w)->index, -1);
    // wrenches: a stale id is an error, not zeros; nothing written
    cr_assert_eq(mc_world_evaluate(w), MC_OK);
    mc_wrench out[4];
    memset(out, 0x7f, sizeof out);
    mc_wrench sentinel[4];
    memcpy(sentinel, out, sizeof out);
    bad_ids[1] = gone;
    cr_assert_eq(mc_world_get_wrenches(w, bad_ids, out, 4), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_get_wrenches", "stale body id");
    cr_assert_eq(memcmp(out, sentinel, sizeof out), 0);
    cr_assert_eq(mc_world_get_wrenches(w, ids, out, 4), MC_OK);
    // single getters record their invalid ids
    mc_world_clear_error(w);
    mc_wrench z = mc_body_get_wrench(w, gone);
    cr_assert(z.force.x == 0 && z.torque.z == 0);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_body_get_wrench", "stale body id");
    mc_world_destroy(w);
    cr_assert_eq(mc_mesh_destroy(m), MC_OK);
}

Test(host_api, creators_say_why)
{
    mc_mesh* m = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    // mc_world_create with a zeroed def: mc_world_def_check says why
    mc_world_def zero;
    memset(&zero, 0, sizeof zero);
    mc_world* w = NULL;
    cr_assert_eq(mc_world_create(&zero, &w), MC_ERR_INVALID_ARGUMENT);
    cr_assert_null(w);
    mc_error e;
    cr_assert_eq(mc_world_def_check(&zero, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(e.message, "mc_default_world_def") != NULL, "%s", e.message);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = -3;
    cr_assert_eq(mc_world_create(&wd, &w), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_world_def_check(&wd, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(e.message, "worker_count -3") != NULL, "%s", e.message);
    wd = mc_default_world_def();
    wd.depth_method = MC_DEPTH_DEFAULT;
    cr_assert_eq(mc_world_def_check(&wd, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(e.message, "depth_method") != NULL, "%s", e.message);
    cr_assert_eq(mc_world_def_check(&(mc_world_def){0}, NULL), MC_ERR_INVALID_ARGUMENT);
    w = world();
    // bodies
    mc_body_def bd = mc_default_body_def();
    bd.mesh = m;
    bd.pose.q = (mc_quat){0, 0, 0, 0};
    cr_assert_eq(mc_world_create_body(w, &bd).index1, 0);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_create_body", "quaternion is zero");
    bd = mc_default_body_def();
    cr_assert_eq(mc_world_create_body(w, &bd).index1, 0);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_create_body", "mesh");
    bd.mesh = m;
    bd.velocity.v.x = NAN;
    cr_assert_eq(mc_world_create_body(w, &bd).index1, 0);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_create_body", "velocity");
    mc_body_def raw;
    memset(&raw, 0, sizeof raw);
    cr_assert_eq(mc_world_create_body(w, &raw).index1, 0);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_create_body", "mc_default_body_def");
    // contacts: a destroyed body in the middle of the I list; a bad excluded pair in the middle
    mc_body_id a = body_at(w, m, mc_v3(0, 0, 0));
    mc_body_id b = body_at(w, m, mc_v3(2, 0, 0));
    mc_body_id c = body_at(w, m, mc_v3(4, 0, 0));
    mc_body_id gone = body_at(w, m, mc_v3(6, 0, 0));
    mc_world_destroy_body(w, gone);
    mc_body_id list[3] = {a, gone, b};
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = list;
    cd.i_count = 3;
    cd.j_bodies = &c;
    cd.j_count = 1;
    mc_contact_id cid = mc_null_contact_id;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(e.index, 1);
    cr_assert(strstr(e.message, "stale body id") != NULL, "%s", e.message);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_create_contact", "I body 1");
    cr_assert_eq(cid.index1, 0);
    list[1] = b;
    cd.i_count = 2;
    mc_body_pair ex[3] = {{a, c}, {a, a}, {b, c}};
    cd.excluded_pairs = ex;
    cd.excluded_count = 3;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_ERR_INVALID_ARGUMENT);
    expect_error(w, MC_ERR_INVALID_ARGUMENT, 1, "mc_world_create_contact", "excluded pair 1");
    cd.excluded_count = 0;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    cr_assert_eq(mc_world_evaluate(w), MC_OK);
    cr_assert_eq(mc_world_get_step_info(w).candidate_pairs, 0); // nothing was created by the failed calls
    mc_world_destroy(w);
    cr_assert_eq(mc_mesh_destroy(m), MC_OK);
}

// A fat torus (R 10 mm, r 7 mm) lying flat on a floor box, 0.5 mm deep: the region is a ring (5.3 mm wide) whose
// centroid is on the torus's axis, about sqrt(R^2 + r^2) - r = 5.2 mm from the torus surface, so its Adams depth is
// several mm where 2V/A is ~0.3 mm; the ring's area (~3.3e-4) passes A > 2 g^2, so the region gives a force. The
// record is flagged and the step info counts it; the same contact with DEPTH EXTENT is not flagged, nor is a ball on
// the floor with the Adams depth (ratio ~1).
Test(host_api, torus_on_floor_depth_flagged)
{
    double big = 0.01, small = 0.007, pen = 5e-4;
    mc_mesh* torus = primitive(MC_PRIMITIVE_TORUS, mc_v3(big, small, 0), 2e-5);
    mc_mesh* ball = primitive(MC_PRIMITIVE_ELLIPSOID, mc_v3(small, small, small), 2e-5);
    mc_mesh* floor_box = primitive(MC_PRIMITIVE_BOX, mc_v3(0.2, 0.2, 0.02), 1e-3);
    for (int method = 0; method < 2; ++method)
    {
        mc_world* w = world();
        mc_body_id fl = body_at(w, floor_box, mc_v3(0, 0, -0.01));
        mc_body_id to = body_at(w, torus, mc_v3(0, 0, small - pen));
        mc_body_id ba = body_at(w, ball, mc_v3(0.06, 0, small - pen));
        mc_body_id js[2] = {to, ba};
        mc_contact_def cd = mc_default_contact_def();
        cd.i_bodies = &fl;
        cd.i_count = 1;
        cd.j_bodies = js;
        cd.j_count = 2;
        cd.depth_method = method == 0 ? MC_DEPTH_ADAMS : MC_DEPTH_EXTENT;
        mc_contact_id cid;
        cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
        cr_assert_eq(mc_world_evaluate(w), MC_OK);
        mc_contact_region rec[16];
        uint32_t n = mc_world_get_regions(w, rec, 16);
        cr_assert(n >= 2 && n <= 16, "%u regions", n);
        uint32_t flagged = 0;
        for (uint32_t k = 0; k < n; ++k)
        {
            const mc_region* r = &rec[k].region;
            double ratio = r->depth / (2.0 * r->volume / r->area);
            bool is_torus = rec[k].body_j.index1 == to.index1;
            if (method == 0 && is_torus)
            {
                cr_assert(!rec[k].rejected, "depth %g area %g volume %g", r->depth, r->area, r->volume);
                cr_assert(rec[k].depth_off_region, "torus region: depth %g, 2V/A %g", r->depth,
                          2.0 * r->volume / r->area);
                cr_assert_gt(r->depth, 0.005);
            }
            if (!is_torus || method == 1)
            {
                cr_assert(!rec[k].depth_off_region, "depth %g ratio %g flagged", r->depth, ratio);
            }
            // the rule, exactly
            cr_assert_eq(rec[k].depth_off_region, method == 0 && !rec[k].rejected && ratio > MC_OFF_REGION_DEPTH_RATIO);
            flagged += rec[k].depth_off_region;
        }
        mc_step_info info = mc_world_get_step_info(w);
        cr_assert_eq(info.off_region_depths, flagged);
        cr_assert_eq((info.flags & MC_STEP_OFF_REGION_DEPTH) != 0, flagged > 0);
        cr_assert_eq(flagged > 0, method == 0);
        mc_world_destroy(w);
    }
    mc_mesh_destroy(torus);
    mc_mesh_destroy(ball);
    mc_mesh_destroy(floor_box);
}

// Issue 41: a mesh cannot be destroyed while a body uses it (the call refuses, the mesh stays usable); once the
// bodies (or their world) are gone it can. A flipped body uses the world's copy, not the mesh.
Test(host_api, mesh_destroy_refused_while_used)
{
    mc_mesh* m = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    mc_mesh* n = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    mc_world* w = world();
    mc_world* w2 = world();
    mc_body_id a = body_at(w, m, mc_v3(0, 0, 0));
    mc_body_id b = body_at(w, n, mc_v3(0.5, 0, 0));
    body_at(w2, m, mc_v3(0, 0, 0));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = n;
    bd.flip = true;
    cr_assert_neq(mc_world_create_body(w2, &bd).index1, 0);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &a;
    cd.i_count = 1;
    cd.j_bodies = &b;
    cd.j_count = 1;
    mc_contact_id cid;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    cr_assert_eq(mc_mesh_destroy(m), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_destroy(n), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_world_evaluate(w), MC_OK); // still valid: an overlap of volume 0.5
    mc_contact_region rec;
    cr_assert_eq(mc_world_get_regions(w, &rec, 1), 1);
    cr_assert_lt(fabs(rec.region.volume - 0.5), 1e-12);
    mc_world_destroy_body(w, a);
    cr_assert_eq(mc_mesh_destroy(m), MC_ERR_INVALID_ARGUMENT); // w2 still uses it
    mc_world_destroy(w2);
    cr_assert_eq(mc_mesh_destroy(m), MC_OK);
    cr_assert_eq(mc_mesh_destroy(n), MC_ERR_INVALID_ARGUMENT); // body b
    mc_world_destroy(w);
    cr_assert_eq(mc_mesh_destroy(n), MC_OK);
    cr_assert_eq(mc_mesh_destroy(NULL), MC_OK);
}

// The step hint with analytic bodies (issue 41: it passed a NULL mesh to the distance query): a ball falling onto a
// plane and a box falling onto the same plane, a ball flying at another ball; closed forms d / (s_i + s_j).
Test(host_api, step_hint_analytic_bodies)
{
    mc_mesh* m = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    mc_world* w = world();
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_plane();
    mc_body_id plane = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    bd.shape = mc_shape_sphere(0.5);
    bd.pose.p = mc_v3(0, 0, 3.5); // 3 above the plane
    bd.velocity.v = mc_v3(0, 0, -2.0);
    mc_body_id ball = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    bd.mesh = m;
    bd.pose.p = mc_v3(5, 0, 2.5); // its lowest vertices 2 above the plane
    bd.velocity.v = mc_v3(0, 0, -0.5);
    mc_body_id box = mc_world_create_body(w, &bd);
    mc_body_id js[2] = {ball, box};
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &plane;
    cd.i_count = 1;
    cd.j_bodies = js;
    cd.j_count = 2;
    mc_contact_id cid;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    double hint = 0.0;
    cr_assert_eq(mc_world_get_step_hint(w, &hint), MC_OK, "%s", mc_world_get_last_error(w)->message);
    cr_assert_float_eq(hint, 1.5, 1e-14); // ball: 3 / 2 (the box: 2 / 0.5 = 4)
    // the box turns: its speed bound grows by |w| (|c - p| + r) = 1 * sqrt(3)/2
    mc_twist tw = {mc_v3(0, 0, -0.5), mc_v3(0, 1, 0)};
    cr_assert_eq(mc_body_set_velocity(w, box, &tw), MC_OK);
    mc_twist still = {mc_v3(0, 0, 0), mc_v3(0, 0, 0)};
    cr_assert_eq(mc_body_set_velocity(w, ball, &still), MC_OK);
    cr_assert_eq(mc_world_get_step_hint(w, &hint), MC_OK);
    cr_assert_float_eq(hint, 2.0 / (0.5 + sqrt(3.0) / 2.0), 1e-9); // the radius is rounded up a little
    cr_assert_leq(hint, 2.0 / (0.5 + sqrt(3.0) / 2.0));
    // two balls closing at 3: gap 4 - 1 = 3 -> 1
    mc_world_destroy(w);
    w = world();
    bd = mc_default_body_def();
    bd.shape = mc_shape_sphere(0.5);
    mc_body_id b1 = mc_world_create_body(w, &bd);
    bd.pose.p = mc_v3(4, 0, 0);
    bd.velocity.v = mc_v3(-3, 0, 0);
    mc_body_id b2 = mc_world_create_body(w, &bd);
    cd = mc_default_contact_def();
    cd.i_bodies = &b1;
    cd.i_count = 1;
    cd.j_bodies = &b2;
    cd.j_count = 1;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    cr_assert_eq(mc_world_get_step_hint(w, &hint), MC_OK);
    cr_assert_float_eq(hint, 1.0, 1e-14);
    mc_world_destroy(w);
    mc_mesh_destroy(m);
}

// Brute force oracle: every pair of a group, the distance query of the two meshes, d / (s_i + s_j).
static double brute_hint(mc_world* w, const mc_body_id* ids, uint32_t n, const mc_mesh* m, double radius)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    double best = INFINITY;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = i + 1; j < n; ++j)
        {
            mc_pose pi = mc_body_get_pose(w, ids[i]), pj = mc_body_get_pose(w, ids[j]);
            mc_twist ti = mc_body_get_velocity(w, ids[i]), tj = mc_body_get_velocity(w, ids[j]);
            // the box is centred on its origin: |c - p| = 0
            double s = mc_length(ti.v) + mc_length(ti.w) * radius + mc_length(tj.v) + mc_length(tj.w) * radius;
            mc_distance_result r;
            cr_assert_eq(mc_query_distance(m, &pi, m, &pj, INFINITY, &opt, ws, &r), MC_OK);
            if (s > 0.0 && r.kind == MC_DISTANCE_SEPARATED && r.distance > 0.0)
            {
                best = fmin(best, r.distance / s);
            }
        }
    }
    mc_workspace_destroy(ws);
    return best;
}

static double frand(uint64_t* st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) / 9007199254740992.0;
}

// Random boxes in a group (some touching): the sweep's hint is the brute force minimum over all pairs, for several
// seeds and spreads; then 10000 bodies in a grid (1e5 bodies: 3.7 s of CPU where the O(n^2) loop took ~150 s).
Test(host_api, step_hint_matches_brute_force_and_scales)
{
    mc_mesh* m = primitive(MC_PRIMITIVE_BOX, mc_v3(1, 1, 1), 1e-3);
    double radius = 0.0;
    {
        mc_world* w = world();
        mc_body_id id = body_at(w, m, mc_v3(0, 0, 0));
        (void)id;
        mc_world_destroy(w);
        radius = sqrt(3.0) / 2.0; // the bounding sphere of a unit box about its centre (rounded up by the library)
    }
    for (uint64_t seed = 1; seed <= 4; ++seed)
    {
        uint64_t st = seed;
        mc_world* w = world();
        enum
        {
            N = 80
        };
        mc_body_id ids[N];
        double spread = 4.0 + 4.0 * (double)seed;
        for (int k = 0; k < N; ++k)
        {
            mc_body_def bd = mc_default_body_def();
            bd.mesh = m;
            bd.pose.p = mc_v3(spread * frand(&st), spread * frand(&st), spread * frand(&st));
            bd.pose.q = mc_quat_normalize((mc_quat){frand(&st), frand(&st) - 0.5, frand(&st) - 0.5, 0.3});
            bd.velocity.v = mc_v3(frand(&st) - 0.5, frand(&st) - 0.5, frand(&st) - 0.5);
            bd.velocity.w = k % 3 == 0 ? mc_v3(0, 0, frand(&st)) : mc_v3(0, 0, 0);
            ids[k] = mc_world_create_body(w, &bd);
        }
        mc_contact_def cd = mc_default_contact_def();
        cd.mode = MC_CONTACT_GROUP;
        cd.i_bodies = ids;
        cd.i_count = N;
        mc_contact_id cid;
        cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
        double hint = 0.0;
        cr_assert_eq(mc_world_get_step_hint(w, &hint), MC_OK);
        double want = brute_hint(w, ids, N, m, radius);
        // the library's radius is rounded up by a few ulps: relative 1e-12
        cr_assert(fabs(hint - want) <= 1e-12 * want, "seed %llu: hint %.17g, brute force %.17g",
                  (unsigned long long)seed, hint, want);
        mc_world_destroy(w);
    }
    // Scale: 10000 boxes on a grid of pitch 3 (gaps 2), moving at up to 1: the answer is at least 2 / 2 = 1.
    mc_world* w = world();
    enum
    {
        NB = 10000
    };
    mc_body_id* ids = malloc(NB * sizeof *ids);
    cr_assert_not_null(ids);
    uint64_t st = 99;
    for (int k = 0; k < NB; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = m;
        bd.pose.p = mc_v3(3.0 * (k % 50), 3.0 * ((k / 50) % 20), 3.0 * (k / 1000));
        bd.velocity.v = mc_scale(mc_v3(frand(&st) - 0.5, frand(&st) - 0.5, frand(&st) - 0.5), 1.0);
        ids[k] = mc_world_create_body(w, &bd);
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = ids;
    cd.i_count = NB;
    mc_contact_id cid;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_t c0 = clock();
    double hint = 0.0;
    cr_assert_eq(mc_world_get_step_hint(w, &hint), MC_OK);
    clock_t c1 = clock();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double cpu = (double)(c1 - c0) / CLOCKS_PER_SEC;
    cr_log_info("step hint of %d bodies: %.3f s wall, %.3f s CPU, hint %g", NB, sec, cpu, hint);
    cr_assert(hint >= 1.0 && isfinite(hint), "hint %g", hint);
    cr_assert_lt(cpu, 5.0); // CPU time (the machine is shared): ~0.1 s in a normal build, ~2 s under ASan
    mc_world_destroy(w);
    free(ids);
    mc_mesh_destroy(m);
}
