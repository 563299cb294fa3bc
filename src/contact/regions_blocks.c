// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Blocks of a mesh for the region stage: edge-connected patches of at most MC_BLOCK_TRIANGLES triangles grown
// breadth-first, their neighbours (blocks sharing a vertex, with the shared vertices) and the divergence-theorem terms
// of their triangles as polynomials in the origin. Built once per mesh on the first region query.
//
// Why a block can be taken whole: a triangle in no triangle pair does not meet the other surface, so it lies entirely
// inside or entirely outside the other solid, and two such triangles sharing an edge are on the same side and, when
// inside, in the same region (their vertices are joined by uncrossed edges). A block none of whose triangles is in a
// pair is therefore entirely inside or outside, and when inside it lies in one region. Two such blocks sharing a vertex
// are on the same side (the vertex is strictly on one side) and in the same region.
#include "src/contact/regions_blocks.h"

#include "meshcontact/query.h"
#include "src/base/core.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void blocks_free(mc_region_blocks* b)
{
    if (b == NULL)
    {
        return;
    }
    mc_free(b->tri_block);
    mc_free(b->tris);
    mc_free(b->topo);
    mc_free(b->sums);
    mc_free(b->nbr_block);
    mc_free(b->nbr_vfirst);
    mc_free(b->shared_v);
    mc_free(b);
}

static void blocks_destroy(mc_mesh_cache* self)
{
    blocks_free((mc_region_blocks*)self);
}

static int compare_u64(const void* pa, const void* pb)
{
    uint64_t a = *(const uint64_t*)pa, b = *(const uint64_t*)pb;
    return a < b ? -1 : (a > b ? 1 : 0);
}

/// Grow blocks breadth-first over edge neighbours. Seeds come from the front of the blocks grown so far (a queue of
/// the unassigned neighbours of each finished block, oldest first), so that blocks tile the surface like a wave
/// instead of leaving enclosed fragments; when the queue is empty, from the lowest unassigned triangle. Fills
/// tri_block, tris and *starts (block_count + 1 entries, allocated here). Returns the block count, MC_NONE when out of
/// memory.
static uint32_t grow_blocks(const struct mc_mesh* m, uint32_t* tri_block, uint32_t* tris, uint32_t** starts)
{
    uint32_t nt = m->triangle_count;
    uint32_t* st = mc_alloc_array((size_t)nt + 1u, sizeof *st);
    uint32_t* front = mc_alloc_array(nt > 0 ? nt : 1u, sizeof *front); // circular queue of seed candidates
    if (st == NULL || front == NULL)
    {
        mc_free(st);
        mc_free(front);
        return MC_NONE;
    }
    for (uint32_t t = 0; t < nt; ++t)
    {
        tri_block[t] = MC_NONE;
    }
    uint32_t nb = 0, filled = 0, scan = 0, fhead = 0, fcount = 0;
    while (filled < nt)
    {
        uint32_t t = MC_NONE;
        while (fcount > 0 && t == MC_NONE)
        {
            uint32_t g = front[fhead];
            fhead = fhead + 1u == nt ? 0u : fhead + 1u;
            fcount--;
            t = tri_block[g] == MC_NONE ? g : MC_NONE;
        }
        while (t == MC_NONE)
        {
            t = tri_block[scan] == MC_NONE ? scan : MC_NONE;
            scan++;
        }
        uint32_t first = filled;
        tri_block[t] = nb;
        tris[filled++] = t;
        for (uint32_t head = first; head < filled && filled - first < MC_BLOCK_TRIANGLES; ++head)
        {
            uint32_t f = tris[head];
            for (uint32_t k = 0; k < 3u && filled - first < MC_BLOCK_TRIANGLES; ++k)
            {
                uint32_t tw = m->twin[3u * f + k];
                if (tw == MC_NONE)
                {
                    continue;
                }
                uint32_t g = tw / 3u;
                if (tri_block[g] == MC_NONE)
                {
                    tri_block[g] = nb;
                    tris[filled++] = g;
                }
            }
        }
        // The unassigned neighbours of this block are the next seeds (a full queue drops them: the scan finds every
        // triangle anyway).
        for (uint32_t i = first; i < filled; ++i)
        {
            for (uint32_t k = 0; k < 3u; ++k)
            {
                uint32_t tw = m->twin[3u * tris[i] + k];
                if (tw != MC_NONE && tri_block[tw / 3u] == MC_NONE && fcount < nt)
                {
                    uint32_t tail = fhead + fcount;
                    front[tail >= nt ? tail - nt : tail] = tw / 3u;
                    fcount++;
                }
            }
        }
        st[nb++] = first;
    }
    mc_free(front);
    st[nb] = nt;
    *starts = st;
    return nb;
}

