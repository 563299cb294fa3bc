// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A variable-step, variable-order BDF / NDF integrator with a block-sparse Newton matrix (see sim_bdf.h).
// Based on: L. F. Shampine and M. W. Reichelt, "The MATLAB ODE Suite", SIAM J. Sci. Comput. 18 (1997) 1-22 (the
// numerical differentiation formulas of ode15s in backward-difference form, quasi-constant step size, the difference
// array rescaled on a step change); the modified Newton iteration's convergence test and the Jacobian's reuse as in
// CVODE (Hindmarsh et al., "SUNDIALS", ACM TOMS 31, 2005) and GSL's msbdf (a rate estimate kept across iterations,
// a correction 0.1 of the error bound, the Jacobian kept for up to 50 steps and re-evaluated on a Newton failure).
#include "src/app/sim_bdf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ORDER 5
/// Newton iterations per attempt.
#define NEWTON_MAXITER 4
/// The Newton iteration has converged when its next correction is below this fraction of the error bound.
#define NEWTON_COEF 0.1
/// Step changes after an error test failure: at least this factor (and at most 0.9 of the asked-for one).
#define MIN_FACTOR 0.2
/// Largest growth of the step after an accepted step.
#define MAX_FACTOR 10.0
/// Accepted steps before the Jacobian is evaluated again (GSL msbdf: 50).
#define JAC_AGE 50
/// Consecutive error test failures of one step after which its order drops by one.
#define ORDER_DROP_FAILURES 3
/// A requested step within this fraction of the integrator's own counts as equal (rounding of t1 - t): the history
/// is rescaled, but the steps stay "equal" for the order selection.
#define EQUAL_STEP 1e-9

struct sim_bdf
{
    sim_bdf_def def;
    sim_msbdf* gsl; // SIM_BDF_METHOD_MSBDF: everything goes there
    size_t n;
    double* scale; // error * abs_scale: the error bound per component
    double* D;     // (MAX_ORDER + 3) difference rows of n: D[0] = y, D[k] = the k-th backward difference (scaled by h)
    double* ypred; // predicted state
    double* psi;   // the history's part of the corrector equation
    double* ynew;  // the corrector's iterate
    double* d;     // the accumulated correction ynew - ypred
    double* f;     // a right-hand side
    double* dy;    // a Newton correction
    sim_bsm* jac;  // the Jacobian
    sim_bslu* lu;  // the factors of I - c J
    double alpha[MAX_ORDER + 1], gamma[MAX_ORDER + 1], error_const[MAX_ORDER + 1];
    bool started;  // a history exists (else the next step starts at order 1)
    bool have_jac; // jac holds a Jacobian
    bool lu_ok;    // lu holds the factors of I - lu_c jac
    double lu_c;   // the c they were formed with
    double t;      // time of D[0]
    double h;      // the step the history is scaled for
    int order;     // current order
    int n_equal;   // steps taken with h unchanged
    int jac_age;   // accepted steps since the Jacobian was evaluated
    double crate;  // the Newton iteration's rate estimate
    unsigned long failed;
    sim_bdf_counts counts;
    char msg[320];
};

sim_bdf_def sim_bdf_default_def(void)
{
    sim_bdf_def d;
    memset(&d, 0, sizeof d);
    d.block_size = 12;
    d.error = 1e-5;
    d.hinit = 1e-3;
    d.max_order = MAX_ORDER;
    d.method = SIM_BDF_METHOD_NDF;
    return d;
}

double sim_bdf_bytes(sim_bdf_method method, size_t n, int block, size_t coupled)
{
    double dn = (double)n;
    if (method == SIM_BDF_METHOD_MSBDF)
    {
        return 8.0 * (2.0 * dn * dn + 40.0 * dn); // GSL: the Jacobian and the iteration matrix, and its vectors
    }
    double nb = dn / (double)block, b2 = (double)block * (double)block;
    // Vectors: 8 difference rows, 7 work rows, the scales; the Jacobian's blocks and their indices; the factors.
    return 8.0 * 16.0 * dn + (8.0 * b2 + 16.0) * (nb + (double)coupled) + sim_bslu_diagonal_bytes((int)nb, block) +
           8.0 * b2 * 2.0 * (double)coupled;
}

static void set_coefficients(sim_bdf* b)
{
    static const double kappa[MAX_ORDER + 1] = {0.0, -0.1850, -1.0 / 9.0, -0.0823, -0.0415, 0.0};
    double g = 0.0;
    for (int k = 0; k <= MAX_ORDER; ++k)
    {
        g += k > 0 ? 1.0 / k : 0.0;
        double kk = b->def.method == SIM_BDF_METHOD_NDF ? kappa[k] : 0.0;
        b->gamma[k] = g;
        b->alpha[k] = (1.0 - kk) * g;
        b->error_const[k] = kk * g + 1.0 / (k + 1);
    }
}

