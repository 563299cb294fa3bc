// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of the world API (world.h) driven by random call sequences: bodies on the shapes of
// tests/fuzz/fuzz_meshes.h (some at a fuzzer-chosen scale, some flipped), contact definitions with valid, stale and
// garbage ids and wild force-law parameters (IMPACT, POISSON, user callbacks returning anything), single and bulk
// pose and velocity setters with garbage, evaluations, region records, wrenches and counters. Checked: statuses agree
// with the documented rules (valid id and pose), every output of an evaluation is finite, the records agree with the
// step info, every pair's regions are bitwise those of mc_query_regions on the bodies' meshes (mc_body_get_mesh) on a
// new workspace (the world's history, its shared workspaces and coherence change no bit), everything is freed with the
// world, and the whole sequence run again without temporal coherence gives bitwise the same results at every
// evaluation.
//
// The world asserts on programmer errors in debug builds (STYLE S9: a bad id or a non-finite pose given to a setter)
// and takes a defined safe path in release. Giving those on purpose is part of the test, so this harness's assert hook
// lets exactly those asserts of src/world/world.c continue (the release path) and traps on every other.
#include "fuzz_meshes.h"

#include <float.h>
#include <stdlib.h>

enum
{
    MAX_BODIES = 12,
    MAX_CONTACTS = 6,
    MAX_OPS = 64,
};

static mc_mesh* s_meshes[FUZZ_SHAPE_COUNT];

static int world_assert(const char* condition, const char* file, int line)
{
    bool api_misuse = strstr(file, "world.c") != NULL &&
                      (strstr(condition, "b != NULL") != NULL || strstr(condition, "invalid id") != NULL);
    if (api_misuse)
    {
        return 0;
    }
    return fuzz_assert_trap(condition, file, line);
}

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    mc_set_assert_fcn(world_assert);
    fuzz_shapes_init();
    for (int k = 0; k < FUZZ_SHAPE_COUNT; ++k)
    {
        if (fuzz_shape_mesh(k, 1.0, false, &s_meshes[k], NULL) != MC_OK || mc_mesh_prepare_regions(s_meshes[k]))
        {
            abort();
        }
    }
    return 0;
}

// What the user force laws return: chosen by the model's user_data (an index into this table).
static const double s_user_values[] = {0.0, 1.0, 1e3, -1.0, 1e300, INFINITY, NAN, 1e-300};
enum
{
    USER_VALUE_COUNT = sizeof s_user_values / sizeof s_user_values[0]
};

static double user_normal(const mc_contact_kinematics* kin, const mc_force_model* model, void* user_data)
{
    (void)kin;
    (void)model;
    return s_user_values[(uintptr_t)user_data % USER_VALUE_COUNT];
}

static void user_friction(const mc_contact_kinematics* kin, double normal_force, const mc_force_model* model,
                          void* user_data, mc_vec3* force, mc_vec3* torque)
{
    (void)model;
    double v = s_user_values[((uintptr_t)user_data / USER_VALUE_COUNT) % USER_VALUE_COUNT];
    *force = mc_scale(kin->slip_velocity, -v * normal_force);
    *torque = mc_scale(kin->normal, v);
}

typedef struct world_state
{
    fuzz_bytes in;
    mc_world* w;
    mc_mesh* extra[2]; // meshes at a fuzzer-chosen scale (outlive the world)
    mc_body_id bodies[MAX_BODIES];
    uint32_t body_count;
    mc_depth_method depth_method; // the world's
    bool coherence;               // the world's
    mc_contact_id contacts[MAX_CONTACTS];
    uint32_t contact_count;
    bool evaluated;
    uint64_t log[MAX_OPS]; // per evaluation: a hash of its status, counts, records and wrenches
    uint32_t log_count;
} world_state;

// A body id: one of those created (alive or destroyed), the null id, or garbage.
static mc_body_id pick_body(world_state* s)
{
    uint8_t m = fuzz_u8(&s->in);
    if (m < 224 && s->body_count > 0)
    {
        return s->bodies[m % s->body_count];
    }
    if (m < 240)
    {
        return mc_null_body_id;
    }
    mc_body_id id = {(int32_t)fuzz_u32(&s->in), fuzz_u32(&s->in)};
    return id;
}

