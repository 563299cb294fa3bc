// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The forces of a scenario's mechanism statements (SFORCE, VFORCE, VTORQUE, SPRINGDAMPER, with their function
// expressions, VARIABLEs and SPLINEs) for the simulator: scenario_mech.h says what each one is.
#pragma once

#include "src/app/scenario_mech.h"

#include <stddef.h>
#include <stdio.h>

/// The motion of a part as the simulator holds it: centre of mass, orientation, velocities, all in the ground frame.
typedef struct app_part_motion
{
    mc_vec3 p; ///< centre of mass
    mc_quat q; ///< body to ground
    mc_vec3 v; ///< velocity of the centre of mass
    mc_vec3 w; ///< angular velocity
} app_part_motion;

/// The force elements of one scenario (opaque).
typedef struct app_sim_forces app_sim_forces;

/// Create the force elements of `scn` (its splines' curves through include/meshcontact/law.h).
/// @param cm per part: the centre of mass in the part frame (markers are placed in the part frame)
/// @param initial per part: the motion at time 0 (a SPRINGDAMPER without LENGTH takes its length from it)
/// @param out receives NULL when the scenario has no force element, else the elements (app_sim_forces_destroy)
/// @return false with a message in err when a spline cannot be built
bool app_sim_forces_create(const app_scenario* scn, const mc_vec3* cm, const app_part_motion* initial,
                           app_sim_forces** out, char* err, size_t cap);

/// The motions the next app_sim_forces_apply reads: part_count entries, to be filled by the caller.
app_part_motion* app_sim_forces_motions(app_sim_forces* f);

/// Evaluate every force element at time t and the motions of app_sim_forces_motions.
/// @return the wrench on each part (force, torque about its centre of mass, ground frame; part_count entries, valid
///         until the next call), or NULL on a domain error of an expression (err names the element, the time, the
///         failing operation and where it is in the scenario file)
const mc_wrench* app_sim_forces_apply(app_sim_forces* f, double t, char* err, size_t cap);

/// The value of the marker measure `kind` at the motions of app_sim_forces_motions (for tests and outputs).
double app_sim_forces_measure(app_sim_forces* f, app_expr_measure kind, const int m[4]);

/// True when `scn` has force elements or VARIABLEs (app_sim_forces_create then makes an object).
bool app_sim_forces_needed(const app_scenario* scn);

/// The motion CSV's columns of the force elements and variables (each starting with a comma): `sforce<id>` (the
/// FUNCTION's value), `vforce<id>_fx,_fy,_fz` and `vtorque<id>_tx,_ty,_tz` (the components, along RM's axes),
/// `springdamper<id>` (the force or torque, positive pushing the markers apart), `variable<id>`. Nothing when
/// app_sim_forces_needed is false.
void app_sim_forces_csv_header(const app_scenario* scn, FILE* out);

/// The values of those columns at the motions of app_sim_forces_motions and time t (a variable that cannot be
/// evaluated there is written as nan).
void app_sim_forces_csv_row(app_sim_forces* f, double t, FILE* out);

/// Free (NULL is ignored).
void app_sim_forces_destroy(app_sim_forces* f);
