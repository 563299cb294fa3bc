// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SIMULATE/STATIC: the static equilibrium of a scenario (scenario.h), before its dynamic run or instead of it.
//
// METHOD. A damped Newton (Levenberg-Marquardt) iteration on the positions, velocities held at zero:
//   - Free parts (no JOINT): the unknowns are, per moving part, its centre of mass and a rotation vector (the BDF's
//     coordinates, sim_implicit.c); the residual is each part's net force and torque (gravity, contacts, SFORCE,
//     VFORCE, VTORQUE, SPRINGDAMPER), its Jacobian the BDF's: the library's contact Jacobian
//     (mc_world_get_jacobian) plus the force elements' by differences.
//   - Mechanisms (JOINTs, Simbody): not yet; app_mb_static refuses them with one line (the Simbody side, an
//     iteration on the model's mobilities, is unfinished).
//   Each iteration solves (J^T J + lambda diag(J^T J)) dx = -J^T r and keeps the step when it lowers |r|, else
//   raises lambda tenfold (lambda falls fivefold after a kept step): Gauss-Newton (Newton's quadratic convergence)
//   near the solution, a short gradient step far from it, and directions nothing resists (a frictionless part's
//   slide across a slope, its spin about the normal) stay where they are.
//   Converged when the largest force or torque imbalance (per part and component; per mobility for mechanisms) is
//   at most IMBALANCE and the last step moved no coordinate by more than ERROR, within MAXIT iterations (Adams'
//   EQUILIBRIUM controls and defaults). Otherwise the run stops with one line: iterations, the imbalance and
//   where it is largest.
//
// FRICTION. During the solve the world's analysis is MC_ANALYSIS_STATIC: COULOMB_FRICTION=DYNAMICS_ONLY is off.
// COULOMB_FRICTION=ON with STICTION=ON holds: the stiction springs (mc_stiction_force) stay anchored where the
// contacts were at the start pose (committed at time 0), so a part on a slope of angle a < atan(MU_STATIC) settles
// with the creep MAX_STICTION_DEFORMATION tan(a) / MU_STATIC along the slope, and friction carries m g sin(a); on a
// steeper slope the creep saturates, nothing holds the part and the solve stops (no equilibrium). A contact that
// is not touching at the start pose has no anchor, hence no stiction in the solve. ON without STICTION gives no
// friction at rest (the velocity law is zero at zero slip).
//
// AFTER. The state is the equilibrium, at rest, at time 0; the world's analysis is DYNAMIC again (kept STATIC for a
// STATIC alone, so its output row shows the static contact forces) and the stiction anchors are committed there
// (their creep kept): a SIMULATE/DYNAMIC that follows starts from it. The output row at time 0 is the equilibrium.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// What SIMULATE/STATIC found (app_sim_get_static).
    typedef struct app_sim_static_report
    {
        bool done;            ///< the solve ran and converged: the state is the equilibrium
        int iterations;       ///< iterations (Jacobians) taken
        int evaluations;      ///< residual evaluations
        double imbalance;     ///< largest force or torque imbalance at the end (force units, or force x length)
        double change;        ///< largest coordinate change of the last iteration
        char worst[160];      ///< where the imbalance is largest, e.g. "PART/2 force y" or "PART/3 mobility 1"
    } app_sim_static_report;

    /// One problem for sim_static_solve: n unknowns, increments from a current point the callbacks keep.
    typedef struct sim_static_problem
    {
        int n;      ///< unknowns
        void* user; ///< for the callbacks
        /// The residual at the current point moved by dx (n; all zero: the current point) into r (n, any units the
        /// Jacobian shares) and the imbalance f (n, force units, for the convergence test and the report).
        bool (*trial)(void* user, const double* dx, double* r, double* f, char* err, size_t cap);
        /// The last trial becomes the current point.
        void (*accept)(void* user);
        /// dr/dx at the current point (n x n, row-major); NULL: central differences of trial with steps fd_step.
        bool (*jacobian)(void* user, double* jac, char* err, size_t cap);
        double fd_step; ///< the difference step when jacobian is NULL
        /// The name of unknown k in messages ("PART/2 force y").
        void (*label)(void* user, int k, char* out, size_t cap);
    } sim_static_problem;

    /// The damped Newton iteration (see METHOD above) with the controls of SIMULATE/STATIC. On success the current
    /// point is the equilibrium. @return false with a message (iterations, imbalance, where) when it fails
    bool sim_static_solve(const sim_static_problem* pb, double imbalance, double error, int maxit,
                          app_sim_static_report* rep, char* err, size_t cap);

    typedef struct app_sim app_sim;
    typedef struct app_mb app_mb;

    /// SIMULATE/STATIC: find the equilibrium from the current state (time 0; see above). app_sim_run_outputs calls
    /// it first when the scenario has the statement. @return false with one line (the statement's line, the
    /// iterations, the imbalance and where it is largest) when there is none within MAXIT
    bool app_sim_static(app_sim* sim, char* err, size_t cap);

    /// @return the report of the last app_sim_static (all zero before it).
    const app_sim_static_report* app_sim_get_static(const app_sim* sim);

    /// The mechanism side of app_sim_static (sim_mb.cpp): refuses for now (not yet supported), with the reason in err.
    bool app_mb_static(app_mb* mb, double imbalance, double error, int maxit, app_sim_static_report* rep, char* err,
                       size_t cap);

#ifdef __cplusplus
}
#endif
