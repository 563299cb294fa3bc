// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic shapes as world bodies: a ball body on a plane body and on a 12-triangle plate against the closed forms
// (depth h, Fn = k h^e, area pi (2 R h - h^2)), a ball rolling over them without force ripple, the broad phase's
// bounds of spheres and cylinders, a cylinder body on a plane body (standing: Fn = k h^e and its Jacobian; lying and
// rolling: no ripple), and the bad inputs (bad radii and lengths, a mesh and a shape both, plane-plane).
#include "scene_builders.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
#define RADIUS 0.05
#define K 1e8
#define E 1.5

typedef struct shapes_world
{
    mc_world* world;
    mc_mesh* plate;
    mc_body_id ground;
    mc_body_id ball;
    mc_contact_id contact;
} shapes_world;

// A ball of RADIUS against a plane body (plate == false) or a 12-triangle plate whose top face is z = 0.
static void shapes_make(shapes_world* s, bool plate)
{
    memset(s, 0, sizeof *s);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    cr_assert(eq(int, mc_world_create(&wd, &s->world), MC_OK));
    mc_body_def bd = mc_default_body_def();
    if (plate)
    {
        s->plate = wscene_box(mc_v3(-2.0, -2.0, -0.2), mc_v3(2.0, 2.0, 0.0));
        cr_assert(s->plate != NULL);
        bd.mesh = s->plate;
    }
    else
    {
        bd.shape = mc_shape_plane();
    }
    s->ground = mc_world_create_body(s->world, &bd);
    cr_assert(mc_body_is_valid(s->world, s->ground));
    bd = mc_default_body_def();
    bd.shape = mc_shape_sphere(RADIUS);
    bd.pose.p = mc_v3(0.0, 0.0, 1.0);
    s->ball = mc_world_create_body(s->world, &bd);
    cr_assert(mc_body_is_valid(s->world, s->ball));
    mc_force_model m = mc_default_force_model();
    m.stiffness = K;
    m.exponent = E;
    cr_assert(eq(int, wscene_contact(s->world, s->ground, s->ball, &m, &s->contact), MC_OK));
}

static void shapes_free(shapes_world* s)
{
    mc_world_destroy(s->world);
    mc_mesh_destroy(s->plate);
}

// Put the ball's centre at (x, y, RADIUS - h) and evaluate; @return the number of regions (0 or 1), *out the first.
static uint32_t ball_at(shapes_world* s, double x, double y, double h, mc_contact_region* out)
{
    mc_pose p = mc_pose_identity();
    p.p = mc_v3(x, y, RADIUS - h);
    cr_assert(eq(int, mc_body_set_pose(s->world, s->ball, &p), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s->world), MC_OK));
    return mc_world_get_regions(s->world, out, 1);
}

static void check_cap(const mc_contact_region* r, double h_asked)
{
    // The penetration the shapes see is R - z with z = RADIUS - h as rounded (for h = 1e-6 R that rounding alone is
    // 1e-10 of h). Against it, the closed forms of shape.h for the cap: depth h (1e-12 relative), Fn = k h^e (1e-9,
    // the bar: pow's few ulps), area pi (2 R h - h^2) (1e-12).
    double h = RADIUS - (RADIUS - h_asked);
    cr_assert(fabs(r->region.depth - h) <= 1e-12 * h, "depth %.17g h %.17g", r->region.depth, h);
    double fn = K * pow(h, E);
    cr_assert(fabs(r->normal_force - fn) <= 1e-9 * fn, "Fn %.17g want %.17g", r->normal_force, fn);
    double area = PI * (2.0 * RADIUS * h - h * h);
    cr_assert(fabs(r->region.area - area) <= 1e-12 * area, "area %.17g want %.17g", r->region.area, area);
    cr_assert(eq(int, r->rejected, 0));
}

