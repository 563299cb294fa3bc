// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Filtered orient3d with an exact fallback on floating-point expansions, and exact cross-product component signs.
// Based on: J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates",
// Discrete & Computational Geometry 18:305-363, 1997 (algorithms re-implemented from the paper's descriptions).
//
// An expansion is an array of doubles whose exact sum is the represented value; the routines below keep it
// nonoverlapping with components in increasing magnitude and without zeros, so its sign is the sign of its last
// component. Requires IEEE 754 double arithmetic with round-to-nearest-even and no extended precision or
// contraction (the build uses -ffp-contract=off; x86-64 SSE2 arithmetic is plain double).
#include "src/base/predicates.h"

#include "meshcontact/query.h"
#include "src/base/core.h"

#include <math.h>

// ---- error-free transformations ----

// x + y == a + b exactly, x = fl(a + b).
static inline void two_sum(double a, double b, double* x, double* y)
{
    double s = a + b;
    double bv = s - a;
    double av = s - bv;
    double br = b - bv;
    double ar = a - av;
    *x = s;
    *y = ar + br;
}

// x + y == a - b exactly, x = fl(a - b).
static inline void two_diff(double a, double b, double* x, double* y)
{
    double s = a - b;
    double bv = a - s;
    double av = s + bv;
    double br = bv - b;
    double ar = a - av;
    *x = s;
    *y = ar + br;
}

// Dekker's split: a == hi + lo, each with at most 26 significant bits.
static inline void split(double a, double* hi, double* lo)
{
    double c = 134217729.0 * a; // 2^27 + 1
    double big = c - a;
    *hi = c - big;
    *lo = a - *hi;
}

// x + y == a * b exactly, x = fl(a * b).
static inline void two_product(double a, double b, double* x, double* y)
{
    double p = a * b;
    double ahi, alo, bhi, blo;
    split(a, &ahi, &alo);
    split(b, &bhi, &blo);
    double err1 = p - ahi * bhi;
    double err2 = err1 - alo * bhi;
    double err3 = err2 - ahi * blo;
    *x = p;
    *y = alo * blo - err3;
}

// ---- expansion arithmetic (zero-eliminating) ----

// h = e + f; h must hold elen + flen components. Returns the length of h (at least 1; a single 0 for zero).
// Merge by magnitude, then accumulate with two_sum (Shewchuk's Fast-Expansion-Sum, Theorem 13, with the
// always-exact two_sum in every step).
static int expansion_sum(int elen, const double* e, int flen, const double* f, double* h)
{
    if (elen == 0 && flen == 0)
    {
        h[0] = 0.0;
        return 1;
    }
    double g_stack[512];
    double* g = g_stack;
    int n = elen + flen;
    MC_ASSERT(n <= 512);
    int i = 0, j = 0, k = 0;
    while (i < elen && j < flen)
    {
        if (fabs(f[j]) < fabs(e[i]))
        {
            g[k++] = f[j++];
        }
        else
        {
            g[k++] = e[i++];
        }
    }
    while (i < elen)
    {
        g[k++] = e[i++];
    }
    while (j < flen)
    {
        g[k++] = f[j++];
    }
    int hlen = 0;
    double q = g[0];
    for (k = 1; k < n; k++)
    {
        double qn, hh;
        two_sum(q, g[k], &qn, &hh);
        q = qn;
        if (hh != 0.0)
        {
            h[hlen++] = hh;
        }
    }
    if (q != 0.0 || hlen == 0)
    {
        h[hlen++] = q;
    }
    return hlen;
}

// h = b * e; h must hold 2 * elen components. Returns the length of h (Shewchuk's Scale-Expansion, Theorem 19).
static int expansion_scale(int elen, const double* e, double b, double* h)
{
    int hlen = 0;
    double q, hh;
    two_product(e[0], b, &q, &hh);
    if (hh != 0.0)
    {
        h[hlen++] = hh;
    }
    for (int i = 1; i < elen; i++)
    {
        double phi, plo, s;
        two_product(e[i], b, &phi, &plo);
        two_sum(q, plo, &s, &hh);
        if (hh != 0.0)
        {
            h[hlen++] = hh;
        }
        two_sum(phi, s, &q, &hh);
        if (hh != 0.0)
        {
            h[hlen++] = hh;
        }
    }
    if (q != 0.0 || hlen == 0)
    {
        h[hlen++] = q;
    }
    return hlen;
}

