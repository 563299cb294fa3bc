// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Evaluation of a world at its current state: broad phase (broadphase.c), candidate pairs matched to pooled pair
// records, region queries in parallel over pairs (one workspace per worker) or inside one pair, force laws and a
// serial reduction into per-body wrenches in the sorted pair order (the same bits for any worker count).
#include "bvh/bvh.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/contact/regions.h"
#include "src/contact/workspace.h"
#include "src/world/contact_force.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <string.h>

static mc_pair* active_pair(const mc_world* w, uint32_t k)
{
    return &w->pairs[w->active[k].pair];
}

typedef struct query_ctx
{
    mc_world* w;
    int inner_workers;
} query_ctx;

// Temporal coherence, exact by construction: a query is a pure function of the two meshes, the two poses and the
// depth method (bitwise, whatever the workspace or thread count), so a pair whose bodies (same generations, hence the
// same meshes) are at bitwise the poses of its last successful query keeps that query's regions.
static bool can_reuse(const mc_pair* p, const mc_body* bi, const mc_body* bj)
{
    return p->reusable && p->gen_i == bi->generation && p->gen_j == bj->generation && p->ver_i == bi->mesh_version &&
           p->ver_j == bj->mesh_version && memcmp(&p->pose_i, &bi->pose, sizeof bi->pose) == 0 &&
           memcmp(&p->pose_j, &bj->pose, sizeof bj->pose) == 0;
}

/// Motion past which a pair is queried without its front and plan: J's recent motion per query in I's frame
/// (mc_pair.motion: the largest of the last motions, each counted at most twice this limit and scaled by 0.8 at every
/// query since), as a fraction of J's reach (the largest distance of its vertices from its origin, bounded by
/// |obb_center| + radius). The front records itself with a margin of its recent steps and runs the plain traversal
/// alone when four steps exceed a tenth of a leaf (bvh_collide.c, FRONT_MARGIN_STEPS); this cheaper test spares the
/// pair's front and plan bookkeeping when the steps are far past that. 1000 unit spheres random-walking 1e-3 a step
/// (about 1.6e-3 of reach between two bodies) are served by their fronts (`bench_many --drift 1e-3`, many_moving.md);
/// at 1e-2 a step the fronts cost more than the plain traversal. Results are bitwise the same either way: a front or
/// plan only replays what a query from the roots computes.
#define WORLD_FRONT_MOTION 8.66e-3

/// |a - b| for quaternions a, b, or |a + b| when that is smaller (the same rotation).
static double quat_distance(mc_quat a, mc_quat b)
{
    double m =
        (a.w - b.w) * (a.w - b.w) + (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z);
    double p =
        (a.w + b.w) * (a.w + b.w) + (a.x + b.x) * (a.x + b.x) + (a.y + b.y) * (a.y + b.y) + (a.z + b.z) * (a.z + b.z);
    return sqrt(fmin(m, p));
}

