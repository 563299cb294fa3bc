// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mesh creation from arrays: copy and scale, weld, checks (closed, manifold, oriented), zero-area triangle removal
// with T-junction repair, reorientation, flip, topology (twins, fans, components), report, OBB tree.
#include "mesh/mesh_internal.h"
#include "mesh/soup.h"
#include "src/base/core.h"
#include "src/base/union_find.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------
// Exact zero test of a 2x2 determinant of point differences (error-free transformations, expansion sum).

static void two_sum(double a, double b, double* x, double* y)
{
    *x = a + b;
    double bv = *x - a;
    double av = *x - bv;
    *y = (a - av) + (b - bv);
}

static void two_diff(double a, double b, double* x, double* y)
{
    *x = a - b;
    double bv = a - *x;
    double av = *x + bv;
    *y = (a - av) + (bv - b);
}

// Add q to the nonoverlapping expansion e[0..n) (increasing magnitude); returns the new length.
static int grow_expansion(double* e, int n, double q)
{
    for (int i = 0; i < n; ++i)
    {
        double s, t;
        two_sum(q, e[i], &s, &t);
        e[i] = t;
        q = s;
    }
    e[n] = q;
    return n + 1;
}

// Exact: is (b0 - a0) * (c1 - a1) - (b1 - a1) * (c0 - a0) zero? Overflow-free inputs assumed (|x| < 1e150).
static bool orient2d_is_zero(double a0, double a1, double b0, double b1, double c0, double c1)
{
    double l = (b0 - a0) * (c1 - a1);
    double r = (b1 - a1) * (c0 - a0);
    double det = l - r;
    // Static filter: the rounded determinant is off by at most ~3.3e-16 (|l| + |r|) (Shewchuk's ccwerrboundA).
    if (fabs(det) > 1e-15 * (fabs(l) + fabs(r)))
    {
        return false;
    }
    if (!isfinite(det))
    {
        return false; // overflowing coordinates: not decided exactly, treated as a proper triangle
    }
    double d[4][2];
    two_diff(b0, a0, &d[0][0], &d[0][1]);
    two_diff(c1, a1, &d[1][0], &d[1][1]);
    two_diff(b1, a1, &d[2][0], &d[2][1]);
    two_diff(c0, a0, &d[3][0], &d[3][1]);
    double e[33];
    int n = 0;
    for (int i = 0; i < 2; ++i)
    {
        for (int j = 0; j < 2; ++j)
        {
            double p = d[0][i] * d[1][j];
            double pe = fma(d[0][i], d[1][j], -p);
            double q = d[2][i] * d[3][j];
            double qe = fma(d[2][i], d[3][j], -q);
            n = grow_expansion(e, n, p);
            n = grow_expansion(e, n, pe);
            n = grow_expansion(e, n, -q);
            n = grow_expansion(e, n, -qe);
        }
    }
    for (int i = 0; i < n; ++i)
    {
        if (e[i] != 0.0)
        {
            return false;
        }
    }
    return true;
}

