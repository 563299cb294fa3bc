// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of the shape query (shape.h): two shapes, each a sphere, socket, plane, cylinder, hole or one of
// tests/fuzz/fuzz_meshes.h's meshes, with fuzzer-chosen sizes (tame or garbage) and poses, queried both ways round.
// Checked: the status (invalid sizes and poses refused, two unbounded solids refused, unsupported pairs refused, the
// capacity rule), every returned number finite, the area and radius non-negative, a unit normal or a zero one with
// zero area, the volume positive and within the smaller bounded solid, and the second order the mirror of the first
// (same volume, area and depth; normal negated).
#include "fuzz_meshes.h"

#include <float.h>

static mc_workspace* s_ws;

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    mc_set_assert_fcn(fuzz_assert_trap);
    fuzz_shapes_init();
    if (mc_workspace_create(&s_ws) != MC_OK)
    {
        abort();
    }
    return 0;
}

typedef struct side
{
    mc_shape shape;
    mc_mesh* mesh;
    mc_mesh_report rep;
    mc_pose pose;
    double volume; // of the solid, INFINITY when unbounded
} side;

static side* s_sides;

static void describe_input(void)
{
    static const char* kinds[] = {"mesh", "sphere", "plane", "cylinder"};
    for (int k = 0; k < 2; ++k)
    {
        const side* q = &s_sides[k];
        fprintf(stderr,
                "shape %d: %s, radius %a, length %a, flip %d, mesh volume %g; pose p (%a %a %a) q (%a %a %a %a)\n", k,
                kinds[q->shape.type], q->shape.radius, q->shape.length, q->shape.flip,
                q->mesh != NULL ? q->rep.volume : 0.0, q->pose.p.x, q->pose.p.y, q->pose.p.z, q->pose.q.w, q->pose.q.x,
                q->pose.q.y, q->pose.q.z);
    }
}

/// A size: mostly tame (1/8 .. 32), sometimes anything (zero, negative, huge, NaN).
static double fuzz_size(fuzz_bytes* in)
{
    uint8_t mode = fuzz_u8(in);
    return mode < 200 ? (1.0 + (double)fuzz_u8(in)) / 8.0 : fuzz_real(in);
}

static bool make_side(fuzz_bytes* in, side* s)
{
    memset(s, 0, sizeof *s);
    uint8_t kind = fuzz_u8(in) % 6;
    s->pose = fuzz_pose(in);
    s->volume = INFINITY;
    switch (kind)
    {
    case 0:
    {
        int shape = fuzz_u8(in) % FUZZ_SHAPE_COUNT;
        if (fuzz_shape_mesh(shape, 1.0, (fuzz_u8(in) & 7) == 0, &s->mesh, &s->rep) != MC_OK)
        {
            return false;
        }
        s->shape = mc_shape_mesh(s->mesh);
        s->volume = s->rep.flipped ? INFINITY : s->rep.volume;
        return true;
    }
    case 1:
    case 2:
        s->shape = mc_shape_sphere(fuzz_size(in));
        s->shape.flip = kind == 2;
        s->volume = kind == 2 ? INFINITY : 4.0 / 3.0 * 3.14159265358979323846 * pow(s->shape.radius, 3.0);
        return true;
    case 3:
        s->shape = mc_shape_plane();
        return true;
    default:
        s->shape = mc_shape_cylinder(fuzz_size(in), fuzz_size(in));
        s->shape.flip = kind == 5;
        s->volume = kind == 5 ? INFINITY : 3.14159265358979323846 * s->shape.radius * s->shape.radius * s->shape.length;
        return true;
    }
}

/// A box around a bounded side in the world frame (centre *c, half extents *h); false for an unbounded one.
static bool side_box(const side* s, mc_vec3* c, mc_vec3* h)
{
    mc_pose p = s->pose;
    p.q = mc_quat_normalize(p.q);
    if (s->mesh != NULL && !s->rep.flipped)
    {
        mc_mat33 r = mc_quat_to_mat33(p.q);
        mc_vec3 lc = mc_scale(mc_add(s->rep.bbox_min, s->rep.bbox_max), 0.5);
        mc_vec3 lh = mc_scale(mc_sub(s->rep.bbox_max, s->rep.bbox_min), 0.5);
        *c = mc_pose_transform(&p, lc);
        double e[3];
        for (int i = 0; i < 3; ++i)
        {
            e[i] = fabs(r.m[i][0]) * lh.x + fabs(r.m[i][1]) * lh.y + fabs(r.m[i][2]) * lh.z;
        }
        *h = mc_v3(e[0], e[1], e[2]);
        return true;
    }
    if ((s->shape.type == MC_SHAPE_SPHERE || s->shape.type == MC_SHAPE_CYLINDER) && !s->shape.flip)
    {
        double e = s->shape.radius + (s->shape.type == MC_SHAPE_CYLINDER ? 0.5 * s->shape.length : 0.0);
        *c = p.p;
        *h = mc_v3(e, e, e);
        return true;
    }
    return false;
}

