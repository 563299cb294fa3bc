// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mass properties (mc_mesh_get_mass_properties, mc_mass_properties_combine) and transformed meshes
// (mc_mesh_create_transformed): closed forms on polyhedra whose values are known exactly (box, tetrahedron), the
// symmetry of a cube sphere, a torus against its true surface within the faceting bound, and an independent
// integration (tetrahedra from another apex, moments about the origin then shifted, in long double) on real meshes.
#include <criterion/criterion.h>
#include <math.h>
#include <meshcontact/meshcontact.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double rel(double a, double b, double scale)
{
    return fabs(a - b) / scale;
}

static double max_abs_mat(const mc_mat33* m)
{
    double x = 0.0;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            x = fmax(x, fabs(m->m[i][j]));
        }
    }
    return x;
}

// Largest entry difference of two matrices over the largest entry of b.
static double mat_rel(const mc_mat33* a, const mc_mat33* b)
{
    double d = 0.0;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
        }
    }
    return d / max_abs_mat(b);
}

static mc_mesh* box(double x, double y, double z)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_BOX;
    d.dims = mc_v3(x, y, z);
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, NULL), MC_OK);
    return m;
}

static mc_mesh* import(const char* relative)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root != NULL ? root : ".", relative);
    mc_mesh* m = NULL;
    mc_error e;
    mc_status st = mc_mesh_import_file(path, NULL, &m, NULL, &e);
    cr_assert_eq(st, MC_OK, "%s: %s", path, e.message);
    return m;
}

// The independent oracle: tetrahedra from the apex q (not the library's), in long double, moments about the
// origin, then the parallel-axis shift to the centroid (the route the library avoids). Long double carries 64 bits
// on x86-64: the shift's cancellation, (|q| + |c|)^2 / size^2 at most ~10^2 here, leaves ~1e-17 relative.
static void oracle(const mc_mesh* m, double density, mc_vec3 q, double* vol, mc_vec3* cen, mc_mat33* inertia)
{
    const mc_vec3* p = mc_mesh_get_positions(m);
    const uint32_t* ix = mc_mesh_get_indices(m);
    long double v = 0, m1[3] = {0, 0, 0}, m2[3][3] = {{0}};
    for (uint32_t t = 0; t < mc_mesh_get_triangle_count(m); ++t)
    {
        long double a[3][3];
        for (int k = 0; k < 3; ++k)
        {
            mc_vec3 x = p[ix[3 * t + (uint32_t)k]];
            a[k][0] = (long double)x.x - q.x;
            a[k][1] = (long double)x.y - q.y;
            a[k][2] = (long double)x.z - q.z;
        }
        long double d = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                        a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                        a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
        v += d / 6;
        for (int i = 0; i < 3; ++i)
        {
            long double si = a[0][i] + a[1][i] + a[2][i];
            m1[i] += d / 24 * si;
            for (int j = 0; j < 3; ++j)
            {
                long double sj = a[0][j] + a[1][j] + a[2][j];
                m2[i][j] += d / 120 * (a[0][i] * a[0][j] + a[1][i] * a[1][j] + a[2][i] * a[2][j] + si * sj);
            }
        }
    }
    long double c[3] = {m1[0] / v, m1[1] / v, m1[2] / v};
    long double cv[3][3];
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            cv[i][j] = m2[i][j] - v * c[i] * c[j];
        }
    }
    long double tr = cv[0][0] + cv[1][1] + cv[2][2];
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            inertia->m[i][j] = (double)(density * ((i == j ? tr : 0) - cv[i][j]));
        }
    }
    *vol = (double)v;
    *cen = mc_v3((double)(c[0] + q.x), (double)(c[1] + q.y), (double)(c[2] + q.z));
}

