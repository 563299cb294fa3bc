// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic derivatives of a region's flag sums and derived quantities under a rigid motion of J relative to I
// (forward mode, six slots; the formulas of src/contact/FORMULAS.md differentiated with the combinatorics fixed).
// Based on: W. R. Franklin, "Polygon properties calculated from the vertex neighborhoods", ACM SoCG 1987.
//
// What moves: a point x of J by u(x) = delta + theta x x, a direction n of J by theta x n; I is fixed. A crossing
// point of an edge of I (direction e) through a face of J (normal nt) slides along the edge: dx = e (nt . u(x)) /
// (nt . e); one of an edge of J through a face of I moves with J and slides back along its edge: dx = u(x) - e (nt .
// u(x)) / (nt . e). The flags' unit vectors follow from the normals' derivatives. J's whole faces and inside blocks
// (summed in J's frame about origin_j = R^T (o - t)) are polynomials in origin_j: with delta_o = u(o),
// d(6 V_J) = (R a_J) . delta_o and d(24 M_J) = theta x (R m_J) + R (GN + 3 v_J I) R^T delta_o, where a_J, m_J, v_J are
// their sums and GN = sum G N^T (G = a + b + c about origin_j, N = (b - a) x (c - a)).
#include "src/contact/region_derivative.h"

#include <math.h>
#include <string.h>

typedef struct dreal
{
    double v;
    double d[MC_DSLOTS];
} dreal;

static mc_vec3 unit_axis(int k)
{
    return mc_v3(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0);
}

mc_dvec mc_dvec_fixed(mc_vec3 v)
{
    mc_dvec r;
    memset(&r, 0, sizeof r);
    r.v = v;
    return r;
}

mc_dvec mc_dvec_point_j(mc_vec3 x)
{
    mc_dvec r = mc_dvec_fixed(x);
    for (int k = 0; k < 3; ++k)
    {
        r.d[k] = unit_axis(k);
        r.d[3 + k] = mc_cross(unit_axis(k), x);
    }
    return r;
}

mc_dvec mc_dvec_dir_j(mc_vec3 n)
{
    mc_dvec r = mc_dvec_fixed(n);
    for (int k = 0; k < 3; ++k)
    {
        r.d[3 + k] = mc_cross(unit_axis(k), n);
    }
    return r;
}

static dreal ddot(const mc_dvec* a, const mc_dvec* b)
{
    dreal r;
    r.v = mc_dot(a->v, b->v);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_dot(a->d[k], b->v) + mc_dot(a->v, b->d[k]);
    }
    return r;
}

static mc_dvec dcross(const mc_dvec* a, const mc_dvec* b)
{
    mc_dvec r;
    r.v = mc_cross(a->v, b->v);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_add(mc_cross(a->d[k], b->v), mc_cross(a->v, b->d[k]));
    }
    return r;
}

static mc_dvec dscale(const mc_dvec* a, double s)
{
    mc_dvec r;
    r.v = mc_scale(a->v, s);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_scale(a->d[k], s);
    }
    return r;
}

static mc_dvec dsub(const mc_dvec* a, const mc_dvec* b)
{
    mc_dvec r;
    r.v = mc_sub(a->v, b->v);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_sub(a->d[k], b->d[k]);
    }
    return r;
}

// w / |w| with its derivative (I - u u^T) dw / |w|; the value is the caller's (the region stage's own unit vector).
static mc_dvec dunit(const mc_dvec* w, double len, mc_vec3 value)
{
    mc_dvec r;
    r.v = value;
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_scale(mc_mul_add(w->d[k], -mc_dot(value, w->d[k]), value), 1.0 / len);
    }
    return r;
}