bool mc_triangle_is_degenerate(mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    return orient2d_is_zero(a.x, a.y, b.x, b.y, c.x, c.y) && orient2d_is_zero(a.y, a.z, b.y, b.z, c.y, c.z) &&
           orient2d_is_zero(a.z, a.x, b.z, b.x, c.z, c.x);
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

static double coord(mc_vec3 v, int k)
{
    return k == 0 ? v.x : (k == 1 ? v.y : v.z);
}

// Neumaier compensated sum.
typedef struct compensated_sum
{
    double s;
    double c;
} compensated_sum;

static void compensated_sum_add(compensated_sum* k, double v)
{
    double t = k->s + v;
    if (fabs(k->s) >= fabs(v))
    {
        k->c += (k->s - t) + v;
    }
    else
    {
        k->c += (v - t) + k->s;
    }
    k->s = t;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

// ---------------------------------------------------------------------------------------------------------------
// Welding

// Exact weld: wid[i] = id of the first input vertex with bit-identical coordinates (after -0 -> +0), ids dense in
// order of first appearance. Returns the number of distinct points, or UINT32_MAX on allocation failure.
uint32_t mc_weld_exact(const mc_vec3* pos, uint32_t n, uint32_t* wid)
{
    uint64_t cap = 16;
    while (cap < 2ull * n)
    {
        cap <<= 1;
    }
    uint32_t* table = mc_alloc_array(cap, sizeof(uint32_t)); // input vertex index + 1, 0 = empty
    if (table == NULL)
    {
        return UINT32_MAX;
    }
    memset(table, 0, cap * sizeof(uint32_t));
    uint64_t mask = cap - 1;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        uint64_t bx = bits_of(pos[i].x), by = bits_of(pos[i].y), bz = bits_of(pos[i].z);
        uint64_t h =
            mix64(bx * 0x9e3779b97f4a7c15ULL ^ mix64(by + 0x632be59bd9b4e019ULL) ^ (bz * 0x85ebca77c2b2ae63ULL));
        for (uint64_t slot = h & mask;; slot = (slot + 1) & mask)
        {
            uint32_t e = table[slot];
            if (e == 0)
            {
                table[slot] = i + 1;
                wid[i] = count++;
                break;
            }
            const mc_vec3* q = &pos[e - 1];
            if (bits_of(q->x) == bx && bits_of(q->y) == by && bits_of(q->z) == bz)
            {
                wid[i] = wid[e - 1];
                break;
            }
        }
    }
    mc_free(table);
    return count;
}

typedef struct cell_item
{
    int64_t c[3];
    uint32_t id;
} cell_item;

static int cmp_cell_item(const void* pa, const void* pb)
{
    const cell_item* a = pa;
    const cell_item* b = pb;
    for (int k = 0; k < 3; ++k)
    {
        if (a->c[k] != b->c[k])
        {
            return a->c[k] < b->c[k] ? -1 : 1;
        }
    }
    return a->id < b->id ? -1 : (a->id > b->id);
}

static int cmp_cell_key(const int64_t* key, const cell_item* b)
{
    for (int k = 0; k < 3; ++k)
    {
        if (key[k] != b->c[k])
        {
            return key[k] < b->c[k] ? -1 : 1;
        }
    }
    return 0;
}

// Tolerance weld of the distinct points upos[0..n): points closer than `dist` are merged (transitively).
// On return group[i] = smallest point id of i's cluster. Returns false on allocation failure.
bool mc_weld_tolerance(const mc_vec3* upos, uint32_t n, mc_vec3 lo, double dist, uint32_t* group)
{
    cell_item* items = mc_alloc_array(n, sizeof(cell_item));
    if (items == NULL)
    {
        return false;
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        items[i].c[0] = (int64_t)floor((upos[i].x - lo.x) / dist);
        items[i].c[1] = (int64_t)floor((upos[i].y - lo.y) / dist);
        items[i].c[2] = (int64_t)floor((upos[i].z - lo.z) / dist);
        items[i].id = i;
        group[i] = i;
    }
    qsort(items, n, sizeof(cell_item), cmp_cell_item);
    double d2 = dist * dist;
    for (uint32_t i = 0; i < n; ++i)
    {
        const cell_item* it = &items[i];
        for (int dx = -1; dx <= 1; ++dx)
        {
            for (int dy = -1; dy <= 1; ++dy)
            {
                for (int dz = -1; dz <= 1; ++dz)
                {
                    int64_t key[3] = {it->c[0] + dx, it->c[1] + dy, it->c[2] + dz};
                    // lower bound of key
                    uint32_t lo_i = 0, hi_i = n;
                    while (lo_i < hi_i)
                    {
                        uint32_t mid = lo_i + (hi_i - lo_i) / 2;
                        if (cmp_cell_key(key, &items[mid]) > 0)
                        {
                            lo_i = mid + 1;
                        }
                        else
                        {
                            hi_i = mid;
                        }
                    }
                    for (uint32_t j = lo_i; j < n && cmp_cell_key(key, &items[j]) == 0; ++j)
                    {
                        uint32_t a = it->id, b = items[j].id;
                        if (b <= a)
                        {
                            continue;
                        }
                        mc_vec3 d = mc_sub(upos[a], upos[b]);
                        if (mc_dot(d, d) < d2)
                        {
                            mc_uf_union(group, a, b);
                        }
                    }
                }
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        group[i] = mc_uf_find(group, i);
    }
    mc_free(items);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Edge statistics and twins

typedef struct edge_stats
{
    uint32_t boundary;     ///< undirected edges used once
    uint32_t nonmanifold;  ///< undirected edges used three or more times
    uint32_t dup_directed; ///< directed edges used two or more times
} edge_stats;

static int cmp_u64(const void* pa, const void* pb)
{
    uint64_t a = *(const uint64_t*)pa, b = *(const uint64_t*)pb;
    return a < b ? -1 : (a > b);
}

// Group the half-edges of tri[0..3nt) by undirected edge (buckets by smaller vertex). Self-edges (u == u, from a
// triangle with a repeated index) are not edges and are ignored. twin may be NULL; else filled (MC_NONE when the edge
// is not used exactly twice in opposite directions).
static bool edge_scan(const uint32_t* tri, uint32_t nt, uint32_t nv, uint32_t* twin, edge_stats* st)
{
    memset(st, 0, sizeof *st);
    uint32_t nh = 3 * nt;
    uint32_t* start = mc_calloc((size_t)nv + 1, sizeof(uint32_t));
    uint64_t* ent = mc_alloc_array(nh > 0 ? nh : 1, sizeof(uint64_t));
    if (start == NULL || ent == NULL)
    {
        mc_free(start);
        mc_free(ent);
        return false;
    }
    for (uint32_t h = 0; h < nh; ++h)
    {
        uint32_t u = tri[h], v = tri[h - h % 3 + (h % 3 + 1) % 3];
        if (twin != NULL)
        {
            twin[h] = MC_NONE;
        }
        if (u != v)
        {
            start[(u < v ? u : v) + 1]++;
        }
    }
    for (uint32_t i = 0; i < nv; ++i)
    {
        start[i + 1] += start[i];
    }
    for (uint32_t h = 0; h < nh; ++h)
    {
        uint32_t u = tri[h], v = tri[h - h % 3 + (h % 3 + 1) % 3];
        if (u != v)
        {
            uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
            ent[start[lo]++] = ((uint64_t)hi << 32) | h;
        }
    }
    // start[i] now is the end of bucket i; bucket i begins at start[i - 1] (0 for i = 0).
    uint32_t begin = 0;
    for (uint32_t vtx = 0; vtx < nv; ++vtx)
    {
        uint32_t end = start[vtx];
        uint32_t k = end - begin;
        uint64_t* b = ent + begin;
        if (k > 1)
        {
            if (k <= 16)
            {
                for (uint32_t i = 1; i < k; ++i)
                {
                    uint64_t x = b[i];
                    uint32_t j = i;
                    while (j > 0 && b[j - 1] > x)
                    {
                        b[j] = b[j - 1];
                        --j;
                    }
                    b[j] = x;
                }
            }
            else
            {
                qsort(b, k, sizeof(uint64_t), cmp_u64);
            }
        }
        for (uint32_t i = 0; i < k;)
        {
            uint32_t other = (uint32_t)(b[i] >> 32);
            uint32_t j = i;
            uint32_t forward = 0;
            while (j < k && (uint32_t)(b[j] >> 32) == other)
            {
                uint32_t h = (uint32_t)b[j];
                forward += tri[h] == vtx;
                ++j;
            }
            uint32_t m = j - i, backward = m - forward;
            if (m == 1)
            {
                st->boundary++;
            }
            else if (m >= 3)
            {
                st->nonmanifold++;
            }
            st->dup_directed += (forward >= 2) + (backward >= 2);
            if (m == 2 && forward == 1 && twin != NULL)
            {
                uint32_t h0 = (uint32_t)b[i], h1 = (uint32_t)b[i + 1];
                twin[h0] = h1;
                twin[h1] = h0;
            }
            i = j;
        }
        begin = end;
    }
    mc_free(start);
    mc_free(ent);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Zero-area triangle removal with T-junction repair

typedef struct edge_map
{
    uint64_t* keys; // (u << 32 | v) + 1, 0 = empty
    uint32_t* vals; // triangle
    uint64_t cap;
    uint64_t count;
} edge_map;

static bool emap_put(edge_map* m, uint64_t key, uint32_t val);

static bool emap_grow(edge_map* m)
{
    edge_map n = {0};
    n.cap = m->cap ? 2 * m->cap : 1024;
    n.keys = mc_calloc(n.cap, sizeof(uint64_t));
    n.vals = mc_alloc_array(n.cap, sizeof(uint32_t));
    if (n.keys == NULL || n.vals == NULL)
    {
        mc_free(n.keys);
        mc_free(n.vals);
        return false;
    }
    for (uint64_t i = 0; i < m->cap; ++i)
    {
        if (m->keys[i] != 0)
        {
            emap_put(&n, m->keys[i] - 1, m->vals[i]);
        }
    }
    mc_free(m->keys);
    mc_free(m->vals);
    *m = n;
    return true;
}

static bool emap_put(edge_map* m, uint64_t key, uint32_t val)
{
    if (2 * (m->count + 1) > m->cap && !emap_grow(m))
    {
        return false;
    }
    uint64_t mask = m->cap - 1;
    for (uint64_t s = mix64(key) & mask;; s = (s + 1) & mask)
    {
        if (m->keys[s] == 0)
        {
            m->keys[s] = key + 1;
            m->vals[s] = val;
            m->count++;
            return true;
        }
        if (m->keys[s] == key + 1)
        {
            m->vals[s] = val;
            return true;
        }
    }
}

static uint32_t emap_get(const edge_map* m, uint64_t key)
{
    if (m->cap == 0)
    {
        return MC_NONE;
    }
    uint64_t mask = m->cap - 1;
    for (uint64_t s = mix64(key) & mask;; s = (s + 1) & mask)
    {
        if (m->keys[s] == 0)
        {
            return MC_NONE;
        }
        if (m->keys[s] == key + 1)
        {
            return m->vals[s];
        }
    }
}

static uint64_t ekey(uint32_t u, uint32_t v)
{
    return ((uint64_t)u << 32) | v;
}

typedef struct triangle_list
{
    uint32_t* idx; // 3 per triangle
    uint8_t* dead;
    uint32_t count;
    uint32_t cap;
} triangle_list;

static bool emap_add_tri(edge_map* m, const triangle_list* tl, uint32_t t)
{
    const uint32_t* x = tl->idx + 3 * (size_t)t;
    return emap_put(m, ekey(x[0], x[1]), t) && emap_put(m, ekey(x[1], x[2]), t) && emap_put(m, ekey(x[2], x[0]), t);
}

static int tri_has_edge(const triangle_list* tl, uint32_t t, uint32_t u, uint32_t v)
{
    const uint32_t* x = tl->idx + 3 * (size_t)t;
    for (int k = 0; k < 3; ++k)
    {
        if (x[k] == u && x[(k + 1) % 3] == v)
        {
            return k;
        }
    }
    return -1;
}

typedef struct clean_result
{
    uint32_t degenerate; // zero-area triangles found as read
    uint32_t dropped;    // triangles removed
    uint32_t repaired;   // neighbours split
    bool complete;       // every degenerate was removed and every T-junction repaired
} clean_result;

// Remove zero-area triangles from tl (marking them dead), repairing T-junctions. Returns false on allocation failure.
static bool clean_degenerates(triangle_list* tl, const mc_vec3* pos, clean_result* res)
{
    memset(res, 0, sizeof *res);
    res->complete = true;
    uint32_t* queue = NULL;
    uint32_t qn = 0, qcap = 0;
    for (uint32_t t = 0; t < tl->count; ++t)
    {
        const uint32_t* x = tl->idx + 3 * (size_t)t;
        if (mc_triangle_is_degenerate(pos[x[0]], pos[x[1]], pos[x[2]]))
        {
            if (qn == qcap)
            {
                qcap = qcap ? 2 * qcap : 64;
                uint32_t* nq = mc_realloc(queue, qcap * sizeof(uint32_t));
                if (nq == NULL)
                {
                    mc_free(queue);
                    return false;
                }
                queue = nq;
            }
            queue[qn++] = t;
        }
    }
    res->degenerate = qn;
    if (qn == 0)
    {
        return true;
    }
    edge_map map = {0};
    bool map_built = false;
    bool ok = true;
    uint64_t budget = 4ull * qn + 16; // bound on repairs, against pathological chains of collinear triangles
    for (uint32_t qi = 0; qi < qn && ok; ++qi)
    {
        uint32_t t = queue[qi];
        if (tl->dead[t])
        {
            continue;
        }
        uint32_t a = tl->idx[3 * (size_t)t], b = tl->idx[3 * (size_t)t + 1], c = tl->idx[3 * (size_t)t + 2];
        tl->dead[t] = 1;
        res->dropped++;
        if (a == b || b == c || c == a)
        {
            continue; // repeated vertex: removing it keeps the other triangles' edges paired
        }
        // Three distinct collinear points: find the middle one m and the long edge p -> q of t.
        int axis = 0;
        for (int k = 0; k < 3; ++k)
        {
            if (coord(pos[a], k) != coord(pos[b], k) || coord(pos[a], k) != coord(pos[c], k))
            {
                axis = k;
                break;
            }
        }
        double ca = coord(pos[a], axis), cb = coord(pos[b], axis), cc = coord(pos[c], axis);
        uint32_t p, q, m;
        if ((ca < cc && cc < cb) || (cb < cc && cc < ca))
        {
            p = a, q = b, m = c;
        }
        else if ((cb < ca && ca < cc) || (cc < ca && ca < cb))
        {
            p = b, q = c, m = a;
        }
        else
        {
            p = c, q = a, m = b;
        }
        // t has the directed edge p -> q; the neighbour across it has q -> p.
        if (!map_built)
        {
            for (uint32_t s = 0; s < tl->count && ok; ++s)
            {
                if (!tl->dead[s])
                {
                    ok = emap_add_tri(&map, tl, s);
                }
            }
            map_built = true;
            if (!ok)
            {
                break;
            }
        }
        uint32_t nb = emap_get(&map, ekey(q, p));
        int k = nb == MC_NONE || tl->dead[nb] ? -1 : tri_has_edge(tl, nb, q, p);
        if (k < 0 || budget == 0)
        {
            res->complete = false;
            continue;
        }
        budget--;
        uint32_t d = tl->idx[3 * (size_t)nb + (k + 2) % 3];
        // Split nb = (q, p, d) into (q, m, d) and (m, p, d).
        if (tl->count == tl->cap)
        {
            uint32_t ncap = tl->cap + tl->cap / 4 + 16;
            uint32_t* ni = mc_realloc(tl->idx, (size_t)ncap * 3 * sizeof(uint32_t));
            if (ni == NULL)
            {
                ok = false;
                break;
            }
            tl->idx = ni;
            uint8_t* nd = mc_realloc(tl->dead, ncap);
            if (nd == NULL)
            {
                ok = false;
                break;
            }
            tl->dead = nd;
            tl->cap = ncap;
        }
        uint32_t nt2 = tl->count++;
        tl->dead[nt2] = 0;
        uint32_t* xn = tl->idx + 3 * (size_t)nb;
        xn[0] = q, xn[1] = m, xn[2] = d;
        uint32_t* x2 = tl->idx + 3 * (size_t)nt2;
        x2[0] = m, x2[1] = p, x2[2] = d;
        res->repaired++;
        ok = emap_add_tri(&map, tl, nb) && emap_add_tri(&map, tl, nt2);
        for (int r = 0; r < 2 && ok; ++r)
        {
            uint32_t s = r == 0 ? nb : nt2;
            const uint32_t* y = tl->idx + 3 * (size_t)s;
            if (mc_triangle_is_degenerate(pos[y[0]], pos[y[1]], pos[y[2]]))
            {
                if (qn == qcap)
                {
                    qcap = 2 * qcap;
                    uint32_t* nq = mc_realloc(queue, qcap * sizeof(uint32_t));
                    if (nq == NULL)
                    {
                        ok = false;
                        break;
                    }
                    queue = nq;
                }
                queue[qn++] = s;
            }
        }
    }
    mc_free(queue);
    mc_free(map.keys);
    mc_free(map.vals);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// Creation

mc_mesh_def mc_default_mesh_def(void)
{
    return (mc_mesh_def){.scale = 1.0,
                         .weld_tolerance = 0.0,
                         .flip = false,
                         .require_closed = true,
                         .internal_value = (int)MC_DEF_COOKIE,
                         .self_check = MC_SELF_CHECK_REFUSE};
}

static double signed_volume(const uint32_t* tri, uint32_t nt, const mc_vec3* pos, mc_vec3 o, double* area)
{
    compensated_sum v = {0, 0}, a = {0, 0};
    for (uint32_t t = 0; t < nt; ++t)
    {
        mc_vec3 p0 = mc_sub(pos[tri[3 * (size_t)t]], o);
        mc_vec3 p1 = mc_sub(pos[tri[3 * (size_t)t + 1]], o);
        mc_vec3 p2 = mc_sub(pos[tri[3 * (size_t)t + 2]], o);
        compensated_sum_add(&v, mc_dot(p0, mc_cross(p1, p2)));
        if (area != NULL)
        {
            compensated_sum_add(&a, mc_length(mc_cross(mc_sub(p1, p0), mc_sub(p2, p0))));
        }
    }
    if (area != NULL)
    {
        *area = 0.5 * (a.s + a.c);
    }
    return (v.s + v.c) / 6.0;
}

static mc_vec3 unit_normal(mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_vec3 e1 = mc_sub(b, a), e2 = mc_sub(c, a);
    mc_vec3 n = mc_cross(e1, e2);
    double l = mc_length(n);
    if (!(l > 0.0) || !isfinite(l))
    {
        // Tiny or huge edges: rescale by a power of two before the cross product.
        double m = fmax(fmax(fabs(e1.x), fabs(e1.y)), fmax(fabs(e1.z), fmax(fabs(e2.x), fmax(fabs(e2.y), fabs(e2.z)))));
        int ex = 0;
        frexp(m, &ex);
        e1 = mc_v3(ldexp(e1.x, -ex), ldexp(e1.y, -ex), ldexp(e1.z, -ex));
        e2 = mc_v3(ldexp(e2.x, -ex), ldexp(e2.y, -ex), ldexp(e2.z, -ex));
        n = mc_cross(e1, e2);
        l = mc_length(n);
        if (!(l > 0.0))
        {
            return mc_v3(0, 0, 0);
        }
    }
    return mc_scale(n, 1.0 / l);
}

static void report_progress(mc_progress_fcn* progress, void* user, double f)
{
    if (progress != NULL)
    {
        progress(f, user);
    }
}

static void mesh_free_arrays(mc_mesh* m)
{
    mc_free(m->positions);
    mc_free(m->indices);
    mc_free(m->twin);
    mc_free(m->vertex_halfedge);
    mc_free(m->face_normals);
    mc_free(m->vertex_component);
    mc_free(m->component_vertex);
    mc_free(m->component_volume);
    mc_free(m->next_positions);
    mc_free(m->next_volume);
    mc_free(m->next_normals);
}

// Smallest box around n >= 1 points.
static void bounding_box(const mc_vec3* p, uint32_t n, mc_vec3* lo, mc_vec3* hi)
{
    *lo = p[0];
    *hi = p[0];
    for (uint32_t i = 1; i < n; ++i)
    {
        *lo = mc_v3(fmin(lo->x, p[i].x), fmin(lo->y, p[i].y), fmin(lo->z, p[i].z));
        *hi = mc_v3(fmax(hi->x, p[i].x), fmax(hi->y, p[i].y), fmax(hi->z, p[i].z));
    }
}

// Union-find forest of vertex_count vertices in which the three vertices of each triangle are joined.
static void join_triangle_vertices(uint32_t* parent, uint32_t vertex_count, const uint32_t* indices,
                                   uint32_t triangle_count)
{
    for (uint32_t i = 0; i < vertex_count; ++i)
    {
        parent[i] = i;
    }
    for (uint32_t t = 0; t < triangle_count; ++t)
    {
        mc_uf_union(parent, indices[3 * (size_t)t], indices[3 * (size_t)t + 1]);
        mc_uf_union(parent, indices[3 * (size_t)t], indices[3 * (size_t)t + 2]);
    }
}

// vertex_halfedge[v] = the first half-edge leaving v (MC_NONE for an unused vertex).
static void first_outgoing_halfedges(mc_mesh* m)
{
    memset(m->vertex_halfedge, 0xff, (size_t)m->vertex_count * sizeof(uint32_t));
    for (uint32_t h = 0; h < 3 * m->triangle_count; ++h)
    {
        if (m->vertex_halfedge[m->indices[h]] == MC_NONE)
        {
            m->vertex_halfedge[m->indices[h]] = h;
        }
    }
}

/// What mc_mesh_build works on from one stage to the next; build_state_free releases whatever is still owned.
typedef struct build_state
{
    const mc_mesh_def* def;     ///< the checked def
    mc_progress_fcn* progress;  ///< may be NULL
    void* progress_user;        ///< passed to progress
    mc_mesh_report* report_out; ///< the caller's report (may be NULL)
    mc_error* err;              ///< where errors go
    mc_mesh_report report;      ///< filled stage by stage
    mc_vec3* scaled_positions;  ///< input vertices, scaled (until welded)
    uint32_t* weld_id;          ///< input vertex -> welded vertex (until the triangles are renumbered)
    mc_vec3* welded_positions;  ///< one point per welded vertex
    uint32_t welded_count;      ///< welded vertices
    uint32_t* weld_cluster;     ///< tolerance weld: cluster of each exactly welded vertex
    uint32_t* referenced_id;    ///< welded vertex -> referenced vertex (MC_NONE when no triangle uses it)
    triangle_list triangles;    ///< triangles on the referenced vertices, then the cleaned ones
    mc_vec3* positions;         ///< referenced points, then the cleaned mesh's points
    uint32_t vertex_count;      ///< points in positions
    uint32_t* compaction;       ///< referenced vertex -> vertex of the cleaned mesh
    uint32_t* parent;           ///< union-find forest (or fan degrees), one entry per referenced vertex
    clean_result clean;         ///< what the zero-area cleaning did
    bool usable;                ///< closed, manifold, oriented, cleaned and unpinched: usable for contact
    mc_mesh* mesh;              ///< the mesh being filled
} build_state;

static void build_state_free(build_state* s)
{
    mc_free(s->scaled_positions);
    mc_free(s->weld_id);
    mc_free(s->welded_positions);
    mc_free(s->weld_cluster);
    mc_free(s->referenced_id);
    mc_free(s->triangles.idx);
    mc_free(s->triangles.dead);
    mc_free(s->positions);
    mc_free(s->compaction);
    mc_free(s->parent);
    mc_mesh_free(s->mesh);
    memset(s, 0, sizeof *s);
}

static mc_status build_out_of_memory(build_state* s)
{
    return mc_set_error(s->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while building the mesh");
}

static void build_publish_report(const build_state* s)
{
    if (s->report_out != NULL)
    {
        *s->report_out = s->report;
    }
}

// Stage "check the def": arguments, scale, weld tolerance, counts, stride, index range; the report gets the input
// figures.
static mc_status build_check_def(build_state* s, const mc_read_facts* read)
{
    const mc_mesh_def* def = s->def;
    if (def == NULL)
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mesh def is NULL");
    }
    MC_ASSERT(def->internal_value == (int)MC_DEF_COOKIE);
    if (def->internal_value != (int)MC_DEF_COOKIE)
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mesh def not initialized with mc_default_mesh_def");
    }
    double scale = def->scale;
    s->report.scale = scale;
    s->report.input_vertices = def->vertex_count;
    s->report.input_triangles = def->triangle_count;
    if (read != NULL)
    {
        s->report.split_polygons = read->split_polygons;
        s->report.trailing_bytes = read->trailing_bytes;
        s->report.repair = read->repair;
        s->report.brep_solids = read->brep_solids;
        s->report.brep_surfaces = read->brep_surfaces;
        s->report.brep_volume = read->brep_volume;
    }
    s->report.flipped = def->flip;
    build_publish_report(s);
    if (!(scale > 0.0) || !isfinite(scale))
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1, "scale %g must be finite and positive", scale);
    }
    double wtol = def->weld_tolerance;
    if (!(wtol == 0.0 || (wtol >= 1e-12 && wtol <= 0.1)))
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "weld tolerance %g must be 0 (exact) or between 1e-12 and 0.1 of the bbox diagonal", wtol);
    }
    uint32_t nv = def->vertex_count, nt = def->triangle_count;
    if (nt == 0)
    {
        return mc_set_error(s->err, MC_ERR_EMPTY_MESH, -1, -1, "mesh has no triangles");
    }
    if (nt > (UINT32_MAX - 3) / 3)
    {
        return mc_set_error(s->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%u triangles: too many", nt);
    }
    if (def->indices == NULL || (nv > 0 && def->positions == NULL))
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mesh def positions or indices are NULL");
    }
    size_t stride = def->position_stride ? def->position_stride : 3 * sizeof(double);
    if (stride < 3 * sizeof(double))
    {
        return mc_set_error(s->err, MC_ERR_INVALID_ARGUMENT, -1, -1, "position stride %zu is smaller than 3 doubles",
                            stride);
    }
    for (uint64_t i = 0; i < 3ull * nt; ++i)
    {
        if (def->indices[i] >= nv)
        {
            return mc_set_error(s->err, MC_ERR_INDEX_OUT_OF_RANGE, -1, -1,
                                "triangle %llu refers to vertex %u but there are %u vertices",
                                (unsigned long long)(i / 3), def->indices[i], nv);
        }
    }
    return MC_OK;
}

// Stage "copy and scale": the input points times the scale, each coordinate checked finite.
static mc_status build_scale_positions(build_state* s)
{
    const mc_mesh_def* def = s->def;
    uint32_t nv = def->vertex_count;
    size_t stride = def->position_stride ? def->position_stride : 3 * sizeof(double);
    s->scaled_positions = mc_alloc_array(nv > 0 ? nv : 1, sizeof(mc_vec3));
    s->weld_id = mc_alloc_array(nv > 0 ? nv : 1, sizeof(uint32_t));
    if (s->scaled_positions == NULL || s->weld_id == NULL)
    {
        return build_out_of_memory(s);
    }
    for (uint32_t i = 0; i < nv; ++i)
    {
        double x[3];
        memcpy(x, (const char*)def->positions + (size_t)i * stride, sizeof x);
        for (int k = 0; k < 3; ++k)
        {
            double scaled = x[k] * def->scale + 0.0; // + 0.0 turns -0 into +0 so that welding merges them
            if (!isfinite(x[k]))
            {
                return mc_set_error(s->err, MC_ERR_NON_FINITE, -1, -1, "vertex %u has a non-finite coordinate (%g)", i,
                                    x[k]);
            }
            double a = fabs(scaled);
            if (a > MC_COORDINATE_MAX || (x[k] != 0.0 && a < MC_COORDINATE_MIN))
            {
                return mc_set_error(s->err, MC_ERR_OUT_OF_RANGE, -1, -1,
                                    "vertex %u has coordinate %.17g (scaled by %g: %.17g), outside the range of the "
                                    "library: 0 or a magnitude between 2^-240 (%.3g) and 2^64 (%.3g); scale the mesh",
                                    i, x[k], def->scale, scaled, MC_COORDINATE_MIN, MC_COORDINATE_MAX);
            }
            x[k] = scaled;
        }
        s->scaled_positions[i] = mc_v3(x[0], x[1], x[2]);
    }
    report_progress(s->progress, s->progress_user, 0.55);
    return MC_OK;
}

// Tolerance weld of the exactly welded points: clusters within weld_tolerance times the bbox diagonal become one
// vertex (the smallest member's point).
static mc_status build_weld_tolerance(build_state* s)
{
    uint32_t nu = s->welded_count;
    mc_vec3* upos = s->welded_positions;
    mc_vec3 lo, hi;
    bounding_box(upos, nu, &lo, &hi);
    double dist = s->def->weld_tolerance * mc_length(mc_sub(hi, lo));
    if (!(dist > 0.0 && isfinite(dist)))
    {
        return MC_OK;
    }
    s->weld_cluster = mc_alloc_array(nu, sizeof(uint32_t));
    uint32_t* group = s->weld_cluster;
    if (group == NULL || !mc_weld_tolerance(upos, nu, lo, dist, group))
    {
        return build_out_of_memory(s);
    }
    // Renumber clusters densely in order of their smallest member.
    uint32_t nc = 0;
    for (uint32_t i = 0; i < nu; ++i)
    {
        if (group[i] == i)
        {
            upos[nc] = upos[i];
            group[i] = nc++;
        }
        else
        {
            group[i] = group[group[i]];
        }
    }
    for (uint32_t i = 0; i < s->def->vertex_count; ++i)
    {
        s->weld_id[i] = group[s->weld_id[i]];
    }
    s->welded_count = nc;
    return MC_OK;
}

// Stage "weld": equal points become one vertex, then (weld_tolerance > 0) near points too.
static mc_status build_weld(build_state* s)
{
    uint32_t nv = s->def->vertex_count;
    uint32_t nu = mc_weld_exact(s->scaled_positions, nv, s->weld_id);
    if (nu == UINT32_MAX)
    {
        return build_out_of_memory(s);
    }
    s->welded_count = nu;
    s->welded_positions = mc_alloc_array(nu > 0 ? nu : 1, sizeof(mc_vec3));
    if (s->welded_positions == NULL)
    {
        return build_out_of_memory(s);
    }
    for (uint32_t i = nv; i-- > 0;)
    {
        s->welded_positions[s->weld_id[i]] = s->scaled_positions[i]; // the first occurrence is written last
    }
    if (s->def->weld_tolerance > 0.0 && nu > 1)
    {
        mc_status st = build_weld_tolerance(s);
        if (st != MC_OK)
        {
            return st;
        }
    }
    s->report.welded_vertices = nv - s->welded_count;
    mc_free(s->scaled_positions);
    s->scaled_positions = NULL;
    return MC_OK;
}

// Stage "referenced vertices": the triangles renumbered onto the welded vertices they use, in order of first use.
static mc_status build_reference(build_state* s)
{
    const uint32_t* indices = s->def->indices;
    uint32_t nu = s->welded_count, nt = s->def->triangle_count;
    triangle_list* tl = &s->triangles;
    s->referenced_id = mc_alloc_array(nu > 0 ? nu : 1, sizeof(uint32_t));
    tl->cap = nt;
    tl->count = nt;
    tl->idx = mc_alloc_array((size_t)nt * 3, sizeof(uint32_t));
    tl->dead = mc_calloc(nt, 1);
    if (s->referenced_id == NULL || tl->idx == NULL || tl->dead == NULL)
    {
        return build_out_of_memory(s);
    }
    uint32_t* vmap = s->referenced_id;
    memset(vmap, 0xff, (size_t)(nu > 0 ? nu : 1) * sizeof(uint32_t));
    uint32_t nr = 0;
    for (uint64_t i = 0; i < 3ull * nt; ++i)
    {
        uint32_t w = s->weld_id[indices[i]];
        if (vmap[w] == MC_NONE)
        {
            vmap[w] = nr++;
        }
    }
    s->positions = mc_alloc_array(nr, sizeof(mc_vec3));
    if (s->positions == NULL)
    {
        return build_out_of_memory(s);
    }
    for (uint32_t w = 0; w < nu; ++w)
    {
        if (vmap[w] != MC_NONE)
        {
            s->positions[vmap[w]] = s->welded_positions[w];
        }
    }
    for (uint64_t i = 0; i < 3ull * nt; ++i)
    {
        tl->idx[i] = vmap[s->weld_id[indices[i]]];
    }
    mc_free(s->welded_positions);
    s->welded_positions = NULL;
    mc_free(s->weld_id);
    s->weld_id = NULL;
    mc_free(s->referenced_id);
    s->referenced_id = NULL;
    mc_free(s->weld_cluster);
    s->weld_cluster = NULL;
    s->vertex_count = nr;
    s->report.vertices = nr;
    return MC_OK;
}

// Stage "as read": bounding box, topology, volume, area and components of the welded triangles before cleaning.
static mc_status build_measure_as_read(build_state* s)
{
    mc_mesh_report* rep = &s->report;
    const uint32_t* idx = s->triangles.idx;
    uint32_t nt = s->triangles.count, nr = s->vertex_count;
    mc_vec3 lo, hi;
    bounding_box(s->positions, nr, &lo, &hi);
    rep->bbox_min = lo;
    rep->bbox_max = hi;
    // The divergence-theorem volume of a closed, oriented surface does not depend on the origin: use the bbox centre
    // for accuracy. Of an open surface it does: use the coordinate origin, the usual convention.
    mc_vec3 centre = mc_scale(mc_add(lo, hi), 0.5);
    mc_vec3 origin = mc_v3(0.0, 0.0, 0.0);
    edge_stats es;
    if (!edge_scan(idx, nt, nr, NULL, &es))
    {
        return build_out_of_memory(s);
    }
    rep->boundary_edges = es.boundary;
    rep->nonmanifold_edges = es.nonmanifold;
    rep->misoriented_edges = es.dup_directed;
    rep->closed = es.boundary == 0 && es.nonmanifold == 0;
    rep->oriented = es.dup_directed == 0;
    rep->manifold = es.nonmanifold == 0;
    rep->signed_volume_as_read =
        signed_volume(idx, nt, s->positions, rep->closed && rep->oriented ? centre : origin, &rep->area);
    rep->volume = rep->signed_volume_as_read;
    s->parent = mc_alloc_array(nr, sizeof(uint32_t));
    if (s->parent == NULL)
    {
        return build_out_of_memory(s);
    }
    join_triangle_vertices(s->parent, nr, idx, nt);
    for (uint32_t i = 0; i < nr; ++i)
    {
        rep->components += mc_uf_find(s->parent, i) == i;
    }
    report_progress(s->progress, s->progress_user, 0.7);
    return MC_OK;
}

// Stage "clean": zero-area triangles removed (T-junctions repaired), then the vertices the remaining triangles use
// renumbered densely (normally all of them).
static mc_status build_clean(build_state* s)
{
    triangle_list* tl = &s->triangles;
    if (!clean_degenerates(tl, s->positions, &s->clean))
    {
        return build_out_of_memory(s);
    }
    s->report.degenerate_triangles = s->clean.degenerate;
    s->report.dropped_triangles = s->clean.dropped;
    s->report.repaired_triangles = s->clean.repaired;
    uint32_t nf = 0;
    for (uint32_t t = 0; t < tl->count; ++t)
    {
        if (!tl->dead[t])
        {
            memmove(tl->idx + 3 * (size_t)nf, tl->idx + 3 * (size_t)t, 3 * sizeof(uint32_t));
            ++nf;
        }
    }
    tl->count = nf;
    s->report.triangles = nf;
    if (nf == 0)
    {
        build_publish_report(s);
        return mc_set_error(s->err, MC_ERR_EMPTY_MESH, -1, -1, "every triangle has zero area");
    }
    uint32_t nr = s->vertex_count;
    s->compaction = mc_alloc_array(nr, sizeof(uint32_t));
    uint32_t* fmap = s->compaction;
    if (fmap == NULL)
    {
        return build_out_of_memory(s);
    }
    memset(fmap, 0xff, (size_t)nr * sizeof(uint32_t));
    for (uint64_t i = 0; i < 3ull * nf; ++i)
    {
        fmap[tl->idx[i]] = 0;
    }
    uint32_t nfv = 0;
    for (uint32_t i = 0; i < nr; ++i)
    {
        if (fmap[i] == 0)
        {
            s->positions[nfv] = s->positions[i];
            fmap[i] = nfv++;
        }
    }
    for (uint64_t i = 0; i < 3ull * nf; ++i)
    {
        tl->idx[i] = fmap[tl->idx[i]];
    }
    mc_free(s->compaction);
    s->compaction = NULL;
    s->vertex_count = nfv;
    return MC_OK;
}

// Stage "mesh arrays": the mesh takes the cleaned triangles and points and gets its topology arrays.
static mc_status build_allocate_mesh(build_state* s)
{
    uint32_t nf = s->triangles.count, nfv = s->vertex_count;
    s->mesh = mc_calloc(1, sizeof(mc_mesh));
    mc_mesh* mesh = s->mesh;
    if (mesh == NULL)
    {
        return build_out_of_memory(s);
    }
    mesh->vertex_count = nfv;
    mesh->triangle_count = nf;
    mesh->indices = s->triangles.idx;
    s->triangles.idx = NULL;
    mesh->positions = s->positions;
    s->positions = NULL;
    mesh->twin = mc_alloc_array((size_t)nf * 3, sizeof(uint32_t));
    mesh->vertex_halfedge = mc_alloc_array(nfv, sizeof(uint32_t));
    mesh->face_normals = mc_alloc_array(nf, sizeof(mc_vec3));
    mesh->vertex_component = mc_alloc_array(nfv, sizeof(uint32_t));
    if (mesh->twin == NULL || mesh->vertex_halfedge == NULL || mesh->face_normals == NULL ||
        mesh->vertex_component == NULL)
    {
        return build_out_of_memory(s);
    }
    return MC_OK;
}

// Count the pinched vertices: those whose outgoing half-edges do not form a single fan (needs the twins).
static uint32_t count_pinched_vertices(mc_mesh* mesh, uint32_t* degree)
{
    const uint32_t* idx = mesh->indices;
    memset(degree, 0, (size_t)mesh->vertex_count * sizeof(uint32_t));
    for (uint32_t h = 0; h < 3 * mesh->triangle_count; ++h)
    {
        degree[idx[h]]++;
    }
    first_outgoing_halfedges(mesh);
    uint32_t pinched = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
    {
        uint32_t h0 = mesh->vertex_halfedge[v], h = h0, steps = 0;
        do
        {
            uint32_t prev = h - h % 3 + (h % 3 + 2) % 3; // edge w -> v of the same triangle
            h = mesh->twin[prev];                        // v -> w in the next triangle of the fan
            ++steps;
        } while (h != h0 && steps <= degree[v]);
        if (steps != degree[v])
        {
            pinched++;
        }
    }
    return pinched;
}

// Stage "usable for contact": twins of the cleaned mesh, fans, volume; a usable mesh with a negative volume is to be
// reoriented.
static mc_status build_check_usable(build_state* s)
{
    mc_mesh* mesh = s->mesh;
    mc_mesh_report* rep = &s->report;
    edge_stats cs;
    if (!edge_scan(mesh->indices, mesh->triangle_count, mesh->vertex_count, mesh->twin, &cs))
    {
        return build_out_of_memory(s);
    }
    s->usable = cs.boundary == 0 && cs.nonmanifold == 0 && cs.dup_directed == 0 && s->clean.complete;
    if (s->usable)
    {
        rep->pinched_vertices = count_pinched_vertices(mesh, s->parent); // parent is scratch here (nr >= nfv)
        s->usable = rep->pinched_vertices == 0;
        rep->manifold = rep->manifold && rep->pinched_vertices == 0;
    }
    rep->contact_ready = s->usable;
    mc_vec3 centre = mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5);
    double vol = signed_volume(mesh->indices, mesh->triangle_count, mesh->positions, centre, NULL);
    if (s->usable && vol < 0.0)
    {
        rep->reoriented = true;
        vol = -vol;
    }
    rep->volume = vol;
    return MC_OK;
}

