// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_world: body and contact slots, contact memberships, the pool of live contact pairs with their
// region buffers, the broad phase's scratch and per-worker query scratch.
#pragma once

#include "meshcontact/world.h"

#include <stdbool.h>
#include <stdint.h>

/// Membership bits of a body in one contact definition.
enum
{
    MC_MEMBER_I = 1u, ///< in the I list (or the group)
    MC_MEMBER_J = 2u, ///< in the J list (or the group)
};

/// One contact definition a body belongs to (kept in the body, sorted by contact slot).
typedef struct mc_membership
{
    uint32_t contact; ///< contact slot
    uint32_t flags;   ///< MC_MEMBER_* bits
} mc_membership;

/// A body slot.
typedef struct mc_body
{
    const mc_mesh* mesh;      ///< the mesh used for queries (own_mesh when the body is flipped)
    mc_mesh* own_mesh;        ///< flipped copy owned by the world, or NULL
    mc_pose pose;             ///< body to world
    mc_twist velocity;        ///< world frame
    mc_wrench wrench;         ///< result of the last evaluation
    void* user_data;          ///< host pointer
    mc_vec3 obb_center;       ///< root OBB centre of the mesh's tree, body frame (also the bounding sphere's centre)
    mc_vec3 obb_half[3];      ///< root OBB half axes (unit axis times half extent), body frame
    double radius;            ///< bounding sphere radius about obb_center (every vertex within it, rounded up)
    mc_vec3 center;           ///< obb_center in the world (this evaluation)
    mc_vec3 box_min;          ///< world AABB lower corner (this evaluation)
    mc_vec3 box_max;          ///< world AABB upper corner
    mc_membership* members;   ///< contact definitions that list this body, by contact slot
    uint32_t member_count;    ///< entries in members
    uint32_t member_capacity; ///< entries allocated
    bool unbounded;           ///< the solid is the outside of its mesh (flipped): no finite bounding box
    bool alive;               ///< slot in use
    uint32_t generation;      ///< matches live ids
    int32_t next_free;        ///< free list link (-1: end)
} mc_body;

/// A body of a contact definition's lists.
typedef struct mc_contact_member
{
    uint32_t body;       ///< body slot
    uint32_t generation; ///< body generation at creation (a mismatch means the body is gone)
    uint32_t flags;      ///< MC_MEMBER_* bits
} mc_contact_member;

/// An excluded pair of body slots (lo < hi).
typedef struct mc_slot_pair
{
    uint32_t lo; ///< lower body slot
    uint32_t hi; ///< higher body slot
} mc_slot_pair;

/// A live contact pair (candidate of the last evaluation) with its warm region buffer. Records are pooled: a pair
/// that stops being a candidate goes back to the pool with its buffer, and the next new pair takes it.
typedef struct mc_pair
{
    uint32_t contact;         ///< contact slot
    uint32_t body_i;          ///< I body slot
    uint32_t body_j;          ///< J body slot
    mc_region* regions;       ///< region buffer (grown serially, never in workers)
    uint32_t region_capacity; ///< entries in regions
    uint32_t region_count;    ///< regions found by the last query (may exceed capacity before a retry)
    mc_status status;         ///< status of the last query
    mc_query_stats stats;     ///< counters of the last query
    mc_pose pose_i;           ///< I body's pose at the last query (valid when `reusable`)
    mc_pose pose_j;           ///< J body's pose at the last query
    uint32_t gen_i;           ///< I body's generation at the last query
    uint32_t gen_j;           ///< J body's generation at the last query
    bool reusable;            ///< the last query succeeded and its regions are in the buffer
    bool reused;              ///< this evaluation reused the regions (no query)
} mc_pair;

/// A candidate pair of one evaluation: its key (contact, I slot, J slot) and its pool record.
typedef struct mc_pair_key
{
    uint32_t contact; ///< contact slot
    uint32_t body_i;  ///< I body slot
    uint32_t body_j;  ///< J body slot
    uint32_t pair;    ///< index into the pair pool (set when the candidates are matched to records)
} mc_pair_key;

/// A contact definition slot.
typedef struct mc_contact_slot
{
    mc_force_model model;       ///< force laws (checked)
    mc_depth_method depth;      ///< depth method of its queries (resolved: never MC_DEPTH_DEFAULT)
    void* user_data;            ///< host pointer
    mc_contact_member* members; ///< the bodies of the lists (each once, by body slot)
    uint32_t member_count;      ///< entries in members
    mc_slot_pair* excluded;     ///< excluded pairs, sorted by (lo, hi)
    uint32_t excluded_count;    ///< entries in excluded
    bool alive;                 ///< slot in use
    uint32_t generation;        ///< matches live ids
    int32_t next_free;          ///< free list link (-1: end)
} mc_contact_slot;

