// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's private state and the functions its files share (simulate.c, sim_setup.c, sim_step.c,
// sim_implicit.c, sim_outputs.c). Part of the command-line tool, not of the library; no file outside the simulator
// includes it.
#pragma once

#include "src/app/anim_gltf.h"
#include "src/app/scenario_laws.h"
#include "src/app/sim_bdf.h"
#include "src/app/sim_forces.h"
#include "src/app/sim_guard.h"
#include "src/app/sim_jacobian.h"
#include "src/app/sim_mb.h"
#include "src/app/sim_static.h"
#include "src/app/simulate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// State of one part (ground parts keep their initial state).
typedef struct rb_state
{
    mc_vec3 p; // centre of mass, ground frame
    mc_quat q; // body to ground
    mc_vec3 v; // ground frame
    mc_vec3 w; // ground frame
} rb_state;

/// Time derivative of rb_state.
typedef struct rb_deriv
{
    mc_vec3 dp;
    mc_quat dq;
    mc_vec3 dv;
    mc_vec3 dw;
} rb_deriv;

/// One world body: a GRAPHICS (with a flip state) on a part.
typedef struct sim_body
{
    int graphics;
    bool flip;
    int part;
    mc_pose local; // mesh frame in the part frame
    mc_body_id id;
} sim_body;

/// One world contact: the lists (or group) of one scenario contact.
typedef struct sim_wcontact
{
    mc_contact_id id;
    int contact; // scenario contact index
} sim_wcontact;

/// A contact track: a region followed from step to step (see update_tracks).
typedef struct sim_track
{
    int id;        // per contact, from 1
    int contact;   // scenario contact index
    mc_vec3 point; // last contact point
    double radius; // last equivalent radius
} sim_track;

struct app_sim
{
    const app_scenario* scn;
    app_sim_options opt;
    mc_world* world;
    mc_mesh** meshes;     // per GRAPHICS
    mc_pose* mesh_offset; // per GRAPHICS: mesh frame in the geometry frame (primitive conventions)
    sim_body* bodies;
    int body_count;
    sim_wcontact* wcontacts;
    int wcontact_count;
    mc_body_id* ids;
    mc_pose* body_poses;
    mc_twist* body_twists;
    mc_wrench* body_wrenches;
    mc_mat33* inv_inertia; // per part, body frame
    mc_mat33* inertia;     // per part, body frame (about the centre of mass)
    double* mass;          // per part
    mc_vec3* cm;           // per part: centre of mass in the part frame (0 unless DENSITY)
    rb_state* state;
    rb_state* tmp;
    rb_deriv* k[4];
    mc_wrench* part_wrench;                    // at the current state
    mc_wrench* stage_wrench;                   // scratch
    app_sim_contact_summary* summary;          // at the current state
    app_sim_contact_summary* stage_summary[4]; // [1..3]: at the Runge-Kutta stages of the step in progress
    app_sim_contact_peaks* peaks;              // per contact, since the last app_sim_take_peaks
    int* open_incident;                        // per contact: index into incidents, or -1
    mc_vec3* incident_ft;                      // per contact: friction impulse vector of the open incident
    bool* step_warned;                         // per contact: a too-short incident was reported
    bool* depth_warned;                        // per contact: an Adams depth off its region was reported
    app_sim_incident* incidents;
    int incident_count;
    int incident_cap;
    char** warnings;
    int warning_count;
    double* best_fn;      // per contact: scratch of summarize
    double* contact_mass; // per contact: smallest mass of a moving part in it (0: none)
    double* chord_tol;    // per GRAPHICS: faceting tolerance of a curved primitive, 0 for files and boxes
    mc_contact_region* regions;
    uint32_t region_cap;
    sim_track* tracks; // active tracks of every contact, in creation order
    int track_count;
    int track_cap;
    unsigned char* track_used; // track_cap: matched in the current update
    int* next_track;           // per contact: last track id given
    int* region_track;         // per region of the last step end: its track id
    int* region_contact;       // per region of the last step end: its scenario contact
    uint32_t region_track_cap; // entries of region_track and region_contact
    uint32_t tracked_regions;  // regions of the last step end
    double time;
    double h;
    int64_t substeps; ///< integration steps per output interval (h is then dt_out / substeps)
    double time_scale;
    uint64_t evaluations;
    // The BDF integrator (INTEGRATOR/BDF, see simulate.h and sim_bdf.c).
    sim_bdf* bdf;
    int* moving;                   // moving part indices
    int moving_count;              // entries of moving
    int* moving_of_part;           // per part: its index in moving, or -1 (ground)
    double* y;                     // 12 per moving part: p, phi, v, w (phi: rotation vector, q = exp(phi) q_ref)
    double* y_start;               // y at the start of the step in progress
    double* y_scale;               // absolute error scale per component
    mc_quat* q_ref;                // per part: the orientation phi is measured from
    double bdf_h;                  // the step the BDF proposes next
    double hmin;                   // shortest step before the run stops
    double hmax;                   // longest step
    double vel_scale;              // largest approach speed bound over the contacts (error scale of velocities)
    double gscale;                 // smallest estimated impact penetration (error scale of positions)
    double* contact_gmax;          // per contact: estimated impact penetration (error scale; onset rejection)
    bool* tessellate;              // per geometry: an ANALYTIC one in a pair the library does not compute exactly
    double thin;                   // thinnest contact geometry (tunnelling guard), INFINITY without one
    double* part_radius;           // per part: largest distance of its geometry from the centre of mass
    sim_jac_world jworld;          // the world as sim_contact_jacobian sees it
    bool* movable;                 // per body
    sim_jac_steps* jsteps;         // per body
    sim_jac_block* blocks;         // contact Jacobian blocks
    uint32_t block_cap;            // their capacity
    mc_jacobian_block* lib_blocks; // the library's blocks (mc_world_get_jacobian), converted into `blocks`
    uint32_t lib_block_cap;        // their capacity
    uint64_t fd_jacobians;         // Jacobians taken by finite differences (stiction: the library refuses)
    sim_jac_scratch jscratch;
    app_sim_step_stats stats;
    double* y_scratch_state;    // the y of the last Jacobian
    double error;               // the tolerance
    char bdf_err[400];          // why the right-hand side stopped
    bool onset_stop;            // the right-hand side stopped at a contact onset (see onset_check)
    double onset_time;          // then: the estimated onset time
    double onset_rate;          // then: the penetration rate at the trial state
    double onset_land;          // then: the penetration depth to land the retaken step at
    double onset_trial;         // then: the time of the trial state
    int onset_retakes;          // retakes of the step in progress by the predictor (none past APP_SIM_ONSET_RETAKES)
    app_sim_forces* forces;     // SFORCE, VFORCE, ... (sim_forces.c), NULL when the scenario has none
    double force_time;          // the time of the stage evaluate() gets (s->time for s->state itself)
    app_mb* mb;                 // JOINT, MOTION: the multibody model that integrates (sim_mb.cpp), NULL without joints
    app_part_motion* mb_motion; // per part: scratch of mb_step
    app_sim_static_report statics; // SIMULATE/STATIC (sim_static.c)
};