// Stage "inward components": per-component signed volumes (after the global reorientation); a negative one is a
// cavity inside another component, or a shell wound the other way round than the rest. Counted, not changed.
static mc_status build_count_inward_components(build_state* s)
{
    const mc_mesh* mesh = s->mesh;
    const uint32_t* idx = mesh->indices;
    uint32_t nf = mesh->triangle_count, nfv = mesh->vertex_count;
    mc_vec3 centre = mc_scale(mc_add(s->report.bbox_min, s->report.bbox_max), 0.5);
    double* cvol = mc_calloc(nfv, sizeof(double));
    if (cvol == NULL)
    {
        return build_out_of_memory(s);
    }
    join_triangle_vertices(s->parent, nfv, idx, nf);
    for (uint32_t t = 0; t < nf; ++t)
    {
        mc_vec3 p0 = mc_sub(mesh->positions[idx[3 * (size_t)t]], centre);
        mc_vec3 p1 = mc_sub(mesh->positions[idx[3 * (size_t)t + 1]], centre);
        mc_vec3 p2 = mc_sub(mesh->positions[idx[3 * (size_t)t + 2]], centre);
        cvol[mc_uf_find(s->parent, idx[3 * (size_t)t])] += mc_dot(p0, mc_cross(p1, p2));
    }
    uint32_t shells = 0;
    for (uint32_t i = 0; i < nfv; ++i)
    {
        shells += mc_uf_find(s->parent, i) == i;
        if (mc_uf_find(s->parent, i) == i && (s->report.reoriented ? -cvol[i] : cvol[i]) < 0.0)
        {
            s->report.inward_components++;
        }
    }
    s->report.reoriented_shells = s->report.reoriented ? shells : 0;
    mc_free(cvol);
    return MC_OK;
}

