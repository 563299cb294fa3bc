// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A finite cylinder against a plane's half-space in closed form (the pair of include/meshcontact/shape.h), and the
// circular-segment function it shares with the parallel cylinders of analytic.c.
#pragma once

#include "meshcontact/query.h"

#include <stdint.h>

/// theta - sin(theta) cos(theta): twice the area of a circular segment over r^2, theta its half angle (radians, 0 ..
/// pi); by its series for small theta, where the difference cancels to 2 theta^3 / 3.
double mc_segment_shape(double theta);

/// The solid cylinder I (radius r, length len along its z axis, centred on its origin; lengths in units) against the
/// half-space {x : n . (x - o) <= 0} (J), both given in I's body frame (n a unit vector, o a point of the plane).
/// Writes one region in the world frame (`to_world`: I's pose), with the conventions of mc_query_shape_regions: normal
/// -n (from the cylinder into the half-space), depth h = the height of the plane above the cylinder's deepest point,
/// point_i that point (the middle of the deepest line or disk when the cylinder lies or stands exactly), point_j
/// its projection on the plane; a cylinder wholly below: its volume, area 0, zero normal.
/// @return the number of regions written: 0 when the cylinder is above the plane (h <= 0) or the volume underflows
uint32_t mc_cylinder_plane(double r, double len, mc_vec3 n, mc_vec3 o, const mc_pose* to_world, mc_region* g);