// h = e * f (both expansions); h must hold 2 * elen * flen components.
static int expansion_product(int elen, const double* e, int flen, const double* f, double* h)
{
    double acc[2][256];
    double term[256];
    int cur = 0;
    int alen = 0;
    for (int j = 0; j < flen; j++)
    {
        int tlen = expansion_scale(elen, e, f[j], term);
        if (j == 0)
        {
            for (int k = 0; k < tlen; k++)
            {
                acc[cur][k] = term[k];
            }
            alen = tlen;
        }
        else
        {
            alen = expansion_sum(alen, acc[cur], tlen, term, acc[1 - cur]);
            cur = 1 - cur;
        }
    }
    for (int k = 0; k < alen; k++)
    {
        h[k] = acc[cur][k];
    }
    return alen;
}

static inline void negate(int n, double* e)
{
    for (int i = 0; i < n; i++)
    {
        e[i] = -e[i];
    }
}

// Approximate value of an expansion (sum from the smallest component up); its sign is the sign of the largest
// component because the smaller ones sum to less than one unit in its last place.
static double estimate(int n, const double* e)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
    {
        s += e[i];
    }
    return s;
}

// A coordinate difference a - b as an expansion of 1 or 2 components.
static inline int diff_expansion(double a, double b, double* h)
{
    double x, y;
    two_diff(a, b, &x, &y);
    if (y == 0.0)
    {
        h[0] = x;
        return 1;
    }
    h[0] = y;
    h[1] = x;
    return 2;
}

// Exact u_i v_j - u_j v_i for difference expansions u, v (each component array of length <= 2).
// h must hold 16 components.
static int cross_component(int ui_len, const double* ui, int uj_len, const double* uj, int vi_len, const double* vi,
                           int vj_len, const double* vj, double* h)
{
    double p[8], q[8];
    int plen = expansion_product(ui_len, ui, vj_len, vj, p);
    int qlen = expansion_product(uj_len, uj, vi_len, vi, q);
    negate(qlen, q);
    return expansion_sum(plen, p, qlen, q, h);
}

// ---- orient3d ----

// Expansion h (length returned, <= 4) of p * q - r * s for doubles.
static int two_by_two(double p, double q, double r, double s, double* h)
{
    double e[2], f[2];
    two_product(p, q, &e[1], &e[0]);
    two_product(r, s, &f[1], &f[0]);
    f[0] = -f[0];
    f[1] = -f[1];
    int el = e[0] == 0.0 ? 1 : 2, fl = f[0] == 0.0 ? 1 : 2;
    return expansion_sum(el, e + 2 - el, fl, f + 2 - fl, h);
}

// Value (rounded, exact sign) of an expansion: the estimate carries the sign of the top component, see estimate().
static double expansion_value(int n, const double* e)
{
    double top = e[n - 1];
    double est = estimate(n, e);
    if ((est > 0.0) != (top > 0.0) || (est < 0.0) != (top < 0.0))
    {
        est = top;
    }
    return est;
}

// det[A, B, C] exactly when every coordinate difference is an exact double (the common degenerate case: nearby or
// integer coordinates), without the general expansion products.
static double orient_exact_simple(const double A[3], const double B[3], const double C[3])
{
    double t[3][8];
    int tl[3];
    for (int k = 0; k < 3; k++)
    {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double m[4];
        int ml = two_by_two(B[i], C[j], B[j], C[i], m);
        tl[k] = expansion_scale(ml, m, A[k], t[k]);
    }
    double s01[16], total[24];
    int l01 = expansion_sum(tl[0], t[0], tl[1], t[1], s01);
    int n = expansion_sum(l01, s01, tl[2], t[2], total);
    return expansion_value(n, total);
}

double mc_orient3d_exact(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    // det[A, B, C] = A . (B x C) with A = b - a, B = c - a, C = d - a (exact differences as expansions).
    double A[3][2], B[3][2], C[3][2];
    int al[3], bl[3], cl[3];
    const double pa[3] = {a->x, a->y, a->z};
    const double pb[3] = {b->x, b->y, b->z};
    const double pc[3] = {c->x, c->y, c->z};
    const double pd[3] = {d->x, d->y, d->z};
    int all_exact = 1;
    for (int k = 0; k < 3; k++)
    {
        al[k] = diff_expansion(pb[k], pa[k], A[k]);
        bl[k] = diff_expansion(pc[k], pa[k], B[k]);
        cl[k] = diff_expansion(pd[k], pa[k], C[k]);
        all_exact &= al[k] == 1 && bl[k] == 1 && cl[k] == 1;
    }
    if (all_exact)
    {
        const double sa[3] = {A[0][0], A[1][0], A[2][0]};
        const double sb[3] = {B[0][0], B[1][0], B[2][0]};
        const double sc[3] = {C[0][0], C[1][0], C[2][0]};
        return orient_exact_simple(sa, sb, sc);
    }
    double total[200];
    int tlen = 0;
    for (int k = 0; k < 3; k++)
    {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double m[16], t[64], s[200];
        // (B x C)_k = B_i C_j - B_j C_i
        int mlen = cross_component(bl[i], B[i], bl[j], B[j], cl[i], C[i], cl[j], C[j], m);
        int tl = expansion_product(mlen, m, al[k], A[k], t);
        if (k == 0)
        {
            for (int q = 0; q < tl; q++)
            {
                total[q] = t[q];
            }
            tlen = tl;
        }
        else
        {
            int sl = expansion_sum(tlen, total, tl, t, s);
            for (int q = 0; q < sl; q++)
            {
                total[q] = s[q];
            }
            tlen = sl;
        }
    }
    return expansion_value(tlen, total);
}

