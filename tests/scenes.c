// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scene builders shared by the tests and the benchmark: generated meshes, mesh pairs at contact poses, corpus meshes.
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double scene_random(uint64_t* state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

mc_quat scene_random_quat(uint64_t* state)
{
    // Shoemake's uniform random rotation.
    double u1 = scene_random(state), u2 = 2.0 * MC_PI * scene_random(state), u3 = 2.0 * MC_PI * scene_random(state);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    mc_quat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return mc_quat_normalize(q);
}

mc_mesh* scene_mesh_from_arrays(const double* positions, uint32_t vertex_count, const uint32_t* indices,
                                uint32_t triangle_count)
{
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = positions;
    d.vertex_count = vertex_count;
    d.indices = indices;
    d.triangle_count = triangle_count;
    mc_mesh* m = NULL;
    if (mc_mesh_create(&d, &m, NULL, NULL) != MC_OK)
    {
        return NULL;
    }
    return m;
}

mc_mesh* scene_primitive(mc_primitive_type type, mc_vec3 dims, uint32_t triangles)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    if (mc_primitive_tessellate_count(&d, triangles, &pos, &nv, &idx, &nt, NULL) != MC_OK)
    {
        return NULL;
    }
    mc_mesh* m = scene_mesh_from_arrays(pos, nv, idx, nt);
    mc_free_arrays(pos, idx);
    return m;
}

// Vertex and index arrays of a generated mesh; false (nothing allocated) when out of memory.
static bool alloc_arrays(uint32_t nv, uint32_t nt, double** p, uint32_t** ix)
{
    *p = malloc(3u * (size_t)nv * sizeof **p);
    *ix = malloc(3u * (size_t)nt * sizeof **ix);
    if (*p == NULL || *ix == NULL)
    {
        free(*p);
        free(*ix);
        return false;
    }
    return true;
}

// The mesh of the arrays, which are freed.
static mc_mesh* mesh_and_free(double* p, uint32_t nv, uint32_t* ix, uint32_t nt)
{
    mc_mesh* m = scene_mesh_from_arrays(p, nv, ix, nt);
    free(p);
    free(ix);
    return m;
}

// Write triangle (a, b, c) at index k; returns the next index.
static uint32_t put_tri(uint32_t* ix, uint32_t k, uint32_t a, uint32_t b, uint32_t c)
{
    ix[k] = a;
    ix[k + 1u] = b;
    ix[k + 2u] = c;
    return k + 3u;
}

// Grid on a parametric surface: (nu x nv) vertices, periodic in u; periodic in v or with poles (sphere).
mc_mesh* scene_uv_sphere(double r, uint32_t triangles)
{
    // triangles = 2 nlon (nlat - 1) with nlon = 2 nlat.
    uint32_t nlat = (uint32_t)fmax(3.0, floor(sqrt((double)triangles / 4.0) + 0.5));
    uint32_t nlon = 2u * nlat;
    uint32_t nv = 2u + nlon * (nlat - 1u);
    uint32_t nt = 2u * nlon * (nlat - 1u);
    double* p = NULL;
    uint32_t* ix = NULL;
    if (!alloc_arrays(nv, nt, &p, &ix))
    {
        return NULL;
    }
    p[0] = 0.0, p[1] = 0.0, p[2] = -r;
    p[3] = 0.0, p[4] = 0.0, p[5] = r;
    for (uint32_t i = 1; i < nlat; ++i)
    {
        double th = MC_PI * (double)i / (double)nlat - 0.5 * MC_PI;
        for (uint32_t j = 0; j < nlon; ++j)
        {
            double ph = 2.0 * MC_PI * (double)j / (double)nlon;
            uint32_t v = 2u + (i - 1u) * nlon + j;
            p[3 * v] = r * cos(th) * cos(ph);
            p[3 * v + 1] = r * cos(th) * sin(ph);
            p[3 * v + 2] = r * sin(th);
        }
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < nlon; ++j)
    {
        uint32_t j1 = (j + 1u) % nlon;
        // South cap (pole 0), outward = counter-clockwise seen from below.
        k = put_tri(ix, k, 0, 2u + j1, 2u + j);
        // North cap.
        uint32_t top = 2u + (nlat - 2u) * nlon;
        k = put_tri(ix, k, 1, top + j, top + j1);
        for (uint32_t i = 1; i + 1u < nlat; ++i)
        {
            uint32_t a = 2u + (i - 1u) * nlon + j, b = 2u + (i - 1u) * nlon + j1;
            uint32_t c = a + nlon, d = b + nlon;
            k = put_tri(ix, k, a, b, d);
            k = put_tri(ix, k, a, d, c);
        }
    }
    return mesh_and_free(p, nv, ix, nt);
}

