// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The animation of `meshcontact simulate`: an animated glTF 2.0 binary (<name>.glb) of every part's geometry, its
// motion and the contact forces as arrows, and an offline viewer page (<name>.html, three.js inlined). Part of the
// command-line tool, not of the library. User documentation: src/app/simulate.md, "The animation".
#pragma once

#include "src/app/simulate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * WHAT THE GLB HOLDS
 * ==================
 * Node tree: one root node `scenario` that turns the scenario's frame into glTF's (+Y up, metres): a rotation
 * taking the scenario's up axis (minus gravity; +Z without gravity) onto +Y and a scale from UNITS/LENGTH to metres
 * (METER, MILLIMETER, CENTIMETER, KILOMETER, INCH, FOOT; any other or no unit: metres assumed). Under it, in the
 * scenario's frame and units:
 *   - a node `PART/id` per part at the pose of the motion CSV (centre of mass position, orientation body to ground),
 *     animated (LINEAR) for moving parts; its children `GRAPHICS/id` carry the meshes at their pose in that frame:
 *     the meshes the contacts use (files, tessellated primitives), the library's tessellation of ANALYTIC shapes
 *     (APP_ANIM_ANALYTIC_TRIANGLES triangles), and for a PLANE a square 4 times the size of the space the moving
 *     parts sweep. A mesh of more than APP_ANIM_MAX_TRIANGLES triangles is shown decimated by vertex clustering
 *     (a uniform grid whose cell is chosen so that at most that many triangles remain; the contacts use the whole
 *     mesh). No normals: viewers shade the facets flat, as the contacts see them.
 *   - per scenario contact, nodes `CONTACT/id arrow k` (k = 0 .. the most regions the contact had at once, at most
 *     APP_ANIM_MAX_ARROWS): at each keyframe the k-th region of the contact (the world's order: decreasing volume),
 *     an arrow from its contact point along the force on the J part (normal plus friction), of length |F| times the
 *     force scale, STEP-interpolated, scaled to zero when the region is absent. Coloured as the contact's curves of
 *     the plot. The force scale (length per force unit) makes the largest force of the run APP_ANIM_ARROW_FRACTION
 *     of the size of the moving parts' swept space; the scene's extras give it.
 * Keyframes: every output time, and between two of them the times at which a contact's normal force peaked (the
 * contacts CSV's fn_peak_time) when that peak is above the force at both ends, so that an impact between outputs
 * is shown. Times as float32 (a time that rounds to its predecessor's float is dropped).
 * Deterministic: the same run gives the same bytes. The binary chunk holds the host's float and uint32 bytes, which
 * is GLB's little-endian layout on the hosts meshcontact builds for (x86-64, ARM64).
 */

/// Most triangles a mesh is shown with; more are decimated by vertex clustering (see above).
#define APP_ANIM_MAX_TRIANGLES 250000
/// Triangles of the display tessellation of an ANALYTIC sphere or cylinder (mc_primitive_tessellate_count).
#define APP_ANIM_ANALYTIC_TRIANGLES 2000
/// Most arrows per contact (its first regions in the world's order).
#define APP_ANIM_MAX_ARROWS 32
/// The largest force's arrow is this fraction of the size of the space swept by the moving parts.
#define APP_ANIM_ARROW_FRACTION 0.25

/// The recorder of an animation.
typedef struct app_anim app_anim;

/// Create a recorder for a simulation (before its run: app_sim_outputs.anim). @return NULL when out of memory
app_anim* app_anim_create(const app_sim* sim);

/// Destroy a recorder. NULL is ignored.
void app_anim_destroy(app_anim* anim);

/// Record the state after an integration step (a candidate peak keyframe).
void app_anim_step(app_anim* anim, const app_sim* sim);

/// Record the state at an output time (time 0 included): a keyframe, after the peak keyframes since the last one.
void app_anim_output(app_anim* anim, const app_sim* sim);

/// @return the keyframes recorded so far; *times receives their times (valid until the next record).
int app_anim_get_keyframes(const app_anim* anim, const double** times);

/// @return the summed normal force of contact c at keyframe k (k < app_anim_get_keyframes)
double app_anim_get_normal_force(const app_anim* anim, int k, int c);

/// @return the colour of contact c as "#rrggbb": the plot's colour of its curves (plot.c), also its arrows'
const char* app_anim_contact_colour(int c);

/// Build the glTF binary (GLB) of the recorded run. @param out receives a malloc'ed buffer, @param size its size
/// @return false with a message on failure (out of memory, a tessellation that fails)
bool app_anim_build_glb(const app_anim* anim, const app_sim* sim, unsigned char** out, size_t* size, char* err,
                        size_t err_cap);

/// Write the viewer page: the glb (base64), three.js and the viewer inlined, the normal-force curves of the
/// contacts at the keyframes. @param title the page's title (the scenario's name)
/// @return false with a message on failure
bool app_anim_write_html(const app_anim* anim, const app_sim* sim, const unsigned char* glb, size_t glb_size,
                         const char* title, const char* path, char* err, size_t err_cap);
