// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The scenario reader's model statements (part of scenario.c's module): UNITS, ACCGRAV, GRAVITY, PART, GRAPHICS
// (files, primitives, faceting, repairs) and the repair flags shared with the other commands.
#include "src/app/app_io.h"
#include "src/app/scenario_internal.h"
#include "src/app/scenario_laws.h"
#include "src/app/scenario_mech.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// ---------------------------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------------------------

mc_quat app_scenario_reuler_to_quat(double a, double b, double c)
{
    mc_quat qa = {cos(0.5 * a), 0.0, 0.0, sin(0.5 * a)};
    mc_quat qb = {cos(0.5 * b), sin(0.5 * b), 0.0, 0.0};
    mc_quat qc = {cos(0.5 * c), 0.0, 0.0, sin(0.5 * c)};
    return mc_quat_normalize(mc_quat_mul(mc_quat_mul(qa, qb), qc));
}

/// QG / QP and REULER / QUATERNION into a pose.
bool scn_get_pose(scn_parser* p, const char* pos_key, bool allow_quat, mc_pose* out)
{
    *out = mc_pose_identity();
    double v[4];
    bool found = false;
    if (!scn_get_reals(p, pos_key, v, 3, 3, NULL, false, &found))
    {
        return false;
    }
    if (found)
    {
        out->p = mc_v3(v[0], v[1], v[2]);
    }
    bool have_euler = false;
    if (!scn_get_reals(p, "REULER", v, 3, 3, NULL, true, &have_euler))
    {
        return false;
    }
    if (have_euler)
    {
        out->q = app_scenario_reuler_to_quat(v[0], v[1], v[2]);
    }
    if (allow_quat)
    {
        bool have_q = false;
        if (!scn_get_reals(p, "QUATERNION", v, 4, 4, NULL, false, &have_q))
        {
            return false;
        }
        if (have_q)
        {
            if (have_euler)
            {
                return scn_fail(p, p->st.line, "give either REULER or QUATERNION, not both");
            }
            double l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
            if (!(l2 > 0.0))
            {
                return scn_fail(p, p->st.line, "QUATERNION is zero");
            }
            mc_quat q = {v[0], v[1], v[2], v[3]};
            out->q = mc_quat_normalize(q);
        }
    }
    return true;
}

bool scn_statement_units(scn_parser* p)
{
    static const char* keys[4] = {"FORCE", "MASS", "LENGTH", "TIME"};
    char* dst[4] = {p->scn->force_unit, p->scn->mass_unit, p->scn->length_unit, p->scn->time_unit};
    if (!scn_no_head(p) || !scn_first_time(p, &p->seen_units, "UNITS", ""))
    {
        return false;
    }
    for (int k = 0; k < 4; ++k)
    {
        scn_arg* a = scn_find_arg(p, keys[k]);
        if (a == NULL)
        {
            continue;
        }
        if (a->nval != 1 || a->quoted)
        {
            return scn_fail(p, a->line, "%s takes one unit name", keys[k]);
        }
        const char* v = a->vals[0];
        size_t n = strlen(v);
        if (n == 0 || n >= 32)
        {
            return scn_fail(p, a->line, "bad unit name '%s'", v);
        }
        for (size_t i = 0; i < n; ++i)
        {
            if (!isalpha((unsigned char)v[i]) && v[i] != '_')
            {
                return scn_fail(p, a->line, "bad unit name '%s' (letters and '_' only)", v);
            }
        }
        scn_upper_copy(dst[k], 32, v, n);
    }
    return scn_check_args(p);
}

bool scn_statement_accgrav(scn_parser* p)
{
    if (!scn_no_head(p) || !scn_first_time(p, &p->seen_gravity, "gravity", " (ACCGRAV / GRAVITY)"))
    {
        return false;
    }
    double g[3] = {0.0, 0.0, 0.0};
    static const char* keys[3] = {"IGRAV", "JGRAV", "KGRAV"};
    for (int k = 0; k < 3; ++k)
    {
        bool found = false;
        if (!scn_get_real(p, keys[k], &g[k], &found))
        {
            return false;
        }
    }
    p->scn->gravity = mc_v3(g[0], g[1], g[2]);
    return scn_check_args(p);
}