static mc_contact_id pick_contact(world_state* s)
{
    uint8_t m = fuzz_u8(&s->in);
    if (m < 224 && s->contact_count > 0)
    {
        return s->contacts[m % s->contact_count];
    }
    mc_contact_id id = {(int32_t)fuzz_u32(&s->in), fuzz_u32(&s->in)};
    return id;
}

static mc_twist fuzz_twist(fuzz_bytes* in)
{
    mc_twist t;
    if (fuzz_u8(in) < 128)
    {
        t.v = mc_v3(0, 0, 0);
        t.w = mc_v3(0, 0, 0);
        return t;
    }
    t.v = fuzz_vec3(in);
    t.w = fuzz_vec3(in);
    return t;
}

static bool twist_finite(const mc_twist* t)
{
    return fuzz_vec3_finite(t->v) && fuzz_vec3_finite(t->w);
}

// A force model: the defaults with some parameters replaced by fuzzer reals.
static mc_force_model fuzz_model(fuzz_bytes* in)
{
    mc_force_model m = mc_default_force_model();
    m.normal_law = (mc_normal_law)(fuzz_u8(in) % 3);
    m.friction = (mc_friction_mode)(fuzz_u8(in) % 3);
    uint8_t which = fuzz_u8(in);
    double* params[] = {&m.stiffness,
                        &m.exponent,
                        &m.damping,
                        &m.dmax,
                        &m.penalty,
                        &m.restitution,
                        &m.normal_transition_velocity,
                        &m.mu_static,
                        &m.mu_dynamic,
                        &m.stiction_velocity,
                        &m.friction_velocity};
    for (size_t k = 0; k < sizeof params / sizeof params[0]; ++k)
    {
        if ((which >> (k % 8)) & 1 && fuzz_bool(in))
        {
            *params[k] = fuzz_real(in);
        }
    }
    if (m.normal_law == MC_NORMAL_USER)
    {
        m.normal_fcn = user_normal;
    }
    if (fuzz_u8(in) < 64)
    {
        m.friction_fcn = user_friction;
    }
    m.user_data = (void*)(uintptr_t)fuzz_u8(in);
    return m;
}

static void op_create_body(world_state* s)
{
    mc_body_def d = mc_default_body_def();
    uint8_t k = fuzz_u8(&s->in) % (FUZZ_SHAPE_COUNT + 2);
    d.mesh = k < FUZZ_SHAPE_COUNT ? s_meshes[k] : s->extra[k - FUZZ_SHAPE_COUNT];
    d.pose = fuzz_pose(&s->in);
    d.velocity = fuzz_twist(&s->in);
    d.flip = (fuzz_u8(&s->in) & 7) == 0;
    d.user_data = (void*)(uintptr_t)(s->body_count + 1);
    mc_body_id id = mc_world_create_body(s->w, &d);
    bool ok = d.mesh != NULL && mc_pose_is_valid(&d.pose) && twist_finite(&d.velocity);
    FUZZ_CHECK(ok == (id.index1 != 0), "create_body: id %d for a %s def", id.index1, ok ? "valid" : "invalid");
    FUZZ_CHECK(!ok || mc_body_is_valid(s->w, id), "create_body: the new id is not valid");
    FUZZ_CHECK(!ok || mc_body_get_user_data(s->w, id) == d.user_data, "create_body: user data lost");
    if (ok && s->body_count < MAX_BODIES)
    {
        s->bodies[s->body_count++] = id;
    }
}

static bool distinct(const mc_body_id* ids, uint32_t n)
{
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = a + 1; b < n; ++b)
        {
            if (ids[a].index1 == ids[b].index1)
            {
                return false;
            }
        }
    }
    return true;
}

// What mc_world_create_contact accepts besides valid ids and model: no body twice in a list, a group of at least two
// bodies, lists that pair two different bodies (an excluded pair of two different listed bodies is then a pair).
static bool lists_ok(const mc_contact_def* d)
{
    if (d->mode == MC_CONTACT_GROUP)
    {
        return d->i_count >= 2 && distinct(d->i_bodies, d->i_count);
    }
    bool pairs = false;
    for (uint32_t a = 0; a < d->i_count; ++a)
    {
        for (uint32_t b = 0; b < d->j_count; ++b)
        {
            pairs = pairs || d->i_bodies[a].index1 != d->j_bodies[b].index1;
        }
    }
    return pairs && distinct(d->i_bodies, d->i_count) && distinct(d->j_bodies, d->j_count);
}

