// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the cylinder against a plane (shape.h, src/contact/cylinder_plane.c). Oracles: the closed forms of a lying
// cylinder (L times a circular segment) and a standing one (pi R^2 h); for every tilt, an independent quadrature
// written here (the textbook slice area r^2 acos(-t/r) + t sqrt(r^2 - t^2) across the axis, in long double, with the
// substitution z = z0 + (z1 - z0)(1 - cos tau) / 2 that makes the slice functions analytic at the ends of the partial
// zone, 64 panels of 10 Gauss points: its own error, measured against 128 panels, is below 1e-16 relative); the
// mesh-plane code on tessellated cylinders, converging; continuity across the lying and standing limits; both orders.
#include "meshcontact/meshcontact.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_REGIONS 4

/// Relative tolerance at depth h: `base` for the formulas, plus what the rotation's rounding does to h. The plane's
/// normal in the cylinder's frame comes out of the poses' quaternions a few ulps off, which moves the heights of
/// points a cylinder length away by about 4e-16 (r + L), a relative 4e-16 (r + L) / h of the depth (1e-9 at h = 1e-6
/// r with L = 4r); the volume goes as h^1.5 at most, hence twice that.
static double tolerance(double base, double r, double len, double h)
{
    return base + 8e-16 * (r + len) / h;
}

/// What the quadrature oracle integrates: volume, first moments (in the cylinder's frame), cut area.
typedef struct oracle
{
    long double volume, mx, my, mz, area;
} oracle;

/// The plane z <= 0 (world) seen from a cylinder at `pose`: its unit normal n and offset c (n . x <= c), in long
/// double from the pose's rotation matrix.
static void plane_in_cylinder(mc_pose pose, long double n[3], long double* c)
{
    mc_mat33 m = mc_quat_to_mat33(mc_quat_normalize(pose.q));
    // n = R^T (0, 0, 1): the third row of R; a point of the plane in the cylinder frame is R^T (0 - p)
    n[0] = m.m[2][0];
    n[1] = m.m[2][1];
    n[2] = m.m[2][2];
    long double len = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k)
    {
        n[k] /= len;
    }
    // a point of the plane (the world origin) in the cylinder frame: R^T (0 - p)
    long double o[3];
    for (int k = 0; k < 3; ++k)
    {
        o[k] = -((long double)m.m[0][k] * pose.p.x + (long double)m.m[1][k] * pose.p.y +
                 (long double)m.m[2][k] * pose.p.z);
    }
    *c = n[0] * o[0] + n[1] * o[1] + n[2] * o[2];
}

/// Slice functions at chord offset t (the segment u <= t of the disk of radius r).
static void slice(long double r, long double t, long double* area, long double* moment, long double* chord)
{
    if (t <= -r)
    {
        *area = *moment = *chord = 0.0L;
        return;
    }
    if (t >= r)
    {
        *area = (long double)PI * r * r;
        *moment = *chord = 0.0L;
        return;
    }
    long double w = sqrtl(r * r - t * t);
    *area = r * r * acosl(-t / r) + t * w;
    *moment = -2.0L / 3.0L * w * w * w;
    *chord = 2.0L * w;
}

static const long double gauss10[5][2] = {
    {0.973906528517171720078L, 0.0666713443086881375936L}, {0.865063366688984510732L, 0.149451349150580593146L},
    {0.679409568299024406234L, 0.219086362515982043996L},  {0.433395394129247190799L, 0.269266719309996355091L},
    {0.148874338981631210885L, 0.295524224714752870174L},
};

