// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact Jacobians (mc_world_get_jacobian): against hand-derived derivatives (a box face on a plate) and against
// central differences of mc_world_evaluate's wrenches (real meshes of the corpus, a tessellated sphere on a plate).
#include "src/world/world_internal.h"
#include "tests/scene_builders.h"
#include "tests/scenes.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct jscene
{
    mc_world* world;
    mc_mesh* mesh_i;
    mc_mesh* mesh_j;
    bool shared;
    mc_body_id bi, bj;
} jscene;

static void jscene_make_workers(jscene* s, mc_mesh* mi, mc_mesh* mj, mc_pose pi, mc_pose pj,
                                const mc_force_model* model, int workers)
{
    memset(s, 0, sizeof *s);
    s->mesh_i = mi;
    s->mesh_j = mj;
    s->shared = mi == mj;
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = workers;
    cr_assert_eq(mc_world_create(&wd, &s->world), MC_OK);
    mc_body_def bd = mc_default_body_def();
    bd.mesh = mi;
    bd.pose = pi;
    s->bi = mc_world_create_body(s->world, &bd);
    bd.mesh = mj;
    bd.pose = pj;
    s->bj = mc_world_create_body(s->world, &bd);
    mc_contact_id cid;
    cr_assert_eq(wscene_contact(s->world, s->bi, s->bj, model, &cid), MC_OK);
}

static void jscene_make(jscene* s, mc_mesh* mi, mc_mesh* mj, mc_pose pi, mc_pose pj, const mc_force_model* model)
{
    jscene_make_workers(s, mi, mj, pi, pj, model, 2);
}

static void jscene_destroy(jscene* s)
{
    mc_world_destroy(s->world);
    mc_mesh_destroy(s->mesh_i);
    if (!s->shared)
    {
        mc_mesh_destroy(s->mesh_j);
    }
}

// The two wrenches as 12 numbers (I then J, force then torque).
static void wrenches(mc_world* w, mc_body_id bi, mc_body_id bj, double out[12])
{
    cr_assert_eq(mc_world_evaluate(w), MC_OK);
    mc_wrench a = mc_body_get_wrench(w, bi);
    mc_wrench b = mc_body_get_wrench(w, bj);
    double v[12] = {a.force.x, a.force.y, a.force.z, a.torque.x, a.torque.y, a.torque.z,
                    b.force.x, b.force.y, b.force.z, b.torque.x, b.torque.y, b.torque.z};
    memcpy(out, v, sizeof v);
}

static mc_pose moved(mc_pose p, int coord, double h)
{
    if (coord < 3)
    {
        double* x = coord == 0 ? &p.p.x : (coord == 1 ? &p.p.y : &p.p.z);
        *x += h;
        return p;
    }
    mc_quat dq = {cos(0.5 * h), 0.0, 0.0, 0.0};
    double sn = sin(0.5 * h);
    dq.x = coord == 3 ? sn : 0.0;
    dq.y = coord == 4 ? sn : 0.0;
    dq.z = coord == 5 ? sn : 0.0;
    p.q = mc_quat_normalize(mc_quat_mul(dq, p.q));
    return p;
}

static mc_twist twist_moved(mc_twist t, int coord, double h)
{
    double* x[6] = {&t.v.x, &t.v.y, &t.v.z, &t.w.x, &t.w.y, &t.w.z};
    *x[coord] += h;
    return t;
}

// Central differences of the world's wrenches: stiffness (pose steps ht, rotation steps hr_i, hr_j) and damping
// (twist steps hv, hw).
static void finite_differences(jscene* s, double ht, double hr_i, double hr_j, double hv, double hw,
                               double stiff[12][12], double damp[12][12])
{
    mc_body_id ids[2] = {s->bi, s->bj};
    for (int col = 0; col < 12; ++col)
    {
        mc_body_id id = ids[col / 6];
        int c = col % 6;
        double plus[12], minus[12];
        mc_pose p0 = mc_body_get_pose(s->world, id);
        double h = c < 3 ? ht : (col < 6 ? hr_i : hr_j);
        mc_pose pp = moved(p0, c, h), pm = moved(p0, c, -h);
        cr_assert_eq(mc_body_set_pose(s->world, id, &pp), MC_OK);
        wrenches(s->world, s->bi, s->bj, plus);
        cr_assert_eq(mc_body_set_pose(s->world, id, &pm), MC_OK);
        wrenches(s->world, s->bi, s->bj, minus);
        cr_assert_eq(mc_body_set_pose(s->world, id, &p0), MC_OK);
        for (int r = 0; r < 12; ++r)
        {
            stiff[r][col] = (plus[r] - minus[r]) / (2.0 * h);
        }
        mc_twist t0 = mc_body_get_velocity(s->world, id);
        double hvel = c < 3 ? hv : hw;
        mc_twist tp = twist_moved(t0, c, hvel), tm = twist_moved(t0, c, -hvel);
        cr_assert_eq(mc_body_set_velocity(s->world, id, &tp), MC_OK);
        wrenches(s->world, s->bi, s->bj, plus);
        cr_assert_eq(mc_body_set_velocity(s->world, id, &tm), MC_OK);
        wrenches(s->world, s->bi, s->bj, minus);
        cr_assert_eq(mc_body_set_velocity(s->world, id, &t0), MC_OK);
        for (int r = 0; r < 12; ++r)
        {
            damp[r][col] = (plus[r] - minus[r]) / (2.0 * hvel);
        }
    }
    cr_assert_eq(mc_world_evaluate(s->world), MC_OK); // back at the state of the block
}

