// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Manifold as a peer of bench_regions -M: the scene's two meshes are written to a temporary file (I's frame, as
// float32, which is what Manifold's JS meshes take, and as float64), bench/manifold/manifold_bench.mjs times Manifold's
// intersection + volume under node on both (the float64 positions set by warpBatch, the tolerance lowered to Manifold's
// double epsilon: see the script), and our region query and CGAL's exact corefinement run on meshes made from the
// same coordinates, so that the volumes compare on identical input.
#define _POSIX_C_SOURCE 200809L
#include "manifold_peer.h"

#ifdef MC_BENCH_CGAL
#include "cgal_bench.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// The folder of the node script: $MC_SOURCE_ROOT/bench/manifold, else bench/manifold.
static void peer_dir(char* out, size_t cap)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    snprintf(out, cap, "%s%sbench/manifold", root != NULL ? root : "", root != NULL ? "/" : "");
}

int manifold_peer_setup(void)
{
    char dir[4096], probe[4200], cmd[8400];
    peer_dir(dir, sizeof dir);
    snprintf(probe, sizeof probe, "%s/node_modules/manifold-3d/package.json", dir);
    if (access(probe, R_OK) == 0)
    {
        return 0;
    }
    if (system("command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1") != 0)
    {
        fprintf(stderr, "bench_regions: -M needs node and npm (Debian: apt-get install -y nodejs npm)\n");
        return -1;
    }
    fprintf(stderr, "bench_regions: installing manifold-3d into %s/node_modules (npm install)\n", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && npm install --no-audit --no-fund --silent >&2", dir);
    if (system(cmd) != 0 || access(probe, R_OK) != 0)
    {
        fprintf(stderr, "bench_regions: npm install of manifold-3d failed in %s\n", dir);
        return -1;
    }
    return 0;
}

/// Write the scene's meshes (I's frame, float32 then float64) to `path` and make our meshes from the same
/// coordinates: `ours` from the float32 ones, `ours_d` from the float64 ones.
static int write_pair(const scene_pair* s, const char* path, mc_mesh* ours[2], mc_mesh* ours_d[2])
{
    FILE* f = fopen(path, "wb");
    if (f == NULL)
    {
        return -1;
    }
    mc_pose inv_i = mc_pose_inverse(&s->pose_i);
    mc_pose to_i[2] = {mc_pose_identity(), mc_pose_mul(&inv_i, &s->pose_j)};
    const mc_mesh* m[2] = {s->mesh_i, s->mesh_j};
    uint32_t head[4] = {mc_mesh_get_vertex_count(m[0]), mc_mesh_get_triangle_count(m[0]),
                        mc_mesh_get_vertex_count(m[1]), mc_mesh_get_triangle_count(m[1])};
    int bad = fwrite(head, sizeof head, 1, f) != 1;
    for (int b = 0; b < 2 && !bad; ++b)
    {
        uint32_t nv = head[2 * b], nt = head[2 * b + 1];
        float* fp = malloc(3u * (size_t)nv * sizeof *fp);
        double* dp = malloc(3u * (size_t)nv * sizeof *dp);
        double* ep = malloc(3u * (size_t)nv * sizeof *ep);
        const mc_vec3* p = mc_mesh_get_positions(m[b]);
        const uint32_t* ix = mc_mesh_get_indices(m[b]);
        bad = fp == NULL || dp == NULL || ep == NULL;
        for (uint32_t v = 0; v < nv && !bad; ++v)
        {
            mc_vec3 q = mc_pose_transform(&to_i[b], p[v]);
            double e[3] = {q.x, q.y, q.z};
            for (int a = 0; a < 3; ++a)
            {
                fp[3u * v + (uint32_t)a] = (float)e[a];
                dp[3u * v + (uint32_t)a] = fp[3u * v + (uint32_t)a];
                ep[3u * v + (uint32_t)a] = e[a];
            }
        }
        bad = bad || fwrite(fp, sizeof *fp, 3u * (size_t)nv, f) != 3u * (size_t)nv ||
              fwrite(ix, sizeof *ix, 3u * (size_t)nt, f) != 3u * (size_t)nt ||
              fwrite(ep, sizeof *ep, 3u * (size_t)nv, f) != 3u * (size_t)nv;
        ours[b] = bad ? NULL : scene_mesh_from_arrays(dp, nv, ix, nt);
        ours_d[b] = bad ? NULL : scene_mesh_from_arrays(ep, nv, ix, nt);
        bad = bad || ours[b] == NULL || ours_d[b] == NULL;
        free(fp);
        free(dp);
        free(ep);
    }
    return fclose(f) != 0 || bad ? -1 : 0;
}

/// Our volume of the pair of rounded meshes (identity poses).
static double our_volume(mc_mesh* ours[2])
{
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return NAN;
    }
    mc_region regions[256];
    uint32_t n = 0;
    mc_pose o = mc_pose_identity();
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    double v = NAN;
    if (mc_query_regions(ours[0], &o, ours[1], &o, &opt, ws, regions, 256, &n, NULL) == MC_OK)
    {
        v = 0.0;
        for (uint32_t k = 0; k < n; ++k)
        {
            v += regions[k].volume;
        }
    }
    mc_workspace_destroy(ws);
    return v;
}

