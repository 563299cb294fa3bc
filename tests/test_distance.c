// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the distance query (mc_query_distance) and its triangle kernel (src/base/tri_distance.h): the kernel
// against the distance from the origin to the Minkowski difference (an independent method), the tree search against
// brute force over all triangle pairs on random poses of corpus meshes and primitives, closed forms (two spheres, two
// boxes, a box and a point-like tetrahedron), the zero cases (crossing, containment), max_distance, determinism.
#include "bvh/bvh_internal.h"
#include "meshcontact/meshcontact.h"
#include "scenes.h"
#include "src/base/tri_distance.h"
#include "src/base/tri_tri.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Distance from point p to triangle (a, b, c), computed differently from the kernel: the stationary point of the
// quadratic in barycentric coordinates when it lies inside, else the closest of the three edges (clamped projection).
static double point_triangle(mc_vec3 p, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    mc_vec3 e0 = mc_sub(b, a), e1 = mc_sub(c, a), w = mc_sub(p, a);
    double m00 = mc_dot(e0, e0), m01 = mc_dot(e0, e1), m11 = mc_dot(e1, e1);
    double r0 = mc_dot(e0, w), r1 = mc_dot(e1, w);
    double det = m00 * m11 - m01 * m01;
    double best = INFINITY;
    if (det > 1e-12 * m00 * m11)
    {
        double u = (r0 * m11 - r1 * m01) / det, v = (r1 * m00 - r0 * m01) / det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0)
        {
            best = mc_length(mc_sub(p, mc_add(a, mc_add(mc_scale(e0, u), mc_scale(e1, v)))));
        }
    }
    mc_vec3 v3[3] = {a, b, c};
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 s = v3[k], d = mc_sub(v3[(k + 1) % 3], s);
        double dd = mc_dot(d, d);
        double t = dd > 0.0 ? mc_dot(mc_sub(p, s), d) / dd : 0.0;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        best = fmin(best, mc_length(mc_sub(p, mc_add(s, mc_scale(d, t)))));
    }
    return best;
}

// Distance between two disjoint triangles as the distance from the origin to the convex hull of the nine points
// a_i - b_j: the hull's boundary is made of triangles of those points, and every such triangle lies in the hull, so
// the minimum over all 84 triples is the distance to the hull when the origin is outside it.
static double minkowski_distance(const mc_vec3 a[3], const mc_vec3 b[3])
{
    mc_vec3 m[9];
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            m[3 * i + j] = mc_sub(a[i], b[j]);
        }
    }
    double best = INFINITY;
    for (int i = 0; i < 9; ++i)
    {
        for (int j = i + 1; j < 9; ++j)
        {
            for (int k = j + 1; k < 9; ++k)
            {
                best = fmin(best, point_triangle(mc_v3(0.0, 0.0, 0.0), m[i], m[j], m[k]));
            }
        }
    }
    return best;
}

static mc_vec3 random_point(uint64_t* rng, double scale)
{
    return mc_v3(scale * (2.0 * scene_random(rng) - 1.0), scale * (2.0 * scene_random(rng) - 1.0),
                 scale * (2.0 * scene_random(rng) - 1.0));
}

static int triangles_cross(const mc_vec3 a[3], const mc_vec3 b[3])
{
    mc_crossing x[2];
    return mc_tri_tri_crossings(a, b, x) > 0;
}

