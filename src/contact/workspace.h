// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_workspace: the scratch of the pair stage (bvh/) and of the region stage (src/contact/), each
// created on first use by its stage and freed by mc_workspace_destroy (src/contact/workspace.c).
#pragma once

#include "meshcontact/query.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mc_pair_scratch;
struct mc_region_scratch;
struct mc_shape_scratch;
struct mc_distance_scratch;
struct mc_patch_scratch;

struct mc_workspace
{
    struct mc_pair_scratch* pairs;        ///< owned by the pair stage (bvh/bvh_collide.c), created on first use
    struct mc_region_scratch* regions;    ///< owned by the region stage (src/contact/regions.c), created on first use
    struct mc_shape_scratch* shapes;      ///< owned by the shape queries (src/contact/analytic.c), created on first use
    struct mc_distance_scratch* distance; ///< owned by the distance query (bvh/bvh_distance.c), created on first use
    /// Temporal coherence: when not NULL, the traversal front slot of the pair being queried (set by the world
    /// around one query, owned by its pair record): mc_query_regions then runs mc_collide_front with it (bvh.h).
    struct mc_pair_front** front;
    /// Temporal coherence: when not NULL, the region plan slot of the pair being queried (set with `front`, owned by
    /// its pair record): the region stage keeps and restores the pair's combinatorics there (src/contact/regions.c).
    struct mc_region_plan** plan;
    uint32_t* smooth_tris;           ///< MC_DEPTH_SMOOTH (smooth_depth.c): triangles near a contact point
    uint32_t smooth_tri_capacity;    ///< entries allocated in smooth_tris
    uint32_t* smooth_vertices;       ///< MC_DEPTH_SMOOTH: their vertices near the point
    uint32_t smooth_vertex_capacity; ///< entries allocated in smooth_vertices
    /// Contact patches (src/contact/patches.c): when patch_manifold > 0 (1 .. MC_MANIFOLD_MAX), a mesh pair's region
    /// query also builds the patches of its written regions into `patches` (created on first use).
    struct mc_patch_scratch* patches;
    uint32_t patch_manifold; ///< manifold points asked for; 0: no patches (the default)
};

/// Free the shape queries' scratch (src/contact/analytic.c). NULL is ignored.
void mc_shape_scratch_destroy(struct mc_shape_scratch* s);
/// Bytes held by the shape queries' scratch.
size_t mc_shape_scratch_byte_count(const struct mc_shape_scratch* s);

/// The poses of a query: `pi` receives pose_i with its quaternion normalised, `j_in_i` J's body frame in I's body frame
/// (R_i^T (p_j - p_i), the difference first: exact for bodies near each other wherever they are).
void mc_query_relative_pose(const mc_pose* pose_i, const mc_pose* pose_j, mc_pose* pi, mc_pose* j_in_i);

/// Check the arguments every pair-of-meshes query shares (meshes, poses in range, workspace, options with their
/// cookie) and prepare them: `opt` receives the options (defaults for NULL), `pi` and `j_in_i` as in
/// mc_query_relative_pose. @return false on an invalid argument (nothing written)
bool mc_query_prepare(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j, const mc_pose* pose_j,
                      const mc_query_options* options, const mc_workspace* ws, mc_query_options* opt, mc_pose* pi,
                      mc_pose* j_in_i);
