// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Rigid-body simulation of a scenario for `meshcontact simulate`: world set-up, fixed-step RK4 (see simulate.h),
// contact summaries, peaks, incidents, tracks and warnings, the motion CSV and the contacts plot.
#include "src/app/simulate.h"

#include "src/app/anim_gltf.h"
#include "src/app/scenario_laws.h"
#include "src/app/sim_bdf.h"
#include "src/app/sim_guard.h"
#include "src/app/sim_forces.h"
#include "src/app/sim_mb.h"
#include "src/app/sim_jacobian.h"

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

/// One world contact: the lists (or group) of one scenario contact.
typedef struct sim_wcontact
{
    mc_contact_id id;
    int contact; // scenario contact index
} sim_wcontact;

/// A contact track: a region followed from step to step (see update_tracks).
typedef struct sim_track
{
    int id;        // per contact, from 1
    int contact;   // scenario contact index
    mc_vec3 point; // last contact point
    double radius; // last equivalent radius
} sim_track;

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
    mc_wrench* part_wrench;                    // at the current state
    mc_wrench* stage_wrench;                   // scratch
    app_sim_contact_summary* summary;          // at the current state
    app_sim_contact_summary* stage_summary[4]; // [1..3]: at the Runge-Kutta stages of the step in progress
    app_sim_contact_peaks* peaks;              // per contact, since the last app_sim_take_peaks
    int* open_incident;                        // per contact: index into incidents, or -1
    mc_vec3* incident_ft;                      // per contact: friction impulse vector of the open incident
    bool* step_warned;                         // per contact: a too-short incident was reported
    bool* depth_warned;                        // per contact: an Adams depth off its region was reported
    app_sim_incident* incidents;
    int incident_count;
    int incident_cap;
    char** warnings;
    int warning_count;
    double* best_fn;      // per contact: scratch of summarize
    double* contact_mass; // per contact: smallest mass of a moving part in it (0: none)
    double* chord_tol;    // per GRAPHICS: faceting tolerance of a curved primitive, 0 for files and boxes
    mc_contact_region* regions;
    uint32_t region_cap;
    sim_track* tracks; // active tracks of every contact, in creation order
    int track_count;
    int track_cap;
    unsigned char* track_used; // track_cap: matched in the current update
    int* next_track;           // per contact: last track id given
    int* region_track;         // per region of the last step end: its track id
    int* region_contact;       // per region of the last step end: its scenario contact
    uint32_t region_track_cap; // entries of region_track and region_contact
    uint32_t tracked_regions;  // regions of the last step end
    double time;
    double h;
    int64_t substeps; ///< integration steps per output interval (h is then dt_out / substeps)
    double time_scale;
    uint64_t evaluations;
    // The BDF integrator (INTEGRATOR/BDF, see simulate.h and sim_bdf.c).
    sim_bdf* bdf;
    int* moving;                   // moving part indices
    int moving_count;              // entries of moving
    int* moving_of_part;           // per part: its index in moving, or -1 (ground)
    double* y;                     // 12 per moving part: p, phi, v, w (phi: rotation vector, q = exp(phi) q_ref)
    double* y_start;               // y at the start of the step in progress
    double* y_scale;               // absolute error scale per component
    mc_quat* q_ref;                // per part: the orientation phi is measured from
    double bdf_h;                  // the step the BDF proposes next
    double hmin;                   // shortest step before the run stops
    double hmax;                   // longest step
    double vel_scale;              // largest approach speed bound over the contacts (error scale of velocities)
    double gscale;                 // smallest estimated impact penetration (error scale of positions)
    double* contact_gmax;          // per contact: estimated impact penetration (error scale; onset rejection)
    bool* tessellate;              // per geometry: an ANALYTIC one in a pair the library does not compute exactly
    double thin;                   // thinnest contact geometry (tunnelling guard), INFINITY without one
    double* part_radius;           // per part: largest distance of its geometry from the centre of mass
    sim_jac_world jworld;          // the world as sim_contact_jacobian sees it
    bool* movable;                 // per body
    sim_jac_steps* jsteps;         // per body
    sim_jac_block* blocks;         // contact Jacobian blocks
    uint32_t block_cap;            // their capacity
    mc_jacobian_block* lib_blocks; // the library's blocks (mc_world_get_jacobian), converted into `blocks`
    uint32_t lib_block_cap;        // their capacity
    uint64_t fd_jacobians;         // Jacobians taken by finite differences (stiction: the library refuses)
    sim_jac_scratch jscratch;
    app_sim_step_stats stats;
    double* y_scratch_state; // the y of the last Jacobian
    double error;            // the tolerance
    char bdf_err[400];       // why the right-hand side stopped
    bool onset_stop;         // the right-hand side stopped at a contact onset (see onset_check)
    double onset_time;       // then: the estimated onset time
    double onset_rate;       // then: the penetration rate at the trial state
    double onset_land;       // then: the penetration depth to land the retaken step at
    double onset_trial;      // then: the time of the trial state
    app_sim_forces* forces;  // SFORCE, VFORCE, ... (sim_forces.c), NULL when the scenario has none
    double force_time;       // the time of the stage evaluate() gets (s->time for s->state itself)
    app_mb* mb;              // JOINT, MOTION: the multibody model that integrates (sim_mb.cpp), NULL without joints
    app_part_motion* mb_motion; // per part: scratch of mb_step
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

