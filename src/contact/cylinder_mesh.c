// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A solid cylinder C (radius R, half-length h, axis z of its frame) against the solid of a closed mesh M, exactly
// integrated in the cylinder's frame.
//
// Divergence theorem with fields that have only a z component, so the side of C (radial normal) adds nothing:
//   V = closed integral of z n_z dA, first moment (x z, y z, z^2 / 2) n_z dA,
// over the boundary of C and M: (a) each mesh face's part inside C, (b) the caps' parts inside M.
// (a) A face clipped to the slab |z| <= h is a convex polygon P; its part inside C projects to (P's projection) n
//     disk, bounded by edge pieces and circular arcs. That region is the polygon Q' (P's corners inside the disk and
//     the points where its edges cross the circle, all 3D points of the face) plus one circular segment per arc.
//     Q' is integrated in 3D (fan from its first corner, the quadratic midpoint rule, exact for the degree-2
//     integrands: n_z times the face-plane area, which stays accurate for faces nearly parallel to the axis). A
//     segment (chord X -> Y, half angle phi) is integrated in its own frame (s along the chord, r towards the arc)
//     where z = z_m + alpha s + beta r (z_m at the chord's middle from the 3D points, the slopes from the face
//     normal) from its moments A, int r, int r^2, int s^2 (the others vanish by symmetry): a 20-point Gauss rule
//     over the arc's angle of integrands >= 0 (no cancellation at small phi), the complement in the disk beyond a
//     half disk. The arc's angle is the angle the polygon's outside path from X to Y sweeps about the axis (a sum of
//     angles each in (-pi, pi)), never ambiguous when X and Y nearly coincide.
// (b) The cap z = c inside M: the mesh's section there (oriented segments cut from the triangles at canonical cut
//     points, so they close) is, within the disk, w(O) pi R^2 plus, for each segment's piece inside the disk, the
//     triangle (O, X1, X2) minus the sector of radius R over the same angle (the fans of the segments from the axis,
//     whose sectors sum to the winding w(O) of the section about the axis, decided exactly by cap_winding). When
//     no piece of the section meets the circle, the section's loops inside the disk by their own shoelace plus whole
//     disks instead (cap_sums): no terms of size R^2.
// Side decisions: each vertex is transformed once into the cylinder's frame and compared with +-h exactly, the same
// way by every triangle; vertices' and cut points' squared distances from the axis against R^2 likewise.
#include "src/contact/cylinder_mesh.h"

#include "bvh/bvh.h"
#include "mesh/mesh_internal.h"
#include "src/base/core.h"
#include "src/base/predicates.h"
#include "src/contact/cut_point.h"
#include "src/contact/cylinder_plane.h"
#include "src/contact/gauss.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAXP 12 // polygon corners: a triangle clipped to a slab has at most 5, with circle events at most 12

typedef struct cyl_sums
{
    double vol;      // V
    mc_vec3 mom;     // first moment about the cylinder's centre
    mc_vec3 area;    // S_J: the mesh surface inside C (outward normals of the mesh)
    double rho_min;  // smallest distance from the axis of the mesh surface within the slab
    mc_vec3 rho_pt;  // that point
    bool rho_set;    // some face crosses the slab
    bool rho_inner;  // the axis lies on the inner side of that face (inside the mesh there)
    double zabs_min; // smallest |z| of the mesh surface inside C
    mc_vec3 z_pt;    // that point
    bool inside;     // some face has a part inside C
} cyl_sums;

typedef struct cyl_ctx
{
    double r, h;
    double z0;  // the height the face integrands are taken from (a cap inside the mesh: no cancellation there)
    mc_mat33 q; // mesh frame -> cylinder frame
    mc_vec3 o;
    const struct mc_mesh* m;
} cyl_ctx;

static mc_vec3 vertex(const cyl_ctx* x, uint32_t v)
{
    return mc_add(mc_mat33_mul_vec(&x->q, x->m->positions[v]), x->o);
}

/// -1 at or below the bottom plane, +1 at or above the top one, 0 strictly between.
static int slab_class(double z, double h)
{
    return z <= -h ? -1 : (z >= h ? 1 : 0);
}

/// Triangle p clipped to the slab |z| < h, corners in order (cut points canonical per edge). @return corner count
static int clip_slab(const mc_vec3 p[3], double h, mc_vec3* out)
{
    int n = 0;
    for (int i = 0; i < 3; ++i)
    {
        mc_vec3 a = p[i], b = p[(i + 1) % 3];
        int ca = slab_class(a.z, h), cb = slab_class(b.z, h);
        if (ca == 0)
        {
            out[n++] = a;
        }
        if (ca == cb)
        {
            continue;
        }
        // A cut point lies on its plane: z = -h or h exactly (interpolated, z errs by ulps of the corners' z, which
        // for a slab thinner than those ulps is all of it: 1.8e-49 of volume from a cylinder 6e-59 long, fuzz_shapes).
        mc_vec3 bottom = ca == -1 || cb == -1 ? mc_edge_cut_point(a, a.z + h, b, b.z + h) : a;
        mc_vec3 top = ca == 1 || cb == 1 ? mc_edge_cut_point(a, a.z - h, b, b.z - h) : a;
        bottom.z = ca == -1 || cb == -1 ? -h : bottom.z;
        top.z = ca == 1 || cb == 1 ? h : top.z;
        if (ca == -1)
        {
            out[n++] = bottom;
            if (cb == 1)
            {
                out[n++] = top;
            }
        }
        else if (ca == 1)
        {
            out[n++] = top;
            if (cb == -1)
            {
                out[n++] = bottom;
            }
        }
        else
        {
            out[n++] = cb == 1 ? top : bottom;
        }
    }
    return n;
}

