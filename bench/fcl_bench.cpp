// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Optional FCL comparison for the benchmark driver: builds FCL OBB / OBBRSS trees and collides them (all contacts).
#include "fcl_bench.h"

#include <chrono>
#include <fcl/config.h>
#include <fcl/fcl.h>
#include <memory>
#include <time.h>
#include <vector>

struct fcl_bench_model
{
    fcl_bench_bv bv;
    std::shared_ptr<fcl::CollisionGeometryd> geom;
};

static double thread_cpu()
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

template <typename BV>
static std::shared_ptr<fcl::CollisionGeometryd> build(const double* p, uint32_t nv, const uint32_t* ix, uint32_t nt,
                                                      size_t* tree_bytes, size_t* mesh_bytes)
{
    std::vector<fcl::Vector3d> verts(nv);
    std::vector<fcl::Triangle> tris(nt);
    for (uint32_t v = 0; v < nv; ++v)
    {
        verts[v] = fcl::Vector3d(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
    }
    for (uint32_t t = 0; t < nt; ++t)
    {
        tris[t] = fcl::Triangle(ix[3 * t], ix[3 * t + 1], ix[3 * t + 2]);
    }
    auto m = std::make_shared<fcl::BVHModel<BV>>();
    m->beginModel((int)nt, (int)nv);
    m->addSubModel(verts, tris);
    m->endModel();
    *tree_bytes = (size_t)m->getNumBVs() * sizeof(fcl::BVNode<BV>) + (size_t)nt * sizeof(unsigned int);
    *mesh_bytes = (size_t)nt * sizeof(fcl::Triangle) + (size_t)nv * sizeof(fcl::Vector3d);
    return m;
}

extern "C" fcl_bench_model* fcl_bench_build(fcl_bench_bv bv, const double* positions, uint32_t vertex_count,
                                            const uint32_t* indices, uint32_t triangle_count, double* seconds,
                                            double* cpu_seconds, size_t* tree_bytes, size_t* mesh_bytes)
{
    auto* m = new fcl_bench_model;
    m->bv = bv;
    // Time the whole model construction, as a user pays it (copy in + tree).
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu();
    if (bv == FCL_BENCH_OBB)
    {
        m->geom = build<fcl::OBBd>(positions, vertex_count, indices, triangle_count, tree_bytes, mesh_bytes);
    }
    else
    {
        m->geom = build<fcl::OBBRSSd>(positions, vertex_count, indices, triangle_count, tree_bytes, mesh_bytes);
    }
    auto t1 = std::chrono::steady_clock::now();
    *cpu_seconds = thread_cpu() - c0;
    *seconds = std::chrono::duration<double>(t1 - t0).count();
    return m;
}

static fcl::Transform3d to_tf(const double p[3], const double q[4])
{
    fcl::Transform3d tf = fcl::Transform3d::Identity();
    tf.linear() = fcl::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
    tf.translation() = fcl::Vector3d(p[0], p[1], p[2]);
    return tf;
}

extern "C" uint64_t fcl_bench_collide(const fcl_bench_model* a, const double pa[3], const double qa[4],
                                      const fcl_bench_model* b, const double pb[3], const double qb[4], double* seconds,
                                      double* cpu_seconds)
{
    return fcl_bench_collide_batch(a, pa, qa, b, pb, qb, 1, seconds, cpu_seconds);
}

extern "C" uint64_t fcl_bench_collide_batch(const fcl_bench_model* a, const double pa[3], const double qa[4],
                                            const fcl_bench_model* b, const double pb[3], const double qb[4], int batch,
                                            double* seconds, double* cpu_seconds)
{
    fcl::CollisionObjectd oa(a->geom, to_tf(pa, qa));
    fcl::CollisionObjectd ob(b->geom, to_tf(pb, qb));
    oa.computeAABB();
    ob.computeAABB();
    fcl::CollisionRequestd req(100000000, false); // exhaustive: every intersecting triangle pair
    uint64_t pairs = 0;
    batch = batch < 1 ? 1 : batch;
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu();
    for (int k = 0; k < batch; ++k)
    {
        fcl::CollisionResultd res; // a fresh result per query, as one query makes it
        fcl::collide(&oa, &ob, req, res);
        pairs = res.numContacts();
    }
    *cpu_seconds = (thread_cpu() - c0) / batch;
    auto t1 = std::chrono::steady_clock::now();
    *seconds = std::chrono::duration<double>(t1 - t0).count() / batch;
    return pairs;
}

extern "C" void fcl_bench_destroy(fcl_bench_model* m)
{
    delete m;
}

extern "C" const char* fcl_bench_version(void)
{
    return FCL_VERSION;
}

extern "C" double fcl_bench_distance(const fcl_bench_model* a, const double pa[3], const double qa[4],
                                     const fcl_bench_model* b, const double pb[3], const double qb[4], double* points,
                                     double* seconds, double* cpu_seconds)
{
    fcl::CollisionObjectd oa(a->geom, to_tf(pa, qa));
    fcl::CollisionObjectd ob(b->geom, to_tf(pb, qb));
    oa.computeAABB();
    ob.computeAABB();
    fcl::DistanceRequestd req(true, false, 0.0, 0.0); // nearest points, unsigned, exact (no relative or absolute slack)
    fcl::DistanceResultd res;
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu();
    fcl::distance(&oa, &ob, req, res);
    *cpu_seconds = thread_cpu() - c0;
    auto t1 = std::chrono::steady_clock::now();
    *seconds = std::chrono::duration<double>(t1 - t0).count();
    if (points != NULL)
    {
        for (int k = 0; k < 3; ++k)
        {
            points[k] = res.nearest_points[0][k];
            points[3 + k] = res.nearest_points[1][k];
        }
    }
    return res.min_distance;
}

template <typename BV> static void update(fcl::CollisionGeometryd* g, const double* p, uint32_t nv)
{
    auto* m = static_cast<fcl::BVHModel<BV>*>(g);
    std::vector<fcl::Vector3d> verts(nv);
    for (uint32_t v = 0; v < nv; ++v)
    {
        verts[v] = fcl::Vector3d(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
    }
    m->beginUpdateModel();
    m->updateSubModel(verts);
    m->endUpdateModel(true, true); // refit, bottom-up (FCL's default)
}

extern "C" void fcl_bench_update(fcl_bench_model* m, const double* positions, uint32_t vertex_count, double* seconds,
                                 double* cpu_seconds)
{
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu();
    if (m->bv == FCL_BENCH_OBB)
    {
        update<fcl::OBBd>(m->geom.get(), positions, vertex_count);
    }
    else
    {
        update<fcl::OBBRSSd>(m->geom.get(), positions, vertex_count);
    }
    *cpu_seconds = thread_cpu() - c0;
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