static void warn(app_sim* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// A warning: kept for app_sim_get_warnings (out of memory drops it there) and passed to the callback.
static void warn(app_sim* s, const char* fmt, ...)
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
        return set_err(err, cap, "%s:%d: GRAPHICS/%d: unknown shape", s->scn->path, g->line, g->id);
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
    bool exact = g->analytic && !s->tessellate[gi];
    if (s->meshes[gi] == NULL && !exact && !make_mesh(s, gi, err, cap))
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
        set_err(err, cap, "%s:%d: GRAPHICS/%d: the world refused the body", s->scn->path, g->line, g->id);
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
                    warn(s,
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
    return set_err(err, cap,
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
/// library's mass properties of each mesh (mc_mesh_get_mass_properties), placed and summed (mc_mass_properties_combine).
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
        return set_err(err, cap, "out of memory");
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
            return set_err(err, cap,
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
        return set_err(err, cap, "%s:%d: PART/%d: DENSITY needs at least one GRAPHICS on the part", scn->path, p->line,
                       p->id);
    }
    if (st != MC_OK)
    {
        return set_err(err, cap, "%s:%d: PART/%d: DENSITY: %s", scn->path, p->line, p->id, e.message);
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
        return set_err(err, cap, "out of memory");
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
    bool ok =
        bi != NULL && bj != NULL && l->i_ids != NULL && l->j_ids != NULL ? true : set_err(err, cap, "out of memory");
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
                ok = add_excluded(l, x->id, y->id) ? true : set_err(err, cap, "out of memory");
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
            return set_err(err, cap, "out of memory");
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
            return set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
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
            return set_err(err, cap, "%s:%d: CONTACT/%d: %s", scn->path, c->line, c->id, e.message);
        }
        s->wcontacts[s->wcontact_count].id = cid;
        s->wcontacts[s->wcontact_count].contact = ci;
        ++s->wcontact_count;
    }
    s->time_scale = isfinite(scale) ? scale : 0.0;
    return true;
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
static int part_of_body(const app_sim* s, mc_body_id id)
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
            return set_err(err, cap, "out of memory");
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
        mc_vec3 arm = mc_sub(r->region.centroid, st[part_of_body(s, r->body_j)].p);
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
static const mc_wrench* mech_forces(app_sim* s, const rb_state* st, char* err, size_t cap)
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
static bool evaluate(app_sim* s, const rb_state* st, rb_deriv* d, bool record, app_sim_contact_summary* sums, char* err,
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
            return set_err(err, cap,
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
        if (mc_world_get_step_info(s->world).flags & MC_STEP_PAIR_FAILED)
        {
            // A pair without forces would be a silent error in the motion.
            return set_err(
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
    if (s->forces != NULL && (fw = mech_forces(s, st, err, cap)) == NULL)
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
static void update_peaks(app_sim* s)
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
static bool update_tracks(app_sim* s)
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
static double impact_penetration(const app_sim* s, int c, double rate)
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
        warn(s,
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
                in->impact_depth = rate > 0.0 ? impact_penetration(s, c, rate) : 0.0;
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
static bool has_stiction(const app_scenario* scn)
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

/// Accept the state just evaluated by evaluate(s, s->state, s->k[0], true, sums, ...): commit the world's state
/// (stiction anchors) to it, then, when a contact has stiction, evaluate it again (the committed anchors change its
/// friction forces, and k[0] must be the derivative the next step starts from).
static bool commit_state(app_sim* s, app_sim_contact_summary* sums, char* err, size_t cap)
{
    if (s->body_count == 0)
    {
        return true;
    }
    if (mc_world_commit(s->world) != MC_OK)
    {
        return set_err(err, cap, "cannot commit the contact state at t = %g", s->time);
    }
    return !has_stiction(s->scn) || evaluate(s, s->state, s->k[0], true, sums, err, cap);
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
            warn(s,
                 "%s:%d: CONTACT/%d: at t = %.6g a region's Adams depth, %.3g, is %.0f times the region's 2V/A "
                 "= %.3g: its centroid lies off the region (a ring-shaped region?), so its depth and force follow "
                 "the region's shape, not the penetration; DEPTH=EXTENT or DEPTH=VOLUME_AREA measure such regions",
                 s->scn->path, sc->line, sc->id, s->time, r->region.depth, r->region.depth / vol_area, vol_area);
        }
    }
}

/// The bookkeeping of an accepted step from t_before of length h, the new state evaluated with its summary in
/// stage_summary[0] (s->summary still the step's start): incidents, peaks and tracks. @return false when out of memory
static bool finish_step(app_sim* s, double h, double t_before, char* err, size_t cap)
{
    if (!track_incidents(s, h, t_before))
    {
        return set_err(err, cap, "out of memory");
    }
    app_sim_contact_summary* t = s->summary;
    s->summary = s->stage_summary[0];
    s->stage_summary[0] = t;
    update_peaks(s);
    if (!update_tracks(s))
    {
        return set_err(err, cap, "out of memory");
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

static bool mb_step(app_sim* s, double h, char* err, size_t cap); // JOINT, MOTION (below)

bool app_sim_step(app_sim* s, double h, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    if (s->mb != NULL)
    {
        return mb_step(s, h, err, cap);
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
    if (!evaluate(s, s->tmp, s->k[1], false, s->stage_summary[1], err, cap))
    {
        return false;
    }
    advance(scn, s->state, s->k[1], 0.5 * h, s->tmp);
    if (!evaluate(s, s->tmp, s->k[2], false, s->stage_summary[2], err, cap))
    {
        return false;
    }
    s->force_time = s->time + h;
    advance(scn, s->state, s->k[2], h, s->tmp);
    if (!evaluate(s, s->tmp, s->k[3], false, s->stage_summary[3], err, cap))
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
    double t_before = s->time;
    s->time += h;
    if (!evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) ||
        !commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps += 1;
    return finish_step(s, h, t_before, err, cap);
}

// ---------------------------------------------------------------------------------------------------------------
// BDF integration (see simulate.h)
// ---------------------------------------------------------------------------------------------------------------

typedef double mat3[3][3];

/// [v]x, the cross-product matrix.
static void skew(mc_vec3 v, mat3 out)
{
    out[0][0] = 0.0;
    out[0][1] = -v.z;
    out[0][2] = v.y;
    out[1][0] = v.z;
    out[1][1] = 0.0;
    out[1][2] = -v.x;
    out[2][0] = -v.y;
    out[2][1] = v.x;
    out[2][2] = 0.0;
}

static void mat3_mul(mat3 a, mat3 b, mat3 out)
{
    mat3 r;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    memcpy(out, r, sizeof r);
}

/// The left Jacobian of SO(3) at phi (inverse: `inverse`): a world angular velocity w = J(phi) dphi/dt for
/// R = exp(phi) R_ref. Series below 1e-4 rad, where the closed forms lose digits.
static void so3_left_jacobian(mc_vec3 phi, bool inverse, mat3 out)
{
    double th = mc_length(phi);
    double a, b; // J = I + a [phi]x + b [phi]x^2
    if (inverse)
    {
        a = -0.5;
        b = th < 1e-4 ? 1.0 / 12.0 + th * th / 720.0 : 1.0 / (th * th) - (1.0 + cos(th)) / (2.0 * th * sin(th));
    }
    else
    {
        a = th < 1e-4 ? 0.5 - th * th / 24.0 : (1.0 - cos(th)) / (th * th);
        b = th < 1e-4 ? 1.0 / 6.0 - th * th / 120.0 : (th - sin(th)) / (th * th * th);
    }
    mat3 k, k2;
    skew(phi, k);
    mat3_mul(k, k, k2);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            out[i][j] = (i == j ? 1.0 : 0.0) + a * k[i][j] + b * k2[i][j];
        }
    }
}

static mc_vec3 mat3_vec(mat3 m, mc_vec3 v)
{
    return mc_v3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                 m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

static mc_quat quat_exp(mc_vec3 phi)
{
    double th = mc_length(phi);
    double sc = th > 1e-8 ? sin(0.5 * th) / th : 0.5 - th * th / 48.0;
    mc_quat q = {cos(0.5 * th), sc * phi.x, sc * phi.y, sc * phi.z};
    return q;
}

static mc_vec3 y_vec(const double* y, int k)
{
    return mc_v3(y[k], y[k + 1], y[k + 2]);
}

static void y_set(double* y, int k, mc_vec3 v)
{
    y[k] = v.x;
    y[k + 1] = v.y;
    y[k + 2] = v.z;
}

/// The part states of y (ground parts keep theirs): q = exp(phi) q_ref, a unit quaternion by construction.
static void unpack_state(const app_sim* s, const double* y, rb_state* out)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        const double* ym = y + 12 * m;
        out[i].p = y_vec(ym, 0);
        out[i].q = mc_quat_normalize(mc_quat_mul(quat_exp(y_vec(ym, 3)), s->q_ref[i]));
        out[i].v = y_vec(ym, 6);
        out[i].w = y_vec(ym, 9);
    }
}

/// y from the part states, with phi = 0: every part's orientation becomes its reference.
static void pack_state(app_sim* s)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        double* ym = s->y + 12 * m;
        s->q_ref[i] = s->state[i].q;
        y_set(ym, 0, s->state[i].p);
        y_set(ym, 3, mc_v3(0.0, 0.0, 0.0));
        y_set(ym, 6, s->state[i].v);
        y_set(ym, 9, s->state[i].w);
    }
}

/// Fraction of a contact's estimated impact penetration that a trial state of a BDF step may reach at a new contact
/// before the step is retaken (the contact predictor), and the fraction the retaken step aims to end at.
#define APP_SIM_ONSET_TRIGGER 0.1
#define APP_SIM_ONSET_LAND 0.02
/// Retakes of one step by the predictor before the error test is left to find the onset (each retake lands closer:
/// more would mean the rate estimate is far off, e.g. a contact that opens in a spin).
#define APP_SIM_ONSET_RETAKES 3

/// Adams' contact predictor. A trial state of the step in progress (time t) that finds a contact which was
/// separated at the step's start deeper than APP_SIM_ONSET_TRIGGER of its impact penetration stops the step: the
/// onset time is estimated from the depth and its rate, t - g / gdot, and app_sim_step_bdf retakes the step to end
/// APP_SIM_ONSET_LAND of the impact penetration past it, restarting the integrator at order one. Without it, the
/// error test finds the onset and halves the step again and again. @return true when the step must stop
static bool onset_check(app_sim* s, double t)
{
    bool stop = false;
    double t_onset = INFINITY;
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* now = &s->stage_summary[2][c];
        double rate = now->dominant.rate;
        if (s->summary[c].regions > 0 || now->regions == 0 || !(rate > 0.0))
        {
            continue;
        }
        double gimp = impact_penetration(s, c, rate);
        if (!(now->depth > APP_SIM_ONSET_TRIGGER * gimp))
        {
            continue;
        }
        double tc = t - now->depth / rate;
        if (tc < t_onset)
        {
            t_onset = tc;
            s->onset_rate = rate;
            s->onset_land = APP_SIM_ONSET_LAND * gimp;
        }
        stop = true;
    }
    s->onset_stop = stop;
    s->onset_time = t_onset;
    s->onset_trial = t;
    return stop;
}

static int bdf_rhs(double t, const double* y, double* dydt, void* user)
{
    app_sim* s = user;
    s->force_time = t;
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        s->tmp[i] = s->state[i];
    }
    unpack_state(s, y, s->tmp);
    // The contacts of every trial state go to stage_summary[2]; stage_summary[3] keeps, per contact, the trial with
    // the largest normal force of the step in progress (for the message when the step fails).
    if (!evaluate(s, s->tmp, s->k[1], false, s->stage_summary[2], s->bdf_err, sizeof s->bdf_err))
    {
        return 1;
    }
    if (onset_check(s, t))
    {
        return 1;
    }
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* now = &s->stage_summary[2][c];
        app_sim_contact_summary* kept = &s->stage_summary[3][c];
        if (now->regions > 0 && (kept->regions == 0 || now->normal_force > kept->normal_force))
        {
            *kept = *now;
        }
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        const rb_deriv* d = &s->k[1][s->moving[m]];
        const double* ym = y + 12 * m;
        double* f = dydt + 12 * m;
        mat3 jinv;
        so3_left_jacobian(y_vec(ym, 3), true, jinv);
        y_set(f, 0, y_vec(ym, 6));
        y_set(f, 3, mat3_vec(jinv, y_vec(ym, 9)));
        y_set(f, 6, d->dv);
        y_set(f, 9, d->dw);
    }
    return 0;
}

