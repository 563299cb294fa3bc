// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's outputs (part of simulate.c's module, state in sim_internal.h): the motion CSV, the contacts plot's
// history and SVG, and the run loop that writes them with the animation.
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------------------------

static void csv_header(const app_scenario* scn, FILE* f)
{
    static const char* cols[] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz", "vx", "vy", "vz",
                                 "wx", "wy", "wz", "fx", "fy", "fz", "tx", "ty", "tz"};
    fprintf(f, "time");
    for (int i = 0; i < scn->part_count; ++i)
    {
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; ++c)
        {
            fprintf(f, ",part%d_%s", scn->parts[i].id, cols[c]);
        }
    }
    for (int c = 0; c < scn->contact_count; ++c)
    {
        int id = scn->contacts[c].id;
        fprintf(f, ",contact%d_fn,contact%d_regions,contact%d_depth", id, id, id);
    }
    app_sim_forces_csv_header(scn, f); // SFORCE, ..., VARIABLE values (none without them)
    app_mb_csv_header(scn, f);         // JOINT reactions, MOTION drivers (none without JOINTs)
    fputc('\n', f);
}

static void csv_row(const app_sim* s, FILE* f)
{
    const app_scenario* scn = s->scn;
    fprintf(f, "%.9g", s->time);
    for (int i = 0; i < scn->part_count; ++i)
    {
        const rb_state* x = &s->state[i];
        const mc_wrench* w = &s->part_wrench[i];
        double v[19] = {x->p.x,     x->p.y,     x->p.z,      x->q.w,      x->q.x,     x->q.y, x->q.z,
                        x->v.x,     x->v.y,     x->v.z,      x->w.x,      x->w.y,     x->w.z, w->force.x,
                        w->force.y, w->force.z, w->torque.x, w->torque.y, w->torque.z};
        for (int k = 0; k < 19; ++k)
        {
            fprintf(f, ",%.9g", v[k]);
        }
    }
    for (int c = 0; c < scn->contact_count; ++c)
    {
        const app_sim_contact_summary* sm = &s->summary[c];
        fprintf(f, ",%.9g,%d,%.9g", sm->normal_force, sm->regions, sm->depth);
    }
    if (s->forces != NULL)
    {
        app_part_motion* m = app_sim_forces_motions(s->forces);
        for (int i = 0; i < scn->part_count; ++i)
        {
            m[i] = (app_part_motion){s->state[i].p, mc_quat_normalize(s->state[i].q), s->state[i].v, s->state[i].w};
        }
        app_sim_forces_csv_row(s->forces, s->time, f);
    }
    if (s->mb != NULL)
    {
        app_mb_csv_row(s->mb, f);
    }
    fputc('\n', f);
}

// ---------------------------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------------------------

// The plot's history, reduced as it is recorded: per series (normal force, friction force and depth of every
// contact) and pixel column of the plot, the first, smallest, largest and last sample (the first smallest and largest
// in time). The plot keeps exactly these four per column, so it is the one every sample would give, in memory that
// does not grow with the step count.
#define PLOT_QUANTITIES 3

typedef struct plot_history
{
    int contacts;        ///< series: PLOT_QUANTITIES per contact
    int columns;         ///< APP_PLOT_COLUMNS + 1 bins (the last one holds t = END)
    double x_max;        ///< END
    double* t;           ///< contacts * columns * 4 times: first, min, max, last
    double* y;           ///< the same for the values
    unsigned char* used; ///< contacts * columns: a bin has samples
} plot_history;

static bool history_create(plot_history* h, int contacts, double x_max)
{
    memset(h, 0, sizeof *h);
    h->contacts = contacts;
    h->columns = APP_PLOT_COLUMNS + 1;
    h->x_max = x_max;
    size_t bins = (size_t)contacts * (size_t)h->columns * PLOT_QUANTITIES;
    h->t = calloc(bins * 4, sizeof *h->t);
    h->y = calloc(bins * 4, sizeof *h->y);
    h->used = calloc(bins, 1);
    return h->t != NULL && h->y != NULL && h->used != NULL;
}

