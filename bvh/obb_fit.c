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

// Third axis = first x second (a right-handed frame; the sort may have swapped two axes).
static inline void right_handed(double axes[3][3])
{
    axes[2][0] = axes[0][1] * axes[1][2] - axes[0][2] * axes[1][1];
    axes[2][1] = axes[0][2] * axes[1][0] - axes[0][0] * axes[1][2];
    axes[2][2] = axes[0][0] * axes[1][1] - axes[0][1] * axes[1][0];
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
    right_handed(axes);
    if (values != NULL)
    {
        values[0] = a00;
        values[1] = a11;
        values[2] = a22;
    }
}

// The lane-parallel warm starts (bvh/eigen_lanes.h), for two lanes (SSE2 or plain C) and eight (AVX-512F).
typedef double mc_v2d __attribute__((vector_size(16)));
typedef long long mc_v2l __attribute__((vector_size(16)));
static inline mc_v2d lanes2_sqrt(mc_v2d x)
{
#if defined(__SSE2__)
    return (mc_v2d)_mm_sqrt_pd((__m128d)x);
#else
    return (mc_v2d){sqrt(x[0]), sqrt(x[1])};
#endif
}
#define EL_T mc_v2d
#define EL_M mc_v2l
#define EL_ATTR
#define EL_SQRT(x) lanes2_sqrt(x)
#define EL_NAME(n) lanes2_##n
#include "bvh/eigen_lanes.h"
#undef EL_T
#undef EL_M
#undef EL_ATTR
#undef EL_SQRT
#undef EL_NAME
#if MC_BUILD_AVX512
typedef double mc_v8d __attribute__((vector_size(64)));
typedef long long mc_v8l __attribute__((vector_size(64)));
#define EL_T mc_v8d
#define EL_M mc_v8l
#define EL_ATTR __attribute__((target("avx512f")))
#define EL_SQRT(x) ((mc_v8d)_mm512_sqrt_pd((__m512d)(x)))
#define EL_NAME(n) lanes8_##n
#include "bvh/eigen_lanes.h"
#undef EL_T
#undef EL_M
#undef EL_ATTR
#undef EL_SQRT
#undef EL_NAME
#endif

// The axes of lane l from the lane solver's rows e[3][3] of `width`-lane vectors (seen as doubles): rows 0 and 1, and
// their cross product as row 2.
static void axes_of_lane(const double* e, int width, int l, double axes[3][3])
{
    for (int r = 0; r < 2; ++r)
    {
        for (int k = 0; k < 3; ++k)
        {
            axes[r][k] = e[(3 * r + k) * width + l];
        }
    }
    right_handed(axes);
}

void mc_obb_eigen_sym3_warm2(const double m0[6], const double m1[6], double g[3][3], double axes0[3][3],
                             double axes1[3][3])
{
    mc_v2d mv[6], gv[3][3], e[3][3];
    for (int i = 0; i < 6; ++i)
    {
        mv[i] = (mc_v2d){m0[i], m1[i]};
    }
    for (int i = 0; i < 9; ++i)
    {
        gv[i / 3][i % 3] = (mc_v2d){g[i / 3][i % 3], g[i / 3][i % 3]};
    }
    lanes2_eigen_warm(mv, gv, e);
    axes_of_lane((const double*)e, 2, 0, axes0);
    axes_of_lane((const double*)e, 2, 1, axes1);
}

#if MC_BUILD_AVX512
#define MC_AVX512 __attribute__((target("avx512f")))
MC_AVX512 void mc_obb_eigen_sym3_warm8(const double* const m[8], double (*const g[8])[3], double (*const axes[8])[3])
{
    mc_v8d mv[6], gv[3][3], e[3][3];
    for (int l = 0; l < 8; ++l)
    {
        for (int i = 0; i < 6; ++i)
        {
            mv[i][l] = m[l][i];
        }
        for (int i = 0; i < 9; ++i)
        {
            gv[i / 3][i % 3][l] = g[l][i / 3][i % 3];
        }
    }
    lanes8_eigen_warm(mv, gv, e);
    for (int l = 0; l < 8; ++l)
    {
        axes_of_lane((const double*)e, 8, l, axes[l]);
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
    right_handed(axes);
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
