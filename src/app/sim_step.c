// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's evaluation (part of simulate.c's module, state in sim_internal.h): the world's forces at a state,
// contact summaries, peaks, tracked regions, incidents, the committed state, and the fixed-step RK4 step.
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// R A R^T v for a body-frame matrix A.
static mc_vec3 rotate_apply(mc_quat q, const mc_mat33* a, mc_vec3 v)
{
    mc_vec3 vb = mc_quat_rotate(mc_quat_conj(q), v);
    return mc_quat_rotate(q, mc_mat33_mul_vec(a, vb));
}

static bool vec_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation and integration
// ---------------------------------------------------------------------------------------------------------------

/// The view of region r of scenario contact c (see app_sim_region_view).
static app_sim_region_view region_view(const app_scenario_contact* c, const mc_contact_region* r)
{
    app_sim_region_view v;
    memset(&v, 0, sizeof v);
    v.point = r->region.centroid;
    v.normal = r->region.normal;
    v.depth = r->region.depth;
    v.rate = r->rate;
    v.area = r->region.area;
    v.volume = r->region.volume;
    v.fn = r->normal_force;
    v.rejected = r->rejected;
    if (!r->rejected && r->region.depth > 0.0)
    {
        double g = r->region.depth;
        v.fn_stiffness = c->model == APP_SCENARIO_IMPACT ? c->stiffness * pow(g, c->exponent) : c->penalty * g;
        if (c->laws != NULL && c->laws->normal != APP_LAW_NORMAL_NONE)
        {
            v.fn_stiffness = app_laws_elastic(c->laws, g, v.fn); // RecurDyn f_ns, DYMORE F_el (scenario_laws.h)
        }
    }
    v.fn_damping = v.fn - v.fn_stiffness;
    v.ft = mc_length(r->friction_force);
    v.slip = r->slip_speed;
    return v;
}

/// Part of the world body `id` (bodies are created in order and never destroyed, so its slot is its index).
int sim_part_of_body(const app_sim* s, mc_body_id id)
{
    int b = id.index1 - 1;
    if (b < 0 || b >= s->body_count || s->bodies[b].id.index1 != id.index1)
    {
        for (b = 0; b < s->body_count && s->bodies[b].id.index1 != id.index1; ++b)
        {
        }
    }
    return b < s->body_count ? s->bodies[b].part : 0;
}

/// Fetch the region records of the last evaluation (at state st) into s->regions and sum them per scenario contact
/// into sums (NULL: nothing to do).
static bool summarize(app_sim* s, const rb_state* st, app_sim_contact_summary* sums, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    if (sums == NULL || scn->contact_count == 0)
    {
        return true;
    }
    memset(sums, 0, (size_t)scn->contact_count * sizeof *sums);
    if (s->body_count == 0)
    {
        return true;
    }
    uint32_t count = mc_world_get_regions(s->world, s->regions, s->region_cap);
    if (count > s->region_cap)
    {
        uint32_t nc = count + count / 2 + 8;
        mc_contact_region* r = realloc(s->regions, (size_t)nc * sizeof *r);
        if (r == NULL)
        {
            return sim_set_err(err, cap, "out of memory");
        }
        s->regions = r;
        s->region_cap = nc;
        count = mc_world_get_regions(s->world, s->regions, s->region_cap);
    }
    double* best = s->best_fn;
    for (uint32_t k = 0; k < count && k < s->region_cap; ++k)
    {
        const mc_contact_region* r = &s->regions[k];
        const sim_wcontact* wc = NULL;
        for (int w = 0; w < s->wcontact_count; ++w)
        {
            if (s->wcontacts[w].id.index1 == r->contact.index1 &&
                s->wcontacts[w].id.generation == r->contact.generation)
            {
                wc = &s->wcontacts[w];
                break;
            }
        }
        if (wc == NULL)
        {
            continue;
        }
        app_sim_contact_summary* sm = &sums[wc->contact];
        mc_vec3 f = mc_add(mc_scale(r->region.normal, r->normal_force), r->friction_force);
        mc_vec3 arm = mc_sub(r->region.centroid, st[sim_part_of_body(s, r->body_j)].p);
        sm->normal_force += r->normal_force;
        sm->force_on_j = mc_add(sm->force_on_j, f);
        sm->friction_on_j = mc_add(sm->friction_on_j, r->friction_force);
        sm->torque_on_j = mc_add(sm->torque_on_j, mc_add(mc_cross(arm, f), r->friction_torque));
        sm->regions += 1;
        sm->rejected += r->rejected ? 1 : 0;
        sm->depth = fmax(sm->depth, r->region.depth);
        sm->volume += r->region.volume;
        if (sm->regions == 1 || r->normal_force > best[wc->contact])
        {
            best[wc->contact] = r->normal_force;
            sm->dominant = region_view(&scn->contacts[wc->contact], r);
        }
    }
    return true;
}

