// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the region stage: flag sums against the clipping oracle, closed forms (boxes, sphere lens, sphere cap),
// invariants (rigid motion, I/J swap, S_I + S_J = 0), disjoint regions, containment, touching, flipped solids.
#include "bvh/bvh.h"
#include "clip_oracle.h"
#include "meshcontact/meshcontact.h"
#include "scenes.h"
#include "src/contact/regions.h"
#include "src/contact/regions_blocks.h"
#include "src/contact/workspace.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_REGIONS 64

/// Regions in I's frame (pose of I = identity), with the oracle totals on the same pairs.
typedef struct run_result
{
    mc_region regions[MAX_REGIONS];
    uint32_t count;
    mc_query_stats stats;
    clip_oracle_result oracle;
    double volume;  // sum of region volumes
    mc_vec3 moment; // sum of V c
} run_result;

static void run_options(const mc_mesh* mi, const mc_mesh* mj, mc_pose j_in_i, const mc_region_options* opt,
                        bool with_oracle, run_result* out)
{
    memset(out, 0, sizeof *out);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pair_result pr;
    cr_assert_eq(mc_collide(mi, mj, &j_in_i, 1, &ws->pairs, &pr, &out->stats), MC_OK);
    cr_assert_eq(mc_regions_compute(mi, mj, &j_in_i, &pr, ws, opt, out->regions, MAX_REGIONS, &out->count, &out->stats),
                 MC_OK);
    for (uint32_t k = 0; k < out->count; ++k)
    {
        out->volume += out->regions[k].volume;
        out->moment = mc_add(out->moment, mc_scale(out->regions[k].centroid, out->regions[k].volume));
    }
    if (with_oracle)
    {
        cr_assert_eq(clip_oracle_compute(mi, mj, &pr, ws, &out->oracle), 0);
        cr_assert_eq(out->oracle.inconsistent_edges, 0, "crossing parity disagrees with point-in-mesh");
        cr_assert_eq(out->oracle.inside_vertices_i + out->oracle.inside_vertices_j, out->stats.inside_vertices,
                     "inside vertices: oracle %u + %u, regions %llu", out->oracle.inside_vertices_i,
                     out->oracle.inside_vertices_j, (unsigned long long)out->stats.inside_vertices);
    }
    mc_workspace_destroy(ws);
}

static void run(const mc_mesh* mi, const mc_mesh* mj, mc_pose j_in_i, bool triangle_terms, bool with_oracle,
                run_result* out)
{
    mc_region_options opt = mc_default_region_options();
    opt.triangle_terms = triangle_terms;
    run_options(mi, mj, j_in_i, &opt, with_oracle, out);
}

static mc_pose make_pose(double x, double y, double z, mc_quat q)
{
    mc_pose p;
    p.p = mc_v3(x, y, z);
    p.q = mc_quat_normalize(q);
    return p;
}

static mc_quat axis_angle(mc_vec3 axis, double angle)
{
    mc_vec3 a = mc_normalize(axis);
    mc_quat q = {cos(angle / 2), a.x * sin(angle / 2), a.y * sin(angle / 2), a.z * sin(angle / 2)};
    return q;
}

/// Box of half extents h centred at c (12 triangles).
static mc_mesh* box_at(mc_vec3 c, mc_vec3 h)
{
    double pos[24];
    for (int k = 0; k < 8; ++k)
    {
        pos[3 * k + 0] = c.x + ((k & 1) ? h.x : -h.x);
        pos[3 * k + 1] = c.y + ((k & 2) ? h.y : -h.y);
        pos[3 * k + 2] = c.z + ((k & 4) ? h.z : -h.z);
    }
    static const uint32_t idx[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    return scene_mesh_from_arrays(pos, 8, idx, 12);
}

/// Several boxes as one mesh (one component each).
static mc_mesh* boxes(const mc_vec3* centres, const mc_vec3* halves, int n)
{
    static const uint32_t idx[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    double* pos = malloc(sizeof(double) * 24 * (size_t)n);
    uint32_t* ind = malloc(sizeof(uint32_t) * 36 * (size_t)n);
    for (int b = 0; b < n; ++b)
    {
        for (int k = 0; k < 8; ++k)
        {
            pos[24 * b + 3 * k + 0] = centres[b].x + ((k & 1) ? halves[b].x : -halves[b].x);
            pos[24 * b + 3 * k + 1] = centres[b].y + ((k & 2) ? halves[b].y : -halves[b].y);
            pos[24 * b + 3 * k + 2] = centres[b].z + ((k & 4) ? halves[b].z : -halves[b].z);
        }
        for (int k = 0; k < 36; ++k)
        {
            ind[36 * b + k] = idx[k] + 8u * (uint32_t)b;
        }
    }
    mc_mesh* m = scene_mesh_from_arrays(pos, 8u * (uint32_t)n, ind, 12u * (uint32_t)n);
    free(pos);
    free(ind);
    return m;
}

/// A mesh from arrays with the default checks, scaled and optionally flipped.
static mc_mesh* arrays_mesh(const double* pos, uint32_t nv, const uint32_t* idx, uint32_t nt, double scale, bool flip)
{
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = pos;
    d.vertex_count = nv;
    d.indices = idx;
    d.triangle_count = nt;
    d.scale = scale;
    d.flip = flip;
    mc_mesh* m = NULL;
    cr_assert_eq(mc_mesh_create(&d, &m, NULL, NULL), MC_OK);
    return m;
}

static mc_mesh* flipped_box(mc_vec3 h)
{
    double pos[24];
    for (int k = 0; k < 8; ++k)
    {
        pos[3 * k + 0] = (k & 1) ? h.x : -h.x;
        pos[3 * k + 1] = (k & 2) ? h.y : -h.y;
        pos[3 * k + 2] = (k & 4) ? h.z : -h.z;
    }
    static const uint32_t idx[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    return arrays_mesh(pos, 8, idx, 12, 1.0, true);
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), DBL_MIN);
}

/// Volume and centroid of the flag sums equal the oracle's. Tolerance 1e-12 relative: both are sums of O(10^4)
/// terms of the same magnitude computed in double around a local origin, so their rounding is ~1e-14 relative;
/// a wrong flag or a wrong piece would show at the level of one triangle's share (>= 1e-6 here).
static void check_oracle_scaled(const mc_mesh* mi, const mc_mesh* mj, mc_pose j_in_i, const char* name, double length,
                                int variants)
{
    // Variants: triangle terms with blocks (the default), triangle terms per face, pure flags.
    for (int tt = 0; tt < variants; ++tt)
    {
        run_result r;
        mc_region_options opt = mc_default_region_options();
        opt.triangle_terms = tt != 2;
        opt.use_blocks = tt == 0;
        run_options(mi, mj, j_in_i, &opt, true, &r);
        cr_assert(r.oracle.volume > 0.0, "%s: oracle found no overlap", name);
        double size = cbrt(r.oracle.volume);
        cr_assert(rel(r.volume, r.oracle.volume) < 1e-12, "%s (variant %d): volume %.17g oracle %.17g", name, tt,
                  r.volume, r.oracle.volume);
        mc_vec3 c = mc_scale(r.moment, 1.0 / r.volume);
        double dc = mc_length(mc_sub(c, r.oracle.centroid));
        cr_assert(dc < 1e-12 * fmax(fmax(size, length), mc_length(r.oracle.centroid)),
                  "%s (variant %d): centroid off by %g", name, tt, dc);
        mc_vec3 si = mc_v3(0, 0, 0), sj = mc_v3(0, 0, 0);
        for (uint32_t k = 0; k < r.count; ++k)
        {
            si = mc_add(si, r.regions[k].s_i);
            sj = mc_add(sj, r.regions[k].s_j);
        }
        // Vector areas: sums of O(10^4) terms of size <= area, rounding ~1e-13 of the area.
        double area = fmax(mc_length(r.oracle.s_i), size * size);
        cr_assert(mc_length(mc_sub(si, r.oracle.s_i)) < 1e-11 * area, "%s: S_I off", name);
        cr_assert(mc_length(mc_sub(sj, r.oracle.s_j)) < 1e-11 * area, "%s: S_J off", name);
    }
}

static void check_oracle(const mc_mesh* mi, const mc_mesh* mj, mc_pose j_in_i, const char* name)
{
    check_oracle_scaled(mi, mj, j_in_i, name, 0.0, 3);
}

Test(volume, flag_sums_match_clipping_oracle)
{
    uint64_t rng = 7;
    mc_mesh* s1 = scene_uv_sphere(1.0, 2000);
    mc_mesh* s2 = scene_uv_sphere(0.8, 3000);
    mc_mesh* bx = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 0.75, 0.5));
    mc_mesh* grid = scene_box_grid(mc_v3(1.0, 1.0, 1.0), 1200);
    mc_mesh* torus = scene_torus(1.0, 0.3, 3000);
    cr_assert(s1 && s2 && bx && grid && torus);
    check_oracle(s1, s2, make_pose(0.3, 0.9, 0.5, scene_random_quat(&rng)), "sphere_sphere");
    check_oracle(s1, bx, make_pose(0.2, -0.1, 1.1, scene_random_quat(&rng)), "sphere_box");
    check_oracle(bx, grid, make_pose(0.7, 0.5, 0.3, scene_random_quat(&rng)), "box_grid");
    check_oracle(grid, grid, make_pose(0.5, 0.25, 0.125, mc_quat_identity()), "grid_grid_axis_aligned");
    check_oracle(torus, torus, make_pose(0.5, 0.0, 0.0, axis_angle(mc_v3(1, 0, 0), PI / 2)), "tori_linked");
    check_oracle(torus, s2, make_pose(1.0, 0.2, 0.1, scene_random_quat(&rng)), "torus_sphere");
    mc_mesh_destroy(s1);
    mc_mesh_destroy(s2);
    mc_mesh_destroy(bx);
    mc_mesh_destroy(grid);
    mc_mesh_destroy(torus);
}

Test(volume, real_meshes_match_clipping_oracle)
{
    // Real meshes of data/ (found through MC_SOURCE_ROOT) against a shifted, turned copy of themselves: concave
    // shapes, several regions, some of them slivers (the shifted scenes of bench_regions).
    for (int k = 0; k < scene_shifted_count(); ++k)
    {
        scene_pair sp;
        cr_assert(scene_make_shifted(k, NULL, &sp) == 0, "shifted scene %d: data/ mesh missing", k);
        mc_pose inv = mc_pose_inverse(&sp.pose_i);
        check_oracle(sp.mesh_i, sp.mesh_j, mc_pose_mul(&inv, &sp.pose_j), sp.name);
        scene_pair_destroy(&sp);
    }
}

Test(volume, cad_export_scenes_match_clipping_oracle)
{
    // The CAD-export scenes of the benchmarks (tests/scenes_cad.c: long thin triangles, caps fanned from the axis,
    // gears whose caps lie in the same planes: flush faces): the coarse ones against the oracle. The gear's volume is
    // also its profile polygon's area times its width (shoelace: an independent closed form of the same solid).
    static const char* const names[] = {"gears_meshing", "shaft_in_bore", "crossed_shafts"};
    for (int n = 0; n < 3; ++n)
    {
        int k = 0;
        while (k < scene_cad_count() && strcmp(scene_cad_name(k), names[n]) != 0)
        {
            ++k;
        }
        scene_pair sp;
        cr_assert(k < scene_cad_count() && scene_make_cad(k, &sp) == 0, "%s", names[n]);
        // The moment's terms are the faces' pieces' moments about I's origin; a long shaft's side triangles span
        // the whole part, so their rounding scales with the parts' length (the larger bbox diagonal), not with the
        // thin overlap's size: the centroid is checked to 1e-12 of that length.
        const mc_mesh_report* ri = mc_mesh_get_report(sp.mesh_i);
        const mc_mesh_report* rj = mc_mesh_get_report(sp.mesh_j);
        double length =
            fmax(mc_length(mc_sub(ri->bbox_max, ri->bbox_min)), mc_length(mc_sub(rj->bbox_max, rj->bbox_min)));
        mc_pose inv = mc_pose_inverse(&sp.pose_i);
        // The default variant only (the three variants agree on every other scene here; CI's sanitizer run time).
        check_oracle_scaled(sp.mesh_i, sp.mesh_j, mc_pose_mul(&inv, &sp.pose_j), sp.name, length, 1);
        scene_pair_destroy(&sp);
    }
    double area = 0.0;
    mc_mesh* gear = scene_spur_gear(24, 2.0, 10.0, 24, &area);
    cr_assert(gear != NULL);
    // The divergence-theorem sum over ~5k triangles of the profile's size: rounding ~1e-14 relative.
    cr_assert(rel(mc_mesh_get_report(gear)->volume, 10.0 * area) < 1e-12, "%.17g vs %.17g",
              mc_mesh_get_report(gear)->volume, 10.0 * area);
    mc_mesh_destroy(gear);
}

Test(volume, two_boxes_match_closed_form)
{
    mc_mesh* a = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 0.5, 0.75));
    mc_mesh* b = box_at(mc_v3(0, 0, 0), mc_v3(0.6, 0.9, 0.3));
    // Axis-aligned: overlap is the product of the interval overlaps, centroid the centre of the overlap box.
    mc_vec3 t = mc_v3(0.9, -0.3, 0.6);
    run_result r;
    run(a, b, make_pose(t.x, t.y, t.z, mc_quat_identity()), true, true, &r);
    double lo[3] = {fmax(-1.0, t.x - 0.6), fmax(-0.5, t.y - 0.9), fmax(-0.75, t.z - 0.3)};
    double hi[3] = {fmin(1.0, t.x + 0.6), fmin(0.5, t.y + 0.9), fmin(0.75, t.z + 0.3)};
    double v = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    cr_assert_eq(r.count, 1);
    // Inputs are exact binary fractions; the flag sum rounds O(100) terms of size ~1: 1e-13 relative.
    cr_assert(rel(r.regions[0].volume, v) < 1e-13, "volume %.17g want %.17g", r.regions[0].volume, v);
    mc_vec3 c = mc_v3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    cr_assert(mc_length(mc_sub(r.regions[0].centroid, c)) < 1e-13);
    // Rotated about z by 45 degrees: a square of half side 0.5 becomes a diamond; the half-space x <= 1 of box a
    // (box a is large in y, z) cuts the diamond centred at x = 1 in half: V = (2 * 0.5^2) * 2 hz.
    mc_mesh* big = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 4.0, 4.0));
    mc_mesh* sq = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.5, 0.25));
    run(big, sq, make_pose(1.0, 0.1, 0.2, axis_angle(mc_v3(0, 0, 1), PI / 4)), true, true, &r);
    cr_assert_eq(r.count, 1);
    double vd = 2.0 * 0.25 * 0.5; // half the diamond area (2 * 0.5^2 / 2 * 2) times the height 0.5
    cr_assert(rel(r.regions[0].volume, vd) < 1e-12, "diamond volume %.17g want %.17g", r.regions[0].volume, vd);
    // Centroid of a right isosceles triangle of legs sqrt(0.5): one third of its height from the cut: x = 1 - d/3
    // with d = sqrt(0.5) the half diagonal.
    cr_assert(fabs(r.regions[0].centroid.x - (1.0 - sqrt(0.5) / 3.0)) < 1e-12);
    // Normal from I into J: box I's face x = 1 is inside J, its outward normal is +x.
    cr_assert(r.regions[0].normal.x > 1.0 - 1e-12);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
    mc_mesh_destroy(big);
    mc_mesh_destroy(sq);
}