/// Whether the pair's front and plan are worth passing to this query: updates the decaying peak of J's motion in I's
/// frame per query (the bound of bvh's front_motion, ||R1 - R0||_F reach + |t1 - t0|, over J's reach, with R, t the
/// pose of J in I at the last query and now) and compares it with WORLD_FRONT_MOTION. For unit quaternions q0, q1 of
/// R0, R1, ||R1 - R0||_F^2 = 8 (1 - (q0 . q1)^2). True for a pair without a last query of these bodies, and for
/// analytic or unbounded bodies (the front decides alone). A heuristic: it only chooses between two ways to the same
/// bits.
static bool coherence_pays(mc_pair* p, const mc_body* bi, const mc_body* bj)
{
    if (bj->mesh == NULL || bi->unbounded || bj->unbounded || p->gen_i != bi->generation || p->gen_j != bj->generation)
    {
        p->motion = 0.0;
        return true;
    }
    // First a cheap upper bound (enough for a pair that barely moved): with d = p_j - p_i, t = R_i^T d, so |t1 - t0| <=
    // |d1 - d0| + ||R_i1 - R_i0|| |d0|, and ||R(a) - R(b)||_F <= 2 sqrt(2) |a - b| for unit quaternions (the world
    // keeps its poses' quaternions normalised: world.c, pose_normalized), ||R1 - R0||_F <= that of R_i plus that of
    // R_j.
    const double k = 2.8284271247461903;
    double reach = mc_length(bj->obb_center) + bj->radius;
    if (!(reach > 0.0))
    {
        return true;
    }
    mc_vec3 d0 = mc_sub(p->pose_j.p, p->pose_i.p), d1 = mc_sub(bj->pose.p, bi->pose.p);
    double dqi = quat_distance(p->pose_i.q, bi->pose.q), dqj = quat_distance(p->pose_j.q, bj->pose.q);
    double motion = k * (dqi + dqj) + (mc_length(mc_sub(d1, d0)) + k * dqi * mc_length(d0)) / reach;
    if (motion > WORLD_FRONT_MOTION)
    {
        // The bound itself: ||R1 - R0||_F^2 = 8 (1 - (q0 . q1)^2) for the unit quaternions of R0, R1.
        mc_quat c0 = mc_quat_conj(p->pose_i.q), c1 = mc_quat_conj(bi->pose.q);
        mc_quat q0 = mc_quat_mul(c0, p->pose_j.q), q1 = mc_quat_mul(c1, bj->pose.q);
        double dot = q0.w * q1.w + q0.x * q1.x + q0.y * q1.y + q0.z * q1.z;
        double turn = k * sqrt(fmax(0.0, 1.0 - dot * dot));
        motion = turn + mc_length(mc_sub(mc_quat_rotate(c1, d1), mc_quat_rotate(c0, d0))) / reach;
    }
    p->motion = fmax(fmin(motion, 2.0 * WORLD_FRONT_MOTION), 0.8 * p->motion);
    return !(p->motion > WORLD_FRONT_MOTION);
}

/// Regions a pair's first query can keep without querying again (query_pair).
#define FIRST_REGIONS 8u

static void query_pair(mc_world* w, mc_pair* p, mc_workspace* ws, int workers)
{
    const mc_body* bi = &w->bodies[p->body_i];
    const mc_body* bj = &w->bodies[p->body_j];
    memset(&p->stats, 0, sizeof p->stats);
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    opt.depth_method = w->contacts[p->contact].depth;
    uint32_t count = 0;
    // Temporal coherence through the pair's front (bitwise the same results); a body slot reused since the front was
    // recorded may hold another mesh, so a new generation starts the front again.
    if (p->gen_i != bi->generation || p->gen_j != bj->generation)
    {
        mc_pair_front_reset(p->front);
        mc_region_plan_reset(p->plan);
    }
    bool coherent = w->coherence && coherence_pays(p, bi, bj);
    ws->front = coherent ? &p->front : NULL;
    ws->plan = coherent ? &p->plan : NULL;
    mc_host_patches_ask(w, p, ws);
    // A pair without a region buffer (its first query, or none found since) queries into a buffer here and keeps
    // what it found: the buffer is sized from the count, not by a second query at the same pose (which cost the
    // first evaluation twice its pairs, and recorded a coherent pair's front at rest, recorded again a step later).
    mc_region first[FIRST_REGIONS];
    bool fresh = p->region_capacity == 0;
    mc_region* out = fresh ? first : p->regions;
    p->status = mc_pair_query_regions(w, p, &bi->pose, &bj->pose, &opt, ws, out,
                                      fresh ? FIRST_REGIONS : p->region_capacity, &count, &p->stats);
    if (fresh && p->status == MC_OK && count > 0)
    {
        // Sized to the count (rounded up to a power of two), not to 4 regions: most pairs keep one region, and a
        // region is 184 bytes (a pile of 8000 spheres held 16 MB of buffers for 4 MB of regions). A pair whose
        // regions outgrow it queries again (MC_ERR_CAPACITY below) into a buffer of at least 4, doubled as needed.
        if (mc_array_reserve((void**)&p->regions, &p->region_capacity, count, sizeof *p->regions, 1))
        {
            memcpy(p->regions, first, (size_t)count * sizeof *first);
        }
        else
        {
            p->status = MC_ERR_OUT_OF_MEMORY;
        }
    }
    mc_host_patches_keep(w, p, ws);
    ws->front = NULL;
    ws->plan = NULL;
    if (p->status != MC_OK && p->status != MC_ERR_CAPACITY)
    {
        mc_pair_front_reset(p->front);
        mc_region_plan_reset(p->plan);
    }
    p->region_count = (p->status == MC_OK || p->status == MC_ERR_CAPACITY) ? count : 0;
    p->reusable = p->status == MC_OK;
    p->pose_i = bi->pose;
    p->pose_j = bj->pose;
    p->gen_i = bi->generation;
    p->gen_j = bj->generation;
    p->ver_i = bi->mesh_version;
    p->ver_j = bj->mesh_version;
}