static double frob_diff(double a[12][12], double b[12][12], double* norm_b)
{
    double d = 0.0, n = 0.0;
    for (int r = 0; r < 12; ++r)
    {
        for (int c = 0; c < 12; ++c)
        {
            d += (a[r][c] - b[r][c]) * (a[r][c] - b[r][c]);
            n += b[r][c] * b[r][c];
        }
    }
    *norm_b = sqrt(n);
    return sqrt(d);
}

static mc_jacobian_block one_block(jscene* s)
{
    cr_assert_eq(mc_world_evaluate(s->world), MC_OK);
    mc_jacobian_block b;
    uint32_t count = 0;
    cr_assert_eq(mc_world_get_jacobian(s->world, &b, 1, &count), MC_OK);
    cr_assert_eq(count, 1u);
    return b;
}

// Block vs central differences of the world with steps `factor` times the library's (an independent step: the
// truncation errors differ, a kink or a wrong chain rule shows). Tolerance: 1e-5 relative to the block's norm, the
// issue's target; the expected error is 1e-9..1e-7 (rounding of coordinates over the step, O(h^2) truncation).
static void check_against_world(jscene* s, const char* name, double tolerance)
{
    mc_jacobian_block b = one_block(s);
    mc_contact_region reg[64];
    uint32_t n = mc_world_get_regions(s->world, reg, 64);
    cr_assert(n >= 1 && n <= 64, "%s: %u regions", name, n);
    double rmin = INFINITY, arm_i = 0.0, arm_j = 0.0;
    mc_pose pi = mc_body_get_pose(s->world, s->bi), pj = mc_body_get_pose(s->world, s->bj);
    for (uint32_t k = 0; k < n; ++k)
    {
        rmin = fmin(rmin, reg[k].region.radius);
        arm_i = fmax(arm_i, fmax(mc_length(mc_sub(reg[k].region.centroid, pi.p)), reg[k].region.radius));
        arm_j = fmax(arm_j, fmax(mc_length(mc_sub(reg[k].region.centroid, pj.p)), reg[k].region.radius));
    }
    double ht = 3e-6 * rmin;
    double stiff[12][12], damp[12][12], nk, nd;
    finite_differences(s, ht, ht / arm_i, ht / arm_j, 1e-6, 1e-6, stiff, damp);
    double ek = frob_diff(b.stiffness, stiff, &nk);
    double ed = frob_diff(b.damping, damp, &nd);
    int wr = 0, wc = 0;
    for (int r = 0; r < 12; ++r)
    {
        for (int c = 0; c < 12; ++c)
        {
            if (fabs(b.stiffness[r][c] - stiff[r][c]) > fabs(b.stiffness[wr][wc] - stiff[wr][wc]))
            {
                wr = r;
                wc = c;
            }
        }
    }
    cr_log_info("%s: largest stiffness difference at [%d][%d]: %.9g vs %.9g", name, wr, wc, b.stiffness[wr][wc],
                stiff[wr][wc]);
    cr_log_info("%s: %u regions, flags %u, |K| %.6g, |K - K_fd| / |K| %.3g, |D| %.6g, |D - D_fd| / |D| %.3g", name, n,
                b.flags, nk, ek / nk, nd, nd > 0.0 ? ed / nd : 0.0);
    cr_expect(nk > 0.0, "%s: zero stiffness", name);
    cr_expect(ek <= tolerance * nk, "%s: stiffness differs from finite differences by %.3g relative", name, ek / nk);
    cr_expect(ed <= tolerance * fmax(nd, 1e-300), "%s: damping differs by %.3g relative", name,
              nd > 0.0 ? ed / nd : ed);
}

static mc_force_model impact_model(double k, double e, double c, double dmax, bool friction)
{
    mc_force_model m = mc_default_force_model();
    m.stiffness = k;
    m.exponent = e;
    m.damping = c;
    m.dmax = dmax;
    if (friction)
    {
        m.friction = MC_FRICTION_ON;
        m.mu_static = 0.5;
        m.mu_dynamic = 0.3;
        m.stiction_velocity = 0.01;
        m.friction_velocity = 0.1;
    }
    return m;
}

