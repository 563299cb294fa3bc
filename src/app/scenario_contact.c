// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The scenario reader's CONTACT statement (part of scenario.c's module): the bodies and their lists, the force
// laws' parameters, stiction, vendor laws, and SPLINE.
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

/// Read a list of GRAPHICS ids (resolved later, after all statements are read: ids are stored as-is).
static bool get_id_list(scn_parser* p, const char* key, int** out, int* count, bool required)
{
    scn_arg* a = scn_find_arg(p, key);
    *out = NULL;
    *count = 0;
    if (a == NULL)
    {
        return required ? scn_fail(p, p->st.line, "CONTACT needs %s=id[,id...]", key) : true;
    }
    if (a->nval == 0)
    {
        return scn_fail(p, a->line, "%s needs at least one id", key);
    }
    *out = malloc((size_t)a->nval * sizeof **out);
    if (*out == NULL)
    {
        return scn_fail(p, a->line, "out of memory");
    }
    for (int i = 0; i < a->nval; ++i)
    {
        if (!scn_get_int_value(p, a, a->vals[i], &(*out)[i]))
        {
            free(*out);
            *out = NULL;
            return false;
        }
    }
    *count = a->nval;
    return true;
}

void scn_contact_free(app_scenario_contact* c)
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
        scn_upper_copy(v, cap, a->vals[0], strlen(a->vals[0]));
    }
}

