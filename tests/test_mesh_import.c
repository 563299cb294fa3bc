// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the mesh readers (STL binary/ASCII, .shl, OBJ, OFF, glTF/GLB, 3MF, COLLADA, PLY through Assimp) on good and
// hostile files written at test time, and of every real mesh shipped in data/ against the table of data/README.md.
#include "mesh/mesh_internal.h"
#include "meshcontact/meshcontact.h"
#include "src/base/core.h"
#include "tests/zip_write.h"

#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const double s_cube_pos[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                        {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
static const uint32_t s_cube_tri[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                           {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
// The same cube as 6 outward quads (1-based for .shl/.obj, 0-based for .off: subtract 1).
static const int s_cube_quad[6][4] = {{1, 4, 3, 2}, {5, 6, 7, 8}, {1, 2, 6, 5},
                                      {2, 3, 7, 6}, {3, 4, 8, 7}, {4, 1, 5, 8}};

static char s_dir[256];
static size_t s_max_alloc;
static long s_calls, s_fail_at; // allocations counted; when s_fail_at is non-zero, that one (1-based) fails

static void* tracking_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    if (++s_calls == s_fail_at)
    {
        return NULL;
    }
    if (size > s_max_alloc)
    {
        s_max_alloc = size;
    }
    return malloc(size);
}

static void tracking_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

static void setup(void)
{
    const char* tmp = getenv("TMPDIR");
    snprintf(s_dir, sizeof s_dir, "%s/mc_import_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : ".");
    cr_assert(ne(ptr, mkdtemp(s_dir), NULL));
    s_max_alloc = 0;
    mc_set_allocator(tracking_alloc, tracking_free);
}

static void teardown(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    cr_assert(eq(int, system(cmd), 0));
    cr_assert(eq(i64, mc_get_byte_count(), 0));
    mc_set_allocator(NULL, NULL);
}

TestSuite(import, .init = setup, .fini = teardown);

static const char* file_path(const char* name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", s_dir, name);
    return path;
}

static const char* write_file(const char* name, const void* data, size_t size)
{
    const char* path = file_path(name);
    FILE* f = fopen(path, "wb");
    cr_assert(ne(ptr, f, NULL));
    cr_assert(eq(sz, fwrite(data, 1, size, f), size));
    fclose(f);
    return path;
}

static const char* write_text(const char* name, const char* text)
{
    return write_file(name, text, strlen(text));
}

// Binary STL of the cube; header text and a count override (UINT32_MAX: the true count) for hostile variants.
static size_t make_binary_stl(unsigned char* buf, const char* header, uint32_t count)
{
    memset(buf, 0, 84);
    memcpy(buf, header, strlen(header));
    uint32_t n = count == UINT32_MAX ? 12 : count;
    memcpy(buf + 80, &n, 4); // the test machine is little-endian like the format
    unsigned char* p = buf + 84;
    for (int t = 0; t < 12; ++t, p += 50)
    {
        memset(p, 0, 50);
        for (int k = 0; k < 3; ++k)
        {
            for (int c = 0; c < 3; ++c)
            {
                float f = (float)s_cube_pos[s_cube_tri[t][k]][c];
                memcpy(p + 12 + 12 * k + 4 * c, &f, 4);
            }
        }
    }
    return 84 + 50 * 12;
}

static mc_status check(const char* path, mc_mesh_report* r, mc_error* e)
{
    memset(e, 0, sizeof *e);
    return mc_mesh_check_file(path, NULL, r, e);
}

static void assert_message_has(const mc_error* e, const char* what)
{
    cr_assert(ne(ptr, strstr(e->message, what), NULL), "message '%s' lacks '%s'", e->message, what);
}

// ---------------------------------------------------------------------------------------------------------------
// STL

Test(import, binary_stl_cube)
{
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "test cube", UINT32_MAX);
    const char* path = write_file("cube.stl", buf, n);
    mc_mesh* m = NULL;
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, mc_mesh_import_file(path, NULL, &m, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(eq(u32, r.vertices, 8));
    cr_assert(r.closed && r.oriented && r.contact_ready);
    cr_assert(eq(dbl, r.volume, 8.0)); // small integers: exact
    mc_mesh_destroy(m);
}

Test(import, binary_stl_whose_header_starts_with_solid_is_binary)
{
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "solid cube exported by a careless tool", UINT32_MAX);
    const char* path = write_file("solid.stl", buf, n);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(r.closed);
}

Test(import, binary_stl_with_bytes_after_its_last_triangle_is_read_and_the_tail_reported)
{
    const char* headers[2] = {"cube with a tail", "solid cube with a tail"}; // the second is tried as ASCII first
    for (int h = 0; h < 2; ++h)
    {
        unsigned char buf[1024];
        size_t n = make_binary_stl(buf, headers[h], UINT32_MAX);
        memcpy(buf + n, "\0\0tail!", 7);
        const char* path = write_file(h == 0 ? "tail.stl" : "solid_tail.stl", buf, n + 7);
        mc_mesh* m = NULL;
        mc_mesh_report r;
        mc_error e;
        cr_assert(eq(int, mc_mesh_import_file(path, NULL, &m, &r, &e), MC_OK), "%s: %s", headers[h], e.message);
        cr_assert(eq(u32, r.input_triangles, 12));
        cr_assert(eq(u64, r.trailing_bytes, 7));
        cr_assert(r.closed && r.oriented && r.contact_ready);
        cr_assert(eq(dbl, r.volume, 8.0));
        cr_assert(eq(u64, mc_mesh_get_report(m)->trailing_bytes, 7), "the mesh keeps the warning in its report");
        mc_mesh_destroy(m);
    }
    // An exact binary file reports no tail.
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "cube", UINT32_MAX);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_file("exact.stl", buf, n), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u64, r.trailing_bytes, 0));
}

Test(import, truncated_binary_stl_names_both_sizes)
{
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "cube", UINT32_MAX);
    const char* path = write_file("trunc.stl", buf, n - 10);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "12 triangles");
    assert_message_has(&e, "684 bytes"); // 84 + 50 * 12
    assert_message_has(&e, "674 bytes");
    assert_message_has(&e, "trunc.stl");
    // the same with a header starting with "solid": tried as ASCII, the error still gives the binary sizes
    make_binary_stl(buf, "solid but binary", UINT32_MAX);
    path = write_file("trunc_solid.stl", buf, n - 10);
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "684 bytes");
    assert_message_has(&e, "line 1");
}

Test(import, binary_stl_claiming_2pow31_triangles_allocates_nothing_big)
{
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "liar", 1u << 31);
    const char* path = write_file("liar.stl", buf, n);
    mc_mesh_report r;
    mc_error e;
    s_max_alloc = 0;
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "2147483648 triangles");
    cr_assert(lt(sz, s_max_alloc, (size_t)4096), "largest allocation %zu", s_max_alloc);
}

Test(import, binary_stl_with_nan_reports_offset)
{
    unsigned char buf[1024];
    size_t n = make_binary_stl(buf, "nan", UINT32_MAX);
    float nan = NAN;
    memcpy(buf + 84 + 50 * 3 + 12 + 4, &nan, 4); // triangle 3, first vertex, y
    const char* path = write_file("nan.stl", buf, n);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_NON_FINITE));
    cr_assert(eq(i64, e.offset, 84 + 50 * 3 + 12 + 4));
}

Test(import, binary_stl_with_zero_triangles_is_empty)
{
    unsigned char buf[1024];
    make_binary_stl(buf, "empty", 0); // also writes 12 triangles after the header; only the header is saved
    const char* path = write_file("zero.stl", buf, 84);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_EMPTY_MESH));
}

Test(import, empty_files_are_errors)
{
    const char* names[] = {"e.stl", "e.shl", "e.obj", "e.off", "e.ply"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    {
        const char* path = write_file(names[i], "", 0);
        mc_mesh_report r;
        mc_error e;
        mc_status st = check(path, &r, &e);
        cr_assert(lt(int, st, 0), "%s accepted", names[i]);
        cr_assert(ne(ptr, strstr(e.message, names[i]), NULL), "%s", e.message);
    }
}

// ASCII cube: every facet, in two solids, with CRLF line ends, tabs and trailing spaces.
static void ascii_cube(char* out, size_t cap, bool crlf, int split_solid_at, bool quad_top)
{
    size_t n = 0;
    const char* eol = crlf ? "\r\n" : "\n";
    n += (size_t)snprintf(out + n, cap - n, "solid first %s", eol);
    for (int t = 0; t < 12; ++t)
    {
        if (t == split_solid_at)
        {
            n += (size_t)snprintf(out + n, cap - n, "endsolid first%s  solid second%s", eol, eol);
        }
        if (quad_top && t == 3)
        {
            continue; // triangle 2 became the quad 4 5 6 7
        }
        n += (size_t)snprintf(out + n, cap - n, "\tfacet normal 0 0 0   %s\t\touter loop%s", eol, eol);
        for (int k = 0; k < 3; ++k)
        {
            const double* p = s_cube_pos[s_cube_tri[t][k]];
            n += (size_t)snprintf(out + n, cap - n, "\t\t\tvertex %g\t%g %g  %s", p[0], p[1], p[2], eol);
        }
        if (quad_top && t == 2)
        {
            const double* p = s_cube_pos[7];
            n += (size_t)snprintf(out + n, cap - n, "\t\t\tvertex %g %g %g%s", p[0], p[1], p[2], eol);
        }
        n += (size_t)snprintf(out + n, cap - n, "\t\tendloop%s\tendfacet%s", eol, eol);
    }
    n += (size_t)snprintf(out + n, cap - n, "endsolid second %s", eol);
}

Test(import, ascii_stl_crlf_tabs_trailing_spaces_two_solids)
{
    static char text[8192];
    ascii_cube(text, sizeof text, true, 5, false);
    const char* path = write_text("ascii.stl", text);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(r.closed && r.contact_ready);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
}

Test(import, ascii_stl_quad_facet_is_fan_split)
{
    static char text[8192];
    ascii_cube(text, sizeof text, false, -1, true);
    const char* path = write_text("quad.stl", text);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.split_polygons, 1));
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(r.closed);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
}

