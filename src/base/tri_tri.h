// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact triangle-triangle crossings between a triangle of body I and a triangle of body J (both in I's frame).
// Based on: O. Devillers, P. Guigue, "Faster Triangle-Triangle Intersection Tests", INRIA RR-4488, 2002 (the
// interval-ordering idea, re-derived for the symbolic rule below); J. R. Shewchuk 1997 for the predicates.
//
// Symbolic rule (the only tie-break in the library): body J is translated by the infinitesimal vector
// delta = (eps, eps^2, eps^3), 0 < eps << 1, expressed in I's frame. Every predicate that mixes points of both
// bodies is decided for that translated configuration, which is exact and generic for every sign the pipeline
// needs, so neighbouring tests never disagree. With orient(a, b, c, d) = det[b - a, c - a, d - a] (predicates.h):
//
// R1 (vertex vs plane). For a point d of J and a triangle (a, b, c) of I, with N = (b - a) x (c - a) computed exactly:
//    orient(a, b, c, d + delta) = orient(a, b, c, d) + N . delta. When orient(a, b, c, d) == 0 exactly, the sign is
//    the sign of the first non-zero component of N (x, then y, then z). For a point of I and a triangle of J the
//    sign is the opposite (-N . delta: I moves by -delta relative to J). Mesh triangles are never zero-area, so
//    N != 0 and the perturbed sign is never 0 (for a triangle that rounding made exactly degenerate in I's frame,
//    see mc_tri_tri_crossings).
// R2 (edge vs edge). For an edge (a, b) of I and an edge (d, e) of J:
//    orient(a, b, d + delta, e + delta) = orient(a, b, d, e) + delta . ((e - d) x (b - a))   (exactly; the delta^2
//    term is a triple product with delta twice and vanishes). When orient(a, b, d, e) == 0 the sign is that of the
//    first non-zero component of the exact (e - d) x (b - a). orient(p, q, r, s) == orient(r, s, p, q), so the
//    pair order does not matter. The term vanishes identically only for parallel edges; see R4.
// R3 (direction). An edge p0 -> p1 crosses a triangle with normal n only if the perturbed signs of p0 and p1 are
//    opposite. Since orient(.., p1 + delta) - orient(.., p0 + delta) = (p1 - p0) . n exactly, a crossing always
//    has (p1 - p0) . n != 0 (an edge parallel to the plane has equal perturbed signs at both ends: it never
//    straddles) and the direction is read from the end signs: entering (+1) iff p0 is on the positive
//    (outward) side.
// R4 (parallel edges never matter). If the crossing edge p0 -> p1 were parallel to an edge (a, b) of the triangle,
//    it would be parallel to the triangle's plane ((p1 - p0) . n = 0 since (b - a) . n = 0), so by R3 it does not
//    straddle the plane and the edge-edge determinant is never evaluated. Hence every edge-edge sign the tests
//    evaluate is decided by R2 and non-zero. (For the record: if it were needed, the side of the perturbed crossing
//    point relative to line (a, b) inside the plane would be the sign of delta . (n x (b - a)) for a J edge.)
//
// Consequences. Under the rule no point of one body lies on a plane of the other, no two edges meet, no two faces
// are coplanar: every triangle pair is either disjoint or crosses transversally, and its intersection segment has
// exactly two ends, each an edge of one triangle crossing the interior of the other. Coplanar triangles never
// cross. Identical meshes at identical poses are resolved as "J translated by delta" (the overlap is the whole
// solid, crossed along the seam where the surface normal is orthogonal to delta). Exact touching (two boxes face
// to face) yields no crossing when delta moves J away from I and crossings of zero volume when delta moves J into
// I (the region stage drops zero-volume regions). Crossing points are computed after all signs are fixed, in
// floating point: x = p0 + t (p1 - p0), t = o0 / (o0 - o1) with o the orient values of the edge ends against the
// plane (exact values when the filter was inconclusive), clamped to [0, 1], the edge walked from its
// lexicographically smaller end so that the same edge-face crossing gets bitwise the same point in every pair;
// an end exactly on the plane gives exactly that end (the limit point).
#pragma once

#include "meshcontact/query.h"
#include "src/base/tri_tri_closed.h"

#include <stdbool.h>
#include <stdint.h>

/// Sign (+1 or -1) of orient(a, b, c, d) under the symbolic rule (R1), for a point d and a triangle (a, b, c) of
/// different bodies. Returns 0 only for an exactly degenerate triangle (collinear corners), see mc_tri_tri_crossings.
/// @param point_body 0 when d belongs to I (triangle to J), 1 when d belongs to J (triangle to I)
/// @param degenerate set to 1 when the exact determinant was zero (left alone otherwise), may be NULL
int mc_sym_orient_point_plane(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d, int point_body,
                              uint8_t* degenerate);

/// Sign (+1 or -1) of orient(p0, p1, a, b) under the symbolic rule (R2), for an edge (p0, p1) and an edge (a, b) of
/// different bodies. Returns 0 only when the edges are parallel (or one has zero length): see R4.
/// @param edge_body 0 when (p0, p1) belongs to I ((a, b) to J), 1 when it belongs to J
/// @param degenerate set to 1 when the exact determinant was zero (left alone otherwise), may be NULL
int mc_sym_orient_edge_edge(const mc_vec3* p0, const mc_vec3* p1, const mc_vec3* a, const mc_vec3* b, int edge_body,
                            uint8_t* degenerate);

