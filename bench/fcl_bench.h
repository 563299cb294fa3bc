// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Optional FCL comparison for the benchmark driver (C interface to bench/fcl_bench.cpp; benchmark-only).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// An FCL BVHModel (OBB or OBBRSS) built from a mesh.
    typedef struct fcl_bench_model fcl_bench_model;

    /// Bounding volume types compared.
    typedef enum fcl_bench_bv
    {
        FCL_BENCH_OBB = 0,    ///< fcl::OBBd (RAPID-style OBB tree)
        FCL_BENCH_OBBRSS = 1, ///< fcl::OBBRSSd (PQP-style OBB + RSS)
    } fcl_bench_bv;

    /// Build a model; returns NULL on failure. seconds receives the build time (copy in, beginModel to endModel), wall
    /// clock; cpu_seconds the calling thread's CPU time for the same span (less sensitive to a busy machine).
    /// tree_bytes receives nodes + primitive index array; mesh_bytes the vertex and triangle arrays.
    fcl_bench_model* fcl_bench_build(fcl_bench_bv bv, const double* positions, uint32_t vertex_count,
                                     const uint32_t* indices, uint32_t triangle_count, double* seconds,
                                     double* cpu_seconds, size_t* tree_bytes, size_t* mesh_bytes);

    /// Collide two models at world poses (p: 3 doubles, q: w x y z), all contacts (exhaustive, no contact geometry).
    /// @return the number of intersecting triangle pairs; seconds / cpu_seconds receive the wall / thread CPU time of
    /// fcl::collide.
    uint64_t fcl_bench_collide(const fcl_bench_model* a, const double pa[3], const double qa[4],
                               const fcl_bench_model* b, const double pb[3], const double qb[4], double* seconds,
                               double* cpu_seconds);

    /// fcl_bench_collide timing `batch` queries back to back (each with a fresh result) between one pair of clock
    /// reads; seconds / cpu_seconds receive the mean per query (the clock reads' cost spread over the batch).
    uint64_t fcl_bench_collide_batch(const fcl_bench_model* a, const double pa[3], const double qa[4],
                                     const fcl_bench_model* b, const double pb[3], const double qb[4], int batch,
                                     double* seconds, double* cpu_seconds);

    /// Minimum distance between two models at world poses (fcl::distance, exact: rel_err = abs_err = 0, nearest
    /// points on). Meant for OBBRSS models (FCL's usual choice for distance).
    /// @param points receives the nearest points (6 doubles: on a, then on b, world frame); may be NULL
    /// @return the distance (FCL reports -1 when the models collide); seconds / cpu_seconds as in fcl_bench_collide
    double fcl_bench_distance(const fcl_bench_model* a, const double pa[3], const double qa[4],
                              const fcl_bench_model* b, const double pb[3], const double qb[4], double* points,
                              double* seconds, double* cpu_seconds);

    /// Deform a model (same triangles): BVHModel::beginUpdateModel, updateSubModel with the new vertices (3 doubles
    /// each), endUpdateModel(refit = true, bottomup = true), FCL's refit of a deforming model; seconds / cpu_seconds as
    /// in fcl_bench_build, the copy into FCL's vertex type included.
    void fcl_bench_update(fcl_bench_model* m, const double* positions, uint32_t vertex_count, double* seconds,
                          double* cpu_seconds);

    /// Free a model. NULL is ignored.
    void fcl_bench_destroy(fcl_bench_model* m);

    /// FCL version string.
    const char* fcl_bench_version(void);

#ifdef __cplusplus
}
#endif
