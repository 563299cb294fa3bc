// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Region stage: inside/outside of vertices, connected regions of I ∩ J by union-find, and per region the volume,
// first moment and vector areas from local vertex-edge-face flags, then area, normal and depth.
// Based on: W. R. Franklin, "Polygon properties calculated from the vertex neighborhoods", ACM SoCG 1987 (local
// formulas over vertex-edge-face incidences); the flags of crossing points follow src/contact/FORMULAS.md.
//
// Outline (all in I's body frame; J's vertices are the copies the pair stage mapped into I's frame):
// 1. Crossings. Each edge-face crossing appears in the two triangle pairs of the edge's two faces. The occurrence on
//    the canonical half-edge (h < twin[h]) owns the crossing; the other occurrence is found by binary search in the
//    sorted pair array and joined to it in the union-find, as are the two ends of every pair's segment.
// 2. States. Along a crossed edge the crossings alternate entering/leaving (exact signs, one symbolic rule), so the
//    sum of their directions (+1 entering, walked along the canonical half-edge) is +1 (start outside, end inside),
//    -1 (start inside, end outside) or 0 (both ends in the same state). Odd edges give states without any ordering.
//    Inside vertices are flood-filled over uncrossed edges (and over evenly crossed ones, which keep the state), by
//    walking vertex rings: the cost is proportional to the inside vertices. An evenly crossed edge whose ends are
//    still unknown is decided by the direction of its first crossing when the crossings are well separated along
//    the edge (relative gap > 1e-9 and above the bound of their parameters' errors, param_error: large for an edge
//    that grazes a face), otherwise by one exact point-in-mesh query. A connected component of a mesh
//    none of whose edges is crossed (in no triangle pair, or crossed only through its faces by the other mesh's
//    edges) is entirely inside or outside: one exact point-in-mesh query decides it (skipped when its vertex is
//    clearly outside the other mesh's bounding box).
//    Blocks (src/contact/regions_blocks.h, options.use_blocks): a block of the mesh none of whose faces is in a
//    triangle pair is entirely inside or outside and, when inside, in one region. The flood takes such a block whole
//    when a ring walk meets one of its faces, floods on to its neighbour blocks without visiting their vertices, and
//    marks only the vertices it shares with blocks that have a face in some pair (those are walked per vertex). A
//    block's vertices are counted from the block; its faces are neither recorded nor visited.
// 3. Regions. Union-find over crossing occurrences and inside vertices: the two ends of a segment, the two
//    occurrences of a crossing, a crossing and the inside end of its edge, two consecutive crossings of one edge
//    that bound an inside interval, inside vertices joined by an uncrossed edge, and the segments in a face with
//    inside corners and no crossed edge of its own (closed loops around holes of its inside part) with its corners.
//    A component in no triangle pair, inside the other solid, with negative volume (a cavity's shell, a flipped
//    mesh) bounds a hole of the region around it: joined to the region that a ray from it into the solid side meets
//    first (join_inner_shells). After the sums, a region of negative volume is made of inner shells only (a cavity's
//    shell whose enclosing surface is crossed, a hole loop in a face whose own edges are crossed elsewhere): a ray
//    from one of its segments (or, failing that, from a face around an inside vertex, then from a face entirely
//    inside) into the intersection meets the boundary of the same connected piece first, and the regions are joined
//    and summed again (join_negative_regions). A ray's hit on a face in some pair is placed in the piece of the face's
//    inside part that holds it by an in-face ray to the nearest segment or edge interval (locate_in_face), towards
//    each of the face's edges in turn. The rays are floats used to locate, never to decide a sign. When the two
//    meshes' hits tie, faces exactly in one plane are ordered by the symbolic rule; on faces that coincide only up to
//    rounding the nearer hit is the one inside the other solid (boundary_node_along). A ray is unclear when its nearer
//    hit is near an edge or near another hit of its mesh, or when neither tied hit lies inside the other solid; an
//    unclear ray is tried again along three directions turned off it, and one unclear every way joins nothing (the
//    shell then stays a region of negative volume, the total right).
// 4. Sums per region, around a local origin (mean of its crossing points, or of its vertices when it has none). A face
//    in no triangle pair that has an inside vertex lies entirely inside the other solid: it contributes its
//    divergence-theorem terms directly. J's whole faces are summed in J's own frame from the mesh arrays and rotated
//    once per region (volume terms are invariant under the rigid map). An inside block adds its aggregated terms,
//    polynomials in the origin evaluated at the region's origin (per face when the region needs its rounding
//    sensitivity). A cut face (in some triangle pair) contributes the piece of it inside the other solid by Green's
//    formula over the piece's boundary segments ("Cut faces" below). options.triangle_terms = false sums Franklin's
//    flags instead, for every face (a crossing gives six flags, an inside vertex two in every face around it): the
//    independent method, kept as the tests' second oracle.
//    Cut faces. The divergence theorem splits the sums per face F of the region's boundary: with n the unit outward
//    normal, h = n . (any point of F - o) and F's piece traversed counter-clockwise around n by segments a -> b
//    (relative to o), the fan of tetrahedra (o, q, a, b), q = h n the foot of o on F's plane, gives per segment, with s
//    = n.(a x b) and w = h s: 6 V += w, 24 M += w (q + a + b), 2 S += s n (V = 1/3 sum h_F A_F, integral of x dV = 1/4
//    sum h_F integral over F of x dA, 2 A_F n = n (n . sum a x b), and the fan triangle (q, a, b) has signed area s/2
//    since n . (a x q) = 0). Franklin's flags on F sum to the same per-face term, so whole faces and cut faces mix.
//    Each term takes h = n . (F's first vertex - o), one value per face and region (the same operations wherever F's
//    terms are summed): a face's volume is then h times the area of its segments (their s sum to it), so the error of h
//    counts once per face. A height taken per term from a point of the term's own segment (no vertex load) adds its
//    error times each term's |s|, which for a large face cut near a far corner is much larger than the piece's area:
//    measured on cad_part_on_plate (a 12-triangle plate) 2.5e-13 relative to CGAL's volume instead of 4.6e-14, for 6 %
//    fewer instructions. A cut face's piece is bounded by (a) the segment of every intersecting pair (f, t): f
//    traverses it one way, t the other, and a crossing of an edge of face g is g's end of the segment when it enters
//    the other solid along g's own half-edge (the pair's `entering`), else g's start (exact combinatorics; the two ends
//    of a pair are one start and one end); (b) the inside intervals of its half-edges v -> w: an interval [a, b] is
//    segment (v, b) minus segment (v, a) (the points are collinear, so the fan triangles (q, v, a) + (q, a, b) = (q, v,
//    b), for volume, moment and area alike), and the intervals' ends alternate with the exact directions, so each
//    crossing x on the half-edge adds segment (v, x) with sign -entering along it (no ordering of the crossings along
//    the edge, so no float order decision), and the half-edge adds the whole segment (v, w) when w is inside: from the
//    corner list (half-edge h leaving an inside vertex w in a cut face; every inside vertex of a cut face is walked per
//    vertex, once, and its ring visits each face once, so every such half-edge is counted exactly once). Per crossing
//    of an edge between faces f1 (canonical half-edge p0 -> p1) and f2 (twin p1 -> p0): f1 gets segment (p0, x) with
//    sign -entering, f2 segment (p1, x) with sign +entering. A pair's points are its own, an edge's the crossing
//    record's: bitwise the same point, since the pair stage computes both occurrences of a crossing by the same
//    operations (asserted in debug). No unit vector, normalisation or parallel-plane case: coplanar faces' terms cancel
//    or add as the symbolic rule's limit does. Order per region: crossing records, pairs, then per body whole faces,
//    corners, blocks.
// 5. Depth (Adams): the closest point to the centroid of the region's part of each surface. "The region's part" of
//    a surface is taken here as the set of its triangles that touch the region: the faces entirely inside, the
//    faces of the region's crossings (the crossed face and the two faces of the crossed edge) and the faces around
//    its inside vertices, each taken whole (not clipped). Exact for faces inside; for a partly inside face the
//    closest point can lie slightly outside the other solid (at most by the face's size). Inside blocks are offered
//    first, skipped whole when their bounding sphere is farther than the best distance so far.
//
// Cost and memory: proportional to the crossings plus the inside vertices (the rays of step 3 only for shells in no
// pair and for regions of negative volume, a few per region, each a walk of the two trees). The per-vertex and per-face
// marks (state bytes, face bits) are cleared by the query that set them, so nothing of mesh size is touched per query;
// nothing is allocated once the workspace has grown to the largest query. Single-threaded and deterministic.
//
// Touching: a region is exact touching when every one of its crossings was decided by the symbolic rule (degenerate
// flag from the pair stage) and |6V| <= (16 + n) * DBL_EPSILON * E, where n is the number of summed terms and E the
// first-order sensitivity of the sum to an absolute error of one unit of the coordinates' magnitude in every
// position and unit vector: for a flag, (|bc| + |ac| + |ab|) (|V| + |o|) with a = V.T, b = V.N, c = V.B; for a
// whole triangle (a, b, c), |(b - a) x (c - a)| (|a| + |b| + |c| + 3|o|); for a cut face's segment term w = h s,
// |s| (|p| + 2|o|) + 3 |h| (|a| + |o|) (|b| + |o|) (p the face's first vertex, a and b the segment's ends, all
// relative to o: h = n . p moves by at most |p| + 2|o| units, s = n . (a x b) by at most
// (|a| + |o|) |b| + |a| (|b| + |o|) + |a| |b|; 1-norms, upper bounds of the 2-norms). Positions and unit vectors carry
// at most a few ulps of relative error (crossing points are convex combinations of the edge ends with a relatively
// accurate parameter), each product adds a few more, and summation adds at most n ulps of the sum of magnitudes; 16
// covers the per-term part. The exact volume of a touching configuration is zero, so its computed volume lies within
// the bound; such regions are counted in stats->touching_regions and not reported.
//
// Flush faces. The symbolic rule (src/base/tri_tri.h: J moved by (eps, eps^2, eps^3)) decides which of two faces of
// the two meshes that lie exactly in one plane is inside the other solid: the overlap of face g with a face h of the
// other mesh in g's plane lies inside h's solid when the rule moves h to g's outward side and h faces the way g does
// (side faces flush: one of the two surfaces' coincident pieces is inside, the other outside), or to g's inward side
// and h faces the other way (faces touching face to face: both pieces are inside, a region of zero thickness).
// Right for the topology, the volume and the centroid, but such a coincident piece is not a penetrated surface, and
// counted in a vector area it tilts the normal and adds area (two stacked unit boxes: normal (0.01, 0.01, 0.9999),
// area 1.0001). The rule for the vector areas: a piece of the boundary that lies on a face of the other mesh in the
// same plane is left out of S_I and S_J (so of the normal, area, radius, the A > 2 g^2 test and the forces), and
// still counts in the volume and the first moment. Decided exactly: the pair stage reports the triangle pairs whose
// corners lie exactly in each other's plane and whose interiors overlap (mc_pair_result.coplanar, orient3d == 0: the
// tie R1 breaks, every such pair is tested since their boxes meet). For each face g of the boundary (in a pair,
// entirely inside, or in an inside block) its partners are those faces h whose overlap with g lies inside h's solid
// as above (the rule's side: the sign of g's exact normal's first non-zero component). g is pure flush when its piece
// inside the other solid lies entirely on its partners: every pair of g meets g's plane at one corner, along an edge
// that does not enter g's interior, or along an edge of a partner (the rim where the other surface turns away: the
// piece ends there), and no edge of a partner where the other solid goes on beyond the plane (its other face turns to
// the partner's outward side) runs through g's interior (exact predicates: orient3d and in-plane orientations). A
// pure face adds its terms to the volume and moment only, so symmetric configurations keep exact vector areas
// (stacked boxes: S_I exactly (0, 0, 1)). Otherwise g is mixed (part of its piece lies strictly inside the other
// solid): its terms are summed and the area of g on each partner (g clipped by h in floating point, about 1e-16 of
// the area) is taken off the region of the piece that holds it. The volume and centroid do not depend on the rule
// (bitwise those of the symbolic rule alone). S_I + S_J = 0 then holds only up to the flush pieces (the coincident
// side faces of offset stacked boxes are not opposite). The derivatives (region_derivative.c) leave the pure faces'
// flags out of the vector areas alike and take a mixed face of I's clipped area off S_I's with its corners moving
// with J: consistent along the motions that keep the faces flush (J's translations along their plane); the others
// are kinks. Cost: nothing without coplanar pairs (a test per summed term); with them, a sort of their faces and exact
// tests per face that has partners.
//
// Near-flush faces (vector areas only). Faces flush up to rounding are not exactly coplanar: a block free to rotate
// at a plate's edge tilts by about 1e-14 rad (rounding of its centroid), its side faces are then an ulp off the
// plate's edge faces, and the thin layers between them are counted in S_I and S_J as penetrated surface, pushing it
// sideways. Rule: a face g of a triangle pair and a face h of the other mesh around a corner of g's partner in the
// pair (h crosses g, or meets the surface g crosses: the layer starts where g crosses that surface), not exactly
// coplanar with g (those are the rule above's), are near-flush when their planes are parallel within
// NEAR_FLUSH_SIN = 1e-9 (sine of the angle, either orientation) and each one's corners lie within 1e-9 times the sum
// of the two parts' sizes (largest extent of each mesh's bounding box) of the other's plane. The part of g inside h's
// outline (seen along h's normal) and behind h's plane (the piece of g inside the other solid next to h) is then taken
// off g's body's vector area in that pair's region, after the sums (floating-point clipping, apply_near_flush; each (g,
// h) once). The threshold: rounding tilts are 1e-16 to 1e-13 rad and rounding offsets 1e-16 of the size, far inside it;
// a layer it removes is at most 1e-9 of the parts' size thick, below any depth the forces resolve (a penetration
// shallower than that is a touching), and a tilt of 1e-9 rad changes a face's area vector's direction by 1e-9.
// Tilts beyond it (1e-6 rad, say) keep their true area vectors. The volume, centroid and topology are untouched; the
// derivatives (region_derivative.c) do not follow the rule (a kink, as for a flush face leaving its plane). A pure
// flush face is skipped. Limit: a near-flush face h that neither crosses g nor meets a face g crosses at a corner is
// missed (a layer along a finely meshed face, far from where g enters the other solid). Cost: per pair and side, the
// partner's three corners against the face's plane (+20 % of the region stage on a shaft pressed into a bore, whose
// plan is replayed; +3 % on meshing gears); the fans of corners within the tolerance only in flush configurations.
#include "src/contact/regions.h"

#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/predicates.h"
#include "src/base/tri_tri.h"
#include "src/base/tri_tri_sides.h"
#include "src/base/union_find.h"
#include "src/contact/patches.h"
#include "src/contact/regions_blocks.h"
#include "src/contact/workspace.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// The flag sums get a second clone compiled for x86-64-v3, picked once at load time by GCC's target_clones (ifunc):
// its 4-double lanes compute the flags' products (add_flags) in fewer instructions. So do the scalar parts of a
// coherent query that follow the flags in the profile (sum_regions with what it inlines, depth_adams with its offers
// and depth_candidate, plan_restore): their three-operand AVX forms need fewer register copies (216 spheres, coherent
// step: 36.38 M -> 35.11 M instructions with front_replay's clone in bvh_collide.c); apply_near_flush's corner filter
// likewise (125 spheres drifting, region stage: 226.0 M -> 224.5 M). Both clones compute the same values: the same IEEE
// operations in the same order (the build uses -ffp-contract=off, so nothing is fused). Plain single version elsewhere
// and under sanitizers.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 &&         \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MC_FLAG_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MC_FLAG_CLONES
#endif

#define RING_LIMIT 65536u // guard against a broken vertex ring
#define ORDER_GAP 1e-9    // relative gap along an edge above which the float order of crossings is trusted

/// One distinct edge-face crossing.
typedef struct crossing_record
{
    mc_vec3 point;       // I's frame
    double param;        // (x - p0).(p1 - p0) / |p1 - p0|^2 along the canonical half-edge
    uint32_t occurrence; // owning occurrence 2 * pair + slot (its union-find node)
    uint32_t halfedge;   // canonical half-edge in its body's mesh
    uint32_t face;       // crossed face of the other body
    int8_t entering;     // +1: entering the other solid when walked along the canonical half-edge
    uint8_t body;        // body of the edge
    uint8_t degenerate;  // decided by the symbolic rule (in either occurrence)
} crossing_record;

/// One crossed edge and its crossings (indices into the sorted list).
typedef struct crossed_edge
{
    uint32_t halfedge;     // canonical half-edge
    uint32_t first;        // first entry in edge_list
    uint32_t count;        // crossings on the edge
    int32_t net_direction; // sum of directions
    uint8_t body;          // body of the edge
} crossed_edge;

/// A face (whole face or corner half-edge) and the union-find node of the inside vertex that found it.
typedef struct face_entry
{
    uint32_t id;
    uint32_t node;
} face_entry;

/// Classes of a face with partners (classify_flush; body_arrays.fflush, 0 for the other faces).
enum
{
    FLUSH_PURE = 2,  // its whole piece inside the other solid lies on faces of the other mesh: no area terms
    FLUSH_MIXED = 3, // partly: its terms are summed, its flush area is taken off after the sums (flush_entry)
};

/// A vector area taken off a region's S_I or S_J after the sums (classify_flush).
typedef struct flush_entry
{
    mc_vec3 area_x2;  // twice the vector area, I's frame
    uint32_t face;    // the face of body `body`
    uint32_t partner; // the partner (a face of the other body) whose overlap it is; MC_NONE for a block's pure face
    uint32_t node;    // union-find node of the piece that holds it
    uint8_t body;
    uint8_t block; // 1: a pure face of an inside block, taken off only where the block is summed whole
} flush_entry;

/// Per-body arrays: vertex / face marks (cleared after each query), epoch-stamped component marks, per-query lists.
typedef struct body_arrays
{
    // Marks are kept clean between queries: whatever a query sets, it clears before returning (cost proportional to
    // the crossings and inside vertices, never to the mesh size), so small arrays stay hot in cache.
    uint8_t* vstate; // per vertex: 0 unknown, 1 outside, 2 inside
    uint32_t* vnode; // union-find node of an inside vertex (read only when vstate == 2)
    uint32_t vcap;
    uint64_t* fbits;   // one bit per face: the face is in some triangle pair
    uint32_t fcap;     // faces the bit array can hold
    uint32_t* foffer;  // per face: offer_base + 1 + the region it was last offered to as a depth candidate, 0 none
    uint32_t focap;    // faces foffer can hold
    uint32_t* outside; // vertices marked outside by this query (to clear them)
    uint32_t outside_count, outside_cap;
    uint32_t* cstamp; // component has a face in some triangle pair when == epoch
    uint32_t* xstamp; // component has a crossed edge of its own when == epoch (same capacity as cstamp)
    uint32_t ccap;
    uint32_t* inside; // inside vertices of this query
    uint32_t inside_count, inside_cap;
    face_entry* whole; // faces entirely inside (found from their local vertex 0)
    uint32_t whole_count, whole_cap;
    double* plane; // per whole face: 2 * vector area (3) and its dot with the first vertex (1), for the depth bound
    uint32_t plane_cap;
    face_entry* corner; // half-edges leaving an inside vertex in a face of some pair
    uint32_t corner_count, corner_cap;
    uint32_t* stack; // flood-fill stack
    uint32_t stack_count, stack_cap;
    // Blocks (src/contact/regions_blocks.h), when the query uses them: marks cleared by the query that set them.
    uint8_t* bstate; // per block: 0 unknown, 2 entirely inside
    uint32_t* bnode; // union-find node of an inside block
    uint32_t bcap;
    uint64_t* btouch; // one bit per block: some face of the block is in a triangle pair
    uint32_t btcap;   // blocks the bit array can hold
    uint32_t* blist;  // inside blocks of this query
    uint32_t blist_count, blist_cap;
    uint32_t* bstack; // block flood stack
    uint32_t bstack_count, bstack_cap;
    // Flush faces (classify_flush): per face 0, or a FLUSH_* class; grown at the first query that meets a flush
    // face, cleared by the query that set it (the faces it marked are listed in flist).
    uint8_t* fflush;
    uint32_t ffcap;
    uint32_t* flist;
    uint32_t flist_count, flist_cap;
} body_arrays;

/// Accumulators and results of one region.
typedef struct region_accumulator
{
    mc_vec3 origin;               // local origin
    mc_vec3 crossing_sum;         // sum of crossing points
    mc_vec3 vertex_sum;           // sum of inside vertices
    uint32_t crossing_count;      // crossings
    uint32_t inside_vertex_count; // inside vertices
    uint32_t creation_order;      // creation order (deterministic tie-break)
    uint32_t shell_tries;         // ray starts left for joining the region's inner shells (join_negative_regions)
    bool shell_joined;            // joined to another region by join_negative_regions
    uint32_t term_count;          // summed terms
    bool all_degenerate;          // every crossing decided by the symbolic rule
    double volume_x6;             // 6 V
    mc_vec3 moment_x24;           // 24 * first moment about origin
    mc_vec3 area_x2[2];           // 2 S_I, 2 S_J
    double sensitivity_x6;        // rounding sensitivity of volume_x6 (summed only when need_sensitivity)
    bool need_sensitivity;    // the region can be exact touching (crossings all degenerate): sensitivity_x6 is needed
    double best[2];           // squared distance of the closest point on each surface (Adams depth)
    double block_bound[2];    // upper bound of the squared distance from the centroid to the region's blocks of I, of J
    mc_vec3 closest[2];       // closest points
    uint32_t closest_face[2]; // faces of the closest points (MC_NONE: an inside vertex; for the derivatives)
    // Whole faces of J are summed in J's body frame (raw mesh arrays, no per-vertex mapping), around origin_j = the
    // origin mapped into J's frame; the sums are rotated into I's frame at the end (volume terms are invariant).
    mc_vec3 origin_j;        // origin in J's frame
    double j_volume_x6;      // 6 V of J's whole faces
    mc_vec3 j_moment_x24;    // 24 * first moment of J's whole faces about origin_j, J's frame
    mc_vec3 j_area_x2;       // 2 * vector area of J's whole faces, J's frame
    double j_best;           // Adams depth: squared distance of the closest point of J's whole faces
    mc_vec3 j_closest;       // that point, J's frame
    uint32_t j_closest_face; // its face (MC_NONE: an inside vertex)
    mc_vec3 centroid_j;      // centroid in J's frame
    double ext_min, ext_max;
    mc_region out; // result (I's frame)
} region_accumulator;

struct mc_region_scratch
{
    uint32_t epoch;
    body_arrays body[2];
    uint32_t* parent; // union-find over nodes (occurrences first, then inside-vertex groups)
    uint32_t node_count, parent_cap;
    uint32_t* occurrence_record; // occurrence -> crossing record (canonical occurrences), MC_NONE otherwise
    uint32_t occurrence_cap;
    crossing_record* records;
    uint32_t record_count, record_cap;
    uint64_t* edge_keys; // edge hash: key = 2 * he + body, UINT64_MAX empty
    uint32_t* edge_vals; // crossed-edge record
    uint32_t edge_slots; // slots used by this query (power of two)
    uint32_t edge_alloc; // slots allocated
    uint64_t* pair_keys; // pair hash: key = (i << 32) | j, UINT64_MAX empty
    uint32_t* pair_vals; // pair index
    uint32_t pair_slots; // slots used by this query (power of two)
    uint32_t pair_alloc; // slots allocated
    crossed_edge* edges;
    uint32_t edge_count, edge_cap;
    uint32_t* edge_list; // crossing records grouped by edge, sorted by param
    uint32_t elist_cap;
    uint32_t* node_region; // root node -> region
    uint32_t node_region_cap;
    region_accumulator* regions;
    uint32_t region_count, region_cap;
    uint32_t* order; // region indices sorted for output
    uint32_t order_cap;
    mc_region_dsums* dsums; // per region: derivative sums (only when derivatives are asked for)
    uint32_t dsums_cap;
    uint64_t inside_total; // inside vertices of this query (listed ones and those of inside blocks)
    uint32_t offer_base;   // depth-offer marks of this query are offer_base + 1 + region: above every older mark
    uint64_t* jkeys;       // (j << 32 | pair) sorted, for the pairs of a face of J (built only when needed)
    uint32_t jkeys_cap;
    // Float decisions of steps 1-3 that a plan can take again (see mc_region_plan): vertices found clearly outside
    // the other mesh's bounding box (2 v + body), and evenly crossed edges decided by the gap of their first two
    // crossings' parameters (those two record indices).
    uint32_t* box_checks;
    uint32_t box_check_count, box_check_cap;
    uint32_t* gap_checks;
    uint32_t gap_check_count, gap_check_cap;
    // Flush faces (classify_flush): the areas taken off the regions' vector areas after the sums, and its scratch.
    struct flush_entry* fsub;
    uint32_t fsub_count, fsub_cap;
    uint64_t* fkeys; // (body, face, partner) keys of the coplanar pairs
    uint32_t fkeys_cap;
    uint32_t* fpart; // the partners of the face being classified
    uint32_t fpart_count, fpart_cap;
    // Near-flush faces: the pair sides whose partner has a corner near the face's plane (2 pair + body, pair order),
    // found by sum_pair_segments for apply_near_flush; near_ready: this query's sums filled it.
    uint32_t* near;
    uint32_t near_count, near_cap;
    bool near_ready;
};

/// Per-query context.
typedef struct region_query
{
    struct mc_region_scratch* s;
    const struct mc_mesh* mesh[2];
    struct mc_pair_scratch* ps;
    mc_pair_j_view jv;              // J's vertices in I's frame (the pair stage's copies)
    mc_mat33 rot_j;                 // rotation J -> I (for J's face normals)
    mc_vec3 trans_j;                // translation J -> I
    const mc_region_blocks* blk[2]; // blocks of each mesh, NULL: per vertex and per face only
    const mc_triangle_pair* pairs;
    uint32_t pair_count;
    uint32_t epoch;
    bool oom;
    bool jkeys_ready;            // s->jkeys holds this query's pairs sorted by J's triangle
    bool coordinate_decision;    // steps 1-3 took a decision from coordinates (no plan can be kept: see mc_region_plan)
    bool marked;                 // the pairs' face and block bits are set (collect_crossings; cleared by clear_marks)
    const uint32_t* listed[2];   // restored query: vertex_listed of each inside vertex, one bit each (NULL: compute it)
    struct mc_region_plan* plan; // the pair's plan (NULL: none kept or used)
    uint64_t certificate;        // the pair stage's certificate id of these pairs (mc_pair_result.certificate)
    uint32_t flush_pure;         // faces classified FLUSH_PURE (0: the sums test no face)
    const uint64_t* coplanar;    // the pair stage's coplanar pairs (mc_pair_result.coplanar)
    uint32_t coplanar_count;
} region_query;

// ---------------------------------------------------------------------------------------------------------------
// Memory

/// Grow *p from old_bytes to new_bytes (new_bytes > old_bytes), the new bytes zeroed. On failure *p is unchanged.
static bool grow_zeroed(void** p, size_t old_bytes, size_t new_bytes)
{
    unsigned char* q = mc_realloc(*p, new_bytes);
    if (q == NULL)
    {
        return false;
    }
    memset(q + old_bytes, 0, new_bytes - old_bytes);
    *p = q;
    return true;
}

/// Grow a per-item state array (bytes, new ones zero: unknown) and its per-item union-find node array (read only
/// where the state says so, left uninitialised) to at least `need` items.
static bool reserve_state_nodes(uint8_t** state, uint32_t** node, uint32_t* cap, uint32_t need)
{
    if (need <= *cap)
    {
        return true;
    }
    if (!grow_zeroed((void**)state, *cap, need))
    {
        return false;
    }
    uint32_t* nd = mc_realloc(*node, (size_t)need * sizeof *nd);
    if (nd == NULL)
    {
        return false; // the states grew, cap not: the next call retries both
    }
    *node = nd;
    *cap = need;
    return true;
}

/// Grow a bit array (64 bits a word) to hold at least `need` bits; new bits are zero.
static bool reserve_bits(uint64_t** bits, uint32_t* cap, uint32_t need)
{
    if (need <= *cap)
    {
        return true;
    }
    size_t old_words = ((size_t)*cap + 63u) / 64u, words = ((size_t)need + 63u) / 64u;
    if (!grow_zeroed((void**)bits, old_words * sizeof **bits, words * sizeof **bits))
    {
        return false;
    }
    *cap = need;
    return true;
}

/// Grow both per-component epoch-stamp arrays to at least `need` entries; new stamps are zero (never a live epoch).
static bool reserve_component_stamps(body_arrays* a, uint32_t need)
{
    if (need <= a->ccap)
    {
        return true;
    }
    size_t old_bytes = (size_t)a->ccap * sizeof(uint32_t), new_bytes = (size_t)need * sizeof(uint32_t);
    if (!grow_zeroed((void**)&a->cstamp, old_bytes, new_bytes) ||
        !grow_zeroed((void**)&a->xstamp, old_bytes, new_bytes))
    {
        return false; // cstamp may have grown: ccap stays the smaller capacity, valid for both
    }
    a->ccap = need;
    return true;
}

/// Grow the per-face depth-offer marks to at least `need` faces; new marks are zero (never offered).
static bool reserve_face_offers(body_arrays* a, uint32_t need)
{
    if (need <= a->focap)
    {
        return true;
    }
    if (!grow_zeroed((void**)&a->foffer, (size_t)a->focap * sizeof(uint32_t), (size_t)need * sizeof(uint32_t)))
    {
        return false;
    }
    a->focap = need;
    return true;
}

/// Grow the per-vertex, per-face, per-component and (when blocks are used) per-block marks of one body to the
/// sizes of its mesh.
static bool reserve_marks(body_arrays* a, const struct mc_mesh* m, const mc_region_blocks* blk)
{
    return reserve_state_nodes(&a->vstate, &a->vnode, &a->vcap, m->vertex_count) &&
           reserve_bits(&a->fbits, &a->fcap, m->triangle_count) && reserve_component_stamps(a, m->component_count) &&
           reserve_face_offers(a, m->triangle_count) &&
           (blk == NULL || (reserve_state_nodes(&a->bstate, &a->bnode, &a->bcap, blk->block_count) &&
                            reserve_bits(&a->btouch, &a->btcap, blk->block_count)));
}

// Every array the scratch owns, for destruction and byte counting (one list, so the two cannot drift apart).
enum
{
    SCRATCH_BODY_ARRAYS = 19,
    SCRATCH_REST_ARRAYS = 20,
    SCRATCH_ARRAYS = 2 * SCRATCH_BODY_ARRAYS + SCRATCH_REST_ARRAYS
};
static void scratch_arrays(const struct mc_region_scratch* s, void* out[SCRATCH_ARRAYS])
{
    int n = 0;
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        void* list[SCRATCH_BODY_ARRAYS] = {a->vstate, a->vnode,  a->fbits,  a->outside, a->cstamp, a->xstamp, a->inside,
                                           a->whole,  a->plane,  a->corner, a->stack,   a->bstate, a->bnode,  a->btouch,
                                           a->blist,  a->bstack, a->foffer, a->fflush,  a->flist};
        for (int k = 0; k < SCRATCH_BODY_ARRAYS; ++k)
        {
            out[n++] = list[k];
        }
    }
    void* rest[SCRATCH_REST_ARRAYS] = {
        s->parent,     s->occurrence_record, s->records,     s->edge_keys, s->edge_vals, s->pair_keys, s->pair_vals,
        s->edges,      s->edge_list,         s->node_region, s->regions,   s->order,     s->jkeys,     s->dsums,
        s->box_checks, s->gap_checks,        s->fsub,        s->fkeys,     s->fpart,     s->near};
    for (int k = 0; k < SCRATCH_REST_ARRAYS; ++k)
    {
        out[n++] = rest[k];
    }
}

void mc_region_scratch_destroy(struct mc_region_scratch* s)
{
    if (s == NULL)
    {
        return;
    }
    void* arrays[SCRATCH_ARRAYS];
    scratch_arrays(s, arrays);
    for (int k = 0; k < SCRATCH_ARRAYS; ++k)
    {
        mc_free(arrays[k]);
    }
    mc_free(s);
}

size_t mc_region_scratch_byte_count(const struct mc_region_scratch* s)
{
    if (s == NULL)
    {
        return 0;
    }
    void* arrays[SCRATCH_ARRAYS];
    scratch_arrays(s, arrays);
    size_t bytes = mc_alloc_size(s);
    for (int k = 0; k < SCRATCH_ARRAYS; ++k)
    {
        bytes += mc_alloc_size(arrays[k]);
    }
    return bytes;
}