// A unit cube J whose bottom face is sunk h into a 4 x 4 plate I, the cube's reference point at its bottom centre.
// By hand (IMPACT, Adams depth = h exactly, normal +z, area 1, point = the slab's centroid (0, 0, -h/2) relative to
// the reference point): Fz on J = k h^e + c(h) gdot with gdot = -(vz_J - vz_I), so
// dFz_J / dz_J = -k e h^(e-1), dFz_J / dz_I = +k e h^(e-1), dFz_J / dvz_J = -c(h), dFz_J / dvz_I = c(h); sliding
// the cube sideways changes nothing (the face stays on the plate): dF / dx = dF / dy = 0.
Test(jacobian, box_face_on_plate_by_hand)
{
    const double h = 1e-3, k = 1e7, e = 1.5, c = 200.0, dmax = 1e-4;
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -1.0), mc_v3(2.0, 2.0, 0.0));
    mc_mesh* cube = scene_box(mc_v3(-0.5, -0.5, 0.0), mc_v3(0.5, 0.5, 1.0));
    cr_assert(plate != NULL && cube != NULL);
    mc_pose pj = mc_pose_identity();
    pj.p = mc_v3(0.1, -0.2, -h);
    mc_force_model m = impact_model(k, e, c, dmax, false);
    jscene s;
    jscene_make(&s, plate, cube, mc_pose_identity(), pj, &m);
    mc_jacobian_block b = one_block(&s);
    double kz = k * e * pow(h, e - 1.0);
    // Tolerances: the geometry is linear in z here (a slab), so the difference quotient is exact up to rounding of
    // coordinates of order 1 over the step (1e-6: 1e-16 / 1e-6 = 1e-10 relative of the unit slopes).
    cr_expect(fabs(b.stiffness[8][8] + kz) <= 1e-6 * kz, "dFz_J/dz_J %.12g, expected %.12g", b.stiffness[8][8], -kz);
    cr_expect(fabs(b.stiffness[8][2] - kz) <= 1e-6 * kz, "dFz_J/dz_I %.12g", b.stiffness[8][2]);
    cr_expect(fabs(b.stiffness[2][8] - kz) <= 1e-6 * kz, "dFz_I/dz_J %.12g (equal and opposite)", b.stiffness[2][8]);
    for (int col = 6; col < 8; ++col)
    {
        cr_expect(fabs(b.stiffness[8][col]) <= 1e-6 * kz, "dFz_J/dx_J[%d] %.12g", col, b.stiffness[8][col]);
    }
    cr_expect(fabs(b.damping[8][8] + c) <= 1e-12 * c, "dFz_J/dvz_J %.17g, expected %g", b.damping[8][8], -c);
    cr_expect(fabs(b.damping[8][2] - c) <= 1e-12 * c, "dFz_J/dvz_I %.17g", b.damping[8][2]);
    // torque on J about its reference point from Fz at the point (0, 0, -h/2) relative to it: zero moment arm in
    // x and y, so dT_J / dz_J = 0
    cr_expect(fabs(b.stiffness[9][8]) <= 1e-6 * kz && fabs(b.stiffness[10][8]) <= 1e-6 * kz);
    check_against_world(&s, "box_face_on_plate", 1e-5);
    jscene_destroy(&s);
}

// A tessellated sphere (5k triangles) on a plate with friction and a sliding, spinning velocity: every term of the
// force law (stiffness, damping ramp, friction STEP curves, friction torque) is exercised. The sphere is tilted: with
// its pole straight down, every face of the pole's fan would be equally near the centroid (a tie of the Adams depth's
// closest feature, where the depth has no derivative and differences average the fan's slopes).
Test(jacobian, sphere_on_plate_with_friction)
{
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    mc_mesh* ball = scene_uv_sphere(0.05, 5000);
    cr_assert(plate != NULL && ball != NULL);
    mc_pose pj = mc_pose_identity();
    pj.p = mc_v3(0.01, 0.02, 0.05 - 1.3e-3);
    pj.q = mc_quat_normalize((mc_quat){0.98, 0.12, 0.15, 0.05});
    mc_force_model m = impact_model(1e8, 2.2, 1e3, 1e-3, true);
    jscene s;
    jscene_make(&s, plate, ball, mc_pose_identity(), pj, &m);
    mc_twist t = {mc_v3(0.003, -0.002, -0.05), mc_v3(0.5, 0.2, 3.0)};
    cr_assert_eq(mc_body_set_velocity(s.world, s.bj, &t), MC_OK);
    check_against_world(&s, "sphere_on_plate", 1e-5);
    jscene_destroy(&s);
}

