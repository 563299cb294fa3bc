// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's set-up (part of simulate.c's module, state in sim_internal.h): meshes and bodies of the scenario's
// geometry, tessellation fallbacks, mass properties, force models, contacts and their exclusions, the force elements
// and the multibody model, app_sim_create and app_sim_destroy.
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
            return sim_set_err(err, cap, "%s:%d: GRAPHICS/%d: %s%s", s->scn->path, g->line, g->id,
                               e.message[0] ? e.message : mc_status_string(st),
                               st == MC_ERR_SELF_INTERSECTING ? " (ACCEPT_SELF_INTERSECTIONS uses it anyway)" : "");
        }
        if (rep.repair.ran)
        {
            char what[600];
            app_repair_summary(&rep.repair, what, sizeof what);
            sim_warn(s, "%s:%d: GRAPHICS/%d: %s repaired as REPAIR asks: %s", s->scn->path, g->line, g->id, g->path,
                     what);
        }
        if (rep.self_check_accepted)
        {
            sim_warn(s,
                     "%s:%d: GRAPHICS/%d: %s intersects itself (%llu pairs of triangles, %u nested and %u inside-out "
                     "shells), used as ACCEPT_SELF_INTERSECTIONS asks: its overlaps count twice",
                     s->scn->path, g->line, g->id, g->path, (unsigned long long)rep.self_intersecting_pairs,
                     rep.nested_components, rep.inverted_components);
        }
        return true;
    }
    if (g->analytic && !s->tessellate[gi])
    {
        // No mesh: the body gets the exact shape (body_for). The library's cylinder is centred, Adams' starts at z = 0.
        s->mesh_offset[gi].p = mc_v3(0.0, 0.0, g->shape == APP_SCENARIO_CYLINDER ? 0.5 * g->size[1] : 0.0);
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
        return sim_set_err(err, cap, "%s:%d: GRAPHICS/%d: unknown shape", s->scn->path, g->line, g->id);
    }
    d.chord_tolerance = g->chord_tolerance > 0.0 ? g->chord_tolerance : 0.005 * largest;
    s->chord_tol[gi] = g->shape == APP_SCENARIO_BOX ? 0.0 : d.chord_tolerance;
    d.max_angle = g->angle_tolerance;
    if (g->max_triangles > 0.0)
    {
        d.max_triangles = (uint64_t)g->max_triangles;
    }
    mc_status st = mc_mesh_create_primitive(&d, &s->meshes[gi], &e);
    if (st != MC_OK)
    {
        return sim_set_err(err, cap, "%s:%d: GRAPHICS/%d: %s%s", s->scn->path, g->line, g->id,
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
    bool exact = g->analytic && !s->tessellate[gi];
    if (s->meshes[gi] == NULL && !exact && !make_mesh(s, gi, err, cap))
    {
        return -1;
    }
    sim_body* nb = realloc(s->bodies, (size_t)(s->body_count + 1) * sizeof *nb);
    if (nb == NULL)
    {
        sim_set_err(err, cap, "out of memory");
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
    if (exact)
    {
        bd.shape = g->shape == APP_SCENARIO_SPHERE     ? mc_shape_sphere(g->size[0])
                   : g->shape == APP_SCENARIO_CYLINDER ? mc_shape_cylinder(g->size[0], g->size[1])
                                                       : mc_shape_plane();
        bd.shape.flip = flip;
        bd.flip = false;
    }
    b->id = mc_world_create_body(s->world, &bd);
    if (!mc_body_is_valid(s->world, b->id))
    {
        sim_set_err(err, cap, "%s:%d: GRAPHICS/%d: the world refused the body", s->scn->path, g->line, g->id);
        return -1;
    }
    return s->body_count++;
}

/// The library's kind of geometry gi as a contact body (an ANALYTIC shape, or a mesh: files, primitives and analytic
/// shapes that fell back to their tessellation).
static mc_shape_type shape_kind(const app_sim* s, int gi)
{
    const app_scenario_graphics* g = &s->scn->graphics[gi];
    if (!g->analytic || s->tessellate[gi])
    {
        return MC_SHAPE_MESH;
    }
    return g->shape == APP_SCENARIO_SPHERE     ? MC_SHAPE_SPHERE
           : g->shape == APP_SCENARIO_CYLINDER ? MC_SHAPE_CYLINDER
                                               : MC_SHAPE_PLANE;
}

/// Is the pair (a, flip_a), (b, flip_b) computed as the geometries stand (mc_shape_pair_support; two cylinders only
/// when their axes are parallel at the start)?
static bool pair_computed(const app_sim* s, int a, bool flip_a, int b, bool flip_b)
{
    bool parallel_only = false;
    if (mc_shape_pair_support(shape_kind(s, a), flip_a, shape_kind(s, b), flip_b, &parallel_only) == MC_ERR_UNSUPPORTED)
    {
        return false;
    }
    if (!parallel_only)
    {
        return true;
    }
    const app_scenario_graphics* ga = &s->scn->graphics[a];
    const app_scenario_graphics* gb = &s->scn->graphics[b];
    mc_quat qa = mc_quat_mul(s->scn->parts[ga->part_index].pose.q, ga->local.q);
    mc_quat qb = mc_quat_mul(s->scn->parts[gb->part_index].pose.q, gb->local.q);
    mc_vec3 za = mc_quat_rotate(mc_quat_normalize(qa), mc_v3(0, 0, 1));
    mc_vec3 zb = mc_quat_rotate(mc_quat_normalize(qb), mc_v3(0, 0, 1));
    return mc_length(mc_cross(za, zb)) <= 1e-12; // the library's own test (analytic.c)
}

/// Can geometry gi be replaced by its tessellation with the same solid? Not a plane (unbounded) nor a hole (a
/// flipped cylinder is unbounded across, a flipped mesh everywhere); a socket is the flipped sphere mesh.
static bool can_tessellate(const app_sim* s, int gi, bool flip)
{
    const app_scenario_graphics* g = &s->scn->graphics[gi];
    return g->analytic && !s->tessellate[gi] &&
           (g->shape == APP_SCENARIO_SPHERE || (g->shape == APP_SCENARIO_CYLINDER && !flip));
}

/// One contact pair of geometries: when the library does not compute it exactly, the ANALYTIC geometry that makes it
/// computable (a cylinder first) falls back to its tessellation for all its contacts, with a warning naming the pair.
/// @return false with a message when no fallback exists (a plane or a hole against a pair the library lacks)
static bool fallback_pair(app_sim* s, const app_scenario_contact* c, int a, bool fa, int b, bool fb, char* err,
                          size_t cap)
{
    if (pair_computed(s, a, fa, b, fb))
    {
        return true;
    }
    const app_scenario* scn = s->scn;
    // Candidates: the cylinder (or else a) alone, the other alone, both.
    int first = scn->graphics[b].shape == APP_SCENARIO_CYLINDER ? b : a;
    int second = first == a ? b : a;
    bool first_flip = first == a ? fa : fb, second_flip = first == a ? fb : fa;
    bool ok_first = can_tessellate(s, first, first_flip), ok_second = can_tessellate(s, second, second_flip);
    const bool use[3][2] = {{true, false}, {false, true}, {true, true}};
    for (int k = 0; k < 3; ++k)
    {
        if ((use[k][0] && !ok_first) || (use[k][1] && !ok_second))
        {
            continue;
        }
        s->tessellate[first] = s->tessellate[first] || use[k][0];
        s->tessellate[second] = s->tessellate[second] || use[k][1];
        if (pair_computed(s, a, fa, b, fb))
        {
            for (int t = 0; t < 2; ++t)
            {
                if (use[k][t])
                {
                    sim_warn(
                        s,
                        "%s:%d: CONTACT/%d: GRAPHICS/%d and GRAPHICS/%d: the library has no exact form for this pair "
                        "of shapes (include/meshcontact/shape.h), so the ANALYTIC GRAPHICS/%d is tessellated "
                        "(CHORD_TOLERANCE) in all its contacts",
                        scn->path, c->line, c->id, scn->graphics[a].id, scn->graphics[b].id,
                        scn->graphics[t == 0 ? first : second].id);
                }
            }
            return true;
        }
        s->tessellate[first] = s->tessellate[first] && !use[k][0];
        s->tessellate[second] = s->tessellate[second] && !use[k][1];
    }
    return sim_set_err(
        err, cap,
        "%s:%d: CONTACT/%d: GRAPHICS/%d and GRAPHICS/%d: the library has no exact form for this pair of "
        "shapes and neither can be tessellated instead (a plane or a hole): see include/meshcontact/shape.h",
        scn->path, c->line, c->id, scn->graphics[a].id, scn->graphics[b].id);
}

/// Before any geometry is built: every contact pair with an ANALYTIC geometry that the library does not compute
/// (crossed cylinders, a socket or a hole against a mesh, a ball or a cylinder against a flipped mesh) falls back to
/// tessellation.
static bool plan_fallbacks(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    for (int ci = 0; ci < scn->contact_count; ++ci)
    {
        const app_scenario_contact* c = &scn->contacts[ci];
        for (int i = 0; i < c->igeom_count; ++i)
        {
            const int* js = c->group ? c->igeom : c->jgeom;
            const bool* jf = c->group ? c->iflip : c->jflip;
            int jn = c->group ? c->igeom_count : c->jgeom_count;
            for (int j = c->group ? i + 1 : 0; j < jn; ++j)
            {
                int a = c->igeom[i], b = js[j];
                bool any = scn->graphics[a].analytic || scn->graphics[b].analytic;
                if (any && scn->graphics[a].part_index != scn->graphics[b].part_index &&
                    !fallback_pair(s, c, a, c->iflip[i], b, jf[j], err, cap))
                {
                    return false;
                }
            }
        }
    }
    return true;
}

/// Mass, centre of mass (part frame) and inertia about it (part frame) of a DENSITY part, from its geometries: the
/// library's mass properties of each mesh (mc_mesh_get_mass_properties), placed and summed
/// (mc_mass_properties_combine).
static bool mass_properties(const app_sim* s, int part, double* mass, mc_vec3* cm, mc_mat33* inertia, char* err,
                            size_t cap)
{
    const app_scenario* scn = s->scn;
    const app_scenario_part* p = &scn->parts[part];
    int used = 0;
    for (int gi = 0; gi < scn->graphics_count; ++gi)
    {
        used += scn->graphics[gi].part_index == part;
    }
    mc_mass_properties* props = calloc(used > 0 ? (size_t)used : 1, sizeof *props);
    mc_pose* poses = calloc(used > 0 ? (size_t)used : 1, sizeof *poses);
    if (props == NULL || poses == NULL)
    {
        free(props);
        free(poses);
        return sim_set_err(err, cap, "out of memory");
    }
    int n = 0;
    mc_error e = {0};
    mc_status st = MC_OK;
    for (int gi = 0; gi < scn->graphics_count && st == MC_OK; ++gi)
    {
        const app_scenario_graphics* g = &scn->graphics[gi];
        if (g->part_index != part)
        {
            continue;
        }
        if (g->flip || g->analytic)
        {
            free(props);
            free(poses);
            return sim_set_err(err, cap,
                               "%s:%d: PART/%d: DENSITY cannot be used with a %s geometry (GRAPHICS/%d): give "
                               "MASS and IP",
                               scn->path, p->line, p->id, g->flip ? "flipped" : "ANALYTIC or PLANE", g->id);
        }
        poses[n] = mc_pose_mul(&g->local, &s->mesh_offset[gi]);
        st = mc_mesh_get_mass_properties(s->meshes[gi], p->density, &props[n++], &e);
    }
    mc_mass_properties total;
    st = st == MC_OK && n > 0 ? mc_mass_properties_combine(props, poses, (uint32_t)n, &total, &e) : st;
    free(props);
    free(poses);
    if (n == 0)
    {
        return sim_set_err(err, cap, "%s:%d: PART/%d: DENSITY needs at least one GRAPHICS on the part", scn->path,
                           p->line, p->id);
    }
    if (st != MC_OK)
    {
        return sim_set_err(err, cap, "%s:%d: PART/%d: DENSITY: %s", scn->path, p->line, p->id, e.message);
    }
    *mass = total.mass;
    *cm = total.centroid;
    *inertia = total.inertia;
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
        m.stiction = c->stiction;
        if (c->max_stiction_deformation > 0.0)
        {
            m.max_stiction_deformation = c->max_stiction_deformation;
        }
    }
    app_laws_apply(c->laws, &m); // RECURDYN, DYMORE, splines, user routines (scenario_laws.h)
    return m;
}

/// Time scale of one contact between parts a and b (see simulate.h); 0 when nothing gives one. *gmax_out receives
/// the impact's largest penetration and *v_out the approach speed bound (0 when not estimated).
static double pair_time_scale(const app_sim* s, const app_scenario_contact* c, int a, int b, double* gmax_out,
                              double* v_out)
{
    *gmax_out = 0.0;
    *v_out = 0.0;
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
    *v_out = vmax;
    if (vmax > 0.0)
    {
        double gmax = pow((e + 1.0) * m * vmax * vmax / (2.0 * k), 1.0 / (e + 1.0));
        t = fmin(t, MC_PI * gmax / vmax);
        *gmax_out = gmax;
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

/// Create the world bodies of every CONTACT list entry in GRAPHICS order (unflipped before flipped), so that a lower
/// body slot means an earlier GRAPHICS statement: the I geometry of a pair listed both ways (see scenario.h).
static bool create_bodies_in_order(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    unsigned char* need = calloc((size_t)scn->graphics_count + 1, 1);
    if (need == NULL)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    for (int ci = 0; ci < scn->contact_count; ++ci)
    {
        const app_scenario_contact* c = &scn->contacts[ci];
        for (int a = 0; a < c->igeom_count; ++a)
        {
            need[c->igeom[a]] |= c->iflip[a] ? 2 : 1;
        }
        for (int b = 0; b < c->jgeom_count; ++b)
        {
            need[c->jgeom[b]] |= c->jflip[b] ? 2 : 1;
        }
    }
    bool ok = true;
    for (int g = 0; ok && g < scn->graphics_count; ++g)
    {
        for (int f = 0; ok && f < 2; ++f)
        {
            ok = (need[g] & (1 << f)) == 0 || body_for(s, g, f == 1, err, cap) >= 0;
        }
    }
    free(need);
    return ok;
}

/// Whether CONTACT c's EXCLUDE names the GRAPHICS pair (ga, gb), either way round.
static bool user_excluded(const app_scenario_contact* c, int ga, int gb)
{
    for (int k = 0; k < c->exclude_count; ++k)
    {
        int x = c->exclude[2 * k], y = c->exclude[2 * k + 1];
        if ((x == ga && y == gb) || (x == gb && y == ga))
        {
            return true;
        }
    }
    return false;
}

/// The world bodies of one CONTACT's lists and the pairs it must not evaluate: geometries of one part, two ground
/// geometries, and its EXCLUDE pairs. Also the shortest contact time scale of the pairs it evaluates.
typedef struct contact_lists
{
    mc_body_id* i_ids;
    mc_body_id* j_ids;
    mc_body_pair* excluded;
    uint32_t excluded_count;
    uint32_t excluded_cap;
    double time_scale;
    double min_mass; // smallest mass of a moving part in an evaluated pair (0: none)
    double gmax;     // smallest estimated impact penetration of its pairs (0: none)
    double vmax;     // largest approach speed bound of its pairs
} contact_lists;

static void contact_lists_free(contact_lists* l)
{
    free(l->i_ids);
    free(l->j_ids);
    free(l->excluded);
}

static bool add_excluded(contact_lists* l, mc_body_id a, mc_body_id b)
{
    if (l->excluded_count == l->excluded_cap)
    {
        uint32_t nc = l->excluded_cap > 0 ? 2 * l->excluded_cap : 16;
        mc_body_pair* e = realloc(l->excluded, (size_t)nc * sizeof *e);
        if (e == NULL)
        {
            return false;
        }
        l->excluded = e;
        l->excluded_cap = nc;
    }
    l->excluded[l->excluded_count].a = a;
    l->excluded[l->excluded_count].b = b;
    l->excluded_count++;
    return true;
}

static bool build_contact_lists(app_sim* s, const app_scenario_contact* c, contact_lists* l, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    memset(l, 0, sizeof *l);
    l->time_scale = INFINITY;
    int* bi = malloc((size_t)c->igeom_count * sizeof *bi);
    int* bj = malloc((size_t)c->jgeom_count * sizeof *bj);
    l->i_ids = malloc((size_t)c->igeom_count * sizeof *l->i_ids);
    l->j_ids = malloc((size_t)c->jgeom_count * sizeof *l->j_ids);
    bool ok = bi != NULL && bj != NULL && l->i_ids != NULL && l->j_ids != NULL ? true
                                                                               : sim_set_err(err, cap, "out of memory");
    for (int a = 0; ok && a < c->igeom_count; ++a)
    {
        ok = (bi[a] = body_for(s, c->igeom[a], c->iflip[a], err, cap)) >= 0;
        l->i_ids[a] = ok ? s->bodies[bi[a]].id : mc_null_body_id;
    }
    for (int b = 0; ok && b < c->jgeom_count; ++b)
    {
        ok = (bj[b] = body_for(s, c->jgeom[b], c->jflip[b], err, cap)) >= 0;
        l->j_ids[b] = ok ? s->bodies[bj[b]].id : mc_null_body_id;
    }
    for (int a = 0; ok && a < c->igeom_count; ++a)
    {
        // a group's J list is its I list: each unordered pair of entries once
        for (int b = c->group ? a + 1 : 0; ok && b < c->jgeom_count; ++b)
        {
            const sim_body* x = &s->bodies[bi[a]];
            const sim_body* y = &s->bodies[bj[b]];
            if (bi[a] == bj[b])
            {
                continue;
            }
            if (x->part == y->part || (scn->parts[x->part].ground && scn->parts[y->part].ground) ||
                user_excluded(c, x->graphics, y->graphics))
            {
                ok = add_excluded(l, x->id, y->id) ? true : sim_set_err(err, cap, "out of memory");
                continue;
            }
            double gmax, vmax;
            double t = pair_time_scale(s, c, x->part, y->part, &gmax, &vmax);
            l->time_scale = t > 0.0 ? fmin(l->time_scale, t) : l->time_scale;
            l->gmax = gmax > 0.0 && (l->gmax == 0.0 || gmax < l->gmax) ? gmax : l->gmax;
            l->vmax = fmax(l->vmax, vmax);
            for (int side = 0; side < 2; ++side)
            {
                double m = s->mass[side == 0 ? x->part : y->part];
                l->min_mass = m > 0.0 && (l->min_mass == 0.0 || m < l->min_mass) ? m : l->min_mass;
            }
        }
    }
    free(bi);
    free(bj);
    if (!ok)
    {
        contact_lists_free(l);
    }
    return ok;
}

static bool create_contacts(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    double scale = INFINITY;
    if (!create_bodies_in_order(s, err, cap))
    {
        return false;
    }
    if (scn->contact_count > 0)
    {
        s->wcontacts = calloc((size_t)scn->contact_count, sizeof *s->wcontacts);
        if (s->wcontacts == NULL)
        {
            return sim_set_err(err, cap, "out of memory");
        }
    }
    // One world contact per CONTACT statement (a group or two lists), with the pairs it must skip excluded.
    for (int ci = 0; ci < scn->contact_count; ++ci)
    {
        const app_scenario_contact* c = &scn->contacts[ci];
        mc_force_model model = force_model(c);
        mc_error e;
        memset(&e, 0, sizeof e);
        if (mc_force_model_check(&model, &e) != MC_OK)
        {
            return sim_set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
        }
        contact_lists l;
        if (!build_contact_lists(s, c, &l, err, cap))
        {
            return false;
        }
        mc_contact_def cd = mc_default_contact_def();
        cd.mode = c->group ? MC_CONTACT_GROUP : MC_CONTACT_LISTS;
        cd.i_bodies = l.i_ids;
        cd.i_count = (uint32_t)c->igeom_count;
        cd.j_bodies = c->group ? NULL : l.j_ids;
        cd.j_count = c->group ? 0 : (uint32_t)c->jgeom_count;
        cd.excluded_pairs = l.excluded;
        cd.excluded_count = l.excluded_count;
        cd.model = model;
        cd.depth_method = c->depth;
        mc_contact_id cid;
        mc_status st = mc_world_create_contact(s->world, &cd, &cid, &e);
        scale = fmin(scale, l.time_scale);
        s->contact_mass[ci] = l.min_mass;
        s->contact_gmax[ci] = l.gmax;
        s->vel_scale = fmax(s->vel_scale, l.vmax);
        contact_lists_free(&l);
        if (st != MC_OK)
        {
            return sim_set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
        }
        s->wcontacts[s->wcontact_count].id = cid;
        s->wcontacts[s->wcontact_count].contact = ci;
        ++s->wcontact_count;
    }
    s->time_scale = isfinite(scale) ? scale : 0.0;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Creation and destruction
// ---------------------------------------------------------------------------------------------------------------

void app_sim_destroy(app_sim* s)
{
    if (s == NULL)
    {
        return;
    }
    app_sim_forces_destroy(s->forces);
    app_mb_destroy(s->mb);
    free(s->mb_motion);
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
    for (int k = 0; k < 4; ++k)
    {
        free(s->stage_summary[k]);
    }
    free(s->peaks);
    free(s->open_incident);
    free(s->incident_ft);
    free(s->step_warned);
    free(s->depth_warned);
    free(s->best_fn);
    free(s->contact_mass);
    free(s->next_track);
    free(s->tracks);
    free(s->track_used);
    free(s->region_track);
    free(s->region_contact);
    free(s->chord_tol);
    free(s->tessellate);
    free(s->incidents);
    for (int k = 0; k < s->warning_count; ++k)
    {
        free(s->warnings[k]);
    }
    free(s->warnings);
    free(s->regions);
    sim_bdf_destroy(s->bdf);
    free(s->moving);
    free(s->moving_of_part);
    free(s->y);
    free(s->y_start);
    free(s->y_scale);
    free(s->y_scratch_state);
    free(s->q_ref);
    free(s->contact_gmax);
    free(s->part_radius);
    free(s->movable);
    free(s->jsteps);
    free(s->blocks);
    free(s->lib_blocks);
    sim_jac_scratch_free(&s->jscratch);
    free(s);
}

/// The per-part, per-geometry and per-contact arrays (at least one entry each). @return false when out of memory
/// The mechanism's force elements (sim_forces.c), from the initial state.
static bool create_forces(app_sim* s, char* err, size_t cap)
{
    if (s->scn->mech == NULL)
    {
        return true;
    }
    app_part_motion* m = malloc((size_t)s->scn->part_count * sizeof *m);
    if (m == NULL)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        const rb_state* x = &s->state[i];
        m[i] = (app_part_motion){x->p, x->q, x->v, x->w};
    }
    bool ok = app_sim_forces_create(s->scn, s->cm, m, &s->forces, err, cap);
    free(m);
    return ok;
}

/// The wrenches of everything but gravity on the parts at time t and motions `parts`: contacts and force elements
/// (the multibody model's callback, sim_mb.h).
static bool mb_force(void* user, double t, const app_part_motion* parts, mc_wrench* out, char* err, size_t cap)
{
    app_sim* s = user;
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        s->tmp[i] = (rb_state){parts[i].p, parts[i].q, parts[i].v, parts[i].w};
    }
    s->force_time = t;
    if (!sim_evaluate(s, s->tmp, s->k[1], false, NULL, err, cap))
    {
        return false;
    }
    const mc_wrench* fw = s->forces != NULL ? sim_mech_forces(s, s->tmp, err, cap) : NULL;
    if (s->forces != NULL && fw == NULL)
    {
        return false;
    }
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        out[i] = s->stage_wrench[i];
        if (fw != NULL)
        {
            out[i].force = mc_add(out[i].force, fw[i].force);
            out[i].torque = mc_add(out[i].torque, fw[i].torque);
        }
    }
    return true;
}

/// JOINT, MOTION: the multibody model (sim_mb.h) from the initial state.
static bool create_mb(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    if (scn->mech == NULL || scn->mech->joint_count == 0)
    {
        return true;
    }
    if (scn->integrator == APP_SCENARIO_RK4)
    {
        return sim_set_err(err, cap,
                           "%s:%d: INTEGRATOR/RK4 cannot integrate JOINTs: the multibody library does (give BDF, with "
                           "ERROR= for its accuracy)",
                           scn->path, scn->integrator_line);
    }
    s->mb_motion = malloc((size_t)scn->part_count * sizeof *s->mb_motion);
    if (s->mb_motion == NULL)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        const rb_state* x = &s->state[i];
        s->mb_motion[i] = (app_part_motion){x->p, x->q, x->v, x->w};
    }
    app_mb_def d = {scn, s->mass, s->inertia, s->cm, s->mb_motion, scn->error > 0.0 ? scn->error : 1e-7, mb_force, s};
    return app_mb_create(&d, &s->mb, err, cap);
}

