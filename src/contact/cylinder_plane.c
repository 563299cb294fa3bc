// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A finite cylinder (radius r, length L, axis z, centred) against the half-space n . x <= c, in closed form.
//
// Slices across the axis: with the axis coordinate s from the deepest cap (0 .. L), the normal split into its part
// along the axis nz >= 0 (the frame reflected when it is negative) and across it np along the unit e, the slice at s
// is a disk cut by a chord whose lowest point is p(s) = h - nz s below the plane (h the depth); in the slice the
// chord is p / np above the disk's lowest point, at the half angle phi: p / np = r (1 - cos phi). Slices with
// p >= 2 r np are whole disks (s < sa), slices with p <= 0 are dry (s > sb), the others (the partial zone, sa .. sb,
// clipped to the caps) hold the segment of area r^2 w(phi), w(phi) = phi - sin phi cos phi, whose first moment along
// e is -2/3 r^3 sin^3 phi. Along the zone ds = -(np r / nz) sin phi dphi, so every integral over the zone is its
// length times a mean over phi in [a, b] with the weight sin phi (a, b the angles at its ends):
//   mean of w:       w(m) + cos m (G(d) / (sin d sin m) + 4/3 sin m sin^2 d),  G(x) = sin x - x cos x - sin^3 x / 3
//   mean of sin^3:   [sin^4 m C4(d) + 6 sin^2 m cos^2 m C22(d) + cos^4 m S4(d)] / (2 sin m sin d)
//   mean of sin:     w(d) / (2 sin m sin d) + sin m cos d
// with m, d the midpoint and half width of [a, b] and C4, C22, S4 the integrals of cos^4, sin^2 cos^2, sin^4 over
// [-d, d]. A zone that is mostly wet (a + b > pi) is taken from its dry side (angles pi - b, pi - a, computed from
// the heights of the slices' highest points; w(pi - phi) = pi - w(phi), the other means unchanged), so m <= pi/2
// and every term is >= 0: nothing cancels as the zone narrows (a cylinder nearly lying: nz -> 0, a = b), as the
// depth goes to 0 or as the plane nears the top (G, S4, w by their series). The axial moment of the zone about its
// middle s_m is
//   -(zone length)^2 r^2 K,  K = int over [-d, d] of sin(m + (x+d)/2) sin(m + (x-d)/2) sin((d+x)/2) sin((d-x)/2)
//                                 sin^2(m + x) / (sin^2 m sin^2 d) dx
// (by parts: the product of the first four sines is (cos a - cos phi)(cos phi - cos b) / 4). Before the division,
// K's integrand is a product of sines of total frequency <= 4 in x (coefficients summing to <= 1, so its 40th
// derivative is <= 4^40) over a width 2d <= pi; the 20-point Gauss-Legendre rule's remainder is then below
// (2d)^41 (20!)^4 4^40 / (41 (40!)^3) <= 4.6e-28 (2d / pi)^41, far under the rounding of the integral (about
// sin^4 m d^3 / 3 for small d, with m >= d).
// The cut of the plane through the solid (the contact area) has the chord 2 r sin phi, moving by ds / np in the
// plane: area = (2 r^2 / nz) (integral of sin^2 over [a, b]) = (r^2 / nz)(2 w(d) + 2 sin^2 m sin 2d), or
// (2 r zone / np) (mean of sin) when nz < np. A standing cylinder (np = 0) has no partial zone: the cap's disk.
#include "src/contact/cylinder_plane.h"

#include "src/base/core.h"
#include "src/contact/gauss.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

double mc_segment_shape(double theta)
{
    if (theta > 0.1)
    {
        return theta - 0.5 * sin(2.0 * theta);
    }
    // (1/2) sum over k >= 1 of (-1)^(k+1) (2 theta)^(2k+1) / (2k+1)!
    double x = 2.0 * theta, term = x * x * x / 6.0, sum = 0.0;
    for (int k = 1; k < 8; ++k)
    {
        sum += term;
        term *= -x * x / ((2.0 * k + 2.0) * (2.0 * k + 3.0));
    }
    return 0.5 * sum;
}

/// G(x) = sin x - x cos x - sin^3 x / 3 (the integral of w(phi) sin phi from 0 to x), 2 x^5 / 15 for small x: by
/// its series up to x = 1 (sin^3 = (3 sin x - sin 3x) / 4 gives the coefficients (3 + 3^(2n+1) / 3 - 4 (2n+1)) / 4
/// of (-1)^n x^(2n+1) / (2n+1)!, which vanish for n < 2; the terms alternate and fall from the first).
static double g_moment(double x)
{
    if (x > 1.0)
    {
        double s = sin(x);
        return s - x * cos(x) - s * s * s / 3.0;
    }
    double power = x * x * x * x * x / 120.0, three = 243.0, sum = 0.0; // x^5 / 5!, 3^5
    for (int n = 2; n < 20; ++n)
    {
        double coef = 0.25 * (3.0 + three / 3.0 - 4.0 * (2.0 * n + 1.0));
        sum += (n % 2 == 0 ? coef : -coef) * power;
        power *= x * x / ((2.0 * n + 2.0) * (2.0 * n + 3.0));
        three *= 9.0;
    }
    return sum;
}

