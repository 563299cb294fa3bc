// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Flexible bodies (Adams IFLEX / JFLEX): a region's contact force distributed to the nodes (mesh vertices) of a
// deformable mesh. The mesh itself follows the host's nodes through mc_mesh_set_positions (mesh.h).
#pragma once

#include "base.h"
#include "mesh.h"
#include "query.h"
#include "vec_math.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// The share of one node (vertex of the deformable mesh) in one region's force.
    typedef struct mc_nodal_force
    {
        uint32_t vertex;    ///< vertex index of the deformable mesh (mc_mesh_get_positions order)
        uint32_t region;    ///< index of the region in the caller's array
        double penetration; ///< the node's penetration (units): see mc_nodal_forces; 0 for a vertex-free region
        mc_vec3 force;      ///< force on the node, world frame (N)
    } mc_nodal_force;

    /// Distribute the forces of a pair's regions to the nodes of the deformable mesh `flex` (Adams' rule for flexible
    /// bodies: the nodes in the intersection volume, in proportion to their penetration).
    ///
    /// The nodes of region r are the vertices of `flex` inside the `other` solid (exact test, mc_mesh_contains_point,
    /// of the vertex mapped into other's frame) whose nearest region centroid is r's (regions are the connected pieces
    /// of the intersection: a vertex is in the one whose centroid is nearest, which is its own unless two regions lie
    /// closer than their sizes). A node's penetration p is how far it must move along its region's force direction to
    /// leave the other solid: the distance along forces[r] / |forces[r]| from the node to the other surface (first hit
    /// of that ray, floating point). Node v of region r gets forces[r] p_v / sum p; the shares are rounded so that they
    /// sum to forces[r] to rounding (the last node, the deepest, takes forces[r] minus the others: 1e-15 relative).
    ///
    /// Moment: parallel forces at the nodes give about the region's centroid c the moment (xbar - c) x F, xbar the
    /// penetration-weighted mean of the nodes, where the region force at c gives none; moment_lost[r] is the couple
    /// c-relative that restores it, -(xbar - c) x F = -sum (x_v - c) x f_v (0 when the nodes' weighted mean lies on the
    /// line of action through c, e.g. nodes symmetric around it). A host that needs the moment exactly applies that
    /// couple to the flexible body (for instance spread over the same nodes).
    ///
    /// A region without an inside node (a sharp edge or corner of the other body through a face of the flex mesh):
    /// the force goes to the three vertices of the flex triangle nearest the region's centroid, split by the
    /// barycentric coordinates of the centroid's closest point on it (the forces then act, in sum, at that point;
    /// moment_lost is minus its offset from c crossed with F). That search runs over all the triangles (rare case).
    ///
    /// Flex against rigid: call it for the flex mesh with the forces on it. Flex against flex: once for each mesh,
    /// each with the forces on it (for the first mesh of mc_query_regions the opposite of the second's).
    /// @param flex, flex_pose the deformable mesh and its pose (body to world)
    /// @param other, other_pose the other mesh (rigid or deformable) and its pose
    /// @param regions, region_count the regions of the pair (mc_query_regions, either order of the meshes)
    /// @param forces region_count forces on `flex`, world frame (a zero force gives no nodes)
    /// @param out caller buffer of `capacity` entries (NULL allowed when capacity is 0): the inside nodes by
    ///        increasing vertex index, then three entries per vertex-free region in region order
    /// @param count receives the number of nodal forces (may exceed capacity: then MC_ERR_CAPACITY, out is partial and
    ///        the count leaves out the vertex-free regions' entries: retry with count + 3 region_count)
    /// @param moment_lost may be NULL; region_count entries (N m), see above
    /// @return MC_OK, MC_ERR_CAPACITY or MC_ERR_INVALID_ARGUMENT (NULL argument, invalid pose, non-finite force).
    ///         Allocation-free; deterministic.
    MC_API mc_status mc_nodal_forces(const mc_mesh* flex, const mc_pose* flex_pose, const mc_mesh* other,
                                     const mc_pose* other_pose, const mc_region* regions, const mc_vec3* forces,
                                     uint32_t region_count, mc_nodal_force* out, uint32_t capacity, uint32_t* count,
                                     mc_vec3* moment_lost);

#ifdef __cplusplus
}
#endif
