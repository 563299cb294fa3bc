// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// GSL's msbdf stepper behind the interface of sim_bdf.h (SIM_BDF_METHOD_MSBDF): its dense Jacobian is the block-sparse
// one expanded, its iteration matrix dense LU, so memory grows as n^2 and time as n^3.
// Based on: the Nordsieck-form BDF of Byrne and Hindmarsh (1975) as implemented by GSL's gsl_odeiv2 msbdf.
#include "src/app/sim_bdf.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <stdlib.h>

struct sim_msbdf
{
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver* driver;
    gsl_odeiv2_step_type counting; // msbdf with its apply wrapped to count corrector failures (see counting_apply)
    sim_bdf_rhs* rhs;
    sim_bdf_jac* jac;
    sim_bsm* sparse; // the Jacobian as the caller writes it, expanded into GSL's dense one
    void* user;
    size_t n;
    bool stopped;         // the callbacks asked to stop
    unsigned long failed; // rejected steps before the last reset
    sim_bdf_counts counts;
};

static int gsl_rhs(double t, const double y[], double dydt[], void* params)
{
    sim_msbdf* b = params;
    b->counts.rhs_evaluations += 1;
    if (b->rhs(t, y, dydt, b->user) != 0)
    {
        b->stopped = true;
        return GSL_EBADFUNC;
    }
    return GSL_SUCCESS;
}

static int gsl_jac(double t, const double y[], double* dfdy, double dfdt[], void* params)
{
    sim_msbdf* b = params;
    for (size_t i = 0; i < b->n; ++i)
    {
        dfdt[i] = 0.0; // autonomous
    }
    b->counts.jacobians += 1;
    sim_bsm_clear(b->sparse);
    if (b->jac(t, y, b->sparse, b->user) != 0 || sim_bsm_failed(b->sparse))
    {
        b->stopped = true;
        return GSL_EBADFUNC;
    }
    sim_bsm_to_dense(b->sparse, dfdy);
    return GSL_SUCCESS;
}

// msbdf's apply returns GSL_FAILURE when its corrector fails (the Newton iteration reached its 3 iterations or
// diverged, or the iteration matrix was singular); GSL's evolve then halves the step and counts a failed step, as it
// does for an error test rejection (control's hadjust asking for a shorter step). Counting the failures here
// separates the two.
static int counting_apply(void* state, size_t dim, double t, double h, double y[], double yerr[],
                          const double dydt_in[], double dydt_out[], const gsl_odeiv2_system* sys)
{
    sim_msbdf* b = sys->params;
    b->counts.attempts += 1;
    int st = gsl_odeiv2_step_msbdf->apply(state, dim, t, h, y, yerr, dydt_in, dydt_out, sys);
    if (st == GSL_FAILURE)
    {
        b->counts.corrector_failures += 1;
    }
    return st;
}

sim_msbdf* sim_msbdf_create(const sim_bdf_def* def)
{
    // GSL's default handler aborts the process; its status codes are checked here instead.
    gsl_set_error_handler_off();
    sim_msbdf* b = calloc(1, sizeof *b);
    if (b == NULL)
    {
        return NULL;
    }
    b->rhs = def->rhs;
    b->jac = def->jac;
    b->user = def->user;
    b->n = def->n;
    b->sparse = sim_bsm_create((int)(def->n / (size_t)def->block_size), def->block_size);
    b->sys = (gsl_odeiv2_system){gsl_rhs, gsl_jac, def->n, b};
    // Absolute control only (eps_rel 0): D_i = error * abs_scale[i].
    b->driver = b->sparse == NULL ? NULL
                                  : gsl_odeiv2_driver_alloc_scaled_new(&b->sys, gsl_odeiv2_step_msbdf, def->hinit,
                                                                       def->error, 0.0, 1.0, 0.0, def->abs_scale);
    if (b->driver == NULL)
    {
        sim_bsm_destroy(b->sparse);
        free(b);
        return NULL;
    }
    b->counting = *gsl_odeiv2_step_msbdf;
    b->counting.apply = counting_apply;
    b->driver->s->type = &b->counting;
    return b;
}

void sim_msbdf_destroy(sim_msbdf* b)
{
    if (b != NULL)
    {
        gsl_odeiv2_driver_free(b->driver);
        sim_bsm_destroy(b->sparse);
        free(b);
    }
}

sim_bdf_status sim_msbdf_step(sim_msbdf* b, double* t, double t1, double* h, double* y)
{
    gsl_odeiv2_driver* d = b->driver;
    b->stopped = false;
    int st = gsl_odeiv2_evolve_apply(d->e, d->c, d->s, d->sys, t, t1, h, y);
    if (b->stopped)
    {
        return SIM_BDF_STOPPED;
    }
    return st == GSL_SUCCESS ? SIM_BDF_OK : SIM_BDF_FAILED;
}

void sim_msbdf_reset(sim_msbdf* b)
{
    b->failed += b->driver->e->failed_steps; // the reset clears GSL's count
    gsl_odeiv2_driver_reset(b->driver);
}

void sim_msbdf_counts(const sim_msbdf* b, unsigned long* failed, sim_bdf_counts* c)
{
    *failed = b->failed + b->driver->e->failed_steps;
    c->attempts = b->counts.attempts;
    c->corrector_failures = b->counts.corrector_failures;
    c->jacobians = b->counts.jacobians;
    c->rhs_evaluations = b->counts.rhs_evaluations;
}