bool scn_statement_gravity(scn_parser* p)
{
    if (!scn_first_time(p, &p->seen_gravity, "gravity", " (ACCGRAV / GRAVITY)"))
    {
        return false;
    }
    if (p->st.nhead != 3)
    {
        return scn_fail(p, p->st.line, "GRAVITY takes three values: GRAVITY/gx,gy,gz");
    }
    double g[3];
    scn_arg fake = {.key = "GRAVITY", .line = p->st.line};
    for (int k = 0; k < 3; ++k)
    {
        if (!scn_parse_real(p, &fake, p->st.head[k], false, &g[k]))
        {
            return false;
        }
    }
    p->scn->gravity = mc_v3(g[0], g[1], g[2]);
    return scn_check_args(p);
}

// An inertia tensor J (about the centre of mass) belongs to a mass distribution exactly when the second-moment
// matrix M = (trace J / 2) E - J (the integral of r r^T dm) is positive semidefinite, which is the triangle
// inequality of the principal moments. Checked by the principal minors of M + 1e-6 trace(J) E (the tolerance admits
// flat plates and thin rods given with a few significant digits).
static bool inertia_is_realizable(double xx, double yy, double zz, double xy, double xz, double yz)
{
    double tr = xx + yy + zz;
    double eps = 1e-6 * tr;
    double a = 0.5 * tr - xx + eps, b = 0.5 * tr - yy + eps, c = 0.5 * tr - zz + eps;
    double d = -xy, e = -xz, f = -yz; // off-diagonal terms of M
    double det = a * (b * c - f * f) - d * (d * c - f * e) + e * (d * f - b * e);
    double tol = 1e-12 * tr * tr * tr; // rounding of the determinant
    return a >= 0.0 && b >= 0.0 && c >= 0.0 && a * b - d * d >= -1e-12 * tr * tr && a * c - e * e >= -1e-12 * tr * tr &&
           b * c - f * f >= -1e-12 * tr * tr && det >= -tol;
}

