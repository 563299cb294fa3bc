// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The world: body and contact slots with generations, broad phase over defined pairs, per-pair region queries in
// parallel (one workspace per worker), force laws and a serial fixed-order reduction into per-body wrenches.
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/world/contact_force.h"
#include "src/world/world_internal.h"

#include <math.h>
#include <string.h>

#define WORLD_COOKIE ((int)MC_DEF_COOKIE)

static bool vec_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static mc_pose pose_normalized(const mc_pose* p)
{
    mc_pose r = *p;
    r.q = mc_quat_normalize(p->q);
    return r;
}

static bool twist_ok(const mc_twist* t)
{
    return vec_finite(t->v) && vec_finite(t->w);
}

mc_world_def mc_default_world_def(void)
{
    mc_world_def d;
    memset(&d, 0, sizeof d);
    d.worker_count = 0;
    d.depth_method = MC_DEPTH_ADAMS;
    d.body_capacity = 16;
    d.contact_capacity = 8;
    d.region_capacity = 16;
    d.internal_value = WORLD_COOKIE;
    return d;
}

mc_body_def mc_default_body_def(void)
{
    mc_body_def d;
    memset(&d, 0, sizeof d);
    d.pose = mc_pose_identity();
    d.internal_value = WORLD_COOKIE;
    return d;
}

mc_contact_def mc_default_contact_def(void)
{
    mc_contact_def d;
    memset(&d, 0, sizeof d);
    d.model = mc_default_force_model();
    d.internal_value = WORLD_COOKIE;
    return d;
}