mc_mesh* scene_torus(double major, double minor, uint32_t triangles)
{
    // triangles = 2 nu nv with nu = 3 nv.
    uint32_t nv_ = (uint32_t)fmax(3.0, floor(sqrt((double)triangles / 6.0) + 0.5));
    uint32_t nu = 3u * nv_;
    uint32_t nv = nu * nv_;
    uint32_t nt = 2u * nv;
    double* p = NULL;
    uint32_t* ix = NULL;
    if (!alloc_arrays(nv, nt, &p, &ix))
    {
        return NULL;
    }
    for (uint32_t i = 0; i < nu; ++i)
    {
        double u = 2.0 * MC_PI * (double)i / (double)nu;
        for (uint32_t j = 0; j < nv_; ++j)
        {
            double w = 2.0 * MC_PI * (double)j / (double)nv_;
            uint32_t v = i * nv_ + j;
            double rr = major + minor * cos(w);
            p[3 * v] = rr * cos(u);
            p[3 * v + 1] = rr * sin(u);
            p[3 * v + 2] = minor * sin(w);
        }
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < nu; ++i)
    {
        uint32_t i1 = (i + 1u) % nu;
        for (uint32_t j = 0; j < nv_; ++j)
        {
            uint32_t j1 = (j + 1u) % nv_;
            uint32_t a = i * nv_ + j, b = i1 * nv_ + j, c = i1 * nv_ + j1, d = i * nv_ + j1;
            k = put_tri(ix, k, a, b, c);
            k = put_tri(ix, k, a, c, d);
        }
    }
    return mesh_and_free(p, nv, ix, nt);
}

static double grid_coord(double h, uint32_t i, uint32_t n)
{
    return -h + 2.0 * h * (double)i / (double)n;
}

mc_mesh* scene_box_grid(mc_vec3 half, uint32_t triangles)
{
    uint32_t n = (uint32_t)fmax(1.0, floor(sqrt((double)triangles / 12.0) + 0.5));
    uint32_t per_face = (n + 1u) * (n + 1u);
    uint32_t nv = 6u * per_face, nt = 12u * n * n;
    double* p = NULL;
    uint32_t* ix = NULL;
    if (!alloc_arrays(nv, nt, &p, &ix))
    {
        return NULL;
    }
    double h[3] = {half.x, half.y, half.z};
    uint32_t k = 0;
    for (int f = 0; f < 6; ++f)
    {
        int axis = f / 2;
        double sgn = (f % 2) ? 1.0 : -1.0;
        int u = (axis + 1) % 3, v = (axis + 2) % 3; // (u, v, axis) right-handed
        uint32_t base = (uint32_t)f * per_face;
        for (uint32_t i = 0; i <= n; ++i)
        {
            for (uint32_t j = 0; j <= n; ++j)
            {
                double* q = &p[3u * (base + i * (n + 1u) + j)];
                q[axis] = sgn * h[axis];
                q[u] = grid_coord(h[u], i, n);
                q[v] = grid_coord(h[v], j, n);
            }
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                uint32_t a = base + i * (n + 1u) + j, b = a + (n + 1u), c = b + 1u, d = a + 1u;
                // Seen from outside along +axis: u then v is counter-clockwise; flip for the negative face.
                if (sgn > 0.0)
                {
                    k = put_tri(ix, k, a, b, c);
                    k = put_tri(ix, k, a, c, d);
                }
                else
                {
                    k = put_tri(ix, k, a, c, b);
                    k = put_tri(ix, k, a, d, c);
                }
            }
        }
    }
    return mesh_and_free(p, nv, ix, nt);
}

mc_mesh* scene_import(const char* relative_path)
{
    const char* root = getenv("MC_SOURCE_ROOT");
    char path[4096];
    if (relative_path[0] == '/')
    {
        snprintf(path, sizeof path, "%s", relative_path);
    }
    else
    {
        snprintf(path, sizeof path, "%s/%s", root != NULL ? root : ".", relative_path);
    }
    mc_mesh* m = NULL;
    if (mc_mesh_import_file(path, NULL, &m, NULL, NULL) != MC_OK)
    {
        return NULL;
    }
    return m;
}