/// The wrenches of the mechanism's force elements at state `st` (sim_forces.c); NULL with err on a domain error.
const mc_wrench* sim_mech_forces(app_sim* s, const rb_state* st, char* err, size_t cap)
{
    app_part_motion* m = app_sim_forces_motions(s->forces);
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        m[i] = (app_part_motion){st[i].p, mc_quat_normalize(st[i].q), st[i].v, st[i].w};
    }
    return app_sim_forces_apply(s->forces, st == s->state ? s->time : s->force_time, err, cap);
}

/// Evaluate contact wrenches at state `st` and the derivative `d`. With `record`, keep the wrenches as the current
/// ones. The contact summaries go to sums (may be NULL).
bool sim_evaluate(app_sim* s, const rb_state* st, rb_deriv* d, bool record, app_sim_contact_summary* sums, char* err,
                  size_t cap)
{
    const app_scenario* scn = s->scn;
    for (int b = 0; b < s->body_count; ++b)
    {
        const sim_body* sb = &s->bodies[b];
        const rb_state* ps = &st[sb->part];
        mc_pose part_pose = {ps->p, mc_quat_normalize(ps->q)};
        s->body_poses[b] = mc_pose_mul(&part_pose, &sb->local);
        s->body_twists[b].w = ps->w;
        s->body_twists[b].v = mc_add(ps->v, mc_cross(ps->w, mc_sub(s->body_poses[b].p, ps->p)));
    }
    uint32_t n = (uint32_t)s->body_count;
    for (uint32_t b = 0; b < n; ++b)
    {
        // Caught here, with the part's name, before the library sees it (issue 41: a debug library asserts).
        double v[13] = {s->body_poses[b].p.x,  s->body_poses[b].p.y,  s->body_poses[b].p.z,  s->body_poses[b].q.w,
                        s->body_poses[b].q.x,  s->body_poses[b].q.y,  s->body_poses[b].q.z,  s->body_twists[b].v.x,
                        s->body_twists[b].v.y, s->body_twists[b].v.z, s->body_twists[b].w.x, s->body_twists[b].w.y,
                        s->body_twists[b].w.z};
        if (app_sim_first_non_finite(v, 13) >= 0)
        {
            return sim_set_err(err, cap,
                               "PART/%d: the state became non-finite at t = %g (the step is too long for the contact "
                               "stiffness, or MASS or IP too small for the forces: set a smaller INTEGRATOR/HMAX= or "
                               "check the units)",
                               scn->parts[s->bodies[b].part].id, s->time);
        }
    }
    if (n > 0)
    {
        if (mc_world_set_poses(s->world, s->ids, s->body_poses, n) != MC_OK ||
            mc_world_set_velocities(s->world, s->ids, s->body_twists, n) != MC_OK)
        {
            return sim_set_err(err, cap,
                               "the state became non-finite at t = %g (the step is too long for the contact "
                               "stiffness: set a smaller INTEGRATOR/HMAX=)",
                               s->time);
        }
        mc_status stt = mc_world_evaluate(s->world);
        ++s->evaluations;
        if (stt != MC_OK)
        {
            return sim_set_err(err, cap, "contact evaluation failed at t = %g: %s", s->time,
                               stt == MC_ERR_OUT_OF_RANGE
                                   ? "a contact force is not finite (a force parameter too large for this state?)"
                                   : mc_status_string(stt));
        }
        if (mc_world_get_step_info(s->world).flags & MC_STEP_PAIR_FAILED)
        {
            // A pair without forces would be a silent error in the motion.
            return sim_set_err(
                err, cap,
                "%s: a contact pair could not be computed at t = %g (two ANALYTIC cylinders that were parallel at "
                "the start and turned apart? shape.h computes them only while parallel: give one ANALYTIC=NO)",
                s->scn->path, s->time);
        }
        mc_world_get_wrenches(s->world, s->ids, s->body_wrenches, n);
    }
    mc_wrench* pw = record ? s->part_wrench : s->stage_wrench;
    memset(pw, 0, (size_t)scn->part_count * sizeof *pw);
    for (int b = 0; b < s->body_count; ++b)
    {
        const sim_body* sb = &s->bodies[b];
        const mc_wrench* w = &s->body_wrenches[b];
        mc_vec3 r = mc_sub(s->body_poses[b].p, st[sb->part].p);
        pw[sb->part].force = mc_add(pw[sb->part].force, w->force);
        pw[sb->part].torque = mc_add(pw[sb->part].torque, mc_add(w->torque, mc_cross(r, w->force)));
    }
    const mc_wrench* fw = NULL; // the mechanism's force elements
    if (s->forces != NULL && (fw = sim_mech_forces(s, st, err, cap)) == NULL)
    {
        return false;
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        const app_scenario_part* part = &scn->parts[i];
        rb_deriv* di = &d[i];
        memset(di, 0, sizeof *di);
        if (part->ground)
        {
            continue;
        }
        const rb_state* x = &st[i];
        mc_quat q = mc_quat_normalize(x->q);
        di->dp = x->v;
        mc_quat wq = {0.0, x->w.x, x->w.y, x->w.z};
        mc_quat qd = mc_quat_mul(wq, x->q);
        di->dq.w = 0.5 * qd.w;
        di->dq.x = 0.5 * qd.x;
        di->dq.y = 0.5 * qd.y;
        di->dq.z = 0.5 * qd.z;
        mc_wrench tw = pw[i];
        if (fw != NULL)
        {
            tw.force = mc_add(tw.force, fw[i].force);
            tw.torque = mc_add(tw.torque, fw[i].torque);
        }
        di->dv = mc_add(mc_scale(tw.force, 1.0 / s->mass[i]), scn->gravity);
        mc_vec3 lw = rotate_apply(q, &s->inertia[i], x->w);
        mc_vec3 rhs = mc_sub(tw.torque, mc_cross(x->w, lw));
        di->dw = rotate_apply(q, &s->inv_inertia[i], rhs);
    }
    return summarize(s, st, sums, err, cap);
}

