// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact patches (mc_query_patches): the intersection curve of each region as closed polylines, chained from the
// pair stage's segments, and a reduced manifold of a few of its vertices (query.h, mc_patch).
#pragma once

#include "bvh/bvh.h"
#include "meshcontact/query.h"

#include <stddef.h>
#include <stdint.h>

struct mc_workspace;

/// The patch of one written region inside a patch scratch (world frame).
typedef struct mc_patch_meta
{
    uint32_t point_first;    ///< first vertex in the scratch's points (and first loop end in its ends)
    uint32_t point_count;    ///< vertices of the region's loops
    uint32_t loop_count;     ///< loops (their ends are ends[point_first .. point_first + loop_count))
    uint32_t open_loops;     ///< walks that did not close
    uint32_t manifold_count; ///< manifold points in use
    mc_manifold_point manifold[MC_MANIFOLD_MAX];
} mc_patch_meta;

/// The patches of the last query that asked for them (ws->patch_manifold > 0); grown on demand, then kept.
typedef struct mc_patch_scratch
{
    uint32_t* label;       ///< per triangle pair: output region, MC_NONE (touching or not written); bit 31: walked
    uint32_t label_cap;    ///< entries allocated
    uint32_t* rank;        ///< per region accumulator of the region stage: its output index, or MC_NONE
    uint32_t rank_cap;     ///< entries allocated
    mc_vec3* points;       ///< all vertices, region after region (world frame)
    uint32_t point_cap;    ///< entries allocated
    uint32_t* ends;        ///< loop ends, at the same offsets as the region's points (relative to its first vertex)
    uint32_t end_cap;      ///< entries allocated
    mc_patch_meta* meta;   ///< per written region
    uint32_t meta_cap;     ///< entries allocated
    uint32_t region_count; ///< regions with a patch (the written regions of the last query)
    uint32_t point_count;  ///< vertices in use
} mc_patch_scratch;

/// Build the patches of the `written` regions of the last region stage on ws (regions in the world frame, as the
/// query returns them), from its triangle pairs `pr` (I's frame) and the union-find labels the region stage left.
/// @param pi pose of I (normalised), @param j_in_i J in I's frame, @param manifold_points 1 .. MC_MANIFOLD_MAX
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_patches_build(struct mc_workspace* ws, const struct mc_mesh* mi, const struct mc_mesh* mj,
                           const mc_pair_result* pr, const mc_pose* pi, const mc_pose* j_in_i, const mc_region* regions,
                           uint32_t written, uint32_t manifold_points);

/// Patches of regions that have no triangle pairs (analytic shapes, or no query): no loop, the centroid as the one
/// manifold point with the region's depth.
void mc_patch_meta_centroid(mc_patch_meta* m, const mc_region* region);

/// The view of patch k of a scratch (valid until the scratch changes).
void mc_patch_view(const mc_patch_meta* m, const mc_vec3* points, const uint32_t* ends, mc_patch* out);

/// Choose up to `want` manifold points among `count` vertices of one region (see query.h, mc_patch).
/// @return the number chosen (written to out)
uint32_t mc_manifold_reduce(const mc_vec3* points, uint32_t count, mc_vec3 centroid, mc_vec3 normal, double depth,
                            uint32_t want, mc_manifold_point* out);

/// Free a patch scratch (NULL ignored). @return its bytes (mc_patch_scratch_byte_count).
void mc_patch_scratch_destroy(mc_patch_scratch* s);
/// Bytes held by a patch scratch (0 for NULL).
size_t mc_patch_scratch_byte_count(const mc_patch_scratch* s);