// Stage "orientation": triangles reversed when reoriented xor flipped (twins rebuilt), fans, unit normals.
static mc_status build_orient(build_state* s)
{
    mc_mesh* mesh = s->mesh;
    uint32_t* idx = mesh->indices;
    uint32_t nf = mesh->triangle_count;
    if (s->report.reoriented != s->def->flip)
    {
        for (uint32_t t = 0; t < nf; ++t)
        {
            uint32_t tmp = idx[3 * (size_t)t + 1];
            idx[3 * (size_t)t + 1] = idx[3 * (size_t)t + 2];
            idx[3 * (size_t)t + 2] = tmp;
        }
        edge_stats cs;
        if (!edge_scan(idx, nf, mesh->vertex_count, mesh->twin, &cs))
        {
            return build_out_of_memory(s);
        }
    }
    mesh->flipped = s->def->flip;
    first_outgoing_halfedges(mesh);
    for (uint32_t t = 0; t < nf; ++t)
    {
        mesh->face_normals[t] =
            unit_normal(mesh->positions[idx[3 * (size_t)t]], mesh->positions[idx[3 * (size_t)t + 1]],
                        mesh->positions[idx[3 * (size_t)t + 2]]);
    }
    return MC_OK;
}

// mesh->component_volume: the signed volume of each component as oriented now, about `centre` (the bbox centre;
// divergence theorem).
static void component_volumes(mc_mesh* mesh, mc_vec3 centre)
{
    const uint32_t* idx = mesh->indices;
    memset(mesh->component_volume, 0, (size_t)mesh->component_count * sizeof(double));
    for (uint32_t t = 0; t < mesh->triangle_count; ++t)
    {
        mc_vec3 p0 = mc_sub(mesh->positions[idx[3 * (size_t)t]], centre);
        mc_vec3 p1 = mc_sub(mesh->positions[idx[3 * (size_t)t + 1]], centre);
        mc_vec3 p2 = mc_sub(mesh->positions[idx[3 * (size_t)t + 2]], centre);
        mesh->component_volume[mesh->vertex_component[idx[3 * (size_t)t]]] += mc_dot(p0, mc_cross(p1, p2)) / 6.0;
    }
}

