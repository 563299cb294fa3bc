// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Parser of scenario files (the Adams-dataset-like format documented in scenario.h) for `meshcontact simulate`.
#include "src/app/scenario.h"

#include "src/app/app_io.h"
#include "src/app/scenario_mech.h"
#include "src/app/scenario_laws.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static bool fail(scn_parser* p, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(scn_parser* p, int line, const char* fmt, ...)
{
    if (p->err == NULL)
    {
        return false;
    }
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->err->line = line;
    if (line > 0)
    {
        snprintf(p->err->message, sizeof p->err->message, "%s:%d: %s", p->name, line, what);
    }
    else
    {
        snprintf(p->err->message, sizeof p->err->message, "%s: %s", p->name, what);
    }
    return false;
}

static char* dup_range(const char* s, size_t n)
{
    char* r = malloc(n + 1);
    if (r != NULL)
    {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

static void upper_copy(char* dst, size_t cap, const char* s, size_t n)
{
    if (n >= cap)
    {
        n = cap - 1;
    }
    for (size_t i = 0; i < n; ++i)
    {
        dst[i] = (char)toupper((unsigned char)s[i]);
    }
    dst[n] = '\0';
}

static void stmt_clear(scn_stmt* st)
{
    for (int i = 0; i < st->nhead; ++i)
    {
        free(st->head[i]);
    }
    free(st->head);
    for (int i = 0; i < st->nargs; ++i)
    {
        for (int k = 0; k < st->args[i].nval; ++k)
        {
            free(st->args[i].vals[k]);
        }
        free(st->args[i].vals);
        free(st->args[i].pieces);
    }
    free(st->args);
    memset(st, 0, sizeof *st);
}

/// The scenario's one way to grow an array: room for one more element after `count` (realloc; scenario arrays are
/// short). Returns the new array, or NULL when memory runs out (the old one is still valid then).
static void* grow(void* arr, int count, size_t elem)
{
    return realloc(arr, (size_t)(count + 1) * elem);
}

static bool push_str(char*** arr, int* n, char* s)
{
    if (s == NULL)
    {
        return false;
    }
    char** r = grow(*arr, *n, sizeof **arr);
    if (r == NULL)
    {
        free(s);
        return false;
    }
    *arr = r;
    r[(*n)++] = s;
    return true;
}

/// Append an argument KEY (upper-cased word, no values yet) to the statement; NULL when memory runs out.
static scn_arg* push_arg(scn_stmt* st, const char* word, int line)
{
    scn_arg* a = grow(st->args, st->nargs, sizeof *a);
    if (a == NULL)
    {
        return NULL;
    }
    st->args = a;
    scn_arg* arg = &a[st->nargs++];
    memset(arg, 0, sizeof *arg);
    upper_copy(arg->key, sizeof arg->key, word, strlen(word));
    arg->line = line;
    return arg;
}

static bool is_sep(char c)
{
    return c == ',' || c == ' ' || c == '\t' || c == '\r';
}

static bool looks_numeric(const char* s)
{
    return isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+' || s[0] == '.') && s[1] != '\0');
}

/// Read one word (quoted or not) starting at *pp; returns a malloc'd copy, sets *quoted.
static char* read_word(scn_parser* p, int line, const char** pp, bool* quoted, bool* ok)
{
    const char* s = *pp;
    *quoted = false;
    *ok = true;
    if (*s == '"')
    {
        const char* e = strchr(s + 1, '"');
        if (e == NULL)
        {
            *ok = fail(p, line, "unterminated quoted text");
            return NULL;
        }
        *quoted = true;
        *pp = e + 1;
        return dup_range(s + 1, (size_t)(e - s - 1));
    }
    const char* e = s;
    while (*e != '\0' && !is_sep(*e) && *e != '=' && *e != '"')
    {
        ++e;
    }
    *pp = e;
    return dup_range(s, (size_t)(e - s));
}

/// Append the text of a function expression from s to a backslash or the end of the line to argument `ai` of the
/// statement (scenario_mech.h); the expression stays open without a backslash.
static bool take_expression(scn_parser* p, int ai, const char** ps, int line)
{
    scn_arg* a = &p->st.args[ai];
    const char* s = *ps;
    const char* e = strchr(s, '\\');
    size_t n = e != NULL ? (size_t)(e - s) : strlen(s);
    size_t old = a->nval > 0 ? strlen(a->vals[0]) : 0;
    char* t = realloc(a->nval > 0 ? a->vals[0] : NULL, old + n + 2);
    if (t == NULL)
    {
        return fail(p, line, "out of memory");
    }
    t[old] = '\0';
    if (a->nval > 0)
    {
        a->vals[0] = t;
    }
    else if (!push_str(&a->vals, &a->nval, t))
    {
        return fail(p, line, "out of memory");
    }
    int* pc = realloc(a->pieces, (size_t)(a->npieces + 1) * 3 * sizeof *pc);
    if (pc == NULL)
    {
        return fail(p, line, "out of memory");
    }
    a->pieces = pc;
    if (old > 0)
    {
        t[old++] = '\n';
    }
    memcpy(t + old, s, n);
    t[old + n] = '\0';
    pc[3 * a->npieces] = (int)old;
    pc[3 * a->npieces + 1] = line;
    pc[3 * a->npieces + 2] = p->line_text != NULL ? (int)(s - p->line_text) + 1 : 1;
    ++a->npieces;
    p->st.expr_open = e != NULL ? 0 : ai + 1;
    *ps = e != NULL ? e + 1 : s + n;
    return true;
}

/// Tokenize the argument text of one physical line into the current statement.
static bool tokenize(scn_parser* p, const char* s, int line)
{
    scn_stmt* st = &p->st;
    if (st->expr_open > 0)
    {
        // A function expression continues: the continuation's leading comma is Adams' mark, not expression text.
        s += *s == ',' ? 1 : 0;
        if (!take_expression(p, st->expr_open - 1, &s, line))
        {
            return false;
        }
    }
    for (;;)
    {
        while (is_sep(*s))
        {
            ++s;
        }
        if (*s == '\0')
        {
            return true;
        }
        if (*s == '=')
        {
            return fail(p, line, "'=' without a keyword before it");
        }
        bool quoted = false, ok = true;
        char* word = read_word(p, line, &s, &quoted, &ok);
        if (!ok)
        {
            return false;
        }
        if (word == NULL)
        {
            return fail(p, line, "out of memory");
        }
        const char* t = s;
        while (*t == ' ' || *t == '\t')
        {
            ++t;
        }
        if (*t == '=' && !quoted)
        {
            // KEY=value
            s = t + 1;
            while (*s == ' ' || *s == '\t')
            {
                ++s;
            }
            if (app_mech_is_expr_key(st->name, word))
            {
                scn_arg* ea = push_arg(st, word, line);
                free(word);
                if (ea == NULL)
                {
                    return fail(p, line, "out of memory");
                }
                st->current = NULL;
                if (!take_expression(p, st->nargs - 1, &s, line))
                {
                    return false;
                }
                continue;
            }
            if (*s == '\0' || *s == ',')
            {
                bool r = fail(p, line, "%s= has no value", word);
                free(word);
                return r;
            }
            bool vq = false;
            char* val = read_word(p, line, &s, &vq, &ok);
            if (!ok || val == NULL)
            {
                free(word);
                return ok ? fail(p, line, "out of memory") : false;
            }
            scn_arg* arg = push_arg(st, word, line);
            free(word);
            if (arg == NULL)
            {
                free(val);
                return fail(p, line, "out of memory");
            }
            arg->quoted = vq;
            if (!push_str(&arg->vals, &arg->nval, val))
            {
                return fail(p, line, "out of memory");
            }
            st->current = arg;
            continue;
        }
        if (quoted)
        {
            bool r = fail(p, line, "unexpected quoted text \"%s\"", word);
            free(word);
            return r;
        }
        if (looks_numeric(word))
        {
            if (st->current != NULL)
            {
                if (!push_str(&st->current->vals, &st->current->nval, word))
                {
                    return fail(p, line, "out of memory");
                }
            }
            else if (st->nargs == 0)
            {
                if (!push_str(&st->head, &st->nhead, word))
                {
                    return fail(p, line, "out of memory");
                }
            }
            else
            {
                bool r = fail(p, line, "value '%s' does not follow a KEY=", word);
                free(word);
                return r;
            }
            continue;
        }
        // flag
        scn_arg* arg = push_arg(st, word, line);
        free(word);
        if (arg == NULL)
        {
            return fail(p, line, "out of memory");
        }
        st->current = NULL;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Argument access
// ---------------------------------------------------------------------------------------------------------------

static scn_arg* find_arg(scn_parser* p, const char* key)
{
    for (int i = 0; i < p->st.nargs; ++i)
    {
        if (strcmp(p->st.args[i].key, key) == 0)
        {
            p->st.args[i].used = true;
            return &p->st.args[i];
        }
    }
    return NULL;
}

static void scn_warn(scn_parser* p, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

/// Keep a warning `<file>:<line>: <what>` in the scenario (app_scenario.warnings); out of memory drops it.
static void scn_warn(scn_parser* p, int line, const char* fmt, ...)
{
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    app_scenario* scn = p->scn;
    char** nw = realloc(scn->warnings, (size_t)(scn->warning_count + 1) * sizeof *nw);
    if (nw == NULL)
    {
        return;
    }
    scn->warnings = nw;
    size_t n = strlen(p->name) + strlen(what) + 32;
    char* w = malloc(n);
    if (w == NULL)
    {
        return;
    }
    snprintf(w, n, "%s:%d: %s", p->name, line, what);
    nw[scn->warning_count++] = w;
}

static bool parse_real(scn_parser* p, const scn_arg* a, const char* text, bool angle, double* out)
{
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    bool deg = false;
    if (angle && end != text && (*end == 'D' || *end == 'd'))
    {
        deg = true;
        ++end;
    }
    if (end != text && *end == '\0' && errno == ERANGE)
    {
        // The real cause (issue 41): a number the text spells correctly but a double cannot hold.
        return fail(p, a->line, "%s=%s is out of the range of double precision (%s)", a->key, text,
                    fabs(v) > 1.0 ? "larger than 1.8e308" : "nonzero but smaller than 2.2e-308");
    }
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    {
        return fail(p, a->line, "bad number '%s' for %s", text, a->key);
    }
    if (angle && !deg && fabs(v) > 2.0 * MC_PI)
    {
        scn_warn(p, a->line, "%s=%s is read as radians, more than a turn: degrees need a D suffix (%sD)", a->key, text,
                 text);
    }
    *out = deg ? v * (MC_PI / 180.0) : v;
    return true;
}

/// Get `min..max` reals of KEY; *count receives how many. Returns false on a parse error; *found says whether the
/// key is present.
static bool get_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle,
                      bool* found)
{
    scn_arg* a = find_arg(p, key);
    *found = a != NULL;
    if (a == NULL)
    {
        return true;
    }
    if (a->nval == 0)
    {
        return fail(p, a->line, "%s needs a value (%s=...)", key, key);
    }
    if (a->nval < min || a->nval > max)
    {
        if (min == max)
        {
            return fail(p, a->line, "%s takes %d value%s, got %d", key, min, min == 1 ? "" : "s", a->nval);
        }
        return fail(p, a->line, "%s takes %d to %d values, got %d", key, min, max, a->nval);
    }
    for (int i = 0; i < a->nval; ++i)
    {
        if (!parse_real(p, a, a->vals[i], angle, &out[i]))
        {
            return false;
        }
    }
    if (count != NULL)
    {
        *count = a->nval;
    }
    return true;
}

static bool get_real(scn_parser* p, const char* key, double* out, bool* found)
{
    return get_reals(p, key, out, 1, 1, NULL, false, found);
}

static bool get_int_value(scn_parser* p, const scn_arg* a, const char* text, int* out)
{
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v <= 0 || v > 1000000000L)
    {
        return fail(p, a->line, "bad id '%s' for %s (a positive integer)", text, a->key);
    }
    *out = (int)v;
    return true;
}

static bool get_flag(scn_parser* p, const char* key, bool* out)
{
    scn_arg* a = find_arg(p, key);
    *out = a != NULL;
    if (a != NULL && a->nval != 0)
    {
        return fail(p, a->line, "%s is a flag and takes no value", key);
    }
    return true;
}

static bool get_statement_id(scn_parser* p, int* id)
{
    if (p->st.nhead != 1)
    {
        return fail(p, p->st.line, "%s needs one id: %s/id, ...", p->st.name, p->st.name);
    }
    char* end = NULL;
    errno = 0;
    long v = strtol(p->st.head[0], &end, 10);
    if (end == p->st.head[0] || *end != '\0' || errno == ERANGE || v <= 0 || v > 1000000000L)
    {
        return fail(p, p->st.line, "bad %s id '%s' (a positive integer)", p->st.name, p->st.head[0]);
    }
    *id = (int)v;
    return true;
}

static bool no_head(scn_parser* p)
{
    if (p->st.nhead != 0)
    {
        return fail(p, p->st.line, "%s takes no id", p->st.name);
    }
    return true;
}

/// A statement that may appear once: false (with the error) when *seen is already set; sets it. `what` names the
/// statement in the message, `note` (may be "") follows it.
static bool first_time(scn_parser* p, bool* seen, const char* what, const char* note)
{
    if (*seen)
    {
        return fail(p, p->st.line, "%s given twice%s", what, note);
    }
    *seen = true;
    return true;
}

/// Every argument must have been used by the statement's handler; duplicates are errors.
static bool check_args(scn_parser* p)
{
    for (int i = 0; i < p->st.nargs; ++i)
    {
        for (int k = 0; k < i; ++k)
        {
            if (strcmp(p->st.args[i].key, p->st.args[k].key) == 0)
            {
                return fail(p, p->st.args[i].line, "%s given twice in %s", p->st.args[i].key, p->st.name);
            }
        }
    }
    for (int i = 0; i < p->st.nargs; ++i)
    {
        if (!p->st.args[i].used)
        {
            return fail(p, p->st.args[i].line, "unknown argument '%s' in %s", p->st.args[i].key, p->st.name);
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------------------------

mc_quat app_scenario_reuler_to_quat(double a, double b, double c)
{
    mc_quat qa = {cos(0.5 * a), 0.0, 0.0, sin(0.5 * a)};
    mc_quat qb = {cos(0.5 * b), sin(0.5 * b), 0.0, 0.0};
    mc_quat qc = {cos(0.5 * c), 0.0, 0.0, sin(0.5 * c)};
    return mc_quat_normalize(mc_quat_mul(mc_quat_mul(qa, qb), qc));
}

/// QG / QP and REULER / QUATERNION into a pose.
static bool get_pose(scn_parser* p, const char* pos_key, bool allow_quat, mc_pose* out)
{
    *out = mc_pose_identity();
    double v[4];
    bool found = false;
    if (!get_reals(p, pos_key, v, 3, 3, NULL, false, &found))
    {
        return false;
    }
    if (found)
    {
        out->p = mc_v3(v[0], v[1], v[2]);
    }
    bool have_euler = false;
    if (!get_reals(p, "REULER", v, 3, 3, NULL, true, &have_euler))
    {
        return false;
    }
    if (have_euler)
    {
        out->q = app_scenario_reuler_to_quat(v[0], v[1], v[2]);
    }
    if (allow_quat)
    {
        bool have_q = false;
        if (!get_reals(p, "QUATERNION", v, 4, 4, NULL, false, &have_q))
        {
            return false;
        }
        if (have_q)
        {
            if (have_euler)
            {
                return fail(p, p->st.line, "give either REULER or QUATERNION, not both");
            }
            double l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
            if (!(l2 > 0.0))
            {
                return fail(p, p->st.line, "QUATERNION is zero");
            }
            mc_quat q = {v[0], v[1], v[2], v[3]};
            out->q = mc_quat_normalize(q);
        }
    }
    return true;
}

static bool stmt_units(scn_parser* p)
{
    static const char* keys[4] = {"FORCE", "MASS", "LENGTH", "TIME"};
    char* dst[4] = {p->scn->force_unit, p->scn->mass_unit, p->scn->length_unit, p->scn->time_unit};
    if (!no_head(p) || !first_time(p, &p->seen_units, "UNITS", ""))
    {
        return false;
    }
    for (int k = 0; k < 4; ++k)
    {
        scn_arg* a = find_arg(p, keys[k]);
        if (a == NULL)
        {
            continue;
        }
        if (a->nval != 1 || a->quoted)
        {
            return fail(p, a->line, "%s takes one unit name", keys[k]);
        }
        const char* v = a->vals[0];
        size_t n = strlen(v);
        if (n == 0 || n >= 32)
        {
            return fail(p, a->line, "bad unit name '%s'", v);
        }
        for (size_t i = 0; i < n; ++i)
        {
            if (!isalpha((unsigned char)v[i]) && v[i] != '_')
            {
                return fail(p, a->line, "bad unit name '%s' (letters and '_' only)", v);
            }
        }
        upper_copy(dst[k], 32, v, n);
    }
    return check_args(p);
}

static bool stmt_accgrav(scn_parser* p)
{
    if (!no_head(p) || !first_time(p, &p->seen_gravity, "gravity", " (ACCGRAV / GRAVITY)"))
    {
        return false;
    }
    double g[3] = {0.0, 0.0, 0.0};
    static const char* keys[3] = {"IGRAV", "JGRAV", "KGRAV"};
    for (int k = 0; k < 3; ++k)
    {
        bool found = false;
        if (!get_real(p, keys[k], &g[k], &found))
        {
            return false;
        }
    }
    p->scn->gravity = mc_v3(g[0], g[1], g[2]);
    return check_args(p);
}

static bool stmt_gravity(scn_parser* p)
{
    if (!first_time(p, &p->seen_gravity, "gravity", " (ACCGRAV / GRAVITY)"))
    {
        return false;
    }
    if (p->st.nhead != 3)
    {
        return fail(p, p->st.line, "GRAVITY takes three values: GRAVITY/gx,gy,gz");
    }
    double g[3];
    scn_arg fake = {.key = "GRAVITY", .line = p->st.line};
    for (int k = 0; k < 3; ++k)
    {
        if (!parse_real(p, &fake, p->st.head[k], false, &g[k]))
        {
            return false;
        }
    }
    p->scn->gravity = mc_v3(g[0], g[1], g[2]);
    return check_args(p);
}

// An inertia tensor J (about the centre of mass) belongs to a mass distribution exactly when the second-moment
// matrix M = (trace J / 2) E - J (the integral of r r^T dm) is positive semidefinite, which is the triangle
// inequality of the principal moments. Checked by the principal minors of M + 1e-6 trace(J) E (the tolerance admits
// flat plates and thin rods given with a few significant digits).
static bool inertia_is_realizable(double xx, double yy, double zz, double xy, double xz, double yz)
{
    double tr = xx + yy + zz;
    double eps = 1e-6 * tr;
    double a = 0.5 * tr - xx + eps, b = 0.5 * tr - yy + eps, c = 0.5 * tr - zz + eps;
    double d = -xy, e = -xz, f = -yz; // off-diagonal terms of M
    double det = a * (b * c - f * f) - d * (d * c - f * e) + e * (d * f - b * e);
    double tol = 1e-12 * tr * tr * tr; // rounding of the determinant
    return a >= 0.0 && b >= 0.0 && c >= 0.0 && a * b - d * d >= -1e-12 * tr * tr && a * c - e * e >= -1e-12 * tr * tr &&
           b * c - f * f >= -1e-12 * tr * tr && det >= -tol;
}

static bool stmt_part(scn_parser* p)
{
    app_scenario_part part;
    memset(&part, 0, sizeof part);
    part.line = p->st.line;
    if (!get_statement_id(p, &part.id))
    {
        return false;
    }
    if (app_scenario_find_part(p->scn, part.id) >= 0)
    {
        return fail(p, p->st.line, "PART/%d defined twice", part.id);
    }
    if (!get_flag(p, "GROUND", &part.ground) || !get_pose(p, "QG", true, &part.pose))
    {
        return false;
    }
    bool have_mass = false, have_ip = false;
    if (!get_real(p, "MASS", &part.mass, &have_mass))
    {
        return false;
    }
    int nip = 0;
    if (!get_reals(p, "IP", part.ip, 3, 6, &nip, false, &have_ip))
    {
        return false;
    }
    bool have_density = false;
    if (!get_real(p, "DENSITY", &part.density, &have_density))
    {
        return false;
    }
    if (have_ip && nip != 3 && nip != 6)
    {
        return fail(p, p->st.line, "IP takes 3 or 6 values (Ixx,Iyy,Izz[,Ixy,Ixz,Iyz]), got %d", nip);
    }
    double vel[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    static const char* vkeys[6] = {"VX", "VY", "VZ", "WX", "WY", "WZ"};
    bool any_vel = false;
    for (int k = 0; k < 6; ++k)
    {
        bool found = false;
        if (!get_real(p, vkeys[k], &vel[k], &found))
        {
            return false;
        }
        any_vel = any_vel || found;
    }
    part.v = mc_v3(vel[0], vel[1], vel[2]);
    part.w_body = mc_v3(vel[3], vel[4], vel[5]);
    if (!check_args(p))
    {
        return false;
    }
    if (part.ground)
    {
        if (have_mass || have_ip || have_density || any_vel)
        {
            return fail(p, p->st.line, "a GROUND part takes no MASS, IP, DENSITY or velocities");
        }
    }
    else if (have_density)
    {
        if (have_mass || have_ip)
        {
            return fail(p, p->st.line, "give DENSITY or MASS and IP, not both");
        }
        if (!(part.density > 0.0))
        {
            return fail(p, p->st.line, "DENSITY must be > 0");
        }
    }
    else
    {
        if (!have_mass || !(part.mass > 0.0))
        {
            return have_mass ? fail(p, p->st.line, "MASS must be > 0")
                             : fail(p, p->st.line, "PART/%d needs MASS= and IP= (or DENSITY=, or GROUND)", part.id);
        }
        if (!have_ip)
        {
            return fail(p, p->st.line, "PART/%d needs IP=Ixx,Iyy,Izz (inertia about the centre of mass)", part.id);
        }
        // Its determinant (a product of three moments) must be a double, or the minors below and the simulator's
        // inverse fail for a reason they cannot name (issue 41: IP=1e300 was "singular", 1e-300 "not positive
        // definite").
        double ip_max = 0.0;
        for (int k = 0; k < 6; ++k)
        {
            ip_max = fmax(ip_max, fabs(part.ip[k]));
        }
        double ip_min = fmin(part.ip[0], fmin(part.ip[1], part.ip[2]));
        if (ip_max > 1e100 || (ip_min > 0.0 && ip_min < 1e-100))
        {
            return fail(p, p->st.line,
                        "IP=%g,%g,%g is out of the range the simulator handles (moments from 1e-100 to 1e100: the "
                        "inertia's determinant would %s); choose other units",
                        part.ip[0], part.ip[1], part.ip[2], ip_max > 1e100 ? "overflow" : "underflow");
        }
        // Positive definite: leading principal minors (Adams' products of inertia enter with a minus sign).
        double xx = part.ip[0], yy = part.ip[1], zz = part.ip[2];
        double xy = -part.ip[3], xz = -part.ip[4], yz = -part.ip[5];
        double m2 = xx * yy - xy * xy;
        double m3 = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
        if (!(xx > 0.0) || !(m2 > 0.0) || !(m3 > 0.0))
        {
            return fail(p, p->st.line, "IP is not positive definite");
        }
        if (!inertia_is_realizable(xx, yy, zz, xy, xz, yz))
        {
            return fail(p, p->st.line,
                        "IP=%g,%g,%g,%g,%g,%g is no rigid body's inertia: its principal moments break the triangle "
                        "inequality (each must be at most the sum of the other two, within 1e-6 of the trace)",
                        part.ip[0], part.ip[1], part.ip[2], part.ip[3], part.ip[4], part.ip[5]);
        }
    }
    app_scenario_part* arr = grow(p->scn->parts, p->scn->part_count, sizeof *arr);
    if (arr == NULL)
    {
        return fail(p, p->st.line, "out of memory");
    }
    p->scn->parts = arr;
    arr[p->scn->part_count++] = part;
    return true;
}

static bool join_path(const char* dir, const char* file, char** out)
{
    if (file[0] == '/' || dir == NULL || dir[0] == '\0')
    {
        *out = dup_range(file, strlen(file));
        return *out != NULL;
    }
    size_t n = strlen(dir) + strlen(file) + 2;
    *out = malloc(n);
    if (*out == NULL)
    {
        return false;
    }
    snprintf(*out, n, "%s/%s", dir, file);
    return true;
}

typedef struct shape_spec
{
    const char* flag;
    app_scenario_shape shape;
    const char* keys[3];
} shape_spec;

static const shape_spec s_shapes[] = {
    {"BOX", APP_SCENARIO_BOX, {"X", "Y", "Z"}},
    {"SPHERE", APP_SCENARIO_SPHERE, {"RADIUS", NULL, NULL}},
    {"ELLIPSOID", APP_SCENARIO_ELLIPSOID, {"XSCALE", "YSCALE", "ZSCALE"}},
    {"CYLINDER", APP_SCENARIO_CYLINDER, {"RADIUS", "LENGTH", NULL}},
    {"FRUSTUM", APP_SCENARIO_FRUSTUM, {"BOTTOM", "TOP", "LENGTH"}},
    {"TORUS", APP_SCENARIO_TORUS, {"MAJOR_RADIUS", "MINOR_RADIUS", NULL}},
    {"PLANE", APP_SCENARIO_PLANE, {NULL, NULL, NULL}},
};

// The shape of a GRAPHICS statement: exactly one of the shape flags (*spec), or FILE= (*file).
static bool graphics_shape(scn_parser* p, int id, const shape_spec** spec, scn_arg** file)
{
    int nshape = 0;
    for (size_t k = 0; k < sizeof s_shapes / sizeof s_shapes[0]; ++k)
    {
        bool on = false;
        if (!get_flag(p, s_shapes[k].flag, &on))
        {
            return false;
        }
        if (on)
        {
            ++nshape;
            *spec = &s_shapes[k];
        }
    }
    bool external = false;
    if (!get_flag(p, "EXTERNAL", &external))
    {
        return false;
    }
    *file = find_arg(p, "FILE");
    if (*file != NULL)
    {
        ++nshape;
    }
    else if (external)
    {
        return fail(p, p->st.line, "EXTERNAL needs FILE=path");
    }
    if (nshape != 1)
    {
        return fail(p, p->st.line,
                    nshape == 0 ? "GRAPHICS/%d needs a shape (BOX, SPHERE, ELLIPSOID, CYLINDER, FRUSTUM, TORUS) or "
                                  "FILE=path"
                                : "GRAPHICS/%d has more than one shape",
                    id);
    }
    return true;
}

// True when a FILE= path names a B-rep file (.step .stp .iges .igs .brep), which is faceted at import.
static bool is_brep_file(const scn_arg* fa)
{
    static const char* const ext[] = {".step", ".stp", ".iges", ".igs", ".brep"};
    const char* path = fa != NULL && fa->nval == 1 ? fa->vals[0] : "";
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; ++i)
    {
        size_t k = strlen(ext[i]);
        if (n >= k && strcasecmp(path + n - k, ext[i]) == 0)
        {
            return true;
        }
    }
    return false;
}

// CHORD_TOLERANCE and ANGLE_TOLERANCE (primitives and B-rep files: a mesh file is used as it is).
static bool graphics_faceting(scn_parser* p, bool is_file, app_scenario_graphics* g)
{
    const char* facet_keys[2] = {"CHORD_TOLERANCE", "ANGLE_TOLERANCE"};
    for (int k = 0; is_file && k < 2; ++k)
    {
        scn_arg* ta = find_arg(p, facet_keys[k]);
        if (ta != NULL)
        {
            return fail(p, ta->line, "%s applies to primitives and B-rep files, not to FILE= meshes", facet_keys[k]);
        }
    }
    bool found = false;
    double tol = 0.0;
    if (!get_real(p, "CHORD_TOLERANCE", &tol, &found))
    {
        return false;
    }
    if (found && !(tol > 0.0))
    {
        return fail(p, p->st.line, "CHORD_TOLERANCE must be > 0");
    }
    g->chord_tolerance = found ? tol : 0.0;
    if (!get_real(p, "MAX_TRIANGLES", &tol, &found))
    {
        return false;
    }
    if (found && !(tol >= 1.0 && tol <= 0x1p40 && tol == floor(tol)))
    {
        return fail(p, p->st.line, "MAX_TRIANGLES must be a whole number from 1 to 2^40");
    }
    g->max_triangles = found ? tol : 0.0;
    if (!get_reals(p, "ANGLE_TOLERANCE", &tol, 1, 1, NULL, true, &found))
    {
        return false;
    }
    if (found)
    {
        if (!(tol > 0.0) || !(tol < MC_PI / 2.0))
        {
            return fail(p, p->st.line, "ANGLE_TOLERANCE must be between 0 and 90 degrees");
        }
        g->angle_tolerance = tol;
    }
    return true;
}

bool app_repair_flag(const char* name, uint32_t* flag)
{
    static const struct
    {
        const char* name;
        uint32_t flag;
    } names[] = {
        {"ALL", MC_REPAIR_ALL},
        {"NONE", 0},
        {"DUPLICATES", MC_REPAIR_DUPLICATES},
        {"SHARED_FACES", MC_REPAIR_SHARED_FACES},
        {"LOOSE", MC_REPAIR_LOOSE_COMPONENTS},
        {"ORIENT", MC_REPAIR_ORIENT},
        {"HOLES", MC_REPAIR_HOLES},
        {"PINCHES", MC_REPAIR_PINCHES},
    };
    char up[32];
    size_t n = strlen(name);
    if (n >= sizeof up)
    {
        return false;
    }
    for (size_t i = 0; i <= n; ++i)
    {
        up[i] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    {
        if (strcmp(up, names[i].name) == 0)
        {
            *flag = names[i].flag;
            return true;
        }
    }
    return false;
}

void app_repair_summary(const mc_repair_report* r, char* buf, size_t size)
{
    const struct
    {
        uint32_t n;
        const char* what;
    } items[] = {
        {r->welded_vertices, "vertices welded"},
        {r->collapsed_triangles, "collapsed triangles removed"},
        {r->duplicate_triangles, "duplicate triangles removed"},
        {r->back_to_back_triangles, "back-to-back triangles removed"},
        {r->shared_face_triangles, "shared-face triangles removed"},
        {r->loose_components, "loose components removed"},
        {r->flipped_triangles, "triangles flipped"},
        {r->reversed_components, "components reversed"},
        {r->filled_holes, "holes filled"},
        {r->fill_triangles, "triangles added"},
        {r->split_edges, "non-manifold edges split"},
        {r->split_vertices, "pinched vertices split"},
        {r->unfilled_holes, "holes left open"},
        {r->unorientable_patches, "unorientable patches"},
    };
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof items / sizeof items[0] && n < size; ++i)
    {
        if (items[i].n > 0)
        {
            n += (size_t)snprintf(buf + n, size - n, "%s%u %s", n > 0 ? ", " : "", items[i].n, items[i].what);
        }
    }
    if (n == 0)
    {
        snprintf(buf, size, "nothing changed");
    }
}

bool app_parse_repairs(const char* text, uint32_t* flags, char bad[32])
{
    *flags = 0;
    int count = 0;
    for (const char* s = text; *s != '\0';)
    {
        s += strspn(s, ", \t");
        size_t n = strcspn(s, ", \t");
        if (n == 0)
        {
            break;
        }
        char item[32];
        snprintf(item, sizeof item, "%.*s", (int)(n < 31 ? n : 31), s);
        uint32_t f = 0;
        if (n >= sizeof item || !app_repair_flag(item, &f))
        {
            if (bad != NULL)
            {
                snprintf(bad, 32, "%s", item);
            }
            return false;
        }
        *flags |= f;
        ++count;
        s += n;
    }
    if (count == 0 && bad != NULL)
    {
        bad[0] = '\0';
    }
    return count > 0;
}

// REPAIR=name or REPAIR="name, name", WELD_TOLERANCE=, WELD_DISTANCE=, MAX_HOLE_EDGES= (files only).
static bool graphics_repair(scn_parser* p, app_scenario_graphics* g)
{
    g->repair = mc_default_repair_options();
    g->repair.flags = 0;
    scn_arg* ra = find_arg(p, "REPAIR");
    char bad[32];
    if (ra != NULL && (ra->nval != 1 || !app_parse_repairs(ra->vals[0], &g->repair.flags, bad)))
    {
        return fail(p, ra->line,
                    "REPAIR takes ALL, NONE or a quoted list of DUPLICATES, SHARED_FACES, LOOSE, ORIENT, HOLES, "
                    "PINCHES (REPAIR=\"ORIENT, HOLES\"); got '%s'",
                    ra->nval == 1 ? bad : "several values");
    }
    bool found = false;
    double holes = 0.0;
    if (!get_real(p, "WELD_TOLERANCE", &g->repair.weld_tolerance, &found) ||
        (found && !(g->repair.weld_tolerance >= 1e-12 && g->repair.weld_tolerance <= 0.1)))
    {
        return found ? fail(p, p->st.line, "WELD_TOLERANCE must be between 1e-12 and 0.1 (of the bbox diagonal)")
                     : false;
    }
    if (!get_real(p, "WELD_DISTANCE", &g->repair.weld_distance, &found) ||
        (found && !(g->repair.weld_distance > 0.0)) || (found && g->repair.weld_tolerance > 0.0))
    {
        return found ? fail(p, p->st.line, "WELD_DISTANCE must be > 0, and not given with WELD_TOLERANCE") : false;
    }
    if (!get_real(p, "MAX_HOLE_EDGES", &holes, &found) ||
        (found && !(holes >= 3.0 && holes <= 256.0 && holes == floor(holes))))
    {
        return found ? fail(p, p->st.line, "MAX_HOLE_EDGES must be a whole number from 3 to 256") : false;
    }
    g->repair.max_hole_edges = found ? (uint32_t)holes : g->repair.max_hole_edges;
    return true;
}

// FILE=path [, SCALE=s] [, REPAIR=...].
static bool graphics_file(scn_parser* p, const scn_arg* fa, app_scenario_graphics* g)
{
    if (fa->nval != 1)
    {
        return fail(p, fa->line, "FILE takes one path (quote it when it contains ',' or blanks)");
    }
    g->shape = APP_SCENARIO_FILE;
    bool found = false;
    if (!get_real(p, "SCALE", &g->scale, &found))
    {
        return false;
    }
    if (found && !(g->scale > 0.0))
    {
        return fail(p, p->st.line, "SCALE must be > 0");
    }
    if (!graphics_repair(p, g) || !check_args(p))
    {
        return false;
    }
    if (!join_path(p->scn->base_dir, fa->vals[0], &g->path))
    {
        return fail(p, p->st.line, "out of memory");
    }
    return true;
}

// A primitive's size keys (spec->keys).
static bool graphics_primitive(scn_parser* p, const shape_spec* spec, app_scenario_graphics* g)
{
    g->shape = spec->shape;
    for (int k = 0; k < 3; ++k)
    {
        if (spec->keys[k] == NULL)
        {
            continue;
        }
        bool found = false;
        if (!get_real(p, spec->keys[k], &g->size[k], &found))
        {
            return false;
        }
        if (!found)
        {
            return fail(p, p->st.line, "%s needs %s=", spec->flag, spec->keys[k]);
        }
        bool may_be_zero = spec->shape == APP_SCENARIO_FRUSTUM && k < 2;
        if (!(g->size[k] > 0.0) && !(may_be_zero && g->size[k] == 0.0))
        {
            return fail(p, p->st.line, "%s must be > 0", spec->keys[k]);
        }
    }
    if (spec->shape == APP_SCENARIO_FRUSTUM && !(g->size[0] > 0.0 || g->size[1] > 0.0))
    {
        return fail(p, p->st.line, "FRUSTUM needs TOP or BOTTOM > 0");
    }
    if (spec->shape == APP_SCENARIO_TORUS && !(g->size[1] < g->size[0]))
    {
        return fail(p, p->st.line, "TORUS needs MINOR_RADIUS < MAJOR_RADIUS");
    }
    if (g->analytic && spec->shape != APP_SCENARIO_SPHERE && spec->shape != APP_SCENARIO_CYLINDER &&
        spec->shape != APP_SCENARIO_PLANE)
    {
        return fail(p, p->st.line, "ANALYTIC is for SPHERE, CYLINDER or PLANE, not %s", spec->flag);
    }
    if (spec->shape == APP_SCENARIO_PLANE && g->flip)
    {
        return fail(p, p->st.line, "a PLANE cannot be flipped (turn it with REULER)");
    }
    g->analytic = g->analytic || spec->shape == APP_SCENARIO_PLANE;
    return check_args(p);
}

static bool stmt_graphics(scn_parser* p)
{
    app_scenario_graphics g;
    memset(&g, 0, sizeof g);
    g.repair = mc_default_repair_options();
    g.repair.flags = 0;
    g.line = p->st.line;
    g.scale = 1.0;
    g.angle_tolerance = 15.0 * MC_PI / 180.0;
    g.part_index = -1;
    if (!get_statement_id(p, &g.id))
    {
        return false;
    }
    if (app_scenario_find_graphics(p->scn, g.id) >= 0)
    {
        return fail(p, p->st.line, "GRAPHICS/%d defined twice", g.id);
    }
    scn_arg* pa = find_arg(p, "PART");
    if (pa == NULL)
    {
        return fail(p, p->st.line, "GRAPHICS/%d needs PART=id", g.id);
    }
    if (pa->nval != 1)
    {
        return fail(p, pa->line, "PART takes one id");
    }
    if (!get_int_value(p, pa, pa->vals[0], &g.part_id))
    {
        return false;
    }
    if (!get_pose(p, "QP", false, &g.local) || !get_flag(p, "IFLIP_GEOMETRY", &g.flip) ||
        !get_flag(p, "ACCEPT_SELF_INTERSECTIONS", &g.accept_self_intersections) ||
        !get_flag(p, "ANALYTIC", &g.analytic))
    {
        return false;
    }
    const shape_spec* spec = NULL;
    scn_arg* fa = NULL;
    if (!graphics_shape(p, g.id, &spec, &fa) || !graphics_faceting(p, fa != NULL && !is_brep_file(fa), &g) ||
        !(fa != NULL ? graphics_file(p, fa, &g) : graphics_primitive(p, spec, &g)))
    {
        return false;
    }
    if (fa != NULL && g.analytic)
    {
        free(g.path);
        return fail(p, p->st.line, "ANALYTIC is for SPHERE, CYLINDER or PLANE, not a FILE");
    }
    app_scenario_graphics* arr = grow(p->scn->graphics, p->scn->graphics_count, sizeof *arr);
    if (arr == NULL)
    {
        free(g.path);
        return fail(p, p->st.line, "out of memory");
    }
    p->scn->graphics = arr;
    arr[p->scn->graphics_count++] = g;
    return true;
}

/// Read a list of GRAPHICS ids (resolved later, after all statements are read: ids are stored as-is).
static bool get_id_list(scn_parser* p, const char* key, int** out, int* count, bool required)
{
    scn_arg* a = find_arg(p, key);
    *out = NULL;
    *count = 0;
    if (a == NULL)
    {
        return required ? fail(p, p->st.line, "CONTACT needs %s=id[,id...]", key) : true;
    }
    if (a->nval == 0)
    {
        return fail(p, a->line, "%s needs at least one id", key);
    }
    *out = malloc((size_t)a->nval * sizeof **out);
    if (*out == NULL)
    {
        return fail(p, a->line, "out of memory");
    }
    for (int i = 0; i < a->nval; ++i)
    {
        if (!get_int_value(p, a, a->vals[i], &(*out)[i]))
        {
            free(*out);
            *out = NULL;
            return false;
        }
    }
    *count = a->nval;
    return true;
}

static void contact_free(app_scenario_contact* c)
{
    app_laws_free_contact(c->laws);
    free(c->igeom);
    free(c->jgeom);
    free(c->exclude);
    free(c->iflip);
    free(c->jflip);
}

/// The single value of a keyword argument in capitals into v (empty when it has none or several).
static void arg_word(const scn_arg* a, char* v, size_t cap)
{
    v[0] = '\0';
    if (a->nval == 1)
    {
        upper_copy(v, cap, a->vals[0], strlen(a->vals[0]));
    }
}

/// STICTION=ON|OFF and MAX_STICTION_DEFORMATION=d (> 0, a length) of a CONTACT; stiction needs friction.
static bool contact_stiction(scn_parser* p, app_scenario_contact* c)
{
    scn_arg* sa = find_arg(p, "STICTION");
    c->stiction = false;
    if (sa != NULL)
    {
        char v[8];
        arg_word(sa, v, sizeof v);
        if (strcmp(v, "ON") != 0 && strcmp(v, "OFF") != 0)
        {
            return fail(p, sa->line, "STICTION is ON or OFF");
        }
        c->stiction = strcmp(v, "ON") == 0;
    }
    bool found = false;
    c->max_stiction_deformation = 0.0;
    if (!get_real(p, "MAX_STICTION_DEFORMATION", &c->max_stiction_deformation, &found))
    {
        return false;
    }
    if (found && !(c->max_stiction_deformation > 0.0 && isfinite(c->max_stiction_deformation)))
    {
        return fail(p, p->st.line, "MAX_STICTION_DEFORMATION=%g must be finite and > 0 (a length)",
                    c->max_stiction_deformation);
    }
    if (c->stiction && c->friction == APP_SCENARIO_FRICTION_OFF)
    {
        return fail(p, sa->line, "STICTION=ON needs COULOMB_FRICTION=ON or DYNAMICS_ONLY");
    }
    return true;
}

/// The statement's arguments as views for scenario_laws.c, which marks the ones it takes (free the array).
static app_law_arg* law_args(scn_parser* p)
{
    app_law_arg* v = calloc((size_t)(p->st.nargs > 0 ? p->st.nargs : 1), sizeof *v);
    for (int i = 0; v != NULL && i < p->st.nargs; ++i)
    {
        scn_arg* a = &p->st.args[i];
        v[i] = (app_law_arg){a->key, a->vals, a->nval, a->line, &a->used};
    }
    return v;
}

/// RECURDYN, DYMORE, FRICTION_SPLINE and the user routines of a CONTACT (scenario_laws.c).
static bool contact_laws(scn_parser* p, app_scenario_contact* c)
{
    app_law_arg* v = law_args(p);
    app_law_error e = {0, ""};
    bool ok = v != NULL
                  ? app_laws_parse_contact(v, p->st.nargs, p->st.line, p->scn->base_dir, &p->scn->laws, &c->laws, &e)
                  : fail(p, p->st.line, "out of memory");
    free(v);
    return ok || (v == NULL ? false : fail(p, e.line > 0 ? e.line : p->st.line, "%s", e.message));
}

/// SPLINE/id, X=..., Y=..., [METHOD=LINEAR|CUBIC|AKIMA] (scenario_laws.c).
static bool stmt_spline(scn_parser* p)
{
    int id = 0;
    if (!get_statement_id(p, &id))
    {
        return false;
    }
    bool handled = false;
    if (find_arg(p, "Z") != NULL)
    {
        return app_mech_statement(p, "SPLINE", &handled); // a surface, for AKISPL and CUBSPL (scenario_mech.c)
    }
    app_law_arg* v = law_args(p);
    app_law_error e = {0, ""};
    bool ok = v != NULL ? app_laws_parse_spline(id, v, p->st.nargs, p->st.line, &p->scn->laws, &e)
                        : fail(p, p->st.line, "out of memory");
    free(v);
    // The curve also serves AKISPL and CUBSPL in function expressions (scenario_mech.c keeps its points).
    return (ok || (v != NULL && fail(p, e.line > 0 ? e.line : p->st.line, "%s", e.message))) &&
           app_mech_statement(p, "SPLINE", &handled);
}

static bool stmt_contact_params(scn_parser* p, app_scenario_contact* c)
{
    bool impact = false, poisson = false, found = false;
    if (!get_flag(p, "IMPACT", &impact) || !get_flag(p, "POISSON", &poisson) || !contact_laws(p, c))
    {
        return false;
    }
    bool other_law = c->laws != NULL && ((app_contact_laws*)c->laws)->normal != APP_LAW_NORMAL_NONE;
    if (other_law && (impact || poisson))
    {
        return fail(p, p->st.line, "give one normal law: IMPACT, POISSON, RECURDYN, DYMORE or NORMAL_FUNCTION");
    }
    if (other_law) // the simulator's scales and reports read IMPACT's parameters: their equivalents
    {
        c->model = APP_SCENARIO_IMPACT;
        app_laws_equivalent_impact(c->laws, &c->stiffness, &c->exponent, &c->damping, &c->dmax);
    }
    if (impact == poisson && !other_law)
    {
        return fail(p, p->st.line, impact ? "give IMPACT or POISSON, not both" : "CONTACT/%d needs IMPACT or POISSON",
                    c->id);
    }
    c->model = impact || other_law ? APP_SCENARIO_IMPACT : APP_SCENARIO_POISSON;
    static const char* impact_keys[] = {"STIFFNESS", "EXPONENT", "DAMPING", "DMAX"};
    static const char* poisson_keys[] = {"PENALTY", "RESTITUTION_COEFFICIENT", "NORMAL_TRANSITION_VELOCITY"};
    const char** other = impact ? poisson_keys : impact_keys;
    int nother = other_law ? 0 : (impact ? 3 : 4);
    for (int k = 0; k < nother; ++k)
    {
        scn_arg* a = find_arg(p, other[k]);
        if (a != NULL)
        {
            return fail(p, a->line, "%s does not belong to %s", other[k], impact ? "IMPACT" : "POISSON");
        }
    }
    if (impact)
    {
        c->exponent = 1.5;
        if (!get_real(p, "STIFFNESS", &c->stiffness, &found))
        {
            return false;
        }
        if (!found)
        {
            return fail(p, p->st.line, "IMPACT needs STIFFNESS=");
        }
        if (!get_real(p, "EXPONENT", &c->exponent, &found) || !get_real(p, "DAMPING", &c->damping, &found))
        {
            return false;
        }
        bool have_dmax = false;
        if (!get_real(p, "DMAX", &c->dmax, &have_dmax))
        {
            return false;
        }
        if (c->damping != 0.0 && !have_dmax)
        {
            return fail(p, p->st.line, "DAMPING needs DMAX= (the depth of full damping)");
        }
    }
    else if (!other_law)
    {
        if (!get_real(p, "PENALTY", &c->penalty, &found))
        {
            return false;
        }
        if (!found)
        {
            return fail(p, p->st.line, "POISSON needs PENALTY=");
        }
        if (!get_real(p, "RESTITUTION_COEFFICIENT", &c->restitution, &found))
        {
            return false;
        }
        if (!found)
        {
            return fail(p, p->st.line, "POISSON needs RESTITUTION_COEFFICIENT=");
        }
        if (!get_real(p, "NORMAL_TRANSITION_VELOCITY", &c->normal_transition_velocity, &found))
        {
            return false;
        }
    }
    scn_arg* fa = find_arg(p, "COULOMB_FRICTION");
    c->friction = APP_SCENARIO_FRICTION_OFF;
    if (fa != NULL)
    {
        char v[32];
        arg_word(fa, v, sizeof v);
        if (strcmp(v, "ON") == 0)
        {
            c->friction = APP_SCENARIO_FRICTION_ON;
        }
        else if (strcmp(v, "DYNAMICS_ONLY") == 0)
        {
            c->friction = APP_SCENARIO_FRICTION_DYNAMICS_ONLY;
        }
        else if (strcmp(v, "OFF") != 0)
        {
            return fail(p, fa->line, "COULOMB_FRICTION is ON, OFF or DYNAMICS_ONLY");
        }
    }
    c->stiction_velocity = 0.1;
    c->friction_velocity = 1.0;
    bool have_ms = false, have_md = false;
    if (!get_real(p, "MU_STATIC", &c->mu_static, &have_ms) || !get_real(p, "MU_DYNAMIC", &c->mu_dynamic, &have_md) ||
        !get_real(p, "STICTION_TRANSITION_VELOCITY", &c->stiction_velocity, &found) ||
        !get_real(p, "FRICTION_TRANSITION_VELOCITY", &c->friction_velocity, &found))
    {
        return false;
    }
    bool friction_law = c->laws != NULL && (c->laws->friction_spline != 0 || c->laws->friction_npar > 0);
    if (c->friction != APP_SCENARIO_FRICTION_OFF && (!have_ms || !have_md) && !friction_law)
    {
        return fail(p, p->st.line, "COULOMB_FRICTION needs MU_STATIC= and MU_DYNAMIC=");
    }
    scn_arg* da = find_arg(p, "DEPTH");
    c->depth = MC_DEPTH_DEFAULT;
    if (da != NULL)
    {
        static const char* const names[4] = {"ADAMS", "VOLUME_AREA", "EXTENT", "SMOOTH"};
        static const mc_depth_method methods[4] = {MC_DEPTH_ADAMS, MC_DEPTH_VOLUME_AREA, MC_DEPTH_EXTENT,
                                                   MC_DEPTH_SMOOTH};
        char v[32] = "";
        if (da->nval == 1)
        {
            upper_copy(v, sizeof v, da->vals[0], strlen(da->vals[0]));
        }
        for (int k = 0; k < 4; ++k)
        {
            c->depth = strcmp(v, names[k]) == 0 ? methods[k] : c->depth;
        }
        if (c->depth == MC_DEPTH_DEFAULT)
        {
            return fail(p, da->line, "DEPTH is ADAMS, SMOOTH, VOLUME_AREA or EXTENT");
        }
    }
    return contact_stiction(p, c);
}

/// The lists of a CONTACT: IGEOM and JGEOM, or GROUP (then jgeom is a copy of igeom).
static bool contact_lists(scn_parser* p, app_scenario_contact* c)
{
    if (find_arg(p, "GROUP") == NULL)
    {
        return get_id_list(p, "IGEOM", &c->igeom, &c->igeom_count, true) &&
               get_id_list(p, "JGEOM", &c->jgeom, &c->jgeom_count, true);
    }
    if (find_arg(p, "IGEOM") != NULL || find_arg(p, "JGEOM") != NULL)
    {
        return fail(p, p->st.line, "CONTACT takes GROUP= or IGEOM= and JGEOM=, not both");
    }
    if (!get_id_list(p, "GROUP", &c->igeom, &c->igeom_count, true))
    {
        return false;
    }
    c->group = true;
    if (c->igeom_count < 2)
    {
        return fail(p, p->st.line, "GROUP needs at least two geometries");
    }
    c->jgeom = malloc((size_t)c->igeom_count * sizeof *c->jgeom);
    if (c->jgeom == NULL)
    {
        return fail(p, p->st.line, "out of memory");
    }
    memcpy(c->jgeom, c->igeom, (size_t)c->igeom_count * sizeof *c->jgeom);
    c->jgeom_count = c->igeom_count;
    return true;
}

static bool id_in(const int* list, int n, int id)
{
    for (int k = 0; k < n; ++k)
    {
        if (list[k] == id)
        {
            return true;
        }
    }
    return false;
}

/// No id twice in one list; no CONTACT-level flip lists with GROUP; EXCLUDE pairs that the lists make.
static bool check_contact_lists(scn_parser* p, app_scenario_contact* c, int nflips)
{
    for (int side = 0; side < (c->group ? 1 : 2); ++side)
    {
        const int* list = side == 0 ? c->igeom : c->jgeom;
        int n = side == 0 ? c->igeom_count : c->jgeom_count;
        for (int k = 1; k < n; ++k)
        {
            if (id_in(list, k, list[k]))
            {
                return fail(p, p->st.line, "GRAPHICS/%d is listed twice in %s", list[k],
                            c->group ? "GROUP" : (side == 0 ? "IGEOM" : "JGEOM"));
            }
        }
    }
    if (c->group && nflips > 0)
    {
        return fail(p, p->st.line,
                    "IFLIP_GEOMETRY and JFLIP_GEOMETRY do not go with GROUP: flip the geometry on its "
                    "GRAPHICS statement");
    }
    if (c->exclude_count % 2 != 0)
    {
        return fail(p, p->st.line, "EXCLUDE takes pairs of GRAPHICS ids (an even number of ids, got %d)",
                    c->exclude_count);
    }
    for (int k = 0; k < c->exclude_count; k += 2)
    {
        int a = c->exclude[k], b = c->exclude[k + 1];
        bool ab = id_in(c->igeom, c->igeom_count, a) && id_in(c->jgeom, c->jgeom_count, b);
        bool ba = id_in(c->igeom, c->igeom_count, b) && id_in(c->jgeom, c->jgeom_count, a);
        if (a == b || (!ab && !ba))
        {
            return fail(p, p->st.line, "EXCLUDE pair GRAPHICS/%d, GRAPHICS/%d is not a pair of this CONTACT's lists", a,
                        b);
        }
    }
    c->exclude_count /= 2;
    return true;
}

static bool stmt_contact(scn_parser* p)
{
    app_scenario_contact c;
    memset(&c, 0, sizeof c);
    c.line = p->st.line;
    if (!get_statement_id(p, &c.id))
    {
        return false;
    }
    for (int i = 0; i < p->scn->contact_count; ++i)
    {
        if (p->scn->contacts[i].id == c.id)
        {
            return fail(p, p->st.line, "CONTACT/%d defined twice", c.id);
        }
    }
    int *iflip_ids = NULL, *jflip_ids = NULL;
    int niflip = 0, njflip = 0;
    bool ok = contact_lists(p, &c) && get_id_list(p, "IFLIP_GEOMETRY", &iflip_ids, &niflip, false) &&
              get_id_list(p, "JFLIP_GEOMETRY", &jflip_ids, &njflip, false) &&
              get_id_list(p, "EXCLUDE", &c.exclude, &c.exclude_count, false) && stmt_contact_params(p, &c) &&
              check_args(p) && check_contact_lists(p, &c, niflip + njflip);
    if (ok)
    {
        c.iflip = calloc((size_t)c.igeom_count, sizeof *c.iflip);
        c.jflip = calloc((size_t)c.jgeom_count, sizeof *c.jflip);
        ok = c.iflip != NULL && c.jflip != NULL ? true : fail(p, c.line, "out of memory");
    }
    // Flip lists must name geometries of the matching list (ids still unresolved here).
    for (int k = 0; ok && k < niflip + njflip; ++k)
    {
        bool is_i = k < niflip;
        int id = is_i ? iflip_ids[k] : jflip_ids[k - niflip];
        const int* list = is_i ? c.igeom : c.jgeom;
        int n = is_i ? c.igeom_count : c.jgeom_count;
        bool* flags = is_i ? c.iflip : c.jflip;
        bool hit = false;
        for (int m = 0; m < n; ++m)
        {
            if (list[m] == id)
            {
                flags[m] = true;
                hit = true;
            }
        }
        if (!hit)
        {
            ok = fail(p, c.line, "%s lists GRAPHICS/%d, which is not in %s", is_i ? "IFLIP_GEOMETRY" : "JFLIP_GEOMETRY",
                      id, is_i ? "IGEOM" : "JGEOM");
        }
    }
    free(iflip_ids);
    free(jflip_ids);
    if (ok)
    {
        app_scenario_contact* arr = grow(p->scn->contacts, p->scn->contact_count, sizeof *arr);
        if (arr == NULL)
        {
            ok = fail(p, c.line, "out of memory");
        }
        else
        {
            p->scn->contacts = arr;
            arr[p->scn->contact_count++] = c;
            return true;
        }
    }
    contact_free(&c);
    return false;
}

static bool stmt_integrator(scn_parser* p)
{
    if (!no_head(p))
    {
        return false;
    }
    if (p->scn->integrator_line != 0)
    {
        return fail(p, p->st.line, "INTEGRATOR given twice");
    }
    p->scn->integrator_line = p->st.line;
    bool rk4 = false, bdf = false, gstiff = false, found = false;
    if (!get_flag(p, "RK4", &rk4) || !get_flag(p, "BDF", &bdf) || !get_flag(p, "GSTIFF", &gstiff) ||
        !get_real(p, "HMAX", &p->scn->hmax, &found))
    {
        return false;
    }
    if (found && !(p->scn->hmax > 0.0 && isfinite(p->scn->hmax)))
    {
        return fail(p, p->st.line, "HMAX must be > 0");
    }
    if ((int)rk4 + (int)bdf + (int)gstiff > 1)
    {
        return fail(p, p->st.line, "INTEGRATOR takes one of RK4, BDF and GSTIFF");
    }
    p->scn->integrator = rk4 ? APP_SCENARIO_RK4 : APP_SCENARIO_BDF;
    // ERROR, HINIT and HMIN: BDF only (RK4 has a fixed step); each > 0 and finite.
    static const char* const keys[3] = {"ERROR", "HINIT", "HMIN"};
    double* dest[3] = {&p->scn->error, &p->scn->hinit, &p->scn->hmin};
    for (int k = 0; k < 3; ++k)
    {
        if (!get_real(p, keys[k], dest[k], &found))
        {
            return false;
        }
        if (found && !(*dest[k] > 0.0 && isfinite(*dest[k])))
        {
            return fail(p, p->st.line, "%s must be > 0 and finite", keys[k]);
        }
        if (found && rk4)
        {
            return fail(p, p->st.line, "%s is for the BDF integrator (RK4 has a fixed step, HMAX)", keys[k]);
        }
    }
    return check_args(p);
}

static bool stmt_simulate(scn_parser* p)
{
    if (!no_head(p) || !first_time(p, &p->seen_simulate, "SIMULATE", ""))
    {
        return false;
    }
    p->scn->simulate_line = p->st.line;
    bool dynamic = false, found = false;
    if (!get_flag(p, "DYNAMIC", &dynamic) || !get_real(p, "END", &p->scn->end_time, &found))
    {
        return false;
    }
    if (!found)
    {
        return fail(p, p->st.line, "SIMULATE needs END=");
    }
    if (!(p->scn->end_time > 0.0))
    {
        return fail(p, p->st.line, "END must be > 0");
    }
    double steps = 500.0, dtout = 0.0;
    bool have_steps = false, have_dtout = false;
    if (!get_real(p, "STEPS", &steps, &have_steps) || !get_real(p, "DTOUT", &dtout, &have_dtout))
    {
        return false;
    }
    if (have_steps && have_dtout)
    {
        return fail(p, p->st.line, "give STEPS or DTOUT, not both");
    }
    if (have_dtout)
    {
        if (!(dtout > 0.0))
        {
            return fail(p, p->st.line, "DTOUT must be > 0");
        }
        steps = ceil(p->scn->end_time / dtout - 1e-9);
    }
    if (!(steps >= 1.0) || steps != floor(steps) || steps > 10000000.0)
    {
        return fail(p, p->st.line, "STEPS must be a whole number from 1 to 1e7");
    }
    p->scn->steps = (int)steps;
    return check_args(p);
}

typedef struct scn_statement
{
    const char* name;
    bool (*fcn)(scn_parser* p);
} scn_statement;

static const scn_statement s_statements[] = {
    {"UNITS", stmt_units},           {"ACCGRAV", stmt_accgrav},
    {"GRAVITY", stmt_gravity},       {"PART", stmt_part},
    {"GRAPHICS", stmt_graphics},     {"CONTACT", stmt_contact},
    {"INTEGRATOR", stmt_integrator}, {"SIMULATE", stmt_simulate},
    {"SPLINE", stmt_spline},
};

static bool process_statement(scn_parser* p)
{
    const char* n = p->st.name;
    for (size_t i = 0; i < sizeof s_statements / sizeof s_statements[0]; ++i)
    {
        if (strcmp(n, s_statements[i].name) == 0)
        {
            return s_statements[i].fcn(p);
        }
    }
    bool handled = false;
    bool ok = app_mech_statement(p, n, &handled); // MARKER, SFORCE, ... (scenario_mech.c)
    if (handled)
    {
        return ok;
    }
    return fail(p, p->st.line, "unknown statement '%s'", n);
}

/// Start a new statement from the text of its first line: NAME[/rest].
static bool begin_statement(scn_parser* p, const char* s, int line, bool* is_end)
{
    *is_end = false;
    const char* e = s;
    while (isalnum((unsigned char)*e) || *e == '_')
    {
        ++e;
    }
    if (e == s)
    {
        return fail(p, line, "expected a statement name (PART, GRAPHICS, CONTACT, ...), got '%.20s'", s);
    }
    stmt_clear(&p->st);
    upper_copy(p->st.name, sizeof p->st.name, s, (size_t)(e - s));
    p->st.line = line;
    p->have_stmt = true;
    const char* t = e;
    while (*t == ' ' || *t == '\t')
    {
        ++t;
    }
    if (strcmp(p->st.name, "END") == 0 && *t == '\0')
    {
        *is_end = true;
        return true;
    }
    if (*t == '/')
    {
        return tokenize(p, t + 1, line);
    }
    if (*t != '\0' && *t != ',')
    {
        return fail(p, line, "expected '/' after %s", p->st.name);
    }
    return tokenize(p, t, line);
}

static bool finish_statement(scn_parser* p)
{
    if (!p->have_stmt)
    {
        return true;
    }
    p->have_stmt = false;
    bool ok = process_statement(p);
    stmt_clear(&p->st);
    return ok;
}

/// After all statements: resolve references and check the whole scenario.
static bool resolve(scn_parser* p)
{
    app_scenario* s = p->scn;
    if (!p->seen_simulate)
    {
        return fail(p, 0, "no SIMULATE statement (SIMULATE/DYNAMIC, END=t, STEPS=n)");
    }
    for (int i = 0; i < s->graphics_count; ++i)
    {
        app_scenario_graphics* g = &s->graphics[i];
        g->part_index = app_scenario_find_part(s, g->part_id);
        if (g->part_index < 0)
        {
            return fail(p, g->line, "GRAPHICS/%d: PART/%d is not defined", g->id, g->part_id);
        }
    }
    for (int c = 0; c < s->contact_count; ++c)
    {
        app_scenario_contact* ct = &s->contacts[c];
        for (int side = 0; side < 2; ++side)
        {
            int* list = side == 0 ? ct->igeom : ct->jgeom;
            bool* flips = side == 0 ? ct->iflip : ct->jflip;
            int n = side == 0 ? ct->igeom_count : ct->jgeom_count;
            for (int k = 0; k < n; ++k)
            {
                int gi = app_scenario_find_graphics(s, list[k]);
                if (gi < 0)
                {
                    return fail(p, ct->line, "CONTACT/%d: GRAPHICS/%d is not defined", ct->id, list[k]);
                }
                list[k] = gi;
                flips[k] = flips[k] || s->graphics[gi].flip;
            }
        }
        for (int k = 0; k < 2 * ct->exclude_count; ++k)
        {
            ct->exclude[k] = app_scenario_find_graphics(s, ct->exclude[k]); // in a list, so defined (checked above)
        }
        // Geometries of one part never touch each other; say so rather than silently skipping.
        bool any_pair = false;
        for (int a = 0; a < ct->igeom_count; ++a)
        {
            for (int b = 0; b < ct->jgeom_count; ++b)
            {
                const app_scenario_graphics* gi = &s->graphics[ct->igeom[a]];
                const app_scenario_graphics* gj = &s->graphics[ct->jgeom[b]];
                bool fixed = s->parts[gi->part_index].ground && s->parts[gj->part_index].ground;
                any_pair = any_pair || (gi->part_index != gj->part_index && !fixed);
            }
        }
        if (!any_pair)
        {
            return fail(p, ct->line, "CONTACT/%d pairs no geometries of two different parts (one of them moving)",
                        ct->id);
        }
        app_law_error le = {0, ""};
        if (!app_laws_resolve(ct->laws, s->laws, ct->id, &le))
        {
            return fail(p, le.line, "%s", le.message);
        }
    }
    return app_mech_resolve(p);
}

static char* dir_of(const char* path)
{
    const char* slash = strrchr(path, '/');
    if (slash == NULL)
    {
        return dup_range("", 0);
    }
    if (slash == path)
    {
        return dup_range("/", 1);
    }
    return dup_range(path, (size_t)(slash - path));
}

bool app_scenario_parse_string(const char* text, const char* name, const char* base_dir, app_scenario** out,
                               app_scenario_error* err)
{
    app_scenario_error local_err;
    if (err == NULL)
    {
        err = &local_err;
    }
    memset(err, 0, sizeof *err);
    scn_parser p;
    memset(&p, 0, sizeof p);
    p.name = name != NULL ? name : "<scenario>";
    p.err = err;
    p.scn = calloc(1, sizeof *p.scn);
    if (p.scn == NULL || text == NULL || out == NULL)
    {
        free(p.scn);
        return fail(&p, 0, text == NULL || out == NULL ? "invalid argument" : "out of memory");
    }
    p.scn->path = dup_range(p.name, strlen(p.name));
    p.scn->base_dir = dup_range(base_dir != NULL ? base_dir : "", base_dir != NULL ? strlen(base_dir) : 0);
    bool ok = p.scn->path != NULL && p.scn->base_dir != NULL ? true : fail(&p, 0, "out of memory");
    bool continued = false; // previous line ended with '&'
    int line = 0;
    const char* s = text;
    char* buf = NULL;
    size_t cap = 0;
    while (ok && *s != '\0')
    {
        ++line;
        const char* eol = strchr(s, '\n');
        size_t n = eol != NULL ? (size_t)(eol - s) : strlen(s);
        if (n + 1 > cap)
        {
            cap = 2 * (n + 1);
            char* nb = realloc(buf, cap);
            if (nb == NULL)
            {
                ok = fail(&p, line, "out of memory");
                break;
            }
            buf = nb;
        }
        memcpy(buf, s, n);
        buf[n] = '\0';
        s = eol != NULL ? eol + 1 : s + n;
        // Strip the comment (outside quotes) and blanks.
        bool inq = false;
        for (char* c = buf; *c != '\0'; ++c)
        {
            if (*c == '"')
            {
                inq = !inq;
            }
            else if (*c == '!' && !inq)
            {
                *c = '\0';
                break;
            }
        }
        size_t len = strlen(buf);
        while (len > 0 && isspace((unsigned char)buf[len - 1]))
        {
            buf[--len] = '\0';
        }
        char* start = buf;
        while (*start != '\0' && isspace((unsigned char)*start))
        {
            ++start;
        }
        if (*start == '\0')
        {
            if (continued)
            {
                ok = fail(&p, line, "the previous line ends with '&' but this line is empty");
            }
            continue;
        }
        bool amp = len > 0 && buf[len - 1] == '&';
        if (amp)
        {
            buf[--len] = '\0';
        }
        p.line_text = buf;
        if (continued || *start == ',')
        {
            if (!p.have_stmt)
            {
                ok = fail(&p, line, "continuation line without a statement before it");
                break;
            }
            ok = tokenize(&p, start, line);
        }
        else
        {
            bool is_end = false;
            ok = finish_statement(&p) && begin_statement(&p, start, line, &is_end);
            if (ok && is_end)
            {
                p.have_stmt = false;
                stmt_clear(&p.st);
                if (amp)
                {
                    ok = fail(&p, line, "END cannot be continued");
                }
                break;
            }
        }
        continued = amp;
    }
    if (ok && continued)
    {
        ok = fail(&p, line, "the last line ends with '&'");
    }
    ok = ok && finish_statement(&p) && resolve(&p);
    stmt_clear(&p.st);
    free(buf);
    if (!ok)
    {
        app_scenario_destroy(p.scn);
        return false;
    }
    *out = p.scn;
    return true;
}

bool app_scenario_parse_file(const char* path, app_scenario** out, app_scenario_error* err)
{
    // A regular text file only (app_io.h): no device, FIFO or directory, at most APP_MAX_TEXT_BYTES, no NUL or control
    // bytes (refused with their line), a UTF-8 byte order mark skipped.
    char* text = NULL;
    size_t n = 0;
    int64_t bad_line = 0;
    char why[sizeof err->message];
    if (!app_read_text(path, APP_MAX_TEXT_BYTES, &text, &n, &bad_line, why, sizeof why))
    {
        if (err != NULL)
        {
            err->line = (int)bad_line;
            snprintf(err->message, sizeof err->message, "%s", why);
        }
        return false;
    }
    bool ok;
    char* dir = dir_of(path);
    ok = dir != NULL && app_scenario_parse_string(text, path, dir, out, err);
    free(dir);
    free(text);
    return ok;
}

void app_scenario_destroy(app_scenario* scn)
{
    if (scn == NULL)
    {
        return;
    }
    for (int i = 0; i < scn->graphics_count; ++i)
    {
        free(scn->graphics[i].path);
    }
    for (int i = 0; i < scn->contact_count; ++i)
    {
        contact_free(&scn->contacts[i]);
    }
    for (int i = 0; i < scn->warning_count; ++i)
    {
        free(scn->warnings[i]);
    }
    free(scn->warnings);
    app_mech_destroy(scn->mech);
    app_laws_free_scenario(scn->laws);
    free(scn->graphics);
    free(scn->contacts);
    free(scn->parts);
    free(scn->path);
    free(scn->base_dir);
    free(scn);
}

int app_scenario_find_part(const app_scenario* scn, int id)
{
    for (int i = 0; i < scn->part_count; ++i)
    {
        if (scn->parts[i].id == id)
        {
            return i;
        }
    }
    return -1;
}

int app_scenario_find_graphics(const app_scenario* scn, int id)
{
    for (int i = 0; i < scn->graphics_count; ++i)
    {
        if (scn->graphics[i].id == id)
        {
            return i;
        }
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------------------------
// What the statement families of other files use (scenario_mech.h): the helpers above, unchanged
// ---------------------------------------------------------------------------------------------------------------

app_scenario* app_scn_scenario(scn_parser* p)
{
    return p->scn;
}

const char* app_scn_name(const scn_parser* p)
{
    return p->name;
}

int app_scn_line(const scn_parser* p)
{
    return p->st.line;
}

bool app_scn_fail(scn_parser* p, int line, const char* fmt, ...)
{
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(p, line, "%s", what);
}

bool app_scn_statement_id(scn_parser* p, int* id)
{
    return get_statement_id(p, id);
}

scn_arg* app_scn_find_arg(scn_parser* p, const char* key)
{
    return find_arg(p, key);
}

int app_scn_arg_line(const scn_arg* a)
{
    return a->line;
}

int app_scn_arg_count(const scn_arg* a)
{
    return a->nval;
}

const char* app_scn_arg_value(const scn_arg* a, int k)
{
    return a->vals[k];
}

const int* app_scn_arg_pieces(const scn_arg* a, int* count)
{
    *count = a->npieces;
    return a->pieces;
}

bool app_scn_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle,
                   bool* found)
{
    return get_reals(p, key, out, min, max, count, angle, found);
}

bool app_scn_int(scn_parser* p, const char* key, int* out, bool required)
{
    scn_arg* a = find_arg(p, key);
    if (a == NULL)
    {
        return required ? fail(p, p->st.line, "%s needs %s=id", p->st.name, key) : true;
    }
    if (a->nval != 1)
    {
        return fail(p, a->line, "%s takes one id, got %d values", key, a->nval);
    }
    return get_int_value(p, a, a->vals[0], out);
}

bool app_scn_flag(scn_parser* p, const char* key, bool* out)
{
    return get_flag(p, key, out);
}

bool app_scn_pose(scn_parser* p, const char* pos_key, mc_pose* out)
{
    return get_pose(p, pos_key, true, out);
}

bool app_scn_check_args(scn_parser* p)
{
    return check_args(p);
}

bool app_scn_fail_at(scn_parser* p, int line, int column, const char* fmt, ...)
{
    if (p->err == NULL)
    {
        return false;
    }
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->err->line = line;
    snprintf(p->err->message, sizeof p->err->message, "%s:%d:%d: %s", p->name, line, column, what);
    return false;
}
