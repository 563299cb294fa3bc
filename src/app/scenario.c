// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Parser of scenario files (the Adams-dataset-like format documented in scenario.h) for `meshcontact simulate`:
// INTEGRATOR and SIMULATE, the statement table, the checks of the whole scenario, parsing a string or a file. The
// reader's other files: scenario_lex.c (lines, statements, arguments and their values), scenario_geometry.c (UNITS,
// gravity, PART, GRAPHICS and repairs), scenario_contact.c (CONTACT, SPLINE), scenario_mech.c and scenario_laws.c.
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

static bool stmt_integrator(scn_parser* p)
{
    if (!scn_no_head(p))
    {
        return false;
    }
    if (p->scn->integrator_line != 0)
    {
        return scn_fail(p, p->st.line, "INTEGRATOR given twice");
    }
    p->scn->integrator_line = p->st.line;
    bool rk4 = false, bdf = false, gstiff = false, found = false;
    if (!scn_get_flag(p, "RK4", &rk4) || !scn_get_flag(p, "BDF", &bdf) || !scn_get_flag(p, "GSTIFF", &gstiff) ||
        !scn_get_real(p, "HMAX", &p->scn->hmax, &found))
    {
        return false;
    }
    if (found && !(p->scn->hmax > 0.0 && isfinite(p->scn->hmax)))
    {
        return scn_fail(p, p->st.line, "HMAX must be > 0");
    }
    if ((int)rk4 + (int)bdf + (int)gstiff > 1)
    {
        return scn_fail(p, p->st.line, "INTEGRATOR takes one of RK4, BDF and GSTIFF");
    }
    p->scn->integrator = rk4 ? APP_SCENARIO_RK4 : APP_SCENARIO_BDF;
    // ERROR, HINIT and HMIN: BDF only (RK4 has a fixed step); each > 0 and finite.
    static const char* const keys[3] = {"ERROR", "HINIT", "HMIN"};
    double* dest[3] = {&p->scn->error, &p->scn->hinit, &p->scn->hmin};
    for (int k = 0; k < 3; ++k)
    {
        if (!scn_get_real(p, keys[k], dest[k], &found))
        {
            return false;
        }
        if (found && !(*dest[k] > 0.0 && isfinite(*dest[k])))
        {
            return scn_fail(p, p->st.line, "%s must be > 0 and finite", keys[k]);
        }
        if (found && rk4)
        {
            return scn_fail(p, p->st.line, "%s is for the BDF integrator (RK4 has a fixed step, HMAX)", keys[k]);
        }
    }
    return scn_check_args(p);
}

static bool stmt_simulate(scn_parser* p)
{
    bool statik = false;
    if (!scn_no_head(p) || !scn_get_flag(p, "STATIC", &statik))
    {
        return false;
    }
    if (statik)
    {
        return scn_statement_static(p); // scenario_static.c
    }
    if (!scn_first_time(p, &p->seen_simulate, "SIMULATE/DYNAMIC", ""))
    {
        return false;
    }
    p->scn->simulate_line = p->st.line;
    bool dynamic = false, found = false;
    if (!scn_get_flag(p, "DYNAMIC", &dynamic) || !scn_get_real(p, "END", &p->scn->end_time, &found))
    {
        return false;
    }
    if (!found)
    {
        return scn_fail(p, p->st.line, "SIMULATE needs END=");
    }
    if (!(p->scn->end_time > 0.0))
    {
        return scn_fail(p, p->st.line, "END must be > 0");
    }
    double steps = 500.0, dtout = 0.0;
    bool have_steps = false, have_dtout = false;
    if (!scn_get_real(p, "STEPS", &steps, &have_steps) || !scn_get_real(p, "DTOUT", &dtout, &have_dtout))
    {
        return false;
    }
    if (have_steps && have_dtout)
    {
        return scn_fail(p, p->st.line, "give STEPS or DTOUT, not both");
    }
    if (have_dtout)
    {
        if (!(dtout > 0.0))
        {
            return scn_fail(p, p->st.line, "DTOUT must be > 0");
        }
        steps = ceil(p->scn->end_time / dtout - 1e-9);
    }
    if (!(steps >= 1.0) || steps != floor(steps) || steps > 10000000.0)
    {
        return scn_fail(p, p->st.line, "STEPS must be a whole number from 1 to 1e7");
    }
    p->scn->steps = (int)steps;
    return scn_check_args(p);
}

