// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Meshes: creation from arrays, import from files, checks, primitive tessellation, export.
#pragma once

#include "base.h"
#include "vec_math.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// An immutable, checked, closed triangle mesh with its OBB tree. Shareable between bodies, worlds and threads.
    typedef struct mc_mesh mc_mesh;

    /// The self-check of a mesh at creation and import: do triangles intersect each other, and do the connected
    /// components nest the way a solid's shells must? Needs the OBB tree, so mc_mesh_create, mc_mesh_import_file and
    /// mc_mesh_check_file run it; only on a mesh that is otherwise usable for contact (closed, manifold, oriented, no
    /// zero-area triangle left). Deterministic (the same counts and samples for any thread count); it runs on the
    /// OpenMP default number of threads.
    ///
    /// Two triangles intersect when their closed point sets (edges and corners included) share a point that their
    /// shared vertices do not account for, decided exactly (orientation predicates, no tolerance, no perturbation):
    /// - no shared vertex: any common point, touching included (a corner on the other's face, two faces flush);
    /// - one shared vertex: any common point besides it (one passing through the other from the shared corner, or
    ///   lying in the other's plane inside its corner); triangles that only meet at that vertex do not intersect;
    /// - a shared edge: they are coplanar and fold onto each other (third vertices on the same side of the edge);
    /// - three shared vertices: a duplicated triangle.
    /// Components: one vertex of each component is located against the others by exact point parity. A component
    /// inside an odd number of others must be wound inward (a cavity), any other outward (a shell, or an island
    /// in a cavity). One wound outward inside another (a nested or duplicated shell wound the same way) counts its
    /// volume twice; one wound inward inside none is a solid turned inside out. (Flipped meshes are read as before
    /// the flip.) Intersecting triangles and misnested components make the mesh unusable for contact.
    ///
    /// Shells oriented one by one: when a component is misnested, each shell disjoint from the others (inside none,
    /// containing none, by the exact parity of one vertex against each other component; intersecting none) is wound
    /// outward on its own, as CGAL's orient_to_bound_a_volume does: separate solids, one of them wound inside out,
    /// become usable (the report's reoriented_shells counts the shells reversed, `volume` is the sum of their
    /// volumes). The other shells (nested or intersecting) are oriented together as before, by the sign of their total
    /// volume, and then classified as above: a shell wound outward inside another stays refused, since it may be a
    /// cavity wound the wrong way or a second solid inside the first (a duplicated or enclosed part), two different
    /// solids (mc_mesh_repair's MC_REPAIR_ORIENT winds it as a cavity when that is what is meant). With
    /// MC_SELF_CHECK_SKIP nothing is classified and the whole mesh is oriented by its total signed volume.
    typedef enum mc_self_check
    {
        /// default: check; a mesh with intersecting triangles or misnested components fails with
        /// MC_ERR_SELF_INTERSECTING (the report has the counts and samples)
        MC_SELF_CHECK_REFUSE = 0,
        /// check and report, but create the mesh anyway: the report's self_check_accepted is the warning
        /// (contact volumes may count some space twice, or subtract it)
        MC_SELF_CHECK_ACCEPT = 1,
        /// no check: the report's self_checked is false and its counts are 0
        MC_SELF_CHECK_SKIP = 2,
    } mc_self_check;

    /// Repairs of mc_mesh_repair (bit flags of mc_repair_options.flags). Each one changes only what it counts in
    /// mc_repair_report; none runs unless asked.
    typedef enum mc_repair_flags
    {
        /// remove duplicated triangles (same three vertices, same winding: one copy is kept) and back-to-back pairs
        /// (same three vertices, opposite windings: both removed; pairs cancel first, then duplicates)
        MC_REPAIR_DUPLICATES = 1u << 0,
        /// solids that share faces: a patch of triangles (connected over edges used exactly twice) all of whose
        /// border edges are used by exactly three triangles is a face stored once for two solids; the smallest such
        /// patches are removed (while each of their border edges is still used three times), leaving the union of the
        /// solids (keeping both solids with a copy of the face each would make them touch, which the self-check
        /// refuses)
        MC_REPAIR_SHARED_FACES = 1u << 1,
        /// remove loose components (over shared vertices) of fewer than min_component_triangles triangles or whose
        /// bounding-box diagonal is below min_component_size times the whole mesh's
        MC_REPAIR_LOOSE_COMPONENTS = 1u << 2,
        /// consistent winding: breadth-first over edges used exactly twice, each triangle flipped to agree with the
        /// one it was reached from (in each connected patch the larger half keeps its winding); then every closed
        /// component is wound outward by its signed volume, or inward when it lies inside an odd number of other
        /// closed components (a cavity; ray parity, bounding boxes first)
        MC_REPAIR_ORIENT = 1u << 3,
        /// fill holes (loops of edges used once) of at most max_hole_edges edges with a triangulation over the loop's
        /// own vertices (no new vertex) that minimises the largest angle between neighbouring normals (the mesh
        /// around the hole included), then the total area (Liepa 2003); needs consistent winding (MC_REPAIR_ORIENT)
        MC_REPAIR_HOLES = 1u << 4,
        /// split pinched vertices (a vertex whose closed triangle fans do not join over edges): each fan gets its own
        /// copy of the vertex, moved by 1e-9 of the bounding-box diagonal into its own solid (against the fan's
        /// area-weighted normal) so that the solids no longer touch (the self-check refuses touching triangles).
        /// An edge used by 4, 6, ... (at most 16) triangles, wound half each way, is split first: its triangles are
        /// ordered around it and each is paired with its neighbour on its own solid's side
        MC_REPAIR_PINCHES = 1u << 5,
        /// every repair above
        MC_REPAIR_ALL = 0x3f,
    } mc_repair_flags;

    /// What mc_mesh_repair may change. Initialize with mc_default_repair_options().
    typedef struct mc_repair_options
    {
        uint32_t flags; ///< mc_repair_flags to run; MC_REPAIR_ALL by default (0 in mc_default_import_options)
        /// weld vertices closer than this fraction of the bounding-box diagonal (transitively), before everything
        /// else; 0 (default): bit-identical points only. 0 or in [1e-12, 0.1]. At most one of the two weld settings.
        double weld_tolerance;
        /// weld vertices closer than this absolute distance (length units of the result: after the import's scale);
        /// 0 (default): bit-identical points only. >= 0, at most 0.1 of the bounding-box diagonal.
        double weld_distance;
        /// largest hole filled, in boundary edges (default 32, at most 256; 3 or more)
        uint32_t max_hole_edges;
        /// components of fewer triangles are removed (default 4: fewer cannot enclose a volume)
        uint32_t min_component_triangles;
        /// components whose bounding-box diagonal is below this fraction of the mesh's are removed (default 0: none)
        double min_component_size;
        int internal_value; ///< set by mc_default_repair_options()
    } mc_repair_options;

    /// What mc_mesh_repair changed, every change counted (all zero when no repair ran).
    typedef struct mc_repair_report
    {
        bool ran;                        ///< a repair was asked for and ran
        double weld_distance;            ///< the weld distance used (length units of the result), 0: exact only
        uint32_t welded_vertices;        ///< distinct points merged into another one by the weld tolerance
        uint32_t collapsed_triangles;    ///< triangles removed because welding made two of their corners one
        uint32_t duplicate_triangles;    ///< extra copies of a triangle removed
        uint32_t back_to_back_triangles; ///< triangles removed in back-to-back pairs
        uint32_t shared_face_triangles;  ///< triangles of faces shared by two solids, removed
        uint32_t loose_components;       ///< components removed as loose
        uint32_t loose_triangles;        ///< their triangles
        uint32_t flipped_triangles;      ///< triangles reversed to agree with their neighbours
        uint32_t unorientable_patches;   ///< edge-connected patches that cannot be wound consistently (Moebius)
        uint32_t reversed_components;    ///< closed components reversed to face outward (or inward: cavities)
        uint32_t filled_holes;           ///< holes filled
        uint32_t fill_triangles;         ///< triangles added to fill them
        uint32_t unfilled_holes;         ///< holes left open: too large, or through a vertex on two holes
        uint32_t largest_unfilled_hole;  ///< edges of the largest hole left open (0: none)
        uint32_t split_vertices;         ///< vertices added by splitting pinched vertices
        /// edges used by 4, 6, ... triangles (solids touching along an edge) whose triangles were paired by their order
        /// around the edge (each with its neighbour on its solid's side); their end vertices are then split as
        /// pinched vertices
        uint32_t split_edges;
    } mc_repair_report;

    /// @return repair options with defaults: every repair (MC_REPAIR_ALL), exact welding only, holes up to 32 edges,
    /// components of fewer than 4 triangles removed.
    MC_API mc_repair_options mc_default_repair_options(void);

    /// Repair a triangle soup so that it can become a closed, oriented mesh: weld (options' tolerance), drop
    /// triangles that welding collapsed, then the repairs of options->flags in this order: duplicates, shared faces,
    /// loose components, winding, holes, outward winding, pinched vertices (and outward winding again when a split
    /// cut a component in two). Unused vertices are dropped; points are
    /// not moved except by welding (a cluster takes its first point) and pinch splitting. Zero-area triangles are left
    /// to mesh creation, which removes them. Deterministic and single-threaded; about O(n log n).
    /// @param options may be NULL for mc_default_repair_options()
    /// @param positions vertex_count points, x y z each (length units)
    /// @param vertex_count points
    /// @param indices 3 * triangle_count zero-based vertex indices
    /// @param triangle_count triangles (> 0)
    /// @param out_positions receives 3 * *out_vertex_count doubles (library allocator; free with mc_free_arrays), on
    ///        success only
    /// @param out_vertex_count receives the number of points
    /// @param out_indices receives 3 * *out_triangle_count indices (free with mc_free_arrays), on success only
    /// @param out_triangle_count receives the number of triangles (0 when everything was removed)
    /// @param report may be NULL; what was changed
    /// @param err may be NULL; filled on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (bad options, NULL arrays), MC_ERR_INDEX_OUT_OF_RANGE, MC_ERR_NON_FINITE,
    ///         MC_ERR_EMPTY_MESH (no triangle given) or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_mesh_repair(const mc_repair_options* options, const double* positions, uint32_t vertex_count,
                                    const uint32_t* indices, uint32_t triangle_count, double** out_positions,
                                    uint32_t* out_vertex_count, uint32_t** out_indices, uint32_t* out_triangle_count,
                                    mc_repair_report* report, mc_error* err);

    /// What the checks found in a mesh. Filled by creation and import even when they fail (for example on an open
    /// mesh).
    typedef struct mc_mesh_report
    {
        uint32_t input_vertices;       ///< vertices as read / given (before welding)
        uint32_t input_triangles;      ///< triangles as read / given, polygons fan-split (before dropping degenerates)
        uint32_t vertices;             ///< distinct vertices used by the triangles as read, after welding
        uint32_t triangles;            ///< triangles after cleaning (what the contact pipeline uses)
        uint32_t welded_vertices;      ///< input vertices merged into another one by welding
        uint32_t degenerate_triangles; ///< zero-area triangles found (exact test, after welding)
        uint32_t dropped_triangles; ///< triangles removed by cleaning (degenerates; repairs can also split neighbours)
        uint32_t boundary_edges;    ///< edges used by one triangle only (as read, after welding)
        uint32_t nonmanifold_edges; ///< edges used by three or more triangles (as read, after welding)
        uint32_t misoriented_edges; ///< directed edges (a to b) used by two or more triangles (inconsistent winding)
        uint32_t components;        ///< connected components of the triangles as read (over shared vertices)
        bool closed;                ///< every edge used by exactly two triangles
        bool manifold;              ///< no edge used by more than two triangles and no pinched vertex
        bool oriented;              ///< winding is consistent across every edge
        /// triangles were reversed for contact: the mesh was closed but wound inward (negative volume), or some of its
        /// shells were (reoriented_shells says how many; see mc_self_check for the shells oriented one by one)
        bool reoriented;
        bool flipped;                 ///< the user's flip flag (Adams IFLIP_GEOMETRY) was applied
        double signed_volume_as_read; ///< divergence-theorem volume of the triangles as read (negative: inward normals)
        double volume;                ///< enclosed volume after reorientation (units^3, after scaling)
        double area;                  ///< total surface area (units^2, after scaling)
        mc_vec3 bbox_min;             ///< axis-aligned bounding box, lower corner (after scaling)
        mc_vec3 bbox_max;             ///< axis-aligned bounding box, upper corner (after scaling)
        double scale;                 ///< the length scale that was applied to the coordinates
        uint32_t pinched_vertices;    ///< vertices whose triangles form more than one fan (non-manifold vertex)
        uint32_t split_polygons;      ///< polygons with more than 3 vertices that the reader fan-split
        uint32_t repaired_triangles;  ///< neighbours split to repair a T-junction left by a removed zero-area triangle
        bool contact_ready; ///< the cleaned mesh is closed, manifold, oriented, without zero-area triangles (usable)
        uint32_t inward_components; ///< components of negative volume after reorientation (cavities or inverted shells)
        /// shells (connected components of the cleaned mesh) whose triangles were reversed for contact: every one
        /// when the mesh as a whole was wound inward, or each shell disjoint from the others that was wound inward
        /// on its own (see mc_self_check); 0 when none was
        uint32_t reoriented_shells;
        /// bytes after the last triangle of a binary STL whose header count the file exceeds (the triangles the header
        /// counts are read, the rest is ignored: a warning, not an error); 0 for other files
        uint64_t trailing_bytes;
        /// the self-check ran (see mc_self_check: not skipped by the options, and the mesh is otherwise usable)
        bool self_checked;
        /// the self-check found a problem and the options accepted the mesh anyway (MC_SELF_CHECK_ACCEPT): a warning
        bool self_check_accepted;
        /// pairs of triangles that intersect each other (see mc_self_check for the rule)
        uint64_t self_intersecting_pairs;
        /// when self_checked: the first intersecting pair (i < j: the smallest i, then the smallest j) as triangle
        /// indices of the cleaned mesh (mc_mesh_get_indices, which is the input order unless zero-area triangles were
        /// removed); UINT32_MAX twice when there is none
        uint32_t self_intersection_sample[2];
        uint32_t cavity_components;   ///< components inside an odd number of others and wound inward (cavities: fine)
        uint32_t nested_components;   ///< components wound outward inside an odd number of others: counted twice
        uint32_t inverted_components; ///< components wound inward inside none (or an even number): inside out
        /// when self_checked: the smallest triangle index (cleaned mesh) of the first nested or inverted component (by
        /// smallest vertex index), UINT32_MAX when there is none
        uint32_t nesting_sample_triangle;
        /// B-rep files: the solids in the file (0 for mesh files, and for a B-rep file with surfaces only)
        uint32_t brep_solids;
        /// B-rep files: the surfaces (faces) that were tessellated
        uint32_t brep_surfaces;
        /// B-rep files: the exact volume of the imported solids as the B-rep reader (OpenCASCADE in meshcontact-brep)
        /// computes it from the B-rep (units^3,
        /// after scaling); compare with `volume` (the facets'): they differ by at most about chord tolerance times
        /// area. 0 for mesh files.
        double brep_volume;
        /// what the import's repair changed (mc_import_options.repair; ran is false when none was asked)
        mc_repair_report repair;
    } mc_mesh_report;

    /// Input arrays for mc_mesh_create. Initialize with mc_default_mesh_def(). Arrays are copied; the def is not
    /// retained.
    typedef struct mc_mesh_def
    {
        const double* positions; ///< vertex_count points, x y z each, with position_stride bytes between points
        size_t position_stride;  ///< bytes from one point to the next; 0 means 3 * sizeof(double)
        uint32_t vertex_count;   ///< number of points
        const uint32_t* indices; ///< 3 * triangle_count zero-based vertex indices, counter-clockwise seen from outside
        uint32_t triangle_count; ///< number of triangles
        double scale;            ///< multiplies every coordinate (unit conversion), must be finite and > 0; default 1
        double weld_tolerance;   ///< weld vertices closer than this fraction of the bbox diagonal (transitively);
                                 ///< 0 (default): exact (bit-identical, -0 = +0); else in [1e-12, 0.1]
        bool flip;               ///< Adams IFLIP_GEOMETRY: the solid is the outside of the surface
        bool require_closed;     ///< default true: fail with MC_ERR_MESH_NOT_CLOSED on an open or non-manifold mesh
        int internal_value;      ///< set by mc_default_mesh_def(); checked to catch un-defaulted defs
        /// intersecting triangles and misnested shells: refused by default (MC_SELF_CHECK_REFUSE; see mc_self_check)
        mc_self_check self_check;
    } mc_mesh_def;

    /// @return a mesh def with defaults (scale 1, exact welding, no flip, closed mesh required, self-check refusing).
    MC_API mc_mesh_def mc_default_mesh_def(void);

    /// Create a mesh from arrays: copy, scale, weld, drop degenerate triangles, check, reorient an inward mesh,
    /// compute topology and build the OBB tree (single thread, about 280 ns per triangle for 1M triangles on the
    /// bench machine, of which the tree about 120; the tree is bitwise the same whichever of its SIMD code paths the
    /// CPU runs), then run the self-check (mc_self_check; it orients separate shells one by one, and by default it
    /// refuses a mesh with intersecting triangles or misnested components).
    /// @param def input arrays and options (not retained)
    /// @param out receives the new mesh on success only; destroy it with mc_mesh_destroy
    /// @param report may be NULL; filled with what the checks found, also on MC_ERR_MESH_NOT_CLOSED and
    ///        MC_ERR_SELF_INTERSECTING
    /// @param err may be NULL; filled with details on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT, MC_ERR_NON_FINITE, MC_ERR_OUT_OF_RANGE (a scaled coordinate outside
    ///         the library's range: see MC_COORDINATE_MAX), MC_ERR_INDEX_OUT_OF_RANGE, MC_ERR_EMPTY_MESH,
    ///         MC_ERR_MESH_NOT_CLOSED, MC_ERR_SELF_INTERSECTING (the message gives the counts and the first pair) or
    ///         MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_mesh_create(const mc_mesh_def* def, mc_mesh** out, mc_mesh_report* report, mc_error* err);

    /// Destroy a mesh. Bodies that use it must have been destroyed first: the mesh counts the bodies of every world
    /// that use it (atomically), and while any does, the mesh is not destroyed and MC_ERR_INVALID_ARGUMENT is
    /// returned (with a log message). Workspaces and queries keep no reference to a mesh after a call returns. NULL
    /// is ignored (MC_OK).
    /// @return MC_OK (destroyed, or NULL) or MC_ERR_INVALID_ARGUMENT (still used: nothing done)
    MC_API mc_status mc_mesh_destroy(mc_mesh* mesh);

    /// Options for importing a mesh file. Initialize with mc_default_import_options().
    typedef struct mc_import_options
    {
        double scale;          ///< multiplies every coordinate; default 1. A .shl file's own scale is applied on top.
        double weld_tolerance; ///< as in mc_mesh_def
        bool flip;             ///< as in mc_mesh_def
        bool require_closed;   ///< as in mc_mesh_def (default true)
        /// as in mc_mesh_def (default MC_SELF_CHECK_REFUSE)
        mc_self_check self_check;
        /// Progress callback for long imports, may be NULL: called with a fraction in [0, 1] and the user pointer.
        void (*progress)(double fraction, void* user);
        void* progress_user; ///< passed to progress
        /// Largest file accepted, in bytes (default MC_DEFAULT_MAX_BYTES), checked before anything is read: a larger
        /// file fails with MC_ERR_LIMIT. Text files are read whole into memory.
        uint64_t max_bytes;
        /// Most triangles accepted, polygons fan-split (default MC_DEFAULT_MAX_TRIANGLES): native readers check it
        /// before allocating (a binary STL's header count, text files as they grow); MC_ERR_LIMIT beyond it.
        uint64_t max_triangles;
        /// B-rep files (.step .stp .iges .igs .brep, through the B-rep reader): the largest distance between a facet
        /// and the true surface (Adams' chord tolerance), in length units of the result (after `scale`); 0 (default):
        /// 0.005 times the largest extent of the part's bounding box. meshcontact-brep maps it to gmsh's element sizes
        /// from curvature (see mc_brep_register); gmsh aims at it, the result is not checked facet by facet.
        double chord_tolerance;
        /// B-rep files: the largest angle a facet edge may turn on a curved surface (radians, Adams' angle
        /// tolerance), in (0, pi/2]; default 15 degrees
        double angle_tolerance;
        /// B-rep files: -1 (default) every solid of the file, merged into one mesh; k >= 0: only the k-th solid (0
        /// based, in the file's order; the report's brep_solids gives the count), so each solid can be its own mesh
        int32_t brep_solid;
        /// Repairs applied to the triangles as read, before welding and checks (see mc_mesh_repair); flags 0 (the
        /// default) repairs nothing. Its weld_distance is in the units after `scale` (and a .shl file's own scale).
        mc_repair_options repair;
    } mc_import_options;