/// STICTION=ON|OFF and MAX_STICTION_DEFORMATION=d (> 0, a length) of a CONTACT; stiction needs friction.
static bool contact_stiction(scn_parser* p, app_scenario_contact* c)
{
    scn_arg* sa = scn_find_arg(p, "STICTION");
    c->stiction = false;
    if (sa != NULL)
    {
        char v[8];
        arg_word(sa, v, sizeof v);
        if (strcmp(v, "ON") != 0 && strcmp(v, "OFF") != 0)
        {
            return scn_fail(p, sa->line, "STICTION is ON or OFF");
        }
        c->stiction = strcmp(v, "ON") == 0;
    }
    bool found = false;
    c->max_stiction_deformation = 0.0;
    if (!scn_get_real(p, "MAX_STICTION_DEFORMATION", &c->max_stiction_deformation, &found))
    {
        return false;
    }
    if (found && !(c->max_stiction_deformation > 0.0 && isfinite(c->max_stiction_deformation)))
    {
        return scn_fail(p, p->st.line, "MAX_STICTION_DEFORMATION=%g must be finite and > 0 (a length)",
                        c->max_stiction_deformation);
    }
    if (c->stiction && c->friction == APP_SCENARIO_FRICTION_OFF)
    {
        return scn_fail(p, sa->line, "STICTION=ON needs COULOMB_FRICTION=ON or DYNAMICS_ONLY");
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
                  : scn_fail(p, p->st.line, "out of memory");
    free(v);
    return ok || (v == NULL ? false : scn_fail(p, e.line > 0 ? e.line : p->st.line, "%s", e.message));
}

/// SPLINE/id, X=..., Y=..., [METHOD=LINEAR|CUBIC|AKIMA] (scenario_laws.c).
bool scn_statement_spline(scn_parser* p)
{
    int id = 0;
    if (!scn_get_statement_id(p, &id))
    {
        return false;
    }
    bool handled = false;
    if (scn_find_arg(p, "Z") != NULL)
    {
        return app_mech_statement(p, "SPLINE", &handled); // a surface, for AKISPL and CUBSPL (scenario_mech.c)
    }
    app_law_arg* v = law_args(p);
    app_law_error e = {0, ""};
    bool ok = v != NULL ? app_laws_parse_spline(id, v, p->st.nargs, p->st.line, &p->scn->laws, &e)
                        : scn_fail(p, p->st.line, "out of memory");
    free(v);
    // The curve also serves AKISPL and CUBSPL in function expressions (scenario_mech.c keeps its points).
    return (ok || (v != NULL && scn_fail(p, e.line > 0 ? e.line : p->st.line, "%s", e.message))) &&
           app_mech_statement(p, "SPLINE", &handled);
}

static bool stmt_contact_params(scn_parser* p, app_scenario_contact* c)
{
    bool impact = false, poisson = false, found = false;
    if (!scn_get_flag(p, "IMPACT", &impact) || !scn_get_flag(p, "POISSON", &poisson) || !contact_laws(p, c))
    {
        return false;
    }
    bool other_law = c->laws != NULL && ((app_contact_laws*)c->laws)->normal != APP_LAW_NORMAL_NONE;
    if (other_law && (impact || poisson))
    {
        return scn_fail(p, p->st.line, "give one normal law: IMPACT, POISSON, RECURDYN, DYMORE or NORMAL_FUNCTION");
    }
    if (other_law) // the simulator's scales and reports read IMPACT's parameters: their equivalents
    {
        c->model = APP_SCENARIO_IMPACT;
        app_laws_equivalent_impact(c->laws, &c->stiffness, &c->exponent, &c->damping, &c->dmax);
    }
    if (impact == poisson && !other_law)
    {
        return scn_fail(p, p->st.line,
                        impact ? "give IMPACT or POISSON, not both" : "CONTACT/%d needs IMPACT or POISSON", c->id);
    }
    c->model = impact || other_law ? APP_SCENARIO_IMPACT : APP_SCENARIO_POISSON;
    static const char* impact_keys[] = {"STIFFNESS", "EXPONENT", "DAMPING", "DMAX"};
    static const char* poisson_keys[] = {"PENALTY", "RESTITUTION_COEFFICIENT", "NORMAL_TRANSITION_VELOCITY"};
    const char** other = impact ? poisson_keys : impact_keys;
    int nother = other_law ? 0 : (impact ? 3 : 4);
    for (int k = 0; k < nother; ++k)
    {
        scn_arg* a = scn_find_arg(p, other[k]);
        if (a != NULL)
        {
            return scn_fail(p, a->line, "%s does not belong to %s", other[k], impact ? "IMPACT" : "POISSON");
        }
    }
    if (impact)
    {
        c->exponent = 1.5;
        if (!scn_get_real(p, "STIFFNESS", &c->stiffness, &found))
        {
            return false;
        }
        if (!found)
        {
            return scn_fail(p, p->st.line, "IMPACT needs STIFFNESS=");
        }
        if (!scn_get_real(p, "EXPONENT", &c->exponent, &found) || !scn_get_real(p, "DAMPING", &c->damping, &found))
        {
            return false;
        }
        bool have_dmax = false;
        if (!scn_get_real(p, "DMAX", &c->dmax, &have_dmax))
        {
            return false;
        }
        if (c->damping != 0.0 && !have_dmax)
        {
            return scn_fail(p, p->st.line, "DAMPING needs DMAX= (the depth of full damping)");
        }
    }
    else if (!other_law)
    {
        if (!scn_get_real(p, "PENALTY", &c->penalty, &found))
        {
            return false;
        }
        if (!found)
        {
            return scn_fail(p, p->st.line, "POISSON needs PENALTY=");
        }
        if (!scn_get_real(p, "RESTITUTION_COEFFICIENT", &c->restitution, &found))
        {
            return false;
        }
        if (!found)
        {
            return scn_fail(p, p->st.line, "POISSON needs RESTITUTION_COEFFICIENT=");
        }
        if (!scn_get_real(p, "NORMAL_TRANSITION_VELOCITY", &c->normal_transition_velocity, &found))
        {
            return false;
        }
    }
    scn_arg* fa = scn_find_arg(p, "COULOMB_FRICTION");
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
            return scn_fail(p, fa->line, "COULOMB_FRICTION is ON, OFF or DYNAMICS_ONLY");
        }
    }
    c->stiction_velocity = 0.1;
    c->friction_velocity = 1.0;
    bool have_ms = false, have_md = false;
    if (!scn_get_real(p, "MU_STATIC", &c->mu_static, &have_ms) ||
        !scn_get_real(p, "MU_DYNAMIC", &c->mu_dynamic, &have_md) ||
        !scn_get_real(p, "STICTION_TRANSITION_VELOCITY", &c->stiction_velocity, &found) ||
        !scn_get_real(p, "FRICTION_TRANSITION_VELOCITY", &c->friction_velocity, &found))
    {
        return false;
    }
    bool friction_law = c->laws != NULL && (c->laws->friction_spline != 0 || c->laws->friction_npar > 0);
    if (c->friction != APP_SCENARIO_FRICTION_OFF && (!have_ms || !have_md) && !friction_law)
    {
        return scn_fail(p, p->st.line, "COULOMB_FRICTION needs MU_STATIC= and MU_DYNAMIC=");
    }
    scn_arg* da = scn_find_arg(p, "DEPTH");
    c->depth = MC_DEPTH_DEFAULT;
    if (da != NULL)
    {
        static const char* const names[4] = {"ADAMS", "VOLUME_AREA", "EXTENT", "SMOOTH"};
        static const mc_depth_method methods[4] = {MC_DEPTH_ADAMS, MC_DEPTH_VOLUME_AREA, MC_DEPTH_EXTENT,
                                                   MC_DEPTH_SMOOTH};
        char v[32] = "";
        if (da->nval == 1)
        {
            scn_upper_copy(v, sizeof v, da->vals[0], strlen(da->vals[0]));
        }
        for (int k = 0; k < 4; ++k)
        {
            c->depth = strcmp(v, names[k]) == 0 ? methods[k] : c->depth;
        }
        if (c->depth == MC_DEPTH_DEFAULT)
        {
            return scn_fail(p, da->line, "DEPTH is ADAMS, SMOOTH, VOLUME_AREA or EXTENT");
        }
    }
    return contact_stiction(p, c);
}

