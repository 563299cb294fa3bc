// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of primitive tessellation (structure, chord tolerance, angles, convergence) and of the STL / .shl writers.
#include "meshcontact/meshcontact.h"
#include "src/base/core.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

static void check_leaks(void)
{
    cr_assert(eq(i64, mc_get_byte_count(), 0));
}

TestSuite(tessellate, .fini = check_leaks);

typedef struct tess
{
    double* pos;
    uint32_t* idx;
    uint32_t nv, nt;
} tess;

static mc_primitive_def make_def(mc_primitive_type type, double x, double y, double z, double tol, double angle)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = mc_v3(x, y, z);
    d.chord_tolerance = tol;
    d.max_angle = angle;
    return d;
}

static tess run(const mc_primitive_def* d)
{
    tess t;
    mc_error err;
    mc_status s = mc_primitive_tessellate(d, &t.pos, &t.nv, &t.idx, &t.nt, &err);
    cr_assert(eq(int, s, MC_OK), "tessellate failed: %s", err.message);
    return t;
}

static void release(tess* t)
{
    mc_free_arrays(t->pos, t->idx);
}

static mc_vec3 vtx(const tess* t, uint32_t v)
{
    return mc_v3(t->pos[3 * (size_t)v], t->pos[3 * (size_t)v + 1], t->pos[3 * (size_t)v + 2]);
}

static mc_vec3 corner(const tess* t, uint32_t tri, int k)
{
    return vtx(t, t->idx[3 * (size_t)tri + k]);
}

// ---------------------------------------------------------------------------------------------------------------
// Independent structural checks

static int cmp_u64(const void* a, const void* b)
{
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

static int cmp_vec(const void* a, const void* b)
{
    const double* x = a;
    const double* y = b;
    for (int k = 0; k < 3; ++k)
    {
        if (x[k] != y[k])
        {
            return x[k] < y[k] ? -1 : 1;
        }
    }
    return 0;
}

/// Every directed edge once, its reverse once (closed, consistently oriented, manifold edges); every vertex used;
/// no two vertices at the same position; Euler characteristic as expected (2: sphere-like, 0: torus).
static void check_structure(const tess* t, int euler)
{
    size_t nh = 3 * (size_t)t->nt;
    uint64_t* he = malloc(nh * sizeof *he);
    char* used = calloc(t->nv, 1);
    for (uint32_t f = 0; f < t->nt; ++f)
    {
        for (int k = 0; k < 3; ++k)
        {
            uint32_t a = t->idx[3 * (size_t)f + k], b = t->idx[3 * (size_t)f + (k + 1) % 3];
            cr_assert(lt(u32, a, t->nv));
            cr_assert(ne(u32, a, b));
            used[a] = 1;
            he[3 * (size_t)f + k] = ((uint64_t)a << 32) | b;
        }
    }
    qsort(he, nh, sizeof *he, cmp_u64);
    for (size_t h = 0; h < nh; ++h)
    {
        cr_assert(h == 0 || he[h] != he[h - 1], "directed edge used twice");
        uint64_t rev = (he[h] << 32) | (he[h] >> 32);
        cr_assert(bsearch(&rev, he, nh, sizeof *he, cmp_u64) != NULL, "edge without its opposite: open mesh");
    }
    for (uint32_t v = 0; v < t->nv; ++v)
    {
        cr_assert(used[v], "unused vertex %u", v);
    }
    double* p = malloc(3 * (size_t)t->nv * sizeof *p);
    memcpy(p, t->pos, 3 * (size_t)t->nv * sizeof *p);
    qsort(p, t->nv, 3 * sizeof *p, cmp_vec);
    for (uint32_t v = 1; v < t->nv; ++v)
    {
        cr_assert(cmp_vec(p + 3 * (size_t)v, p + 3 * (size_t)(v - 1)) != 0, "duplicate vertex");
    }
    long long chi = (long long)t->nv - (long long)(nh / 2) + (long long)t->nt;
    cr_assert(eq(i64, chi, euler));
    free(p);
    free(used);
    free(he);
}

static double tri_min_angle(mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_vec3 p[3] = {a, b, c};
    double m = PI;
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 u = mc_sub(p[(k + 1) % 3], p[k]), v = mc_sub(p[(k + 2) % 3], p[k]);
        m = fmin(m, atan2(mc_length(mc_cross(u, v)), mc_dot(u, v)));
    }
    return m;
}

/// Smallest triangle angle (radians); fails on a zero-area triangle.
static double min_angle(const tess* t)
{
    double m = PI;
    for (uint32_t f = 0; f < t->nt; ++f)
    {
        mc_vec3 a = corner(t, f, 0), b = corner(t, f, 1), c = corner(t, f, 2);
        cr_assert(gt(dbl, mc_length(mc_cross(mc_sub(b, a), mc_sub(c, a))), 0.0), "zero-area triangle");
        m = fmin(m, tri_min_angle(a, b, c));
    }
    return m;
}

/// Divergence-theorem volume (positive for outward winding) and area, in long double.
static void volume_area(const tess* t, double* volume, double* area)
{
    long double v = 0.0L, a = 0.0L;
    for (uint32_t f = 0; f < t->nt; ++f)
    {
        mc_vec3 p = corner(t, f, 0), q = corner(t, f, 1), r = corner(t, f, 2);
        v += (long double)mc_dot(p, mc_cross(q, r));
        a += (long double)mc_length(mc_cross(mc_sub(q, p), mc_sub(r, p)));
    }
    *volume = (double)(v / 6.0L);
    *area = (double)(a / 2.0L);
}

