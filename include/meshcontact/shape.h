// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic geometries beside meshes (spheres, planes and cylinders, as Adams' analytic contacts) and the region query
// between any two shapes: closed forms for the analytic pairs, an exact clip for a mesh against a plane.
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
        /// a solid cylinder of mc_shape.radius and mc_shape.length along the body z axis, centred on the origin; with
        /// `flip`, a hole: the material around the cylinder (unbounded across) between its two end planes, a slab
        /// pierced by the hole (a pin in a hole is a cylinder against a flipped one)
        MC_SHAPE_CYLINDER = 3,
    } mc_shape_type;

    /// A geometry of a body. Make one with mc_shape_mesh, mc_shape_sphere or mc_shape_plane.
    typedef struct mc_shape
    {
        mc_shape_type type;  ///< what the shape is
        const mc_mesh* mesh; ///< MC_SHAPE_MESH: the mesh (its own flip flag says whether the solid is the outside)
        double radius;       ///< MC_SHAPE_SPHERE, MC_SHAPE_CYLINDER: radius, finite and > 0
        double length;       ///< MC_SHAPE_CYLINDER: length along the body z axis, finite and > 0
        /// MC_SHAPE_SPHERE: the solid is the outside of the sphere (a spherical socket, Adams IFLIP_GEOMETRY);
        /// MC_SHAPE_CYLINDER: a hole (see MC_SHAPE_CYLINDER)
        bool flip;
    } mc_shape;

    /// @return a mesh shape (the mesh must outlive every query that uses it).
    MC_API mc_shape mc_shape_mesh(const mc_mesh* mesh);
    /// @return a ball of the given radius centred on the body origin.
    MC_API mc_shape mc_shape_sphere(double radius);
    /// @return the half-space z <= 0 of the body frame (an unbounded floor: turn and place it with the pose).
    MC_API mc_shape mc_shape_plane(void);
    /// @return a cylinder of the given radius and length along the body z axis, centred on the body origin.
    MC_API mc_shape mc_shape_cylinder(double radius, double length);

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
    ///   the plane counts as above). A cavity's shell wholly below the plane joins the piece around it; one that the
    ///   plane cuts (or whose piece the plane separates) is a region of its own, of negative volume (the total right).
    /// - sphere, mesh: one region, the whole intersection of the ball and the mesh's solid, exactly integrated: with
    /// the
    ///   pyramids from the centre over the faces (signed by the side of the centre, decided exactly), the ball's part
    ///   of each is a cone of radius R minus what lies beyond the face; only faces that meet the ball contribute
    ///   (solid angles, circular sectors and triangles of each face's disk inside the ball, in closed form; the caps'
    ///   sector terms without cancellation), plus the whole ball when the centre is inside. Area = |S_J| (the mesh's
    ///   surface inside the ball), depth = R - the distance from the centre to the surface (R + it with the centre
    ///   inside), point_i / point_j the ball's deepest point and the surface's closest one. A centre exactly on an
    ///   edge or vertex of the mesh (on the planes of two faces) is moved by 2^-27 R first (about 1e-8 relative).
    ///   Not for a socket or a flipped mesh. Accuracy: a face that misses the ball adds nothing, a face wholly
    ///   inside is one term, a face the sphere cuts is summed from a point of its own boundary (its thin circular
    ///   segments' shares of the ball's cone by a 20-point Gauss rule without cancellation; arcs of 90 degrees or
    ///   more around the foot, as before): on a 120-triangle torus (L = 2.6) cut by a ball's surface, the volume's
    ///   spread over turns of the whole scene is 6e-13 of the torus's volume at R = 2^9 and 3e-10 at 2^18 (test
    ///   analytic::a_ball_much_larger_than_a_mesh_keeps_its_volume_under_turns). A face farther from the centre than
    ///   8 times its size (or a cut face, than 8 times the size of its part in the disk) takes its term (volume, first
    ///   moment about a point of the mesh, area) by quadrature of the solid between its part in the disk and the sphere
    ///   along the rays from the centre, whose integrand has no term of order R^4: an n x n Gauss rule on its
    ///   triangles, n from 3 to 8 by its distance (error below 1e-17), and 8 x 3 to 20 x 8 points on its thin circular
    ///   segments; nearer faces keep the closed forms about the centre. The centroid's error then follows the volume's
    ///   (a few eps R, the rounding of the centre R away): against an independent integration of a unit cube under a
    ///   sphere, 2e-15 at R = 16 and 7e-10 at 2^20
    ///   (analytic::a_ball_much_larger_than_a_cube_matches_the_integrated_centroid; summed about the centre it was
    ///   1e-11 and 1e8), and 1.5e-10 of spread over turns for the torus at 2^16 (it was 0.3 at 2^12). Cost: a ball of
    ///   radius 0.05 to 30 on a plate of 120 000 triangles (faces 0.0045 across) takes 1.17 to 1.38 times as long as
    ///   the closed forms alone.
    /// - cylinder, cylinder with parallel axes (|sin| of the angle <= 1e-12): the lens of the two circles times the
    ///   axial overlap (rollers side by side, stacked discs), or a pin in a hole (a flipped cylinder): the pin's
    ///   circle minus the lens, over the hole's slab; closed forms, the thin lens's segments by their series; area
    ///   = |S_I| (the pin's side inside the other, and its end faces when they lie inside), depth = the radial
    ///   penetration, or the axial overlap when that is smaller.
    /// - cylinder, plane, any tilt: one region in closed form (lying: L times a circular segment; standing: the cap's
    ///   disk pressed in; tilted: a cap's edge, the side and both caps, or the whole cylinder below). Slices across
    ///   the axis are disks cut by a chord whose height is linear along the axis; the volume, the first moments and
    ///   the cut are the zone's length times means over the chord's half angle in closed forms whose terms are all
    ///   >= 0 (the axial moment's spread by a 20-point Gauss rule whose remainder is below 5e-28), so they keep
    ///   their digits as the cylinder nears lying or standing and down to tiny depths. Area = the plane's cut
    ///   through the solid (an ellipse segment, a disk, a cap's disk when standing), normal the plane's (from the
    ///   cylinder into the plane), depth h = the height of the plane above the cylinder's deepest point (point_i:
    ///   that point on a cap's rim, the middle of the lowest line or the cap's centre when it lies or stands
    ///   exactly; point_j: its projection on the plane). A cylinder wholly below: its volume, area 0, zero normal.
    ///   The plane's normal in the cylinder's frame comes from the two rotations, a few ulps off: the heights of
    ///   points a length L away move by ~4e-16 (R + L), which is the relative accuracy of h near 0 (and of the cut
    ///   when the plane nears the cylinder's top).
    /// - cylinder, mesh (closed, not flipped): one region, the whole intersection of the solid cylinder and the mesh's
    ///   solid (its pieces together), exactly integrated in the cylinder's frame (src/contact/cylinder_mesh.c): by the
    ///   divergence theorem with fields along the axis (the side adds nothing), the volume and first moments are sums
    ///   over each face's part inside the cylinder (the face clipped to the slab |z| <= L/2 and, in projection, to
    ///   the disk: a polygon integrated in the face's plane plus circular segments, by a 20-point Gauss rule over
    ///   their angle whose integrands are >= 0 and whose remainder is below 1e-30) and over the caps' parts inside
    ///   the mesh (the mesh's section, from the triangles cut at canonical points, fanned from the axis, plus the
    ///   whole disk when the cap's centre is inside; a section that never meets the circle by its own shoelace plus
    ///   whole disks, so a small mesh inside a wide cylinder has no terms of size R^2). A face nearly parallel to the
    ///   axis keeps its digits (its polygon in its own plane, cut exactly at z = +-L/2; its segments' terms scale with
    ///   its projected width, and a segment whose slope would leave the slab is the rounding of a projection a few
    ///   ulps wide, left out). An edge's crossings of the circle are solved from its end nearer the axis, so a needle
    ///   far thinner than the rounding of the mesh's coordinates keeps its volume through a mesh vertex (half the
    ///   cylinder on a cube's corner to 3e-15 at r = 2^-50, exactly at 2^-70). Area = |S_J| (the mesh's
    ///   surface inside the cylinder, from each face's area inside it), normal -S_J / |S_J|. Depth: radial,
    ///   R - rho (rho: the smallest distance from the axis of the mesh's surface within the slab; R + rho when the
    ///   axis lies behind that face, inside the mesh), or axial, L/2 - (the smallest |z| of the mesh's surface inside
    ///   the cylinder), the smaller; point_i the cylinder's deepest point, point_j that point of the surface. The
    ///   cylinder wholly inside the mesh: its volume, area 0, depth R + rho over the faces within its bounding ball
    ///   (R when none is). Accuracy: the sums' terms are of the size of the region, a few ulps each, except the
    ///   rounding of the mesh's vertices turned into the cylinder's frame (~1e-16 times their distance from it).
    ///   Vertices are turned once and compared with the end planes and the radius exactly, the same way by every
    ///   triangle, so the pieces of the boundary close. A section through a cap's centre takes the side that
    ///   mc_mesh_contains_point gives the centre; a corner of it there (an edge of the mesh through the centre) is
    ///   evaluated with the cylinder moved by 2^-27 R across its axis (about 1e-8 relative, as the ball's).
    /// - cylinder, sphere (both solid): one region by slices across the axis (src/contact/cylinder_sphere.c): the
    ///   lens of the cylinder's disk and the ball's slice, integrated along the axis (volume, first moments, and the
    ///   half common chord, whose integral gives the side's area vector), on pieces cut where the circles touch,
    ///   each with z = z0 + (z1 - z0)(1 - cos t) / 2 (which makes the square-root ends analytic) and 20-point Gauss
    ///   panels halved until a panel and its halves agree to 1e-15 of each integral's scale (60 to 260 slices, 70 to
    ///   110 us on the test machine). Area = |S_I| (the cylinder's side and caps inside the ball), normal
    ///   S_I / |S_I|; depth as a ball against a mesh:
    ///   the ball's radius - the distance from its centre to the cylinder's surface (+ it with the centre inside);
    ///   point_i that surface point, point_j the ball's deepest point.
    /// What stays MC_ERR_UNSUPPORTED: a cylinder against a socket, cylinders that are not parallel (crossed), a hole
    /// (flipped cylinder) against a mesh or a ball, a cylinder against a flipped mesh.
    /// Either order of a pair works (the regions are mirrored: normal negated, I and J fields swapped).
    /// @return MC_OK, MC_ERR_CAPACITY (as in mc_query_regions), MC_ERR_INVALID_ARGUMENT (NULL argument, a bad
    ///         radius, a mesh shape without a mesh, a pose outside the coordinate range), MC_ERR_UNBOUNDED (both
    ///         solids unbounded: a plane or socket against a plane, socket or flipped mesh), MC_ERR_UNSUPPORTED (a
    ///         socket against a mesh, a sphere against a flipped mesh, the cylinder pairs above),
    ///         MC_ERR_OUT_OF_MEMORY, MC_ERR_OUT_OF_RANGE (a non-finite result).
    MC_API mc_status mc_query_shape_regions(const mc_shape* shape_i, const mc_pose* pose_i, const mc_shape* shape_j,
                                            const mc_pose* pose_j, const mc_query_options* options, mc_workspace* ws,
                                            mc_region* regions, uint32_t capacity, uint32_t* region_count,
                                            mc_query_stats* stats);

    /// Which pairs of shapes mc_query_shape_regions computes, from their kinds alone (no mesh, no pose needed: a host
    /// or a dataset reader decides before it builds anything, e.g. to tessellate an analytic shape instead).
    /// @param type_a, type_b the kinds; @param flip_a, flip_b whether the solid is the outside (a socket or a hole
    ///        for analytic shapes; for a mesh, the flip flag it was created with: mc_mesh_report.flipped)
    /// @param parallel_only may be NULL; receives true when the pair is computed only while the two axes are
    ///        parallel (two cylinders: crossed ones give MC_ERR_UNSUPPORTED at query time), false otherwise
    /// @return MC_OK (computed), MC_ERR_UNSUPPORTED (not computed at any pose), MC_ERR_UNBOUNDED (two unbounded solids:
    ///         a plane, socket, hole or flipped mesh against another), MC_ERR_INVALID_ARGUMENT (an unknown kind)
    MC_API mc_status mc_shape_pair_support(mc_shape_type type_a, bool flip_a, mc_shape_type type_b, bool flip_b,
                                           bool* parallel_only);

#ifdef __cplusplus
}
#endif
