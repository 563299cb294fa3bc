// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Minimum distance between two triangles (floating point): the closest points of segments, of a vertex and a face,
// and an edge crossing a face.
// Based on: V. J. Lumelsky, "On fast computation of distance between line segments", Information Processing
// Letters 21, 1985 (clamped segment parameters); D. Eberly, "Distance Between Two Triangles in 3D" (the case split).
#pragma once

#include "meshcontact/vec_math.h"

/// Closest points of two triangles.
typedef struct mc_tri_distance
{
    double distance; ///< |point_b - point_a|; 0 when the triangles meet
    mc_vec3 point_a; ///< closest point on the first triangle
    mc_vec3 point_b; ///< closest point on the second triangle
} mc_tri_distance;

/// Closest points of the segments p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in [0, 1] (clamped parameters;
/// parallel segments take s = 0 first). Zero-length segments are allowed.
/// @return the squared distance; *a and *b receive the closest points
double mc_segment_segment_closest(mc_vec3 p0, mc_vec3 p1, mc_vec3 q0, mc_vec3 q1, mc_vec3* a, mc_vec3* b);

/// Minimum distance between triangles a[0..2] and b[0..2] (any common frame, non-degenerate triangles) with a pair
/// of closest points. The minimum is taken over the 9 edge pairs (mc_segment_segment_closest), the 6 vertices whose
/// projection on the other triangle's plane falls inside it (distance to the plane), and the 6 edges that cross the
/// other triangle's interior (distance 0). For triangles that do not meet this is the exact minimum up to rounding
/// (a few ulps of the coordinates and of the distance); a crossing missed by rounding leaves a distance of the order
/// of that rounding.
mc_tri_distance mc_tri_tri_distance(const mc_vec3 a[3], const mc_vec3 b[3]);
