// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Clipping oracle for the region stage (tests only): every triangle is cut by its intersection segments, the pieces
// inside the other solid are kept, and divergence-theorem terms are summed over them.
//
// Method. For a triangle t (normal n_t, outward) the kept region R = t ∩ (other solid) is bounded by (a) the parts of
// t's edges inside the other solid, oriented like t's counter-clockwise boundary, found by walking each edge from its
// start vertex (whose state comes from an exact point-in-mesh test of that vertex, not from the crossings) and
// toggling at each crossing sorted along the edge, and (b) the intersection segments with the other body's
// triangles, oriented so that R is on their left: along n_t x n_other, which is the pair stage's documented order
// (crossing[0] -> crossing[1] for a triangle of I, the reverse for a triangle of J). Fanning the kept pieces from
// t's first vertex q and coning from the origin o turns each oriented boundary edge (a, b) into the signed
// tetrahedron (o, q, a, b): V = sum (q-o).((a-o)x(b-o))/6, first moment = sum V_t (q+a+b-3o)/4 (+ o V), vector area
// = sum (a-q)x(b-q)/2. Inner fan edges of a piece cancel, so only boundary edges are summed; holes and islands need
// no special case. Triangles in no pair are kept whole when their first vertex is inside.
//
// Flush pieces. A triangle t and a triangle h of the other mesh that lie exactly in one plane (exact orient3d) and
// overlap: their overlap lies inside the other solid for t when h, moved by the symbolic rule, lies on t's outward
// side and faces the same way, or on t's inward side and faces the other way. Its area (t clipped by h in the plane's
// 2D projection, floating point) times t's unit normal is left out of t's body's vector area. Candidates: the pairs
// whose boxes meet, from a sweep along x.
#include "clip_oracle.h"

#include "src/base/predicates.h"
#include "src/base/tri_tri.h"
#include "src/contact/workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct oracle_acc
{
    mc_vec3 o;
    double vol6;
    mc_vec3 mom24;
    mc_vec3 s2[2];
    uint32_t pieces;
} oracle_acc;

static void add_edge(oracle_acc* acc, int body, mc_vec3 q, mc_vec3 a, mc_vec3 b)
{
    mc_vec3 qo = mc_sub(q, acc->o), ao = mc_sub(a, acc->o), bo = mc_sub(b, acc->o);
    double v6 = mc_dot(qo, mc_cross(ao, bo));
    acc->vol6 += v6;
    acc->mom24 = mc_add(acc->mom24, mc_scale(mc_add(mc_add(qo, ao), bo), v6));
    acc->s2[body] = mc_add(acc->s2[body], mc_cross(mc_sub(a, q), mc_sub(b, q)));
    acc->pieces++;
}

typedef struct oracle_ctx
{
    const struct mc_mesh* mesh[2];
    struct mc_pair_scratch* ps;
    const mc_pair_result* pr;
    uint8_t* inside[2];
    uint32_t* by_j_first; // pairs grouped by j: offsets (triangle_count + 1)
    uint32_t* by_j;       // pair indices grouped by j
} oracle_ctx;

