// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the cylinder against a mesh and a ball (shape.h, src/contact/cylinder_mesh.c, cylinder_sphere.c). Oracles:
// closed forms written here (a cylinder lying on a box plate: L times a circular segment; standing on it: a disk
// pressed in; inside a big box: the whole cylinder; a box inside the cylinder: the box), the cylinder-plane closed form
// for the same contacts, and the mesh-mesh pipeline (mc_query_regions) on the tessellated cylinder, converging as the
// chord tolerance shrinks, at random tilts, on a box and on a shipped real mesh; both orders; thread counts; what stays
// unsupported.
#include "meshcontact/meshcontact.h"
#include "scenes.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_REGIONS 8

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static mc_pose at(double x, double y, double z)
{
    mc_pose p = mc_pose_identity();
    p.p = mc_v3(x, y, z);
    return p;
}

static mc_quat axis_angle(mc_vec3 axis, double angle)
{
    mc_vec3 a = mc_normalize(axis);
    mc_quat q = {cos(angle / 2), a.x * sin(angle / 2), a.y * sin(angle / 2), a.z * sin(angle / 2)};
    return q;
}

/// Query (a, b) and (b, a) (options may be NULL); the second must mirror the first bitwise. Returns the count.
static uint32_t query_both(const mc_shape* a, mc_pose pa, const mc_shape* b, mc_pose pb, const mc_query_options* opt,
                           mc_region* out)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint32_t n = 0, m = 0;
    mc_region back[MAX_REGIONS];
    cr_assert_eq(mc_query_shape_regions(a, &pa, b, &pb, opt, ws, out, MAX_REGIONS, &n, NULL), MC_OK);
    cr_assert_eq(mc_query_shape_regions(b, &pb, a, &pa, opt, ws, back, MAX_REGIONS, &m, NULL), MC_OK);
    cr_assert_eq(n, m);
    for (uint32_t k = 0; k < n; ++k)
    {
        cr_assert(out[k].volume == back[k].volume && out[k].area == back[k].area && out[k].depth == back[k].depth);
        cr_assert(out[k].normal.x == -back[k].normal.x && out[k].normal.y == -back[k].normal.y &&
                  out[k].normal.z == -back[k].normal.z);
        cr_assert(memcmp(&out[k].centroid, &back[k].centroid, sizeof(mc_vec3)) == 0);
        cr_assert(memcmp(&out[k].point_i, &back[k].point_j, sizeof(mc_vec3)) == 0);
        cr_assert(memcmp(&out[k].s_i, &back[k].s_j, sizeof(mc_vec3)) == 0);
    }
    mc_workspace_destroy(ws);
    return n;
}

/// Tessellated cylinders (radius r, length len) at chord tolerances r 1e-2, 1e-3, 1e-4, built once per test.
static void tessellate(double r, double len, mc_mesh* out[3])
{
    for (int k = 0; k < 3; ++k)
    {
        mc_primitive_def d = mc_default_primitive_def();
        d.type = MC_PRIMITIVE_CYLINDER;
        d.dims = mc_v3(r, r, len);
        d.chord_tolerance = r * pow(10.0, -2 - k);
        cr_assert_eq(mc_mesh_create_primitive(&d, &out[k], NULL), MC_OK);
    }
}

/// The region of the tessellated cylinder c against mesh m by the mesh-mesh pipeline: volume, centroid, S_I (the
/// cylinder's side), summed over the regions.
static void tessellated(const mc_mesh* c, mc_pose pc, const mc_mesh* m, mc_pose pm, double* vol, mc_vec3* centroid,
                        mc_vec3* s_i)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_region g[64];
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(c, &pc, m, &pm, NULL, ws, g, 64, &n, NULL), MC_OK);
    *vol = 0.0;
    mc_vec3 mom = mc_v3(0, 0, 0), s = mc_v3(0, 0, 0);
    for (uint32_t k = 0; k < n; ++k)
    {
        *vol += g[k].volume;
        mom = mc_add(mom, mc_scale(g[k].centroid, g[k].volume));
        s = mc_add(s, g[k].s_i);
    }
    *centroid = *vol > 0.0 ? mc_scale(mom, 1.0 / *vol) : mc_v3(0, 0, 0);
    *s_i = s;
    mc_workspace_destroy(ws);
}

// A cylinder lying on a 12-triangle plate (axis along x): the volume is L times the circular segment of height d,
// the centroid is the segment's, the area the strip L x 2 sqrt(2 R d - d^2) with the plate's normal, the depth d.
// The cylinder-plane closed form gives the same; both orders mirror bitwise.
Test(cylinder_mesh, lying_on_a_plate_matches_the_closed_form)
{
    mc_mesh* plate = scene_box(mc_v3(-2, -2, -1), mc_v3(2, 2, 0));
    mc_shape cyl = mc_shape_cylinder(0.1, 0.5), mesh = mc_shape_mesh(plate), floor = mc_shape_plane();
    double fractions[6] = {1e-6, 1e-3, 0.05, 0.3, 1.0, 1.7};
    for (int k = 0; k < 6; ++k)
    {
        double r = 0.1, len = 0.5, zc = r - fractions[k] * r;
        mc_pose pc = at(0.013, -0.021, zc);
        pc.q = axis_angle(mc_v3(0, 1, 0), PI / 2);
        double d = r - zc; // exact (Sterbenz)
        mc_region g[MAX_REGIONS], p[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &mesh, at(0, 0, 0), NULL, g), 1u);
        cr_assert_eq(query_both(&cyl, pc, &floor, at(0, 0, 0), NULL, p), 1u);
        // Closed form in long double: segment of half angle phi, cos(phi) = (r - d) / r.
        long double phi = acosl((long double)(r - d) / r), c = sqrtl((long double)d * (2.0L * r - d));
        long double seg = (long double)r * r * (phi - sinl(phi) * cosl(phi));
        double want_v = (double)(len * seg), want_a = (double)(len * 2.0L * c);
        double want_z = (double)(zc - 2.0L * c * c * c / (3.0L * seg));
        // Tolerances: the volume and area are sums of a few dozen terms, each within a few ulps of itself (the cap's
        // circular segments by their series, the chord's ends from a discriminant without cancellation): 1e-14. The
        // plate's corners lie up to 2 sqrt(2) from the cylinder; turned into its frame (a rotation a few ulps off)
        // they move by ~1e-15 * 4, which moves the plate's top by a relative 4e-15 / d of the depth and 1.5 times
        // that of the volume, 2 times of the centroid's offset (measured: 4e-11 at d = 1e-7, below the 6e-8 bound).
        double shift = 4e-15 / d;
        double tol_v = 1e-14 + 1.5 * shift;
        cr_assert(rel(g[0].volume, want_v) < tol_v, "d/R %g: volume %.17g want %.17g (%g)", fractions[k], g[0].volume,
                  want_v, rel(g[0].volume, want_v));
        if (fractions[k] < 1.7)
        {
            cr_assert(rel(g[0].area, want_a) < 1e-14 + shift, "d/R %g: area %.17g want %.17g", fractions[k], g[0].area,
                      want_a);
            cr_assert(fabs(g[0].normal.z + 1.0) < 1e-14 && fabs(g[0].normal.x) < 1e-14 && fabs(g[0].normal.y) < 1e-14,
                      "normal %g %g %g", g[0].normal.x, g[0].normal.y, g[0].normal.z);
        }
        cr_assert(fabs(g[0].centroid.z - want_z) < (1e-14 + 2.0 * shift) * fabs(zc - want_z),
                  "d/R %g: centroid z %.17g want %.17g", fractions[k], g[0].centroid.z, want_z);
        cr_assert(fabs(g[0].centroid.x - 0.013) < 1e-14 + shift * len && fabs(g[0].centroid.y + 0.021) < 1e-15);
        cr_assert(rel(g[0].depth, d) < 1e-14 + shift, "d/R %g: depth %.17g want %.17g", fractions[k], g[0].depth, d);
        // The plane's closed form agrees (its own tolerance: the same rounding of the pose).
        cr_assert(rel(g[0].volume, p[0].volume) < tol_v);
    }
    mc_mesh_destroy(plate);
}