sim_bdf* sim_bdf_create(const sim_bdf_def* def)
{
    if (def->n == 0 || def->block_size < 1 || def->n % (size_t)def->block_size != 0 || !(def->error > 0.0) ||
        !(def->hinit > 0.0) || def->rhs == NULL || def->jac == NULL || def->abs_scale == NULL)
    {
        return NULL;
    }
    sim_bdf* b = calloc(1, sizeof *b);
    if (b == NULL)
    {
        return NULL;
    }
    b->def = *def;
    b->def.max_order = def->max_order < 1 || def->max_order > MAX_ORDER ? MAX_ORDER : def->max_order;
    b->n = def->n;
    if (def->method == SIM_BDF_METHOD_MSBDF)
    {
        b->gsl = sim_msbdf_create(def);
        if (b->gsl == NULL)
        {
            free(b);
            return NULL;
        }
        return b;
    }
    size_t n = def->n;
    b->scale = malloc(n * sizeof *b->scale);
    b->D = calloc((MAX_ORDER + 3) * n, sizeof *b->D);
    b->ypred = malloc(6 * n * sizeof *b->ypred); // ypred, psi, ynew, d, f, dy
    b->jac = sim_bsm_create((int)(n / (size_t)def->block_size), def->block_size);
    b->lu = sim_bslu_create();
    if (!b->scale || !b->D || !b->ypred || !b->jac || !b->lu)
    {
        sim_bdf_destroy(b);
        return NULL;
    }
    b->psi = b->ypred + n;
    b->ynew = b->psi + n;
    b->d = b->ynew + n;
    b->f = b->d + n;
    b->dy = b->f + n;
    for (size_t i = 0; i < n; ++i)
    {
        b->scale[i] = def->error * def->abs_scale[i];
    }
    sim_bslu_set_limit(b->lu, def->max_bytes);
    set_coefficients(b);
    b->h = def->hinit;
    b->crate = 1.0;
    return b;
}

void sim_bdf_destroy(sim_bdf* b)
{
    if (b != NULL)
    {
        sim_msbdf_destroy(b->gsl);
        free(b->scale);
        free(b->D);
        free(b->ypred);
        sim_bsm_destroy(b->jac);
        sim_bslu_destroy(b->lu);
        free(b);
    }
}

/// max_i |c v_i| / scale_i
static double scaled_norm(const sim_bdf* b, const double* v, double c)
{
    double m = 0.0;
    for (size_t i = 0; i < b->n; ++i)
    {
        double e = fabs(c * v[i]) / b->scale[i];
        m = e > m || isnan(e) ? e : m;
    }
    return m;
}

/// The difference array for a step `factor` times the current one (ode15s' change of step size: D = (R U)^T D).
static void rescale(sim_bdf* b, double factor)
{
    int k = b->order;
    double r[MAX_ORDER + 1][MAX_ORDER + 1], u[MAX_ORDER + 1][MAX_ORDER + 1], ru[MAX_ORDER + 1][MAX_ORDER + 1];
    for (int pass = 0; pass < 2; ++pass)
    {
        double(*m)[MAX_ORDER + 1] = pass == 0 ? r : u;
        double f = pass == 0 ? factor : 1.0;
        for (int j = 0; j <= k; ++j)
        {
            m[0][j] = 1.0;
        }
        for (int i = 1; i <= k; ++i)
        {
            m[i][0] = 0.0;
            for (int j = 1; j <= k; ++j)
            {
                m[i][j] = m[i - 1][j] * (i - 1 - f * j) / i;
            }
        }
    }
    for (int i = 0; i <= k; ++i)
    {
        for (int j = 0; j <= k; ++j)
        {
            double s = 0.0;
            for (int l = 0; l <= k; ++l)
            {
                s += r[i][l] * u[l][j];
            }
            ru[i][j] = s;
        }
    }
    double tmp[MAX_ORDER + 1];
    for (size_t i = 0; i < b->n; ++i)
    {
        for (int j = 0; j <= k; ++j)
        {
            double s = 0.0;
            for (int l = 0; l <= k; ++l)
            {
                s += ru[l][j] * b->D[(size_t)l * b->n + i];
            }
            tmp[j] = s;
        }
        for (int j = 0; j <= k; ++j)
        {
            b->D[(size_t)j * b->n + i] = tmp[j];
        }
    }
    b->h *= factor;
}