static mc_vec3 pos(const oracle_ctx* c, int b, uint32_t v)
{
    return b == 0 ? c->mesh[0]->positions[v] : mc_pair_scratch_j_vertex(c->ps, v);
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

typedef struct param_point
{
    double t;
    mc_vec3 x;
} param_point;

static int cmp_param(const void* a, const void* b)
{
    return cmp_double(&((const param_point*)a)->t, &((const param_point*)b)->t);
}

static void clip_triangle(const oracle_ctx* c, int b, uint32_t t, const uint32_t* plist, uint32_t pcount,
                          oracle_acc* acc, uint32_t* inconsistent)
{
    const struct mc_mesh* m = c->mesh[b];
    uint32_t v[3] = {m->indices[3 * t], m->indices[3 * t + 1], m->indices[3 * t + 2]};
    mc_vec3 p[3] = {pos(c, b, v[0]), pos(c, b, v[1]), pos(c, b, v[2])};
    mc_vec3 q = p[0];
    if (pcount == 0)
    {
        if (c->inside[b][v[0]])
        {
            for (int k = 0; k < 3; ++k)
            {
                add_edge(acc, b, q, p[k], p[(k + 1) % 3]);
            }
        }
        return;
    }
    param_point* pts = malloc((size_t)pcount * sizeof *pts);
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 e = mc_sub(p[(k + 1) % 3], p[k]);
        double ee = mc_dot(e, e);
        uint32_t n = 0;
        for (uint32_t i = 0; i < pcount; ++i)
        {
            const mc_triangle_pair* pr = &c->pr->pairs[plist[i]];
            for (int s = 0; s < 2; ++s)
            {
                if (pr->crossing[s].body == b && pr->crossing[s].edge == (uint8_t)k)
                {
                    pts[n].x = pr->crossing[s].point;
                    pts[n].t = mc_dot(mc_sub(pts[n].x, p[k]), e) / ee;
                    n++;
                }
            }
        }
        qsort(pts, n, sizeof *pts, cmp_param);
        bool state = c->inside[b][v[k]] != 0;
        mc_vec3 a = p[k];
        for (uint32_t i = 0; i < n; ++i)
        {
            if (state)
            {
                add_edge(acc, b, q, a, pts[i].x);
            }
            a = pts[i].x;
            state = !state;
        }
        if (state)
        {
            add_edge(acc, b, q, a, p[(k + 1) % 3]);
        }
        if (state != (c->inside[b][v[(k + 1) % 3]] != 0))
        {
            (*inconsistent)++;
        }
    }
    free(pts);
    for (uint32_t i = 0; i < pcount; ++i)
    {
        const mc_triangle_pair* pr = &c->pr->pairs[plist[i]];
        if (b == 0)
        {
            add_edge(acc, b, q, pr->crossing[0].point, pr->crossing[1].point);
        }
        else
        {
            add_edge(acc, b, q, pr->crossing[1].point, pr->crossing[0].point);
        }
    }
}

/// Area of the part of triangle p inside triangle q (same plane, normal n), clipped in the 2D projection that drops
/// n's largest coordinate.
static double overlap_area(const mc_vec3 p[3], const mc_vec3 q[3], mc_vec3 n)
{
    int ax = fabs(n.x) >= fabs(n.y) ? (fabs(n.x) >= fabs(n.z) ? 0 : 2) : (fabs(n.y) >= fabs(n.z) ? 1 : 2);
    int u = (ax + 1) % 3, v = (ax + 2) % 3;
    double poly[12][2], next[12][2], pq[3][2];
    int count = 3;
    for (int k = 0; k < 3; ++k)
    {
        const double* a = &p[k].x;
        const double* b = &q[k].x;
        poly[k][0] = a[u];
        poly[k][1] = a[v];
        pq[k][0] = b[u];
        pq[k][1] = b[v];
    }
    double sq = (pq[1][0] - pq[0][0]) * (pq[2][1] - pq[0][1]) - (pq[1][1] - pq[0][1]) * (pq[2][0] - pq[0][0]);
    for (int e = 0; e < 3 && count >= 3; ++e)
    {
        const double* a = pq[e];
        const double* b = pq[(e + 1) % 3];
        int nn = 0;
        for (int i = 0; i < count; ++i)
        {
            const double* x = poly[i];
            const double* y = poly[(i + 1) % count];
            double dx = sq * ((b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0]));
            double dy = sq * ((b[0] - a[0]) * (y[1] - a[1]) - (b[1] - a[1]) * (y[0] - a[0]));
            if (dx >= 0.0)
            {
                next[nn][0] = x[0];
                next[nn][1] = x[1];
                nn++;
            }
            if ((dx >= 0.0) != (dy >= 0.0))
            {
                double t = dx / (dx - dy);
                next[nn][0] = x[0] + t * (y[0] - x[0]);
                next[nn][1] = x[1] + t * (y[1] - x[1]);
                nn++;
            }
        }
        count = nn;
        memcpy(poly, next, (size_t)nn * sizeof poly[0]);
    }
    double a2 = 0.0;
    for (int i = 0; i < count; ++i)
    {
        a2 += poly[i][0] * poly[(i + 1) % count][1] - poly[(i + 1) % count][0] * poly[i][1];
    }
    double nax = ax == 0 ? n.x : (ax == 1 ? n.y : n.z);
    return fabs(a2) / (2.0 * fabs(nax));
}

typedef struct tri_box
{
    double lo[3], hi[3];
    uint32_t t;
} tri_box;

static int cmp_box(const void* a, const void* b)
{
    const tri_box* x = a;
    const tri_box* y = b;
    return x->lo[0] < y->lo[0] ? -1 : (x->lo[0] > y->lo[0] ? 1 : (x->t < y->t ? -1 : (x->t > y->t ? 1 : 0)));
}

