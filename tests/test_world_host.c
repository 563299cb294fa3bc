// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// What a world gives a host beside the wrenches: contact patches per region record (bitwise those of
// mc_query_patches), begin / persist / end events between evaluations (against the records, in pair order, the same
// for any thread count), and bodies marked at rest (their pairs reuse their regions; wrenches bitwise those of an
// awake cold world; a new pose wakes a body); warm evaluations with all of it allocate nothing.
#include "scene_builders.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NB 5 // a plate and four boxes

typedef struct pile
{
    mc_mesh* plate;
    mc_mesh* box;
    mc_world* w;
    mc_body_id ids[NB];
    mc_contact_id contact;
} pile;

// Four unit boxes pressed 1/16 into a 8 x 8 plate (top face z = 0), two of them also overlapping each other by 1/8
// along x: pairs plate-box (4) and box-box (1) touch, the others are apart.
/// memcmp that also takes the NULL arrays of empty patches (no bytes: equal).
static int same_bytes(const void* a, const void* b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

static const double s_xy[4][2] = {{-3.0, -3.0}, {-2.125, -3.0}, {2.0, 2.0}, {2.0, -2.0}};

static mc_pose box_pose(int k)
{
    mc_pose p;
    p.q = (mc_quat){1.0, 0.0, 0.0, 0.0};
    p.p = mc_v3(s_xy[k][0], s_xy[k][1], 0.5 - 0.0625);
    return p;
}

static void pile_make(pile* s, int workers, bool coherence)
{
    memset(s, 0, sizeof *s);
    s->plate = wscene_box(mc_v3(-4.0, -4.0, -1.0), mc_v3(4.0, 4.0, 0.0));
    s->box = wscene_box(mc_v3(-0.5, -0.5, -0.5), mc_v3(0.5, 0.5, 0.5));
    cr_assert(s->plate != NULL && s->box != NULL);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = workers;
    wd.coherence = coherence;
    cr_assert(eq(int, mc_world_create(&wd, &s->w), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.mesh = s->plate;
    s->ids[0] = mc_world_create_body(s->w, &bd);
    for (int k = 0; k < 4; ++k)
    {
        bd.mesh = s->box;
        bd.pose = box_pose(k);
        bd.velocity.v = mc_v3(0.01 * k, -0.02, 0.0); // damping and friction see these
        s->ids[k + 1] = mc_world_create_body(s->w, &bd);
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = s->ids;
    cd.i_count = NB;
    cd.model.stiffness = 1e6;
    cd.model.damping = 10.0;
    cd.model.friction = MC_FRICTION_ON;
    mc_error err;
    cr_assert(eq(int, mc_world_create_contact(s->w, &cd, &s->contact, &err), MC_OK), "%s", err.message);
}

static void pile_free(pile* s)
{
    mc_world_destroy(s->w);
    mc_mesh_destroy(s->plate);
    mc_mesh_destroy(s->box);
}

// The world's patches are those of mc_query_patches on the pair's meshes at the bodies' poses, record by record.
Test(world_host, patches_per_record_equal_the_query)
{
    pile s;
    pile_make(&s, 2, true);
    cr_assert(eq(int, mc_world_set_patches(s.w, 4), MC_OK));
    cr_assert(eq(int, mc_world_set_patches(s.w, MC_MANIFOLD_MAX + 1), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    mc_contact_region rec[16];
    mc_patch pat[16];
    uint32_t n = mc_world_get_regions(s.w, rec, 16);
    cr_assert(eq(u32, n, 5));
    cr_assert(eq(u32, mc_world_get_patches(s.w, pat, 16), n));
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_pose pi = mc_body_get_pose(s.w, rec[k].body_i), pj = mc_body_get_pose(s.w, rec[k].body_j);
        mc_region reg[4];
        mc_patch q[4];
        uint32_t m = 0;
        cr_assert(eq(int,
                     mc_query_patches(mc_body_get_mesh(s.w, rec[k].body_i), &pi, mc_body_get_mesh(s.w, rec[k].body_j),
                                      &pj, NULL, 4, ws, reg, q, 4, &m, NULL),
                     MC_OK));
        cr_assert(eq(u32, m, 1));
        cr_assert(eq(int, memcmp(&reg[0], &rec[k].region, sizeof reg[0]), 0));
        cr_assert(eq(u32, q[0].point_count, pat[k].point_count));
        cr_assert(eq(u32, q[0].loop_count, pat[k].loop_count));
        cr_assert(eq(u32, pat[k].loop_count, 1));
        cr_assert(eq(int, same_bytes(q[0].points, pat[k].points, q[0].point_count * sizeof(mc_vec3)), 1));
        cr_assert(eq(int, same_bytes(q[0].loop_ends, pat[k].loop_ends, q[0].loop_count * sizeof(uint32_t)), 1));
        cr_assert(eq(int, memcmp(q[0].manifold, pat[k].manifold, sizeof q[0].manifold), 0));
        cr_assert(eq(u32, pat[k].manifold_count, 4));
    }
    // Moved by a little, twice: the second query of each pair replays its traversal front and region plan (temporal
    // coherence); the patches are still those of a fresh query.
    for (int round = 1; round <= 3; ++round)
    {
        for (int b = 0; b < 4; ++b)
        {
            mc_pose p = box_pose(b);
            p.p.y += 1e-9 * round;
            mc_body_set_pose(s.w, s.ids[b + 1], &p);
        }
        cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
        cr_assert(eq(u32, mc_world_get_regions(s.w, rec, 16), n));
        cr_assert(eq(u32, mc_world_get_patches(s.w, pat, 16), n));
        for (uint32_t k = 0; k < n; ++k)
        {
            mc_pose pi = mc_body_get_pose(s.w, rec[k].body_i), pj = mc_body_get_pose(s.w, rec[k].body_j);
            mc_region reg[4];
            mc_patch q[4];
            uint32_t m = 0;
            cr_assert(eq(int,
                         mc_query_patches(mc_body_get_mesh(s.w, rec[k].body_i), &pi,
                                          mc_body_get_mesh(s.w, rec[k].body_j), &pj, NULL, 4, ws, reg, q, 4, &m, NULL),
                         MC_OK));
            cr_assert(eq(u32, q[0].point_count, pat[k].point_count));
            cr_assert(eq(int, same_bytes(q[0].points, pat[k].points, q[0].point_count * sizeof(mc_vec3)), 1));
            cr_assert(eq(int, memcmp(q[0].manifold, pat[k].manifold, sizeof q[0].manifold), 0));
        }
    }
    mc_step_info si = mc_world_get_step_info(s.w);
    cr_assert(gt(u32, si.planned_pairs, 0), "the region plans were replayed");
    // Unchanged poses: the pairs reuse their regions and their patches.
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    cr_assert(eq(u32, mc_world_get_step_info(s.w).reused_pairs, mc_world_get_step_info(s.w).candidate_pairs));
    mc_patch again[16];
    cr_assert(eq(u32, mc_world_get_patches(s.w, again, 16), n));
    for (uint32_t k = 0; k < n; ++k)
    {
        cr_assert(eq(int, memcmp(again[k].manifold, pat[k].manifold, sizeof pat[k].manifold), 0));
        cr_assert(eq(u32, again[k].point_count, pat[k].point_count));
    }
    // Off: the centroid alone.
    cr_assert(eq(int, mc_world_set_patches(s.w, 0), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    cr_assert(eq(u32, mc_world_get_patches(s.w, pat, 16), n));
    mc_world_get_regions(s.w, rec, 16);
    cr_assert(eq(u32, pat[0].point_count, 0));
    cr_assert(eq(u32, pat[0].manifold_count, 1));
    cr_assert(eq(int, memcmp(&pat[0].manifold[0].point, &rec[0].region.centroid, sizeof(mc_vec3)), 0));
    mc_workspace_destroy(ws);
    pile_free(&s);
}

static uint32_t events(mc_world* w, mc_contact_event* ev, uint32_t cap)
{
    uint32_t n = mc_world_get_events(w, ev, cap);
    cr_assert(le(u32, n, cap));
    return n;
}

static uint32_t count_type(const mc_contact_event* ev, uint32_t n, mc_contact_event_type t)
{
    uint32_t c = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        c += ev[k].type == t;
    }
    return c;
}

// A pair with an analytic body has no triangle pairs: its patch is the centroid with the region's depth.
Test(world_host, analytic_pairs_give_the_centroid)
{
    mc_mesh* box = wscene_box(mc_v3(-0.5, -0.5, -0.5), mc_v3(0.5, 0.5, 0.5));
    mc_world_def wd = mc_default_world_def();
    mc_world* w = NULL;
    cr_assert(eq(int, mc_world_create(&wd, &w), MC_OK));
    cr_assert(eq(int, mc_world_set_patches(w, 4), MC_OK));
    mc_body_def bd = mc_default_body_def();
    bd.shape = mc_shape_plane();
    mc_body_id ids[2];
    ids[0] = mc_world_create_body(w, &bd);
    bd = mc_default_body_def();
    bd.mesh = box;
    bd.pose.p = mc_v3(0.0, 0.0, 0.5 - 0.0625);
    ids[1] = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &ids[0];
    cd.i_count = 1;
    cd.j_bodies = &ids[1];
    cd.j_count = 1;
    mc_contact_id cid;
    cr_assert(eq(int, mc_world_create_contact(w, &cd, &cid, NULL), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(w), MC_OK));
    mc_contact_region rec[4];
    mc_patch pat[4];
    cr_assert(eq(u32, mc_world_get_regions(w, rec, 4), 1));
    cr_assert(eq(u32, mc_world_get_patches(w, pat, 4), 1));
    cr_assert(eq(u32, pat[0].point_count, 0));
    cr_assert(eq(u32, pat[0].manifold_count, 1));
    cr_assert(eq(int, memcmp(&pat[0].manifold[0].point, &rec[0].region.centroid, sizeof(mc_vec3)), 0));
    cr_assert(eq(dbl, pat[0].manifold[0].depth, rec[0].region.depth));
    mc_world_destroy(w);
    mc_mesh_destroy(box);
}

// Begin, persist, end against the records, in pair order; a destroyed body ends its pairs.
Test(world_host, events_follow_the_touching_pairs)
{
    pile s;
    pile_make(&s, 2, true);
    mc_contact_event ev[16];
    mc_contact_region rec[16];
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    uint32_t n = events(s.w, ev, 16);
    uint32_t nr = mc_world_get_regions(s.w, rec, 16);
    cr_assert(eq(u32, n, 5));
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_BEGIN), 5));
    for (uint32_t k = 0; k < n; ++k)
    {
        // each event names the pair of its records, and the events come in the records' order
        cr_assert(lt(u32, ev[k].first_region, nr));
        cr_assert(eq(u32, ev[k].regions, 1));
        const mc_contact_region* r = &rec[ev[k].first_region];
        cr_assert(eq(int, memcmp(&r->body_i, &ev[k].body_i, sizeof r->body_i), 0));
        cr_assert(eq(int, memcmp(&r->body_j, &ev[k].body_j, sizeof r->body_j), 0));
        cr_assert(eq(int, memcmp(&r->contact, &ev[k].contact, sizeof r->contact), 0));
        cr_assert(k == 0 || ev[k].first_region > ev[k - 1].first_region);
    }
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    n = events(s.w, ev, 16);
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_PERSIST), 5));
    // Lift box 3 off the plate: its pair ends; put it back: it begins again.
    mc_pose up = box_pose(2);
    up.p.z += 0.125;
    cr_assert(eq(int, mc_body_set_pose(s.w, s.ids[3], &up), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    n = events(s.w, ev, 16);
    cr_assert(eq(u32, n, 5));
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_END), 1));
    for (uint32_t k = 0; k < n; ++k)
    {
        if (ev[k].type == MC_CONTACT_END)
        {
            cr_assert(eq(i32, ev[k].body_j.index1, s.ids[3].index1));
            cr_assert(eq(u32, ev[k].first_region, UINT32_MAX));
            cr_assert(eq(u32, ev[k].regions, 0));
        }
    }
    mc_pose back = box_pose(2);
    cr_assert(eq(int, mc_body_set_pose(s.w, s.ids[3], &back), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    n = events(s.w, ev, 16);
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_BEGIN), 1));
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_PERSIST), 4));
    // Destroy box 1: its two pairs (plate and box 2) end.
    mc_world_destroy_body(s.w, s.ids[1]);
    cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
    n = events(s.w, ev, 16);
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_END), 2));
    cr_assert(eq(u32, count_type(ev, n, MC_CONTACT_PERSIST), 3));
    cr_assert(eq(u32, mc_world_get_events(s.w, NULL, 0), n), "size query");
    pile_free(&s);
}

