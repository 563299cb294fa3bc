// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Memory statistics of a world (see world_memory.h).
#include "src/world/world_memory.h"

#include "src/base/core.h"
#include "src/contact/regions.h"
#include "src/world/world_internal.h"

mc_world_memory mc_world_memory_get(const mc_world* w)
{
    mc_world_memory m = {0};
    if (w == NULL)
    {
        return m;
    }
    m.pair_records = mc_alloc_size(w->pairs);
    m.pairs = w->pair_slots - w->pair_free_count;
    m.pooled = w->pair_free_count;
    for (uint32_t k = 0; k < w->pair_slots; ++k)
    {
        const mc_pair* p = &w->pairs[k];
        uint32_t used = p->region_count < p->region_capacity ? p->region_count : p->region_capacity;
        m.regions_used += (size_t)used * sizeof *p->regions;
        m.regions_held += mc_alloc_size(p->regions);
        mc_pair_front_memory(p->front, &m.front);
        mc_region_plan_memory(p->plan, &m.plan_used, &m.plan_held);
        m.patches += p->patches != NULL;
    }
    for (int k = 0; k < w->worker_count && w->workspaces != NULL; ++k)
    {
        m.workspaces += mc_workspace_get_byte_count(w->workspaces[k]);
    }
    m.lists = mc_alloc_size(w->pair_free) + mc_alloc_size(w->active) + mc_alloc_size(w->todo) +
              mc_alloc_size(w->found) + mc_alloc_size(w->records);
    return m;
}

size_t mc_world_memory_held(const mc_world_memory* m)
{
    const mc_front_memory* f = &m->front;
    return m->pair_records + m->regions_held + f->header + f->entries_held + f->pool_held + f->order_held +
           f->cert_held + m->plan_held + m->workspaces + m->lists;
}
