// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// OBB fitting: eigenvectors of a symmetric 3x3 covariance (Jacobi) and conservative float boxes.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996 (box axes = eigenvectors of the area-weighted covariance of the triangles).
#include "bvh/bvh_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void mc_obb_eigen_sym3(const double m[6], double axes[3][3], double values[3])
{
    mc_obb_eigen_sym3_guess(m, NULL, axes, values);
}

// One Jacobi rotation in the (p, q) plane of a symmetric 3x3 matrix held in scalars: app, aqq, apq and the two
// entries arp, arq of the third row r; ep and eq are the axes p and q (rows), rotated along.
static inline void jacobi_rotate(double* app, double* aqq, double* apq, double* arp, double* arq, double ep[3],
                                 double eq[3], double tol)
{
    double x = *apq;
    if (x == 0.0 || x * x <= tol * fabs(*app * *aqq))
    {
        return;
    }
    double d = *aqq - *app;
    double c, s;
    if (fabs(x) <= 0.02 * fabs(d))
    {
        // Small angle (most rotations of a warm start): the rotation by the angle whose half-angle tangent is
        // u = rho/2 (1 - 5/4 rho^2), rho = a_pq / d, which equals Jacobi's to O(rho^5) (below 1e-9 rad here), as
        // c = (1 - u^2) / (1 + u^2), s = 2u / (1 + u^2) with 1 / (1 + u^2) from its series to u^8 (|u| <= 0.01:
        // error below 1e-16). c^2 + s^2 = 1 to rounding, so the axes stay orthonormal; one division, no square root.
        double rho = x / d;
        double u = 0.5 * rho * (1.0 - 1.25 * rho * rho);
        double u2 = u * u;
        double inv = 1.0 - u2 * (1.0 - u2 * (1.0 - u2 * (1.0 - u2)));
        c = (1.0 - u2) * inv;
        s = 2.0 * u * inv;
        // Diagonal of the rotated matrix (the off-diagonal entry left, O(rho^5) of d, is dropped: the values only
        // order the axes).
        double g = s * (2.0 * c * x - s * d);
        *app -= g;
        *aqq += g;
    }
    else
    {
        // t = tan(angle) = 2 sgn(d) a_pq / (|d| + sqrt(d^2 + 4 a_pq^2)): the smaller root (stable).
        double t = 2.0 * (d >= 0.0 ? x : -x) / (fabs(d) + sqrt(d * d + 4.0 * x * x));
        c = 1.0 / sqrt(t * t + 1.0);
        s = t * c;
        *app -= t * x;
        *aqq += t * x;
    }
    double rp = *arp, rq = *arq;
    *apq = 0.0;
    *arp = c * rp - s * rq;
    *arq = s * rp + c * rq;
    for (int k = 0; k < 3; ++k)
    {
        double vp = ep[k], vq = eq[k];
        ep[k] = c * vp - s * vq;
        eq[k] = s * vp + c * vq;
    }
}

static inline void swap_axis(double* va, double* vb, double ea[3], double eb[3])
{
    double t = *va;
    *va = *vb;
    *vb = t;
    for (int k = 0; k < 3; ++k)
    {
        double u = ea[k];
        ea[k] = eb[k];
        eb[k] = u;
    }
}