/// Start a history at (t, y) with step h: order 1, D[1] = h f(t, y). @return false when the rhs asked to stop
static bool start(sim_bdf* b, double t, const double* y, double h)
{
    b->counts.rhs_evaluations += 1;
    if (b->def.rhs(t, y, b->f, b->def.user) != 0)
    {
        return false;
    }
    memcpy(b->D, y, b->n * sizeof *y);
    for (size_t i = 0; i < b->n; ++i)
    {
        b->D[b->n + i] = h * b->f[i];
    }
    b->t = t;
    b->h = h;
    b->order = 1;
    b->n_equal = 0;
    b->started = true;
    return true;
}

/// Evaluate the Jacobian at (t, y). @return SIM_BDF_OK, SIM_BDF_STOPPED or SIM_BDF_TOO_LARGE (out of memory)
static sim_bdf_status evaluate_jacobian(sim_bdf* b, double t, const double* y)
{
    sim_bsm_clear(b->jac);
    b->counts.jacobians += 1;
    if (b->def.jac(t, y, b->jac, b->def.user) != 0)
    {
        return SIM_BDF_STOPPED;
    }
    if (sim_bsm_failed(b->jac))
    {
        snprintf(b->msg, sizeof b->msg, "out of memory for the Jacobian's %d blocks", sim_bsm_block_count(b->jac));
        return SIM_BDF_TOO_LARGE;
    }
    b->have_jac = true;
    b->lu_ok = false;
    b->jac_age = 0;
    b->crate = 1.0;
    return SIM_BDF_OK;
}

/// Factorise I - c J when c or J changed. @return SIM_BDF_OK, SIM_BDF_FAILED (singular) or SIM_BDF_TOO_LARGE
static sim_bdf_status factorise(sim_bdf* b, double c)
{
    if (b->lu_ok && b->lu_c == c)
    {
        return SIM_BDF_OK;
    }
    b->counts.factorizations += 1;
    sim_bslu_status st = sim_bslu_factor(b->lu, b->jac, 1.0, -c);
    b->lu_ok = st == SIM_BSLU_OK;
    b->lu_c = c;
    if (st == SIM_BSLU_TOO_LARGE || st == SIM_BSLU_NO_MEMORY)
    {
        sim_bslu_stats s = sim_bslu_get_stats(b->lu);
        snprintf(b->msg, sizeof b->msg,
                 "the Newton matrix's factors need %.3g GB (%zu blocks of %d x %d: %d coupled components, the largest "
                 "of %d blocks), more than %s",
                 s.bytes / 1e9, s.filled_blocks, b->def.block_size, b->def.block_size, s.components, s.largest,
                 st == SIM_BSLU_NO_MEMORY ? "the memory available" : "the limit");
        return SIM_BDF_TOO_LARGE;
    }
    return st == SIM_BSLU_OK ? SIM_BDF_OK : SIM_BDF_FAILED;
}

/// The modified Newton iteration of the corrector at t_new: d - c f(ypred + d) + psi = 0. *converged tells.
/// @return SIM_BDF_OK or SIM_BDF_STOPPED
static sim_bdf_status newton(sim_bdf* b, double t_new, double c, bool* converged, int* iterations)
{
    size_t n = b->n;
    double tol = NEWTON_COEF / b->error_const[b->order];
    memcpy(b->ynew, b->ypred, n * sizeof *b->ynew);
    memset(b->d, 0, n * sizeof *b->d);
    double norm_old = 0.0;
    *converged = false;
    for (int k = 0; k < NEWTON_MAXITER; ++k)
    {
        *iterations = k + 1;
        b->counts.rhs_evaluations += 1;
        if (b->def.rhs(t_new, b->ynew, b->f, b->def.user) != 0)
        {
            return SIM_BDF_STOPPED;
        }
        bool finite = true;
        for (size_t i = 0; i < n; ++i)
        {
            b->dy[i] = c * b->f[i] - b->psi[i] - b->d[i];
            finite = finite && isfinite(b->dy[i]);
        }
        if (!finite)
        {
            return SIM_BDF_OK;
        }
        sim_bslu_solve(b->lu, b->dy);
        double norm = scaled_norm(b, b->dy, 1.0);
        if (!isfinite(norm))
        {
            return SIM_BDF_OK;
        }
        if (k > 0)
        {
            double rate = norm / norm_old;
            b->crate = fmax(0.3 * b->crate, rate);
            // Diverging, or too slow to converge in the iterations left.
            if (rate >= 1.0 || pow(rate, NEWTON_MAXITER - k) / (1.0 - rate) * norm > tol)
            {
                return SIM_BDF_OK;
            }
        }
        for (size_t i = 0; i < n; ++i)
        {
            b->ynew[i] += b->dy[i];
            b->d[i] += b->dy[i];
        }
        if (norm * fmin(1.0, b->crate) <= tol)
        {
            *converged = true;
            return SIM_BDF_OK;
        }
        norm_old = norm;
    }
    return SIM_BDF_OK;
}

