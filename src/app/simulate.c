// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Rigid-body simulation of a scenario for `meshcontact simulate`: world set-up, fixed-step RK4 (see simulate.h),
// CSV output and the SVG force plot.
#include "src/app/simulate.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// State of one part (ground parts keep their initial state).
typedef struct rb_state
{
    mc_vec3 p; // centre of mass, ground frame
    mc_quat q; // body to ground
    mc_vec3 v; // ground frame
    mc_vec3 w; // ground frame
} rb_state;

/// Time derivative of rb_state.
typedef struct rb_deriv
{
    mc_vec3 dp;
    mc_quat dq;
    mc_vec3 dv;
    mc_vec3 dw;
} rb_deriv;

/// One world body: a GRAPHICS (with a flip state) on a part.
typedef struct sim_body
{
    int graphics;
    bool flip;
    int part;
    mc_pose local; // mesh frame in the part frame
    mc_body_id id;
} sim_body;

/// One world contact: an (I geometry, J geometry) pair of a scenario contact.
typedef struct sim_wcontact
{
    mc_contact_id id;
    int contact; // scenario contact index
} sim_wcontact;

struct app_sim
{
    const app_scenario* scn;
    app_sim_options opt;
    mc_world* world;
    mc_mesh** meshes;     // per GRAPHICS
    mc_pose* mesh_offset; // per GRAPHICS: mesh frame in the geometry frame (primitive conventions)
    sim_body* bodies;
    int body_count;
    sim_wcontact* wcontacts;
    int wcontact_count;
    mc_body_id* ids;
    mc_pose* body_poses;
    mc_twist* body_twists;
    mc_wrench* body_wrenches;
    mc_mat33* inv_inertia; // per part, body frame
    mc_mat33* inertia;     // per part, body frame (about the centre of mass)
    double* mass;          // per part
    mc_vec3* cm;           // per part: centre of mass in the part frame (0 unless DENSITY)
    rb_state* state;
    rb_state* tmp;
    rb_deriv* k[4];
    mc_wrench* part_wrench;           // at the current state
    mc_wrench* stage_wrench;          // scratch
    app_sim_contact_summary* summary; // at the current state
    mc_contact_region* regions;
    uint32_t region_cap;
    double time;
    double h;
    int64_t substeps; ///< integration steps per output interval (h is then dt_out / substeps)
    double time_scale;
    uint64_t evaluations;
};