Test(world_shapes, a_ball_body_on_a_plane_body_and_on_a_plate_gives_the_closed_forms)
{
    double hs[] = {1e-6 * RADIUS, 1e-4 * RADIUS, 1e-3 * RADIUS, 1e-2 * RADIUS};
    for (int plate = 0; plate < 2; ++plate)
    {
        shapes_world s;
        shapes_make(&s, plate != 0);
        for (size_t k = 0; k < sizeof hs / sizeof hs[0]; ++k)
        {
            mc_contact_region r;
            cr_assert(eq(u32, ball_at(&s, 0.1, -0.2, hs[k], &r), 1));
            check_cap(&r, hs[k]);
            mc_wrench w = mc_body_get_wrench(s.world, s.ball);
            cr_assert(ieee_ulp_eq(dbl, w.force.z, r.normal_force, 4));
        }
        mc_contact_region r;
        cr_assert(eq(u32, ball_at(&s, 0.0, 0.0, -1e-3, &r), 0)); // above: nothing
        shapes_free(&s);
    }
}

Test(world_shapes, an_analytic_ball_rolling_on_a_plate_has_no_force_ripple)
{
    // The ball rolls 1 m across the plate's top face (over its diagonal edge between the two triangles) at a fixed
    // height: the force must not change by more than 1e-9 relative (the bar; tessellated balls ripple by
    // percents).
    const double h = 1e-4;
    for (int plate = 0; plate < 2; ++plate)
    {
        shapes_world s;
        shapes_make(&s, plate != 0);
        double lo = INFINITY, hi = 0.0;
        for (int k = 0; k <= 1000; ++k)
        {
            mc_contact_region r;
            double x = -0.5 + 1e-3 * k;
            cr_assert(eq(u32, ball_at(&s, x, 0.3 * x, h, &r), 1));
            lo = fmin(lo, r.normal_force);
            hi = fmax(hi, r.normal_force);
        }
        cr_log_info("%s: Fn from %.17g to %.17g, ripple %.3g", plate ? "plate" : "plane", lo, hi, (hi - lo) / hi);
        cr_assert(hi - lo <= 1e-9 * hi, "ripple %g", (hi - lo) / hi);
        shapes_free(&s);
    }
}

Test(world_shapes, the_jacobian_of_an_analytic_ball_on_a_plane_is_k_e_h_to_the_e_minus_1)
{
    // d Fn / d z of the ball (J, row 8 = force z, column 8 = position z) is -k e h^(e - 1): the difference queries
    // go through the shape query too. 1e-6: the central difference's truncation h_fd^2 / h^2 with h_fd ~ 1e-7 lever.
    shapes_world s;
    shapes_make(&s, false);
    const double h = 1e-4;
    mc_contact_region r;
    cr_assert(eq(u32, ball_at(&s, 0.0, 0.0, h, &r), 1));
    mc_jacobian_block b;
    uint32_t n = 0;
    cr_assert(eq(int, mc_world_get_jacobian(s.world, &b, 1, &n), MC_OK));
    cr_assert(eq(u32, n, 1));
    double hh = RADIUS - (RADIUS - h);
    double want = -K * E * pow(hh, E - 1.0);
    cr_log_info("d Fn / d z = %.17g, want %.17g", b.stiffness[8][8], want);
    cr_assert(fabs(b.stiffness[8][8] - want) <= 1e-6 * fabs(want), "%.17g want %.17g", b.stiffness[8][8], want);
    shapes_free(&s);
}

