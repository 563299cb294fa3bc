// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact simulate`: run a scenario file (Adams-like statements) and write a CSV of motion and forces and an SVG
// plot of normal force against time.
#include "src/app/cli.h"
#include "src/app/scenario.h"
#include "src/app/simulate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// The help, in pieces: C limits string literals to 4095 characters.
static const char* const s_help[] = {
    "usage: meshcontact simulate SCENARIO [-o OUTDIR] [--csv FILE] [--svg FILE] [--threads N]\n"
    "\n"
    "Simulate the rigid parts of a scenario file with contact forces from meshcontact, from time 0 to END.\n"
    "Writes OUTDIR/<name>.csv (motion and forces at every output time) and OUTDIR/<name>.svg (normal force of\n"
    "every contact against time), <name> being the scenario's file name without extension; OUTDIR defaults to\n"
    "the current directory and is created if missing. --csv / --svg give other paths ('-' for the CSV: stdout).\n"
    "\n"
    "options:\n"
    "  -o, --output-dir DIR   directory of the output files\n"
    "  --csv FILE             CSV path (default OUTDIR/<name>.csv)\n"
    "  --svg FILE             plot path (default OUTDIR/<name>.svg)\n"
    "  --threads N            threads for the contact evaluation (default 1: the work of one evaluation is\n"
    "                         usually too small to share; more threads pay off for large meshes in contact)\n"
    "\n"
    "CSV columns: time; per part (all parts, ground included) partID_x,_y,_z (centre of mass), _qw,_qx,_qy,_qz\n"
    "(orientation, body to ground), _vx,_vy,_vz, _wx,_wy,_wz (velocity and angular velocity, ground frame),\n"
    "_fx,_fy,_fz, _tx,_ty,_tz (contact force and torque about the centre of mass, ground frame); per contact\n"
    "contactID_fn (sum of the normal forces of its regions), _regions (count, rejected ones included), _depth\n"
    "(largest penetration).\n"
    "\n"
    "INTEGRATOR: fixed-step classical Runge-Kutta (RK4) of the Newton-Euler equations, contact forces evaluated\n"
    "at each stage, quaternion renormalised every step. Step: INTEGRATOR/HMAX= or, by default, 1/40 of the\n"
    "shortest contact time scale estimated from masses, stiffnesses, exponents, damping and a bound on the\n"
    "approach speed (|v0| + |g| END); shortened so a whole number of steps fits in each output interval.\n"
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
    "      faceting: CHORD_TOLERANCE (default 0.005 x largest size), ANGLE_TOLERANCE (default 15D)\n"
    "      ACCEPT_SELF_INTERSECTIONS (flag): use a FILE mesh whose triangles intersect each other or whose\n"
    "      shells nest with the same winding (refused by default, see 'meshcontact info'), with a warning\n"
    "      MAX_TRIANGLES=n: refuse a file or tessellation of more than n triangles (default 2^26)\n"
    "      REPAIR=ALL | REPAIR=\"ORIENT, HOLES\" (FILE only; DUPLICATES, SHARED_FACES, LOOSE, ORIENT, HOLES,\n"
    "      PINCHES): repair the mesh as 'meshcontact repair' does, with a warning listing the changes;\n"
    "      WELD_TOLERANCE=t (of the bbox diagonal) or WELD_DISTANCE=d, MAX_HOLE_EDGES=n (default 32)\n"
    "  CONTACT/id, IGEOM=id[,id..], JGEOM=id[,id..], [IFLIP_GEOMETRY=ids], [JFLIP_GEOMETRY=ids],\n"
    "           IMPACT, STIFFNESS=k, [EXPONENT=e (1.5)], [DAMPING=c (0)], [DMAX=d (required with DAMPING)]\n"
    "         | POISSON, PENALTY=p, RESTITUTION_COEFFICIENT=r, [NORMAL_TRANSITION_VELOCITY=v]\n"
    "           [, COULOMB_FRICTION=ON|OFF|DYNAMICS_ONLY, MU_STATIC=, MU_DYNAMIC=,\n"
    "              STICTION_TRANSITION_VELOCITY= (0.1), FRICTION_TRANSITION_VELOCITY= (1)]\n"
    "      every IGEOM geometry against every JGEOM geometry of another part; force laws as in meshcontact's\n"
    "      world.h (Adams IMPACT / POISSON / Coulomb friction).\n"
    "  INTEGRATOR/[RK4], HMAX=h                                  fixed step h\n"
    "  SIMULATE/DYNAMIC, END=t, [STEPS=n | DTOUT=dt]             required; n output intervals (default 500)\n"
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
    fprintf(stderr, "meshcontact: warning: %s\n", message);
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
    const char* scenario; ///< SCENARIO
    const char* outdir;   ///< -o, --output-dir
    const char* csv;      ///< --csv, or NULL for OUTDIR/<name>.csv
    const char* svg;      ///< --svg, or NULL for OUTDIR/<name>.svg
    int threads;          ///< --threads
} simulate_args;

