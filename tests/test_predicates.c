// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the exact predicates (src/base/predicates.h) against an independent exact reference: a small big-integer
// evaluation of the determinant (every double is an integer multiple of a power of two), and __int128 on integer
// coordinates.
#include "meshcontact/query.h"
#include "src/base/predicates.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// ---- tiny deterministic RNG (xorshift64*) ----
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd_u64(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
static double rnd_unit(void) // uniform in (-1, 1), 53-bit integers scaled by 2^-53, random sign
{
    uint64_t u = rnd_u64();
    double v = ldexp((double)(u >> 11), -53);
    return (u & 1) ? -v : v;
}
static int rnd_int(int lo, int hi)
{
    return (int)((int64_t)lo + (int64_t)(rnd_u64() % (uint64_t)((int64_t)hi - lo + 1)));
}

// ---- small signed big integers: sign-magnitude, 32-bit limbs, little endian ----
#define BN_LIMBS 160
typedef struct bn
{
    int neg;
    int n; // used limbs; 0 means zero
    uint32_t d[BN_LIMBS];
} bn;

static void bn_trim(bn* a)
{
    while (a->n > 0 && a->d[a->n - 1] == 0)
    {
        a->n--;
    }
    if (a->n == 0)
    {
        a->neg = 0;
    }
}

// a = m * 2^shift, m a non-negative integer < 2^63, shift >= 0
static void bn_from_u64_shift(bn* a, uint64_t m, int shift, int neg)
{
    memset(a, 0, sizeof(*a));
    int limb = shift / 32, bit = shift % 32;
    cr_assert(limb + 3 < BN_LIMBS);
    u128 v = (u128)m << bit;
    a->d[limb] = (uint32_t)v;
    a->d[limb + 1] = (uint32_t)(v >> 32);
    a->d[limb + 2] = (uint32_t)(v >> 64);
    a->n = limb + 3;
    a->neg = neg;
    bn_trim(a);
}

static int bn_cmp_mag(const bn* a, const bn* b)
{
    if (a->n != b->n)
    {
        return a->n < b->n ? -1 : 1;
    }
    for (int i = a->n - 1; i >= 0; i--)
    {
        if (a->d[i] != b->d[i])
        {
            return a->d[i] < b->d[i] ? -1 : 1;
        }
    }
    return 0;
}

// r = |a| + |b| (magnitudes), r = |a| - |b| when |a| >= |b|
static void bn_add_mag(bn* r, const bn* a, const bn* b)
{
    int n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    for (int i = 0; i < n; i++)
    {
        uint64_t s = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
        r->d[i] = (uint32_t)s;
        carry = s >> 32;
    }
    cr_assert(n < BN_LIMBS);
    r->d[n] = (uint32_t)carry;
    r->n = n + 1;
}
static void bn_sub_mag(bn* r, const bn* a, const bn* b)
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++)
    {
        int64_t s = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = s < 0;
        r->d[i] = (uint32_t)(s + (borrow ? (int64_t)1 << 32 : 0));
    }
    r->n = a->n;
}