Test(volume, sphere_lens_converges_to_closed_form)
{
    const double rad = 1.0, d = 1.2;
    double want = PI * (4 * rad + d) * (2 * rad - d) * (2 * rad - d) / 12.0;
    double prev = INFINITY;
    uint32_t sizes[3] = {1000, 4000, 16000};
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh* s = scene_uv_sphere(rad, sizes[k]);
        run_result r;
        run(s, s, make_pose(d, 0.0, 0.0, axis_angle(mc_v3(1, 1, 0), 0.3)), true, false, &r);
        cr_assert_eq(r.count, 1);
        double err = rel(r.regions[0].volume, want);
        cr_assert(err < prev, "level %d: error %g does not decrease (previous %g)", k, err, prev);
        prev = err;
        // Lens of two equal spheres: the normal is along the centre line (+x), the centroid at x = d / 2.
        cr_assert(r.regions[0].normal.x > 0.999);
        mc_mesh_destroy(s);
    }
    cr_assert(prev < 5e-3, "finest lens volume error %g", prev);
}

Test(volume, sphere_cap_converges_area_and_adams_depth)
{
    const double rad = 1.0;
    // Sphere is I, plate is J placed so that the sphere penetrates about 0.15 (a slight tilt avoids ring-plane ties);
    // h is the exact distance from the plate's top plane to the sphere's lowest point.
    mc_pose pj = make_pose(0.0123, 0.0071, -0.85, axis_angle(mc_v3(1, 2, 0), 0.05));
    double h = rad - fabs(mc_dot(mc_quat_rotate(pj.q, mc_v3(0, 0, 1)), pj.p));
    double vwant = PI * h * h * (3 * rad - h) / 3.0;
    double awant = PI * (2 * rad * h - h * h);
    mc_mesh* plate = box_at(mc_v3(0, 0, -1.0), mc_v3(4.0, 4.0, 1.0)); // top face z = 0
    double pv = INFINITY, pa = INFINITY, pd = INFINITY;
    uint32_t sizes[3] = {1000, 4000, 16000};
    for (int k = 0; k < 3; ++k)
    {
        mc_mesh* s = scene_uv_sphere(rad, sizes[k]);
        run_result r;
        run(s, plate, pj, true, false, &r);
        cr_assert_eq(r.count, 1);
        double ev = rel(r.regions[0].volume, vwant), ea = rel(r.regions[0].area, awant);
        double ed = rel(r.regions[0].depth, h);
        cr_assert(ev < pv && ea < pa && ed < pd, "level %d: errors V %g A %g depth %g do not decrease", k, ev, ea, ed);
        cr_assert(ed < 0.05, "level %d: Adams depth %g vs %g", k, r.regions[0].depth, h);
        pv = ev;
        pa = ea;
        pd = ed;
        mc_mesh_destroy(s);
    }
    // Finest level (16k triangles): measured V 3.3e-3, depth 3.0e-4 relative; the bounds leave a factor ~3.
    cr_assert(pv < 1e-2 && pa < 1e-2 && pd < 1e-3, "finest errors V %g A %g depth %g", pv, pa, pd);
    mc_mesh_destroy(plate);
}

Test(volume, vector_areas_cancel_per_region)
{
    mc_mesh* s = scene_uv_sphere(1.0, 3000);
    mc_mesh* t = scene_torus(1.0, 0.3, 3000);
    uint64_t rng = 11;
    mc_pose poses[3] = {make_pose(1.1, 0.3, 0.2, scene_random_quat(&rng)),
                        make_pose(0.2, 1.4, 0.1, scene_random_quat(&rng)),
                        make_pose(0.5, 0.0, 0.0, axis_angle(mc_v3(1, 0, 0), PI / 2))};
    for (int k = 0; k < 3; ++k)
    {
        run_result r;
        run(k < 2 ? s : t, k < 2 ? s : t, poses[k], true, false, &r);
        cr_assert(r.count >= 1);
        for (uint32_t q = 0; q < r.count; ++q)
        {
            const mc_region* g = &r.regions[q];
            // S_I + S_J is the vector area of the closed boundary of the region: zero exactly. Each of the n terms
            // (flags and triangles) is at most ~L^2 (L the region's size, |V - o| <= L) with a few ulps of error.
            double n = 6.0 * g->crossings + 12.0 * g->inside_vertices + 1.0;
            double l2 = fmax(g->area, cbrt(g->volume) * cbrt(g->volume));
            double tol = 16.0 * n * DBL_EPSILON * l2 * 4.0;
            cr_assert(mc_length(mc_add(g->s_i, g->s_j)) < tol, "region %u: |S_I + S_J| = %g > %g", q,
                      mc_length(mc_add(g->s_i, g->s_j)), tol);
        }
    }
    mc_mesh_destroy(s);
    mc_mesh_destroy(t);
}

Test(volume, rigid_motion_changes_only_the_frame_and_swap_flips_normal)
{
    mc_mesh* a = scene_uv_sphere(1.0, 3000);
    mc_mesh* b = scene_box_grid(mc_v3(0.5, 0.75, 1.0), 1200);
    uint64_t rng = 5;
    mc_pose pi = make_pose(0.0, 0.0, 0.0, mc_quat_identity());
    mc_pose pj = make_pose(0.9, 0.6, 0.4, scene_random_quat(&rng));
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region r0[4], r1[4], r2[4];
    uint32_t n0 = 0, n1 = 0, n2 = 0;
    cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, r0, 4, &n0, NULL), MC_OK);
    cr_assert_eq(n0, 1);
    // Move both bodies by the same rigid motion g.
    mc_pose g = make_pose(3.0, -2.0, 5.0, scene_random_quat(&rng));
    mc_pose gi = mc_pose_mul(&g, &pi), gj = mc_pose_mul(&g, &pj);
    cr_assert_eq(mc_query_regions(a, &gi, b, &gj, &opt, ws, r1, 4, &n1, NULL), MC_OK);
    cr_assert_eq(n1, 1);
    // The relative pose is recomputed through g (rounding ~1e-16 in J's vertices): 1e-10 relative is generous.
    cr_assert(rel(r1[0].volume, r0[0].volume) < 1e-10);
    mc_vec3 c = mc_pose_transform(&g, r0[0].centroid);
    cr_assert(mc_length(mc_sub(r1[0].centroid, c)) < 1e-9);
    cr_assert(mc_dot(r1[0].normal, mc_quat_rotate(g.q, r0[0].normal)) > 1.0 - 1e-10);
    cr_assert(rel(r1[0].area, r0[0].area) < 1e-10);
    cr_assert(rel(r1[0].depth, r0[0].depth) < 1e-9);
    // Swap: same volume and centroid, opposite normal.
    cr_assert_eq(mc_query_regions(b, &pj, a, &pi, &opt, ws, r2, 4, &n2, NULL), MC_OK);
    cr_assert_eq(n2, 1);
    cr_assert(rel(r2[0].volume, r0[0].volume) < 1e-10, "swap volume %.17g vs %.17g", r2[0].volume, r0[0].volume);
    cr_assert(mc_length(mc_sub(r2[0].centroid, r0[0].centroid)) < 1e-9);
    cr_assert(mc_dot(r2[0].normal, r0[0].normal) < -1.0 + 1e-10);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
}

Test(volume, query_normalises_the_pose_quaternions)
{
    // A valid pose's quaternion need not be unit (mc_pose_is_valid); mc_query_regions used them as given, which
    // scaled the meshes by |q|^2 (found by tests/fuzz/fuzz_query.c: a torus and a cylinder gave 0.496 one way round
    // and 0.390 the other, 0.406 with unit quaternions).
    mc_mesh* a = scene_uv_sphere(1.0, 3000);
    mc_mesh* b = scene_box_grid(mc_v3(0.5, 0.75, 1.0), 1200);
    uint64_t rng = 11;
    mc_pose pi = make_pose(0.1, -0.2, 0.3, scene_random_quat(&rng));
    mc_pose pj = make_pose(0.9, 0.6, 0.4, scene_random_quat(&rng));
    mc_pose si = pi, sj = pj;
    si.q = (mc_quat){3.0 * pi.q.w, 3.0 * pi.q.x, 3.0 * pi.q.y, 3.0 * pi.q.z};
    sj.q = (mc_quat){0.5 * pj.q.w, 0.5 * pj.q.x, 0.5 * pj.q.y, 0.5 * pj.q.z};
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_region r0[4], r1[4];
    uint32_t n0 = 0, n1 = 0;
    cr_assert_eq(mc_query_regions(a, &pi, b, &pj, NULL, ws, r0, 4, &n0, NULL), MC_OK);
    cr_assert_eq(mc_query_regions(a, &si, b, &sj, NULL, ws, r1, 4, &n1, NULL), MC_OK);
    cr_assert_eq(n0, 1);
    cr_assert_eq(n1, 1);
    cr_assert(rel(r1[0].volume, r0[0].volume) < 1e-10, "volume %.17g, unit quaternions %.17g", r1[0].volume,
              r0[0].volume);
    cr_assert(mc_length(mc_sub(r1[0].centroid, r0[0].centroid)) < 1e-9);
    cr_assert(mc_dot(r1[0].normal, r0[0].normal) > 1.0 - 1e-10);
    cr_assert(rel(r1[0].area, r0[0].area) < 1e-10);
    // A quaternion of norm 2^-534 (valid: its squared norm 2^-1068 is a non-zero subnormal) was normalised from that
    // subnormal, which keeps a few bits: (-0x1.e9e9e6861ffffp-534, 0, 0x1.240209e9e2d25p-1021, 0), the identity up to
    // 2^-487, came out with w = -1.00083, and the rotation scaled the meshes (found by the strict query fuzz harness:
    // two spheres at scale 2^37 gave 0.11 % more than a sphere; tests/fuzz/regressions/query/
    // spheres_tiny_quaternion_scaled). Now scaled by a power of two first: a unit quaternion, the identity's regions.
    mc_quat tiny = {-0x1.e9e9e6861ffffp-534, 0, 0x1.240209e9e2d25p-1021, 0};
    mc_quat u = mc_quat_normalize(tiny);
    cr_assert(fabs(u.w + 1.0) < 1e-15 && fabs(u.y) < 1e-140 && u.x == 0.0 && u.z == 0.0, "normalised: %.17g %g", u.w,
              u.y);
    mc_pose tj = {pj.p, tiny}, ij = {pj.p, mc_quat_identity()};
    cr_assert(mc_pose_is_valid(&tj));
    cr_assert_eq(mc_query_regions(a, &pi, b, &ij, NULL, ws, r0, 4, &n0, NULL), MC_OK);
    cr_assert_eq(mc_query_regions(a, &pi, b, &tj, NULL, ws, r1, 4, &n1, NULL), MC_OK);
    cr_assert(n0 == 1 && n1 == 1);
    cr_assert(rel(r1[0].volume, r0[0].volume) < 1e-10, "volume %.17g, identity %.17g", r1[0].volume, r0[0].volume);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
}

Test(volume, bodies_far_from_the_origin_give_the_regions_of_their_relative_pose)
{
    // Two bodies near each other, both 2^44 from the origin: J in I's frame must come from p_j - p_i (exact here),
    // not from inverse(pose_i) * pose_j, whose two rotated terms of magnitude 2^44 cancel with an error of about 2^-9
    // (found by the query fuzz harness at 2^64: 0 one way round, 0.333 the other).
    mc_mesh* a = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 1.0, 1.0));
    mc_mesh* b = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.75, 1.0));
    mc_quat qi = axis_angle(mc_v3(1, 2, 3), 0.7), qj = axis_angle(mc_v3(-2, 1, 0.5), 0.3);
    const double far = 0x1p44; // ulp 2^-8: the offsets below are exact
    mc_pose pi0 = make_pose(0.0, 0.0, 0.0, qi), pj0 = make_pose(0.75, 0.5, 0.25, qj);
    mc_pose pi1 = make_pose(far, -far, far, qi), pj1 = make_pose(far + 0.75, -far + 0.5, far + 0.25, qj);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_region r0[4], r1[4];
    uint32_t n0 = 0, n1 = 0;
    cr_assert_eq(mc_query_regions(a, &pi0, b, &pj0, NULL, ws, r0, 4, &n0, NULL), MC_OK);
    cr_assert_eq(mc_query_regions(a, &pi1, b, &pj1, NULL, ws, r1, 4, &n1, NULL), MC_OK);
    cr_assert_eq(n0, 1);
    cr_assert_eq(n1, 1);
    // The same relative pose, bit for bit: the same volume, area and depth.
    cr_assert(r1[0].volume == r0[0].volume, "volume %.17g far away, %.17g at the origin", r1[0].volume, r0[0].volume);
    cr_assert(r1[0].area == r0[0].area);
    cr_assert(r1[0].depth == r0[0].depth);
    mc_triangle_pair p0[64], p1[64];
    cr_assert_eq(mc_query_triangle_pairs(a, &pi0, b, &pj0, NULL, ws, p0, 64, &n0, NULL), MC_OK);
    cr_assert_eq(mc_query_triangle_pairs(a, &pi1, b, &pj1, NULL, ws, p1, 64, &n1, NULL), MC_OK);
    cr_assert_eq(n1, n0);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
}

Test(volume, feet_on_a_plate_give_one_region_each)
{
    // A table: top and four legs (five components of one mesh); legs penetrate the plate by different depths.
    mc_vec3 c[5] = {mc_v3(0, 0, 1.1), mc_v3(-0.8, -0.8, 0.5), mc_v3(0.8, -0.8, 0.5), mc_v3(-0.8, 0.8, 0.5),
                    mc_v3(0.8, 0.8, 0.5)};
    mc_vec3 h[5] = {mc_v3(1.0, 1.0, 0.1), mc_v3(0.1, 0.1, 0.5), mc_v3(0.1, 0.1, 0.5), mc_v3(0.1, 0.1, 0.5),
                    mc_v3(0.1, 0.1, 0.5)};
    double depth[4] = {0.05, 0.04, 0.03, 0.02};
    for (int k = 1; k < 5; ++k)
    {
        c[k].z -= depth[k - 1];
    }
    mc_mesh* table = boxes(c, h, 5);
    mc_mesh* plate = box_at(mc_v3(0, 0, -1.0), mc_v3(3.0, 3.0, 1.0));
    cr_assert(table && plate);
    run_result r;
    run(plate, table, make_pose(0, 0, 0, mc_quat_identity()), true, true, &r);
    cr_assert_eq(r.count, 4);
    for (int k = 0; k < 4; ++k)
    {
        double v = 0.2 * 0.2 * depth[k]; // sorted by decreasing volume: the deepest leg first
        cr_assert(rel(r.regions[k].volume, v) < 1e-12, "leg %d volume %.17g want %.17g", k, r.regions[k].volume, v);
        cr_assert(rel(r.regions[k].area, 0.04) < 1e-12);
        cr_assert(fabs(r.regions[k].centroid.x - c[k + 1].x) < 1e-12 &&
                  fabs(r.regions[k].centroid.y - c[k + 1].y) < 1e-12);
        cr_assert(r.regions[k].normal.z > 1.0 - 1e-12); // from the plate (I) up into the leg (J)
        cr_assert(rel(r.regions[k].depth, depth[k]) < 1e-12, "leg %d Adams depth %g", k, r.regions[k].depth);
    }
    mc_mesh_destroy(table);
    mc_mesh_destroy(plate);
}

