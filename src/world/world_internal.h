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
    const mc_mesh* mesh; ///< the mesh used for queries (own_mesh when the body is flipped); NULL when analytic
    mc_shape shape;      ///< analytic geometry (type MC_SHAPE_MESH: the body is its mesh)
    mc_mesh* own_mesh;   ///< flipped copy owned by the world, or NULL
    /// flipped body: the mesh the copy was made from (counted as used by the body), whose deformations the copy
    /// follows at the next evaluation; NULL otherwise
    const mc_mesh* source_mesh;
    uint64_t source_version;  ///< the source's geometry version the copy has the positions of
    bool source_numbering;    ///< the copy numbers its vertices as the source does (else a deformation is refused)
    mc_pose pose;             ///< body to world
    mc_twist velocity;        ///< world frame
    mc_wrench wrench;         ///< result of the last evaluation
    void* user_data;          ///< host pointer
    mc_vec3 obb_center;       ///< root OBB centre of the mesh's tree, body frame (also the bounding sphere's centre)
    mc_vec3 obb_half[3];      ///< root OBB half axes (unit axis times half extent), body frame
    double radius;            ///< bounding sphere radius about obb_center (every vertex within it, rounded up)
    uint64_t mesh_version;    ///< the mesh's geometry version the bounds were computed for (mc_mesh_set_positions)
    mc_membership* members;   ///< contact definitions that list this body, by contact slot
    uint32_t member_count;    ///< entries in members
    uint32_t member_capacity; ///< entries allocated
    bool unbounded;           ///< the solid is the outside of its mesh (flipped): no finite bounding box
    bool alive;               ///< slot in use
    bool asleep;              ///< marked at rest by the host (mc_body_set_awake; its snapshot in mc_host_state)
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
    uint32_t contact;            ///< contact slot
    uint32_t body_i;             ///< I body slot
    uint32_t body_j;             ///< J body slot
    mc_region* regions;          ///< region buffer (grown serially, never in workers)
    uint32_t region_capacity;    ///< entries in regions
    uint32_t region_count;       ///< regions found by the last query (may exceed capacity before a retry)
    mc_status status;            ///< status of the last query
    mc_query_stats stats;        ///< counters of the last query
    mc_pose pose_i;              ///< I body's pose at the last query (valid when `reusable`)
    mc_pose pose_j;              ///< J body's pose at the last query
    uint32_t gen_i;              ///< I body's generation at the last query
    uint32_t gen_j;              ///< J body's generation at the last query
    uint64_t ver_i;              ///< I body's mesh geometry version at the last query (0: analytic or never deformed)
    uint64_t ver_j;              ///< J body's mesh geometry version at the last query
    bool reusable;               ///< the last query succeeded and its regions are in the buffer
    bool reused;                 ///< this evaluation reused the regions (no query)
    struct mc_pair_front* front; ///< traversal front of the last query (temporal coherence; bvh.h), or NULL
    struct mc_region_plan* plan; ///< region stage plan of the last queries (temporal coherence; regions.c), or NULL
    /// contact patches of the last query (world_host.c), or NULL
    struct mc_pair_patches* patches;
    /// Decaying peak of J's motion in I's frame per query, over J's reach (the larger of the new motion, at most twice
    /// WORLD_FRONT_MOTION, and 0.8 times the last peak; world_evaluate.c, coherence_pays): past WORLD_FRONT_MOTION the
    /// pair is queried without its front
    double motion;
} mc_pair;

/// A candidate pair of one evaluation: its key (contact, I slot, J slot) and its pool record.
typedef struct mc_pair_key
{
    uint32_t contact; ///< contact slot
    uint32_t body_i;  ///< I body slot
    uint32_t body_j;  ///< J body slot
    uint32_t pair;    ///< index into the pair pool (set when the candidates are matched to records)
} mc_pair_key;

