// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact patches (mc_query_patches): the intersection curve of two boxes is exactly the overlap rectangle, that of
// two tessellated spheres the circle within the faceting; the manifold's points are vertices of the patch and span
// it; the regions are those of mc_query_regions; warm queries allocate nothing.
#include "scenes.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static mc_pose identity(void)
{
    mc_pose p;
    p.p = mc_v3(0.0, 0.0, 0.0);
    p.q = (mc_quat){1.0, 0.0, 0.0, 0.0};
    return p;
}

/// true when x is one of the patch's vertices, bit for bit
static bool is_vertex(const mc_patch* p, mc_vec3 x)
{
    for (uint32_t k = 0; k < p->point_count; ++k)
    {
        if (memcmp(&p->points[k], &x, sizeof x) == 0)
        {
            return true;
        }
    }
    return false;
}

/// Query patches and check the regions are bitwise those of mc_query_regions.
static uint32_t query(const mc_mesh* mi, const mc_pose* pi, const mc_mesh* mj, const mc_pose* pj, uint32_t want,
                      mc_workspace* ws, mc_region* regions, mc_patch* patches, uint32_t cap)
{
    uint32_t n = 0, n2 = 0;
    cr_assert(eq(int, mc_query_patches(mi, pi, mj, pj, NULL, want, ws, regions, patches, cap, &n, NULL), MC_OK));
    mc_region again[8];
    mc_workspace* ws2 = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws2), MC_OK));
    cr_assert(eq(int, mc_query_regions(mi, pi, mj, pj, NULL, ws2, again, 8, &n2, NULL), MC_OK));
    mc_workspace_destroy(ws2);
    cr_assert(eq(u32, n, n2));
    cr_assert(eq(int, memcmp(regions, again, n * sizeof *regions), 0), "patches leave the regions bitwise unchanged");
    return n;
}