/// Fold the current summary into the peaks.
void sim_update_peaks(app_sim* s)
{
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* sm = &s->summary[c];
        app_sim_contact_peaks* pk = &s->peaks[c];
        if (sm->normal_force > pk->fn_max)
        {
            pk->fn_max = sm->normal_force;
            pk->fn_max_time = s->time;
        }
        pk->ft_max = fmax(pk->ft_max, mc_length(sm->friction_on_j));
        pk->depth_max = fmax(pk->depth_max, sm->depth);
        pk->slip_max = fmax(pk->slip_max, sm->dominant.slip);
    }
}

void app_sim_take_peaks(app_sim* s, app_sim_contact_peaks* out)
{
    int nc = s->scn->contact_count;
    if (out != NULL && nc > 0)
    {
        memcpy(out, s->peaks, (size_t)nc * sizeof *out);
    }
    for (int c = 0; c < nc; ++c)
    {
        memset(&s->peaks[c], 0, sizeof s->peaks[c]);
        s->peaks[c].fn_max_time = s->time;
    }
}

/// @return the scenario contact of a world contact id, or -1.
static int contact_of(const app_sim* s, mc_contact_id id)
{
    for (int w = 0; w < s->wcontact_count; ++w)
    {
        if (s->wcontacts[w].id.index1 == id.index1 && s->wcontacts[w].id.generation == id.generation)
        {
            return s->wcontacts[w].contact;
        }
    }
    return -1;
}

