// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The scenario reader's lexer (part of scenario.c's module, state in scenario_internal.h): statements split into
// arguments and values, function expressions kept with their columns, the typed access to arguments, and the
// helpers the statement families of other files use (scenario_mech.h).
#include "src/app/app_io.h"
#include "src/app/scenario_internal.h"
#include "src/app/scenario_laws.h"
#include "src/app/scenario_mech.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// The error "file:line:column: what" (column >= 0), else "file:line: what" (line > 0) or "file: what"; false.
static bool scn_vfail(scn_parser* p, int line, int column, const char* fmt, va_list ap)
{
    if (p->err == NULL)
    {
        return false;
    }
    char what[480];
    vsnprintf(what, sizeof what, fmt, ap);
    p->err->line = line;
    if (column >= 0)
    {
        snprintf(p->err->message, sizeof p->err->message, "%s:%d:%d: %s", p->name, line, column, what);
    }
    else if (line > 0)
    {
        snprintf(p->err->message, sizeof p->err->message, "%s:%d: %s", p->name, line, what);
    }
    else
    {
        snprintf(p->err->message, sizeof p->err->message, "%s: %s", p->name, what);
    }
    return false;
}

bool scn_fail(scn_parser* p, int line, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scn_vfail(p, line, -1, fmt, ap);
    va_end(ap);
    return false;
}