mc_region_options mc_default_region_options(void)
{
    mc_region_options o;
    o.depth_method = MC_DEPTH_ADAMS;
    o.triangle_terms = true;
    o.use_blocks = true;
    o.derivatives = NULL;
    return o;
}

// ---------------------------------------------------------------------------------------------------------------
// Geometry helpers

static inline mc_vec3 vpos(const region_query* c, int b, uint32_t v)
{
    return b == 0 ? c->mesh[0]->positions[v] : mc_pair_j_view_vertex(&c->jv, v);
}

/// Vertex v of a face of J that is in some triangle pair, in I's frame: published in the pair stage's cache (step 1,
/// publish_pair_corners), so it is read without the stamp check (and without the call for an unpublished vertex, which
/// makes the loops around it keep their sums in memory).
static inline mc_vec3 jpos(const region_query* c, uint32_t v)
{
    MC_ASSERT(atomic_load_explicit(&c->jv.stamp[v], memory_order_acquire) == c->jv.ready);
    return c->jv.jv[v];
}

/// vpos for a vertex of a face in some triangle pair (jpos for J).
static inline mc_vec3 vpos_cut(const region_query* c, int b, uint32_t v)
{
    return b == 0 ? c->mesh[0]->positions[v] : jpos(c, v);
}

static inline mc_vec3 fnormal(const region_query* c, int b, uint32_t f)
{
    return b == 0 ? c->mesh[0]->face_normals[f] : mc_mat33_mul_vec(&c->rot_j, c->mesh[1]->face_normals[f]);
}

/// Face f of body b is a pure flush face (classify_flush): its terms go to the volume and moment, not to the vector
/// areas.
static inline bool flush_pure(const region_query* c, int b, uint32_t f)
{
    return c->flush_pure != 0u && c->s->body[b].fflush[f] == FLUSH_PURE;
}

/// The flush classes of body b's faces when some face is pure flush, else NULL (read once by the loops of the sums:
/// a face's area is summed unless marks != NULL && marks[f] == FLUSH_PURE).
static inline const uint8_t* flush_marks(const region_query* c, int b)
{
    return c->flush_pure != 0u ? c->s->body[b].fflush : NULL;
}

/// Face f's area terms are summed (marks: flush_marks): false for a pure flush face.
static inline bool area_of(const uint8_t* marks, uint32_t f)
{
    return marks == NULL || marks[f] != FLUSH_PURE;
}

/// The smaller of a and b (no NaN handling: the distances compared here are never NaN; inlined, unlike fmin).
static inline double min2(double a, double b)
{
    return b < a ? b : a;
}

static inline double norm1(mc_vec3 v)
{
    return fabs(v.x) + fabs(v.y) + fabs(v.z);
}

static inline uint32_t he_next(uint32_t h)
{
    return h % 3u == 2u ? h - 2u : h + 1u;
}

static inline uint32_t he_prev(uint32_t h)
{
    return h % 3u == 0u ? h + 2u : h - 1u;
}

/// Exact inside test of a vertex of body b against the other solid (symbolic rule, flipped solids handled). A point
/// clearly outside the other mesh's bounding box (its report, in its body frame) is outside its surface without a
/// ray query. "Clearly": by more than 1e-10 of the box size and coordinates, far above the rounding of the frame
/// change (a few ulps), so a point on or near the surface always gets the exact query and its tie-break.
static bool vertex_outside_box(const region_query* c, int b, uint32_t v)
{
    mc_vec3 p = vpos(c, b, v);
    const struct mc_mesh* other = c->mesh[1 - b];
    mc_vec3 q = b == 0 ? mc_mat33_tmul_vec(&c->rot_j, mc_sub(p, c->trans_j)) : p; // p in the other's body frame
    const mc_vec3 lo = other->report.bbox_min, hi = other->report.bbox_max;
    double tol = 1e-10 * (norm1(mc_sub(hi, lo)) + norm1(q));
    return q.x < lo.x - tol || q.y < lo.y - tol || q.z < lo.z - tol || q.x > hi.x + tol || q.y > hi.y + tol ||
           q.z > hi.z + tol;
}

static bool vertex_inside_other(const region_query* c, int b, uint32_t v)
{
    const struct mc_mesh* other = c->mesh[1 - b];
    if (vertex_outside_box(c, b, v))
    {
        return other->flipped;
    }
    mc_vec3 p = vpos(c, b, v);
    int parity = b == 0 ? mc_bvh_point_parity(other, 1, c->ps, p, 0) : mc_bvh_point_parity(other, 0, NULL, p, 1);
    return (parity != 0) != other->flipped;
}

// ---------------------------------------------------------------------------------------------------------------
// Union-find

static uint32_t uf_new(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    if (!mc_array_reserve((void**)&s->parent, &s->parent_cap, (uint64_t)s->node_count + 1, sizeof *s->parent, 64))
    {
        c->oom = true;
        return 0;
    }
    s->parent[s->node_count] = s->node_count;
    return s->node_count++;
}

// ---------------------------------------------------------------------------------------------------------------
// Crossed-edge hash

static inline uint32_t hash_slot(uint64_t key, uint32_t mask)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & mask;
}

/// Value stored for `key` in an open-addressing table of `cap` slots (power of two, empty slots UINT64_MAX), or
/// MC_NONE.
static inline uint32_t table_find(const uint64_t* keys, const uint32_t* vals, uint32_t cap, uint64_t key)
{
    uint32_t mask = cap - 1u;
    for (uint32_t i = hash_slot(key, mask);; i = (i + 1u) & mask)
    {
        if (keys[i] == key)
        {
            return vals[i];
        }
        if (keys[i] == UINT64_MAX)
        {
            return MC_NONE;
        }
    }
}

/// Size an open-addressing table for n keys for this query: the smallest power of two >= max(16, 2 n + 2) slots in
/// *cap, grown (never shrunk) in *keys / *vals / *alloc, every used key slot emptied (UINT64_MAX). False on out of
/// memory.
static bool table_prepare(uint64_t** keys, uint32_t** vals, uint32_t* alloc, uint32_t* cap, uint32_t n)
{
    uint32_t c = 16;
    while (c < 2u * n + 2u)
    {
        c *= 2u;
    }
    if (c > *alloc)
    {
        uint64_t* k = mc_realloc(*keys, (size_t)c * sizeof *k);
        if (k == NULL)
        {
            return false;
        }
        *keys = k;
        uint32_t* v = mc_realloc(*vals, (size_t)c * sizeof *v);
        if (v == NULL)
        {
            return false;
        }
        *vals = v;
        *alloc = c;
    }
    *cap = c;
    memset(*keys, 0xFF, (size_t)c * sizeof **keys);
    return true;
}

static uint32_t edge_lookup(const struct mc_region_scratch* s, int b, uint32_t he)
{
    return table_find(s->edge_keys, s->edge_vals, s->edge_slots, 2u * (uint64_t)he + (uint64_t)b);
}

// ---------------------------------------------------------------------------------------------------------------
// Vertex states and flood fill

/// -1 unknown, 0 outside, 1 inside.
static inline int vstate(const region_query* c, int b, uint32_t v)
{
    const body_arrays* a = &c->s->body[b];
    return (int)a->vstate[v] - 1;
}

static void mark_outside(region_query* c, int b, uint32_t v)
{
    body_arrays* a = &c->s->body[b];
    if (a->outside_count == a->outside_cap &&
        !mc_array_reserve((void**)&a->outside, &a->outside_cap, (uint64_t)a->outside_count + 1, sizeof *a->outside, 64))
    {
        c->oom = true;
        return;
    }
    a->vstate[v] = 1;
    a->outside[a->outside_count++] = v;
}

/// Mark v inside with union-find node `node` and queue it for the flood fill.
static void mark_inside(region_query* c, int b, uint32_t v, uint32_t node)
{
    body_arrays* a = &c->s->body[b];
    if ((a->inside_count == a->inside_cap &&
         !mc_array_reserve((void**)&a->inside, &a->inside_cap, (uint64_t)a->inside_count + 1, sizeof *a->inside, 64)) ||
        (a->stack_count == a->stack_cap &&
         !mc_array_reserve((void**)&a->stack, &a->stack_cap, (uint64_t)a->stack_count + 1, sizeof *a->stack, 64)))
    {
        c->oom = true;
        return;
    }
    a->vstate[v] = 2;
    a->vnode[v] = node;
    a->inside[a->inside_count++] = v;
    a->stack[a->stack_count++] = v;
}

static inline void set_state(region_query* c, int b, uint32_t v, bool inside)
{
    if (vstate(c, b, v) >= 0)
    {
        return; // first decision wins (they agree unless the pair stage was inconsistent)
    }
    if (inside)
    {
        uint32_t node = uf_new(c);
        if (!c->oom)
        {
            mark_inside(c, b, v, node);
        }
    }
    else
    {
        mark_outside(c, b, v);
    }
}

/// Mark block k inside with union-find node `node` and queue it (the caller has reserved blist and bstack).
static inline void push_block(body_arrays* a, uint32_t k, uint32_t node)
{
    a->bstate[k] = 2u;
    a->bnode[k] = node;
    a->blist[a->blist_count++] = k;
    a->bstack[a->bstack_count++] = k;
}

/// A vertex ring being walked by the flood fill.
typedef struct ring_cursor
{
    uint32_t node;  // union-find node of the vertex
    uint32_t h0;    // first half-edge leaving the vertex
    uint32_t h;     // current half-edge
    uint32_t guard; // steps taken
} ring_cursor;

#define FLOOD_LANES 8 // rings walked in an interleaved way: their twin[] loads overlap instead of forming one chain

/// Flood the inside state of body b from its vertex stack: over uncrossed edges (same union-find set) and evenly
/// crossed edges (same state, separate set). Records the faces met for the sums; a face of a block in no pair marks
/// and queues its block instead. Each step of a ring walk depends on the previous one's twin[] load, so several
/// rings are walked at once (one step each per round).
static void flood_vertices(region_query* c, int b)
{
    const struct mc_mesh* m = c->mesh[b];
    body_arrays* a = &c->s->body[b];
    const uint32_t* idx = m->indices;
    const uint32_t* twin = m->twin;
    const uint64_t* fbits = a->fbits;
    uint8_t* vstate = a->vstate;
    const uint32_t* tri_block = c->blk[b] != NULL ? c->blk[b]->tri_block : NULL;
    const uint64_t* btouch = a->btouch;
    ring_cursor lane[FLOOD_LANES];
    int active = 0;
    while (!c->oom)
    {
        while (active < FLOOD_LANES && a->stack_count > 0)
        {
            uint32_t v = a->stack[--a->stack_count];
            uint32_t h0 = m->vertex_halfedge[v];
            if (h0 != MC_NONE)
            {
                lane[active].node = a->vnode[v];
                lane[active].h0 = h0;
                lane[active].h = h0;
                lane[active].guard = 0;
                active++;
            }
        }
        if (active == 0)
        {
            break;
        }
        // One round pushes at most one face and one inside vertex per lane: reserve for the whole round, so the
        // pushes below are unchecked (and the face pushes branch-free).
        uint64_t need_whole = (uint64_t)a->whole_count + FLOOD_LANES,
                 need_corner = (uint64_t)a->corner_count + FLOOD_LANES;
        if (!mc_array_reserve((void**)&a->whole, &a->whole_cap, need_whole, sizeof *a->whole, 64) ||
            !mc_array_reserve((void**)&a->corner, &a->corner_cap, need_corner, sizeof *a->corner, 64) ||
            !mc_array_reserve((void**)&a->inside, &a->inside_cap, (uint64_t)a->inside_count + FLOOD_LANES,
                              sizeof *a->inside, 64) ||
            !mc_array_reserve((void**)&a->stack, &a->stack_cap, (uint64_t)a->stack_count + FLOOD_LANES,
                              sizeof *a->stack, 64) ||
            (tri_block != NULL && (!mc_array_reserve((void**)&a->blist, &a->blist_cap,
                                                     (uint64_t)a->blist_count + FLOOD_LANES, sizeof *a->blist, 64) ||
                                   !mc_array_reserve((void**)&a->bstack, &a->bstack_cap,
                                                     (uint64_t)a->bstack_count + FLOOD_LANES, sizeof *a->bstack, 64))))
        {
            c->oom = true;
            return;
        }
        face_entry* whole = a->whole;
        face_entry* corner = a->corner;
        for (int l = 0; l < active;)
        {
            ring_cursor* cu = &lane[l];
            uint32_t h = cu->h;
            uint32_t node = cu->node;
            uint32_t f = h / 3u;
            uint32_t k = h - 3u * f;
            uint32_t hn = k == 2u ? h - 2u : h + 1u;
            uint32_t hp = k == 0u ? h + 2u : h - 1u;
            uint32_t next = twin[hp];
            uint32_t w = idx[hn];
            bool touched = (fbits[f >> 6] >> (f & 63u)) & 1u;
            if (!touched && tri_block != NULL)
            {
                uint32_t bk = tri_block[f];
                if (!((btouch[bk >> 6] >> (bk & 63u)) & 1u))
                {
                    // A face of a block in no pair: the whole block is inside, in this vertex's region. Its faces and
                    // vertices are taken as a block (no face record, no vertex push).
                    if (a->bstate[bk] == 0u)
                    {
                        push_block(a, bk, node);
                    }
                    else if (a->bnode[bk] != node)
                    {
                        mc_uf_union(c->s->parent, node, a->bnode[bk]);
                    }
                    if (next == MC_NONE || next == cu->h0 || ++cu->guard >= RING_LIMIT)
                    {
                        lane[l] = lane[--active];
                        continue;
                    }
                    cu->h = next;
                    ++l;
                    continue;
                }
            }
            int crossed = 0; // 0 none, 1 odd, 2 even
            if (touched)
            {
                uint32_t tw = twin[h];
                uint32_t e = edge_lookup(c->s, b, tw < h ? tw : h);
                if (e != MC_NONE)
                {
                    crossed = (c->s->edges[e].count & 1u) ? 1 : 2;
                }
            }
            if (crossed != 1)
            {
                uint8_t wst = vstate[w];
                if (wst == 0u)
                {
                    uint32_t wn = crossed == 0 ? node : uf_new(c);
                    if (c->oom)
                    {
                        return;
                    }
                    vstate[w] = 2; // mark_inside without its checks (reserved above)
                    a->vnode[w] = wn;
                    a->inside[a->inside_count++] = w;
                    a->stack[a->stack_count++] = w;
                }
                else if (crossed == 0 && wst == 2u && a->vnode[w] != node)
                {
                    mc_uf_union(c->s->parent, node, a->vnode[w]);
                }
            }
            // A face in no pair is entirely inside: recorded once, from its local vertex 0. A face in some pair:
            // this corner. Both slots are written, the counts advance only when taken.
            whole[a->whole_count].id = f;
            whole[a->whole_count].node = node;
            a->whole_count += (uint32_t)(!touched & (k == 0u));
            corner[a->corner_count].id = h;
            corner[a->corner_count].node = node;
            a->corner_count += (uint32_t)touched;
            if (next == MC_NONE || next == cu->h0 || ++cu->guard >= RING_LIMIT)
            {
                lane[l] = lane[--active]; // ring done: the last lane takes this slot
                continue;
            }
            cu->h = next;
            ++l;
        }
    }
}

/// Mark block k of body b inside with union-find node `node` and queue it (checked pushes).
static void mark_block(region_query* c, int b, uint32_t k, uint32_t node)
{
    body_arrays* a = &c->s->body[b];
    if (!mc_array_reserve((void**)&a->blist, &a->blist_cap, (uint64_t)a->blist_count + 1, sizeof *a->blist, 64) ||
        !mc_array_reserve((void**)&a->bstack, &a->bstack_cap, (uint64_t)a->bstack_count + 1, sizeof *a->bstack, 64))
    {
        c->oom = true;
        return;
    }
    push_block(a, k, node);
}

/// Flood the queued inside blocks of body b: a neighbour block in no pair is inside too (same region); the vertices
/// shared with a neighbour that has a face in some pair are marked inside and queued for the vertex flood, which
/// walks into that neighbour's faces.
static void flood_blocks(region_query* c, int b)
{
    const mc_region_blocks* blk = c->blk[b];
    body_arrays* a = &c->s->body[b];
    while (a->bstack_count > 0 && !c->oom)
    {
        uint32_t k = a->bstack[--a->bstack_count];
        uint32_t node = a->bnode[k];
        const mc_block_topo* tp = &blk->topo[k];
        for (uint32_t e = tp->nbr_first; e < tp->nbr_first + tp->nbr_count && !c->oom; ++e)
        {
            uint32_t nk = blk->nbr_block[e];
            if ((a->btouch[nk >> 6] >> (nk & 63u)) & 1u)
            {
                for (uint32_t i = blk->nbr_vfirst[e]; i < blk->nbr_vfirst[e + 1u] && !c->oom; ++i)
                {
                    uint32_t u = blk->shared_v[i];
                    if (a->vstate[u] == 0u)
                    {
                        mark_inside(c, b, u, node);
                    }
                    else if (a->vstate[u] == 2u && a->vnode[u] != node)
                    {
                        mc_uf_union(c->s->parent, node, a->vnode[u]);
                    }
                }
            }
            else if (a->bstate[nk] == 0u)
            {
                mark_block(c, b, nk, node);
            }
            else if (a->bnode[nk] != node)
            {
                mc_uf_union(c->s->parent, node, a->bnode[nk]);
            }
        }
    }
}

/// Flood the inside state of body b from its vertex and block stacks until both are empty.
static void flood(region_query* c, int b)
{
    do
    {
        if (c->blk[b] != NULL)
        {
            flood_blocks(c, b);
        }
        flood_vertices(c, b);
    } while (c->s->body[b].bstack_count > 0 && !c->oom);
}

// ---------------------------------------------------------------------------------------------------------------
// Sums

/// Up to six flags at one point, in lanes (structure of arrays): the per-flag products are computed lane by lane (the
/// compiler vectorises the loops), then accumulated in flag order, so every sum is the sequence of additions one flag
/// at a time would make. Lanes past `count` are zero.
typedef struct flag_lanes
{
    double tx[6], ty[6], tz[6]; // T: unit edge tangent away from the vertex
    double nx[6], ny[6], nz[6]; // N: unit in-face normal of the edge, into the face
    double bx[6], by[6], bz[6]; // B: unit face normal into the solid
    int body[6];                // body of the face
    int count;                  // flags set
} flag_lanes;

static inline void put_flag(flag_lanes* f, mc_vec3 t, mc_vec3 n, mc_vec3 bvec, int body)
{
    int i = f->count++;
    f->tx[i] = t.x;
    f->ty[i] = t.y;
    f->tz[i] = t.z;
    f->nx[i] = n.x;
    f->ny[i] = n.y;
    f->nz[i] = n.z;
    f->bx[i] = bvec.x;
    f->by[i] = bvec.y;
    f->bz[i] = bvec.z;
    f->body[i] = body;
}

/// Per-flag products of flag_lanes at one point: a = V.T, b = V.N, c = V.B, ab, abc, the moment term
/// -abc (a T + 2b N + 3c B) and the vector-area term -ab B, lane by lane.
typedef struct flag_terms
{
    double a[6], b[6], cc[6], ab[6], abc[6], mx[6], my[6], mz[6], sx[6], sy[6], sz[6];
} flag_terms;

static inline void flag_products(flag_terms* p, mc_vec3 v, const flag_lanes* f, int lanes)
{
    for (int i = 0; i < lanes; ++i)
    {
        p->a[i] = v.x * f->tx[i] + v.y * f->ty[i] + v.z * f->tz[i];
        p->b[i] = v.x * f->nx[i] + v.y * f->ny[i] + v.z * f->nz[i];
        p->cc[i] = v.x * f->bx[i] + v.y * f->by[i] + v.z * f->bz[i];
        p->ab[i] = p->a[i] * p->b[i];
        p->abc[i] = p->ab[i] * p->cc[i];
        double b2 = 2.0 * p->b[i], c3 = 3.0 * p->cc[i];
        p->mx[i] = -p->abc[i] * (f->tx[i] * p->a[i] + f->nx[i] * b2 + f->bx[i] * c3);
        p->my[i] = -p->abc[i] * (f->ty[i] * p->a[i] + f->ny[i] * b2 + f->by[i] * c3);
        p->mz[i] = -p->abc[i] * (f->tz[i] * p->a[i] + f->nz[i] * b2 + f->bz[i] * c3);
        p->sx[i] = -p->ab[i] * f->bx[i];
        p->sy[i] = -p->ab[i] * f->by[i];
        p->sz[i] = -p->ab[i] * f->bz[i];
    }
}

/// Add the flags of `f` at point v (relative to the origin) to region r: with a = V.T, b = V.N, c = V.B per flag,
/// 6 V -= abc, 24 M += -abc (a T + 2b N + 3c B), 2 S_body += -ab B, in flag order. `lanes` (a constant at each call,
/// 2 or 6) is the number of lanes computed, at least f->count. Any order of bodies (f->body; 2: no area term).
static inline void add_flags(region_accumulator* r, mc_vec3 v, double vlen, double olen, const flag_lanes* f, int lanes)
{
    flag_terms p;
    flag_products(&p, v, f, lanes);
    for (int i = 0; i < f->count; ++i)
    {
        r->volume_x6 -= p.abc[i];
        r->moment_x24 = mc_v3(r->moment_x24.x + p.mx[i], r->moment_x24.y + p.my[i], r->moment_x24.z + p.mz[i]);
        if (f->body[i] < 2) // 2: a flag of a pure flush face (no area)
        {
            mc_vec3* s = &r->area_x2[f->body[i]];
            *s = mc_v3(s->x + p.sx[i], s->y + p.sy[i], s->z + p.sz[i]);
        }
        if (r->need_sensitivity)
        {
            r->sensitivity_x6 += (fabs(p.b[i] * p.cc[i]) + fabs(p.a[i] * p.cc[i]) + fabs(p.ab[i])) * (vlen + olen);
        }
    }
    r->term_count += (uint32_t)f->count;
}

/// add_flags for exactly `lanes` flags (f->count == lanes) whose bodies follow a pattern fixed at the call: flag i is
/// on body `body`, or on 1 - body when bit i of `other` is set. The sums run in locals and are stored once: each
/// accumulator receives the same additions in the same order as add_flags makes (the two area sums are separate
/// accumulators, so splitting the flags between them keeps each one's sequence), hence bitwise the same sums.
static inline void add_flags_fixed(region_accumulator* r, mc_vec3 v, double vlen, double olen, const flag_lanes* f,
                                   int lanes, int body, unsigned other)
{
    flag_terms p;
    flag_products(&p, v, f, lanes);
    double vol = r->volume_x6, sens = r->sensitivity_x6;
    mc_vec3 mom = r->moment_x24, own = r->area_x2[body], oth = r->area_x2[1 - body];
    bool need = r->need_sensitivity;
    for (int i = 0; i < lanes; ++i)
    {
        vol -= p.abc[i];
        mom = mc_v3(mom.x + p.mx[i], mom.y + p.my[i], mom.z + p.mz[i]);
        if ((other >> i) & 1u)
        {
            oth = mc_v3(oth.x + p.sx[i], oth.y + p.sy[i], oth.z + p.sz[i]);
        }
        else
        {
            own = mc_v3(own.x + p.sx[i], own.y + p.sy[i], own.z + p.sz[i]);
        }
        if (need)
        {
            sens += (fabs(p.b[i] * p.cc[i]) + fabs(p.a[i] * p.cc[i]) + fabs(p.ab[i])) * (vlen + olen);
        }
    }
    r->volume_x6 = vol;
    r->sensitivity_x6 = sens;
    r->moment_x24 = mom;
    r->area_x2[body] = own;
    r->area_x2[1 - body] = oth;
    r->term_count += (uint32_t)lanes;
}

/// The two flags of vertex v (half-edge h leaving it) in its face.
MC_FLAG_CLONES static void add_corner_flags(const region_query* c, region_accumulator* r, int b, uint32_t h)
{
    const struct mc_mesh* m = c->mesh[b];
    uint32_t f = h / 3u;
    mc_vec3 pv = vpos(c, b, m->indices[h]);
    mc_vec3 pw = vpos(c, b, m->indices[he_next(h)]);
    mc_vec3 pu = vpos(c, b, m->indices[he_prev(h)]);
    mc_vec3 n = fnormal(c, b, f);
    mc_vec3 bvec = mc_neg(n);
    mc_vec3 v = mc_sub(pv, r->origin);
    double vlen = r->need_sensitivity ? mc_length(v) : 0.0, olen = r->need_sensitivity ? mc_length(r->origin) : 0.0;
    int fb = flush_pure(c, b, f) ? 2 : b;
    flag_lanes fl;
    fl.count = 0;
    mc_vec3 t1 = mc_normalize(mc_sub(pw, pv));
    put_flag(&fl, t1, mc_cross(n, t1), bvec, fb);
    mc_vec3 t2 = mc_normalize(mc_sub(pu, pv));
    put_flag(&fl, t2, mc_cross(t2, n), bvec, fb);
    add_flags(r, v, vlen, olen, &fl, 2);
}

/// The six flags of a crossing (FORMULAS.md, with every sign taken from the exact crossing direction).
MC_FLAG_CLONES static void add_crossing_flags(const region_query* c, region_accumulator* r, const crossing_record* x)
{
    int b = x->body;
    const struct mc_mesh* m = c->mesh[b];
    mc_vec3 p0 = vpos(c, b, m->indices[x->halfedge]);
    mc_vec3 p1 = vpos(c, b, m->indices[he_next(x->halfedge)]);
    mc_vec3 d = mc_normalize(mc_sub(p1, p0));
    uint32_t fk[2] = {x->halfedge / 3u, m->twin[x->halfedge] / 3u};
    mc_vec3 nk[2] = {fnormal(c, b, fk[0]), fnormal(c, b, fk[1])};
    mc_vec3 nt = fnormal(c, 1 - b, x->face);
    // Bodies of the flags' faces; 2 for a pure flush face (no area term).
    int bk[2] = {flush_pure(c, b, fk[0]) ? 2 : b, flush_pure(c, b, fk[1]) ? 2 : b};
    int bt = flush_pure(c, 1 - b, x->face) ? 2 : 1 - b;
    mc_vec3 v = mc_sub(x->point, r->origin);
    double vlen = r->need_sensitivity ? mc_length(v) : 0.0, olen = r->need_sensitivity ? mc_length(r->origin) : 0.0;
    double ent = (double)x->entering;
    mc_vec3 te = mc_scale(d, ent);
    flag_lanes fl;
    fl.count = 0;
    // Edge flags: N_e1 = n1 x d inside face 1 (where the half-edge runs along d), N_e2 = d x n2 in face 2.
    put_flag(&fl, te, mc_cross(nk[0], d), mc_neg(nk[0]), bk[0]);
    put_flag(&fl, te, mc_cross(d, nk[1]), mc_neg(nk[1]), bk[1]);
    // Lines where face k cuts the plane of t: s_k = sigma_k u_k with u_k = unit(n_k x n_t); s_k . N_ek has the sign
    // of n_t . d_k, so sigma_1 = -ent and sigma_2 = +ent. M_k = n_k x u_k, L_k = u_k x n_t need no sign choice.
    for (int k = 0; k < 2; ++k)
    {
        mc_vec3 w = mc_cross(nk[k], nt);
        double len = mc_length(w);
        if (!(len > 0.0))
        {
            continue; // parallel planes: the two flags cancel in the limit
        }
        mc_vec3 u = mc_scale(w, 1.0 / len);
        mc_vec3 sk = mc_scale(u, k == 0 ? -ent : ent);
        put_flag(&fl, sk, mc_cross(nk[k], u), mc_neg(nk[k]), bk[k]);
        put_flag(&fl, sk, mc_cross(u, nt), mc_neg(nt), bt);
    }
    if (fl.count == 6 && bk[0] == b && bk[1] == b && bt == 1 - b)
    {
        add_flags_fixed(r, v, vlen, olen, &fl, 6, b, 1u << 3 | 1u << 5); // flags 3 and 5 are on t's body
        return;
    }
    for (int i = fl.count; i < 6; ++i)
    {
        // Parallel planes (rare): the unused lanes are computed but not summed; zero them so they are defined. (Also
        // reached by the flags of a pure flush face: six lanes, none unused.)
        fl.tx[i] = fl.ty[i] = fl.tz[i] = fl.nx[i] = fl.ny[i] = fl.nz[i] = fl.bx[i] = fl.by[i] = fl.bz[i] = 0.0;
    }
    add_flags(r, v, vlen, olen, &fl, 6);
}

/// Divergence-theorem terms of whole face f from raw arrays around origin o (any frame; the vector area only when
/// `area`); writes the face's plane record (unnormalised normal 2A n and its dot with the first vertex, both relative
/// to o) for the depth pass. The rounding sensitivity uses 1-norms (upper bounds of the 2-norms, no square roots).
static inline void add_triangle_raw(const mc_vec3* pos, const uint32_t* idx, uint32_t f, mc_vec3 o, double olen,
                                    double* volume_x6, mc_vec3* moment_x24, mc_vec3* area_x2, double* sensitivity_x6,
                                    bool need_sensitivity, double* plane, bool area)
{
    mc_vec3 pa = mc_sub(pos[idx[3u * f]], o);
    mc_vec3 pb = mc_sub(pos[idx[3u * f + 1u]], o);
    mc_vec3 pc = mc_sub(pos[idx[3u * f + 2u]], o);
    double v6 = mc_dot(pa, mc_cross(pb, pc));
    *volume_x6 += v6;
    *moment_x24 = mc_mul_add(*moment_x24, v6, mc_add(mc_add(pa, pb), pc));
    mc_vec3 sv = mc_cross(mc_sub(pb, pa), mc_sub(pc, pa));
    if (area) // false for a pure flush face
    {
        *area_x2 = mc_add(*area_x2, sv);
    }
    if (need_sensitivity)
    {
        *sensitivity_x6 += norm1(sv) * (norm1(pa) + norm1(pb) + norm1(pc) + 3.0 * olen);
    }
    plane[0] = sv.x;
    plane[1] = sv.y;
    plane[2] = sv.z;
    plane[3] = mc_dot(sv, pa);
}

// ---------------------------------------------------------------------------------------------------------------
// Segment sums of cut faces (options.triangle_terms; the formulation is at the top of this file, "Cut faces")
//
// The terms are computed on four-double vectors (GNU C vector extensions): a point or vector in lanes 0-2 (x, y, z).
// Every lane operation is the IEEE operation that the mc_vec3 formula makes on that coordinate, with the same operands
// in the same order (-ffp-contract=off: nothing is fused), and each accumulator receives the same additions in the
// same order, so the sums are bitwise those of the scalar formulas. The x86-64-v3 clone computes the three coordinates
// of a term in one AVX instruction where scalar code takes three, the default clone in SSE2 pairs (216 spheres,
// coherent step: the three loops 11.1 M -> 7.3 M instructions, with the direct reads of J's vertices, jpos).

typedef double seg_v4 __attribute__((vector_size(32)));

// The helpers below are always inlined into the loops that use them (no call remains). They take seg_v4 arguments by
// pointer: passed by value, a 32-byte vector goes in an ABI that differs with and without AVX, and GCC says so with a
// note ("the ABI for passing parameters with 32-byte alignment has changed in GCC 4.6") that no pragma silences, on
// every build. They still return seg_v4 by value, which GCC and clang warn about (-Wpsabi: AVX vector return without
// AVX), silenced from here to the end of the file, since GCC reports the default clones' uses at the end of the file.
#define SEG_INLINE static inline __attribute__((always_inline))
#if defined(__clang__)
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define SEG_SHUFFLE(a, i, j, k, l) __builtin_shufflevector((a), (a), i, j, k, l)
#else
typedef long long seg_v4i __attribute__((vector_size(32)));
#define SEG_SHUFFLE(a, i, j, k, l) __builtin_shuffle((a), (seg_v4i){i, j, k, l})
#endif

SEG_INLINE seg_v4 v4_of(mc_vec3 p)
{
    return (seg_v4){p.x, p.y, p.z, 0.0};
}

SEG_INLINE seg_v4 v4_splat(double s)
{
    seg_v4 v = {s, 0.0, 0.0, 0.0};
    return SEG_SHUFFLE(v, 0, 0, 0, 0);
}

SEG_INLINE mc_vec3 v4_vec3(const seg_v4* v)
{
    return mc_v3((*v)[0], (*v)[1], (*v)[2]);
}

