// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The self-check's pairs at a fan vertex (bvh_self_fan.h): the triangles that share exactly one vertex of high degree
// (a CAD cap fanned from its centre), decided by sorting their corners at that vertex instead of testing every pair.
// Based on: the self-intersection rule of src/base/tri_tri_closed.h; the angular sweep is derived here.
//
// Two triangles A = (a, b, c) and B = (a, e, f) of one mesh that share exactly the vertex a intersect under the rule
// iff they have a common point other than a, iff their corners at a (the closed cones a + s (b - a) + t (c - a),
// s, t >= 0) share a ray: a common point x != a gives the segment [a, x] in both (convexity), and a common ray gives
// common points near a (each triangle coincides with its cone near a). Projected along a coordinate axis where a
// triangle's corner does not flatten (the projected b - a and c - a are independent: an exact 2D orientation that is
// not 0), a shared ray d = s (b - a) + t (c - a) projects to a non-zero ray in both projected corners. So only the
// pairs whose projected corners (closed angular sectors at a, each less than a half turn) share a ray can intersect;
// two such sectors share a ray iff the start ray of one lies in the other. The starts sorted by angle (exact
// comparisons of coordinates and exact 2D orientations), each sector's candidates are the starts that follow its own,
// up to its end: output-sensitive (in a valid fan only the neighbours, which share an edge and are left to the
// traversal). Every candidate sharing exactly a gets the exact test mc_tri_tri_self_intersect, as the traversal would
// have given it; a corner that flattens in the projection is tested against every other triangle at a.
#include "bvh/bvh_self_fan.h"

#include "mesh/mesh_internal.h"
#include "src/base/core.h"
#include "src/base/predicates.h"
#include "src/base/tri_tri_closed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// One triangle's corner at the fan vertex, projected: the sector from `start` to `end` counter-clockwise (exact 2D
/// orientation of (a, start, end) positive along the projection axis).
typedef struct fan_sector
{
    uint32_t tri;
    const mc_vec3* start;
    const mc_vec3* end;
} fan_sector;

typedef struct fan_ctx
{
    const struct mc_mesh* mesh;
    uint32_t v;       // the fan vertex
    const mc_vec3* a; // its position
    int axis;         // projection axis
} fan_ctx;

/// Exact sign of the orientation of p, q, r projected along `axis` (component `axis` of (q - p) x (r - p)).
static inline int orient2(const mc_vec3* p, const mc_vec3* q, const mc_vec3* r, int axis)
{
    return mc_cross_component_sign(p, q, p, r, axis);
}

/// Which half-turn the direction p - a lies in, seen along `axis` (coordinates i = axis + 1, j = axis + 2 as orient2):
/// 0 for j > 0 or (j == 0 and i > 0), else 1 (exact comparisons of the coordinates).
static inline int half_of(const fan_ctx* f, const mc_vec3* p)
{
    int i = (f->axis + 1) % 3, j = (f->axis + 2) % 3;
    double pi = (&p->x)[i], pj = (&p->x)[j], ai = (&f->a->x)[i], aj = (&f->a->x)[j];
    return pj > aj || (pj == aj && pi > ai) ? 0 : 1;
}

/// Angular order of the sectors' starts (counter-clockwise from the i axis), ties by triangle index.
static int sector_before(const fan_ctx* f, const fan_sector* x, const fan_sector* y)
{
    int hx = half_of(f, x->start), hy = half_of(f, y->start);
    if (hx != hy)
    {
        return hx < hy;
    }
    int s = orient2(f->a, x->start, y->start, f->axis);
    return s != 0 ? s > 0 : x->tri < y->tri;
}

/// Does the start of y lie in x's closed sector? (Both orientations >= 0; the opposite ray fails the second.)
static inline int start_in_sector(const fan_ctx* f, const fan_sector* x, const fan_sector* y)
{
    return orient2(f->a, x->start, y->start, f->axis) >= 0 && orient2(f->a, y->start, x->end, f->axis) >= 0;
}

