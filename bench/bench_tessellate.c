// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark of primitive tessellation: time to tessellate (and to build a checked mesh from) spheres of 1e3 .. 1e6
// triangles and other shapes of about 1e5, minimum over repeats. Prints CSV on stdout.
#include "meshcontact/meshcontact.h"

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

typedef struct bench_case
{
    const char* name;
    mc_primitive_type type;
    double x, y, z;
    uint32_t target;
} bench_case;

int main(int argc, char** argv)
{
    int repeats = 5;
    for (int i = 1; i + 1 < argc; ++i)
    {
        if (strcmp(argv[i], "-r") == 0)
        {
            repeats = atoi(argv[++i]);
        }
    }
    if (repeats < 1)
    {
        repeats = 1;
    }
    const bench_case cases[] = {
        {"sphere", MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1000},         {"sphere", MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 10000},
        {"sphere", MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 100000},       {"sphere", MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1000000},
        {"ellipsoid", MC_PRIMITIVE_ELLIPSOID, 2, 1, 0.75, 100000}, {"cylinder", MC_PRIMITIVE_CYLINDER, 1, 0, 3, 100000},
        {"cone", MC_PRIMITIVE_FRUSTUM, 1, 0, 2, 100000},           {"torus", MC_PRIMITIVE_TORUS, 1, 0.3, 0, 100000},
    };
    printf("shape,target,triangles,vertices,tessellate_ms,mesh_create_ms\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    {
        mc_primitive_def d = mc_default_primitive_def();
        d.type = cases[c].type;
        d.dims = mc_v3(cases[c].x, cases[c].y, cases[c].z);
        double best_t = 1e300, best_m = 1e300;
        uint32_t nv = 0, nt = 0;
        for (int r = 0; r < repeats; ++r)
        {
            double* pos = NULL;
            uint32_t* idx = NULL;
            mc_error err;
            double t0 = now();
            if (mc_primitive_tessellate_count(&d, cases[c].target, &pos, &nv, &idx, &nt, &err) != MC_OK)
            {
                fprintf(stderr, "bench_tessellate: %s: %s\n", cases[c].name, err.message);
                return 1;
            }
            double t1 = now();
            mc_mesh_def md = mc_default_mesh_def();
            md.positions = pos;
            md.vertex_count = nv;
            md.indices = idx;
            md.triangle_count = nt;
            mc_mesh* m = NULL;
            double t2 = now();
            if (mc_mesh_create(&md, &m, NULL, &err) != MC_OK)
            {
                fprintf(stderr, "bench_tessellate: %s: %s\n", cases[c].name, err.message);
                return 1;
            }
            double t3 = now();
            mc_mesh_destroy(m);
            mc_free_arrays(pos, idx);
            best_t = t1 - t0 < best_t ? t1 - t0 : best_t;
            best_m = t3 - t2 < best_m ? t3 - t2 : best_m;
        }
        printf("%s,%u,%u,%u,%.3f,%.3f\n", cases[c].name, cases[c].target, nt, nv, 1e3 * best_t, 1e3 * best_m);
    }
    return 0;
}
