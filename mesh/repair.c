// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mesh repair of a triangle soup: tolerance weld, duplicate and back-to-back faces, faces shared by two solids, loose
// components, consistent winding, hole filling, outward winding, pinched vertices; every change counted.
// Based on: P. Liepa, Filling holes in meshes, SGP 2003 (the hole triangulation: dynamic programming over the loop,
// weight = largest dihedral angle, then area).
#include "mesh/soup.h"
#include "src/base/core.h"
#include "src/base/union_find.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Largest hole the options may ask to fill (the triangulation is cubic in the loop length).
#define REPAIR_MAX_HOLE_EDGES 256u
/// Distance a split pinched vertex moves into its own solid, as a fraction of the bounding-box diagonal.
#define REPAIR_PINCH_OFFSET 1e-9

/// The soup being repaired: points, triangles (dead ones dropped between stages), the report.
typedef struct rp_mesh
{
    mc_vec3* pos;  ///< points
    uint32_t nv;   ///< points used
    uint32_t vcap; ///< points allocated
    uint32_t* tri; ///< 3 * nt indices
    uint32_t nt;   ///< triangles
    uint32_t tcap; ///< triangles allocated
    uint8_t* dead; ///< nt flags: removed by the current stage
    double diag;   ///< bounding-box diagonal of the input
    const mc_repair_options* opt;
    mc_repair_report* rep; ///< what was changed
} rp_mesh;

/// One half-edge in the edge index: its undirected key and its index 3 t + k.
typedef struct edge_ref
{
    uint64_t key;
    uint32_t he;
} edge_ref;

/// Half-edges grouped by undirected edge: the group of half-edge h is refs[first[h] .. first[h] + count[h]).
typedef struct edge_index
{
    edge_ref* refs;
    uint32_t* first;
    uint32_t* count;
} edge_index;

mc_repair_options mc_default_repair_options(void)
{
    return (mc_repair_options){.flags = MC_REPAIR_ALL,
                               .weld_tolerance = 0.0,
                               .weld_distance = 0.0,
                               .max_hole_edges = 32,
                               .min_component_triangles = 4,
                               .min_component_size = 0.0,
                               .internal_value = (int)MC_DEF_COOKIE};
}

static uint32_t he_next(uint32_t h)
{
    return h - h % 3 + (h % 3 + 1) % 3;
}

static uint32_t he_from(const rp_mesh* m, uint32_t h)
{
    return m->tri[h];
}

static uint32_t he_to(const rp_mesh* m, uint32_t h)
{
    return m->tri[he_next(h)];
}

static int cmp_edge_ref(const void* pa, const void* pb)
{
    const edge_ref* a = pa;
    const edge_ref* b = pb;
    if (a->key != b->key)
    {
        return a->key < b->key ? -1 : 1;
    }
    return a->he < b->he ? -1 : (a->he > b->he);
}

static void edge_index_free(edge_index* e)
{
    mc_free(e->refs);
    mc_free(e->first);
    mc_free(e->count);
    memset(e, 0, sizeof *e);
}

static bool edge_index_build(const rp_mesh* m, edge_index* e)
{
    size_t nh = 3 * (size_t)m->nt;
    e->refs = mc_alloc_array(nh + 1, sizeof(edge_ref));
    e->first = mc_alloc_array(nh + 1, sizeof(uint32_t));
    e->count = mc_alloc_array(nh + 1, sizeof(uint32_t));
    if (e->refs == NULL || e->first == NULL || e->count == NULL)
    {
        edge_index_free(e);
        return false;
    }
    for (uint32_t h = 0; h < nh; ++h)
    {
        uint64_t a = he_from(m, h), b = he_to(m, h);
        e->refs[h].key = a < b ? (a << 32 | b) : (b << 32 | a);
        e->refs[h].he = h;
    }
    qsort(e->refs, nh, sizeof(edge_ref), cmp_edge_ref);
    for (size_t i = 0; i < nh;)
    {
        size_t j = i;
        while (j < nh && e->refs[j].key == e->refs[i].key)
        {
            ++j;
        }
        for (size_t k = i; k < j; ++k)
        {
            e->first[e->refs[k].he] = (uint32_t)i;
            e->count[e->refs[k].he] = (uint32_t)(j - i);
        }
        i = j;
    }
    return true;
}

/// The other half-edge of a 2-used edge.
static uint32_t edge_mate(const edge_index* e, uint32_t h)
{
    uint32_t f = e->first[h];
    return e->refs[f].he == h ? e->refs[f + 1].he : e->refs[f].he;
}

/// Drop the dead triangles (keeping the order of the others). @return how many were dropped.
static uint32_t rp_compact(rp_mesh* m)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        if (!m->dead[t])
        {
            memmove(m->tri + 3 * (size_t)n, m->tri + 3 * (size_t)t, 3 * sizeof(uint32_t));
            ++n;
        }
    }
    uint32_t dropped = m->nt - n;
    m->nt = n;
    memset(m->dead, 0, m->nt);
    return dropped;
}

static void flip_triangle(rp_mesh* m, uint32_t t)
{
    uint32_t tmp = m->tri[3 * (size_t)t + 1];
    m->tri[3 * (size_t)t + 1] = m->tri[3 * (size_t)t + 2];
    m->tri[3 * (size_t)t + 2] = tmp;
}

