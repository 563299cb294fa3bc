// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact laws of scenario files beyond Adams IMPACT and POISSON (issue 33): RecurDyn's standard force and DYMORE's
// force with their vendor parameter names, SPLINE statements (curves for stiffness, damping, friction), and Adams
// user routines (NORMAL_FUNCTION=USER(...), NORMAL_ROUTINE=library::function, FRICTION_FUNCTION, FRICTION_ROUTINE)
// loaded with dlopen / dlsym. The syntax is documented in scenario.h and src/app/README.md.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stddef.h>

/// A keyword argument of a statement as scenario.c holds it (a view: nothing is copied).
typedef struct app_law_arg
{
    const char* key;   ///< keyword in capitals
    char* const* vals; ///< its values as written
    int nval;          ///< entries of vals
    int line;          ///< line of the keyword
    bool* used;        ///< set when the laws parser takes the argument
} app_law_arg;

/// A parse failure: line (0: none) and message without the file name.
typedef struct app_law_error
{
    int line;          ///< 1-based line
    char message[480]; ///< what is wrong (no file name, no trailing newline)
} app_law_error;

/// Normal laws a CONTACT may select besides IMPACT and POISSON.
typedef enum app_law_normal
{
    APP_LAW_NORMAL_NONE = 0,     ///< IMPACT or POISSON (scenario.c)
    APP_LAW_NORMAL_RECURDYN = 1, ///< RECURDYN flag: RecurDyn's standard contact force
    APP_LAW_NORMAL_DYMORE = 2,   ///< DYMORE flag: DYMORE's contact force
    APP_LAW_NORMAL_USER = 3,     ///< NORMAL_FUNCTION=USER(...) with NORMAL_ROUTINE
} app_law_normal;

/// The laws of one CONTACT statement beyond IMPACT / POISSON (owned by the scenario's contact).
typedef struct app_contact_laws
{
    app_law_normal normal;                          ///< which normal law, or NONE
    mc_force_model params;                          ///< parameters of RECURDYN / DYMORE (mc_default_force_model based)
    int stiffness_spline;                           ///< SPLINE id of STIFFNESS_SPLINE (0: none)
    int damping_spline;                             ///< SPLINE id of DAMPING_SPLINE (0: none)
    int friction_spline;                            ///< SPLINE id of FRICTION_SPLINE (0: none)
    mc_friction_curve_kind friction_kind;           ///< FRICTION_SPLINE_TYPE
    const mc_curve* curves[3];                      ///< resolved stiffness, damping, friction curves
    double normal_par[MC_ROUTINE_MAX_PARAMETERS];   ///< NORMAL_FUNCTION=USER(...) values
    int normal_npar;                                ///< entries of normal_par (0: no user normal law)
    mc_normal_routine_fcn* normal_routine;          ///< NORMAL_ROUTINE's function
    double friction_par[MC_ROUTINE_MAX_PARAMETERS]; ///< FRICTION_FUNCTION=USER(...) values
    int friction_npar;                              ///< entries of friction_par (0: no user friction)
    mc_friction_routine_fcn* friction_routine;      ///< FRICTION_ROUTINE's function
    int line;                                       ///< the CONTACT statement's line
} app_contact_laws;

/// Scenario-wide data of the laws: SPLINE statements (their curves) and the routine libraries opened.
typedef struct app_scenario_laws app_scenario_laws;

/// Parse the law arguments of one CONTACT statement (marks the ones it takes as used).
/// @param base_dir directory that relative library paths are resolved against (NULL: as given)
/// @param scn_laws the scenario's law data (created on first use; libraries are opened into it)
/// @param out receives the contact's laws, or NULL when the statement uses none of them
/// @return false with *err filled on a bad argument, a missing library or symbol, or a wrong USER() list
bool app_laws_parse_contact(const app_law_arg* args, int nargs, int line, const char* base_dir,
                            app_scenario_laws** scn_laws, app_contact_laws** out, app_law_error* err);

/// Parse SPLINE/id, X=x1,x2,..., Y=y1,y2,..., [METHOD=LINEAR|CUBIC|AKIMA] into the scenario's law data.
bool app_laws_parse_spline(int id, const app_law_arg* args, int nargs, int line, app_scenario_laws** scn_laws,
                           app_law_error* err);

/// Resolve a contact's SPLINE references (after the whole file is read) and check its model with the library's
/// mc_force_model_check. @param contact_id for messages
bool app_laws_resolve(app_contact_laws* laws, const app_scenario_laws* scn_laws, int contact_id, app_law_error* err);

/// Put a contact's laws into a force model (normal law, parameters, curves, user routines as callbacks whose
/// user_data is `laws`). NULL laws leave the model unchanged.
void app_laws_apply(const app_contact_laws* laws, mc_force_model* model);

/// Free a contact's laws (NULL ignored).
void app_laws_free_contact(app_contact_laws* laws);

/// Free the scenario's law data: curves, and the libraries (dlclose). NULL ignored.
void app_laws_free_scenario(app_scenario_laws* scn_laws);

/// The same keywords from command-line texts (`meshcontact force --splines ... --law ...`).
/// @param splines NULL, or curves "id, X=..., Y=..., [METHOD=...]" separated by ';'
/// @param law NULL, or a CONTACT's law keywords ("RECURDYN, STIFFNESS=1e7, DAMPING=10, BOUNDARY_PENETRATION=1e-4")
/// @param base_dir directory for relative library paths (NULL: as given)
/// @param data the curves and libraries (free with app_laws_free_scenario, also on failure)
/// @param laws receives the laws (free with app_laws_free_contact); NULL when `law` is NULL
/// @return false with *err (line 0) on a bad text, a missing library or symbol, an undefined spline
bool app_laws_from_text(const char* splines, const char* law, const char* base_dir, app_scenario_laws** data,
                        app_contact_laws** laws, app_law_error* err);
