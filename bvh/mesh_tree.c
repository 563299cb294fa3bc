// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The public mesh constructors, file check and destructor: the geometry from mesh/ (weld, checks, orientation,
// topology), then the OBB tree and the self-check (bvh/bvh_self.c), so every mesh a user holds is ready for contact
// queries.
#include "bvh/bvh.h"
#include "src/base/core.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/// Add the OBB tree to a freshly built geometry (progress 0.85 -> 0.95; the self-check is the rest). On failure frees
/// the mesh.
static mc_status add_tree(mc_mesh* mesh, mc_progress_fcn* progress, void* progress_user, mc_error* err)
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
        progress(0.95, progress_user);
    }
    return MC_OK;
}

/// The error of a mesh that the self-check refuses: the counts, the first pair and the first misnested component.
static mc_status self_check_error(const mc_mesh_report* r, mc_error* err)
{
    char what[400];
    int n = 0;
    what[0] = '\0';
    if (r->self_intersecting_pairs > 0)
    {
        n += snprintf(what, sizeof what,
                      "%" PRIu64 " pairs of triangles intersect (the first: triangles %" PRIu32 " and %" PRIu32 ")",
                      r->self_intersecting_pairs, r->self_intersection_sample[0], r->self_intersection_sample[1]);
    }
    if (r->nested_components > 0)
    {
        n += snprintf(what + n, sizeof what - (size_t)n,
                      "%s%" PRIu32 " component%s nested in another with the same winding", n > 0 ? "; " : "",
                      r->nested_components, r->nested_components == 1 ? "" : "s");
    }
    if (r->inverted_components > 0)
    {
        n += snprintf(what + n, sizeof what - (size_t)n,
                      "%s%" PRIu32 " component%s wound inside out (inward, in no other)", n > 0 ? "; " : "",
                      r->inverted_components, r->inverted_components == 1 ? "" : "s");
    }
    if (r->nested_components + r->inverted_components > 0)
    {
        snprintf(what + n, sizeof what - (size_t)n, " (the first misnested: the component of triangle %" PRIu32 ")",
                 r->nesting_sample_triangle);
    }
    return mc_set_error(err, MC_ERR_SELF_INTERSECTING, -1, -1,
                        "%s: %s; its volume and contact volumes would count space twice or subtract it",
                        r->self_intersecting_pairs > 0 ? "mesh intersects itself" : "mesh has misnested shells", what);
}

/// The shells oriented one by one (mc_self_check), for a mesh whose nesting `*nest` found misnested components: the
/// shells disjoint from the others are wound outward each on its own, the rest together by their total volume
/// (mc_bvh_shells_to_reverse); when that reverses any, the tree is rebuilt (it keeps a copy of the triangles) and the
/// nesting classified again.
static mc_status orient_shells(mc_mesh* mesh, const uint8_t* hit, mc_nesting* nest)
{
    uint8_t* reverse = mc_alloc(mesh->component_count);
    uint32_t count = 0;
    mc_status st = reverse == NULL ? MC_ERR_OUT_OF_MEMORY : mc_bvh_shells_to_reverse(mesh, hit, reverse, &count);
    if (st == MC_OK && count > 0)
    {
        st = mc_mesh_reverse_components(mesh, reverse);
        mesh->byte_count -= mc_bvh_byte_count(mesh->bvh);
        mc_bvh_destroy(mesh->bvh);
        mesh->bvh = NULL;
        st = st == MC_OK ? mc_bvh_build(mesh) : st;
        mesh->byte_count += st == MC_OK ? mc_bvh_byte_count(mesh->bvh) : 0;
        st = st == MC_OK ? mc_bvh_classify_components(mesh, hit, nest) : st;
    }
    mc_free(reverse);
    return st;
}

/// The self-check of a mesh with its tree, as `mode` asks (mc_self_check). The findings go into the mesh's report and
/// into *report (may be NULL). A refused mesh is freed and MC_ERR_SELF_INTERSECTING returned.
static mc_status self_check(mc_mesh* mesh, mc_self_check mode, mc_mesh_report* report, mc_error* err)
{
    mc_mesh_report* rep = &mesh->report;
    rep->self_intersection_sample[0] = rep->self_intersection_sample[1] = MC_NONE;
    rep->nesting_sample_triangle = MC_NONE;
    mc_status st = MC_OK;
    if (mode != MC_SELF_CHECK_SKIP && rep->contact_ready)
    {
        mc_self_result sr;
        mc_nesting nest;
        // Components that intersect another have no nesting to speak of: they are left out of the classification.
        uint8_t* hit = mc_alloc(mesh->component_count);
        st = hit == NULL ? MC_ERR_OUT_OF_MEMORY : mc_bvh_self_intersections(mesh, 0, NULL, 0, hit, &sr);
        st = st == MC_OK ? mc_bvh_classify_components(mesh, hit, &nest) : st;
        if (st == MC_OK && nest.same_winding + nest.inverted > 0)
        {
            st = orient_shells(mesh, hit, &nest);
        }
        mc_free(hit);
        if (st != MC_OK)
        {
            mc_bvh_destroy(mesh->bvh);
            mc_mesh_free(mesh);
            return mc_set_error(err, st, -1, -1, "self-intersection check failed: %s", mc_status_string(st));
        }
        rep->self_checked = true;
        rep->self_intersecting_pairs = sr.pair_count;
        rep->self_intersection_sample[0] = sr.first[0];
        rep->self_intersection_sample[1] = sr.first[1];
        rep->cavity_components = nest.cavities;
        rep->nested_components = nest.same_winding;
        rep->inverted_components = nest.inverted;
        rep->nesting_sample_triangle = nest.first_problem;
        if (sr.pair_count > 0 || nest.same_winding > 0 || nest.inverted > 0)
        {
            rep->contact_ready = false;
            rep->self_check_accepted = mode == MC_SELF_CHECK_ACCEPT;
            st = mode == MC_SELF_CHECK_ACCEPT ? MC_OK : self_check_error(rep, err);
        }
    }
    if (report != NULL)
    {
        *report = *rep;
    }
    if (st != MC_OK)
    {
        mc_bvh_destroy(mesh->bvh);
        mc_mesh_free(mesh);
    }
    return st;
}