static void bbox_of(const mc_vec3* p, uint32_t n, mc_vec3* lo, mc_vec3* hi)
{
    *lo = mc_v3(INFINITY, INFINITY, INFINITY);
    *hi = mc_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < n; ++i)
    {
        *lo = mc_v3(fmin(lo->x, p[i].x), fmin(lo->y, p[i].y), fmin(lo->z, p[i].z));
        *hi = mc_v3(fmax(hi->x, p[i].x), fmax(hi->y, p[i].y), fmax(hi->z, p[i].z));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Welding

// Weld: exact, then (tolerance or distance) near points; triangles renumbered, collapsed ones dropped.
static mc_status rp_weld(rp_mesh* m, mc_error* err)
{
    uint32_t* wid = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    if (wid == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while welding");
    }
    uint32_t nu = mc_weld_exact(m->pos, m->nv, wid);
    uint32_t* group = nu != UINT32_MAX ? mc_alloc_array(nu + 1, sizeof(uint32_t)) : NULL;
    mc_vec3* upos = group != NULL ? mc_alloc_array(nu + 1, sizeof(mc_vec3)) : NULL;
    if (upos == NULL)
    {
        mc_free(wid);
        mc_free(group);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while welding");
    }
    for (uint32_t i = m->nv; i-- > 0;)
    {
        upos[wid[i]] = m->pos[i];
    }
    double dist = m->opt->weld_distance > 0.0 ? m->opt->weld_distance : m->opt->weld_tolerance * m->diag;
    m->rep->weld_distance = dist;
    bool ok = true;
    for (uint32_t i = 0; i < nu; ++i)
    {
        group[i] = i;
    }
    if (dist > 0.0 && nu > 1)
    {
        mc_vec3 lo, hi;
        bbox_of(upos, nu, &lo, &hi);
        ok = mc_weld_tolerance(upos, nu, lo, dist, group);
    }
    uint32_t nc = 0;
    for (uint32_t i = 0; ok && i < nu; ++i) // a cluster is numbered and placed at its first (smallest) member
    {
        if (group[i] == i)
        {
            m->pos[nc] = upos[i];
            group[i] = nc++;
        }
        else
        {
            group[i] = group[group[i]]; // the root is smaller: already renumbered
        }
    }
    m->rep->welded_vertices = ok ? nu - nc : 0;
    for (uint64_t k = 0; ok && k < 3ull * m->nt; ++k)
    {
        m->tri[k] = group[wid[m->tri[k]]];
    }
    m->nv = ok ? nc : m->nv;
    for (uint32_t t = 0; ok && t < m->nt; ++t)
    {
        const uint32_t* x = m->tri + 3 * (size_t)t;
        m->dead[t] = x[0] == x[1] || x[1] == x[2] || x[2] == x[0];
    }
    mc_free(wid);
    mc_free(group);
    mc_free(upos);
    if (!ok)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while welding");
    }
    m->rep->collapsed_triangles = rp_compact(m);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Duplicate and back-to-back triangles

typedef struct tri_key
{
    uint32_t v[3]; ///< sorted vertices
    uint32_t t;    ///< triangle
    int parity;    ///< 0: the triangle's winding is an even permutation of v, 1: odd
} tri_key;

static int cmp_tri_key(const void* pa, const void* pb)
{
    const tri_key* a = pa;
    const tri_key* b = pb;
    for (int k = 0; k < 3; ++k)
    {
        if (a->v[k] != b->v[k])
        {
            return a->v[k] < b->v[k] ? -1 : 1;
        }
    }
    return a->t < b->t ? -1 : (a->t > b->t);
}

static tri_key make_tri_key(const uint32_t* x, uint32_t t)
{
    tri_key k = {{x[0], x[1], x[2]}, t, 0};
    for (int pass = 0; pass < 2; ++pass)
    {
        for (int i = 0; i + 1 < 3 - pass; ++i)
        {
            if (k.v[i] > k.v[i + 1])
            {
                uint32_t tmp = k.v[i];
                k.v[i] = k.v[i + 1];
                k.v[i + 1] = tmp;
                k.parity ^= 1;
            }
        }
    }
    return k;
}

// One group of copies of the same vertex triple keys[i..j): opposite pairs cancel, then one same-wound copy stays.
static void resolve_copies(rp_mesh* m, const tri_key* keys, size_t i, size_t j)
{
    uint32_t n[2] = {0, 0};
    for (size_t k = i; k < j; ++k)
    {
        n[keys[k].parity]++;
    }
    uint32_t pairs = n[0] < n[1] ? n[0] : n[1];
    uint32_t cancel[2] = {pairs, pairs};
    int keep = n[0] > n[1] ? 0 : 1; // the winding left after cancelling
    bool kept = n[0] == n[1];       // all cancelled: nothing to keep
    for (size_t k = i; k < j; ++k)
    {
        int p = keys[k].parity;
        if (cancel[p] > 0)
        {
            cancel[p]--;
            m->dead[keys[k].t] = 1;
            m->rep->back_to_back_triangles++;
        }
        else if (p == keep && !kept)
        {
            kept = true;
        }
        else
        {
            m->dead[keys[k].t] = 1;
            m->rep->duplicate_triangles++;
        }
    }
}

static mc_status rp_duplicates(rp_mesh* m, mc_error* err)
{
    tri_key* keys = mc_alloc_array(m->nt + 1, sizeof(tri_key));
    if (keys == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while looking for duplicate triangles");
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        keys[t] = make_tri_key(m->tri + 3 * (size_t)t, t);
    }
    qsort(keys, m->nt, sizeof(tri_key), cmp_tri_key);
    for (size_t i = 0; i < m->nt;)
    {
        size_t j = i + 1;
        while (j < m->nt && memcmp(keys[j].v, keys[i].v, sizeof keys[i].v) == 0)
        {
            ++j;
        }
        if (j - i > 1)
        {
            resolve_copies(m, keys, i, j);
        }
        i = j;
    }
    mc_free(keys);
    rp_compact(m);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Faces shared by two solids

typedef struct patch_info
{
    uint32_t root;      ///< patch id (union-find root triangle)
    uint32_t triangles; ///< triangles in the patch
    bool candidate;     ///< every border edge is used by exactly three triangles (and there is one)
} patch_info;

static int cmp_patch_size(const void* pa, const void* pb)
{
    const patch_info* a = pa;
    const patch_info* b = pb;
    if (a->triangles != b->triangles)
    {
        return a->triangles < b->triangles ? -1 : 1;
    }
    return a->root < b->root ? -1 : (a->root > b->root);
}

// Patches: triangles joined over edges used exactly twice; parent[t] is the patch root of t.
static void join_patches(const rp_mesh* m, const edge_index* e, uint32_t* parent)
{
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        parent[t] = t;
    }
    for (uint32_t h = 0; h < 3 * m->nt; ++h)
    {
        if (e->count[h] == 2)
        {
            mc_uf_union(parent, h / 3, edge_mate(e, h) / 3);
        }
    }
}

// Remove the patch with root r when each of its border edges is still used by three triangles; `uses` counts the
// live uses of each edge group (indexed by its first ref).
static void remove_shared_patch(rp_mesh* m, const edge_index* e, uint32_t* uses, const uint32_t* members, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t k = 0; k < 3; ++k)
        {
            uint32_t h = 3 * members[i] + k;
            if (e->count[h] != 2 && uses[e->first[h]] != 3)
            {
                return;
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        m->dead[members[i]] = 1;
        for (uint32_t k = 0; k < 3; ++k)
        {
            uses[e->first[3 * members[i] + k]]--;
        }
    }
    m->rep->shared_face_triangles += n;
}

// The patches, in order of their root (their smallest triangle).
static uint32_t collect_patches(const rp_mesh* m, uint32_t* parent, patch_info* info)
{
    uint32_t np = 0;
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        if (mc_uf_find(parent, t) == t)
        {
            info[np++] = (patch_info){.root = t, .triangles = 0, .candidate = true};
        }
    }
    return np;
}

static int cmp_u64_pairs(const void* pa, const void* pb)
{
    uint64_t a = *(const uint64_t*)pa, b = *(const uint64_t*)pb;
    return a < b ? -1 : (a > b);
}

static patch_info* find_patch(patch_info* info, uint32_t np, uint32_t root)
{
    uint32_t lo = 0, hi = np;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (info[mid].root < root)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    return &info[lo];
}

// Patch figures: size, and whether every border edge is used by three triangles (only then can it be a shared face).
// @return false on allocation failure.
static bool score_patches(const rp_mesh* m, const edge_index* e, uint32_t* parent, patch_info* info, uint32_t np)
{
    bool* has_border = mc_calloc(np + 1, sizeof(bool));
    if (has_border == NULL)
    {
        return false;
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        patch_info* p = find_patch(info, np, mc_uf_find(parent, t));
        p->triangles++;
        for (uint32_t k = 0; k < 3; ++k)
        {
            uint32_t c = e->count[3 * t + k];
            if (c != 2)
            {
                p->candidate = p->candidate && c == 3;
                has_border[p - info] = true;
            }
        }
    }
    for (uint32_t i = 0; i < np; ++i)
    {
        info[i].candidate = info[i].candidate && has_border[i];
    }
    mc_free(has_border);
    return true;
}