/// theta - sin(theta) cos(theta) for theta in (-pi/2, pi/2], odd (mc_segment_shape on |theta|).
static double mc_segment_shape_signed(double theta)
{
    return theta < 0.0 ? -mc_segment_shape(-theta) : mc_segment_shape(theta);
}

static double cross2(mc_vec3 a, mc_vec3 b)
{
    return a.x * b.y - a.y * b.x;
}

static double dot2(mc_vec3 a, mc_vec3 b)
{
    return a.x * b.x + a.y * b.y;
}

/// Angle about the axis from a to b (xy parts), in (-pi, pi].
static double angle2(mc_vec3 a, mc_vec3 b)
{
    return atan2(cross2(a, b), dot2(a, b));
}

/// The parameters t1 <= t2 in [0, 1] where segment a + t (b - a) (xy) is inside the circle of radius r, given the
/// ends' inside flags. @return false when no part is inside
static bool span_params(mc_vec3 a, mc_vec3 b, bool in_a, bool in_b, double r, double* t1, double* t2)
{
    if (in_a && in_b)
    {
        *t1 = 0.0;
        *t2 = 1.0;
        return true;
    }
    double dx = b.x - a.x, dy = b.y - a.y;
    // The discriminant bb^2 - dd cc is dd r^2 - (a x d)^2 (the line's distance from the axis: |a x d| / |d|), taken
    // as a product: it keeps its digits for a chord near the rim, where the direct form cancels (a plate 2 R wide
    // under a cylinder lying 1e-6 R deep lost 7 digits).
    double dd = dx * dx + dy * dy, bb = a.x * dx + a.y * dy, cc = (a.x * a.x + a.y * a.y) - r * r;
    double cr = fabs(a.x * dy - a.y * dx), rd = r * sqrt(dd);
    double disc = (rd - cr) * (rd + cr);
    if (!(dd > 0.0) || !(disc > 0.0))
    {
        if (in_a || in_b)
        {
            *t1 = *t2 = in_a ? 0.0 : 1.0; // tangent at an end
            return true;
        }
        return false;
    }
    double sq = sqrt(disc), qq = -(bb + (bb >= 0.0 ? sq : -sq));
    double r1 = qq / dd, r2 = qq != 0.0 ? cc / qq : r1;
    double lo = fmin(r1, r2), hi = fmax(r1, r2);
    lo = fmin(fmax(lo, 0.0), 1.0);
    hi = fmin(fmax(hi, 0.0), 1.0);
    *t1 = in_a ? 0.0 : lo;
    *t2 = in_b ? 1.0 : hi;
    if (!in_a && !in_b)
    {
        // Both ends outside: the part between the roots, clamped to the segment. A root at or past an end means that
        // end lies on the circle to rounding (its flag said outside): the crossing is kept there, at the end, as the
        // edge's other root is. Left out, the next arc ran past it (a face whose edge from a mesh vertex on the
        // cylinder's side to beyond it cuts across the disk took an arc of 3 pi / 2 for one of pi / 2: 60 % too much
        // volume, fuzz_shapes; tests/fuzz/regressions/shapes/cylinder_side_through_a_sphere_vertex).
        return lo < hi;
    }
    if (*t1 > *t2)
    {
        *t1 = *t2 = in_a ? 0.0 : 1.0;
    }
    return true;
}

/// The part of segment a -> b (xy) inside the circle of radius r, given the ends' inside flags: its first and last
/// points *p1 and *p2 (3D points of the segment; an end itself where it is inside). The parameters are taken from the
/// end nearer the axis: a crossing within r of that end is at a parameter r / |b - a| from it, which a parameter
/// from the far end (1 minus that) cannot hold once r is below eps |b - a| (a cylinder 2^-60 thin on a mesh vertex:
/// the crossing rounded onto the vertex, whose direction about the axis is then noise, and the arc's sweep with it,
/// 7 % of the volume; test cylinder_mesh::a_needle_through_a_mesh_vertex_keeps_its_volume). @return false when no
/// part is inside
static bool circle_span(mc_vec3 a, mc_vec3 b, bool in_a, bool in_b, double r, mc_vec3* p1, mc_vec3* p2)
{
    bool rev = dot2(b, b) < dot2(a, a); // from b: the parameters run b -> a
    mc_vec3 o = rev ? b : a, e = rev ? a : b;
    double s1 = 0.0, s2 = 0.0;
    if (!span_params(o, e, rev ? in_b : in_a, rev ? in_a : in_b, r, &s1, &s2))
    {
        return false;
    }
    mc_vec3 d = mc_sub(e, o);
    mc_vec3 q1 = mc_add(o, mc_scale(d, s1)), q2 = mc_add(o, mc_scale(d, s2));
    *p1 = rev ? q2 : q1;
    *p2 = rev ? q1 : q2;
    return true;
}

