// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Stiction state of a world: anchors matched to regions at each evaluation, committed by the host once per accepted
// step, saved to and restored from a caller buffer that names its world.
// Based on: the elasto-plastic "bristle" idea of Dahl (1968) and Dupont et al. (2002), with MSC Adams' parameter
// names (STICTION, MAX_STICTION_DEFORMATION); the equations are meshcontact's (world.h, mc_stiction_force).
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/world/contact_force.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define STATE_MAGIC 0x5453434du // "MCST" read as little-endian bytes
#define STATE_VERSION 1u

/// Layout of a saved state: this header, then `count` mc_stick entries.
typedef struct state_header
{
    uint32_t magic;      ///< STATE_MAGIC
    uint32_t version;    ///< STATE_VERSION
    uint64_t world_uid;  ///< the world that saved it
    uint32_t count;      ///< entries that follow
    uint32_t entry_size; ///< sizeof(mc_stick)
    uint64_t checksum;   ///< FNV-1a over the header (this field zero) and the entries
} state_header;

static atomic_uint_fast64_t next_world_uid = 1;

uint64_t mc_stiction_new_world_uid(void)
{
    return (uint64_t)atomic_fetch_add(&next_world_uid, 1);
}

void mc_stiction_free(mc_stiction* st)
{
    mc_free(st->stick);
    mc_free(st->next);
    mc_free(st->used);
}

mc_status mc_stiction_reserve(mc_world* w, uint32_t regions)
{
    mc_stiction* st = &w->stiction;
    st->next_count = 0;
    st->ready = false;
    return mc_array_reserve((void**)&st->next, &st->next_capacity, regions, sizeof *st->next, 4) ? MC_OK
                                                                                                 : MC_ERR_OUT_OF_MEMORY;
}

static int key_cmp(const mc_stick* s, uint32_t contact, uint32_t body_i, uint32_t body_j)
{
    if (s->contact != contact)
    {
        return s->contact < contact ? -1 : 1;
    }
    if (s->body_i != body_i)
    {
        return s->body_i < body_i ? -1 : 1;
    }
    return (s->body_j > body_j) - (s->body_j < body_j);
}

mc_stick_range mc_stiction_find(mc_world* w, const mc_pair* p)
{
    mc_stiction* st = &w->stiction;
    mc_stick_range r = {0, 0};
    if (!w->contacts[p->contact].model.stiction)
    {
        return r;
    }
    uint32_t lo = 0, hi = st->count;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&st->stick[mid], p->contact, p->body_i, p->body_j) < 0)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    r.lo = r.hi = lo;
    while (r.hi < st->count && key_cmp(&st->stick[r.hi], p->contact, p->body_i, p->body_j) == 0)
    {
        const mc_stick* s = &st->stick[r.hi];
        // Entries of a body or contact slot reused since the commit are marked taken: they never match.
        st->used[r.hi] = s->gen_c != w->contacts[p->contact].generation ||
                         s->gen_i != w->bodies[p->body_i].generation || s->gen_j != w->bodies[p->body_j].generation;
        ++r.hi;
    }
    return r;
}

static bool vec_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

mc_status mc_stiction_region(mc_world* w, const mc_pair* p, mc_stick_range range, const mc_region* reg,
                             const mc_contact_kinematics* kin, mc_contact_force* f, mc_vec3* creep, bool* sticking)
{
    const mc_force_model* m = &w->contacts[p->contact].model;
    *creep = mc_v3(0.0, 0.0, 0.0);
    *sticking = false;
    if (!m->stiction || !mc_friction_active(m, w->analysis) || f->rejected || !(f->normal_force > 0.0))
    {
        return MC_OK;
    }
    mc_stiction* st = &w->stiction;
    const mc_pose* pi = &w->bodies[p->body_i].pose;
    const mc_pose* pj = &w->bodies[p->body_j].pose;
    mc_vec3 c = reg->centroid;
    mc_vec3 n = reg->normal;
    // The nearest unused anchor of the pair within reach of this region's contact point.
    double reach = reg->radius + m->max_stiction_deformation;
    uint32_t best = UINT32_MAX;
    double best_d = 0.0;
    mc_vec3 d = mc_v3(0.0, 0.0, 0.0);
    for (uint32_t k = range.lo; k < range.hi; ++k)
    {
        if (st->used[k])
        {
            continue;
        }
        mc_vec3 ai = mc_pose_transform(pi, st->stick[k].anchor_i);
        mc_vec3 aj = mc_pose_transform(pj, st->stick[k].anchor_j);
        double dist = mc_length(mc_sub(mc_scale(mc_add(ai, aj), 0.5), c));
        if (dist <= reach && (best == UINT32_MAX || dist < best_d))
        {
            best = k;
            best_d = dist;
            d = mc_sub(aj, ai);
        }
    }
    if (best != UINT32_MAX)
    {
        st->used[best] = 1;
        d = mc_mul_add(d, -mc_dot(d, n), n);
    }
    mc_vec3 kept;
    double mu = mc_stiction_force(m, f->normal_force, d, kin->slip_velocity, &f->friction_force, &kept);
    if (!isfinite(mu) || !vec_finite(f->friction_force) || !vec_finite(kept))
    {
        memset(f, 0, sizeof *f);
        f->rejected = true;
        return MC_ERR_OUT_OF_RANGE;
    }
    f->friction_coefficient = mu;
    *creep = kept;
    *sticking = true;
    // What a commit keeps: the anchors re-centred on the contact point, the kept creep between them.
    mc_stick* s = &st->next[st->next_count++];
    s->contact = p->contact;
    s->body_i = p->body_i;
    s->body_j = p->body_j;
    s->gen_c = w->contacts[p->contact].generation;
    s->gen_i = w->bodies[p->body_i].generation;
    s->gen_j = w->bodies[p->body_j].generation;
    s->anchor_i = mc_pose_inv_transform(pi, mc_mul_add(c, -0.5, kept));
    s->anchor_j = mc_pose_inv_transform(pj, mc_mul_add(c, 0.5, kept));
    return MC_OK;
}

