// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Shared pieces of the command-line tool: subcommand entry points, argument parsing and output helpers.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stdio.h>

/// A subcommand: argv[0] is the subcommand name. Returns the process exit status.
typedef int cli_command_fcn(int argc, char** argv);

/// Print `meshcontact: <subject>: <message>` on stderr (subject may be NULL) and return 1.
int cli_fail(const char* subject, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// Print a usage error `meshcontact: <command>: <message> (see 'meshcontact <command> --help')` on stderr and return
/// 2; command NULL gives `meshcontact: <message> (see 'meshcontact --help')`.
int cli_usage_error(const char* command, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// Parse a finite double; false on trailing garbage, empty text, NaN or infinity.
/// Install the library's log hook (the last message is kept, see cli_last_log) and an assert hook that prints the
/// failed condition before the trap.
void cli_install_hooks(void);
/// The last message the library logged ("" when none).
const char* cli_last_log(void);
bool cli_parse_double(const char* text, double* out);
/// Parse a positive int.
bool cli_parse_int(const char* text, int* out);
/// Parse `n` comma-separated finite doubles.
bool cli_parse_doubles(const char* text, double* out, int n);
/// Parse a pose `tx,ty,tz,qw,qx,qy,qz` (quaternion normalised; a zero quaternion is an error) or `tx,ty,tz`.
bool cli_parse_pose(const char* text, mc_pose* out);

/// What an option's value is parsed into (the `value` pointer of cli_option).
typedef enum cli_value_kind
{
    CLI_FLAG,    ///< no value; bool, set to true
    CLI_TEXT,    ///< const char*, the text as given
    CLI_NUMBER,  ///< double: a finite number (cli_parse_double), then cli_option.accept if set
    CLI_NUMBERS, ///< double[cli_option.count]: comma-separated finite numbers (cli_parse_doubles)
    CLI_COUNT,   ///< int: a positive integer (cli_parse_int)
    CLI_POSE,    ///< mc_pose (cli_parse_pose)
} cli_value_kind;

/// One option of a subcommand: `--name VALUE`, `--name=VALUE` or, with a short name, `-c VALUE`.
typedef struct cli_option
{
    const char* name;         ///< long name without the dashes ("pose-i")
    char short_name;          ///< one-letter form ('o'), or 0
    cli_value_kind kind;      ///< how the value is parsed
    void* value;              ///< where it is stored (type per kind)
    int count;                ///< CLI_NUMBERS: how many numbers
    bool (*accept)(double v); ///< CLI_NUMBER: extra range check, or NULL
    bool* seen;               ///< set to true when the option is given, or NULL
    const char* needs;        ///< what the value must be, for the message `--name needs <needs>, got 'text'`
} cli_option;

/// A subcommand's command line: options anywhere, then exactly `operand_count` operands (MESH files, TYPE, ...).
typedef struct cli_syntax
{
    const char* command;              ///< the subcommand ("contact"), for messages and the help hint
    void (*help)(FILE* f);            ///< prints the --help text
    const cli_option* options;        ///< the options (--help / -h is implicit)
    int option_count;                 ///< entries in options
    const char* const* operand_names; ///< names of the operands for messages ("MESH_I", "MESH_J")
    const char** operands;            ///< receives the operands
    int operand_count;                ///< how many operands are required
} cli_syntax;

/// Number of entries of an array.
#define CLI_LENGTH(a) ((int)(sizeof(a) / sizeof((a)[0])))

/// What cli_parse_args returns when the subcommand should go on; any other value is the exit status.
#define CLI_CONTINUE (-1)

/// Parse a subcommand's argv (argv[0] is the subcommand) with getopt_long. Prints the help on --help / -h (returns
/// 0) and a usage error naming the subcommand's help on a bad command line (returns 2); otherwise stores every value
/// and returns CLI_CONTINUE. Long options must be spelled out (no abbreviations); `--` ends the options.
int cli_parse_args(const cli_syntax* syntax, int argc, char** argv);

/// An accept function for CLI_NUMBER: v > 0.
bool cli_positive(double v);

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

/// Accept function of --angle for B-rep faceting: degrees in (0, 90].
bool cli_is_facet_angle(double v);
/// Accept function of --solid: a whole number from 0 to 2^31 - 1.
bool cli_is_solid_index(double v);
/// Set the B-rep options of an import: angle tolerance from degrees (0: keep the default), solid (< 0: all merged).
void cli_apply_brep_options(mc_import_options* opt, double angle_deg, double solid);
/// Help lines of the B-rep faceting options, the descriptions indented by `indent` (a string literal of blanks).
#define CLI_BREP_HELP(indent)                                                                                          \
    "  --chord-tolerance C\n" indent                                                                                   \
    "B-rep files (.step .stp .iges .igs .brep): largest distance between facets and\n" indent                          \
    "surface (length, after --scale; default 0.005 x the largest extent)\n"                                            \
    "  --angle DEG\n" indent "B-rep files: largest angle a facet edge turns on a curved face (default 15)\n"           \
    "  --solid K\n" indent "B-rep files: only the K-th solid (from 0; default: every solid, merged)\n"
/// True for the B-rep extensions (.step .stp .iges .igs .brep, any case).
bool cli_is_brep_path(const char* path);
/// OpenCASCADE (under gmsh) writes some messages on stdout when it reads IGES files or meets a STEP syntax error,
/// which would break the one-JSON-object contract: for a B-rep path, point stdout at /dev/null until
/// cli_restore_stdout. @return the saved descriptor, or -1 (nothing changed: not a B-rep path, or it failed).
int cli_mute_stdout(const char* path);
/// Undo cli_mute_stdout (saved -1: nothing to do).
void cli_restore_stdout(int saved);
/// Import a mesh for contact (scaled by `scale`, progress on a terminal). On failure prints the importer's message on
/// stderr (prefixed with the path unless the message starts with it; a mesh that intersects itself gets the hint of
/// --accept-self-intersections) and returns 1; returns 0 on success. With `accept_self_intersections` such a mesh is
/// imported anyway (MC_SELF_CHECK_ACCEPT) and a warning line `meshcontact: warning: <path>: ...` goes to stderr.
int cli_load_mesh(const char* path, double scale, double max_triangles, bool accept_self_intersections, mc_mesh** out);
/// A shape operand: `sphere:R` (a ball of radius R on the body origin), `socket:R` (the outside of that sphere),
/// `plane` (the half-space z <= 0 of the body frame), `cylinder:R,L` (along the body z axis, centred), `hole:R,L` (a
/// hole of that size through a slab of thickness L), or a mesh file (cli_load_mesh; *mesh receives it, to destroy;
/// NULL for the analytic shapes). Lengths are multiplied by `scale`. Prints the error and returns 1 on failure.
int cli_load_shape(const char* spec, double scale, double max_triangles, bool accept_self_intersections,
                   mc_shape* shape, mc_mesh** mesh);
/// What the self-check found in a mesh, as one clause list ("3 pairs of triangles intersect (the first: triangles 4
/// and 17); 1 component nested ..."), into buf; an empty string when it found nothing or did not run.
void cli_self_check_summary(const mc_mesh_report* r, char* buf, size_t size);
/// Accept function of --max-triangles: a whole number from 1 to 2^40.
bool cli_is_max_triangles(double v);
/// Files larger than this (bytes) are written by the CLI only when asked (primitive --large).
#define CLI_LARGE_FILE 1e9
/// Help lines of --max-triangles, the description indented by `indent` (a string literal of blanks).
#define CLI_MAX_TRIANGLES_HELP(indent)                                                                                 \
    "  --max-triangles N\n" indent "refuse meshes of more than N triangles before allocating them (default\n" indent   \
    "2^26 = 67108864, about 18 GB with the OBB tree)\n"

/// Wall-clock seconds from a monotonic clock.
double cli_now(void);

int cli_info(int argc, char** argv);
/// `meshcontact repair IN OUT`: repair a mesh file and write it as STL or .shl.
int cli_repair(int argc, char** argv);
/// For a mesh that cannot be used for contact: check whether every repair (then every repair after a weld of 1e-6
/// of the diagonal) would make it usable; if so write the command and what it changes into buf and return true.
bool cli_repair_suggestion(const char* path, const mc_import_options* base, char* buf, size_t size);
/// `meshcontact primitive`: tessellate a primitive shape and write it as STL or .shl.
int cli_primitive(int argc, char** argv);
/// `meshcontact simulate SCENARIO`: integrate a scenario file, write a CSV and an SVG force plot.
int cli_simulate(int argc, char** argv);
/// `meshcontact force`: regions and IMPACT / friction forces of two meshes at given poses and velocities.
int cli_force(int argc, char** argv);
/// `meshcontact contact MESH_I MESH_J ...`: intersecting triangle pairs (and regions) at given poses.
int cli_contact(int argc, char** argv);
/// `meshcontact bench MESH_I MESH_J ...`: stage timings, memory and thread scaling on the user's pair of meshes.
int cli_bench(int argc, char** argv);
/// `meshcontact sweep KIND ...`: a table of poses or scenario parameters evaluated row by row (MPI when started by
/// mpirun), the output in input order, resumable.
int cli_sweep(int argc, char** argv);
