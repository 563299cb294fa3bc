// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Many-body benchmark: a cubic grid of identical 972-triangle spheres, each overlapping its six face neighbours, or a
// chain of interlinked tori, all in ONE contact group (every body against every other). Reports world creation time
// and library memory, then warm mc_world_evaluate times for each thread count, with the counts of candidate pairs,
// touching pairs and regions, and checks that the wrenches are bitwise the same for every thread count. Every call
// moves each body by 1e-7 along x (a different pattern each call), so no call sees the poses of the one before.
// `--drift X` adds a random walk of up to X per axis and call to every body (bodies leave their broad-phase boxes,
// fronts meet large motions) and reports what the broad phase did.
// `--sleep` then marks every body asleep (mc_body_set_awake) and times the pile at rest against the awake step.
// With Bullet found (MC_BENCH_BULLET), the same meshes and poses in btCollisionWorld + btDbvtBroadphase +
// btGImpactMeshShape, stepped the same way, in the same run.
#include "src/world/world_memory.h" // --memory (internal: the benchmark links the static module libraries)

#include <math.h>
#include <meshcontact/meshcontact.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MC_BENCH_BULLET
#include "bullet_bench.h"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// CPU time of the whole process (all threads): with one thread, the evaluation's work whatever else the machine runs.
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// Deterministic pseudo-random unit quaternion (xorshift), so no two neighbours face each other with mirrored facets.
static mc_quat random_rotation(uint64_t* s)
{
    double q[4], n = 0.0;
    do
    {
        n = 0.0;
        for (int k = 0; k < 4; ++k)
        {
            *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
            q[k] = 2.0 * ((double)(*s >> 11) / 9007199254740992.0) - 1.0;
            n += q[k] * q[k];
        }
    } while (n > 1.0 || n < 1e-3);
    n = sqrt(n);
    mc_quat r = {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
    return r;
}

// Smallest distance from the origin to a face plane: the ball of that radius is inside the faceted sphere.
static double inradius(const mc_mesh* m)
{
    const mc_vec3* p = mc_mesh_get_positions(m);
    const uint32_t* t = mc_mesh_get_indices(m);
    double r = INFINITY;
    for (uint32_t k = 0; k < mc_mesh_get_triangle_count(m); ++k)
    {
        mc_vec3 a = p[t[3 * k]], b = p[t[3 * k + 1]], c = p[t[3 * k + 2]];
        mc_vec3 n = mc_normalize(mc_cross(mc_sub(b, a), mc_sub(c, a)));
        r = fmin(r, fabs(mc_dot(n, a)));
    }
    return r;
}

typedef struct scene
{
    const char* kind;    // "spheres", "chain" or "bin"
    uint32_t n;          // bodies
    mc_mesh* mesh;       // shared by every body (spheres, chain), or NULL
    mc_mesh** meshes;    // the bin's distinct meshes (mesh_count), or NULL
    uint32_t mesh_count; // entries in meshes
    uint32_t* body_mesh; // the bin: body k uses meshes[body_mesh[k]]
    mc_pose* poses;      // n poses
    uint32_t expected;   // touching pairs the construction makes (0: not known in advance, the bin)
    uint32_t triangles;  // triangles per body (the bin: the mean, rounded)
} scene;

static const mc_mesh* body_mesh(const scene* s, uint32_t k)
{
    return s->body_mesh != NULL ? s->meshes[s->body_mesh[k]] : s->mesh;
}

// n = k^3 spheres of radius 1 at spacing 2 (r_in - overlap): each face neighbour pair overlaps by at least 0.02
// (1 % of the diameter) even where the facets are deepest; diagonal neighbours are 2.77 apart and never touch.
static int make_grid(uint32_t n, scene* s)
{
    uint32_t k = (uint32_t)lround(cbrt((double)n));
    if (k * k * k != n)
    {
        fprintf(stderr, "bench_many: %u is not a cube\n", n);
        return 1;
    }
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_ELLIPSOID;
    pd.dims = mc_v3(1.0, 1.0, 1.0);
    mc_error err;
    if (mc_mesh_create_primitive_count(&pd, 972, &s->mesh, &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: %s\n", err.message);
        return 1;
    }
    double spacing = 2.0 * inradius(s->mesh) - 0.02;
    s->kind = "spheres";
    s->n = n;
    s->poses = calloc(n, sizeof *s->poses);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint32_t a = 0; a < n; ++a)
    {
        s->poses[a].p = mc_v3(spacing * (a % k), spacing * ((a / k) % k), spacing * (a / (k * k)));
        s->poses[a].q = random_rotation(&seed);
    }
    s->expected = 3 * k * k * (k - 1);
    s->triangles = mc_mesh_get_triangle_count(s->mesh);
    return 0;
}

// n tori (major radius 1, tube 0.25, about 1000 triangles) along x, alternately in the xy and xz planes, each link's
// end inside the next link's hole and pressing 0.02 into its tube (a chain in tension).
static int make_chain(uint32_t n, scene* s)
{
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_TORUS;
    pd.dims = mc_v3(1.0, 0.25, 0.0);
    mc_error err;
    if (mc_mesh_create_primitive_count(&pd, 1000, &s->mesh, &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: %s\n", err.message);
        return 1;
    }
    double spacing = 2.0 * 1.0 - 2.0 * 0.25 + 0.02 + 0.01; // 0.01: the facets lie inside the true tube
    s->kind = "chain";
    s->n = n;
    s->poses = calloc(n, sizeof *s->poses);
    const double h = sqrt(0.5);
    for (uint32_t a = 0; a < n; ++a)
    {
        s->poses[a].p = mc_v3(spacing * a, 0.0, 0.0);
        s->poses[a].q = a % 2 == 0 ? (mc_quat){1.0, 0.0, 0.0, 0.0} : (mc_quat){h, h, 0.0, 0.0}; // 90 deg about x
    }
    s->expected = n - 1;
    s->triangles = mc_mesh_get_triangle_count(s->mesh);
    return 0;
}

// The bin's parts by default: the closed, oriented real meshes of data/ (data/README.md), printer parts of 2.5k to 10k
// triangles and Spot; --parts replaces them with a comma-separated list of files (paths from the repository's root or
// absolute).
static const char* s_bin_default[] = {
    "data/prusa/fs-lever.stl",    "data/prusa/LCD-knob.stl",     "data/prusa/x-end-idler.stl",
    "data/prusa/x-end-motor.stl", "data/prusa/Spool-holder.stl", "data/spot.obj",
};
#define BIN_MAX_FILES 32u
static const char* s_bin_files[BIN_MAX_FILES];
static uint32_t s_bin_file_count;

// Layers of parts per column of the bin, column spacing (parts fit a ball of radius 1), how far each part is pressed
// into what it landed on, and the distance at which the drop stops.
#define BIN_LAYERS 5u
#define BIN_SPACING 1.5
#define BIN_PRESS 0.004
#define BIN_CONTACT 1e-4

// A part scaled about its bounding-box centre so that the box's half diagonal is 1 (every vertex within 1 of
// the body origin).
static mc_mesh* load_part(const char* file)
{
    char path[4096];
    const char* root = getenv("MC_SOURCE_ROOT");
    snprintf(path, sizeof path, "%s%s%s",
             file[0] == '/' ? ""
             : root != NULL ? root
                            : ".",
             file[0] == '/' ? "" : "/", file);
    mc_mesh* raw = NULL;
    mc_error err;
    if (mc_mesh_import_file(path, NULL, &raw, NULL, &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: %s\n", err.message);
        return NULL;
    }
    const mc_vec3* p = mc_mesh_get_positions(raw);
    uint32_t nv = mc_mesh_get_vertex_count(raw);
    mc_vec3 lo = p[0], hi = p[0];
    for (uint32_t v = 1; v < nv; ++v)
    {
        lo = mc_v3(fmin(lo.x, p[v].x), fmin(lo.y, p[v].y), fmin(lo.z, p[v].z));
        hi = mc_v3(fmax(hi.x, p[v].x), fmax(hi.y, p[v].y), fmax(hi.z, p[v].z));
    }
    mc_vec3 c = mc_scale(mc_add(lo, hi), 0.5);
    double k = 2.0 / mc_length(mc_sub(hi, lo));
    double* xyz = malloc(3 * (size_t)nv * sizeof *xyz);
    for (uint32_t v = 0; v < nv && xyz != NULL; ++v)
    {
        xyz[3 * v] = (p[v].x - c.x) * k, xyz[3 * v + 1] = (p[v].y - c.y) * k, xyz[3 * v + 2] = (p[v].z - c.z) * k;
    }
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = xyz;
    md.vertex_count = nv;
    md.indices = mc_mesh_get_indices(raw);
    md.triangle_count = mc_mesh_get_triangle_count(raw);
    mc_mesh* m = NULL;
    if (xyz == NULL || mc_mesh_create(&md, &m, NULL, &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: %s: %s\n", file, xyz == NULL ? "out of memory" : err.message);
        m = NULL;
    }
    free(xyz);
    mc_mesh_destroy(raw);
    return m;
}

// Lowest z of a part's vertices under rotation q (the floor test of the drop).
static double lowest_z(const mc_mesh* m, mc_quat q)
{
    const mc_vec3* p = mc_mesh_get_positions(m);
    double z = INFINITY;
    for (uint32_t v = 0; v < mc_mesh_get_vertex_count(m); ++v)
    {
        z = fmin(z, mc_quat_rotate(q, p[v]).z);
    }
    return z;
}

// Drop body a (mesh m, pose *pose at its start height) straight down onto the floor z = 0 and the bodies before it,
// by conservative advancement: the smallest distance d to anything (exact minimum distance to the parts whose balls
// could be met, the floor from the lowest vertex) is a step it can fall without meeting anything; it stops when d <
// BIN_CONTACT, then is pressed BIN_PRESS further down. @return 0, or 1 when a query failed.
static int drop_part(const scene* s, uint32_t a, mc_workspace* ws, mc_pose* pose)
{
    const mc_mesh* m = body_mesh(s, a);
    double floor_gap = lowest_z(m, pose->q);
    for (int it = 0; it < 500; ++it)
    {
        double d = pose->p.z + floor_gap; // the floor (first body) spans z <= 0
        for (uint32_t b = 1; b < a && d >= BIN_CONTACT; ++b)
        {
            mc_vec3 off = mc_sub(s->poses[b].p, pose->p);
            if (off.x * off.x + off.y * off.y >= 4.0 || off.z >= 2.0 + d || off.z <= -2.0 - d)
            {
                continue; // its ball (radius 1) is out of reach of this one on the way down by d
            }
            mc_distance_result r;
            if (mc_query_distance(m, pose, body_mesh(s, b), &s->poses[b], d, NULL, ws, &r) != MC_OK)
            {
                return 1;
            }
            d = fmin(d, r.distance);
        }
        if (d < BIN_CONTACT)
        {
            break;
        }
        pose->p.z -= d;
    }
    pose->p.z -= BIN_PRESS;
    return 0;
}

// The bin's snapshot: a line naming the part files, then one line per body, its mesh (0 the floor, f + 1 the f-th part
// file) and pose in C99 hex floats (read back bitwise). @return 0, or 1 when the file cannot be written.
static int save_poses(const scene* s, const char* path)
{
    FILE* f = fopen(path, "w");
    if (f == NULL)
    {
        fprintf(stderr, "bench_many: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "# bench_many bin: body mesh x y z qw qx qy qz (mesh 0: the floor, k: the k-th part file)\n");
    fprintf(f, "# parts:");
    for (uint32_t k = 0; k < s_bin_file_count; ++k)
    {
        fprintf(f, "%s%s", k == 0 ? " " : ",", s_bin_files[k]);
    }
    fprintf(f, "\n");
    for (uint32_t a = 0; a < s->n; ++a)
    {
        const mc_pose* p = &s->poses[a];
        fprintf(f, "%u %u %a %a %a %a %a %a %a\n", a, s->body_mesh[a], p->p.x, p->p.y, p->p.z, p->q.w, p->q.x, p->q.y,
                p->q.z);
    }
    return fclose(f) == 0 ? 0 : 1;
}

// Read a snapshot written by save_poses for the same number of bodies and the same part files. @return 0, or 1 (with a
// message).
static int load_poses(scene* s, const char* path)
{
    FILE* f = fopen(path, "r");
    if (f == NULL)
    {
        fprintf(stderr, "bench_many: cannot read %s\n", path);
        return 1;
    }
    char line[4096];
    uint32_t got = 0;
    while (fgets(line, sizeof line, f) != NULL)
    {
        unsigned a = 0, m = 0;
        mc_pose p;
        if (strncmp(line, "# parts: ", 9) == 0)
        {
            char want[4096] = "";
            for (uint32_t k = 0; k < s_bin_file_count; ++k)
            {
                size_t len = strlen(want);
                snprintf(want + len, sizeof want - len, "%s%s", k == 0 ? "" : ",", s_bin_files[k]);
            }
            line[strcspn(line, "\n")] = '\0';
            if (strcmp(line + 9, want) != 0)
            {
                fprintf(stderr, "bench_many: %s is a snapshot of other parts (%s), not of %s\n", path, line + 9, want);
                fclose(f);
                return 1;
            }
            continue;
        }
        if (line[0] == '#')
        {
            continue;
        }
        if (sscanf(line, "%u %u %la %la %la %la %la %la %la", &a, &m, &p.p.x, &p.p.y, &p.p.z, &p.q.w, &p.q.x, &p.q.y,
                   &p.q.z) != 9 ||
            a != got || a >= s->n || m >= s->mesh_count || (a == 0) != (m == 0))
        {
            break;
        }
        s->body_mesh[a] = m;
        s->poses[a] = p;
        ++got;
    }
    fclose(f);
    if (got != s->n)
    {
        fprintf(stderr, "bench_many: %s: line %u is not body %u of %u (body mesh pose)\n", path, got + 1u, got, s->n);
        return 1;
    }
    return 0;
}

// n bodies: a floor slab (body 0, a box 2 thick whose top is z = 0) and n - 1 parts, each scaled into the unit
// ball with its own pseudo-random rotation, dropped one after the other into columns BIN_SPACING apart (BIN_LAYERS
// parts per column, a pseudo-random offset of up to 0.2 in x and y) by drop_part: a deterministic deposition, each
// part resting on what it landed on and pressed BIN_PRESS into it (2 ‰ of its size), standing in for a settled bin.
static int make_bin(uint32_t n, const char* poses_in, scene* s)
{
    s->kind = "bin";
    s->n = n;
    s->meshes = calloc(s_bin_file_count + 1u, sizeof *s->meshes);
    s->body_mesh = calloc(n, sizeof *s->body_mesh);
    s->poses = calloc(n, sizeof *s->poses);
    uint32_t columns = (uint32_t)ceil(sqrt((double)(n - 1u) / BIN_LAYERS));
    double width = BIN_SPACING * columns + 2.0;
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_BOX;
    pd.dims = mc_v3(width, width, 2.0);
    mc_error err;
    if (n < 2 || s->meshes == NULL || s->body_mesh == NULL || s->poses == NULL ||
        mc_mesh_create_primitive(&pd, &s->meshes[0], &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: the bin needs at least 2 bodies and memory\n");
        return 1;
    }
    s->mesh_count = 1;
    for (uint32_t f = 0; f < s_bin_file_count; ++f)
    {
        if ((s->meshes[s->mesh_count++] = load_part(s_bin_files[f])) == NULL)
        {
            return 1;
        }
    }
    s->poses[0].p = mc_v3(0.5 * BIN_SPACING * (columns - 1u), 0.5 * BIN_SPACING * (columns - 1u), -1.0);
    s->poses[0].q = (mc_quat){1.0, 0.0, 0.0, 0.0};
    if (poses_in != NULL)
    {
        if (load_poses(s, poses_in) != 0)
        {
            return 1;
        }
        uint64_t sum = 0;
        for (uint32_t a = 1; a < n; ++a)
        {
            sum += mc_mesh_get_triangle_count(s->meshes[s->body_mesh[a]]);
        }
        s->triangles = (uint32_t)((sum + (n - 1u) / 2u) / (n - 1u));
        return 0;
    }
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return 1;
    }
    uint64_t seed = 0x2545f4914f6cdd1dull;
    uint64_t tris = 0;
    for (uint32_t a = 1; a < n; ++a)
    {
        uint32_t col = (a - 1u) % (columns * columns);
        s->body_mesh[a] = 1u + (uint32_t)((a * 7u) % s_bin_file_count);
        tris += mc_mesh_get_triangle_count(s->meshes[s->body_mesh[a]]);
        mc_pose p;
        p.q = random_rotation(&seed);
        double ox = 0.2 * (2.0 * (double)((seed >> 11) & 1023u) / 1023.0 - 1.0);
        double oy = 0.2 * (2.0 * (double)((seed >> 21) & 1023u) / 1023.0 - 1.0);
        p.p = mc_v3(BIN_SPACING * (col % columns) + ox, BIN_SPACING * (col / columns) + oy, 0.0);
        double top = 1.1; // above the floor and every part placed so far within reach
        for (uint32_t b = 1; b < a; ++b)
        {
            mc_vec3 off = mc_sub(s->poses[b].p, p.p);
            top = off.x * off.x + off.y * off.y < 4.0 ? fmax(top, s->poses[b].p.z + 2.1) : top;
        }
        p.p.z = top;
        if (drop_part(s, a, ws, &p) != 0)
        {
            mc_workspace_destroy(ws);
            return 1;
        }
        s->poses[a] = p;
    }
    mc_workspace_destroy(ws);
    s->triangles = (uint32_t)((tris + (n - 1u) / 2u) / (n - 1u));
    s->expected = 0;
    return 0;
}

static void scene_free(scene* s)
{
    mc_mesh_destroy(s->mesh);
    for (uint32_t m = 0; m < s->mesh_count; ++m)
    {
        mc_mesh_destroy(s->meshes[m]);
    }
    free(s->meshes);
    free(s->body_mesh);
    free(s->poses);
}

typedef struct result
{
    double create_s;     // world, bodies and the contact group
    int64_t bytes;       // most library bytes held by the world after any evaluation (meshes excluded): the fronts
                         // are recorded at a pair's second query
    double min_s;        // warm mc_world_evaluate, minimum
    double median_s;     // warm mc_world_evaluate, median
    double broadphase_s; // broad phase of the fastest call
    double resting_s;    // minimum over calls at unchanged poses (every pair reuses its regions)
    double cpu_s;        // minimum process CPU time of one warm call (all threads)
    double cpu_mean_s;   // mean process CPU time of the warm calls (what a run costs: rebuilds of the fronts included)
    double cpu_median_s; // median process CPU time of the warm calls
    double first_cpu_s;  // process CPU time of the first call (buffers grow; the fronts are recorded)
    double stateless_s;  // one thread: mc_query_regions over the touching pairs of the last call, warm, minimum sum
    uint32_t stateless_pairs; // the pairs stateless_s queried
    mc_step_info info;        // counters of the last call
    bool coherent;            // run with mc_world_def.coherence
    uint64_t hash;            // FNV-1a of all wrenches
    uint64_t regions;         // FNV-1a of every region record's geometry (mc_region: doubles and counts, no padding)
} result;

static uint64_t fnv1a(uint64_t h, const void* p, size_t n)
{
    const unsigned char* b = p;
    for (size_t i = 0; i < n; ++i)
    {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

static uint64_t hash_wrenches(const mc_world* w, const mc_body_id* ids, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_wrench x = mc_body_get_wrench(w, ids[k]);
        h = fnv1a(h, &x, sizeof x);
    }
    return h;
}

// The geometry of every region record of the last evaluation (the narrow phase's output, before the force laws).
static uint64_t hash_regions(const mc_world* w)
{
    uint32_t n = mc_world_get_regions(w, NULL, 0);
    mc_contact_region* r = calloc(n + 1u, sizeof *r);
    uint64_t h = 1469598103934665603ull;
    if (r == NULL)
    {
        return 0;
    }
    n = mc_world_get_regions(w, r, n);
    for (uint32_t k = 0; k < n; ++k)
    {
        h = fnv1a(h, &r[k].region, sizeof r[k].region);
    }
    free(r);
    return h;
}

// The poses of call `call`: the scene's, each moved by -1e-7, 0 or 1e-7 along x.
static void jitter(const scene* s, int call, mc_pose* out)
{
    for (uint32_t a = 0; a < s->n; ++a)
    {
        out[a] = s->poses[a];
        out[a].p.x += 1e-7 * (double)((int)((a + (uint32_t)call) % 3u) - 1);
    }
}

// --verbose: each warm call's counters on stderr.
static bool s_verbose = false;
// --memory: the world's bytes by part (world_memory.h) at the timed call where it held the most, on stderr.
static bool s_memory = false;

static void print_memory(const char* what, const mc_world_memory* m, int64_t total)
{
    const mc_front_memory* f = &m->front;
    double mb = 1.0 / (1024.0 * 1024.0), per = m->pairs > 0u ? 1.0 / m->pairs : 0.0;
    fprintf(stderr,
            "memory (%s): %.1f MB held by the world, %u pairs (%.0f bytes per pair), used / held MB (bytes per "
            "pair held):\n",
            what, mb * (double)total, m->pairs, per * (double)total);
    fprintf(stderr, "  pair records   %8s / %7.1f (%6.0f)\n", "", mb * (double)m->pair_records,
            per * (double)m->pair_records);
    fprintf(stderr, "  region buffers %8.1f / %7.1f (%6.0f)\n", mb * (double)m->regions_used,
            mb * (double)m->regions_held, per * (double)m->regions_held);
    fprintf(stderr, "  front structs  %8.1f / %7.1f (%6.0f), %zu fronts\n", mb * (double)f->header,
            mb * (double)f->header, per * (double)f->header, f->fronts);
    fprintf(stderr, "  front entries  %8.1f / %7.1f (%6.0f), %.1f per front, %.1f of them leaf pairs\n",
            mb * (double)f->entries_used, mb * (double)f->entries_held, per * (double)f->entries_held,
            f->fronts > 0u ? (double)f->entry_count / (double)f->fronts : 0.0,
            f->fronts > 0u ? (double)f->leaf_count / (double)f->fronts : 0.0);
    fprintf(stderr, "  near lists     %8.1f / %7.1f (%6.0f)\n", mb * (double)f->pool_used, mb * (double)f->pool_held,
            per * (double)f->pool_held);
    fprintf(stderr, "  order          %8.1f / %7.1f (%6.0f)\n", mb * (double)f->order_used, mb * (double)f->order_held,
            per * (double)f->order_held);
    fprintf(stderr, "  certificates   %8.1f / %7.1f (%6.0f)\n", mb * (double)f->cert_used, mb * (double)f->cert_held,
            per * (double)f->cert_held);
    fprintf(stderr, "  region plans   %8.1f / %7.1f (%6.0f)\n", mb * (double)m->plan_used, mb * (double)m->plan_held,
            per * (double)m->plan_held);
    fprintf(stderr,
            "  workspaces     %8s / %7.1f\n  lists          %8s / %7.1f\n  other          %8s / %7.1f "
            "(meshes' trees and the rest; %u pairs with patches)\n",
            "", mb * (double)m->workspaces, "", mb * (double)m->lists, "",
            mb * (double)(total - (int64_t)mc_world_memory_held(m)), m->patches);
}

// --drift X: on top of the jitter, every body also random-walks by up to X along each axis per call (the same
// sequence in every run), so that bodies leave their broad-phase boxes; the broad phase's work is then reported.
static double s_drift = 0.0;

// Uniform in [-1, 1) from (body, call, axis): a fixed sequence (splitmix64).
static double drift_unit(uint32_t a, int call, int axis)
{
    uint64_t z = ((uint64_t)a << 32 | (uint64_t)(uint32_t)call) * 3u + (uint64_t)axis + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

// The poses of timed call `call` for meshcontact and Bullet alike: the jitter, plus (--drift) the random walk, whose
// running sum over the calls is kept in walk (n entries, zero before call 0). Every body moves at every call.
static void call_poses(const scene* s, int call, mc_vec3* walk, mc_pose* out)
{
    jitter(s, call, out);
    for (uint32_t a = 0; s_drift > 0.0 && a < s->n; ++a)
    {
        walk[a] = mc_add(
            walk[a], mc_scale(mc_v3(drift_unit(a, call, 0), drift_unit(a, call, 1), drift_unit(a, call, 2)), s_drift));
        out[a].p = mc_add(out[a].p, walk[a]);
    }
}

// The stateless reference of a step: every touching pair of the last evaluation (the distinct (I, J) of its region
// records) queried alone with mc_query_regions at the same poses, through one workspace that the first round warms
// (no front, no certificate, no plan: what a host without the world pays). @return the minimum over five rounds of
// the process CPU time of all the pair queries, and their count in *pairs; INFINITY when a query fails.
static double stateless_queries(const scene* s, const mc_world* w, const mc_pose* poses, uint32_t* pairs)
{
    uint32_t n = mc_world_get_regions(w, NULL, 0);
    mc_contact_region* r = calloc(n + 1u, sizeof *r);
    uint32_t* ij = calloc(2u * n + 2u, sizeof *ij);
    mc_workspace* ws = NULL;
    double best = INFINITY;
    *pairs = 0;
    if (r == NULL || ij == NULL || mc_workspace_create(&ws) != MC_OK)
    {
        free(r);
        free(ij);
        return best;
    }
    n = mc_world_get_regions(w, r, n);
    for (uint32_t k = 0; k < n; ++k) // records come sorted by pair: one entry per distinct pair
    {
        uint32_t i = (uint32_t)(r[k].body_i.index1 - 1), j = (uint32_t)(r[k].body_j.index1 - 1);
        if (*pairs == 0 || ij[2u * (*pairs - 1u)] != i || ij[2u * (*pairs - 1u) + 1u] != j)
        {
            ij[2u * *pairs] = i, ij[2u * *pairs + 1u] = j;
            ++*pairs;
        }
    }
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region out[64];
    for (int round = 0; round < 6; ++round) // round 0 warms the workspace and the meshes' region blocks
    {
        double c = cpu_now();
        for (uint32_t k = 0; k < *pairs; ++k)
        {
            uint32_t i = ij[2u * k], j = ij[2u * k + 1u], count = 0;
            mc_query_stats qs;
            mc_status st = mc_query_regions(body_mesh(s, i), &poses[i], body_mesh(s, j), &poses[j], &opt, ws, out, 64,
                                            &count, &qs);
            if (st != MC_OK && st != MC_ERR_CAPACITY)
            {
                best = INFINITY;
                round = 6;
                break;
            }
        }
        best = round > 0 && round < 6 ? fmin(best, cpu_now() - c) : best;
    }
    mc_workspace_destroy(ws);
    free(r);
    free(ij);
    return best;
}

// --sleep: after the timed calls, the pile at rest. One awake evaluation at the scene's poses (every pair queried,
// since the calls before moved every body), then every body marked asleep (mc_body_set_awake) and `calls`
// evaluations in a host's loop (mc_world_set_poses with the unchanged poses, then mc_world_evaluate): their minimum
// against the warm awake minimum, and their wrenches against the awake evaluation's, bit for bit.
static bool s_sleep = false;
static bool s_sleep_failed = false;

static int sleep_run(const scene* s, mc_world* w, const mc_body_id* ids, int calls, double awake_min_s)
{
    mc_world_set_poses(w, ids, s->poses, s->n);
    double a = now();
    if (mc_world_evaluate(w) != MC_OK)
    {
        return 1;
    }
    double awake_rest_s = now() - a;
    uint64_t awake_hash = hash_wrenches(w, ids, s->n);
    uint64_t awake_regions = hash_regions(w);
    for (uint32_t k = 0; k < s->n; ++k)
    {
        mc_body_set_awake(w, ids[k], false);
    }
    double best = INFINITY;
    for (int k = 0; k < calls; ++k)
    {
        mc_world_set_poses(w, ids, s->poses, s->n);
        a = now();
        mc_world_evaluate(w);
        best = fmin(best, now() - a);
    }
    mc_step_info si = mc_world_get_step_info(w);
    bool same = hash_wrenches(w, ids, s->n) == awake_hash && hash_regions(w) == awake_regions;
    printf("sleep: %s %u bodies, %u pairs (%u touching), %u sleeping bodies, %u sleeping pairs, %u queried: awake "
           "warm min %.3f ms, awake at the rest poses %.3f ms, sleeping min %.4f ms = %.2f %% of the awake warm min; "
           "wrenches and records %s\n",
           s->kind, s->n, si.candidate_pairs, si.touching_pairs, si.sleeping_bodies, si.sleeping_pairs,
           si.candidate_pairs - si.reused_pairs, 1e3 * awake_min_s, 1e3 * awake_rest_s, 1e3 * best,
           100.0 * best / awake_min_s, same ? "bitwise the awake ones" : "DIFFER");
    for (uint32_t k = 0; k < s->n; ++k)
    {
        mc_body_set_awake(w, ids[k], true);
    }
    return same && best < 0.1 * awake_min_s ? 0 : 1;
}

static int run(const scene* s, int threads, bool coherence, int calls, result* r)
{
    int64_t base = mc_get_byte_count();
    double t0 = now();
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = threads;
    wd.coherence = coherence;
    mc_world* w = NULL;
    mc_body_id* ids = calloc(s->n, sizeof *ids);
    if (ids == NULL || mc_world_create(&wd, &w) != MC_OK)
    {
        return 1;
    }
    mc_body_def bd = mc_default_body_def();
    for (uint32_t k = 0; k < s->n; ++k)
    {
        bd.mesh = body_mesh(s, k);
        bd.pose = s->poses[k];
        ids[k] = mc_world_create_body(w, &bd);
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.mode = MC_CONTACT_GROUP;
    cd.i_bodies = ids;
    cd.i_count = s->n;
    cd.model.stiffness = 1e7;
    cd.model.damping = 1e3;
    cd.model.dmax = 1e-3;
    mc_contact_id cid;
    mc_error err;
    if (mc_world_create_contact(w, &cd, &cid, &err) != MC_OK)
    {
        fprintf(stderr, "bench_many: %s\n", err.message);
        return 1;
    }
    r->create_s = now() - t0;
    r->coherent = coherence;
    double c0 = cpu_now();
    if (mc_world_evaluate(w) != MC_OK) // cold: pair records and buffers grow here (and the fronts are recorded)
    {
        return 1;
    }
    r->first_cpu_s = cpu_now() - c0;
    r->bytes = mc_get_byte_count() - base;
    double* t = calloc((size_t)calls, sizeof *t);
    double* tc = calloc((size_t)calls, sizeof *tc);
    mc_pose* poses = calloc(s->n, sizeof *poses);
    r->broadphase_s = INFINITY;
    r->cpu_s = INFINITY;
    mc_vec3* walk = calloc(s->n, sizeof *walk);
    if (t == NULL || tc == NULL || poses == NULL || walk == NULL)
    {
        return 1;
    }
    double bp_sum = 0.0, cpu_sum = 0.0;
    mc_world_memory peak = {0};
    int64_t peak_bytes = -1;
    uint32_t rebuilt = 0, updated = 0, moved = 0;
    for (int k = 0; k < calls; ++k)
    {
        call_poses(s, k, walk, poses);
        mc_world_set_poses(w, ids, poses, s->n);
        double a = now(), c = cpu_now();
        mc_world_evaluate(w);
        t[k] = now() - a;
        double cpu = cpu_now() - c;
        int64_t held = mc_get_byte_count() - base;
        if (s_memory && held > peak_bytes)
        {
            peak = mc_world_memory_get(w);
            peak_bytes = held;
        }
        r->bytes = held > r->bytes ? held : r->bytes;
        tc[k] = cpu;
        r->cpu_s = fmin(r->cpu_s, cpu);
        cpu_sum += cpu;
        mc_step_info si = mc_world_get_step_info(w);
        r->broadphase_s = fmin(r->broadphase_s, si.seconds_broadphase);
        bp_sum += si.seconds_broadphase;
        rebuilt += si.broad_rebuilt;
        updated += si.broad_rebuilt == 0 && si.broad_moved > 0;
        moved += si.broad_moved;
        if (s_verbose)
        {
            fprintf(stderr,
                    "  call %d: %.2f ms CPU, %llu box tests, %llu triangle tests, %llu crossing pairs, %u of %u pairs "
                    "certified, %u planned, %u restored by their combinatorics\n",
                    k, 1e3 * cpu, (unsigned long long)si.box_tests, (unsigned long long)si.triangle_tests,
                    (unsigned long long)si.triangle_pairs, si.certified_pairs, si.candidate_pairs, si.planned_pairs,
                    si.restored_pairs);
        }
    }
    free(walk);
    if (s_memory)
    {
        print_memory(coherence ? "coherent" : "cold", &peak, peak_bytes);
    }
    r->cpu_mean_s = cpu_sum / calls;
    qsort(tc, (size_t)calls, sizeof *tc, cmp_double);
    r->cpu_median_s = tc[calls / 2];
    free(tc);
    r->stateless_s = INFINITY;
    r->stateless_pairs = 0;
    if (threads == 1)
    {
        r->stateless_s = stateless_queries(s, w, poses, &r->stateless_pairs);
    }
    if (s_drift > 0.0)
    {
        fprintf(stderr,
                "%s %u bodies, %d threads, %s, drift %g: broad phase %.3f ms per call on average, %u rebuilds, %u "
                "updates (%u moved bodies in all), %u calls with the pairs kept\n",
                s->kind, s->n, threads, coherence ? "coherent" : "cold", s_drift, 1e3 * bp_sum / calls, rebuilt,
                updated, moved, (uint32_t)calls - rebuilt - updated);
    }
    r->resting_s = INFINITY;
    for (int k = 0; k < calls; ++k)
    {
        double a = now();
        mc_world_evaluate(w);
        r->resting_s = fmin(r->resting_s, now() - a);
    }
    qsort(t, (size_t)calls, sizeof *t, cmp_double);
    r->min_s = t[0];
    if (s_sleep && sleep_run(s, w, ids, calls, r->min_s) != 0)
    {
        s_sleep_failed = true;
    }
    r->median_s = t[calls / 2];
    r->info = mc_world_get_step_info(w);
    r->hash = hash_wrenches(w, ids, s->n);
    r->regions = hash_regions(w);
    free(t);
    free(poses);
    mc_world_destroy(w);
    free(ids);
    return 0;
}

#ifdef MC_BENCH_BULLET
// The same scene in Bullet: creation, then `calls` steps at the poses of meshcontact's calls (call_poses: the jitter
// and the --drift walk, so every body moves every step); min and median step time.
static void run_bullet(const scene* s, int calls, const result* ours, int ours_threads, FILE* f)
{
    mc_mesh* const* list = s->body_mesh != NULL ? s->meshes : &s->mesh;
    uint32_t nm = s->body_mesh != NULL ? s->mesh_count : 1u;
    double** pos = calloc(nm, sizeof *pos);
    const uint32_t** idx = calloc(nm, sizeof *idx);
    uint32_t* nv = calloc(nm, sizeof *nv);
    uint32_t* nt = calloc(nm, sizeof *nt);
    for (uint32_t m = 0; m < nm; ++m)
    {
        const mc_vec3* p = mc_mesh_get_positions(list[m]);
        nv[m] = mc_mesh_get_vertex_count(list[m]);
        nt[m] = mc_mesh_get_triangle_count(list[m]);
        idx[m] = mc_mesh_get_indices(list[m]);
        pos[m] = calloc(3 * (size_t)nv[m], sizeof **pos);
        for (uint32_t v = 0; v < nv[m]; ++v)
        {
            pos[m][3 * v] = p[v].x, pos[m][3 * v + 1] = p[v].y, pos[m][3 * v + 2] = p[v].z;
        }
    }
    double* poses = calloc(7 * (size_t)s->n, sizeof *poses);
    mc_pose* jit = calloc(s->n, sizeof *jit);
    mc_vec3* walk = calloc(s->n, sizeof *walk); // the same random walk as meshcontact's calls (--drift)
    double* t = calloc((size_t)calls, sizeof *t);
    double t0 = now();
    for (uint32_t a = 0; a < s->n; ++a)
    {
        const mc_pose* q = &s->poses[a];
        double row[7] = {q->p.x, q->p.y, q->p.z, q->q.w, q->q.x, q->q.y, q->q.z};
        memcpy(poses + 7 * (size_t)a, row, sizeof row);
    }
    bullet_bench_world* bw =
        bullet_bench_create_meshes(nm, (const double* const*)pos, nv, idx, nt, s->body_mesh, poses, s->n);
    double create = now() - t0;
    uint32_t manifolds = 0, points = 0;
    double cpu = INFINITY, cpu_sum = 0.0;
    bullet_bench_step(bw, &manifolds, &points); // cold: pair cache and algorithms are created here
    for (int k = 0; k < calls; ++k)
    {
        call_poses(s, k, walk, jit);
        for (uint32_t a = 0; a < s->n; ++a)
        {
            double row[7] = {jit[a].p.x, jit[a].p.y, jit[a].p.z, jit[a].q.w, jit[a].q.x, jit[a].q.y, jit[a].q.z};
            memcpy(poses + 7 * (size_t)a, row, sizeof row);
        }
        bullet_bench_set_poses(bw, poses);
        double a = now(), c = cpu_now();
        bullet_bench_step(bw, &manifolds, &points);
        t[k] = now() - a;
        double one = cpu_now() - c;
        cpu = fmin(cpu, one);
        cpu_sum += one;
    }
    qsort(t, (size_t)calls, sizeof *t, cmp_double);
    printf("| %s (Bullet GImpact) | %u | 1 | - | %.1f | - | - | %u manifolds | %u points | %.2f | %.2f | - | CPU %.2fx "
           "(min), %.2fx (mean) meshcontact's %s %d-thread row | - | - | %.2f |\n",
           s->kind, s->n, 1e3 * create, manifolds, points, 1e3 * t[0], 1e3 * t[calls / 2], cpu / ours->cpu_s,
           cpu_sum / calls / ours->cpu_mean_s, ours->coherent ? "coherent" : "cold", ours_threads, 1e3 * cpu);
    if (f != NULL)
    {
        fprintf(f, "%s_bullet,%u,%u,1,bullet,%.3f,,%u,%u,%u,%.3f,%.3f,,,,%.3f,%.3f\n", s->kind, s->n, s->triangles,
                1e3 * create, manifolds, manifolds, points, 1e3 * t[0], 1e3 * t[calls / 2], 1e3 * cpu,
                1e3 * cpu_sum / calls);
    }
    bullet_bench_destroy(bw);
    for (uint32_t m = 0; m < nm; ++m)
    {
        free(pos[m]);
    }
    free(pos);
    free(idx);
    free(nv);
    free(nt);
    free(poses);
    free(jit);
    free(walk);
    free(t);
}
#endif

// One result: a table row on stdout, a CSV row, the hashes on stderr.
static void print_row(const scene* s, const result* r, uint32_t threads, bool coherent, const result* first, bool same,
                      FILE* f)
{
    uint32_t tris = s->triangles;
    printf("| %s | %u | %u | %s | %.1f | %.1f | %u | %u | %u | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %.2f |\n",
           s->kind, s->n, threads, coherent ? "coherent" : "cold", 1e3 * r->create_s, (double)r->bytes / 1048576.0,
           r->info.candidate_pairs, r->info.touching_pairs, r->info.regions, 1e3 * r->min_s, 1e3 * r->median_s,
           1e3 * r->broadphase_s, first->min_s / r->min_s, same ? "yes" : "NO", 1e3 * r->resting_s, 1e3 * r->cpu_s);
    if (f != NULL)
    {
        fprintf(f, "%s,%u,%u,%u,%s,%.3f,%.3f,%u,%u,%u,%.3f,%.3f,%.3f,%d,%.3f,%.3f,%.3f\n", s->kind, s->n, tris, threads,
                coherent ? "coherent" : "cold", 1e3 * r->create_s, (double)r->bytes / 1048576.0,
                r->info.candidate_pairs, r->info.touching_pairs, r->info.regions, 1e3 * r->min_s, 1e3 * r->median_s,
                1e3 * r->broadphase_s, same, 1e3 * r->resting_s, 1e3 * r->cpu_s, 1e3 * r->cpu_mean_s);
        if (isfinite(r->stateless_s))
        {
            fprintf(f, "%s_stateless,%u,%u,1,stateless,,,%u,%u,,,,,,,%.3f\n", s->kind, s->n, tris, r->stateless_pairs,
                    r->stateless_pairs, 1e3 * r->stateless_s);
        }
    }
    if (isfinite(r->stateless_s) && r->info.touching_pairs > 0 && r->stateless_pairs > 0)
    {
        // Per touching pair: the step's CPU time (every candidate, broad phase, forces) against one stateless query.
        double step = r->cpu_s / r->info.touching_pairs, alone = r->stateless_s / r->stateless_pairs;
        double mean = r->cpu_mean_s / r->info.touching_pairs, median = r->cpu_median_s / r->info.touching_pairs;
        printf("per touching pair (%s, 1 thread): step %.2f us CPU (min; median %.2f, mean %.2f), stateless warm query "
               "%.2f us CPU (%u pairs, %.2f ms): step / stateless %.3fx (min), %.3fx (median), %.3fx (mean)\n",
               coherent ? "coherent" : "cold", 1e6 * step, 1e6 * median, 1e6 * mean, 1e6 * alone, r->stateless_pairs,
               1e3 * r->stateless_s, step / alone, median / alone, mean / alone);
    }
    fprintf(stderr, "%s %u bodies, %u threads, %s: wrench hash %016llx, region hash %016llx, first call %.2f ms CPU\n",
            s->kind, s->n, threads, coherent ? "coherent" : "cold", (unsigned long long)r->hash,
            (unsigned long long)r->regions, 1e3 * r->first_cpu_s);
    fflush(stdout);
}

static int parse_list(const char* s, uint32_t* out, int cap)
{
    int n = 0;
    while (*s != '\0' && n < cap)
    {
        char* end = NULL;
        out[n++] = (uint32_t)strtoul(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s != '\0')
        {
            return -1;
        }
    }
    return n;
}

int main(int argc, char** argv)
{
    const char* kind = "spheres";
    uint32_t sizes[8] = {27, 216, 1000, 8000}, threads[8] = {1, 2};
    int nsizes = 4, nthreads = 2, calls = 20;
    const char* csv = NULL;
    for (uint32_t f = 0; f < sizeof s_bin_default / sizeof s_bin_default[0]; ++f)
    {
        s_bin_files[s_bin_file_count++] = s_bin_default[f];
    }
    const char* poses_in = NULL;  // the bin's snapshot to read instead of dropping the parts
    const char* poses_out = NULL; // where to write the bin's snapshot
    bool with_bullet = true, with_cold = true, with_coherent = true;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "--no-bullet") == 0 || strcmp(argv[i], "--no-cold") == 0 ||
            strcmp(argv[i], "--no-coherent") == 0)
        {
            with_bullet = with_bullet && strcmp(argv[i], "--no-bullet") != 0;
            with_cold = with_cold && strcmp(argv[i], "--no-cold") != 0;
            with_coherent = with_coherent && strcmp(argv[i], "--no-coherent") != 0;
            continue;
        }
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
        {
            kind = argv[++i];
        }
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
        {
            nsizes = parse_list(argv[++i], sizes, 8);
        }
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
        {
            nthreads = parse_list(argv[++i], threads, 8);
        }
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
        {
            calls = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "--parts") == 0 && i + 1 < argc)
        {
            s_bin_file_count = 0;
            for (char* t = strtok(argv[++i], ","); t != NULL; t = strtok(NULL, ","))
            {
                if (s_bin_file_count == BIN_MAX_FILES)
                {
                    fprintf(stderr, "bench_many: --parts takes at most %u files\n", BIN_MAX_FILES);
                    return 2;
                }
                s_bin_files[s_bin_file_count++] = t;
            }
        }
        else if (strcmp(argv[i], "--sleep") == 0)
        {
            s_sleep = true;
        }
        else if (strcmp(argv[i], "--verbose") == 0)
        {
            s_verbose = true;
        }
        else if (strcmp(argv[i], "--memory") == 0)
        {
            s_memory = true;
        }
        else if (strcmp(argv[i], "--drift") == 0 && i + 1 < argc)
        {
            s_drift = atof(argv[++i]);
        }
        else if (strcmp(argv[i], "--poses") == 0 && i + 1 < argc)
        {
            poses_in = argv[++i];
        }
        else if (strcmp(argv[i], "--save-poses") == 0 && i + 1 < argc)
        {
            poses_out = argv[++i];
        }
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
        {
            csv = argv[++i];
        }
        else
        {
            fprintf(stderr,
                    "usage: bench_many [-s spheres|chain|bin] [--parts FILE,FILE,...] [--poses FILE] [--save-poses "
                    "FILE] [-n bodies,...] [-t threads,...] [-c calls] "
                    "[-o out.csv] [--no-bullet] [--no-cold] [--no-coherent] [--drift X] [--sleep] [--verbose] "
                    "[--memory]\n");
            return 2;
        }
    }
    if (nsizes < 1 || nthreads < 1 || calls < 1 ||
        (strcmp(kind, "spheres") != 0 && strcmp(kind, "chain") != 0 && strcmp(kind, "bin") != 0))
    {
        fprintf(stderr, "bench_many: bad arguments\n");
        return 2;
    }
#ifdef MC_BENCH_BULLET
    int scalar_bytes = 0;
    int bv = bullet_bench_version(&scalar_bytes);
    printf("Bullet %d.%02d found (btScalar of %d bytes)%s\n", bv / 100, bv % 100, scalar_bytes,
           with_bullet ? "" : ", not run (--no-bullet)");
#else
    (void)with_bullet;
    printf("Bullet not found: meshcontact only\n");
#endif
    FILE* f = csv != NULL ? fopen(csv, "w") : NULL;
    if (f != NULL)
    {
        fprintf(
            f,
            "scene,bodies,triangles,threads,coherence,create_ms,world_mb,candidate_pairs,touching_pairs,regions,min_ms,"
            "median_ms,broadphase_ms,same_bits,unchanged_poses_ms,cpu_min_ms,cpu_mean_ms\n");
    }
    printf(
        "| scene | bodies | threads | queries | create ms | world MB | candidates | touching | regions | warm min ms | "
        "median ms | broad phase ms | speed-up | same bits | unchanged poses ms | CPU min ms |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (int a = 0; a < nsizes; ++a)
    {
        scene s;
        memset(&s, 0, sizeof s);
        int made = strcmp(kind, "chain") == 0 ? make_chain(sizes[a], &s)
                   : strcmp(kind, "bin") == 0 ? make_bin(sizes[a], poses_in, &s)
                                              : make_grid(sizes[a], &s);
        if (made != 0 || (poses_out != NULL && s.body_mesh != NULL && save_poses(&s, poses_out) != 0))
        {
            return 1;
        }
        result first, versus;
        memset(&first, 0, sizeof first);
        memset(&versus, 0, sizeof versus);
        for (int b = 0; b < nthreads * 2; ++b)
        {
            // Each thread count cold (coherence off), then coherent: the same bits are expected from all.
            bool coherent = (b % 2) == 1;
            if ((coherent && !with_coherent) || (!coherent && !with_cold))
            {
                continue;
            }
            result r;
            if (run(&s, (int)threads[b / 2], coherent, calls, &r) != 0)
            {
                fprintf(stderr, "bench_many: run failed\n");
                return 1;
            }
            if (b == 0 || (b == 1 && !with_cold))
            {
                first = r;
            }
            if (b <= 1)
            {
                versus = r; // Bullet against the first thread count's coherent row (the world's default) when it runs
            }
            bool same = r.hash == first.hash && r.regions == first.regions;
            status |= !same || (s.expected > 0 && r.info.touching_pairs != s.expected);
            print_row(&s, &r, threads[b / 2], coherent, &first, same, f);
        }
#ifdef MC_BENCH_BULLET
        if (with_bullet)
        {
            run_bullet(&s, calls, &versus, (int)threads[0], f);
        }
#endif
        if (s.expected > 0 && first.info.touching_pairs != s.expected)
        {
            fprintf(stderr, "bench_many: %u touching pairs, expected %u\n", first.info.touching_pairs, s.expected);
        }
        scene_free(&s);
    }
    if (f != NULL)
    {
        fclose(f);
    }
    if (s_sleep_failed)
    {
        fprintf(stderr, "bench_many: a sleeping pile differed from the awake one or cost 10 %% or more of its step\n");
        status = 1;
    }
    return status;
}