static int parse_args(int argc, char** argv, simulate_args* a)
{
    *a = (simulate_args){NULL, ".", NULL, NULL, 1};
    const cli_option options[] = {
        {"output-dir", 'o', CLI_TEXT, &a->outdir, 0, NULL, NULL, "a directory"},
        {"csv", 0, CLI_TEXT, &a->csv, 0, NULL, NULL, "a file"},
        {"svg", 0, CLI_TEXT, &a->svg, 0, NULL, NULL, "a file"},
        {"threads", 0, CLI_COUNT, &a->threads, 0, NULL, NULL, "a positive integer"},
    };
    static const char* const operand_names[] = {"SCENARIO"};
    const cli_syntax syntax = {"simulate", print_help, options, CLI_LENGTH(options), operand_names, &a->scenario, 1};
    return cli_parse_args(&syntax, argc, argv);
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
    char* csv_path = a.csv != NULL ? NULL : default_path(a.outdir, a.scenario, ".csv");
    char* svg_path = a.svg != NULL ? NULL : default_path(a.outdir, a.scenario, ".svg");
    const char* csv_name = a.csv != NULL ? a.csv : csv_path;
    const char* svg_name = a.svg != NULL ? a.svg : svg_path;
    rc = 0;
    app_sim* sim = NULL;
    FILE* csv = NULL;
    char err[700] = "";
    if (csv_name == NULL || svg_name == NULL)
    {
        rc = cli_fail(NULL, "out of memory");
        goto done;
    }
    if ((a.csv == NULL || a.svg == NULL) && !make_dirs(a.outdir))
    {
        rc = cli_fail(a.outdir, "cannot create the output directory: %s", strerror(errno));
        goto done;
    }
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = a.threads;
    opt.warn = sim_warn;
    bool tty = cli_stderr_is_tty();
    if (tty)
    {
        opt.progress = cli_progress;
        opt.progress_user = (void*)"simulating";
    }
    double t0 = cli_now();
    if (!app_sim_create(scn, &opt, &sim, err, sizeof err))
    {
        rc = cli_fail(NULL, "%s", err);
        goto done;
    }
    bool csv_stdout = strcmp(csv_name, "-") == 0;
    csv = csv_stdout ? stdout : fopen(csv_name, "w");
    if (csv == NULL)
    {
        rc = cli_fail(csv_name, "cannot write: %s", strerror(errno));
        goto done;
    }
    if (!app_sim_run(sim, csv, svg_name, err, sizeof err))
    {
        if (tty)
        {
            fputc('\n', stderr);
        }
        rc = cli_fail(a.scenario, "%s", err);
        goto done;
    }
    if (!csv_stdout)
    {
        int cr = fclose(csv);
        csv = NULL;
        if (cr != 0)
        {
            rc = cli_fail(csv_name, "write error");
            goto done;
        }
    }
    double seconds = cli_now() - t0;
    FILE* info = csv_stdout ? stderr : stdout;
    double dt_out = scn->end_time / scn->steps;
    int nsub = (int)ceil(dt_out / app_sim_get_step_size(sim) - 1e-9);
    fprintf(info, "simulated %g s of %s in %.2f s: %d output rows, step %.3g, %llu contact evaluations\n",
            scn->end_time, a.scenario, seconds, scn->steps + 1, dt_out / (nsub > 0 ? nsub : 1),
            (unsigned long long)app_sim_get_evaluations(sim));
    if (!csv_stdout)
    {
        fprintf(info, "CSV:  %s\n", csv_name);
    }
    fprintf(info, "plot: %s\n", svg_name);
done:
    if (csv != NULL && csv != stdout)
    {
        fclose(csv);
    }
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
    free(csv_path);
    free(svg_path);
    return rc;
}
