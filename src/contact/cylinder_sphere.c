// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A solid cylinder C (radius R, half-length h, axis z of its frame) against a ball (centre c, radius rs), by slices
// across the axis: at height z the ball's slice is a disk of radius s(z) = sqrt(rs^2 - (z - c_z)^2) around
// (c_x, c_y), and C's is the disk R around the axis; their lens (area A, centroid along the line of the centres, half
// common chord a) integrated over z gives the volume (int A), the first moments (int A xbar, int A z) and the
// cylinder's side inside the ball (its area vector is 2 u int a dz, u the direction of the centre across the axis).
// The caps inside the ball add the lens at z = +-h.
//
// The slice functions are analytic in z except where the circles touch (s = |d - R|, s = d + R: the lens goes as
// delta^(3/2), a as delta^(1/2)) and at the ball's poles (s as delta^(1/2)). The z range is cut there, and on each
// piece z = z0 + (z1 - z0)(1 - cos tau) / 2 turns those ends into analytic ones in tau; a 20-point Gauss rule on
// panels of tau, halved until the rule on a panel and on its two halves agree to 1e-15 of the scale of each integral
// (at most 2^14 panels), gives the integrals to about that (the halves' value is kept).
#include "src/base/core.h"
#include "src/contact/cylinder_mesh.h"
#include "src/contact/cylinder_plane.h"
#include "src/contact/gauss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_DEPTH 14

typedef struct slab_problem
{
    double r, h;   // cylinder
    double rs;     // ball radius
    double d, cz;  // the ball's centre: distance from the axis, height
    double z0, z1; // the current piece
    double scale[4];
} slab_problem;

/// The lens of the circles (0, r) and (d, s): area, centroid's distance from the first centre along the line of the
/// centres, half common chord (0 when one circle holds the other or they are apart).
static double lens(double r, double s, double d, double* xbar, double* half_chord)
{
    *half_chord = 0.0;
    *xbar = 0.0;
    if (!(s > 0.0) || d >= r + s)
    {
        return 0.0;
    }
    if (d + s <= r)
    {
        *xbar = d;
        return PI * s * s;
    }
    if (d + r <= s)
    {
        return PI * r * r;
    }
    double p = (r + s - d) * (d + r - s) * (d - r + s) * (d + r + s);
    double a = sqrt(fmax(0.0, p)) / (2.0 * d);
    double x = (d * d + r * r - s * s) / (2.0 * d); // the chord's distance from the first centre
    double s1 = r * r * mc_segment_shape(atan2(a, x)), s2 = s * s * mc_segment_shape(atan2(a, d - x));
    double g1 = s1 > 0.0 ? 2.0 * a * a * a / (3.0 * s1) : r, g2 = s2 > 0.0 ? 2.0 * a * a * a / (3.0 * s2) : s;
    *half_chord = a;
    double area = s1 + s2;
    *xbar = area > 0.0 ? (s1 * g1 + s2 * (d - g2)) / area : x;
    return area;
}

/// The ball's slice radius at height z.
static double slice_radius(const slab_problem* p, double z)
{
    double t = z - p->cz;
    return sqrt(fmax(0.0, (p->rs - t) * (p->rs + t)));
}

/// The 20-point rule over tau in [ta, tb] of the piece's integrands: f = (A, A xbar, A z, a) dz/dtau.
static void rule(const slab_problem* p, double ta, double tb, double f[4])
{
    f[0] = f[1] = f[2] = f[3] = 0.0;
    double half = 0.5 * (tb - ta), mid = 0.5 * (ta + tb), len = p->z1 - p->z0;
    for (int k = 0; k < 20; ++k)
    {
        double wk, xk = mc_gauss20_node(k, &wk);
        double tau = mid + half * xk;
        double z = p->z0 + len * (0.5 - 0.5 * cos(tau)), jac = 0.5 * len * sin(tau);
        double xbar = 0.0, a = 0.0;
        double area = lens(p->r, slice_radius(p, z), p->d, &xbar, &a);
        double w = wk * half * jac;
        f[0] += w * area;
        f[1] += w * area * xbar;
        f[2] += w * area * z;
        f[3] += w * a;
    }
}

