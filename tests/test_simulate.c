// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of `meshcontact simulate`: scenario parser (good and bad input, line numbers), the RK4 integrator against
// closed-form mechanics (rebound height, restitution, sliding distance), invariance under a rigid move of the whole
// scene, determinism, and the CSV / SVG writers.
#include "src/app/scenario.h"
#include "src/app/scenario_mech.h"
#include "src/app/sim_mb.h"
#include "src/app/simulate.h"
#include "tests/sim_test.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static app_scenario* parse_ok(const char* text)
{
    return sim_test_parse(text, "test.scn", "base");
}

static void step_ok(app_sim* sim, double h)
{
    char err[700] = "";
    bool ok = app_sim_step(sim, h, err, sizeof err);
    cr_assert(ok, "step failed: %s", err);
}

// ---------------------------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------------------------

Test(simulate, parser_reads_every_statement)
{
    const char* text = "! a comment line\n"
                       "UNITS/FORCE=newton, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n"
                       "ACCGRAV/IGRAV=0.5, KGRAV = -9.81   ! trailing comment\n"
                       "part/1, ground, QG=1,2,3\n"
                       "PART/2, MASS=2.5, IP=1,2,3, QG=0,0,0.5, REULER=90D,0,0, &\n"
                       "   VX=1, VY=-2, VZ=3, WX=0.1, WY=0.2, WZ=0.3\n"
                       "PART/3, MASS=1, IP=1,1,1,0.1,0,0\n"
                       ", QUATERNION=2,0,0,0\n"
                       "GRAPHICS/10, PART=1, BOX, X=1, Y=2, Z=0.1, QP=-0.5,-1,-0.1\n"
                       "GRAPHICS/11, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3, ANGLE_TOLERANCE=10D\n"
                       "GRAPHICS/12, PART=3, EXTERNAL, FILE=\"meshes/a part.stl\", SCALE=0.001\n"
                       "GRAPHICS/13, PART=3, FRUSTUM, BOTTOM=0.1, TOP=0, LENGTH=0.2, IFLIP_GEOMETRY\n"
                       "GRAPHICS/14, PART=3, TORUS, MAJOR_RADIUS=0.2, MINOR_RADIUS=0.05\n"
                       "GRAPHICS/15, PART=3, CYLINDER, RADIUS=0.1, LENGTH=0.3\n"
                       "GRAPHICS/16, PART=3, ELLIPSOID, XSCALE=0.1, YSCALE=0.2, ZSCALE=0.3\n"
                       "CONTACT/1, IGEOM=10, JGEOM=11,12, JFLIP_GEOMETRY=12, IMPACT, STIFFNESS=1e5, EXPONENT=2.2,\n"
                       "  , DAMPING=10, DMAX=1e-4, COULOMB_FRICTION=ON, MU_STATIC=0.3, MU_DYNAMIC=0.2\n"
                       "CONTACT/2, IGEOM=10, JGEOM=13, POISSON, PENALTY=1e6, RESTITUTION_COEFFICIENT=0.5,\n"
                       " , COULOMB_FRICTION=dynamics_only, MU_STATIC=0.3, MU_DYNAMIC=0.2, &\n"
                       "   STICTION_TRANSITION_VELOCITY=0.01, FRICTION_TRANSITION_VELOCITY=0.02\n"
                       "INTEGRATOR/RK4, HMAX=1e-4\n"
                       "SIMULATE/DYNAMIC, END=0.25, DTOUT=0.001\n"
                       "END\n"
                       "anything after END is not read = at all\n";
    app_scenario* s = parse_ok(text);
    cr_assert(eq(str, s->force_unit, "NEWTON"));
    cr_assert(eq(str, s->time_unit, "SECOND"));
    cr_assert(eq(dbl, s->gravity.x, 0.5));
    cr_assert(eq(dbl, s->gravity.y, 0.0));
    cr_assert(eq(dbl, s->gravity.z, -9.81));
    cr_assert(eq(int, s->part_count, 3));
    cr_assert(s->parts[0].ground);
    cr_assert(eq(dbl, s->parts[0].pose.p.y, 2.0));
    const app_scenario_part* p2 = &s->parts[1];
    cr_assert(eq(int, p2->id, 2));
    cr_assert(eq(dbl, p2->mass, 2.5));
    cr_assert(eq(dbl, p2->ip[2], 3.0));
    cr_assert(eq(dbl, p2->pose.p.z, 0.5));
    // REULER=90D,0,0 is a quarter turn about z: x goes to y (rounding of sin/cos of pi/4 only).
    mc_vec3 x = mc_quat_rotate(p2->pose.q, mc_v3(1.0, 0.0, 0.0));
    cr_assert(epsilon_eq(dbl, x.x, 0.0, 1e-15));
    cr_assert(epsilon_eq(dbl, x.y, 1.0, 1e-15));
    cr_assert(eq(dbl, p2->v.y, -2.0));
    cr_assert(eq(dbl, p2->w_body.z, 0.3));
    cr_assert(eq(dbl, s->parts[2].ip[3], 0.1));
    cr_assert(eq(dbl, s->parts[2].pose.q.w, 1.0)); // QUATERNION normalised
    cr_assert(eq(int, s->graphics_count, 7));
    cr_assert(eq(int, s->graphics[0].shape, APP_SCENARIO_BOX));
    cr_assert(eq(dbl, s->graphics[0].size[1], 2.0));
    cr_assert(eq(dbl, s->graphics[0].local.p.x, -0.5));
    cr_assert(eq(int, s->graphics[1].part_index, 1));
    cr_assert(epsilon_eq(dbl, s->graphics[1].angle_tolerance, 10.0 * PI / 180.0, 1e-15));
    cr_assert(eq(int, s->graphics[2].shape, APP_SCENARIO_FILE));
    cr_assert(eq(str, s->graphics[2].path, "base/meshes/a part.stl"));
    cr_assert(eq(dbl, s->graphics[2].scale, 0.001));
    cr_assert(eq(int, s->graphics[3].shape, APP_SCENARIO_FRUSTUM));
    cr_assert(s->graphics[3].flip);
    cr_assert(eq(int, s->graphics[4].shape, APP_SCENARIO_TORUS));
    cr_assert(eq(int, s->graphics[5].shape, APP_SCENARIO_CYLINDER));
    cr_assert(eq(int, s->graphics[6].shape, APP_SCENARIO_ELLIPSOID));
    cr_assert(eq(int, s->contact_count, 2));
    const app_scenario_contact* c1 = &s->contacts[0];
    cr_assert(eq(int, c1->igeom_count, 1));
    cr_assert(eq(int, c1->jgeom_count, 2));
    cr_assert(eq(int, c1->jgeom[1], 2)); // resolved to the index of GRAPHICS/12
    cr_assert_not(c1->jflip[0]);
    cr_assert(c1->jflip[1]);
    cr_assert(eq(int, c1->model, APP_SCENARIO_IMPACT));
    cr_assert(eq(dbl, c1->exponent, 2.2));
    cr_assert(eq(dbl, c1->dmax, 1e-4));
    cr_assert(eq(int, c1->friction, APP_SCENARIO_FRICTION_ON));
    cr_assert(eq(dbl, c1->stiction_velocity, 0.1)); // default
    const app_scenario_contact* c2 = &s->contacts[1];
    cr_assert(eq(int, c2->model, APP_SCENARIO_POISSON));
    cr_assert(eq(dbl, c2->restitution, 0.5));
    cr_assert(c2->jflip[0]); // IFLIP_GEOMETRY flag on GRAPHICS/13
    cr_assert(eq(int, c2->friction, APP_SCENARIO_FRICTION_DYNAMICS_ONLY));
    cr_assert(eq(dbl, c2->friction_velocity, 0.02));
    cr_assert(eq(dbl, s->hmax, 1e-4));
    cr_assert(eq(dbl, s->end_time, 0.25));
    cr_assert(eq(int, s->steps, 250));
    app_scenario_destroy(s);
}

Test(simulate, parser_gravity_shorthand_and_defaults)
{
    app_scenario* s = parse_ok("GRAVITY/0,-9.8,0\nPART/1,GROUND\nPART/2,MASS=1,IP=1,1,1\n"
                               "GRAPHICS/1,PART=1,SPHERE,RADIUS=1\nGRAPHICS/2,PART=2,SPHERE,RADIUS=1\n"
                               "CONTACT/1,IGEOM=1,JGEOM=2,IMPACT,STIFFNESS=1\nSIMULATE/END=1\n");
    cr_assert(eq(dbl, s->gravity.y, -9.8));
    cr_assert(eq(int, s->steps, 500));
    cr_assert(eq(dbl, s->contacts[0].exponent, 1.5));
    cr_assert(eq(dbl, s->contacts[0].damping, 0.0));
    cr_assert(eq(int, s->contacts[0].friction, APP_SCENARIO_FRICTION_OFF));
    cr_assert(eq(dbl, s->hmax, 0.0));
    app_scenario_destroy(s);
}

typedef struct bad_case
{
    const char* text;
    int line;
    const char* needle;
} bad_case;

