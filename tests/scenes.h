// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scene builders shared by the tests and the benchmark: generated meshes, mesh pairs at contact poses, corpus meshes.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stddef.h>
#include <stdint.h>

/// Generated contact configurations (two meshes and their poses).
typedef enum scene_kind
{
    SCENE_SPHERE_SPHERE = 0, ///< two unit spheres, centres 1.8 apart (overlap 10% of the diameter), J rotated
    SCENE_TORI = 1,          ///< interlinked tori (R 1, r 0.3), J's tube through I's hole, 0.1 overlap on one side
    SCENE_BOX_BOX = 2,       ///< box J tilted 30 degrees about x resting on box I with 1% penetration (of J's height)
    SCENE_SPHERE_BOX = 3,    ///< unit sphere on a 4 x 4 x 1 box top face, penetration 0.02 (1% of the diameter)
    SCENE_KIND_COUNT = 4,
} scene_kind;

/// A mesh pair at its poses. Meshes are owned (scene_pair_destroy frees them; mesh_j may equal mesh_i).
typedef struct scene_pair
{
    char name[64];   ///< e.g. "sphere_sphere_10k"
    mc_mesh* mesh_i; ///< first mesh
    mc_mesh* mesh_j; ///< second mesh (may be the same object as mesh_i)
    mc_pose pose_i;  ///< body to world of I
    mc_pose pose_j;  ///< body to world of J
} scene_pair;

/// Short name of a scene kind ("sphere_sphere", "tori", "box_box", "sphere_box").
const char* scene_kind_name(scene_kind kind);

/// Name of a generated scene, e.g. "sphere_sphere_10k" (the name scene_make gives it).
void scene_make_name(scene_kind kind, uint32_t triangles, char* buf, size_t size);

/// Build a generated scene with about `triangles` triangles per mesh. @return 0 on success.
int scene_make(scene_kind kind, uint32_t triangles, scene_pair* out);

/// Build a scene from a mesh file (a path relative to the repository root, e.g. "data/spot.obj", or an absolute
/// path), colliding with itself shifted by `shift` times its bbox
/// diagonal along (1, 0.5, 0.25)/|.| and rotated by `angle` radians about z. @return 0 on success.
int scene_make_file(const char* relative_path, const char* name, double shift, double angle, scene_pair* out);

/// Free the meshes of a scene.
void scene_pair_destroy(scene_pair* s);

/// Mesh from arrays (exact welding, closed required). NULL on failure.
mc_mesh* scene_mesh_from_arrays(const double* positions, uint32_t vertex_count, const uint32_t* indices,
                                uint32_t triangle_count);

/// UV sphere of radius r with about `triangles` triangles (own generator, independent of the tessellator).
/// A primitive (mc_primitive_tessellate_count: `triangles` about) as a mesh; NULL on failure.
mc_mesh* scene_primitive(mc_primitive_type type, mc_vec3 dims, uint32_t triangles);
mc_mesh* scene_uv_sphere(double r, uint32_t triangles);
/// Torus around z (major radius R, tube radius r) with about `triangles` triangles.
mc_mesh* scene_torus(double major, double minor, uint32_t triangles);
/// Box of half extents h with each face split into an n x n grid (12 n^2 triangles), n chosen for `triangles`.
/// Coordinates are -h + 2 h i / n, exact for dyadic h and power-of-two n.
mc_mesh* scene_box_grid(mc_vec3 half, uint32_t triangles);

/// Import a file: an absolute path as it is, a relative one from the repository root ($MC_SOURCE_ROOT, else the
/// current directory). NULL on failure.
mc_mesh* scene_import(const char* relative_path);

/// Deterministic pseudo-random numbers (splitmix64), uniform in [0, 1).
double scene_random(uint64_t* state);
/// Random unit quaternion.
mc_quat scene_random_quat(uint64_t* state);

/// Axis-aligned box [lo, hi] of 12 triangles (two per face), outward. NULL on failure.
mc_mesh* scene_box(mc_vec3 lo, mc_vec3 hi);

