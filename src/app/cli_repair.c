// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact repair IN OUT`: read a mesh, repair it (mc_mesh_repair through the import option), write it as STL or
// .shl, and report every change; plus the repair summary and suggestion that `info` prints.
#include "src/app/app_io.h"
#include "src/app/cli.h"
#include "src/app/scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void print_help(FILE* f)
{
    fprintf(f,
            "usage: meshcontact repair IN OUT [--scale S] [--repairs LIST] [--weld-tolerance T | --weld-distance D]\n"
            "                         [--max-hole-edges N] [--min-component-triangles N] [--min-component-size F]\n"
            "                         [--max-triangles N] [--accept-self-intersections] [--json]\n"
            "                         [--chord-tolerance C] [--angle DEG] [--solid K]\n\n"
            "Read mesh IN, repair it, check that the result can be used for contact (closed, manifold, oriented,\n"
            "self-check), and write it to OUT (.stl: binary STL; .shl: Adams shell). Every change is counted on\n"
            "stdout. Repairs, in this order (after the weld):\n"
            "  duplicates    remove repeated triangles; remove back-to-back pairs (same vertices, opposite winding)\n"
            "  shared-faces  two solids sharing a face stored once: remove the face, keep their union\n"
            "  loose         remove components of fewer than --min-component-triangles triangles (default 4) or\n"
            "                smaller than --min-component-size of the bbox diagonal (default 0)\n"
            "  orient        consistent winding (breadth-first over shared edges), then every closed component\n"
            "                outward (inward when it lies inside another: a cavity)\n"
            "  holes         fill holes of at most --max-hole-edges boundary edges (default 32, at most 256) over\n"
            "                their own vertices, with the smallest largest bend, then the least area\n"
            "  pinches       split pinched vertices, and edges used by 4, 6, ... triangles (paired by their order\n"
            "                around the edge); each copy moves 1e-9 of the bbox diagonal into its own solid\n\n"
            "options:\n"
            "  --repairs LIST        comma-separated repairs from the list above, or all (default) or none\n"
            "  --weld-tolerance T    first weld points closer than T times the bbox diagonal (1e-12 .. 0.1)\n"
            "  --weld-distance D     first weld points closer than D (length units, after --scale)\n"
            "                        (default: only bit-identical points are welded)\n"
            "  --scale S             multiply every coordinate by S (a .shl file's own scale is applied on "
            "top)\n" CLI_MAX_TRIANGLES_HELP("                        ") CLI_BREP_HELP(
                "                        ") "  --accept-self-intersections\n"
                                            "                        write a result that fails the self-check anyway\n"
                                            "  --json                print one JSON object: the repair counts and "
                                            "the mesh's figures\n\n"
                                            "exit status: 0 when OUT was written; 1 when the repaired mesh still "
                                            "cannot be used for\n"
                                            "contact (nothing is written; stderr says why) or on a read/write "
                                            "error; 2 on a usage error.\n");
}

static void print_repair_json(const mc_repair_report* r)
{
    printf("\"repair\":{\"weld_distance\":");
    cli_json_double(stdout, r->weld_distance);
    printf(",\"welded_vertices\":%u,\"collapsed_triangles\":%u,\"duplicate_triangles\":%u,"
           "\"back_to_back_triangles\":%u,\"shared_face_triangles\":%u,\"loose_components\":%u,"
           "\"loose_triangles\":%u,\"flipped_triangles\":%u,\"unorientable_patches\":%u,\"reversed_components\":%u,"
           "\"filled_holes\":%u,\"fill_triangles\":%u,\"unfilled_holes\":%u,\"largest_unfilled_hole\":%u,"
           "\"split_edges\":%u,\"split_vertices\":%u}",
           r->welded_vertices, r->collapsed_triangles, r->duplicate_triangles, r->back_to_back_triangles,
           r->shared_face_triangles, r->loose_components, r->loose_triangles, r->flipped_triangles,
           r->unorientable_patches, r->reversed_components, r->filled_holes, r->fill_triangles, r->unfilled_holes,
           r->largest_unfilled_hole, r->split_edges, r->split_vertices);
}