Test(distance, triangle_kernel_matches_minkowski_difference)
{
    uint64_t rng = 12;
    int separated = 0, crossing = 0;
    for (int n = 0; n < 4000; ++n)
    {
        mc_vec3 a[3], b[3];
        // Mix of general triangles, and nearly parallel ones close to each other (the face-face case).
        int flat = n % 4 == 0;
        for (int k = 0; k < 3; ++k)
        {
            a[k] = random_point(&rng, 1.0);
            b[k] = random_point(&rng, 1.0);
            if (flat)
            {
                a[k].z = 0.01 * a[k].z;
                b[k].z = 0.3 + 0.01 * b[k].z;
            }
        }
        mc_tri_distance d = mc_tri_tri_distance(a, b);
        // The points lie on their triangles and are d apart (all quantities O(1): rounding of ~1e-15).
        cr_assert(point_triangle(d.point_a, a[0], a[1], a[2]) < 1e-12);
        cr_assert(point_triangle(d.point_b, b[0], b[1], b[2]) < 1e-12);
        cr_assert(fabs(mc_length(mc_sub(d.point_b, d.point_a)) - d.distance) < 1e-12);
        if (triangles_cross(a, b))
        {
            // Crossing triangles meet: 0, or the rounding of a crossing near an edge (coordinates O(1)).
            cr_assert(d.distance < 1e-12, "crossing pair %d: distance %g", n, d.distance);
            ++crossing;
            continue;
        }
        double want = minkowski_distance(a, b);
        // Both are minima of O(1) quantities computed in floating point: a few ulps of 1, 1e-12 leaves a margin.
        cr_assert(fabs(d.distance - want) < 1e-12, "pair %d: kernel %.17g, oracle %.17g", n, d.distance, want);
        ++separated;
    }
    cr_assert(separated > 1000 && crossing > 200, "separated %d crossing %d", separated, crossing);
}

Test(distance, segment_cases)
{
    mc_vec3 a, b;
    // Parallel overlapping segments 1 apart: distance 1 from any s.
    double d2 = mc_segment_segment_closest(mc_v3(0, 0, 0), mc_v3(2, 0, 0), mc_v3(1, 1, 0), mc_v3(3, 1, 0), &a, &b);
    cr_assert(fabs(d2 - 1.0) < 1e-15);
    // Crossing skew segments: closest points at their middles.
    d2 = mc_segment_segment_closest(mc_v3(-1, 0, 0), mc_v3(1, 0, 0), mc_v3(0, -1, 2), mc_v3(0, 1, 2), &a, &b);
    cr_assert(fabs(d2 - 4.0) < 1e-15 && mc_length(a) < 1e-15 && mc_length(mc_sub(b, mc_v3(0, 0, 2))) < 1e-15);
    // Zero-length segments: two points.
    d2 = mc_segment_segment_closest(mc_v3(0, 0, 0), mc_v3(0, 0, 0), mc_v3(3, 4, 0), mc_v3(3, 4, 0), &a, &b);
    cr_assert(d2 == 25.0);
}

/// Brute force: every triangle pair with the mapped coordinates of the world frame.
typedef struct brute
{
    double distance;
    uint32_t i, j;
} brute;

static mc_vec3* world_vertices(const mc_mesh* m, const mc_pose* pose)
{
    uint32_t n = mc_mesh_get_vertex_count(m);
    const mc_vec3* p = mc_mesh_get_positions(m);
    mc_vec3* w = malloc(sizeof *w * n);
    cr_assert(w != NULL);
    for (uint32_t v = 0; v < n; ++v)
    {
        w[v] = mc_pose_transform(pose, p[v]);
    }
    return w;
}

static void world_triangle(const mc_mesh* m, const mc_vec3* w, uint32_t t, mc_vec3 out[3])
{
    const uint32_t* idx = mc_mesh_get_indices(m);
    for (int c = 0; c < 3; ++c)
    {
        out[c] = w[idx[3u * t + (uint32_t)c]];
    }
}

/// A ball around each world triangle (centroid, largest vertex distance), for the brute force's pruning.
typedef struct tri_ball
{
    mc_vec3 c;
    double r;
} tri_ball;

static tri_ball* triangle_balls(const mc_mesh* m, const mc_vec3* w)
{
    uint32_t n = mc_mesh_get_triangle_count(m);
    tri_ball* b = malloc(sizeof *b * n);
    cr_assert(b != NULL);
    for (uint32_t t = 0; t < n; ++t)
    {
        mc_vec3 v[3];
        world_triangle(m, w, t, v);
        b[t].c = mc_scale(mc_add(mc_add(v[0], v[1]), v[2]), 1.0 / 3.0);
        b[t].r = fmax(mc_length(mc_sub(v[0], b[t].c)),
                      fmax(mc_length(mc_sub(v[1], b[t].c)), mc_length(mc_sub(v[2], b[t].c))));
    }
    return b;
}