Test(simulate, parser_rejects_bad_input_with_line_numbers)
{
    // A valid tail to append where the error is elsewhere.
#define OKPARTS "PART/1,GROUND\nPART/2,MASS=1,IP=1,1,1\nGRAPHICS/1,PART=1,SPHERE,RADIUS=1\n"
    static const bad_case cases[] = {
        {"! x\n\nFOO/1, A=1\n", 3, "unknown statement 'FOO'"},
        {"PART/1, GROUND\nPART/2, MASS=1, IP=1,1,1, COLOR=red\n", 2, "unknown argument 'COLOR'"},
        {"PART/1, GROUND\n\nPART/2, MASS=abc, IP=1,1,1\n", 3, "bad number 'abc' for MASS"},
        {"PART/2, MASS=1, IP=1,1,1\n", 0, "no SIMULATE"},
        {"PART/2, MASS=1, IP=1,1\nSIMULATE/END=1\n", 1, "IP takes 3 to 6 values"},
        {"PART/2, MASS=1, IP=1,1,1,2,0,0\n", 1, "not positive definite"},
        {"PART/2, MASS=1\n", 1, "needs IP"},
        {"PART/2, IP=1,1,1\n", 1, "needs MASS"},
        {"PART/1, GROUND, MASS=1\n", 1, "GROUND part takes no MASS"},
        {"PART/1, GROUND\nPART/1, GROUND\n", 2, "defined twice"},
        {"PART/1, GROUND, QG=1,2,3\n, QG=1,2,3\n", 2, "QG given twice"},
        {"PART/2, MASS=1, IP=1,1,1 &\n\n", 2, "ends with '&'"},
        {", MASS=1\n", 1, "continuation line without a statement"},
        {"PART/x, GROUND\n", 1, "PART needs one id"},
        {"PART, GROUND\n", 1, "needs one id"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=7, SPHERE, RADIUS=1\nSIMULATE/END=1\n", 2, "PART/7 is not defined"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, SPHERE\n", 2, "SPHERE needs RADIUS="},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, SPHERE, RADIUS=-1\n", 2, "RADIUS must be > 0"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, SPHERE, BOX, RADIUS=1, X=1, Y=1, Z=1\n", 2, "more than one shape"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, RADIUS=1\n", 2, "needs a shape"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, FILE=\"a.stl\n", 2, "unterminated quoted text"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, TORUS, MAJOR_RADIUS=1, MINOR_RADIUS=2\n", 2, "MINOR_RADIUS <"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=9, IMPACT, STIFFNESS=1\n"
                 "SIMULATE/END=1\n",
         5, "GRAPHICS/9 is not defined"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, STIFFNESS=1\n", 5,
         "needs IMPACT or POISSON"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, POISSON, PENALTY=1,\n"
                 ", RESTITUTION_COEFFICIENT=0.5, STIFFNESS=4\n",
         6, "STIFFNESS does not belong to POISSON"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1, DAMPING=3\n", 5,
         "DAMPING needs DMAX"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IFLIP_GEOMETRY=2, IMPACT, "
                 "STIFFNESS=1\n",
         5, "not in IGEOM"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1, "
                 "COULOMB_FRICTION=MAYBE\n",
         5, "COULOMB_FRICTION is ON, OFF or DYNAMICS_ONLY"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1, "
                 "COULOMB_FRICTION=ON\n",
         5, "needs MU_STATIC"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1, DEPTH=DEEP\n", 5,
         "DEPTH is ADAMS, SMOOTH, VOLUME_AREA or EXTENT"},
        {OKPARTS "GRAPHICS/2,PART=1,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1\n"
                 "SIMULATE/END=1\n",
         5, "pairs no geometries"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=2, IMPACT, STIFFNESS=1\n", 5,
         "GROUP needs at least two"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=1,2,1, IMPACT, STIFFNESS=1\n", 5,
         "GRAPHICS/1 is listed twice in GROUP"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1,2,2, JGEOM=1, IMPACT, STIFFNESS=1\n", 5,
         "GRAPHICS/2 is listed twice in IGEOM"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, IGEOM=1, JGEOM=2,2, IMPACT, STIFFNESS=1\n", 5,
         "GRAPHICS/2 is listed twice in JGEOM"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=1,2, IGEOM=1, IMPACT, STIFFNESS=1\n", 5,
         "GROUP= or IGEOM= and JGEOM=, not both"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=1,2, IFLIP_GEOMETRY=1, IMPACT, STIFFNESS=1\n", 5,
         "do not go with GROUP"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=1,2, EXCLUDE=1, IMPACT, STIFFNESS=1\n", 5,
         "an even number of ids"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nGRAPHICS/3,PART=2,SPHERE,RADIUS=1\n"
                 "CONTACT/1, IGEOM=1, JGEOM=2,3, EXCLUDE=2,3, IMPACT, STIFFNESS=1\n",
         6, "EXCLUDE pair GRAPHICS/2, GRAPHICS/3 is not a pair"},
        {OKPARTS "GRAPHICS/2,PART=2,SPHERE,RADIUS=1\nCONTACT/1, GROUP=1,2, EXCLUDE=2,2, IMPACT, STIFFNESS=1\n", 5,
         "is not a pair"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, FILE=a.stl,\n, CHORD_TOLERANCE=1\n", 3, "applies to primitives"},
        {"PART/1, GROUND\nGRAPHICS/1, PART=1, SPHERE, RADIUS=1, SCALE=2\n", 2, "unknown argument 'SCALE'"},
        {"PART/2, MASS=1, IP=1,1,1, DENSITY=7800\n", 1, "give DENSITY or MASS and IP, not both"},
        {"PART/2, DENSITY=-1\n", 1, "DENSITY must be > 0"},
        {"SIMULATE/END=1, STEPS=10, DTOUT=0.1\n", 1, "not both"},
        {"SIMULATE/END=0\n", 1, "END must be > 0"},
        {"SIMULATE/END=1, STEPS=2.5\n", 1, "whole number"},
        {"SIMULATE/END=1\nSIMULATE/END=2\n", 2, "SIMULATE/DYNAMIC given twice"},
        {"INTEGRATOR/HMAX=0\n", 1, "HMAX must be > 0"},
        {"INTEGRATOR/GEAR\n", 1, "unknown argument 'GEAR'"},
        {"ACCGRAV/KGRAV=1\nGRAVITY/0,0,1\n", 2, "gravity given twice"},
        {"GRAVITY/0,0\n", 1, "three values"},
        {"UNITS/FORCE=NEWTON2\n", 1, "bad unit name"},
        {"ACCGRAV/KGRAV\n", 1, "KGRAV needs a value"},
        {"ACCGRAV/KGRAV=\n", 1, "has no value"},
        {"ACCGRAV/KGRAV=1, 2\n", 1, "takes 1 value"},
        {"PART/1, GROUND\n  = 4\n", 2, "expected a statement name"},
        {"PART/1 GROUND, 3\n", 1, "does not follow a KEY="},
    };
#undef OKPARTS
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        app_scenario* scn = NULL;
        app_scenario_error err;
        bool ok = app_scenario_parse_string(cases[i].text, "bad.scn", NULL, &scn, &err);
        cr_expect_not(ok, "case %zu parsed but should not:\n%s", i, cases[i].text);
        if (ok)
        {
            app_scenario_destroy(scn);
            continue;
        }
        cr_expect(eq(int, err.line, cases[i].line), "case %zu: %s", i, err.message);
        cr_expect(strstr(err.message, cases[i].needle) != NULL, "case %zu: '%s' does not say '%s'", i, err.message,
                  cases[i].needle);
        char prefix[32];
        if (cases[i].line > 0)
        {
            snprintf(prefix, sizeof prefix, "bad.scn:%d: ", cases[i].line);
        }
        else
        {
            snprintf(prefix, sizeof prefix, "bad.scn: ");
        }
        cr_expect(strncmp(err.message, prefix, strlen(prefix)) == 0, "case %zu: '%s' should start with '%s'", i,
                  err.message, prefix);
    }
}

Test(simulate, setup_errors_name_the_statement_line)
{
    // Errors found when the world is built (a mesh file that cannot be read, parameters out of Adams' ranges) carry
    // the line of the statement that caused them.
    static const char* head = "PART/1, GROUND\n"
                              "GRAPHICS/1, PART=1, BOX, X=1, Y=1, Z=1\n"
                              "PART/2, MASS=1, IP=1,1,1\n";
    char text[1024];
    snprintf(text, sizeof text,
             "%sGRAPHICS/2, PART=2, FILE=no_such_mesh.stl\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e5\nSIMULATE/END=1\n",
             head);
    app_scenario* scn = parse_ok(text);
    app_sim* sim = NULL;
    char err[700] = "";
    cr_assert_not(app_sim_create(scn, NULL, &sim, err, sizeof err));
    cr_assert(strncmp(err, "test.scn:4: GRAPHICS/2: ", 24) == 0, "%s", err);
    cr_assert(strstr(err, "no_such_mesh.stl") != NULL, "%s", err);
    app_scenario_destroy(scn);
    snprintf(text, sizeof text,
             "%sGRAPHICS/2, PART=2, SPHERE, RADIUS=0.5\n\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e5, COULOMB_FRICTION=ON,\n"
             ", MU_STATIC=0.2, MU_DYNAMIC=0.4\nSIMULATE/END=1\n",
             head);
    scn = parse_ok(text);
    cr_assert_not(app_sim_create(scn, NULL, &sim, err, sizeof err));
    cr_assert(strncmp(err, "test.scn:6: CONTACT/1: ", 23) == 0, "%s", err);
    cr_assert(strstr(err, "mu") != NULL || strstr(err, "MU") != NULL, "%s", err);
    app_scenario_destroy(scn);
}

Test(simulate, parser_reports_missing_file)
{
    app_scenario* scn = NULL;
    app_scenario_error err;
    cr_assert_not(app_scenario_parse_file("no/such/file.scn", &scn, &err));
    cr_assert(strstr(err.message, "no/such/file.scn: cannot open") != NULL, "%s", err.message);
}

Test(simulate, reuler_is_body_313)
{
    // a = 90 deg about z, then b = 90 deg about the new x (= ground y): body z ends up along ground x.
    mc_quat q = app_scenario_reuler_to_quat(PI / 2, PI / 2, 0.0);
    mc_vec3 z = mc_quat_rotate(q, mc_v3(0.0, 0.0, 1.0));
    // tolerance: rounding of cos/sin of pi/4 in a few products
    cr_assert(epsilon_eq(dbl, z.x, 1.0, 1e-15));
    cr_assert(epsilon_eq(dbl, z.y, 0.0, 1e-15));
    cr_assert(epsilon_eq(dbl, z.z, 0.0, 1e-15));
    mc_vec3 x = mc_quat_rotate(q, mc_v3(1.0, 0.0, 0.0));
    cr_assert(epsilon_eq(dbl, x.y, 1.0, 1e-15));
}