// Real meshes of data/ at poses in contact (IMPACT with damping and friction, random twists): Spot and a CAD part on
// a plate, Spot against its shifted, turned copy (target 1e-5). And two CAD exports deep through each other (4
// regions): there the geometry has kinks (a crossing passing a vertex, the closest feature of the Adams depth
// changing) closer together than the difference steps, so the derivative exists only piecewise and differences
// average the kinks within their step: the analytic blocks (the slope of the current piece) measured 2.0e-5 relative
// from the test's differences and 3.3e-5 from the library's own (its step is another), hence the looser 1e-3 there.
// The smooth scenes: 8e-11 to 9e-9 against the test's differences, 2.5e-10 to 2.3e-9 against the library's (which the
// analytic shapes still use); target 1e-5 and 1e-6.
Test(jacobian, real_meshes_against_finite_differences, .timeout = 240)
{
    uint64_t rng = 12345;
    for (int q = 0; q < 4; ++q)
    {
        scene_pair sp;
        if (q < 2)
        {
            cr_assert_eq(scene_make_real(q, &sp), 0, "data/ mesh missing"); // spot_on_plate, cad_part_on_plate
        }
        else if (q == 2)
        {
            cr_assert_eq(scene_make_file("data/spot.obj", "spot_shifted", 0.2, 0.3, &sp), 0);
        }
        else
        {
            cr_assert_eq(scene_make_real(5, &sp), 0); // cad_parts_through
        }
        mc_force_model m = impact_model(1e5, 1.5, 10.0, 1e-4, true);
        m.stiction_velocity = 1.0;
        m.friction_velocity = 10.0;
        jscene s;
        jscene_make(&s, sp.mesh_i, sp.mesh_j, sp.pose_i, sp.pose_j, &m);
        mc_twist ti = {mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5),
                       mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5)};
        mc_twist tj = {mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5),
                       mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5)};
        cr_assert_eq(mc_body_set_velocity(s.world, s.bi, &ti), MC_OK);
        cr_assert_eq(mc_body_set_velocity(s.world, s.bj, &tj), MC_OK);
        check_against_world(&s, sp.name, q < 3 ? 1e-5 : 1e-3);
        // the library's own differences (the path of analytic shapes) agree with its analytic blocks
        mc_jacobian_block a = one_block(&s);
        cr_assert_eq(mc_world_set_jacobian_method(s.world, MC_JACOBIAN_DIFFERENCES), MC_OK);
        mc_jacobian_block d = one_block(&s);
        cr_assert_neq(memcmp(a.stiffness, d.stiffness, sizeof a.stiffness), 0, "%s: the method switch changed nothing",
                      sp.name);
        double nd = 0.0;
        double ed = frob_diff(a.stiffness, d.stiffness, &nd);
        cr_log_info("%s: analytic vs the library's differences %.3g relative", sp.name, ed / nd);
        cr_expect(ed <= (q < 3 ? 1e-6 : 1e-3) * nd, "%s: analytic vs differenced blocks %.3g", sp.name, ed / nd);
        cr_assert_eq(mc_world_set_jacobian_method(s.world, MC_JACOBIAN_ANALYTIC), MC_OK);
        mc_jacobian_block a2 = one_block(&s);
        cr_assert_eq(memcmp(a.stiffness, a2.stiffness, sizeof a.stiffness), 0,
                     "%s: back to analytic, not the same bits", sp.name);
        cr_assert_eq(mc_world_set_jacobian_method(s.world, (mc_jacobian_method)2), MC_ERR_INVALID_ARGUMENT);
        cr_assert_eq(mc_world_set_jacobian_method(NULL, MC_JACOBIAN_ANALYTIC), MC_ERR_INVALID_ARGUMENT);
        mc_world_destroy(s.world);
        scene_pair_destroy(&sp);
    }
}

// The block is the same bits for 1 and 2 workers and does not change the evaluation's results.
Test(jacobian, deterministic_and_read_only)
{
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    mc_mesh* ball = scene_uv_sphere(0.05, 2000);
    mc_pose pj = mc_pose_identity();
    pj.p = mc_v3(0.0, 0.0, 0.049);
    mc_force_model m = impact_model(1e6, 1.5, 10.0, 1e-4, true);
    mc_jacobian_block blocks[2];
    mc_contact_region before[4], after[4];
    for (int workers = 1; workers <= 2; ++workers)
    {
        jscene s;
        jscene_make_workers(&s, plate, ball, mc_pose_identity(), pj, &m, workers);
        blocks[workers - 1] = one_block(&s);
        cr_assert_eq(mc_world_get_regions(s.world, after, 4), 1u);
        if (workers == 1)
        {
            memcpy(before, after, sizeof after);
        }
        cr_expect(memcmp(before, after, sizeof before[0]) == 0, "the records changed");
        // moved since the evaluation: refused
        mc_pose p2 = pj;
        p2.p.z += 1e-6;
        cr_assert_eq(mc_body_set_pose(s.world, s.bj, &p2), MC_OK);
        uint32_t count = 0;
        cr_expect_eq(mc_world_get_jacobian(s.world, blocks, 0, &count), MC_ERR_INVALID_ARGUMENT);
        cr_assert_eq(mc_world_evaluate(s.world), MC_OK);
        cr_expect_eq(mc_world_get_jacobian(s.world, NULL, 0, &count), MC_ERR_CAPACITY);
        cr_expect_eq(count, 1u);
        mc_world_destroy(s.world);
    }
    cr_expect(memcmp(&blocks[0].stiffness, &blocks[1].stiffness, sizeof blocks[0].stiffness) == 0);
    cr_expect(memcmp(&blocks[0].damping, &blocks[1].damping, sizeof blocks[0].damping) == 0);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(ball);
}

