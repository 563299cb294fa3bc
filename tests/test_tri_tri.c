// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the symbolic rule and the triangle-triangle crossings (src/base/tri_tri.h): an independent polynomial-in-eps
// oracle for the perturbed signs, edge-by-edge brute force for the pair test, degenerate sets, closed-mesh parity
// and alternation, and accuracy of the crossing points.
#include "meshcontact/query.h"
#include "src/base/predicates.h"
#include "src/base/tri_tri.h"
#include "src/base/tri_tri_closed.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

// Iteration counts: the optimized build runs 4x more random cases than a debug / sanitizer build (CI time budget).
#ifdef NDEBUG
#define REPS(n) (4 * (n))
#else
#define REPS(n) (n)
#endif

// ---- deterministic RNG (xorshift64*) ----
static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd_u64(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static int rnd_int(int lo, int hi)
{
    return (int)((int64_t)lo + (int64_t)(rnd_u64() % (uint64_t)((int64_t)hi - lo + 1)));
}
static double rnd_unit(void) // (-1, 1)
{
    uint64_t u = rnd_u64();
    double v = ldexp((double)(u >> 11), -53);
    return (u & 1) ? -v : v;
}
static mc_vec3 rnd_ipoint(int r)
{
    return mc_v3(rnd_int(-r, r), rnd_int(-r, r), rnd_int(-r, r));
}

static int zero_area(const mc_vec3 t[3])
{
    return mc_cross_first_sign(&t[0], &t[1], &t[0], &t[2]) == 0;
}

// ---- oracle for the symbolic rule: the determinant as a polynomial in eps ----
// Each coordinate is a polynomial c0 + c1 eps + c2 eps^2 + c3 eps^3; a point of J gets delta = (eps, eps^2, eps^3).
// The determinant of the three difference rows is expanded generically (polynomial products), independently of the
// hand-derived formulas R1/R2; its sign for eps -> 0+ is the sign of the lowest-order non-zero coefficient.
#define POLY_N 10
typedef struct poly
{
    i128 c[POLY_N];
} poly;

static poly poly_sub(poly a, poly b)
{
    for (int i = 0; i < POLY_N; i++)
    {
        a.c[i] -= b.c[i];
    }
    return a;
}
static poly poly_mul(poly a, poly b)
{
    poly r;
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < POLY_N; i++)
    {
        for (int j = 0; i + j < POLY_N; j++)
        {
            r.c[i + j] += a.c[i] * b.c[j];
        }
    }
    return r;
}
static int poly_sign(poly a)
{
    for (int i = 0; i < POLY_N; i++)
    {
        if (a.c[i] != 0)
        {
            return a.c[i] > 0 ? 1 : -1;
        }
    }
    return 0;
}
// Integer-valued point p of body `body` (0 = I, 1 = J) as polynomial coordinates.
static void poly_point(const mc_vec3* p, int body, poly out[3])
{
    const double* v = &p->x;
    for (int k = 0; k < 3; k++)
    {
        memset(&out[k], 0, sizeof(poly));
        out[k].c[0] = (i128)v[k];
        if (body == 1)
        {
            out[k].c[k + 1] = 1;
        }
    }
}
static int oracle_orient(const mc_vec3* p[4], const int body[4])
{
    poly P[4][3];
    for (int i = 0; i < 4; i++)
    {
        poly_point(p[i], body[i], P[i]);
    }
    poly M[3][3];
    for (int i = 0; i < 3; i++)
    {
        for (int k = 0; k < 3; k++)
        {
            M[i][k] = poly_sub(P[i + 1][k], P[0][k]);
        }
    }
    poly det;
    memset(&det, 0, sizeof(det));
    // Leibniz expansion over the 6 permutations.
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int s = 0; s < 6; s++)
    {
        poly t = poly_mul(poly_mul(M[0][perm[s][0]], M[1][perm[s][1]]), M[2][perm[s][2]]);
        for (int i = 0; i < POLY_N; i++)
        {
            det.c[i] += s < 3 ? t.c[i] : -t.c[i];
        }
    }
    return poly_sign(det);
}

Test(tri_tri, point_plane_rule_matches_polynomial_oracle)
{
    int degenerate_cases = 0;
    for (int n = 0; n < REPS(100000); n++)
    {
        int r = n % 3 == 0 ? 1 : (n % 3 == 1 ? 2 : 50);
        mc_vec3 t[3] = {rnd_ipoint(r), rnd_ipoint(r), rnd_ipoint(r)};
        if (zero_area(t))
        {
            continue;
        }
        mc_vec3 d = rnd_ipoint(r);
        int point_body = rnd_int(0, 1);
        const mc_vec3* p[4] = {&t[0], &t[1], &t[2], &d};
        int body[4] = {1 - point_body, 1 - point_body, 1 - point_body, point_body};
        uint8_t deg = 0;
        int got = mc_sym_orient_point_plane(&t[0], &t[1], &t[2], &d, point_body, &deg);
        int want = oracle_orient(p, body);
        cr_assert_eq(got, want, "case %d", n);
        cr_assert_neq(got, 0);
        cr_assert_eq(deg, mc_orient3d_sign(&t[0], &t[1], &t[2], &d) == 0);
        degenerate_cases += deg;
    }
    cr_assert(degenerate_cases > 5000); // about 15% of the cases
}

Test(tri_tri, edge_edge_rule_matches_polynomial_oracle)
{
    int degenerate_cases = 0, parallel_cases = 0;
    for (int n = 0; n < REPS(100000); n++)
    {
        int r = n % 3 == 0 ? 1 : (n % 3 == 1 ? 2 : 50);
        mc_vec3 e[4] = {rnd_ipoint(r), rnd_ipoint(r), rnd_ipoint(r), rnd_ipoint(r)};
        int edge_body = rnd_int(0, 1);
        const mc_vec3* p[4] = {&e[0], &e[1], &e[2], &e[3]};
        int body[4] = {edge_body, edge_body, 1 - edge_body, 1 - edge_body};
        uint8_t deg = 0;
        int got = mc_sym_orient_edge_edge(&e[0], &e[1], &e[2], &e[3], edge_body, &deg);
        int want = oracle_orient(p, body);
        cr_assert_eq(got, want, "case %d", n);
        cr_assert_eq(deg, mc_orient3d_sign(&e[0], &e[1], &e[2], &e[3]) == 0);
        degenerate_cases += deg;
        parallel_cases += got == 0;
        // Pair-swap symmetry: orient(p0, p1, a, b) == orient(a, b, p0, p1), also perturbed.
        cr_assert_eq(mc_sym_orient_edge_edge(&e[2], &e[3], &e[0], &e[1], 1 - edge_body, NULL), got);
    }
    cr_assert(degenerate_cases > 5000); // about 10% of the cases
    cr_assert(parallel_cases > 1000);   // about 4%: zero only for parallel edges (the oracle agrees)
}

// R4: an edge parallel to an edge of the other triangle never straddles its plane, so the vanishing edge-edge term
// is never needed; R3: no edge parallel to the plane straddles it. Checked on exact parallel configurations.
Test(tri_tri, parallel_edges_never_straddle)
{
    for (int n = 0; n < REPS(50000); n++)
    {
        mc_vec3 t[3] = {rnd_ipoint(3), rnd_ipoint(3), rnd_ipoint(3)};
        if (zero_area(t))
        {
            continue;
        }
        int k = rnd_int(0, 2);
        mc_vec3 dir = mc_scale(mc_sub(t[(k + 1) % 3], t[k]), rnd_int(1, 3) * (rnd_int(0, 1) ? 1 : -1));
        if (n % 2)
        {
            // R3 more generally: any direction parallel to the plane, (p1 - p0) . n == 0 exactly.
            dir = mc_add(dir, mc_scale(mc_sub(t[(k + 2) % 3], t[k]), rnd_int(-2, 2)));
        }
        mc_vec3 p0 = rnd_ipoint(3);
        if (rnd_int(0, 3) == 0)
        {
            p0 = t[rnd_int(0, 2)]; // on the plane, even on the edge line
        }
        mc_vec3 p1 = mc_add(p0, dir);
        int body = rnd_int(0, 1);
        int s0 = mc_sym_orient_point_plane(&t[0], &t[1], &t[2], &p0, body, NULL);
        int s1 = mc_sym_orient_point_plane(&t[0], &t[1], &t[2], &p1, body, NULL);
        cr_assert_eq(s0, s1);
        cr_assert_eq(mc_edge_triangle_cross(p0, p1, t[0], t[1], t[2], body, NULL, NULL), 0);
    }
}

