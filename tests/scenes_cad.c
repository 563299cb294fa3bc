// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// CAD-export scenes (issue 40): machine parts tessellated the way CAD systems export them, with long thin triangles:
// involute spur gears (extruded profiles, caps fanned from the hub), a block with a bore (caps fanned from the
// block's corners), shafts (the library's cylinder primitive: side triangles the shaft's full length). Generated, so
// nothing is shipped, and in poses a mechanism reaches: gears meshing, a shaft pressed into a bore, crossed shafts.
#include "scenes.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAD_PI 3.14159265358979323846

/// A closed prism: the closed polygon `xy` (n points, counter-clockwise, star-shaped from the origin) extruded
/// from z = z0 to z = z0 + width; the caps are fans from a centre vertex on the z axis.
static mc_mesh* star_prism(const double* xy, uint32_t n, double width, double z0)
{
    uint32_t nv = 2u * n + 2u, nt = 4u * n;
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    uint32_t* ix = malloc(3u * (size_t)nt * sizeof *ix);
    if (p == NULL || ix == NULL)
    {
        free(p);
        free(ix);
        return NULL;
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        for (uint32_t s = 0; s < 2u; ++s)
        {
            double* v = p + 3u * (size_t)(k + s * n);
            v[0] = xy[2u * k];
            v[1] = xy[2u * k + 1u];
            v[2] = s == 0u ? z0 : z0 + width;
        }
    }
    uint32_t c0 = 2u * n, c1 = 2u * n + 1u; // the caps' centres
    memset(p + 3u * (size_t)c0, 0, 6u * sizeof *p);
    p[3u * (size_t)c0 + 2u] = z0;
    p[3u * (size_t)c1 + 2u] = z0 + width;
    uint32_t* t = ix;
    for (uint32_t k = 0; k < n; ++k)
    {
        uint32_t a = k, b = (k + 1u) % n;
        uint32_t tri[4][3] = {{a, b, b + n}, {a, b + n, a + n}, {c0, b, a}, {c1, a + n, b + n}};
        memcpy(t, tri, sizeof tri);
        t += 12;
    }
    mc_mesh* m = scene_mesh_from_arrays(p, nv, ix, nt);
    free(p);
    free(ix);
    return m;
}

/// Polar angle of the involute of a circle of radius rb at radius r (>= rb): inv(alpha) = tan(alpha) - alpha.
static double involute_angle(double rb, double r)
{
    double a = acos(rb / r);
    return tan(a) - a;
}

mc_mesh* scene_spur_gear(int teeth, double module, double width, int flank_points, double* area_out)
{
    // Standard involute spur gear, pressure angle 20 degrees, addendum m, dedendum 1.25 m; each tooth: root arc,
    // rising flank, tip arc, falling flank (flank_points points on each flank, two on each arc's inside).
    double rp = 0.5 * module * teeth, rb = rp * cos(20.0 * CAD_PI / 180.0);
    double ra = rp + module, rf = fmax(rp - 1.25 * module, 0.5 * rp);
    double pitch = 2.0 * CAD_PI / teeth;
    // Half the tooth's angular thickness at the base circle: half a pitch at the pitch circle, plus the involute.
    double half_base = 0.25 * pitch + involute_angle(rb, rp);
    int per_tooth = 2 * flank_points + 4;
    uint32_t n = (uint32_t)(teeth * per_tooth);
    double* xy = malloc(2u * (size_t)n * sizeof *xy);
    if (xy == NULL)
    {
        return NULL;
    }
    uint32_t k = 0;
    double r0 = fmax(rb, rf);
    for (int z = 0; z < teeth; ++z)
    {
        double c = z * pitch; // the tooth's centre line
        // root arc: two points in the gap before the tooth, either side of its middle
        double foot = c - half_base;
        double gap_mid = c - 0.5 * pitch;
        double root_angles[2] = {gap_mid - 0.5 * (foot - gap_mid), gap_mid + 0.5 * (foot - gap_mid)};
        for (int q = 0; q < 2; ++q)
        {
            xy[2u * k] = rf * cos(root_angles[q]);
            xy[2u * k + 1u] = rf * sin(root_angles[q]);
            ++k;
        }
        for (int side = 0; side < 2; ++side)
        {
            for (int i = 0; i < flank_points; ++i)
            {
                int j = side == 0 ? i : flank_points - 1 - i;
                double r = r0 + (ra - r0) * j / (flank_points - 1);
                double th = side == 0 ? c - half_base + involute_angle(rb, r) : c + half_base - involute_angle(rb, r);
                xy[2u * k] = r * cos(th);
                xy[2u * k + 1u] = r * sin(th);
                ++k;
            }
            if (side == 0)
            {
                // tip arc: two points between the flanks' tips
                double tip = half_base - involute_angle(rb, ra);
                for (int q = 1; q <= 2; ++q)
                {
                    double th = c - tip + 2.0 * tip * q / 3.0;
                    xy[2u * k] = ra * cos(th);
                    xy[2u * k + 1u] = ra * sin(th);
                    ++k;
                }
            }
        }
    }
    // The profile's exact area (the polygon, shoelace), for the volume check.
    double area = 0.0;
    for (uint32_t i = 0; i < n; ++i)
    {
        uint32_t j = (i + 1u) % n;
        area += xy[2u * i] * xy[2u * j + 1u] - xy[2u * j] * xy[2u * i + 1u];
    }
    if (area_out != NULL)
    {
        *area_out = 0.5 * area;
    }
    mc_mesh* m = star_prism(xy, n, width, 0.0);
    free(xy);
    return m;
}

