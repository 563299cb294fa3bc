// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Memory statistics of a world (world_memory.c): where its bytes are, per part, used against allocated. For tests and
// benchmarks (bench_many -v prints them); nothing of the library's behaviour depends on it.
#pragma once

#include "bvh/bvh.h"

#include <stddef.h>
#include <stdint.h>

typedef struct mc_world mc_world;

/// A world's bytes by part. `used` is what the content needs, `held` what is allocated for it (capacity slack
/// included; the allocator's own header of each block is not counted, as mc_get_byte_count does not count it).
typedef struct mc_world_memory
{
    uint32_t pairs;                    ///< live pair records (candidates of the last evaluation)
    uint32_t pooled;                   ///< pooled pair records (they keep their buffers, fronts and plans: counted)
    size_t pair_records;               ///< the pool of pair records (allocated slots times sizeof(mc_pair))
    size_t regions_used, regions_held; ///< the pairs' warm region buffers
    mc_front_memory front;             ///< the pairs' traversal fronts (bvh.h)
    size_t plan_used, plan_held;       ///< the pairs' region plans (regions.h)
    uint32_t patches;                  ///< pairs that hold contact patches (their bytes are in `other`)
    size_t workspaces;                 ///< the workers' query scratch (mc_workspace_get_byte_count)
    size_t lists;                      ///< candidate lists, free lists and region records (allocated)
} mc_world_memory;

/// The bytes of `w` by part (zeros for NULL).
mc_world_memory mc_world_memory_get(const mc_world* w);
/// The sum of the held bytes of `m` (pair records, regions, fronts, plans, workspaces, lists).
size_t mc_world_memory_held(const mc_world_memory* m);