/// Merge sort of n sectors by sector_before (tmp: n entries).
static void sort_sectors(const fan_ctx* f, fan_sector* s, fan_sector* tmp, uint32_t n)
{
    for (uint32_t width = 1; width < n; width *= 2u)
    {
        for (uint32_t lo = 0; lo < n; lo += 2u * width)
        {
            uint32_t mid = lo + width < n ? lo + width : n, hi = lo + 2u * width < n ? lo + 2u * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
            {
                tmp[k++] = sector_before(f, &s[j], &s[i]) ? s[j++] : s[i++];
            }
            while (i < mid)
            {
                tmp[k++] = s[i++];
            }
            while (j < hi)
            {
                tmp[k++] = s[j++];
            }
        }
        memcpy(s, tmp, (size_t)n * sizeof *s);
    }
}

typedef struct pair_list
{
    uint64_t* keys; // min << 32 | max
    uint64_t count, capacity;
} pair_list;

static int pair_push(pair_list* l, uint32_t t, uint32_t u)
{
    if (l->count == l->capacity)
    {
        uint64_t cap = l->capacity < 64u ? 64u : 2u * l->capacity;
        uint64_t* k = mc_realloc(l->keys, (size_t)cap * sizeof *k);
        if (k == NULL)
        {
            return 0;
        }
        l->keys = k;
        l->capacity = cap;
    }
    l->keys[l->count++] = t < u ? (uint64_t)t << 32 | u : (uint64_t)u << 32 | t;
    return 1;
}

static int key_less(const void* x, const void* y)
{
    uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
    return (a > b) - (a < b);
}

/// The candidate pairs of one fan vertex (its incident triangles `tris`, n of them) into l: pairs sharing exactly the
/// vertex whose projected sectors share a ray, and every pair of a flattened corner with the others.
static int fan_candidates(const fan_ctx* f, const uint32_t* tris, uint32_t n, fan_sector* s, fan_sector* tmp,
                          pair_list* l)
{
    const struct mc_mesh* m = f->mesh;
    uint32_t ns = 0, nflat = 0;
    uint32_t* flat = (uint32_t*)tmp; // flattened corners first (tmp is free until the sort)
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t* tv = &m->indices[3u * tris[k]];
        int c = tv[0] == f->v ? 0 : (tv[1] == f->v ? 1 : 2);
        const mc_vec3* b = &m->positions[tv[(c + 1) % 3]];
        const mc_vec3* e = &m->positions[tv[(c + 2) % 3]];
        int o = orient2(f->a, b, e, f->axis);
        if (o == 0)
        {
            flat[nflat++] = tris[k];
            continue;
        }
        s[ns].tri = tris[k];
        s[ns].start = o > 0 ? b : e;
        s[ns].end = o > 0 ? e : b;
        ++ns;
    }
    for (uint32_t x = 0; x < nflat; ++x)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            if (tris[k] != flat[x] && !pair_push(l, flat[x], tris[k]))
            {
                return 0;
            }
        }
    }
    sort_sectors(f, s, tmp, ns);
    for (uint32_t x = 0; x < ns; ++x)
    {
        // On round the circle from x while the starts lie in x's sector (a tie before x in the order finds x itself).
        for (uint32_t step = 1; step < ns; ++step)
        {
            uint32_t y = (x + step) % ns;
            if (!start_in_sector(f, &s[x], &s[y]))
            {
                break;
            }
            if (!pair_push(l, s[x].tri, s[y].tri))
            {
                return 0;
            }
        }
    }
    return 1;
}

/// Projection axis for a fan: the largest component of the sum of its triangles' normals (from the positions: any axis
/// is correct, this one flattens the fewest corners of a flat or conical fan).
static int fan_axis(const struct mc_mesh* m, const uint32_t* tris, uint32_t n)
{
    mc_vec3 sum = mc_v3(0.0, 0.0, 0.0);
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t* tv = &m->indices[3u * tris[k]];
        mc_vec3 nk = mc_cross(mc_sub(m->positions[tv[1]], m->positions[tv[0]]),
                              mc_sub(m->positions[tv[2]], m->positions[tv[0]]));
        double len = mc_length(nk);
        sum = len > 0.0 ? mc_add(sum, mc_scale(nk, 1.0 / len)) : sum;
    }
    double x = fabs(sum.x), y = fabs(sum.y), z = fabs(sum.z);
    return x >= y ? (x >= z ? 0 : 2) : (y >= z ? 1 : 2);
}

