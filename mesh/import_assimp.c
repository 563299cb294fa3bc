// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Import through Assimp's C API (the only file that includes Assimp), for PLY, the one format without a native reader:
// every mesh of the scene, node transforms applied, polygons fan-split here. Assimp's output is treated as untrusted:
// counts, indices, NaN/inf are checked.
#include "mesh/soup.h"
#include "src/base/core.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Maximum depth of the node tree we follow (guards against cycles and hostile files).
#define MAX_NODE_DEPTH 256

// Assimp's row-major 4 x 4 matrix (last row 0 0 0 1 for the transforms it produces) as an affine transform.
static mc_affine affine_of(const struct aiMatrix4x4* b)
{
    return (mc_affine){{{b->a1, b->a2, b->a3, b->a4}, {b->b1, b->b2, b->b3, b->b4}, {b->c1, b->c2, b->c3, b->c4}}};
}

typedef struct node_walk
{
    const char* path;
    const struct aiScene* scene;
    mc_soup* soup;
    mc_error* err;
    uint64_t visited; // nodes visited, bounded against cyclic graphs
} node_walk;

static mc_status add_mesh(node_walk* w, const struct aiMesh* mesh, uint32_t mesh_index, const mc_affine* x)
{
    if (mesh == NULL)
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: mesh %u is missing", w->path, mesh_index);
    }
    uint32_t nv = mesh->mNumVertices;
    if (nv == 0 || mesh->mNumFaces == 0)
    {
        return MC_OK; // nothing to add (for example a point cloud or an empty group)
    }
    if (mesh->mVertices == NULL || mesh->mFaces == NULL)
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: mesh %u has no vertex or face array", w->path,
                            mesh_index);
    }
    mc_status st = mc_soup_reserve(w->soup, nv, 0, w->err);
    if (st != MC_OK)
    {
        return st;
    }
    bool identity = mc_affine_is_identity(x);
    bool mirror = mc_affine_det(x) < 0.0;
    uint32_t base = w->soup->vertex_count;
    double* out = w->soup->positions + 3 * (size_t)base;
    for (uint32_t i = 0; i < nv; ++i)
    {
        double p[3] = {mesh->mVertices[i].x, mesh->mVertices[i].y, mesh->mVertices[i].z};
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        {
            return mc_set_error(w->err, MC_ERR_NON_FINITE, -1, -1, "%s: mesh %u vertex %u has a non-finite coordinate",
                                w->path, mesh_index, i);
        }
        if (!identity && !mc_affine_apply(x, p, p))
        {
            return mc_set_error(w->err, MC_ERR_NON_FINITE, -1, -1,
                                "%s: mesh %u vertex %u is not finite after its node transform", w->path, mesh_index, i);
        }
        memcpy(out + 3 * (size_t)i, p, sizeof p);
    }
    w->soup->vertex_count += nv;
    for (uint32_t f = 0; f < mesh->mNumFaces; ++f)
    {
        const struct aiFace* face = &mesh->mFaces[f];
        uint32_t k = face->mNumIndices;
        if (k < 3)
        {
            continue; // points and lines carry no surface
        }
        if (face->mIndices == NULL)
        {
            return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: mesh %u face %u has no index array", w->path,
                                mesh_index, f);
        }
        for (uint32_t j = 0; j < k; ++j)
        {
            if (face->mIndices[j] >= nv)
            {
                return mc_set_error(w->err, MC_ERR_INDEX_OUT_OF_RANGE, -1, -1,
                                    "%s: mesh %u face %u refers to vertex %u but the mesh has %u vertices", w->path,
                                    mesh_index, f, face->mIndices[j], nv);
            }
        }
        st = mc_soup_reserve(w->soup, 0, k - 2, w->err);
        if (st != MC_OK)
        {
            return st;
        }
        for (uint32_t j = 1; j + 1 < k; ++j)
        {
            uint32_t* t = w->soup->indices + 3 * (size_t)w->soup->triangle_count++;
            t[0] = base + face->mIndices[0];
            t[1] = base + face->mIndices[mirror ? j + 1 : j];
            t[2] = base + face->mIndices[mirror ? j : j + 1];
        }
        if (k > 3)
        {
            w->soup->split_polygons++;
        }
    }
    return MC_OK;
}

