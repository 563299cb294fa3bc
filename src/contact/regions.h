// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Region stage: from the triangle pairs of two solids, the connected components of their intersection with volume,
// centroid, vector areas, normal and depth (W. R. Franklin's local formulas, see src/contact/FORMULAS.md).
#pragma once

#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "meshcontact/query.h"
#include "src/contact/region_derivative.h"

#include <stdbool.h>
#include <stdint.h>

struct mc_workspace;
struct mc_region_scratch;

/// Options of the region stage (internal: the public query fills them from mc_query_options).
typedef struct mc_region_options
{
    mc_depth_method depth_method; ///< how the depth of each region is measured
    /// true (default): a triangle entirely inside the other solid contributes its divergence-theorem terms
    /// (one triple product); false: it contributes its six vertex flags (pure Franklin, for tests of equivalence)
    bool triangle_terms;
    /// true (default): patches of triangles in no triangle pair are flooded and summed as blocks
    /// (src/contact/regions_blocks.h); false: per vertex and per face (for tests of equivalence)
    bool use_blocks;
    /// NULL (default), or an array of `capacity` entries (mc_regions_compute's) receiving the derivatives of the
    /// written regions under a rigid motion of J relative to I (region_derivative.h; I's body frame)
    mc_region_derivative* derivatives;
} mc_region_options;

/// @return the defaults: Adams depth, triangle terms on, blocks on.
mc_region_options mc_default_region_options(void);

/// Regions of I ∩ J from the result of mc_collide on the same workspace, in I's body frame, sorted by decreasing
/// volume (ties: by the index of the region's first crossing in the pair array, then by its first inside vertex).
/// Zero-volume regions of exact touching are not written (counted in stats->touching_regions).
/// @param mi, mj the two meshes (not both flipped)
/// @param j_in_i pose of J's body frame in I's body frame (the one given to mc_collide)
/// @param pairs result of mc_collide(mi, mj, j_in_i, ..., ws, ...)
/// @param ws the same workspace (its pair scratch holds J's vertices in I's frame)
/// @param options may be NULL for defaults
/// @param out caller buffer of capacity entries (NULL allowed when capacity is 0)
/// @param count receives the number of regions (MC_ERR_CAPACITY when it exceeds capacity; the largest are written)
/// @param stats may be NULL; crossings, inside_vertices, regions and touching_regions are written
mc_status mc_regions_compute(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                             const mc_pair_result* pairs, struct mc_workspace* ws, const mc_region_options* options,
                             mc_region* out, uint32_t capacity, uint32_t* count, mc_query_stats* stats);

struct mc_region_plan;
/// Free a pair's region plan (temporal coherence, see regions.c). NULL is ignored.
void mc_region_plan_destroy(struct mc_region_plan* plan);
/// Forget a pair's region plan (keeps its memory). NULL is ignored.
void mc_region_plan_reset(struct mc_region_plan* plan);
/// Bytes owned by a region plan (0 for NULL).
size_t mc_region_plan_byte_count(const struct mc_region_plan* plan);
/// Add a region plan's bytes to `*used` (the struct, the entries of its last recording and its kept pairs) and to
/// `*held` (the struct and its allocations). NULL adds nothing. Memory statistics for tests and benchmarks.
void mc_region_plan_memory(const struct mc_region_plan* plan, size_t* used, size_t* held);
/// Depth hints a pair's plan has given (regions.c, "Depth hints": bounds of the Adams depth from the pair's last
/// query), one per body and query; for the tests. 0 for NULL.
uint64_t mc_region_plan_hints_used(const struct mc_region_plan* plan);
/// Prefetch a pair's plan data and kept pairs (NULL: nothing); changes nothing. A pair's plan is read once per step, so
/// it is rarely in cache when a query restores it: a caller that knows its next pair can call this one query ahead
/// (mc_query_regions also calls it, before its pair stage runs).
void mc_region_plan_prefetch(const struct mc_region_plan* plan);
/// Prefetch a plan's own record (NULL: nothing), without reading it: what mc_region_plan_prefetch reads (see
/// mc_pair_front_prefetch_record).
void mc_region_plan_prefetch_record(const struct mc_region_plan* plan);

/// Free the region scratch of a workspace (called by mc_workspace_destroy). NULL is ignored.
void mc_region_scratch_destroy(struct mc_region_scratch* scratch);
/// Bytes owned by the region stage's scratch (0 for NULL).
size_t mc_region_scratch_byte_count(const struct mc_region_scratch* scratch);

/// MC_DEPTH_SMOOTH (smooth_depth.c): replace the depth of region r (I's frame, with its Adams points) by the overlap of
/// the local planes or spheres fitted to both meshes' vertices near those points (see query.h).
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_smooth_depth(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, mc_region* r,
                          struct mc_workspace* ws);

/// The point of triangle (a, b, c) closest to p (regions.c; also the shape queries' depth).
mc_vec3 mc_closest_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c);

/// mc_query_regions (world-frame regions) with, for each written region, the derivatives of its quantities under a
/// rigid motion of J relative to I, in I's body frame (region_derivative.h: slots and what is held fixed).
/// MC_DEPTH_SMOOTH gives no depth derivative (flag MC_RDERIV_NO_DEPTH).
/// @param derivatives caller buffer of `capacity` entries (NULL allowed when capacity is 0)
mc_status mc_query_regions_derivatives(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                       const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                       mc_region* regions, mc_region_derivative* derivatives, uint32_t capacity,
                                       uint32_t* region_count);

/// After mc_regions_compute on this scratch (any path: run or restored plan): `node_region` maps every union-find node
/// to its region accumulator (node 2 p + slot: the crossing in that slot of triangle pair p; both ends of a pair's
/// segment are in one set), `order` lists the accumulators in output order (its first `count` entries are the
/// written regions, count as mc_regions_compute returned), `accumulators` is how many there are (touching ones
/// included). Used by the contact patches (patches.c). Valid until the scratch's next query.
void mc_regions_last_map(const struct mc_region_scratch* scratch, const uint32_t** node_region, const uint32_t** order,
                         uint32_t* accumulators);
