// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The pair stage's lane kernels, written once and included by bvh_collide.c once per instruction set: the 15-axis box
// test on one register of box pairs, and leaf-against-leaf culling on sixteen float lanes (one lane per triangle of a
// leaf). Before each inclusion define:
//   MC_LL(name)   the instance's name of `name` (a suffix per instruction set),
//   MC_LL_TARGET  the instance's function attribute (empty, or GCC's target("...")),
//   MC_LL_KIND    1: SSE2 (four 4-lane registers), 2: AVX2 (two 8-lane registers).
// (A one-register AVX-512F instance measured 3-6% slower than AVX2 on the bench queries of this project's 2-core AMD
// EPYC machine, so there is none.)
// Every instance does the same IEEE operations on every lane in the same order (nothing is fused: -ffp-contract=off),
// so all give bitwise the same box test and culling outcomes, pairs and counters (test
// bvh::every_lane_width_gives_the_same_query).
// Uses, from bvh_collide.c: collide_ctx, lane_box, leaf_cull, lane_box_map, leaf_cull_make, leaf_a_get, leaf_exact.

#if MC_LL_KIND == 1
#define LL_W 4 // lanes per register
typedef __m128 MC_LL(vec);
typedef __m128 MC_LL(mask);
#define LL_ADD _mm_add_ps
#define LL_SUB _mm_sub_ps
#define LL_MUL _mm_mul_ps
#define LL_MIN _mm_min_ps
#define LL_MAX _mm_max_ps
#define LL_SET1 _mm_set1_ps
#define LL_LOAD _mm_loadu_ps
#define LL_ZERO _mm_setzero_ps
#define LL_GT(a, b) _mm_cmpgt_ps((a), (b))
#define LL_LT(a, b) _mm_cmplt_ps((a), (b))
#define LL_ABS(a) _mm_and_ps((a), _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)))
#define LL_OR _mm_or_ps
#define LL_ANDNOT _mm_andnot_ps // (~a) & b
#define LL_SELECT(m, a, b) _mm_or_ps(_mm_and_ps((m), (a)), _mm_andnot_ps((m), (b)))
#define LL_BITS(m) ((uint32_t)_mm_movemask_ps(m))
#define LL_FALSE _mm_setzero_ps()
#elif MC_LL_KIND == 2
#define LL_W 8
typedef __m256 MC_LL(vec);
typedef __m256 MC_LL(mask);
#define LL_ADD _mm256_add_ps
#define LL_SUB _mm256_sub_ps
#define LL_MUL _mm256_mul_ps
#define LL_MIN _mm256_min_ps
#define LL_MAX _mm256_max_ps
#define LL_SET1 _mm256_set1_ps
#define LL_LOAD _mm256_loadu_ps
#define LL_ZERO _mm256_setzero_ps
#define LL_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OS)
#define LL_LT(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OS)
#define LL_ABS(a) _mm256_and_ps((a), _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)))
#define LL_OR _mm256_or_ps
#define LL_ANDNOT _mm256_andnot_ps
#define LL_SELECT(m, a, b) _mm256_blendv_ps((b), (a), (m))
#define LL_BITS(m) ((uint32_t)_mm256_movemask_ps(m))
#define LL_FALSE _mm256_setzero_ps()
#else
#error "MC_LL_KIND must be 1 or 2"
#endif
#define LL_N (16 / LL_W) // registers per leaf
// Registers holding a leaf's first `count` lanes: the loops below skip the others (their lanes are never valid, so the
// keep bits and bounds are the same; a third of a part's leaves on a plate have 8 triangles or fewer).
#define LL_REGS(count) ((int)(((count) + LL_W - 1u) / LL_W))