/// Make room for n regions' track ids and one more track. @return false when out of memory
static bool track_reserve(app_sim* s, uint32_t n)
{
    if (n > s->region_track_cap)
    {
        uint32_t nc = n + n / 2 + 8;
        int* rt = realloc(s->region_track, (size_t)nc * sizeof *rt);
        s->region_track = rt != NULL ? rt : s->region_track;
        int* rc = realloc(s->region_contact, (size_t)nc * sizeof *rc);
        s->region_contact = rc != NULL ? rc : s->region_contact;
        if (rt == NULL || rc == NULL)
        {
            return false;
        }
        s->region_track_cap = nc;
    }
    if (s->track_count == s->track_cap)
    {
        int nc = s->track_cap * 2 + 8;
        sim_track* t = realloc(s->tracks, (size_t)nc * sizeof *t);
        s->tracks = t != NULL ? t : s->tracks;
        unsigned char* u = realloc(s->track_used, (size_t)nc);
        s->track_used = u != NULL ? u : s->track_used;
        if (t == NULL || u == NULL)
        {
            return false;
        }
        s->track_cap = nc;
    }
    return true;
}

/// Contact tracks, after each step: every region of the new state continues the nearest track of its contact whose
/// last point lies within the sum of the two equivalent radii (each track continued once; regions in the world's
/// fixed order), or starts a new track; tracks left without a region end. Deterministic: fixed orders only.
/// @return false when out of memory
bool sim_update_tracks(app_sim* s)
{
    uint32_t count = s->body_count > 0 ? mc_world_get_regions(s->world, NULL, 0) : 0;
    count = count < s->region_cap ? count : s->region_cap;
    if (!track_reserve(s, count))
    {
        return false;
    }
    memset(s->track_used, 0, (size_t)s->track_cap);
    for (uint32_t k = 0; k < count; ++k)
    {
        const mc_contact_region* r = &s->regions[k];
        int c = contact_of(s, r->contact);
        int best = -1;
        double best_d = INFINITY;
        for (int t = 0; c >= 0 && t < s->track_count; ++t)
        {
            const sim_track* tr = &s->tracks[t];
            double d = mc_length(mc_sub(r->region.centroid, tr->point));
            if (tr->contact == c && !s->track_used[t] && d <= r->region.radius + tr->radius && d < best_d)
            {
                best = t;
                best_d = d;
            }
        }
        if (best < 0)
        {
            if (!track_reserve(s, count))
            {
                return false;
            }
            best = s->track_count++;
            s->tracks[best].contact = c;
            s->tracks[best].id = c >= 0 ? ++s->next_track[c] : 0;
        }
        s->track_used[best] = 1;
        s->tracks[best].point = r->region.centroid;
        s->tracks[best].radius = r->region.radius;
        s->region_track[k] = s->tracks[best].id;
        s->region_contact[k] = c;
    }
    int kept = 0;
    for (int t = 0; t < s->track_count; ++t)
    {
        if (s->track_used[t])
        {
            s->tracks[kept++] = s->tracks[t];
        }
    }
    s->track_count = kept;
    s->tracked_regions = count;
    return true;
}