bool scn_statement_part(scn_parser* p)
{
    app_scenario_part part;
    memset(&part, 0, sizeof part);
    part.line = p->st.line;
    if (!scn_get_statement_id(p, &part.id))
    {
        return false;
    }
    if (app_scenario_find_part(p->scn, part.id) >= 0)
    {
        return scn_fail(p, p->st.line, "PART/%d defined twice", part.id);
    }
    if (!scn_get_flag(p, "GROUND", &part.ground) || !scn_get_pose(p, "QG", true, &part.pose))
    {
        return false;
    }
    bool have_mass = false, have_ip = false;
    if (!scn_get_real(p, "MASS", &part.mass, &have_mass))
    {
        return false;
    }
    int nip = 0;
    if (!scn_get_reals(p, "IP", part.ip, 3, 6, &nip, false, &have_ip))
    {
        return false;
    }
    bool have_density = false;
    if (!scn_get_real(p, "DENSITY", &part.density, &have_density))
    {
        return false;
    }
    if (have_ip && nip != 3 && nip != 6)
    {
        return scn_fail(p, p->st.line, "IP takes 3 or 6 values (Ixx,Iyy,Izz[,Ixy,Ixz,Iyz]), got %d", nip);
    }
    double vel[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    static const char* vkeys[6] = {"VX", "VY", "VZ", "WX", "WY", "WZ"};
    bool any_vel = false;
    for (int k = 0; k < 6; ++k)
    {
        bool found = false;
        if (!scn_get_real(p, vkeys[k], &vel[k], &found))
        {
            return false;
        }
        any_vel = any_vel || found;
    }
    part.v = mc_v3(vel[0], vel[1], vel[2]);
    part.w_body = mc_v3(vel[3], vel[4], vel[5]);
    if (!scn_check_args(p))
    {
        return false;
    }
    if (part.ground)
    {
        if (have_mass || have_ip || have_density || any_vel)
        {
            return scn_fail(p, p->st.line, "a GROUND part takes no MASS, IP, DENSITY or velocities");
        }
    }
    else if (have_density)
    {
        if (have_mass || have_ip)
        {
            return scn_fail(p, p->st.line, "give DENSITY or MASS and IP, not both");
        }
        if (!(part.density > 0.0))
        {
            return scn_fail(p, p->st.line, "DENSITY must be > 0");
        }
    }
    else
    {
        if (!have_mass || !(part.mass > 0.0))
        {
            return have_mass ? scn_fail(p, p->st.line, "MASS must be > 0")
                             : scn_fail(p, p->st.line, "PART/%d needs MASS= and IP= (or DENSITY=, or GROUND)", part.id);
        }
        if (!have_ip)
        {
            return scn_fail(p, p->st.line, "PART/%d needs IP=Ixx,Iyy,Izz (inertia about the centre of mass)", part.id);
        }
        // Its determinant (a product of three moments) must be a double, or the minors below and the simulator's
        // inverse scn_fail for a reason they cannot name (issue 41: IP=1e300 was "singular", 1e-300 "not positive
        // definite").
        double ip_max = 0.0;
        for (int k = 0; k < 6; ++k)
        {
            ip_max = fmax(ip_max, fabs(part.ip[k]));
        }
        double ip_min = fmin(part.ip[0], fmin(part.ip[1], part.ip[2]));
        if (ip_max > 1e100 || (ip_min > 0.0 && ip_min < 1e-100))
        {
            return scn_fail(p, p->st.line,
                            "IP=%g,%g,%g is out of the range the simulator handles (moments from 1e-100 to 1e100: the "
                            "inertia's determinant would %s); choose other units",
                            part.ip[0], part.ip[1], part.ip[2], ip_max > 1e100 ? "overflow" : "underflow");
        }
        // Positive definite: leading principal minors (Adams' products of inertia enter with a minus sign).
        double xx = part.ip[0], yy = part.ip[1], zz = part.ip[2];
        double xy = -part.ip[3], xz = -part.ip[4], yz = -part.ip[5];
        double m2 = xx * yy - xy * xy;
        double m3 = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
        if (!(xx > 0.0) || !(m2 > 0.0) || !(m3 > 0.0))
        {
            return scn_fail(p, p->st.line, "IP is not positive definite");
        }
        if (!inertia_is_realizable(xx, yy, zz, xy, xz, yz))
        {
            return scn_fail(p, p->st.line,
                            "IP=%g,%g,%g,%g,%g,%g is no rigid body's inertia: its principal moments break the triangle "
                            "inequality (each must be at most the sum of the other two, within 1e-6 of the trace)",
                            part.ip[0], part.ip[1], part.ip[2], part.ip[3], part.ip[4], part.ip[5]);
        }
    }
    app_scenario_part* arr = scn_grow(p->scn->parts, p->scn->part_count, sizeof *arr);
    if (arr == NULL)
    {
        return scn_fail(p, p->st.line, "out of memory");
    }
    p->scn->parts = arr;
    arr[p->scn->part_count++] = part;
    return true;
}

static bool join_path(const char* dir, const char* file, char** out)
{
    if (file[0] == '/' || dir == NULL || dir[0] == '\0')
    {
        *out = scn_dup_range(file, strlen(file));
        return *out != NULL;
    }
    size_t n = strlen(dir) + strlen(file) + 2;
    *out = malloc(n);
    if (*out == NULL)
    {
        return false;
    }
    snprintf(*out, n, "%s/%s", dir, file);
    return true;
}

typedef struct shape_spec
{
    const char* flag;
    app_scenario_shape shape;
    const char* keys[3];
} shape_spec;

static const shape_spec s_shapes[] = {
    {"BOX", APP_SCENARIO_BOX, {"X", "Y", "Z"}},
    {"SPHERE", APP_SCENARIO_SPHERE, {"RADIUS", NULL, NULL}},
    {"ELLIPSOID", APP_SCENARIO_ELLIPSOID, {"XSCALE", "YSCALE", "ZSCALE"}},
    {"CYLINDER", APP_SCENARIO_CYLINDER, {"RADIUS", "LENGTH", NULL}},
    {"FRUSTUM", APP_SCENARIO_FRUSTUM, {"BOTTOM", "TOP", "LENGTH"}},
    {"TORUS", APP_SCENARIO_TORUS, {"MAJOR_RADIUS", "MINOR_RADIUS", NULL}},
    {"PLANE", APP_SCENARIO_PLANE, {NULL, NULL, NULL}},
};

// The shape of a GRAPHICS statement: exactly one of the shape flags (*spec), or FILE= (*file).
static bool graphics_shape(scn_parser* p, int id, const shape_spec** spec, scn_arg** file)
{
    int nshape = 0;
    for (size_t k = 0; k < sizeof s_shapes / sizeof s_shapes[0]; ++k)
    {
        bool on = false;
        if (!scn_get_flag(p, s_shapes[k].flag, &on))
        {
            return false;
        }
        if (on)
        {
            ++nshape;
            *spec = &s_shapes[k];
        }
    }
    bool external = false;
    if (!scn_get_flag(p, "EXTERNAL", &external))
    {
        return false;
    }
    *file = scn_find_arg(p, "FILE");
    if (*file != NULL)
    {
        ++nshape;
    }
    else if (external)
    {
        return scn_fail(p, p->st.line, "EXTERNAL needs FILE=path");
    }
    if (nshape != 1)
    {
        return scn_fail(p, p->st.line,
                        nshape == 0 ? "GRAPHICS/%d needs a shape (BOX, SPHERE, ELLIPSOID, CYLINDER, FRUSTUM, TORUS) or "
                                      "FILE=path"
                                    : "GRAPHICS/%d has more than one shape",
                        id);
    }
    return true;
}

// True when a FILE= path names a B-rep file (.step .stp .iges .igs .brep), which is faceted at import.
static bool is_brep_file(const scn_arg* fa)
{
    static const char* const ext[] = {".step", ".stp", ".iges", ".igs", ".brep"};
    const char* path = fa != NULL && fa->nval == 1 ? fa->vals[0] : "";
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; ++i)
    {
        size_t k = strlen(ext[i]);
        if (n >= k && strcasecmp(path + n - k, ext[i]) == 0)
        {
            return true;
        }
    }
    return false;
}

