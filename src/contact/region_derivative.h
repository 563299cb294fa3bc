// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic first derivatives of a region's sums (volume, first moment, vector areas) and derived quantities (centroid,
// area, normal, depth) under an infinitesimal rigid motion of J relative to I, with the region's combinatorics held
// fixed (its crossings, inside vertices, whole faces and the features of its closest points).
#pragma once

#include "meshcontact/query.h"

#include <stdbool.h>
#include <stdint.h>

/// Derivative slots: J's motion in I's body frame, a point x of J moving by delta + theta x x (slots 0..2: delta,
/// 3..5: theta, a rotation vector about I's frame origin).
#define MC_DSLOTS 6

/// A vector with its derivatives along the six slots.
typedef struct mc_dvec
{
    mc_vec3 v;            ///< value
    mc_vec3 d[MC_DSLOTS]; ///< derivative along each slot
} mc_dvec;

/// Derivatives of one region's sums (the values are the region stage's own).
typedef struct mc_region_dsums
{
    double volume_x6[MC_DSLOTS];   ///< d(6 V)
    mc_vec3 moment_x24[MC_DSLOTS]; ///< d(24 first moment about the region's origin)
    mc_vec3 area_x2[2][MC_DSLOTS]; ///< d(2 S_I), d(2 S_J)
    double gn[9];                  ///< sum of G N^T of J's whole faces and blocks about the origin in J's frame
    double ext_t[2];               ///< extent depth: the lowest and highest n . x of the region's points
    mc_dvec ext_x[2];              ///< the points where they are reached, with their derivatives
} mc_region_dsums;

/// The rigid part of the J sums (whole faces and inside blocks, summed in J's frame about origin_j).
typedef struct mc_region_jsums
{
    mc_mat33 rot_j;     ///< rotation J -> I
    double volume_x6;   ///< 6 V of J's whole faces
    mc_vec3 moment_x24; ///< 24 * their first moment about origin_j, J's frame
    mc_vec3 area_x2;    ///< 2 * their vector area, J's frame
} mc_region_jsums;

/// The closest point of one surface (Adams depth) and the feature of its triangle it lies on.
typedef struct mc_closest_feature
{
    mc_vec3 point; ///< I's frame
    int kind;      ///< 0: a vertex (or no triangle known), 1: an edge, 2: the interior of a face
    mc_vec3 axis;  ///< unit edge direction (kind 1) or unit face normal (kind 2), I's frame
} mc_closest_feature;

/// Bits of mc_region_derivative.flags.
enum
{
    MC_RDERIV_DEPTH_KINK = 1u << 0, ///< the depth is 0 or its closest points coincide: no derivative (0 given)
    MC_RDERIV_NO_DEPTH = 1u << 1,   ///< the depth method has no analytic derivative here (0 given)
};

/// Derivatives of one region's quantities along the six slots (I's body frame).
typedef struct mc_region_derivative
{
    double volume[MC_DSLOTS];
    mc_vec3 centroid[MC_DSLOTS];
    double area[MC_DSLOTS];
    mc_vec3 normal[MC_DSLOTS];
    double depth[MC_DSLOTS];
    uint32_t flags; ///< MC_RDERIV_* bits
} mc_region_derivative;

/// A point of J (I's frame): d = e_k (translations), e_k x x (rotations).
mc_dvec mc_dvec_point_j(mc_vec3 x);
/// A direction of J (I's frame): d = 0 (translations), e_k x n (rotations).
mc_dvec mc_dvec_dir_j(mc_vec3 n);
/// A fixed vector (I's geometry).
mc_dvec mc_dvec_fixed(mc_vec3 v);

/// The crossing point x of edge p0 -> p1 of body `body` through the plane (normal nt) of a face of the other body,
/// with its derivatives.
mc_dvec mc_region_crossing_point(int body, mc_vec3 x, mc_vec3 p0, mc_vec3 p1, mc_vec3 nt);

/// Extent depth: offer point x (with its derivatives) at height t = n . x along the region's normal (strict
/// comparisons, in the region stage's order, so the same points are chosen). Initialise ext_t to +inf, -inf.
void mc_region_dsums_extent_point(mc_region_dsums* s, const mc_dvec* x, double t);

/// The six flags of a crossing of edge p0 -> p1 of body `body` (faces with outward normals n1 = face of the half-edge,
/// n2 = face of its twin) through the face of the other body with normal nt, at point x, entering sign ent, summed
/// about origin o (as regions.c's add_crossing_flags, in derivative form). Bit k of no_area set: flag k (in
/// add_crossing_flags' order: 0 and 2 on face 1, 1 and 4 on face 2, 3 and 5 on the crossed face) adds no vector area
/// (a pure flush face).
void mc_region_dsums_crossing(mc_region_dsums* s, int body, mc_vec3 x, mc_vec3 o, mc_vec3 p0, mc_vec3 p1, mc_vec3 n1,
                              mc_vec3 n2, mc_vec3 nt, double ent, unsigned no_area);

/// A mixed flush face of I (corners p, unit normal n) and its partner of J (corners q, unit normal nq), in one plane:
/// the derivative of the area regions.c takes off S_I (n times twice the area of p clipped by q) taken off d(2 S_I).
/// Through the clipped polygon's corners: I's corners fixed, J's moving with J, their edges' crossings sliding along
/// both (the branches of regions.c's clipped_area_x2 on the same values). Only motions that keep the faces in one
/// plane (J's translations along it, its rotations about its normal) keep the piece flush: the others are kinks.
void mc_region_dsums_flush_area(mc_region_dsums* s, const mc_vec3 p[3], mc_vec3 n, const mc_vec3 q[3], mc_vec3 nq);

/// The two flags of an inside vertex pv of J in its face (next vertex pw, previous pu, outward normal n), about o.
void mc_region_dsums_corner_j(mc_region_dsums* s, mc_vec3 pv, mc_vec3 pw, mc_vec3 pu, mc_vec3 n, mc_vec3 o);

/// Add G N^T of J's whole triangle (a, b, c) (J's frame, relative to origin_j) to s->gn.
void mc_region_dsums_j_triangle(mc_region_dsums* s, mc_vec3 a, mc_vec3 b, mc_vec3 c);

/// Add an inside block's aggregate m - 3 o' s2^T (o' = origin_j - the block's center) to s->gn.
void mc_region_dsums_j_block(mc_region_dsums* s, const double m[9], mc_vec3 s2, mc_vec3 o_rel);

/// From the region's sums (values of regions.c and their derivatives) to the derivatives of its volume, centroid,
/// area, normal and (Adams, volume/area or extent) depth. `closest` is NULL unless the depth method is Adams and
/// both closest points were found.
/// @param origin the region's origin (I's frame), @param volume_x6, moment_x24, area_x2_i the region's total sums
void mc_region_derivative_finish(const mc_region_dsums* s, const mc_region_jsums* j, mc_vec3 origin, double volume_x6,
                                 mc_vec3 moment_x24, mc_vec3 area_x2_i, mc_depth_method method,
                                 const mc_closest_feature closest[2], mc_region_derivative* out);

/// The feature of triangle (a, b, c) that holds the point closest to p (the branch mc_closest_on_triangle takes;
/// regions.c).
mc_closest_feature mc_closest_feature_on_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c);
