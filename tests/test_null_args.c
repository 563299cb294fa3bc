// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Every public function with a NULL for each required pointer argument, the others valid (issue 41, item 5):
// functions with a status return MC_ERR_INVALID_ARGUMENT, the others a neutral value; none crashes (a crash fails
// the test: Criterion runs each test in its own process). Optional pointers (documented "may be NULL") are left
// out. The list follows the headers: a new public function belongs here.
#include <criterion/criterion.h>
#include <math.h>
#include <meshcontact/meshcontact.h>
#include <string.h>

#define BAD MC_ERR_INVALID_ARGUMENT

static int no_trap(const char* condition, const char* file, int line)
{
    (void)condition;
    (void)file;
    (void)line;
    return 0;
}

typedef struct fixture
{
    mc_mesh* mesh;
    mc_world* world;
    mc_workspace* ws;
    mc_body_id body[2];
    mc_contact_id contact;
} fixture;

static fixture fx;

static void setup(void)
{
    mc_set_assert_fcn(no_trap);
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_BOX;
    d.dims = mc_v3(1, 1, 1);
    cr_assert_eq(mc_mesh_create_primitive(&d, &fx.mesh, NULL), MC_OK);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    cr_assert_eq(mc_world_create(&wd, &fx.world), MC_OK);
    cr_assert_eq(mc_workspace_create(&fx.ws), MC_OK);
    mc_body_def bd = mc_default_body_def();
    bd.mesh = fx.mesh;
    fx.body[0] = mc_world_create_body(fx.world, &bd);
    bd.pose.p = mc_v3(0.5, 0, 0);
    fx.body[1] = mc_world_create_body(fx.world, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &fx.body[0];
    cd.i_count = 1;
    cd.j_bodies = &fx.body[1];
    cd.j_count = 1;
    cr_assert_eq(mc_world_create_contact(fx.world, &cd, &fx.contact, NULL), MC_OK);
    cr_assert_eq(mc_world_evaluate(fx.world), MC_OK);
}

static void teardown(void)
{
    mc_world_destroy(fx.world);
    mc_workspace_destroy(fx.ws);
    cr_assert_eq(mc_mesh_destroy(fx.mesh), MC_OK);
    mc_set_assert_fcn(NULL);
}

TestSuite(null_args, .init = setup, .fini = teardown);

Test(null_args, mesh_h)
{
    mc_error e;
    mc_mesh* out = NULL;
    mc_mesh_def md = mc_default_mesh_def();
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    const double p3[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t i3[3] = {0, 1, 2};
    mc_repair_options ro = mc_default_repair_options();
    cr_assert_eq(mc_mesh_repair(&ro, NULL, 3, i3, 1, &pos, &nv, &idx, &nt, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_repair(&ro, p3, 3, NULL, 1, &pos, &nv, &idx, &nt, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_repair(&ro, p3, 3, i3, 1, NULL, &nv, &idx, &nt, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_repair(&ro, p3, 3, i3, 1, &pos, NULL, &idx, &nt, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_repair(&ro, p3, 3, i3, 1, &pos, &nv, NULL, &nt, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_repair(&ro, p3, 3, i3, 1, &pos, &nv, &idx, NULL, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create(NULL, &out, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create(&md, NULL, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_destroy(NULL), MC_OK); // destroy functions ignore NULL
    cr_assert_eq(mc_mesh_import_file(NULL, NULL, &out, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_import_file("x.stl", NULL, NULL, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_check_file(NULL, NULL, NULL, &e), BAD);
    cr_assert_eq(mc_brep_sink_add_points(NULL, 1, &pos, &e), BAD);
    cr_assert_eq(mc_brep_sink_add_triangles(NULL, 1, &idx, &e), BAD);
    cr_assert_null(mc_mesh_get_report(NULL));
    cr_assert_eq(mc_mesh_get_vertex_count(NULL), 0);
    cr_assert_eq(mc_mesh_get_triangle_count(NULL), 0);
    cr_assert_null(mc_mesh_get_positions(NULL));
    cr_assert_null(mc_mesh_get_indices(NULL));
    cr_assert_eq(mc_mesh_get_byte_count(NULL), 0);
    cr_assert_eq(mc_mesh_write_stl(NULL, "x.stl", &e), BAD);
    cr_assert_eq(mc_mesh_write_stl(fx.mesh, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_write_shl(NULL, "x.shl", 1.0, &e), BAD);
    cr_assert_eq(mc_mesh_write_shl(fx.mesh, NULL, 1.0, &e), BAD);
    mc_primitive_def pd = mc_default_primitive_def();
    cr_assert_eq(mc_primitive_tessellate(NULL, &pos, &nv, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate(&pd, NULL, &nv, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate(&pd, &pos, NULL, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate(&pd, &pos, &nv, NULL, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate(&pd, &pos, &nv, &idx, NULL, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate_count(NULL, 100, &pos, &nv, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate_count(&pd, 100, NULL, &nv, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate_count(&pd, 100, &pos, NULL, &idx, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate_count(&pd, 100, &pos, &nv, NULL, &nt, &e), BAD);
    cr_assert_eq(mc_primitive_tessellate_count(&pd, 100, &pos, &nv, &idx, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create_primitive(NULL, &out, &e), BAD);
    cr_assert_eq(mc_mesh_create_primitive(&pd, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create_primitive_count(NULL, 100, &out, &e), BAD);
    cr_assert_eq(mc_mesh_create_primitive_count(&pd, 100, NULL, &e), BAD);
    mc_free_arrays(NULL, NULL);
    cr_assert_null(out);
}

Test(null_args, mass_h)
{
    mc_error e;
    mc_mass_properties mp;
    mc_mesh* out = NULL;
    cr_assert_eq(mc_mesh_get_mass_properties(NULL, 1.0, &mp, &e), BAD);
    cr_assert_eq(mc_mesh_get_mass_properties(fx.mesh, 1.0, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_get_mass_properties(fx.mesh, 1.0, &mp, NULL), MC_OK);
    cr_assert_eq(mc_mass_properties_combine(NULL, NULL, 1, &mp, &e), BAD);
    cr_assert_eq(mc_mass_properties_combine(&mp, NULL, 1, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create_transformed(NULL, NULL, 1.0, MC_SELF_CHECK_SKIP, &out, NULL, &e), BAD);
    cr_assert_eq(mc_mesh_create_transformed(fx.mesh, NULL, 1.0, MC_SELF_CHECK_SKIP, NULL, NULL, &e), BAD);
}

Test(null_args, query_and_shape_h)
{
    mc_pose id = mc_pose_identity();
    mc_region reg[4];
    mc_triangle_pair tp[4];
    uint32_t n = 0;
    mc_distance_result dr;
    const mc_mesh* m = fx.mesh;
    mc_workspace* ws = fx.ws;
    cr_assert_eq(mc_workspace_create(NULL), BAD);
    mc_workspace_destroy(NULL);
    cr_assert_eq(mc_workspace_get_byte_count(NULL), 0);
    cr_assert_eq(mc_query_triangle_pairs(NULL, &id, m, &id, NULL, ws, tp, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, NULL, m, &id, NULL, ws, tp, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, &id, NULL, &id, NULL, ws, tp, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, &id, m, NULL, NULL, ws, tp, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, &id, m, &id, NULL, NULL, tp, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, &id, m, &id, NULL, ws, NULL, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_triangle_pairs(m, &id, m, &id, NULL, ws, tp, 4, NULL, NULL), BAD);
    cr_assert_eq(mc_query_regions(NULL, &id, m, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, NULL, m, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, &id, NULL, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, &id, m, NULL, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, &id, m, &id, NULL, NULL, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, &id, m, &id, NULL, ws, NULL, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_regions(m, &id, m, &id, NULL, ws, reg, 4, NULL, NULL), BAD);
    cr_assert_eq(mc_query_distance(NULL, &id, m, &id, 1.0, NULL, ws, &dr), BAD);
    cr_assert_eq(mc_query_distance(m, NULL, m, &id, 1.0, NULL, ws, &dr), BAD);
    cr_assert_eq(mc_query_distance(m, &id, NULL, &id, 1.0, NULL, ws, &dr), BAD);
    cr_assert_eq(mc_query_distance(m, &id, m, NULL, 1.0, NULL, ws, &dr), BAD);
    cr_assert_eq(mc_query_distance(m, &id, m, &id, 1.0, NULL, NULL, &dr), BAD);
    cr_assert_eq(mc_query_distance(m, &id, m, &id, 1.0, NULL, ws, NULL), BAD);
    cr_assert_eq(mc_mesh_prepare_regions(NULL), BAD);
    cr_assert(!mc_mesh_contains_point(NULL, mc_v3(0, 0, 0)));
    mc_shape s = mc_shape_mesh(NULL); // a shape of no mesh: refused by the queries below
    mc_shape ball = mc_shape_sphere(1.0);
    cr_assert_eq(mc_query_shape_regions(&s, &id, &ball, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(NULL, &id, &ball, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, NULL, &ball, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, &id, NULL, &id, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, &id, &ball, NULL, NULL, ws, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, &id, &ball, &id, NULL, NULL, reg, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, &id, &ball, &id, NULL, ws, NULL, 4, &n, NULL), BAD);
    cr_assert_eq(mc_query_shape_regions(&ball, &id, &ball, &id, NULL, ws, reg, 4, NULL, NULL), BAD);
}

Test(null_args, force_laws)
{
    mc_error e;
    mc_force_model fm = mc_default_force_model();
    mc_contact_kinematics kin;
    memset(&kin, 0, sizeof kin);
    mc_contact_force f;
    cr_assert_eq(mc_force_model_check(NULL, &e), BAD);
    cr_assert_eq(mc_contact_force_evaluate(NULL, &kin, MC_ANALYSIS_DYNAMIC, &f), BAD);
    cr_assert(f.rejected && f.normal_force == 0.0);
    cr_assert_eq(mc_contact_force_evaluate(&fm, NULL, MC_ANALYSIS_DYNAMIC, &f), BAD);
    cr_assert_eq(mc_contact_force_evaluate(&fm, &kin, MC_ANALYSIS_DYNAMIC, NULL), BAD);
    mc_vec3 force = mc_v3(1, 1, 1), kept = mc_v3(1, 1, 1);
    cr_assert_eq(mc_stiction_force(NULL, 1.0, mc_v3(0, 0, 0), mc_v3(1, 0, 0), &force, &kept), 0.0);
    cr_assert(force.x == 0 && kept.x == 0);
    fm.friction = MC_FRICTION_ON;
    fm.stiction = true;
    cr_assert_gt(mc_stiction_force(&fm, 1.0, mc_v3(0, 0, 0), mc_v3(1, 0, 0), NULL, NULL), 0.0); // outputs optional
}

Test(null_args, world_h)
{
    mc_error e;
    mc_world* w = fx.world;
    mc_body_id b = fx.body[0];
    mc_world_def wd = mc_default_world_def();
    mc_world* out = NULL;
    cr_assert_eq(mc_world_create(NULL, &out), BAD);
    cr_assert_eq(mc_world_create(&wd, NULL), BAD);
    cr_assert_eq(mc_world_def_check(NULL, &e), BAD);
    cr_assert_eq(mc_world_get_last_error(NULL)->status, BAD);
    mc_world_clear_error(NULL);
    mc_world_destroy(NULL);
    mc_body_def bd = mc_default_body_def();
    cr_assert_eq(mc_world_create_body(NULL, &bd).index1, 0);
    cr_assert_eq(mc_world_create_body(w, NULL).index1, 0);
    cr_assert_eq(mc_world_get_last_error(w)->status, BAD);
    mc_world_destroy_body(NULL, b);
    cr_assert(!mc_body_is_valid(NULL, b));
    cr_assert_eq(mc_body_set_pose(NULL, b, &(mc_pose){0}), BAD);
    cr_assert_eq(mc_body_set_pose(w, b, NULL), BAD);
    cr_assert_eq(mc_body_set_velocity(NULL, b, &(mc_twist){0}), BAD);
    cr_assert_eq(mc_body_set_velocity(w, b, NULL), BAD);
    cr_assert_eq(mc_body_get_pose(NULL, b).q.w, 1.0);
    cr_assert_eq(mc_body_get_velocity(NULL, b).v.x, 0.0);
    cr_assert_eq(mc_body_get_wrench(NULL, b).force.x, 0.0);
    cr_assert_null(mc_body_get_user_data(NULL, b));
    cr_assert_null(mc_body_get_mesh(NULL, b));
    mc_pose pose = mc_pose_identity();
    mc_twist tw = {{0, 0, 0}, {0, 0, 0}};
    mc_wrench wr;
    cr_assert_eq(mc_world_set_poses(NULL, &b, &pose, 1), BAD);
    cr_assert_eq(mc_world_set_poses(w, NULL, &pose, 1), BAD);
    cr_assert_eq(mc_world_set_poses(w, &b, NULL, 1), BAD);
    cr_assert_eq(mc_world_set_velocities(NULL, &b, &tw, 1), BAD);
    cr_assert_eq(mc_world_set_velocities(w, NULL, &tw, 1), BAD);
    cr_assert_eq(mc_world_set_velocities(w, &b, NULL, 1), BAD);
    cr_assert_eq(mc_world_get_wrenches(NULL, &b, &wr, 1), BAD);
    cr_assert_eq(mc_world_get_wrenches(w, NULL, &wr, 1), BAD);
    cr_assert_eq(mc_world_get_wrenches(w, &b, NULL, 1), BAD);
    mc_contact_def cd = mc_default_contact_def();
    mc_contact_id cid;
    cr_assert_eq(mc_world_create_contact(NULL, &cd, &cid, &e), BAD);
    cr_assert_eq(mc_world_create_contact(w, NULL, &cid, &e), BAD);
    cr_assert_eq(mc_world_create_contact(w, &cd, NULL, &e), BAD);
    mc_world_destroy_contact(NULL, fx.contact);
    cr_assert(!mc_contact_is_valid(NULL, fx.contact));
    cr_assert_null(mc_contact_get_user_data(NULL, fx.contact));
    mc_force_model fm = mc_default_force_model();
    cr_assert_eq(mc_contact_set_model(NULL, fx.contact, &fm, &e), BAD);
    cr_assert_eq(mc_contact_set_model(w, fx.contact, NULL, &e), BAD);
    mc_world_set_analysis(NULL, MC_ANALYSIS_STATIC);
    cr_assert_eq(mc_world_evaluate(NULL), BAD);
    double hint;
    cr_assert_eq(mc_world_get_step_hint(NULL, &hint), BAD);
    cr_assert_eq(mc_world_get_step_hint(w, NULL), BAD);
    cr_assert_eq(mc_world_get_regions(NULL, NULL, 0), 0);
    cr_assert_eq(mc_world_commit(NULL), BAD);
    cr_assert_eq(mc_world_get_state(NULL, NULL, 0), 0);
    cr_assert_eq(mc_world_set_state(NULL, &hint, sizeof hint, &e), BAD);
    cr_assert_eq(mc_world_set_state(w, NULL, 8, &e), BAD);
    cr_assert_eq(mc_world_get_step_info(NULL).regions, 0);
    cr_assert_eq(mc_world_get_max_capacity(NULL).body_count, 0);
    uint32_t count;
    mc_jacobian_block jb;
    cr_assert_eq(mc_world_get_jacobian(NULL, &jb, 1, &count), BAD);
    cr_assert_eq(mc_world_get_jacobian(w, &jb, 1, NULL), BAD);
    cr_assert_eq(mc_world_get_jacobian(w, NULL, 1, &count), BAD);
    cr_assert_eq(mc_world_set_jacobian_method(NULL, MC_JACOBIAN_ANALYTIC), BAD);
    // the world still works after all of these
    cr_assert_eq(mc_world_evaluate(w), MC_OK);
    cr_assert_eq(mc_world_get_regions(w, NULL, 0), 1);
}

Test(null_args, base_h)
{
    cr_assert_not_null(mc_status_string((mc_status)12345));
    mc_set_log_fcn(NULL);
    cr_assert_geq(mc_get_byte_count(), 0);
}

// The functions of law.h, flex.h, the deformation of mesh.h, the patches of query.h and the rest and events of
// world.h (issues 33, 34 and 36, added in parallel with this list).
Test(null_args, laws_deformation_patches_rest)
{
    mc_error e;
    double d1 = 0.0, d2 = 0.0;
    // Optional derivative outputs: NULL means "not wanted", the value is still given.
    cr_assert_eq(mc_adams_impact_partials(0.5, -1.0, 1.0, 100.0, 1.5, 10.0, 0.1, NULL, NULL),
                 mc_adams_impact(0.5, -1.0, 1.0, 100.0, 1.5, 10.0, 0.1));
    cr_assert_eq(mc_adams_bistop_partials(0.5, -1.0, 1.0, 2.0, 100.0, 1.5, 10.0, 0.1, NULL, NULL),
                 mc_adams_bistop(0.5, -1.0, 1.0, 2.0, 100.0, 1.5, 10.0, 0.1));
    const double x[4] = {0, 1, 2, 3}, y[4] = {0, 1, 4, 9};
    mc_curve* c = NULL;
    cr_assert_eq(mc_curve_create(NULL, y, 4, MC_CURVE_CUBIC, &c, &e), BAD);
    cr_assert_eq(mc_curve_create(x, NULL, 4, MC_CURVE_CUBIC, &c, &e), BAD);
    cr_assert_eq(mc_curve_create(x, y, 4, MC_CURVE_CUBIC, NULL, &e), BAD);
    cr_assert_null(c);
    cr_assert_eq(mc_curve_count(NULL), 0);
    cr_assert_eq(mc_curve_eval(NULL, 1.0, 0), 0.0); // documented: NULL gives 0
    cr_assert_eq(mc_curve_get_points(NULL, NULL, NULL, 0), 0);
    (void)mc_curve_get_method(NULL);
    mc_curve_destroy(NULL);
    cr_assert_eq(mc_dymore_force(NULL, 1e-3, 0.1, &d1, &d2), 0.0); // no model: no force
    cr_assert_eq(mc_recurdyn_force(NULL, 1e-3, 0.1, &d1, &d2), 0.0);
    uint64_t pairs = 0;
    uint32_t first[2];
    cr_assert_eq(mc_mesh_count_self_intersections(NULL, &pairs, first), BAD);
    cr_assert_eq(mc_mesh_count_self_intersections(fx.mesh, NULL, first), BAD);
    (void)mc_mesh_get_deform_info(NULL);
    cr_assert_eq(mc_mesh_set_positions(NULL, x, 1, &e), BAD);
    cr_assert_eq(mc_mesh_set_positions(fx.mesh, NULL, mc_mesh_get_vertex_count(fx.mesh), &e), BAD);
    mc_pose o = mc_pose_identity();
    mc_region r;
    mc_vec3 f = mc_v3(0, 0, 1), lost;
    mc_nodal_force nf[4];
    uint32_t n = 0;
    memset(&r, 0, sizeof r);
    cr_assert_eq(mc_nodal_forces(NULL, &o, fx.mesh, &o, &r, &f, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, NULL, fx.mesh, &o, &r, &f, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, &o, NULL, &o, &r, &f, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, &o, fx.mesh, NULL, &r, &f, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, &o, fx.mesh, &o, NULL, &f, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, &o, fx.mesh, &o, &r, NULL, 1, nf, 4, &n, &lost), BAD);
    cr_assert_eq(mc_nodal_forces(fx.mesh, &o, fx.mesh, &o, &r, &f, 1, nf, 4, NULL, &lost), BAD);
    mc_patch p[2];
    mc_region rr[2];
    cr_assert_eq(mc_query_patches(NULL, &o, fx.mesh, &o, NULL, 4, fx.ws, rr, p, 2, &n, NULL), BAD);
    cr_assert_eq(mc_query_patches(fx.mesh, NULL, fx.mesh, &o, NULL, 4, fx.ws, rr, p, 2, &n, NULL), BAD);
    cr_assert_eq(mc_query_patches(fx.mesh, &o, NULL, &o, NULL, 4, fx.ws, rr, p, 2, &n, NULL), BAD);
    cr_assert_eq(mc_query_patches(fx.mesh, &o, fx.mesh, NULL, NULL, 4, fx.ws, rr, p, 2, &n, NULL), BAD);
    cr_assert_eq(mc_query_patches(fx.mesh, &o, fx.mesh, &o, NULL, 4, NULL, rr, p, 2, &n, NULL), BAD);
    cr_assert_eq(mc_query_patches(fx.mesh, &o, fx.mesh, &o, NULL, 4, fx.ws, rr, p, 2, NULL, NULL), BAD);
    cr_assert(mc_body_is_awake(NULL, fx.body[0])); // documented: true when not a live body
    cr_assert_eq(mc_body_set_awake(NULL, fx.body[0], false), BAD);
    cr_assert_eq(mc_world_get_events(NULL, NULL, 0), 0);
    cr_assert_eq(mc_world_get_patches(NULL, NULL, 0), 0);
    cr_assert_eq(mc_world_set_patches(NULL, 4), BAD);
}