mc_status mc_world_create(const mc_world_def* def, mc_world** out)
{
    MC_ASSERT(def != NULL && out != NULL);
    if (def == NULL || out == NULL || def->internal_value != WORLD_COOKIE)
    {
        MC_ASSERT(def == NULL || def->internal_value == WORLD_COOKIE);
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (def->worker_count < 0 || (def->depth_method != MC_DEPTH_ADAMS && def->depth_method != MC_DEPTH_VOLUME_AREA &&
                                  def->depth_method != MC_DEPTH_EXTENT))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_world* w = mc_calloc(1, sizeof *w);
    if (w == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    w->worker_count = mc_parallel_worker_count(def->worker_count);
    w->depth_method = def->depth_method;
    w->analysis = MC_ANALYSIS_DYNAMIC;
    w->body_free = -1;
    w->contact_free = -1;
    bool ok = true;
    w->workspaces = mc_calloc((size_t)w->worker_count, sizeof *w->workspaces);
    ok = ok && w->workspaces != NULL;
    for (int i = 0; ok && i < w->worker_count; ++i)
    {
        ok = mc_workspace_create(&w->workspaces[i]) == MC_OK;
    }
    ok = ok && mc_array_reserve((void**)&w->bodies, &w->body_capacity, def->body_capacity, sizeof *w->bodies, 4);
    ok = ok &&
         mc_array_reserve((void**)&w->contacts, &w->contact_capacity, def->contact_capacity, sizeof *w->contacts, 4);
    ok = ok && mc_array_reserve((void**)&w->records, &w->record_capacity, def->region_capacity, sizeof *w->records, 4);
    if (!ok)
    {
        mc_world_destroy(w);
        return MC_ERR_OUT_OF_MEMORY;
    }
    *out = w;
    return MC_OK;
}

static void free_contact_slot(mc_contact_slot* c)
{
    for (uint32_t k = 0; k < c->pair_count; ++k)
    {
        mc_free(c->pairs[k].regions);
    }
    mc_free(c->pairs);
    c->pairs = NULL;
    c->pair_count = 0;
}

void mc_world_destroy(mc_world* w)
{
    if (w == NULL)
    {
        return;
    }
    for (uint32_t i = 0; i < w->body_slots; ++i)
    {
        if (w->bodies[i].own_mesh != NULL)
        {
            mc_mesh_destroy(w->bodies[i].own_mesh);
        }
    }
    for (uint32_t i = 0; i < w->contact_slots; ++i)
    {
        free_contact_slot(&w->contacts[i]);
    }
    if (w->workspaces != NULL)
    {
        for (int i = 0; i < w->worker_count; ++i)
        {
            mc_workspace_destroy(w->workspaces[i]);
        }
    }
    mc_free(w->workspaces);
    mc_free(w->bodies);
    mc_free(w->contacts);
    mc_free(w->active);
    mc_free(w->records);
    mc_free(w);
}

static mc_body* get_body(const mc_world* w, mc_body_id id)
{
    if (w == NULL || id.index1 <= 0 || (uint32_t)id.index1 > w->body_slots)
    {
        return NULL;
    }
    mc_body* b = &w->bodies[id.index1 - 1];
    return b->alive && b->generation == id.generation ? b : NULL;
}

static mc_contact_slot* get_contact(const mc_world* w, mc_contact_id id)
{
    if (w == NULL || id.index1 <= 0 || (uint32_t)id.index1 > w->contact_slots)
    {
        return NULL;
    }
    mc_contact_slot* c = &w->contacts[id.index1 - 1];
    return c->alive && c->generation == id.generation ? c : NULL;
}

// A copy of `mesh` whose solid is the other side of the surface (Adams FLIP_GEOMETRY).
static mc_mesh* make_flipped(const mc_mesh* mesh)
{
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = (const double*)mc_mesh_get_positions(mesh);
    md.position_stride = sizeof(mc_vec3);
    md.vertex_count = mc_mesh_get_vertex_count(mesh);
    md.indices = mc_mesh_get_indices(mesh);
    md.triangle_count = mc_mesh_get_triangle_count(mesh);
    // A flipped mesh is stored inward-wound; creation reorients it outward, so flipping it back means flip = false.
    md.flip = !mc_mesh_get_report(mesh)->flipped;
    mc_mesh* out = NULL;
    if (mc_mesh_create(&md, &out, NULL, NULL) != MC_OK)
    {
        return NULL;
    }
    return out;
}

mc_body_id mc_world_create_body(mc_world* w, const mc_body_def* def)
{
    MC_ASSERT(w != NULL && def != NULL);
    if (w == NULL || def == NULL || def->internal_value != WORLD_COOKIE)
    {
        MC_ASSERT(def == NULL || def->internal_value == WORLD_COOKIE);
        mc_log("mc_world_create_body: NULL world or def, or def not from mc_default_body_def()");
        return mc_null_body_id;
    }
    MC_ASSERT(!w->evaluating);
    if (def->mesh == NULL || !mc_pose_is_valid(&def->pose) || !twist_ok(&def->velocity))
    {
        mc_log("mc_world_create_body: NULL mesh, or non-finite pose or velocity");
        return mc_null_body_id;
    }
    uint32_t index;
    if (w->body_free >= 0)
    {
        index = (uint32_t)w->body_free;
    }
    else
    {
        if (w->body_slots == (uint32_t)INT32_MAX ||
            !mc_array_reserve((void**)&w->bodies, &w->body_capacity, w->body_slots + 1, sizeof *w->bodies, 4))
        {
            mc_log("mc_world_create_body: out of memory");
            return mc_null_body_id;
        }
        index = w->body_slots;
        memset(&w->bodies[index], 0, sizeof w->bodies[index]);
    }
    mc_mesh* own = NULL;
    if (def->flip)
    {
        own = make_flipped(def->mesh);
        if (own == NULL)
        {
            mc_log("mc_world_create_body: could not make the flipped copy of the mesh");
            return mc_null_body_id;
        }
    }
    if (index == w->body_slots)
    {
        w->body_slots++;
    }
    else
    {
        w->body_free = w->bodies[index].next_free;
    }
    mc_body* b = &w->bodies[index];
    uint32_t gen = b->generation + 1;
    memset(b, 0, sizeof *b);
    b->generation = gen == 0 ? 1 : gen;
    b->mesh = own != NULL ? own : def->mesh;
    b->own_mesh = own;
    b->pose = pose_normalized(&def->pose);
    b->velocity = def->velocity;
    b->user_data = def->user_data;
    b->unbounded = mc_mesh_get_report(b->mesh)->flipped;
    // Region blocks now, not in the first evaluation (a failure only means region queries work face by face).
    if (mc_mesh_prepare_regions(b->mesh) != MC_OK)
    {
        mc_log("mc_world_create_body: no memory for the mesh's region blocks; its regions are summed face by face");
    }
    b->alive = true;
    b->next_free = -1;
    mc_body_id id = {(int32_t)index + 1, b->generation};
    return id;
}

void mc_world_destroy_body(mc_world* w, mc_body_id id)
{
    mc_body* b = get_body(w, id);
    if (b == NULL)
    {
        return;
    }
    MC_ASSERT(!w->evaluating);
    if (b->own_mesh != NULL)
    {
        mc_mesh_destroy(b->own_mesh);
    }
    uint32_t gen = b->generation;
    memset(b, 0, sizeof *b);
    b->generation = gen; // bumped again on reuse; pairs holding `gen` see the body as gone while alive is false
    b->next_free = w->body_free;
    w->body_free = id.index1 - 1;
}

bool mc_body_is_valid(const mc_world* w, mc_body_id id)
{
    return get_body(w, id) != NULL;
}

mc_status mc_body_set_pose(mc_world* w, mc_body_id id, const mc_pose* pose)
{
    mc_body* b = get_body(w, id);
    MC_ASSERT(b != NULL && pose != NULL);
    if (b == NULL || pose == NULL || !mc_pose_is_valid(pose))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    b->pose = pose_normalized(pose);
    return MC_OK;
}

mc_status mc_body_set_velocity(mc_world* w, mc_body_id id, const mc_twist* velocity)
{
    mc_body* b = get_body(w, id);
    MC_ASSERT(b != NULL && velocity != NULL);
    if (b == NULL || velocity == NULL || !twist_ok(velocity))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    b->velocity = *velocity;
    return MC_OK;
}

mc_pose mc_body_get_pose(const mc_world* w, mc_body_id id)
{
    mc_body* b = get_body(w, id);
    return b != NULL ? b->pose : mc_pose_identity();
}

mc_twist mc_body_get_velocity(const mc_world* w, mc_body_id id)
{
    mc_body* b = get_body(w, id);
    mc_twist zero = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    return b != NULL ? b->velocity : zero;
}

mc_wrench mc_body_get_wrench(const mc_world* w, mc_body_id id)
{
    mc_body* b = get_body(w, id);
    mc_wrench zero = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    return b != NULL ? b->wrench : zero;
}

void* mc_body_get_user_data(const mc_world* w, mc_body_id id)
{
    mc_body* b = get_body(w, id);
    return b != NULL ? b->user_data : NULL;
}

mc_status mc_world_set_poses(mc_world* w, const mc_body_id* ids, const mc_pose* poses, uint32_t count)
{
    if (w == NULL || (count > 0 && (ids == NULL || poses == NULL)))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (get_body(w, ids[k]) == NULL || !mc_pose_is_valid(&poses[k]))
        {
            MC_ASSERT(false && "mc_world_set_poses: invalid id or non-finite pose");
            return MC_ERR_INVALID_ARGUMENT;
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        w->bodies[ids[k].index1 - 1].pose = pose_normalized(&poses[k]);
    }
    return MC_OK;
}

mc_status mc_world_set_velocities(mc_world* w, const mc_body_id* ids, const mc_twist* velocities, uint32_t count)
{
    if (w == NULL || (count > 0 && (ids == NULL || velocities == NULL)))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (get_body(w, ids[k]) == NULL || !twist_ok(&velocities[k]))
        {
            MC_ASSERT(false && "mc_world_set_velocities: invalid id or non-finite velocity");
            return MC_ERR_INVALID_ARGUMENT;
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        w->bodies[ids[k].index1 - 1].velocity = velocities[k];
    }
    return MC_OK;
}

void mc_world_get_wrenches(const mc_world* w, const mc_body_id* ids, mc_wrench* out, uint32_t count)
{
    if (ids == NULL || out == NULL)
    {
        return;
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        out[k] = mc_body_get_wrench(w, ids[k]);
    }
}

mc_status mc_world_create_contact(mc_world* w, const mc_contact_def* def, mc_contact_id* out, mc_error* err)
{
    if (w == NULL || def == NULL || out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_world_create_contact: NULL argument");
    }
    MC_ASSERT(!w->evaluating);
    if (def->internal_value != WORLD_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "contact def was not initialised with mc_default_contact_def()");
    }
    if (def->i_count == 0 || def->j_count == 0 || def->i_bodies == NULL || def->j_bodies == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "a contact needs at least one I body and one J body (IGEOM and JGEOM lists)");
    }
    mc_status s = mc_force_model_check(&def->model, err);
    if (s != MC_OK)
    {
        return s;
    }
    uint64_t n = 0;
    for (uint32_t a = 0; a < def->i_count; ++a)
    {
        if (get_body(w, def->i_bodies[a]) == NULL)
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "I body %u of the contact is not a valid body",
                                a);
        }
    }
    for (uint32_t b = 0; b < def->j_count; ++b)
    {
        if (get_body(w, def->j_bodies[b]) == NULL)
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "J body %u of the contact is not a valid body",
                                b);
        }
    }
    for (uint32_t a = 0; a < def->i_count; ++a)
    {
        for (uint32_t b = 0; b < def->j_count; ++b)
        {
            n += def->i_bodies[a].index1 != def->j_bodies[b].index1;
        }
    }
    uint64_t total = (uint64_t)w->active_capacity + n;
    if (n > UINT32_MAX || total > UINT32_MAX)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "too many contact pairs");
    }
    uint32_t index;
    if (w->contact_free >= 0)
    {
        index = (uint32_t)w->contact_free;
    }
    else
    {
        if (w->contact_slots == (uint32_t)INT32_MAX ||
            !mc_array_reserve((void**)&w->contacts, &w->contact_capacity, w->contact_slots + 1, sizeof *w->contacts, 4))
        {
            return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
        }
        index = w->contact_slots;
        memset(&w->contacts[index], 0, sizeof w->contacts[index]);
    }
    mc_pair* pairs = n > 0 ? mc_calloc((size_t)n, sizeof *pairs) : NULL;
    mc_pair** active = n > 0 ? mc_realloc(w->active, (size_t)total * sizeof *active) : w->active;
    if (n > 0 && (pairs == NULL || active == NULL))
    {
        mc_free(pairs);
        if (active != NULL)
        {
            w->active = active; // the larger array is fine to keep; the capacity count stays conservative
        }
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    w->active = active;
    w->active_capacity = (uint32_t)total;
    uint32_t k = 0;
    for (uint32_t a = 0; a < def->i_count; ++a)
    {
        for (uint32_t b = 0; b < def->j_count; ++b)
        {
            mc_body_id bi = def->i_bodies[a];
            mc_body_id bj = def->j_bodies[b];
            if (bi.index1 == bj.index1)
            {
                continue;
            }
            pairs[k].body_i = (uint32_t)bi.index1 - 1;
            pairs[k].body_j = (uint32_t)bj.index1 - 1;
            pairs[k].gen_i = bi.generation;
            pairs[k].gen_j = bj.generation;
            pairs[k].contact = index;
            ++k;
        }
    }
    if (index == w->contact_slots)
    {
        w->contact_slots++;
    }
    else
    {
        w->contact_free = w->contacts[index].next_free;
    }
    mc_contact_slot* c = &w->contacts[index];
    uint32_t gen = c->generation + 1;
    memset(c, 0, sizeof *c);
    c->generation = gen == 0 ? 1 : gen;
    c->model = def->model;
    c->user_data = def->user_data;
    c->pairs = pairs;
    c->pair_count = k;
    c->alive = true;
    c->next_free = -1;
    out->index1 = (int32_t)index + 1;
    out->generation = c->generation;
    return MC_OK;
}

