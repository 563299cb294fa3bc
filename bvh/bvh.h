// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// OBB tree of a mesh (RAPID style) and tree-vs-tree collision producing intersecting triangle pairs.
#pragma once

#include "mesh/mesh_internal.h"
#include "meshcontact/query.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mc_bvh mc_bvh;
struct mc_pair_scratch;

/// Build the OBB tree of a finished mesh (positions, indices, normals set) and store it in mesh->bvh.
mc_status mc_bvh_build(struct mc_mesh* mesh);
/// Free a tree; NULL is ignored.
void mc_bvh_destroy(mc_bvh* bvh);
/// Bytes owned by the tree.
size_t mc_bvh_byte_count(const mc_bvh* bvh);

/// Result of the pair stage, all in I's frame, owned by the pair scratch, valid until its next use.
typedef struct mc_pair_result
{
    const mc_triangle_pair* pairs; ///< sorted by (i, j); crossing points in I's frame
    uint32_t pair_count;           ///< number of pairs
    /// mc_collide_front: the id (> 0, unique within the front) of the certificate these pairs were kept under or
    /// replayed from, 0 when none (every query with the same id has the same pairs but for their crossing points)
    uint64_t certificate;
    /// mc_collide_front: the pairs were replayed from the front's certificate (no triangle test ran); every corner of
    /// their triangles of J is then mapped and published in the scratch (mc_pair_scratch_j_view reads it)
    bool replayed;
    /// Triangle pairs that lie exactly in one plane and whose interiors overlap (exact tests: the tie of the symbolic
    /// rule, which never makes them cross), as i << 32 | j in increasing order; found by the exact tests of the pairs
    /// the traversal reaches, which include every such pair (their boxes meet), so the same for every traversal. None
    /// in a replayed query: a coplanar pair in a near list leaves no motion margin, so no certificate is kept. The
    /// region stage's flush faces come from them.
    const uint64_t* coplanar;
    uint32_t coplanar_count; ///< number of coplanar pairs
} mc_pair_result;

/// Collide mesh I with mesh J placed at `j_in_i` (J's body frame expressed in I's body frame), with the pair scratch
/// `*scratch` (created on first use, kept for the next query: free it with mc_pair_scratch_destroy).
/// J's vertices are mapped into I's frame once, lazily, and that copy is used for every decision (see
/// mc_pair_scratch_j_vertex). Deterministic for any worker count.
mc_status mc_collide(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                     struct mc_pair_scratch** scratch, mc_pair_result* result, mc_query_stats* stats);

/// Where mc_collide_into writes its pairs: the caller's array (the first `capacity` pairs in (i, j) order when there
/// are more) and the rigid map applied to every crossing point, x -> trans + rot x (I's pose in the world frame: the
/// points of mc_query_triangle_pairs).
typedef struct mc_pair_sink
{
    mc_triangle_pair* pairs; ///< caller's array (NULL when capacity is 0)
    uint32_t capacity;       ///< entries of pairs
    mc_mat33 rot;            ///< rotation applied to the crossing points
    mc_vec3 trans;           ///< translation added after it
} mc_pair_sink;

/// mc_collide with the sorted pairs written once, straight into sink->pairs with their points mapped
/// (mc_add(trans, mc_mat33_mul_vec(&rot, x)) on mc_collide's point x: bitwise what mapping mc_collide's result gives),
/// instead of into the scratch. *pair_count receives the number of pairs, which may exceed sink->capacity.
mc_status mc_collide_into(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                          struct mc_pair_scratch** scratch, const mc_pair_sink* sink, uint32_t* pair_count,
                          mc_query_stats* stats);
/// Temporal coherence of one pair of meshes (bvh/bvh_collide.c): the traversal front of its last query (the node pairs
/// where the descent stopped, separated ones with a lower bound of their gap) and the relative pose it describes.
typedef struct mc_pair_front mc_pair_front;