static void tri_corners(const oracle_ctx* c, int b, uint32_t t, mc_vec3 p[3])
{
    for (int k = 0; k < 3; ++k)
    {
        p[k] = pos(c, b, c->mesh[b]->indices[3 * t + k]);
    }
}

static tri_box* boxes_of(const oracle_ctx* c, int b)
{
    uint32_t n = c->mesh[b]->triangle_count;
    tri_box* bx = malloc(((size_t)n + 1u) * sizeof *bx);
    for (uint32_t t = 0; t < n && bx != NULL; ++t)
    {
        mc_vec3 p[3];
        tri_corners(c, b, t, p);
        for (int a = 0; a < 3; ++a)
        {
            double x0 = (&p[0].x)[a], x1 = (&p[1].x)[a], x2 = (&p[2].x)[a];
            bx[t].lo[a] = fmin(x0, fmin(x1, x2));
            bx[t].hi[a] = fmax(x0, fmax(x1, x2));
        }
        bx[t].t = t;
    }
    return bx;
}

/// The flush pieces of both bodies (see the top of this file) into out->flush_i, flush_j. -1 on allocation failure.
static int flush_pieces(const oracle_ctx* c, clip_oracle_result* out)
{
    tri_box* bi = boxes_of(c, 0);
    tri_box* bj = boxes_of(c, 1);
    if (bi == NULL || bj == NULL)
    {
        free(bi);
        free(bj);
        return -1;
    }
    uint32_t ni = c->mesh[0]->triangle_count, nj = c->mesh[1]->triangle_count;
    qsort(bj, nj, sizeof *bj, cmp_box);
    double wj = 0.0;
    for (uint32_t k = 0; k < nj; ++k)
    {
        wj = fmax(wj, bj[k].hi[0] - bj[k].lo[0]);
    }
    for (uint32_t a = 0; a < ni; ++a)
    {
        uint32_t lo = 0, hi = nj;
        while (lo < hi) // first J box with lo[0] >= bi[a].lo[0] - wj
        {
            uint32_t mid = lo + (hi - lo) / 2;
            lo = bj[mid].lo[0] < bi[a].lo[0] - wj ? mid + 1 : lo;
            hi = bj[mid].lo[0] < bi[a].lo[0] - wj ? hi : mid;
        }
        for (uint32_t k = lo; k < nj && bj[k].lo[0] <= bi[a].hi[0]; ++k)
        {
            if (bj[k].hi[0] < bi[a].lo[0] || bj[k].hi[1] < bi[a].lo[1] || bj[k].lo[1] > bi[a].hi[1] ||
                bj[k].hi[2] < bi[a].lo[2] || bj[k].lo[2] > bi[a].hi[2])
            {
                continue;
            }
            mc_vec3 p[3], q[3];
            tri_corners(c, 0, bi[a].t, p);
            tri_corners(c, 1, bj[k].t, q);
            if (mc_orient3d_sign(&p[0], &p[1], &p[2], &q[0]) != 0 ||
                mc_orient3d_sign(&p[0], &p[1], &p[2], &q[1]) != 0 || mc_orient3d_sign(&p[0], &p[1], &p[2], &q[2]) != 0)
            {
                continue;
            }
            mc_vec3 np = mc_normalize(mc_cross(mc_sub(p[1], p[0]), mc_sub(p[2], p[0])));
            mc_vec3 nq = mc_normalize(mc_cross(mc_sub(q[1], q[0]), mc_sub(q[2], q[0])));
            int same = mc_dot(np, nq) > 0.0 ? 1 : -1;
            // The rule's side of J's triangle against I's plane, and of I's against J's plane.
            int side_i = mc_sym_orient_point_plane(&p[0], &p[1], &p[2], &q[0], 1, NULL);
            int side_j = mc_sym_orient_point_plane(&q[0], &q[1], &q[2], &p[0], 0, NULL);
            if (side_i * same > 0)
            {
                out->flush_i = mc_add(out->flush_i, mc_scale(np, overlap_area(p, q, np)));
            }
            if (side_j * same > 0)
            {
                out->flush_j = mc_add(out->flush_j, mc_scale(nq, overlap_area(q, p, nq)));
            }
        }
    }
    free(bi);
    free(bj);
    return 0;
}