static bool alloc_arrays(app_sim* s)
{
    const app_scenario* scn = s->scn;
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
    bool ok = true;
    for (int k = 0; k < 4; ++k)
    {
        s->stage_summary[k] = calloc(nc, sizeof *s->stage_summary[k]);
        ok = ok && s->stage_summary[k] != NULL;
    }
    s->peaks = calloc(nc, sizeof *s->peaks);
    s->open_incident = calloc(nc, sizeof *s->open_incident);
    s->incident_ft = calloc(nc, sizeof *s->incident_ft);
    s->step_warned = calloc(nc, sizeof *s->step_warned);
    s->depth_warned = calloc(nc, sizeof *s->depth_warned);
    s->best_fn = calloc(nc, sizeof *s->best_fn);
    s->contact_mass = calloc(nc, sizeof *s->contact_mass);
    s->contact_gmax = calloc(nc, sizeof *s->contact_gmax);
    s->next_track = calloc(nc, sizeof *s->next_track);
    s->chord_tol = calloc(ng, sizeof *s->chord_tol);
    s->tessellate = calloc(ng, sizeof *s->tessellate);
    ok = ok && s->meshes && s->mesh_offset && s->inv_inertia && s->inertia && s->mass && s->cm && s->state && s->tmp &&
         s->k[0] && s->k[1] && s->k[2] && s->k[3] && s->part_wrench && s->stage_wrench && s->summary && s->peaks &&
         s->open_incident && s->incident_ft && s->step_warned && s->depth_warned && s->best_fn && s->contact_mass &&
         s->contact_gmax && s->chord_tol && s->tessellate && s->next_track;
    return ok;
}