// order[]: the triangles sorted by patch root (then index). @return false on allocation failure.
static bool patch_order(const rp_mesh* m, uint32_t* parent, uint32_t* order)
{
    uint64_t* pairs = mc_alloc_array(m->nt + 1, sizeof(uint64_t));
    if (pairs == NULL)
    {
        return false;
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        pairs[t] = (uint64_t)mc_uf_find(parent, t) << 32 | t;
    }
    qsort(pairs, m->nt, sizeof(uint64_t), cmp_u64_pairs);
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        order[t] = (uint32_t)pairs[t];
    }
    mc_free(pairs);
    return true;
}

// The first position of patch `root` in order[] (sorted by root).
static uint32_t patch_start(const rp_mesh* m, uint32_t* parent, const uint32_t* order, uint32_t root)
{
    uint32_t lo = 0, hi = m->nt;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mc_uf_find(parent, order[mid]) < root)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    return lo;
}

static mc_status rp_shared_faces(rp_mesh* m, mc_error* err)
{
    edge_index e = {0};
    uint32_t* parent = mc_alloc_array(m->nt + 1, sizeof(uint32_t));
    uint32_t* order = mc_alloc_array(m->nt + 1, sizeof(uint32_t)); // triangles sorted by patch
    uint32_t* uses = mc_alloc_array(3 * (size_t)m->nt + 1, sizeof(uint32_t));
    patch_info* info = mc_alloc_array(m->nt + 1, sizeof(patch_info));
    bool ok = parent != NULL && order != NULL && uses != NULL && info != NULL && edge_index_build(m, &e);
    uint32_t np = 0;
    if (ok)
    {
        join_patches(m, &e, parent);
        np = collect_patches(m, parent, info);
        ok = score_patches(m, &e, parent, info, np) && patch_order(m, parent, order);
    }
    for (uint32_t h = 0; ok && h < 3 * m->nt; ++h)
    {
        uses[e.first[h]] = e.count[h];
    }
    if (ok)
    {
        qsort(info, np, sizeof(patch_info), cmp_patch_size); // smallest patches first
    }
    for (uint32_t i = 0; ok && i < np; ++i)
    {
        if (info[i].candidate)
        {
            uint32_t first = patch_start(m, parent, order, info[i].root);
            remove_shared_patch(m, &e, uses, order + first, info[i].triangles);
        }
    }
    edge_index_free(&e);
    mc_free(parent), mc_free(order), mc_free(uses), mc_free(info);
    rp_compact(m);
    return ok ? MC_OK : mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while looking for shared faces");
}

// ---------------------------------------------------------------------------------------------------------------
// Loose components

// Components over shared vertices: vparent[v] is the root vertex of v's component.
static void join_components(const rp_mesh* m, uint32_t* vparent)
{
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        vparent[v] = v;
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        const uint32_t* x = m->tri + 3 * (size_t)t;
        mc_uf_union(vparent, x[0], x[1]);
        mc_uf_union(vparent, x[0], x[2]);
    }
}

static mc_status rp_loose(rp_mesh* m, mc_error* err)
{
    uint32_t* vparent = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    uint32_t* ntri = mc_calloc(m->nv + 1, sizeof(uint32_t));
    mc_vec3* lo = mc_alloc_array(m->nv + 1, sizeof(mc_vec3));
    mc_vec3* hi = mc_alloc_array(m->nv + 1, sizeof(mc_vec3));
    if (vparent == NULL || ntri == NULL || lo == NULL || hi == NULL)
    {
        mc_free(vparent), mc_free(ntri), mc_free(lo), mc_free(hi);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while looking for loose components");
    }
    join_components(m, vparent);
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        lo[v] = mc_v3(INFINITY, INFINITY, INFINITY);
        hi[v] = mc_v3(-INFINITY, -INFINITY, -INFINITY);
    }
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        uint32_t r = mc_uf_find(vparent, v);
        mc_vec3 p = m->pos[v];
        lo[r] = mc_v3(fmin(lo[r].x, p.x), fmin(lo[r].y, p.y), fmin(lo[r].z, p.z));
        hi[r] = mc_v3(fmax(hi[r].x, p.x), fmax(hi[r].y, p.y), fmax(hi[r].z, p.z));
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        ntri[mc_uf_find(vparent, m->tri[3 * (size_t)t])]++;
    }
    double min_size = m->opt->min_component_size * m->diag;
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        uint32_t r = mc_uf_find(vparent, v);
        bool small = ntri[r] < m->opt->min_component_triangles || mc_length(mc_sub(hi[r], lo[r])) < min_size;
        if (r == v && ntri[r] > 0 && small)
        {
            m->rep->loose_components++;
            m->rep->loose_triangles += ntri[r];
        }
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        uint32_t r = mc_uf_find(vparent, m->tri[3 * (size_t)t]);
        m->dead[t] = ntri[r] < m->opt->min_component_triangles || mc_length(mc_sub(hi[r], lo[r])) < min_size;
    }
    mc_free(vparent), mc_free(ntri), mc_free(lo), mc_free(hi);
    rp_compact(m);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Consistent winding

// Breadth-first flips over edges used twice. flip[t]: 0 keep, 1 flip, 2 not reached. Conflicts counted per patch.
static void orient_patch(const rp_mesh* m, const edge_index* e, uint32_t seed, uint8_t* flip, uint32_t* queue,
                         uint32_t* patch_size, uint32_t* patch_flips, bool* conflict)
{
    uint32_t head = 0, tail = 0;
    queue[tail++] = seed;
    flip[seed] = 0;
    *patch_size = 0;
    *patch_flips = 0;
    *conflict = false;
    while (head < tail)
    {
        uint32_t t = queue[head++];
        (*patch_size)++;
        *patch_flips += flip[t];
        for (uint32_t k = 0; k < 3; ++k)
        {
            uint32_t h = 3 * t + k;
            if (e->count[h] != 2)
            {
                continue;
            }
            uint32_t g = edge_mate(e, h);
            uint32_t u = g / 3;
            // Opposite directions agree; the same direction needs one of the two flipped.
            uint8_t want = flip[t] ^ (he_from(m, h) == he_from(m, g) ? 1 : 0);
            if (flip[u] == 2)
            {
                flip[u] = want;
                queue[tail++] = u;
            }
            else if (flip[u] != want)
            {
                *conflict = true;
            }
        }
    }
}