/// mc_dot over lanes 0-2: (a.x b.x + a.y b.y) + a.z b.z.
SEG_INLINE double v4_dot(const seg_v4* a, const seg_v4* b)
{
    seg_v4 t = *a * *b;
    return t[0] + t[1] + t[2];
}

/// mc_cross in lanes 0-2: (a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x).
SEG_INLINE seg_v4 v4_cross(const seg_v4* a, const seg_v4* b)
{
    return SEG_SHUFFLE(*a, 1, 2, 0, 3) * SEG_SHUFFLE(*b, 2, 0, 1, 3) -
           SEG_SHUFFLE(*a, 2, 0, 1, 3) * SEG_SHUFFLE(*b, 1, 2, 0, 3);
}

SEG_INLINE double v4_norm1(const seg_v4* v)
{
    return fabs((*v)[0]) + fabs((*v)[1]) + fabs((*v)[2]);
}

/// J's rotation by columns: col[0] v.x + col[1] v.y + col[2] v.z is, in lane r, mc_mat33_mul_vec's row r,
/// (m[r][0] v.x + m[r][1] v.y) + m[r][2] v.z.
typedef struct seg_rot
{
    seg_v4 col[3];
} seg_rot;

SEG_INLINE seg_rot seg_rot_of(const mc_mat33* m)
{
    seg_rot r;
    for (int k = 0; k < 3; ++k)
    {
        r.col[k] = (seg_v4){m->m[0][k], m->m[1][k], m->m[2][k], 0.0};
    }
    return r;
}

/// The outward unit normal of face f of body b (J's rotated into I's frame).
SEG_INLINE seg_v4 seg_normal(const region_query* c, const seg_rot* rot, int b, uint32_t f)
{
    if (b == 0)
    {
        return v4_of(c->mesh[0]->face_normals[f]);
    }
    mc_vec3 v = c->mesh[1]->face_normals[f];
    return rot->col[0] * v4_splat(v.x) + rot->col[1] * v4_splat(v.y) + rot->col[2] * v4_splat(v.z);
}

/// Vertex v of a cut face of body b relative to the origin o.
SEG_INLINE seg_v4 seg_point(const region_query* c, int b, uint32_t v, const seg_v4* o)
{
    return v4_of(vpos_cut(c, b, v)) - *o;
}

/// Height of face f of body b above the region's origin o: n . (its first vertex - o), one value per face and region
/// (the same operations wherever the face's terms are summed). *p receives that vertex relative to o.
SEG_INLINE double face_height(const region_query* c, int b, uint32_t f, const seg_v4* n, const seg_v4* o, seg_v4* p)
{
    *p = seg_point(c, b, c->mesh[b]->indices[3u * f], o);
    return v4_dot(n, p);
}

/// Segment terms of consecutive items (records, pairs, corners) of one region, summed in locals and added to the
/// region when the region changes (seg_run_at) and at the end (seg_run_flush). The items of a query mostly come in
/// runs of one region; every region receives its runs in item order, so the sums are deterministic.
typedef struct seg_run
{
    seg_v4 mv;       // 24 M in lanes 0-2, 6 V in lane 3
    seg_v4 s2[2];    // 2 S_I, 2 S_J in lanes 0-2
    seg_v4 o;        // the region's origin
    uint32_t region; // region of the run, MC_NONE before the first item
    uint32_t terms;
    bool need_sensitivity; // the region's
} seg_run;

SEG_INLINE void seg_run_start(seg_run* run)
{
    run->mv = run->s2[0] = run->s2[1] = run->o = v4_splat(0.0);
    run->region = MC_NONE;
    run->terms = 0;
    run->need_sensitivity = false;
}

SEG_INLINE void seg_run_flush(struct mc_region_scratch* s, seg_run* run)
{
    if (run->region != MC_NONE)
    {
        region_accumulator* r = &s->regions[run->region];
        r->volume_x6 += run->mv[3];
        r->moment_x24 = mc_add(r->moment_x24, v4_vec3(&run->mv));
        r->area_x2[0] = mc_add(r->area_x2[0], v4_vec3(&run->s2[0]));
        r->area_x2[1] = mc_add(r->area_x2[1], v4_vec3(&run->s2[1]));
        r->term_count += run->terms;
    }
    run->terms = 0;
    run->mv = run->s2[0] = run->s2[1] = v4_splat(0.0);
}

/// The region of the next item (index ri), flushing the run when it changes.
SEG_INLINE region_accumulator* seg_run_at(struct mc_region_scratch* s, seg_run* run, uint32_t ri)
{
    region_accumulator* r = &s->regions[ri];
    if (ri != run->region)
    {
        seg_run_flush(s, run);
        run->region = ri;
        run->o = v4_of(r->origin);
        run->need_sensitivity = r->need_sensitivity;
    }
    return r;
}

/// One boundary segment a -> b of a cut face's piece (a, b relative to the region's origin, cr = a x b, n the face's
/// unit outward normal, h its height above the origin, `sign` +1 or -1: the segment b -> a) added to the run's sums of
/// body `body`: with s = sign n . cr and w = h s, 6 V += w, 24 M += w (h n + (a + b)), 2 S += s n (only when `area`:
/// not for a pure flush face, area_of). Returns s. (a + b is commutative, so (a, b, -1) and (b, a, +1) are bitwise the
/// same term.)
SEG_INLINE double seg_term(seg_run* run, int body, const seg_v4* n, double h, const seg_v4* a, const seg_v4* b,
                           const seg_v4* cr, double sign, bool area)
{
    double s = sign * v4_dot(n, cr);
    double w = h * s;
    seg_v4 m = (*n * v4_splat(h) + (*a + *b)) * v4_splat(w);
    m[3] = w;
    run->mv += m;
    if (area) // false for a pure flush face
    {
        run->s2[body] += v4_splat(s) * *n;
    }
    return s;
}

/// Rounding sensitivity of a segment term (top of this file): |s| (|p| + 2|o|) + 3 |h| (|a| + |o|) (|b| + |o|), p the
/// point h was taken from, all relative to the origin o (olen = |o|, 1-norms).
SEG_INLINE double seg_sensitivity(double s, double h, const seg_v4* p, const seg_v4* a, const seg_v4* b, double olen)
{
    return fabs(s) * (v4_norm1(p) + 2.0 * olen) + 3.0 * fabs(h) * (v4_norm1(a) + olen) * (v4_norm1(b) + olen);
}

// ---------------------------------------------------------------------------------------------------------------
// Depth

/// Closest point of triangle (a, b, c) to p (Voronoi regions of the vertices, edges and face); *code receives the
/// feature: 0, 1, 2 the vertex a, b, c, 3 the edge ab, 4 the edge ac, 5 the edge bc, 6 the face.
__attribute__((always_inline)) static inline mc_vec3 closest_on_triangle_code(mc_vec3 p, mc_vec3 a, mc_vec3 b,
                                                                              mc_vec3 c, int* code)
{
    mc_vec3 ab = mc_sub(b, a), ac = mc_sub(c, a), ap = mc_sub(p, a);
    double d1 = mc_dot(ab, ap), d2 = mc_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
    {
        *code = 0;
        return a;
    }
    mc_vec3 bp = mc_sub(p, b);
    double d3 = mc_dot(ab, bp), d4 = mc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
    {
        *code = 1;
        return b;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
    {
        *code = 3;
        return mc_mul_add(a, d1 / (d1 - d3), ab);
    }
    mc_vec3 cp = mc_sub(p, c);
    double d5 = mc_dot(ab, cp), d6 = mc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
    {
        *code = 2;
        return c;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
    {
        *code = 4;
        return mc_mul_add(a, d2 / (d2 - d6), ac);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
    {
        *code = 5;
        return mc_mul_add(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), mc_sub(c, b));
    }
    *code = 6;
    double den = 1.0 / (va + vb + vc);
    return mc_add(a, mc_add(mc_scale(ab, vb * den), mc_scale(ac, vc * den)));
}

/// closest_on_triangle_code without the feature, inlined into the depth passes (a call passes its four points
/// through memory; the unused code is dropped by the compiler). Forced: GCC's inliner stopped inlining the code into
/// depth_candidate's clone once this file grew (+0.77 M instructions in the 216-sphere coherent step).
__attribute__((always_inline)) static inline mc_vec3 closest_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    int code = 0;
    return closest_on_triangle_code(p, a, b, c, &code);
}

mc_vec3 mc_closest_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    return closest_on_triangle(p, a, b, c);
}

mc_closest_feature mc_closest_feature_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_closest_feature f;
    int code = 0;
    f.point = closest_on_triangle_code(p, a, b, c, &code);
    f.kind = code < 3 ? 0 : (code < 6 ? 1 : 2);
    f.axis = mc_v3(0.0, 0.0, 0.0);
    if (code == 3 || code == 4 || code == 5)
    {
        f.axis = mc_normalize(code == 3 ? mc_sub(b, a) : (code == 4 ? mc_sub(c, a) : mc_sub(c, b)));
    }
    else if (code == 6)
    {
        f.axis = mc_normalize(mc_cross(mc_sub(b, a), mc_sub(c, a)));
    }
    return f;
}

/// Offer face f of body b (a face in some triangle pair) as a candidate for the closest point of surface b to the
/// region's centroid. Inlined into depth_adams's clones with the loops that offer (depth_crossing_faces,
/// depth_body_faces): a call per offer through the clone dispatch cost more than the offer once the depth hints made
/// most offers stop at the plane test (perf, 1000 drifting spheres: the region stage from 31 % to 28.6 % of the run).
__attribute__((always_inline)) static inline void depth_candidate(const region_query* c, region_accumulator* r, int b,
                                                                  uint32_t f)
{
    const struct mc_mesh* m = c->mesh[b];
    mc_vec3 p = r->out.centroid;
    mc_vec3 pa = vpos_cut(c, b, m->indices[3u * f]);
    double plane = mc_dot(fnormal(c, b, f), mc_sub(p, pa));
    // Any point of the region's part of the surface bounds the final minimum from above: the best point so far (in
    // either frame for J) and the blocks' bound.
    double thr = min2(r->best[b], b == 0 ? r->block_bound[0] : min2(r->block_bound[1], r->j_best));
    if (plane * plane >= thr * (1.0 + 1e-12))
    {
        return; // the plane's distance is a lower bound of the face's distance
    }
    mc_vec3 q =
        closest_on_triangle(p, pa, vpos_cut(c, b, m->indices[3u * f + 1u]), vpos_cut(c, b, m->indices[3u * f + 2u]));
    mc_vec3 dq = mc_sub(q, p);
    double d2 = mc_dot(dq, dq);
    if (d2 < r->best[b])
    {
        r->best[b] = d2;
        r->closest[b] = q;
        r->closest_face[b] = f;
    }
}

/// Depth candidate from raw arrays (any frame): face f against point p, with the plane record of add_triangle_raw
/// (p_rel = p - the origin of that record) as a lower bound: the distance to the plane never exceeds the distance to
/// the face. `thr`: an upper bound of the final minimum known from elsewhere (INFINITY if none).
static inline void depth_candidate_raw(const mc_vec3* pos, const uint32_t* idx, const double* plane, uint32_t f,
                                       mc_vec3 p, mc_vec3 p_rel, double thr, double* best, mc_vec3* closest,
                                       uint32_t* face)
{
    double t = plane[0] * p_rel.x + plane[1] * p_rel.y + plane[2] * p_rel.z - plane[3];
    double nn = plane[0] * plane[0] + plane[1] * plane[1] + plane[2] * plane[2];
    if (t * t >= min2(*best, thr) * nn * (1.0 + 1e-12))
    {
        return;
    }
    mc_vec3 pa = pos[idx[3u * f]];
    mc_vec3 q = closest_on_triangle(p, pa, pos[idx[3u * f + 1u]], pos[idx[3u * f + 2u]]);
    mc_vec3 dq = mc_sub(q, p);
    double d2 = mc_dot(dq, dq);
    if (d2 < *best)
    {
        *best = d2;
        *closest = q;
        *face = f;
    }
}

static inline void extent_point(region_accumulator* r, mc_vec3 x)
{
    double t = mc_dot(r->out.normal, x);
    r->ext_min = t < r->ext_min ? t : r->ext_min;
    r->ext_max = t > r->ext_max ? t : r->ext_max;
}

// ---------------------------------------------------------------------------------------------------------------
// Pair lookup

/// Index of pair (i, j) in the pair array, or MC_NONE (hash built by build_pair_hash for this query).
static uint32_t find_pair(const region_query* c, uint32_t i, uint32_t j)
{
    const struct mc_region_scratch* s = c->s;
    return table_find(s->pair_keys, s->pair_vals, s->pair_slots, ((uint64_t)i << 32) | j);
}

/// Hash (i, j) -> pair index for this query (O(1) lookups of the twin occurrence of a crossing).
static bool build_pair_hash(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    if (!table_prepare(&s->pair_keys, &s->pair_vals, &s->pair_alloc, &s->pair_slots, c->pair_count))
    {
        return false;
    }
    uint32_t mask = s->pair_slots - 1u;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        uint64_t key = ((uint64_t)c->pairs[p].i << 32) | c->pairs[p].j;
        uint32_t k = hash_slot(key, mask);
        while (s->pair_keys[k] != UINT64_MAX && s->pair_keys[k] != key)
        {
            k = (k + 1u) & mask;
        }
        s->pair_keys[k] = key;
        s->pair_vals[k] = p;
    }
    return true;
}

/// Occurrence of the crossing (body, half-edge h, face t) in the pair array, or MC_NONE.
static inline uint32_t find_occurrence(const region_query* c, int body, uint32_t h, uint32_t t)
{
    uint32_t p = body == 0 ? find_pair(c, h / 3u, t) : find_pair(c, t, h / 3u);
    if (p == MC_NONE)
    {
        return MC_NONE;
    }
    for (uint32_t s = 0; s < 2; ++s)
    {
        const mc_crossing* x = &c->pairs[p].crossing[s];
        if (x->body == body && x->edge == h % 3u)
        {
            return 2u * p + s;
        }
    }
    return MC_NONE;
}

// ---------------------------------------------------------------------------------------------------------------
// Main stage

static int compare_regions(const void* pa, const void* pb, void* vr)
{
    const region_accumulator* r = vr;
    const region_accumulator* a = &r[*(const uint32_t*)pa];
    const region_accumulator* b = &r[*(const uint32_t*)pb];
    if (a->out.volume != b->out.volume)
    {
        return a->out.volume > b->out.volume ? -1 : 1;
    }
    return a->creation_order < b->creation_order ? -1 : (a->creation_order > b->creation_order ? 1 : 0);
}

/// Insertion sort of region indices (region counts are small; no global state, thread-safe).
static void sort_regions(uint32_t* idx, uint32_t n, const region_accumulator* r)
{
    for (uint32_t i = 1; i < n; ++i)
    {
        uint32_t x = idx[i];
        uint32_t j = i;
        while (j > 0 && compare_regions(&x, &idx[j - 1], (void*)r) < 0)
        {
            idx[j] = idx[j - 1];
            --j;
        }
        idx[j] = x;
    }
}

static mc_status prepare(region_query* c, const struct mc_mesh* mi, const struct mc_mesh* mj, struct mc_workspace* ws)
{
    if (ws->regions == NULL)
    {
        ws->regions = mc_calloc(1, sizeof *ws->regions);
        if (ws->regions == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    struct mc_region_scratch* s = ws->regions;
    c->s = s;
    if (++s->epoch == 0u)
    {
        // Wrapped: clear every stamp once, then restart at 1.
        for (int b = 0; b < 2; ++b)
        {
            if (s->body[b].cstamp != NULL)
            {
                memset(s->body[b].cstamp, 0, (size_t)s->body[b].ccap * sizeof(uint32_t));
                memset(s->body[b].xstamp, 0, (size_t)s->body[b].ccap * sizeof(uint32_t));
            }
        }
        s->epoch = 1u;
    }
    c->epoch = s->epoch;
    const struct mc_mesh* ms[2] = {mi, mj};
    for (int b = 0; b < 2; ++b)
    {
        body_arrays* a = &s->body[b];
        if (!reserve_marks(a, ms[b], c->blk[b]))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        a->inside_count = a->whole_count = a->corner_count = a->stack_count = a->outside_count = 0;
        a->blist_count = a->bstack_count = 0;
    }
    s->node_count = 0;
    s->record_count = 0;
    s->edge_count = 0;
    s->region_count = 0;
    s->inside_total = 0;
    s->box_check_count = 0;
    s->gap_check_count = 0;
    s->fsub_count = 0;
    s->near_ready = false;
    return MC_OK;
}

/// Step 1, setup: one union-find node per occurrence (2 * pair + slot), no occurrence owning a crossing record yet,
/// and the pair hash for the twin lookups.
static bool start_occurrences(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    uint32_t occ_count = 2u * c->pair_count;
    if (!mc_array_reserve((void**)&s->parent, &s->parent_cap, occ_count, sizeof *s->parent, 64) ||
        !mc_array_reserve((void**)&s->occurrence_record, &s->occurrence_cap, occ_count, sizeof *s->occurrence_record,
                          64) ||
        !mc_array_reserve((void**)&s->records, &s->record_cap, occ_count, sizeof *s->records, 64))
    {
        return false;
    }
    for (uint32_t k = 0; k < occ_count; ++k)
    {
        s->parent[k] = k;
        s->occurrence_record[k] = MC_NONE;
    }
    s->node_count = occ_count;
    return build_pair_hash(c);
}

/// Nonzero when some corner of pair pr's face t is not published in the pair stage's cache. The pair stage mapped
/// them to test the pair, so they are (its parallel region is over: relaxed loads see its stores), unless the pairs
/// came from elsewhere.
static inline uint32_t pair_corners_unpublished(const region_query* c, const mc_triangle_pair* pr)
{
    const uint32_t* tv = &c->mesh[1]->indices[3u * pr->j];
    const atomic_uint* st = c->jv.stamp;
    return (atomic_load_explicit(&st[tv[0]], memory_order_relaxed) ^ c->jv.ready) |
           (atomic_load_explicit(&st[tv[1]], memory_order_relaxed) ^ c->jv.ready) |
           (atomic_load_explicit(&st[tv[2]], memory_order_relaxed) ^ c->jv.ready);
}

/// Step 1, marks of one pair: both faces are in some pair (face bits, and block bits when blocks are used), and so
/// are their connected components (epoch stamps). @return pair_corners_unpublished (for publish_pair_corners).
static inline uint32_t mark_pair_faces(region_query* c, const mc_triangle_pair* pr)
{
    struct mc_region_scratch* s = c->s;
    const struct mc_mesh* mi = c->mesh[0];
    const struct mc_mesh* mj = c->mesh[1];
    s->body[0].fbits[pr->i >> 6] |= 1ull << (pr->i & 63u);
    s->body[1].fbits[pr->j >> 6] |= 1ull << (pr->j & 63u);
    if (c->blk[0] != NULL)
    {
        uint32_t k = c->blk[0]->tri_block[pr->i];
        s->body[0].btouch[k >> 6] |= 1ull << (k & 63u);
    }
    if (c->blk[1] != NULL)
    {
        uint32_t k = c->blk[1]->tri_block[pr->j];
        s->body[1].btouch[k >> 6] |= 1ull << (k & 63u);
    }
    s->body[0].cstamp[mi->vertex_component[mi->indices[3u * pr->i]]] = c->epoch;
    s->body[1].cstamp[mj->vertex_component[mj->indices[3u * pr->j]]] = c->epoch;
    return pair_corners_unpublished(c, pr);
}

/// Step 1, after mark_pair_faces or plan_restore (`unpublished`: the or of pair_corners_unpublished): when some corner
/// of a face of J in a pair was not in the pair stage's cache, map and publish it, so that the later steps read every
/// such vertex directly (jpos).
static void publish_pair_corners(region_query* c, uint32_t unpublished)
{
    if (unpublished == 0u)
    {
        return;
    }
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        const uint32_t* tv = &c->mesh[1]->indices[3u * c->pairs[p].j];
        for (int k = 0; k < 3; ++k)
        {
            (void)mc_pair_j_view_vertex(&c->jv, tv[k]);
        }
    }
}

/// The crossing record of occurrence occ (2 p + slot): its point, edge (the canonical half-edge: the direction negated
/// for the other one), crossed face, body and flags, as step 1 keeps them (record_occurrence, collect_by_edges) and a
/// plan restores them (its points from this query's pair); param unset (NaN).
static inline void record_of(const region_query* c, uint32_t occ, crossing_record* r)
{
    const mc_triangle_pair* pr = &c->pairs[occ >> 1];
    const mc_crossing* x = &pr->crossing[occ & 1u];
    int b = x->body;
    uint32_t h = MC_HALFEDGE(b == 0 ? pr->i : pr->j, x->edge);
    uint32_t tw = c->mesh[b]->twin[h];
    bool canonical = h < tw;
    r->point = x->point;
    r->param = NAN;
    r->occurrence = occ;
    r->halfedge = canonical ? h : tw;
    r->face = b == 0 ? pr->j : pr->i;
    r->entering = canonical ? x->entering : (int8_t)-x->entering;
    r->body = (uint8_t)b;
    r->degenerate = x->degenerate;
}

/// Step 1, occurrence `slot` of pair p: the occurrence on the canonical half-edge (h < twin[h]) becomes a crossing
/// record with its parameter along the edge; the other one is joined to its twin occurrence in the union-find.
static void record_occurrence(region_query* c, uint32_t p, uint32_t slot)
{
    struct mc_region_scratch* s = c->s;
    const mc_triangle_pair* pr = &c->pairs[p];
    const mc_crossing* x = &pr->crossing[slot];
    int b = x->body;
    const struct mc_mesh* m = c->mesh[b];
    uint32_t h = MC_HALFEDGE(b == 0 ? pr->i : pr->j, x->edge);
    uint32_t tw = m->twin[h];
    bool canonical = h < tw;
    if (!canonical)
    {
        uint32_t o2 = find_occurrence(c, b, tw, b == 0 ? pr->j : pr->i);
        if (o2 != MC_NONE)
        {
            // The segment sums take each pair's points from the pair, the edge sums from the record: one point per
            // crossing, since the pair stage computes both occurrences by the same operations on the same values
            // (the crossed face's plane from its corners in order, crossing_point orders the edge's ends itself).
            MC_ASSERT(memcmp(&x->point, &c->pairs[o2 >> 1].crossing[o2 & 1u].point, sizeof x->point) == 0);
            mc_uf_union(s->parent, 2u * p + slot, o2);
            return;
        }
        // The twin occurrence is missing (an inconsistent pair stage): keep this one as its own crossing (on the
        // canonical half-edge tw, record_of).
    }
    // (param: set by list_crossings_by_edge where the edge carries several crossings, crossing_param)
    record_of(c, 2u * p + slot, &s->records[s->record_count]);
    s->occurrence_record[2u * p + slot] = s->record_count++;
}

/// The parameter of crossing r along its canonical half-edge: (x - p0).(p1 - p0) / |p1 - p0|^2.
static double crossing_param(const region_query* c, const crossing_record* r)
{
    const struct mc_mesh* m = c->mesh[r->body];
    mc_vec3 p0 = vpos(c, r->body, m->indices[r->halfedge]);
    mc_vec3 e = mc_sub(vpos(c, r->body, m->indices[he_next(r->halfedge)]), p0);
    double ee = mc_dot(e, e);
    return ee > 0.0 ? mc_dot(mc_sub(r->point, p0), e) / ee : 0.0;
}

static inline double norm_inf(mc_vec3 v)
{
    return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
}

/// An upper bound of the error of crossing r's parameter along its edge (crossing_param). The pair stage placed the
/// point at t = o0 / (o0 - o1) from the float orient values of the edge's ends against the crossed face's plane, each
/// within E = MC_PRED_O3D_BOUND times its permanent of the exact value (predicates.h; the exact value rounded when the
/// filter failed). Recomputed here (within E of the exact values too), |o0 - o1| - 2 (E0 + E1) is at most the exact
/// |o0 - o1| less E0 + E1, so t is within 2 (E0 + E1) / (|o0 - o1| - 2 (E0 + E1)) of the exact parameter; the rounding
/// of the point and of the parameter add a few ulps of the coordinates over the edge length (16 of them here). The
/// permanent is bounded for any corner of the face as the pair stage's base: each product of two corner differences by
/// 2 s^2 (s: the face's largest coordinate difference), each |d - base| coordinate by |d - q0| + s. Small for a
/// crossing at a steep angle, large for an edge that grazes the face (the float values then carry little of the exact
/// ones); INFINITY when the edge is parallel to the face within the error.
static double param_error(const region_query* c, const crossing_record* r)
{
    const struct mc_mesh* m = c->mesh[r->body];
    const struct mc_mesh* mf = c->mesh[1 - r->body];
    mc_vec3 p[2] = {vpos(c, r->body, m->indices[r->halfedge]), vpos(c, r->body, m->indices[he_next(r->halfedge)])};
    mc_vec3 q[3];
    for (uint32_t k = 0; k < 3u; ++k)
    {
        q[k] = vpos(c, 1 - r->body, mf->indices[3u * r->face + k]);
    }
    double s = fmax(norm_inf(mc_sub(q[1], q[0])), fmax(norm_inf(mc_sub(q[2], q[1])), norm_inf(mc_sub(q[0], q[2]))));
    mc_tri_plane pl;
    mc_tri_plane_init(&pl, q[0], q[1], q[2]);
    double o[2], err = 0.0;
    for (int k = 0; k < 2; ++k)
    {
        mc_vec3 d = mc_sub(p[k], q[0]);
        o[k] = pl.n[0] * d.x + pl.n[1] * d.y + pl.n[2] * d.z;
        err += 2.0 * MC_PRED_O3D_BOUND * (2.0 * s * s) * (norm1(d) + 3.0 * s);
    }
    double den = fabs(o[0] - o[1]) - err;
    double len = norm_inf(mc_sub(p[1], p[0]));
    if (!(den > 0.0) || !(len > 0.0))
    {
        return INFINITY;
    }
    return err / den + 16.0 * DBL_EPSILON * (norm_inf(p[0]) + norm_inf(p[1])) / len;
}

/// Whether the float order of crossings x0 < x1 along their edge (consecutive in its list) is trusted: their
/// parameters' gap exceeds ORDER_GAP and the bound of both parameters' errors (param_error). decide_states and a
/// restored plan (plan_restore) take the same decision with this one test.
static bool order_trusted(const region_query* c, const crossing_record* x0, const crossing_record* x1)
{
    double gap = x1->param - x0->param;
    return gap > ORDER_GAP && gap > param_error(c, x0) + param_error(c, x1);
}

/// Step 1, pass 2: a crossing counts as degenerate when either of its two occurrences was.
static void merge_degenerate_flags(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        for (uint32_t sl = 0; sl < 2; ++sl)
        {
            const mc_crossing* x = &c->pairs[p].crossing[sl];
            if (s->occurrence_record[2u * p + sl] == MC_NONE && x->degenerate)
            {
                int b = x->body;
                uint32_t h = MC_HALFEDGE(b == 0 ? c->pairs[p].i : c->pairs[p].j, x->edge);
                uint32_t o2 = find_occurrence(c, b, c->mesh[b]->twin[h], b == 0 ? c->pairs[p].j : c->pairs[p].i);
                if (o2 != MC_NONE && s->occurrence_record[o2] != MC_NONE)
                {
                    s->records[s->occurrence_record[o2]].degenerate = 1;
                }
            }
        }
    }
}

/// Step 2a, crossed edges: hash (body, canonical half-edge) -> edge record, with each edge's crossing count and net
/// direction; `edge_of` receives the edge record of every crossing record. Only the slots this query needs are used
/// and cleared (cost proportional to the crossings).
/// The edge record of (body, canonical half-edge) in the crossed-edge hash, made (count 0, no first record) when new.
static inline uint32_t crossed_edge_of(struct mc_region_scratch* s, uint32_t halfedge, uint8_t body)
{
    uint32_t mask = s->edge_slots - 1u;
    uint64_t key = 2u * (uint64_t)halfedge + body;
    uint32_t i = hash_slot(key, mask);
    while (s->edge_keys[i] != UINT64_MAX && s->edge_keys[i] != key)
    {
        i = (i + 1u) & mask;
    }
    if (s->edge_keys[i] == UINT64_MAX)
    {
        s->edge_keys[i] = key;
        s->edge_vals[i] = s->edge_count;
        crossed_edge* e = &s->edges[s->edge_count++];
        e->halfedge = halfedge;
        e->body = body;
        e->count = 0;
        e->net_direction = 0;
        e->first = MC_NONE;
    }
    return s->edge_vals[i];
}

static void index_crossed_edges(struct mc_region_scratch* s, uint32_t* edge_of)
{
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        const crossing_record* r = &s->records[k];
        uint32_t v = crossed_edge_of(s, r->halfedge, r->body);
        crossed_edge* e = &s->edges[v];
        e->count++;
        e->net_direction += r->entering;
        edge_of[k] = v;
    }
}

/// Step 2a, crossing lists: the crossing records grouped by edge (counting sort over `edge_of`), each edge's list
/// sorted by the parameter along its canonical half-edge (insertion sort: edges carry few crossings). The parameters
/// are computed here, for the edges that carry several crossings only: nothing reads the parameter of an edge's only
/// crossing but edge_point_node, which computes it itself.
static void list_crossings_by_edge(const region_query* c, const uint32_t* edge_of)
{
    struct mc_region_scratch* s = c->s;
    uint32_t acc = 0;
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        s->edges[e].first = acc;
        acc += s->edges[e].count;
        s->edges[e].count = 0;
    }
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        crossed_edge* e = &s->edges[edge_of[k]];
        s->edge_list[e->first + e->count++] = k;
    }
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        uint32_t* l = s->edge_list + s->edges[e].first;
        for (uint32_t i = 0; i < s->edges[e].count && s->edges[e].count > 1u; ++i)
        {
            s->records[l[i]].param = crossing_param(c, &s->records[l[i]]);
        }
        for (uint32_t i = 1; i < s->edges[e].count; ++i)
        {
            uint32_t x = l[i];
            uint32_t j = i;
            while (j > 0 && s->records[l[j - 1]].param > s->records[x].param)
            {
                l[j] = l[j - 1];
                --j;
            }
            l[j] = x;
        }
    }
}

#define COLLECT_INCONSISTENT 2 // collect_by_edges: an occurrence without its twin (collect_crossings then runs)

/// Steps 1-2a in one pass over the pairs, without the pair hash: each canonical occurrence becomes a crossing record
/// and enters its edge's record (the edge table in the order of the records' first crossings, as index_crossed_edges
/// builds it, with each edge's records chained); each other occurrence then finds its twin among the records of its
/// canonical half-edge by their crossed face, and is joined to it (the degenerate flag merged, as
/// merge_degenerate_flags does). The union-find keeps the smallest node of a set as its root, so the order of the
/// unions changes nothing. The same records, edges and sets as collect_crossings. @return MC_OK, MC_ERR_OUT_OF_MEMORY,
/// or COLLECT_INCONSISTENT when an occurrence's twin is missing (collect_crossings then keeps it as its own record).
static int collect_by_edges(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    uint32_t occ_count = 2u * c->pair_count;
    if (!mc_array_reserve((void**)&s->parent, &s->parent_cap, occ_count, sizeof *s->parent, 64) ||
        !mc_array_reserve((void**)&s->occurrence_record, &s->occurrence_cap, occ_count, sizeof *s->occurrence_record,
                          64) ||
        !mc_array_reserve((void**)&s->records, &s->record_cap, occ_count, sizeof *s->records, 64) ||
        !table_prepare(&s->edge_keys, &s->edge_vals, &s->edge_alloc, &s->edge_slots, occ_count) ||
        !mc_array_reserve((void**)&s->edges, &s->edge_cap, occ_count, sizeof *s->edges, 64) ||
        !mc_array_reserve((void**)&s->edge_list, &s->elist_cap, occ_count, sizeof *s->edge_list, 64) ||
        !mc_array_reserve((void**)&s->node_region, &s->node_region_cap, occ_count, sizeof *s->node_region, 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0; k < occ_count; ++k)
    {
        s->parent[k] = k;
    }
    s->node_count = occ_count;
    c->marked = true;
    uint32_t* edge_of = s->node_region;        // temporarily: record -> edge (node_region is rebuilt in step 4)
    uint32_t* next = s->edge_list;             // temporarily: the next record of the same edge (MC_NONE: none)
    uint32_t* deferred = s->occurrence_record; // the non-canonical occurrences, in pair order
    uint32_t deferred_count = 0, unpublished = 0u;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        const mc_triangle_pair* pr = &c->pairs[p];
        unpublished |= mark_pair_faces(c, pr);
        mc_uf_union(s->parent, 2u * p, 2u * p + 1u);
        for (uint32_t slot = 0; slot < 2u; ++slot)
        {
            const mc_crossing* x = &pr->crossing[slot];
            int b = x->body;
            uint32_t h = MC_HALFEDGE(b == 0 ? pr->i : pr->j, x->edge);
            if (!(h < c->mesh[b]->twin[h]))
            {
                deferred[deferred_count++] = 2u * p + slot;
                continue;
            }
            uint32_t k = s->record_count++;
            crossing_record* r = &s->records[k];
            record_of(c, 2u * p + slot, r);
            uint32_t v = crossed_edge_of(s, h, (uint8_t)b);
            crossed_edge* e = &s->edges[v];
            e->count++;
            e->net_direction += r->entering;
            edge_of[k] = v;
            next[k] = e->first;
            e->first = k;
        }
    }
    publish_pair_corners(c, unpublished);
    for (uint32_t d = 0; d < deferred_count; ++d)
    {
        uint32_t o = deferred[d];
        const mc_triangle_pair* pr = &c->pairs[o >> 1];
        const mc_crossing* x = &pr->crossing[o & 1u];
        int b = x->body;
        uint32_t tw = c->mesh[b]->twin[MC_HALFEDGE(b == 0 ? pr->i : pr->j, x->edge)];
        uint32_t t = b == 0 ? pr->j : pr->i;
        uint32_t e = edge_lookup(s, b, tw);
        uint32_t k = e == MC_NONE ? MC_NONE : s->edges[e].first;
        while (k != MC_NONE && s->records[k].face != t)
        {
            k = next[k];
        }
        if (k == MC_NONE)
        {
            return COLLECT_INCONSISTENT;
        }
        MC_ASSERT(memcmp(&x->point, &s->records[k].point, sizeof x->point) == 0);
        mc_uf_union(s->parent, o, s->records[k].occurrence);
        if (x->degenerate)
        {
            s->records[k].degenerate = 1;
        }
    }
    list_crossings_by_edge(c, edge_of);
    return MC_OK;
}

