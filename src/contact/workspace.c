// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Query workspaces: creation and destruction of the pair stage's and the region stage's scratch.
#include "src/contact/workspace.h"

#include "bvh/bvh.h"
#include "src/base/core.h"
#include "src/contact/patches.h"
#include "src/contact/regions.h"

mc_status mc_workspace_create(mc_workspace** out)
{
    if (out == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_workspace* ws = mc_calloc(1, sizeof *ws);
    if (ws == NULL)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    *out = ws;
    return MC_OK;
}

void mc_workspace_destroy(mc_workspace* ws)
{
    if (ws == NULL)
    {
        return;
    }
    mc_pair_scratch_destroy(ws->pairs);
    mc_region_scratch_destroy(ws->regions);
    mc_shape_scratch_destroy(ws->shapes);
    mc_free(ws->smooth_tris);
    mc_free(ws->smooth_vertices);
    mc_distance_scratch_destroy(ws->distance);
    mc_patch_scratch_destroy(ws->patches);
    mc_free(ws);
}

size_t mc_workspace_get_byte_count(const mc_workspace* ws)
{
    if (ws == NULL)
    {
        return 0;
    }
    return mc_alloc_size(ws) + mc_pair_scratch_byte_count(ws->pairs) + mc_region_scratch_byte_count(ws->regions) +
           mc_shape_scratch_byte_count(ws->shapes) + mc_distance_scratch_byte_count(ws->distance) +
           mc_alloc_size(ws->smooth_tris) + mc_alloc_size(ws->smooth_vertices) +
           mc_patch_scratch_byte_count(ws->patches);
}
