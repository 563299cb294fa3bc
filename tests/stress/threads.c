// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Concurrency stress, run under ThreadSanitizer by tests/stress/tsan.sh: host threads querying shared meshes with
// their own workspaces, worlds sharing those meshes evaluated in parallel, the lazy region-block build of fresh meshes
// raced by every thread at once, each with the library's worker_count 1..4. Every result must be bitwise equal to a
// single-threaded reference computed first (the determinism promise); any difference exits 1. A plain C program:
// Criterion does not start under ThreadSanitizer.
//
// usage: threads [--rounds N] [--iterations N]   the stress (defaults: 8 fresh-mesh rounds, 3 passes per phase)
//        threads --canary                          a deliberate race on the library's OpenMP workers: ThreadSanitizer
//                                                  must report it (tsan.sh checks that the tool sees such races)
#include "mesh/mesh_internal.h"
#include "meshcontact/meshcontact.h"
#include "src/base/parallel.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
    QUERY_THREADS = 4,   // host threads running stateless queries
    WORLD_THREADS = 4,   // host threads each evaluating its own worlds (worker_count 1, 2, 3, 4)
    MAX_WORKERS = 4,     // worker_count runs over 1 .. MAX_WORKERS
    VARIANTS = 2,        // poses per query case
    MAX_PAIRS = 8192,    // triangle pair capacity of one query
    MAX_REGIONS = 32,    // region capacity of one query
    MAX_BODIES = 6,      // bodies of a world scene
    MAX_RECORDS = 64,    // region records of one world evaluation
    WORLD_STEPS = 3,     // states evaluated per world scene
    CONTAINS_POINTS = 4, // point-in-mesh tests per query case
};

// ---------------------------------------------------------------------------------------------------------------
// Meshes: every set is built from the same definitions, so a fresh set is bitwise the same geometry as the reference
// set, and its region blocks are not built yet.

enum
{
    SPHERE,    // 30000 triangles: a sphere-sphere query has 60000, enough for the parallel pair traversal
    TORUS,     // major radius 1, tube 0.3
    CYLINDER,  // radius 0.5, height 2, along z
    ELLIPSOID, // semi-axes 0.5, 0.3, 0.2
    BOX,       // 6 x 6 x 1, 12 triangles
    MESH_COUNT
};

typedef struct mesh_set
{
    mc_mesh* m[MESH_COUNT];
} mesh_set;

static mc_mesh* mesh_build(int k)
{
    static const struct
    {
        mc_primitive_type type;
        double x, y, z;
        uint32_t triangles;
    } defs[MESH_COUNT] = {
        [SPHERE] = {MC_PRIMITIVE_ELLIPSOID, 1.0, 1.0, 1.0, 30000},
        [TORUS] = {MC_PRIMITIVE_TORUS, 1.0, 0.3, 0.0, 4000},
        [CYLINDER] = {MC_PRIMITIVE_CYLINDER, 0.5, 0.0, 2.0, 2000},
        [ELLIPSOID] = {MC_PRIMITIVE_ELLIPSOID, 0.5, 0.3, 0.2, 2000},
        [BOX] = {MC_PRIMITIVE_BOX, 6.0, 6.0, 1.0, 12},
    };
    mc_primitive_def d = mc_default_primitive_def();
    d.type = defs[k].type;
    d.dims = mc_v3(defs[k].x, defs[k].y, defs[k].z);
    mc_mesh* m = NULL;
    mc_error err;
    if (mc_mesh_create_primitive_count(&d, defs[k].triangles, &m, &err) != MC_OK)
    {
        fprintf(stderr, "threads: mesh %d: %s\n", k, err.message);
        return NULL;
    }
    return m;
}

static void mesh_set_destroy(mesh_set* s)
{
    for (int k = 0; k < MESH_COUNT; ++k)
    {
        mc_mesh_destroy(s->m[k]);
        s->m[k] = NULL;
    }
}

static bool mesh_set_build(mesh_set* s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < MESH_COUNT; ++k)
    {
        s->m[k] = mesh_build(k);
        if (s->m[k] == NULL)
        {
            mesh_set_destroy(s);
            return false;
        }
    }
    return true;
}