static mc_status walk_node(node_walk* w, const struct aiNode* node, const mc_affine* parent, int depth)
{
    if (node == NULL)
    {
        return MC_OK;
    }
    if (depth > MAX_NODE_DEPTH || ++w->visited > (1u << 24))
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: node tree too deep or cyclic", w->path);
    }
    mc_affine local = affine_of(&node->mTransformation);
    mc_affine x = mc_affine_mul(parent, &local);
    if (node->mNumMeshes > 0 && node->mMeshes == NULL)
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: node without its mesh list", w->path);
    }
    for (uint32_t i = 0; i < node->mNumMeshes; ++i)
    {
        uint32_t mi = node->mMeshes[i];
        if (mi >= w->scene->mNumMeshes || w->scene->mMeshes == NULL)
        {
            return mc_set_error(w->err, MC_ERR_INDEX_OUT_OF_RANGE, -1, -1,
                                "%s: node refers to mesh %u but the scene has %u", w->path, mi, w->scene->mNumMeshes);
        }
        mc_status st = add_mesh(w, w->scene->mMeshes[mi], mi, &x);
        if (st != MC_OK)
        {
            return st;
        }
    }
    if (node->mNumChildren > 0 && node->mChildren == NULL)
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: node without its child list", w->path);
    }
    for (uint32_t i = 0; i < node->mNumChildren; ++i)
    {
        mc_status st = walk_node(w, node->mChildren[i], &x, depth + 1);
        if (st != MC_OK)
        {
            return st;
        }
    }
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// PLY header pre-check: Assimp 5.2 loops forever on some malformed PLY headers and trusts the element counts, so a
// PLY file reaches Assimp only with a well-formed header whose counts fit in the file.

