// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Deforming meshes (mc_mesh_set_positions): new positions checked and staged by mesh/, the tree refitted or rebuilt
// here, then the caches that depend on the positions (the region blocks, through the mesh's cache hook) refitted.
#include "bvh/bvh_internal.h"
#include "src/base/core.h"

#include <stdatomic.h>

// Versions handed out so far: each deformation takes a new one, so (tree, version) names one geometry for good.
static _Atomic(uint64_t) last_version;

mc_status mc_mesh_set_positions(mc_mesh* mesh, const double* positions, uint32_t vertex_count, mc_error* err)
{
    if (mesh == NULL || positions == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_mesh_set_positions: mesh or positions is NULL");
    }
    uint32_t users = atomic_load_explicit(&mesh->debug_users, memory_order_relaxed);
    MC_ASSERT(users == 0);
    if (users != 0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_mesh_set_positions: %u queries are running on the mesh", users);
    }
    if (vertex_count != mesh->vertex_count)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_mesh_set_positions: %u vertices given, the mesh has %u", vertex_count,
                            mesh->vertex_count);
    }
    if (mesh->bvh == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_mesh_set_positions: the mesh has no tree");
    }
    mc_status st = mc_mesh_stage_positions(mesh, positions, err);
    if (st != MC_OK)
    {
        return st;
    }
    if (mc_bvh_refit_prepare(mesh) != MC_OK) // the tree's first deformation (or the first after a rebuild)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "mc_mesh_set_positions: out of memory for the refit");
    }
    if (mesh->tree_cost_built == 0.0)
    {
        mesh->tree_cost_built = mc_bvh_cost(mesh->bvh, mesh->report.area); // the creation tree on its positions
    }
    mc_mesh_commit_positions(mesh);
    uint64_t version = atomic_fetch_add_explicit(&last_version, 1u, memory_order_relaxed) + 1u;
    mesh->geometry_version = version;
    mc_bvh_refit(mesh);
    double cost = mc_bvh_cost(mesh->bvh, mesh->report.area);
    mesh->refits++;
    if (cost > MC_BVH_REBUILD_RATIO * mesh->tree_cost_built)
    {
        size_t before = mc_bvh_byte_count(mesh->bvh);
        if (mc_bvh_build(mesh) == MC_OK) // replaces the tree; on failure the refitted one stays (valid, slower)
        {
            mesh->byte_count = mesh->byte_count - before + mc_bvh_byte_count(mesh->bvh);
            cost = mc_bvh_cost(mesh->bvh, mesh->report.area);
            mesh->tree_cost_built = cost;
            mesh->refits--;
            mesh->rebuilds++;
        }
    }
    mesh->tree_cost = cost;
    mesh->bvh->version = version;
    mc_mesh_cache* cache = atomic_load_explicit(&mesh->region_cache, memory_order_acquire);
    if (cache != NULL && cache->refit != NULL)
    {
        cache->refit(cache, mesh);
    }
    return MC_OK;
}

mc_mesh_deform_info mc_mesh_get_deform_info(const mc_mesh* mesh)
{
    mc_mesh_deform_info info = {0, 0, 0.0, 0.0, 0};
    if (mesh != NULL)
    {
        info.refits = mesh->refits;
        info.rebuilds = mesh->rebuilds;
        info.tree_cost = mesh->tree_cost;
        info.tree_cost_built = mesh->tree_cost_built;
        info.version = mesh->geometry_version;
    }
    return info;
}

mc_status mc_mesh_count_self_intersections(const mc_mesh* mesh, uint64_t* pairs, uint32_t first[2])
{
    if (mesh == NULL || pairs == NULL || mesh->bvh == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_self_result sr;
    mc_mesh_use_begin(mesh);
    mc_status st = mc_bvh_self_intersections(mesh, 0, NULL, 0, NULL, &sr);
    mc_mesh_use_end(mesh);
    if (st == MC_OK)
    {
        *pairs = sr.pair_count;
        if (first != NULL)
        {
            first[0] = sr.first[0];
            first[1] = sr.first[1];
        }
    }
    return st;
}
