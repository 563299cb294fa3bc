// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact simulate`: run a scenario file (Adams-like statements) and write a CSV of motion and forces, the
// contact outputs (per-contact CSV, incidents, tracks, JSON with the warnings) and an SVG plot of the contacts.
#include "src/app/anim_gltf.h"
#include "src/app/app_io.h"
#include "src/app/cli.h"
#include "src/app/scenario.h"
#include "src/app/scenario_mech.h"
#include "src/app/sim_static.h"
#include "src/app/simulate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// The help, in pieces: C limits string literals to 4095 characters.
static const char* const s_help[] = {
    "usage: meshcontact simulate SCENARIO [-o OUTDIR] [--csv FILE] [--svg FILE] [--contacts-csv FILE]\n"
    "                           [--incidents FILE] [--tracks FILE] [--json FILE] [--threads N]\n"
    "                           [--integrator bdf|rk4] [--error E] [--hmax H] [--glb FILE] [--html FILE]\n"
    "                           [--no-animation]\n"
    "\n"
    "Simulate the rigid parts of a scenario file with contact forces from meshcontact, from time 0 to END.\n"
    "Writes, <name> being the scenario's file name without extension:\n"
    "  OUTDIR/<name>.csv            motion and forces of every part at every output time\n"
    "  OUTDIR/<name>_contacts.csv   every contact at every output time: summed wrench, dominant region, peaks\n"
    "  OUTDIR/<name>_incidents.csv  contact incidents: start, end, maxima, impulses\n"
    "  OUTDIR/<name>_tracks.csv     every region at every output time with its track (the path of a contact point)\n"
    "  OUTDIR/<name>.json           warnings, contacts and incidents as one JSON object\n"
    "  OUTDIR/<name>.svg            plot: normal force, friction force and penetration of every contact against\n"
    "                               time (every integration step), and the incidents timeline\n"
    "  OUTDIR/<name>.glb            animation (glTF 2.0 binary): parts, motion at every output time and force\n"
    "                               peak, contact forces as arrows; +Y up (from -gravity), metres (UNITS/LENGTH)\n"
    "  OUTDIR/<name>.html           viewer of the animation with the normal-force curves; opens from disk,\n"
    "                               offline (three.js inlined); see simulate.md, 'The animation'\n"
    "OUTDIR defaults to the current directory and is created if missing; the options give other paths ('-' for\n"
    "the motion CSV: stdout). Warnings (parts that start interpenetrating, angles that look like degrees\n"
    "without D, a step too long for an impact, depths below a faceting tolerance, an Adams depth not measured\n"
    "across its region) go to stderr, one line each, and into the JSON.\n"
    "\n"
    "options:\n"
    "  -o, --output-dir DIR   directory of the output files\n"
    "  --csv FILE             CSV path (default OUTDIR/<name>.csv)\n"
    "  --svg FILE             plot path (default OUTDIR/<name>.svg)\n"
    "  --contacts-csv FILE    per-contact CSV path (default OUTDIR/<name>_contacts.csv)\n"
    "  --incidents FILE       incidents CSV path (default OUTDIR/<name>_incidents.csv)\n"
    "  --tracks FILE          tracks CSV path (default OUTDIR/<name>_tracks.csv)\n"
    "  --json FILE            JSON path (default OUTDIR/<name>.json)\n"
    "  --threads N            threads for the contact evaluation (default 1: the work of one evaluation is\n"
    "                         usually too small to share; more threads pay off for large meshes in contact)\n"
    "  --integrator bdf|rk4   override the scenario's INTEGRATOR (default BDF)\n"
    "  --error E              override INTEGRATOR/ERROR= (BDF tolerance, > 0)\n"
    "  --hmax H               override INTEGRATOR/HMAX= (BDF: longest step; RK4: the step; > 0)\n"
    "  --glb FILE             animation path (default OUTDIR/<name>.glb)\n"
    "  --html FILE            viewer page path (default OUTDIR/<name>.html)\n"
    "  --no-animation         do not write the animation (.glb) and its viewer (.html)\n"
    "\n"
    "CSV columns: time; per part (all parts, ground included) partID_x,_y,_z (centre of mass), _qw,_qx,_qy,_qz\n"
    "(orientation, body to ground), _vx,_vy,_vz, _wx,_wy,_wz (velocity and angular velocity, ground frame),\n"
    "_fx,_fy,_fz, _tx,_ty,_tz (contact force and torque about the centre of mass, ground frame); per contact\n"
    "contactID_fn (sum of the normal forces of its regions), _regions (count, rejected ones included), _depth\n"
    "(largest penetration); then force elements and VARIABLEs; with JOINTs, per joint jointID_fx.._tz (its\n"
    "reaction on the I part at the I marker, ground frame) and per MOTION motionID_f (the driver force or torque).\n"
    "\n",
    "CONTACTS CSV: one row per contact and output time: time, contact (id), regions, rejected (regions failing\n"
    "A > 2 g^2), fx,fy,fz (summed force on the J part), tx,ty,tz (summed torque on the J part about its centre\n"
    "of mass), fn (summed normal force), ft (|summed friction force|), depth (deepest region), volume (summed);\n"
    "the dominant region (largest normal force): point_x.. (contact point), normal_x.. (from I into J),\n"
    "region_depth, rate (penetration rate, positive approaching), area, region_fn = fn_stiffness (k g^e, or p g\n"
    "for POISSON) + fn_damping (the rest: damping or POISSON hysteresis), region_ft, slip (slip speed); peaks\n"
    "since the previous output time over every integration step, so no impact is lost between rows: fn_peak,\n"
    "fn_peak_time, ft_peak, depth_peak, slip_peak. Ground frame, the scenario's units.\n"
    "INCIDENTS: a contact incident lasts from the first to the last integration step in which the contact has\n"
    "a region (overlap) at some Runge-Kutta stage: contact, start, end, open (1: still in contact at END),\n"
    "steps, max_depth, max_fn, max_fn_time, max_ft, normal_impulse (integral of fn), friction_impulse\n"
    "(|integral of the friction force|), impulse_x.. (integral of the force on J), onset_depth (the depth at\n"
    "the end of the first step: the first-contact penetration), impact_depth (the penetration the approach rate\n"
    "then predicts). Impulses use the RK4 stage weights, so they are the momentum the integrator gave.\n"
    "TRACKS: time, contact, track, x,y,z (contact point), fn, depth, area, one row per region and output time. A\n"
    "region continues the nearest track of its contact whose last point (at the previous integration step) lies\n"
    "within the sum of the two equivalent radii; otherwise it starts a new track (ids from 1 per contact).\n"
    "\n",
    "INTEGRATOR: BDF (default; GSTIFF is the same): variable-step, variable-order BDF (ode15s' NDF) of the\n"
    "Newton-Euler equations with orientations as rotation vectors (unit quaternions by construction), error\n"
    "control with ERROR= (default 1e-5) in units of each contact's estimated impact penetration and approach\n"
    "speed, contact Jacobians from the library (mc_world_get_jacobian); a step that starts separated and ends\n"
    "deep in contact is retried shorter, and no step moves a part more than half the thinnest contact geometry.\n"
    "HMAX= caps the step, HINIT= sets the first, HMIN= (default 1e-9 of the contact time scale) is where the\n"
    "run stops with an error. RK4: fixed-step classical Runge-Kutta, contact forces evaluated at each stage,\n"
    "quaternion renormalised every step. Step: HMAX= or, by default, 1/40 of the shortest contact time scale\n"
    "estimated from masses, stiffnesses, exponents, damping and a bound on the approach speed (|v0| + |g| END);\n"
    "shortened so a whole number of steps fits in each output interval.\n"
    "\n",
    "SCENARIO FORMAT (statement names as in an Adams dataset):\n"
    "  One statement per line: NAME/id, ARG, KEY=value, KEY=v1,v2,v3 ... ; '!' starts a comment; a line ending\n"
    "  in '&' or a next line starting with ',' continues the statement; keywords are case-insensitive; angles\n"
    "  in radians, or degrees with a D suffix (90D); FILE= paths may be quoted and are relative to the scenario\n"
    "  file. Unknown statements or arguments are errors: 'meshcontact: FILE:LINE: what'. Units are the user's\n"
    "  (consistent, e.g. N kg m s).\n"
    "\n"
    "  UNITS/FORCE=name, MASS=name, LENGTH=name, TIME=name      labels only (e.g. NEWTON, KILOGRAM, METER, SECOND)\n"
    "  ACCGRAV/IGRAV=gx, JGRAV=gy, KGRAV=gz                      gravity (or GRAVITY/gx,gy,gz); default none\n"
    "  PART/id, GROUND                                           a fixed part (may be placed with QG/REULER)\n"
    "  PART/id, MASS=m, IP=Ixx,Iyy,Izz[,Ixy,Ixz,Iyz] | DENSITY=rho, QG=x,y,z, REULER=a,b,c | QUATERNION=w,x,y,z,\n"
    "           VX=, VY=, VZ=, WX=, WY=, WZ=\n"
    "      QG: initial position of the body frame origin; REULER: Adams 3-1-3 Euler angles. With MASS and IP the\n"
    "      origin is the centre of mass and IP the inertia about it in the body frame (Adams signs); with DENSITY\n"
    "      mass, centre of mass and inertia come from the part's geometry. VX..: centre of mass velocity, ground\n"
    "      frame; WX..: body frame. CSV positions are centre of mass positions.\n"
    "  GRAPHICS/id, PART=id, SHAPE, [QP=x,y,z], [REULER=a,b,c], [CHORD_TOLERANCE=c], [ANGLE_TOLERANCE=a],\n"
    "           [IFLIP_GEOMETRY]          a closed solid placed at QP/REULER in the part frame; SHAPE is one of\n"
    "      [EXTERNAL,] FILE=path [, SCALE=s]       .stl .shl .obj .ply .off .3mf .gltf .glb .dae\n"
    "      BOX, X=, Y=, Z=                         full edge lengths X, Y, Z from the corner: from the origin\n"
    "                                              (Adams' corner) to (X, Y, Z)\n"
    "      SPHERE, RADIUS=                         centred\n"
    "      ELLIPSOID, XSCALE=, YSCALE=, ZSCALE=    centred; diameters (as Adams)\n"
    "      CYLINDER, RADIUS=, LENGTH=              along z from 0 to LENGTH\n"
    "      FRUSTUM, BOTTOM=, TOP=, LENGTH=         along z, radius BOTTOM at 0, TOP at LENGTH\n"
    "      TORUS, MAJOR_RADIUS=, MINOR_RADIUS=     around z, centred\n"
    "      PLANE                                   the half-space z <= 0, exact (analytic), unbounded\n"
    "      ANALYTIC (flag, SPHERE or CYLINDER): exact shape, no facets (sphere-plane, sphere-sphere,\n"
    "      sphere-mesh, cylinder-plane, cylinder-mesh, cylinder-sphere, parallel cylinders); its part needs\n"
    "      MASS and IP\n"
    "      faceting: CHORD_TOLERANCE (default 0.005 x largest size), ANGLE_TOLERANCE (default 15D)\n"
    "      ACCEPT_SELF_INTERSECTIONS (flag): use a FILE mesh whose triangles intersect each other or whose\n"
    "      shells nest with the same winding (refused by default, see 'meshcontact info'), with a warning\n"
    "      MAX_TRIANGLES=n: refuse a file or tessellation of more than n triangles (default 2^26)\n"
    "      REPAIR=ALL | REPAIR=\"ORIENT, HOLES\" (FILE only; DUPLICATES, SHARED_FACES, LOOSE, ORIENT, HOLES,\n"
    "      PINCHES): repair the mesh as 'meshcontact repair' does, with a warning listing the changes;\n"
    "      WELD_TOLERANCE=t (of the bbox diagonal) or WELD_DISTANCE=d, MAX_HOLE_EDGES=n (default 32)\n",
    "  CONTACT/id, IGEOM=id[,id..], JGEOM=id[,id..] | GROUP=id,id[,id..],\n"
    "           [IFLIP_GEOMETRY=ids], [JFLIP_GEOMETRY=ids], [EXCLUDE=id,id[,id,id..]],\n"
    "           IMPACT, STIFFNESS=k, [EXPONENT=e (1.5)], [DAMPING=c (0)], [DMAX=d (required with DAMPING)]\n"
    "         | POISSON, PENALTY=p, RESTITUTION_COEFFICIENT=r, [NORMAL_TRANSITION_VELOCITY=v]\n"
    "         | RECURDYN, STIFFNESS=K | STIFFNESS_SPLINE=id, [STIFFNESS_EXPONENT=m_s (1.5)], [DAMPING=C (0)],\n"
    "           [DAMPING_EXPONENT=m_d (1)], [INDENTATION_EXPONENT=m_i (0)], [BOUNDARY_PENETRATION=d],\n"
    "           [REBOUND_DAMPING_FACTOR=R_df (0)], [MAXIMUM_PENETRATION=p], [DAMPING_SPLINE=id]\n"
    "         | DYMORE, STIFFNESS=k | STIFFNESS_SPLINE=id, [EXPONENT=e (1.5)], [DISSIPATION=mu (0)],\n"
    "           [MAXIMUM_PENETRATION=p]\n"
    "         | NORMAL_FUNCTION=USER(r1,...,r30), NORMAL_ROUTINE=library::function (routine.h)\n"
    "           [, FRICTION_SPLINE=id, [FRICTION_SPLINE_TYPE=COEFFICIENT|FORCE]]\n"
    "           [, FRICTION_FUNCTION=USER(r1,...), FRICTION_ROUTINE=library::function]\n"
    "           [, MAX_STEP_SIZE_FACTOR=f (RecurDyn: BDF steps <= f HMAX in contact)]\n"
    "           [, CHARACTERISTIC_PENETRATION=eps_p, [Q_MIN= (5)], [ALPHA= (1.2)] (DYMORE: BDF steps <= dq/|gdot|)]\n"
    "           [, INITIAL_CONTACT=ON|OFF (DYMORE: may start in contact, no warning, a small first step)]\n"
    "           [, COULOMB_FRICTION=ON|OFF|DYNAMICS_ONLY, MU_STATIC=, MU_DYNAMIC=,\n"
    "              STICTION_TRANSITION_VELOCITY= (0.1), FRICTION_TRANSITION_VELOCITY= (1),\n"
    "              [STICTION=ON|OFF (OFF), MAX_STICTION_DEFORMATION=d (1e-4, > 0)]]\n"
    "      every IGEOM geometry against every JGEOM geometry of another part; force laws as in meshcontact's\n"
    "      world.h (Adams IMPACT / POISSON / Coulomb friction). The lists may overlap: each pair of geometries\n"
    "      is evaluated once. GROUP: every geometry of the list against every other one (not Adams).\n"
    "      EXCLUDE: pairs of GRAPHICS ids not to evaluate (EXCLUDE=1,2,5,7: the pairs 1-2 and 5-7).\n"
    "      STICTION=ON: a spring anchored where the contact sticks holds parts at rest up to MU_STATIC, its\n"
    "      creep at most MAX_STICTION_DEFORMATION (world.h mc_stiction_force); committed after each step.\n"
    "      DEPTH=ADAMS|SMOOTH|VOLUME_AREA|EXTENT (not Adams; default ADAMS): SMOOTH measures the depth between\n"
    "      planes or spheres fitted to the meshes' vertices near the contact: no facet ripple on tessellated\n"
    "      balls (exact on balls and plates)\n"
    "      RECURDYN, DYMORE, splines and routines: include/meshcontact/README.md, the vendor parameter table;\n"
    "      FRICTION_SPLINE or FRICTION_ROUTINE replace MU_STATIC and MU_DYNAMIC.\n"
    "  SPLINE/id, X=x1,x2,.., Y=y1,y2,.., [METHOD=CUBIC|AKIMA|LINEAR]   a curve for *_SPLINE= (CUBIC, the\n"
    "      default: Adams CUBSPL, >= 4 points; AKIMA: Adams AKISPL, >= 4; LINEAR >= 2; linear extrapolation)\n"
    "      with Z=z1,z2,..: a surface for AKISPL and CUBSPL (Y: one row of X's length per z)\n"
    "  MARKER/id, PART=id, [QP=x,y,z], [REULER=a,b,c] | FLOATING     a frame on a part (Adams)\n"
    "  SFORCE/id, I=, J=, TRANSLATION|ROTATION, [ACTIONONLY], FUNCTION=e     force elements with Adams function\n"
    "  VFORCE/id, I=, JFLOAT=, RM=, FX=e\\ FY=e\\ FZ=e   (VTORQUE: TX TY TZ)   expressions (src/app/expr.h);\n"
    "  SPRINGDAMPER/id, I=, J=, TRANSLATION, K=, C=, [LENGTH=], [FORCE=]      src/app/scenario_mech.h has\n"
    "      (ROTATION: KT=, CT=, [ANGLE=], [TORQUE=])                         each statement\n"
    "  VARIABLE/id, FUNCTION=e                                   a named expression for VARVAL\n"
    "  INTEGRATOR/[BDF|GSTIFF|RK4], [ERROR=e], [HMAX=h], [HINIT=h], [HMIN=h]   see INTEGRATOR above\n"
    "  SIMULATE/DYNAMIC, END=t, [STEPS=n | DTOUT=dt]             n output intervals (default 500)\n"
    "  SIMULATE/STATIC, [IMBALANCE=f, ERROR=e, MAXIT=n]          static equilibrium (free parts), before DYNAMIC\n"
    "      or instead of it; DYNAMICS_ONLY friction is off in it, ON with STICTION=ON holds\n"
    "  END                                                       optional; the rest of the file is ignored\n"
    "\n",
    "example:\n"
    "  ACCGRAV/KGRAV=-9.81\n"
    "  PART/1, GROUND\n"
    "  GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
    "  PART/2, MASS=1, IP=4e-4,4e-4,4e-4, QG=0,0,0.1\n"
    "  GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05\n"
    "  CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5\n"
    "  SIMULATE/DYNAMIC, END=0.5, STEPS=500\n",
};

