// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The build's pass over an internal node's triangles (classify in bvh_build.c), written once for every lane count:
// bvh_build.c includes this file once per instruction set, with
//   MC_CL(name)    the instance's name of `name` (a suffix per instruction set),
//   MC_CL_TARGET   the instance's function attribute (empty, or GCC's target("...")),
//   MC_CL_KIND     0: plain C (one triangle per step), 1: SSE2 (4 lanes), 3: AVX-512F (16 lanes).
// Every lane does the same IEEE operations in the same order (nothing is fused: -ffp-contract=off), the ranges are
// exact minima and maxima, and the moment sums are the same 16 lane accumulators folded in the same order (lanes past
// the end of a run add +0.0, which changes no sum: an accumulator that starts at +0.0 is never -0.0), so every
// instance builds bitwise the same tree (test bvh::wide_and_portable_build_passes_give_the_same_tree).
// Uses, from bvh_build.c: builder, build_tri, proj_state, proj_merge, moments, sums_to_moments, SUM_RUN, MS_COUNT.

#if MC_CL_KIND == 0
#define CL_W 1 // lanes per register
typedef float MC_CL(vec);
typedef int MC_CL(mask);
#define CL_ADD(a, b) ((a) + (b))
#define CL_SUB(a, b) ((a) - (b))
#define CL_MUL(a, b) ((a) * (b))
#define CL_MIN(a, b) ((a) < (b) ? (a) : (b)) // as SSE's minps
#define CL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CL_SET1(x) (x)
#define CL_LEFT(side, valid) ((side) < 0.0f)
#define CL_BITS(m) ((uint32_t)(m))
#define CL_MASKZ(m, a) ((m) ? (a) : 0.0f)
#elif MC_CL_KIND == 1
#define CL_W 4
typedef __m128 MC_CL(vec);
typedef __m128 MC_CL(mask);
#define CL_ADD _mm_add_ps
#define CL_SUB _mm_sub_ps
#define CL_MUL _mm_mul_ps
#define CL_MIN _mm_min_ps
#define CL_MAX _mm_max_ps
#define CL_SET1 _mm_set1_ps
#define CL_LEFT(side, valid)                                                                                           \
    _mm_and_ps(                                                                                                        \
        _mm_cmplt_ps((side), _mm_setzero_ps()),                                                                        \
        _mm_castsi128_ps(_mm_setr_epi32(-1, (valid) > 1u ? -1 : 0, (valid) > 2u ? -1 : 0, (valid) > 3u ? -1 : 0)))
#define CL_BITS(m) ((uint32_t)_mm_movemask_ps(m))
#define CL_MASKZ(m, a) _mm_and_ps((a), (m))
#elif MC_CL_KIND == 3
#define CL_W 16
typedef __m512 MC_CL(vec);
typedef __mmask16 MC_CL(mask);
#define CL_ADD _mm512_add_ps
#define CL_SUB _mm512_sub_ps
#define CL_MUL _mm512_mul_ps
#define CL_MIN _mm512_min_ps
#define CL_MAX _mm512_max_ps
#define CL_SET1 _mm512_set1_ps
#define CL_LEFT(side, valid)                                                                                           \
    _mm512_mask_cmp_ps_mask((__mmask16)((valid) == 16u ? 0xffffu : (1u << (valid)) - 1u), (side), _mm512_setzero_ps(), \
                            _CMP_LT_OS)
#define CL_BITS(m) ((uint32_t)(m))
#define CL_MASKZ(m, a) _mm512_maskz_mov_ps((m), (a))
#else
#error "MC_CL_KIND must be 0, 1 or 3"
#endif
#define CL_NQ (16 / CL_W) // accumulators per group of 16 triangles

