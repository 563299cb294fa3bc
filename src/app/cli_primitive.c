// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact primitive`: tessellate a box, sphere, ellipsoid, cylinder, frustum, cone or torus and write it as
// binary STL or Adams .shl.
#include "src/app/app_io.h"
#include "src/app/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void print_help(FILE* f)
{
    fprintf(
        f, "usage: meshcontact primitive TYPE SIZE-OPTIONS [--tolerance T | --triangles N] [--angle DEG]\n"
           "                             [--scale S] [--json] -o FILE\n\n"
           "Tessellate a primitive shape into a closed, outward-wound triangle mesh without slivers and write it\n"
           "to FILE: binary STL when FILE ends in .stl (coordinates stored as 32-bit floats, as the format\n"
           "requires), Adams shell when it ends in .shl (full double precision, 1-based indices). A one-line\n"
           "summary goes to stdout: triangles, vertices, volume and area of the mesh against the exact shape.\n\n"
           "TYPE and its size options (lengths in your units; every shape is centred on the z axis):\n"
           "  box        --size X,Y,Z            FULL edge lengths; the box spans -X/2..X/2, -Y/2..Y/2, -Z/2..Z/2.\n"
           "                                     Always 12 triangles (flat faces are exact).\n"
           "  sphere     --radius R              centred at the origin\n"
           "  ellipsoid  --radii A,B,C           semi-axes along x, y, z, centred at the origin\n"
           "  cylinder   --radius R --length L   axis z, from z = -L/2 to z = +L/2\n"
           "  frustum    --radius-bottom RB --radius-top RT --height H\n"
           "                                     radius RB at z = 0, RT at z = H; either radius may be 0 (a cone\n"
           "                                     with an apex vertex), not both\n"
           "  cone       --radius R --height H   the same as frustum with RB = R, RT = 0\n"
           "  torus      --major R --minor r     around the z axis, tube centre circle of radius R in the plane\n"
           "                                     z = 0, tube radius r < R\n\n"
           "faceting:\n"
           "  --tolerance T   chord tolerance: no point of any facet is farther than T from the true surface.\n"
           "                  Default: 0.001 times the largest size parameter.\n"
           "  --angle DEG     the true surface normals at the two ends of any facet edge differ by at most DEG\n"
           "                  degrees (on a sphere: the angle an edge subtends at the centre), in (0, 90].\n"
           "                  Default 15 (the Adams default). Not applied at a cone apex, where there is no\n"
           "                  normal; a narrow cone therefore has narrow apex triangles unless DEG is raised.\n"
           "  --triangles N   instead of --tolerance / --angle: about N triangles (for benchmarks; a sphere gets\n"
           "                  exactly 12 n^2 with n = round(sqrt(N / 12)); other shapes within about 15 "
           "%%)\n" CLI_MAX_TRIANGLES_HELP(
               "                  ") "\n"
                                     "output:\n"
                                     "  -o FILE         file to write, .stl or .shl (required)\n"
                                     "  --scale S       .shl only: the header's conversion factor to metres (default "
                                     "1); the coordinates\n"
                                     "                  are written as they are, a reader multiplies them by S\n"
                                     "  --large         write the file even when it is larger than 1 GB (refused "
                                     "otherwise)\n"
                                     "  --json          print the summary as one JSON object: "
                                     "{\"type\",\"triangles\",\"vertices\",\n"
                                     "                  \"volume\",\"exact_volume\",\"area\",\"exact_area\",\"file\"}\n"
                                     "  --help          this text\n\n"
                                     "exit status: 0 on success; 1 when the file cannot be written; 2 on a usage error "
                                     "(unknown option,\n"
                                     "missing or invalid size, tolerance or angle).\n");
}

enum opt_kind
{
    OPT_SIZE,   // --size (box): three values
    OPT_RADII,  // --radii (ellipsoid): three values
    OPT_RADIUS, // --radius
    OPT_LENGTH, // --length
    OPT_RB,     // --radius-bottom
    OPT_RT,     // --radius-top
    OPT_HEIGHT, // --height
    OPT_MAJOR,  // --major
    OPT_MINOR,  // --minor
    OPT_COUNT
};

/// The size options, in enum opt_kind order (their long names without the dashes).
static const char* const s_size_names[OPT_COUNT] = {
    "size", "radii", "radius", "length", "radius-bottom", "radius-top", "height", "major", "minor",
};