/// Steps 1-2a: occurrences, crossing records, touched faces/components, crossed edges.
static mc_status collect_crossings(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    int st = collect_by_edges(c);
    if (st != COLLECT_INCONSISTENT)
    {
        return (mc_status)st;
    }
    s->record_count = 0; // an inconsistent pair stage: the way that keeps a lone occurrence as its own record
    s->edge_count = 0;
    if (!start_occurrences(c))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // Pass 1: canonical occurrences become records; pair segments are joined; faces/components are marked.
    c->marked = true;
    uint32_t unpublished = 0u;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        unpublished |= mark_pair_faces(c, &c->pairs[p]);
        mc_uf_union(s->parent, 2u * p, 2u * p + 1u);
        record_occurrence(c, p, 0);
        record_occurrence(c, p, 1);
    }
    publish_pair_corners(c, unpublished);
    merge_degenerate_flags(c);
    if (!table_prepare(&s->edge_keys, &s->edge_vals, &s->edge_alloc, &s->edge_slots, s->record_count) ||
        !mc_array_reserve((void**)&s->edges, &s->edge_cap, s->record_count, sizeof *s->edges, 64) ||
        !mc_array_reserve((void**)&s->edge_list, &s->elist_cap, s->record_count, sizeof *s->edge_list, 64) ||
        !mc_array_reserve((void**)&s->node_region, &s->node_region_cap, s->record_count, sizeof *s->node_region, 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    uint32_t* edge_of =
        s->node_region; // temporarily: crossing record -> edge record (node_region is rebuilt in step 4)
    index_crossed_edges(s, edge_of);
    list_crossings_by_edge(c, edge_of);
    return MC_OK;
}

/// Note a float decision that a plan can take again (mc_region_plan): a value pushed on one of the scratch's check
/// lists; on allocation failure the query keeps no plan instead.
static void note_check(region_query* c, uint32_t** list, uint32_t* count, uint32_t* cap, uint32_t value)
{
    if (*count == *cap && !mc_array_reserve((void**)list, cap, (uint64_t)*count + 1u, sizeof **list, 16))
    {
        c->coordinate_decision = true;
        return;
    }
    (*list)[(*count)++] = value;
}

/// Step 2: states of all vertices that matter, and the inside flood fill.
static void decide_states(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    // Odd edges: states from the net direction, no ordering needed.
    for (uint32_t e = 0; e < s->edge_count && !c->oom; ++e)
    {
        const crossed_edge* er = &s->edges[e];
        if ((er->count & 1u) == 0u)
        {
            continue;
        }
        const struct mc_mesh* m = c->mesh[er->body];
        int dir =
            er->net_direction > 0 ? 1 : (er->net_direction < 0 ? -1 : s->records[s->edge_list[er->first]].entering);
        set_state(c, er->body, m->indices[er->halfedge], dir < 0);
        set_state(c, er->body, m->indices[he_next(er->halfedge)], dir > 0);
    }
    flood(c, 0);
    flood(c, 1);
    // Even edges with both ends still unknown.
    for (uint32_t e = 0; e < s->edge_count && !c->oom; ++e)
    {
        const crossed_edge* er = &s->edges[e];
        if ((er->count & 1u) != 0u)
        {
            continue;
        }
        int b = er->body;
        const struct mc_mesh* m = c->mesh[b];
        uint32_t v0 = m->indices[er->halfedge], v1 = m->indices[he_next(er->halfedge)];
        int s0 = vstate(c, b, v0), s1 = vstate(c, b, v1);
        if (s0 >= 0 || s1 >= 0)
        {
            bool in = s0 >= 0 ? s0 == 1 : s1 == 1;
            set_state(c, b, v0, in);
            set_state(c, b, v1, in);
        }
        else
        {
            const uint32_t* l = s->edge_list + er->first;
            const crossing_record* x0 = &s->records[l[0]];
            const crossing_record* x1 = &s->records[l[1]];
            bool in;
            if (order_trusted(c, x0, x1))
            {
                in = x0->entering < 0; // the first crossing leaves: the start is inside
                note_check(c, &s->gap_checks, &s->gap_check_count, &s->gap_check_cap, l[0]);
                note_check(c, &s->gap_checks, &s->gap_check_count, &s->gap_check_cap, l[1]);
            }
            else
            {
                in = vertex_inside_other(c, b, v0);
                c->coordinate_decision = true; // an evenly crossed edge decided by a ray
            }
            set_state(c, b, v0, in);
            set_state(c, b, v1, in);
        }
        flood(c, b);
    }
    // Components with a crossed edge of their own: every vertex has its state now (a path from it to the first
    // crossed edge passes uncrossed edges only). The others, whether in a triangle pair or not, have all their edges
    // uncrossed and are entirely inside or outside: one point query each. (A component in pairs without crossed edges
    // of its own is crossed only through its faces, by the other mesh's edges.)
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        const crossed_edge* er = &s->edges[e];
        const struct mc_mesh* m = c->mesh[er->body];
        s->body[er->body].xstamp[m->vertex_component[m->indices[er->halfedge]]] = c->epoch;
    }
    for (int b = 0; b < 2 && !c->oom; ++b)
    {
        const struct mc_mesh* m = c->mesh[b];
        for (uint32_t k = 0; k < m->component_count && !c->oom; ++k)
        {
            if (s->body[b].xstamp[k] == c->epoch)
            {
                continue;
            }
            uint32_t v = m->component_vertex[k];
            if (vstate(c, b, v) >= 0)
            {
                continue;
            }
            uint32_t h = m->vertex_halfedge[v];
            uint32_t bk = c->blk[b] != NULL && h != MC_NONE ? c->blk[b]->tri_block[h / 3u] : MC_NONE;
            if (bk != MC_NONE && ((s->body[b].btouch[bk >> 6] >> (bk & 63u)) & 1u))
            {
                bk = MC_NONE; // the block has a face in some pair: per vertex
            }
            if (bk != MC_NONE && s->body[b].bstate[bk] != 0u)
            {
                continue; // already flooded as a block
            }
            bool inside;
            if (!m->flipped && !c->mesh[1 - b]->flipped && vertex_outside_box(c, b, v))
            {
                inside = false; // what vertex_inside_other returns (the other mesh is not flipped)
                note_check(c, &s->box_checks, &s->box_check_count, &s->box_check_cap, 2u * v + (uint32_t)b);
            }
            else
            {
                inside = vertex_inside_other(c, b, v);
                c->coordinate_decision = true; // a component decided by a ray (or by the box of a flipped mesh)
            }
            if (inside)
            {
                if (bk != MC_NONE)
                {
                    uint32_t node = uf_new(c);
                    if (!c->oom)
                    {
                        mark_block(c, b, bk, node);
                    }
                }
                else
                {
                    set_state(c, b, v, true);
                }
                flood(c, b);
            }
        }
    }
}

/// Step 3 (rest): join crossings to the inside ends of their edges and to each other along inside intervals.
static void join_along_edges(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        const crossed_edge* er = &s->edges[e];
        int b = er->body;
        const struct mc_mesh* m = c->mesh[b];
        const uint32_t* l = s->edge_list + er->first;
        uint32_t v0 = m->indices[er->halfedge], v1 = m->indices[he_next(er->halfedge)];
        if (vstate(c, b, v0) == 1)
        {
            mc_uf_union(s->parent, s->records[l[0]].occurrence, s->body[b].vnode[v0]);
        }
        if (vstate(c, b, v1) == 1)
        {
            mc_uf_union(s->parent, s->records[l[er->count - 1u]].occurrence, s->body[b].vnode[v1]);
        }
        for (uint32_t k = 0; k + 1u < er->count; ++k)
        {
            if (s->records[l[k]].entering > 0)
            {
                mc_uf_union(s->parent, s->records[l[k]].occurrence, s->records[l[k + 1u]].occurrence);
            }
        }
    }
}

/// Step 3 (rest): a face none of whose own edges is crossed and whose corners are inside the other solid is crossed
/// only along closed loops of segments that end on the other mesh's edges; each loop bounds a hole of the face's
/// inside part (the other solid's outside poking through the face), so it is joined to the face's corners. Without
/// this join such a loop and the rest of the face's inside part could become separate regions (for example a thin
/// handle of one mesh passing through a face of the other, or a component crossed only through its faces).
/// Assumed: a loop in such a face bounds a hole, not an island inside a hole of the same face (loops nested within
/// one triangle).
static void join_face_loops(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        const mc_triangle_pair* pr = &c->pairs[p];
        // A face on whose edges the segment ends is joined through that crossing: only a face with neither end on its
        // edges is looked at, when both ends lie on the other face's edges (one test per pair, not one per face).
        uint32_t ends = (1u << (pr->crossing[0].body & 1u)) | (1u << (pr->crossing[1].body & 1u));
        if (ends == 3u)
        {
            continue;
        }
        int b = ends == 1u ? 1 : 0;
        const struct mc_mesh* m = c->mesh[b];
        uint32_t f = b == 0 ? pr->i : pr->j;
        uint32_t v = m->indices[3u * f];
        if (vstate(c, b, v) != 1)
        {
            continue;
        }
        bool crossed = false;
        for (uint32_t k = 0; k < 3u && !crossed; ++k)
        {
            uint32_t h = 3u * f + k;
            crossed = edge_lookup(s, b, h < m->twin[h] ? h : m->twin[h]) != MC_NONE;
        }
        if (!crossed)
        {
            mc_uf_union(s->parent, 2u * p, s->body[b].vnode[v]);
        }
    }
}

/// The union-find node of face f of body b when the face lies entirely inside the other solid (its inside block's
/// node, or its first corner's), else MC_NONE.
static uint32_t inside_face_node(const region_query* c, int b, uint32_t f)
{
    const body_arrays* a = &c->s->body[b];
    if (c->blk[b] != NULL)
    {
        uint32_t bk = c->blk[b]->tri_block[f];
        if (a->bstate[bk] == 2u)
        {
            return a->bnode[bk];
        }
    }
    uint32_t v = c->mesh[b]->indices[3u * f];
    return vstate(c, b, v) == 1 ? a->vnode[v] : MC_NONE;
}

/// Which of face g0 of I and face g1 of J, both met by the ray along d at the same parameter within rounding, the ray
/// meets first: 1 (J) or 0 (I) when the two faces lie exactly in one plane (exact predicates), ordered by the symbolic
/// rule (J translated by (eps, eps^2, eps^3)); -1 when they do not (a float tie: see first_surface); -2 when they do
/// but a face is degenerate or the ray grazes them (unclear).
static int coplanar_first(const region_query* c, uint32_t g0, uint32_t g1, mc_vec3 d)
{
    mc_vec3 a[3], q[3];
    for (uint32_t k = 0; k < 3u; ++k)
    {
        a[k] = vpos(c, 0, c->mesh[0]->indices[3u * g0 + k]);
        q[k] = vpos(c, 1, c->mesh[1]->indices[3u * g1 + k]);
    }
    for (uint32_t k = 0; k < 3u; ++k)
    {
        if (mc_orient3d_sign(&a[0], &a[1], &a[2], &q[k]) != 0)
        {
            return -1;
        }
    }
    // J's face lies, infinitesimally, on side `side` of I's plane (+1: where I's normal points). The ray crosses the
    // plane forwards along I's normal when d . n > 0: it then meets J's face first when J's face is on the near side.
    int side = mc_sym_orient_point_plane(&a[0], &a[1], &a[2], &q[0], 1, NULL);
    double dn = mc_dot(d, fnormal(c, 0, g0));
    if (side == 0 || !(fabs(dn) > 1e-6))
    {
        return -2; // a degenerate face, or a grazing ray (the hits are flagged ambiguous then anyway): unclear
    }
    return (side > 0) != (dn > 0.0) ? 1 : 0;
}

/// The surfaces a ray from a shell meets first (first_surface).
typedef struct ray_hits
{
    uint32_t face[2]; // first triangle of each mesh met, MC_NONE none
    double t[2];      // their ray parameters
    int body;         // the nearer hit's body, or -1: a float tie of the two meshes' hits (both candidates)
} ray_hits;

/// Where a ray from a shell meets the nearest surface: false when none or unclear, else the hits in *h (h->body the
/// nearer one's body). Unclear: the nearer hit near its triangle's boundary or near another hit of its own mesh
/// (mc_bvh_ray_first_hit's `ambiguous`; the farther mesh's does not matter), or a walk that gave up. When the two
/// meshes' hits lie within the tie tolerance: on faces that lie exactly in one plane the symbolic rule orders them
/// (coplanar_first); on faces that do not (surfaces that coincide up to rounding), h->body is -1 and both hits are
/// candidates when neither is ambiguous (boundary_node_along decides which lies on the intersection's boundary).
static bool first_surface(region_query* c, mc_vec3 p, mc_vec3 d, int b, uint32_t skip, ray_hits* h)
{
    // Every point of mesh k is within |p - centre_k| + diagonal_k / 2 of p.
    double t_max = 0.0;
    for (int k = 0; k < 2; ++k)
    {
        const mc_mesh_report* r = &c->mesh[k]->report;
        mc_vec3 centre = mc_scale(mc_add(r->bbox_min, r->bbox_max), 0.5);
        if (k == 1)
        {
            centre = mc_add(mc_mat33_mul_vec(&c->rot_j, centre), c->trans_j);
        }
        double reach = mc_length(mc_sub(p, centre)) + 0.5 * mc_length(mc_sub(r->bbox_max, r->bbox_min));
        t_max = fmax(t_max, 1.000001 * reach);
    }
    bool ambiguous[2] = {false, false};
    for (int k = 0; k < 2; ++k)
    {
        h->t[k] = INFINITY;
        h->face[k] = mc_bvh_ray_first_hit(c->mesh[k], k, k == 1 ? c->ps : NULL, p, d, t_max, k == b ? skip : MC_NONE,
                                          &h->t[k], &ambiguous[k]);
        if (h->face[k] == MC_NONE && ambiguous[k])
        {
            return false; // the walk gave up: a hit may be missing
        }
        h->t[k] = h->face[k] == MC_NONE ? INFINITY : h->t[k];
    }
    int k = h->t[1] < h->t[0] ? 1 : 0;
    if (h->face[k] == MC_NONE || ambiguous[k])
    {
        return false;
    }
    if (fabs(h->t[1] - h->t[0]) <= 1e-9 * t_max)
    {
        if (ambiguous[1 - k])
        {
            return false;
        }
        k = coplanar_first(c, h->face[0], h->face[1], d);
        if (k < -1)
        {
            return false;
        }
    }
    h->body = k;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Pieces of a face's inside part

#define LOCATE_GAP 1e-9 // relative distance below which an in-face ray is too near an element's end to locate

/// Sift key i down the max-heap a[0 .. n).
static void sift_u64(uint64_t* a, uint32_t n, uint32_t i)
{
    uint64_t v = a[i];
    for (;;)
    {
        uint32_t ch = 2u * i + 1u;
        if (ch >= n)
        {
            break;
        }
        if (ch + 1u < n && a[ch + 1u] > a[ch])
        {
            ch++;
        }
        if (a[ch] <= v)
        {
            break;
        }
        a[i] = a[ch];
        i = ch;
    }
    a[i] = v;
}

/// Heap sort of n keys, increasing (no allocation).
static void sort_u64(uint64_t* a, uint32_t n)
{
    for (uint32_t k = n / 2u; k-- > 0u;)
    {
        sift_u64(a, n, k);
    }
    for (uint32_t e = n; e-- > 1u;)
    {
        uint64_t t = a[0];
        a[0] = a[e];
        a[e] = t;
        sift_u64(a, e, 0);
    }
}

/// The pairs of face g of body b: for I a run of the pair array (sorted by I's triangle), for J a run of the keys
/// (j << 32 | pair) sorted on first use in the query. *first receives the run's start, the count is returned; *keys
/// NULL means the run is of the pair array itself. UINT32_MAX when out of memory.
static uint32_t face_pairs(region_query* c, int b, uint32_t g, uint32_t* first, const uint64_t** keys)
{
    struct mc_region_scratch* s = c->s;
    uint32_t lo = 0, hi = c->pair_count;
    if (b == 0)
    {
        *keys = NULL;
        while (lo < hi) // first pair with i >= g
        {
            uint32_t mid = lo + (hi - lo) / 2u;
            lo = c->pairs[mid].i < g ? mid + 1u : lo;
            hi = c->pairs[mid].i < g ? hi : mid;
        }
        uint32_t end = lo;
        while (end < c->pair_count && c->pairs[end].i == g)
        {
            end++;
        }
        *first = lo;
        return end - lo;
    }
    if (!c->jkeys_ready)
    {
        if (!mc_array_reserve((void**)&s->jkeys, &s->jkeys_cap, c->pair_count, sizeof *s->jkeys, 64))
        {
            return UINT32_MAX;
        }
        for (uint32_t p = 0; p < c->pair_count; ++p)
        {
            s->jkeys[p] = ((uint64_t)c->pairs[p].j << 32) | p;
        }
        sort_u64(s->jkeys, c->pair_count);
        c->jkeys_ready = true;
    }
    uint64_t key = (uint64_t)g << 32;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2u;
        lo = s->jkeys[mid] < key ? mid + 1u : lo;
        hi = s->jkeys[mid] < key ? hi : mid;
    }
    uint32_t end = lo;
    while (end < c->pair_count && (s->jkeys[end] >> 32) == g)
    {
        end++;
    }
    *keys = s->jkeys;
    *first = lo;
    return end - lo;
}

/// The nearest element an in-face ray meets (see locate_in_face).
typedef struct face_ray
{
    mc_vec3 x, d, w; // start, unit direction, in-plane normal of the direction (n x d)
    double tol;      // distances below this are unclear
    double best, second;
    uint32_t kind;  // 0..2: edge of the face, 3: segment of a pair
    uint32_t pair;  // the segment's pair
    double lambda;  // the edge hit's parameter along the face's half-edge
    bool ambiguous; // an element's end near the ray, or a hit near the start
} face_ray;

/// Offer segment or edge (p, q) to the ray: a hit at distance s > tol along d becomes the best or second.
static void face_ray_offer(face_ray* r, mc_vec3 p, mc_vec3 q, uint32_t kind, uint32_t pair)
{
    mc_vec3 dp = mc_sub(p, r->x), dq = mc_sub(q, r->x);
    double pw = mc_dot(r->w, dp), qw = mc_dot(r->w, dq);
    if ((fabs(pw) <= r->tol && mc_dot(r->d, dp) > -r->tol) || (fabs(qw) <= r->tol && mc_dot(r->d, dq) > -r->tol))
    {
        r->ambiguous = true; // the ray passes near an end of the element
        return;
    }
    if ((pw > 0.0) == (qw > 0.0))
    {
        return;
    }
    double lambda = pw / (pw - qw);
    double sd = mc_dot(r->d, mc_add(dp, mc_scale(mc_sub(dq, dp), lambda)));
    if (sd <= r->tol)
    {
        r->ambiguous = r->ambiguous || sd > -r->tol;
        return;
    }
    if (sd < r->best)
    {
        r->second = r->best;
        r->best = sd;
        r->kind = kind;
        r->pair = pair;
        r->lambda = lambda;
    }
    else if (sd < r->second)
    {
        r->second = sd;
    }
}

/// The inside state and node of the point at parameter lambda along half-edge h of body b (a point of an edge of a
/// face in some pair): from the crossings of the edge (the interval's state and a crossing that bounds it) or, when
/// the edge is uncrossed, from its first vertex. False when unclear (a crossing near the point, unknown state).
static bool edge_point_node(const region_query* c, int b, uint32_t h, double lambda, uint32_t* node, bool* inside)
{
    const struct mc_region_scratch* s = c->s;
    const struct mc_mesh* m = c->mesh[b];
    uint32_t hc = h < m->twin[h] ? h : m->twin[h];
    double lc = hc == h ? lambda : 1.0 - lambda;
    uint32_t e = edge_lookup(s, b, hc);
    if (e == MC_NONE)
    {
        uint32_t v = m->indices[hc];
        int st = vstate(c, b, v);
        *inside = st == 1;
        *node = st == 1 ? s->body[b].vnode[v] : MC_NONE;
        return st >= 0;
    }
    const crossed_edge* er = &s->edges[e];
    const uint32_t* l = s->edge_list + er->first;
    // An edge's only crossing has no parameter stored (list_crossings_by_edge).
    double only = er->count == 1u ? crossing_param(c, &s->records[l[0]]) : 0.0;
    uint32_t i = 0;
    while (i < er->count && (er->count == 1u ? only : s->records[l[i]].param) < lc)
    {
        i++;
    }
    if ((i > 0 && lc - (er->count == 1u ? only : s->records[l[i - 1u]].param) <= LOCATE_GAP) ||
        (i < er->count && (er->count == 1u ? only : s->records[l[i]].param) - lc <= LOCATE_GAP))
    {
        return false;
    }
    *inside = i == 0 ? s->records[l[0]].entering < 0 : s->records[l[i - 1u]].entering > 0;
    *node = s->records[l[i < er->count ? i : er->count - 1u]].occurrence;
    return true;
}

/// True when the other face of pair pi lies exactly in the plane of face g of body b (corners p): its segment in g
/// bounds nothing there, since the symbolic rule moves J's face off I's plane (exact predicates).
static bool pair_coplanar(const region_query* c, int b, uint32_t g, const mc_vec3 p[3], uint32_t pi)
{
    (void)g;
    const mc_triangle_pair* pr = &c->pairs[pi];
    uint32_t t = b == 0 ? pr->j : pr->i;
    const struct mc_mesh* m = c->mesh[1 - b];
    for (uint32_t k = 0; k < 3u; ++k)
    {
        mc_vec3 q = vpos(c, 1 - b, m->indices[3u * t + k]);
        if (mc_orient3d_sign(&p[0], &p[1], &p[2], &q) != 0)
        {
            return false;
        }
    }
    return true;
}

/// In face g of body b, from x (a point of the face, I's frame) along the in-plane unit direction d: the union-find
/// node of the first element of the boundary of the face's inside part that the ray meets (a segment of one of the
/// face's pairs other than `skip`, or an interval of one of its edges; a touching segment, both ends decided by the
/// symbolic rule, or one of a coplanar face bounds nothing once the rule moves J off I: left out), whether the ray runs
/// in the inside part just before it (leaves there) and the distance to it. The coordinates are floats: this locates,
/// it never decides a sign; false when unclear (an element's end near the ray, two elements at about the same distance,
/// the ray parallel to the segment it meets, out of memory).
static bool locate_in_face(region_query* c, int b, uint32_t g, mc_vec3 x, mc_vec3 d, uint32_t skip, uint32_t* node,
                           bool* inside, double* dist)
{
    const struct mc_mesh* m = c->mesh[b];
    mc_vec3 p[3];
    double size = 0.0;
    for (uint32_t k = 0; k < 3u; ++k)
    {
        p[k] = vpos(c, b, m->indices[3u * g + k]);
    }
    for (uint32_t k = 0; k < 3u; ++k)
    {
        size = fmax(size, norm1(mc_sub(p[(k + 1u) % 3u], p[k])));
    }
    face_ray r = {.x = x, .d = d, .w = mc_cross(fnormal(c, b, g), d), .best = INFINITY, .second = INFINITY};
    r.tol = LOCATE_GAP * (size + norm1(x));
    for (uint32_t k = 0; k < 3u; ++k)
    {
        face_ray_offer(&r, p[k], p[(k + 1u) % 3u], k, MC_NONE);
    }
    uint32_t first = 0;
    const uint64_t* keys = NULL;
    uint32_t n = face_pairs(c, b, g, &first, &keys);
    if (n == UINT32_MAX)
    {
        return false;
    }
    for (uint32_t k = first; k < first + n; ++k)
    {
        uint32_t pi = keys == NULL ? k : (uint32_t)keys[k];
        const mc_triangle_pair* pr = &c->pairs[pi];
        bool touching = pr->crossing[0].degenerate && pr->crossing[1].degenerate;
        if (pi != skip && !touching && !pair_coplanar(c, b, g, p, pi))
        {
            face_ray_offer(&r, c->pairs[pi].crossing[0].point, c->pairs[pi].crossing[1].point, 3u, pi);
        }
    }
    if (r.ambiguous || !(r.best < INFINITY) || r.second - r.best <= r.tol)
    {
        return false;
    }
    *dist = r.best;
    if (r.kind < 3u)
    {
        return edge_point_node(c, b, 3u * g + r.kind, r.lambda, node, inside);
    }
    const mc_triangle_pair* pr = &c->pairs[r.pair];
    double dn = mc_dot(d, fnormal(c, 1 - b, b == 0 ? pr->j : pr->i));
    *inside = dn > 0.0; // leaving the other solid there: the ray ran inside it
    *node = 2u * r.pair;
    return fabs(dn) > LOCATE_GAP;
}

/// The union-find node of the piece of face g of body b's inside part that holds point z of the face (the hit of a
/// ray): an in-face ray from z towards the midpoint of the face's first edge, then of its other edges, meets the
/// boundary of the inside part coming from inside (a touching segment is left out of the location, so a first
/// direction can meet an edge of the face outside the other solid). MC_NONE when every direction is unclear.
static uint32_t node_in_face(region_query* c, int b, uint32_t g, mc_vec3 z)
{
    const struct mc_mesh* m = c->mesh[b];
    mc_vec3 n = fnormal(c, b, g);
    for (uint32_t e = 0; e < 3u; ++e)
    {
        mc_vec3 mid =
            mc_scale(mc_add(vpos(c, b, m->indices[3u * g + e]), vpos(c, b, m->indices[3u * g + (e + 1u) % 3u])), 0.5);
        mc_vec3 u = mc_sub(mid, z);
        u = mc_normalize(mc_sub(u, mc_scale(n, mc_dot(u, n))));
        uint32_t node = MC_NONE;
        bool inside = false;
        double dist = 0.0;
        if (mc_dot(u, u) > 0.5 && locate_in_face(c, b, g, z, u, MC_NONE, &node, &inside, &dist) && inside)
        {
            return node;
        }
    }
    return MC_NONE;
}

/// The node of the region boundary at the ray's hit z on face g of body hb: on a face in no pair, the face's node when
/// it lies entirely inside the other solid; on a face in some pair, the node of the piece of its inside part that
/// holds z (node_in_face). MC_NONE when z is not on the intersection's boundary, or unclear.
static uint32_t node_at_hit(region_query* c, int hb, uint32_t g, mc_vec3 z)
{
    if (!((c->s->body[hb].fbits[g >> 6] >> (g & 63u)) & 1u))
    {
        return inside_face_node(c, hb, g);
    }
    return node_in_face(c, hb, g, z);
}

// ---------------------------------------------------------------------------------------------------------------
// Flush faces (the rule at the top of this file, "Flush faces")

/// The corners of face f of body b, I's frame (J's: the pair stage's copies).
static void face_corners(const region_query* c, int b, uint32_t f, mc_vec3 p[3])
{
    for (uint32_t k = 0; k < 3u; ++k)
    {
        p[k] = vpos(c, b, c->mesh[b]->indices[3u * f + k]);
    }
}

/// Face f of body b holds a piece of the intersection's boundary: it is in some pair or entirely inside.
static bool region_face(const region_query* c, int b, uint32_t f)
{
    return ((c->s->body[b].fbits[f >> 6] >> (f & 63u)) & 1u) || inside_face_node(c, b, f) != MC_NONE;
}

/// h is a partner of the face being classified (s->fpart, in increasing order: binary search).
static bool is_partner(const struct mc_region_scratch* s, uint32_t h)
{
    uint32_t lo = 0, hi = s->fpart_count;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2u;
        lo = s->fpart[mid] < h ? mid + 1u : lo;
        hi = s->fpart[mid] < h ? hi : mid;
    }
    return lo < s->fpart_count && s->fpart[lo] == h;
}

/// The exact sign of orient(plane of pl, d): the filter's when it decides, else the exact predicate's.
static inline int plane_sign(const mc_tri_plane* pl, const mc_vec3* d)
{
    double bound;
    double v = mc_tri_plane_eval(pl, d, &bound);
    if (fabs(v) > bound)
    {
        return v > 0.0 ? 1 : -1;
    }
    return mc_orient3d_sign(&pl->v[0], &pl->v[1], &pl->v[2], d);
}

/// Face t of the other body, in a pair with face g of body b (corners p, seen along `axis`), meets g's plane only
/// where it bounds g's flush piece or nothing of g: at one corner (its other corners on one side), along an edge that
/// does not enter g's interior (a piece of no area), or along an edge whose other face is one of g's partners (there
/// the other surface turns away from the solid and the piece ends).
static bool pair_on_rim(const region_query* c, int b, uint32_t t, const mc_tri_plane* pg, int axis)
{
    const mc_vec3* p = pg->v;
    const uint32_t* tw = &c->mesh[1 - b]->twin[3u * t];
    if (is_partner(c->s, tw[0] / 3u) || is_partner(c->s, tw[1] / 3u) || is_partner(c->s, tw[2] / 3u))
    {
        return true; // that edge is a partner's, so it lies in the plane (no exact test needed)
    }
    mc_vec3 q[3];
    face_corners(c, 1 - b, t, q);
    int o[3], zeros = 0;
    for (uint32_t k = 0; k < 3u; ++k)
    {
        o[k] = plane_sign(pg, &q[k]);
        zeros += o[k] == 0;
    }
    if (zeros == 1)
    {
        return abs(o[0] + o[1] + o[2]) == 2;
    }
    if (zeros != 2)
    {
        return false;
    }
    uint32_t e = o[0] != 0 ? 1u : (o[1] != 0 ? 2u : 0u); // edge e runs from corner e to corner e + 1
    return !mc_segment_meets_coplanar_triangle(&q[e], &q[(e + 1u) % 3u], p, axis);
}

/// The boxes of segment (e0, e1) and triangle p meet (closed, so a plane along a coordinate passes; exact comparisons):
/// a cheap first test before the exact ones of mc_segment_meets_coplanar_triangle, which also begins with it.
static inline bool segment_near_triangle(const mc_vec3* e0, const mc_vec3* e1, const mc_vec3 p[3])
{
    for (int k = 0; k < 3; ++k)
    {
        double a0 = (&e0->x)[k], a1 = (&e1->x)[k];
        double t0 = (&p[0].x)[k], t1 = (&p[1].x)[k], t2 = (&p[2].x)[k];
        double lo = a0 < a1 ? a0 : a1, hi = a0 < a1 ? a1 : a0;
        double tlo = t0 < t1 ? t0 : t1, thi = t0 < t1 ? t1 : t0;
        tlo = t2 < tlo ? t2 : tlo;
        thi = t2 > thi ? t2 : thi;
        if (hi < tlo || lo > thi)
        {
            return false;
        }
    }
    return true;
}

