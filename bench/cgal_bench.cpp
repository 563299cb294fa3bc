// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Benchmark-only bridge to CGAL's corefinement (exact-constructions kernel) for the region benchmark.
#include "cgal_bench.h"

#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/corefinement.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Surface_mesh.h>

#include <chrono>
#include <exception>
#include <vector>

typedef CGAL::Exact_predicates_exact_constructions_kernel Kernel;
typedef CGAL::Surface_mesh<Kernel::Point_3> Mesh;

static void build(Mesh& m, const double* pos, uint32_t nv, const uint32_t* tri, uint32_t nt)
{
    std::vector<Mesh::Vertex_index> vs(nv);
    for (uint32_t v = 0; v < nv; ++v)
    {
        vs[v] = m.add_vertex(Kernel::Point_3(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]));
    }
    for (uint32_t t = 0; t < nt; ++t)
    {
        m.add_face(vs[tri[3 * t]], vs[tri[3 * t + 1]], vs[tri[3 * t + 2]]);
    }
}

extern "C" int cgal_bench_intersection(const double* pos_i, uint32_t nv_i, const uint32_t* tri_i, uint32_t nt_i,
                                       const double* pos_j, uint32_t nv_j, const uint32_t* tri_j, uint32_t nt_j,
                                       double* volume, double* seconds)
{
    try
    {
        Mesh a, b, out;
        build(a, pos_i, nv_i, tri_i, nt_i);
        build(b, pos_j, nv_j, tri_j, nt_j);
        auto t0 = std::chrono::steady_clock::now();
        if (!CGAL::Polygon_mesh_processing::corefine_and_compute_intersection(a, b, out))
        {
            return -1;
        }
        double v = CGAL::to_double(CGAL::Polygon_mesh_processing::volume(out));
        auto t1 = std::chrono::steady_clock::now();
        *volume = v;
        *seconds = std::chrono::duration<double>(t1 - t0).count();
        return 0;
    }
    catch (const std::exception&)
    {
        return -1;
    }
}