// CHORD_TOLERANCE and ANGLE_TOLERANCE (primitives and B-rep files: a mesh file is used as it is).
static bool graphics_faceting(scn_parser* p, bool is_file, app_scenario_graphics* g)
{
    const char* facet_keys[2] = {"CHORD_TOLERANCE", "ANGLE_TOLERANCE"};
    for (int k = 0; is_file && k < 2; ++k)
    {
        scn_arg* ta = scn_find_arg(p, facet_keys[k]);
        if (ta != NULL)
        {
            return scn_fail(p, ta->line, "%s applies to primitives and B-rep files, not to FILE= meshes",
                            facet_keys[k]);
        }
    }
    bool found = false;
    double tol = 0.0;
    if (!scn_get_real(p, "CHORD_TOLERANCE", &tol, &found))
    {
        return false;
    }
    if (found && !(tol > 0.0))
    {
        return scn_fail(p, p->st.line, "CHORD_TOLERANCE must be > 0");
    }
    g->chord_tolerance = found ? tol : 0.0;
    if (!scn_get_real(p, "MAX_TRIANGLES", &tol, &found))
    {
        return false;
    }
    if (found && !(tol >= 1.0 && tol <= 0x1p40 && tol == floor(tol)))
    {
        return scn_fail(p, p->st.line, "MAX_TRIANGLES must be a whole number from 1 to 2^40");
    }
    g->max_triangles = found ? tol : 0.0;
    if (!scn_get_reals(p, "ANGLE_TOLERANCE", &tol, 1, 1, NULL, true, &found))
    {
        return false;
    }
    if (found)
    {
        if (!(tol > 0.0) || !(tol < MC_PI / 2.0))
        {
            return scn_fail(p, p->st.line, "ANGLE_TOLERANCE must be between 0 and 90 degrees");
        }
        g->angle_tolerance = tol;
    }
    return true;
}

bool app_repair_flag(const char* name, uint32_t* flag)
{
    static const struct
    {
        const char* name;
        uint32_t flag;
    } names[] = {
        {"ALL", MC_REPAIR_ALL},
        {"NONE", 0},
        {"DUPLICATES", MC_REPAIR_DUPLICATES},
        {"SHARED_FACES", MC_REPAIR_SHARED_FACES},
        {"LOOSE", MC_REPAIR_LOOSE_COMPONENTS},
        {"ORIENT", MC_REPAIR_ORIENT},
        {"HOLES", MC_REPAIR_HOLES},
        {"PINCHES", MC_REPAIR_PINCHES},
    };
    char up[32];
    size_t n = strlen(name);
    if (n >= sizeof up)
    {
        return false;
    }
    for (size_t i = 0; i <= n; ++i)
    {
        up[i] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    {
        if (strcmp(up, names[i].name) == 0)
        {
            *flag = names[i].flag;
            return true;
        }
    }
    return false;
}

void app_repair_summary(const mc_repair_report* r, char* buf, size_t size)
{
    const struct
    {
        uint32_t n;
        const char* what;
    } items[] = {
        {r->welded_vertices, "vertices welded"},
        {r->collapsed_triangles, "collapsed triangles removed"},
        {r->duplicate_triangles, "duplicate triangles removed"},
        {r->back_to_back_triangles, "back-to-back triangles removed"},
        {r->shared_face_triangles, "shared-face triangles removed"},
        {r->loose_components, "loose components removed"},
        {r->flipped_triangles, "triangles flipped"},
        {r->reversed_components, "components reversed"},
        {r->filled_holes, "holes filled"},
        {r->fill_triangles, "triangles added"},
        {r->split_edges, "non-manifold edges split"},
        {r->split_vertices, "pinched vertices split"},
        {r->unfilled_holes, "holes left open"},
        {r->unorientable_patches, "unorientable patches"},
    };
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof items / sizeof items[0] && n < size; ++i)
    {
        if (items[i].n > 0)
        {
            n += (size_t)snprintf(buf + n, size - n, "%s%u %s", n > 0 ? ", " : "", items[i].n, items[i].what);
        }
    }
    if (n == 0)
    {
        snprintf(buf, size, "nothing changed");
    }
}

