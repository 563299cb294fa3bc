// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of mesh repair (mc_mesh_repair and the import option): each repair on a cube or a sphere spoiled in a known
// way, checked against the closed-form volume of the unspoiled solid and the exact counts of what was spoiled.
#include "meshcontact/meshcontact.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Unit cube [0,1]^3, outward triangles.
static const double s_cube_pos[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                        {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const uint32_t s_cube_tri[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                           {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};

/// A soup the tests spoil: up to 64 points and 64 triangles.
typedef struct soup
{
    double pos[256][3];
    uint32_t nv;
    uint32_t tri[256][3];
    uint32_t nt;
} soup;

static void add_cube(soup* s, double x0, double y0, double z0, double size)
{
    uint32_t base = s->nv;
    for (int i = 0; i < 8; ++i)
    {
        s->pos[s->nv][0] = x0 + size * s_cube_pos[i][0];
        s->pos[s->nv][1] = y0 + size * s_cube_pos[i][1];
        s->pos[s->nv][2] = z0 + size * s_cube_pos[i][2];
        s->nv++;
    }
    for (int t = 0; t < 12; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            s->tri[s->nt][k] = base + s_cube_tri[t][k];
        }
        s->nt++;
    }
}

static void flip(soup* s, uint32_t t)
{
    uint32_t tmp = s->tri[t][1];
    s->tri[t][1] = s->tri[t][2];
    s->tri[t][2] = tmp;
}

/// Repair with `opt`, then create a mesh (default def); the mesh's volume in *volume. @return the creation status.
static mc_status repair_and_create(const soup* s, const mc_repair_options* opt, mc_repair_report* rep, double* volume)
{
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    mc_error err;
    mc_status st = mc_mesh_repair(opt, &s->pos[0][0], s->nv, &s->tri[0][0], s->nt, &pos, &nv, &idx, &nt, rep, &err);
    cr_assert(eq(int, st, MC_OK), "%s", err.message);
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = pos;
    def.vertex_count = nv;
    def.indices = idx;
    def.triangle_count = nt;
    mc_mesh* mesh = NULL;
    mc_mesh_report mrep;
    st = mc_mesh_create(&def, &mesh, &mrep, &err);
    *volume = mrep.volume;
    if (st == MC_OK)
    {
        cr_assert(mrep.closed && mrep.oriented && mrep.contact_ready);
        cr_assert(not(mrep.reoriented), "the repair leaves the mesh outward");
    }
    mc_mesh_destroy(mesh);
    mc_free_arrays(pos, idx);
    return st;
}

static mc_status create_plain(const soup* s)
{
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = &s->pos[0][0];
    def.vertex_count = s->nv;
    def.indices = &s->tri[0][0];
    def.triangle_count = s->nt;
    mc_mesh* mesh = NULL;
    mc_status st = mc_mesh_create(&def, &mesh, NULL, NULL);
    mc_mesh_destroy(mesh);
    return st;
}

static void teardown(void)
{
    cr_assert(eq(i64, mc_get_byte_count(), 0), "every repair array freed");
}

TestSuite(repair, .fini = teardown);

Test(repair, cube_with_one_flipped_face)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    flip(&s, 6);
    flip(&s, 7);
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED), "refused as read");
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.flipped_triangles, 2));
    cr_assert(eq(u32, rep.reversed_components, 0));
    cr_assert(ieee_ulp_eq(dbl, v, 1.0, 4));
}

Test(repair, inside_out_cube_is_reversed_as_a_whole)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    for (uint32_t t = 0; t < s.nt; ++t)
    {
        flip(&s, t);
    }
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.flipped_triangles, 0));
    cr_assert(eq(u32, rep.reversed_components, 1));
    cr_assert(ieee_ulp_eq(dbl, v, 1.0, 4));
}

Test(repair, duplicated_and_back_to_back_faces)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    // Three exact copies, one copy wound the other way (a back-to-back pair with its original: both go, which opens
    // a hole that the hole filling closes again), and a loose back-to-back pair inside.
    for (uint32_t t = 0; t < 3; ++t)
    {
        memcpy(s.tri[s.nt++], s.tri[2 * t + 2], sizeof s.tri[0]);
    }
    memcpy(s.tri[s.nt], s.tri[11], sizeof s.tri[0]);
    flip(&s, s.nt++);
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.duplicate_triangles, 3));
    cr_assert(eq(u32, rep.back_to_back_triangles, 2));
    cr_assert(eq(u32, rep.filled_holes, 1));
    cr_assert(eq(u32, rep.fill_triangles, 1));
    cr_assert(ieee_ulp_eq(dbl, v, 1.0, 4));
}