const char* scene_kind_name(scene_kind kind)
{
    static const char* names[SCENE_KIND_COUNT] = {"sphere_sphere", "tori", "box_box", "sphere_box"};
    return (unsigned)kind < SCENE_KIND_COUNT ? names[kind] : "unknown";
}

static mc_quat axis_angle(mc_vec3 axis, double angle)
{
    mc_vec3 a = mc_normalize(axis);
    mc_quat q = {cos(0.5 * angle), a.x * sin(0.5 * angle), a.y * sin(0.5 * angle), a.z * sin(0.5 * angle)};
    return q;
}

static void size_suffix(char* buf, size_t n, uint32_t triangles)
{
    if (triangles >= 1000000u && triangles % 1000000u == 0)
    {
        snprintf(buf, n, "%um", triangles / 1000000u);
    }
    else if (triangles >= 1000u && triangles % 1000u == 0)
    {
        snprintf(buf, n, "%uk", triangles / 1000u);
    }
    else
    {
        snprintf(buf, n, "%u", triangles);
    }
}

// Generated meshes: the tessellator's when it can make them, else the own UV generators (same shapes).
void scene_make_name(scene_kind kind, uint32_t triangles, char* buf, size_t size)
{
    char suffix[32];
    size_suffix(suffix, sizeof suffix, triangles);
    snprintf(buf, size, "%s_%s", scene_kind_name(kind), suffix);
}

int scene_make(scene_kind kind, uint32_t triangles, scene_pair* out)
{
    memset(out, 0, sizeof *out);
    scene_make_name(kind, triangles, out->name, sizeof out->name);
    out->pose_i = mc_pose_identity();
    out->pose_j = mc_pose_identity();
    switch (kind)
    {
    case SCENE_SPHERE_SPHERE:
        out->mesh_i = scene_uv_sphere(1.0, triangles);
        out->mesh_j = out->mesh_i;
        out->pose_j.p = mc_v3(1.8, 0.0, 0.0);
        out->pose_j.q = axis_angle(mc_v3(1.0, 2.0, 3.0), 0.7);
        break;
    case SCENE_TORI:
        out->mesh_i = scene_torus(1.0, 0.3, triangles);
        out->mesh_j = out->mesh_i;
        out->pose_j.p = mc_v3(1.5, 0.0, 0.0);
        out->pose_j.q = axis_angle(mc_v3(1.0, 0.0, 0.0), 0.5 * MC_PI);
        break;
    case SCENE_BOX_BOX:
    {
        mc_vec3 hi = mc_v3(2.0, 2.0, 0.5), hj = mc_v3(0.5, 0.5, 0.5);
        out->mesh_i = scene_box_grid(hi, triangles);
        out->mesh_j = scene_box_grid(hj, triangles);
        double a = MC_PI / 6.0;
        // Lowest point of J after the tilt about x: its centre minus (hy sin a + hz cos a).
        double low = hj.y * sin(a) + hj.z * cos(a);
        out->pose_j.p = mc_v3(0.1, 0.05, hi.z + low - 0.01 * 2.0 * hj.z);
        out->pose_j.q = axis_angle(mc_v3(1.0, 0.0, 0.0), a);
        break;
    }
    case SCENE_SPHERE_BOX:
        out->mesh_i = scene_box_grid(mc_v3(2.0, 2.0, 0.5), triangles);
        out->mesh_j = scene_uv_sphere(1.0, triangles);
        out->pose_j.p = mc_v3(0.1, -0.05, 0.5 + 1.0 - 0.02);
        out->pose_j.q = axis_angle(mc_v3(0.3, 1.0, 0.2), 0.4);
        break;
    default:
        return -1;
    }
    if (out->mesh_i == NULL || out->mesh_j == NULL)
    {
        scene_pair_destroy(out);
        return -1;
    }
    return 0;
}

int scene_make_file(const char* relative_path, const char* name, double shift, double angle, scene_pair* out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->mesh_i = scene_import(relative_path);
    if (out->mesh_i == NULL)
    {
        return -1;
    }
    out->mesh_j = out->mesh_i;
    const mc_mesh_report* r = mc_mesh_get_report(out->mesh_i);
    double diag = mc_length(mc_sub(r->bbox_max, r->bbox_min));
    out->pose_i = mc_pose_identity();
    out->pose_j = mc_pose_identity();
    mc_vec3 dir = mc_normalize(mc_v3(1.0, 0.5, 0.25));
    out->pose_j.p = mc_scale(dir, shift * diag);
    out->pose_j.q = axis_angle(mc_v3(0.0, 0.0, 1.0), angle);
    return 0;
}