// ---------------------------------------------------------------------------------------------------------------
// Analytic oracles: distance of a point to the true surface, outward normal at a surface point, volume and area

/// Distance from p to the surface of the primitive (ellipsoid: an upper bound, exact to second order: the distance
/// to where the ray along the quadric's gradient at p meets the surface).
static double surface_distance(const mc_primitive_def* d, mc_vec3 p)
{
    mc_vec3 s = d->dims;
    double rho = hypot(p.x, p.y);
    switch (d->type)
    {
    case MC_PRIMITIVE_BOX: // full edge lengths, centred
        return fmin(fmin(fabs(fabs(p.x) - 0.5 * s.x), fabs(fabs(p.y) - 0.5 * s.y)), fabs(fabs(p.z) - 0.5 * s.z));
    case MC_PRIMITIVE_ELLIPSOID:
    {
        mc_vec3 i2 = mc_v3(1 / (s.x * s.x), 1 / (s.y * s.y), 1 / (s.z * s.z));
        mc_vec3 g = mc_v3(p.x * i2.x, p.y * i2.y, p.z * i2.z);
        mc_vec3 u = mc_normalize(g);
        // Q(p + t u) = 1: A t^2 + 2 B t + C = 0
        double A = u.x * u.x * i2.x + u.y * u.y * i2.y + u.z * u.z * i2.z;
        double B = mc_dot(g, u);
        double C = mc_dot(g, p) - 1.0;
        double disc = sqrt(B * B - A * C);
        double t1 = (-B + disc) / A, t2 = (-B - disc) / A;
        return fmin(fabs(t1), fabs(t2));
    }
    case MC_PRIMITIVE_CYLINDER:
    {
        // Facets of an inscribed polyhedron lie inside the convex solid.
        cr_assert(le(dbl, rho, s.x * (1 + 1e-12)));
        cr_assert(le(dbl, fabs(p.z), 0.5 * s.z * (1 + 1e-12)));
        return fmin(s.x - rho, 0.5 * s.z - fabs(p.z));
    }
    case MC_PRIMITIVE_FRUSTUM:
    {
        double rb = s.x, rt = s.y, h = s.z, L = hypot(rb - rt, h);
        double side = -((rho - rb) * h + p.z * (rb - rt)) / L; // distance to the slant line, > 0 inside
        cr_assert(ge(dbl, side, -1e-12 * L));
        cr_assert(ge(dbl, p.z, -1e-12 * h));
        cr_assert(le(dbl, p.z, h * (1 + 1e-12)));
        return fmin(fmin(p.z, h - p.z), side);
    }
    case MC_PRIMITIVE_TORUS:
        return fabs(hypot(rho - s.x, p.z) - s.y);
    }
    return INFINITY;
}

static void analytic(const mc_primitive_def* d, double* volume, double* area)
{
    mc_vec3 s = d->dims;
    switch (d->type)
    {
    case MC_PRIMITIVE_BOX:
        *volume = s.x * s.y * s.z; // full edge lengths
        *area = 2 * (s.x * s.y + s.y * s.z + s.z * s.x);
        return;
    case MC_PRIMITIVE_ELLIPSOID:
    {
        *volume = 4.0 / 3.0 * PI * s.x * s.y * s.z;
        // Area: with u = cos(theta), dA = sqrt(a^2 b^2 u^2 + c^2 (1 - u^2)(b^2 cos^2 phi + a^2 sin^2 phi)) du dphi,
        // a smooth integrand: midpoint rule in u (error ~ 1e-9 at 4000 points), trapezoid in phi (periodic).
        double a = s.x, b = s.y, c = s.z, sum = 0.0;
        int nu = 4000, np = 256;
        for (int i = 0; i < nu; ++i)
        {
            double u = -1.0 + (i + 0.5) * 2.0 / nu;
            for (int j = 0; j < np; ++j)
            {
                double ph = 2 * PI * j / np, cp = cos(ph), sp = sin(ph);
                sum += sqrt(a * a * b * b * u * u + c * c * (1 - u * u) * (b * b * cp * cp + a * a * sp * sp));
            }
        }
        *area = sum * (2.0 / nu) * (2 * PI / np);
        return;
    }
    case MC_PRIMITIVE_CYLINDER:
        *volume = PI * s.x * s.x * s.z;
        *area = 2 * PI * s.x * s.x + 2 * PI * s.x * s.z;
        return;
    case MC_PRIMITIVE_FRUSTUM:
    {
        double rb = s.x, rt = s.y, h = s.z;
        *volume = PI * h / 3 * (rb * rb + rb * rt + rt * rt);
        *area = PI * (rb + rt) * hypot(rb - rt, h) + PI * (rb * rb + rt * rt);
        return;
    }
    case MC_PRIMITIVE_TORUS:
        *volume = 2 * PI * PI * s.x * s.y * s.y;
        *area = 4 * PI * PI * s.x * s.y;
        return;
    }
}

