// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Steps 2 to 5 of the exact triangle-triangle test of tri_tri.c (the interval ordering on the planes' common line and
// the crossing points), inline: tri_tri.c's entry points use them, and so does the pair stage's lane loop
// (bvh/bvh_collide.c), which decides step 1 itself and would otherwise pay a call per triangle pair. The rule, the
// steps and their proofs are at the top of tri_tri.h and tri_tri.c.
#pragma once

#include "src/base/predicates.h"
#include "src/base/tri_tri.h"

#include <math.h>
#include <stdint.h>

/// Sign (+1 or -1) of orient(p, q, w, s) for an edge (p, q) of I and an edge (w, s) of J whose filter was
/// inconclusive: exact, then R2 (tri_tri.h) when exactly zero (and *degenerate set to 1). Never 0 for two edges that
/// straddle each other's planes (R4).
int mc_tri_tri_edge_edge_exact(const mc_vec3* p, const mc_vec3* q, const mc_vec3* w, const mc_vec3* s,
                               uint8_t* degenerate);

static inline int sign_of(double v)
{
    return (v > 0.0) - (v < 0.0);
}

static inline int lex_less(const mc_vec3* a, const mc_vec3* b)
{
    if (a->x != b->x)
    {
        return a->x < b->x;
    }
    if (a->y != b->y)
    {
        return a->y < b->y;
    }
    return a->z < b->z;
}

/// Floating-point orient(a, b, c, d) of point d against the plane of `pl` (mc_tri_plane_init: a, b, c, their normal and
/// filter sums) and its filter bound (INFINITY when the permanent is too small to trust): the operations of
/// mc_orient3d_adapt's filter, so |value - exact| <= *bound. The plane tests of tri_tri.c use it, and so does the pair
/// stage when it recomputes a crossing's plane values (bvh/bvh_collide.c): bitwise the same values.
static inline double mc_tri_plane_eval(const mc_tri_plane* pl, const mc_vec3* d, double* bound)
{
    double cx = d->x - pl->v[0].x, cy = d->y - pl->v[0].y, cz = d->z - pl->v[0].z;
    double det = pl->n[0] * cx + pl->n[1] * cy + pl->n[2] * cz;
    double perm = pl->perm[0] * fabs(cx) + pl->perm[1] * fabs(cy) + pl->perm[2] * fabs(cz);
    *bound = perm >= MC_PRED_MIN_PERMANENT ? MC_PRED_O3D_BOUND * perm : INFINITY;
    return det;
}

/// Is orient(a, b, c, d) exactly zero by its filter's permanent alone? When the permanent (mc_tri_plane_eval) is
/// exactly zero, every term has a zero factor: in the predicates' exactness range (predicates.h) a product of non-zero
/// coordinate differences never underflows to zero and a rounded difference is zero only for equal coordinates. Flush
/// faces in a coordinate plane (CAD caps) meet this all the time; it spares them the exact expansion arithmetic.
static inline int mc_tri_plane_exactly_zero(const mc_tri_plane* pl, const mc_vec3* d)
{
    double cx = d->x - pl->v[0].x, cy = d->y - pl->v[0].y, cz = d->z - pl->v[0].z;
    return pl->perm[0] * fabs(cx) + pl->perm[1] * fabs(cy) + pl->perm[2] * fabs(cz) == 0.0;
}

/// mc_cross_first_sign of the triangle's own normal (b - a) x (c - a) (the sign R1 of tri_tri.h takes), from the
/// stored normal and sums where they decide it (the operations of mc_cross_component_sign, so the same filter holds:
/// a component whose two products are zero is exactly zero, one beyond its bound has the stored sign), else exact.
static inline int mc_tri_plane_first_sign(const mc_tri_plane* pl)
{
    for (int k = 0; k < 3; ++k)
    {
        double bound = 4.0 * 0x1p-53 * pl->perm[k];
        int s;
        if (fabs(pl->n[k]) > bound && bound >= MC_PRED_MIN_PERMANENT)
        {
            s = sign_of(pl->n[k]);
        }
        else if (pl->perm[k] == 0.0)
        {
            s = 0;
        }
        else
        {
            s = mc_cross_component_sign(&pl->v[0], &pl->v[1], &pl->v[0], &pl->v[2], k);
        }
        if (s != 0)
        {
            return s;
        }
    }
    return 0;
}

// Crossing point of edge (p0, p1) with a plane, from the (sign-correct) plane values o0, o1 of its ends.
static inline mc_vec3 crossing_point(const mc_vec3* p0, const mc_vec3* p1, double o0, double o1)
{
    if (lex_less(p1, p0))
    {
        const mc_vec3* tp = p0;
        p0 = p1;
        p1 = tp;
        double to = o0;
        o0 = o1;
        o1 = to;
    }
    double den = o0 - o1;
    double t = den != 0.0 ? o0 / den : 0.5;
    if (!(t > 0.0))
    {
        return *p0;
    }
    if (t >= 1.0)
    {
        return *p1;
    }
    return mc_v3(p0->x + t * (p1->x - p0->x), p0->y + t * (p1->y - p0->y), p0->z + t * (p1->z - p0->z));
}

