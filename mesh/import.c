// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mesh file import: dispatch on the extension to the native readers (STL, .shl, OBJ, OFF, glTF, 3MF, COLLADA), Assimp
// (PLY) or the installed B-rep reader (mesh/import_brep.c), then mesh creation.
#include "mesh/soup.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mc_soup_free(mc_soup* soup)
{
    mc_free(soup->positions);
    mc_free(soup->indices);
    soup->positions = NULL;
    soup->indices = NULL;
    soup->vertex_count = soup->vertex_capacity = 0;
    soup->triangle_count = soup->triangle_capacity = 0;
}

mc_status mc_soup_reserve(mc_soup* soup, uint64_t vertices, uint64_t triangles, mc_error* err)
{
    uint64_t nv = (uint64_t)soup->vertex_count + vertices;
    uint64_t nt = (uint64_t)soup->triangle_count + triangles;
    if (soup->max_triangles != 0 && nt > soup->max_triangles)
    {
        return mc_set_error(err, MC_ERR_LIMIT, -1, -1,
                            "more than %llu triangles, the import's limit (mc_import_options.max_triangles)",
                            (unsigned long long)soup->max_triangles);
    }
    if (nv > UINT32_MAX - 1 || nt > (UINT32_MAX - 3) / 3)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "too many vertices or triangles for 32-bit indices");
    }
    if (!mc_array_reserve((void**)&soup->positions, &soup->vertex_capacity, nv, 3 * sizeof(double), 64))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for %llu vertices",
                            (unsigned long long)nv);
    }
    if (!mc_array_reserve((void**)&soup->indices, &soup->triangle_capacity, nt, 3 * sizeof(uint32_t), 64))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for %llu triangles",
                            (unsigned long long)nt);
    }
    return MC_OK;
}

mc_status mc_soup_add_point(mc_soup* soup, const double x[3], mc_error* err)
{
    mc_status st = mc_soup_reserve(soup, 1, 0, err);
    if (st == MC_OK)
    {
        memcpy(soup->positions + 3 * (size_t)soup->vertex_count++, x, 3 * sizeof(double));
    }
    return st;
}

mc_status mc_soup_add_polygon(mc_soup* soup, const uint32_t* poly, uint32_t k, mc_error* err)
{
    mc_status st = mc_soup_reserve(soup, 0, (uint64_t)k - 2, err);
    if (st != MC_OK)
    {
        return st;
    }
    for (uint32_t j = 1; j + 1 < k; ++j)
    {
        uint32_t* x = soup->indices + 3 * (size_t)soup->triangle_count++;
        x[0] = poly[0], x[1] = poly[j], x[2] = poly[j + 1];
    }
    if (k > 3)
    {
        soup->split_polygons++;
    }
    return MC_OK;
}

mc_status mc_soup_add_instance(mc_soup* soup, const double* positions, uint32_t vertex_count, const uint32_t* triangles,
                               uint32_t triangle_count, const mc_affine* x, const char* what, mc_error* err)
{
    for (uint64_t i = 0; i < 3 * (uint64_t)triangle_count; ++i)
    {
        if (triangles[i] >= vertex_count)
        {
            return mc_set_error(err, MC_ERR_INDEX_OUT_OF_RANGE, -1, -1,
                                "%s: triangle %llu refers to vertex %u but there are %u vertices", what,
                                (unsigned long long)(i / 3), triangles[i], vertex_count);
        }
    }
    if (vertex_count == 0)
    {
        return MC_OK; // nothing to place (no triangle either: each would have failed the index check)
    }
    mc_status st = mc_soup_reserve(soup, vertex_count, triangle_count, err);
    if (st != MC_OK)
    {
        return st;
    }
    uint32_t base = soup->vertex_count;
    double* out = soup->positions + 3 * (size_t)base;
    for (uint32_t i = 0; i < vertex_count; ++i)
    {
        const double* p = positions + 3 * (size_t)i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !mc_affine_apply(x, p, out + 3 * (size_t)i))
        {
            return mc_set_error(err, MC_ERR_NON_FINITE, -1, -1, "%s: vertex %u is not finite%s", what, i,
                                isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) ? " after its transform" : "");
        }
    }
    soup->vertex_count += vertex_count;
    bool mirror = mc_affine_det(x) < 0.0; // a mirrored solid keeps its outward winding with two corners swapped
    for (uint32_t t = 0; t < triangle_count; ++t)
    {
        const uint32_t* a = triangles + 3 * (size_t)t;
        uint32_t* b = soup->indices + 3 * (size_t)soup->triangle_count++;
        b[0] = base + a[0];
        b[1] = base + a[mirror ? 2 : 1];
        b[2] = base + a[mirror ? 1 : 2];
    }
    return MC_OK;
}