static bool set_err(char* err, size_t cap, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

static bool set_err(char* err, size_t cap, const char* fmt, ...)
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

static void warn(const app_sim* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(const app_sim* s, const char* fmt, ...)
{
    if (s->opt.warn == NULL)
    {
        return;
    }
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->opt.warn(msg, s->opt.warn_user);
}

// ---------------------------------------------------------------------------------------------------------------
// Small math
// ---------------------------------------------------------------------------------------------------------------

static bool mat_inverse(const mc_mat33* a, mc_mat33* out)
{
    const double(*m)[3] = a->m;
    double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(fabs(det) > 0.0) || !isfinite(det))
    {
        return false;
    }
    double id = 1.0 / det;
    out->m[0][0] = c00 * id;
    out->m[1][0] = c01 * id;
    out->m[2][0] = c02 * id;
    out->m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * id;
    out->m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * id;
    out->m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * id;
    out->m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * id;
    out->m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * id;
    out->m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * id;
    return true;
}

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
// Set-up
// ---------------------------------------------------------------------------------------------------------------

static bool make_mesh(app_sim* s, int gi, char* err, size_t cap)
{
    const app_scenario_graphics* g = &s->scn->graphics[gi];
    mc_error e;
    memset(&e, 0, sizeof e);
    s->mesh_offset[gi] = mc_pose_identity();
    if (g->shape == APP_SCENARIO_FILE)
    {
        mc_import_options io = mc_default_import_options();
        io.scale = g->scale;
        if (g->max_triangles > 0.0)
        {
            io.max_triangles = (uint64_t)g->max_triangles;
        }
        io.self_check = g->accept_self_intersections ? MC_SELF_CHECK_ACCEPT : MC_SELF_CHECK_REFUSE;
        io.repair = g->repair;
        io.chord_tolerance = g->chord_tolerance; // B-rep files only; 0: the import's default
        io.angle_tolerance = g->angle_tolerance;
        mc_mesh_report rep;
        mc_status st = mc_mesh_import_file(g->path, &io, &s->meshes[gi], &rep, &e);
        if (st != MC_OK)
        {
            return set_err(err, cap, "%s:%d: GRAPHICS/%d: %s%s", s->scn->path, g->line, g->id,
                           e.message[0] ? e.message : mc_status_string(st),
                           st == MC_ERR_SELF_INTERSECTING ? " (ACCEPT_SELF_INTERSECTIONS uses it anyway)" : "");
        }
        if (rep.repair.ran)
        {
            char what[600];
            app_repair_summary(&rep.repair, what, sizeof what);
            warn(s, "%s:%d: GRAPHICS/%d: %s repaired as REPAIR asks: %s", s->scn->path, g->line, g->id, g->path, what);
        }
        if (rep.self_check_accepted)
        {
            warn(s,
                 "%s:%d: GRAPHICS/%d: %s intersects itself (%llu pairs of triangles, %u nested and %u inside-out "
                 "shells), used as ACCEPT_SELF_INTERSECTIONS asks: its overlaps count twice",
                 s->scn->path, g->line, g->id, g->path, (unsigned long long)rep.self_intersecting_pairs,
                 rep.nested_components, rep.inverted_components);
        }
        return true;
    }
    mc_primitive_def d = mc_default_primitive_def();
    double largest = 0.0;
    switch (g->shape)
    {
    case APP_SCENARIO_BOX:
        d.type = MC_PRIMITIVE_BOX;
        d.dims = mc_v3(g->size[0], g->size[1], g->size[2]); // full lengths, centred on the mesh origin
        // Adams' box starts at its corner: the mesh origin (the box centre) sits at half the lengths.
        s->mesh_offset[gi].p = mc_v3(0.5 * g->size[0], 0.5 * g->size[1], 0.5 * g->size[2]);
        largest = fmax(g->size[0], fmax(g->size[1], g->size[2]));
        break;
    case APP_SCENARIO_SPHERE:
        d.type = MC_PRIMITIVE_ELLIPSOID;
        d.dims = mc_v3(g->size[0], g->size[0], g->size[0]);
        largest = 2.0 * g->size[0];
        break;
    case APP_SCENARIO_ELLIPSOID:
        d.type = MC_PRIMITIVE_ELLIPSOID;
        d.dims = mc_v3(0.5 * g->size[0], 0.5 * g->size[1], 0.5 * g->size[2]);
        largest = fmax(g->size[0], fmax(g->size[1], g->size[2]));
        break;
    case APP_SCENARIO_CYLINDER:
        d.type = MC_PRIMITIVE_CYLINDER;
        d.dims = mc_v3(g->size[0], 0.0, g->size[1]);
        s->mesh_offset[gi].p = mc_v3(0.0, 0.0, 0.5 * g->size[1]); // the library's cylinder is centred
        largest = fmax(2.0 * g->size[0], g->size[1]);
        break;
    case APP_SCENARIO_FRUSTUM:
        d.type = MC_PRIMITIVE_FRUSTUM;
        d.dims = mc_v3(g->size[0], g->size[1], g->size[2]);
        largest = fmax(2.0 * fmax(g->size[0], g->size[1]), g->size[2]);
        break;
    case APP_SCENARIO_TORUS:
        d.type = MC_PRIMITIVE_TORUS;
        d.dims = mc_v3(g->size[0], g->size[1], 0.0);
        largest = 2.0 * (g->size[0] + g->size[1]);
        break;
    default:
        return set_err(err, cap, "%s:%d: GRAPHICS/%d: unknown shape", s->scn->path, g->line, g->id);
    }
    d.chord_tolerance = g->chord_tolerance > 0.0 ? g->chord_tolerance : 0.005 * largest;
    d.max_angle = g->angle_tolerance;
    if (g->max_triangles > 0.0)
    {
        d.max_triangles = (uint64_t)g->max_triangles;
    }
    mc_status st = mc_mesh_create_primitive(&d, &s->meshes[gi], &e);
    if (st != MC_OK)
    {
        return set_err(err, cap, "%s:%d: GRAPHICS/%d: %s%s", s->scn->path, g->line, g->id,
                       e.message[0] ? e.message : mc_status_string(st),
                       st == MC_ERR_LIMIT ? " (GRAPHICS MAX_TRIANGLES=)" : "");
    }
    return true;
}

/// The world body of (graphics, flip), created on first use. Returns its index or -1.
static int body_for(app_sim* s, int gi, bool flip, char* err, size_t cap)
{
    for (int b = 0; b < s->body_count; ++b)
    {
        if (s->bodies[b].graphics == gi && s->bodies[b].flip == flip)
        {
            return b;
        }
    }
    const app_scenario_graphics* g = &s->scn->graphics[gi];
    if (s->meshes[gi] == NULL && !make_mesh(s, gi, err, cap))
    {
        return -1;
    }
    sim_body* nb = realloc(s->bodies, (size_t)(s->body_count + 1) * sizeof *nb);
    if (nb == NULL)
    {
        set_err(err, cap, "out of memory");
        return -1;
    }
    s->bodies = nb;
    sim_body* b = &nb[s->body_count];
    b->graphics = gi;
    b->flip = flip;
    b->part = g->part_index;
    b->local = mc_pose_mul(&g->local, &s->mesh_offset[gi]);
    b->local.p = mc_sub(b->local.p, s->cm[b->part]); // relative to the centre of mass
    const rb_state* ps = &s->state[b->part];
    mc_body_def bd = mc_default_body_def();
    bd.mesh = s->meshes[gi];
    mc_pose part_pose = {ps->p, mc_quat_normalize(ps->q)};
    bd.pose = mc_pose_mul(&part_pose, &b->local);
    bd.flip = flip;
    b->id = mc_world_create_body(s->world, &bd);
    if (!mc_body_is_valid(s->world, b->id))
    {
        set_err(err, cap, "%s:%d: GRAPHICS/%d: the world refused the body", s->scn->path, g->line, g->id);
        return -1;
    }
    return s->body_count++;
}

/// Mass, centre of mass (part frame) and inertia about it (part frame) of a DENSITY part, from its geometries:
/// divergence theorem over the triangles (tetrahedra from the part origin).
static bool mass_properties(const app_sim* s, int part, double* mass, mc_vec3* cm, mc_mat33* inertia, char* err,
                            size_t cap)
{
    const app_scenario* scn = s->scn;
    const app_scenario_part* p = &scn->parts[part];
    double vol = 0.0;
    double m1[3] = {0.0, 0.0, 0.0};
    double m2[3][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    int used = 0;
    for (int gi = 0; gi < scn->graphics_count; ++gi)
    {
        const app_scenario_graphics* g = &scn->graphics[gi];
        if (g->part_index != part)
        {
            continue;
        }
        if (g->flip)
        {
            return set_err(err, cap, "%s:%d: PART/%d: DENSITY cannot be used with a flipped geometry (GRAPHICS/%d)",
                           scn->path, p->line, p->id, g->id);
        }
        ++used;
        mc_pose t = mc_pose_mul(&g->local, &s->mesh_offset[gi]);
        const mc_vec3* pos = mc_mesh_get_positions(s->meshes[gi]);
        const uint32_t* idx = mc_mesh_get_indices(s->meshes[gi]);
        uint32_t nt = mc_mesh_get_triangle_count(s->meshes[gi]);
        for (uint32_t k = 0; k < nt; ++k)
        {
            mc_vec3 v[3];
            for (int c = 0; c < 3; ++c)
            {
                v[c] = mc_pose_transform(&t, pos[idx[3 * k + (uint32_t)c]]);
            }
            double d = mc_dot(v[0], mc_cross(v[1], v[2]));
            double a[3][3] = {{v[0].x, v[0].y, v[0].z}, {v[1].x, v[1].y, v[1].z}, {v[2].x, v[2].y, v[2].z}};
            vol += d / 6.0;
            for (int i = 0; i < 3; ++i)
            {
                double si = a[0][i] + a[1][i] + a[2][i];
                m1[i] += d / 24.0 * si;
                for (int j = 0; j < 3; ++j)
                {
                    double sj = a[0][j] + a[1][j] + a[2][j];
                    m2[i][j] += d / 120.0 * (a[0][i] * a[0][j] + a[1][i] * a[1][j] + a[2][i] * a[2][j] + si * sj);
                }
            }
        }
    }
    if (used == 0 || !(vol > 0.0))
    {
        return set_err(err, cap, "%s:%d: PART/%d: DENSITY needs at least one GRAPHICS on the part", scn->path, p->line,
                       p->id);
    }
    double c[3] = {m1[0] / vol, m1[1] / vol, m1[2] / vol};
    double rho = p->density;
    double tr = 0.0;
    double j[3][3];
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            j[i][k] = m2[i][k] - vol * c[i] * c[k]; // second moments about the centre of mass
        }
        tr += j[i][i];
    }
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            inertia->m[i][k] = rho * ((i == k ? tr : 0.0) - j[i][k]);
        }
    }
    *mass = rho * vol;
    *cm = mc_v3(c[0], c[1], c[2]);
    return true;
}