// ---------------------------------------------------------------------------------------------------------------
// Mechanics
// ---------------------------------------------------------------------------------------------------------------

/// Ball of radius 0.05 m and mass 1 kg above a plate whose top face is z = 0; `contact` is the CONTACT arguments.
static app_scenario* ball_scene_tol(double gap, double vz, const char* gravity, const char* contact, double end,
                                    double chord_tolerance)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%s\n"
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
             "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,%.17g, VZ=%.17g\n"
             "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=%.17g\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, %s\n"
             "SIMULATE/DYNAMIC, END=%.17g, STEPS=100\n",
             gravity, 0.05 + gap, vz, chord_tolerance, contact, end);
    return parse_ok(text);
}

static app_scenario* ball_scene(double gap, double vz, const char* gravity, const char* contact, double end)
{
    return ball_scene_tol(gap, vz, gravity, contact, end, 1e-3);
}

// Drop the ball of `scn` (part 1) with fixed steps until it has rebounded past its apex: the rebound height over the
// drop height, both from the height at first touch (z at the first step with a region, plus that region's depth:
// the plate is flat, so the depth is exactly how far below the touching height the ball is).
static double rebound_ratio(app_scenario* scn, double end, double* step)
{
    scn->integrator = APP_SCENARIO_RK4; // the fixed step's size is checked; BDF: bdf_and_rk4_agree_on_a_bounce
    app_sim* sim = sim_ok(scn);
    double h = app_sim_get_step_size(sim);
    cr_assert(h > 0.0 && h < 1e-3, "step %g", h);
    *step = h;
    mc_pose pose;
    app_sim_get_part(sim, 1, &pose, NULL, NULL);
    double z0 = pose.p.z;
    double z_touch = NAN, z_peak = -INFINITY;
    bool left = false;
    int steps = (int)ceil(end / h);
    for (int k = 0; k < steps; ++k)
    {
        step_ok(sim, h);
        mc_twist tw;
        app_sim_get_part(sim, 1, &pose, &tw, NULL);
        app_sim_contact_summary cs = app_sim_get_contact(sim, 0);
        if (isnan(z_touch) && cs.regions > 0)
        {
            z_touch = pose.p.z + cs.depth;
        }
        left = left || (!isnan(z_touch) && cs.regions == 0 && tw.v.z > 0.0);
        if (left)
        {
            z_peak = fmax(z_peak, pose.p.z);
            if (tw.v.z < 0.0)
            {
                break; // past the apex
            }
        }
    }
    cr_assert_not(isnan(z_touch), "the ball never touched");
    cr_assert(left, "the ball never left the plate");
    app_sim_destroy(sim);
    return (z_peak - z_touch) / (z0 - z_touch);
}

Test(simulate, impact_ball_without_damping_rebounds_to_95_percent)
{
    const double gap = 0.02; // drop height: 2 cm between the ball's lowest point and the plate
    app_scenario* scn = ball_scene(gap, 0.0, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.25);
    double h = 0.0;
    double ratio = rebound_ratio(scn, 0.25, &h);
    cr_log_info("IMPACT rebound: %.5f of the drop height (step %g s)", ratio, h);
    cr_assert(ratio >= 0.95, "rebound ratio %g", ratio);
    cr_assert(ratio <= 1.01, "rebound ratio %g: energy was created", ratio);
    app_scenario_destroy(scn);
}

// DEPTH=SMOOTH: the faceted ball's depth is the true sphere's, so IMPACT without damping is the conservative force
// k h^e of the height alone and the ball rebounds to its drop height. The force starts with a jump when the facets
// first reach the plate (the true sphere is then already in by up to the chord tolerance, 2e-5 here: a jump of
// k (2e-5)^1.5 = 0.09 N against a peak of about 160 N), which the fixed RK4 step integrates with an error of that
// order: 1e-3 of the drop height is the bound (with CHORD_TOLERANCE=1e-3 the jump is 32 N and the rebound 1.0011).
Test(simulate, smooth_depth_ball_rebounds_to_its_drop_height)
{
    app_scenario* scn = ball_scene_tol(0.02, 0.0, "ACCGRAV/KGRAV=-9.81",
                                       "IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DEPTH=SMOOTH", 0.25, 2e-5);
    cr_assert_eq(scn->contacts[0].depth, MC_DEPTH_SMOOTH);
    double h = 0.0;
    double ratio = rebound_ratio(scn, 0.25, &h);
    cr_log_info("IMPACT rebound with the smooth depth: %.7f of the drop height (step %g s)", ratio, h);
    cr_expect(fabs(ratio - 1.0) <= 1e-3, "rebound ratio %.7f", ratio);
    app_scenario_destroy(scn);
}