/// The cube (edge 2) or, hollow, the cube of edge 4 with a cube cavity of edge 2 of the fuzz harnesses
/// (tests/fuzz/fuzz_meshes.h: the same arrays, so the same triangulation), at `scale`, flipped or not: their findings
/// replayed in unit tests. NULL on failure.
mc_mesh* scene_fuzz_cube(int hollow, double scale, int flip);

/// Real-mesh scenes (the real meshes shipped in data/, as users meet them, against coarse boxes and each other): a
/// model and a CAD part standing on a 12-triangle plate, CAD parts inside a 12-triangle box, a box beside a part, CAD
/// parts through each other.
/// @return the number of real scenes.
int scene_real_count(void);

/// Name of real scene k (0 <= k < scene_real_count()), e.g. "spot_on_plate".
const char* scene_real_name(int k);

/// Build real scene k (meshes imported from data/, relative to $MC_SOURCE_ROOT or the working directory). @return 0 on
/// success, -1 when a mesh cannot be imported.
int scene_make_real(int k, scene_pair* out);

/// Visitor of scene_each_real.
typedef void scene_visit_fcn(const scene_pair* scene, void* ctx);

/// A family of scenes: how many, their names, how to build one, and what a failure to build one means.
typedef struct scene_source
{
    int (*count)(void);
    const char* (*name)(int k);
    int (*make)(int k, scene_pair* out);
    const char* failure; ///< printed after the scene's name when make fails
} scene_source;
/// Build each scene of `src` whose name contains `filter` (NULL: all), pass it to `visit`, then free it; a scene that
/// cannot be built is skipped with a line on stderr (benchmark drivers).
void scene_each(const scene_source* src, const char* filter, scene_visit_fcn* visit, void* ctx);
/// The real scenes (scene_make_real) and the CAD-export scenes (scene_make_cad, tests/scenes_cad.c).
extern const scene_source scene_source_real, scene_source_cad;
/// scene_each over the real scenes.
void scene_each_real(const char* filter, scene_visit_fcn* visit, void* ctx);

/// Real meshes of data/ each against a shifted, turned copy of itself (scene_make_file): "spot_shifted",
/// "knob_shifted", "motor_shifted". @return the number of such scenes.
int scene_shifted_count(void);

/// Name of shifted scene k: the shipped scenes first (k < scene_shifted_count()), then the mesh files `files[k -
/// scene_shifted_count()]` (a benchmark's -f): a file's base name without extension + "_shifted".
void scene_shifted_name(int k, const char* const* files, char* buf, size_t size);

/// Build shifted scene k (numbered as in scene_shifted_name; a file against a copy of itself shifted by 0.1 of its
/// bbox diagonal and turned 0.3 rad). @return 0 on success, -1 when its mesh cannot be imported.
int scene_make_shifted(int k, const char* const* files, scene_pair* out);

/// CAD-export scenes (tests/scenes_cad.c): machine parts tessellated as CAD systems export them (long thin triangles)
/// in poses a mechanism reaches: "gears_meshing" (two 24-tooth spur gears in mesh, 24 points per flank),
/// "gears_meshing_fine" (100 per flank), "shaft_in_bore" (a shaft pressed into a bored block), "crossed_shafts"
/// (1024 sides each) and "crossed_shafts_fine" (4096).
/// @return the number of CAD scenes.
int scene_cad_count(void);
/// Name of CAD scene k (0 <= k < scene_cad_count()).
const char* scene_cad_name(int k);
/// Build CAD scene k (generated: no file needed). @return 0 on success, -1 when out of memory.
int scene_make_cad(int k, scene_pair* out);
/// An involute spur gear (pressure angle 20 degrees, addendum m, dedendum 1.25 m) of `teeth` teeth and module
/// `module`, extruded from z = 0 to `width`, `flank_points` points on each flank; caps fanned from the axis.
/// *area_out (may be NULL) receives its profile's area (the polygon's, exactly as meshed). NULL on failure.
mc_mesh* scene_spur_gear(int teeth, double module, double width, int flank_points, double* area_out);
/// A block [-half, half]^2 x [0, height] with a through bore of radius `bore` < half along z, the bore's circle in
/// `segments` (a multiple of 4) segments; caps fanned from the block's corners. NULL on failure.
mc_mesh* scene_bored_block(double half, double height, double bore, uint32_t segments);
