// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SIMULATE/STATIC (sim_static.h): the damped Newton iteration, the free parts' problem on the BDF's coordinates and
// Jacobian (sim_implicit.c), and the hand-over to the dynamic run. Mechanisms: refused for now (sim_mb.cpp).
#include "src/app/sim_bsm.h"
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double sum_sq(int n, const double* r)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
    {
        s += r[i] * r[i];
    }
    return s;
}

/// The largest |f| and its index.
static double largest(int n, const double* f, int* at)
{
    double m = 0.0;
    *at = 0;
    for (int i = 0; i < n; ++i)
    {
        if (fabs(f[i]) > m)
        {
            m = fabs(f[i]);
            *at = i;
        }
    }
    return m;
}

/// Central differences of the residual over every unknown (2 n trials), into jac.
static bool fd_jacobian(const sim_static_problem* pb, double* dx, double* rp, double* rm, double* f, double* jac,
                        app_sim_static_report* rep, char* err, size_t cap)
{
    int n = pb->n;
    memset(dx, 0, (size_t)n * sizeof *dx);
    for (int c = 0; c < n; ++c)
    {
        dx[c] = pb->fd_step;
        bool ok = pb->trial(pb->user, dx, rp, f, err, cap);
        dx[c] = -pb->fd_step;
        ok = ok && pb->trial(pb->user, dx, rm, f, err, cap);
        dx[c] = 0.0;
        rep->evaluations += 2;
        if (!ok)
        {
            return false;
        }
        for (int r = 0; r < n; ++r)
        {
            jac[r * n + c] = (rp[r] - rm[r]) / (2.0 * pb->fd_step);
        }
    }
    return true;
}

