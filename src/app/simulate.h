// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The small rigid-body integrator of `meshcontact simulate`: builds a world from a scenario, integrates it with
// fixed-step classical Runge-Kutta, follows its contacts (summaries, peaks, incidents with impulses, tracks,
// warnings) and writes a CSV of motion and forces, the contact outputs and an SVG plot of the contacts against time.
// Part of the command-line tool, not of the library.
#pragma once

#include "src/app/plot.h"
#include "src/app/scenario.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * INTEGRATOR
 * ==========
 * State of a moving part: position p of its centre of mass, orientation q (unit quaternion, part frame to ground),
 * velocity v and angular velocity w, both in the ground frame. Equations of motion (Newton-Euler):
 *
 *     dp/dt = v                        dq/dt = 1/2 (0, w) * q
 *     dv/dt = F / m + gravity          dw/dt = I_w^-1 (T - w x I_w w),   I_w = R I_body R^T
 *
 * with F, T the contact force and the torque about the centre of mass from mc_world_evaluate (summed over the
 * part's geometries and moved to the centre of mass). Classical fourth-order Runge-Kutta with a fixed step: the
 * contact forces are evaluated at each of the four stages (the world is re-posed for each), q is renormalised after
 * each step. RK4 was chosen over a symplectic Euler because the forces depend on velocity (damping, friction,
 * POISSON's hysteresis), and with the step rule below its energy error per impact is far below 1%.
 * Deterministic: fixed step, fixed evaluation order, and the world is bitwise reproducible.
 *
 * Step size: h = INTEGRATOR HMAX if given, else 1/40 of the shortest time scale estimated over the contacts:
 * for each contact and each moving part in it, with m the part's mass, V = |v0| + |gravity| END a bound on the
 * approach speed, k the stiffness (PENALTY for POISSON, with exponent 1) and e the exponent:
 *   - impact duration  pi g_max / V,  with g_max = ((e + 1) m V^2 / (2 k))^(1 / (e + 1)) (exact for e = 1);
 *   - half-period of resting contact  pi sqrt(m / k_lin), with k_lin = e k g_eq^(e - 1), g_eq = (m |gravity| /
 *     k)^(1 / e);
 *   - damping time m / DAMPING.
 * The step is then shortened so that a whole number of steps fits in each output interval (END / STEPS). A HMAX
 * longer than 1/10 of that time scale gives a warning.
 */

/*
 * BDF (INTEGRATOR/BDF or GSTIFF, the default): a variable-step, variable-order (1 to 5) BDF (sim_bdf.c: ode15s'
 * NDF with a block-sparse Newton matrix, sim_bsm.c; GSL's msbdf with MC_SIM_BDF=msbdf) on the same equations, with
 * these state variables per moving part: p, v, w as above and, instead of q, a rotation vector phi with q = exp(phi)
 * q_ref, dphi/dt = J^-1(phi) w (J the left Jacobian of SO(3)). q is then a unit quaternion by construction, so nothing
 * needs renormalising inside the stepper's history (which a projection after each step would corrupt). When |phi|
 * passes 1 rad, q_ref takes the whole rotation, phi becomes 0 and the stepper restarts (order 1). Error control:
 * absolute, per component, ERROR times a scale: positions the smallest estimated impact penetration g_max of the
 * contacts (above), angles that over the part's radius, velocities the largest approach speed bound V, angular
 * velocities that over the radius (default ERROR: APP_SIM_DEFAULT_ERROR). The Newton iteration matrix uses the ODE's
 * Jacobian: the rigid-body terms in closed form and the contact terms assembled from per-body-pair blocks
 * d(wrench)/d(pose, twist) (mc_world_get_jacobian; with stiction, which the library does not differentiate, forward
 * differences of mc_world_evaluate: sim_jacobian.h). Steps: from HINIT (default a tenth of the contact time scale), at
 * most HMAX (default the output interval) and never past an output time. No missed impacts: (1) a step that starts with
 * a contact separated and ends deeper than 0.1 g_max is rejected and retried shorter, from order 1; (2) each step is
 * limited so that no point of a part moves, relative to another part, more than half the smallest extent of the
 * thinnest contact geometry (its mesh-frame bounding box) at the current speeds plus what gravity adds (the library's
 * step hint can be added, APP_SIM_USE_STEP_HINT in sim_implicit.c: off, as it costs more than it saves on the shipped
 * scenarios). A step shorter than HMIN (default 1e-9 of the contact time scale) stops the run with a message naming the
 * time and the contact with the largest force. Incident impulses are the trapezoidal rule over the accepted steps (the
 * ends' forces), not the integrator's own quadrature: a bounce's impulse matches the momentum change to the order of
 * the steps, not to rounding.
 */

/// Default INTEGRATOR/ERROR of the BDF integrator (see above).
#define APP_SIM_DEFAULT_ERROR 1e-5

/// Counters of the integration so far.
typedef struct app_sim_step_stats
{
    uint64_t steps;           ///< accepted steps
    uint64_t failed_steps;    ///< BDF steps the stepper rejected (error test, Newton iteration)
    uint64_t newton_failures; ///< of failed_steps: those whose Newton iteration failed (the rest failed the error test)
    uint64_t onset_rejections; ///< BDF steps retaken by the contact predictor (a trial state too deep at a new contact)
                               ///< or retried shorter (an accepted step ending too deep at one)
    uint64_t jacobians;        ///< BDF Jacobian evaluations
    uint64_t rebases;          ///< BDF rotation vectors moved into the reference orientation
    double min_step;           ///< shortest accepted step (RK4: the step)
    double max_step;           ///< longest accepted step
} app_sim_step_stats;

/// Options of a simulation run.
typedef struct app_sim_options
{
    int worker_count; ///< threads of the world (0: the OpenMP default)
    /// Called for a warning (one line, no newline), may be NULL.
    void (*warn)(const char* message, void* user);
    void* warn_user; ///< passed to warn
    /// Called after each output row with the fraction of END reached, may be NULL.
    void (*progress)(double fraction, void* user);
    void* progress_user; ///< passed to progress
} app_sim_options;

/// @return no warnings, no progress, default threads.
app_sim_options app_sim_default_options(void);

/// The dominant region of a contact (the one with the largest normal force; the first in the world's order, i.e. the
/// largest volume, on ties and when no region has a force). All zero without a region. Ground frame.
typedef struct app_sim_region_view
{
    mc_vec3 point;       ///< contact point (the region's centroid)
    mc_vec3 normal;      ///< unit normal from I into J
    double depth;        ///< penetration depth g (length)
    double rate;         ///< penetration rate gdot (length / time), positive approaching
    double area;         ///< contact area A (length^2)
    double volume;       ///< overlap volume (length^3)
    double fn;           ///< normal force Fn = fn_stiffness + fn_damping
    double fn_stiffness; ///< the elastic part: k g^e (IMPACT) or p g (POISSON)
    double fn_damping;   ///< the rest, Fn - fn_stiffness: the damping term of IMPACT (negative where the clamp
                         ///< max(0, ...) cuts it) or POISSON's hysteresis (negative while separating)
    double ft;           ///< |friction force|
    double slip;         ///< slip speed (length / time)
    bool rejected;       ///< failed A > 2 g^2: no force
} app_sim_region_view;

/// Summary of one scenario contact at the current state.
typedef struct app_sim_contact_summary
{
    double normal_force;          ///< sum of Fn over the contact's regions (force units)
    mc_vec3 force_on_j;           ///< total force (normal + friction) on the J geometries, ground frame
    mc_vec3 friction_on_j;        ///< total friction force on the J geometries, ground frame
    mc_vec3 torque_on_j;          ///< total torque on the J parts about their centres of mass, ground frame
    int regions;                  ///< regions (including rejected ones)
    int rejected;                 ///< regions that failed A > 2 g^2
    double depth;                 ///< largest penetration depth over the regions (length), 0 without contact
    double volume;                ///< summed overlap volume (length^3)
    app_sim_region_view dominant; ///< the region with the largest normal force
} app_sim_contact_summary;

/// Maxima of a contact's quantities over the integration steps since the last app_sim_take_peaks (the state at
/// the end of each step, the samples the plot draws), so that an impact between two output times is not lost.
typedef struct app_sim_contact_peaks
{
    double fn_max;      ///< largest summed normal force
    double fn_max_time; ///< when (the first time it was reached)
    double ft_max;      ///< largest |summed friction force|
    double depth_max;   ///< largest depth
    double slip_max;    ///< largest slip speed of the dominant region
} app_sim_contact_peaks;

/// One contact incident (as Adams' contact incidents): a time span during which a scenario contact has at least one
/// region (overlap) at some Runge-Kutta stage of every integration step. Times are step boundaries.
typedef struct app_sim_incident
{
    int contact;             ///< index into scn->contacts
    double start;            ///< beginning of the first step in contact
    double end;              ///< end of the last step in contact (the current time while open)
    bool open;               ///< still in contact at the current time
    int64_t steps;           ///< integration steps in contact
    double max_depth;        ///< largest depth at the end of a step
    double max_fn;           ///< largest summed normal force at the end of a step
    double max_fn_time;      ///< when
    double max_ft;           ///< largest |summed friction force| at the end of a step
    double normal_impulse;   ///< integral of the summed Fn over time (force * time)
    double friction_impulse; ///< |integral of the summed friction force on J| (force * time)
    mc_vec3 impulse;         ///< integral of the total force on J (normal + friction), ground frame
    /// depth at the end of the incident's first step (the first-contact penetration: what the contact predictor
    /// keeps small); 0 for an incident present at the start
    double onset_depth;
    /// the impact penetration expected from the approach rate at that step, ((e + 1) m gdot^2 / (2 k))^(1/(e + 1))
    /// (m: the contact's lightest moving part); 0 when not approaching or for an incident present at the start
    double impact_depth;
} app_sim_incident;

/// The impulses are integrated with the Runge-Kutta weights of the stage forces, h/6 (F1 + 2 F2 + 2 F3 + F4): the
/// very sum the integrator adds to the momentum, so a part's momentum change over an incident is exactly its
/// contact impulse plus m g (end - start) (up to rounding) when no other contact acts on it.

/// A simulation in progress.
typedef struct app_sim app_sim;

/// Build meshes, bodies and contacts from a scenario and evaluate the forces at time 0.
/// @param scn a parsed scenario; it must outlive the simulation
/// @param options may be NULL for defaults
/// @param out receives the simulation on success
/// @param err receives `<file>:<line>: <what>` on failure (may be NULL), @param err_cap its size
bool app_sim_create(const app_scenario* scn, const app_sim_options* options, app_sim** out, char* err, size_t err_cap);

/// Destroy a simulation (its world and meshes). NULL is ignored.
void app_sim_destroy(app_sim* sim);

/// @return the integration step chosen at creation (see the comment above), before fitting to output intervals
/// (BDF: the first step).
double app_sim_get_step_size(const app_sim* sim);
/// @return the time scale estimated from the contacts (0 when no contact gives one).
double app_sim_get_time_scale(const app_sim* sim);
/// @return the current time.
double app_sim_get_time(const app_sim* sim);
/// @return the scenario the simulation was created from.
const app_scenario* app_sim_get_scenario(const app_sim* sim);

/// Advance by one RK4 step of length h (INTEGRATOR/BDF: by as many BDF steps as reach the time h later). The forces
/// are then evaluated at the new state.
/// @return false (with a message) when the world fails or the state becomes non-finite
bool app_sim_step(app_sim* sim, double h, char* err, size_t err_cap);

/// State of a part (index into scn->parts) at the current time: pose of its centre of mass frame, ground-frame
/// velocity and angular velocity, and the contact wrench (torque about the centre of mass, ground frame). Any
/// pointer may be NULL.
void app_sim_get_part(const app_sim* sim, int part_index, mc_pose* pose, mc_twist* twist, mc_wrench* wrench);

/// Mass properties of a part (index into scn->parts; zero for a ground part): mass, centre of mass in the part
/// frame (zero unless the part has DENSITY) and inertia about the centre of mass in the part frame. Any pointer may
/// be NULL.
void app_sim_get_mass_properties(const app_sim* sim, int part_index, double* mass, mc_vec3* cm, mc_mat33* inertia);

/// Summary of a scenario contact (index into scn->contacts) at the current time.
app_sim_contact_summary app_sim_get_contact(const app_sim* sim, int contact_index);

/// Copy the peaks of every scenario contact (scn->contact_count entries) into out and restart them empty (zero) from
/// the current time: the next ones cover the steps after it. app_sim_create starts them with the state at time 0.
/// @param out may be NULL (only restart)
void app_sim_take_peaks(app_sim* sim, app_sim_contact_peaks* out);

/// @return the incidents so far, in the order they started (contacts in scenario order at equal starts); *count
/// receives their number. Valid until the next app_sim_step.
const app_sim_incident* app_sim_get_incidents(const app_sim* sim, int* count);

/// @return the warnings so far (the scenario's, set-up and run warnings), each one line; *count their number.
const char* const* app_sim_get_warnings(const app_sim* sim, int* count);

/// A region of the state at the end of the last step, with its scenario contact and its track: regions are followed
/// from step to step (a region continues the nearest track of its contact whose last point lies within the sum of
/// the two equivalent radii; otherwise it starts a new one), so a track's points are the path of one contact point.
typedef struct app_sim_tracked_region
{
    int contact;              ///< index into scn->contacts
    int track;                ///< track id, from 1 per contact, never reused
    mc_contact_region region; ///< the world's record (point, normal, depth, forces, ...)
} app_sim_tracked_region;

/// @return the regions of the current state (the end of the last step, or time 0).
int app_sim_get_tracked_region_count(const app_sim* sim);
/// Region k (< app_sim_get_tracked_region_count) of the current state. @return false when k is out of range
bool app_sim_get_tracked_region(const app_sim* sim, int k, app_sim_tracked_region* out);

/// Legend text of a scenario contact: `CONTACT/id: PART/a <shape> - PART/b <shape>` (the I and J sides; a shape is
/// the file's base name or the primitive's name), truncated to cap.
void app_sim_contact_label(const app_sim* sim, int contact_index, char* out, size_t cap);

/// Most integration steps a run may take (END / step): more is refused by app_sim_create with the figure (at a
/// microsecond per step, 1e12 steps are eleven days).
#define APP_SIM_MAX_STEPS 1e12

/// @return the integration steps per output interval (the step is END / STEPS / this).
int64_t app_sim_get_substeps(const app_sim* sim);

/// The geometry of GRAPHICS gi (index into scn->graphics) as the contacts use it: its mesh (NULL for ANALYTIC
/// shapes and PLANE, which have none) and, in *mesh_in_body, the pose of the mesh frame (or of the exact shape's
/// frame) in the part's centre of mass frame (the frame of app_sim_get_part's pose).
const mc_mesh* app_sim_get_graphics_mesh(const app_sim* sim, int gi, mc_pose* mesh_in_body);

/// @return the number of mc_world_evaluate calls so far.
uint64_t app_sim_get_evaluations(const app_sim* sim);

/// @return the integration counters so far.
app_sim_step_stats app_sim_get_step_stats(const app_sim* sim);

/// JOINT reactions and MOTION driver forces at the current time (app_mb_get_reactions, sim_mb.h: per joint and per
/// motion of scn->mech). @return false with a message, also when the scenario has no JOINT.
bool app_sim_get_reactions(const app_sim* sim, mc_wrench* joints, double* motions, char* err, size_t err_cap);

/// Redundant constraint equations of the JOINTs' loops (app_mb_redundant_count; 0 without JOINTs).
int app_sim_get_redundant_constraints(const app_sim* sim);

/// Advance by one accepted BDF step towards t_end (never past it), for a simulation created with INTEGRATOR/BDF.
/// The forces are then evaluated at the new state.
/// @return false (with a message) when the world fails or the integrator cannot meet its tolerance
bool app_sim_step_bdf(app_sim* sim, double t_end, char* err, size_t err_cap);

// The BDF's ODE, for tests (INTEGRATOR/BDF only; 0 or false otherwise). The state: per moving part in scenario
// order, 12 numbers: centre of mass position, rotation vector from the part's reference orientation, velocity and
// angular velocity (ground frame).

/// @return the number of ODE states (12 per moving part).
int app_sim_ode_size(const app_sim* sim);
/// Copy the current ODE state (app_sim_ode_size numbers) into y.
void app_sim_ode_state(const app_sim* sim, double* y);
/// The right-hand side at y (evaluates the world there). @return false when the evaluation fails
bool app_sim_ode_rhs(app_sim* sim, const double* y, double* dydt);
/// The Jacobian the BDF's Newton iteration uses at y (n x n, row-major, n = app_sim_ode_size).
bool app_sim_ode_jacobian(app_sim* sim, const double* y, double* dfdy);

/// Outputs of app_sim_run_outputs; every member may be NULL.
typedef struct app_sim_outputs
{
    FILE* csv;            ///< motion CSV: a row at every output time (see csv columns in `meshcontact simulate --help`)
    FILE* contacts_csv;   ///< per-contact CSV (app_sim_write_contacts_header / _rows) at every output time
    const char* svg_path; ///< the plot, written at the end (normal force, friction force, depth, incidents)
    FILE* tracks_csv;     ///< contact tracks (app_sim_write_tracks_header / _rows) at every output time
    struct app_anim* anim; ///< animation recorder (anim_gltf.h): given every step and output time
} app_sim_outputs;

/// Run from the current time to END: a row of each CSV at every output time (time 0 included when starting there),
/// the contacts sampled at every integration step for the plot and the peak columns; open incidents get END as
/// their end; after the run a warning for each contact whose depth stayed below a faceting tolerance.
/// @return false with a message on failure
bool app_sim_run_outputs(app_sim* sim, const app_sim_outputs* outputs, char* err, size_t err_cap);

/// app_sim_run_outputs with a motion CSV and a plot only (either may be NULL).
bool app_sim_run(app_sim* sim, FILE* csv, const char* svg_path, char* err, size_t err_cap);

// Writers of the contact outputs (sim_report.c).

/// Header of the per-contact CSV (one row per contact and output time; columns documented in
/// `meshcontact simulate --help`).
void app_sim_write_contacts_header(const app_sim* sim, FILE* f);
/// Rows of the per-contact CSV at the current time: one per scenario contact, with its peaks since the last output
/// time (peaks: scn->contact_count entries from app_sim_take_peaks).
void app_sim_write_contacts_rows(const app_sim* sim, FILE* f, const app_sim_contact_peaks* peaks);
/// Header of the tracks CSV: time, contact, track, the point, the normal force, depth and area.
void app_sim_write_tracks_header(const app_sim* sim, FILE* f);
/// Rows of the tracks CSV at the current time: one per region (app_sim_get_tracked_region).
void app_sim_write_tracks_rows(const app_sim* sim, FILE* f);
/// The incidents as CSV (header and one row per incident).
void app_sim_write_incidents_csv(const app_sim* sim, FILE* f);
/// One JSON object: scenario, step, warnings, contacts (labels, largest force and depth, incident count) and the
/// incidents.
void app_sim_write_json(const app_sim* sim, FILE* f);
