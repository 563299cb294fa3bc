// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of the OBB tree: a flat array of 64-byte nodes (float boxes, conservatively rounded) and the
// triangle permutation that makes every leaf a contiguous range.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996.
#pragma once

#include "bvh/bvh.h"

#include <stddef.h>
#include <stdint.h>

// AVX-512F versions of the build's hot loops, chosen at run time when the CPU has them (x86-64, GCC); they compute
// bitwise what the portable versions compute.
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define MC_BUILD_AVX512 1
#include <immintrin.h>
#else
#define MC_BUILD_AVX512 0
#endif

/// Bits of a leaf's triangle count field.
#define MC_BVH_LEAF_BITS 4
/// Most triangles in one leaf (the count field holds count - 1: 1..16). Sixteen is one 16-lane culling pass of the
/// queries; the bench scenes' 1k to 100k queries measured 0-10% faster than with 8 (box grids at 10k: 13% slower).
#define MC_BVH_LEAF_MAX 16u
/// Bit set in mc_bvh_node.data for a leaf.
#define MC_BVH_LEAF_BIT 0x80000000u
/// Most triangles a tree can index (27 bits of the leaf's first-triangle field: 134 million).
#define MC_BVH_MAX_TRIANGLES (1u << (31 - MC_BVH_LEAF_BITS))
/// Padding floats after each component array of mc_bvh.tri_local (a 16-lane load from the last triangle stays inside).
#define MC_BVH_LOCAL_PAD 16u

/// Absolute part of every float rounding bound of the tree and of the tests on it (the projections of the build, the
/// box tests and the leaf culling of the queries). Float arithmetic errs by at most 2^-24 relative only down to
/// FLT_MIN = 2^-126: below it (gradual underflow) each operation errs by up to 2^-150 absolutely, and a value under
/// 2^-150 becomes 0. Meshes may have coordinates down to MC_COORDINATE_MIN = 2^-240 (vec_math.h), so their float
/// boxes, offsets and projections can be subnormal or 0, and the relative bounds alone did not cover them (found:
/// two tori about 1e-44 across, a 1.5 % relative offset, missed 4 of their 89 crossing triangle pairs, and the
/// totals differed by 0.85 % with the meshes swapped). Each of these float expressions has a few dozen operations
/// with coefficients of magnitude at most a few (rotation entries, sums of three terms), so its absolute error is
/// far below 2^-140; 2^-126 covers it many times over. The bounds where it is added are doubles of at least 1e-20
/// for any mesh larger than about 1e-15, where 2^-126 is below half their ulp and changes nothing; a mesh whose
/// float values underflow gets boxes of at least this size (its pairs are then all decided by the exact tests).
#define MC_BVH_FLOAT_TINY 0x1p-126

/// One oriented box. The box is the parallelepiped {center + sum_k u_k axis[k] : |u_k| <= extent[k]} of the
/// float values exactly as stored; the build guarantees that it contains every vertex of the node's triangles
/// (extents are inflated by a bound of the rounding of axes and center to float and of the projections, then
/// rounded up), so tests on it are conservative.
typedef struct mc_bvh_node
{
    float axis[3][3]; ///< axis[k] = unit box axis k in the mesh frame (orthonormal up to float rounding)
    float center[3];  ///< box center, mesh frame
    float extent[3];  ///< half extents along the axes, conservative
    /// Internal node: index of the first child (the second child is data + 1).
    /// Leaf: MC_BVH_LEAF_BIT | (first << MC_BVH_LEAF_BITS) | (count - 1), `first` indexing mc_bvh.tri_order.
    uint32_t data;
} mc_bvh_node;