static void op_create_contact(world_state* s)
{
    mc_body_id i_ids[4], j_ids[4];
    mc_contact_def d = mc_default_contact_def();
    d.i_count = 1 + fuzz_u8(&s->in) % 4;
    d.j_count = 1 + fuzz_u8(&s->in) % 4;
    bool i_valid = true, j_valid = true;
    for (uint32_t k = 0; k < d.i_count; ++k)
    {
        i_ids[k] = pick_body(s);
        i_valid = i_valid && mc_body_is_valid(s->w, i_ids[k]);
    }
    for (uint32_t k = 0; k < d.j_count; ++k)
    {
        j_ids[k] = pick_body(s);
        j_valid = j_valid && mc_body_is_valid(s->w, j_ids[k]);
    }
    d.i_bodies = i_ids;
    d.j_bodies = j_ids;
    d.model = fuzz_model(&s->in);
    // One more byte: bit 0 makes a group of the I list, bit 1 excludes the pair of the first I and first J body (or,
    // in a group, of the first two).
    uint8_t shape = fuzz_u8(&s->in);
    bool group = (shape & 1u) != 0;
    mc_body_pair ex = {i_ids[0], group ? i_ids[d.i_count > 1 ? 1 : 0] : j_ids[0]};
    if (group)
    {
        d.mode = MC_CONTACT_GROUP;
        d.j_bodies = NULL;
        d.j_count = 0;
    }
    if ((shape & 2u) != 0)
    {
        d.excluded_pairs = &ex;
        d.excluded_count = 1;
    }
    bool ids_valid =
        i_valid && (group || j_valid) && lists_ok(&d) && (d.excluded_count == 0 || ex.a.index1 != ex.b.index1);
    mc_contact_id id = {0, 0};
    mc_error err;
    mc_status st = mc_world_create_contact(s->w, &d, &id, &err);
    bool model_ok = mc_force_model_check(&d.model, NULL) == MC_OK;
    FUZZ_CHECK((st == MC_OK) == (ids_valid && model_ok), "create_contact: status %d, ids valid %d, model ok %d",
               (int)st, ids_valid, model_ok);
    if (st == MC_OK)
    {
        FUZZ_CHECK(mc_contact_is_valid(s->w, id), "create_contact: the new id is not valid");
        if (s->contact_count < MAX_CONTACTS)
        {
            s->contacts[s->contact_count++] = id;
        }
    }
}

static void op_set_poses(world_state* s, bool bulk)
{
    uint32_t n = bulk ? fuzz_u8(&s->in) % 5 : 1;
    mc_body_id ids[4];
    mc_pose poses[4];
    bool ok = true;
    for (uint32_t k = 0; k < n; ++k)
    {
        ids[k] = pick_body(s);
        poses[k] = fuzz_pose(&s->in);
        ok = ok && mc_body_is_valid(s->w, ids[k]) && mc_pose_is_valid(&poses[k]);
    }
    mc_status st = bulk ? mc_world_set_poses(s->w, ids, poses, n) : mc_body_set_pose(s->w, ids[0], &poses[0]);
    FUZZ_CHECK((st == MC_OK) == ok, "set_pose%s: status %d for %s input", bulk ? "s" : "", (int)st,
               ok ? "valid" : "invalid");
}

static void op_set_velocities(world_state* s, bool bulk)
{
    uint32_t n = bulk ? fuzz_u8(&s->in) % 5 : 1;
    mc_body_id ids[4];
    mc_twist v[4];
    bool ok = true;
    for (uint32_t k = 0; k < n; ++k)
    {
        ids[k] = pick_body(s);
        v[k] = fuzz_twist(&s->in);
        ok = ok && mc_body_is_valid(s->w, ids[k]) && twist_finite(&v[k]);
    }
    mc_status st = bulk ? mc_world_set_velocities(s->w, ids, v, n) : mc_body_set_velocity(s->w, ids[0], &v[0]);
    FUZZ_CHECK((st == MC_OK) == ok, "set_velocit%s: status %d for %s input", bulk ? "ies" : "y", (int)st,
               ok ? "valid" : "invalid");
}

