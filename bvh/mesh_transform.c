// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A mesh created from another, moved, turned and scaled (mc_mesh_create_transformed).
#include "mesh/mesh_internal.h"
#include "meshcontact/mass.h"
#include "src/base/core.h"

#include <math.h>
#include <string.h>

mc_status mc_mesh_create_transformed(const mc_mesh* mesh, const mc_pose* pose, double scale, mc_self_check self_check,
                                     mc_mesh** out, mc_mesh_report* report, mc_error* err)
{
    static const char* what = "mc_mesh_create_transformed";
    if (mesh == NULL || out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: NULL mesh or out", what);
    }
    if (!isfinite(scale) || scale == 0.0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: scale %g is not finite and non-zero", what,
                            scale);
    }
    if (pose != NULL && !mc_pose_is_valid(pose))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "%s: the pose is not finite, out of range, or has a zero quaternion", what);
    }
    if (mesh->flipped)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "%s: the source mesh is flipped (its solid is unbounded): transform the unflipped mesh "
                            "and flip the body",
                            what);
    }
    if (self_check != MC_SELF_CHECK_REFUSE && self_check != MC_SELF_CHECK_ACCEPT && self_check != MC_SELF_CHECK_SKIP)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: unknown self_check %d", what, (int)self_check);
    }
    mc_pose p = pose != NULL ? *pose : mc_pose_identity();
    p.q = mc_quat_normalize(p.q);
    mc_mat33 rot = mc_quat_to_mat33(p.q);
    uint32_t nv = mesh->vertex_count;
    uint32_t nt = mesh->triangle_count;
    double* xyz = mc_alloc_array((size_t)nv * 3, sizeof *xyz);
    uint32_t* idx = mc_alloc_array((size_t)nt * 3, sizeof *idx);
    if ((xyz == NULL && nv > 0) || (idx == NULL && nt > 0))
    {
        mc_free(xyz);
        mc_free(idx);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory (%u vertices)", what, nv);
    }
    for (uint32_t i = 0; i < nv; ++i)
    {
        mc_vec3 x = mc_add(mc_mat33_mul_vec(&rot, mc_scale(mesh->positions[i], scale)), p.p);
        xyz[3 * i] = x.x;
        xyz[3 * i + 1] = x.y;
        xyz[3 * i + 2] = x.z;
    }
    for (uint32_t t = 0; t < nt; ++t)
    {
        // A mirror (negative scale) turns the winding inward: swap two corners to keep it outward.
        idx[3 * t] = mesh->indices[3 * t];
        idx[3 * t + 1] = mesh->indices[3 * t + (scale < 0.0 ? 2 : 1)];
        idx[3 * t + 2] = mesh->indices[3 * t + (scale < 0.0 ? 1 : 2)];
    }
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = xyz;
    def.vertex_count = nv;
    def.indices = idx;
    def.triangle_count = nt;
    def.require_closed = mesh->report.closed;
    def.self_check = self_check;
    mc_status st = mc_mesh_create(&def, out, report, err);
    mc_free(xyz);
    mc_free(idx);
    if (st != MC_OK && err != NULL)
    {
        mc_error_prefix(err, what);
    }
    return st;
}
