// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The library's only OpenMP entry points (STYLE S15): a static, contiguous parallel-for and a dynamic, chunked one,
// both with stable worker indices.
#include "src/base/parallel.h"

#include <omp.h>

int mc_parallel_worker_count(int requested)
{
    if (requested > 0)
    {
        return requested;
    }
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
}

int mc_parallel_for(int worker_count, mc_task_fcn* fn, uint32_t count, uint32_t min_block, void* ctx)
{
    if (count == 0)
    {
        return 0;
    }
    if (worker_count <= 1 || count <= min_block)
    {
        fn(0, count, 0, ctx);
        return 1;
    }
    int used = 1;
    // One contiguous block per thread: the assignment of items to workers (and to their scratch) is fixed for a
    // given thread count, and each item writes only its own output slot, so results do not depend on scheduling.
#pragma omp parallel num_threads(worker_count)
    {
        int t = omp_get_thread_num();
        int nt = omp_get_num_threads();
        uint32_t begin = (uint32_t)((uint64_t)count * (uint64_t)t / (uint64_t)nt);
        uint32_t end = (uint32_t)((uint64_t)count * (uint64_t)(t + 1) / (uint64_t)nt);
        if (begin < end)
        {
            fn(begin, end, t, ctx);
        }
        if (t == 0)
        {
            used = nt;
        }
    }
    return used;
}

int mc_parallel_for_dynamic(int worker_count, mc_task_fcn* fn, uint32_t count, uint32_t chunk, void* ctx)
{
    if (count == 0)
    {
        return 0;
    }
    if (chunk == 0)
    {
        chunk = 1;
    }
    uint32_t nchunks = (count + chunk - 1u) / chunk;
    if (worker_count <= 1 || nchunks <= 1)
    {
        fn(0, count, 0, ctx);
        return 1;
    }
    int used = 1;
    // Chunks go to whichever thread is free: the caller's results must not depend on which worker ran a chunk.
#pragma omp parallel for schedule(dynamic, 1) num_threads(worker_count)
    for (uint32_t k = 0; k < nchunks; ++k)
    {
        uint32_t begin = k * chunk;
        uint32_t end = count - begin < chunk ? count : begin + chunk;
        fn(begin, end, omp_get_thread_num(), ctx);
        if (k == 0)
        {
            used = omp_get_num_threads();
        }
    }
    return used;
}