// ---------------------------------------------------------------------------------------------------------------
// The region stage's derivatives (src/contact/region_derivative.h) against central differences of mc_query_regions,
// quantity by quantity, in I's body frame (slots: J's translation, then its rotation about I's frame origin).

#include "src/contact/regions.h"

// J's pose after the relative motion s (I's frame) times t.
static mc_pose relative_moved(const mc_pose* pi, const mc_pose* pj, const double s[6], double t)
{
    mc_pose inv = mc_pose_inverse(pi);
    mc_pose rel = mc_pose_mul(&inv, pj);
    mc_vec3 th = mc_v3(s[3] * t, s[4] * t, s[5] * t);
    double a = mc_length(th);
    mc_quat dq = mc_quat_identity();
    if (a > 0.0)
    {
        double sn = sin(0.5 * a) / a;
        dq.w = cos(0.5 * a);
        dq.x = th.x * sn;
        dq.y = th.y * sn;
        dq.z = th.z * sn;
    }
    mc_pose r;
    r.q = mc_quat_normalize(mc_quat_mul(dq, rel.q));
    r.p = mc_add(mc_quat_rotate(dq, rel.p), mc_v3(s[0] * t, s[1] * t, s[2] * t));
    return mc_pose_mul(pi, &r);
}

// The region quantities of region r in I's frame: volume, area, depth, centroid (3), normal (3).
static void region_in_i(const mc_pose* pi, const mc_region* r, double q[9])
{
    mc_vec3 c = mc_pose_inv_transform(pi, r->centroid);
    mc_vec3 n = mc_quat_rotate(mc_quat_conj(pi->q), r->normal);
    double v[9] = {r->volume, r->area, r->depth, c.x, c.y, c.z, n.x, n.y, n.z};
    memcpy(q, v, sizeof v);
}

static void derivative_in_i(const mc_region_derivative* d, int k, double q[9])
{
    double v[9] = {d->volume[k],     d->area[k],     d->depth[k],    d->centroid[k].x, d->centroid[k].y,
                   d->centroid[k].z, d->normal[k].x, d->normal[k].y, d->normal[k].z};
    memcpy(q, v, sizeof v);
}

// Largest relative difference over the quantities (volume, area, depth, centroid, normal) of the derivative matrices
// (6 columns, the rotation columns times the lever L = the region's distance from I's origin plus its radius, so
// both kinds of columns are per unit of displacement). Step h = 3e-6 times the region's radius: rounding of the
// quantities (1e-16 relative) over h gives about 3e-11 relative, the O(h^2) truncation 1e-11 relative to the
// features' curvature; a wrong term in the derivatives shows at O(1). Configurations must be smooth: no closest
// feature of the Adams depth at a tie (a tessellated sphere's pole straight below the centroid is one: every face of
// the pole's fan is equally near, the depth is a minimum of equal branches and has no derivative), no crossing within
// h of a mesh vertex.
static double check_region_derivatives(const scene_pair* sp, mc_depth_method method, const char* name)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_query_options opt = mc_default_query_options();
    opt.depth_method = method;
    mc_region reg[16], rp[16], rm[16];
    mc_region_derivative der[16];
    uint32_t n = 0, np = 0, nm = 0;
    cr_assert_eq(
        mc_query_regions_derivatives(sp->mesh_i, &sp->pose_i, sp->mesh_j, &sp->pose_j, &opt, ws, reg, der, 16, &n),
        MC_OK);
    cr_assert(n >= 1);
    double worst = 0.0;
    for (uint32_t r = 0; r < n; ++r)
    {
        double q0[9];
        region_in_i(&sp->pose_i, &reg[r], q0);
        double lever = mc_length(mc_v3(q0[3], q0[4], q0[5])) + reg[r].radius;
        double h = 3e-6 * reg[r].radius;
        double num[5] = {0}, den[5] = {0};
        for (int k = 0; k < 6; ++k)
        {
            double s[6] = {0};
            s[k] = k < 3 ? 1.0 : 1.0 / lever;
            mc_pose pp = relative_moved(&sp->pose_i, &sp->pose_j, s, h);
            mc_pose pm = relative_moved(&sp->pose_i, &sp->pose_j, s, -h);
            cr_assert_eq(mc_query_regions(sp->mesh_i, &sp->pose_i, sp->mesh_j, &pp, &opt, ws, rp, 16, &np, NULL),
                         MC_OK);
            cr_assert_eq(mc_query_regions(sp->mesh_i, &sp->pose_i, sp->mesh_j, &pm, &opt, ws, rm, 16, &nm, NULL),
                         MC_OK);
            cr_assert(np == n && nm == n, "%s: the region count changed within the step", name);
            double qp[9], qm[9], qa[9];
            region_in_i(&sp->pose_i, &rp[r], qp);
            region_in_i(&sp->pose_i, &rm[r], qm);
            derivative_in_i(&der[r], k, qa);
            const int group[9] = {0, 1, 2, 3, 3, 3, 4, 4, 4};
            for (int q = 0; q < 9; ++q)
            {
                double fd = (qp[q] - qm[q]) / (2.0 * h);
                double an = qa[q] * s[k];
                num[group[q]] += (an - fd) * (an - fd);
                den[group[q]] += fd * fd;
            }
        }
        const char* names[5] = {"volume", "area", "depth", "centroid", "normal"};
        for (int g = 0; g < 5; ++g)
        {
            // the normal's derivative is relative to 1 / radius at least (a flat region's normal hardly turns: its
            // differences are rounding, 1e-16 / h)
            double scale = fmax(sqrt(den[g]), g == 4 ? 1.0 / reg[r].radius : 0.0);
            double e = scale > 0.0 ? sqrt(num[g]) / scale : sqrt(num[g]);
            cr_log_info("%s region %u: %s derivative vs differences %.3g relative (|fd| %.3g)", name, r, names[g], e,
                        sqrt(den[g]));
            worst = fmax(worst, e);
        }
    }
    mc_workspace_destroy(ws);
    return worst;
}