// The same events, bit for bit, with one worker and two, with and without coherence.
Test(world_host, events_do_not_depend_on_threads)
{
    mc_contact_event ref[3][16];
    uint32_t nref[3] = {0, 0, 0};
    for (int run = 0; run < 4; ++run)
    {
        pile s;
        pile_make(&s, run % 2 == 0 ? 1 : 2, run < 2);
        mc_contact_event ev[3][16];
        uint32_t n[3];
        for (int step = 0; step < 3; ++step)
        {
            mc_pose p = box_pose(step);
            p.p.z += step == 1 ? 0.25 : 0.0; // step 1 lifts box 2: its pairs end
            mc_body_set_pose(s.w, s.ids[step + 1], &p);
            cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
            n[step] = events(s.w, ev[step], 16);
            if (run == 0)
            {
                nref[step] = n[step];
                memcpy(ref[step], ev[step], sizeof ev[step]);
            }
            cr_assert(eq(u32, n[step], nref[step]));
            cr_assert(eq(int, memcmp(ev[step], ref[step], n[step] * sizeof(mc_contact_event)), 0));
        }
        pile_free(&s);
    }
    cr_assert(gt(u32, nref[1], 0));
}

static void wrenches(mc_world* w, const mc_body_id* ids, mc_wrench* out)
{
    mc_world_get_wrenches(w, ids, out, NB);
}