// Stage "components": connected components of the cleaned mesh (over shared vertices), numbered in order of their
// smallest vertex; then the mesh gets its scale, report and byte count.
static mc_status build_components(build_state* s)
{
    mc_mesh* mesh = s->mesh;
    uint32_t nf = mesh->triangle_count, nfv = mesh->vertex_count;
    join_triangle_vertices(s->parent, nfv, mesh->indices, nf);
    uint32_t ncomp = 0;
    for (uint32_t v = 0; v < nfv; ++v)
    {
        ncomp += mc_uf_find(s->parent, v) == v;
    }
    mesh->component_vertex = mc_alloc_array(ncomp, sizeof(uint32_t));
    if (mesh->component_vertex == NULL)
    {
        return build_out_of_memory(s);
    }
    mesh->component_count = ncomp;
    ncomp = 0;
    for (uint32_t v = 0; v < nfv; ++v)
    {
        uint32_t r = mc_uf_find(s->parent, v);
        if (r == v)
        {
            mesh->component_vertex[ncomp] = v;
            mesh->vertex_component[v] = ncomp++;
        }
        else
        {
            mesh->vertex_component[v] = mesh->vertex_component[r]; // r < v: already numbered
        }
    }
    mesh->component_volume = mc_calloc(ncomp, sizeof(double));
    if (mesh->component_volume == NULL)
    {
        return build_out_of_memory(s);
    }
    component_volumes(mesh, mc_scale(mc_add(s->report.bbox_min, s->report.bbox_max), 0.5));
    mesh->scale = s->def->scale;
    mesh->report = s->report;
    mesh->byte_count = sizeof(mc_mesh) + (size_t)nfv * (sizeof(mc_vec3) + 2 * sizeof(uint32_t)) +
                       (size_t)nf * (3 * 2 * sizeof(uint32_t) + sizeof(mc_vec3)) +
                       (size_t)ncomp * (sizeof(uint32_t) + sizeof(double));
    return MC_OK;
}