/// The tree of one mesh. Immutable after the build; shared between threads.
struct mc_bvh
{
    mc_bvh_node* nodes;     ///< node_count nodes, root first; children of a node are adjacent
    uint32_t node_count;    ///< number of nodes
    uint32_t node_capacity; ///< allocated nodes (>= node_count; not shrunk, which would copy the array)
    uint32_t* tri_order;    ///< triangle_count mesh triangle indices in leaf order
    uint32_t* tri_vertex;   ///< 3 * triangle_count vertex indices of tri_order's triangles (leaf-local copy)
    /// The vertices of tri_order's triangles as offsets from their leaf's (float) box center, rounded to float (the
    /// queries' leaf culling), as nine component arrays: component c of vertex v of the triangle at position p is
    /// tri_local[(3 v + c) * mc_bvh_local_stride(triangle_count) + p]. A leaf's triangles are then consecutive
    /// lanes of each array; the padding after each array is zero.
    float* tri_local;
    uint32_t triangle_count; ///< triangles of the mesh
    uint32_t depth;          ///< longest root-to-leaf path (root = 1)
    double max_abs_coord;    ///< largest |coordinate| of the mesh vertices (rounding bounds in queries)
    double bbox_lo[3];       ///< axis-aligned bounding box of the mesh vertices, lower corner
    double bbox_hi[3];       ///< axis-aligned bounding box of the mesh vertices, upper corner
    size_t byte_count;       ///< bytes owned (struct + arrays)
    /// 0 for a tree as built at mesh creation; a refit or rebuild by mc_mesh_set_positions gives it the mesh's new
    /// geometry_version (unique in the process), so that a cache keyed on the tree (a traversal front) sees the change
    uint64_t version;
    /// What the refit reads (bvh/bvh_refit.c): made by mc_bvh_refit_prepare at the tree's first deformation, NULL
    /// before; its bytes are counted in byte_count
    struct mc_refit_plan* refit_plan;
};

/// Make the tree's refit plan (bvh/bvh_refit.c) when it has none: the unique vertices of the triangles in leaf order,
/// each node's range of them and its border list (see mc_bvh_refit). Adds its bytes to the tree's and the mesh's
/// byte_count. Reads only the tree and the mesh's vertex count (call it before the new positions are committed).
/// @return MC_OK, or MC_ERR_OUT_OF_MEMORY (the tree unchanged)
mc_status mc_bvh_refit_prepare(struct mc_mesh* mesh);
/// Refit the tree of `mesh` to its current positions (mc_mesh_set_positions, bvh/bvh_refit.c): same topology, same
/// node axes, every box refitted on its axes to the vertices of its triangles (conservative as the build's boxes are),
/// the leaf-local float vertices, bounding box and largest coordinate recomputed. Needs the plan of
/// mc_bvh_refit_prepare; allocates nothing.
void mc_bvh_refit(struct mc_mesh* mesh);
/// Free a refit plan (mc_bvh_destroy); NULL is ignored.
void mc_refit_plan_destroy(struct mc_refit_plan* plan);
/// Tests only: when non-zero, refits use the portable projection loop even where a SIMD one is available (to check
/// that all give the same tree). Not for concurrent use with refits.
extern int mc_bvh_refit_portable;
/// Tests only: when non-zero, the AVX-512 refit gathers every corner of a leaf (leaf_avx512) instead of picking them
/// from the leaf's distinct vertices (leaf16_avx512). Not for concurrent use with refits.
extern int mc_bvh_refit_portable_leaves;
/// The cost measure of a tree: the sum of its nodes' box surface areas over the mesh's surface area (scale-free:
/// a uniformly scaled mesh keeps it). A refit tree's measure over the one right after its build says how much the
/// refit has degraded it (mc_mesh_set_positions rebuilds past MC_BVH_REBUILD_RATIO).
double mc_bvh_cost(const mc_bvh* bvh, double mesh_area);
/// A refitted tree is rebuilt when its cost measure exceeds this times the measure right after its last build.
#define MC_BVH_REBUILD_RATIO 1.5

/// @return true when node n is a leaf.
static inline int mc_bvh_is_leaf(const mc_bvh_node* n)
{
    return (n->data & MC_BVH_LEAF_BIT) != 0;
}
/// @return the length of each component array of mc_bvh.tri_local for a tree of triangle_count triangles.
static inline size_t mc_bvh_local_stride(uint32_t triangle_count)
{
    return (size_t)triangle_count + MC_BVH_LOCAL_PAD;
}
/// @return the first position in tri_order of a leaf.
static inline uint32_t mc_bvh_leaf_first(const mc_bvh_node* n)
{
    return (n->data & ~MC_BVH_LEAF_BIT) >> MC_BVH_LEAF_BITS;
}
/// @return the number of triangles of a leaf.
static inline uint32_t mc_bvh_leaf_count(const mc_bvh_node* n)
{
    return (n->data & ((1u << MC_BVH_LEAF_BITS) - 1u)) + 1u;
}