Test(repair, missing_triangles_are_filled)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    // Remove triangle 4 (on y = 0) and both triangles of face 8/9 (y = 1: a quad hole, whose least-area split is
    // one of its diagonals; both give the same planar face). The two holes share no vertex.
    uint32_t n = 0;
    for (uint32_t t = 0; t < 12; ++t)
    {
        if (t != 4 && t != 8 && t != 9)
        {
            memcpy(s.tri[n++], s.tri[t], sizeof s.tri[0]);
        }
    }
    s.nt = n;
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED));
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.filled_holes, 2));
    cr_assert(eq(u32, rep.fill_triangles, 3));
    cr_assert(ieee_ulp_eq(dbl, v, 1.0, 4));
}

Test(repair, large_holes_are_left_open_and_counted)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    s.nt = 10; // faces 10, 11 gone: a 4-edge hole
    mc_repair_options opt = mc_default_repair_options();
    opt.max_hole_edges = 3;
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(eq(u32, rep.filled_holes, 0));
    cr_assert(eq(u32, rep.unfilled_holes, 1));
    cr_assert(eq(u32, rep.largest_unfilled_hole, 4));
}

Test(repair, unwelded_vertices_weld_with_a_tolerance)
{
    // Every triangle with its own three points, each moved by up to 1e-9 (a CAD export's rounding).
    soup s = {0};
    srand(7);
    for (uint32_t t = 0; t < 12; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            for (int c = 0; c < 3; ++c)
            {
                s.pos[s.nv][c] = s_cube_pos[s_cube_tri[t][k]][c] + 1e-9 * ((double)rand() / RAND_MAX - 0.5);
            }
            s.tri[t][k] = s.nv++;
        }
    }
    s.nt = 12;
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED));
    mc_repair_options opt = mc_default_repair_options();
    opt.weld_tolerance = 1e-6;
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.welded_vertices, 36 - 8));
    cr_assert(epsilon_eq(dbl, rep.weld_distance, 1e-6 * sqrt(3.0), 1e-14)); // of the diagonal, sqrt(3) + O(1e-9)
    // Each point moved by at most 1e-9 * sqrt(3) / 2: the volume moves by at most that times the area (6).
    cr_assert(lt(dbl, fabs(v - 1.0), 6.0 * 1e-9));
    // The same with an absolute distance.
    opt.weld_tolerance = 0.0;
    opt.weld_distance = 1e-7;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.welded_vertices, 36 - 8));
    cr_assert(eq(dbl, rep.weld_distance, 1e-7));
}

Test(repair, two_solids_sharing_a_face_become_their_union)
{
    // Cubes [0,1]^3 and [1,2]x[0,1]^2, the face x = 1 stored once (as the first cube's face 6/7).
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    add_cube(&s, 1, 0, 0, 1);
    // Weld the second cube's x = 1 corners (0, 3, 4, 7) onto the first's (1, 2, 5, 6) and drop its own x = 1 face.
    for (uint32_t t = 12; t < 24; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            uint32_t local = s.tri[t][k] - 8, map[8] = {1, 0, 0, 2, 5, 0, 0, 6};
            if (local == 0 || local == 3 || local == 4 || local == 7)
            {
                s.tri[t][k] = map[local];
            }
        }
    }
    s.nt = 22; // the second cube's faces 10, 11 are its x = 0 face (the shared one): dropped
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED));
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.shared_face_triangles, 2));
    cr_assert(ieee_ulp_eq(dbl, v, 2.0, 4));
}

Test(repair, cavity_stays_inward_and_nested_shell_is_turned)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 3);
    add_cube(&s, 1, 1, 1, 1); // outward: counted twice as read; the repair makes it a cavity
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.reversed_components, 1));
    cr_assert(ieee_ulp_eq(dbl, v, 26.0, 4));
    // Already a cavity: nothing changes.
    for (uint32_t t = 12; t < 24; ++t)
    {
        flip(&s, t);
    }
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.reversed_components, 0));
    cr_assert(eq(u32, rep.flipped_triangles, 0));
    cr_assert(ieee_ulp_eq(dbl, v, 26.0, 4));
}