/// One quadrature point: the slice at z, weight dz (of the integral over z).
static void add_slice(long double r, const long double n[3], long double c, long double z, long double dz, oracle* o)
{
    long double np = sqrtl(n[0] * n[0] + n[1] * n[1]);
    long double ex = np > 0 ? n[0] / np : 1.0L, ey = np > 0 ? n[1] / np : 0.0L;
    long double a, m, ch;
    if (np > 0)
    {
        slice(r, (c - n[2] * z) / np, &a, &m, &ch);
    }
    else
    {
        a = n[2] * z <= c ? (long double)PI * r * r : 0.0L;
        m = ch = 0.0L;
    }
    o->volume += a * dz;
    o->mx += m * ex * dz;
    o->my += m * ey * dz;
    o->mz += a * z * dz;
    o->area += np > 0 ? ch * dz / np : 0.0L;
}

/// Integrate the slices over z0 .. z1 (cylinder frame) with `panels` panels in tau. A piece of the partial zone
/// closer to standing than to lying (np < nz) is integrated over the chord offset t instead (z = (c - np t) / nz):
/// its z-width, 2 r np / nz, would lose digits as a difference of z values.
static void integrate(long double r, const long double n[3], long double c, long double z0, long double z1, int panels,
                      oracle* o)
{
    long double np = sqrtl(n[0] * n[0] + n[1] * n[1]), nz = n[2];
    long double tm = np > 0 ? (c - nz * 0.5L * (z0 + z1)) / np : 0.0L;
    bool by_t = np > 0 && np < fabsl(nz) && tm > -r && tm < r;
    long double u0 = z0, u1 = z1, scale = 1.0L;
    if (by_t)
    {
        u0 = fminl(r, fmaxl(-r, (c - nz * z0) / np));
        u1 = fminl(r, fmaxl(-r, (c - nz * z1) / np));
        scale = -np / nz; // dz = scale dt
    }
    long double pi = (long double)PI;
    for (int p = 0; p < panels; ++p)
    {
        long double t0 = pi * p / panels, t1 = pi * (p + 1) / panels;
        for (int k = 0; k < 10; ++k)
        {
            long double x = (k < 5 ? -1.0L : 1.0L) * gauss10[k % 5][0], wq = gauss10[k % 5][1];
            long double tau = 0.5L * (t0 + t1) + 0.5L * (t1 - t0) * x;
            long double u = u0 + (u1 - u0) * 0.5L * (1.0L - cosl(tau));
            long double du = (u1 - u0) * 0.5L * sinl(tau) * 0.5L * (t1 - t0) * wq;
            if (by_t)
            {
                // the slice at offset u: its z, and the area through the chord directly (dz / np = du / nz)
                long double a, m, ch, z = (c - np * u) / nz;
                slice(r, u, &a, &m, &ch);
                long double dz = scale * du;
                o->volume += a * dz;
                o->mx += m * n[0] / np * dz;
                o->my += m * n[1] / np * dz;
                o->mz += a * z * dz;
                o->area += ch * (-du / nz);
            }
            else
            {
                add_slice(r, n, c, u, du, o);
            }
        }
    }
}

/// The oracle for a cylinder (r, len) at `pose` against the floor z <= 0: the pieces between the caps and the ends
/// of the partial zone, each integrated.
static oracle quadrature(double r, double len, mc_pose pose, int panels)
{
    long double n[3], c;
    plane_in_cylinder(pose, n, &c);
    long double np = sqrtl(n[0] * n[0] + n[1] * n[1]);
    long double cuts[4] = {-0.5L * len, 0.5L * len, -0.5L * len, -0.5L * len};
    int count = 2;
    for (int s = -1; s <= 1 && n[2] != 0; s += 2)
    {
        long double z = (c + s * r * np) / n[2]; // where the chord reaches the rim
        if (z > -0.5L * len && z < 0.5L * len)
        {
            cuts[count++] = z;
        }
    }
    for (int i = 0; i < count; ++i) // sort the few breaks
    {
        for (int j = i + 1; j < count; ++j)
        {
            if (cuts[j] < cuts[i])
            {
                long double t = cuts[i];
                cuts[i] = cuts[j];
                cuts[j] = t;
            }
        }
    }
    oracle o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i + 1 < count; ++i)
    {
        integrate(r, n, c, cuts[i], cuts[i + 1], panels, &o);
    }
    return o;
}

