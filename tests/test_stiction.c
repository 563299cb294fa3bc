// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of stiction (STICTION = ON, MAX_STICTION_DEFORMATION): the law against hand values, a block held on a 20
// degree slope and sliding with mu_d on a 30 degree one (against statics and g (sin a - mu_d cos a)), the
// commit / save / restore contract (evaluations never advance the state; restoring gives bitwise the same results),
// and the bad inputs (parameter ranges, a state buffer from another world or damaged).
#include "scene_builders.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
static const double GRAVITY = 9.80665;
#define DMAX 1e-4
#define MASS 1.0

static mc_force_model stiction_model(bool stiction)
{
    mc_force_model m = mc_default_force_model();
    m.normal_law = MC_NORMAL_POISSON;
    m.penalty = 1e6;
    m.restitution = 0.5;
    m.normal_transition_velocity = 1e-3;
    m.friction = MC_FRICTION_ON;
    m.mu_static = 0.5;
    m.mu_dynamic = 0.3;
    // vs ~ sqrt(mu_s g Dmax) / 2 damps the stiction spring about critically (world.h, mc_stiction_force)
    m.stiction_velocity = 0.01;
    m.friction_velocity = 0.05;
    m.stiction = stiction;
    m.max_stiction_deformation = DMAX;
    return m;
}

// ------------------------------------------------------------------------------------------------------------------
// The law alone
// ------------------------------------------------------------------------------------------------------------------

Test(stiction, law_matches_hand_values)
{
    mc_force_model m = stiction_model(true);
    mc_vec3 f, kept;
    double fn = 10.0;
    // At rest with half the largest creep: the spring alone, -mu_s Fn d / Dmax (exact: products of powers of two).
    double mu = mc_stiction_force(&m, fn, mc_v3(0.5 * DMAX, 0.0, 0.0), mc_v3(0.0, 0.0, 0.0), &f, &kept);
    cr_assert(ieee_ulp_eq(dbl, f.x, -0.5 * 0.5 * fn, 4));
    cr_assert(eq(dbl, f.y, 0.0));
    cr_assert(ieee_ulp_eq(dbl, mu, 0.25, 4));
    cr_assert(ieee_ulp_eq(dbl, kept.x, 0.5 * DMAX, 1));
    // A creep of 3 Dmax is kept at Dmax, the force capped at mu_s Fn.
    mu = mc_stiction_force(&m, fn, mc_v3(0.0, -3.0 * DMAX, 0.0), mc_v3(0.0, 0.0, 0.0), &f, &kept);
    cr_assert(ieee_ulp_eq(dbl, kept.y, -DMAX, 4));
    cr_assert(ieee_ulp_eq(dbl, f.y, 0.5 * fn, 4));
    cr_assert(ieee_ulp_eq(dbl, mu, 0.5, 4));
    // Spring and damper together below the cap: u = 0.2 + 0.003 / 0.01 = 0.5, Ft = -0.25 Fn.
    mc_stiction_force(&m, fn, mc_v3(0.2 * DMAX, 0.0, 0.0), mc_v3(0.003, 0.0, 0.0), &f, NULL);
    cr_assert(ieee_ulp_eq(dbl, f.x, -0.25 * fn, 8));
    // Sliding above vd: mu_d Fn against the slip, the creep kept at Dmax mu_d / mu_s.
    mu = mc_stiction_force(&m, fn, mc_v3(DMAX, 0.0, 0.0), mc_v3(0.2, 0.0, 0.0), &f, &kept);
    cr_assert(ieee_ulp_eq(dbl, f.x, -0.3 * fn, 8));
    cr_assert(ieee_ulp_eq(dbl, kept.x, DMAX * 0.3 / 0.5, 8));
    cr_assert(ieee_ulp_eq(dbl, mu, 0.3, 8));
    // No normal force: no friction.
    mu = mc_stiction_force(&m, 0.0, mc_v3(DMAX, 0.0, 0.0), mc_v3(0.2, 0.0, 0.0), &f, &kept);
    cr_assert(eq(dbl, mu, 0.0));
    cr_assert(eq(dbl, mc_length(f), 0.0));
}