/// Every triangle pair, except those whose balls prove them farther apart than a distance already found: the balls
/// contain their triangles, so |c_i - c_j| - r_i - r_j is a lower bound of the pair's distance. The bound is taken
/// with a slack of 1e-12 of its magnitude (its rounding is a few ulps of that), so a pair is skipped only when it
/// cannot be the minimum; the minimum is still the kernel's value on the best pair, as in the full double loop.
/// The threshold starts at the smallest vertex-vertex distance (an upper bound: vertices lie on both surfaces).
static brute brute_distance(const mc_mesh* mi, const mc_pose* pi, const mc_mesh* mj, const mc_pose* pj)
{
    mc_vec3* wi = world_vertices(mi, pi);
    mc_vec3* wj = world_vertices(mj, pj);
    uint32_t ni = mc_mesh_get_triangle_count(mi), nj = mc_mesh_get_triangle_count(mj);
    tri_ball* bi = triangle_balls(mi, wi);
    tri_ball* bj = triangle_balls(mj, wj);
    double bound = INFINITY;
    for (uint32_t u = 0; u < mc_mesh_get_vertex_count(mi); ++u)
    {
        for (uint32_t v = 0; v < mc_mesh_get_vertex_count(mj); ++v)
        {
            bound = fmin(bound, mc_length(mc_sub(wi[u], wj[v])));
        }
    }
    brute b = {INFINITY, 0, 0};
    for (uint32_t i = 0; i < ni; ++i)
    {
        mc_vec3 ti[3];
        world_triangle(mi, wi, i, ti);
        for (uint32_t j = 0; j < nj; ++j)
        {
            double gap = mc_length(mc_sub(bi[i].c, bj[j].c));
            double lower = gap - bi[i].r - bj[j].r;
            if (lower - 1e-12 * (gap + bi[i].r + bj[j].r) > fmin(bound, b.distance))
            {
                continue;
            }
            mc_vec3 tj[3];
            world_triangle(mj, wj, j, tj);
            mc_tri_distance d = mc_tri_tri_distance(ti, tj);
            if (d.distance < b.distance)
            {
                b.distance = d.distance;
                b.i = i;
                b.j = j;
            }
        }
    }
    free(bi);
    free(bj);
    free(wi);
    free(wj);
    return b;
}

static double bounding_radius(const mc_mesh* m, mc_vec3* center)
{
    const mc_mesh_report* r = mc_mesh_get_report(m);
    *center = mc_scale(mc_add(r->bbox_min, r->bbox_max), 0.5);
    return 0.5 * mc_length(mc_sub(r->bbox_max, r->bbox_min));
}

static double query(const mc_mesh* mi, const mc_pose* pi, const mc_mesh* mj, const mc_pose* pj, double max_distance,
                    int workers, mc_distance_result* r)
{
    mc_workspace* ws = NULL;
    cr_assert(mc_workspace_create(&ws) == MC_OK);
    mc_query_options o = mc_default_query_options();
    o.worker_count = workers;
    cr_assert(mc_query_distance(mi, pi, mj, pj, max_distance, &o, ws, r) == MC_OK);
    mc_workspace_destroy(ws);
    return r->distance;
}