Test(repair, loose_components_are_removed)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    add_cube(&s, 5, 5, 5, 0.001);
    s.pos[s.nv][0] = 9, s.pos[s.nv][1] = 9, s.pos[s.nv][2] = 9;
    s.pos[s.nv + 1][0] = 10, s.pos[s.nv + 1][1] = 9, s.pos[s.nv + 1][2] = 9;
    s.pos[s.nv + 2][0] = 9, s.pos[s.nv + 2][1] = 10, s.pos[s.nv + 2][2] = 9;
    s.tri[s.nt][0] = s.nv, s.tri[s.nt][1] = s.nv + 1, s.tri[s.nt][2] = s.nv + 2;
    s.nv += 3, s.nt++;
    mc_repair_options opt = mc_default_repair_options();
    opt.min_component_size = 0.01; // of the diagonal (about 17): the 0.001 cube goes too
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.loose_components, 2));
    cr_assert(eq(u32, rep.loose_triangles, 13));
    cr_assert(ieee_ulp_eq(dbl, v, 1.0, 4));
}

Test(repair, pinched_vertex_is_split)
{
    // Two unit cubes touching at one corner: (1,1,1) is pinched.
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    add_cube(&s, 1, 1, 1, 1);
    for (uint32_t t = 12; t < 24; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            s.tri[t][k] = s.tri[t][k] == 8 ? 6 : s.tri[t][k];
        }
    }
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED));
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.split_vertices, 1));
    // Each corner moved 1e-9 of the diagonal (sqrt(12)) into its cube: a volume change below that times the area.
    cr_assert(lt(dbl, fabs(v - 2.0), 1e-9 * sqrt(12.0) * 12.0));
}

// A sphere with random triangles flipped and random triangles (no two sharing a vertex) removed: the repair must
// give back the sphere's volume (a removed triangle is refilled by itself, the only triangulation of its loop).
Test(repair, random_flips_and_holes_on_a_sphere)
{
    mc_primitive_def pd = mc_default_primitive_def();
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert(eq(int, mc_primitive_tessellate_count(&pd, 2000, &pos, &nv, &idx, &nt, NULL), MC_OK));
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = pos, def.vertex_count = nv, def.indices = idx, def.triangle_count = nt;
    mc_mesh_report ref;
    mc_mesh* mesh = NULL;
    cr_assert(eq(int, mc_mesh_create(&def, &mesh, &ref, NULL), MC_OK));
    mc_mesh_destroy(mesh);
    srand(11);
    for (int round = 0; round < 10; ++round)
    {
        uint32_t* spoilt = malloc(3 * (size_t)nt * sizeof(uint32_t));
        uint8_t* touched = calloc(nv, 1);
        uint32_t kept = 0, removed = 0, flipped = 0;
        for (uint32_t t = 0; t < nt; ++t)
        {
            const uint32_t* x = idx + 3 * (size_t)t;
            int r = rand() % 40;
            if (r == 0 && !touched[x[0]] && !touched[x[1]] && !touched[x[2]])
            {
                touched[x[0]] = touched[x[1]] = touched[x[2]] = 1;
                removed++;
                continue;
            }
            uint32_t* y = spoilt + 3 * (size_t)kept++;
            bool f = r == 1;
            y[0] = x[0], y[1] = f ? x[2] : x[1], y[2] = f ? x[1] : x[2];
            flipped += f;
        }
        mc_repair_report rep;
        double* rpos = NULL;
        uint32_t* ridx = NULL;
        uint32_t rnv = 0, rnt = 0;
        cr_assert(eq(int, mc_mesh_repair(NULL, pos, nv, spoilt, kept, &rpos, &rnv, &ridx, &rnt, &rep, NULL), MC_OK));
        cr_assert(eq(u32, rep.filled_holes, removed));
        cr_assert(eq(u32, rep.fill_triangles, removed));
        cr_assert(eq(u32, rnt, nt));
        // The flips were a minority of every patch... unless a flipped triangle sits next to a hole: then it can be
        // isolated over edges used twice; it still joins the rest over its other edges, so every flip is undone.
        cr_assert(eq(u32, rep.flipped_triangles, flipped));
        def.positions = rpos, def.vertex_count = rnv, def.indices = ridx, def.triangle_count = rnt;
        mc_mesh_report got;
        cr_assert(eq(int, mc_mesh_create(&def, &mesh, &got, NULL), MC_OK));
        // Same triangles in another order (the fills come last): the sums differ by rounding only.
        cr_assert(epsilon_eq(dbl, got.volume, ref.volume, 1e-12 * ref.volume));
        mc_mesh_destroy(mesh);
        mc_free_arrays(rpos, ridx);
        free(spoilt);
        free(touched);
    }
    mc_free_arrays(pos, idx);
}