static mc_status rp_orient(rp_mesh* m, mc_error* err)
{
    edge_index e = {0};
    uint8_t* flip = mc_alloc(m->nt + 1);
    uint32_t* queue = mc_alloc_array(m->nt + 1, sizeof(uint32_t));
    if (flip == NULL || queue == NULL || !edge_index_build(m, &e))
    {
        mc_free(flip), mc_free(queue), edge_index_free(&e);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while orienting");
    }
    memset(flip, 2, m->nt);
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        if (flip[t] != 2)
        {
            continue;
        }
        uint32_t size = 0, flips = 0;
        bool conflict = false;
        orient_patch(m, &e, t, flip, queue, &size, &flips, &conflict);
        m->rep->unorientable_patches += conflict;
        bool invert = 2ull * flips > size; // the larger half keeps its winding
        for (uint32_t i = 0; i < size; ++i)
        {
            uint32_t u = queue[i];
            if ((flip[u] ^ invert) != 0)
            {
                flip_triangle(m, u);
                m->rep->flipped_triangles++;
            }
            flip[u] = 3; // done
        }
    }
    mc_free(flip), mc_free(queue), edge_index_free(&e);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Holes

static mc_status rp_add_triangle(rp_mesh* m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->nt == m->tcap)
    {
        uint32_t cap = m->tcap + m->tcap / 2 + 16;
        uint32_t* tri = mc_realloc(m->tri, 3 * (size_t)cap * sizeof(uint32_t));
        uint8_t* dead = tri != NULL ? mc_realloc(m->dead, cap) : NULL;
        if (tri != NULL)
        {
            m->tri = tri;
        }
        if (dead == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        m->dead = dead;
        m->tcap = cap;
    }
    uint32_t* x = m->tri + 3 * (size_t)m->nt;
    x[0] = a, x[1] = b, x[2] = c;
    m->dead[m->nt++] = 0;
    return MC_OK;
}

// Emit the triangles of the optimal split of loop[i..j] (split[i * k + j] is the apex index) with an explicit stack.
static mc_status emit_triangulation(rp_mesh* m, const uint32_t* loop, uint32_t k, const uint32_t* split,
                                    uint32_t* stack)
{
    uint32_t top = 0;
    stack[top++] = 0u << 16 | (k - 1);
    while (top > 0)
    {
        uint32_t ij = stack[--top], i = ij >> 16, j = ij & 0xffff;
        if (j < i + 2)
        {
            continue;
        }
        uint32_t s = split[i * k + j];
        if (rp_add_triangle(m, loop[i], loop[s], loop[j]) != MC_OK)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        m->rep->fill_triangles++;
        stack[top++] = i << 16 | s;
        stack[top++] = s << 16 | j;
    }
    return MC_OK;
}

/// The weight of a partial hole triangulation (Liepa 2003): the largest angle between the normals of two
/// neighbouring triangles in it (or with the mesh around the hole), then the total area.
typedef struct fill_weight
{
    double angle;
    double area;
} fill_weight;

static bool weight_less(fill_weight a, fill_weight b)
{
    return a.angle < b.angle - 1e-12 || (a.angle <= b.angle + 1e-12 && a.area < b.area);
}

static mc_vec3 tri_normal(const rp_mesh* m, uint32_t a, uint32_t b, uint32_t c)
{
    return mc_cross(mc_sub(m->pos[b], m->pos[a]), mc_sub(m->pos[c], m->pos[a]));
}

static double normal_angle(mc_vec3 n, mc_vec3 o)
{
    double ln = mc_length(n), lo = mc_length(o);
    return ln > 0.0 && lo > 0.0 ? acos(fmax(-1.0, fmin(1.0, mc_dot(n, o) / (ln * lo)))) : MC_PI;
}

/// A hole loop and the mesh around it: loop[i] -> loop[i + 1] (cyclic) are the hole's edges; around[i] is the
/// normal of the mesh triangle on the other side of edge i.
typedef struct hole_loop
{
    const uint32_t* loop;
    const mc_vec3* around;
    uint32_t k;
    fill_weight* w;  ///< k * k: best weight of the sub-loop i .. j
    uint32_t* split; ///< k * k: its apex
} hole_loop;

// The normal of the triangle across the edge (i, j) of the sub-loop: the mesh around the hole for a hole edge,
// else the apex triangle chosen for that sub-loop.
static mc_vec3 across(const rp_mesh* m, const hole_loop* h, uint32_t i, uint32_t j)
{
    if (j == i + 1)
    {
        return h->around[i];
    }
    uint32_t s = h->split[i * h->k + j];
    return tri_normal(m, h->loop[i], h->loop[s], h->loop[j]);
}

static void fill_cell(const rp_mesh* m, hole_loop* h, uint32_t i, uint32_t j)
{
    uint32_t k = h->k;
    fill_weight best = {INFINITY, INFINITY};
    for (uint32_t s = i + 1; s < j; ++s)
    {
        mc_vec3 n = tri_normal(m, h->loop[i], h->loop[s], h->loop[j]);
        double angle = fmax(normal_angle(n, across(m, h, i, s)), normal_angle(n, across(m, h, s, j)));
        if (i == 0 && j == k - 1)
        {
            angle = fmax(angle, normal_angle(n, h->around[k - 1])); // the closing edge's mesh triangle
        }
        fill_weight a = h->w[i * k + s], b = h->w[s * k + j];
        fill_weight c = {fmax(angle, fmax(a.angle, b.angle)), a.area + b.area + 0.5 * mc_length(n)};
        if (weight_less(c, best))
        {
            best = c;
            h->split[i * k + j] = s;
        }
    }
    h->w[i * k + j] = best;
}

// Triangulation of the loop over its own vertices minimising the largest dihedral angle, then the area (dynamic
// programming over sub-loops).
static mc_status fill_loop(rp_mesh* m, const uint32_t* loop, const mc_vec3* around, uint32_t k)
{
    hole_loop h = {loop, around, k, mc_alloc_array((size_t)k * k, sizeof(fill_weight)),
                   mc_alloc_array((size_t)k * k, sizeof(uint32_t))};
    uint32_t* stack = mc_alloc_array(2 * (size_t)k + 2, sizeof(uint32_t));
    mc_status st = h.w != NULL && h.split != NULL && stack != NULL ? MC_OK : MC_ERR_OUT_OF_MEMORY;
    for (uint32_t len = 1; st == MC_OK && len < k; ++len)
    {
        for (uint32_t i = 0; i + len < k; ++i)
        {
            if (len == 1)
            {
                h.w[i * k + i + 1] = (fill_weight){0.0, 0.0};
                continue;
            }
            fill_cell(m, &h, i, i + len);
        }
    }
    if (st == MC_OK)
    {
        st = emit_triangulation(m, loop, k, h.split, stack);
    }
    mc_free(h.w), mc_free(h.split), mc_free(stack);
    return st;
}