/// Largest distance to the true surface over sample points of every facet: corners, edge midpoints, centroid and a
/// barycentric grid of step 1/6; for a sphere also the exact maximum (the point of the facet closest to the centre).
static double max_facet_distance(const mc_primitive_def* d, const tess* t)
{
    double worst = 0.0;
    for (uint32_t f = 0; f < t->nt; ++f)
    {
        mc_vec3 a = corner(t, f, 0), b = corner(t, f, 1), c = corner(t, f, 2);
        for (int i = 0; i <= 6; ++i)
        {
            for (int j = 0; i + j <= 6; ++j)
            {
                double l1 = i / 6.0, l2 = j / 6.0, l0 = 1.0 - l1 - l2;
                mc_vec3 p = mc_add(mc_add(mc_scale(a, l0), mc_scale(b, l1)), mc_scale(c, l2));
                worst = fmax(worst, surface_distance(d, p));
            }
        }
        mc_vec3 g = mc_scale(mc_add(mc_add(a, b), c), 1.0 / 3.0);
        worst = fmax(worst, surface_distance(d, g));
        bool sphere = d->type == MC_PRIMITIVE_ELLIPSOID && d->dims.x == d->dims.y && d->dims.y == d->dims.z;
        if (sphere)
        {
            // Closest point to the origin: the projection onto the plane if inside the triangle, else an edge.
            mc_vec3 n = mc_normalize(mc_cross(mc_sub(b, a), mc_sub(c, a)));
            mc_vec3 q = mc_scale(n, mc_dot(n, a));
            mc_vec3 tri[3] = {a, b, c};
            bool inside = true;
            for (int k = 0; k < 3; ++k)
            {
                mc_vec3 e = mc_sub(tri[(k + 1) % 3], tri[k]);
                inside = inside && mc_dot(mc_cross(e, mc_sub(q, tri[k])), n) >= 0.0;
            }
            double dmin = mc_length(q);
            if (!inside)
            {
                dmin = INFINITY;
                for (int k = 0; k < 3; ++k)
                {
                    mc_vec3 e = mc_sub(tri[(k + 1) % 3], tri[k]);
                    double s = fmax(0.0, fmin(1.0, -mc_dot(tri[k], e) / mc_dot(e, e)));
                    dmin = fmin(dmin, mc_length(mc_mul_add(tri[k], s, e)));
                }
            }
            worst = fmax(worst, d->dims.x - dmin);
        }
    }
    return worst;
}

/// True outward normal at a vertex of a smooth shape (sphere, ellipsoid, torus).
static mc_vec3 true_normal(const mc_primitive_def* d, mc_vec3 p)
{
    mc_vec3 s = d->dims;
    if (d->type == MC_PRIMITIVE_ELLIPSOID)
    {
        return mc_normalize(mc_v3(p.x / (s.x * s.x), p.y / (s.y * s.y), p.z / (s.z * s.z)));
    }
    double rho = hypot(p.x, p.y);
    mc_vec3 c = mc_v3(s.x * p.x / rho, s.x * p.y / rho, 0.0); // tube centre nearest to p
    return mc_normalize(mc_sub(p, c));
}

/// Largest angle between the true normals at the two ends of an edge (smooth shapes).
static double max_edge_normal_angle(const mc_primitive_def* d, const tess* t)
{
    double worst = 0.0;
    for (uint32_t f = 0; f < t->nt; ++f)
    {
        for (int k = 0; k < 3; ++k)
        {
            mc_vec3 n0 = true_normal(d, corner(t, f, k)), n1 = true_normal(d, corner(t, f, (k + 1) % 3));
            worst = fmax(worst, atan2(mc_length(mc_cross(n0, n1)), mc_dot(n0, n1)));
        }
    }
    return worst;
}