/// dfdy[row][col] += sign * m (3 x 3) at (r0, c0) of an n x n row-major matrix.
static void add_block(double* dfdy, int n, int r0, int c0, mat3 m, double sign)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            dfdy[(r0 + i) * n + c0 + j] += sign * m[i][j];
        }
    }
}

/// R A R^T of a body-frame matrix A (the world-frame inertia or its inverse) of orientation q.
static void world_matrix(mc_quat q, const mc_mat33* a, mat3 out)
{
    mc_mat33 r = mc_quat_to_mat33(q);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            double v = 0.0;
            for (int k = 0; k < 3; ++k)
            {
                for (int l = 0; l < 3; ++l)
                {
                    v += r.m[i][k] * a->m[k][l] * r.m[j][l];
                }
            }
            out[i][j] = v;
        }
    }
}

/// The rigid-body part of the Jacobian of bdf_rhs (the contact part is added by add_contact_jacobian): dp/dt = v,
/// dphi/dt = J^-1(phi) w (its phi dependence taken at phi = 0: 1/2 [w]x), and dw/dt = I_w^-1 r, r = T - w x I_w w,
/// through w (gyroscopic term) and through the rotation of I_w = R I R^T (d(M x)/dtheta = M [x]x - [M x]x for
/// M = R A R^T, theta = J(phi) phi), T held fixed (its contact part comes from the blocks). Exactness is not needed
/// (the Jacobian only drives the corrector's Newton iteration, whose converged result and error test do not depend
/// on it), but a good one saves iterations and Jacobian updates.
static void rigid_jacobian(const app_sim* s, const double* y, double* dfdy, int n)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m], o = 12 * m;
        const double* ym = y + o;
        mat3 eye = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}, jinv, wx, iw, iwinv, a, b;
        add_block(dfdy, n, o, o + 6, eye, 1.0);
        so3_left_jacobian(y_vec(ym, 3), true, jinv);
        add_block(dfdy, n, o + 3, o + 9, jinv, 1.0);
        mc_vec3 w = y_vec(ym, 9);
        skew(w, wx);
        add_block(dfdy, n, o + 3, o + 3, wx, 0.5);
        // d/dw of -I_w^-1 (w x I_w w) = -I_w^-1 ([w]x I_w - [I_w w]x)
        world_matrix(s->tmp[i].q, &s->inertia[i], iw);
        world_matrix(s->tmp[i].q, &s->inv_inertia[i], iwinv);
        mat3_mul(wx, iw, a);
        skew(mat3_vec(iw, w), b);
        for (int r = 0; r < 3; ++r)
        {
            for (int c = 0; c < 3; ++c)
            {
                a[r][c] -= b[r][c];
            }
        }
        mat3_mul(iwinv, a, a);
        add_block(dfdy, n, o + 9, o + 9, a, -1.0);
        // d/dtheta: I_w^-1 [r]x - [I_w^-1 r]x - I_w^-1 [w]x (I_w [w]x - [I_w w]x), then times J(phi)
        mc_vec3 iww = mat3_vec(iw, w);
        mc_vec3 r = mc_sub(s->stage_wrench[i].torque, mc_cross(w, iww));
        mat3 rx, irx, c, d, jl;
        skew(r, rx);
        skew(mat3_vec(iwinv, r), irx);
        mat3_mul(iwinv, rx, c);
        mat3_mul(iw, wx, d);
        skew(iww, b);
        for (int k = 0; k < 9; ++k)
        {
            d[k / 3][k % 3] -= b[k / 3][k % 3];
        }
        mat3_mul(wx, d, d);
        mat3_mul(iwinv, d, d);
        for (int k = 0; k < 9; ++k)
        {
            c[k / 3][k % 3] -= irx[k / 3][k % 3] + d[k / 3][k % 3];
        }
        so3_left_jacobian(y_vec(ym, 3), false, jl);
        mat3_mul(c, jl, c);
        add_block(dfdy, n, o + 9, o + 3, c, 1.0);
    }
}