static const char* file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
    {
        return "a directory";
    }
    if (S_ISFIFO(mode))
    {
        return "a FIFO";
    }
    if (S_ISCHR(mode) || S_ISBLK(mode))
    {
        return "a device";
    }
    if (S_ISSOCK(mode))
    {
        return "a socket";
    }
    return "not a regular file";
}

// The size and kind checks of a stat result. @return MC_OK for a regular file within max_bytes.
static mc_status check_stat(const char* path, const struct stat* sb, uint64_t max_bytes, mc_error* err)
{
    if (!S_ISREG(sb->st_mode))
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: is %s, not a mesh file", path, file_kind(sb->st_mode));
    }
    if (max_bytes != 0 && (uint64_t)sb->st_size > max_bytes)
    {
        return mc_set_error(err, MC_ERR_LIMIT, -1, -1,
                            "%s: %llu bytes, more than the import's limit of %llu bytes (mc_import_options.max_bytes)",
                            path, (unsigned long long)sb->st_size, (unsigned long long)max_bytes);
    }
    return MC_OK;
}

mc_status mc_check_input_file(const char* path, uint64_t max_bytes, mc_error* err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot open: %s", path, strerror(errno));
    }
    return check_stat(path, &sb, max_bytes, err);
}

mc_status mc_read_file(const char* path, uint64_t max_bytes, char** data, uint64_t* size, mc_error* err)
{
    *data = NULL;
    *size = 0;
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused by the check below.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat sb;
    mc_status st = fstat(fd, &sb) != 0 ? mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot determine the size: %s", path,
                                                      strerror(errno))
                                       : check_stat(path, &sb, max_bytes, err);
    FILE* f = st == MC_OK ? fdopen(fd, "rb") : NULL;
    if (st == MC_OK && f == NULL)
    {
        st = mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot open: %s", path, strerror(errno));
    }
    if (f == NULL)
    {
        close(fd);
        return st;
    }
    uint64_t n = (uint64_t)sb.st_size;
    if (n == 0)
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: empty file", path);
    }
    else if (n > SIZE_MAX - 1 || (*data = mc_alloc((size_t)n + 1)) == NULL)
    {
        st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for %llu bytes (%s)", path,
                          (unsigned long long)n, strerror(ENOMEM));
    }
    else if (fread(*data, 1, (size_t)n, f) != (size_t)n)
    {
        st = mc_set_error(err, MC_ERR_IO, -1, -1, "%s: read error (the file changed while it was read?)", path);
    }
    if (st != MC_OK)
    {
        mc_free(*data);
        *data = NULL;
    }
    else
    {
        (*data)[n] = '\0';
        *size = n;
    }
    fclose(f);
    return st;
}

// The import's repair defaults: mc_default_repair_options with no repair selected.
static mc_repair_options default_import_repair(void)
{
    mc_repair_options r = mc_default_repair_options();
    r.flags = 0;
    return r;
}

mc_import_options mc_default_import_options(void)
{
    return (mc_import_options){.scale = 1.0,
                               .weld_tolerance = 0.0,
                               .flip = false,
                               .require_closed = true,
                               .self_check = MC_SELF_CHECK_REFUSE,
                               .max_bytes = MC_DEFAULT_MAX_BYTES,
                               .max_triangles = MC_DEFAULT_MAX_TRIANGLES,
                               .angle_tolerance = 15.0 * MC_PI / 180.0,
                               .brep_solid = -1,
                               .repair = default_import_repair()};
}

