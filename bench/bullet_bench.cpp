// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Optional Bullet comparison for bench_many: btCollisionWorld + btDbvtBroadphase + btGImpactMeshShape (one shape
// shared by every body), stepped with performDiscreteCollisionDetection; counts manifolds and contact points.
#include "bullet_bench.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>
#include <vector>

/// One mesh as a GImpact shape (its arrays must outlive the shape).
struct bullet_bench_mesh
{
    std::vector<int> indices;
    std::vector<btScalar> vertices;
    btTriangleIndexVertexArray* mesh = nullptr;
    btGImpactMeshShape* shape = nullptr;
};

struct bullet_bench_world
{
    std::vector<bullet_bench_mesh*> meshes;
    btDefaultCollisionConfiguration* config = nullptr;
    btCollisionDispatcher* dispatcher = nullptr;
    btDbvtBroadphase* broadphase = nullptr;
    btCollisionWorld* world = nullptr;
    std::vector<btCollisionObject*> objects;
};

static btTransform to_transform(const double* p)
{
    btQuaternion q((btScalar)p[4], (btScalar)p[5], (btScalar)p[6], (btScalar)p[3]); // x y z w
    return btTransform(q, btVector3((btScalar)p[0], (btScalar)p[1], (btScalar)p[2]));
}

extern "C" bullet_bench_world* bullet_bench_create_meshes(uint32_t mesh_count, const double* const* positions,
                                                          const uint32_t* vertex_counts, const uint32_t* const* indices,
                                                          const uint32_t* triangle_counts, const uint32_t* body_mesh,
                                                          const double* poses, uint32_t n)
{
    bullet_bench_world* w = new bullet_bench_world;
    for (uint32_t m = 0; m < mesh_count; ++m)
    {
        bullet_bench_mesh* bm = new bullet_bench_mesh;
        bm->vertices.assign(positions[m], positions[m] + 3 * (size_t)vertex_counts[m]);
        bm->indices.assign(indices[m], indices[m] + 3 * (size_t)triangle_counts[m]);
        bm->mesh =
            new btTriangleIndexVertexArray((int)triangle_counts[m], bm->indices.data(), 3 * (int)sizeof(int),
                                           (int)vertex_counts[m], bm->vertices.data(), 3 * (int)sizeof(btScalar));
        bm->shape = new btGImpactMeshShape(bm->mesh);
        bm->shape->setMargin(0.0f);
        bm->shape->updateBound();
        w->meshes.push_back(bm);
    }
    w->config = new btDefaultCollisionConfiguration();
    w->dispatcher = new btCollisionDispatcher(w->config);
    btGImpactCollisionAlgorithm::registerAlgorithm(w->dispatcher);
    w->broadphase = new btDbvtBroadphase();
    w->world = new btCollisionWorld(w->dispatcher, w->broadphase, w->config);
    for (uint32_t k = 0; k < n; ++k)
    {
        btCollisionObject* o = new btCollisionObject();
        o->setCollisionShape(w->meshes[body_mesh != nullptr ? body_mesh[k] : 0]->shape);
        o->setWorldTransform(to_transform(poses + 7 * (size_t)k));
        w->world->addCollisionObject(o);
        w->objects.push_back(o);
    }
    return w;
}

extern "C" bullet_bench_world* bullet_bench_create(const double* positions, uint32_t vertex_count,
                                                   const uint32_t* indices, uint32_t triangle_count,
                                                   const double* poses, uint32_t n)
{
    return bullet_bench_create_meshes(1, &positions, &vertex_count, &indices, &triangle_count, nullptr, poses, n);
}

extern "C" void bullet_bench_set_poses(bullet_bench_world* w, const double* poses)
{
    for (size_t k = 0; k < w->objects.size(); ++k)
    {
        w->objects[k]->setWorldTransform(to_transform(poses + 7 * k));
    }
}

extern "C" void bullet_bench_update_mesh(bullet_bench_world* w, uint32_t mesh, const double* positions)
{
    bullet_bench_mesh* bm = w->meshes[mesh];
    for (size_t k = 0; k < bm->vertices.size(); ++k)
    {
        bm->vertices[k] = (btScalar)positions[k];
    }
    bm->shape->postUpdate();
    bm->shape->updateBound();
    w->world->updateAabbs();
}

extern "C" void bullet_bench_step(bullet_bench_world* w, uint32_t* manifolds, uint32_t* points)
{
    w->world->performDiscreteCollisionDetection();
    uint32_t m = 0, p = 0;
    for (int k = 0; k < w->dispatcher->getNumManifolds(); ++k)
    {
        int c = w->dispatcher->getManifoldByIndexInternal(k)->getNumContacts();
        m += c > 0;
        p += (uint32_t)c;
    }
    *manifolds = m;
    *points = p;
}

extern "C" void bullet_bench_destroy(bullet_bench_world* w)
{
    if (w == nullptr)
    {
        return;
    }
    for (btCollisionObject* o : w->objects)
    {
        w->world->removeCollisionObject(o);
        delete o;
    }
    delete w->world;
    delete w->broadphase;
    delete w->dispatcher;
    delete w->config;
    for (bullet_bench_mesh* bm : w->meshes)
    {
        delete bm->shape;
        delete bm->mesh;
        delete bm;
    }
    delete w;
}

extern "C" int bullet_bench_version(int* scalar_bytes)
{
    *scalar_bytes = (int)sizeof(btScalar);
    return BT_BULLET_VERSION;
}