bool app_sim_get_tracked_region(const app_sim* s, int k, app_sim_tracked_region* out)
{
    if (k < 0 || (uint32_t)k >= s->tracked_regions || s->region_contact[k] < 0)
    {
        return false;
    }
    out->contact = s->region_contact[k];
    out->track = s->region_track[k];
    out->region = s->regions[k];
    return true;
}

int app_sim_get_tracked_region_count(const app_sim* s)
{
    return (int)s->tracked_regions;
}

/// The impact penetration of contact c when it closes at `rate`: all the kinetic energy of the contact's lightest
/// part at that speed stored by the stiffness law, ((e + 1) m gdot^2 / (2 k))^(1 / (e + 1)); the contact's
/// scenario-wide bound (contact_gmax) when the law gives none.
double sim_impact_penetration(const app_sim* s, int c, double rate)
{
    const app_scenario_contact* sc = &s->scn->contacts[c];
    double k = sc->model == APP_SCENARIO_IMPACT ? sc->stiffness : sc->penalty;
    double e = sc->model == APP_SCENARIO_IMPACT ? sc->exponent : 1.0;
    double m = s->contact_mass[c];
    double g = pow((e + 1.0) * m * rate * rate / (2.0 * k), 1.0 / (e + 1.0));
    return isfinite(g) && g > 0.0 ? g : s->contact_gmax[c];
}

/// Steps this short (in integration steps) make a contact incident badly resolved.
#define SHORT_INCIDENT_STEPS 8

/// Close incident k of contact c at time t (the end of its last step).
static void close_incident(app_sim* s, int c, double t)
{
    app_sim_incident* in = &s->incidents[s->open_incident[c]];
    in->open = false;
    in->end = t;
    s->open_incident[c] = -1;
    const app_scenario_contact* sc = &s->scn->contacts[c];
    // An impact (its impulse changes the velocity of the lightest moving part in the contact by more than three times
    // what gravity does over the same time: not a graze nor a resting touch) over a few steps only: the step
    // cannot resolve it.
    double dv = s->contact_mass[c] > 0.0 ? in->normal_impulse / s->contact_mass[c] : 0.0;
    if (s->scn->integrator == APP_SCENARIO_RK4 && in->steps < SHORT_INCIDENT_STEPS && dv > 0.0 && !s->step_warned[c] &&
        dv > 3.0 * mc_length(s->scn->gravity) * (in->end - in->start))
    {
        s->step_warned[c] = true;
        sim_warn(s,
                 "%s:%d: CONTACT/%d: an impact at t = %.6g lasted %lld integration steps of %.3g only: the step is too "
                 "long to resolve it (set INTEGRATOR/HMAX= to %.2g or less)",
                 s->scn->path, sc->line, sc->id, in->start, (long long)in->steps, s->h,
                 (in->end - in->start) / (4.0 * SHORT_INCIDENT_STEPS));
    }
}