// Standing on the plate with its lower cap pressed in by d: the disk times d, area pi R^2 along -z, depth d; a
// cylinder inside a big box: its whole volume, no contact surface; a box inside the cylinder: the box, its closed
// surface adding to a zero area vector.
Test(cylinder_mesh, standing_inside_and_around_match_closed_forms)
{
    double r = 0.1, len = 0.5, h = 0.25;
    mc_mesh* plate = scene_box(mc_v3(-2, -2, -1), mc_v3(2, 2, 0));
    mc_shape cyl = mc_shape_cylinder(r, len), mesh = mc_shape_mesh(plate);
    double depths[4] = {1e-7, 1e-3, 0.05, 0.3};
    for (int k = 0; k < 4; ++k)
    {
        double zc = h - depths[k], d = h - zc; // d exact (Sterbenz)
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, at(0.01, 0.02, zc), &mesh, at(0, 0, 0), NULL, g), 1u);
        // The plate's top face holds the disk (two circular segments, one each side of the top face's diagonal, by
        // the 20-point rule: a few ulps each) and the lower cap is inside the plate (the winding term, from which
        // the face integrands are taken: no terms of size h cancel): 1e-14.
        cr_assert(rel(g[0].volume, PI * r * r * d) < 1e-14, "d %g: volume %.17g want %.17g", d, g[0].volume,
                  PI * r * r * d);
        cr_assert(rel(g[0].area, PI * r * r) < 1e-14, "area %.17g", g[0].area);
        cr_assert(g[0].normal.z == -1.0 && g[0].normal.x == 0.0 && g[0].normal.y == 0.0);
        // The centroid in the world: the cylinder's centre plus the offset, each rounded (ulps of h = 0.25: 1e-16).
        cr_assert(fabs(g[0].centroid.z + 0.5 * d) < 1e-14 * d + 2e-16 && fabs(g[0].centroid.x - 0.01) < 1e-15 &&
                      fabs(g[0].centroid.y - 0.02) < 1e-15,
                  "d %g: centroid %.17g %.17g %.17g", d, g[0].centroid.x, g[0].centroid.y, g[0].centroid.z);
        // Depth: the axial d, or the radial R (the plate's face crosses the axis) when that is smaller.
        cr_assert(g[0].depth == fmin(d, r), "depth %.17g want %.17g", g[0].depth, fmin(d, r));
    }
    // Inside a big box, turned: the whole cylinder (both caps' winding terms), no contact surface.
    mc_mesh* big = scene_box(mc_v3(-1, -1, -1), mc_v3(1, 1, 1));
    mc_shape mbig = mc_shape_mesh(big);
    mc_pose pc = at(0.1, -0.2, 0.3);
    pc.q = axis_angle(mc_v3(1, 2, 3), 0.7);
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&cyl, pc, &mbig, at(0, 0, 0), NULL, g), 1u);
    cr_assert(rel(g[0].volume, PI * r * r * len) < 1e-15, "inside: %.17g", g[0].volume);
    cr_assert(mc_length(mc_sub(g[0].centroid, pc.p)) < 1e-15 && g[0].area == 0.0);
    cr_assert(g[0].depth == r, "inside: depth %g", g[0].depth); // no face near: R (see shape.h)
    // A box inside the cylinder (turned): the box; its faces' area vectors cancel to rounding (1e-15 of its area).
    mc_mesh* small = scene_box(mc_v3(-0.03, -0.04, -0.05), mc_v3(0.03, 0.04, 0.05));
    mc_shape msmall = mc_shape_mesh(small);
    mc_pose pb = at(0.3, 0.2, -0.1);
    pb.q = axis_angle(mc_v3(-1, 0.5, 2), 1.1);
    mc_pose pc2 = at(0.31, 0.19, -0.09);
    pc2.q = axis_angle(mc_v3(0.3, 1, -0.2), 0.4);
    cr_assert_eq(query_both(&cyl, pc2, &msmall, pb, NULL, g), 1u);
    cr_assert(rel(g[0].volume, 0.06 * 0.08 * 0.1) < 1e-14, "box inside: %.17g", g[0].volume);
    cr_assert(mc_length(mc_sub(g[0].centroid, pb.p)) < 1e-15, "box inside: centroid");
    cr_assert(g[0].area < 1e-15 * 0.0376, "box inside: area %g", g[0].area);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(big);
    mc_mesh_destroy(small);
}

