// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact closed triangle-triangle intersection and the self-intersection rule of one mesh (tri_tri_closed.h).
// Based on: J. R. Shewchuk 1997 for the predicates; the tests below are derived here.
//
// Closed triangles A and B share a point iff an edge of one meets the other (closed): their common set is convex,
// and a point of its relative boundary lies on the boundary of A or of B. A closed segment pq meets a closed triangle
// t when p and q are not strictly on one side of t's plane and either
// - both lie in the plane: the test is done in the projection along an axis where t's exact normal is non-zero (a
//   one-to-one map of the plane, where 2D orientations are exact cross-product components), or
// - the line pq crosses the plane at one point X: X is in t iff orient(p, q, t_k, t_k+1) (k = 0, 1, 2) do not take
//   both strict signs. Moving p along the line does not change these determinants, so each is
//   ((q - p) . n) times the signed area of (X, t_k, t_k+1): all have the sign of (q - p) . n or are 0 exactly when X
//   is in the closed triangle.
// Coplanar triangles (common in CAD: flat faces cut into fans) are decided in one projection: they meet iff a vertex
// of one is in the other or an edge of one meets an edge of the other. Two coplanar triangles with one shared vertex
// a coincide near a with their corners (convex cones at a), and each lies inside its cone, so they meet beyond a iff
// the cones share a ray: iff one of the four edges from a points into the other's corner. When the floating-point
// filter cannot tell a sign (nearly or exactly coplanar triangles), those projected tests are tried first: if the
// projections do not meet, neither do the triangles, and the exact (slow) orientation is not needed.
#include "src/base/tri_tri_closed.h"

#include "src/base/predicates.h"

#include <math.h>

static inline int sign_of(double v)
{
    return (v > 0.0) - (v < 0.0);
}

static inline int orient_sign(const mc_vec3* a, const mc_vec3* b, const mc_vec3* c, const mc_vec3* d)
{
    return sign_of(mc_orient3d_adapt(a, b, c, d));
}

static inline double coord(const mc_vec3* p, int c)
{
    return c == 0 ? p->x : (c == 1 ? p->y : p->z);
}

/// Exact sign of the orientation of p, q, r projected along `axis` (component `axis` of (q - p) x (r - p)): the filter
/// of mc_cross_component_sign, then that function, except when both products are exactly zero. (A zero product has a
/// zero factor: products of coordinate differences do not underflow in the range where the predicates are exact,
/// predicates.h; a rounded difference is zero only when the coordinates are equal.) Axis-parallel edges of CAD meshes
/// give such zeros all the time.
static inline int orient2(const mc_vec3* p, const mc_vec3* q, const mc_vec3* r, int axis)
{
    // Coordinates i = axis + 1 and j = axis + 2 (mod 3), as mc_cross_component_sign takes them.
    double pi = axis == 0 ? p->y : (axis == 1 ? p->z : p->x), pj = axis == 0 ? p->z : (axis == 1 ? p->x : p->y);
    double qi = axis == 0 ? q->y : (axis == 1 ? q->z : q->x), qj = axis == 0 ? q->z : (axis == 1 ? q->x : q->y);
    double ri = axis == 0 ? r->y : (axis == 1 ? r->z : r->x), rj = axis == 0 ? r->z : (axis == 1 ? r->x : r->y);
    double a = (qi - pi) * (rj - pj);
    double b = (qj - pj) * (ri - pi);
    double bound = 4.0 * 0x1p-53 * (fabs(a) + fabs(b));
    if (fabs(a - b) > bound && bound >= MC_PRED_MIN_PERMANENT)
    {
        return sign_of(a - b);
    }
    if (a == 0.0 && b == 0.0)
    {
        return 0;
    }
    return mc_cross_component_sign(p, q, p, r, axis);
}