// The fields of `valid` triangles from tris[k] on, one per lane (lanes past them repeat the last one: no effect on the
// ranges, and they are masked out of the side bits and the sums): f[c][e] = build_tri float 4c + e, so f[0] = vertex
// 0 and area, f[1] = vertex 1 and local moment 4, f[2] = vertex 2 and local moment 5, f[3] = local moments 0..3.
MC_CL_TARGET static inline void MC_CL(load)(const build_tri* tris, uint32_t k, uint32_t valid, MC_CL(vec) f[4][4])
{
#if MC_CL_KIND == 0
    (void)valid;
    for (int c = 0; c < 4; ++c)
    {
        for (int e = 0; e < 4; ++e)
        {
            f[c][e] = c < 3 ? tris[k].v[c][e] : tris[k].w[e];
        }
    }
#elif MC_CL_KIND == 1
    const build_tri* g0 = &tris[k];
    const build_tri* g1 = &tris[k + (valid > 1u ? 1u : 0u)];
    const build_tri* g2 = &tris[k + (valid > 2u ? 2u : valid - 1u)];
    const build_tri* g3 = &tris[k + valid - 1u];
    for (int c = 0; c < 4; ++c)
    {
        const float* p0 = c < 3 ? g0->v[c] : g0->w;
        const float* p1 = c < 3 ? g1->v[c] : g1->w;
        const float* p2 = c < 3 ? g2->v[c] : g2->w;
        const float* p3 = c < 3 ? g3->v[c] : g3->w;
        __m128 r0 = _mm_load_ps(p0), r1 = _mm_load_ps(p1), r2 = _mm_load_ps(p2), r3 = _mm_load_ps(p3);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        f[c][0] = r0;
        f[c][1] = r1;
        f[c][2] = r2;
        f[c][3] = r3;
    }
#else
    __m512 row[16];
    for (uint32_t i = 0; i < 16u; ++i)
    {
        row[i] = _mm512_loadu_ps(tris[k + (i < valid ? i : valid - 1u)].v[0]);
    }
    // Transpose: q[c][j] holds chunk c (16-byte quarter) of the rows j, j + 4, j + 8, j + 12 ...
    __m512 q[4][4];
    for (int j = 0; j < 4; ++j)
    {
        __m512 t0 = _mm512_shuffle_f32x4(row[j], row[j + 4], 0x44);
        __m512 t1 = _mm512_shuffle_f32x4(row[j], row[j + 4], 0xee);
        __m512 t2 = _mm512_shuffle_f32x4(row[j + 8], row[j + 12], 0x44);
        __m512 t3 = _mm512_shuffle_f32x4(row[j + 8], row[j + 12], 0xee);
        q[0][j] = _mm512_shuffle_f32x4(t0, t2, 0x88);
        q[1][j] = _mm512_shuffle_f32x4(t0, t2, 0xdd);
        q[2][j] = _mm512_shuffle_f32x4(t1, t3, 0x88);
        q[3][j] = _mm512_shuffle_f32x4(t1, t3, 0xdd);
    }
    // ... then a 4 x 4 transpose inside every 16-byte block: f[c][e] = field e of chunk c, lane L = row L.
    for (int c = 0; c < 4; ++c)
    {
        __m512 u0 = _mm512_unpacklo_ps(q[c][0], q[c][1]), u1 = _mm512_unpackhi_ps(q[c][0], q[c][1]);
        __m512 u2 = _mm512_unpacklo_ps(q[c][2], q[c][3]), u3 = _mm512_unpackhi_ps(q[c][2], q[c][3]);
        f[c][0] = _mm512_shuffle_ps(u0, u2, 0x44);
        f[c][1] = _mm512_shuffle_ps(u0, u2, 0xee);
        f[c][2] = _mm512_shuffle_ps(u1, u3, 0x44);
        f[c][3] = _mm512_shuffle_ps(u1, u3, 0xee);
    }
#endif
}

// The moment sums of a run added to the totals: each sum folded to four floats, f[l] = (quarter 0 + quarter 1) +
// (quarter 2 + quarter 3) of lane l of each quarter of the 16 lane accumulators, then added lane by lane in double.
MC_CL_TARGET static inline void MC_CL(fold)(MC_CL(vec) acc[CL_NQ][MS_COUNT], double tot[MS_COUNT])
{
    for (int q = 0; q < MS_COUNT; ++q)
    {
        float f[4];
#if MC_CL_KIND == 0
        for (int l = 0; l < 4; ++l)
        {
            f[l] = (acc[l][q] + acc[4 + l][q]) + (acc[8 + l][q] + acc[12 + l][q]);
        }
#elif MC_CL_KIND == 1
        _mm_storeu_ps(f, _mm_add_ps(_mm_add_ps(acc[0][q], acc[1][q]), _mm_add_ps(acc[2][q], acc[3][q])));
#else
        __m128 lo2 = _mm_add_ps(_mm512_castps512_ps128(acc[0][q]), _mm512_extractf32x4_ps(acc[0][q], 1));
        __m128 hi2 = _mm_add_ps(_mm512_extractf32x4_ps(acc[0][q], 2), _mm512_extractf32x4_ps(acc[0][q], 3));
        _mm_storeu_ps(f, _mm_add_ps(lo2, hi2));
#endif
        tot[q] += (((double)f[0] + (double)f[1]) + (double)f[2]) + (double)f[3];
    }
}