// A box of 1 x 1 x 1 pressed 1/8 into a 4 x 4 x 1 plate whose top face is z = 0, entirely over the plate. The
// intersection curve is where the box's side faces meet the plate's top face: the rectangle of the box's footprint at
// z = 0. The coordinates are dyadic and every crossing interpolates an edge whose ends differ by dyadic amounts at
// parameters that are dyadic too, so every vertex is exact: the checks are equalities.
Test(patches, two_boxes_give_the_exact_overlap_rectangle)
{
    const double x0 = 0.25, x1 = 1.25, y0 = -0.75, y1 = 0.25;
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -1.0), mc_v3(2.0, 2.0, 0.0));
    mc_mesh* box = scene_box(mc_v3(x0, y0, -0.125), mc_v3(x1, y1, 0.875));
    cr_assert(plate != NULL && box != NULL);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_pose pi = identity(), pj = identity();
    mc_region reg[8];
    mc_patch pat[8];
    uint32_t n = query(plate, &pi, box, &pj, 4, ws, reg, pat, 8);
    cr_assert(eq(u32, n, 1));
    const mc_patch* p = &pat[0];
    cr_assert(eq(u32, p->loop_count, 1));
    cr_assert(eq(u32, p->open_loops, 0));
    cr_assert(eq(u32, p->loop_ends[0], p->point_count));
    cr_assert(ge(u32, p->point_count, 4));
    double area2 = 0.0, perimeter = 0.0;
    for (uint32_t k = 0; k < p->point_count; ++k)
    {
        mc_vec3 a = p->points[k], b = p->points[(k + 1) % p->point_count];
        cr_assert(eq(dbl, a.z, 0.0), "on the plate's top face");
        bool on_x = (a.x == x0 || a.x == x1) && a.y >= y0 && a.y <= y1;
        bool on_y = (a.y == y0 || a.y == y1) && a.x >= x0 && a.x <= x1;
        cr_assert(on_x || on_y, "vertex %u (%g, %g) on the rectangle's boundary", k, a.x, a.y);
        // consecutive vertices on one side of the rectangle
        bool same_side = (a.x == b.x && (a.x == x0 || a.x == x1)) || (a.y == b.y && (a.y == y0 || a.y == y1));
        cr_assert(same_side);
        area2 += a.x * b.y - b.x * a.y;
        perimeter += mc_length(mc_sub(b, a));
    }
    // Shoelace area, counter-clockwise about the normal (+z, from the plate into the box); the perimeter within
    // rounding of sums of a few dyadic lengths.
    cr_assert(eq(dbl, 0.5 * area2, (x1 - x0) * (y1 - y0)));
    cr_assert(le(dbl, fabs(perimeter - 2.0 * ((x1 - x0) + (y1 - y0))), 1e-14));
    cr_assert(eq(dbl, reg[0].normal.z, 1.0));
    // The four corners are vertices, and the 4-point manifold is exactly them, with the region's depth.
    mc_vec3 corners[4] = {{x0, y0, 0.0}, {x1, y0, 0.0}, {x1, y1, 0.0}, {x0, y1, 0.0}};
    cr_assert(eq(u32, p->manifold_count, 4));
    for (int c = 0; c < 4; ++c)
    {
        cr_assert(is_vertex(p, corners[c]));
        bool found = false;
        for (uint32_t k = 0; k < 4; ++k)
        {
            found = found || memcmp(&p->manifold[k].point, &corners[c], sizeof corners[c]) == 0;
            cr_assert(eq(dbl, p->manifold[k].depth, reg[0].depth));
        }
        cr_assert(found, "corner %d in the manifold", c);
    }
    // One to eight points: vertices of the patch, distinct, and the first ones are those of smaller requests.
    for (uint32_t want = 1; want <= MC_MANIFOLD_MAX; ++want)
    {
        mc_patch q[8];
        query(plate, &pi, box, &pj, want, ws, reg, q, 8);
        cr_assert(eq(u32, q[0].manifold_count, want < q[0].point_count ? want : q[0].point_count));
        for (uint32_t k = 0; k < q[0].manifold_count; ++k)
        {
            cr_assert(is_vertex(&q[0], q[0].manifold[k].point));
            if (k < 4)
            {
                // each choice is made before the next: a smaller request gives the first ones of a larger one
                cr_assert(eq(int, memcmp(&q[0].manifold[k], &p->manifold[k], sizeof q[0].manifold[k]), 0));
            }
            for (uint32_t m = 0; m < k; ++m)
            {
                cr_assert(ne(int, memcmp(&q[0].manifold[k].point, &q[0].manifold[m].point, sizeof(mc_vec3)), 0));
            }
        }
    }
    // Turned and moved together: the same patch, mapped (the loop is the rectangle mapped by the pose).
    mc_pose turn;
    turn.q = (mc_quat){cos(0.35), 0.0, 0.0, sin(0.35)};
    turn.p = mc_v3(3.0, -1.0, 2.0);
    query(plate, &turn, box, &turn, 4, ws, reg, pat, 8);
    for (uint32_t k = 0; k < pat[0].point_count; ++k)
    {
        mc_vec3 local = mc_quat_rotate(mc_quat_conj(turn.q), mc_sub(pat[0].points[k], turn.p));
        cr_assert(le(dbl, fabs(local.z), 1e-14), "rounding of a rotation of coordinates below 4");
    }
    mc_workspace_destroy(ws);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(box);
}

// A box hanging over the plate's edge: the curve leaves the top face, runs down the plate's side and along the box's
// bottom. Every vertex lies on both boxes' surfaces, the loop closes, and it is one loop.
Test(patches, box_over_an_edge_gives_one_closed_loop_on_both_surfaces)
{
    mc_mesh* plate = scene_box(mc_v3(-2.0, -2.0, -1.0), mc_v3(2.0, 2.0, 0.0));
    mc_mesh* box = scene_box(mc_v3(1.5, -0.5, -0.125), mc_v3(2.5, 0.5, 0.875));
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_pose pi = identity(), pj = identity();
    mc_region reg[8];
    mc_patch pat[8];
    cr_assert(eq(u32, query(plate, &pi, box, &pj, 4, ws, reg, pat, 8), 1));
    cr_assert(eq(u32, pat[0].loop_count, 1));
    cr_assert(eq(u32, pat[0].open_loops, 0));
    for (uint32_t k = 0; k < pat[0].point_count; ++k)
    {
        mc_vec3 a = pat[0].points[k];
        // on the surface of the plate: in its box and on one of its faces; likewise for the box
        bool in_i = a.x >= -2.0 && a.x <= 2.0 && a.y >= -2.0 && a.y <= 2.0 && a.z >= -1.0 && a.z <= 0.0;
        bool on_i = a.x == 2.0 || a.z == 0.0;
        bool in_j = a.x >= 1.5 && a.x <= 2.5 && a.y >= -0.5 && a.y <= 0.5 && a.z >= -0.125 && a.z <= 0.875;
        bool on_j = a.x == 1.5 || a.y == -0.5 || a.y == 0.5 || a.z == -0.125;
        cr_assert(in_i && on_i && in_j && on_j, "vertex (%g, %g, %g)", a.x, a.y, a.z);
    }
    mc_workspace_destroy(ws);
    mc_mesh_destroy(plate);
    mc_mesh_destroy(box);
}