Test(stiction, parameters_out_of_range_are_refused)
{
    mc_error err;
    mc_force_model m = stiction_model(true);
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_OK));
    double bad_dmax[] = {0.0, -1e-4, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad_dmax / sizeof bad_dmax[0]; ++k)
    {
        m.max_stiction_deformation = bad_dmax[k];
        cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
        cr_assert(strstr(err.message, "MAX_STICTION_DEFORMATION") != NULL, "%s", err.message);
    }
    m = stiction_model(true);
    m.mu_static = 0.0;
    m.mu_dynamic = 0.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "MU_STATIC") != NULL, "%s", err.message);
    m = stiction_model(true);
    m.friction = MC_FRICTION_OFF;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "STICTION") != NULL, "%s", err.message);
    // Off, the deformation is not looked at (as for any law's unused parameters).
    m = stiction_model(false);
    m.max_stiction_deformation = -1.0;
    cr_assert(eq(int, mc_force_model_check(&m, &err), MC_OK));
}

// ------------------------------------------------------------------------------------------------------------------
// A block on a slope: body I a plate tilted by angle a about y, body J a 0.1 m cube of 1 kg translating (its
// orientation held at the plate's). Downhill is +x of the plate frame. Integrated with classical RK4, committing the
// state after each accepted step, as `meshcontact simulate` does.
// ------------------------------------------------------------------------------------------------------------------

typedef struct slope
{
    mc_mesh* plate;
    mc_mesh* block;
    mc_world* world;
    mc_body_id plate_id;
    mc_body_id block_id;
    mc_contact_id contact;
    mc_quat q;        // orientation of plate and block
    mc_vec3 normal;   // plate normal (world)
    mc_vec3 downhill; // unit vector down the slope
    mc_vec3 p;        // block position
    mc_vec3 v;        // block velocity
} slope;