// A cylinder far wider than the mesh is a slab: a box through both caps, at the axis and far from it (a tenth of R)
// but inside the disk, keeps the box's part between the caps. The caps' fans about the axis are each of size R^2 and
// cancelled to the box's section only to R^2 ulps (fuzz_shapes: a volume of 2.9e6 for a mesh of 1.4 at R = 1e12); the
// section's own shoelace is exact to ulps of the box. The box's coordinates far from the axis, 1e11 in the cylinder's
// frame, carry ulps of 1.5e-5 against a section of 0.5 (tolerance below).
Test(cylinder_mesh, a_small_mesh_in_a_huge_cylinder_is_cut_by_its_caps_alone)
{
    double len = 0.125;
    mc_mesh* box = scene_box(mc_v3(-0.5, -0.25, -1), mc_v3(0.5, 0.25, 1));
    mc_shape mbox = mc_shape_mesh(box);
    double radii[3] = {1e3, 1e8, 1e12};
    for (int k = 0; k < 3; ++k)
    {
        mc_shape cyl = mc_shape_cylinder(radii[k], len);
        for (int far = 0; far < 2; ++far)
        {
            double off = far ? 0.1 * radii[k] : 0.0;
            mc_pose pb = at(off, 0.01, 0.02);
            pb.q = axis_angle(mc_v3(0.1, 0.2, 1), 0.3); // turned about (nearly) the axis: the sides stay steep
            mc_region g[MAX_REGIONS];
            cr_assert_eq(query_both(&cyl, at(0, 0, 0), &mbox, pb, NULL, g), 1u);
            // The box's section across its z: its side faces are steep enough that the slab cuts only them; the
            // slab's volume is the section times len up to the tilt's effect on the cut (exact here: a prism cut
            // by two parallel planes has volume section-across-the-planes times their distance).
            mc_vec3 ez = mc_quat_rotate(pb.q, mc_v3(0, 0, 1));
            double want = 0.5 * len / ez.z; // section 1 x 0.5 normal to the box's z, projected onto the cap
            // Off the axis the box's coordinates in the cylinder's frame round to ulps of off (a few operations of
            // the pose): the volume moves by the perimeter 3 times that over the section 0.5, 6 off eps; 64 off eps
            // leaves a factor 10 (measured: 5e-15, 1e-9, 8.9e-7 at off 1e2, 1e7, 1e11; 0 on the axis).
            double tol = 1e-13 + 64.0 * off * DBL_EPSILON;
            cr_assert(rel(g[0].volume, want) < tol, "R %g off %g: volume %.17g want %.17g", radii[k], off, g[0].volume,
                      want);
            cr_assert(fabs(g[0].centroid.z) < 1e-3 * len, "R %g: centroid z %g", radii[k], g[0].centroid.z);
        }
    }
    mc_mesh_destroy(box);
}

// A cylinder far thinner than the rounding of a box's tilt, its axis on the box's edge: the box turned half a turn
// about (0, -1, -1) (its side faces steep to the rounding of the turn, n_z about 5e-26), the cylinder half a turn
// about (8, 1, 0), both from quaternions of integers (fuzz_shapes). The side faces clipped to the slab project to
// polygons a few ulps wide, and an arc between their exit and entry (the same point to 2 ulps) times the faces' slope
// 1 / n_z gave 4.9e-68 whatever the length. The answer is a quarter of the cylinder (its axis is moved 2^-27 R off the
// edge first, shape.h: 1e-8 relative).
Test(cylinder_mesh, a_cylinder_thinner_than_a_steep_face_tilt_keeps_its_volume)
{
    double r = 0.25;
    mc_mesh* box = scene_box(mc_v3(0, 0, 0), mc_v3(2, 2, 1));
    mc_shape mbox = mc_shape_mesh(box);
    mc_pose pb = at(0, 0, 0);
    pb.q = mc_quat_normalize((mc_quat){0, 0, -114, -114});
    mc_pose pc = at(0, 0, 0.75);
    pc.q = mc_quat_normalize((mc_quat){0, 32, 4, 0});
    double lens[3] = {0x1p-100, 0x1p-230, 0x1p-300};
    for (int k = 0; k < 3; ++k)
    {
        mc_shape cyl = mc_shape_cylinder(r, lens[k]);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &mbox, pb, NULL, g), 1u);
        double want = 0.25 * PI * r * r * lens[k];
        cr_assert(rel(g[0].volume, want) < 1e-7, "length %a: volume %.17g want %.17g", lens[k], g[0].volume, want);
    }
    // A hollow cube turned by a quaternion of integers, a wide disk cutting it slantwise: the slab's corners, cut from
    // edges whose z ends are of size 1, were interpolated to ulps of 1 (2^-52) instead of +-h, which a slab thinner
    // than that cannot absorb (1.8e-49 of volume from a cylinder 6e-59 long, fuzz_shapes). Oracle: a thin slab's volume
    // is its length times the section in the disk, so volume / length is the same at every length below 2^-40 (the
    // section changes by about h / 1 relative across the slab).
    mc_mesh* cube = scene_fuzz_cube(1, 1.0, 0); // the hollow cube of the fuzz harnesses, as fuzz_shapes met it
    cr_assert_not_null(cube);
    mc_shape mcube = mc_shape_mesh(cube);
    mc_pose pm = at(3.75, 4, 0);
    pm.q = (mc_quat){45, 10, 49, -1}; // normalised by the library, as the fuzzer's
    mc_pose pw = at(0, -0.125, 0x1p-240);
    pw.q = (mc_quat){0, 0, 0, 45};
    double per_length = 0.0;
    double thin[4] = {0x1p-40, 0x1p-100, 0x1p-200, 0x1p-300};
    for (int k = 0; k < 4; ++k)
    {
        mc_shape disk = mc_shape_cylinder(6.25, thin[k]);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&disk, pw, &mcube, pm, NULL, g), 1u);
        per_length = k == 0 ? g[0].volume / thin[0] : per_length;
        cr_assert(per_length > 1.0 && rel(g[0].volume / thin[k], per_length) < 1e-9,
                  "length %a: volume %.17g, %.17g per length at 2^-40", thin[k], g[0].volume, per_length);
    }
    mc_mesh_destroy(cube);
    mc_mesh_destroy(box);
}