/// Moments of the circular segment of half angle phi <= pi/2 of a circle of radius r, in its frame (s along the
/// chord from its middle, w >= 0 from the chord towards the arc): m[0] = area, m[1] = int w, m[2] = int w^2,
/// m[3] = int s^2. With s = r sin(psi), the chord-to-arc height is w = r (cos psi - cos phi) = 2 r sin((phi - psi)/2)
/// sin((phi + psi)/2) >= 0: every integrand is >= 0 and a trigonometric polynomial of degree <= 4 in psi, which the
/// 20-point rule on [0, phi] integrates to a relative 1e-30 (its remainder: 3.5e-60 (4 phi / 2)^40 <= 3e-40).
static void segment_moments_small(double r, double phi, double m[4])
{
    m[0] = m[1] = m[2] = m[3] = 0.0;
    double half = 0.5 * phi;
    for (int k = 0; k < 20; ++k)
    {
        double wk, xk = mc_gauss20_node(k, &wk);
        double psi = half * (1.0 + xk);
        double c = r * cos(psi), s = r * sin(psi);
        double w = 2.0 * r * sin(0.5 * (phi - psi)) * sin(0.5 * (phi + psi));
        double f = wk * c * w;
        m[0] += f;
        m[1] += f * w * 0.5;
        m[2] += f * w * w / 3.0;
        m[3] += f * s * s;
    }
    for (int k = 0; k < 4; ++k)
    {
        m[k] *= phi; // (phi / 2) for the rule's interval, 2 for the mirror half psi < 0
    }
}

/// As segment_moments_small for any phi in [0, pi]: beyond a half disk, the disk minus the opposite segment.
static void segment_moments(double r, double phi, double m[4])
{
    if (phi <= 0.5 * PI)
    {
        segment_moments_small(r, phi, m);
        return;
    }
    double c[4];
    segment_moments_small(r, PI - phi, c);
    double d0 = r * cos(phi), disk = PI * r * r, r4 = 0.25 * disk * r * r;
    m[0] = disk - c[0];
    m[1] = -d0 * disk + c[1];
    m[2] = r4 + d0 * d0 * disk - c[2];
    m[3] = r4 - c[3];
}

/// Integrals of (z, x z, y z, z^2 / 2) over a region of the xy plane on which z = z_m + g . (p - m0), p = m0 + s t +
/// w u, given its moments in (s, w) (int s = int s w = 0).
static void add_region(double zm, mc_vec3 m0, mc_vec3 u, mc_vec3 t, double alpha, double beta, const double mo[4],
                       double f[4])
{
    double a = mo[0], iw = mo[1], iww = mo[2], iss = mo[3];
    double f0 = zm * a + beta * iw;
    double izs = alpha * iss, izw = zm * iw + beta * iww; // int s z, int w z
    f[0] += f0;
    f[1] += m0.x * f0 + t.x * izs + u.x * izw;
    f[2] += m0.y * f0 + t.y * izs + u.y * izw;
    f[3] += 0.5 * (zm * zm * a + alpha * alpha * iss + beta * beta * iww + 2.0 * zm * beta * iw);
}

static void quad_point(mc_vec3 p, double z0, double f[4], double w)
{
    double z = p.z - z0;
    f[0] += w * z;
    f[1] += w * p.x * z;
    f[2] += w * p.y * z;
    f[3] += w * 0.5 * z * z;
}

/// Closest point of segment (a, b) (xy) to the axis, as a 3D point of the segment.
static mc_vec3 closest_on_segment(mc_vec3 a, mc_vec3 b, double* dist)
{
    double dx = b.x - a.x, dy = b.y - a.y, dd = dx * dx + dy * dy;
    double t = dd > 0.0 ? -(a.x * dx + a.y * dy) / dd : 0.0;
    t = fmin(fmax(t, 0.0), 1.0);
    mc_vec3 p = mc_add(a, mc_scale(mc_sub(b, a), t));
    *dist = sqrt(p.x * p.x + p.y * p.y);
    return p;
}

typedef struct ring_item
{
    mc_vec3 p;
    int kind; // 0: corner inside the disk, 1: corner outside, 2: entry, 3: exit
} ring_item;

/// Depth bookkeeping: the smallest |z| over the points of a face's part inside C.
static void note_z(cyl_sums* s, mc_vec3 p, double* zlo, double* zhi)
{
    *zlo = fmin(*zlo, p.z);
    *zhi = fmax(*zhi, p.z);
    if (fabs(p.z) < s->zabs_min)
    {
        s->zabs_min = fabs(p.z);
        s->z_pt = p;
    }
}

/// The segment of the arc from exit x to entry y (sweep: its angle about the axis) of a face whose slope is
/// z = z(p) with gradient g (xy) in the projection; adds its integrals to f and returns its projected area.
static double add_segment(const cyl_ctx* x, mc_vec3 ex, mc_vec3 en, double sweep, mc_vec3 g, bool slope, double f[4],
                          cyl_sums* s, double* zlo, double* zhi)
{
    double phi = 0.5 * fmin(fmax(sweep, 0.0), 2.0 * PI);
    if (!(phi > 0.0))
    {
        return 0.0;
    }
    double r = x->r;
    double lx = sqrt(ex.x * ex.x + ex.y * ex.y);
    mc_vec3 xh = lx > 0.0 ? mc_v3(ex.x / lx, ex.y / lx, 0.0) : mc_v3(1, 0, 0);
    double c = cos(phi), sn = sin(phi);
    mc_vec3 u = mc_v3(c * xh.x - sn * xh.y, c * xh.y + sn * xh.x, 0.0);
    mc_vec3 t = mc_v3(-u.y, u.x, 0.0);
    double zm = 0.5 * (ex.z + en.z) - x->z0;
    double alpha = slope ? dot2(g, t) : 0.0, beta = slope ? dot2(g, u) : 0.0;
    // The segment lies in the face's clipped polygon, so z over it stays within the slab: its slopes times its half
    // chord and its height change z by at most 2 h. A segment whose slopes say otherwise (by a factor 2 for rounding)
    // is the rounding of a projection: a face nearly parallel to the axis, clipped to a slab much thinner than its
    // tilt, projects to a polygon a few ulps wide whose exit and entry are the same point, and its slope (up to
    // 1 / n_z) turns that noise into volume (fuzz_shapes: 4.9e-68 from a cylinder 1e-309 long, whatever its length).
    double s2 = sin(0.5 * phi);
    if (fabs(alpha) * r * sn + fabs(beta) * 2.0 * r * s2 * s2 > 4.0 * x->h)
    {
        return 0.0;
    }
    double mo[4];
    segment_moments(r, phi, mo);
    add_region(zm, mc_scale(u, r * c), u, t, alpha, beta, mo, f);
    // z along the arc (psi from u): z_m + alpha r sin(psi) + beta r (cos(psi) - cos(phi)); its extremes at
    // psi = atan2(alpha, beta) and that plus pi, when within [-phi, phi].
    double ps = atan2(alpha, beta);
    double cand[2] = {ps, ps > 0.0 ? ps - PI : ps + PI};
    for (int k = 0; k < 2; ++k)
    {
        if (fabs(cand[k]) <= phi)
        {
            double z = x->z0 + zm + alpha * r * sin(cand[k]) + beta * r * (cos(cand[k]) - c);
            z = fmin(fmax(z, -x->h), x->h);
            mc_vec3 dir = mc_add(mc_scale(u, cos(cand[k])), mc_scale(t, sin(cand[k])));
            note_z(s, mc_v3(r * dir.x, r * dir.y, z), zlo, zhi);
        }
    }
    return mo[0];
}

