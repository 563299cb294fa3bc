// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Test oracle for the region stage: volume, centroid and vector areas of I ∩ J by clipping triangles with their
// intersection segments and summing divergence-theorem terms (independent of the flag formulas). The vector areas
// leave out the flush pieces (a piece of a triangle on a triangle of the other mesh in the same plane), found by
// testing the triangle pairs whose boxes meet (exact coplanarity) and clipping one triangle by the other.
#pragma once

#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "meshcontact/query.h"

#include <stdint.h>

/// Totals of I ∩ J over all regions, in I's frame.
typedef struct clip_oracle_result
{
    double volume;        ///< total intersection volume
    mc_vec3 centroid;     ///< centroid of the whole intersection (origin when the volume is zero)
    mc_vec3 s_i;          ///< vector area of the part of ∂I inside J (outward normals of I), flush pieces left out
    mc_vec3 s_j;          ///< vector area of the part of ∂J inside I, flush pieces left out
    mc_vec3 flush_i;      ///< vector area of the flush pieces of ∂I left out of s_i
    mc_vec3 flush_j;      ///< vector area of the flush pieces of ∂J left out of s_j
    uint32_t kept_pieces; ///< boundary pieces kept (edge parts and segments)
    uint32_t inconsistent_edges; ///< triangle edges whose crossings' parity disagrees with the end vertices' states
    uint32_t inside_vertices_i;  ///< vertices of I inside J (exact point-in-mesh per vertex)
    uint32_t inside_vertices_j;  ///< vertices of J inside I
} clip_oracle_result;

/// Run the oracle. `pairs` must be the result of mc_collide(mi, mj, j_in_i, ..., ws, ...) on this workspace (J's
/// vertices in I's frame are taken from its pair scratch). Every vertex of both meshes gets one exact point-in-mesh
/// test, so the cost is O(n log n), and the flush pieces one test per pair of triangles whose boxes meet, O(n m) in
/// the worst case: for tests only.
/// @return 0 on success, -1 on allocation failure
int clip_oracle_compute(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pair_result* pairs,
                        struct mc_workspace* ws, clip_oracle_result* out);