static void bn_add(bn* r, const bn* a, const bn* b) // r may not alias
{
    memset(r, 0, sizeof(*r));
    if (a->neg == b->neg)
    {
        bn_add_mag(r, a, b);
        r->neg = a->neg;
    }
    else if (bn_cmp_mag(a, b) >= 0)
    {
        bn_sub_mag(r, a, b);
        r->neg = a->neg;
    }
    else
    {
        bn_sub_mag(r, b, a);
        r->neg = b->neg;
    }
    bn_trim(r);
}
static void bn_sub(bn* r, const bn* a, const bn* b)
{
    bn nb = *b;
    nb.neg = b->n ? !b->neg : 0;
    bn_add(r, a, &nb);
}
static void bn_mul(bn* r, const bn* a, const bn* b)
{
    memset(r, 0, sizeof(*r));
    if (a->n == 0 || b->n == 0)
    {
        return;
    }
    cr_assert(a->n + b->n <= BN_LIMBS);
    for (int i = 0; i < a->n; i++)
    {
        uint64_t carry = 0;
        for (int j = 0; j < b->n; j++)
        {
            uint64_t t = (uint64_t)a->d[i] * b->d[j] + r->d[i + j] + carry;
            r->d[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r->d[i + b->n] = (uint32_t)carry;
    }
    r->n = a->n + b->n;
    r->neg = a->neg != b->neg;
    bn_trim(r);
}
static int bn_sign(const bn* a)
{
    return a->n == 0 ? 0 : (a->neg ? -1 : 1);
}
// Approximate value times 2^-scale (for magnitude checks): top limbs in long double.
static long double bn_to_ld(const bn* a, int scale)
{
    long double v = 0.0L;
    for (int i = a->n - 1; i >= 0 && i >= a->n - 4; i--)
    {
        v += ldexpl((long double)a->d[i], 32 * i - scale);
    }
    return a->neg ? -v : v;
}

// Exact reference: orient(a, b, c, d) = det[b - a, c - a, d - a] as a big integer scaled by 2^(3 * shift), where
// every coordinate is an integer multiple of 2^-shift.
static int ref_shift(const double* v, int n)
{
    int shift = 0;
    for (int i = 0; i < n; i++)
    {
        if (v[i] != 0.0)
        {
            int e;
            (void)frexp(v[i], &e); // |v| = f 2^e, f in [0.5, 1): v is a multiple of 2^(e - 53)
            if (53 - e > shift)
            {
                shift = 53 - e;
            }
        }
    }
    return shift;
}
static void bn_from_double(bn* a, double x, int shift)
{
    if (x == 0.0)
    {
        memset(a, 0, sizeof(*a));
        return;
    }
    int e;
    double f = frexp(fabs(x), &e);
    uint64_t m = (uint64_t)ldexp(f, 53); // exact
    cr_assert(e - 53 + shift >= 0);
    bn_from_u64_shift(a, m, e - 53 + shift, x < 0);
}
static void ref_orient(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d, bn* out, int* scale)
{
    const double v[12] = {a->x, a->y, a->z, b->x, b->y, b->z, c->x, c->y, c->z, d->x, d->y, d->z};
    int shift = ref_shift(v, 12);
    bn P[4][3];
    for (int i = 0; i < 4; i++)
    {
        for (int k = 0; k < 3; k++)
        {
            bn_from_double(&P[i][k], v[3 * i + k], shift);
        }
    }
    bn M[3][3]; // rows: b - a, c - a, d - a
    for (int i = 0; i < 3; i++)
    {
        for (int k = 0; k < 3; k++)
        {
            bn_sub(&M[i][k], &P[i + 1][k], &P[0][k]);
        }
    }
    bn acc, t1, t2, t3, t4, t5;
    memset(&acc, 0, sizeof(acc));
    for (int k = 0; k < 3; k++)
    {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        bn_mul(&t1, &M[1][i], &M[2][j]);
        bn_mul(&t2, &M[1][j], &M[2][i]);
        bn_sub(&t3, &t1, &t2);
        bn_mul(&t4, &M[0][k], &t3);
        bn_add(&t5, &acc, &t4);
        acc = t5;
    }
    *out = acc;
    *scale = 3 * shift;
}
static int ref_orient_sign(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    static bn r;
    int scale;
    ref_orient(a, b, c, d, &r, &scale);
    return bn_sign(&r);
}

static mc_vec3 rnd_point(void)
{
    return mc_v3(rnd_unit(), rnd_unit(), rnd_unit());
}

static void check_orient(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    int want = ref_orient_sign(a, b, c, d);
    int got = mc_orient3d_sign(a, b, c, d);
    cr_assert_eq(got, want, "orient sign %d, exact %d for (%a %a %a) (%a %a %a) (%a %a %a) (%a %a %a)", got, want, a->x,
                 a->y, a->z, b->x, b->y, b->z, c->x, c->y, c->z, d->x, d->y, d->z);
    double ex = mc_orient3d_exact(a, b, c, d);
    cr_assert_eq((ex > 0) - (ex < 0), want, "exact path sign %g, exact %d", ex, want);
    cr_assert_eq(mc_orient3d(*a, *b, *c, *d), want);
}

Test(predicates, orient_matches_exact_reference_on_random_points)
{
    for (int n = 0; n < 20000; n++)
    {
        mc_vec3 a = rnd_point(), b = rnd_point(), c = rnd_point(), d = rnd_point();
        check_orient(&a, &b, &c, &d);
    }
}

// Points on a plane, rounded, then moved by a few ulps: the filter mostly fails and the exact path decides.
Test(predicates, orient_matches_exact_reference_near_degenerate)
{
    int naive_wrong = 0;
    for (int n = 0; n < 20000; n++)
    {
        mc_vec3 a = rnd_point(), b = rnd_point(), c = rnd_point();
        double s = rnd_unit() * 2.0, t = rnd_unit() * 2.0;
        mc_vec3 d = mc_v3(a.x + s * (b.x - a.x) + t * (c.x - a.x), a.y + s * (b.y - a.y) + t * (c.y - a.y),
                          a.z + s * (b.z - a.z) + t * (c.z - a.z));
        double* coord = &d.x + rnd_int(0, 2);
        int moves = rnd_int(-2, 2);
        for (int k = 0; k < abs(moves); k++)
        {
            *coord = nextafter(*coord, moves > 0 ? INFINITY : -INFINITY);
        }
        check_orient(&a, &b, &c, &d);
        // Plain floating-point evaluation of the same determinant, to show the set is hard enough to matter.
        mc_vec3 u = mc_sub(b, a), v = mc_sub(c, a), w = mc_sub(d, a);
        double naive = (u.y * v.z - u.z * v.y) * w.x + (u.z * v.x - u.x * v.z) * w.y + (u.x * v.y - u.y * v.x) * w.z;
        naive_wrong += ((naive > 0) - (naive < 0)) != ref_orient_sign(&a, &b, &c, &d);
    }
    // The naive evaluation gets many of these signs wrong (typically a third or more).
    cr_assert(naive_wrong > 1000, "naive wrong only %d times", naive_wrong);
}

// Exactly degenerate inputs with exact small dyadic coordinates: points on lines and planes.
Test(predicates, orient_exact_zero_on_coplanar_and_collinear_points)
{
    for (int n = 0; n < 5000; n++)
    {
        mc_vec3 a = mc_v3(rnd_int(-8, 8) * 0.125, rnd_int(-8, 8) * 0.25, rnd_int(-8, 8));
        mc_vec3 u = mc_v3(rnd_int(-4, 4), rnd_int(-4, 4), rnd_int(-4, 4));
        mc_vec3 v = mc_v3(rnd_int(-4, 4) * 0.5, rnd_int(-4, 4), rnd_int(-4, 4) * 0.25);
        int s[3][2];
        for (int k = 0; k < 3; k++)
        {
            s[k][0] = rnd_int(-3, 3);
            s[k][1] = rnd_int(-3, 3);
        }
        mc_vec3 p[3];
        for (int k = 0; k < 3; k++)
        {
            p[k] = mc_add(a, mc_add(mc_scale(u, s[k][0]), mc_scale(v, s[k][1])));
        }
        cr_assert_eq(mc_orient3d_sign(&a, &p[0], &p[1], &p[2]), 0);
        cr_assert_eq(ref_orient_sign(&a, &p[0], &p[1], &p[2]), 0);
    }
}

// Coordinates with exponents over the documented range [2^-300, 2^300], mixed within one determinant, plus
// uniformly scaled near-degenerate sets (scaling by a power of two keeps the sign).
Test(predicates, orient_matches_exact_reference_with_huge_and_tiny_exponents)
{
    for (int n = 0; n < 10000; n++)
    {
        mc_vec3 p[4];
        for (int i = 0; i < 4; i++)
        {
            double* c = &p[i].x;
            for (int k = 0; k < 3; k++)
            {
                c[k] = ldexp(rnd_unit(), rnd_int(-299, 299));
                if (rnd_int(0, 5) == 0)
                {
                    c[k] = 0.0;
                }
            }
        }
        check_orient(&p[0], &p[1], &p[2], &p[3]);
    }
    for (int n = 0; n < 10000; n++)
    {
        int e = rnd_int(-290, 290);
        mc_vec3 a = rnd_point(), b = rnd_point(), c = rnd_point();
        double s = rnd_unit(), t = rnd_unit();
        mc_vec3 d = mc_add(a, mc_add(mc_scale(mc_sub(b, a), s), mc_scale(mc_sub(c, a), t)));
        d.y = nextafter(d.y, rnd_int(0, 1) ? 2.0 : -2.0);
        int want = ref_orient_sign(&a, &b, &c, &d);
        mc_vec3 q[4] = {mc_scale(a, ldexp(1.0, e)), mc_scale(b, ldexp(1.0, e)), mc_scale(c, ldexp(1.0, e)),
                        mc_scale(d, ldexp(1.0, e))};
        check_orient(&q[0], &q[1], &q[2], &q[3]);
        cr_assert_eq(mc_orient3d_sign(&q[0], &q[1], &q[2], &q[3]), want);
    }
}

// Integer coordinates: __int128 gives the exact determinant; small ranges produce many exact zeros.
Test(predicates, orient_matches_int128_on_integer_coordinates)
{
    int zeros = 0;
    for (int n = 0; n < 200000; n++)
    {
        int range = n % 2 ? 3 : (1 << 26);
        int64_t v[4][3];
        mc_vec3 p[4];
        for (int i = 0; i < 4; i++)
        {
            for (int k = 0; k < 3; k++)
            {
                v[i][k] = rnd_int(-range, range);
            }
            p[i] = mc_v3((double)v[i][0], (double)v[i][1], (double)v[i][2]);
        }
        i128 m[3][3];
        for (int i = 0; i < 3; i++)
        {
            for (int k = 0; k < 3; k++)
            {
                m[i][k] = v[i + 1][k] - v[0][k];
            }
        }
        i128 det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) +
                   m[0][1] * (m[1][2] * m[2][0] - m[1][0] * m[2][2]) +
                   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        int want = (det > 0) - (det < 0);
        zeros += want == 0;
        cr_assert_eq(mc_orient3d_sign(&p[0], &p[1], &p[2], &p[3]), want);
    }
    cr_assert(zeros > 1000);
}

// The value returned by the exact path approximates the exact determinant to a few ulps.
Test(predicates, orient_exact_value_is_accurate)
{
    static bn r;
    for (int n = 0; n < 5000; n++)
    {
        mc_vec3 a = rnd_point(), b = rnd_point(), c = rnd_point();
        mc_vec3 d = mc_add(a, mc_add(mc_scale(mc_sub(b, a), rnd_unit()), mc_scale(mc_sub(c, a), rnd_unit())));
        d.z = nextafter(d.z, 2.0);
        int scale;
        ref_orient(&a, &b, &c, &d, &r, &scale);
        long double want = bn_to_ld(&r, scale);
        double got = mc_orient3d_exact(&a, &b, &c, &d);
        // bn_to_ld keeps 4 limbs (>= 97 bits) and the estimate sums a nonoverlapping expansion: a few ulps of
        // double precision. 8 ulps leaves room.
        cr_assert(fabsl((long double)got - want) <= 8.0L * DBL_EPSILON * fabsl(want), "got %a want %La", got, want);
    }
}

// Invariants: even permutations keep the sign, odd ones flip it; a translation that is exact in floating point
// (dyadic coordinates) keeps it.
Test(predicates, orient_permutation_and_translation_invariance)
{
    for (int n = 0; n < 20000; n++)
    {
        mc_vec3 a = mc_v3(rnd_int(-4, 4), rnd_int(-4, 4), rnd_int(-4, 4));
        mc_vec3 b = mc_v3(rnd_int(-4, 4), rnd_int(-4, 4), rnd_int(-4, 4));
        mc_vec3 c = mc_v3(rnd_int(-4, 4), rnd_int(-4, 4), rnd_int(-4, 4));
        mc_vec3 d = mc_add(a, mc_scale(mc_sub(b, a), rnd_int(-16, 16) * 0.0625)); // exact: on line ab
        d.x += rnd_int(-1, 1) * 0x1p-40;                                          // exact: tiny move off it
        int s = mc_orient3d_sign(&a, &b, &c, &d);
        cr_assert_eq(mc_orient3d_sign(&b, &a, &c, &d), -s);
        cr_assert_eq(mc_orient3d_sign(&b, &c, &a, &d), s);
        cr_assert_eq(mc_orient3d_sign(&c, &d, &a, &b), s);
        cr_assert_eq(mc_orient3d_sign(&a, &b, &d, &c), -s);
        mc_vec3 o = mc_v3(0.5, -0.25, 8.0);
        mc_vec3 a2 = mc_add(a, o), b2 = mc_add(b, o), c2 = mc_add(c, o), d2 = mc_add(d, o);
        cr_assert_eq(mc_orient3d_sign(&a2, &b2, &c2, &d2), s);
    }
}

// Orientation convention of the public predicate: positive on the side the normal (b - a) x (c - a) points to.
Test(predicates, orient_sign_convention)
{
    mc_vec3 a = mc_v3(0, 0, 0), b = mc_v3(1, 0, 0), c = mc_v3(0, 1, 0);
    cr_assert_eq(mc_orient3d(a, b, c, mc_v3(0.2, 0.2, 1.0)), 1);
    cr_assert_eq(mc_orient3d(a, b, c, mc_v3(0.2, 0.2, -1e-300)), -1);
    cr_assert_eq(mc_orient3d(a, b, c, mc_v3(5, -7, 0)), 0);
}

// Cross-product component signs against __int128 (integer coordinates) and against the big-integer reference of
// the corresponding 2x2 determinant for random doubles (via orient with a point pushed along the axis).
Test(predicates, cross_signs_match_exact_reference)
{
    for (int n = 0; n < 100000; n++)
    {
        int range = n % 2 ? 2 : (1 << 30);
        int64_t v[4][3];
        mc_vec3 p[4];
        for (int i = 0; i < 4; i++)
        {
            for (int k = 0; k < 3; k++)
            {
                v[i][k] = rnd_int(-range, range);
            }
            p[i] = mc_v3((double)v[i][0], (double)v[i][1], (double)v[i][2]);
        }
        i128 u[3], w[3];
        for (int k = 0; k < 3; k++)
        {
            u[k] = v[1][k] - v[0][k];
            w[k] = v[3][k] - v[2][k];
        }
        int first = 0;
        for (int k = 0; k < 3; k++)
        {
            int i = (k + 1) % 3, j = (k + 2) % 3;
            i128 cpt = u[i] * w[j] - u[j] * w[i];
            int want = (cpt > 0) - (cpt < 0);
            cr_assert_eq(mc_cross_component_sign(&p[0], &p[1], &p[2], &p[3], k), want);
            if (first == 0)
            {
                first = want;
            }
        }
        cr_assert_eq(mc_cross_first_sign(&p[0], &p[1], &p[2], &p[3]), first);
    }
    // Random doubles: (u x w)_z = orient(o, o + u, o + w, o + e_z) with o = 0; use the reference on those points.
    for (int n = 0; n < 20000; n++)
    {
        mc_vec3 u0 = rnd_point(), u1 = rnd_point(), w0 = rnd_point(), w1;
        // w1 - w0 nearly parallel to u1 - u0 in x,y: w1 = w0 + (u1 - u0) rounded, so the z component is tiny/zero
        w1 = mc_add(w0, mc_sub(u1, u0));
        w1.x = nextafter(w1.x, rnd_int(0, 1) ? 3.0 : -3.0);
        // exact 2x2 determinant (ux wy - uy wx) = orient(0, (ux, uy, 0), (wx, wy, 0), (0, 0, 1)) with exact
        // differences: use the reference with point differences
        static bn t1, t2, t3, m[4];
        const double vals[8] = {u0.x, u0.y, u1.x, u1.y, w0.x, w0.y, w1.x, w1.y};
        int shift = ref_shift(vals, 8);
        bn q[8];
        for (int k = 0; k < 8; k++)
        {
            bn_from_double(&q[k], vals[k], shift);
        }
        bn_sub(&m[0], &q[2], &q[0]); // ux
        bn_sub(&m[1], &q[3], &q[1]); // uy
        bn_sub(&m[2], &q[6], &q[4]); // wx
        bn_sub(&m[3], &q[7], &q[5]); // wy
        bn_mul(&t1, &m[0], &m[3]);
        bn_mul(&t2, &m[1], &m[2]);
        bn_sub(&t3, &t1, &t2);
        cr_assert_eq(mc_cross_component_sign(&u0, &u1, &w0, &w1, 2), bn_sign(&t3));
    }
}

// The reference itself: a few hand-checked determinants (guards against a broken oracle).
Test(predicates, reference_sanity)
{
    mc_vec3 a = mc_v3(0, 0, 0), b = mc_v3(1, 0, 0), c = mc_v3(0, 1, 0), d = mc_v3(0, 0, 1);
    cr_assert_eq(ref_orient_sign(&a, &b, &c, &d), 1);
    cr_assert_eq(ref_orient_sign(&b, &a, &c, &d), -1);
    mc_vec3 e = mc_v3(0x1p-200, 0x1p-200, 0);
    cr_assert_eq(ref_orient_sign(&a, &b, &c, &e), 0);
    mc_vec3 f = mc_v3(1, 1, -0x1p-280);
    cr_assert_eq(ref_orient_sign(&a, &b, &c, &f), -1);
    mc_vec3 g = mc_v3(0x1p250, 3, 0x1p-250);
    cr_assert_eq(ref_orient_sign(&a, &b, &c, &g), 1);
}
