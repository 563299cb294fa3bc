// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The world: body and contact slots with generations, body state setters and getters, world creation and
// destruction (contact definitions: world_contact.c; evaluation: world_evaluate.c, broad phase: broadphase.c).
#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/contact/regions.h"
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

// Record the failure of `fn` on body `id` (entry `index` of a list, or -1): the id's problem if it has one, else
// `other` (the value's problem). @return MC_ERR_INVALID_ARGUMENT
static mc_status body_fail(const mc_world* w, mc_body_id id, int64_t index, const char* fn, const char* other)
{
    char buf[96];
    const char* why = w != NULL ? mc_world_body_problem(w, id, buf, sizeof buf) : "NULL world";
    return mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, index, fn, "%s",
                         why != NULL     ? why
                         : other != NULL ? other
                                         : "invalid argument");
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
    d.coherence = true;
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
    d.depth_method = MC_DEPTH_DEFAULT;
    d.internal_value = WORLD_COOKIE;
    return d;
}

mc_status mc_world_create(const mc_world_def* def, mc_world** out)
{
    MC_ASSERT(def != NULL && out != NULL);
    if (def == NULL || out == NULL || mc_world_def_check(def, NULL) != MC_OK)
    {
        MC_ASSERT(def == NULL || def->internal_value == WORLD_COOKIE);
        return MC_ERR_INVALID_ARGUMENT; // mc_world_def_check says why
    }
    mc_world* w = mc_calloc(1, sizeof *w);
    if (w == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    w->worker_count = mc_parallel_worker_count(def->worker_count);
    w->depth_method = def->depth_method;
    w->coherence = def->coherence;
    w->analysis = MC_ANALYSIS_DYNAMIC;
    w->body_free = -1;
    w->contact_free = -1;
    w->stiction.world_uid = mc_stiction_new_world_uid();
    mc_world_clear_error(w);
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
            mc_mesh_add_user(w->bodies[i].source_mesh, -1);
        }
        else if (w->bodies[i].alive && w->bodies[i].mesh != NULL)
        {
            mc_mesh_add_user(w->bodies[i].mesh, -1);
        }
        mc_free(w->bodies[i].members);
    }
    for (uint32_t i = 0; i < w->contact_slots; ++i)
    {
        mc_contact_slot_free(&w->contacts[i]);
    }
    for (uint32_t i = 0; i < w->pair_slots; ++i)
    {
        mc_free(w->pairs[i].regions);
        mc_pair_front_destroy(w->pairs[i].front);
        mc_region_plan_destroy(w->pairs[i].plan);
        mc_pair_patches_destroy(w->pairs[i].patches);
    }
    mc_free(w->pairs);
    mc_free(w->pair_free);
    mc_free(w->found);
    mc_free(w->todo);
    mc_broadphase_free(&w->bp);
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
    mc_stiction_free(&w->stiction);
    mc_host_state_free(&w->host);
    mc_free(w);
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

#define CREATE_BODY "mc_world_create_body"

mc_body_id mc_world_create_body(mc_world* w, const mc_body_def* def)
{
    MC_ASSERT(w != NULL && def != NULL);
    if (w == NULL || def == NULL || def->internal_value != WORLD_COOKIE)
    {
        MC_ASSERT(def == NULL || def->internal_value == WORLD_COOKIE);
        mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, CREATE_BODY, "%s",
                      w == NULL     ? "NULL world"
                      : def == NULL ? "NULL def"
                                    : "def not from mc_default_body_def()");
        return mc_null_body_id;
    }
    MC_ASSERT(!w->evaluating);
    const char* problem = mc_body_shape_problem(def);
    const char* pose_problem = mc_world_pose_problem(&def->pose);
    if (problem != NULL || pose_problem != NULL || !twist_ok(&def->velocity))
    {
        mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, CREATE_BODY, "%s%s",
                      problem != NULL        ? problem
                      : pose_problem != NULL ? "pose: "
                                             : "non-finite velocity",
                      problem == NULL && pose_problem != NULL ? pose_problem : "");
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
            mc_world_fail(w, MC_ERR_OUT_OF_MEMORY, -1, CREATE_BODY, "out of memory for %u body slots",
                          w->body_slots + 1);
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
            mc_world_fail(w, MC_ERR_OUT_OF_MEMORY, -1, CREATE_BODY,
                          "could not make the flipped copy of the mesh (out of memory)");
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
    if (own != NULL)
    {
        b->source_mesh = def->mesh;
        b->source_version = mc_mesh_get_deform_info(def->mesh).version;
        uint32_t nv = mc_mesh_get_vertex_count(def->mesh);
        b->source_numbering =
            mc_mesh_get_vertex_count(own) == nv &&
            memcmp(mc_mesh_get_positions(own), mc_mesh_get_positions(def->mesh), (size_t)nv * sizeof(mc_vec3)) == 0;
        mc_mesh_add_user(def->mesh, +1); // the copy follows its deformations: mc_mesh_destroy refuses meanwhile
    }
    b->shape = def->shape;
    b->pose = pose_normalized(&def->pose);
    b->velocity = def->velocity;
    b->user_data = def->user_data;
    if (b->mesh == NULL)
    {
        mc_body_init_shape_bounds(b); // an analytic body
    }
    else
    {
        b->unbounded = mc_mesh_get_report(b->mesh)->flipped;
        if (!b->unbounded)
        {
            mc_body_init_bounds(b);
        }
        b->mesh_version = mc_mesh_get_deform_info(b->mesh).version;
        // Region blocks now, not in the first evaluation (a failure only means region queries work face by face).
        if (mc_mesh_prepare_regions(b->mesh) != MC_OK)
        {
            mc_log("mc_world_create_body: no memory for the mesh's region blocks; its regions are summed face by "
                   "face");
        }
    }
    if (b->mesh != NULL && own == NULL)
    {
        mc_mesh_add_user(b->mesh, +1); // mc_mesh_destroy refuses while the body lives
    }
    b->alive = true;
    b->next_free = -1;
    mc_world_structure_changed(w);
    mc_body_id id = {(int32_t)index + 1, b->generation};
    return id;
}