/// Does the piece of face g of body b (corners p) inside the other solid lie entirely on its partners (s->fpart)?
/// Exactly when (1) every pair of g meets g's plane on the partners' rim (pair_on_rim), and (2) no edge of a partner
/// where the other solid goes on beyond the plane (the edge's other face turns to the partner's outward side: the
/// other solid lies on both sides of the plane beyond it) runs through g's interior.
static bool flush_is_pure(region_query* c, int b, uint32_t g, const mc_vec3 p[3], int axis)
{
    uint32_t first = 0;
    const uint64_t* keys = NULL;
    uint32_t n = face_pairs(c, b, g, &first, &keys);
    if (n == UINT32_MAX)
    {
        c->oom = true;
        return false;
    }
    mc_tri_plane pg;
    mc_tri_plane_init(&pg, p[0], p[1], p[2]);
    for (uint32_t k = first; k < first + n; ++k)
    {
        const mc_triangle_pair* pr = &c->pairs[keys == NULL ? k : (uint32_t)keys[k]];
        if (!pair_on_rim(c, b, b == 0 ? pr->j : pr->i, &pg, axis))
        {
            return false;
        }
    }
    const struct mc_mesh* om = c->mesh[1 - b];
    for (uint32_t k = 0; k < c->s->fpart_count; ++k)
    {
        uint32_t h = c->s->fpart[k];
        mc_vec3 q[3];
        face_corners(c, 1 - b, h, q);
        mc_tri_plane ph;
        mc_tri_plane_init(&ph, q[0], q[1], q[2]);
        for (uint32_t e = 0; e < 3u; ++e)
        {
            // An edge shared with another partner is inside the partners' union. Else: does the other solid go on
            // beyond it (its other face turns to h's outward side), and does it enter g's interior? (The float side
            // first: an exactly coplanar other face, 0 only by the exact test, has its edge outside g's interior
            // unless it overlaps g, when it is a partner.)
            uint32_t tw = om->twin[3u * h + e];
            if (is_partner(c->s, tw / 3u) || !segment_near_triangle(&q[e], &q[(e + 1u) % 3u], p))
            {
                continue;
            }
            mc_vec3 apex = vpos(c, 1 - b, om->indices[he_prev(tw)]);
            double bound;
            double v = mc_tri_plane_eval(&ph, &apex, &bound);
            if (v < -bound || !mc_segment_meets_coplanar_triangle(&q[e], &q[(e + 1u) % 3u], p, axis))
            {
                continue;
            }
            if (v > bound || mc_orient3d_sign(&q[0], &q[1], &q[2], &apex) > 0)
            {
                return false;
            }
        }
    }
    return true;
}

/// One step of Sutherland-Hodgman clipping: poly (count corners) cut to the half-space m . (x - a) >= 0, in place;
/// next is scratch of at least count + 1 points. @return the new count
static uint32_t clip_half_space(mc_vec3* poly, uint32_t count, mc_vec3 a, mc_vec3 m, mc_vec3* next)
{
    uint32_t nn = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        mc_vec3 x = poly[i], y = poly[(i + 1u) % count];
        double dx = mc_dot(m, mc_sub(x, a)), dy = mc_dot(m, mc_sub(y, a));
        if (dx >= 0.0)
        {
            next[nn++] = x;
        }
        if ((dx >= 0.0) != (dy >= 0.0))
        {
            next[nn++] = mc_mul_add(x, dx / (dx - dy), mc_sub(y, x));
        }
    }
    memcpy(poly, next, nn * sizeof *poly);
    return nn;
}

/// Twice the area of the part of triangle p (corners counter-clockwise around n) inside triangle q of the same plane
/// (unit normal nq): p clipped by q's three edges, in floating point; *centre receives the mean of the clipped
/// polygon's corners.
static double clipped_area_x2(const mc_vec3 p[3], const mc_vec3 q[3], mc_vec3 n, mc_vec3 nq, mc_vec3* centre)
{
    mc_vec3 poly[9], next[9];
    uint32_t count = 3u;
    for (uint32_t k = 0; k < 3u; ++k)
    {
        poly[k] = p[k];
    }
    for (uint32_t e = 0; e < 3u && count >= 3u; ++e)
    {
        mc_vec3 a = q[e];
        mc_vec3 m = mc_cross(nq, mc_sub(q[(e + 1u) % 3u], a)); // into q
        count = clip_half_space(poly, count, a, m, next);
    }
    if (count < 3u)
    {
        return 0.0;
    }
    double a2 = 0.0;
    mc_vec3 sum = poly[0];
    for (uint32_t i = 1; i + 1u < count; ++i)
    {
        a2 += mc_dot(n, mc_cross(mc_sub(poly[i], poly[0]), mc_sub(poly[i + 1u], poly[0])));
    }
    for (uint32_t i = 1; i < count; ++i)
    {
        sum = mc_add(sum, poly[i]);
    }
    *centre = mc_scale(sum, 1.0 / (double)count);
    return a2;
}

/// The union-find node of the piece of face g of body b (a flush face) that holds point z: its own node when the face
/// is in no pair, its first pair's when all its pairs are in one set, else the piece located by node_in_face (the
/// first pair's when unclear).
static uint32_t flush_node(region_query* c, int b, uint32_t g, mc_vec3 z)
{
    if (!((c->s->body[b].fbits[g >> 6] >> (g & 63u)) & 1u))
    {
        return inside_face_node(c, b, g);
    }
    uint32_t first = 0;
    const uint64_t* keys = NULL;
    uint32_t n = face_pairs(c, b, g, &first, &keys); // run by flush_is_pure already: no allocation
    uint32_t node0 = 2u * (keys == NULL ? first : (uint32_t)keys[first]);
    for (uint32_t k = first + 1u; k < first + n; ++k)
    {
        uint32_t node = 2u * (keys == NULL ? k : (uint32_t)keys[k]);
        if (mc_uf_find(c->s->parent, node) != mc_uf_find(c->s->parent, node0))
        {
            uint32_t found = node_in_face(c, b, g, z);
            return found != MC_NONE ? found : node0;
        }
    }
    return node0;
}

/// Append a flush entry; false when out of memory (c->oom set).
static bool flush_entry_add(region_query* c, int b, uint32_t g, uint32_t partner, uint32_t node, mc_vec3 area_x2,
                            bool block)
{
    struct mc_region_scratch* s = c->s;
    if (!mc_array_reserve((void**)&s->fsub, &s->fsub_cap, (uint64_t)s->fsub_count + 1u, sizeof *s->fsub, 16))
    {
        c->oom = true;
        return false;
    }
    flush_entry* e = &s->fsub[s->fsub_count++];
    e->area_x2 = area_x2;
    e->face = g;
    e->partner = partner;
    e->node = node;
    e->body = (uint8_t)b;
    e->block = block ? 1u : 0u;
    return true;
}

/// A mixed face g of body b (corners p, unit normal n): its flush area, the part of g on each partner (clipped in
/// floating point), as entries taken off the regions of the pieces that hold them.
static void flush_mixed_entries(region_query* c, int b, uint32_t g, const mc_vec3 p[3], mc_vec3 n)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->fpart_count && !c->oom; ++k)
    {
        uint32_t h = s->fpart[k];
        mc_vec3 q[3], centre = p[0];
        face_corners(c, 1 - b, h, q);
        double a2 = clipped_area_x2(p, q, n, fnormal(c, 1 - b, h), &centre);
        if (a2 > 0.0)
        {
            flush_entry_add(c, b, g, h, flush_node(c, b, g, centre), mc_scale(n, a2), false);
        }
    }
}

/// Classify face g of body b (corners p, seen along `axis`), a face that holds a piece of the boundary, with its
/// partners in s->fpart:
/// FLUSH_PURE (and an entry when it lies in an inside block) or FLUSH_MIXED (entries).
static void flush_classify_face(region_query* c, int b, uint32_t g, const mc_vec3 p[3], int axis)
{
    body_arrays* a = &c->s->body[b];
    if (!mc_array_reserve((void**)&a->flist, &a->flist_cap, (uint64_t)a->flist_count + 1u, sizeof *a->flist, 64))
    {
        c->oom = true;
        return;
    }
    a->flist[a->flist_count++] = g;
    if (flush_is_pure(c, b, g, p, axis))
    {
        a->fflush[g] = FLUSH_PURE;
        c->flush_pure++;
        if (c->blk[b] != NULL && !((a->fbits[g >> 6] >> (g & 63u)) & 1u))
        {
            uint32_t bk = c->blk[b]->tri_block[g];
            if (a->bstate[bk] == 2u) // in a block summed whole: its area is taken off after the sums
            {
                flush_entry_add(c, b, g, MC_NONE, a->bnode[bk], mc_cross(mc_sub(p[1], p[0]), mc_sub(p[2], p[0])), true);
            }
        }
    }
    else if (!c->oom)
    {
        a->fflush[g] = FLUSH_MIXED;
        flush_mixed_entries(c, b, g, p, fnormal(c, b, g));
    }
}

/// Face g of body b (corners p) and the faces of the other body in its plane that overlap it, keys[0 .. n) (their
/// indices in the low 31 bits): those whose overlap with g lies inside their solid under the symbolic rule go to
/// s->fpart. The rule moves
/// the other body off g's plane to side R1 (tri_tri.h: the sign of g's exact normal's first non-zero component, for
/// a point in the plane): an other face on g's outward side that faces the same way, or on its inward side facing the
/// other way, holds g's overlap inside its solid. False when out of memory.
static bool flush_partners(region_query* c, int b, uint32_t g, const mc_vec3 p[3], const uint64_t* keys, uint32_t n)
{
    struct mc_region_scratch* s = c->s;
    s->fpart_count = 0;
    int side = mc_cross_first_sign(&p[0], &p[1], &p[0], &p[2]);
    side = b == 0 ? side : -side;
    mc_vec3 ng = fnormal(c, b, g);
    for (uint32_t k = 0; k < n; ++k)
    {
        uint32_t h = (uint32_t)(keys[k] & 0x7fffffffu);
        int same = mc_dot(ng, fnormal(c, 1 - b, h)) > 0.0 ? 1 : -1;
        if (side * same <= 0)
        {
            continue;
        }
        if (!mc_array_reserve((void**)&s->fpart, &s->fpart_cap, (uint64_t)s->fpart_count + 1u, sizeof *s->fpart, 16))
        {
            c->oom = true;
            return false;
        }
        s->fpart[s->fpart_count++] = h;
    }
    return true;
}

/// The faces of body b in the sorted keys[0 .. n) (face << 31 | the other face), each that holds a piece of the
/// boundary classified once with its partners (flush_partners, flush_classify_face).
static void flush_classify_body(region_query* c, int b, const uint64_t* keys, uint32_t n)
{
    for (uint32_t k = 0; k < n && !c->oom;)
    {
        uint64_t face_key = keys[k] >> 31;
        uint32_t first = k;
        while (k < n && keys[k] >> 31 == face_key)
        {
            k++;
        }
        uint32_t g = (uint32_t)face_key;
        if (!region_face(c, b, g))
        {
            continue;
        }
        mc_vec3 p[3];
        face_corners(c, b, g, p);
        int axis = mc_tri_coplanar_axis(p);
        if (flush_partners(c, b, g, p, keys + first, k - first) && c->s->fpart_count > 0u)
        {
            flush_classify_face(c, b, g, p, axis);
        }
    }
}

/// Flush faces, before the sums, from the pair stage's coplanar pairs (mc_pair_result.coplanar, sorted by I's face):
/// the faces of I and J that hold a piece of the boundary, each classified once with its partners. Nothing to do
/// without coplanar pairs.
static void classify_flush(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    if (c->coplanar_count == 0u)
    {
        return;
    }
    for (int b = 0; b < 2; ++b)
    {
        body_arrays* a = &s->body[b];
        uint32_t need = c->mesh[b]->triangle_count;
        if (need > a->ffcap)
        {
            if (!grow_zeroed((void**)&a->fflush, a->ffcap, need))
            {
                c->oom = true;
                return;
            }
            a->ffcap = need;
        }
    }
    if (!mc_array_reserve((void**)&s->fkeys, &s->fkeys_cap, 2ull * c->coplanar_count, sizeof *s->fkeys, 64))
    {
        c->oom = true;
        return;
    }
    uint32_t n = c->coplanar_count;
    for (uint32_t k = 0; k < n; ++k)
    {
        uint64_t i = c->coplanar[k] >> 32, j = c->coplanar[k] & 0xffffffffu;
        s->fkeys[k] = i << 31 | j;     // I's face i with J's j: in increasing order already
        s->fkeys[n + k] = j << 31 | i; // J's face j with I's i
    }
    sort_u64(s->fkeys + n, n);
    flush_classify_body(c, 0, s->fkeys, n);
    flush_classify_body(c, 1, s->fkeys + n, n);
}

/// Take the flush entries off the regions' vector areas (after the sums). An entry of a face of an inside block is
/// taken off only where the block was summed whole (triangle terms, no rounding sensitivity): elsewhere the block's
/// faces were summed one by one, the pure ones without their area.
static void apply_flush_entries(region_query* c, bool triangle_terms)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->fsub_count; ++k)
    {
        const flush_entry* e = &s->fsub[k];
        region_accumulator* r = &s->regions[s->node_region[e->node]];
        if (e->block && (!triangle_terms || r->need_sensitivity))
        {
            continue;
        }
        r->area_x2[e->body] = mc_sub(r->area_x2[e->body], e->area_x2);
    }
}

// Near-flush faces (the rule at the top of this file, "Near-flush faces"): the vector areas only.

/// Largest sine of the angle between two faces' planes that are taken as flush for the vector areas (see the top).
#define NEAR_FLUSH_SIN 1e-9

/// Twice the area of the part of triangle p (unit normal n) inside triangle q (unit normal nq, nearly parallel to n)
/// seen along nq and behind q's plane (on its inward side): the piece of p inside the other solid next to q.
static double behind_area_x2(const mc_vec3 p[3], const mc_vec3 q[3], mc_vec3 n, mc_vec3 nq)
{
    mc_vec3 poly[10], next[10];
    uint32_t count = 3u;
    for (uint32_t k = 0; k < 3u; ++k)
    {
        poly[k] = p[k];
    }
    for (uint32_t e = 0; e < 4u && count >= 3u; ++e)
    {
        mc_vec3 a = q[e % 3u];
        mc_vec3 m = e < 3u ? mc_cross(nq, mc_sub(q[(e + 1u) % 3u], a)) : mc_scale(nq, -1.0); // the kept side
        count = clip_half_space(poly, count, a, m, next);
    }
    double a2 = 0.0;
    for (uint32_t i = 1; i + 1u < count; ++i)
    {
        a2 += mc_dot(n, mc_cross(mc_sub(poly[i], poly[0]), mc_sub(poly[i + 1u], poly[0])));
    }
    return a2 > 0.0 ? a2 : 0.0;
}

/// h is a face of body ob around a corner of face t (t itself included).
static bool ring_has(const region_query* c, int ob, uint32_t t, uint32_t h)
{
    const uint32_t* tw = c->mesh[ob]->twin;
    for (uint32_t e = 0; e < 3u; ++e)
    {
        uint32_t he = 3u * t + e, n = 0;
        do
        {
            if (he / 3u == h)
            {
                return true;
            }
            he = tw[he_prev(he)]; // the next half-edge leaving the same corner
        } while (he != 3u * t + e && ++n < RING_LIMIT);
    }
    return false;
}

/// Each of triangles p and q (unit normals np, nq) has its corners within tol of the other's plane.
static bool near_planes(const mc_vec3 p[3], mc_vec3 np, const mc_vec3 q[3], mc_vec3 nq, double tol)
{
    for (int k = 0; k < 3; ++k)
    {
        if (fabs(mc_dot(nq, mc_sub(p[k], q[0]))) > tol || fabs(mc_dot(np, mc_sub(q[k], p[0]))) > tol)
        {
            return false;
        }
    }
    return true;
}

/// The exact coplanar pairs hold (g of body b, h of the other) (they are the exact rule's, left to it).
static bool is_coplanar_pair(const region_query* c, int b, uint32_t g, uint32_t h)
{
    uint64_t key = b == 0 ? (uint64_t)g << 32 | h : (uint64_t)h << 32 | g;
    uint32_t lo = 0, hi = c->coplanar_count;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2u;
        lo = c->coplanar[mid] < key ? mid + 1u : lo;
        hi = c->coplanar[mid] < key ? hi : mid;
    }
    return lo < c->coplanar_count && c->coplanar[lo] == key;
}

/// Face g of body b (unit normal ng), in pair k with face t of the other body: its near-flush faces h around t's
/// corners (planes parallel within NEAR_FLUSH_SIN), each taken once (at g's first pair whose ring holds h), their
/// pieces taken off b's vector area in pair k's region.
static void near_flush_face(region_query* c, int b, uint32_t g, mc_vec3 ng, uint32_t t, uint32_t k, double tol)
{
    struct mc_region_scratch* s = c->s;
    const uint32_t* tw = c->mesh[1 - b]->twin;
    // A near-flush face has every corner within tol of g's plane: a corner of t farther off (than 2 tol from the plane
    // through the pair's crossing point, on g's plane up to rounding) has none in its fan.
    mc_vec3 x0 = c->pairs[k].crossing[0].point, pg[3];
    bool corners = false;
    for (uint32_t e = 0; e < 3u; ++e)
    {
        mc_vec3 v = vpos_cut(c, 1 - b, c->mesh[1 - b]->indices[3u * t + e]); // t is in a pair: published
        if (fabs(mc_dot(ng, mc_sub(v, x0))) > 2.0 * tol)
        {
            continue;
        }
        if (!corners)
        {
            face_corners(c, b, g, pg);
            corners = true;
        }
        uint32_t he = 3u * t + e, n = 0;
        do
        {
            uint32_t h = he / 3u;
            he = tw[he_prev(he)];
            mc_vec3 nh = fnormal(c, 1 - b, h);
            mc_vec3 x = mc_cross(ng, nh);
            if (mc_dot(x, x) > NEAR_FLUSH_SIN * NEAR_FLUSH_SIN)
            {
                continue;
            }
            mc_vec3 ph[3];
            face_corners(c, 1 - b, h, ph);
            if (!near_planes(pg, ng, ph, nh, tol) || is_coplanar_pair(c, b, g, h))
            {
                continue;
            }
            double a2 = behind_area_x2(pg, ph, ng, nh);
            if (a2 == 0.0)
            {
                continue;
            }
            // Once per (g, h): not at an earlier corner of t, nor from an earlier pair of g.
            bool seen = false;
            for (uint32_t e2 = 0; e2 < e && !seen; ++e2)
            {
                uint32_t h2 = 3u * t + e2, n2 = 0;
                do
                {
                    seen |= h2 / 3u == h;
                    h2 = tw[he_prev(h2)];
                } while (h2 != 3u * t + e2 && ++n2 < RING_LIMIT);
            }
            uint32_t first = 0;
            const uint64_t* keys = NULL;
            uint32_t np = face_pairs(c, b, g, &first, &keys);
            if (np == UINT32_MAX)
            {
                c->oom = true;
                return;
            }
            for (uint32_t q = first; q < first + np && !seen; ++q)
            {
                uint32_t p = keys == NULL ? q : (uint32_t)keys[q];
                if (p >= k)
                {
                    break; // pair indices increase along the run
                }
                seen = ring_has(c, 1 - b, b == 0 ? c->pairs[p].j : c->pairs[p].i, h);
            }
            if (seen)
            {
                continue;
            }
            region_accumulator* r = &s->regions[s->node_region[2u * k]];
            r->area_x2[b] = mc_sub(r->area_x2[b], mc_scale(ng, a2));
        } while (he != 3u * t + e && ++n < RING_LIMIT);
    }
}

/// The near-flush tolerance of a query: NEAR_FLUSH_SIN times the sum of the two parts' sizes.
static double near_flush_tol(const region_query* c)
{
    double size = 0.0;
    for (int b = 0; b < 2; ++b)
    {
        mc_vec3 d = mc_sub(c->mesh[b]->report.bbox_max, c->mesh[b]->report.bbox_min);
        size += fmax(d.x, fmax(d.y, d.z));
    }
    return NEAR_FLUSH_SIN * size;
}

/// Take the near-flush pieces off the regions' vector areas (after the sums and apply_flush_entries): for each face g
/// of a pair and each face h of the other body around a corner of g's partner in the pair whose plane is parallel to
/// g's within NEAR_FLUSH_SIN (either orientation, not exactly coplanar with g: those are the exact rule's), the part
/// of g inside h's outline (seen along h's normal) and behind h's plane, off g's body's vector area in the pair's
/// region. A pure flush face (already without area) is skipped. Cost: a cross product per face around the corners of
/// each pair's two faces.
MC_FLAG_CLONES static void apply_near_flush(region_query* c)
{
    double tol = near_flush_tol(c);
    struct mc_region_scratch* s = c->s;
    if (s->near_ready)
    {
        // sum_pair_segments ran the filter below on every pair (the same operations): only its hits are left.
        for (uint32_t k = 0; k < s->near_count && !c->oom; ++k)
        {
            uint32_t p = s->near[k] >> 1;
            int b = (int)(s->near[k] & 1u);
            const mc_triangle_pair* pr = &c->pairs[p];
            uint32_t g = b == 0 ? pr->i : pr->j, t = b == 0 ? pr->j : pr->i;
            near_flush_face(c, b, g, fnormal(c, b, g), t, p, tol);
        }
        return;
    }
    const uint32_t* idx[2] = {c->mesh[0]->indices, c->mesh[1]->indices};
    for (uint32_t k = 0; k < c->pair_count && !c->oom; ++k)
    {
        const mc_triangle_pair* pr = &c->pairs[k];
        mc_vec3 x0 = pr->crossing[0].point;
        for (int b = 0; b < 2; ++b)
        {
            uint32_t g = b == 0 ? pr->i : pr->j, t = b == 0 ? pr->j : pr->i;
            if (flush_pure(c, b, g))
            {
                continue;
            }
            // near_flush_face's first test, inlined: it does nothing unless some corner of t is within 2 tol of g's
            // plane through x0 (the same operations, so the same decisions; most pairs stop here, without the call).
            mc_vec3 ng = fnormal(c, b, g);
            const uint32_t* tv = &idx[1 - b][3u * t];
            bool near = false;
            for (uint32_t e = 0; e < 3u; ++e)
            {
                near |= !(fabs(mc_dot(ng, mc_sub(vpos_cut(c, 1 - b, tv[e]), x0))) > 2.0 * tol);
            }
            if (near)
            {
                near_flush_face(c, b, g, ng, t, k, tol);
            }
        }
    }
}

/// region_boundary_node along one direction. On a float tie of the two meshes' first hits (faces not in one plane:
/// surfaces that coincide up to rounding), the nearer hit is the one inside the other solid: the ray runs inside both
/// solids up to the nearer hit, which is then inside the other solid, and leaves the nearer hit's solid there, which it
/// does not enter again before the farther hit (no other hit of that mesh near it: first_surface), so the farther hit
/// is outside it. So the hit that locates inside the other solid is taken (both: their region when it is one);
/// neither, or both in different regions: unclear.
static uint32_t boundary_node_along(region_query* c, mc_vec3 p, mc_vec3 d, int b, uint32_t skip)
{
    ray_hits h;
    if (!first_surface(c, p, d, b, skip, &h))
    {
        return MC_NONE;
    }
    if (h.body >= 0)
    {
        return node_at_hit(c, h.body, h.face[h.body], mc_mul_add(p, h.t[h.body], d));
    }
    uint32_t n0 = node_at_hit(c, 0, h.face[0], mc_mul_add(p, h.t[0], d));
    uint32_t n1 = node_at_hit(c, 1, h.face[1], mc_mul_add(p, h.t[1], d));
    if (n0 == MC_NONE || n1 == MC_NONE)
    {
        return n0 == MC_NONE ? n1 : n0;
    }
    return mc_uf_find(c->s->parent, n0) == mc_uf_find(c->s->parent, n1) ? n0 : MC_NONE;
}

#define RAY_TILTS 4 // directions tried per ray start: the given one, then three turned off it

/// The union-find node of the region whose boundary contains the point a ray from p along d first meets (p is a
/// point of the region's interior, on face `skip` of body b, and d points into solid b there): on a face entirely
/// inside the other solid, that face's node; on a face in some pair, the node of the piece of its inside part that
/// holds the hit (node_in_face). When the ray is unclear (it meets an edge or a vertex, as rays along the normals of
/// symmetric meshes do, or two surfaces at once), the same from p along directions turned off d by fixed angles of
/// about 20 degrees (any direction into solid b starts inside the intersection: the first surface it meets bounds
/// the same piece). MC_NONE when every direction is unclear.
static uint32_t region_boundary_node(region_query* c, mc_vec3 p, mc_vec3 d, int b, uint32_t skip)
{
    // Turns: fixed, unrelated to any mesh's symmetry (no simple ratios), each well inside the hemisphere around d.
    static const double turn[RAY_TILTS - 1][2] = {{0.3183, 0.1447}, {-0.2071, 0.2653}, {0.0907, -0.3390}};
    uint32_t node = boundary_node_along(c, p, d, b, skip);
    if (node != MC_NONE)
    {
        return node;
    }
    // An orthonormal pair across d, from the coordinate axis least along it.
    double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
    mc_vec3 axis = ax <= ay && ax <= az ? mc_v3(1, 0, 0) : (ay <= az ? mc_v3(0, 1, 0) : mc_v3(0, 0, 1));
    mc_vec3 u = mc_normalize(mc_cross(d, axis));
    mc_vec3 v = mc_cross(d, u);
    for (int k = 0; k < RAY_TILTS - 1 && node == MC_NONE; ++k)
    {
        mc_vec3 dk = mc_normalize(mc_add(d, mc_add(mc_scale(u, turn[k][0]), mc_scale(v, turn[k][1]))));
        node = boundary_node_along(c, p, dk, b, skip);
    }
    return node;
}

#define SHELL_TRIES 8 // segments of one region of negative volume tried as ray starts, per round
#define SHELL_ROUNDS 4

/// From the segment of pair p in the face of body b (its midpoint, an in-face step into the face's inside part, then
/// a ray into solid b, so through the intersection): the node of the region boundary the ray meets, MC_NONE when
/// unclear.
static uint32_t node_beyond_segment(region_query* c, uint32_t p, int b)
{
    const mc_triangle_pair* pr = &c->pairs[p];
    uint32_t g = b == 0 ? pr->i : pr->j, t = b == 0 ? pr->j : pr->i;
    mc_vec3 ng = fnormal(c, b, g), nt = fnormal(c, 1 - b, t);
    mc_vec3 mid = mc_scale(mc_add(pr->crossing[0].point, pr->crossing[1].point), 0.5);
    // In the face, the other solid is on the side of the segment opposite to its face's normal.
    mc_vec3 d = mc_normalize(mc_sub(mc_scale(ng, mc_dot(nt, ng)), nt));
    uint32_t node = MC_NONE;
    bool inside = false;
    double dist = 0.0;
    if (!(mc_dot(d, d) > 0.5) || !locate_in_face(c, b, g, mid, d, p, &node, &inside, &dist) || !inside)
    {
        return MC_NONE;
    }
    return region_boundary_node(c, mc_mul_add(mid, 0.5 * dist, d), mc_neg(ng), b, g);
}

/// From the corner of inside vertex v (half-edge h leaving it, in a face of some pair) of body b, in region `node`:
/// the face's centroid when an in-face ray from it towards the midpoint of h meets the boundary of the inside part
/// in that region (so the centroid lies in a piece of the region), then a ray into solid b. MC_NONE when unclear.
static uint32_t node_beyond_corner(region_query* c, int b, uint32_t h, uint32_t node)
{
    const struct mc_mesh* m = c->mesh[b];
    uint32_t f = h / 3u;
    mc_vec3 pv = vpos(c, b, m->indices[h]), pw = vpos(c, b, m->indices[he_next(h)]);
    mc_vec3 x = mc_scale(mc_add(mc_add(pv, pw), vpos(c, b, m->indices[he_prev(h)])), 1.0 / 3.0);
    mc_vec3 n = fnormal(c, b, f);
    mc_vec3 d = mc_sub(mc_scale(mc_add(pv, pw), 0.5), x);
    d = mc_normalize(mc_sub(d, mc_scale(n, mc_dot(d, n))));
    uint32_t found = MC_NONE;
    bool inside = false;
    double dist = 0.0;
    if (!(mc_dot(d, d) > 0.5) || !locate_in_face(c, b, f, x, d, MC_NONE, &found, &inside, &dist) || !inside ||
        mc_uf_find(c->s->parent, found) != mc_uf_find(c->s->parent, node))
    {
        return MC_NONE;
    }
    return region_boundary_node(c, x, mc_neg(n), b, f);
}

/// Try one ray start of region r (node `node`) found by node_beyond_segment or node_beyond_corner: join when it
/// meets another region.
static bool try_shell_join(region_query* c, region_accumulator* r, uint32_t node, uint32_t found)
{
    uint32_t* parent = c->s->parent;
    r->shell_tries--;
    if (found == MC_NONE || mc_uf_find(parent, found) == mc_uf_find(parent, node))
    {
        return false;
    }
    mc_uf_union(parent, found, node);
    r->shell_tries = 0u;
    r->shell_joined = true;
    return true;
}

/// From face f of body b lying entirely inside the other solid (its centroid, a ray into solid b): the node of the
/// region boundary the ray meets, MC_NONE when unclear.
static uint32_t node_beyond_whole_face(region_query* c, int b, uint32_t f)
{
    const uint32_t* tv = &c->mesh[b]->indices[3u * f];
    mc_vec3 x = mc_scale(mc_add(mc_add(vpos(c, b, tv[0]), vpos(c, b, tv[1])), vpos(c, b, tv[2])), 1.0 / 3.0);
    return region_boundary_node(c, x, mc_neg(fnormal(c, b, f)), b, f);
}

/// join_negative_regions, last starts: the faces of body b entirely inside the other solid (listed whole faces, then
/// the faces of inside blocks), for a shell in no pair whose first ray was unclear.
static bool join_from_whole_faces(region_query* c, int b)
{
    struct mc_region_scratch* s = c->s;
    const body_arrays* a = &s->body[b];
    bool joined = false;
    for (uint32_t k = 0; k < a->whole_count; ++k)
    {
        region_accumulator* r = &s->regions[s->node_region[a->whole[k].node]];
        if (r->shell_tries > 0u)
        {
            joined |= try_shell_join(c, r, a->whole[k].node, node_beyond_whole_face(c, b, a->whole[k].id));
        }
    }
    for (uint32_t k = 0; k < a->blist_count && c->blk[b] != NULL; ++k)
    {
        uint32_t bk = a->blist[k];
        const mc_block_topo* tp = &c->blk[b]->topo[bk];
        region_accumulator* r = &s->regions[s->node_region[a->bnode[bk]]];
        for (uint32_t t = 0; t < tp->tri_count && r->shell_tries > 0u; ++t)
        {
            uint32_t f = c->blk[b]->tris[tp->tri_first + t];
            joined |= try_shell_join(c, r, a->bnode[bk], node_beyond_whole_face(c, b, f));
        }
    }
    return joined;
}

