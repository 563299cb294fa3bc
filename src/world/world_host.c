// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// What a host with its own solver needs beside the wrenches: the contact patches of the region records (kept per pair
// from the region queries), the begin / persist / end events of the contact pairs between evaluations, and bodies
// marked at rest (world.h).
#include "mesh/mesh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/contact/patches.h"
#include "src/contact/workspace.h"
#include "src/world/world_internal.h"

#include <string.h>

/// The patches of a pair's last query (a copy of the workspace's, world frame).
struct mc_pair_patches
{
    mc_patch_meta* meta; ///< per region
    uint32_t meta_cap;
    mc_vec3* points; ///< all vertices
    uint32_t point_cap;
    uint32_t* ends; ///< loop ends (same offsets)
    uint32_t end_cap;
    uint32_t count; ///< regions with a patch
    bool valid;     ///< built by the last query of the pair
};

void mc_pair_patches_destroy(struct mc_pair_patches* pp)
{
    if (pp == NULL)
    {
        return;
    }
    mc_free(pp->meta);
    mc_free(pp->points);
    mc_free(pp->ends);
    mc_free(pp);
}

/// A sleeping body: its slot, generation, and its pose and velocity when put to sleep (bitwise other ones wake it).
struct mc_sleeper
{
    uint32_t slot;
    uint32_t generation;
    mc_pose pose;
    mc_twist velocity;
};

void mc_host_state_free(mc_host_state* h)
{
    mc_free(h->sleepers);
    mc_free(h->prev);
    mc_free(h->cur);
    mc_free(h->events);
    memset(h, 0, sizeof *h);
}

// ---------------------------------------------------------------------------------------------------------------
// Patches

static bool mesh_pair(const mc_world* w, const mc_pair* p)
{
    return w->bodies[p->body_i].mesh != NULL && w->bodies[p->body_j].mesh != NULL;
}

void mc_host_patches_ask(const mc_world* w, const mc_pair* p, struct mc_workspace* ws)
{
    ws->patch_manifold = mesh_pair(w, p) ? w->host.patch_manifold : 0u;
    if (p->patches != NULL)
    {
        p->patches->valid = false;
    }
}

void mc_host_patches_keep(const mc_world* w, mc_pair* p, struct mc_workspace* ws)
{
    bool asked = ws->patch_manifold > 0;
    ws->patch_manifold = 0;
    if (!asked || p->status != MC_OK)
    {
        return;
    }
    (void)w;
    const mc_patch_scratch* s = ws->patches;
    if (p->patches == NULL && (p->patches = mc_calloc(1, sizeof *p->patches)) == NULL)
    {
        p->status = MC_ERR_OUT_OF_MEMORY;
        return;
    }
    struct mc_pair_patches* pp = p->patches;
    uint32_t n = s != NULL ? s->region_count : 0u, np = s != NULL ? s->point_count : 0u;
    if (!mc_array_reserve((void**)&pp->meta, &pp->meta_cap, n, sizeof *pp->meta, 2) ||
        !mc_array_reserve((void**)&pp->points, &pp->point_cap, np, sizeof *pp->points, 16) ||
        !mc_array_reserve((void**)&pp->ends, &pp->end_cap, np, sizeof *pp->ends, 16))
    {
        p->status = MC_ERR_OUT_OF_MEMORY;
        return;
    }
    if (n > 0)
    {
        memcpy(pp->meta, s->meta, (size_t)n * sizeof *pp->meta);
    }
    if (np > 0)
    {
        memcpy(pp->points, s->points, (size_t)np * sizeof *pp->points);
        memcpy(pp->ends, s->ends, (size_t)np * sizeof *pp->ends);
    }
    pp->count = n;
    pp->valid = true;
}

