// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Allocation hooks with byte counting, log and assert hooks, status strings, version.
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 // madvise's MADV_HUGEPAGE
#endif
#include "src/base/core.h"

#include "src/base/array.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

// Every block carries a 16-byte header holding its size, so mc_free needs no size and the free hook gets one.
#define HEADER 16

static mc_alloc_fcn* s_alloc = NULL;
static mc_free_fcn* s_free = NULL;
static mc_log_fcn* s_log = NULL;
static mc_assert_fcn* s_assert = NULL;
static atomic_llong s_bytes = 0;

static void* default_alloc(size_t size, size_t alignment)
{
    (void)alignment; // malloc gives 16-byte alignment on the supported 64-bit targets
    return malloc(size);
}

static void default_free(void* ptr, size_t size)
{
    (void)size;
    free(ptr);
}

void mc_set_allocator(mc_alloc_fcn* alloc_fcn, mc_free_fcn* free_fcn)
{
    s_alloc = alloc_fcn;
    s_free = free_fcn;
}

int64_t mc_get_byte_count(void)
{
    return (int64_t)atomic_load(&s_bytes);
}

void mc_set_log_fcn(mc_log_fcn* fcn)
{
    s_log = fcn;
}

void mc_set_assert_fcn(mc_assert_fcn* fcn)
{
    s_assert = fcn;
}

void* mc_alloc(size_t size)
{
    if (size == 0 || size > SIZE_MAX - HEADER)
    {
        return NULL;
    }
    mc_alloc_fcn* fa = s_alloc ? s_alloc : default_alloc;
    unsigned char* p = fa(size + HEADER, HEADER);
    if (p == NULL)
    {
        return NULL;
    }
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&s_bytes, (long long)size);
    return p + HEADER;
}

double mc_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mc_advise_large(void* ptr, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Only blocks of the default allocator (glibc maps large blocks on their own, so their pages are ours alone).
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (ptr == NULL || s_alloc != NULL || size < 2u * huge)
    {
        return;
    }
    uintptr_t lo = ((uintptr_t)ptr + huge - 1u) & ~(huge - 1u), hi = ((uintptr_t)ptr + size) & ~(huge - 1u);
    if (hi > lo)
    {
        (void)madvise((void*)lo, hi - lo, MADV_HUGEPAGE);
    }
#else
    (void)ptr;
    (void)size;
#endif
}

void* mc_alloc_array(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
    {
        return NULL;
    }
    return mc_alloc(count * size);
}

void* mc_calloc(size_t count, size_t size)
{
    void* p = mc_alloc_array(count, size);
    if (p != NULL)
    {
        memset(p, 0, count * size);
    }
    return p;
}

size_t mc_alloc_size(const void* ptr)
{
    if (ptr == NULL)
    {
        return 0;
    }
    size_t size;
    memcpy(&size, (const unsigned char*)ptr - HEADER, sizeof size);
    return size;
}

void mc_free(void* ptr)
{
    if (ptr == NULL)
    {
        return;
    }
    unsigned char* p = (unsigned char*)ptr - HEADER;
    size_t size;
    memcpy(&size, p, sizeof size);
    atomic_fetch_sub(&s_bytes, (long long)size);
    mc_free_fcn* ff = s_free ? s_free : default_free;
    ff(p, size + HEADER);
}

void* mc_realloc(void* ptr, size_t size)
{
    if (ptr == NULL)
    {
        return mc_alloc(size);
    }
    if (s_alloc == NULL && s_free == NULL && size != 0 && size <= SIZE_MAX - HEADER)
    {
        // Default allocator: the C library's realloc, which resizes large blocks in place (a shrink costs nothing).
        unsigned char* p = (unsigned char*)ptr - HEADER;
        size_t old;
        memcpy(&old, p, sizeof old);
        unsigned char* q = realloc(p, size + HEADER);
        if (q == NULL)
        {
            return NULL;
        }
        memcpy(q, &size, sizeof size);
        atomic_fetch_add(&s_bytes, (long long)size - (long long)old);
        return q + HEADER;
    }
    void* q = mc_alloc(size);
    if (q == NULL)
    {
        return NULL;
    }
    size_t old;
    memcpy(&old, (unsigned char*)ptr - HEADER, sizeof old);
    memcpy(q, ptr, old < size ? old : size);
    mc_free(ptr);
    return q;
}

