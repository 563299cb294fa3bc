// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact edge-triangle and triangle-triangle crossings under the symbolic rule of tri_tri.h.
// Based on: O. Devillers, P. Guigue, "Faster Triangle-Triangle Intersection Tests", INRIA RR-4488, 2002 (ordering
// the two triangles' intervals on the planes' common line with orientation signs), re-derived here.
//
// mc_tri_tri_crossings, step by step (signs are those of the perturbed configuration, never 0):
// 1. The three vertices of I against the plane of J (filtered orient, exact and R1 only when needed); all on one
//    side: no crossing. Same for the vertices of J against the plane of I.
// 2. Each triangle now has one vertex alone on its side of the other's plane: p = ti[k] (sign sp) and w = tj[m]
//    (sign sw). The straddling edges are p-q1, p-q2 of I (q1 = ti[k+1], q2 = ti[k+2]) and w-w1, w-w2 of J; they meet
//    the line L common to both planes at X1, X2 and Y1, Y2.
// 3. Order along D = ni x nj. For X on line (p, q) and Y on line (w, s), with u = q - p, v = s - w:
//    orient(p, q, w, s) = det[u, Y - X, v] = (Y - X) . (v x u), and with Y - X = lambda D, Binet-Cauchy gives
//    D . (v x u) = (ni . v)(nj . u) - (ni . u)(nj . v) = (ni . v)(nj . u) (u lies in plane I, v in plane J).
//    sign(nj . u) = -sp and sign(ni . v) = -sw, so sign(D . (Y - X)) = sign(orient(p, q, w, s)) * sp * sw.
// 4. The triangle (p, X1, X2) has I's orientation, so p is left of X1 -> X2 seen along ni, which gives
//    sign(D . (X2 - X1)) = -sp; symmetrically sign(D . (Y2 - Y1)) = +sw. This fixes each interval's low and high
//    end without any determinant.
// 5. The intervals overlap iff Xlo < Yhi and Ylo < Xhi (two determinants; strict, no ties under the rule). The
//    segment then runs from max(Xlo, Ylo) to min(Xhi, Yhi) (two more determinants). Each end is an edge of one
//    triangle crossing the other; its direction follows from the end signs (R3).
// Each orient is evaluated at most once; 6 plane tests + at most 4 edge-edge tests per pair.
#include "src/base/tri_tri.h"

#include "src/base/core.h"
#include "src/base/predicates.h"
#include "src/base/tri_tri_sides.h"

#include <math.h>

// The test on prepared planes (the pair stage's hot call) gets a second clone compiled for x86-64-v3, picked once at
// load time by GCC's target_clones (ifunc): its three-operand AVX forms need fewer register copies. Both clones
// compute the same values: the same IEEE operations in the same order (the build uses -ffp-contract=off, so nothing
// is fused; the exact fallbacks are calls into predicates.c, not cloned). Single version elsewhere and under
// sanitizers.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 &&         \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MC_TRI_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MC_TRI_CLONES
#endif

// Floating-point orient(a, b, c, d) and its filter bound (infinite when the permanent is too small to trust), from the
// triangle's mc_tri_plane (tri_tri_sides.h's mc_tri_plane_eval: the same operations as mc_orient3d_adapt, so values
// agree bitwise).
static inline double plane_eval(const mc_tri_plane* pl, const mc_vec3* d, double* bound)
{
    return mc_tri_plane_eval(pl, d, bound);
}

// Resolve a plane value: exact when the filter failed, then R1 when exactly zero. `normal_sign` caches the sign of
// the first non-zero component of the exact normal (0: not computed yet). Returns the perturbed sign; *value is
// replaced by the exact value (rounded) when the filter failed.
static int plane_resolve_exact(const mc_tri_plane* pl, const mc_vec3* d, double* value, int point_body,
                               int* normal_sign, uint8_t* degenerate)
{
    double v = mc_tri_plane_exactly_zero(pl, d) ? 0.0 : mc_orient3d_exact(&pl->v[0], &pl->v[1], &pl->v[2], d);
    *value = v;
    if (v != 0.0)
    {
        return sign_of(v);
    }
    *degenerate = 1;
    if (*normal_sign == 0)
    {
        // 0 again for an exactly degenerate triangle (see degenerate_pair); recomputed then, which is rare.
        *normal_sign = mc_tri_plane_first_sign(pl);
    }
    return point_body == 1 ? *normal_sign : -*normal_sign;
}