/// The history after an accepted step (the backward differences of the new polynomial).
static void update_differences(sim_bdf* b)
{
    size_t n = b->n;
    int k = b->order;
    double* dk1 = b->D + (size_t)(k + 1) * n;
    double* dk2 = b->D + (size_t)(k + 2) * n;
    for (size_t i = 0; i < n; ++i)
    {
        dk2[i] = b->d[i] - dk1[i];
        dk1[i] = b->d[i];
    }
    for (int j = k; j >= 0; --j)
    {
        double* dj = b->D + (size_t)j * n;
        const double* dn = b->D + (size_t)(j + 1) * n;
        for (size_t i = 0; i < n; ++i)
        {
            dj[i] += dn[i];
        }
    }
}

/// After order + 1 equal steps: the order (k - 1, k or k + 1) and step of the largest step the error estimates
/// allow.
static void select_order(sim_bdf* b, double error_norm, double safety)
{
    int k = b->order;
    size_t n = b->n;
    double em = k > 1 ? scaled_norm(b, b->D + (size_t)k * n, b->error_const[k - 1]) : INFINITY;
    double ep = k < b->def.max_order ? scaled_norm(b, b->D + (size_t)(k + 2) * n, b->error_const[k + 1]) : INFINITY;
    double norms[3] = {em, error_norm, ep};
    int best = 0;
    double fbest = -1.0;
    for (int j = 0; j < 3; ++j)
    {
        double f = norms[j] > 0.0 ? pow(norms[j], -1.0 / (k + j)) : INFINITY;
        if (f > fbest)
        {
            fbest = f;
            best = j;
        }
    }
    b->order = k + best - 1;
    double factor = fmin(MAX_FACTOR, safety * fbest);
    rescale(b, factor);
    b->n_equal = 0;
}

/// Fail: the step fell below hmin (or below what t resolves).
static sim_bdf_status too_short(sim_bdf* b, double t, double h, double* h_out)
{
    snprintf(b->msg, sizeof b->msg, "the step fell to %.3g at t = %.9g (order %d)", h, t, b->order);
    *h_out = h;
    return SIM_BDF_FAILED;
}