/// mc_collide through the pair's front `*front` (created on first use; free with mc_pair_front_destroy; NULL: plain
/// mc_collide). The front, recorded at a pose with a margin M: separated node pairs whose gap exceeds M, and leaf pairs
/// with their near list (triangle pairs within M by boxes, planes and edge axes, each with its own gap bound) and a gap
/// bound above M for their other triangle pairs. Rule: with m a bound of how far any point of J can have moved in I's
/// frame since the front's pose (||R1 - R0||_F sqrt(3) max|coordinate of J| + |t1 - t0|, rounded up), a query below
/// every entry's gap is quiet: it looks only at the near lists and tests only the pairs whose own gap does not exceed
/// m (a pair found apart, by its boxes, planes or edge axes, gets a new gap: its gap now less m, or, when that would
/// leave less than half of it, its gap now kept from this query's pose and decreased by the motion of every later
/// query that looks at the near lists); otherwise, when m is within M, the entries whose gap
/// does not exceed m are descended again at this pose (their new gaps from the front's pose, less m), else the front
/// is recorded again from the roots at this pose. M is 16 recent steps of J (its motion between consecutive queries),
/// at most a tenth of the trees' mean leaf size; when four recent steps exceed that, the plain traversal runs (see
/// FRONT_MARGIN_STEPS in bvh_collide.c). A quiet query also measures a motion margin below which every near-list test
/// keeps its result (each deciding determinant's float value less its filter bound, over a bound of its change; see
/// bvh_collide.c) and keeps its sorted pairs' combinatorics; a later quiet query whose motion from that pose is below
/// the margin replays them, computing only their crossing points (stats->certified_reuse = 1, no triangle test).
/// The result (pairs and crossings) is bitwise mc_collide's whatever the front's history; the counters (box_tests,
/// triangle_tests) differ. Used only for serial traversals (worker_count 1, or meshes too small for the parallel
/// one); otherwise the plain traversal runs and the front is reset. The front is recorded again from the roots when
/// the trees change or when it has grown past four times its size (entries or near lists) after the last recording.
mc_status mc_collide_front(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                           struct mc_pair_scratch** scratch, mc_pair_front** front, mc_pair_result* result,
                           mc_query_stats* stats);
/// Free a front. NULL is ignored.
void mc_pair_front_destroy(mc_pair_front* front);
/// Forget a front's content (its next query descends from the roots); keeps its memory. NULL is ignored.
void mc_pair_front_reset(mc_pair_front* front);
/// Prefetch what a quiet query through `front` reads first (NULL: nothing): the certified pairs it would replay, the
/// leaf entries, their near lists and gaps; changes nothing. A pair's front is read once per step, so its arrays are
/// rarely in cache: a caller that knows its next pair can call this one query ahead (mc_collide_front also calls it,
/// just before its own work).
void mc_pair_front_prefetch(const mc_pair_front* front);
/// Prefetch the front's own record (NULL: nothing), without reading it: what mc_pair_front_prefetch and the query read
/// first. A caller two pairs ahead lets mc_pair_front_prefetch, one pair ahead, find the pointers it reads in cache.
void mc_pair_front_prefetch_record(const mc_pair_front* front);
/// A front's certified motion margin (0 when it has none or when it is not measured yet: a query that tests keeps its
/// pairs, the next quiet query measures the margin; INFINITY when its near lists are empty) and the smallest gap
/// of its entries (the motion below which a query is quiet), in I's frame (for tests).
void mc_pair_front_margins(const mc_pair_front* front, double* certified, double* min_gap);
/// Bytes of pair fronts by part (memory statistics, see mc_pair_front_memory): `used` what the content needs, `held`
/// what is allocated (the struct counts as used; every other array as its used entries and its capacity).
typedef struct mc_front_memory
{
    size_t fronts;                     ///< fronts counted
    size_t header;                     ///< the structs (sizeof, once per front)
    size_t entries_used, entries_held; ///< front entries
    size_t entry_count, leaf_count;    ///< front entries, and those of them that are leaf pairs
    size_t pool_used, pool_held;       ///< near lists (one byte per near pair) and their float gaps
    size_t order_used, order_held;     ///< the kept sorting permutation
    size_t cert_used, cert_held;       ///< the certified pairs (i, j and a byte of crossing flags each)
} mc_front_memory;
/// Add a front's bytes to `sum` (NULL front: nothing). Reads only sizes; for tests and benchmarks.
void mc_pair_front_memory(const mc_pair_front* front, mc_front_memory* sum);
/// Free the pair stage's scratch. NULL is ignored.
void mc_pair_scratch_destroy(struct mc_pair_scratch* scratch);
/// Bytes owned by the pair stage's scratch.
size_t mc_pair_scratch_byte_count(const struct mc_pair_scratch* scratch);

