// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the shape queries (include/meshcontact/shape.h): sphere-plane and sphere-sphere against closed forms
// written independently here, mesh-plane against the exact mesh-mesh pipeline with a large box as the floor, both
// orders of every pair, and the bad input.
#include "meshcontact/meshcontact.h"
#include "scenes.h"
#include "src/contact/gauss.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_REGIONS 16

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static mc_pose at(double x, double y, double z)
{
    mc_pose p = mc_pose_identity();
    p.p = mc_v3(x, y, z);
    return p;
}

static mc_quat axis_angle(mc_vec3 axis, double angle)
{
    mc_vec3 a = mc_normalize(axis);
    mc_quat q = {cos(angle / 2), a.x * sin(angle / 2), a.y * sin(angle / 2), a.z * sin(angle / 2)};
    return q;
}

/// Query (a, b) and (b, a); the second must mirror the first. Returns the first's regions.
static uint32_t query_both(const mc_shape* a, mc_pose pa, const mc_shape* b, mc_pose pb, mc_region* out)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint32_t n = 0, m = 0;
    mc_region back[MAX_REGIONS];
    cr_assert_eq(mc_query_shape_regions(a, &pa, b, &pb, NULL, ws, out, MAX_REGIONS, &n, NULL), MC_OK);
    cr_assert_eq(mc_query_shape_regions(b, &pb, a, &pa, NULL, ws, back, MAX_REGIONS, &m, NULL), MC_OK);
    cr_assert_eq(n, m);
    for (uint32_t k = 0; k < n; ++k)
    {
        // The same region seen from the other side: normal and the I/J fields swapped, the rest bitwise equal.
        cr_assert(out[k].volume == back[k].volume && out[k].area == back[k].area && out[k].depth == back[k].depth);
        cr_assert(out[k].normal.x == -back[k].normal.x && out[k].normal.y == -back[k].normal.y &&
                  out[k].normal.z == -back[k].normal.z);
        cr_assert(memcmp(&out[k].point_i, &back[k].point_j, sizeof(mc_vec3)) == 0);
        cr_assert(memcmp(&out[k].s_i, &back[k].s_j, sizeof(mc_vec3)) == 0);
    }
    mc_workspace_destroy(ws);
    return n;
}

// Sphere on a plane: depth exactly the penetration, area pi (2 R h - h^2), volume and centroid of the cap, for h from
// 1e-6 R to 1.5 R. The centre's height is R - h rounded; the true penetration is then R minus that height, which
// double subtraction gives exactly (Sterbenz: both within a factor 2), so depth and the closed forms use it.
Test(analytic, sphere_on_plane_matches_the_cap_closed_form)
{
    double radii[2] = {1.0, 0.05};
    double fractions[6] = {1e-6, 1e-4, 1e-3, 0.01, 0.5, 1.5};
    for (int ri = 0; ri < 2; ++ri)
    {
        double r = radii[ri];
        mc_shape ball = mc_shape_sphere(r), floor = mc_shape_plane();
        for (int fi = 0; fi < 6; ++fi)
        {
            double zc = r - fractions[fi] * r;
            double h = r - zc;
            mc_region g[MAX_REGIONS];
            cr_assert_eq(query_both(&ball, at(0.3, -0.2, zc), &floor, at(0, 0, 0), g), 1u);
            // Tolerances: the closed forms below are evaluated in other arrangements of the same operations; a few
            // ulps (1e-14 relative) apart, except the area at small h where 2Rh - h^2 vs h (2R - h) differ by ~1e-12.
            cr_assert(rel(g[0].depth, h) < 1e-15, "R %g h %g: depth %.17g", r, h, g[0].depth);
            double v = PI * h * h * r - PI * h * h * h / 3.0;
            cr_assert(rel(g[0].volume, v) < 1e-12, "R %g h %g: volume %.17g want %.17g", r, h, g[0].volume, v);
            double a = PI * (2.0 * r * h - h * h);
            cr_assert(rel(g[0].area, a) < 1e-12, "R %g h %g: area %.17g want %.17g", r, h, g[0].area, a);
            // Centroid of the cap: z = zc - 3 (2R - h)^2 / (4 (3R - h)) (the depth of the cap's centroid below the
            // centre), x and y those of the centre.
            double zg = zc - 0.75 * (2.0 * r - h) * (2.0 * r - h) / (3.0 * r - h);
            cr_assert(fabs(g[0].centroid.z - zg) < 1e-13 * r && g[0].centroid.x == 0.3 && g[0].centroid.y == -0.2);
            cr_assert(g[0].normal.z == -1.0, "normal from the ball into the floor");
            cr_assert(fabs(g[0].point_i.z - (zc - r)) < 1e-15 && g[0].point_j.z == 0.0);
            // The IMPACT force of the depth: k h^e to rounding.
            double fn = mc_impact_force(g[0].depth, 0.0, 1e8, 1.5, 0.0, 1e-4);
            cr_assert(rel(fn, 1e8 * pow(h, 1.5)) < 1e-12);
        }
        // Entirely below: the whole ball, no contact surface.
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&ball, at(0, 0, -3.0 * r), &floor, at(0, 0, 0), g), 1u);
        cr_assert(rel(g[0].volume, 4.0 / 3.0 * PI * r * r * r) < 1e-15 && g[0].area == 0.0);
        // Above: nothing.
        cr_assert_eq(query_both(&ball, at(0, 0, 1.000001 * r), &floor, at(0, 0, 0), g), 0u);
    }
    // A turned, moved floor: the same cap along the floor's normal.
    mc_pose floor_pose = at(1.0, 2.0, 3.0);
    floor_pose.q = axis_angle(mc_v3(1, 1, 0), 0.7);
    mc_vec3 up = mc_quat_rotate(floor_pose.q, mc_v3(0, 0, 1));
    mc_vec3 c = mc_add(floor_pose.p, mc_scale(up, 0.75));
    mc_shape ball = mc_shape_sphere(1.0), floor = mc_shape_plane();
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&ball, at(c.x, c.y, c.z), &floor, floor_pose, g), 1u);
    cr_assert(fabs(g[0].depth - 0.25) < 1e-14 && rel(g[0].area, PI * (0.5 - 0.0625)) < 1e-13);
    cr_assert(mc_length(mc_add(g[0].normal, up)) < 1e-15);
}