Test(world_shapes, sphere_and_cylinder_bounds_cull_far_pairs_only)
{
    shapes_world s;
    shapes_make(&s, true);
    mc_contact_region r;
    ball_at(&s, 0.0, 0.0, -1e-9, &r); // 1e-9 above the plate: a candidate, no region
    cr_assert(eq(u32, mc_world_get_step_info(s.world).candidate_pairs, 1));
    ball_at(&s, 0.0, 0.0, -0.5, &r); // far above: culled
    cr_assert(eq(u32, mc_world_get_step_info(s.world).candidate_pairs, 0));
    // A lying cylinder (axis along x) on the plate: a candidate by its bounds, one region (the cylinder against a
    // mesh, issue 35) of depth 1e-3, and its Jacobian (by differences of the region query, as for every analytic
    // pair).
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_cylinder(0.1, 0.4);
    bd.pose.q = (mc_quat){cos(PI / 4), 0.0, sin(PI / 4), 0.0};
    bd.pose.p = mc_v3(1.0, 1.0, 0.099);
    mc_body_id cyl = mc_world_create_body(s.world, &bd);
    cr_assert(mc_body_is_valid(s.world, cyl));
    mc_contact_id c;
    cr_assert(eq(int, wscene_contact(s.world, s.ground, cyl, NULL, &c), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    mc_step_info info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.candidate_pairs, 1));
    cr_assert(eq(u32, info.flags & MC_STEP_PAIR_FAILED, 0));
    cr_assert(eq(u32, mc_world_get_regions(s.world, &r, 1), 1));
    cr_assert(fabs(r.region.depth - 1e-3) < 1e-15, "depth %.17g", r.region.depth);
    mc_jacobian_block b;
    uint32_t n = 0;
    cr_assert(eq(int, mc_world_get_jacobian(s.world, &b, 1, &n), MC_OK));
    cr_assert(eq(u32, n, 1));
    // A hole (flipped cylinder) against the plate stays unsupported: flagged, not a crash.
    mc_world_destroy_body(s.world, cyl);
    bd.shape.flip = true;
    bd.pose = mc_pose_identity();
    mc_body_id hole = mc_world_create_body(s.world, &bd);
    cr_assert(mc_body_is_valid(s.world, hole));
    cr_assert(eq(int, wscene_contact(s.world, s.ground, hole, NULL, &c), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    info = mc_world_get_step_info(s.world);
    cr_assert(eq(u32, info.flags & MC_STEP_PAIR_FAILED, MC_STEP_PAIR_FAILED));
    shapes_free(&s);
}

Test(world_shapes, bad_shapes_and_plane_plane_are_refused)
{
    mc_world* w = NULL;
    mc_world_def wd = mc_default_world_def();
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_mesh* box = wscene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_shape bad[] = {mc_shape_sphere(0.0),       mc_shape_sphere(-1.0),       mc_shape_sphere(NAN),
                      mc_shape_sphere(INFINITY),  mc_shape_cylinder(0.0, 1.0), mc_shape_cylinder(1.0, -1.0),
                      mc_shape_cylinder(1.0, NAN)};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.shape = bad[k];
        cr_assert(eq(int, mc_body_is_valid(w, mc_world_create_body(w, &bd)), 0), "shape %zu accepted", k);
    }
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_sphere(1.0);
    bd.mesh = box; // both a mesh and a shape
    cr_assert(eq(int, mc_body_is_valid(w, mc_world_create_body(w, &bd)), 0));
    bd.mesh = NULL;
    bd.flip = true; // flip belongs to the shape
    cr_assert(eq(int, mc_body_is_valid(w, mc_world_create_body(w, &bd)), 0));
    bd = mc_default_body_def(); // no mesh, no shape
    cr_assert(eq(int, mc_body_is_valid(w, mc_world_create_body(w, &bd)), 0));

    // Plane against plane, and a socket against a plane: refused at contact creation, with a message.
    bd = mc_default_body_def();
    bd.shape = mc_shape_plane();
    mc_body_id p1 = mc_world_create_body(w, &bd);
    mc_body_id p2 = mc_world_create_body(w, &bd);
    bd.shape = mc_shape_sphere(1.0);
    bd.shape.flip = true;
    mc_body_id socket = mc_world_create_body(w, &bd);
    bd.shape = mc_shape_sphere(0.5);
    bd.shape.flip = false;
    mc_body_id ball = mc_world_create_body(w, &bd);
    cr_assert(mc_body_is_valid(w, p1) && mc_body_is_valid(w, p2) && mc_body_is_valid(w, socket) &&
              mc_body_is_valid(w, ball));
    mc_contact_def cd = mc_default_contact_def();
    mc_contact_id c;
    mc_error err;
    cd.i_bodies = &p1;
    cd.i_count = 1;
    cd.j_bodies = &p2;
    cd.j_count = 1;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "unbounded") != NULL, "%s", err.message);
    cd.j_bodies = &socket;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    // A group of the two planes and a ball is refused too, unless the planes' pair is excluded.
    mc_body_id group[3] = {p1, p2, ball};
    cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = group;
    cd.i_count = 3;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_ERR_INVALID_ARGUMENT));
    mc_body_pair ex = {p1, p2};
    cd.excluded_pairs = &ex;
    cd.excluded_count = 1;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_OK), "%s", err.message);
    // The ball in the socket and on the planes is fine.
    cd = mc_default_contact_def();
    cd.i_bodies = &socket;
    cd.i_count = 1;
    cd.j_bodies = &ball;
    cd.j_count = 1;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &c, &err), MC_OK), "%s", err.message);
    mc_world_destroy(w);
    mc_mesh_destroy(box);
}

