// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scenario statements of mechanisms: MARKER, SFORCE, VFORCE, VTORQUE, SPRINGDAMPER, SPLINE, VARIABLE (the format is
// in scenario_mech.h), their references and their function expressions.
#include "src/app/scenario_mech.h"

#include <stdlib.h>
#include <string.h>

static app_scenario_mech* mech_of(scn_parser* p)
{
    app_scenario* scn = app_scn_scenario(p);
    if (scn->mech == NULL)
    {
        scn->mech = calloc(1, sizeof *scn->mech);
    }
    return scn->mech;
}

/// Room for one more element of *arr (count entries of elem bytes), zeroed; NULL when memory runs out.
static void* push(void** arr, int* count, size_t elem)
{
    char* r = realloc(*arr, (size_t)(*count + 1) * elem);
    if (r == NULL)
    {
        return NULL;
    }
    *arr = r;
    memset(r + (size_t)*count * elem, 0, elem);
    return r + (size_t)(*count)++ * elem;
}

static void expr_free(app_scenario_expr* e)
{
    free(e->text);
    free(e->pieces);
    app_expr_destroy(e->code);
    memset(e, 0, sizeof *e);
}

/// Copy the expression argument KEY (may be absent unless required).
static bool get_expr(scn_parser* p, const char* key, bool required, app_scenario_expr* out)
{
    scn_arg* a = app_scn_find_arg(p, key);
    if (a == NULL)
    {
        return required ? app_scn_fail(p, app_scn_line(p), "needs %s=<function expression>", key) : true;
    }
    int n = 0;
    const int* pieces = app_scn_arg_pieces(a, &n);
    const char* text = app_scn_arg_count(a) > 0 ? app_scn_arg_value(a, 0) : "";
    out->text = malloc(strlen(text) + 1);
    out->pieces = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *out->pieces);
    if (out->text == NULL || out->pieces == NULL)
    {
        return app_scn_fail(p, app_scn_line(p), "out of memory");
    }
    strcpy(out->text, text);
    if (n > 0)
    {
        memcpy(out->pieces, pieces, (size_t)n * 3 * sizeof *pieces);
    }
    else
    {
        out->pieces[0] = 0;
        out->pieces[1] = app_scn_arg_line(a);
        out->pieces[2] = 1;
        n = 1;
    }
    out->piece_count = n;
    return true;
}

void app_scenario_expr_where(const app_scenario_expr* e, int offset, int* line, int* column)
{
    int k = 0;
    while (k + 1 < e->piece_count && e->pieces[3 * (k + 1)] <= offset)
    {
        ++k;
    }
    int off = offset - e->pieces[3 * k];
    *line = e->pieces[3 * k + 1];
    *column = e->pieces[3 * k + 2] + (off > 0 ? off : 0);
}