/// One warning per world contact whose parts overlap at t = 0 (from the regions of the evaluation at creation).
static void warn_initial_overlaps(app_sim* s)
{
    const app_scenario* scn = s->scn;
    uint32_t count = mc_world_get_regions(s->world, NULL, 0);
    count = count < s->region_cap ? count : s->region_cap;
    // Records are sorted by (contact, I body, J body): one run of records per touching pair of geometries.
    for (uint32_t k = 0; k < count;)
    {
        const mc_contact_region* r0 = &s->regions[k];
        double volume = 0.0, depth = 0.0, fn = 0.0;
        uint32_t e = k;
        for (; e < count && s->regions[e].contact.index1 == r0->contact.index1 &&
               s->regions[e].body_i.index1 == r0->body_i.index1 && s->regions[e].body_j.index1 == r0->body_j.index1;
             ++e)
        {
            volume += s->regions[e].region.volume;
            depth = fmax(depth, s->regions[e].region.depth);
            fn += s->regions[e].normal_force;
        }
        k = e;
        int ci = -1;
        for (int w = 0; w < s->wcontact_count && ci < 0; ++w)
        {
            ci = s->wcontacts[w].id.index1 == r0->contact.index1 ? s->wcontacts[w].contact : -1;
        }
        if (volume > 0.0 && ci >= 0 && scn->contacts[ci].laws != NULL && scn->contacts[ci].laws->initial_contact)
        {
            s->bdf_h = fmin(s->bdf_h, 1e-3 * (s->time_scale > 0.0 ? s->time_scale : s->bdf_h)); // DYMORE's flag
        }
        else if (volume > 0.0 && ci >= 0)
        {
            const app_scenario_contact* c = &scn->contacts[ci];
            sim_warn(s,
                     "%s:%d: CONTACT/%d: PART/%d and PART/%d start interpenetrating: overlap volume %.3g, depth %.3g, "
                     "normal force %.3g at t = 0",
                     scn->path, c->line, c->id, scn->parts[sim_part_of_body(s, r0->body_i)].id,
                     scn->parts[sim_part_of_body(s, r0->body_j)].id, volume, depth, fn);
        }
    }
}

