// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact contact`: intersecting triangle pairs (and, with the region stage, intersection regions) of two meshes
// at given poses.
#include "src/app/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE* f)
{
    fprintf(f,
            "usage: meshcontact contact MESH_I MESH_J [--pose-i P] [--pose-j P] [--scale S] [--max-triangles N]\n"
            "                                  [--threads N] [--json] [--accept-self-intersections]\n\n"
            "MESH_I and MESH_J are mesh files or analytic shapes: sphere:R (a ball of radius R centred on the body\n"
            "origin), socket:R (the outside of that sphere), plane (the half-space z <= 0 of the body frame),\n"
            "cylinder:R,L (radius R, length L along the body z axis, centred), hole:R,L (a hole of that size through\n"
            "a slab of thickness L). Pairs: mesh-mesh; sphere-plane, sphere-sphere, sphere-socket, cylinder-plane\n"
            "(any tilt) and parallel cylinders (also a pin in a hole) in closed form; mesh-plane cut exactly;\n"
            "sphere-mesh, cylinder-mesh and cylinder-sphere integrated exactly. Not yet: a socket against a mesh or\n"
            "a cylinder, a hole against a mesh or a sphere, cylinders that are not parallel; never two unbounded\n"
            "solids (plane, socket, hole, flipped mesh).\n\n"
            "Place two closed meshes at their poses and report their contact: the number of intersecting triangle\n"
            "pairs (exact predicates; exact touching is not an intersection), the intersection regions (volume,\n"
            "centroid, contact area, equivalent radius, normal from MESH_I into MESH_J, Adams depth and its two\n"
            "closest points; world frame, by decreasing volume), their total volume and the time the query took.\n\n"
            "options:\n"
            "  --pose-i P   pose of MESH_I: tx,ty,tz,qw,qx,qy,qz (quaternion normalised) or tx,ty,tz; default origin\n"
            "  --pose-j P   pose of MESH_J, same format\n"
            "  --scale S    multiply every coordinate of both meshes by S (a .shl file's own scale is applied on "
            "top)\n" CLI_MAX_TRIANGLES_HELP(
                "               ") "  --threads N  worker threads (default: the OpenMP default); results do not depend "
                                   "on it\n"
                                   "  --accept-self-intersections\n"
                                   "               use a mesh whose triangles intersect each other or whose\n"
                                   "               shells nest with the same winding (refused by default, see\n"
                                   "               'meshcontact info'), with a warning: its overlaps count twice\n"
                                   "  --json       print one JSON object: "
                                   "{\"triangle_pairs\",\"regions\":[{\"volume\",\"centroid\",\"area\",\"radius\",\n"
                                   "               "
                                   "\"normal\",\"depth\",\"point_i\",\"point_j\"}],\"total_volume\",\"seconds\", then "
                                   "extra keys}\n"
                                   "  --help       this text\n\n"
                                   "exit status: 0 on success, 1 when a mesh cannot be read or used for contact, 2 on "
                                   "a usage error.\n");
}

/// Parsed command line.
typedef struct contact_args
{
    const char* path[2];  ///< MESH_I, MESH_J
    mc_pose pose[2];      ///< poses (body to world)
    double scale;         ///< length scale of both meshes
    double max_triangles; ///< --max-triangles, 0: the default
    int threads;          ///< 0: OpenMP default
    bool json;            ///< JSON output
    /// import meshes that intersect themselves (with a warning)
    bool accept_self_intersections;
} contact_args;

/// Everything the query computed; one field per output key.
typedef struct contact_result
{
    uint32_t triangle_pairs; ///< intersecting triangle pairs
    mc_query_stats stats;    ///< counters of the pair and region stages
    double seconds;          ///< wall time of the queries (not of the import)
    mc_region* regions;      ///< intersection regions, world frame, by decreasing volume (malloc'ed)
    uint32_t region_count;   ///< entries in regions
    double total_volume;     ///< sum of the regions' volumes
} contact_result;

static int parse_args(int argc, char** argv, contact_args* a)
{
    memset(a, 0, sizeof *a);
    a->pose[0] = mc_pose_identity();
    a->pose[1] = mc_pose_identity();
    a->scale = 1.0;
    const char* pose_needs = "tx,ty,tz or tx,ty,tz,qw,qx,qy,qz (finite numbers, non-zero quaternion)";
    const cli_option options[] = {
        {"json", 0, CLI_FLAG, &a->json, 0, NULL, NULL, NULL},
        {"pose-i", 0, CLI_POSE, &a->pose[0], 0, NULL, NULL, pose_needs},
        {"pose-j", 0, CLI_POSE, &a->pose[1], 0, NULL, NULL, pose_needs},
        {"scale", 0, CLI_NUMBER, &a->scale, 0, cli_positive, NULL, "a positive number"},
        {"max-triangles", 0, CLI_NUMBER, &a->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"threads", 0, CLI_COUNT, &a->threads, 0, NULL, NULL, "a positive integer"},
        {"accept-self-intersections", 0, CLI_FLAG, &a->accept_self_intersections, 0, NULL, NULL, NULL},
    };
    static const char* const operand_names[] = {"MESH_I", "MESH_J"};
    const cli_syntax syntax = {"contact", print_help, options, CLI_LENGTH(options), operand_names, a->path, 2};
    return cli_parse_args(&syntax, argc, argv);
}

