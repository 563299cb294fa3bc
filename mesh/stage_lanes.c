// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The per-triangle terms of a deformation's staging (mc_mesh_stage_positions) on a chunk of triangles: the zero-area
// filter, the unit normal, the volume and area terms, eight triangles at a time where the CPU has AVX-512F. Every lane
// performs the scalar version's operations in its order (the build has -ffp-contract=off; square root and division
// are correctly rounded in both), so both give bitwise the same terms.
#include "mesh/mesh_internal.h"

#include <float.h>
#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define MC_STAGE_AVX512 1
#include <immintrin.h>
#else
#define MC_STAGE_AVX512 0
#endif

static double max2(double a, double b)
{
    return a > b ? a : b; // fmax for numbers
}

static void terms_one(mc_stage_chunk* c, uint32_t t)
{
    double ax = c->v[0][t], ay = c->v[1][t], az = c->v[2][t];
    double bx = c->v[3][t], by = c->v[4][t], bz = c->v[5][t];
    double cx = c->v[6][t], cy = c->v[7][t], cz = c->v[8][t];
    double e1x = bx - ax, e1y = by - ay, e1z = bz - az, e2x = cx - ax, e2y = cy - ay, e2z = cz - az;
    double nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
    double mag =
        (fabs(e1y * e2z) + fabs(e1z * e2y)) + (fabs(e1z * e2x) + fabs(e1x * e2z)) + (fabs(e1x * e2y) + fabs(e1y * e2x));
    double abs_coord = max2(max2(max2(fabs(ax), fabs(ay)), max2(fabs(az), fabs(bx))),
                            max2(max2(fabs(by), fabs(bz)), max2(max2(fabs(cx), fabs(cy)), fabs(cz))));
    double bound = 1e-12 * mag + 1e-15 * abs_coord * abs_coord;
    c->proper[t] = fabs(nx) > bound || fabs(ny) > bound || fabs(nz) > bound;
    double l = sqrt(nx * nx + ny * ny + nz * nz);
    c->unit[t] = l > 0.0 && l <= DBL_MAX;
    double inv = 1.0 / l;
    c->normal[0][t] = nx * inv;
    c->normal[1][t] = ny * inv;
    c->normal[2][t] = nz * inv;
    double p0x = ax - c->o[0], p0y = ay - c->o[1], p0z = az - c->o[2];
    double p1x = bx - c->o[0], p1y = by - c->o[1], p1z = bz - c->o[2];
    double p2x = cx - c->o[0], p2y = cy - c->o[1], p2z = cz - c->o[2];
    double rx = p1y * p2z - p1z * p2y, ry = p1z * p2x - p1x * p2z, rz = p1x * p2y - p1y * p2x;
    c->d[t] = p0x * rx + p0y * ry + p0z * rz;
    double q1x = p1x - p0x, q1y = p1y - p0y, q1z = p1z - p0z, q2x = p2x - p0x, q2y = p2y - p0y, q2z = p2z - p0z;
    double sx = q1y * q2z - q1z * q2y, sy = q1z * q2x - q1x * q2z, sz = q1x * q2y - q1y * q2x;
    c->len[t] = sqrt(sx * sx + sy * sy + sz * sz);
}

#if MC_STAGE_AVX512
#define MC_STAGE_ATTR __attribute__((target("avx512f")))
MC_STAGE_ATTR static inline __m512d v_abs(__m512d x)
{
    return _mm512_castsi512_pd(_mm512_and_epi64(_mm512_castpd_si512(x), _mm512_set1_epi64(0x7fffffffffffffffLL)));
}
MC_STAGE_ATTR static inline __m512d v_cross_c(__m512d ay, __m512d az, __m512d by, __m512d bz)
{
    return _mm512_sub_pd(_mm512_mul_pd(ay, bz), _mm512_mul_pd(az, by)); // a.y b.z - a.z b.y (one component)
}
MC_STAGE_ATTR static inline __m512d v_dot(__m512d ax, __m512d ay, __m512d az, __m512d bx, __m512d by, __m512d bz)
{
    return _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(ax, bx), _mm512_mul_pd(ay, by)), _mm512_mul_pd(az, bz));
}

