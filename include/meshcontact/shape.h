// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic geometries beside meshes (spheres and planes, as Adams' analytic contacts) and the region query between
// any two shapes: closed forms for the analytic pairs, an exact clip for a mesh against a plane.
#pragma once

#include "meshcontact/query.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// Kinds of shape.
    typedef enum mc_shape_type
    {
        MC_SHAPE_MESH = 0,   ///< a closed triangle mesh (mc_shape.mesh)
        MC_SHAPE_SPHERE = 1, ///< a ball of mc_shape.radius centred on the body origin
        MC_SHAPE_PLANE = 2,  ///< the half-space z <= 0 of the body frame: its surface is the plane z = 0, outward +z
    } mc_shape_type;

    /// A geometry of a body. Make one with mc_shape_mesh, mc_shape_sphere or mc_shape_plane.
    typedef struct mc_shape
    {
        mc_shape_type type;  ///< what the shape is
        const mc_mesh* mesh; ///< MC_SHAPE_MESH: the mesh (its own flip flag says whether the solid is the outside)
        double radius;       ///< MC_SHAPE_SPHERE: radius, finite and > 0
        /// MC_SHAPE_SPHERE: the solid is the outside of the sphere (a spherical socket, Adams IFLIP_GEOMETRY)
        bool flip;
    } mc_shape;

    /// @return a mesh shape (the mesh must outlive every query that uses it).
    MC_API mc_shape mc_shape_mesh(const mc_mesh* mesh);
    /// @return a ball of the given radius centred on the body origin.
    MC_API mc_shape mc_shape_sphere(double radius);
    /// @return the half-space z <= 0 of the body frame (an unbounded floor: turn and place it with the pose).
    MC_API mc_shape mc_shape_plane(void);

    /// Intersection regions of two shapes at their poses, as mc_query_regions gives them for two meshes (same fields,
    /// same conventions: world frame, normal from the first shape into the second, sorted by decreasing volume).
    /// Pairs and how they are computed:
    /// - mesh, mesh: mc_query_regions.
    /// - sphere, plane: one region in closed form: penetration h = R - (height of the centre above the plane), volume
    ///   pi h^2 (3R - h) / 3, area pi (2 R h - h^2), centroid on the plane's normal through the centre, depth h
    ///   (point_i and point_j: the sphere's deepest point and the point of the plane above it). A ball entirely
    ///   below the plane: its volume, area 0, zero normal.
    /// - sphere, sphere: the lens of two balls (external), or a ball in a spherical socket (one sphere flipped: the
    ///   ball minus the socket's ball), in closed form; area pi a^2 (a: radius of the circle where the spheres meet),
    ///   depth R1 + R2 - d (external) or d + R1 - R2 (socket), normal along the line of the centres. A ball entirely
    ///   inside the other: its volume, area 0, zero normal.
    /// - mesh, plane: the mesh's solid cut by the half-space exactly as a polyhedron (each triangle clipped at the
    ///   plane, the cut face contributing nothing with the origin on the plane); one region per connected piece of the
    ///   mesh below the plane; area = the area of the cut (|S_I|), depth = the deepest vertex below the plane
    ///   (point_i that vertex, point_j its projection), inside_vertices = vertices below, crossings = edges cut.
    ///   Decisions use each vertex's height above the plane as computed once in the mesh's frame (a vertex exactly on
    ///   the plane counts as above).
    /// Either order of a pair works (the regions are mirrored: normal negated, I and J fields swapped).
    /// @return MC_OK, MC_ERR_CAPACITY (as in mc_query_regions), MC_ERR_INVALID_ARGUMENT (NULL argument, a bad
    ///         radius, a mesh shape without a mesh, a pose outside the coordinate range), MC_ERR_UNBOUNDED (both
    ///         solids unbounded: a plane or socket against a plane, socket or flipped mesh), MC_ERR_UNSUPPORTED (a
    ///         sphere against a mesh: not yet), MC_ERR_OUT_OF_MEMORY, MC_ERR_OUT_OF_RANGE (a non-finite result).
    MC_API mc_status mc_query_shape_regions(const mc_shape* shape_i, const mc_pose* pose_i, const mc_shape* shape_j,
                                            const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                            mc_region* regions, uint32_t capacity, uint32_t* region_count,
                                            mc_query_stats* stats);

#ifdef __cplusplus
}
#endif