/// Position of vertex v of J in I's frame, exactly the copy the pair stage used (computed now if it was not).
/// Valid after mc_collide on the same workspace. Thread-safe: a vertex not yet mapped is computed by the same pure
/// function and published with an atomic stamp (see bvh_collide.c), so concurrent callers get bitwise the same value.
mc_vec3 mc_pair_scratch_j_vertex(struct mc_pair_scratch* scratch, uint32_t v);

/// The lazy J vertex cache of a pair scratch as seen by one caller after mc_collide (the region stage reads thousands
/// of J vertices per query): its arrays and the stamp of a published vertex, for an inline read.
typedef struct mc_pair_j_view
{
    struct mc_pair_scratch* scratch; ///< for the vertices not mapped yet
    const mc_vec3* jv;               ///< mapped vertices
    const atomic_uint* stamp;        ///< per-vertex stamps
    uint32_t ready;                  ///< stamp of a vertex published by this query
} mc_pair_j_view;

/// The view of `scratch`'s cache for the query of its last mc_collide (valid until the next one).
void mc_pair_scratch_j_view(struct mc_pair_scratch* scratch, mc_pair_j_view* view);

/// mc_pair_scratch_j_vertex through a view: the published copy when there is one (read inline, with the same acquire
/// ordering), else that function. Bitwise the same value.
static inline mc_vec3 mc_pair_j_view_vertex(const mc_pair_j_view* view, uint32_t v)
{
    if (atomic_load_explicit(&view->stamp[v], memory_order_acquire) == view->ready)
    {
        return view->jv[v];
    }
    return mc_pair_scratch_j_vertex(view->scratch, v);
}

/// Exact parity test: does the segment from `p` (in `mesh`'s frame) to a point far outside `mesh` cross `mesh`'s
/// surface an odd number of times? `point_body` is the body the point belongs to (0 = I, 1 = J) and `mesh_body`
/// the body of `mesh`, for the symbolic rule. For a J mesh, `scratch` provides J's vertices in I's frame and p is in
/// I's frame; for an I mesh, p is in I's frame too and scratch may be NULL.
int mc_bvh_point_parity(const struct mc_mesh* mesh, int mesh_body, struct mc_pair_scratch* scratch, mc_vec3 p,
                        int point_body);
/// mc_bvh_point_parity for a point p of `mesh`'s own frame (the point perturbed as a J point, the mesh as I), counting
/// only the triangles outside connected component `component` (mc_mesh.vertex_component): the parity of the number
/// of the other components' surfaces crossed from p to a point far outside (the nesting check of bvh/bvh_self.c).
int mc_bvh_point_parity_without(const struct mc_mesh* mesh, mc_vec3 p, uint32_t component);
/// The components that contain point p of `mesh`'s own frame, by the segment and the symbolic rule of
/// mc_bvh_point_parity_without (exact): those other than `component` whose triangles the segment crosses an odd number
/// of times. Each such component's surface is closed, so for a p on none of them this is "p is inside it".
/// @param odd component_count bytes of scratch, all 0 on entry; all 0 again on return
/// @param containers a growable array (mc_array_reserve; may start NULL with *capacity 0) that receives the
///        components, in increasing order
/// @param count receives their number (0 on failure)
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_point_containers(const struct mc_mesh* mesh, mc_vec3 p, uint32_t component, uint8_t* odd,
                                  uint32_t** containers, uint32_t* capacity, uint32_t* count);

