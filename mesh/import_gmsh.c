// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// B-rep import (STEP, IGES, BREP) through gmsh's C API: the library meshcontact-brep (include/meshcontact/brep.h), the
// only code that includes gmsh, built apart from libmeshcontact so that only the hosts that read CAD files load gmsh
// and OpenCASCADE. It uses the public API only (it installs its reader with mc_mesh_set_brep_reader and writes into
// the import's sink). OpenCASCADE reads the file, gmsh tessellates the faces of its solids with shared edge nodes, each
// face wound outward by its orientation in its solid. gmsh keeps global state: every call runs under one lock, between
// gmshInitialize and gmshFinalize.
#include "meshcontact/brep.h"

#include <gmshc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/// gmsh is one global model: one B-rep import at a time in this process.
static pthread_mutex_t s_gmsh_lock = PTHREAD_MUTEX_INITIALIZER;

/// Most elements per turn asked of gmsh's curvature sizing (a tiny chord tolerance on a large part would otherwise
/// ask for millions; the import's max_triangles guards the rest).
#define GMSH_MAX_PER_TURN 100000.0

/// What one import works on.
typedef struct gmsh_job
{
    const char* path;
    const mc_import_options* options;
    mc_brep_sink* sink;
    mc_brep_info* info;
    mc_error* err;
    int* solids;        ///< (3, tag) pairs of the selected volumes, from gmsh (gmshFree)
    size_t solid_count; ///< pairs in solids
    size_t node_count;  ///< mesh nodes, tagged 1..node_count (renumbered) and added to the sink in tag order
} gmsh_job;

// Fill the error record (never NULL: the import passes one) and return status.
static mc_status brep_error(mc_error* err, mc_status status, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

static mc_status brep_error(mc_error* err, mc_status status, const char* fmt, ...)
{
    err->status = status;
    err->index = -1;
    err->line = -1;
    err->offset = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

static mc_status gmsh_fail(gmsh_job* j, mc_status status, const char* what)
{
    char* msg = NULL;
    int ierr = 0;
    gmshLoggerGetLastError(&msg, &ierr);
    bool have = ierr == 0 && msg != NULL && msg[0] != '\0';
    mc_status st =
        brep_error(j->err, status, "%s: gmsh could not %s%s%s", j->path, what, have ? ": " : "", have ? msg : "");
    gmshFree(msg);
    return st;
}

static void report(const gmsh_job* j, double f)
{
    if (j->options->progress != NULL)
    {
        j->options->progress(f, j->options->progress_user);
    }
}

// Read the file with OpenCASCADE (lengths in millimetres for STEP and IGES) and pick the solids: j->solids keeps
// gmsh's list of (3, tag) pairs, the selected one moved to the front when the options pick one.
static mc_status gmsh_load(gmsh_job* j)
{
    int ierr = 0;
    int* dim_tags = NULL;
    size_t n = 0;
    gmshModelOccImportShapes(j->path, &dim_tags, &n, 1, "", &ierr);
    gmshFree(dim_tags);
    if (ierr != 0)
    {
        return gmsh_fail(j, MC_ERR_PARSE, "read the file");
    }
    report(j, 0.05);
    gmshModelOccSynchronize(&ierr);
    if (ierr != 0)
    {
        return gmsh_fail(j, MC_ERR_PARSE, "build the model");
    }
    report(j, 0.1);
    gmshModelGetEntities(&j->solids, &n, 3, &ierr);
    size_t solids = ierr == 0 ? n / 2 : 0;
    j->info->solids = (uint32_t)solids;
    int32_t pick = j->options->brep_solid;
    if (pick >= 0 && (size_t)pick >= solids)
    {
        return brep_error(j->err, MC_ERR_INVALID_ARGUMENT,
                          "%s: solid %d asked for, but the file has %zu solids (numbered from 0)", j->path, pick,
                          solids);
    }
    j->solid_count = solids;
    if (pick >= 0)
    {
        j->solids[1] = j->solids[2 * (size_t)pick + 1];
        j->solid_count = 1;
    }
    return MC_OK;
}

// Faceting: element sizes from curvature and a largest size from the chord tolerance (see mc_brep_read_gmsh).
static mc_status gmsh_faceting(gmsh_job* j)
{
    int ierr = 0;
    double lo[3], hi[3];
    gmshModelGetBoundingBox(-1, -1, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2], &ierr);
    if (ierr != 0)
    {
        return gmsh_fail(j, MC_ERR_PARSE, "measure the model");
    }
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double r = 0.5 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                          (hi[2] - lo[2]) * (hi[2] - lo[2]));
    const mc_import_options* o = j->options;
    double c = o->chord_tolerance > 0.0 ? o->chord_tolerance / (o->scale * j->info->file_scale) : 0.005 * extent;
    if (!(r > 0.0) || !isfinite(r) || !(c > 0.0))
    {
        return brep_error(j->err, MC_ERR_EMPTY_MESH, "%s: the model is empty or has no extent", j->path);
    }
    double per_turn = 2.0 * MC_PI / o->angle_tolerance;
    if (c < r)
    {
        per_turn = fmax(per_turn, MC_PI / acos(1.0 - c / r));
    }
    per_turn = fmin(ceil(per_turn), GMSH_MAX_PER_TURN);
    gmshOptionSetNumber("Mesh.MeshSizeFromCurvature", per_turn, &ierr);
    gmshOptionSetNumber("Mesh.MinimumCirclePoints", per_turn, &ierr);
    gmshOptionSetNumber("Mesh.MeshSizeMax", sqrt(8.0 * c * r), &ierr);
    gmshOptionSetNumber("Mesh.MeshSizeMin", 0.0, &ierr);
    return MC_OK;
}