/// Sign of orient(t.a, t.b, t.c, d) when the filter of predicates.h on the stored normal certifies it (or every product
/// is exactly zero, see orient2: a face in an axis plane and a point of that plane), else 2.
static inline int plane_sign_filtered(const mc_tri_plane* t, const mc_vec3* d)
{
    double cx = d->x - t->v[0].x, cy = d->y - t->v[0].y, cz = d->z - t->v[0].z;
    double det = t->n[0] * cx + t->n[1] * cy + t->n[2] * cz;
    double perm = t->perm[0] * fabs(cx) + t->perm[1] * fabs(cy) + t->perm[2] * fabs(cz);
    if (fabs(det) > MC_PRED_O3D_BOUND * perm && perm >= MC_PRED_MIN_PERMANENT)
    {
        return sign_of(det);
    }
    return perm == 0.0 ? 0 : 2;
}

/// Exact sign of orient(t.a, t.b, t.c, d) from a plane_sign_filtered result s (the exact value when s is 2).
static inline int plane_sign_exact(const mc_tri_plane* t, const mc_vec3* d, int s)
{
    return s != 2 ? s : sign_of(mc_orient3d_exact(&t->v[0], &t->v[1], &t->v[2], d));
}

static inline int plane_sign(const mc_tri_plane* t, const mc_vec3* d)
{
    return plane_sign_exact(t, d, plane_sign_filtered(t, d));
}

/// Exact sign of component `axis` of t's normal (b - a) x (c - a): the filter of mc_cross_component_sign on the
/// stored value, else that function.
static inline int normal_sign(const mc_tri_plane* t, int axis)
{
    double bound = 4.0 * 0x1p-53 * t->perm[axis];
    if (fabs(t->n[axis]) > bound && bound >= MC_PRED_MIN_PERMANENT)
    {
        return sign_of(t->n[axis]);
    }
    return mc_cross_component_sign(&t->v[0], &t->v[1], &t->v[0], &t->v[2], axis);
}

/// An axis along which t's exact normal is non-zero (t's plane projects one to one): its largest floating-point
/// component when the filter certifies it, else the first exactly non-zero one.
static int projection_axis(const mc_tri_plane* t)
{
    int k = fabs(t->n[1]) > fabs(t->n[0]) ? 1 : 0;
    k = fabs(t->n[2]) > fabs(t->n[k]) ? 2 : k;
    if (normal_sign(t, k) != 0)
    {
        return k;
    }
    for (int axis = 0; axis < 3; ++axis)
    {
        if (axis != k && normal_sign(t, axis) != 0)
        {
            return axis;
        }
    }
    return k; // zero-area triangle: not a mesh triangle
}

/// Do the three signs take both strict values?
static inline int mixed(int s0, int s1, int s2)
{
    return (s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0);
}

/// Point p of t's plane in the closed triangle t (projected along axis).
static int point_in_triangle_2d(const mc_vec3* p, const mc_vec3 t[3], int axis)
{
    return !mixed(orient2(&t[0], &t[1], p, axis), orient2(&t[1], &t[2], p, axis), orient2(&t[2], &t[0], p, axis));
}

/// Collinear closed segments pq and ab: do they overlap (their ranges in both coordinates other than axis)?
static int collinear_overlap(const mc_vec3* p, const mc_vec3* q, const mc_vec3* a, const mc_vec3* b, int axis)
{
    for (int c = 0; c < 3; ++c)
    {
        if (c == axis)
        {
            continue;
        }
        double plo = fmin(coord(p, c), coord(q, c)), phi = fmax(coord(p, c), coord(q, c));
        double alo = fmin(coord(a, c), coord(b, c)), ahi = fmax(coord(a, c), coord(b, c));
        if (phi < alo || ahi < plo)
        {
            return 0;
        }
    }
    return 1;
}

/// Closed segments pq and ab of one plane, from d1, d2 = orient2 of p, q against line ab and d3, d4 = orient2 of a,
/// b against line pq: do they meet?
static int segments_meet(int d1, int d2, int d3, int d4, const mc_vec3* p, const mc_vec3* q, const mc_vec3* a,
                         const mc_vec3* b, int axis)
{
    if (d1 * d2 > 0 || d3 * d4 > 0)
    {
        return 0;
    }
    // Not both p and q on line ab: the lines cross, and each segment reaches the other's line. Else all four points
    // are on one line (then d3 = d4 = 0 too).
    return d1 != 0 || d2 != 0 || collinear_overlap(p, q, a, b, axis);
}