void mc_world_destroy_body(mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    if (b == NULL)
    {
        if (w != NULL)
        {
            (void)body_fail(w, id, -1, "mc_world_destroy_body", NULL); // nothing destroyed: the last error says why
        }
        return;
    }
    MC_ASSERT(!w->evaluating);
    if (b->own_mesh != NULL)
    {
        mc_mesh_destroy(b->own_mesh);
        mc_mesh_add_user(b->source_mesh, -1);
    }
    else if (b->mesh != NULL)
    {
        mc_mesh_add_user(b->mesh, -1);
    }
    mc_free(b->members); // the contacts that list it keep its old generation and skip it
    mc_world_structure_changed(w);
    uint32_t gen = b->generation;
    memset(b, 0, sizeof *b);
    b->generation = gen; // bumped again on reuse; pairs holding `gen` see the body as gone while alive is false
    b->next_free = w->body_free;
    w->body_free = id.index1 - 1;
}

bool mc_body_is_valid(const mc_world* w, mc_body_id id)
{
    return mc_world_body(w, id) != NULL;
}

mc_status mc_body_set_pose(mc_world* w, mc_body_id id, const mc_pose* pose)
{
    mc_body* b = mc_world_body(w, id);
    MC_ASSERT(b != NULL && pose != NULL);
    if (b == NULL || pose == NULL || !mc_pose_is_valid(pose))
    {
        return body_fail(w, id, -1, "mc_body_set_pose", pose == NULL ? "NULL pose" : mc_world_pose_problem(pose));
    }
    mc_pose p = pose_normalized(pose);
    w->candidates_valid = w->candidates_valid && memcmp(&p, &b->pose, sizeof p) == 0;
    w->stiction.ready = false;
    b->pose = p;
    return MC_OK;
}

mc_status mc_body_set_velocity(mc_world* w, mc_body_id id, const mc_twist* velocity)
{
    mc_body* b = mc_world_body(w, id);
    MC_ASSERT(b != NULL && velocity != NULL);
    if (b == NULL || velocity == NULL || !twist_ok(velocity))
    {
        return body_fail(w, id, -1, "mc_body_set_velocity",
                         velocity == NULL ? "NULL velocity" : "the velocity is not finite");
    }
    b->velocity = *velocity;
    w->stiction.ready = false;
    return MC_OK;
}

mc_pose mc_body_get_pose(const mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    if (b == NULL)
    {
        body_fail(w, id, -1, "mc_body_get_pose", NULL);
    }
    return b != NULL ? b->pose : mc_pose_identity();
}

mc_twist mc_body_get_velocity(const mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    mc_twist zero = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    if (b == NULL)
    {
        body_fail(w, id, -1, "mc_body_get_velocity", NULL);
    }
    return b != NULL ? b->velocity : zero;
}

mc_wrench mc_body_get_wrench(const mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    mc_wrench zero = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    if (b == NULL)
    {
        body_fail(w, id, -1, "mc_body_get_wrench", NULL);
    }
    return b != NULL ? b->wrench : zero;
}

void* mc_body_get_user_data(const mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    if (b == NULL)
    {
        body_fail(w, id, -1, "mc_body_get_user_data", NULL);
    }
    return b != NULL ? b->user_data : NULL;
}

const mc_mesh* mc_body_get_mesh(const mc_world* w, mc_body_id id)
{
    mc_body* b = mc_world_body(w, id);
    if (b == NULL)
    {
        body_fail(w, id, -1, "mc_body_get_mesh", NULL);
    }
    return b != NULL ? b->mesh : NULL;
}