Test(volume, body_entirely_inside_gives_its_volume)
{
    mc_mesh* s = scene_uv_sphere(0.5, 2000);
    mc_mesh* big = box_at(mc_v3(0, 0, 0), mc_v3(2.0, 2.0, 2.0));
    double vs = mc_mesh_get_report(s)->volume;
    run_result r;
    for (int swap = 0; swap < 2; ++swap)
    {
        mc_pose p = make_pose(0.3, -0.2, 0.1, axis_angle(mc_v3(1, 1, 1), 0.7));
        if (swap)
        {
            p = mc_pose_inverse(&p);
            run(s, big, p, true, true, &r);
        }
        else
        {
            run(big, s, p, true, true, &r);
        }
        cr_assert_eq(r.count, 1);
        // The sphere's own volume comes from the mesh report (divergence theorem in the body frame).
        cr_assert(rel(r.regions[0].volume, vs) < 1e-12, "volume %.17g want %.17g", r.regions[0].volume, vs);
        cr_assert(rel(r.regions[0].volume, r.oracle.volume) < 1e-12);
        cr_assert_eq(r.regions[0].crossings, 0);
    }
    // Flipped box (its solid is the outside): the sphere inside the box surface does not touch it ...
    mc_mesh* fb = flipped_box(mc_v3(2.0, 2.0, 2.0));
    run(s, fb, make_pose(0.3, 0.2, 0.1, mc_quat_identity()), true, false, &r);
    cr_assert_eq(r.count, 0);
    // ... and a sphere far outside it is entirely inside its solid.
    run(s, fb, make_pose(10.0, 0.0, 0.0, mc_quat_identity()), true, true, &r);
    cr_assert_eq(r.count, 1);
    cr_assert(rel(r.regions[0].volume, vs) < 1e-12);
    // Half in, half out: I ∩ (outside of the box) = the sphere minus its part inside the box.
    run(s, fb, make_pose(2.0, 0.0, 0.0, mc_quat_identity()), true, true, &r);
    cr_assert_eq(r.count, 1);
    cr_assert(rel(r.regions[0].volume, r.oracle.volume) < 1e-12);
    double half = r.regions[0].volume;
    // The same with the flipped box as the first body (the region stage is not symmetric in I and J internally).
    run(fb, s, make_pose(-2.0, 0.0, 0.0, mc_quat_identity()), true, true, &r);
    cr_assert_eq(r.count, 1);
    cr_assert(rel(r.regions[0].volume, r.oracle.volume) < 1e-12);
    cr_assert(rel(r.regions[0].volume, half) < 1e-9, "%.17g vs %.17g", r.regions[0].volume, half);
    // Both flipped: unbounded.
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose id = mc_pose_identity();
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(fb, &id, fb, &id, NULL, ws, NULL, 0, &n, NULL), MC_ERR_UNBOUNDED);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(fb);
    mc_mesh_destroy(s);
    mc_mesh_destroy(big);
}

/// Queries both ways round (J's pose p in I, then I's pose p^-1 in J): each way one region, with the oracle's volume.
static void check_one_region_both_ways(const mc_mesh* a, const mc_mesh* b, mc_pose p, double volume, const char* name)
{
    for (int swap = 0; swap < 2; ++swap)
    {
        run_result r;
        mc_pose q = swap ? mc_pose_inverse(&p) : p;
        run(swap ? b : a, swap ? a : b, q, true, true, &r);
        cr_assert_eq(r.count, 1, "%s (swap %d): %u regions, first %g", name, swap, r.count,
                     r.count ? r.regions[0].volume : 0.0);
        // Rounding: sums of a few dozen terms of the size of the boxes (~1e-15 relative).
        cr_assert(rel(r.regions[0].volume, volume) < 1e-12, "%s (swap %d): volume %.17g want %.17g", name, swap,
                  r.regions[0].volume, volume);
        cr_assert(rel(r.oracle.volume, volume) < 1e-12, "%s: oracle %.17g", name, r.oracle.volume);
    }
}

// A component crossed only through its faces (by the other mesh's edges, none of its own edges crossed) is inside or
// outside as a whole, and a crossing loop inside one face bounds a hole of the face's inside part. Until both were
// handled, a cube against the outside of a box flush under it gave no region one way round and 8 the other (found by
// the query fuzz harness), and a rod hole through a coarse cube split the cube minus the rod into two regions.
Test(volume, faces_crossed_only_by_the_other_mesh_join_their_region)
{
    mc_mesh* cube = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 1.0, 1.0));
    // The outside of a box whose top face (inside the cube's bottom face) is flush with it: I ∩ J is the cube.
    mc_mesh* under = flipped_box(mc_v3(0.3, 0.2, 0.5));
    check_one_region_both_ways(cube, under, make_pose(0.4, -0.5, -1.5, mc_quat_identity()), 8.0, "flush");
    check_one_region_both_ways(cube, under, make_pose(0.4, -0.5, -1.5, axis_angle(mc_v3(0, 0, 1), 0.3)), 8.0,
                               "flush turned");
    // The outside of a rod through the cube, away from the diagonals of its faces: I ∩ J is the cube minus the rod.
    mc_mesh* rod = flipped_box(mc_v3(0.05, 0.1, 2.0));
    check_one_region_both_ways(cube, rod, make_pose(0.5, -0.3, 0.0, mc_quat_identity()), 8.0 - 0.1 * 0.2 * 2.0,
                               "rod hole");
    check_one_region_both_ways(cube, rod, make_pose(0.5, -0.3, 0.0, axis_angle(mc_v3(1, 2, 0), 0.05)),
                               8.0 - 0.1 * 0.2 * 2.0 / cos(0.05), "rod hole tilted"); // a prism between two planes
    mc_mesh_destroy(cube);
    mc_mesh_destroy(under);
    mc_mesh_destroy(rod);
}