void mc_world_destroy_contact(mc_world* w, mc_contact_id id)
{
    mc_contact_slot* c = get_contact(w, id);
    if (c == NULL)
    {
        return;
    }
    MC_ASSERT(!w->evaluating);
    free_contact_slot(c);
    uint32_t gen = c->generation;
    memset(c, 0, sizeof *c);
    c->generation = gen;
    c->next_free = w->contact_free;
    w->contact_free = id.index1 - 1;
}

bool mc_contact_is_valid(const mc_world* w, mc_contact_id id)
{
    return get_contact(w, id) != NULL;
}

void* mc_contact_get_user_data(const mc_world* w, mc_contact_id id)
{
    mc_contact_slot* c = get_contact(w, id);
    return c != NULL ? c->user_data : NULL;
}

mc_status mc_contact_set_model(mc_world* w, mc_contact_id id, const mc_force_model* model, mc_error* err)
{
    mc_contact_slot* c = get_contact(w, id);
    if (c == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "invalid contact id");
    }
    mc_status s = mc_force_model_check(model, err);
    if (s == MC_OK)
    {
        c->model = *model;
    }
    return s;
}

void mc_world_set_analysis(mc_world* w, mc_analysis analysis)
{
    if (w != NULL && (analysis == MC_ANALYSIS_DYNAMIC || analysis == MC_ANALYSIS_STATIC))
    {
        w->analysis = analysis;
    }
}

