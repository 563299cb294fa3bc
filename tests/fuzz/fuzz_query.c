// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of the stateless contact queries (query.h): two shapes of tests/fuzz/fuzz_meshes.h at fuzzer-chosen
// scales, flips and poses (tame or garbage), triangle pairs and regions with every depth method and caller capacities
// from 0 up. Checked: the status (pose validity, both flipped, capacity), every returned number finite, pair indices
// in range, regions sorted by decreasing volume, the total volume within the smaller solid, and the same total volume
// with the two meshes swapped (within the rounding of placing one mesh in the other's frame).
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

typedef struct query_side
{
    mc_mesh* mesh;
    mc_mesh_report rep;
    mc_pose pose;
    bool flip;
    double scale;
    int shape;
} query_side;

static query_side* s_sides; // the input being run, for describe_input
static mc_query_options s_opt;

static void describe_input(void)
{
    for (int k = 0; k < 2; ++k)
    {
        const query_side* q = &s_sides[k];
        fprintf(stderr,
                "mesh %c: %s, scale %a, flip %d, %u triangles, volume %.17g; pose p (%a %a %a) q (%a %a %a %a)\n",
                k == 0 ? 'i' : 'j', fuzz_shapes[q->shape].name, q->scale, q->flip, q->rep.triangles, q->rep.volume,
                q->pose.p.x, q->pose.p.y, q->pose.p.z, q->pose.q.w, q->pose.q.x, q->pose.q.y, q->pose.q.z);
    }
    fprintf(stderr, "options: depth method %d, workers %d\n", (int)s_opt.depth_method, s_opt.worker_count);
}

static double extent(const mc_mesh_report* r)
{
    return fmax(mc_max_abs3(r->bbox_min), mc_max_abs3(r->bbox_max));
}

// `noise`: the rounding of a region's volume sums, either sign (see run_regions). A region of a near touch has a volume
// of that size and is let through with any sign and depth; any other region must have a positive volume and depth.
static void check_region(const mc_region* r, uint32_t k, double noise)
{
    FUZZ_CHECK(isfinite(r->volume) && isfinite(r->area) && isfinite(r->radius) && isfinite(r->depth),
               "region %u: volume %g area %g radius %g depth %g", k, r->volume, r->area, r->radius, r->depth);
    FUZZ_CHECK(fuzz_vec3_finite(r->centroid) && fuzz_vec3_finite(r->normal) && fuzz_vec3_finite(r->point_i) &&
                   fuzz_vec3_finite(r->point_j) && fuzz_vec3_finite(r->s_i) && fuzz_vec3_finite(r->s_j),
               "region %u: a non-finite vector", k);
    bool positive = r->volume > 0.0 && r->depth >= 0.0;
    bool noise_only = r->volume > -noise && r->volume <= noise;
    FUZZ_CHECK(r->area >= 0.0 && r->radius >= 0.0 && (positive || noise_only),
               "region %u: volume %g area %g depth %g radius %g", k, r->volume, r->area, r->depth, r->radius);
    double nl = mc_length(r->normal);
    FUZZ_CHECK((r->area == 0.0 && nl == 0.0) || fabs(nl - 1.0) < 1e-9, "region %u: |normal| %.17g with area %g", k, nl,
               r->area);
}

// Total volume of the regions of (a, b), or NAN when the query did not run (invalid pose, both flipped).
static double run_regions(const query_side* a, const query_side* b, const mc_query_options* opt, uint32_t capacity,
                          bool expect_ok, double reach)
{
    mc_region regions[32];
    uint32_t count = 0;
    mc_query_stats stats;
    mc_status st = mc_query_regions(a->mesh, &a->pose, b->mesh, &b->pose, opt, s_ws, regions, capacity, &count, &stats);
    if (!expect_ok)
    {
        FUZZ_CHECK(st != MC_OK && st != MC_ERR_CAPACITY, "regions: status %d where an error was due", (int)st);
        return NAN;
    }
    FUZZ_CHECK(st == MC_OK || st == MC_ERR_CAPACITY, "regions: status %d", (int)st);
    FUZZ_CHECK((st == MC_ERR_CAPACITY) == (count > capacity), "regions: status %d with %u regions, capacity %u",
               (int)st, count, capacity);
    FUZZ_CHECK(stats.regions == count, "regions: stats say %u, count %u", stats.regions, count);
    uint32_t written = count < capacity ? count : capacity;
    // The volume sums of a region have terms of the size of its crossing points' rounding (a few ulps of `reach`, the
    // coordinates' magnitude: mesh extents plus the distance between the poses) times its unsigned boundary area, at
    // most the two meshes' areas. Not the region's own area |S_I|: that cancels on a sliver of a near touch (found:
    // an L prism against a tetrahedron grazing one of its faces gave a region of volume -2.6e-20 and area 3.2e-18 one
    // way round, none the other, and volumes of either sign under pose changes of 1e-13; the same bound as the
    // total's).
    double noise = 64.0 * DBL_EPSILON * reach * (a->rep.area + b->rep.area);
    double total = 0.0;
    for (uint32_t k = 0; k < written; ++k)
    {
        check_region(&regions[k], k, noise);
        FUZZ_CHECK(k == 0 || regions[k].volume <= regions[k - 1].volume, "regions: not sorted by volume at %u", k);
        total += regions[k].volume;
    }
    return count <= capacity ? total : NAN;
}