/// A box of half extents `outer` with a cavity of half extents `inner` (its shell wound inward), centred at the origin.
static mc_mesh* hollow_box(mc_vec3 outer, mc_vec3 inner)
{
    static const uint32_t idx[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    double pos[48];
    uint32_t ind[72];
    for (int shell = 0; shell < 2; ++shell)
    {
        mc_vec3 h = shell == 0 ? outer : inner;
        for (int k = 0; k < 8; ++k)
        {
            pos[24 * shell + 3 * k + 0] = (k & 1) ? h.x : -h.x;
            pos[24 * shell + 3 * k + 1] = (k & 2) ? h.y : -h.y;
            pos[24 * shell + 3 * k + 2] = (k & 4) ? h.z : -h.z;
        }
        for (int t = 0; t < 12; ++t)
        {
            uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
            ind[36 * shell + 3 * t + 0] = a + 8u * (uint32_t)shell;
            ind[36 * shell + 3 * t + 1] = (shell == 0 ? b : c) + 8u * (uint32_t)shell;
            ind[36 * shell + 3 * t + 2] = (shell == 0 ? c : b) + 8u * (uint32_t)shell;
        }
    }
    return scene_mesh_from_arrays(pos, 16, ind, 24);
}

// A shell of one mesh entirely inside the other solid that bounds a hole of the intersection (a cavity's shell, a
// flipped mesh) belongs to the region around it: one region, the solid minus the hole, both ways round. Before, each
// shell was a region of its own, the inner one with negative volume (found by the query fuzz harness:
// tests/fuzz/regressions/query/flipped_inside_negative_region).
Test(volume, a_shell_around_a_hole_joins_the_region_around_it)
{
    // The outside of a sphere, the sphere inside a box: the box minus the ball.
    mc_mesh* box = box_at(mc_v3(0, 0, 0), mc_v3(2.0, 1.5, 1.0));
    mc_mesh* sphere = scene_uv_sphere(0.5, 3000);
    double vs = mc_mesh_get_report(sphere)->volume;
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = (const double*)mc_mesh_get_positions(sphere);
    d.vertex_count = mc_mesh_get_vertex_count(sphere);
    d.indices = mc_mesh_get_indices(sphere);
    d.triangle_count = mc_mesh_get_triangle_count(sphere);
    d.flip = true;
    mc_mesh* outside = NULL;
    cr_assert_eq(mc_mesh_create(&d, &outside, NULL, NULL), MC_OK);
    mc_pose turned = make_pose(0.3, -0.2, 0.1, axis_angle(mc_v3(1, 2, 3), 0.4));
    check_one_region_both_ways(box, outside, turned, 4.0 * 3.0 * 2.0 - vs, "box minus ball");
    // A hollow box (cavity 1 x 1 x 1) inside a larger box: the hollow box's material.
    mc_mesh* hollow = hollow_box(mc_v3(1.0, 1.0, 1.0), mc_v3(0.5, 0.5, 0.5));
    mc_mesh* big = box_at(mc_v3(0, 0, 0), mc_v3(3.0, 3.0, 3.0));
    check_one_region_both_ways(big, hollow, turned, 8.0 - 1.0, "hollow box inside");
    // A hollow box against the outside of a ball in its cavity, apart from it: the hollow box's material.
    mc_mesh* roomy = hollow_box(mc_v3(1.0, 1.0, 1.0), mc_v3(0.8, 0.8, 0.8));
    check_one_region_both_ways(roomy, outside, make_pose(0.05, 0.0, 0.0, mc_quat_identity()), 8.0 - 1.6 * 1.6 * 1.6,
                               "cavity, ball");
    mc_mesh_destroy(roomy);
    mc_mesh_destroy(box);
    mc_mesh_destroy(sphere);
    mc_mesh_destroy(outside);
    mc_mesh_destroy(hollow);
    mc_mesh_destroy(big);
}

/// A tessellated primitive of about n triangles, flipped or not.
static mc_mesh* primitive_mesh(mc_primitive_type type, mc_vec3 dims, uint32_t n, bool flip)
{
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = type;
    pd.dims = dims;
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert_eq(mc_primitive_tessellate_count(&pd, n, &pos, &nv, &idx, &nt, NULL), MC_OK);
    mc_mesh* m = arrays_mesh(pos, nv, idx, nt, 1.0, flip);
    mc_free_arrays(pos, idx);
    return m;
}

/// J's pose in I's frame from two world poses (quaternions normalised), as mc_query_regions forms it.
static mc_pose relative_pose(mc_vec3 pi, mc_quat qi, mc_vec3 pj, mc_quat qj)
{
    mc_pose a = {pi, mc_quat_normalize(qi)}, b = {pj, mc_quat_normalize(qj)};
    mc_pose r;
    r.q = mc_quat_mul(mc_quat_conj(a.q), b.q);
    r.p = mc_quat_rotate(mc_quat_conj(a.q), mc_sub(b.p, a.p));
    return r;
}

/// Both ways round: one region of positive volume each way, whose volume is the clip oracle's on the same pairs
/// (1e-12 relative: both are sums of a few hundred terms of the size of the meshes, ~1e-15 relative each) and, when
/// `closed_form` is not NAN, that value (within `tol` relative).
static void check_one_region_oracle(const mc_mesh* a, const mc_mesh* b, mc_pose p, double closed_form, double tol,
                                    const char* name)
{
    for (int swap = 0; swap < 2; ++swap)
    {
        run_result r;
        mc_pose q = swap ? mc_pose_inverse(&p) : p;
        run(swap ? b : a, swap ? a : b, q, true, true, &r);
        cr_assert_eq(r.count, 1, "%s (swap %d): %u regions, volumes %g %g", name, swap, r.count,
                     r.count ? r.regions[0].volume : 0.0, r.count > 1 ? r.regions[1].volume : 0.0);
        cr_assert(r.regions[0].volume > 0.0 && r.regions[0].area >= 0.0, "%s (swap %d): volume %g", name, swap,
                  r.regions[0].volume);
        cr_assert(rel(r.regions[0].volume, r.oracle.volume) < 1e-12, "%s (swap %d): volume %.17g, oracle %.17g", name,
                  swap, r.regions[0].volume, r.oracle.volume);
        cr_assert(isnan(closed_form) || rel(r.regions[0].volume, closed_form) < tol,
                  "%s (swap %d): volume %.17g want %.17g", name, swap, r.regions[0].volume, closed_form);
    }
}

// A shell or loop bounding a hole of a piece of the intersection whose enclosing surface is crossed (so that no
// crossing, inside vertex or edge joins it to the piece's outer shell) belongs to the region around it: a ray from it
// into the intersection meets that region's boundary, located among the segments of the face it hits. Before, each
// such shell was a region of its own with negative volume, or (all its crossings touching) dropped as touching so
// that the total exceeded the solid (found by the query fuzz harness: tests/fuzz/regressions/query/
// cavity_negative_region, cavity_touching_total_above_solid, torus_hole_loop_negative_region; the poses are theirs).
Test(volume, a_shell_inside_a_crossed_surface_joins_the_region_around_it)
{
    // A box with a cavity against the outside of a turned cube that cuts the cavity's walls: one region, the hollow
    // box minus the cube (no closed form: the oracle's volume).
    mc_mesh* hollow = hollow_box(mc_v3(2.0, 2.0, 2.0), mc_v3(1.0, 1.0, 1.0));
    mc_mesh* outside_cube = flipped_box(mc_v3(1.0, 1.0, 1.0));
    check_one_region_oracle(
        hollow, outside_cube,
        relative_pose(mc_v3(0.5, 0.5, 0.5), (mc_quat){1, 0, 64, 0}, mc_v3(0.5, 0.5, 0.125), (mc_quat){64, 32, -1, 0}),
        NAN, 0.0, "cavity cut by a cube");
    // The outside of a ball in the cavity, touching its walls (unit ball, cavity of edge 2, turned about z): the
    // contact is a touch, so the region is the hollow box, 64 - 8 = 56.
    mc_mesh* outside_ball = primitive_mesh(MC_PRIMITIVE_ELLIPSOID, mc_v3(1, 1, 1), 48, true);
    check_one_region_oracle(
        hollow, outside_ball,
        relative_pose(mc_v3(0, 0, 0), (mc_quat){1, 0, 0, 0}, mc_v3(0, 0, 0), (mc_quat){-8, 0, 0, 32}), 56.0, 1e-12,
        "ball touching the cavity");
    // The outside of a cube whose surface is the cavity's (turned by pi about z: exactly): every crossing a touch;
    // the region is the hollow box, 56 (found by fuzzing after the fix above).
    check_one_region_oracle(hollow, outside_cube, make_pose(0, 0, 0, (mc_quat){0, 0, 0, 1}), 56.0, 1e-12,
                            "cavity coincident with the outside of a cube");
    // Two copies of a coarse torus about the same centre, turned: a small crossing loop around a handle inside a face
    // whose own edges are crossed elsewhere (no closed form: the oracle's volume).
    mc_mesh* torus = primitive_mesh(MC_PRIMITIVE_TORUS, mc_v3(1.0, 0.3, 0), 120, false);
    check_one_region_oracle(torus, torus,
                            relative_pose(mc_v3(0, 0, 0), (mc_quat){0, 1, 12, 0}, mc_v3(0x1.0000000060814p-991, 0, 0),
                                          (mc_quat){0, 0, 1, 0}),
                            NAN, 0.0, "tori");
    mc_mesh_destroy(hollow);
    mc_mesh_destroy(outside_cube);
    mc_mesh_destroy(outside_ball);
    mc_mesh_destroy(torus);
}

/// scene_fuzz_cube, asserted.
static mc_mesh* fuzz_cube(bool hollow, double scale, bool flip)
{
    mc_mesh* m = scene_fuzz_cube(hollow, scale, flip);
    cr_assert_not_null(m);
    return m;
}

// The rays that join an inner shell to the region around it meet the other surfaces in degenerate places when the
// meshes are symmetric or coincide; each such ray was unclear, so the shell stayed a region of negative volume (found
// by the query fuzz harness: tests/fuzz/regressions/query/cavity_in_huge_cube_negative_region,
// flipped_cube_in_sphere_unclear_rays, identical_hollow_cubes_cavity_negative_region; the shapes and poses are theirs).
// Now one region each, both ways round, whose volume is the clip oracle's (independent: exact point-in-mesh per
// vertex, divergence-theorem terms of the clipped faces) and the closed form.
Test(volume, rays_from_inner_shells_resolve_edges_ties_and_far_hits)
{
    // The hollow cube inside a cube 1e12 across (no pair at all): the cavity's rays reach the hollow cube's outer shell
    // first, but meet the huge cube's faces next to their diagonals through the centre (that far hit was taken as
    // unclear). The region is the hollow cube, 64 - 8 = 56 (1e-12 relative: sums of 24 faces' terms).
    mc_mesh* hollow = fuzz_cube(true, 1.0, false);
    mc_mesh* huge = fuzz_cube(false, 0x1.d1a94a2p+39, false);
    check_one_region_oracle(hollow, huge,
                            relative_pose(mc_v3(0, 0, 0), (mc_quat){1, 0, 0, 0}, mc_v3(0x0.001e1e1e10dffp-1022, 0, 0),
                                          (mc_quat){0, 1, 0, 0}),
                            56.0, 1e-12, "hollow cube in a huge cube");
    // The outside of a cube (edge 2) inside a sphere of radius 32, same pose: every ray along a cube face's normal
    // from the face's centroid meets the symmetric sphere on an edge (now tried again along turned directions). The
    // region is the ball minus the cube: the sphere mesh's volume - 8 (1e-12 relative).
    mc_mesh* outside_cube = fuzz_cube(false, 1.0, true);
    mc_mesh* ball = primitive_mesh(MC_PRIMITIVE_ELLIPSOID, mc_v3(32, 32, 32), 48, false);
    double ball_volume = mc_mesh_get_report(ball)->volume;
    mc_vec3 at = mc_v3(-1, -1, -1);
    mc_quat q = {-1, -1, -1, -1};
    check_one_region_oracle(outside_cube, ball, relative_pose(at, q, at, q), ball_volume - 8.0, 1e-12,
                            "outside of a cube in a sphere");
    // The hollow cube against itself, same pose: the cavity shells' rays meet both outer shells at once (coincident
    // faces, now ordered by the symbolic rule), and the hit's in-face location towards the face's first edge meets a
    // touching segment left out of it (now towards the other edges). The region is the hollow cube, 56.
    mc_vec3 p3 = mc_v3(13.5, 13.5, 13.5);
    mc_quat q3 = {108, 108, 108, 108};
    check_one_region_oracle(hollow, hollow, relative_pose(p3, q3, p3, q3), 56.0, 1e-12, "identical hollow cubes");
    mc_mesh_destroy(hollow);
    mc_mesh_destroy(huge);
    mc_mesh_destroy(outside_cube);
    mc_mesh_destroy(ball);
}

/// The query both ways round from two world poses, each way's relative pose formed as mc_query_regions forms it (as the
/// query fuzz harness calls it): one region of positive volume each way, the clip oracle's volume (`oracle_tol`
/// relative) and the closed form (`tol` relative).
static void check_one_region_world(const mc_mesh* a, mc_vec3 pa, mc_quat qa, const mc_mesh* b, mc_vec3 pb, mc_quat qb,
                                   double closed_form, double tol, double oracle_tol, const char* name)
{
    for (int swap = 0; swap < 2; ++swap)
    {
        run_result r;
        mc_pose q = swap ? relative_pose(pb, qb, pa, qa) : relative_pose(pa, qa, pb, qb);
        run(swap ? b : a, swap ? a : b, q, true, true, &r);
        cr_assert_eq(r.count, 1, "%s (swap %d): %u regions, volumes %g %g", name, swap, r.count,
                     r.count ? r.regions[0].volume : 0.0, r.count > 1 ? r.regions[1].volume : 0.0);
        cr_assert(r.regions[0].volume > 0.0 && r.regions[0].area >= 0.0, "%s (swap %d): volume %g", name, swap,
                  r.regions[0].volume);
        cr_assert(rel(r.regions[0].volume, r.oracle.volume) < oracle_tol, "%s (swap %d): volume %.17g, oracle %.17g",
                  name, swap, r.regions[0].volume, r.oracle.volume);
        cr_assert(rel(r.regions[0].volume, closed_form) < tol, "%s (swap %d): volume %.17g want %.17g", name, swap,
                  r.regions[0].volume, closed_form);
    }
}

// Two hollow cubes whose walls coincide (the hollow cube against itself turned onto itself by symmetries of the cube,
// or shifted by 1 or by 1.5e-231 along z, turned): the coincident walls are resolved by the symbolic rule (J moved by
// (eps, eps^2, eps^3)), and the cavity shell stayed a region of negative volume (-8, or -12 for the shift by 1) beside
// the region around it (found by the strict query fuzz harness: tests/fuzz/regressions/query/hollow_cubes_*; the
// shapes and world poses are theirs). Now one region each, both ways round: the clip oracle's volume and the closed
// form (1e-12 relative: sums of a few dozen terms of size 1 to 64, ~1e-15 relative each; the quaternions with
// components 1/sqrt(2) move the turned vertices by rounding only, ~1e-16).
Test(volume, cavities_with_coincident_walls_join_the_region_around_them)
{
    mc_mesh* hollow = fuzz_cube(true, 1.0, false);
    mc_vec3 o = mc_v3(0, 0, 0);
    // Turned by pi about z and by pi about (0, 1, 1): every surface coincides; 64 - 8.
    check_one_region_world(hollow, o, (mc_quat){0, 0, 0, -1}, hollow, o, (mc_quat){0, 1, 1, 0}, 56.0, 1e-12, 1e-12,
                           "turned by pi about z and about (0, 1, 1)");
    // Turned by 2 pi / 3 about (1, 1, 1) and by -pi / 2 about z: 64 - 8.
    check_one_region_world(hollow, o, (mc_quat){244, 244, 244, 244}, hollow, o, (mc_quat){1, 0, 0, -1}, 56.0, 1e-12,
                           1e-12, "turned by 2 pi / 3 about (1, 1, 1) and by -pi / 2 about z");
    // Turned, J shifted by 1.5e-231 along z: 64 - 8 (the shift changes the volume by ~1e-229).
    check_one_region_world(hollow, o, (mc_quat){1, 0, 0, -1}, hollow, mc_v3(0, 0, 0x1.e04000025ffffp-768),
                           (mc_quat){-1, -1, -1, -1}, 56.0, 1e-12, 1e-12, "turned, shifted by 1.5e-231");
    // Turned by 2 pi / 3 about (1, 1, 1) and by pi / 2 about x tilted by the quaternion's y component 2^-52, both at
    // (1, 1, 1): the walls cross each other at angles of ~1e-16, where the crossing points along the grazing edges
    // carry almost nothing of their exact positions, so every ray's tied hits located outside (unclear); the cavity
    // shell is now joined by volume, the only region larger than it (found by the strict run after the fix above:
    // regressions/query/hollow_cubes_tilted_walls_rays_unclear). 64 - 8.
    mc_vec3 one = mc_v3(1, 1, 1);
    check_one_region_world(hollow, one, (mc_quat){-50, -50, -50, -50}, hollow, one, (mc_quat){-1, 1, 0x1p-52, 0}, 56.0,
                           1e-12, 1e-12, "turned, tilted by 2^-52");
    // Turned, J shifted by 1 along z: the outer shells overlap in [-2, 2]^2 x [-1, 2] (48) and the cavities fill
    // [-1, 1]^2 x [-1, 2] (12), a square tube through which the cavities open at both ends (J's outer floor lies in
    // the plane of I's cavity floor, I's outer top in that of J's cavity top): 48 - 12 = 36.
    check_one_region_world(hollow, o, (mc_quat){0, 0, 0, 0.25}, hollow, mc_v3(0, 0, 1), (mc_quat){32, 0, 0, 32}, 36.0,
                           1e-12, 1e-12, "shifted by 1 along z, turned");
    mc_mesh_destroy(hollow);
}

// An edge that grazes the other surface crosses it at points whose float parameters along the edge carry errors far
// above 1e-9 of the edge (orient values tiny against their permanents), so the order of two crossings close together
// can come out reversed. An evenly crossed edge whose ends were still unknown was decided by that order alone when the
// gap exceeded 1e-9: found by the strict query fuzz harness (tests/fuzz/regressions/query/
// spheres_grazing_crossings_misordered; shapes and world poses are its): the 48-triangle sphere at scale 2^19 against
// itself turned by pi about x and ~1.7e-8 rad more (the tessellation is symmetric under the turn, so the surfaces
// cross at grazing angles everywhere), far from the origin. One way round the edge's crossings, 2.7e-9 apart, were
// misordered: all 26 vertices of one sphere inside the other, one region of twice the sphere. Now the gap must also
// exceed the bound of the parameters' errors (else one exact point query decides). The overlap is the sphere mesh's
// volume less at most its area times the displacement of the turn (1.7e-8 rad times the radius): under 1e-7 relative.
// The clip oracle within 1e-8 relative, not 1e-12: the segments' directions are cross products of face normals at
// angles down to ~1e-8 rad, so both sums carry relative errors up to eps / 1e-8 ~ 1e-8 in their terms (measured:
// 3.6e-10 apart; one region of twice the volume, the failure, is 1 apart).
Test(volume, grazing_crossings_are_ordered_within_their_error_bound)
{
    mc_primitive_def pd = mc_default_primitive_def();
    pd.type = MC_PRIMITIVE_ELLIPSOID;
    pd.dims = mc_v3(1, 1, 1);
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    cr_assert_eq(mc_primitive_tessellate_count(&pd, 48, &pos, &nv, &idx, &nt, NULL), MC_OK);
    mc_mesh* ball = arrays_mesh(pos, nv, idx, nt, 0x1p+19, false);
    mc_free_arrays(pos, idx);
    double v = mc_mesh_get_report(ball)->volume;
    double far = 0x1.d1a94a2p+39;
    mc_vec3 at = mc_v3(far, far, far);
    check_one_region_world(ball, at, (mc_quat){far, far, far, far}, ball, at,
                           (mc_quat){-0x1.11111118p+13, far, 0, 0x1p-3}, v, 1e-7, 1e-8,
                           "spheres crossing at grazing angles");
    mc_mesh_destroy(ball);
}

// A region of a mesh near the bottom of the coordinate range has a vector area whose square underflows into
// subnormals: mc_normalize made its normal 1.00045 long (area 4.6e-161; found by the strict query fuzz harness: the
// hollow cube at scale 2^-239 against a flipped tetrahedron, tests/fuzz/regressions/query/tiny_region_normal_not_unit;
// shapes and world poses are its; its S_I cancels to exactly 0 in some builds, so the vector checks come first). Now
// the normal is a unit vector and the area |S_I| (mc_length_scaled), both ways round.
Test(volume, tiny_regions_have_unit_normals)
{
    mc_vec3 v = mc_v3(3e-162, -4e-162, 0.0);
    mc_vec3 n = mc_normalize(v);
    // Rounding: a few ulps (the scaled components are exact, then one square root and three divisions).
    cr_assert(fabs(n.x - 0.6) < 1e-15 && fabs(n.y + 0.8) < 1e-15 && n.z == 0.0, "normal %.17g %.17g", n.x, n.y);
    cr_assert(fabs(mc_length_scaled(v) / 5e-162 - 1.0) < 1e-15, "length %.17g", mc_length_scaled(v));
    cr_assert(fabs(mc_length_scaled(mc_v3(0, 0x1p+600, 0)) / 0x1p+600 - 1.0) < 1e-15);
    cr_assert(mc_length_scaled(mc_v3(0, 0, 0)) == 0.0 && mc_normalize(mc_v3(0, 0, 0)).x == 0.0);
    mc_mesh* hollow = fuzz_cube(true, 0x1.001009a0102ffp-239, false);
    static const double tet_p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t tet_t[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    mc_mesh* tet = arrays_mesh(tet_p, 4, tet_t, 4, 1.0, true);
    double s = 0x1.12e0be826d695p-30;
    mc_pose pa = {mc_v3(s, s, s), {s, s, -1.0, 1.125}}, pb = {mc_v3(0, s, s), {s, s, s, s}};
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    uint32_t total = 0;
    for (int swap = 0; swap < 2; ++swap)
    {
        mc_region r[8];
        uint32_t count = 0;
        cr_assert_eq(mc_query_regions(swap ? tet : hollow, swap ? &pb : &pa, swap ? hollow : tet, swap ? &pa : &pb,
                                      NULL, ws, r, 8, &count, NULL),
                     MC_OK);
        for (uint32_t k = 0; k < count; ++k)
        {
            double nl = mc_length_scaled(r[k].normal);
            cr_assert((r[k].area == 0.0 && nl == 0.0) || (r[k].area > 0.0 && fabs(nl - 1.0) < 1e-12),
                      "swap %d region %u: area %g, |normal| %.17g", swap, k, r[k].area, nl);
        }
        total += count;
    }
    cr_assert(total > 0, "no region");
    mc_workspace_destroy(ws);
    mc_mesh_destroy(hollow);
    mc_mesh_destroy(tet);
}

/// A mesh from arrays with the self-check skipped (for meshes the default check refuses).
static mc_mesh* unchecked_mesh(const double* pos, uint32_t nv, const uint32_t* idx, uint32_t nt, double scale)
{
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = pos;
    d.vertex_count = nv;
    d.indices = idx;
    d.triangle_count = nt;
    d.scale = scale;
    d.require_closed = true;
    d.self_check = MC_SELF_CHECK_SKIP;
    mc_mesh* m = NULL;
    mc_error err;
    cr_assert_eq(mc_mesh_create(&d, &m, NULL, &err), MC_OK, "%s", err.message);
    return m;
}

// Meshes at the bottom of the coordinate range (2^-240, vec_math.h). With 2^-300 as the lower end the query fuzz
// harness found two tetrahedra of size 2^-299 whose contact volume was 0 one way round and 1.6e-273 the other
// (tests/fuzz/regressions/query/tiny_mesh_asymmetric: J's coordinates below 2^-300 in I's frame rounded to 0, whole
// coordinates of such a mesh), and the mesh_create harness a mesh of two coincident triangles with a vertex at 2^-300
// whose self query had a non-finite centroid (a subnormal volume of rounding noise; regressions/mesh_create/
// tiny_coordinate_nonfinite_region). Both meshes are now refused (test bad_input::tiny_nonzero_coordinates_...); at
// the new lower end the same queries are symmetric and finite.
Test(volume, meshes_at_the_bottom_of_the_range_are_symmetric_and_finite)
{
    static const double tet_p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t tet_t[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    const double s = 0x1p-240;
    mc_mesh* tet = unchecked_mesh(tet_p, 4, tet_t, 4, s);
    mc_vec3 p = mc_v3(s, s, s);
    mc_pose pi = {p, mc_quat_normalize((mc_quat){0x1p-299, 0x1p-299, 0x1p-299, 0x0.012688b70e62bp-1022})};
    mc_pose pj = {p, mc_quat_normalize((mc_quat){0, 0x1.45406fff100ffp-188, -0x1.ep+0, -0x1p-3})};
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    double total[2] = {0.0, 0.0};
    for (int swap = 0; swap < 2; ++swap)
    {
        mc_region reg[8];
        uint32_t n = 0;
        cr_assert_eq(mc_query_regions(tet, swap ? &pj : &pi, tet, swap ? &pi : &pj, NULL, ws, reg, 8, &n, NULL), MC_OK);
        for (uint32_t k = 0; k < n; ++k)
        {
            cr_assert(reg[k].volume > 0.0 && isfinite(reg[k].depth), "swap %d region %u: volume %g", swap, k,
                      reg[k].volume);
            total[swap] += reg[k].volume;
        }
    }
    // The oracle on the same pairs (1e-12 relative: sums of a few dozen terms).
    run_result r;
    run(tet, tet, relative_pose(pi.p, pi.q, pj.p, pj.q), true, true, &r);
    cr_assert(rel(r.volume, r.oracle.volume) < 1e-12, "volume %.17g, oracle %.17g", r.volume, r.oracle.volume);
    // The two share only their corner at p (touching): 0 both ways, as the oracle says (the 1.6e-273 one way round
    // at 2^-299 was the rounding of J's coordinates to 0).
    cr_assert(total[0] == 0.0 && total[1] == 0.0 && r.oracle.volume == 0.0, "totals %g %g, oracle %g", total[0],
              total[1], r.oracle.volume);
    // Overlapping: both turned by the same rotation (J's above), J shifted by s/8 along (1, 1, 1) in I's frame: the
    // overlap is the tetrahedron scaled by 5/8 (closed form), both ways round. 1e-12 relative: the relative rotation
    // is the identity up to a few ulps, which moves the vertices by a few ulps of s.
    mc_vec3 shift = mc_quat_rotate(pj.q, mc_v3(s / 8.0, s / 8.0, s / 8.0));
    mc_pose pa = pj, pb = {mc_add(p, shift), pj.q};
    double want = 125.0 / 512.0 * s * s * s / 6.0;
    for (int swap = 0; swap < 2; ++swap)
    {
        mc_region reg[8];
        uint32_t n = 0;
        cr_assert_eq(mc_query_regions(tet, swap ? &pb : &pa, tet, swap ? &pa : &pb, NULL, ws, reg, 8, &n, NULL), MC_OK);
        cr_assert(n == 1 && rel(reg[0].volume, want) < 1e-12, "swap %d: %u regions, volume %.17g want %.17g", swap, n,
                  n ? reg[0].volume : 0.0, want);
    }
    mc_mesh_destroy(tet);

    // Two coincident triangles wound both ways (volume 0) with a vertex at the lower end, against itself turned.
    double tri_p[] = {0x1p+2, 0x1.2cp+3, 0x1.4p+3, -0x1.08p+2, 0x1p-3, -0x1.08p+2, 0x1p-3, 0x1p-3, 0x1p-3, s, 0, 0};
    static const uint32_t tri_t[] = {0, 0, 0, 2, 0, 0, 3, 1, 2, 1, 3, 2};
    mc_mesh* flat = unchecked_mesh(tri_p, 4, tri_t, 4, 1.0);
    mc_pose id = mc_pose_identity();
    mc_pose turned = {mc_v3(0, 0, 0), mc_quat_normalize((mc_quat){0x1.000020008fcfcp-895, 0x1.4p+3, 0x1.54p+3, 0})};
    mc_region reg[8];
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(flat, &id, flat, &turned, NULL, ws, reg, 8, &n, NULL), MC_OK);
    for (uint32_t k = 0; k < n && k < 8; ++k)
    {
        cr_assert(isfinite(reg[k].volume) && isfinite(reg[k].depth) && isfinite(reg[k].centroid.x) &&
                      isfinite(reg[k].point_i.x) && isfinite(reg[k].point_j.x),
                  "region %u: volume %g depth %g", k, reg[k].volume, reg[k].depth);
    }
    mc_mesh_destroy(flat);
    mc_workspace_destroy(ws);
}

Test(volume, touching_without_penetration_gives_no_region)
{
    mc_mesh* a = box_at(mc_v3(0, 0, 0), mc_v3(1.0, 1.0, 1.0));
    mc_mesh* b = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.5, 0.5));
    // Face to face along each axis, both sides (the symbolic rule moves J into I on one side, away on the other),
    // with a flush edge (y offset 0.5) and a centred contact.
    double offs[2] = {0.0, 0.5};
    for (int axis = 0; axis < 3; ++axis)
    {
        for (int side = -1; side <= 1; side += 2)
        {
            for (int o = 0; o < 2; ++o)
            {
                double t[3] = {offs[o], offs[o], offs[o]};
                t[axis] = side * 1.5;
                run_result r;
                run(a, b, make_pose(t[0], t[1], t[2], mc_quat_identity()), true, false, &r);
                cr_assert_eq(r.count, 0, "axis %d side %d: %u regions, first volume %g", axis, side, r.count,
                             r.count ? r.regions[0].volume : 0.0);
            }
        }
    }
    // Vertex of a rotated cube touching a face exactly: the corner (0.5,0.5,0.5) rotated onto the -z axis.
    mc_vec3 corner = mc_v3(0.5, 0.5, 0.5);
    mc_vec3 down = mc_v3(0, 0, -1);
    mc_vec3 axis = mc_cross(mc_normalize(corner), down);
    double ang = acos(mc_dot(mc_normalize(corner), down));
    mc_quat q = axis_angle(axis, ang);
    mc_vec3 rc = mc_quat_rotate(q, corner);
    run_result r;
    run(a, b, make_pose(0.0, 0.0, 1.0 - rc.z, q), true, false, &r);
    // The rotated corner is at z = 1 up to rounding of the rotation: either no region or a negligible one.
    cr_assert(r.count == 0 || r.regions[0].volume < 1e-15);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
}