mc_mesh* scene_bored_block(double half, double height, double bore, uint32_t segments)
{
    // A square block [-half, half]^2 x [0, height] with a through bore of radius `bore` along z (segments a
    // multiple of 4). Each cap: four fans from the corners over a quarter of the bore's circle, and four triangles
    // between neighbouring corners and the circle's point on the axis between them; the bore's wall as strips.
    uint32_t q = segments / 4u, nc = 4u * q;
    uint32_t nv = 2u * (nc + 4u), nt = 2u * (nc + 4u) + 2u * nc + 8u;
    double* p = malloc(3u * (size_t)nv * sizeof *p);
    uint32_t* ix = malloc(3u * (size_t)nt * sizeof *ix);
    if (p == NULL || ix == NULL || q == 0u || !(bore < half))
    {
        free(p);
        free(ix);
        return NULL;
    }
    static const double corner[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (uint32_t s = 0; s < 2u; ++s)
    {
        double z = s == 0u ? 0.0 : height;
        uint32_t base = s * (nc + 4u);
        for (uint32_t i = 0; i < nc; ++i)
        {
            double a = 2.0 * CAD_PI * i / nc;
            double* v = p + 3u * (size_t)(base + i);
            v[0] = bore * cos(a);
            v[1] = bore * sin(a);
            v[2] = z;
        }
        for (uint32_t c = 0; c < 4u; ++c)
        {
            double* v = p + 3u * (size_t)(base + nc + c);
            v[0] = half * corner[c][0];
            v[1] = half * corner[c][1];
            v[2] = z;
        }
    }
    uint32_t* t = ix;
    uint32_t top = nc + 4u;
    for (uint32_t c = 0; c < 4u; ++c)
    {
        // corner c sees the circle from angle 90 c to 90 (c + 1) degrees (points c q .. (c + 1) q)
        uint32_t cv = nc + c, next = nc + (c + 1u) % 4u, axis = ((c + 1u) * q) % nc;
        for (uint32_t i = c * q; i < (c + 1u) * q; ++i)
        {
            uint32_t a = i, b = (i + 1u) % nc;
            uint32_t tri[2][3] = {{cv, a, b}, {top + cv, top + b, top + a}}; // bottom faces -z, top +z
            memcpy(t, tri, sizeof tri);
            t += 6;
        }
        uint32_t tri[2][3] = {{cv, axis, next}, {top + cv, top + next, top + axis}};
        memcpy(t, tri, sizeof tri);
        t += 6;
        // the block's side between corners c and c + 1
        uint32_t side[2][3] = {{cv, top + next, top + cv}, {cv, next, top + next}};
        memcpy(t, side, sizeof side);
        t += 6;
    }
    for (uint32_t i = 0; i < nc; ++i)
    {
        // the bore's wall faces the axis
        uint32_t a = i, b = (i + 1u) % nc;
        uint32_t tri[2][3] = {{a, top + b, b}, {a, top + a, top + b}};
        memcpy(t, tri, sizeof tri);
        t += 6;
    }
    mc_mesh* m = scene_mesh_from_arrays(p, nv, ix, (uint32_t)((size_t)(t - ix) / 3u));
    free(p);
    free(ix);
    return m;
}

/// A shaft as CAD systems export one: a regular polygon of `segments` sides extruded along z from -length/2 to
/// length/2, every side two triangles the shaft's full length, the caps fanned from the axis.
static mc_mesh* shaft(double radius, double length, uint32_t segments)
{
    double* xy = malloc(2u * (size_t)segments * sizeof *xy);
    if (xy == NULL)
    {
        return NULL;
    }
    for (uint32_t k = 0; k < segments; ++k)
    {
        double a = 2.0 * CAD_PI * k / segments;
        xy[2u * k] = radius * cos(a);
        xy[2u * k + 1u] = radius * sin(a);
    }
    mc_mesh* m = star_prism(xy, segments, length, -0.5 * length);
    free(xy);
    return m;
}

static mc_quat turn(mc_vec3 axis, double angle)
{
    mc_vec3 a = mc_normalize(axis);
    double s = sin(0.5 * angle);
    mc_quat q = {cos(0.5 * angle), a.x * s, a.y * s, a.z * s};
    return q;
}

typedef struct cad_scene
{
    const char* name;
    int kind;     // 0 gears, 1 shaft in bore, 2 crossed shafts
    double level; // gears: flank points; bore and shafts: segments round the circle
} cad_scene;

static const cad_scene cad_scenes[] = {
    {"gears_meshing", 0, 24},    {"gears_meshing_fine", 0, 100},   {"shaft_in_bore", 1, 512},
    {"crossed_shafts", 2, 1024}, {"crossed_shafts_fine", 2, 4096},
};

int scene_cad_count(void)
{
    return (int)(sizeof cad_scenes / sizeof cad_scenes[0]);
}

const char* scene_cad_name(int k)
{
    return cad_scenes[k].name;
}

int scene_make_cad(int k, scene_pair* out)
{
    memset(out, 0, sizeof *out);
    const cad_scene* c = &cad_scenes[k];
    snprintf(out->name, sizeof out->name, "%s", c->name);
    out->pose_i = mc_pose_identity();
    out->pose_j = mc_pose_identity();
    if (c->kind == 0)
    {
        // Two 24-tooth gears of module 2 mm, 10 mm wide, at 0.1 mm less than the standard centre distance (the
        // teeth interpenetrate along the line of action), J turned half a pitch so that its gap faces I's tooth and a
        // little more, as in mesh.
        int teeth = 24;
        double module = 2.0, width = 10.0;
        out->mesh_i = scene_spur_gear(teeth, module, width, (int)c->level, NULL);
        out->mesh_j = scene_spur_gear(teeth, module, width, (int)c->level, NULL);
        out->pose_j.p = mc_v3(module * teeth - 0.1, 0.0, 0.0);
        out->pose_j.q = turn(mc_v3(0, 0, 1), CAD_PI / teeth + 0.02);
    }
    else if (c->kind == 1)
    {
        // A 20 mm shaft pressed 20 um into a 19.96 mm bore of a 60 mm block (an interference fit), tilted 0.2 degree
        // and shifted along the axis: contact all round the wall, through the block.
        out->mesh_i = scene_bored_block(30.0, 40.0, 9.98, (uint32_t)c->level);
        out->mesh_j = shaft(10.0, 80.0, 720);
        out->pose_j.p = mc_v3(0.0, 0.0, 25.0);
        out->pose_j.q = turn(mc_v3(1, 0, 0), 0.2 * CAD_PI / 180.0);
    }
    else
    {
        // Two 20 mm shafts, 200 mm long, crossing at right angles with 0.2 mm of overlap.
        out->mesh_i = shaft(10.0, 200.0, (uint32_t)c->level);
        out->mesh_j = shaft(10.0, 200.0, (uint32_t)c->level);
        out->pose_i.q = turn(mc_v3(0, 1, 0), 0.5 * CAD_PI);
        out->pose_j.q = turn(mc_v3(1, 0, 0), 0.5 * CAD_PI);
        out->pose_j.p = mc_v3(0.0, 0.0, 19.8);
    }
    if (out->mesh_i == NULL || out->mesh_j == NULL)
    {
        scene_pair_destroy(out);
        return -1;
    }
    return 0;
}

const scene_source scene_source_cad = {scene_cad_count, scene_cad_name, scene_make_cad, "could not be built"};