void mc_log(const char* fmt, ...)
{
    if (s_log == NULL)
    {
        return;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s_log(buf);
}

bool mc_array_grow(void** data, uint32_t* capacity, uint64_t need, size_t elem, uint32_t first)
{
    if (need <= *capacity)
    {
        return true;
    }
    if (need > UINT32_MAX)
    {
        return false;
    }
    uint64_t cap = *capacity > first ? *capacity : (first > 0 ? first : 1);
    while (cap < need)
    {
        cap *= 2;
    }
    if (cap > UINT32_MAX)
    {
        cap = UINT32_MAX;
    }
    if (cap > SIZE_MAX / elem)
    {
        return false;
    }
    void* p = mc_realloc(*data, (size_t)cap * elem);
    if (p == NULL)
    {
        return false;
    }
    *data = p;
    *capacity = (uint32_t)cap;
    return true;
}

mc_status mc_set_error(mc_error* err, mc_status status, int64_t line, int64_t offset, const char* fmt, ...)
{
    if (err != NULL)
    {
        err->status = status;
        err->index = -1;
        err->line = line;
        err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        char full[4096];
        int n = vsnprintf(full, sizeof full, fmt, ap);
        va_end(ap);
        size_t cap = sizeof err->message;
        if (n >= 0 && (size_t)n < cap)
        {
            memcpy(err->message, full, (size_t)n + 1);
        }
        else
        {
            // Too long (a long path): keep the start and the end (the file name and the reason), "..." between,
            // cut on UTF-8 character boundaries.
            size_t len = strlen(full);
            size_t head = cap / 4;
            size_t tail = cap - 1 - 3 - head;
            while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80)
            {
                --head;
            }
            size_t from = len - tail;
            while (from < len && ((unsigned char)full[from] & 0xC0) == 0x80)
            {
                ++from;
            }
            memcpy(err->message, full, head);
            memcpy(err->message + head, "...", 3);
            memcpy(err->message + head + 3, full + from, len - from + 1);
        }
    }
    return status;
}

bool mc_c_locale_enter(mc_c_locale_scope* scope)
{
    scope->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (scope->c_locale == (locale_t)0)
    {
        return false;
    }
    scope->previous = uselocale(scope->c_locale);
    return true;
}

void mc_c_locale_leave(mc_c_locale_scope* scope)
{
    uselocale(scope->previous);
    freelocale(scope->c_locale);
}

void mc_error_prefix(mc_error* err, const char* prefix)
{
    if (err == NULL)
    {
        return;
    }
    char msg[2 * sizeof err->message + 8];
    snprintf(msg, sizeof msg, "%s: %s", prefix, err->message);
    msg[sizeof err->message - 1] = '\0';
    memcpy(err->message, msg, sizeof err->message);
}

int mc_assert_failed(const char* condition, const char* file, int line)
{
    if (s_assert != NULL)
    {
        return s_assert(condition, file, line);
    }
    return 1;
}

mc_version mc_get_version(void)
{
    mc_version v = {MC_VERSION_MAJOR, MC_VERSION_MINOR, MC_VERSION_PATCH};
    return v;
}

const char* mc_status_string(mc_status status)
{
    switch (status)
    {
    case MC_OK:
        return "ok";
    case MC_ERR_INVALID_ARGUMENT:
        return "invalid argument";
    case MC_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case MC_ERR_IO:
        return "input/output error";
    case MC_ERR_PARSE:
        return "malformed file";
    case MC_ERR_UNSUPPORTED_FORMAT:
        return "unsupported file format";
    case MC_ERR_MESH_NOT_CLOSED:
        return "mesh is open or non-manifold and encloses no volume";
    case MC_ERR_EMPTY_MESH:
        return "mesh has no triangles";
    case MC_ERR_CAPACITY:
        return "buffer too small";
    case MC_ERR_NON_FINITE:
        return "NaN or infinite coordinate";
    case MC_ERR_INDEX_OUT_OF_RANGE:
        return "vertex index out of range";
    case MC_ERR_UNBOUNDED:
        return "both solids are unbounded (flipped, or a plane): the intersection is unbounded";
    case MC_ERR_OUT_OF_RANGE:
        return "a value outside the range the library computes exactly, or a result that overflowed";
    case MC_ERR_LIMIT:
        return "an input exceeds a size limit";
    case MC_ERR_SELF_INTERSECTING:
        return "mesh intersects itself or has shells nested with the same winding";
    case MC_ERR_UNSUPPORTED:
        return "this pair of shapes is not supported";
    }
    return "unknown status";
}