// Perturbed sign of orient(p, q, w, s) = A . (B x C) (A = q - p, B = w - p, C = s - p), p q of I and w s of J,
// from its floating-point value and filter bound.
static inline int edge_edge_resolve(double det, double bound, const mc_vec3* p, const mc_vec3* q, const mc_vec3* w,
                                    const mc_vec3* s, uint8_t* degenerate)
{
    if (fabs(det) > bound)
    {
        return det > 0.0 ? 1 : -1; // det != 0 here (bound >= 0)
    }
    return mc_tri_tri_edge_edge_exact(p, q, w, s, degenerate);
}

// One end of the intersection segment: edge `edge` of triangle t (of `body`, orient values o against the other
// triangle's plane) crossing the other triangle in direction `entering`.
static inline void set_crossing(mc_crossing* cr, const mc_vec3 t[3], const double o[3], int body, int edge,
                                int entering, uint8_t degenerate)
{
    int e1 = edge == 2 ? 0 : edge + 1;
    cr->body = (uint8_t)body;
    cr->edge = (uint8_t)edge;
    cr->entering = (int8_t)entering;
    cr->point = crossing_point(&t[edge], &t[e1], o[edge], o[e1]);
    cr->degenerate = degenerate;
}

/// B x C of an edge-edge orient (B = w - p, C = s - p) with the per-component sums of its products' magnitudes.
typedef struct edge_cross
{
    double mx, my, mz; // B x C
    double gx, gy, gz; // |products| summed per component (filter)
} edge_cross;

static inline edge_cross edge_cross_make(mc_vec3 b, const mc_vec3* s, const mc_vec3* p)
{
    double cx = s->x - p->x, cy = s->y - p->y, cz = s->z - p->z;
    double p1 = b.y * cz, p2 = b.z * cy, p3 = b.z * cx, p4 = b.x * cz, p5 = b.x * cy, p6 = b.y * cx;
    edge_cross e = {p1 - p2, p3 - p4, p5 - p6, fabs(p1) + fabs(p2), fabs(p3) + fabs(p4), fabs(p5) + fabs(p6)};
    return e;
}

// Perturbed sign of orient(p, q, w, s) = A . (B x C) with A = q - p and B x C in m: filtered, exact when the filter
// is inconclusive.
static inline int edge_cmp(mc_vec3 a, const edge_cross* m, const mc_vec3* p, const mc_vec3* q, const mc_vec3* w,
                           const mc_vec3* s, uint8_t* degenerate)
{
    double det = a.x * m->mx + a.y * m->my + a.z * m->mz;
    double perm = fabs(a.x) * m->gx + fabs(a.y) * m->gy + fabs(a.z) * m->gz;
    double bound = perm >= MC_PRED_MIN_PERMANENT ? MC_PRED_O3D_BOUND * perm : INFINITY;
    return edge_edge_resolve(det, bound, p, q, w, s, degenerate);
}