static void integrate(const slab_problem* p, double ta, double tb, const double whole[4], int depth, double out[4])
{
    double m = 0.5 * (ta + tb), left[4], right[4];
    rule(p, ta, m, left);
    rule(p, m, tb, right);
    bool ok = true;
    for (int k = 0; k < 4; ++k)
    {
        ok = ok && fabs(left[k] + right[k] - whole[k]) <= 1e-15 * p->scale[k];
    }
    if (ok || depth >= MAX_DEPTH)
    {
        for (int k = 0; k < 4; ++k)
        {
            out[k] += left[k] + right[k];
        }
        return;
    }
    integrate(p, ta, m, left, depth + 1, out);
    integrate(p, m, tb, right, depth + 1, out);
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

uint32_t mc_cylinder_sphere(double r, double len, const mc_pose* pc, mc_vec3 centre, double rs, mc_region* g)
{
    mc_mat33 rc = mc_quat_to_mat33(pc->q);
    mc_vec3 c = mc_mat33_tmul_vec(&rc, mc_sub(centre, pc->p)); // the centre in the cylinder's frame
    slab_problem p;
    memset(&p, 0, sizeof p);
    p.r = r;
    p.h = 0.5 * len;
    p.rs = rs;
    p.d = sqrt(c.x * c.x + c.y * c.y);
    p.cz = c.z;
    double zlo = fmax(-p.h, c.z - rs), zhi = fmin(p.h, c.z + rs);
    if (!(zlo < zhi) || !(p.d < r + rs))
    {
        return 0;
    }
    mc_vec3 u = p.d > 0.0 ? mc_v3(c.x / p.d, c.y / p.d, 0.0) : mc_v3(1, 0, 0);
    // Pieces: cut where the circles touch.
    double cuts[8];
    int n = 0;
    cuts[n++] = zlo;
    cuts[n++] = zhi;
    double sigma[2] = {fabs(p.d - r), p.d + r};
    for (int k = 0; k < 2; ++k)
    {
        if (sigma[k] < rs)
        {
            double t = sqrt((rs - sigma[k]) * (rs + sigma[k]));
            double zs[2] = {c.z - t, c.z + t};
            for (int j = 0; j < 2; ++j)
            {
                if (zs[j] > zlo && zs[j] < zhi)
                {
                    cuts[n++] = zs[j];
                }
            }
        }
    }
    qsort(cuts, (size_t)n, sizeof cuts[0], compare_double);
    double sums[4] = {0.0, 0.0, 0.0, 0.0};
    double rmin = fmin(r, rs);
    for (int k = 0; k + 1 < n; ++k)
    {
        if (!(cuts[k + 1] > cuts[k]))
        {
            continue;
        }
        p.z0 = cuts[k];
        p.z1 = cuts[k + 1];
        double width = p.z1 - p.z0;
        p.scale[0] = PI * rmin * rmin * width;
        p.scale[1] = p.scale[0] * (p.d + r);
        p.scale[2] = p.scale[0] * (fabs(c.z) + rs + p.h);
        p.scale[3] = rmin * width;
        double whole[4];
        rule(&p, 0.0, PI, whole);
        integrate(&p, 0.0, PI, whole, 0, sums);
    }
    double vol = sums[0];
    if (!(vol > 0.0))
    {
        return 0;
    }
    // The cylinder's surface inside the ball: its side, and its caps where they cut the ball.
    double xb = 0.0, a = 0.0;
    double top = p.h < c.z + rs && p.h > c.z - rs ? lens(r, slice_radius(&p, p.h), p.d, &xb, &a) : 0.0;
    double bottom = -p.h < c.z + rs && -p.h > c.z - rs ? lens(r, slice_radius(&p, -p.h), p.d, &xb, &a) : 0.0;
    mc_vec3 si = mc_add(mc_scale(u, 2.0 * sums[3]), mc_v3(0.0, 0.0, top - bottom));
    mc_vec3 local_c = mc_add(mc_scale(u, sums[1] / vol), mc_v3(0.0, 0.0, sums[2] / vol));
    memset(g, 0, sizeof *g);
    g->volume = vol;
    g->centroid = mc_add(pc->p, mc_mat33_mul_vec(&rc, local_c));
    mc_vec3 swi = mc_mat33_mul_vec(&rc, si);
    g->area = mc_length_scaled(swi); // its square underflows for a tiny contact (fuzz_shapes)
    g->radius = sqrt(g->area / PI);
    g->normal = g->area > 0.0 ? mc_normalize(swi) : mc_v3(0, 0, 0);
    g->s_i = swi;
    g->s_j = mc_scale(swi, -1.0);
    // Depth as a ball against a mesh: rs - the distance from the centre to the cylinder's surface (rs + it with the
    // centre inside); point_i that closest point of the cylinder, point_j the ball's deepest point.
    double er = p.d - r, ea = fabs(c.z) - p.h;
    mc_vec3 q;
    if (er <= 0.0 && ea <= 0.0)
    {
        q = -er <= -ea ? mc_v3(r * u.x, r * u.y, c.z) : mc_v3(c.x, c.y, c.z >= 0.0 ? p.h : -p.h);
        double din = fmin(-er, -ea);
        g->depth = rs + din;
        mc_vec3 out = din > 0.0 ? mc_scale(mc_sub(q, c), 1.0 / din) : u;
        g->point_j = mc_add(pc->p, mc_mat33_mul_vec(&rc, mc_sub(c, mc_scale(out, rs))));
    }
    else
    {
        q = er > 0.0 ? mc_v3(r * u.x, r * u.y, 0.0) : mc_v3(c.x, c.y, 0.0);
        q.z = fmin(fmax(c.z, -p.h), p.h);
        double dist = mc_length(mc_sub(q, c));
        g->depth = rs - dist;
        mc_vec3 in = dist > 0.0 ? mc_scale(mc_sub(q, c), 1.0 / dist) : u;
        g->point_j = mc_add(pc->p, mc_mat33_mul_vec(&rc, mc_add(c, mc_scale(in, rs))));
    }
    g->point_i = mc_add(pc->p, mc_mat33_mul_vec(&rc, q));
    return 1;
}
