// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Shared pieces of the command-line tool: subcommand entry points, argument parsing and output helpers.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stdio.h>

/// A subcommand: argv[0] is the subcommand name. Returns the process exit status.
typedef int cli_command_fcn(int argc, char** argv);

/// Print `meshcontact: <subject>: <message>` on stderr (subject may be NULL) and return 1 (or 2 for usage).
int cli_fail(const char* subject, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// Print a usage error `meshcontact: <message>` plus a hint to run --help, and return 2.
int cli_usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Parse a finite double; false on trailing garbage, empty text, NaN or infinity.
bool cli_parse_double(const char* text, double* out);
/// Parse a positive int.
bool cli_parse_int(const char* text, int* out);
/// Parse `n` comma-separated finite doubles.
bool cli_parse_doubles(const char* text, double* out, int n);
/// Parse a pose `tx,ty,tz,qw,qx,qy,qz` (quaternion normalised; a zero quaternion is an error) or `tx,ty,tz`.
bool cli_parse_pose(const char* text, mc_pose* out);

/// Print a double in JSON with round-trip precision (%.17g); NaN/inf are printed as null.
void cli_json_double(FILE* f, double v);
/// Print [x,y,z].
void cli_json_vec3(FILE* f, mc_vec3 v);
/// Print a JSON string literal with escaping.
void cli_json_string(FILE* f, const char* s);
/// Print the members of a region object, without braces: "volume", "centroid", "area", "radius", "normal",
/// "depth", "point_i", "point_j" (the order of the JSON contract).
void cli_json_region_members(FILE* f, const mc_region* r);

/// True when stderr is a terminal (progress output is shown only then).
bool cli_stderr_is_tty(void);
/// A progress callback for mc_import_options: draws `label NN%` on stderr, user = label (const char*).
void cli_progress(double fraction, void* user);

/// Import a mesh for contact (scaled by `scale`, progress on a terminal). On failure prints the importer's message on
/// stderr (prefixed with the path unless the message starts with it) and returns 1; returns 0 on success.
int cli_load_mesh(const char* path, double scale, mc_mesh** out);

/// Wall-clock seconds from a monotonic clock.
double cli_now(void);

int cli_info(int argc, char** argv);
/// `meshcontact primitive`: tessellate a primitive shape and write it as STL or .shl.
int cli_primitive(int argc, char** argv);
/// `meshcontact simulate SCENARIO`: integrate a scenario file, write a CSV and an SVG force plot.
int cli_simulate(int argc, char** argv);
/// `meshcontact force`: regions and IMPACT / friction forces of two meshes at given poses and velocities.
int cli_force(int argc, char** argv);
/// `meshcontact contact MESH_I MESH_J ...`: intersecting triangle pairs (and regions) at given poses.
int cli_contact(int argc, char** argv);