static mc_quat tilt_about_y(double angle)
{
    mc_quat q = {cos(angle / 2), 0.0, sin(angle / 2), 0.0};
    return q;
}

/// A cylinder tilted by `angle` from standing (0) to lying (pi / 2) about y, its deepest point h below z = 0.
static mc_pose cylinder_pose(double r, double len, double angle, double h)
{
    mc_pose p = mc_pose_identity();
    p.q = tilt_about_y(angle);
    p.p = mc_v3(0.3, -0.2, r * fabs(sin(angle)) + 0.5 * len * fabs(cos(angle)) - h);
    return p;
}

/// Query (cylinder, floor) and (floor, cylinder): the second must mirror the first bitwise. @return the count.
static uint32_t query(double r, double len, mc_pose pose, mc_region* g)
{
    mc_shape cyl = mc_shape_cylinder(r, len), floor = mc_shape_plane();
    mc_pose o = mc_pose_identity();
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint32_t n = 0, m = 0;
    mc_region back[MAX_REGIONS];
    cr_assert_eq(mc_query_shape_regions(&cyl, &pose, &floor, &o, NULL, ws, g, MAX_REGIONS, &n, NULL), MC_OK);
    cr_assert_eq(mc_query_shape_regions(&floor, &o, &cyl, &pose, NULL, ws, back, MAX_REGIONS, &m, NULL), MC_OK);
    cr_assert_eq(n, m);
    if (n == 1)
    {
        cr_assert(g[0].volume == back[0].volume && g[0].area == back[0].area && g[0].depth == back[0].depth);
        cr_assert(g[0].normal.z == -back[0].normal.z && memcmp(&g[0].centroid, &back[0].centroid, 24) == 0);
        cr_assert(memcmp(&g[0].point_i, &back[0].point_j, 24) == 0 && memcmp(&g[0].s_i, &back[0].s_j, 24) == 0);
    }
    mc_workspace_destroy(ws);
    return n;
}

/// The true depth of the pose: the height of the plane above the deepest point, in long double.
static long double true_depth(double r, double len, mc_pose pose)
{
    long double n[3], c;
    plane_in_cylinder(pose, n, &c);
    return c + r * sqrtl(n[0] * n[0] + n[1] * n[1]) + 0.5L * len * fabsl(n[2]);
}

/// Compare a region with the quadrature: volume and area to `tol` relative, centroid to `tol` of the size.
static void check_against_quadrature(double r, double len, mc_pose pose, const mc_region* g, double tol,
                                     double area_tol, const char* what)
{
    oracle o = quadrature(r, len, pose, 64);
    cr_assert(fabsl(o.volume - g->volume) <= tol * o.volume, "%s: volume %.17g want %.17Lg", what, g->volume, o.volume);
    if (o.area > 0)
    {
        cr_assert(fabsl(o.area - g->area) <= area_tol * o.area, "%s: area %.17g want %.17Lg", what, g->area, o.area);
    }
    // The centroid in the cylinder's frame (the quadrature's) from the region's (world).
    mc_vec3 local = mc_quat_rotate(mc_quat_conj(mc_quat_normalize(pose.q)), mc_sub(g->centroid, pose.p));
    long double want[3] = {o.mx / o.volume, o.my / o.volume, o.mz / o.volume};
    double got[3] = {local.x, local.y, local.z};
    for (int k = 0; k < 3; ++k)
    {
        cr_assert(fabsl(got[k] - want[k]) <= tol * (r + len), "%s: centroid[%d] %.17g want %.17Lg", what, k, got[k],
                  want[k]);
    }
}