// R diag(moments) R^T rebuilds the inertia, R is a rotation, the quaternion is R, moments ascending.
static void check_principal(const mc_mass_properties* mp, double tol)
{
    const mc_mat33* r = &mp->principal_axes;
    double pm[3] = {mp->principal_moments.x, mp->principal_moments.y, mp->principal_moments.z};
    cr_assert(pm[0] <= pm[1] && pm[1] <= pm[2]);
    mc_mat33 back;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            back.m[i][j] =
                r->m[i][0] * pm[0] * r->m[j][0] + r->m[i][1] * pm[1] * r->m[j][1] + r->m[i][2] * pm[2] * r->m[j][2];
            double rtr = r->m[0][i] * r->m[0][j] + r->m[1][i] * r->m[1][j] + r->m[2][i] * r->m[2][j];
            cr_assert_leq(fabs(rtr - (i == j ? 1.0 : 0.0)), 1e-14, "R^T R [%d][%d] = %.17g", i, j, rtr);
        }
    }
    cr_assert_leq(mat_rel(&back, &mp->inertia), tol, "R diag R^T off by %g", mat_rel(&back, &mp->inertia));
    mc_mat33 qm = mc_quat_to_mat33(mp->principal_rotation);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            cr_assert_leq(fabs(qm.m[i][j] - r->m[i][j]), 1e-14);
        }
    }
}

// Box of full edges a, b, c: V = abc, I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2). Twelve triangles with
// coordinates +-a/2 (exact): every product and sum of the integration is within a few roundings, so 1e-14.
Test(mass, box_closed_form)
{
    double a = 0.3, b = 1.7, c = 2.9, rho = 7850.0;
    mc_mesh* m = box(a, b, c);
    mc_mass_properties mp;
    cr_assert_eq(mc_mesh_get_mass_properties(m, rho, &mp, NULL), MC_OK);
    double v = a * b * c, mass = rho * v;
    cr_assert_leq(rel(mp.volume, v, v), 1e-14);
    cr_assert_leq(rel(mp.mass, mass, mass), 1e-14);
    cr_assert_leq(mc_length(mp.centroid), 1e-15 * c);
    double ii[3] = {mass / 12 * (b * b + c * c), mass / 12 * (a * a + c * c), mass / 12 * (a * a + b * b)};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            double want = i == j ? ii[i] : 0.0;
            cr_assert_leq(fabs(mp.inertia.m[i][j] - want), 1e-14 * ii[0], "I[%d][%d] = %.17g, want %.17g", i, j,
                          mp.inertia.m[i][j], want);
        }
    }
    // ascending moments: a < b < c, so I_zz < I_yy < I_xx; axes z, y, x (up to sign)
    cr_assert_leq(rel(mp.principal_moments.x, ii[2], ii[0]), 1e-14);
    cr_assert_leq(rel(mp.principal_moments.z, ii[0], ii[0]), 1e-14);
    cr_assert_leq(fabs(fabs(mp.principal_axes.m[2][0]) - 1.0), 1e-14);
    cr_assert_leq(fabs(fabs(mp.principal_axes.m[0][2]) - 1.0), 1e-14);
    check_principal(&mp, 1e-14);
    mc_mesh_destroy(m);
}

