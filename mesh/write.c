// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mesh writers: binary STL (little-endian floats, as the format requires) and Adams shell .shl (full double precision).
#include "mesh/mesh_internal.h"
#include "src/base/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static mc_status open_for_writing(const char* path, const char* mode, FILE** out, mc_error* err)
{
    if (path == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "path is NULL");
    }
    errno = 0;
    FILE* f = fopen(path, mode);
    if (f == NULL)
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot open for writing: %s", path,
                            errno ? strerror(errno) : "unknown error");
    }
    *out = f;
    return MC_OK;
}

/// Close f and report a write or close failure (disk full shows up here at the latest).
static mc_status close_checked(FILE* f, bool write_failed, const char* path, mc_error* err)
{
    int e = write_failed || ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && e == 0)
    {
        e = errno ? errno : EIO;
    }
    if (e != 0)
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: write failed: %s", path, strerror(e));
    }
    return MC_OK;
}

static void put_f32(unsigned char* p, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    p[0] = (unsigned char)(u & 0xff);
    p[1] = (unsigned char)((u >> 8) & 0xff);
    p[2] = (unsigned char)((u >> 16) & 0xff);
    p[3] = (unsigned char)((u >> 24) & 0xff);
}

static void put_u32(unsigned char* p, uint32_t u)
{
    p[0] = (unsigned char)(u & 0xff);
    p[1] = (unsigned char)((u >> 8) & 0xff);
    p[2] = (unsigned char)((u >> 16) & 0xff);
    p[3] = (unsigned char)((u >> 24) & 0xff);
}

static void put_vec(unsigned char* p, mc_vec3 v)
{
    put_f32(p, (float)v.x);
    put_f32(p + 4, (float)v.y);
    put_f32(p + 8, (float)v.z);
}

mc_status mc_mesh_write_stl(const mc_mesh* mesh, const char* path, mc_error* err)
{
    if (mesh == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mesh is NULL");
    }
    FILE* f = NULL;
    mc_status s = open_for_writing(path, "wb", &f, err);
    if (s != MC_OK)
    {
        return s;
    }
    // The 80-byte header must not start with "solid" (some readers would take the file for ASCII).
    unsigned char head[84];
    memset(head, 0, sizeof head);
    const char* text = "binary STL written by meshcontact";
    memcpy(head, text, strlen(text));
    put_u32(head + 80, mesh->triangle_count);
    bool failed = fwrite(head, 1, sizeof head, f) != sizeof head;
    enum
    {
        BATCH = 1024
    };
    unsigned char buf[50 * BATCH];
    size_t n = 0;
    for (uint32_t t = 0; t < mesh->triangle_count && !failed; ++t)
    {
        unsigned char* r = buf + 50 * n;
        const uint32_t* tri = mesh->indices + 3 * (size_t)t;
        mc_vec3 nrm = mesh->face_normals != NULL ? mesh->face_normals[t] : mc_v3(0.0, 0.0, 0.0);
        put_vec(r, nrm);
        put_vec(r + 12, mesh->positions[tri[0]]);
        put_vec(r + 24, mesh->positions[tri[1]]);
        put_vec(r + 36, mesh->positions[tri[2]]);
        r[48] = 0;
        r[49] = 0;
        if (++n == BATCH)
        {
            failed = fwrite(buf, 50, n, f) != n;
            n = 0;
        }
    }
    if (!failed && n > 0)
    {
        failed = fwrite(buf, 50, n, f) != n;
    }
    return close_checked(f, failed, path, err);
}

static mc_status write_shl(const mc_mesh* mesh, const char* path, double scale, mc_error* err)
{
    if (mesh == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mesh is NULL");
    }
    if (!(scale > 0.0) || !isfinite(scale))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "shell scale %g must be finite and positive", scale);
    }
    FILE* f = NULL;
    mc_status s = open_for_writing(path, "w", &f, err);
    if (s != MC_OK)
    {
        return s;
    }
    // %.17g round-trips every double exactly.
    bool failed = fprintf(f, "%u %u %.17g\n", mesh->vertex_count, mesh->triangle_count, scale) < 0;
    for (uint32_t v = 0; v < mesh->vertex_count && !failed; ++v)
    {
        mc_vec3 p = mesh->positions[v];
        failed = fprintf(f, "%.17g %.17g %.17g\n", p.x, p.y, p.z) < 0;
    }
    for (uint32_t t = 0; t < mesh->triangle_count && !failed; ++t)
    {
        const uint32_t* tri = mesh->indices + 3 * (size_t)t;
        failed = fprintf(f, "3 %u %u %u\n", tri[0] + 1, tri[1] + 1, tri[2] + 1) < 0;
    }
    return close_checked(f, failed, path, err);
}

mc_status mc_mesh_write_shl(const mc_mesh* mesh, const char* path, double scale, mc_error* err)
{
    // Written in the "C" locale so that every program reads the numbers back, whatever setlocale() the host called.
    mc_c_locale_scope scope;
    if (!mc_c_locale_enter(&scope))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the C locale",
                            path != NULL ? path : "(no path)");
    }
    mc_status st = write_shl(mesh, path, scale, err);
    mc_c_locale_leave(&scope);
    return st;
}