Test(repair, bad_options_are_refused)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    mc_error err;
    mc_repair_options opt = mc_default_repair_options();
    opt.weld_tolerance = 0.5;
    cr_assert(eq(int, mc_mesh_repair(&opt, &s.pos[0][0], s.nv, &s.tri[0][0], s.nt, &pos, &nv, &idx, &nt, NULL, &err),
                 MC_ERR_INVALID_ARGUMENT));
    cr_assert(ne(ptr, strstr(err.message, "weld tolerance"), NULL), "%s", err.message);
    opt = mc_default_repair_options();
    opt.weld_tolerance = 1e-6;
    opt.weld_distance = 1e-6;
    cr_assert(eq(int, mc_mesh_repair(&opt, &s.pos[0][0], s.nv, &s.tri[0][0], s.nt, &pos, &nv, &idx, &nt, NULL, &err),
                 MC_ERR_INVALID_ARGUMENT));
    opt = mc_default_repair_options();
    opt.max_hole_edges = 1000;
    cr_assert(eq(int, mc_mesh_repair(&opt, &s.pos[0][0], s.nv, &s.tri[0][0], s.nt, &pos, &nv, &idx, &nt, NULL, &err),
                 MC_ERR_INVALID_ARGUMENT));
    opt = mc_default_repair_options();
    s.tri[3][1] = 99;
    cr_assert(eq(int, mc_mesh_repair(&opt, &s.pos[0][0], s.nv, &s.tri[0][0], s.nt, &pos, &nv, &idx, &nt, NULL, &err),
                 MC_ERR_INDEX_OUT_OF_RANGE));
    cr_assert(eq(ptr, pos, NULL));
    cr_assert(eq(ptr, idx, NULL));
}

// The import option: an ASCII STL cube with a flipped face is refused as read and imported with the repair, whose
// report comes with the mesh's.
Test(repair, import_option_repairs_and_reports)
{
    char dir[256];
    const char* tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mc_repair_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : ".");
    cr_assert(ne(ptr, mkdtemp(dir), NULL));
    char path[300];
    snprintf(path, sizeof path, "%s/flipped.stl", dir);
    FILE* f = fopen(path, "w");
    cr_assert(ne(ptr, f, NULL));
    fprintf(f, "solid cube with a flipped face\n");
    for (int t = 0; t < 12; ++t)
    {
        const uint32_t* x = s_cube_tri[t];
        uint32_t order[3] = {x[0], t == 4 ? x[2] : x[1], t == 4 ? x[1] : x[2]};
        fprintf(f, " facet normal 0 0 0\n  outer loop\n");
        for (int k = 0; k < 3; ++k)
        {
            const double* p = s_cube_pos[order[k]];
            fprintf(f, "   vertex %g %g %g\n", p[0], p[1], p[2]);
        }
        fprintf(f, "  endloop\n endfacet\n");
    }
    fprintf(f, "endsolid cube with a flipped face\n");
    fclose(f);
    mc_import_options io = mc_default_import_options();
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    cr_assert(eq(int, mc_mesh_import_file(path, &io, &mesh, &rep, NULL), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(not(rep.repair.ran));
    io.repair.flags = MC_REPAIR_ALL;
    io.scale = 2.0;
    cr_assert(eq(int, mc_mesh_import_file(path, &io, &mesh, &rep, NULL), MC_OK));
    cr_assert(rep.repair.ran);
    cr_assert(eq(u32, rep.repair.flipped_triangles, 1));
    cr_assert(ieee_ulp_eq(dbl, rep.volume, 8.0, 4));
    mc_mesh_destroy(mesh);
    // check_file reports the repaired mesh too.
    cr_assert(eq(int, mc_mesh_check_file(path, &io, &rep, NULL), MC_OK));
    cr_assert(rep.contact_ready);
    remove(path);
    rmdir(dir);
}

Test(repair, edge_shared_by_two_solids_is_split)
{
    // Cubes [0,1]^3 and [1,2]x[1,2]x[0,1] sharing the edge from (1,1,0) to (1,1,1): used by four triangles.
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    add_cube(&s, 1, 1, 0, 1);
    for (uint32_t t = 12; t < 24; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            uint32_t v = s.tri[t][k];
            s.tri[t][k] = v == 8 ? 2 : v == 12 ? 6 : v;
        }
    }
    cr_assert(eq(int, create_plain(&s), MC_ERR_MESH_NOT_CLOSED));
    mc_repair_options opt = mc_default_repair_options();
    mc_repair_report rep;
    double v = 0.0;
    cr_assert(eq(int, repair_and_create(&s, &opt, &rep, &v), MC_OK));
    cr_assert(eq(u32, rep.split_edges, 1));
    cr_assert(eq(u32, rep.split_vertices, 2));
    cr_assert(lt(dbl, fabs(v - 2.0), 1e-9 * sqrt(9.0) * 12.0 * 2.0));
}