/// Closed segment pq in t's plane against the closed triangle t (projected along axis).
static int segment_triangle_2d(const mc_vec3* p, const mc_vec3* q, const mc_vec3 t[3], int axis)
{
    if (point_in_triangle_2d(p, t, axis) || point_in_triangle_2d(q, t, axis))
    {
        return 1;
    }
    for (int k = 0; k < 3; ++k)
    {
        const mc_vec3* a = &t[k];
        const mc_vec3* b = &t[k == 2 ? 0 : k + 1];
        if (segments_meet(orient2(a, b, p, axis), orient2(a, b, q, axis), orient2(p, q, a, axis),
                          orient2(p, q, b, axis), p, q, a, b, axis))
        {
            return 1;
        }
    }
    return 0;
}

/// Orientation signs of the vertices of b against the edges of a (o[i][k]: vertex k against edge i), projected along
/// axis; @return 1 when one edge line of a has all of b strictly outside (the side opposite to a, whose orientation
/// sign is s, non-zero): the projections are then apart.
static int edge_separates(const mc_vec3 a[3], const mc_vec3 b[3], int axis, int s, int o[3][3])
{
    int apart = 0;
    for (int i = 0; i < 3; ++i)
    {
        int i1 = i == 2 ? 0 : i + 1;
        for (int k = 0; k < 3; ++k)
        {
            o[i][k] = orient2(&a[i], &a[i1], &b[k], axis);
        }
        apart |= s != 0 && o[i][0] * s < 0 && o[i][1] * s < 0 && o[i][2] * s < 0;
        if (apart)
        {
            return 1;
        }
    }
    return 0;
}

/// Closed triangles a and b of one plane, projected along axis (a projects one to one): a vertex of one in the other,
/// or an edge of each meeting. Also a one-sided certificate for triangles that are not coplanar: when their
/// projections do not meet, neither do they (a degenerate projection of b can only make the answer 1).
static int coplanar_triangles(const mc_vec3 a[3], const mc_vec3 b[3], int axis)
{
    // o[i][k]: vertex k of b against edge i of a; r[i][k]: vertex k of a against edge i of b. An edge line with the
    // other triangle strictly outside separates them (the common case of neighbours in a flat region).
    int o[3][3], r[3][3];
    if (edge_separates(a, b, axis, orient2(&a[0], &a[1], &a[2], axis), o) ||
        edge_separates(b, a, axis, orient2(&b[0], &b[1], &b[2], axis), r))
    {
        return 0;
    }
    for (int k = 0; k < 3; ++k)
    {
        if (!mixed(o[0][k], o[1][k], o[2][k]) || !mixed(r[0][k], r[1][k], r[2][k]))
        {
            return 1;
        }
    }
    for (int i = 0; i < 3; ++i)
    {
        int i1 = i == 2 ? 0 : i + 1;
        for (int j = 0; j < 3; ++j)
        {
            int j1 = j == 2 ? 0 : j + 1;
            if (segments_meet(r[j][i], r[j][i1], o[i][j], o[i][j1], &a[i], &a[i1], &b[j], &b[j1], axis))
            {
                return 1;
            }
        }
    }
    return 0;
}

/// Closed segment pq against the closed triangle t, with sp, sq the exact signs of p and q against t's plane.
static int segment_triangle(const mc_vec3* p, const mc_vec3* q, int sp, int sq, const mc_tri_plane* t)
{
    if (sp * sq > 0)
    {
        return 0;
    }
    if (sp == 0 && sq == 0)
    {
        return segment_triangle_2d(p, q, t->v, projection_axis(t));
    }
    int s0 = orient_sign(p, q, &t->v[0], &t->v[1]);
    int s1 = orient_sign(p, q, &t->v[1], &t->v[2]);
    if (s0 * s1 < 0)
    {
        return 0;
    }
    return !mixed(s0, s1, orient_sign(p, q, &t->v[2], &t->v[0]));
}