Test(volume, depth_methods)
{
    mc_mesh* s = scene_uv_sphere(1.0, 4000);
    mc_mesh* plate = box_at(mc_v3(0, 0, -1.0), mc_v3(4.0, 4.0, 1.0));
    mc_pose pj = make_pose(0.0123, 0.0071, -0.9, axis_angle(mc_v3(1, 2, 0), 0.05));
    double h = 1.0 - fabs(mc_dot(mc_quat_rotate(pj.q, mc_v3(0, 0, 1)), pj.p));
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pair_result pr;
    cr_assert_eq(mc_collide(s, plate, &pj, 1, &ws->pairs, &pr, NULL), MC_OK);
    mc_region r[3];
    for (int m = 0; m < 3; ++m)
    {
        mc_region_options opt = mc_default_region_options();
        opt.depth_method = (mc_depth_method)m;
        uint32_t n = 0;
        cr_assert_eq(mc_regions_compute(s, plate, &pj, &pr, ws, &opt, &r[m], 1, &n, NULL), MC_OK);
        cr_assert_eq(n, 1);
    }
    cr_assert(fabs(r[1].depth - 2.0 * r[1].volume / r[1].area) < 1e-15);
    // Cap of height h: extent along the normal and Adams' depth are h (up to the tessellation); 2V/A of a cap is
    // 2 h (3R - h) / (3 (2R - h)).
    cr_assert(fabs(r[2].depth - h) < 5e-3, "extent %g want %g", r[2].depth, h);
    cr_assert(fabs(r[0].depth - h) < 5e-3, "adams %g want %g", r[0].depth, h);
    cr_assert(fabs(r[1].depth - 2.0 * h * (3.0 - h) / (3.0 * (2.0 - h))) < 5e-3, "2V/A %g", r[1].depth);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(s);
    mc_mesh_destroy(plate);
}

Test(volume, workspace_reuse_across_meshes_gives_the_same_regions)
{
    // The region scratch keeps per-vertex and per-face marks that each query must leave clean: alternate two very
    // different mesh pairs on one workspace and compare with fresh workspaces (bitwise: same inputs, same order).
    mc_mesh* s = scene_uv_sphere(1.0, 3000);
    mc_mesh* g = scene_box_grid(mc_v3(1.0, 1.0, 1.0), 1200);
    mc_mesh* b = box_at(mc_v3(0, 0, 0), mc_v3(0.3, 0.3, 0.3));
    mc_pose id = mc_pose_identity();
    mc_pose p1 = make_pose(1.2, 0.3, 0.1, axis_angle(mc_v3(1, 2, 3), 0.4));
    mc_pose p2 = make_pose(0.1, 0.2, 0.3, mc_quat_identity()); // b entirely inside g: no crossing at all
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region fresh[2][4], reused[4];
    uint32_t nf[2], nr = 0;
    const mc_mesh* mi[2] = {s, g};
    const mc_mesh* mj[2] = {g, b};
    const mc_pose* pj[2] = {&p1, &p2};
    for (int k = 0; k < 2; ++k)
    {
        mc_workspace* ws = NULL;
        cr_assert_eq(mc_workspace_create(&ws), MC_OK);
        cr_assert_eq(mc_query_regions(mi[k], &id, mj[k], pj[k], &opt, ws, fresh[k], 4, &nf[k], NULL), MC_OK);
        cr_assert_eq(nf[k], 1);
        mc_workspace_destroy(ws);
    }
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    for (int round = 0; round < 6; ++round)
    {
        int k = round % 2;
        cr_assert_eq(mc_query_regions(mi[k], &id, mj[k], pj[k], &opt, ws, reused, 4, &nr, NULL), MC_OK);
        cr_assert_eq(nr, nf[k]);
        cr_assert(memcmp(&reused[0], &fresh[k][0], sizeof reused[0]) == 0, "round %d differs", round);
    }
    cr_assert(rel(fresh[1][0].volume, 0.6 * 0.6 * 0.6) < 1e-13);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(s);
    mc_mesh_destroy(g);
    mc_mesh_destroy(b);
}

static int64_t s_allocs;
static int64_t s_fail_at; // when non-zero, the allocation with this number (1-based count) fails
static void* count_alloc(size_t size, size_t align)
{
    if (++s_allocs == s_fail_at)
    {
        return NULL;
    }
    void* p = NULL;
    return posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, size) == 0 ? p : NULL;
}
static void count_free(void* p, size_t size)
{
    (void)size;
    free(p);
}

Test(volume, no_allocation_once_warm_and_no_leak)
{
    mc_set_allocator(count_alloc, count_free);
    mc_mesh* a = scene_uv_sphere(1.0, 2000);
    mc_mesh* b = scene_uv_sphere(1.0, 3000);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose pi = mc_pose_identity();
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region out[8];
    uint32_t n = 0;
    for (int k = 0; k < 3; ++k)
    {
        mc_pose pj = make_pose(1.5 + 0.01 * k, 0.1, 0.0, mc_quat_identity());
        cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, out, 8, &n, NULL), MC_OK);
    }
    int64_t before = s_allocs;
    for (int k = 0; k < 3; ++k)
    {
        mc_pose pj = make_pose(1.5 + 0.01 * k, 0.1, 0.0, mc_quat_identity());
        cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, out, 8, &n, NULL), MC_OK);
        cr_assert_eq(n, 1);
    }
    cr_assert_eq(s_allocs, before, "%lld allocations in warm queries", (long long)(s_allocs - before));
    // Capacity: too small a buffer reports the count and MC_ERR_CAPACITY.
    mc_pose pj = make_pose(1.5, 0.1, 0.0, mc_quat_identity());
    cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, NULL, 0, &n, NULL), MC_ERR_CAPACITY);
    cr_assert_eq(n, 1);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
    cr_assert_eq(mc_get_byte_count(), 0);
}

// A cold query (fresh workspace, meshes' region blocks not built yet) fails each of its allocations in turn: the
// status is MC_ERR_OUT_OF_MEMORY, nothing is written, and destroying the workspace and meshes leaves nothing
// allocated; the same workspace then answers correctly once memory is back.
static bool blocks_built(mc_mesh* m)
{
    return atomic_load_explicit(&m->region_cache, memory_order_acquire) != NULL;
}
Test(volume, cold_query_survives_every_allocation_failure)
{
    mc_set_allocator(count_alloc, count_free);
    s_fail_at = 0;
    mc_pose pi = mc_pose_identity();
    mc_pose pj = make_pose(1.5, 0.1, 0.0, mc_quat_identity());
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 2;
    // Reference: the number of allocations of a cold query and its answer.
    mc_mesh* a = scene_uv_sphere(1.0, 2000);
    mc_mesh* b = scene_uv_sphere(1.0, 3000);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_region want[4];
    uint32_t n_want = 0;
    s_allocs = 0;
    cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, want, 4, &n_want, NULL), MC_OK);
    int64_t calls = s_allocs;
    cr_assert(n_want == 1 && calls > 0);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
    int64_t tolerated = 0;
    for (int64_t k = 1; k <= calls; ++k)
    {
        s_fail_at = 0;
        a = scene_uv_sphere(1.0, 2000);
        b = scene_uv_sphere(1.0, 3000);
        ws = NULL;
        cr_assert_eq(mc_workspace_create(&ws), MC_OK);
        mc_region got[4];
        memset(got, 0, sizeof got);
        uint32_t n = 12345;
        s_allocs = 0;
        s_fail_at = k;
        mc_status st = mc_query_regions(a, &pi, b, &pj, &opt, ws, got, 4, &n, NULL);
        s_fail_at = 0;
        if (st == MC_OK)
        {
            // Only the optional region blocks may fail quietly (the query then sums per vertex and per face, with
            // the same result up to the order of the sums: 1e-12 relative, as in blocks_give_the_regions_of_...).
            cr_assert(n == 1 && fabs(got[0].volume - want[0].volume) <= 1e-12 * want[0].volume,
                      "allocation %lld: wrong answer after a tolerated failure", (long long)k);
            cr_assert(!blocks_built(a) || !blocks_built(b),
                      "allocation %lld: a failure was ignored outside the region blocks", (long long)k);
            ++tolerated;
        }
        else
        {
            cr_assert_eq(st, MC_ERR_OUT_OF_MEMORY, "allocation %lld of %lld: status %d", (long long)k, (long long)calls,
                         (int)st);
            cr_assert(got[0].volume == 0.0, "allocation %lld: a region was written", (long long)k);
        }
        // Memory back: the same workspace and meshes give the reference answer.
        cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, got, 4, &n, NULL), MC_OK);
        cr_assert(n == 1 && got[0].volume == want[0].volume, "allocation %lld: recovery", (long long)k);
        mc_workspace_destroy(ws);
        mc_mesh_destroy(a);
        mc_mesh_destroy(b);
        cr_assert_eq(mc_get_byte_count(), 0, "allocation %lld: %lld bytes left", (long long)k,
                     (long long)mc_get_byte_count());
    }
    cr_assert(tolerated < calls / 2, "%lld of %lld failures tolerated", (long long)tolerated, (long long)calls);
    mc_set_allocator(NULL, NULL);
}