// One flag (V, T, N, B) in derivative form: 6V -= abc, 24 M -= abc (a T + 2 b N + 3 c B), 2 S_body -= a b B (only
// when `area`).
static void dflag(mc_region_dsums* s, const mc_dvec* v, const mc_dvec* t, const mc_dvec* n, const mc_dvec* b, int body,
                  bool area)
{
    dreal a = ddot(v, t), bb = ddot(v, n), cc = ddot(v, b);
    double abc = a.v * bb.v * cc.v;
    mc_vec3 w = mc_add(mc_add(mc_scale(t->v, a.v), mc_scale(n->v, 2.0 * bb.v)), mc_scale(b->v, 3.0 * cc.v));
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        double dabc = a.d[k] * bb.v * cc.v + a.v * bb.d[k] * cc.v + a.v * bb.v * cc.d[k];
        mc_vec3 dw = mc_add(mc_add(mc_add(mc_scale(t->d[k], a.v), mc_scale(t->v, a.d[k])),
                                   mc_add(mc_scale(n->d[k], 2.0 * bb.v), mc_scale(n->v, 2.0 * bb.d[k]))),
                            mc_add(mc_scale(b->d[k], 3.0 * cc.v), mc_scale(b->v, 3.0 * cc.d[k])));
        s->volume_x6[k] -= dabc;
        s->moment_x24[k] = mc_sub(s->moment_x24[k], mc_add(mc_scale(w, dabc), mc_scale(dw, abc)));
        if (area)
        {
            double ab = a.v * bb.v, dab = a.d[k] * bb.v + a.v * bb.d[k];
            s->area_x2[body][k] = mc_sub(s->area_x2[body][k], mc_add(mc_scale(b->v, dab), mc_scale(b->d[k], ab)));
        }
    }
}

// The crossing point with its derivative (see the file comment).
static mc_dvec crossing_point(int body, mc_vec3 x, mc_vec3 e, mc_vec3 nt)
{
    mc_dvec u = mc_dvec_point_j(x); // u.d[k] = the motion of J's point at x along slot k
    double den = mc_dot(nt, e);
    mc_dvec r = mc_dvec_fixed(x);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        double slide = mc_dot(nt, u.d[k]) / den;
        r.d[k] = body == 0 ? mc_scale(e, slide) : mc_mul_add(u.d[k], -slide, e);
    }
    return r;
}

mc_dvec mc_region_crossing_point(int body, mc_vec3 x, mc_vec3 p0, mc_vec3 p1, mc_vec3 nt)
{
    return crossing_point(body, x, mc_sub(p1, p0), nt);
}

void mc_region_dsums_extent_point(mc_region_dsums* s, const mc_dvec* x, double t)
{
    if (t < s->ext_t[0])
    {
        s->ext_t[0] = t;
        s->ext_x[0] = *x;
    }
    if (t > s->ext_t[1])
    {
        s->ext_t[1] = t;
        s->ext_x[1] = *x;
    }
}

void mc_region_dsums_crossing(mc_region_dsums* s, int body, mc_vec3 x, mc_vec3 o, mc_vec3 p0, mc_vec3 p1, mc_vec3 n1,
                              mc_vec3 n2, mc_vec3 nt, double ent, unsigned no_area)
{
    mc_vec3 dval = mc_normalize(mc_sub(p1, p0));
    // Directions of the edge's body move only when that body is J; the crossed face's normal only when it is J's.
    mc_dvec d = body == 1 ? mc_dvec_dir_j(dval) : mc_dvec_fixed(dval);
    mc_dvec nk[2] = {body == 1 ? mc_dvec_dir_j(n1) : mc_dvec_fixed(n1),
                     body == 1 ? mc_dvec_dir_j(n2) : mc_dvec_fixed(n2)};
    mc_dvec dnt = body == 0 ? mc_dvec_dir_j(nt) : mc_dvec_fixed(nt);
    mc_dvec xp = crossing_point(body, x, mc_sub(p1, p0), nt);
    mc_dvec org = mc_dvec_fixed(o);
    mc_dvec v = dsub(&xp, &org);
    mc_dvec te = dscale(&d, ent);
    mc_dvec n1d = dcross(&nk[0], &d), n2d = dcross(&d, &nk[1]);
    mc_dvec b1 = dscale(&nk[0], -1.0), b2 = dscale(&nk[1], -1.0);
    dflag(s, &v, &te, &n1d, &b1, body, !(no_area & 1u));
    dflag(s, &v, &te, &n2d, &b2, body, !(no_area & 2u));
    mc_dvec bt = dscale(&dnt, -1.0);
    for (int k = 0; k < 2; ++k)
    {
        mc_dvec w = dcross(&nk[k], &dnt);
        double len = mc_length(w.v);
        if (!(len > 0.0))
        {
            continue; // parallel planes: the two flags cancel (as in the region stage)
        }
        mc_dvec u = dunit(&w, len, mc_scale(w.v, 1.0 / len));
        mc_dvec sk = dscale(&u, k == 0 ? -ent : ent);
        mc_dvec mk = dcross(&nk[k], &u), lk = dcross(&u, &dnt);
        mc_dvec bk = dscale(&nk[k], -1.0);
        dflag(s, &v, &sk, &mk, &bk, body, !((no_area >> (2 + 2 * k)) & 1u));
        dflag(s, &v, &sk, &lk, &bt, 1 - body, !((no_area >> (3 + 2 * k)) & 1u));
    }
}