static mc_force_model force_model(const app_scenario_contact* c)
{
    mc_force_model m = mc_default_force_model();
    if (c->model == APP_SCENARIO_IMPACT)
    {
        m.normal_law = MC_NORMAL_IMPACT;
        m.stiffness = c->stiffness;
        m.exponent = c->exponent;
        m.damping = c->damping;
        if (c->dmax > 0.0 || c->damping != 0.0)
        {
            m.dmax = c->dmax;
        }
    }
    else
    {
        m.normal_law = MC_NORMAL_POISSON;
        m.penalty = c->penalty;
        m.restitution = c->restitution;
        if (c->normal_transition_velocity != 0.0)
        {
            m.normal_transition_velocity = c->normal_transition_velocity;
        }
    }
    switch (c->friction)
    {
    case APP_SCENARIO_FRICTION_ON:
        m.friction = MC_FRICTION_ON;
        break;
    case APP_SCENARIO_FRICTION_DYNAMICS_ONLY:
        m.friction = MC_FRICTION_DYNAMICS_ONLY;
        break;
    default:
        m.friction = MC_FRICTION_OFF;
        break;
    }
    if (c->friction != APP_SCENARIO_FRICTION_OFF)
    {
        m.mu_static = c->mu_static;
        m.mu_dynamic = c->mu_dynamic;
        m.stiction_velocity = c->stiction_velocity;
        m.friction_velocity = c->friction_velocity;
    }
    return m;
}

