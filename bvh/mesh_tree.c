// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The public mesh constructors and destructor: the geometry from mesh/ (weld, checks, orientation, topology), then
// the OBB tree, so every mesh a user holds is ready for contact queries.
#include "bvh/bvh.h"
#include "src/base/core.h"

/// Add the OBB tree to a freshly built geometry (progress 0.85 -> 1). On failure frees the mesh.
static mc_status add_tree(mc_mesh* mesh, mc_progress_fcn* progress, void* progress_user, mc_mesh** out, mc_error* err)
{
    mc_status st = mc_bvh_build(mesh);
    if (st != MC_OK)
    {
        mc_mesh_free(mesh);
        return mc_set_error(err, st, -1, -1, "OBB tree construction failed: %s", mc_status_string(st));
    }
    mesh->byte_count += mc_bvh_byte_count(mesh->bvh);
    if (progress != NULL)
    {
        progress(1.0, progress_user);
    }
    *out = mesh;
    return MC_OK;
}

mc_status mc_mesh_create(const mc_mesh_def* def, mc_mesh** out, mc_mesh_report* report, mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "out is NULL");
    }
    mc_mesh* mesh = NULL;
    mc_status st = mc_mesh_build(def, NULL, NULL, NULL, &mesh, report, err);
    return st != MC_OK ? st : add_tree(mesh, NULL, NULL, out, err);
}

mc_status mc_mesh_import_file(const char* path, const mc_import_options* options, mc_mesh** out, mc_mesh_report* report,
                              mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "out is NULL");
    }
    mc_mesh* mesh = NULL;
    mc_status st = mc_mesh_import_geometry(path, options, &mesh, report, err);
    if (st != MC_OK)
    {
        return st;
    }
    mc_progress_fcn* progress = options != NULL ? options->progress : NULL;
    st = add_tree(mesh, progress, options != NULL ? options->progress_user : NULL, out, err);
    if (st != MC_OK)
    {
        mc_error_prefix(err, path);
    }
    return st;
}

/// Build a mesh (geometry and tree) from tessellated arrays and free the arrays.
static mc_status create_from_arrays(mc_status st, double* positions, uint32_t vertex_count, uint32_t* indices,
                                    uint32_t triangle_count, mc_mesh** out, mc_error* err)
{
    if (st != MC_OK)
    {
        return st;
    }
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = positions;
    md.vertex_count = vertex_count;
    md.indices = indices;
    md.triangle_count = triangle_count;
    st = mc_mesh_create(&md, out, NULL, err);
    mc_free_arrays(positions, indices);
    return st;
}

mc_status mc_mesh_create_primitive(const mc_primitive_def* def, mc_mesh** out, mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "output pointer is NULL");
    }
    double* positions = NULL;
    uint32_t* indices = NULL;
    uint32_t vertex_count = 0, triangle_count = 0;
    mc_status st = mc_primitive_tessellate(def, &positions, &vertex_count, &indices, &triangle_count, err);
    return create_from_arrays(st, positions, vertex_count, indices, triangle_count, out, err);
}

mc_status mc_mesh_create_primitive_count(const mc_primitive_def* def, uint32_t target_triangles, mc_mesh** out,
                                         mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "output pointer is NULL");
    }
    double* positions = NULL;
    uint32_t* indices = NULL;
    uint32_t vertex_count = 0, triangle_count = 0;
    mc_status st =
        mc_primitive_tessellate_count(def, target_triangles, &positions, &vertex_count, &indices, &triangle_count, err);
    return create_from_arrays(st, positions, vertex_count, indices, triangle_count, out, err);
}

void mc_mesh_destroy(mc_mesh* mesh)
{
    if (mesh == NULL)
    {
        return;
    }
    mc_bvh_destroy(mesh->bvh);
    mc_mesh_free(mesh);
}