// Tolerance 1e-6: measured 1e-10 to 1e-8 (rounding over the step), a wrong term would be O(1).
Test(jacobian, region_derivatives_against_differences, .timeout = 240)
{
    scene_pair sp;
    memset(&sp, 0, sizeof sp);
    sp.mesh_i = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    sp.mesh_j = scene_uv_sphere(0.05, 5000);
    sp.pose_i = mc_pose_identity();
    sp.pose_j = mc_pose_identity();
    sp.pose_j.p = mc_v3(0.01, 0.02, 0.05 - 1.3e-3);
    sp.pose_j.q = mc_quat_normalize((mc_quat){0.98, 0.12, 0.15, 0.05});
    snprintf(sp.name, sizeof sp.name, "sphere_on_plate");
    double e = check_region_derivatives(&sp, MC_DEPTH_ADAMS, sp.name);
    cr_expect(e <= 1e-6, "%s: %.3g", sp.name, e);
    e = check_region_derivatives(&sp, MC_DEPTH_VOLUME_AREA, "sphere_on_plate_volume_area");
    cr_expect(e <= 1e-6, "%s 2V/A: %.3g", sp.name, e);
    e = check_region_derivatives(&sp, MC_DEPTH_EXTENT, "sphere_on_plate_extent");
    cr_expect(e <= 1e-6, "%s extent: %.3g", sp.name, e);
    scene_pair_destroy(&sp);
    for (int q = 0; q < 3; ++q)
    {
        if (q < 2)
        {
            cr_assert_eq(scene_make_real(q, &sp), 0, "data/ mesh missing"); // spot_on_plate, cad_part_on_plate
        }
        else
        {
            cr_assert_eq(scene_make_file("data/spot.obj", "spot_shifted", 0.2, 0.3, &sp), 0);
        }
        e = check_region_derivatives(&sp, MC_DEPTH_ADAMS, sp.name);
        cr_expect(e <= 1e-6, "%s: %.3g", sp.name, e);
        e = check_region_derivatives(&sp, MC_DEPTH_VOLUME_AREA, sp.name);
        cr_expect(e <= 1e-6, "%s 2V/A: %.3g", sp.name, e);
        if (q != 1)
        {
            // not the CAD part: its flat bottom lies parallel to the plate, so its lowest inside vertices tie for the
            // extent's end (a maximum of equal branches, which a tilt splits: no derivative)
            e = check_region_derivatives(&sp, MC_DEPTH_EXTENT, sp.name);
            cr_expect(e <= 1e-6, "%s extent: %.3g", sp.name, e);
        }
        // I and J swapped: the other mesh's crossings, corners, whole faces and blocks move
        scene_pair sw = sp;
        sw.mesh_i = sp.mesh_j;
        sw.mesh_j = sp.mesh_i;
        sw.pose_i = sp.pose_j;
        sw.pose_j = sp.pose_i;
        e = check_region_derivatives(&sw, MC_DEPTH_ADAMS, "swapped");
        cr_expect(e <= 1e-6, "%s swapped: %.3g", sp.name, e);
        scene_pair_destroy(&sp);
    }
}