/// Time scale of one contact between parts a and b (see simulate.h); 0 when nothing gives one.
static double pair_time_scale(const app_sim* s, const app_scenario_contact* c, int a, int b)
{
    const app_scenario_part* pa = &s->scn->parts[a];
    const app_scenario_part* pb = &s->scn->parts[b];
    double ma = s->mass[a], mb = s->mass[b];
    double m;
    if (pa->ground)
    {
        m = mb;
    }
    else if (pb->ground)
    {
        m = ma;
    }
    else
    {
        m = ma * mb / (ma + mb);
    }
    double k = c->model == APP_SCENARIO_IMPACT ? c->stiffness : c->penalty;
    double e = c->model == APP_SCENARIO_IMPACT ? c->exponent : 1.0;
    if (!(k > 0.0) || !(e > 0.0) || !(m > 0.0))
    {
        return 0.0;
    }
    double gmag = mc_length(s->scn->gravity);
    double vmax = mc_length(pa->v) + mc_length(pb->v) + gmag * s->scn->end_time;
    double t = INFINITY;
    if (vmax > 0.0)
    {
        double gmax = pow((e + 1.0) * m * vmax * vmax / (2.0 * k), 1.0 / (e + 1.0));
        t = fmin(t, MC_PI * gmax / vmax);
    }
    if (gmag > 0.0)
    {
        double geq = pow(m * gmag / k, 1.0 / e);
        double klin = e * k * pow(geq, e - 1.0);
        if (klin > 0.0)
        {
            t = fmin(t, MC_PI * sqrt(m / klin));
        }
    }
    if (c->model == APP_SCENARIO_IMPACT && c->damping > 0.0)
    {
        t = fmin(t, m / c->damping);
    }
    return isfinite(t) ? t : 0.0;
}

static bool create_contacts(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    double scale = INFINITY;
    for (int ci = 0; ci < scn->contact_count; ++ci)
    {
        const app_scenario_contact* c = &scn->contacts[ci];
        mc_force_model model = force_model(c);
        mc_error e;
        memset(&e, 0, sizeof e);
        if (mc_force_model_check(&model, &e) != MC_OK)
        {
            return set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
        }
        // One world contact per (I geometry, J geometry) pair of different parts, so that geometries of one part
        // never collide with each other and fixed-fixed pairs cost nothing.
        for (int a = 0; a < c->igeom_count; ++a)
        {
            for (int b = 0; b < c->jgeom_count; ++b)
            {
                const app_scenario_graphics* gi = &scn->graphics[c->igeom[a]];
                const app_scenario_graphics* gj = &scn->graphics[c->jgeom[b]];
                if (gi->part_index == gj->part_index ||
                    (scn->parts[gi->part_index].ground && scn->parts[gj->part_index].ground))
                {
                    continue;
                }
                int bi = body_for(s, c->igeom[a], c->iflip[a], err, cap);
                if (bi < 0)
                {
                    return false;
                }
                int bj = body_for(s, c->jgeom[b], c->jflip[b], err, cap);
                if (bj < 0)
                {
                    return false;
                }
                mc_contact_def cd = mc_default_contact_def();
                mc_body_id idi = s->bodies[bi].id, idj = s->bodies[bj].id;
                cd.i_bodies = &idi;
                cd.i_count = 1;
                cd.j_bodies = &idj;
                cd.j_count = 1;
                cd.model = model;
                mc_contact_id cid;
                if (mc_world_create_contact(s->world, &cd, &cid, &e) != MC_OK)
                {
                    return set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
                }
                sim_wcontact* nw = realloc(s->wcontacts, (size_t)(s->wcontact_count + 1) * sizeof *nw);
                if (nw == NULL)
                {
                    return set_err(err, cap, "out of memory");
                }
                s->wcontacts = nw;
                nw[s->wcontact_count].id = cid;
                nw[s->wcontact_count].contact = ci;
                ++s->wcontact_count;
                double t = pair_time_scale(s, c, gi->part_index, gj->part_index);
                if (t > 0.0)
                {
                    scale = fmin(scale, t);
                }
            }
        }
    }
    s->time_scale = isfinite(scale) ? scale : 0.0;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation and integration
// ---------------------------------------------------------------------------------------------------------------

/// Evaluate contact wrenches at state `st` and the derivative `d`. With `record`, keep the wrenches and the contact
/// summaries as the current ones.
static bool evaluate(app_sim* s, const rb_state* st, rb_deriv* d, bool record, char* err, size_t cap)
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
    if (n > 0)
    {
        if (mc_world_set_poses(s->world, s->ids, s->body_poses, n) != MC_OK ||
            mc_world_set_velocities(s->world, s->ids, s->body_twists, n) != MC_OK)
        {
            return set_err(err, cap,
                           "the state became non-finite at t = %g (the step is too long for the contact "
                           "stiffness: set a smaller INTEGRATOR/HMAX=)",
                           s->time);
        }
        mc_status stt = mc_world_evaluate(s->world);
        ++s->evaluations;
        if (stt != MC_OK)
        {
            return set_err(err, cap, "contact evaluation failed at t = %g: %s", s->time,
                           stt == MC_ERR_OUT_OF_RANGE
                               ? "a contact force is not finite (a force parameter too large for this state?)"
                               : mc_status_string(stt));
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
        di->dv = mc_add(mc_scale(pw[i].force, 1.0 / s->mass[i]), scn->gravity);
        mc_vec3 lw = rotate_apply(q, &s->inertia[i], x->w);
        mc_vec3 rhs = mc_sub(pw[i].torque, mc_cross(x->w, lw));
        di->dw = rotate_apply(q, &s->inv_inertia[i], rhs);
    }
    if (record && n > 0)
    {
        uint32_t count = mc_world_get_regions(s->world, s->regions, s->region_cap);
        if (count > s->region_cap)
        {
            uint32_t nc = count + count / 2 + 8;
            mc_contact_region* r = realloc(s->regions, (size_t)nc * sizeof *r);
            if (r == NULL)
            {
                return set_err(err, cap, "out of memory");
            }
            s->regions = r;
            s->region_cap = nc;
            count = mc_world_get_regions(s->world, s->regions, s->region_cap);
        }
        if (scn->contact_count > 0) // a scenario without contacts has no summary array (memset(NULL, 0, 0) is UB)
        {
            memset(s->summary, 0, (size_t)scn->contact_count * sizeof *s->summary);
        }
        for (uint32_t k = 0; k < count && k < s->region_cap; ++k)
        {
            const mc_contact_region* r = &s->regions[k];
            int ci = -1;
            for (int w = 0; w < s->wcontact_count; ++w)
            {
                if (s->wcontacts[w].id.index1 == r->contact.index1 &&
                    s->wcontacts[w].id.generation == r->contact.generation)
                {
                    ci = s->wcontacts[w].contact;
                    break;
                }
            }
            if (ci < 0)
            {
                continue;
            }
            app_sim_contact_summary* sm = &s->summary[ci];
            sm->normal_force += r->normal_force;
            sm->force_on_j =
                mc_add(sm->force_on_j, mc_add(mc_scale(r->region.normal, r->normal_force), r->friction_force));
            sm->regions += 1;
            sm->rejected += r->rejected ? 1 : 0;
            sm->depth = fmax(sm->depth, r->region.depth);
        }
    }
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
    // k[0] holds the derivative at the current state (evaluated at the end of the previous step or at creation).
    advance(scn, s->state, s->k[0], 0.5 * h, s->tmp);
    if (!evaluate(s, s->tmp, s->k[1], false, err, cap))
    {
        return false;
    }
    advance(scn, s->state, s->k[1], 0.5 * h, s->tmp);
    if (!evaluate(s, s->tmp, s->k[2], false, err, cap))
    {
        return false;
    }
    advance(scn, s->state, s->k[2], h, s->tmp);
    if (!evaluate(s, s->tmp, s->k[3], false, err, cap))
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
            return set_err(err, cap,
                           "PART/%d: the state became non-finite at t = %g (the step %g is too long for the "
                           "contact stiffness: set a smaller INTEGRATOR/HMAX=)",
                           scn->parts[i].id, s->time, h);
        }
    }
    s->time += h;
    return evaluate(s, s->state, s->k[0], true, err, cap);
}