int app_scenario_find_marker(const app_scenario_mech* m, int id)
{
    for (int i = 0; m != NULL && i < m->marker_count; ++i)
    {
        if (m->markers[i].id == id)
        {
            return i;
        }
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------------------------

/// The statement id, refused when another statement of the family has it already.
static bool new_id(scn_parser* p, const char* what, const int* ids, int count, size_t stride, int* id)
{
    if (!app_scn_statement_id(p, id))
    {
        return false;
    }
    for (int i = 0; i < count; ++i)
    {
        if (*(const int*)((const char*)ids + (size_t)i * stride) == *id)
        {
            return app_scn_fail(p, app_scn_line(p), "%s/%d is defined twice", what, *id);
        }
    }
    return true;
}

static bool stmt_marker(scn_parser* p, app_scenario_mech* m)
{
    int id = 0;
    if (!new_id(p, "MARKER", m->markers != NULL ? &m->markers[0].id : NULL, m->marker_count, sizeof *m->markers, &id))
    {
        return false;
    }
    app_scenario_marker mk;
    memset(&mk, 0, sizeof mk);
    mk.id = id;
    mk.line = app_scn_line(p);
    if (!app_scn_int(p, "PART", &mk.part_id, true) || !app_scn_pose(p, "QP", &mk.local) ||
        !app_scn_flag(p, "FLOATING", &mk.floating))
    {
        return false;
    }
    if (mk.floating && (app_scn_find_arg(p, "QP") != NULL || app_scn_find_arg(p, "REULER") != NULL ||
                        app_scn_find_arg(p, "QUATERNION") != NULL))
    {
        return app_scn_fail(p, mk.line,
                            "MARKER/%d is FLOATING: it takes no QP, REULER or QUATERNION (it sits where "
                            "the force's I marker is)",
                            id);
    }
    if (!app_scn_check_args(p))
    {
        return false;
    }
    app_scenario_marker* slot = push((void**)&m->markers, &m->marker_count, sizeof *slot);
    if (slot == NULL)
    {
        return app_scn_fail(p, mk.line, "out of memory");
    }
    *slot = mk;
    return true;
}

/// TRANSLATION or ROTATION (exactly one; TRANSLATION when `default_translation` and neither is given).
static bool translation_or_rotation(scn_parser* p, bool* rotation)
{
    bool tr = false, rot = false;
    if (!app_scn_flag(p, "TRANSLATION", &tr) || !app_scn_flag(p, "ROTATION", &rot))
    {
        return false;
    }
    if (tr == rot)
    {
        return app_scn_fail(p, app_scn_line(p), "give TRANSLATION or ROTATION (one of them)");
    }
    *rotation = rot;
    return true;
}

static bool stmt_sforce(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_sforce f;
    memset(&f, 0, sizeof f);
    f.line = app_scn_line(p);
    if (!new_id(p, "SFORCE", m->sforces != NULL ? &m->sforces[0].id : NULL, m->sforce_count, sizeof *m->sforces,
                &f.id) ||
        !app_scn_int(p, "I", &f.i, true) || !app_scn_int(p, "J", &f.j, true) ||
        !translation_or_rotation(p, &f.rotation) || !app_scn_flag(p, "ACTIONONLY", &f.action_only) ||
        !get_expr(p, "FUNCTION", true, &f.function) || !app_scn_check_args(p))
    {
        expr_free(&f.function);
        return false;
    }
    app_scenario_sforce* slot = push((void**)&m->sforces, &m->sforce_count, sizeof *slot);
    if (slot == NULL)
    {
        expr_free(&f.function);
        return app_scn_fail(p, f.line, "out of memory");
    }
    *slot = f;
    return true;
}

static bool stmt_vforce(scn_parser* p, app_scenario_mech* m, bool torque)
{
    app_scenario_vforce f;
    memset(&f, 0, sizeof f);
    f.line = app_scn_line(p);
    f.torque = torque;
    static const char* const keys[2][3] = {{"FX", "FY", "FZ"}, {"TX", "TY", "TZ"}};
    bool ok = app_scn_statement_id(p, &f.id) && app_scn_int(p, "I", &f.i, true) &&
              app_scn_int(p, "JFLOAT", &f.jfloat, true) && app_scn_int(p, "RM", &f.rm, true);
    for (int c = 0; ok && c < 3; ++c)
    {
        ok = get_expr(p, keys[torque][c], false, &f.component[c]);
    }
    if (ok && f.component[0].text == NULL && f.component[1].text == NULL && f.component[2].text == NULL)
    {
        ok = app_scn_fail(p, f.line, "%s/%d needs at least one of %s=, %s=, %s=", torque ? "VTORQUE" : "VFORCE", f.id,
                          keys[torque][0], keys[torque][1], keys[torque][2]);
    }
    for (int i = 0; ok && i < m->vforce_count; ++i)
    {
        if (m->vforces[i].id == f.id && m->vforces[i].torque == torque)
        {
            ok = app_scn_fail(p, f.line, "%s/%d is defined twice", torque ? "VTORQUE" : "VFORCE", f.id);
        }
    }
    ok = ok && app_scn_check_args(p);
    app_scenario_vforce* slot = ok ? push((void**)&m->vforces, &m->vforce_count, sizeof *slot) : NULL;
    if (slot == NULL)
    {
        for (int c = 0; c < 3; ++c)
        {
            expr_free(&f.component[c]);
        }
        return ok ? app_scn_fail(p, f.line, "out of memory") : false;
    }
    *slot = f;
    return true;
}

static bool stmt_springdamper(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_springdamper s;
    memset(&s, 0, sizeof s);
    s.line = app_scn_line(p);
    if (!new_id(p, "SPRINGDAMPER", m->springs != NULL ? &m->springs[0].id : NULL, m->spring_count, sizeof *m->springs,
                &s.id) ||
        !app_scn_int(p, "I", &s.i, true) || !app_scn_int(p, "J", &s.j, true) ||
        !translation_or_rotation(p, &s.rotation))
    {
        return false;
    }
    // Translation: K, C, LENGTH, FORCE; rotation: KT, CT, ANGLE, TORQUE (the others are unknown arguments).
    const char* const* keys = s.rotation ? (const char* const[]){"KT", "CT", "ANGLE", "TORQUE"}
                                         : (const char* const[]){"K", "C", "LENGTH", "FORCE"};
    double* vals[4] = {&s.k, &s.c, &s.length, &s.preload};
    for (int i = 0; i < 4; ++i)
    {
        bool found = false;
        if (!app_scn_reals(p, keys[i], vals[i], 1, 1, NULL, s.rotation && i == 2, &found))
        {
            return false;
        }
        if (i == 2)
        {
            s.length_given = found;
        }
        if (i < 2 && *vals[i] < 0.0)
        {
            return app_scn_fail(p, s.line, "SPRINGDAMPER/%d: %s must not be negative", s.id, keys[i]);
        }
    }
    if (!s.rotation && s.length_given && s.length < 0.0)
    {
        return app_scn_fail(p, s.line, "SPRINGDAMPER/%d: LENGTH must not be negative", s.id);
    }
    if (!app_scn_check_args(p))
    {
        return false;
    }
    app_scenario_springdamper* slot = push((void**)&m->springs, &m->spring_count, sizeof *slot);
    if (slot == NULL)
    {
        return app_scn_fail(p, s.line, "out of memory");
    }
    *slot = s;
    return true;
}

/// All values of KEY into a new array (*n of them; at least `min`).
static bool get_list(scn_parser* p, const char* key, int min, double** out, int* n)
{
    scn_arg* a = app_scn_find_arg(p, key);
    if (a == NULL)
    {
        return app_scn_fail(p, app_scn_line(p), "needs %s=v1,v2,...", key);
    }
    int count = app_scn_arg_count(a);
    if (count < min)
    {
        return app_scn_fail(p, app_scn_arg_line(a), "%s has %d value%s, at least %d are needed", key, count,
                            count == 1 ? "" : "s", min);
    }
    *out = malloc((size_t)count * sizeof **out);
    if (*out == NULL)
    {
        return app_scn_fail(p, app_scn_arg_line(a), "out of memory");
    }
    *n = count;
    bool found = false;
    return app_scn_reals(p, key, *out, count, count, NULL, false, &found);
}

static bool strictly_increasing(scn_parser* p, int id, const char* key, const double* v, int n)
{
    for (int i = 1; i < n; ++i)
    {
        if (!(v[i] > v[i - 1]))
        {
            return app_scn_fail(p, app_scn_line(p),
                                "SPLINE/%d: %s is not strictly increasing: value %d (%g) is not greater than value %d "
                                "(%g)",
                                id, key, i + 1, v[i], i, v[i - 1]);
        }
    }
    return true;
}

static bool stmt_spline(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_spline s;
    memset(&s, 0, sizeof s);
    s.line = app_scn_line(p);
    s.nz = 1;
    bool ok = new_id(p, "SPLINE", m->splines != NULL ? &m->splines[0].id : NULL, m->spline_count, sizeof *m->splines,
                     &s.id) &&
              get_list(p, "X", 2, &s.x, &s.nx) && strictly_increasing(p, s.id, "X", s.x, s.nx);
    if (ok && app_scn_find_arg(p, "Z") != NULL)
    {
        ok = get_list(p, "Z", 2, &s.z, &s.nz) && strictly_increasing(p, s.id, "Z", s.z, s.nz);
    }
    int ny = 0;
    ok = ok && get_list(p, "Y", 1, &s.y, &ny);
    if (ok && ny != s.nx * s.nz)
    {
        ok = s.z == NULL
                 ? app_scn_fail(p, s.line, "SPLINE/%d: Y has %d values, X has %d", s.id, ny, s.nx)
                 : app_scn_fail(p, s.line, "SPLINE/%d: Y has %d values, not one row of %d (X) per value of Z (%d): %d",
                                s.id, ny, s.nx, s.nz, s.nx * s.nz);
    }
    ok = ok && app_scn_check_args(p);
    app_scenario_spline* slot = ok ? push((void**)&m->splines, &m->spline_count, sizeof *slot) : NULL;
    if (slot == NULL)
    {
        free(s.x);
        free(s.y);
        free(s.z);
        return ok ? app_scn_fail(p, s.line, "out of memory") : false;
    }
    *slot = s;
    return true;
}

static bool stmt_variable(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_variable v;
    memset(&v, 0, sizeof v);
    v.line = app_scn_line(p);
    if (!new_id(p, "VARIABLE", m->variables != NULL ? &m->variables[0].id : NULL, m->variable_count,
                sizeof *m->variables, &v.id) ||
        !get_expr(p, "FUNCTION", true, &v.function) || !app_scn_check_args(p))
    {
        expr_free(&v.function);
        return false;
    }
    app_scenario_variable* slot = push((void**)&m->variables, &m->variable_count, sizeof *slot);
    if (slot == NULL)
    {
        expr_free(&v.function);
        return app_scn_fail(p, v.line, "out of memory");
    }
    *slot = v;
    return true;
}

static const char* const s_joint_names[] = {"REVOLUTE",  "TRANSLATIONAL", "CYLINDRICAL", "SPHERICAL",
                                            "UNIVERSAL", "PLANAR",        "FIXED"};

static bool stmt_joint(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_joint jt;
    memset(&jt, 0, sizeof jt);
    jt.line = app_scn_line(p);
    if (!new_id(p, "JOINT", m->joints != NULL ? &m->joints[0].id : NULL, m->joint_count, sizeof *m->joints, &jt.id) ||
        !app_scn_int(p, "I", &jt.i, true) || !app_scn_int(p, "J", &jt.j, true))
    {
        return false;
    }
    int found = 0;
    for (int t = 0; t < 7; ++t)
    {
        bool on = false;
        if (!app_scn_flag(p, s_joint_names[t], &on))
        {
            return false;
        }
        if (on)
        {
            jt.type = (app_joint_type)t;
            ++found;
        }
    }
    if (found != 1)
    {
        return app_scn_fail(p, jt.line,
                            "JOINT/%d needs one type: REVOLUTE, TRANSLATIONAL, CYLINDRICAL, SPHERICAL, UNIVERSAL, "
                            "PLANAR or FIXED",
                            jt.id);
    }
    if (!app_scn_check_args(p))
    {
        return false;
    }
    app_scenario_joint* slot = push((void**)&m->joints, &m->joint_count, sizeof *slot);
    if (slot == NULL)
    {
        return app_scn_fail(p, jt.line, "out of memory");
    }
    *slot = jt;
    return true;
}

static bool stmt_motion(scn_parser* p, app_scenario_mech* m)
{
    app_scenario_motion mo;
    memset(&mo, 0, sizeof mo);
    mo.line = app_scn_line(p);
    bool tr = false, rot = false, disp = false;
    bool ok = new_id(p, "MOTION", m->motions != NULL ? &m->motions[0].id : NULL, m->motion_count, sizeof *m->motions,
                     &mo.id) &&
              app_scn_int(p, "JOINT", &mo.joint, true) && app_scn_flag(p, "TRANSLATION", &tr) &&
              app_scn_flag(p, "ROTATION", &rot) && app_scn_flag(p, "DISPLACEMENT", &disp) &&
              app_scn_flag(p, "VELOCITY", &mo.velocity) && get_expr(p, "FUNCTION", true, &mo.function);
    if (ok && tr && rot)
    {
        ok = app_scn_fail(p, mo.line, "MOTION/%d: give TRANSLATION or ROTATION, not both", mo.id);
    }
    if (ok && disp && mo.velocity)
    {
        ok = app_scn_fail(p, mo.line, "MOTION/%d: give DISPLACEMENT or VELOCITY, not both", mo.id);
    }
    mo.rotation = rot;
    if (ok && !tr && !rot)
    {
        mo.joint = -mo.joint; // neither: the joint's own kind, resolved with the joint
    }
    ok = ok && app_scn_check_args(p);
    app_scenario_motion* slot = ok ? push((void**)&m->motions, &m->motion_count, sizeof *slot) : NULL;
    if (slot == NULL)
    {
        expr_free(&mo.function);
        return ok ? app_scn_fail(p, mo.line, "out of memory") : false;
    }
    *slot = mo;
    return true;
}

bool app_mech_is_expr_key(const char* stmt, const char* key)
{
    if (strcmp(stmt, "SFORCE") == 0 || strcmp(stmt, "VARIABLE") == 0 || strcmp(stmt, "MOTION") == 0)
    {
        return strcmp(key, "FUNCTION") == 0;
    }
    if (strcmp(stmt, "VFORCE") == 0)
    {
        return strcmp(key, "FX") == 0 || strcmp(key, "FY") == 0 || strcmp(key, "FZ") == 0;
    }
    if (strcmp(stmt, "VTORQUE") == 0)
    {
        return strcmp(key, "TX") == 0 || strcmp(key, "TY") == 0 || strcmp(key, "TZ") == 0;
    }
    return false;
}

bool app_mech_statement(scn_parser* p, const char* name, bool* handled)
{
    static const char* const names[] = {"MARKER", "SFORCE",   "VFORCE", "VTORQUE", "SPRINGDAMPER",
                                        "SPLINE", "VARIABLE", "JOINT",  "MOTION"};
    int k = -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); ++i)
    {
        k = strcmp(name, names[i]) == 0 ? i : k;
    }
    *handled = k >= 0;
    if (k < 0)
    {
        return false;
    }
    app_scenario_mech* m = mech_of(p);
    if (m == NULL)
    {
        return app_scn_fail(p, app_scn_line(p), "out of memory");
    }
    switch (k)
    {
    case 0:
        return stmt_marker(p, m);
    case 1:
        return stmt_sforce(p, m);
    case 2:
        return stmt_vforce(p, m, false);
    case 3:
        return stmt_vforce(p, m, true);
    case 4:
        return stmt_springdamper(p, m);
    case 5:
        return stmt_spline(p, m);
    case 6:
        return stmt_variable(p, m);
    case 7:
        return stmt_joint(p, m);
    default:
        return stmt_motion(p, m);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Resolving
// ---------------------------------------------------------------------------------------------------------------

static int names_marker(void* user, int id)
{
    const app_scenario_mech* m = user;
    int k = app_scenario_find_marker(m, id);
    return k >= 0 && !m->markers[k].floating ? k : -1;
}

static int names_variable(void* user, int id)
{
    const app_scenario_mech* m = user;
    for (int i = 0; i < m->variable_count; ++i)
    {
        if (m->variables[i].id == id)
        {
            return i;
        }
    }
    return -1;
}

static int names_spline(void* user, int id)
{
    const app_scenario_mech* m = user;
    for (int i = 0; i < m->spline_count; ++i)
    {
        if (m->splines[i].id == id)
        {
            return i;
        }
    }
    return -1;
}

static bool compile(scn_parser* p, app_scenario_mech* m, app_scenario_expr* e, const char* owner, int id,
                    const char* key)
{
    if (e->text == NULL)
    {
        return true;
    }
    app_expr_names names = {m, names_marker, names_variable, names_spline};
    app_expr_error err;
    memset(&err, 0, sizeof err);
    e->code = app_expr_compile(e->text, &names, &err);
    if (e->code != NULL)
    {
        return true;
    }
    int line = 0, column = 0;
    app_scenario_expr_where(e, err.offset, &line, &column);
    if (err.offset < 0)
    {
        return app_scn_fail(p, line, "%s/%d %s=: out of memory", owner, id, key);
    }
    return app_scn_fail_at(p, line, column, "%s/%d %s=: %s", owner, id, key, err.message);
}

/// Marker `*k` (an id) of a force: its index; floating only for JFLOAT, never for the others.
static bool force_marker(scn_parser* p, app_scenario_mech* m, const char* owner, int id, int line, const char* key,
                         bool want_floating, int* k)
{
    int idx = app_scenario_find_marker(m, *k);
    if (idx < 0)
    {
        return app_scn_fail(p, line, "%s/%d: %s=%d: MARKER/%d is not defined", owner, id, key, *k, *k);
    }
    if (m->markers[idx].floating != want_floating)
    {
        return app_scn_fail(p, line,
                            want_floating ? "%s/%d: %s=%d: MARKER/%d is not FLOATING (JFLOAT needs one)"
                                          : "%s/%d: %s=%d: MARKER/%d is FLOATING (only JFLOAT may be)",
                            owner, id, key, *k, *k);
    }
    *k = idx;
    return true;
}

static bool two_parts(scn_parser* p, const app_scenario_mech* m, const char* owner, int id, int line, int i, int j)
{
    if (m->markers[i].part_index == m->markers[j].part_index)
    {
        return app_scn_fail(p, line,
                            "%s/%d: I=%d and J=%d are markers of one part (PART/%d): the force would act on "
                            "that part alone, with its own reaction",
                            owner, id, m->markers[i].id, m->markers[j].id, m->markers[i].part_id);
    }
    return true;
}

bool app_mech_resolve(scn_parser* p)
{
    app_scenario* scn = app_scn_scenario(p);
    app_scenario_mech* m = scn->mech;
    if (m == NULL)
    {
        return true;
    }
    for (int i = 0; i < m->marker_count; ++i)
    {
        app_scenario_marker* mk = &m->markers[i];
        mk->part_index = app_scenario_find_part(scn, mk->part_id);
        if (mk->part_index < 0)
        {
            return app_scn_fail(p, mk->line, "MARKER/%d: PART/%d is not defined", mk->id, mk->part_id);
        }
        // Markers sit in the part frame; the simulator's part state is at the centre of mass (the same point unless
        // the part has DENSITY, see sim_forces.c).
    }
    for (int i = 0; i < m->sforce_count; ++i)
    {
        app_scenario_sforce* f = &m->sforces[i];
        if (!force_marker(p, m, "SFORCE", f->id, f->line, "I", false, &f->i) ||
            !force_marker(p, m, "SFORCE", f->id, f->line, "J", false, &f->j) ||
            !two_parts(p, m, "SFORCE", f->id, f->line, f->i, f->j) ||
            !compile(p, m, &f->function, "SFORCE", f->id, "FUNCTION"))
        {
            return false;
        }
    }
    for (int i = 0; i < m->vforce_count; ++i)
    {
        app_scenario_vforce* f = &m->vforces[i];
        const char* owner = f->torque ? "VTORQUE" : "VFORCE";
        if (!force_marker(p, m, owner, f->id, f->line, "I", false, &f->i) ||
            !force_marker(p, m, owner, f->id, f->line, "JFLOAT", true, &f->jfloat) ||
            !force_marker(p, m, owner, f->id, f->line, "RM", false, &f->rm) ||
            !two_parts(p, m, owner, f->id, f->line, f->i, f->jfloat))
        {
            return false;
        }
        static const char* const keys[2][3] = {{"FX", "FY", "FZ"}, {"TX", "TY", "TZ"}};
        for (int c = 0; c < 3; ++c)
        {
            if (!compile(p, m, &f->component[c], owner, f->id, keys[f->torque][c]))
            {
                return false;
            }
        }
    }
    for (int i = 0; i < m->spring_count; ++i)
    {
        app_scenario_springdamper* s = &m->springs[i];
        if (!force_marker(p, m, "SPRINGDAMPER", s->id, s->line, "I", false, &s->i) ||
            !force_marker(p, m, "SPRINGDAMPER", s->id, s->line, "J", false, &s->j) ||
            !two_parts(p, m, "SPRINGDAMPER", s->id, s->line, s->i, s->j))
        {
            return false;
        }
    }
    for (int i = 0; i < m->variable_count; ++i)
    {
        app_scenario_variable* v = &m->variables[i];
        if (!compile(p, m, &v->function, "VARIABLE", v->id, "FUNCTION"))
        {
            return false;
        }
    }
    for (int i = 0; i < m->joint_count; ++i)
    {
        app_scenario_joint* jt = &m->joints[i];
        if (!force_marker(p, m, "JOINT", jt->id, jt->line, "I", false, &jt->i) ||
            !force_marker(p, m, "JOINT", jt->id, jt->line, "J", false, &jt->j))
        {
            return false;
        }
        if (m->markers[jt->i].part_index == m->markers[jt->j].part_index)
        {
            return app_scn_fail(p, jt->line, "JOINT/%d: I=%d and J=%d are markers of one part (PART/%d)", jt->id,
                                m->markers[jt->i].id, m->markers[jt->j].id, m->markers[jt->i].part_id);
        }
    }
    for (int i = 0; i < m->motion_count; ++i)
    {
        app_scenario_motion* mo = &m->motions[i];
        bool own = mo->joint < 0;
        int id = own ? -mo->joint : mo->joint;
        int k = -1;
        for (int q = 0; q < m->joint_count; ++q)
        {
            k = m->joints[q].id == id ? q : k;
        }
        if (k < 0)
        {
            return app_scn_fail(p, mo->line, "MOTION/%d: JOINT/%d is not defined", mo->id, id);
        }
        app_joint_type t = m->joints[k].type;
        if (own && t == APP_JOINT_CYLINDRICAL)
        {
            return app_scn_fail(p, mo->line, "MOTION/%d: JOINT/%d is CYLINDRICAL: give TRANSLATION or ROTATION",
                                mo->id, id);
        }
        if (own)
        {
            mo->rotation = t == APP_JOINT_REVOLUTE;
        }
        bool fits = ((t == APP_JOINT_REVOLUTE || t == APP_JOINT_CYLINDRICAL) && mo->rotation) ||
                    ((t == APP_JOINT_TRANSLATIONAL || t == APP_JOINT_CYLINDRICAL) && !mo->rotation);
        if (!fits)
        {
            return app_scn_fail(p, mo->line,
                                "MOTION/%d: JOINT/%d is %s, which cannot take a %s motion (REVOLUTE takes ROTATION, "
                                "TRANSLATIONAL takes TRANSLATION, CYLINDRICAL one of each)",
                                mo->id, id, s_joint_names[t], mo->rotation ? "ROTATION" : "TRANSLATION");
        }
        for (int q = 0; q < i; ++q)
        {
            // a CYLINDRICAL joint takes one ROTATION and one TRANSLATION
            if (m->motions[q].joint == k && m->motions[q].rotation == mo->rotation)
            {
                return app_scn_fail(p, mo->line, "MOTION/%d: JOINT/%d is driven by MOTION/%d already", mo->id, id,
                                    m->motions[q].id);
            }
        }
        mo->joint = k;
        if (!compile(p, m, &mo->function, "MOTION", mo->id, "FUNCTION"))
        {
            return false;
        }
    }
    return true;
}

void app_mech_destroy(app_scenario_mech* m)

{
    if (m == NULL)
    {
        return;
    }
    for (int i = 0; i < m->sforce_count; ++i)
    {
        expr_free(&m->sforces[i].function);
    }
    for (int i = 0; i < m->vforce_count; ++i)
    {
        for (int c = 0; c < 3; ++c)
        {
            expr_free(&m->vforces[i].component[c]);
        }
    }
    for (int i = 0; i < m->spline_count; ++i)
    {
        free(m->splines[i].x);
        free(m->splines[i].y);
        free(m->splines[i].z);
    }
    for (int i = 0; i < m->variable_count; ++i)
    {
        expr_free(&m->variables[i].function);
    }
    for (int i = 0; i < m->motion_count; ++i)
    {
        expr_free(&m->motions[i].function);
    }
    free(m->joints);
    free(m->motions);
    free(m->markers);
    free(m->sforces);
    free(m->vforces);
    free(m->springs);
    free(m->splines);
    free(m->variables);
    free(m);
}