/// The depth of face terms: the distance from the axis of the clipped polygon's projection (0 when it covers the
/// axis), kept when it is the smallest so far, with its point and whether the axis lies behind the face.
static void note_depth(const cyl_ctx* x, cyl_sums* s, const mc_vec3* poly, int n, mc_vec3 nrm, bool slope, mc_vec3 g)
{
    bool centre_in = true;
    double rho = INFINITY;
    mc_vec3 rho_pt = poly[0];
    for (int i = 0; i < n; ++i)
    {
        mc_vec3 a = poly[i], b = poly[(i + 1) % n];
        double d = 0.0;
        mc_vec3 q = closest_on_segment(a, b, &d);
        if (d < rho)
        {
            rho = d;
            rho_pt = q;
        }
        centre_in = centre_in && cross2(mc_sub(b, a), mc_scale(a, -1.0)) >= 0.0;
    }
    if (centre_in && slope)
    {
        rho = 0.0;
        double z0 = poly[0].z + g.x * (0.0 - poly[0].x) + g.y * (0.0 - poly[0].y);
        rho_pt = mc_v3(0.0, 0.0, fmin(fmax(z0, -x->h), x->h));
    }
    if (!s->rho_set || rho < s->rho_min)
    {
        s->rho_min = rho;
        s->rho_pt = rho_pt;
        s->rho_set = true;
        s->rho_inner = rho > 0.0 && nrm.x * rho_pt.x + nrm.y * rho_pt.y > 0.0;
    }
}

/// The ring of a clipped polygon (counter-clockwise about +z): its corners, inside the disk (kind 0) or not (1), with
/// the points where its edges enter (2) and leave (3) the disk, in order.
static void build_ring(const cyl_ctx* x, const mc_vec3* poly, int n, ring_item* ring, int* m_out, int* events_out,
                       int* inside_out)
{
    double r2 = x->r * x->r;
    int m = 0, events = 0, inside_corners = 0;
    bool in[MAXP];
    for (int i = 0; i < n; ++i)
    {
        in[i] = poly[i].x * poly[i].x + poly[i].y * poly[i].y <= r2;
    }
    for (int i = 0; i < n; ++i)
    {
        int j = (i + 1) % n;
        ring[m++] = (ring_item){poly[i], in[i] ? 0 : 1};
        inside_corners += in[i];
        mc_vec3 p1, p2;
        if ((in[i] && in[j]) || !circle_span(poly[i], poly[j], in[i], in[j], x->r, &p1, &p2))
        {
            continue;
        }
        if (!in[i])
        {
            ring[m++] = (ring_item){p1, 2};
            events++;
        }
        if (!in[j])
        {
            ring[m++] = (ring_item){p2, 3};
            events++;
        }
    }
    *m_out = m;
    *events_out = events;
    *inside_out = inside_corners;
}