static inline int plane_resolve(const mc_tri_plane* pl, const mc_vec3* d, double* value, double bound, int point_body,
                                int* normal_sign, uint8_t* degenerate)
{
    if (fabs(*value) > bound)
    {
        return sign_of(*value);
    }
    return plane_resolve_exact(pl, d, value, point_body, normal_sign, degenerate);
}

int mc_sym_orient_point_plane(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d, int point_body,
                              uint8_t* degenerate)
{
    mc_tri_plane pl;
    mc_tri_plane_init(&pl, *a, *b, *c);
    double bound;
    double value = plane_eval(&pl, d, &bound);
    int normal_sign = 0;
    uint8_t deg = 0;
    int s = plane_resolve(&pl, d, &value, bound, point_body, &normal_sign, &deg);
    if (deg && degenerate)
    {
        *degenerate = 1;
    }
    return s;
}

// R2 for an exactly zero orient(p0, p1, a, b), p0 p1 of body edge_body and a b of the other body.
static int edge_edge_symbolic(const mc_vec3* p0, const mc_vec3* p1, const mc_vec3* a, const mc_vec3* b, int edge_body)
{
    // edge_body 0: (p0, p1) in I, (a, b) in J: + delta . ((b - a) x (p1 - p0)).
    // edge_body 1: (p0, p1) in J, (a, b) in I: orient(a, b, p0 + d, p1 + d) adds delta . ((p1 - p0) x (b - a)).
    return edge_body == 0 ? mc_cross_first_sign(a, b, p0, p1) : mc_cross_first_sign(p0, p1, a, b);
}

int mc_sym_orient_edge_edge(const mc_vec3* p0, const mc_vec3* p1, const mc_vec3* a, const mc_vec3* b, int edge_body,
                            uint8_t* degenerate)
{
    double v = mc_orient3d_adapt(p0, p1, a, b);
    if (v != 0.0)
    {
        return sign_of(v);
    }
    if (degenerate)
    {
        *degenerate = 1;
    }
    return edge_edge_symbolic(p0, p1, a, b, edge_body);
}

int mc_edge_triangle_cross(mc_vec3 p0, mc_vec3 p1, mc_vec3 a, mc_vec3 b, mc_vec3 c, int edge_body, mc_vec3* point,
                           uint8_t* degenerate)
{
    uint8_t deg = 0;
    mc_tri_plane pl;
    mc_tri_plane_init(&pl, a, b, c);
    double bound0, bound1;
    double o0 = plane_eval(&pl, &p0, &bound0);
    double o1 = plane_eval(&pl, &p1, &bound1);
    int normal_sign = 0;
    int s0 = plane_resolve(&pl, &p0, &o0, bound0, edge_body, &normal_sign, &deg);
    int s1 = plane_resolve(&pl, &p1, &o1, bound1, edge_body, &normal_sign, &deg);
    int result = 0;
    if (s0 != s1)
    {
        // Inside test: X is inside iff the three edge-edge signs agree (each is lambda_e (p1 - p0) . n with
        // lambda_e > 0 when X is on the inner side of triangle edge e).
        int e0 = mc_sym_orient_edge_edge(&p0, &p1, &a, &b, edge_body, &deg);
        int e1 = mc_sym_orient_edge_edge(&p0, &p1, &b, &c, edge_body, &deg);
        int e2 = mc_sym_orient_edge_edge(&p0, &p1, &c, &a, edge_body, &deg);
        MC_ASSERT(e0 != 0 && e1 != 0 && e2 != 0); // R4
        if (e0 == e1 && e1 == e2)
        {
            result = s0; // R3: entering (+1) iff p0 is on the outward side
            if (point)
            {
                *point = crossing_point(&p0, &p1, o0, o1);
            }
        }
    }
    if (degenerate)
    {
        *degenerate = deg;
    }
    return result;
}

int mc_tri_tri_edge_edge_exact(const mc_vec3* p, const mc_vec3* q, const mc_vec3* w, const mc_vec3* s,
                               uint8_t* degenerate)
{
    double v = mc_orient3d_exact(p, q, w, s);
    if (v != 0.0)
    {
        return sign_of(v);
    }
    *degenerate = 1;
    int r = edge_edge_symbolic(p, q, w, s, 0);
    MC_ASSERT(r != 0); // R4: both edges straddle the other's plane, so they are not parallel
    return r;
}