// Warm start (the build): the matrix in the guess's basis, one Jacobi sweep, no normalisation (see below).
static void eigen_warm(const double m[6], double g[3][3], double axes[3][3], double values[3])
{
    // ag_j = A g_j, then a_ij = g_i . ag_j.
    double ag[3][3];
    for (int j = 0; j < 3; ++j)
    {
        ag[j][0] = m[0] * g[j][0] + m[3] * g[j][1] + m[4] * g[j][2];
        ag[j][1] = m[3] * g[j][0] + m[1] * g[j][1] + m[5] * g[j][2];
        ag[j][2] = m[4] * g[j][0] + m[5] * g[j][1] + m[2] * g[j][2];
    }
    double a00 = g[0][0] * ag[0][0] + g[0][1] * ag[0][1] + g[0][2] * ag[0][2];
    double a11 = g[1][0] * ag[1][0] + g[1][1] * ag[1][1] + g[1][2] * ag[1][2];
    double a22 = g[2][0] * ag[2][0] + g[2][1] * ag[2][1] + g[2][2] * ag[2][2];
    double a01 = g[0][0] * ag[1][0] + g[0][1] * ag[1][1] + g[0][2] * ag[1][2];
    double a02 = g[0][0] * ag[2][0] + g[0][1] * ag[2][1] + g[0][2] * ag[2][2];
    double a12 = g[1][0] * ag[2][0] + g[1][1] * ag[2][1] + g[1][2] * ag[2][2];
    double e[3][3];
    memcpy(e, g, sizeof e);
    const double tol = 1e-14;
    double off = a01 * a01 + a02 * a02 + a12 * a12;
    double diag = a00 * a00 + a11 * a11 + a22 * a22;
    if (off > tol * diag && off != 0.0)
    {
        jacobi_rotate(&a00, &a11, &a01, &a02, &a12, e[0], e[1], tol); // (0, 1); third row 2: a20, a21
        jacobi_rotate(&a00, &a22, &a02, &a01, &a12, e[0], e[2], tol); // (0, 2); third row 1: a10, a12
        jacobi_rotate(&a11, &a22, &a12, &a01, &a02, e[1], e[2], tol); // (1, 2); third row 0: a01, a02
    }
    // Sort by decreasing eigenvalue (three compare-and-swaps).
    if (a11 > a00)
    {
        swap_axis(&a00, &a11, e[0], e[1]);
    }
    if (a22 > a00)
    {
        swap_axis(&a00, &a22, e[0], e[2]);
    }
    if (a22 > a11)
    {
        swap_axis(&a11, &a22, e[1], e[2]);
    }
    // No normalisation: at most three rotations (each orthonormal to a few ulps) applied to an orthonormal guess
    // keep the axes orthonormal to about 1e-15 per tree level, far inside the 4e-7 mc_obb_finish allows for the
    // float axes. Right-handed frame: the sort may have swapped two axes.
    for (int k = 0; k < 3; ++k)
    {
        axes[0][k] = e[0][k];
        axes[1][k] = e[1][k];
    }
    axes[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    axes[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    axes[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    if (values != NULL)
    {
        values[0] = a00;
        values[1] = a11;
        values[2] = a22;
    }
}

#if defined(__SSE2__)
// Two warm starts at once, one per SSE2 lane (the build's two children share their parent's axes as the guess). Every
// lane does eigen_warm's IEEE operations in eigen_warm's order (division and square root are correctly rounded in
// both; nothing is fused), and its branches become selections, so each lane's axes equal eigen_warm's bit for bit.
static inline __m128d sel2(__m128d mask, __m128d a, __m128d b)
{
    return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
}

static inline __m128d abs2(__m128d x)
{
    return _mm_andnot_pd(_mm_set1_pd(-0.0), x);
}

// jacobi_rotate on both lanes; lanes outside `live` are left unchanged.
static inline void jacobi_rotate2(__m128d* app, __m128d* aqq, __m128d* apq, __m128d* arp, __m128d* arq, __m128d ep[3],
                                  __m128d eq[3], __m128d live)
{
    const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0), two = _mm_set1_pd(2.0);
    __m128d x = *apq;
    __m128d rot = _mm_and_pd(live, _mm_cmpneq_pd(x, zero));
    rot =
        _mm_and_pd(rot, _mm_cmpnle_pd(_mm_mul_pd(x, x), _mm_mul_pd(_mm_set1_pd(1e-14), abs2(_mm_mul_pd(*app, *aqq)))));
    if (_mm_movemask_pd(rot) == 0)
    {
        return;
    }
    __m128d d = _mm_sub_pd(*aqq, *app);
    __m128d small = _mm_cmple_pd(abs2(x), _mm_mul_pd(_mm_set1_pd(0.02), abs2(d)));
    // Small-angle branch.
    __m128d rho = _mm_div_pd(x, d);
    __m128d u = _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(0.5), rho),
                           _mm_sub_pd(one, _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(1.25), rho), rho)));
    __m128d u2 = _mm_mul_pd(u, u);
    __m128d inv = _mm_sub_pd(
        one, _mm_mul_pd(u2, _mm_sub_pd(one, _mm_mul_pd(u2, _mm_sub_pd(one, _mm_mul_pd(u2, _mm_sub_pd(one, u2)))))));
    __m128d cs = _mm_mul_pd(_mm_sub_pd(one, u2), inv);
    __m128d ss = _mm_mul_pd(_mm_mul_pd(two, u), inv);
    __m128d g = _mm_mul_pd(ss, _mm_sub_pd(_mm_mul_pd(_mm_mul_pd(two, cs), x), _mm_mul_pd(ss, d)));
    // Exact branch.
    __m128d sx = sel2(_mm_cmpge_pd(d, zero), x, _mm_xor_pd(x, _mm_set1_pd(-0.0)));
    __m128d root = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(d, d), _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(4.0), x), x)));
    __m128d t = _mm_div_pd(_mm_mul_pd(two, sx), _mm_add_pd(abs2(d), root));
    __m128d ce = _mm_div_pd(one, _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(t, t), one)));
    __m128d se = _mm_mul_pd(t, ce);
    __m128d tx = _mm_mul_pd(t, x);
    __m128d c = sel2(small, cs, ce), s = sel2(small, ss, se);
    __m128d new_pp = sel2(small, _mm_sub_pd(*app, g), _mm_sub_pd(*app, tx));
    __m128d new_qq = sel2(small, _mm_add_pd(*aqq, g), _mm_add_pd(*aqq, tx));
    __m128d rp = *arp, rq = *arq;
    *app = sel2(rot, new_pp, *app);
    *aqq = sel2(rot, new_qq, *aqq);
    *apq = sel2(rot, zero, x);
    *arp = sel2(rot, _mm_sub_pd(_mm_mul_pd(c, rp), _mm_mul_pd(s, rq)), rp);
    *arq = sel2(rot, _mm_add_pd(_mm_mul_pd(s, rp), _mm_mul_pd(c, rq)), rq);
    for (int k = 0; k < 3; ++k)
    {
        __m128d vp = ep[k], vq = eq[k];
        ep[k] = sel2(rot, _mm_sub_pd(_mm_mul_pd(c, vp), _mm_mul_pd(s, vq)), vp);
        eq[k] = sel2(rot, _mm_add_pd(_mm_mul_pd(s, vp), _mm_mul_pd(c, vq)), vq);
    }
}