/// 3 x 3 sub-block (r0, c0) of a 12 x 12 contact block.
static void sub3(const double (*blk)[12], int r0, int c0, mat3 out)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            out[i][j] = blk[r0 + i][c0 + j];
        }
    }
}

/// Add d(wrench of body c) / d(state of its part Q) from one contact block (the body's rows `rc`, the other body's
/// columns `ck`, body k on part Q) into the rows of body c's part: the body's pose and twist follow the part's state
/// (rotation delta = J(phi) dphi, translation dp - [r_k]x delta, angular dw, linear dv - [r_k]x dw - [w]x [r_k]x
/// delta), and the part's wrench is the body's force and its torque plus r_c x force.
static void add_pair_terms(const app_sim* s, const sim_jac_block* blk, int rc, int ck, int c, int k, double* dfdy,
                           int n)
{
    int pc = s->bodies[c].part, pk = s->bodies[k].part;
    int mc = s->moving_of_part[pc], mk = s->moving_of_part[pk];
    if (mc < 0 || mk < 0)
    {
        return;
    }
    const rb_state* xq = &s->tmp[pk];
    mc_vec3 rk = mc_sub(s->body_poses[k].p, xq->p), rcv = mc_sub(s->body_poses[c].p, s->tmp[pc].p);
    mat3 rkx, wx, rcx, jl, iwinv;
    skew(rk, rkx);
    skew(xq->w, wx);
    skew(rcv, rcx);
    so3_left_jacobian(y_vec(s->y_scratch_state + 12 * mk, 3), false, jl);
    world_matrix(s->tmp[pc].q, &s->inv_inertia[pc], iwinv);
    double inv_m = 1.0 / s->mass[pc];
    int oc = 12 * mc, ok = 12 * mk;
    // g[row: force 0, torque 1][column: p, phi, v, w] of body c's wrench (about its reference point)
    for (int row = 0; row < 2; ++row)
    {
        mat3 kr, kt, dr, dt, wrk, tmp;
        sub3(blk->stiffness, rc + 3 * row, ck, kr);     // d/d rotation
        sub3(blk->stiffness, rc + 3 * row, ck + 3, kt); // d/d translation
        sub3(blk->damping, rc + 3 * row, ck, dr);       // d/d angular velocity
        sub3(blk->damping, rc + 3 * row, ck + 3, dt);   // d/d linear velocity
        mat3 g[4];
        memcpy(g[0], kt, sizeof kt);
        // rotation: kr - kt [rk]x - dt [w]x [rk]x, then times J(phi)
        mat3_mul(kt, rkx, tmp);
        mat3_mul(wx, rkx, wrk);
        mat3_mul(dt, wrk, wrk);
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                g[1][i][j] = kr[i][j] - tmp[i][j] - wrk[i][j];
            }
        }
        mat3_mul(g[1], jl, g[1]);
        memcpy(g[2], dt, sizeof dt);
        mat3_mul(dt, rkx, tmp);
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                g[3][i][j] = dr[i][j] - tmp[i][j];
            }
        }
        for (int col = 0; col < 4; ++col)
        {
            if (row == 0)
            {
                // force rows: dv/dt = F / m; torque about the centre of mass gains r_c x F
                add_block(dfdy, n, oc + 6, ok + 3 * col, g[col], inv_m);
                mat3_mul(rcx, g[col], tmp);
                mat3_mul(iwinv, tmp, tmp);
                add_block(dfdy, n, oc + 9, ok + 3 * col, tmp, 1.0);
            }
            else
            {
                mat3_mul(iwinv, g[col], tmp);
                add_block(dfdy, n, oc + 9, ok + 3 * col, tmp, 1.0);
            }
        }
    }
}

/// The contact part of the Jacobian: sim_contact_jacobian's blocks at the state s->tmp (evaluated), assembled over
/// the parts, plus the turning of each body's lever arm with its part ([F_c]x [r_c]x on the torque).
/// To use the library's analytic mc_world_get_jacobian instead, fill s->blocks from it here: the assembly is the same.
/// The index of body `id` in s->jworld.ids, or -1.
static int jacobian_body(const app_sim* s, mc_body_id id)
{
    for (uint32_t b = 0; b < s->jworld.count; ++b)
    {
        if (s->jworld.ids[b].index1 == id.index1 && s->jworld.ids[b].generation == id.generation)
        {
            return (int)b;
        }
    }
    return -1;
}

