// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// OBB-tree build: top-down, boxes fitted to the exact area-weighted second moments of their triangles.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996.
//
// One pass over a node's triangles does everything: the node's axes are already known (from moment sums gathered
// by the parent's pass), so the pass projects the triangles' vertices for the extents, classifies the centroids
// against the split plane, partitions the triangles in place and accumulates each child's moment sums. The build
// is O(n log n) with one sequential sweep per level and no allocation per node.
#include "bvh/bvh_internal.h"
#include "src/core.h"

#include <math.h>
#include <string.h>

// Per-triangle data of the build, permuted together with the triangle order.
typedef struct build_tri
{
    double centroid[3]; // centroid of the triangle
    double area;        // area
    double local[6];    // area/12 * sum_k d_k d_k^T, d_k = vertex k - centroid: (xx, yy, zz, xy, xz, yz)
} build_tri;

// Moment sums of a set of triangles relative to a reference point r.
typedef struct moments
{
    double area;  // sum A
    double m1[3]; // sum A (c - r)
    double m2[6]; // sum A (c - r)(c - r)^T + local
} moments;

typedef struct build_item
{
    uint32_t node;
    uint32_t begin, end;
    double mean[3]; // area-weighted mean of the centroids
    double cov[6];  // covariance about the mean
} build_item;

static void moments_add(moments* s, const build_tri* t, const double r[3])
{
    double d0 = t->centroid[0] - r[0], d1 = t->centroid[1] - r[1], d2 = t->centroid[2] - r[2];
    double a = t->area;
    s->area += a;
    s->m1[0] += a * d0;
    s->m1[1] += a * d1;
    s->m1[2] += a * d2;
    s->m2[0] += a * d0 * d0 + t->local[0];
    s->m2[1] += a * d1 * d1 + t->local[1];
    s->m2[2] += a * d2 * d2 + t->local[2];
    s->m2[3] += a * d0 * d1 + t->local[3];
    s->m2[4] += a * d0 * d2 + t->local[4];
    s->m2[5] += a * d1 * d2 + t->local[5];
}

// Mean and covariance from sums about r.
static void moments_finish(const moments* s, const double r[3], build_item* item)
{
    double inv = s->area > 0.0 ? 1.0 / s->area : 0.0;
    double d[3] = {s->m1[0] * inv, s->m1[1] * inv, s->m1[2] * inv};
    for (int k = 0; k < 3; ++k)
    {
        item->mean[k] = r[k] + d[k];
    }
    item->cov[0] = s->m2[0] * inv - d[0] * d[0];
    item->cov[1] = s->m2[1] * inv - d[1] * d[1];
    item->cov[2] = s->m2[2] * inv - d[2] * d[2];
    item->cov[3] = s->m2[3] * inv - d[0] * d[1];
    item->cov[4] = s->m2[4] * inv - d[0] * d[2];
    item->cov[5] = s->m2[5] * inv - d[1] * d[2];
}

typedef struct builder
{
    const mc_vec3* pos;
    build_tri* tris;
    uint32_t* order;
    uint32_t* tv;
    mc_bvh_node* nodes;
    uint32_t node_count, node_capacity;
    build_item* stack;
    uint32_t stack_count, stack_capacity;
} builder;

static void swap_tri(builder* b, uint32_t i, uint32_t j)
{
    build_tri t = b->tris[i];
    b->tris[i] = b->tris[j];
    b->tris[j] = t;
    uint32_t o = b->order[i];
    b->order[i] = b->order[j];
    b->order[j] = o;
    for (int k = 0; k < 3; ++k)
    {
        uint32_t v = b->tv[3 * i + k];
        b->tv[3 * i + k] = b->tv[3 * j + k];
        b->tv[3 * j + k] = v;
    }
}

// Partition [begin, end) by the sign of axis . (centroid - mean); returns the split position and fills the sums.
static uint32_t partition(builder* b, uint32_t begin, uint32_t end, const double axis[3], const double mean[3],
                          moments* left, moments* right)
{
    memset(left, 0, sizeof *left);
    memset(right, 0, sizeof *right);
    uint32_t i = begin, j = end;
    while (i < j)
    {
        const build_tri* t = &b->tris[i];
        double s = axis[0] * (t->centroid[0] - mean[0]) + axis[1] * (t->centroid[1] - mean[1]) +
                   axis[2] * (t->centroid[2] - mean[2]);
        if (s < 0.0)
        {
            moments_add(left, t, mean);
            ++i;
        }
        else
        {
            moments_add(right, t, mean);
            --j;
            swap_tri(b, i, j);
        }
    }
    return i;
}