/// Face f of the mesh (corners in the cylinder frame) against C: terms (a).
static void face_terms(const cyl_ctx* x, const mc_vec3 tri[3], cyl_sums* s)
{
    mc_vec3 poly[MAXP];
    int n = clip_slab(tri, x->h, poly);
    if (n < 3)
    {
        return;
    }
    mc_vec3 nrm = mc_normalize(mc_cross(mc_sub(tri[1], tri[0]), mc_sub(tri[2], tri[0])));
    if (!(mc_dot(nrm, nrm) > 0.0))
    {
        return;
    }
    // Orient the polygon counter-clockwise about +z (n' = the normal with n'_z >= 0); sign: the face's n_z sign.
    double sgn = nrm.z < 0.0 ? -1.0 : 1.0;
    mc_vec3 np = mc_scale(nrm, sgn);
    if (sgn < 0.0)
    {
        for (int i = 0; i < n / 2; ++i)
        {
            mc_vec3 t = poly[i];
            poly[i] = poly[n - 1 - i];
            poly[n - 1 - i] = t;
        }
    }
    double r2 = x->r * x->r;
    bool slope = np.z > 1e-150; // else the face is parallel to the axis to 1e-150: n_z terms below 1e-150 h A
    mc_vec3 g = slope ? mc_v3(-np.x / np.z, -np.y / np.z, 0.0) : mc_v3(0, 0, 0);
    note_depth(x, s, poly, n, nrm, slope, g);
    // The ring of corners and circle events.
    ring_item ring[2 * MAXP];
    int m = 0, events = 0, inside_corners = 0;
    build_ring(x, poly, n, ring, &m, &events, &inside_corners);
    double f[4] = {0.0, 0.0, 0.0, 0.0}, proj = 0.0, area3 = 0.0;
    double zlo = INFINITY, zhi = -INFINITY;
    double save_z = s->zabs_min;
    mc_vec3 save_pt = s->z_pt;
    if (events == 0 && inside_corners == 0)
    {
        double sweep = 0.0;
        for (int i = 0; i < n; ++i)
        {
            sweep += angle2(poly[i], poly[(i + 1) % n]);
        }
        if (!(sweep > PI) || !slope)
        {
            return; // the polygon misses the disk (or is a line through it, parallel to the axis)
        }
        // The polygon holds the disk: z = z_O + g . p over it.
        double z0 = poly[0].z - x->z0 - g.x * poly[0].x - g.y * poly[0].y;
        double a = PI * r2, r4 = 0.25 * a * r2;
        f[0] = z0 * a;
        f[1] = g.x * r4;
        f[2] = g.y * r4;
        f[3] = 0.5 * (z0 * z0 * a + (g.x * g.x + g.y * g.y) * r4);
        proj = a;
        double gl = sqrt(g.x * g.x + g.y * g.y);
        mc_vec3 gd = gl > 0.0 ? mc_v3(g.x / gl, g.y / gl, 0.0) : mc_v3(1, 0, 0);
        note_z(s, mc_v3(x->r * gd.x, x->r * gd.y, fmin(x->z0 + z0 + gl * x->r, x->h)), &zlo, &zhi);
        note_z(s, mc_v3(-x->r * gd.x, -x->r * gd.y, fmax(x->z0 + z0 - gl * x->r, -x->h)), &zlo, &zhi);
    }
    else
    {
        // Q': the corners inside and the events, integrated in 3D (fan from its first point).
        mc_vec3 qp[2 * MAXP];
        int nq = 0;
        for (int k = 0; k < m; ++k)
        {
            if (ring[k].kind != 1)
            {
                qp[nq++] = ring[k].p;
                note_z(s, ring[k].p, &zlo, &zhi);
            }
        }
        for (int k = 1; k + 1 < nq; ++k)
        {
            mc_vec3 a = qp[0], b = qp[k], c = qp[k + 1];
            double ar = 0.5 * mc_dot(mc_cross(mc_sub(b, a), mc_sub(c, a)), np);
            area3 += ar;
            double w = np.z * ar / 3.0;
            quad_point(mc_scale(mc_add(a, b), 0.5), x->z0, f, w);
            quad_point(mc_scale(mc_add(b, c), 0.5), x->z0, f, w);
            quad_point(mc_scale(mc_add(c, a), 0.5), x->z0, f, w);
        }
        // The arcs: from each exit to the next entry.
        for (int k = 0; k < m; ++k)
        {
            if (ring[k].kind != 3)
            {
                continue;
            }
            double sweep = 0.0;
            int j = k;
            for (int step = 0; step < m; ++step)
            {
                int nx = (j + 1) % m;
                sweep += angle2(ring[j].p, ring[nx].p);
                j = nx;
                if (ring[j].kind == 2)
                {
                    break;
                }
            }
            proj += add_segment(x, ring[k].p, ring[j].p, sweep, g, slope, f, s, &zlo, &zhi);
        }
    }
    if (!(area3 > 0.0) && !(proj > 0.0))
    {
        s->zabs_min = save_z; // nothing inside: the events were tangencies
        s->z_pt = save_pt;
        return;
    }
    if (zlo <= 0.0 && zhi >= 0.0)
    {
        s->zabs_min = 0.0;
    }
    s->inside = true;
    if (slope)
    {
        area3 += proj / np.z; // the segments' face-plane area: its projection over n'_z
        s->vol += sgn * f[0];
        s->mom = mc_add(s->mom, mc_scale(mc_v3(f[1], f[2], f[3]), sgn));
    }
    s->area = mc_add(s->area, mc_scale(nrm, area3));
}

/// The sums of one cap's terms (b), two ways:
/// - from the fans about the axis: w(O) pi R^2 (area starts there) less each piece's circular segment and gap;
/// - when no piece of the section meets the circle (rim false), its loops in the disk are closed: their area and
///   moment by the shoelace about a point of the section (base, the first piece's start: no terms of size R), and
///   the circle lies in one face of the section, whose winding the angles give (winding 2 pi w(O) less the pieces'
///   angles, a whole number of turns to rounding). The fans' terms there are each of size R^2 |angle| and cancel to
///   the section's area: a mesh of size 1 in a disk of radius 1e12 lost every digit (fuzz_shapes).
typedef struct cap_sums
{
    double area;    // fans: area inside M
    mc_vec3 mom;    // fans: first moment (xy)
    bool rim;       // some piece of the section ends on the circle
    bool based;     // base is set
    mc_vec3 base;   // shoelace origin
    double loop;    // shoelace: area about base
    mc_vec3 loop_m; // shoelace: first moment about base
    double turn;    // the pieces' angles about the axis
} cap_sums;

/// Adds the triangle (base, p, q) of the shoelace about the cap's base.
static void cap_loop_piece(cap_sums* cs, mc_vec3 p, mc_vec3 q)
{
    if (!cs->based)
    {
        cs->based = true;
        cs->base = mc_v3(p.x, p.y, 0.0);
    }
    mc_vec3 u = mc_v3(p.x - cs->base.x, p.y - cs->base.y, 0.0), v = mc_v3(q.x - cs->base.x, q.y - cs->base.y, 0.0);
    double t = 0.5 * cross2(u, v);
    cs->loop += t;
    cs->loop_m = mc_add(cs->loop_m, mc_scale(mc_add(u, v), t / 3.0));
}

