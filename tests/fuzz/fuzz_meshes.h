// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The meshes the query and world harnesses pick from: small closed solids of different kinds (tetrahedron, cube,
// L-shaped prism, cube with a cavity, tessellated sphere, cylinder and torus), kept as arrays so that a harness can
// create them at any scale, flipped or not.
#pragma once

#include "fuzz_common.h"

typedef struct fuzz_shape
{
    const char* name;  ///< for messages
    double* positions; ///< 3 * vertex_count
    uint32_t vertex_count;
    uint32_t* indices; ///< 3 * triangle_count, outward
    uint32_t triangle_count;
    bool tessellated; ///< arrays from mc_primitive_tessellate (freed with mc_free_arrays)
} fuzz_shape;

enum
{
    FUZZ_SHAPE_COUNT = 7
};
static fuzz_shape fuzz_shapes[FUZZ_SHAPE_COUNT];

static inline void fuzz_shape_copy(fuzz_shape* s, const char* name, const double* pos, uint32_t nv, const uint32_t* idx,
                                   uint32_t nt)
{
    s->name = name;
    s->positions = malloc(3 * sizeof(double) * nv);
    s->indices = malloc(3 * sizeof(uint32_t) * nt);
    if (s->positions == NULL || s->indices == NULL)
    {
        abort();
    }
    memcpy(s->positions, pos, 3 * sizeof(double) * nv);
    memcpy(s->indices, idx, 3 * sizeof(uint32_t) * nt);
    s->vertex_count = nv;
    s->triangle_count = nt;
}

static inline void fuzz_shape_primitive(fuzz_shape* s, const char* name, mc_primitive_type type, mc_vec3 dims,
                                        uint32_t triangles)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = type;
    d.dims = dims;
    s->name = name;
    s->tessellated = true;
    if (mc_primitive_tessellate_count(&d, triangles, &s->positions, &s->vertex_count, &s->indices, &s->triangle_count,
                                      NULL) != MC_OK)
    {
        fprintf(stderr, "cannot tessellate %s\n", name);
        abort();
    }
}

/// Build the shapes (once, at initialisation; the library's byte count then includes them).
static inline void fuzz_shapes_init(void)
{
    static const double tet_p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t tet_t[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    static const double cube_p[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1};
    static const uint32_t cube_t[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                      1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    fuzz_shape_copy(&fuzz_shapes[0], "tetrahedron", tet_p, 4, tet_t, 4);
    fuzz_shape_copy(&fuzz_shapes[1], "cube", cube_p, 8, cube_t, 12);

    // L-shaped prism: the L (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) extruded from z = 0 to 1; bottom and top fanned from
    // (0,0), which sees the whole L.
    double lp[36];
    static const double l2[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
    for (int k = 0; k < 6; ++k)
    {
        lp[3 * k] = lp[3 * (k + 6)] = l2[k][0];
        lp[3 * k + 1] = lp[3 * (k + 6) + 1] = l2[k][1];
        lp[3 * k + 2] = 0.0;
        lp[3 * (k + 6) + 2] = 1.0;
    }
    uint32_t lt[60];
    uint32_t n = 0;
    for (uint32_t k = 1; k + 1 < 6; ++k)
    {
        uint32_t bottom[3] = {0, k + 1, k}, top[3] = {6, 6 + k, 6 + k + 1};
        memcpy(lt + 3 * n++, bottom, sizeof bottom);
        memcpy(lt + 3 * n++, top, sizeof top);
    }
    for (uint32_t k = 0; k < 6; ++k)
    {
        uint32_t a = k, b = (k + 1) % 6;
        uint32_t s1[3] = {a, b, b + 6}, s2[3] = {a, b + 6, a + 6};
        memcpy(lt + 3 * n++, s1, sizeof s1);
        memcpy(lt + 3 * n++, s2, sizeof s2);
    }
    fuzz_shape_copy(&fuzz_shapes[2], "L prism", lp, 12, lt, n);

    // A cube of edge 4 with a cube cavity of edge 2 (inner shell wound inward).
    double cp[48];
    uint32_t ct[72];
    for (int k = 0; k < 24; ++k)
    {
        cp[k] = 2.0 * cube_p[k];
        cp[24 + k] = cube_p[k];
    }
    for (int k = 0; k < 36; k += 3)
    {
        ct[k] = cube_t[k], ct[k + 1] = cube_t[k + 1], ct[k + 2] = cube_t[k + 2];
        ct[36 + k] = 8 + cube_t[k], ct[36 + k + 1] = 8 + cube_t[k + 2], ct[36 + k + 2] = 8 + cube_t[k + 1];
    }
    fuzz_shape_copy(&fuzz_shapes[3], "cube with cavity", cp, 16, ct, 24);

    fuzz_shape_primitive(&fuzz_shapes[4], "sphere", MC_PRIMITIVE_ELLIPSOID, mc_v3(1, 1, 1), 48);
    fuzz_shape_primitive(&fuzz_shapes[5], "cylinder", MC_PRIMITIVE_CYLINDER, mc_v3(0.5, 0, 2), 60);
    fuzz_shape_primitive(&fuzz_shapes[6], "torus", MC_PRIMITIVE_TORUS, mc_v3(1.0, 0.3, 0), 120);
}

/// Create shape k at `scale`, flipped or not. @return the status of mc_mesh_create (the mesh on MC_OK only).
static inline mc_status fuzz_shape_mesh(int k, double scale, bool flip, mc_mesh** out, mc_mesh_report* rep)
{
    const fuzz_shape* s = &fuzz_shapes[k];
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = s->positions;
    d.vertex_count = s->vertex_count;
    d.indices = s->indices;
    d.triangle_count = s->triangle_count;
    d.scale = scale;
    d.flip = flip;
    return mc_mesh_create(&d, out, rep, NULL);
}

/// A scale for a shape: mostly 1, else a power of two in [2^-40, 2^40], or a wild real.
static inline double fuzz_scale(fuzz_bytes* b)
{
    uint8_t mode = fuzz_u8(b);
    if (mode < 128)
    {
        return 1.0;
    }
    if (mode < 224)
    {
        return ldexp(1.0, (int)(mode % 81) - 40);
    }
    return fuzz_real(b);
}