static inline void swap_axis2(__m128d mask, __m128d* va, __m128d* vb, __m128d ea[3], __m128d eb[3])
{
    __m128d a = *va;
    *va = sel2(mask, *vb, a);
    *vb = sel2(mask, a, *vb);
    for (int k = 0; k < 3; ++k)
    {
        __m128d u = ea[k];
        ea[k] = sel2(mask, eb[k], u);
        eb[k] = sel2(mask, u, eb[k]);
    }
}
#endif

void mc_obb_eigen_sym3_warm2(const double m0[6], const double m1[6], double g[3][3], double axes0[3][3],
                             double axes1[3][3])
{
#if defined(__SSE2__)
    __m128d m[6];
    for (int i = 0; i < 6; ++i)
    {
        m[i] = _mm_setr_pd(m0[i], m1[i]);
    }
    __m128d gv[3][3], ag[3][3];
    for (int j = 0; j < 3; ++j)
    {
        for (int k = 0; k < 3; ++k)
        {
            gv[j][k] = _mm_set1_pd(g[j][k]);
        }
    }
    for (int j = 0; j < 3; ++j)
    {
        ag[j][0] =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[0], gv[j][0]), _mm_mul_pd(m[3], gv[j][1])), _mm_mul_pd(m[4], gv[j][2]));
        ag[j][1] =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[3], gv[j][0]), _mm_mul_pd(m[1], gv[j][1])), _mm_mul_pd(m[5], gv[j][2]));
        ag[j][2] =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[4], gv[j][0]), _mm_mul_pd(m[5], gv[j][1])), _mm_mul_pd(m[2], gv[j][2]));
    }
#define MC_DOT2(a, b)                                                                                                  \
    _mm_add_pd(_mm_add_pd(_mm_mul_pd(gv[a][0], ag[b][0]), _mm_mul_pd(gv[a][1], ag[b][1])),                             \
               _mm_mul_pd(gv[a][2], ag[b][2]))
    __m128d a00 = MC_DOT2(0, 0), a11 = MC_DOT2(1, 1), a22 = MC_DOT2(2, 2);
    __m128d a01 = MC_DOT2(0, 1), a02 = MC_DOT2(0, 2), a12 = MC_DOT2(1, 2);
#undef MC_DOT2
    __m128d e[3][3];
    memcpy(e, gv, sizeof e);
    __m128d off = _mm_add_pd(_mm_add_pd(_mm_mul_pd(a01, a01), _mm_mul_pd(a02, a02)), _mm_mul_pd(a12, a12));
    __m128d diag = _mm_add_pd(_mm_add_pd(_mm_mul_pd(a00, a00), _mm_mul_pd(a11, a11)), _mm_mul_pd(a22, a22));
    __m128d live =
        _mm_and_pd(_mm_cmpgt_pd(off, _mm_mul_pd(_mm_set1_pd(1e-14), diag)), _mm_cmpneq_pd(off, _mm_setzero_pd()));
    if (_mm_movemask_pd(live) != 0)
    {
        jacobi_rotate2(&a00, &a11, &a01, &a02, &a12, e[0], e[1], live);
        jacobi_rotate2(&a00, &a22, &a02, &a01, &a12, e[0], e[2], live);
        jacobi_rotate2(&a11, &a22, &a12, &a01, &a02, e[1], e[2], live);
    }
    swap_axis2(_mm_cmpgt_pd(a11, a00), &a00, &a11, e[0], e[1]);
    swap_axis2(_mm_cmpgt_pd(a22, a00), &a00, &a22, e[0], e[2]);
    swap_axis2(_mm_cmpgt_pd(a22, a11), &a11, &a22, e[1], e[2]);
    double r[3][3][2];
    for (int i = 0; i < 2; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            _mm_storeu_pd(r[i][k], e[i][k]);
        }
    }
    double(*out[2])[3] = {axes0, axes1};
    for (int l = 0; l < 2; ++l)
    {
        double(*ax)[3] = out[l];
        for (int k = 0; k < 3; ++k)
        {
            ax[0][k] = r[0][k][l];
            ax[1][k] = r[1][k][l];
        }
        ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
        ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
        ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
    }
