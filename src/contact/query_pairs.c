// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The public triangle-pair query: the world-frame wrapper of the OBB-tree pair stage (mc_collide).
#include "bvh/bvh.h"
#include "src/base/core.h"
#include "src/contact/workspace.h"

#include <math.h>
#include <string.h>

mc_query_options mc_default_query_options(void)
{
    mc_query_options o;
    memset(&o, 0, sizeof o);
    o.worker_count = 0;
    o.depth_method = MC_DEPTH_ADAMS;
    o.internal_value = (int)MC_DEF_COOKIE;
    return o;
}

bool mc_query_prepare(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j, const mc_pose* pose_j,
                      const mc_query_options* options, const mc_workspace* ws, mc_query_options* opt, mc_pose* pi,
                      mc_pose* j_in_i)
{
    MC_ASSERT(options == NULL || options->internal_value == (int)MC_DEF_COOKIE);
    if (mesh_i == NULL || pose_i == NULL || mesh_j == NULL || pose_j == NULL || ws == NULL ||
        (options != NULL && options->internal_value != (int)MC_DEF_COOKIE) || !mc_pose_is_valid(pose_i) ||
        !mc_pose_is_valid(pose_j))
    {
        return false;
    }
    *opt = options != NULL ? *options : mc_default_query_options();
    mc_query_relative_pose(pose_i, pose_j, pi, j_in_i);
    return true;
}

void mc_query_relative_pose(const mc_pose* pose_i, const mc_pose* pose_j, mc_pose* pi, mc_pose* j_in_i)
{
    // From locals, stored once (copying the poses and reading them back stalled on store forwarding: perf).
    const mc_quat qi = mc_quat_normalize(pose_i->q), qj = mc_quat_normalize(pose_j->q);
    const mc_vec3 d = mc_sub(pose_j->p, pose_i->p);
    pi->p = pose_i->p;
    pi->q = qi;
    // J in I's frame: R_i^T (p_j - p_i), the difference first (exact for bodies near each other, wherever they are).
    j_in_i->q = mc_quat_mul(mc_quat_conj(qi), qj);
    j_in_i->p = mc_quat_rotate(mc_quat_conj(qi), d);
}

mc_status mc_query_triangle_pairs(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                  const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                  mc_triangle_pair* pairs, uint32_t capacity, uint32_t* pair_count,
                                  mc_query_stats* stats)
{
    mc_query_options opt;
    mc_pose pi, j_in_i;
    if (pair_count == NULL || (pairs == NULL && capacity > 0) ||
        !mc_query_prepare(mesh_i, pose_i, mesh_j, pose_j, options, ws, &opt, &pi, &j_in_i))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    // The pairs go straight into the caller's array, their crossing points mapped to the world frame on the way.
    mc_pair_sink sink;
    sink.pairs = pairs;
    sink.capacity = capacity;
    sink.rot = mc_quat_to_mat33(pi.q);
    sink.trans = pi.p;
    mc_query_stats local;
    memset(&local, 0, sizeof local);
    uint32_t found = 0;
    // No stats wanted: none gathered (mc_collide_into then reads no clock).
    mc_status st = mc_collide_into(mesh_i, mesh_j, &j_in_i, opt.worker_count, &ws->pairs, &sink, &found,
                                   stats != NULL ? &local : NULL);
    if (st != MC_OK)
    {
        return st;
    }
    *pair_count = found;
    if (stats != NULL)
    {
        memset(stats, 0, sizeof *stats);
        stats->box_tests = local.box_tests;
        stats->triangle_tests = local.triangle_tests;
        stats->triangle_pairs = local.triangle_pairs;
        // Each pair has two crossings, and each crossing (an edge of a closed mesh through a face of the other) is
        // shared by the pairs of the edge's two triangles: distinct crossings = 2 * pairs / 2.
        stats->crossings = local.triangle_pairs;
        stats->threads = local.threads;
        stats->seconds_pairs = local.seconds_pairs;
    }
    return found > capacity ? MC_ERR_CAPACITY : MC_OK;
}