// Flush faces (regions.c): their pieces count in no vector area, and the derivatives leave them out alike (a pure
// face's flags; a mixed face's clipped area moves with J). A motion that keeps the flush faces in their planes is
// smooth: J's translations along those planes. The others are kinks (a flush face leaves its plane on one side or the
// other) and are not checked. Volume, area and normal derivatives against central differences (step 1e-6 of the
// region's size); depth 2V/A.
static double check_flush_translation(const mc_mesh* mi, const mc_mesh* mj, mc_vec3 t, mc_vec3 axis, const char* name)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    opt.depth_method = MC_DEPTH_VOLUME_AREA;
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = t;
    mc_region r, rp, rm;
    mc_region_derivative d;
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions_derivatives(mi, &pi, mj, &pj, &opt, ws, &r, &d, 1, &n), MC_OK);
    cr_assert_eq(n, 1, "%s: %u regions", name, n);
    double h = 1e-6 * sqrt(r.area);
    mc_pose pp = pj, pm = pj;
    pp.p = mc_mul_add(t, h, axis);
    pm.p = mc_mul_add(t, -h, axis);
    cr_assert_eq(mc_query_regions(mi, &pi, mj, &pp, &opt, ws, &rp, 1, &n, NULL), MC_OK);
    cr_assert_eq(mc_query_regions(mi, &pi, mj, &pm, &opt, ws, &rm, 1, &n, NULL), MC_OK);
    mc_workspace_destroy(ws);
    double an[5], fd[5];
    mc_vec3 dn = mc_v3(0, 0, 0);
    double dv = 0.0, da = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        double a = (&axis.x)[k];
        dv += a * d.volume[k];
        da += a * d.area[k];
        dn = mc_mul_add(dn, a, d.normal[k]);
    }
    an[0] = dv, an[1] = da, an[2] = dn.x, an[3] = dn.y, an[4] = dn.z;
    fd[0] = (rp.volume - rm.volume) / (2.0 * h), fd[1] = (rp.area - rm.area) / (2.0 * h);
    mc_vec3 fdn = mc_scale(mc_sub(rp.normal, rm.normal), 1.0 / (2.0 * h));
    fd[2] = fdn.x, fd[3] = fdn.y, fd[4] = fdn.z;
    double size = sqrt(r.area);
    double scale[5] = {fmax(fabs(fd[0]), r.area), fmax(fabs(fd[1]), size), 1.0 / size, 1.0 / size, 1.0 / size};
    double worst = 0.0;
    for (int q = 0; q < 5; ++q)
    {
        worst = fmax(worst, fabs(an[q] - fd[q]) / scale[q]);
    }
    cr_log_info("%s: volume %.6g (fd %.6g), area %.6g (fd %.6g), normal (%.4g %.4g %.4g) (fd %.4g %.4g %.4g): %.3g",
                name, an[0], fd[0], an[1], fd[1], an[2], an[3], an[4], fd[2], fd[3], fd[4], worst);
    return worst;
}

// Measured 1e-9 and below on the boxes and the knob (rounding over the step); a missing term is O(1e-2) or more (the
// knob's area derivative without the mixed faces' clipped areas: 23 % off).
Test(jacobian, flush_faces_derivatives_along_their_planes)
{
    mc_mesh* box = scene_box(mc_v3(-0.5, -0.5, -0.5), mc_v3(0.5, 0.5, 0.5));
    mc_mesh* grid = scene_box_grid(mc_v3(0.5, 0.5, 0.5), 800);
    mc_mesh* knob = scene_import("data/prusa/LCD-knob.stl");
    cr_assert(box != NULL && grid != NULL && knob != NULL, "data/ mesh missing");
    double e = check_flush_translation(box, box, mc_v3(0.0, 0.0, 0.99), mc_v3(0, 0, 1), "stacked");
    cr_expect(e <= 1e-6, "stacked: %.3g", e);
    e = check_flush_translation(grid, grid, mc_v3(0.25, 0.0, 0.75), mc_v3(0.6, 0.0, 0.8), "offset grids");
    cr_expect(e <= 1e-6, "offset grids: %.3g", e);
    e = check_flush_translation(box, grid, mc_v3(0.3, 0.0, 0.6), mc_v3(1, 0, 0), "box on grid");
    cr_expect(e <= 1e-6, "box on grid: %.3g", e);
    e = check_flush_translation(knob, knob, mc_v3(5.34817, 0.0, 0.0), mc_v3(1, 0, 0), "knob shifted along x");
    cr_expect(e <= 1e-6, "knob: %.3g", e);
    mc_mesh_destroy(box);
    mc_mesh_destroy(grid);
    mc_mesh_destroy(knob);
}

// Issue 33: every law differentiated. A user normal law (an IMPACT-like law of depth, rate and area, Adams CNFSUB) and
// a user friction law (a viscous law of the slip velocity scaled by Fn, CFFSUB): the library differences them along
// each state coordinate's direction (world.h).
static double user_normal_law(const mc_contact_kinematics* kin, const mc_force_model* model, void* user_data)
{
    (void)user_data;
    return model->stiffness * pow(kin->depth, 1.5) * (1.0 + 0.1 * kin->area) + 2e3 * kin->depth * kin->rate;
}