// A needle (radius 2^-240) through the hollow cube of the fuzz harnesses, nearly along a cube axis: it crosses two
// pairs of parallel faces (outer, and the inward-wound cavity's), whose vector areas cancel, so the contact surface's
// vector area is rounding, about 1e-160 per component: its square underflows, and the area and normal came from that
// square (fuzz_shapes: |normal| 1.00008). Oracle: the four crossings' areas, pi r^2 / |cos| each, cancel to a few
// ulps of their sum (1e-14 of it), at radius 2^-40 and 2^-240 alike, and the normal is a unit vector to an ulp.
Test(cylinder_mesh, a_needle_has_a_unit_normal_even_where_its_area_underflows)
{
    mc_mesh* cube = scene_fuzz_cube(1, 1.0, 0);
    cr_assert_not_null(cube);
    mc_shape mcube = mc_shape_mesh(cube);
    mc_pose pm = at(0, 0, 0.5);
    mc_pose pw = at(0, 0, 0);
    pw.q = (mc_quat){-63, -55, -55, -55}; // normalised by the library, as the fuzzer's
    double radii[2] = {0x1p-40, 0x1.fffffffffffffp-241};
    for (int k = 0; k < 2; ++k)
    {
        mc_shape needle = mc_shape_cylinder(radii[k], 8.625);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&needle, pw, &mcube, pm, NULL, g), 1u);
        double crossings = 4.0 * PI * radii[k] * radii[k] / 0.9; // |cos| > 0.9 at this turn
        cr_assert(g[0].area > 0.0 && g[0].area < 1e-14 * crossings, "radius %a: area %g of %g", radii[k], g[0].area,
                  crossings);
        cr_assert(fabs(mc_length(g[0].normal) - 1.0) < 1e-15, "radius %a: |normal| %.17g", radii[k],
                  mc_length(g[0].normal));
    }
    mc_mesh_destroy(cube);
}

/// The analytic cylinder against mesh m and the tessellated ones at chord tolerances R 1e-2, 1e-3, 1e-4: the
/// errors of the volume, centroid and S_I fall with the tolerance (the inscribed polygons' area deficit is about
/// (4/3) tol / R of the section) and end below `last` times the finest tolerance over R.
static void converges(double r, double len, mc_mesh* const tess[3], mc_pose pc, const mc_mesh* m, mc_pose pm,
                      double last, const char* what)
{
    mc_shape cyl = mc_shape_cylinder(r, len), mesh = mc_shape_mesh(m);
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&cyl, pc, &mesh, pm, NULL, g), 1u, "%s: no region", what);
    double scale = cbrt(g[0].volume);
    double prev[3] = {INFINITY, INFINITY, INFINITY};
    for (int k = 0; k < 3; ++k)
    {
        double tol = r * pow(10.0, -2 - k);
        double v = 0.0;
        mc_vec3 c, s;
        tessellated(tess[k], pc, m, pm, &v, &c, &s);
        double ev = rel(v, g[0].volume), ec = mc_length(mc_sub(c, g[0].centroid)) / scale;
        double es = mc_length(mc_sub(s, g[0].s_i)) / fmax(g[0].area, scale * scale);
        cr_log_info("%s tol %g: volume %.3g centroid %.3g S_I %.3g", what, tol / r, ev, ec, es);
        // Each tenfold refinement: the error falls at least threefold, or is already at the finest bound.
        double bound = last * tol / r;
        cr_assert(ev < fmax(0.3 * prev[0], bound), "%s tol %g: volume error %g after %g", what, tol / r, ev, prev[0]);
        cr_assert(ec < fmax(0.3 * prev[1], bound), "%s tol %g: centroid error %g after %g", what, tol / r, ec, prev[1]);
        cr_assert(es < fmax(0.3 * prev[2], bound), "%s tol %g: S_I error %g after %g", what, tol / r, es, prev[2]);
        prev[0] = ev;
        prev[1] = ec;
        prev[2] = es;
    }
    cr_assert(prev[0] < last * 1e-4 && prev[1] < last * 1e-4 && prev[2] < last * 1e-4, "%s: final %g %g %g", what,
              prev[0], prev[1], prev[2]);
}

// At random tilts and places around a box's edge and corner (faces parallel, crossing and oblique to the axis, the
// caps cut by the box): converges to the tessellated cylinder's mesh-mesh result.
Test(cylinder_mesh, converges_to_the_tessellated_cylinder_on_a_box)
{
    mc_mesh* box = scene_box(mc_v3(-0.3, -0.2, -0.25), mc_v3(0.3, 0.2, 0.25));
    mc_mesh* tess[3];
    tessellate(0.1, 0.3, tess);
    uint64_t state = 35;
    for (int k = 0; k < 6; ++k)
    {
        mc_pose pc = at(0.3 * (2.0 * scene_random(&state) - 1.0), 0.2 + 0.05 * (scene_random(&state) - 0.5),
                        0.25 * (2.0 * scene_random(&state) - 1.0));
        pc.q = scene_random_quat(&state);
        char what[32];
        snprintf(what, sizeof what, "box %d", k);
        converges(0.1, 0.3, tess, pc, box, at(0, 0, 0), 10.0, what);
    }
    mc_mesh_destroy(box);
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh_destroy(tess[k]);
    }
}

// A shipped real mesh (data/spot.obj: 5856 triangles, curved and folded): cylinders through its surface at random
// places and tilts converge to the tessellated cylinder's mesh-mesh result alike.
Test(cylinder_mesh, converges_to_the_tessellated_cylinder_on_a_real_mesh)
{
    mc_mesh* spot = scene_import("data/spot.obj");
    cr_assert(spot != NULL);
    mc_mesh* tess[3];
    tessellate(0.12, 0.4, tess);
    uint64_t state = 3535;
    int done = 0;
    for (int k = 0; k < 40 && done < 3; ++k)
    {
        mc_pose pc = at(0.4 * (2.0 * scene_random(&state) - 1.0), 0.6 * (2.0 * scene_random(&state) - 1.0) + 0.1,
                        0.6 * (2.0 * scene_random(&state) - 1.0) + 0.2);
        pc.q = scene_random_quat(&state);
        mc_shape cyl = mc_shape_cylinder(0.12, 0.4), mesh = mc_shape_mesh(spot);
        mc_region g[MAX_REGIONS];
        if (query_both(&cyl, pc, &mesh, at(0, 0, 0), NULL, g) == 0 || g[0].area == 0.0 ||
            g[0].volume < 0.05 * PI * 0.12 * 0.12 * 0.4 || g[0].volume > 0.95 * PI * 0.12 * 0.12 * 0.4)
        {
            continue; // apart, wholly inside, or a graze: through the surface only
        }
        char what[32];
        snprintf(what, sizeof what, "spot %d", k);
        converges(0.12, 0.4, tess, pc, spot, at(0, 0, 0), 10.0, what);
        done++;
    }
    cr_assert_eq(done, 3);
    mc_mesh_destroy(spot);
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh_destroy(tess[k]);
    }
}