static void query_task(uint32_t begin, uint32_t end, int worker, void* vctx)
{
    query_ctx* ctx = vctx;
    mc_world* w = ctx->w;
    for (uint32_t k = begin; k < end; ++k)
    {
        // Hints only: with thousands of pairs a step, each pair's state was last touched a step ago and is no longer
        // in the caches. The record three pairs ahead, the front's and plan's records two ahead (their pointers from
        // the record prefetched an iteration before), and the bodies of the next one and the arrays its quiet query
        // will read (certified pairs, plan data), start loading while this query runs.
        if (k + 3 < end)
        {
            mc_prefetch_bytes(active_pair(w, w->todo[k + 3]), sizeof(mc_pair), (sizeof(mc_pair) + 63u) / 64u);
        }
        if (k + 2 < end && w->coherence)
        {
            const mc_pair* q = active_pair(w, w->todo[k + 2]);
            mc_pair_front_prefetch_record(q->front);
            mc_region_plan_prefetch_record(q->plan);
        }
        if (k + 1 < end)
        {
            const mc_pair* q = active_pair(w, w->todo[k + 1]);
            __builtin_prefetch(&w->bodies[q->body_i].pose);
            __builtin_prefetch(&w->bodies[q->body_j].pose);
            __builtin_prefetch(&w->bodies[q->body_i].generation);
            __builtin_prefetch(&w->bodies[q->body_j].generation);
            if (w->coherence)
            {
                mc_pair_front_prefetch(q->front);
                mc_region_plan_prefetch(q->plan);
            }
        }
        query_pair(w, active_pair(w, w->todo[k]), w->workspaces[worker], ctx->inner_workers);
    }
}

static void clear_results(mc_world* w)
{
    for (uint32_t i = 0; i < w->body_slots; ++i)
    {
        memset(&w->bodies[i].wrench, 0, sizeof w->bodies[i].wrench);
    }
    w->record_count = 0;
    w->stiction.ready = false;
}

static bool wrenches_finite(const mc_world* w)
{
    for (uint32_t i = 0; i < w->body_slots; ++i)
    {
        const mc_wrench* x = &w->bodies[i].wrench;
        if (!isfinite(x->force.x) || !isfinite(x->force.y) || !isfinite(x->force.z) || !isfinite(x->torque.x) ||
            !isfinite(x->torque.y) || !isfinite(x->torque.z))
        {
            return false;
        }
    }
    return true;
}