mc_status mc_self_fan_vertices(const struct mc_mesh* mesh, uint32_t min_degree, uint8_t** out)
{
    *out = NULL;
    uint32_t* degree = mc_calloc(mesh->vertex_count, sizeof *degree);
    if (degree == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0; k < 3u * mesh->triangle_count; ++k)
    {
        degree[mesh->indices[k]]++;
    }
    uint32_t any = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
    {
        any += degree[v] >= min_degree;
    }
    uint8_t* fan = any > 0 ? mc_alloc(mesh->vertex_count) : NULL;
    for (uint32_t v = 0; fan != NULL && v < mesh->vertex_count; ++v)
    {
        fan[v] = degree[v] >= min_degree;
    }
    mc_free(degree);
    *out = fan;
    return any > 0 && fan == NULL ? MC_ERR_OUT_OF_MEMORY : MC_OK;
}

mc_status mc_self_fan_pairs(const struct mc_mesh* mesh, const uint8_t* fan, mc_self_fan_emit emit, void* ctx,
                            uint64_t* tests)
{
    // Incident triangles of the fan vertices (counting sort by vertex).
    uint32_t nv = mesh->vertex_count, nt = mesh->triangle_count;
    uint32_t* start = mc_calloc((size_t)nv + 1u, sizeof *start);
    uint32_t total = 0;
    for (uint32_t k = 0; start != NULL && k < 3u * nt; ++k)
    {
        total += fan[mesh->indices[k]];
        start[mesh->indices[k] + 1u] += fan[mesh->indices[k]];
    }
    uint32_t* tris = mc_alloc_array(total > 0 ? total : 1u, sizeof *tris);
    fan_sector* s = mc_alloc_array(total > 0 ? total : 1u, sizeof *s);
    fan_sector* tmp = mc_alloc_array(total > 0 ? total : 1u, sizeof *tmp);
    pair_list l = {NULL, 0, 0};
    mc_status st = start == NULL || tris == NULL || s == NULL || tmp == NULL ? MC_ERR_OUT_OF_MEMORY : MC_OK;
    for (uint32_t v = 0; st == MC_OK && v < nv; ++v)
    {
        start[v + 1u] += start[v];
    }
    for (uint32_t t = 0; st == MC_OK && t < nt; ++t)
    {
        for (int c = 0; c < 3; ++c)
        {
            uint32_t v = mesh->indices[3u * t + (uint32_t)c];
            if (fan[v])
            {
                tris[start[v]++] = t; // start[v] ends at the next vertex's first
            }
        }
    }
    for (uint32_t v = 0, first = 0; st == MC_OK && v < nv; first = start[v], ++v)
    {
        if (!fan[v])
        {
            continue;
        }
        uint32_t n = start[v] - first;
        fan_ctx f = {mesh, v, &mesh->positions[v], fan_axis(mesh, &tris[first], n)};
        st = fan_candidates(&f, &tris[first], n, s, tmp, &l) ? MC_OK : MC_ERR_OUT_OF_MEMORY;
    }
    if (st == MC_OK && l.count > 0)
    {
        qsort(l.keys, (size_t)l.count, sizeof *l.keys, key_less);
        for (uint64_t k = 0; k < l.count; ++k)
        {
            if (k > 0 && l.keys[k] == l.keys[k - 1u])
            {
                continue;
            }
            uint32_t t = (uint32_t)(l.keys[k] >> 32), u = (uint32_t)l.keys[k];
            const uint32_t *it = &mesh->indices[3u * t], *iu = &mesh->indices[3u * u];
            mc_tri_plane pt, pu;
            mc_tri_plane_init(&pt, mesh->positions[it[0]], mesh->positions[it[1]], mesh->positions[it[2]]);
            mc_tri_plane_init(&pu, mesh->positions[iu[0]], mesh->positions[iu[1]], mesh->positions[iu[2]]);
            *tests += 1u;
            if (mc_tri_tri_self_intersect(&pt, it, &pu, iu))
            {
                emit(ctx, t, u);
            }
        }
    }
    mc_free(start);
    mc_free(tris);
    mc_free(s);
    mc_free(tmp);
    mc_free(l.keys);
    return st;
}