/// A region's centroid lies in both bounded solids, so in both boxes, to 1e-6 of the two boxes' sizes and distances
/// from the origin (the rounding of coordinates of that size, with room: a ball's centroid summed about its centre was
/// 1e3 off for a ball 2^16 times a torus's size; tests/fuzz/open/README.md).
static void check_centroid(const mc_region* g, uint32_t k, const side s[2])
{
    mc_vec3 c[2], h[2];
    bool bounded[2] = {side_box(&s[0], &c[0], &h[0]), side_box(&s[1], &c[1], &h[1])};
    double scale = 0.0;
    for (int i = 0; i < 2; ++i)
    {
        scale += bounded[i] ? mc_length(h[i]) + mc_length(c[i]) : 0.0;
    }
    double tol = 1e-6 * scale;
    for (int i = 0; i < 2; ++i)
    {
        if (!bounded[i])
        {
            continue;
        }
        mc_vec3 d = mc_sub(g->centroid, c[i]);
        FUZZ_CHECK(fabs(d.x) <= h[i].x + tol && fabs(d.y) <= h[i].y + tol && fabs(d.z) <= h[i].z + tol,
                   "region %u: centroid (%.17g %.17g %.17g) outside shape %d's box", k, g->centroid.x, g->centroid.y,
                   g->centroid.z, i);
    }
}

/// Open findings (tests/fuzz/open/README.md; MC_FUZZ_STRICT=1 checks them too): a cylinder far thinner or shorter
/// than its other size or the mesh (below 2^-40 of it) may take too much volume (a needle along edges of the hollow
/// cube: 1.13 times its own) or put its region's centroid outside the mesh's box (a disk 1e-273 thick through a
/// tetrahedron: 0.1 outside).
static bool scale_beyond_accuracy(const side s[2])
{
    for (int k = 0; k < 2; ++k)
    {
        const side* a = &s[k];
        const side* o = &s[1 - k];
        double diag = o->mesh != NULL ? mc_length(mc_sub(o->rep.bbox_max, o->rep.bbox_min)) : 0.0;
        double lo = fmin(a->shape.radius, a->shape.length), hi = fmax(fmax(a->shape.radius, a->shape.length), diag);
        if (a->shape.type == MC_SHAPE_CYLINDER && lo < 0x1p-40 * hi)
        {
            return true;
        }
    }
    return false;
}

static bool size_valid(const mc_shape* s)
{
    bool r = isfinite(s->radius) && s->radius > 0.0 && s->radius <= MC_COORDINATE_MAX;
    bool l = isfinite(s->length) && s->length > 0.0 && s->length <= MC_COORDINATE_MAX;
    return s->type == MC_SHAPE_MESH || s->type == MC_SHAPE_PLANE || (s->type == MC_SHAPE_SPHERE && r) ||
           (s->type == MC_SHAPE_CYLINDER && r && l);
}