/// Edge (p0 -> p1) of one body against triangle (a, b, c) of the other body, all in I's frame.
/// @param edge_body 0 when the edge belongs to I (triangle to J), 1 when the edge belongs to J (triangle to I)
/// @param point receives the crossing point (computed after the signs are fixed), may be NULL; written only when
///        the edge crosses
/// @param degenerate receives 1 when a deciding determinant (the two plane tests, and the three edge-edge tests when
///        reached) was exactly zero, else 0; may be NULL
/// @return 0 when the edge does not cross the triangle; +1 when it crosses entering the triangle's solid
///         ((p1 - p0) . n < 0 with n = (b - a) x (c - a), the outward normal); -1 when it crosses leaving it
int mc_edge_triangle_cross(mc_vec3 p0, mc_vec3 p1, mc_vec3 a, mc_vec3 b, mc_vec3 c, int edge_body, mc_vec3* point,
                           uint8_t* degenerate);

/// All crossings between triangle ti of I and triangle tj of J (both in I's frame, counter-clockwise from outside).
/// `out[k].point` is in I's frame. Under the symbolic rule the count is 0 or 2. The two crossings are the ends of
/// the intersection segment, ordered along ni x nj (ni, nj the triangles' normals). Each crossing is bitwise the
/// one mc_edge_triangle_cross returns for the same edge and triangle. `degenerate` is set on both crossings when
/// any determinant evaluated for the pair was exactly zero.
/// Meshes have no zero-area triangles, but a sliver of J can become exactly degenerate (collinear corners) once its
/// vertices are rounded into I's frame. Such a triangle has no interior: no edge crosses it, while its own edges may
/// cross the other triangle, always two of them (its long edge and one short edge) or none, so the count stays 0 or 2
/// and matches the neighbouring pairs; those two crossings are ordered by edge index and flagged degenerate.
/// @return number of crossings written to out (0 or 2)
int mc_tri_tri_crossings(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[2]);

/// mc_tri_tri_crossings on triangles prepared by mc_tri_plane_init (tri_tri_closed.h: corners, normal and filter sums,
/// the very operations this test does per call), for a triangle tested against several others: bitwise the same
/// result as mc_tri_tri_crossings(ti->v, tj->v, out).
/// @return number of crossings written to out (0 or 2)
int mc_tri_tri_crossings_planes(const mc_tri_plane* ti, const mc_tri_plane* tj, mc_crossing out[2]);

/// mc_tri_tri_crossings and mc_tri_tri_crossings_planes (the same count and crossings) that also tell an exactly
/// coplanar pair: *coplanar = 1 when the three corners of ti lie exactly in tj's plane (orient3d 0: the tie R1 then
/// breaks, the pair never crosses), else 0. Flush faces (src/contact/regions.c) are found from these pairs.
int mc_tri_tri_crossings_tie(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[2], int* coplanar);
int mc_tri_tri_crossings_planes_tie(const mc_tri_plane* ti, const mc_tri_plane* tj, mc_crossing out[2], int* coplanar);

/// A coordinate axis along which triangle t's plane projects one to one (the exact component of its normal along the
/// axis is not zero; the largest float component's axis when it is), or -1 for an exactly degenerate triangle. The
/// in-plane tests below take it.
int mc_tri_coplanar_axis(const mc_vec3 t[3]);

/// Do the open triangles ti and tj, lying exactly in one plane, overlap (positive area)? Exact: not when an edge of
/// either has the other triangle on its closed outer side (separating axes in the plane, seen along `axis`, from
/// mc_tri_coplanar_axis of either; -1: false).
bool mc_tri_coplanar_overlap(const mc_vec3 ti[3], const mc_vec3 tj[3], int axis);

/// mc_tri_coplanar_overlap(ti->v, tj->v, mc_tri_coplanar_axis(ti->v)) on prepared triangles (mc_tri_plane_init): the
/// axis and the in-plane orientations from the stored normals where their filter decides; the same answer.
bool mc_tri_coplanar_overlap_planes(const mc_tri_plane* ti, const mc_tri_plane* tj);

/// Does the open segment (e0, e1) meet the open triangle t, all in one plane (seen along `axis`)? Exact: not when t
/// lies on one closed side of the segment's line or the segment on the closed outer side of an edge of t.
bool mc_segment_meets_coplanar_triangle(const mc_vec3* e0, const mc_vec3* e1, const mc_vec3 t[3], int axis);

/// Steps 2 to 5 of mc_tri_tri_crossings_planes for a caller that decided step 1 itself (the pair stage evaluates the
/// six plane tests on vector lanes): oi[k] is orient(tj, ti[k]) and oj[k] is orient(ti, tj[k]) computed exactly as
/// the filter of mc_tri_tri_crossings computes them (the operations of mc_tri_plane_init and predicates.h's orient3d
/// filter, in the same order), each beyond its filter bound, and si, sj their signs (+1 or -1), each triple
/// straddling (not all equal). Then bitwise the same result as mc_tri_tri_crossings_planes(ti, tj, out); a caller
/// whose filter was inconclusive anywhere calls that instead.
/// @return number of crossings written to out (0 or 2)
int mc_tri_tri_crossings_sides(const mc_tri_plane* ti, const double oi[3], const int si[3], const mc_tri_plane* tj,
                               const double oj[3], const int sj[3], mc_crossing out[2]);