Test(simulate, poisson_ball_rebound_speed_ratio_is_restitution)
{
    const double e = 0.5;
    char contact[200];
    snprintf(contact, sizeof contact, "POISSON, PENALTY=1e7, RESTITUTION_COEFFICIENT=%g", e);
    // No gravity: the approach and separation speeds are then exactly the speeds before and after the contact.
    app_scenario* scn = ball_scene(0.005, -0.5, "", contact, 0.03);
    app_sim* sim = sim_ok(scn);
    double h = app_sim_get_step_size(sim);
    double v_in = NAN, v_out = NAN;
    bool touched = false;
    int steps = (int)ceil(0.03 / h);
    for (int k = 0; k < steps && isnan(v_out); ++k)
    {
        mc_twist before;
        app_sim_get_part(sim, 1, NULL, &before, NULL);
        step_ok(sim, h);
        mc_twist tw;
        app_sim_get_part(sim, 1, NULL, &tw, NULL);
        app_sim_contact_summary cs = app_sim_get_contact(sim, 0);
        if (!touched && cs.regions > 0)
        {
            touched = true;
            v_in = -before.v.z;
        }
        if (touched && cs.regions == 0)
        {
            v_out = tw.v.z;
        }
    }
    cr_assert(touched && !isnan(v_out), "no complete impact");
    double ratio = v_out / v_in;
    cr_log_info("POISSON rebound speed ratio %.5f for e = %g", ratio, e);
    cr_assert(fabs(ratio - e) <= 0.05, "ratio %g, e %g", ratio, e);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, sliding_block_stops_after_v2_over_2_mu_g)
{
    const double v0 = 1.0, mu = 0.3, g = 9.81, k = 1e5, m = 1.0;
    // Block 0.1 x 0.1 x 0.02 (centre of mass at its centre) starting at its resting depth on a long plate.
    double depth = m * g / k; // IMPACT with exponent 1
    char text[2048];
    snprintf(text, sizeof text,
             "ACCGRAV/KGRAV=-%g\n"
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=1.5, Y=0.4, Z=0.05, QP=-0.5,-0.2,-0.05\n"
             "PART/2, MASS=%g, IP=8.6667e-4,8.6667e-4,1.6667e-3, QG=0,0,%.17g, VX=%g\n"
             "GRAPHICS/2, PART=2, BOX, X=0.1, Y=0.1, Z=0.02, QP=-0.05,-0.05,-0.01\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=%g, EXPONENT=1, DAMPING=100, DMAX=1e-6,\n"
             ", COULOMB_FRICTION=ON, MU_STATIC=%g, MU_DYNAMIC=%g, STICTION_TRANSITION_VELOCITY=1e-3,\n"
             ", FRICTION_TRANSITION_VELOCITY=2e-3\n"
             "SIMULATE/DYNAMIC, END=0.45, STEPS=45\n",
             g, m, 0.01 - depth, v0, k, mu, mu);
    app_scenario* scn = parse_ok(text);
    app_sim* sim = sim_ok(scn);
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    mc_pose pose;
    mc_twist tw;
    app_sim_get_part(sim, 1, &pose, &tw, NULL);
    double expected = v0 * v0 / (2.0 * mu * g);
    cr_log_info("sliding distance %.5f m, expected %.5f m (speed left %g)", pose.p.x, expected, tw.v.x);
    cr_assert(fabs(tw.v.x) < 1e-2, "still sliding at %g m/s", tw.v.x);
    cr_assert(fabs(pose.p.x - expected) <= 0.05 * expected, "slid %g m, expected %g m", pose.p.x, expected);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

/// The block of the two tests below, its inertia ip about each axis: 1 s resting at a corner of the plate.
static void check_block_at_plate_corner(double ip)
{
    // (see the tests) A 1 kg block of 0.125 m at a corner of a plate, its faces x = 0.25 and y = 0.25 in the plane of
    // the plate's edges, resting 1 s at its static depth, no friction. The strips of the plate's edge faces inside the
    // block lie on the block's faces: they count in no contact area (regions.c, "Flush faces"), so the normal is (0, 0,
    // 1) and nothing pushes the block sideways. (Counted in, they pushed it with the strips' area over the footprint
    // times the weight, 7.7e-4 N along x and y: 0.385 mm in 1 s.) With a real inertia the rounding of the region's
    // centroid (about 1e-14 m) gives a torque of about 1e-13 N m that tilts it until its faces move by an ulp, after
    // which they are no longer in one plane: the near-flush rule covers that (regions.c, "Near-flush faces").
    const double k = 1e6, m = 1.0, g = 9.81;
    double depth = m * g / k; // IMPACT with exponent 1
    char text[2048];
    snprintf(text, sizeof text,
             "ACCGRAV/KGRAV=-%g\n"
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=0.5, Y=0.5, Z=0.0625, QP=-0.25,-0.25,-0.0625\n"
             "PART/2, MASS=%g, IP=%g,%g,%g, QG=0.1875,0.1875,%.17g\n"
             "GRAPHICS/2, PART=2, BOX, X=0.125, Y=0.125, Z=0.125, QP=-0.0625,-0.0625,-0.0625\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=%g, EXPONENT=1, DAMPING=200, DMAX=1e-6\n"
             "SIMULATE/DYNAMIC, END=1, STEPS=10\n",
             g, m, ip, ip, ip, 0.0625 - depth, k);
    app_scenario* scn = parse_ok(text);
    app_sim* sim = sim_ok(scn);
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    cr_assert(fabs(app_sim_get_time(sim) - 1.0) < 1e-9, "stopped at t = %g", app_sim_get_time(sim));
    mc_pose pose;
    app_sim_get_part(sim, 1, &pose, NULL, NULL);
    double side = hypot(pose.p.x - 0.1875, pose.p.y - 0.1875);
    cr_log_info("inertia %g: %g m sideways in 1 s", ip, side);
    cr_assert(side < 1e-9, "the block moved %g m sideways (%g, %g)", side, pose.p.x - 0.1875, pose.p.y - 0.1875);
    cr_assert(fabs(pose.p.z - (0.0625 - depth)) < 1e-6, "height %g, resting %g", pose.p.z, 0.0625 - depth);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, block_on_a_plate_with_flush_faces_does_not_drift)
{
    check_block_at_plate_corner(1e30);
}

Test(simulate, block_free_to_tilt_on_a_plate_with_flush_faces_does_not_drift)
{
    // The same block with its real inertia (m a^2 / 6). Rounding tilts it by about 1e-14 rad, so its faces and the
    // plate's edges are no longer exactly in one plane: the near-flush rule (regions.c, "Near-flush faces") leaves the
    // thin layers between them out of the vector areas. (Without it: 2.9e-6 m sideways in 1 s, measured.)
    check_block_at_plate_corner(0.125 * 0.125 / 6.0);
}

/// The ball scene with friction, a lateral velocity and a spin, moved rigidly by (q, t) (gravity rotated too).
static app_scenario* moved_scene(mc_quat q, mc_vec3 t)
{
    mc_vec3 g = mc_quat_rotate(q, mc_v3(0.0, 0.0, -9.81));
    mc_vec3 plate = mc_add(t, mc_quat_rotate(q, mc_v3(0.01, -0.02, 0.0)));
    mc_vec3 ball = mc_add(t, mc_quat_rotate(q, mc_v3(0.0, 0.0, 0.058)));
    mc_vec3 v = mc_quat_rotate(q, mc_v3(0.3, -0.1, -0.6));
    char text[4096];
    snprintf(text, sizeof text,
             "GRAVITY/%.17g,%.17g,%.17g\n"
             "PART/1, GROUND, QG=%.17g,%.17g,%.17g, QUATERNION=%.17g,%.17g,%.17g,%.17g\n"
             "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
             "PART/2, MASS=1, IP=1e-3,1.2e-3,0.9e-3, QG=%.17g,%.17g,%.17g, QUATERNION=%.17g,%.17g,%.17g,%.17g,\n"
             ", VX=%.17g, VY=%.17g, VZ=%.17g, WX=3, WY=-2, WZ=5\n"
             "GRAPHICS/2, PART=2, ELLIPSOID, XSCALE=0.1, YSCALE=0.09, ZSCALE=0.1, CHORD_TOLERANCE=1e-3, QP=0.002,0,0\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=20, DMAX=1e-4,\n"
             ", COULOMB_FRICTION=ON, MU_STATIC=0.4, MU_DYNAMIC=0.3, STICTION_TRANSITION_VELOCITY=0.01,\n"
             ", FRICTION_TRANSITION_VELOCITY=0.02\n"
             "INTEGRATOR/RK4, HMAX=1e-4\n" // fixed steps: BDF's per-component error control is not rotation invariant
             "SIMULATE/DYNAMIC, END=0.03, STEPS=10\n",
             g.x, g.y, g.z, plate.x, plate.y, plate.z, q.w, q.x, q.y, q.z, ball.x, ball.y, ball.z, q.w, q.x, q.y, q.z,
             v.x, v.y, v.z);
    return parse_ok(text);
}

Test(simulate, rigid_move_of_the_scene_rotates_the_forces)
{
    mc_quat id = mc_quat_identity();
    mc_quat q = mc_quat_normalize((mc_quat){0.8, 0.3, -0.4, 0.33});
    mc_vec3 t = mc_v3(12.5, -3.25, 7.0);
    app_scenario* sa = moved_scene(id, mc_v3(0.0, 0.0, 0.0));
    app_scenario* sb = moved_scene(q, t);
    app_sim* a = sim_ok(sa);
    app_sim* b = sim_ok(sb);
    double f_max = 0.0, ferr = 0.0, terr = 0.0, t_max = 0.0, perr = 0.0;
    int touching = 0;
    for (int k = 0; k < 300; ++k) // 30 ms: the ball lands, slides and spins on the plate
    {
        step_ok(a, 1e-4);
        step_ok(b, 1e-4);
        mc_pose pa, pb;
        mc_wrench wa, wb;
        app_sim_get_part(a, 1, &pa, NULL, &wa);
        app_sim_get_part(b, 1, &pb, NULL, &wb);
        touching += app_sim_get_contact(a, 0).regions > 0;
        mc_vec3 fa = mc_quat_rotate(q, wa.force), ta = mc_quat_rotate(q, wa.torque);
        f_max = fmax(f_max, mc_length(fa));
        t_max = fmax(t_max, mc_length(ta));
        ferr = fmax(ferr, mc_length(mc_sub(fa, wb.force)));
        terr = fmax(terr, mc_length(mc_sub(ta, wb.torque)));
        perr = fmax(perr, mc_length(mc_sub(mc_add(t, mc_quat_rotate(q, pa.p)), pb.p)));
    }
    cr_log_info("rigid move: |F| max %g, error %g; |T| max %g, error %g; position error %g", f_max, ferr, t_max, terr,
                perr);
    cr_assert(touching > 50, "the ball was in contact for only %d steps", touching);
    cr_assert(f_max > 1.0 && t_max > 0.0);
    // The two runs differ only by the rounding of the moved coordinates (about 1e-15 relative to |t| = 15 m, i.e.
    // 1e-14 m on a 1 mm penetration) amplified through the stiff contact over 300 steps: 1e-6 relative is far above
    // that and far below any real frame dependence (a wrong rotation or a lost torque term is O(1)).
    cr_assert(ferr <= 1e-6 * f_max, "force error %g of %g", ferr, f_max);
    cr_assert(terr <= 1e-6 * t_max, "torque error %g of %g", terr, t_max);
    cr_assert(perr <= 1e-9, "position error %g", perr);
    app_sim_destroy(a);
    app_sim_destroy(b);
    app_scenario_destroy(sa);
    app_scenario_destroy(sb);
}

Test(simulate, same_scenario_gives_bitwise_same_motion)
{
    // Same scenario, one and two worker threads: the world is bitwise reproducible for any thread count and the
    // integrator has a fixed order of operations, so the motions must be identical to the last bit.
    app_scenario* s = moved_scene(mc_quat_identity(), mc_v3(0.0, 0.0, 0.0));
    app_sim* a = sim_ok(s);
    app_sim* b = NULL;
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 2;
    char err[700] = "";
    cr_assert(app_sim_create(s, &opt, &b, err, sizeof err), "%s", err);
    for (int k = 0; k < 150; ++k)
    {
        step_ok(a, 1e-4);
        step_ok(b, 1e-4);
    }
    mc_pose pa, pb;
    mc_twist ta, tb;
    mc_wrench wa, wb;
    app_sim_get_part(a, 1, &pa, &ta, &wa);
    app_sim_get_part(b, 1, &pb, &tb, &wb);
    cr_assert(memcmp(&pa, &pb, sizeof pa) == 0);
    cr_assert(memcmp(&ta, &tb, sizeof ta) == 0);
    cr_assert(memcmp(&wa, &wb, sizeof wa) == 0);
    app_sim_destroy(a);
    app_sim_destroy(b);
    app_scenario_destroy(s);
}

Test(simulate, density_gives_box_mass_properties)
{
    // A 0.1 x 0.2 x 0.3 box from the origin of its geometry frame, turned a quarter about z in the part frame:
    // mass rho V = 6 kg, centre of mass R (0.05, 0.1, 0.15) = (-0.1, 0.05, 0.15), inertia about it m/12 (b^2 + c^2)
    // etc. with x and y swapped by the rotation. The box tessellation is exact, so only rounding remains (a few
    // dozen operations on O(0.1) values: 1e-12 relative).
    app_scenario* s = parse_ok("PART/1,GROUND\nGRAPHICS/1,PART=1,BOX,X=1,Y=1,Z=1,QP=0,0,-5\n"
                               "PART/2,DENSITY=1000,QG=1,2,3\nGRAPHICS/2,PART=2,BOX,X=0.1,Y=0.2,Z=0.3,REULER=90D,0,0\n"
                               "CONTACT/1,IGEOM=1,JGEOM=2,IMPACT,STIFFNESS=1e6\nSIMULATE/END=0.1\n");
    app_sim* sim = sim_ok(s);
    double m = 0.0;
    mc_vec3 cm;
    mc_mat33 in;
    app_sim_get_mass_properties(sim, 1, &m, &cm, &in);
    cr_assert(ieee_ulp_eq(dbl, m, 6.0, 64), "mass %.17g", m);
    cr_assert(epsilon_eq(dbl, cm.x, -0.1, 1e-13));
    cr_assert(epsilon_eq(dbl, cm.y, 0.05, 1e-13));
    cr_assert(epsilon_eq(dbl, cm.z, 0.15, 1e-13));
    double ixx = 6.0 / 12.0 * (0.01 + 0.09), iyy = 6.0 / 12.0 * (0.04 + 0.09), izz = 6.0 / 12.0 * (0.01 + 0.04);
    cr_assert(epsilon_eq(dbl, in.m[0][0], ixx, 1e-12 * ixx), "%.17g", in.m[0][0]);
    cr_assert(epsilon_eq(dbl, in.m[1][1], iyy, 1e-12 * iyy), "%.17g", in.m[1][1]);
    cr_assert(epsilon_eq(dbl, in.m[2][2], izz, 1e-12 * izz), "%.17g", in.m[2][2]);
    cr_assert(epsilon_eq(dbl, in.m[0][1], 0.0, 1e-14));
    cr_assert(epsilon_eq(dbl, in.m[0][2], 0.0, 1e-14));
    cr_assert(epsilon_eq(dbl, in.m[1][2], 0.0, 1e-14));
    // The state is that of the centre of mass: QG + R cm with R = identity.
    mc_pose p;
    app_sim_get_part(sim, 1, &p, NULL, NULL);
    cr_assert(epsilon_eq(dbl, p.p.x, 0.9, 1e-13));
    cr_assert(epsilon_eq(dbl, p.p.y, 2.05, 1e-13));
    cr_assert(epsilon_eq(dbl, p.p.z, 3.15, 1e-13));
    app_sim_destroy(sim);
    app_scenario_destroy(s);
}

Test(simulate, free_flight_is_exact)
{
    // No contact touches: RK4 integrates constant gravity exactly (to rounding) and a torque-free spin about a
    // principal axis keeps its angular velocity.
    app_scenario* s =
        parse_ok("ACCGRAV/KGRAV=-9.81\nPART/1,GROUND\nGRAPHICS/1,PART=1,BOX,X=1,Y=1,Z=1,QP=0,0,-10\n"
                 "PART/2,MASS=2,IP=1,2,3,QG=0,0,1,VX=1,VZ=2,WZ=4\nGRAPHICS/2,PART=2,SPHERE,RADIUS=0.1\n"
                 "CONTACT/1,IGEOM=1,JGEOM=2,IMPACT,STIFFNESS=1e6\nINTEGRATOR/RK4\nSIMULATE/END=0.5,STEPS=50\n");
    app_sim* sim = sim_ok(s);
    char err[700];
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    mc_pose p;
    mc_twist tw;
    app_sim_get_part(sim, 1, &p, &tw, NULL);
    double t = 0.5;
    // tolerance: a few hundred steps of rounding on O(1) values
    cr_assert(epsilon_eq(dbl, p.p.x, t, 1e-12));
    cr_assert(epsilon_eq(dbl, p.p.z, 1.0 + 2.0 * t - 0.5 * 9.81 * t * t, 1e-12));
    cr_assert(epsilon_eq(dbl, tw.v.z, 2.0 - 9.81 * t, 1e-12));
    cr_assert(epsilon_eq(dbl, tw.w.z, 4.0, 1e-12));
    // Rotation angle 4 * 0.5 = 2 rad about z: q = (cos 1, 0, 0, sin 1). RK4 with the step 1/40 of the contact time
    // scale is accurate to far better than 1e-6 over 2 rad.
    cr_assert(epsilon_eq(dbl, p.q.w, cos(1.0), 1e-6));
    cr_assert(epsilon_eq(dbl, p.q.z, sin(1.0), 1e-6));
    app_sim_destroy(sim);
    app_scenario_destroy(s);
}

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

static size_t count_char(const char* s, char c)
{
    size_t n = 0;
    for (; *s; ++s)
    {
        n += *s == c;
    }
    return n;
}

static char* read_all(const char* path)
{
    FILE* f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* buf = malloc((size_t)n + 1);
    cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

// A new empty temporary file under $TMPDIR (or /tmp); its path goes to buf.
static void temp_file(char* buf, size_t n, const char* stem)
{
    const char* dir = getenv("TMPDIR");
    snprintf(buf, n, "%s/%s_XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp", stem);
    int fd = mkstemp(buf);
    cr_assert(fd >= 0, "cannot create a temporary file %s", buf);
    close(fd);
}

Test(simulate, run_writes_csv_rows_and_a_small_svg)
{
    app_scenario* scn = ball_scene(0.002, -0.3, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.05);
    app_sim* sim = sim_ok(scn);
    char csv_path[512];
    temp_file(csv_path, sizeof csv_path, "app_sim_csv");
    char svg_path[520];
    snprintf(svg_path, sizeof svg_path, "%s.svg", csv_path);
    FILE* csv = fopen(csv_path, "w");
    char err[700] = "";
    cr_assert(app_sim_run(sim, csv, svg_path, err, sizeof err), "%s", err);
    fclose(csv);
    char* text = read_all(csv_path);
    // header + STEPS + 1 rows; 1 + 2 parts * 19 + 1 contact * 3 = 42 columns per row
    cr_assert(eq(sz, count_char(text, '\n'), (size_t)(1 + scn->steps + 1)));
    char* nl = strchr(text, '\n');
    *nl = '\0';
    cr_assert(eq(sz, count_char(text, ','), (size_t)41));
    cr_assert(strncmp(text, "time,part1_x,", 13) == 0, "%s", text);
    cr_assert(strstr(text, ",contact1_fn,contact1_regions,contact1_depth") != NULL);
    // The last row is at END.
    char* last = strrchr(nl + 1 + 0, '\n');
    *last = '\0';
    last = strrchr(nl + 1, '\n');
    cr_assert(eq(dbl, strtod(last + 1, NULL), 0.05));
    free(text);
    char* svg = read_all(svg_path);
    cr_assert(strncmp(svg, "<svg", 4) == 0);
    cr_assert(strstr(svg, "<polyline") != NULL);
    cr_assert(strstr(svg, "CONTACT/1") != NULL);
    cr_assert(strstr(svg, "</svg>") != NULL);
    free(svg);
    remove(csv_path);
    remove(svg_path);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, plot_is_decimated_to_pixel_columns)
{
    // 200000 samples of a fast oscillation: the polyline keeps at most 4 points per pixel column (first, min, max,
    // last), and the peak value survives decimation.
    size_t n = 200000;
    double* t = malloc(n * sizeof *t);
    double* y = malloc(n * sizeof *y);
    for (size_t k = 0; k < n; ++k)
    {
        t[k] = (double)k / (double)(n - 1);
        y[k] = k == 123457 ? 1000.0 : 10.0 * sin(2000.0 * t[k]);
    }
    app_plot_series s = {"wave", t, y, n};
    char path[512];
    temp_file(path, sizeof path, "app_plot");
    cr_assert(app_plot_write_svg(path, "t<&>", "x", "y", &s, 1, 0.0, 1.0));
    char* svg = read_all(path);
    cr_assert(strstr(svg, "t&lt;&amp;&gt;") != NULL); // escaped title
    const char* pts = strstr(svg, "points=\"");
    cr_assert(pts != NULL);
    const char* end = strchr(pts + 8, '"');
    size_t npts = 0;
    for (const char* c = pts + 8; c < end; ++c)
    {
        npts += *c == ',';
    }
    cr_assert(npts <= 4 * 700 + 4, "%zu points", npts); // plot width is 700 px
    cr_assert(npts > 700);
    // The spike is the top of the y range: some point sits on the top edge of the plot area (y = 40).
    cr_assert(strstr(pts, ",40.0 ") != NULL);
    cr_assert(strlen(svg) < 100000, "svg of %zu bytes", strlen(svg));
    free(svg);
    free(t);
    free(y);
    remove(path);
}

Test(simulate, shipped_scenarios_parse_and_start)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(root != NULL, "MC_SOURCE_ROOT is not set");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/data", root);
    DIR* d = opendir(dir);
    cr_assert(d != NULL, "no %s", dir);
    int found = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL)
    {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".scn") != 0)
        {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        app_scenario* scn = NULL;
        app_scenario_error err;
        cr_assert(app_scenario_parse_file(path, &scn, &err), "%s", err.message);
        if (scn->mech != NULL && scn->mech->joint_count > 0 && !app_mb_available())
        {
            app_scenario_destroy(scn); // joints need Simbody (test_mech says so)
            continue;
        }
        app_sim* sim = sim_ok(scn);
        step_ok(sim, app_sim_get_step_size(sim));
        app_sim_destroy(sim);
        app_scenario_destroy(scn);
        ++found;
    }
    closedir(d);
    cr_assert(found >= 1, "no .scn file in data/");
}