/// Default size guard of imports: 8 GiB (a binary STL of 170 million triangles).
#define MC_DEFAULT_MAX_BYTES (8ull << 30)
/// Default triangle guard of imports and tessellation: 2^26 = 67,108,864 triangles. A mesh with its OBB tree holds
/// about 270 bytes per triangle, so the default allows meshes of about 18 GB; lower it to protect a smaller host.
#define MC_DEFAULT_MAX_TRIANGLES (1ull << 26)

    /// @return import options with defaults.
    MC_API mc_import_options mc_default_import_options(void);

    /// Import a mesh file. The format comes from the extension (case-insensitive): .stl (binary or ASCII, native),
    /// .shl (Adams shell, native), .obj and .off (native, double precision), .3mf .gltf .glb .dae (native: 3MF,
    /// glTF 2.0 and COLLADA 1.4/1.5 scenes; 3MF and COLLADA lengths are converted to metres from the file's unit,
    /// COLLADA's up axis is not applied: the coordinates are kept as written), and through Assimp (single precision)
    /// .ply. All meshes in a multi-mesh file are merged, with their node transforms applied.
    ///
    /// B-rep CAD files .step .stp .iges .igs .brep are read by the B-rep reader installed with
    /// mc_mesh_set_brep_reader. This library reads no CAD format itself (it would load gmsh and OpenCASCADE into
    /// every host): the separate library meshcontact-brep (meshcontact/brep.h, built where gmsh is installed, Debian
    /// package libgmsh-dev) installs its reader with mc_brep_register(), which documents the faceting. With no reader
    /// installed, these files fail with MC_ERR_UNSUPPORTED_FORMAT and a message that says what to link and call. A
    /// file with surfaces but no solid is accepted only when its faces close up; otherwise it is refused with the count
    /// of open shells (components) and boundary edges.
    /// @param path file to read
    /// @param options may be NULL for defaults
    /// @param out receives the mesh on success only
    /// @param report may be NULL; filled as far as reading got (also on MC_ERR_MESH_NOT_CLOSED and
    ///        MC_ERR_SELF_INTERSECTING)
    /// @param err may be NULL; on failure names the file, the line or byte offset, and what is wrong
    /// @return MC_OK; MC_ERR_IO (cannot open or read, or not a regular file: a directory, FIFO or device is refused
    ///         before it is opened), MC_ERR_LIMIT (options' max_bytes or max_triangles exceeded), MC_ERR_PARSE,
    ///         MC_ERR_UNSUPPORTED_FORMAT, or a status of mc_mesh_create
    MC_API mc_status mc_mesh_import_file(const char* path, const mc_import_options* options, mc_mesh** out,
                                         mc_mesh_report* report, mc_error* err);

    /// Check a file without requiring a closed mesh: fills the report of what was read. Same formats as import.
    /// When the mesh is usable for contact and options->self_check is not MC_SELF_CHECK_SKIP, the self-check runs too
    /// (on the mesh with its OBB tree, built and freed here): its findings are in the report and make contact_ready
    /// false, but are not an error of this function.
    MC_API mc_status mc_mesh_check_file(const char* path, const mc_import_options* options, mc_mesh_report* report,
                                        mc_error* err);

    /// Where a B-rep reader puts its triangles during one import (see mc_brep_reader_fcn): the import's own arrays,
    /// in the library allocator, held to the import's max_triangles. Valid only during the reader's call.
    typedef struct mc_brep_sink mc_brep_sink;

    /// What a B-rep reader found besides its triangles. The import sets file_scale to 1 and the rest to 0 before it
    /// calls the reader.
    typedef struct mc_brep_info
    {
        /// metres per unit of the points the reader added (1e-3 when it gives millimetres); finite and > 0. The
        /// import multiplies the points by it and then by options->scale.
        double file_scale;
        uint32_t solids;   ///< solids in the file, all of them whatever options->brep_solid selects (mc_mesh_report)
        uint32_t surfaces; ///< faces tessellated (mc_mesh_report.brep_surfaces)
        /// exact volume of the selected solids in the points' units cubed (mc_mesh_report.brep_volume after
        /// scaling); 0 when the file has no solid; finite and >= 0
        double volume;
    } mc_brep_info;

    /// A B-rep reader: tessellates the CAD file at `path` into `sink` (mc_brep_sink_add_points, then
    /// mc_brep_sink_add_triangles with 0-based indices into every point added), each solid's triangles wound
    /// counter-clockwise seen from outside, and fills `info`. The import then welds, checks and builds the mesh as
    /// for mesh files. Called by mc_mesh_import_file and mc_mesh_check_file for .step .stp .iges .igs .brep, possibly
    /// from several threads at once (a reader serialises what is not thread-safe).
    /// @param path the file, already checked to be a regular file of at most options->max_bytes bytes
    /// @param options the import's options, never NULL: scale, chord_tolerance, angle_tolerance and brep_solid are the
    ///        reader's to apply (the sink applies max_triangles); it may report progress in [0, 0.5] through
    ///        options->progress
    /// @param sink receives the points and triangles
    /// @param info receives the unit, counts and exact volume (only read on MC_OK)
    /// @param err never NULL: on failure the reader writes its status and a message that names the file
    /// @return MC_OK, or a negative mc_status (an error of the sink functions is returned as it is)
    typedef mc_status mc_brep_reader_fcn(const char* path, const mc_import_options* options, mc_brep_sink* sink,
                                         mc_brep_info* info, mc_error* err);

    /// Install the reader of B-rep files (NULL: none, the default; a .step file then fails with
    /// MC_ERR_UNSUPPORTED_FORMAT). meshcontact-brep's mc_brep_register() calls this with its gmsh reader; a host with
    /// its own CAD kernel may install its own. Thread-safe (an atomic pointer): an import uses the reader installed
    /// when it starts, and one that is running when the reader changes finishes with the old one.
    MC_API void mc_mesh_set_brep_reader(mc_brep_reader_fcn* reader);

    /// @return the installed B-rep reader, or NULL. Thread-safe.
    MC_API mc_brep_reader_fcn* mc_mesh_get_brep_reader(void);

    /// For B-rep readers: append `count` points to the sink and receive where to write their coordinates (x y z
    /// each, in the file's units: see mc_brep_info.file_scale). They start as NaN, so a point left unwritten fails the
    /// import (MC_ERR_NON_FINITE). *xyz is valid until the next call on the sink; the first point added has index 0.
    /// @param sink the sink the reader was given
    /// @param count points to append
    /// @param xyz receives 3 * count doubles to fill (NULL when count is 0), on success only
    /// @param err may be NULL; filled on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL sink or xyz), MC_ERR_OUT_OF_MEMORY (also beyond 2^32 - 2 points)
    MC_API mc_status mc_brep_sink_add_points(mc_brep_sink* sink, uint32_t count, double** xyz, mc_error* err);

    /// For B-rep readers: append `count` triangles to the sink and receive where to write their corners (3 point
    /// indices each, 0-based over every point added, counter-clockwise seen from outside). They start as
    /// UINT32_MAX, so a corner left unwritten fails the import (MC_ERR_INDEX_OUT_OF_RANGE). *indices is valid until the
    /// next call on the sink.
    /// @param sink the sink the reader was given
    /// @param count triangles to append
    /// @param indices receives 3 * count indices to fill (NULL when count is 0), on success only
    /// @param err may be NULL; filled on failure
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT, MC_ERR_LIMIT (more than the import's max_triangles) or
    ///         MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_brep_sink_add_triangles(mc_brep_sink* sink, uint32_t count, uint32_t** indices, mc_error* err);

    /// @return the report computed when the mesh was created.
    MC_API const mc_mesh_report* mc_mesh_get_report(const mc_mesh* mesh);
    /// @return number of vertices of the (cleaned) mesh.
    MC_API uint32_t mc_mesh_get_vertex_count(const mc_mesh* mesh);
    /// @return number of triangles of the (cleaned) mesh.
    MC_API uint32_t mc_mesh_get_triangle_count(const mc_mesh* mesh);
    /// @return pointer to the vertex positions (vertex_count entries, body frame, scaled); valid while the mesh lives
    /// and is not deformed (mc_mesh_set_positions gives it a new array).
    MC_API const mc_vec3* mc_mesh_get_positions(const mc_mesh* mesh);
    /// @return pointer to the triangle indices (3 * triangle_count, counter-clockwise from outside); valid while the
    /// mesh lives.
    MC_API const uint32_t* mc_mesh_get_indices(const mc_mesh* mesh);
    /// @return bytes owned by the mesh (arrays, topology, OBB tree and, once built, its region blocks: see
    ///         mc_mesh_prepare_regions).
    MC_API size_t mc_mesh_get_byte_count(const mc_mesh* mesh);

    /// Deform a mesh (flexible bodies: finite-element or modal surfaces, soft parts): give it new vertex positions,
    /// same triangles. `positions` holds 3 * vertex_count doubles (x, y, z per vertex, body frame, the units of the
    /// mesh after its creation scale: the layout of mc_mesh_get_positions, in its vertex order, which is the input
    /// order unless creation welded or dropped vertices), and vertex_count must be mc_mesh_get_vertex_count(mesh).
    /// The OBB tree is refitted in place (same topology and box axes, every box fitted again to its vertices,
    /// conservative as built),
    /// and rebuilt when the refit has degraded it: when the sum of its boxes' surface areas over the mesh's surface
    /// area exceeds 1.5 times that measure right after its last build (mc_mesh_deform_info; a rebuild allocates). The
    /// face normals, component volumes and the report's bounding box, volume and area follow; the region blocks'
    /// sums follow at the next region query on the mesh (a host that asks only for pairs never pays for them).
    /// Every query afterwards answers exactly as on a mesh created from these positions and
    /// mc_mesh_get_indices(mesh) (the same pairs and crossings bitwise; volumes to rounding), deterministically; once
    /// the first call has allocated its staging arrays and the tree's refit plan (made again after a rebuild), a refit
    /// allocates nothing.
    ///
    /// What a deformed mesh may not do, checked (the call fails and the mesh keeps its positions): a non-finite
    /// coordinate (MC_ERR_NON_FINITE) or one outside the library's range (MC_ERR_OUT_OF_RANGE); a triangle of zero area
    /// or a connected component turned inside out (its signed volume changes sign) (MC_ERR_INVALID_ARGUMENT); a vertex
    /// count other than the mesh's (MC_ERR_INVALID_ARGUMENT). Not checked, the host's duty: the deformed surface must
    /// not intersect or touch itself and no two vertices may coincide (mc_mesh_count_self_intersections checks it at
    /// the cost of a self-query; contact volumes of a self-intersecting mesh count space twice).
    ///
    /// Threads: the mesh must not be in use while it is deformed (no query, mc_world_evaluate or mc_world_step on a
    /// world with a body using it may run concurrently); debug builds detect a deformation during a pair query on the
    /// mesh (MC_ASSERT, then MC_ERR_INVALID_ARGUMENT). Worlds notice the change at their next evaluation (bounds and
    /// reused regions are refreshed). A body created with `flip` queries the world's flipped copy of the mesh, which
    /// takes the new positions at the world's next evaluation (a refit of the copy; a failure fails that evaluation).
    /// Pointers returned by mc_mesh_get_positions before the call are invalid after it.
    /// @param err may be NULL; on failure says which vertex, triangle or component
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT, MC_ERR_NON_FINITE, MC_ERR_OUT_OF_RANGE or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_mesh_set_positions(mc_mesh* mesh, const double* positions, uint32_t vertex_count,
                                           mc_error* err);

    /// What mc_mesh_set_positions has done to a mesh's tree.
    typedef struct mc_mesh_deform_info
    {
        uint32_t refits;        ///< deformations that refitted the tree
        uint32_t rebuilds;      ///< deformations that rebuilt it (refit degraded past the criterion)
        double tree_cost;       ///< sum of the tree's box surface areas over the mesh's surface area, now
        double tree_cost_built; ///< the same right after the tree's last build (0 before the first deformation)
        uint64_t version;       ///< 0 at creation, a new value (unique in the process) after each deformation
    } mc_mesh_deform_info;

    /// @return the deformation counters and tree measure of a mesh (zeros for NULL).
    MC_API mc_mesh_deform_info mc_mesh_get_deform_info(const mc_mesh* mesh);

    /// Count the pairs of triangles of a mesh that intersect each other at its current positions (the rule of the
    /// creation self-check, mc_self_check): the check a host may run after deforming a mesh (a self-query: about the
    /// cost of a contact query of the mesh with itself).
    /// @param pairs receives the count; first (may be NULL) the smallest pair (i < j), UINT32_MAX twice when none
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_mesh_count_self_intersections(const mc_mesh* mesh, uint64_t* pairs, uint32_t first[2]);

    /// Write a mesh as binary STL: an 80-byte header that does not start with "solid", the triangle count, then per
    /// triangle the unit normal and three vertices as little-endian 32-bit floats (as the format requires: about 7
    /// significant digits) and a zero attribute word. The triangles are written as the mesh holds them: cleaned,
    /// welded, outward (after reorientation and the flip flag), in the mesh's (scaled) coordinates.
    /// @param mesh mesh to write
    /// @param path file to create or overwrite
    /// @param err may be NULL; on failure (MC_ERR_IO: cannot open, write or close, e.g. disk full) names the file
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL mesh or path) or MC_ERR_IO
    MC_API mc_status mc_mesh_write_stl(const mc_mesh* mesh, const char* path, mc_error* err);
    /// Write a mesh as an Adams shell file: header `n_points n_faces scale`, one point per line (%.17g, so doubles
    /// read back exactly), then faces `3 i j k` with 1-based indices, counter-clockwise from outside. Points and
    /// triangles as the mesh holds them (see mc_mesh_write_stl).
    /// @param mesh mesh to write
    /// @param path file to create or overwrite
    /// @param scale the header's conversion factor to metres, written as given (1 if the mesh is already in metres);
    ///        a reader multiplies the coordinates by it. Finite and > 0.
    /// @param err may be NULL; on failure names the file
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL mesh or path, bad scale) or MC_ERR_IO
    MC_API mc_status mc_mesh_write_shl(const mc_mesh* mesh, const char* path, double scale, mc_error* err);

    /// Primitive shapes that can be tessellated, in the body frame (length units).
    typedef enum mc_primitive_type
    {
        /// box of FULL edge lengths dims.x, dims.y, dims.z centred at the origin: it spans -dims.x/2 .. dims.x/2
        /// (likewise y, z). The same convention as `meshcontact primitive box --size X,Y,Z`; a scenario's
        /// `GRAPHICS/..., BOX, X=, Y=, Z=` has the same lengths, placed from Adams' corner.
        MC_PRIMITIVE_BOX = 0,
        MC_PRIMITIVE_ELLIPSOID =
            1, ///< ellipsoid of semi-axes dims.x, dims.y, dims.z centred at the origin (sphere: equal)
        MC_PRIMITIVE_CYLINDER = 2, ///< cylinder along z, radius dims.x, from z = -dims.z/2 to +dims.z/2
        MC_PRIMITIVE_FRUSTUM =
            3, ///< truncated cone along z: bottom radius dims.x at z = 0, top radius dims.y at z = dims.z
        MC_PRIMITIVE_TORUS = 4, ///< torus around z: major radius dims.x, minor (tube) radius dims.y
    } mc_primitive_type;

    /// A primitive and its faceting controls. Initialize with mc_default_primitive_def().
    typedef struct mc_primitive_def
    {
        mc_primitive_type type; ///< the shape
        mc_vec3 dims; ///< shape dimensions, see mc_primitive_type (length units; a box's are full edge lengths)
        double chord_tolerance; ///< maximum distance between the true surface and the facets (length units, > 0)
        double max_angle; ///< maximum angle subtended by one facet edge on curved surfaces (radians, default 15 deg)
        /// most triangles the tessellation may produce (default MC_DEFAULT_MAX_TRIANGLES): a finer request fails
        /// with MC_ERR_LIMIT before the arrays are allocated
        uint64_t max_triangles;
        int internal_value; ///< set by mc_default_primitive_def()
    } mc_primitive_def;

    /// @return a unit sphere with chord tolerance 1e-3 and Adams' default angle limit of 15 degrees.
    MC_API mc_primitive_def mc_default_primitive_def(void);

    /// Tessellate a primitive into arrays allocated with the library allocator (free with mc_free_arrays).
    /// The result is an indexed mesh (no duplicate vertices), closed, wound counter-clockwise seen from outside,
    /// without zero-area triangles. Every point of every facet is within chord_tolerance of the true surface, and
    /// the true surface normals at the two ends of any facet edge differ by at most max_angle (on a sphere: the
    /// angle the edge subtends at the centre; edges at a cone apex, where there is no normal, are exempt). Both are
    /// checked on the built mesh with rigorous bounds and the resolution is raised until they hold.
    /// Shapes: a box has 12 triangles (exact). Spheres are cube spheres (no pole fans). Other ellipsoids,
    /// cylinders, frusta and tori are rings of vertices (ellipses for a triaxial ellipsoid, around its axis that
    /// leaves the roundest rings) spaced by the local curvature, with counts that follow the ring size, so poles,
    /// caps and small rims get concentric rings instead of fans.
    /// Smallest triangle angle (tests/test_tessellate.c): spheres >= 30 degrees (measured 34 to 35); cylinders,
    /// frusta, tori, spheroids and triaxial ellipsoids whose roundest cross-section has axis ratio <= 2: >= 20
    /// degrees (measured 21 to 35 over random shapes); more eccentric cross-sections lose quality (measured about
    /// 17 degrees at ratio 3, 6.5 at 5); a box: atan(short / long side of a face); a cone's apex triangles have
    /// the apex angle 2 asin(sin(half opening) sin(pi / m)), m being the fewest segments meeting max_angle (a
    /// needle cone gets needle apex triangles: raise max_angle).
    /// See mc_primitive_tessellate_count for a given triangle count.
    /// @param def shape and faceting controls; chord_tolerance finite > 0, max_angle in (0, pi/2]
    /// @param positions receives 3 * *vertex_count doubles (on success only)
    /// @param vertex_count receives the number of vertices
    /// @param indices receives 3 * *triangle_count zero-based indices (on success only)
    /// @param triangle_count receives the number of triangles
    /// @param err may be NULL; filled on failure
    /// @return MC_OK; MC_ERR_INVALID_ARGUMENT for bad parameters or more than 2^31 triangles (never silently
    ///         capped); MC_ERR_LIMIT for more than def->max_triangles; MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_primitive_tessellate(const mc_primitive_def* def, double** positions, uint32_t* vertex_count,
                                             uint32_t** indices, uint32_t* triangle_count, mc_error* err);

    /// Tessellate a primitive and create a mesh from it (see mc_mesh_create).
    MC_API mc_status mc_mesh_create_primitive(const mc_primitive_def* def, mc_mesh** out, mc_error* err);

    /// Tessellate a primitive into about `target_triangles` triangles, for benchmarks and tests that need a given
    /// mesh size. def->chord_tolerance and def->max_angle are ignored and no tolerance is promised; the mesh is
    /// closed, outward and sliver-free like mc_primitive_tessellate's. A sphere gets exactly 12 n^2 triangles and
    /// 6 n^2 + 2 vertices with n = round(sqrt(N / 12)) (972, 10092, 99372, 1002252 for N = 1e3, 1e4, 1e5, 1e6),
    /// in about 30 ms for 1M triangles. A box always gets 12. Other shapes get the count closest to N that their
    /// spacing rules allow (tested within 15 % at N = 20000); very flat or thin shapes may need more than N to keep
    /// their triangles well shaped.
    /// @param target_triangles wanted triangle count, 1 .. 2^31
    /// @return as mc_primitive_tessellate
    MC_API mc_status mc_primitive_tessellate_count(const mc_primitive_def* def, uint32_t target_triangles,
                                                   double** positions, uint32_t* vertex_count, uint32_t** indices,
                                                   uint32_t* triangle_count, mc_error* err);

    /// mc_primitive_tessellate_count followed by mc_mesh_create (default mesh def).
    MC_API mc_status mc_mesh_create_primitive_count(const mc_primitive_def* def, uint32_t target_triangles,
                                                    mc_mesh** out, mc_error* err);

    /// Free arrays returned by mc_primitive_tessellate. NULL is ignored.
    MC_API void mc_free_arrays(double* positions, uint32_t* indices);

#ifdef __cplusplus
}
#endif