mc_step_info mc_world_get_step_info(const mc_world* w)
{
    mc_step_info zero;
    memset(&zero, 0, sizeof zero);
    return w != NULL ? w->info : zero;
}

mc_world_capacity mc_world_get_max_capacity(const mc_world* w)
{
    mc_world_capacity c;
    memset(&c, 0, sizeof c);
    if (w == NULL)
    {
        return c;
    }
    c = w->high_water;
    // Slots are never released (freed ones are reused), so the slot counts are their own high-water marks.
    c.body_count = w->body_slots;
    c.contact_count = w->contact_slots;
    for (int i = 0; i < w->worker_count; ++i)
    {
        size_t b = mc_workspace_get_byte_count(w->workspaces[i]);
        c.workspace_bytes = b > c.workspace_bytes ? b : c.workspace_bytes;
    }
    return c;
}

uint32_t mc_world_get_regions(const mc_world* w, mc_contact_region* out, uint32_t capacity)
{
    if (w == NULL)
    {
        return 0;
    }
    if (out != NULL)
    {
        uint32_t n = capacity < w->record_count ? capacity : w->record_count;
        if (n > 0)
        {
            memcpy(out, w->records, (size_t)n * sizeof *out);
        }
    }
    return w->record_count;
}

// World AABB of a body: the mesh's body-frame box, rotated (|R| applied to the half extents).
static void body_update_box(mc_body* b)
{
    const mc_mesh_report* r = mc_mesh_get_report(b->mesh);
    mc_vec3 c = mc_scale(mc_add(r->bbox_min, r->bbox_max), 0.5);
    mc_vec3 h = mc_scale(mc_sub(r->bbox_max, r->bbox_min), 0.5);
    mc_mat33 m = mc_quat_to_mat33(b->pose.q);
    mc_vec3 wc = mc_pose_transform(&b->pose, c);
    double e[3];
    for (int i = 0; i < 3; ++i)
    {
        e[i] = fabs(m.m[i][0]) * h.x + fabs(m.m[i][1]) * h.y + fabs(m.m[i][2]) * h.z;
        e[i] = e[i] * (1.0 + 1e-12) + 1e-300; // rounding of the rotation: never cull a touching pair
    }
    b->box_min = mc_v3(wc.x - e[0], wc.y - e[1], wc.z - e[2]);
    b->box_max = mc_v3(wc.x + e[0], wc.y + e[1], wc.z + e[2]);
    double pad = 1e-12 * (fabs(wc.x) + fabs(wc.y) + fabs(wc.z));
    b->box_min = mc_v3(b->box_min.x - pad, b->box_min.y - pad, b->box_min.z - pad);
    b->box_max = mc_v3(b->box_max.x + pad, b->box_max.y + pad, b->box_max.z + pad);
}

