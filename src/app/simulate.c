// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Rigid-body simulation of a scenario for `meshcontact simulate` (see simulate.h): options, warnings and the
// getters. The simulator's other files: sim_setup.c (parts, bodies, contacts, force elements, the multibody model),
// sim_step.c (evaluation, summaries, peaks, tracks, incidents, the RK4 step), sim_implicit.c (the BDF integration and
// its Jacobian), sim_outputs.c (the motion CSV, the contacts plot, the run loop); sim_internal.h holds their state.
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool sim_set_err(char* err, size_t cap, const char* fmt, ...)
{
    if (err != NULL && cap > 0)
    {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return false;
}

app_sim_options app_sim_default_options(void)
{
    app_sim_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/// A warning: kept for app_sim_get_warnings (out of memory drops it there) and passed to the callback.
void sim_warn(app_sim* s, const char* fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char** nw = realloc(s->warnings, (size_t)(s->warning_count + 1) * sizeof *nw);
    if (nw != NULL)
    {
        s->warnings = nw;
        size_t n = strlen(msg) + 1;
        nw[s->warning_count] = malloc(n);
        if (nw[s->warning_count] != NULL)
        {
            memcpy(nw[s->warning_count++], msg, n);
        }
    }
    if (s->opt.warn != NULL)
    {
        s->opt.warn(msg, s->opt.warn_user);
    }
}

void app_sim_get_mass_properties(const app_sim* s, int i, double* mass, mc_vec3* cm, mc_mat33* inertia)
{
    if (mass != NULL)
    {
        *mass = s->mass[i];
    }
    if (cm != NULL)
    {
        *cm = s->cm[i];
    }
    if (inertia != NULL)
    {
        *inertia = s->inertia[i];
    }
}

double app_sim_get_step_size(const app_sim* s)
{
    return s->h;
}

int64_t app_sim_get_substeps(const app_sim* s)
{
    return s->substeps;
}

double app_sim_get_time_scale(const app_sim* s)
{
    return s->time_scale;
}

double app_sim_get_time(const app_sim* s)
{
    return s->time;
}

const app_scenario* app_sim_get_scenario(const app_sim* s)
{
    return s->scn;
}

uint64_t app_sim_get_evaluations(const app_sim* s)
{
    return s->evaluations;
}

bool app_sim_get_reactions(const app_sim* s, mc_wrench* joints, double* motions, char* err, size_t cap)
{
    return s->mb != NULL ? app_mb_get_reactions(s->mb, joints, motions, err, cap) : sim_set_err(err, cap, "no JOINT");
}

int app_sim_get_redundant_constraints(const app_sim* s)
{
    return s->mb != NULL ? app_mb_redundant_count(s->mb) : 0;
}

app_sim_step_stats app_sim_get_step_stats(const app_sim* s)
{
    app_sim_step_stats st = s->stats;
    if (s->scn->integrator == APP_SCENARIO_RK4)
    {
        st.min_step = s->scn->end_time / s->scn->steps / (double)s->substeps;
        st.max_step = st.min_step;
    }
    return st;
}

void app_sim_get_part(const app_sim* s, int i, mc_pose* pose, mc_twist* twist, mc_wrench* wrench)
{
    if (pose != NULL)
    {
        pose->p = s->state[i].p;
        pose->q = s->state[i].q;
    }
    if (twist != NULL)
    {
        twist->v = s->state[i].v;
        twist->w = s->state[i].w;
    }
    if (wrench != NULL)
    {
        *wrench = s->part_wrench[i];
    }
}

const mc_mesh* app_sim_get_graphics_mesh(const app_sim* s, int gi, mc_pose* mesh_in_body)
{
    const app_scenario_graphics* g = &s->scn->graphics[gi];
    *mesh_in_body = mc_pose_mul(&g->local, &s->mesh_offset[gi]);
    mesh_in_body->p = mc_sub(mesh_in_body->p, s->cm[g->part_index]); // as body_for: from the centre of mass
    return s->meshes[gi];
}

app_sim_contact_summary app_sim_get_contact(const app_sim* s, int i)
{
    return s->summary[i];
}

const app_sim_incident* app_sim_get_incidents(const app_sim* s, int* count)
{
    *count = s->incident_count;
    return s->incidents;
}

const char* const* app_sim_get_warnings(const app_sim* s, int* count)
{
    *count = s->warning_count;
    return (const char* const*)s->warnings;
}

/// `PART/id <shape>` of one geometry.
static void geometry_label(const app_scenario* scn, int gi, char* out, size_t cap)
{
    static const char* const shapes[] = {"", "BOX", "SPHERE", "ELLIPSOID", "CYLINDER", "FRUSTUM", "TORUS", "PLANE"};
    const app_scenario_graphics* g = &scn->graphics[gi];
    const char* what = shapes[g->shape];
    if (g->shape == APP_SCENARIO_FILE)
    {
        const char* base = strrchr(g->path, '/');
        what = base != NULL ? base + 1 : g->path;
    }
    snprintf(out, cap, "PART/%d %s", scn->parts[g->part_index].id, what);
}

void app_sim_contact_label(const app_sim* s, int i, char* out, size_t cap)
{
    const app_scenario_contact* c = &s->scn->contacts[i];
    char a[160], b[160];
    geometry_label(s->scn, c->igeom[0], a, sizeof a);
    geometry_label(s->scn, c->jgeom[0], b, sizeof b);
    snprintf(out, cap, "CONTACT/%d: %s%s - %s%s", c->id, a, c->igeom_count > 1 ? " ..." : "", b,
             c->jgeom_count > 1 ? " ..." : "");
}

/// After a run: one warning per contact whose deepest penetration stayed below the faceting tolerance of one of its
/// curved primitives (its force then depends on how the facets lie more than on the depth).
void sim_warn_tolerances(app_sim* s)
{
    const app_scenario* scn = s->scn;
    for (int c = 0; c < scn->contact_count; ++c)
    {
        double depth = 0.0;
        for (int k = 0; k < s->incident_count; ++k)
        {
            depth = s->incidents[k].contact == c ? fmax(depth, s->incidents[k].max_depth) : depth;
        }
        const app_scenario_contact* sc = &scn->contacts[c];
        int worst = -1;
        for (int k = 0; k < sc->igeom_count + sc->jgeom_count; ++k)
        {
            int g = k < sc->igeom_count ? sc->igeom[k] : sc->jgeom[k - sc->igeom_count];
            worst = worst < 0 || s->chord_tol[g] > s->chord_tol[worst] ? g : worst;
        }
        if (depth > 0.0 && worst >= 0 && depth < s->chord_tol[worst])
        {
            sim_warn(s,
                     "%s:%d: CONTACT/%d: the deepest penetration, %.3g, is less than the faceting tolerance %.3g of "
                     "GRAPHICS/%d: the force depends on the facets more than on the depth (set a smaller "
                     "CHORD_TOLERANCE=)",
                     scn->path, sc->line, sc->id, depth, s->chord_tol[worst], scn->graphics[worst].id);
        }
    }
}
