// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A host program built against an installed meshcontact with pkg-config, shared and static (tests/install/check.sh):
// two unit spheres one radius apart, their lens volume against the closed form pi (4R + d)(2R - d)^2 / 12.
#include <math.h>
#include <meshcontact/meshcontact.h>
#include <stdio.h>

int main(void)
{
    mc_primitive_def def = mc_default_primitive_def();
    def.type = MC_PRIMITIVE_ELLIPSOID;
    def.dims = mc_v3(1.0, 1.0, 1.0);
    def.chord_tolerance = 1e-4;
    mc_mesh* sphere = NULL;
    mc_error err;
    if (mc_mesh_create_primitive(&def, &sphere, &err) != MC_OK)
    {
        fprintf(stderr, "host: %s\n", err.message);
        return 1;
    }
    mc_workspace* ws = NULL;
    if (mc_workspace_create(&ws) != MC_OK)
    {
        return 1;
    }
    mc_pose a = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};
    mc_pose b = {{1.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};
    mc_region region;
    uint32_t count = 0;
    mc_status st = mc_query_regions(sphere, &a, sphere, &b, NULL, ws, &region, 1, &count, NULL);
    double want = MC_PI * (4.0 + 1.0) * 1.0 / 12.0;
    // A chord tolerance of 1e-4 on a unit sphere changes the lens volume by about 1e-4 relative (facets lie inside).
    int ok = st == MC_OK && count == 1 && fabs(region.volume - want) < 1e-3 * want;
    printf("host: lens volume %.9f, closed form %.9f: %s\n", count ? region.volume : 0.0, want,
           ok ? "ok" : "WRONG");
    mc_workspace_destroy(ws);
    mc_mesh_destroy(sphere);
    return ok ? 0 : 1;
}