// ---------------------------------------------------------------------------------------------------------------
// Contact outputs: incidents, peaks, warnings
// ---------------------------------------------------------------------------------------------------------------

/// Velocity history of part 1 (the ball) at the end of every integration step.
typedef struct motion
{
    double* t;
    double* vz;
    int n;
} motion;

/// Run a scenario step by step to END, recording the ball's vz; also the largest summed normal force of contact 0.
static motion run_recording(app_sim* sim, const app_scenario* scn, double* fn_max)
{
    double h = scn->end_time / scn->steps / (double)app_sim_get_substeps(sim);
    int steps = (int)(scn->steps * app_sim_get_substeps(sim));
    motion m = {malloc((size_t)(steps + 1) * sizeof(double)), malloc((size_t)(steps + 1) * sizeof(double)), 0};
    *fn_max = app_sim_get_contact(sim, 0).normal_force;
    for (int k = 0; k <= steps; ++k)
    {
        if (k > 0)
        {
            step_ok(sim, h);
        }
        mc_twist tw;
        app_sim_get_part(sim, 1, NULL, &tw, NULL);
        m.t[m.n] = app_sim_get_time(sim);
        m.vz[m.n++] = tw.v.z;
        *fn_max = fmax(*fn_max, app_sim_get_contact(sim, 0).normal_force);
    }
    return m;
}

/// vz at time t (a step end: the incidents' times are step boundaries).
static double vz_at(const motion* m, double t)
{
    for (int k = 0; k < m->n; ++k)
    {
        if (fabs(m->t[k] - t) <= 1e-9 * fmax(1.0, fabs(t)))
        {
            return m->vz[k];
        }
    }
    cr_assert(false, "no step ends at t = %.17g", t);
    return NAN;
}

