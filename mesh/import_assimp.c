// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Import through Assimp's C API (the only file that includes Assimp): every mesh of the scene, node transforms
// applied, polygons fan-split here. Assimp's output is treated as untrusted: counts, indices, NaN/inf are checked.
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

typedef struct affine_transform
{
    double m[3][4]; // row-major affine transform
} affine_transform;

static affine_transform affine_identity(void)
{
    affine_transform x;
    memset(&x, 0, sizeof x);
    x.m[0][0] = x.m[1][1] = x.m[2][2] = 1.0;
    return x;
}

static affine_transform affine_mul(const affine_transform* a, const struct aiMatrix4x4* b)
{
    double bm[4][4] = {{b->a1, b->a2, b->a3, b->a4},
                       {b->b1, b->b2, b->b3, b->b4},
                       {b->c1, b->c2, b->c3, b->c4},
                       {b->d1, b->d2, b->d3, b->d4}};
    affine_transform r;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 4; ++j)
        {
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
            {
                s += a->m[i][k] * bm[k][j];
            }
            r.m[i][j] = s + a->m[i][3] * bm[3][j];
        }
    }
    return r;
}

static bool affine_is_identity(const affine_transform* x)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 4; ++j)
        {
            if (x->m[i][j] != (i == j ? 1.0 : 0.0))
            {
                return false;
            }
        }
    }
    return true;
}

static double affine_det(const affine_transform* x)
{
    const double(*m)[4] = x->m;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

typedef struct node_walk
{
    const char* path;
    const struct aiScene* scene;
    mc_soup* soup;
    mc_error* err;
    uint64_t visited; // nodes visited, bounded against cyclic graphs
} node_walk;

static mc_status add_mesh(node_walk* w, const struct aiMesh* mesh, uint32_t mesh_index, const affine_transform* x)
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
    bool identity = affine_is_identity(x);
    bool mirror = affine_det(x) < 0.0;
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
        if (!identity)
        {
            double q[3];
            for (int r = 0; r < 3; ++r)
            {
                q[r] = x->m[r][0] * p[0] + x->m[r][1] * p[1] + x->m[r][2] * p[2] + x->m[r][3];
            }
            if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]))
            {
                return mc_set_error(w->err, MC_ERR_NON_FINITE, -1, -1,
                                    "%s: mesh %u vertex %u is not finite after its node transform", w->path, mesh_index,
                                    i);
            }
            memcpy(p, q, sizeof p);
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

static mc_status walk_node(node_walk* w, const struct aiNode* node, const affine_transform* parent, int depth)
{
    if (node == NULL)
    {
        return MC_OK;
    }
    if (depth > MAX_NODE_DEPTH || ++w->visited > (1u << 24))
    {
        return mc_set_error(w->err, MC_ERR_PARSE, -1, -1, "%s: node tree too deep or cyclic", w->path);
    }
    affine_transform x = affine_mul(parent, &node->mTransformation);
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

static uint32_t le16(const unsigned char* p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char* p)
{
    return le16(p) | le16(p + 2) << 16;
}

// The ZIP structure of an archive in memory: the end-of-central-directory record, then every central directory
// entry and the local header it points to, all within the file. Assimp's 3MF reader leaks memory on archives that
// fail this (seen with a local header followed by junk), so they are refused before it sees them. ZIP64 archives
// (markers 0xffff / 0xffffffff) are left to Assimp after the record check.
static mc_status zip_check_data(const char* path, const unsigned char* d, uint64_t size, mc_error* err)
{
    int64_t e = -1;
    for (int64_t k = (int64_t)size - 22; k >= 0 && k >= (int64_t)size - 22 - 65535; --k)
    {
        if (le32(d + k) == 0x06054b50u && (uint64_t)k + 22 + le16(d + k + 20) <= size)
        {
            e = k;
            break;
        }
    }
    if (e < 0)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, -1,
                            "%s: not a 3MF file: no ZIP end-of-central-directory record (truncated or not a ZIP "
                            "archive)",
                            path);
    }
    uint32_t entries = le16(d + e + 10), cd_size = le32(d + e + 12), cd_offset = le32(d + e + 16);
    if (entries == 0xffffu || cd_size == 0xffffffffu || cd_offset == 0xffffffffu)
    {
        // ZIP64: its end-of-central-directory locator must sit just before the record (Assimp leaks on a bare one).
        if (e < 20 || le32(d + e - 20) != 0x07064b50u)
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, e,
                                "%s: broken ZIP archive: ZIP64 markers without a ZIP64 locator", path);
        }
        return MC_OK;
    }
    if ((uint64_t)cd_offset + cd_size > (uint64_t)e || entries == 0)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, e,
                            "%s: broken ZIP archive: %u entries, central directory of %u bytes at %u, record at %lld",
                            path, entries, cd_size, cd_offset, (long long)e);
    }
    uint64_t p = cd_offset, end = (uint64_t)cd_offset + cd_size;
    for (uint32_t k = 0; k < entries; ++k)
    {
        if (p + 46 > end || le32(d + p) != 0x02014b50u)
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)p, "%s: broken ZIP archive: central entry %u of %u",
                                path, k + 1, entries);
        }
        uint64_t local = le32(d + p + 42);
        if (local + 30 > cd_offset || le32(d + local) != 0x04034b50u)
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)p,
                                "%s: broken ZIP archive: entry %u points to no local header (offset %llu)", path, k + 1,
                                (unsigned long long)local);
        }
        p += 46 + (uint64_t)le16(d + p + 28) + le16(d + p + 30) + le16(d + p + 32);
    }
    return MC_OK;
}