// Pair with a triangle t that is exactly degenerate (collinear corners, zero normal) in I's frame: a sliver of J can
// become one when the rigid map into I's frame rounds its vertices. Nothing crosses its (empty) interior and every
// point is "on" its plane with a zero perturbation term, so its plane signs are all 0. Its own edges can still cross
// the other triangle: when its line crosses the other triangle's interior (never at a vertex of t, under the rule),
// the crossing point lies on the long edge and on exactly one of the two short ones, so there are 0 or 2 crossings
// and they agree with the pairs of the neighbouring triangles that share those edges.
static int degenerate_pair(const mc_vec3 t[3], const mc_vec3 other[3], int body, mc_crossing out[2])
{
    int n = 0;
    for (int e = 0; e < 3; e++)
    {
        int e1 = e == 2 ? 0 : e + 1;
        mc_vec3 point;
        int r = mc_edge_triangle_cross(t[e], t[e1], other[0], other[1], other[2], body, &point, NULL);
        if (r != 0)
        {
            MC_ASSERT(n < 2);
            if (n < 2)
            {
                out[n].point = point;
                out[n].body = (uint8_t)body;
                out[n].edge = (uint8_t)e;
                out[n].entering = (int8_t)r;
                out[n].degenerate = 1;
            }
            n++;
        }
    }
    MC_ASSERT(n == 0 || n == 2);
    return n == 2 ? 2 : 0;
}

// Stage 1 of the pair test: the vertices of triangle `tri` (of body `point_body`) against `plane` (the plane of a
// triangle of the other body), their orient values in o (exact values where the filter was inconclusive) and their
// perturbed signs in s. @return 0 when all three are on one side (the triangles cannot cross), -1 when the plane's
// triangle is exactly degenerate (every sign 0), 1 when the vertices straddle the plane.
static inline int vertices_against_plane(const mc_tri_plane* plane, const mc_vec3 tri[3], int point_body, double o[3],
                                         int s[3], uint8_t* deg)
{
    double bound[3];
    for (int k = 0; k < 3; k++)
    {
        o[k] = plane_eval(plane, &tri[k], &bound[k]);
    }
    if ((o[0] > bound[0] && o[1] > bound[1] && o[2] > bound[2]) ||
        (o[0] < -bound[0] && o[1] < -bound[1] && o[2] < -bound[2]))
    {
        return 0;
    }
    int normal_sign = 0; // sign of the plane normal's first non-zero component, found when an exact tie needs it
    for (int k = 0; k < 3; k++)
    {
        s[k] = plane_resolve(plane, &tri[k], &o[k], bound[k], point_body, &normal_sign, deg);
    }
    if (s[0] == 0) // then all are
    {
        return -1;
    }
    return s[0] == s[1] && s[1] == s[2] ? 0 : 1;
}

// mc_tri_tri_crossings with the planes given (pi, pj from mc_tri_plane_init) or computed here (NULL); *coplanar (when
// not NULL) set to whether I's corners all lie exactly in J's plane. Inlined into the entry points, so the NULL checks
// fold away.
__attribute__((always_inline)) static inline int crossings(const mc_vec3 ti[3], const mc_tri_plane* pi,
                                                           const mc_vec3 tj[3], const mc_tri_plane* pj,
                                                           mc_crossing out[2], int* coplanar)
{
    uint8_t deg = 0;

    // 1a. Vertices of I against the plane of J; 1b. vertices of J against the plane of I.
    double oi[3], oj[3];
    int si[3], sj[3];
    mc_tri_plane local_i, local_j;
    if (pj == NULL)
    {
        mc_tri_plane_init(&local_j, tj[0], tj[1], tj[2]);
        pj = &local_j;
    }
    int side = vertices_against_plane(pj, ti, 0, oi, si, &deg);
    if (coplanar != NULL)
    {
        // A value within its filter bound was replaced by the exact one: 0.0 exactly when the corner is in the plane.
        *coplanar = side == 0 && oi[0] == 0.0 && oi[1] == 0.0 && oi[2] == 0.0;
    }
    if (side <= 0)
    {
        return side == 0 ? 0 : degenerate_pair(tj, ti, 1, out); // side < 0: J is exactly degenerate in I's frame
    }
    if (pi == NULL)
    {
        mc_tri_plane_init(&local_i, ti[0], ti[1], ti[2]);
        pi = &local_i;
    }
    side = vertices_against_plane(pi, tj, 1, oj, sj, &deg);
    if (side <= 0)
    {
        return side == 0 ? 0 : degenerate_pair(ti, tj, 0, out); // side < 0: I is exactly degenerate
    }
    return crossings_from_sides(ti, oi, si, tj, oj, sj, deg, out);
}