// Walk the hole loops: a boundary half-edge x -> a gives the hole edge a -> x (into[a] = x). Loops through a vertex
// with two boundary half-edges ending at it are not filled.
static mc_status fill_loops(rp_mesh* m, const uint32_t* into, const uint32_t* opp, const uint8_t* multi, uint32_t* loop,
                            mc_vec3* around)
{
    uint8_t* seen = mc_calloc(m->nv + 1, 1);
    if (seen == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_status st = MC_OK;
    uint32_t max_edges = m->opt->max_hole_edges;
    for (uint32_t v0 = 0; st == MC_OK && v0 < m->nv; ++v0)
    {
        if (into[v0] == MC_NONE || seen[v0])
        {
            continue;
        }
        uint32_t k = 0, v = v0;
        bool simple = true;
        for (; v != MC_NONE && !seen[v]; v = into[v])
        {
            seen[v] = 1;
            simple = simple && !multi[v];
            if (k < max_edges)
            {
                loop[k] = v;
            }
            ++k;
        }
        simple = simple && v == v0; // a closed loop back to its start
        if (simple && k >= 3 && k <= max_edges)
        {
            for (uint32_t i = 0; i < k; ++i) // the mesh triangle x -> a -> o across hole edge a -> x
            {
                around[i] = tri_normal(m, loop[(i + 1) % k], loop[i], opp[loop[i]]);
            }
            st = fill_loop(m, loop, around, k);
            m->rep->filled_holes++;
        }
        else
        {
            m->rep->unfilled_holes++;
            m->rep->largest_unfilled_hole = k > m->rep->largest_unfilled_hole ? k : m->rep->largest_unfilled_hole;
        }
    }
    mc_free(seen);
    return st;
}

static mc_status rp_holes(rp_mesh* m, mc_error* err)
{
    edge_index e = {0};
    uint32_t* into = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    uint32_t* opp = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    uint8_t* multi = mc_calloc(m->nv + 1, 1);
    uint32_t* loop = mc_alloc_array(m->opt->max_hole_edges + 1, sizeof(uint32_t));
    mc_vec3* around = mc_alloc_array(m->opt->max_hole_edges + 1, sizeof(mc_vec3));
    mc_status st = MC_OK;
    if (into == NULL || opp == NULL || multi == NULL || loop == NULL || around == NULL || !edge_index_build(m, &e))
    {
        st = MC_ERR_OUT_OF_MEMORY;
    }
    if (st == MC_OK)
    {
        memset(into, 0xff, (size_t)m->nv * sizeof(uint32_t));
        for (uint32_t h = 0; h < 3 * m->nt; ++h)
        {
            if (e.count[h] == 1)
            {
                uint32_t a = he_to(m, h);
                multi[a] |= into[a] != MC_NONE;
                into[a] = he_from(m, h);
                opp[a] = m->tri[3 * (h / 3) + (h % 3 + 2) % 3]; // third corner of the triangle of x -> a
            }
        }
        edge_index_free(&e); // the fill appends triangles: the index would be stale
        st = fill_loops(m, into, opp, multi, loop, around);
    }
    edge_index_free(&e);
    mc_free(into), mc_free(opp), mc_free(multi), mc_free(loop), mc_free(around);
    if (st != MC_OK)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while filling holes");
    }
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Outward winding of closed components

/// A component: its root vertex, bounding box, signed volume (about `origin`), whether every edge is used twice.
typedef struct comp_info
{
    uint32_t root;
    mc_vec3 lo, hi;
    double volume;
    bool closed;
} comp_info;

// Does the ray from p along a fixed, generic direction cross triangle t? (Moeller-Trumbore, a heuristic: no exact
// predicates here, the self-check of mesh creation judges the result exactly.)
static bool ray_hits(const rp_mesh* m, mc_vec3 p, uint32_t t)
{
    const mc_vec3 d = mc_v3(0.5773502691896258, 0.5774552591896258, 0.5771452891896258);
    const uint32_t* x = m->tri + 3 * (size_t)t;
    mc_vec3 a = m->pos[x[0]], e1 = mc_sub(m->pos[x[1]], a), e2 = mc_sub(m->pos[x[2]], a);
    mc_vec3 q = mc_cross(d, e2);
    double det = mc_dot(e1, q);
    if (det == 0.0)
    {
        return false;
    }
    mc_vec3 s = mc_sub(p, a);
    double u = mc_dot(s, q) / det;
    mc_vec3 r = mc_cross(s, e1);
    double v = mc_dot(d, r) / det;
    double w = mc_dot(e2, r) / det;
    return u >= 0.0 && v >= 0.0 && u + v <= 1.0 && w > 0.0;
}

static bool box_inside(const comp_info* a, const comp_info* b)
{
    return a->lo.x >= b->lo.x && a->lo.y >= b->lo.y && a->lo.z >= b->lo.z && a->hi.x <= b->hi.x && a->hi.y <= b->hi.y &&
           a->hi.z <= b->hi.z;
}

/// Triangles grouped by component: those of component c are order[first[c] .. first[c + 1]).
typedef struct comp_triangles
{
    uint32_t* order;
    uint32_t* first;
} comp_triangles;

// Number of closed components (other than c) containing c's root vertex: ray parity over their triangles.
static uint32_t nesting_depth(const rp_mesh* m, const comp_info* comps, uint32_t nc, uint32_t c,
                              const comp_triangles* ct)
{
    uint32_t depth = 0;
    for (uint32_t o = 0; o < nc; ++o)
    {
        if (o == c || !comps[o].closed || !box_inside(&comps[c], &comps[o]))
        {
            continue;
        }
        uint32_t hits = 0;
        for (uint32_t i = ct->first[o]; i < ct->first[o + 1]; ++i)
        {
            hits += ray_hits(m, m->pos[comps[c].root], ct->order[i]);
        }
        depth += hits & 1u;
    }
    return depth;
}

// Counting sort of the triangles by component.
static bool group_triangles(const rp_mesh* m, uint32_t* vparent, const uint32_t* comp_of_root, uint32_t nc,
                            comp_triangles* ct)
{
    ct->order = mc_alloc_array(m->nt + 1, sizeof(uint32_t));
    ct->first = mc_calloc(nc + 2, sizeof(uint32_t));
    if (ct->order == NULL || ct->first == NULL)
    {
        return false;
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        ct->first[comp_of_root[mc_uf_find(vparent, m->tri[3 * (size_t)t])] + 2]++;
    }
    for (uint32_t c = 0; c < nc; ++c)
    {
        ct->first[c + 2] += ct->first[c + 1];
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        ct->order[ct->first[comp_of_root[mc_uf_find(vparent, m->tri[3 * (size_t)t])] + 1]++] = t;
    }
    return true;
}

// Per component: bounding box, signed volume, closedness. comp_of_root[root vertex] = component number.
static uint32_t measure_components(const rp_mesh* m, const edge_index* e, uint32_t* vparent, uint32_t* comp_of_root,
                                   comp_info* comps)
{
    uint32_t nc = 0;
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        comp_of_root[v] = MC_NONE;
        if (mc_uf_find(vparent, v) == v)
        {
            comp_of_root[v] = nc;
            comps[nc++] =
                (comp_info){v, mc_v3(INFINITY, INFINITY, INFINITY), mc_v3(-INFINITY, -INFINITY, -INFINITY), 0.0, true};
        }
    }
    for (uint32_t v = 0; v < m->nv; ++v)
    {
        comp_info* c = &comps[comp_of_root[mc_uf_find(vparent, v)]];
        mc_vec3 p = m->pos[v];
        c->lo = mc_v3(fmin(c->lo.x, p.x), fmin(c->lo.y, p.y), fmin(c->lo.z, p.z));
        c->hi = mc_v3(fmax(c->hi.x, p.x), fmax(c->hi.y, p.y), fmax(c->hi.z, p.z));
    }
    for (uint32_t t = 0; t < m->nt; ++t)
    {
        const uint32_t* x = m->tri + 3 * (size_t)t;
        comp_info* c = &comps[comp_of_root[mc_uf_find(vparent, x[0])]];
        mc_vec3 o = mc_scale(mc_add(c->lo, c->hi), 0.5);
        mc_vec3 p0 = mc_sub(m->pos[x[0]], o), p1 = mc_sub(m->pos[x[1]], o), p2 = mc_sub(m->pos[x[2]], o);
        c->volume += mc_dot(p0, mc_cross(p1, p2)) / 6.0;
        for (uint32_t k = 0; k < 3; ++k)
        {
            uint32_t h = 3 * t + k;
            c->closed = c->closed && e->count[h] == 2 && he_from(m, edge_mate(e, h)) != he_from(m, h);
        }
    }
    return nc;
}

