// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// B-rep import (STEP, IGES, OpenCASCADE BREP) through gmsh and OpenCASCADE: the separate library meshcontact-brep
// (libmeshcontact-brep, pkg-config meshcontact-brep), built where gmsh is installed (Debian package libgmsh-dev). The
// core library reads no CAD format, so hosts that never read one do not load gmsh and its OpenCASCADE libraries; a
// host that does links this library and calls mc_brep_register() once, and mc_mesh_import_file then reads these files.
#pragma once

#include "mesh.h"

// MC_BREP_API marks this library's exported functions (it is built with hidden visibility and MC_BUILDING_BREP).
#if defined(MC_BUILDING_BREP)
#if defined(_WIN32)
#define MC_BREP_API __declspec(dllexport)
#else
#define MC_BREP_API __attribute__((visibility("default")))
#endif
#elif defined(_WIN32) && defined(MC_SHARED)
#define MC_BREP_API __declspec(dllimport)
#else
#define MC_BREP_API
#endif

#ifdef __cplusplus
extern "C"
{
#endif

    /// Install mc_brep_read_gmsh as the B-rep reader of mc_mesh_import_file and mc_mesh_check_file
    /// (mc_mesh_set_brep_reader), for the files .step .stp .iges .igs .brep. Call it once at start; calling it again,
    /// from any thread, is harmless.
    MC_BREP_API void mc_brep_register(void);

    /// The reader mc_brep_register installs (an mc_brep_reader_fcn; a host may call it from its own reader).
    ///
    /// The file's first bytes are checked against its kind (STEP: `ISO-10303-21;`, IGES: a section letter in column
    /// 73, .brep: `CASCADE Topology`), so that other text never reaches OpenCASCADE's parsers. Lengths: OpenCASCADE
    /// converts STEP and IGES lengths to millimetres from the unit the file declares, so info->file_scale is 1e-3 and
    /// the mesh is in metres (times options->scale); a .brep file has no unit: its numbers are taken as they are
    /// (file_scale 1). Every face of the selected solids (options->brep_solid: -1 every solid, k the k-th) is
    /// tessellated by gmsh's surface mesher, which shares the nodes of common edges (watertight), and wound outward by
    /// the face's orientation in its solid; a file without solids gives all its faces. Faceting: element sizes from
    /// curvature with n = max(2 pi / angle_tolerance, pi / acos(1 - c / r)) elements per turn (at most 100,000) and a
    /// largest size of sqrt(8 c r), c the chord tolerance in the file's units (options->chord_tolerance / (scale *
    /// file_scale), or 0.005 times the largest extent when it is 0) and r half the bounding-box diagonal: a circle of
    /// radius up to r then deviates from its chords by at most c, a flatter surface through the size limit.
    /// info->volume is OpenCASCADE's exact volume of the selected solids. gmsh is one global model and not
    /// thread-safe: calls are serialised by a lock, and each one initialises and finalises gmsh (a host that uses gmsh
    /// itself loses its model). Progress (options->progress): 0.05 read, 0.1 synchronised, 0.45 meshed, 0.5 extracted.
    /// The points and triangles go to the sink (the library allocator); gmsh's own memory comes from malloc.
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (a bad chord or angle tolerance, or a solid number beyond the file's
    ///         solids), MC_ERR_IO, MC_ERR_PARSE (not a file of its kind, or gmsh could not read or tessellate it),
    ///         MC_ERR_EMPTY_MESH (a model with no extent), or an error of the sink (MC_ERR_LIMIT, MC_ERR_OUT_OF_MEMORY)
    MC_BREP_API mc_status mc_brep_read_gmsh(const char* path, const mc_import_options* options, mc_brep_sink* sink,
                                            mc_brep_info* info, mc_error* err);

#ifdef __cplusplus
}
#endif