/// After a step from t0 of length h: extend, open or close every contact's incident and add the step's impulses
/// with the integrator's quadrature weights: RK4's stages s->summary (the step's first), stage_summary[1..3] with
/// weights 1, 2, 2, 1 (sum 6), or for BDF the step's two ends s->summary and stage_summary[0] with weights 1, 1
/// (sum 2, the trapezoidal rule). stage_summary[0] is the new state. @return false when out of memory
static bool track_incidents(app_sim* s, double h, double t0)
{
    static const double rk4_weight[4] = {1.0, 2.0, 2.0, 1.0};
    static const double bdf_weight[2] = {1.0, 1.0};
    bool rk4 = s->scn->integrator == APP_SCENARIO_RK4;
    const double* weight = rk4 ? rk4_weight : bdf_weight;
    int stages = rk4 ? 4 : 2;
    double wsum = rk4 ? 6.0 : 2.0;
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* st[4] = {&s->summary[c], rk4 ? &s->stage_summary[1][c] : &s->stage_summary[0][c],
                                                &s->stage_summary[2][c], &s->stage_summary[3][c]};
        const app_sim_contact_summary* end = &s->stage_summary[0][c];
        bool touching = end->regions > 0;
        for (int k = 0; k < stages; ++k)
        {
            touching = touching || st[k]->regions > 0;
        }
        if (!touching)
        {
            if (s->open_incident[c] >= 0)
            {
                close_incident(s, c, t0);
            }
            continue;
        }
        if (s->open_incident[c] < 0)
        {
            if (s->incident_count == s->incident_cap)
            {
                int ncap = s->incident_cap * 2 + 16;
                app_sim_incident* ni = realloc(s->incidents, (size_t)ncap * sizeof *ni);
                if (ni == NULL)
                {
                    return false;
                }
                s->incidents = ni;
                s->incident_cap = ncap;
            }
            app_sim_incident* in = &s->incidents[s->incident_count];
            memset(in, 0, sizeof *in);
            in->contact = c;
            in->start = t0;
            in->open = true;
            // The state at t0 is a sample too (an incident present at t = 0).
            in->max_depth = st[0]->depth;
            in->max_fn = st[0]->normal_force;
            in->max_fn_time = t0;
            in->max_ft = mc_length(st[0]->friction_on_j);
            s->incident_ft[c] = mc_v3(0.0, 0.0, 0.0);
            s->open_incident[c] = s->incident_count++;
            if (t0 > 0.0 || st[0]->regions == 0)
            {
                in->onset_depth = end->depth;
                double rate = end->dominant.rate;
                in->impact_depth = rate > 0.0 ? sim_impact_penetration(s, c, rate) : 0.0;
            }
        }
        app_sim_incident* in = &s->incidents[s->open_incident[c]];
        in->steps += 1;
        in->end = t0 + h;
        double fn = 0.0;
        mc_vec3 f = mc_v3(0.0, 0.0, 0.0), ft = mc_v3(0.0, 0.0, 0.0);
        for (int k = 0; k < stages; ++k)
        {
            fn += weight[k] * st[k]->normal_force;
            f = mc_mul_add(f, weight[k], st[k]->force_on_j);
            ft = mc_mul_add(ft, weight[k], st[k]->friction_on_j);
        }
        in->normal_impulse += h / wsum * fn;
        in->impulse = mc_mul_add(in->impulse, h / wsum, f);
        s->incident_ft[c] = mc_mul_add(s->incident_ft[c], h / wsum, ft);
        in->friction_impulse = mc_length(s->incident_ft[c]);
        if (end->normal_force > in->max_fn)
        {
            in->max_fn = end->normal_force;
            in->max_fn_time = t0 + h;
        }
        in->max_depth = fmax(in->max_depth, end->depth);
        in->max_ft = fmax(in->max_ft, mc_length(end->friction_on_j));
    }
    return true;
}

/// @return true when a contact of the scenario has STICTION = ON.
bool sim_has_stiction(const app_scenario* scn)
{
    for (int c = 0; c < scn->contact_count; ++c)
    {
        if (scn->contacts[c].stiction)
        {
            return true;
        }
    }
    return false;
}

/// Accept the state just evaluated by sim_evaluate(s, s->state, s->k[0], true, sums, ...): commit the world's state
/// (stiction anchors) to it, then, when a contact has stiction, evaluate it again (the committed anchors change its
/// friction forces, and k[0] must be the derivative the next step starts from).
bool sim_commit_state(app_sim* s, app_sim_contact_summary* sums, char* err, size_t cap)
{
    if (s->body_count == 0)
    {
        return true;
    }
    if (mc_world_commit(s->world) != MC_OK)
    {
        return sim_set_err(err, cap, "cannot commit the contact state at t = %g", s->time);
    }
    return !sim_has_stiction(s->scn) || sim_evaluate(s, s->state, s->k[0], true, sums, err, cap);
}