static void print_repair_table(const char* in, const char* out, const mc_mesh_report* m)
{
    const mc_repair_report* r = &m->repair;
    printf("file               %s\n", in);
    printf("weld distance      %.6g%s\n", r->weld_distance, r->weld_distance > 0.0 ? "" : " (exact only)");
    printf("welded vertices    %u\n", r->welded_vertices);
    printf("collapsed          %u triangles removed\n", r->collapsed_triangles);
    printf("duplicates         %u triangles removed\n", r->duplicate_triangles);
    printf("back-to-back       %u triangles removed\n", r->back_to_back_triangles);
    printf("shared faces       %u triangles removed\n", r->shared_face_triangles);
    printf("loose components   %u removed (%u triangles)\n", r->loose_components, r->loose_triangles);
    printf("winding            %u triangles flipped, %u components reversed, %u unorientable patches\n",
           r->flipped_triangles, r->reversed_components, r->unorientable_patches);
    printf("holes              %u filled (%u triangles added), %u left open (largest: %u edges)\n", r->filled_holes,
           r->fill_triangles, r->unfilled_holes, r->largest_unfilled_hole);
    printf("pinched            %u non-manifold edges split, %u vertices split\n", r->split_edges, r->split_vertices);
    printf("result             %u triangles, volume %.17g\n", m->triangles, m->volume);
    if (out != NULL)
    {
        printf("written            %s\n", out);
    }
}

typedef struct repair_args
{
    const char* path[2];
    mc_import_options opt;
    const char* repairs;
    double max_triangles;
    double max_hole_edges;
    double min_triangles;
    double angle_deg;
    double solid;
    bool json;
    bool accept;
} repair_args;

static bool is_hole_edges(double v)
{
    return v >= 3.0 && v <= 256.0 && v == (double)(int)v;
}

static bool is_count(double v)
{
    return v >= 0.0 && v <= 4e9 && v == (double)(long long)v;
}

static bool is_fraction(double v)
{
    return v >= 0.0 && v <= 1.0;
}

static int parse_repair_args(repair_args* a, int argc, char** argv)
{
    mc_repair_options* r = &a->opt.repair;
    const cli_option options[] = {
        {"json", 0, CLI_FLAG, &a->json, 0, NULL, NULL, NULL},
        {"scale", 0, CLI_NUMBER, &a->opt.scale, 0, cli_positive, NULL, "a positive number"},
        {"repairs", 0, CLI_TEXT, &a->repairs, 0, NULL, NULL, NULL},
        {"weld-tolerance", 0, CLI_NUMBER, &r->weld_tolerance, 0, cli_positive, NULL, "a number from 1e-12 to 0.1"},
        {"weld-distance", 0, CLI_NUMBER, &r->weld_distance, 0, cli_positive, NULL, "a positive length"},
        {"max-hole-edges", 0, CLI_NUMBER, &a->max_hole_edges, 0, is_hole_edges, NULL, "a whole number from 3 to 256"},
        {"min-component-triangles", 0, CLI_NUMBER, &a->min_triangles, 0, is_count, NULL, "a whole number >= 0"},
        {"min-component-size", 0, CLI_NUMBER, &r->min_component_size, 0, is_fraction, NULL, "a number from 0 to 1"},
        {"max-triangles", 0, CLI_NUMBER, &a->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"accept-self-intersections", 0, CLI_FLAG, &a->accept, 0, NULL, NULL, NULL},
        {"chord-tolerance", 0, CLI_NUMBER, &a->opt.chord_tolerance, 0, cli_positive, NULL, "a positive length"},
        {"angle", 0, CLI_NUMBER, &a->angle_deg, 0, cli_is_facet_angle, NULL, "degrees in (0, 90]"},
        {"solid", 0, CLI_NUMBER, &a->solid, 0, cli_is_solid_index, NULL, "a solid number from 0"},
    };
    static const char* const operand_names[] = {"IN", "OUT"};
    const cli_syntax syntax = {"repair", print_help, options, CLI_LENGTH(options), operand_names, a->path, 2};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    if (a->repairs != NULL && !app_parse_repairs(a->repairs, &r->flags, NULL))
    {
        return cli_usage_error("repair",
                               "--repairs needs a comma-separated list of all, none, duplicates, "
                               "shared-faces, loose, orient, holes, pinches; got '%s'",
                               a->repairs);
    }
    if (r->weld_tolerance > 0.0 && r->weld_distance > 0.0)
    {
        return cli_usage_error("repair", "--weld-tolerance and --weld-distance exclude each other");
    }
    r->max_hole_edges = a->max_hole_edges > 0.0 ? (uint32_t)a->max_hole_edges : r->max_hole_edges;
    r->min_component_triangles = a->min_triangles >= 0.0 ? (uint32_t)a->min_triangles : r->min_component_triangles;
    a->opt.max_triangles = a->max_triangles > 0.0 ? (uint64_t)a->max_triangles : a->opt.max_triangles;
    a->opt.self_check = a->accept ? MC_SELF_CHECK_ACCEPT : MC_SELF_CHECK_REFUSE;
    cli_apply_brep_options(&a->opt, a->angle_deg, a->solid);
    return CLI_CONTINUE;
}