// Every mesh node becomes a point of the sink: the nodes are renumbered 1..n first, so node tag t is point t - 1 (no
// table from tags to points). A tag out of range or seen twice is refused.
static mc_status gmsh_nodes(gmsh_job* j)
{
    int ierr = 0;
    gmshModelMeshRenumberNodes(&ierr);
    if (ierr != 0)
    {
        return gmsh_fail(j, MC_ERR_PARSE, "renumber the mesh nodes");
    }
    size_t *tags = NULL, ntags = 0, ncoord = 0, nparam = 0;
    double *coord = NULL, *param = NULL;
    gmshModelMeshGetNodes(&tags, &ntags, &coord, &ncoord, &param, &nparam, -1, -1, 0, 0, &ierr);
    mc_status st = ierr != 0 ? gmsh_fail(j, MC_ERR_PARSE, "read the mesh nodes") : MC_OK;
    if (st == MC_OK && (ncoord != 3 * ntags || ntags > UINT32_MAX - 1))
    {
        st =
            brep_error(j->err, MC_ERR_PARSE, "%s: gmsh returned %zu coordinates for %zu nodes", j->path, ncoord, ntags);
    }
    double* xyz = NULL;
    st = st == MC_OK ? mc_brep_sink_add_points(j->sink, (uint32_t)ntags, &xyz, j->err) : st;
    for (size_t i = 0; st == MC_OK && i < ntags; ++i)
    {
        size_t t = tags[i];
        if (t < 1 || t > ntags || !isnan(xyz[3 * (t - 1)]))
        {
            st = brep_error(j->err, MC_ERR_PARSE, "%s: gmsh node tag %zu out of range or repeated (%zu nodes)", j->path,
                            t, ntags);
            break;
        }
        memcpy(xyz + 3 * (t - 1), coord + 3 * i, 3 * sizeof(double));
    }
    j->node_count = ntags;
    gmshFree(tags);
    gmshFree(coord);
    gmshFree(param);
    return st;
}