mc_status mc_mesh_create(const mc_mesh_def* def, mc_mesh** out, mc_mesh_report* report, mc_error* err)
{
    if (out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "out is NULL");
    }
    mc_mesh* mesh = NULL;
    mc_status st = mc_mesh_build(def, NULL, NULL, NULL, &mesh, report, err);
    st = st == MC_OK ? add_tree(mesh, NULL, NULL, err) : st;
    st = st == MC_OK ? self_check(mesh, def->self_check, report, err) : st;
    if (st == MC_OK)
    {
        *out = mesh;
    }
    return st;
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
    st = add_tree(mesh, progress, options != NULL ? options->progress_user : NULL, err);
    st = st == MC_OK ? self_check(mesh, options != NULL ? options->self_check : MC_SELF_CHECK_REFUSE, report, err) : st;
    if (st != MC_OK)
    {
        mc_error_prefix(err, path);
        return st;
    }
    if (progress != NULL)
    {
        progress(1.0, options->progress_user);
    }
    *out = mesh;
    return MC_OK;
}

mc_status mc_mesh_check_file(const char* path, const mc_import_options* options, mc_mesh_report* report, mc_error* err)
{
    mc_import_options opt = options != NULL ? *options : mc_default_import_options();
    if (opt.self_check == MC_SELF_CHECK_SKIP)
    {
        return mc_mesh_import_geometry(path, &opt, NULL, report, err);
    }
    // The self-check needs the mesh and its tree, and runs on usable meshes only: a mesh that is not is reported as
    // read (mc_mesh_build fills the report before it refuses the mesh) and is no error here.
    mc_error saved;
    if (err != NULL)
    {
        saved = *err;
    }
    opt.require_closed = true;
    mc_mesh* mesh = NULL;
    mc_status st = mc_mesh_import_geometry(path, &opt, &mesh, report, err);
    if (st == MC_ERR_MESH_NOT_CLOSED && err != NULL)
    {
        *err = saved;
    }
    if (st == MC_ERR_MESH_NOT_CLOSED && opt.progress != NULL)
    {
        opt.progress(1.0, opt.progress_user); // the check is complete: the report is the result
    }
    if (st != MC_OK)
    {
        return st == MC_ERR_MESH_NOT_CLOSED ? MC_OK : st;
    }
    st = add_tree(mesh, opt.progress, opt.progress_user, err);
    st = st == MC_OK ? self_check(mesh, MC_SELF_CHECK_ACCEPT, report, err) : st;
    if (st != MC_OK)
    {
        mc_error_prefix(err, path);
        return st;
    }
    if (report != NULL)
    {
        report->self_check_accepted = false; // nothing was created: the findings are the report's, not a warning
    }
    if (opt.progress != NULL)
    {
        opt.progress(1.0, opt.progress_user);
    }
    mc_mesh_destroy(mesh);
    return MC_OK;
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

mc_status mc_mesh_destroy(mc_mesh* mesh)
{
    if (mesh == NULL)
    {
        return MC_OK;
    }
    uint64_t users = atomic_load(&mesh->users);
    if (users > 0)
    {
        mc_log("mc_mesh_destroy: the mesh is used by %llu bodies: destroy them (or their worlds) first; the mesh was "
               "not destroyed",
               (unsigned long long)users);
        return MC_ERR_INVALID_ARGUMENT;
    }
    mc_bvh_destroy(mesh->bvh);
    mc_mesh_free(mesh);
    return MC_OK;
}

void mc_mesh_add_user(const mc_mesh* mesh, int delta)
{
    mc_mesh* m = (mc_mesh*)mesh; // the count is the mesh's only mutable field besides its lazy caches
    if (delta > 0)
    {
        atomic_fetch_add(&m->users, 1);
    }
    else
    {
        atomic_fetch_sub(&m->users, 1);
    }
}