/// Random poses of J around I, from deep overlap to well apart; every result checked against brute force.
static void check_random_poses(const mc_mesh* mi, const mc_mesh* mj, int count, uint64_t seed, int* kinds)
{
    uint64_t rng = seed;
    mc_vec3 ci, cj;
    double ri = bounding_radius(mi, &ci), rj = bounding_radius(mj, &cj);
    double mag = ri + rj + mc_length(ci) + mc_length(cj);
    for (int n = 0; n < count; ++n)
    {
        mc_pose pi = {random_point(&rng, ri), scene_random_quat(&rng)};
        mc_pose pj;
        pj.q = scene_random_quat(&rng);
        mc_vec3 dir = mc_normalize(random_point(&rng, 1.0));
        double gap = (ri + rj) * (0.2 + 1.0 * scene_random(&rng));
        // Centre of J's box at the gap from the centre of I's box, in the world.
        mc_vec3 wci = mc_pose_transform(&pi, ci);
        pj.p = mc_sub(mc_add(wci, mc_scale(dir, gap)), mc_quat_rotate(pj.q, cj));
        mc_distance_result r;
        query(mi, &pi, mj, &pj, INFINITY, 0, &r);
        brute b = brute_distance(mi, &pi, mj, &pj);
        ++kinds[r.kind];
        if (r.kind == MC_DISTANCE_SEPARATED)
        {
            // Same triangle kernel, coordinates mapped by different routes (world frame here, I's frame in the
            // query): a few ulps of the coordinate magnitude each, 1e-13 relative leaves a margin.
            cr_assert(fabs(r.distance - b.distance) <= 1e-13 * mag, "pose %d: query %.17g, brute force %.17g", n,
                      r.distance, b.distance);
            mc_vec3* wi = world_vertices(mi, &pi);
            mc_vec3* wj = world_vertices(mj, &pj);
            mc_vec3 ti[3], tj[3];
            world_triangle(mi, wi, r.triangle_i, ti);
            world_triangle(mj, wj, r.triangle_j, tj);
            cr_assert(point_triangle(r.point_i, ti[0], ti[1], ti[2]) <= 1e-13 * mag);
            cr_assert(point_triangle(r.point_j, tj[0], tj[1], tj[2]) <= 1e-13 * mag);
            cr_assert(fabs(mc_length(mc_sub(r.point_j, r.point_i)) - r.distance) <= 1e-13 * mag);
            free(wi);
            free(wj);
            // max_distance: above the distance the result is the same; below it, BEYOND.
            mc_distance_result r2;
            query(mi, &pi, mj, &pj, 2.0 * r.distance + 1e-9 * mag, 1, &r2);
            cr_assert(memcmp(&r2.distance, &r.distance, sizeof(double)) == 0 && r2.triangle_i == r.triangle_i &&
                      r2.triangle_j == r.triangle_j);
            query(mi, &pi, mj, &pj, 0.5 * r.distance, 2, &r2);
            cr_assert(r2.kind == MC_DISTANCE_BEYOND && r2.distance == 0.5 * r.distance);
            cr_assert(r2.box_tests <= r.box_tests);
        }
        else
        {
            cr_assert(r.distance == 0.0);
            if (r.kind == MC_DISTANCE_INTERSECTING)
            {
                // Surfaces that cross: the brute force's triangle kernel finds a pair that meets (up to rounding).
                cr_assert(b.distance <= 1e-13 * mag, "pose %d: crossing but brute force %g", n, b.distance);
            }
        }
    }
}

Test(distance, brute_force_on_primitives)
{
    mc_mesh* sphere = scene_uv_sphere(1.0, 400);
    mc_mesh* torus = scene_torus(1.0, 0.3, 600);
    mc_mesh* box = scene_box_grid(mc_v3(1.0, 0.5, 0.25), 300);
    cr_assert(sphere != NULL && torus != NULL && box != NULL);
    int kinds[4] = {0};
    check_random_poses(sphere, torus, 12, 1, kinds);
    check_random_poses(torus, torus, 12, 2, kinds);
    check_random_poses(box, sphere, 12, 3, kinds);
    check_random_poses(box, box, 12, 4, kinds);
    cr_assert(kinds[MC_DISTANCE_SEPARATED] >= 20 && kinds[MC_DISTANCE_INTERSECTING] >= 4, "separated %d crossing %d",
              kinds[MC_DISTANCE_SEPARATED], kinds[MC_DISTANCE_INTERSECTING]);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(torus);
    mc_mesh_destroy(box);
}

Test(distance, brute_force_on_real_meshes)
{
    mc_mesh* spot = scene_import("data/spot.obj");
    mc_mesh* lever = scene_import("data/prusa/fs-lever.stl");
    cr_assert(spot != NULL && lever != NULL, "data/ meshes missing");
    int kinds[4] = {0};
    // The brute force is quadratic (34M triangle pairs for Spot against Spot): debug and sanitizer builds check half
    // the poses (CI's time budget), the optimized build all of them.
#ifdef NDEBUG
    const int scale = 2;
#else
    const int scale = 1;
#endif
    check_random_poses(spot, spot, 3 * scale, 5, kinds);
    check_random_poses(lever, spot, 2 * scale, 6, kinds);
    cr_assert(kinds[MC_DISTANCE_SEPARATED] >= 2 * scale, "separated %d", kinds[MC_DISTANCE_SEPARATED]);
    mc_mesh_destroy(spot);
    mc_mesh_destroy(lever);
}