// Holes that are not flat: the triangles around five vertices of a sphere removed (loops of 4 to 6 edges on a curved
// surface). The fill must not fold onto the surface (the self-check of mesh creation passes) and removes a little
// volume: each cap lost lies inside the sphere's facets, under 1 % of the volume in all.
Test(repair, curved_holes_fill_without_folds)
{
    mc_primitive_def pd = mc_default_primitive_def();
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert(eq(int, mc_primitive_tessellate_count(&pd, 2000, &pos, &nv, &idx, &nt, NULL), MC_OK));
    double full = 0.0;
    for (uint32_t t = 0; t < nt; ++t)
    {
        const double* a = pos + 3 * idx[3 * t];
        const double* b = pos + 3 * idx[3 * t + 1];
        const double* c = pos + 3 * idx[3 * t + 2];
        full += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                 a[2] * (b[0] * c[1] - b[1] * c[0])) /
                6.0;
    }
    const uint32_t centres[5] = {0, nv / 5, 2 * nv / 5, 3 * nv / 5, 4 * nv / 5};
    uint32_t* kept = malloc(3 * (size_t)nt * sizeof(uint32_t));
    uint32_t n = 0;
    for (uint32_t t = 0; t < nt; ++t)
    {
        bool drop = false;
        for (int c = 0; c < 5; ++c)
        {
            drop = drop || idx[3 * t] == centres[c] || idx[3 * t + 1] == centres[c] || idx[3 * t + 2] == centres[c];
        }
        if (!drop)
        {
            memcpy(kept + 3 * (size_t)n++, idx + 3 * (size_t)t, 3 * sizeof(uint32_t));
        }
    }
    double* rpos = NULL;
    uint32_t* ridx = NULL;
    uint32_t rnv = 0, rnt = 0;
    mc_repair_report rep;
    cr_assert(eq(int, mc_mesh_repair(NULL, pos, nv, kept, n, &rpos, &rnv, &ridx, &rnt, &rep, NULL), MC_OK));
    cr_assert(eq(u32, rep.filled_holes, 5));
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = rpos, def.vertex_count = rnv, def.indices = ridx, def.triangle_count = rnt;
    mc_mesh* mesh = NULL;
    mc_mesh_report got;
    mc_error err;
    cr_assert(eq(int, mc_mesh_create(&def, &mesh, &got, &err), MC_OK), "%s", err.message);
    cr_assert(lt(dbl, got.volume, full));
    cr_assert(gt(dbl, got.volume, 0.99 * full));
    mc_mesh_destroy(mesh);
    mc_free_arrays(rpos, ridx);
    mc_free_arrays(pos, idx);
    free(kept);
}

// Random soups (few points, so edges are shared by many triangles, with repeats, degenerate and pinched triangles):
// the repair never fails, its output indexes its own points, and mesh creation takes it or refuses it cleanly.
Test(repair, random_soups_never_break_it)
{
    srand(3);
    for (int round = 0; round < 300; ++round)
    {
        uint32_t nv = 4 + (uint32_t)(rand() % 12), nt = 1 + (uint32_t)(rand() % 40);
        double pos[16 * 3];
        uint32_t idx[40 * 3];
        for (uint32_t i = 0; i < 3 * nv; ++i)
        {
            pos[i] = (double)(rand() % 5) - 2.0 + (round % 3 == 0 ? 1e-9 * (double)(rand() % 3) : 0.0);
        }
        for (uint32_t i = 0; i < 3 * nt; ++i)
        {
            idx[i] = (uint32_t)rand() % nv;
        }
        mc_repair_options opt = mc_default_repair_options();
        opt.weld_tolerance = round % 2 == 0 ? 1e-6 : 0.0;
        double* rpos = NULL;
        uint32_t* ridx = NULL;
        uint32_t rnv = 0, rnt = 0;
        mc_repair_report rep;
        cr_assert(eq(int, mc_mesh_repair(&opt, pos, nv, idx, nt, &rpos, &rnv, &ridx, &rnt, &rep, NULL), MC_OK));
        for (uint32_t i = 0; i < 3 * rnt; ++i)
        {
            cr_assert(lt(u32, ridx[i], rnv));
        }
        if (rnt > 0)
        {
            mc_mesh_def def = mc_default_mesh_def();
            def.positions = rpos, def.vertex_count = rnv, def.indices = ridx, def.triangle_count = rnt;
            mc_mesh* mesh = NULL;
            mc_status st = mc_mesh_create(&def, &mesh, NULL, NULL);
            cr_assert(st == MC_OK || st == MC_ERR_MESH_NOT_CLOSED || st == MC_ERR_SELF_INTERSECTING ||
                          st == MC_ERR_EMPTY_MESH,
                      "status %d", st);
            mc_mesh_destroy(mesh);
        }
        mc_free_arrays(rpos, ridx);
    }
}