// Bodies at rest: asleep, their pairs reuse the regions (no query), the wrenches and records are bitwise those of
// an awake cold world at the same state; setting the same pose keeps a body asleep, another pose wakes it.
Test(world_host, sleeping_bodies_cost_no_query_and_change_nothing)
{
    pile awake, sleepy;
    pile_make(&awake, 2, false);
    pile_make(&sleepy, 2, true);
    cr_assert(eq(int, mc_world_evaluate(sleepy.w), MC_OK));
    for (int k = 0; k < NB; ++k)
    {
        cr_assert(eq(int, mc_body_set_awake(sleepy.w, sleepy.ids[k], false), MC_OK));
        cr_assert(eq(int, mc_body_is_awake(sleepy.w, sleepy.ids[k]), 0));
    }
    cr_assert(eq(int, mc_body_set_awake(sleepy.w, mc_null_body_id, false), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_body_is_awake(sleepy.w, mc_null_body_id), 1));
    mc_pose poses[NB];
    for (int k = 0; k < NB; ++k)
    {
        poses[k] = mc_body_get_pose(sleepy.w, sleepy.ids[k]);
    }
    for (int step = 0; step < 3; ++step)
    {
        // the host's loop sets every pose, unchanged for the sleeping bodies
        cr_assert(eq(int, mc_world_set_poses(sleepy.w, sleepy.ids, poses, NB), MC_OK));
        cr_assert(eq(int, mc_world_evaluate(sleepy.w), MC_OK));
        mc_step_info si = mc_world_get_step_info(sleepy.w);
        cr_assert(eq(u32, si.sleeping_bodies, NB));
        cr_assert(eq(u32, si.woken_bodies, 0));
        cr_assert(eq(u32, si.sleeping_pairs, si.candidate_pairs));
        cr_assert(eq(u32, si.reused_pairs, si.candidate_pairs), "no query");
        cr_assert(eq(u64, si.triangle_tests, 0));
    }
    cr_assert(eq(int, mc_world_evaluate(awake.w), MC_OK));
    mc_wrench wa[NB], ws[NB];
    wrenches(awake.w, awake.ids, wa);
    wrenches(sleepy.w, sleepy.ids, ws);
    cr_assert(eq(int, memcmp(wa, ws, sizeof wa), 0), "bitwise the awake cold world's wrenches");
    mc_contact_region ra[16], rs[16];
    uint32_t na = mc_world_get_regions(awake.w, ra, 16);
    cr_assert(eq(u32, mc_world_get_regions(sleepy.w, rs, 16), na));
    cr_assert(eq(int, memcmp(ra, rs, na * sizeof ra[0]), 0));
    // Box 2 moved by the host: it wakes, the others sleep on; its pairs are queried.
    mc_pose moved = poses[2];
    moved.p.x += 1e-9;
    cr_assert(eq(int, mc_body_set_pose(sleepy.w, sleepy.ids[2], &moved), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(sleepy.w), MC_OK));
    mc_step_info si = mc_world_get_step_info(sleepy.w);
    cr_assert(eq(u32, si.woken_bodies, 1));
    cr_assert(eq(u32, si.sleeping_bodies, NB - 1));
    cr_assert(eq(int, mc_body_is_awake(sleepy.w, sleepy.ids[2]), 1));
    cr_assert(lt(u32, si.reused_pairs, si.candidate_pairs));
    // A velocity set to another value wakes too; the same value does not.
    mc_twist v = mc_body_get_velocity(sleepy.w, sleepy.ids[3]);
    cr_assert(eq(int, mc_body_set_velocity(sleepy.w, sleepy.ids[3], &v), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(sleepy.w), MC_OK));
    cr_assert(eq(int, mc_body_is_awake(sleepy.w, sleepy.ids[3]), 0));
    v.v.x += 1.0;
    cr_assert(eq(int, mc_body_set_velocity(sleepy.w, sleepy.ids[3], &v), MC_OK));
    cr_assert(eq(int, mc_world_evaluate(sleepy.w), MC_OK));
    cr_assert(eq(int, mc_body_is_awake(sleepy.w, sleepy.ids[3]), 1));
    pile_free(&awake);
    pile_free(&sleepy);
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

// Patches and events on: once warm, evaluations at new poses allocate nothing.
Test(world_host, warm_evaluations_with_patches_and_events_allocate_nothing)
{
    mc_set_allocator(counting_alloc, counting_free);
    pile s;
    pile_make(&s, 2, true);
    cr_assert(eq(int, mc_world_set_patches(s.w, 8), MC_OK));
    for (int step = 0; step < 6; ++step)
    {
        if (step == 3)
        {
            atomic_store(&s_alloc_calls, 0);
        }
        for (int k = 0; k < 4; ++k)
        {
            mc_pose p = box_pose(k);
            p.p.x += 1e-6 * (double)(step % 3);
            mc_body_set_pose(s.w, s.ids[k + 1], &p);
        }
        cr_assert(eq(int, mc_world_evaluate(s.w), MC_OK));
        mc_patch pat[8];
        mc_contact_event ev[8];
        cr_assert(eq(u32, mc_world_get_patches(s.w, pat, 8), 5));
        cr_assert(eq(u32, mc_world_get_events(s.w, ev, 8), 5));
    }
    cr_assert(eq(long, atomic_load(&s_alloc_calls), 0));
    pile_free(&s);
    mc_set_allocator(NULL, NULL);
}