// Stage "decide": with `out` NULL the report is the result; otherwise a mesh unusable for contact is an error when
// the def requires a closed mesh.
static mc_status build_decide(build_state* s, bool check_only)
{
    build_publish_report(s);
    if (check_only)
    {
        report_progress(s->progress, s->progress_user, 1.0);
        return MC_OK;
    }
    if (!s->usable && s->def->require_closed)
    {
        const mc_mesh_report* rep = &s->report;
        return mc_set_error(s->err, MC_ERR_MESH_NOT_CLOSED, -1, -1,
                            "mesh cannot be used for contact: %u boundary edges, %u non-manifold edges, %u "
                            "misoriented edges, %u pinched vertices, %u zero-area triangles%s",
                            rep->boundary_edges, rep->nonmanifold_edges, rep->misoriented_edges, rep->pinched_vertices,
                            rep->degenerate_triangles, s->clean.complete ? "" : " (not all repairable)");
    }
    return MC_OK;
}

mc_status mc_mesh_build(const mc_mesh_def* def, const mc_read_facts* read, mc_progress_fcn* progress,
                        void* progress_user, mc_mesh** out, mc_mesh_report* report, mc_error* err)
{
    build_state s;
    memset(&s, 0, sizeof s);
    s.def = def;
    s.progress = progress;
    s.progress_user = progress_user;
    s.report_out = report;
    s.err = err;
    build_publish_report(&s);
    mc_status st = build_check_def(&s, read);
    if (st != MC_OK)
    {
        return st;
    }
    // Each stage runs when the ones before it succeeded.
    mc_status (*const stages[])(build_state*) = {build_scale_positions, build_weld,  build_reference,
                                                 build_measure_as_read, build_clean, build_allocate_mesh,
                                                 build_check_usable};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0] && st == MC_OK; ++i)
    {
        st = stages[i](&s);
    }
    if (st == MC_OK && s.usable)
    {
        st = build_count_inward_components(&s);
    }
    if (st == MC_OK)
    {
        st = build_decide(&s, out == NULL);
    }
    if (st == MC_OK && out != NULL)
    {
        st = build_orient(&s);
        if (st == MC_OK)
        {
            st = build_components(&s);
        }
        if (st == MC_OK)
        {
            *out = s.mesh;
            s.mesh = NULL;
        }
    }
    bool built = st == MC_OK && out != NULL;
    build_state_free(&s);
    if (built)
    {
        report_progress(progress, progress_user, 0.85);
    }
    return st;
}