/// Step 3 after the sums: a region of negative volume holds inner shells of a piece of the intersection only (the
/// boundary of a cavity, or of a hole around a handle: surface pieces that no crossing, inside vertex or edge joins
/// to the outer shell). A ray from it into the intersection meets the boundary of the same piece first, and that
/// point's node (located among the segments of the face it hits) joins it to the rest. Tried from the segments of
/// the region in pair order (a ray back onto the region itself, or an unclear one, tries the next). True when some
/// region was joined (the sums are then redone).
static bool join_negative_regions(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    bool joined = false, negative = false;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        s->regions[k].shell_tries = s->regions[k].out.volume < 0.0 ? SHELL_TRIES : 0u;
        s->regions[k].shell_joined = false;
        negative |= s->regions[k].shell_tries > 0u;
    }
    if (!negative)
    {
        return false; // every ray start below is tried only for a region of negative volume
    }
    for (uint32_t p = 0; p < c->pair_count && !c->oom; ++p)
    {
        region_accumulator* r = &s->regions[s->node_region[2u * p]];
        for (int b = 0; b < 2 && r->shell_tries > 0u; ++b)
        {
            joined |= try_shell_join(c, r, 2u * p, node_beyond_segment(c, p, b));
        }
    }
    // Then from the faces around the inside vertices of each body (a shell whose segments are all unclear: touching
    // ones; the corners of one body can all lie on the other surface).
    for (int b = 0; b < 2 && !c->oom; ++b)
    {
        for (uint32_t k = 0; k < s->region_count; ++k)
        {
            region_accumulator* r = &s->regions[k];
            r->shell_tries = r->out.volume < 0.0 && !r->shell_joined ? SHELL_TRIES : 0u;
        }
        const body_arrays* a = &s->body[b];
        for (uint32_t k = 0; k < a->corner_count; ++k)
        {
            region_accumulator* r = &s->regions[s->node_region[a->corner[k].node]];
            if (r->shell_tries > 0u)
            {
                uint32_t node = a->corner[k].node;
                joined |= try_shell_join(c, r, node, node_beyond_corner(c, b, a->corner[k].id, node));
            }
        }
    }
    // Last, from faces entirely inside (a shell in no pair whose first ray, in join_inner_shells, was unclear).
    for (int b = 0; b < 2 && !c->oom; ++b)
    {
        for (uint32_t k = 0; k < s->region_count; ++k)
        {
            region_accumulator* r = &s->regions[k];
            r->shell_tries = r->out.volume < 0.0 && !r->shell_joined ? SHELL_TRIES : 0u;
        }
        joined |= join_from_whole_faces(c, b);
    }
    return joined;
}
/// Step 3, last, after the rays: a region of negative volume V holds inner shells of one connected piece of the
/// intersection only (an outer shell has positive volume, and a region never spans two pieces), and the region that
/// holds that piece's outer shell has a volume above |V| (the outer shell's volume less the cavities in that region
/// exceeds the cavities in this one, since the piece's volume is positive). So when exactly one region's volume exceeds
/// |V|, this region belongs to it and is joined to it without a ray; with several candidates, or none, it stays. Both
/// comparisons keep a margin of 1e-9 of the regions' total |volume| against the sums' rounding. For shells whose rays
/// are unclear every way: surfaces that coincide up to rounding, where the crossing points along grazing edges carry
/// little of their exact positions and the in-face location reads nothing. True when some region was joined.
static bool join_by_volume(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    double total = 0.0;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        total += fabs(s->regions[k].out.volume);
    }
    double margin = 1e-9 * total;
    bool joined = false;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        double v = s->regions[k].out.volume;
        uint32_t found = MC_NONE, candidates = 0;
        for (uint32_t q = 0; q < s->region_count && v < -margin; ++q)
        {
            if (s->regions[q].out.volume > margin - v)
            {
                found = q;
                candidates++;
            }
        }
        if (candidates != 1u)
        {
            continue;
        }
        // A node of each region (node_region maps every node to its region since map_nodes_to_regions).
        uint32_t nk = MC_NONE, nq = MC_NONE;
        for (uint32_t n = 0; n < s->node_count && (nk == MC_NONE || nq == MC_NONE); ++n)
        {
            nk = nk == MC_NONE && s->node_region[n] == k ? n : nk;
            nq = nq == MC_NONE && s->node_region[n] == found ? n : nq;
        }
        if (nk != MC_NONE && nq != MC_NONE)
        {
            mc_uf_union(s->parent, nk, nq);
            joined = true;
        }
    }
    return joined;
}

/// Step 3 (rest): a component of a mesh that is in no triangle pair and lies inside the other solid with negative
/// volume (a cavity's shell, or a flipped mesh's shell) bounds a hole of some region, not a region of its own: the
/// region whose boundary a ray from the shell into the solid side meets first (the segment to that hit lies inside
/// both solids, so the hit is on the boundary of the same connected piece; region_boundary_node places it). Left
/// alone when the ray is unclear (float test: near an edge or a tie); join_negative_regions then tries again from
/// the region's other faces.
static void join_inner_shells(region_query* c)
{
    for (int b = 0; b < 2; ++b)
    {
        const struct mc_mesh* m = c->mesh[b];
        for (uint32_t k = 0; k < m->component_count; ++k)
        {
            if (c->s->body[b].cstamp[k] == c->epoch || !(m->component_volume[k] < 0.0))
            {
                continue;
            }
            uint32_t h = m->vertex_halfedge[m->component_vertex[k]];
            uint32_t f = h / 3u;
            uint32_t node = h == MC_NONE ? MC_NONE : inside_face_node(c, b, f);
            if (node == MC_NONE)
            {
                continue; // outside the other solid: no region
            }
            const uint32_t* tv = &m->indices[3u * f];
            mc_vec3 p = mc_scale(mc_add(mc_add(vpos(c, b, tv[0]), vpos(c, b, tv[1])), vpos(c, b, tv[2])), 1.0 / 3.0);
            c->coordinate_decision = true; // an inner shell joined by a ray
            uint32_t other = region_boundary_node(c, p, mc_neg(fnormal(c, b, f)), b, f);
            if (other != MC_NONE)
            {
                mc_uf_union(c->s->parent, node, other);
            }
        }
    }
}

/// mc_uf_find, without its loop when node's parent is a root (always after a restored plan, which keeps the roots).
static inline uint32_t node_root(uint32_t* parent, uint32_t node)
{
    uint32_t p = parent[node];
    return parent[p] == p ? p : mc_uf_find(parent, node);
}

/// The region of union-find node `node`, created (in creation order) when it has none and `create` is set. NULL: none,
/// or out of memory (c->oom).
static region_accumulator* region_of(region_query* c, uint32_t node, bool create)
{
    struct mc_region_scratch* s = c->s;
    uint32_t root = node_root(s->parent, node);
    if (s->node_region[root] == MC_NONE)
    {
        if (!create)
        {
            return NULL;
        }
        if (!mc_array_reserve((void**)&s->regions, &s->region_cap, (uint64_t)s->region_count + 1, sizeof *s->regions,
                              64))
        {
            c->oom = true;
            return NULL;
        }
        region_accumulator* r = &s->regions[s->region_count];
        memset(r, 0, sizeof *r);
        r->creation_order = s->region_count;
        r->all_degenerate = true;
        r->best[0] = r->best[1] = INFINITY;
        r->closest_face[0] = r->closest_face[1] = MC_NONE;
        r->block_bound[0] = r->block_bound[1] = INFINITY;
        r->ext_min = INFINITY;
        r->ext_max = -INFINITY;
        s->node_region[root] = s->region_count++;
    }
    return &s->regions[s->node_region[root]];
}

/// Prefetch the mesh data of crossing k + 8 (index, twin and normal lines) and k + 4 (vertex positions of body I, the
/// twin face's normal): the crossings of a query are scattered over the meshes, and the loops over them are short.
/// `faces` (a constant at each call): also the crossed face's normal and indices and the twin face's indices, which the
/// flags read and the edge terms of sum_crossing_edges do not.
static inline void prefetch_crossing(const region_query* c, const crossing_record* records, uint32_t n, uint32_t k,
                                     bool faces)
{
    if (k + 8u < n)
    {
        const crossing_record* x = &records[k + 8u];
        const struct mc_mesh* m = c->mesh[x->body];
        __builtin_prefetch(&m->indices[x->halfedge]);
        __builtin_prefetch(&m->twin[x->halfedge]);
        __builtin_prefetch(&m->face_normals[x->halfedge / 3u]);
        if (faces)
        {
            __builtin_prefetch(&c->mesh[1 - x->body]->face_normals[x->face]);
            __builtin_prefetch(&c->mesh[1 - x->body]->indices[3u * x->face]);
        }
    }
    if (k + 4u < n)
    {
        const crossing_record* x = &records[k + 4u];
        const struct mc_mesh* m = c->mesh[x->body];
        uint32_t tw = m->twin[x->halfedge];
        __builtin_prefetch(&m->face_normals[tw / 3u]);
        if (faces)
        {
            __builtin_prefetch(&m->indices[3u * (tw / 3u)]);
        }
        if (x->body == 0)
        {
            __builtin_prefetch(&m->positions[m->indices[x->halfedge]]);
            __builtin_prefetch(&m->positions[m->indices[he_next(x->halfedge)]]);
        }
    }
}

/// Store the closest point of a run of whole faces of body b (in b's frame) back into region r.
static inline void store_best(region_accumulator* r, int b, double best, mc_vec3 closest, uint32_t face)
{
    if (b == 0)
    {
        r->best[0] = best;
        r->closest[0] = closest;
        r->closest_face[0] = face;
    }
    else
    {
        r->j_best = best;
        r->j_closest = closest;
        r->j_closest_face = face;
    }
}

/// Terms of consecutive whole faces of one region, summed in locals.
typedef struct whole_run
{
    mc_vec3 o;             // origin of the sums (the region's origin in the faces' frame)
    double olen;           // 1-norm of the region's origin in I's frame (rounding sensitivity)
    bool need_sensitivity; // the region needs sensitivity_x6
    double volume_x6, sensitivity_x6;
    mc_vec3 moment_x24, area_x2;
    uint32_t term_count;
} whole_run;

/// Add terms of whole faces of body b to region r: I's to the region's sums, J's to its sums in J's frame.
static inline void add_whole_sums(region_accumulator* r, int b, double volume_x6, mc_vec3 moment_x24, mc_vec3 area_x2)
{
    if (b == 0)
    {
        r->volume_x6 += volume_x6;
        r->moment_x24 = mc_add(r->moment_x24, moment_x24);
        r->area_x2[0] = mc_add(r->area_x2[0], area_x2);
    }
    else
    {
        r->j_volume_x6 += volume_x6;
        r->j_moment_x24 = mc_add(r->j_moment_x24, moment_x24);
        r->j_area_x2 = mc_add(r->j_area_x2, area_x2);
    }
}

/// Add a run of whole faces of body b to region r (only the counts without triangle terms) and restart the run.
static void flush_whole(region_accumulator* r, whole_run* run, int b, bool use)
{
    if (use && run->term_count > 0u)
    {
        add_whole_sums(r, b, run->volume_x6, run->moment_x24, run->area_x2);
        r->sensitivity_x6 += run->sensitivity_x6;
        r->term_count += run->term_count;
    }
    run->volume_x6 = run->sensitivity_x6 = 0.0;
    run->moment_x24 = run->area_x2 = mc_v3(0.0, 0.0, 0.0);
    run->term_count = 0;
}

/// True when inside vertex v of body b is counted by itself, false when it is counted with the inside block that owns
/// it (the block of the face of its vertex_halfedge, when that block has no face in a pair).
static inline bool vertex_listed(const region_query* c, int b, uint32_t v)
{
    const mc_region_blocks* blk = c->blk[b];
    if (blk == NULL)
    {
        return true;
    }
    uint32_t h = c->mesh[b]->vertex_halfedge[v];
    if (h == MC_NONE)
    {
        return true;
    }
    uint32_t k = blk->tri_block[h / 3u];
    return (c->s->body[b].btouch[k >> 6] >> (k & 63u)) & 1u;
}

/// Terms of the inside blocks of body b: the aggregated polynomials evaluated at the region's origin, or per face when
/// the region needs its rounding sensitivity (exact touching test) or the pure flag sums are asked for.
static void add_blocks(region_query* c, int b, bool use)
{
    const mc_region_blocks* blk = c->blk[b];
    const body_arrays* a = &c->s->body[b];
    const struct mc_mesh* m = c->mesh[b];
    region_accumulator* regs = c->s->regions;
    const uint32_t* node_region = c->s->node_region;
    for (uint32_t i = 0; i < a->blist_count; ++i)
    {
        uint32_t k = a->blist[i];
        region_accumulator* r = &regs[node_region[a->bnode[k]]];
        const mc_block_topo* tp = &blk->topo[k];
        const uint32_t* tris = blk->tris + tp->tri_first;
        if (!use)
        {
            for (uint32_t t = 0; t < tp->tri_count; ++t)
            {
                for (uint32_t j = 0; j < 3u; ++j)
                {
                    add_corner_flags(c, r, b, 3u * tris[t] + j);
                }
            }
            continue;
        }
        if (r->need_sensitivity)
        {
            whole_run run;
            memset(&run, 0, sizeof run);
            run.o = b == 0 ? r->origin : r->origin_j;
            run.olen = norm1(r->origin);
            double plane[4];
            for (uint32_t t = 0; t < tp->tri_count; ++t)
            {
                add_triangle_raw(m->positions, m->indices, tris[t], run.o, run.olen, &run.volume_x6, &run.moment_x24,
                                 &run.area_x2, &run.sensitivity_x6, true, plane, !flush_pure(c, b, tris[t]));
                run.term_count++;
            }
            flush_whole(r, &run, b, true);
            continue;
        }
        const mc_block_sums* bs = &blk->sums[k];
        mc_vec3 o = mc_sub(b == 0 ? r->origin : r->origin_j, bs->center);
        double os = mc_dot(o, bs->s2);
        double volume_x6 = bs->d6 - os;
        mc_vec3 mo =
            mc_v3(bs->m[0] * o.x + bs->m[1] * o.y + bs->m[2] * o.z, bs->m[3] * o.x + bs->m[4] * o.y + bs->m[5] * o.z,
                  bs->m[6] * o.x + bs->m[7] * o.y + bs->m[8] * o.z);
        mc_vec3 mom = mc_sub(mc_mul_add(bs->p24, 3.0 * (os - bs->d6), o), mo);
        add_whole_sums(r, b, volume_x6, mom, bs->s2);
        r->term_count += tp->tri_count;
    }
}

/// Adams depth, inside blocks of body b (in b's frame): the nearest far side of a block's bounding sphere bounds the
/// distance from the centroid to the region's part of the surface from above (block_bound), which prunes before any
/// face is seen; the minimum over the faces is exact either way.
static void block_bounds(region_query* c, int b)
{
    const mc_region_blocks* blk = c->blk[b];
    const body_arrays* a = &c->s->body[b];
    region_accumulator* regs = c->s->regions;
    const uint32_t* node_region = c->s->node_region;
    for (uint32_t i = 0; i < a->blist_count; ++i)
    {
        uint32_t k = a->blist[i];
        region_accumulator* r = &regs[node_region[a->bnode[k]]];
        const mc_block_sums* bs = &blk->sums[k];
        double d = mc_length(mc_sub(b == 0 ? r->out.centroid : r->centroid_j, bs->center)) + bs->radius;
        r->block_bound[b] = min2(r->block_bound[b], d * d);
    }
}

/// The faces of the inside blocks of body b that can hold the closest point (after block_bounds): a block whose
/// bounding sphere is farther from the centroid than the best distance so far is skipped whole.
static void block_depth(region_query* c, int b)
{
    const mc_region_blocks* blk = c->blk[b];
    const body_arrays* a = &c->s->body[b];
    const struct mc_mesh* m = c->mesh[b];
    region_accumulator* regs = c->s->regions;
    const uint32_t* node_region = c->s->node_region;
    for (uint32_t i = 0; i < a->blist_count; ++i)
    {
        uint32_t k = a->blist[i];
        region_accumulator* r = &regs[node_region[a->bnode[k]]];
        const mc_block_sums* bs = &blk->sums[k];
        mc_vec3 p = b == 0 ? r->out.centroid : r->centroid_j;
        double* best = b == 0 ? &r->best[0] : &r->j_best;
        mc_vec3* closest = b == 0 ? &r->closest[0] : &r->j_closest;
        uint32_t* face = b == 0 ? &r->closest_face[0] : &r->j_closest_face;
        double lb = mc_length(mc_sub(p, bs->center)) - bs->radius;
        if (lb > 0.0 && lb * lb >= min2(*best, r->block_bound[b]) * (1.0 + 1e-12))
        {
            continue;
        }
        const mc_block_topo* tp = &blk->topo[k];
        for (uint32_t t = 0; t < tp->tri_count; ++t)
        {
            uint32_t f = blk->tris[tp->tri_first + t];
            const uint32_t* tv = &m->indices[3u * f];
            mc_vec3 pa = m->positions[tv[0]];
            double plane = mc_dot(m->face_normals[f], mc_sub(p, pa));
            if (plane * plane >= min2(*best, r->block_bound[b]) * (1.0 + 1e-12))
            {
                continue; // the plane's distance is a lower bound of the face's distance
            }
            mc_vec3 q = mc_closest_on_triangle(p, pa, m->positions[tv[1]], m->positions[tv[2]]);
            mc_vec3 dq = mc_sub(q, p);
            double d2 = mc_dot(dq, dq);
            if (d2 < *best)
            {
                *best = d2;
                *closest = q;
                *face = f;
            }
        }
    }
}

/// Step 3, regions of the crossings: one region per union-find set, created in the order of the first crossing record
/// of each set (deterministic); counts the crossings and sums their points (the region's origin).
static bool regions_from_crossings(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->record_count && !c->oom; ++k)
    {
        uint32_t ri = s->node_region[node_root(s->parent, s->records[k].occurrence)];
        region_accumulator* r = ri != MC_NONE ? &s->regions[ri] : region_of(c, s->records[k].occurrence, true);
        if (r == NULL)
        {
            return false;
        }
        r->crossing_count++;
        r->crossing_sum = mc_add(r->crossing_sum, s->records[k].point);
        r->all_degenerate = r->all_degenerate && s->records[k].degenerate;
    }
    return true;
}

/// Step 3, regions of the listed inside vertices of body b (after the crossings' regions): counts them, and sums
/// their positions for a region without crossings (its origin).
static bool regions_from_inside_vertices(region_query* c, int b)
{
    struct mc_region_scratch* s = c->s;
    const body_arrays* a = &s->body[b];
    uint32_t last_node = MC_NONE, last_region = 0; // consecutive inside vertices mostly share their node
    const uint32_t* listed = c->listed[b];
    for (uint32_t k = 0; k < a->inside_count; ++k)
    {
        if (listed != NULL ? !((listed[k >> 5] >> (k & 31u)) & 1u) : !vertex_listed(c, b, a->inside[k]))
        {
            continue; // counted with its block
        }
        uint32_t node = a->vnode[a->inside[k]];
        region_accumulator* r;
        if (node == last_node)
        {
            r = &s->regions[last_region];
        }
        else
        {
            r = region_of(c, node, true);
            if (r == NULL)
            {
                return false;
            }
            last_node = node;
            last_region = (uint32_t)(r - s->regions);
        }
        r->inside_vertex_count++;
        s->inside_total++;
        if (r->crossing_count == 0)
        {
            r->vertex_sum = mc_add(r->vertex_sum, vpos(c, b, a->inside[k]));
        }
    }
    return true;
}

/// Step 3, regions of the inside blocks of body b: counts their vertices and, for a region without crossings, adds
/// their aggregated vertex sums (mapped into I's frame for J).
static bool regions_from_blocks(region_query* c, int b)
{
    struct mc_region_scratch* s = c->s;
    const body_arrays* a = &s->body[b];
    for (uint32_t k = 0; k < a->blist_count && c->blk[b] != NULL; ++k)
    {
        uint32_t bk = a->blist[k];
        region_accumulator* r = region_of(c, a->bnode[bk], true);
        if (r == NULL)
        {
            return false;
        }
        uint32_t n = c->blk[b]->topo[bk].vert_count;
        r->inside_vertex_count += n;
        s->inside_total += n;
        if (r->crossing_count == 0)
        {
            mc_vec3 vs = c->blk[b]->sums[bk].vsum;
            r->vertex_sum = mc_add(
                r->vertex_sum, b == 0 ? vs : mc_add(mc_mat33_mul_vec(&c->rot_j, vs), mc_scale(c->trans_j, (double)n)));
        }
    }
    return true;
}

/// Step 3, all regions in a deterministic order: by first crossing record, then by inside vertices and blocks (I,
/// then J). False when out of memory (c->oom is set).
static bool create_regions(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    if (!mc_array_reserve((void**)&s->node_region, &s->node_region_cap, s->node_count, sizeof *s->node_region, 64))
    {
        c->oom = true;
        return false;
    }
    if (s->node_count > 0)
    {
        memset(s->node_region, 0xFF, (size_t)s->node_count * sizeof *s->node_region);
    }
    if (!regions_from_crossings(c))
    {
        return false;
    }
    for (int b = 0; b < 2 && !c->oom; ++b)
    {
        if (!regions_from_inside_vertices(c, b) || !regions_from_blocks(c, b))
        {
            return false;
        }
    }
    return true;
}

/// Step 4, origins: each region's local origin (mean of its crossing points, or of its inside vertices when it has
/// none), that origin in J's frame, and whether the region needs its rounding sensitivity (touching test).
static void set_origins(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        region_accumulator* r = &s->regions[k];
        r->origin = r->crossing_count > 0 ? mc_scale(r->crossing_sum, 1.0 / r->crossing_count)
                                          : mc_scale(r->vertex_sum, 1.0 / r->inside_vertex_count);
        r->origin_j = mc_mat33_tmul_vec(&c->rot_j, mc_sub(r->origin, c->trans_j));
        r->j_best = INFINITY;
        r->j_closest_face = MC_NONE;
        r->need_sensitivity = r->crossing_count > 0 && r->all_degenerate; // the only regions the touching test looks at
    }
}

/// Step 4, node map: the region of every union-find node (roots are the smallest index of their set, so they are
/// resolved first).
static void map_nodes_to_regions(struct mc_region_scratch* s)
{
    for (uint32_t k = 0; k < s->node_count; ++k)
    {
        s->node_region[k] = s->node_region[node_root(s->parent, k)];
    }
}

/// Step 4, crossing sums: the six flags of every crossing, added to its region in crossing-record order.
static void sum_crossing_flags(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        prefetch_crossing(c, s->records, s->record_count, k, true);
        add_crossing_flags(c, &s->regions[s->node_region[s->records[k].occurrence]], &s->records[k]);
    }
}

/// Step 4, crossing sums with triangle terms: the two edge terms of every crossing record, in record order: on
/// canonical half-edge p0 -> p1 of face f1 (twin p1 -> p0 in face f2), f1 gets the segment (p0, x) with sign -entering
/// and f2 the segment (p1, x) with sign +entering. The inside intervals of an edge are then summed without ordering its
/// crossings along it (no float decision): each interval [a, b] of half-edge v -> w is segment (v, b) minus segment
/// (v, a).
MC_FLAG_CLONES static void sum_crossing_edges(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    seg_run run;
    seg_run_start(&run);
    const seg_rot rot = seg_rot_of(&c->rot_j);
    const uint8_t* const marks[2] = {flush_marks(c, 0), flush_marks(c, 1)};
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        prefetch_crossing(c, s->records, s->record_count, k, false);
        const crossing_record* x = &s->records[k];
        seg_run_at(s, &run, s->node_region[x->occurrence]);
        int b = x->body;
        const struct mc_mesh* m = c->mesh[b];
        uint32_t f1 = x->halfedge / 3u, f2 = m->twin[x->halfedge] / 3u;
        seg_v4 o = run.o;
        seg_v4 xo = v4_of(x->point) - o;
        seg_v4 p0 = seg_point(c, b, m->indices[x->halfedge], &o);
        seg_v4 p1 = seg_point(c, b, m->indices[he_next(x->halfedge)], &o);
        double ent = (double)x->entering;
        seg_v4 n1 = seg_normal(c, &rot, b, f1), n2 = seg_normal(c, &rot, b, f2);
        seg_v4 q1, q2;
        double h1 = face_height(c, b, f1, &n1, &o, &q1), h2 = face_height(c, b, f2, &n2, &o, &q2);
        seg_v4 c0 = v4_cross(&p0, &xo), c1 = v4_cross(&p1, &xo);
        double s1 = seg_term(&run, b, &n1, h1, &p0, &xo, &c0, -ent, area_of(marks[b], f1));
        double s2b = seg_term(&run, b, &n2, h2, &p1, &xo, &c1, ent, area_of(marks[b], f2));
        run.terms += 2u;
        if (run.need_sensitivity)
        {
            double olen = v4_norm1(&o);
            s->regions[run.region].sensitivity_x6 +=
                seg_sensitivity(s1, h1, &q1, &p0, &xo, olen) + seg_sensitivity(s2b, h2, &q2, &p1, &xo, olen);
        }
    }
    seg_run_flush(s, &run);
}

/// Step 4, with triangle terms: the segment of every intersecting triangle pair (f of I, t of J), in pair order: a
/// crossing of an edge of face g (f or t) is the end of g's traversal of the segment when it enters along g's own
/// half-edge (the pair's `entering`), else its start; f runs from start to end, t the other way (t's start is f's end).
/// Exact combinatorics, no float decision. Both terms go to the region of the pair's nodes.
MC_FLAG_CLONES static void sum_pair_segments(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    seg_run run;
    seg_run_start(&run);
    const seg_rot rot = seg_rot_of(&c->rot_j);
    const uint8_t* const marks[2] = {flush_marks(c, 0), flush_marks(c, 1)};
    // The pairs come sorted by f: consecutive pairs of one f and one region share f's normal and height (the same
    // operations on the same values: kept from the first pair of the run).
    uint32_t last_f = MC_NONE, last_region = MC_NONE;
    seg_v4 nf = v4_splat(0.0), qf = nf;
    double hf = 0.0;
    bool area_f = true;
    // apply_near_flush's filter, on the normals this loop has: per pair and side, whether a corner of the other face
    // lies within 2 tol of the face's plane through the first crossing point (not for a pure flush face).
    const double tol2 = 2.0 * near_flush_tol(c);
    const uint32_t* idx[2] = {c->mesh[0]->indices, c->mesh[1]->indices};
    s->near_count = 0;
    s->near_ready = true;
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        const mc_triangle_pair* pr = &c->pairs[p];
        seg_run_at(s, &run, s->node_region[2u * p]);
        const mc_crossing* x0 = &pr->crossing[0];
        const mc_crossing* x1 = &pr->crossing[1];
        bool end0 = (x0->body == 0) == (x0->entering > 0); // slot 0 ends f's traversal
        MC_ASSERT(end0 != ((x1->body == 0) == (x1->entering > 0)));
        seg_v4 o = run.o;
        seg_v4 a = v4_of(end0 ? x1->point : x0->point) - o, b = v4_of(end0 ? x0->point : x1->point) - o;
        seg_v4 cr = v4_cross(&a, &b);
        if (pr->i != last_f || run.region != last_region)
        {
            nf = seg_normal(c, &rot, 0, pr->i);
            hf = face_height(c, 0, pr->i, &nf, &o, &qf);
            area_f = area_of(marks[0], pr->i);
            last_f = pr->i;
            last_region = run.region;
        }
        seg_v4 nt = seg_normal(c, &rot, 1, pr->j);
        seg_v4 qt;
        double ht = face_height(c, 1, pr->j, &nt, &o, &qt);
        bool area_t = area_of(marks[1], pr->j);
        double s1 = seg_term(&run, 0, &nf, hf, &a, &b, &cr, 1.0, area_f);
        double s2 = seg_term(&run, 1, &nt, ht, &a, &b, &cr, -1.0, area_t);
        const seg_v4 xn = v4_of(pr->crossing[0].point);
        for (int side = 0; side < 2; ++side)
        {
            // Side 0: I's face against J's corners; side 1: J's face (normal nt, as fnormal gives it) against I's.
            if (!(side == 0 ? area_f : area_t))
            {
                continue; // a pure flush face
            }
            const seg_v4* ng = side == 0 ? &nf : &nt;
            const uint32_t* tv = &idx[1 - side][3u * (side == 0 ? pr->j : pr->i)];
            // The three corners in lanes 0-2 (lane 3 repeats lane 2, unused): lane e is mc_dot(ng, mc_sub(corner e,
            // x0)) (same operations, same order); near unless every |value| > tol2 (NaN: near, as !(fabs > tol2) is).
            mc_vec3 v[3] = {vpos_cut(c, 1 - side, tv[0]), vpos_cut(c, 1 - side, tv[1]), vpos_cut(c, 1 - side, tv[2])};
            seg_v4 vx = {v[0].x, v[1].x, v[2].x, v[2].x}, vy = {v[0].y, v[1].y, v[2].y, v[2].y},
                   vz = {v[0].z, v[1].z, v[2].z, v[2].z};
            seg_v4 dot = (SEG_SHUFFLE(*ng, 0, 0, 0, 0) * (vx - SEG_SHUFFLE(xn, 0, 0, 0, 0)) +
                          SEG_SHUFFLE(*ng, 1, 1, 1, 1) * (vy - SEG_SHUFFLE(xn, 1, 1, 1, 1))) +
                         SEG_SHUFFLE(*ng, 2, 2, 2, 2) * (vz - SEG_SHUFFLE(xn, 2, 2, 2, 2));
            bool near = !(fabs(dot[0]) > tol2) | !(fabs(dot[1]) > tol2) | !(fabs(dot[2]) > tol2);
            if (near)
            {
                if (s->near_count == s->near_cap &&
                    !mc_array_reserve((void**)&s->near, &s->near_cap, (uint64_t)s->near_count + 1u, sizeof *s->near,
                                      16))
                {
                    c->oom = true;
                    s->near_ready = false;
                    break;
                }
                s->near[s->near_count++] = 2u * p + (uint32_t)side;
            }
        }
        run.terms += 2u;
        if (run.need_sensitivity)
        {
            double olen = v4_norm1(&o);
            s->regions[run.region].sensitivity_x6 +=
                seg_sensitivity(s1, hf, &qf, &a, &b, olen) + seg_sensitivity(s2, ht, &qt, &a, &b, olen);
        }
    }
    seg_run_flush(s, &run);
}

/// Step 4, with triangle terms: the corner term of every half-edge h leaving an inside vertex v in a cut face of body b
/// (corner list order): the previous half-edge u -> v ends inside, so it adds its whole segment (u, v) (its crossings
/// add theirs in sum_crossing_edges).
MC_FLAG_CLONES static void sum_corner_segments(region_query* c, int b)
{
    struct mc_region_scratch* s = c->s;
    seg_run run;
    seg_run_start(&run);
    const body_arrays* ar = &s->body[b];
    const struct mc_mesh* m = c->mesh[b];
    const seg_rot rot = seg_rot_of(&c->rot_j);
    const uint8_t* const marks = flush_marks(c, b);
    for (uint32_t k = 0; k < ar->corner_count; ++k)
    {
        uint32_t h = ar->corner[k].id;
        seg_run_at(s, &run, s->node_region[ar->corner[k].node]);
        seg_v4 o = run.o;
        seg_v4 pv = seg_point(c, b, m->indices[h], &o);
        seg_v4 pu = seg_point(c, b, m->indices[he_prev(h)], &o);
        seg_v4 n = seg_normal(c, &rot, b, h / 3u);
        seg_v4 q;
        double hv = face_height(c, b, h / 3u, &n, &o, &q);
        seg_v4 cr = v4_cross(&pu, &pv);
        double s1 = seg_term(&run, b, &n, hv, &pu, &pv, &cr, 1.0, area_of(marks, h / 3u));
        run.terms++;
        if (run.need_sensitivity)
        {
            s->regions[run.region].sensitivity_x6 += seg_sensitivity(s1, hv, &q, &pu, &pv, v4_norm1(&o));
        }
    }
    seg_run_flush(s, &run);
}

/// Step 4, whole faces of body b: their divergence terms (added to the regions only with triangle terms) and, always,
/// their plane records for the depth. The faces come in flood order, scattered over the mesh arrays: prefetch a few
/// faces ahead. Consecutive faces mostly belong to one region: their terms are summed in locals (a run) and added to
/// the region when it changes.
static void sum_whole_faces(region_query* c, int b, bool use)
{
    struct mc_region_scratch* s = c->s;
    const body_arrays* a = &s->body[b];
    const struct mc_mesh* m = c->mesh[b];
    region_accumulator* regs = s->regions;
    const uint32_t* node_region = s->node_region;
    double* plane = a->plane;
    const uint32_t* fidx = m->indices;
    const mc_vec3* fpos = m->positions;
    const uint8_t* const marks = flush_marks(c, b);
    whole_run run;
    memset(&run, 0, sizeof run);
    uint32_t cur = MC_NONE;
    for (uint32_t k = 0; k < a->whole_count; ++k)
    {
        if (k + 16u < a->whole_count)
        {
            __builtin_prefetch(&fidx[3u * a->whole[k + 16u].id]);
        }
        if (k + 8u < a->whole_count)
        {
            const uint32_t* t = &fidx[3u * a->whole[k + 8u].id];
            __builtin_prefetch(&fpos[t[0]]);
            __builtin_prefetch(&fpos[t[1]]);
            __builtin_prefetch(&fpos[t[2]]);
        }
        uint32_t ri = node_region[a->whole[k].node];
        if (ri != cur)
        {
            if (cur != MC_NONE)
            {
                flush_whole(&regs[cur], &run, b, use);
            }
            cur = ri;
            const region_accumulator* r = &regs[ri];
            run.o = b == 0 ? r->origin : r->origin_j;
            run.olen = norm1(r->origin);
            run.need_sensitivity = r->need_sensitivity;
        }
        add_triangle_raw(fpos, fidx, a->whole[k].id, run.o, run.olen, &run.volume_x6, &run.moment_x24, &run.area_x2,
                         &run.sensitivity_x6, run.need_sensitivity, plane + 4u * k, area_of(marks, a->whole[k].id));
        run.term_count++;
    }
    if (cur != MC_NONE)
    {
        flush_whole(&regs[cur], &run, b, use);
    }
}