MC_STAGE_ATTR static void terms_avx512(mc_stage_chunk* c, uint32_t t)
{
    __m512d ax = _mm512_loadu_pd(c->v[0] + t), ay = _mm512_loadu_pd(c->v[1] + t), az = _mm512_loadu_pd(c->v[2] + t);
    __m512d bx = _mm512_loadu_pd(c->v[3] + t), by = _mm512_loadu_pd(c->v[4] + t), bz = _mm512_loadu_pd(c->v[5] + t);
    __m512d cx = _mm512_loadu_pd(c->v[6] + t), cy = _mm512_loadu_pd(c->v[7] + t), cz = _mm512_loadu_pd(c->v[8] + t);
    __m512d e1x = _mm512_sub_pd(bx, ax), e1y = _mm512_sub_pd(by, ay), e1z = _mm512_sub_pd(bz, az);
    __m512d e2x = _mm512_sub_pd(cx, ax), e2y = _mm512_sub_pd(cy, ay), e2z = _mm512_sub_pd(cz, az);
    __m512d nx = v_cross_c(e1y, e1z, e2y, e2z), ny = v_cross_c(e1z, e1x, e2z, e2x), nz = v_cross_c(e1x, e1y, e2x, e2y);
    __m512d m0 = _mm512_add_pd(v_abs(_mm512_mul_pd(e1y, e2z)), v_abs(_mm512_mul_pd(e1z, e2y)));
    __m512d m1 = _mm512_add_pd(v_abs(_mm512_mul_pd(e1z, e2x)), v_abs(_mm512_mul_pd(e1x, e2z)));
    __m512d m2 = _mm512_add_pd(v_abs(_mm512_mul_pd(e1x, e2y)), v_abs(_mm512_mul_pd(e1y, e2x)));
    __m512d mag = _mm512_add_pd(_mm512_add_pd(m0, m1), m2);
    __m512d ac = _mm512_max_pd(_mm512_max_pd(_mm512_max_pd(v_abs(ax), v_abs(ay)), _mm512_max_pd(v_abs(az), v_abs(bx))),
                               _mm512_max_pd(_mm512_max_pd(v_abs(by), v_abs(bz)),
                                             _mm512_max_pd(_mm512_max_pd(v_abs(cx), v_abs(cy)), v_abs(cz))));
    __m512d bound = _mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(1e-12), mag),
                                  _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(1e-15), ac), ac));
    __mmask8 proper = _mm512_cmp_pd_mask(v_abs(nx), bound, _CMP_GT_OQ) |
                      _mm512_cmp_pd_mask(v_abs(ny), bound, _CMP_GT_OQ) |
                      _mm512_cmp_pd_mask(v_abs(nz), bound, _CMP_GT_OQ);
    __m512d l = _mm512_sqrt_pd(v_dot(nx, ny, nz, nx, ny, nz));
    __mmask8 unit = _mm512_cmp_pd_mask(l, _mm512_setzero_pd(), _CMP_GT_OQ) &
                    _mm512_cmp_pd_mask(l, _mm512_set1_pd(DBL_MAX), _CMP_LE_OQ);
    __m512d inv = _mm512_div_pd(_mm512_set1_pd(1.0), l);
    _mm512_storeu_pd(c->normal[0] + t, _mm512_mul_pd(nx, inv));
    _mm512_storeu_pd(c->normal[1] + t, _mm512_mul_pd(ny, inv));
    _mm512_storeu_pd(c->normal[2] + t, _mm512_mul_pd(nz, inv));
    __m512d ox = _mm512_set1_pd(c->o[0]), oy = _mm512_set1_pd(c->o[1]), oz = _mm512_set1_pd(c->o[2]);
    __m512d p0x = _mm512_sub_pd(ax, ox), p0y = _mm512_sub_pd(ay, oy), p0z = _mm512_sub_pd(az, oz);
    __m512d p1x = _mm512_sub_pd(bx, ox), p1y = _mm512_sub_pd(by, oy), p1z = _mm512_sub_pd(bz, oz);
    __m512d p2x = _mm512_sub_pd(cx, ox), p2y = _mm512_sub_pd(cy, oy), p2z = _mm512_sub_pd(cz, oz);
    __m512d rx = v_cross_c(p1y, p1z, p2y, p2z), ry = v_cross_c(p1z, p1x, p2z, p2x), rz = v_cross_c(p1x, p1y, p2x, p2y);
    _mm512_storeu_pd(c->d + t, v_dot(p0x, p0y, p0z, rx, ry, rz));
    __m512d q1x = _mm512_sub_pd(p1x, p0x), q1y = _mm512_sub_pd(p1y, p0y), q1z = _mm512_sub_pd(p1z, p0z);
    __m512d q2x = _mm512_sub_pd(p2x, p0x), q2y = _mm512_sub_pd(p2y, p0y), q2z = _mm512_sub_pd(p2z, p0z);
    __m512d sx = v_cross_c(q1y, q1z, q2y, q2z), sy = v_cross_c(q1z, q1x, q2z, q2x), sz = v_cross_c(q1x, q1y, q2x, q2y);
    _mm512_storeu_pd(c->len + t, _mm512_sqrt_pd(v_dot(sx, sy, sz, sx, sy, sz)));
    for (int k = 0; k < 8; ++k)
    {
        c->proper[t + (uint32_t)k] = (uint8_t)((proper >> k) & 1u);
        c->unit[t + (uint32_t)k] = (uint8_t)((unit >> k) & 1u);
    }
}

static int stage_wide(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}
#endif

int mc_stage_portable = 0;

void mc_stage_triangle_terms(mc_stage_chunk* c, uint32_t count)
{
    uint32_t t = 0;
#if MC_STAGE_AVX512
    if (!mc_stage_portable && stage_wide())
    {
        for (; t + 8u <= count; t += 8u)
        {
            terms_avx512(c, t);
        }
    }
#endif
    for (; t < count; ++t)
    {
        terms_one(c, t);
    }
}
