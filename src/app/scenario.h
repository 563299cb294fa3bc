// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scenario files for `meshcontact simulate`: an Adams-dataset-like text format (parts, geometry, contacts, gravity,
// simulation settings) and its parser. Part of the command-line tool, not of the library.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * SCENARIO FORMAT (.scn)
 * ======================
 * A text file of statements, one per line, in the spirit of an Adams Solver dataset (.adm). Names follow Adams
 * where Adams has them (PART, GRAPHICS, CONTACT, ACCGRAV, INTEGRATOR, SIMULATE and their arguments).
 *
 *   - `!` starts a comment (to the end of the line). Blank lines are ignored. Keywords are case-insensitive.
 *   - A statement is `NAME/id, ARG, ARG, ...`. An argument is a flag (`GROUND`, `IMPACT`) or `KEY=value` or
 *     `KEY=v1,v2,...` (a list: following bare numbers belong to the last key, so `QG=0,0,1, MASS=2` works).
 *     Commas and blanks both separate arguments; blanks around `=` are allowed.
 *   - A statement continues on the next line when the line ends with `&`, or when the next line starts with `,`
 *     (the Adams continuation).
 *   - Angles are in radians; append `D` to a value for degrees (`REULER=90D,0,0`), as in Adams. An angle without
 *     `D` whose magnitude is more than 2 pi is accepted with a warning (degrees with the D forgotten?).
 *   - File names may be quoted with double quotes (needed when they contain blanks or commas). A relative FILE= is
 *     relative to the directory of the scenario file.
 *   - Any unknown statement or argument, a missing required argument, a bad number or a reference to an undefined
 *     id is an error: `meshcontact: <file>:<line>: <what>`.
 *   - Units are the user's and must be consistent (for example SI: N, kg, m, s).
 *
 * Statements
 * ----------
 * UNITS/FORCE=name, MASS=name, LENGTH=name, TIME=name
 *     Informational unit names (identifiers such as NEWTON, KILOGRAM, METER, SECOND); they label the CSV and the
 *     plot. Nothing is converted.
 *
 * ACCGRAV/IGRAV=gx, JGRAV=gy, KGRAV=gz        (Adams; each defaults to 0)
 * GRAVITY/gx,gy,gz                             (shorthand)
 *     Gravitational acceleration in the ground frame. Without either statement there is no gravity.
 *
 * PART/id, GROUND
 * PART/id, MASS=m, IP=Ixx,Iyy,Izz[,Ixy,Ixz,Iyz] | DENSITY=rho, QG=x,y,z, REULER=a,b,c | QUATERNION=w,x,y,z,
 *          VX=, VY=, VZ=, WX=, WY=, WZ=
 *     A rigid body. QG is the initial position of its body frame origin in the ground frame (default 0,0,0);
 *     REULER are Adams' body-3-1-3 Euler angles (rotation a about ground z, then b about the new x, then c about
 *     the new z; default 0,0,0); QUATERNION (w,x,y,z, not Adams) may be given instead. A moving part needs either
 *     MASS > 0 and IP (then the body frame origin is the centre of mass, there are no markers; IP is the inertia
 *     about it in the body frame, Adams sign convention Ixy = +integral of x y dm, positive definite), or
 *     DENSITY (not Adams: mass, centre of mass and inertia are computed from the part's GRAPHICS, uniform
 *     density, overlapping geometries counted twice; the centre of mass may then lie anywhere in the part frame).
 *     VX, VY, VZ: initial velocity of the centre of mass, ground frame. WX, WY, WZ: initial angular velocity in
 *     the body frame (as Adams). A GROUND part is fixed at its QG/REULER pose (Adams has one ground part fixed at
 *     the origin; here several fixed parts are allowed and may be placed) and takes no MASS, IP, DENSITY or
 *     velocities. Output positions are those of the centre of mass.
 *
 * GRAPHICS/id, PART=id, <shape>, [QP=x,y,z], [REULER=a,b,c], [CHORD_TOLERANCE=c], [ANGLE_TOLERANCE=a],
 *          [IFLIP_GEOMETRY], [ACCEPT_SELF_INTERSECTIONS]
 *     A closed solid attached to a part, placed in the part frame at QP (default 0,0,0) and rotated by REULER
 *     (3-1-3, default 0,0,0). The shapes, in the geometry's own frame:
 *       EXTERNAL, FILE=path [, SCALE=s]   a mesh file (.stl .shl .obj .ply .off .3mf .gltf .glb .dae) or a CAD
 *                                          B-rep (.step .stp .iges .igs .brep, with gmsh: faceted by
 *                                          CHORD_TOLERANCE and ANGLE_TOLERANCE, lengths in metres from the file's
 *                                          unit); SCALE multiplies its coordinates (default 1). `EXTERNAL` may be
 *                                          omitted.
 *       BOX, X=lx, Y=ly, Z=lz             full edge lengths lx, ly, lz from the corner: the box spans the origin
 *                                         (Adams' CORNER) to (lx, ly, lz), i.e. MC_PRIMITIVE_BOX of dims (lx, ly,
 *                                         lz) placed with its centre at (lx, ly, lz) / 2
 *       SPHERE, RADIUS=r                  centred at the origin
 *       ELLIPSOID, XSCALE=, YSCALE=, ZSCALE=   centred at the origin; the values are diameters (as in Adams)
 *       CYLINDER, RADIUS=r, LENGTH=l      along z from z = 0 to z = l (as Adams' CYLINDER from its CM marker)
 *       FRUSTUM, BOTTOM=r0, TOP=r1, LENGTH=l   along z: radius r0 at z = 0, r1 at z = l
 *       TORUS, MAJOR_RADIUS=R, MINOR_RADIUS=r  around z, centred at the origin
 *       PLANE                             the half-space z <= 0 (its surface z = 0, outward +z), unbounded; always
 *                                         analytic, for the ground
 *     ANALYTIC (flag, not Adams' GRAPHICS syntax; Adams says TYPE=SPHERE_TO_PLANE etc. on the CONTACT): a SPHERE or
 *     CYLINDER kept exact instead of faceted (shape.h: sphere-plane, sphere-sphere, sphere-mesh, cylinder-plane and
 *     parallel cylinders in closed form or exactly integrated; other pairs stop the run with the world's message). With
 *     IFLIP_GEOMETRY a spherical socket or a hole. The part of an ANALYTIC geometry or PLANE needs MASS and IP
 *     (DENSITY integrates meshes). CHORD_TOLERANCE and ANGLE_TOLERANCE do not apply.
 *     Curved primitives and B-rep files are faceted within CHORD_TOLERANCE (length; default 0.005 x the largest
 *     dimension) and ANGLE_TOLERANCE (default 15D, Adams' faceting default). IFLIP_GEOMETRY: the solid is the
 *     outside of the surface (for example a ball inside a hollow), in every contact that uses this geometry.
 *     ACCEPT_SELF_INTERSECTIONS (not Adams): use a FILE mesh whose triangles intersect each other or whose shells
 *     nest with the same winding (refused by default, see `meshcontact info`), with a warning: the overlapping
 *     parts count twice in its contact volumes.
 *     REPAIR=ALL | REPAIR="name, name" (not Adams; FILE meshes only): repair the mesh as read (mc_mesh_repair; names
 *     DUPLICATES, SHARED_FACES, LOOSE, ORIENT, HOLES, PINCHES, ALL, NONE), with WELD_TOLERANCE=t (fraction of the
 *     bbox diagonal, 1e-12 .. 0.1) or WELD_DISTANCE=d (length, after SCALE) and MAX_HOLE_EDGES=n (3 .. 256, default
 *     32); a warning line lists what was changed. WELD_TOLERANCE or WELD_DISTANCE alone only welds.
 *
 * CONTACT/id, IGEOM=id[,id...], JGEOM=id[,id...] | GROUP=id[,id...],
 *          [IFLIP_GEOMETRY=id,...], [JFLIP_GEOMETRY=id,...], [EXCLUDE=id,id[,id,id...]],
 *          IMPACT, STIFFNESS=k, [EXPONENT=e], [DAMPING=c], [DMAX=d]
 *        | POISSON, PENALTY=p, RESTITUTION_COEFFICIENT=r, [NORMAL_TRANSITION_VELOCITY=v]
 *        | RECURDYN, STIFFNESS=K | STIFFNESS_SPLINE=id, [STIFFNESS_EXPONENT=m_s], [DAMPING=C],
 *          [DAMPING_EXPONENT=m_d], [INDENTATION_EXPONENT=m_i], [BOUNDARY_PENETRATION=d],
 *          [REBOUND_DAMPING_FACTOR=R_df], [MAXIMUM_PENETRATION=p], [DAMPING_SPLINE=id]
 *        | DYMORE, STIFFNESS=k | STIFFNESS_SPLINE=id, [EXPONENT=e], [DISSIPATION=mu], [MAXIMUM_PENETRATION=p]
 *        | NORMAL_FUNCTION=USER(r1,...,r30), NORMAL_ROUTINE=library::function
 *          [, FRICTION_SPLINE=id, [FRICTION_SPLINE_TYPE=COEFFICIENT|FORCE]]
 *          [, FRICTION_FUNCTION=USER(r1,...), FRICTION_ROUTINE=library::function]
 *          [, MAX_STEP_SIZE_FACTOR=f] [, CHARACTERISTIC_PENETRATION=eps_p, [Q_MIN=5], [ALPHA=1.2]]
 *          [, INITIAL_CONTACT=ON|OFF]
 *          [, COULOMB_FRICTION=ON|OFF|DYNAMICS_ONLY, MU_STATIC=ms, MU_DYNAMIC=md,
 *             STICTION_TRANSITION_VELOCITY=vs, FRICTION_TRANSITION_VELOCITY=vd,
 *             [STICTION=ON|OFF, MAX_STICTION_DEFORMATION=d]]
 *          [, DEPTH=ADAMS|SMOOTH|VOLUME_AREA|EXTENT]
 *     Contact between every geometry of the IGEOM list and every geometry of the JGEOM list (Adams semantics).
 *     The lists may overlap (a geometry in both): every unordered pair of geometries is then evaluated once, not
 *     twice. When only one orientation is listed, I is the geometry from IGEOM; when both are, I is the geometry
 *     whose GRAPHICS statement comes first in the file (this only decides the sign of the reported normal and which
 *     body the CONTACT summary's "force on J" is for; the forces are the same).
 *     GROUP=ids (instead of IGEOM and JGEOM, not Adams): every geometry of the list against every other one of it,
 *     each pair once (the same as IGEOM=ids, JGEOM=ids); at least two geometries.
 *     A geometry may appear only once in each list. Pairs of geometries of one part, and of two GROUND geometries,
 *     are never evaluated. EXCLUDE (not Adams) lists pairs of GRAPHICS ids that this contact must not evaluate (for
 *     example parts joined by a joint): EXCLUDE=1,2,5,7 excludes the pairs (1,2) and (5,7); each must be a pair
 *     the lists make.
 *     IFLIP_GEOMETRY / JFLIP_GEOMETRY name geometries of the lists whose solid is the outside (Adams); with GROUP,
 *     flip a geometry on its GRAPHICS statement instead.
 *     Defaults: EXPONENT=1.5, DAMPING=0 (DMAX is then required when DAMPING > 0), COULOMB_FRICTION=OFF, and when
 *     friction is on, STICTION_TRANSITION_VELOCITY=0.1, FRICTION_TRANSITION_VELOCITY=1 (Adams View's 100 and 1000
 *     mm/s, in m/s). The force laws and their parameter checks are the library's (include/meshcontact/world.h).
 *     STICTION=ON (default OFF; needs COULOMB_FRICTION ON or DYNAMICS_ONLY and MU_STATIC > 0) holds parts at rest
 *     with an anchored tangential spring of stiffness MU_STATIC Fn / d whose creep never exceeds
 *     MAX_STICTION_DEFORMATION=d (finite, > 0, a length; default 1e-4, i.e. 0.1 mm in metres); the model is
 *     mc_stiction_force's (world.h). The simulator commits the stiction state after every accepted step.
 *     DEPTH (not Adams) is how the penetration depth is measured (include/meshcontact/query.h, mc_depth_method):
 *     ADAMS (default) the distance between the closest surface points to the region's centroid; SMOOTH the overlap
 *     of the planes or spheres fitted to the meshes' vertices near those points, for tessellated curved parts whose
 *     faceted depth ripples (exact on tessellated balls and plates); VOLUME_AREA 2 V / A; EXTENT the region's extent
 *     along its normal.
 *
 *     RECURDYN, DYMORE, the *_SPLINE references and the user routines are parsed by scenario_laws.c (their
 *     parameters: include/meshcontact/README.md, the vendor parameter table). A library path without '/' is looked
 *     for next to the scenario, then by dlopen's search; a relative path with '/' is relative to the scenario.
 *     MAX_STEP_SIZE_FACTOR (RecurDyn) and CHARACTERISTIC_PENETRATION (DYMORE) bound the BDF steps while the contact
 *     is active (app_laws_step_limit in scenario_laws.h); RK4 keeps its fixed step. INITIAL_CONTACT=ON (DYMORE's
 *     flag): parts that start in contact give no warning, and the first BDF step is at most 1e-3 of the contact time
 *     scale.
 *
 * SPLINE/id, X=x1,x2,..., Y=y1,y2,..., [METHOD=CUBIC|AKIMA|LINEAR]
 *     A curve (Adams SPLINE; METHOD is not Adams': CUBIC as CUBSPL, the default, AKIMA as AKISPL) for the
 *     STIFFNESS_SPLINE, DAMPING_SPLINE and FRICTION_SPLINE of CONTACT statements (before or after them).
 *
 * INTEGRATOR/[BDF | GSTIFF | RK4], [ERROR=e], [HMAX=h], [HINIT=h0], [HMIN=h1]
 *     BDF (the default; GSTIFF is a synonym, Adams' name): variable-step, variable-order backward differentiation
 *     (ode15s' NDF, block-sparse: sim_bdf.c) with error control: ERROR is the relative and absolute local error tolerance (default 1e-5;
 *     absolute errors are measured in units of each contact's penetration scale and approach speed, see
 *     simulate.h), HMAX the longest step (default: the output interval), HINIT the first step and HMIN the
 *     shortest step before the run stops with an error (defaults in simulate.h).
 *     RK4: fixed-step classical Runge-Kutta. HMAX is the step size; the default is 1/40 of the shortest estimated
 *     contact duration (see simulate.h), and a step longer than 1/10 of it gives a warning. ERROR, HINIT and HMIN
 *     are refused with RK4.
 *
 * SIMULATE/[DYNAMIC], END=t, [STEPS=n | DTOUT=dt]
 *     Simulate from time 0 to END, writing n + 1 output rows (default STEPS=500). Once.
 *
 * SIMULATE/STATIC, [IMBALANCE=f], [ERROR=e], [MAXIT=n]
 *     Static equilibrium (Adams): at most once, before SIMULATE/DYNAMIC (which then starts from the equilibrium at
 *     rest) or instead of it (the equilibrium is then the only output row, at time 0). At least one of the two
 *     SIMULATE statements is required. Converged when every part's (or mobility's) force and torque imbalance is at
 *     most IMBALANCE (default 1e-4, force units) and the last iteration moved no coordinate by more than ERROR
 *     (default 1e-4, lengths and radians), within MAXIT iterations (default 25); Adams' EQUILIBRIUM defaults.
 *     The method and what friction means in it: sim_static.h. Needs INTEGRATOR/BDF (the default). Free parts
 *     only for now: a model with JOINTs is refused when the run starts.
 *
 * END
 *     Optional; nothing after it is read (as in an Adams dataset).
 *
 * Example (a ball dropped on a plate):
 *     ACCGRAV/KGRAV=-9.81
 *     PART/1, GROUND
 *     GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
 *     PART/2, MASS=1, IP=4e-4,4e-4,4e-4, QG=0,0,0.1
 *     GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=2e-4
 *     CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5
 *     SIMULATE/DYNAMIC, END=0.5, STEPS=500
 */

/// A rigid part (Adams PART).
typedef struct app_scenario_part
{
    int id;         ///< Adams id (positive)
    int line;       ///< line of the statement (for messages)
    bool ground;    ///< fixed part
    double mass;    ///< mass (> 0 for a moving part unless density is given)
    double density; ///< DENSITY (> 0: mass properties from the geometry), or 0
    double ip[6];   ///< inertia about the centre of mass, body frame: Ixx, Iyy, Izz, Ixy, Ixz, Iyz (Adams signs)
    mc_pose pose;   ///< initial pose: body frame origin (= centre of mass) and orientation in the ground frame
    mc_vec3 v;      ///< initial velocity of the centre of mass, ground frame
    mc_vec3 w_body; ///< initial angular velocity, body frame (Adams WX, WY, WZ)
} app_scenario_part;

/// Shape of a GRAPHICS statement.
typedef enum app_scenario_shape
{
    APP_SCENARIO_FILE = 0,      ///< mesh file
    APP_SCENARIO_BOX = 1,       ///< size = full edge lengths x, y, z, from the corner at the origin
    APP_SCENARIO_SPHERE = 2,    ///< size[0] = radius
    APP_SCENARIO_ELLIPSOID = 3, ///< size = diameters x, y, z
    APP_SCENARIO_CYLINDER = 4,  ///< size[0] = radius, size[1] = length
    APP_SCENARIO_FRUSTUM = 5,   ///< size[0] = bottom radius, size[1] = top radius, size[2] = length
    APP_SCENARIO_TORUS = 6,     ///< size[0] = major radius, size[1] = minor radius
    APP_SCENARIO_PLANE = 7,     ///< the half-space z <= 0 of the geometry frame (always analytic)
} app_scenario_shape;

/// A geometry attached to a part (Adams GRAPHICS).
typedef struct app_scenario_graphics
{
    int id;                   ///< Adams id
    int line;                 ///< line of the statement
    int part_id;              ///< PART= id
    int part_index;           ///< index of that part in app_scenario.parts
    app_scenario_shape shape; ///< the shape
    char* path;               ///< FILE= resolved against the scenario's directory (APP_SCENARIO_FILE only), else NULL
    double scale;             ///< SCALE= for files (default 1)
    double size[3];           ///< shape parameters, see app_scenario_shape
    double chord_tolerance;   ///< CHORD_TOLERANCE (length); 0: the default (0.005 x the largest dimension)
    double angle_tolerance;   ///< ANGLE_TOLERANCE (radians); default 15 degrees
    double max_triangles;     ///< MAX_TRIANGLES (files and primitives); 0: the library's default (2^26)
    bool flip;                ///< IFLIP_GEOMETRY flag on the GRAPHICS statement
    bool analytic;            ///< ANALYTIC flag (SPHERE, CYLINDER) or PLANE: an exact shape, no mesh
    mc_pose local;            ///< placement in the part frame (QP, REULER)
    /// ACCEPT_SELF_INTERSECTIONS flag: a FILE mesh that intersects itself is used (with a warning), not refused
    bool accept_self_intersections;
    /// REPAIR= (files only): the repairs to apply (mc_repair_flags), with WELD_TOLERANCE= (fraction of the bbox
    /// diagonal) or WELD_DISTANCE= (length) and MAX_HOLE_EDGES=; repair.flags 0 and no weld: none
    mc_repair_options repair;
} app_scenario_graphics;

/// Normal force model of a contact.
typedef enum app_scenario_model
{
    APP_SCENARIO_IMPACT = 0,  ///< Adams IMPACT
    APP_SCENARIO_POISSON = 1, ///< Adams POISSON (restitution)
} app_scenario_model;

/// Friction mode of a contact (Adams COULOMB_FRICTION).
typedef enum app_scenario_friction
{
    APP_SCENARIO_FRICTION_OFF = 0,           ///< no friction
    APP_SCENARIO_FRICTION_ON = 1,            ///< stiction and sliding
    APP_SCENARIO_FRICTION_DYNAMICS_ONLY = 2, ///< sliding only (mu_dynamic above vd, ramp below)
} app_scenario_friction;

/// A contact definition (Adams CONTACT).
typedef struct app_scenario_contact
{
    int id;                            ///< Adams id
    int line;                          ///< line of the statement
    int* igeom;                        ///< GRAPHICS indices (into app_scenario.graphics) of the IGEOM list
    int igeom_count;                   ///< entries of igeom
    int* jgeom;                        ///< GRAPHICS indices of the JGEOM list
    int jgeom_count;                   ///< entries of jgeom
    bool* iflip;                       ///< per igeom entry: listed in IFLIP_GEOMETRY (or flagged on its GRAPHICS)
    bool* jflip;                       ///< per jgeom entry: listed in JFLIP_GEOMETRY (or flagged on its GRAPHICS)
    bool group;                        ///< GROUP=: jgeom is a copy of igeom, each unordered pair once
    int* exclude;                      ///< EXCLUDE: 2 * exclude_count GRAPHICS indices (ids until resolved), pairs
    int exclude_count;                 ///< excluded pairs
    app_scenario_model model;          ///< IMPACT or POISSON
    double stiffness;                  ///< IMPACT STIFFNESS
    double exponent;                   ///< IMPACT EXPONENT
    double damping;                    ///< IMPACT DAMPING (maximum damping coefficient)
    double dmax;                       ///< IMPACT DMAX (depth of full damping); required when damping > 0
    double penalty;                    ///< POISSON PENALTY
    double restitution;                ///< POISSON RESTITUTION_COEFFICIENT
    double normal_transition_velocity; ///< POISSON NORMAL_TRANSITION_VELOCITY; 0: the library's default
    app_scenario_friction friction;    ///< COULOMB_FRICTION
    double mu_static;                  ///< MU_STATIC
    double mu_dynamic;                 ///< MU_DYNAMIC
    double stiction_velocity;          ///< STICTION_TRANSITION_VELOCITY
    double friction_velocity;          ///< FRICTION_TRANSITION_VELOCITY
    bool stiction;                     ///< STICTION=ON
    double max_stiction_deformation;   ///< MAX_STICTION_DEFORMATION; 0: the library's default
    mc_depth_method depth;             ///< DEPTH (not Adams); MC_DEPTH_DEFAULT when not given (Adams)
    struct app_contact_laws* laws;     ///< RECURDYN, DYMORE, splines, user routines (scenario_laws.h); NULL: none
} app_scenario_contact;

/// Integrator of a scenario (INTEGRATOR statement).
typedef enum app_scenario_integrator
{
    APP_SCENARIO_BDF = 0, ///< variable-step BDF with error control (the default; BDF or GSTIFF)
    APP_SCENARIO_RK4 = 1, ///< fixed-step classical Runge-Kutta
} app_scenario_integrator;

/// SIMULATE/STATIC: a static equilibrium before the dynamic run or instead of it (sim_static.h).
typedef struct app_scenario_static
{
    int line;         ///< line of the SIMULATE/STATIC statement; 0: none
    bool only;        ///< no SIMULATE/DYNAMIC: the equilibrium is the only output (end_time and steps are then 1)
    double imbalance; ///< IMBALANCE: largest force or torque imbalance at convergence (default 1e-4)
    double error;     ///< ERROR: largest coordinate change of the last iteration (default 1e-4)
    int maxit;        ///< MAXIT: most iterations (default 25)
} app_scenario_static;

/// A parsed scenario. Arrays are owned by the scenario (plain malloc: this is tool code, not library code).
typedef struct app_scenario
{
    char* path;                         ///< the file as named by the caller
    char* base_dir;                     ///< directory that relative FILE= paths are resolved against
    char force_unit[32];                ///< UNITS FORCE (empty when not given)
    char mass_unit[32];                 ///< UNITS MASS
    char length_unit[32];               ///< UNITS LENGTH
    char time_unit[32];                 ///< UNITS TIME
    mc_vec3 gravity;                    ///< ACCGRAV / GRAVITY (ground frame)
    app_scenario_part* parts;           ///< PART statements in file order
    int part_count;                     ///< entries of parts
    app_scenario_graphics* graphics;    ///< GRAPHICS statements in file order
    int graphics_count;                 ///< entries of graphics
    app_scenario_contact* contacts;     ///< CONTACT statements in file order
    int contact_count;                  ///< entries of contacts
    double end_time;                    ///< SIMULATE END
    int steps;                          ///< output intervals (from STEPS, or END / DTOUT rounded)
    double hmax;                        ///< INTEGRATOR HMAX; 0: automatic
    app_scenario_integrator integrator; ///< INTEGRATOR BDF (default) or RK4
    double error;                       ///< INTEGRATOR ERROR (BDF tolerance); 0: the default
    double hinit;                       ///< INTEGRATOR HINIT (BDF first step); 0: automatic
    double hmin;                        ///< INTEGRATOR HMIN (BDF shortest step); 0: automatic
    int simulate_line;                  ///< line of the SIMULATE/DYNAMIC statement (of STATIC when alone)
    app_scenario_static statics;        ///< SIMULATE/STATIC (statics.line 0: none)
    int integrator_line;                ///< line of the INTEGRATOR statement (0 if none)
    /// Warnings of the parser, each `<file>:<line>: <what>` (no newline): an angle without D whose magnitude is more
    /// than 2 pi (degrees written as radians?). app_sim_create passes them on to its warning callback.
    char** warnings;
    int warning_count; ///< entries of warnings
    /// MARKER, SFORCE, VFORCE, VTORQUE, SPRINGDAMPER, SPLINE, VARIABLE statements (src/app/scenario_mech.h), or
    /// NULL when the scenario has none
    struct app_scenario_mech* mech;
    struct app_scenario_laws* laws; ///< SPLINE curves and routine libraries (scenario_laws.h); NULL: none
} app_scenario;

/// A parse error: where and what.
typedef struct app_scenario_error
{
    int line;          ///< 1-based line, or 0 when the problem is not on one line (for example a missing statement)
    char message[600]; ///< `<file>:<line>: <what>` (or `<file>: <what>`), no trailing newline
} app_scenario_error;

/// Parse a scenario file.
/// @param path the file; relative FILE= paths are resolved against its directory
/// @param out receives the scenario on success (destroy with app_scenario_destroy)
/// @param err may be NULL; filled on failure
/// @return true on success
bool app_scenario_parse_file(const char* path, app_scenario** out, app_scenario_error* err);

/// Parse scenario text held in memory.
/// @param text NUL-terminated content
/// @param name file name used in messages
/// @param base_dir directory for relative FILE= paths (NULL: the current directory)
/// @param out receives the scenario on success
/// @param err may be NULL; filled on failure
bool app_scenario_parse_string(const char* text, const char* name, const char* base_dir, app_scenario** out,
                               app_scenario_error* err);

/// Free a scenario. NULL is ignored.
void app_scenario_destroy(app_scenario* scn);

/// @return the index of the part with this id, or -1.
int app_scenario_find_part(const app_scenario* scn, int id);
/// The repair named `name` (case-insensitive, '-' and '_' alike: all, none, duplicates, shared_faces, loose, orient,
/// holes, pinches) as mc_repair_flags in *flag. @return false for an unknown name.
bool app_repair_flag(const char* name, uint32_t* flag);
/// Parse a list of repair names (app_repair_flag) separated by commas and blanks into mc_repair_flags (ORed).
/// @return false on an empty list or a bad name, which *bad (may be NULL) then points to (cut at 31 characters).
bool app_parse_repairs(const char* text, uint32_t* flags, char bad[32]);
/// What a repair changed, as one clause list ("2 triangles flipped, 1 holes filled"), or "nothing changed".
void app_repair_summary(const mc_repair_report* r, char* buf, size_t size);

/// @return the index of the graphics with this id, or -1.
int app_scenario_find_graphics(const app_scenario* scn, int id);

/// Quaternion of Adams body-3-1-3 Euler angles (a about z, then b about the new x, then c about the new z), radians.
mc_quat app_scenario_reuler_to_quat(double a, double b, double c);