static bool boxes_overlap(const mc_body* a, const mc_body* b)
{
    if (a->unbounded || b->unbounded)
    {
        return true;
    }
    return a->box_min.x <= b->box_max.x && b->box_min.x <= a->box_max.x && a->box_min.y <= b->box_max.y &&
           b->box_min.y <= a->box_max.y && a->box_min.z <= b->box_max.z && b->box_min.z <= a->box_max.z;
}

typedef struct query_ctx
{
    mc_world* w;
    int inner_workers;
} query_ctx;

static void query_pair(mc_world* w, mc_pair* p, mc_workspace* ws, int workers)
{
    const mc_body* bi = &w->bodies[p->body_i];
    const mc_body* bj = &w->bodies[p->body_j];
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    opt.depth_method = w->depth_method;
    memset(&p->stats, 0, sizeof p->stats);
    uint32_t count = 0;
    p->status = mc_query_regions(bi->mesh, &bi->pose, bj->mesh, &bj->pose, &opt, ws, p->regions, p->region_capacity,
                                 &count, &p->stats);
    p->region_count = (p->status == MC_OK || p->status == MC_ERR_CAPACITY) ? count : 0;
}

static void query_task(uint32_t begin, uint32_t end, int worker, void* vctx)
{
    query_ctx* ctx = vctx;
    for (uint32_t k = begin; k < end; ++k)
    {
        query_pair(ctx->w, ctx->w->active[k], ctx->w->workspaces[worker], ctx->inner_workers);
    }
}