static mc_quat axis_angle(double x, double y, double z, double angle)
{
    double n = sqrt(x * x + y * y + z * z), s = sin(0.5 * angle) / n;
    mc_quat q = {cos(0.5 * angle), s * x, s * y, s * z};
    return q;
}

static mc_pose make_pose(double x, double y, double z, mc_quat q)
{
    mc_pose p;
    p.p = mc_v3(x, y, z);
    p.q = q;
    return p;
}

// ---------------------------------------------------------------------------------------------------------------
// Stateless queries

typedef struct query_case
{
    int mesh_i, mesh_j;
    mc_pose pose_i, pose_j;
    mc_depth_method depth;
} query_case;

enum
{
    CASE_COUNT = 7
};

// Pose variant v of case c: J turned a little more about z, so that each variant is a different query.
static query_case make_case(int c, int v)
{
    mc_quat id = mc_quat_identity();
    query_case q;
    memset(&q, 0, sizeof q);
    q.pose_i = make_pose(0.0, 0.0, 0.0, id);
    switch (c)
    {
    case 0: // two spheres 0.6 deep: 60000 triangles and enough node pairs for a parallel traversal with 2 to 4 workers
        q.mesh_i = SPHERE, q.mesh_j = SPHERE;
        q.pose_i = make_pose(0.1, -0.2, 0.3, axis_angle(1.0, 2.0, 3.0, 0.3));
        q.pose_j = make_pose(1.5, -0.1, 0.35, axis_angle(0.3, 0.5, 0.8, 0.4));
        break;
    case 1: // interlinked tori
        q.mesh_i = TORUS, q.mesh_j = TORUS;
        q.pose_j = make_pose(1.5, 0.0, 0.0, axis_angle(1.0, 0.0, 0.0, 1.5707963267948966));
        break;
    case 2: // sphere resting on the box, 0.02 deep
        q.mesh_i = BOX, q.mesh_j = SPHERE;
        q.pose_j = make_pose(0.3, -0.2, 1.48, axis_angle(1.0, 1.0, 0.0, 0.7));
        break;
    case 3: // ellipsoid through the cylinder's wall
        q.mesh_i = CYLINDER, q.mesh_j = ELLIPSOID;
        q.pose_j = make_pose(0.1, 0.0, 0.3, axis_angle(0.0, 0.0, 1.0, 0.5));
        break;
    case 4: // ellipsoid entirely inside the sphere: no crossing, one region from the point-in-mesh test
        q.mesh_i = SPHERE, q.mesh_j = ELLIPSOID;
        q.pose_j = make_pose(0.2, 0.1, 0.0, axis_angle(1.0, -1.0, 0.5, 0.9));
        break;
    case 5: // cylinder through the torus' hole, cutting into the tube
        q.mesh_i = TORUS, q.mesh_j = CYLINDER;
        q.pose_j = make_pose(0.25, 0.0, 0.0, axis_angle(1.0, 0.0, 0.0, 0.1));
        break;
    default: // cylinder deep in the sphere: whole blocks inside
        q.mesh_i = SPHERE, q.mesh_j = CYLINDER;
        q.pose_j = make_pose(0.0, 0.1, 0.8, axis_angle(0.0, 1.0, 0.0, 0.2));
        break;
    }
    q.pose_j.q = mc_quat_mul(axis_angle(0.0, 0.0, 1.0, 0.05 * v), q.pose_j.q);
    q.depth = (mc_depth_method)(c % 3);
    return q;
}

typedef struct query_result
{
    mc_status pair_status;
    uint32_t pair_count;
    mc_query_stats pair_stats;
    mc_status region_status;
    uint32_t region_count;
    mc_query_stats region_stats;
    bool inside[CONTAINS_POINTS];
    mc_region regions[MAX_REGIONS];
    mc_triangle_pair* pairs; // MAX_PAIRS entries
} query_result;

