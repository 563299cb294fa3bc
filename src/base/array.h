// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The library's growable array: capacity doubling through the allocator hook, 32-bit counts.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Out-of-line part of mc_array_reserve, for a `need` above `*capacity`.
bool mc_array_grow(void** data, uint32_t* capacity, uint64_t need, size_t elem, uint32_t first);

/// Make `*data` (an array of `elem`-byte items from mc_alloc, or NULL) hold at least `need` items. The capacity grows
/// from max(*capacity, first) by doubling, capped at UINT32_MAX; the contents are kept. Does nothing when `need` fits
/// (that check is inlined: loops reserve before every round of pushes).
/// @return false (array and capacity unchanged) when `need` exceeds UINT32_MAX, the size overflows or memory runs out
static inline bool mc_array_reserve(void** data, uint32_t* capacity, uint64_t need, size_t elem, uint32_t first)
{
    return need <= *capacity || mc_array_grow(data, capacity, need, elem, first);
}