bool app_parse_repairs(const char* text, uint32_t* flags, char bad[32])
{
    *flags = 0;
    int count = 0;
    for (const char* s = text; *s != '\0';)
    {
        s += strspn(s, ", \t");
        size_t n = strcspn(s, ", \t");
        if (n == 0)
        {
            break;
        }
        char item[32];
        snprintf(item, sizeof item, "%.*s", (int)(n < 31 ? n : 31), s);
        uint32_t f = 0;
        if (n >= sizeof item || !app_repair_flag(item, &f))
        {
            if (bad != NULL)
            {
                snprintf(bad, 32, "%s", item);
            }
            return false;
        }
        *flags |= f;
        ++count;
        s += n;
    }
    if (count == 0 && bad != NULL)
    {
        bad[0] = '\0';
    }
    return count > 0;
}

// REPAIR=name or REPAIR="name, name", WELD_TOLERANCE=, WELD_DISTANCE=, MAX_HOLE_EDGES= (files only).
static bool graphics_repair(scn_parser* p, app_scenario_graphics* g)
{
    g->repair = mc_default_repair_options();
    g->repair.flags = 0;
    scn_arg* ra = scn_find_arg(p, "REPAIR");
    char bad[32];
    if (ra != NULL && (ra->nval != 1 || !app_parse_repairs(ra->vals[0], &g->repair.flags, bad)))
    {
        return scn_fail(p, ra->line,
                        "REPAIR takes ALL, NONE or a quoted list of DUPLICATES, SHARED_FACES, LOOSE, ORIENT, HOLES, "
                        "PINCHES (REPAIR=\"ORIENT, HOLES\"); got '%s'",
                        ra->nval == 1 ? bad : "several values");
    }
    bool found = false;
    double holes = 0.0;
    if (!scn_get_real(p, "WELD_TOLERANCE", &g->repair.weld_tolerance, &found) ||
        (found && !(g->repair.weld_tolerance >= 1e-12 && g->repair.weld_tolerance <= 0.1)))
    {
        return found ? scn_fail(p, p->st.line, "WELD_TOLERANCE must be between 1e-12 and 0.1 (of the bbox diagonal)")
                     : false;
    }
    if (!scn_get_real(p, "WELD_DISTANCE", &g->repair.weld_distance, &found) ||
        (found && !(g->repair.weld_distance > 0.0)) || (found && g->repair.weld_tolerance > 0.0))
    {
        return found ? scn_fail(p, p->st.line, "WELD_DISTANCE must be > 0, and not given with WELD_TOLERANCE") : false;
    }
    if (!scn_get_real(p, "MAX_HOLE_EDGES", &holes, &found) ||
        (found && !(holes >= 3.0 && holes <= 256.0 && holes == floor(holes))))
    {
        return found ? scn_fail(p, p->st.line, "MAX_HOLE_EDGES must be a whole number from 3 to 256") : false;
    }
    g->repair.max_hole_edges = found ? (uint32_t)holes : g->repair.max_hole_edges;
    return true;
}

// FILE=path [, SCALE=s] [, REPAIR=...].
static bool graphics_file(scn_parser* p, const scn_arg* fa, app_scenario_graphics* g)
{
    if (fa->nval != 1)
    {
        return scn_fail(p, fa->line, "FILE takes one path (quote it when it contains ',' or blanks)");
    }
    g->shape = APP_SCENARIO_FILE;
    bool found = false;
    if (!scn_get_real(p, "SCALE", &g->scale, &found))
    {
        return false;
    }
    if (found && !(g->scale > 0.0))
    {
        return scn_fail(p, p->st.line, "SCALE must be > 0");
    }
    if (!graphics_repair(p, g) || !scn_check_args(p))
    {
        return false;
    }
    if (!join_path(p->scn->base_dir, fa->vals[0], &g->path))
    {
        return scn_fail(p, p->st.line, "out of memory");
    }
    return true;
}

