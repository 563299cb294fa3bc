// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A real host simulator driving meshcontact: ODE (Open Dynamics Engine, Debian libode-dev) integrates the bodies
// with dWorldStep, and meshcontact supplies every contact wrench each step (mc_world_evaluate, then
// mc_world_get_wrenches, moved to the centre of mass with mc_wrench_shift, then dBodyAddForce / dBodyAddTorque).
// Compared with `meshcontact simulate` (RK4) on models with known answers:
//   1. a ball bouncing under IMPACT without damping: the rebound heights of ODE and of simulate agree within 1 %
//      (and both are the drop height: no damping, no energy lost);
//   2. a box resting on a plate under IMPACT with damping: the same rest height in both, (m g / k)^(1/e) below the
//      touching height (a flat face: the depth is exactly the sink), and no tilt: the box's mesh origin is a corner,
//      so the wrench must be moved to the centre of mass for the torque to vanish.
// Prints the figures; exit status 0 when every check holds.
#include "meshcontact/meshcontact.h"
#include "src/app/scenario.h"
#include "src/app/simulate.h"

#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int s_failures = 0;

static void check(bool ok, const char* what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    s_failures += ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------------
// The host: ODE bodies with meshcontact geometry
// ---------------------------------------------------------------------------------------------------------------

/// One moving body: the ODE body (its position is the centre of mass) and the meshcontact body of its mesh, whose
/// frame sits at `offset` in the centre-of-mass frame.
typedef struct host_body
{
    dBodyID ode;
    mc_body_id mc;
    mc_pose offset; // mesh frame in the body's centre-of-mass frame
} host_body;

/// One host step: hand ODE's state to meshcontact, evaluate the contacts, apply the wrenches, let ODE integrate.
static bool host_step(dWorldID world, mc_world* contacts, host_body* bodies, int count, double dt)
{
    mc_body_id ids[8];
    mc_pose poses[8];
    mc_twist twists[8];
    mc_wrench wrenches[8];
    mc_vec3 coms[8];
    for (int k = 0; k < count; ++k)
    {
        const dReal* p = dBodyGetPosition(bodies[k].ode);
        const dReal* q = dBodyGetQuaternion(bodies[k].ode); // w, x, y, z: meshcontact's order too
        const dReal* v = dBodyGetLinearVel(bodies[k].ode);
        const dReal* w = dBodyGetAngularVel(bodies[k].ode);
        mc_pose com = {mc_v3(p[0], p[1], p[2]), {q[0], q[1], q[2], q[3]}};
        ids[k] = bodies[k].mc;
        coms[k] = com.p;
        poses[k] = mc_pose_mul(&com, &bodies[k].offset); // the mesh frame in the world
        twists[k].w = mc_v3(w[0], w[1], w[2]);
        // velocity of the mesh origin: v_com + w x (origin - com)
        twists[k].v = mc_add(mc_v3(v[0], v[1], v[2]), mc_cross(twists[k].w, mc_sub(poses[k].p, com.p)));
    }
    if (mc_world_set_poses(contacts, ids, poses, (uint32_t)count) != MC_OK ||
        mc_world_set_velocities(contacts, ids, twists, (uint32_t)count) != MC_OK ||
        mc_world_evaluate(contacts) != MC_OK)
    {
        return false;
    }
    mc_world_get_wrenches(contacts, ids, wrenches, (uint32_t)count);
    for (int k = 0; k < count; ++k)
    {
        // The torque comes about the mesh origin; ODE wants it about the centre of mass.
        mc_wrench at_com = mc_wrench_shift(&wrenches[k], poses[k].p, coms[k]);
        dBodyAddForce(bodies[k].ode, at_com.force.x, at_com.force.y, at_com.force.z);
        dBodyAddTorque(bodies[k].ode, at_com.torque.x, at_com.torque.y, at_com.torque.z);
    }
    dWorldStep(world, dt);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------------------------

#define GRAVITY 9.81

/// The fixed plate: a 0.4 x 0.4 x 0.05 box whose top face is z = 0 (a meshcontact body only: ODE need not know it).
static mc_body_id add_plate(mc_world* w, mc_mesh** mesh)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_BOX;
    d.dims = mc_v3(0.4, 0.4, 0.05);
    if (mc_mesh_create_primitive(&d, mesh, NULL) != MC_OK)
    {
        return mc_null_body_id;
    }
    mc_body_def bd = mc_default_body_def();
    bd.mesh = *mesh;
    bd.pose.p = mc_v3(0.0, 0.0, -0.025);
    return mc_world_create_body(w, &bd);
}

static dBodyID ode_body(dWorldID world, double mass, double ixx, double iyy, double izz, mc_vec3 p)
{
    dBodyID b = dBodyCreate(world);
    dMass m;
    dMassSetParameters(&m, mass, 0, 0, 0, ixx, iyy, izz, 0, 0, 0);
    dBodySetMass(b, &m);
    dBodySetPosition(b, p.x, p.y, p.z);
    return b;
}

static bool add_contact(mc_world* w, mc_body_id i, mc_body_id j, double k, double e, double c, double dmax)
{
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &i;
    cd.i_count = 1;
    cd.j_bodies = &j;
    cd.j_count = 1;
    cd.model.normal_law = MC_NORMAL_IMPACT;
    cd.model.stiffness = k;
    cd.model.exponent = e;
    cd.model.damping = c;
    cd.model.dmax = dmax;
    mc_contact_id id;
    return mc_world_create_contact(w, &cd, &id, NULL) == MC_OK;
}

/// Run a scenario with `meshcontact simulate`'s integrator, calling `sample` after every step.
static bool run_simulate(const char* text, void (*sample)(const app_sim*, void*), void* user)
{
    app_scenario* scn = NULL;
    app_scenario_error perr;
    if (!app_scenario_parse_string(text, "host.scn", ".", &scn, &perr))
    {
        fprintf(stderr, "%s\n", perr.message);
        return false;
    }
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    app_sim* sim = NULL;
    char err[700] = "";
    bool ok = app_sim_create(scn, &opt, &sim, err, sizeof err);
    double h = scn->end_time / scn->steps / (double)(ok ? app_sim_get_substeps(sim) : 1);
    int64_t steps = ok ? (int64_t)scn->steps * app_sim_get_substeps(sim) : 0;
    for (int64_t k = 0; ok && k < steps; ++k)
    {
        ok = app_sim_step(sim, h, err, sizeof err);
        if (ok)
        {
            sample(sim, user);
        }
    }
    if (!ok)
    {
        fprintf(stderr, "simulate: %s\n", err);
    }
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Ball bouncing under IMPACT
// ---------------------------------------------------------------------------------------------------------------

// data/ball_drop.scn's model: a 0.05 m, 4.084 kg ball, lowest point 5 cm above the plate, k = 1e8, e = 1.5.
static const char* s_ball_scn = "ACCGRAV/KGRAV=-9.81\n"
                                "PART/1, GROUND\n"
                                "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                                "PART/2, MASS=4.084, IP=4.084e-3,4.084e-3,4.084e-3, QG=0,0,0.1\n"
                                "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=5e-4\n"
                                "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8, EXPONENT=1.5\n"
                                "INTEGRATOR/RK4\n"
                                "SIMULATE/DYNAMIC, END=0.5, STEPS=500\n";

#define MAX_APEX 8

/// Apexes of a bouncing body: local maxima of the centre's height after a bounce.
typedef struct apexes
{
    double z[MAX_APEX];
    int n;
    double prev_vz;
    bool bounced;
} apexes;

static void apex_add(apexes* a, double z, double vz)
{
    if (a->prev_vz < 0.0 && vz >= 0.0)
    {
        a->bounced = true;
    }
    if (a->bounced && a->prev_vz > 0.0 && vz <= 0.0 && a->n < MAX_APEX)
    {
        a->z[a->n++] = z;
        a->bounced = false;
    }
    a->prev_vz = vz;
}

static void ball_sample(const app_sim* sim, void* user)
{
    mc_pose p;
    mc_twist t;
    app_sim_get_part(sim, 1, &p, &t, NULL);
    apex_add(user, p.p.z, t.v.z);
}

static void ball_bounce(void)
{
    const double r = 0.05, mass = 4.084, dt = 1e-5, end = 0.5;
    dWorldID world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -GRAVITY);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* contacts = NULL;
    mc_world_create(&wd, &contacts);
    mc_mesh *plate_mesh = NULL, *ball_mesh = NULL;
    mc_body_id plate = add_plate(contacts, &plate_mesh);
    // The same faceting as simulate's SPHERE (chord 5e-4, 15 degrees).
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_ELLIPSOID;
    d.dims = mc_v3(r, r, r);
    d.chord_tolerance = 5e-4;
    d.max_angle = 15.0 * MC_PI / 180.0;
    mc_mesh_create_primitive(&d, &ball_mesh, NULL);
    host_body ball = {
        ode_body(world, mass, 0.4 * mass * r * r, 0.4 * mass * r * r, 0.4 * mass * r * r, mc_v3(0.0, 0.0, 0.1)),
        mc_null_body_id, mc_pose_identity()};
    mc_body_def bd = mc_default_body_def();
    bd.mesh = ball_mesh;
    ball.mc = mc_world_create_body(contacts, &bd);
    check(add_contact(contacts, plate, ball.mc, 1e8, 1.5, 0.0, 1e-4), "ball: world set up");
    apexes ode = {{0}, 0, 0.0, false}, rk4 = {{0}, 0, 0.0, false};
    bool ok = true;
    for (int k = 0; ok && k < (int)(end / dt + 0.5); ++k)
    {
        ok = host_step(world, contacts, &ball, 1, dt);
        apex_add(&ode, dBodyGetPosition(ball.ode)[2], dBodyGetLinearVel(ball.ode)[2]);
    }
    check(ok, "ball: ODE run");
    check(run_simulate(s_ball_scn, ball_sample, &rk4), "ball: simulate run");
    printf("ball drop from 0.05 m (ODE dWorldStep, h = %g s; simulate RK4, its own step):\n", dt);
    int n = ode.n < rk4.n ? ode.n : rk4.n;
    for (int k = 0; k < n; ++k)
    {
        double h_ode = ode.z[k] - r, h_rk4 = rk4.z[k] - r;
        printf("  rebound %d: ODE %.6f m, simulate %.6f m, difference %.3f %%\n", k + 1, h_ode, h_rk4,
               100.0 * fabs(h_ode - h_rk4) / h_rk4);
        char what[160];
        snprintf(what, sizeof what, "ball: rebound %d agrees within 1 %%", k + 1);
        check(fabs(h_ode - h_rk4) <= 0.01 * h_rk4, what);
        snprintf(what, sizeof what, "ball: rebound %d is the drop height within 1 %% (no damping)", k + 1);
        check(fabs(h_ode - 0.05) <= 0.01 * 0.05 && fabs(h_rk4 - 0.05) <= 0.01 * 0.05, what);
    }
    check(n >= 2, "ball: at least two rebounds in both");
    mc_world_destroy(contacts);
    mc_mesh_destroy(plate_mesh);
    mc_mesh_destroy(ball_mesh);
    dWorldDestroy(world);
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Box resting on the plate
// ---------------------------------------------------------------------------------------------------------------

// A 0.1 x 0.1 x 0.05 box of 1 kg whose bottom face starts 1 mm above the plate, IMPACT k = 1e7, e = 1.5 with
// damping: it settles at the depth where k g^e = m g.
static const char* s_box_scn = "ACCGRAV/KGRAV=-9.81\n"
                               "PART/1, GROUND\n"
                               "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                               "PART/2, MASS=1, IP=1.0417e-3,1.0417e-3,1.6667e-3, QG=0,0,0.026\n"
                               "GRAPHICS/2, PART=2, BOX, X=0.1, Y=0.1, Z=0.05, QP=-0.05,-0.05,-0.025\n"
                               "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=2000, "
                               "DMAX=1e-5\n"
                               "INTEGRATOR/RK4\n"
                               "SIMULATE/DYNAMIC, END=0.3, STEPS=300\n";

static void box_sample(const app_sim* sim, void* user)
{
    mc_pose p;
    app_sim_get_part(sim, 1, &p, NULL, NULL);
    *(double*)user = p.p.z;
}

/// A box mesh from arrays whose origin is a corner: (0,0,0) to (lx, ly, lz).
static mc_mesh* corner_box(double lx, double ly, double lz)
{
    double v[8][3];
    for (int k = 0; k < 8; ++k)
    {
        v[k][0] = (k & 1) ? lx : 0.0;
        v[k][1] = (k & 2) ? ly : 0.0;
        v[k][2] = (k & 4) ? lz : 0.0;
    }
    static const uint32_t tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = &v[0][0];
    md.vertex_count = 8;
    md.indices = tri;
    md.triangle_count = 12;
    mc_mesh* m = NULL;
    return mc_mesh_create(&md, &m, NULL, NULL) == MC_OK ? m : NULL;
}

static void box_rest(void)
{
    const double mass = 1.0, k = 1e7, e = 1.5, dt = 2e-5, end = 0.3;
    dWorldID world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -GRAVITY);
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* contacts = NULL;
    mc_world_create(&wd, &contacts);
    mc_mesh* plate_mesh = NULL;
    mc_body_id plate = add_plate(contacts, &plate_mesh);
    mc_mesh* box_mesh = corner_box(0.1, 0.1, 0.05);
    check(box_mesh != NULL, "box: mesh from arrays");
    // The centre of mass is the box centre; the mesh origin is its corner, at (-0.05, -0.05, -0.025) from it.
    host_body box = {ode_body(world, mass, 1.0417e-3, 1.0417e-3, 1.6667e-3, mc_v3(0.0, 0.0, 0.026)),
                     mc_null_body_id,
                     {mc_v3(-0.05, -0.05, -0.025), mc_quat_identity()}};
    // No initial tilt: a single-point contact force barely damps rocking (the damping acts at the region's centroid,
    // right under the centre of mass), so a tilt would ring for long. Level it stays only if the torques are taken
    // about the centre of mass: about the mesh origin (a corner) the weight's reaction has a 0.35 N m moment.
    mc_body_def bd = mc_default_body_def();
    bd.mesh = box_mesh;
    box.mc = mc_world_create_body(contacts, &bd);
    check(add_contact(contacts, plate, box.mc, k, e, 2000.0, 1e-5), "box: world set up");
    bool ok = true;
    for (int s = 0; ok && s < (int)(end / dt + 0.5); ++s)
    {
        ok = host_step(world, contacts, &box, 1, dt);
    }
    check(ok, "box: ODE run");
    double z_rk4 = NAN;
    check(run_simulate(s_box_scn, box_sample, &z_rk4), "box: simulate run");
    double z_ode = dBodyGetPosition(box.ode)[2];
    const dReal* q = dBodyGetQuaternion(box.ode);
    double tilt = 2.0 * asin(fmin(1.0, sqrt(q[1] * q[1] + q[2] * q[2])));
    double g_eq = pow(mass * GRAVITY / k, 1.0 / e), z_closed = 0.025 - g_eq;
    printf("box at rest: ODE z = %.9f m, simulate z = %.9f m, closed form 0.025 - (m g / k)^(1/e) = %.9f m "
           "(depth %.4g m); ODE tilt %.2e rad\n",
           z_ode, z_rk4, z_closed, g_eq, tilt);
    // Tolerances: both have settled (damping time m / c = 0.5 ms, 600 of them) to well below 1e-3 of the depth.
    check(fabs(z_ode - z_closed) <= 1e-3 * g_eq, "box: ODE rest height is the closed form within 0.1 % of the depth");
    check(fabs(z_rk4 - z_closed) <= 1e-3 * g_eq,
          "box: simulate rest height is the closed form within 0.1 % of the depth");
    check(fabs(z_ode - z_rk4) <= 1e-3 * g_eq, "box: ODE and simulate rest at the same height");
    check(tilt < 1e-4, "box: levelled (torques taken about the centre of mass)");
    mc_world_destroy(contacts);
    mc_mesh_destroy(plate_mesh);
    mc_mesh_destroy(box_mesh);
    dWorldDestroy(world);
}

int main(void)
{
    dInitODE2(0);
    ball_bounce();
    box_rest();
    dCloseODE();
    printf("%s (%d failed checks)\n", s_failures == 0 ? "all checks passed" : "FAILED", s_failures);
    return s_failures == 0 ? 0 : 1;
}
