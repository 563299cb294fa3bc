// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A thin wrapper of GSL's variable-step, variable-order BDF stepper (gsl_odeiv2 msbdf) for the simulator: one
// accepted step at a time, absolute error control per component, reset after a discontinuity. The only file that
// includes GSL. Part of the command-line tool, not of the library.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/// Right-hand side dy/dt = f(t, y). @return 0, or non-zero to stop the integration (the caller keeps the reason)
typedef int sim_bdf_rhs(double t, const double* y, double* dydt, void* user);
/// Jacobian df/dy (n x n, row-major: dfdy[i * n + j] = df_i / dy_j) of an autonomous system. @return as sim_bdf_rhs
typedef int sim_bdf_jac(double t, const double* y, double* dfdy, void* user);

/// An integrator in progress.
typedef struct sim_bdf sim_bdf;

/// Create a BDF integrator of n equations. The local error of component i is kept below error * abs_scale[i].
/// @param abs_scale n positive scales (copied)
/// @param error the tolerance (> 0)
/// @param hinit the first step (> 0)
/// @return NULL when out of memory
sim_bdf* sim_bdf_create(size_t n, sim_bdf_rhs* rhs, sim_bdf_jac* jac, void* user, const double* abs_scale, double error,
                        double hinit);

/// Free an integrator. NULL is ignored.
void sim_bdf_destroy(sim_bdf* b);

/// Outcome of sim_bdf_step.
typedef enum sim_bdf_status
{
    SIM_BDF_OK = 0,      ///< one step accepted
    SIM_BDF_STOPPED = 1, ///< the right-hand side or the Jacobian asked to stop
    SIM_BDF_FAILED = 2,  ///< the stepper failed (step size underflow, Newton iteration failing)
} sim_bdf_status;

/// Take one accepted step from *t towards t1 (never past it: the last step lands on t1 exactly), at most *h long.
/// On success *t and y are the new time and state and *h the step proposed next.
sim_bdf_status sim_bdf_step(sim_bdf* b, double* t, double t1, double* h, double* y);

/// Forget the history (after a discontinuity or a change of variables): the next step starts at order 1.
void sim_bdf_reset(sim_bdf* b);

/// @return the steps the stepper rejected (error test or Newton failures) so far.
unsigned long sim_bdf_failed_steps(const sim_bdf* b);

/// Why steps were rejected, and what the stepper did, so far (never reset).
typedef struct sim_bdf_counts
{
    unsigned long attempts;            ///< step attempts (accepted or not)
    unsigned long corrector_failures;  ///< attempts whose Newton iteration failed (3 iterations without
                                       ///< convergence, divergence, or a singular iteration matrix): step halved
    unsigned long error_test_failures; ///< attempts that converged but failed the local error test
    unsigned long jacobians;           ///< Jacobian evaluations the stepper asked for
    unsigned long resets;              ///< sim_bdf_reset calls (the caller's restarts)
} sim_bdf_counts;

/// @return the counters of the integration so far.
sim_bdf_counts sim_bdf_get_counts(const sim_bdf* b);