#else
    eigen_warm(m0, g, axes0, NULL);
    eigen_warm(m1, g, axes1, NULL);
#endif
}

#if MC_BUILD_AVX512
// The two-lane solver above on eight lanes (AVX-512F): the same operations, selections by mask registers.
#define MC_AVX512 __attribute__((target("avx512f")))
MC_AVX512 static inline __m512d abs8(__m512d x)
{
    return _mm512_castsi512_pd(_mm512_and_epi64(_mm512_castpd_si512(x), _mm512_set1_epi64(0x7fffffffffffffffLL)));
}

MC_AVX512 static inline void jacobi_rotate8(__m512d* app, __m512d* aqq, __m512d* apq, __m512d* arp, __m512d* arq,
                                            __m512d ep[3], __m512d eq[3], __mmask8 live)
{
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
    __m512d x = *apq;
    // Same predicates as the two-lane version: x != 0 (unordered-true), !(x^2 <= tol |app aqq|).
    __mmask8 rot = _mm512_mask_cmp_pd_mask(live, x, zero, _CMP_NEQ_UQ);
    rot = _mm512_mask_cmp_pd_mask(rot, _mm512_mul_pd(x, x),
                                  _mm512_mul_pd(_mm512_set1_pd(1e-14), abs8(_mm512_mul_pd(*app, *aqq))), _CMP_NLE_US);
    if (rot == 0)
    {
        return;
    }
    __m512d d = _mm512_sub_pd(*aqq, *app);
    __mmask8 small = _mm512_cmp_pd_mask(abs8(x), _mm512_mul_pd(_mm512_set1_pd(0.02), abs8(d)), _CMP_LE_OS);
    __m512d rho = _mm512_div_pd(x, d);
    __m512d u = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.5), rho),
                              _mm512_sub_pd(one, _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(1.25), rho), rho)));
    __m512d u2 = _mm512_mul_pd(u, u);
    __m512d inv = _mm512_sub_pd(
        one,
        _mm512_mul_pd(
            u2, _mm512_sub_pd(one, _mm512_mul_pd(u2, _mm512_sub_pd(one, _mm512_mul_pd(u2, _mm512_sub_pd(one, u2)))))));
    __m512d cs = _mm512_mul_pd(_mm512_sub_pd(one, u2), inv);
    __m512d ss = _mm512_mul_pd(_mm512_mul_pd(two, u), inv);
    __m512d g = _mm512_mul_pd(ss, _mm512_sub_pd(_mm512_mul_pd(_mm512_mul_pd(two, cs), x), _mm512_mul_pd(ss, d)));
    __mmask8 dpos = _mm512_cmp_pd_mask(d, zero, _CMP_GE_OS);
    __m512d negx = _mm512_castsi512_pd(
        _mm512_xor_epi64(_mm512_castpd_si512(x), _mm512_set1_epi64((long long)0x8000000000000000ULL)));
    __m512d sx = _mm512_mask_blend_pd(dpos, negx, x);
    __m512d root =
        _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(d, d), _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(4.0), x), x)));
    __m512d t = _mm512_div_pd(_mm512_mul_pd(two, sx), _mm512_add_pd(abs8(d), root));
    __m512d ce = _mm512_div_pd(one, _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(t, t), one)));
    __m512d se = _mm512_mul_pd(t, ce);
    __m512d tx = _mm512_mul_pd(t, x);
    __m512d c = _mm512_mask_blend_pd(small, ce, cs), s = _mm512_mask_blend_pd(small, se, ss);
    __m512d new_pp = _mm512_mask_blend_pd(small, _mm512_sub_pd(*app, tx), _mm512_sub_pd(*app, g));
    __m512d new_qq = _mm512_mask_blend_pd(small, _mm512_add_pd(*aqq, tx), _mm512_add_pd(*aqq, g));
    __m512d rp = *arp, rq = *arq;
    *app = _mm512_mask_blend_pd(rot, *app, new_pp);
    *aqq = _mm512_mask_blend_pd(rot, *aqq, new_qq);
    *apq = _mm512_mask_blend_pd(rot, x, zero);
    *arp = _mm512_mask_blend_pd(rot, rp, _mm512_sub_pd(_mm512_mul_pd(c, rp), _mm512_mul_pd(s, rq)));
    *arq = _mm512_mask_blend_pd(rot, rq, _mm512_add_pd(_mm512_mul_pd(s, rp), _mm512_mul_pd(c, rq)));
    for (int k = 0; k < 3; ++k)
    {
        __m512d vp = ep[k], vq = eq[k];
        ep[k] = _mm512_mask_blend_pd(rot, vp, _mm512_sub_pd(_mm512_mul_pd(c, vp), _mm512_mul_pd(s, vq)));
        eq[k] = _mm512_mask_blend_pd(rot, vq, _mm512_add_pd(_mm512_mul_pd(s, vp), _mm512_mul_pd(c, vq)));
    }
}

