// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Optional Bullet comparison for bench_many: btCollisionWorld + btDbvtBroadphase + btGImpactMeshShape (one shape
// shared by every body), stepped with performDiscreteCollisionDetection; counts manifolds and contact points.
#include "bullet_bench.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>
#include <vector>

struct bullet_bench_world
{
    std::vector<int> indices;
    std::vector<btScalar> vertices;
    btTriangleIndexVertexArray* mesh = nullptr;
    btGImpactMeshShape* shape = nullptr;
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

extern "C" bullet_bench_world* bullet_bench_create(const double* positions, uint32_t vertex_count,
                                                   const uint32_t* indices, uint32_t triangle_count,
                                                   const double* poses, uint32_t n)
{
    bullet_bench_world* w = new bullet_bench_world;
    w->vertices.assign(positions, positions + 3 * (size_t)vertex_count);
    w->indices.assign(indices, indices + 3 * (size_t)triangle_count);
    w->mesh = new btTriangleIndexVertexArray((int)triangle_count, w->indices.data(), 3 * (int)sizeof(int),
                                             (int)vertex_count, w->vertices.data(), 3 * (int)sizeof(btScalar));
    w->shape = new btGImpactMeshShape(w->mesh);
    w->shape->setMargin(0.0f);
    w->shape->updateBound();
    w->config = new btDefaultCollisionConfiguration();
    w->dispatcher = new btCollisionDispatcher(w->config);
    btGImpactCollisionAlgorithm::registerAlgorithm(w->dispatcher);
    w->broadphase = new btDbvtBroadphase();
    w->world = new btCollisionWorld(w->dispatcher, w->broadphase, w->config);
    for (uint32_t k = 0; k < n; ++k)
    {
        btCollisionObject* o = new btCollisionObject();
        o->setCollisionShape(w->shape);
        o->setWorldTransform(to_transform(poses + 7 * (size_t)k));
        w->world->addCollisionObject(o);
        w->objects.push_back(o);
    }
    return w;
}

extern "C" void bullet_bench_set_poses(bullet_bench_world* w, const double* poses)
{
    for (size_t k = 0; k < w->objects.size(); ++k)
    {
        w->objects[k]->setWorldTransform(to_transform(poses + 7 * k));
    }
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
    delete w->shape;
    delete w->mesh;
    delete w;
}

extern "C" int bullet_bench_version(int* scalar_bytes)
{
    *scalar_bytes = (int)sizeof(btScalar);
    return BT_BULLET_VERSION;
}
