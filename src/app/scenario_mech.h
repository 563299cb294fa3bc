// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scenario statements of mechanisms (MARKER, SFORCE, VFORCE, VTORQUE, SPRINGDAMPER, SPLINE, VARIABLE): what they
// hold once parsed, and the hooks the scenario reader (scenario.c) calls. Part of the command-line tool.
#pragma once

#include "src/app/expr.h"
#include "src/app/scenario.h"

/*
 * MECHANISM STATEMENTS (Adams names and semantics)
 * ================================================
 * MARKER/id, PART=id, [QP=x,y,z], [REULER=a,b,c | QUATERNION=w,x,y,z]
 *     A frame fixed on a part (the ground part too), placed in the part frame like a GRAPHICS (QP: origin, REULER:
 *     body 3-1-3 angles). MARKER/id, PART=id, FLOATING: a floating marker, for VFORCE's and VTORQUE's JFLOAT=: it
 *     sits where the force's I marker is, on its own part, which takes the reaction. A floating marker has no place
 *     of its own, so a function expression cannot measure it.
 *
 * SFORCE/id, I=id, J=id, TRANSLATION | ROTATION, [ACTIONONLY], FUNCTION=e
 *     A single-component force. TRANSLATION, action-reaction: along the line from J to I, positive pushing them
 *     apart, equal and opposite on J. TRANSLATION, ACTIONONLY: on I only, along J's z axis. ROTATION: a torque about
 *     J's z axis on I (and the opposite torque on J unless ACTIONONLY).
 *
 * VFORCE/id, I=id, JFLOAT=id, RM=id, FX=e\ FY=e\ FZ=e
 * VTORQUE/id, I=id, JFLOAT=id, RM=id, TX=e\ TY=e\ TZ=e
 *     A force (torque) at I with its components along RM's axes; JFLOAT's part takes the reaction at the same point.
 *     A missing component is 0. Adams separates the component expressions with a backslash.
 *
 * SPRINGDAMPER/id, I=id, J=id, TRANSLATION, K=k, C=c, [LENGTH=l0], [FORCE=f0]
 * SPRINGDAMPER/id, I=id, J=id, ROTATION, KT=k, CT=c, [ANGLE=a0], [TORQUE=t0]
 *     TRANSLATION: F = -C dr/dt - K (r - LENGTH) + FORCE along the line of sight, r = |I - J|, positive pushing the
 *     markers apart (LENGTH defaults to r at time 0, FORCE to 0). ROTATION: T = -CT w - KT (a - ANGLE) + TORQUE
 *     about J's z axis, a the angle of I's x axis about J's z axis from J's x axis (in (-pi, pi]; ANGLE defaults to
 *     0), w the relative angular velocity about J's z axis; on I, the opposite on J.
 *
 * SPLINE/id, X=x1,...,xn, Y=y1,...,yn, [METHOD=...]
 * SPLINE/id, X=x1,...,xn, Z=z1,...,zm, Y=y11,...,y1n, y21,...,y2n, ..., ym1,...,ymn
 *     A curve y(x) (scenario.h's SPLINE, read by scenario_laws.c for contact laws; x strictly increasing; AKISPL
 *     and CUBSPL need at least 4 points), or a surface y(x, z) for AKISPL and CUBSPL only: one curve in x per z
 *     value (z strictly increasing), Y row by row. AKISPL and CUBSPL evaluate it (include/meshcontact/law.h: Akima, the
 *     not-a-knot cubic); on a surface, each row is interpolated in x, then the m values in z by the same method
 *     (with fewer than 4 rows, linearly).
 *
 * VARIABLE/id, FUNCTION=e
 *     A named expression, for VARVAL(id).
 *
 * JOINT/id, I=id, J=id, REVOLUTE | TRANSLATIONAL | CYLINDRICAL | SPHERICAL | UNIVERSAL | PLANAR | FIXED
 *     A joint between the parts of markers I and J (two different parts), as in Adams: REVOLUTE turns about the
 *     common z axis of I and J, TRANSLATIONAL slides along it, CYLINDRICAL does both, SPHERICAL keeps the origins
 *     together, UNIVERSAL turns about J's z and I's z (perpendicular), PLANAR keeps I's xy plane on J's, FIXED locks.
 *     Needs the multibody library (Simbody, src/app/sim_mb.cpp).
 *
 * MOTION/id, JOINT=id, [TRANSLATION | ROTATION], [DISPLACEMENT | VELOCITY], FUNCTION=e
 *     Drives a REVOLUTE (ROTATION, the default for it), TRANSLATIONAL (TRANSLATION) or CYLINDRICAL (ROTATION or
 *     TRANSLATION, given; one MOTION of each may drive it) joint: I's angle about J's z (or its displacement along
 *     J's z) is the function of time (DISPLACEMENT, the default), or its rate is (VELOCITY).
 *
 * Function expressions (FUNCTION=, FX=, ...) follow src/app/expr.h. An expression runs to the end of the statement
 * (continuation lines included: a continuation's leading comma is Adams' continuation mark, not part of the
 * expression) or to a backslash. An expression that does not parse is refused with its line and column.
 */