// Run case qc: regions then pairs (regions first builds the region blocks of a fresh mesh on the first use), or the
// other way round, then point containment in I.
static void run_query(const mesh_set* ms, const query_case* qc, int workers, bool regions_first, mc_workspace* ws,
                      query_result* r)
{
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = workers;
    opt.depth_method = qc->depth;
    const mc_mesh* mi = ms->m[qc->mesh_i];
    const mc_mesh* mj = ms->m[qc->mesh_j];
    memset(r->regions, 0, sizeof r->regions);
    for (int pass = 0; pass < 2; ++pass)
    {
        if ((pass == 0) == regions_first)
        {
            r->region_status = mc_query_regions(mi, &qc->pose_i, mj, &qc->pose_j, &opt, ws, r->regions, MAX_REGIONS,
                                                &r->region_count, &r->region_stats);
        }
        else
        {
            r->pair_status = mc_query_triangle_pairs(mi, &qc->pose_i, mj, &qc->pose_j, &opt, ws, r->pairs, MAX_PAIRS,
                                                     &r->pair_count, &r->pair_stats);
        }
    }
    static const double pts[CONTAINS_POINTS][3] = {
        {0.0, 0.0, 0.01}, {0.3, 0.2, 0.1}, {0.49, 0.0, 0.05}, {2.0, 0.0, 0.0}};
    for (int k = 0; k < CONTAINS_POINTS; ++k)
    {
        r->inside[k] = mc_mesh_contains_point(mi, mc_v3(pts[k][0], pts[k][1], pts[k][2]));
    }
}