static void check_record(const mc_contact_region* r, uint32_t k)
{
    const mc_region* g = &r->region;
    FUZZ_CHECK(isfinite(g->volume) && isfinite(g->area) && isfinite(g->depth) && fuzz_vec3_finite(g->centroid) &&
                   fuzz_vec3_finite(g->normal),
               "record %u: non-finite geometry (volume %g area %g depth %g)", k, g->volume, g->area, g->depth);
    FUZZ_CHECK(isfinite(r->rate) && isfinite(r->slip_speed) && isfinite(r->spin_rate) &&
                   fuzz_vec3_finite(r->slip_velocity),
               "record %u: non-finite kinematics (rate %g slip %g spin %g)", k, r->rate, r->slip_speed, r->spin_rate);
    FUZZ_CHECK(isfinite(r->normal_force) && r->normal_force >= 0.0 && fuzz_vec3_finite(r->friction_force) &&
                   fuzz_vec3_finite(r->friction_torque) && isfinite(r->friction_coefficient),
               "record %u: force Fn %g, friction (%g %g %g), mu %g", k, r->normal_force, r->friction_force.x,
               r->friction_force.y, r->friction_force.z, r->friction_coefficient);
    FUZZ_CHECK(!r->rejected || (r->normal_force == 0.0 && r->friction_force.x == 0.0 && r->friction_force.y == 0.0 &&
                                r->friction_force.z == 0.0),
               "record %u: rejected with a force", k);
}

static void op_read(world_state* s)
{
    mc_contact_region rec[8];
    uint32_t cap = fuzz_u8(&s->in) % 9;
    uint32_t n = mc_world_get_regions(s->w, cap > 0 ? rec : NULL, cap);
    mc_step_info info = mc_world_get_step_info(s->w);
    FUZZ_CHECK(!s->evaluated || n == info.regions, "get_regions: %u records, step info %u", n, info.regions);
    FUZZ_CHECK(info.rejected_regions <= info.regions && info.touching_pairs <= info.candidate_pairs &&
                   info.candidate_pairs <= info.defined_pairs,
               "step info: rejected %u of %u regions, touching %u candidates %u defined %u", info.rejected_regions,
               info.regions, info.touching_pairs, info.candidate_pairs, info.defined_pairs);
    for (uint32_t k = 0; k < n && k < cap; ++k)
    {
        check_record(&rec[k], k);
    }
    mc_body_id ids[MAX_BODIES];
    mc_wrench wr[MAX_BODIES];
    for (uint32_t k = 0; k < s->body_count; ++k)
    {
        ids[k] = s->bodies[k];
    }
    // A destroyed body's stale id makes the whole read fail and write nothing (the world's last error names it).
    if (mc_world_get_wrenches(s->w, ids, wr, s->body_count) != MC_OK)
    {
        const mc_error* e = mc_world_get_last_error(s->w);
        FUZZ_CHECK(e->index >= 0 && e->index < (int64_t)s->body_count, "get_wrenches failed without naming an entry");
        return;
    }
    for (uint32_t k = 0; k < s->body_count; ++k)
    {
        FUZZ_CHECK(fuzz_vec3_finite(wr[k].force) && fuzz_vec3_finite(wr[k].torque),
                   "wrench of body %u: force (%g %g %g) torque (%g %g %g)", k, wr[k].force.x, wr[k].force.y,
                   wr[k].force.z, wr[k].torque.x, wr[k].torque.y, wr[k].torque.z);
    }
    (void)mc_world_get_max_capacity(s->w);
}

static uint64_t fnv(uint64_t h, const void* p, size_t n)
{
    const unsigned char* c = p;
    for (size_t k = 0; k < n; ++k)
    {
        h = (h ^ c[k]) * 1099511628211ull;
    }
    return h;
}

