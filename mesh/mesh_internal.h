// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_mesh, and what the floors above mesh/ use to finish one: mesh/ builds the geometry (weld,
// checks, orientation, topology); bvh/ adds the OBB tree and defines the public constructors (bvh/mesh_tree.c).
#pragma once

#include "meshcontact/mesh.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct mc_bvh;

/// Derived data of a mesh that another module builds lazily and publishes atomically (the mesh stays logically
/// immutable); mc_mesh_destroy frees it through its own hook.
typedef struct mc_mesh_cache
{
    void (*destroy)(struct mc_mesh_cache* self); ///< frees the cache and everything it owns
    /// recomputes what depends on the vertex positions after mc_mesh_set_positions (NULL: nothing does); allocates
    /// nothing
    void (*refit)(struct mc_mesh_cache* self, const struct mc_mesh* mesh);
    size_t byte_count; ///< bytes the cache owns (counted by mc_mesh_get_byte_count)
} mc_mesh_cache;

/// Half-edge h = 3 * t + k is the edge of triangle t from indices[3t + k] to indices[3t + (k + 1) % 3].
#define MC_HALFEDGE(t, k) (3u * (uint32_t)(t) + (uint32_t)(k))
#define MC_HE_TRI(h) ((h) / 3u)
#define MC_HE_LOCAL(h) ((h) % 3u)
#define MC_NONE UINT32_MAX

/// A checked, closed, consistently oriented (outward) triangle mesh. Immutable after creation.
struct mc_mesh
{
    uint32_t vertex_count;      ///< welded vertices
    uint32_t triangle_count;    ///< triangles after cleaning (no zero-area triangle)
    mc_vec3* positions;         ///< vertex_count points, body frame, scaled
    uint32_t* indices;          ///< 3 * triangle_count, counter-clockwise from outside (after reorientation/flip)
    uint32_t* twin;             ///< 3 * triangle_count: twin[h] = the opposite half-edge (closed meshes: never MC_NONE)
    uint32_t* vertex_halfedge;  ///< vertex_count: one half-edge leaving the vertex (MC_NONE for an unused vertex)
    mc_vec3* face_normals;      ///< triangle_count unit outward normals
    uint32_t* vertex_component; ///< vertex_count: connected component id of each vertex (0 .. component_count-1)
    uint32_t component_count;   ///< number of connected components
    uint32_t* component_vertex; ///< component_count: one vertex of each component
    /// component_count: signed volume of each component as oriented (after reorientation and flip): negative for a
    /// cavity's shell and for a flipped mesh's shells (rounded; its sign is meaningful only away from 0)
    double* component_volume;
    bool flipped;          ///< Adams IFLIP: the solid is the outside of the surface (orientation already reversed)
    double scale;          ///< scale applied to the input coordinates
    mc_mesh_report report; ///< what the checks found
    struct mc_bvh* bvh;    ///< OBB tree, built at creation
    size_t byte_count;     ///< bytes owned, for mc_mesh_get_byte_count
    /// region-stage blocks (src/contact/regions_blocks.c): NULL until the first region query on this mesh builds them
    /// (not counted in byte_count)
    _Atomic(mc_mesh_cache*) region_cache;
    /// 0 at creation; each mc_mesh_set_positions sets it to a new value, unique across all meshes of the process
    /// (caches keyed on a mesh, such as the world's reused regions and the traversal fronts, compare it)
    uint64_t geometry_version;
    mc_vec3* next_positions; ///< vertex_count: staging copy of mc_mesh_set_positions (NULL until the first)
    double* next_volume;     ///< component_count: the staged positions' component volumes (NULL until the first)
    mc_vec3* next_normals;   ///< triangle_count: the staged positions' face normals (NULL until the first)
    mc_vec3 next_bbox[2];    ///< the staged positions' bounding box (lower, upper corner)
    double next_stats[2];    ///< the staged positions' signed volume and area (as signed_volume computes them)
    uint32_t refits;         ///< mc_mesh_set_positions calls that refitted the tree
    uint32_t rebuilds;       ///< mc_mesh_set_positions calls that rebuilt it (degraded tree)
    double tree_cost_built;  ///< the tree's cost measure (mc_bvh_cost) right after its last build, 0 before the first
    double tree_cost;        ///< the tree's cost measure now
    /// debug builds: queries running on this mesh now (mc_mesh_use_begin / mc_mesh_use_end), to detect a deformation
    /// during a query
    _Atomic(uint32_t) debug_users;
    _Atomic(uint64_t) users; ///< bodies that use the mesh (world.c); mc_mesh_destroy refuses while > 0
};

/// Debug builds: mark a query on `mesh` as running (mc_mesh_set_positions asserts that none is). No-op with NDEBUG.
static inline void mc_mesh_use_begin(const struct mc_mesh* mesh)
{
#ifndef NDEBUG
    atomic_fetch_add_explicit(&((struct mc_mesh*)mesh)->debug_users, 1u, memory_order_relaxed);
#else
    (void)mesh;
#endif
}

/// Debug builds: the end of a query begun with mc_mesh_use_begin.
static inline void mc_mesh_use_end(const struct mc_mesh* mesh)
{
#ifndef NDEBUG
    atomic_fetch_sub_explicit(&((struct mc_mesh*)mesh)->debug_users, 1u, memory_order_relaxed);
#else
    (void)mesh;
#endif
}

