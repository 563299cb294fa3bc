// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The library's only OpenMP entry points: a static, contiguous parallel-for and a dynamic, chunked one, both with
// stable worker indices.
#pragma once

#include <stdint.h>

/// Work on items [begin, end) with per-worker scratch `worker_index` (0 .. threads-1).
typedef void mc_task_fcn(uint32_t begin, uint32_t end, int worker_index, void* ctx);

/// @return the number of workers a world uses for `requested` (0: the OpenMP default, omp_get_max_threads()).
int mc_parallel_worker_count(int requested);

/// Run fn over [0, count) split into one contiguous block per thread (thread t gets
/// [count t / T, count (t + 1) / T)), so the item -> worker assignment depends only on count and the thread count.
/// Runs serially (one call, worker 0) when count <= min_block or worker_count <= 1. Never changes OpenMP's global
/// state. @return the number of threads that ran.
int mc_parallel_for(int worker_count, mc_task_fcn* fn, uint32_t count, uint32_t min_block, void* ctx);
/// Run fn over [0, count) in chunks of `chunk` items ([k chunk, min((k + 1) chunk, count))), each chunk handed to
/// whichever thread is free (dynamic schedule): for uneven work whose results do not depend on which worker ran
/// which chunk (e.g. each worker collects into its own scratch and the caller sorts the union). Runs serially (one
/// call with the whole range, worker 0) when worker_count <= 1 or there is a single chunk. Never changes OpenMP's
/// global state. @return the number of threads that ran.
int mc_parallel_for_dynamic(int worker_count, mc_task_fcn* fn, uint32_t count, uint32_t chunk, void* ctx);
