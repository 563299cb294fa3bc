// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact prediction: a lower bound of the time until the first contact onset of the separated body pairs under
// constant velocities (mc_world_get_step_hint), from the distance query and a bound of the bodies' point speeds.
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <float.h>
#include <math.h>

/// Does some contact definition pair body slots a < b (one in its I list, the other in its J list, not excluded)?
static bool pair_defined(const mc_world* w, uint32_t a, uint32_t b)
{
    uint32_t i = 0, j = 0, contact = 0;
    bool a_is_i = false;
    return mc_next_pairing_contact(w, a, b, &i, &j, &contact, &a_is_i);
}

/// The largest speed any point of body b can reach at any time while its twist stays constant: a point x moves at
/// v + w x (x - p(t)) and |x - p(t)| stays at most |c - p| + r (c, r: the bounding sphere, p: the reference point).
static double speed_bound(const mc_body* b, mc_vec3 center)
{
    return mc_length(b->velocity.v) + mc_length(b->velocity.w) * (mc_length(mc_sub(center, b->pose.p)) + b->radius);
}

mc_status mc_world_get_step_hint(mc_world* world, double* step_out)
{
    if (world == NULL || step_out == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    MC_ASSERT(!world->evaluating);
    mc_workspace* ws = world->workspaces[0];
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = world->worker_count;
    double best = INFINITY;
    for (uint32_t a = 0; a < world->body_slots; ++a)
    {
        const mc_body* ba = &world->bodies[a];
        if (!ba->alive || ba->member_count == 0)
        {
            continue;
        }
        mc_vec3 ca = mc_pose_transform(&ba->pose, ba->obb_center);
        double sa = speed_bound(ba, ca);
        for (uint32_t b = a + 1; b < world->body_slots; ++b)
        {
            const mc_body* bb = &world->bodies[b];
            if (!bb->alive || bb->member_count == 0 || !pair_defined(world, a, b))
            {
                continue;
            }
            mc_vec3 cb = mc_pose_transform(&bb->pose, bb->obb_center);
            double speed = sa + speed_bound(bb, cb);
            if (!(speed > 0.0))
            {
                continue; // nothing moves: no onset ever
            }
            // Bounding spheres first (bounded solids only: a flipped body's solid is outside its sphere), with a
            // relative allowance for the rounding of the centres.
            double reach = best * speed;
            if (!ba->unbounded && !bb->unbounded)
            {
                double gap = mc_length(mc_sub(cb, ca)) - ba->radius - bb->radius -
                             1e-12 * (mc_length(ca) + mc_length(cb) + ba->radius + bb->radius);
                if (gap >= reach)
                {
                    continue;
                }
            }
            mc_distance_result r;
            mc_status st =
                mc_query_distance(ba->mesh, &ba->pose, bb->mesh, &bb->pose, fmax(reach, DBL_MIN), &opt, ws, &r);
            if (st != MC_OK)
            {
                return st;
            }
            // Pairs in contact (crossing, contained or touching) are left out: no onset of theirs can be missed.
            if (r.kind == MC_DISTANCE_SEPARATED && r.distance > 0.0)
            {
                best = fmin(best, r.distance / speed);
            }
        }
    }
    *step_out = best;
    return MC_OK;
}