/// Center, radius and aggregated terms of every block; owned vertices.
static void block_sums(const struct mc_mesh* m, mc_region_blocks* b)
{
    const mc_vec3* pos = m->positions;
    const uint32_t* idx = m->indices;
    for (uint32_t k = 0; k < b->block_count; ++k)
    {
        const mc_block_topo* tp = &b->topo[k];
        mc_block_sums* s = &b->sums[k];
        memset(s, 0, sizeof *s);
        mc_vec3 c = mc_v3(0.0, 0.0, 0.0);
        for (uint32_t i = 0; i < tp->tri_count; ++i)
        {
            const uint32_t* t = &idx[3u * b->tris[tp->tri_first + i]];
            c = mc_add(c, mc_add(mc_add(pos[t[0]], pos[t[1]]), pos[t[2]]));
        }
        c = mc_scale(c, 1.0 / (3.0 * (double)tp->tri_count));
        s->center = c;
        double r2 = 0.0;
        for (uint32_t i = 0; i < tp->tri_count; ++i)
        {
            const uint32_t* t = &idx[3u * b->tris[tp->tri_first + i]];
            mc_vec3 pa = mc_sub(pos[t[0]], c), pb = mc_sub(pos[t[1]], c), pc = mc_sub(pos[t[2]], c);
            double da = mc_dot(pa, pa), db = mc_dot(pb, pb), dc = mc_dot(pc, pc);
            r2 = da > r2 ? da : r2;
            r2 = db > r2 ? db : r2;
            r2 = dc > r2 ? dc : r2;
            mc_vec3 n = mc_cross(mc_sub(pb, pa), mc_sub(pc, pa));
            double d = mc_dot(pa, mc_cross(pb, pc));
            mc_vec3 g = mc_add(mc_add(pa, pb), pc);
            s->d6 += d;
            s->s2 = mc_add(s->s2, n);
            s->p24 = mc_mul_add(s->p24, d, g);
            const double gv[3] = {g.x, g.y, g.z}, nv[3] = {n.x, n.y, n.z};
            for (int r = 0; r < 3; ++r)
            {
                for (int q = 0; q < 3; ++q)
                {
                    s->m[3 * r + q] += gv[r] * nv[q];
                }
            }
        }
        // The distance to the farthest vertex bounds every point of the block's triangles (convex hulls of their
        // vertices); the factor covers the rounding of the center subtraction and of the square root (a few ulps) with
        // a wide margin, and the absolute term the rounding of a center at the scale of its coordinates.
        s->radius = sqrt(r2) * (1.0 + 1e-9) + 1e-12 * (fabs(c.x) + fabs(c.y) + fabs(c.z));
    }
    for (uint32_t v = 0; v < m->vertex_count; ++v)
    {
        uint32_t h = m->vertex_halfedge[v];
        if (h == MC_NONE)
        {
            continue;
        }
        uint32_t k = b->tri_block[h / 3u];
        b->topo[k].vert_count++;
        b->sums[k].vsum = mc_add(b->sums[k].vsum, pos[v]);
    }
}