bool app_sim_create(const app_scenario* scn, const app_sim_options* options, app_sim** out, char* err, size_t cap)
{
    app_sim* s = calloc(1, sizeof *s);
    if (s == NULL)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    s->scn = scn;
    s->opt = options != NULL ? *options : app_sim_default_options();
    if (!app_sim_check_bdf_memory(scn, 0.0, err, cap)) // before any work (issue 41, sim_guard.h)
    {
        app_sim_destroy(s);
        return false;
    }
    if (!alloc_arrays(s))
    {
        app_sim_destroy(s);
        return sim_set_err(err, cap, "out of memory");
    }
    for (int c = 0; c < scn->contact_count; ++c)
    {
        s->open_incident[c] = -1;
    }
    for (int k = 0; k < scn->warning_count; ++k)
    {
        sim_warn(s, "%s", scn->warnings[k]);
    }
    if (!plan_fallbacks(s, err, cap))
    {
        app_sim_destroy(s);
        return false;
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
            return sim_set_err(err, cap, "%s:%d: PART/%d: IP is singular", scn->path, p->line, p->id);
        }
    }
    if (!create_forces(s, err, cap) || !create_mb(s, err, cap))
    {
        app_sim_destroy(s);
        return false;
    }
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = s->opt.worker_count;
    if (mc_world_create(&wd, &s->world) != MC_OK)
    {
        app_sim_destroy(s);
        return sim_set_err(err, cap, "cannot create the world");
    }
    // The Newton matrix takes the library's differenced region derivatives, not its analytic ones (4.5 to 12 times
    // cheaper per Jacobian, 1e-7 apart at the median state): the knob drop's chattering contact is chaotic (a change
    // of 1e-7 in the Newton matrix moves its step count by 30 %), and over 11 starts 10 nm apart it took more steps
    // with the analytic blocks at 9 (median 5216 against 4144 steps, 10 % more CPU in sum), for no failing Newton
    // iteration more per step (bench/results/debian12-2core-xeon/jacobian.md). The Jacobians are a small part of
    // these runs either way; with the differences the runs are bitwise those before the analytic blocks existed.
    mc_world_set_jacobian_method(s->world, MC_JACOBIAN_DIFFERENCES);
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
        return sim_set_err(err, cap, "out of memory");
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        s->ids[b] = s->bodies[b].id;
    }
    // Step size.
    double dt_out = scn->end_time / scn->steps;
    if (scn->integrator == APP_SCENARIO_BDF)
    {
        if (!app_sim_check_time_scale(scn, s->time_scale, err, cap) || !sim_implicit_create(s, err, cap))
        {
            app_sim_destroy(s);
            return false;
        }
    }
    else if (scn->hmax > 0.0)
    {
        s->h = scn->hmax;
        if (s->time_scale > 0.0 && scn->hmax > 0.1 * s->time_scale)
        {
            sim_warn(s,
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
    if (scn->integrator == APP_SCENARIO_BDF)
    {
        s->h = s->bdf_h;
    }
    // Steps per output interval, counted in doubles first: an int would overflow for long ENDs or tiny steps.
    double nsub = scn->integrator == APP_SCENARIO_BDF ? 1.0 : fmax(1.0, ceil(dt_out / s->h - 1e-9));
    double total = nsub * scn->steps;
    if (!(total <= APP_SIM_MAX_STEPS) || !(s->h > 0.0))
    {
        double h = s->h;
        app_sim_destroy(s);
        return sim_set_err(
            err, cap,
            "%s: %.3g integration steps would be needed (END=%g, step %g%s), more than the limit of %.0e: "
            "shorten END, raise INTEGRATOR/HMAX= or lower the contact stiffness",
            scn->path, total, scn->end_time, h, scn->hmax > 0.0 ? " from HMAX" : " from the contact time scale",
            APP_SIM_MAX_STEPS);
    }
    s->substeps = (int64_t)nsub;
    if (total > 2e7 && scn->integrator == APP_SCENARIO_RK4)
    {
        sim_warn(s, "%s: about %.3g integration steps are needed (step %g): this will take long", scn->path, total,
                 s->h);
    }
    if (!sim_evaluate(s, s->state, s->k[0], true, s->summary, err, cap) || !sim_commit_state(s, s->summary, err, cap))
    {
        app_sim_destroy(s);
        return false;
    }
    sim_update_peaks(s);
    if (!sim_update_tracks(s))
    {
        app_sim_destroy(s);
        return sim_set_err(err, cap, "out of memory");
    }
    warn_initial_overlaps(s);
    *out = s;
    return true;
}