/// CGAL's exact intersection volume of the rounded meshes (both in I's frame), or NAN.
static double exact_volume(mc_mesh* ours[2])
{
    double v = NAN;
#ifdef MC_BENCH_CGAL
    double* pos[2] = {NULL, NULL};
    for (int b = 0; b < 2; ++b)
    {
        uint32_t nv = mc_mesh_get_vertex_count(ours[b]);
        const mc_vec3* p = mc_mesh_get_positions(ours[b]);
        pos[b] = malloc(3u * (size_t)nv * sizeof *pos[b]);
        for (uint32_t k = 0; k < nv && pos[b] != NULL; ++k)
        {
            pos[b][3u * k] = p[k].x, pos[b][3u * k + 1u] = p[k].y, pos[b][3u * k + 2u] = p[k].z;
        }
    }
    double seconds = 0.0;
    if (pos[0] == NULL || pos[1] == NULL ||
        cgal_bench_intersection(pos[0], mc_mesh_get_vertex_count(ours[0]), mc_mesh_get_indices(ours[0]),
                                mc_mesh_get_triangle_count(ours[0]), pos[1], mc_mesh_get_vertex_count(ours[1]),
                                mc_mesh_get_indices(ours[1]), mc_mesh_get_triangle_count(ours[1]), &v, &seconds) != 0)
    {
        v = NAN;
    }
    free(pos[0]);
    free(pos[1]);
#else
    (void)ours;
#endif
    return v;
}

/// One mode's figures from the script's JSON line: `"mode":{"volume":V,"seconds":S,"tolerance":T,"input_rel":R}`.
/// @return 0, or -1 when the mode is missing or null (left NAN)
static int parse_mode(const char* line, const char* mode, manifold_peer_mode* out)
{
    char key[32];
    snprintf(key, sizeof key, "\"%s\":{", mode);
    out->volume = out->seconds = out->tolerance = out->input_rel = NAN;
    const char* m = strstr(line, key);
    if (m == NULL)
    {
        return -1;
    }
    const char* v = strstr(m, "\"volume\":");
    const char* t = strstr(m, "\"seconds\":");
    const char* e = strstr(m, "\"tolerance\":");
    const char* r = strstr(m, "\"input_rel\":");
    if (v == NULL || t == NULL || e == NULL || sscanf(v + 9, "%lf", &out->volume) != 1 ||
        sscanf(t + 10, "%lf", &out->seconds) != 1 || sscanf(e + 12, "%lf", &out->tolerance) != 1 || r == NULL ||
        sscanf(r + 12, "%lf", &out->input_rel) != 1)
    {
        return -1;
    }
    return 0;
}

int manifold_peer_run(const scene_pair* s, int repeats, manifold_peer_result* out)
{
    memset(out, 0, sizeof *out);
    out->volume_exact = out->volume_exact_d = NAN;
    char dir[4096], path[] = "/tmp/mc_manifold_XXXXXX", cmd[9000];
    int fd = mkstemp(path);
    if (fd < 0)
    {
        return -1;
    }
    close(fd);
    mc_mesh* ours[2] = {NULL, NULL};
    mc_mesh* ours_d[2] = {NULL, NULL};
    int rc = write_pair(s, path, ours, ours_d);
    if (rc == 0)
    {
        out->volume_ours = our_volume(ours);
        out->volume_ours_d = our_volume(ours_d);
        out->volume_exact = exact_volume(ours);
        out->volume_exact_d = exact_volume(ours_d);
        peer_dir(dir, sizeof dir);
        snprintf(cmd, sizeof cmd, "node '%s/manifold_bench.mjs' %d '%s'", dir, repeats, path);
        FILE* p = popen(cmd, "r");
        char line[2048] = "";
        rc = p == NULL || fgets(line, sizeof line, p) == NULL ? -1 : 0;
        if (p != NULL && pclose(p) != 0)
        {
            rc = -1;
        }
        if (rc != 0 || parse_mode(line, "f32", &out->f32) != 0)
        {
            fprintf(stderr, "bench_regions: %s: Manifold gave no result (%s)\n", s->name, line);
            rc = -1;
        }
        parse_mode(line, "f64", &out->f64); // null when two vertices share a float32 position (then NAN)
        parse_mode(line, "f32_default", &out->f32_default);
        const char* st = strstr(line, "\"status\":\"");
        if (st != NULL)
        {
            sscanf(st + 10, "%63[^\"]", out->status);
        }
    }
    mc_mesh_destroy(ours[0]);
    mc_mesh_destroy(ours[1]);
    mc_mesh_destroy(ours_d[0]);
    mc_mesh_destroy(ours_d[1]);
    unlink(path);
    return rc;
}