int mc_tri_tri_crossings(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[2])
{
    return crossings(ti, NULL, tj, NULL, out, NULL);
}

MC_TRI_CLONES int mc_tri_tri_crossings_planes(const mc_tri_plane* ti, const mc_tri_plane* tj, mc_crossing out[2])
{
    return crossings(ti->v, ti, tj->v, tj, out, NULL);
}

int mc_tri_tri_crossings_tie(const mc_vec3 ti[3], const mc_vec3 tj[3], mc_crossing out[2], int* coplanar)
{
    return crossings(ti, NULL, tj, NULL, out, coplanar);
}

MC_TRI_CLONES int mc_tri_tri_crossings_planes_tie(const mc_tri_plane* ti, const mc_tri_plane* tj, mc_crossing out[2],
                                                  int* coplanar)
{
    return crossings(ti->v, ti, tj->v, tj, out, coplanar);
}

// Orientation of (a, b, c), points of one plane, seen along coordinate axis `axis`: the sign of that component of
// (b - a) x (c - a), exact.
static inline int orient_in_plane(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, int axis)
{
    // The filter of mc_cross_component_sign inline (the same operations, so the same decisions), the call only when it
    // is inconclusive: flush CAD faces (fanned caps) run these tests by the ten thousand.
    int i = axis == 2 ? 0 : axis + 1, j = axis == 0 ? 2 : axis - 1;
    double ui = (&b->x)[i] - (&a->x)[i], uj = (&b->x)[j] - (&a->x)[j];
    double vi = (&c->x)[i] - (&a->x)[i], vj = (&c->x)[j] - (&a->x)[j];
    double p = ui * vj, q = uj * vi;
    double val = p - q;
    double bound = 4.0 * 0x1p-53 * (fabs(p) + fabs(q));
    if (fabs(val) > bound && bound >= MC_PRED_MIN_PERMANENT)
    {
        return sign_of(val);
    }
    if (p == 0.0 && q == 0.0)
    {
        return 0; // as mc_cross_component_sign: zero factors, exactly zero
    }
    return mc_cross_component_sign(a, b, a, c, axis);
}

int mc_tri_coplanar_axis(const mc_vec3 t[3])
{
    mc_vec3 n = mc_cross(mc_sub(t[1], t[0]), mc_sub(t[2], t[0]));
    double a[3] = {fabs(n.x), fabs(n.y), fabs(n.z)};
    int first = a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2);
    for (int k = 0; k < 3; ++k)
    {
        int axis = (first + k) % 3;
        if (orient_in_plane(&t[0], &t[1], &t[2], axis) != 0)
        {
            return axis;
        }
    }
    return -1;
}

