// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mass properties of closed meshes (volume, centre of mass, inertia tensor, principal moments and axes), their
// combination for a part made of several meshes, and meshes moved, turned and scaled from another mesh.
#pragma once

#include "base.h"
#include "mesh.h"
#include "vec_math.h"

#ifdef __cplusplus
extern "C"
{
#endif

    /// Mass properties of a solid of uniform density, in the frame of its mesh (the body frame of a body that uses
    /// the mesh). Units: length L of the mesh coordinates, density D in mass / L^3.
    typedef struct mc_mass_properties
    {
        double volume;    ///< enclosed volume (L^3, > 0 for a usable mesh)
        double mass;      ///< density * volume
        mc_vec3 centroid; ///< centre of mass (= centroid of the volume), mesh frame
        /// inertia tensor about the centre of mass, mesh-frame axes (mass L^2): I = density * integral of
        /// (|r|^2 E - r r^T) dV with r = x - centroid. Symmetric, positive definite for a solid.
        mc_mat33 inertia;
        /// the eigenvalues of `inertia` in ascending order (principal moments; each >= 0 and each at most the sum of
        /// the other two, up to rounding)
        mc_vec3 principal_moments;
        /// principal axes as the COLUMNS of a rotation matrix R (det +1): inertia = R diag(principal_moments) R^T.
        /// Column k is the axis of principal_moments[k]. Signs: the largest component of columns 0 and 1 is positive,
        /// column 2 is their cross product. Where moments are equal (a cube, a sphere) the axes among them are not
        /// unique: any orthonormal choice is correct and this one is deterministic.
        mc_mat33 principal_axes;
        /// the same rotation as a unit quaternion (w >= 0): principal frame to mesh frame, so that a body whose pose
        /// is (mesh pose) * (centroid, principal_rotation) is the principal frame
        mc_quat principal_rotation;
    } mc_mass_properties;

    /// Mass properties of a closed mesh at a uniform density, from its triangles by the divergence theorem (each
    /// triangle makes a tetrahedron with a reference point; the sums of the tetrahedra's exact polynomial
    /// integrals are the solid's). Exact up to rounding for the polyhedron the triangles bound (not for the surface
    /// they approximate): two passes, the first with apex at the bounding box centre gives volume and centroid, the
    /// second with apex at the centroid gives the second moments about it (no parallel-axis cancellation, so a mesh
    /// far from its origin loses nothing), each sum compensated (Neumaier). Serial, in triangle order: bitwise the
    /// same on every run and thread count. About 60 ns per triangle (a 1M-triangle sphere: 0.06 s). Cavities (inward
    /// shells) count negatively, as the mesh's volume does. A mesh created with require_closed false and open has no
    /// volume: MC_ERR_MESH_NOT_CLOSED.
    /// @param mesh a mesh (its triangles as mc_mesh_get_indices gives them: cleaned, outward)
    /// @param density mass per unit volume, finite and > 0 (1 gives mass = volume)
    /// @param out receives the properties on success only
    /// @param err may be NULL; filled on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL mesh or out, density not finite and > 0, a flipped mesh: its
    ///         solid is unbounded), MC_ERR_MESH_NOT_CLOSED, MC_ERR_EMPTY_MESH (volume not > 0) or MC_ERR_OUT_OF_RANGE
    ///         (a result overflowed)
    MC_API mc_status mc_mesh_get_mass_properties(const mc_mesh* mesh, double density, mc_mass_properties* out,
                                                 mc_error* err);

    /// Mass properties of a rigid assembly of parts: part k has the properties parts[k] in its own frame, placed by
    /// poses[k] (part frame to assembly frame; NULL: all identity). Masses and volumes add; the centre of mass is the
    /// mass-weighted mean; the inertia about it is the sum of R_k I_k R_k^T + m_k (|d_k|^2 E - d_k d_k^T), d_k the
    /// part's centre of mass less the assembly's (computed after it: no cancellation). Principal moments and axes are
    /// recomputed. Parts may overlap (their volumes are then counted twice, as their masses are).
    /// @param parts count properties (from mc_mesh_get_mass_properties, or a host's own; each mass and volume > 0)
    /// @param poses count poses (quaternions normalised here), or NULL
    /// @param count at least 1
    /// @param out receives the assembly's properties on success only
    /// @param err may be NULL; on failure names the entry (mc_error.index) and the reason
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL, count 0, a non-finite or non-positive mass, a non-finite pose)
    ///         or MC_ERR_OUT_OF_RANGE (a result overflowed)
    MC_API mc_status mc_mass_properties_combine(const mc_mass_properties* parts, const mc_pose* poses, uint32_t count,
                                                mc_mass_properties* out, mc_error* err);

    /// Create a mesh from another, moved, turned and scaled: each point x becomes R (scale x) + t, with (R, t) =
    /// `pose` (the quaternion is normalised). A negative scale mirrors through the origin before the pose (a
    /// reflection: det = -1), and the triangles' winding is then reversed so that the new mesh is still wound
    /// outward (its volume is |scale|^3 times the source's, its report's `reoriented` false). The source's
    /// triangles are used as it holds them (cleaned, welded, outward, after its own flip and scale): the new mesh
    /// is not flipped and its report's scale is 1. The new mesh is independent of the source (destroy both). Mass
    /// properties follow: volume times |s|^3, centroid moved like a point, inertia R (s^5 I) R^T per unit density,
    /// up to rounding (moving or scaling rounds every coordinate once).
    /// @param mesh the source mesh (not a flipped one: MC_ERR_INVALID_ARGUMENT)
    /// @param pose NULL for identity; finite, quaternion not zero
    /// @param scale finite and not 0 (1 keeps the size; -1 mirrors)
    /// @param self_check the self-check of the new mesh (see mc_self_check; MC_SELF_CHECK_SKIP is safe when the source
    ///        passed its own: moving and scaling keep triangles apart, up to rounding of touching ones)
    /// @param out receives the new mesh on success only
    /// @param report may be NULL; as mc_mesh_create's
    /// @param err may be NULL; filled on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT, or a status of mc_mesh_create (MC_ERR_OUT_OF_RANGE when a point leaves
    ///         the coordinate range, MC_ERR_OUT_OF_MEMORY, ...)
    MC_API mc_status mc_mesh_create_transformed(const mc_mesh* mesh, const mc_pose* pose, double scale,
                                                mc_self_check self_check, mc_mesh** out, mc_mesh_report* report,
                                                mc_error* err);

#ifdef __cplusplus
}
#endif