// The result does not depend on the thread count (the pair is computed on one thread, in mesh order).
Test(cylinder_mesh, thread_counts_give_bitwise_equal_regions)
{
    mc_mesh* box = scene_box(mc_v3(-0.3, -0.2, -0.25), mc_v3(0.3, 0.2, 0.25));
    mc_shape cyl = mc_shape_cylinder(0.1, 0.3), mesh = mc_shape_mesh(box);
    mc_pose pc = at(0.25, 0.18, 0.2);
    pc.q = axis_angle(mc_v3(1, -2, 0.5), 0.9);
    mc_region first[MAX_REGIONS];
    for (int t = 1; t <= 4; ++t)
    {
        mc_query_options o = mc_default_query_options();
        o.worker_count = t;
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &mesh, at(0, 0, 0), &o, g), 1u);
        if (t == 1)
        {
            first[0] = g[0];
        }
        cr_assert(memcmp(&g[0], &first[0], sizeof g[0]) == 0, "%d threads", t);
    }
    mc_mesh_destroy(box);
}

// What stays unsupported: a hole against a mesh, a cylinder against a flipped mesh, against a socket.
Test(cylinder_mesh, unsupported_pairs_are_refused)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_BOX;
    d.dims = mc_v3(1, 1, 1);
    double* pos = NULL;
    uint32_t* ix = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert_eq(mc_primitive_tessellate(&d, &pos, &nv, &ix, &nt, NULL), MC_OK);
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = pos;
    md.vertex_count = nv;
    md.indices = ix;
    md.triangle_count = nt;
    mc_mesh *plain = NULL, *flipped = NULL;
    cr_assert_eq(mc_mesh_create(&md, &plain, NULL, NULL), MC_OK);
    md.flip = true;
    cr_assert_eq(mc_mesh_create(&md, &flipped, NULL, NULL), MC_OK);
    mc_free_arrays(pos, ix);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_shape cyl = mc_shape_cylinder(0.1, 0.3), hole = mc_shape_cylinder(0.1, 0.3), m = mc_shape_mesh(plain),
             f = mc_shape_mesh(flipped);
    hole.flip = true;
    mc_pose o = mc_pose_identity();
    mc_region g[MAX_REGIONS];
    uint32_t n = 0;
    cr_assert_eq(mc_query_shape_regions(&hole, &o, &m, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&m, &o, &hole, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&cyl, &o, &f, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_ERR_UNSUPPORTED);
    mc_shape socket = mc_shape_sphere(0.2);
    socket.flip = true;
    cr_assert_eq(mc_query_shape_regions(&cyl, &o, &socket, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&hole, &o, &socket, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_ERR_UNBOUNDED);
    cr_assert_eq(mc_query_shape_regions(&cyl, &o, &m, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_OK);
    cr_assert_eq(n, 1u);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(plain);
    mc_mesh_destroy(flipped);
}

/// Volume of the spherical cap of height k on a ball of radius rs.
static double cap_volume(double rs, double k)
{
    return PI * k * k * (3.0 * rs - k) / 3.0;
}

// A ball against a cylinder in closed forms: a ball pressed a small d into a cap (the spherical cap: volume, the cap
// disk's area along +z, depth d), a ball inside the cylinder, the cylinder inside a ball, a ball on the axis wider
// than the cylinder (the cylinder's part inside the ball between the circles' tangencies plus two caps: the pieces
// cut at the tangencies).
Test(cylinder_mesh, cylinder_and_ball_match_closed_forms)
{
    double r = 0.1, len = 0.6, h = 0.3;
    mc_shape cyl = mc_shape_cylinder(r, len);
    mc_pose pc = at(0.2, -0.1, 0.05);
    pc.q = axis_angle(mc_v3(0.3, -1, 0.4), 0.8);
    mc_vec3 axis = mc_quat_rotate(mc_quat_normalize(pc.q), mc_v3(0, 0, 1));
    double depths[4] = {1e-6, 1e-3, 0.01, 0.05};
    for (int k = 0; k < 4; ++k)
    {
        double rs = 0.05, d = depths[k] * rs * 2.0;
        mc_shape ball = mc_shape_sphere(rs);
        mc_vec3 c = mc_add(pc.p, mc_scale(axis, h + rs - d));
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &ball, at(c.x, c.y, c.z), NULL, g), 1u);
        // The slices' lens is the ball's whole slice (inside the disk): the rule integrates pi s(z)^2, a polynomial
        // after the substitution, to rounding; the ball's centre is rounded in the cylinder's frame (~1e-16 of its
        // distance, 0.6, from the cylinder's centre), a relative 1e-16 / d of the cap's height.
        double tol = 1e-14 + 2e-16 * 0.6 / d;
        cr_assert(rel(g[0].volume, cap_volume(rs, d)) < 2.0 * tol, "d %g: volume %.17g want %.17g", d, g[0].volume,
                  cap_volume(rs, d));
        cr_assert(rel(g[0].area, PI * d * (2.0 * rs - d)) < tol, "d %g: area %.17g", d, g[0].area);
        cr_assert(mc_length(mc_sub(g[0].normal, axis)) < 1e-14, "normal along the axis");
        cr_assert(rel(g[0].depth, d) < tol, "depth %.17g want %.17g", g[0].depth, d);
        double zc = 3.0 * (2.0 * rs - d) * (2.0 * rs - d) / (4.0 * (3.0 * rs - d)); // centroid from the ball's centre
        mc_vec3 want = mc_sub(c, mc_scale(axis, zc));
        cr_assert(mc_length(mc_sub(g[0].centroid, want)) < 1e-14 + tol * d, "d %g: centroid", d);
    }
    // A ball inside the cylinder; the cylinder inside a ball: the smaller solid, no contact surface.
    mc_region g[MAX_REGIONS];
    mc_shape small = mc_shape_sphere(0.04), large = mc_shape_sphere(1.0);
    mc_vec3 c = mc_add(pc.p, mc_scale(axis, 0.1));
    cr_assert_eq(query_both(&cyl, pc, &small, at(c.x, c.y, c.z), NULL, g), 1u);
    cr_assert(rel(g[0].volume, 4.0 / 3.0 * PI * 0.04 * 0.04 * 0.04) < 1e-14 && g[0].area < 1e-15);
    cr_assert(mc_length(mc_sub(g[0].centroid, c)) < 1e-15);
    cr_assert_eq(query_both(&cyl, pc, &large, at(c.x, c.y, c.z), NULL, g), 1u);
    cr_assert(rel(g[0].volume, PI * r * r * len) < 1e-14 && g[0].area < 1e-15);
    // A ball of radius 0.15 on the axis, 0.02 from the middle: the disk R between the tangencies z = +-t, caps of
    // height rs - t beyond; the side inside the ball is symmetric about the axis (area vector 0).
    double rs = 0.15, t = sqrt(rs * rs - r * r), kk = rs - t;
    c = mc_add(pc.p, mc_scale(axis, 0.02));
    mc_shape mid = mc_shape_sphere(rs);
    cr_assert_eq(query_both(&cyl, pc, &mid, at(c.x, c.y, c.z), NULL, g), 1u);
    double want = 2.0 * PI * r * r * t + 2.0 * cap_volume(rs, kk);
    cr_assert(rel(g[0].volume, want) < 1e-14, "on the axis: %.17g want %.17g", g[0].volume, want);
    cr_assert(g[0].area < 1e-14 * r * len, "on the axis: area %g", g[0].area);
}

