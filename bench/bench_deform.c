// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Deforming-mesh benchmark (issue 34): per step, the deformation of a UV sphere of n triangles (breathing plus a
// travelling wave: every vertex moves every step) pressed into a rigid sphere of n triangles, then the pair query
// (every intersecting triangle pair). meshcontact: mc_mesh_set_positions (checks, refit, region blocks) +
// mc_query_triangle_pairs, and + mc_query_regions (volumes) as a second figure; beside a rigid sphere at the same
// poses (no deformation) as the reference. With FCL (libfcl-dev): BVHModel<OBBd> and <OBBRSSd> beginUpdateModel /
// updateSubModel / endUpdateModel(refit) + fcl::collide (all contacts) on the same positions; with Bullet
// (libbullet-dev): btGImpactMeshShape's vertices replaced, postUpdate + updateBound (refit), and the collision
// detection of a btCollisionWorld. One thread.
// Prints a table: median per step over the steps (thread CPU ms: wall times on a loaded machine varied 10-fold),
// the pair counts of the last step.
// Usage: bench_deform [-s 1000,10000,100000] [-n steps] [-p 0] (-p 0: meshcontact only, no peers: for profiling)
#include "scenes.h"

#ifdef MC_BENCH_FCL
#include "fcl_bench.h"
#endif
#ifdef MC_BENCH_BULLET
#include "bullet_bench.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); // the thread's CPU time: the machine is shared
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Step k's positions: radius times 1 + 0.02 sin(0.3 k) + 0.01 sin(6 z - 0.5 k) (a breathing sphere with a wave).
static void positions_at(const mc_vec3* rest, uint32_t nv, int k, double* p)
{
    for (uint32_t v = 0; v < nv; ++v)
    {
        double s = 1.0 + 0.02 * sin(0.3 * k) + 0.01 * sin(6.0 * rest[v].z - 0.5 * k);
        p[3 * v] = s * rest[v].x;
        p[3 * v + 1] = s * rest[v].y;
        p[3 * v + 2] = s * rest[v].z;
    }
}