static void check_region(const mc_region* g, uint32_t k, double bound)
{
    FUZZ_CHECK(isfinite(g->volume) && isfinite(g->area) && isfinite(g->radius) && isfinite(g->depth) &&
                   fuzz_vec3_finite(g->centroid) && fuzz_vec3_finite(g->normal) && fuzz_vec3_finite(g->point_i) &&
                   fuzz_vec3_finite(g->point_j) && fuzz_vec3_finite(g->s_i) && fuzz_vec3_finite(g->s_j),
               "region %u: a non-finite number", k);
    FUZZ_CHECK(g->area >= 0.0 && g->radius >= 0.0, "region %u: area %g radius %g", k, g->area, g->radius);
    double nl = mc_length(g->normal);
    FUZZ_CHECK((g->area == 0.0 && nl == 0.0) || fabs(nl - 1.0) < 1e-9, "region %u: |normal| %.17g, area %g", k, nl,
               g->area);
    // Rounding: sums of terms of the solids' size, and a ball centred on a mesh edge is moved by 2^-27 R first (1e-8
    // relative): 1e-7 of the bound.
    FUZZ_CHECK(g->volume <= bound * (1.0 + 1e-7) + 1e-300, "region %u: volume %.17g above the smaller solid's %.17g", k,
               g->volume, bound);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_bytes in = {data, size};
    int64_t bytes0 = mc_get_byte_count() - (int64_t)mc_workspace_get_byte_count(s_ws);
    side s[2];
    memset(s, 0, sizeof s);
    s_sides = s;
    fuzz_describe = describe_input;
    if (make_side(&in, &s[0]) && make_side(&in, &s[1]))
    {
        uint32_t capacity = fuzz_u8(&in) % 9;
        mc_region g[8], h[8];
        uint32_t n = 0, m = 0;
        mc_status st =
            mc_query_shape_regions(&s[0].shape, &s[0].pose, &s[1].shape, &s[1].pose, NULL, s_ws, g, capacity, &n, NULL);
        mc_status back =
            mc_query_shape_regions(&s[1].shape, &s[1].pose, &s[0].shape, &s[0].pose, NULL, s_ws, h, 8, &m, NULL);
        bool valid = size_valid(&s[0].shape) && size_valid(&s[1].shape) && mc_pose_is_valid(&s[0].pose) &&
                     mc_pose_is_valid(&s[1].pose);
        if (!valid)
        {
            FUZZ_CHECK(st == MC_ERR_INVALID_ARGUMENT && back == MC_ERR_INVALID_ARGUMENT, "status %d / %d for bad input",
                       (int)st, (int)back);
        }
        else if (isinf(s[0].volume) && isinf(s[1].volume))
        {
            FUZZ_CHECK(st == MC_ERR_UNBOUNDED && back == MC_ERR_UNBOUNDED, "status %d / %d for two unbounded solids",
                       (int)st, (int)back);
        }
        else if (st == MC_ERR_UNSUPPORTED || back == MC_ERR_UNSUPPORTED)
        {
            FUZZ_CHECK(st == back, "unsupported one way round only (%d / %d)", (int)st, (int)back);
        }
        else if (s[0].mesh != NULL && s[1].mesh != NULL)
        {
            // Two meshes: mc_query_regions, fuzzed by fuzz_query with its own tolerances.
        }
        else if (st != MC_ERR_OUT_OF_RANGE && back != MC_ERR_OUT_OF_RANGE && back != MC_ERR_CAPACITY)
        {
            // (Sizes near the range's ends may overflow to a non-finite result: refused, MC_ERR_OUT_OF_RANGE.)
            FUZZ_CHECK(st == MC_OK || st == MC_ERR_CAPACITY, "status %d", (int)st);
            FUZZ_CHECK((st == MC_ERR_CAPACITY) == (n > capacity), "status %d with %u regions, capacity %u", (int)st, n,
                       capacity);
            FUZZ_CHECK(back == MC_OK && n == m, "%u regions one way, %u the other (status %d)", n, m, (int)back);
            double bound = fmin(s[0].volume, s[1].volume);
            // A cavity's shell that the plane cuts is a region of its own, of negative volume (shape.h): with a cavity
            // the bound holds for the total, not for each region.
            bool cavity = (s[0].mesh != NULL && s[0].rep.inward_components > 0) ||
                          (s[1].mesh != NULL && s[1].rep.inward_components > 0);
            double total = 0.0;
            for (uint32_t k = 0; k < m; ++k)
            {
                total += h[k].volume;
            }
            bool open_scale = !fuzz_strict() && scale_beyond_accuracy(s);
            FUZZ_CHECK(open_scale || total <= bound * (1.0 + 1e-7) + 1e-300,
                       "total volume %.17g above the smaller solid's %.17g", total, bound);
            for (uint32_t k = 0; k < m; ++k)
            {
                check_region(&h[k], k, cavity || open_scale ? INFINITY : bound);
                // The centroid check runs with MC_FUZZ_STRICT=1 only: it has open findings (a ball centred on an edge
                // whose sphere passes through a vertex of the faces fanned there, tests/fuzz/open/README.md). (A
                // region within the rounding of the solids' terms, a touch at a vertex 1e-17 deep, is noise, its
                // centroid noise over noise: not checked below 1e-12 of the smaller solid.)
                if (fuzz_strict() && !cavity && h[k].volume > 1e-12 * bound)
                {
                    check_centroid(&h[k], k, s);
                }
                if (k < capacity)
                {
                    check_region(&g[k], k, cavity || open_scale ? INFINITY : bound);
                    double tol = 1e-12 * fmax(fabs(g[k].volume), 1e-300); // the same computation mirrored
                    FUZZ_CHECK(fabs(g[k].volume - h[k].volume) <= tol &&
                                   fabs(g[k].depth - h[k].depth) <= 1e-12 * fmax(fabs(g[k].depth), 1e-300),
                               "region %u: volume %.17g / %.17g, depth %.17g / %.17g both ways round", k, g[k].volume,
                               h[k].volume, g[k].depth, h[k].depth);
                }
            }
        }
    }
    mc_mesh_destroy(s[0].mesh);
    mc_mesh_destroy(s[1].mesh);
    fuzz_check_bytes(bytes0 + (int64_t)mc_workspace_get_byte_count(s_ws), "shapes");
    return 0;
}