static void check_vertices_on_surface(const mc_primitive_def* d, const tess* t)
{
    double extent = fmax(d->dims.x, fmax(d->dims.y, d->dims.z));
    for (uint32_t v = 0; v < t->nv; ++v)
    {
        // Vertices are computed from the closed form with a few roundings: 1e-14 relative to the size.
        cr_assert(le(dbl, surface_distance(d, vtx(t, v)), 1e-14 * extent), "vertex %u off the surface", v);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes under test

static const mc_primitive_def* shapes(size_t* count)
{
    static mc_primitive_def s[12];
    s[0] = make_def(MC_PRIMITIVE_ELLIPSOID, 1.0, 1.0, 1.0, 1e-3, 15 * DEG);  // sphere
    s[1] = make_def(MC_PRIMITIVE_ELLIPSOID, 2.0, 1.0, 0.75, 1e-3, 15 * DEG); // triaxial ellipsoid
    s[2] = make_def(MC_PRIMITIVE_CYLINDER, 1.0, 0.0, 3.0, 1e-3, 15 * DEG);   // long cylinder
    s[3] = make_def(MC_PRIMITIVE_CYLINDER, 2.0, 0.0, 0.2, 1e-3, 15 * DEG);   // flat disc
    s[4] = make_def(MC_PRIMITIVE_FRUSTUM, 1.0, 0.4, 1.5, 1e-3, 15 * DEG);    // frustum
    s[5] = make_def(MC_PRIMITIVE_FRUSTUM, 0.5, 1.5, 1.0, 1e-3, 15 * DEG);    // inverted frustum
    s[6] = make_def(MC_PRIMITIVE_FRUSTUM, 1.0, 0.0, 1.0, 1e-3, 15 * DEG);    // cone, 45 degrees
    s[7] = make_def(MC_PRIMITIVE_TORUS, 1.0, 0.25, 0.0, 1e-3, 15 * DEG);     // thin torus
    s[8] = make_def(MC_PRIMITIVE_TORUS, 1.0, 0.8, 0.0, 1e-3, 15 * DEG);      // fat torus
    s[9] = make_def(MC_PRIMITIVE_BOX, 2.0, 1.0, 0.5, 1e-3, 15 * DEG);        // box (full edge lengths)
    s[10] = make_def(MC_PRIMITIVE_ELLIPSOID, 0.5, 3.0, 0.5, 1e-3, 15 * DEG); // prolate spheroid (cigar)
    s[11] = make_def(MC_PRIMITIVE_ELLIPSOID, 1.5, 1.5, 0.3, 1e-3, 15 * DEG); // oblate spheroid (lens)
    *count = sizeof s / sizeof s[0];
    return s;
}

static int euler_of(const mc_primitive_def* d)
{
    return d->type == MC_PRIMITIVE_TORUS ? 0 : 2;
}

/// Smallest angle promised for a shape (radians). Cone apex triangles: apex angle 2 asin(sin(half opening) sin(pi /
/// m)) with m the fewest ring segments whose edge normals differ by <= max_angle (found here by direct search).
static double promised_min_angle(const mc_primitive_def* d)
{
    mc_vec3 s = d->dims;
    switch (d->type)
    {
    case MC_PRIMITIVE_BOX:
    {
        double e[3] = {s.x, s.y, s.z}, m = PI;
        for (int a = 0; a < 3; ++a)
        {
            double u = e[(a + 1) % 3], v = e[(a + 2) % 3];
            m = fmin(m, atan(fmin(u, v) / fmax(u, v)));
        }
        return m;
    }
    case MC_PRIMITIVE_ELLIPSOID:
        return (s.x == s.y && s.y == s.z) ? 30 * DEG : 20 * DEG;
    case MC_PRIMITIVE_FRUSTUM:
        if (s.x == 0.0 || s.y == 0.0)
        {
            double L = hypot(s.x - s.y, s.z), nr = s.z / L, nz = fabs(s.x - s.y) / L;
            int m = 3;
            while (nr * nr * cos(2 * PI / m) + nz * nz < cos(d->max_angle))
            {
                ++m;
            }
            // Apex triangle: two generators of length l at azimuths 2 pi / m apart, chord 2 l sin(a) sin(pi / m).
            return fmin(20 * DEG, 0.999 * 2 * asin(nz * sin(PI / m)));
        }
        return 20 * DEG;
    default:
        return 20 * DEG;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Tests

Test(tessellate, meshes_are_closed_outward_indexed_and_sliver_free)
{
    size_t n;
    const mc_primitive_def* s = shapes(&n);
    for (size_t i = 0; i < n; ++i)
    {
        tess t = run(&s[i]);
        check_structure(&t, euler_of(&s[i]));
        double v, a;
        volume_area(&t, &v, &a);
        cr_assert(gt(dbl, v, 0.0), "shape %zu wound inward", i);
        double ma = min_angle(&t);
        cr_assert(ge(dbl, ma, promised_min_angle(&s[i])), "shape %zu: min angle %.2f deg", i, ma / DEG);
        check_vertices_on_surface(&s[i], &t);
        release(&t);
    }
}

Test(tessellate, flat_thin_and_eccentric_shapes_stay_sliver_free)
{
    // Shapes where naive tessellations make slivers: a coin (short side), a flat frustum with very unlike rims, a
    // frustum with a tiny top, a fat and a thin torus, flat and long spheroids, a triaxial ellipsoid whose roundest
    // cross-section has axis ratio 2 (the documented limit of the 20 degree promise for ellipsoids).
    const mc_primitive_def cases[] = {
        make_def(MC_PRIMITIVE_CYLINDER, 1.0, 0.0, 0.01, 0.5, 15 * DEG),
        make_def(MC_PRIMITIVE_CYLINDER, 1.0, 0.0, 0.01, 1e-3, 15 * DEG),
        make_def(MC_PRIMITIVE_FRUSTUM, 1.35, 3.5, 0.23, 0.1, 45 * DEG),
        make_def(MC_PRIMITIVE_FRUSTUM, 1.0, 1e-8, 1.0, 1e-3, 60 * DEG),
        make_def(MC_PRIMITIVE_TORUS, 1.0, 0.999, 0.0, 1e-3, 15 * DEG),
        make_def(MC_PRIMITIVE_TORUS, 1.0, 0.01, 0.0, 1e-3, 15 * DEG),
        make_def(MC_PRIMITIVE_ELLIPSOID, 1.0, 1.0, 0.1, 1e-3, 15 * DEG),
        make_def(MC_PRIMITIVE_ELLIPSOID, 10.0, 1.0, 1.0, 1e-2, 15 * DEG),
        make_def(MC_PRIMITIVE_ELLIPSOID, 2.0, 1.0, 4.0, 1e-2, 15 * DEG),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        tess t = run(&cases[i]);
        check_structure(&t, euler_of(&cases[i]));
        double ma = min_angle(&t);
        cr_assert(ge(dbl, ma, 20 * DEG), "case %zu: min angle %.2f deg", i, ma / DEG);
        double dev = max_facet_distance(&cases[i], &t);
        cr_assert(le(dbl, dev, cases[i].chord_tolerance), "case %zu: %g", i, dev);
        release(&t);
    }
}

Test(tessellate, box_is_twelve_exact_triangles)
{
    mc_primitive_def d = make_def(MC_PRIMITIVE_BOX, 2.0, 4.0, 6.0, 1e-6, 1 * DEG);
    tess t = run(&d);
    cr_assert(eq(u32, t.nt, 12));
    cr_assert(eq(u32, t.nv, 8));
    double v, a;
    volume_area(&t, &v, &a);
    cr_assert(eq(dbl, v, 48.0)); // small integers: exact in floating point
    cr_assert(eq(dbl, a, 88.0));
    release(&t);
}

Test(tessellate, box_takes_full_edge_lengths_centred_on_the_origin)
{
    mc_primitive_def d = make_def(MC_PRIMITIVE_BOX, 1.0, 2.0, 3.0, 1e-3, 15 * DEG);
    tess t = run(&d);
    for (uint32_t v = 0; v < t.nv; ++v)
    {
        mc_vec3 p = vtx(&t, v);
        cr_assert(fabs(p.x) == 0.5 && fabs(p.y) == 1.0 && fabs(p.z) == 1.5, "vertex %u: %g %g %g", v, p.x, p.y, p.z);
    }
    double vol, area;
    volume_area(&t, &vol, &area);
    cr_assert(eq(dbl, vol, 6.0));
    cr_assert(eq(dbl, area, 22.0));
    release(&t);
}

Test(tessellate, facets_respect_the_chord_tolerance)
{
    size_t n;
    const mc_primitive_def* s = shapes(&n);
    double tols[2] = {1e-2, 1e-4};
    for (size_t i = 0; i < n; ++i)
    {
        for (int k = 0; k < 2; ++k)
        {
            mc_primitive_def d = s[i];
            d.chord_tolerance = tols[k];
            d.max_angle = PI / 2; // let the tolerance decide the resolution
            tess t = run(&d);
            double dev = max_facet_distance(&d, &t);
            cr_assert(le(dbl, dev, d.chord_tolerance), "shape %zu tol %g: facet %g away from the surface", i,
                      d.chord_tolerance, dev);
            if (d.type != MC_PRIMITIVE_BOX)
            {
                // Not wastefully fine either: the worst sampled deviation uses a fair part of the budget.
                cr_assert(ge(dbl, dev, 0.1 * d.chord_tolerance), "shape %zu over-refined: %g", i, dev);
            }
            release(&t);
        }
    }
}

Test(tessellate, edges_respect_the_angle_limit)
{
    const mc_primitive_def cases[] = {
        make_def(MC_PRIMITIVE_ELLIPSOID, 1.0, 1.0, 1.0, 1.0, 15 * DEG),
        make_def(MC_PRIMITIVE_ELLIPSOID, 2.0, 1.0, 0.75, 1.0, 10 * DEG),
        make_def(MC_PRIMITIVE_TORUS, 1.0, 0.25, 0.0, 1.0, 15 * DEG),
        make_def(MC_PRIMITIVE_TORUS, 1.0, 0.8, 0.0, 1.0, 5 * DEG),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        tess t = run(&cases[i]);
        double worst = max_edge_normal_angle(&cases[i], &t);
        cr_assert(le(dbl, worst, cases[i].max_angle * (1 + 1e-12)), "case %zu: %g deg", i, worst / DEG);
        cr_assert(ge(dbl, worst, 0.5 * cases[i].max_angle), "case %zu over-refined: %g deg", i, worst / DEG);
        release(&t);
    }
    // Cylinder: edges between two side vertices (rho = R) turn the radial normal by their azimuth difference.
    mc_primitive_def cyl = make_def(MC_PRIMITIVE_CYLINDER, 1.0, 0.0, 2.0, 1.0, 12 * DEG);
    tess t = run(&cyl);
    double worst = 0.0;
    for (uint32_t f = 0; f < t.nt; ++f)
    {
        for (int k = 0; k < 3; ++k)
        {
            mc_vec3 p = corner(&t, f, k), q = corner(&t, f, (k + 1) % 3);
            if (fabs(hypot(p.x, p.y) - 1.0) < 1e-12 && fabs(hypot(q.x, q.y) - 1.0) < 1e-12)
            {
                worst = fmax(worst, fabs(atan2(p.x * q.y - p.y * q.x, p.x * q.x + p.y * q.y)));
            }
        }
    }
    cr_assert(le(dbl, worst, cyl.max_angle * (1 + 1e-12)));
    cr_assert(gt(dbl, worst, 0.5 * cyl.max_angle));
    release(&t);
}

Test(tessellate, volume_and_area_converge_within_the_tolerance_bound)
{
    size_t n;
    const mc_primitive_def* s = shapes(&n);
    for (size_t i = 0; i < n; ++i)
    {
        if (s[i].type == MC_PRIMITIVE_BOX)
        {
            continue;
        }
        double vt = NAN, at = NAN;
        analytic(&s[i], &vt, &at);
        double prev_ev = INFINITY, prev_ea = INFINITY;
        for (int k = 0; k < 3; ++k)
        {
            mc_primitive_def d = s[i];
            d.chord_tolerance = 1e-2 * pow(0.1, k);
            d.max_angle = PI / 2;
            tess t = run(&d);
            double v, a;
            volume_area(&t, &v, &a);
            double ev = fabs(v - vt), ea = fabs(a - at);
            // Every facet is within tol of the surface, so the two solids differ only inside the shell of
            // half-width tol around the true surface: |dV| <= tol * area (+ O(tol^2) from the curvature).
            cr_assert(le(dbl, ev, 1.01 * d.chord_tolerance * at), "shape %zu tol %g: volume error %g", i,
                      d.chord_tolerance, ev);
            if (d.type != MC_PRIMITIVE_TORUS)
            {
                cr_assert(le(dbl, v, vt), "shape %zu: inscribed polyhedron of a convex solid is smaller", i);
            }
            // Each facet replaces a surface patch whose normals turn by at most ~sqrt(2 tol kappa) from it, so the
            // relative area error is of order tol * kappa (sphere: tol / R; a polygonal disc: 4 tol / (3 R)).
            double kappa;
            mc_vec3 z = d.dims;
            switch (d.type)
            {
            case MC_PRIMITIVE_ELLIPSOID:
                kappa = fmax(z.x, fmax(z.y, z.z)) / pow(fmin(z.x, fmin(z.y, z.z)), 2);
                break;
            case MC_PRIMITIVE_CYLINDER:
                kappa = 1.0 / z.x;
                break;
            case MC_PRIMITIVE_FRUSTUM:
            {
                double L = hypot(z.x - z.y, z.z), r = (z.x > 0 && z.y > 0) ? fmin(z.x, z.y) : fmax(z.x, z.y);
                kappa = L / (r * z.z);
                break;
            }
            default:
                kappa = 1.0 / z.y;
                break;
            }
            cr_assert(le(dbl, ea, 2.0 * d.chord_tolerance * kappa * at), "shape %zu tol %g: area error %g", i,
                      d.chord_tolerance, ea);
            // Converging: each tenfold smaller tolerance at least halves the errors (expected: tenfold).
            cr_assert(lt(dbl, ev, 0.5 * prev_ev), "shape %zu: volume error %g after %g", i, ev, prev_ev);
            cr_assert(lt(dbl, ea, 0.5 * prev_ea), "shape %zu: area error %g after %g", i, ea, prev_ea);
            prev_ev = ev;
            prev_ea = ea;
            release(&t);
        }
    }
}

Test(tessellate, target_count_gives_about_that_many_triangles)
{
    mc_primitive_def sphere = make_def(MC_PRIMITIVE_ELLIPSOID, 1.0, 1.0, 1.0, 1e-3, 15 * DEG);
    uint32_t targets[4] = {1000, 10000, 100000, 1000000};
    for (int k = 0; k < 4; ++k)
    {
        tess t;
        mc_status s = mc_primitive_tessellate_count(&sphere, targets[k], &t.pos, &t.nv, &t.idx, &t.nt, NULL);
        cr_assert(eq(int, s, MC_OK));
        // Cube sphere with n cells per edge: 12 n^2 triangles, 6 n^2 + 2 vertices, n = round(sqrt(N / 12)).
        uint32_t nc = (uint32_t)lround(sqrt(targets[k] / 12.0));
        cr_assert(eq(u32, t.nt, 12 * nc * nc));
        cr_assert(eq(u32, t.nv, 6 * nc * nc + 2));
        if (k < 2)
        {
            check_structure(&t, 2);
        }
        release(&t);
    }
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create_primitive_count(&sphere, 10000, &m, NULL), MC_OK));
    cr_assert(eq(u32, mc_mesh_get_triangle_count(m), 12 * 29 * 29)); // round(sqrt(10000 / 12)) = 29
    mc_mesh_destroy(m);
    size_t n;
    const mc_primitive_def* shp = shapes(&n);
    for (size_t i = 0; i < n; ++i)
    {
        if (shp[i].type == MC_PRIMITIVE_BOX)
        {
            continue;
        }
        tess t;
        cr_assert(eq(int, mc_primitive_tessellate_count(&shp[i], 20000, &t.pos, &t.nv, &t.idx, &t.nt, NULL), MC_OK));
        // Ring counts are integers chosen by rules: 15 % is what those rules leave at this size.
        cr_assert(le(dbl, fabs(t.nt / 20000.0 - 1.0), 0.15), "shape %zu: %u triangles", i, t.nt);
        check_structure(&t, euler_of(&shp[i]));
        cr_assert(ge(dbl, min_angle(&t), fmin(promised_min_angle(&shp[i]), 15 * DEG)));
        release(&t);
    }
}

Test(tessellate, bad_parameters_are_refused_with_a_message)
{
    tess t = {NULL, NULL, 0, 0};
    mc_error err;
    struct
    {
        mc_primitive_def d;
        const char* word; // must appear in the message
    } cases[] = {
        {make_def(MC_PRIMITIVE_ELLIPSOID, NAN, 1, 1, 1e-3, 0.2), "size"},
        {make_def(MC_PRIMITIVE_ELLIPSOID, 1, -1, 1, 1e-3, 0.2), "size"},
        {make_def(MC_PRIMITIVE_BOX, 1, 1, INFINITY, 1e-3, 0.2), "size"},
        {make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 0.0, 0.2), "tolerance"},
        {make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, NAN, 0.2), "tolerance"},
        {make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1e-3, 0.0), "angle"},
        {make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1e-3, 2.0), "angle"},
        {make_def(MC_PRIMITIVE_CYLINDER, 1, 0, 0, 1e-3, 0.2), "length"},
        {make_def(MC_PRIMITIVE_FRUSTUM, 0, 0, 1, 1e-3, 0.2), "radii"},
        {make_def(MC_PRIMITIVE_FRUSTUM, 1, 1e-15, 1, 1e-3, 0.2), "cone"},
        {make_def(MC_PRIMITIVE_TORUS, 1, 1, 0, 1e-3, 0.2), "minor"},
        {make_def(MC_PRIMITIVE_TORUS, 1, 0, 0, 1e-3, 0.2), "minor"},
        {make_def((mc_primitive_type)7, 1, 1, 1, 1e-3, 0.2), "type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        memset(&err, 0, sizeof err);
        mc_status s = mc_primitive_tessellate(&cases[i].d, &t.pos, &t.nv, &t.idx, &t.nt, &err);
        cr_assert(eq(int, s, MC_ERR_INVALID_ARGUMENT), "case %zu", i);
        cr_assert(eq(int, err.status, MC_ERR_INVALID_ARGUMENT));
        cr_assert(strstr(err.message, cases[i].word) != NULL, "case %zu: '%s'", i, err.message);
        cr_assert(eq(ptr, t.pos, NULL)); // outputs untouched on failure
    }
    mc_primitive_def ok = mc_default_primitive_def();
    cr_assert(eq(int, mc_primitive_tessellate(NULL, &t.pos, &t.nv, &t.idx, &t.nt, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_primitive_tessellate(&ok, NULL, &t.nv, &t.idx, &t.nt, &err), MC_ERR_INVALID_ARGUMENT));
    cr_assert(
        eq(int, mc_primitive_tessellate_count(&ok, 0, &t.pos, &t.nv, &t.idx, &t.nt, &err), MC_ERR_INVALID_ARGUMENT));
}