typedef enum reader_kind
{
    READER_NONE,
    READER_STL,
    READER_SHL,
    READER_OBJ,
    READER_OFF,
    READER_GLTF,
    READER_3MF,
    READER_COLLADA,
    READER_ASSIMP,
    READER_BREP,
} reader_kind;

static reader_kind reader_for(const char* path, char* ext, size_t cap)
{
    const char* slash = strrchr(path, '/');
    const char* base = slash ? slash + 1 : path;
    const char* dot = strrchr(base, '.');
    ext[0] = '\0';
    if (dot == NULL || dot[1] == '\0')
    {
        return READER_NONE;
    }
    size_t i = 0;
    for (const char* s = dot + 1; *s != '\0' && i + 1 < cap; ++s)
    {
        ext[i++] = (char)tolower((unsigned char)*s);
    }
    ext[i] = '\0';
    if (strcmp(ext, "stl") == 0)
    {
        return READER_STL;
    }
    if (strcmp(ext, "shl") == 0)
    {
        return READER_SHL;
    }
    if (strcmp(ext, "obj") == 0)
    {
        return READER_OBJ;
    }
    if (strcmp(ext, "off") == 0)
    {
        return READER_OFF;
    }
    if (strcmp(ext, "gltf") == 0 || strcmp(ext, "glb") == 0)
    {
        return READER_GLTF;
    }
    if (strcmp(ext, "3mf") == 0)
    {
        return READER_3MF;
    }
    if (strcmp(ext, "dae") == 0)
    {
        return READER_COLLADA;
    }
    static const char* const brep_ext[] = {"step", "stp", "iges", "igs", "brep"};
    for (size_t k = 0; k < sizeof brep_ext / sizeof brep_ext[0]; ++k)
    {
        if (strcmp(ext, brep_ext[k]) == 0)
        {
            return READER_BREP;
        }
    }
    // Assimp reads in single precision: only PLY, which has no native reader, goes there.
    return strcmp(ext, "ply") == 0 ? READER_ASSIMP : READER_NONE;
}

// A repair runs when a flag or a weld setting asks for one.
static bool wants_repair(const mc_repair_options* r)
{
    return r->flags != 0 || r->weld_tolerance != 0.0 || r->weld_distance != 0.0;
}

// A B-rep file whose faces do not close up: say whether it has no solid at all (open shells) or its tessellation
// failed, instead of the generic message.
static void explain_brep(const mc_soup* soup, const mc_mesh_report* rep, mc_error* err)
{
    if (soup->brep_solids == 0)
    {
        mc_set_error(err, MC_ERR_MESH_NOT_CLOSED, -1, -1,
                     "no solid in the file, only %u surfaces: %u open shells (%u boundary edges); REPAIR can close "
                     "small gaps",
                     soup->brep_surfaces, rep->components, rep->boundary_edges);
    }
    else
    {
        mc_set_error(err, MC_ERR_MESH_NOT_CLOSED, -1, -1,
                     "the tessellation of its %u solids is not closed: %u boundary edges, %u non-manifold edges "
                     "(REPAIR, or another chord tolerance, may help)",
                     soup->brep_solids, rep->boundary_edges, rep->nonmanifold_edges);
    }
}

// The import's repair (when asked), then the mesh build from the soup.
static mc_status repair_and_build(const mc_import_options* opt, mc_soup* soup, bool brep, mc_mesh** out,
                                  mc_mesh_report* report, mc_error* err)
{
    double to_user = opt->scale * soup->file_scale;
    mc_read_facts read = {.split_polygons = soup->split_polygons,
                          .trailing_bytes = soup->trailing_bytes,
                          .brep_solids = soup->brep_solids,
                          .brep_surfaces = soup->brep_surfaces,
                          .brep_volume = soup->brep_volume * to_user * to_user * to_user};
    mc_status st = MC_OK;
    if (wants_repair(&opt->repair))
    {
        st = mc_soup_repair(soup, &opt->repair, to_user, &read.repair, err);
        st = st == MC_OK && soup->triangle_count == 0
                 ? mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1, "no triangles left after the repair")
                 : st;
        if (st != MC_OK)
        {
            return st;
        }
    }
    mc_mesh_def def = mc_default_mesh_def();
    def.positions = soup->positions;
    def.vertex_count = soup->vertex_count;
    def.indices = soup->indices;
    def.triangle_count = soup->triangle_count;
    def.scale = to_user;
    def.weld_tolerance = opt->weld_tolerance;
    def.flip = opt->flip;
    def.require_closed = opt->require_closed;
    mc_mesh_report local;
    mc_mesh_report* rep = report != NULL ? report : &local;
    st = mc_mesh_build(&def, &read, opt->progress, opt->progress_user, out, rep, err);
    if (st == MC_ERR_MESH_NOT_CLOSED && brep)
    {
        explain_brep(soup, rep, err);
    }
    return st;
}