Test(import, ascii_stl_errors_have_line_numbers)
{
    static char text[8192];
    ascii_cube(text, sizeof text, false, -1, false);
    mc_mesh_report r;
    mc_error e;
    // truncated in the middle of facet 2 (line 2 + 7 * 2 = 16 is its first vertex)
    char* cut = text;
    for (int line = 0; line < 16; ++line)
    {
        cut = strchr(cut, '\n') + 1;
    }
    *cut = '\0';
    const char* path = write_text("trunc_ascii.stl", text);
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "end of file");
    cr_assert(eq(i64, e.line, 16));

    path = write_text("nan.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 nan 0\nvertex 0 1 "
                                 "0\nendloop\nendfacet\nendsolid x\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_NON_FINITE));
    cr_assert(eq(i64, e.line, 5));
    path = write_text("inf.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 1e999 0\nvertex 0 1 "
                                 "0\nendloop\nendfacet\nendsolid x\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_NON_FINITE));
    path = write_text(
        "two.stl",
        "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 6));
    path = write_text("junk.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 4));
    assert_message_has(&e, "zero");
    path = write_text("noend.stl", "solid x\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
    path = write_text("text.stl", "hello world\n");
    cr_assert(eq(int, check(path, &r, &e), MC_ERR_PARSE));
}

// ---------------------------------------------------------------------------------------------------------------
// Adams .shl

static void shl_cube(char* out, size_t cap, const char* version, const char* header, const char* eol, int n_faces,
                     const char* trailer)
{
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "%s%s%s", version, header, eol);
    for (int i = 0; i < 8; ++i)
    {
        n += (size_t)snprintf(out + n, cap - n, "%g %g %g  %s", s_cube_pos[i][0], s_cube_pos[i][1], s_cube_pos[i][2],
                              eol);
    }
    for (int f = 0; f < n_faces; ++f)
    {
        n += (size_t)snprintf(out + n, cap - n, "4 %d %d %d %d %s", s_cube_quad[f][0], s_cube_quad[f][1],
                              s_cube_quad[f][2], s_cube_quad[f][3], eol);
    }
    n += (size_t)snprintf(out + n, cap - n, "%s", trailer);
}

Test(import, shl_quads_crlf_and_file_scale)
{
    char text[4096];
    shl_cube(text, sizeof text, "", "8 6 0.001", "\r\n", 6, "");
    const char* path = write_text("cube.shl", text);
    mc_import_options o = mc_default_import_options();
    o.scale = 2.0;
    mc_mesh* m = NULL;
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, mc_mesh_import_file(path, &o, &m, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(eq(u32, r.split_polygons, 6));
    cr_assert(eq(dbl, r.scale, 0.002));
    cr_assert(eq(dbl, m->scale, 0.002));
    // (2 * 0.002)^3 with a few roundings
    cr_assert(ieee_ulp_eq(dbl, r.volume, 6.4e-8, 16));
    mc_mesh_destroy(m);
}

Test(import, shl_version_2_skips_trailing_normals)
{
    char text[4096];
    shl_cube(text, sizeof text, "Version: 2\n", "8 6 1 6", "\n", 6, "0 0 -1\n0 0 1\n0 -1 0\n1 0 0\n0 1 0\n-1 0 0\n");
    const char* path = write_text("v2.shl", text);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
    cr_assert(r.closed);
}

Test(import, shl_hostile_files)
{
    char text[4096];
    mc_mesh_report r;
    mc_error e;
    // more faces announced than present: truncation
    shl_cube(text, sizeof text, "", "8 7 1", "\n", 6, "");
    cr_assert(eq(int, check(write_text("a.shl", text), &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "promises 7 faces");
    // fewer points announced than present: a point line shows up where a face should be
    shl_cube(text, sizeof text, "", "7 6 1", "\n", 6, "");
    cr_assert(eq(int, check(write_text("b.shl", text), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 9));
    // more points announced than present
    shl_cube(text, sizeof text, "", "9 6 1", "\n", 6, "");
    cr_assert(eq(int, check(write_text("c.shl", text), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 10));
    // fewer faces announced: extra content
    shl_cube(text, sizeof text, "", "8 5 1", "\n", 6, "");
    cr_assert(eq(int, check(write_text("d.shl", text), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 15));
    // index out of range (0 and n + 1)
    cr_assert(eq(int, check(write_text("e.shl", "3 1 1\n0 0 0\n1 0 0\n0 1 0\n3 1 2 4\n"), &r, &e),
                 MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(eq(i64, e.line, 5));
    cr_assert(eq(int, check(write_text("f.shl", "3 1 1\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"), &r, &e),
                 MC_ERR_INDEX_OUT_OF_RANGE));
    // face count that lies
    cr_assert(eq(int, check(write_text("g.shl", "3 1 1\n0 0 0\n1 0 0\n0 1 0\n4 1 2 3\n"), &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "says 4 vertices but lists 3");
    cr_assert(eq(int, check(write_text("h.shl", "3 1 1\n0 0 0\n1 0 0\n0 1 0\n2 1 2\n"), &r, &e), MC_ERR_PARSE));
    // NaN, bad scale, huge counts in a tiny file
    cr_assert(
        eq(int, check(write_text("i.shl", "3 1 1\n0 0 0\n1 NaN 0\n0 1 0\n3 1 2 3\n"), &r, &e), MC_ERR_NON_FINITE));
    cr_assert(eq(i64, e.line, 3));
    cr_assert(eq(int, check(write_text("j.shl", "3 1 -1\n0 0 0\n1 0 0\n0 1 0\n3 1 2 3\n"), &r, &e), MC_ERR_PARSE));
    s_max_alloc = 0;
    cr_assert(eq(int, check(write_text("k.shl", "2000000000 2000000000 1\n0 0 0\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(lt(sz, s_max_alloc, (size_t)1 << 20));
    cr_assert(eq(int, check(write_text("l.shl", "Version: 3\n3 1 1 0\n"), &r, &e), MC_ERR_PARSE));
}

// ---------------------------------------------------------------------------------------------------------------
// OBJ, OFF (native) and PLY (Assimp)

// Tolerant number and name forms: a solid name with blanks, exponents in every C form and Fortran's D exponent,
// in an ASCII STL and an OBJ; a Fortran exponent without digits, or text after a number, is still an error.
Test(import, scientific_notation_variants_and_solid_names_with_blanks)
{
    static const char* const forms[] = {"%.1f", "%.3e", "%.2E", "%.1fD+00", "%.1fd0", "%.4gE+000"};
    static char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "solid Part 7 of bracket (rev B)\n");
    for (int t = 0; t < 12; ++t)
    {
        n += (size_t)snprintf(text + n, sizeof text - n, "facet normal 0.0E+00 0D0 0e0\nouter loop\n");
        for (int k = 0; k < 3; ++k)
        {
            const double* p = s_cube_pos[s_cube_tri[t][k]];
            char c[3][32];
            for (int a = 0; a < 3; ++a)
            {
                snprintf(c[a], sizeof c[a], forms[(t + k + a) % 6], p[a]);
            }
            n += (size_t)snprintf(text + n, sizeof text - n, "vertex %s %s %s\n", c[0], c[1], c[2]);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "endloop\nendfacet\n");
    }
    snprintf(text + n, sizeof text - n, "endsolid Part 7 of bracket (rev B)\n");
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("forms.stl", text), &r, &e), MC_OK), "%s", e.message);
    cr_assert(r.closed && r.contact_ready);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
    cr_assert(eq(int,
                 check(write_text("forms.obj", "v 1D0 0 0\nv 0 1.0d+0 0\nv 0 0 1.0D-0\nv 0 0 0\n"
                                               "f 1 2 3\nf 1 4 2\nf 2 4 3\nf 3 4 1\n"),
                       &r, &e),
                 MC_OK),
              "%s", e.message);
    cr_assert(epsilon_eq(dbl, r.signed_volume_as_read, 1.0 / 6.0, 1e-15));
    cr_assert(eq(int, check(write_text("bad_d.obj", "v 1D 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(int, check(write_text("bad_x.obj", "v 1e0x 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n"), &r, &e), MC_ERR_PARSE));
}

Test(import, obj_quads_slashes_and_negative_indices)
{
    char text[4096];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "# cube\r\no cube\r\n");
    for (int i = 0; i < 8; ++i)
    {
        n += (size_t)snprintf(text + n, sizeof text - n, "v %g %g %g \r\n", s_cube_pos[i][0], s_cube_pos[i][1],
                              s_cube_pos[i][2]);
    }
    n += (size_t)snprintf(text + n, sizeof text - n, "vn 0 0 1\nvt 0 0\n");
    for (int f = 0; f < 6; ++f)
    {
        const int* q = s_cube_quad[f];
        if (f == 0)
        {
            n += (size_t)snprintf(text + n, sizeof text - n, "f %d//1 %d//1 %d//1 %d//1\n", q[0], q[1], q[2], q[3]);
        }
        else if (f == 1)
        {
            n += (size_t)snprintf(text + n, sizeof text - n, "f %d %d %d %d\n", q[0] - 9, q[1] - 9, q[2] - 9, q[3] - 9);
        }
        else
        {
            n += (size_t)snprintf(text + n, sizeof text - n, "f %d/1/1 %d/1/1 %d/1/1 %d/1/1\n", q[0], q[1], q[2], q[3]);
        }
    }
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("cube.obj", text), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(eq(u32, r.split_polygons, 6));
    cr_assert(r.closed && r.contact_ready);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
}

Test(import, obj_hostile_files)
{
    mc_mesh_report r;
    mc_error e;
    cr_assert(
        eq(int, check(write_text("a.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"), &r, &e), MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(eq(i64, e.line, 4));
    cr_assert(eq(int, check(write_text("b.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n"), &r, &e),
                 MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(eq(int, check(write_text("c.obj", "v 0 0 0\nv 1 inf 0\nv 0 1 0\nf 1 2 3\n"), &r, &e), MC_ERR_NON_FINITE));
    cr_assert(eq(i64, e.line, 2));
    cr_assert(eq(int, check(write_text("d.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(int, check(write_text("e.obj", "v 0 0\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(int, check(write_text("f.obj", "v 0 0 0\n"), &r, &e), MC_ERR_EMPTY_MESH));
    cr_assert(eq(int, check(write_text("g.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 x 3\n"), &r, &e), MC_ERR_PARSE));
}

// Two overlapping cubes in one OBJ file ([0, 1]^3 and [0.5, 1.5]^3): the check reports the intersecting pairs, the
// import refuses the mesh with the path and the counts, unless the options accept or skip the self-check.
Test(import, self_intersecting_file_is_checked_and_refused_unless_accepted)
{
    char text[2048];
    int n = 0;
    for (int k = 0; k < 2; ++k)
    {
        for (int i = 0; i < 8; ++i)
        {
            n += snprintf(text + n, sizeof text - (size_t)n, "v %g %g %g\n", 0.5 * (s_cube_pos[i][0] + 1.0) + 0.5 * k,
                          0.5 * (s_cube_pos[i][1] + 1.0) + 0.5 * k, 0.5 * (s_cube_pos[i][2] + 1.0) + 0.5 * k);
        }
    }
    for (int k = 0; k < 2; ++k)
    {
        for (int t = 0; t < 12; ++t)
        {
            n += snprintf(text + n, sizeof text - (size_t)n, "f %u %u %u\n", s_cube_tri[t][0] + 1u + 8u * (uint32_t)k,
                          s_cube_tri[t][1] + 1u + 8u * (uint32_t)k, s_cube_tri[t][2] + 1u + 8u * (uint32_t)k);
        }
    }
    const char* path = write_text("two_cubes.obj", text);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(path, &r, &e), MC_OK));
    cr_assert(r.closed && r.oriented && r.self_checked && r.contact_ready == false && r.self_check_accepted == false);
    cr_assert(gt(u64, r.self_intersecting_pairs, 0));
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_import_file(path, NULL, &m, &r, &e), MC_ERR_SELF_INTERSECTING));
    cr_assert(eq(ptr, m, NULL));
    cr_assert(eq(int, strncmp(e.message, path, strlen(path)), 0));
    assert_message_has(&e, "mesh intersects itself: ");
    mc_import_options opt = mc_default_import_options();
    opt.self_check = MC_SELF_CHECK_ACCEPT;
    cr_assert(eq(int, mc_mesh_import_file(path, &opt, &m, &r, &e), MC_OK));
    cr_assert(r.self_check_accepted && r.contact_ready == false);
    mc_mesh_destroy(m);
    opt.self_check = MC_SELF_CHECK_SKIP;
    cr_assert(eq(int, mc_mesh_check_file(path, &opt, &r, &e), MC_OK));
    cr_assert(r.self_checked == false && r.contact_ready && r.self_intersecting_pairs == 0);
}

Test(import, off_quads_and_hostile_files)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "OFF\n# comment\n8 6 12\n");
    for (int i = 0; i < 8; ++i)
    {
        n += (size_t)snprintf(text + n, sizeof text - n, "%g %g %g\r\n", s_cube_pos[i][0], s_cube_pos[i][1],
                              s_cube_pos[i][2]);
    }
    for (int f = 0; f < 6; ++f)
    {
        const int* q = s_cube_quad[f];
        n += (size_t)snprintf(text + n, sizeof text - n, "4 %d %d %d %d \n", q[0] - 1, q[1] - 1, q[2] - 1, q[3] - 1);
    }
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("cube.off", text), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(eq(u32, r.split_polygons, 6));
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
    cr_assert(eq(int, check(write_text("a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"), &r, &e),
                 MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(eq(i64, e.line, 6));
    cr_assert(eq(int, check(write_text("b.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"), &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "promises 2 faces");
    cr_assert(eq(int, check(write_text("c.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(int, check(write_text("d.off", "PLY\n"), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(int, check(write_text("e.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 -nan 0\n3 0 1 2\n"), &r, &e),
                 MC_ERR_NON_FINITE));
}

Test(import, ply_through_assimp_with_quads)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                                "property float z\nelement face 6\nproperty list uchar int vertex_indices\n"
                                "end_header\n");
    for (int i = 0; i < 8; ++i)
    {
        n += (size_t)snprintf(text + n, sizeof text - n, "%g %g %g\n", s_cube_pos[i][0], s_cube_pos[i][1],
                              s_cube_pos[i][2]);
    }
    for (int f = 0; f < 6; ++f)
    {
        const int* q = s_cube_quad[f];
        n += (size_t)snprintf(text + n, sizeof text - n, "4 %d %d %d %d\n", q[0] - 1, q[1] - 1, q[2] - 1, q[3] - 1);
    }
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("cube.ply", text), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(eq(u32, r.split_polygons, 6));
    cr_assert(r.closed && r.oriented);
    cr_assert(eq(dbl, r.signed_volume_as_read, 8.0));
    // garbage with a PLY extension: an error, never a crash
    cr_assert(lt(
        int, check(write_text("bad.ply", "ply\nformat ascii 1.0\nelement vertex 99\nend_header\n1 2\n"), &r, &e), 0));
}

Test(import, malformed_ply_headers_are_rejected_before_assimp)
{
    mc_mesh_report r;
    mc_error e;
    // Assimp 5.2 loops forever on this one (found by fuzzing): a typo in 'element' and in 'end_header'.
    const char* bad = "ply\nformat ascii 1.0\nelement vertex)8\nproperty float x\nproperty float y\nproperty float "
                      "z\nelement face 1\nproperty list uchar int vertex_indices\nen_header\n0 0 0\n";
    cr_assert(eq(int, check(write_text("loop.ply", bad), &r, &e), MC_ERR_PARSE));
    cr_assert(eq(i64, e.line, 3));
    // counts that cannot fit in the file
    const char* liar = "ply\nformat binary_little_endian 1.0\nelement vertex 2000000000\nproperty float x\nproperty "
                       "float y\nproperty float z\nend_header\n";
    s_max_alloc = 0;
    cr_assert(eq(int, check(write_text("liar.ply", liar), &r, &e), MC_ERR_PARSE));
    assert_message_has(&e, "24000000000 bytes");
    cr_assert(lt(sz, s_max_alloc, (size_t)1 << 20));
}

Test(import, written_shl_and_stl_read_back)
{
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = &s_cube_pos[0][0];
    d.vertex_count = 8;
    d.indices = &s_cube_tri[0][0];
    d.triangle_count = 12;
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create(&d, &m, NULL, NULL), MC_OK));
    mc_error e;
    const char* shl = file_path("out.shl");
    cr_assert(eq(int, mc_mesh_write_shl(m, shl, 0.001, &e), MC_OK), "%s", e.message);
    mc_mesh_report r;
    cr_assert(eq(int, check(shl, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(dbl, r.scale, 0.001));
    cr_assert(eq(u32, r.input_triangles, 12));
    cr_assert(r.contact_ready);
    cr_assert(ieee_ulp_eq(dbl, r.volume, 8e-9, 16)); // (0.002)^3, a few roundings
    const char* stl = file_path("out.stl");
    cr_assert(eq(int, mc_mesh_write_stl(m, stl, &e), MC_OK), "%s", e.message);
    cr_assert(eq(int, check(stl, &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.vertices, 8));
    cr_assert(eq(dbl, r.volume, 8.0)); // +-1 are exact in float
    mc_mesh_destroy(m);
}

static void base64(const unsigned char* in, size_t n, char* out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3)
    {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
}

// A glTF document: one cube mesh (float positions, unsigned short indices, in a base64 data URI) instanced by two
// nodes, one translated by +10 in x, one by -10 and mirrored (scale -1 in x).
// With `glb` set, the buffer has no URI and its 168 bytes are copied to glb (a binary glTF's BIN chunk).
static void cube_gltf(char* json, size_t cap, unsigned char* glb)
{
    unsigned char bin[96 + 72];
    for (int i = 0; i < 8; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            float f = (float)s_cube_pos[i][k];
            memcpy(bin + 12 * i + 4 * k, &f, 4);
        }
    }
    for (int t = 0; t < 12; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            uint16_t v = (uint16_t)s_cube_tri[t][k];
            memcpy(bin + 96 + 6 * t + 2 * k, &v, 2);
        }
    }
    char b64[256], uri[320] = "";
    base64(bin, sizeof bin, b64);
    if (glb != NULL)
    {
        memcpy(glb, bin, sizeof bin);
    }
    else
    {
        snprintf(uri, sizeof uri, ",\"uri\":\"data:application/octet-stream;base64,%s\"", b64);
    }
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"mesh\":0,\"translation\":[10,0,0]},{\"mesh\":0,\"translation\":[-10,0,0],"
             "\"scale\":[-1,1,1]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"buffers\":[{\"byteLength\":168%s}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},"
             "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":72}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,\"type\":\"VEC3\","
             "\"min\":[-1,-1,-1],\"max\":[1,1,1]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"}]}",
             uri);
}

// glTF (native reader): the two cube instances merged must be two outward cubes (the mirrored instance's winding is
// reversed on import).
Test(import, gltf_node_transforms_and_mirroring)
{
    static char json[4096];
    cube_gltf(json, sizeof json, NULL);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("cubes.gltf", json), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 24));
    cr_assert(eq(u32, r.components, 2));
    cr_assert(r.closed && r.oriented && r.contact_ready);
    cr_assert(r.reoriented == false);
    cr_assert(eq(u32, r.inward_components, 0));
    cr_assert(eq(dbl, r.signed_volume_as_read, 16.0)); // small integers: exact
    cr_assert(eq(dbl, r.bbox_min.x, -11.0));
    cr_assert(eq(dbl, r.bbox_max.x, 11.0));
}

static size_t make_glb(unsigned char* out, const char* json, const unsigned char* bin, uint32_t bin_size);
static void cube_3mf_model(char* out, size_t cap);
static size_t make_3mf(unsigned char* out, const char* model, const char* rels);
static const char* const s_3mf_rels;
static void dae_document(char* o, size_t cap);

// Every allocation of an import failing in turn (native STL, ASCII STL, OBJ, OFF, glTF, GLB, 3MF, COLLADA and, through
// Assimp, PLY; Assimp's own C++ allocations are not ours; the suite's tracking allocator fails the s_fail_at-th one):
// MC_ERR_OUT_OF_MEMORY with a message, no mesh, nothing left allocated.
Test(import, every_allocation_failure_is_reported_and_leaks_nothing)
{
    unsigned char stl[84 + 50 * 12];
    char ascii[4096], obj[1024], off[1024], ply[1024];
    make_binary_stl(stl, "cube", UINT32_MAX);
    ascii_cube(ascii, sizeof ascii, false, -1, false);
    size_t no = (size_t)snprintf(obj, sizeof obj, "o cube\n");
    size_t nf = (size_t)snprintf(off, sizeof off, "OFF\n8 6 0\n");
    size_t np = (size_t)snprintf(ply, sizeof ply,
                                 "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                                 "property float z\nelement face 6\nproperty list uchar int vertex_indices\n"
                                 "end_header\n");
    for (int i = 0; i < 8; ++i)
    {
        const double* v = s_cube_pos[i];
        no += (size_t)snprintf(obj + no, sizeof obj - no, "v %g %g %g\n", v[0], v[1], v[2]);
        nf += (size_t)snprintf(off + nf, sizeof off - nf, "%g %g %g\n", v[0], v[1], v[2]);
        np += (size_t)snprintf(ply + np, sizeof ply - np, "%g %g %g\n", v[0], v[1], v[2]);
    }
    for (int f = 0; f < 6; ++f)
    {
        const int* q = s_cube_quad[f];
        no += (size_t)snprintf(obj + no, sizeof obj - no, "f %d %d %d %d\n", q[0], q[1], q[2], q[3]);
        nf += (size_t)snprintf(off + nf, sizeof off - nf, "4 %d %d %d %d\n", q[0] - 1, q[1] - 1, q[2] - 1, q[3] - 1);
        np += (size_t)snprintf(ply + np, sizeof ply - np, "4 %d %d %d %d\n", q[0] - 1, q[1] - 1, q[2] - 1, q[3] - 1);
    }
    static char keep[9][512]; // file_path returns one static buffer: keep copies
    snprintf(keep[0], sizeof keep[0], "%s", write_file("cube.stl", stl, sizeof stl));
    snprintf(keep[1], sizeof keep[1], "%s", write_text("ascii.stl", ascii));
    snprintf(keep[2], sizeof keep[2], "%s", write_text("cube.obj", obj));
    snprintf(keep[3], sizeof keep[3], "%s", write_text("cube.off", off));
    snprintf(keep[4], sizeof keep[4], "%s", write_text("cube.ply", ply));
    // glTF (data URI), GLB (BIN chunk) and 3MF (stored ZIP entries), natively read.
    static char json[4096], model[8192];
    static unsigned char bin[168], glb[8192], zip[16384];
    cube_gltf(json, sizeof json, NULL);
    snprintf(keep[5], sizeof keep[5], "%s", write_text("cube.gltf", json));
    cube_gltf(json, sizeof json, bin);
    snprintf(keep[6], sizeof keep[6], "%s", write_file("cube.glb", glb, make_glb(glb, json, bin, sizeof bin)));
    cube_3mf_model(model, sizeof model);
    snprintf(keep[7], sizeof keep[7], "%s", write_file("cube.3mf", zip, make_3mf(zip, model, s_3mf_rels)));
    static char dae[16384];
    dae_document(dae, sizeof dae);
    snprintf(keep[8], sizeof keep[8], "%s", write_text("parts.dae", dae));
    for (int f = 0; f < 9; ++f)
    {
        mc_mesh* m = NULL;
        mc_error e;
        s_fail_at = 0;
        s_calls = 0;
        cr_assert(eq(int, mc_mesh_import_file(keep[f], NULL, &m, NULL, &e), MC_OK), "%s: %s", keep[f], e.message);
        long calls = s_calls, quiet = 0;
        mc_mesh_destroy(m);
        cr_assert(eq(i64, mc_get_byte_count(), 0));
        for (long k = 1; k <= calls; ++k)
        {
            m = NULL;
            memset(&e, 0, sizeof e);
            s_calls = 0;
            s_fail_at = k;
            mc_status st = mc_mesh_import_file(keep[f], NULL, &m, NULL, &e);
            s_fail_at = 0;
            if (st == MC_OK)
            {
                // Only the tree build's final shrink may fail quietly (the mesh keeps the larger block): one
                // allocation per file, the last but one or last, or earlier when the self-intersection check of a
                // mesh of several components allocates after the build (the glTF, GLB and 3MF files: two cubes).
                cr_assert(ne(ptr, m, NULL));
                mc_mesh_destroy(m);
                quiet++;
                cr_assert(quiet == 1 && (f >= 5 || k >= calls - 1), "%s: failure %ld of %ld ignored", keep[f], k,
                          calls);
            }
            else
            {
                cr_assert(eq(int, st, MC_ERR_OUT_OF_MEMORY), "%s, allocation %ld of %ld: %s", keep[f], k, calls,
                          e.message);
                cr_assert(m == NULL && e.message[0] != '\0', "%s, allocation %ld: no message", keep[f], k);
            }
            cr_assert(eq(i64, mc_get_byte_count(), 0), "%s, allocation %ld: bytes left", keep[f], k);
        }
    }
}

Test(import, unsupported_extension_and_missing_file)
{
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("mesh.xyz", "1 2 3\n"), &r, &e), MC_ERR_UNSUPPORTED_FORMAT));
    assert_message_has(&e, ".xyz");
    cr_assert(eq(int, check(write_text("noext", "1 2 3\n"), &r, &e), MC_ERR_UNSUPPORTED_FORMAT));
    cr_assert(eq(int, check(file_path("missing.stl"), &r, &e), MC_ERR_IO));
    assert_message_has(&e, "missing.stl");
}

// ---------------------------------------------------------------------------------------------------------------
// The real meshes of data/

typedef struct manifest_row
{
    char file[160];
    unsigned triangles;
    bool closed;
    bool oriented;
    char volume[32];
} manifest_row;

static int read_manifest(const char* path, manifest_row* rows, int cap)
{
    FILE* f = fopen(path, "r");
    cr_assert(ne(ptr, f, NULL), "cannot open %s", path);
    char line[2048];
    int n = 0;
    bool in_table = false;
    while (fgets(line, sizeof line, f) != NULL && n < cap)
    {
        if (strncmp(line, "| file | source |", 17) == 0)
        {
            in_table = true;
            continue;
        }
        if (in_table && line[0] != '|')
        {
            break; // the table ends at its first line that is not a row
        }
        if (!in_table || strncmp(line, "| ", 2) != 0 || strncmp(line, "|---", 4) == 0)
        {
            continue;
        }
        // | file | source | license | format | triangles | closed | oriented | signed volume | bytes | notes |
        char* cols[11];
        int c = 0;
        for (char* p = strtok(line, "|"); p != NULL && c < 11; p = strtok(NULL, "|"))
        {
            while (*p == ' ')
            {
                ++p;
            }
            char* e = p + strlen(p);
            while (e > p && (e[-1] == ' ' || e[-1] == '\n'))
            {
                *--e = '\0';
            }
            cols[c++] = p;
        }
        if (c < 9)
        {
            continue;
        }
        manifest_row* r = &rows[n++];
        snprintf(r->file, sizeof r->file, "%s", cols[0]);
        r->triangles = (unsigned)strtoul(cols[4], NULL, 10);
        r->closed = strcmp(cols[5], "yes") == 0;
        r->oriented = strcmp(cols[6], "yes") == 0;
        snprintf(r->volume, sizeof r->volume, "%s", cols[7]);
    }
    fclose(f);
    return n;
}

// The shipped file whose triangles intersect each other (its table row says so): a printer part with faces through
// others (3 pairs; the same pairs were found by CGAL 5.5's Polygon_mesh_processing::self_intersections on the same
// cleaned mesh).
static bool is_self_intersecting(const char* file)
{
    return strcmp(file, "prusa/PSU-cover-MK3.stl") == 0;
}

// Whether a file name ends with the extension of a mesh format (B-rep files are not meshes: tests/test_brep.c).
static bool is_mesh_file(const char* name)
{
    static const char* const ext[] = {".stl", ".obj", ".off", ".ply", ".shl", ".gltf", ".glb", ".3mf", ".dae"};
    size_t n = strlen(name);
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; ++k)
    {
        size_t m = strlen(ext[k]);
        if (n > m && strcmp(name + n - m, ext[k]) == 0)
        {
            return true;
        }
    }
    return false;
}

// Counts the mesh files under dir (relative names from `prefix`) that no row of the table lists; fails on the first.
static int count_unlisted(const char* dir, const char* prefix, const manifest_row* rows, int n)
{
    DIR* d = opendir(dir);
    cr_assert(ne(ptr, d, NULL), "cannot list %s", dir);
    int unlisted = 0;
    for (struct dirent* e = readdir(d); e != NULL; e = readdir(d))
    {
        if (e->d_name[0] == '.')
        {
            continue;
        }
        char path[1300], rel[400];
        snprintf(path, sizeof path, "%s/%.255s", dir, e->d_name);
        snprintf(rel, sizeof rel, "%s%.255s", prefix, e->d_name);
        struct stat st;
        cr_assert(eq(int, stat(path, &st), 0), "%s", path);
        if (S_ISDIR(st.st_mode))
        {
            char sub[420];
            snprintf(sub, sizeof sub, "%s/", rel);
            unlisted += count_unlisted(path, sub, rows, n);
            continue;
        }
        bool listed = false;
        for (int i = 0; i < n && !listed; ++i)
        {
            listed = strcmp(rows[i].file, rel) == 0;
        }
        cr_expect(listed || !is_mesh_file(rel), "data/%s is not in the table of data/README.md", rel);
        unlisted += !listed && is_mesh_file(rel);
    }
    closedir(d);
    return unlisted;
}

Test(import, shipped_meshes_match_their_table)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(root != NULL, "MC_SOURCE_ROOT not set");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/data", root);
    char manifest[1100];
    snprintf(manifest, sizeof manifest, "%s/README.md", dir);
    manifest_row rows[64];
    int n = read_manifest(manifest, rows, 64);
    cr_assert(ge(int, n, 8), "only %d rows in the table of data/README.md", n);
    cr_assert(eq(int, count_unlisted(dir, "", rows, n), 0));
    for (int i = 0; i < n; ++i)
    {
        char path[1300];
        snprintf(path, sizeof path, "%s/%.159s", dir, rows[i].file);
        mc_mesh_report r;
        mc_error e;
        mc_status st = mc_mesh_check_file(path, NULL, &r, &e);
        cr_assert(eq(int, st, MC_OK), "%s: %s", rows[i].file, e.message);
        cr_expect(eq(u32, r.input_triangles, rows[i].triangles), "%s", rows[i].file);
        cr_expect(eq(int, r.closed, rows[i].closed), "%s", rows[i].file);
        cr_expect(eq(int, r.oriented, rows[i].oriented), "%s", rows[i].file);
        // the MANIFEST prints 5 significant digits (%.5g)
        char v[32];
        snprintf(v, sizeof v, "%.5g", r.signed_volume_as_read);
        cr_expect(eq(str, v, rows[i].volume), "%s: volume %.17g", rows[i].file, r.signed_volume_as_read);
        // Closed, oriented and manifold as read exactly when the MANIFEST says so (the zero-area triangles of the two
        // watertight printer parts are repaired); then the self-check runs, and the mesh is usable for contact unless
        // it is one of the files whose triangles intersect, which importing refuses unless asked to accept them (then
        // the import succeeds with a positive volume).
        bool usable_expected = rows[i].closed && rows[i].oriented;
        bool self_intersecting = is_self_intersecting(rows[i].file);
        cr_expect(eq(int, r.self_checked, usable_expected), "%s", rows[i].file);
        cr_expect(eq(int, r.self_intersecting_pairs > 0, self_intersecting), "%s", rows[i].file);
        cr_expect(eq(int, r.contact_ready, usable_expected && !self_intersecting), "%s", rows[i].file);
        mc_mesh* m = NULL;
        st = mc_mesh_import_file(path, NULL, &m, &r, &e);
        if (usable_expected && self_intersecting)
        {
            cr_expect(eq(int, st, MC_ERR_SELF_INTERSECTING), "%s", rows[i].file);
            mc_import_options accept = mc_default_import_options();
            accept.self_check = MC_SELF_CHECK_ACCEPT;
            st = mc_mesh_import_file(path, &accept, &m, &r, &e);
            cr_expect(r.self_check_accepted, "%s", rows[i].file);
        }
        if (usable_expected)
        {
            cr_expect(eq(int, st, MC_OK), "%s: %s", rows[i].file, e.message);
            cr_expect(gt(dbl, r.volume, 0.0));
            // reoriented exactly when the file is wound inward
            cr_expect(eq(int, r.reoriented, r.signed_volume_as_read < 0.0), "%s", rows[i].file);
            if (m != NULL)
            {
                cr_expect(eq(u32, mc_mesh_get_triangle_count(m), r.triangles));
                // the cleaned mesh keeps the volume: repairs split triangles without moving any vertex
                cr_expect(epsilon_eq(dbl, r.volume, fabs(r.signed_volume_as_read), 1e-12 * fabs(r.volume)), "%s",
                          rows[i].file);
            }
        }
        else
        {
            cr_expect(eq(int, st, MC_ERR_MESH_NOT_CLOSED), "%s", rows[i].file);
            cr_expect(eq(ptr, m, NULL));
        }
        mc_mesh_destroy(m);
    }
}

// A comma-decimal locale for this test process, the way a host on a German desktop gets one with setlocale(LC_ALL,
// ""): de_DE.UTF-8 compiled by localedef (libc-bin; its sources come with the locales package, which
// tests/install-deps.sh installs) into the test's directory and found through LOCPATH. The checks at the end prove
// the C library now parses and prints decimal commas, so the test below cannot pass by accident.
static void use_comma_locale(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -c -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", s_dir);
    int rc = system(cmd);
    cr_assert(rc == 0 || rc == 256, "localedef failed (%d): is the locales package installed?", rc); // 1: warnings
    cr_assert(eq(int, setenv("LOCPATH", s_dir, 1), 0));
    cr_assert(ne(ptr, setlocale(LC_ALL, "de_DE.UTF-8"), NULL), "the comma locale could not be set");
    char buf[32];
    snprintf(buf, sizeof buf, "%.1f", 0.5);
    cr_assert(eq(str, buf, "0,5"), "the locale prints '%s' for 0.5", buf);
    cr_assert(eq(dbl, strtod("2.5", NULL), 2.0), "the locale must stop strtod at '.'");
}

Test(import, text_formats_read_and_write_dot_decimals_under_a_comma_locale)
{
    // A shell written with 17 significant digits of irrational-looking coordinates, then read back: bitwise equal.
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_ELLIPSOID;
    d.dims = mc_v3(0.3, 0.2, 0.1);
    d.chord_tolerance = 1e-3;
    mc_mesh* m = NULL;
    mc_error e;
    cr_assert(eq(int, mc_mesh_create_primitive(&d, &m, &e), MC_OK), "%s", e.message);
    use_comma_locale();
    const char* shl = file_path("comma.shl");
    cr_assert(eq(int, mc_mesh_write_shl(m, shl, 1.0, &e), MC_OK), "%s", e.message);
    FILE* f = fopen(shl, "rb");
    cr_assert(ne(ptr, f, NULL));
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cr_assert(strchr(text, ',') == NULL, "the .shl file has a decimal comma");
    mc_mesh* back = NULL;
    cr_assert(eq(int, mc_mesh_import_file(shl, NULL, &back, NULL, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, mc_mesh_get_vertex_count(back), mc_mesh_get_vertex_count(m)));
    cr_assert(
        eq(int,
           memcmp(mc_mesh_get_positions(back), mc_mesh_get_positions(m), mc_mesh_get_vertex_count(m) * sizeof(mc_vec3)),
           0),
        "positions read back differ");
    mc_mesh_destroy(back);
    mc_mesh_destroy(m);

    // The three other text readers on a tetrahedron with dot decimals: volume 0.25^3 / 6 each.
    static const char* const files[][2] = {
        {"t.stl",
         "solid t\n"
         "facet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 0.25 0\nvertex 0.25 0 0\nendloop\nendfacet\n"
         "facet normal 0 -1 0\nouter loop\nvertex 0 0 0\nvertex 0.25 0 0\nvertex 0 0 0.25\nendloop\nendfacet\n"
         "facet normal -1 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 0.25\nvertex 0 0.25 0\nendloop\nendfacet\n"
         "facet normal 1 1 1\nouter loop\nvertex 0.25 0 0\nvertex 0 0.25 0\nvertex 0 0 0.25\nendloop\nendfacet\n"
         "endsolid t\n"},
        {"t.obj", "v 0 0 0\nv 0.25 0 0\nv 0 0.25 0\nv 0 0 0.25\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"},
        {"t.off", "OFF\n4 4 0\n0 0 0\n0.25 0 0\n0 0.25 0\n0 0 0.25\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"},
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k)
    {
        mc_mesh_report r;
        const char* path = write_text(files[k][0], files[k][1]);
        cr_assert(eq(int, mc_mesh_check_file(path, NULL, &r, &e), MC_OK), "%s: %s", files[k][0], e.message);
        cr_assert(r.closed && r.oriented, "%s", files[k][0]);
        cr_assert(ieee_ulp_eq(dbl, r.volume, 0.25 * 0.25 * 0.25 / 6.0, 4), "%s: volume %.17g", files[k][0], r.volume);
    }
    setlocale(LC_ALL, "C");
}

// ---------------------------------------------------------------------------------------------------------------
// glTF, GLB and 3MF (native readers)

// `text` with its first `from` replaced by `to`: one hostile variant of a good file.
static const char* replaced(const char* text, const char* from, const char* to)
{
    static char out[16384];
    const char* at = strstr(text, from);
    cr_assert(ne(ptr, (void*)at, NULL), "'%s' is not in the file", from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/// A variant of a good file (its first `from` replaced by `to`) and what its import must give.
typedef struct variant
{
    const char* from;
    const char* to;
    mc_status status;
    const char* message; ///< a piece of the error message
} variant;

static void assert_variants_fail(const char* good, const char* name, const variant* v, size_t n)
{
    for (size_t k = 0; k < n; ++k)
    {
        mc_mesh_report r;
        mc_error e;
        mc_status st = check(write_text(name, replaced(good, v[k].from, v[k].to)), &r, &e);
        cr_assert(eq(int, st, v[k].status), "'%s' -> '%s': status %d (%s)", v[k].from, v[k].to, st, e.message);
        assert_message_has(&e, v[k].message);
    }
}

// A binary glTF of `json` and `bin`: 12-byte header, JSON chunk (padded with blanks), BIN chunk. @return its size.
static size_t make_glb(unsigned char* out, const char* json, const unsigned char* bin, uint32_t bin_size)
{
    uint32_t jn = (uint32_t)(strlen(json) + 3) / 4 * 4, total = 12 + 8 + jn + 8 + bin_size;
    uint32_t head[5] = {0x46546C67u, 2, total, jn, 0x4E4F534Au}; // "glTF", version, length, JSON chunk
    memcpy(out, head, sizeof head);                              // the test machine is little-endian like the format
    memset(out + 20, ' ', jn);
    memcpy(out + 20, json, strlen(json));
    uint32_t bin_head[2] = {bin_size, 0x004E4942u}; // "BIN\0"
    memcpy(out + 20 + jn, bin_head, sizeof bin_head);
    memcpy(out + 28 + jn, bin, bin_size);
    return total;
}

// GLB: the same two cubes from the BIN chunk, one placed by a column-major matrix (translation in entries 12-14), the
// other by translation, rotation (90 degrees about z) and scale, which glTF applies as T * R * S: x scaled by 2 first,
// then turned into y. The bounding box tells the orders apart (R * S: y within +-2; S * R: x within +-2).
Test(import, glb_bin_chunk_matrix_and_trs_order)
{
    static char json[4096];
    static unsigned char glb[8192];
    unsigned char bin[168];
    cube_gltf(json, sizeof json, bin);
    static char doc[4096], doc2[4096];
    snprintf(doc, sizeof doc, "%s",
             replaced(json, "\"translation\":[10,0,0]", "\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,10,0,0,1]"));
    snprintf(doc2, sizeof doc2, "%s",
             replaced(doc, "\"scale\":[-1,1,1]",
                      "\"rotation\":[0,0,0.7071067811865476,0.7071067811865476],"
                      "\"scale\":[2,1,1]"));
    size_t n = make_glb(glb, doc2, bin, sizeof bin);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_file("cubes.glb", glb, n), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 24));
    cr_assert(r.closed && r.oriented && r.contact_ready && !r.reoriented);
    // cos and sin of the unit quaternion's angle round to within 2e-16 of 0 and 1: 1e-12 is ample.
    cr_assert(fabs(r.bbox_max.x - 11.0) < 1e-12, "%g", r.bbox_max.x);
    cr_assert(fabs(r.bbox_min.x - (-11.0)) < 1e-12, "%g", r.bbox_min.x);
    cr_assert(fabs(r.bbox_min.y - (-2.0)) < 1e-12 && fabs(r.bbox_max.y - 2.0) < 1e-12, "y %g %g", r.bbox_min.y,
              r.bbox_max.y);
    cr_assert(fabs(r.signed_volume_as_read - 24.0) < 1e-12, "%.17g", r.signed_volume_as_read);
    // The container's lies: total length, version, first chunk type, BIN chunk past the end.
    static const struct
    {
        size_t at;
        uint32_t value;
        mc_status status;
        const char* message;
    } lies[] = {{8, 1000, MC_ERR_PARSE, "header says 1000 bytes"},
                {4, 1, MC_ERR_UNSUPPORTED_FORMAT, "only glTF 2.0"},
                {16, 0x004E4942u, MC_ERR_PARSE, "first chunk must be JSON"},
                {12, 100000, MC_ERR_PARSE, "first chunk must be JSON"}};
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; ++k)
    {
        static unsigned char bad[8192];
        memcpy(bad, glb, n);
        memcpy(bad + lies[k].at, &lies[k].value, 4);
        cr_assert(eq(int, check(write_file("bad.glb", bad, n), &r, &e), lies[k].status), "%zu: %s", k, e.message);
        assert_message_has(&e, lies[k].message);
    }
    // A BIN chunk shorter than the buffer's byteLength.
    n = make_glb(glb, doc2, bin, sizeof bin - 4);
    cr_assert(eq(int, check(write_file("short.glb", glb, n), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "byteLength 168 but its data has 164 bytes");
}

// glTF variants: each must fail with its status and a message that says what is wrong.
Test(import, gltf_hostile_files)
{
    static char json[4096];
    cube_gltf(json, sizeof json, NULL);
    static const variant v[] = {
        {"\"indices\":1", "\"indices\":1,\"mode\":1", MC_ERR_UNSUPPORTED_FORMAT, "mode LINES: only TRIANGLES"},
        {"\"count\":8", "\"count\":9", MC_ERR_PARSE, "past the end of its buffer view"},
        {"\"count\":36", "\"count\":35", MC_ERR_PARSE, "not a multiple of 3"},
        {",\"indices\":1", "", MC_ERR_PARSE, "not a multiple of 3"}, // 8 points without indices
        {"\"POSITION\":0", "\"POSITION\":2", MC_ERR_INDEX_OUT_OF_RANGE, "'POSITION' is not an index below 2"},
        {"\"POSITION\":0", "\"POSITION\":1", MC_ERR_UNSUPPORTED_FORMAT, "FLOAT VEC3 positions"},
        {"base64,", "base64,*", MC_ERR_PARSE, "bad base64"},
        {"\"byteLength\":168", "\"byteLength\":169", MC_ERR_PARSE, "byteLength 169 but its data has 168 bytes"},
        {"\"byteLength\":72}", "\"byteLength\":73}", MC_ERR_PARSE, "past the end of its buffer"},
        {"\"byteLength\":96}", "\"byteLength\":96,\"byteStride\":8}", MC_ERR_PARSE, "byteStride too small"},
        {"{\"mesh\":0,\"translation\":[10,0,0]}", "{\"mesh\":0,\"children\":[0]}", MC_ERR_PARSE, "cyclic"},
        {"\"translation\":[10,0,0]", "\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,1,0,0,0,1]", MC_ERR_UNSUPPORTED_FORMAT,
         "not affine"},
        {"\"translation\":[10,0,0]", "\"rotation\":[0,0,0,0]", MC_ERR_PARSE, "quaternion"},
        {"\"translation\":[10,0,0]", "\"translation\":[10,0]", MC_ERR_PARSE, "wrong length"},
        {"\"version\":\"2.0\"", "\"version\":\"1.0\"", MC_ERR_UNSUPPORTED_FORMAT, "only glTF 2.0"},
        {"\"componentType\":5123", "\"componentType\":5122", MC_ERR_UNSUPPORTED_FORMAT, "componentType 5122"},
        {"\"type\":\"SCALAR\"}", "\"type\":\"SCALAR\",\"sparse\":{}}", MC_ERR_UNSUPPORTED_FORMAT, "sparse"},
        {"data:application/octet-stream;base64,", "http://example.com/x.bin?", MC_ERR_UNSUPPORTED_FORMAT,
         "not a relative file name or a data URI"},
        {"\"scene\":0,", "\"scene\":0,,", MC_ERR_PARSE, "bad JSON at byte"},
        {"\"scene\":0", "\"scene\":07", MC_ERR_PARSE, "bad number"},
        {"\"scene\":0", "\"scene\":1e999", MC_ERR_PARSE, "out of the double range"},
        {"\"scene\":0", "\"scene\":1", MC_ERR_INDEX_OUT_OF_RANGE, "'scene' is not an index below 1"},
        {"\"scene\":0", "\"scene\":\"\\q\"", MC_ERR_PARSE, "bad escape"},
        {"\"mesh\":0,", "\"mesh\":0.5,", MC_ERR_INDEX_OUT_OF_RANGE, "'mesh' is not an index"},
        {"{\"asset\"", "[{\"asset\"", MC_ERR_PARSE, "bad JSON"},
    };
    assert_variants_fail(json, "bad.gltf", v, sizeof v / sizeof v[0]);
    // Required geometry-compression extensions are refused by name.
    static char ext[4200];
    snprintf(ext, sizeof ext, "{\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],%s", json + 1);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("draco.gltf", ext), &r, &e), MC_ERR_UNSUPPORTED_FORMAT), "%s", e.message);
    assert_message_has(&e, "KHR_draco_mesh_compression");
    // Nesting deeper than 64 levels, and a file that is not a JSON object.
    char deep[300];
    memset(deep, '[', 200);
    deep[200] = '\0';
    cr_assert(eq(int, check(write_text("deep.gltf", deep), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "nested deeper than 64");
    cr_assert(eq(int, check(write_text("array.gltf", "[1,2]"), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "JSON object expected");
}

// An external buffer file next to the .gltf (URI percent-encoded), and one that is missing.
Test(import, gltf_external_buffer_file)
{
    static char json[4096];
    unsigned char bin[168];
    cube_gltf(json, sizeof json, bin);
    write_file("cube data.bin", bin, sizeof bin);
    const char* doc = replaced(json, "\"byteLength\":168", "\"byteLength\":168,\"uri\":\"cube%20data.bin\"");
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("external.gltf", doc), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(dbl, r.signed_volume_as_read, 16.0)); // small integers: exact
    doc = replaced(json, "\"byteLength\":168", "\"byteLength\":168,\"uri\":\"missing.bin\"");
    cr_assert(eq(int, check(write_text("missing.gltf", doc), &r, &e), MC_ERR_IO), "%s", e.message);
    assert_message_has(&e, "missing.bin: cannot open");
}

// A ZIP archive of n stored text entries (tests/zip_write.h). @return its size.
static size_t make_zip(unsigned char* out, const char* const* names, const char* const* texts, int n)
{
    const unsigned char* data[8];
    size_t sizes[8];
    for (int k = 0; k < n; ++k)
    {
        data[k] = (const unsigned char*)texts[k];
        sizes[k] = strlen(texts[k]);
    }
    return zip_write(out, names, data, sizes, n);
}

// A 3MF model: the cube as object 1; object 2 with two components of it, one sheared (x += y) and moved by +10 in x,
// one mirrored in x and moved by -10; one build item scaling object 2 by 2; unit inch. 3MF writes transforms for row
// vectors (p' = p M, the 12 numbers are M's rows), so the shear's 1 at m10 adds y to x.
static void cube_3mf_model(char* out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap,
                                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by the test -->\n"
                                "<model unit=\"inch\" xml:lang=\"en-US\" "
                                "xmlns=\"http://schemas.microsoft.com/3dmanufacturing/core/2015/02\">\n"
                                "<resources>\n<object id=\"1\" type=\"model\"><mesh><vertices>\n");
    for (int i = 0; i < 8; ++i)
    {
        const double* v = s_cube_pos[i];
        o += (size_t)snprintf(out + o, cap - o, "<vertex x=\"%g\" y=\"%g\" z=\"%g\"/>\n", v[0], v[1], v[2]);
    }
    o += (size_t)snprintf(out + o, cap - o, "</vertices><triangles>\n");
    for (int t = 0; t < 12; ++t)
    {
        const uint32_t* x = s_cube_tri[t];
        o += (size_t)snprintf(out + o, cap - o, "<triangle v1=\"%u\" v2=\"%u\" v3=\"%u\"/>\n", x[0], x[1], x[2]);
    }
    snprintf(out + o, cap - o,
             "</triangles></mesh></object>\n<object id=\"2\" type=\"model\"><components>\n"
             "<component objectid=\"1\" transform=\"1 0 0 1 1 0 0 0 1 10 0 0\"/>\n"
             "<component objectid=\"1\" transform=\"-1 0 0 0 1 0 0 0 1 -10 0 0\"/>\n"
             "</components></object>\n</resources>\n"
             "<build><item objectid=\"2\" transform=\"2 0 0 0 2 0 0 0 2 0 0 0\"/></build>\n</model>\n");
}

static const char* const s_3mf_rels =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Target=\"/3D/3dmodel.model\" Id=\"rel0\" "
    "Type=\"http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel\"/></Relationships>\n";

// A 3MF package of `model` (and the given relationships part) in out. @return its size.
static size_t make_3mf(unsigned char* out, const char* model, const char* rels)
{
    const char* names[] = {"[Content_Types].xml", "_rels/.rels", "3D/3dmodel.model"};
    const char* texts[] = {"<?xml version=\"1.0\"?><Types/>", rels, model};
    return make_zip(out, names, texts, 3);
}

Test(import, threemf_components_build_transform_and_unit)
{
    static char model[8192];
    static unsigned char zip[16384];
    cube_3mf_model(model, sizeof model);
    size_t n = make_3mf(zip, model, s_3mf_rels);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_file("cubes.3mf", zip, n), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 24));
    cr_assert(eq(u32, r.components, 2));
    cr_assert(r.closed && r.oriented && r.contact_ready && !r.reoriented);
    cr_assert(eq(u32, r.inward_components, 0)); // the mirrored copy's winding was reversed
    // Volumes: the shear keeps each cube at 8, the item's scale 2 makes it 64, in cubic inches; the inch is 0.0254 m
    // (not a binary fraction: the scaled coordinates and the 24-triangle volume sum round, 1e-12 relative is ample).
    double inch = 0.0254, want = 128.0 * inch * inch * inch;
    cr_assert(fabs(r.signed_volume_as_read - want) < 1e-12 * want, "%.17g vs %.17g", r.signed_volume_as_read, want);
    // Sheared copy: x in 2 * [8, 12]; mirrored copy: x in 2 * [-11, -9]; y in 2 * [-1, 1] (a transposed matrix would
    // give x in 2 * [9, 11] and y in 2 * [-2, 2]).
    cr_assert(fabs(r.bbox_max.x - 24 * inch) < 1e-15 && fabs(r.bbox_min.x + 22 * inch) < 1e-15, "x %g %g", r.bbox_min.x,
              r.bbox_max.x);
    cr_assert(fabs(r.bbox_max.y - 2 * inch) < 1e-15 && fabs(r.bbox_min.y + 2 * inch) < 1e-15, "y %g %g", r.bbox_min.y,
              r.bbox_max.y);
    // Without _rels/.rels the conventional part name is used; the default unit is the millimetre.
    const char* names[] = {"3D/3dmodel.model"};
    const char* texts[] = {replaced(model, "unit=\"inch\" ", "")};
    n = make_zip(zip, names, texts, 1);
    cr_assert(eq(int, check(write_file("norels.3mf", zip, n), &r, &e), MC_OK), "%s", e.message);
    want = 128e-9;
    cr_assert(fabs(r.signed_volume_as_read - want) < 1e-12 * want, "%.17g", r.signed_volume_as_read);
}

// 3MF variants of the model and of the package: each must fail with its status and a message that says what.
Test(import, threemf_hostile_files)
{
    static char model[16384], good[8192];
    static unsigned char zip[16384];
    cube_3mf_model(good, sizeof good);
    static const variant v[] = {
        {"objectid=\"1\" transform=\"-1", "objectid=\"3\" transform=\"-1", MC_ERR_INDEX_OUT_OF_RANGE,
         "object 3, which is not defined"},
        {"v1=\"0\" v2=\"2\" v3=\"1\"", "v1=\"0\" v2=\"2\" v3=\"8\"", MC_ERR_INDEX_OUT_OF_RANGE, "refers to vertex 8"},
        {"\"2 0 0 0 2 0 0 0 2 0 0 0\"", "\"2 0 0 0 2 0 0 0 2 0 0\"", MC_ERR_PARSE, "not 12 finite numbers"},
        {"\"2 0 0 0 2 0 0 0 2 0 0 0\"", "\"2 0 0 0 2 0 0 0 2 0 0 0 0\"", MC_ERR_PARSE, "not 12 finite numbers"},
        {"unit=\"inch\"", "unit=\"furlong\"", MC_ERR_UNSUPPORTED_FORMAT, "unknown unit"},
        {"x=\"-1\"", "x=\"nan\"", MC_ERR_PARSE, "without a finite number 'x'"},
        {"x=\"-1\"", "x=\"1e999\"", MC_ERR_PARSE, "without a finite number 'x'"},
        {"v1=\"0\"", "v1=\"-1\"", MC_ERR_PARSE, "without an integer 'v1'"},
        {"<object id=\"1\" type=\"model\"><mesh>",
         "<object id=\"1\" type=\"model\"><components><component objectid=\"2\"/></components><mesh>", MC_ERR_PARSE,
         "cyclic"},
        {"</vertices>", "</vertex>", MC_ERR_PARSE, "end tag that does not match"},
        {"<build>", "<!DOCTYPE x><build>", MC_ERR_PARSE, "DTD"},
        {"<object id=\"2\"", "<object id=\"1\"", MC_ERR_PARSE, "two objects with id 1"},
        {"<item objectid=\"2\" transform=\"2 0 0 0 2 0 0 0 2 0 0 0\"/>", "", MC_ERR_EMPTY_MESH, "no build item"},
        {"<component objectid=\"1\" transform=\"1 0",
         "<component p:path=\"/3D/o.model\" objectid=\"1\" transform=\"1 0", MC_ERR_UNSUPPORTED_FORMAT,
         "production extension"},
        {"<model", "<notamodel", MC_ERR_PARSE, "the root element is not <model>"},
        {"</model>", "", MC_ERR_PARSE, "ends inside an element"},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
    {
        snprintf(model, sizeof model, "%s", replaced(good, v[k].from, v[k].to));
        size_t n = make_3mf(zip, model, s_3mf_rels);
        mc_mesh_report r;
        mc_error e;
        mc_status st = check(write_file("bad.3mf", zip, n), &r, &e);
        cr_assert(eq(int, st, v[k].status), "'%s' -> '%s': status %d (%s)", v[k].from, v[k].to, st, e.message);
        assert_message_has(&e, v[k].message);
    }
    // The package: a damaged byte (CRC-32), a cut archive, a relationship to a part that is not there.
    size_t n = make_3mf(zip, good, s_3mf_rels);
    size_t at = 0;
    while (at + 4 < n && memcmp(zip + at, "inch", 4) != 0)
    {
        ++at;
    }
    cr_assert(at + 4 < n);
    zip[at + 3] = 'k';
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_file("crc.3mf", zip, n), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "CRC-32 mismatch");
    n = make_3mf(zip, good, s_3mf_rels);
    cr_assert(eq(int, check(write_file("cut.3mf", zip, n / 2), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "no end-of-central-directory record");
    n = make_3mf(zip, good, replaced(s_3mf_rels, "3dmodel.model", "other.model"));
    cr_assert(eq(int, check(write_file("nopart.3mf", zip, n), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "no 3D model part '3D/other.model'");
}

// An OBJ of a UV sphere of radius 1.3 about (0.1, 0.2, 0.3) (irregular coordinates), outward, in obj. @return its size.
static size_t sphere_obj(char* obj, size_t cap)
{
    enum
    {
        RINGS = 9,
        SEGS = 14
    };
    size_t o = (size_t)snprintf(obj, cap, "v 0.1 0.2 %.17g\n", 0.3 + 1.3);
    for (int r = 1; r < RINGS; ++r)
    {
        double th = MC_PI * r / RINGS;
        for (int k = 0; k < SEGS; ++k)
        {
            double ph = 2 * MC_PI * k / SEGS;
            o += (size_t)snprintf(obj + o, cap - o, "v %.17g %.17g %.17g\n", 0.1 + 1.3 * sin(th) * cos(ph),
                                  0.2 + 1.3 * sin(th) * sin(ph), 0.3 + 1.3 * cos(th));
        }
    }
    o += (size_t)snprintf(obj + o, cap - o, "v 0.1 0.2 %.17g\n", 0.3 - 1.3);
    int south = 2 + (RINGS - 1) * SEGS; // 1-based
    for (int k = 0; k < SEGS; ++k)
    {
        int a = 2 + k, b = 2 + (k + 1) % SEGS;
        o += (size_t)snprintf(obj + o, cap - o, "f 1 %d %d\n", a, b);
        int c = 2 + (RINGS - 2) * SEGS + k, d = 2 + (RINGS - 2) * SEGS + (k + 1) % SEGS;
        o += (size_t)snprintf(obj + o, cap - o, "f %d %d %d\n", south, d, c);
        for (int r = 0; r + 2 < RINGS; ++r)
        {
            int p = 2 + r * SEGS + k, q = 2 + r * SEGS + (k + 1) % SEGS;
            o += (size_t)snprintf(obj + o, cap - o, "f %d %d %d %d\n", p, p + SEGS, q + SEGS, q);
        }
    }
    return o;
}

// The independent writer: Assimp's exporters (glTF 2 with an external .bin, GLB, 3MF with deflated entries) convert an
// OBJ of a UV sphere (irregular coordinates); the native readers must give the OBJ's triangle count and volume up to
// the exporters' rounding. glTF and GLB store float32 positions: each coordinate moves by at most 2^-24 relative, so
// the volume by about 3 * 6e-8; Assimp's 3MF writer prints 6 significant digits (5e-7 relative per coordinate). 1e-5
// relative covers both with margin; a misread index, stride, transform or unit would be off by far more.
Test(import, gltf_glb_3mf_written_by_assimp_match_the_source)
{
    static char obj[65536];
    sphere_obj(obj, sizeof obj);
    static char src[512];
    snprintf(src, sizeof src, "%s", write_text("sphere.obj", obj));
    mc_mesh_report ref, r;
    mc_error e;
    cr_assert(eq(int, check(src, &ref, &e), MC_OK), "%s", e.message);
    const struct aiScene* scene = aiImportFile(src, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
    cr_assert(ne(ptr, (void*)scene, NULL), "%s", aiGetErrorString());
    static const char* const formats[][2] = {{"gltf2", "sphere.gltf"}, {"glb2", "sphere.glb"}, {"3mf", "sphere.3mf"}};
    for (int f = 0; f < 3; ++f)
    {
        const char* out = file_path(formats[f][1]);
        cr_assert(eq(int, aiExportScene(scene, formats[f][0], out, 0), AI_SUCCESS), "%s", aiGetErrorString());
        cr_assert(eq(int, check(out, &r, &e), MC_OK), "%s", e.message);
        cr_assert(eq(u32, r.input_triangles, ref.input_triangles), "%s", formats[f][1]);
        cr_assert(r.closed && r.contact_ready, "%s", formats[f][1]);
        // 3MF: Assimp writes millimetres (unit="millimeter"), which the reader converts to metres.
        double want = ref.volume * (f == 2 ? 1e-9 : 1.0);
        cr_assert(fabs(r.volume - want) < 1e-5 * want, "%s: %.17g vs %.17g", formats[f][1], r.volume, want);
    }
    aiReleaseImport(scene);
}

// ---------------------------------------------------------------------------------------------------------------
// COLLADA (native reader)

// A <geometry> of the cube (s_cube_pos, outward) as one primitive element of type `prim`: triangles (with a NORMAL
// input at offset 1, so two indices per corner, and positions read through an accessor of stride 4 and offset 1),
// polylist, polygons, trifans or tristrips (the quads of s_cube_quad, each a polygon, fan or strip).
static size_t dae_cube(char* o, size_t cap, const char* id, const char* prim)
{
    bool tris = strcmp(prim, "triangles") == 0;
    size_t n = (size_t)snprintf(o, cap,
                                "<geometry id=\"%s\"><mesh><source id=\"%s-pos\"><float_array id=\"%s-arr\" "
                                "count=\"%d\">%s",
                                id, id, id, tris ? 33 : 24, tris ? "7 " : "");
    for (int i = 0; i < 8; ++i)
    {
        const double* v = s_cube_pos[i];
        n += (size_t)snprintf(o + n, cap - n, "%g %g %g%s", v[0], v[1], v[2], tris ? " 5 " : " ");
    }
    n += (size_t)snprintf(o + n, cap - n,
                          "</float_array><technique_common><accessor source=\"#%s-arr\" count=\"8\" stride=\"%d\" "
                          "offset=\"%d\"><param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
                          "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>"
                          "<vertices id=\"%s-vtx\"><input semantic=\"POSITION\" source=\"#%s-pos\"/></vertices>"
                          "<%s count=\"%d\"><input semantic=\"VERTEX\" source=\"#%s-vtx\" offset=\"0\"/>",
                          id, tris ? 4 : 3, tris ? 1 : 0, id, id, prim, tris ? 12 : 6, id);
    if (tris)
    {
        n += (size_t)snprintf(o + n, cap - n, "<input semantic=\"NORMAL\" source=\"#%s-nrm\" offset=\"1\"/><p>", id);
    }
    else if (strcmp(prim, "polylist") == 0)
    {
        n += (size_t)snprintf(o + n, cap - n, "<vcount>4 4 4 4 4 4</vcount><p>");
    }
    for (int f = 0; f < 6; ++f)
    {
        const int* q = s_cube_quad[f]; // 1-based outward quads
        int a = q[0] - 1, b = q[1] - 1, c = q[2] - 1, d = q[3] - 1;
        bool own_p = !tris && strcmp(prim, "polylist") != 0;
        n += (size_t)snprintf(o + n, cap - n, "%s", own_p ? "<p>" : f > 0 ? " " : "");
        if (tris)
        {
            n += (size_t)snprintf(o + n, cap - n, "%d 0 %d 0 %d 0 %d 0 %d 0 %d 0", a, b, c, a, c, d);
        }
        else if (strcmp(prim, "tristrips") == 0)
        {
            n += (size_t)snprintf(o + n, cap - n, "%d %d %d %d", a, b, d, c); // (a b d), (d b c)
        }
        else
        {
            n += (size_t)snprintf(o + n, cap - n, "%d %d %d %d", a, b, c, d);
        }
        n += (size_t)snprintf(o + n, cap - n, "%s", own_p ? "</p>" : "");
    }
    n += (size_t)snprintf(o + n, cap - n, "%s</%s></mesh></geometry>\n", tris || prim[4] == 'l' ? "</p>" : "", prim);
    return n;
}

// The COLLADA test document, in centimetres: the cube as five kinds of primitives, placed by a visual scene (the
// second: <scene> names it; the first is a decoy) through T R T S in document order, a shear matrix around a nested
// node that instantiates a library node, a mirror, and two instances of one geometry. Volumes (cm^3): A 16 (scale 2),
// A2, lib, D, E, F 8 each: 56. Bounding box (cm): A x [59, 61] y [28, 32] (scaled to x [-2, 2], moved to x [28, 32],
// rotated +90 degrees about z, moved by 60 in x: another order or a -90 rotation moves it elsewhere), A2 y [-21, -19],
// B's shear x' = x + 0.5 y - 20 puts lib at x [-21.5, -18.5] and z [9, 11], D y [19, 21], F x [39, 41].
static void dae_document(char* o, size_t cap)
{
    size_t n = (size_t)snprintf(o, cap,
                                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<COLLADA xmlns=\"http://www.collada.org/"
                                "2005/11/COLLADASchema\" version=\"1.4.1\">\n<asset><unit name=\"centimeter\" "
                                "meter=\"0.01\"/><up_axis>Z_UP</up_axis></asset>\n<library_geometries>\n");
    n += dae_cube(o + n, cap - n, "tris", "triangles");
    n += dae_cube(o + n, cap - n, "quads", "polylist");
    n += dae_cube(o + n, cap - n, "polys", "polygons");
    n += dae_cube(o + n, cap - n, "fans", "trifans");
    n += dae_cube(o + n, cap - n, "strips", "tristrips");
    snprintf(o + n, cap - n,
             "</library_geometries>\n<library_nodes><node id=\"lib\"><translate>0 0 10</translate>"
             "<instance_geometry url=\"#quads\"/></node></library_nodes>\n"
             "<library_visual_scenes><visual_scene id=\"decoy\"><node><translate>100 100 100</translate>"
             "<instance_geometry url=\"#tris\"/></node></visual_scene>\n<visual_scene id=\"scene\">\n"
             "<node id=\"A\"><translate>60 0 0</translate><rotate>0 0 1 90</rotate><translate>30 0 0</translate>"
             "<scale>2 1 1</scale>"
             "<instance_geometry url=\"#tris\"><bind_material/></instance_geometry></node>\n"
             "<node id=\"A2\"><translate>0 -20 0</translate><instance_geometry url=\"#tris\"/></node>\n"
             "<node id=\"B\"><matrix>1 0.5 0 -20 0 1 0 0 0 0 1 0 0 0 0 1</matrix><node id=\"C\">"
             "<instance_node url=\"#lib\"/></node></node>\n"
             "<node id=\"D\"><translate>0 20 0</translate><scale>-1 1 1</scale><instance_geometry url=\"#polys\"/>"
             "</node>\n<node id=\"E\"><translate>30 0 0</translate><instance_geometry url=\"#fans\"/></node>\n"
             "<node id=\"F\"><translate>40 0 0</translate><instance_geometry url=\"#strips\"/></node>\n"
             "</visual_scene></library_visual_scenes>\n<scene><instance_visual_scene url=\"#scene\"/></scene>\n"
             "</COLLADA>\n");
}

Test(import, collada_units_transforms_instances_and_primitives)
{
    static char doc[16384];
    dae_document(doc, sizeof doc);
    mc_mesh_report r;
    mc_error e;
    cr_assert(eq(int, check(write_text("parts.dae", doc), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.input_triangles, 72));
    cr_assert(eq(u32, r.components, 6));
    cr_assert(eq(u32, r.split_polygons, 12)); // the polylist's and the polygons' quads (fans and strips are not split)
    cr_assert(r.closed && r.oriented && r.contact_ready && !r.reoriented);
    cr_assert(eq(u32, r.inward_components, 0)); // the mirrored copy's winding was reversed
    // Centimetres converted to metres: 0.01 is not a binary fraction, so the scaled coordinates and the 72-triangle
    // volume sum round; 1e-12 relative is ample, and any misread transform changes a bound by 0.5 cm or more.
    double cm = 0.01, want = 56.0 * cm * cm * cm;
    cr_assert(fabs(r.signed_volume_as_read - want) < 1e-12 * want, "%.17g vs %.17g", r.signed_volume_as_read, want);
    double box[2][3] = {{-21.5, -21, -1}, {61, 32, 11}};
    double got[2][3] = {{r.bbox_min.x, r.bbox_min.y, r.bbox_min.z}, {r.bbox_max.x, r.bbox_max.y, r.bbox_max.z}};
    for (int k = 0; k < 6; ++k)
    {
        cr_assert(fabs(got[k / 3][k % 3] - box[k / 3][k % 3] * cm) < 1e-15, "bound %d: %.17g", k, got[k / 3][k % 3]);
    }
    // The coordinates are kept as written whatever the up axis; without <unit> they are metres; without <scene> the
    // first visual scene is placed (the decoy: one cube at 100 cm).
    cr_assert(eq(int, check(write_text("y.dae", replaced(doc, "Z_UP", "Y_UP")), &r, &e), MC_OK), "%s", e.message);
    cr_assert(fabs(r.signed_volume_as_read - want) < 1e-12 * want && fabs(r.bbox_max.z - 11 * cm) < 1e-15);
    cr_assert(eq(int, check(write_text("m.dae", replaced(doc, "meter=\"0.01\"", "")), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(dbl, r.signed_volume_as_read, 56.0)); // small integers and halves: exact
    const char* no_scene = replaced(doc, "<scene><instance_visual_scene url=\"#scene\"/></scene>", "");
    cr_assert(eq(int, check(write_text("d.dae", no_scene), &r, &e), MC_OK), "%s", e.message);
    cr_assert(eq(u32, r.components, 1));
    cr_assert(fabs(r.bbox_min.x - 99 * cm) < 1e-15, "%.17g", r.bbox_min.x);
}

// COLLADA variants: each must fail with its status and a message that says what.
Test(import, collada_hostile_files)
{
    static char doc[16384];
    dae_document(doc, sizeof doc);
    static const variant v[] = {
        {"url=\"#tris\"><bind", "url=\"#nothing\"><bind", MC_ERR_INDEX_OUT_OF_RANGE,
         "'#nothing' refers to no <geometry>"},
        {"url=\"#lib\"", "url=\"#tris\"", MC_ERR_PARSE, "refers to a <geometry>, not a <node>"},
        {"<instance_geometry url=\"#quads\"/>", "<instance_node url=\"#lib\"/>", MC_ERR_PARSE, "cycle"},
        {"url=\"#lib\"", "url=\"parts.dae#lib\"", MC_ERR_UNSUPPORTED_FORMAT, "refers to another document"},
        {"count=\"33\"", "count=\"34\"", MC_ERR_PARSE, "has 33 values, its count says 34"},
        {"count=\"8\" stride=\"4\"", "count=\"9\" stride=\"4\"", MC_ERR_PARSE, "reads past its <float_array>"},
        {"count=\"8\" stride=\"3\"", "count=\"8\" stride=\"2\"", MC_ERR_PARSE, "3 values (X, Y, Z) per point"},
        {"count=\"8\" stride=\"3\"", "count=\"4294967294\" stride=\"4294967295\"", MC_ERR_PARSE,
         "reads past its <float_array>"}, // (count - 1) * stride near 2^64
        {"count=\"24\"", "count=\"0\"", MC_ERR_PARSE, "<float_array> holds too many numbers"},
        {"<triangles count=\"12\"", "<triangles count=\"11\"", MC_ERR_PARSE,
         "has 72 indices, 66 expected (2 per corner)"},
        {"<p>0 0 3 0 2 0", "<p>8 0 3 0 2 0", MC_ERR_INDEX_OUT_OF_RANGE, "refers to point 8, the positions have 8"},
        {"<vcount>4 4 4 4 4 4", "<vcount>4 4 4 4 4 3", MC_ERR_PARSE, "<vcount> has 6 numbers for 23 corners"},
        {"<vcount>4 4 4 4 4 4", "<vcount>4 4 4 4 4", MC_ERR_PARSE, "<vcount> has 5 numbers"},
        {"<polygons count=\"6\">", "<polygons count=\"7\">", MC_ERR_PARSE, "<polygons count=\"7\"> has 6 <p>"},
        {"<polygons count=\"6\">", "<polygons count=\"6\"><ph><p>0 1 2</p><h>3 4 5</h></ph>", MC_ERR_UNSUPPORTED_FORMAT,
         "<ph> (a polygon with holes) is not read"},
        {"</triangles>",
         "</triangles><lines count=\"1\"><input semantic=\"VERTEX\" source=\"#tris-vtx\" offset=\"0\"/>"
         "<p>0 1</p></lines>",
         MC_ERR_UNSUPPORTED_FORMAT, "<lines> (edges without a surface) is not read"},
        {"7 -1 -1 -1", "7 nan -1 -1", MC_ERR_PARSE, "not a finite number"},
        {"7 -1 -1 -1", "7 1e999 -1 -1", MC_ERR_PARSE, "not a finite number"},
        {"meter=\"0.01\"", "meter=\"-1\"", MC_ERR_PARSE, "'meter' is not a positive number"},
        {"Z_UP", "W_UP", MC_ERR_PARSE, "<up_axis> is not X_UP, Y_UP or Z_UP"},
        {"0 0 0 1</matrix>", "0 0 1 1</matrix>", MC_ERR_UNSUPPORTED_FORMAT, "not affine"},
        {"<rotate>0 0 1 90", "<rotate>0 0 0 90", MC_ERR_PARSE, "<rotate> about an axis of length 0"},
        {"<translate>60 0 0<", "<translate>60 0<", MC_ERR_PARSE, "<translate> has 2 numbers, 3 expected"},
        {"<scale>2 1 1<", "<scale>2 1 1 1<", MC_ERR_PARSE, "<scale> has 4 numbers, 3 expected"},
        {"id=\"A2\"", "id=\"A\"", MC_ERR_PARSE, "two elements with id 'A'"},
        {"semantic=\"VERTEX\"", "semantic=\"TEXCOORD\"", MC_ERR_PARSE, "<triangles> without a VERTEX input"},
        {"semantic=\"POSITION\"", "semantic=\"NORMAL\"", MC_ERR_PARSE, "<vertices> without a POSITION input"},
        {"offset=\"1\"/><p>", "/><p>", MC_ERR_PARSE, "<input> without an integer 'offset'"},
        {"<instance_geometry url=\"#fans\"/>", "<instance_controller url=\"#skin\"/>", MC_ERR_UNSUPPORTED_FORMAT,
         "skinned or morphed geometry"},
        {"<rotate>", "<skew>0 1 0 0 0 1 0</skew><rotate>", MC_ERR_UNSUPPORTED_FORMAT, "<skew> (a skew transform)"},
        {"<mesh>", "<spline/><mesh>", MC_ERR_UNSUPPORTED_FORMAT, "geometry 'tris': <spline> is not read"},
        {"version=\"1.4.1\"", "version=\"2.0\"", MC_ERR_UNSUPPORTED_FORMAT, "COLLADA version '2.0'"},
        {"<COLLADA", "<COLLADX", MC_ERR_PARSE, "the root element is not <COLLADA>"},
        {"url=\"#scene\"", "url=\"#nosuch\"", MC_ERR_INDEX_OUT_OF_RANGE, "'#nosuch' refers to no <visual_scene>"},
        {"<p>0 0 3 0", "<p>0 x 3 0", MC_ERR_PARSE, "holds 'x', not an index"},
        {"count=\"33\">", "count=\"33\"><!-- c -->", MC_ERR_PARSE, "<float_array> must hold numbers only"},
        {"<node id=\"A\">", "<node id=\"A\"><asset><unit meter=\"1\"/></asset>", MC_ERR_UNSUPPORTED_FORMAT,
         "only the document's unit is read"},
        {"count=\"33\"", "count=\"4000000000\"", MC_ERR_PARSE, "more than the document holds"},
        {"</COLLADA>", "", MC_ERR_PARSE, "ends inside an element"},
        {"<library_geometries>", "<!DOCTYPE x><library_geometries>", MC_ERR_PARSE, "DTD"},
    };
    assert_variants_fail(doc, "bad.dae", v, sizeof v / sizeof v[0]);
    // No visual scene at all, and the smallest of the inputs on which Assimp's COLLADA reader crashed (its float
    // array's count attribute is misspelt).
    mc_mesh_report r;
    mc_error e;
    static char none[16384]; // replaced() returns one static buffer: keep a copy
    snprintf(none, sizeof none, "%s", replaced(doc, "<library_visual_scenes>", "<library_xvisual_scenes>"));
    const char* text0 = replaced(none, "</library_visual_scenes>", "</library_xvisual_scenes>");
    cr_assert(eq(int, check(write_text("none.dae", text0), &r, &e), MC_ERR_INDEX_OUT_OF_RANGE), "%s", e.message);
    assert_message_has(&e, "refers to no <visual_scene>");
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(root != NULL, "MC_SOURCE_ROOT not set");
    char crash[1024];
    snprintf(crash, sizeof crash, "%s/tests/fuzz/regressions/dae/assimp_null_dereference_in_reader", root);
    FILE* f = fopen(crash, "rb");
    cr_assert(ne(ptr, f, NULL), "%s", crash);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    cr_assert(eq(int, check(write_file("crash.dae", text, n), &r, &e), MC_ERR_PARSE), "%s", e.message);
    assert_message_has(&e, "<float_array> without an integer 'count'");
}

// The independent writer: Assimp's COLLADA exporter converts an OBJ of a UV sphere (irregular coordinates) and a
// printer part (data/prusa/LCD-knob.stl); the native reader must give the source's
// triangle count and volume up to the exporter's rounding. Assimp reads and writes single precision (9 significant
// digits in the text: the coordinates move by at most 2^-24 relative, the volume by about 3 * 6e-8); 1e-6 relative
// covers it, and a misread index, stride, offset or transform would be off by far more.
Test(import, collada_written_by_assimp_matches_the_source)
{
    static char obj[65536];
    sphere_obj(obj, sizeof obj);
    static char src[2][1300];
    snprintf(src[0], sizeof src[0], "%s", write_text("sphere.obj", obj));
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(root != NULL, "MC_SOURCE_ROOT not set");
    snprintf(src[1], sizeof src[1], "%s/data/prusa/LCD-knob.stl", root);
    for (int f = 0; f < 2; ++f)
    {
        mc_mesh_report ref, r;
        mc_error e;
        cr_assert(eq(int, check(src[f], &ref, &e), MC_OK), "%s", e.message);
        const struct aiScene* scene = aiImportFile(src[f], aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
        cr_assert(ne(ptr, (void*)scene, NULL), "%s", aiGetErrorString());
        const char* out = file_path(f == 0 ? "sphere.dae" : "knob.dae");
        cr_assert(eq(int, aiExportScene(scene, "collada", out, 0), AI_SUCCESS), "%s", aiGetErrorString());
        aiReleaseImport(scene);
        cr_assert(eq(int, check(out, &r, &e), MC_OK), "%s", e.message);
        cr_assert(eq(u32, r.input_triangles, ref.input_triangles), "%s", src[f]);
        cr_assert(r.closed && r.contact_ready, "%s", src[f]);
        cr_assert(fabs(r.volume - ref.volume) < 1e-6 * ref.volume, "%s: %.17g vs %.17g", src[f], r.volume, ref.volume);
    }
}