// The 15-axis test of box_overlap, one box pair per lane: a (rows a[3i + c]), extents ea, against b (rows b[3k + c]),
// extents eb, both in a's mesh frame, with d = b's center - a's center (formed in double, as the boxes may lie far
// from the origin, then rounded to float). Rounding: with unit axes every float product sum below has a relative
// error of at most gamma_3 ~ 1.8e-7 of the sum of its terms' magnitudes, and the terms are bounded by |d|_1 and the
// extents, so each computed distance and radius is within ~1.5e-6 (|d|_1 + sum of extents) of its exact value on the
// stored boxes (including the rounding of b's mapped axes to float, which moves b's corners by < 2e-7 times its
// extents); with the 3.6e-7 of the float axes' non-orthonormality (see mc_collide) that is < 2e-6, and the slack
// box_rel_slack = 1e-5 (computed here in float: its own rounding, ~1e-7 relative, is far inside the margin) leaves a
// factor of 5. @return the bits of the lanes where an axis separates.
MC_LL_TARGET static inline uint32_t MC_LL(sat)(const collide_ctx* cx, const MC_LL(vec) a[9], const MC_LL(vec) ea[3],
                                               const MC_LL(vec) b[9], const MC_LL(vec) eb[3], const MC_LL(vec) d[3])
{
    MC_LL(vec) t[3], r[3][3], ar[3][3];
    for (int i = 0; i < 3; ++i)
    {
        t[i] = LL_ADD(LL_ADD(LL_MUL(a[3 * i], d[0]), LL_MUL(a[3 * i + 1], d[1])), LL_MUL(a[3 * i + 2], d[2]));
        for (int k = 0; k < 3; ++k)
        {
            r[i][k] = LL_ADD(LL_ADD(LL_MUL(a[3 * i], b[3 * k]), LL_MUL(a[3 * i + 1], b[3 * k + 1])),
                             LL_MUL(a[3 * i + 2], b[3 * k + 2]));
            ar[i][k] = LL_ABS(r[i][k]);
        }
    }
    MC_LL(vec)
    mag = LL_ADD(LL_ADD(LL_ABS(d[0]), LL_ADD(LL_ABS(d[1]), LL_ABS(d[2]))),
                 LL_ADD(LL_ADD(ea[0], LL_ADD(ea[1], ea[2])), LL_ADD(eb[0], LL_ADD(eb[1], eb[2]))));
    MC_LL(vec) slack = LL_ADD(LL_MUL(LL_SET1(cx->slack_rel_f), mag), LL_SET1(cx->slack_abs_f));
    MC_LL(mask) sep = LL_FALSE;
    // Axes of a: |t_i| > ea_i + sum_k eb_k |R_ik|.
    for (int i = 0; i < 3; ++i)
    {
        MC_LL(vec)
        rad = LL_ADD(LL_ADD(ea[i], LL_MUL(eb[0], ar[i][0])), LL_ADD(LL_MUL(eb[1], ar[i][1]), LL_MUL(eb[2], ar[i][2])));
        sep = LL_OR(sep, LL_GT(LL_ABS(t[i]), LL_ADD(rad, slack)));
    }
    // Axes of b: |b_k . d| > eb_k + sum_i ea_i |R_ik|.
    for (int k = 0; k < 3; ++k)
    {
        MC_LL(vec) tb = LL_ADD(LL_ADD(LL_MUL(b[3 * k], d[0]), LL_MUL(b[3 * k + 1], d[1])), LL_MUL(b[3 * k + 2], d[2]));
        MC_LL(vec)
        rad = LL_ADD(LL_ADD(eb[k], LL_MUL(ea[0], ar[0][k])), LL_ADD(LL_MUL(ea[1], ar[1][k]), LL_MUL(ea[2], ar[2][k])));
        sep = LL_OR(sep, LL_GT(LL_ABS(tb), LL_ADD(rad, slack)));
    }
    // a_i x b_k: |t_i2 R_i1k - t_i1 R_i2k| > ea_i1 |R_i2k| + ea_i2 |R_i1k| + eb_k1 |R_ik2| + eb_k2 |R_ik1|.
    for (int i = 0; i < 3; ++i)
    {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int k = 0; k < 3; ++k)
        {
            int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            MC_LL(vec) dist = LL_ABS(LL_SUB(LL_MUL(t[i2], r[i1][k]), LL_MUL(t[i1], r[i2][k])));
            MC_LL(vec)
            rad = LL_ADD(LL_ADD(LL_MUL(ea[i1], ar[i2][k]), LL_MUL(ea[i2], ar[i1][k])),
                         LL_ADD(LL_MUL(eb[k1], ar[i][k2]), LL_MUL(eb[k2], ar[i][k1])));
            sep = LL_OR(sep, LL_GT(dist, LL_ADD(rad, slack)));
        }
    }
    return LL_BITS(sep);
}

