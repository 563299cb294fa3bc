// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The multibody model of a scenario with JOINTs and MOTIONs: Simbody (sim_mb.cpp; C++, application only) holds the
// parts as mobilized bodies, the joints as mobilizers or loop constraints, the motions as prescribed mobilities, and
// integrates; every other force (contacts, SFORCE, ...) comes from the simulator through a callback. Without Simbody
// (sim_mb_none.c) app_mb_create refuses JOINT with the package to install.
#pragma once

#include "src/app/sim_forces.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// The applied wrenches (force, torque about the centre of mass, ground frame; per part) at time t and the part
    /// motions `parts` (per part; ground parts as they are). @return false with a message in err to stop the run.
    typedef bool app_mb_force_fcn(void* user, double t, const app_part_motion* parts, mc_wrench* out, char* err,
                                  size_t cap);

    /// True when this build has the multibody library (Simbody).
    bool app_mb_available(void);

    /// A multibody model (opaque).
    typedef struct app_mb app_mb;

    /// What the model is made of: per part its mass, inertia about the centre of mass (body frame), centre of mass in
    /// the part frame and motion at time 0.
    typedef struct app_mb_def
    {
        const app_scenario* scn;        ///< the scenario (JOINT, MOTION, MARKER in scn->mech)
        const double* mass;             ///< per part
        const mc_mat33* inertia;        ///< per part
        const mc_vec3* cm;              ///< per part
        const app_part_motion* initial; ///< per part
        double accuracy;                ///< the integrator's relative accuracy
        app_mb_force_fcn* force;        ///< the applied wrenches
        void* user;                     ///< for force
    } app_mb_def;

    /// Build the model. @return false with a message naming the statement (a loop a joint cannot close, a motion on a
    /// joint that closes a loop, no Simbody in this build).
    bool app_mb_create(const app_mb_def* def, app_mb** out, char* err, size_t cap);

    /// Integrate to time t. @return false with a message (the force callback's, or the integrator's).
    bool app_mb_step_to(app_mb* mb, double t, char* err, size_t cap);

    /// The part motions at the current time (per part; centre of mass, orientation, velocities in the ground frame).
    void app_mb_get_motions(const app_mb* mb, app_part_motion* out);

    /// Constraint equations that repeat others (a planar loop's out-of-plane equations): kept, the reactions are then
    /// the minimum-norm set (sim_mb_loops.cpp).
    int app_mb_redundant_count(const app_mb* mb);

    /// Integration steps taken so far.
    long app_mb_step_count(const app_mb* mb);

    /// The outputs an engineer reads, at the current time: per JOINT (scn->mech order) the reaction on its I part at
    /// the I marker (force, torque; ground frame; the driver of a MOTION on it included), per MOTION the driver's
    /// force or torque along its joint's axis, on I relative to J (Adams' sign). @return false with a message.
    bool app_mb_get_reactions(const app_mb* mb, mc_wrench* joints, double* motions, char* err, size_t cap);

    /// The CSV columns of app_mb_csv_row: per JOINT jointN_fx,_fy,_fz,_tx,_ty,_tz, per MOTION motionN_f (nothing
    /// without JOINTs).
    void app_mb_csv_header(const app_scenario* scn, FILE* f);

    /// The values of app_mb_get_reactions as CSV fields (each one starts with a comma; nan when they fail).
    void app_mb_csv_row(const app_mb* mb, FILE* f);

    /// Free (NULL is ignored).
    void app_mb_destroy(app_mb* mb);

#ifdef __cplusplus
}
#endif
