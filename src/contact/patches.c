// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact patches: each region's intersection curve chained from the pair stage's segments (one per intersecting
// triangle pair, between its two edge-face crossings), and a reduced manifold of its vertices (query.h, mc_patch).
#include "src/contact/patches.h"

#include "mesh/mesh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/contact/regions.h"
#include "src/contact/workspace.h"

#include <string.h>

#define WALKED 0x80000000u

void mc_patch_scratch_destroy(mc_patch_scratch* s)
{
    if (s == NULL)
    {
        return;
    }
    mc_free(s->label);
    mc_free(s->rank);
    mc_free(s->points);
    mc_free(s->ends);
    mc_free(s->meta);
    mc_free(s);
}

size_t mc_patch_scratch_byte_count(const mc_patch_scratch* s)
{
    if (s == NULL)
    {
        return 0;
    }
    return mc_alloc_size(s) + mc_alloc_size(s->label) + mc_alloc_size(s->rank) + mc_alloc_size(s->points) +
           mc_alloc_size(s->ends) + mc_alloc_size(s->meta);
}

void mc_patch_view(const mc_patch_meta* m, const mc_vec3* points, const uint32_t* ends, mc_patch* out)
{
    memset(out, 0, sizeof *out);
    out->points = m->point_count > 0 ? points + m->point_first : NULL;
    out->loop_ends = m->loop_count > 0 ? ends + m->point_first : NULL;
    out->point_count = m->point_count;
    out->loop_count = m->loop_count;
    out->open_loops = m->open_loops;
    out->manifold_count = m->manifold_count;
    memcpy(out->manifold, m->manifold, sizeof out->manifold);
}

void mc_patch_meta_centroid(mc_patch_meta* m, const mc_region* region)
{
    memset(m, 0, sizeof *m);
    m->manifold_count = 1;
    m->manifold[0].point = region->centroid;
    m->manifold[0].depth = region->depth;
}

// ---------------------------------------------------------------------------------------------------------------
// Manifold reduction

/// x projected along n onto the plane through c.
static inline mc_vec3 project(mc_vec3 x, mc_vec3 c, mc_vec3 n)
{
    return mc_sub(x, mc_scale(n, mc_dot(n, mc_sub(x, c))));
}

static bool chosen_has(const uint32_t* chosen, uint32_t n, uint32_t k)
{
    for (uint32_t a = 0; a < n; ++a)
    {
        if (chosen[a] == k)
        {
            return true;
        }
    }
    return false;
}

/// Index of the vertex (not chosen yet) of largest score, strictly above `floor` (ties: lower index); MC_NONE if none.
typedef double score_fcn(mc_vec3 q, const void* ctx);

static uint32_t argmax(const mc_vec3* points, uint32_t count, mc_vec3 c, mc_vec3 n, const uint32_t* chosen,
                       uint32_t nchosen, score_fcn* score, const void* ctx, double floor)
{
    uint32_t best = MC_NONE;
    double best_score = floor;
    for (uint32_t k = 0; k < count; ++k)
    {
        if (chosen_has(chosen, nchosen, k))
        {
            continue;
        }
        double sc = score(project(points[k], c, n), ctx);
        if (sc > best_score)
        {
            best_score = sc;
            best = k;
        }
    }
    return best;
}

typedef struct area_ctx
{
    mc_vec3 a, b, n;
    double sign;
} area_ctx;

static double score_distance(mc_vec3 q, const void* ctx)
{
    mc_vec3 d = mc_sub(q, *(const mc_vec3*)ctx);
    return mc_dot(d, d);
}

static double score_area(mc_vec3 q, const void* vctx)
{
    const area_ctx* x = vctx;
    return x->sign * mc_dot(mc_cross(mc_sub(x->b, x->a), mc_sub(q, x->a)), x->n);
}

typedef struct sample_ctx
{
    const mc_vec3* points;
    const uint32_t* chosen;
    uint32_t nchosen;
    mc_vec3 c, n;
} sample_ctx;

static double score_sample(mc_vec3 q, const void* vctx)
{
    const sample_ctx* x = vctx;
    double m = INFINITY;
    for (uint32_t a = 0; a < x->nchosen; ++a)
    {
        mc_vec3 d = mc_sub(q, project(x->points[x->chosen[a]], x->c, x->n));
        double d2 = mc_dot(d, d);
        m = d2 < m ? d2 : m;
    }
    return m;
}