bool sim_static_solve(const sim_static_problem* pb, double imbalance, double error, int maxit,
                      app_sim_static_report* rep, char* err, size_t cap)
{
    int n = pb->n;
    memset(rep, 0, sizeof *rep);
    size_t nn = (size_t)(n > 0 ? n : 1);
    double* buf = malloc((nn * 9 + 2 * nn * nn) * sizeof *buf);
    int* piv = malloc(nn * sizeof *piv);
    if (buf == NULL || piv == NULL)
    {
        free(piv);
        free(buf);
        return sim_set_err(err, cap, "out of memory");
    }
    double *r = buf, *f = r + nn, *rt = f + nn, *ft = rt + nn, *dx = ft + nn, *g = dx + nn, *d = g + nn;
    double *s1 = d + nn, *s2 = s1 + nn, *jac = s2 + nn, *a = jac + nn * nn;
    memset(dx, 0, nn * sizeof *dx);
    bool ok = pb->trial(pb->user, dx, r, f, err, cap);
    rep->evaluations = 1;
    if (ok)
    {
        pb->accept(pb->user);
    }
    double lambda = 1e-8;
    int worst = 0;
    while (ok)
    {
        rep->imbalance = largest(n, f, &worst);
        if (rep->imbalance <= imbalance && rep->change <= error)
        {
            rep->done = true;
            break;
        }
        if (rep->iterations >= maxit)
        {
            break;
        }
        rep->iterations += 1;
        ok = pb->jacobian != NULL ? pb->jacobian(pb->user, jac, err, cap)
                                  : fd_jacobian(pb, dx, s1, s2, ft, jac, rep, err, cap);
        if (!ok)
        {
            break;
        }
        // a = J^T J, g = -J^T r, d = diag(a) floored at 1e-12 of its largest entry (unresisted directions).
        double dmax = 0.0;
        for (int i = 0; i < n; ++i)
        {
            double gi = 0.0;
            for (int j = 0; j < n; ++j)
            {
                double v = 0.0;
                for (int k = 0; k < n; ++k)
                {
                    v += jac[k * n + i] * jac[k * n + j];
                }
                a[i * n + j] = v;
            }
            for (int k = 0; k < n; ++k)
            {
                gi -= jac[k * n + i] * r[k];
            }
            g[i] = gi;
            dmax = fmax(dmax, a[i * n + i]);
        }
        for (int i = 0; i < n; ++i)
        {
            d[i] = fmax(a[i * n + i], 1e-12 * dmax);
        }
        double merit = sum_sq(n, r);
        bool kept = false;
        while (!kept && lambda < 1e12 && dmax > 0.0)
        {
            for (int i = 0; i < n * n; ++i)
            {
                jac[i] = a[i]; // the matrix to factor (jac is rebuilt by the next iteration)
            }
            for (int i = 0; i < n; ++i)
            {
                jac[i * n + i] += lambda * d[i] + 1e-14 * dmax;
                dx[i] = g[i];
            }
            if (sim_dense_lu(jac, piv, n))
            {
                sim_dense_solve(jac, piv, n, dx);
                ok = pb->trial(pb->user, dx, rt, ft, err, cap);
                rep->evaluations += 1;
                if (!ok)
                {
                    break;
                }
                if (sum_sq(n, rt) < merit)
                {
                    kept = true;
                    pb->accept(pb->user);
                    memcpy(r, rt, nn * sizeof *r);
                    memcpy(f, ft, nn * sizeof *f);
                    rep->change = 0.0;
                    for (int i = 0; i < n; ++i)
                    {
                        rep->change = fmax(rep->change, fabs(dx[i]));
                    }
                    lambda = fmax(lambda / 5.0, 1e-12);
                    break;
                }
            }
            lambda *= 10.0;
        }
        if (ok && !kept)
        {
            break; // no step lowers the residual: stalled
        }
    }
    if (ok && !rep->done)
    {
        rep->imbalance = largest(n, f, &worst);
    }
    pb->label(pb->user, worst, rep->worst, sizeof rep->worst);
    free(piv);
    free(buf);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// Free parts: the BDF's coordinates (per moving part: centre of mass, rotation vector; velocities zero).

typedef struct free_problem
{
    app_sim* s;
    int n;        // 6 per moving part
    double* y;    // the ODE state of the current point
    double* yt;   // of the last trial
    double* dydt; // scratch
    double* dfdy; // the ODE Jacobian (12 m x 12 m)
} free_problem;

static bool free_trial(void* user, const double* dx, double* r, double* f, char* err, size_t cap)
{
    free_problem* fp = user;
    app_sim* s = fp->s;
    int nm = s->moving_count;
    memcpy(fp->yt, fp->y, (size_t)(12 * nm) * sizeof *fp->yt);
    for (int m = 0; m < nm; ++m)
    {
        for (int k = 0; k < 6; ++k)
        {
            fp->yt[12 * m + k] += dx[6 * m + k];
            fp->yt[12 * m + 6 + k] = 0.0;
        }
    }
    if (!app_sim_ode_rhs(s, fp->yt, fp->dydt))
    {
        return sim_set_err(err, cap, "%s", s->bdf_err[0] != '\0' ? s->bdf_err : "the contact evaluation failed");
    }
    for (int m = 0; m < nm; ++m)
    {
        int i = s->moving[m];
        const double* a = fp->dydt + 12 * m + 6;
        mc_vec3 dw = mc_v3(a[3], a[4], a[5]);
        // The torque imbalance I_world dw = R I R^T dw (w = 0: no gyroscopic term).
        mc_quat q = s->tmp[i].q;
        mc_vec3 t = mc_quat_rotate(q, mc_mat33_mul_vec(&s->inertia[i], mc_quat_rotate(mc_quat_conj(q), dw)));
        double fv[6] = {s->mass[i] * a[0], s->mass[i] * a[1], s->mass[i] * a[2], t.x, t.y, t.z};
        for (int k = 0; k < 6; ++k)
        {
            r[6 * m + k] = a[k];
            f[6 * m + k] = fv[k];
        }
    }
    return true;
}

static void free_accept(void* user)
{
    free_problem* fp = user;
    memcpy(fp->y, fp->yt, (size_t)(12 * fp->s->moving_count) * sizeof *fp->y);
}

static bool free_jacobian(void* user, double* jac, char* err, size_t cap)
{
    free_problem* fp = user;
    app_sim* s = fp->s;
    int nm = s->moving_count, n12 = 12 * nm;
    if (!app_sim_ode_jacobian(s, fp->y, fp->dfdy))
    {
        return sim_set_err(err, cap, "%s", s->bdf_err[0] != '\0' ? s->bdf_err : "the contact Jacobian failed");
    }
    // Rows: the accelerations (12 m + 6 ..), columns: positions and rotation vectors (12 m' + 0 .. 5).
    for (int r = 0; r < fp->n; ++r)
    {
        for (int c = 0; c < fp->n; ++c)
        {
            jac[r * fp->n + c] =
                fp->dfdy[(size_t)(12 * (r / 6) + 6 + r % 6) * (size_t)n12 + (size_t)(12 * (c / 6) + c % 6)];
        }
    }
    return true;
}

static void free_label(void* user, int k, char* out, size_t cap)
{
    free_problem* fp = user;
    static const char* const what[6] = {"force x", "force y", "force z", "torque x", "torque y", "torque z"};
    snprintf(out, cap, "PART/%d %s", fp->s->scn->parts[fp->s->moving[k / 6]].id, what[k % 6]);
}

/// The free parts' equilibrium; on success s->y and s->state are it (at rest).
static bool free_static(app_sim* s, app_sim_static_report* rep, char* err, size_t cap)
{
    const app_scenario_static* st = &s->scn->statics;
    int nm = s->moving_count, n12 = 12 * nm;
    free_problem fp = {s, 6 * nm, NULL, NULL, NULL, NULL};
    double* buf = malloc(((size_t)(3 * n12) + (size_t)n12 * (size_t)n12) * sizeof *buf);
    if (buf == NULL)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    fp.y = buf;
    fp.yt = buf + n12;
    fp.dydt = buf + 2 * n12;
    fp.dfdy = buf + 3 * n12;
    app_sim_ode_state(s, fp.y);
    sim_static_problem pb = {fp.n, &fp, free_trial, free_accept, free_jacobian, 0.0, free_label};
    bool ok = sim_static_solve(&pb, st->imbalance, st->error, st->maxit, rep, err, cap);
    if (ok)
    {
        // The current point, at rest, into the simulator's state (the BDF restarts from a new y at order 1).
        for (int m = 0; m < nm; ++m)
        {
            for (int k = 6; k < 12; ++k)
            {
                fp.y[12 * m + k] = 0.0;
            }
        }
        memcpy(fp.yt, fp.y, (size_t)n12 * sizeof *fp.y);
        ok = app_sim_ode_rhs(s, fp.y, fp.dydt); // s->tmp: the states of y
        memcpy(s->y, fp.y, (size_t)n12 * sizeof *fp.y);
        for (int m = 0; m < nm && ok; ++m)
        {
            s->state[s->moving[m]] = s->tmp[s->moving[m]];
        }
        if (!ok)
        {
            sim_set_err(err, cap, "%s", s->bdf_err);
        }
    }
    free(buf);
    return ok;
}

const app_sim_static_report* app_sim_get_static(const app_sim* s)
{
    return &s->statics;
}

bool app_sim_static(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    const app_scenario_static* st = &scn->statics;
    mc_world_set_analysis(s->world, MC_ANALYSIS_STATIC);
    s->force_time = s->time;
    char why[500] = "";
    bool ok = true;
    if (s->mb != NULL)
    {
        ok = app_mb_static(s->mb, st->imbalance, st->error, st->maxit, &s->statics, why, sizeof why);
        if (ok && s->statics.done)
        {
            app_mb_get_motions(s->mb, s->mb_motion);
            for (int i = 0; i < scn->part_count; ++i)
            {
                const app_part_motion* m = &s->mb_motion[i];
                s->state[i] = (rb_state){m->p, m->q, m->v, m->w};
            }
        }
    }
    else if (s->moving_count > 0)
    {
        ok = free_static(s, &s->statics, why, sizeof why);
    }
    else
    {
        s->statics.done = true;
    }
    if (!ok)
    {
        return sim_set_err(err, cap, "%s:%d: SIMULATE/STATIC: %s", scn->path, st->line, why);
    }
    if (!s->statics.done)
    {
        return sim_set_err(err, cap,
                           "%s:%d: SIMULATE/STATIC: no equilibrium within %d iterations: the largest imbalance is "
                           "%.3g (%s), more than IMBALANCE=%g (last change %.3g; a part nothing holds?)",
                           scn->path, st->line, s->statics.iterations, s->statics.imbalance, s->statics.worst,
                           st->imbalance, s->statics.change);
    }
    // The dynamic run starts here, at rest: the world in its analysis, the stiction anchors committed with their
    // creep, the summaries, peaks and tracks of the equilibrium.
    if (!st->only)
    {
        mc_world_set_analysis(s->world, MC_ANALYSIS_DYNAMIC);
    }
    if (!sim_evaluate(s, s->state, s->k[0], true, s->summary, err, cap) || !sim_commit_state(s, s->summary, err, cap))
    {
        return false;
    }
    app_sim_take_peaks(s, NULL);
    sim_update_peaks(s);
    return sim_update_tracks(s) ? true : sim_set_err(err, cap, "out of memory");
}
