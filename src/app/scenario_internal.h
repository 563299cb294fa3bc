// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The scenario reader's private state and the functions its files share (scenario.c, scenario_lex.c,
// scenario_geometry.c, scenario_contact.c). Part of the command-line tool, not of the library.
#pragma once

#include "src/app/scenario.h"

#include <stdbool.h>
#include <stddef.h>

#define MAX_KEY 48

/// One argument of a statement: a flag (no values) or KEY=v1,v2,...
typedef struct scn_arg
{
    char key[MAX_KEY]; // upper case
    char** vals;
    int nval;
    int line;
    bool quoted; // first value was quoted
    bool used;
    int* pieces; // a function expression (scenario_mech.h): 3 per piece of text (offset, line, column)
    int npieces;
} scn_arg;

/// One statement: NAME/head..., args...
typedef struct scn_stmt
{
    char name[MAX_KEY]; // upper case
    int line;
    char** head; // bare values before the first argument (the id, or GRAVITY's components)
    int nhead;
    scn_arg* args;
    int nargs;
    scn_arg* current; // last KEY=... argument (bare numbers are appended to it)
    int expr_open;    // 1 + index of a function expression argument still open (continues on the next line)
} scn_stmt;

typedef struct scn_parser
{
    const char* name;
    app_scenario* scn;
    app_scenario_error* err;
    scn_stmt st;
    bool have_stmt;
    bool seen_gravity;
    bool seen_units;
    bool seen_simulate;
    int steps_given; // 1: STEPS, 2: DTOUT
    double dtout;
    const char* line_text; // the line being tokenized (columns of function expressions)
} scn_parser;

/// SIMULATE/STATIC (scenario_static.c): its arguments, at most once, before SIMULATE/DYNAMIC.
bool scn_statement_static(scn_parser* p);
/// After all statements: a STATIC alone becomes the only output; STATIC needs the BDF integrator.
bool scn_resolve_static(scn_parser* p);

/// Record the error "file:line: message" (printf format; no line when line is 0) and return false.
bool scn_fail(scn_parser* p, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

/// A NUL-terminated copy of s[0..n), NULL when out of memory.
char* scn_dup_range(const char* s, size_t n);

/// s[0..n) upper-cased into dst (cut to cap - 1 characters).
void scn_upper_copy(char* dst, size_t cap, const char* s, size_t n);

/// Free the statement's head and arguments and empty it.
void scn_stmt_clear(scn_stmt* st);

/// The scenario's one way to grow an array: room for one more element after `count` (realloc; scenario arrays are
/// short). Returns the new array, or NULL when memory runs out (the old one is still valid then).
void* scn_grow(void* arr, int count, size_t elem);

/// Tokenize the argument text of one physical line into the current statement.
bool scn_tokenize(scn_parser* p, const char* s, int line);

/// The argument KEY of the current statement (marked used), or NULL.
scn_arg* scn_find_arg(scn_parser* p, const char* key);

/// One real of argument `a` (text), in the scenario's units for angles when `angle`; false with the error.
bool scn_parse_real(scn_parser* p, const scn_arg* a, const char* text, bool angle, double* out);

/// Get `min..max` reals of KEY; *count receives how many. Returns false on a parse error; *found says whether the
/// key is present.
bool scn_get_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle, bool* found);

/// One real of KEY (see scn_get_reals).
bool scn_get_real(scn_parser* p, const char* key, double* out, bool* found);

/// One integer of argument `a` (text); false with the error.
bool scn_get_int_value(scn_parser* p, const scn_arg* a, const char* text, int* out);

/// Whether the flag KEY is present (into *out); false with the error when it has a value.
bool scn_get_flag(scn_parser* p, const char* key, bool* out);

/// The statement's id (its one head value, a positive integer); false with the error.
bool scn_get_statement_id(scn_parser* p, int* id);

/// False with the error when the statement has head values (it takes none).
bool scn_no_head(scn_parser* p);

/// A statement that may appear once: false (with the error) when *seen is already set; sets it. `what` names the
/// statement in the message, `note` (may be "") follows it.
bool scn_first_time(scn_parser* p, bool* seen, const char* what, const char* note);

/// Every argument must have been used by the statement's handler; duplicates are errors.
bool scn_check_args(scn_parser* p);

/// QG / QP and REULER / QUATERNION into a pose.
bool scn_get_pose(scn_parser* p, const char* pos_key, bool allow_quat, mc_pose* out);

/// The statements of scenario_geometry.c and scenario_contact.c, called from scenario.c's table: each reads the
/// current statement into the scenario, false with the error.
bool scn_statement_units(scn_parser* p);

bool scn_statement_accgrav(scn_parser* p);

bool scn_statement_gravity(scn_parser* p);

bool scn_statement_part(scn_parser* p);

bool scn_statement_graphics(scn_parser* p);

/// Free what a contact owns (its lists and law arguments), not the contact itself.
void scn_contact_free(app_scenario_contact* c);

/// SPLINE/id, X=..., Y=..., [METHOD=LINEAR|CUBIC|AKIMA] (scenario_laws.c).
bool scn_statement_spline(scn_parser* p);

bool scn_statement_contact(scn_parser* p);