mc_status mc_mesh_reverse_components(mc_mesh* mesh, const uint8_t* reverse)
{
    uint32_t nf = mesh->triangle_count, nc = mesh->component_count;
    mc_mesh_report* rep = &mesh->report;
    MC_ASSERT(rep->reoriented_shells == (rep->reoriented ? nc : 0));
    uint32_t* idx = mesh->indices;
    for (uint32_t t = 0; t < nf; ++t)
    {
        uint32_t* x = idx + 3 * (size_t)t;
        if (reverse[mesh->vertex_component[x[0]]])
        {
            uint32_t tmp = x[1];
            x[1] = x[2];
            x[2] = tmp;
            mesh->face_normals[t] = unit_normal(mesh->positions[x[0]], mesh->positions[x[1]], mesh->positions[x[2]]);
        }
    }
    edge_stats cs;
    if (!edge_scan(idx, nf, mesh->vertex_count, mesh->twin, &cs))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    first_outgoing_halfedges(mesh);
    mc_vec3 centre = mc_scale(mc_add(rep->bbox_min, rep->bbox_max), 0.5);
    component_volumes(mesh, centre);
    // The report: shells reversed from the triangles as read (the whole-mesh reorientation reversed every one or
    // none), the volume and the inward components as oriented now, read as if not flipped.
    uint32_t reversed = 0, inward = 0;
    for (uint32_t c = 0; c < nc; ++c)
    {
        reversed += (reverse[c] != 0) != rep->reoriented;
        inward += (mesh->flipped ? -mesh->component_volume[c] : mesh->component_volume[c]) < 0.0;
    }
    double vol = signed_volume(idx, nf, mesh->positions, centre, NULL);
    rep->volume = mesh->flipped ? -vol : vol;
    rep->reoriented_shells = reversed;
    rep->reoriented = reversed > 0;
    rep->inward_components = inward;
    return MC_OK;
}

void mc_mesh_free(mc_mesh* mesh)
{
    if (mesh == NULL)
    {
        return;
    }
    mc_mesh_cache* region_cache = mesh->region_cache; // atomic load
    if (region_cache != NULL)
    {
        region_cache->destroy(region_cache);
    }
    mesh_free_arrays(mesh);
    mc_free(mesh);
}

