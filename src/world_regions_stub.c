// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// TEMPORARY placeholder for mc_query_regions until the region stage is committed (keeps the shared library
// linking); it reports no support. Delete this file (and its line in src/meson.build) when src/regions lands.
#include "meshcontact/query.h"

__attribute__((weak)) mc_status mc_query_regions(const mc_mesh* mesh_i, const mc_pose* pose_i, const mc_mesh* mesh_j,
                                                 const mc_pose* pose_j, const mc_query_options* options,
                                                 mc_workspace* ws, mc_region* regions, uint32_t capacity,
                                                 uint32_t* region_count, mc_query_stats* stats)
{
    (void)mesh_i, (void)pose_i, (void)mesh_j, (void)pose_j, (void)options, (void)ws, (void)regions, (void)capacity;
    (void)region_count, (void)stats;
    return MC_ERR_UNSUPPORTED_FORMAT;
}
