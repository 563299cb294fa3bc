// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Refit of a mesh's OBB tree after its vertices moved (mc_mesh_set_positions): the topology and the node axes stay,
// the boxes follow the vertices: each node's box is refitted on its axes to the vertices of its triangles (a node of m
// triangles costs 3 m projections: n log n for the tree, about 14 passes over the vertices at 100k triangles; a box
// grown from the children's boxes was cheaper but inflated by their turned axes: past 1.5 times the built tree's
// measure under a mere uniform scaling of a sphere, so the criterion rebuilt it at every step). Every box stays
// conservative as the build's are (mc_obb_finish with a bound of the projections' rounding), so the queries on a
// refitted tree find exactly the pairs of a fresh one.
#include "bvh/bvh_internal.h"

#include <math.h>

// Error bound of projections computed in double from double offsets (three products and two sums of terms of
// magnitude at most |v - o|_1 <= sqrt(3) (1 + 1e-6) sum_k |a_k . (v - o)|, each rounding 2^-53): 1e-14 of the
// projection sum S covers them with a wide margin.
static double refit_error(const double lo[3], const double hi[3])
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        s += fmax(fabs(lo[k]), fabs(hi[k]));
    }
    return 1e-14 * s + MC_BVH_FLOAT_TINY;
}

// The triangles of a node: a contiguous range of tri_order from its leftmost leaf's first to its rightmost leaf's end
// (children split their parent's range).
static void node_range(const mc_bvh_node* nodes, const mc_bvh_node* node, uint32_t* first, uint32_t* end)
{
    const mc_bvh_node* l = node;
    while (!mc_bvh_is_leaf(l))
    {
        l = &nodes[l->data];
    }
    const mc_bvh_node* r = node;
    while (!mc_bvh_is_leaf(r))
    {
        r = &nodes[r->data + 1u];
    }
    *first = mc_bvh_leaf_first(l);
    *end = mc_bvh_leaf_first(r) + mc_bvh_leaf_count(r);
}

// A node's box on its own (kept) axes from the vertices of its triangles, as the build fits it: the tightest box on
// those axes, so a refit without motion or under a uniform scaling keeps the tree's measure. Projections in double.
static void refit_node(const mc_bvh* bvh, const mc_vec3* pos, const double origin[3], mc_bvh_node* node)
{
    uint32_t first = 0, end = 0;
    node_range(bvh->nodes, node, &first, &end);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double ax[3][3];
    for (int k = 0; k < 3; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            ax[k][d] = node->axis[k][d];
        }
    }
    for (size_t i = 3u * (size_t)first; i < 3u * (size_t)end; ++i)
    {
        mc_vec3 v = pos[bvh->tri_vertex[i]];
        double p[3] = {v.x - origin[0], v.y - origin[1], v.z - origin[2]};
        for (int k = 0; k < 3; ++k)
        {
            double q = ax[k][0] * p[0] + ax[k][1] * p[1] + ax[k][2] * p[2];
            lo[k] = q < lo[k] ? q : lo[k];
            hi[k] = q > hi[k] ? q : hi[k];
        }
    }
    mc_obb_finish(node->axis, lo, hi, origin, refit_error(lo, hi), node);
}

void mc_bvh_refit(struct mc_mesh* mesh)
{
    mc_bvh* bvh = mesh->bvh;
    const mc_vec3* pos = mesh->positions;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, max_abs = 0.0;
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
    {
        double p[3] = {pos[v].x, pos[v].y, pos[v].z};
        for (int k = 0; k < 3; ++k)
        {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
            max_abs = fmax(max_abs, fabs(p[k]));
        }
    }
    double origin[3];
    for (int k = 0; k < 3; ++k)
    {
        origin[k] = 0.5 * (lo[k] + hi[k]);
        bvh->bbox_lo[k] = lo[k];
        bvh->bbox_hi[k] = hi[k];
    }
    bvh->max_abs_coord = max_abs;
    size_t stride = mc_bvh_local_stride(bvh->triangle_count);
    for (uint32_t n = bvh->node_count; n-- > 0;)
    {
        mc_bvh_node* node = &bvh->nodes[n];
        refit_node(bvh, pos, origin, node);
        if (!mc_bvh_is_leaf(node))
        {
            continue;
        }
        // The leaf-local float vertices from the new center, as the build writes them (finish_leaves).
        double c[3] = {node->center[0], node->center[1], node->center[2]};
        uint32_t begin = mc_bvh_leaf_first(node), end = begin + mc_bvh_leaf_count(node);
        for (uint32_t p = begin; p < end; ++p)
        {
            float* out = &bvh->tri_local[p];
            for (uint32_t v = 0; v < 3u; ++v)
            {
                mc_vec3 x = pos[bvh->tri_vertex[3u * p + v]];
                out[(3u * v) * stride] = (float)(x.x - c[0]);
                out[(3u * v + 1u) * stride] = (float)(x.y - c[1]);
                out[(3u * v + 2u) * stride] = (float)(x.z - c[2]);
            }
        }
    }
}

double mc_bvh_cost(const mc_bvh* bvh, double mesh_area)
{
    double sum = 0.0;
    for (uint32_t n = 0; n < bvh->node_count; ++n)
    {
        const float* e = bvh->nodes[n].extent;
        sum += 8.0 * ((double)e[0] * e[1] + (double)e[1] * e[2] + (double)e[2] * e[0]);
    }
    return mesh_area > 0.0 ? sum / mesh_area : sum;
}