/// Distinct blocks of the faces around vertex v, in ring order, into *list (grown as needed). Returns the count, or
/// MC_NONE when out of memory.
static uint32_t ring_blocks(const struct mc_mesh* m, const uint32_t* tri_block, uint32_t v, uint32_t** list,
                            uint32_t* cap)
{
    uint32_t h0 = m->vertex_halfedge[v];
    if (h0 == MC_NONE)
    {
        return 0;
    }
    uint32_t n = 0, h = h0;
    for (uint32_t guard = 0; guard < 65536u; ++guard)
    {
        uint32_t k = tri_block[h / 3u];
        bool seen = false;
        for (uint32_t i = 0; i < n && !seen; ++i)
        {
            seen = (*list)[i] == k;
        }
        if (!seen)
        {
            if (n == *cap)
            {
                uint32_t nc = *cap * 2u;
                uint32_t* p = mc_realloc(*list, (size_t)nc * sizeof *p);
                if (p == NULL)
                {
                    return MC_NONE;
                }
                *list = p;
                *cap = nc;
            }
            (*list)[n++] = k;
        }
        uint32_t hp = 3u * (h / 3u) + (h % 3u + 2u) % 3u; // half-edge into v in this face
        uint32_t next = m->twin[hp];
        if (next == MC_NONE || next == h0)
        {
            break;
        }
        h = next;
    }
    return n;
}

/// Sort keys[0 .. n) ascending (insertion sort for the short lists of a block, qsort beyond).
static void sort_keys(uint64_t* keys, uint32_t n)
{
    if (n > 64u)
    {
        qsort(keys, n, sizeof *keys, compare_u64);
        return;
    }
    for (uint32_t i = 1; i < n; ++i)
    {
        uint64_t x = keys[i];
        uint32_t j = i;
        while (j > 0 && keys[j - 1u] > x)
        {
            keys[j] = keys[j - 1u];
            --j;
        }
        keys[j] = x;
    }
}

/// Append n values to a growable buffer. False when out of memory.
static bool push_values(uint32_t** buf, size_t* count, size_t* cap, const uint32_t* values, uint32_t n)
{
    if (*count + n > *cap)
    {
        size_t nc = *cap > 0 ? *cap : 1024u;
        while (nc < *count + n)
        {
            nc *= 2u;
        }
        uint32_t* p = mc_realloc(*buf, nc * sizeof *p);
        if (p == NULL)
        {
            return false;
        }
        *buf = p;
        *cap = nc;
    }
    memcpy(*buf + *count, values, (size_t)n * sizeof *values);
    *count += n;
    return true;
}