/// The lists of a CONTACT: IGEOM and JGEOM, or GROUP (then jgeom is a copy of igeom).
static bool contact_lists(scn_parser* p, app_scenario_contact* c)
{
    if (scn_find_arg(p, "GROUP") == NULL)
    {
        return get_id_list(p, "IGEOM", &c->igeom, &c->igeom_count, true) &&
               get_id_list(p, "JGEOM", &c->jgeom, &c->jgeom_count, true);
    }
    if (scn_find_arg(p, "IGEOM") != NULL || scn_find_arg(p, "JGEOM") != NULL)
    {
        return scn_fail(p, p->st.line, "CONTACT takes GROUP= or IGEOM= and JGEOM=, not both");
    }
    if (!get_id_list(p, "GROUP", &c->igeom, &c->igeom_count, true))
    {
        return false;
    }
    c->group = true;
    if (c->igeom_count < 2)
    {
        return scn_fail(p, p->st.line, "GROUP needs at least two geometries");
    }
    c->jgeom = malloc((size_t)c->igeom_count * sizeof *c->jgeom);
    if (c->jgeom == NULL)
    {
        return scn_fail(p, p->st.line, "out of memory");
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
                return scn_fail(p, p->st.line, "GRAPHICS/%d is listed twice in %s", list[k],
                                c->group ? "GROUP" : (side == 0 ? "IGEOM" : "JGEOM"));
            }
        }
    }
    if (c->group && nflips > 0)
    {
        return scn_fail(p, p->st.line,
                        "IFLIP_GEOMETRY and JFLIP_GEOMETRY do not go with GROUP: flip the geometry on its "
                        "GRAPHICS statement");
    }
    if (c->exclude_count % 2 != 0)
    {
        return scn_fail(p, p->st.line, "EXCLUDE takes pairs of GRAPHICS ids (an even number of ids, got %d)",
                        c->exclude_count);
    }
    for (int k = 0; k < c->exclude_count; k += 2)
    {
        int a = c->exclude[k], b = c->exclude[k + 1];
        bool ab = id_in(c->igeom, c->igeom_count, a) && id_in(c->jgeom, c->jgeom_count, b);
        bool ba = id_in(c->igeom, c->igeom_count, b) && id_in(c->jgeom, c->jgeom_count, a);
        if (a == b || (!ab && !ba))
        {
            return scn_fail(p, p->st.line,
                            "EXCLUDE pair GRAPHICS/%d, GRAPHICS/%d is not a pair of this CONTACT's lists", a, b);
        }
    }
    c->exclude_count /= 2;
    return true;
}

bool scn_statement_contact(scn_parser* p)
{
    app_scenario_contact c;
    memset(&c, 0, sizeof c);
    c.line = p->st.line;
    if (!scn_get_statement_id(p, &c.id))
    {
        return false;
    }
    for (int i = 0; i < p->scn->contact_count; ++i)
    {
        if (p->scn->contacts[i].id == c.id)
        {
            return scn_fail(p, p->st.line, "CONTACT/%d defined twice", c.id);
        }
    }
    int *iflip_ids = NULL, *jflip_ids = NULL;
    int niflip = 0, njflip = 0;
    bool ok = contact_lists(p, &c) && get_id_list(p, "IFLIP_GEOMETRY", &iflip_ids, &niflip, false) &&
              get_id_list(p, "JFLIP_GEOMETRY", &jflip_ids, &njflip, false) &&
              get_id_list(p, "EXCLUDE", &c.exclude, &c.exclude_count, false) && stmt_contact_params(p, &c) &&
              scn_check_args(p) && check_contact_lists(p, &c, niflip + njflip);
    if (ok)
    {
        c.iflip = calloc((size_t)c.igeom_count, sizeof *c.iflip);
        c.jflip = calloc((size_t)c.jgeom_count, sizeof *c.jflip);
        ok = c.iflip != NULL && c.jflip != NULL ? true : scn_fail(p, c.line, "out of memory");
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
            ok = scn_fail(p, c.line, "%s lists GRAPHICS/%d, which is not in %s",
                          is_i ? "IFLIP_GEOMETRY" : "JFLIP_GEOMETRY", id, is_i ? "IGEOM" : "JGEOM");
        }
    }
    free(iflip_ids);
    free(jflip_ids);
    if (ok)
    {
        app_scenario_contact* arr = scn_grow(p->scn->contacts, p->scn->contact_count, sizeof *arr);
        if (arr == NULL)
        {
            ok = scn_fail(p, c.line, "out of memory");
        }
        else
        {
            p->scn->contacts = arr;
            arr[p->scn->contact_count++] = c;
            return true;
        }
    }
    scn_contact_free(&c);
    return false;
}