// Tetrahedron (o, o + a e_x, o + b e_y, o + c e_z) far from the origin: V = abc/6, centroid o + (a, b, c)/4,
// integral of x'^2 about the centroid a^3 b c / 160, of x'y' -a^2 b^2 c / 480 (from a^3bc/60 - V a^2/16 and
// a^2b^2c/120 - V ab/16). The offset 1e3 against a size ~1 loses nothing: the library integrates about the bounding
// box centre, then the centroid. Tolerance 1e-12: a handful of roundings of values ~ size^5.
Test(mass, tetrahedron_far_from_origin)
{
    double a = 1.0, b = 2.0, c = 0.5;
    mc_vec3 o = mc_v3(1000.25, -2000.5, 500.125);
    double pos[12] = {o.x, o.y, o.z, o.x + a, o.y, o.z, o.x, o.y + b, o.z, o.x, o.y, o.z + c};
    uint32_t idx[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = pos;
    d.vertex_count = 4;
    d.indices = idx;
    d.triangle_count = 4;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create(&d, &m, NULL, NULL), MC_OK);
    mc_mass_properties mp;
    cr_assert_eq(mc_mesh_get_mass_properties(m, 1.0, &mp, NULL), MC_OK);
    double v = a * b * c / 6.0;
    cr_assert_leq(rel(mp.volume, v, v), 1e-12);
    cr_assert_leq(mc_length(mc_sub(mp.centroid, mc_add(o, mc_v3(a / 4, b / 4, c / 4)))), 1e-12);
    double s[3] = {a, b, c};
    double j2[3][3];
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            double abc = a * b * c;
            j2[i][k] = i == k ? abc * s[i] * s[i] / 160.0 : -abc * s[i] * s[k] / 480.0;
        }
    }
    mc_mat33 want;
    double tr = j2[0][0] + j2[1][1] + j2[2][2];
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            want.m[i][k] = (i == k ? tr : 0.0) - j2[i][k];
        }
    }
    cr_assert_leq(mat_rel(&mp.inertia, &want), 1e-12, "inertia off by %g", mat_rel(&mp.inertia, &want));
    check_principal(&mp, 1e-13);
    mc_mesh_destroy(m);
}

// A cube sphere has the cube's symmetry group: its centroid is the centre and its inertia tensor is isotropic (a
// multiple of E) exactly for the polyhedron; rounding leaves ~1e-15. The polyhedron's values against the oracle:
// 1e-12. Its volume against the mesh report's (another summation): 1e-12.
Test(mass, cube_sphere_symmetry_and_oracle)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.dims = mc_v3(0.05, 0.05, 0.05);
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create_primitive_count(&d, 20000, &m, NULL), MC_OK);
    mc_mass_properties mp;
    cr_assert_eq(mc_mesh_get_mass_properties(m, 1000.0, &mp, NULL), MC_OK);
    double ixx = mp.inertia.m[0][0];
    cr_assert_leq(mc_length(mp.centroid), 1e-14 * 0.05);
    cr_assert_leq(rel(mp.inertia.m[1][1], ixx, ixx), 1e-12);
    cr_assert_leq(rel(mp.inertia.m[2][2], ixx, ixx), 1e-12);
    cr_assert_leq(fabs(mp.inertia.m[0][1]) + fabs(mp.inertia.m[0][2]) + fabs(mp.inertia.m[1][2]), 1e-12 * ixx);
    double v;
    mc_vec3 c;
    mc_mat33 in;
    oracle(m, 1000.0, mc_v3(0.5, -0.3, 0.2), &v, &c, &in);
    cr_assert_leq(rel(mp.volume, v, v), 1e-12);
    cr_assert_leq(mc_length(mc_sub(mp.centroid, c)), 1e-12 * 0.05);
    cr_assert_leq(mat_rel(&mp.inertia, &in), 1e-12);
    cr_assert_leq(rel(mp.volume, mc_mesh_get_report(m)->volume, v), 1e-12);
    // the true sphere: inside the facets' chord tolerance; only a sanity bound (the tessellation is inscribed)
    double vs = 4.0 / 3.0 * MC_PI * pow(0.05, 3);
    cr_assert(mp.volume < vs && mp.volume > 0.99 * vs);
    check_principal(&mp, 1e-12);
    mc_mesh_destroy(m);
}

