// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the B-rep import (STEP, IGES, BREP through gmsh): parts made here with gmsh's OpenCASCADE kernel (a box
// and a cylinder) and the committed IGES part data/brep/box_cylinder.igs import closed and outward, with a volume
// within chord tolerance times area of the exact B-rep volume, and work in a contact query; surfaces without a solid,
// a bad solid number and text that is not STEP are refused with clear messages. The reader lives in meshcontact-brep,
// registered by each test's setup; without it the error says what to link and call. Without gmsh: the error names the
// package.
#include "meshcontact/meshcontact.h"
#if defined(MC_HAVE_GMSH)
#include "meshcontact/brep.h"
#endif

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char s_dir[256];

static void setup(void)
{
    const char* tmp = getenv("TMPDIR");
    snprintf(s_dir, sizeof s_dir, "%s/mc_brep_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : ".");
    cr_assert(ne(ptr, mkdtemp(s_dir), NULL));
#if defined(MC_HAVE_GMSH)
    mc_brep_register();
#endif
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    cr_assert(eq(int, system(cmd), 0));
    cr_assert(eq(i64, mc_get_byte_count(), 0), "every import array freed");
}

TestSuite(brep, .init = setup, .fini = teardown);

static void path_in_dir(char* out, size_t size, const char* name)
{
    snprintf(out, size, "%s/%s", s_dir, name);
}

/// Write `text` to the file `name` of the test's folder; its path in out.
static void write_in_dir(char* out, size_t size, const char* name, const char* text)
{
    path_in_dir(out, size, name);
    FILE* f = fopen(out, "w");
    cr_assert(ne(ptr, f, NULL), "cannot write %s", out);
    fputs(text, f);
    fclose(f);
}

/// A host's own B-rep reader (the core's hook, with or without gmsh): a tetrahedron in millimetres, or the faults of
/// s_fault.
typedef enum reader_fault
{
    FAULT_NONE,
    FAULT_POINT_LEFT_NAN,     ///< one point never written
    FAULT_BAD_SCALE,          ///< info.file_scale 0
    FAULT_ERROR_WITHOUT_TEXT, ///< MC_ERR_IO with an empty message
} reader_fault;

static reader_fault s_fault;

static mc_status tetra_reader(const char* path, const mc_import_options* options, mc_brep_sink* sink,
                              mc_brep_info* info, mc_error* err)
{
    (void)path;
    cr_assert(ne(ptr, (void*)options, NULL));
    if (s_fault == FAULT_ERROR_WITHOUT_TEXT)
    {
        err->status = MC_ERR_IO;
        return MC_ERR_IO;
    }
    static const double p[12] = {0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 10};
    static const uint32_t t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    double* xyz = NULL;
    mc_status st = mc_brep_sink_add_points(sink, 4, &xyz, err);
    if (st != MC_OK)
    {
        return st;
    }
    memcpy(xyz, p, sizeof p - (s_fault == FAULT_POINT_LEFT_NAN ? 3 * sizeof(double) : 0));
    uint32_t* tri = NULL;
    st = mc_brep_sink_add_triangles(sink, 4, &tri, err);
    if (st != MC_OK)
    {
        return st;
    }
    memcpy(tri, t, sizeof t);
    info->file_scale = s_fault == FAULT_BAD_SCALE ? 0.0 : 1e-3;
    info->solids = 1;
    info->surfaces = 4;
    info->volume = 1000.0 / 6.0;
    return MC_OK;
}

static mc_status import_with(const char* name, reader_fault fault, uint64_t max_triangles, mc_mesh** mesh,
                             mc_mesh_report* rep, mc_error* err)
{
    char path[300];
    path_in_dir(path, sizeof path, name);
    FILE* f = fopen(path, "w");
    cr_assert(ne(ptr, f, NULL));
    fputs("read by the test's reader\n", f);
    fclose(f);
    mc_mesh_set_brep_reader(tetra_reader);
    s_fault = fault;
    mc_import_options o = mc_default_import_options();
    o.scale = 1000.0;
    o.max_triangles = max_triangles;
    return mc_mesh_import_file(path, &o, mesh, rep, err);
}

Test(brep, a_host_reader_fills_the_sink)
{
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    mc_error err;
    cr_assert(eq(int, import_with("tetra.step", FAULT_NONE, 100, &mesh, &rep, &err), MC_OK), "%s", err.message);
    cr_assert(eq(u32, rep.triangles, 4));
    cr_assert(eq(u32, rep.brep_solids, 1));
    cr_assert(eq(u32, rep.brep_surfaces, 4));
    cr_assert(ieee_ulp_eq(dbl, rep.volume, 1000.0 / 6.0, 4), "millimetres, times 1e-3, times the scale 1000");
    cr_assert(ieee_ulp_eq(dbl, rep.brep_volume, 1000.0 / 6.0, 4));
    mc_mesh_destroy(mesh);
}

Test(brep, a_faulty_host_reader_fails_the_import)
{
    mc_mesh* mesh = NULL;
    mc_error err;
    cr_assert(eq(int, import_with("nan.step", FAULT_POINT_LEFT_NAN, 100, &mesh, NULL, &err), MC_ERR_NON_FINITE), "%s",
              err.message);
    cr_assert(eq(int, import_with("scale.step", FAULT_BAD_SCALE, 100, &mesh, NULL, &err), MC_ERR_PARSE));
    cr_assert(ne(ptr, strstr(err.message, "file_scale 0"), NULL), "%s", err.message);
    cr_assert(eq(int, import_with("quiet.step", FAULT_ERROR_WITHOUT_TEXT, 100, &mesh, NULL, &err), MC_ERR_IO));
    cr_assert(ne(ptr, strstr(err.message, "quiet.step: the B-rep reader failed"), NULL), "%s", err.message);
    cr_assert(eq(int, import_with("limit.step", FAULT_NONE, 3, &mesh, NULL, &err), MC_ERR_LIMIT));
    cr_assert(ne(ptr, strstr(err.message, "limit.step"), NULL), "%s", err.message);
    cr_assert(eq(ptr, mesh, NULL));
}

#ifndef MC_HAVE_GMSH

Test(brep, without_gmsh_the_error_names_the_package)
{
    char path[300];
    write_in_dir(path, sizeof path, "part.step", "ISO-10303-21;\n");
    mc_mesh* mesh = NULL;
    mc_error err;
    cr_assert(mc_mesh_get_brep_reader() == NULL, "no reader unless one is installed");
    cr_assert(eq(int, mc_mesh_import_file(path, NULL, &mesh, NULL, &err), MC_ERR_UNSUPPORTED_FORMAT));
    cr_assert(ne(ptr, strstr(err.message, "libgmsh-dev"), NULL), "%s", err.message);
}

#else

#include <gmshc.h>

// Without the registration, a STEP file is refused with a message that says what to link and call; registering again
// (twice: harmless) makes it readable.
Test(brep, without_the_registration_the_error_says_what_to_link)
{
    cr_assert(mc_mesh_get_brep_reader() == mc_brep_read_gmsh, "the setup registered the reader");
    mc_mesh_set_brep_reader(NULL);
    char path[300];
    write_in_dir(path, sizeof path, "part.step", "ISO-10303-21;\n");
    mc_mesh* mesh = NULL;
    mc_error err;
    cr_assert(eq(int, mc_mesh_import_file(path, NULL, &mesh, NULL, &err), MC_ERR_UNSUPPORTED_FORMAT));
    cr_assert(ne(ptr, strstr(err.message, "meshcontact-brep"), NULL), "%s", err.message);
    cr_assert(ne(ptr, strstr(err.message, "mc_brep_register()"), NULL), "%s", err.message);
    cr_assert(ne(ptr, strstr(err.message, "part.step"), NULL), "%s", err.message);
    mc_brep_register();
    mc_brep_register();
    cr_assert(mc_mesh_get_brep_reader() == mc_brep_read_gmsh);
    mc_status st = mc_mesh_import_file(path, NULL, &mesh, NULL, &err);
    cr_assert(st == MC_ERR_PARSE || st == MC_ERR_EMPTY_MESH, "gmsh read it: status %d, %s", st, err.message);
}

/// Parts the tests write with gmsh, in model units that the STEP file declares as millimetres.
typedef enum part_kind
{
    PART_BOX,          ///< box 1 x 2 x 3 at the origin
    PART_BOX_CYLINDER, ///< the box and a cylinder of radius 0.5, height 2 on the z axis through (3, 0, 0)
    PART_SQUARE,       ///< a unit square surface, no solid
} part_kind;

static const double s_box_volume = 6.0;
static const double s_cylinder_volume = MC_PI * 0.25 * 2.0;

static void write_part(const char* path, part_kind kind)
{
    int ierr = 0;
    gmshInitialize(0, NULL, 0, &ierr);
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
    gmshModelAdd("test", &ierr);
    if (kind == PART_BOX || kind == PART_BOX_CYLINDER)
    {
        gmshModelOccAddBox(0, 0, 0, 1, 2, 3, -1, &ierr);
    }
    if (kind == PART_BOX_CYLINDER)
    {
        gmshModelOccAddCylinder(3, 0, 0, 0, 0, 2, 0.5, -1, 2 * MC_PI, &ierr);
    }
    if (kind == PART_SQUARE)
    {
        gmshModelOccAddRectangle(0, 0, 0, 1, 1, -1, 0, &ierr);
    }
    gmshModelOccSynchronize(&ierr);
    gmshWrite(path, &ierr);
    cr_assert(eq(int, ierr, 0), "gmsh wrote %s", path);
    gmshFinalize(&ierr);
}

/// Import with the scale that turns the file's millimetres back into model units (1000 for STEP and IGES).
static mc_status import(const char* path, double chord, int32_t solid, mc_mesh** mesh, mc_mesh_report* rep,
                        mc_error* err)
{
    mc_import_options o = mc_default_import_options();
    o.scale = strstr(path, ".brep") != NULL ? 1.0 : 1000.0;
    o.chord_tolerance = chord;
    o.brep_solid = solid;
    return mc_mesh_import_file(path, &o, mesh, rep, err);
}

/// A closed, outward mesh whose volume is within chord tolerance times area of the exact B-rep volume, which is
/// `exact` (closed form) to 1e-9.
static void check_solid(const mc_mesh_report* rep, double chord, double exact)
{
    cr_assert(rep->closed && rep->oriented && rep->contact_ready);
    cr_assert(not(rep->reoriented), "faces wound outward by their orientation in the solid");
    cr_assert(epsilon_eq(dbl, rep->brep_volume, exact, 1e-9 * exact), "OpenCASCADE's volume %.17g", rep->brep_volume);
    // Every facet lies within the chord tolerance of the surface (gmsh aims at it): the volumes differ by at most
    // chord x area. Flat faces are exact, so the bound is loose for these parts.
    cr_assert(le(dbl, fabs(rep->volume - rep->brep_volume), chord * rep->area), "mesh %.17g, exact %.17g, bound %g",
              rep->volume, rep->brep_volume, chord * rep->area);
}

Test(brep, step_box_and_cylinder_import_closed_within_the_chord_bound)
{
    char path[300];
    path_in_dir(path, sizeof path, "box_cylinder.step");
    write_part(path, PART_BOX_CYLINDER);
    double chords[] = {0.02, 0.002};
    uint32_t triangles[2] = {0, 0};
    for (int k = 0; k < 2; ++k)
    {
        mc_mesh* mesh = NULL;
        mc_mesh_report rep;
        mc_error err;
        cr_assert(eq(int, import(path, chords[k], -1, &mesh, &rep, &err), MC_OK), "%s", err.message);
        cr_assert(eq(u32, rep.brep_solids, 2));
        cr_assert(eq(u32, rep.brep_surfaces, 9)); // 6 box faces; cylinder side, top, bottom
        cr_assert(eq(u32, rep.components, 2));
        check_solid(&rep, chords[k], s_box_volume + s_cylinder_volume);
        cr_assert(epsilon_eq(dbl, rep.bbox_max.x, 3.5, 1e-9), "millimetres in the file, model units back");
        triangles[k] = rep.triangles;
        mc_mesh_destroy(mesh);
    }
    cr_assert(gt(u32, triangles[1], 4 * triangles[0]), "a finer chord tolerance gives more facets");
}

Test(brep, each_solid_as_its_own_mesh)
{
    char path[300];
    path_in_dir(path, sizeof path, "box_cylinder.stp");
    write_part(path, PART_BOX_CYLINDER);
    const double exact[2] = {s_box_volume, s_cylinder_volume};
    for (int32_t k = 0; k < 2; ++k)
    {
        mc_mesh* mesh = NULL;
        mc_mesh_report rep;
        mc_error err;
        cr_assert(eq(int, import(path, 0.01, k, &mesh, &rep, &err), MC_OK), "%s", err.message);
        cr_assert(eq(u32, rep.components, 1));
        check_solid(&rep, 0.01, exact[k]);
        mc_mesh_destroy(mesh);
    }
    mc_mesh* mesh = NULL;
    mc_error err;
    cr_assert(eq(int, import(path, 0.01, 2, &mesh, NULL, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(ne(ptr, strstr(err.message, "the file has 2 solids"), NULL), "%s", err.message);
}

Test(brep, brep_file_units_are_taken_as_they_are)
{
    char path[300];
    path_in_dir(path, sizeof path, "box.brep");
    write_part(path, PART_BOX);
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    mc_error err;
    cr_assert(eq(int, import(path, 0.01, -1, &mesh, &rep, &err), MC_OK), "%s", err.message);
    check_solid(&rep, 0.01, s_box_volume);
    cr_assert(ieee_ulp_eq(dbl, rep.volume, s_box_volume, 16), "a box is faceted exactly");
    mc_mesh_destroy(mesh);
}

Test(brep, iges_part_imports_closed_within_the_chord_bound)
{
    char path[600];
    const char* root = getenv("MC_SOURCE_ROOT");
    cr_assert(ne(ptr, (void*)root, NULL));
    snprintf(path, sizeof path, "%s/data/brep/box_cylinder.igs", root);
    mc_import_options o = mc_default_import_options();
    o.chord_tolerance = 0.1; // millimetres: the file's lengths are millimetres, kept by scale 1000
    o.scale = 1000.0;
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    mc_error err;
    cr_assert(eq(int, mc_mesh_import_file(path, &o, &mesh, &rep, &err), MC_OK), "%s", err.message);
    cr_assert(eq(u32, rep.brep_solids, 2));
    check_solid(&rep, 0.1, 6000.0 + 500.0 * MC_PI);
    mc_mesh_destroy(mesh);
}

// A real CAD part that Debian ships with OpenCASCADE (package occt-misc, a dependency of libgmsh-dev): skipped when
// the package's sample data are not installed.
Test(brep, real_part_from_opencascade_samples)
{
    static const char* const files[] = {"/usr/share/opencascade/data/step/screw.step"};
    int found = 0;
    for (int k = 0; k < 1; ++k)
    {
        if (access(files[k], R_OK) != 0)
        {
            continue;
        }
        ++found;
        mc_import_options o = mc_default_import_options();
        o.scale = 1000.0;
        mc_mesh* mesh = NULL;
        mc_mesh_report rep;
        mc_error err;
        cr_assert(eq(int, mc_mesh_import_file(files[k], &o, &mesh, &rep, &err), MC_OK), "%s", err.message);
        cr_assert(ge(u32, rep.brep_solids, 1));
        // The default chord: 0.005 of the largest extent.
        mc_vec3 d = mc_sub(rep.bbox_max, rep.bbox_min);
        check_solid(&rep, 0.005 * fmax(d.x, fmax(d.y, d.z)), rep.brep_volume);
        mc_mesh_destroy(mesh);
    }
    if (found == 0)
    {
        cr_skip_test("OpenCASCADE's sample data (Debian package occt-misc) are not installed");
    }
}

// Two boxes from the same STEP file, the second moved by 0.5 along x: their overlap is a 0.5 x 2 x 3 box (flat
// faces are faceted exactly, so the contact volume is exact up to rounding).
Test(brep, contact_works_on_imported_parts)
{
    char path[300];
    path_in_dir(path, sizeof path, "box.step");
    write_part(path, PART_BOX);
    mc_mesh* mesh = NULL;
    mc_error err;
    cr_assert(eq(int, import(path, 0.01, -1, &mesh, NULL, &err), MC_OK), "%s", err.message);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_pose a = mc_pose_identity(), b = mc_pose_identity();
    b.p = mc_v3(0.5, 0.1, 0.2);
    mc_region regions[4];
    uint32_t n = 0;
    cr_assert(eq(int, mc_query_regions(mesh, &a, mesh, &b, NULL, ws, regions, 4, &n, NULL), MC_OK));
    cr_assert(eq(u32, n, 1));
    cr_assert(epsilon_eq(dbl, regions[0].volume, 0.5 * 1.9 * 2.8, 1e-12));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(mesh);
}

Test(brep, surfaces_without_a_solid_are_refused_with_the_open_shells)
{
    char path[300];
    path_in_dir(path, sizeof path, "square.step");
    write_part(path, PART_SQUARE);
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    mc_error err;
    cr_assert(eq(int, import(path, 0.01, -1, &mesh, &rep, &err), MC_ERR_MESH_NOT_CLOSED));
    cr_assert(ne(ptr, strstr(err.message, "no solid in the file, only 1 surfaces: 1 open shells"), NULL), "%s",
              err.message);
    cr_assert(eq(u32, rep.brep_solids, 0));
    cr_assert(gt(u32, rep.boundary_edges, 3));
}

Test(brep, text_that_is_not_a_cad_file_is_refused_before_opencascade)
{
    const char* names[] = {"junk.step", "junk.igs", "junk.brep"};
    const char* want[] = {"not a STEP file", "not an IGES file", "not an OpenCASCADE .brep file"};
    for (int k = 0; k < 3; ++k)
    {
        char path[300];
        path_in_dir(path, sizeof path, names[k]);
        FILE* f = fopen(path, "w");
        cr_assert(ne(ptr, f, NULL));
        fputs("solid not really\n", f);
        fclose(f);
        mc_mesh* mesh = NULL;
        mc_error err;
        cr_assert(eq(int, mc_mesh_import_file(path, NULL, &mesh, NULL, &err), MC_ERR_PARSE));
        cr_assert(ne(ptr, strstr(err.message, want[k]), NULL), "%s", err.message);
    }
    // The first half of a real STEP file: refused, no crash, nothing leaked (the suite's teardown counts bytes).
    char whole[300], half[300];
    path_in_dir(whole, sizeof whole, "whole.step");
    path_in_dir(half, sizeof half, "half.step");
    write_part(whole, PART_BOX_CYLINDER);
    FILE* in = fopen(whole, "rb");
    FILE* out = fopen(half, "wb");
    cr_assert(ne(ptr, in, NULL));
    cr_assert(ne(ptr, out, NULL));
    char buf[65536];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got / 2, out);
    fclose(in);
    fclose(out);
    mc_mesh* cut = NULL;
    mc_error cut_err;
    mc_status cut_st = mc_mesh_import_file(half, NULL, &cut, NULL, &cut_err);
    if (cut_st == MC_OK)
    {
        mc_mesh_destroy(cut); // OpenCASCADE may recover the solids written before the cut: then they must be usable
    }
    else
    {
        cr_assert(ne(ptr, strstr(cut_err.message, "half.step"), NULL), "%s", cut_err.message);
    }
    // A STEP header with nothing readable after it: gmsh's own error.
    char path[300];
    write_in_dir(path, sizeof path, "empty.step",
                 "ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n");
    mc_mesh* mesh = NULL;
    mc_error err;
    mc_status st = mc_mesh_import_file(path, NULL, &mesh, NULL, &err);
    cr_assert(st == MC_ERR_PARSE || st == MC_ERR_EMPTY_MESH, "status %d: %s", st, err.message);
    cr_assert(ne(ptr, strstr(err.message, "empty.step"), NULL), "%s", err.message);
}

#endif