// x + (y - x) t with its derivative.
static mc_dvec dlerp(const mc_dvec* x, const mc_dvec* y, const dreal* t)
{
    mc_dvec r;
    mc_vec3 yx = mc_sub(y->v, x->v);
    r.v = mc_mul_add(x->v, t->v, yx);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        r.d[k] = mc_add(mc_add(x->d[k], mc_scale(mc_sub(y->d[k], x->d[k]), t->v)), mc_scale(yx, t->d[k]));
    }
    return r;
}

void mc_region_dsums_flush_area(mc_region_dsums* s, const mc_vec3 p[3], mc_vec3 n, const mc_vec3 q[3], mc_vec3 nq)
{
    mc_dvec poly[9], next[9];
    uint32_t count = 3u;
    for (uint32_t k = 0; k < 3u; ++k)
    {
        poly[k] = mc_dvec_fixed(p[k]);
    }
    mc_dvec dnq = mc_dvec_dir_j(nq);
    for (uint32_t e = 0; e < 3u && count >= 3u; ++e)
    {
        mc_dvec a = mc_dvec_point_j(q[e]), b = mc_dvec_point_j(q[(e + 1u) % 3u]);
        mc_dvec ab = dsub(&b, &a);
        mc_dvec m = dcross(&dnq, &ab); // into q
        uint32_t nn = 0;
        for (uint32_t i = 0; i < count; ++i)
        {
            const mc_dvec* x = &poly[i];
            const mc_dvec* y = &poly[(i + 1u) % count];
            mc_dvec xa = dsub(x, &a), ya = dsub(y, &a);
            dreal dx = ddot(&m, &xa), dy = ddot(&m, &ya);
            if (dx.v >= 0.0)
            {
                next[nn++] = *x;
            }
            if ((dx.v >= 0.0) != (dy.v >= 0.0))
            {
                // t = dx / (dx - dy): dt = (ddx (dx - dy) - dx (ddx - ddy)) / (dx - dy)^2 = (dx ddy - dy ddx) / (dx -
                // dy)^2
                double den = dx.v - dy.v;
                dreal t;
                t.v = dx.v / den;
                for (int k = 0; k < MC_DSLOTS; ++k)
                {
                    t.d[k] = (dx.v * dy.d[k] - dy.v * dx.d[k]) / (den * den);
                }
                next[nn++] = dlerp(x, y, &t);
            }
        }
        count = nn;
        memcpy(poly, next, count * sizeof *poly);
    }
    if (count < 3u)
    {
        return;
    }
    double a2 = 0.0;
    mc_vec3 da2[MC_DSLOTS];
    memset(da2, 0, sizeof da2);
    for (uint32_t i = 1; i + 1u < count; ++i)
    {
        mc_dvec u = dsub(&poly[i], &poly[0]), w = dsub(&poly[i + 1u], &poly[0]);
        mc_dvec uw = dcross(&u, &w);
        a2 += mc_dot(n, uw.v);
        for (int k = 0; k < MC_DSLOTS; ++k)
        {
            da2[k] = mc_add(da2[k], uw.d[k]);
        }
    }
    if (!(a2 > 0.0))
    {
        return; // no entry was taken off (regions.c keeps only a positive area)
    }
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        s->area_x2[0][k] = mc_sub(s->area_x2[0][k], mc_scale(n, mc_dot(n, da2[k])));
    }
}

