// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of mesh creation from raw arrays (mc_mesh_create): up to 40 vertices with wild coordinates (small
// multiples of 1/8 that make coplanar, coincident and degenerate configurations, raw doubles, NaN, infinities,
// denormals, the ends of the coordinate range), up to 80 triangles with indices that may be out of range, a padded
// stride, wild scale and weld tolerance, flip, require_closed and the self-check mode. Checked: the status agrees with
// the mesh pointer, a mesh's report is finite and its arrays in range; a mesh usable for contact then goes through
// point containment and a region query against itself at a fuzzer-chosen pose, whose outputs must be finite.
#include "fuzz_common.h"

static mc_workspace* s_ws;

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    mc_set_assert_fcn(fuzz_assert_trap);
    if (mc_workspace_create(&s_ws) != MC_OK)
    {
        abort();
    }
    return 0;
}

enum
{
    MAX_VERTICES = 40,
    MAX_TRIANGLES = 80,
};

static const mc_mesh_def* s_def; // the input being run, for describe_input
static mc_pose s_pose;

static void describe_input(void)
{
    const mc_mesh_def* d = s_def;
    size_t stride = d->position_stride != 0 ? d->position_stride / sizeof(double) : 3;
    fprintf(stderr, "mesh def: %u vertices, %u triangles, scale %a, weld %a, flip %d, require_closed %d\n",
            d->vertex_count, d->triangle_count, d->scale, d->weld_tolerance, d->flip, d->require_closed);
    for (uint32_t k = 0; k < d->vertex_count; ++k)
    {
        const double* p = d->positions + stride * k;
        fprintf(stderr, "  v %u: %a %a %a\n", k, p[0], p[1], p[2]);
    }
    for (uint32_t k = 0; k < d->triangle_count; ++k)
    {
        fprintf(stderr, "  t %u: %u %u %u\n", k, d->indices[3 * k], d->indices[3 * k + 1], d->indices[3 * k + 2]);
    }
    fprintf(stderr, "self query pose: p (%a %a %a) q (%a %a %a %a)\n", s_pose.p.x, s_pose.p.y, s_pose.p.z, s_pose.q.w,
            s_pose.q.x, s_pose.q.y, s_pose.q.z);
}

static void use_mesh(fuzz_bytes* in, const mc_mesh* m, const mc_mesh_report* rep)
{
    fuzz_check_mesh(m, rep);
    if (!rep->contact_ready)
    {
        return;
    }
    for (int k = 0; k < 2; ++k)
    {
        (void)mc_mesh_contains_point(m, fuzz_vec3(in));
    }
    mc_pose pi = mc_pose_identity();
    mc_pose pj = fuzz_pose(in);
    s_pose = pj;
    mc_region regions[8];
    uint32_t count = 0;
    mc_status st = mc_query_regions(m, &pi, m, &pj, NULL, s_ws, regions, 8, &count, NULL);
    if (!mc_pose_is_valid(&pj) || rep->flipped)
    {
        // An unusable pose, or a flipped mesh against itself (both solids unbounded).
        FUZZ_CHECK(st == (rep->flipped && mc_pose_is_valid(&pj) ? MC_ERR_UNBOUNDED : MC_ERR_INVALID_ARGUMENT),
                   "self query: status %d (pose valid %d, flipped %d)", (int)st, mc_pose_is_valid(&pj), rep->flipped);
        return;
    }
    FUZZ_CHECK(st == MC_OK || st == MC_ERR_CAPACITY, "self query: status %d", (int)st);
    for (uint32_t k = 0; k < count && k < 8; ++k)
    {
        const mc_region* r = &regions[k];
        FUZZ_CHECK(isfinite(r->volume) && isfinite(r->area) && isfinite(r->depth) && fuzz_vec3_finite(r->centroid) &&
                       fuzz_vec3_finite(r->normal),
                   "self query region %u: volume %g area %g depth %g", k, r->volume, r->area, r->depth);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_bytes in = {data, size};
    int64_t bytes0 = mc_get_byte_count() - (int64_t)mc_workspace_get_byte_count(s_ws);
    uint8_t flags = fuzz_u8(&in);
    uint32_t nv = fuzz_u8(&in) % (MAX_VERTICES + 1);
    uint32_t nt = fuzz_u8(&in) % (MAX_TRIANGLES + 1);
    size_t stride_doubles = (flags & 4) ? 4 : 3;
    double pos[4 * MAX_VERTICES];
    uint32_t idx[3 * MAX_TRIANGLES];
    for (uint32_t k = 0; k < nv; ++k)
    {
        for (size_t a = 0; a < stride_doubles; ++a)
        {
            pos[stride_doubles * k + a] = a < 3 ? fuzz_real(&in) : NAN; // the padding is never read
        }
    }
    for (uint32_t k = 0; k < 3 * nt; ++k)
    {
        idx[k] = fuzz_u8(&in);
        if (idx[k] >= 250)
        {
            idx[k] = fuzz_u32(&in); // far out of range
        }
        else if (nv > 0 && idx[k] > nv)
        {
            idx[k] %= nv + 1; // mostly in range, sometimes exactly nv
        }
    }
    mc_mesh_def d = mc_default_mesh_def();
    d.positions = nv > 0 ? pos : NULL;
    d.position_stride = (flags & 4) ? 4 * sizeof(double) : (flags & 8) ? 0 : 3 * sizeof(double);
    d.vertex_count = nv;
    d.indices = nt > 0 ? idx : NULL;
    d.triangle_count = nt;
    d.flip = (flags & 1) != 0;
    d.require_closed = (flags & 2) != 0;
    d.self_check = (mc_self_check)((flags >> 6) % 3); // refuse, accept or skip intersecting / misnested meshes
    if (flags & 16)
    {
        d.scale = fuzz_real(&in);
    }
    if (flags & 32)
    {
        d.weld_tolerance = fuzz_real(&in);
    }
    s_def = &d;
    s_pose = mc_pose_identity();
    fuzz_describe = describe_input;
    mc_mesh* m = NULL;
    mc_mesh_report rep;
    mc_error err;
    memset(&err, 0, sizeof err);
    mc_status st = mc_mesh_create(&d, &m, &rep, &err);
    FUZZ_CHECK((st == MC_OK) == (m != NULL), "create returned %d with mesh %p", (int)st, (void*)m);
    FUZZ_CHECK(st == MC_OK || (err.status == st && err.message[0] != '\0'), "create failed (%d) without a message",
               (int)st);
    if (m != NULL)
    {
        use_mesh(&in, m, &rep);
        mc_mesh_destroy(m);
    }
    fuzz_check_bytes(bytes0 + (int64_t)mc_workspace_get_byte_count(s_ws), "mesh_create");
    return 0;
}