/// An Adams depth this many times the region's 2V/A (twice its mean thickness) was not measured across the region.
/// For the shapes it is meant for the ratio is at most about 1: 1 for a spherical cap, at most 1 for a wedge, 1/2 for
/// a flat slab.
#define OFF_REGION_DEPTH_RATIO MC_OFF_REGION_DEPTH_RATIO

/// After an accepted step (regions of the new state in s->regions, their contacts in s->region_contact): one
/// warning per contact whose Adams depth (the distance between the closest points of the two surfaces to the
/// region's centroid) exceeds OFF_REGION_DEPTH_RATIO times the region's 2V/A. That happens when the centroid lies
/// off the region, as for a ring-shaped region (a hollow knob resting on a plate): the closest points then lie apart
/// along the surfaces, and the depth, hence the force, jumps with the region's shape, not with the penetration
/// (measured: a 2.85 g hollow knob dropped 3 cm flat was thrown 17.8 cm up, with either integrator).
static void warn_off_region_depths(app_sim* s)
{
    for (uint32_t k = 0; k < s->tracked_regions; ++k)
    {
        int c = s->region_contact[k];
        const mc_contact_region* r = &s->regions[k];
        if (c < 0 || s->depth_warned[c] || r->rejected ||
            (s->scn->contacts[c].depth != MC_DEPTH_DEFAULT && s->scn->contacts[c].depth != MC_DEPTH_ADAMS))
        {
            continue;
        }
        double vol_area = r->region.area > 0.0 ? 2.0 * r->region.volume / r->region.area : 0.0;
        if (r->depth_off_region) // the library's flag: depth > MC_OFF_REGION_DEPTH_RATIO * 2V/A
        {
            const app_scenario_contact* sc = &s->scn->contacts[c];
            s->depth_warned[c] = true;
            sim_warn(s,
                     "%s:%d: CONTACT/%d: at t = %.6g a region's Adams depth, %.3g, is %.0f times the region's 2V/A "
                     "= %.3g: its centroid lies off the region (a ring-shaped region?), so its depth and force follow "
                     "the region's shape, not the penetration; DEPTH=EXTENT or DEPTH=VOLUME_AREA measure such regions",
                     s->scn->path, sc->line, sc->id, s->time, r->region.depth, r->region.depth / vol_area, vol_area);
        }
    }
}

/// The bookkeeping of an accepted step from t_before of length h, the new state evaluated with its summary in
/// stage_summary[0] (s->summary still the step's start): incidents, peaks and tracks. @return false when out of memory
bool sim_finish_step(app_sim* s, double h, double t_before, char* err, size_t cap)
{
    if (!track_incidents(s, h, t_before))
    {
        return sim_set_err(err, cap, "out of memory");
    }
    app_sim_contact_summary* t = s->summary;
    s->summary = s->stage_summary[0];
    s->stage_summary[0] = t;
    sim_update_peaks(s);
    if (!sim_update_tracks(s))
    {
        return sim_set_err(err, cap, "out of memory");
    }
    warn_off_region_depths(s);
    return true;
}

static void advance(const app_scenario* scn, const rb_state* x, const rb_deriv* d, double h, rb_state* out)
{
    for (int i = 0; i < scn->part_count; ++i)
    {
        out[i] = x[i];
        if (scn->parts[i].ground)
        {
            continue;
        }
        out[i].p = mc_mul_add(x[i].p, h, d[i].dp);
        out[i].v = mc_mul_add(x[i].v, h, d[i].dv);
        out[i].w = mc_mul_add(x[i].w, h, d[i].dw);
        out[i].q.w = x[i].q.w + h * d[i].dq.w;
        out[i].q.x = x[i].q.x + h * d[i].dq.x;
        out[i].q.y = x[i].q.y + h * d[i].dq.y;
        out[i].q.z = x[i].q.z + h * d[i].dq.z;
    }
}