// Lanes [0, count) of register j: lane index < count, compared in float (exact for 0..16).
MC_LL_TARGET static inline MC_LL(mask) MC_LL(lanes_below)(int j, uint32_t count)
{
    static const float index[16] = {0.0f, 1.0f, 2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  7.0f,
                                    8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f};
    return LL_LT(LL_LOAD(index + LL_W * j), LL_SET1((float)count));
}

// The triangles of one leaf (tri_local components at `loc`, `count` lanes) against a box b given with the leaf's
// culling data lc (both in the box's mesh frame): the same test as the leaf-local culling described at leaf_cull (the
// box's face axes), lane by lane. x receives the leaf's vertices as offsets from the box center (x[3 v + c]), valid
// the lanes of the kept triangles. @return the keep bits (bit t: triangle t of the leaf may meet the box).
MC_LL_TARGET static inline uint32_t MC_LL(cull)(const float* loc, size_t stride, uint32_t count, const lane_box* b,
                                                const leaf_cull* lc, MC_LL(vec) x[9][LL_N], MC_LL(mask) valid[LL_N])
{
    float ax[3][4], d[4], lim[4];
    _mm_storeu_ps(ax[0], b->row[0]);
    _mm_storeu_ps(ax[1], b->row[1]);
    _mm_storeu_ps(ax[2], b->row[2]);
    _mm_storeu_ps(d, lc->d);
    _mm_storeu_ps(lim, lc->lim);
    uint32_t keep = 0;
    for (int j = 0; j < LL_REGS(count); ++j)
    {
        for (int q = 0; q < 9; ++q)
        {
            x[q][j] = LL_ADD(LL_SET1(d[q % 3]), LL_LOAD(loc + (size_t)q * stride + LL_W * j));
        }
        MC_LL(mask) out = LL_FALSE;
        for (int k = 0; k < 3; ++k)
        {
            MC_LL(vec) a0 = LL_SET1(ax[k][0]), a1 = LL_SET1(ax[k][1]), a2 = LL_SET1(ax[k][2]);
            MC_LL(vec) p[3];
            for (int v = 0; v < 3; ++v)
            {
                p[v] =
                    LL_ADD(LL_ADD(LL_MUL(a0, x[3 * v][j]), LL_MUL(a1, x[3 * v + 1][j])), LL_MUL(a2, x[3 * v + 2][j]));
            }
            MC_LL(vec) lo = LL_MIN(LL_MIN(p[0], p[1]), p[2]);
            MC_LL(vec) hi = LL_MAX(LL_MAX(p[0], p[1]), p[2]);
            MC_LL(vec) l = LL_SET1(lim[k]);
            out = LL_OR(out, LL_OR(LL_GT(lo, l), LL_LT(hi, LL_SUB(LL_ZERO(), l))));
        }
        valid[j] = LL_ANDNOT(out, MC_LL(lanes_below)(j, count));
        keep |= LL_BITS(valid[j]) << (LL_W * j);
    }
    return keep;
}