// Two unit UV spheres, centres 1.8 apart, J turned: the surfaces meet near the circle x = 0.9, radius sqrt(0.19).
// Faceting: a UV sphere with nlat latitude steps has its vertices on the unit sphere and its facets within the
// sagitta delta = 1 - cos(pi / nlat) of it (the half angle of a quad's diagonal is below one step), so every point of
// either surface is at a distance in [1 - delta, 1] of its centre (rounding: 1e-15). Each vertex of the curve lies
// on both surfaces.
Test(patches, two_spheres_give_the_circle_within_the_faceting)
{
    const uint32_t tris = 20000;
    mc_mesh* s = scene_uv_sphere(1.0, tris);
    cr_assert(s != NULL);
    uint32_t nlat = (uint32_t)fmax(3.0, floor(sqrt((double)tris / 4.0) + 0.5)); // scene_uv_sphere's rule
    double delta = 1.0 - cos(PI / (double)nlat);
    mc_pose pi = identity();
    mc_pose pj;
    pj.q = (mc_quat){cos(0.35), sin(0.35) * 0.267261241912424, sin(0.35) * 0.534522483824849,
                     sin(0.35) * 0.801783725737273};
    pj.p = mc_v3(1.8, 0.0, 0.0);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_region reg[8];
    mc_patch pat[8];
    cr_assert(eq(u32, query(s, &pi, s, &pj, 8, ws, reg, pat, 8), 1));
    const mc_patch* p = &pat[0];
    cr_assert(eq(u32, p->loop_count, 1));
    cr_assert(eq(u32, p->open_loops, 0));
    cr_assert(gt(u32, p->point_count, 100));
    double turn = 0.0, gap = 0.0;
    for (uint32_t k = 0; k < p->point_count; ++k)
    {
        mc_vec3 a = p->points[k], b = p->points[(k + 1) % p->point_count];
        double ri = mc_length(a), rj = mc_length(mc_sub(a, pj.p));
        cr_assert(ri >= 1.0 - delta - 1e-15 && ri <= 1.0 + 1e-15, "on I: %.17g", ri);
        cr_assert(rj >= 1.0 - delta - 1e-15 && rj <= 1.0 + 1e-15, "on J: %.17g", rj);
        // Hence x = (d^2 + ri^2 - rj^2) / (2 d) is within (1 - (1 - delta)^2) / 3.6 of 0.9.
        cr_assert(le(dbl, fabs(a.x - 0.9), (2.0 * delta) / 3.6 + 1e-15));
        double phi = atan2(b.z, b.y) - atan2(a.z, a.y);
        phi = phi > PI ? phi - 2.0 * PI : (phi < -PI ? phi + 2.0 * PI : phi);
        turn += phi;
        gap = fabs(phi) > gap ? fabs(phi) : gap;
    }
    // Once around the axis, counter-clockwise about the normal (+x, from I into J), in small steps.
    cr_assert(le(dbl, fabs(turn - 2.0 * PI), 1e-9), "winds once: %g", turn);
    cr_assert(lt(dbl, gap, 5.0 * PI / 180.0));
    cr_assert(gt(dbl, reg[0].normal.x, 0.99));
    // The manifold: 8 vertices of the patch spread around it (farthest-point choices on a circle are at least a
    // quarter turn apart for the first 4 and an eighth for all 8, less the facets' unevenness: 60 and 30 degrees).
    cr_assert(eq(u32, p->manifold_count, 8));
    for (uint32_t k = 0; k < 8; ++k)
    {
        cr_assert(is_vertex(p, p->manifold[k].point));
        cr_assert(eq(dbl, p->manifold[k].depth, reg[0].depth));
        for (uint32_t m = 0; m < k; ++m)
        {
            mc_vec3 a = p->manifold[k].point, b = p->manifold[m].point;
            double ang = fabs(atan2(a.z, a.y) - atan2(b.z, b.y));
            ang = ang > PI ? 2.0 * PI - ang : ang;
            cr_assert(gt(dbl, ang, (k < 4 ? 60.0 : 30.0) * PI / 180.0), "points %u and %u: %g deg", k, m,
                      ang * 180.0 / PI);
        }
    }
    mc_workspace_destroy(ws);
    mc_mesh_destroy(s);
}

