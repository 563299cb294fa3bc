// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Adams function expressions (FUNCTION=, FX=, ...): a compiler to a compact postfix program and its evaluator.
// Part of the command-line tool, not of the library.
// Based on: MSC Adams/Solver function reference (the expression language, STEP, STEP5, HAVSIN, IMPACT, BISTOP, the
// displacement and velocity measures DX .. WZ, VARVAL, AKISPL, CUBSPL).
#pragma once

#include <stdbool.h>

/*
 * The language (Adams' subset; names are case-insensitive):
 *   numbers           1, 2.5, .5, 1E-3, 1D-3 (Fortran's D exponent too)
 *   operators         + - * / ** (power, right-associative, binds tighter than a sign: -2**2 = -4), parentheses
 *   constants         TIME (the simulation time), PI, DTOR (pi / 180), RTOD (180 / pi)
 *   1 argument        SIN COS TAN ASIN ACOS ATAN SQRT ABS EXP LOG (natural)
 *   2 arguments       ATAN2(y, x), MIN(a, b), MAX(a, b), SIGN(a, b) = |a| with the sign of b (b >= 0: +|a|),
 *                     MOD(a, b) = a - INT(a / b) b (Fortran's: the sign of a)
 *   5 arguments       STEP, STEP5, HAVSIN (x, x0, h0, x1, h1): h0 up to x0, h1 from x1, between them a cubic,
 *                     a quintic, a haversine; x0 < x1
 *   contact laws      IMPACT(x, x', x1, k, e, cmax, d), BISTOP(x, x', x1, x2, k, e, cmax, d)
 * (include/meshcontact/law.h) marker measures   DX DY DZ (i[, j[, k]]), DM (i[, j]), VX VY VZ (i[, j[, k[, l]]]), VR
 * (i[, j[, l]]), WX WY WZ (i[, j[, k]]): marker i relative to marker j (default, or 0: the ground origin and frame),
 * resolved in marker k's axes (default, or 0: ground), velocities differentiated in marker l's frame (default, or 0:
 * ground). Marker arguments are integer literals (marker ids). VARVAL(id)        the value of VARIABLE/id AKISPL(x, z,
 * id[, order]), CUBSPL(x, z, id[, order])   SPLINE/id through Akima's or the cubic spline, order 0..2 (a curve: z is
 * ignored; a surface: y(x, z), order 0 only) What a marker, a variable or a spline is belongs to the caller:
 * app_expr_names resolves ids to indices when compiling, app_expr_env computes their values when evaluating.
 */

/// Marker measures (app_expr_env.measure's kind).
typedef enum app_expr_measure
{
    APP_EXPR_DX = 0,
    APP_EXPR_DY = 1,
    APP_EXPR_DZ = 2,
    APP_EXPR_DM = 3,
    APP_EXPR_VX = 4,
    APP_EXPR_VY = 5,
    APP_EXPR_VZ = 6,
    APP_EXPR_VR = 7,
    APP_EXPR_WX = 8,
    APP_EXPR_WY = 9,
    APP_EXPR_WZ = 10,
} app_expr_measure;

/// Resolution of ids while compiling. Each callback returns the index of the entity with Adams id `id` (>= 0), or
/// -1 when it does not exist (the compiler then reports the id and where it is). A NULL callback means no such
/// entities exist.
typedef struct app_expr_names
{
    void* user;                          ///< passed to the callbacks
    int (*marker)(void* user, int id);   ///< MARKER/id (id > 0; 0 stands for the ground frame and is not asked)
    int (*variable)(void* user, int id); ///< VARIABLE/id
    int (*spline)(void* user, int id);   ///< SPLINE/id
} app_expr_names;

/// What an evaluation needs besides the time. Callbacks get the indices the compiler resolved.
typedef struct app_expr_env
{
    double time; ///< TIME
    void* user;  ///< passed to the callbacks
    /// A marker measure (NULL: none is defined, the evaluation fails); m[0..3] = i, j, k (frame of the components), l
    /// (frame of the time derivative); -1: ground (absent or 0). DM uses i, j; VR uses i, j and l (in m[3]); W* use i,
    /// j, k.
    double (*measure)(void* user, app_expr_measure kind, const int m[4]);
    /// VARVAL of variable `index`; false (with *why set to a static text) when it cannot be evaluated
    bool (*variable)(void* user, int index, double* out, const char** why);
    /// Spline `index` (akima: AKISPL, else CUBSPL) at (x, z), derivative of `order` in x; false with *why on failure
    bool (*spline)(void* user, int index, bool akima, double x, double z, int order, double* out, const char** why);
} app_expr_env;

/// A compiled expression (opaque, immutable: evaluations may run concurrently on different environments).
typedef struct app_expr app_expr;

/// A compile error: where (0-based offset into the text) and what.
typedef struct app_expr_error
{
    int offset;        ///< byte offset of the offending token in the text
    char message[200]; ///< what is wrong, without the position
} app_expr_error;

/// A run-time (domain) error: which operation, where in the text, and why.
typedef struct app_expr_fault
{
    int offset;       ///< byte offset of the failing function or operator in the text
    const char* what; ///< static text, e.g. "division by zero", "SQRT of a negative number"
    double value;     ///< the offending argument (for the message)
} app_expr_fault;

/// Compile `text` (NUL-terminated; newlines are blanks). @return NULL on error (then *err is filled; err may be NULL)
/// or when memory runs out (err->offset -1).
app_expr* app_expr_compile(const char* text, const app_expr_names* names, app_expr_error* err);

/// Evaluate. @return true and *out, or false and *fault (may be NULL) on a domain error or a failed callback.
bool app_expr_eval(const app_expr* e, const app_expr_env* env, double* out, app_expr_fault* fault);

/// True when the value depends on numbers and constants only (no TIME, marker, variable or spline).
bool app_expr_is_constant(const app_expr* e);

/// Free. NULL is ignored.
void app_expr_destroy(app_expr* e);