/// Count a user of the mesh (delta +1: a body now uses it; -1: it no longer does). Thread-safe (atomic).
void mc_mesh_add_user(const mc_mesh* mesh, int delta);

/// Progress callback type (same signature as mc_import_options.progress).
typedef void mc_progress_fcn(double fraction, void* user);

/// What a file reader found that the mesh's report carries besides the geometry.
typedef struct mc_read_facts
{
    uint32_t split_polygons; ///< polygons with more than 3 vertices that were fan-split
    uint64_t trailing_bytes; ///< bytes after the last triangle of a binary STL (ignored)
    mc_repair_report repair; ///< what the import's repair changed
    uint32_t brep_solids;    ///< B-rep files: solids in the file
    uint32_t brep_surfaces;  ///< B-rep files: faces tessellated
    double brep_volume;      ///< B-rep files: exact volume (units after scaling)
} mc_read_facts;

/// Build the geometry of a mesh from a def: weld, checks, orientation, topology, normals, components; no OBB tree
/// (mesh->bvh is NULL: bvh/mesh_tree.c adds it). Progress goes up to 0.85 (the tree is the rest). With `out` NULL
/// only the report is computed and a mesh that is unusable for contact is not an error. `read` (NULL: nothing was
/// read from a file) is copied into the report.
mc_status mc_mesh_build(const mc_mesh_def* def, const mc_read_facts* read, mc_progress_fcn* progress,
                        void* progress_user, mc_mesh** out, mc_mesh_report* report, mc_error* err);
/// Read a mesh file (any supported format) and build its geometry with mc_mesh_build (no OBB tree). With `out`
/// NULL only the report is computed. Error messages start with the path.
mc_status mc_mesh_import_geometry(const char* path, const mc_import_options* options, mc_mesh** out,
                                  mc_mesh_report* report, mc_error* err);
/// Reverse the triangles of the components flagged in `reverse` (component_count flags; mc_mesh.vertex_component) of
/// a built mesh, once, after creation's whole-mesh orientation (bvh/mesh_tree.c: the shells oriented one by one):
/// twins, outgoing half-edges, normals and component volumes follow, and the report's volume, inward_components,
/// reoriented and reoriented_shells (counted from the triangles as read). The OBB tree is not touched: its copy of the
/// triangles must be rebuilt.
/// @return MC_OK or MC_ERR_OUT_OF_MEMORY (the mesh is then unusable: free it)
mc_status mc_mesh_reverse_components(struct mc_mesh* mesh, const uint8_t* reverse);
/// Stage new vertex positions for a built mesh (mc_mesh_set_positions): copy `xyz` (3 vertex_count doubles, -0 made
/// +0) into mesh->next_positions and check them: finite and in the library's coordinate range, no triangle of zero area
/// (exact test), every component's volume of the same sign as now (no shell turned inside out), so that a mesh created
/// from them with the mesh's triangles is the same mesh. Allocates the staging arrays on first use only. The mesh is
/// not changed (mc_mesh_commit_positions does that).
/// @return MC_OK, MC_ERR_NON_FINITE, MC_ERR_OUT_OF_RANGE, MC_ERR_DEGENERATE_MESH (err says which triangle or
///         component) or MC_ERR_OUT_OF_MEMORY
mc_status mc_mesh_stage_positions(struct mc_mesh* mesh, const double* xyz, mc_error* err);
/// Triangles per chunk of mc_stage_triangle_terms.
#define MC_STAGE_CHUNK 64u
/// A chunk of triangles for mc_stage_triangle_terms (mesh/stage_lanes.c): inputs v and o, the rest outputs.
typedef struct mc_stage_chunk
{
    double v[9][MC_STAGE_CHUNK];      ///< a.x, a.y, a.z, b.x, ..., c.z of each triangle (a, b, c its corners)
    double o[3];                      ///< the center the volume and area terms are taken about
    double normal[3][MC_STAGE_CHUNK]; ///< (b - a) x (c - a) over its length (meaningless where unit is 0)
    double d[MC_STAGE_CHUNK];         ///< (a - o) . ((b - o) x (c - o))
    double len[MC_STAGE_CHUNK];       ///< |(b - a) x (c - a)| computed from the offsets from o (twice the area)
    uint8_t proper[MC_STAGE_CHUNK];   ///< 1: the float filter proves a positive area
    uint8_t unit[MC_STAGE_CHUNK];     ///< 1: the cross product's length is positive and finite (normal is valid)
} mc_stage_chunk;
/// The per-triangle terms of mc_mesh_stage_positions for triangles 0 .. count - 1 of a chunk (count <= MC_STAGE_CHUNK),
/// as mesh creation computes them (unit_normal, signed_volume) and the same on every CPU (8 lanes with AVX-512F).
void mc_stage_triangle_terms(mc_stage_chunk* chunk, uint32_t count);
/// Tests only: when non-zero, mc_stage_triangle_terms uses its scalar loop only. Not for concurrent use.
extern int mc_stage_portable;
/// Make the staged positions the mesh's: swap them in, then the face normals, the component volumes and the report's
/// bounding box, volume and area computed as mesh creation computes them (bitwise). The tree is not touched.
void mc_mesh_commit_positions(struct mc_mesh* mesh);
/// Free a mesh's geometry and its region cache (not its tree: bvh/ frees that first). NULL is ignored.
void mc_mesh_free(struct mc_mesh* mesh);