// The queries. The region stage adds its mc_query_regions call here (same workspace, options and poses) and its
// fields to contact_result.
static mc_status run_queries(const contact_args* a, const mc_shape shape[2], contact_result* r)
{
    memset(r, 0, sizeof *r);
    mc_workspace* ws = NULL;
    mc_status st = mc_workspace_create(&ws);
    if (st != MC_OK)
    {
        return st;
    }
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = a->threads;
    double t0 = cli_now();
    // One region query (it runs the pair stage too: triangle_pairs comes from its counters); a second one with a
    // larger buffer only when there are more than 64 regions.
    uint32_t capacity = 64;
    for (int attempt = 0; attempt < 2; ++attempt)
    {
        mc_region* buf = realloc(r->regions, capacity * sizeof *buf);
        if (buf == NULL)
        {
            st = MC_ERR_OUT_OF_MEMORY;
            break;
        }
        r->regions = buf;
        st = mc_query_shape_regions(&shape[0], &a->pose[0], &shape[1], &a->pose[1], &opt, ws, r->regions, capacity,
                                    &r->region_count, &r->stats);
        if (st != MC_ERR_CAPACITY)
        {
            break;
        }
        capacity = r->region_count;
    }
    r->triangle_pairs = (uint32_t)r->stats.triangle_pairs;
    for (uint32_t k = 0; st == MC_OK && k < r->region_count; ++k)
    {
        r->total_volume += r->regions[k].volume;
    }
    r->seconds = cli_now() - t0;
    mc_workspace_destroy(ws);
    return st;
}

// JSON keys in the order of the contract (DESIGN.md): triangle_pairs, regions, total_volume, seconds; then extras.
static void print_json(const contact_result* r)
{
    printf("{\"triangle_pairs\":%u,\"regions\":[", r->triangle_pairs);
    for (uint32_t k = 0; k < r->region_count; ++k)
    {
        const mc_region* g = &r->regions[k];
        printf(k > 0 ? ",{" : "{");
        cli_json_region_members(stdout, g);
        printf("}");
    }
    printf("],\"total_volume\":");
    cli_json_double(stdout, r->total_volume);
    printf(",\"seconds\":");
    cli_json_double(stdout, r->seconds);
    printf(",\"box_tests\":%llu,\"triangle_tests\":%llu,\"threads\":%d}\n", (unsigned long long)r->stats.box_tests,
           (unsigned long long)r->stats.triangle_tests, r->stats.threads);
}

static void print_text(const contact_args* a, const contact_result* r)
{
    printf("mesh i             %s\n", a->path[0]);
    printf("mesh j             %s\n", a->path[1]);
    printf("triangle pairs     %u\n", r->triangle_pairs);
    printf("regions            %u\n", r->region_count);
    for (uint32_t k = 0; k < r->region_count; ++k)
    {
        const mc_region* g = &r->regions[k];
        printf("  region %-3u       volume %.9g  area %.9g  depth %.9g\n", k, g->volume, g->area, g->depth);
        printf("                   centroid %.9g %.9g %.9g  normal %.9g %.9g %.9g\n", g->centroid.x, g->centroid.y,
               g->centroid.z, g->normal.x, g->normal.y, g->normal.z);
    }
    printf("total volume       %.17g\n", r->total_volume);
    printf("box tests          %llu\n", (unsigned long long)r->stats.box_tests);
    printf("triangle tests     %llu\n", (unsigned long long)r->stats.triangle_tests);
    printf("threads            %d\n", r->stats.threads);
    printf("seconds            %.6f\n", r->seconds);
}

int cli_contact(int argc, char** argv)
{
    contact_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    mc_mesh* mesh[2] = {NULL, NULL};
    mc_shape shape[2];
    for (int k = 0; k < 2; ++k)
    {
        if (cli_load_shape(a.path[k], a.scale, a.max_triangles, a.accept_self_intersections, &shape[k], &mesh[k]) != 0)
        {
            mc_mesh_destroy(mesh[0]);
            return 1;
        }
    }
    contact_result r;
    mc_status st = run_queries(&a, shape, &r);
    mc_mesh_destroy(mesh[0]);
    mc_mesh_destroy(mesh[1]);
    if (st != MC_OK)
    {
        free(r.regions);
        return cli_fail(NULL, "contact query failed: %s", mc_status_string(st));
    }
    if (a.json)
    {
        print_json(&r);
    }
    else
    {
        print_text(&a, &r);
    }
    free(r.regions);
    fflush(stdout);
    return 0;
}