/// Is the point d of t's plane, seen from t's corner k, in the closed angle of t at that corner? (Projected along
/// `axis`, where t's normal component has sign s: d - t_k is in the cone of t_k+1 - t_k and t_k+2 - t_k.)
static int in_corner(const mc_tri_plane* t, int k, const mc_vec3* d, int axis, int s)
{
    const mc_vec3* c = &t->v[k];
    return s * orient2(c, &t->v[(k + 1) % 3], d, axis) >= 0 && s * orient2(c, d, &t->v[(k + 2) % 3], axis) >= 0;
}

static inline int strictly_one_side(int s0, int s1, int s2)
{
    return (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
}

int mc_tri_tri_closed_intersect(const mc_tri_plane* a, const mc_tri_plane* b)
{
    int sb[3], sa[3];
    for (int k = 0; k < 3; ++k)
    {
        sb[k] = plane_sign_filtered(a, &b->v[k]);
    }
    if (sb[0] == 2 || sb[1] == 2 || sb[2] == 2)
    {
        // Nearly or exactly coplanar (the flat faces of CAD meshes): projections that do not meet, along an axis
        // where a's plane projects one to one, prove the triangles apart without exact arithmetic (a common point
        // would project to a common point). Else the exact signs.
        if (!coplanar_triangles(a->v, b->v, projection_axis(a)))
        {
            return 0;
        }
        for (int k = 0; k < 3; ++k)
        {
            sb[k] = plane_sign_exact(a, &b->v[k], sb[k]);
        }
    }
    if (strictly_one_side(sb[0], sb[1], sb[2]))
    {
        return 0;
    }
    if (sb[0] == 0 && sb[1] == 0 && sb[2] == 0)
    {
        return coplanar_triangles(a->v, b->v, projection_axis(a));
    }
    for (int k = 0; k < 3; ++k)
    {
        sa[k] = plane_sign(b, &a->v[k]);
    }
    if (strictly_one_side(sa[0], sa[1], sa[2]))
    {
        return 0;
    }
    for (int k = 0; k < 3; ++k)
    {
        int k1 = k == 2 ? 0 : k + 1;
        if (segment_triangle(&a->v[k], &a->v[k1], sa[k], sa[k1], b) ||
            segment_triangle(&b->v[k], &b->v[k1], sb[k], sb[k1], a))
        {
            return 1;
        }
    }
    return 0;
}

/// d, a point of t's plane, seen from t's corner k: in t's closed angle there?
static int corner_holds(const mc_tri_plane* t, int k, const mc_vec3* d)
{
    int axis = projection_axis(t);
    return in_corner(t, k, d, axis, normal_sign(t, axis));
}

/// Do the corners of A (at ka) and B (at kb), the same point, share a ray in the projection along an axis where A's
/// plane projects one to one? When they do not, A and B share no point besides that vertex: another common point x
/// would project to a point other than the vertex's (x - a lies in A's plane, not along the axis) in both
/// projected corners. Exact for coplanar triangles; for others a one-sided certificate (a degenerate projection of
/// B counts as meeting).
static int projected_corners_meet(const mc_tri_plane* A, int ka, const mc_tri_plane* B, int kb)
{
    static const int next[3] = {1, 2, 0}, prev[3] = {2, 0, 1};
    int axis = projection_axis(A), s_a = normal_sign(A, axis), s_b = normal_sign(B, axis);
    return in_corner(B, kb, &A->v[next[ka]], axis, s_b) || in_corner(B, kb, &A->v[prev[ka]], axis, s_b) ||
           in_corner(A, ka, &B->v[next[kb]], axis, s_a) || in_corner(A, ka, &B->v[prev[kb]], axis, s_a);
}

/// Triangles A and B share exactly one vertex, A's corner ka and B's corner kb: do they meet anywhere else?
/// With A = (a, b, c) and B = (a, e, f) (b, c and e, f the corners after a): nothing beyond a when b and c are
/// strictly on one side of B's plane, or e and f of A's, or when the corners at a do not meet in a projection;
/// coplanar triangles by their corners at a; else edge bc against B, edge ef against A, and the edges from a that lie
/// in the other's plane against its corner at a.
static int shared_corner(const mc_tri_plane* A, int ka, const mc_tri_plane* B, int kb)
{
    static const int next[3] = {1, 2, 0}, prev[3] = {2, 0, 1};
    const mc_vec3 *b = &A->v[next[ka]], *c = &A->v[prev[ka]], *e = &B->v[next[kb]], *f = &B->v[prev[kb]];
    int sb = plane_sign_filtered(B, b), sc = plane_sign_filtered(B, c);
    if (sb != 2 && sc != 2 && sb * sc > 0)
    {
        return 0; // A but its corner a strictly on one side of B's plane
    }
    int se = plane_sign_filtered(A, e), sf = plane_sign_filtered(A, f);
    if (se != 2 && sf != 2 && se * sf > 0)
    {
        return 0;
    }
    if ((sb == 2 || sc == 2 || se == 2 || sf == 2) && !projected_corners_meet(A, ka, B, kb))
    {
        return 0; // nearly coplanar (a flat fan) and apart in the projection: no exact arithmetic needed
    }
    sb = plane_sign_exact(B, b, sb);
    sc = plane_sign_exact(B, c, sc);
    se = plane_sign_exact(A, e, se);
    sf = plane_sign_exact(A, f, sf);
    if (sb * sc > 0 || se * sf > 0)
    {
        return 0;
    }
    if (sb == 0 && sc == 0)
    {
        return projected_corners_meet(A, ka, B, kb); // coplanar: exact
    }
    if (segment_triangle(b, c, sb, sc, B) || segment_triangle(e, f, se, sf, A))
    {
        return 1;
    }
    return (sb == 0 && corner_holds(B, kb, b)) || (sc == 0 && corner_holds(B, kb, c)) ||
           (se == 0 && corner_holds(A, ka, e)) || (sf == 0 && corner_holds(A, ka, f));
}

/// Triangles a and b share an edge (p, q); kc and kf are their third corners. They meet beyond the edge iff they are
/// coplanar with c and f on the same side of the edge. In a projection where a's plane projects one to one, the sides
/// of c and f are exact when the triangles are coplanar; opposite sides (or f on the edge's line, which a coplanar f
/// cannot be) leave no fold whether they are coplanar or not, so the exact plane test is needed only for the same
/// side.
static int shared_edge(const mc_tri_plane* a, int kc, const mc_tri_plane* b, int kf)
{
    const mc_vec3* p = &a->v[(kc + 1) % 3];
    const mc_vec3* q = &a->v[(kc + 2) % 3];
    int axis = projection_axis(a);
    if (orient2(p, q, &a->v[kc], axis) != orient2(p, q, &b->v[kf], axis))
    {
        return 0;
    }
    return plane_sign(a, &b->v[kf]) == 0;
}

int mc_tri_tri_self_intersect(const mc_tri_plane* a, const uint32_t ia[3], const mc_tri_plane* b, const uint32_t ib[3])
{
    // m[i]: bit j set when vertex i of a is vertex j of b (at most one bit: a triangle's vertices are distinct).
    int m[3];
    for (int i = 0; i < 3; ++i)
    {
        m[i] = (ia[i] == ib[0]) | (ia[i] == ib[1]) << 1 | (ia[i] == ib[2]) << 2;
    }
    int a_shared = (m[0] != 0) | (m[1] != 0) << 1 | (m[2] != 0) << 2, b_shared = m[0] | m[1] | m[2];
    if (a_shared == 0)
    {
        return mc_tri_tri_closed_intersect(a, b);
    }
    static const int bit_count[8] = {0, 1, 1, 2, 1, 2, 2, 3}, first_bit[8] = {0, 0, 1, 0, 2, 0, 1, 0};
    switch (bit_count[a_shared])
    {
    case 1:
        return shared_corner(a, first_bit[a_shared], b, first_bit[b_shared]);
    case 2:
        return shared_edge(a, first_bit[7 & ~a_shared], b, first_bit[7 & ~b_shared]);
    default:
        return 1; // the same three vertices: a duplicated triangle
    }
}