// A torus (R, r) against the true solid: V = 2 pi^2 R r^2, I_zz = m (R^2 + 3 r^2 / 4), I_xx = m (R^2 / 2 + 5 r^2 / 8).
// The facets lie within the chord tolerance h of the surface, so the solids differ in a shell of volume at most
// h A (A the true area 4 pi^2 R r): |dV| <= h A, and |dI| <= rho h A (R + r)^2 (each point of the shell is within
// R + r of every axis through the centre).
Test(mass, torus_within_faceting_bound)
{
    double big = 0.04, small = 0.01, h = 2e-5, rho = 1200.0;
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_TORUS;
    d.dims = mc_v3(big, small, 0.0);
    d.chord_tolerance = h;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&d, &m, NULL), MC_OK);
    mc_mass_properties mp;
    cr_assert_eq(mc_mesh_get_mass_properties(m, rho, &mp, NULL), MC_OK);
    double v = 2 * MC_PI * MC_PI * big * small * small, area = 4 * MC_PI * MC_PI * big * small;
    double mass = rho * v;
    cr_assert_leq(fabs(mp.volume - v), h * area, "dV = %g, bound %g", mp.volume - v, h * area);
    double bound = rho * h * area * (big + small) * (big + small);
    double izz = mass * (big * big + 0.75 * small * small), ixx = mass * (0.5 * big * big + 0.625 * small * small);
    cr_assert_leq(fabs(mp.inertia.m[2][2] - izz), bound);
    cr_assert_leq(fabs(mp.inertia.m[0][0] - ixx), bound);
    cr_assert_leq(fabs(mp.inertia.m[1][1] - ixx), bound);
    cr_assert_leq(fabs(mp.inertia.m[0][1]) + fabs(mp.inertia.m[0][2]) + fabs(mp.inertia.m[1][2]), bound);
    // the largest moment is about z
    cr_assert_leq(fabs(fabs(mp.principal_axes.m[2][2]) - 1.0), 1e-9);
    mc_mesh_destroy(m);
}

// Real meshes against the oracle: 1e-12 relative (volume; centroid over the bounding box diagonal; inertia over its
// largest entry). The apex of the oracle is a corner of the bounding box, not its centre.
Test(mass, real_meshes_against_independent_integration)
{
    const char* files[] = {"data/spot.obj", "data/prusa/LCD-knob.stl", "data/prusa/Spool-holder.stl",
                           "data/prusa/fs-lever.stl"};
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f)
    {
        mc_mesh* m = import(files[f]);
        const mc_mesh_report* r = mc_mesh_get_report(m);
        double diag = mc_length(mc_sub(r->bbox_max, r->bbox_min));
        mc_mass_properties mp;
        cr_assert_eq(mc_mesh_get_mass_properties(m, 2.5, &mp, NULL), MC_OK);
        double v;
        mc_vec3 c;
        mc_mat33 in;
        oracle(m, 2.5, r->bbox_min, &v, &c, &in);
        cr_assert_leq(rel(mp.volume, v, v), 1e-12, "%s: volume %.17g vs %.17g", files[f], mp.volume, v);
        cr_assert_leq(rel(mp.mass, 2.5 * v, 2.5 * v), 1e-12);
        cr_assert_leq(mc_length(mc_sub(mp.centroid, c)), 1e-12 * diag, "%s: centroid", files[f]);
        cr_assert_leq(mat_rel(&mp.inertia, &in), 1e-12, "%s: inertia off by %g", files[f], mat_rel(&mp.inertia, &in));
        cr_assert_leq(rel(mp.volume, r->volume, v), 1e-12);
        check_principal(&mp, 1e-12);
        mc_mesh_destroy(m);
    }
}