/// Eigen decomposition of a symmetric 3x3 matrix given as (xx, yy, zz, xy, xz, yz), by cyclic Jacobi rotations.
/// @param axes receives the unit eigenvectors as rows, sorted by decreasing eigenvalue, right-handed
/// @param values may be NULL; receives the eigenvalues in the same order
void mc_obb_eigen_sym3(const double m[6], double axes[3][3], double values[3]);
/// As mc_obb_eigen_sym3, starting from guessed axes (rows, orthonormal; NULL: none), which makes Jacobi converge
/// in one or two sweeps when the guess is close (a child's covariance is close to its parent's).
void mc_obb_eigen_sym3_guess(const double m[6], double guess[3][3], double axes[3][3], double values[3]);

/// Two warm starts from the same guess at once (the build's two children, from their parent's axes): axes0 and axes1
/// are bitwise what mc_obb_eigen_sym3_guess(m0, guess, ...) and mc_obb_eigen_sym3_guess(m1, guess, ...) give.
void mc_obb_eigen_sym3_warm2(const double m0[6], const double m1[6], double guess[3][3], double axes0[3][3],
                             double axes1[3][3]);

#if MC_BUILD_AVX512
/// Eight warm starts at once (AVX-512F; only where mc_bvh_build_wide_available()): lane l solves m[l] from guess g[l]
/// into axes[l], bitwise what mc_obb_eigen_sym3_guess(m[l], g[l], axes[l], NULL) gives.
void mc_obb_eigen_sym3_warm8(const double* const m[8], double (*const g[8])[3], double (*const axes[8])[3]);
#endif

/// Conservative float box on rounded axes from the projection ranges of a point set.
/// @param axes_f the box axes, already rounded to float (the box is built on exactly these)
/// @param lo, hi for each axis k, bounds of axis_f[k] . (v - origin) over the points v (as computed)
/// @param origin the point the projections are measured from (mesh frame)
/// @param proj_err bound of the error of every computed projection in lo / hi (absolute)
/// @param node receives axis, center and extent
void mc_obb_finish(float axes_f[3][3], const double lo[3], const double hi[3], const double origin[3], double proj_err,
                   mc_bvh_node* node);

/// A box to finish (the arguments of mc_obb_finish, kept for a batch).
typedef struct mc_obb_job
{
    float axes_f[3][3]; ///< rounded axes
    double lo[3];       ///< projection ranges, lower ends
    double hi[3];       ///< projection ranges, upper ends
    double proj_err;    ///< bound of the projections' errors
    uint32_t node;      ///< index of the node that receives the box
} mc_obb_job;

#if MC_BUILD_AVX512
/// mc_obb_finish on up to four jobs at once (AVX-512F and VL; only where mc_bvh_build_wide_available()), into
/// nodes[job.node]; bitwise the same boxes.
void mc_obb_finish4(const mc_obb_job* jobs, uint32_t count, const double origin[3], mc_bvh_node* nodes);
#endif

/// Round unit axes to float (the values the box is built on).
void mc_obb_round_axes(double axes[3][3], float axes_f[3][3]);

/// 1 when the tree build can use its 16-lane (AVX-512F) pass on this CPU, else 0. Both passes build bitwise the same
/// tree; the wide one is faster.
int mc_bvh_build_wide_available(void);
/// Tests only: when non-zero, builds use the portable 4-lane pass even where the wide one is available (to check
/// that both give the same tree). Not for concurrent use with builds.
extern int mc_bvh_build_portable;

/// The widest kernels of the pair stage this CPU runs: 2 AVX2, 1 SSE2, 0 none (plain C build). All give bitwise the
/// same box and culling outcomes, pairs and counters.
int mc_collide_lanes_available(void);
/// Tests only: when 1, queries use the SSE2 kernels even where AVX2 is available; 0: the widest available. Not for
/// concurrent use with queries.
extern int mc_collide_lanes_limit;

