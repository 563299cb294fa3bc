// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Stateless contact queries between two meshes at given poses: intersecting triangle pairs with their edge-face
// crossings, intersection regions (volume, centroid, area, normal, depth), and the minimum distance of separated
// meshes.
#pragma once

#include "base.h"
#include "mesh.h"
#include "vec_math.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// Reusable scratch memory for queries (per-worker buffers, vertex caches). One workspace serves one call at a
    /// time; it grows on demand and then stops allocating, so repeated queries on the same meshes allocate nothing.
    typedef struct mc_workspace mc_workspace;

    /// Create an empty workspace.
    /// @param out receives the workspace on success
    MC_API mc_status mc_workspace_create(mc_workspace** out);
    /// Destroy a workspace. NULL is ignored.
    MC_API void mc_workspace_destroy(mc_workspace* ws);
    /// @return bytes the workspace holds (its scratch grows to the largest query it has served and is kept); 0 for
    ///         NULL.
    MC_API size_t mc_workspace_get_byte_count(const mc_workspace* ws);

    /// How the penetration depth of a region is measured.
    typedef enum mc_depth_method
    {
        /// In a contact definition (mc_contact_def): the world's depth method (mc_world_def.depth_method). In a query:
        /// the same as MC_DEPTH_ADAMS.
        MC_DEPTH_DEFAULT = -1,
        /// Adams depth: the closest points are those to the region's centroid. When the centroid lies off the region
        /// (a ring-shaped region: a torus or a hollow knob lying on a plate) they lie apart along the surfaces, and
        /// the depth (and an IMPACT force) follows the region's shape, not its penetration (a torus on a floor: 13.25
        /// mm where the region is 0.13 mm thick). Compare the depth with the region's 2 volume / area: the world flags
        /// a depth above MC_OFF_REGION_DEPTH_RATIO (world.h) times it (mc_contact_region.depth_off_region,
        /// mc_step_info.off_region_depths); MC_DEPTH_EXTENT or MC_DEPTH_VOLUME_AREA measure such regions across.
        MC_DEPTH_ADAMS =
            0, ///< distance between the closest points of the region's parts of both surfaces to the centroid
        MC_DEPTH_VOLUME_AREA = 1, ///< 2 V / A: smooth and cheap
        MC_DEPTH_EXTENT =
            2, ///< extent of the region along its normal
               /// the overlap of the smooth surfaces the meshes sample (for tessellated curved parts, whose Adams depth
               /// ripples with the facets): near each Adams contact point the mesh's vertices within twice the region's
               /// equivalent radius (doubled until at least 8) are fitted by a plane when coplanar (rms within 1e-9 of
               /// their spread) or else by a sphere (algebraic least squares), and the depth is the overlap of the two
               /// fitted solids (ball-ball, ball-plane, ball in a socket). Exact, to rounding, for tessellated spheres
               /// and planes whose vertices lie on the true surface; for other curved surfaces the error is that of the
               /// best local sphere (of the order of the curvature difference times the square of the neighbourhood).
               /// Falls back to the Adams depth for two planes, two sockets, a plane in a socket and flipped meshes; 0
               /// when the fitted solids do not overlap. Costs two small tree queries and fits per region. Onset is not
               /// smooth: a region exists only once the facets cross, when the fitted surfaces already overlap by up to
               /// the chord tolerance, so the depth (and an IMPACT force) starts at that value, not at 0: choose a
               /// chord tolerance well below the working penetration (or expect the jump k tol^e).
        MC_DEPTH_SMOOTH = 3,
    } mc_depth_method;

    /// Options of a query. Initialize with mc_default_query_options().
    typedef struct mc_query_options
    {
        int worker_count;             ///< OpenMP threads; 0: the OpenMP default. Results do not depend on it.
        mc_depth_method depth_method; ///< see mc_depth_method
        int internal_value;           ///< set by mc_default_query_options()
    } mc_query_options;

    /// @return defaults: OpenMP default thread count, Adams depth.
    MC_API mc_query_options mc_default_query_options(void);

    /// One end of the intersection segment of a triangle pair: an edge of one triangle crossing the other triangle.
    typedef struct mc_crossing
    {
        mc_vec3 point;   ///< crossing point, world frame
        uint8_t body;    ///< 0: an edge of triangle i crosses triangle j; 1: an edge of triangle j crosses triangle i
        uint8_t edge;    ///< local edge index k in that triangle: from its vertex k to vertex (k + 1) % 3
        int8_t entering; ///< +1: the edge, walked from vertex k to k + 1, enters the other solid here; -1: it leaves
        uint8_t degenerate; ///< 1 when the configuration was exactly degenerate and decided by the symbolic rule
    } mc_crossing;

    /// An intersecting triangle pair: triangle i of the first mesh and triangle j of the second. Under the symbolic
    /// rule every intersection is generic, so each pair has exactly two crossings: the ends of its segment.
    typedef struct mc_triangle_pair
    {
        uint32_t i;              ///< triangle index in the first mesh
        uint32_t j;              ///< triangle index in the second mesh
        mc_crossing crossing[2]; ///< the two ends of the intersection segment
    } mc_triangle_pair;

    /// Counters of one query.
    typedef struct mc_query_stats
    {
        uint64_t box_tests;        ///< OBB-OBB separating axis tests
        uint64_t triangle_tests;   ///< exact triangle-triangle tests run (pairs left by the leaf culling and the
                                   ///< exact bounding-box checks)
        uint64_t triangle_pairs;   ///< intersecting triangle pairs
        uint64_t crossings;        ///< distinct edge-face crossings
        uint64_t inside_vertices;  ///< vertices of either mesh inside the other
        uint32_t regions;          ///< regions found (before the caller's capacity)
        uint32_t touching_regions; ///< zero-volume regions (exact touching) that were not reported
        int threads;               ///< threads used
        double seconds_pairs;      ///< wall time of the pair stage
        double seconds_regions;    ///< wall time of the region stage
        uint32_t certified_reuse;  ///< temporal coherence (world queries only): bit 0 when the pair stage replayed
                                   ///< the triangle pairs of its last tested query under the certified motion margin
                                   ///< (no triangle test ran), bit 1 when the region stage also restored that
                                   ///< query's combinatorics (crossing records, states, regions; sums recomputed)
                                   ///< from that certificate, bit 2 when it restored them because the triangle
                                   ///< pairs, tested again, had the last query's combinatorics (not their points)
    } mc_query_stats;

    /// Every intersecting triangle pair of two meshes at their poses, sorted by (i, j).
    /// @param mesh_i, pose_i the first mesh and its pose (body to world)
    /// @param mesh_j, pose_j the second mesh and its pose
    /// @param options may be NULL for defaults
    /// @param ws workspace (required)
    /// @param pairs caller buffer of `capacity` entries, may be NULL when capacity is 0
    /// @param pair_count receives the number of intersecting pairs (may exceed capacity: then MC_ERR_CAPACITY)
    /// @param stats may be NULL (then no clock is read for seconds_pairs)
    MC_API mc_status mc_query_triangle_pairs(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                             const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                             mc_triangle_pair* pairs, uint32_t capacity, uint32_t* pair_count,
                                             mc_query_stats* stats);

    /// One connected component of the intersection of two solids. World frame.
    typedef struct mc_region
    {
        double volume;    ///< intersection volume (units^3)
        mc_vec3 centroid; ///< centroid of the intersection volume; the contact point
        double area;      ///< contact area A = |S_I| (units^2; flush pieces left out: see s_i)
        double radius;    ///< equivalent radius sqrt(A / pi)
        mc_vec3 normal;   ///< unit normal S_I / |S_I|, from the first solid into the second (direction of the force on
                          ///< the second); the zero vector when A = 0 (one solid entirely inside the other)
        double depth;     ///< penetration depth by the selected method
        /// Adams depth: closest point to the centroid of the first surface's part in the region, taken as the
        /// triangles of that surface that touch the region (entirely inside, crossed, or around an inside vertex),
        /// each whole (not clipped); the centroid when that part is empty. With the other depth methods: the
        /// centroid.
        mc_vec3 point_i;
        mc_vec3 point_j; ///< Adams depth: the same on the second surface
        /// Vector area of the part of the first surface inside the second (outward normals), less its flush pieces:
        /// a piece of the region's boundary that lies on a face of the other surface in the same plane (coincident
        /// faces: side faces flush, or faces touching face to face; exact predicates) counts in the volume and the
        /// centroid but in neither vector area, so in neither the area, the normal nor the forces. Two stacked
        /// identical boxes: exactly the footprint and (0, 0, 1). S_I + S_J = 0 up to the flush pieces.
        mc_vec3 s_i;
        mc_vec3 s_j; ///< vector area of the part of the second surface inside the first (outward normals), less its
                     ///< flush pieces (see s_i)
        uint32_t crossings;       ///< edge-face crossings in this region
        uint32_t inside_vertices; ///< mesh vertices inside the other solid in this region
    } mc_region;

    /// Intersection regions of two solids at their poses, sorted by decreasing volume (ties: in the order of their
    /// first crossing in the pair order). A region is a connected component of the intersection; regions of exact
    /// touching (every crossing decided by the symbolic rule and a volume within its rounding bound) are not reported
    /// but counted in stats->touching_regions, so touching without penetration gives no region. A connected piece of
    /// the intersection can be bounded by several shells that no crossing, inside vertex or edge links (a cavity's
    /// shell, a flipped mesh inside the other solid, a small crossing loop around a handle inside a face): an inner
    /// shell is joined to the region around it by a ray from it into the intersection, whose first hit (located among
    /// the crossing segments of the face it meets) is on the boundary of the same piece. The ray is a floating-point
    /// locator: when every ray tried from a shell is unclear (near an edge or a segment's end, two surfaces at about
    /// the same distance) or comes back onto the shell, the shell stays a region of its own, of negative volume (the
    /// total volume still right). Otherwise a negative volume (tiny) needs an inconsistent mesh, e.g.
    /// self-intersecting; it is reported as computed. Depth: MC_DEPTH_ADAMS |point_j - point_i|; MC_DEPTH_VOLUME_AREA
    /// 2V/A; MC_DEPTH_EXTENT the extent of the region's crossing points and inside vertices along the normal; 0 when A
    /// = 0. Single-threaded after the pair stage; allocation-free once the workspace is warm, except that the first
    /// region query on a mesh builds the mesh's region blocks (see mc_mesh_prepare_regions). Both meshes flipped:
    /// MC_ERR_UNBOUNDED.
    /// @param regions caller buffer of `capacity` entries (NULL allowed when capacity is 0)
    /// @param region_count receives the number of regions (may exceed capacity: then MC_ERR_CAPACITY and the
    ///        largest `capacity` regions are written)
    /// Other parameters as in mc_query_triangle_pairs.
    /// @return MC_OK, MC_ERR_CAPACITY, MC_ERR_INVALID_ARGUMENT (NULL argument, or a pose outside the coordinate
    ///         range: see mc_pose_is_valid), MC_ERR_UNBOUNDED, MC_ERR_OUT_OF_MEMORY, or MC_ERR_OUT_OF_RANGE should a
    ///         quantity come out non-finite (not seen with in-range inputs: a guard, so NaN never leaves the library)
    MC_API mc_status mc_query_regions(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                      const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                      mc_region* regions, uint32_t capacity, uint32_t* region_count,
                                      mc_query_stats* stats);

    /// What mc_query_distance found.
    typedef enum mc_distance_kind
    {
        MC_DISTANCE_SEPARATED = 0,    ///< the solids are apart: distance, closest points and triangles are given (the
                                      ///< distance may be 0 or a few ulps when the surfaces touch without crossing)
        MC_DISTANCE_BEYOND = 1,       ///< the distance is at least max_distance (proven); distance = max_distance, no
                                      ///< points (zero vectors) and no triangles
        MC_DISTANCE_INTERSECTING = 2, ///< the surfaces cross (the exact pair stage of mc_query_triangle_pairs found a
                                      ///< pair): distance 0, both points at a crossing point of that pair
        MC_DISTANCE_CONTAINED = 3,    ///< no surfaces cross but one solid is inside the other (exact containment,
                                   ///< mc_mesh_contains_point of one vertex per connected component): distance 0, both
                                   ///< points at that vertex, no triangles
    } mc_distance_kind;

    /// Minimum distance between two meshes and its closest points. World frame.
    typedef struct mc_distance_result
    {
        double distance;         ///< minimum Euclidean distance between the two solids (units), >= 0, never NaN
        mc_vec3 point_i;         ///< closest point on the first surface (world frame)
        mc_vec3 point_j;         ///< closest point on the second surface (world frame); |point_j - point_i| = distance
                                 ///< up to rounding
        uint32_t triangle_i;     ///< triangle of the first mesh holding point_i; UINT32_MAX when none
        uint32_t triangle_j;     ///< triangle of the second mesh holding point_j; UINT32_MAX when none
        mc_distance_kind kind;   ///< see mc_distance_kind
        uint64_t box_tests;      ///< box pairs bounded by the branch and bound
        uint64_t triangle_tests; ///< triangle pairs measured
    } mc_distance_result;

    /// Minimum distance between two closed meshes at their poses (the solids: 0 when they intersect or one is inside
    /// the other), with its closest points and triangles. Method: a depth-first branch and bound over the two OBB
    /// trees (lower bound of two boxes' distance: their separating-axis gap over the 15 axes, minus a rounding
    /// allowance) with exact triangle-triangle distances at the leaves (9 edge pairs, 6 vertex-face projections, edge
    /// crossings). When the distance found is below the rounding of the coordinates (64 ulps of their magnitude) the
    /// exact pair stage (as mc_query_triangle_pairs) decides whether the surfaces cross; when they do not, one vertex
    /// of each connected component of either mesh is tested inside the other (mc_mesh_contains_point). For a flipped
    /// mesh the solid is the outside, so a mesh outside a flipped one is CONTAINED. The distance is exact up to
    /// rounding (a few ulps of the coordinates: the triangle distances are computed in floating point).
    /// Deterministic: the branch and bound is serial; only the exact pair stage uses options->worker_count, and its
    /// outcome does not depend on it. Allocation-free once the workspace is warm.
    /// @param max_distance > 0 (INFINITY for none): stop as soon as the distance is proven to be at least this, and
    ///        report MC_DISTANCE_BEYOND (a cheap "farther than" test)
    /// @param result receives the result (written only on MC_OK)
    /// Other parameters as in mc_query_triangle_pairs.
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL argument, max_distance not > 0 or NaN, a pose outside the
    ///         coordinate range) or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_query_distance(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                       const mc_pose* pose_j, double max_distance, const mc_query_options* options,
                                       mc_workspace* ws, mc_distance_result* result);

    /// Build the mesh's region blocks now rather than in its first mc_query_regions: patches of up to 64
    /// edge-connected triangles with their volume, moment and area terms, so that a patch entirely inside the other
    /// solid is summed at once. They cost about 17 bytes per triangle (counted by mc_mesh_get_byte_count once built)
    /// and about 0.1 s per million triangles, once per mesh; call this at set-up so that no simulation step pays for
    /// it. Thread-safe, and the mesh stays shareable (the blocks are published atomically; a concurrent caller may
    /// build them too, one copy is kept).
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL mesh) or MC_ERR_OUT_OF_MEMORY (region queries then work face by
    ///         face, with the same results)
    MC_API mc_status mc_mesh_prepare_regions(const mc_mesh* mesh);

    /// Exact point-in-solid test with the library's symbolic rule (a point exactly on the surface is decided
    /// consistently with the contact queries). For a flipped mesh the solid is the outside.
    /// @param point in the mesh's body frame; NaN or infinity: false. A point beyond MC_COORDINATE_MAX is outside
    ///        the mesh (inside a flipped one); components below MC_COORDINATE_SNAP count as 0.
    MC_API bool mc_mesh_contains_point(const mc_mesh* mesh, mc_vec3 point);

    /// Exact orientation predicate, no symbolic perturbation: the sign (+1, 0 or -1) of
    /// det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a) for the coordinates exactly as given. Positive when d
    /// lies on the side of plane (a, b, c) that the normal (b - a) x (c - a) points to (outside a triangle that is
    /// counter-clockwise seen from outside); 0 exactly when the four points are coplanar. This is the negative of
    /// Shewchuk's orient3d(a, b, c, d). Exact whenever every coordinate is 0 or has a magnitude in [2^-300, 2^300]
    /// (a floating-point filter decides most calls, floating-point expansions the rest).
    /// @param a, b, c, d points in any common frame (units irrelevant)
    /// @return +1, 0 or -1
    MC_API int mc_orient3d(mc_vec3 a, mc_vec3 b, mc_vec3 c, mc_vec3 d);

// ------------------------------------------------------------------------------------------------------------
// Contact patches (opt-in): the intersection curve of each region and a reduced manifold
// ------------------------------------------------------------------------------------------------------------

/// Most points of a reduced manifold (mc_patch.manifold).
#define MC_MANIFOLD_MAX 8

    /// One point of a reduced manifold: a point of the region's intersection curve with the region's depth.
    typedef struct mc_manifold_point
    {
        mc_vec3 point; ///< a vertex of the patch's polylines (world frame): on both surfaces, exactly on the patch
        /// the region's depth (mc_region.depth, by the query's depth method), the same for every point of a region:
        /// the curve is where the surfaces meet, so a host's constraint at the point (ODE's dContactGeom.depth, a
        /// Bullet manifold point's distance -depth) pushes the bodies apart by the region's depth
        double depth;
    } mc_manifold_point;

    /// The contact patch of one region: the intersection curve of the two surfaces around the region, as closed
    /// polylines, and a reduced manifold for constraint-based hosts. World frame.
    ///
    /// Polylines: the exact union of the segments the pair stage computes (each intersecting triangle pair gives the
    /// segment between its two edge-face crossings, mc_triangle_pair), chained at their shared crossings (a crossing
    /// of an edge through a face ends the segments of the edge's two triangles with that face: the same point, bit for
    /// bit). Every vertex is a crossing point, so the polylines carry no error beyond the crossing points' rounding;
    /// collinear vertices are kept (on two boxes, the overlap rectangle has its corners and the points where the
    /// facets' diagonals cross it), and where the curve passes exactly through a vertex or an edge of the other mesh
    /// (flush faces, edges in a face) consecutive vertices may coincide (zero-length segments; never two manifold
    /// points). Each loop is walked along n_I x n_J (the two faces' outward normals at its first
    /// segment), which makes an outer boundary counter-clockwise seen from the tip of the region's normal and the
    /// boundary of a hole clockwise; it starts at the crossing of its lowest triangle pair in the (i, j) order, and
    /// loops come in the order of their lowest pairs. A region without crossings (one solid inside the other) has
    /// no loop. Under the symbolic rule every loop of closed meshes closes; `open_loops` counts walks that did not (an
    /// inconsistent input, e.g. a self-intersecting mesh): such a loop ends where its walk stopped.
    ///
    /// Manifold: up to the requested number of the polylines' vertices chosen deterministically as Jolt's and
    /// Bullet's contact reduction does, in the region's tangent plane (positions projected along the normal): the
    /// vertex farthest from the centroid, the vertex farthest from it, the vertices of largest positive and negative
    /// triangle area with those two (spanning the patch both ways), then farthest-point sampling (the vertex farthest
    /// from the chosen ones) until the count is reached; ties go to the lower index. Each point is an unprojected
    /// vertex (on the patch) with the region's depth. A region without loops, or without a normal (A = 0), has one
    /// manifold point: its centroid.
    typedef struct mc_patch
    {
        const mc_vec3* points;     ///< the loops' vertices, loop after loop (NULL when point_count is 0)
        const uint32_t* loop_ends; ///< loop k is points[(k == 0 ? 0 : loop_ends[k - 1]) .. loop_ends[k]), closed
                                   ///< (its last vertex joins its first)
        uint32_t point_count;      ///< vertices of all loops (one per intersecting triangle pair of the region)
        uint32_t loop_count;       ///< closed polylines
        uint32_t open_loops;       ///< loops whose walk did not close (0 for consistent closed meshes)
        uint32_t manifold_count;   ///< entries of manifold in use (1 .. the requested count)
        mc_manifold_point manifold[MC_MANIFOLD_MAX]; ///< the reduced manifold
    } mc_patch;

    /// mc_query_regions, and the contact patch of each written region (see mc_patch). The patches' arrays are views
    /// into the workspace, valid until its next query. Opt-in: the plain mc_query_regions builds none. Costs one pass
    /// over the triangle pairs (a binary search per crossing for the pair that shares it) and one over each region's
    /// vertices per manifold point; allocation-free once the workspace is warm. The regions are bitwise those of
    /// mc_query_regions. Mesh pairs only (analytic shapes have no triangle pairs: see shape.h).
    /// @param manifold_points manifold size asked for, 1 .. MC_MANIFOLD_MAX (4 spans a flat patch as a box's
    ///        corners do)
    /// @param patches caller buffer of `capacity` entries, patches[k] for regions[k] (NULL allowed when capacity is 0)
    /// Other parameters and the return as mc_query_regions (MC_ERR_INVALID_ARGUMENT also for manifold_points out of
    /// range).
    MC_API mc_status mc_query_patches(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                      const mc_pose* pose_j, const mc_query_options* options, uint32_t manifold_points,
                                      mc_workspace* ws, mc_region* regions, mc_patch* patches, uint32_t capacity,
                                      uint32_t* region_count, mc_query_stats* stats);

#ifdef __cplusplus
}
#endif
