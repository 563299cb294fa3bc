// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact laws of scenario files beyond IMPACT and POISSON: RECURDYN and DYMORE with their vendors' parameter names,
// SPLINE statements, and Adams user routines loaded from shared libraries (dlopen / dlsym).
// Based on: MSC Adams/Solver CONTACT (NORMAL_FUNCTION=USER(), NORMAL_ROUTINE=lib::fn, FRICTION_FUNCTION,
// FRICTION_ROUTINE) and SPLINE statements; RecurDyn's contact parameters; DYMORE's contact model parameters.
#include "src/app/scenario_laws.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct law_spline
{
    int id;
    int line;
    mc_curve* curve;
} law_spline;

struct app_scenario_laws
{
    law_spline* splines;
    int spline_count;
    void** libraries; // dlopen handles
    int library_count;
};

static bool law_fail(app_law_error* err, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

static bool law_fail(app_law_error* err, int line, const char* fmt, ...)
{
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return false;
}

static const app_law_arg* take(const app_law_arg* args, int nargs, const char* key)
{
    for (int i = 0; i < nargs; ++i)
    {
        if (strcmp(args[i].key, key) == 0)
        {
            *args[i].used = true;
            return &args[i];
        }
    }
    return NULL;
}

static bool has(const app_law_arg* args, int nargs, const char* key)
{
    for (int i = 0; i < nargs; ++i)
    {
        if (strcmp(args[i].key, key) == 0)
        {
            return true;
        }
    }
    return false;
}

static bool parse_number(const char* text, double* out)
{
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

/// KEY=value (one real) when present; *found says whether it was.
static bool real_arg(const app_law_arg* args, int nargs, const char* key, double* out, bool* found, app_law_error* err)
{
    const app_law_arg* a = take(args, nargs, key);
    if (found != NULL)
    {
        *found = a != NULL;
    }
    if (a == NULL)
    {
        return true;
    }
    if (a->nval != 1 || !parse_number(a->vals[0], out))
    {
        return law_fail(err, a->line, "%s takes one number, got '%s'%s", key, a->nval > 0 ? a->vals[0] : "",
                        a->nval > 1 ? " and more" : "");
    }
    return true;
}

static bool id_arg(const app_law_arg* args, int nargs, const char* key, int* out, app_law_error* err)
{
    double v = 0.0;
    bool found = false;
    if (!real_arg(args, nargs, key, &v, &found, err))
    {
        return false;
    }
    if (found && !(v >= 1.0 && v <= 1e9 && v == floor(v)))
    {
        return law_fail(err, take(args, nargs, key)->line, "%s is a SPLINE id (a positive integer), got %g", key, v);
    }
    *out = found ? (int)v : 0;
    return true;
}

static void upper(char* dst, size_t cap, const char* s)
{
    size_t n = 0;
    for (; s[n] != '\0' && n + 1 < cap; ++n)
    {
        dst[n] = (char)toupper((unsigned char)s[n]);
    }
    dst[n] = '\0';
}

/// USER(r1, ..., rn) as written over the argument's values ("USER(1e5", "1.5", "1e-4)"): n in 1..30.
static bool user_list(const app_law_arg* a, double* par, int* npar, app_law_error* err)
{
    char head[8];
    upper(head, sizeof head, a->nval > 0 ? a->vals[0] : "");
    if (a->nval == 0 || strncmp(head, "USER(", 5) != 0)
    {
        return law_fail(err, a->line, "%s is USER(r1, ..., rn) (Adams' form), got '%s'", a->key,
                        a->nval > 0 ? a->vals[0] : "");
    }
    int n = 0;
    bool closed = false;
    for (int i = 0; i < a->nval && !closed; ++i)
    {
        char word[128];
        snprintf(word, sizeof word, "%s", i == 0 ? a->vals[0] + 5 : a->vals[i]);
        size_t len = strlen(word);
        if (len > 0 && word[len - 1] == ')')
        {
            word[--len] = '\0';
            closed = true;
        }
        if (len == 0)
        {
            continue; // "USER(" alone, or ")" alone
        }
        if (n == MC_ROUTINE_MAX_PARAMETERS)
        {
            return law_fail(err, a->line, "%s=USER() takes at most %d values (Adams' limit), got more", a->key,
                            MC_ROUTINE_MAX_PARAMETERS);
        }
        if (!parse_number(word, &par[n]))
        {
            return law_fail(err, a->line, "bad number '%s' in %s=USER()", word, a->key);
        }
        ++n;
    }
    if (!closed)
    {
        return law_fail(err, a->line, "%s=USER(...) has no closing ')'", a->key);
    }
    if (n == 0)
    {
        return law_fail(err, a->line, "%s=USER() needs at least one value", a->key);
    }
    *npar = n;
    return true;
}

static bool keep_library(app_scenario_laws* d, void* handle)
{
    void** nl = realloc(d->libraries, (size_t)(d->library_count + 1) * sizeof *nl);
    if (nl == NULL)
    {
        return false;
    }
    d->libraries = nl;
    nl[d->library_count++] = handle;
    return true;
}

static bool ensure_data(app_scenario_laws** d)
{
    if (*d == NULL)
    {
        *d = calloc(1, sizeof **d);
    }
    return *d != NULL;
}

/// library::function of a *_ROUTINE argument: open the library (relative paths against base_dir), look the function
/// up, and check the USER() count against an optional `<function>_parameter_count` int the library exports.
static bool load_routine(const app_law_arg* a, const char* base_dir, app_scenario_laws** d, int npar, void** fcn,
                         app_law_error* err)
{
    const char* text = a->nval == 1 ? a->vals[0] : "";
    const char* sep = strstr(text, "::");
    if (sep == NULL || sep == text || sep[2] == '\0')
    {
        return law_fail(err, a->line, "%s is library::function (Adams' form), got '%s'", a->key, text);
    }
    char lib[1024], sym[256], path[2048];
    snprintf(lib, sizeof lib, "%.*s", (int)(sep - text), text);
    snprintf(sym, sizeof sym, "%s", sep + 2);
    snprintf(path, sizeof path, "%s", lib);
    if (lib[0] != '/' && base_dir != NULL && base_dir[0] != '\0')
    {
        char joined[2048];
        snprintf(joined, sizeof joined, "%s/%s", base_dir, lib);
        if (strchr(lib, '/') != NULL || access(joined, F_OK) == 0)
        {
            snprintf(path, sizeof path, "%s", joined); // a path next to the scenario; a bare name is searched
        }
    }
    if (!ensure_data(d))
    {
        return law_fail(err, a->line, "out of memory");
    }
    dlerror();
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
    {
        const char* why = dlerror();
        return law_fail(err, a->line, "%s: cannot load library '%s' for function '%s': %s", a->key, lib, sym,
                        why != NULL ? why : "unknown error");
    }
    if (!keep_library(*d, h))
    {
        dlclose(h);
        return law_fail(err, a->line, "out of memory");
    }
    dlerror();
    void* f = dlsym(h, sym);
    if (f == NULL)
    {
        return law_fail(err, a->line, "%s: library '%s' has no function '%s'", a->key, lib, sym);
    }
    char count_name[300];
    snprintf(count_name, sizeof count_name, "%s_parameter_count", sym);
    const int* count = dlsym(h, count_name);
    if (count != NULL && *count != npar)
    {
        return law_fail(err, a->line, "%s: function '%s' of library '%s' takes %d USER() value%s, got %d", a->key, sym,
                        lib, *count, *count == 1 ? "" : "s", npar);
    }
    *fcn = f;
    return true;
}

static bool user_pair(const app_law_arg* args, int nargs, const char* fkey, const char* rkey, const char* base_dir,
                      app_scenario_laws** d, double* par, int* npar, void** fcn, int line, app_law_error* err)
{
    const app_law_arg* fa = take(args, nargs, fkey);
    const app_law_arg* ra = take(args, nargs, rkey);
    if (fa == NULL && ra == NULL)
    {
        return true;
    }
    if (fa == NULL || ra == NULL)
    {
        return law_fail(err, fa != NULL ? fa->line : (ra != NULL ? ra->line : line),
                        "%s=USER(...) and %s=library::function go together", fkey, rkey);
    }
    return user_list(fa, par, npar, err) && load_routine(ra, base_dir, d, *npar, fcn, err);
}

static bool vendor_params(const app_law_arg* args, int nargs, app_contact_laws* l, int line, app_law_error* err)
{
    mc_force_model* m = &l->params;
    bool rd = l->normal == APP_LAW_NORMAL_RECURDYN, found = false;
    if (!real_arg(args, nargs, "STIFFNESS", &m->stiffness, &found, err) ||
        !id_arg(args, nargs, "STIFFNESS_SPLINE", &l->stiffness_spline, err) ||
        !real_arg(args, nargs, "MAXIMUM_PENETRATION", &m->max_penetration, NULL, err))
    {
        return false;
    }
    if (!found && l->stiffness_spline == 0)
    {
        return law_fail(err, line, "%s needs STIFFNESS= or STIFFNESS_SPLINE=", rd ? "RECURDYN" : "DYMORE");
    }
    if (!rd)
    {
        return real_arg(args, nargs, "EXPONENT", &m->exponent, NULL, err) &&
               real_arg(args, nargs, "DISSIPATION", &m->dissipation, NULL, err);
    }
    m->damping = 0.0;
    bool have_bp = false;
    if (!real_arg(args, nargs, "STIFFNESS_EXPONENT", &m->exponent, NULL, err) ||
        !real_arg(args, nargs, "DAMPING", &m->damping, NULL, err) ||
        !real_arg(args, nargs, "DAMPING_EXPONENT", &m->damping_exponent, NULL, err) ||
        !real_arg(args, nargs, "INDENTATION_EXPONENT", &m->indentation_exponent, NULL, err) ||
        !real_arg(args, nargs, "BOUNDARY_PENETRATION", &m->dmax, &have_bp, err) ||
        !real_arg(args, nargs, "REBOUND_DAMPING_FACTOR", &m->rebound_damping_factor, NULL, err) ||
        !id_arg(args, nargs, "DAMPING_SPLINE", &l->damping_spline, err))
    {
        return false;
    }
    if ((m->damping != 0.0 || l->damping_spline != 0) && !have_bp)
    {
        return law_fail(err, line, "RECURDYN damping needs BOUNDARY_PENETRATION= (the depth of full damping)");
    }
    return true;
}

static bool friction_spline(const app_law_arg* args, int nargs, app_contact_laws* l, app_law_error* err)
{
    if (!id_arg(args, nargs, "FRICTION_SPLINE", &l->friction_spline, err))
    {
        return false;
    }
    const app_law_arg* t = take(args, nargs, "FRICTION_SPLINE_TYPE");
    if (t == NULL)
    {
        return true;
    }
    char v[32];
    upper(v, sizeof v, t->nval == 1 ? t->vals[0] : "");
    if (strcmp(v, "COEFFICIENT") != 0 && strcmp(v, "FORCE") != 0)
    {
        return law_fail(err, t->line, "FRICTION_SPLINE_TYPE is COEFFICIENT or FORCE");
    }
    if (l->friction_spline == 0)
    {
        return law_fail(err, t->line, "FRICTION_SPLINE_TYPE needs FRICTION_SPLINE=");
    }
    l->friction_kind = strcmp(v, "FORCE") == 0 ? MC_FRICTION_CURVE_FORCE : MC_FRICTION_CURVE_COEFFICIENT;
    return true;
}

bool app_laws_parse_contact(const app_law_arg* args, int nargs, int line, const char* base_dir,
                            app_scenario_laws** scn_laws, app_contact_laws** out, app_law_error* err)
{
    *out = NULL;
    static const char* const keys[] = {"RECURDYN",          "DYMORE",           "NORMAL_FUNCTION", "NORMAL_ROUTINE",
                                       "FRICTION_FUNCTION", "FRICTION_ROUTINE", "FRICTION_SPLINE"};
    bool any = false;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
    {
        any = any || has(args, nargs, keys[k]);
    }
    if (!any)
    {
        static const char* const vendor_only[] = {
            "STIFFNESS_SPLINE",     "DAMPING_SPLINE",         "MAXIMUM_PENETRATION",
            "STIFFNESS_EXPONENT",   "DAMPING_EXPONENT",       "INDENTATION_EXPONENT",
            "BOUNDARY_PENETRATION", "REBOUND_DAMPING_FACTOR", "DISSIPATION"};
        for (size_t k = 0; k < sizeof vendor_only / sizeof vendor_only[0]; ++k)
        {
            const app_law_arg* a = take(args, nargs, vendor_only[k]);
            if (a != NULL)
            {
                return law_fail(err, a->line, "%s belongs to RECURDYN or DYMORE", vendor_only[k]);
            }
        }
        return true;
    }
    app_contact_laws* l = calloc(1, sizeof *l);
    if (l == NULL)
    {
        return law_fail(err, line, "out of memory");
    }
    l->params = mc_default_force_model();
    l->line = line;
    const app_law_arg* rd = take(args, nargs, "RECURDYN");
    const app_law_arg* dy = take(args, nargs, "DYMORE");
    bool normal_user = has(args, nargs, "NORMAL_FUNCTION") || has(args, nargs, "NORMAL_ROUTINE");
    int chosen = (rd != NULL) + (dy != NULL) + normal_user;
    bool ok = true;
    if ((rd != NULL && rd->nval != 0) || (dy != NULL && dy->nval != 0))
    {
        ok = law_fail(err, rd != NULL && rd->nval != 0 ? rd->line : dy->line, "%s is a flag and takes no value",
                      rd != NULL && rd->nval != 0 ? "RECURDYN" : "DYMORE");
    }
    else if (chosen > 1)
    {
        ok = law_fail(err, line, "give one normal law: RECURDYN, DYMORE or NORMAL_FUNCTION=USER(...)");
    }
    l->normal = rd != NULL
                    ? APP_LAW_NORMAL_RECURDYN
                    : (dy != NULL ? APP_LAW_NORMAL_DYMORE : (normal_user ? APP_LAW_NORMAL_USER : APP_LAW_NORMAL_NONE));
    void* nf = NULL;
    void* ff = NULL;
    ok = ok && (l->normal != APP_LAW_NORMAL_RECURDYN && l->normal != APP_LAW_NORMAL_DYMORE
                    ? true
                    : vendor_params(args, nargs, l, line, err));
    ok = ok && user_pair(args, nargs, "NORMAL_FUNCTION", "NORMAL_ROUTINE", base_dir, scn_laws, l->normal_par,
                         &l->normal_npar, &nf, line, err);
    ok = ok && user_pair(args, nargs, "FRICTION_FUNCTION", "FRICTION_ROUTINE", base_dir, scn_laws, l->friction_par,
                         &l->friction_npar, &ff, line, err);
    ok = ok && friction_spline(args, nargs, l, err);
    if (!ok)
    {
        free(l);
        return false;
    }
    // dlsym returns object pointers; POSIX guarantees that they convert to function pointers
    memcpy(&l->normal_routine, &nf, sizeof nf);
    memcpy(&l->friction_routine, &ff, sizeof ff);
    *out = l;
    return true;
}

bool app_laws_parse_spline(int id, const app_law_arg* args, int nargs, int line, app_scenario_laws** scn_laws,
                           app_law_error* err)
{
    if (!ensure_data(scn_laws))
    {
        return law_fail(err, line, "out of memory");
    }
    app_scenario_laws* d = *scn_laws;
    for (int i = 0; i < d->spline_count; ++i)
    {
        if (d->splines[i].id == id)
        {
            return law_fail(err, line, "SPLINE/%d defined twice (first on line %d)", id, d->splines[i].line);
        }
    }
    const app_law_arg* xa = take(args, nargs, "X");
    const app_law_arg* ya = take(args, nargs, "Y");
    const app_law_arg* ma = take(args, nargs, "METHOD");
    if (xa == NULL || ya == NULL)
    {
        return law_fail(err, line, "SPLINE/%d needs X= and Y= (the points)", id);
    }
    if (xa->nval != ya->nval)
    {
        return law_fail(err, ya->line, "SPLINE/%d has %d X values and %d Y values", id, xa->nval, ya->nval);
    }
    mc_curve_method method = MC_CURVE_CUBIC;
    if (ma != NULL)
    {
        char v[32];
        upper(v, sizeof v, ma->nval == 1 ? ma->vals[0] : "");
        method = strcmp(v, "LINEAR") == 0 ? MC_CURVE_LINEAR : (strcmp(v, "AKIMA") == 0 ? MC_CURVE_AKIMA : method);
        if (strcmp(v, "LINEAR") != 0 && strcmp(v, "AKIMA") != 0 && strcmp(v, "CUBIC") != 0)
        {
            return law_fail(err, ma->line, "METHOD is LINEAR, CUBIC (Adams CUBSPL) or AKIMA (Adams AKISPL)");
        }
    }
    int n = xa->nval;
    double* xy = malloc((size_t)(2 * (n > 0 ? n : 1)) * sizeof *xy);
    if (xy == NULL)
    {
        return law_fail(err, line, "out of memory");
    }
    for (int i = 0; i < n; ++i)
    {
        if (!parse_number(xa->vals[i], &xy[i]) || !parse_number(ya->vals[i], &xy[n + i]))
        {
            bool bad_x = !parse_number(xa->vals[i], &xy[i]);
            free(xy);
            return law_fail(err, bad_x ? xa->line : ya->line, "bad number '%s' in SPLINE/%d %s",
                            bad_x ? xa->vals[i] : ya->vals[i], id, bad_x ? "X" : "Y");
        }
    }
    mc_curve* c = NULL;
    mc_error e;
    mc_status s = mc_curve_create(xy, xy + n, n, method, &c, &e);
    free(xy);
    if (s != MC_OK)
    {
        return law_fail(err, line, "SPLINE/%d: %s", id, e.message);
    }
    law_spline* ns = realloc(d->splines, (size_t)(d->spline_count + 1) * sizeof *ns);
    if (ns == NULL)
    {
        mc_curve_destroy(c);
        return law_fail(err, line, "out of memory");
    }
    d->splines = ns;
    ns[d->spline_count++] = (law_spline){id, line, c};
    return true;
}

static const mc_curve* find_spline(const app_scenario_laws* d, int id)
{
    for (int i = 0; d != NULL && i < d->spline_count; ++i)
    {
        if (d->splines[i].id == id)
        {
            return d->splines[i].curve;
        }
    }
    return NULL;
}

bool app_laws_resolve(app_contact_laws* l, const app_scenario_laws* d, int contact_id, app_law_error* err)
{
    if (l == NULL)
    {
        return true;
    }
    const int ids[3] = {l->stiffness_spline, l->damping_spline, l->friction_spline};
    static const char* const names[3] = {"STIFFNESS_SPLINE", "DAMPING_SPLINE", "FRICTION_SPLINE"};
    for (int k = 0; k < 3; ++k)
    {
        l->curves[k] = ids[k] != 0 ? find_spline(d, ids[k]) : NULL;
        if (ids[k] != 0 && l->curves[k] == NULL)
        {
            return contact_id > 0 ? law_fail(err, l->line, "CONTACT/%d: %s=%d: SPLINE/%d is not defined", contact_id,
                                             names[k], ids[k], ids[k])
                                  : law_fail(err, l->line, "%s=%d: SPLINE/%d is not defined", names[k], ids[k], ids[k]);
        }
    }
    if (l->normal == APP_LAW_NORMAL_RECURDYN || l->normal == APP_LAW_NORMAL_DYMORE)
    {
        mc_force_model m = mc_default_force_model();
        app_laws_apply(l, &m);
        mc_error e;
        if (mc_force_model_check(&m, &e) != MC_OK)
        {
            return contact_id > 0 ? law_fail(err, l->line, "CONTACT/%d: %s", contact_id, e.message)
                                  : law_fail(err, l->line, "%s", e.message);
        }
    }
    return true;
}

static double normal_adapter(const mc_contact_kinematics* kin, const mc_force_model* model, void* user_data)
{
    (void)model;
    const app_contact_laws* l = user_data;
    return l->normal_routine(kin, l->normal_par, l->normal_npar);
}

static void friction_adapter(const mc_contact_kinematics* kin, double fn, const mc_force_model* model, void* user_data,
                             mc_vec3* force, mc_vec3* torque)
{
    (void)model;
    const app_contact_laws* l = user_data;
    l->friction_routine(kin, fn, l->friction_par, l->friction_npar, force, torque);
}

void app_laws_apply(const app_contact_laws* l, mc_force_model* m)
{
    if (l == NULL)
    {
        return;
    }
    const mc_force_model* p = &l->params;
    if (l->normal == APP_LAW_NORMAL_RECURDYN || l->normal == APP_LAW_NORMAL_DYMORE)
    {
        m->normal_law = l->normal == APP_LAW_NORMAL_RECURDYN ? MC_NORMAL_RECURDYN : MC_NORMAL_DYMORE;
        m->stiffness = p->stiffness;
        m->exponent = p->exponent;
        m->damping = p->damping;
        m->dmax = p->dmax;
        m->damping_exponent = p->damping_exponent;
        m->indentation_exponent = p->indentation_exponent;
        m->rebound_damping_factor = p->rebound_damping_factor;
        m->max_penetration = p->max_penetration;
        m->dissipation = p->dissipation;
        m->stiffness_curve = l->curves[0];
        m->damping_curve = l->curves[1];
    }
    m->friction_curve = l->curves[2];
    m->friction_curve_kind = l->friction_kind;
    if (l->normal_routine != NULL || l->friction_routine != NULL)
    {
        m->user_data = (void*)(uintptr_t)l; // read only by the adapters
    }
    if (l->normal_routine != NULL)
    {
        m->normal_law = MC_NORMAL_USER;
        m->normal_fcn = normal_adapter;
    }
    if (l->friction_routine != NULL)
    {
        m->friction_fcn = friction_adapter;
    }
}

void app_laws_free_contact(app_contact_laws* laws)
{
    free(laws);
}

void app_laws_free_scenario(app_scenario_laws* d)
{
    if (d == NULL)
    {
        return;
    }
    for (int i = 0; i < d->spline_count; ++i)
    {
        mc_curve_destroy(d->splines[i].curve);
    }
    for (int i = 0; i < d->library_count; ++i)
    {
        dlclose(d->libraries[i]);
    }
    free(d->splines);
    free(d->libraries);
    free(d);
}

// ---------------------------------------------------------------------------------------------------------------
// The same keywords from one command-line text (`meshcontact force --law ... --splines ...`)
// ---------------------------------------------------------------------------------------------------------------

typedef struct text_args
{
    app_law_arg* args;
    int nargs;
    char** words; // every allocated string (keys and values)
    int nwords;
    bool* used;
} text_args;

static void text_args_free(text_args* t)
{
    for (int i = 0; i < t->nargs; ++i)
    {
        free((void*)t->args[i].vals);
    }
    for (int i = 0; i < t->nwords; ++i)
    {
        free(t->words[i]);
    }
    free(t->words);
    free(t->args);
    free(t->used);
    memset(t, 0, sizeof *t);
}

static char* keep_word(text_args* t, const char* s, size_t n)
{
    char** nw = realloc(t->words, (size_t)(t->nwords + 1) * sizeof *nw);
    char* w = malloc(n + 1);
    if (nw == NULL || w == NULL)
    {
        free(w);
        if (nw != NULL)
        {
            t->words = nw;
        }
        return NULL;
    }
    t->words = nw;
    memcpy(w, s, n);
    w[n] = '\0';
    nw[t->nwords++] = w;
    return w;
}

static bool starts_value(const char* w)
{
    return isdigit((unsigned char)w[0]) || w[0] == '-' || w[0] == '+' || w[0] == '.' || w[strlen(w) - 1] == ')';
}

/// Split "KEY=v1,v2, FLAG, KEY2="quoted"" as the scenario tokenizer does (values after a KEY= that look numeric or
/// close a USER( list belong to it; other bare words are flags). Keys in capitals.
static bool split_text(const char* text, text_args* t, app_law_error* err)
{
    memset(t, 0, sizeof *t);
    size_t cap = strlen(text) + 1;
    t->args = calloc(cap, sizeof *t->args);
    t->used = calloc(cap, sizeof *t->used);
    if (t->args == NULL || t->used == NULL)
    {
        return law_fail(err, 0, "out of memory");
    }
    app_law_arg* cur = NULL;
    const char* s = text;
    for (;;)
    {
        while (*s == ',' || *s == ' ' || *s == '\t')
        {
            ++s;
        }
        if (*s == '\0')
        {
            return true;
        }
        const char* e = s;
        bool quoted = *s == '"';
        if (quoted)
        {
            e = strchr(s + 1, '"');
            if (e == NULL)
            {
                return law_fail(err, 0, "unterminated quoted text in '%s'", text);
            }
        }
        else
        {
            while (*e != '\0' && *e != ',' && *e != ' ' && *e != '\t' && *e != '=')
            {
                ++e;
            }
        }
        char* w = quoted ? keep_word(t, s + 1, (size_t)(e - s - 1)) : keep_word(t, s, (size_t)(e - s));
        if (w == NULL)
        {
            return law_fail(err, 0, "out of memory");
        }
        s = quoted ? e + 1 : e;
        bool is_key = !quoted && *s == '=';
        if (is_key)
        {
            ++s;
        }
        // a value: the first word after KEY=, then quoted or numeric words (and a USER( list's closing word)
        bool as_value = cur != NULL && (cur->nval == 0 || quoted || starts_value(w));
        if (is_key || !as_value)
        {
            char* key = keep_word(t, w, strlen(w));
            if (key == NULL)
            {
                return law_fail(err, 0, "out of memory");
            }
            upper(key, strlen(key) + 1, w);
            cur = &t->args[t->nargs];
            cur->key = key;
            cur->line = 0;
            cur->used = &t->used[t->nargs];
            t->nargs++;
            if (!is_key)
            {
                cur = NULL; // a flag
            }
            continue;
        }
        char** nv = realloc((void*)cur->vals, (size_t)(cur->nval + 1) * sizeof *nv);
        if (nv == NULL)
        {
            return law_fail(err, 0, "out of memory");
        }
        nv[cur->nval++] = w;
        cur->vals = nv;
    }
}

static bool all_used(const text_args* t, const char* what, app_law_error* err)
{
    for (int i = 0; i < t->nargs; ++i)
    {
        if (!*t->args[i].used)
        {
            return law_fail(err, 0, "unknown argument '%s' in %s", t->args[i].key, what);
        }
    }
    return true;
}

bool app_laws_from_text(const char* splines, const char* law, const char* base_dir, app_scenario_laws** data,
                        app_contact_laws** laws, app_law_error* err)
{
    *laws = NULL;
    // splines: "id, X=..., Y=..., [METHOD=...]; id, ..."
    for (const char* s = splines; s != NULL && *s != '\0';)
    {
        const char* end = strchr(s, ';');
        size_t n = end != NULL ? (size_t)(end - s) : strlen(s);
        char* one = malloc(n + 1);
        if (one == NULL)
        {
            return law_fail(err, 0, "out of memory");
        }
        memcpy(one, s, n);
        one[n] = '\0';
        char* rest = NULL;
        long id = strtol(one, &rest, 10);
        text_args t;
        bool ok = rest != one && id > 0 && id <= 1000000000L;
        ok = ok ? split_text(rest, &t, err) : law_fail(err, 0, "--splines: each curve starts with its id: '%s'", one);
        ok = ok && app_laws_parse_spline((int)id, t.args, t.nargs, 0, data, err) && all_used(&t, "SPLINE", err);
        if (rest != one && id > 0 && id <= 1000000000L)
        {
            text_args_free(&t);
        }
        free(one);
        if (!ok)
        {
            return false;
        }
        s = end != NULL ? end + 1 : s + n;
    }
    if (law == NULL)
    {
        return true;
    }
    text_args t;
    bool ok = split_text(law, &t, err) && app_laws_parse_contact(t.args, t.nargs, 0, base_dir, data, laws, err) &&
              all_used(&t, "--law", err);
    text_args_free(&t);
    if (ok && *laws == NULL)
    {
        ok = law_fail(err, 0,
                      "--law names none of RECURDYN, DYMORE, NORMAL_FUNCTION, FRICTION_FUNCTION, "
                      "FRICTION_SPLINE");
    }
    if (ok && !app_laws_resolve(*laws, *data, 0, err))
    {
        ok = false;
    }
    if (!ok)
    {
        app_laws_free_contact(*laws);
        *laws = NULL;
    }
    return ok;
}