char* scn_dup_range(const char* s, size_t n)
{
    char* r = malloc(n + 1);
    if (r != NULL)
    {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

void scn_upper_copy(char* dst, size_t cap, const char* s, size_t n)
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

void scn_stmt_clear(scn_stmt* st)
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
void* scn_grow(void* arr, int count, size_t elem)
{
    return realloc(arr, (size_t)(count + 1) * elem);
}

static bool push_str(char*** arr, int* n, char* s)
{
    if (s == NULL)
    {
        return false;
    }
    char** r = scn_grow(*arr, *n, sizeof **arr);
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
    scn_arg* a = scn_grow(st->args, st->nargs, sizeof *a);
    if (a == NULL)
    {
        return NULL;
    }
    st->args = a;
    scn_arg* arg = &a[st->nargs++];
    memset(arg, 0, sizeof *arg);
    scn_upper_copy(arg->key, sizeof arg->key, word, strlen(word));
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
            *ok = scn_fail(p, line, "unterminated quoted text");
            return NULL;
        }
        *quoted = true;
        *pp = e + 1;
        return scn_dup_range(s + 1, (size_t)(e - s - 1));
    }
    const char* e = s;
    while (*e != '\0' && !is_sep(*e) && *e != '=' && *e != '"')
    {
        ++e;
    }
    *pp = e;
    return scn_dup_range(s, (size_t)(e - s));
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
        return scn_fail(p, line, "out of memory");
    }
    t[old] = '\0';
    if (a->nval > 0)
    {
        a->vals[0] = t;
    }
    else if (!push_str(&a->vals, &a->nval, t))
    {
        return scn_fail(p, line, "out of memory");
    }
    int* pc = realloc(a->pieces, (size_t)(a->npieces + 1) * 3 * sizeof *pc);
    if (pc == NULL)
    {
        return scn_fail(p, line, "out of memory");
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
bool scn_tokenize(scn_parser* p, const char* s, int line)
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
            return scn_fail(p, line, "'=' without a keyword before it");
        }
        bool quoted = false, ok = true;
        char* word = read_word(p, line, &s, &quoted, &ok);
        if (!ok)
        {
            return false;
        }
        if (word == NULL)
        {
            return scn_fail(p, line, "out of memory");
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
                    return scn_fail(p, line, "out of memory");
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
                bool r = scn_fail(p, line, "%s= has no value", word);
                free(word);
                return r;
            }
            bool vq = false;
            char* val = read_word(p, line, &s, &vq, &ok);
            if (!ok || val == NULL)
            {
                free(word);
                return ok ? scn_fail(p, line, "out of memory") : false;
            }
            scn_arg* arg = push_arg(st, word, line);
            free(word);
            if (arg == NULL)
            {
                free(val);
                return scn_fail(p, line, "out of memory");
            }
            arg->quoted = vq;
            if (!push_str(&arg->vals, &arg->nval, val))
            {
                return scn_fail(p, line, "out of memory");
            }
            st->current = arg;
            continue;
        }
        if (quoted)
        {
            bool r = scn_fail(p, line, "unexpected quoted text \"%s\"", word);
            free(word);
            return r;
        }
        if (looks_numeric(word))
        {
            if (st->current != NULL)
            {
                if (!push_str(&st->current->vals, &st->current->nval, word))
                {
                    return scn_fail(p, line, "out of memory");
                }
            }
            else if (st->nargs == 0)
            {
                if (!push_str(&st->head, &st->nhead, word))
                {
                    return scn_fail(p, line, "out of memory");
                }
            }
            else
            {
                bool r = scn_fail(p, line, "value '%s' does not follow a KEY=", word);
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
            return scn_fail(p, line, "out of memory");
        }
        st->current = NULL;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Argument access
// ---------------------------------------------------------------------------------------------------------------

scn_arg* scn_find_arg(scn_parser* p, const char* key)
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

bool scn_parse_real(scn_parser* p, const scn_arg* a, const char* text, bool angle, double* out)
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
        return scn_fail(p, a->line, "%s=%s is out of the range of double precision (%s)", a->key, text,
                        fabs(v) > 1.0 ? "larger than 1.8e308" : "nonzero but smaller than 2.2e-308");
    }
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    {
        return scn_fail(p, a->line, "bad number '%s' for %s", text, a->key);
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
bool scn_get_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle, bool* found)
{
    scn_arg* a = scn_find_arg(p, key);
    *found = a != NULL;
    if (a == NULL)
    {
        return true;
    }
    if (a->nval == 0)
    {
        return scn_fail(p, a->line, "%s needs a value (%s=...)", key, key);
    }
    if (a->nval < min || a->nval > max)
    {
        if (min == max)
        {
            return scn_fail(p, a->line, "%s takes %d value%s, got %d", key, min, min == 1 ? "" : "s", a->nval);
        }
        return scn_fail(p, a->line, "%s takes %d to %d values, got %d", key, min, max, a->nval);
    }
    for (int i = 0; i < a->nval; ++i)
    {
        if (!scn_parse_real(p, a, a->vals[i], angle, &out[i]))
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

bool scn_get_real(scn_parser* p, const char* key, double* out, bool* found)
{
    return scn_get_reals(p, key, out, 1, 1, NULL, false, found);
}

bool scn_get_int_value(scn_parser* p, const scn_arg* a, const char* text, int* out)
{
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v <= 0 || v > 1000000000L)
    {
        return scn_fail(p, a->line, "bad id '%s' for %s (a positive integer)", text, a->key);
    }
    *out = (int)v;
    return true;
}

bool scn_get_flag(scn_parser* p, const char* key, bool* out)
{
    scn_arg* a = scn_find_arg(p, key);
    *out = a != NULL;
    if (a != NULL && a->nval != 0)
    {
        return scn_fail(p, a->line, "%s is a flag and takes no value", key);
    }
    return true;
}

bool scn_get_statement_id(scn_parser* p, int* id)
{
    if (p->st.nhead != 1)
    {
        return scn_fail(p, p->st.line, "%s needs one id: %s/id, ...", p->st.name, p->st.name);
    }
    char* end = NULL;
    errno = 0;
    long v = strtol(p->st.head[0], &end, 10);
    if (end == p->st.head[0] || *end != '\0' || errno == ERANGE || v <= 0 || v > 1000000000L)
    {
        return scn_fail(p, p->st.line, "bad %s id '%s' (a positive integer)", p->st.name, p->st.head[0]);
    }
    *id = (int)v;
    return true;
}

bool scn_no_head(scn_parser* p)
{
    if (p->st.nhead != 0)
    {
        return scn_fail(p, p->st.line, "%s takes no id", p->st.name);
    }
    return true;
}

/// A statement that may appear once: false (with the error) when *seen is already set; sets it. `what` names the
/// statement in the message, `note` (may be "") follows it.
bool scn_first_time(scn_parser* p, bool* seen, const char* what, const char* note)
{
    if (*seen)
    {
        return scn_fail(p, p->st.line, "%s given twice%s", what, note);
    }
    *seen = true;
    return true;
}

/// Every argument must have been used by the statement's handler; duplicates are errors.
bool scn_check_args(scn_parser* p)
{
    for (int i = 0; i < p->st.nargs; ++i)
    {
        for (int k = 0; k < i; ++k)
        {
            if (strcmp(p->st.args[i].key, p->st.args[k].key) == 0)
            {
                return scn_fail(p, p->st.args[i].line, "%s given twice in %s", p->st.args[i].key, p->st.name);
            }
        }
    }
    for (int i = 0; i < p->st.nargs; ++i)
    {
        if (!p->st.args[i].used)
        {
            return scn_fail(p, p->st.args[i].line, "unknown argument '%s' in %s", p->st.args[i].key, p->st.name);
        }
    }
    return true;
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
    return scn_fail(p, line, "%s", what);
}

bool app_scn_statement_id(scn_parser* p, int* id)
{
    return scn_get_statement_id(p, id);
}

scn_arg* app_scn_find_arg(scn_parser* p, const char* key)
{
    return scn_find_arg(p, key);
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

bool app_scn_reals(scn_parser* p, const char* key, double* out, int min, int max, int* count, bool angle, bool* found)
{
    return scn_get_reals(p, key, out, min, max, count, angle, found);
}

bool app_scn_int(scn_parser* p, const char* key, int* out, bool required)
{
    scn_arg* a = scn_find_arg(p, key);
    if (a == NULL)
    {
        return required ? scn_fail(p, p->st.line, "%s needs %s=id", p->st.name, key) : true;
    }
    if (a->nval != 1)
    {
        return scn_fail(p, a->line, "%s takes one id, got %d values", key, a->nval);
    }
    return scn_get_int_value(p, a, a->vals[0], out);
}

bool app_scn_flag(scn_parser* p, const char* key, bool* out)
{
    return scn_get_flag(p, key, out);
}

bool app_scn_pose(scn_parser* p, const char* pos_key, mc_pose* out)
{
    return scn_get_pose(p, pos_key, true, out);
}

bool app_scn_check_args(scn_parser* p)
{
    return scn_check_args(p);
}

bool app_scn_fail_at(scn_parser* p, int line, int column, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scn_vfail(p, line, column, fmt, ap);
    va_end(ap);
    return false;
}