static int ply_type_size(const char* t)
{
    static const char* const names[] = {"char", "int8",  "uchar", "uint8",  "short", "int16",   "ushort", "uint16",
                                        "int",  "int32", "uint",  "uint32", "float", "float32", "double", "float64"};
    static const int sizes[] = {1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 8, 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    {
        if (strcmp(t, names[i]) == 0)
        {
            return sizes[i];
        }
    }
    return 0;
}

static mc_status ply_check_header(const char* path, mc_error* err)
{
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, 0, &data, &size, err);
    if (st != MC_OK)
    {
        return st;
    }
    int64_t line = 0;
    const char* p = data;
    const char* end = data + size;
    bool ascii = false, seen_format = false, done = false;
    uint64_t min_bytes = 0;     // lower bound of the body size implied by the header
    uint64_t element_count = 0; // of the current element
    uint64_t element_min = 0;   // bytes per item of the current element
    bool have_element = false;
    char msg[200] = "";
    while (p < end && !done)
    {
        const char* nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
        {
            snprintf(msg, sizeof msg, "header without 'end_header'");
            break;
        }
        ++line;
        char buf[256];
        size_t len = (size_t)(nl - p);
        if (len > 0 && p[len - 1] == '\r')
        {
            --len;
        }
        if (len >= sizeof buf)
        {
            snprintf(msg, sizeof msg, "header line too long");
            break;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = nl + 1;
        if (memchr(buf, '\0', len) != NULL)
        {
            snprintf(msg, sizeof msg, "binary data in the header");
            break;
        }
        char w[4][64];
        int n = sscanf(buf, "%63s %63s %63s %63s", w[0], w[1], w[2], w[3]);
        if (line == 1)
        {
            if (n != 1 || strcmp(w[0], "ply") != 0)
            {
                snprintf(msg, sizeof msg, "not a PLY file (no 'ply' on the first line)");
                break;
            }
            continue;
        }
        if (n <= 0)
        {
            snprintf(msg, sizeof msg, "blank header line");
            break;
        }
        if (strcmp(w[0], "comment") == 0 || strcmp(w[0], "obj_info") == 0)
        {
            continue;
        }
        if (have_element && (strcmp(w[0], "element") == 0 || strcmp(w[0], "end_header") == 0))
        {
            if (element_min != 0 && element_count > (UINT64_MAX / 2) / element_min)
            {
                snprintf(msg, sizeof msg, "element count too large");
                break;
            }
            min_bytes += element_count * element_min;
            have_element = false;
        }
        if (strcmp(w[0], "format") == 0 && n == 3 && strcmp(w[2], "1.0") == 0 &&
            (strcmp(w[1], "ascii") == 0 || strcmp(w[1], "binary_little_endian") == 0 ||
             strcmp(w[1], "binary_big_endian") == 0))
        {
            ascii = strcmp(w[1], "ascii") == 0;
            seen_format = true;
        }
        else if (strcmp(w[0], "element") == 0 && n == 3 && seen_format)
        {
            char* e = NULL;
            if (w[2][0] < '0' || w[2][0] > '9')
            {
                snprintf(msg, sizeof msg, "bad element count '%s'", w[2]);
                break;
            }
            element_count = strtoull(w[2], &e, 10);
            if (*e != '\0')
            {
                snprintf(msg, sizeof msg, "bad element count '%s'", w[2]);
                break;
            }
            element_min = 0;
            have_element = true;
        }
        else if (strcmp(w[0], "property") == 0 && have_element && n == 3 && ply_type_size(w[1]) > 0)
        {
            element_min += ascii ? 2 : (uint64_t)ply_type_size(w[1]);
        }
        else if (strcmp(w[0], "property") == 0 && have_element && n == 4 && strcmp(w[1], "list") == 0 &&
                 ply_type_size(w[2]) > 0 && sscanf(buf, "%*s %*s %*s %63s %63s", w[0], w[1]) == 2 &&
                 ply_type_size(w[0]) > 0)
        {
            element_min += ascii ? 2 : (uint64_t)ply_type_size(w[2]);
        }
        else if (strcmp(w[0], "end_header") == 0 && n == 1 && seen_format)
        {
            done = true;
        }
        else
        {
            snprintf(msg, sizeof msg, "unexpected header line '%.60s'", buf);
            break;
        }
    }
    if (done)
    {
        uint64_t body = (uint64_t)(end - p);
        if (min_bytes > body + 1)
        {
            st = mc_set_error(err, MC_ERR_PARSE, line, -1,
                              "%s: the header's element counts need at least %llu bytes, the file has %llu after "
                              "the header",
                              path, (unsigned long long)min_bytes, (unsigned long long)body);
        }
    }
    else
    {
        st = mc_set_error(err, MC_ERR_PARSE, line, -1, "%s: line %lld: %s", path, (long long)line,
                          msg[0] ? msg : "header without 'end_header'");
    }
    mc_free(data);
    return st;
}

mc_status mc_assimp_read(const char* path, mc_soup* soup, mc_error* err)
{
    mc_status pst = ply_check_header(path, err); // PLY is the only format import.c hands to Assimp
    if (pst != MC_OK)
    {
        return pst;
    }
    // No post-processing: no silent welding, triangulation or normal fixing; we fan-split and weld ourselves.
    const struct aiScene* scene = aiImportFile(path, aiProcess_ValidateDataStructure);
    if (scene == NULL)
    {
        const char* why = aiGetErrorString();
        return mc_set_error(err, MC_ERR_PARSE, -1, -1, "%s: cannot import: %s", path,
                            why != NULL && why[0] != '\0' ? why : "unknown Assimp error");
    }
    mc_status st = MC_OK;
    if (scene->mNumMeshes == 0 || scene->mMeshes == NULL)
    {
        st = mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1, "%s: no mesh in the file", path);
    }
    else
    {
        node_walk w = {path, scene, soup, err, 0};
        mc_affine id = mc_affine_identity();
        if (scene->mRootNode != NULL)
        {
            st = walk_node(&w, scene->mRootNode, &id, 0);
        }
        else
        {
            for (uint32_t i = 0; i < scene->mNumMeshes && st == MC_OK; ++i)
            {
                st = add_mesh(&w, scene->mMeshes[i], i, &id);
            }
        }
    }
    aiReleaseImport(scene);
    return st;
}