// Bounding box (lo, hi) of the valid lanes' vertices x (cull's, `count` lanes) rotated by the float rotation J -> I:
// offsets from the box center in I's frame. Minima and maxima are exact, so the order of the reduction does not matter.
MC_LL_TARGET static inline void MC_LL(rotated_bounds)(const collide_ctx* cx, MC_LL(vec) x[9][LL_N],
                                                      const MC_LL(mask) valid[LL_N], uint32_t count, float lo[3],
                                                      float hi[3])
{
    float rc[3][4];
    _mm_storeu_ps(rc[0], cx->map_cols[0][0]); // rc[c][r] = rot[r][c]
    _mm_storeu_ps(rc[1], cx->map_cols[0][1]);
    _mm_storeu_ps(rc[2], cx->map_cols[0][2]);
    for (int r = 0; r < 3; ++r)
    {
        MC_LL(vec) r0 = LL_SET1(rc[0][r]), r1 = LL_SET1(rc[1][r]), r2 = LL_SET1(rc[2][r]);
        MC_LL(vec) mn = LL_SET1(INFINITY), mx = LL_SET1(-INFINITY);
        for (int j = 0; j < LL_REGS(count); ++j)
        {
            MC_LL(vec) y[3];
            for (int v = 0; v < 3; ++v)
            {
                y[v] =
                    LL_ADD(LL_ADD(LL_MUL(r0, x[3 * v][j]), LL_MUL(r1, x[3 * v + 1][j])), LL_MUL(r2, x[3 * v + 2][j]));
            }
            mn = LL_MIN(mn, LL_SELECT(valid[j], LL_MIN(LL_MIN(y[0], y[1]), y[2]), LL_SET1(INFINITY)));
            mx = LL_MAX(mx, LL_SELECT(valid[j], LL_MAX(LL_MAX(y[0], y[1]), y[2]), LL_SET1(-INFINITY)));
        }
        // Across the lanes by halves (a zero's sign may differ from a left-to-right scan's; the caller's uses, the
        // bounds less or plus a positive slack and their magnitudes, do not see it).
#if MC_LL_KIND == 1
        __m128 m4 = mn, x4 = mx;
#else
        __m128 m4 = _mm_min_ps(_mm256_castps256_ps128(mn), _mm256_extractf128_ps(mn, 1));
        __m128 x4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
#endif
        m4 = _mm_min_ps(m4, _mm_shuffle_ps(m4, m4, 0x4e));
        x4 = _mm_max_ps(x4, _mm_shuffle_ps(x4, x4, 0x4e));
        m4 = _mm_min_ps(m4, _mm_shuffle_ps(m4, m4, 0xb1));
        x4 = _mm_max_ps(x4, _mm_shuffle_ps(x4, x4, 0xb1));
        lo[r] = _mm_cvtss_f32(m4);
        hi[r] = _mm_cvtss_f32(x4);
    }
}

// The triangles of one leaf (tri_local components at `loc`, offsets from the leaf's center) that meet the box
// [lo, hi] given in the same offsets. @return their bits.
MC_LL_TARGET static inline uint32_t MC_LL(inside)(const float* loc, size_t stride, uint32_t count, const float lo[3],
                                                  const float hi[3])
{
    uint32_t keep = 0;
    for (int j = 0; j < LL_REGS(count); ++j)
    {
        MC_LL(mask) out = LL_FALSE;
        for (int c = 0; c < 3; ++c)
        {
            MC_LL(vec) v0 = LL_LOAD(loc + (size_t)c * stride + LL_W * j);
            MC_LL(vec) v1 = LL_LOAD(loc + (size_t)(3 + c) * stride + LL_W * j);
            MC_LL(vec) v2 = LL_LOAD(loc + (size_t)(6 + c) * stride + LL_W * j);
            MC_LL(vec) mn = LL_MIN(LL_MIN(v0, v1), v2), mx = LL_MAX(LL_MAX(v0, v1), v2);
            out = LL_OR(out, LL_OR(LL_GT(mn, LL_SET1(hi[c])), LL_LT(mx, LL_SET1(lo[c]))));
        }
        keep |= LL_BITS(LL_ANDNOT(out, MC_LL(lanes_below)(j, count))) << (LL_W * j);
    }
    return keep;
}