/// The library's blocks (mc_world_get_jacobian: the force laws differentiated exactly, the region geometry by central
/// differences of each pair's query: the simulator sets MC_JACOBIAN_DIFFERENCES, see app_sim_create) at the evaluated
/// state, in sim_jac_block's layout: per body the library orders its columns translation, rotation (pose) and linear,
/// angular (twist); sim_jac_block rotation, translation and angular, linear. @return MC_OK, MC_ERR_UNSUPPORTED
/// (stiction or a user law: the caller differences the world instead) or another failure.
static mc_status library_jacobian(app_sim* s, uint32_t* count)
{
    mc_status st = mc_world_get_jacobian(s->world, s->lib_blocks, s->lib_block_cap, count);
    if (st == MC_ERR_CAPACITY || *count > s->block_cap)
    {
        mc_jacobian_block* lb = realloc(s->lib_blocks, (size_t)*count * sizeof *lb);
        sim_jac_block* nb = lb != NULL ? realloc(s->blocks, (size_t)*count * sizeof *nb) : NULL;
        s->lib_blocks = lb != NULL ? lb : s->lib_blocks;
        if (lb == NULL || nb == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        s->blocks = nb;
        s->lib_block_cap = s->block_cap = *count;
        st = mc_world_get_jacobian(s->world, s->lib_blocks, s->lib_block_cap, count);
    }
    if (st != MC_OK)
    {
        return st;
    }
    static const int col[12] = {3, 4, 5, 0, 1, 2, 9, 10, 11, 6, 7, 8}; // library column of each sim_jac column
    for (uint32_t p = 0; p < *count; ++p)
    {
        const mc_jacobian_block* lb = &s->lib_blocks[p];
        sim_jac_block* b = &s->blocks[p];
        int ia = jacobian_body(s, lb->body_i), ib = jacobian_body(s, lb->body_j);
        if (ia < 0 || ib < 0)
        {
            return MC_ERR_INVALID_ARGUMENT;
        }
        b->body_a = (uint32_t)ia;
        b->body_b = (uint32_t)ib;
        for (int r = 0; r < 12; ++r)
        {
            for (int c = 0; c < 12; ++c)
            {
                b->stiffness[r][c] = lb->stiffness[r][col[c]];
                b->damping[r][c] = lb->damping[r][col[c]];
            }
        }
    }
    return MC_OK;
}

static bool add_contact_jacobian(app_sim* s, double* dfdy, int n)
{
    uint32_t count = 0;
    // the library does not differentiate stiction (and would log each refusal)
    // Without contacts there is nothing to differentiate (the world of parts without geometry is never evaluated).
    mc_status st = has_stiction(s->scn)      ? MC_ERR_UNSUPPORTED
                   : s->wcontact_count == 0 ? MC_OK
                                            : library_jacobian(s, &count);
    if (st != MC_ERR_UNSUPPORTED && st != MC_OK)
    {
        return set_err(s->bdf_err, sizeof s->bdf_err, "contact Jacobian failed at t = %g: %s", s->time,
                       mc_status_string(st));
    }
    if (st == MC_ERR_UNSUPPORTED)
    {
        s->fd_jacobians += 1;
        st = sim_contact_jacobian(&s->jworld, &s->jscratch, s->blocks, s->block_cap, &count, &s->evaluations);
    }
    if (st == MC_OK && count > s->block_cap)
    {
        sim_jac_block* nb = realloc(s->blocks, (size_t)count * sizeof *nb);
        if (nb == NULL)
        {
            return set_err(s->bdf_err, sizeof s->bdf_err, "out of memory");
        }
        s->blocks = nb;
        s->block_cap = count;
        st = sim_contact_jacobian(&s->jworld, &s->jscratch, s->blocks, s->block_cap, &count, &s->evaluations);
    }
    if (st != MC_OK)
    {
        return set_err(s->bdf_err, sizeof s->bdf_err, "contact evaluation failed at t = %g: %s", s->time,
                       mc_status_string(st));
    }
    s->stats.jacobians += 1;
    for (uint32_t p = 0; p < count; ++p)
    {
        const sim_jac_block* b = &s->blocks[p];
        int body[2] = {(int)b->body_a, (int)b->body_b};
        for (int rc = 0; rc < 2; ++rc)
        {
            for (int ck = 0; ck < 2; ++ck)
            {
                add_pair_terms(s, b, 6 * rc, 6 * ck, body[rc], body[ck], dfdy, n);
            }
        }
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        int pc = s->bodies[b].part, mc = s->moving_of_part[pc];
        if (mc < 0)
        {
            continue;
        }
        mat3 fx, rx, iwinv, t;
        skew(s->body_wrenches[b].force, fx);
        skew(mc_sub(s->body_poses[b].p, s->tmp[pc].p), rx);
        mat3_mul(fx, rx, t);
        world_matrix(s->tmp[pc].q, &s->inv_inertia[pc], iwinv);
        mat3_mul(iwinv, t, t);
        add_block(dfdy, n, 12 * mc + 9, 12 * mc + 3, t, 1.0);
    }
    return true;
}

/// The accelerations (dv, dw; 6 per moving part) the mechanism's force elements give at the state in s->tmp.
static bool force_accelerations(app_sim* s, double* acc)
{
    const mc_wrench* fw = mech_forces(s, s->tmp, s->bdf_err, sizeof s->bdf_err);
    if (fw == NULL)
    {
        return false;
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        mat3 iwinv;
        world_matrix(s->tmp[i].q, &s->inv_inertia[i], iwinv);
        y_set(acc, 6 * m, mc_scale(fw[i].force, 1.0 / s->mass[i]));
        y_set(acc, 6 * m + 3, mat3_vec(iwinv, fw[i].torque));
    }
    return true;
}

/// The force elements' terms of the Jacobian (sim_forces.c does not differentiate its expressions): forward
/// differences of their accelerations over every state component, n + 1 evaluations of the elements alone.
static bool add_force_jacobian(app_sim* s, const double* y, double* dfdy, int n)
{
    int na = 6 * s->moving_count;
    double* buf = malloc((size_t)(n + 2 * na) * sizeof *buf);
    if (buf == NULL)
    {
        return set_err(s->bdf_err, sizeof s->bdf_err, "out of memory");
    }
    double *yp = buf, *a0 = buf + n, *a1 = buf + n + na;
    memcpy(yp, y, (size_t)n * sizeof *y);
    bool ok = force_accelerations(s, a0);
    for (int c = 0; ok && c < n; ++c)
    {
        double h = 1.5e-8 * fmax(fabs(y[c]), 1.0); // about sqrt(eps) relative: the forward difference's best step
        yp[c] = y[c] + h;
        unpack_state(s, yp, s->tmp);
        ok = force_accelerations(s, a1);
        yp[c] = y[c];
        for (int r = 0; ok && r < na; ++r)
        {
            dfdy[(size_t)(12 * (r / 6) + 6 + r % 6) * (size_t)n + (size_t)c] += (a1[r] - a0[r]) / h;
        }
    }
    unpack_state(s, y, s->tmp);
    free(buf);
    return ok;
}

static int bdf_jac(double t, const double* y, double* dfdy, void* user)
{
    app_sim* s = user;
    s->force_time = t;
    int n = 12 * s->moving_count;
    memset(dfdy, 0, (size_t)n * (size_t)n * sizeof *dfdy);
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        s->tmp[i] = s->state[i];
    }
    unpack_state(s, y, s->tmp);
    memcpy(s->y_scratch_state, y, (size_t)n * sizeof *y);
    // The world at y (the corrector may have evaluated elsewhere last).
    if (!evaluate(s, s->tmp, s->k[1], false, NULL, s->bdf_err, sizeof s->bdf_err))
    {
        return 1;
    }
    rigid_jacobian(s, y, dfdy, n);
    if (s->forces != NULL && !add_force_jacobian(s, y, dfdy, n))
    {
        return 1;
    }
    return s->body_count == 0 || add_contact_jacobian(s, dfdy, n) ? 0 : 1;
}

/// 1: also limit BDF steps by the library's contact prediction, mc_world_get_step_hint. Off: with it the knob drop
/// took 5.24 s of CPU instead of 1.34 and data/ball_pile.scn 1.00 s instead of 0.31 (RK4: 0.44), the distance
/// queries of every step costing more than they save; the thickness guard below keeps the thin plate test passing.
#ifndef APP_SIM_USE_STEP_HINT
#define APP_SIM_USE_STEP_HINT 0
#endif

/// The largest step that cannot step over a contact onset: a guard, no part point moves relative to another by more
/// than half the thinnest contact geometry's smallest extent (mesh frame bounding box) in one step, at the current
/// speeds plus what gravity adds; with APP_SIM_USE_STEP_HINT also the library's step hint (see above).
static double step_limit(app_sim* s)
{
    double limit = INFINITY;
    double vmax = 0.0;
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        vmax = fmax(vmax, mc_length(s->state[i].v) + mc_length(s->state[i].w) * s->part_radius[i]);
    }
    double dt_out = s->scn->end_time / s->scn->steps;
    double speed = 2.0 * vmax + mc_length(s->scn->gravity) * fmin(dt_out, s->hmax);
#if APP_SIM_USE_STEP_HINT
    // Not below the time to close a tenth of the smallest estimated impact penetration: a step may enter a contact
    // that far (the onset rule accepts it), and a pair a rounding error apart would otherwise stall the run.
    double hint = INFINITY;
    if (s->body_count > 0 && speed > 0.0 && mc_world_get_step_hint(s->world, &hint) == MC_OK)
    {
        limit = fmax(hint, 0.1 * s->gscale / speed);
    }
#endif
    if (isfinite(s->thin) && speed > 0.0)
    {
        limit = fmin(limit, 0.5 * s->thin / speed);
    }
    for (int c = 0; c < s->scn->contact_count; ++c) // RecurDyn's and DYMORE's contact step control (scenario_laws.h)
    {
        const app_sim_contact_summary* sm = &s->summary[c];
        limit = fmin(limit,
                     app_laws_step_limit(s->scn->contacts[c].laws, s->hmax, sm->regions, sm->depth, sm->dominant.rate));
    }
    return limit;
}