/// Lens of two balls, the textbook form (not the caps the library sums).
static double lens_volume(double r1, double r2, double d)
{
    double s = r1 + r2 - d;
    return PI * s * s * (d * d + 2.0 * d * (r1 + r2) - 3.0 * (r1 - r2) * (r1 - r2)) / (12.0 * d);
}

// Two balls: the lens; a ball in a spherical socket (the socket's solid is the outside of its sphere): the ball minus
// the lens; contained balls whole.
Test(analytic, sphere_sphere_external_and_in_a_socket_match_closed_forms)
{
    mc_shape a = mc_shape_sphere(1.0), b = mc_shape_sphere(0.6);
    double ds[4] = {1.55, 1.2, 0.9, 0.5};
    for (int k = 0; k < 4; ++k)
    {
        double d = ds[k];
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&a, at(0, 0, 0), &b, at(d, 0, 0), g), 1u);
        cr_assert(rel(g[0].volume, lens_volume(1.0, 0.6, d)) < 1e-13, "d %g: %.17g vs %.17g", d, g[0].volume,
                  lens_volume(1.0, 0.6, d));
        double x = (d * d + 1.0 - 0.36) / (2.0 * d); // the meeting plane's distance from the first centre
        cr_assert(rel(g[0].area, PI * (1.0 - x * x)) < 1e-12);
        cr_assert(rel(g[0].depth, 1.6 - d) < 1e-14 && g[0].normal.x == 1.0);
    }
    // The small ball inside the large one: its volume.
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&a, at(0, 0, 0), &b, at(0.3, 0, 0), g), 1u);
    cr_assert(rel(g[0].volume, 4.0 / 3.0 * PI * 0.216) < 1e-15 && g[0].area == 0.0);
    // A ball of radius 0.6 in a socket of radius 1 (solid outside), poking out by 0.6 + d - 1.
    mc_shape socket = mc_shape_sphere(1.0);
    socket.flip = true;
    double dsock[3] = {1.1, 0.8, 0.55};
    for (int k = 0; k < 3; ++k)
    {
        double d = dsock[k];
        cr_assert_eq(query_both(&b, at(d, 0, 0), &socket, at(0, 0, 0), g), 1u);
        double v = 4.0 / 3.0 * PI * 0.216 - lens_volume(1.0, 0.6, d);
        cr_assert(rel(g[0].volume, v) < 1e-12, "socket d %g: %.17g vs %.17g", d, g[0].volume, v);
        cr_assert(rel(g[0].depth, d + 0.6 - 1.0) < 1e-13 && g[0].normal.x == 1.0, "pushes the socket outward");
    }
    // Inside the socket's sphere without touching it: nothing. Two sockets: unbounded.
    uint32_t n = 0;
    cr_assert_eq(query_both(&b, at(0.3, 0, 0), &socket, at(0, 0, 0), g), 0u);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose o = mc_pose_identity();
    cr_assert_eq(mc_query_shape_regions(&socket, &o, &socket, &o, NULL, ws, g, MAX_REGIONS, &n, NULL),
                 MC_ERR_UNBOUNDED);
    mc_workspace_destroy(ws);
}

/// The regions of mesh m at pose p against a floor: the shape query, and the mesh pipeline with a 12-triangle box
/// whose top face is the floor (exact and independent).
static void check_mesh_on_floor(const mc_mesh* m, mc_pose p, uint32_t want_regions, const char* name)
{
    mc_mesh* slab = scene_box(mc_v3(-100, -100, -100), mc_v3(100, 100, 0));
    mc_shape mesh = mc_shape_mesh(m), floor = mc_shape_plane();
    mc_region g[MAX_REGIONS], o[MAX_REGIONS];
    uint32_t n = query_both(&mesh, p, &floor, at(0, 0, 0), g);
    cr_assert_eq(n, want_regions, "%s: %u regions", name, n);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose id = mc_pose_identity();
    uint32_t no = 0;
    cr_assert_eq(mc_query_regions(m, &p, slab, &id, NULL, ws, o, MAX_REGIONS, &no, NULL), MC_OK);
    cr_assert_eq(no, n, "%s: the mesh pipeline finds %u regions", name, no);
    for (uint32_t k = 0; k < n; ++k)
    {
        // Rounding: both sum O(1000) terms of the mesh's size; the cut points are computed differently (1e-12).
        cr_assert(rel(g[k].volume, o[k].volume) < 1e-11, "%s %u: volume %.17g vs %.17g", name, k, g[k].volume,
                  o[k].volume);
        cr_assert(mc_length(mc_sub(g[k].centroid, o[k].centroid)) < 1e-11, "%s %u: centroid", name, k);
        cr_assert(rel(g[k].area, o[k].area) < 1e-11, "%s %u: area %.17g vs %.17g", name, k, g[k].area, o[k].area);
        cr_assert(mc_length(mc_sub(g[k].normal, o[k].normal)) < 1e-11, "%s %u: normal", name, k);
        // Depth: the deepest vertex below the floor; at least the mesh pipeline's Adams depth (which measures from
        // the centroid, not the deepest point).
        cr_assert(g[k].depth > 0.0 && fabs(g[k].point_j.z) < 1e-14 && fabs(g[k].point_i.z + g[k].depth) < 1e-14);
    }
    mc_workspace_destroy(ws);
    mc_mesh_destroy(slab);
}

// A mesh against a plane: the polyhedral clip equals the exact mesh pipeline against a box whose top face is the plane.
Test(analytic, mesh_on_plane_equals_the_mesh_pipeline)
{
    mc_mesh* sphere = scene_uv_sphere(1.0, 4000);
    mc_mesh* torus = scene_torus(1.0, 0.3, 3000);
    mc_pose p = at(0.1, 0.2, 0.9);
    p.q = axis_angle(mc_v3(1, 2, 3), 0.5);
    check_mesh_on_floor(sphere, p, 1, "sphere");
    // A standing torus (axis horizontal) dips into the floor with the lower arc of its tube: one region.
    mc_pose t = at(0.0, 0.0, 1.2);
    t.q = axis_angle(mc_v3(1, 0, 0), PI / 2);
    check_mesh_on_floor(torus, t, 1, "standing torus");
    t.q = axis_angle(mc_v3(1, 0.1, 0), PI / 2);
    t.p.z = 0.9; // deeper and slightly turned: still one region
    check_mesh_on_floor(torus, t, 1, "standing torus, deeper");
    // Lying torus whose hole is over the floor: an annulus, one region.
    check_mesh_on_floor(torus, at(0.05, 0.0, 0.1), 1, "lying torus");
    // The whole sphere below: its volume, no contact surface.
    mc_shape s = mc_shape_mesh(sphere), floor = mc_shape_plane();
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&s, at(0, 0, -5.0), &floor, at(0, 0, 0), g), 1u);
    cr_assert(rel(g[0].volume, mc_mesh_get_report(sphere)->volume) < 1e-13 && g[0].area < 1e-12);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(torus);
}

