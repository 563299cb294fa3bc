// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's implicit integrator: a variable-step, variable-order (1 to 5) BDF in the NDF form of MATLAB's
// ode15s, with a block-sparse Newton matrix, one accepted step at a time, absolute error control per component,
// reset after a discontinuity. GSL's dense msbdf stays behind the same interface (SIM_BDF_METHOD_MSBDF) for
// comparison. Part of the command-line tool, not of the library.
#pragma once

#include "src/app/sim_bsm.h"

#include <stdbool.h>
#include <stddef.h>

/// Right-hand side dy/dt = f(t, y). @return 0, or non-zero to stop the integration (the caller keeps the reason)
typedef int sim_bdf_rhs(double t, const double* y, double* dydt, void* user);

/// Jacobian df/dy of an autonomous system, added into `dfdy` (blocks of def.block_size; the integrator clears it
/// before the call, so only the blocks written are present). @return as sim_bdf_rhs
typedef int sim_bdf_jac(double t, const double* y, sim_bsm* dfdy, void* user);

/// The formula.
typedef enum sim_bdf_method
{
    SIM_BDF_METHOD_NDF = 0,   ///< numerical differentiation formulas (ode15s' default: BDF with kappa terms)
    SIM_BDF_METHOD_BDF = 1,   ///< the classical BDF (kappa = 0), same code
    SIM_BDF_METHOD_MSBDF = 2, ///< GSL's msbdf (Nordsieck BDF, dense Jacobian and LU: cost grows as n^3)
} sim_bdf_method;

/// What sim_bdf_create needs. Start from sim_bdf_default_def().
typedef struct sim_bdf_def
{
    size_t n;                ///< equations (a multiple of block_size)
    int block_size;          ///< block size of the Jacobian (12: one moving part)
    sim_bdf_rhs* rhs;        ///< right-hand side
    sim_bdf_jac* jac;        ///< Jacobian
    void* user;              ///< passed to rhs and jac
    const double* abs_scale; ///< n positive scales (copied): the local error of y_i is kept below error * abs_scale[i]
    double error;            ///< the tolerance (> 0)
    double hinit;            ///< the first step (> 0)
    double hmin;             ///< a step that must shrink below this fails (SIM_BDF_FAILED); 0: never
    double max_bytes;        ///< the Newton matrix's factors may use at most this (bytes); <= 0: no limit
    int max_order;           ///< 1 to 5 (0: 5)
    sim_bdf_method method;   ///< formula
    bool fixed;              ///< tests of the formulas: every converged step accepted at the asked step and order (no
                             ///< error test, no step or order change); start with sim_bdf_set_history
} sim_bdf_def;

/// @return a def with n = 0, block_size 12, error 1e-5, hinit 1e-3, no hmin, no memory limit, order 5, NDF
sim_bdf_def sim_bdf_default_def(void);

/// An integrator in progress.
typedef struct sim_bdf sim_bdf;

/// Create an integrator. @return NULL when out of memory or the def is invalid
sim_bdf* sim_bdf_create(const sim_bdf_def* def);

/// Free an integrator. NULL is ignored.
void sim_bdf_destroy(sim_bdf* b);

/// Outcome of sim_bdf_step.
typedef enum sim_bdf_status
{
    SIM_BDF_OK = 0,        ///< one step accepted
    SIM_BDF_STOPPED = 1,   ///< the right-hand side or the Jacobian asked to stop
    SIM_BDF_FAILED = 2,    ///< the step fell below hmin (error test or Newton iteration failing)
    SIM_BDF_TOO_LARGE = 3, ///< the Newton matrix's factors need more than def.max_bytes, or memory ran out
                           ///< (sim_bdf_message says how much)
} sim_bdf_status;

/// Take one accepted step from *t towards t1 (never past it: a step ending within 1e-6 of its length from t1 lands on
/// t1 exactly), at most *h long. On success *t and y are the new time and state and *h the step proposed next; on
/// failure *h is the step that failed. A y that differs from the integrator's last state restarts it at order 1.
sim_bdf_status sim_bdf_step(sim_bdf* b, double* t, double t1, double* h, double* y);

/// Start the history at time t from the order + 1 states y(t), y(t - h), ..., y(t - order h) (`states`, rows of n),
/// as if `order` steps of h had led there (tests of the formulas). @return false with MSBDF or a bad order
bool sim_bdf_set_history(sim_bdf* b, double t, double h, int order, const double* states);

/// Forget the history (after a discontinuity or a change of variables): the next step starts at order 1.
void sim_bdf_reset(sim_bdf* b);

/// @return the steps the stepper rejected (error test or Newton failures) so far.
unsigned long sim_bdf_failed_steps(const sim_bdf* b);

/// Why steps were rejected, and what the stepper did, so far (never reset).
typedef struct sim_bdf_counts
{
    unsigned long attempts;            ///< step attempts (accepted or not)
    unsigned long corrector_failures;  ///< attempts whose Newton iteration failed (divergence, too slow a rate,
                                       ///< a singular iteration matrix) with a fresh Jacobian: step halved
    unsigned long error_test_failures; ///< attempts that converged but failed the local error test
    unsigned long jacobians;           ///< Jacobian evaluations
    unsigned long factorizations;      ///< factorisations of the Newton matrix I - c J
    unsigned long rhs_evaluations;     ///< right-hand side evaluations (Newton iterations and restarts)
    unsigned long resets;              ///< sim_bdf_reset calls (the caller's restarts)
    int order;                         ///< the order of the last accepted step
} sim_bdf_counts;

/// @return the counters of the integration so far.
sim_bdf_counts sim_bdf_get_counts(const sim_bdf* b);

/// @return why the last step failed (SIM_BDF_FAILED, SIM_BDF_TOO_LARGE), or an empty string
const char* sim_bdf_message(const sim_bdf* b);

/// @return the figures of the last factorisation of the Newton matrix (zeros with SIM_BDF_METHOD_MSBDF)
sim_bslu_stats sim_bdf_factor_stats(const sim_bdf* b);

/// Bytes the integrator holds for n equations in blocks of `block` with `coupled` off-diagonal blocks in its Jacobian
/// and no fill-in (the history, the Newton vectors, the Jacobian and the factors). MSBDF: its two dense n x n
/// matrices.
double sim_bdf_bytes(sim_bdf_method method, size_t n, int block, size_t coupled);

/// The GSL msbdf back end (sim_msbdf.c), behind sim_bdf_create with SIM_BDF_METHOD_MSBDF.
typedef struct sim_msbdf sim_msbdf;
/// @return NULL when out of memory
sim_msbdf* sim_msbdf_create(const sim_bdf_def* def);
/// NULL is ignored.
void sim_msbdf_destroy(sim_msbdf* m);
/// As sim_bdf_step.
sim_bdf_status sim_msbdf_step(sim_msbdf* m, double* t, double t1, double* h, double* y);
/// As sim_bdf_reset (without counting).
void sim_msbdf_reset(sim_msbdf* m);
/// Failed steps so far, attempts, Newton failures, Jacobians.
void sim_msbdf_counts(const sim_msbdf* m, unsigned long* failed, sim_bdf_counts* c);
