// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the core services: allocator hook and byte counting, status strings, version, error records.
#include "meshcontact/meshcontact.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static int s_allocs;
static int s_frees;
static size_t s_live;

static void* count_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    ++s_allocs;
    s_live += size;
    return malloc(size);
}

static void count_free(void* ptr, size_t size)
{
    ++s_frees;
    s_live -= size;
    free(ptr);
}

static void reset_allocator(void)
{
    mc_set_allocator(NULL, NULL);
}

static int s_fail_allocs; // when > 0: the allocation hook fails once s_allocs reaches it

static void* failing_alloc(size_t size, size_t alignment)
{
    if (s_fail_allocs > 0 && s_allocs + 1 >= s_fail_allocs)
    {
        return NULL;
    }
    return count_alloc(size, alignment);
}

TestSuite(core, .fini = reset_allocator);

Test(core, allocator_hook_sees_every_block_and_sizes_match)
{
    s_allocs = s_frees = 0;
    s_live = 0;
    mc_set_allocator(count_alloc, count_free);
    int64_t before = mc_get_byte_count();
    void* a = mc_alloc(100);
    double* b = mc_calloc(10, sizeof(double));
    cr_assert(a != NULL && b != NULL);
    for (int i = 0; i < 10; ++i)
    {
        cr_assert(b[i] == 0.0);
    }
    cr_assert(mc_get_byte_count() == before + 100 + 10 * (int64_t)sizeof(double));
    memset(a, 7, 100);
    unsigned char* c = mc_realloc(a, 200);
    cr_assert(c != NULL);
    for (int i = 0; i < 100; ++i)
    {
        cr_assert(c[i] == 7, "realloc must keep the old contents");
    }
    mc_free(c);
    mc_free(b);
    mc_free(NULL);
    cr_assert(mc_get_byte_count() == before);
    cr_assert(s_allocs == 3 && s_frees == 3, "allocs %d frees %d", s_allocs, s_frees);
    cr_assert(s_live == 0, "the free hook must receive the size given to the allocation");
}

Test(core, default_realloc_keeps_contents_and_counts_bytes)
{
    mc_set_allocator(NULL, NULL);
    int64_t before = mc_get_byte_count();
    // Large enough for the C library to map it on its own (the in-place shrink path of mc_bvh_build).
    size_t big = (size_t)8 << 20;
    unsigned char* a = mc_alloc(big);
    cr_assert(a != NULL);
    for (size_t i = 0; i < big; i += 4096)
    {
        a[i] = (unsigned char)(i >> 12);
    }
    unsigned char* s = mc_realloc(a, big / 2);
    cr_assert(s != NULL);
    cr_assert(mc_get_byte_count() == before + (int64_t)(big / 2));
    for (size_t i = 0; i < big / 2; i += 4096)
    {
        cr_assert(s[i] == (unsigned char)(i >> 12), "shrink must keep the first bytes");
    }
    unsigned char* g = mc_realloc(s, big);
    cr_assert(g != NULL);
    cr_assert(mc_get_byte_count() == before + (int64_t)big);
    cr_assert(g[4096] == 1 && g[big / 2 - 4096] == (unsigned char)((big / 2 - 4096) >> 12));
    mc_free(g);
    cr_assert(mc_get_byte_count() == before);
}

Test(core, overflowing_array_sizes_are_refused)
{
    cr_assert(mc_alloc_array(SIZE_MAX / 2, 4) == NULL);
    cr_assert(mc_alloc(0) == NULL);
    cr_assert(mc_alloc(SIZE_MAX) == NULL);
}

Test(core, every_status_has_a_distinct_message)
{
    const mc_status all[] = {MC_OK,           MC_ERR_INVALID_ARGUMENT,   MC_ERR_OUT_OF_MEMORY,      MC_ERR_IO,
                             MC_ERR_PARSE,    MC_ERR_UNSUPPORTED_FORMAT, MC_ERR_MESH_NOT_CLOSED,    MC_ERR_EMPTY_MESH,
                             MC_ERR_CAPACITY, MC_ERR_NON_FINITE,         MC_ERR_INDEX_OUT_OF_RANGE, MC_ERR_UNBOUNDED};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; ++i)
    {
        const char* s = mc_status_string(all[i]);
        cr_assert(s != NULL && strlen(s) > 0);
        cr_assert(strcmp(s, "unknown status") != 0);
        for (size_t j = 0; j < i; ++j)
        {
            cr_assert(strcmp(s, mc_status_string(all[j])) != 0);
        }
    }
    cr_assert(strcmp(mc_status_string((mc_status)12345), "unknown status") == 0);
}