static void clear_results(mc_world* w)
{
    for (uint32_t i = 0; i < w->body_slots; ++i)
    {
        memset(&w->bodies[i].wrench, 0, sizeof w->bodies[i].wrench);
    }
    w->record_count = 0;
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

// Stage 1, broad phase: world boxes of live bodies, then every defined pair in a fixed order; the pairs whose boxes
// overlap become the active list.
static void collect_active_pairs(mc_world* w)
{
    for (uint32_t i = 0; i < w->body_slots; ++i)
    {
        if (w->bodies[i].alive && !w->bodies[i].unbounded)
        {
            body_update_box(&w->bodies[i]);
        }
    }
    w->active_count = 0;
    for (uint32_t c = 0; c < w->contact_slots; ++c)
    {
        mc_contact_slot* cs = &w->contacts[c];
        if (!cs->alive)
        {
            continue;
        }
        for (uint32_t k = 0; k < cs->pair_count; ++k)
        {
            mc_pair* p = &cs->pairs[k];
            const mc_body* bi = &w->bodies[p->body_i];
            const mc_body* bj = &w->bodies[p->body_j];
            p->region_count = 0;
            p->status = MC_OK;
            if (!bi->alive || !bj->alive || bi->generation != p->gen_i || bj->generation != p->gen_j)
            {
                continue;
            }
            w->info.defined_pairs++;
            if (bi->unbounded && bj->unbounded)
            {
                w->info.flags |= MC_STEP_UNBOUNDED_PAIR;
                continue;
            }
            if (boxes_overlap(bi, bj))
            {
                w->active[w->active_count++] = p;
            }
        }
    }
    w->info.candidate_pairs = w->active_count;
    if (w->active_count > w->high_water.pair_count)
    {
        w->high_water.pair_count = w->active_count;
    }
}

// Stage 2, queries: parallel over the active pairs (one workspace per worker, serial queries), or one pair with the
// parallelism inside. Pairs whose region buffer was too small grow it here (serially) and are queried again; failed
// pairs are flagged and contribute nothing. @return MC_ERR_OUT_OF_MEMORY when a pair ran out of memory (then no
// pair keeps regions), else MC_OK.
static mc_status query_active_pairs(mc_world* w)
{
    query_ctx ctx = {w, 1};
    if (w->active_count == 1)
    {
        query_pair(w, w->active[0], w->workspaces[0], w->worker_count);
        int used = w->active[0]->stats.threads; // what the query ran on (a small pair stays on one thread)
        w->info.threads = used > 0 ? used : 1;
    }
    else
    {
        w->info.threads = mc_parallel_for(w->worker_count, query_task, w->active_count, 1, &ctx);
    }
    mc_status result = MC_OK;
    for (uint32_t k = 0; k < w->active_count; ++k)
    {
        mc_pair* p = w->active[k];
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
            w->active[k]->region_count = 0;
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
        mc_pair* p = w->active[k];
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
    }
    if (total > UINT32_MAX ||
        !mc_array_reserve((void**)&w->records, &w->record_capacity, (uint32_t)total, sizeof *w->records, 4))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    return MC_OK;
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
        mc_pair* p = w->active[k];
        const mc_contact_slot* cs = &w->contacts[p->contact];
        mc_body* bi = &w->bodies[p->body_i];
        mc_body* bj = &w->bodies[p->body_j];
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
            fill_record(&w->records[n++], w, p, reg, &kin, &f);
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
    }
    return status;
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
    clear_results(w);

    collect_active_pairs(w);
    double t1 = mc_now_seconds();
    mc_status st = query_active_pairs(w);
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
    double t3 = mc_now_seconds();
    w->info.seconds_broadphase = t1 - t0;
    w->info.seconds_queries = t2 - t1;
    w->info.seconds_forces = t3 - t2;
    w->info.seconds_total = t3 - t0;
    return st;
}