static bool same_bits(const void* a, const void* b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

// The counters of a query (not its timings or thread count).
static bool same_stats(const mc_query_stats* a, const mc_query_stats* b)
{
    return a->box_tests == b->box_tests && a->triangle_tests == b->triangle_tests &&
           a->triangle_pairs == b->triangle_pairs && a->crossings == b->crossings &&
           a->inside_vertices == b->inside_vertices && a->regions == b->regions &&
           a->touching_regions == b->touching_regions;
}

static bool same_pair(const mc_triangle_pair* a, const mc_triangle_pair* b)
{
    bool same = a->i == b->i && a->j == b->j;
    for (int c = 0; c < 2 && same; ++c)
    {
        const mc_crossing* x = &a->crossing[c];
        const mc_crossing* y = &b->crossing[c];
        same = same_bits(&x->point, &y->point, sizeof x->point) && x->body == y->body && x->edge == y->edge &&
               x->entering == y->entering && x->degenerate == y->degenerate;
    }
    return same;
}

// mc_region is doubles and two uint32_t: no padding, so its bytes are its value.
_Static_assert(sizeof(mc_region) == 22 * sizeof(double) + 2 * sizeof(uint32_t), "mc_region has padding");

// What differs between a result and the reference ("" when nothing).
static const char* query_difference(const query_result* a, const query_result* ref)
{
    if (a->pair_status != ref->pair_status || a->pair_count != ref->pair_count)
    {
        return "pair status or count";
    }
    for (uint32_t k = 0; k < a->pair_count; ++k)
    {
        if (!same_pair(&a->pairs[k], &ref->pairs[k]))
        {
            return "triangle pairs";
        }
    }
    if (!same_stats(&a->pair_stats, &ref->pair_stats))
    {
        return "pair counters";
    }
    if (a->region_status != ref->region_status || a->region_count != ref->region_count ||
        !same_stats(&a->region_stats, &ref->region_stats))
    {
        return "region status, count or counters";
    }
    if (!same_bits(a->regions, ref->regions, sizeof a->regions))
    {
        return "regions";
    }
    return same_bits(a->inside, ref->inside, sizeof a->inside) ? "" : "point containment";
}

// ---------------------------------------------------------------------------------------------------------------
// Worlds

enum
{
    SCENE_MANY = 0,   // five bodies, two contact definitions: the pairs run in parallel, one query each
    SCENE_SINGLE = 1, // two big spheres: one active pair, the parallelism inside its query
    SCENE_COUNT = 2
};

typedef struct world_result
{
    mc_status status;
    uint32_t record_count;
    mc_step_info info;
    mc_wrench wrench[MAX_BODIES];
    mc_contact_region records[MAX_RECORDS];
} world_result;

typedef struct world_run
{
    mc_world* w;
    int body_count;
    mc_body_id ids[MAX_BODIES];
    mc_pose base[MAX_BODIES];
} world_run;

static mc_body_id add_body(const mesh_set* ms, world_run* run, int mesh, mc_pose pose)
{
    mc_body_def bd = mc_default_body_def();
    bd.mesh = ms->m[mesh];
    bd.pose = pose;
    run->base[run->body_count] = pose;
    run->ids[run->body_count] = mc_world_create_body(run->w, &bd);
    return run->ids[run->body_count++];
}

static bool add_contact(world_run* run, const mc_body_id* is, uint32_t ni, const mc_body_id* js, uint32_t nj,
                        bool poisson)
{
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = is;
    cd.i_count = ni;
    cd.j_bodies = js;
    cd.j_count = nj;
    cd.model.friction = poisson ? MC_FRICTION_DYNAMICS_ONLY : MC_FRICTION_ON;
    if (poisson)
    {
        cd.model.normal_law = MC_NORMAL_POISSON;
    }
    else
    {
        cd.model.damping = 10.0;
    }
    mc_contact_id id;
    mc_error err;
    if (mc_world_create_contact(run->w, &cd, &id, &err) != MC_OK)
    {
        fprintf(stderr, "threads: contact: %s\n", err.message);
        return false;
    }
    return true;
}

// A world of the scene on the meshes of `ms` (creating the bodies prepares the meshes' region blocks).
static bool world_build(const mesh_set* ms, int scene, int workers, world_run* run)
{
    memset(run, 0, sizeof *run);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = workers;
    if (mc_world_create(&wd, &run->w) != MC_OK)
    {
        return false;
    }
    mc_quat id = mc_quat_identity();
    if (scene == SCENE_SINGLE)
    {
        query_case q = make_case(0, 0);
        mc_body_id a = add_body(ms, run, SPHERE, q.pose_i);
        mc_body_id b = add_body(ms, run, SPHERE, q.pose_j);
        return add_contact(run, &a, 1, &b, 1, false);
    }
    mc_body_id floor = add_body(ms, run, BOX, make_pose(0.0, 0.0, 0.0, id));
    mc_body_id sphere = add_body(ms, run, SPHERE, make_pose(0.0, 0.0, 1.48, axis_angle(1.0, 0.0, 0.0, 0.2)));
    mc_body_id torus = add_body(ms, run, TORUS, make_pose(2.2, 0.0, 0.78, id));
    mc_body_id cylinder = add_body(ms, run, CYLINDER, make_pose(-2.2, 0.3, 1.48, id));
    mc_body_id ellipsoid = add_body(ms, run, ELLIPSOID, make_pose(0.0, 1.25, 1.48, axis_angle(0.0, 0.0, 1.0, 1.6)));
    mc_body_id on_floor[4] = {sphere, torus, cylinder, ellipsoid};
    mc_body_id on_sphere[3] = {ellipsoid, torus, cylinder};
    return add_contact(run, &floor, 1, on_floor, 4, false) && add_contact(run, &sphere, 1, on_sphere, 3, true);
}

// State k: every body but the first sinks and turns a little from its base pose, with a fixed velocity.
static world_result* world_evaluate(world_run* run, int k, world_result* out)
{
    mc_pose poses[MAX_BODIES];
    mc_twist twists[MAX_BODIES];
    for (int b = 0; b < run->body_count; ++b)
    {
        double s = b == 0 ? 0.0 : (double)k;
        poses[b] = run->base[b];
        poses[b].p.z -= 0.004 * s;
        poses[b].q = mc_quat_mul(axis_angle(0.2, 0.1, 1.0, 0.03 * s), poses[b].q);
        twists[b].v = mc_v3(0.1 * b, -0.05, -0.2);
        twists[b].w = mc_v3(0.0, 0.1, 0.5 * b);
    }
    memset(out, 0, sizeof *out);
    out->status = mc_world_set_poses(run->w, run->ids, poses, (uint32_t)run->body_count);
    if (out->status == MC_OK)
    {
        out->status = mc_world_set_velocities(run->w, run->ids, twists, (uint32_t)run->body_count);
    }
    if (out->status == MC_OK)
    {
        out->status = mc_world_evaluate(run->w);
    }
    mc_world_get_wrenches(run->w, run->ids, out->wrench, (uint32_t)run->body_count);
    out->record_count = mc_world_get_regions(run->w, out->records, MAX_RECORDS);
    out->info = mc_world_get_step_info(run->w);
    return out;
}

// box_tests and triangle_tests are work counters: with temporal coherence (mc_world_def.coherence) they depend on each
// pair's traversal front, i.e. on the history and the worker count (a parallel query resets the front); the results
// (intersecting triangle pairs, wrenches, records) do not and are compared.
static const char* world_difference(const world_result* a, const world_result* ref)
{
    const mc_step_info* x = &a->info;
    const mc_step_info* y = &ref->info;
    if (a->status != ref->status || a->record_count != ref->record_count || x->flags != y->flags ||
        x->defined_pairs != y->defined_pairs || x->candidate_pairs != y->candidate_pairs ||
        x->touching_pairs != y->touching_pairs || x->regions != y->regions ||
        x->rejected_regions != y->rejected_regions || x->triangle_pairs != y->triangle_pairs)
    {
        return "status, record count or step counters";
    }
    if (!same_bits(a->wrench, ref->wrench, sizeof a->wrench))
    {
        return "wrenches";
    }
    // The world zeroes a record before filling it, padding included: records compare bytewise.
    return same_bits(a->records, ref->records, sizeof a->records) ? "" : "region records";
}

// ---------------------------------------------------------------------------------------------------------------
// References (main thread, worker_count 1) and the threads

typedef struct reference
{
    query_result query[CASE_COUNT][VARIANTS];
    world_result world[SCENE_COUNT][WORLD_STEPS];
} reference;

typedef struct stress
{
    const reference* ref;
    const mesh_set* meshes;        // the meshes of this phase (shared by every thread)
    size_t full_bytes[MESH_COUNT]; // mc_mesh_get_byte_count of each reference mesh, region blocks included
    pthread_barrier_t start;
    int iterations;
    atomic_int failures;
    atomic_long queries;
    atomic_long evaluations;
} stress;

typedef struct thread_arg
{
    stress* st;
    int index;
} thread_arg;

// `what` names the thread kind and what a / b are, e.g. "world thread %d, scene %d, state %d".
static void fail(stress* st, const char* what, int thread, int a, int b, int workers, const char* diff)
{
    char where[96];
    snprintf(where, sizeof where, what, thread, a, b);
    fprintf(stderr, "threads: %s, worker_count %d: %s differ from the reference\n", where, workers, diff);
    atomic_fetch_add(&st->failures, 1);
}

// A query thread: every case and variant per iteration, starting at a different case per thread, with worker_count
// cycling through 1..MAX_WORKERS; even threads run regions first, odd ones pairs first. Thread 0 starts with
// mc_mesh_prepare_regions of the sphere and thread 1 with the torus's, so that on fresh meshes the lazy build is
// raced by those calls and by the other threads' first region queries.
static void* query_thread(void* varg)
{
    thread_arg* arg = varg;
    stress* st = arg->st;
    mc_workspace* ws = NULL;
    query_result r;
    r.pairs = malloc(MAX_PAIRS * sizeof *r.pairs);
    if (mc_workspace_create(&ws) != MC_OK || r.pairs == NULL)
    {
        atomic_fetch_add(&st->failures, 1);
    }
    pthread_barrier_wait(&st->start);
    if (arg->index < 2 && ws != NULL && r.pairs != NULL &&
        mc_mesh_prepare_regions(st->meshes->m[arg->index == 0 ? SPHERE : TORUS]) != MC_OK)
    {
        atomic_fetch_add(&st->failures, 1);
    }
    for (int it = 0; it < st->iterations && ws != NULL && r.pairs != NULL; ++it)
    {
        for (int n = 0; n < CASE_COUNT * VARIANTS; ++n)
        {
            int c = (n / VARIANTS + 2 * arg->index) % CASE_COUNT, v = n % VARIANTS;
            int workers = 1 + (arg->index + it + n) % MAX_WORKERS;
            query_case qc = make_case(c, v);
            run_query(st->meshes, &qc, workers, arg->index % 2 == 0, ws, &r);
            const char* diff = query_difference(&r, &st->ref->query[c][v]);
            if (diff[0] != '\0')
            {
                fail(st, "query thread %d, case %d, variant %d", arg->index, c, v, workers, diff);
            }
            // Reads the region-block pointer while other threads may be publishing it: the geometry alone, or with
            // the blocks, never more.
            if (mc_mesh_get_byte_count(st->meshes->m[qc.mesh_j]) > st->full_bytes[qc.mesh_j])
            {
                fail(st, "query thread %d, case %d, variant %d", arg->index, c, v, workers, "mesh byte counts");
            }
            atomic_fetch_add(&st->queries, 1);
        }
    }
    mc_workspace_destroy(ws);
    free(r.pairs);
    return NULL;
}

// A world thread: worker_count 1 + index % MAX_WORKERS; builds both scenes (their bodies prepare the shared meshes'
// region blocks, raced on fresh meshes), then evaluates every state of both scenes per iteration.
static void* world_thread(void* varg)
{
    thread_arg* arg = varg;
    stress* st = arg->st;
    int workers = 1 + arg->index % MAX_WORKERS;
    world_run runs[SCENE_COUNT];
    world_result* r = malloc(sizeof *r);
    pthread_barrier_wait(&st->start);
    bool ok = r != NULL;
    for (int s = 0; s < SCENE_COUNT; ++s)
    {
        ok = world_build(st->meshes, s, workers, &runs[s]) && ok;
    }
    if (!ok)
    {
        atomic_fetch_add(&st->failures, 1);
    }
    for (int it = 0; it < st->iterations && ok; ++it)
    {
        for (int n = 0; n < SCENE_COUNT * WORLD_STEPS; ++n)
        {
            int s = (n + arg->index) % SCENE_COUNT, k = n / SCENE_COUNT;
            const char* diff = world_difference(world_evaluate(&runs[s], k, r), &st->ref->world[s][k]);
            if (diff[0] != '\0')
            {
                fail(st, "world thread %d, scene %d, state %d", arg->index, s, k, workers, diff);
            }
            atomic_fetch_add(&st->evaluations, 1);
        }
    }
    for (int s = 0; s < SCENE_COUNT; ++s)
    {
        mc_world_destroy(runs[s].w);
    }
    free(r);
    return NULL;
}

// Publication of the region blocks. The race above shows that concurrent builders agree, but not that a reader of
// blocks another thread built is ordered after the builder's writes: ThreadSanitizer keeps only the last few accesses
// of each word, so once several threads have read the blocks the builder's writes are forgotten, and every
// allocation is an atomic add to the library's byte counter, which orders its thread after all earlier allocations
// (the builder's among them). Here the reader is the first thread to read the blocks and allocates nothing: it waits
// for the cache pointer with a relaxed load (which orders nothing), then queries with a workspace already warm for
// this query; so only the library's own acquire of the pointer orders the builder's writes before its reads.
typedef struct publication
{
    mc_mesh* mesh;    // a fresh sphere, blocks not built
    mc_workspace* ws; // warm for case 0 on a sphere of the same size
    query_result* r;
    mc_status built;
    atomic_int done; // the builder returned (read relaxed too: stops the wait if the build failed)
} publication;

static void* publication_builder(void* varg)
{
    publication* p = varg;
    p->built = mc_mesh_prepare_regions(p->mesh);
    atomic_store_explicit(&p->done, 1, memory_order_relaxed);
    return NULL;
}

static void* publication_reader(void* varg)
{
    publication* p = varg;
    while (atomic_load_explicit(&p->mesh->region_cache, memory_order_relaxed) == NULL &&
           atomic_load_explicit(&p->done, memory_order_relaxed) == 0)
    {
        sched_yield();
    }
    mesh_set ms = {{[SPHERE] = p->mesh}};
    query_case qc = make_case(0, 0);
    run_query(&ms, &qc, 1, true, p->ws, p->r);
    return NULL;
}

static void check_publication(stress* st, mc_mesh* warm_sphere)
{
    publication p = {mesh_build(SPHERE), NULL, NULL, MC_OK, 0};
    query_result r;
    r.pairs = malloc(MAX_PAIRS * sizeof *r.pairs);
    if (r.pairs == NULL || mc_workspace_create(&p.ws) != MC_OK || p.mesh == NULL)
    {
        atomic_fetch_add(&st->failures, 1);
        free(r.pairs);
        mc_workspace_destroy(p.ws);
        mc_mesh_destroy(p.mesh);
        return;
    }
    mesh_set warm = {{[SPHERE] = warm_sphere}};
    query_case qc = make_case(0, 0);
    run_query(&warm, &qc, 1, true, p.ws, &r);
    p.r = &r;
    pthread_t a, b;
    if (pthread_create(&b, NULL, publication_reader, &p) != 0 || pthread_create(&a, NULL, publication_builder, &p) != 0)
    {
        fprintf(stderr, "threads: pthread_create failed\n");
        exit(1);
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    const char* diff = p.built == MC_OK ? query_difference(&r, &st->ref->query[0][0]) : "preparation";
    if (diff[0] != '\0')
    {
        fail(st, "publication reader %d, case %d, variant %d", 0, 0, 0, 1, diff);
    }
    mc_mesh_destroy(p.mesh);
    mc_workspace_destroy(p.ws);
    free(r.pairs);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Every query and world thread at once on the meshes `ms`, released together by a barrier.
static void run_phase(stress* st, const mesh_set* ms, const char* name)
{
    double t0 = now_seconds();
    st->meshes = ms;
    atomic_store(&st->queries, 0);
    atomic_store(&st->evaluations, 0);
    enum
    {
        N = QUERY_THREADS + WORLD_THREADS
    };
    pthread_t tid[N];
    thread_arg args[N];
    pthread_barrier_init(&st->start, NULL, N);
    for (int t = 0; t < N; ++t)
    {
        args[t].st = st;
        args[t].index = t < QUERY_THREADS ? t : t - QUERY_THREADS;
        if (pthread_create(&tid[t], NULL, t < QUERY_THREADS ? query_thread : world_thread, &args[t]) != 0)
        {
            fprintf(stderr, "threads: pthread_create failed\n");
            exit(1);
        }
    }
    for (int t = 0; t < N; ++t)
    {
        pthread_join(tid[t], NULL);
    }
    pthread_barrier_destroy(&st->start);
    printf("threads: %-22s %d query + %d world threads: %ld queries, %ld world evaluations, %.1f s\n", name,
           QUERY_THREADS, WORLD_THREADS, atomic_load(&st->queries), atomic_load(&st->evaluations), now_seconds() - t0);
}

static bool build_reference(const mesh_set* ms, reference* ref)
{
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return false;
    }
    bool ok = true;
    for (int c = 0; c < CASE_COUNT; ++c)
    {
        for (int v = 0; v < VARIANTS; ++v)
        {
            query_result* r = &ref->query[c][v];
            r->pairs = malloc(MAX_PAIRS * sizeof *r->pairs);
            if (r->pairs == NULL)
            {
                ok = false;
                continue;
            }
            query_case qc = make_case(c, v);
            run_query(ms, &qc, 1, true, ws, r);
            if (r->pair_status != MC_OK || r->region_status != MC_OK || r->region_count == 0)
            {
                fprintf(stderr, "threads: reference case %d/%d: pairs %s (%u), regions %s (%u)\n", c, v,
                        mc_status_string(r->pair_status), r->pair_count, mc_status_string(r->region_status),
                        r->region_count);
                ok = false;
            }
        }
    }
    mc_workspace_destroy(ws);
    for (int s = 0; s < SCENE_COUNT && ok; ++s)
    {
        world_run run;
        ok = world_build(ms, s, 1, &run);
        for (int k = 0; k < WORLD_STEPS && ok; ++k)
        {
            world_result* r = world_evaluate(&run, k, &ref->world[s][k]);
            ok = r->status == MC_OK && r->record_count > 0 && r->record_count <= MAX_RECORDS;
            if (!ok)
            {
                fprintf(stderr, "threads: reference scene %d state %d: %s, %u records\n", s, k,
                        mc_status_string(r->status), r->record_count);
            }
        }
        mc_world_destroy(run.w);
    }
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// Canary: a plain counter incremented by every worker of the library's parallel loop. ThreadSanitizer must report
// it; tsan.sh runs this and fails when it does not, so a tool set-up that hides races on OpenMP workers is noticed.

static void racy_task(uint32_t begin, uint32_t end, int worker, void* ctx)
{
    (void)worker;
    long* counter = ctx;
    for (uint32_t k = begin; k < end; ++k)
    {
        *counter += 1;
    }
}

static int canary(void)
{
    long counter = 0;
    for (int round = 0; round < 4; ++round)
    {
        mc_parallel_for(2, racy_task, 1000, 1, &counter);
    }
    printf("threads: canary counted %ld\n", counter);
    return 0;
}

int main(int argc, char** argv)
{
    int rounds = 8, iterations = 3;
    for (int a = 1; a < argc; ++a)
    {
        if (strcmp(argv[a], "--canary") == 0)
        {
            return canary();
        }
        if (a + 1 < argc && strcmp(argv[a], "--rounds") == 0)
        {
            rounds = atoi(argv[++a]);
        }
        else if (a + 1 < argc && strcmp(argv[a], "--iterations") == 0)
        {
            iterations = atoi(argv[++a]);
        }
        else
        {
            fprintf(stderr, "usage: threads [--rounds N] [--iterations N] | threads --canary\n");
            return 2;
        }
    }
    double t0 = now_seconds();
    static reference ref;
    static stress st;
    mesh_set shared;
    if (!mesh_set_build(&shared) || !build_reference(&shared, &ref))
    {
        return 1;
    }
    printf("threads: reference (one thread, worker_count 1) in %.1f s\n", now_seconds() - t0);
    st.ref = &ref;
    for (int k = 0; k < MESH_COUNT; ++k)
    {
        st.full_bytes[k] = mc_mesh_get_byte_count(shared.m[k]);
    }
    st.iterations = iterations;
    run_phase(&st, &shared, "warm shared meshes:");
    for (int round = 0; round < rounds; ++round)
    {
        // Fresh meshes: the first region queries and body creations of all threads race to build their blocks.
        mesh_set fresh;
        if (!mesh_set_build(&fresh))
        {
            return 1;
        }
        char name[32];
        snprintf(name, sizeof name, "fresh meshes, round %d:", round + 1);
        run_phase(&st, &fresh, name);
        check_publication(&st, shared.m[SPHERE]);
        for (int k = 0; k < MESH_COUNT; ++k)
        {
            if (mc_mesh_get_byte_count(fresh.m[k]) != st.full_bytes[k])
            {
                fprintf(stderr, "threads: fresh mesh %d holds %zu bytes, the reference %zu\n", k,
                        mc_mesh_get_byte_count(fresh.m[k]), st.full_bytes[k]);
                atomic_fetch_add(&st.failures, 1);
            }
        }
        mesh_set_destroy(&fresh);
    }
    mesh_set_destroy(&shared);
    for (int c = 0; c < CASE_COUNT; ++c)
    {
        for (int v = 0; v < VARIANTS; ++v)
        {
            free(ref.query[c][v].pairs);
        }
    }
    if (mc_get_byte_count() != 0)
    {
        fprintf(stderr, "threads: %lld bytes still allocated by the library\n", (long long)mc_get_byte_count());
        atomic_fetch_add(&st.failures, 1);
    }
    int failures = atomic_load(&st.failures);
    printf("threads: %s (and %d region-block publications read first by another thread), %d failures, %.1f s\n",
           failures == 0 ? "all results equal the reference" : "FAILED", rounds, failures, now_seconds() - t0);
    return failures == 0 ? 0 : 1;
}