Test(core, version_matches_header)
{
    mc_version v = mc_get_version();
    cr_assert(v.major == MC_VERSION_MAJOR && v.minor == MC_VERSION_MINOR && v.patch == MC_VERSION_PATCH);
}

Test(core, error_record_is_filled_and_null_is_allowed)
{
    mc_error e;
    memset(&e, 0, sizeof e);
    cr_assert(mc_set_error(&e, MC_ERR_PARSE, 12, 345, "bad %s", "thing") == MC_ERR_PARSE);
    cr_assert(e.status == MC_ERR_PARSE && e.line == 12 && e.offset == 345);
    cr_assert(strcmp(e.message, "bad thing") == 0);
    cr_assert(mc_set_error(NULL, MC_ERR_IO, -1, -1, "x") == MC_ERR_IO);
}

static const char* s_last_log;
static char s_log_buf[256];
static void capture_log(const char* msg)
{
    strncpy(s_log_buf, msg, sizeof s_log_buf - 1);
    s_last_log = s_log_buf;
}

Test(core, log_goes_to_the_hook_only)
{
    s_last_log = NULL;
    mc_log("nobody listens %d", 1);
    cr_assert(s_last_log == NULL);
    mc_set_log_fcn(capture_log);
    mc_log("value %d", 42);
    mc_set_log_fcn(NULL);
    cr_assert(s_last_log != NULL && strcmp(s_last_log, "value 42") == 0);
}

Test(core, growable_array_doubles_from_its_first_capacity_and_keeps_contents)
{
    uint32_t* a = NULL;
    uint32_t cap = 0;
    cr_assert(mc_array_reserve((void**)&a, &cap, 0, sizeof *a, 4)); // nothing needed: nothing allocated
    cr_assert(a == NULL && cap == 0);
    cr_assert(mc_array_reserve((void**)&a, &cap, 3, sizeof *a, 4));
    cr_assert_eq(cap, 4);
    for (uint32_t k = 0; k < 4; ++k)
    {
        a[k] = 10 + k;
    }
    cr_assert(mc_array_reserve((void**)&a, &cap, 4, sizeof *a, 4)); // fits: unchanged
    cr_assert_eq(cap, 4);
    cr_assert(mc_array_reserve((void**)&a, &cap, 9, sizeof *a, 4)); // 4 -> 8 -> 16
    cr_assert_eq(cap, 16);
    for (uint32_t k = 0; k < 4; ++k)
    {
        cr_assert_eq(a[k], 10 + k, "contents kept across growth");
    }
    cr_assert_eq(mc_alloc_size(a), 16 * sizeof *a);
    mc_free(a);
}

Test(core, growable_array_refuses_what_it_cannot_hold_and_keeps_the_array)
{
    double* a = NULL;
    uint32_t cap = 0;
    cr_assert(mc_array_reserve((void**)&a, &cap, 5, sizeof *a, 64));
    cr_assert_eq(cap, 64);
    double* before = a;
    cr_assert_not(mc_array_reserve((void**)&a, &cap, (uint64_t)UINT32_MAX + 1, sizeof *a, 64));
    cr_assert(a == before && cap == 64);
    // 2^32 - 1 items of 2^40 bytes: the byte size overflows size_t.
    cr_assert_not(mc_array_reserve((void**)&a, &cap, UINT32_MAX, (size_t)1 << 40, 64));
    cr_assert(a == before && cap == 64);
    // Out of memory: the next allocation fails.
    s_allocs = s_frees = 0;
    s_live = 0;
    s_fail_allocs = 1;
    mc_set_allocator(failing_alloc, count_free);
    uint32_t* b = NULL;
    uint32_t bcap = 0;
    cr_assert_not(mc_array_reserve((void**)&b, &bcap, 1, sizeof *b, 8));
    cr_assert(b == NULL && bcap == 0);
    s_fail_allocs = 0;
    mc_set_allocator(NULL, NULL);
    mc_free(a);
}