static bool has_extension(const char* path, const char* ext)
{
    size_t n = strlen(path), k = strlen(ext);
    if (n < k)
    {
        return false;
    }
    for (size_t i = 0; i < k; ++i)
    {
        if (tolower((unsigned char)path[n - k + i]) != ext[i])
        {
            return false;
        }
    }
    return true;
}

int cli_repair(int argc, char** argv)
{
    repair_args a;
    memset(&a, 0, sizeof a);
    a.opt = mc_default_import_options();
    a.opt.repair.flags = MC_REPAIR_ALL;
    a.min_triangles = -1.0;
    a.solid = -1.0;
    int rc = parse_repair_args(&a, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    const char* out = a.path[1];
    if (!has_extension(out, ".stl") && !has_extension(out, ".shl"))
    {
        return cli_usage_error("repair", "OUT must end in .stl or .shl, got '%s'", out);
    }
    mc_mesh* mesh = NULL;
    mc_mesh_report rep;
    mc_error err;
    memset(&err, 0, sizeof err);
    int muted = cli_mute_stdout(a.path[0]);
    mc_status st = mc_mesh_import_file(a.path[0], &a.opt, &mesh, &rep, &err);
    cli_restore_stdout(muted);
    if (st != MC_OK)
    {
        char what[600];
        app_repair_summary(&rep.repair, what, sizeof what);
        return cli_fail(NULL, "%s%s (repair: %s)", err.message[0] ? err.message : mc_status_string(st),
                        st == MC_ERR_SELF_INTERSECTING ? "; --accept-self-intersections writes it anyway" : "",
                        rep.repair.ran ? what : "did not run");
    }
    // All or nothing (app_io.h): `repair IN IN` keeps IN when the write fails.
    if (app_write_mesh(mesh, out, !has_extension(out, ".stl"), 1.0) != 0)
    {
        mc_mesh_destroy(mesh);
        return 1;
    }
    if (st == MC_OK && a.json)
    {
        printf("{\"triangles\":%u,\"vertices\":%u,\"volume\":", rep.triangles, mc_mesh_get_vertex_count(mesh));
        cli_json_double(stdout, rep.volume);
        printf(",\"output\":");
        cli_json_string(stdout, out);
        putchar(',');
        print_repair_json(&rep.repair);
        printf("}\n");
    }
    else if (st == MC_OK)
    {
        print_repair_table(a.path[0], out, &rep);
    }
    mc_mesh_destroy(mesh);
    if (st != MC_OK)
    {
        return cli_fail(NULL, "%s", err.message);
    }
    if (rep.self_check_accepted)
    {
        fprintf(stderr, "meshcontact: warning: %s: the repaired mesh fails the self-check, written anyway\n", out);
    }
    return 0;
}

bool cli_repair_suggestion(const char* path, const mc_import_options* base, char* buf, size_t size)
{
    static const double welds[] = {0.0, 1e-6};
    for (size_t i = 0; i < sizeof welds / sizeof welds[0]; ++i)
    {
        mc_import_options opt = *base;
        opt.progress = NULL;
        opt.repair = mc_default_repair_options();
        opt.repair.weld_tolerance = welds[i];
        mc_mesh_report rep;
        int muted = cli_mute_stdout(path);
        bool usable = mc_mesh_check_file(path, &opt, &rep, NULL) == MC_OK && rep.contact_ready;
        cli_restore_stdout(muted);
        if (usable)
        {
            char what[600];
            app_repair_summary(&rep.repair, what, sizeof what);
            snprintf(buf, size, "'meshcontact repair%s' makes it usable (%s)",
                     welds[i] > 0.0 ? " --weld-tolerance 1e-6" : "", what);
            return true;
        }
    }
    return false;
}