uint32_t mc_manifold_reduce(const mc_vec3* points, uint32_t count, mc_vec3 centroid, mc_vec3 normal, double depth,
                            uint32_t want, mc_manifold_point* out)
{
    if (count == 0 || mc_dot(normal, normal) == 0.0)
    {
        out[0].point = centroid;
        out[0].depth = depth;
        return 1;
    }
    want = want > MC_MANIFOLD_MAX ? MC_MANIFOLD_MAX : want;
    uint32_t chosen[MC_MANIFOLD_MAX];
    uint32_t n = 0;
    // 1. farthest from the centroid (the first vertex when all coincide with it)
    uint32_t k = argmax(points, count, centroid, normal, chosen, n, score_distance, &centroid, -1.0);
    chosen[n++] = k;
    // 2. farthest from the first
    mc_vec3 q0 = project(points[chosen[0]], centroid, normal);
    if (n < want && (k = argmax(points, count, centroid, normal, chosen, n, score_distance, &q0, 0.0)) != MC_NONE)
    {
        chosen[n++] = k;
        // 3, 4. largest triangle area on either side of the line through the first two
        area_ctx ac = {q0, project(points[chosen[1]], centroid, normal), normal, 1.0};
        for (int side = 0; side < 2 && n < want; ++side)
        {
            ac.sign = side == 0 ? 1.0 : -1.0;
            if ((k = argmax(points, count, centroid, normal, chosen, n, score_area, &ac, 0.0)) != MC_NONE)
            {
                chosen[n++] = k;
            }
        }
    }
    // 5. farthest-point sampling
    while (n < want)
    {
        sample_ctx sc = {points, chosen, n, centroid, normal};
        if ((k = argmax(points, count, centroid, normal, chosen, n, score_sample, &sc, 0.0)) == MC_NONE)
        {
            break;
        }
        chosen[n++] = k;
    }
    for (uint32_t a = 0; a < n; ++a)
    {
        out[a].point = points[chosen[a]];
        out[a].depth = depth;
    }
    return n;
}

// ---------------------------------------------------------------------------------------------------------------
// Loops

/// Pair index of (i, j) in the sorted pairs, MC_NONE when absent.
static uint32_t find_pair(const mc_pair_result* pr, uint32_t i, uint32_t j)
{
    uint32_t lo = 0, hi = pr->pair_count;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2u;
        const mc_triangle_pair* p = &pr->pairs[mid];
        if (p->i < i || (p->i == i && p->j < j))
        {
            lo = mid + 1u;
        }
        else
        {
            hi = mid;
        }
    }
    return lo < pr->pair_count && pr->pairs[lo].i == i && pr->pairs[lo].j == j ? lo : MC_NONE;
}

/// The other occurrence (2 q + slot) of the crossing in slot `slot` of pair p: the same edge, from its twin
/// half-edge's triangle, through the same face. MC_NONE when the pair stage has none (inconsistent input).
static uint32_t mate(const mc_pair_result* pr, const struct mc_mesh* const mesh[2], uint32_t p, uint32_t slot)
{
    const mc_triangle_pair* tp = &pr->pairs[p];
    const mc_crossing* x = &tp->crossing[slot];
    int b = x->body;
    uint32_t t = b == 0 ? tp->i : tp->j;
    uint32_t tw = mesh[b]->twin[3u * t + x->edge];
    if (tw == MC_NONE)
    {
        return MC_NONE;
    }
    uint32_t q = b == 0 ? find_pair(pr, tw / 3u, tp->j) : find_pair(pr, tp->i, tw / 3u);
    if (q == MC_NONE)
    {
        return MC_NONE;
    }
    for (uint32_t s = 0; s < 2; ++s)
    {
        const mc_crossing* y = &pr->pairs[q].crossing[s];
        if (y->body == b && y->edge == tw % 3u)
        {
            return 2u * q + s;
        }
    }
    return MC_NONE;
}

/// Walk the loop that starts at pair p (not walked yet, region r), writing its vertices in the world frame.
static void walk_loop(mc_patch_scratch* s, const mc_pair_result* pr, const struct mc_mesh* const mesh[2],
                      const mc_mat33* rot_j, const mc_pose* pi, uint32_t p)
{
    uint32_t r = s->label[p];
    mc_patch_meta* m = &s->meta[r];
    const mc_triangle_pair* tp = &pr->pairs[p];
    // Direction of travel n_I x n_J at the first segment.
    mc_vec3 ni = mesh[0]->face_normals[tp->i];
    mc_vec3 nj = mc_mat33_mul_vec(rot_j, mesh[1]->face_normals[tp->j]);
    mc_vec3 d = mc_cross(ni, nj);
    uint32_t slot = mc_dot(mc_sub(tp->crossing[1].point, tp->crossing[0].point), d) < 0.0 ? 1u : 0u;
    uint32_t q = p;
    bool closed = false;
    for (;;)
    {
        s->label[q] |= WALKED;
        s->points[m->point_first + m->point_count++] = mc_pose_transform(pi, pr->pairs[q].crossing[slot].point);
        uint32_t o = mate(pr, mesh, q, 1u - slot);
        if (o == MC_NONE)
        {
            break;
        }
        uint32_t q2 = o / 2u;
        if (q2 == p)
        {
            closed = true;
            break;
        }
        if (s->label[q2] != r) // walked already, or another region's: inconsistent input
        {
            break;
        }
        q = q2;
        slot = o % 2u;
    }
    s->ends[m->point_first + m->loop_count++] = m->point_count;
    m->open_loops += closed ? 0u : 1u;
}