const mc_mesh_report* mc_mesh_get_report(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    return mesh ? &mesh->report : NULL;
}

uint32_t mc_mesh_get_vertex_count(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    return mesh ? mesh->vertex_count : 0;
}

uint32_t mc_mesh_get_triangle_count(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    return mesh ? mesh->triangle_count : 0;
}

const mc_vec3* mc_mesh_get_positions(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    return mesh ? mesh->positions : NULL;
}

const uint32_t* mc_mesh_get_indices(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    return mesh ? mesh->indices : NULL;
}

size_t mc_mesh_get_byte_count(const mc_mesh* mesh)
{
    MC_ASSERT(mesh != NULL);
    if (mesh == NULL)
    {
        return 0;
    }
    const mc_mesh_cache* cache = atomic_load_explicit(&((mc_mesh*)mesh)->region_cache, memory_order_acquire);
    return mesh->byte_count + (cache != NULL ? cache->byte_count : 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Deformation (mc_mesh_set_positions, bvh/mesh_deform.c): new positions for the same triangles, checked so that the
// mesh stays the one mesh creation would make from them, and the derived geometry computed as creation computes it.

mc_status mc_mesh_stage_positions(mc_mesh* mesh, const double* xyz, mc_error* err)
{
    uint32_t nv = mesh->vertex_count, nf = mesh->triangle_count;
    if (mesh->next_positions == NULL)
    {
        mesh->next_positions = mc_alloc_array(nv > 0 ? nv : 1u, sizeof(mc_vec3));
        mesh->next_volume = mc_alloc_array(mesh->component_count > 0 ? mesh->component_count : 1u, sizeof(double));
        mesh->next_normals = mc_alloc_array(nf > 0 ? nf : 1u, sizeof(mc_vec3));
        if (mesh->next_positions == NULL || mesh->next_volume == NULL || mesh->next_normals == NULL)
        {
            mc_free(mesh->next_positions);
            mc_free(mesh->next_volume);
            mc_free(mesh->next_normals);
            mesh->next_positions = NULL;
            mesh->next_volume = NULL;
            mesh->next_normals = NULL;
            return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory staging %u positions", nv);
        }
        mesh->byte_count += (size_t)nv * sizeof(mc_vec3) + (size_t)mesh->component_count * sizeof(double) +
                            (size_t)nf * sizeof(mc_vec3);
    }
    // One pass over the vertices (checks, copy, bounding box), one over the triangles (zero area, normals, volumes and
    // area): each value as mesh creation computes it (unit_normal, signed_volume; comparisons in place of fmin/fmax
    // give the same box, the staged coordinates having no -0 and no NaN).
    mc_vec3* next = mesh->next_positions;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nv; ++i)
    {
        double x[3];
        for (int k = 0; k < 3; ++k)
        {
            double v = xyz[3 * (size_t)i + (size_t)k];
            double a = fabs(v);
            if (!(a <= MC_COORDINATE_MAX) || (v != 0.0 && a < MC_COORDINATE_MIN))
            {
                if (!isfinite(v))
                {
                    return mc_set_error(err, MC_ERR_NON_FINITE, -1, -1, "vertex %u has a non-finite coordinate (%g)", i,
                                        v);
                }
                return mc_set_error(err, MC_ERR_OUT_OF_RANGE, -1, -1,
                                    "vertex %u has coordinate %.17g, outside the range of the library: 0 or a "
                                    "magnitude between 2^-240 and 2^64",
                                    i, v);
            }
            x[k] = v + 0.0; // + 0.0 turns -0 into +0, as mesh creation does
            lo[k] = x[k] < lo[k] ? x[k] : lo[k];
            hi[k] = x[k] > hi[k] ? x[k] : hi[k];
        }
        next[i] = mc_v3(x[0], x[1], x[2]);
    }
    mc_vec3 blo = nv > 0 ? mc_v3(lo[0], lo[1], lo[2]) : mc_v3(0, 0, 0);
    mc_vec3 bhi = nv > 0 ? mc_v3(hi[0], hi[1], hi[2]) : mc_v3(0, 0, 0);
    mc_vec3 o = mc_scale(mc_add(blo, bhi), 0.5);
    const uint32_t* idx = mesh->indices;
    double* vol = mesh->next_volume;
    memset(vol, 0, (size_t)mesh->component_count * sizeof(double));
    compensated_sum sv = {0, 0}, sa = {0, 0};
    mc_stage_chunk chunk;
    chunk.o[0] = o.x, chunk.o[1] = o.y, chunk.o[2] = o.z;
    for (uint32_t first = 0; first < nf; first += MC_STAGE_CHUNK)
    {
        uint32_t count = nf - first < MC_STAGE_CHUNK ? nf - first : MC_STAGE_CHUNK;
        for (uint32_t i = 0; i < count; ++i)
        {
            for (uint32_t c = 0; c < 3u; ++c)
            {
                mc_vec3 p = next[idx[3 * ((size_t)first + i) + c]];
                chunk.v[3u * c][i] = p.x, chunk.v[3u * c + 1u][i] = p.y, chunk.v[3u * c + 2u][i] = p.z;
            }
        }
        mc_stage_triangle_terms(&chunk, count);
        for (uint32_t i = 0; i < count; ++i)
        {
            uint32_t t = first + i;
            if (!chunk.proper[i] || !chunk.unit[i])
            {
                mc_vec3 a = next[idx[3 * (size_t)t]], b = next[idx[3 * (size_t)t + 1]],
                        c = next[idx[3 * (size_t)t + 2]];
                if (!chunk.proper[i] && mc_triangle_is_degenerate(a, b, c))
                {
                    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                        "triangle %u has zero area at the new positions (a mesh made from them would "
                                        "drop it)",
                                        t);
                }
                mesh->next_normals[t] = chunk.unit[i]
                                            ? mc_v3(chunk.normal[0][i], chunk.normal[1][i], chunk.normal[2][i])
                                            : unit_normal(a, b, c);
            }
            else
            {
                mesh->next_normals[t] = mc_v3(chunk.normal[0][i], chunk.normal[1][i], chunk.normal[2][i]);
            }
            vol[mesh->vertex_component[idx[3 * (size_t)t]]] += chunk.d[i] / 6.0;
            compensated_sum_add(&sv, chunk.d[i]);
            compensated_sum_add(&sa, chunk.len[i]);
        }
    }
    for (uint32_t k = 0; k < mesh->component_count; ++k)
    {
        double before = mesh->component_volume[k], after = vol[k];
        if (!(before > 0.0 ? after > 0.0 : after < 0.0))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "component %u would turn inside out (signed volume %.17g, was %.17g)", k, after,
                                before);
        }
    }
    mesh->next_bbox[0] = blo;
    mesh->next_bbox[1] = bhi;
    mesh->next_stats[0] = (sv.s + sv.c) / 6.0;
    mesh->next_stats[1] = 0.5 * (sa.s + sa.c);
    return MC_OK;
}

void mc_mesh_commit_positions(mc_mesh* mesh)
{
    mc_vec3* old = mesh->positions;
    mesh->positions = mesh->next_positions;
    mesh->next_positions = old;
    double* old_volume = mesh->component_volume;
    mesh->component_volume = mesh->next_volume;
    mesh->next_volume = old_volume;
    mc_vec3* old_normals = mesh->face_normals;
    mesh->face_normals = mesh->next_normals;
    mesh->next_normals = old_normals;
    mc_mesh_report* rep = &mesh->report;
    rep->bbox_min = mesh->next_bbox[0];
    rep->bbox_max = mesh->next_bbox[1];
    double v = mesh->next_stats[0];
    rep->volume = rep->volume < 0.0 ? -fabs(v) : fabs(v);
    rep->signed_volume_as_read = rep->signed_volume_as_read < 0.0 ? -fabs(v) : fabs(v);
    rep->area = mesh->next_stats[1];
}