// With `impact`, the normal law is IMPACT (k = 1e7, e = 1.5, damped) instead of POISSON.
static void slope_make_law(slope* s, double angle_deg, bool stiction, bool impact)
{
    memset(s, 0, sizeof *s);
    double a = angle_deg * PI / 180.0;
    s->q = (mc_quat){cos(0.5 * a), 0.0, sin(0.5 * a), 0.0};
    s->normal = mc_quat_rotate(s->q, mc_v3(0.0, 0.0, 1.0));
    s->downhill = mc_quat_rotate(s->q, mc_v3(1.0, 0.0, 0.0));
    s->plate = wscene_box(mc_v3(-3.0, -1.0, -0.2), mc_v3(3.0, 1.0, 0.0));
    s->block = wscene_box(mc_v3(-0.05, -0.05, 0.0), mc_v3(0.05, 0.05, 0.1));
    cr_assert(s->plate != NULL && s->block != NULL);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    cr_assert(eq(int, mc_world_create(&wd, &s->world), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = s->plate;
    bd.pose.q = s->q;
    s->plate_id = mc_world_create_body(s->world, &bd);
    // The block starts at rest sunk by the static penetration of POISSON, m g cos(a) / (p (1 + eps^2) / 2) (the
    // STEP of mc_poisson_force is at its midpoint at rate 0), or of IMPACT, (m g cos(a) / k)^(1 / e).
    mc_force_model m = stiction_model(stiction);
    double factor = 0.5 * (1.0 + m.restitution * m.restitution);
    double depth = MASS * GRAVITY * cos(a) / (m.penalty * factor);
    if (impact)
    {
        m.normal_law = MC_NORMAL_IMPACT;
        m.stiffness = 1e7;
        m.exponent = 1.5;
        m.damping = 2e3;
        m.dmax = 1e-5;
        depth = pow(MASS * GRAVITY * cos(a) / m.stiffness, 1.0 / m.exponent);
    }
    s->p = mc_scale(s->normal, -depth);
    bd.mesh = s->block;
    bd.pose.p = s->p;
    s->block_id = mc_world_create_body(s->world, &bd);
    cr_assert(eq(int, wscene_contact(s->world, s->plate_id, s->block_id, &m, &s->contact), MC_OK));
    // The initial state is committed too, so that the anchors exist from t = 0.
    cr_assert(eq(int, mc_world_evaluate(s->world), MC_OK));
    cr_assert(eq(int, mc_world_commit(s->world), MC_OK));
}

static void slope_make(slope* s, double angle_deg, bool stiction)
{
    slope_make_law(s, angle_deg, stiction, false);
}

static void slope_free(slope* s)
{
    mc_world_destroy(s->world);
    mc_mesh_destroy(s->plate);
    mc_mesh_destroy(s->block);
}

// Evaluate at block state (p, v); @return the block's acceleration.
static mc_vec3 slope_eval(slope* s, mc_vec3 p, mc_vec3 v)
{
    mc_pose pose = {p, s->q};
    mc_twist tw = {v, mc_v3(0.0, 0.0, 0.0)};
    cr_assert(eq(int, mc_body_set_pose(s->world, s->block_id, &pose), MC_OK));
    cr_assert(eq(int, mc_body_set_velocity(s->world, s->block_id, &tw), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s->world), MC_OK));
    mc_wrench w = mc_body_get_wrench(s->world, s->block_id);
    return mc_add(mc_scale(w.force, 1.0 / MASS), mc_v3(0.0, 0.0, -GRAVITY));
}

// One RK4 step of length h, then the accepted state is evaluated and committed.
static void slope_step(slope* s, double h)
{
    mc_vec3 a1 = slope_eval(s, s->p, s->v);
    mc_vec3 p2 = mc_mul_add(s->p, 0.5 * h, s->v), v2 = mc_mul_add(s->v, 0.5 * h, a1);
    mc_vec3 a2 = slope_eval(s, p2, v2);
    mc_vec3 p3 = mc_mul_add(s->p, 0.5 * h, v2), v3 = mc_mul_add(s->v, 0.5 * h, a2);
    mc_vec3 a3 = slope_eval(s, p3, v3);
    mc_vec3 p4 = mc_mul_add(s->p, h, v3), v4 = mc_mul_add(s->v, h, a3);
    mc_vec3 a4 = slope_eval(s, p4, v4);
    s->p = mc_add(s->p, mc_scale(mc_add(mc_add(s->v, v4), mc_scale(mc_add(v2, v3), 2.0)), h / 6.0));
    s->v = mc_add(s->v, mc_scale(mc_add(mc_add(a1, a4), mc_scale(mc_add(a2, a3), 2.0)), h / 6.0));
    slope_eval(s, s->p, s->v);
    cr_assert(eq(int, mc_world_commit(s->world), MC_OK));
}

static mc_contact_region slope_region(const slope* s)
{
    mc_contact_region r;
    cr_assert(eq(u32, mc_world_get_regions(s->world, &r, 1), 1));
    return r;
}

#define STEP_H 1e-4

Test(stiction, block_on_a_20_degree_slope_stays_put)
{
    slope s;
    slope_make(&s, 20.0, true);
    mc_vec3 p0 = s.p;
    double creep_max = 0.0, moved_max = 0.0;
    for (int k = 0; k < 10000; ++k) // 1 s
    {
        slope_step(&s, STEP_H);
        mc_contact_region r = slope_region(&s);
        cr_assert(r.sticking);
        creep_max = fmax(creep_max, mc_length(r.creep));
        mc_vec3 d = mc_sub(s.p, p0);
        moved_max = fmax(moved_max, mc_length(mc_mul_add(d, -mc_dot(d, s.normal), s.normal)));
    }
    // The committed creep never exceeds Dmax (it is capped there: 1e-12 for the rounding of the anchors' frames).
    cr_assert(creep_max <= DMAX * (1.0 + 1e-12), "creep %.17g", creep_max);
    // The block moved along the slope by no more than the creep (it never slipped), and it is at rest.
    cr_assert(moved_max <= DMAX * (1.0 + 1e-9), "moved %.17g", moved_max);
    cr_assert(mc_length(s.v) < 1e-9, "speed %g", mc_length(s.v));
    // Statics: mu_s Fn |d| / Dmax = m g sin(a) with Fn = m g cos(a), so |d| = Dmax tan(a) / mu_s. The damper has
    // settled (decay rate ~ 200 / s over 1 s), so only rounding remains: 1e-9.
    double want = DMAX * tan(20.0 * PI / 180.0) / 0.5;
    mc_contact_region r = slope_region(&s);
    cr_assert(fabs(mc_length(r.creep) - want) <= 1e-9 * want, "creep %.17g want %.17g", mc_length(r.creep), want);
    mc_vec3 d = mc_sub(s.p, p0);
    double along = mc_dot(d, s.downhill);
    cr_log_info("20 degrees: largest creep %.17g, largest move %.17g, final creep %.17g (statics %.17g), moved "
                "%.17g, speed %.3g",
                creep_max, moved_max, mc_length(r.creep), want, along, mc_length(s.v));
    cr_assert(fabs(along - want) <= 1e-6 * want, "moved %.17g want %.17g", along, want);
    cr_assert(fabs(mc_dot(d, s.normal)) <= 1e-6 * want, "normal settling %g", mc_dot(d, s.normal));
    slope_free(&s);

    // Without stiction the same block creeps down (mu(0) = 0): what the stiction spring prevents.
    slope_make(&s, 20.0, false);
    p0 = s.p;
    for (int k = 0; k < 10000; ++k) // 1 s
    {
        slope_step(&s, STEP_H);
    }
    // It creeps at the speed where the ramp of mu(v) gives tan(a): about 0.4 vs = 4 mm/s, so ~40 Dmax in 1 s.
    double crept = mc_dot(mc_sub(s.p, p0), s.downhill);
    cr_assert(crept > 10.0 * DMAX, "crept %g", crept);
    slope_free(&s);
}

Test(stiction, with_impact_the_block_is_held_too)
{
    // Stiction only uses Fn, so any normal law holds the block; IMPACT (Adams pairs stiction with POISSON) as a check.
    slope s;
    slope_make_law(&s, 20.0, true, true);
    double creep_max = 0.0;
    for (int k = 0; k < 10000; ++k) // 1 s
    {
        slope_step(&s, STEP_H);
        creep_max = fmax(creep_max, mc_length(slope_region(&s).creep));
    }
    double want = DMAX * tan(20.0 * PI / 180.0) / 0.5;
    double got = mc_length(slope_region(&s).creep);
    cr_log_info("20 degrees, IMPACT: largest creep %.17g, final %.17g (statics %.17g), speed %.3g", creep_max, got,
                want, mc_length(s.v));
    cr_assert(creep_max <= DMAX * (1.0 + 1e-12));
    // Settled as with POISSON (the same damper; IMPACT's damping settles the normal): statics to 1e-9.
    cr_assert(fabs(got - want) <= 1e-9 * want, "creep %.17g want %.17g", got, want);
    cr_assert(mc_length(s.v) < 1e-9, "speed %g", mc_length(s.v));
    slope_free(&s);
}

Test(stiction, block_on_a_30_degree_slope_slides_with_mu_dynamic)
{
    slope s;
    slope_make(&s, 30.0, true);
    double a = 30.0 * PI / 180.0;
    double v_half = 0.0, v_end = 0.0;
    for (int k = 1; k <= 10000; ++k) // 1 s
    {
        slope_step(&s, STEP_H);
        if (k == 5000)
        {
            v_half = mc_dot(s.v, s.downhill);
        }
    }
    v_end = mc_dot(s.v, s.downhill);
    // Past vd (0.05 m/s, reached in ~20 ms) the friction is mu_d Fn: a = g (sin a - mu_d cos a). Over the last half
    // second the only errors are RK4's (smooth motion, h = 1e-4 s) and the normal settling, both far below 1e-6.
    double want = GRAVITY * (sin(a) - 0.3 * cos(a));
    double got = (v_end - v_half) / 0.5;
    cr_log_info("30 degrees: acceleration %.17g, g (sin a - mu_d cos a) = %.17g, relative error %.3g", got, want,
                fabs(got - want) / want);
    cr_assert(fabs(got - want) <= 1e-6 * want, "acceleration %.17g want %.17g", got, want);
    mc_contact_region r = slope_region(&s);
    cr_assert(ieee_ulp_eq(dbl, r.friction_coefficient, 0.3, 16));
    cr_assert(mc_length(r.creep) <= DMAX * 0.3 / 0.5 * (1.0 + 1e-12));
    slope_free(&s);
}

// ------------------------------------------------------------------------------------------------------------------
// Commit, save, restore
// ------------------------------------------------------------------------------------------------------------------

static void* save_state(const mc_world* w, size_t* size)
{
    size_t need = mc_world_get_state(w, NULL, 0);
    cr_assert(need > 0);
    void* buf = malloc(need);
    cr_assert(buf != NULL);
    cr_assert(eq(sz, mc_world_get_state(w, buf, need), need));
    *size = need;
    return buf;
}

Test(stiction, evaluate_save_step_restore_evaluate_is_bitwise)
{
    slope s;
    slope_make(&s, 20.0, true);
    for (int k = 0; k < 100; ++k)
    {
        slope_step(&s, STEP_H);
    }
    // First result, at a trial state off the committed one (the block 1e-5 m downhill, moving).
    mc_vec3 p = mc_mul_add(s.p, 1e-5, s.downhill), v = mc_scale(s.downhill, 1e-3);
    slope_eval(&s, p, v);
    mc_contact_region r1 = slope_region(&s);
    mc_wrench w1 = mc_body_get_wrench(s.world, s.block_id);
    size_t size;
    void* saved = save_state(s.world, &size);
    mc_vec3 p_saved = s.p, v_saved = s.v;
    for (int k = 0; k < 300; ++k) // stepping changes the state
    {
        slope_step(&s, STEP_H);
    }
    size_t size2;
    void* later = save_state(s.world, &size2);
    cr_assert(size2 != size || memcmp(later, saved, size) != 0, "stepping did not change the state");
    slope_eval(&s, p, v);
    mc_contact_region r_later = slope_region(&s);
    cr_assert(memcmp(&r_later, &r1, sizeof r1) != 0, "the committed state does not change the result");
    // Restore and evaluate again: bitwise the first result.
    cr_assert(eq(int, mc_world_set_state(s.world, saved, size, NULL), MC_OK));
    s.p = p_saved;
    s.v = v_saved;
    slope_eval(&s, p, v);
    mc_contact_region r2 = slope_region(&s);
    mc_wrench w2 = mc_body_get_wrench(s.world, s.block_id);
    cr_assert(memcmp(&r2, &r1, sizeof r1) == 0);
    cr_assert(memcmp(&w2, &w1, sizeof w1) == 0);
    free(saved);
    free(later);
    slope_free(&s);
}

Test(stiction, evaluations_never_advance_the_state)
{
    slope s;
    slope_make(&s, 20.0, true);
    for (int k = 0; k < 50; ++k)
    {
        slope_step(&s, STEP_H);
    }
    size_t size;
    void* before = save_state(s.world, &size);
    mc_vec3 p0 = s.p;
    slope_eval(&s, p0, s.v);
    mc_contact_region r0 = slope_region(&s);
    // Many trial states far along the slope (an implicit integrator's iterations): the committed state stays.
    for (int k = 1; k <= 20; ++k)
    {
        slope_eval(&s, mc_mul_add(p0, 1e-4 * k, s.downhill), mc_scale(s.downhill, 0.01 * k));
    }
    size_t size2;
    void* after = save_state(s.world, &size2);
    cr_assert(eq(sz, size2, size));
    cr_assert(memcmp(after, before, size) == 0);
    slope_eval(&s, p0, s.v);
    mc_contact_region r1 = slope_region(&s);
    cr_assert(memcmp(&r1, &r0, sizeof r0) == 0);
    // The Jacobian does not differentiate the stiction law yet: refused, not wrong.
    uint32_t blocks = 0;
    cr_assert(eq(int, mc_world_get_jacobian(s.world, NULL, 0, &blocks), MC_ERR_UNSUPPORTED));
    // A commit needs an evaluation of the state to commit: after a pose change it is refused.
    mc_pose pose = {p0, s.q};
    mc_body_set_pose(s.world, s.block_id, &pose);
    cr_assert(eq(int, mc_world_commit(s.world), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_world_evaluate(s.world), MC_OK));
    cr_assert(eq(int, mc_world_commit(s.world), MC_OK));
    cr_assert(eq(int, mc_world_commit(s.world), MC_OK)); // the same state twice
    free(before);
    free(after);
    slope_free(&s);
}

Test(stiction, a_state_from_another_world_or_damaged_is_refused)
{
    slope a, b;
    slope_make(&a, 20.0, true);
    slope_make(&b, 20.0, true);
    for (int k = 0; k < 20; ++k)
    {
        slope_step(&a, STEP_H);
        slope_step(&b, STEP_H);
    }
    size_t size;
    unsigned char* buf = save_state(a.world, &size);
    size_t size_b;
    unsigned char* buf_b = save_state(b.world, &size_b);
    mc_error err;
    // Same scene, same steps, same entries: only the world differs, and the buffer is refused.
    cr_assert(eq(sz, size_b, size));
    cr_assert(eq(int, mc_world_set_state(b.world, buf, size, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "another world") != NULL, "%s", err.message);
    size_t after_size;
    unsigned char* after = save_state(b.world, &after_size);
    cr_assert(memcmp(after, buf_b, size) == 0, "a refused state changed the world");
    // Damaged: one bit of an anchor flipped, a truncated buffer, a foreign format, NULL.
    buf[size - 3] ^= 0x10;
    cr_assert(eq(int, mc_world_set_state(a.world, buf, size, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "damaged") != NULL, "%s", err.message);
    buf[size - 3] ^= 0x10;
    cr_assert(eq(int, mc_world_set_state(a.world, buf, size - 1, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_world_set_state(a.world, buf, 4, &err), MC_ERR_INVALID_ARGUMENT));
    unsigned char junk[64];
    memset(junk, 0x5a, sizeof junk);
    cr_assert(eq(int, mc_world_set_state(a.world, junk, sizeof junk, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(strstr(err.message, "not a state") != NULL, "%s", err.message);
    cr_assert(eq(int, mc_world_set_state(a.world, NULL, size, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_world_set_state(a.world, buf, size, &err), MC_OK));
    // A buffer too small is left untouched and the size is still reported.
    memset(junk, 0x5a, sizeof junk);
    cr_assert(eq(sz, mc_world_get_state(a.world, junk, size - 1 < sizeof junk ? size - 1 : sizeof junk), size));
    for (size_t k = 0; k < sizeof junk; ++k)
    {
        cr_assert(eq(u8, junk[k], 0x5a));
    }
    free(buf);
    free(buf_b);
    free(after);
    slope_free(&a);
    slope_free(&b);
}