/// Neighbour entries: for each block, the other blocks around its vertices with the shared vertices. Only vertices
/// whose corners lie in more than one block have entries; their distinct blocks (from one ring walk each) are kept as
/// records (v, n, blocks...) in ascending v, then spread into per-block keys (other block, vertex) and sorted. False
/// when out of memory.
static bool block_neighbours(const struct mc_mesh* m, mc_region_blocks* b)
{
    uint32_t nb = b->block_count, nv = m->vertex_count, nt = m->triangle_count;
    uint32_t cap = 32;
    uint32_t* list = mc_alloc_array(cap, sizeof *list);
    uint32_t* start = mc_calloc((size_t)nb + 1u, sizeof *start);
    uint32_t* seen = mc_alloc_array(nv > 0 ? nv : 1u, sizeof *seen); // a block of the vertex's corners, or MC_NONE
    uint8_t* multi = mc_calloc(nv > 0 ? nv : 1u, 1);                 // corners in more than one block
    uint32_t* rec = NULL;
    size_t rec_count = 0, rec_cap = 0;
    uint64_t* keys = NULL;
    uint32_t* fill = NULL;
    bool ok = list != NULL && start != NULL && seen != NULL && multi != NULL;
    for (uint32_t v = 0; ok && v < nv; ++v)
    {
        seen[v] = MC_NONE;
    }
    for (uint32_t t = 0; ok && t < nt; ++t)
    {
        uint32_t k = b->tri_block[t];
        for (uint32_t j = 0; j < 3u; ++j)
        {
            uint32_t v = m->indices[3u * t + j];
            multi[v] |= (uint8_t)(seen[v] != MC_NONE && seen[v] != k);
            seen[v] = k;
        }
    }
    // Records of the vertices around several blocks; a vertex around n blocks gives each of them n - 1 entries.
    for (uint32_t v = 0; ok && v < nv; ++v)
    {
        if (!multi[v])
        {
            continue;
        }
        uint32_t n = ring_blocks(m, b->tri_block, v, &list, &cap);
        ok = n != MC_NONE;
        if (ok && n > 1u)
        {
            uint32_t head[2] = {v, n};
            ok = push_values(&rec, &rec_count, &rec_cap, head, 2u) && push_values(&rec, &rec_count, &rec_cap, list, n);
            for (uint32_t i = 0; ok && i < n; ++i)
            {
                start[list[i] + 1u] += n - 1u;
            }
        }
    }
    uint64_t total = 0;
    for (uint32_t k = 0; ok && k < nb; ++k)
    {
        total += start[k + 1u];
        ok = total < UINT32_MAX;
        start[k + 1u] = (uint32_t)total;
    }
    if (ok)
    {
        keys = mc_alloc_array(total > 0 ? (size_t)total : 1u, sizeof *keys);
        b->shared_v = mc_alloc_array(total > 0 ? (size_t)total : 1u, sizeof *b->shared_v);
        fill = mc_alloc_array((size_t)nb + 1u, sizeof *fill);
        ok = keys != NULL && b->shared_v != NULL && fill != NULL;
    }
    if (ok)
    {
        memcpy(fill, start, ((size_t)nb + 1u) * sizeof *fill);
        for (size_t r = 0; r < rec_count; r += 2u + rec[r + 1u])
        {
            uint32_t v = rec[r], n = rec[r + 1u];
            const uint32_t* l = rec + r + 2u;
            for (uint32_t i = 0; i < n; ++i)
            {
                for (uint32_t j = 0; j < n; ++j)
                {
                    if (j != i)
                    {
                        keys[fill[l[i]]++] = ((uint64_t)l[j] << 32) | v;
                    }
                }
            }
        }
    }
    uint32_t entries = 0;
    for (uint32_t k = 0; ok && k < nb; ++k)
    {
        sort_keys(keys + start[k], start[k + 1u] - start[k]);
        for (uint32_t i = start[k]; i < start[k + 1u]; ++i)
        {
            entries += (uint32_t)(i == start[k] || (keys[i] >> 32) != (keys[i - 1u] >> 32));
        }
    }
    if (ok)
    {
        b->nbr_block = mc_alloc_array(entries > 0 ? entries : 1u, sizeof *b->nbr_block);
        b->nbr_vfirst = mc_alloc_array((size_t)entries + 1u, sizeof *b->nbr_vfirst);
        ok = b->nbr_block != NULL && b->nbr_vfirst != NULL;
    }
    if (ok)
    {
        uint32_t e = 0;
        for (uint32_t k = 0; k < nb; ++k)
        {
            b->topo[k].nbr_first = e;
            for (uint32_t i = start[k]; i < start[k + 1u]; ++i)
            {
                uint32_t other = (uint32_t)(keys[i] >> 32);
                if (i == start[k] || other != (uint32_t)(keys[i - 1u] >> 32))
                {
                    b->nbr_block[e] = other;
                    b->nbr_vfirst[e] = i;
                    e++;
                }
                b->shared_v[i] = (uint32_t)keys[i];
            }
            b->topo[k].nbr_count = e - b->topo[k].nbr_first;
        }
        b->nbr_vfirst[e] = (uint32_t)total;
        b->byte_count += (size_t)total * sizeof *b->shared_v + (size_t)entries * sizeof *b->nbr_block +
                         ((size_t)entries + 1u) * sizeof *b->nbr_vfirst;
    }
    mc_free(list);
    mc_free(start);
    mc_free(seen);
    mc_free(multi);
    mc_free(rec);
    mc_free(keys);
    mc_free(fill);
    return ok;
}