/// The cap's area inside M and its first moment (xy, about the axis), from its sums (cap_sums) and r.
static double cap_result(const cap_sums* cs, double r, bool wind, mc_vec3* mom)
{
    if (cs->rim)
    {
        *mom = cs->mom;
        return cs->area;
    }
    double w = nearbyint(((wind ? 2.0 * PI : 0.0) - cs->turn) / (2.0 * PI));
    // The whole disk w times (its moment about the axis is 0) and the section's loops inside it.
    *mom = mc_add(cs->loop_m, mc_scale(cs->base, cs->loop));
    return w * PI * r * r + cs->loop;
}

/// Terms (b) of the cap z = c (c = +h: top, outward +z; -h: bottom, outward -z): the cap's part inside M, area and
/// first moment (xy), from the section segments of the candidate triangles that reach into the disk; `wind` is
/// whether the cap's centre is inside M.
static void cap_section(const cyl_ctx* x, const mc_vec3 tri[3], double c, bool top, bool wind, cap_sums* cs,
                        bool* degenerate)
{
    bool below[3];
    int nb = 0;
    for (int i = 0; i < 3; ++i)
    {
        below[i] = top ? tri[i].z < c : tri[i].z <= c;
        nb += below[i];
    }
    if (nb == 0 || nb == 3)
    {
        return;
    }
    int k = 0;
    for (int i = 0; i < 3; ++i)
    {
        if (below[i] == (nb == 1))
        {
            k = i;
        }
    }
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    mc_vec3 x1 = mc_edge_cut_point(tri[k], tri[k].z - c, tri[k1], tri[k1].z - c);
    mc_vec3 x2 = mc_edge_cut_point(tri[k], tri[k].z - c, tri[k2], tri[k2].z - c);
    // Counter-clockwise about +z around the section: x2 -> x1 when the odd corner is below, else x1 -> x2.
    mc_vec3 a = nb == 1 ? x2 : x1, b = nb == 1 ? x1 : x2;
    double r = x->r, r2 = r * r;
    bool in_a = a.x * a.x + a.y * a.y <= r2, in_b = b.x * b.x + b.y * b.y <= r2;
    mc_vec3 p, q;
    if (!circle_span(a, b, in_a, in_b, r, &p, &q))
    {
        return;
    }
    cs->rim = cs->rim || !in_a || !in_b;
    cap_loop_piece(cs, p, q);
    double lp = sqrt(dot2(p, p)), lq = sqrt(dot2(q, q)), axis_dist = 0.0;
    (void)closest_on_segment(p, q, &axis_dist);
    // The segment passes through the cap's centre, to rounding: of its own coordinates (R for a piece that ends on
    // the circle; a small mesh deep in a wide cylinder is not "through" at every piece).
    double scale = 1e-12 * fmax(lp, lq);
    bool through = axis_dist <= scale;
    if (through && (lp <= scale || lq <= scale))
    {
        // A corner of the section at the cap's centre (an edge of the mesh through it): the fans' angles are
        // undecided there; the caller moves the cylinder off it.
        *degenerate = true;
    }
    if (!(lp > 0.0) || !(lq > 0.0))
    {
        double tri_area = 0.5 * cross2(p, q); // a piece from the axis itself: no angle
        cs->area += tri_area;
        cs->mom = mc_add(cs->mom, mc_scale(mc_v3(p.x + q.x, p.y + q.y, 0.0), tri_area / 3.0));
        return;
    }
    // The fan's piece is the triangle (O, p, q) minus the sector of radius R over its angle th: minus the circular
    // segment of angle th (R^2 S(th / 2), by its series when small: no cancellation) and minus the triangles' gap
    // (1/2) sin(th) (R^2 - |p| |q|), 0 for points on the circle (where the span ends, |p| is R by construction).
    double rp = in_a ? lp : r, rq = in_b ? lq : r;
    mc_vec3 ph = mc_v3(p.x / lp, p.y / lp, 0.0), qh = mc_v3(q.x / lq, q.y / lq, 0.0);
    double th = angle2(p, q), sn = sin(th);
    if (through && (th > 0.0) != wind)
    {
        // Through the centre: its angle is +-pi, on the side that the winding (cap_winding, exact) gave
        // the centre: + (the centre to the left of the segment, inside) when the centre is inside.
        th = th > 0.0 ? th - 2.0 * PI : th + 2.0 * PI;
    }
    cs->turn += th;
    double seg = r2 * mc_segment_shape_signed(0.5 * th);
    double gap = 0.5 * sn * (r2 - rp * rq);
    cs->area -= seg + gap;
    // Moments: the segment's (2/3) R^3 sin^3(th / 2) along the bisector, the gap's as the difference of the two
    // triangles' (area times the sum of the corners over 3).
    double c2 = cos(0.5 * th), s2 = sin(0.5 * th);
    mc_vec3 bis = mc_v3(c2 * ph.x - s2 * ph.y, c2 * ph.y + s2 * ph.x, 0.0);
    mc_vec3 seg_m = mc_scale(bis, 2.0 / 3.0 * r2 * r * s2 * s2 * s2);
    mc_vec3 big = mc_scale(mc_add(ph, qh), 0.5 * sn * r2 * r / 3.0);
    mc_vec3 small = mc_scale(mc_v3(p.x + q.x, p.y + q.y, 0.0), 0.5 * cross2(p, q) / 3.0);
    cs->mom = mc_sub(cs->mom, mc_add(seg_m, mc_sub(big, small)));
}