// Steps 3 to 5 of the pair test, once step 2 has found the lonely vertices: ti[k] alone on side sp (+1 or -1) of J's
// plane, tj[m] alone on side sw of I's plane; oi, oj are the orient values the signs came from (exact values where the
// filter was inconclusive), deg records an exactly zero determinant so far. Inlined into every entry point.
__attribute__((always_inline)) static inline int crossings_from_lonely(const mc_vec3 ti[3], const double oi[3], int k,
                                                                       int sp, const mc_vec3 tj[3], const double oj[3],
                                                                       int m, int sw, uint8_t deg, mc_crossing out[2])
{
    int k1 = k == 2 ? 0 : k + 1, k2 = k == 0 ? 2 : k - 1;
    int m1 = m == 2 ? 0 : m + 1, m2 = m == 0 ? 2 : m - 1;

    // 4. Interval ends, named first: X_a lies on I's edge (p, q_a) with q_0 = ti[k1], q_1 = ti[k2], and
    // D . (X_1 - X_0) has sign -sp, so the low end X_lo is X_1 when sp > 0; likewise Y_b on J's edge (w, s_b) with
    // s_0 = tj[m1], s_1 = tj[m2], and D . (Y_1 - Y_0) has sign +sw, so Y_lo is Y_0 when sw > 0.
    int xlo = sp > 0 ? 1 : 0, ylo = sw > 0 ? 0 : 1;
    const mc_vec3* p = &ti[k];
    const mc_vec3* q_lo = &ti[xlo ? k2 : k1];
    const mc_vec3* q_hi = &ti[xlo ? k1 : k2];
    const mc_vec3* w = &tj[m];
    const mc_vec3* s_lo = &tj[ylo ? m2 : m1];
    const mc_vec3* s_hi = &tj[ylo ? m1 : m2];

    // 3. orient(p, q, w, s) = A . (B x C) with A = q - p, B = w - p, C = s - p: the cross products B x C of both J
    // ends with their filter sums, then one dot product per comparison (edge_cmp).
    mc_vec3 a_lo = mc_v3(q_lo->x - p->x, q_lo->y - p->y, q_lo->z - p->z);
    mc_vec3 a_hi = mc_v3(q_hi->x - p->x, q_hi->y - p->y, q_hi->z - p->z);
    mc_vec3 b = mc_v3(w->x - p->x, w->y - p->y, w->z - p->z);
    edge_cross m_lo = edge_cross_make(b, s_lo, p), m_hi = edge_cross_make(b, s_hi, p);

    // 5. Overlap and ends; cmp = sign(D . (Y - X)) = sign(orient(p, q, w, s)) * sp * sw.
    int spw = sp * sw;
    if (edge_cmp(a_lo, &m_hi, p, q_lo, w, s_hi, &deg) * spw < 0) // need Xlo < Yhi
    {
        return 0;
    }
    if (edge_cmp(a_hi, &m_lo, p, q_hi, w, s_lo, &deg) * spw > 0) // need Ylo < Xhi
    {
        return 0;
    }
    int c_lo = edge_cmp(a_lo, &m_lo, p, q_lo, w, s_lo, &deg) * spw; // > 0: Xlo < Ylo, the segment starts at Ylo
    int c_hi = edge_cmp(a_hi, &m_hi, p, q_hi, w, s_hi, &deg) * spw; // > 0: Xhi < Yhi, the segment ends at Xhi

    // An end X_a lies on I's edge k (p -> q_0, entering = sp) or k2 (q_1 -> p, entering = -sp); an end Y_b on J's
    // edge m or m2 likewise with sw.
    if (c_lo < 0)
    {
        set_crossing(&out[0], ti, oi, 0, xlo == 0 ? k : k2, xlo == 0 ? sp : -sp, deg);
    }
    else
    {
        set_crossing(&out[0], tj, oj, 1, ylo == 0 ? m : m2, ylo == 0 ? sw : -sw, deg);
    }
    if (c_hi > 0)
    {
        set_crossing(&out[1], ti, oi, 0, xlo == 1 ? k : k2, xlo == 1 ? sp : -sp, deg);
    }
    else
    {
        set_crossing(&out[1], tj, oj, 1, ylo == 1 ? m : m2, ylo == 1 ? sw : -sw, deg);
    }
    return 2;
}

// The result of crossings_from_lonely (with deg 0) for a pair whose segment lies strictly inside I's triangle: both
// ends are J's edges crossing I's plane (J's lonely corner tj[m], on side sw of I's plane, oj its plane values), so
// X_lo < Y_lo < Y_hi < X_hi along the planes' common line and every comparison of step 5 is decided (R4: nonzero, so
// with no degenerate tie). A caller that has proven the inclusion (the pair stage's inside test, bvh/bvh_collide.c)
// takes this instead of the four comparisons: the same crossings, bit for bit.
static inline void crossings_on_j_edges(const mc_vec3 tj[3], const double oj[3], int m, int sw, mc_crossing out[2])
{
    int m2 = m == 0 ? 2 : m - 1;
    // Y_lo is on edge m (w -> s_0, entering sw) when sw > 0, else on edge m2 (s_1 -> w, entering -sw): entering +1
    // either way; Y_hi on the other, entering -1.
    set_crossing(&out[0], tj, oj, 1, sw > 0 ? m : m2, 1, 0);
    set_crossing(&out[1], tj, oj, 1, sw > 0 ? m2 : m, -1, 0);
}

// Steps 2 to 5 of the pair test, once the six plane signs are known: si, sj straddle (not all equal, none 0), oi, oj
// are the orient values they came from (exact values where the filter was inconclusive), deg records an exactly zero
// determinant so far.
__attribute__((always_inline)) static inline int crossings_from_sides(const mc_vec3 ti[3], const double oi[3],
                                                                      const int si[3], const mc_vec3 tj[3],
                                                                      const double oj[3], const int sj[3], uint8_t deg,
                                                                      mc_crossing out[2])
{
    // 2. The lonely vertices.
    int k = si[0] == si[1] ? 2 : (si[0] == si[2] ? 1 : 0);
    int m = sj[0] == sj[1] ? 2 : (sj[0] == sj[2] ? 1 : 0);
    return crossings_from_lonely(ti, oi, k, si[k], tj, oj, m, sj[m], deg, out);
}