// The sums of a deformed mesh's blocks, refreshed on the first use after mc_mesh_set_positions: the blocks' topology
// depends on the triangles only, so only their sums follow the new positions, computed as a fresh build computes them.
// One caller computes; the others wait until sums_version says the mesh's version (its release store publishes the
// sums to their acquire loads). Queries never run during a deformation (mc_mesh_set_positions), so nobody reads the
// sums while they are rewritten.
static void blocks_follow(mc_region_blocks* b, const struct mc_mesh* mesh)
{
    uint64_t want = mesh->geometry_version;
    while (atomic_load_explicit(&b->sums_version, memory_order_acquire) != want)
    {
        int expected = 0;
        if (atomic_compare_exchange_strong_explicit(&b->refreshing, &expected, 1, memory_order_acquire,
                                                    memory_order_relaxed))
        {
            if (atomic_load_explicit(&b->sums_version, memory_order_acquire) != want)
            {
                for (uint32_t k = 0; k < b->block_count; ++k)
                {
                    b->topo[k].vert_count = 0;
                }
                block_sums(mesh, b);
                atomic_store_explicit(&b->sums_version, want, memory_order_release);
            }
            atomic_store_explicit(&b->refreshing, 0, memory_order_release);
        }
    }
}

static mc_region_blocks* build_blocks(const struct mc_mesh* m)
{
    mc_region_blocks* b = mc_calloc(1, sizeof *b);
    if (b == NULL)
    {
        return NULL;
    }
    b->base.destroy = blocks_destroy;
    b->base.refit = NULL; // the sums follow a deformation lazily (blocks_follow)
    uint32_t nt = m->triangle_count;
    b->tri_block = mc_alloc_array(nt > 0 ? nt : 1u, sizeof *b->tri_block);
    b->tris = mc_alloc_array(nt > 0 ? nt : 1u, sizeof *b->tris);
    uint32_t* starts = NULL;
    if (b->tri_block == NULL || b->tris == NULL)
    {
        blocks_free(b);
        return NULL;
    }
    uint32_t nb = grow_blocks(m, b->tri_block, b->tris, &starts);
    if (nb == MC_NONE)
    {
        blocks_free(b);
        return NULL;
    }
    b->block_count = nb;
    b->topo = mc_calloc(nb > 0 ? nb : 1u, sizeof *b->topo);
    b->sums = mc_alloc_array(nb > 0 ? nb : 1u, sizeof *b->sums);
    if (b->topo == NULL || b->sums == NULL)
    {
        mc_free(starts);
        blocks_free(b);
        return NULL;
    }
    for (uint32_t k = 0; k < nb; ++k)
    {
        b->topo[k].tri_first = starts[k];
        b->topo[k].tri_count = starts[k + 1u] - starts[k];
    }
    mc_free(starts);
    b->byte_count = sizeof *b + 2u * (size_t)nt * sizeof(uint32_t) + (size_t)nb * (sizeof *b->topo + sizeof *b->sums);
    block_sums(m, b);
    atomic_init(&b->sums_version, m->geometry_version);
    atomic_init(&b->refreshing, 0);
    if (!block_neighbours(m, b))
    {
        blocks_free(b);
        return NULL;
    }
    b->base.byte_count = b->byte_count;
    return b;
}

const mc_region_blocks* mc_region_blocks_get(const struct mc_mesh* mesh)
{
    // The cache pointer is the only mutable part of a mesh; the mesh object itself was allocated non-const.
    struct mc_mesh* m = (struct mc_mesh*)mesh;
    mc_mesh_cache* have = atomic_load_explicit(&m->region_cache, memory_order_acquire);
    if (have != NULL)
    {
        blocks_follow((mc_region_blocks*)have, mesh);
        return (const mc_region_blocks*)have;
    }
    mc_region_blocks* b = build_blocks(mesh);
    if (b == NULL)
    {
        return NULL;
    }
    mc_mesh_cache* expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&m->region_cache, &expected, &b->base, memory_order_acq_rel,
                                                 memory_order_acquire))
    {
        blocks_free(b); // another thread published first: its blocks are identical
        blocks_follow((mc_region_blocks*)expected, mesh);
        return (const mc_region_blocks*)expected;
    }
    return b;
}

mc_status mc_mesh_prepare_regions(const mc_mesh* mesh)
{
    if (mesh == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    return mc_region_blocks_get(mesh) != NULL ? MC_OK : MC_ERR_OUT_OF_MEMORY;
}