static void run_pairs(const query_side* a, const query_side* b, const mc_query_options* opt, uint32_t capacity,
                      bool expect_ok)
{
    mc_triangle_pair pairs[64];
    uint32_t count = 0;
    mc_status st =
        mc_query_triangle_pairs(a->mesh, &a->pose, b->mesh, &b->pose, opt, s_ws, pairs, capacity, &count, NULL);
    if (!expect_ok)
    {
        FUZZ_CHECK(st != MC_OK && st != MC_ERR_CAPACITY, "pairs: status %d where an error was due", (int)st);
        return;
    }
    FUZZ_CHECK(st == MC_OK || st == MC_ERR_CAPACITY, "pairs: status %d", (int)st);
    FUZZ_CHECK((st == MC_ERR_CAPACITY) == (count > capacity), "pairs: status %d with %u pairs, capacity %u", (int)st,
               count, capacity);
    uint32_t written = count < capacity ? count : capacity;
    uint32_t ni = mc_mesh_get_triangle_count(a->mesh), nj = mc_mesh_get_triangle_count(b->mesh);
    for (uint32_t k = 0; k < written; ++k)
    {
        const mc_triangle_pair* p = &pairs[k];
        FUZZ_CHECK(p->i < ni && p->j < nj, "pair %u: triangles %u %u of %u %u", k, p->i, p->j, ni, nj);
        FUZZ_CHECK(k == 0 || p->i > pairs[k - 1].i || (p->i == pairs[k - 1].i && p->j > pairs[k - 1].j),
                   "pairs: not sorted at %u", k);
        for (int c = 0; c < 2; ++c)
        {
            const mc_crossing* x = &p->crossing[c];
            FUZZ_CHECK(fuzz_vec3_finite(x->point) && x->body <= 1 && x->edge <= 2 &&
                           (x->entering == 1 || x->entering == -1),
                       "pair %u crossing %d: point finite %d body %u edge %u entering %d", k, c,
                       fuzz_vec3_finite(x->point), x->body, x->edge, x->entering);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_bytes in = {data, size};
    // The workspace keeps what it grew to (its own count); everything else must be freed.
    int64_t bytes0 = mc_get_byte_count() - (int64_t)mc_workspace_get_byte_count(s_ws);
    query_side s[2];
    memset(s, 0, sizeof s);
    s_sides = s;
    s_opt = mc_default_query_options();
    fuzz_describe = describe_input;
    bool made = true;
    for (int k = 0; k < 2 && made; ++k)
    {
        int shape = s[k].shape = fuzz_u8(&in) % FUZZ_SHAPE_COUNT;
        s[k].flip = (fuzz_u8(&in) & 7) == 0;
        s[k].scale = fuzz_scale(&in);
        s[k].pose = fuzz_pose(&in);
        made = fuzz_shape_mesh(shape, s[k].scale, s[k].flip, &s[k].mesh, &s[k].rep) == MC_OK;
        if (made)
        {
            fuzz_check_mesh(s[k].mesh, &s[k].rep);
        }
    }
    if (made)
    {
        mc_query_options opt = mc_default_query_options();
        opt.depth_method = (mc_depth_method)(fuzz_u8(&in) % 3);
        opt.worker_count = 1 + (fuzz_u8(&in) & 1);
        s_opt = opt;
        uint32_t cap_pairs = fuzz_u8(&in) % 65, cap_regions = fuzz_u8(&in) % 33;
        bool valid = mc_pose_is_valid(&s[0].pose) && mc_pose_is_valid(&s[1].pose);
        bool unbounded = s[0].flip && s[1].flip;
        run_pairs(&s[0], &s[1], &opt, cap_pairs, valid);
        double reach = extent(&s[0].rep) + extent(&s[1].rep) + mc_max_abs3(mc_sub(s[0].pose.p, s[1].pose.p));
        double v01 = run_regions(&s[0], &s[1], &opt, cap_regions, valid && !unbounded, reach);
        double v10 = run_regions(&s[1], &s[0], &opt, 32, valid && !unbounded, reach);
        if (isfinite(v01) && isfinite(v10))
        {
            double va = s[0].rep.volume, vb = s[1].rep.volume;
            double bound = s[0].flip ? vb : s[1].flip ? va : fmin(va, vb);
            // Rounding: placing one mesh in the other's frame moves its vertices by a few ulps of the coordinates
            // there (mesh extent plus the distance between the poses), which changes the volume by about the area
            // times that.
            double tol = 64.0 * DBL_EPSILON * (s[0].rep.area + s[1].rep.area) * reach + 1e-12 * bound;
            FUZZ_CHECK(v01 <= bound + tol, "total volume %.17g above the smaller solid's %.17g", v01, bound);
            FUZZ_CHECK(fabs(v01 - v10) <= tol, "total volume %.17g, swapped %.17g (tolerance %g)", v01, v10, tol);
        }
    }
    mc_mesh_destroy(s[0].mesh);
    mc_mesh_destroy(s[1].mesh);
    fuzz_check_bytes(bytes0 + (int64_t)mc_workspace_get_byte_count(s_ws), "query");
    return 0;
}