/// Step 4, sums of body b after the crossings: whole faces (or, without triangle terms, their six flags each from
/// their three inside vertices), the corner flags of inside vertices in faces of some pair, then the inside blocks.
/// False when out of memory (c->oom is set).
static bool sum_body(region_query* c, int b, const mc_region_options* opt)
{
    struct mc_region_scratch* s = c->s;
    body_arrays* a = &s->body[b];
    if (!mc_array_reserve((void**)&a->plane, &a->plane_cap, 4ull * a->whole_count, sizeof(double), 64))
    {
        c->oom = true;
        return false;
    }
    sum_whole_faces(c, b, opt->triangle_terms);
    region_accumulator* regs = s->regions;
    const uint32_t* node_region = s->node_region;
    for (uint32_t k = 0; k < a->whole_count && !opt->triangle_terms; ++k)
    {
        for (uint32_t j = 0; j < 3u; ++j)
        {
            add_corner_flags(c, &regs[node_region[a->whole[k].node]], b, 3u * a->whole[k].id + j);
        }
    }
    if (opt->triangle_terms)
    {
        sum_corner_segments(c, b);
    }
    for (uint32_t k = 0; k < a->corner_count && !opt->triangle_terms; ++k)
    {
        add_corner_flags(c, &regs[node_region[a->corner[k].node]], b, a->corner[k].id);
    }
    if (c->blk[b] != NULL)
    {
        add_blocks(c, b, opt->triangle_terms);
    }
    return true;
}

/// Step 4, J's whole faces: their sums (J's frame) rotated back into I's frame and added once per region.
static void add_j_whole_sums(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        region_accumulator* r = &s->regions[k];
        r->volume_x6 += r->j_volume_x6;
        r->moment_x24 = mc_add(r->moment_x24, mc_mat33_mul_vec(&c->rot_j, r->j_moment_x24));
        r->area_x2[1] = mc_add(r->area_x2[1], mc_mat33_mul_vec(&c->rot_j, r->j_area_x2));
    }
}

/// Step 4, derived quantities of every region: volume, centroid, vector areas, area, radius, normal and counts.
static void derive_region_quantities(struct mc_region_scratch* s)
{
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        region_accumulator* r = &s->regions[k];
        mc_region* o = &r->out;
        memset(o, 0, sizeof *o);
        o->volume = r->volume_x6 / 6.0;
        o->centroid =
            o->volume != 0.0 ? mc_add(r->origin, mc_scale(r->moment_x24, 1.0 / (24.0 * o->volume))) : r->origin;
        o->s_i = mc_scale(r->area_x2[0], 0.5);
        o->s_j = mc_scale(r->area_x2[1], 0.5);
        o->area = mc_length_scaled(o->s_i); // |S_I| of a tiny mesh: its square can underflow (as the normal's)
        o->radius = sqrt(o->area / MC_PI);
        o->normal = mc_normalize(o->s_i);
        o->crossings = r->crossing_count;
        o->inside_vertices = r->inside_vertex_count;
    }
}

/// Step 5 (Adams), first bound: inside vertices are points of the region's surface parts, so the nearest one bounds
/// the distance from above and makes the plane bound reject almost every whole face at once (faces come in flood
/// order, often sorted by decreasing distance). Every 4th vertex is enough for a good bound (the bound only prunes;
/// the result is the exact minimum over the faces either way).
static void depth_from_inside_vertices(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    region_accumulator* regs = s->regions;
    const uint32_t* node_region = s->node_region;
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        const mc_vec3* pos = c->mesh[b]->positions;
        for (uint32_t k = 0; k < a->inside_count; k += 4u)
        {
            uint32_t v = a->inside[k];
            region_accumulator* r = &regs[node_region[a->vnode[v]]];
            mc_vec3 d = mc_sub(pos[v], b == 0 ? r->out.centroid : r->centroid_j);
            double d2 = mc_dot(d, d);
            double* best = b == 0 ? &r->best[0] : &r->j_best;
            if (d2 < *best)
            {
                *best = d2;
                if (b == 0)
                {
                    r->closest[0] = pos[v];
                    r->closest_face[0] = MC_NONE;
                }
                else
                {
                    r->j_closest = pos[v];
                    r->j_closest_face = MC_NONE;
                }
            }
        }
    }
}

/// Offer face f of body b to region r (index ri) unless it was offered to r already. A repeated offer cannot change
/// the result: the face's distance is the same values computed again, its plane bound only meets lower thresholds
/// (best distances and bounds only decrease), and the strict `<` keeps the earlier equal point. `foffer`: body b's
/// marks, `want`: s->offer_base + 1 + ri (both kept by the callers' loops across the calls).
static inline void offer_face(const region_query* c, region_accumulator* r, uint32_t* foffer, uint32_t want, int b,
                              uint32_t f)
{
    if (foffer[f] != want)
    {
        foffer[f] = want;
        depth_candidate(c, r, b, f);
    }
}

/// Step 5 (Adams), the faces of the crossings: the two faces of the crossed edge and the crossed face, each offered
/// once per region (a face carries several crossings: about two thirds of the offers were repeats on the spheres).
__attribute__((always_inline)) static inline void depth_crossing_faces(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    uint32_t* foffer[2] = {s->body[0].foffer, s->body[1].foffer};
    const uint32_t base = s->offer_base + 1u;
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        const crossing_record* x = &s->records[k];
        uint32_t ri = s->node_region[x->occurrence];
        region_accumulator* r = &s->regions[ri];
        const struct mc_mesh* m = c->mesh[x->body];
        prefetch_crossing(c, s->records, s->record_count, k, true);
        int b = x->body;
        uint32_t want = base + ri;
        offer_face(c, r, foffer[b], want, b, x->halfedge / 3u);
        offer_face(c, r, foffer[b], want, b, m->twin[x->halfedge] / 3u);
        offer_face(c, r, foffer[1 - b], want, 1 - b, x->face);
    }
}

/// Depth-offer marks of a new query: the marks of earlier queries are all at most offer_base, so they never equal one
/// of this query's (nothing is cleared per query); when the counter would wrap, every mark is cleared once.
static void start_face_offers(struct mc_region_scratch* s)
{
    if (s->offer_base > UINT32_MAX - 1u - s->region_count)
    {
        for (int b = 0; b < 2; ++b)
        {
            if (s->body[b].foffer != NULL)
            {
                memset(s->body[b].foffer, 0, (size_t)s->body[b].focap * sizeof(uint32_t));
            }
        }
        s->offer_base = 0;
    }
}

/// Step 5 (Adams), the whole faces of body b (in b's frame, with their plane records), then the faces around its
/// inside vertices. Runs of consecutive faces of one region keep the region's point and best distance in locals.
__attribute__((always_inline)) static inline void depth_body_faces(region_query* c, int b)
{
    struct mc_region_scratch* s = c->s;
    region_accumulator* regs = s->regions;
    const uint32_t* node_region = s->node_region;
    const body_arrays* a = &s->body[b];
    const struct mc_mesh* m = c->mesh[b];
    const double* plane = a->plane;
    uint32_t* foffer = a->foffer;
    const uint32_t base = s->offer_base + 1u;
    uint32_t cur = MC_NONE;
    mc_vec3 p = mc_v3(0.0, 0.0, 0.0), p_rel = p, closest = p;
    double best = INFINITY, thr = INFINITY;
    uint32_t face = MC_NONE;
    for (uint32_t k = 0; k < a->whole_count; ++k)
    {
        uint32_t ri = node_region[a->whole[k].node];
        if (ri != cur)
        {
            if (cur != MC_NONE)
            {
                store_best(&regs[cur], b, best, closest, face);
            }
            cur = ri;
            const region_accumulator* r = &regs[ri];
            p = b == 0 ? r->out.centroid : r->centroid_j;
            p_rel = b == 0 ? mc_sub(r->out.centroid, r->origin) : mc_sub(r->centroid_j, r->origin_j);
            best = b == 0 ? r->best[0] : r->j_best;
            thr = b == 0 ? r->block_bound[0] : min2(r->block_bound[1], r->best[1]);
            closest = b == 0 ? r->closest[0] : r->j_closest;
            face = b == 0 ? r->closest_face[0] : r->j_closest_face;
        }
        depth_candidate_raw(m->positions, m->indices, plane + 4u * k, a->whole[k].id, p, p_rel, thr, &best, &closest,
                            &face);
    }
    if (cur != MC_NONE)
    {
        store_best(&regs[cur], b, best, closest, face);
    }
    for (uint32_t k = 0; k < a->corner_count; ++k)
    {
        uint32_t ri = node_region[a->corner[k].node];
        offer_face(c, &regs[ri], foffer, base + ri, b, a->corner[k].id / 3u);
    }
}

static void depth_hint_bounds(region_query* c);
static void depth_keep_hints(region_query* c);

/// Step 5 (Adams): the closest point of each surface part to the region's centroid. Bounds first (the closest faces
/// of the pair's last query, inside vertices, then blocks and the faces of the nearest ones), so that most faces after
/// them are rejected by their plane; then the crossings' faces, the whole and corner faces, and finally J's closest
/// point mapped into I's frame.
MC_FLAG_CLONES static void depth_adams(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    region_accumulator* regs = s->regions;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        regs[k].centroid_j = mc_mat33_tmul_vec(&c->rot_j, mc_sub(regs[k].out.centroid, c->trans_j));
    }
    depth_hint_bounds(c);
    depth_from_inside_vertices(c);
    for (int b = 0; b < 2; ++b)
    {
        if (c->blk[b] != NULL)
        {
            block_bounds(c, b);
            block_depth(c, b);
        }
    }
    start_face_offers(s);
    depth_crossing_faces(c);
    depth_body_faces(c, 0);
    depth_body_faces(c, 1);
    s->offer_base += s->region_count;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        region_accumulator* r = &regs[k];
        if (r->j_best < r->best[1])
        {
            r->best[1] = r->j_best;
            r->closest[1] = mc_add(mc_mat33_mul_vec(&c->rot_j, r->j_closest), c->trans_j);
            r->closest_face[1] = r->j_closest_face;
        }
    }
    depth_keep_hints(c);
}

/// Step 5 (extent): the range of the region's crossing points and inside vertices along its normal.
static void depth_extent(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    region_accumulator* regs = s->regions;
    const uint32_t* node_region = s->node_region;
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        extent_point(&regs[node_region[s->records[k].occurrence]], s->records[k].point);
    }
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        for (uint32_t k = 0; k < a->inside_count; ++k)
        {
            extent_point(&regs[node_region[a->vnode[a->inside[k]]]], vpos(c, b, a->inside[k]));
        }
        for (uint32_t k = 0; k < a->blist_count && c->blk[b] != NULL; ++k)
        {
            // The vertices of an inside block (each met once per face: harmless for a minimum and a maximum).
            uint32_t bk = a->blist[k];
            const mc_block_topo* tp = &c->blk[b]->topo[bk];
            region_accumulator* r = &regs[node_region[a->bnode[bk]]];
            for (uint32_t t = 0; t < tp->tri_count; ++t)
            {
                const uint32_t* tv = &c->mesh[b]->indices[3u * c->blk[b]->tris[tp->tri_first + t]];
                for (uint32_t j = 0; j < 3u; ++j)
                {
                    extent_point(r, vpos(c, b, tv[j]));
                }
            }
        }
    }
}

/// Step 5, output: the contact points on each surface (the centroid when none was found) and the depth by the
/// chosen method.
static void finish_depth(struct mc_region_scratch* s, mc_depth_method method)
{
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        region_accumulator* r = &s->regions[k];
        mc_region* o = &r->out;
        o->point_i = isfinite(r->best[0]) ? r->closest[0] : o->centroid;
        o->point_j = isfinite(r->best[1]) ? r->closest[1] : o->centroid;
        switch (method)
        {
        case MC_DEPTH_VOLUME_AREA:
            o->depth = o->area > 0.0 ? 2.0 * o->volume / o->area : 0.0;
            break;
        case MC_DEPTH_EXTENT:
            o->depth = (o->area > 0.0 && r->ext_max >= r->ext_min) ? r->ext_max - r->ext_min : 0.0;
            break;
        case MC_DEPTH_ADAMS:
        default:
            o->depth = mc_length(mc_sub(o->point_j, o->point_i));
            break;
        }
    }
}

/// Steps 3 (regions) to 5: regions, sums, derived quantities, depth. Stops early when out of memory (c->oom).
MC_FLAG_CLONES static void sum_regions(region_query* c, const mc_region_options* opt)
{
    if (!create_regions(c))
    {
        return;
    }
    set_origins(c);
    map_nodes_to_regions(c->s);
    if (opt->triangle_terms)
    {
        sum_crossing_edges(c);
        sum_pair_segments(c);
    }
    else
    {
        sum_crossing_flags(c);
    }
    for (int b = 0; b < 2; ++b)
    {
        if (!sum_body(c, b, opt))
        {
            return;
        }
    }
    add_j_whole_sums(c);
    apply_flush_entries(c, opt->triangle_terms);
    apply_near_flush(c);
    derive_region_quantities(c->s);
    if (opt->depth_method == MC_DEPTH_ADAMS || opt->depth_method == MC_DEPTH_SMOOTH)
    {
        depth_adams(c);
    }
    else if (opt->depth_method == MC_DEPTH_EXTENT)
    {
        depth_extent(c);
    }
    finish_depth(c->s, opt->depth_method);
}

static mc_status run_stage(region_query* c, const mc_region_options* opt, mc_region* out, uint32_t capacity,
                           uint32_t* count, mc_query_stats* stats);

// ---------------------------------------------------------------------------------------------------------------
// Derivatives (options.derivatives): the same sums in derivative form under a rigid motion of J, the region's
// combinatorics held fixed (region_derivative.c). I's flags and whole faces do not move: only the crossings, J's
// corner flags and J's whole faces and blocks (through G N^T, their origin polynomial's slope) contribute.

/// The two corner flags of J's half-edge h (leaving an inside vertex), in derivative form.
static void dsums_corner_j(const region_query* c, mc_region_dsums* d, const region_accumulator* r, uint32_t h)
{
    const struct mc_mesh* m = c->mesh[1];
    mc_region_dsums_corner_j(d, vpos(c, 1, m->indices[h]), vpos(c, 1, m->indices[he_next(h)]),
                             vpos(c, 1, m->indices[he_prev(h)]), fnormal(c, 1, h / 3u), r->origin);
}

/// J's whole faces and inside blocks: G N^T about origin_j (triangle terms), or their corner flags (without).
static void dsums_j_whole(region_query* c, const mc_region_options* opt)
{
    struct mc_region_scratch* s = c->s;
    const body_arrays* a = &s->body[1];
    const struct mc_mesh* m = c->mesh[1];
    for (uint32_t k = 0; k < a->whole_count; ++k)
    {
        uint32_t ri = s->node_region[a->whole[k].node];
        const region_accumulator* r = &s->regions[ri];
        const uint32_t* t = &m->indices[3u * a->whole[k].id];
        for (uint32_t j = 0; j < 3u && !opt->triangle_terms; ++j)
        {
            dsums_corner_j(c, &s->dsums[ri], r, 3u * a->whole[k].id + j);
        }
        if (opt->triangle_terms)
        {
            mc_region_dsums_j_triangle(&s->dsums[ri], mc_sub(m->positions[t[0]], r->origin_j),
                                       mc_sub(m->positions[t[1]], r->origin_j),
                                       mc_sub(m->positions[t[2]], r->origin_j));
        }
    }
    const mc_region_blocks* blk = c->blk[1];
    for (uint32_t i = 0; blk != NULL && i < a->blist_count; ++i)
    {
        uint32_t k = a->blist[i];
        uint32_t ri = s->node_region[a->bnode[k]];
        const region_accumulator* r = &s->regions[ri];
        const mc_block_sums* bs = &blk->sums[k];
        if (opt->triangle_terms)
        {
            mc_region_dsums_j_block(&s->dsums[ri], bs->m, bs->s2, mc_sub(r->origin_j, bs->center));
            continue;
        }
        const mc_block_topo* tp = &blk->topo[k];
        for (uint32_t t = 0; t < tp->tri_count; ++t)
        {
            for (uint32_t j = 0; j < 3u; ++j)
            {
                dsums_corner_j(c, &s->dsums[ri], r, 3u * blk->tris[tp->tri_first + t] + j);
            }
        }
    }
}

/// The feature of the closest point of surface b of region r (Adams depth), I's frame.
static mc_closest_feature closest_feature(const region_query* c, const region_accumulator* r, int b)
{
    mc_closest_feature f;
    memset(&f, 0, sizeof f);
    f.point = r->closest[b];
    uint32_t face = r->closest_face[b];
    if (face != MC_NONE)
    {
        const uint32_t* t = &c->mesh[b]->indices[3u * face];
        mc_closest_feature g =
            mc_closest_feature_on_triangle(r->out.centroid, vpos(c, b, t[0]), vpos(c, b, t[1]), vpos(c, b, t[2]));
        f.kind = g.kind;
        f.axis = g.axis;
    }
    return f;
}

/// Offer vertex v of body b to the extent of region ri (derivative form).
static void dsums_extent_vertex(region_query* c, int b, uint32_t v, uint32_t ri)
{
    mc_vec3 x = vpos(c, b, v);
    mc_dvec dx = b == 1 ? mc_dvec_point_j(x) : mc_dvec_fixed(x);
    mc_region_dsums_extent_point(&c->s->dsums[ri], &dx, mc_dot(c->s->regions[ri].out.normal, x));
}

/// Extent depth: the extreme points along each region's normal, offered in depth_extent's order (the same choice).
static void dsums_extent(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        s->dsums[k].ext_t[0] = INFINITY;
        s->dsums[k].ext_t[1] = -INFINITY;
    }
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        const crossing_record* x = &s->records[k];
        uint32_t ri = s->node_region[x->occurrence];
        const struct mc_mesh* m = c->mesh[x->body];
        mc_dvec dx = mc_region_crossing_point(x->body, x->point, vpos(c, x->body, m->indices[x->halfedge]),
                                              vpos(c, x->body, m->indices[he_next(x->halfedge)]),
                                              fnormal(c, 1 - x->body, x->face));
        mc_region_dsums_extent_point(&s->dsums[ri], &dx, mc_dot(s->regions[ri].out.normal, x->point));
    }
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        for (uint32_t k = 0; k < a->inside_count; ++k)
        {
            dsums_extent_vertex(c, b, a->inside[k], s->node_region[a->vnode[a->inside[k]]]);
        }
        for (uint32_t k = 0; k < a->blist_count && c->blk[b] != NULL; ++k)
        {
            uint32_t bk = a->blist[k];
            const mc_block_topo* tp = &c->blk[b]->topo[bk];
            for (uint32_t t = 0; t < tp->tri_count; ++t)
            {
                const uint32_t* tv = &c->mesh[b]->indices[3u * c->blk[b]->tris[tp->tri_first + t]];
                for (uint32_t j = 0; j < 3u; ++j)
                {
                    dsums_extent_vertex(c, b, tv[j], s->node_region[a->bnode[bk]]);
                }
            }
        }
    }
}

/// Derivatives of the first `written` output regions into opt->derivatives. False when out of memory.
static bool derivative_pass(region_query* c, const mc_region_options* opt, uint32_t written)
{
    struct mc_region_scratch* s = c->s;
    if (!mc_array_reserve((void**)&s->dsums, &s->dsums_cap, s->region_count, sizeof *s->dsums, 16))
    {
        return false;
    }
    memset(s->dsums, 0, (size_t)s->region_count * sizeof *s->dsums);
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        const crossing_record* x = &s->records[k];
        uint32_t ri = s->node_region[x->occurrence];
        int b = x->body;
        const struct mc_mesh* m = c->mesh[b];
        uint32_t f1 = x->halfedge / 3u, f2 = m->twin[x->halfedge] / 3u;
        // The flags of pure flush faces add no area (as in add_crossing_flags): flags 0 and 2 are on f1, 1 and 4 on
        // f2, 3 and 5 on the crossed face.
        unsigned no_area = (flush_pure(c, b, f1) ? 0x5u : 0u) | (flush_pure(c, b, f2) ? 0x12u : 0u) |
                           (flush_pure(c, 1 - b, x->face) ? 0x28u : 0u);
        mc_region_dsums_crossing(&s->dsums[ri], b, x->point, s->regions[ri].origin, vpos(c, b, m->indices[x->halfedge]),
                                 vpos(c, b, m->indices[he_next(x->halfedge)]), fnormal(c, b, f1), fnormal(c, b, f2),
                                 fnormal(c, 1 - b, x->face), (double)x->entering, no_area);
    }
    const body_arrays* aj = &s->body[1];
    for (uint32_t k = 0; k < aj->corner_count; ++k)
    {
        uint32_t ri = s->node_region[aj->corner[k].node];
        dsums_corner_j(c, &s->dsums[ri], &s->regions[ri], aj->corner[k].id);
    }
    dsums_j_whole(c, opt);
    // The flush areas taken off S_I (mixed faces of I: their overlaps with J's partners move with J). A pure face of an
    // inside block of I does not move.
    for (uint32_t k = 0; k < s->fsub_count; ++k)
    {
        const flush_entry* e = &s->fsub[k];
        if (e->body == 0u && e->partner != MC_NONE)
        {
            mc_vec3 p[3], q[3];
            face_corners(c, 0, e->face, p);
            face_corners(c, 1, e->partner, q);
            mc_region_dsums_flush_area(&s->dsums[s->node_region[e->node]], p, fnormal(c, 0, e->face), q,
                                       fnormal(c, 1, e->partner));
        }
    }
    if (opt->depth_method == MC_DEPTH_EXTENT)
    {
        dsums_extent(c);
    }
    for (uint32_t k = 0; k < written; ++k)
    {
        const region_accumulator* r = &s->regions[s->order[k]];
        mc_region_jsums j = {c->rot_j, r->j_volume_x6, r->j_moment_x24, r->j_area_x2};
        mc_closest_feature f[2] = {closest_feature(c, r, 0), closest_feature(c, r, 1)};
        bool found = isfinite(r->best[0]) && isfinite(r->best[1]);
        mc_region_derivative_finish(&s->dsums[s->order[k]], &j, r->origin, r->volume_x6, r->moment_x24, r->area_x2[0],
                                    opt->depth_method, found ? f : NULL, &opt->derivatives[k]);
    }
    return true;
}

/// Clear every vertex and face mark this query set (the arrays are all-zero between queries).
static void clear_marks(region_query* c)
{
    struct mc_region_scratch* s = c->s;
    for (int b = 0; b < 2; ++b)
    {
        body_arrays* a = &s->body[b];
        for (uint32_t k = 0; k < a->inside_count; ++k)
        {
            a->vstate[a->inside[k]] = 0;
        }
        for (uint32_t k = 0; k < a->outside_count; ++k)
        {
            a->vstate[a->outside[k]] = 0;
        }
        a->inside_count = a->outside_count = 0;
        for (uint32_t k = 0; k < a->blist_count; ++k)
        {
            a->bstate[a->blist[k]] = 0;
        }
        a->blist_count = a->bstack_count = 0;
        for (uint32_t k = 0; k < a->flist_count; ++k)
        {
            a->fflush[a->flist[k]] = 0;
        }
        a->flist_count = 0;
    }
    c->flush_pure = 0;
    s->fsub_count = 0;
    for (uint32_t p = 0; p < c->pair_count && c->marked; ++p)
    {
        s->body[0].fbits[c->pairs[p].i >> 6] = 0;
        s->body[1].fbits[c->pairs[p].j >> 6] = 0;
        if (c->blk[0] != NULL)
        {
            s->body[0].btouch[c->blk[0]->tri_block[c->pairs[p].i] >> 6] = 0;
        }
        if (c->blk[1] != NULL)
        {
            s->body[1].btouch[c->blk[1]->tri_block[c->pairs[p].j] >> 6] = 0;
        }
    }
    c->marked = false;
}

// ---------------------------------------------------------------------------------------------------------------
// Plans: the region stage's combinatorics kept per pair (temporal coherence)
//
// Steps 1 to 3 (crossing records, edge table, states, flood fill, joins) are a function of the pair list's
// combinatorics (each pair's triangles and its crossings' body, edge, direction, degenerate flag) and of the two
// meshes, except where they read coordinates: the order of several crossings along one edge (float parameters), an
// evenly crossed edge decided by the float gap or a ray, a component decided by its bounding box or a ray, an inner
// shell joined by a ray (region_query.coordinate_decision), and the regions of negative volume that
// join_negative_regions joins by rays after the sums. A query with none of these, whose pairs carry the pair stage's
// certificate id (mc_pair_result.certificate: every query with that id has the same pairs but for their points),
// keeps what steps 1 to 3 produced: its crossing records (their occurrences), the union-find roots of every node,
// and per body the inside vertices, whole faces, corner half-edges and inside blocks with their nodes. A later query
// replaying the same certificate (mc_pair_result.replayed) restores them, taking the records' points from its own
// pairs, and runs steps 4 and 5 and the output as a cold query does, from the new coordinates: bitwise the cold
// query's results, since every value those steps read is the one a cold query's steps 1 to 3 would produce. A
// restored query whose sums give a region of negative volume (which a cold query would try to join by rays) is
// abandoned and the query runs from the start. The options (depth method, triangle terms, blocks) must match.
// Without a certificate (the pair stage tested the pairs again: bodies that all move a little every step), the plan
// also keeps its pairs' combinatorics, 16 bytes a pair, and serves a later query of the same two meshes (not deformed
// since: the same geometry_version) whose pairs have exactly those (plan_same_pairs: compared word by word, no hash)
// and no coplanar pair: that is all a certificate promises. 1000 spheres random-walking 1e-3 a step (bench_many --drift
// 1e-3): about half the queries find the pairs of the step before, and the 125-sphere run's region stage takes 1.76 G
// -> 1.47 G instructions.

/// The plan of one pair (see above).
struct mc_region_plan
{
    uint64_t certificate;  // the pair stage's certificate id the plan belongs to (0: none)
    bool by_pairs;         // valid for any query whose pairs have the combinatorics in `pairs` (see plan_same_pairs)
    uint32_t pair_count;   // pairs of that certificate
    uint32_t record_count; // crossing records
    uint32_t node_count;   // union-find nodes (at most 65535: the small entries are 16 bits)
    uint32_t order_words;  // small entries of the edge orders (per edge with several crossings: its count, its records)
    uint32_t id_count;    // 32-bit entries (per body the list items' vertices, faces, half-edges, blocks and the inside
                          // vertices' listed bits, then box checks)
    uint32_t box_checks;  // vertices to find clearly outside the other mesh's box again (2 v + body, last ids)
    uint32_t gap_checks;  // record index pairs whose order must be trusted again (order_trusted; small entries)
    uint32_t count[2][4]; // per body: inside vertices, whole faces, corners, inside blocks
    mc_depth_method depth; // options of the query that kept it
    bool triangle_terms;   // (the region options)
    bool use_blocks;       // (the region options)
    bool blocks[2];        // each mesh had its blocks
    // id_count 32-bit entries (per body, the items of each list in that order, then when the mesh has blocks one bit
    // per inside vertex: vertex_listed, which reads the pairs' block bits), then 16-bit entries: the records'
    // occurrences, the edge orders, the node roots, then per body the union-find node of each list item
    uint32_t* data;
    size_t capacity; // bytes of data allocated
    // The pairs' combinatorics (plan_pair_words), PLAN_PAIR_WORDS words per pair, when by_pairs.
    uint32_t* pairs;
    uint32_t pairs_capacity;       // words of pairs allocated
    const struct mc_mesh* mesh[2]; // the meshes of the query that kept it (by_pairs)
    uint64_t version[2];           // and their geometry_version (a deformed mesh's component volumes changed)
    // Depth hints (depth_hint_bounds), kept by every query of the pair whatever its plan: per body, 1 + the face that
    // held the closest point of the last query with one region (Adams depth), 0 none; and that query's meshes.
    uint32_t hint[2];
    const struct mc_mesh* hint_mesh[2];
    uint64_t hints_used; // bounds set from a hint (mc_region_plan_hints_used)
};

void mc_region_plan_destroy(struct mc_region_plan* plan)
{
    if (plan != NULL)
    {
        mc_free(plan->data);
        mc_free(plan->pairs);
        mc_free(plan);
    }
}

void mc_region_plan_reset(struct mc_region_plan* plan)
{
    if (plan != NULL)
    {
        plan->certificate = 0;
        plan->by_pairs = false;
    }
}

size_t mc_region_plan_byte_count(const struct mc_region_plan* plan)
{
    return plan != NULL ? sizeof *plan + plan->capacity + sizeof(uint32_t) * (size_t)plan->pairs_capacity : 0u;
}

#define PLAN_PAIR_WORDS 4u

void mc_region_plan_memory(const struct mc_region_plan* plan, size_t* used, size_t* held)
{
    if (plan == NULL)
    {
        return;
    }
    size_t small = (size_t)plan->record_count + plan->order_words + plan->node_count + plan->gap_checks;
    for (int b = 0; b < 2; ++b)
    {
        for (int k = 0; k < 4; ++k)
        {
            small += plan->count[b][k];
        }
    }
    *used += sizeof *plan + 4u * (size_t)plan->id_count + 2u * small +
             (plan->by_pairs ? sizeof *plan->pairs * PLAN_PAIR_WORDS * (size_t)plan->pair_count : 0u);
    *held += sizeof *plan + mc_alloc_size(plan->data) + mc_alloc_size(plan->pairs);
}
#define PLAN_BY_CERTIFICATE 1
#define PLAN_BY_PAIRS 2

/// The combinatorics of one triangle pair as PLAN_PAIR_WORDS words: its two triangles and, per crossing, the body,
/// edge, direction and degenerate flag (everything steps 1 to 3 read of a pair but its points).
static inline void plan_pair_words(const mc_triangle_pair* pr, uint32_t* w)
{
    // A crossing's four one-byte fields are contiguous: copied as one word (bytes, not padding).
    _Static_assert(offsetof(mc_crossing, edge) == offsetof(mc_crossing, body) + 1u &&
                       offsetof(mc_crossing, entering) == offsetof(mc_crossing, body) + 2u &&
                       offsetof(mc_crossing, degenerate) == offsetof(mc_crossing, body) + 3u,
                   "mc_crossing's flags are not contiguous");
    _Static_assert(offsetof(mc_triangle_pair, j) == offsetof(mc_triangle_pair, i) + 4u, "mc_triangle_pair layout");
    memcpy(w, (const unsigned char*)pr + offsetof(mc_triangle_pair, i), 8u);
    memcpy(w + 2, (const unsigned char*)&pr->crossing[0] + offsetof(mc_crossing, body), 4u);
    memcpy(w + 3, (const unsigned char*)&pr->crossing[1] + offsetof(mc_crossing, body), 4u);
}

/// Keep this query's pairs' combinatorics in the plan (plan_same_pairs). False on allocation failure.
static bool plan_keep_pairs(const region_query* c, struct mc_region_plan* plan)
{
    uint64_t words = (uint64_t)PLAN_PAIR_WORDS * c->pair_count;
    if (words > plan->pairs_capacity)
    {
        uint64_t cap = words + words / 8u;
        uint32_t* d = cap <= UINT32_MAX ? mc_alloc_array((size_t)cap, sizeof *d) : NULL;
        if (d == NULL)
        {
            return false;
        }
        mc_free(plan->pairs);
        plan->pairs = d;
        plan->pairs_capacity = (uint32_t)cap;
    }
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        plan_pair_words(&c->pairs[p], plan->pairs + PLAN_PAIR_WORDS * p);
    }
    return true;
}

/// Whether this query's pairs have the combinatorics the plan kept (same pairs in the same order, each with the same
/// crossings' body, edge, direction and degenerate flag): then steps 1 to 3 read the same values but for the points,
/// which is what a certificate promises (see above), and the plan serves without one.
static bool plan_same_pairs(const region_query* c, const struct mc_region_plan* plan)
{
    const uint32_t* kept = plan->pairs;
    uint64_t diff = 0u;
    for (uint32_t p = 0; p < c->pair_count; ++p, kept += PLAN_PAIR_WORDS)
    {
        uint64_t w[2], k[2];
        plan_pair_words(&c->pairs[p], (uint32_t*)(void*)w);
        memcpy(k, kept, sizeof k);
        diff |= (w[0] ^ k[0]) | (w[1] ^ k[1]);
        if ((p & 15u) == 15u && diff != 0u)
        {
            return false;
        }
    }
    return diff == 0u;
}