/// A coordinate below MC_COORDINATE_SNAP in magnitude as 0: the library's rounding of tiny coordinates it derives
/// (J's vertices mapped into I's frame, query points), which keeps the predicates in their exact range (vec_math.h).
static inline double mc_snap_tiny(double x)
{
    return fabs(x) < MC_COORDINATE_SNAP ? 0.0 : x;
}

/// The first triangle of `mesh` met by the ray p + t d, 0 < t <= t_max, in floating point (a locating aid, not an
/// exact predicate: the region stage uses it to find which region encloses a shell, and gives up when `*ambiguous`).
/// Frames as in mc_bvh_point_parity: p and d in I's frame; for a J mesh (mesh_body 1) `scratch` maps its vertices.
/// @param skip a triangle left out (mesh order), MC_NONE for none
/// @param t_hit receives the parameter of the hit
/// @param ambiguous set to true when the hit is within 1e-9 (barycentric) of its triangle's boundary, when another
///        triangle is met within 1e-9 t_max of it, or when the ray grazes a triangle's plane; left alone otherwise
/// @return the triangle (mesh order), or MC_NONE when the ray meets none
uint32_t mc_bvh_ray_first_hit(const struct mc_mesh* mesh, int mesh_body, struct mc_pair_scratch* scratch, mc_vec3 p,
                              mc_vec3 d, double t_max, uint32_t skip, double* t_hit, bool* ambiguous);

/// The triangles (mesh order) of the leaves whose boxes meet the half-space n . x + d <= 0 of the mesh's frame (a
/// conservative superset of the triangles with a vertex there; n need not be unit), appended in tree order to *tris
/// (grown with mc_array_reserve; *count is reset first).
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_halfspace_triangles(const struct mc_mesh* mesh, mc_vec3 n, double d, uint32_t** tris,
                                     uint32_t* capacity, uint32_t* count);

/// The triangles (mesh order) of the leaves whose boxes meet the ball |x - c| <= r of the mesh's frame (conservative),
/// into *tris as mc_bvh_halfspace_triangles does.
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_ball_triangles(const struct mc_mesh* mesh, mc_vec3 c, double r, uint32_t** tris, uint32_t* capacity,
                                uint32_t* count);

/// The triangles (mesh order) of the leaves whose boxes may meet the ray p + t d (t >= 0) of the mesh's frame, widened
/// by `slack` (conservative: a triangle within `slack` of the ray is listed), into *tris as
/// mc_bvh_halfspace_triangles does.
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_ray_triangles(const struct mc_mesh* mesh, mc_vec3 p, mc_vec3 d, double slack, uint32_t** tris,
                               uint32_t* capacity, uint32_t* count);

/// What the self-intersection check of one mesh found (bvh/bvh_self.c).
typedef struct mc_self_result
{
    uint64_t pair_count;     ///< pairs of triangles that intersect (the rule of src/base/tri_tri_closed.h)
    uint32_t first[2];       ///< the smallest such pair (i < j, by i then j), MC_NONE when there is none
    uint64_t box_tests;      ///< node pairs whose boxes were tested
    uint64_t triangle_tests; ///< triangle pairs given to the exact rule
    int threads;             ///< threads that ran
} mc_self_result;

/// Intersecting triangle pairs of one mesh: its tree against itself, each unordered pair of nodes once, the exact rule
/// of src/base/tri_tri_closed.h at the leaves. The count and the first pair do not depend on worker_count.
/// @param worker_count threads (0: the OpenMP default); ignored (one thread) when pairs is not NULL
/// @param pairs may be NULL; receives the first `capacity` pairs found (i < j each, in the traversal's order), 2 per
///        pair
/// @param component_hit may be NULL; component_count entries (mc_mesh.vertex_component), set to 1 for the components
///        with a triangle in an intersecting pair, else 0
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_self_intersections(const struct mc_mesh* mesh, int worker_count, uint32_t* pairs, uint64_t capacity,
                                    uint8_t* component_hit, mc_self_result* out);