Test(tessellate, absurd_triangle_counts_are_an_error_not_a_cap)
{
    // Each would need far more than 2^31 triangles; the check comes before any allocation.
    const mc_primitive_def cases[] = {
        make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1e-300, 0.2), make_def(MC_PRIMITIVE_CYLINDER, 1, 0, 1e6, 1e-12, 0.2),
        make_def(MC_PRIMITIVE_FRUSTUM, 1, 0.5, 1, 1e-200, 0.2), make_def(MC_PRIMITIVE_FRUSTUM, 1, 0, 1, 1e-200, 0.2),
        make_def(MC_PRIMITIVE_TORUS, 1, 0.5, 0, 1e-200, 0.2),   make_def(MC_PRIMITIVE_ELLIPSOID, 1, 1, 1, 1e-3, 1e-9),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
        tess t = {NULL, NULL, 0, 0};
        mc_error err;
        mc_status s = mc_primitive_tessellate(&cases[i], &t.pos, &t.nv, &t.idx, &t.nt, &err);
        cr_assert(eq(int, s, MC_ERR_INVALID_ARGUMENT), "case %zu: status %d", i, s);
        cr_assert(strstr(err.message, "2^31") != NULL, "case %zu: '%s'", i, err.message);
        cr_assert(eq(i64, mc_get_byte_count(), 0));
    }
}