// Give every candidate in w->found a pair record: the record of the same (contact, I, J) in the last evaluation's
// sorted list when there is one (its warm region buffer), else one from the pool. Records of pairs that are no longer
// candidates return to the pool. Both lists are sorted by key, so this is one merge. @return MC_ERR_OUT_OF_MEMORY
// (nothing changed) when the pool cannot grow.
static mc_status match_pairs(mc_world* w)
{
    uint32_t fresh = 0, i = 0, j = 0;
    while (i < w->found_count)
    {
        int c = j < w->active_count ? mc_pair_key_cmp(&w->found[i], &w->active[j]) : -1;
        fresh += c < 0;
        i += c <= 0;
        j += c >= 0;
    }
    uint64_t need = (uint64_t)w->pair_slots + (fresh > w->pair_free_count ? fresh - w->pair_free_count : 0);
    if (!mc_array_reserve((void**)&w->pairs, &w->pair_capacity, need, sizeof *w->pairs, 16) ||
        !mc_array_reserve((void**)&w->pair_free, &w->pair_free_capacity, need, sizeof *w->pair_free, 16) ||
        !mc_array_reserve((void**)&w->active, &w->active_capacity, w->found_count, sizeof *w->active, 64) ||
        !mc_array_reserve((void**)&w->todo, &w->todo_capacity, w->found_count, sizeof *w->todo, 64))
    {
        return MC_ERR_OUT_OF_MEMORY; // found is copied into active at the end (not swapped: both stay warm)
    }
    i = 0, j = 0;
    while (i < w->found_count || j < w->active_count)
    {
        int c = i >= w->found_count ? 1 : (j >= w->active_count ? -1 : mc_pair_key_cmp(&w->found[i], &w->active[j]));
        if (c == 0)
        {
            w->found[i++].pair = w->active[j++].pair;
            continue;
        }
        if (c > 0)
        {
            w->pair_free[w->pair_free_count++] = w->active[j++].pair;
            continue;
        }
        bool reused = w->pair_free_count > 0;
        uint32_t r = reused ? w->pair_free[--w->pair_free_count] : w->pair_slots++;
        mc_pair* p = &w->pairs[r];
        mc_region* keep = reused ? p->regions : NULL; // a pooled record keeps its buffers; a new one has none
        uint32_t keep_cap = reused ? p->region_capacity : 0;
        struct mc_pair_front* front = reused ? p->front : NULL;
        struct mc_region_plan* plan = reused ? p->plan : NULL;
        struct mc_pair_patches* patches = reused ? p->patches : NULL;
        mc_pair_front_reset(front); // another pair's front: the next query descends from the roots
        mc_region_plan_reset(plan);
        memset(p, 0, sizeof *p);
        p->patches = patches; // invalid until its first query (mc_host_patches_ask)
        p->regions = keep;
        p->region_capacity = keep_cap;
        p->front = front;
        p->plan = plan;
        p->contact = w->found[i].contact;
        p->body_i = w->found[i].body_i;
        p->body_j = w->found[i].body_j;
        w->found[i++].pair = r;
    }
    if (w->found_count > 0)
    {
        memcpy(w->active, w->found, (size_t)w->found_count * sizeof *w->active);
    }
    w->active_count = w->found_count;
    return MC_OK;
}

// Stage 1, broad phase: candidate pairs from the tree, matched to their pair records.
static mc_status collect_active_pairs(mc_world* w)
{
    for (uint32_t c = 0; c < w->contact_slots; ++c)
    {
        if (w->contacts[c].alive)
        {
            uint64_t n = (uint64_t)w->info.defined_pairs + mc_contact_defined_pairs(w, &w->contacts[c]);
            w->info.defined_pairs = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        }
    }
    // Nothing that decides the candidates changed since the last broad phase (no pose bitwise different, no body or
    // contact created or destroyed): the sorted list is still exact.
    if (!w->candidates_valid)
    {
        mc_status s = mc_broadphase_collect(w);
        s = s == MC_OK ? match_pairs(w) : s;
        if (s != MC_OK)
        {
            return s; // the last evaluation's sorted list and the pool are unchanged
        }
        w->bp_flags = w->info.flags & MC_STEP_UNBOUNDED_PAIR;
        w->candidates_valid = true;
    }
    w->info.flags |= w->bp_flags;
    w->info.candidate_pairs = w->active_count;
    if (w->active_count > w->high_water.pair_count)
    {
        w->high_water.pair_count = w->active_count;
    }
    return MC_OK;
}

