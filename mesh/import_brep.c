// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// B-rep import through the reader a host installs (mc_mesh_set_brep_reader): the library reads no CAD format itself,
// so that it never loads gmsh and OpenCASCADE; meshcontact-brep (mesh/import_gmsh.c, its own library) or a host's
// reader fills the import's soup through the sink functions here.
#include "mesh/soup.h"
#include "src/base/core.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

/// The import's soup, as the reader sees it.
struct mc_brep_sink
{
    mc_soup* soup;
};

/// The installed reader; static storage starts it as a null pointer (none).
static _Atomic(mc_brep_reader_fcn*) s_brep_reader;

void mc_mesh_set_brep_reader(mc_brep_reader_fcn* reader)
{
    atomic_store_explicit(&s_brep_reader, reader, memory_order_release);
}

mc_brep_reader_fcn* mc_mesh_get_brep_reader(void)
{
    return atomic_load_explicit(&s_brep_reader, memory_order_acquire);
}

mc_status mc_brep_sink_add_points(mc_brep_sink* sink, uint32_t count, double** xyz, mc_error* err)
{
    if (sink == NULL || xyz == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_brep_sink_add_points: NULL sink or xyz");
    }
    mc_soup* soup = sink->soup;
    mc_status st = mc_soup_reserve(soup, count, 0, err);
    if (st != MC_OK)
    {
        return st;
    }
    double* p = count > 0 ? soup->positions + 3 * (size_t)soup->vertex_count : NULL;
    for (size_t i = 0; i < 3 * (size_t)count; ++i)
    {
        p[i] = NAN; // unwritten points fail the mesh build as non-finite
    }
    soup->vertex_count += count;
    *xyz = p;
    return MC_OK;
}

mc_status mc_brep_sink_add_triangles(mc_brep_sink* sink, uint32_t count, uint32_t** indices, mc_error* err)
{
    if (sink == NULL || indices == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_brep_sink_add_triangles: NULL sink or indices");
    }
    mc_soup* soup = sink->soup;
    mc_status st = mc_soup_reserve(soup, 0, count, err);
    if (st != MC_OK)
    {
        return st;
    }
    uint32_t* t = count > 0 ? soup->indices + 3 * (size_t)soup->triangle_count : NULL;
    if (count > 0)
    {
        memset(t, 0xff, 3 * (size_t)count * sizeof(uint32_t)); // UINT32_MAX: out of range until written
    }
    soup->triangle_count += count;
    *indices = t;
    return MC_OK;
}

#if defined(MC_HAVE_BREP_LIBRARY)
#define NO_READER                                                                                                      \
    "%s: STEP, IGES and BREP files are read by the library meshcontact-brep: link it (pkg-config meshcontact-brep) "   \
    "and call mc_brep_register() once before importing (meshcontact/brep.h)"
#else
#define NO_READER                                                                                                      \
    "%s: STEP, IGES and BREP files are read by the library meshcontact-brep, which this build does not have: install " \
    "the Debian package libgmsh-dev (gmsh), rebuild with meson setup --reconfigure -Dgmsh=enabled, then link "         \
    "meshcontact-brep and call mc_brep_register() once before importing"
#endif

mc_status mc_brep_read(const char* path, mc_soup* soup, mc_error* err)
{
    mc_brep_reader_fcn* reader = mc_mesh_get_brep_reader();
    if (reader == NULL)
    {
        return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, -1, NO_READER, path);
    }
    mc_error local;
    mc_error* e = err != NULL ? err : &local;
    memset(e, 0, sizeof *e);
    e->line = e->offset = e->index = -1;
    struct mc_brep_sink sink = {.soup = soup};
    mc_brep_info info = {.file_scale = 1.0};
    mc_status st = reader(path, soup->options, &sink, &info, e);
    if (st == MC_OK &&
        !(info.file_scale > 0.0 && isfinite(info.file_scale) && info.volume >= 0.0 && isfinite(info.volume)))
    {
        st = mc_set_error(e, MC_ERR_PARSE, -1, -1, "%s: the B-rep reader gave file_scale %g and volume %g", path,
                          info.file_scale, info.volume);
    }
    if (st != MC_OK)
    {
        if (e->message[0] == '\0')
        {
            mc_set_error(e, st, -1, -1, "%s: the B-rep reader failed: %s", path, mc_status_string(st));
        }
        e->status = st;
        return st;
    }
    soup->file_scale = info.file_scale;
    soup->brep_solids = info.solids;
    soup->brep_surfaces = info.surfaces;
    soup->brep_volume = info.volume;
    return MC_OK;
}