Test(tessellate, mesh_from_primitive_passes_the_mesh_checks)
{
    size_t n;
    const mc_primitive_def* s = shapes(&n);
    for (size_t i = 0; i < n; ++i)
    {
        mc_primitive_def d = s[i];
        d.chord_tolerance = 1e-2;
        tess t = run(&d);
        mc_mesh* m = NULL;
        mc_error err;
        cr_assert(eq(int, mc_mesh_create_primitive(&d, &m, &err), MC_OK), "%s", err.message);
        const mc_mesh_report* r = mc_mesh_get_report(m);
        cr_assert(r->closed && r->manifold && r->oriented && !r->reoriented);
        cr_assert(eq(u32, r->welded_vertices, 0));
        cr_assert(eq(u32, r->degenerate_triangles, 0));
        cr_assert(eq(u32, r->components, 1));
        cr_assert(eq(u32, mc_mesh_get_triangle_count(m), t.nt));
        double v, a;
        volume_area(&t, &v, &a);
        cr_assert(ieee_ulp_eq(dbl, r->volume, v, 64)); // same triangles, different summation
        mc_mesh_destroy(m);
        release(&t);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Writers

static void temp_path(char* buf, size_t n, const char* ext)
{
    const char* dir = getenv("TMPDIR");
    snprintf(buf, n, "%s/mc_tess_%ld_%s", dir ? dir : "/tmp", (long)getpid(), ext);
}

Test(tessellate, stl_and_shl_round_trip)
{
    mc_primitive_def d = make_def(MC_PRIMITIVE_TORUS, 1.0, 0.3, 0.0, 1e-3, 15 * DEG);
    mc_mesh* m = NULL;
    mc_error err;
    cr_assert(eq(int, mc_mesh_create_primitive(&d, &m, &err), MC_OK), "%s", err.message);
    const mc_mesh_report* r = mc_mesh_get_report(m);
    char stl[512], shl[512];
    temp_path(stl, sizeof stl, "t.stl");
    temp_path(shl, sizeof shl, "t.shl");

    cr_assert(eq(int, mc_mesh_write_stl(m, stl, &err), MC_OK), "%s", err.message);
    mc_mesh* ms = NULL;
    mc_mesh_report rs;
    cr_assert(eq(int, mc_mesh_import_file(stl, NULL, &ms, &rs, &err), MC_OK), "%s", err.message);
    cr_assert(eq(u32, rs.triangles, r->triangles));
    cr_assert(eq(u32, rs.vertices, r->vertices)); // distinct doubles stay distinct as floats at this size
    // STL stores floats: each coordinate moves by <= 2^-24 relative, each signed tetrahedron term by about
    // 3 * 2^-24 relative, and the terms of a torus around the origin barely cancel: 1e-6 is a safe bound.
    cr_assert(le(dbl, fabs(rs.volume / r->volume - 1.0), 1e-6), "%.17g vs %.17g", rs.volume, r->volume);

    double scale = 0.001;
    cr_assert(eq(int, mc_mesh_write_shl(m, shl, scale, &err), MC_OK), "%s", err.message);
    mc_mesh* mh = NULL;
    cr_assert(eq(int, mc_mesh_import_file(shl, NULL, &mh, NULL, &err), MC_OK), "%s", err.message);
    cr_assert(eq(u32, mc_mesh_get_triangle_count(mh), mc_mesh_get_triangle_count(m)));
    cr_assert(eq(u32, mc_mesh_get_vertex_count(mh), mc_mesh_get_vertex_count(m)));
    // %.17g round-trips doubles exactly; the reader multiplies by the header's scale.
    const mc_vec3* a = mc_mesh_get_positions(m);
    const mc_vec3* b = mc_mesh_get_positions(mh);
    for (uint32_t v = 0; v < mc_mesh_get_vertex_count(m); ++v)
    {
        cr_assert(eq(dbl, b[v].x, a[v].x * scale));
        cr_assert(eq(dbl, b[v].y, a[v].y * scale));
        cr_assert(eq(dbl, b[v].z, a[v].z * scale));
    }
    cr_assert(eq(
        int,
        memcmp(mc_mesh_get_indices(mh), mc_mesh_get_indices(m), 3 * sizeof(uint32_t) * mc_mesh_get_triangle_count(m)),
        0));
    mc_mesh_destroy(mh);
    mc_mesh_destroy(ms);
    mc_mesh_destroy(m);
    remove(stl);
    remove(shl);
}

Test(tessellate, writers_report_io_errors)
{
    mc_primitive_def d = make_def(MC_PRIMITIVE_BOX, 1.0, 1.0, 1.0, 1e-3, 15 * DEG);
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create_primitive(&d, &m, NULL), MC_OK));
    const char* bad = "/nonexistent-directory-for-meshcontact/out.stl";
    mc_error err;
    memset(&err, 0, sizeof err);
    cr_assert(eq(int, mc_mesh_write_stl(m, bad, &err), MC_ERR_IO));
    cr_assert(strstr(err.message, bad) != NULL, "%s", err.message);
    memset(&err, 0, sizeof err);
    cr_assert(eq(int, mc_mesh_write_shl(m, bad, 1.0, &err), MC_ERR_IO));
    cr_assert(strstr(err.message, bad) != NULL, "%s", err.message);
    cr_assert(eq(int, mc_mesh_write_shl(m, bad, 0.0, &err), MC_ERR_INVALID_ARGUMENT));
    if (access("/dev/full", W_OK) == 0)
    {
        // Disk full shows up at write or close time, not at open.
        cr_assert(eq(int, mc_mesh_write_shl(m, "/dev/full", 1.0, &err), MC_ERR_IO));
        cr_assert(eq(int, mc_mesh_write_stl(m, "/dev/full", &err), MC_ERR_IO));
    }
    mc_mesh_destroy(m);
}