typedef struct scn_statement
{
    const char* name;
    bool (*fcn)(scn_parser* p);
} scn_statement;

static const scn_statement s_statements[] = {
    {"UNITS", scn_statement_units},  {"ACCGRAV", scn_statement_accgrav},   {"GRAVITY", scn_statement_gravity},
    {"PART", scn_statement_part},    {"GRAPHICS", scn_statement_graphics}, {"CONTACT", scn_statement_contact},
    {"INTEGRATOR", stmt_integrator}, {"SIMULATE", stmt_simulate},          {"SPLINE", scn_statement_spline},
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
    return scn_fail(p, p->st.line, "unknown statement '%s'", n);
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
        return scn_fail(p, line, "expected a statement name (PART, GRAPHICS, CONTACT, ...), got '%.20s'", s);
    }
    scn_stmt_clear(&p->st);
    scn_upper_copy(p->st.name, sizeof p->st.name, s, (size_t)(e - s));
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
        return scn_tokenize(p, t + 1, line);
    }
    if (*t != '\0' && *t != ',')
    {
        return scn_fail(p, line, "expected '/' after %s", p->st.name);
    }
    return scn_tokenize(p, t, line);
}

static bool finish_statement(scn_parser* p)
{
    if (!p->have_stmt)
    {
        return true;
    }
    p->have_stmt = false;
    bool ok = process_statement(p);
    scn_stmt_clear(&p->st);
    return ok;
}

/// After all statements: resolve references and check the whole scenario.
static bool resolve(scn_parser* p)
{
    app_scenario* s = p->scn;
    if (!p->seen_simulate && s->statics.line == 0)
    {
        return scn_fail(p, 0, "no SIMULATE statement (SIMULATE/DYNAMIC, END=t, STEPS=n, or SIMULATE/STATIC)");
    }
    if (!scn_resolve_static(p)) // scenario_static.c
    {
        return false;
    }
    for (int i = 0; i < s->graphics_count; ++i)
    {
        app_scenario_graphics* g = &s->graphics[i];
        g->part_index = app_scenario_find_part(s, g->part_id);
        if (g->part_index < 0)
        {
            return scn_fail(p, g->line, "GRAPHICS/%d: PART/%d is not defined", g->id, g->part_id);
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
                    return scn_fail(p, ct->line, "CONTACT/%d: GRAPHICS/%d is not defined", ct->id, list[k]);
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
            return scn_fail(p, ct->line, "CONTACT/%d pairs no geometries of two different parts (one of them moving)",
                            ct->id);
        }
        app_law_error le = {0, ""};
        if (!app_laws_resolve(ct->laws, s->laws, ct->id, &le))
        {
            return scn_fail(p, le.line, "%s", le.message);
        }
    }
    return app_mech_resolve(p);
}

static char* dir_of(const char* path)
{
    const char* slash = strrchr(path, '/');
    if (slash == NULL)
    {
        return scn_dup_range("", 0);
    }
    if (slash == path)
    {
        return scn_dup_range("/", 1);
    }
    return scn_dup_range(path, (size_t)(slash - path));
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
        return scn_fail(&p, 0, text == NULL || out == NULL ? "invalid argument" : "out of memory");
    }
    p.scn->path = scn_dup_range(p.name, strlen(p.name));
    p.scn->base_dir = scn_dup_range(base_dir != NULL ? base_dir : "", base_dir != NULL ? strlen(base_dir) : 0);
    bool ok = p.scn->path != NULL && p.scn->base_dir != NULL ? true : scn_fail(&p, 0, "out of memory");
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
                ok = scn_fail(&p, line, "out of memory");
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
                ok = scn_fail(&p, line, "the previous line ends with '&' but this line is empty");
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
                ok = scn_fail(&p, line, "continuation line without a statement before it");
                break;
            }
            ok = scn_tokenize(&p, start, line);
        }
        else
        {
            bool is_end = false;
            ok = finish_statement(&p) && begin_statement(&p, start, line, &is_end);
            if (ok && is_end)
            {
                p.have_stmt = false;
                scn_stmt_clear(&p.st);
                if (amp)
                {
                    ok = scn_fail(&p, line, "END cannot be continued");
                }
                break;
            }
        }
        continued = amp;
    }
    if (ok && continued)
    {
        ok = scn_fail(&p, line, "the last line ends with '&'");
    }
    ok = ok && finish_statement(&p) && resolve(&p);
    scn_stmt_clear(&p.st);
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
        scn_contact_free(&scn->contacts[i]);
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