static mc_status push_item(builder* b, const build_item* item)
{
    if (b->stack_count == b->stack_capacity)
    {
        uint32_t cap = b->stack_capacity * 2u;
        build_item* s = mc_realloc(b->stack, (size_t)cap * sizeof *s);
        if (s == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        b->stack = s;
        b->stack_capacity = cap;
    }
    b->stack[b->stack_count++] = *item;
    return MC_OK;
}

static mc_status alloc_children(builder* b, uint32_t* first)
{
    if (b->node_count + 2u > b->node_capacity)
    {
        uint64_t cap = (uint64_t)b->node_capacity + b->node_capacity / 2u + 2u;
        if (cap > 2ull * MC_BVH_MAX_TRIANGLES)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        mc_bvh_node* n = mc_realloc(b->nodes, (size_t)cap * sizeof *n);
        if (n == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        b->nodes = n;
        b->node_capacity = (uint32_t)cap;
    }
    *first = b->node_count;
    b->node_count += 2u;
    return MC_OK;
}

static mc_status build_tree(builder* b, uint32_t tri_count, uint32_t* depth_out)
{
    // Root sums: two passes (mean, then moments about it) so that nothing cancels.
    double zero[3] = {0.0, 0.0, 0.0};
    moments s;
    memset(&s, 0, sizeof s);
    for (uint32_t t = 0; t < tri_count; ++t)
    {
        moments_add(&s, &b->tris[t], zero);
    }
    build_item root = {0};
    moments_finish(&s, zero, &root);
    double mean0[3] = {root.mean[0], root.mean[1], root.mean[2]};
    memset(&s, 0, sizeof s);
    for (uint32_t t = 0; t < tri_count; ++t)
    {
        moments_add(&s, &b->tris[t], mean0);
    }
    moments_finish(&s, mean0, &root);
    root.node = 0;
    root.begin = 0;
    root.end = tri_count;
    b->node_count = 1;
    mc_status st = push_item(b, &root);
    uint32_t max_depth = 1;
    // Depth of each item is not stored; track it with a parallel counter in the item's node data during build.
    while (st == MC_OK && b->stack_count > 0)
    {
        build_item it = b->stack[--b->stack_count];
        mc_bvh_node* node = &b->nodes[it.node];
        uint32_t depth = node->data; // depth stored temporarily
        if (depth > max_depth)
        {
            max_depth = depth;
        }
        double axes[3][3];
        mc_obb_eigen_sym3(it.cov, axes, NULL);
        float axes_f[3][3];
        mc_obb_round_axes(axes, axes_f);
        double ad[3][3];
        for (int r = 0; r < 3; ++r)
        {
            for (int k = 0; k < 3; ++k)
            {
                ad[r][k] = (double)axes_f[r][k];
            }
        }
        // Extents from the vertices, projected on the rounded axes.
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        double max_abs = 0.0;
        for (uint32_t t = it.begin; t < it.end; ++t)
        {
            for (int k = 0; k < 3; ++k)
            {
                mc_vec3 v = b->pos[b->tv[3 * t + k]];
                max_abs = fmax(max_abs, fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z))));
                for (int r = 0; r < 3; ++r)
                {
                    double p = ad[r][0] * v.x + ad[r][1] * v.y + ad[r][2] * v.z;
                    lo[r] = fmin(lo[r], p);
                    hi[r] = fmax(hi[r], p);
                }
            }
        }
        mc_obb_finish(axes_f, lo, hi, max_abs, node);
        uint32_t count = it.end - it.begin;
        if (count <= MC_BVH_LEAF_MAX)
        {
            node->data = MC_BVH_LEAF_BIT | (it.begin << 3) | (count - 1u);
            continue;
        }
        moments left, right;
        uint32_t mid = it.begin;
        for (int r = 0; r < 3; ++r)
        {
            mid = partition(b, it.begin, it.end, axes[r], it.mean, &left, &right);
            if (mid != it.begin && mid != it.end)
            {
                break;
            }
        }
        if (mid == it.begin || mid == it.end)
        {
            // Every centroid on one side along all three axes (coincident centroids): split by count.
            mid = it.begin + count / 2u;
            memset(&left, 0, sizeof left);
            memset(&right, 0, sizeof right);
            for (uint32_t t = it.begin; t < it.end; ++t)
            {
                moments_add(t < mid ? &left : &right, &b->tris[t], it.mean);
            }
        }
        uint32_t first = 0;
        st = alloc_children(b, &first);
        if (st != MC_OK)
        {
            break;
        }
        node = &b->nodes[it.node];
        node->data = first;
        build_item ci[2];
        moments_finish(&left, it.mean, &ci[0]);
        moments_finish(&right, it.mean, &ci[1]);
        ci[0].node = first;
        ci[0].begin = it.begin;
        ci[0].end = mid;
        ci[1].node = first + 1u;
        ci[1].begin = mid;
        ci[1].end = it.end;
        b->nodes[first].data = depth + 1u;
        b->nodes[first + 1u].data = depth + 1u;
        // Push the right child first so the left one is built next (depth-first node order).
        st = push_item(b, &ci[1]);
        if (st == MC_OK)
        {
            st = push_item(b, &ci[0]);
        }
    }
    *depth_out = max_depth;
    return st;
}

