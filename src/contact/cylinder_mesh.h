// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A finite solid cylinder against a closed mesh, exactly integrated (the pair of include/meshcontact/shape.h).
#pragma once

#include "meshcontact/query.h"

#include <stdint.h>

struct mc_mesh;

/// The solid cylinder I (radius r, length len along its body z axis, centred on its origin; pose `pc`) against the
/// solid of mesh m (J, not flipped; pose `pm`): one region in the world frame with the conventions of
/// mc_query_shape_regions (normal from the cylinder into the mesh). `tris` and `tri_cap` are a reusable candidate
/// buffer (mc_bvh_ball_triangles). *count receives 0 (apart) or 1.
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY
mc_status mc_cylinder_mesh(double r, double len, const mc_pose* pc, const struct mc_mesh* m, const mc_pose* pm,
                           uint32_t** tris, uint32_t* tri_cap, mc_region* g, uint32_t* count);

/// The solid cylinder I (radius r, length len along its body z axis, pose `pc`) against the ball J (centre `centre`
/// in the world, radius rs), by slices across the axis (src/contact/cylinder_sphere.c): one region in the world frame
/// with the conventions of mc_query_shape_regions (normal from the cylinder into the ball).
/// @return the number of regions written: 0 (apart, or the volume underflows) or 1
uint32_t mc_cylinder_sphere(double r, double len, const mc_pose* pc, mc_vec3 centre, double rs, mc_region* g);