sim_bdf_status sim_bdf_step(sim_bdf* b, double* t, double t1, double* h_io, double* y)
{
    if (b->gsl != NULL)
    {
        return sim_msbdf_step(b->gsl, t, t1, h_io, y);
    }
    b->msg[0] = '\0';
    size_t n = b->n;
    double t0 = *t, rem = t1 - t0;
    double h = fmin(*h_io, rem);
    if (!(h > 0.0))
    {
        return too_short(b, t0, h, h_io);
    }
    bool land = h >= rem * (1.0 - 1e-6) || t0 + h >= t1;
    h = land ? rem : h;
    bool same = b->started && b->t == t0;
    for (size_t i = 0; same && i < n; ++i)
    {
        same = b->D[i] == y[i]; // values, not bits: -0 is 0
    }
    if (!same)
    {
        if (!start(b, t0, y, h))
        {
            return SIM_BDF_STOPPED;
        }
    }
    else if (h != b->h)
    {
        double factor = h / b->h;
        rescale(b, factor);
        b->h = h; // exactly
        b->n_equal = fabs(factor - 1.0) > EQUAL_STEP ? 0 : b->n_equal;
    }
    bool jac_current = false;
    if (!b->have_jac || b->jac_age >= JAC_AGE)
    {
        sim_bdf_status st = evaluate_jacobian(b, t0, b->D);
        if (st != SIM_BDF_OK)
        {
            return st;
        }
        jac_current = true;
    }
    int error_failures = 0;
    double error_norm = 0.0, safety = 0.9;
    for (;;)
    {
        h = b->h;
        double t_new = land ? t1 : t0 + h;
        if ((b->def.hmin > 0.0 && h < b->def.hmin) || !(t_new > t0))
        {
            return too_short(b, t0, h, h_io);
        }
        b->counts.attempts += 1;
        int k = b->order;
        for (size_t i = 0; i < n; ++i)
        {
            double s = 0.0, p = 0.0;
            for (int j = 0; j <= k; ++j)
            {
                s += b->D[(size_t)j * n + i];
            }
            for (int j = 1; j <= k; ++j)
            {
                p += b->gamma[j] * b->D[(size_t)j * n + i];
            }
            b->ypred[i] = s;
            b->psi[i] = p / b->alpha[k];
        }
        double c = h / b->alpha[k];
        bool converged = false;
        int iterations = 0;
        for (;;)
        {
            sim_bdf_status st = factorise(b, c);
            if (st == SIM_BDF_TOO_LARGE)
            {
                *h_io = h;
                return st;
            }
            if (st == SIM_BDF_OK)
            {
                st = newton(b, t_new, c, &converged, &iterations);
                if (st != SIM_BDF_OK)
                {
                    return st;
                }
            }
            if (converged || jac_current)
            {
                break;
            }
            st = evaluate_jacobian(b, t_new, b->ypred);
            if (st != SIM_BDF_OK)
            {
                return st;
            }
            jac_current = true;
        }
        if (!converged)
        {
            b->counts.corrector_failures += 1;
            b->failed += 1;
            rescale(b, 0.5);
            b->n_equal = 0;
            land = false;
            continue;
        }
        safety = 0.9 * (2.0 * NEWTON_MAXITER + 1.0) / (2.0 * NEWTON_MAXITER + iterations);
        error_norm = scaled_norm(b, b->d, b->error_const[k]);
        if (error_norm > 1.0 && !b->def.fixed)
        {
            b->counts.error_test_failures += 1;
            b->failed += 1;
            error_failures += 1;
            if (error_failures >= ORDER_DROP_FAILURES && b->order > 1)
            {
                b->order -= 1; // the lower order's differences are the first rows of the same array
            }
            double factor = fmax(MIN_FACTOR, safety * pow(error_norm, -1.0 / (k + 1)));
            rescale(b, factor);
            b->n_equal = 0;
            land = false;
            continue;
        }
        break;
    }
    // Accepted.
    double h_taken = b->h;
    update_differences(b);
    memcpy(y, b->D, n * sizeof *y); // D[0] is the new state
    b->t = *t = land ? t1 : t0 + h_taken;
    b->n_equal += 1;
    b->jac_age += 1;
    b->counts.order = b->order;
    if (b->n_equal >= b->order + 1 && !b->def.fixed)
    {
        select_order(b, error_norm, safety);
    }
    *h_io = b->h;
    return SIM_BDF_OK;
}

bool sim_bdf_set_history(sim_bdf* b, double t, double h, int order, const double* states)
{
    if (b->gsl != NULL || order < 1 || order > b->def.max_order || !(h > 0.0))
    {
        return false;
    }
    size_t n = b->n;
    // D[j] = the j-th backward difference at t: sum_i (-1)^i C(j, i) y(t - i h).
    memset(b->D, 0, (MAX_ORDER + 3) * n * sizeof *b->D);
    for (int j = 0; j <= order; ++j)
    {
        double binom = 1.0;
        for (int i = 0; i <= j; ++i)
        {
            for (size_t c = 0; c < n; ++c)
            {
                b->D[(size_t)j * n + c] += (i % 2 == 0 ? binom : -binom) * states[(size_t)i * n + c];
            }
            binom = binom * (j - i) / (i + 1);
        }
    }
    b->t = t;
    b->h = h;
    b->order = order;
    b->n_equal = 0;
    b->started = true;
    return true;
}

void sim_bdf_reset(sim_bdf* b)
{
    b->counts.resets += 1;
    if (b->gsl != NULL)
    {
        sim_msbdf_reset(b->gsl);
        return;
    }
    b->started = false;
    b->jac_age = JAC_AGE; // as msbdf: a new Jacobian at the restart
}

unsigned long sim_bdf_failed_steps(const sim_bdf* b)
{
    if (b->gsl != NULL)
    {
        unsigned long failed = 0;
        sim_bdf_counts c = b->counts;
        sim_msbdf_counts(b->gsl, &failed, &c);
        return failed;
    }
    return b->failed;
}

sim_bdf_counts sim_bdf_get_counts(const sim_bdf* b)
{
    sim_bdf_counts c = b->counts;
    if (b->gsl != NULL)
    {
        unsigned long failed = 0;
        sim_msbdf_counts(b->gsl, &failed, &c);
        c.error_test_failures = failed >= c.corrector_failures ? failed - c.corrector_failures : 0;
    }
    return c;
}

const char* sim_bdf_message(const sim_bdf* b)
{
    return b->msg;
}

sim_bslu_stats sim_bdf_factor_stats(const sim_bdf* b)
{
    sim_bslu_stats s;
    memset(&s, 0, sizeof s);
    return b->lu != NULL ? sim_bslu_get_stats(b->lu) : s;
}