Test(distance, two_spheres_within_the_tessellation_bracket)
{
    // Vertices on the sphere of radius r, faces inside it at least r_in from the centre: the solids lie between the
    // balls of radii r_in and r, so centres D apart give a distance in [D - 2 r, D - 2 r_in] (closed form).
    mc_mesh* s = scene_uv_sphere(1.0, 2000);
    cr_assert(s != NULL);
    const mc_vec3* p = mc_mesh_get_positions(s);
    const uint32_t* idx = mc_mesh_get_indices(s);
    double r_in = INFINITY;
    for (uint32_t t = 0; t < mc_mesh_get_triangle_count(s); ++t)
    {
        r_in = fmin(r_in, point_triangle(mc_v3(0, 0, 0), p[idx[3 * t]], p[idx[3 * t + 1]], p[idx[3 * t + 2]]));
    }
    cr_assert(r_in > 0.99);
    uint64_t rng = 7;
    for (int n = 0; n < 20; ++n)
    {
        double dist = 2.0 + 3.0 * scene_random(&rng);
        mc_pose pi = {random_point(&rng, 5.0), scene_random_quat(&rng)};
        mc_pose pj = {mc_add(pi.p, mc_scale(mc_normalize(random_point(&rng, 1.0)), dist)), scene_random_quat(&rng)};
        mc_distance_result r;
        query(s, &pi, s, &pj, INFINITY, 0, &r);
        // The bracket's ends are exact up to rounding of O(10) coordinates: 1e-12.
        cr_assert(r.kind == MC_DISTANCE_SEPARATED);
        cr_assert(r.distance >= dist - 2.0 - 1e-12 && r.distance <= dist - 2.0 * r_in + 1e-12, "D %g: distance %.17g",
                  dist, r.distance);
    }
    mc_mesh_destroy(s);
}

