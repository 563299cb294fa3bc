// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_workspace: scratch owned by the pair stage (bvh/) and by the region stage (src/).
#pragma once

#include <stddef.h>

struct mc_pair_scratch;
struct mc_region_scratch;

struct mc_workspace
{
    struct mc_pair_scratch* pairs;                              ///< owned by bvh/collide, created on first use
    struct mc_region_scratch* regions;                          ///< owned by src/regions, created on first use
    void (*destroy_regions)(struct mc_region_scratch* scratch); ///< set by the region stage when it creates its part
    size_t (*region_bytes)(const struct mc_region_scratch* scratch); ///< set with destroy_regions
};