int clip_oracle_compute(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pair_result* pairs,
                        struct mc_workspace* ws, clip_oracle_result* out)
{
    memset(out, 0, sizeof *out);
    oracle_ctx c;
    memset(&c, 0, sizeof c);
    c.mesh[0] = mi;
    c.mesh[1] = mj;
    c.ps = ws->pairs;
    c.pr = pairs;
    c.inside[0] = calloc(mi->vertex_count + 1u, 1);
    c.inside[1] = calloc(mj->vertex_count + 1u, 1);
    c.by_j_first = calloc((size_t)mj->triangle_count + 1u, sizeof *c.by_j_first);
    c.by_j = malloc(((size_t)pairs->pair_count + 1u) * sizeof *c.by_j);
    uint32_t* plist_i = malloc(((size_t)pairs->pair_count + 1u) * sizeof *plist_i);
    if (!c.inside[0] || !c.inside[1] || !c.by_j_first || !c.by_j || !plist_i)
    {
        free(c.inside[0]);
        free(c.inside[1]);
        free(c.by_j_first);
        free(c.by_j);
        free(plist_i);
        return -1;
    }
    // Exact point-in-mesh for every vertex (flipped solids are the outside of their surface).
    for (uint32_t v = 0; v < mi->vertex_count; ++v)
    {
        int parity = mc_bvh_point_parity(mj, 1, c.ps, mi->positions[v], 0);
        c.inside[0][v] = (uint8_t)((parity != 0) != mj->flipped);
        out->inside_vertices_i += c.inside[0][v];
    }
    for (uint32_t v = 0; v < mj->vertex_count; ++v)
    {
        int parity = mc_bvh_point_parity(mi, 0, NULL, mc_pair_scratch_j_vertex(c.ps, v), 1);
        c.inside[1][v] = (uint8_t)((parity != 0) != mi->flipped);
        out->inside_vertices_j += c.inside[1][v];
    }
    // Pairs grouped by triangle of J (counting sort); for I they are contiguous already.
    for (uint32_t k = 0; k < pairs->pair_count; ++k)
    {
        c.by_j_first[pairs->pairs[k].j + 1u]++;
    }
    for (uint32_t t = 0; t < mj->triangle_count; ++t)
    {
        c.by_j_first[t + 1u] += c.by_j_first[t];
    }
    {
        uint32_t* fill = calloc((size_t)mj->triangle_count + 1u, sizeof *fill);
        for (uint32_t k = 0; k < pairs->pair_count; ++k)
        {
            uint32_t j = pairs->pairs[k].j;
            c.by_j[c.by_j_first[j] + fill[j]++] = k;
        }
        free(fill);
    }
    oracle_acc acc;
    memset(&acc, 0, sizeof acc);
    for (uint32_t k = 0; k < pairs->pair_count; ++k)
    {
        acc.o = mc_add(acc.o, mc_scale(mc_add(pairs->pairs[k].crossing[0].point, pairs->pairs[k].crossing[1].point),
                                       0.5 / pairs->pair_count));
    }
    uint32_t k = 0;
    for (uint32_t t = 0; t < mi->triangle_count; ++t)
    {
        uint32_t n = 0;
        while (k < pairs->pair_count && pairs->pairs[k].i == t)
        {
            plist_i[n++] = k++;
        }
        clip_triangle(&c, 0, t, plist_i, n, &acc, &out->inconsistent_edges);
    }
    for (uint32_t t = 0; t < mj->triangle_count; ++t)
    {
        clip_triangle(&c, 1, t, c.by_j + c.by_j_first[t], c.by_j_first[t + 1u] - c.by_j_first[t], &acc,
                      &out->inconsistent_edges);
    }
    out->volume = acc.vol6 / 6.0;
    out->centroid = out->volume != 0.0 ? mc_add(acc.o, mc_scale(acc.mom24, 1.0 / (4.0 * acc.vol6))) : acc.o;
    int flush_ok = flush_pieces(&c, out);
    out->s_i = mc_sub(mc_scale(acc.s2[0], 0.5), out->flush_i);
    out->s_j = mc_sub(mc_scale(acc.s2[1], 0.5), out->flush_j);
    out->kept_pieces = acc.pieces;
    free(c.inside[0]);
    free(c.inside[1]);
    free(c.by_j_first);
    free(c.by_j);
    free(plist_i);
    return flush_ok;
}