/// Where an expression's text came from: the text joined from its lines, and where each piece starts.
typedef struct app_scenario_expr
{
    char* text;      ///< the expression (pieces of continued lines joined by '\n'), or NULL when absent
    int* pieces;     ///< 3 per piece: offset in text, line, 1-based column of its first character
    int piece_count; ///< pieces
    app_expr* code;  ///< the compiled expression (after the scenario is resolved), or NULL when absent
} app_scenario_expr;

/// MARKER
typedef struct app_scenario_marker
{
    int id;         ///< Adams id
    int line;       ///< line of the statement
    int part_id;    ///< PART=
    int part_index; ///< index into app_scenario.parts (after resolving)
    mc_pose local;  ///< placement in the part frame (QP, REULER)
    bool floating;  ///< FLOATING
} app_scenario_marker;

/// SFORCE
typedef struct app_scenario_sforce
{
    int id, line;               ///< Adams id, line
    int i, j;                   ///< marker indices (ids until resolved)
    bool rotation;              ///< ROTATION (else TRANSLATION)
    bool action_only;           ///< ACTIONONLY
    app_scenario_expr function; ///< FUNCTION=
} app_scenario_sforce;

/// VFORCE or VTORQUE
typedef struct app_scenario_vforce
{
    int id, line;                   ///< Adams id, line
    bool torque;                    ///< VTORQUE
    int i, jfloat, rm;              ///< marker indices (ids until resolved)
    app_scenario_expr component[3]; ///< FX FY FZ (TX TY TZ); text NULL: 0
} app_scenario_vforce;

/// SPRINGDAMPER
typedef struct app_scenario_springdamper
{
    int id, line;      ///< Adams id, line
    int i, j;          ///< marker indices (ids until resolved)
    bool rotation;     ///< ROTATION (else TRANSLATION)
    double k, c;       ///< K, C (KT, CT)
    double length;     ///< LENGTH (ANGLE)
    bool length_given; ///< LENGTH or ANGLE given (else: the distance at time 0, or 0)
    double preload;    ///< FORCE (TORQUE)
} app_scenario_springdamper;

/// SPLINE
typedef struct app_scenario_spline
{
    int id, line; ///< Adams id, line
    double* x;    ///< nx abscissae
    int nx;       ///< points per curve
    double* z;    ///< nz values of z (NULL for a curve)
    int nz;       ///< curves (1 for a curve)
    double* y;    ///< nz * nx ordinates, row by row
} app_scenario_spline;

/// VARIABLE
typedef struct app_scenario_variable
{
    int id, line;               ///< Adams id, line
    app_scenario_expr function; ///< FUNCTION=
} app_scenario_variable;

/// JOINT types (Adams names).
typedef enum app_joint_type
{
    APP_JOINT_REVOLUTE = 0,
    APP_JOINT_TRANSLATIONAL = 1,
    APP_JOINT_CYLINDRICAL = 2,
    APP_JOINT_SPHERICAL = 3,
    APP_JOINT_UNIVERSAL = 4,
    APP_JOINT_PLANAR = 5,
    APP_JOINT_FIXED = 6,
} app_joint_type;