// The triangles of face `tag`, reversed when the face is reversed in its solid (sign < 0).
static mc_status gmsh_face(gmsh_job* j, int tag, int sign)
{
    int ierr = 0;
    size_t *etags = NULL, ne = 0, *nodes = NULL, nn = 0;
    gmshModelMeshGetElementsByType(2, &etags, &ne, &nodes, &nn, tag, 0, 1, &ierr);
    mc_status st = ierr != 0 ? gmsh_fail(j, MC_ERR_PARSE, "read the triangles of a face") : MC_OK;
    if (st == MC_OK && (nn != 3 * ne || ne > UINT32_MAX))
    {
        st = brep_error(j->err, MC_ERR_PARSE, "%s: gmsh returned %zu nodes for %zu triangles", j->path, nn, ne);
    }
    uint32_t* tri = NULL;
    st = st == MC_OK ? mc_brep_sink_add_triangles(j->sink, (uint32_t)ne, &tri, j->err) : st;
    for (size_t e = 0; st == MC_OK && e < ne; ++e)
    {
        for (int k = 0; k < 3; ++k)
        {
            size_t t = nodes[3 * e + (size_t)(sign < 0 && k > 0 ? 3 - k : k)];
            if (t < 1 || t > j->node_count)
            {
                st = brep_error(j->err, MC_ERR_PARSE, "%s: gmsh triangle with an unknown node %zu", j->path, t);
                break;
            }
            tri[3 * e + (size_t)k] = (uint32_t)(t - 1);
        }
    }
    gmshFree(etags);
    gmshFree(nodes);
    return st;
}

// Faces of the selected solids with their orientation, or every face when the file has no solid.
static mc_status gmsh_faces(gmsh_job* j)
{
    int ierr = 0;
    int* faces = NULL;
    size_t n = 0;
    if (j->solid_count > 0)
    {
        gmshModelGetBoundary(j->solids, 2 * j->solid_count, &faces, &n, 0, 1, 0, &ierr);
    }
    else
    {
        gmshModelGetEntities(&faces, &n, 2, &ierr);
    }
    mc_status st = ierr != 0 ? gmsh_fail(j, MC_ERR_PARSE, "list the faces") : MC_OK;
    j->info->surfaces = (uint32_t)(n / 2);
    for (size_t i = 0; st == MC_OK && i + 1 < n; i += 2)
    {
        int tag = faces[i + 1];
        st = gmsh_face(j, tag < 0 ? -tag : tag, tag < 0 ? -1 : 1);
    }
    gmshFree(faces);
    return st;
}

// Exact volume of the selected solids from OpenCASCADE.
static void gmsh_volume(gmsh_job* j)
{
    double sum = 0.0;
    for (size_t i = 0; i < j->solid_count; ++i)
    {
        int ierr = 0;
        double mass = 0.0;
        gmshModelOccGetMass(3, j->solids[2 * i + 1], &mass, &ierr);
        sum += ierr == 0 ? mass : 0.0;
    }
    j->info->volume = sum;
}

static mc_status gmsh_run(gmsh_job* j)
{
    int ierr = 0;
    gmshInitialize(0, NULL, 0, &ierr);
    if (ierr != 0)
    {
        return brep_error(j->err, MC_ERR_IO, "%s: gmsh could not start", j->path);
    }
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
    gmshOptionSetNumber("General.Verbosity", 0, &ierr);
    gmshModelAdd("meshcontact", &ierr);
    mc_status st = gmsh_load(j);
    if (st == MC_OK)
    {
        gmsh_volume(j);
        st = gmsh_faceting(j);
    }
    if (st == MC_OK)
    {
        gmshModelMeshGenerate(2, &ierr);
        st = ierr != 0 ? gmsh_fail(j, MC_ERR_PARSE, "tessellate the faces") : MC_OK;
        report(j, 0.45);
    }
    st = st == MC_OK ? gmsh_nodes(j) : st;
    st = st == MC_OK ? gmsh_faces(j) : st;
    gmshFree(j->solids);
    j->solids = NULL;
    gmshFinalize(&ierr);
    report(j, 0.5);
    return st;
}

