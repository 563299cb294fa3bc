// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The self-check's pairs at fan vertices (bvh/bvh_self_fan.c): triangles that share exactly one vertex of high degree
// (a cap fanned from one vertex) are decided by an angular sweep around it instead of the tree's all-pairs traversal,
// whose boxes all meet at the shared vertex (quadratic in the fan's size).
#pragma once

#include "meshcontact/mesh.h"

#include <stdint.h>

/// Vertices of at least this many triangles are fan vertices (below it the traversal's pair tests are cheaper).
#define MC_SELF_FAN_DEGREE 48u

/// One flag per vertex: 1 for the vertices of at least min_degree triangles, into *fan (NULL when there is none).
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY (*fan NULL)
mc_status mc_self_fan_vertices(const struct mc_mesh* mesh, uint32_t min_degree, uint8_t** fan);

/// Receives an intersecting pair (mesh triangle indices, t < u).
typedef void (*mc_self_fan_emit)(void* ctx, uint32_t t, uint32_t u);

/// Every pair of triangles that share exactly one vertex flagged in `fan` and intersect under the self-intersection
/// rule (src/base/tri_tri_closed.h, mc_tri_tri_self_intersect): each emitted once, in increasing (t, u) order. The
/// pairs that are not emitted provably do not intersect: exactly the pairs the traversal finds among them.
/// @param tests incremented by the exact tests made
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_self_fan_pairs(const struct mc_mesh* mesh, const uint8_t* fan, mc_self_fan_emit emit, void* ctx,
                            uint64_t* tests);