MC_AVX512 static inline void swap_axis8(__mmask8 mask, __m512d* va, __m512d* vb, __m512d ea[3], __m512d eb[3])
{
    __m512d a = *va;
    *va = _mm512_mask_blend_pd(mask, a, *vb);
    *vb = _mm512_mask_blend_pd(mask, *vb, a);
    for (int k = 0; k < 3; ++k)
    {
        __m512d u = ea[k];
        ea[k] = _mm512_mask_blend_pd(mask, u, eb[k]);
        eb[k] = _mm512_mask_blend_pd(mask, eb[k], u);
    }
}

MC_AVX512 void mc_obb_eigen_sym3_warm8(const double* const m[8], double (*const g[8])[3], double (*const axes[8])[3])
{
    double tm[6][8], tg[9][8];
    for (int l = 0; l < 8; ++l)
    {
        for (int i = 0; i < 6; ++i)
        {
            tm[i][l] = m[l][i];
        }
        for (int i = 0; i < 9; ++i)
        {
            tg[i][l] = g[l][i / 3][i % 3];
        }
    }
    __m512d mv[6], gv[3][3], ag[3][3];
    for (int i = 0; i < 6; ++i)
    {
        mv[i] = _mm512_loadu_pd(tm[i]);
    }
    for (int i = 0; i < 9; ++i)
    {
        gv[i / 3][i % 3] = _mm512_loadu_pd(tg[i]);
    }
    for (int j = 0; j < 3; ++j)
    {
        ag[j][0] = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(mv[0], gv[j][0]), _mm512_mul_pd(mv[3], gv[j][1])),
                                 _mm512_mul_pd(mv[4], gv[j][2]));
        ag[j][1] = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(mv[3], gv[j][0]), _mm512_mul_pd(mv[1], gv[j][1])),
                                 _mm512_mul_pd(mv[5], gv[j][2]));
        ag[j][2] = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(mv[4], gv[j][0]), _mm512_mul_pd(mv[5], gv[j][1])),
                                 _mm512_mul_pd(mv[2], gv[j][2]));
    }
#define MC_DOT8(a, b)                                                                                                  \
    _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(gv[a][0], ag[b][0]), _mm512_mul_pd(gv[a][1], ag[b][1])),                 \
                  _mm512_mul_pd(gv[a][2], ag[b][2]))
    __m512d a00 = MC_DOT8(0, 0), a11 = MC_DOT8(1, 1), a22 = MC_DOT8(2, 2);
    __m512d a01 = MC_DOT8(0, 1), a02 = MC_DOT8(0, 2), a12 = MC_DOT8(1, 2);
#undef MC_DOT8
    __m512d e[3][3];
    memcpy(e, gv, sizeof e);
    __m512d off =
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(a01, a01), _mm512_mul_pd(a02, a02)), _mm512_mul_pd(a12, a12));
    __m512d diag =
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(a00, a00), _mm512_mul_pd(a11, a11)), _mm512_mul_pd(a22, a22));
    __mmask8 live = _mm512_cmp_pd_mask(off, _mm512_mul_pd(_mm512_set1_pd(1e-14), diag), _CMP_GT_OS);
    live = _mm512_mask_cmp_pd_mask(live, off, _mm512_setzero_pd(), _CMP_NEQ_UQ);
    if (live != 0)
    {
        jacobi_rotate8(&a00, &a11, &a01, &a02, &a12, e[0], e[1], live);
        jacobi_rotate8(&a00, &a22, &a02, &a01, &a12, e[0], e[2], live);
        jacobi_rotate8(&a11, &a22, &a12, &a01, &a02, e[1], e[2], live);
    }
    swap_axis8(_mm512_cmp_pd_mask(a11, a00, _CMP_GT_OS), &a00, &a11, e[0], e[1]);
    swap_axis8(_mm512_cmp_pd_mask(a22, a00, _CMP_GT_OS), &a00, &a22, e[0], e[2]);
    swap_axis8(_mm512_cmp_pd_mask(a22, a11, _CMP_GT_OS), &a11, &a22, e[1], e[2]);
    double r[2][3][8];
    for (int i = 0; i < 2; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            _mm512_storeu_pd(r[i][k], e[i][k]);
        }
    }
    for (int l = 0; l < 8; ++l)
    {
        double(*ax)[3] = axes[l];
        for (int k = 0; k < 3; ++k)
        {
            ax[0][k] = r[0][k][l];
            ax[1][k] = r[1][k][l];
        }
        ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
        ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
        ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
    }
}
#undef MC_AVX512
#endif