// Room for `count` committed entries and their marks (reserved here, so that evaluations never allocate).
static bool reserve_committed(mc_stiction* st, uint32_t count)
{
    return mc_array_reserve((void**)&st->stick, &st->capacity, count, sizeof *st->stick, 4) &&
           mc_array_reserve((void**)&st->used, &st->used_capacity, count, sizeof *st->used, 4);
}

mc_status mc_world_commit(mc_world* w)
{
    MC_ASSERT(w != NULL && !w->evaluating);
    if (w == NULL || !w->stiction.ready)
    {
        mc_log("mc_world_commit: nothing to commit: evaluate the accepted state first (a pose, velocity, body, "
               "contact, model, analysis or restored state changed since the last successful evaluation)");
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_stiction* st = &w->stiction;
    if (!reserve_committed(st, st->next_count))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    if (st->next_count > 0)
    {
        memcpy(st->stick, st->next, (size_t)st->next_count * sizeof *st->stick);
    }
    st->count = st->next_count;
    return MC_OK;
}

static uint64_t fnv1a(uint64_t h, const void* data, size_t n)
{
    const unsigned char* b = data;
    for (size_t i = 0; i < n; ++i)
    {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

static uint64_t state_checksum(const state_header* h, const void* entries, size_t bytes)
{
    state_header copy = *h;
    copy.checksum = 0;
    uint64_t x = fnv1a(14695981039346656037ull, &copy, sizeof copy);
    return fnv1a(x, entries, bytes);
}

size_t mc_world_get_state(const mc_world* w, void* buffer, size_t capacity)
{
    if (w == NULL)
    {
        return 0;
    }
    const mc_stiction* st = &w->stiction;
    size_t bytes = (size_t)st->count * sizeof(mc_stick);
    size_t need = sizeof(state_header) + bytes;
    if (buffer == NULL || capacity < need)
    {
        return need;
    }
    state_header h;
    memset(&h, 0, sizeof h);
    h.magic = STATE_MAGIC;
    h.version = STATE_VERSION;
    h.world_uid = st->world_uid;
    h.count = st->count;
    h.entry_size = (uint32_t)sizeof(mc_stick);
    h.checksum = state_checksum(&h, st->stick, bytes);
    memcpy(buffer, &h, sizeof h);
    if (bytes > 0)
    {
        memcpy((unsigned char*)buffer + sizeof h, st->stick, bytes);
    }
    return need;
}

static bool entry_ok(const mc_stick* s, const mc_stick* prev)
{
    if (!vec_finite(s->anchor_i) || !vec_finite(s->anchor_j))
    {
        return false;
    }
    return prev == NULL || key_cmp(prev, s->contact, s->body_i, s->body_j) <= 0;
}

mc_status mc_world_set_state(mc_world* w, const void* buffer, size_t size, mc_error* err)
{
    if (w == NULL || buffer == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_world_set_state: NULL world or buffer");
    }
    state_header h;
    if (size < sizeof h)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_world_set_state: %zu bytes is too short for a state (at least %zu)", size, sizeof h);
    }
    memcpy(&h, buffer, sizeof h);
    if (h.magic != STATE_MAGIC || h.version != STATE_VERSION || h.entry_size != sizeof(mc_stick))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_world_set_state: not a state saved by mc_world_get_state (format tag, version or "
                            "entry size differ)");
    }
    if (h.world_uid != w->stiction.world_uid)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_world_set_state: the state was saved by another world (world %llu, this is %llu)",
                            (unsigned long long)h.world_uid, (unsigned long long)w->stiction.world_uid);
    }
    size_t bytes = (size_t)h.count * sizeof(mc_stick);
    if (size != sizeof h + bytes)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_world_set_state: the buffer has %zu bytes, its header says %zu", size,
                            sizeof h + bytes);
    }
    const unsigned char* payload = (const unsigned char*)buffer + sizeof h;
    if (state_checksum(&h, payload, bytes) != h.checksum)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_world_set_state: the state is damaged (checksum mismatch)");
    }
    mc_stiction* st = &w->stiction;
    // Check every entry before anything changes (the payload may be unaligned: copy each one out).
    for (uint32_t k = 0; k < h.count; ++k)
    {
        mc_stick s, prev;
        memcpy(&s, payload + (size_t)k * sizeof s, sizeof s);
        if (k > 0)
        {
            memcpy(&prev, payload + (size_t)(k - 1) * sizeof s, sizeof s);
        }
        if (!entry_ok(&s, k > 0 ? &prev : NULL))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "mc_world_set_state: entry %u is damaged (unsorted or non-finite)", k);
        }
    }
    if (!reserve_committed(st, h.count))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "mc_world_set_state: out of memory");
    }
    if (bytes > 0)
    {
        memcpy(st->stick, payload, bytes);
    }
    st->count = h.count;
    st->ready = false;
    return MC_OK;
}