// A primitive's size keys (spec->keys).
static bool graphics_primitive(scn_parser* p, const shape_spec* spec, app_scenario_graphics* g)
{
    g->shape = spec->shape;
    for (int k = 0; k < 3; ++k)
    {
        if (spec->keys[k] == NULL)
        {
            continue;
        }
        bool found = false;
        if (!scn_get_real(p, spec->keys[k], &g->size[k], &found))
        {
            return false;
        }
        if (!found)
        {
            return scn_fail(p, p->st.line, "%s needs %s=", spec->flag, spec->keys[k]);
        }
        bool may_be_zero = spec->shape == APP_SCENARIO_FRUSTUM && k < 2;
        if (!(g->size[k] > 0.0) && !(may_be_zero && g->size[k] == 0.0))
        {
            return scn_fail(p, p->st.line, "%s must be > 0", spec->keys[k]);
        }
    }
    if (spec->shape == APP_SCENARIO_FRUSTUM && !(g->size[0] > 0.0 || g->size[1] > 0.0))
    {
        return scn_fail(p, p->st.line, "FRUSTUM needs TOP or BOTTOM > 0");
    }
    if (spec->shape == APP_SCENARIO_TORUS && !(g->size[1] < g->size[0]))
    {
        return scn_fail(p, p->st.line, "TORUS needs MINOR_RADIUS < MAJOR_RADIUS");
    }
    if (g->analytic && spec->shape != APP_SCENARIO_SPHERE && spec->shape != APP_SCENARIO_CYLINDER &&
        spec->shape != APP_SCENARIO_PLANE)
    {
        return scn_fail(p, p->st.line, "ANALYTIC is for SPHERE, CYLINDER or PLANE, not %s", spec->flag);
    }
    if (spec->shape == APP_SCENARIO_PLANE && g->flip)
    {
        return scn_fail(p, p->st.line, "a PLANE cannot be flipped (turn it with REULER)");
    }
    g->analytic = g->analytic || spec->shape == APP_SCENARIO_PLANE;
    return scn_check_args(p);
}

bool scn_statement_graphics(scn_parser* p)
{
    app_scenario_graphics g;
    memset(&g, 0, sizeof g);
    g.repair = mc_default_repair_options();
    g.repair.flags = 0;
    g.line = p->st.line;
    g.scale = 1.0;
    g.angle_tolerance = 15.0 * MC_PI / 180.0;
    g.part_index = -1;
    if (!scn_get_statement_id(p, &g.id))
    {
        return false;
    }
    if (app_scenario_find_graphics(p->scn, g.id) >= 0)
    {
        return scn_fail(p, p->st.line, "GRAPHICS/%d defined twice", g.id);
    }
    scn_arg* pa = scn_find_arg(p, "PART");
    if (pa == NULL)
    {
        return scn_fail(p, p->st.line, "GRAPHICS/%d needs PART=id", g.id);
    }
    if (pa->nval != 1)
    {
        return scn_fail(p, pa->line, "PART takes one id");
    }
    if (!scn_get_int_value(p, pa, pa->vals[0], &g.part_id))
    {
        return false;
    }
    if (!scn_get_pose(p, "QP", false, &g.local) || !scn_get_flag(p, "IFLIP_GEOMETRY", &g.flip) ||
        !scn_get_flag(p, "ACCEPT_SELF_INTERSECTIONS", &g.accept_self_intersections) ||
        !scn_get_flag(p, "ANALYTIC", &g.analytic))
    {
        return false;
    }
    const shape_spec* spec = NULL;
    scn_arg* fa = NULL;
    if (!graphics_shape(p, g.id, &spec, &fa) || !graphics_faceting(p, fa != NULL && !is_brep_file(fa), &g) ||
        !(fa != NULL ? graphics_file(p, fa, &g) : graphics_primitive(p, spec, &g)))
    {
        return false;
    }
    if (fa != NULL && g.analytic)
    {
        free(g.path);
        return scn_fail(p, p->st.line, "ANALYTIC is for SPHERE, CYLINDER or PLANE, not a FILE");
    }
    app_scenario_graphics* arr = scn_grow(p->scn->graphics, p->scn->graphics_count, sizeof *arr);
    if (arr == NULL)
    {
        free(g.path);
        return scn_fail(p, p->st.line, "out of memory");
    }
    p->scn->graphics = arr;
    arr[p->scn->graphics_count++] = g;
    return true;
}