static void sim_warn(const char* message, void* user)
{
    (void)user;
    char shown[2048];
    app_escape_controls(message, shown, sizeof shown); // one line whatever a file name holds
    fprintf(stderr, "meshcontact: warning: %s\n", shown);
}

/// mkdir -p
static bool make_dirs(const char* path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
    {
        return n == 0;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i)
    {
        if (buf[i] == '/' || buf[i] == '\0')
        {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            {
                return false;
            }
            buf[i] = c;
        }
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/// OUTDIR/<stem of scenario><ext>
static char* default_path(const char* outdir, const char* scenario, const char* ext)
{
    const char* base = strrchr(scenario, '/');
    base = base != NULL ? base + 1 : scenario;
    size_t stem = strlen(base);
    const char* dot = strrchr(base, '.');
    if (dot != NULL && dot != base)
    {
        stem = (size_t)(dot - base);
    }
    size_t n = strlen(outdir) + stem + strlen(ext) + 2;
    char* r = malloc(n);
    if (r != NULL)
    {
        snprintf(r, n, "%s/%.*s%s", outdir, (int)stem, base, ext);
    }
    return r;
}

static void print_help(FILE* f)
{
    for (int k = 0; k < CLI_LENGTH(s_help); ++k)
    {
        fputs(s_help[k], f);
    }
}

/// Parsed command line.
typedef struct simulate_args
{
    const char* scenario;   ///< SCENARIO
    const char* outdir;     ///< -o, --output-dir
    const char* csv;        ///< --csv, or NULL for OUTDIR/<name>.csv
    const char* svg;        ///< --svg, or NULL for OUTDIR/<name>.svg
    const char* contacts;   ///< --contacts-csv, or NULL for OUTDIR/<name>_contacts.csv
    const char* incidents;  ///< --incidents, or NULL for OUTDIR/<name>_incidents.csv
    const char* json;       ///< --json, or NULL for OUTDIR/<name>.json
    const char* tracks;     ///< --tracks, or NULL for OUTDIR/<name>_tracks.csv
    int threads;            ///< --threads
    const char* integrator; ///< --integrator, or NULL
    double error;           ///< --error, or 0
    double hmax;            ///< --hmax, or 0
    bool no_animation;      ///< --no-animation
    const char* glb;        ///< --glb, or NULL for OUTDIR/<name>.glb
    const char* html;       ///< --html, or NULL for OUTDIR/<name>.html
} simulate_args;

static int parse_args(int argc, char** argv, simulate_args* a)
{
    *a = (simulate_args){NULL, ".", NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL, 0.0, 0.0, false, NULL, NULL};
    const cli_option options[] = {
        {"output-dir", 'o', CLI_TEXT, &a->outdir, 0, NULL, NULL, "a directory"},
        {"csv", 0, CLI_TEXT, &a->csv, 0, NULL, NULL, "a file"},
        {"svg", 0, CLI_TEXT, &a->svg, 0, NULL, NULL, "a file"},
        {"contacts-csv", 0, CLI_TEXT, &a->contacts, 0, NULL, NULL, "a file"},
        {"incidents", 0, CLI_TEXT, &a->incidents, 0, NULL, NULL, "a file"},
        {"json", 0, CLI_TEXT, &a->json, 0, NULL, NULL, "a file"},
        {"tracks", 0, CLI_TEXT, &a->tracks, 0, NULL, NULL, "a file"},
        {"threads", 0, CLI_COUNT, &a->threads, 0, NULL, NULL, "a positive integer"},
        {"integrator", 0, CLI_TEXT, &a->integrator, 0, NULL, NULL, "bdf or rk4"},
        {"error", 0, CLI_NUMBER, &a->error, 0, cli_positive, NULL, "a number > 0"},
        {"hmax", 0, CLI_NUMBER, &a->hmax, 0, cli_positive, NULL, "a number > 0"},
        {"no-animation", 0, CLI_FLAG, &a->no_animation, 0, NULL, NULL, NULL},
        {"glb", 0, CLI_TEXT, &a->glb, 0, NULL, NULL, "a file"},
        {"html", 0, CLI_TEXT, &a->html, 0, NULL, NULL, "a file"},
    };
    static const char* const operand_names[] = {"SCENARIO"};
    const cli_syntax syntax = {"simulate", print_help, options, CLI_LENGTH(options), operand_names, &a->scenario, 1};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc == CLI_CONTINUE && a->integrator != NULL && strcmp(a->integrator, "bdf") != 0 &&
        strcmp(a->integrator, "rk4") != 0)
    {
        return cli_usage_error("simulate", "--integrator needs bdf or rk4, got '%s'", a->integrator);
    }
    return rc;
}

/// The output files: given on the command line or OUTDIR/<name><suffix>.
enum
{
    OUT_CSV,
    OUT_SVG,
    OUT_CONTACTS,
    OUT_INCIDENTS,
    OUT_JSON,
    OUT_TRACKS,
    OUT_COUNT
};

/// Print what was done and where the files are.
static void print_summary(const app_sim* sim, const app_scenario* scn, const char* scenario, const char* const* names,
                          double seconds)
{
    bool csv_stdout = strcmp(names[OUT_CSV], "-") == 0;
    FILE* info = csv_stdout ? stderr : stdout;
    int nw = 0, ni = 0;
    app_sim_get_warnings(sim, &nw);
    app_sim_get_incidents(sim, &ni);
    app_sim_step_stats st = app_sim_get_step_stats(sim);
    char steps[200];
    if (scn->mech != NULL && scn->mech->joint_count > 0)
    {
        // JOINTs: Simbody's error-controlled Runge-Kutta-Merson integrates (sim_mb.cpp), not the BDF
        int red = app_sim_get_redundant_constraints(sim);
        char kept[120] = "";
        if (red > 0)
        {
            snprintf(kept, sizeof kept, ", %d redundant loop constraint equations kept (minimum-norm reactions)", red);
        }
        snprintf(steps, sizeof steps, "Simbody RK-Merson %llu steps%s", (unsigned long long)st.steps, kept);
    }
    else if (scn->integrator == APP_SCENARIO_RK4)
    {
        snprintf(steps, sizeof steps, "RK4 step %.3g", st.min_step);
    }
    else
    {
        snprintf(steps, sizeof steps,
                 "BDF %llu steps of %.3g to %.3g (%llu rejected, %llu of them Newton failures, %llu at contact "
                 "onsets, %llu Jacobians)",
                 (unsigned long long)st.steps, st.min_step, st.max_step, (unsigned long long)st.failed_steps,
                 (unsigned long long)st.newton_failures, (unsigned long long)st.onset_rejections,
                 (unsigned long long)st.jacobians);
    }
    const app_sim_static_report* eq = scn->statics.line > 0 ? app_sim_get_static(sim) : NULL;
    char statics[300] = "";
    if (eq != NULL && eq->done)
    {
        snprintf(statics, sizeof statics,
                 "static equilibrium in %d iterations (%d evaluations, imbalance %.3g at %s, last change %.3g)%s",
                 eq->iterations, eq->evaluations, eq->imbalance, eq->worst, eq->change,
                 scn->statics.only ? "" : "; then ");
    }
    if (scn->statics.only)
    {
        // SIMULATE/STATIC alone: no dynamic run (end_time is set to 1 internally; the output is the equilibrium)
        fprintf(info, "solved %s in %.2f s: %s, %llu contact evaluations, %d warnings\n", scenario, seconds,
                statics[0] != '\0' ? statics : "no static equilibrium",
                (unsigned long long)app_sim_get_evaluations(sim), nw);
    }
    else
    {
        fprintf(info,
                "%ssimulated %g s of %s in %.2f s: %d output rows, %s, %llu contact evaluations, %d contact "
                "incidents, %d warnings\n",
                statics, scn->end_time, scenario, seconds, scn->steps + 1, steps,
                (unsigned long long)app_sim_get_evaluations(sim), ni, nw);
    }
    static const char* const what[OUT_COUNT] = {
        "CSV:      ", "plot:     ", "contacts: ", "incidents:", "JSON:     ", "tracks:   "};
    for (int k = 0; k < OUT_COUNT; ++k)
    {
        if (!(k == OUT_CSV && csv_stdout))
        {
            fprintf(info, "%s %s\n", what[k], names[k]);
        }
    }
}

/// Write the animation into its opened outputs (the .glb, then the .html viewer that embeds it). @return the exit
/// status
static int write_animation(const simulate_args* a, const app_sim* sim, const app_anim* anim, app_output* glb_out,
                           app_output* html_out)
{
    unsigned char* glb = NULL;
    size_t size = 0;
    char err[700] = "";
    int rc = 0;
    const char* base = strrchr(a->scenario, '/');
    base = base != NULL ? base + 1 : a->scenario;
    if (!app_anim_build_glb(anim, sim, &glb, &size, err, sizeof err))
    {
        rc = cli_fail(glb_out->path, "%s", err);
    }
    else if (fwrite(glb, 1, size, glb_out->f) != size)
    {
        rc = cli_fail(glb_out->path, "cannot write: %s", strerror(errno));
    }
    else if (!app_anim_write_html(anim, sim, glb, size, base, app_output_name(html_out), err, sizeof err))
    {
        app_name_target(err, sizeof err, app_output_name(html_out), html_out->path);
        rc = cli_fail(NULL, "%s", err);
    }
    free(glb);
    return rc;
}

/// Create, run and report. Every output but the plot is opened before the run, so that an unwritable path fails
/// at once. @return the exit status
static int run(const simulate_args* a, const app_scenario* scn, const char* const* names)
{
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = a->threads;
    opt.warn = sim_warn;
    bool tty = cli_stderr_is_tty();
    if (tty)
    {
        opt.progress = cli_progress;
        opt.progress_user = (void*)"simulating";
    }
    double t0 = cli_now();
    app_sim* sim = NULL;
    char err[700] = "";
    if (!app_sim_create(scn, &opt, &sim, err, sizeof err))
    {
        return cli_fail(NULL, "%s", err);
    }
    // Every output (the plot and the animation too) is a temporary in its folder from now on (app_io.h): an
    // unwritable path fails before the run, and a target changes only when its temporary is complete.
    app_output outs[OUT_COUNT + 2];
    memset(outs, 0, sizeof outs);
    int count = a->no_animation ? OUT_COUNT : OUT_COUNT + 2;
    int rc = 0;
    for (int k = 0; rc == 0 && k < count; ++k)
    {
        rc = !app_output_open(&outs[k], names[k], k == OUT_CSV, err, sizeof err) ? cli_fail(NULL, "%s", err) : 0;
    }
    app_anim* anim = a->no_animation || rc != 0 ? NULL : app_anim_create(sim);
    if (rc == 0 && !a->no_animation && anim == NULL)
    {
        rc = cli_fail(NULL, "out of memory for the animation");
    }
    bool opened = rc == 0, ran = false;
    if (rc == 0)
    {
        app_sim_outputs files = {outs[OUT_CSV].f, outs[OUT_CONTACTS].f, app_output_name(&outs[OUT_SVG]),
                                 outs[OUT_TRACKS].f, anim};
        ran = app_sim_run_outputs(sim, &files, err, sizeof err);
        if (!ran)
        {
            if (tty)
            {
                fputc('\n', stderr);
            }
            app_name_target(err, sizeof err, app_output_name(&outs[OUT_SVG]), names[OUT_SVG]);
            rc = cli_fail(a->scenario, "%s", err);
        }
    }
    if (opened)
    {
        // Also after a failed run: the incidents and warnings up to the failure, with what the CSVs hold.
        app_sim_write_incidents_csv(sim, outs[OUT_INCIDENTS].f);
        app_sim_write_json(sim, outs[OUT_JSON].f);
    }
    bool animated = ran && anim != NULL && write_animation(a, sim, anim, &outs[OUT_COUNT], &outs[OUT_COUNT + 1]) == 0;
    rc = ran && anim != NULL && !animated ? 1 : rc;
    for (int k = 0; k < count; ++k)
    {
        // A failed run writes no plot and no animation: the previous ones stay.
        if (opened && (ran || k < OUT_COUNT) && (k != OUT_SVG || ran) && (k < OUT_COUNT || animated))
        {
            rc = !app_output_commit(&outs[k], err, sizeof err) ? cli_fail(NULL, "%s", err) : rc;
        }
        app_output_discard(&outs[k]);
    }
    app_anim_destroy(anim);
    if (rc == 0)
    {
        print_summary(sim, scn, a->scenario, names, cli_now() - t0);
        if (anim != NULL)
        {
            FILE* info = strcmp(names[OUT_CSV], "-") == 0 ? stderr : stdout;
            fprintf(info, "animation: %s\nviewer:    %s\n", names[OUT_COUNT], names[OUT_COUNT + 1]);
        }
    }
    app_sim_destroy(sim);
    return rc;
}

int cli_simulate(int argc, char** argv)
{
    simulate_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    app_scenario* scn = NULL;
    app_scenario_error perr;
    if (!app_scenario_parse_file(a.scenario, &scn, &perr))
    {
        return cli_fail(NULL, "%s", perr.message);
    }
    // The command line's integrator settings over the scenario's.
    if (a.integrator != NULL)
    {
        scn->integrator = strcmp(a.integrator, "rk4") == 0 ? APP_SCENARIO_RK4 : APP_SCENARIO_BDF;
    }
    scn->error = a.error > 0.0 ? a.error : scn->error;
    scn->hmax = a.hmax > 0.0 ? a.hmax : scn->hmax;
    if (scn->integrator == APP_SCENARIO_RK4 && a.error > 0.0)
    {
        app_scenario_destroy(scn);
        return cli_usage_error("simulate", "--error is for the BDF integrator (RK4 has a fixed step: --hmax)");
    }
    // The six outputs, then the animation's two (run writes those unless --no-animation).
    const char* given[OUT_COUNT + 2] = {a.csv, a.svg, a.contacts, a.incidents, a.json, a.tracks, a.glb, a.html};
    static const char* const suffix[OUT_COUNT + 2] = {".csv",  ".svg",        "_contacts.csv", "_incidents.csv",
                                                      ".json", "_tracks.csv", ".glb",          ".html"};
    char* made[OUT_COUNT + 2] = {NULL};
    const char* names[OUT_COUNT + 2];
    int count = a.no_animation ? OUT_COUNT : OUT_COUNT + 2;
    bool need_dir = false;
    rc = 0;
    for (int k = 0; k < count; ++k)
    {
        need_dir = need_dir || given[k] == NULL;
        made[k] = given[k] != NULL ? NULL : default_path(a.outdir, a.scenario, suffix[k]);
        names[k] = given[k] != NULL ? given[k] : made[k];
        rc = names[k] == NULL ? 1 : rc;
    }
    if (rc != 0)
    {
        rc = cli_fail(a.scenario, "out of memory for the output names: %s", strerror(ENOMEM));
    }
    else if (need_dir && !make_dirs(a.outdir))
    {
        rc = cli_fail(a.outdir, "cannot create the output directory: %s", strerror(errno));
    }
    else
    {
        rc = run(&a, scn, names);
    }
    for (int k = 0; k < count; ++k)
    {
        free(made[k]);
    }
    app_scenario_destroy(scn);
    return rc;
}