void mc_region_dsums_corner_j(mc_region_dsums* s, mc_vec3 pv, mc_vec3 pw, mc_vec3 pu, mc_vec3 n, mc_vec3 o)
{
    mc_dvec p = mc_dvec_point_j(pv);
    mc_dvec org = mc_dvec_fixed(o);
    mc_dvec v = dsub(&p, &org);
    mc_dvec dn = mc_dvec_dir_j(n);
    mc_dvec b = dscale(&dn, -1.0);
    mc_dvec t1 = mc_dvec_dir_j(mc_normalize(mc_sub(pw, pv)));
    mc_dvec n1 = dcross(&dn, &t1);
    dflag(s, &v, &t1, &n1, &b, 1, true);
    mc_dvec t2 = mc_dvec_dir_j(mc_normalize(mc_sub(pu, pv)));
    mc_dvec n2 = dcross(&t2, &dn);
    dflag(s, &v, &t2, &n2, &b, 1, true);
}

void mc_region_dsums_j_triangle(mc_region_dsums* s, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_vec3 g = mc_add(mc_add(a, b), c);
    mc_vec3 n = mc_cross(mc_sub(b, a), mc_sub(c, a));
    double gv[3] = {g.x, g.y, g.z}, nv[3] = {n.x, n.y, n.z};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            s->gn[3 * i + j] += gv[i] * nv[j];
        }
    }
}

void mc_region_dsums_j_block(mc_region_dsums* s, const double m[9], mc_vec3 s2, mc_vec3 o_rel)
{
    double ov[3] = {o_rel.x, o_rel.y, o_rel.z}, sv[3] = {s2.x, s2.y, s2.z};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            s->gn[3 * i + j] += m[3 * i + j] - 3.0 * ov[i] * sv[j];
        }
    }
}

static mc_vec3 mat_vec(const double m[9], mc_vec3 v)
{
    return mc_v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                 m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

// The motion of a J point at x along slot k.
static mc_vec3 motion(mc_vec3 x, int k)
{
    return k < 3 ? unit_axis(k) : mc_cross(unit_axis(k - 3), x);
}

// Tangent projector of a closest feature applied to v: face (I - a a^T) v, edge a (a . v), vertex 0.
static mc_vec3 feature_project(const mc_closest_feature* f, mc_vec3 v)
{
    if (f->kind == 2)
    {
        return mc_mul_add(v, -mc_dot(f->axis, v), f->axis);
    }
    return f->kind == 1 ? mc_scale(f->axis, mc_dot(f->axis, v)) : mc_v3(0.0, 0.0, 0.0);
}

// Adams depth |p_J - p_I|: p_I on a fixed feature of I follows the centroid through its projector; p_J on a feature
// of J moves with J and follows the centroid's motion relative to J.
static void adams_depth(const mc_closest_feature closest[2], const mc_vec3 dc[MC_DSLOTS], mc_vec3 c,
                        mc_region_derivative* out)
{
    mc_vec3 gap = mc_sub(closest[1].point, closest[0].point);
    double g = mc_length(gap);
    if (!(g > 0.0))
    {
        out->flags |= MC_RDERIV_DEPTH_KINK;
        return;
    }
    mc_vec3 dir = mc_scale(gap, 1.0 / g);
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        mc_vec3 dpi = feature_project(&closest[0], dc[k]);
        mc_vec3 dpj = mc_add(motion(closest[1].point, k), feature_project(&closest[1], mc_sub(dc[k], motion(c, k))));
        out->depth[k] = mc_dot(dir, mc_sub(dpj, dpi));
    }
}

