// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Self-check benchmark: the cost of the self-intersection and nesting check (bvh/bvh_self.c) against the OBB tree
// build and the whole mesh creation, on generated meshes (cube spheres, a torus) and on mesh files.
// Usage: bench_selfcheck [-r REPEATS] [-t THREADS,...] [-n TRIANGLES] [-o CSV] [FILE...]
// For each mesh (generated at about TRIANGLES, default 1M: a cube sphere, a torus, and a box with grid faces as is and
// turned out of the axis planes, unless files are given): minimum over REPEATS of the tree build, the
// self-intersection pairs at each thread count, the nesting classification, and mc_mesh_create (files:
// mc_mesh_import_file) with the check skipped and with it (MC_SELF_CHECK_ACCEPT, so that a failing file is timed too).
#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "meshcontact/meshcontact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// A mesh to measure: generated arrays (path NULL) or a file.
typedef struct bench_input
{
    const char* name;
    const char* path;
    double* positions;
    uint32_t vertex_count;
    uint32_t* indices;
    uint32_t triangle_count;
} bench_input;

static mc_status make(const bench_input* in, mc_self_check mode, mc_mesh** m, mc_mesh_report* rep, mc_error* err)
{
    if (in->path != NULL)
    {
        mc_import_options o = mc_default_import_options();
        o.self_check = mode;
        return mc_mesh_import_file(in->path, &o, m, rep, err);
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = in->positions;
    d.vertex_count = in->vertex_count;
    d.indices = in->indices;
    d.triangle_count = in->triangle_count;
    d.self_check = mode;
    return mc_mesh_create(&d, m, rep, err);
}

#define MAX_THREAD_COUNTS 4

typedef struct bench_row
{
    uint32_t triangles;
    double tree, nesting, create_skip, create_check;
    double pairs[MAX_THREAD_COUNTS];
    mc_self_result sr;
    mc_nesting nest;
} bench_row;

static int measure(const bench_input* in, int repeats, const int* threads, int nthreads, bench_row* row)
{
    for (int k = 0; k < MAX_THREAD_COUNTS; ++k)
    {
        row->pairs[k] = 1e30;
    }
    row->tree = row->nesting = row->create_skip = row->create_check = 1e30;
    for (int r = 0; r < repeats; ++r)
    {
        mc_mesh* m = NULL;
        mc_mesh_report rep;
        mc_error err;
        double t0 = now();
        if (make(in, MC_SELF_CHECK_SKIP, &m, &rep, &err) != MC_OK)
        {
            fprintf(stderr, "bench_selfcheck: %s: %s\n", in->name, err.message);
            return 1;
        }
        double t1 = now();
        row->create_skip = fmin(row->create_skip, t1 - t0);
        row->triangles = m->triangle_count;
        mc_bvh_destroy(m->bvh);
        m->bvh = NULL;
        t0 = now();
        mc_status st = mc_bvh_build(m);
        t1 = now();
        row->tree = fmin(row->tree, t1 - t0);
        for (int k = 0; k < nthreads && st == MC_OK; ++k)
        {
            t0 = now();
            st = mc_bvh_self_intersections(m, threads[k], NULL, 0, NULL, &row->sr);
            t1 = now();
            row->pairs[k] = fmin(row->pairs[k], t1 - t0);
        }
        t0 = now();
        st = st == MC_OK ? mc_bvh_classify_components(m, NULL, &row->nest) : st;
        t1 = now();
        row->nesting = fmin(row->nesting, t1 - t0);
        mc_mesh_destroy(m);
        m = NULL;
        t0 = now();
        st = st == MC_OK ? make(in, MC_SELF_CHECK_ACCEPT, &m, &rep, &err) : st;
        t1 = now();
        row->create_check = fmin(row->create_check, t1 - t0);
        mc_mesh_destroy(m);
        if (st != MC_OK)
        {
            fprintf(stderr, "bench_selfcheck: %s: failed (%s)\n", in->name, mc_status_string(st));
            return 1;
        }
    }
    return 0;
}

static int parse_threads(const char* text, int* threads)
{
    int n = 0;
    for (const char* p = text; *p != '\0' && n < MAX_THREAD_COUNTS;)
    {
        char* end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 256)
        {
            return 0;
        }
        threads[n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int generate(mc_primitive_type type, mc_vec3 dims, uint32_t target, const char* name, bench_input* in)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    memset(in, 0, sizeof *in);
    in->name = name;
    mc_error err;
    if (mc_primitive_tessellate_count(&d, target, &in->positions, &in->vertex_count, &in->indices, &in->triangle_count,
                                      &err) != MC_OK)
    {
        fprintf(stderr, "bench_selfcheck: %s: %s\n", name, err.message);
        return 1;
    }
    return 0;
}

/// A flat-faced mesh like a CAD export: the box [-1, 1] x [-0.5, 0.5] x [-0.25, 0.25] with each face cut into an n x n
/// grid of quads split in two (about `target` triangles), turned by 0.3 rad about x and 0.69 about z when `turn` (its
/// faces then lie in no axis plane, where the predicates' filter cannot tell coplanar signs and exact arithmetic or
/// the projected tests decide them).
static int box_grid(uint32_t target, int turn, const char* name, bench_input* in)
{
    uint32_t n = (uint32_t)fmax(1.0, floor(sqrt(target / 12.0) + 0.5)), per = (n + 1u) * (n + 1u);
    memset(in, 0, sizeof *in);
    in->name = name;
    in->vertex_count = 6u * per;
    in->triangle_count = 12u * n * n;
    in->positions = malloc(3u * (size_t)in->vertex_count * sizeof(double));
    in->indices = malloc(3u * (size_t)in->triangle_count * sizeof(uint32_t));
    if (in->positions == NULL || in->indices == NULL)
    {
        return 1;
    }
    const double h[3] = {1.0, 0.5, 0.25};
    double c = cos(0.3), s = sin(0.3), c2 = cos(0.69), s2 = sin(0.69);
    uint32_t k = 0;
    for (uint32_t f = 0; f < 6u; ++f)
    {
        uint32_t ax = f / 2u, u = (ax + 1u) % 3u, w = (ax + 2u) % 3u, base = f * per;
        double side = f % 2u ? 1.0 : -1.0;
        for (uint32_t i = 0; i <= n; ++i)
        {
            for (uint32_t j = 0; j <= n; ++j)
            {
                double x[3];
                x[ax] = side * h[ax];
                x[u] = -h[u] + 2.0 * h[u] * i / n;
                x[w] = -h[w] + 2.0 * h[w] * j / n;
                double* o = &in->positions[3u * (base + i * (n + 1u) + j)];
                double y = turn ? c * x[1] - s * x[2] : x[1], z = turn ? s * x[1] + c * x[2] : x[2];
                o[0] = turn ? c2 * x[0] - s2 * y : x[0];
                o[1] = turn ? s2 * x[0] + c2 * y : y;
                o[2] = z;
            }
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                uint32_t a = base + i * (n + 1u) + j, b = a + n + 1u;
                // (u, w, outward axis) is right-handed for the + faces: counter-clockwise seen from outside
                uint32_t q[4] = {a, b, b + 1u, a + 1u};
                if (side < 0.0)
                {
                    uint32_t t = q[1];
                    q[1] = q[3];
                    q[3] = t;
                }
                const uint32_t tri[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
                memcpy(&in->indices[k], tri, sizeof tri);
                k += 6u;
            }
        }
    }
    return 0;
}

int main(int argc, char** argv)
{
    int repeats = 3, threads[MAX_THREAD_COUNTS] = {1, 2}, nthreads = 2;
    uint32_t target = 1000000;
    const char* csv = NULL;
    bench_input inputs[64];
    int ninputs = 0;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
        {
            repeats = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
        {
            nthreads = parse_threads(argv[++i], threads);
        }
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
        {
            target = (uint32_t)strtoul(argv[++i], NULL, 10);
        }
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
        {
            csv = argv[++i];
        }
        else if (argv[i][0] != '-' && ninputs < 64)
        {
            const char* slash = strrchr(argv[i], '/');
            inputs[ninputs++] = (bench_input){slash != NULL ? slash + 1 : argv[i], argv[i], NULL, 0, NULL, 0};
        }
        else
        {
            fprintf(stderr, "usage: bench_selfcheck [-r REPEATS] [-t THREADS,...] [-n TRIANGLES] [-o CSV] [FILE...]\n");
            return 2;
        }
    }
    if (repeats < 1 || nthreads < 1 || target < 12)
    {
        fprintf(stderr, "bench_selfcheck: bad arguments\n");
        return 2;
    }
    if (ninputs == 0)
    {
        if (generate(MC_PRIMITIVE_ELLIPSOID, mc_v3(1.0, 1.0, 1.0), target, "sphere", &inputs[0]) != 0 ||
            generate(MC_PRIMITIVE_TORUS, mc_v3(1.0, 0.3, 0.0), target, "torus", &inputs[1]) != 0 ||
            box_grid(target, 0, "box_grid", &inputs[2]) != 0 || box_grid(target, 1, "box_grid_turned", &inputs[3]) != 0)
        {
            fprintf(stderr, "bench_selfcheck: cannot make the generated meshes\n");
            return 1;
        }
        ninputs = 4;
    }
    FILE* out = csv != NULL ? fopen(csv, "w") : NULL;
    char head[256];
    int n = snprintf(head, sizeof head, "mesh,triangles,tree_s");
    for (int k = 0; k < nthreads; ++k)
    {
        n += snprintf(head + n, sizeof head - (size_t)n, ",pairs_t%d_s", threads[k]);
    }
    snprintf(head + n, sizeof head - (size_t)n,
             ",nesting_s,create_skip_s,create_check_s,pair_count,box_tests,triangle_tests,nested,inverted\n");
    fputs(head, stdout);
    if (out != NULL)
    {
        fputs(head, out);
    }
    int status = 0;
    for (int i = 0; i < ninputs && status == 0; ++i)
    {
        bench_row row;
        status = measure(&inputs[i], repeats, threads, nthreads, &row);
        if (status != 0)
        {
            break;
        }
        char line[512];
        n = snprintf(line, sizeof line, "%s,%u,%.4f", inputs[i].name, row.triangles, row.tree);
        for (int k = 0; k < nthreads; ++k)
        {
            n += snprintf(line + n, sizeof line - (size_t)n, ",%.4f", row.pairs[k]);
        }
        snprintf(line + n, sizeof line - (size_t)n, ",%.5f,%.4f,%.4f,%llu,%llu,%llu,%u,%u\n", row.nesting,
                 row.create_skip, row.create_check, (unsigned long long)row.sr.pair_count,
                 (unsigned long long)row.sr.box_tests, (unsigned long long)row.sr.triangle_tests, row.nest.same_winding,
                 row.nest.inverted);
        fputs(line, stdout);
        fflush(stdout);
        if (out != NULL)
        {
            fputs(line, out);
        }
    }
    if (out != NULL)
    {
        fclose(out);
    }
    for (int i = 0; i < ninputs; ++i)
    {
        if (i < 2)
        {
            mc_free_arrays(inputs[i].positions, inputs[i].indices); // the tessellator's arrays
        }
        else
        {
            free(inputs[i].positions);
            free(inputs[i].indices);
        }
    }
    return status;
}