/// Room for `bytes` bytes in the plan's data (exactly, plus an eighth when it grows). False on allocation failure.
static bool plan_reserve(struct mc_region_plan* plan, size_t bytes)
{
    if (bytes <= plan->capacity)
    {
        return true;
    }
    size_t cap = (bytes + bytes / 8u + 3u) & ~(size_t)3u;
    uint32_t* d = mc_alloc_array(cap / 4u, sizeof *d);
    if (d == NULL)
    {
        return false;
    }
    mc_free(plan->data);
    plan->data = d;
    plan->capacity = cap;
    return true;
}

/// Keep steps 1-3 of this query in its plan (not yet valid: run_stage validates it after the sums). False when
/// nothing is kept.
static bool plan_record(region_query* c, const mc_region_options* opt)
{
    struct mc_region_scratch* s = c->s;
    struct mc_region_plan* plan = c->plan;
    plan->certificate = 0;
    plan->by_pairs = false;
    if (c->coordinate_decision || c->oom || s->node_count > UINT16_MAX)
    {
        return false; // (every small entry is below node_count: occurrences, record indices, roots, nodes)
    }
    uint64_t order_words = 0, ids = 0;
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        order_words += s->edges[e].count > 1u ? 1u + s->edges[e].count : 0u;
    }
    uint64_t listed_words = 0;
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        ids += (uint64_t)a->inside_count + a->whole_count + a->corner_count + a->blist_count;
        listed_words += c->blk[b] != NULL ? (a->inside_count + 31u) / 32u : 0u;
    }
    ids += s->box_check_count;
    uint64_t small = (uint64_t)s->record_count + order_words + s->node_count + ids + s->gap_check_count;
    ids += listed_words;
    if (ids > UINT32_MAX || order_words > UINT32_MAX || !plan_reserve(plan, (size_t)(4u * ids + 2u * small)))
    {
        return false;
    }
    uint32_t* id = plan->data;
    uint16_t* sm = (uint16_t*)(plan->data + ids);
    for (uint32_t k = 0; k < s->record_count; ++k)
    {
        if (s->records[k].degenerate)
        {
            return false;
        }
        *sm++ = (uint16_t)s->records[k].occurrence;
    }
    // The crossings of an edge that carries several, in the order their float parameters gave (checked again when
    // the plan is restored).
    for (uint32_t e = 0; e < s->edge_count; ++e)
    {
        const crossed_edge* er = &s->edges[e];
        if (er->count > 1u)
        {
            *sm++ = (uint16_t)er->count;
            for (uint32_t k = 0; k < er->count; ++k)
            {
                *sm++ = (uint16_t)s->edge_list[er->first + k];
            }
        }
    }
    for (uint32_t k = 0; k < s->node_count; ++k)
    {
        *sm++ = (uint16_t)mc_uf_find(s->parent, k);
    }
    for (int b = 0; b < 2; ++b)
    {
        const body_arrays* a = &s->body[b];
        for (uint32_t k = 0; k < a->inside_count; ++k)
        {
            *id++ = a->inside[k];
            *sm++ = (uint16_t)a->vnode[a->inside[k]];
        }
        for (uint32_t k = 0; k < a->whole_count; ++k)
        {
            *id++ = a->whole[k].id;
            *sm++ = (uint16_t)a->whole[k].node;
        }
        for (uint32_t k = 0; k < a->corner_count; ++k)
        {
            *id++ = a->corner[k].id;
            *sm++ = (uint16_t)a->corner[k].node;
        }
        for (uint32_t k = 0; k < a->blist_count; ++k)
        {
            *id++ = a->blist[k];
            *sm++ = (uint16_t)a->bnode[a->blist[k]];
        }
        for (uint32_t k = 0; k < a->inside_count && c->blk[b] != NULL; k += 32u)
        {
            uint32_t bits = 0;
            for (uint32_t i = 0; i < 32u && k + i < a->inside_count; ++i)
            {
                bits |= (uint32_t)vertex_listed(c, b, a->inside[k + i]) << i;
            }
            *id++ = bits;
        }
        plan->count[b][0] = a->inside_count;
        plan->count[b][1] = a->whole_count;
        plan->count[b][2] = a->corner_count;
        plan->count[b][3] = a->blist_count;
        plan->blocks[b] = c->blk[b] != NULL;
    }
    for (uint32_t k = 0; k < s->box_check_count; ++k)
    {
        *id++ = s->box_checks[k];
    }
    for (uint32_t k = 0; k < s->gap_check_count; ++k)
    {
        *sm++ = (uint16_t)s->gap_checks[k];
    }
    plan->box_checks = s->box_check_count;
    plan->gap_checks = s->gap_check_count;
    plan->pair_count = c->pair_count;
    plan->record_count = s->record_count;
    plan->order_words = (uint32_t)order_words;
    plan->id_count = (uint32_t)ids;
    plan->node_count = s->node_count;
    plan->depth = opt->depth_method;
    plan->triangle_terms = opt->triangle_terms;
    plan->use_blocks = opt->use_blocks;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Depth hints: a first bound of the Adams depth from the pair's last query (temporal coherence)
//
// Under motion the closest point of a region's surface part moves little from one query to the next, but the bounds
// the depth starts from (inside vertices, blocks) are loose: on 1000 spheres random-walking 1e-3 a step, 77 % of the
// faces offered passed their plane test and had their closest point computed, against 2 % with the final minimum
// as the bound. So each query of a pair with one region keeps, in the pair's plan, the face of each surface that
// held the closest point, and the next query with one region computes that face's distance first, when the face is
// one of its candidates: a face of a triangle pair (every face of a pair is offered to the region of its crossings,
// depth_crossing_faces: the crossed face and the two faces of the crossed edge) or one of its whole faces. The
// distance is computed as the face's own offer computes it (depth_candidate for a face in a pair; for a whole face
// depth_candidate_raw's, in its body's frame), so it bounds the minimum the passes find, and it is only a threshold
// (folded into block_bound, which every threshold of the depth passes reads). A threshold at the minimum itself is not
// safe: the plane test of the face that holds it (its plane's distance, from a unit normal and a corner that can be far
// from the closest point) can exceed its computed distance by more than the test's 1 + 1e-12 on a large face near a
// tiny distance (a box resting on a plate: the physics tests failed with that bound). So the bound is the hint's
// distance plus HINT_SLACK (1e-9) times the coordinates' magnitude (I's and J's bounding boxes and J's translation,
// infinity norms), squared: the rounding of these distances and plane tests is some 1e-16 of that magnitude, so the
// face that holds the minimum (and every face as near) passes its plane test, and the minimum and the first candidate
// that reaches it are those found without the hint: the results are bitwise the same.

#define HINT_SLACK                                                                                                     \
    1e-9 // a depth hint's distance is raised by this times the coordinates' magnitude (depth_hint_bounds)

/// Whether face f of body b is in one of this query's triangle pairs. I's faces by bisection: the pairs come sorted by
/// I's face (pairs that do not, from elsewhere, may miss it: then the face gives no hint, never a wrong one).
static bool face_in_pairs(const region_query* c, int b, uint32_t f)
{
    if (b == 0)
    {
        uint32_t lo = 0, hi = c->pair_count;
        while (lo < hi)
        {
            uint32_t mid = lo + (hi - lo) / 2u;
            lo = c->pairs[mid].i < f ? mid + 1u : lo;
            hi = c->pairs[mid].i < f ? hi : mid;
        }
        return lo < c->pair_count && c->pairs[lo].i == f;
    }
    for (uint32_t p = 0; p < c->pair_count; ++p)
    {
        if ((b == 0 ? c->pairs[p].i : c->pairs[p].j) == f)
        {
            return true;
        }
    }
    return false;
}

/// Whether face f of body b is one of this query's whole faces (entirely inside the other solid).
static bool face_is_whole(const region_query* c, int b, uint32_t f)
{
    const body_arrays* a = &c->s->body[b];
    for (uint32_t k = 0; k < a->whole_count; ++k)
    {
        if (a->whole[k].id == f)
        {
            return true;
        }
    }
    return false;
}

uint64_t mc_region_plan_hints_used(const struct mc_region_plan* plan)
{
    return plan != NULL ? plan->hints_used : 0u;
}

/// The depth hints of this query (see above): with one region, block_bound[b] lowered to the distance of the face
/// of body b that held the closest point at the pair's last query with one region, when it is one of this query's
/// candidates (computed as its offer computes it).
static void depth_hint_bounds(region_query* c)
{
    struct mc_region_plan* plan = c->plan;
    if (plan == NULL || c->s->region_count != 1u)
    {
        return;
    }
    region_accumulator* r = &c->s->regions[0];
    // The slack (see above): HINT_SLACK times the coordinates' magnitude, far above the rounding of the distances and
    // plane tests compared with the bound.
    double slack = norm_inf(c->trans_j);
    for (int b = 0; b < 2; ++b)
    {
        slack += norm_inf(c->mesh[b]->report.bbox_min) + norm_inf(c->mesh[b]->report.bbox_max);
    }
    slack *= HINT_SLACK;
    for (int b = 0; b < 2; ++b)
    {
        const struct mc_mesh* m = c->mesh[b];
        uint32_t f = plan->hint[b] - 1u;
        if (plan->hint[b] == 0u || plan->hint_mesh[b] != m || f >= m->triangle_count)
        {
            continue;
        }
        mc_vec3 p, q;
        if (face_is_whole(c, b, f)) // (a whole face is in no pair)
        {
            p = b == 0 ? r->out.centroid : r->centroid_j; // as depth_candidate_raw from depth_body_faces
            const uint32_t* tv = &m->indices[3u * f];
            q = closest_on_triangle(p, m->positions[tv[0]], m->positions[tv[1]], m->positions[tv[2]]);
        }
        else if (face_in_pairs(c, b, f))
        {
            p = r->out.centroid; // as depth_candidate
            q = closest_on_triangle(p, vpos_cut(c, b, m->indices[3u * f]), vpos_cut(c, b, m->indices[3u * f + 1u]),
                                    vpos_cut(c, b, m->indices[3u * f + 2u]));
        }
        else
        {
            continue;
        }
        mc_vec3 dq = mc_sub(q, p);
        double d = sqrt(mc_dot(dq, dq)) + slack;
        r->block_bound[b] = min2(r->block_bound[b], d * d);
        plan->hints_used++;
    }
}

/// Keep this query's closest faces as the pair's depth hints (none unless it has exactly one region).
static void depth_keep_hints(region_query* c)
{
    struct mc_region_plan* plan = c->plan;
    if (plan == NULL)
    {
        return;
    }
    for (int b = 0; b < 2; ++b)
    {
        uint32_t f = c->s->region_count == 1u ? c->s->regions[0].closest_face[b] : MC_NONE;
        plan->hint[b] = f != MC_NONE ? f + 1u : 0u;
        plan->hint_mesh[b] = c->mesh[b];
    }
}

/// True when some region has a negative volume (join_negative_regions would cast rays for it).
static bool any_negative_region(const struct mc_region_scratch* s)
{
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        if (s->regions[k].out.volume < 0.0)
        {
            return true;
        }
    }
    return false;
}

/// Can this query restore the pair's plan? @return PLAN_BY_CERTIFICATE: the pairs were replayed under the plan's
/// certificate; PLAN_BY_PAIRS: their combinatorics are the plan's (plan_same_pairs) and no pair is coplanar (a cold
/// query would then classify no flush face, as the kept one did not); 0: no.
static int plan_fits(const region_query* c, const mc_region_options* opt, bool replayed)
{
    const struct mc_region_plan* plan = c->plan;
    if (plan == NULL || plan->pair_count != c->pair_count || plan->depth != opt->depth_method ||
        plan->triangle_terms != opt->triangle_terms || plan->use_blocks != opt->use_blocks ||
        plan->blocks[0] != (c->blk[0] != NULL) || plan->blocks[1] != (c->blk[1] != NULL))
    {
        return 0;
    }
    if (replayed && plan->certificate != 0u && plan->certificate == c->certificate)
    {
        return PLAN_BY_CERTIFICATE;
    }
    return plan->by_pairs && c->coplanar_count == 0u && plan->mesh[0] == c->mesh[0] && plan->mesh[1] == c->mesh[1] &&
                   plan->version[0] == c->mesh[0]->geometry_version &&
                   plan->version[1] == c->mesh[1]->geometry_version && plan_same_pairs(c, plan)
               ? PLAN_BY_PAIRS
               : 0;
}

/// The plan's edge orders at this query's coordinates: the parameters of the crossings of every edge that carries
/// several (crossing_param, as list_crossings_by_edge sets them) must be in the kept order, strictly increasing or
/// equal with increasing record index: that order is then the one list_crossings_by_edge's stable insertion sort of
/// the records (taken in increasing index) gives. False when they are not (or a parameter is NaN).
static bool plan_orders(const region_query* c, const uint16_t* d, uint32_t words)
{
    struct mc_region_scratch* s = c->s;
    for (uint32_t w = 0; w < words;)
    {
        uint32_t n = d[w++];
        if (n > words - w)
        {
            return false;
        }
        const uint16_t* l = d + w;
        for (uint32_t i = 0; i < n; ++i)
        {
            crossing_record* r = &s->records[l[i]];
            r->param = crossing_param(c, r);
            if (isnan(r->param))
            {
                return false;
            }
            if (i > 0)
            {
                double p0 = s->records[l[i - 1u]].param;
                if (!(p0 < r->param || (p0 == r->param && l[i - 1u] < l[i])))
                {
                    return false;
                }
            }
        }
        w += n;
    }
    return true;
}

/// Restore steps 1-3 from the plan (after prepare; `fit`: plan_fits's answer). @return 1 done, 0 the edge orders
/// changed (the query must run from the start), -1 out of memory.
MC_FLAG_CLONES static int plan_restore(region_query* c, int fit)
{
    struct mc_region_scratch* s = c->s;
    const struct mc_region_plan* plan = c->plan;
    if (!mc_array_reserve((void**)&s->parent, &s->parent_cap, plan->node_count, sizeof *s->parent, 64) ||
        !mc_array_reserve((void**)&s->records, &s->record_cap, plan->record_count, sizeof *s->records, 64))
    {
        return -1;
    }
    // The pairs' face, block and component marks are not set: steps 4 and 5 read only the block bits, through
    // vertex_listed, whose results the plan keeps. Replayed pairs (PLAN_BY_CERTIFICATE): the replay mapped and
    // published every corner of their faces of J (mc_pair_result.replayed), so they are read directly (jpos). Tested
    // pairs (PLAN_BY_PAIRS): the test mapped them, unless the pairs came from elsewhere (as collect_crossings does).
    uint32_t unpublished = 0u;
#ifdef NDEBUG
    for (uint32_t p = 0; p < c->pair_count && fit == PLAN_BY_PAIRS; ++p)
#else
    for (uint32_t p = 0; p < c->pair_count; ++p)
#endif
    {
        unpublished |= pair_corners_unpublished(c, &c->pairs[p]);
    }
    MC_ASSERT(unpublished == 0u || fit == PLAN_BY_PAIRS);
    publish_pair_corners(c, unpublished);
    const uint32_t* id = plan->data;
    const uint16_t* sm = (const uint16_t*)(plan->data + plan->id_count);
    for (uint32_t k = 0; k < plan->record_count; ++k)
    {
        record_of(c, *sm++, &s->records[k]);
    }
    s->record_count = plan->record_count;
    if (!plan_orders(c, sm, plan->order_words))
    {
        return 0;
    }
    sm += plan->order_words;
    uint32_t* restrict parent = s->parent;
    const uint16_t* restrict kept = sm;
    const uint32_t nodes = plan->node_count; // read once: the stores could otherwise alias it
    for (uint32_t k = 0; k < nodes; ++k)     // distinct arrays: a widening copy the compiler vectorises
    {
        parent[k] = kept[k];
    }
    sm += nodes;
    s->node_count = plan->node_count;
    for (int b = 0; b < 2; ++b)
    {
        body_arrays* a = &s->body[b];
        const uint32_t* n = plan->count[b];
        if (!mc_array_reserve((void**)&a->inside, &a->inside_cap, n[0], sizeof *a->inside, 64) ||
            !mc_array_reserve((void**)&a->whole, &a->whole_cap, n[1], sizeof *a->whole, 64) ||
            !mc_array_reserve((void**)&a->corner, &a->corner_cap, n[2], sizeof *a->corner, 64) ||
            !mc_array_reserve((void**)&a->blist, &a->blist_cap, n[3], sizeof *a->blist, 64))
        {
            return -1;
        }
        for (uint32_t k = 0; k < n[0]; ++k)
        {
            uint32_t v = *id++;
            a->inside[k] = v;
            a->vstate[v] = 2; // cleared by clear_marks, like a flooded vertex
            a->vnode[v] = *sm++;
        }
        for (uint32_t k = 0; k < n[1]; ++k)
        {
            a->whole[k].id = *id++;
            a->whole[k].node = *sm++;
        }
        for (uint32_t k = 0; k < n[2]; ++k)
        {
            a->corner[k].id = *id++;
            a->corner[k].node = *sm++;
        }
        for (uint32_t k = 0; k < n[3]; ++k)
        {
            uint32_t bk = *id++;
            a->blist[k] = bk;
            a->bstate[bk] = 2u;
            a->bnode[bk] = *sm++;
        }
        c->listed[b] = c->blk[b] != NULL ? id : NULL;
        id += c->blk[b] != NULL ? (n[0] + 31u) / 32u : 0u;
        a->inside_count = n[0];
        a->whole_count = n[1];
        a->corner_count = n[2];
        a->blist_count = n[3];
    }
    // The float decisions the kept query took, taken again from this query's coordinates: the same operations on the
    // same values as a cold query's decide_states, so the same outcome, or the plan is declined.
    for (uint32_t k = 0; k < plan->box_checks; ++k, ++id)
    {
        if (!vertex_outside_box(c, (int)(*id & 1u), *id >> 1))
        {
            return 0;
        }
    }
    for (uint32_t k = 0; k + 1u < plan->gap_checks; k += 2u, sm += 2)
    {
        if (!order_trusted(c, &s->records[sm[0]], &s->records[sm[1]]))
        {
            return 0;
        }
    }
    return 1;
}

#define PLAN_DECLINED 1 // replay_stage: an edge order changed or a region has negative volume: run from the start

static mc_status finish_stage(region_query* c, const mc_region_options* opt, mc_region* out, uint32_t capacity,
                              uint32_t* count, mc_query_stats* stats);

/// Steps 4-5 and the output from the pair's plan (after prepare). @return PLAN_DECLINED (as a status) when a region
/// has negative volume, else as run_stage.
static mc_status replay_stage(region_query* c, int fit, const mc_region_options* opt, mc_region* out, uint32_t capacity,
                              uint32_t* count, mc_query_stats* stats)
{
    int restored = plan_restore(c, fit);
    if (restored <= 0)
    {
        return restored < 0 ? MC_ERR_OUT_OF_MEMORY : (mc_status)PLAN_DECLINED;
    }
    sum_regions(c, opt);
    if (c->oom)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    if (any_negative_region(c->s))
    {
        return (mc_status)PLAN_DECLINED;
    }
    return finish_stage(c, opt, out, capacity, count, stats);
}

mc_status mc_regions_compute(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                             const mc_pair_result* pairs, struct mc_workspace* ws, const mc_region_options* options,
                             mc_region* out, uint32_t capacity, uint32_t* count, mc_query_stats* stats)
{
    if (mi == NULL || mj == NULL || j_in_i == NULL || pairs == NULL || ws == NULL || count == NULL ||
        (capacity > 0 && out == NULL) || (pairs->pair_count > 0 && pairs->pairs == NULL))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (mi->flipped && mj->flipped)
    {
        return MC_ERR_UNBOUNDED;
    }
    if (pairs->pair_count > UINT32_MAX / 4u)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_region_options opt = options != NULL ? *options : mc_default_region_options();
    region_query c;
    memset(&c, 0, sizeof c);
    c.mesh[0] = mi;
    c.mesh[1] = mj;
    c.ps = ws->pairs;
    c.rot_j = mc_quat_to_mat33(j_in_i->q);
    c.trans_j = j_in_i->p;
    c.pairs = pairs->pairs;
    c.pair_count = pairs->pair_count;
    c.coplanar = pairs->coplanar;
    c.coplanar_count = pairs->coplanar != NULL ? pairs->coplanar_count : 0u;
    if (c.pair_count > 0 && c.ps == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (c.ps != NULL)
    {
        mc_pair_scratch_j_view(c.ps, &c.jv);
    }
    if (opt.use_blocks)
    {
        // NULL when out of memory: that mesh is then flooded and summed per vertex and per face.
        c.blk[0] = mc_region_blocks_get(mi);
        c.blk[1] = mc_region_blocks_get(mj);
    }
    if (ws->plan != NULL && opt.derivatives == NULL)
    {
        if (*ws->plan == NULL)
        {
            *ws->plan = mc_calloc(1, sizeof **ws->plan); // NULL when out of memory: no plan
        }
        c.plan = *ws->plan;
        c.certificate = pairs->certificate;
    }
    mc_status st = prepare(&c, mi, mj, ws);
    if (st != MC_OK)
    {
        mc_region_plan_reset(c.plan);
        return st;
    }
    int fit = plan_fits(&c, &opt, pairs->replayed);
    if (fit != 0)
    {
        st = replay_stage(&c, fit, &opt, out, capacity, count, stats);
        if (st == (mc_status)PLAN_DECLINED)
        {
            clear_marks(&c);
            mc_region_plan_reset(c.plan);
            st = prepare(&c, mi, mj, ws);
            st = st == MC_OK ? run_stage(&c, &opt, out, capacity, count, stats) : st;
        }
        else if (stats != NULL)
        {
            stats->certified_reuse |= fit == PLAN_BY_CERTIFICATE ? 2u : 4u;
        }
    }
    else
    {
        st = run_stage(&c, &opt, out, capacity, count, stats);
    }
    clear_marks(&c);
    return st;
}

/// Steps 1-5 and the output, after prepare(); keeps the pair's plan when it can (c->plan).
static mc_status run_stage(region_query* c, const mc_region_options* opt, mc_region* out, uint32_t capacity,
                           uint32_t* count, mc_query_stats* stats)
{
    mc_region_plan_reset(c->plan);
    mc_status st = collect_crossings(c);
    if (st != MC_OK)
    {
        return st;
    }
    decide_states(c);
    if (c->oom)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    join_along_edges(c);
    join_face_loops(c);
    join_inner_shells(c);
    classify_flush(c);
    if (c->oom)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // (A query with a flush face keeps no plan: the pairs that rim its piece carry degenerate crossings.)
    bool keep = c->plan != NULL && c->flush_pure == 0u && c->s->fsub_count == 0u && plan_record(c, opt);
    sum_regions(c, opt);
    for (int round = 0; round < SHELL_ROUNDS && !c->oom && join_negative_regions(c); ++round)
    {
        keep = false;
        c->s->region_count = 0; // some inner shells were joined: the regions and their sums again
        c->s->inside_total = 0;
        sum_regions(c, opt);
    }
    if (!c->oom && join_by_volume(c))
    {
        c->s->region_count = 0;
        c->s->inside_total = 0;
        sum_regions(c, opt);
    }
    if (c->oom)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    st = finish_stage(c, opt, out, capacity, count, stats);
    if (keep && (st == MC_OK || st == MC_ERR_CAPACITY) && !any_negative_region(c->s))
    {
        c->plan->certificate = c->certificate; // valid from now on
        c->plan->by_pairs = c->coplanar_count == 0u && plan_keep_pairs(c, c->plan);
        for (int b = 0; b < 2; ++b)
        {
            c->plan->mesh[b] = c->mesh[b];
            c->plan->version[b] = c->mesh[b]->geometry_version;
        }
    }
    return st;
}

/// The output after the sums: touching regions dropped, the rest sorted and written, derivatives, stats.
static mc_status finish_stage(region_query* c, const mc_region_options* opt, mc_region* out, uint32_t capacity,
                              uint32_t* count, mc_query_stats* stats)
{
    struct mc_region_scratch* s = c->s;
    // Drop touching regions, sort the rest.
    if (!mc_array_reserve((void**)&s->order, &s->order_cap, s->region_count, sizeof *s->order, 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    uint32_t n = 0, touching = 0;
    for (uint32_t k = 0; k < s->region_count; ++k)
    {
        const region_accumulator* r = &s->regions[k];
        double bound = (16.0 + (double)r->term_count) * DBL_EPSILON * r->sensitivity_x6;
        if (r->crossing_count > 0 && r->all_degenerate && fabs(r->volume_x6) <= bound)
        {
            touching++;
            continue;
        }
        s->order[n++] = k;
    }
    sort_regions(s->order, n, s->regions);
    uint32_t written = n < capacity ? n : capacity;
    for (uint32_t k = 0; k < written; ++k)
    {
        out[k] = s->regions[s->order[k]].out;
    }
    if (opt->derivatives != NULL && !derivative_pass(c, opt, written))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    *count = n;
    if (stats != NULL)
    {
        stats->crossings = s->record_count;
        stats->inside_vertices = s->inside_total;
        stats->regions = n;
        stats->touching_regions = touching;
    }
    return n > capacity ? MC_ERR_CAPACITY : MC_OK;
}

void mc_regions_last_map(const struct mc_region_scratch* scratch, const uint32_t** node_region, const uint32_t** order,
                         uint32_t* accumulators)
{
    *node_region = scratch->node_region;
    *order = scratch->order;
    *accumulators = scratch->region_count;
}

// ---------------------------------------------------------------------------------------------------------------
// Public query

static bool vec3_is_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool region_is_finite(const mc_region* r)
{
    return isfinite(r->volume) && isfinite(r->area) && isfinite(r->radius) && isfinite(r->depth) &&
           vec3_is_finite(r->centroid) && vec3_is_finite(r->normal) && vec3_is_finite(r->point_i) &&
           vec3_is_finite(r->point_j) && vec3_is_finite(r->s_i) && vec3_is_finite(r->s_j);
}

void mc_region_plan_prefetch_record(const struct mc_region_plan* plan)
{
    if (plan != NULL)
    {
        mc_prefetch_bytes(plan, sizeof *plan, (sizeof *plan + 63u) / 64u);
    }
}

void mc_region_plan_prefetch(const struct mc_region_plan* plan)
{
    if (plan == NULL || (plan->certificate == 0u && !plan->by_pairs) || plan->data == NULL)
    {
        return;
    }
    if (plan->by_pairs && plan->pairs != NULL)
    {
        // The kept pairs' combinatorics, compared first (plan_same_pairs).
        mc_prefetch_bytes(plan->pairs, 4u * (size_t)PLAN_PAIR_WORDS * plan->pair_count, 16u);
    }
    mc_prefetch_bytes(
        plan->data,
        4u * (size_t)plan->id_count + 2u * ((size_t)plan->record_count + plan->order_words + plan->node_count), 64u);
}

/// mc_query_regions, with the regions' derivatives when `derivatives` is not NULL (capacity entries).
static mc_status query_regions(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                               const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                               mc_region* regions, uint32_t capacity, uint32_t* region_count, mc_query_stats* stats,
                               mc_region_derivative* derivatives)
{
    MC_ASSERT(options == NULL || options->internal_value == (int)MC_DEF_COOKIE);
    if (mesh_i == NULL || pose_i == NULL || mesh_j == NULL || pose_j == NULL || ws == NULL || region_count == NULL ||
        (capacity > 0 && regions == NULL) || (options != NULL && options->internal_value != (int)MC_DEF_COOKIE))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (!mc_pose_is_valid(pose_i) || !mc_pose_is_valid(pose_j))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (mesh_i->flipped && mesh_j->flipped)
    {
        return MC_ERR_UNBOUNDED;
    }
    mc_query_options opt = options != NULL ? *options : mc_default_query_options();
    if (opt.depth_method == MC_DEPTH_DEFAULT)
    {
        opt.depth_method = MC_DEPTH_ADAMS;
    }
    if (opt.depth_method != MC_DEPTH_ADAMS && opt.depth_method != MC_DEPTH_VOLUME_AREA &&
        opt.depth_method != MC_DEPTH_EXTENT && opt.depth_method != MC_DEPTH_SMOOTH)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_query_stats local;
    mc_query_stats* st = stats != NULL ? stats : &local;
    memset(st, 0, sizeof *st);
    mc_pose pi = *pose_i, pj = *pose_j; // the quaternions normalised, as the pair query does
    pi.q = mc_quat_normalize(pi.q);
    pj.q = mc_quat_normalize(pj.q);
    // J in I's frame: R_i^T (p_j - p_i), the difference first (exact for bodies near each other, wherever they are).
    mc_pose j_in_i;
    j_in_i.q = mc_quat_mul(mc_quat_conj(pi.q), pj.q);
    j_in_i.p = mc_quat_rotate(mc_quat_conj(pi.q), mc_sub(pj.p, pi.p));
    if (ws->plan != NULL && derivatives == NULL)
    {
        mc_region_plan_prefetch(*ws->plan);
    }
    mc_pair_result pr;
    mc_status status = mc_collide_front(mesh_i, mesh_j, &j_in_i, opt.worker_count, &ws->pairs, ws->front, &pr, st);
    if (status != MC_OK)
    {
        return status;
    }
    double t0 = mc_now_seconds();
    mc_region_options ro = mc_default_region_options();
    ro.depth_method = opt.depth_method;
    ro.derivatives = derivatives;
    uint32_t n = 0;
    status = mc_regions_compute(mesh_i, mesh_j, &j_in_i, &pr, ws, &ro, regions, capacity, &n, st);
    if (status != MC_OK && status != MC_ERR_CAPACITY)
    {
        return status;
    }
    uint32_t written = n < capacity ? n : capacity;
    for (uint32_t k = 0; k < written && opt.depth_method == MC_DEPTH_SMOOTH; ++k)
    {
        if (mc_smooth_depth(mesh_i, mesh_j, &j_in_i, &regions[k], ws) != MC_OK)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    for (uint32_t k = 0; k < written; ++k)
    {
        mc_region* r = &regions[k];
        r->centroid = mc_pose_transform(&pi, r->centroid);
        r->point_i = mc_pose_transform(&pi, r->point_i);
        r->point_j = mc_pose_transform(&pi, r->point_j);
        r->normal = mc_quat_rotate(pi.q, r->normal);
        r->s_i = mc_quat_rotate(pi.q, r->s_i);
        r->s_j = mc_quat_rotate(pi.q, r->s_j);
        if (!region_is_finite(r))
        {
            // Coordinates in range keep every quantity finite; this guards the promise that NaN never leaves.
            MC_ASSERT(false && "mc_query_regions: non-finite region");
            return MC_ERR_OUT_OF_RANGE;
        }
    }
    if (ws->patch_manifold > 0 && derivatives == NULL)
    {
        // Opt-in contact patches (mc_query_patches, or a world with patches on): from these pairs and the labels
        // the region stage left in the scratch.
        mc_status ps = mc_patches_build(ws, mesh_i, mesh_j, &pr, &pi, &j_in_i, regions, written, ws->patch_manifold);
        if (ps != MC_OK)
        {
            return ps;
        }
    }
    *region_count = n;
    st->seconds_regions = mc_now_seconds() - t0;
    return status;
}

mc_status mc_query_regions(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j, const mc_pose* pose_j,
                           const mc_query_options* options, mc_workspace* ws, mc_region* regions, uint32_t capacity,
                           uint32_t* region_count, mc_query_stats* stats)
{
    if (mesh_i == NULL || mesh_j == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_mesh_use_begin(mesh_i); // debug builds: a deformation of either mesh during the query is asserted
    mc_mesh_use_begin(mesh_j);
    mc_status st =
        query_regions(mesh_i, pose_i, mesh_j, pose_j, options, ws, regions, capacity, region_count, stats, NULL);
    mc_mesh_use_end(mesh_i);
    mc_mesh_use_end(mesh_j);
    return st;
}

mc_status mc_query_regions_derivatives(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                       const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                       mc_region* regions, mc_region_derivative* derivatives, uint32_t capacity,
                                       uint32_t* region_count)
{
    if (derivatives == NULL && capacity > 0)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    return query_regions(mesh_i, pose_i, mesh_j, pose_j, options, ws, regions, capacity, region_count, NULL,
                         derivatives);
}