/// The contact carrying the largest normal force in the summaries `sums`, as its label and force, or false.
static bool busiest_contact(const app_sim* s, const app_sim_contact_summary* sums, const char* when, char* out,
                            size_t cap)
{
    int best = -1;
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        if (sums[c].regions > 0 && (best < 0 || sums[c].normal_force > sums[best].normal_force))
        {
            best = c;
        }
    }
    if (best < 0)
    {
        return false;
    }
    char label[400];
    app_sim_contact_label(s, best, label, sizeof label);
    snprintf(out, cap, "%s carries the largest normal force %s, %.3g", label, when, sums[best].normal_force);
    return true;
}

/// Stop with the tolerance message.
static bool tolerance_failure(app_sim* s, double h, char* err, size_t cap)
{
    // The contact that made the step fail: the busiest one over the failed step's trial states, else now.
    char who[600] = "no contact is active";
    if (!busiest_contact(s, s->stage_summary[3], "in the failed step", who, sizeof who))
    {
        busiest_contact(s, s->summary, "now", who, sizeof who);
    }
    return set_err(err, cap,
                   "the BDF integrator cannot meet INTEGRATOR/ERROR=%g at t = %.9g: its step fell to %.3g, below "
                   "HMIN=%.3g (%s); raise ERROR=, lower HMIN=, soften the contact or use INTEGRATOR/RK4",
                   s->error, s->time, h, s->hmin, who);
}

bool app_sim_step_bdf(app_sim* s, double t_end, char* err, size_t cap)
{
    if (s->mb != NULL)
    {
        return mb_step(s, t_end - s->time, err, cap); // JOINT, MOTION: the multibody library integrates
    }
    const app_scenario* scn = s->scn;
    int n = 12 * s->moving_count;
    double t0 = s->time;
    if (s->bdf == NULL)
    {
        // Nothing moves: the state is constant, one step to t_end.
        s->time = t_end;
        s->stats.steps += 1;
        return evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) &&
               commit_state(s, s->stage_summary[0], err, cap) && finish_step(s, t_end - t0, t0, err, cap);
    }
    memcpy(s->y_start, s->y, (size_t)n * sizeof *s->y);
    memset(s->stage_summary[3], 0, (size_t)scn->contact_count * sizeof *s->stage_summary[3]);
    int predictions = 0; // retakes of this step by the contact predictor
    for (;;)
    {
        double limit = fmin(s->hmax, step_limit(s));
        // Equal steps to t_end, each at most the proposed step: a step cut short to land on an output time makes
        // GSL's msbdf restart at order 1 from its first step (measured: a free fall with outputs every 0.5 ms took
        // 504 steps and erred by 1.1e-5 m in 63 ms; with equal steps 132 steps and 1.8e-7 m).
        double rem = t_end - t0;
        double m = ceil(rem / fmin(s->bdf_h, limit) * (1.0 - 1e-12));
        double h = m > 1.0 ? rem / m : rem;
        double t = t0;
        // t_end, not t0 + h, as the bound: GSL keeps the step of a step it had to shorten to land on its bound.
        s->onset_stop = false;
        sim_bdf_status st = sim_bdf_step(s->bdf, &t, t_end, &h, s->y);
        if (st == SIM_BDF_STOPPED && s->onset_stop && predictions < APP_SIM_ONSET_RETAKES)
        {
            // The predictor: back to the step's start, retake it to land just past the estimated onset.
            s->stats.onset_rejections += 1;
            predictions += 1;
            memcpy(s->y, s->y_start, (size_t)n * sizeof *s->y);
            unpack_state(s, s->y, s->state);
            s->time = t0;
            sim_bdf_reset(s->bdf);
            // From the start (or the onset, when it is later) to the landing depth; at least halved.
            double trial = s->onset_trial - t0;
            double land = fmax(s->onset_time - t0, 0.0) + s->onset_land / s->onset_rate;
            s->bdf_h = fmax(s->hmin, land < trial ? land : 0.5 * trial);
            continue;
        }
        if (st == SIM_BDF_STOPPED)
        {
            return set_err(err, cap, "%s", s->bdf_err);
        }
        double taken = t - t0;
        if (st == SIM_BDF_FAILED || (taken < s->hmin && t < t_end))
        {
            return tolerance_failure(s, st == SIM_BDF_FAILED ? h : taken, err, cap);
        }
        s->bdf_h = h;
        unpack_state(s, s->y, s->state);
        s->time = t;
        if (!evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap))
        {
            return false;
        }
        // Contact onset: a step that starts separated and ends deeper than a tenth of the contact's estimated
        // impact penetration is retried shorter (after a reset: the history before the onset is of another ODE).
        double worst = 0.0;
        for (int c = 0; c < scn->contact_count; ++c)
        {
            double limit_depth = 0.1 * s->contact_gmax[c];
            double depth = s->stage_summary[0][c].depth;
            if (s->summary[c].regions == 0 && limit_depth > 0.0 && depth > limit_depth)
            {
                worst = fmax(worst, depth / limit_depth);
            }
        }
        if (worst > 0.0 && taken > s->hmin)
        {
            s->stats.onset_rejections += 1;
            memcpy(s->y, s->y_start, (size_t)n * sizeof *s->y);
            unpack_state(s, s->y, s->state);
            s->time = t0;
            pack_state(s);
            sim_bdf_reset(s->bdf);
            s->bdf_h = fmax(s->hmin, taken * fmin(0.5, 0.5 / worst));
            continue;
        }
        break;
    }
    // The step is accepted: the contact state (stiction anchors) advances to it.
    if (!commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps += 1;
    double h = s->time - t0;
    s->stats.min_step = s->stats.steps == 1 ? h : fmin(s->stats.min_step, h);
    s->stats.max_step = fmax(s->stats.max_step, h);
    // A rotation vector past 1 rad is moved into the reference (the exponential map stays far from its 2 pi
    // singularity); the history then restarts.
    for (int m = 0; m < s->moving_count; ++m)
    {
        if (mc_length(y_vec(s->y + 12 * m, 3)) > 1.0)
        {
            pack_state(s);
            sim_bdf_reset(s->bdf);
            s->stats.rebases += 1;
            break;
        }
    }
    s->stats.failed_steps = sim_bdf_failed_steps(s->bdf);
    s->stats.newton_failures = sim_bdf_get_counts(s->bdf).corrector_failures;
    return finish_step(s, h, t0, err, cap);
}

int app_sim_ode_size(const app_sim* s)
{
    return s->bdf != NULL ? 12 * s->moving_count : 0;
}

void app_sim_ode_state(const app_sim* s, double* y)
{
    memcpy(y, s->y, (size_t)app_sim_ode_size(s) * sizeof *y);
}

bool app_sim_ode_rhs(app_sim* s, const double* y, double* dydt)
{
    return s->bdf != NULL && bdf_rhs(s->time, y, dydt, s) == 0;
}

bool app_sim_ode_jacobian(app_sim* s, const double* y, double* dfdy)
{
    return s->bdf != NULL && bdf_jac(s->time, y, dfdy, s) == 0;
}