typedef struct prim_args
{
    const char* type_name;
    const char* out;
    double value[OPT_COUNT][3]; // the size options' values
    bool have[OPT_COUNT];       // which size options were given
    double tolerance, angle_deg, scale, triangles, max_triangles;
    bool have_tol, have_angle, have_scale, json, large;
} prim_args;

typedef struct shape_rule
{
    const char* name;
    mc_primitive_type type;
    enum opt_kind needs[3];
    int need_count;
} shape_rule;

static const shape_rule s_shapes[] = {
    {"box", MC_PRIMITIVE_BOX, {OPT_SIZE}, 1},
    {"sphere", MC_PRIMITIVE_ELLIPSOID, {OPT_RADIUS}, 1},
    {"ellipsoid", MC_PRIMITIVE_ELLIPSOID, {OPT_RADII}, 1},
    {"cylinder", MC_PRIMITIVE_CYLINDER, {OPT_RADIUS, OPT_LENGTH}, 2},
    {"frustum", MC_PRIMITIVE_FRUSTUM, {OPT_RB, OPT_RT, OPT_HEIGHT}, 3},
    {"cone", MC_PRIMITIVE_FRUSTUM, {OPT_RADIUS, OPT_HEIGHT}, 2},
    {"torus", MC_PRIMITIVE_TORUS, {OPT_MAJOR, OPT_MINOR}, 2},
};

static bool is_angle(double deg)
{
    return deg > 0.0 && deg <= 90.0;
}

static bool is_triangle_count(double n)
{
    return n >= 1.0 && n <= 2147483648.0 && n == floor(n);
}

// Parse the command line into a (zeroed by the caller); returns CLI_CONTINUE or an exit status.
static int parse_args(int argc, char** argv, prim_args* a)
{
    const char* one = "a number";
    const char* three = "three comma-separated numbers";
    cli_option options[OPT_COUNT + 8] = {
        {"output", 'o', CLI_TEXT, &a->out, 0, NULL, NULL, "a file name"},
        {"tolerance", 0, CLI_NUMBER, &a->tolerance, 0, cli_positive, &a->have_tol, "a positive number"},
        {"angle", 0, CLI_NUMBER, &a->angle_deg, 0, is_angle, &a->have_angle, "degrees in (0, 90]"},
        {"scale", 0, CLI_NUMBER, &a->scale, 0, cli_positive, &a->have_scale, "a positive number"},
        {"triangles", 0, CLI_NUMBER, &a->triangles, 0, is_triangle_count, NULL, "a whole number in 1 .. 2^31"},
        {"json", 0, CLI_FLAG, &a->json, 0, NULL, NULL, NULL},
        {"max-triangles", 0, CLI_NUMBER, &a->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"large", 0, CLI_FLAG, &a->large, 0, NULL, NULL, NULL},
    };
    for (int k = 0; k < OPT_COUNT; ++k)
    {
        bool vec = k == OPT_SIZE || k == OPT_RADII;
        options[8 + k] = (cli_option){s_size_names[k], 0,    CLI_NUMBERS, a->value[k],
                                      vec ? 3 : 1,     NULL, &a->have[k], vec ? three : one};
    }
    static const char* const operand_names[] = {"TYPE (box, sphere, ellipsoid, cylinder, frustum, cone, torus)"};
    const cli_syntax syntax = {"primitive", print_help, options, CLI_LENGTH(options), operand_names, &a->type_name, 1};
    return cli_parse_args(&syntax, argc, argv);
}