// Stage 2, queries: parallel over the active pairs (one workspace per worker, serial queries), or, with fewer pairs
// than workers, one pair after the other with the parallelism inside. Pairs whose region buffer was too small grow it
// here (serially) and are queried again; failed pairs are flagged and contribute nothing. @return MC_ERR_OUT_OF_MEMORY
// when a pair ran out of memory (then no pair keeps regions), else MC_OK.
static mc_status query_active_pairs(mc_world* w)
{
    query_ctx ctx = {w, 1};
    w->todo_count = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        mc_pair* p = active_pair(w, k);
        p->reused = can_reuse(p, &w->bodies[p->body_i], &w->bodies[p->body_j]);
        if (p->reused)
        {
            memset(&p->stats, 0, sizeof p->stats);
            p->stats.threads = 1;
        }
        else
        {
            w->todo[w->todo_count++] = k;
        }
    }
    if (w->todo_count < (uint32_t)w->worker_count)
    {
        // Fewer pairs than workers (typically one big pair): one pair after the other, each query parallel inside.
        w->info.threads = 1;
        for (uint32_t k = 0; k < w->todo_count; ++k)
        {
            mc_pair* p = active_pair(w, w->todo[k]);
            query_pair(w, p, w->workspaces[0], w->worker_count);
            int used = p->stats.threads; // what the query ran on (a small pair stays on one thread)
            w->info.threads = used > w->info.threads ? used : w->info.threads;
        }
    }
    else
    {
        // One contiguous block of the sorted pairs per worker (mc_parallel_for): each pair writes only its own record,
        // so results do not depend on the split, and each worker meets the same pairs every evaluation, so its
        // workspace stops growing after the first one (a dynamic schedule would keep handing it new pairs).
        w->info.threads = mc_parallel_for(w->worker_count, query_task, w->todo_count, 1, &ctx);
    }
    mc_status result = MC_OK;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        mc_pair* p = active_pair(w, k);
        if (p->status == MC_ERR_CAPACITY)
        {
            if (!mc_array_reserve((void**)&p->regions, &p->region_capacity, p->region_count, sizeof *p->regions, 4))
            {
                result = MC_ERR_OUT_OF_MEMORY;
                break;
            }
            query_pair(w, p, w->workspaces[0], w->worker_count);
        }
        if (p->status == MC_ERR_OUT_OF_MEMORY)
        {
            result = MC_ERR_OUT_OF_MEMORY;
            break;
        }
        if (p->status == MC_ERR_UNBOUNDED)
        {
            w->info.flags |= MC_STEP_UNBOUNDED_PAIR;
        }
        else if (p->status != MC_OK)
        {
            w->info.flags |= MC_STEP_PAIR_FAILED;
        }
        if (p->status != MC_OK)
        {
            p->region_count = 0;
        }
    }
    if (result != MC_OK)
    {
        for (uint32_t k = 0; k < w->active_count; ++k)
        {
            active_pair(w, k)->region_count = 0;
            active_pair(w, k)->reusable = false;
        }
    }
    return result;
}

// Stage 3, bookkeeping: the pairs' counters into the step info and the high-water marks, and room for one record per
// region. @return MC_ERR_OUT_OF_MEMORY when the records do not fit.
static mc_status reserve_records(mc_world* w)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        mc_pair* p = active_pair(w, k);
        total += p->region_count;
        if (p->region_count > w->high_water.pair_region_count)
        {
            w->high_water.pair_region_count = p->region_count;
        }
        w->info.box_tests += p->stats.box_tests;
        w->info.triangle_tests += p->stats.triangle_tests;
        w->info.triangle_pairs += p->stats.triangle_pairs;
        w->info.seconds_pairs += p->stats.seconds_pairs;
        w->info.seconds_regions += p->stats.seconds_regions;
        w->info.touching_pairs += p->region_count > 0;
        w->info.reused_pairs += p->reused;
        w->info.certified_pairs += p->reused ? 0u : (p->stats.certified_reuse & 1u);
        w->info.planned_pairs += p->reused ? 0u : ((p->stats.certified_reuse >> 1) & 1u);
        w->info.restored_pairs += p->reused ? 0u : ((p->stats.certified_reuse >> 2) & 1u);
    }
    if (total > UINT32_MAX ||
        !mc_array_reserve((void**)&w->records, &w->record_capacity, (uint32_t)total, sizeof *w->records, 4))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    return mc_stiction_reserve(w, (uint32_t)total);
}