/// JOINT
typedef struct app_scenario_joint
{
    int id, line;        ///< Adams id, line
    int i, j;            ///< marker indices (ids until resolved)
    app_joint_type type; ///< the joint
} app_scenario_joint;

/// MOTION
typedef struct app_scenario_motion
{
    int id, line;               ///< Adams id, line
    int joint;                  ///< joint index (id until resolved)
    bool rotation;              ///< ROTATION (else TRANSLATION)
    bool velocity;              ///< VELOCITY (else DISPLACEMENT)
    app_scenario_expr function; ///< FUNCTION= (of TIME)
} app_scenario_motion;

/// Every mechanism statement of a scenario (app_scenario.mech; NULL when there is none).
typedef struct app_scenario_mech
{
    app_scenario_marker* markers;       ///< MARKER statements in file order
    int marker_count;                   ///< entries
    app_scenario_sforce* sforces;       ///< SFORCE
    int sforce_count;                   ///< entries
    app_scenario_vforce* vforces;       ///< VFORCE and VTORQUE
    int vforce_count;                   ///< entries
    app_scenario_springdamper* springs; ///< SPRINGDAMPER
    int spring_count;                   ///< entries
    app_scenario_spline* splines;       ///< SPLINE
    int spline_count;                   ///< entries
    app_scenario_variable* variables;   ///< VARIABLE
    int variable_count;                 ///< entries
    app_scenario_joint* joints;         ///< JOINT
    int joint_count;                    ///< entries
    app_scenario_motion* motions;       ///< MOTION
    int motion_count;                   ///< entries
} app_scenario_mech;

/// @return the index of MARKER/id, or -1.
int app_scenario_find_marker(const app_scenario_mech* m, int id);

/// Where `offset` of an expression lies: *line and 1-based *column in the scenario file.
void app_scenario_expr_where(const app_scenario_expr* e, int offset, int* line, int* column);

// ---------------------------------------------------------------------------------------------------------------
// Hooks of the scenario reader (scenario.c calls these; scenario_mech.c implements them)
// ---------------------------------------------------------------------------------------------------------------

/// The reader's state, opaque here (scenario.c).
typedef struct scn_parser scn_parser;
/// One argument of the statement being read (scenario.c).
typedef struct scn_arg scn_arg;

/// True when KEY= of statement NAME (both upper case) is a function expression (read to a backslash or the end).
bool app_mech_is_expr_key(const char* stmt, const char* key);
/// Handle a mechanism statement; *handled is false when `name` is not one.
bool app_mech_statement(scn_parser* p, const char* name, bool* handled);
/// After every statement: resolve marker, part, spline and variable ids, compile the expressions.
bool app_mech_resolve(scn_parser* p);
/// Free (NULL is ignored).
void app_mech_destroy(app_scenario_mech* m);

// What scenario.c gives the statement families of other files (wrappers of its own helpers, same semantics).
app_scenario* app_scn_scenario(scn_parser* p);
const char* app_scn_name(const scn_parser* p);
int app_scn_line(const scn_parser* p);
bool app_scn_fail(scn_parser* p, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/// A failure at a line and column: `<file>:<line>:<column>: <what>`.
bool app_scn_fail_at(scn_parser* p, int line, int column, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
bool app_scn_statement_id(scn_parser* p, int* id);
scn_arg* app_scn_find_arg(scn_parser* p, const char* key);
int app_scn_arg_line(const scn_arg* a);
int app_scn_arg_count(const scn_arg* a);
const char* app_scn_arg_value(const scn_arg* a, int k);
/// The pieces of an expression argument (3 ints per piece, see app_scenario_expr), NULL for others.
const int* app_scn_arg_pieces(const scn_arg* a, int* count);
bool app_scn_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle, bool* found);
bool app_scn_int(scn_parser* p, const char* key, int* out, bool required);
bool app_scn_flag(scn_parser* p, const char* key, bool* out);
bool app_scn_pose(scn_parser* p, const char* pos_key, mc_pose* out);
bool app_scn_check_args(scn_parser* p);