// A ball through the side, the rim and a cap at random tilts: the exact ball against the tessellated cylinder
// (sphere-mesh, itself exact) converges to it as the chord tolerance shrinks.
Test(cylinder_mesh, cylinder_and_ball_converge_to_the_ball_on_the_tessellated_cylinder)
{
    double r = 0.1, len = 0.3;
    uint64_t state = 77;
    mc_shape cyl = mc_shape_cylinder(r, len);
    mc_mesh* tess[3];
    tessellate(r, len, tess);
    for (int k = 0; k < 6; ++k)
    {
        mc_pose pc = at(0, 0, 0);
        pc.q = scene_random_quat(&state);
        double rs = 0.03 + 0.1 * scene_random(&state);
        // The centre near the side (k even) or near the rim of a cap (k odd), 0.3 rs inside.
        double phi = 2.0 * PI * scene_random(&state);
        mc_vec3 local = k % 2 == 0 ? mc_v3((r + 0.7 * rs) * cos(phi), (r + 0.7 * rs) * sin(phi), 0.05 * (k / 2 - 1))
                                   : mc_v3((r + 0.2 * rs) * cos(phi), (r + 0.2 * rs) * sin(phi), 0.15 + 0.5 * rs);
        mc_vec3 c = mc_quat_rotate(pc.q, local);
        mc_shape ball = mc_shape_sphere(rs);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &ball, at(c.x, c.y, c.z), NULL, g), 1u);
        double prev = INFINITY, scale = cbrt(g[0].volume);
        for (int j = 0; j < 3; ++j)
        {
            mc_shape mesh = mc_shape_mesh(tess[j]);
            mc_region q[MAX_REGIONS];
            cr_assert_eq(query_both(&mesh, pc, &ball, at(c.x, c.y, c.z), NULL, q), 1u);
            double ev = rel(q[0].volume, g[0].volume), ec = mc_length(mc_sub(q[0].centroid, g[0].centroid)) / scale;
            double es = mc_length(mc_sub(q[0].s_i, g[0].s_i)) / fmax(g[0].area, scale * scale);
            double e = fmax(ev, fmax(ec, es));
            cr_log_info("ball %d tol %g: volume %.3g centroid %.3g S_I %.3g", k, pow(10.0, -2 - j), ev, ec, es);
            // The facets' error is first order in the tolerance: threefold down per tenfold, 10 tol / R at most.
            cr_assert(e < fmax(0.3 * prev, 10.0 * pow(10.0, -2 - j)), "ball %d tol %g: %g after %g", k,
                      pow(10.0, -2 - j), e, prev);
            prev = e;
        }
        cr_assert(prev < 1e-3, "ball %d: final %g", k, prev);
    }
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh_destroy(tess[k]);
    }
}

static const long double gauss10l[5][2] = {
    {0.973906528517171720078L, 0.0666713443086881375936L}, {0.865063366688984510732L, 0.149451349150580593146L},
    {0.679409568299024406234L, 0.219086362515982043996L},  {0.433395394129247190799L, 0.269266719309996355091L},
    {0.148874338981631210885L, 0.295524224714752870174L},
};

/// The independent oracle's integrand: the ball's chord along the axis within the slab, times the arc of the circle
/// of radius rho around the ball's foot (d from the axis) inside the cylinder's disk.
static long double along_axis(long double rho, long double r, long double h, long double rs, long double d,
                              long double cz)
{
    long double q = sqrtl(fmaxl(0.0L, (rs - rho) * (rs + rho)));
    long double chord = fminl(h, cz + q) - fmaxl(-h, cz - q);
    if (!(chord > 0.0L) || !(rho > 0.0L))
    {
        return 0.0L;
    }
    long double arc;
    if (rho + d <= r)
    {
        arc = 2.0L * (long double)PI * rho;
    }
    else if (rho >= d + r || d >= rho + r)
    {
        arc = 0.0L;
    }
    else
    {
        arc = 2.0L * rho * acosl(fminl(1.0L, fmaxl(-1.0L, (rho * rho + d * d - r * r) / (2.0L * rho * d))));
    }
    return chord * arc;
}

/// The volume of the cylinder (r, 2h) and the ball (rs) whose centre is d from the axis at height cz, sliced the other
/// way: along the axis, over circles around the ball's foot (cut where the regimes change, z = a + (b - a)(1 - cos
/// tau)/2 on each piece, `panels` panels of the 10-point rule, in long double).
static double volume_along_axis(double r, double h, double rs, double d, double cz, int panels)
{
    long double cuts[8] = {0.0L, rs, fabsl((long double)d - r), (long double)d + r};
    int n = 4;
    long double e[2] = {h - cz, h + cz};
    for (int k = 0; k < 2; ++k)
    {
        if (fabsl(e[k]) < rs)
        {
            cuts[n++] = sqrtl(((long double)rs - fabsl(e[k])) * ((long double)rs + fabsl(e[k])));
        }
    }
    for (int i = 0; i < n; ++i)
    {
        for (int j = i + 1; j < n; ++j)
        {
            if (cuts[j] < cuts[i])
            {
                long double t = cuts[i];
                cuts[i] = cuts[j];
                cuts[j] = t;
            }
        }
    }
    long double sum = 0.0L;
    for (int i = 0; i + 1 < n; ++i)
    {
        long double a = fmaxl(0.0L, cuts[i]), b = fminl((long double)rs, cuts[i + 1]);
        if (!(b > a))
        {
            continue;
        }
        for (int p = 0; p < panels; ++p)
        {
            long double t0 = (long double)PI * p / panels, t1 = (long double)PI * (p + 1) / panels;
            for (int k = 0; k < 10; ++k)
            {
                long double x = (k < 5 ? -1.0L : 1.0L) * gauss10l[k % 5][0], w = gauss10l[k % 5][1];
                long double tau = 0.5L * (t0 + t1) + 0.5L * (t1 - t0) * x;
                long double rho = a + (b - a) * 0.5L * (1.0L - cosl(tau));
                long double jac = 0.5L * (b - a) * sinl(tau) * 0.5L * (t1 - t0);
                sum += w * jac * along_axis(rho, r, h, rs, d, cz);
            }
        }
    }
    return (double)sum;
}

