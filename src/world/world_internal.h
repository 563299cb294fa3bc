// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_world: body and contact slots, contact pairs with their region buffers, per-worker scratch.
#pragma once

#include "meshcontact/world.h"

#include <stdbool.h>
#include <stdint.h>

/// A body slot.
typedef struct mc_body
{
    const mc_mesh* mesh; ///< the mesh used for queries (own_mesh when the body is flipped)
    mc_mesh* own_mesh;   ///< flipped copy owned by the world, or NULL
    mc_pose pose;        ///< body to world
    mc_twist velocity;   ///< world frame
    mc_wrench wrench;    ///< result of the last evaluation
    void* user_data;     ///< host pointer
    mc_vec3 box_min;     ///< world AABB lower corner (this evaluation)
    mc_vec3 box_max;     ///< world AABB upper corner
    bool unbounded;      ///< the solid is the outside of its mesh (flipped): no finite bounding box
    bool alive;          ///< slot in use
    uint32_t generation; ///< matches live ids
    int32_t next_free;   ///< free list link (-1: end)
} mc_body;

/// One (I body, J body) combination of a contact definition, with its warm region buffer.
typedef struct mc_pair
{
    uint32_t body_i;          ///< I body slot
    uint32_t body_j;          ///< J body slot
    uint32_t gen_i;           ///< I body generation when the pair was made (a mismatch means the body is gone)
    uint32_t gen_j;           ///< J body generation
    uint32_t contact;         ///< contact slot
    mc_region* regions;       ///< region buffer (grown serially, never in workers)
    uint32_t region_capacity; ///< entries in regions
    uint32_t region_count;    ///< regions found by the last query (may exceed capacity before a retry)
    mc_status status;         ///< status of the last query
    mc_query_stats stats;     ///< counters of the last query
} mc_pair;

/// A contact definition slot.
typedef struct mc_contact_slot
{
    mc_force_model model; ///< force laws (checked)
    void* user_data;      ///< host pointer
    mc_pair* pairs;       ///< every I x J combination (self pairs skipped)
    uint32_t pair_count;  ///< entries in pairs
    bool alive;           ///< slot in use
    uint32_t generation;  ///< matches live ids
    int32_t next_free;    ///< free list link (-1: end)
} mc_contact_slot;

struct mc_world
{
    int worker_count;             ///< resolved thread count (>= 1)
    mc_depth_method depth_method; ///< region depth method
    mc_analysis analysis;         ///< static or dynamic (DYNAMICS_ONLY friction)
    mc_body* bodies;              ///< body slots
    uint32_t body_slots;          ///< slots used (live or free-listed)
    uint32_t body_capacity;       ///< slots allocated
    int32_t body_free;            ///< free list head (-1: none)
    mc_contact_slot* contacts;    ///< contact slots
    uint32_t contact_slots;       ///< slots used
    uint32_t contact_capacity;    ///< slots allocated
    int32_t contact_free;         ///< free list head
    mc_pair** active;             ///< candidate pairs of this evaluation (capacity = all pairs ever defined)
    uint32_t active_count;        ///< entries used in active
    uint32_t active_capacity;     ///< entries allocated
    mc_workspace** workspaces;    ///< one per worker
    mc_contact_region* records;   ///< region records of the last evaluation
    uint32_t record_count;        ///< records used
    uint32_t record_capacity;     ///< records allocated
    mc_step_info info;            ///< counters of the last evaluation
    mc_world_capacity high_water; ///< largest counts so far (body, contact and workspace fields filled on request)
    bool evaluating;              ///< inside mc_world_evaluate (debug check against re-entry from callbacks)
};