static bool ends_with(const char* s, const char* suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/// Surface area of an ellipsoid: with u = cos(theta), dA = sqrt(a^2 b^2 u^2 + c^2 (1 - u^2)(b^2 cos^2 phi + a^2
/// sin^2 phi)) du dphi, a smooth integrand (midpoint rule in u, trapezoid in the periodic phi).
static double ellipsoid_area(double a, double b, double c)
{
    int nu = 2000, np = 128;
    double sum = 0.0;
    for (int i = 0; i < nu; ++i)
    {
        double u = -1.0 + (i + 0.5) * 2.0 / nu;
        for (int j = 0; j < np; ++j)
        {
            double ph = 2.0 * MC_PI * j / np, cp = cos(ph), sp = sin(ph);
            sum += sqrt(a * a * b * b * u * u + c * c * (1.0 - u * u) * (b * b * cp * cp + a * a * sp * sp));
        }
    }
    return sum * (2.0 / nu) * (2.0 * MC_PI / np);
}

static void exact_volume_area(const mc_primitive_def* d, double* v, double* a)
{
    mc_vec3 s = d->dims;
    switch (d->type)
    {
    case MC_PRIMITIVE_BOX:
        *v = s.x * s.y * s.z;
        *a = 2.0 * (s.x * s.y + s.y * s.z + s.z * s.x);
        break;
    case MC_PRIMITIVE_ELLIPSOID:
        *v = 4.0 / 3.0 * MC_PI * s.x * s.y * s.z;
        *a = (s.x == s.y && s.y == s.z) ? 4.0 * MC_PI * s.x * s.x : ellipsoid_area(s.x, s.y, s.z);
        break;
    case MC_PRIMITIVE_CYLINDER:
        *v = MC_PI * s.x * s.x * s.z;
        *a = 2.0 * MC_PI * s.x * (s.x + s.z);
        break;
    case MC_PRIMITIVE_FRUSTUM:
        *v = MC_PI * s.z / 3.0 * (s.x * s.x + s.x * s.y + s.y * s.y);
        *a = MC_PI * (s.x + s.y) * hypot(s.x - s.y, s.z) + MC_PI * (s.x * s.x + s.y * s.y);
        break;
    case MC_PRIMITIVE_TORUS:
        *v = 2.0 * MC_PI * MC_PI * s.x * s.y * s.y;
        *a = 4.0 * MC_PI * MC_PI * s.x * s.y;
        break;
    }
}

// The shape TYPE names and whether exactly its size options were given; returns CLI_CONTINUE or a usage error.
static int check_shape(const prim_args* a, const shape_rule** out)
{
    const shape_rule* rule = NULL;
    for (int k = 0; k < CLI_LENGTH(s_shapes); ++k)
    {
        if (strcmp(a->type_name, s_shapes[k].name) == 0)
        {
            rule = &s_shapes[k];
        }
    }
    if (rule == NULL)
    {
        return cli_usage_error(
            "primitive", "unknown TYPE '%s' (box, sphere, ellipsoid, cylinder, frustum, cone, torus)", a->type_name);
    }
    for (int k = 0; k < OPT_COUNT; ++k)
    {
        bool needed = false;
        for (int j = 0; j < rule->need_count; ++j)
        {
            needed = needed || rule->needs[j] == (enum opt_kind)k;
        }
        if (needed != a->have[k])
        {
            return cli_usage_error("primitive", "%s %s --%s", rule->name, needed ? "needs" : "does not take",
                                   s_size_names[k]);
        }
    }
    *out = rule;
    return CLI_CONTINUE;
}

// The output file and the options that depend on it or on each other; returns CLI_CONTINUE or a usage error.
static int check_output(const prim_args* a, bool* shl)
{
    if (a->out == NULL)
    {
        return cli_usage_error("primitive", "missing -o FILE (.stl or .shl)");
    }
    *shl = ends_with(a->out, ".shl");
    if (!*shl && !ends_with(a->out, ".stl"))
    {
        return cli_usage_error("primitive", "output file '%s' must end in .stl or .shl", a->out);
    }
    if (a->have_scale && !*shl)
    {
        return cli_usage_error("primitive", "--scale applies to .shl output only");
    }
    if (a->triangles > 0 && (a->have_tol || a->have_angle))
    {
        return cli_usage_error("primitive", "--triangles replaces --tolerance and --angle; give one or the other");
    }
    return CLI_CONTINUE;
}

// The library's def from the size and faceting options.
static mc_primitive_def make_def(const prim_args* a, const shape_rule* rule)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = rule->type;
    const double(*v)[3] = a->value;
    switch (rule->type)
    {
    case MC_PRIMITIVE_BOX:
        d.dims = mc_v3(v[OPT_SIZE][0], v[OPT_SIZE][1], v[OPT_SIZE][2]);
        break;
    case MC_PRIMITIVE_ELLIPSOID:
        d.dims = a->have[OPT_RADIUS] ? mc_v3(v[OPT_RADIUS][0], v[OPT_RADIUS][0], v[OPT_RADIUS][0])
                                     : mc_v3(v[OPT_RADII][0], v[OPT_RADII][1], v[OPT_RADII][2]);
        break;
    case MC_PRIMITIVE_CYLINDER:
        d.dims = mc_v3(v[OPT_RADIUS][0], 0.0, v[OPT_LENGTH][0]);
        break;
    case MC_PRIMITIVE_FRUSTUM:
        d.dims = a->have[OPT_RADIUS] ? mc_v3(v[OPT_RADIUS][0], 0.0, v[OPT_HEIGHT][0])
                                     : mc_v3(v[OPT_RB][0], v[OPT_RT][0], v[OPT_HEIGHT][0]);
        break;
    case MC_PRIMITIVE_TORUS:
        d.dims = mc_v3(v[OPT_MAJOR][0], v[OPT_MINOR][0], 0.0);
        break;
    }
    double extent = mc_max_abs3(d.dims);
    d.chord_tolerance = a->have_tol ? a->tolerance : 1e-3 * extent;
    d.max_angle = (a->have_angle ? a->angle_deg : 15.0) * MC_PI / 180.0;
    if (a->max_triangles > 0.0)
    {
        d.max_triangles = (uint64_t)a->max_triangles;
    }
    return d;
}