// The volume against an independent quadrature sliced the other way (along the axis), at random places and sizes
// of the ball: through the side, a cap, the rim, around the whole cylinder's end. Tolerance: the adaptive rule stops
// at 1e-15 of each piece's scale (pi min(R, rs)^2 times its length), at most five pieces: 1e-14 of the volume or of
// that scale, whichever is larger (measured: 1.4e-16 over 41 overlaps).
Test(cylinder_mesh, cylinder_and_ball_volume_matches_slices_along_the_axis)
{
    double r = 0.1, len = 0.3, h = 0.15;
    mc_shape cyl = mc_shape_cylinder(r, len);
    uint64_t state = 1234;
    int compared = 0;
    double worst = 0.0;
    for (int k = 0; k < 60; ++k)
    {
        double rs = 0.02 + 0.3 * scene_random(&state);
        double d = 0.3 * scene_random(&state), cz = 0.4 * (2.0 * scene_random(&state) - 1.0);
        mc_shape ball = mc_shape_sphere(rs);
        mc_region g[MAX_REGIONS];
        // The cylinder at the origin, unturned: the ball's centre in its frame exactly as given.
        uint32_t n = query_both(&cyl, at(0, 0, 0), &ball, at(d, 0.0, cz), NULL, g);
        double want = volume_along_axis(r, h, rs, d, cz, 64);
        // The oracle's own error: against 128 panels.
        double finer = volume_along_axis(r, h, rs, d, cz, 128);
        cr_assert(fabs(want - finer) <= 1e-16 * finer, "k %d: oracle %.17g vs %.17g", k, want, finer);
        if (n == 0)
        {
            cr_assert(want < 1e-15, "k %d: no region, the oracle has %g", k, want);
            continue;
        }
        double scale = PI * fmin(r, rs) * fmin(r, rs) * fmin(len, 2.0 * rs);
        cr_assert(fabs(g[0].volume - want) < 1e-14 * fmax(want, scale), "k %d (rs %g d %g cz %g): %.17g want %.17g", k,
                  rs, d, cz, g[0].volume, want);
        worst = fmax(worst, fabs(g[0].volume - want) / fmax(want, scale));
        compared++;
    }
    cr_log_info("%d overlaps, worst %.3g", compared, worst);
    cr_assert(compared > 20, "only %d overlaps", compared);
}

// Standing beside a box's wall (faces exactly parallel to the axis: n_z = 0), a small d into it through the box's top:
// the circular segment of height d times the overlap in height; S_J: the wall's strip (chord times the overlap) along
// -x and the top face's segment along +z. Centred on the box's vertical edge (the edge through both caps' centres,
// where the fans from the axis are undecided): moved by 2^-27 R, a quarter of the disk to 1e-8.
Test(cylinder_mesh, faces_parallel_to_the_axis_and_an_edge_on_it)
{
    double r = 0.1, len = 0.4;
    mc_mesh* box = scene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_shape cyl = mc_shape_cylinder(r, len), mesh = mc_shape_mesh(box);
    double ds[3] = {1e-4, 0.02, 0.15};
    for (int k = 0; k < 3; ++k)
    {
        double xc = -r + ds[k], d = xc + r; // the cylinder's side reaches x = d
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, at(xc, 0.5, 0.9), &mesh, at(0, 0, 0), NULL, g), 1u);
        long double phi = acosl(((long double)r - d) / r), c = sqrtl((long double)d * (2.0L * r - d));
        long double seg = (long double)r * r * (phi - sinl(phi) * cosl(phi));
        double want_v = (double)(0.3L * seg), strip = (double)(0.3L * 2.0L * c);
        // Sums of a few dozen terms, each within a few ulps of the cylinder's terms (R^2 L): 1e-14 of them, relative
        // to the segment ~ (d / R)^-1.5.
        double tol = 1e-14 * pow(r / d, 1.5);
        cr_assert(rel(g[0].volume, want_v) < tol, "d %g: volume %.17g want %.17g", d, g[0].volume, want_v);
        cr_assert(fabs(g[0].s_j.x + strip) < tol * strip && fabs(g[0].s_j.y) < 1e-15 * strip &&
                      fabs(g[0].s_j.z - (double)seg) < tol * (double)seg,
                  "d %g: S_J %.17g %.17g %.17g want %.17g 0 %.17g", d, g[0].s_j.x, g[0].s_j.y, g[0].s_j.z, -strip,
                  (double)seg);
        double xbar = (double)(2.0L * c * c * c / (3.0L * seg)); // the segment's centroid from the axis
        cr_assert(fabs(g[0].centroid.x - (xc + r - (r - xbar) - 0.0)) < 1e-13 * r, "d %g: centroid x %.17g", d,
                  g[0].centroid.x);
        cr_assert(fabs(g[0].centroid.z - 0.85) < 1e-14 && fabs(g[0].centroid.y - 0.5) < 1e-15);
        // Depth: radial d (R + the axis's distance behind the wall once past it), or the axial 0.1 (the box's top
        // is 0.1 above the cylinder's middle, L / 2 = 0.2), the smaller.
        cr_assert(rel(g[0].depth, fmin(d, 0.1)) < 1e-14, "d %g: depth %.17g", d, g[0].depth);
    }
    // Centred on the vertical edge x = y = 0, from z = 0.75 to 1.15: a quarter of the disk over 0.25.
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&cyl, at(0, 0, 0.95), &mesh, at(0, 0, 0), NULL, g), 1u);
    double want = 0.25 * PI * r * r * 0.25;
    cr_assert(rel(g[0].volume, want) < 1e-7, "on the edge: %.17g want %.17g", g[0].volume, want);
    double gq = 4.0 * r / (3.0 * PI); // a quarter disk's centroid
    cr_assert(fabs(g[0].centroid.x - gq) < 1e-7 * r && fabs(g[0].centroid.y - gq) < 1e-7 * r &&
                  fabs(g[0].centroid.z - 0.875) < 1e-7 * r,
              "on the edge: centroid %g %g %g", g[0].centroid.x, g[0].centroid.y, g[0].centroid.z);
    mc_mesh_destroy(box);
}

// Area of the unit disk between the lines y = lo and y = hi (-1 <= lo <= hi <= 1), in long double.
static long double disk_band(long double lo, long double hi)
{
    long double f_hi = hi * sqrtl(1.0L - hi * hi) + asinl(hi), f_lo = lo * sqrtl(1.0L - lo * lo) + asinl(lo);
    return f_hi - f_lo;
}