bool sim_set_err(char* err, size_t cap, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

void sim_warn(app_sim* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// Part of the world body `id` (bodies are created in order and never destroyed, so its slot is its index).
int sim_part_of_body(const app_sim* s, mc_body_id id);

/// The wrenches of the mechanism's force elements at state `st` (sim_forces.c); NULL with err on a domain error.
const mc_wrench* sim_mech_forces(app_sim* s, const rb_state* st, char* err, size_t cap);

/// Evaluate contact wrenches at state `st` and the derivative `d`. With `record`, keep the wrenches as the current
/// ones. The contact summaries go to sums (may be NULL).
bool sim_evaluate(app_sim* s, const rb_state* st, rb_deriv* d, bool record, app_sim_contact_summary* sums, char* err,
                  size_t cap);

/// Fold the current summary into the peaks.
void sim_update_peaks(app_sim* s);

/// Contact tracks, after each step: every region of the new state continues the nearest track of its contact whose
/// last point lies within the sum of the two equivalent radii (each track continued once; regions in the world's
/// fixed order), or starts a new track; tracks left without a region end. Deterministic: fixed orders only.
/// @return false when out of memory
bool sim_update_tracks(app_sim* s);

/// The impact penetration of contact c when it closes at `rate`: all the kinetic energy of the contact's lightest
/// part at that speed stored by the stiffness law, ((e + 1) m gdot^2 / (2 k))^(1 / (e + 1)); the contact's
/// scenario-wide bound (contact_gmax) when the law gives none.
double sim_impact_penetration(const app_sim* s, int c, double rate);

/// @return true when a contact of the scenario has STICTION = ON.
bool sim_has_stiction(const app_scenario* scn);

/// Accept the state just evaluated by sim_evaluate(s, s->state, s->k[0], true, sums, ...): commit the world's state
/// (stiction anchors) to it, then, when a contact has stiction, evaluate it again (the committed anchors change its
/// friction forces, and k[0] must be the derivative the next step starts from).
bool sim_commit_state(app_sim* s, app_sim_contact_summary* sums, char* err, size_t cap);

/// The bookkeeping of an accepted step from t_before of length h, the new state evaluated with its summary in
/// stage_summary[0] (s->summary still the step's start): incidents, peaks and tracks. @return false when out of memory
bool sim_finish_step(app_sim* s, double h, double t_before, char* err, size_t cap);

/// One output interval of the multibody model, then the contacts' summaries and incidents at its end.
bool sim_mechanism_step(app_sim* s, double h, char* err, size_t cap);

/// Set up the BDF integrator after the bodies and contacts exist. @return false with a message
bool sim_implicit_create(app_sim* s, char* err, size_t cap);

/// After a run: one warning per contact whose deepest penetration stayed below the faceting tolerance of one of its
/// curved primitives (its force then depends on how the facets lie more than on the depth).
void sim_warn_tolerances(app_sim* s);