static long s_calls, s_fail_at; // allocations counted; when s_fail_at is non-zero, that one (1-based) fails

static void* failing_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    return ++s_calls == s_fail_at ? NULL : malloc(size);
}

static void failing_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

// Every allocation of a repair that runs every stage (weld, duplicates, shared faces, holes, pinches) made to fail
// in turn: out of memory is reported, and nothing is left allocated.
Test(repair, every_allocation_failure_is_reported_and_leaks_nothing)
{
    soup s = {0};
    add_cube(&s, 0, 0, 0, 1);
    add_cube(&s, 1, 1, 1, 1);
    for (uint32_t t = 12; t < 24; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            s.tri[t][k] = s.tri[t][k] == 8 ? 6 : s.tri[t][k]; // pinched corner
        }
    }
    memcpy(s.tri[s.nt++], s.tri[3], sizeof s.tri[0]);                                   // a duplicate
    flip(&s, 5);                                                                        // a flipped face
    s.tri[0][0] = s.tri[23][0], s.tri[0][1] = s.tri[23][1], s.tri[0][2] = s.tri[23][2]; // a hole, and a copy
    mc_repair_options opt = mc_default_repair_options();
    opt.weld_tolerance = 1e-6;
    mc_set_allocator(failing_alloc, failing_free);
    long k = 1;
    for (;; ++k)
    {
        s_calls = 0;
        s_fail_at = k;
        double* pos = NULL;
        uint32_t* idx = NULL;
        uint32_t nv = 0, nt = 0;
        mc_error err;
        mc_status st = mc_mesh_repair(&opt, &s.pos[0][0], s.nv, &s.tri[0][0], s.nt, &pos, &nv, &idx, &nt, NULL, &err);
        if (st == MC_OK)
        {
            mc_free_arrays(pos, idx);
            cr_assert(eq(i64, mc_get_byte_count(), 0));
            break;
        }
        cr_assert(eq(int, st, MC_ERR_OUT_OF_MEMORY), "allocation %ld: status %d (%s)", k, st, err.message);
        cr_assert(eq(ptr, pos, NULL));
        cr_assert(eq(i64, mc_get_byte_count(), 0), "allocation %ld: bytes left", k);
    }
    mc_set_allocator(NULL, NULL);
    cr_assert(gt(i64, k, 20), "the repair made %ld allocations", k);
}

// A welded cluster takes the point of its first member (in input order), exactly.
Test(repair, weld_keeps_the_first_point_of_a_cluster)
{
    const double pos[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {3e-9, -2e-9, 1e-9}};
    const uint32_t tri[4][3] = {{4, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}; // corner 0 written as 4 once
    mc_repair_options opt = mc_default_repair_options();
    opt.weld_distance = 1e-6;
    double* rpos = NULL;
    uint32_t* ridx = NULL;
    uint32_t rnv = 0, rnt = 0;
    mc_repair_report rep;
    cr_assert(eq(int, mc_mesh_repair(&opt, &pos[0][0], 5, &tri[0][0], 4, &rpos, &rnv, &ridx, &rnt, &rep, NULL), MC_OK));
    cr_assert(eq(u32, rep.welded_vertices, 1));
    cr_assert(eq(u32, rnv, 4));
    bool origin = false;
    for (uint32_t i = 0; i < rnv; ++i)
    {
        origin = origin || (rpos[3 * i] == 0.0 && rpos[3 * i + 1] == 0.0 && rpos[3 * i + 2] == 0.0);
        cr_assert(not(rpos[3 * i] == 3e-9), "the later member's point is not used");
    }
    cr_assert(origin);
    mc_free_arrays(rpos, ridx);
}