// The record of one region of pair p: ids, the region, its kinematics and forces.
static void fill_record(mc_contact_region* rec, const mc_world* w, const mc_pair* p, const mc_region* reg,
                        const mc_contact_kinematics* kin, const mc_contact_force* f)
{
    memset(rec, 0, sizeof *rec); // padding too: records can be compared bytewise
    rec->contact.index1 = (int32_t)p->contact + 1;
    rec->contact.generation = w->contacts[p->contact].generation;
    rec->body_i.index1 = (int32_t)p->body_i + 1;
    rec->body_i.generation = w->bodies[p->body_i].generation;
    rec->body_j.index1 = (int32_t)p->body_j + 1;
    rec->body_j.generation = w->bodies[p->body_j].generation;
    rec->region = *reg;
    rec->rate = kin->rate;
    rec->slip_velocity = kin->slip_velocity;
    rec->slip_speed = f->slip_speed;
    rec->spin_rate = kin->spin_rate;
    rec->normal_force = f->normal_force;
    rec->friction_force = f->friction_force;
    rec->friction_torque = f->friction_torque;
    rec->friction_coefficient = f->friction_coefficient;
    rec->rejected = f->rejected;
}

// Stage 4, forces: the force law of every region, its record, and the per-body reduction, serially in the fixed pair
// order (this order is what makes the wrenches the same for any thread count).
static mc_status apply_forces(mc_world* w)
{
    w->evaluating = true;
    mc_status status = MC_OK;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        mc_pair* p = active_pair(w, k);
        const mc_contact_slot* cs = &w->contacts[p->contact];
        mc_body* bi = &w->bodies[p->body_i];
        mc_body* bj = &w->bodies[p->body_j];
        mc_stick_range sticks = mc_stiction_find(w, p);
        for (uint32_t r = 0; r < p->region_count; ++r)
        {
            const mc_region* reg = &p->regions[r];
            mc_contact_kinematics kin =
                mc_contact_kinematics_compute(reg, &bi->pose, &bi->velocity, &bj->pose, &bj->velocity);
            mc_contact_force f;
            if (mc_contact_force_evaluate(&cs->model, &kin, w->analysis, &f) != MC_OK && status == MC_OK)
            {
                status = MC_ERR_OUT_OF_RANGE;
                mc_log("mc_world_evaluate: contact %u, bodies %u and %u: the force law gave a non-finite force "
                       "(depth %g, rate %g, area %g, slip %g): its parameters overflow at this state, or a user "
                       "callback returned NaN or infinity",
                       p->contact, p->body_i, p->body_j, kin.depth, kin.rate, kin.area, mc_length(kin.slip_velocity));
            }
            mc_vec3 creep;
            bool sticking;
            if (mc_stiction_region(w, p, sticks, reg, &kin, &f, &creep, &sticking) != MC_OK && status == MC_OK)
            {
                status = MC_ERR_OUT_OF_RANGE;
                mc_log("mc_world_evaluate: contact %u, bodies %u and %u: the stiction force is not finite", p->contact,
                       p->body_i, p->body_j);
            }
            fill_record(&w->records[n], w, p, reg, &kin, &f);
            mc_world_flag_depth(w, cs, &w->records[n]);
            w->records[n].sticking = sticking;
            w->records[n++].creep = creep;
            if (f.rejected)
            {
                w->info.rejected_regions++;
                w->info.flags |= MC_STEP_REJECTED_REGIONS;
                continue;
            }
            // Force on J at the contact point; equal and opposite on I. Torques about each body's reference point.
            mc_vec3 force = mc_add(mc_scale(reg->normal, f.normal_force), f.friction_force);
            mc_vec3 c = reg->centroid;
            bj->wrench.force = mc_add(bj->wrench.force, force);
            bj->wrench.torque =
                mc_add(bj->wrench.torque, mc_add(mc_cross(mc_sub(c, bj->pose.p), force), f.friction_torque));
            bi->wrench.force = mc_sub(bi->wrench.force, force);
            bi->wrench.torque =
                mc_sub(bi->wrench.torque, mc_add(mc_cross(mc_sub(c, bi->pose.p), force), f.friction_torque));
        }
    }
    w->evaluating = false;
    w->record_count = n;
    w->info.regions = n;
    if (n > w->high_water.region_count)
    {
        w->high_water.region_count = n;
    }
    if (status == MC_OK && !wrenches_finite(w))
    {
        status = MC_ERR_OUT_OF_RANGE;
        mc_log("mc_world_evaluate: a body's summed wrench overflowed (finite forces whose sum or moment is not)");
    }
    if (status != MC_OK)
    {
        w->info.flags |= MC_STEP_NON_FINITE;
        clear_results(w);
        w->info.regions = 0; // the records are gone: the counters say so too
        w->info.rejected_regions = 0;
        w->info.off_region_depths = 0;
    }
    w->stiction.ready = status == MC_OK;
    return status;
}