Test(cylinder_plane, the_quadrature_oracle_has_converged)
{
    // Its own check: 64 against 128 panels, a tilted case with the bottom cap and the side in the water.
    mc_pose p = cylinder_pose(0.5, 2.0, 0.6, 0.4);
    oracle a = quadrature(0.5, 2.0, p, 64), b = quadrature(0.5, 2.0, p, 128);
    cr_assert(fabsl(a.volume - b.volume) <= 1e-16L * b.volume && fabsl(a.mz - b.mz) <= 1e-16L * fabsl(b.mz));
    cr_assert(fabsl(a.area - b.area) <= 1e-16L * b.area && fabsl(a.mx - b.mx) <= 1e-16L * fabsl(b.mx));
}

Test(cylinder_plane, lying_and_standing_match_the_closed_forms)
{
    const double r = 0.05, len = 0.3;
    const double fractions[] = {1e-6, 1e-4, 1e-3, 0.01, 0.3, 1.0, 1.7};
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; ++k)
    {
        // Lying: L times the segment of height h, chord 2 sqrt(2 r h - h^2); the centroid below the axis by
        // (2/3) a^3 / segment (a the half chord).
        double h = fractions[k] * r;
        mc_pose p = cylinder_pose(r, len, PI / 2, h);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query(r, len, p, g), 1u);
        long double hh = true_depth(r, len, p); // the pose's own h (its z rounded)
        long double half = sqrtl(hh * (2.0L * r - hh)), phi = 2.0L * asinl(sqrtl(hh / (2.0L * r)));
        long double seg = r * r * (phi - sinl(phi) * cosl(phi));
        // 1e-13: the segment's terms in long double cancel for small h (1e-19 / (h / r)^1.5 ~ 1e-10 of it at 1e-6)
        double tol = tolerance(1e-13, r, len, h);
        cr_assert(fabsl(g[0].volume - len * seg) <= tol * len * seg, "lying h %g: %.17g want %.17Lg", h, g[0].volume,
                  len * seg);
        cr_assert(fabsl(g[0].area - 2.0L * half * len) <= tol * 2.0 * half * len, "lying h %g area", h);
        cr_assert(fabsl(g[0].depth - hh) <= tol * hh, "lying h %g: depth %.17g want %.17Lg", h, g[0].depth, hh);
        long double below = 2.0L / 3.0L * half * half * half / seg; // centroid's distance below the axis
        cr_assert(fabsl(g[0].centroid.z - (p.p.z - below)) <= tol * r, "lying h %g: centroid %.17g", h,
                  g[0].centroid.z);
        cr_assert(fabs(g[0].centroid.x - 0.3) <= tol * len && g[0].normal.z == -1.0);
        // Standing, the bottom cap pressed in by h (h < L here): pi r^2 h, the disk pi r^2, the centroid h / 2 down.
        p = cylinder_pose(r, len, 0.0, h);
        cr_assert_eq(query(r, len, p, g), 1u);
        hh = true_depth(r, len, p);
        cr_assert(fabsl(g[0].volume - PI * r * r * hh) <= 1e-14 * PI * r * r * hh, "standing h %g", h);
        cr_assert(fabs(g[0].area - PI * r * r) <= 1e-15 * PI * r * r && fabsl(g[0].depth - hh) <= 1e-14 * hh);
        cr_assert(fabsl(g[0].centroid.z + 0.5L * hh) <= 1e-15 * r, "standing h %g: centroid %.17g", h, g[0].centroid.z);
        // Its IMPACT force: k h^e.
        double fn = mc_impact_force(g[0].depth, 0.0, 1e8, 1.5, 0.0, 1e-4);
        cr_assert(fabsl(fn - 1e8 * powl(hh, 1.5L)) <= 1e-12 * fn, "standing h %g: Fn %.17g", h, fn);
    }
    // Wholly below, lying and standing: the whole cylinder, no contact surface; above: nothing.
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query(r, len, cylinder_pose(r, len, PI / 2, 2.5 * r), g), 1u);
    cr_assert(fabs(g[0].volume - PI * r * r * len) <= 1e-15 * g[0].volume && g[0].area == 0.0);
    cr_assert(g[0].normal.z == 0.0 && fabs(g[0].depth - 2.5 * r) <= 1e-15);
    cr_assert_eq(query(r, len, cylinder_pose(r, len, 0.0, 1.1 * len), g), 1u);
    cr_assert(fabs(g[0].volume - PI * r * r * len) <= 1e-15 * g[0].volume && g[0].area == 0.0);
    // Lying with its top line within rounding of the plane (the axis's tilt, ~1e-17, is below the heights'
    // rounding): nearly the whole cylinder, never more, a sliver of cut at most, finite.
    for (int k = -4; k <= 4; ++k)
    {
        mc_pose p = cylinder_pose(r, len, PI / 2, 2.0 * r);
        p.p.z += k * 1e-17;
        cr_assert_eq(query(r, len, p, g), 1u);
        double full = PI * r * r * len;
        cr_assert(g[0].volume <= full * (1.0 + 1e-15) && g[0].volume >= full * (1.0 - 1e-9), "top %d: %.17g", k,
                  g[0].volume);
        cr_assert(isfinite(g[0].centroid.x + g[0].centroid.z + g[0].area) && g[0].area <= 1e-6 * r * len);
    }
    cr_assert_eq(query(r, len, cylinder_pose(r, len, 0.3, -1e-9), g), 0u);
    cr_assert_eq(query(r, len, cylinder_pose(r, len, PI / 2, -1e-9), g), 0u);
    cr_assert_eq(query(r, len, cylinder_pose(r, len, 0.0, -1e-9), g), 0u);
}

