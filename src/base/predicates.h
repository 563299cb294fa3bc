// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact geometric predicates: filtered orient3d with an exact fallback on floating-point expansions, and the exact
// lower-order determinants (cross-product components) that the symbolic tie-break rule of tri_tri.h needs.
// Based on: J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates",
// Discrete & Computational Geometry 18:305-363, 1997 (re-implemented from the paper).
//
// Conventions
// - orient(a, b, c, d) = det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a). It is positive when d lies on the
//   side of plane (a, b, c) that the normal (b - a) x (c - a) points to (the outside, for a triangle that is
//   counter-clockwise seen from outside). This is the NEGATIVE of Shewchuk's orient3d(a, b, c, d).
// - Every sign returned here is the sign of the exact real-number result for the double inputs as given: no
//   perturbation. The library's single tie-break rule (body J translated by (eps, eps^2, eps^3)) is built on top of
//   these in tri_tri.h: a zero orient is resolved there by the signs of cross-product components computed here.
//
// Filter (semi-static): the determinant is first evaluated in double precision as n . C with n = A x B and
// A = b - a, B = c - a, C = d - a. A forward error analysis (three rounded differences per product term, two rounded
// products, the rounded 2x2 subtraction and one rounded addition; the last addition cannot change the sign) gives
// |computed - exact| <= (7 eps + O(eps^2)) P with eps = 2^-53 and the permanent
// P = (|Ay Bz| + |Az By|) |Cx| + (|Az Bx| + |Ax Bz|) |Cy| + (|Ax By| + |Ay Bx|) |Cz|. The filter uses 8 eps P
// (computed P), which covers the O(eps^2) terms and the rounding of P. When |computed| <= 8 eps P, or P is below
// MC_PRED_MIN_PERMANENT (where underflow could spoil the relative bound), the exact fallback decides.
//
// Exactness range: the expansion arithmetic (two_sum, two_product by Dekker splitting, expansion sums and scaling)
// is error-free as long as nothing overflows or underflows. This holds when every coordinate is 0 or has a
// magnitude in [2^-300, 2^300]: products of three coordinate differences are then integer multiples of 2^-1074
// and far below the overflow threshold. Outside that range the results are undefined (NaN/inf input included).
#pragma once

#include "meshcontact/vec_math.h"

/// Permanents below this value skip the floating-point filter (underflow could invalidate its relative bound).
#define MC_PRED_MIN_PERMANENT 0x1p-700

/// Relative error bound factor of the orient3d filter: |computed - exact| <= MC_PRED_O3D_BOUND * P (see above).
#define MC_PRED_O3D_BOUND (8.0 * 0x1p-53)

/// Exact orient(a, b, c, d), returned as a double approximation of the exact value (within a relative error of a
/// few units in the last place) whose sign is exact: 0.0 exactly when the determinant is exactly zero.
/// Always runs the expansion arithmetic (slow); prefer mc_orient3d_adapt.
double mc_orient3d_exact(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d);

/// orient(a, b, c, d) through the filter, falling back to mc_orient3d_exact when the filter cannot certify the sign.
/// @return a value with the exact sign (0.0 exactly when the determinant is exactly zero); its magnitude is the
///         floating-point estimate (filter passed) or the exact value rounded (fallback)
double mc_orient3d_adapt(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d);

/// Exact sign (+1, 0, -1) of orient(a, b, c, d).
int mc_orient3d_sign(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d);

/// Exact sign of component `axis` (0 = x, 1 = y, 2 = z) of the cross product (u1 - u0) x (v1 - v0).
int mc_cross_component_sign(const mc_vec3* u0, const mc_vec3* u1, const mc_vec3* v0, const mc_vec3* v1, int axis);

/// Sign of the first non-zero component (x, then y, then z) of the exact cross product (u1 - u0) x (v1 - v0);
/// 0 when the exact cross product is the zero vector (parallel or degenerate inputs). This is the sign of
/// ((u1 - u0) x (v1 - v0)) . (eps, eps^2, eps^3) for an infinitesimal eps > 0, which the symbolic rule uses.
int mc_cross_first_sign(const mc_vec3* u0, const mc_vec3* u1, const mc_vec3* v0, const mc_vec3* v1);