mc_status mc_world_set_poses(mc_world* w, const mc_body_id* ids, const mc_pose* poses, uint32_t count)
{
    if (w == NULL || (count > 0 && (ids == NULL || poses == NULL)))
    {
        return mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_set_poses", "NULL %s",
                             w == NULL     ? "world"
                             : ids == NULL ? "ids"
                                           : "poses");
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (mc_world_body(w, ids[k]) == NULL || !mc_pose_is_valid(&poses[k]))
        {
            MC_ASSERT(false && "mc_world_set_poses: invalid id or non-finite pose");
            return body_fail(w, ids[k], k, "mc_world_set_poses", mc_world_pose_problem(&poses[k]));
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        mc_pose p = pose_normalized(&poses[k]);
        mc_body* b = &w->bodies[ids[k].index1 - 1];
        w->candidates_valid = w->candidates_valid && memcmp(&p, &b->pose, sizeof p) == 0;
        w->stiction.ready = false;
        b->pose = p;
    }
    return MC_OK;
}

mc_status mc_world_set_velocities(mc_world* w, const mc_body_id* ids, const mc_twist* velocities, uint32_t count)
{
    if (w == NULL || (count > 0 && (ids == NULL || velocities == NULL)))
    {
        return mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_set_velocities", "NULL %s",
                             w == NULL     ? "world"
                             : ids == NULL ? "ids"
                                           : "velocities");
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (mc_world_body(w, ids[k]) == NULL || !twist_ok(&velocities[k]))
        {
            MC_ASSERT(false && "mc_world_set_velocities: invalid id or non-finite velocity");
            return body_fail(w, ids[k], k, "mc_world_set_velocities",
                             twist_ok(&velocities[k]) ? NULL : "the velocity is not finite");
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        w->bodies[ids[k].index1 - 1].velocity = velocities[k];
        w->stiction.ready = false;
    }
    return MC_OK;
}

mc_status mc_world_get_wrenches(const mc_world* w, const mc_body_id* ids, mc_wrench* out, uint32_t count)
{
    if (w == NULL || (count > 0 && (ids == NULL || out == NULL)))
    {
        return mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_get_wrenches", "NULL %s",
                             w == NULL     ? "world"
                             : ids == NULL ? "ids"
                                           : "out");
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (mc_world_body(w, ids[k]) == NULL)
        {
            return body_fail(w, ids[k], k, "mc_world_get_wrenches", NULL); // nothing written
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        out[k] = w->bodies[ids[k].index1 - 1].wrench;
    }
    return MC_OK;
}

void mc_world_destroy_contact(mc_world* w, mc_contact_id id)
{
    mc_contact_slot* c = mc_world_contact(w, id);
    if (c == NULL)
    {
        if (w != NULL)
        {
            (void)mc_world_fail(w, MC_ERR_INVALID_ARGUMENT, -1, "mc_world_destroy_contact", "%s",
                                id.index1 == 0 ? "null contact id (a failed mc_world_create_contact?)"
                                               : "stale or unknown contact id: nothing destroyed");
        }
        return;
    }
    MC_ASSERT(!w->evaluating);
    mc_contact_unlink(w, (uint32_t)id.index1 - 1);
    mc_world_structure_changed(w);
    mc_contact_slot_free(c);
    uint32_t gen = c->generation;
    memset(c, 0, sizeof *c);
    c->generation = gen;
    c->next_free = w->contact_free;
    w->contact_free = id.index1 - 1;
}

bool mc_contact_is_valid(const mc_world* w, mc_contact_id id)
{
    return mc_world_contact(w, id) != NULL;
}

void* mc_contact_get_user_data(const mc_world* w, mc_contact_id id)
{
    mc_contact_slot* c = mc_world_contact(w, id);
    return c != NULL ? c->user_data : NULL;
}

mc_status mc_contact_set_model(mc_world* w, mc_contact_id id, const mc_force_model* model, mc_error* err)
{
    mc_contact_slot* c = mc_world_contact(w, id);
    mc_error local;
    err = err != NULL ? err : &local;
    if (c == NULL)
    {
        mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s",
                     w == NULL ? "NULL world" : "invalid contact id (null, stale or of another world)");
        return mc_world_record(w, "mc_contact_set_model", err);
    }
    mc_status s = mc_force_model_check(model, err);
    if (s == MC_OK)
    {
        c->model = *model;
        w->stiction.ready = false;
    }
    return s == MC_OK ? s : mc_world_record(w, "mc_contact_set_model", err);
}

void mc_world_set_analysis(mc_world* w, mc_analysis analysis)
{
    if (w != NULL && (analysis == MC_ANALYSIS_DYNAMIC || analysis == MC_ANALYSIS_STATIC))
    {
        w->analysis = analysis;
        w->stiction.ready = false;
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
