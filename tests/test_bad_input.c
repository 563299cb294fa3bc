// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The bad-input matrix in one place: every kind of hostile or broken input a user can hand the library or the
// simulator, each with its expected outcome (a status and a message, or a right answer). Regressions of the
// reliability campaign (issue 19) are marked "reproducer".
#include "meshcontact/meshcontact.h"
#include "src/app/scenario.h"
#include "src/app/simulate.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------------------------
// Helpers

static const double s_cube[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const uint32_t s_cube_tri[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                           {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};

// A unit cube (corner at the origin) with its points multiplied by `k` and shifted by `shift`.
static mc_status cube_at(double k, double shift, double scale, mc_mesh** out, mc_error* err)
{
    double p[8][3];
    for (int i = 0; i < 8; ++i)
    {
        for (int c = 0; c < 3; ++c)
        {
            p[i][c] = s_cube[i][c] * k + shift;
        }
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &p[0][0];
    d.vertex_count = 8;
    d.indices = &s_cube_tri[0][0];
    d.triangle_count = 12;
    d.scale = scale;
    return mc_mesh_create(&d, out, NULL, err);
}

static mc_mesh* cube_ok(void)
{
    mc_mesh* m = NULL;
    mc_error err;
    cr_assert_eq(cube_at(1.0, 0.0, 1.0, &m, &err), MC_OK, "%s", err.message);
    return m;
}

// $TMPDIR, or the current directory.
static const char* tmp_dir(void)
{
    const char* t = getenv("TMPDIR");
    return t != NULL && t[0] != '\0' ? t : ".";
}

// A file in the test's temporary directory with the given bytes; the path is written to `path`.
static void write_file(char* path, size_t cap, const char* name, const void* data, size_t n)
{
    snprintf(path, cap, "%s/mc_bad_%d_%s", tmp_dir(), (int)getpid(), name);
    FILE* f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static mc_status import_text(const char* name, const char* text, mc_error* err)
{
    char path[512];
    write_file(path, sizeof path, name, text, strlen(text));
    mc_mesh* m = NULL;
    mc_status st = mc_mesh_import_file(path, NULL, &m, NULL, err);
    mc_mesh_destroy(m);
    remove(path);
    return st;
}

// ---------------------------------------------------------------------------------------------------------------
// Coordinates: NaN, infinity, huge, tiny

Test(bad_input, coordinates_nan_and_infinity_are_refused)
{
    mc_error err;
    mc_mesh* m = NULL;
    cr_assert_eq(cube_at(NAN, 0.0, 1.0, &m, &err), MC_ERR_NON_FINITE);
    cr_assert_eq(cube_at(1.0, INFINITY, 1.0, &m, &err), MC_ERR_NON_FINITE);
    cr_assert_null(m);
}

// Reproducer: a tetrahedron at 1e150 against a unit one tripped an assertion in tri_tri (debug) and gave 0 regions
// (release); `--scale 1e150` likewise. 1e300 gave volume -nan and "usable for contact".
Test(bad_input, coordinates_beyond_2_pow_64_are_refused_at_import)
{
    mc_error err;
    mc_mesh* m = NULL;
    cr_assert_eq(cube_at(1e150, 0.0, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert_not_null(strstr(err.message, "outside the range"), "%s", err.message);
    cr_assert_eq(cube_at(1.0, 0.0, 1e150, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert_eq(cube_at(1e300, 0.0, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert_eq(cube_at(1.0, 0.0, 1e100, &m, &err), MC_ERR_OUT_OF_RANGE);
    // The bound itself is inside: a cube of edge 2^63 at 2^63 reaches exactly 2^64.
    cr_assert_eq(cube_at(0x1p63, 0x1p63, 1.0, &m, &err), MC_OK, "%s", err.message);
    const mc_mesh_report* r = mc_mesh_get_report(m);
    cr_assert(isfinite(r->volume) && r->volume == ldexp(1.0, 189));
    mc_mesh_destroy(m);
    // A file: `info` of a cube at 1e300 (reproducer) is an error, not "volume -nan".
    char text[1024];
    snprintf(text, sizeof text, "v 0 0 0\nv 1e300 0 0\nv 0 1e300 0\nv 0 0 1e300\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n");
    cr_assert_eq(import_text("huge.obj", text, &err), MC_ERR_OUT_OF_RANGE);
}

Test(bad_input, tiny_nonzero_coordinates_and_underflowing_scales_are_refused)
{
    mc_error err;
    mc_mesh* m = NULL;
    cr_assert_eq(cube_at(1.0, 1e-95, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);     // 1e-95 < 2^-240
    cr_assert_eq(cube_at(1e-200, 0.0, 1e-200, &m, &err), MC_ERR_OUT_OF_RANGE); // underflows to 0 when scaled
    // The lower end is 2^-240 (vec_math.h: under it, the rounding of derived coordinates below 2^-300 to 0 is no
    // longer far below the rounding of the rotation): 2^-300 and 1e-80, in range before, and the double just under
    // 2^-240 are refused with the range in the message; 2^-240 itself and a 1e-70 cube are valid meshes.
    cr_assert_eq(cube_at(0x1p-300, 0.0, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert(strstr(err.message, "2^-240") != NULL, "%s", err.message);
    cr_assert_eq(cube_at(1e-80, 0.0, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert_eq(cube_at(0x1.fffffffffffffp-241, 0.0, 1.0, &m, &err), MC_ERR_OUT_OF_RANGE);
    cr_assert_eq(cube_at(0x1p-240, 0.0, 1.0, &m, &err), MC_OK, "%s", err.message);
    mc_mesh_destroy(m);
    cr_assert_eq(cube_at(1e-70, 0.0, 1.0, &m, &err), MC_OK, "%s", err.message);
    mc_mesh_destroy(m);
}

// Poses: a translation beyond 2^64 is refused by every entry point; a rotation that makes coordinates tiny is fine.
Test(bad_input, poses_out_of_range_are_refused)
{
    mc_mesh* a = cube_ok();
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose p0 = mc_pose_identity();
    mc_pose far = mc_pose_identity();
    far.p.x = 1e20;
    mc_region reg[4];
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(a, &p0, a, &far, NULL, ws, reg, 4, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    far.p.x = NAN;
    cr_assert_eq(mc_query_regions(a, &p0, a, &far, NULL, ws, reg, 4, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    // A quaternion whose rotation entries underflow: the mapped coordinates below 2^-300 become 0 and the answer
    // is the unrotated one (the rotation is the identity to far below double precision).
    mc_pose tilt = mc_pose_identity();
    tilt.q = (mc_quat){1.0, 1e-200, 0.0, 0.0};
    tilt.p = mc_v3(0.5, 0.5, 0.5);
    mc_pose shift = tilt;
    shift.q = (mc_quat){1.0, 0.0, 0.0, 0.0};
    mc_region r2[4];
    uint32_t n2 = 0;
    cr_assert_eq(mc_query_regions(a, &p0, a, &tilt, NULL, ws, reg, 4, &n, NULL), MC_OK);
    cr_assert_eq(mc_query_regions(a, &p0, a, &shift, NULL, ws, r2, 4, &n2, NULL), MC_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(n2, 1);
    cr_assert_eq(reg[0].volume, r2[0].volume);
    cr_assert(fabs(reg[0].volume - 0.125) < 1e-15, "%.17g", reg[0].volume);
    // Point queries beyond the range are outside the solid, decided without leaving the predicates' exact range
    // (an assertion in tri_tri before; found by the mesh-creation fuzz harness).
    cr_assert_not(mc_mesh_contains_point(a, mc_v3(-1.06e307, 0.5, 0.5)));
    cr_assert(mc_mesh_contains_point(a, mc_v3(0.5, 0.5, 1e-310)) == mc_mesh_contains_point(a, mc_v3(0.5, 0.5, 0.0)));
    cr_assert(mc_mesh_contains_point(a, mc_v3(0.5, 0.5, 0.5)));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
}

// ---------------------------------------------------------------------------------------------------------------
// Files: non-regular, lying, malformed, too large

// Reproducer: a directory named x.ply made the reader ask for 2^63 - 1 bytes; a FIFO named .stl hung in fopen.
Test(bad_input, directories_and_fifos_are_refused_before_opening, .timeout = 20)
{
    char dir[512], fifo[512];
    snprintf(dir, sizeof dir, "%s/mc_bad_%d_dir.ply", tmp_dir(), (int)getpid());
    snprintf(fifo, sizeof fifo, "%s/mc_bad_%d_fifo.stl", tmp_dir(), (int)getpid());
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    mc_error err;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_import_file(dir, NULL, &m, NULL, &err), MC_ERR_IO);
    cr_assert_not_null(strstr(err.message, "directory"), "%s", err.message);
    cr_assert_eq(mc_mesh_import_file(fifo, NULL, &m, NULL, &err), MC_ERR_IO);
    cr_assert_not_null(strstr(err.message, "FIFO"), "%s", err.message);
    mc_mesh_report r;
    cr_assert_eq(mc_mesh_check_file(fifo, NULL, &r, &err), MC_ERR_IO);
    rmdir(dir);
    remove(fifo);
}

// Reproducer: "PK\3\4" and junk as .3mf leaked 96 bytes inside Assimp (exit 134 under the CI's LeakSanitizer); the
// native 3MF reader refuses it.
Test(bad_input, malformed_3mf_is_refused_without_a_leak)
{
    static const char junk[] = "PK\x03\x04junkjunkjunkjunkjunkjunkjunkjunk";
    char path[512];
    write_file(path, sizeof path, "junk.3mf", junk, sizeof junk - 1);
    mc_error err;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_import_file(path, NULL, &m, NULL, &err), MC_ERR_PARSE);
    cr_assert_not_null(strstr(err.message, "ZIP"), "%s", err.message);
    remove(path);
    // An end-of-central-directory record with ZIP64 markers and no ZIP64 locator (Assimp leaked on it too; found by
    // the 3MF fuzz harness).
    static const unsigned char zip64[22] = {'P',  'K',  5,    6,    0,    0,    0,    0,    0xff, 0xff, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0,    0};
    write_file(path, sizeof path, "zip64.3mf", zip64, sizeof zip64);
    cr_assert_eq(mc_mesh_import_file(path, NULL, &m, NULL, &err), MC_ERR_PARSE);
    cr_assert_not_null(strstr(err.message, "ZIP64"), "%s", err.message);
    remove(path);
}

Test(bad_input, lying_truncated_and_empty_files_are_errors_with_a_place)
{
    mc_error err;
    // Binary STL whose header claims 1000 triangles but holds one.
    unsigned char stl[84 + 50] = {0};
    stl[80] = 0xe8, stl[81] = 0x03;
    char path[512];
    write_file(path, sizeof path, "lying.stl", stl, sizeof stl);
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_import_file(path, NULL, &m, NULL, &err), MC_ERR_PARSE);
    cr_assert_not_null(strstr(err.message, "1000 triangles"), "%s", err.message);
    remove(path);
    cr_assert_eq(import_text("empty.obj", "", &err), MC_ERR_PARSE);
    cr_assert_eq(import_text("count.off", "OFF\n8 12 0\n0 0 0\n", &err), MC_ERR_PARSE);
    cr_assert_eq(import_text("index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", &err), MC_ERR_INDEX_OUT_OF_RANGE);
    cr_assert_eq(import_text("nan.obj", "v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &err), MC_ERR_NON_FINITE);
    cr_assert_not_null(strstr(err.message, "line 1"), "%s", err.message);
}

Test(bad_input, size_limits_are_checked_before_allocating)
{
    mc_error err;
    char path[512];
    const char* text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n";
    write_file(path, sizeof path, "limits.obj", text, strlen(text));
    mc_import_options opt = mc_default_import_options();
    mc_mesh* m = NULL;
    opt.max_triangles = 3;
    cr_assert_eq(mc_mesh_import_file(path, &opt, &m, NULL, &err), MC_ERR_LIMIT);
    cr_assert_not_null(strstr(err.message, path), "%s", err.message);
    opt = mc_default_import_options();
    opt.max_bytes = 10;
    cr_assert_eq(mc_mesh_import_file(path, &opt, &m, NULL, &err), MC_ERR_LIMIT);
    opt.max_bytes = 0; // not a limit: an error (the defaults are the way to say "generous")
    cr_assert_eq(mc_mesh_import_file(path, &opt, &m, NULL, &err), MC_ERR_INVALID_ARGUMENT);
    opt = mc_default_import_options();
    cr_assert_eq(mc_mesh_import_file(path, &opt, &m, NULL, &err), MC_OK, "%s", err.message);
    mc_mesh_destroy(m);
    remove(path);
}

// Reproducer: CHORD_TOLERANCE=1e-9 on a sphere grew past 2.7 GB. Now refused before any allocation.
Test(bad_input, tessellation_beyond_the_triangle_limit_is_refused_before_allocating)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.dims = mc_v3(0.05, 0.05, 0.05);
    d.chord_tolerance = 1e-9;
    int64_t before = mc_get_byte_count();
    mc_mesh* m = NULL;
    mc_error err;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, &err), MC_ERR_LIMIT);
    cr_assert_eq(mc_get_byte_count(), before);
    cr_assert_not_null(strstr(err.message, "67108864"), "%s", err.message);
    d.chord_tolerance = 1e-4;
    d.max_triangles = 100;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, &err), MC_ERR_LIMIT);
    d.max_triangles = 0;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, &err), MC_ERR_INVALID_ARGUMENT);
}

// ---------------------------------------------------------------------------------------------------------------
// Mesh topology: the outcome of every kind of broken solid

typedef struct topo_case
{
    const char* name;   // what it is
    const char* text;   // an OBJ file
    mc_status status;   // import with the defaults (closed required)
    bool contact_ready; // mc_mesh_check_file's verdict
} topo_case;

#define TET_V "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"

static const topo_case s_topo[] = {
    {"closed tetrahedron", TET_V "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n", MC_OK, true},
    {"inverted (inward) tetrahedron: reoriented", TET_V "f 1 2 3\nf 1 4 2\nf 2 4 3\nf 1 3 4\n", MC_OK, true},
    {"open: one face missing", TET_V "f 1 3 2\nf 1 2 4\nf 2 3 4\n", MC_ERR_MESH_NOT_CLOSED, false},
    {"one face flipped: inconsistent winding", TET_V "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 3 4\n", MC_ERR_MESH_NOT_CLOSED,
     false},
    {"non-manifold: a face used three times", TET_V "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 1 2 4\n",
     MC_ERR_MESH_NOT_CLOSED, false},
    {"only degenerate triangles", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", MC_ERR_EMPTY_MESH, false},
    {"unwelded copies of the corners (exact duplicates weld)",
     TET_V "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 5 6 8\nf 2 3 4\nf 1 4 3\n", MC_OK, true},
    {"corners off by 1e-9: open without a weld tolerance", TET_V "v 1e-9 0 0\nf 1 3 2\nf 5 2 4\nf 2 3 4\nf 1 4 3\n",
     MC_ERR_MESH_NOT_CLOSED, false},
    {"self-intersecting: two overlapping tetrahedra",
     TET_V "v .2 .2 .2\nv 1.2 .2 .2\nv .2 1.2 .2\nv .2 .2 1.2\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 5 7 6\nf 5 6 8\n"
           "f 6 7 8\nf 5 8 7\n",
     MC_ERR_SELF_INTERSECTING, false},
    {"nested: a tetrahedron inside another, wound the same way",
     TET_V "v .1 .1 .1\nv .35 .1 .1\nv .1 .35 .1\nv .1 .1 .35\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 5 7 6\nf 5 6 8\n"
           "f 6 7 8\nf 5 8 7\n",
     MC_ERR_SELF_INTERSECTING, false},
    {"a cavity: the inner tetrahedron wound inward",
     TET_V "v .1 .1 .1\nv .35 .1 .1\nv .1 .35 .1\nv .1 .1 .35\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 5 6 7\nf 5 8 6\n"
           "f 6 8 7\nf 5 7 8\n",
     MC_OK, true},
};

Test(bad_input, topology_matrix)
{
    for (size_t i = 0; i < sizeof s_topo / sizeof s_topo[0]; ++i)
    {
        const topo_case* c = &s_topo[i];
        char path[512];
        write_file(path, sizeof path, "topo.obj", c->text, strlen(c->text));
        mc_error err;
        memset(&err, 0, sizeof err);
        mc_mesh* m = NULL;
        mc_status st = mc_mesh_import_file(path, NULL, &m, NULL, &err);
        cr_expect_eq(st, c->status, "%s: status %d (%s), expected %d", c->name, st, err.message, c->status);
        mc_mesh_destroy(m);
        mc_mesh_report r;
        memset(&r, 0, sizeof r);
        mc_mesh_check_file(path, NULL, &r, &err);
        cr_expect_eq(r.contact_ready, c->contact_ready, "%s: contact_ready %d", c->name, r.contact_ready);
        remove(path);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Configurations: identical, inside, coplanar, pass-through

Test(bad_input, configuration_matrix)
{
    mc_mesh* a = cube_ok();
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose p0 = mc_pose_identity();
    struct
    {
        const char* name;
        mc_vec3 t;
        uint32_t regions;
        double volume;
    } cases[] = {
        {"identical: the whole cube", {0, 0, 0}, 1, 1.0},        {"coplanar faces, half overlap", {0.5, 0, 0}, 1, 0.5},
        {"touching face to face: no region", {1, 0, 0}, 0, 0.0}, {"separated", {2, 0, 0}, 0, 0.0},
        {"edge to edge overlap", {0.5, 0.5, 0}, 1, 0.25},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        mc_pose pj = mc_pose_identity();
        pj.p = cases[i].t;
        mc_region reg[4];
        uint32_t n = 0;
        cr_assert_eq(mc_query_regions(a, &p0, a, &pj, NULL, ws, reg, 4, &n, NULL), MC_OK);
        cr_expect_eq(n, cases[i].regions, "%s: %u regions", cases[i].name, n);
        if (n > 0)
        {
            // Exact inputs on a dyadic grid: the volume's rounding is a few ulps of 1.
            cr_expect(fabs(reg[0].volume - cases[i].volume) < 1e-14, "%s: volume %.17g", cases[i].name, reg[0].volume);
        }
    }
    // One cube entirely inside a bigger one (no crossing at all): the small cube's volume, no normal.
    mc_mesh* big = NULL;
    mc_error err;
    cr_assert_eq(cube_at(4.0, -1.5, 1.0, &big, &err), MC_OK);
    mc_region reg[4];
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(big, &p0, a, &p0, NULL, ws, reg, 4, &n, NULL), MC_OK);
    cr_assert_eq(n, 1);
    cr_assert(fabs(reg[0].volume - 1.0) < 1e-14);
    cr_assert_eq(reg[0].area, 0.0);
    mc_mesh_destroy(big);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
}

// ---------------------------------------------------------------------------------------------------------------
// Force parameters and results: NaN never leaves the library

static double nan_law(const mc_contact_kinematics* kin, const mc_force_model* model, void* user)
{
    (void)kin, (void)model, (void)user;
    return NAN;
}

// Reproducer: `force --mu-static 1e308` printed "ft": null.
Test(bad_input, overflowing_force_laws_are_errors_not_nan)
{
    mc_force_model m = mc_default_force_model();
    m.friction = MC_FRICTION_ON;
    m.mu_static = 1e308;
    m.mu_dynamic = 0.1;
    cr_assert_eq(mc_force_model_check(&m, NULL), MC_OK);
    mc_contact_kinematics k;
    memset(&k, 0, sizeof k);
    k.depth = 0.1;
    k.area = 1.0;
    k.volume = 0.1;
    k.radius = sqrt(1.0 / 3.14159);
    k.normal = mc_v3(0, 0, 1);
    k.slip_velocity = mc_v3(0.1, 0, 0); // inside the stiction ramp: mu near mu_static
    mc_contact_force f;
    cr_assert_eq(mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f), MC_ERR_OUT_OF_RANGE);
    cr_assert(f.rejected && f.normal_force == 0.0 && f.friction_force.x == 0.0);
    m = mc_default_force_model();
    m.normal_law = MC_NORMAL_USER;
    m.normal_fcn = nan_law;
    cr_assert_eq(mc_contact_force_evaluate(&m, &k, MC_ANALYSIS_DYNAMIC, &f), MC_ERR_OUT_OF_RANGE);
    // In a world: the evaluation fails, flags it and leaves no NaN in wrenches or records.
    mc_mesh* a = cube_ok();
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* w = NULL;
    cr_assert_eq(mc_world_create(&wd, &w), MC_OK);
    mc_body_def bd = mc_default_body_def();
    bd.mesh = a;
    mc_body_id ids[2];
    ids[0] = mc_world_create_body(w, &bd);
    bd.pose.p = mc_v3(0, 0, 0.9);
    bd.velocity.v = mc_v3(0.1, 0, 0);
    ids[1] = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &ids[0];
    cd.i_count = 1;
    cd.j_bodies = &ids[1];
    cd.j_count = 1;
    cd.model = mc_default_force_model();
    cd.model.friction = MC_FRICTION_ON;
    cd.model.mu_static = 1e308;
    cd.model.mu_dynamic = 0.1;
    mc_contact_id cid;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, NULL), MC_OK);
    cr_assert_eq(mc_world_evaluate(w), MC_ERR_OUT_OF_RANGE);
    cr_assert(mc_world_get_step_info(w).flags & MC_STEP_NON_FINITE);
    cr_assert_eq(mc_world_get_regions(w, NULL, 0), 0);
    cr_assert_eq(mc_world_get_step_info(w).regions, 0); // found by the world fuzz harness
    mc_wrench wr = mc_body_get_wrench(w, ids[1]);
    cr_assert(wr.force.x == 0.0 && wr.torque.y == 0.0);
    // A pose out of range is refused by the setter and leaves the body where it was.
    mc_pose far = mc_pose_identity();
    far.p.z = 1e30;
    cr_assert_eq(mc_body_set_pose(w, ids[1], &far), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_body_get_pose(w, ids[1]).p.z, 0.9);
    mc_world_destroy(w);
    mc_mesh_destroy(a);
}

// ---------------------------------------------------------------------------------------------------------------
// Simulator: step counts, inertia, tessellation from scenarios

static const char* s_scene_fmt = "ACCGRAV/KGRAV=-9.81\n"
                                 "PART/1, GROUND\n"
                                 "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                                 "PART/2, MASS=1, IP=%s, QG=0,0,0.1\n"
                                 "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=%s\n"
                                 "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=%s, EXPONENT=1.5\n"
                                 "%s\n"
                                 "SIMULATE/DYNAMIC, END=%s, STEPS=%s\n";

// Parse and create; @return true when both work, else false with the message in err. The scenario is kept in
// *scn (NULL when parsing failed) for scene_free.
static bool scene(const char* ip, const char* chord, const char* k, const char* integrator, const char* end,
                  const char* steps, app_scenario** scn, app_sim** sim, char* err, size_t cap)
{
    char text[2048];
    snprintf(text, sizeof text, s_scene_fmt, ip, chord, k, integrator, end, steps);
    app_scenario_error pe;
    *sim = NULL;
    *scn = NULL;
    if (!app_scenario_parse_string(text, "bad.scn", NULL, scn, &pe))
    {
        snprintf(err, cap, "%s", pe.message);
        return false;
    }
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    return app_sim_create(*scn, &opt, sim, err, cap);
}

static void scene_free(app_scenario* scn, app_sim* sim)
{
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}

// Reproducers: END=1e300 tripped an assertion in world.c; HMAX=1e-10 with END=1, STEPS=1 overflowed an int and ran a
// 1 s step (the ball fell through the plate); STIFFNESS=1e300 ran with 1e-3 instead of 1e-121.
Test(bad_input, simulation_step_counts_do_not_overflow)
{
    char err[700] = "";
    app_sim* sim = NULL;
    app_scenario* scn = NULL;
    const char* ip = "1e-3,1e-3,1e-3";
    // The step-count limit is RK4's (the fixed step); BDF takes the steps its error control needs.
    cr_assert_not(scene(ip, "1e-3", "1e8", "INTEGRATOR/RK4", "1e300", "1", &scn, &sim, err, sizeof err));
    cr_assert_not_null(strstr(err, "integration steps would be needed"), "%s", err);
    scene_free(scn, sim);
    cr_assert_not(scene(ip, "1e-3", "1e300", "INTEGRATOR/RK4", "0.5", "100", &scn, &sim, err, sizeof err));
    cr_assert_not_null(strstr(err, "integration steps would be needed"), "%s", err);
    scene_free(scn, sim);
    cr_assert(scene(ip, "1e-3", "1e8", "INTEGRATOR/RK4, HMAX=1e-10", "1", "1", &scn, &sim, err, sizeof err), "%s", err);
    cr_assert_eq(app_sim_get_substeps(sim), 10000000000ll);
    cr_assert(fabs(app_sim_get_step_size(sim) - 1e-10) <= 1e-25);
    scene_free(scn, sim);
}

// Reproducer: IP=1,1,10 (no rigid body has it) was accepted.
Test(bad_input, inertia_must_satisfy_the_triangle_inequality)
{
    char err[700] = "";
    app_sim* sim = NULL;
    app_scenario* scn = NULL;
    cr_assert_not(scene("1,1,10", "1e-3", "1e8", "", "0.1", "10", &scn, &sim, err, sizeof err));
    cr_assert_not_null(strstr(err, "triangle inequality"), "%s", err);
    scene_free(scn, sim);
    cr_assert_not(scene("1,1,1,0,0,0.6", "1e-3", "1e8", "", "0.1", "10", &scn, &sim, err, sizeof err));
    scene_free(scn, sim);
    // A flat plate (Izz = Ixx + Iyy, given with 7 digits) and a sphere are bodies.
    cr_assert(scene("1,2,3.000001", "1e-3", "1e8", "", "0.1", "10", &scn, &sim, err, sizeof err), "%s", err);
    scene_free(scn, sim);
    cr_assert(scene("1,1,1", "1e-3", "1e8", "", "0.1", "10", &scn, &sim, err, sizeof err), "%s", err);
    scene_free(scn, sim);
}

// Reproducer: CHORD_TOLERANCE=1e-9 in a scenario.
Test(bad_input, scenario_tessellation_beyond_the_limit_is_an_error)
{
    char err[700] = "";
    app_sim* sim = NULL;
    app_scenario* scn = NULL;
    cr_assert_not(scene("1e-3,1e-3,1e-3", "1e-9", "1e8", "", "0.1", "10", &scn, &sim, err, sizeof err));
    cr_assert_not_null(strstr(err, "MAX_TRIANGLES"), "%s", err);
    scene_free(scn, sim);
}