// A flipped body's copy takes the positions of its deformed source mesh (the same vertex numbering: checked at the
// body's creation). A failure fails the evaluation.
static mc_status follow_source(mc_world* w, uint32_t k, mc_body* b)
{
    uint64_t v = mc_mesh_get_deform_info(b->source_mesh).version;
    if (v == b->source_version)
    {
        return MC_OK;
    }
    if (!b->source_numbering)
    {
        return mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, k, "mc_world_evaluate",
                             "body %u (flip): its mesh was deformed, but the flipped copy numbers the vertices "
                             "otherwise, so it cannot follow (create the body again)",
                             k);
    }
    mc_error err;
    mc_status st = mc_mesh_set_positions(b->own_mesh, (const double*)mc_mesh_get_positions(b->source_mesh),
                                         mc_mesh_get_vertex_count(b->source_mesh), &err);
    if (st != MC_OK)
    {
        return mc_world_fail(w, st, k, "mc_world_evaluate",
                             "body %u (flip): its flipped copy cannot follow the "
                             "deformation of its mesh: %s",
                             k, err.message);
    }
    b->source_version = v;
    return MC_OK;
}

// Bodies whose mesh was deformed since the last evaluation (mc_mesh_set_positions): new broad-phase bounds, and the
// candidates are found again; their pairs' regions are not reused (can_reuse compares the versions). A flipped body's
// copy follows its source mesh first.
static mc_status refresh_deformed_bodies(mc_world* w)
{
    for (uint32_t k = 0; k < w->body_slots; ++k)
    {
        mc_body* b = &w->bodies[k];
        if (!b->alive || b->mesh == NULL)
        {
            continue;
        }
        if (b->own_mesh != NULL)
        {
            mc_status st = follow_source(w, k, b);
            if (st != MC_OK)
            {
                return st;
            }
        }
        uint64_t v = mc_mesh_get_deform_info(b->mesh).version;
        if (v != b->mesh_version)
        {
            b->mesh_version = v;
            if (b->asleep)
            {
                b->asleep = false; // a deformed body is not at rest (mc_host_wake_moved drops it from the sleepers)
                w->info.woken_bodies++;
            }
            if (!b->unbounded)
            {
                mc_body_init_bounds(b);
            }
            w->candidates_valid = false;
        }
    }
    return MC_OK;
}

mc_status mc_world_evaluate(mc_world* w)
{
    MC_ASSERT(w != NULL);
    if (w == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    MC_ASSERT(!w->evaluating);
    double t0 = mc_now_seconds();
    uint64_t evaluations = w->info.evaluations + 1;
    memset(&w->info, 0, sizeof w->info);
    w->info.evaluations = evaluations;
    w->evaluated = false;
    clear_results(w);
    mc_status follow = refresh_deformed_bodies(w);
    if (follow != MC_OK)
    {
        w->info.seconds_total = mc_now_seconds() - t0;
        return follow;
    }
    mc_host_wake_moved(w);

    mc_status st = collect_active_pairs(w);
    if (st != MC_OK)
    {
        w->info.seconds_total = mc_now_seconds() - t0;
        return st;
    }
    double t1 = mc_now_seconds();
    st = query_active_pairs(w);
    double t2 = mc_now_seconds();
    if (st == MC_OK)
    {
        st = reserve_records(w);
    }
    if (st != MC_OK)
    {
        w->info.seconds_total = mc_now_seconds() - t0;
        return st;
    }
    st = apply_forces(w);
    if (st == MC_OK && (st = mc_host_events_update(w)) != MC_OK)
    {
        clear_results(w); // no memory for the events: the evaluation fails as a whole
    }
    double t3 = mc_now_seconds();
    w->info.seconds_broadphase = t1 - t0;
    w->info.seconds_queries = t2 - t1;
    w->info.seconds_forces = t3 - t2;
    w->info.seconds_total = t3 - t0;
    w->evaluated = st == MC_OK;
    return st;
}