static void history_free(plot_history* h)
{
    free(h->t);
    free(h->y);
    free(h->used);
}

static void history_add(plot_history* h, double t, const app_sim* s)
{
    // The column as the plot computes it (x_min = 0), clamped to the bins.
    double c = floor(t / h->x_max * APP_PLOT_COLUMNS);
    int col = c < 0.0 ? 0 : (c > APP_PLOT_COLUMNS ? APP_PLOT_COLUMNS : (int)c);
    for (int k = 0; k < h->contacts * PLOT_QUANTITIES; ++k)
    {
        size_t bin = (size_t)k * (size_t)h->columns + (size_t)col;
        double* bt = h->t + 4 * bin;
        double* by = h->y + 4 * bin;
        const app_sim_contact_summary* sm = &s->summary[k / PLOT_QUANTITIES];
        int q = k % PLOT_QUANTITIES;
        double y = q == 0 ? sm->normal_force : q == 1 ? mc_length(sm->friction_on_j) : sm->depth;
        if (!h->used[bin])
        {
            h->used[bin] = 1;
            for (int m = 0; m < 4; ++m)
            {
                bt[m] = t;
                by[m] = y;
            }
            continue;
        }
        if (y < by[1])
        {
            bt[1] = t;
            by[1] = y;
        }
        if (y > by[2])
        {
            bt[2] = t;
            by[2] = y;
        }
        bt[3] = t;
        by[3] = y;
    }
}

// Series k of the plot: the kept samples in time order, each once. @return the count written to t, y.
static size_t history_series(const plot_history* h, int k, double* t, double* y)
{
    size_t n = 0;
    for (int col = 0; col < h->columns; ++col)
    {
        size_t bin = (size_t)k * (size_t)h->columns + (size_t)col;
        if (!h->used[bin])
        {
            continue;
        }
        const double* bt = h->t + 4 * bin;
        const double* by = h->y + 4 * bin;
        int lo = bt[1] <= bt[2] ? 1 : 2, hi = 3 - lo;
        int order[4] = {0, lo, hi, 3};
        for (int m = 0; m < 4; ++m)
        {
            double tm = bt[order[m]];
            if (n > 0 && t[n - 1] == tm)
            {
                continue;
            }
            t[n] = tm;
            y[n] = by[order[m]];
            ++n;
        }
    }
    return n;
}

// The mechanism's history: per JOINT the magnitudes of its reaction force and torque (on I's part, as the CSV's
// jointID_fx .. _tz), per MOTION its driver force or torque (motionID_f), at every output row: with JOINTs the output
// times are Simbody's step ends, so these are the CSV's values, every one of them.
typedef struct mech_history
{
    int joints;    ///< JOINTs (0: no mechanism panels)
    int motions;   ///< MOTIONs
    size_t rows;   ///< samples kept
    size_t cap;    ///< samples allocated (the output rows)
    double* t;     ///< cap times
    double* y;     ///< (2 joints + motions) series of cap values: |F| per joint, |T| per joint, then the drivers
    mc_wrench* jw; ///< joints, scratch of app_sim_get_reactions
    double* drv;   ///< motions, scratch
} mech_history;

static bool mech_create(mech_history* h, const app_sim* s, size_t rows)
{
    memset(h, 0, sizeof *h);
    const app_scenario_mech* m = s->scn->mech;
    if (s->mb == NULL || m == NULL || m->joint_count + m->motion_count == 0)
    {
        return true;
    }
    h->joints = m->joint_count;
    h->motions = m->motion_count;
    h->cap = rows;
    size_t ns = 2 * (size_t)h->joints + (size_t)h->motions;
    h->t = calloc(rows, sizeof *h->t);
    h->y = calloc(rows * ns, sizeof *h->y);
    h->jw = calloc((size_t)(h->joints > 0 ? h->joints : 1), sizeof *h->jw);
    h->drv = calloc((size_t)(h->motions > 0 ? h->motions : 1), sizeof *h->drv);
    return h->t != NULL && h->y != NULL && h->jw != NULL && h->drv != NULL;
}