void mc_region_derivative_finish(const mc_region_dsums* s, const mc_region_jsums* j, mc_vec3 origin, double volume_x6,
                                 mc_vec3 moment_x24, mc_vec3 area_x2_i, mc_depth_method method,
                                 const mc_closest_feature closest[2], mc_region_derivative* out)
{
    memset(out, 0, sizeof *out);
    // The rigid J part: R (GN + 3 v_J I) R^T delta_o, with delta_o = u(origin).
    mc_vec3 ra = mc_mat33_mul_vec(&j->rot_j, j->area_x2);
    mc_vec3 rm = mc_mat33_mul_vec(&j->rot_j, j->moment_x24);
    double v6 = volume_x6, a2len = mc_length(area_x2_i);
    double vol = v6 / 6.0;
    mc_vec3 mom_over = vol != 0.0 ? mc_scale(moment_x24, 1.0 / (24.0 * vol)) : mc_v3(0.0, 0.0, 0.0);
    mc_vec3 c = mc_add(origin, mom_over);
    mc_vec3 n = a2len > 0.0 ? mc_scale(area_x2_i, 1.0 / a2len) : mc_v3(0.0, 0.0, 0.0);
    mc_vec3 dc[MC_DSLOTS];
    for (int k = 0; k < MC_DSLOTS; ++k)
    {
        mc_vec3 dlo = motion(origin, k);
        mc_vec3 local = mc_mat33_tmul_vec(&j->rot_j, dlo);
        mc_vec3 jm = mc_add(mc_mat33_mul_vec(&j->rot_j, mat_vec(s->gn, local)), mc_scale(dlo, 3.0 * j->volume_x6));
        if (k >= 3)
        {
            jm = mc_add(jm, mc_cross(unit_axis(k - 3), rm));
        }
        double dv6 = s->volume_x6[k] + mc_dot(ra, dlo);
        mc_vec3 dm24 = mc_add(s->moment_x24[k], jm);
        mc_vec3 da2 = s->area_x2[0][k];
        out->volume[k] = dv6 / 6.0;
        // c = o + M24 / (4 V6): dc = dM24 / (4 V6) - M24 dV6 / (4 V6^2)
        dc[k] = vol != 0.0 ? mc_scale(mc_mul_add(dm24, -dv6 / v6, moment_x24), 1.0 / (4.0 * v6)) : mc_v3(0.0, 0.0, 0.0);
        out->centroid[k] = dc[k];
        if (a2len > 0.0)
        {
            out->area[k] = 0.5 * mc_dot(n, da2);
            out->normal[k] = mc_scale(mc_mul_add(da2, -mc_dot(n, da2), n), 1.0 / a2len);
        }
    }
    if (method == MC_DEPTH_VOLUME_AREA)
    {
        double area = 0.5 * a2len;
        for (int k = 0; k < MC_DSLOTS && area > 0.0; ++k)
        {
            // depth = 2 V / A
            out->depth[k] = 2.0 * (out->volume[k] - vol * out->area[k] / area) / area;
        }
    }
    else if (method == MC_DEPTH_ADAMS && closest != NULL)
    {
        adams_depth(closest, dc, c, out);
    }
    else if (method == MC_DEPTH_EXTENT)
    {
        // depth = n . (x_hi - x_lo) over the fixed extreme points
        mc_vec3 span = mc_sub(s->ext_x[1].v, s->ext_x[0].v);
        for (int k = 0; k < MC_DSLOTS && a2len > 0.0 && s->ext_t[1] >= s->ext_t[0]; ++k)
        {
            out->depth[k] = mc_dot(out->normal[k], span) + mc_dot(n, mc_sub(s->ext_x[1].d[k], s->ext_x[0].d[k]));
        }
    }
    else
    {
        out->flags |= MC_RDERIV_NO_DEPTH;
    }
}
