// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Small mesh builders for the world tests and the world benchmark: a UV sphere with poles on the z axis and a box.
#pragma once

#include "meshcontact/meshcontact.h"

#include <math.h>
#include <stdlib.h>

/// UV sphere of radius r centred at the origin: poles at (0, 0, +-r), n_lat bands, n_lon segments.
/// Outward counter-clockwise triangles. Returns NULL on failure.
static inline mc_mesh* wscene_uv_sphere(double r, uint32_t n_lat, uint32_t n_lon)
{
    const double pi = 3.14159265358979323846;
    uint32_t nv = 2 + (n_lat - 1) * n_lon;
    uint32_t nt = 2 * n_lon * (n_lat - 1);
    double* pos = malloc(sizeof(double) * 3 * nv);
    uint32_t* idx = malloc(sizeof(uint32_t) * 3 * nt);
    if (pos == NULL || idx == NULL)
    {
        free(pos);
        free(idx);
        return NULL;
    }
    uint32_t v = 0;
    pos[3 * v + 0] = 0.0, pos[3 * v + 1] = 0.0, pos[3 * v + 2] = r, ++v;
    for (uint32_t i = 1; i < n_lat; ++i)
    {
        double th = pi * (double)i / (double)n_lat;
        for (uint32_t j = 0; j < n_lon; ++j)
        {
            double ph = 2.0 * pi * (double)j / (double)n_lon;
            pos[3 * v + 0] = r * sin(th) * cos(ph);
            pos[3 * v + 1] = r * sin(th) * sin(ph);
            pos[3 * v + 2] = r * cos(th);
            ++v;
        }
    }
    uint32_t south = v;
    pos[3 * v + 0] = 0.0, pos[3 * v + 1] = 0.0, pos[3 * v + 2] = -r, ++v;
    uint32_t t = 0;
#define RING(i, j) (1u + ((i)-1u) * n_lon + ((j) % n_lon))
    for (uint32_t j = 0; j < n_lon; ++j)
    {
        idx[3 * t + 0] = 0, idx[3 * t + 1] = RING(1, j), idx[3 * t + 2] = RING(1, j + 1), ++t;
    }
    for (uint32_t i = 1; i + 1 < n_lat; ++i)
    {
        for (uint32_t j = 0; j < n_lon; ++j)
        {
            uint32_t a = RING(i, j), b = RING(i, j + 1), c = RING(i + 1, j), d = RING(i + 1, j + 1);
            idx[3 * t + 0] = a, idx[3 * t + 1] = c, idx[3 * t + 2] = d, ++t;
            idx[3 * t + 0] = a, idx[3 * t + 1] = d, idx[3 * t + 2] = b, ++t;
        }
    }
    for (uint32_t j = 0; j < n_lon; ++j)
    {
        idx[3 * t + 0] = RING(n_lat - 1, j), idx[3 * t + 1] = south, idx[3 * t + 2] = RING(n_lat - 1, j + 1), ++t;
    }
#undef RING
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = pos;
    md.vertex_count = nv;
    md.indices = idx;
    md.triangle_count = nt;
    mc_mesh* m = NULL;
    mc_status s = mc_mesh_create(&md, &m, NULL, NULL);
    free(pos);
    free(idx);
    return s == MC_OK ? m : NULL;
}

/// Box with corners lo and hi (12 triangles, outward counter-clockwise). Returns NULL on failure.
static inline mc_mesh* wscene_box(mc_vec3 lo, mc_vec3 hi)
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
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = pos;
    md.vertex_count = 8;
    md.indices = idx;
    md.triangle_count = 12;
    mc_mesh* m = NULL;
    return mc_mesh_create(&md, &m, NULL, NULL) == MC_OK ? m : NULL;
}

/// One contact definition between body i (the I list) and body j (the J list) with `model` (NULL: the default
/// model). @return the status of mc_world_create_contact.
static inline mc_status wscene_contact(mc_world* w, mc_body_id i, mc_body_id j, const mc_force_model* model,
                                       mc_contact_id* out)
{
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &i;
    cd.i_count = 1;
    cd.j_bodies = &j;
    cd.j_count = 1;
    if (model != NULL)
    {
        cd.model = *model;
    }
    return mc_world_create_contact(w, &cd, out, NULL);
}
