// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Optional Bullet comparison for the many-body benchmark (C interface to bench/bullet_bench.cpp; benchmark-only):
// btCollisionWorld with btDbvtBroadphase and btGImpactMeshShape (one shape per distinct mesh, shared by the bodies
// that use it), the way a Bullet user collides many concave meshes.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// A Bullet collision world of n bodies sharing one mesh.
    typedef struct bullet_bench_world bullet_bench_world;

    /// Build the world: the mesh (positions, indices) as one btGImpactMeshShape (collision margin 0) shared by n
    /// btCollisionObjects at the poses (7 doubles each: x y z, qw qx qy qz). NULL on failure.
    bullet_bench_world* bullet_bench_create(const double* positions, uint32_t vertex_count, const uint32_t* indices,
                                            uint32_t triangle_count, const double* poses, uint32_t n);

    /// Build a world of n bodies over mesh_count meshes (each its own btGImpactMeshShape, margin 0): body k uses mesh
    /// body_mesh[k] (NULL: mesh 0 for every body), at poses as in bullet_bench_create. NULL on failure.
    bullet_bench_world* bullet_bench_create_meshes(uint32_t mesh_count, const double* const* positions,
                                                   const uint32_t* vertex_counts, const uint32_t* const* indices,
                                                   const uint32_t* triangle_counts, const uint32_t* body_mesh,
                                                   const double* poses, uint32_t n);

    /// Move the bodies (same layout as at creation).
    void bullet_bench_set_poses(bullet_bench_world* w, const double* poses);

    /// A deforming mesh (bench_deform): new positions of mesh m's vertices (same count and triangles), then the
    /// GImpact shape's refit as Bullet's users do it (btGImpactMeshShape::postUpdate + updateBound: the box tree is
    /// refitted, not rebuilt) and the AABBs of the bodies in the world.
    void bullet_bench_update_mesh(bullet_bench_world* w, uint32_t mesh, const double* positions);

    /// One btCollisionWorld::performDiscreteCollisionDetection (broad phase, GImpact narrow phase, manifolds).
    /// @param manifolds receives the contact manifolds with at least one point (touching pairs)
    /// @param points receives the contact points summed over the manifolds
    void bullet_bench_step(bullet_bench_world* w, uint32_t* manifolds, uint32_t* points);

    /// Free the world. NULL is ignored.
    void bullet_bench_destroy(bullet_bench_world* w);

    /// Bullet's version (BT_BULLET_VERSION, e.g. 324) and scalar size in bytes (4: float build).
    int bullet_bench_version(int* scalar_bytes);

#ifdef __cplusplus
}
#endif