/// Sign of orient2d(a, b, O') in the cap plane (x, y) for the cap's centre O' = (d1, d2) with infinitesimals
/// d1 >> d2 > 0: the exact sign of a.x b.y - a.y b.x, else (O on the line ab) that of the perturbation's term
/// (b.x - a.x) d2 - (b.y - a.y) d1. An edge and its reverse get opposite signs, so of two triangles sharing an edge
/// exactly one can contain O'. 0 only for an edge whose projection is a point through O.
static int centre_side(mc_vec3 a, mc_vec3 b)
{
    const mc_vec3 o = mc_v3(0, 0, 0);
    int s = mc_cross_component_sign(&o, &a, &o, &b, 2);
    if (s != 0)
    {
        return s;
    }
    if (b.y != a.y)
    {
        return b.y > a.y ? -1 : 1;
    }
    return b.x > a.x ? 1 : (b.x < a.x ? -1 : 0);
}

/// Whether the cap z = c (c = +h: top, -h: bottom) has its centre inside the mesh, in the section's own terms
/// (cap_section): the centre seen from inside the cylinder, (d1, d2, c -+ e) with infinitesimals e >> d1 >> d2 > 0,
/// against the mesh's triangles as they are in the cylinder's frame (the same floats as the section's). Parity of
/// the crossings of the ray from there along the axis away from the cylinder (+z from the top, -z from the bottom):
/// a triangle counts when its projection contains the centre (centre_side, exact) and the axis meets its plane at or
/// beyond the cap (exact orient of (0, 0, c)): a face flush with the cap lies beyond the centre seen from inside. The
/// triangles along the ray come from the mesh's tree (mesh frame, widened for the rounding of the frame change).
/// mc_mesh_contains_point at the cap's centre decides a face through it by the perturbation of a point of J
/// instead, which disagreed with the section at a flush face: the cap counted a whole disk too many or too few.
static mc_status cap_winding(const cyl_ctx* x, mc_vec3 centre, mc_vec3 axis, bool top, uint32_t** tris,
                             uint32_t* tri_cap, bool* wind)
{
    double c = top ? x->h : -x->h;
    mc_vec3 from = mc_add(centre, mc_scale(axis, c));
    double scale = fabs(from.x) + fabs(from.y) + fabs(from.z) + x->r + x->h;
    uint32_t n = 0;
    mc_status st = mc_bvh_ray_triangles(x->m, from, top ? axis : mc_scale(axis, -1.0), 1e-9 * scale, tris, tri_cap, &n);
    if (st != MC_OK)
    {
        return st;
    }
    const mc_vec3 p = mc_v3(0, 0, c);
    int parity = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t* v = &x->m->indices[3u * (*tris)[k]];
        mc_vec3 t[3] = {vertex(x, v[0]), vertex(x, v[1]), vertex(x, v[2])};
        int s0 = centre_side(t[0], t[1]), s1 = centre_side(t[1], t[2]), s2 = centre_side(t[2], t[0]);
        if (s0 == 0 || s0 != s1 || s1 != s2)
        {
            continue;
        }
        // orient(t, p) = n . (p - t0) = n_z (c - z_f) with n_z of the sign s0: the crossing z_f is at or above c
        // when s0 orient <= 0.
        int o = s0 * mc_orient3d_sign(&t[0], &t[1], &t[2], &p);
        parity ^= top ? o <= 0 : o >= 0;
    }
    *wind = parity != 0;
    return MC_OK;
}