// The principal moments and axes of a turned box are the box's, turned: R = rotation * (axes of the box), and
// the transformed mesh's properties are the source's moved: volume |s|^3 V, centroid moved, inertia s^5 R I R^T.
// A negative scale mirrors and rewinds: the new mesh is outward (positive volume, not reoriented).
Test(mass, transformed_mesh)
{
    const char* files[] = {"data/prusa/fs-lever.stl"};
    mc_mesh* src[2] = {box(1.0, 2.0, 3.0), import(files[0])};
    double scales[3] = {1.0, 2.5, -0.75};
    mc_pose pose;
    pose.q = mc_quat_normalize((mc_quat){0.9, 0.3, -0.2, 0.25});
    pose.p = mc_v3(12.5, -3.0, 7.0);
    mc_mat33 rot = mc_quat_to_mat33(pose.q);
    for (int k = 0; k < 2; ++k)
    {
        mc_mass_properties a;
        cr_assert_eq(mc_mesh_get_mass_properties(src[k], 3.0, &a, NULL), MC_OK);
        for (int si = 0; si < 3; ++si)
        {
            double s = scales[si];
            mc_mesh* m = NULL;
            mc_mesh_report rep;
            mc_error e;
            cr_assert_eq(mc_mesh_create_transformed(src[k], &pose, s, MC_SELF_CHECK_REFUSE, &m, &rep, &e), MC_OK, "%s",
                         e.message);
            cr_assert(!rep.reoriented);
            cr_assert_eq(mc_mesh_get_triangle_count(m), mc_mesh_get_triangle_count(src[k]));
            mc_mass_properties b;
            cr_assert_eq(mc_mesh_get_mass_properties(m, 3.0, &b, NULL), MC_OK);
            double s3 = fabs(s * s * s);
            cr_assert_leq(rel(b.volume, s3 * a.volume, s3 * a.volume), 1e-12);
            mc_vec3 c = mc_add(mc_mat33_mul_vec(&rot, mc_scale(a.centroid, s)), pose.p);
            cr_assert_leq(mc_length(mc_sub(b.centroid, c)), 1e-12 * (mc_length(c) + 1.0));
            mc_mat33 want;
            for (int i = 0; i < 3; ++i)
            {
                for (int j = 0; j < 3; ++j)
                {
                    double x = 0.0;
                    for (int p = 0; p < 3; ++p)
                    {
                        for (int q = 0; q < 3; ++q)
                        {
                            x += rot.m[i][p] * a.inertia.m[p][q] * rot.m[j][q];
                        }
                    }
                    want.m[i][j] = fabs(s * s * s * s * s) * x;
                }
            }
            cr_assert_leq(mat_rel(&b.inertia, &want), 1e-12, "scale %g: %g", s, mat_rel(&b.inertia, &want));
            if (k == 0)
            {
                // box 1 x 2 x 3: the smallest moment is about its long (z) axis, now rot's third column
                mc_vec3 ax = mc_v3(b.principal_axes.m[0][0], b.principal_axes.m[1][0], b.principal_axes.m[2][0]);
                mc_vec3 want_ax = mc_v3(rot.m[0][2], rot.m[1][2], rot.m[2][2]);
                cr_assert_leq(fabs(fabs(mc_dot(ax, want_ax)) - 1.0), 1e-12);
            }
            mc_mesh_destroy(m);
        }
        mc_mesh_destroy(src[k]);
    }
}

// Two unit cubes side by side make a 2 x 1 x 1 box: mass 2 rho, I = m/12 diag(2, 5, 5).
Test(mass, combine_two_boxes)
{
    mc_mesh* m = box(1.0, 1.0, 1.0);
    mc_mass_properties a[2];
    cr_assert_eq(mc_mesh_get_mass_properties(m, 4.0, &a[0], NULL), MC_OK);
    a[1] = a[0];
    mc_pose poses[2] = {mc_pose_identity(), mc_pose_identity()};
    poses[0].p = mc_v3(10.5, 0.0, 0.0); // assembly centred at x = 11
    poses[1].p = mc_v3(11.5, 0.0, 0.0);
    poses[1].q = (mc_quat){0.0, 0.0, 0.0, 2.0}; // a half turn about z (not normalised): a cube is invariant
    mc_mass_properties c;
    cr_assert_eq(mc_mass_properties_combine(a, poses, 2, &c, NULL), MC_OK);
    double mass = 8.0;
    cr_assert_leq(rel(c.mass, mass, mass), 1e-15);
    cr_assert_leq(rel(c.volume, 2.0, 2.0), 1e-15);
    cr_assert_leq(mc_length(mc_sub(c.centroid, mc_v3(11.0, 0.0, 0.0))), 1e-14);
    double want[3] = {mass / 12 * 2.0, mass / 12 * 5.0, mass / 12 * 5.0};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            cr_assert_leq(fabs(c.inertia.m[i][j] - (i == j ? want[i] : 0.0)), 1e-14 * want[1]);
        }
    }
    check_principal(&c, 1e-14);
    mc_mesh_destroy(m);
}