Test(distance, boxes_face_to_face_and_a_point_like_tetrahedron)
{
    mc_mesh* box = scene_box(mc_v3(-1, -1, -1), mc_v3(1, 1, 1));
    cr_assert(box != NULL);
    mc_pose id = mc_pose_identity();
    // Box against box shifted along x with a lateral offset: the faces are g apart (closed form).
    for (int n = 0; n < 6; ++n)
    {
        double g = ldexp(1.0, -3 * n);
        mc_pose pj = {mc_v3(2.0 + g, 0.375, -0.25), {1, 0, 0, 0}};
        mc_distance_result r;
        query(box, &id, box, &pj, INFINITY, 0, &r);
        // Dyadic coordinates: the face distance g is exact, the kernel adds at most a few ulps of 3.
        cr_assert(r.kind == MC_DISTANCE_SEPARATED && fabs(r.distance - g) <= 4.0 * DBL_EPSILON * 3.0, "g %g: %.17g", g,
                  r.distance);
        cr_assert(fabs(r.point_i.x - 1.0) < 1e-15 && fabs(r.point_j.x - (1.0 + g)) < 1e-15);
    }
    // A tetrahedron of circumradius e around a point c outside the box: its distance is within e of the point's
    // closed-form distance to the box, |max(|c_k| - 1, 0)|.
    double e = 1e-4;
    double tv[12] = {e, e, e, e, -e, -e, -e, e, -e, -e, -e, e};
    for (int k = 0; k < 12; ++k)
    {
        tv[k] /= sqrt(3.0);
    }
    uint32_t ti[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
    mc_mesh* tet = scene_mesh_from_arrays(tv, 4, ti, 4);
    cr_assert(tet != NULL);
    uint64_t rng = 9;
    for (int n = 0; n < 40; ++n)
    {
        mc_vec3 c = random_point(&rng, 3.0);
        double dx = fmax(fabs(c.x) - 1.0, 0.0), dy = fmax(fabs(c.y) - 1.0, 0.0), dz = fmax(fabs(c.z) - 1.0, 0.0);
        double want = sqrt(dx * dx + dy * dy + dz * dz);
        if (want < 2.0 * e)
        {
            continue;
        }
        mc_pose pj = {c, scene_random_quat(&rng)};
        mc_distance_result r;
        query(box, &id, tet, &pj, INFINITY, 0, &r);
        cr_assert(r.kind == MC_DISTANCE_SEPARATED && fabs(r.distance - want) <= e * (1.0 + 1e-9), "c (%g %g %g)", c.x,
                  c.y, c.z);
    }
    mc_mesh_destroy(tet);
    mc_mesh_destroy(box);
}

Test(distance, zero_when_crossing_or_contained)
{
    mc_mesh* big = scene_uv_sphere(2.0, 800);
    mc_mesh* small = scene_uv_sphere(0.5, 300);
    mc_pose id = mc_pose_identity();
    mc_distance_result r;
    // Inside without crossing, both ways round.
    mc_pose in = {mc_v3(0.3, -0.2, 0.1), {1, 0, 0, 0}};
    query(big, &id, small, &in, INFINITY, 0, &r);
    cr_assert(r.kind == MC_DISTANCE_CONTAINED && r.distance == 0.0 && r.triangle_i == UINT32_MAX);
    query(small, &in, big, &id, INFINITY, 0, &r);
    cr_assert(r.kind == MC_DISTANCE_CONTAINED && r.distance == 0.0);
    // Even with a max_distance below the gap between the surfaces.
    query(big, &id, small, &in, 1e-3, 0, &r);
    cr_assert(r.kind == MC_DISTANCE_CONTAINED && r.distance == 0.0);
    // Crossing surfaces.
    mc_pose cross = {mc_v3(2.0, 0.0, 0.0), {1, 0, 0, 0}};
    query(big, &id, small, &cross, INFINITY, 0, &r);
    cr_assert(r.kind == MC_DISTANCE_INTERSECTING && r.distance == 0.0 && r.triangle_i != UINT32_MAX);
    cr_assert(mc_length(mc_sub(r.point_i, r.point_j)) == 0.0 && fabs(mc_length(r.point_i) - 2.0) < 0.05);
    mc_mesh_destroy(big);
    mc_mesh_destroy(small);
}

Test(distance, same_bits_for_any_worker_count)
{
    mc_mesh* t = scene_torus(1.0, 0.3, 2000);
    uint64_t rng = 11;
    for (int n = 0; n < 10; ++n)
    {
        mc_pose pi = {random_point(&rng, 1.0), scene_random_quat(&rng)};
        mc_pose pj = {mc_add(pi.p, random_point(&rng, 2.0)), scene_random_quat(&rng)};
        mc_distance_result a, b;
        query(t, &pi, t, &pj, INFINITY, 1, &a);
        query(t, &pi, t, &pj, INFINITY, 2, &b);
        cr_assert(memcmp(&a, &b, sizeof a) == 0);
    }
    mc_mesh_destroy(t);
}

// The node bounds two child pairs at a time on SSE2 lanes, and the traversal compiled for AVX2, against one pair at a
// time (the plain C bound): the same result and counters, bit for bit, on random poses from overlapping boxes to well
// apart (the counters differ as soon as one bound differs in its last bit, through the order of the search).
Test(distance, every_kernel_gives_the_same_query)
{
    mc_mesh* meshes[3] = {scene_torus(1.0, 0.3, 3000), scene_uv_sphere(0.8, 2000),
                          scene_box_grid(mc_v3(1.0, 0.5, 0.25), 2000)};
    cr_assert(meshes[0] != NULL && meshes[1] != NULL && meshes[2] != NULL);
    int widest = mc_bvh_distance_lanes(0);
    uint64_t rng = 17;
    uint64_t boxes = 0;
    for (int n = 0; n < 36; ++n)
    {
        const mc_mesh* mi = meshes[n % 3];
        const mc_mesh* mj = meshes[(n / 3) % 3];
        mc_pose pi = {random_point(&rng, 1.0), scene_random_quat(&rng)};
        mc_pose pj = {mc_add(pi.p, random_point(&rng, 3.5)), scene_random_quat(&rng)};
        mc_distance_result want, got;
        mc_bvh_distance_limit = 1;
        query(mi, &pi, mj, &pj, INFINITY, 1, &want);
        boxes += want.box_tests;
        for (int limit = 2; limit <= widest; ++limit)
        {
            mc_bvh_distance_limit = limit;
            query(mi, &pi, mj, &pj, INFINITY, 1, &got);
            mc_bvh_distance_limit = 0;
            cr_assert(memcmp(&want, &got, sizeof want) == 0,
                      "pose %d, kernels %d: %.17g (%llu boxes) against %.17g "
                      "(%llu)",
                      n, limit, got.distance, (unsigned long long)got.box_tests, want.distance,
                      (unsigned long long)want.box_tests);
        }
    }
    mc_bvh_distance_limit = 0;
    cr_assert(boxes > 36 * 20, "%llu box tests", (unsigned long long)boxes);
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh_destroy(meshes[k]);
    }
}

