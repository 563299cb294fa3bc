// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact triangle-triangle crossings between a triangle of body I and a triangle of body J (both in I's frame).
//
// Symbolic rule (the only tie-break in the library): body J is translated by the infinitesimal vector
// delta = (eps, eps^2, eps^3), 0 < eps << 1, expressed in I's frame. Every predicate that mixes points of both
// bodies is decided for that translated configuration, which is exact and generic for every sign the pipeline
// needs, so neighbouring tests never disagree. (Details and proofs: predicates.h / tri_tri.c.)
#pragma once

#include "meshcontact/query.h"

#include <stdint.h>

/// Edge (p0 -> p1) of one body against triangle (a, b, c) of the other body, all in I's frame.
/// @param edge_body 0 when the edge belongs to I (triangle to J), 1 when the edge belongs to J (triangle to I)
/// @param point receives the crossing point (computed after the signs are fixed), may be NULL
/// @param degenerate receives 1 when a deciding determinant was exactly zero, may be NULL
/// @return 0 when the edge does not cross the triangle; +1 when it crosses entering the triangle's solid
///         ((p1 - p0) . n < 0 with n = (b - a) x (c - a), the outward normal); -1 when it crosses leaving it
int mc_edge_triangle_cross(mc_vec3 p0, mc_vec3 p1, mc_vec3 a, mc_vec3 b, mc_vec3 c, int edge_body, mc_vec3* point,
                           uint8_t* degenerate);

/// All crossings between triangle ti of I and triangle tj of J (both in I's frame, counter-clockwise from outside).
/// `out[k].point` is in I's frame. Under the symbolic rule the count is 0 or 2.
/// @return number of crossings written to out (0 or 2)
int mc_tri_tri_crossings(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[2]);