static mc_status import_geometry(const char* path, const mc_import_options* options, mc_mesh** out,
                                 mc_mesh_report* report, mc_error* err)
{
    if (report != NULL)
    {
        memset(report, 0, sizeof *report);
    }
    if (path == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "path is NULL");
    }
    mc_import_options opt = options ? *options : mc_default_import_options();
    if (!(opt.scale > 0.0) || !isfinite(opt.scale))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: scale %g must be finite and positive", path,
                            opt.scale);
    }
    char ext[16];
    reader_kind kind = reader_for(path, ext, sizeof ext);
    if (kind == READER_NONE)
    {
        return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, -1,
                            "%s: unsupported file extension '%s%s' (accepted: .stl .shl .obj .ply .off .3mf .gltf .glb "
                            ".dae .step .stp .iges .igs .brep)",
                            path, ext[0] ? "." : "", ext[0] ? ext : "(none)");
    }
    if (opt.max_bytes == 0 || opt.max_triangles == 0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "%s: max_bytes and max_triangles must be > 0 (set them from mc_default_import_options)",
                            path);
    }
    mc_status fst = mc_check_input_file(path, opt.max_bytes, err);
    if (fst != MC_OK)
    {
        return fst;
    }
    mc_soup soup;
    memset(&soup, 0, sizeof soup);
    soup.file_scale = 1.0;
    soup.max_triangles = opt.max_triangles;
    soup.max_bytes = opt.max_bytes;
    soup.progress = opt.progress;
    soup.progress_user = opt.progress_user;
    soup.options = &opt;
    // One reader per kind (READER_NONE was refused above).
    static mc_status (*const readers[])(const char*, mc_soup*, mc_error*) = {
        [READER_STL] = mc_stl_read,         [READER_SHL] = mc_shl_read,       [READER_OBJ] = mc_obj_read,
        [READER_OFF] = mc_off_read,         [READER_GLTF] = mc_gltf_read,     [READER_3MF] = mc_3mf_read,
        [READER_COLLADA] = mc_collada_read, [READER_ASSIMP] = mc_assimp_read, [READER_BREP] = mc_brep_read,
    };
    mc_status st = readers[kind](path, &soup, err);
    if (st == MC_ERR_LIMIT)
    {
        mc_error_prefix(err, path); // the soup's limit message does not know the file
    }
    if (st == MC_OK && soup.triangle_count == 0)
    {
        st = mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1, "%s: no triangles", path);
    }
    if (st != MC_OK)
    {
        mc_soup_free(&soup);
        return st; // the readers' messages name the file
    }
    st = repair_and_build(&opt, &soup, kind == READER_BREP, out, report, err);
    mc_soup_free(&soup);
    if (st != MC_OK)
    {
        mc_error_prefix(err, path);
    }
    return st;
}

mc_status mc_mesh_import_geometry(const char* path, const mc_import_options* options, mc_mesh** out,
                                  mc_mesh_report* report, mc_error* err)
{
    // Numbers in text files always have '.' decimals: read them in the "C" locale whatever the host set.
    mc_c_locale_scope scope;
    if (!mc_c_locale_enter(&scope))
    {
        if (report != NULL)
        {
            memset(report, 0, sizeof *report);
        }
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the C locale",
                            path != NULL ? path : "(no path)");
    }
    mc_status st = import_geometry(path, options, out, report, err);
    mc_c_locale_leave(&scope);
    return st;
}