// ---- brute force: the six edge-triangle tests ----
static int brute_crossings(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[6])
{
    int n = 0;
    for (int body = 0; body < 2; body++)
    {
        const mc_vec3* t = body == 0 ? ti : tj;
        const mc_vec3* o = body == 0 ? tj : ti;
        for (int e = 0; e < 3; e++)
        {
            mc_vec3 pt;
            uint8_t deg;
            int r = mc_edge_triangle_cross(t[e], t[(e + 1) % 3], o[0], o[1], o[2], body, &pt, &deg);
            if (r != 0)
            {
                out[n].point = pt;
                out[n].body = (uint8_t)body;
                out[n].edge = (uint8_t)e;
                out[n].entering = (int8_t)r;
                out[n].degenerate = deg;
                n++;
            }
        }
    }
    return n;
}

static int same_point(mc_vec3 a, mc_vec3 b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

// The crossings' fields one by one (mc_crossing has padding bytes, which memcmp must not compare).
static void assert_same_crossings(int n, const mc_crossing* a, const mc_crossing* b)
{
    for (int k = 0; k < n; k++)
    {
        cr_assert(same_point(a[k].point, b[k].point));
        cr_assert_eq(a[k].body, b[k].body);
        cr_assert_eq(a[k].edge, b[k].edge);
        cr_assert_eq(a[k].entering, b[k].entering);
        cr_assert_eq(a[k].degenerate, b[k].degenerate);
    }
}

// Step 1 of the pair test as a caller of mc_tri_tri_crossings_sides computes it (the pair stage, on vector lanes):
// the corners c of one triangle against the plane pl of the other, with the orient3d filter of predicates.h.
// @return 0 when a value is within its filter bound, else 1 (o and s filled).
static int filtered_sides(const mc_tri_plane* pl, const mc_vec3 c[3], double o[3], int s[3])
{
    for (int k = 0; k < 3; k++)
    {
        double cx = c[k].x - pl->v[0].x, cy = c[k].y - pl->v[0].y, cz = c[k].z - pl->v[0].z;
        o[k] = pl->n[0] * cx + pl->n[1] * cy + pl->n[2] * cz;
        double perm = pl->perm[0] * fabs(cx) + pl->perm[1] * fabs(cy) + pl->perm[2] * fabs(cz);
        double bound = perm >= MC_PRED_MIN_PERMANENT ? MC_PRED_O3D_BOUND * perm : INFINITY;
        if (!(fabs(o[k]) > bound))
        {
            return 0;
        }
        s[k] = o[k] > 0.0 ? 1 : -1;
    }
    return 1;
}

// Pairs on which check_pair compared mc_tri_tri_crossings_sides with the plain test.
static int g_sides_checked;

// Where the filter decides all six plane tests and both triples straddle, the test from given sides must give bitwise
// the crossings of the plain test.
static void check_sides(const mc_tri_plane* pi, const mc_tri_plane* pj, int nf, const mc_crossing* fast)
{
    double oi[3], oj[3];
    int si[3], sj[3];
    if (!filtered_sides(pj, pi->v, oi, si) || !filtered_sides(pi, pj->v, oj, sj))
    {
        return;
    }
    if ((si[0] == si[1] && si[1] == si[2]) || (sj[0] == sj[1] && sj[1] == sj[2]))
    {
        cr_assert_eq(nf, 0); // one triangle's corners on one side of the other's plane
        return;
    }
    mc_crossing sides[2];
    cr_assert_eq(mc_tri_tri_crossings_sides(pi, oi, si, pj, oj, sj, sides), nf);
    assert_same_crossings(nf, fast, sides);
    g_sides_checked++;
}

// tri_tri must agree with the brute force exactly (same crossings, bitwise same points); returns the count. The
// variant on prepared planes (the pair stage's) must give bitwise the same crossings as the plain test.
static int check_pair(const mc_vec3 ti[3], const mc_vec3 tj[3])
{
    mc_crossing fast[2], slow[6], planes[2];
    int nf = mc_tri_tri_crossings(ti, tj, fast);
    mc_tri_plane pi, pj;
    mc_tri_plane_init(&pi, ti[0], ti[1], ti[2]);
    mc_tri_plane_init(&pj, tj[0], tj[1], tj[2]);
    cr_assert_eq(mc_tri_tri_crossings_planes(&pi, &pj, planes), nf);
    assert_same_crossings(nf, fast, planes);
    check_sides(&pi, &pj, nf, fast);
    int ns = brute_crossings(ti, tj, slow);
    cr_assert(ns == 0 || ns == 2, "brute force found %d crossings", ns);
    cr_assert_eq(nf, ns,
                 "tri_tri %d vs brute force %d: ti (%a %a %a)(%a %a %a)(%a %a %a) tj (%a %a %a)(%a %a %a)(%a %a %a)",
                 nf, ns, ti[0].x, ti[0].y, ti[0].z, ti[1].x, ti[1].y, ti[1].z, ti[2].x, ti[2].y, ti[2].z, tj[0].x,
                 tj[0].y, tj[0].z, tj[1].x, tj[1].y, tj[1].z, tj[2].x, tj[2].y, tj[2].z);
    for (int a = 0; a < nf; a++)
    {
        int found = 0;
        for (int b = 0; b < ns; b++)
        {
            if (fast[a].body == slow[b].body && fast[a].edge == slow[b].edge)
            {
                cr_assert_eq(fast[a].entering, slow[b].entering);
                cr_assert(same_point(fast[a].point, slow[b].point));
                found = 1;
            }
        }
        cr_assert(found);
    }
    if (nf == 2)
    {
        cr_assert(fast[0].body != fast[1].body || fast[0].edge != fast[1].edge);
        cr_assert_eq(fast[0].degenerate, fast[1].degenerate);
    }
    return nf;
}

Test(tri_tri, random_float_pairs_match_brute_force)
{
    int hits = 0;
    g_sides_checked = 0;
    for (int n = 0; n < REPS(150000); n++)
    {
        mc_vec3 ti[3], tj[3];
        for (int k = 0; k < 3; k++)
        {
            ti[k] = mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
            tj[k] = mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
        }
        mc_crossing out[2];
        int c = check_pair(ti, tj);
        hits += c == 2;
        if (c == 2)
        {
            mc_tri_tri_crossings(ti, tj, out);
            cr_assert_eq(out[0].degenerate, 0); // random doubles: no exact ties
        }
    }
    cr_assert(hits > 10000, "only %d intersecting pairs", hits); // about 27% of the cases
    // Random doubles: the filter decides nearly every plane test, so the test from given sides saw most straddling
    // pairs (about 40 % of all).
    cr_assert(g_sides_checked > REPS(150000) / 4, "the test from given sides ran on only %d pairs", g_sides_checked);
}

// Small integer coordinates: vertices on faces, on edges, shared vertices, edges through edges, coplanar pairs
// appear constantly.
Test(tri_tri, random_degenerate_integer_pairs_match_brute_force)
{
    int hits = 0, degenerate_hits = 0;
    for (int n = 0; n < REPS(300000); n++)
    {
        int r = n % 2 ? 1 : 2;
        mc_vec3 ti[3] = {rnd_ipoint(r), rnd_ipoint(r), rnd_ipoint(r)};
        mc_vec3 tj[3] = {rnd_ipoint(r), rnd_ipoint(r), rnd_ipoint(r)};
        if (rnd_int(0, 3) == 0)
        {
            tj[rnd_int(0, 2)] = ti[rnd_int(0, 2)]; // shared vertex
        }
        if (rnd_int(0, 7) == 0)
        {
            int a = rnd_int(0, 2); // shared edge (either direction)
            tj[0] = ti[a];
            tj[rnd_int(1, 2)] = ti[(a + 1) % 3];
        }
        if (zero_area(ti) || zero_area(tj))
        {
            continue;
        }
        mc_crossing out[2];
        int c = check_pair(ti, tj);
        hits += c == 2;
        if (c == 2)
        {
            mc_tri_tri_crossings(ti, tj, out);
            degenerate_hits += out[0].degenerate;
        }
    }
    cr_assert(hits > 20000, "only %d intersecting pairs", hits); // about 25% of the cases
    cr_assert(degenerate_hits > 20000, "only %d degenerate intersecting pairs", degenerate_hits);
}

// Exactly degenerate triangles (collinear or coincident corners) against random ones: still 0 or 2 crossings, equal
// to the brute force, and the crossings are edges of the degenerate triangle.
Test(tri_tri, degenerate_triangles_give_zero_or_two_crossings)
{
    int hits = 0;
    for (int n = 0; n < REPS(100000); n++)
    {
        mc_vec3 good[3] = {rnd_ipoint(3), rnd_ipoint(3), rnd_ipoint(3)};
        if (zero_area(good))
        {
            continue;
        }
        mc_vec3 a = rnd_ipoint(3), d = rnd_ipoint(2);
        mc_vec3 bad[3] = {a, mc_add(a, mc_scale(d, rnd_int(-2, 2))), mc_add(a, mc_scale(d, rnd_int(-2, 2)))};
        int c = rnd_int(0, 1) ? check_pair(good, bad) : check_pair(bad, good);
        hits += c == 2;
    }
    cr_assert(hits > 1000, "only %d intersecting pairs", hits);
}

static void tri(mc_vec3 t[3], mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

// Reference decisions built only from the validated public predicates (mc_orient3d_sign, mc_cross_first_sign) and
// the rule as stated in tri_tri.h, without the filters and value plumbing of tri_tri.c.
static int ref_point_plane(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d, int point_body)
{
    int s = mc_orient3d_sign(a, b, c, d);
    if (s != 0)
    {
        return s;
    }
    int ns = mc_cross_first_sign(a, b, a, c);
    return point_body == 1 ? ns : -ns;
}
static int ref_edge_edge(const mc_vec3* p0, const mc_vec3* p1, const mc_vec3* a, const mc_vec3* b, int edge_body)
{
    int s = mc_orient3d_sign(p0, p1, a, b);
    if (s != 0)
    {
        return s;
    }
    // I edge (A, B) and J edge (D, E): + delta . ((E - D) x (B - A)).
    return edge_body == 0 ? mc_cross_first_sign(a, b, p0, p1) : mc_cross_first_sign(p0, p1, a, b);
}
static int ref_edge_triangle(const mc_vec3* p0, const mc_vec3* p1, const mc_vec3 t[3], int edge_body)
{
    int s0 = ref_point_plane(&t[0], &t[1], &t[2], p0, edge_body);
    int s1 = ref_point_plane(&t[0], &t[1], &t[2], p1, edge_body);
    if (s0 == s1)
    {
        return 0;
    }
    int e0 = ref_edge_edge(p0, p1, &t[0], &t[1], edge_body);
    int e1 = ref_edge_edge(p0, p1, &t[1], &t[2], edge_body);
    int e2 = ref_edge_edge(p0, p1, &t[2], &t[0], edge_body);
    return e0 == e1 && e1 == e2 ? s0 : 0;
}

static mc_vec3 nudge(mc_vec3 p)
{
    double* c = &p.x + rnd_int(0, 2);
    int moves = rnd_int(-2, 2);
    for (int k = 0; k < abs(moves); k++)
    {
        *c = nextafter(*c, moves > 0 ? INFINITY : -INFINITY);
    }
    return p;
}

// Float triangles built to be nearly degenerate: J's vertices rounded onto I's plane, edges or vertices (and the
// reverse), then moved by a few ulps; J edges passing through rounded points of I's edges. Plain floating-point
// signs are wrong here, so this exercises the filters and the exact fallbacks of both code paths.
Test(tri_tri, near_degenerate_float_pairs_match_reference)
{
    int hits = 0;
    for (int n = 0; n < REPS(50000); n++)
    {
        mc_vec3 ti[3], tj[3];
        for (int k = 0; k < 3; k++)
        {
            ti[k] = mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
        }
        mc_vec3 u = mc_sub(ti[1], ti[0]), v = mc_sub(ti[2], ti[0]);
        for (int k = 0; k < 3; k++)
        {
            int kind = rnd_int(0, 4);
            double s = rnd_unit() * 1.5, t = rnd_unit() * 1.5;
            if (kind == 0)
            {
                tj[k] = mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
            }
            else if (kind == 1)
            {
                tj[k] = mc_add(ti[0], mc_add(mc_scale(u, s), mc_scale(v, t))); // on I's plane (rounded)
            }
            else if (kind == 2)
            {
                tj[k] = mc_add(ti[0], mc_scale(u, s)); // on I's edge line (rounded)
            }
            else if (kind == 3)
            {
                tj[k] = ti[rnd_int(0, 2)];
            }
            else
            {
                tj[k] = mc_add(ti[rnd_int(0, 2)], mc_scale(mc_v3(rnd_unit(), rnd_unit(), rnd_unit()), 0x1p-30));
            }
            if (rnd_int(0, 1))
            {
                tj[k] = nudge(tj[k]);
            }
        }
        if (rnd_int(0, 3) == 0)
        {
            // a J edge through a rounded point m of I's edge: tj[0] = m + d, tj[1] = m - d
            mc_vec3 m = mc_add(ti[0], mc_scale(u, rnd_unit()));
            mc_vec3 d = mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
            tj[0] = nudge(mc_add(m, d));
            tj[1] = nudge(mc_sub(m, d));
        }
        if (rnd_int(0, 1))
        {
            for (int k = 0; k < 3; k++) // swap roles
            {
                mc_vec3 tmp = ti[k];
                ti[k] = tj[k];
                tj[k] = tmp;
            }
        }
        if (zero_area(ti) || zero_area(tj))
        {
            continue;
        }
        for (int body = 0; body < 2; body++)
        {
            const mc_vec3* t = body == 0 ? ti : tj;
            const mc_vec3* o = body == 0 ? tj : ti;
            for (int e = 0; e < 3; e++)
            {
                int got = mc_edge_triangle_cross(t[e], t[(e + 1) % 3], o[0], o[1], o[2], body, NULL, NULL);
                cr_assert_eq(got, ref_edge_triangle(&t[e], &t[(e + 1) % 3], o, body));
            }
        }
        hits += check_pair(ti, tj) == 2;
    }
    cr_assert(hits > 5000, "only %d intersecting pairs", hits); // about 40% of the cases
}

// Hand-derived expectations under delta = (eps, eps^2, eps^3) (J moves by +x first, then +y, then +z).
Test(tri_tri, degenerate_catalogue)
{
    mc_vec3 ti[3], tj[3];
    mc_crossing out[2];
    tri(ti, mc_v3(0, 0, 0), mc_v3(4, 0, 0), mc_v3(0, 4, 0)); // I in z = 0, normal +z

    // Coplanar overlapping: never crosses.
    tri(tj, mc_v3(1, 1, 0), mc_v3(5, 1, 0), mc_v3(1, 5, 0));
    cr_assert_eq(check_pair(ti, tj), 0);
    // Identical triangle, both orientations: no crossing.
    cr_assert_eq(check_pair(ti, ti), 0);
    tri(tj, ti[0], ti[2], ti[1]);
    cr_assert_eq(check_pair(ti, tj), 0);

    // Vertex of J on I's face, rest of J below: J moves up by eps^3, so the vertex is above and J's two edges
    // from it cross I's interior.
    tri(tj, mc_v3(1, 1, 0), mc_v3(2, 1, -3), mc_v3(1, 2, -3));
    cr_assert_eq(check_pair(ti, tj), 2);
    cr_assert_eq(mc_tri_tri_crossings(ti, tj, out), 2);
    cr_assert_eq(out[0].body, 1);
    cr_assert_eq(out[1].body, 1);
    cr_assert_eq(out[0].degenerate, 1);
    cr_assert(same_point(out[0].point, mc_v3(1, 1, 0)) && same_point(out[1].point, mc_v3(1, 1, 0)));
    // The same with the rest of J above: everything above, no crossing.
    tri(tj, mc_v3(1, 1, 0), mc_v3(1, 2, 3), mc_v3(2, 1, 3));
    cr_assert_eq(check_pair(ti, tj), 0);

    // Vertex of J on I's edge y = 0 (x axis), rest below: the vertex moves to (2 + eps, eps^2, eps^3), inside I.
    tri(tj, mc_v3(2, 0, 0), mc_v3(2, 1, -3), mc_v3(3, -1, -3));
    cr_assert_eq(check_pair(ti, tj), 2);
    // On I's edge x = 0: the vertex moves to (eps, 1 + eps^2, eps^3): inside I again.
    tri(tj, mc_v3(0, 1, 0), mc_v3(1, 1, -3), mc_v3(-1, 2, -3));
    cr_assert_eq(check_pair(ti, tj), 2);
    // Mirror I so that the edge x = 0 bounds it from the other side: now the moved vertex is outside.
    mc_vec3 tm[3];
    tri(tm, mc_v3(0, 0, 0), mc_v3(0, 4, 0), mc_v3(-4, 0, 0)); // normal +z, x <= 0
    cr_assert_eq(check_pair(tm, tj), 0);

    // Shared vertex at a corner of I, J hanging below through the corner: the corner moves to (eps, eps^2, eps^3),
    // inside I's angle (x > 0, y > 0).
    tri(tj, mc_v3(0, 0, 0), mc_v3(1, 1, -3), mc_v3(-1, 2, -3));
    cr_assert_eq(check_pair(ti, tj), 2);

    // Edge of J through I's edge (both meet at (2, 0, 0)): J's edge from (2, -1, 1) to (2, 1, -1) crosses z = 0 at
    // y = 0; moved by delta the crossing is at y = eps^2 - eps^3 > 0: inside I. The other end of the segment:
    // J's other edges.
    tri(tj, mc_v3(2, -1, 1), mc_v3(2, 1, -1), mc_v3(6, 0, 1));
    int c = check_pair(ti, tj);
    cr_assert_eq(c, 2);

    // Shared edge, J folded below I: J = (0,0,0), (0,4,0) reversed orientation... the rule decides consistently.
    tri(tj, mc_v3(4, 0, 0), mc_v3(0, 0, 0), mc_v3(2, -1, -3));
    check_pair(ti, tj);
    tri(tj, mc_v3(4, 0, 0), mc_v3(0, 0, 0), mc_v3(2, 1, -3)); // J folded under I: shares the x axis, leans in
    check_pair(ti, tj);

    // The vertex on the plane is the lexicographically larger end of J's edges and 0.3 + (0.9 - 0.3) != 0.9 in
    // floating point: the crossing point must still be exactly that vertex (t == 1 gives the end itself).
    tri(tj, mc_v3(0.9, 0.45, 0), mc_v3(0.3, 0.1, -3), mc_v3(0.3, 1.3, -3));
    cr_assert_eq(check_pair(ti, tj), 2);
    cr_assert_eq(mc_tri_tri_crossings(ti, tj, out), 2);
    cr_assert(same_point(out[0].point, tj[0]) && same_point(out[1].point, tj[0]));

    // Random doubles: no degeneracy flag.
    tri(tj, mc_v3(1.1, 0.7, -1.3), mc_v3(1.3, 0.9, 2.1), mc_v3(2.9, 0.2, 0.4));
    cr_assert_eq(mc_tri_tri_crossings(ti, tj, out), 2);
    cr_assert_eq(out[0].degenerate, 0);
}

// ---- closed meshes ----
typedef struct tmesh
{
    int nv, nt;
    mc_vec3 v[1024];
    int t[2048][3];
} tmesh;

static void add_tri(tmesh* m, int a, int b, int c)
{
    m->t[m->nt][0] = a;
    m->t[m->nt][1] = b;
    m->t[m->nt][2] = c;
    m->nt++;
}

// Octahedron with vertices at +-s on the axes, outward counter-clockwise faces.
static void make_octahedron(tmesh* m, double s)
{
    m->nv = 6;
    m->nt = 0;
    m->v[0] = mc_v3(s, 0, 0);
    m->v[1] = mc_v3(-s, 0, 0);
    m->v[2] = mc_v3(0, s, 0);
    m->v[3] = mc_v3(0, -s, 0);
    m->v[4] = mc_v3(0, 0, s);
    m->v[5] = mc_v3(0, 0, -s);
    static const int f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    for (int i = 0; i < 8; i++)
    {
        add_tri(m, f[i][0], f[i][1], f[i][2]);
    }
}

// Axis-aligned box [lo, hi]^3 with 12 outward triangles.
static void make_cube(tmesh* m, mc_vec3 lo, mc_vec3 hi)
{
    m->nv = 8;
    m->nt = 0;
    for (int i = 0; i < 8; i++)
    {
        m->v[i] = mc_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
    }
    static const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int i = 0; i < 6; i++)
    {
        add_tri(m, q[i][0], q[i][1], q[i][2]);
        add_tri(m, q[i][0], q[i][2], q[i][3]);
    }
}

// Cube [0, 2]^3 whose bottom face is a fan around M = (1, 0, 0), the midpoint of its edge from (0,0,0) to (2,0,0),
// closed by the collinear sliver ((2,0,0), (0,0,0), M): a closed oriented mesh with an exactly degenerate triangle,
// as rounding into I's frame can produce.
static void make_sliver_cube(tmesh* m)
{
    make_cube(m, mc_v3(0, 0, 0), mc_v3(2, 2, 2));
    m->v[8] = mc_v3(1, 0, 0);
    m->nv = 9;
    static const int bottom[4][3] = {{8, 0, 2}, {8, 2, 3}, {8, 3, 1}, {1, 0, 8}};
    for (int i = 0; i < 2; i++) // the bottom quad's two triangles come first
    {
        for (int k = 0; k < 3; k++)
        {
            m->t[i][k] = bottom[i][k];
        }
    }
    add_tri(m, bottom[2][0], bottom[2][1], bottom[2][2]);
    add_tri(m, bottom[3][0], bottom[3][1], bottom[3][2]);
}

static int find_or_add(tmesh* m, mc_vec3 p)
{
    for (int i = 0; i < m->nv; i++)
    {
        if (same_point(m->v[i], p))
        {
            return i;
        }
    }
    m->v[m->nv] = p;
    return m->nv++;
}

// Octahedron of radius 4 subdivided twice (integer vertices), then each vertex scaled by a random integer in
// [1, 3]: a star-shaped (hence embedded), generally non-convex closed mesh with integer coordinates.
static void make_star(tmesh* m)
{
    tmesh base;
    make_octahedron(&base, 4.0);
    for (int level = 0; level < 2; level++)
    {
        tmesh next;
        next.nv = 0;
        next.nt = 0;
        for (int i = 0; i < base.nt; i++)
        {
            mc_vec3 a = base.v[base.t[i][0]], b = base.v[base.t[i][1]], c = base.v[base.t[i][2]];
            mc_vec3 ab = mc_scale(mc_add(a, b), 0.5), bc = mc_scale(mc_add(b, c), 0.5),
                    ca = mc_scale(mc_add(c, a), 0.5);
            int ia = find_or_add(&next, a), ib = find_or_add(&next, b), ic = find_or_add(&next, c);
            int iab = find_or_add(&next, ab), ibc = find_or_add(&next, bc), ica = find_or_add(&next, ca);
            add_tri(&next, ia, iab, ica);
            add_tri(&next, iab, ib, ibc);
            add_tri(&next, ica, ibc, ic);
            add_tri(&next, iab, ibc, ica);
        }
        base = next;
    }
    *m = base;
    for (int i = 0; i < m->nv; i++)
    {
        m->v[i] = mc_scale(m->v[i], (double)rnd_int(1, 3));
    }
}

static void tri_of(const tmesh* m, int f, mc_vec3 t[3])
{
    for (int k = 0; k < 3; k++)
    {
        t[k] = m->v[m->t[f][k]];
    }
}

typedef struct hit
{
    double param;
    int entering;
} hit;

static int cmp_hit(const void* a, const void* b)
{
    double x = ((const hit*)a)->param, y = ((const hit*)b)->param;
    return (x > y) - (x < y);
}

// Crossings of segment p0 -> p1 (body I) with all faces of J, sorted along the segment. Returns the count.
static int segment_hits(const tmesh* m, mc_vec3 p0, mc_vec3 p1, hit* hits)
{
    int n = 0;
    mc_vec3 d = mc_sub(p1, p0);
    for (int f = 0; f < m->nt; f++)
    {
        mc_vec3 t[3];
        tri_of(m, f, t);
        mc_vec3 x;
        int r = mc_edge_triangle_cross(p0, p1, t[0], t[1], t[2], 0, &x, NULL);
        if (r != 0)
        {
            hits[n].param = mc_dot(mc_sub(x, p0), d);
            hits[n].entering = r;
            n++;
        }
    }
    qsort(hits, (size_t)n, sizeof(hit), cmp_hit);
    return n;
}

// Along the segment the inside state (0/1) starts at inside0, changes by the entering signs, stays in {0, 1} between
// distinct crossing points and ends at inside1. Crossings at the same computed point (the segment through a vertex
// or an edge of J in the limit) form a group whose internal order is not checked.
static void check_alternation(const hit* hits, int n, int inside0, int inside1)
{
    int state = inside0;
    for (int i = 0; i < n;)
    {
        int j = i;
        while (j < n && hits[j].param == hits[i].param)
        {
            state += hits[j].entering;
            j++;
        }
        cr_assert(state == 0 || state == 1, "inside state %d after a crossing group", state);
        i = j;
    }
    cr_assert_eq(state, inside1);
}

static int convex_inside(const tmesh* m, mc_vec3 p)
{
    for (int f = 0; f < m->nt; f++)
    {
        mc_vec3 t[3];
        tri_of(m, f, t);
        if (mc_sym_orient_point_plane(&t[0], &t[1], &t[2], &p, 0, NULL) > 0)
        {
            return 0;
        }
    }
    return 1;
}

// A random segment of I that often runs exactly through vertices, edges or faces of J, or along them.
static void special_segment(const tmesh* m, mc_vec3* p0, mc_vec3* p1, int r)
{
    int kind = rnd_int(0, 5);
    mc_vec3 through;
    if (kind == 0)
    {
        *p0 = rnd_ipoint(r);
        *p1 = rnd_ipoint(r);
        return;
    }
    int f = rnd_int(0, m->nt - 1);
    mc_vec3 t[3];
    tri_of(m, f, t);
    if (kind == 1)
    {
        through = t[0]; // a vertex
    }
    else if (kind == 2)
    {
        through = mc_scale(mc_add(t[0], t[1]), 0.5); // an edge midpoint (exact)
    }
    else if (kind == 3)
    {
        through = mc_scale(mc_add(mc_add(t[0], t[1]), mc_scale(t[2], 2.0)), 0.25); // inside a face (exact)
    }
    else if (kind == 4)
    {
        *p0 = mc_add(t[0], mc_scale(mc_sub(t[1], t[0]), -1.0)); // along an edge of J
        *p1 = mc_add(t[0], mc_scale(mc_sub(t[1], t[0]), 2.0));
        return;
    }
    else
    {
        *p0 = t[rnd_int(0, 2)]; // from a vertex of J
        *p1 = rnd_ipoint(r);
        return;
    }
    mc_vec3 d = rnd_ipoint(3);
    if (d.x == 0 && d.y == 0 && d.z == 0)
    {
        d.x = 1;
    }
    *p0 = mc_add(through, mc_scale(d, (double)rnd_int(1, 4)));
    *p1 = mc_sub(through, mc_scale(d, (double)rnd_int(0, 4)));
    if (rnd_int(0, 1))
    {
        mc_vec3 tp = *p0;
        *p0 = *p1;
        *p1 = tp;
    }
}

Test(tri_tri, segments_against_convex_meshes_parity_and_alternation)
{
    static tmesh m;
    static hit hits[64];
    for (int shape = 0; shape < 3; shape++)
    {
        if (shape == 0)
        {
            make_octahedron(&m, 2.0);
        }
        else if (shape == 1)
        {
            make_cube(&m, mc_v3(-1, -1, -1), mc_v3(1, 2, 1));
        }
        else
        {
            make_sliver_cube(&m); // its degenerate face has sign 0 for every point and never counts
        }
        for (int n = 0; n < REPS(40000); n++)
        {
            mc_vec3 p0, p1;
            special_segment(&m, &p0, &p1, 3);
            if (same_point(p0, p1))
            {
                continue;
            }
            int in0 = convex_inside(&m, p0), in1 = convex_inside(&m, p1);
            int c = segment_hits(&m, p0, p1, hits);
            cr_assert(c <= 2, "a segment crosses a convex surface %d times", c);
            cr_assert_eq(c % 2, in0 ^ in1);
            check_alternation(hits, c, in0, in1);
        }
    }
}

// Non-convex closed meshes: inside comes from the parity of a ray to a far point (itself a segment of I); the
// closed loop p0 -> p1 -> far -> p0 must cross the closed surface an even number of times.
Test(tri_tri, segments_against_star_meshes_parity_and_alternation)
{
    static tmesh m;
    static hit hits[512];
    const mc_vec3 far = mc_v3(101, 37, 53);
    for (int mesh = 0; mesh < 4; mesh++)
    {
        make_star(&m);
        for (int n = 0; n < REPS(2000); n++)
        {
            mc_vec3 p0, p1;
            special_segment(&m, &p0, &p1, 13);
            if (same_point(p0, p1) || same_point(p0, far) || same_point(p1, far))
            {
                continue;
            }
            int c0 = segment_hits(&m, p0, far, hits);
            int s0 = 0;
            for (int i = 0; i < c0; i++)
            {
                s0 += hits[i].entering;
            }
            int c1 = segment_hits(&m, p1, far, hits);
            int s1 = 0;
            for (int i = 0; i < c1; i++)
            {
                s1 += hits[i].entering;
            }
            // Walking to the far point (outside) ends outside: sum of entering = 0 - inside(p).
            cr_assert(s0 == 0 || s0 == -1);
            cr_assert(s1 == 0 || s1 == -1);
            int in0 = -s0, in1 = -s1;
            cr_assert_eq(c0 % 2, in0);
            cr_assert_eq(c1 % 2, in1);
            int c = segment_hits(&m, p0, p1, hits);
            cr_assert_eq(c % 2, in0 ^ in1);
            check_alternation(hits, c, in0, in1);
        }
    }
}

// Every crossing of a closed mesh pair (edge e of one mesh through face f of the other) shows up in exactly the two
// triangle pairs that contain e, with opposite directions and bitwise the same point: neighbouring tests agree.
static void check_mesh_pair_consistency(const tmesh* mi, const tmesh* mj, int* total)
{
    typedef struct rec
    {
        int body, v0, v1, face;
        int entering;
        mc_vec3 point;
    } rec;
    static rec recs[200000];
    int n = 0;
    for (int a = 0; a < mi->nt; a++)
    {
        mc_vec3 ti[3];
        tri_of(mi, a, ti);
        for (int b = 0; b < mj->nt; b++)
        {
            mc_vec3 tj[3];
            tri_of(mj, b, tj);
            mc_crossing out[2];
            int c = check_pair(ti, tj);
            mc_tri_tri_crossings(ti, tj, out);
            for (int k = 0; k < c; k++)
            {
                const tmesh* m = out[k].body == 0 ? mi : mj;
                int f = out[k].body == 0 ? a : b;
                int u = m->t[f][out[k].edge], w = m->t[f][(out[k].edge + 1) % 3];
                cr_assert(n < 200000);
                recs[n].body = out[k].body;
                recs[n].v0 = u < w ? u : w;
                recs[n].v1 = u < w ? w : u;
                recs[n].face = out[k].body == 0 ? b : a;
                recs[n].entering = u < w ? out[k].entering : -out[k].entering;
                recs[n].point = out[k].point;
                n++;
            }
        }
    }
    for (int i = 0; i < n; i++)
    {
        int partners = 0;
        for (int j = 0; j < n; j++)
        {
            if (j != i && recs[j].body == recs[i].body && recs[j].v0 == recs[i].v0 && recs[j].v1 == recs[i].v1 &&
                recs[j].face == recs[i].face)
            {
                partners++;
                cr_assert_eq(recs[j].entering, recs[i].entering); // same direction once both walk v0 -> v1
                cr_assert(same_point(recs[j].point, recs[i].point));
            }
        }
        cr_assert_eq(partners, 1, "a crossing seen in %d other pairs", partners);
    }
    *total += n;
}

static void translate_mesh(tmesh* m, mc_vec3 d)
{
    for (int i = 0; i < m->nv; i++)
    {
        m->v[i] = mc_add(m->v[i], d);
    }
}

Test(tri_tri, closed_mesh_pairs_are_consistent_including_identical_meshes)
{
    static tmesh a, b;
    int total = 0;
    make_star(&a);
    check_mesh_pair_consistency(&a, &a, &total); // identical meshes at identical poses
    cr_assert(total > 0);                        // J translated by delta: crossings along the seam
    for (int n = 0; n < 6; n++)
    {
        b = a;
        translate_mesh(&b, rnd_ipoint(4)); // integer offsets: many exact coincidences
        check_mesh_pair_consistency(&a, &b, &total);
        make_star(&b);
        check_mesh_pair_consistency(&a, &b, &total);
    }
    // Rounded (non-exact) coordinates: a random rotation and offset of a star mesh, and of the same mesh again.
    for (int n = 0; n < 4; n++)
    {
        mc_quat q = mc_quat_normalize((mc_quat){rnd_unit(), rnd_unit(), rnd_unit(), rnd_unit()});
        mc_vec3 off = mc_v3(rnd_unit() * 3.0, rnd_unit() * 3.0, rnd_unit() * 3.0);
        b = a;
        for (int i = 0; i < b.nv; i++)
        {
            b.v[i] = mc_add(mc_quat_rotate(q, b.v[i]), off);
        }
        check_mesh_pair_consistency(&a, &b, &total);
        check_mesh_pair_consistency(&b, &b, &total);
    }
    make_cube(&a, mc_v3(0, 0, 0), mc_v3(2, 2, 2));
    make_cube(&b, mc_v3(1, 1, 1), mc_v3(3, 3, 3));
    check_mesh_pair_consistency(&a, &b, &total);
    // An exactly degenerate (collinear) triangle in either mesh.
    make_sliver_cube(&a);
    int before = total;
    for (int n = 0; n < 6; n++)
    {
        make_star(&b); // radius 4 to 12: placed so that its surface passes through the cube [0, 2]^3
        translate_mesh(&b, mc_v3(rnd_int(4, 8), rnd_int(-2, 2), rnd_int(-2, 2)));
        check_mesh_pair_consistency(&a, &b, &total);
        check_mesh_pair_consistency(&b, &a, &total);
    }
    cr_assert(total > before);
    b = a;
    translate_mesh(&b, mc_v3(1, 0, 1)); // the slivers' lines cross the other cube's faces
    check_mesh_pair_consistency(&a, &b, &total);
    check_mesh_pair_consistency(&b, &a, &total);
    make_octahedron(&b, 2.0);
    check_mesh_pair_consistency(&a, &b, &total);
}

// Exact face-to-face touching of two cubes: no crossing when delta moves J away from I, crossings (of zero volume in
// the limit) when it moves J into I. Documents the asymmetric consequence of a translation rule.
Test(tri_tri, touching_cubes_depend_on_delta_direction)
{
    static tmesh a, b;
    make_cube(&a, mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    struct
    {
        mc_vec3 lo;
        int expect_crossings;
    } cases[] = {{{1, 0, 0}, 0}, {{-1, 0, 0}, 1}, {{0, 1, 0}, 0}, {{0, -1, 0}, 1}, {{0, 0, 1}, 0}, {{0, 0, -1}, 1}};
    for (int c = 0; c < 6; c++)
    {
        make_cube(&b, cases[c].lo, mc_add(cases[c].lo, mc_v3(1, 1, 1)));
        int total = 0;
        check_mesh_pair_consistency(&a, &b, &total);
        cr_assert_eq(total > 0, cases[c].expect_crossings, "case %d: %d crossings", c, total);
    }
}

// (5) The crossing point lies on both triangles' planes up to the rounding bound.
// Bound, for an edge p0 -> p1 crossing the plane of (a, b, c), n = (b - a) x (c - a), L = max |p_i - a|:
// - each plane value o_i has error <= 8 eps P_i (filter bound) with P_i <= 2 sqrt(3) |b - a| |c - a| L; the
//   computed t makes o0 + t (o1 - o0) vanish, so the exact n . (x - a) at the computed t is off by at most
//   max(err_i) <= 28 eps |b - a| |c - a| L, i.e. a distance of 28 eps |b - a| |c - a| L / |n|;
// - rounding t and the three coordinates of x moves x by at most eps |p1 - p0| + sqrt(3) eps |x| (plus eps^2).
// The distance is evaluated in long double (64-bit significand): its own error is negligible at this scale.
// 32 and 4 are the rounded-up constants. The point is on its own edge's line up to the second term only.
static long double plane_distance(const mc_vec3 t[3], mc_vec3 x)
{
    long double ux = (long double)t[1].x - t[0].x, uy = (long double)t[1].y - t[0].y, uz = (long double)t[1].z - t[0].z;
    long double vx = (long double)t[2].x - t[0].x, vy = (long double)t[2].y - t[0].y, vz = (long double)t[2].z - t[0].z;
    long double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    long double d =
        nx * ((long double)x.x - t[0].x) + ny * ((long double)x.y - t[0].y) + nz * ((long double)x.z - t[0].z);
    return fabsl(d) / sqrtl(nx * nx + ny * ny + nz * nz);
}

Test(tri_tri, crossing_points_lie_on_both_planes)
{
    const double eps = DBL_EPSILON / 2;
    int checked = 0;
    for (int n = 0; n < REPS(100000); n++)
    {
        mc_vec3 ti[3], tj[3];
        double scale = ldexp(1.0, rnd_int(-20, 20));
        mc_vec3 off = mc_v3(rnd_unit() * 100.0, rnd_unit() * 100.0, rnd_unit() * 100.0);
        for (int k = 0; k < 3; k++)
        {
            ti[k] = mc_add(off, mc_scale(mc_v3(rnd_unit(), rnd_unit(), rnd_unit()), scale));
            tj[k] = mc_add(off, mc_scale(mc_v3(rnd_unit(), rnd_unit(), rnd_unit()), scale));
        }
        mc_crossing out[2];
        int c = mc_tri_tri_crossings(ti, tj, out);
        for (int k = 0; k < c; k++)
        {
            const mc_vec3* own = out[k].body == 0 ? ti : tj;
            const mc_vec3* other = out[k].body == 0 ? tj : ti;
            mc_vec3 p0 = own[out[k].edge], p1 = own[(out[k].edge + 1) % 3];
            mc_vec3 x = out[k].point;
            double L = fmax(mc_length(mc_sub(p0, other[0])), mc_length(mc_sub(p1, other[0])));
            double nlen = mc_length(mc_cross(mc_sub(other[1], other[0]), mc_sub(other[2], other[0])));
            double rounding = 4.0 * eps * (mc_length(mc_sub(p1, p0)) + mc_length(x));
            double bound_other =
                32.0 * eps * mc_length(mc_sub(other[1], other[0])) * mc_length(mc_sub(other[2], other[0])) * L / nlen +
                rounding;
            long double d_other = plane_distance(other, x);
            cr_assert(d_other <= bound_other, "distance %Lg to the crossed plane exceeds %g", d_other, bound_other);
            long double d_own = plane_distance(own, x);
            double own_len = fmax(mc_length(mc_sub(own[1], own[0])), mc_length(mc_sub(own[2], own[0])));
            double own_n = mc_length(mc_cross(mc_sub(own[1], own[0]), mc_sub(own[2], own[0])));
            // x is on segment p0 p1 of its own triangle up to `rounding`; the long double plane evaluation of a point
            // off the triangle's origin adds relative 2^-63 terms scaled like the first bound.
            double bound_own =
                rounding + 32.0 * eps * own_len * own_len * (own_len + mc_length(mc_sub(x, own[0]))) / own_n;
            cr_assert(d_own <= bound_own, "distance %Lg to the own plane exceeds %g", d_own, bound_own);
            checked++;
        }
    }
    cr_assert(checked > 20000); // about 0.55 per case
}

// ---------------------------------------------------------------------------------------------------------------
// Closed triangles and the self-intersection rule of one mesh (src/base/tri_tri_closed.h)

typedef struct ivec
{
    i128 x, y, z;
} ivec;

static ivec iv(mc_vec3 p)
{
    return (ivec){(i128)p.x, (i128)p.y, (i128)p.z};
}
static ivec iv_sub(ivec a, ivec b)
{
    return (ivec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static ivec iv_cross(ivec a, ivec b)
{
    return (ivec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static i128 iv_dot(ivec a, ivec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static int iv_zero(ivec a)
{
    return a.x == 0 && a.y == 0 && a.z == 0;
}

// Separating-axis oracle for two closed convex sets given as point triples (a segment is a triple with a repeated
// point), on integer coordinates in exact 128-bit arithmetic: they are disjoint iff some candidate axis strictly
// separates their projections. The candidates cover every face normal of their Minkowski difference: both normals,
// the cross products of the edges, and the in-plane normals (normal x edge) that a flat difference needs. Independent
// of the orientation-predicate logic of tri_tri_closed.c.
static int sat_oracle_meet(const mc_vec3 pa[3], const mc_vec3 pb[3])
{
    ivec a[3] = {iv(pa[0]), iv(pa[1]), iv(pa[2])}, b[3] = {iv(pb[0]), iv(pb[1]), iv(pb[2])};
    ivec ea[3], eb[3];
    for (int k = 0; k < 3; k++)
    {
        ea[k] = iv_sub(a[(k + 1) % 3], a[k]);
        eb[k] = iv_sub(b[(k + 1) % 3], b[k]);
    }
    ivec na = iv_cross(ea[0], iv_sub(a[2], a[0])), nb = iv_cross(eb[0], iv_sub(b[2], b[0]));
    ivec axes[2 + 9 + 12];
    int n = 0;
    axes[n++] = na;
    axes[n++] = nb;
    for (int i = 0; i < 3; i++)
    {
        for (int j = 0; j < 3; j++)
        {
            axes[n++] = iv_cross(ea[i], eb[j]);
        }
        axes[n++] = iv_cross(na, ea[i]);
        axes[n++] = iv_cross(na, eb[i]);
        axes[n++] = iv_cross(nb, ea[i]);
        axes[n++] = iv_cross(nb, eb[i]);
    }
    for (int k = 0; k < n; k++)
    {
        if (iv_zero(axes[k]))
        {
            continue;
        }
        i128 amin = 0, amax = 0, bmin = 0, bmax = 0;
        for (int v = 0; v < 3; v++)
        {
            i128 x = iv_dot(axes[k], a[v]), y = iv_dot(axes[k], b[v]);
            amin = v == 0 || x < amin ? x : amin;
            amax = v == 0 || x > amax ? x : amax;
            bmin = v == 0 || y < bmin ? y : bmin;
            bmax = v == 0 || y > bmax ? y : bmax;
        }
        if (amax < bmin || bmax < amin)
        {
            return 0;
        }
    }
    return 1;
}

// The self rule decided independently on integer triangles: no shared vertex: the closed sets meet (SAT); one shared
// vertex a: A and B meet beyond a iff their corner cones at a share a ray, iff the edge bc opposite a in A meets B's
// cone at a, which within the coordinate range is B scaled about a by 4096 (SAT); a shared edge: coplanar, with the
// two normals pointing the same way (exact dot product); three: always.
static int oracle_self(const mc_vec3 a[3], const uint32_t ia[3], const mc_vec3 b[3], const uint32_t ib[3])
{
    int shared = 0, ka = 0, kb = 0;
    for (int i = 0; i < 3; i++)
    {
        for (int j = 0; j < 3; j++)
        {
            if (ia[i] == ib[j])
            {
                shared++;
                ka = i;
                kb = j;
            }
        }
    }
    if (shared == 0)
    {
        return sat_oracle_meet(a, b);
    }
    if (shared == 1)
    {
        mc_vec3 bc[3] = {a[(ka + 1) % 3], a[(ka + 2) % 3], a[(ka + 2) % 3]};
        mc_vec3 o = b[kb], u = mc_sub(b[(kb + 1) % 3], o), v = mc_sub(b[(kb + 2) % 3], o);
        mc_vec3 cone[3] = {o, mc_add(o, mc_scale(u, 4096.0)), mc_add(o, mc_scale(v, 4096.0))};
        return sat_oracle_meet(bc, cone);
    }
    if (shared == 2)
    {
        ivec na = iv_cross(iv_sub(iv(a[1]), iv(a[0])), iv_sub(iv(a[2]), iv(a[0])));
        ivec nb = iv_cross(iv_sub(iv(b[1]), iv(b[0])), iv_sub(iv(b[2]), iv(b[0])));
        // Coplanar iff the normals are parallel (the triangles share an edge). Then the third vertices are on one
        // side of the edge iff the normals agree when the edge runs the same way in both triangles, and iff they are
        // opposed when it runs the opposite ways (as between consistently wound neighbours).
        if (!iv_zero(iv_cross(na, nb)))
        {
            return 0;
        }
        int same_dir = 0; // does the shared edge run the same way in both triangles?
        for (int i = 0; i < 3; i++)
        {
            for (int j = 0; j < 3; j++)
            {
                if (ia[i] == ib[j] && ia[(i + 1) % 3] == ib[(j + 1) % 3])
                {
                    same_dir = 1;
                }
            }
        }
        i128 d = iv_dot(na, nb);
        return same_dir ? d > 0 : d < 0;
    }
    return 1;
}

static int self_rule(const mc_vec3 a[3], const uint32_t ia[3], const mc_vec3 b[3], const uint32_t ib[3])
{
    mc_tri_plane pa, pb;
    mc_tri_plane_init(&pa, a[0], a[1], a[2]);
    mc_tri_plane_init(&pb, b[0], b[1], b[2]);
    int r = mc_tri_tri_self_intersect(&pa, ia, &pb, ib);
    cr_assert(r == mc_tri_tri_self_intersect(&pb, ib, &pa, ia), "the rule is not symmetric");
    return r;
}

Test(tri_tri, self_rule_catalogue)
{
    const uint32_t i012[3] = {0, 1, 2};
    // A: the triangle (0,0,0) (2,0,0) (0,2,0) in the plane z = 0.
    const mc_vec3 A[3] = {mc_v3(0, 0, 0), mc_v3(2, 0, 0), mc_v3(0, 2, 0)};
    struct
    {
        const char* what;
        mc_vec3 b[3];
        uint32_t ib[3];
        int want;
    } cases[] = {
        // One shared vertex (index 0).
        {"touches at the shared vertex only, out of the plane", {A[0], mc_v3(-1, 0, 1), mc_v3(0, -1, 1)}, {0, 3, 4}, 0},
        {"touches at the shared vertex only, coplanar opposite corner",
         {A[0], mc_v3(-1, 0, 0), mc_v3(0, -1, 0)},
         {0, 3, 4},
         0},
        {"coplanar, corners touching along a ray (edge on edge)",
         {A[0], mc_v3(0, -1, 0), mc_v3(1, 0, 0)},
         {0, 3, 4},
         1},
        {"coplanar, corners touching at the vertex only (edges opposite)",
         {A[0], mc_v3(0, -1, 0), mc_v3(-1, 0, 0)},
         {0, 3, 4},
         0},
        {"crosses through A's face from the shared vertex", {A[0], mc_v3(1, 1, -1), mc_v3(1, 1, 1)}, {0, 3, 4}, 1},
        {"an edge from the shared vertex lies in A", {A[0], mc_v3(1, 1, 0), mc_v3(0, 0, 1)}, {0, 3, 4}, 1},
        {"an edge from the shared vertex lies along A's edge, outward",
         {A[0], mc_v3(-1, 0, 0), mc_v3(0, 0, 1)},
         {0, 3, 4},
         0},
        {"an edge from the shared vertex lies along A's edge, inward",
         {A[0], mc_v3(1, 0, 0), mc_v3(0, 0, 1)},
         {0, 3, 4},
         1},
        {"the opposite edge crosses A's face", {A[0], mc_v3(2, 2, -1), mc_v3(0.25, 0.25, 1)}, {0, 3, 4}, 1},
        {"crosses A's plane from the shared vertex outside A's corner",
         {A[0], mc_v3(-2, 1, -1), mc_v3(-2, 1, 1)},
         {0, 3, 4},
         0},
        {"the opposite edge passes beyond A, its face through A",
         {A[0], mc_v3(2, 2, -1), mc_v3(4, 4, 1)},
         {0, 3, 4},
         1},
        // No shared vertex: touching counts.
        {"a corner on A's face", {mc_v3(0.5, 0.5, 0), mc_v3(0.5, 0.5, 1), mc_v3(1.5, 0.5, 1)}, {3, 4, 5}, 1},
        {"a corner just above A's face",
         {mc_v3(0.5, 0.5, 0x1p-40), mc_v3(0.5, 0.5, 1), mc_v3(1.5, 0.5, 1)},
         {3, 4, 5},
         0},
        {"edge on edge, crossing", {mc_v3(1, -1, 0), mc_v3(1, 1, 0), mc_v3(1, 0, 1)}, {3, 4, 5}, 1},
        {"coplanar, overlapping", {mc_v3(1, 1, 0), mc_v3(-1, 1, 0), mc_v3(1, -1, 0)}, {3, 4, 5}, 1},
        {"coplanar, apart", {mc_v3(3, 3, 0), mc_v3(2, 3, 0), mc_v3(3, 2, 0)}, {3, 4, 5}, 0},
        {"coplanar, touching at a corner", {mc_v3(2, 0, 0), mc_v3(3, 0, 0), mc_v3(3, 1, 0)}, {3, 4, 5}, 1},
        {"crossing transversally", {mc_v3(0.5, 0.5, -1), mc_v3(0.5, 0.5, 1), mc_v3(3, 3, 0)}, {3, 4, 5}, 1},
        // A shared edge (indices 0 and 1).
        {"flat neighbour", {A[1], A[0], mc_v3(1, -1, 0)}, {1, 0, 3}, 0},
        {"bent neighbour", {A[1], A[0], mc_v3(1, 1, 1)}, {1, 0, 3}, 0},
        {"folded onto A", {A[1], A[0], mc_v3(1, 1, 0)}, {1, 0, 3}, 1},
        // Three shared vertices.
        {"duplicate, reversed", {A[0], A[2], A[1]}, {0, 2, 1}, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
        cr_expect(self_rule(A, i012, cases[k].b, cases[k].ib) == cases[k].want, "%s", cases[k].what);
    }
}

// Random integer triangles in a tiny box (coplanar, collinear, touching and shared-corner configurations all the
// time) against the oracle, with 0, 1, 2 and 3 shared vertices.
Test(tri_tri, self_rule_matches_integer_oracle)
{
    g_rng = 0x9E3779B97F4A7C15ull;
    int counts[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    for (int it = 0; it < REPS(50000); it++)
    {
        int shared = it % 4 == 3 ? (it % 40 == 3 ? 3 : 2) : it % 4;
        mc_vec3 a[3], b[3];
        uint32_t ia[3] = {0, 1, 2}, ib[3] = {3, 4, 5};
        int r = rnd_int(1, 3);
        for (int k = 0; k < 3; k++)
        {
            a[k] = rnd_ipoint(r);
            b[k] = rnd_ipoint(r);
        }
        // Corner k < shared of a is also corner perm[k] of b.
        static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
        const int* perm = perms[rnd_int(0, 5)];
        for (int k = 0; k < shared; k++)
        {
            b[perm[k]] = a[k];
            ib[perm[k]] = ia[k];
        }
        int distinct = 1; // distinct indices are distinct points (a welded mesh)
        for (int i = 0; i < 3; i++)
        {
            for (int j = 0; j < 3; j++)
            {
                distinct &= ia[i] == ib[j] || a[i].x != b[j].x || a[i].y != b[j].y || a[i].z != b[j].z;
            }
        }
        if (zero_area(a) || zero_area(b) || !distinct)
        {
            continue;
        }
        int got = self_rule(a, ia, b, ib), want = oracle_self(a, ia, b, ib);
        cr_assert(got == want, "iteration %d, %d shared: rule %d, oracle %d", it, shared, got, want);
        counts[shared][got]++;
    }
    // Both outcomes occur often with every kind of sharing.
    for (int s = 0; s < 3; s++)
    {
        cr_assert(counts[s][0] > 200 && counts[s][1] > 200, "%d shared: %d / %d", s, counts[s][0], counts[s][1]);
    }
}

/// Strictly inside triangle t (2D, x and y only), exact for the small grid values of the test below.
static int inside_xy(const mc_vec3 t[3], double x, double y)
{
    double s[3];
    for (int k = 0; k < 3; ++k)
    {
        const mc_vec3* a = &t[k];
        const mc_vec3* b = &t[(k + 1) % 3];
        s[k] = (b->x - a->x) * (y - a->y) - (b->y - a->y) * (x - a->x);
    }
    return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0);
}

// The coplanar overlap test on prepared triangles (the pair stage's flush faces) gives mc_tri_coplanar_overlap's answer
// on coplanar integer triangles in coordinate planes and tilted planes; and in the plane z = 1 a point of a 1/8 grid
// strictly inside both triangles (exact: small dyadic values) is never reported apart (a one-sided oracle).
Test(tri_tri, coplanar_overlap_on_planes_matches_the_vertex_test)
{
    int overlap = 0, apart = 0, grid_checked = 0;
    for (int n = 0; n < REPS(20000); ++n)
    {
        mc_vec3 ti[3], tj[3];
        int kind = n % 4;
        for (int k = 0; k < 6; ++k)
        {
            double u = rnd_int(-3, 3), v = rnd_int(-3, 3);
            mc_vec3 p = kind == 0   ? mc_v3(u, v, 1.0)
                        : kind == 1 ? mc_v3(2.0, u, v)
                        : kind == 2 ? mc_v3(u, -1.0, v)
                                    : mc_v3(u, v, u + 2.0 * v);
            (k < 3 ? ti : tj)[k % 3] = p;
        }
        if (zero_area(ti) || zero_area(tj))
        {
            continue;
        }
        mc_tri_plane pi, pj;
        mc_tri_plane_init(&pi, ti[0], ti[1], ti[2]);
        mc_tri_plane_init(&pj, tj[0], tj[1], tj[2]);
        bool got = mc_tri_coplanar_overlap_planes(&pi, &pj);
        cr_assert_eq(got, mc_tri_coplanar_overlap(ti, tj, mc_tri_coplanar_axis(ti)), "pair %d", n);
        overlap += got;
        apart += !got;
        for (int gx = -24; kind == 0 && !got && gx <= 24; ++gx)
        {
            for (int gy = -24; gy <= 24; ++gy)
            {
                cr_assert(!(inside_xy(ti, gx / 8.0, gy / 8.0) && inside_xy(tj, gx / 8.0, gy / 8.0)), "pair %d", n);
            }
        }
        grid_checked += kind == 0 && !got;
    }
    cr_assert(overlap > 2000 && apart > 2000 && grid_checked > 1000, "%d overlapping, %d apart, %d on the grid",
              overlap, apart, grid_checked);
}