static mc_status rp_outward(rp_mesh* m, mc_error* err)
{
    edge_index e = {0};
    comp_triangles ct = {0};
    uint32_t* vparent = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    uint32_t* comp_of_root = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    comp_info* comps = mc_alloc_array(m->nv + 1, sizeof(comp_info));
    uint8_t* reverse = mc_calloc(m->nv + 1, 1);
    bool ok = vparent != NULL && comp_of_root != NULL && comps != NULL && reverse != NULL && edge_index_build(m, &e);
    uint32_t nc = 0;
    if (ok)
    {
        join_components(m, vparent);
        nc = measure_components(m, &e, vparent, comp_of_root, comps);
        ok = group_triangles(m, vparent, comp_of_root, nc, &ct);
    }
    for (uint32_t c = 0; ok && c < nc; ++c)
    {
        if (!comps[c].closed || comps[c].volume == 0.0)
        {
            continue;
        }
        bool cavity = (nesting_depth(m, comps, nc, c, &ct) & 1u) != 0;
        reverse[c] = (comps[c].volume < 0.0) != cavity;
        m->rep->reversed_components += reverse[c];
    }
    for (uint32_t t = 0; ok && t < m->nt; ++t)
    {
        if (reverse[comp_of_root[mc_uf_find(vparent, m->tri[3 * (size_t)t])]])
        {
            flip_triangle(m, t);
        }
    }
    mc_free(vparent), mc_free(comp_of_root), mc_free(comps), mc_free(reverse), edge_index_free(&e);
    mc_free(ct.order), mc_free(ct.first);
    return ok ? MC_OK : mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while orienting components");
}

// ---------------------------------------------------------------------------------------------------------------
// Pinched vertices

static uint32_t corner_of(const rp_mesh* m, uint32_t t, uint32_t v)
{
    const uint32_t* x = m->tri + 3 * (size_t)t;
    return 3 * t + (x[0] == v ? 0u : x[1] == v ? 1u : 2u);
}

/// Most triangles around one edge that the pinch repair pairs up.
#define REPAIR_MAX_EDGE_FAN 16

typedef struct fan_entry
{
    double angle; ///< angle of the triangle around the edge
    uint32_t he;  ///< its half-edge on the edge
} fan_entry;

static int cmp_fan_entry(const void* pa, const void* pb)
{
    const fan_entry* a = pa;
    const fan_entry* b = pb;
    if (a->angle != b->angle)
    {
        return a->angle < b->angle ? -1 : 1;
    }
    return a->he < b->he ? -1 : (a->he > b->he);
}

// An edge used by 4, 6, ... triangles (solids touching along it): order the triangles around the edge and pair each
// with its neighbour on the side of its own solid (against its normal). @return false when the pairs do not agree or
// a pair is not wound opposite ways (the edge is then left alone).
static bool pair_fan(const rp_mesh* m, const edge_index* e, uint32_t first, uint32_t count, uint32_t* mate)
{
    uint32_t a = (uint32_t)(e->refs[first].key >> 32), b = (uint32_t)e->refs[first].key;
    mc_vec3 d = mc_sub(m->pos[b], m->pos[a]);
    mc_vec3 e1 = fabs(d.x) < fabs(d.y) ? mc_cross(d, mc_v3(1, 0, 0)) : mc_cross(d, mc_v3(0, 1, 0));
    mc_vec3 e2 = mc_cross(d, e1);
    fan_entry fan[REPAIR_MAX_EDGE_FAN];
    int side[REPAIR_MAX_EDGE_FAN];
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t h = e->refs[first + i].he, t = h / 3;
        mc_vec3 w = mc_sub(m->pos[m->tri[3 * t + (h % 3 + 2) % 3]], m->pos[a]);
        fan[i] = (fan_entry){atan2(mc_dot(w, e2), mc_dot(w, e1)), h};
    }
    qsort(fan, count, sizeof(fan_entry), cmp_fan_entry);
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t h = fan[i].he;
        const uint32_t* x = m->tri + 3 * (size_t)(h / 3);
        mc_vec3 n = mc_cross(mc_sub(m->pos[x[1]], m->pos[x[0]]), mc_sub(m->pos[x[2]], m->pos[x[0]]));
        mc_vec3 w = mc_sub(m->pos[m->tri[3 * (h / 3) + (h % 3 + 2) % 3]], m->pos[a]);
        // Increasing angle turns w towards d x w; the solid is on the side against n.
        side[i] = mc_dot(n, mc_cross(d, w)) < 0.0 ? 1 : -1;
    }
    for (uint32_t i = 0; i < count; ++i)
    {
        uint32_t j = (i + count + (uint32_t)side[i]) % count;
        uint32_t back = (j + count + (uint32_t)side[j]) % count;
        if (back != i || he_from(m, fan[i].he) == he_from(m, fan[j].he))
        {
            return false;
        }
    }
    for (uint32_t i = 0; i < count; ++i)
    {
        mate[fan[i].he] = fan[(i + count + (uint32_t)side[i]) % count].he;
    }
    return true;
}

// mate[h]: the half-edge whose triangle continues h's surface across its edge (MC_NONE: a boundary, or an edge used
// an odd number of times or by more than REPAIR_MAX_EDGE_FAN triangles). @return the edges used 4, 6, ... times
// that were paired.
static uint32_t pair_edges(const rp_mesh* m, const edge_index* e, uint32_t* mate)
{
    uint32_t paired = 0;
    for (uint32_t h = 0; h < 3 * m->nt; ++h)
    {
        mate[h] = e->count[h] == 2 ? edge_mate(e, h) : MC_NONE;
    }
    for (uint32_t i = 0; i < 3 * m->nt;)
    {
        uint32_t h = e->refs[i].he, c = e->count[h];
        if (c >= 4 && c % 2 == 0 && c <= REPAIR_MAX_EDGE_FAN)
        {
            paired += pair_fan(m, e, i, c, mate);
        }
        i += c;
    }
    return paired;
}

// Corners joined across paired edges (both ends); bad[v] for a vertex on an unpaired edge (its fans are not split).
static void join_fans(const rp_mesh* m, const uint32_t* mate, uint32_t* cparent, uint8_t* bad)
{
    for (uint32_t c = 0; c < 3 * m->nt; ++c)
    {
        cparent[c] = c;
    }
    for (uint32_t h = 0; h < 3 * m->nt; ++h)
    {
        uint32_t a = he_from(m, h), b = he_to(m, h);
        if (mate[h] == MC_NONE)
        {
            bad[a] = bad[b] = 1;
            continue;
        }
        uint32_t g = mate[h];
        mc_uf_union(cparent, h, corner_of(m, g / 3, a));
        mc_uf_union(cparent, he_next(h), corner_of(m, g / 3, b));
    }
}

