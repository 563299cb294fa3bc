// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private interface of mesh/: the triangle soup the readers fill, the readers, and the internal mesh build.
#pragma once

#include "mesh/affine.h"
#include "mesh/mesh_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Triangles as a reader produced them: unwelded, unscaled, polygons already fan-split.
typedef struct mc_soup
{
    double* positions;                ///< 3 * vertex_count coordinates (file units), library allocator
    uint32_t vertex_count;            ///< points stored
    uint32_t vertex_capacity;         ///< points allocated
    uint32_t* indices;                ///< 3 * triangle_count zero-based indices, library allocator
    uint32_t triangle_count;          ///< triangles stored
    uint32_t triangle_capacity;       ///< triangles allocated
    double file_scale;                ///< conversion to metres stored in the file (.shl, 3MF unit), 1 otherwise
    uint32_t split_polygons;          ///< polygons with more than 3 vertices that were fan-split
    uint64_t trailing_bytes;          ///< bytes after the last triangle of a binary STL (ignored, reported)
    uint64_t max_triangles;           ///< mc_soup_reserve refuses to grow beyond it (MC_ERR_LIMIT); 0: no limit
    uint64_t max_bytes;               ///< files larger than this are refused before reading (MC_ERR_LIMIT); 0: no limit
    mc_progress_fcn* progress;        ///< may be NULL; readers report [0, 0.5] of the import
    void* progress_user;              ///< passed to progress
    const mc_import_options* options; ///< the import's options (B-rep faceting and solid choice)
    uint32_t brep_solids;             ///< B-rep reader: solids in the file
    uint32_t brep_surfaces;           ///< B-rep reader: faces tessellated
    double brep_volume;               ///< B-rep reader: exact volume of the selected solids (file units cubed)
} mc_soup;

/// Free the soup's arrays and zero it (the struct itself is the caller's).
void mc_soup_free(mc_soup* soup);
/// Make room for `vertices` more points and `triangles` more triangles (amortised growth).
mc_status mc_soup_reserve(mc_soup* soup, uint64_t vertices, uint64_t triangles, mc_error* err);
/// Append one point (3 coordinates).
mc_status mc_soup_add_point(mc_soup* soup, const double x[3], mc_error* err);
/// Append polygon `poly` (k >= 3 vertex indices) as the fan (poly[0], poly[j], poly[j + 1]); a polygon with more
/// than 3 vertices counts in split_polygons.
mc_status mc_soup_add_polygon(mc_soup* soup, const uint32_t* poly, uint32_t k, mc_error* err);

/// Append one placed copy of a triangle mesh: its vertices (3 * vertex_count coordinates) through transform x, its
/// triangles (zero-based, local to the copy) with two corners swapped when x mirrors (negative determinant), so that an
/// outward solid stays outward. An index out of range or a non-finite point (before or after x) is an error whose
/// message starts with `what` (the file and the part).
mc_status mc_soup_add_instance(mc_soup* soup, const double* positions, uint32_t vertex_count, const uint32_t* triangles,
                               uint32_t triangle_count, const mc_affine* x, const char* what, mc_error* err);

/// Read a whole file into a NUL-terminated buffer from mc_alloc (free with mc_free). An empty file, one that is not a
/// regular file, or one larger than max_bytes (0: no limit) is an error.
mc_status mc_read_file(const char* path, uint64_t max_bytes, char** data, uint64_t* size, mc_error* err);
/// Check, without opening it, that `path` names a regular file of at most max_bytes bytes (0: no limit): a directory,
/// FIFO or device is refused (MC_ERR_IO) before fopen could block on it; a larger file fails with MC_ERR_LIMIT.
mc_status mc_check_input_file(const char* path, uint64_t max_bytes, mc_error* err);

/// Read a Wavefront OBJ file natively in double precision (v and f statements; others are ignored).
mc_status mc_obj_read(const char* path, mc_soup* soup, mc_error* err);
/// Read an OFF file natively in double precision (OFF, COFF, NOFF; 0-based polygon faces).
mc_status mc_off_read(const char* path, mc_soup* soup, mc_error* err);
/// Read a binary or ASCII STL file (decided by size: binary iff size == 84 + 50 n).
mc_status mc_stl_read(const char* path, mc_soup* soup, mc_error* err);
/// Read an Adams shell file (.shl), keeping its scale in soup->file_scale.
mc_status mc_shl_read(const char* path, mc_soup* soup, mc_error* err);
/// Read a glTF 2.0 file natively (.gltf with data: URIs or external buffers, or binary .glb): the TRIANGLES
/// primitives of the default scene's meshes with their node transforms (mesh/gltf.c).
mc_status mc_gltf_read(const char* path, mc_soup* soup, mc_error* err);
/// Read a 3MF file natively (ZIP, then the 3D model XML): the build items' objects and their components with their
/// transforms; the model's unit goes into soup->file_scale (metres per unit) (mesh/threemf.c).
mc_status mc_3mf_read(const char* path, mc_soup* soup, mc_error* err);
/// Read a COLLADA 1.4/1.5 file natively (.dae, XML): the <mesh> geometries its visual scene's node tree places, with
/// the nodes' transforms; the document's <unit meter> goes into soup->file_scale (mesh/collada.c).
mc_status mc_collada_read(const char* path, mc_soup* soup, mc_error* err);
/// Read a PLY file through Assimp (the only format left to it), all meshes merged with node transforms.
mc_status mc_assimp_read(const char* path, mc_soup* soup, mc_error* err);

/// Read a B-rep file (.step .stp .iges .igs .brep) with the reader installed by mc_mesh_set_brep_reader
/// (meshcontact-brep's gmsh reader, or a host's), which fills the soup and its brep_* facts (mesh/import_brep.c).
/// Without a reader: MC_ERR_UNSUPPORTED_FORMAT saying what to link and call (and which package to install when this
/// build has no meshcontact-brep).
mc_status mc_brep_read(const char* path, mc_soup* soup, mc_error* err);

/// Exact test: is triangle (a, b, c) of zero area (the three points collinear or coincident)?
bool mc_triangle_is_degenerate(mc_vec3 a, mc_vec3 b, mc_vec3 c);

/// Exact weld: wid[i] = dense id (in order of first appearance) of the points bit-identical to pos[i] (-0 = +0).
/// @return the number of distinct points, or UINT32_MAX on allocation failure.
uint32_t mc_weld_exact(const mc_vec3* pos, uint32_t n, uint32_t* wid);
/// Tolerance weld of distinct points upos[0..n) with bounding-box corner lo: points closer than `dist` are merged
/// (transitively); group[i] = smallest point id of i's cluster. @return false on allocation failure.
bool mc_weld_tolerance(const mc_vec3* upos, uint32_t n, mc_vec3 lo, double dist, uint32_t* group);
/// Repair a soup in place (mc_mesh_repair on its arrays, the result replacing them); `unit_scale` converts the
/// options' weld_distance into the soup's units (divided by it).
mc_status mc_soup_repair(mc_soup* soup, const mc_repair_options* options, double unit_scale, mc_repair_report* report,
                         mc_error* err);