/// Integral of sin^4 over [-d, d] (2 d^5 / 5 for small d): 3d/4 - sin 2d / 2 + sin 4d / 16, by its series up to
/// d = 1 (sin^4 x = sum over n >= 2 of (-1)^n (16^n - 4^(n+1)) x^(2n) / (8 (2n)!)).
static double sin4_integral(double d)
{
    if (d > 1.0)
    {
        return 0.75 * d - 0.5 * sin(2.0 * d) + sin(4.0 * d) / 16.0;
    }
    double power = d * d * d * d * d / 24.0, p16 = 256.0, p4 = 64.0, sum = 0.0; // d^5 / 4!, 16^2, 4^3
    for (int n = 2; n < 24; ++n)
    {
        double term = (p16 - p4) / (8.0 * (2.0 * n + 1.0)) * power;
        sum += n % 2 == 0 ? term : -term;
        power *= d * d / ((2.0 * n + 1.0) * (2.0 * n + 2.0));
        p16 *= 16.0;
        p4 *= 4.0;
    }
    return 2.0 * sum;
}

/// Means over the partial zone (see the file's comment).
typedef struct zone_means
{
    double area;   ///< of w(phi): the slice's area over r^2
    double sin3;   ///< of sin^3 phi: the slice's moment along e over -2/3 r^3
    double sin1;   ///< of sin phi: the half chord over r
    double spread; ///< K: the zone's axial moment about its middle over -(length^2 r^2)
    double m, d;   ///< midpoint and half width of the angles used (wet or dry: sin^2 m is the same)
} zone_means;

static double spread_integral(double m, double d)
{
    double sum = 0.0, sm = sin(m), sd = sin(d);
    for (int k = 0; k < 20; ++k)
    {
        double wk, x = mc_gauss20_node(k, &wk) * d;
        double t = sin(m + x);
        double f = sin(m + 0.5 * (x + d)) * sin(m + 0.5 * (x - d)) * sin(0.5 * (d + x)) * sin(0.5 * (d - x)) * t * t;
        sum += wk * f;
    }
    return sum * d / (sm * sm * sd * sd);
}

/// The means over [a, b] (0 <= a <= b <= pi).
static zone_means means_over(double a, double b)
{
    double m = 0.5 * (a + b), d = 0.5 * (b - a);
    double sm = sin(m), cm = cos(m), sd = sin(d);
    zone_means z = {mc_segment_shape(m), sm * sm * sm, sm, 0.0, m, d};
    if (!(d > 0.0) || !(sm > 0.0)) // a slice's own values (a cylinder lying exactly)
    {
        return z;
    }
    z.area += cm * (g_moment(d) / (sd * sm) + 4.0 / 3.0 * sm * sd * sd);
    double c4 = 0.75 * d + 0.5 * sin(2.0 * d) + sin(4.0 * d) / 16.0, c22 = mc_segment_shape(2.0 * d) / 8.0;
    z.sin3 = (sm * sm * sm * sm * c4 + 6.0 * sm * sm * cm * cm * c22) / (2.0 * sm * sd) +
             cm * cm * cm * cm * sin4_integral(d) / (2.0 * sm * sd);
    z.sin1 = mc_segment_shape(d) / (2.0 * sm * sd) + sm * cos(d);
    z.spread = spread_integral(m, d);
    return z;
}

/// Half angles at one end of the partial zone: the wet one (the segment under the plane) and the dry one (pi minus
/// it), the smaller from its own height so that neither loses digits near 0 or pi.
typedef struct end_angles
{
    double wet, dry;
} end_angles;

/// @param p depth of the slice's lowest point below the plane, @param q height of its highest point above it (p + q
/// = 2 r np: the chord is p / np above the disk's lowest point, p / (p + q) of the diameter)
static end_angles angles_at(double p, double q)
{
    p = fmax(p, 0.0);
    q = fmax(q, 0.0);
    end_angles e;
    if (p <= q)
    {
        e.wet = 2.0 * asin(sqrt(p / (p + q)));
        e.dry = PI - e.wet;
    }
    else
    {
        e.dry = 2.0 * asin(sqrt(q / (p + q)));
        e.wet = PI - e.dry;
    }
    return e;
}

/// The means over the zone from its far end (wet angle a) to its deep end (b): over the wet angles when the zone is
/// mostly dry, else over the dry ones (the zone seen from the other side: w(pi - phi) = pi - w(phi), sin and the
/// spread unchanged).
static zone_means partial_zone(end_angles deep, end_angles far)
{
    if (far.wet + deep.wet <= PI)
    {
        return means_over(far.wet, deep.wet);
    }
    zone_means z = means_over(deep.dry, far.dry);
    z.area = PI - z.area;
    return z;
}