mc_status mc_bvh_build(struct mc_mesh* mesh)
{
    if (mesh == NULL || mesh->triangle_count == 0 || mesh->positions == NULL || mesh->indices == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    uint32_t n = mesh->triangle_count;
    if (n >= MC_BVH_MAX_TRIANGLES)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mc_bvh* bvh = mc_calloc(1, sizeof *bvh);
    builder b;
    memset(&b, 0, sizeof b);
    b.pos = mesh->positions;
    b.tris = mc_alloc_array(n, sizeof *b.tris);
    b.node_capacity = n; // a leaf holds about 2.5 triangles on average: about 0.8 n nodes
    b.nodes = mc_alloc_array(b.node_capacity, sizeof *b.nodes);
    b.stack_capacity = 64;
    b.stack = mc_alloc_array(b.stack_capacity, sizeof *b.stack);
    if (bvh != NULL)
    {
        bvh->tri_order = mc_alloc_array(n, sizeof *bvh->tri_order);
        bvh->tri_vertex = mc_alloc_array(3u * (size_t)n, sizeof *bvh->tri_vertex);
    }
    mc_status st = MC_OK;
    if (bvh == NULL || b.tris == NULL || b.nodes == NULL || b.stack == NULL || bvh->tri_order == NULL ||
        bvh->tri_vertex == NULL)
    {
        st = MC_ERR_OUT_OF_MEMORY;
    }
    double max_abs = 0.0;
    if (st == MC_OK)
    {
        b.order = bvh->tri_order;
        b.tv = bvh->tri_vertex;
        for (uint32_t t = 0; t < n; ++t)
        {
            const uint32_t* ix = &mesh->indices[3u * t];
            mc_vec3 p = mesh->positions[ix[0]], q = mesh->positions[ix[1]], r = mesh->positions[ix[2]];
            build_tri* bt = &b.tris[t];
            mc_vec3 c = mc_scale(mc_add(mc_add(p, q), r), 1.0 / 3.0);
            bt->centroid[0] = c.x;
            bt->centroid[1] = c.y;
            bt->centroid[2] = c.z;
            bt->area = 0.5 * mc_length(mc_cross(mc_sub(q, p), mc_sub(r, p)));
            // Second moment of a triangle about its centroid: A/12 * sum_k d_k d_k^T (exact for a uniform density).
            mc_vec3 d[3] = {mc_sub(p, c), mc_sub(q, c), mc_sub(r, c)};
            double w = bt->area / 12.0;
            double l[6] = {0, 0, 0, 0, 0, 0};
            for (int k = 0; k < 3; ++k)
            {
                l[0] += d[k].x * d[k].x;
                l[1] += d[k].y * d[k].y;
                l[2] += d[k].z * d[k].z;
                l[3] += d[k].x * d[k].y;
                l[4] += d[k].x * d[k].z;
                l[5] += d[k].y * d[k].z;
            }
            for (int k = 0; k < 6; ++k)
            {
                bt->local[k] = w * l[k];
            }
            b.order[t] = t;
            b.tv[3 * t] = ix[0];
            b.tv[3 * t + 1] = ix[1];
            b.tv[3 * t + 2] = ix[2];
        }
        for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        {
            mc_vec3 p = mesh->positions[v];
            max_abs = fmax(max_abs, fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z))));
        }
        b.nodes[0].data = 1; // depth of the root
        st = build_tree(&b, n, &bvh->depth);
    }
    mc_free(b.tris);
    mc_free(b.stack);
    if (st != MC_OK)
    {
        mc_free(b.nodes);
        if (bvh != NULL)
        {
            mc_free(bvh->tri_order);
            mc_free(bvh->tri_vertex);
            mc_free(bvh);
        }
        return st;
    }
    if (b.node_capacity > b.node_count + b.node_count / 16u)
    {
        mc_bvh_node* shrunk = mc_realloc(b.nodes, (size_t)b.node_count * sizeof *b.nodes);
        if (shrunk != NULL)
        {
            b.nodes = shrunk;
            b.node_capacity = b.node_count;
        }
    }
    bvh->nodes = b.nodes;
    bvh->node_count = b.node_count;
    bvh->triangle_count = n;
    bvh->max_abs_coord = max_abs;
    bvh->byte_count = sizeof *bvh + (size_t)b.node_capacity * sizeof *b.nodes + (size_t)n * sizeof *bvh->tri_order +
                      3u * (size_t)n * sizeof *bvh->tri_vertex;
    if (mesh->bvh != NULL)
    {
        mc_bvh_destroy(mesh->bvh);
    }
    mesh->bvh = bvh;
    return MC_OK;
}

void mc_bvh_destroy(mc_bvh* bvh)
{
    if (bvh == NULL)
    {
        return;
    }
    mc_free(bvh->nodes);
    mc_free(bvh->tri_order);
    mc_free(bvh->tri_vertex);
    mc_free(bvh);
}

size_t mc_bvh_byte_count(const mc_bvh* bvh)
{
    return bvh == NULL ? 0 : bvh->byte_count;
}