// One workspace kept across queries of different meshes and poses (its scratch keeps J's boxes of each query, so a
// stale box of an earlier query or of a larger mesh must never be used): every result is bitwise that of a fresh
// workspace.
Test(distance, reused_workspace_gives_the_fresh_result)
{
    mc_mesh* meshes[3] = {scene_torus(1.0, 0.3, 2000), scene_uv_sphere(0.8, 300),
                          scene_box_grid(mc_v3(1.0, 0.5, 0.25), 600)};
    cr_assert(meshes[0] != NULL && meshes[1] != NULL && meshes[2] != NULL);
    mc_workspace* ws = NULL;
    cr_assert(mc_workspace_create(&ws) == MC_OK);
    uint64_t rng = 13;
    for (int n = 0; n < 24; ++n)
    {
        const mc_mesh* mi = meshes[n % 3];
        const mc_mesh* mj = meshes[(n / 3) % 3];
        mc_pose pi = {random_point(&rng, 1.0), scene_random_quat(&rng)};
        mc_pose pj = {mc_add(pi.p, random_point(&rng, 3.0)), scene_random_quat(&rng)};
        mc_distance_result kept, fresh;
        cr_assert(mc_query_distance(mi, &pi, mj, &pj, INFINITY, NULL, ws, &kept) == MC_OK);
        query(mi, &pi, mj, &pj, INFINITY, 0, &fresh);
        cr_assert(memcmp(&kept, &fresh, sizeof kept) == 0, "query %d", n);
    }
    mc_workspace_destroy(ws);
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh_destroy(meshes[k]);
    }
}

Test(distance, bad_input)
{
    mc_mesh* s = scene_uv_sphere(1.0, 100);
    mc_workspace* ws = NULL;
    cr_assert(mc_workspace_create(&ws) == MC_OK);
    mc_pose id = mc_pose_identity(), far = {mc_v3(5, 0, 0), {1, 0, 0, 0}};
    mc_distance_result r;
    memset(&r, 0x5a, sizeof r);
    mc_distance_result untouched = r;
    cr_assert(mc_query_distance(s, &id, s, &far, 0.0, NULL, ws, &r) == MC_ERR_INVALID_ARGUMENT);
    cr_assert(mc_query_distance(s, &id, s, &far, -1.0, NULL, ws, &r) == MC_ERR_INVALID_ARGUMENT);
    cr_assert(mc_query_distance(s, &id, s, &far, NAN, NULL, ws, &r) == MC_ERR_INVALID_ARGUMENT);
    cr_assert(mc_query_distance(NULL, &id, s, &far, INFINITY, NULL, ws, &r) == MC_ERR_INVALID_ARGUMENT);
    cr_assert(mc_query_distance(s, &id, s, &far, INFINITY, NULL, NULL, &r) == MC_ERR_INVALID_ARGUMENT);
    mc_pose nan_pose = {mc_v3(NAN, 0, 0), {1, 0, 0, 0}};
    cr_assert(mc_query_distance(s, &id, s, &nan_pose, INFINITY, NULL, ws, &r) == MC_ERR_INVALID_ARGUMENT);
    cr_assert(memcmp(&r, &untouched, sizeof r) == 0);
    cr_assert(mc_query_distance(s, &id, s, &far, INFINITY, NULL, ws, &r) == MC_OK && r.kind == MC_DISTANCE_SEPARATED);
    cr_assert(mc_workspace_get_byte_count(ws) > 0);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(s);
}