/// Order of candidate keys: (contact, body_i, body_j). @return -1, 0 or 1.
static inline int mc_pair_key_cmp(const mc_pair_key* a, const mc_pair_key* b)
{
    if (a->contact != b->contact)
    {
        return a->contact < b->contact ? -1 : 1;
    }
    if (a->body_i != b->body_i)
    {
        return a->body_i < b->body_i ? -1 : 1;
    }
    return (a->body_j > b->body_j) - (a->body_j < b->body_j);
}

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

/// A growable list of pair keys.
typedef struct mc_key_list
{
    mc_pair_key* data; ///< entries
    uint32_t count;    ///< entries used
    uint32_t capacity; ///< entries allocated
} mc_key_list;

/// Broad phase state (broadphase.c): per-body tight and fat volumes, the tree over the fat boxes, and the fat pairs
/// that each evaluation filters.
typedef struct mc_broadphase
{
    struct mc_bp_proxy* proxies; ///< tight and fat volumes by body slot (entries of bounded member bodies are used)
    uint32_t proxy_capacity;     ///< entries allocated
    uint8_t* moved;              ///< by body slot, for member bodies: 1 when the body left its fat volume this time
    uint32_t moved_capacity;     ///< entries allocated
    uint32_t* list;              ///< body slots of the bounded member bodies, ascending (this evaluation)
    uint32_t list_capacity;      ///< entries allocated
    uint32_t* order;             ///< the same slots in the tree's build order (each leaf a contiguous run)
    uint32_t order_capacity;     ///< entries allocated
    uint32_t* unbounded;         ///< body slots of unbounded (flipped) bodies that belong to a contact
    uint32_t unbounded_capacity; ///< entries allocated
    struct mc_bp_node* nodes;    ///< tree nodes in preorder (at most 2 n - 1 for n bodies)
    uint32_t node_count;         ///< nodes of the current tree
    uint32_t node_capacity;      ///< entries allocated
    mc_key_list fat;             ///< fat pairs, sorted by (contact, body_i, body_j); `pair` 1: always a candidate
    mc_key_list fresh;           ///< fat pairs of the bodies that moved (an update), before the merge
    mc_key_list spare;           ///< the radix sort's second buffer, then the merge's target (swapped with fat)
    uint32_t fat_flags;          ///< MC_STEP_* flags the rebuild raised (defined pairs of two unbounded bodies)
    uint32_t built_count;        ///< bounded bodies in the tree
    uint32_t moved_since;        ///< bodies updated in the tree since it was built
    bool fat_valid;              ///< fat pairs match the current bodies and contacts (cleared when they change)
} mc_broadphase;

/// A committed stiction anchor pair of one region (see world.h, "State that outlives an evaluation").
typedef struct mc_stick
{
    uint32_t contact; ///< contact slot
    uint32_t body_i;  ///< I body slot
    uint32_t body_j;  ///< J body slot
    uint32_t gen_c;   ///< contact generation
    uint32_t gen_i;   ///< I body generation
    uint32_t gen_j;   ///< J body generation
    mc_vec3 anchor_i; ///< anchor fixed in body I, body I frame
    mc_vec3 anchor_j; ///< anchor fixed in body J, body J frame
} mc_stick;

/// The committed anchors of one pair: entries [lo, hi) of mc_world.stick.
typedef struct mc_stick_range
{
    uint32_t lo; ///< first entry
    uint32_t hi; ///< one past the last
} mc_stick_range;

/// Stiction state of a world (world_stiction.c).
typedef struct mc_stiction
{
    uint64_t world_uid;     ///< identity of the world in saved states (unique in the process)
    mc_stick* stick;        ///< committed anchors, sorted by (contact, body_i, body_j), then region order
    uint32_t count;         ///< committed entries
    uint32_t capacity;      ///< entries allocated
    mc_stick* next;         ///< anchors of the last evaluation (what a commit keeps), in record order
    uint32_t next_count;    ///< entries used in next
    uint32_t next_capacity; ///< entries allocated
    uint8_t* used;          ///< scratch: committed entries taken by a region of this evaluation
    uint32_t used_capacity; ///< entries allocated in used (>= count)
    bool ready;             ///< `next` describes the current state (a successful evaluation since the last change)
} mc_stiction;

