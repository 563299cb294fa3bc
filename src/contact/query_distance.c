// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The public distance query: the OBB-tree branch and bound (bvh/bvh_distance.c), with the exact pair stage and the
// exact containment test deciding the cases of distance 0.
#include "bvh/bvh.h"
#include "src/base/core.h"
#include "src/contact/workspace.h"

#include <float.h>
#include <math.h>
#include <string.h>

/// Is a vertex of some connected component of `inner` (placed at `inner_in_outer` in outer's frame) inside `outer`?
/// @return the component's vertex in outer's frame through *where, or false
static bool component_inside(const mc_mesh* outer, const mc_mesh* inner, const mc_pose* inner_in_outer, mc_vec3* where)
{
    for (uint32_t c = 0; c < inner->component_count; ++c)
    {
        mc_vec3 p = mc_pose_transform(inner_in_outer, inner->positions[inner->component_vertex[c]]);
        if (mc_mesh_contains_point(outer, p))
        {
            *where = p;
            return true;
        }
    }
    return false;
}

mc_status mc_query_distance(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j, const mc_pose* pose_j,
                            double max_distance, const mc_query_options* options, mc_workspace* ws,
                            mc_distance_result* result)
{
    mc_query_options opt;
    mc_pose pi, j_in_i;
    if (result == NULL || !(max_distance > 0.0) ||
        !mc_query_prepare(mesh_i, pose_i, mesh_j, pose_j, options, ws, &opt, &pi, &j_in_i))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_bvh_distance_result d;
    mc_status st = mc_bvh_distance(mesh_i, mesh_j, &j_in_i, max_distance, &ws->distance, &d);
    if (st != MC_OK)
    {
        return st;
    }
    mc_distance_result r;
    memset(&r, 0, sizeof r);
    r.box_tests = d.box_tests;
    r.triangle_tests = d.triangle_tests;
    r.triangle_i = d.tri_i;
    r.triangle_j = d.tri_j;
    r.distance = d.distance;
    r.kind = d.distance < max_distance ? MC_DISTANCE_SEPARATED : MC_DISTANCE_BEYOND;
    mc_vec3 at_i = d.point_i, at_j = d.point_j;
    // Below the rounding of the coordinates the floating-point distance cannot tell crossing from touching: the
    // exact pair stage decides.
    bool decided = false;
    if (d.distance <= 64.0 * DBL_EPSILON * d.magnitude)
    {
        mc_pair_result pairs;
        st = mc_collide(mesh_i, mesh_j, &j_in_i, opt.worker_count, &ws->pairs, &pairs, NULL);
        if (st != MC_OK)
        {
            return st;
        }
        if (pairs.pair_count > 0)
        {
            r.kind = MC_DISTANCE_INTERSECTING;
            r.triangle_i = pairs.pairs[0].i;
            r.triangle_j = pairs.pairs[0].j;
            at_i = at_j = pairs.pairs[0].crossing[0].point;
            decided = true;
        }
    }
    // No crossing: one solid may still hold the other (or a component of it).
    mc_pose i_in_j = mc_pose_inverse(&j_in_i);
    mc_vec3 v;
    if (!decided && component_inside(mesh_i, mesh_j, &j_in_i, &v))
    {
        r.kind = MC_DISTANCE_CONTAINED;
        at_i = at_j = v;
        decided = true;
    }
    else if (!decided && component_inside(mesh_j, mesh_i, &i_in_j, &v))
    {
        r.kind = MC_DISTANCE_CONTAINED;
        at_i = at_j = mc_pose_transform(&j_in_i, v);
        decided = true;
    }
    if (decided)
    {
        r.distance = 0.0;
        if (r.kind == MC_DISTANCE_CONTAINED)
        {
            r.triangle_i = r.triangle_j = MC_NONE;
        }
    }
    else if (r.kind == MC_DISTANCE_BEYOND)
    {
        r.distance = max_distance;
        r.triangle_i = r.triangle_j = MC_NONE;
        *result = r;
        return MC_OK;
    }
    r.point_i = mc_pose_transform(&pi, at_i);
    r.point_j = mc_pose_transform(&pi, at_j);
    *result = r;
    return MC_OK;
}
