// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The small rigid-body integrator of `meshcontact simulate`: builds a world from a scenario, integrates it with
// fixed-step classical Runge-Kutta, and writes a CSV of motion and forces and an SVG plot of normal force against
// time. Part of the command-line tool, not of the library.
#pragma once

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

/// Summary of one scenario contact at the current state.
typedef struct app_sim_contact_summary
{
    double normal_force; ///< sum of Fn over the contact's regions (force units)
    mc_vec3 force_on_j;  ///< total force (normal + friction) on the J geometries, ground frame
    int regions;         ///< regions (including rejected ones)
    int rejected;        ///< regions that failed A > 2 g^2
    double depth;        ///< largest penetration depth over the regions (length), 0 without contact
} app_sim_contact_summary;

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

/// @return the integration step chosen at creation (see the comment above), before fitting to output intervals.
double app_sim_get_step_size(const app_sim* sim);
/// @return the time scale estimated from the contacts (0 when no contact gives one).
double app_sim_get_time_scale(const app_sim* sim);
/// @return the current time.
double app_sim_get_time(const app_sim* sim);

/// Advance by one RK4 step of length h. The forces are then evaluated at the new state.
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

/// Most integration steps a run may take (END / step): more is refused by app_sim_create with the figure (at a
/// microsecond per step, 1e12 steps are eleven days).
#define APP_SIM_MAX_STEPS 1e12

/// @return the integration steps per output interval (the step is END / STEPS / this).
int64_t app_sim_get_substeps(const app_sim* sim);

/// @return the number of mc_world_evaluate calls so far.
uint64_t app_sim_get_evaluations(const app_sim* sim);

/// Run from the current time to END: a CSV row at every output time (time 0 included when starting there), the
/// normal force of every contact sampled at every integration step for the plot.
/// @param csv may be NULL (no CSV)
/// @param svg_path may be NULL (no plot); written at the end
/// @return false with a message on failure
bool app_sim_run(app_sim* sim, FILE* csv, const char* svg_path, char* err, size_t err_cap);

/// One curve of a plot: y[k] at t[k], k < count.
typedef struct app_plot_series
{
    const char* label; ///< legend text
    const double* t;   ///< abscissae (increasing)
    const double* y;   ///< ordinates
    size_t count;      ///< points
} app_plot_series;

/// Pixel columns of the plot area of app_plot_write_svg (its curves keep four samples per column).
#define APP_PLOT_COLUMNS 700

/// Write an SVG line plot (axes, ticks, labels, legend), one polyline per series, decimated to the pixel columns
/// (each column keeps its minimum and maximum, so peaks survive).
/// @return false when the file cannot be written
bool app_plot_write_svg(const char* path, const char* title, const char* x_label, const char* y_label,
                        const app_plot_series* series, int series_count, double x_min, double x_max);