/// Tests only: the gap of triangles a (I's) and b (J's) along the cross products of their edges, as the front's near
/// lists measure it (bvh_collide.c, edge_axes_gap: a lower bound of their distance before the rounding allowance;
/// -INFINITY when no such axis separates them), on the plain code (lanes 1) or the AVX2 kernel (lanes 2, where this
/// build and CPU have it; else the plain code). Both must give the same double.
double mc_collide_edge_axes_gap(const mc_vec3 a[3], const mc_vec3 b[3], int lanes);
/// Tests only: the larger of the two plane gaps of triangles a (I's) and b (J's), as the front measures them
/// (bvh_collide.c, plane_gap: each triangle's corners against the other's plane, a lower bound of their distance before
/// the rounding allowance; -INFINITY when neither plane separates them), on the plain code (lanes 1) or the AVX2
/// kernel (lanes 2, where this build and CPU have it; else the plain code). Both must give the same double.
double mc_collide_plane_gaps(const mc_vec3 a[3], const mc_vec3 b[3], int lanes);
/// Tests only: the near-list entries a front's walk looks at among gaps gap[0..n) (n <= 8; bit k for entry k): on the
/// plain code (lanes 1) those whose stored gap does not keep them apart, exactly (near_keeps_apart: a gap from the
/// front's pose against the motion `front`, an anchored one against anchor[slot'] unless slot' is the walk's `slot`);
/// on the AVX2 kernel (lanes 2, where available) the walk's prefilter, which must flag the same. anchor[a] >= 0 (or
/// INFINITY: an anchor no walk wrote).
uint32_t mc_collide_near_attention(const float* gap, uint32_t n, double front, const double anchor[4], uint32_t slot,
                                   int lanes);
/// Tests only: a near-list gap h >= 0 kept from anchor `slot` as the front stores it (a negative float, the slot in
/// its three low bits, h rounded towards zero).
float mc_collide_near_anchored(float h, uint32_t slot);

/// The kernels of the distance query (bvh_distance.c) for a limit of mc_bvh_distance_limit: 1 the two child pairs of a
/// split bounded one at a time, 2 both at once on the two lanes of SSE2 registers, 3 that on the traversal compiled for
/// AVX2. All give bitwise the same bounds, so the same traversal, result and counters.
/// @param limit 0: the widest this build and CPU run; else the smaller of limit and that
int mc_bvh_distance_lanes(int limit);
/// Tests only: the limit the distance query passes to mc_bvh_distance_lanes (0: the widest). Not for concurrent use
/// with queries.
extern int mc_bvh_distance_limit;

/// Map a point of J's body frame into I's frame with the current query's pose, exactly as the pair stage maps J's
/// vertices (bitwise the same function).
mc_vec3 mc_pair_scratch_map_j(const struct mc_pair_scratch* scratch, mc_vec3 p_j);
/// Map a point of I's frame into J's body frame (approximate inverse of mc_pair_scratch_map_j, for culling only).
mc_vec3 mc_pair_scratch_unmap_j(const struct mc_pair_scratch* scratch, mc_vec3 p_i);
/// Largest |translation| component sum of the current query's pose (rounding bounds).
double mc_pair_scratch_translation_norm(const struct mc_pair_scratch* scratch);
/// Triangles the last query's leaf culling left for the exact stage (both sides, summed over leaf pairs; tests).
uint64_t mc_pair_scratch_culled_in(const struct mc_pair_scratch* scratch);
/// Near-list gaps the last front query measured again (near_pair_refresh: the pairs that were not crossing at their
/// last look; tests: how often a front measures its near pairs).
uint64_t mc_pair_scratch_near_measures(const struct mc_pair_scratch* scratch);
/// Tests only: the anchors a front keeps its near-list gaps from (bvh_collide.c, NEAR_ANCHORS; 0: that default).
/// 1 is the rule before session 9 (one anchor, moved at every query: the gaps lose every step's motion). Not for
/// concurrent use with queries.
extern uint32_t mc_front_anchors;
/// Triangle pairs of the last query (mc_collide) rejected by the edge axis of an I triangle much larger than J's
/// leaf (AVX2 kernels only; tests: the path ran).
uint64_t mc_pair_scratch_axis_rejected(const struct mc_pair_scratch* scratch);
/// Crossing triangle pairs of the last query (mc_collide) whose segment the inside test (an I triangle much larger than
/// J's leaf, its edges against J's corners; AVX2 kernels only) put inside I's triangle (tests: the path ran).
uint64_t mc_pair_scratch_inside(const struct mc_pair_scratch* scratch);