/// Check the blocks of mesh m against brute force: a partition into edge-connected blocks of at most
/// MC_BLOCK_TRIANGLES triangles, radii bounding every vertex, aggregated terms equal to the per-face sums, owned
/// vertices, and neighbour entries equal to the (block, other block, shared vertex) triples of the vertex rings.
static void check_blocks(const mc_mesh* m, const char* name)
{
    const mc_region_blocks* b = mc_region_blocks_get(m);
    cr_assert_not_null(b, "%s: no blocks", name);
    cr_assert_eq(mc_region_blocks_get(m), b, "%s: blocks are built once", name);
    uint32_t nt = mc_mesh_get_triangle_count(m), nv = mc_mesh_get_vertex_count(m);
    const uint32_t* idx = mc_mesh_get_indices(m);
    const mc_vec3* pos = mc_mesh_get_positions(m);
    uint32_t* seen = calloc(nt, sizeof *seen);
    uint32_t* queue = malloc(sizeof *queue * MC_BLOCK_TRIANGLES);
    uint64_t total = 0, owned = 0;
    for (uint32_t k = 0; k < b->block_count; ++k)
    {
        const mc_block_topo* tp = &b->topo[k];
        const mc_block_sums* bs = &b->sums[k];
        cr_assert(tp->tri_count >= 1 && tp->tri_count <= MC_BLOCK_TRIANGLES, "%s: block size %u", name, tp->tri_count);
        total += tp->tri_count;
        owned += tp->vert_count;
        double vol6 = 0.0, mag = 0.0;
        mc_vec3 mom = mc_v3(0, 0, 0), s2 = mc_v3(0, 0, 0);
        mc_vec3 o = mc_add(bs->center, mc_v3(0.3, -0.2, 0.1)); // any origin: the terms are polynomials in it
        for (uint32_t i = 0; i < tp->tri_count; ++i)
        {
            uint32_t t = b->tris[tp->tri_first + i];
            cr_assert(t < nt && b->tri_block[t] == k && seen[t] == 0, "%s: triangle %u listed wrongly", name, t);
            seen[t] = 1;
            mc_vec3 p[3];
            for (int j = 0; j < 3; ++j)
            {
                p[j] = pos[idx[3 * t + j]];
                cr_assert(mc_length(mc_sub(p[j], bs->center)) <= bs->radius, "%s: radius too small", name);
                p[j] = mc_sub(p[j], o);
            }
            double v6 = mc_dot(p[0], mc_cross(p[1], p[2]));
            vol6 += v6;
            mag += fabs(v6);
            mom = mc_mul_add(mom, v6, mc_add(mc_add(p[0], p[1]), p[2]));
            s2 = mc_add(s2, mc_cross(mc_sub(p[1], p[0]), mc_sub(p[2], p[0])));
        }
        // The block's polynomials at o (as src/contact/regions.c evaluates them).
        mc_vec3 q = mc_sub(o, bs->center);
        double os = mc_dot(q, bs->s2);
        mc_vec3 mq =
            mc_v3(bs->m[0] * q.x + bs->m[1] * q.y + bs->m[2] * q.z, bs->m[3] * q.x + bs->m[4] * q.y + bs->m[5] * q.z,
                  bs->m[6] * q.x + bs->m[7] * q.y + bs->m[8] * q.z);
        mc_vec3 pm = mc_sub(mc_mul_add(bs->p24, 3.0 * (os - bs->d6), q), mq);
        // Both sides sum at most 64 terms of magnitude <= mag (times coordinates of size <= |o - center| + radius):
        // rounding ~1e-14 of that; a wrong formula is off by whole terms.
        double scale = mag * (1.0 + mc_length(q) + bs->radius) + DBL_MIN;
        cr_assert(fabs(bs->d6 - os - vol6) <= 1e-12 * scale, "%s: block %u volume %g vs %g", name, k, bs->d6 - os,
                  vol6);
        cr_assert(mc_length(mc_sub(pm, mom)) <= 1e-12 * scale * (1.0 + mc_length(q)), "%s: block %u moment", name, k);
        cr_assert(mc_length(mc_sub(bs->s2, s2)) <= 1e-12 * (mc_length(s2) + bs->radius * bs->radius), "%s: area", name);
        // Edge-connected: a breadth-first walk inside the block reaches all of it.
        uint32_t head = 0, tail = 0;
        queue[tail++] = b->tris[tp->tri_first];
        seen[queue[0]] = 2;
        while (head < tail)
        {
            uint32_t t = queue[head++];
            for (uint32_t e = 0; e < 3; ++e)
            {
                // The neighbour across edge e: the triangle holding the reversed edge.
                uint32_t v0 = idx[3 * t + e], v1 = idx[3 * t + (e + 1) % 3];
                for (uint32_t i = 0; i < tp->tri_count; ++i)
                {
                    uint32_t g = b->tris[tp->tri_first + i];
                    for (uint32_t f = 0; f < 3 && seen[g] == 1; ++f)
                    {
                        if (idx[3 * g + f] == v1 && idx[3 * g + (f + 1) % 3] == v0)
                        {
                            seen[g] = 2;
                            queue[tail++] = g;
                        }
                    }
                }
            }
        }
        cr_assert_eq(tail, tp->tri_count, "%s: block %u is not edge-connected", name, k);
    }
    cr_assert_eq(total, nt, "%s: blocks hold %llu of %u triangles", name, (unsigned long long)total, nt);
    // Blocks around each vertex, by brute force over the corners.
    uint32_t* deg = calloc(nv, sizeof *deg);
    uint32_t* around = malloc(sizeof *around * 3 * (size_t)nt);
    uint32_t* start = calloc((size_t)nv + 1, sizeof *start);
    for (uint32_t c = 0; c < 3 * nt; ++c)
    {
        start[idx[c] + 1]++;
    }
    for (uint32_t v = 0; v < nv; ++v)
    {
        start[v + 1] += start[v];
    }
    uint64_t expected = 0, used = 0;
    for (uint32_t c = 0; c < 3 * nt; ++c)
    {
        uint32_t v = idx[c], k = b->tri_block[c / 3], i = 0;
        while (i < deg[v] && around[start[v] + i] != k)
        {
            ++i;
        }
        if (i == deg[v])
        {
            around[start[v] + deg[v]++] = k;
        }
    }
    for (uint32_t v = 0; v < nv; ++v)
    {
        expected += (uint64_t)deg[v] * (deg[v] > 0 ? deg[v] - 1 : 0);
        used += deg[v] > 0;
    }
    cr_assert_eq(owned, used, "%s: owned vertices %llu, used %llu", name, (unsigned long long)owned,
                 (unsigned long long)used);
    uint64_t listed = 0;
    for (uint32_t k = 0; k < b->block_count; ++k)
    {
        const mc_block_topo* tp = &b->topo[k];
        for (uint32_t e = tp->nbr_first; e < tp->nbr_first + tp->nbr_count; ++e)
        {
            uint32_t other = b->nbr_block[e];
            cr_assert(other != k && (e == tp->nbr_first || other > b->nbr_block[e - 1]), "%s: neighbour order", name);
            cr_assert(b->nbr_vfirst[e + 1] > b->nbr_vfirst[e], "%s: a neighbour without a shared vertex", name);
            for (uint32_t i = b->nbr_vfirst[e]; i < b->nbr_vfirst[e + 1]; ++i)
            {
                uint32_t v = b->shared_v[i];
                cr_assert(i == b->nbr_vfirst[e] || v > b->shared_v[i - 1], "%s: shared vertex order", name);
                int in_k = 0, in_other = 0;
                for (uint32_t j = 0; j < deg[v]; ++j)
                {
                    in_k |= around[start[v] + j] == k;
                    in_other |= around[start[v] + j] == other;
                }
                cr_assert(in_k && in_other, "%s: vertex %u is not shared by blocks %u and %u", name, v, k, other);
                listed++;
            }
        }
    }
    // Every listed triple is a true one and none repeats (strict orders above): equal counts mean equal sets.
    cr_assert_eq(listed, expected, "%s: %llu neighbour triples, expected %llu", name, (unsigned long long)listed,
                 (unsigned long long)expected);
    free(seen);
    free(queue);
    free(deg);
    free(around);
    free(start);
}

Test(volume, blocks_partition_the_mesh_and_aggregate_its_terms)
{
    mc_mesh* meshes[4] = {scene_uv_sphere(1.0, 3000), scene_torus(1.0, 0.3, 2000),
                          scene_box_grid(mc_v3(1.0, 2.0, 0.5), 1200), box_at(mc_v3(5.0, -3.0, 2.0), mc_v3(1, 1, 1))};
    const char* names[4] = {"uv_sphere (poles of high valence)", "torus", "box_grid", "box"};
    for (int k = 0; k < 4; ++k)
    {
        cr_assert_not_null(meshes[k]);
        check_blocks(meshes[k], names[k]);
        mc_mesh_destroy(meshes[k]);
    }
}

/// Regions with blocks equal those without (per vertex and per face): same counts, same depth candidates; volume,
/// centroid and vector areas to rounding (1e-12 relative: both sum O(10^4) terms of one magnitude around the same
/// origin, the block polynomials regroup a block's terms).
static void check_blocks_equal(const mc_mesh* mi, const mc_mesh* mj, mc_pose j_in_i, const char* name)
{
    run_result with, without;
    mc_region_options opt = mc_default_region_options();
    run_options(mi, mj, j_in_i, &opt, false, &with);
    opt.use_blocks = false;
    run_options(mi, mj, j_in_i, &opt, false, &without);
    cr_assert_eq(with.count, without.count, "%s: %u regions with blocks, %u without", name, with.count, without.count);
    cr_assert(with.count > 0, "%s: no region", name);
    cr_assert_eq(with.stats.inside_vertices, without.stats.inside_vertices, "%s: inside vertices", name);
    for (uint32_t k = 0; k < with.count; ++k)
    {
        const mc_region* a = &with.regions[k];
        const mc_region* b = &without.regions[k];
        double size = cbrt(b->volume), area = fmax(b->area, size * size);
        cr_assert_eq(a->crossings, b->crossings, "%s: region %u crossings", name, k);
        cr_assert_eq(a->inside_vertices, b->inside_vertices, "%s: region %u inside vertices", name, k);
        cr_assert(rel(a->volume, b->volume) < 1e-12, "%s: region %u volume %.17g vs %.17g", name, k, a->volume,
                  b->volume);
        cr_assert(mc_length(mc_sub(a->centroid, b->centroid)) < 1e-12 * fmax(size, mc_length(b->centroid)),
                  "%s: region %u centroid", name, k);
        cr_assert(mc_length(mc_sub(a->s_i, b->s_i)) < 1e-11 * area, "%s: region %u S_I", name, k);
        cr_assert(mc_length(mc_sub(a->s_j, b->s_j)) < 1e-11 * area, "%s: region %u S_J", name, k);
        // Depth: the minimum over the same faces from a centroid that differs by rounding only.
        cr_assert(fabs(a->depth - b->depth) < 1e-10 * fmax(size, b->depth), "%s: region %u depth %.17g vs %.17g", name,
                  k, a->depth, b->depth);
    }
}

Test(volume, blocks_give_the_regions_of_per_face_sums)
{
    for (int kind = 0; kind < SCENE_KIND_COUNT; ++kind)
    {
        scene_pair sp;
        cr_assert_eq(scene_make((scene_kind)kind, 20000, &sp), 0);
        mc_pose inv = mc_pose_inverse(&sp.pose_i);
        check_blocks_equal(sp.mesh_i, sp.mesh_j, mc_pose_mul(&inv, &sp.pose_j), sp.name);
        scene_pair_destroy(&sp);
    }
    // A body entirely inside the other (regions without crossings, found from a component's vertex), and several
    // separate regions of one body (feet of a table on a plate).
    mc_mesh* big = scene_uv_sphere(2.0, 6000);
    mc_mesh* small = scene_uv_sphere(0.5, 4000);
    check_blocks_equal(big, small, make_pose(0.3, -0.2, 0.1, axis_angle(mc_v3(1, 2, 3), 0.3)), "inside");
    check_blocks_equal(small, big, make_pose(-0.3, 0.2, -0.1, axis_angle(mc_v3(1, 2, 3), -0.3)), "inside_swapped");
    check_blocks_equal(big, small, make_pose(1.8, 0.1, 0.0, mc_quat_identity()), "sphere_sphere_unequal");
    mc_mesh_destroy(big);
    mc_mesh_destroy(small);
}

Test(volume, prepared_regions_cost_no_allocation_in_the_first_query_and_are_counted)
{
    mc_set_allocator(count_alloc, count_free);
    mc_mesh* a = scene_uv_sphere(1.0, 2000);
    mc_mesh* b = scene_uv_sphere(1.0, 3000);
    size_t bytes_a = mc_mesh_get_byte_count(a);
    cr_assert_eq(mc_mesh_prepare_regions(a), MC_OK);
    cr_assert_eq(mc_mesh_prepare_regions(b), MC_OK);
    cr_assert_eq(mc_mesh_prepare_regions(NULL), MC_ERR_INVALID_ARGUMENT);
    const mc_region_blocks* blk = mc_region_blocks_get(a);
    cr_assert_not_null(blk);
    // The blocks' own count of their bytes is added to the mesh's, and a second prepare builds nothing.
    cr_assert_eq(mc_mesh_get_byte_count(a), bytes_a + blk->byte_count);
    int64_t before = s_allocs;
    cr_assert_eq(mc_mesh_prepare_regions(a), MC_OK);
    cr_assert_eq(s_allocs, before);
    // A warm workspace (from a finer pair of meshes at the same pose, so that every scratch buffer is already large
    // enough) then queries the prepared pair without allocating.
    mc_mesh* c = scene_uv_sphere(1.0, 8000);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_pose pi = mc_pose_identity();
    mc_pose pj = make_pose(1.5, 0.1, 0.0, mc_quat_identity());
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 1;
    mc_region out[8];
    uint32_t n = 0;
    cr_assert_eq(mc_query_regions(c, &pi, c, &pj, &opt, ws, out, 8, &n, NULL), MC_OK);
    before = s_allocs;
    cr_assert_eq(mc_query_regions(a, &pi, b, &pj, &opt, ws, out, 8, &n, NULL), MC_OK);
    cr_assert_eq(s_allocs, before, "%lld allocations in the first query of prepared meshes",
                 (long long)(s_allocs - before));
    cr_assert_eq(n, 1);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    mc_mesh_destroy(b);
    mc_mesh_destroy(c);
    cr_assert_eq(mc_get_byte_count(), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Flush faces: pieces of the boundary that lie on a face of the other mesh in the same plane count in the volume and
// centroid but not in the vector areas (regions.c, "Flush faces").

/// The regions of mi and mj at J's pose pj (I at the identity) in the three variants of check_oracle, against the
/// oracle on the same pairs: the volume within 1e-13 relative; S_I and S_J (flush pieces left out in both) within
/// 1e-11 of the area with triangle terms. (The pure flag sums are not held to that: on a part against a translated copy
/// of itself their vector areas differ from the triangle terms' by up to 1e-5 relative, flush pieces or not, while
/// their volume agrees, seen on x-end-idler and x-end-motor shifted along y: their S is checked when `flag_areas`.)
/// r receives variant 0's result (the default options), the last one run.
/// When false, S_I and S_J are not checked (set by the real parts' test: see there).
static bool check_near_flush_areas = true;

static void check_flush_oracle(const mc_mesh* mi, const mc_mesh* mj, mc_pose pj, const char* name, bool flag_areas,
                               run_result* r)
{
    // The clipping oracle depends on the pose alone: computed with the first variant, kept for the other two.
    clip_oracle_result oracle;
    for (int tt = 2; tt >= 0; --tt)
    {
        mc_region_options opt = mc_default_region_options();
        opt.triangle_terms = tt != 2;
        opt.use_blocks = tt == 0;
        run_options(mi, mj, pj, &opt, tt == 2, r);
        if (tt == 2)
        {
            oracle = r->oracle;
        }
        r->oracle = oracle;
        cr_assert_eq(oracle.inside_vertices_i + oracle.inside_vertices_j, r->stats.inside_vertices,
                     "%s (variant %d): inside vertices: oracle %u + %u, regions %llu", name, tt,
                     oracle.inside_vertices_i, oracle.inside_vertices_j, (unsigned long long)r->stats.inside_vertices);
        cr_assert(r->oracle.volume > 0.0, "%s: oracle found no overlap", name);
        cr_assert(rel(r->volume, r->oracle.volume) < 1e-13, "%s (variant %d): volume %.17g oracle %.17g", name, tt,
                  r->volume, r->oracle.volume);
        mc_vec3 si = mc_v3(0, 0, 0), sj = mc_v3(0, 0, 0);
        for (uint32_t k = 0; k < r->count; ++k)
        {
            si = mc_add(si, r->regions[k].s_i);
            sj = mc_add(sj, r->regions[k].s_j);
        }
        double size = cbrt(r->oracle.volume);
        double area = fmax(fmax(mc_length(r->oracle.s_i), mc_length(r->oracle.flush_i)), size * size);
        if ((tt == 2 && !flag_areas) || !check_near_flush_areas)
        {
            continue;
        }
        double tol = 1e-11 * area;
        cr_assert(mc_length(mc_sub(si, r->oracle.s_i)) < tol,
                  "%s (variant %d): S_I (%.17g %.17g %.17g) oracle (%.17g %.17g %.17g), flush (%g %g %g)", name, tt,
                  si.x, si.y, si.z, r->oracle.s_i.x, r->oracle.s_i.y, r->oracle.s_i.z, r->oracle.flush_i.x,
                  r->oracle.flush_i.y, r->oracle.flush_i.z);
        cr_assert(mc_length(mc_sub(sj, r->oracle.s_j)) < tol,
                  "%s (variant %d): S_J (%.17g %.17g %.17g) oracle (%.17g %.17g %.17g), flush (%g %g %g)", name, tt,
                  sj.x, sj.y, sj.z, r->oracle.s_j.x, r->oracle.s_j.y, r->oracle.s_j.z, r->oracle.flush_j.x,
                  r->oracle.flush_j.y, r->oracle.flush_j.z);
    }
}

Test(volume, flush_faces_of_stacked_boxes_give_the_footprint_exactly)
{
    // Two identical unit boxes, the second 0.99 above the first: their side faces lie in four common planes. The
    // region is the 1 x 1 x 0.01 slab; S_I is I's top face inside J, exactly (0, 0, 1), S_J its opposite.
    mc_mesh* a = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.5, 0.5));
    run_result r;
    for (int swap = 0; swap < 2; ++swap)
    {
        double z = swap ? -0.99 : 0.99; // J above I, then below
        run(a, a, make_pose(0.0, 0.0, z, mc_quat_identity()), true, false, &r);
        cr_assert_eq(r.count, 1);
        const mc_region* g = &r.regions[0];
        double up = swap ? -1.0 : 1.0;
        cr_assert(g->normal.x == 0.0 && g->normal.y == 0.0 && g->normal.z == up, "normal (%.17g %.17g %.17g)",
                  g->normal.x, g->normal.y, g->normal.z);
        cr_assert(g->area == 1.0, "area %.17g", g->area);
        cr_assert(g->s_i.x == 0.0 && g->s_i.y == 0.0 && g->s_i.z == up && g->s_j.x == 0.0 && g->s_j.y == 0.0 &&
                      g->s_j.z == -up,
                  "S_I (%.17g %.17g %.17g) S_J (%.17g %.17g %.17g)", g->s_i.x, g->s_i.y, g->s_i.z, g->s_j.x, g->s_j.y,
                  g->s_j.z);
        cr_assert(rel(g->volume, 1.0 - 0.99) < 1e-13, "volume %.17g", g->volume);
        cr_assert(fabs(g->depth - (1.0 - 0.99)) < 1e-15, "depth %.17g", g->depth);
        check_flush_oracle(a, a, make_pose(0.0, 0.0, z, mc_quat_identity()), "stacked_boxes", true, &r);
    }
    // Finer boxes (faces split into grids, whole faces and blocks in the flush planes): the same up to rounding.
    mc_mesh* g = scene_box_grid(mc_v3(0.5, 0.5, 0.5), 3000);
    check_flush_oracle(g, g, make_pose(0.0, 0.0, 0.75, mc_quat_identity()), "stacked_grid_boxes", true, &r);
    cr_assert_eq(r.count, 1);
    cr_assert(fabs(r.regions[0].area - 1.0) < 1e-13 && r.regions[0].normal.z > 1.0 - 1e-15, "grid: area %.17g",
              r.regions[0].area);
    check_flush_oracle(a, g, make_pose(0.25, 0.0, 0.75, mc_quat_identity()), "box_on_grid_box_offset", true, &r);
    mc_mesh_destroy(a);
    mc_mesh_destroy(g);
}