/// Set up the BDF integrator after the bodies and contacts exist. @return false with a message
static bool bdf_create(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    double dt_out = scn->end_time / scn->steps;
    s->moving = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->moving);
    s->moving_of_part = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->moving_of_part);
    s->q_ref = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->q_ref);
    s->part_radius = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->part_radius);
    size_t nb = (size_t)(s->body_count > 0 ? s->body_count : 1);
    s->movable = calloc(nb, sizeof *s->movable);
    s->jsteps = calloc(nb, sizeof *s->jsteps);
    if (!s->moving || !s->moving_of_part || !s->q_ref || !s->part_radius || !s->movable || !s->jsteps)
    {
        return set_err(err, cap, "out of memory");
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        s->moving_of_part[i] = scn->parts[i].ground ? -1 : s->moving_count;
        if (!scn->parts[i].ground)
        {
            s->moving[s->moving_count++] = i;
        }
    }
    // Geometry sizes: the parts' radii (for the speed of their points) and the thinnest contact geometry.
    s->thin = INFINITY;
    double len = 0.0;
    for (int b = 0; b < s->body_count; ++b)
    {
        const sim_body* sb = &s->bodies[b];
        const mc_mesh* mesh = s->meshes[sb->graphics];
        mc_vec3 lo = mc_v3(INFINITY, INFINITY, INFINITY), hi = mc_neg(lo);
        double radius = 0.0;
        uint32_t nv = 0;
        if (mesh != NULL)
        {
            const mc_vec3* pos = mc_mesh_get_positions(mesh);
            nv = mc_mesh_get_vertex_count(mesh);
            for (uint32_t v = 0; v < nv; ++v)
            {
                lo = mc_v3(fmin(lo.x, pos[v].x), fmin(lo.y, pos[v].y), fmin(lo.z, pos[v].z));
                hi = mc_v3(fmax(hi.x, pos[v].x), fmax(hi.y, pos[v].y), fmax(hi.z, pos[v].z));
                radius = fmax(radius, mc_length(mc_pose_transform(&sb->local, pos[v])));
            }
        }
        else
        {
            // An analytic body: its exact extents (the library's cylinder is centred on its frame; a plane is
            // unbounded: no size, and never the thinnest geometry).
            const app_scenario_graphics* g = &scn->graphics[sb->graphics];
            bool bounded = g->shape == APP_SCENARIO_SPHERE || g->shape == APP_SCENARIO_CYLINDER;
            double r = g->size[0], half = g->shape == APP_SCENARIO_CYLINDER ? 0.5 * g->size[1] : r;
            if (bounded)
            {
                nv = 1;
                lo = mc_v3(-r, -r, -half);
                hi = mc_v3(r, r, half);
                radius = mc_length(sb->local.p) + sqrt(r * r + half * half);
            }
        }
        s->part_radius[sb->part] = fmax(s->part_radius[sb->part], radius);
        if (nv > 0 && !sb->flip)
        {
            s->thin = fmin(s->thin, fmin(hi.x - lo.x, fmin(hi.y - lo.y, hi.z - lo.z)));
        }
        len = fmax(len, radius);
        s->movable[b] = !scn->parts[sb->part].ground;
    }
    // Error scales: lengths in units of the smallest estimated impact penetration, speeds in units of the largest
    // approach speed bound (without contacts: a thousandth of the largest part and its speed over an output interval).
    double gscale = 0.0;
    for (int c = 0; c < scn->contact_count; ++c)
    {
        gscale =
            s->contact_gmax[c] > 0.0 && (gscale == 0.0 || s->contact_gmax[c] < gscale) ? s->contact_gmax[c] : gscale;
    }
    len = len > 0.0 ? len : 1.0;
    gscale = gscale > 0.0 ? gscale : 1e-3 * len;
    s->gscale = gscale;
    double vscale = s->vel_scale > 0.0 ? s->vel_scale : len / dt_out;
    int n = 12 * s->moving_count;
    size_t nn = (size_t)(n > 0 ? n : 1);
    s->y = calloc(nn, sizeof *s->y);
    s->y_start = calloc(nn, sizeof *s->y_start);
    s->y_scale = calloc(nn, sizeof *s->y_scale);
    s->y_scratch_state = calloc(nn, sizeof *s->y_scratch_state);
    if (!s->y || !s->y_start || !s->y_scale || !s->y_scratch_state)
    {
        return set_err(err, cap, "out of memory");
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        double r = s->part_radius[s->moving[m]] > 0.0 ? s->part_radius[s->moving[m]] : len;
        double sc[4] = {gscale, gscale / r, vscale, vscale / r};
        for (int k = 0; k < 12; ++k)
        {
            s->y_scale[12 * m + k] = sc[k / 3];
        }
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        double r = s->part_radius[s->bodies[b].part] > 0.0 ? s->part_radius[s->bodies[b].part] : len;
        // Forward differences: steps of 1e-6 of the error scales (a relative 1e-6 change of the depth is far above
        // the rounding of the exact geometry, 1e-16 of the coordinates, and far below the penetration itself).
        s->jsteps[b] = (sim_jac_steps){1e-6 * gscale / r, 1e-6 * gscale, 1e-6 * vscale / r, 1e-6 * vscale};
    }
    s->jworld = (sim_jac_world){s->world,   s->ids,    s->body_poses,          s->body_twists,
                                s->movable, s->jsteps, (uint32_t)s->body_count};
    s->error = scn->error > 0.0 ? scn->error : APP_SIM_DEFAULT_ERROR;
    s->hmax = scn->hmax > 0.0 ? fmin(scn->hmax, dt_out) : dt_out;
    double ts = s->time_scale > 0.0 ? s->time_scale : dt_out;
    s->hmin = scn->hmin > 0.0 ? scn->hmin : 1e-9 * ts;
    s->bdf_h = scn->hinit > 0.0 ? scn->hinit : fmin(s->hmax, 0.1 * ts);
    s->h = s->bdf_h;
    s->substeps = 1;
    pack_state(s);
    if (n > 0)
    {
        s->bdf = sim_bdf_create((size_t)n, bdf_rhs, bdf_jac, s, s->y_scale, s->error, s->bdf_h);
        if (s->bdf == NULL)
        {
            return set_err(err, cap, "out of memory");
        }
    }
    return true;
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
        return set_err(err, cap, "out of memory");
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
    if (!evaluate(s, s->tmp, s->k[1], false, NULL, err, cap))
    {
        return false;
    }
    const mc_wrench* fw = s->forces != NULL ? mech_forces(s, s->tmp, err, cap) : NULL;
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
        return set_err(err, cap,
                       "%s:%d: INTEGRATOR/RK4 cannot integrate JOINTs: the multibody library does (give BDF, with "
                       "ERROR= for its accuracy)",
                       scn->path, scn->integrator_line);
    }
    s->mb_motion = malloc((size_t)scn->part_count * sizeof *s->mb_motion);
    if (s->mb_motion == NULL)
    {
        return set_err(err, cap, "out of memory");
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        const rb_state* x = &s->state[i];
        s->mb_motion[i] = (app_part_motion){x->p, x->q, x->v, x->w};
    }
    app_mb_def d = {scn, s->mass, s->inertia, s->cm, s->mb_motion, scn->error > 0.0 ? scn->error : 1e-7, mb_force, s};
    return app_mb_create(&d, &s->mb, err, cap);
}