double mc_orient3d_adapt(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    double ax = b->x - a->x, ay = b->y - a->y, az = b->z - a->z;
    double bx = c->x - a->x, by = c->y - a->y, bz = c->z - a->z;
    double cx = d->x - a->x, cy = d->y - a->y, cz = d->z - a->z;
    double p1 = ay * bz, p2 = az * by;
    double p3 = az * bx, p4 = ax * bz;
    double p5 = ax * by, p6 = ay * bx;
    double det = (p1 - p2) * cx + (p3 - p4) * cy + (p5 - p6) * cz;
    double perm =
        (fabs(p1) + fabs(p2)) * fabs(cx) + (fabs(p3) + fabs(p4)) * fabs(cy) + (fabs(p5) + fabs(p6)) * fabs(cz);
    if (fabs(det) > MC_PRED_O3D_BOUND * perm && perm >= MC_PRED_MIN_PERMANENT)
    {
        return det;
    }
    if (perm == 0.0)
    {
        // Every term has a zero factor: in the exactness range (see predicates.h) a product of non-zero coordinate
        // differences does not underflow to zero, and a rounded difference is zero only for equal coordinates. So the
        // exact determinant is zero (a face in a coordinate plane and a point of that plane: flush CAD faces).
        return 0.0;
    }
    return mc_orient3d_exact(a, b, c, d);
}

int mc_orient3d_sign(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    double v = mc_orient3d_adapt(a, b, c, d);
    return (v > 0.0) - (v < 0.0);
}

int mc_orient3d(mc_vec3 a, mc_vec3 b, mc_vec3 c, mc_vec3 d)
{
    return mc_orient3d_sign(&a, &b, &c, &d);
}

// ---- cross-product components ----

int mc_cross_component_sign(const mc_vec3* u0, const mc_vec3* u1, const mc_vec3* v0, const mc_vec3* v1, int axis)
{
    const double pu0[3] = {u0->x, u0->y, u0->z}, pu1[3] = {u1->x, u1->y, u1->z};
    const double pv0[3] = {v0->x, v0->y, v0->z}, pv1[3] = {v1->x, v1->y, v1->z};
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    double ui = pu1[i] - pu0[i], uj = pu1[j] - pu0[j];
    double vi = pv1[i] - pv0[i], vj = pv1[j] - pv0[j];
    double p = ui * vj, q = uj * vi;
    double val = p - q;
    // Two rounded differences and one rounded product per term; the final subtraction cannot change the sign:
    // |val - exact| <= (3 eps + O(eps^2)) (|p| + |q|); 4 eps covers the higher-order terms.
    double bound = 4.0 * 0x1p-53 * (fabs(p) + fabs(q));
    if (fabs(val) > bound && bound >= MC_PRED_MIN_PERMANENT)
    {
        return (val > 0.0) - (val < 0.0);
    }
    if (p == 0.0 && q == 0.0)
    {
        return 0; // each product has a zero factor (no underflow in the exactness range): exactly zero
    }
    double eui[2], euj[2], evi[2], evj[2], h[16];
    int lui = diff_expansion(pu1[i], pu0[i], eui);
    int luj = diff_expansion(pu1[j], pu0[j], euj);
    int lvi = diff_expansion(pv1[i], pv0[i], evi);
    int lvj = diff_expansion(pv1[j], pv0[j], evj);
    int hl = cross_component(lui, eui, luj, euj, lvi, evi, lvj, evj, h);
    double top = h[hl - 1];
    return (top > 0.0) - (top < 0.0);
}

int mc_cross_first_sign(const mc_vec3* u0, const mc_vec3* u1, const mc_vec3* v0, const mc_vec3* v1)
{
    for (int axis = 0; axis < 3; axis++)
    {
        int s = mc_cross_component_sign(u0, u1, v0, v1, axis);
        if (s != 0)
        {
            return s;
        }
    }
    return 0;
}