static mc_status rp_add_point(rp_mesh* m, mc_vec3 p)
{
    if (m->nv == m->vcap)
    {
        uint32_t cap = m->vcap + m->vcap / 2 + 16;
        mc_vec3* pos = mc_realloc(m->pos, (size_t)cap * sizeof(mc_vec3));
        if (pos == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        m->pos = pos;
        m->vcap = cap;
    }
    m->pos[m->nv++] = p;
    return MC_OK;
}

// Give every fan of a pinched vertex but the first its own copy; every fan's copy moves into its solid.
static mc_status split_pinches(rp_mesh* m, uint32_t* cparent, const uint8_t* bad, uint32_t* fan_vertex,
                               mc_vec3* fan_normal)
{
    uint32_t nv0 = m->nv, nc = 3 * m->nt;
    uint8_t* used = mc_calloc(nv0 + 1, 1);
    if (used == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t c = 0; c < nc; ++c)
    {
        fan_vertex[c] = MC_NONE;
        fan_normal[c] = mc_v3(0.0, 0.0, 0.0);
    }
    for (uint32_t c = 0; c < nc; ++c) // area-weighted normal of each fan, at its root corner
    {
        const uint32_t* x = m->tri + 3 * (size_t)(c / 3);
        mc_vec3 n = mc_cross(mc_sub(m->pos[x[1]], m->pos[x[0]]), mc_sub(m->pos[x[2]], m->pos[x[0]]));
        uint32_t r = mc_uf_find(cparent, c);
        fan_normal[r] = mc_add(fan_normal[r], n);
    }
    mc_status st = MC_OK;
    for (uint32_t c = 0; c < nc && st == MC_OK; ++c) // first corner of each fan, in corner order
    {
        uint32_t v = m->tri[c], r = mc_uf_find(cparent, c);
        if (r != c || bad[v])
        {
            continue;
        }
        if (used[v] == 1)
        {
            st = rp_add_point(m, m->pos[v]);
            fan_vertex[r] = m->nv - 1;
            m->rep->split_vertices++;
        }
        used[v] = 1;
    }
    mc_free(used);
    return st;
}

// Move the copies (and the first fan of each split vertex) into their solids, then renumber the corners.
static void move_split_fans(rp_mesh* m, uint32_t* cparent, const uint32_t* fan_vertex, const mc_vec3* fan_normal,
                            uint8_t* split)
{
    double offset = REPAIR_PINCH_OFFSET * m->diag;
    for (uint32_t c = 0; c < 3 * m->nt; ++c)
    {
        uint32_t r = mc_uf_find(cparent, c);
        if (fan_vertex[r] != MC_NONE && c == r)
        {
            split[m->tri[c]] = 1;
        }
    }
    for (uint32_t c = 0; c < 3 * m->nt; ++c)
    {
        uint32_t r = mc_uf_find(cparent, c), v = m->tri[c];
        if (c != r || (fan_vertex[r] == MC_NONE && !split[v]))
        {
            continue;
        }
        double len = mc_length(fan_normal[r]);
        uint32_t w = fan_vertex[r] != MC_NONE ? fan_vertex[r] : v;
        if (len > 0.0)
        {
            m->pos[w] = mc_sub(m->pos[w], mc_scale(fan_normal[r], offset / len)); // w holds v's point until now
        }
    }
    for (uint32_t c = 0; c < 3 * m->nt; ++c)
    {
        uint32_t r = mc_uf_find(cparent, c);
        if (fan_vertex[r] != MC_NONE)
        {
            m->tri[c] = fan_vertex[r];
        }
    }
}

static mc_status rp_pinches(rp_mesh* m, mc_error* err)
{
    edge_index e = {0};
    size_t nc = 3 * (size_t)m->nt;
    uint32_t nv0 = m->nv;
    uint32_t* cparent = mc_alloc_array(nc + 1, sizeof(uint32_t));
    uint32_t* fan_vertex = mc_alloc_array(nc + 1, sizeof(uint32_t));
    mc_vec3* fan_normal = mc_alloc_array(nc + 1, sizeof(mc_vec3));
    uint8_t* bad = mc_calloc(nv0 + 1, 1);
    uint8_t* split = mc_calloc(nv0 + 1, 1);
    uint32_t* mate = mc_alloc_array(nc + 1, sizeof(uint32_t));
    bool ok = cparent != NULL && fan_vertex != NULL && fan_normal != NULL && bad != NULL && split != NULL &&
              mate != NULL && edge_index_build(m, &e);
    if (ok)
    {
        m->rep->split_edges = pair_edges(m, &e, mate);
        join_fans(m, mate, cparent, bad);
        ok = split_pinches(m, cparent, bad, fan_vertex, fan_normal) == MC_OK;
    }
    if (ok)
    {
        move_split_fans(m, cparent, fan_vertex, fan_normal, split);
    }
    mc_free(cparent), mc_free(fan_vertex), mc_free(fan_normal), mc_free(bad), mc_free(split), mc_free(mate);
    edge_index_free(&e);
    return ok ? MC_OK : mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory while splitting vertices");
}

// ---------------------------------------------------------------------------------------------------------------
// Driver

static mc_status check_repair_options(const mc_repair_options* o, mc_error* err)
{
    MC_ASSERT(o->internal_value == (int)MC_DEF_COOKIE);
    if (o->internal_value != (int)MC_DEF_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "repair options not initialized with mc_default_repair_options");
    }
    if (!(o->weld_tolerance == 0.0 || (o->weld_tolerance >= 1e-12 && o->weld_tolerance <= 0.1)))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "repair weld tolerance %g must be 0 or between 1e-12 and 0.1 of the bbox diagonal",
                            o->weld_tolerance);
    }
    if (!(o->weld_distance >= 0.0 && isfinite(o->weld_distance)) || (o->weld_distance > 0.0 && o->weld_tolerance > 0.0))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "repair weld distance %g must be finite, >= 0, and not given with a weld tolerance",
                            o->weld_distance);
    }
    if ((o->flags & MC_REPAIR_HOLES) && (o->max_hole_edges < 3 || o->max_hole_edges > REPAIR_MAX_HOLE_EDGES))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "largest hole to fill %u must be from 3 to %u edges",
                            o->max_hole_edges, REPAIR_MAX_HOLE_EDGES);
    }
    if (!(o->min_component_size >= 0.0 && o->min_component_size <= 1.0))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "smallest component size %g must be between 0 and 1 (of the bbox diagonal)",
                            o->min_component_size);
    }
    if ((o->flags & ~(uint32_t)MC_REPAIR_ALL) != 0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown repair flags 0x%x", o->flags);
    }
    return MC_OK;
}