Test(tessellate, binary_stl_layout)
{
    mc_primitive_def d = make_def(MC_PRIMITIVE_BOX, 2.0, 4.0, 6.0, 1e-3, 15 * DEG);
    mc_mesh* m = NULL;
    cr_assert(eq(int, mc_mesh_create_primitive(&d, &m, NULL), MC_OK));
    char path[512];
    temp_path(path, sizeof path, "box.stl");
    cr_assert(eq(int, mc_mesh_write_stl(m, path, NULL), MC_OK));
    FILE* f = fopen(path, "rb");
    cr_assert(f != NULL);
    unsigned char buf[84 + 50 * 12 + 1];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    remove(path);
    cr_assert(eq(sz, got, 84 + 50 * 12)); // size = 84 + 50 n
    cr_assert(ne(int, memcmp(buf, "solid", 5), 0));
    uint32_t count = buf[80] | (uint32_t)buf[81] << 8 | (uint32_t)buf[82] << 16 | (uint32_t)buf[83] << 24;
    cr_assert(eq(u32, count, 12));
    // Every stored coordinate is half an edge length with its sign (exact as floats); normals are unit axis vectors.
    for (int t = 0; t < 12; ++t)
    {
        const unsigned char* r = buf + 84 + 50 * t;
        float v[12];
        for (int k = 0; k < 12; ++k)
        {
            uint32_t u =
                r[4 * k] | (uint32_t)r[4 * k + 1] << 8 | (uint32_t)r[4 * k + 2] << 16 | (uint32_t)r[4 * k + 3] << 24;
            memcpy(&v[k], &u, sizeof u);
        }
        cr_assert(eq(flt, fabsf(v[0]) + fabsf(v[1]) + fabsf(v[2]), 1.0f));
        for (int k = 3; k < 12; ++k)
        {
            float h = (k % 3 == 0) ? 1.0f : (k % 3 == 1) ? 2.0f : 3.0f;
            cr_assert(eq(flt, fabsf(v[k]), h));
        }
    }
    mc_mesh_destroy(m);
}