/// The kinds of B-rep file, by extension.
typedef enum brep_kind
{
    BREP_STEP,
    BREP_IGES,
    BREP_NATIVE,
} brep_kind;

// Check the file's first bytes against its kind, so that text that is not one never reaches OpenCASCADE (whose
// parsers write their syntax errors on stdout): STEP starts with ISO-10303-21;, an IGES line has 80 columns with a
// section letter in column 73, an OpenCASCADE .brep names "CASCADE Topology" near its start.
static mc_status check_signature(const char* path, brep_kind kind, mc_error* err)
{
    FILE* f = fopen(path, "rb");
    if (f == NULL)
    {
        return brep_error(err, MC_ERR_IO, "%s: cannot open", path);
    }
    char head[257];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    const char* s = head + strspn(head, " \t\r\n");
    bool ok = kind == BREP_STEP     ? strncmp(s, "ISO-10303-21;", 13) == 0
              : kind == BREP_NATIVE ? strstr(head, "CASCADE Topology") != NULL
                                    : n >= 73 && head[72] != '\0' && strchr("SG", head[72]) != NULL;
    if (!ok)
    {
        static const char* const what[] = {"a STEP file (no ISO-10303-21; header)",
                                           "an IGES file (no section letter S or G in column 73 of its first line)",
                                           "an OpenCASCADE .brep file (no 'CASCADE Topology' header)"};
        brep_error(err, MC_ERR_PARSE, "%s: not %s", path, what[kind]);
        err->line = 1;
        err->offset = 0;
        return MC_ERR_PARSE;
    }
    return MC_OK;
}

static brep_kind kind_of(const char* path)
{
    size_t n = strlen(path);
    if (n >= 5 && strcasecmp(path + n - 5, ".brep") == 0)
    {
        return BREP_NATIVE;
    }
    bool iges = (n >= 4 && strcasecmp(path + n - 4, ".igs") == 0) || (n >= 5 && strcasecmp(path + n - 5, ".iges") == 0);
    return iges ? BREP_IGES : BREP_STEP;
}

mc_status mc_brep_read_gmsh(const char* path, const mc_import_options* options, mc_brep_sink* sink, mc_brep_info* info,
                            mc_error* err)
{
    mc_error local;
    err = err != NULL ? err : &local;
    const mc_import_options* o = options;
    if (path == NULL || sink == NULL || info == NULL || o == NULL ||
        !(o->angle_tolerance > 0.0 && o->angle_tolerance <= 0.5 * MC_PI) ||
        !(o->chord_tolerance >= 0.0 && isfinite(o->chord_tolerance)) || !(o->scale > 0.0 && isfinite(o->scale)))
    {
        return brep_error(err, MC_ERR_INVALID_ARGUMENT,
                          "%s: B-rep faceting needs a chord tolerance >= 0 and an angle tolerance in (0, pi/2]",
                          path != NULL ? path : "(NULL path)");
    }
    // OpenCASCADE converts STEP and IGES lengths to millimetres from the file's declared unit (its default
    // xstep.cascade.unit; gmsh 4.8 cannot change it for IGES); a .brep file has no unit and is taken as is.
    brep_kind kind = kind_of(path);
    mc_status sig = check_signature(path, kind, err);
    if (sig != MC_OK)
    {
        return sig;
    }
    info->file_scale = kind == BREP_NATIVE ? 1.0 : 1e-3;
    gmsh_job j = {.path = path, .options = o, .sink = sink, .info = info, .err = err};
    pthread_mutex_lock(&s_gmsh_lock);
    mc_status st = gmsh_run(&j);
    pthread_mutex_unlock(&s_gmsh_lock);
    if (st == MC_OK && info->solids == 0)
    {
        info->volume = 0.0; // surfaces only: mesh creation decides whether they close up
    }
    return st;
}

void mc_brep_register(void)
{
    mc_mesh_set_brep_reader(mc_brep_read_gmsh);
}