static void mech_free(mech_history* h)
{
    free(h->t);
    free(h->y);
    free(h->jw);
    free(h->drv);
}

static bool mech_add(mech_history* h, const app_sim* s, char* err, size_t cap)
{
    if (h->joints + h->motions == 0 || h->rows == h->cap)
    {
        return true;
    }
    if (!app_sim_get_reactions(s, h->jw, h->drv, err, cap))
    {
        return false;
    }
    size_t r = h->rows++;
    h->t[r] = s->time;
    for (int j = 0; j < h->joints; ++j)
    {
        h->y[(size_t)j * h->cap + r] = mc_length(h->jw[j].force);
        h->y[(size_t)(h->joints + j) * h->cap + r] = mc_length(h->jw[j].torque);
    }
    for (int k = 0; k < h->motions; ++k)
    {
        h->y[(size_t)(2 * h->joints + k) * h->cap + r] = h->drv[k];
    }
    return true;
}

/// "name [unit]" or "name".
static void with_unit(char* out, size_t cap, const char* name, const char* unit)
{
    snprintf(out, cap, "%s%s%s%s", name, unit[0] ? " [" : "", unit, unit[0] ? "]" : "");
}

/// The plot: normal force, friction force and depth per contact and the incidents timeline (when there are
/// contacts), then the JOINT reactions and MOTION drivers (mh, when there are any).
static bool write_plot(const app_sim* s, const plot_history* hist, const mech_history* mh, const char* path)
{
    const app_scenario* scn = s->scn;
    int nc = scn->contact_count;
    size_t per = 4 * (size_t)(APP_PLOT_COLUMNS + 1);
    size_t ns = (size_t)nc * PLOT_QUANTITIES;
    size_t ns1 = ns > 0 ? ns : 1, nc1 = nc > 0 ? (size_t)nc : 1; // joints only: no contact series
    app_plot_series* series = calloc(ns1, sizeof *series);
    char(*labels)[160] = calloc(nc1, sizeof *labels);
    const char** rows = calloc(nc1, sizeof *rows);
    double* ts = calloc(per * ns1, sizeof *ts);
    double* ys = calloc(per * ns1, sizeof *ys);
    app_plot_bar* bars = calloc((size_t)(s->incident_count > 0 ? s->incident_count : 1), sizeof *bars);
    bool ok = series != NULL && labels != NULL && rows != NULL && ts != NULL && ys != NULL && bars != NULL;
    for (int c = 0; ok && c < nc; ++c)
    {
        app_sim_contact_label(s, c, labels[c], sizeof labels[c]);
        rows[c] = labels[c];
        for (int q = 0; q < PLOT_QUANTITIES; ++q)
        {
            // series q * nc + c: the panels take nc consecutive series each
            size_t k = (size_t)q * (size_t)nc + (size_t)c, src = (size_t)c * PLOT_QUANTITIES + (size_t)q;
            series[k].label = labels[c];
            series[k].t = ts + k * per;
            series[k].y = ys + k * per;
            series[k].count = history_series(hist, (int)src, ts + k * per, ys + k * per);
        }
    }
    for (int k = 0; ok && k < s->incident_count; ++k)
    {
        bars[k] = (app_plot_bar){s->incidents[k].contact, s->incidents[k].start, s->incidents[k].end};
    }
    // The mechanism's series: |F| and |T| per joint, the driver per motion (mech_history's order).
    int nj = mh->joints, nm = mh->motions, nms = 2 * nj + nm;
    app_plot_series* ms = calloc((size_t)(nms > 0 ? nms : 1), sizeof *ms);
    char(*mlabels)[48] = calloc((size_t)(nms > 0 ? nms : 1), sizeof *mlabels);
    ok = ok && ms != NULL && mlabels != NULL;
    for (int k = 0; ok && k < nms; ++k)
    {
        if (k < 2 * nj)
        {
            snprintf(mlabels[k], sizeof mlabels[k], "JOINT/%d", scn->mech->joints[k % nj].id);
        }
        else
        {
            const app_scenario_motion* m = &scn->mech->motions[k - 2 * nj];
            snprintf(mlabels[k], sizeof mlabels[k], "MOTION/%d (%s)", m->id, m->rotation ? "torque" : "force");
        }
        ms[k] = (app_plot_series){mlabels[k], mh->t, mh->y + (size_t)k * mh->cap, mh->rows};
    }
    if (ok)
    {
        char title[300], xl[64], fl[64], dl[64], tl[96], dr[192];
        const char* base = strrchr(scn->path, '/');
        snprintf(title, sizeof title, "%s: %s", base != NULL ? base + 1 : scn->path,
                 nc > 0 && nms > 0 ? "contacts and joints"
                 : nc > 0          ? "contacts"
                                   : "joints");
        with_unit(xl, sizeof xl, "time", scn->time_unit);
        with_unit(fl, sizeof fl, "force", scn->force_unit);
        with_unit(dl, sizeof dl, "depth", scn->length_unit);
        char tu[72];
        snprintf(tu, sizeof tu, "%s %s", scn->force_unit, scn->length_unit);
        with_unit(tl, sizeof tl, "torque", scn->force_unit[0] ? tu : "");
        snprintf(dr, sizeof dr, "force [%s] or torque [%s]", scn->force_unit, tu);
        app_plot_panel panels[7];
        int np = 0;
        if (nc > 0)
        {
            panels[np++] =
                (app_plot_panel){"Normal force per contact (sum over its regions)", fl, series, nc, NULL, 0, NULL, 0};
            panels[np++] = (app_plot_panel){
                "Friction force per contact (magnitude of the sum)", fl, series + nc, nc, NULL, 0, NULL, 0};
            panels[np++] =
                (app_plot_panel){"Penetration per contact (deepest region)", dl, series + 2 * nc, nc, NULL, 0, NULL, 0};
            panels[np++] = (app_plot_panel){"Contact incidents (from the first to the last step in contact)",
                                            NULL,
                                            NULL,
                                            0,
                                            rows,
                                            nc,
                                            bars,
                                            (size_t)s->incident_count};
        }
        if (nj > 0)
        {
            panels[np++] = (app_plot_panel){"Joint reaction force on I (magnitude)", fl, ms, nj, NULL, 0, NULL, 0};
            panels[np++] =
                (app_plot_panel){"Joint reaction torque on I (magnitude)", tl, ms + nj, nj, NULL, 0, NULL, 0};
        }
        if (nm > 0)
        {
            panels[np++] = (app_plot_panel){"MOTION driver force or torque (on I, along or about the joint axis)",
                                            scn->force_unit[0] ? dr : "force or torque",
                                            ms + 2 * nj,
                                            nm,
                                            NULL,
                                            0,
                                            NULL,
                                            0};
        }
        ok = app_plot_write_panels(path, title, xl, panels, np, 0.0, scn->end_time);
    }
    free(ms);
    free(mlabels);
    free(series);
    free(labels);
    free(rows);
    free(ts);
    free(ys);
    free(bars);
    return ok;
}