Test(mass, errors_name_the_problem)
{
    mc_mesh* m = box(1.0, 1.0, 1.0);
    mc_mass_properties mp;
    memset(&mp, 0x5a, sizeof mp);
    mc_mass_properties before = mp;
    mc_error e;
    cr_assert_eq(mc_mesh_get_mass_properties(NULL, 1.0, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_get_mass_properties(m, 1.0, NULL, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_get_mass_properties(m, 0.0, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(e.message, "density") != NULL, "%s", e.message);
    cr_assert_eq(mc_mesh_get_mass_properties(m, NAN, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(memcmp(&mp, &before, sizeof mp), 0);
    // a bad entry in the middle of a list: the error names it, nothing is written
    mc_mass_properties parts[3];
    cr_assert_eq(mc_mesh_get_mass_properties(m, 1.0, &parts[0], NULL), MC_OK);
    parts[1] = parts[0];
    parts[2] = parts[0];
    parts[1].mass = -1.0;
    cr_assert_eq(mc_mass_properties_combine(parts, NULL, 3, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(e.index, 1);
    cr_assert(strstr(e.message, "entry 1") != NULL, "%s", e.message);
    parts[1] = parts[0];
    mc_pose poses[3] = {mc_pose_identity(), mc_pose_identity(), mc_pose_identity()};
    poses[2].q = (mc_quat){0.0, 0.0, 0.0, 0.0};
    cr_assert_eq(mc_mass_properties_combine(parts, poses, 3, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(e.index, 2);
    cr_assert_eq(memcmp(&mp, &before, sizeof mp), 0);
    cr_assert_eq(mc_mass_properties_combine(parts, NULL, 0, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(e.index, -1);
    // transforms
    mc_mesh* out = NULL;
    cr_assert_eq(mc_mesh_create_transformed(m, NULL, 0.0, MC_SELF_CHECK_SKIP, &out, NULL, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_create_transformed(m, NULL, INFINITY, MC_SELF_CHECK_SKIP, &out, NULL, &e),
                 MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_create_transformed(m, &poses[2], 1.0, MC_SELF_CHECK_SKIP, &out, NULL, &e),
                 MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_mesh_create_transformed(NULL, NULL, 1.0, MC_SELF_CHECK_SKIP, &out, NULL, &e),
                 MC_ERR_INVALID_ARGUMENT);
    // beyond the coordinate range
    cr_assert_eq(mc_mesh_create_transformed(m, NULL, 1e30, MC_SELF_CHECK_SKIP, &out, NULL, &e), MC_ERR_OUT_OF_RANGE);
    cr_assert(strstr(e.message, "mc_mesh_create_transformed") != NULL, "%s", e.message);
    cr_assert_null(out);
    // a flipped mesh has no mass
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = (const double*)mc_mesh_get_positions(m);
    d.vertex_count = mc_mesh_get_vertex_count(m);
    d.indices = mc_mesh_get_indices(m);
    d.triangle_count = mc_mesh_get_triangle_count(m);
    d.flip = true;
    mc_mesh* flipped = NULL;
    cr_assert_eq(mc_mesh_create(&d, &flipped, NULL, NULL), MC_OK);
    cr_assert_eq(mc_mesh_get_mass_properties(flipped, 1.0, &mp, &e), MC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(e.message, "flipped") != NULL, "%s", e.message);
    mc_mesh_destroy(flipped);
    mc_mesh_destroy(m);
}