/// The region's fields from its parts in I's frame (`to_world` its pose): the contact surface's area (0: none, zero
/// normal) and the plane's unit normal n.
static void put_region(mc_region* g, double volume, mc_vec3 centroid, double area, mc_vec3 n, double depth,
                       mc_vec3 deepest, const mc_pose* to_world)
{
    mc_mat33 rot = mc_quat_to_mat33(to_world->q);
    memset(g, 0, sizeof *g);
    g->volume = volume;
    g->centroid = mc_add(to_world->p, mc_mat33_mul_vec(&rot, centroid));
    mc_vec3 u = mc_scale(mc_mat33_mul_vec(&rot, n), -1.0); // from the cylinder into the half-space
    g->area = area;
    g->radius = sqrt(area / PI);
    g->normal = area > 0.0 ? u : mc_v3(0, 0, 0);
    g->s_i = mc_scale(g->normal, area);
    g->s_j = mc_scale(g->normal, -area);
    g->depth = depth;
    g->point_i = mc_add(to_world->p, mc_mat33_mul_vec(&rot, deepest));
    g->point_j = mc_add(to_world->p, mc_mat33_mul_vec(&rot, mc_add(deepest, mc_scale(n, depth))));
}

uint32_t mc_cylinder_plane(double r, double len, mc_vec3 n, mc_vec3 o, const mc_pose* to_world, mc_region* g)
{
    double nz = fabs(n.z), np = hypot(n.x, n.y), side = n.z < 0.0 ? 1.0 : -1.0; // side: z of the deepest cap
    mc_vec3 e = np > 0.0 ? mc_v3(n.x / np, n.y / np, 0.0) : mc_v3(1, 0, 0);
    // The lowest and highest points of the deepest cap's rim and of the far one's (both the middle when lying), each
    // height taken from the plane's point directly: no difference of large heights.
    double zd = nz > 0.0 ? 0.5 * side * len : 0.0;
    mc_vec3 low = mc_scale(e, -r), high = mc_scale(e, r);
    double h = mc_dot(n, mc_sub(o, mc_add(low, mc_v3(0, 0, zd))));
    double q_deep = mc_dot(n, mc_sub(mc_add(high, mc_v3(0, 0, zd)), o));
    double p_far = mc_dot(n, mc_sub(o, mc_add(low, mc_v3(0, 0, -zd))));
    double q_far = mc_dot(n, mc_sub(mc_add(high, mc_v3(0, 0, -zd)), o));
    // The deepest point reported: that rim point, or the middle of the deepest line or disk (lying or standing).
    mc_vec3 deepest = mc_v3(np > 0.0 ? low.x : 0.0, np > 0.0 ? low.y : 0.0, zd);
    if (!(h > 0.0))
    {
        return 0;
    }
    if (q_far <= 0.0) // wholly below
    {
        put_region(g, PI * r * r * len, mc_v3(0, 0, 0), 0.0, n, h, deepest, to_world);
        return 1;
    }
    // Whole slices for s < sa, the partial zone sa .. sb (nz > 0 whenever a cap is whole or dry; both < L but for
    // rounding when nz L is below the heights' rounding: then the heights' signs decide, clamped to the length).
    double sa = fmin(q_deep < 0.0 ? -q_deep / nz : 0.0, len), sb = fmin(p_far < 0.0 ? h / nz : len, len);
    double volume = PI * r * r * sa, moment_s = 0.5 * PI * r * r * sa * sa, moment_e = 0.0;
    double area = np > 0.0 ? 0.0 : PI * r * r; // standing: the disk at s = sa
    if (np > 0.0 && sb > sa)
    {
        zone_means z = partial_zone(angles_at(h, q_deep), angles_at(p_far, q_far));
        double zone = sb - sa, slab = zone * r * r * z.area, sm = sin(z.m);
        volume += slab;
        moment_s += slab * 0.5 * (sa + sb) - zone * zone * r * r * z.spread;
        moment_e = -2.0 / 3.0 * r * r * r * zone * z.sin3;
        area = nz >= np ? r * r / nz * (2.0 * mc_segment_shape(z.d) + 2.0 * sm * sm * sin(2.0 * z.d))
                        : 2.0 * r * zone / np * z.sin1;
    }
    if (!(volume > 0.0))
    {
        return 0;
    }
    double zc = side * (0.5 * len - moment_s / volume); // s runs from the deepest cap
    mc_vec3 centroid = mc_add(mc_scale(e, moment_e / volume), mc_v3(0, 0, zc));
    put_region(g, volume, centroid, area, n, h, deepest, to_world);
    return 1;
}