mc_status mc_world_set_patches(mc_world* w, uint32_t manifold_points)
{
    if (w == NULL || manifold_points > MC_MANIFOLD_MAX)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    MC_ASSERT(!w->evaluating);
    if (manifold_points != w->host.patch_manifold)
    {
        w->host.patch_manifold = manifold_points;
        for (uint32_t k = 0; k < w->pair_slots; ++k)
        {
            w->pairs[k].reusable = false; // its cached regions have no patches of this size: query it again
            if (w->pairs[k].patches != NULL)
            {
                w->pairs[k].patches->valid = false;
            }
        }
    }
    return MC_OK;
}

uint32_t mc_world_get_patches(const mc_world* w, mc_patch* out, uint32_t capacity)
{
    if (w == NULL || (out == NULL && capacity > 0))
    {
        return 0;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->active_count && n < w->record_count; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[k].pair];
        const struct mc_pair_patches* pp = p->patches;
        bool kept = w->host.patch_manifold > 0 && pp != NULL && pp->valid && pp->count == p->region_count;
        for (uint32_t r = 0; r < p->region_count; ++r, ++n)
        {
            if (n >= capacity)
            {
                continue;
            }
            if (kept)
            {
                mc_patch_view(&pp->meta[r], pp->points, pp->ends, &out[n]);
            }
            else
            {
                mc_patch_meta m;
                mc_patch_meta_centroid(&m, &w->records[n].region);
                mc_patch_view(&m, NULL, NULL, &out[n]);
            }
        }
    }
    return w->record_count;
}

// ---------------------------------------------------------------------------------------------------------------
// Events

static int touch_cmp(const mc_touch* a, const mc_touch* b)
{
    const uint32_t ka[6] = {a->contact, a->body_i, a->body_j, a->gen_c, a->gen_i, a->gen_j};
    const uint32_t kb[6] = {b->contact, b->body_i, b->body_j, b->gen_c, b->gen_i, b->gen_j};
    for (int k = 0; k < 6; ++k)
    {
        if (ka[k] != kb[k])
        {
            return ka[k] < kb[k] ? -1 : 1;
        }
    }
    return 0;
}

static void event_of(mc_contact_event* e, const mc_touch* t, mc_contact_event_type type)
{
    memset(e, 0, sizeof *e);
    e->contact.index1 = (int32_t)t->contact + 1;
    e->contact.generation = t->gen_c;
    e->body_i.index1 = (int32_t)t->body_i + 1;
    e->body_i.generation = t->gen_i;
    e->body_j.index1 = (int32_t)t->body_j + 1;
    e->body_j.generation = t->gen_j;
    e->type = type;
    e->first_region = type == MC_CONTACT_END ? UINT32_MAX : t->first_region;
    e->regions = type == MC_CONTACT_END ? 0u : t->regions;
}

mc_status mc_host_events_update(mc_world* w)
{
    mc_host_state* h = &w->host;
    h->event_count = 0;
    uint32_t touching = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[k].pair];
        touching += p->region_count > 0;
        w->info.sleeping_pairs += w->bodies[p->body_i].asleep && w->bodies[p->body_j].asleep;
    }
    // Both lists hold as many as either needs (they are swapped each time), so a steady state allocates nothing.
    uint32_t most = touching > h->prev_count ? touching : h->prev_count;
    if (!mc_array_reserve((void**)&h->cur, &h->cur_cap, most, sizeof *h->cur, 16) ||
        !mc_array_reserve((void**)&h->prev, &h->prev_cap, most, sizeof *h->prev, 16))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // The touching pairs of this evaluation, in pair order (the records' order).
    uint32_t n = 0, record = 0;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        const mc_pair* p = &w->pairs[w->active[k].pair];
        if (p->region_count > 0)
        {
            mc_touch* t = &h->cur[n++];
            t->contact = p->contact;
            t->body_i = p->body_i;
            t->body_j = p->body_j;
            t->gen_c = w->contacts[p->contact].generation;
            t->gen_i = w->bodies[p->body_i].generation;
            t->gen_j = w->bodies[p->body_j].generation;
            t->first_region = record;
            t->regions = p->region_count;
        }
        record += p->region_count;
    }
    // Merge with the previous evaluation's (both sorted by slots, then generations): counted, then written.
    uint32_t i = 0, j = 0, e = 0;
    while (i < h->prev_count || j < n)
    {
        int c = i >= h->prev_count ? 1 : (j >= n ? -1 : touch_cmp(&h->prev[i], &h->cur[j]));
        i += c <= 0;
        j += c >= 0;
        e++;
    }
    if (!mc_array_reserve((void**)&h->events, &h->event_cap, e, sizeof *h->events, 16))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    i = 0, j = 0, e = 0;
    while (i < h->prev_count || j < n)
    {
        int c = i >= h->prev_count ? 1 : (j >= n ? -1 : touch_cmp(&h->prev[i], &h->cur[j]));
        if (c == 0)
        {
            event_of(&h->events[e++], &h->cur[j], MC_CONTACT_PERSIST);
            i++, j++;
        }
        else if (c < 0)
        {
            event_of(&h->events[e++], &h->prev[i++], MC_CONTACT_END);
        }
        else
        {
            event_of(&h->events[e++], &h->cur[j++], MC_CONTACT_BEGIN);
        }
    }
    h->event_count = e;
    mc_touch* swap = h->prev;
    uint32_t swap_cap = h->prev_cap;
    h->prev = h->cur;
    h->prev_cap = h->cur_cap;
    h->prev_count = n;
    h->cur = swap;
    h->cur_cap = swap_cap;
    h->cur_count = 0;
    return MC_OK;
}

