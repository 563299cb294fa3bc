// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal layout of mc_workspace: the scratch of the pair stage (bvh/) and of the region stage (src/contact/), each
// created on first use by its stage and freed by mc_workspace_destroy (src/contact/workspace.c).
#pragma once

struct mc_pair_scratch;
struct mc_region_scratch;

struct mc_workspace
{
    struct mc_pair_scratch* pairs;     ///< owned by the pair stage (bvh/bvh_collide.c), created on first use
    struct mc_region_scratch* regions; ///< owned by the region stage (src/contact/regions.c), created on first use
};