// ---------------------------------------------------------------------------------------------------------------
// Public
// ---------------------------------------------------------------------------------------------------------------

void app_sim_destroy(app_sim* s)
{
    if (s == NULL)
    {
        return;
    }
    mc_world_destroy(s->world);
    if (s->meshes != NULL)
    {
        for (int g = 0; g < s->scn->graphics_count; ++g)
        {
            mc_mesh_destroy(s->meshes[g]);
        }
    }
    free(s->meshes);
    free(s->mesh_offset);
    free(s->bodies);
    free(s->wcontacts);
    free(s->ids);
    free(s->body_poses);
    free(s->body_twists);
    free(s->body_wrenches);
    free(s->inv_inertia);
    free(s->inertia);
    free(s->mass);
    free(s->cm);
    free(s->state);
    free(s->tmp);
    for (int k = 0; k < 4; ++k)
    {
        free(s->k[k]);
    }
    free(s->part_wrench);
    free(s->stage_wrench);
    free(s->summary);
    free(s->regions);
    free(s);
}

bool app_sim_create(const app_scenario* scn, const app_sim_options* options, app_sim** out, char* err, size_t cap)
{
    app_sim* s = calloc(1, sizeof *s);
    if (s == NULL)
    {
        return set_err(err, cap, "out of memory");
    }
    s->scn = scn;
    s->opt = options != NULL ? *options : app_sim_default_options();
    size_t np = (size_t)(scn->part_count > 0 ? scn->part_count : 1);
    size_t ng = (size_t)(scn->graphics_count > 0 ? scn->graphics_count : 1);
    size_t nc = (size_t)(scn->contact_count > 0 ? scn->contact_count : 1);
    s->meshes = calloc(ng, sizeof *s->meshes);
    s->mesh_offset = calloc(ng, sizeof *s->mesh_offset);
    s->inv_inertia = calloc(np, sizeof *s->inv_inertia);
    s->inertia = calloc(np, sizeof *s->inertia);
    s->mass = calloc(np, sizeof *s->mass);
    s->cm = calloc(np, sizeof *s->cm);
    s->state = calloc(np, sizeof *s->state);
    s->tmp = calloc(np, sizeof *s->tmp);
    for (int k = 0; k < 4; ++k)
    {
        s->k[k] = calloc(np, sizeof *s->k[k]);
    }
    s->part_wrench = calloc(np, sizeof *s->part_wrench);
    s->stage_wrench = calloc(np, sizeof *s->stage_wrench);
    s->summary = calloc(nc, sizeof *s->summary);
    bool ok = s->meshes && s->mesh_offset && s->inv_inertia && s->inertia && s->mass && s->cm && s->state && s->tmp &&
              s->k[0] && s->k[1] && s->k[2] && s->k[3] && s->part_wrench && s->stage_wrench && s->summary;
    if (!ok)
    {
        app_sim_destroy(s);
        return set_err(err, cap, "out of memory");
    }
    // Every geometry is loaded (not only those in contacts), so that a bad file is reported in any case.
    for (int g = 0; g < scn->graphics_count; ++g)
    {
        if (!make_mesh(s, g, err, cap))
        {
            app_sim_destroy(s);
            return false;
        }
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        const app_scenario_part* p = &scn->parts[i];
        rb_state* x = &s->state[i];
        x->p = p->pose.p;
        x->q = mc_quat_normalize(p->pose.q);
        if (p->ground)
        {
            continue;
        }
        mc_mat33 ib = {
            {{p->ip[0], -p->ip[3], -p->ip[4]}, {-p->ip[3], p->ip[1], -p->ip[5]}, {-p->ip[4], -p->ip[5], p->ip[2]}}};
        s->mass[i] = p->mass;
        if (p->density > 0.0 && !mass_properties(s, i, &s->mass[i], &s->cm[i], &ib, err, cap))
        {
            app_sim_destroy(s);
            return false;
        }
        x->p = mc_add(p->pose.p, mc_quat_rotate(x->q, s->cm[i]));
        x->v = p->v;
        x->w = mc_quat_rotate(x->q, p->w_body);
        s->inertia[i] = ib;
        if (!mat_inverse(&ib, &s->inv_inertia[i]))
        {
            app_sim_destroy(s);
            return set_err(err, cap, "%s:%d: PART/%d: IP is singular", scn->path, p->line, p->id);
        }
    }
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = s->opt.worker_count;
    if (mc_world_create(&wd, &s->world) != MC_OK)
    {
        app_sim_destroy(s);
        return set_err(err, cap, "cannot create the world");
    }
    if (!create_contacts(s, err, cap))
    {
        app_sim_destroy(s);
        return false;
    }
    size_t nb = (size_t)(s->body_count > 0 ? s->body_count : 1);
    s->ids = calloc(nb, sizeof *s->ids);
    s->body_poses = calloc(nb, sizeof *s->body_poses);
    s->body_twists = calloc(nb, sizeof *s->body_twists);
    s->body_wrenches = calloc(nb, sizeof *s->body_wrenches);
    if (!s->ids || !s->body_poses || !s->body_twists || !s->body_wrenches)
    {
        app_sim_destroy(s);
        return set_err(err, cap, "out of memory");
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        s->ids[b] = s->bodies[b].id;
    }
    // Step size.
    double dt_out = scn->end_time / scn->steps;
    if (scn->hmax > 0.0)
    {
        s->h = scn->hmax;
        if (s->time_scale > 0.0 && scn->hmax > 0.1 * s->time_scale)
        {
            warn(s,
                 "%s:%d: HMAX=%g is longer than 1/10 of the estimated contact time scale %g: the contacts may be "
                 "integrated badly",
                 scn->path, scn->integrator_line, scn->hmax, s->time_scale);
        }
    }
    else
    {
        s->h = s->time_scale > 0.0 ? s->time_scale / 40.0 : dt_out;
    }
    s->h = fmin(s->h, dt_out);
    // Steps per output interval, counted in doubles first: an int would overflow for long ENDs or tiny steps.
    double nsub = fmax(1.0, ceil(dt_out / s->h - 1e-9));
    double total = nsub * scn->steps;
    if (!(total <= APP_SIM_MAX_STEPS) || !(s->h > 0.0))
    {
        double h = s->h;
        app_sim_destroy(s);
        return set_err(err, cap,
                       "%s: %.3g integration steps would be needed (END=%g, step %g%s), more than the limit of %.0e: "
                       "shorten END, raise INTEGRATOR/HMAX= or lower the contact stiffness",
                       scn->path, total, scn->end_time, h,
                       scn->hmax > 0.0 ? " from HMAX" : " from the contact time scale", APP_SIM_MAX_STEPS);
    }
    s->substeps = (int64_t)nsub;
    if (total > 2e7)
    {
        warn(s, "%s: about %.3g integration steps are needed (step %g): this will take long", scn->path, total, s->h);
    }
    if (!evaluate(s, s->state, s->k[0], true, err, cap))
    {
        app_sim_destroy(s);
        return false;
    }
    *out = s;
    return true;
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

uint64_t app_sim_get_evaluations(const app_sim* s)
{
    return s->evaluations;
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

app_sim_contact_summary app_sim_get_contact(const app_sim* s, int i)
{
    return s->summary[i];
}

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
    fputc('\n', f);
}

// ---------------------------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------------------------

// The plot's history, reduced as it is recorded: per contact and pixel column of the plot, the first, smallest,
// largest and last sample (the first smallest and largest in time). app_plot_write_svg keeps exactly these four per
// column, so the plot is the one every sample would give, in memory that does not grow with the step count.
typedef struct plot_history
{
    int contacts;        ///< series
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
    size_t bins = (size_t)contacts * (size_t)h->columns;
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
    for (int k = 0; k < h->contacts; ++k)
    {
        size_t bin = (size_t)k * (size_t)h->columns + (size_t)col;
        double* bt = h->t + 4 * bin;
        double* by = h->y + 4 * bin;
        double y = s->summary[k].normal_force;
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

bool app_sim_run(app_sim* s, FILE* csv, const char* svg_path, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    int nout = scn->steps;
    double dt_out = scn->end_time / nout;
    int64_t nsub = s->substeps;
    double h = dt_out / (double)nsub;
    int first = (int)floor(s->time / dt_out + 0.5);
    int nc = scn->contact_count;
    plot_history hist;
    bool plot = svg_path != NULL && nc > 0;
    if (plot && !history_create(&hist, nc, scn->end_time))
    {
        history_free(&hist);
        return set_err(err, cap, "out of memory for the plot");
    }
    bool ok = true;
    if (csv != NULL)
    {
        csv_header(scn, csv);
        csv_row(s, csv);
    }
    if (plot)
    {
        history_add(&hist, s->time, s);
    }
    for (int k = first + 1; ok && k <= nout; ++k)
    {
        for (int64_t j = 0; ok && j < nsub; ++j)
        {
            ok = app_sim_step(s, h, err, cap);
            if (ok && plot)
            {
                history_add(&hist, s->time, s);
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
            if (s->opt.progress != NULL)
            {
                s->opt.progress((double)k / nout, s->opt.progress_user);
            }
        }
    }
    if (ok && csv != NULL && ferror(csv))
    {
        ok = set_err(err, cap, "error writing the CSV");
    }
    if (ok && svg_path != NULL)
    {
        size_t per = 4 * (size_t)(APP_PLOT_COLUMNS + 1);
        app_plot_series* series = calloc((size_t)(nc > 0 ? nc : 1), sizeof *series);
        char(*labels)[64] = calloc((size_t)(nc > 0 ? nc : 1), sizeof *labels);
        double* ts = calloc(per * (size_t)(nc > 0 ? nc : 1), sizeof *ts);
        double* ys = calloc(per * (size_t)(nc > 0 ? nc : 1), sizeof *ys);
        if (series == NULL || labels == NULL || ts == NULL || ys == NULL)
        {
            ok = set_err(err, cap, "out of memory");
        }
        else
        {
            for (int c = 0; c < nc; ++c)
            {
                snprintf(labels[c], sizeof labels[c], "CONTACT/%d", scn->contacts[c].id);
                series[c].label = labels[c];
                series[c].t = ts + (size_t)c * per;
                series[c].y = ys + (size_t)c * per;
                series[c].count = history_series(&hist, c, ts + (size_t)c * per, ys + (size_t)c * per);
            }
            char title[300];
            const char* base = strrchr(scn->path, '/');
            snprintf(title, sizeof title, "%s: normal force per contact", base != NULL ? base + 1 : scn->path);
            char xl[64], yl[64];
            snprintf(xl, sizeof xl, "time%s%s%s", scn->time_unit[0] ? " [" : "", scn->time_unit,
                     scn->time_unit[0] ? "]" : "");
            snprintf(yl, sizeof yl, "normal force%s%s%s", scn->force_unit[0] ? " [" : "", scn->force_unit,
                     scn->force_unit[0] ? "]" : "");
            if (!app_plot_write_svg(svg_path, title, xl, yl, series, nc, 0.0, scn->end_time))
            {
                ok = set_err(err, cap, "%s: cannot write the plot", svg_path);
            }
        }
        free(series);
        free(labels);
        free(ts);
        free(ys);
    }
    if (plot)
    {
        history_free(&hist);
    }
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// SVG plot
// ---------------------------------------------------------------------------------------------------------------

/// A "nice" tick spacing (1, 2 or 5 times a power of ten) giving about `target` intervals over `range`.
static double nice_step(double range, int target)
{
    double raw = range / target;
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    double nf = f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0;
    return nf * p;
}

static void svg_text_escaped(FILE* f, const char* s)
{
    static const char special[] = "<>&\"";
    static const char* const entity[] = {"&lt;", "&gt;", "&amp;", "&quot;"};
    for (; *s; ++s)
    {
        const char* hit = strchr(special, *s);
        if (hit != NULL)
        {
            fputs(entity[hit - special], f);
        }
        else
        {
            fputc(*s, f);
        }
    }
}

bool app_plot_write_svg(const char* path, const char* title, const char* x_label, const char* y_label,
                        const app_plot_series* series, int series_count, double x_min, double x_max)
{
    static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const int width = 800, height = 450;
    const double left = 80.0, right = 20.0, top = 40.0, bottom = 55.0;
    const double pw = width - left - right, ph = height - top - bottom;
    FILE* f = fopen(path, "w");
    if (f == NULL)
    {
        return false;
    }
    double y_max = 0.0, y_min = 0.0;
    for (int s = 0; s < series_count; ++s)
    {
        for (size_t k = 0; k < series[s].count; ++k)
        {
            if (isfinite(series[s].y[k]))
            {
                y_max = fmax(y_max, series[s].y[k]);
                y_min = fmin(y_min, series[s].y[k]);
            }
        }
    }
    if (!(y_max > y_min))
    {
        y_max = y_min + 1.0;
    }
    double ystep = nice_step(y_max - y_min, 6);
    y_max = ceil(y_max / ystep - 1e-9) * ystep;
    y_min = floor(y_min / ystep + 1e-9) * ystep;
    if (!(x_max > x_min))
    {
        x_max = x_min + 1.0;
    }
    double xstep = nice_step(x_max - x_min, 8);
#define SX(x) (left + ((x)-x_min) / (x_max - x_min) * pw)
#define SY(y) (top + ph - ((y)-y_min) / (y_max - y_min) * ph)
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"%g\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">", left + 0.5 * pw);
    svg_text_escaped(f, title);
    fprintf(f, "</text>\n");
    // Grid, ticks and tick labels.
    fprintf(f, "<g stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for (double x = ceil(x_min / xstep - 1e-9) * xstep; x <= x_max + 1e-9 * xstep; x += xstep)
    {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", SX(x), top, SX(x), top + ph);
    }
    for (double y = y_min; y <= y_max + 1e-9 * ystep; y += ystep)
    {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left, SY(y), left + pw, SY(y));
    }
    fprintf(f, "</g>\n<g text-anchor=\"middle\">\n");
    for (double x = ceil(x_min / xstep - 1e-9) * xstep; x <= x_max + 1e-9 * xstep; x += xstep)
    {
        double xv = fabs(x) < 1e-12 * xstep ? 0.0 : x;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", SX(x), top + ph + 18.0, xv);
    }
    fprintf(f, "</g>\n<g text-anchor=\"end\">\n");
    for (double y = y_min; y <= y_max + 1e-9 * ystep; y += ystep)
    {
        double yv = fabs(y) < 1e-12 * ystep ? 0.0 : y;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", left - 6.0, SY(y) + 4.0, yv);
    }
    fprintf(f, "</g>\n");
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n", left, top, pw,
            ph);
    fprintf(f, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">", left + 0.5 * pw, height - 12);
    svg_text_escaped(f, x_label);
    fprintf(f, "</text>\n<text transform=\"translate(18,%g) rotate(-90)\" text-anchor=\"middle\">", top + 0.5 * ph);
    svg_text_escaped(f, y_label);
    fprintf(f, "</text>\n");
    // Curves: per pixel column keep the first, minimum, maximum and last sample, so peaks and steps survive.
    int columns = APP_PLOT_COLUMNS;
    for (int s = 0; s < series_count; ++s)
    {
        const app_plot_series* sr = &series[s];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                colours[s % (int)(sizeof colours / sizeof colours[0])]);
        size_t k = 0;
        while (k < sr->count)
        {
            int col = (int)floor((sr->t[k] - x_min) / (x_max - x_min) * columns);
            size_t start = k, kmin = k, kmax = k;
            while (k < sr->count && (int)floor((sr->t[k] - x_min) / (x_max - x_min) * columns) == col)
            {
                if (sr->y[k] < sr->y[kmin])
                {
                    kmin = k;
                }
                if (sr->y[k] > sr->y[kmax])
                {
                    kmax = k;
                }
                ++k;
            }
            size_t pick[4] = {start, kmin < kmax ? kmin : kmax, kmin < kmax ? kmax : kmin, k - 1};
            size_t last = (size_t)-1;
            for (int m = 0; m < 4; ++m)
            {
                if (pick[m] == last)
                {
                    continue;
                }
                last = pick[m];
                double y = isfinite(sr->y[last]) ? sr->y[last] : 0.0;
                fprintf(f, "%.1f,%.1f ", SX(sr->t[last]), SY(y));
            }
        }
        fprintf(f, "\"/>\n");
    }
    // Legend.
    for (int s = 0; s < series_count; ++s)
    {
        double ly = top + 14.0 + 16.0 * s;
        double lx = left + pw - 130.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", lx,
                ly - 4.0, lx + 24.0, ly - 4.0, colours[s % (int)(sizeof colours / sizeof colours[0])]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 30.0, ly);
        svg_text_escaped(f, series[s].label != NULL ? series[s].label : "");
        fprintf(f, "</text>\n");
    }
#undef SX
#undef SY
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}