void mc_obb_eigen_sym3_guess(const double m[6], double guess[3][3], double axes[3][3], double values[3])
{
    if (guess != NULL)
    {
        eigen_warm(m, guess, axes, values);
        return;
    }
    double a[3][3] = {{m[0], m[3], m[4]}, {m[3], m[1], m[5]}, {m[4], m[5], m[2]}};
    double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}; // columns are eigenvectors
    if (guess != NULL)
    {
        // Work in the guess's basis: a = G A G^T (G's rows are the guessed axes), nearly diagonal for a good guess.
        // ag[j] = A g_j, then a_ij = g_i . ag[j] (symmetric: six entries).
        double ag[3][3];
        for (int j = 0; j < 3; ++j)
        {
            for (int i = 0; i < 3; ++i)
            {
                ag[j][i] = a[i][0] * guess[j][0] + a[i][1] * guess[j][1] + a[i][2] * guess[j][2];
            }
        }
        for (int i = 0; i < 3; ++i)
        {
            for (int j = i; j < 3; ++j)
            {
                double x = guess[i][0] * ag[j][0] + guess[i][1] * ag[j][1] + guess[i][2] * ag[j][2];
                a[i][j] = a[j][i] = x;
            }
            for (int j = 0; j < 3; ++j)
            {
                v[i][j] = guess[j][i]; // columns: the guessed axes, so v accumulates G^T * rotations
            }
        }
    }
    // Cold start: converge to machine precision. Warm start (the build): one sweep, skipping rotations whose
    // off-diagonal entry is already below 1e-7 of the diagonal ones. Jacobi converges quadratically, so one sweep
    // from the parent's axes leaves the child's axes close to its eigenvectors; exactness is not needed there (any
    // orthonormal axes give a valid, conservative box; only tightness depends on them, and the query counters show
    // no measurable loss against full convergence).
    const double tol = guess != NULL ? 1e-14 : 1e-30;
    const int max_sweeps = guess != NULL ? 1 : 16;
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
    {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (!(off > tol * diag) || off == 0.0)
        {
            break;
        }
        for (int p = 0; p < 2; ++p)
        {
            for (int q = p + 1; q < 3; ++q)
            {
                double apq = a[p][q];
                if (apq == 0.0 || apq * apq <= tol * fabs(a[p][p] * a[q][q]))
                {
                    continue;
                }
                // Rotation that annihilates a[p][q] (classical Jacobi, stable form): with d = a_qq - a_pp,
                // t = tan(angle) = 2 sgn(d) a_pq / (|d| + sqrt(d^2 + 4 a_pq^2)), the smaller root.
                double d = a[q][q] - a[p][p];
                double t = 2.0 * (d >= 0.0 ? apq : -apq) / (fabs(d) + sqrt(d * d + 4.0 * apq * apq));
                double c = 1.0 / sqrt(t * t + 1.0);
                double s = t * c;
                // Only rows and columns p and q change (a = J^T a J with the rotation J in the (p, q) plane):
                // a_pq becomes 0, the diagonal moves by -/+ t a_pq, and the third index r mixes.
                int r = 3 - p - q;
                double arp = a[r][p], arq = a[r][q];
                a[p][p] -= t * apq;
                a[q][q] += t * apq;
                a[p][q] = a[q][p] = 0.0;
                a[r][p] = a[p][r] = c * arp - s * arq;
                a[r][q] = a[q][r] = s * arp + c * arq;
                for (int k = 0; k < 3; ++k)
                {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
        }
    }
    double ev[3] = {a[0][0], a[1][1], a[2][2]};
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i)
    {
        for (int j = i + 1; j < 3; ++j)
        {
            if (ev[order[j]] > ev[order[i]])
            {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
    }
    for (int r = 0; r < 3; ++r)
    {
        for (int k = 0; k < 3; ++k)
        {
            axes[r][k] = v[k][order[r]];
        }
        if (values != NULL)
        {
            values[r] = ev[order[r]];
        }
    }
    // Re-orthonormalise (Gram-Schmidt) after a cold start. A warm start applies at most three rotations (each
    // orthonormal to a few ulps) to an orthonormal guess, so its axes are orthonormal to about 1e-15 per tree level,
    // far inside the 4e-7 that mc_obb_finish allows for the float axes: no normalisation there.
    for (int r = 0; r < 2 && guess == NULL; ++r)
    {
        if (r == 1)
        {
            double d = axes[0][0] * axes[1][0] + axes[0][1] * axes[1][1] + axes[0][2] * axes[1][2];
            for (int k = 0; k < 3; ++k)
            {
                axes[1][k] -= d * axes[0][k];
            }
        }
        double inv = 1.0 / sqrt(axes[r][0] * axes[r][0] + axes[r][1] * axes[r][1] + axes[r][2] * axes[r][2]);
        for (int k = 0; k < 3; ++k)
        {
            axes[r][k] *= inv;
        }
    }
    // Right-handed frame (the sort may have swapped two axes).
    axes[2][0] = axes[0][1] * axes[1][2] - axes[0][2] * axes[1][1];
    axes[2][1] = axes[0][2] * axes[1][0] - axes[0][0] * axes[1][2];
    axes[2][2] = axes[0][0] * axes[1][1] - axes[0][1] * axes[1][0];
}

void mc_obb_round_axes(double axes[3][3], float axes_f[3][3])
{
    for (int r = 0; r < 3; ++r)
    {
        for (int k = 0; k < 3; ++k)
        {
            axes_f[r][k] = (float)axes[r][k];
        }
    }
}

// Smallest float >= x (x finite, non-negative): round to nearest, then step one float up when that fell below x
// (for a non-negative float, the next float up is the next bit pattern).
static float round_up_float(double x)
{
    float f = (float)x;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits += (uint32_t)((double)f < x); // no branch: the outcome is unpredictable
    memcpy(&f, &bits, sizeof f);
    return f;
}

void mc_obb_finish(float axes_f[3][3], const double lo[3], const double hi[3], const double origin[3], double proj_err,
                   mc_bvh_node* node)
{
    // Center: midpoint of the projection ranges, mapped back with the rounded axes, then rounded to float. The box is
    // then measured from that float center, so the center's rounding costs nothing.
    double c[3] = {origin[0], origin[1], origin[2]};
    for (int k = 0; k < 3; ++k)
    {
        double mid = 0.5 * (lo[k] + hi[k]);
        for (int d = 0; d < 3; ++d)
        {
            c[d] += mid * (double)axes_f[k][d];
        }
    }
    // The rounded center must be the float that is stored: GCC 12 at -O3 (SLP vectorizer) was seen to use the
    // unrounded double here, which made boxes far from the origin non-conservative (test
    // bvh::boxes_stay_conservative_far_from_the_origin). A volatile round trip forces the rounding.
    double mag = 0.0, off[3];
    for (int d = 0; d < 3; ++d)
    {
        volatile float cf = (float)c[d];
        float stored = cf;
        node->center[d] = stored;
        off[d] = origin[d] - (double)stored;
        mag += fabs(origin[d]) + fabs((double)stored);
    }
    double r[3];
    for (int k = 0; k < 3; ++k)
    {
        // axis . (v - c_f) = axis . (v - origin) + axis . (origin - c_f)
        double ao = (double)axes_f[k][0] * off[0] + (double)axes_f[k][1] * off[1] + (double)axes_f[k][2] * off[2];
        double a = hi[k] + ao, b = -(lo[k] + ao);
        r[k] = a > b ? a : b;
        if (!(r[k] >= 0.0))
        {
            r[k] = 0.0;
        }
    }
    // Rounding bounds (each generous by a factor > 4):
    // (a) proj_err: the caller's bound of the projections' errors.
    // (b) origin - c_f and its projection, and the additions above, in double: below 1e-14 * (|origin| + |c_f|) +
    //     1e-15 * r.
    // (c) the stored float axes are unit and orthogonal only up to 2^-24 per component, so the box is a
    //     parallelepiped M u with M^T M = I + E, |E| <= 4e-7; the true coordinates u = M^-1 (v - c) differ from
    //     the projections M^T (v - c) by at most 5e-7 |v - c| <= 5e-7 * 1.000001 * (r0 + r1 + r2).
    double slack = proj_err + 1e-14 * mag + 1e-6 * (r[0] + r[1] + r[2]);
    for (int k = 0; k < 3; ++k)
    {
        node->extent[k] = round_up_float(r[k] * (1.0 + 1e-12) + slack);
        for (int d = 0; d < 3; ++d)
        {
            node->axis[k][d] = axes_f[k][d];
        }
    }
}

#if MC_BUILD_AVX512
// mc_obb_finish on four boxes at once (AVX-512F + VL, double lanes): the same operations in the same order per lane,
// so every box is bitwise mc_obb_finish's. Lanes past `count` repeat box 0 and store nothing.
__attribute__((target("avx512f,avx512vl"))) void mc_obb_finish4(const mc_obb_job* jobs, uint32_t count,
                                                                const double origin[3], mc_bvh_node* nodes)
{
    const mc_obb_job* j[4];
    for (uint32_t l = 0; l < 4u; ++l)
    {
        j[l] = &jobs[l < count ? l : 0u];
    }
#define MC_LANES(expr) _mm256_setr_pd(j[0]->expr, j[1]->expr, j[2]->expr, j[3]->expr)
    __m256d ax[3][3], lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
    {
        lo[k] = MC_LANES(lo[k]);
        hi[k] = MC_LANES(hi[k]);
        for (int d = 0; d < 3; ++d)
        {
            ax[k][d] = MC_LANES(axes_f[k][d]);
        }
    }
    __m256d err = MC_LANES(proj_err);
#undef MC_LANES
    const __m256d absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    __m256d o[3], c[3];
    for (int d = 0; d < 3; ++d)
    {
        o[d] = _mm256_set1_pd(origin[d]);
        c[d] = o[d];
    }
    for (int k = 0; k < 3; ++k)
    {
        __m256d mid = _mm256_mul_pd(_mm256_set1_pd(0.5), _mm256_add_pd(lo[k], hi[k]));
        for (int d = 0; d < 3; ++d)
        {
            c[d] = _mm256_add_pd(c[d], _mm256_mul_pd(mid, ax[k][d]));
        }
    }
    __m128 cf[3];
    __m256d off[3], mag = _mm256_setzero_pd();
    for (int d = 0; d < 3; ++d)
    {
        cf[d] = _mm256_cvtpd_ps(c[d]);
        __m256d stored = _mm256_cvtps_pd(cf[d]);
        off[d] = _mm256_sub_pd(o[d], stored);
        mag = _mm256_add_pd(mag, _mm256_add_pd(_mm256_and_pd(o[d], absmask), _mm256_and_pd(stored, absmask)));
    }
    __m256d r[3];
    for (int k = 0; k < 3; ++k)
    {
        __m256d ao = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ax[k][0], off[0]), _mm256_mul_pd(ax[k][1], off[1])),
                                   _mm256_mul_pd(ax[k][2], off[2]));
        __m256d a = _mm256_add_pd(hi[k], ao);
        __m256d b = _mm256_xor_pd(_mm256_add_pd(lo[k], ao), _mm256_set1_pd(-0.0));
        __m256d m = _mm256_max_pd(a, b); // a > b ? a : b
        r[k] = _mm256_maskz_mov_pd(_mm256_cmp_pd_mask(m, _mm256_setzero_pd(), _CMP_GE_OQ), m);
    }
    __m256d slack = _mm256_add_pd(_mm256_add_pd(err, _mm256_mul_pd(_mm256_set1_pd(1e-14), mag)),
                                  _mm256_mul_pd(_mm256_set1_pd(1e-6), _mm256_add_pd(_mm256_add_pd(r[0], r[1]), r[2])));
    float ext[3][4], cen[3][4];
    for (int k = 0; k < 3; ++k)
    {
        __m256d x = _mm256_add_pd(_mm256_mul_pd(r[k], _mm256_set1_pd(1.0 + 1e-12)), slack);
        __m128 f = _mm256_cvtpd_ps(x);
        __mmask8 below = _mm256_cmp_pd_mask(_mm256_cvtps_pd(f), x, _CMP_LT_OQ);
        __m128i bits = _mm_mask_add_epi32(_mm_castps_si128(f), below, _mm_castps_si128(f), _mm_set1_epi32(1));
        _mm_storeu_ps(ext[k], _mm_castsi128_ps(bits));
        _mm_storeu_ps(cen[k], cf[k]);
    }
    for (uint32_t l = 0; l < count && l < 4u; ++l)
    {
        mc_bvh_node* node = &nodes[jobs[l].node];
        for (int k = 0; k < 3; ++k)
        {
            node->center[k] = cen[k][l];
            node->extent[k] = ext[k][l];
            for (int d = 0; d < 3; ++d)
            {
                node->axis[k][d] = jobs[l].axes_f[k][d];
            }
        }
    }
}
#endif