/// One touching pair (at least one region record) of an evaluation, for the contact events (world_host.c).
typedef struct mc_touch
{
    uint32_t contact, body_i, body_j; ///< slots
    uint32_t gen_c, gen_i, gen_j;     ///< their generations
    uint32_t first_region;            ///< index of its first record
    uint32_t regions;                 ///< its records
} mc_touch;

/// Contact events and patches of a world (world_host.c).
typedef struct mc_host_state
{
    uint32_t patch_manifold; ///< manifold points of the contact patches; 0: no patches (the default)
    mc_touch* prev;          ///< touching pairs of the last successful evaluation, in pair order
    uint32_t prev_count, prev_cap;
    mc_touch* cur; ///< touching pairs being collected (swapped with prev)
    uint32_t cur_count, cur_cap;
    mc_contact_event* events; ///< events of the last evaluation
    uint32_t event_count, event_cap;
    /// the sleeping bodies with their pose and velocity when put to sleep (world_host.c)
    struct mc_sleeper* sleepers;
    uint32_t sleeper_count, sleeper_cap;
} mc_host_state;

struct mc_world
{
    int worker_count;             ///< resolved thread count (>= 1)
    mc_depth_method depth_method; ///< region depth method
    mc_analysis analysis;         ///< static or dynamic (DYNAMICS_ONLY friction)
    bool coherence;               ///< pair queries through their traversal fronts (mc_world_def.coherence)
    bool jacobian_differences;    ///< mc_world_get_jacobian differences every pair (tests and benchmarks only)
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
    mc_stiction stiction;         ///< stiction anchors (world_stiction.c)
    bool evaluated;               ///< the last mc_world_evaluate succeeded (its pairs and regions are current while
                                  ///< candidates_valid holds: mc_world_get_jacobian)
    mc_host_state host;           ///< contact patches, events, rest (world_host.c)
    mc_error last_error;          ///< the last failure of a world call (mc_world_get_last_error; world_error.c)
};

/// A body or contact was created or destroyed: the candidates, the broad phase's fat pairs and the stiction records no
/// longer match the world.
static inline void mc_world_structure_changed(mc_world* w)
{
    w->candidates_valid = false;
    w->bp.fat_valid = false;
    w->stiction.ready = false;
}

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

/// Body-frame bounds of an analytic body (a bounded sphere or cylinder) for the broad phase; sets `unbounded` for a
/// plane, a socket or a hole (world_shape.c).
void mc_body_init_shape_bounds(mc_body* b);

/// Tests and benchmarks: make mc_world_get_jacobian take the central differences of the region query for every pair
/// (true), or analytic derivatives where it can (false, the default), to compare the two in one build.
void mc_world_set_jacobian_differences(mc_world* w, bool differences);

/// The region query of pair p at poses pose_i, pose_j: mc_query_regions for two meshes, mc_query_shape_regions when
/// a body is analytic (closed forms, or an exact cut of the other body's mesh; world_shape.c). Arguments and return
/// as mc_query_regions.
mc_status mc_pair_query_regions(const mc_world* w, const mc_pair* p, const mc_pose* pose_i, const mc_pose* pose_j,
                                const mc_query_options* opt, mc_workspace* ws, mc_region* regions, uint32_t capacity,
                                uint32_t* count, mc_query_stats* stats);

/// Check an analytic body definition (world_shape.c). @return NULL when valid, else what is wrong.
const char* mc_body_shape_problem(const mc_body_def* def);

/// Refuse contact definitions that pair two unbounded solids when one of them is analytic (world_shape.c).
/// @param c the definition being built (members and excluded pairs set)
mc_status mc_contact_check_unbounded(const mc_world* w, const mc_contact_slot* c, mc_error* err);

/// Free the broad phase's arrays (broadphase.c).
void mc_broadphase_free(mc_broadphase* bp);

/// Broad phase: world boxes of the bodies that belong to a contact, the tree over them, and the candidate pairs
/// (overlapping boxes, defined by a contact, not excluded) into w->found, sorted by (contact, body_i, body_j).
/// Sets MC_STEP_UNBOUNDED_PAIR for defined pairs of two unbounded bodies (never candidates).
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY (w->found is then incomplete; nothing else changed)
mc_status mc_broadphase_collect(mc_world* w);