bool app_sim_step(app_sim* s, double h, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    if (s->mb != NULL)
    {
        return sim_mechanism_step(s, h, err, cap);
    }
    if (scn->integrator == APP_SCENARIO_BDF)
    {
        double target = s->time + h;
        bool ok = true;
        while (ok && s->time < target)
        {
            ok = app_sim_step_bdf(s, target, err, cap);
        }
        return ok;
    }
    // k[0] holds the derivative at the current state (evaluated at the end of the previous step or at creation).
    s->force_time = s->time + 0.5 * h;
    advance(scn, s->state, s->k[0], 0.5 * h, s->tmp);
    if (!sim_evaluate(s, s->tmp, s->k[1], false, s->stage_summary[1], err, cap))
    {
        return false;
    }
    advance(scn, s->state, s->k[1], 0.5 * h, s->tmp);
    if (!sim_evaluate(s, s->tmp, s->k[2], false, s->stage_summary[2], err, cap))
    {
        return false;
    }
    s->force_time = s->time + h;
    advance(scn, s->state, s->k[2], h, s->tmp);
    if (!sim_evaluate(s, s->tmp, s->k[3], false, s->stage_summary[3], err, cap))
    {
        return false;
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        if (scn->parts[i].ground)
        {
            continue;
        }
        rb_state* x = &s->state[i];
        const rb_deriv *a = &s->k[0][i], *b = &s->k[1][i], *c = &s->k[2][i], *d = &s->k[3][i];
        double w6 = h / 6.0;
        x->p = mc_add(x->p, mc_scale(mc_add(mc_add(a->dp, mc_scale(mc_add(b->dp, c->dp), 2.0)), d->dp), w6));
        x->v = mc_add(x->v, mc_scale(mc_add(mc_add(a->dv, mc_scale(mc_add(b->dv, c->dv), 2.0)), d->dv), w6));
        x->w = mc_add(x->w, mc_scale(mc_add(mc_add(a->dw, mc_scale(mc_add(b->dw, c->dw), 2.0)), d->dw), w6));
        x->q.w += w6 * (a->dq.w + 2.0 * (b->dq.w + c->dq.w) + d->dq.w);
        x->q.x += w6 * (a->dq.x + 2.0 * (b->dq.x + c->dq.x) + d->dq.x);
        x->q.y += w6 * (a->dq.y + 2.0 * (b->dq.y + c->dq.y) + d->dq.y);
        x->q.z += w6 * (a->dq.z + 2.0 * (b->dq.z + c->dq.z) + d->dq.z);
        x->q = mc_quat_normalize(x->q);
        if (!vec_finite(x->p) || !vec_finite(x->v) || !vec_finite(x->w) || !isfinite(x->q.w))
        {
            return sim_set_err(err, cap,
                               "PART/%d: the state became non-finite at t = %g (the step %g is too long for the "
                               "contact stiffness: set a smaller INTEGRATOR/HMAX=)",
                               scn->parts[i].id, s->time, h);
        }
    }
    double t_before = s->time;
    s->time += h;
    if (!sim_evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) ||
        !sim_commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps += 1;
    return sim_finish_step(s, h, t_before, err, cap);
}

/// One output interval of the multibody model, then the contacts' summaries and incidents at its end.
bool sim_mechanism_step(app_sim* s, double h, char* err, size_t cap)
{
    double t_before = s->time;
    if (!app_mb_step_to(s->mb, s->time + h, err, cap))
    {
        return false;
    }
    app_mb_get_motions(s->mb, s->mb_motion);
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        const app_part_motion* m = &s->mb_motion[i];
        s->state[i] = (rb_state){m->p, m->q, m->v, m->w};
    }
    s->time += h;
    if (!sim_evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) ||
        !sim_commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps = (uint64_t)app_mb_step_count(s->mb);
    return sim_finish_step(s, h, t_before, err, cap);
}