static mc_status cylinder_mesh_once(double r, double len, const mc_pose* pc, const struct mc_mesh* m, const mc_pose* pm,
                                    uint32_t** tris, uint32_t* tri_cap, mc_region* g, uint32_t* count, bool* degenerate)
{
    *count = 0;
    cyl_ctx x;
    x.r = r;
    x.h = 0.5 * len;
    x.m = m;
    mc_mat33 rc = mc_quat_to_mat33(pc->q), rm = mc_quat_to_mat33(pm->q);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            x.q.m[i][j] = rc.m[0][i] * rm.m[0][j] + rc.m[1][i] * rm.m[1][j] + rc.m[2][i] * rm.m[2][j];
        }
    }
    x.o = mc_mat33_tmul_vec(&rc, mc_sub(pm->p, pc->p));
    mc_vec3 centre = mc_mat33_tmul_vec(&rm, mc_sub(pc->p, pm->p));
    mc_vec3 axis = mc_mat33_tmul_vec(&rm, mc_mat33_mul_vec(&rc, mc_v3(0, 0, 1)));
    // The caps' windings first (the triangles along the axis through *tris), then the candidates: the triangles near
    // the cylinder's bounding ball (mesh frame).
    bool wind[2];
    for (int c = 0; c < 2; ++c)
    {
        mc_status st = cap_winding(&x, centre, axis, c == 0, tris, tri_cap, &wind[c]);
        if (st != MC_OK)
        {
            return st;
        }
    }
    double reach = sqrt(r * r + x.h * x.h) * (1.0 + 1e-12);
    uint32_t n_cand = 0;
    mc_status st = mc_bvh_ball_triangles(m, centre, reach, tris, tri_cap, &n_cand);
    if (st != MC_OK)
    {
        return st;
    }
    cyl_sums s;
    memset(&s, 0, sizeof s);
    s.zabs_min = INFINITY;
    double cap_area[2];
    mc_vec3 cap_mom[2];
    cap_sums cs[2];
    memset(cs, 0, sizeof cs);
    for (int c = 0; c < 2; ++c)
    {
        cs[c].area = wind[c] ? PI * r * r : 0.0;
    }
    for (uint32_t k = 0; k < n_cand; ++k)
    {
        const uint32_t* v = &m->indices[3u * (*tris)[k]];
        mc_vec3 tri[3] = {vertex(&x, v[0]), vertex(&x, v[1]), vertex(&x, v[2])};
        cap_section(&x, tri, x.h, true, wind[0], &cs[0], degenerate);
        cap_section(&x, tri, -x.h, false, wind[1], &cs[1], degenerate);
    }
    for (int c = 0; c < 2; ++c)
    {
        cap_area[c] = cap_result(&cs[c], r, wind[c], &cap_mom[c]);
    }
    // The face integrands from the cap with more of its area inside the mesh (its own term is then 0): a cap
    // pressed a small d into a face adds no terms of size h that cancel to d.
    x.z0 = cap_area[1] > cap_area[0] ? -x.h : (cap_area[0] > 0.0 ? x.h : 0.0);
    for (uint32_t k = 0; k < n_cand; ++k)
    {
        const uint32_t* v = &m->indices[3u * (*tris)[k]];
        mc_vec3 tri[3] = {vertex(&x, v[0]), vertex(&x, v[1]), vertex(&x, v[2])};
        face_terms(&x, tri, &s);
    }
    // Caps: z - z0 = h - z0 on the top (n_z = 1), -h - z0 on the bottom (n_z = -1).
    double ht = x.h - x.z0, hb = x.h + x.z0;
    double vol = s.vol + ht * cap_area[0] + hb * cap_area[1];
    mc_vec3 mom = mc_add(s.mom, mc_v3(ht * cap_mom[0].x + hb * cap_mom[1].x, ht * cap_mom[0].y + hb * cap_mom[1].y,
                                      0.5 * (ht * ht * cap_area[0] - hb * hb * cap_area[1])));
    mom.z += x.z0 * vol; // the z moment was about z0
    if (!(vol > 0.0))
    {
        return MC_OK;
    }
    memset(g, 0, sizeof *g);
    g->volume = vol;
    g->centroid = mc_add(pc->p, mc_mat33_mul_vec(&rc, mc_scale(mom, 1.0 / vol)));
    mc_vec3 sj = mc_mat33_mul_vec(&rc, s.area);
    g->area = mc_length_scaled(sj); // its square underflows for a tiny contact (fuzz_shapes)
    g->radius = sqrt(g->area / PI);
    g->normal = g->area > 0.0 ? mc_scale(mc_normalize(sj), -1.0) : mc_v3(0, 0, 0);
    g->s_i = mc_scale(sj, -1.0);
    g->s_j = sj;
    // Depth: the radial one (R - the smallest distance rho from the axis of the mesh surface in the slab, R + rho
    // when the axis is on the inner side of that face) or the axial one (h - the smallest |z| of the mesh surface
    // inside C), the smaller; the cylinder wholly inside the mesh: R + rho.
    mc_vec3 pi_ = mc_v3(0, 0, 0), pj = mc_v3(0, 0, 0);
    double rho = s.rho_set ? s.rho_min : 0.0;
    mc_vec3 rp = s.rho_set ? s.rho_pt : mc_v3(r, 0, 0);
    double lr = sqrt(rp.x * rp.x + rp.y * rp.y);
    mc_vec3 out = lr > 0.0 ? mc_v3(rp.x / lr, rp.y / lr, 0.0) : mc_v3(1, 0, 0);
    if (!s.inside)
    {
        g->depth = r + rho;
        pi_ = mc_v3(-r * out.x, -r * out.y, rp.z);
        pj = rp;
    }
    else if ((s.rho_inner ? r + rho : r - rho) <= x.h - s.zabs_min)
    {
        // The axis inside the mesh behind the nearest face: the cylinder's far side is the deepest.
        g->depth = s.rho_inner ? r + rho : r - rho;
        pi_ = s.rho_inner ? mc_v3(-r * out.x, -r * out.y, rp.z) : mc_v3(r * out.x, r * out.y, rp.z);
        pj = rp;
    }
    else
    {
        g->depth = x.h - s.zabs_min;
        pj = s.z_pt;
        pi_ = mc_v3(pj.x, pj.y, pj.z >= 0.0 ? x.h : -x.h);
    }
    g->point_i = mc_add(pc->p, mc_mat33_mul_vec(&rc, pi_));
    g->point_j = mc_add(pc->p, mc_mat33_mul_vec(&rc, pj));
    *count = 1;
    return MC_OK;
}

mc_status mc_cylinder_mesh(double r, double len, const mc_pose* pc, const struct mc_mesh* m, const mc_pose* pm,
                           uint32_t** tris, uint32_t* tri_cap, mc_region* g, uint32_t* count)
{
    bool degenerate = false;
    mc_status st = cylinder_mesh_once(r, len, pc, m, pm, tris, tri_cap, g, count, &degenerate);
    if (st != MC_OK || !degenerate)
    {
        return st;
    }
    // An edge of the mesh through a cap's centre (a cylinder centred on a box's edge, say): evaluated with the
    // cylinder moved by 2^-27 R across its axis instead, which changes the volume by about the area of the section
    // across the axis times that (near 1e-8 relative, as the ball on an edge in sphere_mesh).
    mc_pose moved = *pc;
    moved.p = mc_add(pc->p, mc_quat_rotate(pc->q, mc_v3(0x1p-27 * r * 0.8, 0x1p-27 * r * 0.6, 0.0)));
    degenerate = false;
    return cylinder_mesh_once(r, len, &moved, m, pm, tris, tri_cap, g, count, &degenerate);
}