/// Broad phase scratch: a bounding volume tree over the world boxes of the bodies, rebuilt per evaluation.
typedef struct mc_broadphase
{
    uint32_t* proxies;           ///< body slots of bounded bodies that belong to a contact
    uint32_t proxy_capacity;     ///< entries allocated
    uint32_t* unbounded;         ///< body slots of unbounded (flipped) bodies that belong to a contact
    uint32_t unbounded_capacity; ///< entries allocated
    struct mc_bp_node* nodes;    ///< tree nodes (2 n - 1 for n proxies)
    uint32_t node_capacity;      ///< entries allocated
} mc_broadphase;

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
    mc_pair* pairs;               ///< pool of pair records (live and free)
    uint32_t pair_slots;          ///< records used (live or free-listed)
    uint32_t pair_capacity;       ///< records allocated
    uint32_t* pair_free;          ///< stack of free record indices
    uint32_t pair_free_count;     ///< entries in pair_free
    uint32_t pair_free_capacity;  ///< entries allocated
    mc_pair_key* active;          ///< candidate pairs of the last evaluation, sorted by (contact, body_i, body_j)
    uint32_t active_count;        ///< entries used in active
    uint32_t active_capacity;     ///< entries allocated
    uint32_t* todo;               ///< indices into active of the pairs this evaluation queries (not reused)
    uint32_t todo_count;          ///< entries used in todo
    uint32_t todo_capacity;       ///< entries allocated
    mc_pair_key* found;           ///< candidate pairs being collected by the broad phase (swapped with active)
    uint32_t found_count;         ///< entries used in found
    uint32_t found_capacity;      ///< entries allocated
    bool candidates_valid;        ///< active matches the current poses, bodies and contacts (set by a successful
                                  ///< broad phase, cleared by any change that could alter the candidates)
    uint32_t bp_flags;            ///< step flags that broad phase set (MC_STEP_UNBOUNDED_PAIR)
    mc_broadphase bp;             ///< broad phase scratch
    mc_workspace** workspaces;    ///< one per worker
    mc_contact_region* records;   ///< region records of the last evaluation
    uint32_t record_count;        ///< records used
    uint32_t record_capacity;     ///< records allocated
    mc_step_info info;            ///< counters of the last evaluation
    mc_world_capacity high_water; ///< largest counts so far (body, contact and workspace fields filled on request)
    bool evaluating;              ///< inside mc_world_evaluate (debug check against re-entry from callbacks)
    bool evaluated;               ///< the last mc_world_evaluate succeeded (its pairs and regions are current while
                                  ///< candidates_valid holds: mc_world_get_jacobian)
};

/// @return the live body slot of `id`, or NULL (null, stale or out-of-range id).
static inline mc_body* mc_world_body(const mc_world* w, mc_body_id id)
{
    if (w == NULL || id.index1 <= 0 || (uint32_t)id.index1 > w->body_slots)
    {
        return NULL;
    }
    mc_body* b = &w->bodies[id.index1 - 1];
    return b->alive && b->generation == id.generation ? b : NULL;
}

/// @return the live contact slot of `id`, or NULL.
static inline mc_contact_slot* mc_world_contact(const mc_world* w, mc_contact_id id)
{
    if (w == NULL || id.index1 <= 0 || (uint32_t)id.index1 > w->contact_slots)
    {
        return NULL;
    }
    mc_contact_slot* c = &w->contacts[id.index1 - 1];
    return c->alive && c->generation == id.generation ? c : NULL;
}

/// Free a contact slot's member and excluded arrays (world_contact.c).
void mc_contact_slot_free(mc_contact_slot* c);

/// Remove contact slot `contact` from the membership lists of its live members (world_contact.c).
void mc_contact_unlink(mc_world* w, uint32_t contact);

/// @return true when contact `c` excludes the pair of body slots lo < hi (world_contact.c).
bool mc_contact_excludes(const mc_contact_slot* c, uint32_t lo, uint32_t hi);

/// The next contact definition that pairs body slots a < b (one in its I list, the other in its J list, the pair not
/// excluded), walking both bodies' membership lists from positions *i and *j (start both at 0; they are advanced).
/// @param contact receives its slot, a_is_i whether a is its I body (a from the I list, or both listed both ways)
/// @return false when there is no further one (world_contact.c)
bool mc_next_pairing_contact(const mc_world* w, uint32_t a, uint32_t b, uint32_t* i, uint32_t* j, uint32_t* contact,
                             bool* a_is_i);

/// Number of pairs of live bodies that contact `c` defines, less its excluded pairs of live bodies (saturated at
/// UINT32_MAX; world_contact.c).
uint32_t mc_contact_defined_pairs(const mc_world* w, const mc_contact_slot* c);

/// Body-frame bounds of body b's mesh for the broad phase: root OBB of its tree and bounding sphere (broadphase.c).
void mc_body_init_bounds(mc_body* b);

/// Free the broad phase's arrays (broadphase.c).
void mc_broadphase_free(mc_broadphase* bp);

/// Broad phase: world boxes of the bodies that belong to a contact, the tree over them, and the candidate pairs
/// (overlapping boxes, defined by a contact, not excluded) into w->found, sorted by (contact, body_i, body_j).
/// Sets MC_STEP_UNBOUNDED_PAIR for defined pairs of two unbounded bodies (never candidates).
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY (w->found is then incomplete; nothing else changed)
mc_status mc_broadphase_collect(mc_world* w);
