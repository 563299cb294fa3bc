// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Errors of world calls: the world's last error (what failed, which entry, why), the checks behind mc_world_create;
// the flag of Adams depths far from their region's thickness.
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

mc_status mc_world_fail(const mc_world* w, mc_status status, int64_t index, const char* fn, const char* fmt, ...)
{
    char reason[sizeof((mc_error*)0)->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    mc_error e;
    if (index >= 0)
    {
        mc_set_error(&e, status, -1, -1, "%s: entry %" PRId64 ": %s", fn, index, reason);
    }
    else
    {
        mc_set_error(&e, status, -1, -1, "%s: %s", fn, reason);
    }
    e.index = index;
    mc_log("%s", e.message);
    if (w != NULL)
    {
        ((mc_world*)w)->last_error = e;
    }
    return status;
}

mc_status mc_world_record(const mc_world* w, const char* fn, mc_error* err)
{
    int64_t index = err->index;
    mc_error_prefix(err, fn);
    err->index = index;
    mc_log("%s", err->message);
    if (w != NULL)
    {
        ((mc_world*)w)->last_error = *err;
    }
    return err->status;
}

const char* mc_world_body_problem(const mc_world* w, mc_body_id id, char* buf, size_t cap)
{
    if (id.index1 == 0)
    {
        return "null body id (a failed mc_world_create_body?)";
    }
    if (id.index1 < 0 || (uint32_t)id.index1 > w->body_slots)
    {
        snprintf(buf, cap, "body id {%d, %u} was never created in this world", id.index1, id.generation);
        return buf;
    }
    const mc_body* b = &w->bodies[id.index1 - 1];
    if (!b->alive || b->generation != id.generation)
    {
        snprintf(buf, cap, "stale body id {%d, %u}: the body was destroyed", id.index1, id.generation);
        return buf;
    }
    return NULL;
}

const char* mc_world_pose_problem(const mc_pose* p)
{
    if (!isfinite(p->p.x) || !isfinite(p->p.y) || !isfinite(p->p.z))
    {
        return "the translation is not finite";
    }
    if (fabs(p->p.x) > MC_COORDINATE_MAX || fabs(p->p.y) > MC_COORDINATE_MAX || fabs(p->p.z) > MC_COORDINATE_MAX)
    {
        return "the translation exceeds MC_COORDINATE_MAX (2^64) in magnitude";
    }
    if (!isfinite(p->q.w) || !isfinite(p->q.x) || !isfinite(p->q.y) || !isfinite(p->q.z))
    {
        return "the quaternion is not finite";
    }
    if (!mc_pose_is_valid(p))
    {
        return "the quaternion is zero (or its squared norm under- or overflows)";
    }
    return NULL;
}

const mc_error* mc_world_get_last_error(const mc_world* w)
{
    static const mc_error none = {MC_ERR_INVALID_ARGUMENT, -1, -1, -1, "mc_world_get_last_error: NULL world"};
    return w != NULL ? &w->last_error : &none;
}

void mc_world_clear_error(mc_world* w)
{
    if (w != NULL)
    {
        memset(&w->last_error, 0, sizeof w->last_error);
        w->last_error.index = w->last_error.line = w->last_error.offset = -1;
    }
}

mc_status mc_world_def_check(const mc_world_def* def, mc_error* err)
{
    static const char* fn = "mc_world_def_check";
    if (def == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: NULL def", fn);
    }
    if (def->internal_value != (int)MC_DEF_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "%s: the def was not initialised with mc_default_world_def()", fn);
    }
    if (def->worker_count < 0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: worker_count %d is negative", fn,
                            def->worker_count);
    }
    mc_depth_method d = def->depth_method;
    if (d != MC_DEPTH_ADAMS && d != MC_DEPTH_VOLUME_AREA && d != MC_DEPTH_EXTENT && d != MC_DEPTH_SMOOTH)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "%s: depth_method %d is not ADAMS, VOLUME_AREA, EXTENT or SMOOTH (DEFAULT is for contacts)",
                            fn, (int)d);
    }
    return MC_OK;
}

void mc_world_flag_depth(mc_world* w, const mc_contact_slot* cs, mc_contact_region* rec)
{
    const mc_region* r = &rec->region;
    double thickness = r->area > 0.0 ? 2.0 * r->volume / r->area : 0.0; // 2V/A
    if (rec->rejected || cs->depth != MC_DEPTH_ADAMS || !(thickness > 0.0) ||
        !(r->depth > MC_OFF_REGION_DEPTH_RATIO * thickness))
    {
        return;
    }
    rec->depth_off_region = true;
    w->info.off_region_depths++;
    w->info.flags |= MC_STEP_OFF_REGION_DEPTH;
}