// Two spheres as one mesh dipping into the floor apart: two regions.
Test(analytic, mesh_on_plane_finds_every_region)
{
    mc_mesh* one = scene_uv_sphere(0.5, 2000);
    const mc_vec3* p = mc_mesh_get_positions(one);
    uint32_t nv = mc_mesh_get_vertex_count(one), nt = mc_mesh_get_triangle_count(one);
    const uint32_t* idx = mc_mesh_get_indices(one);
    double* pos = malloc(sizeof(double) * 6 * nv);
    uint32_t* ind = malloc(sizeof(uint32_t) * 6 * nt);
    for (uint32_t v = 0; v < nv; ++v)
    {
        for (int s = 0; s < 2; ++s)
        {
            pos[3 * (nv * (uint32_t)s + v) + 0] = p[v].x + (s ? 2.0 : 0.0);
            pos[3 * (nv * (uint32_t)s + v) + 1] = p[v].y;
            pos[3 * (nv * (uint32_t)s + v) + 2] = p[v].z + (s ? 0.1 : 0.0);
        }
    }
    for (uint32_t k = 0; k < 3 * nt; ++k)
    {
        ind[k] = idx[k];
        ind[3 * nt + k] = idx[k] + nv;
    }
    mc_mesh* two = scene_mesh_from_arrays(pos, 2 * nv, ind, 2 * nt);
    free(pos);
    free(ind);
    check_mesh_on_floor(two, at(0, 0, 0.3), 2, "two spheres");
    mc_mesh_destroy(one);
    mc_mesh_destroy(two);
}