static void run_size(uint32_t target, int steps, int peers)
{
    mc_mesh* flex = scene_uv_sphere(0.5, target);
    mc_mesh* rigid_copy = scene_uv_sphere(0.5, target); // the same sphere, never deformed
    mc_mesh* other = scene_uv_sphere(0.5, target);
    (void)peers; // read only when FCL or Bullet is built in
    if (flex == NULL || rigid_copy == NULL || other == NULL)
    {
        fprintf(stderr, "mesh creation failed\n");
        exit(1);
    }
    uint32_t nv = mc_mesh_get_vertex_count(flex), nt = mc_mesh_get_triangle_count(flex);
    mc_vec3* rest = malloc(nv * sizeof *rest);
    memcpy(rest, mc_mesh_get_positions(flex), nv * sizeof *rest);
    double* p = malloc(3u * nv * sizeof *p);
    mc_pose pi = mc_pose_identity(), pj = mc_pose_identity();
    pj.p = mc_v3(0.9, 0.1, 0.05);
    pj.q = (mc_quat){0.9238795325112867, 0.0, 0.3826834323650898, 0.0};
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_workspace* ws = NULL;
    mc_workspace_create(&ws);
    uint32_t cap = 4u * nt;
    mc_triangle_pair* pairs = malloc(cap * sizeof *pairs);
    mc_region reg[16];
    double* t_refit = malloc(steps * sizeof(double));
    double* t_pairs = malloc(steps * sizeof(double));
    double* t_regions = malloc(steps * sizeof(double));
    double* t_rigid = malloc(steps * sizeof(double));
    uint32_t np = 0, nr = 0, np_rigid = 0;
    for (int k = -2; k < steps; ++k) // two warm-up steps
    {
        positions_at(rest, nv, k, p);
        double t0 = now();
        mc_mesh_set_positions(flex, p, nv, NULL);
        double t1 = now();
        mc_query_triangle_pairs(other, &pi, flex, &pj, &opt, ws, pairs, cap, &np, NULL);
        double t2 = now();
        mc_query_regions(other, &pi, flex, &pj, &opt, ws, reg, 16, &nr, NULL);
        double t3 = now();
        mc_query_triangle_pairs(other, &pi, rigid_copy, &pj, &opt, ws, pairs, cap, &np_rigid, NULL);
        double t4 = now();
        if (k >= 0)
        {
            t_refit[k] = t1 - t0;
            t_pairs[k] = t2 - t1;
            t_regions[k] = t3 - t2;
            t_rigid[k] = t4 - t3;
        }
    }
    mc_mesh_deform_info info = mc_mesh_get_deform_info(flex);
    printf("%7u  meshcontact  refit %.3f  pairs %.3f  (refit+pairs %.3f)  regions %.3f  rigid pairs %.3f  ms; "
           "%u pairs (rigid %u), %u rebuilds, tree measure %.3f of built\n",
           nt, 1e3 * median(t_refit, steps), 1e3 * median(t_pairs, steps),
           1e3 * (median(t_refit, steps) + median(t_pairs, steps)), 1e3 * median(t_regions, steps),
           1e3 * median(t_rigid, steps), np, np_rigid, info.rebuilds, info.tree_cost / info.tree_cost_built);
#ifdef MC_BENCH_FCL
    const mc_vec3* op = mc_mesh_get_positions(other);
    const double pa[3] = {0, 0, 0}, qa[4] = {1, 0, 0, 0};
    const double pb[3] = {pj.p.x, pj.p.y, pj.p.z}, qb[4] = {pj.q.w, pj.q.x, pj.q.y, pj.q.z};
    const char* names[2] = {"FCL OBB", "FCL OBBRSS"};
    for (int bv = 0; peers && bv < 2; ++bv)
    {
        double s, c;
        size_t tb, mb;
        positions_at(rest, nv, 0, p);
        fcl_bench_model* fo =
            fcl_bench_build((fcl_bench_bv)bv, &op[0].x, mc_mesh_get_vertex_count(other), mc_mesh_get_indices(other),
                            mc_mesh_get_triangle_count(other), &s, &c, &tb, &mb);
        fcl_bench_model* ff = fcl_bench_build((fcl_bench_bv)bv, p, nv, mc_mesh_get_indices(flex), nt, &s, &c, &tb, &mb);
        uint64_t fp = 0;
        for (int k = -2; k < steps; ++k)
        {
            positions_at(rest, nv, k, p);
            double su, cu, sc, cc;
            fcl_bench_update(ff, p, nv, &su, &cu);
            fp = fcl_bench_collide(fo, pa, qa, ff, pb, qb, 1, &sc, &cc);
            if (k >= 0)
            {
                t_refit[k] = cu;
                t_pairs[k] = cc;
                (void)su, (void)sc;
            }
        }
        printf("%7u  %-11s  update %.3f  collide %.3f  (update+collide %.3f)  ms; %llu pairs\n", nt, names[bv],
               1e3 * median(t_refit, steps), 1e3 * median(t_pairs, steps),
               1e3 * (median(t_refit, steps) + median(t_pairs, steps)), (unsigned long long)fp);
        fcl_bench_destroy(ff);
        fcl_bench_destroy(fo);
    }
#endif
#ifdef MC_BENCH_BULLET
    if (peers)
    {
        // Bullet: the rigid sphere and the deforming one as two btGImpactMeshShapes in a btCollisionWorld, the flex
        // mesh's vertices replaced and its tree refitted every step, then the collision detection (broad phase,
        // GImpact's pairs, contact points). Bullet reports contact points, not triangle pairs.
        const mc_vec3* rigid = mc_mesh_get_positions(other);
        double* opd = malloc(3u * mc_mesh_get_vertex_count(other) * sizeof *opd);
        for (uint32_t v = 0; v < mc_mesh_get_vertex_count(other); ++v)
        {
            opd[3 * v] = rigid[v].x, opd[3 * v + 1] = rigid[v].y, opd[3 * v + 2] = rigid[v].z;
        }
        positions_at(rest, nv, 0, p);
        const double* pos[2] = {opd, p};
        const uint32_t nvs[2] = {mc_mesh_get_vertex_count(other), nv};
        const uint32_t* idx[2] = {mc_mesh_get_indices(other), mc_mesh_get_indices(flex)};
        const uint32_t nts[2] = {mc_mesh_get_triangle_count(other), nt};
        const uint32_t body_mesh[2] = {0, 1};
        const double poses[14] = {0, 0, 0, 1, 0, 0, 0, pj.p.x, pj.p.y, pj.p.z, pj.q.w, pj.q.x, pj.q.y, pj.q.z};
        bullet_bench_world* bw = bullet_bench_create_meshes(2, pos, nvs, idx, nts, body_mesh, poses, 2);
        uint32_t manifolds = 0, points = 0;
        for (int k = -2; k < steps; ++k)
        {
            positions_at(rest, nv, k, p);
            double t0 = now();
            bullet_bench_update_mesh(bw, 1, p);
            double t1 = now();
            bullet_bench_step(bw, &manifolds, &points);
            double t2 = now();
            if (k >= 0)
            {
                t_refit[k] = t1 - t0;
                t_pairs[k] = t2 - t1;
            }
        }
        int scalar = 0;
        int version = bullet_bench_version(&scalar);
        printf("%7u  Bullet %d.%02d  refit %.3f  collide %.3f  (refit+collide %.3f)  ms; %u contact points (%d-byte "
               "scalars)\n",
               nt, version / 100, version % 100, 1e3 * median(t_refit, steps), 1e3 * median(t_pairs, steps),
               1e3 * (median(t_refit, steps) + median(t_pairs, steps)), points, scalar);
        bullet_bench_destroy(bw);
        free(opd);
    }
#endif
    free(t_refit), free(t_pairs), free(t_regions), free(t_rigid);
    free(pairs), free(p), free(rest);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(flex);
    mc_mesh_destroy(rigid_copy);
    mc_mesh_destroy(other);
}

int main(int argc, char** argv)
{
    const char* sizes = "1000,10000,100000";
    int steps = 20, peers = 1;
    for (int a = 1; a + 1 < argc; a += 2)
    {
        if (strcmp(argv[a], "-s") == 0)
        {
            sizes = argv[a + 1];
        }
        else if (strcmp(argv[a], "-n") == 0)
        {
            steps = atoi(argv[a + 1]);
        }
        else if (strcmp(argv[a], "-p") == 0)
        {
            peers = atoi(argv[a + 1]);
        }
    }
    printf(
        "deforming sphere vs rigid sphere, n triangles each, median thread CPU time per step over %d steps, 1 thread\n",
        steps);
    for (const char* s = sizes; *s != '\0';)
    {
        uint32_t n = (uint32_t)strtoul(s, (char**)&s, 10);
        run_size(n, steps, peers);
        s += *s == ',';
    }
    return 0;
}
