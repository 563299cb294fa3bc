// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal core services: allocation through the user hook (with byte counting), logging, assertions, errors.
#pragma once

#include "meshcontact/base.h"

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Allocate `size` bytes (16-byte aligned) through the allocator hook; NULL on failure or size 0.
void* mc_alloc(size_t size);
/// Allocate and zero.
void* mc_calloc(size_t count, size_t size);
/// Free memory from mc_alloc / mc_calloc / mc_realloc; NULL is ignored.
void mc_free(void* ptr);
/// Resize (contents kept up to the smaller size); on failure returns NULL and leaves ptr valid.
void* mc_realloc(void* ptr, size_t size);
/// Allocate count * size bytes, or NULL when the product overflows.
void* mc_alloc_array(size_t count, size_t size);
/// Monotonic clock in seconds (stage timings in the query statistics).
double mc_now_seconds(void);
/// Hint that a large block (>= 4 MiB) from mc_alloc is about to be filled and then traversed repeatedly: on Linux,
/// with the default allocator, its 2 MiB-aligned interior is advised for transparent huge pages (fewer page faults
/// and TLB misses). Does nothing otherwise; never changes the contents.
void mc_advise_large(void* ptr, size_t size);
/// Size requested for a block from mc_alloc / mc_calloc / mc_realloc / mc_alloc_array; 0 for NULL.
size_t mc_alloc_size(const void* ptr);

/// Prefetch hints for the first `bytes` bytes at p, one per 64-byte step from p, at most `max_lines` of them (state
/// read once per step, such as a pair's front or plan, is rarely in cache). Only hints: nothing is read or changed.
static inline void mc_prefetch_bytes(const void* p, size_t bytes, size_t max_lines)
{
    const char* c = (const char*)p;
    for (size_t b = 0; b < bytes && b < 64u * max_lines; b += 64u)
    {
        __builtin_prefetch(c + b);
    }
}

/// A thread's switch to the "C" locale for the duration of a text read or write (POSIX uselocale): numbers are
/// parsed and printed with '.' decimals whatever setlocale() the host called, and other threads are not affected.
typedef struct mc_c_locale_scope
{
    locale_t c_locale; ///< the "C" locale made by mc_c_locale_enter, (locale_t)0 when it could not be made
    locale_t previous; ///< the thread's locale before, restored by mc_c_locale_leave
} mc_c_locale_scope;

/// Make the calling thread use the "C" locale until mc_c_locale_leave. @return false (and nothing changed) when the
/// "C" locale cannot be created (out of memory).
bool mc_c_locale_enter(mc_c_locale_scope* scope);
/// Restore the thread's locale from before mc_c_locale_enter and free the "C" locale object.
void mc_c_locale_leave(mc_c_locale_scope* scope);

/// Send a printf-style message to the log hook (does nothing when no hook is set).
void mc_log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Fill an error record (err may be NULL) and return status. `line`/`offset` are -1 when unknown.
mc_status mc_set_error(mc_error* err, mc_status status, int64_t line, int64_t offset, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// Prefix an error record's message with `prefix: ` (cut to the record's size); err may be NULL.
void mc_error_prefix(mc_error* err, const char* prefix);

/// Called by MC_ASSERT on failure; returns non-zero when the caller should trap.
int mc_assert_failed(const char* condition, const char* file, int line);

#ifndef NDEBUG
#define MC_ASSERT(c)                                                                                                   \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(c) && mc_assert_failed(#c, __FILE__, __LINE__))                                                          \
        {                                                                                                              \
            __builtin_trap();                                                                                          \
        }                                                                                                              \
    } while (0)
#else
#define MC_ASSERT(c) ((void)0)
#endif

/// Value stored in defs by the mc_default_*_def() functions, checked to catch un-defaulted defs.
#define MC_DEF_COOKIE 0x4d434446 // "MCDF", fits in an int