Test(cylinder_plane, every_tilt_and_depth_matches_the_quadrature)
{
    // Tilts from standing to lying (and past it: the other cap down), depths from 1e-6 r (an edge of a cap) to the
    // plane through both caps and the cylinder nearly under. Tolerance: 1e-12 and the rotation's rounding
    // (tolerance()).
    const double r = 0.5, len = 2.0;
    const double tilts[] = {1e-9, 1e-3, 0.1, 0.6, PI / 4, 1.2, PI / 2 - 1e-3, PI / 2 - 1e-9, 2.0, 3.0};
    const double fractions[] = {1e-6, 1e-3, 0.1, 1.0, 2.0, 3.5, 4.5};
    for (size_t i = 0; i < sizeof tilts / sizeof tilts[0]; ++i)
    {
        for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; ++k)
        {
            double angle = tilts[i], h = fractions[k] * r;
            mc_pose p = cylinder_pose(r, len, angle, h);
            mc_region g[MAX_REGIONS];
            cr_assert_eq(query(r, len, p, g), 1u);
            char what[64];
            snprintf(what, sizeof what, "tilt %g h %g", angle, h);
            long double hh = true_depth(r, len, p);
            double tol = tolerance(1e-12, r, len, h);
            cr_assert(fabsl(g[0].depth - hh) <= tol * hh, "%s: depth %.17g want %.17Lg", what, g[0].depth, hh);
            // The cut's area also hangs on the height of the cylinder's highest point above the plane when that is
            // small (the plane near the top: a thin sliver), by the same rounding.
            long double n[3], c;
            plane_in_cylinder(p, n, &c);
            long double top = 2.0L * r * sqrtl(n[0] * n[0] + n[1] * n[1]) + len * fabsl(n[2]) - hh;
            double area_tol = tolerance(1e-12, r, len, fmin(h, (double)top));
            check_against_quadrature(r, len, p, g, tol, area_tol, what);
            if (g[0].area > 0.0)
            {
                cr_assert(fabs(g[0].normal.z + 1.0) <= 1e-15, "%s: the plane's normal, from I into J", what);
            }
        }
    }
}