mc_status mc_patches_build(struct mc_workspace* ws, const struct mc_mesh* mi, const struct mc_mesh* mj,
                           const mc_pair_result* pr, const mc_pose* pi, const mc_pose* j_in_i, const mc_region* regions,
                           uint32_t written, uint32_t manifold_points)
{
    if (ws->patches == NULL && (ws->patches = mc_calloc(1, sizeof *ws->patches)) == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_patch_scratch* s = ws->patches;
    s->region_count = 0;
    s->point_count = 0;
    uint32_t np = pr->pair_count;
    const uint32_t* node_region = NULL;
    const uint32_t* order = NULL;
    uint32_t accumulators = 0;
    if (np > 0)
    {
        mc_regions_last_map(ws->regions, &node_region, &order, &accumulators);
    }
    if (!mc_array_reserve((void**)&s->meta, &s->meta_cap, written, sizeof *s->meta, 4) ||
        !mc_array_reserve((void**)&s->label, &s->label_cap, np, sizeof *s->label, 64) ||
        !mc_array_reserve((void**)&s->rank, &s->rank_cap, accumulators, sizeof *s->rank, 16) ||
        !mc_array_reserve((void**)&s->points, &s->point_cap, np, sizeof *s->points, 64) ||
        !mc_array_reserve((void**)&s->ends, &s->end_cap, np, sizeof *s->ends, 64))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // Output region of each pair: its segment's union-find set, ranked as the regions were written.
    for (uint32_t a = 0; a < accumulators; ++a)
    {
        s->rank[a] = MC_NONE;
    }
    for (uint32_t k = 0; k < written; ++k)
    {
        if (np > 0)
        {
            s->rank[order[k]] = k;
        }
        memset(&s->meta[k], 0, sizeof s->meta[k]);
    }
    for (uint32_t p = 0; p < np; ++p)
    {
        uint32_t acc = node_region[2u * p];
        uint32_t r = acc < accumulators ? s->rank[acc] : MC_NONE;
        s->label[p] = r;
        if (r != MC_NONE)
        {
            s->meta[r].point_count++; // counted here, written by the walks
        }
    }
    uint32_t first = 0;
    for (uint32_t k = 0; k < written; ++k)
    {
        s->meta[k].point_first = first;
        first += s->meta[k].point_count;
        s->meta[k].point_count = 0;
    }
    const struct mc_mesh* mesh[2] = {mi, mj};
    mc_mat33 rot_j = mc_quat_to_mat33(j_in_i->q);
    for (uint32_t p = 0; p < np; ++p)
    {
        if (s->label[p] != MC_NONE && (s->label[p] & WALKED) == 0u)
        {
            walk_loop(s, pr, mesh, &rot_j, pi, p);
        }
    }
    for (uint32_t k = 0; k < written; ++k)
    {
        mc_patch_meta* m = &s->meta[k];
        const mc_region* reg = &regions[k];
        // No points (no crossing: a region with a body inside the other), no array: no offset from NULL.
        const mc_vec3* points = m->point_count > 0 ? s->points + m->point_first : NULL;
        m->manifold_count = mc_manifold_reduce(points, m->point_count, reg->centroid, reg->normal, reg->depth,
                                               manifold_points, m->manifold);
    }
    s->region_count = written;
    s->point_count = first;
    return MC_OK;
}

mc_status mc_query_patches(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j, const mc_pose* pose_j,
                           const mc_query_options* options, uint32_t manifold_points, mc_workspace* ws,
                           mc_region* regions, mc_patch* patches, uint32_t capacity, uint32_t* region_count,
                           mc_query_stats* stats)
{
    if (ws == NULL || manifold_points < 1u || manifold_points > MC_MANIFOLD_MAX || (capacity > 0 && patches == NULL))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    ws->patch_manifold = manifold_points;
    mc_status st =
        mc_query_regions(mesh_i, pose_i, mesh_j, pose_j, options, ws, regions, capacity, region_count, stats);
    ws->patch_manifold = 0;
    if (st != MC_OK && st != MC_ERR_CAPACITY)
    {
        return st;
    }
    const mc_patch_scratch* s = ws->patches;
    uint32_t written = *region_count < capacity ? *region_count : capacity;
    for (uint32_t k = 0; k < written; ++k)
    {
        mc_patch_view(&s->meta[k], s->points, s->ends, &patches[k]);
    }
    return st;
}