// One solid inside the other: no curve, the centroid as the one manifold point. Separated: no region.
Test(patches, no_crossing_gives_the_centroid)
{
    mc_mesh* big = scene_box(mc_v3(-2.0, -2.0, -2.0), mc_v3(2.0, 2.0, 2.0));
    mc_mesh* small = scene_box(mc_v3(-0.5, -0.5, -0.5), mc_v3(0.5, 0.5, 0.5));
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_pose pi = identity(), pj = identity();
    mc_region reg[8];
    mc_patch pat[8];
    cr_assert(eq(u32, query(big, &pi, small, &pj, 4, ws, reg, pat, 8), 1));
    cr_assert(eq(u32, pat[0].point_count, 0));
    cr_assert(eq(u32, pat[0].loop_count, 0));
    cr_assert(eq(u32, pat[0].manifold_count, 1));
    cr_assert(eq(int, memcmp(&pat[0].manifold[0].point, &reg[0].centroid, sizeof(mc_vec3)), 0));
    pj.p = mc_v3(10.0, 0.0, 0.0);
    cr_assert(eq(u32, query(big, &pi, small, &pj, 4, ws, reg, pat, 8), 0));
    uint32_t n = 0;
    cr_assert(
        eq(int, mc_query_patches(big, &pi, small, &pj, NULL, 0, ws, reg, pat, 8, &n, NULL), MC_ERR_INVALID_ARGUMENT));
    cr_assert(eq(int, mc_query_patches(big, &pi, small, &pj, NULL, MC_MANIFOLD_MAX + 1, ws, reg, pat, 8, &n, NULL),
                 MC_ERR_INVALID_ARGUMENT));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(big);
    mc_mesh_destroy(small);
}

static atomic_long s_alloc_calls;
static void* counting_alloc(size_t size, size_t alignment)
{
    (void)alignment;
    atomic_fetch_add(&s_alloc_calls, 1);
    return malloc(size);
}
static void counting_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

// Warm: the same query again, and the two spheres at another overlap, allocate nothing.
Test(patches, warm_queries_allocate_nothing)
{
    mc_set_allocator(counting_alloc, counting_free);
    mc_mesh* s = scene_uv_sphere(1.0, 5000);
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    mc_pose pi = identity(), pj = identity();
    mc_region reg[4];
    mc_patch pat[4];
    uint32_t n = 0;
    pj.p = mc_v3(1.5, 0.0, 0.0);
    cr_assert(eq(int, mc_query_patches(s, &pi, s, &pj, NULL, 4, ws, reg, pat, 4, &n, NULL), MC_OK));
    atomic_store(&s_alloc_calls, 0);
    pj.p = mc_v3(1.8, 0.01, 0.0);
    for (int k = 0; k < 3; ++k)
    {
        cr_assert(eq(int, mc_query_patches(s, &pi, s, &pj, NULL, 4, ws, reg, pat, 4, &n, NULL), MC_OK));
    }
    cr_assert(eq(long, atomic_load(&s_alloc_calls), 0));
    cr_assert(gt(u64, mc_workspace_get_byte_count(ws), 0));
    mc_workspace_destroy(ws);
    mc_mesh_destroy(s);
    mc_set_allocator(NULL, NULL);
}

static int cmp_vec3(const void* pa, const void* pb)
{
    const mc_vec3* a = pa;
    const mc_vec3* b = pb;
    if (a->x != b->x)
    {
        return a->x < b->x ? -1 : 1;
    }
    if (a->y != b->y)
    {
        return a->y < b->y ? -1 : 1;
    }
    return (a->z > b->z) - (a->z < b->z);
}