// Copy the input into the working mesh (points checked finite, indices in range).
static mc_status rp_load(rp_mesh* m, const double* positions, uint32_t nv, const uint32_t* indices, uint32_t nt,
                         mc_error* err)
{
    m->pos = mc_alloc_array(nv + 1, sizeof(mc_vec3));
    m->tri = mc_alloc_array(3 * (size_t)nt, sizeof(uint32_t));
    m->dead = mc_calloc(nt, 1);
    if (m->pos == NULL || m->tri == NULL || m->dead == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for %u triangles", nt);
    }
    m->nv = m->vcap = nv;
    m->nt = m->tcap = nt;
    for (uint32_t i = 0; i < nv; ++i)
    {
        const double* p = positions + 3 * (size_t)i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        {
            return mc_set_error(err, MC_ERR_NON_FINITE, -1, -1, "vertex %u has a non-finite coordinate", i);
        }
        m->pos[i] = mc_v3(p[0] + 0.0, p[1] + 0.0, p[2] + 0.0);
    }
    for (uint64_t k = 0; k < 3ull * nt; ++k)
    {
        if (indices[k] >= nv)
        {
            return mc_set_error(err, MC_ERR_INDEX_OUT_OF_RANGE, -1, -1,
                                "triangle %llu refers to vertex %u but there are %u vertices",
                                (unsigned long long)(k / 3), indices[k], nv);
        }
        m->tri[k] = indices[k];
    }
    mc_vec3 lo, hi;
    bbox_of(m->pos, nv, &lo, &hi);
    m->diag = nv > 0 ? mc_length(mc_sub(hi, lo)) : 0.0;
    if (m->opt->weld_distance > 0.1 * m->diag)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "repair weld distance %g is more than 0.1 of the bbox diagonal %g", m->opt->weld_distance,
                            m->diag);
    }
    return MC_OK;
}

// The points the triangles use, renumbered densely in order of first use, into fresh output arrays.
static mc_status rp_store(rp_mesh* m, double** out_positions, uint32_t* out_nv, uint32_t** out_indices,
                          uint32_t* out_nt)
{
    uint32_t* map = mc_alloc_array(m->nv + 1, sizeof(uint32_t));
    double* pos = mc_alloc_array(3 * (size_t)m->nv + 3, sizeof(double));
    uint32_t* idx = mc_alloc_array(3 * (size_t)m->nt + 3, sizeof(uint32_t));
    if (map == NULL || pos == NULL || idx == NULL)
    {
        mc_free(map), mc_free(pos), mc_free(idx);
        return MC_ERR_OUT_OF_MEMORY;
    }
    memset(map, 0xff, (size_t)m->nv * sizeof(uint32_t));
    uint32_t n = 0;
    for (uint64_t k = 0; k < 3ull * m->nt; ++k)
    {
        uint32_t v = m->tri[k];
        if (map[v] == MC_NONE)
        {
            map[v] = n;
            pos[3 * (size_t)n] = m->pos[v].x, pos[3 * (size_t)n + 1] = m->pos[v].y,
                    pos[3 * (size_t)n + 2] = m->pos[v].z;
            ++n;
        }
        idx[k] = map[v];
    }
    mc_free(map);
    *out_positions = pos;
    *out_nv = n;
    *out_indices = idx;
    *out_nt = m->nt;
    return MC_OK;
}

// Splitting can cut a component in two: wind the new ones outward too (only when both repairs were asked).
static mc_status rp_outward_after_split(rp_mesh* m, mc_error* err)
{
    uint32_t all = MC_REPAIR_PINCHES | MC_REPAIR_ORIENT;
    bool split = m->rep->split_vertices > 0;
    return (m->opt->flags & all) == all && split ? rp_outward(m, err) : MC_OK;
}

static mc_status rp_run(rp_mesh* m, mc_error* err)
{
    static const struct
    {
        uint32_t flag;
        mc_status (*run)(rp_mesh*, mc_error*);
    } stages[] = {
        {MC_REPAIR_DUPLICATES, rp_duplicates},
        {MC_REPAIR_SHARED_FACES, rp_shared_faces},
        {MC_REPAIR_LOOSE_COMPONENTS, rp_loose},
        {MC_REPAIR_ORIENT, rp_orient},
        {MC_REPAIR_HOLES, rp_holes},
        {MC_REPAIR_ORIENT, rp_outward},
        {MC_REPAIR_PINCHES, rp_pinches},
        {MC_REPAIR_PINCHES | MC_REPAIR_ORIENT, rp_outward_after_split},
    };
    mc_status st = rp_weld(m, err);
    for (size_t i = 0; i < sizeof stages / sizeof stages[0] && st == MC_OK; ++i)
    {
        if ((m->opt->flags & stages[i].flag) != 0 && m->nt > 0)
        {
            st = stages[i].run(m, err);
        }
    }
    return st;
}

mc_status mc_mesh_repair(const mc_repair_options* options, const double* positions, uint32_t vertex_count,
                         const uint32_t* indices, uint32_t triangle_count, double** out_positions,
                         uint32_t* out_vertex_count, uint32_t** out_indices, uint32_t* out_triangle_count,
                         mc_repair_report* report, mc_error* err)
{
    mc_repair_report local;
    mc_repair_report* rep = report != NULL ? report : &local;
    memset(rep, 0, sizeof *rep);
    mc_repair_options opt = options != NULL ? *options : mc_default_repair_options();
    if (out_positions == NULL || out_vertex_count == NULL || out_indices == NULL || out_triangle_count == NULL ||
        indices == NULL || (vertex_count > 0 && positions == NULL))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_mesh_repair: NULL array or output");
    }
    if (triangle_count == 0)
    {
        return mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1, "mesh has no triangles");
    }
    if (triangle_count > (UINT32_MAX - 3) / 3)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%u triangles: too many", triangle_count);
    }
    mc_status st = check_repair_options(&opt, err);
    rp_mesh m = {.opt = &opt, .rep = rep};
    if (st == MC_OK)
    {
        st = rp_load(&m, positions, vertex_count, indices, triangle_count, err);
    }
    if (st == MC_OK)
    {
        rep->ran = true;
        st = rp_run(&m, err);
    }
    if (st == MC_OK && rp_store(&m, out_positions, out_vertex_count, out_indices, out_triangle_count) != MC_OK)
    {
        st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for the repaired mesh");
    }
    mc_free(m.pos), mc_free(m.tri), mc_free(m.dead);
    return st;
}

mc_status mc_soup_repair(mc_soup* soup, const mc_repair_options* options, double unit_scale, mc_repair_report* report,
                         mc_error* err)
{
    mc_repair_options opt = *options;
    opt.weld_distance /= unit_scale;
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    mc_status st = mc_mesh_repair(&opt, soup->positions, soup->vertex_count, soup->indices, soup->triangle_count, &pos,
                                  &nv, &idx, &nt, report, err);
    if (st != MC_OK)
    {
        return st;
    }
    report->weld_distance *= unit_scale;
    mc_free(soup->positions);
    mc_free(soup->indices);
    soup->positions = pos;
    soup->indices = idx;
    soup->vertex_count = soup->vertex_capacity = nv;
    soup->triangle_count = soup->triangle_capacity = nt;
    return MC_OK;
}
