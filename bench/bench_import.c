// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Import benchmark: a closed torus of about 1M triangles written as binary STL, then timed: read + weld + checks
// (mc_mesh_check_file without the self-check), full import (adds topology, normals, components, the OBB tree and the
// self-check), the same without the self-check, and the OBB tree alone.
// Usage: bench_import [-n TRIANGLES] [-r REPEATS] [-o CSV]
#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "meshcontact/meshcontact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put_f32(FILE* f, double v)
{
    float x = (float)v;
    fwrite(&x, 4, 1, f); // little-endian host, as the format
}

// Torus with nu x nv quads split in two: 2 nu nv triangles, closed, outward.
static int write_torus_stl(const char* path, uint32_t nu, uint32_t nv)
{
    FILE* f = fopen(path, "wb");
    if (f == NULL)
    {
        return -1;
    }
    char header[80] = "meshcontact bench_import torus";
    fwrite(header, 1, 80, f);
    uint32_t n = 2 * nu * nv;
    fwrite(&n, 4, 1, f);
    const double R = 1.0, r = 0.3, two_pi = 6.283185307179586;
    for (uint32_t i = 0; i < nu; ++i)
    {
        for (uint32_t j = 0; j < nv; ++j)
        {
            double p[4][3];
            for (int c = 0; c < 4; ++c)
            {
                uint32_t a = (i + (c == 1 || c == 2)) % nu, b = (j + (c >= 2)) % nv;
                double u = two_pi * a / nu, v = two_pi * b / nv;
                p[c][0] = (R + r * cos(v)) * cos(u);
                p[c][1] = (R + r * cos(v)) * sin(u);
                p[c][2] = r * sin(v);
            }
            // quad corners: 0 = (i, j), 1 = (i+1, j), 2 = (i+1, j+1), 3 = (i, j+1); outward for this parametrisation
            static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (int t = 0; t < 2; ++t)
            {
                for (int k = 0; k < 3; ++k)
                {
                    put_f32(f, 0.0);
                }
                for (int k = 0; k < 3; ++k)
                {
                    for (int c = 0; c < 3; ++c)
                    {
                        put_f32(f, p[tri[t][k]][c]);
                    }
                }
                uint16_t attr = 0;
                fwrite(&attr, 2, 1, f);
            }
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char** argv)
{
    uint32_t target = 1000000;
    int repeats = 3;
    const char* csv = NULL;
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
        {
            target = (uint32_t)strtoul(argv[++i], NULL, 10);
        }
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
        {
            repeats = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
        {
            csv = argv[++i];
        }
        else
        {
            fprintf(stderr, "usage: bench_import [-n TRIANGLES] [-r REPEATS] [-o CSV]\n");
            return 2;
        }
    }
    if (repeats < 1 || target < 8)
    {
        fprintf(stderr, "bench_import: bad arguments\n");
        return 2;
    }
    uint32_t nv = (uint32_t)sqrt(target / 4.0);
    nv = nv < 3 ? 3 : nv;
    uint32_t nu = target / (2 * nv);
    nu = nu < 3 ? 3 : nu;
    const char* tmp = getenv("TMPDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/mc_bench_import_%ld.stl", tmp != NULL && tmp[0] ? tmp : ".", (long)getpid());
    if (write_torus_stl(path, nu, nv) != 0)
    {
        fprintf(stderr, "bench_import: cannot write %s\n", path);
        return 1;
    }
    double best_check = 1e30, best_import = 1e30, best_import_skip = 1e30, best_obb = 1e30;
    mc_mesh_report rep;
    uint32_t tris = 0;
    int status = 0;
    for (int rpt = 0; rpt < repeats; ++rpt)
    {
        mc_error err;
        double t0 = now();
        mc_import_options skip = mc_default_import_options();
        skip.self_check = MC_SELF_CHECK_SKIP;
        mc_status st = mc_mesh_check_file(path, &skip, &rep, &err);
        double t1 = now();
        if (st != MC_OK || !rep.contact_ready)
        {
            fprintf(stderr, "bench_import: check failed: %s\n", err.message);
            status = 1;
            break;
        }
        mc_mesh* m = NULL;
        double t2 = now();
        st = mc_mesh_import_file(path, NULL, &m, &rep, &err);
        double t3 = now();
        if (st != MC_OK)
        {
            fprintf(stderr, "bench_import: import failed: %s\n", err.message);
            status = 1;
            break;
        }
        tris = m->triangle_count;
        mc_mesh_destroy(m);
        m = NULL;
        double t6 = now();
        st = mc_mesh_import_file(path, &skip, &m, &rep, &err);
        double t7 = now();
        if (st != MC_OK)
        {
            fprintf(stderr, "bench_import: import failed: %s\n", err.message);
            status = 1;
            break;
        }
        best_import_skip = fmin(best_import_skip, t7 - t6);
        mc_bvh_destroy(m->bvh);
        m->bvh = NULL;
        double t4 = now();
        st = mc_bvh_build(m);
        double t5 = now();
        mc_mesh_destroy(m);
        if (st != MC_OK)
        {
            fprintf(stderr, "bench_import: OBB build failed\n");
            status = 1;
            break;
        }
        best_check = fmin(best_check, t1 - t0);
        best_import = fmin(best_import, t3 - t2);
        best_obb = fmin(best_obb, t5 - t4);
    }
    remove(path);
    if (status != 0)
    {
        return status;
    }
    const char* head =
        "triangles,vertices,repeats,load_weld_check_s,full_import_s,obb_build_s,import_no_self_check_s\n";
    char line[256];
    snprintf(line, sizeof line, "%u,%u,%d,%.4f,%.4f,%.4f,%.4f\n", tris, rep.vertices, repeats, best_check, best_import,
             best_obb, best_import_skip);
    fputs(head, stdout);
    fputs(line, stdout);
    if (csv != NULL)
    {
        FILE* f = fopen(csv, "w");
        if (f == NULL)
        {
            fprintf(stderr, "bench_import: cannot write %s\n", csv);
            return 1;
        }
        fputs(head, f);
        fputs(line, f);
        fclose(f);
    }
    return 0;
}