Test(cylinder_plane, continuous_across_the_lying_and_standing_limits)
{
    // Tilts 1e-15 .. 1e-3 from lying and from standing: volume and centroid within their first-order change of the
    // limit's closed form: the volume by about (area + pi r^2) x tilt x L, the centroid by tilt x size x (1 + size / h)
    // (at a small depth h the wet length or the wet part of the cap moves by tilt x size / h of itself).
    const double r = 0.05, len = 0.3;
    const double hs[] = {1e-6 * r, 1e-3 * r, 0.5 * r, 1.5 * r};
    for (size_t k = 0; k < sizeof hs / sizeof hs[0]; ++k)
    {
        for (int limit = 0; limit < 2; ++limit)
        {
            double base = limit == 0 ? PI / 2 : 0.0;
            mc_region g0[MAX_REGIONS];
            cr_assert_eq(query(r, len, cylinder_pose(r, len, base, hs[k]), g0), 1u);
            for (int e = 15; e >= 3; --e)
            {
                double eps = pow(10.0, -e);
                mc_region g[MAX_REGIONS];
                cr_assert_eq(query(r, len, cylinder_pose(r, len, base - eps, hs[k]), g), 1u);
                // first order: the volume changes by about (area x tilt x L), the centroid by tilt x L
                double dv = fabs(g[0].volume - g0[0].volume), bound = 4.0 * eps * len * (g0[0].area + PI * r * r);
                cr_assert(dv <= bound + 1e-14 * g0[0].volume, "limit %d h %g tilt %g: dV %g > %g", limit, hs[k], eps,
                          dv, bound);
                double size = r + len, moved = 4.0 * eps * size * (1.0 + size / hs[k]);
                cr_assert(mc_length(mc_sub(g[0].centroid, g0[0].centroid)) <= moved + 1e-14 * len,
                          "limit %d h %g tilt %g: centroid moved %g", limit, hs[k], eps,
                          mc_length(mc_sub(g[0].centroid, g0[0].centroid)));
            }
        }
    }
}

Test(cylinder_plane, a_tessellated_cylinder_converges_to_it)
{
    // The mesh-plane clip of tessellated cylinders (inscribed facets) at chord tolerances 1e-2 and 1e-4 of r: the
    // volume and centroid approach the closed form's, the error falling with the tolerance (about as the facets'
    // area deficit, 2/3 of chord / r, or more where the rings are coarser: 3 chord / r).
    const double r = 0.5, len = 2.0;
    mc_pose p = cylinder_pose(r, len, 0.7, 0.3);
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query(r, len, p, g), 1u);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    double last = INFINITY;
    const double tolerances[] = {1e-2, 1e-4};
    for (int k = 0; k < 2; ++k)
    {
        mc_primitive_def pd = mc_default_primitive_def();
        pd.type = MC_PRIMITIVE_CYLINDER;
        pd.dims = mc_v3(r, r, len);
        pd.chord_tolerance = tolerances[k] * r;
        mc_mesh* m = NULL;
        cr_assert_eq(mc_mesh_create_primitive(&pd, &m, NULL), MC_OK);
        mc_shape mesh = mc_shape_mesh(m), floor = mc_shape_plane();
        mc_pose o = mc_pose_identity();
        mc_region t[MAX_REGIONS];
        uint32_t n = 0;
        cr_assert_eq(mc_query_shape_regions(&mesh, &p, &floor, &o, NULL, ws, t, MAX_REGIONS, &n, NULL), MC_OK);
        cr_assert_eq(n, 1u);
        double dv = fabs(t[0].volume - g[0].volume) / g[0].volume;
        double dc = mc_length(mc_sub(t[0].centroid, g[0].centroid)) / r;
        cr_log_info("chord %g r: volume %.3g, centroid %.3g, area %.3g apart", tolerances[k], dv, dc,
                    fabs(t[0].area - g[0].area) / g[0].area);
        cr_assert(dv <= 3.0 * tolerances[k] && dc <= 3.0 * tolerances[k], "chord %g: volume %g centroid %g",
                  tolerances[k], dv, dc);
        cr_assert(dv < last);
        last = dv;
        mc_mesh_destroy(m);
    }
    mc_workspace_destroy(ws);
}