uint32_t mc_world_get_events(const mc_world* w, mc_contact_event* out, uint32_t capacity)
{
    if (w == NULL || (out == NULL && capacity > 0))
    {
        return 0;
    }
    uint32_t n = w->host.event_count < capacity ? w->host.event_count : capacity;
    if (n > 0)
    {
        memcpy(out, w->host.events, (size_t)n * sizeof *out);
    }
    return w->host.event_count;
}

// ---------------------------------------------------------------------------------------------------------------
// Rest

mc_status mc_body_set_awake(mc_world* w, mc_body_id id, bool awake)
{
    mc_body* b = mc_world_body(w, id);
    if (b == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    MC_ASSERT(!w->evaluating);
    mc_host_state* h = &w->host;
    uint32_t slot = (uint32_t)id.index1 - 1u;
    if (!awake && !b->asleep)
    {
        if (!mc_array_reserve((void**)&h->sleepers, &h->sleeper_cap, (uint64_t)h->sleeper_count + 1,
                              sizeof *h->sleepers, 16))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        struct mc_sleeper* z = &h->sleepers[h->sleeper_count++];
        z->slot = slot;
        z->generation = b->generation;
        z->pose = b->pose;
        z->velocity = b->velocity;
    }
    else if (awake && b->asleep)
    {
        for (uint32_t k = 0; k < h->sleeper_count; ++k)
        {
            if (h->sleepers[k].slot == slot)
            {
                h->sleepers[k] = h->sleepers[--h->sleeper_count];
                break;
            }
        }
    }
    b->asleep = !awake;
    return MC_OK;
}

bool mc_body_is_awake(const mc_world* w, mc_body_id id)
{
    const mc_body* b = mc_world_body(w, id);
    return b == NULL || !b->asleep;
}

void mc_host_wake_moved(mc_world* w)
{
    mc_host_state* h = &w->host;
    h->event_count = 0; // until this evaluation succeeds
    uint32_t kept = 0;
    for (uint32_t k = 0; k < h->sleeper_count; ++k)
    {
        struct mc_sleeper z = h->sleepers[k];
        mc_body* b = &w->bodies[z.slot];
        if (!b->alive || b->generation != z.generation || !b->asleep)
        {
            continue; // destroyed since (a new body in the slot starts awake)
        }
        if (memcmp(&b->pose, &z.pose, sizeof b->pose) != 0 || memcmp(&b->velocity, &z.velocity, sizeof z.velocity) != 0)
        {
            b->asleep = false;
            w->info.woken_bodies++;
            continue;
        }
        h->sleepers[kept++] = z;
        w->info.sleeping_bodies++;
    }
    h->sleeper_count = kept;
}