/// One output interval of the multibody model, then the contacts' summaries and incidents at its end.
static bool mb_step(app_sim* s, double h, char* err, size_t cap)
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
    if (!evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) ||
        !commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps = (uint64_t)app_mb_step_count(s->mb);
    return finish_step(s, h, t_before, err, cap);
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
            warn(s,
                 "%s:%d: CONTACT/%d: PART/%d and PART/%d start interpenetrating: overlap volume %.3g, depth %.3g, "
                 "normal force %.3g at t = 0",
                 scn->path, c->line, c->id, scn->parts[part_of_body(s, r0->body_i)].id,
                 scn->parts[part_of_body(s, r0->body_j)].id, volume, depth, fn);
        }
    }
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
    if (!app_sim_check_bdf_memory(scn, 0.0, err, cap)) // before any work (issue 41, sim_guard.h)
    {
        app_sim_destroy(s);
        return false;
    }
    if (!alloc_arrays(s))
    {
        app_sim_destroy(s);
        return set_err(err, cap, "out of memory");
    }
    for (int c = 0; c < scn->contact_count; ++c)
    {
        s->open_incident[c] = -1;
    }
    for (int k = 0; k < scn->warning_count; ++k)
    {
        warn(s, "%s", scn->warnings[k]);
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
            return set_err(err, cap, "%s:%d: PART/%d: IP is singular", scn->path, p->line, p->id);
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
        return set_err(err, cap, "cannot create the world");
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
        return set_err(err, cap, "out of memory");
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        s->ids[b] = s->bodies[b].id;
    }
    // Step size.
    double dt_out = scn->end_time / scn->steps;
    if (scn->integrator == APP_SCENARIO_BDF)
    {
        if (!app_sim_check_time_scale(scn, s->time_scale, err, cap) || !bdf_create(s, err, cap))
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
        return set_err(err, cap,
                       "%s: %.3g integration steps would be needed (END=%g, step %g%s), more than the limit of %.0e: "
                       "shorten END, raise INTEGRATOR/HMAX= or lower the contact stiffness",
                       scn->path, total, scn->end_time, h,
                       scn->hmax > 0.0 ? " from HMAX" : " from the contact time scale", APP_SIM_MAX_STEPS);
    }
    s->substeps = (int64_t)nsub;
    if (total > 2e7 && scn->integrator == APP_SCENARIO_RK4)
    {
        warn(s, "%s: about %.3g integration steps are needed (step %g): this will take long", scn->path, total, s->h);
    }
    if (!evaluate(s, s->state, s->k[0], true, s->summary, err, cap) || !commit_state(s, s->summary, err, cap))
    {
        app_sim_destroy(s);
        return false;
    }
    update_peaks(s);
    if (!update_tracks(s))
    {
        app_sim_destroy(s);
        return set_err(err, cap, "out of memory");
    }
    warn_initial_overlaps(s);
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
    return s->mb != NULL ? app_mb_get_reactions(s->mb, joints, motions, err, cap) : set_err(err, cap, "no JOINT");
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
static void warn_tolerances(app_sim* s)
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
            warn(s,
                 "%s:%d: CONTACT/%d: the deepest penetration, %.3g, is less than the faceting tolerance %.3g of "
                 "GRAPHICS/%d: the force depends on the facets more than on the depth (set a smaller "
                 "CHORD_TOLERANCE=)",
                 scn->path, sc->line, sc->id, depth, s->chord_tol[worst], scn->graphics[worst].id);
        }
    }
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

/// "name [unit]" or "name".
static void with_unit(char* out, size_t cap, const char* name, const char* unit)
{
    snprintf(out, cap, "%s%s%s%s", name, unit[0] ? " [" : "", unit, unit[0] ? "]" : "");
}

/// The plot: normal force, friction force and depth per contact, and the incidents timeline.
static bool write_plot(const app_sim* s, const plot_history* hist, const char* path)
{
    const app_scenario* scn = s->scn;
    int nc = scn->contact_count;
    size_t per = 4 * (size_t)(APP_PLOT_COLUMNS + 1);
    size_t ns = (size_t)nc * PLOT_QUANTITIES;
    app_plot_series* series = calloc(ns, sizeof *series);
    char(*labels)[160] = calloc((size_t)nc, sizeof *labels);
    const char** rows = calloc((size_t)nc, sizeof *rows);
    double* ts = calloc(per * ns, sizeof *ts);
    double* ys = calloc(per * ns, sizeof *ys);
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
    if (ok)
    {
        char title[300], xl[64], fl[64], dl[64];
        const char* base = strrchr(scn->path, '/');
        snprintf(title, sizeof title, "%s: contacts", base != NULL ? base + 1 : scn->path);
        with_unit(xl, sizeof xl, "time", scn->time_unit);
        with_unit(fl, sizeof fl, "force", scn->force_unit);
        with_unit(dl, sizeof dl, "depth", scn->length_unit);
        app_plot_panel panels[4] = {
            {"Normal force per contact (sum over its regions)", fl, series, nc, NULL, 0, NULL, 0},
            {"Friction force per contact (magnitude of the sum)", fl, series + nc, nc, NULL, 0, NULL, 0},
            {"Penetration per contact (deepest region)", dl, series + 2 * nc, nc, NULL, 0, NULL, 0},
            {"Contact incidents (from the first to the last step in contact)", NULL, NULL, 0, rows, nc, bars,
             (size_t)s->incident_count},
        };
        ok = app_plot_write_panels(path, title, xl, panels, 4, 0.0, scn->end_time);
    }
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
    int nout = scn->steps;
    double dt_out = scn->end_time / nout;
    int64_t nsub = s->substeps;
    double h = dt_out / (double)nsub;
    int first = (int)floor(s->time / dt_out + 0.5);
    int nc = scn->contact_count;
    FILE* csv = out->csv;
    FILE* ccsv = out->contacts_csv;
    plot_history hist;
    bool plot = out->svg_path != NULL && nc > 0;
    app_sim_contact_peaks* peaks = calloc((size_t)(nc > 0 ? nc : 1), sizeof *peaks);
    if (peaks == NULL || (plot && !history_create(&hist, nc, scn->end_time)))
    {
        if (plot)
        {
            history_free(&hist);
        }
        free(peaks);
        return set_err(err, cap, "out of memory for the plot");
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
    if (out->anim != NULL)
    {
        app_anim_output(out->anim, s);
    }
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
            if (ccsv != NULL)
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
        warn_tolerances(s);
    }
    if (ok && csv != NULL && ferror(csv))
    {
        ok = set_err(err, cap, "error writing the CSV");
    }
    if (ok && out->tracks_csv != NULL && ferror(out->tracks_csv))
    {
        ok = set_err(err, cap, "error writing the tracks CSV");
    }
    if (ok && ccsv != NULL && ferror(ccsv))
    {
        ok = set_err(err, cap, "error writing the contacts CSV");
    }
    if (ok && out->svg_path != NULL)
    {
        if (nc == 0)
        {
            app_plot_series none = {"", NULL, NULL, 0};
            ok = app_plot_write_svg(out->svg_path, "no contacts", "time", "force", &none, 0, 0.0, scn->end_time);
        }
        else
        {
            ok = write_plot(s, &hist, out->svg_path);
        }
        if (!ok)
        {
            set_err(err, cap, "%s: cannot write the plot", out->svg_path);
        }
    }
    if (plot)
    {
        history_free(&hist);
    }
    free(peaks);
    return ok;
}