Test(simulate, incidents_list_each_bounce_once_with_its_momentum_change)
{
    // A 1 kg ball dropped from 2 cm, IMPACT without damping: it bounces (nearly) elastically, several times in 0.4 s.
    app_scenario* scn = ball_scene(0.02, 0.0, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.4);
    scn->integrator = APP_SCENARIO_RK4; // incidents on the fixed step grid
    app_sim* sim = sim_ok(scn);
    double fn_max = 0.0;
    motion m = run_recording(sim, scn, &fn_max);
    // Bounces from the motion alone: each time vz turns from negative to positive.
    int bounces = 0;
    for (int k = 1; k < m.n; ++k)
    {
        bounces += m.vz[k - 1] < 0.0 && m.vz[k] >= 0.0;
    }
    int n = 0;
    const app_sim_incident* in = app_sim_get_incidents(sim, &n);
    cr_assert(bounces >= 3, "%d bounces", bounces);
    cr_assert(eq(int, n, bounces), "%d incidents for %d bounces: each impact must be listed once", n, bounces);
    const double mass = 1.0, g = 9.81;
    for (int k = 0; k < n; ++k)
    {
        cr_assert(in[k].end > in[k].start && in[k].steps > 8);
        cr_assert(k == 0 || in[k].start > in[k - 1].end, "incidents overlap");
        cr_assert_not(in[k].open);
        double v_in = -vz_at(&m, in[k].start), v_out = vz_at(&m, in[k].end);
        // The RK4 weights make the impulse the momentum the integrator gave: m (v_in + v_out) = impulse - m g T
        // (gravity acts during the T = 15 ms of contact, 0.15 N s of 1.4), to rounding over some 60 steps.
        double dp = mass * (v_out + v_in);
        double want = in[k].normal_impulse - mass * g * (in[k].end - in[k].start);
        cr_log_info("bounce %d: t %.5f-%.5f, impulse %.6f N s, m (v_in + v_out) + m g T = %.6f", k, in[k].start,
                    in[k].end, in[k].normal_impulse, dp + mass * g * (in[k].end - in[k].start));
        cr_assert(fabs(dp - want) <= 1e-9 * dp, "momentum change %.17g, impulse minus gravity %.17g", dp, want);
        cr_assert(epsilon_eq(dbl, in[k].impulse.z, in[k].normal_impulse, 1e-12 * in[k].normal_impulse));
        cr_assert(eq(dbl, in[k].friction_impulse, 0.0)); // friction off
        cr_assert(in[k].max_fn <= fn_max);
    }
    free(m.t);
    free(m.vz);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, incident_impulse_is_m_times_v_in_plus_v_out)
{
    // Issue 16's check, on the impact alone (no gravity, so nothing else changes the momentum): a 1 kg ball thrown
    // at 0.5 m/s onto the plate, IMPACT with damping (it leaves slower), the speeds read from the motion before and
    // after the incident.
    app_scenario* scn =
        ball_scene(0.002, -0.5, "", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=200, DMAX=1e-3", 0.04);
    scn->integrator = APP_SCENARIO_RK4; // RK4's stage weights make the impulse exact; BDF's trapezoid does not
    app_sim* sim = sim_ok(scn);
    double fn_max = 0.0;
    motion m = run_recording(sim, scn, &fn_max);
    int n = 0;
    const app_sim_incident* in = app_sim_get_incidents(sim, &n);
    cr_assert(eq(int, n, 1));
    cr_assert_not(in[0].open, "the ball must have left the plate by END");
    double v_in = -vz_at(&m, in[0].start), v_out = vz_at(&m, in[0].end);
    double closed = 1.0 * (v_in + v_out);
    cr_log_info("impulse %.9f N s, m (v_in + v_out) = %.9f (v_in %.6f, v_out %.6f m/s)", in[0].normal_impulse, closed,
                v_in, v_out);
    cr_assert(v_out > 0.1 && v_out < 0.95 * v_in, "damping: v_out %g, v_in %g", v_out, v_in);
    cr_assert(fabs(in[0].normal_impulse - closed) <= 0.01 * closed);
    // and in fact to rounding (the RK4-weighted impulse is what the integrator adds to the momentum)
    cr_assert(fabs(in[0].normal_impulse - closed) <= 1e-9 * closed);
    free(m.t);
    free(m.vz);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

/// Largest value of column `col` (0-based) of a CSV text after its header.
static double csv_column_max(const char* text, int col)
{
    double best = -INFINITY;
    const char* line = strchr(text, '\n');
    while (line != NULL && line[1] != '\0')
    {
        const char* c = line + 1;
        for (int k = 0; k < col; ++k)
        {
            c = strchr(c, ',') + 1;
        }
        best = fmax(best, strtod(c, NULL));
        line = strchr(line + 1, '\n');
    }
    return best;
}

Test(simulate, contacts_csv_peak_equals_the_plot_peak_and_catches_impacts_between_rows)
{
    // Output every 10 ms, impacts of ~15 ms at up to ~100 N: the sampled fn misses the peaks, the peak column not.
    app_scenario* scn = ball_scene(0.02, 0.0, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.4);
    scn->steps = 40;
    scn->integrator = APP_SCENARIO_RK4; // the second run steps with app_sim_step: the same steps only with RK4
    app_sim* sim = sim_ok(scn);
    char path[512], svg[530];
    temp_file(path, sizeof path, "app_contacts_csv");
    snprintf(svg, sizeof svg, "%s.svg", path);
    FILE* f = fopen(path, "w");
    app_sim_outputs outs = {NULL, f, svg, NULL, NULL};
    char err[700] = "";
    cr_assert(app_sim_run_outputs(sim, &outs, err, sizeof err), "%s", err);
    fclose(f);
    char* text = read_all(path);
    const char* head = "time,contact,regions,rejected,fx,fy,fz,tx,ty,tz,fn,ft,depth,volume,point_x";
    cr_assert(strncmp(text, head, strlen(head)) == 0);
    cr_assert(eq(sz, count_char(text, (char)10), (size_t)(1 + 41)), "%zu lines", count_char(text, (char)10));
    double fn_sampled = csv_column_max(text, 10), fn_peak = csv_column_max(text, 28);
    // The independent maximum: every step's summed force, from a second run of the same scenario.
    app_sim* again = sim_ok(scn);
    double fn_steps = 0.0;
    motion m = run_recording(again, scn, &fn_steps);
    cr_log_info("fn: sampled max %.6g, peak column max %.6g, every step %.6g", fn_sampled, fn_peak, fn_steps);
    char want[64];
    snprintf(want, sizeof want, "%.9g", fn_steps);
    cr_assert(eq(dbl, fn_peak, strtod(want, NULL)));
    // The rows at output times miss the top of every impact here (161.5 N against 180.7 N): the peaks do not.
    cr_assert(fn_peak > 1.05 * fn_sampled, "the peaks were not missed by the samples: %g vs %g", fn_peak, fn_sampled);
    // The plot's normal force curve carries the same peak (its first polyline).
    char* plot = read_all(svg);
    const char* dp = strstr(plot, "data-peak=\"");
    cr_assert(dp != NULL);
    cr_assert(eq(dbl, strtod(dp + 11, NULL), fn_peak));
    cr_assert(strstr(plot, "CONTACT/1: PART/1 BOX - PART/2 SPHERE") != NULL, "legend names the parts");
    // Dominant region split: fn_stiffness = k g^e for IMPACT without damping, fn_damping = 0.
    const char* row = strchr(text, '\n');
    bool seen = false;
    for (; row != NULL && row[1] != '\0'; row = strchr(row + 1, '\n'))
    {
        double v[33];
        const char* c = row + 1;
        for (int k = 0; k < 33; ++k, c = strchr(c, ',') + 1)
        {
            v[k] = strtod(c, NULL);
            if (k == 32)
            {
                break;
            }
        }
        if (v[2] > 0.0)
        {
            seen = true;
            cr_assert(epsilon_eq(dbl, v[24], 1e6 * pow(v[20], 1.5), 1e-6 * v[24] + 1e-12));
            cr_assert(epsilon_eq(dbl, v[25], 0.0, 1e-6 * v[24] + 1e-12));
            cr_assert(epsilon_eq(dbl, v[19], 1.0, 1e-6)); // normal +z
        }
    }
    cr_assert(seen, "no row in contact");
    free(plot);
    free(text);
    free(m.t);
    free(m.vz);
    remove(path);
    remove(svg);
    app_sim_destroy(again);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

static bool has_warning(const app_sim* sim, const char* what)
{
    int n = 0;
    const char* const* w = app_sim_get_warnings(sim, &n);
    for (int k = 0; k < n; ++k)
    {
        if (strstr(w[k], what) != NULL)
        {
            return true;
        }
    }
    return false;
}

Test(simulate, warns_about_parts_that_start_interpenetrating)
{
    // The ball's lowest point 5 mm into the plate: a spherical cap of h = 5 mm, V = pi h^2 (3R - h) / 3.
    app_scenario* scn = parse_ok("PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                                 "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.045\n"
                                 "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=5e-5\n"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
                                 "SIMULATE/DYNAMIC, END=0.001, STEPS=1\n");
    app_sim* sim = sim_ok(scn);
    int n = 0;
    const char* const* w = app_sim_get_warnings(sim, &n);
    cr_assert(eq(int, n, 1));
    cr_assert(strstr(w[0], "test.scn:5: CONTACT/1: PART/1 and PART/2 start interpenetrating") != NULL, "%s", w[0]);
    const char* v = strstr(w[0], "volume ");
    cr_assert(v != NULL);
    double h = 0.005, r = 0.05, cap = PI * h * h * (3.0 * r - h) / 3.0;
    // The faceted sphere lies within the chord tolerance 5e-5 of the true one: the cap depth is within 1 % of h,
    // its volume within about 2 %.
    cr_assert(fabs(strtod(v + 7, NULL) - cap) <= 0.03 * cap, "%s vs cap %g", w[0], cap);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    // Touching from above (1 mm gap): no warning.
    scn = ball_scene(0.001, 0.0, "", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.001);
    sim = sim_ok(scn);
    app_sim_get_warnings(sim, &n);
    cr_assert(eq(int, n, 0));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, warns_about_angles_that_look_like_degrees)
{
    const char* base = "PART/1, GROUND\nPART/2, MASS=1, IP=1,1,1, REULER=%s\nSIMULATE/DYNAMIC, END=1\n";
    char text[300];
    snprintf(text, sizeof text, base, "0,90,0");
    app_scenario* s = parse_ok(text);
    cr_assert(eq(int, s->warning_count, 1));
    cr_assert(strstr(s->warnings[0], "test.scn:2: REULER=90 is read as radians") != NULL, "%s", s->warnings[0]);
    cr_assert(strstr(s->warnings[0], "90D") != NULL);
    app_sim* sim = sim_ok(s);
    cr_assert(has_warning(sim, "REULER=90 is read as radians")); // passed on to the simulation's warnings
    app_sim_destroy(sim);
    app_scenario_destroy(s);
    // 2 pi itself, degrees with D and ordinary radians: no warning.
    static const char* const fine[] = {"6.28,0,-6.28", "0,90D,0", "1.5708,0,0", "-400D,0,0"};
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; ++k)
    {
        snprintf(text, sizeof text, base, fine[k]);
        s = parse_ok(text);
        cr_assert(eq(int, s->warning_count, 0), "%s", fine[k]);
        app_scenario_destroy(s);
    }
}

Test(simulate, warns_about_a_step_too_long_for_an_impact)
{
    // Ball of 1 kg at 0.63 m/s on k = 1e6, e = 1.5: the impact lasts about 15 ms; a 4 ms step resolves it in ~4
    // steps.
    app_scenario* scn = ball_scene(0.02, 0.0, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.2);
    scn->hmax = 4e-3;
    scn->steps = 50;
    scn->integrator = APP_SCENARIO_RK4; // the warning is about RK4's fixed step
    app_sim* sim = sim_ok(scn);
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    cr_assert(has_warning(sim, "integration steps of 0.004 only: the step is too long to resolve it"));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    // The automatic step (1/40 of the time scale): no warning.
    scn = ball_scene(0.02, 0.0, "ACCGRAV/KGRAV=-9.81", "IMPACT, STIFFNESS=1e6, EXPONENT=1.5", 0.2);
    sim = sim_ok(scn);
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    int n = 0;
    app_sim_get_warnings(sim, &n);
    cr_assert(eq(int, n, 0));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, warns_when_the_depth_stays_below_the_faceting_tolerance)
{
    // k = 1e9: a 1 kg ball settles at (m g / k)^(1/1.5) = 4.6 um, far below the 1 mm chord tolerance.
    app_scenario* scn = ball_scene(1e-6, 0.0, "ACCGRAV/KGRAV=-9.81",
                                   "IMPACT, STIFFNESS=1e9, EXPONENT=1.5, "
                                   "DAMPING=100, DMAX=1e-6",
                                   0.01);
    app_sim* sim = sim_ok(scn);
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    cr_assert(has_warning(sim, "is less than the faceting tolerance 0.001 of GRAPHICS/2"));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

/// A fat torus (R 0.01, r 0.009, 50 g, axis z) lying flat 0.2 mm deep in a plate: one ring-shaped region (about 3.8
/// mm wide, A = 2.3e-4) whose centroid, the torus's centre, lies off the region; contact depth method `depth` (""
/// for the default, Adams).
static app_scenario* ring_scene(const char* depth)
{
    char text[800];
    snprintf(text, sizeof text,
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=0.1, Y=0.1, Z=0.01, QP=-0.05,-0.05,-0.01\n"
             "PART/2, MASS=0.05, IP=1e-5,1e-5,2e-5, QG=0,0,0.0088\n"
             "GRAPHICS/2, PART=2, TORUS, MAJOR_RADIUS=0.01, MINOR_RADIUS=0.009, CHORD_TOLERANCE=1e-5\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5%s\n"
             "SIMULATE/DYNAMIC, END=1e-4, STEPS=1\n",
             depth);
    return parse_ok(text);
}

Test(simulate, warns_when_an_adams_depth_is_not_measured_across_its_region)
{
    // The ring's Adams depth is the distance from its centre to the torus's inner side, about R - sqrt(2 r h) = 8.1
    // mm (7.8 mm measured on the facets), against a 2V/A of about 4h/3 = 2.7e-4 (a cylinder's cap):
    // 30 times, above the warning's ratio of 10, which the shapes the Adams depth suits stay below (1 for a
    // spherical cap, 1/2 for a slab). It passes Adams' validity rule (A > 2 g^2) and throws the torus: 6.9 kN on 50 g.
    app_scenario* scn = ring_scene("");
    app_sim* sim = sim_ok(scn);
    app_sim_contact_summary sm = app_sim_get_contact(sim, 0);
    cr_assert(sm.depth > 7e-3 && sm.depth < 8.5e-3 && sm.rejected == 0, "Adams depth %g", sm.depth);
    char err[700] = "";
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    cr_assert(has_warning(sim, "test.scn:5: CONTACT/1: at t = "));
    cr_assert(has_warning(sim, "times the region's 2V/A"));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    // The same ring measured by its extent along the normal: a depth of about h (the facets' lowest ring of vertices
    // lies within the chord tolerance 1e-5 of the torus), no warning.
    scn = ring_scene(", DEPTH=EXTENT");
    sim = sim_ok(scn);
    sm = app_sim_get_contact(sim, 0);
    cr_assert(sm.depth > 1.8e-4 && sm.depth <= 2e-4, "extent depth %g", sm.depth);
    cr_assert(app_sim_run(sim, NULL, NULL, err, sizeof err), "%s", err);
    cr_assert(not(has_warning(sim, "times the region's 2V/A")));
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

Test(simulate, wrench_shift_gives_the_torque_about_the_new_point)
{
    // Two point forces F1 at x1 and F2 at x2: the torque about any point B is sum (x - B) x F, computed directly.
    mc_vec3 x1 = mc_v3(0.3, -0.2, 0.5), x2 = mc_v3(-1.0, 0.4, 0.25), f1 = mc_v3(1.0, 2.0, -3.0),
            f2 = mc_v3(-0.5, 0.25, 4.0);
    mc_vec3 a = mc_v3(0.1, 0.2, 0.3), b = mc_v3(-2.0, 1.5, 0.75);
    mc_wrench at_a = {mc_add(f1, f2), mc_add(mc_cross(mc_sub(x1, a), f1), mc_cross(mc_sub(x2, a), f2))};
    mc_wrench at_b = mc_wrench_shift(&at_a, a, b);
    mc_vec3 want = mc_add(mc_cross(mc_sub(x1, b), f1), mc_cross(mc_sub(x2, b), f2));
    // products of numbers of order 1 to 4: rounding of a few ulps of 10
    cr_assert(epsilon_eq(dbl, at_b.torque.x, want.x, 1e-14));
    cr_assert(epsilon_eq(dbl, at_b.torque.y, want.y, 1e-14));
    cr_assert(epsilon_eq(dbl, at_b.torque.z, want.z, 1e-14));
    cr_assert(eq(dbl, at_b.force.x, at_a.force.x));
    cr_assert(eq(dbl, at_b.force.z, at_a.force.z));
}

Test(simulate, tracks_follow_each_contact_point)
{
    // Two balls resting on the plate in one CONTACT (JGEOM=2,3), sliding apart without friction at 0.2 m/s: two
    // regions every step, each keeping its track id, each point right under its ball's centre.
    app_scenario* scn =
        parse_ok("ACCGRAV/KGRAV=-9.81\n"
                 "PART/1, GROUND\n"
                 "GRAPHICS/1, PART=1, BOX, X=0.6, Y=0.4, Z=0.05, QP=-0.3,-0.2,-0.05\n"
                 "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=-0.06,0,0.0498, VX=-0.2\n"
                 "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-4\n"
                 "PART/3, MASS=1, IP=1e-3,1e-3,1e-3, QG=0.06,0,0.0498, VX=0.2\n"
                 "GRAPHICS/3, PART=3, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-4\n"
                 "CONTACT/1, IGEOM=1, JGEOM=2,3, IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=100, DMAX=1e-4\n"
                 "SIMULATE/DYNAMIC, END=0.5, STEPS=50\n");
    app_sim* sim = sim_ok(scn);
    double h = scn->end_time / scn->steps / (double)app_sim_get_substeps(sim);
    int steps = (int)(scn->steps * app_sim_get_substeps(sim));
    int id_of[2] = {0, 0};
    double worst = 0.0;
    for (int k = 0; k <= steps; ++k)
    {
        if (k > 0)
        {
            step_ok(sim, h);
        }
        cr_assert(eq(int, app_sim_get_tracked_region_count(sim), 2), "step %d", k);
        mc_pose ball[2];
        app_sim_get_part(sim, 1, &ball[0], NULL, NULL);
        app_sim_get_part(sim, 2, &ball[1], NULL, NULL);
        for (int r = 0; r < 2; ++r)
        {
            app_sim_tracked_region tr;
            cr_assert(app_sim_get_tracked_region(sim, r, &tr));
            mc_vec3 p = tr.region.region.centroid;
            int b = fabs(p.x - ball[0].p.x) < fabs(p.x - ball[1].p.x) ? 0 : 1;
            if (id_of[b] == 0)
            {
                id_of[b] = tr.track;
            }
            cr_assert(eq(int, tr.track, id_of[b]), "step %d: ball %d's region is on track %d, was %d", k, b, tr.track,
                      id_of[b]);
            // The cap's centroid lies under the centre of a true sphere; the facets (chord 1e-4, 15 degrees) shift
            // it by a fraction of a facet (about 13 mm long): 2 mm is a tenth of the balls' 0.12 m separation.
            worst = fmax(worst, hypot(p.x - ball[b].p.x, p.y - ball[b].p.y));
            cr_assert(worst <= 2e-3, "step %d: point %g,%g under ball at %g,%g", k, p.x, p.y, ball[b].p.x, ball[b].p.y);
        }
    }
    cr_log_info("tracks %d and %d; largest horizontal offset of a point from its ball's centre %.3g m", id_of[0],
                id_of[1], worst);
    cr_assert(id_of[0] != id_of[1]);
    cr_assert(eq(int, id_of[0] + id_of[1], 3), "tracks %d and %d: ids 1 and 2 expected", id_of[0], id_of[1]);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

// ---------------------------------------------------------------------------------------------------------------
// Contact groups in scenarios
// ---------------------------------------------------------------------------------------------------------------

// A ground box and three balls that overlap the box and each other, with one CONTACT statement given by `contact`
// (or several); returns the contact wrench of each part at the initial state.
static void group_wrenches(const char* contacts, mc_wrench out[4])
{
    char text[2048];
    snprintf(text, sizeof text,
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=2, Y=2, Z=0.1, QP=-1,-1,-0.1\n"
             "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.098\n"
             "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.1, CHORD_TOLERANCE=1e-3\n"
             "PART/3, MASS=1, IP=1e-3,1e-3,1e-3, QG=0.197,0.01,0.099, REULER=10D,20D,30D\n"
             "GRAPHICS/3, PART=3, SPHERE, RADIUS=0.1, CHORD_TOLERANCE=1e-3\n"
             "PART/4, MASS=1, IP=1e-3,1e-3,1e-3, QG=0.1,0.17,0.097\n"
             "GRAPHICS/4, PART=4, SPHERE, RADIUS=0.1, CHORD_TOLERANCE=1e-3\n"
             "%s"
             "SIMULATE/END=0.01\n",
             contacts);
    app_scenario* scn = parse_ok(text);
    app_sim* sim = sim_ok(scn);
    for (int p = 0; p < 4; ++p)
    {
        app_sim_get_part(sim, p, NULL, NULL, &out[p]);
    }
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

static void wrenches_close(const mc_wrench* a, const mc_wrench* b, const char* what)
{
    // Oracle: one CONTACT statement per pair. The same regions and forces; the per-part sums are taken in another
    // order (several world contacts), so allow the rounding of a few sums of terms of the size of the largest force.
    double scale = 0.0;
    for (int p = 0; p < 4; ++p)
    {
        scale = fmax(scale, mc_length(b[p].force));
    }
    cr_assert(gt(dbl, scale, 1.0), "%s: the balls are in contact", what);
    for (int p = 0; p < 4; ++p)
    {
        cr_assert(le(dbl, mc_length(mc_sub(a[p].force, b[p].force)), 1e-13 * scale), "%s: part %d force", what, p);
        cr_assert(le(dbl, mc_length(mc_sub(a[p].torque, b[p].torque)), 1e-13 * scale), "%s: part %d torque", what, p);
    }
}

#define MODEL "IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
Test(simulate, group_and_overlapping_lists_apply_each_pair_once)
{
    mc_wrench pairwise[4], group[4], lists[4], excluded[4], pairwise_no23[4];
    group_wrenches("CONTACT/1, IGEOM=1, JGEOM=2, " MODEL "CONTACT/2, IGEOM=1, JGEOM=3, " MODEL
                   "CONTACT/3, IGEOM=1, JGEOM=4, " MODEL "CONTACT/4, IGEOM=2, JGEOM=3, " MODEL
                   "CONTACT/5, IGEOM=2, JGEOM=4, " MODEL "CONTACT/6, IGEOM=3, JGEOM=4, " MODEL,
                   pairwise);
    group_wrenches("CONTACT/1, GROUP=1,2,3,4, " MODEL, group);
    group_wrenches("CONTACT/1, IGEOM=4,3,2,1, JGEOM=2,4,1,3, " MODEL, lists);
    cr_assert(eq(int, memcmp(group, lists, sizeof group), 0), "GROUP and I = J lists: the same bits");
    wrenches_close(group, pairwise, "GROUP vs one CONTACT per pair");
    // every ball touches the box and its neighbours: the ground takes the load of all three pairs with the box
    cr_assert(gt(dbl, group[1].force.z, 0.0));
    group_wrenches("CONTACT/1, IGEOM=1, JGEOM=2, " MODEL "CONTACT/2, IGEOM=1, JGEOM=3, " MODEL
                   "CONTACT/3, IGEOM=1, JGEOM=4, " MODEL "CONTACT/5, IGEOM=2, JGEOM=4, " MODEL
                   "CONTACT/6, IGEOM=3, JGEOM=4, " MODEL,
                   pairwise_no23);
    group_wrenches("CONTACT/1, GROUP=1,2,3,4, EXCLUDE=3,2, " MODEL, excluded);
    wrenches_close(excluded, pairwise_no23, "GROUP with EXCLUDE vs the pairs without it");
    cr_assert(gt(dbl, mc_length(mc_sub(excluded[1].force, group[1].force)), 1.0), "the excluded pair mattered");
}
#undef MODEL

// ---------------------------------------------------------------------------------------------------------------
// ANALYTIC pairs the library does not compute: the tessellation instead, with a warning
// ---------------------------------------------------------------------------------------------------------------

/// A 1 kg cylinder GRAPHICS/2 (radius 5 cm, length 10 cm, lying: its axis along x) resting 1 mm into a box plate, and
/// a second one, GRAPHICS/4 on part 3, lying across it (turned 0.7 rad about z) 1 mm into it; GRAPHICS/4 ANALYTIC
/// when `analytic4`.
static app_scenario* crossed_cylinders(bool analytic4)
{
    char text[2048];
    snprintf(text, sizeof text,
             "ACCGRAV/KGRAV=-9.81\n"
             "PART/1, GROUND\n"
             "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
             "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.049, REULER=0,1.5707963267948966,0\n"
             "GRAPHICS/2, PART=2, CYLINDER, RADIUS=0.05, LENGTH=0.1, ANALYTIC, QP=0,0,-0.05\n"
             "PART/3, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.148, REULER=0.7,1.5707963267948966,0\n"
             "GRAPHICS/4, PART=3, CYLINDER, RADIUS=0.05, LENGTH=0.1, %s CHORD_TOLERANCE=1e-4, QP=0,0,-0.05\n"
             "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
             "CONTACT/2, IGEOM=2, JGEOM=4, IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
             "SIMULATE/DYNAMIC, END=0.02, STEPS=4\n",
             analytic4 ? "ANALYTIC," : "");
    return parse_ok(text);
}

/// The warnings of `sim` that contain `what`.
static int fallback_warnings(const app_sim* sim, const char* what)
{
    int nw = 0, found = 0;
    const char* const* w = app_sim_get_warnings(sim, &nw);
    for (int k = 0; k < nw; ++k)
    {
        found += strstr(w[k], what) != NULL;
    }
    return found;
}

Test(simulate, unsupported_analytic_pairs_fall_back_to_the_tessellation)
{
    // Crossed cylinders have no exact form in the library (shape.h): one of the two ANALYTIC cylinders runs as its
    // tessellation (the J one), with one warning naming the pair, while the cylinder on the box stays exact (a
    // cylinder against a mesh is computed); the run is bitwise the run with that cylinder tessellated in the dataset.
    app_scenario* fell = crossed_cylinders(true);
    app_scenario* mesh = crossed_cylinders(false);
    app_sim* a = sim_ok(fell);
    app_sim* b = sim_ok(mesh);
    cr_assert_eq(fallback_warnings(a, "ANALYTIC GRAPHICS/4 is tessellated"), 1);
    cr_assert_eq(fallback_warnings(a, "CONTACT/2: GRAPHICS/2 and GRAPHICS/4: the library has no exact form"), 1);
    cr_assert_eq(fallback_warnings(a, "is tessellated"), 1);
    cr_assert_eq(fallback_warnings(b, "is tessellated"), 0);
    mc_pose pa, pb;
    mc_twist ta, tb;
    mc_wrench wa, wb;
    app_sim_get_part(a, 2, &pa, &ta, &wa);
    cr_assert_gt(mc_length(wa.force), 0.0); // the crossed pair touches at the start
    for (int k = 0; k < 4; ++k)
    {
        step_ok(a, 0.005);
        step_ok(b, 0.005);
        for (int part = 1; part < 3; ++part)
        {
            app_sim_get_part(a, part, &pa, &ta, &wa);
            app_sim_get_part(b, part, &pb, &tb, &wb);
            cr_assert(memcmp(&pa, &pb, sizeof pa) == 0 && memcmp(&ta, &tb, sizeof ta) == 0 &&
                      memcmp(&wa, &wb, sizeof wa) == 0);
        }
    }
    app_sim_destroy(a);
    app_sim_destroy(b);
    app_scenario_destroy(fell);
    app_scenario_destroy(mesh);

    // A hole (a flipped cylinder) cannot be replaced by a mesh with the same solid: a one-line error naming the pair.
    app_scenario* hole = parse_ok("PART/1, GROUND\n"
                                  "GRAPHICS/1, PART=1, CYLINDER, RADIUS=0.05, LENGTH=0.1, ANALYTIC, IFLIP_GEOMETRY\n"
                                  "PART/2, MASS=1, IP=1e-3,1e-3,1e-3\n"
                                  "GRAPHICS/2, PART=2, BOX, X=0.02, Y=0.02, Z=0.02\n"
                                  "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5\n"
                                  "SIMULATE/DYNAMIC, END=0.02, STEPS=4\n");
    app_sim* h = NULL;
    char err[700] = "";
    cr_assert_not(app_sim_create(hole, NULL, &h, err, sizeof err));
    cr_assert(strstr(err, "test.scn:5: CONTACT/1: GRAPHICS/1 and GRAPHICS/2: the library has no exact form") != NULL,
              "%s", err);
    cr_assert(strstr(err, "neither can be tessellated") != NULL, "%s", err);
    app_scenario_destroy(hole);
}