Test(analytic, bad_input_is_refused)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose o = mc_pose_identity();
    mc_region g[2];
    uint32_t n = 7;
    mc_shape plane = mc_shape_plane(), bad = mc_shape_sphere(-1.0), nan = mc_shape_sphere(NAN);
    mc_shape ball = mc_shape_sphere(1.0), nomesh = mc_shape_mesh(NULL);
    cr_assert_eq(mc_query_shape_regions(&plane, &o, &plane, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNBOUNDED);
    cr_assert_eq(mc_query_shape_regions(&bad, &o, &plane, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_query_shape_regions(&nan, &o, &plane, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_query_shape_regions(&nomesh, &o, &plane, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    mc_mesh* m = scene_uv_sphere(1.0, 500);
    mc_shape mesh = mc_shape_mesh(m);
    mc_shape socket = mc_shape_sphere(1.0);
    socket.flip = true;
    cr_assert_eq(mc_query_shape_regions(&socket, &o, &mesh, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&mesh, &o, &socket, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNSUPPORTED);
    // Capacity: the count is still reported.
    mc_pose low = at(0, 0, 0.5);
    cr_assert_eq(mc_query_shape_regions(&ball, &low, &plane, &o, NULL, ws, NULL, 0, &n, NULL), MC_ERR_CAPACITY);
    cr_assert_eq(n, 1u);
    cr_assert_eq(mc_query_shape_regions(&mesh, &low, &plane, &o, NULL, ws, NULL, 0, &n, NULL), MC_ERR_CAPACITY);
    cr_assert_eq(n, 1u);
    mc_pose far = at(1e300, 0, 0);
    cr_assert_eq(mc_query_shape_regions(&ball, &far, &plane, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    mc_mesh_destroy(m);
    mc_workspace_destroy(ws);
}

// A ball against a mesh: on a 12-triangle plate it is the cap of the sphere-plane closed form (the disk crossing the
// top face's diagonal), at a box's face, edge and corner half, a quarter and an eighth of the ball, inside the box
// the whole ball.
Test(analytic, sphere_on_a_mesh_matches_closed_forms)
{
    mc_mesh* plate = scene_box(mc_v3(-2, -2, -1), mc_v3(2, 2, 0));
    double fractions[5] = {1e-6, 1e-4, 0.01, 0.5, 1.5};
    for (int fi = 0; fi < 5; ++fi)
    {
        double r = 0.05, zc = r - fractions[fi] * r, h = r - zc;
        mc_shape ball = mc_shape_sphere(r), mesh = mc_shape_mesh(plate), floor = mc_shape_plane();
        mc_region g[MAX_REGIONS], p[MAX_REGIONS];
        cr_assert_eq(query_both(&ball, at(0.01, 0.02, zc), &mesh, at(0, 0, 0), g), 1u);
        cr_assert_eq(query_both(&ball, at(0.01, 0.02, zc), &floor, at(0, 0, 0), p), 1u);
        // The plate's top face holds the whole disk: the same cap. Tolerances: sums of a few dozen solid-angle and
        // area terms of the ball's size (1e-12 of the ball's volume, relative to the cap: ~ (R/h)^2 1e-16).
        double vb = 4.0 / 3.0 * PI * r * r * r;
        cr_assert(fabs(g[0].volume - p[0].volume) < 1e-13 * vb, "h/R %g: volume %.17g vs %.17g", fractions[fi],
                  g[0].volume, p[0].volume);
        cr_assert(rel(g[0].area, p[0].area) < 1e-12, "h/R %g: area %.17g vs %.17g", fractions[fi], g[0].area,
                  p[0].area);
        cr_assert(rel(g[0].depth, h) < 1e-15, "h/R %g: depth %.17g want %.17g", fractions[fi], g[0].depth, h);
        cr_assert(mc_length(mc_sub(g[0].centroid, p[0].centroid)) < 1e-12 * r, "h/R %g: centroid", fractions[fi]);
        cr_assert(mc_length(mc_sub(g[0].normal, p[0].normal)) < 1e-12);
    }
    // Rolling across the plate (over the diagonal of its top face) at a fixed height: no ripple. Depth and force are
    // the same to the last bit, the volume and area to rounding (issue 13 asks below 1e-9 for an analytic ball).
    {
        double r = 0.05, zc = r - 1e-3 * r;
        mc_shape ball = mc_shape_sphere(r), mesh = mc_shape_mesh(plate);
        mc_region first[MAX_REGIONS], g[MAX_REGIONS];
        cr_assert_eq(query_both(&ball, at(-1.0, -1.3, zc), &mesh, at(0, 0, 0), first), 1u);
        double worst = 0.0;
        for (int k = 1; k <= 100; ++k)
        {
            double x = -1.0 + 0.02 * k;
            cr_assert_eq(query_both(&ball, at(x, x - 0.3, zc), &mesh, at(0, 0, 0), g), 1u);
            cr_assert(g[0].depth == first[0].depth);
            worst = fmax(worst, fmax(rel(g[0].volume, first[0].volume), rel(g[0].area, first[0].area)));
        }
        cr_assert(worst < 1e-12, "ripple %g", worst);
    }
    // A unit box's face, edge and corner: a half, a quarter and an eighth of the ball; inside: the whole ball.
    mc_mesh* box = scene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_shape ball = mc_shape_sphere(0.2), mesh = mc_shape_mesh(box);
    double vb = 4.0 / 3.0 * PI * 0.008;
    struct
    {
        double x, y, z, part;
    } at_box[5] = {
        {0.5, 0.5, 1.0, 0.5},
        {0.5, 1.0, 1.0, 0.25},
        {1.0, 1.0, 1.0, 0.125},
        {0.5, 0.4, 0.6, 1.0},
        {0.5, 0.5, 0.9, 1.0 - PI * 0.01 * (0.6 - 0.1) / 3.0 / (4.0 / 3.0 * PI * 0.008)}}; // minus a cap of 0.1
    for (int k = 0; k < 5; ++k)
    {
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&ball, at(at_box[k].x, at_box[k].y, at_box[k].z), &mesh, at(0, 0, 0), g), 1u);
        // On a face or inside: exact to rounding. On an edge or a corner the centre is moved by 2^-27 R first (see
        // sphere_mesh): 1e-7 relative.
        double tol = k == 1 || k == 2 ? 1e-7 : 1e-13;
        cr_assert(rel(g[0].volume, at_box[k].part * vb) < tol, "case %d: %.17g want %.17g", k, g[0].volume,
                  at_box[k].part * vb);
    }
    mc_mesh_destroy(plate);
    mc_mesh_destroy(box);
}

// A ball against a fine tessellated ball (mesh): converges to the lens of the closed form as the mesh refines.
Test(analytic, sphere_on_a_tessellated_sphere_converges_to_the_lens)
{
    mc_shape ball = mc_shape_sphere(1.0);
    double last = INFINITY;
    int sizes[3] = {2000, 20000, 200000};
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh* m = scene_uv_sphere(0.6, (uint32_t)sizes[k]);
        mc_shape mesh = mc_shape_mesh(m);
        mc_region g[MAX_REGIONS];
        cr_assert_eq(query_both(&ball, at(0, 0, 0), &mesh, at(1.2, 0.01, 0.02), g), 1u);
        double want = lens_volume(1.0, 0.6, sqrt(1.44 + 0.0001 + 0.0004));
        double err = fabs(g[0].volume - want) / want;
        // The tessellation's own volume error is O(1/n): each tenfold refinement cuts the error about tenfold.
        cr_assert(err < 0.3 * last || err < 1e-4, "%d triangles: error %g after %g", sizes[k], err, last);
        last = err;
        mc_mesh_destroy(m);
    }
    cr_assert(last < 1e-3, "200k triangles: lens error %g", last);
}

/// Area of the lens of circles r1, r2 with centres d apart, the textbook form, in long double.
static double lens_area(double r1, double r2, double d)
{
    long double a = r1, b = r2, c = d;
    long double k = (-c + a + b) * (c + a - b) * (c - a + b) * (c + a + b);
    return (double)(a * a * acosl((c * c + a * a - b * b) / (2 * c * a)) +
                    b * b * acosl((c * c + b * b - a * a) / (2 * c * b)) - 0.5L * sqrtl(k));
}

// Parallel cylinders: rollers side by side (the circles' lens times the length), a thin overlap, a pin in a hole
// (the pin's circle minus the lens over the hole's slab), discs stacked end to end (axial depth).
Test(analytic, parallel_cylinders_match_closed_forms)
{
    mc_shape big = mc_shape_cylinder(1.0, 2.0), small = mc_shape_cylinder(0.5, 2.0);
    // Lying along x (both turned the same way), 1.3 apart in y.
    mc_quat along_x = axis_angle(mc_v3(0, 1, 0), PI / 2);
    mc_pose a = at(0, 0, 0), b = at(0, 1.3, 0);
    a.q = along_x;
    b.q = along_x;
    mc_region g[MAX_REGIONS];
    cr_assert_eq(query_both(&big, a, &small, b, g), 1u);
    double want = 2.0 * lens_area(1.0, 0.5, 1.3);
    cr_assert(rel(g[0].volume, want) < 1e-14, "%.17g vs %.17g", g[0].volume, want);
    cr_assert(rel(g[0].depth, 0.2) < 1e-14 && fabs(g[0].normal.y - 1.0) < 1e-15);
    double x = (1.69 + 1.0 - 0.25) / 2.6; // the common chord's distance from the first axis
    cr_assert(rel(g[0].area, 2.0 * 2.0 * sqrt(1.0 - x * x)) < 1e-13, "area %.17g", g[0].area);
    // A thin overlap: the segments' series (the direct form loses digits there; long double keeps about 1e-10).
    b.p.y = 1.5 - 1e-6;
    cr_assert_eq(query_both(&big, a, &small, b, g), 1u);
    want = 2.0 * lens_area(1.0, 0.5, 1.5 - 1e-6);
    cr_assert(rel(g[0].volume, want) < 1e-6, "thin: %.17g vs %.17g", g[0].volume, want);
    cr_assert(rel(g[0].depth, 1e-6) < 1e-9);
    // A pin of radius 0.5 and length 1 in a hole of radius 0.52 through a slab of thickness 2, 0.05 off centre.
    mc_shape pin = mc_shape_cylinder(0.5, 1.0), hole = mc_shape_cylinder(0.52, 2.0);
    hole.flip = true;
    cr_assert_eq(query_both(&pin, at(0.05, 0, 0.2), &hole, at(0, 0, 0), g), 1u);
    want = 1.0 * (PI * 0.25 - lens_area(0.5, 0.52, 0.05));
    cr_assert(rel(g[0].volume, want) < 1e-12, "pin: %.17g vs %.17g", g[0].volume, want);
    cr_assert(rel(g[0].depth, 0.03) < 1e-13 && g[0].normal.x > 0.999, "pushes the wall away from the hole's axis");
    // Centred in the hole: no contact.
    cr_assert_eq(query_both(&pin, at(0.01, 0, 0.2), &hole, at(0, 0, 0), g), 0u);
    // Discs stacked end to end, 0.01 into each other: the axial overlap.
    mc_shape disc = mc_shape_cylinder(1.0, 0.2);
    cr_assert_eq(query_both(&disc, at(0, 0, 0), &disc, at(0.1, 0, 0.19), g), 1u);
    cr_assert(rel(g[0].volume, 0.01 * lens_area(1.0, 1.0, 0.1)) < 1e-12 && rel(g[0].depth, 0.01) < 1e-12);
    // Not parallel, or a cylinder against a socket: not supported yet (against a plane: test_cylinder_plane; against
    // a ball or a mesh: test_cylinder_mesh).
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint32_t n = 0;
    mc_pose o = mc_pose_identity();
    mc_shape floor = mc_shape_plane(), ball = mc_shape_sphere(1.0), bad = mc_shape_cylinder(1.0, 0.0);
    ball.flip = true;
    cr_assert_eq(mc_query_shape_regions(&big, &a, &small, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&big, &o, &ball, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNSUPPORTED);
    cr_assert_eq(mc_query_shape_regions(&hole, &o, &floor, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNBOUNDED);
    cr_assert_eq(mc_query_shape_regions(&bad, &o, &floor, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(mc_query_shape_regions(&hole, &o, &hole, &o, NULL, ws, g, 2, &n, NULL), MC_ERR_UNBOUNDED);
    mc_workspace_destroy(ws);
}

// MC_DEPTH_SMOOTH on a tessellated ball (radius 0.05, chord tolerance 1e-4: the mesh of issue 13's ripple table)
// rolling on a 12-triangle plate at penetration h: the Adams depth ripples with the facets, the smooth depth is h for
// every roll angle (the vertices lie on the sphere and the plate's on its plane, so both fits are exact to rounding:
// the depth is the difference of numbers of order R = 0.05, about 1e-17 absolute, so 1e-9 relative of h >= 1e-4
// leaves a margin of 1e4 for the fit's conditioning). And two tessellated balls: r_i + r_j - |c_i - c_j|.
Test(analytic, smooth_depth_of_tessellated_balls_is_exact)
{
    const double radius = 0.05;
    mc_primitive_def pd = mc_default_primitive_def();
    pd.dims = mc_v3(radius, radius, radius);
    pd.chord_tolerance = 1e-4;
    mc_mesh* ball = NULL;
    cr_assert_eq(mc_mesh_create_primitive(&pd, &ball, NULL), MC_OK);
    mc_mesh* plate = scene_box(mc_v3(-1.0, -1.0, -0.5), mc_v3(1.0, 1.0, 0.0));
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_query_options smooth = mc_default_query_options();
    smooth.worker_count = 1;
    smooth.depth_method = MC_DEPTH_SMOOTH;
    mc_query_options adams = smooth;
    adams.depth_method = MC_DEPTH_ADAMS;
    const double depths[2] = {1e-3, 1e-4};
    for (int hk = 0; hk < 2; ++hk)
    {
        double h = depths[hk];
        double amin = INFINITY, amax = 0.0, smin = INFINITY, smax = 0.0;
        for (int step = 0; step < 60; ++step)
        {
            // rolling along x: turned about y by the angle that matches the travel
            double travel = 0.002 * step;
            mc_pose pj = at(travel, 0.0, radius - h);
            pj.q = axis_angle(mc_v3(0.0, 1.0, 0.0), travel / radius);
            mc_region rs, ra;
            uint32_t ns = 0, na = 0;
            mc_pose pi = mc_pose_identity();
            cr_assert_eq(mc_query_regions(plate, &pi, ball, &pj, &smooth, ws, &rs, 1, &ns, NULL), MC_OK);
            cr_assert_eq(mc_query_regions(plate, &pi, ball, &pj, &adams, ws, &ra, 1, &na, NULL), MC_OK);
            cr_assert_eq(ns, 1u);
            cr_assert_eq(na, 1u);
            cr_expect(rel(rs.depth, h) <= 1e-9, "h %g, step %d: smooth depth %.17g", h, step, rs.depth);
            cr_expect_eq(rs.volume, ra.volume); // only the depth changes
            amin = fmin(amin, ra.depth);
            amax = fmax(amax, ra.depth);
            smin = fmin(smin, rs.depth);
            smax = fmax(smax, rs.depth);
        }
        cr_log_info("h %g: Adams depth %.6g..%.6g (ripple %.3g), smooth %.12g..%.12g (ripple %.3g)", h, amin, amax,
                    (amax - amin) / h, smin, smax, (smax - smin) / h);
    }
    // two balls, centres 0.099 apart and turned: overlap 0.001
    mc_pose pi = at(0.0, 0.0, 0.0);
    mc_pose pj = at(0.099 * 0.6, 0.099 * 0.8, 0.0);
    pj.q = axis_angle(mc_v3(1.0, 2.0, 3.0), 0.7);
    mc_region r;
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(ball, &pi, ball, &pj, &smooth, ws, &r, 1, &n, NULL), MC_OK);
    cr_assert_eq(n, 1u);
    cr_expect(rel(r.depth, 0.001) <= 1e-9, "two balls: smooth depth %.17g", r.depth);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(ball);
}

/// A box mesh [-1, 1]^3, flipped when asked (the solid is then its outside).
static mc_mesh* cube_mesh(bool flip)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = MC_PRIMITIVE_BOX;
    d.dims = mc_v3(2, 2, 2);
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert_eq(mc_primitive_tessellate(&d, &pos, &nv, &idx, &nt, NULL), MC_OK);
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = pos;
    md.vertex_count = nv;
    md.indices = idx;
    md.triangle_count = nt;
    md.flip = flip;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create(&md, &m, NULL, NULL), MC_OK);
    mc_free_arrays(pos, idx);
    return m;
}

// mc_shape_pair_support says, from the kinds alone, what mc_query_shape_regions does: every kind and flip against
// every other, in both orders, queried overlapping with the axes aligned and with them crossed (0.3 rad).
Test(analytic, pair_support_matches_the_query)
{
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_mesh* meshes[2] = {cube_mesh(false), cube_mesh(true)};
    mc_shape kinds[8];
    int k = 0;
    for (int flip = 0; flip < 2; ++flip)
    {
        kinds[k++] = mc_shape_mesh(meshes[flip]);
        kinds[k] = mc_shape_sphere(0.7);
        kinds[k++].flip = flip;
        kinds[k] = mc_shape_cylinder(0.5, 1.5);
        kinds[k++].flip = flip;
    }
    kinds[k++] = mc_shape_plane();
    cr_assert_eq(k, 7);
    mc_pose aligned = at(0.1, 0.2, 0.3), crossed = aligned;
    crossed.q = axis_angle(mc_v3(1, 0, 0), 0.3);
    mc_region g[MAX_REGIONS];
    for (int a = 0; a < k; ++a)
    {
        for (int b = 0; b < k; ++b)
        {
            const mc_shape* sa = &kinds[a];
            const mc_shape* sb = &kinds[b];
            bool fa = sa->type == MC_SHAPE_MESH ? mc_mesh_get_report(sa->mesh)->flipped : sa->flip;
            bool fb = sb->type == MC_SHAPE_MESH ? mc_mesh_get_report(sb->mesh)->flipped : sb->flip;
            bool parallel = true;
            mc_status rule = mc_shape_pair_support(sa->type, fa, sb->type, fb, &parallel);
            mc_pose o = mc_pose_identity();
            uint32_t n = 0;
            mc_status at_aligned = mc_query_shape_regions(sa, &o, sb, &aligned, NULL, ws, g, MAX_REGIONS, &n, NULL);
            mc_status at_crossed = mc_query_shape_regions(sa, &o, sb, &crossed, NULL, ws, g, MAX_REGIONS, &n, NULL);
            cr_assert_eq(at_aligned, rule, "kinds %d (flip %d) and %d (flip %d): rule %s, query %s", sa->type, fa,
                         sb->type, fb, mc_status_string(rule), mc_status_string(at_aligned));
            mc_status want_crossed = rule == MC_OK && parallel ? MC_ERR_UNSUPPORTED : rule;
            cr_assert_eq(at_crossed, want_crossed, "kinds %d (flip %d) and %d (flip %d) crossed: %s", sa->type, fa,
                         sb->type, fb, mc_status_string(at_crossed));
            cr_assert(!parallel || (sa->type == MC_SHAPE_CYLINDER && sb->type == MC_SHAPE_CYLINDER));
        }
    }
    cr_assert_eq(mc_shape_pair_support((mc_shape_type)9, false, MC_SHAPE_MESH, false, NULL), MC_ERR_INVALID_ARGUMENT);
    mc_mesh_destroy(meshes[0]);
    mc_mesh_destroy(meshes[1]);
    mc_workspace_destroy(ws);
}

Test(analytic, a_ball_much_larger_than_a_mesh_keeps_its_volume_under_turns)
{
    // A ball whose surface cuts a mesh much smaller than it (R = 2^16, about 25 000 times the torus's 2.6): summed in
    // pieces around the foot of the centre on each face's plane, R / L face sizes across, the rounding grew as
    // eps (R / L)^3 (6 % of the torus's volume here, three times it at 2^18; a fuzz run found 2.4e-5 too much at
    // about 2^12). Faces that miss the ball are now skipped, faces wholly inside are one term, cut faces are summed
    // from their own boundary. Oracle: the same scene turned as a whole gives the same volume, so the spread over
    // eight turns bounds the rounding from below: measured 7.1e-11 of the torus's volume, bound 1e-9; and no volume
    // exceeds the torus's. (Turns do not see a formula wrong the same way in every frame: the cut faces' pieces are
    // checked against closed forms by sphere_on_a_mesh_matches_closed_forms, whose ball on a box corner takes them;
    // the centroid's quadrature by a_ball_much_larger_than_a_cube_matches_the_integrated_centroid.)
    mc_mesh* m = scene_torus(1.0, 0.3, 120);
    cr_assert_not_null(m);
    const mc_mesh_report info = *mc_mesh_get_report(m);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_shape torus = mc_shape_mesh(m), ball = mc_shape_sphere(65536.0);
    uint64_t seed = 77u;
    double worst = 0.0, worst_c = 0.0;
    for (int k = 0; k < 60; ++k)
    {
        mc_vec3 c0 = mc_v3(0, 0, 0);
        mc_vec3 u =
            mc_normalize(mc_v3(scene_random(&seed) - 0.5, scene_random(&seed) - 0.5, scene_random(&seed) - 0.5));
        mc_vec3 centre = mc_scale(u, 65536.0 + 0.6 * (scene_random(&seed) - 0.5)); // the sphere through the torus
        double lo = INFINITY, hi = -INFINITY;
        for (int t = 0; t < 8; ++t)
        {
            mc_quat q = t == 0 ? mc_quat_identity()
                               : mc_quat_normalize((mc_quat){scene_random(&seed) - 0.5, scene_random(&seed) - 0.5,
                                                             scene_random(&seed) - 0.5, scene_random(&seed) - 0.5});
            mc_pose pm = {mc_v3(0.0, 0.0, 0.0), q}, pb = {mc_quat_rotate(q, centre), mc_quat_identity()};
            mc_region r[4];
            uint32_t n = 0;
            cr_assert_eq(mc_query_shape_regions(&torus, &pm, &ball, &pb, NULL, ws, r, 4, &n, NULL), MC_OK);
            double v = 0.0;
            mc_vec3 mv = mc_v3(0, 0, 0);
            for (uint32_t i = 0; i < n && i < 4; ++i)
            {
                v += r[i].volume;
                mv = mc_add(mv, mc_scale(mc_pose_inv_transform(&pm, r[i].centroid), r[i].volume));
            }
            mc_vec3 cv = v > 0.0 ? mc_scale(mv, 1.0 / v) : mv; // the centroid in the torus's frame
            c0 = t == 0 ? cv : c0;
            worst_c = fmax(worst_c, mc_length(mc_sub(cv, c0)));
            cr_assert(v <= info.volume * (1.0 + 1e-9), "scene %d turn %d: %.17g above the torus's %.17g", k, t, v,
                      info.volume);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
        worst = fmax(worst, hi - lo);
    }
    cr_assert(worst <= 1e-9 * info.volume, "a spread of %.3g of the torus's volume", worst / info.volume);
    // The centroid, in the torus's frame: measured 1.45e-10 (a few eps R: the centre's rounding, R away), bound 1e-9
    // (it was summed about the centre: 0.3 at R = 2^12, 175 at 2^14).
    cr_assert(worst_c <= 1e-9, "a centroid spread of %.3g", worst_c);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(m);
}

// The part of the unit cube [0, 1]^3 inside a ball of radius R centred at (cx, cy, cz) below it, whose sphere crosses
// every vertical line of the cube once (cz + R in (0, 1) and R >> 1): the region under z = cz + sqrt(R^2 - rho^2),
// integrated over the unit square by a 20 x 20 Gauss-Legendre rule (the height is analytic there, with its
// singularities R away: the rule is exact to rounding). Volume and centroid in the cube's frame; the height is taken
// as (cz + R) - rho^2 / (R + sqrt(R^2 - rho^2)), without cancellation (cz + R is exact: Sterbenz).
static double cube_under_sphere(double cx, double cy, double cz, double r, mc_vec3* centroid)
{
    double top = cz + r, v = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
    for (int i = 0; i < 20; ++i)
    {
        double wx, x = 0.5 + 0.5 * mc_gauss20_node(i, &wx);
        for (int j = 0; j < 20; ++j)
        {
            double wy, y = 0.5 + 0.5 * mc_gauss20_node(j, &wy);
            double rho2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            double z = top - rho2 / (r + sqrt(r * r - rho2));
            double w = 0.25 * wx * wy;
            v += w * z;
            mx += w * x * z;
            my += w * y * z;
            mz += w * 0.5 * z * z;
        }
    }
    *centroid = mc_v3(mx / v, my / v, mz / v);
    return v;
}

/// A ball at c (the mesh's frame) against the mesh posed at a fixed offset turned by q: the query's one region's
/// volume, and its centroid in the mesh's frame.
static double ball_in_turned_frame(mc_workspace* ws, const mc_shape* mesh, const mc_shape* ball, mc_quat q, mc_vec3 c,
                                   mc_vec3* centroid)
{
    mc_pose pm = {mc_v3(0.25, -0.5, 0.125), q};
    mc_pose pb = {mc_pose_transform(&pm, c), mc_quat_identity()};
    mc_region g[4];
    uint32_t n = 0;
    cr_assert_eq(mc_query_shape_regions(mesh, &pm, ball, &pb, NULL, ws, g, 4, &n, NULL), MC_OK);
    cr_assert_eq(n, 1u, "%u regions", n);
    *centroid = mc_pose_inv_transform(&pm, g[0].centroid);
    return g[0].volume;
}

// A ball much larger than a cube whose top it cuts: volume and centroid against cube_under_sphere, in eight turned
// frames per radius, for R from 2^4 to 2^20 (the first moment was summed about the ball's centre from pieces R / L
// across: its spread over turns was 1e-3 at R = 2^10 and 0.3 at 2^12 of a torus 2.6 across). Tolerance: the ball's
// centre, R away, is turned into the cube's frame with a rounding of a few eps R, which moves the sphere by that
// much; 64 eps R (plus 1e-13) bounds the volume's and the centroid's response to it with room.
Test(analytic, a_ball_much_larger_than_a_cube_matches_the_integrated_centroid)
{
    mc_mesh* cube = scene_box(mc_v3(0, 0, 0), mc_v3(1, 1, 1));
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint64_t seed = 5u;
    double worst_v = 0.0, worst_c = 0.0;
    for (int e = 4; e <= 20; e += 4)
    {
        double r = ldexp(1.0, e);
        mc_shape ball = mc_shape_sphere(r), mesh = mc_shape_mesh(cube);
        for (int t = 0; t < 8; ++t)
        {
            double cx = 0.3 + 0.4 * scene_random(&seed), cy = 0.3 + 0.4 * scene_random(&seed);
            double cz = (0.3 + 0.4 * scene_random(&seed)) - r;
            mc_vec3 want_c;
            double want_v = cube_under_sphere(cx, cy, cz, r, &want_c);
            mc_quat q = t == 0 ? mc_quat_identity() : scene_random_quat(&seed);
            mc_vec3 c;
            double v = ball_in_turned_frame(ws, &mesh, &ball, q, mc_v3(cx, cy, cz), &c);
            double tol = 1e-13 + 64.0 * 0x1p-52 * r;
            double dv = fabs(v - want_v), dc = mc_length(mc_sub(c, want_c));
            worst_v = fmax(worst_v, dv / tol);
            worst_c = fmax(worst_c, dc / tol);
        }
    }
    // Measured: at most 0.09 of the tolerance (the volume at 2^20; the centroid follows the volume, about half of it).
    cr_assert(worst_v <= 1.0 && worst_c <= 1.0, "volume %.3g, centroid %.3g of the tolerance", worst_v, worst_c);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(cube);
}

// A ball of radius 1 whose centre lies 0.03 above the top of a finely tessellated cube (faces about 0.05 across, so
// many faces are much smaller than R but within a few sizes of the centre, where the first moment's quadrature does
// not converge and the closed forms are good: a face 0.03 from the centre was 6e-7 off by quadrature). The part of the
// cube [-1/2, 1/2]^3 inside the ball lies above z = cz - sqrt(1 - rho^2) (above the cube's bottom) and below its top:
// volume and first moments by a 20 x 20 Gauss rule on each quarter of the top square (the height is analytic there,
// its nearest singularity, rho = 1, 0.29 beyond the square: exact to about 1e-16). Measured: within 3.9e-15 in every
// frame (by quadrature on those faces, 5.8e-6); bound 1e-13.
static double cube_above_sphere(double cx, double cy, double cz, mc_vec3* centroid)
{
    double v = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
    for (int quarter = 0; quarter < 4; ++quarter)
    {
        double x0 = quarter & 1 ? 0.0 : -0.5, y0 = quarter & 2 ? 0.0 : -0.5;
        for (int i = 0; i < 20; ++i)
        {
            double wx, x = x0 + 0.25 + 0.25 * mc_gauss20_node(i, &wx);
            for (int j = 0; j < 20; ++j)
            {
                double wy, y = y0 + 0.25 + 0.25 * mc_gauss20_node(j, &wy);
                double rho2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                double lo = cz - sqrt(1.0 - rho2), w = 0.0625 * wx * wy;
                v += w * (0.5 - lo);
                mx += w * x * (0.5 - lo);
                my += w * y * (0.5 - lo);
                mz += w * 0.5 * (0.25 - lo * lo);
            }
        }
    }
    *centroid = mc_v3(mx / v, my / v, mz / v);
    return v;
}

Test(analytic, a_ball_centred_near_a_fine_mesh_matches_the_integrated_centroid)
{
    mc_mesh* cube = scene_box_grid(mc_v3(0.5, 0.5, 0.5), 4000);
    cr_assert_not_null(cube);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_shape ball = mc_shape_sphere(1.0), mesh = mc_shape_mesh(cube);
    uint64_t seed = 11u;
    double worst = 0.0;
    for (int t = 0; t < 8; ++t)
    {
        double cx = 0.2 * (scene_random(&seed) - 0.5), cy = 0.2 * (scene_random(&seed) - 0.5), cz = 0.53;
        mc_vec3 want_c;
        double want_v = cube_above_sphere(cx, cy, cz, &want_c);
        mc_quat q = t == 0 ? mc_quat_identity() : scene_random_quat(&seed);
        mc_vec3 c;
        double v = ball_in_turned_frame(ws, &mesh, &ball, q, mc_v3(cx, cy, cz), &c);
        worst = fmax(worst, fmax(fabs(v - want_v), mc_length(mc_sub(c, want_c))));
    }
    cr_assert(worst <= 1e-13, "%.3g from the integration", worst);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(cube);
}

// The shared Gauss-Legendre rules (src/contact/gauss.h): an n-point rule integrates x^k over [-1, 1] exactly for
// k < 2n (2 / (k + 1) for even k, 0 for odd), to rounding (1e-14 covers the tables' 21 digits and the sums' rounding),
// and misses x^2n by its error term 2^(2n+1) (n!)^4 / ((2n + 1) ((2n)!)^2) (no other n-point rule integrates every
// x^k, k < 2n: this checks each table is the n-point one).
Test(analytic, the_gauss_rules_integrate_polynomials_exactly)
{
    for (int n = 3; n <= 20; n = n == 8 ? 20 : n + 1)
    {
        for (int k = 0; k <= 2 * n; ++k)
        {
            double sum = 0.0;
            for (int i = 0; i < n; ++i)
            {
                double w, x = mc_gauss_node(n, i, &w);
                sum += w * pow(x, k);
            }
            double want = k % 2 == 0 ? 2.0 / (k + 1.0) : 0.0;
            if (k < 2 * n)
            {
                cr_assert(fabs(sum - want) < 1e-14, "%d points, x^%d: %.17g want %.17g", n, k, sum, want);
                continue;
            }
            double fact = 1.0; // (n!)^4 / ((2n)!)^2 = ((n!)^2 / (2n)!)^2
            for (int m = 1; m <= n; ++m)
            {
                fact *= (double)m / (double)(n + m);
            }
            double want_err = pow(2.0, 2 * n + 1) / (2 * n + 1) * fact * fact;
            cr_assert(fabs((want - sum) - want_err) < 1e-6 * want_err + 1e-15,
                      "%d points, x^%d: off by %.6g, want %.6g", n, k, want - sum, want_err);
        }
    }
}

// A ball touching a tetrahedron's corner vertex, 1e-9 to 1e-6 deep (found by fuzz_shapes' centroid check, the ball's
// surface through the vertex: its centre on two face planes is moved by 2^-27 R, a cap 1e-9 deep). The faces through
// the vertex meet the ball in pieces 1e-5 across though the faces and their disks are of the ball's size, and their
// closed forms sum terms of order R^4 (rounding eps R^4, 5e-20 here) to a first moment of order V times the cap's
// size: the centroid was 0.13 and 0.036 from the vertex for caps of 1e-19. Oracle: the region lies in the cap, so its
// centroid within the cap's radius sqrt(2 R depth) of the vertex, plus the centre's move.
Test(analytic, a_tiny_cap_at_a_mesh_vertex_has_its_centroid_there)
{
    static const double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    mc_mesh* tet = scene_mesh_from_arrays(pos, 4, tri, 4);
    cr_assert_not_null(tet);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    double r = 0.125;
    mc_shape ball = mc_shape_sphere(r), mesh = mc_shape_mesh(tet);
    double deep[4] = {0.0, 1e-9, 1e-7, 1e-6};
    for (int k = 0; k < 4; ++k)
    {
        mc_pose pm = {mc_v3(0, 0, 0), mc_quat_normalize((mc_quat){0, 0, 1, 5})};
        mc_pose pb = at(r - deep[k], 0, 0);
        mc_region g[4];
        uint32_t n = 0;
        cr_assert_eq(mc_query_shape_regions(&mesh, &pm, &ball, &pb, NULL, ws, g, 4, &n, NULL), MC_OK);
        cr_assert_eq(n, 1u, "depth %g: %u regions", deep[k], n);
        double cap = sqrt(2.0 * r * (deep[k] + 0x1p-27 * r)) + 0x1p-26 * r;
        cr_assert(mc_length(g[0].centroid) <= cap, "depth %g: centroid %g from the vertex, cap radius %g", deep[k],
                  mc_length(g[0].centroid), cap);
    }
    mc_workspace_destroy(ws);
    mc_mesh_destroy(tet);
}