// The smaller and larger of two or three coordinates (plain comparisons: no NaN here, and no call to fmin / fmax).
static inline void min_max2(double a, double b, double* lo, double* hi)
{
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

static inline void min_max3(double a, double b, double c, double* lo, double* hi)
{
    min_max2(a, b, lo, hi);
    *lo = c < *lo ? c : *lo;
    *hi = c > *hi ? c : *hi;
}

// mc_tri_coplanar_overlap with the triangles' in-plane orientations along `axis` (>= 0) given: sp = orient_in_plane(ti,
// axis), sq likewise for tj (or computed here when 2).
static bool coplanar_overlap(const mc_vec3 ti[3], const mc_vec3 tj[3], int axis, int sp, int sq)
{
    // Boxes apart (or touching) along a coordinate: no overlap of the interiors (exact comparisons). A coordinate that
    // is constant over the plane gives equal bounds, which do not count as apart.
    for (int k = 0; k < 3; ++k)
    {
        double alo, ahi, blo, bhi;
        min_max3((&ti[0].x)[k], (&ti[1].x)[k], (&ti[2].x)[k], &alo, &ahi);
        min_max3((&tj[0].x)[k], (&tj[1].x)[k], (&tj[2].x)[k], &blo, &bhi);
        if ((ahi <= blo && alo < ahi) || (bhi <= alo && blo < bhi))
        {
            return false;
        }
    }
    sp = sp == 2 ? orient_in_plane(&ti[0], &ti[1], &ti[2], axis) : sp;
    sq = sq == 2 ? orient_in_plane(&tj[0], &tj[1], &tj[2], axis) : sq;
    if (sp == 0 || sq == 0)
    {
        return false; // no interior
    }
    for (int t = 0; t < 2; ++t)
    {
        const mc_vec3* a = t == 0 ? ti : tj;
        const mc_vec3* o = t == 0 ? tj : ti;
        int s = t == 0 ? sp : sq;
        for (int k = 0; k < 3; ++k)
        {
            int outside = 0; // corners of o on the closed outer side of edge k (stop at the first inside)
            while (outside < 3 && s * orient_in_plane(&a[k], &a[(k + 1) % 3], &o[outside], axis) <= 0)
            {
                ++outside;
            }
            if (outside == 3)
            {
                return false;
            }
        }
    }
    return true;
}

bool mc_tri_coplanar_overlap(const mc_vec3 ti[3], const mc_vec3 tj[3], int axis)
{
    return axis >= 0 && coplanar_overlap(ti, tj, axis, 2, 2);
}

// Exact sign of component k of t's normal (orient_in_plane of its corners along k), from the stored normal and sums
// where they decide it (mc_tri_plane_first_sign's filter), else exact.
static inline int plane_component_sign(const mc_tri_plane* t, int k)
{
    double bound = 4.0 * 0x1p-53 * t->perm[k];
    if (fabs(t->n[k]) > bound && bound >= MC_PRED_MIN_PERMANENT)
    {
        return sign_of(t->n[k]);
    }
    return t->perm[k] == 0.0 ? 0 : mc_cross_component_sign(&t->v[0], &t->v[1], &t->v[0], &t->v[2], k);
}

bool mc_tri_coplanar_overlap_planes(const mc_tri_plane* ti, const mc_tri_plane* tj)
{
    // mc_tri_coplanar_axis(ti->v): the stored normal is its float cross product (the same operations).
    double a[3] = {fabs(ti->n[0]), fabs(ti->n[1]), fabs(ti->n[2])};
    int first = a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2);
    for (int k = 0; k < 3; ++k)
    {
        int axis = (first + k) % 3;
        int sp = plane_component_sign(ti, axis);
        if (sp != 0)
        {
            return coplanar_overlap(ti->v, tj->v, axis, sp, plane_component_sign(tj, axis));
        }
    }
    return false;
}

bool mc_segment_meets_coplanar_triangle(const mc_vec3* e0, const mc_vec3* e1, const mc_vec3 t[3], int axis)
{
    if (axis < 0)
    {
        return false;
    }
    // Boxes strictly apart along a coordinate: no meeting (comparisons of the coordinates themselves: exact).
    for (int k = 0; k < 3; ++k)
    {
        double lo, hi, tlo, thi;
        min_max2((&e0->x)[k], (&e1->x)[k], &lo, &hi);
        min_max3((&t[0].x)[k], (&t[1].x)[k], (&t[2].x)[k], &tlo, &thi);
        if (hi < tlo || lo > thi)
        {
            return false;
        }
    }
    int st = orient_in_plane(&t[0], &t[1], &t[2], axis);
    int s[3];
    for (int k = 0; k < 3; ++k)
    {
        s[k] = orient_in_plane(e0, e1, &t[k], axis);
    }
    if (st == 0 || (s[0] >= 0 && s[1] >= 0 && s[2] >= 0) || (s[0] <= 0 && s[1] <= 0 && s[2] <= 0))
    {
        return false;
    }
    for (int k = 0; k < 3; ++k)
    {
        const mc_vec3* a = &t[k];
        const mc_vec3* b = &t[(k + 1) % 3];
        if (st * orient_in_plane(a, b, e0, axis) <= 0 && st * orient_in_plane(a, b, e1, axis) <= 0)
        {
            return false;
        }
    }
    return true;
}

int mc_tri_tri_crossings_sides(const mc_tri_plane* ti, const double oi[3], const int si[3], const mc_tri_plane* tj,
                               const double oj[3], const int sj[3], mc_crossing out[2])
{
    return crossings_from_sides(ti->v, oi, si, tj->v, oj, sj, 0, out);
}