// Each pair's records (consecutive: by contact, I, J, then decreasing volume) against mc_query_regions of the two
// meshes (mc_body_get_mesh: a flipped body's is the world's flipped copy) at the bodies' poses on a new workspace: the
// same regions, bit for bit.
static void check_against_queries(const world_state* s, const mc_contact_region* rec, uint32_t n)
{
    for (uint32_t k = 0; k < n;)
    {
        uint32_t e = k + 1;
        while (e < n && rec[e].contact.index1 == rec[k].contact.index1 &&
               rec[e].body_i.index1 == rec[k].body_i.index1 && rec[e].body_j.index1 == rec[k].body_j.index1)
        {
            ++e;
        }
        const mc_mesh* mi = mc_body_get_mesh(s->w, rec[k].body_i);
        const mc_mesh* mj = mc_body_get_mesh(s->w, rec[k].body_j);
        FUZZ_CHECK(mi != NULL && mj != NULL, "evaluation %u: a record's body without its mesh", s->log_count);
        mc_pose pi = mc_body_get_pose(s->w, rec[k].body_i), pj = mc_body_get_pose(s->w, rec[k].body_j);
        mc_query_options opt = mc_default_query_options();
        opt.worker_count = 1;
        opt.depth_method = s->depth_method;
        mc_workspace* ws = NULL;
        mc_region* q = malloc((e - k) * sizeof *q); // room for the world's count: more is MC_ERR_CAPACITY
        if (mc_workspace_create(&ws) != MC_OK || q == NULL)
        {
            abort();
        }
        uint32_t count = 0;
        mc_status st = mc_query_regions(mi, &pi, mj, &pj, &opt, ws, q, e - k, &count, NULL);
        mc_workspace_destroy(ws);
        FUZZ_CHECK(st == MC_OK && count == e - k,
                   "evaluation %u: bodies %d and %d have %u regions in the world, the query on a new workspace %u "
                   "(status %d)",
                   s->log_count, rec[k].body_i.index1, rec[k].body_j.index1, e - k, count, (int)st);
        for (uint32_t r = k; r < e; ++r)
        {
            FUZZ_CHECK(memcmp(&rec[r].region, &q[r - k], sizeof q[0]) == 0,
                       "evaluation %u: bodies %d and %d, region %u: volume %a in the world, %a from the query on a "
                       "new workspace",
                       s->log_count, rec[k].body_i.index1, rec[k].body_j.index1, r - k, rec[r].region.volume,
                       q[r - k].volume);
        }
        free(q);
        k = e;
    }
}

// What an evaluation gave, as one hash: status, candidate and region counts, every record and every wrench.
static void log_evaluation(world_state* s, mc_status st)
{
    mc_step_info info = mc_world_get_step_info(s->w);
    uint64_t h = fnv(1469598103934665603ull, &st, sizeof st);
    h = fnv(h, &info.candidate_pairs, sizeof info.candidate_pairs);
    h = fnv(h, &info.regions, sizeof info.regions);
    uint32_t n = mc_world_get_regions(s->w, NULL, 0);
    mc_contact_region* rec = n > 0 ? malloc(n * sizeof *rec) : NULL;
    if (n > 0 && rec == NULL)
    {
        abort();
    }
    n = mc_world_get_regions(s->w, rec, n);
    h = fnv(h, rec, n * sizeof *rec);
    if (s->coherence)
    {
        check_against_queries(s, rec, n); // the run without coherence must give the same hashes: checked once
    }
    free(rec);
    for (uint32_t k = 0; k < s->body_count; ++k)
    {
        mc_wrench wr = mc_body_get_wrench(s->w, s->bodies[k]);
        h = fnv(h, &wr, sizeof wr);
    }
    s->log[s->log_count++] = h;
}

static void op_getters(world_state* s)
{
    mc_body_id b = pick_body(s);
    bool valid = mc_body_is_valid(s->w, b);
    mc_pose p = mc_body_get_pose(s->w, b);
    mc_twist v = mc_body_get_velocity(s->w, b);
    mc_wrench wr = mc_body_get_wrench(s->w, b);
    FUZZ_CHECK(mc_pose_is_valid(&p) && twist_finite(&v) && fuzz_vec3_finite(wr.force) && fuzz_vec3_finite(wr.torque),
               "getters: a non-finite pose, velocity or wrench (body valid %d)", valid);
    FUZZ_CHECK(valid || mc_body_get_user_data(s->w, b) == NULL, "getters: user data of an invalid body");
    mc_contact_id c = pick_contact(s);
    FUZZ_CHECK(mc_contact_is_valid(s->w, c) || mc_contact_get_user_data(s->w, c) == NULL,
               "getters: user data of an invalid contact");
}