// The lanes' ranges reduced: rl[r] = min over the lanes of lo[r], rh[r] = max of hi[r].
MC_CL_TARGET static inline void MC_CL(reduce)(const MC_CL(vec) lo[3], const MC_CL(vec) hi[3], float rl[3], float rh[3])
{
    for (int r = 0; r < 3; ++r)
    {
#if MC_CL_KIND == 0
        rl[r] = lo[r];
        rh[r] = hi[r];
#elif MC_CL_KIND == 1
        float l4[4], h4[4];
        _mm_storeu_ps(l4, lo[r]);
        _mm_storeu_ps(h4, hi[r]);
        rl[r] = INFINITY;
        rh[r] = -INFINITY;
        for (int q = 0; q < 4; ++q)
        {
            rl[r] = l4[q] < rl[r] ? l4[q] : rl[r];
            rh[r] = h4[q] > rh[r] ? h4[q] : rh[r];
        }
#else
        rl[r] = _mm512_reduce_min_ps(lo[r]);
        rh[r] = _mm512_reduce_max_ps(hi[r]);
#endif
    }
}

// Pass 1 over an internal node's triangles: projections for the extents, the side of every centroid relative to the
// plane axis . (c - mean) = 0 (one bit per triangle in side_bits, 1 = right), and the left side's moment sums about
// the mean. No branch depends on the side. Returns the number of triangles on the left.
MC_CL_TARGET static uint32_t MC_CL(classify)(builder* b, uint32_t begin, uint32_t end, proj_state* ps, float ax[3][3],
                                             const double split[3], const double mean[3], moments* left)
{
    double tot[MS_COUNT] = {0};
    uint32_t count = end - begin, n_right = 0;
    const build_tri* tris = b->tris + begin;
    memset(b->side_bits, 0, (count + 63u) / 64u * sizeof *b->side_bits);
    const MC_CL(vec) third = CL_SET1(1.0f / 3.0f), zero = CL_SET1(0.0f);
    const MC_CL(vec) mx = CL_SET1((float)mean[0]), my = CL_SET1((float)mean[1]), mz = CL_SET1((float)mean[2]);
    const MC_CL(vec) sx = CL_SET1((float)split[0]), sy = CL_SET1((float)split[1]), sz = CL_SET1((float)split[2]);
    MC_CL(vec) a[3][3], lo[3], hi[3];
    for (int r = 0; r < 3; ++r)
    {
        for (int c = 0; c < 3; ++c)
        {
            a[r][c] = CL_SET1(ax[r][c]);
        }
        lo[r] = CL_SET1(INFINITY);
        hi[r] = CL_SET1(-INFINITY);
    }
    for (uint32_t run = 0; run < count; run += SUM_RUN)
    {
        uint32_t run_end = count - run < SUM_RUN ? count : run + SUM_RUN;
        MC_CL(vec) acc[CL_NQ][MS_COUNT];
        for (int j = 0; j < CL_NQ; ++j)
        {
            for (int q = 0; q < MS_COUNT; ++q)
            {
                acc[j][q] = zero;
            }
        }
        for (uint32_t k = run; k < run_end; k += CL_W)
        {
            // The accumulators of these lanes: their share of the group of 16.
            MC_CL(vec)* sum = acc[((k - run) / CL_W) & (CL_NQ - 1u)];
            uint32_t valid = run_end - k < CL_W ? run_end - k : CL_W;
            MC_CL(vec) f[4][4];
            MC_CL(load)(tris, k, valid, f);
            MC_CL(vec) x0 = f[0][0], y0 = f[0][1], z0 = f[0][2], ar = f[0][3];
            MC_CL(vec) x1 = f[1][0], y1 = f[1][1], z1 = f[1][2], l4 = f[1][3];
            MC_CL(vec) x2 = f[2][0], y2 = f[2][1], z2 = f[2][2], l5 = f[2][3];
            MC_CL(vec) l0 = f[3][0], l1 = f[3][1], l2 = f[3][2], l3 = f[3][3];
            MC_CL(vec) cx = CL_SUB(CL_MUL(CL_ADD(CL_ADD(x0, x1), x2), third), mx);
            MC_CL(vec) cy = CL_SUB(CL_MUL(CL_ADD(CL_ADD(y0, y1), y2), third), my);
            MC_CL(vec) cz = CL_SUB(CL_MUL(CL_ADD(CL_ADD(z0, z1), z2), third), mz);
            MC_CL(vec) side = CL_ADD(CL_ADD(CL_MUL(cx, sx), CL_MUL(cy, sy)), CL_MUL(cz, sz));
            MC_CL(mask) lm = CL_LEFT(side, valid);
            uint32_t right_bits = ((1u << valid) - 1u) & ~CL_BITS(lm);
            b->side_bits[k >> 6] |= (uint64_t)right_bits << (k & 63u);
            n_right += (uint32_t)__builtin_popcount(right_bits);
            for (int r = 0; r < 3; ++r)
            {
                MC_CL(vec) p0 = CL_ADD(CL_ADD(CL_MUL(x0, a[r][0]), CL_MUL(y0, a[r][1])), CL_MUL(z0, a[r][2]));
                MC_CL(vec) p1 = CL_ADD(CL_ADD(CL_MUL(x1, a[r][0]), CL_MUL(y1, a[r][1])), CL_MUL(z1, a[r][2]));
                MC_CL(vec) p2 = CL_ADD(CL_ADD(CL_MUL(x2, a[r][0]), CL_MUL(y2, a[r][1])), CL_MUL(z2, a[r][2]));
                lo[r] = CL_MIN(lo[r], CL_MIN(CL_MIN(p0, p1), p2));
                hi[r] = CL_MAX(hi[r], CL_MAX(CL_MAX(p0, p1), p2));
            }
            MC_CL(vec) am = CL_MASKZ(lm, ar);
            MC_CL(vec) acx = CL_MUL(am, cx), acy = CL_MUL(am, cy), acz = CL_MUL(am, cz);
            sum[0] = CL_ADD(sum[0], am);
            sum[1] = CL_ADD(sum[1], acx);
            sum[2] = CL_ADD(sum[2], acy);
            sum[3] = CL_ADD(sum[3], acz);
            sum[4] = CL_ADD(sum[4], CL_ADD(CL_MUL(acx, cx), CL_MASKZ(lm, l0)));
            sum[5] = CL_ADD(sum[5], CL_ADD(CL_MUL(acy, cy), CL_MASKZ(lm, l1)));
            sum[6] = CL_ADD(sum[6], CL_ADD(CL_MUL(acz, cz), CL_MASKZ(lm, l2)));
            sum[7] = CL_ADD(sum[7], CL_ADD(CL_MUL(acx, cy), CL_MASKZ(lm, l3)));
            sum[8] = CL_ADD(sum[8], CL_ADD(CL_MUL(acx, cz), CL_MASKZ(lm, l4)));
            sum[9] = CL_ADD(sum[9], CL_ADD(CL_MUL(acy, cz), CL_MASKZ(lm, l5)));
        }
        MC_CL(fold)(acc, tot);
    }
    float rl[3], rh[3];
    MC_CL(reduce)(lo, hi, rl, rh);
    proj_merge(ps, rl, rh);
    sums_to_moments(tot, left);
    return count - n_right;
}

#undef CL_W
#undef CL_ADD
#undef CL_SUB
#undef CL_MUL
#undef CL_MIN
#undef CL_MAX
#undef CL_SET1
#undef CL_LEFT
#undef CL_BITS
#undef CL_MASKZ
#undef CL_NQ
#undef MC_CL
#undef MC_CL_TARGET
#undef MC_CL_KIND
