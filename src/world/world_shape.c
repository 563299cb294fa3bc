// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Analytic bodies of a world (spheres, planes, cylinders, sockets, holes; shape.h): their checks, their bounds for
// the broad phase, the refusal of contacts that would pair two unbounded solids, and the pair query that dispatches
// between meshes and shapes.
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <math.h>

static bool positive(double x)
{
    return x > 0.0 && isfinite(x);
}

const char* mc_body_shape_problem(const mc_body_def* def)
{
    const mc_shape* s = &def->shape;
    switch (s->type)
    {
    case MC_SHAPE_MESH:
        return def->mesh == NULL ? "NULL mesh and no analytic shape" : NULL;
    case MC_SHAPE_SPHERE:
    case MC_SHAPE_PLANE:
    case MC_SHAPE_CYLINDER:
        break;
    default:
        return "unknown shape type";
    }
    if (def->mesh != NULL || s->mesh != NULL)
    {
        return "both a mesh and an analytic shape";
    }
    if (def->flip)
    {
        return "flip set on an analytic body (use the shape's own flip: a socket or a hole)";
    }
    if (s->type == MC_SHAPE_PLANE && s->flip)
    {
        return "a flipped plane (turn the plane with the pose instead)";
    }
    if (s->type != MC_SHAPE_PLANE && !positive(s->radius))
    {
        return "the shape's radius is not finite and > 0";
    }
    if (s->type == MC_SHAPE_CYLINDER && !positive(s->length))
    {
        return "the cylinder's length is not finite and > 0";
    }
    return NULL;
}

void mc_body_init_shape_bounds(mc_body* b)
{
    const mc_shape* s = &b->shape;
    b->unbounded = s->type == MC_SHAPE_PLANE || s->flip;
    if (b->unbounded)
    {
        return;
    }
    double r = s->radius;
    double h = s->type == MC_SHAPE_CYLINDER ? 0.5 * s->length : r;
    b->obb_center = mc_v3(0.0, 0.0, 0.0);
    b->obb_half[0] = mc_v3(r, 0.0, 0.0);
    b->obb_half[1] = mc_v3(0.0, r, 0.0);
    b->obb_half[2] = mc_v3(0.0, 0.0, h);
    // Rounded up, as the meshes' spheres are: never cull a touching pair.
    b->radius = sqrt(r * r + (h > r ? h * h : 0.0)) * (1.0 + 1e-12) + 1e-300;
}

mc_status mc_contact_check_unbounded(const mc_world* w, const mc_contact_slot* c, mc_error* err)
{
    for (uint32_t a = 0; a < c->member_count; ++a)
    {
        const mc_contact_member* ma = &c->members[a];
        const mc_body* ba = &w->bodies[ma->body];
        if (!ba->unbounded || ba->shape.type == MC_SHAPE_MESH)
        {
            continue; // an analytic unbounded body against any other unbounded one
        }
        for (uint32_t b = 0; b < c->member_count; ++b)
        {
            const mc_contact_member* mb = &c->members[b];
            uint32_t lo = ma->body < mb->body ? ma->body : mb->body;
            uint32_t hi = ma->body < mb->body ? mb->body : ma->body;
            bool paired = ((ma->flags & MC_MEMBER_I) && (mb->flags & MC_MEMBER_J)) ||
                          ((mb->flags & MC_MEMBER_I) && (ma->flags & MC_MEMBER_J));
            if (b != a && paired && w->bodies[mb->body].unbounded && !mc_contact_excludes(c, lo, hi))
            {
                return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                    "bodies %u and %u are both unbounded solids (a plane, socket or hole against a "
                                    "plane, socket, hole or flipped mesh): their contact is not supported",
                                    ma->body + 1, mb->body + 1);
            }
        }
    }
    return MC_OK;
}

mc_status mc_pair_query_regions(const mc_world* w, const mc_pair* p, const mc_pose* pose_i, const mc_pose* pose_j,
                                const mc_query_options* opt, mc_workspace* ws, mc_region* regions, uint32_t capacity,
                                uint32_t* count, mc_query_stats* stats)
{
    const mc_body* bi = &w->bodies[p->body_i];
    const mc_body* bj = &w->bodies[p->body_j];
    if (bi->mesh != NULL && bj->mesh != NULL)
    {
        return mc_query_regions(bi->mesh, pose_i, bj->mesh, pose_j, opt, ws, regions, capacity, count, stats);
    }
    mc_shape si = bi->mesh != NULL ? mc_shape_mesh(bi->mesh) : bi->shape;
    mc_shape sj = bj->mesh != NULL ? mc_shape_mesh(bj->mesh) : bj->shape;
    return mc_query_shape_regions(&si, pose_i, &sj, pose_j, opt, ws, regions, capacity, count, stats);
}
