// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark-only bridge to CGAL: intersection volume of two closed meshes by corefinement with the exact-constructions
// kernel (built only when CGAL, GMP and MPFR are found).
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /// Volume of I ∩ J by CGAL::Polygon_mesh_processing::corefine_and_compute_intersection (Epeck kernel). Both
    /// meshes are given in the same frame (x y z per vertex, counter-clockwise outward triangles).
    /// @param volume receives the volume (rounded from the exact value)
    /// @param seconds receives the wall time of the corefinement and the volume (not of building the meshes)
    /// @return 0 on success, -1 when CGAL failed (for example on a self-intersecting input)
    int cgal_bench_intersection(const double* pos_i, uint32_t nv_i, const uint32_t* tri_i, uint32_t nt_i,
                                const double* pos_j, uint32_t nv_j, const uint32_t* tri_j, uint32_t nt_j,
                                double* volume, double* seconds);

#ifdef __cplusplus
}
#endif