Test(volume, near_flush_faces_within_the_tolerance_only)
{
    // Two unit boxes stacked 0.99 apart (above), J tilted by theta about x through its centre: its +-y faces cross
    // I's planes y = +-0.5 at J's centre height, outside the overlap, so across the 0.01 x 1 strips the faces are
    // 0.5 theta apart (I's +y strip inside J, J's -y strip inside I). Within the near-flush tolerance (regions.c,
    // "Near-flush faces": 1e-9 rad) the strips count in no vector area: theta = 1e-13 (a rounding tilt) gives S_I and
    // S_J lateral within 1e-12 (the true lateral terms are the tilt's, 1e-13, plus the strips' 0.01 left out), the
    // volume the oracle's within 1e-13. Beyond it (theta = 1e-6) the true tilted area vectors: the oracle's (which
    // knows no tolerance) within 1e-11 of the area, their strips (0.01 in y) included.
    mc_mesh* a = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.5, 0.5));
    run_result r;
    const double thetas[2] = {1e-13, 1e-6};
    for (int k = 0; k < 2; ++k)
    {
        double h = 0.5 * thetas[k];
        mc_quat q = {.w = cos(h), .x = sin(h), .y = 0.0, .z = 0.0};
        mc_pose pj = make_pose(0.0, 0.0, 0.99, q);
        run(a, a, pj, true, true, &r);
        cr_assert_eq(r.count, 1);
        const mc_region* g = &r.regions[0];
        cr_assert(rel(r.volume, r.oracle.volume) < 1e-13, "theta %g: volume %.17g oracle %.17g", thetas[k], r.volume,
                  r.oracle.volume);
        cr_log_info("theta %g: S_I (%.3g %.3g %.17g) S_J (%.3g %.3g %.17g), oracle S_I.y %.3g", thetas[k], g->s_i.x,
                    g->s_i.y, g->s_i.z, g->s_j.x, g->s_j.y, g->s_j.z, r.oracle.s_i.y);
        if (k == 0)
        {
            cr_assert(fabs(g->s_i.x) < 1e-12 && fabs(g->s_i.y) < 1e-12 && fabs(g->s_j.x) < 1e-12 &&
                          fabs(g->s_j.y) < 1e-12,
                      "S_I (%g %g) S_J (%g %g)", g->s_i.x, g->s_i.y, g->s_j.x, g->s_j.y);
            cr_assert(fabs(g->area - 1.0) < 1e-12 && fabs(r.oracle.s_i.y) > 0.009, "area %.17g, oracle S_I.y %g",
                      g->area, r.oracle.s_i.y);
        }
        else
        {
            cr_assert(fabs(g->s_i.y) > 0.009, "the tilted strip's area is left out: S_I.y %g", g->s_i.y);
            check_flush_oracle(a, a, pj, "tilted 1e-6", true, &r);
        }
    }
    mc_mesh_destroy(a);
}

Test(volume, flush_faces_of_real_parts_against_their_copies_match_the_oracle, .timeout = 300)
{
    // CAD parts (and Spot) against copies of themselves translated along a coordinate axis, or in the plane of the
    // part's flat bottom: every face whose normal is exactly perpendicular to the translation stays in its plane, so
    // the copies meet in many flush faces (side walls, tops, bottoms, mixed ones where a wall steps out of the plane).
    const char* files[] = {"data/prusa/LCD-knob.stl",    "data/prusa/fs-lever.stl",     "data/prusa/x-end-idler.stl",
                           "data/prusa/x-end-motor.stl", "data/prusa/Spool-holder.stl", "data/spot.obj"};
    uint64_t rng = 35;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f)
    {
        mc_mesh* m = scene_import(files[f]);
        cr_assert(m != NULL, "%s: data/ mesh missing", files[f]);
        mc_mesh_report rep = m->report;
        mc_vec3 ext = mc_sub(rep.bbox_max, rep.bbox_min);
        for (int k = 0; k < 4; ++k)
        {
            // Along x, y, z, then in the xy plane; by 5 % to 45 % of the part's extent.
            mc_vec3 t = mc_v3(0, 0, 0);
            double u = 0.05 + 0.4 * scene_random(&rng), w = 0.05 + 0.4 * scene_random(&rng);
            if (k < 3)
            {
                (&t.x)[k] = (scene_random(&rng) < 0.5 ? -u : u) * (&ext.x)[k];
            }
            else
            {
                t = mc_v3(u * ext.x, -w * ext.y, 0.0);
            }
            char name[160];
            snprintf(name, sizeof name, "%s shifted %d (%g %g %g)", files[f], k, t.x, t.y, t.z);
            run_result r;
            // The volume only: the parts' walls hold triangles coplanar only up to the data's rounding, whose layers
            // the near-flush rule (regions.c) leaves out of S_I and S_J while the oracle counts them (LCD-knob shifted
            // along z: S_I.x 44.13 against the oracle's 44.31). TODO: the near-flush rule in the oracle.
            check_near_flush_areas = false;
            check_flush_oracle(m, m, make_pose(t.x, t.y, t.z, mc_quat_identity()), name, false, &r);
            check_near_flush_areas = true;
        }
        mc_mesh_destroy(m);
    }
}

/// A U-shaped block (28 triangles): the profile x in [-1.5, 1.5], z in [-1, 1] less the slot x in [-0.5, 0.5], z in
/// [0, 1], extruded along y over [-0.5, 0.5]. The slot's floor is z = 0, its walls x = -0.5 and x = 0.5.
static mc_mesh* u_block(void)
{
    // Profile counter-clockwise in (x, z): A B C D E F G H.
    static const double px[8] = {-1.5, 1.5, 1.5, 0.5, 0.5, -0.5, -0.5, -1.5};
    static const double pz[8] = {-1.0, -1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0};
    double pos[48];
    for (int k = 0; k < 8; ++k)
    {
        for (int side = 0; side < 2; ++side) // vertex k at y = -0.5 (index k), at y = +0.5 (index k + 8)
        {
            pos[3 * (k + 8 * side) + 0] = px[k];
            pos[3 * (k + 8 * side) + 1] = side ? 0.5 : -0.5;
            pos[3 * (k + 8 * side) + 2] = pz[k];
        }
    }
    // Caps: the profile split into the quads BCDE, ABEF, AFGH (two triangles each). Seen from -y, the (x, z) order
    // A B C ... is counter-clockwise around -y's opposite, so the cap at y = -0.5 takes the triangles reversed.
    static const uint32_t cap[6][3] = {{1, 2, 3}, {1, 3, 4}, {0, 1, 4}, {0, 4, 5}, {0, 5, 7}, {5, 6, 7}};
    uint32_t idx[28 * 3];
    uint32_t n = 0;
    for (int t = 0; t < 6; ++t)
    {
        uint32_t a = cap[t][0], b = cap[t][1], c = cap[t][2];
        uint32_t back[3] = {a, c, b}, front[3] = {a + 8u, b + 8u, c + 8u};
        for (int k = 0; k < 3; ++k)
        {
            idx[n + k] = back[k];
            idx[n + 3 + k] = front[k];
        }
        n += 6;
    }
    for (uint32_t k = 0; k < 8; ++k) // the sides: edge k -> k + 1 of the profile, outward
    {
        uint32_t a = k, b = (k + 1u) % 8u;
        uint32_t quad[6] = {a, b, b + 8u, a, b + 8u, a + 8u};
        for (int j = 0; j < 6; ++j)
        {
            idx[n + (uint32_t)j] = quad[j];
        }
        n += 6;
    }
    mc_mesh* m = scene_mesh_from_arrays(pos, 16, idx, 28);
    cr_assert(m != NULL && fabs(m->report.volume - (6.0 - 1.0)) < 1e-14, "U block volume %g",
              m != NULL ? m->report.volume : 0.0);
    return m;
}

/// J (mesh mj) at pose pj against I (mesh mi) at the identity through the world, default force model (IMPACT): the
/// wrench on J (torque about J's reference point, its pose's origin) and the total normal force; one region.
static mc_wrench flush_wrench(const mc_mesh* mi, const mc_mesh* mj, mc_pose pj, double* fn, mc_region* region)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = 1;
    mc_world* w = NULL;
    cr_assert_eq(mc_world_create(&wd, &w), MC_OK);
    mc_body_def bd = mc_default_body_def();
    bd.mesh = mi;
    mc_body_id id[2];
    id[0] = mc_world_create_body(w, &bd);
    bd.mesh = mj;
    bd.pose = pj;
    id[1] = mc_world_create_body(w, &bd);
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &id[0];
    cd.i_count = 1;
    cd.j_bodies = &id[1];
    cd.j_count = 1;
    mc_contact_id cid;
    mc_error err;
    cr_assert_eq(mc_world_create_contact(w, &cd, &cid, &err), MC_OK, "%s", err.message);
    cr_assert_eq(mc_world_evaluate(w), MC_OK);
    mc_contact_region rec[4];
    uint32_t n = mc_world_get_regions(w, rec, 4);
    cr_assert_eq(n, 1);
    cr_assert_not(rec[0].rejected);
    *fn = rec[0].normal_force;
    *region = rec[0].region;
    mc_wrench wj = mc_body_get_wrench(w, id[1]);
    mc_world_destroy(w);
    return wj;
}

Test(volume, flush_faces_give_symmetric_forces)
{
    // Symmetric configurations where faces of the two meshes lie in common planes: the components of the force and
    // torque on J that the symmetry forbids vanish within 1e-12 of the normal force (torques about J's origin, on the
    // symmetry planes; arms of order 1).
    mc_mesh* box = box_at(mc_v3(0, 0, 0), mc_v3(0.5, 0.5, 0.5));
    mc_mesh* u = u_block();
    double fn = 0.0;
    mc_region g;
    // Stacked: four side faces flush. Symmetric about x = 0 and y = 0: the force is along z, no torque at all.
    mc_wrench w = flush_wrench(box, box, make_pose(0.0, 0.0, 0.99, mc_quat_identity()), &fn, &g);
    cr_assert(fn > 0.0 && g.normal.x == 0.0 && g.normal.y == 0.0 && g.normal.z == 1.0 && g.area == 1.0);
    cr_assert(fabs(w.force.x) <= 1e-12 * fn && fabs(w.force.y) <= 1e-12 * fn && fabs(w.force.z - fn) <= 1e-12 * fn,
              "stacked: force (%g %g %g) on Fn %g", w.force.x, w.force.y, w.force.z, fn);
    cr_assert(mc_length(w.torque) <= 1e-12 * fn, "stacked: torque (%g %g %g) on Fn %g", w.torque.x, w.torque.y,
              w.torque.z, fn);
    // Side by side, overlapping by 0.1 along x: the faces y = +-0.5, z = +-0.5 flush. Symmetric about y = 0 and z = 0:
    // the force is along x (I's face x = 0.5 inside J), no torque.
    w = flush_wrench(box, box, make_pose(0.9, 0.0, 0.0, mc_quat_identity()), &fn, &g);
    cr_assert(fabs(w.force.y) <= 1e-12 * fn && fabs(w.force.z) <= 1e-12 * fn && fabs(w.force.x - fn) <= 1e-12 * fn,
              "side by side: force (%g %g %g) on Fn %g", w.force.x, w.force.y, w.force.z, fn);
    cr_assert(mc_length(w.torque) <= 1e-12 * fn, "side by side: torque (%g %g %g)", w.torque.x, w.torque.y, w.torque.z);
    cr_assert(rel(g.area, 1.0) < 1e-15 && rel(g.volume, 0.1) < 1e-13, "side by side: area %.17g volume %.17g", g.area,
              g.volume);
    // Side by side with a partial overlap of the faces too (J also 0.3 along y): only z = +-0.5 flush. Symmetric about
    // z = 0: no force along z, no torque about x or y.
    w = flush_wrench(box, box, make_pose(0.9, 0.3, 0.0, mc_quat_identity()), &fn, &g);
    cr_assert(fabs(w.force.z) <= 1e-12 * fn && fabs(w.torque.x) <= 1e-12 * fn && fabs(w.torque.y) <= 1e-12 * fn,
              "partial overlap: force z %g, torque (%g %g) on Fn %g", w.force.z, w.torque.x, w.torque.y, fn);
    cr_assert(fabs(g.s_i.z) == 0.0 && rel(g.area, sqrt(0.7 * 0.7 + 0.1 * 0.1)) < 1e-13, "partial overlap: area %.17g",
              g.area);
    // Stacked with an offset of 0.5 along x: the faces y = +-0.5 flush. Symmetric about y = 0: no force along y, no
    // torque about x or z (the force has a real x part: I's face x = 0.5 is inside J).
    w = flush_wrench(box, box, make_pose(0.5, 0.0, 0.99, mc_quat_identity()), &fn, &g);
    cr_assert(fabs(w.force.y) <= 1e-12 * fn && fabs(w.torque.x) <= 1e-12 * fn && fabs(w.torque.z) <= 1e-12 * fn,
              "offset: force y %g, torque (%g %g) on Fn %g", w.force.y, w.torque.x, w.torque.z, fn);
    cr_assert(g.s_i.y == 0.0 && rel(g.s_i.z, 0.5) < 1e-15 && rel(g.s_i.x, 0.01) < 1e-13,
              "offset: S_I (%.17g %.17g %.17g)", g.s_i.x, g.s_i.y, g.s_i.z);
    // A unit box in a slot of its own width, sunk 0.01 into the slot's floor: its sides lie on the slot's walls (faces
    // touching face to face) and its faces y = +-0.5 in the U's. Symmetric about x = 0 and y = 0: the force is along z,
    // no torque; the normal exactly (0, 0, 1), the area the floor inside the box.
    w = flush_wrench(u, box, make_pose(0.0, 0.0, 0.49, mc_quat_identity()), &fn, &g);
    cr_assert(g.normal.x == 0.0 && g.normal.y == 0.0 && g.normal.z == 1.0 && g.area == 1.0,
              "slot: normal (%.17g %.17g %.17g) area %.17g", g.normal.x, g.normal.y, g.normal.z, g.area);
    cr_assert(rel(g.volume, 0.01) < 1e-13, "slot: volume %.17g", g.volume);
    cr_assert(fabs(w.force.x) <= 1e-12 * fn && fabs(w.force.y) <= 1e-12 * fn && fabs(w.force.z - fn) <= 1e-12 * fn,
              "slot: force (%g %g %g) on Fn %g", w.force.x, w.force.y, w.force.z, fn);
    cr_assert(mc_length(w.torque) <= 1e-12 * fn, "slot: torque (%g %g %g) on Fn %g", w.torque.x, w.torque.y, w.torque.z,
              fn);
    run_result r;
    check_flush_oracle(u, box, make_pose(0.0, 0.0, 0.49, mc_quat_identity()), "box_in_slot", true, &r);
    check_flush_oracle(box, u, make_pose(0.0, 0.0, -0.49, mc_quat_identity()), "slot_around_box", true, &r);
    mc_mesh_destroy(box);
    mc_mesh_destroy(u);
}