static void run_op(world_state* s, uint8_t op)
{
    switch (op % 14)
    {
    case 0:
    case 1:
        op_create_body(s);
        break;
    case 2:
        mc_world_destroy_body(s->w, pick_body(s));
        break;
    case 3:
        op_create_contact(s);
        break;
    case 4:
        mc_world_destroy_contact(s->w, pick_contact(s));
        break;
    case 5:
        op_set_poses(s, false);
        break;
    case 6:
        op_set_poses(s, true);
        break;
    case 7:
        op_set_velocities(s, fuzz_bool(&s->in));
        break;
    case 8:
    case 9:
    {
        mc_status st = mc_world_evaluate(s->w);
        mc_step_info info = mc_world_get_step_info(s->w);
        // A force law that overflows at this state (wild parameters, velocities or user callbacks) fails the
        // evaluation with MC_STEP_NON_FINITE and empty results; anything else is an error.
        FUZZ_CHECK(st == MC_OK || (st == MC_ERR_OUT_OF_RANGE && (info.flags & MC_STEP_NON_FINITE) != 0 &&
                                   mc_world_get_regions(s->w, NULL, 0) == 0),
                   "evaluate: status %d, flags %#x", (int)st, info.flags);
        s->evaluated = true;
        log_evaluation(s, st);
        op_read(s);
        break;
    }
    case 10:
        op_read(s);
        break;
    case 11:
    {
        mc_contact_id c = pick_contact(s);
        mc_force_model m = fuzz_model(&s->in);
        mc_status st = mc_contact_set_model(s->w, c, &m, NULL);
        bool ok = mc_contact_is_valid(s->w, c) && mc_force_model_check(&m, NULL) == MC_OK;
        FUZZ_CHECK((st == MC_OK) == ok, "set_model: status %d for %s input", (int)st, ok ? "valid" : "invalid");
        break;
    }
    case 12:
        mc_world_set_analysis(s->w, (mc_analysis)(fuzz_u8(&s->in) & 1));
        break;
    default:
        op_getters(s);
        break;
    }
}

// One run of the input's call sequence on a world with or without temporal coherence; its evaluations' hashes go to
// log (at most MAX_OPS).
static uint32_t run_world(const uint8_t* data, size_t size, bool coherence, uint64_t* log)
{
    world_state s;
    memset(&s, 0, sizeof s);
    s.in = (fuzz_bytes){data, size};
    int64_t bytes0 = mc_get_byte_count();
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = fuzz_u8(&s.in) % 3;
    wd.depth_method = (mc_depth_method)(fuzz_u8(&s.in) % 3);
    wd.body_capacity = fuzz_u8(&s.in) % 4;
    wd.contact_capacity = fuzz_u8(&s.in) % 4;
    wd.region_capacity = fuzz_u8(&s.in) % 4;
    wd.coherence = coherence;
    s.depth_method = wd.depth_method;
    s.coherence = coherence;
    for (int k = 0; k < 2; ++k)
    {
        if (fuzz_u8(&s.in) < 64)
        {
            int shape = fuzz_u8(&s.in) % FUZZ_SHAPE_COUNT;
            double scale = fuzz_scale(&s.in);
            (void)fuzz_shape_mesh(shape, scale, false, &s.extra[k], NULL);
        }
    }
    if (mc_world_create(&wd, &s.w) != MC_OK)
    {
        abort();
    }
    for (int k = 0; k < MAX_OPS && s.in.n > 0; ++k)
    {
        run_op(&s, fuzz_u8(&s.in));
    }
    mc_world_destroy(s.w);
    mc_mesh_destroy(s.extra[0]);
    mc_mesh_destroy(s.extra[1]);
    fuzz_check_bytes(bytes0, "world");
    memcpy(log, s.log, s.log_count * sizeof *log);
    return s.log_count;
}

// The same call sequence twice: with temporal coherence (traversal fronts, certificates, region plans, the broad
// phase's kept pairs) and without; every evaluation must give bitwise the same results (mc_world_evaluate's promise).
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    uint64_t warm[MAX_OPS], cold[MAX_OPS];
    uint32_t nw = run_world(data, size, true, warm);
    uint32_t nc = run_world(data, size, false, cold);
    FUZZ_CHECK(nw == nc, "coherence on and off: %u and %u evaluations", nw, nc);
    for (uint32_t k = 0; k < nw && k < nc; ++k)
    {
        FUZZ_CHECK(warm[k] == cold[k], "evaluation %u: results differ with and without coherence", k);
    }
    return 0;
}
