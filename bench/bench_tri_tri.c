// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Micro-benchmark of the leaf test mc_tri_tri_crossings (and, for comparison, six mc_edge_triangle_cross calls) on
// sets of random triangle pairs: intersecting, AABB-overlapping (the typical leaf of a tree traversal), separated,
// and exactly degenerate (small integer coordinates: exact fallbacks and the symbolic rule).
// Usage: bench_tri_tri [-n pairs] [-r repeats]. Prints one line per set: ns per call (minimum over the repeats).
#include "src/base/tri_tri.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t g_rng = 0x853C49E6748FEA9Bull;
static uint64_t rnd_u64(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static double rnd_unit(void) // [-1, 1)
{
    return (double)(rnd_u64() >> 11) * 0x1p-52 - 1.0;
}

typedef struct pair
{
    mc_vec3 ti[3];
    mc_vec3 tj[3];
} pair;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// A triangle of size ~`size` around a centre within [-spread, spread]^3.
static void random_triangle(mc_vec3 t[3], double spread, double size)
{
    mc_vec3 c = mc_v3(spread * rnd_unit(), spread * rnd_unit(), spread * rnd_unit());
    for (int k = 0; k < 3; k++)
    {
        t[k] = mc_add(c, mc_v3(size * rnd_unit(), size * rnd_unit(), size * rnd_unit()));
    }
}

static int aabb_overlap(const mc_vec3 a[3], const mc_vec3 b[3])
{
    for (int axis = 0; axis < 3; axis++)
    {
        double alo = 1e300, ahi = -1e300, blo = 1e300, bhi = -1e300;
        for (int k = 0; k < 3; k++)
        {
            double va = (&a[k].x)[axis], vb = (&b[k].x)[axis];
            alo = va < alo ? va : alo;
            ahi = va > ahi ? va : ahi;
            blo = vb < blo ? vb : blo;
            bhi = vb > bhi ? vb : bhi;
        }
        if (ahi < blo || bhi < alo)
        {
            return 0;
        }
    }
    return 1;
}

enum
{
    SET_INTERSECTING,
    SET_AABB_OVERLAP,
    SET_SEPARATED,
    SET_DEGENERATE,
    SET_COUNT
};
static const char* s_set_names[SET_COUNT] = {"intersecting", "aabb_overlap", "separated", "degenerate_int"};

static void fill_set(int set, pair* pairs, int n)
{
    int filled = 0;
    while (filled < n)
    {
        pair p;
        mc_crossing out[2];
        if (set == SET_DEGENERATE)
        {
            for (int k = 0; k < 3; k++)
            {
                p.ti[k] = mc_v3((double)(rnd_u64() % 3) - 1, (double)(rnd_u64() % 3) - 1, (double)(rnd_u64() % 3) - 1);
                p.tj[k] = mc_v3((double)(rnd_u64() % 3) - 1, (double)(rnd_u64() % 3) - 1, (double)(rnd_u64() % 3) - 1);
            }
            mc_vec3 ni = mc_cross(mc_sub(p.ti[1], p.ti[0]), mc_sub(p.ti[2], p.ti[0]));
            mc_vec3 nj = mc_cross(mc_sub(p.tj[1], p.tj[0]), mc_sub(p.tj[2], p.tj[0]));
            if (mc_dot(ni, ni) == 0.0 || mc_dot(nj, nj) == 0.0)
            {
                continue;
            }
        }
        else
        {
            random_triangle(p.ti, 0.3, 0.5);
            random_triangle(p.tj, 0.3, 0.5);
            int c = mc_tri_tri_crossings(p.ti, p.tj, out);
            int box = aabb_overlap(p.ti, p.tj);
            if ((set == SET_INTERSECTING && c != 2) || (set == SET_AABB_OVERLAP && !box) ||
                (set == SET_SEPARATED && (c != 0 || box)))
            {
                continue;
            }
        }
        pairs[filled++] = p;
    }
}

static int brute(const pair* p, mc_crossing* out)
{
    int n = 0;
    for (int e = 0; e < 3; e++)
    {
        mc_vec3 x;
        int r = mc_edge_triangle_cross(p->ti[e], p->ti[(e + 1) % 3], p->tj[0], p->tj[1], p->tj[2], 0, &x, NULL);
        if (r != 0 && n < 2)
        {
            out[n++].point = x;
        }
        r = mc_edge_triangle_cross(p->tj[e], p->tj[(e + 1) % 3], p->ti[0], p->ti[1], p->ti[2], 1, &x, NULL);
        if (r != 0 && n < 2)
        {
            out[n++].point = x;
        }
    }
    return n;
}

int main(int argc, char** argv)
{
    int n = 100000, repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2)
    {
        if (strcmp(argv[i], "-n") == 0)
        {
            n = atoi(argv[i + 1]);
        }
        else if (strcmp(argv[i], "-r") == 0)
        {
            repeats = atoi(argv[i + 1]);
        }
    }
    if (n <= 0 || repeats <= 0)
    {
        fprintf(stderr, "bench_tri_tri: bad arguments\n");
        return 1;
    }
    pair* pairs = malloc(sizeof(pair) * (size_t)n);
    if (!pairs)
    {
        return 1;
    }
    printf("set,pairs,hit_fraction,tri_tri_ns_per_call,six_edge_tests_ns_per_call\n");
    for (int set = 0; set < SET_COUNT; set++)
    {
        fill_set(set, pairs, n);
        double best_fast = 1e300, best_slow = 1e300;
        long hits = 0, sink = 0;
        for (int r = 0; r < repeats; r++)
        {
            mc_crossing out[2];
            hits = 0;
            double t0 = now_seconds();
            for (int i = 0; i < n; i++)
            {
                int c = mc_tri_tri_crossings(pairs[i].ti, pairs[i].tj, out);
                hits += c;
                if (c)
                {
                    sink += out[0].point.x > 0.0;
                }
            }
            double t1 = now_seconds();
            for (int i = 0; i < n; i++)
            {
                int c = brute(&pairs[i], out);
                if (c)
                {
                    sink += out[0].point.x > 0.0;
                }
            }
            double t2 = now_seconds();
            best_fast = t1 - t0 < best_fast ? t1 - t0 : best_fast;
            best_slow = t2 - t1 < best_slow ? t2 - t1 : best_slow;
        }
        printf("%s,%d,%.3f,%.1f,%.1f\n", s_set_names[set], n, (double)hits / (2.0 * n), 1e9 * best_fast / n,
               1e9 * best_slow / n);
        if (sink == -1)
        {
            printf("unreachable\n");
        }
    }
    free(pairs);
    return 0;
}
