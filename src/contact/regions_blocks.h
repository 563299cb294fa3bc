// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Blocks of a mesh for the region stage: small edge-connected patches of triangles with the divergence-theorem terms
// of their triangles aggregated as polynomials in the origin, so that a patch entirely inside the other solid is
// flooded and summed in O(1) instead of per vertex and per face (src/contact/FORMULAS.md, "per-node aggregates").
#pragma once

#include "mesh/mesh_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/// Most triangles in one block.
#define MC_BLOCK_TRIANGLES 64u

/// Topology of one block (what the flood reads).
typedef struct mc_block_topo
{
    uint32_t tri_first;  ///< first triangle in mc_region_blocks.tris
    uint32_t tri_count;  ///< triangles of the block (edge-connected, 1 .. MC_BLOCK_TRIANGLES)
    uint32_t nbr_first;  ///< first neighbour entry (mc_region_blocks.nbr_block / nbr_vfirst)
    uint32_t nbr_count;  ///< blocks sharing at least one vertex with this one
    uint32_t vert_count; ///< vertices owned by the block (the block of the face of their vertex_halfedge)
} mc_block_topo;

/// Sums of one block's triangles (a, b, c) taken relative to the block's center: with N = (b - a) x (c - a),
/// D = a . (b x c) and G = a + b + c, the terms about any origin o (o' = o - center) are
/// 6V = d6 - o'.s2, 24 * first moment = p24 - 3 d6 o' - m o' + 3 (o'.s2) o', 2 * vector area = s2.
typedef struct mc_block_sums
{
    mc_vec3 center; ///< mean of the triangle centroids (body frame)
    double radius;  ///< upper bound of the distance from center to any point of the block (rounding included)
    double d6;      ///< sum of D
    mc_vec3 s2;     ///< sum of N
    mc_vec3 p24;    ///< sum of D G
    double m[9];    ///< sum of G N^T, row-major (m[3 i + j] = sum G_i N_j)
    mc_vec3 vsum;   ///< sum of the positions of the owned vertices (body frame)
} mc_block_sums;

/// The blocks of one mesh (immutable once published on the mesh).
typedef struct mc_region_blocks
{
    mc_mesh_cache base;   ///< destroy hook (first member: the mesh holds a pointer to it)
    uint32_t block_count; ///< number of blocks
    uint32_t* tri_block;  ///< triangle_count: block of each triangle
    uint32_t* tris;       ///< triangle_count: triangles grouped by block (breadth-first order within a block)
    mc_block_topo* topo;  ///< block_count
    mc_block_sums* sums;  ///< block_count
    uint32_t* nbr_block;  ///< neighbour entries: the other block
    uint32_t* nbr_vfirst; ///< neighbour entries + 1: shared vertices of entry e are shared_v[nbr_vfirst[e] ..
                          ///< nbr_vfirst[e + 1])
    uint32_t* shared_v;   ///< vertices shared with each neighbour, ascending per entry
    size_t byte_count;    ///< bytes owned
    /// the mesh's geometry_version the sums (and vert_count) were computed for: a deformed mesh's blocks are refreshed
    /// by the first mc_region_blocks_get after mc_mesh_set_positions, not by the deformation (a host that asks only
    /// for pairs never pays for them)
    _Atomic(uint64_t) sums_version;
    atomic_int refreshing; ///< 1 while one caller refreshes the sums (the others wait for sums_version)
} mc_region_blocks;

/// The blocks of `mesh`, built on first use and published on the mesh (thread-safe: concurrent first callers build
/// the same blocks and all but one copy are freed), their sums refreshed for the mesh's current positions when it
/// was deformed since (one caller computes them, concurrent callers wait; allocates nothing). NULL when out of memory
/// (callers then work per face).
const mc_region_blocks* mc_region_blocks_get(const struct mc_mesh* mesh);