/// Check the patches of one scene against the pair query: every loop closes, each written region has one vertex per
/// triangle pair of its loops, and every vertex is, bit for bit, a crossing point of mc_query_triangle_pairs.
static void check_scene(const scene_pair* sc)
{
    mc_workspace* ws = NULL;
    cr_assert(eq(int, mc_workspace_create(&ws), MC_OK));
    enum
    {
        CAP = 64
    };
    mc_region reg[CAP];
    mc_patch pat[CAP];
    uint32_t n = 0, np = 0;
    mc_status st =
        mc_query_patches(sc->mesh_i, &sc->pose_i, sc->mesh_j, &sc->pose_j, NULL, 8, ws, reg, pat, CAP, &n, NULL);
    cr_assert(st == MC_OK, "%s: %d", sc->name, (int)st);
    // Copy the patches' vertices out before the pair query reuses the workspace.
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        total += pat[k].point_count;
    }
    mc_vec3* pts = malloc((total + 1) * sizeof *pts);
    cr_assert(pts != NULL);
    uint64_t at = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        cr_assert(eq(u32, pat[k].open_loops, 0), "%s region %u: every loop closes", sc->name, k);
        cr_assert(eq(u32, pat[k].loop_count > 0 ? pat[k].loop_ends[pat[k].loop_count - 1] : 0, pat[k].point_count));
        cr_assert(le(u32, pat[k].manifold_count, 8));
        for (uint32_t c = 0; c < pat[k].manifold_count && pat[k].point_count > 0; ++c)
        {
            cr_assert(is_vertex(&pat[k], pat[k].manifold[c].point), "%s: manifold point on the patch", sc->name);
        }
        if (pat[k].point_count > 0) // a region without crossings has no points (NULL)
        {
            memcpy(pts + at, pat[k].points, pat[k].point_count * sizeof *pts);
        }
        at += pat[k].point_count;
    }
    st = mc_query_triangle_pairs(sc->mesh_i, &sc->pose_i, sc->mesh_j, &sc->pose_j, NULL, ws, NULL, 0, &np, NULL);
    cr_assert(st == MC_OK || st == MC_ERR_CAPACITY);
    mc_triangle_pair* pairs = malloc(((size_t)np + 1) * sizeof *pairs);
    cr_assert(pairs != NULL);
    cr_assert(eq(
        int, mc_query_triangle_pairs(sc->mesh_i, &sc->pose_i, sc->mesh_j, &sc->pose_j, NULL, ws, pairs, np, &np, NULL),
        MC_OK));
    // Every pair of a written region gives one vertex; pairs of touching regions give none.
    cr_assert(le(u64, total, np), "%s", sc->name);
    // The crossing points sorted, each vertex looked up (the pair query maps them with the same pose: the same bits).
    mc_vec3* xs = malloc(((size_t)np * 2 + 1) * sizeof *xs);
    cr_assert(xs != NULL);
    for (uint32_t p = 0; p < np; ++p)
    {
        xs[2 * p] = pairs[p].crossing[0].point;
        xs[2 * p + 1] = pairs[p].crossing[1].point;
    }
    qsort(xs, (size_t)np * 2, sizeof *xs, cmp_vec3);
    for (uint64_t v = 0; v < total; ++v)
    {
        cr_assert(bsearch(&pts[v], xs, (size_t)np * 2, sizeof *xs, cmp_vec3) != NULL,
                  "%s: vertex %llu is a crossing point", sc->name, (unsigned long long)v);
    }
    free(xs);
    free(pairs);
    free(pts);
    mc_workspace_destroy(ws);
}

static void visit(const scene_pair* sc, void* ctx)
{
    ++*(int*)ctx;
    check_scene(sc);
}

// The shipped real scenes (CAD parts and a scanned model on plates, in boxes, through each other) and generated ones
// (tori interlinked: a curve around each tube; a tilted box on a box): closed loops made of crossing points.
Test(patches, real_and_generated_scenes_give_closed_loops_of_crossing_points, .timeout = 60)
{
    int visited = 0;
    scene_each_real(NULL, visit, &visited);
    cr_assert(eq(int, visited, scene_real_count()), "every real scene was built (data/ found)");
    for (int kind = 0; kind < SCENE_KIND_COUNT; ++kind)
    {
        scene_pair sc;
        cr_assert(eq(int, scene_make((scene_kind)kind, 4000, &sc), 0));
        check_scene(&sc);
        scene_pair_destroy(&sc);
    }
}