/// @return a new world identity for saved states (world_stiction.c).
uint64_t mc_stiction_new_world_uid(void);

/// Free the stiction arrays (world_stiction.c).
void mc_stiction_free(mc_stiction* st);

/// Before the force stage: room for one pending anchor per region (no allocation once warm), pending cleared.
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_stiction_reserve(mc_world* w, uint32_t regions);

/// The committed anchors of pair p (entries of live bodies and contacts only are matched later); clears their
/// used marks.
mc_stick_range mc_stiction_find(mc_world* w, const mc_pair* p);

/// Stiction for one region after the force laws: when the pair's contact has stiction on and the region has a normal
/// force with active friction, replaces f's friction force and coefficient by mc_stiction_force with the matched
/// anchor's creep, and appends the region's anchors for the next commit.
/// @param creep out: the creep kept (zero when not sticking), @param sticking out: whether stiction applied
/// @return MC_OK, or MC_ERR_OUT_OF_RANGE when the stiction force is not finite (f is then zeroed and rejected)
mc_status mc_stiction_region(mc_world* w, const mc_pair* p, mc_stick_range range, const mc_region* reg,
                             const mc_contact_kinematics* kin, mc_contact_force* f, mc_vec3* creep, bool* sticking);

/// Start of an evaluation (world_host.c): wake the sleeping bodies whose pose or velocity is bitwise other than when
/// they were put to sleep, and count the sleeping bodies into the step info.
void mc_host_wake_moved(mc_world* w);

/// Before pair p's query on ws (world_host.c): ask the region query for contact patches when the world keeps them
/// and both bodies are meshes.
void mc_host_patches_ask(const mc_world* w, const mc_pair* p, struct mc_workspace* ws);

/// After pair p's query on ws (world_host.c): keep its patches (on MC_OK), and stop asking. On out of memory
/// p->status becomes MC_ERR_OUT_OF_MEMORY.
void mc_host_patches_keep(const mc_world* w, mc_pair* p, struct mc_workspace* ws);

/// After a successful evaluation's force stage (world_host.c): the events against the last successful evaluation,
/// and the sleeping pairs of the step info. @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_host_events_update(mc_world* w);

/// Free a pair's patches (NULL ignored) and the world's host state (world_host.c).
void mc_pair_patches_destroy(struct mc_pair_patches* pp);
void mc_host_state_free(mc_host_state* h);
// ---------------------------------------------------------------------------------------------------------------
// Errors of world calls (world_error.c): every failing call records its status, the entry index and the reason in
// the world's last error (mc_world_get_last_error) and sends the message to the log hook.

/// Record a failure of `fn` (with `index` the entry of a list argument, or -1) and return `status`. `w` may be NULL
/// (then the message only goes to the log hook). Const worlds are written too: the record is the world's own
/// mutable field, documented as written by failing getters.
mc_status mc_world_fail(const mc_world* w, mc_status status, int64_t index, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// Record `err` (already filled by a helper) as the world's last error, prefixed with `fn`; returns err->status.
mc_status mc_world_record(const mc_world* w, const char* fn, mc_error* err);

/// @return why `id` is not a live body of `w` ("null body id", "stale body id ...", ...), or NULL when it is.
/// `buf` receives the text when it needs the id's numbers.
const char* mc_world_body_problem(const mc_world* w, mc_body_id id, char* buf, size_t cap);

/// After a region's record is filled: flag its depth when the contact measures the Adams depth and the depth
/// exceeds MC_OFF_REGION_DEPTH_RATIO times the region's 2V/A (not for rejected regions), and count it in the step info.
void mc_world_flag_depth(mc_world* w, const mc_contact_slot* cs, mc_contact_region* rec);

/// @return why a pose cannot be used (non-finite or out-of-range translation, non-finite or zero quaternion), or NULL.
const char* mc_world_pose_problem(const mc_pose* p);