Test(volume, flush_query_survives_every_allocation_failure_and_allocates_nothing_once_warm)
{
    // Stacked grid boxes with an offset: coplanar pairs in the pair stage, pure, mixed and block faces in the region
    // stage. Every allocation of a cold query may fail (out of memory, or the optional blocks left out); a warm query
    // allocates nothing.
    mc_set_allocator(count_alloc, count_free);
    s_fail_at = 0;
    mc_pose pi = mc_pose_identity();
    mc_pose pj = make_pose(0.25, 0.0, 0.75, mc_quat_identity());
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = 2;
    mc_mesh* a = scene_box_grid(mc_v3(0.5, 0.5, 0.5), 800);
    mc_workspace* ws = NULL;
    cr_assert_eq(mc_workspace_create(&ws), MC_OK);
    mc_region want[4];
    uint32_t n_want = 0;
    s_allocs = 0;
    cr_assert_eq(mc_query_regions(a, &pi, a, &pj, &opt, ws, want, 4, &n_want, NULL), MC_OK);
    int64_t calls = s_allocs;
    cr_assert(n_want == 1 && calls > 0 && fabs(want[0].normal.y) < 1e-15);
    s_allocs = 0;
    mc_region again[4];
    cr_assert_eq(mc_query_regions(a, &pi, a, &pj, &opt, ws, again, 4, &n_want, NULL), MC_OK);
    cr_assert_eq(s_allocs, 0, "a warm flush query allocated %lld times", (long long)s_allocs);
    cr_assert(memcmp(again, want, sizeof want[0]) == 0);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(a);
    for (int64_t k = 1; k <= calls; ++k)
    {
        s_fail_at = 0;
        a = scene_box_grid(mc_v3(0.5, 0.5, 0.5), 800);
        ws = NULL;
        cr_assert_eq(mc_workspace_create(&ws), MC_OK);
        mc_region got[4];
        memset(got, 0, sizeof got);
        uint32_t n = 12345;
        s_allocs = 0;
        s_fail_at = k;
        mc_status st = mc_query_regions(a, &pi, a, &pj, &opt, ws, got, 4, &n, NULL);
        s_fail_at = 0;
        cr_assert(st == MC_OK || st == MC_ERR_OUT_OF_MEMORY, "allocation %lld: status %d", (long long)k, (int)st);
        if (st == MC_OK) // only the optional blocks may fail quietly: the same regions up to the order of the sums
        {
            cr_assert(n == 1 && fabs(got[0].volume - want[0].volume) <= 1e-12 * want[0].volume &&
                          mc_length(mc_sub(got[0].s_i, want[0].s_i)) <= 1e-12 * want[0].area,
                      "allocation %lld: wrong answer after a tolerated failure", (long long)k);
        }
        cr_assert_eq(mc_query_regions(a, &pi, a, &pj, &opt, ws, got, 4, &n, NULL), MC_OK);
        cr_assert(n == 1 && memcmp(&got[0], &want[0], sizeof want[0]) == 0, "allocation %lld: recovery", (long long)k);
        mc_workspace_destroy(ws);
        mc_mesh_destroy(a);
        cr_assert_eq(mc_get_byte_count(), 0, "allocation %lld: %lld bytes left", (long long)k,
                     (long long)mc_get_byte_count());
    }
    mc_set_allocator(NULL, NULL);
}

/// The plan tests' pair: two faceted unit spheres, and two workspaces, the first with a region plan slot (ws[0]->plan
/// points at plan: the fixture must stay where it was made).
typedef struct plan_fixture
{
    mc_mesh* a;
    mc_mesh* b;
    mc_workspace* ws[2];
    struct mc_region_plan* plan;
} plan_fixture;

static void plan_fixture_make(plan_fixture* f)
{
    f->a = scene_uv_sphere(1.0, 972);
    f->b = scene_uv_sphere(1.0, 972);
    cr_assert(f->a != NULL && f->b != NULL);
    f->ws[0] = f->ws[1] = NULL;
    cr_assert_eq(mc_workspace_create(&f->ws[0]), MC_OK);
    cr_assert_eq(mc_workspace_create(&f->ws[1]), MC_OK);
    f->plan = NULL;
    f->ws[0]->plan = &f->plan;
}

/// The pair at j_in_i through both workspaces (pair stage, then regions): regions r[w], counts n[w], stats st[w];
/// with `need_pairs`, each query must find triangle pairs from the tree (not replayed).
static void plan_fixture_query(plan_fixture* f, const mc_pose* j_in_i, mc_region r[2][MAX_REGIONS], uint32_t n[2],
                               mc_query_stats st[2], bool need_pairs)
{
    memset(r, 0, 2 * MAX_REGIONS * sizeof r[0][0]);
    for (int w = 0; w < 2; ++w)
    {
        memset(&st[w], 0, sizeof st[w]);
        mc_pair_result pr;
        cr_assert_eq(mc_collide(f->a, f->b, j_in_i, 1, &f->ws[w]->pairs, &pr, &st[w]), MC_OK);
        cr_assert(!need_pairs || (pr.pair_count > 0u && !pr.replayed), "%u pairs", pr.pair_count);
        cr_assert_eq(mc_regions_compute(f->a, f->b, j_in_i, &pr, f->ws[w], NULL, r[w], MAX_REGIONS, &n[w], &st[w]),
                     MC_OK);
    }
}

static void plan_fixture_free(plan_fixture* f)
{
    mc_region_plan_destroy(f->plan);
    f->ws[0]->plan = NULL;
    mc_workspace_destroy(f->ws[0]);
    mc_workspace_destroy(f->ws[1]);
    mc_mesh_destroy(f->a);
    mc_mesh_destroy(f->b);
}

Test(volume, depth_hints_of_a_moving_pair_keep_every_result_bit_for_bit)
{
    // Depth hints (src/contact/regions.c, "Depth hints"): the Adams depth of a pair with a plan slot starts from the
    // distance of the faces that held its closest points at its last query. Two overlapping spheres along a random
    // walk of 1e-3 a step (the many-body benchmark's motion: the triangle pairs change at many steps, so the plan is
    // often not restored while the hint still applies), with turns and, every 8th step, a jump of up to 0.4 around
    // the spheres (the last closest faces are then mostly no candidates: no hint may be taken from them). Oracle: the
    // same queries through a plain workspace (no plan, no hint), every region bitwise equal (points, depth and all).
    // The hints must have served most steps (76 of the 78 possible here; 19 of the 40 steps restore the plan).
    plan_fixture f;
    plan_fixture_make(&f);
    mc_workspace** ws = f.ws;
    mc_pose j_in_i = make_pose(1.92, 0.02, -0.01, axis_angle(mc_v3(0.4, 1.0, -0.3), 0.2));
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    uint32_t steps = 40, restored = 0;
    for (uint32_t step = 0; step < steps; ++step)
    {
        double scale = step % 8 == 7 ? 0.4 : 1e-3;
        mc_vec3 d;
        d.x = scene_random(&rng) - 0.5; // (one draw a statement: the same walk whatever the compiler's argument order)
        d.y = scene_random(&rng) - 0.5;
        d.z = scene_random(&rng) - 0.5;
        j_in_i.p = mc_add(j_in_i.p, mc_scale(d, 2.0 * scale));
        // Keep them overlapping: the distance of the centres within [1.9, 1.94] (the faceted spheres' faces lie
        // down to about 0.98 from their centres).
        double len = mc_length(j_in_i.p);
        j_in_i.p = mc_scale(j_in_i.p, fmin(fmax(len, 1.9), 1.94) / len);
        j_in_i.q = mc_quat_normalize(mc_quat_mul(axis_angle(mc_v3(d.y, d.z, d.x + 0.1), scale), j_in_i.q));
        mc_region r[2][MAX_REGIONS];
        uint32_t n[2] = {0, 0};
        mc_query_stats st[2];
        plan_fixture_query(&f, &j_in_i, r, n, st, false);
        cr_assert(n[0] == 1u && n[1] == 1u, "step %u: %u and %u regions", step, n[0], n[1]);
        cr_assert(memcmp(r[0], r[1], sizeof r[0][0]) == 0, "step %u: the region differs from the plain query's", step);
        restored += (st[0].certified_reuse & 4u) != 0u;
    }
    // A closest face that is no candidate any more but nearer than every candidate: a thin bar pressed into a box's
    // top next to its side face (the bar's centroid nearer to the side), first crossing the side (the side holds I's
    // closest point), then moved in by 0.052 (the side uncrossed: its faces are no candidates, the top's are). A bound
    // from the side would reject every face of the top.
    mc_mesh* box = scene_box(mc_v3(-1.0, -1.0, -1.0), mc_v3(1.0, 1.0, 1.0));
    mc_mesh* bar = scene_box(mc_v3(-0.05, -0.1, -0.2), mc_v3(0.05, 0.1, 0.2));
    cr_assert(box != NULL && bar != NULL);
    for (int k = 0; k < 2; ++k)
    {
        mc_pose at = make_pose(k == 0 ? 1.001 : 0.949, 0.013, 0.85, axis_angle(mc_v3(0.0, 0.0, 1.0), 0.0));
        mc_region r[2][MAX_REGIONS];
        uint32_t n[2] = {0, 0};
        memset(r, 0, sizeof r);
        for (int w = 0; w < 2; ++w)
        {
            mc_pair_result pr;
            cr_assert_eq(mc_collide(box, bar, &at, 1, &ws[w]->pairs, &pr, NULL), MC_OK);
            cr_assert_eq(mc_regions_compute(box, bar, &at, &pr, ws[w], NULL, r[w], MAX_REGIONS, &n[w], NULL), MC_OK);
        }
        cr_assert(n[0] == 1u && n[1] == 1u, "bar %d: %u and %u regions", k, n[0], n[1]);
        cr_assert(memcmp(r[0], r[1], sizeof r[0][0]) == 0, "bar %d: the region differs from the plain query's", k);
        // The oracle's closest point of the box: on its side (x = 1) first, then on its top (z = 1).
        cr_assert(k == 0 ? r[1][0].point_i.x == 1.0 : r[1][0].point_i.z == 1.0, "bar %d", k);
    }
    mc_mesh_destroy(box);
    mc_mesh_destroy(bar);
    uint64_t hints = mc_region_plan_hints_used(f.plan);
    // Two bodies a step; none at the first step, nor when a closest face is no candidate any more (two of the walk's
    // jumps here, and the bar above, where such a hint would have been wrong: 77 in all).
    cr_assert(hints >= steps, "%llu hints in %u steps", (unsigned long long)hints, steps);
    cr_assert(restored > 0u && restored < steps - 10u, "%u of %u steps restored the plan", restored, steps);
    plan_fixture_free(&f);
}

Test(volume, region_plan_serves_queries_whose_pairs_match_bit_for_bit)
{
    // A pair's region plan (src/contact/regions.c, "Plans") restored without the pair stage's certificate: two
    // overlapping spheres queried along a walk of tiny steps (1e-9: the same triangle pairs and crossings, other
    // points) and larger ones (3e-2 and turns: other pairs), through a workspace with a plan slot and through a plain
    // one (the oracle: every query from the start). Every result bitwise the plain one's; the tiny steps must restore
    // the plan (stats bit 2) and the larger ones must not (their pairs differ from the kept ones).
    plan_fixture f;
    plan_fixture_make(&f);
    mc_pose j_in_i = make_pose(1.9, 0.05, -0.03, axis_angle(mc_v3(1.0, 2.0, 0.5), 0.3));
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    uint32_t restored_tiny = 0, restored_large = 0, tiny = 0, large = 0;
    for (int step = 0; step < 24; ++step)
    {
        bool is_large = step > 0 && step % 4 == 0;
        double scale = step == 0 ? 0.0 : (is_large ? 3e-2 : 1e-9);
        mc_vec3 d = mc_v3(scene_random(&rng) - 0.5, scene_random(&rng) - 0.5, scene_random(&rng) - 0.5);
        j_in_i.p = mc_add(j_in_i.p, mc_scale(d, 2.0 * scale));
        if (is_large && step % 8 == 0)
        {
            j_in_i.q = mc_quat_normalize(mc_quat_mul(axis_angle(mc_v3(0.3, -1.0, 0.2), 3e-2), j_in_i.q));
        }
        mc_region r[2][MAX_REGIONS];
        uint32_t n[2] = {0, 0};
        mc_query_stats st[2];
        plan_fixture_query(&f, &j_in_i, r, n, st, true);
        cr_assert_eq(n[0], n[1], "step %d", step);
        cr_assert(n[0] > 0u);
        cr_assert(memcmp(r[0], r[1], n[0] * sizeof r[0][0]) == 0, "step %d: the regions differ from the plain query's",
                  step);
        cr_assert_eq(st[0].crossings, st[1].crossings);
        cr_assert_eq(st[0].inside_vertices, st[1].inside_vertices);
        cr_assert_eq(st[1].certified_reuse, 0u);
        bool restored = (st[0].certified_reuse & 4u) != 0u;
        cr_assert_eq(st[0].certified_reuse & 2u, 0u, "no certificate without a front");
        if (step > 0)
        {
            tiny += !is_large;
            large += is_large;
            restored_tiny += !is_large && restored;
            restored_large += is_large && restored;
        }
    }
    cr_assert(tiny > 0u && large > 0u);
    cr_assert_eq(restored_tiny, tiny, "%u of %u tiny steps restored the plan", restored_tiny, tiny);
    cr_assert_eq(restored_large, 0u, "%u large steps restored the plan", restored_large);
    plan_fixture_free(&f);
}