// The summary line (or JSON object) on stdout.
static void print_summary(const prim_args* a, const char* name, const mc_mesh_report* r, double ev, double ea)
{
    if (a->json)
    {
        printf("{\"type\":");
        cli_json_string(stdout, name);
        printf(",\"triangles\":%u,\"vertices\":%u,\"volume\":", r->triangles, r->vertices);
        cli_json_double(stdout, r->volume);
        printf(",\"exact_volume\":");
        cli_json_double(stdout, ev);
        printf(",\"area\":");
        cli_json_double(stdout, r->area);
        printf(",\"exact_area\":");
        cli_json_double(stdout, ea);
        printf(",\"file\":");
        cli_json_string(stdout, a->out);
        printf("}\n");
    }
    else
    {
        printf("%s: %u triangles, %u vertices, volume %.9g (exact %.9g, %+.3g%%), area %.9g (exact %.9g, %+.3g%%) "
               "-> %s\n",
               name, r->triangles, r->vertices, r->volume, ev, 100.0 * (r->volume / ev - 1.0), r->area, ea,
               100.0 * (r->area / ea - 1.0), a->out);
    }
}

int cli_primitive(int argc, char** argv)
{
    prim_args a;
    memset(&a, 0, sizeof a);
    a.scale = 1.0;
    const shape_rule* rule = NULL;
    bool shl = false;
    int rc = parse_args(argc, argv, &a);
    rc = rc != CLI_CONTINUE ? rc : check_shape(&a, &rule);
    rc = rc != CLI_CONTINUE ? rc : check_output(&a, &shl);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    mc_primitive_def d = make_def(&a, rule);
    mc_error err;
    memset(&err, 0, sizeof err);
    mc_mesh* mesh = NULL;
    mc_status s = a.triangles > 0 ? mc_mesh_create_primitive_count(&d, (uint32_t)a.triangles, &mesh, &err)
                                  : mc_mesh_create_primitive(&d, &mesh, &err);
    if (s == MC_ERR_INVALID_ARGUMENT)
    {
        return cli_usage_error("primitive", "%s: %s", rule->name, err.message);
    }
    if (s != MC_OK)
    {
        return cli_fail(a.out, "%s%s", err.message, s == MC_ERR_LIMIT ? " (--max-triangles N)" : "");
    }
    // A file of more than CLI_LARGE_FILE bytes is written only when asked (--large): a tolerance typed with one zero
    // too many should not fill the disk. STL: 50 bytes per triangle; .shl: about 60 per point and 30 per triangle.
    double bytes = shl ? 60.0 * mc_mesh_get_vertex_count(mesh) + 30.0 * mc_mesh_get_triangle_count(mesh)
                       : 84.0 + 50.0 * mc_mesh_get_triangle_count(mesh);
    if (bytes > CLI_LARGE_FILE && !a.large)
    {
        unsigned nt = (unsigned)mc_mesh_get_triangle_count(mesh);
        mc_mesh_destroy(mesh);
        return cli_fail(a.out, "%u triangles make a file of about %.1f GB: not written without --large", nt,
                        bytes / 1e9);
    }
    if (app_write_mesh(mesh, a.out, shl, a.scale) != 0) // all or nothing (app_io.h)
    {
        mc_mesh_destroy(mesh);
        return 1;
    }
    double ev = NAN, ea = NAN;
    exact_volume_area(&d, &ev, &ea);
    print_summary(&a, rule->name, mc_mesh_get_report(mesh), ev, ea);
    mc_mesh_destroy(mesh);
    return 0;
}