/// How the connected components of a closed mesh nest (bvh/bvh_self.c): one vertex of each component is located
/// against the other components by exact parity, and its winding (sign of its volume, read as if the mesh were not
/// flipped) is compared with its depth. Meaningful for components that intersect no other (the others are skipped).
typedef struct mc_nesting
{
    uint32_t cavities;      ///< inside an odd number of other components, wound inward: a cavity (correct)
    uint32_t same_winding;  ///< inside an odd number of others, wound outward: its volume counts twice
    uint32_t inverted;      ///< inside none (or an even number), wound inward: a solid turned inside out
    uint32_t first_problem; ///< the smallest triangle index of the first component (by number) of the two last
                            ///< kinds, MC_NONE when there is none
} mc_nesting;

/// Classify the components of a closed, oriented mesh with its tree (see mc_nesting).
/// @param skip may be NULL; component_count flags: components to leave out (those in an intersecting pair:
///        mc_bvh_self_intersections' component_hit), counted in none of the kinds
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_classify_components(const struct mc_mesh* mesh, const uint8_t* skip, mc_nesting* out);

/// Which shells of a closed, oriented mesh with its tree to reverse so that each one disjoint from the others is wound
/// outward on its own (mc_self_check: the shells oriented one by one). A component is disjoint when it is not in
/// `entangled`, no other component contains its vertex and it contains no other component's vertex (exact
/// containment, mc_bvh_point_containers, one query per component). Disjoint ones wound inward are flagged; the others
/// are flagged all together when their total signed volume is negative. Windings are read as if the mesh were not
/// flipped, with the volumes of mc_bvh_classify_components (so that a reversed shell is classified outward).
/// @param entangled may be NULL; component_count flags: components in an intersecting pair (never disjoint)
/// @param reverse component_count flags, filled: the components to reverse
/// @param count receives the number of flagged components
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_shells_to_reverse(const struct mc_mesh* mesh, const uint8_t* entangled, uint8_t* reverse,
                                   uint32_t* count);

/// Scratch of the distance query (bvh/bvh_distance.c): its traversal stack.
struct mc_distance_scratch;
/// Free the distance query's scratch. NULL is ignored.
void mc_distance_scratch_destroy(struct mc_distance_scratch* s);
/// Bytes held by the distance query's scratch.
size_t mc_distance_scratch_byte_count(const struct mc_distance_scratch* s);

/// What the distance branch and bound found, in I's frame.
typedef struct mc_bvh_distance_result
{
    double distance;         ///< smallest triangle distance below max_distance; INFINITY when none is
    mc_vec3 point_i;         ///< closest point on triangle tri_i (I's frame)
    mc_vec3 point_j;         ///< closest point on triangle tri_j (J mapped into I's frame)
    uint32_t tri_i;          ///< triangle of I (mesh order), MC_NONE when none was found
    uint32_t tri_j;          ///< triangle of J (mesh order), MC_NONE when none was found
    uint64_t box_tests;      ///< node pairs bounded
    uint64_t triangle_tests; ///< triangle pairs measured (after the bounding-sphere cull)
    double magnitude;        ///< bound of the coordinates' magnitudes in I's frame (rounding allowances)
} mc_bvh_distance_result;

/// Minimum distance between the surfaces of mesh I and mesh J placed at `j_in_i` (J's body frame in I's frame): a
/// serial depth-first branch and bound over node pairs (lower bound: the largest of the two boxes' gaps on the line
/// of their centres and on the 9 cross axes, and of the lengths of their gaps on each box's 3 face axes; the nearer
/// child pair first, of equal bounds the one with the nearer centres), mc_tri_tri_distance at leaf pairs after each
/// leaf's triangles are culled against the other leaf's box and each pair by cheap bounds. Pairs whose bound reaches
/// the best distance so far (initially max_distance) are pruned, so only distances below max_distance are found; a
/// distance of 0 (triangles meeting, floating point) stops the search. Deterministic (serial, fixed order; ties keep
/// the first pair found).
/// @param scratch created on first use, kept for the next query (free with mc_distance_scratch_destroy); it also
/// keeps J's node boxes of the last query, renewed by each query
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_bvh_distance(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                          double max_distance, struct mc_distance_scratch** scratch, mc_bvh_distance_result* out);