bool app_sim_run(app_sim* s, FILE* csv, const char* svg_path, char* err, size_t cap)
{
    app_sim_outputs o = {csv, NULL, svg_path, NULL, NULL};
    return app_sim_run_outputs(s, &o, err, cap);
}

bool app_sim_run_outputs(app_sim* s, const app_sim_outputs* out, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    if (scn->statics.line != 0 && !s->statics.done && !app_sim_static(s, err, cap)) // SIMULATE/STATIC: sim_static.c
    {
        return false;
    }
    int nout = scn->steps;
    double dt_out = scn->end_time / nout;
    int64_t nsub = s->substeps;
    double h = dt_out / (double)nsub;
    int first = (int)floor(s->time / dt_out + 0.5);
    nout = scn->statics.only ? first : nout; // a STATIC alone: the equilibrium is the only row
    int nc = scn->contact_count;
    FILE* csv = out->csv;
    FILE* ccsv = out->contacts_csv;
    plot_history hist;
    memset(&hist, 0, sizeof hist);
    mech_history mh;
    bool plot = out->svg_path != NULL && nc > 0;
    app_sim_contact_peaks* peaks = calloc((size_t)(nc > 0 ? nc : 1), sizeof *peaks);
    memset(&mh, 0, sizeof mh);
    bool mech_ok = out->svg_path == NULL || mech_create(&mh, s, (size_t)(nout - first + 1));
    if (peaks == NULL || !mech_ok || (plot && !history_create(&hist, nc, scn->end_time)))
    {
        if (plot)
        {
            history_free(&hist);
        }
        mech_free(&mh);
        free(peaks);
        return sim_set_err(err, cap, "out of memory for the plot");
    }
    bool ok = true;
    if (csv != NULL)
    {
        csv_header(scn, csv);
        csv_row(s, csv);
    }
    if (ccsv != NULL)
    {
        app_sim_write_contacts_header(s, ccsv);
        app_sim_take_peaks(s, peaks);
        app_sim_write_contacts_rows(s, ccsv, peaks);
    }
    if (out->tracks_csv != NULL)
    {
        app_sim_write_tracks_header(s, out->tracks_csv);
        app_sim_write_tracks_rows(s, out->tracks_csv);
    }
    if (plot)
    {
        history_add(&hist, s->time, s);
    }
    bool ok_mech = mech_add(&mh, s, err, cap);
    if (out->anim != NULL)
    {
        app_anim_output(out->anim, s);
    }
    ok = ok && ok_mech;
    bool bdf = scn->integrator == APP_SCENARIO_BDF;
    for (int k = first + 1; ok && k <= nout; ++k)
    {
        for (int64_t j = 0; ok && (bdf ? s->time < k * dt_out : j < nsub); ++j)
        {
            ok = bdf ? app_sim_step_bdf(s, k * dt_out, err, cap) : app_sim_step(s, h, err, cap);
            if (ok && plot)
            {
                history_add(&hist, s->time, s);
            }
            if (ok && out->anim != NULL)
            {
                app_anim_step(out->anim, s);
            }
        }
        // Output times are exact multiples of dt_out (no drift from summing steps).
        if (ok)
        {
            s->time = k * dt_out;
            if (csv != NULL)
            {
                csv_row(s, csv);
            }
            ok = mech_add(&mh, s, err, cap);
            if (ok && ccsv != NULL)
            {
                app_sim_take_peaks(s, peaks);
                app_sim_write_contacts_rows(s, ccsv, peaks);
            }
            if (out->tracks_csv != NULL)
            {
                app_sim_write_tracks_rows(s, out->tracks_csv);
            }
            if (out->anim != NULL)
            {
                app_anim_output(out->anim, s);
            }
            if (s->opt.progress != NULL)
            {
                s->opt.progress((double)k / nout, s->opt.progress_user);
            }
        }
    }
    for (int c = 0; ok && c < nc; ++c)
    {
        if (s->open_incident[c] >= 0)
        {
            s->incidents[s->open_incident[c]].end = s->time;
        }
    }
    if (ok)
    {
        sim_warn_tolerances(s);
    }
    if (ok && csv != NULL && ferror(csv))
    {
        ok = sim_set_err(err, cap, "error writing the CSV");
    }
    if (ok && out->tracks_csv != NULL && ferror(out->tracks_csv))
    {
        ok = sim_set_err(err, cap, "error writing the tracks CSV");
    }
    if (ok && ccsv != NULL && ferror(ccsv))
    {
        ok = sim_set_err(err, cap, "error writing the contacts CSV");
    }
    if (ok && out->svg_path != NULL)
    {
        if (nc == 0 && mh.joints + mh.motions == 0)
        {
            app_plot_series none = {"", NULL, NULL, 0};
            ok = app_plot_write_svg(out->svg_path, "no contacts", "time", "force", &none, 0, 0.0, scn->end_time);
        }
        else
        {
            ok = write_plot(s, &hist, &mh, out->svg_path);
        }
        if (!ok)
        {
            sim_set_err(err, cap, "%s: cannot write the plot", out->svg_path);
        }
    }
    if (plot)
    {
        history_free(&hist);
    }
    mech_free(&mh);
    free(peaks);
    return ok;
}