void scene_pair_destroy(scene_pair* s)
{
    if (s->mesh_j != NULL && s->mesh_j != s->mesh_i)
    {
        mc_mesh_destroy(s->mesh_j);
    }
    mc_mesh_destroy(s->mesh_i);
    s->mesh_i = NULL;
    s->mesh_j = NULL;
}

mc_mesh* scene_box(mc_vec3 lo, mc_vec3 hi)
{
    double pos[24];
    for (int c = 0; c < 8; ++c)
    {
        pos[3 * c + 0] = (c & 1) ? hi.x : lo.x;
        pos[3 * c + 1] = (c & 2) ? hi.y : lo.y;
        pos[3 * c + 2] = (c & 4) ? hi.z : lo.z;
    }
    static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    return scene_mesh_from_arrays(pos, 8, idx, 12);
}

mc_mesh* scene_fuzz_cube(int hollow, double scale, int flip)
{
    static const double cube_p[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1};
    static const uint32_t cube_t[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                      1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    double pos[48];
    uint32_t idx[72];
    for (int k = 0; k < 24; ++k)
    {
        pos[k] = hollow ? 2.0 * cube_p[k] : cube_p[k];
        pos[24 + k] = cube_p[k];
    }
    for (int k = 0; k < 36; k += 3)
    {
        idx[k] = cube_t[k], idx[k + 1] = cube_t[k + 1], idx[k + 2] = cube_t[k + 2];
        idx[36 + k] = 8 + cube_t[k], idx[36 + k + 1] = 8 + cube_t[k + 2], idx[36 + k + 2] = 8 + cube_t[k + 1];
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = pos;
    d.vertex_count = hollow ? 16 : 8;
    d.indices = idx;
    d.triangle_count = hollow ? 24 : 12;
    d.scale = scale;
    d.flip = flip != 0;
    mc_mesh* m = NULL;
    return mc_mesh_create(&d, &m, NULL, NULL) == MC_OK ? m : NULL;
}

typedef enum real_layout
{
    REAL_ON_PLATE, // J stands on a plate I (12 triangles) sunk 0.2 % of its height into it
    REAL_IN_BOX,   // J entirely inside a box I (12 triangles) 1.5 times its bounding box
    REAL_BESIDE,   // a box I of J's size beside J, 5 % of its diagonal away
    REAL_THROUGH,  // two parts, J's bbox centre moved to 0.6 of the way to I's max corner and turned about z
} real_layout;

static const struct
{
    const char* name;
    const char* path_i; // NULL: a box made from J
    const char* path_j;
    real_layout layout;
    double tilt; // J turned by this angle (radians) about y, on a plate
} real_scenes[] = {
    // Spot is mirror-symmetric about x = 0 to the bit: untilted, its region's centroid lies on the mirror plane, where
    // the closest feature of the Adams depth is tied between two mirror faces (a kink: no derivative); 1 mrad breaks
    // the tie.
    {"spot_on_plate", NULL, "data/spot.obj", REAL_ON_PLATE, 1e-3},
    {"cad_part_on_plate", NULL, "data/prusa/fs-lever.stl", REAL_ON_PLATE, 0.0},
    {"knob_in_box", NULL, "data/prusa/LCD-knob.stl", REAL_IN_BOX, 0.0},
    {"idler_in_box", NULL, "data/prusa/x-end-idler.stl", REAL_IN_BOX, 0.0},
    {"box_beside_holder", NULL, "data/prusa/Spool-holder.stl", REAL_BESIDE, 0.0},
    {"cad_parts_through", "data/prusa/x-end-idler.stl", "data/prusa/x-end-motor.stl", REAL_THROUGH, 0.0},
};

int scene_real_count(void)
{
    return (int)(sizeof real_scenes / sizeof real_scenes[0]);
}

const char* scene_real_name(int k)
{
    return real_scenes[k].name;
}

static mc_mesh* real_box(real_layout layout, const mc_mesh_report* r)
{
    mc_vec3 lo = r->bbox_min, hi = r->bbox_max, e = mc_sub(hi, lo);
    double diag = mc_length(e);
    switch (layout)
    {
    case REAL_ON_PLATE:
    {
        double sink = 0.002 * e.z;
        return scene_box(mc_v3(lo.x - 0.1 * e.x, lo.y - 0.1 * e.y, lo.z + sink - 0.1 * e.z),
                         mc_v3(hi.x + 0.1 * e.x, hi.y + 0.1 * e.y, lo.z + sink));
    }
    case REAL_IN_BOX:
        return scene_box(mc_sub(lo, mc_scale(e, 0.25)), mc_add(hi, mc_scale(e, 0.25)));
    default:
    {
        double gap = 0.05 * diag;
        return scene_box(mc_v3(hi.x + gap, lo.y, lo.z), mc_v3(hi.x + gap + e.x, hi.y, hi.z));
    }
    }
}

int scene_make_real(int k, scene_pair* out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", real_scenes[k].name);
    out->pose_i = mc_pose_identity();
    out->pose_j = mc_pose_identity();
    out->mesh_j = scene_import(real_scenes[k].path_j);
    if (out->mesh_j == NULL)
    {
        return -1;
    }
    const mc_mesh_report* rj = mc_mesh_get_report(out->mesh_j);
    if (real_scenes[k].path_i == NULL)
    {
        out->mesh_i = real_box(real_scenes[k].layout, rj);
        out->pose_j.q = axis_angle(mc_v3(0.0, 1.0, 0.0), real_scenes[k].tilt);
    }
    else
    {
        out->mesh_i = scene_import(real_scenes[k].path_i);
        if (out->mesh_i != NULL)
        {
            const mc_mesh_report* ri = mc_mesh_get_report(out->mesh_i);
            mc_vec3 ci = mc_scale(mc_add(ri->bbox_min, ri->bbox_max), 0.5);
            mc_vec3 cj = mc_scale(mc_add(rj->bbox_min, rj->bbox_max), 0.5);
            mc_vec3 target = mc_add(ci, mc_scale(mc_sub(ri->bbox_max, ci), 0.6));
            out->pose_j.q = axis_angle(mc_v3(0.0, 0.0, 1.0), 0.4);
            out->pose_j.p = mc_sub(target, mc_quat_rotate(out->pose_j.q, cj));
        }
    }
    if (out->mesh_i == NULL)
    {
        mc_mesh_destroy(out->mesh_j);
        out->mesh_j = NULL;
        return -1;
    }
    return 0;
}

void scene_each(const scene_source* src, const char* filter, scene_visit_fcn* visit, void* ctx)
{
    for (int k = 0; k < src->count(); ++k)
    {
        scene_pair s;
        if (filter != NULL && strstr(src->name(k), filter) == NULL)
        {
            continue;
        }
        if (src->make(k, &s) != 0)
        {
            fprintf(stderr, "%s: %s\n", src->name(k), src->failure);
            continue;
        }
        visit(&s, ctx);
        scene_pair_destroy(&s);
    }
}

const scene_source scene_source_real = {scene_real_count, scene_real_name, scene_make_real,
                                        "could not import its meshes (set MC_SOURCE_ROOT to the repository root)"};

void scene_each_real(const char* filter, scene_visit_fcn* visit, void* ctx)
{
    scene_each(&scene_source_real, filter, visit, ctx);
}

// Real meshes against a shifted, turned copy of themselves: an organic model, a small CAD part with many regions, a
// large CAD part (the poses of bench_regions).
static const struct
{
    const char* path;
    const char* name;
    double shift, angle;
} shifted_scenes[] = {
    {"data/spot.obj", "spot_shifted", 0.1, 0.5},
    {"data/prusa/LCD-knob.stl", "knob_shifted", 0.05, 0.2},
    {"data/prusa/x-end-motor.stl", "motor_shifted", 0.1, 0.3},
};

int scene_shifted_count(void)
{
    return (int)(sizeof shifted_scenes / sizeof shifted_scenes[0]);
}

void scene_shifted_name(int k, const char* const* files, char* buf, size_t size)
{
    if (k < scene_shifted_count())
    {
        snprintf(buf, size, "%s", shifted_scenes[k].name);
        return;
    }
    const char* path = files[k - scene_shifted_count()];
    const char* base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    const char* dot = strrchr(base, '.');
    int len = dot != NULL ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, size, "%.*s_shifted", len, base);
}

int scene_make_shifted(int k, const char* const* files, scene_pair* out)
{
    char name[64];
    scene_shifted_name(k, files, name, sizeof name);
    if (k < scene_shifted_count())
    {
        return scene_make_file(shifted_scenes[k].path, name, shifted_scenes[k].shift, shifted_scenes[k].angle, out);
    }
    return scene_make_file(files[k - scene_shifted_count()], name, 0.1, 0.3, out);
}