// A cylinder body (radius RADIUS, length 0.3) on a plane body: standing on a cap pressed in by h, depth h and Fn = k
// h^e (1e-12 and 1e-9 relative, as the ball's), d Fn / d z = -k e h^(e - 1) through the Jacobian's differences
// (1e-6, as the ball's); lying and rolling about its axis over 1001 positions at h = 1e-4: the normal force does not
// ripple (1e-9 relative: the rotation's rounding moves the depth by ~1e-17 m).
Test(world_shapes, a_cylinder_body_on_a_plane_body_gives_k_h_to_the_e)
{
    const double len = 0.3;
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_plane();
    mc_body_id ground = mc_world_create_body(w, &bd);
    bd.shape = mc_shape_cylinder(RADIUS, len);
    bd.pose.p = mc_v3(0.0, 0.0, 1.0);
    mc_body_id cyl = mc_world_create_body(w, &bd);
    cr_assert(mc_body_is_valid(w, ground) && mc_body_is_valid(w, cyl));
    mc_force_model m = mc_default_force_model();
    m.stiffness = K;
    m.exponent = E;
    mc_contact_id c;
    cr_assert(eq(int, wscene_contact(w, ground, cyl, &m, &c), MC_OK));
    const double hs[] = {1e-6 * RADIUS, 1e-4 * RADIUS, 1e-3 * RADIUS, 1e-2 * RADIUS};
    for (size_t k = 0; k < sizeof hs / sizeof hs[0]; ++k)
    {
        mc_pose p = mc_pose_identity();
        p.p = mc_v3(0.2, -0.1, 0.5 * len - hs[k]);
        double h = 0.5 * len - p.p.z; // the penetration as rounded (exact: Sterbenz)
        cr_assert(eq(int, mc_body_set_pose(w, cyl, &p), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
        mc_contact_region r;
        cr_assert(eq(u32, mc_world_get_regions(w, &r, 1), 1));
        cr_assert(fabs(r.region.depth - h) <= 1e-12 * h, "depth %.17g h %.17g", r.region.depth, h);
        cr_assert(fabs(r.normal_force - K * pow(h, E)) <= 1e-9 * K * pow(h, E), "Fn %.17g", r.normal_force);
        cr_assert(fabs(r.region.area - PI * RADIUS * RADIUS) <= 1e-15 * PI * RADIUS * RADIUS);
        if (k == 1)
        {
            mc_jacobian_block b;
            uint32_t n = 0;
            cr_assert(eq(int, mc_world_get_jacobian(w, &b, 1, &n), MC_OK));
            double want = -K * E * pow(h, E - 1.0);
            cr_assert(fabs(b.stiffness[8][8] - want) <= 1e-6 * fabs(want), "%.17g want %.17g", b.stiffness[8][8], want);
        }
    }
    // Lying along y, rolling about its axis along x at h = 1e-4.
    double lo = INFINITY, hi = 0.0;
    for (int k = 0; k <= 1000; ++k)
    {
        double x = -0.5 + 1e-3 * k, roll = x / RADIUS;
        mc_quat lie = {cos(PI / 4), sin(PI / 4), 0.0, 0.0}; // z to -y
        mc_quat turn = {cos(roll / 2), 0.0, sin(roll / 2), 0.0};
        mc_pose p = mc_pose_identity();
        p.q = mc_quat_mul(turn, lie);
        p.p = mc_v3(x, 0.0, RADIUS - 1e-4);
        cr_assert(eq(int, mc_body_set_pose(w, cyl, &p), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
        mc_contact_region r;
        cr_assert(eq(u32, mc_world_get_regions(w, &r, 1), 1));
        lo = fmin(lo, r.normal_force);
        hi = fmax(hi, r.normal_force);
    }
    cr_log_info("lying cylinder rolling: Fn from %.17g to %.17g, ripple %.3g", lo, hi, (hi - lo) / hi);
    cr_assert(hi - lo <= 1e-9 * hi, "ripple %g", (hi - lo) / hi);
    mc_world_destroy(w);
}