// Caps flush with mesh faces (the CAD case: a pin as long as the block it sits in, a cylinder standing on a plate).
// The box [-1, 1]^3 shifted by y against the cylinder R = 1, L = 2 at the origin: both caps lie in the box's top and
// bottom faces, and the overlap is the disk's band |y - s| <= 1 times 2. Each cap's winding used to come from
// mc_mesh_contains_point at the cap's centre, on the face, decided by the other body's perturbation instead of the
// section's side: a band of 1.59 came out as no contact, and the box turned upside down as the band plus a whole disk
// (fuzz_shapes). Also the box turned a half turn about x and about z (exact quaternions: the same faces), and a
// cylinder standing on a plate (touching: nothing; pressed d in: the disk times d). Tolerance: the fans' terms are of
// size R^2 and a few dozen are summed (1e-14 of the band, well below the whole disk an error would add).
Test(cylinder_mesh, a_face_flush_with_a_cap_counts_once)
{
    mc_mesh* cube = scene_box(mc_v3(-1, -1, -1), mc_v3(1, 1, 1));
    mc_shape cyl = mc_shape_cylinder(1.0, 2.0), mesh = mc_shape_mesh(cube);
    const double shifts[5] = {0.5, 0.0, -0.3, 0.999, -1.5};
    const mc_quat turns[3] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}};
    for (int t = 0; t < 3; ++t)
    {
        for (int k = 0; k < 5; ++k)
        {
            double s = shifts[k];
            mc_pose pm = at(0, s, 0);
            pm.q = turns[t];
            mc_region g[MAX_REGIONS];
            uint32_t n = query_both(&cyl, at(0, 0, 0), &mesh, pm, NULL, g);
            double want = (double)(2.0L * disk_band(fmaxl(-1.0L, s - 1.0L), fminl(1.0L, s + 1.0L)));
            cr_assert_eq(n, 1u, "turn %d shift %g: %u regions", t, s, n);
            cr_assert(rel(g[0].volume, want) < 1e-14, "turn %d shift %g: volume %.17g want %.17g", t, s, g[0].volume,
                      want);
        }
    }
    mc_mesh* plate = scene_box(mc_v3(-2, -2, -1), mc_v3(2, 2, 0));
    mc_shape on = mc_shape_mesh(plate);
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&cyl, at(0.3, -0.2, 1.0), &on, at(0, 0, 0), NULL, g), 0u, "standing on the plate");
    const double d = 0.125; // exact: the caps at 0.875 +- 1
    cr_assert_eq(query_both(&cyl, at(0.3, -0.2, 1.0 - d), &on, at(0, 0, 0), NULL, g), 1u);
    cr_assert(rel(g[0].volume, PI * d) < 1e-14, "pressed in: %.17g want %.17g", g[0].volume, PI * d);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(cube);
}

// A mesh vertex on the cylinder's side, to rounding (found by fuzz_shapes: the 48-triangle sphere of the fuzz
// harnesses, a cylinder of radius 1/8 turned by the quaternion (0, 2, 53, 0)): a face's edge from that vertex cut
// across the disk, but the vertex counted as outside by an ulp and the crossing at it was dropped, so the arc from
// the edge's other crossing ran on to the next one, 3 pi / 2 instead of pi / 2 (0.142 for 0.0887, more than the
// cylinder's 0.098). Oracle: the volume is continuous in the mesh's position, so at the vertex it is the mean of the
// volumes 2^-40 to either side (within 1e-12 relative: the change across 2^-40 is about 2^-40 times the section's
// perimeter, 1e-13 relative, and linear to far below that), and below the cylinder's.
Test(cylinder_mesh, a_mesh_vertex_on_the_side_keeps_the_volume_continuous)
{
    mc_mesh* ball = scene_primitive(MC_PRIMITIVE_ELLIPSOID, mc_v3(1, 1, 1), 48); // the fuzz harnesses' sphere
    cr_assert_not_null(ball);
    double r = 0.125, len = 2.0;
    mc_shape cyl = mc_shape_cylinder(r, len), mesh = mc_shape_mesh(ball);
    mc_pose pc = at(0, 0, 0.125);
    pc.q = (mc_quat){0, 2, 53, 0}; // normalised by the library, as the fuzzer's
    double v[3];
    for (int k = 0; k < 3; ++k)
    {
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &mesh, at(0.125 + (k - 1) * 0x1p-40, 0, 0), NULL, g), 1u);
        v[k] = g[0].volume;
    }
    cr_assert(rel(v[1], 0.5 * (v[0] + v[2])) < 1e-12, "volume %.17g at the vertex, %.17g and %.17g beside", v[1], v[0],
              v[2]);
    cr_assert(v[1] < PI * r * r * len);
    mc_mesh_destroy(ball);
}

// A needle centred on a corner of the unit cube, its axis through the corner vertex (found by fuzz_shapes at the L
// prism's corner, radius 2^-299: 1.21 times the cylinder). A face edge from a far corner to that vertex enters the
// disk r / |edge| before the vertex: a parameter from the far corner lost that below r = eps |edge|, the entry point
// rounded onto the vertex and the arc's sweep from its direction was noise (5e-7 off at 2^-40, 7 % at 2^-60). Oracle:
// the cylinder's inner half lies in the corner but for pieces within about r of the vertex, so the volume is half the
// cylinder's to within r / h (measured 0.39 r / h down to 2^-50, and 0.5 exactly below; the bound adds 1e-14 for the
// sums' rounding), along an axis that leaves the corner's symmetry.
Test(cylinder_mesh, a_needle_through_a_mesh_vertex_keeps_its_volume)
{
    mc_mesh* cube = scene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_shape mesh = mc_shape_mesh(cube);
    mc_vec3 axis = mc_normalize(mc_v3(1.0, 1.1, 0.9)), z = mc_v3(0, 0, 1), c = mc_cross(z, axis);
    mc_pose pc = at(1, 1, 1);
    pc.q = mc_quat_normalize((mc_quat){1.0 + mc_dot(z, axis), c.x, c.y, c.z}); // z onto the axis
    double h = 0.125;
    for (int e = 20; e <= 80; e += 10)
    {
        double r = ldexp(1.0, -e);
        mc_shape cyl = mc_shape_cylinder(r, 2.0 * h);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&cyl, pc, &mesh, at(0, 0, 0), NULL, g), 1u);
        double part = g[0].volume / (PI * r * r * 2.0 * h);
        cr_assert(fabs(part - 0.5) <= r / h + 1e-14, "radius 2^-%d: %.17g of the cylinder", e, part);
    }
    mc_mesh_destroy(cube);
}