/// A binary glTF's container before Assimp reads it (Assimp 5.2's readers trust it: a 65-byte file whose version
/// field is garbage made them read past the buffer, found by the GLB fuzz harness): the magic, version 1 (header of
/// 20 bytes: length, content length, content format 0) or 2 (12-byte header, then chunks of length + type, the first
/// one JSON), every length within the file.
static mc_status glb_check_data(const char* path, const unsigned char* d, uint64_t size, mc_error* err)
{
    if (size < 20 || memcmp(d, "glTF", 4) != 0)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: not a binary glTF file (no 'glTF' magic)", path);
    }
    uint32_t version = le32(d + 4), length = le32(d + 8);
    if (length != size)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, 8, "%s: binary glTF header says %u bytes, the file has %llu", path,
                            length, (unsigned long long)size);
    }
    if (version == 1)
    {
        if ((uint64_t)le32(d + 12) > size - 20 || le32(d + 16) != 0)
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, 12, "%s: broken glTF 1 binary header", path);
        }
        return MC_OK;
    }
    if (version != 2)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, 4, "%s: binary glTF version %u (1 or 2 expected)", path, version);
    }
    for (uint64_t p = 12; p < size;)
    {
        uint64_t chunk = le32(d + p);
        if (size - p < 8 || chunk > size - p - 8 || (p == 12 && memcmp(d + p + 4, "JSON", 4) != 0))
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)p,
                                "%s: broken binary glTF chunk at byte %llu (length or type)", path,
                                (unsigned long long)p);
        }
        p += 8 + chunk;
    }
    return MC_OK;
}

/// A text glTF must be a JSON object: its first byte after white space (and a UTF-8 byte-order mark) is '{'. Assimp
/// otherwise sniffs the content and may hand it to another format's reader (a file starting "quick3Ds" was read as
/// Quick3D, which asked for 795 GB).
static mc_status gltf_check_data(const char* path, const unsigned char* d, uint64_t size, mc_error* err)
{
    uint64_t p = size >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF ? 3 : 0;
    while (p < size && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n'))
    {
        ++p;
    }
    if (p == size || d[p] != '{')
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)p, "%s: not a glTF file (JSON object expected)", path);
    }
    return MC_OK;
}

typedef mc_status container_check_fcn(const char* path, const unsigned char* d, uint64_t size, mc_error* err);

static mc_status check_container(const char* path, container_check_fcn* check, mc_error* err)
{
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, 0, &data, &size, err);
    if (st == MC_OK)
    {
        st = check(path, (const unsigned char*)data, size, err);
    }
    mc_free(data);
    return st;
}

static bool has_extension(const char* path, const char* ext)
{
    size_t n = strlen(path), m = strlen(ext);
    if (n <= m || path[n - m - 1] != '.')
    {
        return false;
    }
    for (size_t i = 0; i < m; ++i)
    {
        if ((path[n - m + i] | 32) != ext[i])
        {
            return false;
        }
    }
    return true;
}

mc_status mc_assimp_read(const char* path, mc_soup* soup, mc_error* err)
{
    mc_status pst = has_extension(path, "ply")    ? ply_check_header(path, err)
                    : has_extension(path, "3mf")  ? check_container(path, zip_check_data, err)
                    : has_extension(path, "glb")  ? check_container(path, glb_check_data, err)
                    : has_extension(path, "gltf") ? check_container(path, gltf_check_data, err)
                                                  : MC_OK;
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
        affine_transform id = affine_identity();
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
