// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private union-find over uint32_t indices (path halving; the smaller index becomes the root), shared by mesh/ and
// the region builder.
#pragma once

#include <stdint.h>

/// Root of x's set in the forest `parent` (parent[r] == r at a root), halving the path on the way.
static inline uint32_t mc_uf_find(uint32_t* parent, uint32_t x)
{
    while (parent[x] != x)
    {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/// Merge the sets of a and b; the smaller root stays the root, so the result does not depend on the merge order.
static inline void mc_uf_union(uint32_t* parent, uint32_t a, uint32_t b)
{
    a = mc_uf_find(parent, a);
    b = mc_uf_find(parent, b);
    if (a < b)
    {
        parent[b] = a;
    }
    else if (b < a)
    {
        parent[a] = b;
    }
}