// Leaf against leaf: conservative culling before the exact tests, each step only removing triangles that cannot meet
// any triangle left on the other side:
// 1. J's triangles against A's box (J frame, leaf-local floats).
// 2. The float bounding box of the survivors in I's frame (relative to A's center), widened by a slack covering every
//    rounding involved; I's triangles (leaf-local floats, relative to A's center) against it. Rounding: J's offsets
//    x = fl(d + fl(p - c_B)) err by < 2^-23 (|d|_1 + |p - c_B|_1) per component, |p - c_B|_1 < 2 sum e_B; the float
//    rotation (entries within 2^-24 of the exact ones, sums of three products) adds < 2^-21 |x|_1; I's offsets err by
//    < 2^-24 * 2 sum e_A. All < 1e-6 (|d|_1 + 2 sum e_A + 2 sum e_B + |lo|_1 + |hi|_1), a tenth of box_rel_slack times
//    the same sum; the exact image of a J vertex differs from the J vertex the triangle tests use by < abs_slack.
// 3. I's survivors against B's box (I frame, leaf-local floats).
// 4. leaf_exact: exact bounding boxes and the exact triangle tests.
MC_LL_TARGET static void MC_LL(leaf_pairs)(const collide_ctx* cx, pair_worker* w, const mc_bvh_node* na,
                                           const mc_bvh_node* nb)
{
    const mc_bvh* ta = cx->ta;
    const mc_bvh* tb = cx->tb;
    uint32_t fa = mc_bvh_leaf_first(na), ca = mc_bvh_leaf_count(na);
    uint32_t fb = mc_bvh_leaf_first(nb), cb = mc_bvh_leaf_count(nb);
    size_t stride_a = mc_bvh_local_stride(ta->triangle_count), stride_b = mc_bvh_local_stride(tb->triangle_count);
    leaf_a_cache* cache = leaf_a_get(cx, w, (uint32_t)(na - ta->nodes));
    if (!cache->boxed)
    {
        lane_box_map(cx, na, 0, &cache->box);
        cache->boxed = 1;
    }
    const lane_box* oa = &cache->box;
    leaf_cull cull_b;
    leaf_cull_make(cx, nb, oa, &cull_b);
    MC_LL(vec) x[9][LL_N];
    MC_LL(mask) valid[LL_N];
    uint32_t keep_b = MC_LL(cull)(tb->tri_local + fb, stride_b, cb, oa, &cull_b, x, valid);
    if (keep_b == 0)
    {
        return;
    }
    float lo[3], hi[3];
    MC_LL(rotated_bounds)(cx, x, valid, cb, lo, hi);
    double mag = 0.0, ext = 0.0;
    for (int c = 0; c < 3; ++c)
    {
        mag += fabs((double)nb->center[c] - oa->c[c]) + fabs((double)lo[c]) + fabs((double)hi[c]);
        ext += (double)na->extent[c] + (double)nb->extent[c];
    }
    double slack = cx->box_rel_slack * (mag + 2.0 * ext) + cx->abs_slack;
    float alo[3], ahi[3];
    for (int c = 0; c < 3; ++c)
    {
        alo[c] = (float)((double)lo[c] - slack);
        ahi[c] = (float)((double)hi[c] + slack);
    }
    uint32_t keep_a = MC_LL(inside)(ta->tri_local + fa, stride_a, ca, alo, ahi);
    if (keep_a == 0)
    {
        return;
    }
    // Step 3 only when I's leaf is not far larger than J's (SKIP_BOX_LEAF_RATIO): large triangles against a small box
    // are rarely apart on one of its face axes, and the exact stage's bounding boxes remove what step 2 let through.
    if (node_size(na) <= SKIP_BOX_LEAF_RATIO * node_size(nb))
    {
        lane_box ob;
        lane_box_map(cx, nb, 1, &ob);
        leaf_cull cull_a;
        leaf_cull_make(cx, na, &ob, &cull_a);
        keep_a &= MC_LL(cull)(ta->tri_local + fa, stride_a, ca, &ob, &cull_a, x, valid);
        if (keep_a == 0)
        {
            return;
        }
    }
    leaf_exact(cx, w, na, nb, keep_a, keep_b);
}

#undef LL_W
#undef LL_N
#undef LL_REGS
#undef LL_ADD
#undef LL_SUB
#undef LL_MUL
#undef LL_MIN
#undef LL_MAX
#undef LL_SET1
#undef LL_LOAD
#undef LL_ZERO
#undef LL_GT
#undef LL_LT
#undef LL_ABS
#undef LL_OR
#undef LL_ANDNOT
#undef LL_SELECT
#undef LL_BITS
#undef LL_FALSE
#undef MC_LL
#undef MC_LL_TARGET
#undef MC_LL_KIND