static void user_friction_law(const mc_contact_kinematics* kin, double fn, const mc_force_model* model,
                              void* user_data, mc_vec3* force, mc_vec3* torque)
{
    (void)model;
    (void)user_data;
    *force = mc_scale(kin->slip_velocity, -0.4 * fn / (0.5 + mc_length(kin->slip_velocity)));
    *torque = mc_scale(kin->normal, -0.01 * fn * kin->spin_rate * kin->radius);
}

// RecurDyn's and DYMORE's laws (exponents, R_df, boundary ramp, splines), friction curves (coefficient and force) and
// user laws on a real-mesh pair (Spot on a plate, random twists): the analytic blocks against central differences of
// mc_world_evaluate's wrenches, 1e-7 relative (the smooth scenes measure 1e-10..1e-8 with IMPACT; the user laws add
// the library's own differences, 1e-6 relative steps: truncation ~1e-12, rounding ~1e-10).
Test(jacobian, vendor_and_user_laws_against_finite_differences, .timeout = 240)
{
    const double kx[6] = {0.0, 2e-4, 5e-4, 1e-3, 2e-3, 4e-3}, ky[6] = {0.0, 0.3, 1.2, 3.5, 9.0, 25.0};
    const double cx[5] = {-3.0, -0.5, 0.0, 0.5, 3.0}, cy[5] = {-30.0, -8.0, 0.0, 9.0, 35.0};
    const double fx[5] = {0.0, 0.2, 0.6, 1.5, 4.0}, fy[5] = {0.0, 0.45, 0.35, 0.3, 0.28};
    mc_curve *kc = NULL, *cc = NULL, *fc = NULL;
    cr_assert_eq(mc_curve_create(kx, ky, 6, MC_CURVE_CUBIC, &kc, NULL), MC_OK);
    cr_assert_eq(mc_curve_create(cx, cy, 5, MC_CURVE_AKIMA, &cc, NULL), MC_OK);
    cr_assert_eq(mc_curve_create(fx, fy, 5, MC_CURVE_CUBIC, &fc, NULL), MC_OK);
    uint64_t rng = 777;
    for (int law = 0; law < 6; ++law)
    {
        scene_pair sp;
        cr_assert_eq(scene_make_real(0, &sp), 0, "data/ mesh missing"); // spot_on_plate
        mc_force_model m = impact_model(1e5, 1.5, 10.0, 1e-4, true);
        m.stiction_velocity = 1.0;
        m.friction_velocity = 10.0;
        const char* name = "";
        switch (law)
        {
        case 0: // RecurDyn: m_d, m_i, R_df, a boundary penetration the depth is inside
            m.normal_law = MC_NORMAL_RECURDYN;
            m.exponent = 1.3;
            m.damping = 50.0;
            m.damping_exponent = 1.4;
            m.indentation_exponent = 0.6;
            m.rebound_damping_factor = 0.3;
            m.dmax = 5e-3;
            name = "recurdyn";
            break;
        case 1: // RecurDyn with stiffness and damping splines, a friction coefficient curve
            m.normal_law = MC_NORMAL_RECURDYN;
            m.stiffness_curve = kc;
            m.damping_curve = cc;
            m.dmax = 5e-3;
            m.friction_curve = fc;
            name = "recurdyn_splines";
            break;
        case 2: // DYMORE Hertz with dissipation
            m.normal_law = MC_NORMAL_DYMORE;
            m.dissipation = 0.3;
            name = "dymore";
            break;
        case 3: // DYMORE nonlinear spring, friction force curve
            m.normal_law = MC_NORMAL_DYMORE;
            m.stiffness_curve = kc;
            m.dissipation = 0.2;
            m.friction_curve = fc;
            m.friction_curve_kind = MC_FRICTION_CURVE_FORCE;
            name = "dymore_curve";
            break;
        case 4: // user normal law
            m.normal_law = MC_NORMAL_USER;
            m.normal_fcn = user_normal_law;
            name = "user_normal";
            break;
        default: // user normal and friction laws
            m.normal_law = MC_NORMAL_USER;
            m.normal_fcn = user_normal_law;
            m.friction_fcn = user_friction_law;
            name = "user_normal_friction";
            break;
        }
        jscene s;
        jscene_make(&s, sp.mesh_i, sp.mesh_j, sp.pose_i, sp.pose_j, &m);
        mc_twist ti = {mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5),
                       mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5)};
        mc_twist tj = {mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5),
                       mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5)};
        cr_assert_eq(mc_body_set_velocity(s.world, s.bi, &ti), MC_OK);
        cr_assert_eq(mc_body_set_velocity(s.world, s.bj, &tj), MC_OK);
        check_against_world(&s, name, 1e-7);
        mc_world_destroy(s.world);
        scene_pair_destroy(&sp);
    }
    mc_curve_destroy(kc);
    mc_curve_destroy(cc);
    mc_curve_destroy(fc);
}
