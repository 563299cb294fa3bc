// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact info`: check a mesh file and print its report (triangles, closedness, volume, area, bbox, problems).
#include "src/app/cli.h"
#include "src/app/scenario.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/// Files above this size show progress on stderr (when it is a terminal).
#define INFO_PROGRESS_BYTES (16u << 20)

static void print_help(FILE* f)
{
    fprintf(f,
            "usage: meshcontact info MESH [--scale S] [--max-triangles N] [--json] [--accept-self-intersections]\n"
            "                      [--repair] [--weld-tolerance T] [--chord-tolerance C] [--angle DEG] [--solid K]\n\n"
            "Read a mesh file (.stl .shl .obj .ply .off .3mf .gltf .glb .dae, or a B-rep .step .stp .iges .igs\n"
            ".brep faceted at --chord-tolerance), weld identical vertices and report what the checks found.\n"
            "Counts, closedness, orientation and the signed volume are those of the\n"
            "triangles as read (after exact welding; polygons fan-split); a negative volume means the normals\n"
            "point inward. Zero-area triangles are listed as problems; they are removed (and T-junctions\n"
            "repaired) in the mesh used for contact.\n\n"
            "A closed, manifold, oriented mesh is then self-checked, exactly: pairs of triangles that intersect\n"
            "(closed triangles sharing a point their shared vertices do not explain: crossing, touching, a face\n"
            "folded onto its neighbour, a duplicate; 'self-intersection' gives the count and the first pair, as\n"
            "triangle indices of the cleaned mesh), and how its shells nest ('nesting': a shell inside an odd\n"
            "number of others must be wound inward, a cavity; one wound outward there is counted twice, one\n"
            "wound inward elsewhere is inside out). Either makes the mesh unusable for contact. Shells apart\n"
            "from the others (inside none, holding none, touching none) are first wound outward one by one:\n"
            "two separate solids, one wound inward, are usable (the inward one is reversed).\n\n"
            "When the mesh cannot be used, info tries 'meshcontact repair' (every repair, then with a weld of\n"
            "1e-6 of the bbox diagonal) and says which would make it usable and what it would change.\n\n"
            "options:\n"
            "  --scale S  multiply every coordinate by S (a .shl file's own scale is applied on "
            "top)\n" CLI_MAX_TRIANGLES_HELP(
                "             ") "  --json     print one JSON object: "
                                 "{\"triangles\",\"vertices\",\"closed\",\"oriented\",\"volume\",\n"
                                 "             \"area\",\"bbox\",\"problems\", then extra keys}\n"
                                 "  --repair   report the mesh after every repair of 'meshcontact repair' "
                                 "(the\n             changes are listed)\n"
                                 "  --weld-tolerance T\n"
                                 "             weld points closer than T times the bbox diagonal (1e-12 .. "
                                 "0.1)\n" CLI_BREP_HELP(
                                     "             ") "  --accept-self-intersections\n"
                                                      "             exit status 0 for a mesh that only fails the "
                                                      "self-check (contact\n"
                                                      "             and force then need the same option to use it)\n"
                                                      "  --help     this text\n\n"
                                                      "exit status: 0 when the mesh can be used for contact; 1 when it "
                                                      "cannot (open, "
                                                      "non-manifold,\n"
                                                      "inconsistently wound, intersecting itself, misnested: the "
                                                      "report is still "
                                                      "printed and stderr\n"
                                                      "says why) or cannot be read; 2 on a usage error.\n");
}

typedef struct problem_list
{
    char text[8][200];
    int count;
} problem_list;

static void add_problem(problem_list* p, const char* fmt, unsigned a)
{
    if (p->count < 8)
    {
        snprintf(p->text[p->count++], sizeof p->text[0], fmt, a);
    }
}

static void collect_problems(const mc_mesh_report* r, problem_list* p)
{
    memset(p, 0, sizeof *p);
    if (r->boundary_edges > 0)
    {
        add_problem(p, "open: %u boundary edges (used by one triangle)", r->boundary_edges);
    }
    if (r->nonmanifold_edges > 0)
    {
        add_problem(p, "non-manifold: %u edges used by three or more triangles", r->nonmanifold_edges);
    }
    if (r->misoriented_edges > 0)
    {
        add_problem(p, "inconsistent winding: %u directed edges used by two or more triangles", r->misoriented_edges);
    }
    if (r->pinched_vertices > 0)
    {
        add_problem(p, "non-manifold: %u pinched vertices (two fans meet at one point)", r->pinched_vertices);
    }
    if (r->degenerate_triangles > 0)
    {
        add_problem(p, "%u zero-area triangles (removed for contact)", r->degenerate_triangles);
    }
    if (r->closed && r->oriented && r->manifold && !r->contact_ready && !r->self_checked)
    {
        add_problem(p, "%u zero-area triangles could not be removed without opening the mesh", r->degenerate_triangles);
    }
    if (r->self_intersecting_pairs > 0 && p->count < 8)
    {
        snprintf(p->text[p->count++], sizeof p->text[0],
                 "intersects itself: %llu pairs of triangles intersect (the first: triangles %u and %u)",
                 (unsigned long long)r->self_intersecting_pairs, r->self_intersection_sample[0],
                 r->self_intersection_sample[1]);
    }
    if (r->nested_components > 0)
    {
        add_problem(p,
                    r->nested_components == 1
                        ? "%u shell nested in another with the same winding (its volume counts twice)"
                        : "%u shells nested in another with the same winding (their volume counts twice)",
                    r->nested_components);
    }
    if (r->inverted_components > 0)
    {
        add_problem(p,
                    r->inverted_components == 1 ? "%u shell wound inside out (inward, and inside no other shell)"
                                                : "%u shells wound inside out (inward, and inside no other shell)",
                    r->inverted_components);
    }
    if (r->inward_components > 0 && !r->self_checked) // else the nesting check tells cavities from inside-out shells
    {
        add_problem(p, "%u components enclose negative volume (cavities, or shells wound inward)",
                    r->inward_components);
    }
    if (r->reoriented && (r->components <= 1 || r->reoriented_shells >= r->components))
    {
        add_problem(p, "wound inward (negative volume): %u triangles reoriented for contact", r->triangles);
    }
    else if (r->reoriented && p->count < 8)
    {
        // Some shells only: those disjoint from the others, each oriented on its own (mc_self_check).
        snprintf(p->text[p->count++], sizeof p->text[0],
                 "%u of %u shells wound inward: reversed for contact (each shell apart from the others bounds its own "
                 "volume)",
                 r->reoriented_shells, r->components);
    }
    if (r->trailing_bytes > 0)
    {
        add_problem(p, "%llu bytes after the last triangle of the binary STL (ignored)",
                    (unsigned long long)r->trailing_bytes);
    }
}

/// The self-check's keys of the JSON object (after "scale").
static void print_json_self_check(const mc_mesh_report* r, bool accepted)
{
    printf(",\"self_checked\":%s,\"self_intersecting_pairs\":%llu,\"self_intersection_sample\":",
           r->self_checked ? "true" : "false", (unsigned long long)r->self_intersecting_pairs);
    if (r->self_checked && r->self_intersecting_pairs > 0)
    {
        printf("[%u,%u]", r->self_intersection_sample[0], r->self_intersection_sample[1]);
    }
    else
    {
        printf("null");
    }
    printf(",\"cavity_components\":%u,\"nested_components\":%u,\"inverted_components\":%u,"
           "\"nesting_sample_triangle\":",
           r->cavity_components, r->nested_components, r->inverted_components);
    if (r->self_checked && r->nested_components + r->inverted_components > 0)
    {
        printf("%u", r->nesting_sample_triangle);
    }
    else
    {
        printf("null");
    }
    printf(",\"self_intersections_accepted\":%s", accepted ? "true" : "false");
}

static void print_json(const mc_mesh_report* r, const problem_list* p, bool accepted)
{
    printf("{\"triangles\":%u,\"vertices\":%u,\"closed\":%s,\"oriented\":%s,\"volume\":", r->input_triangles,
           r->vertices, r->closed ? "true" : "false", r->oriented ? "true" : "false");
    cli_json_double(stdout, r->signed_volume_as_read);
    printf(",\"area\":");
    cli_json_double(stdout, r->area);
    printf(",\"bbox\":[");
    cli_json_vec3(stdout, r->bbox_min);
    putchar(',');
    cli_json_vec3(stdout, r->bbox_max);
    printf("],\"problems\":[");
    for (int i = 0; i < p->count; ++i)
    {
        if (i > 0)
        {
            putchar(',');
        }
        cli_json_string(stdout, p->text[i]);
    }
    printf("],\"manifold\":%s,\"contact_ready\":%s,\"components\":%u,\"input_vertices\":%u,"
           "\"boundary_edges\":%u,\"nonmanifold_edges\":%u,\"misoriented_edges\":%u,\"pinched_vertices\":%u,"
           "\"degenerate_triangles\":%u,\"split_polygons\":%u,\"contact_triangles\":%u,\"reoriented\":%s,"
           "\"reoriented_shells\":%u,\"inward_components\":%u,\"trailing_bytes\":%llu,"
           "\"contact_volume\":",
           r->manifold ? "true" : "false", r->contact_ready ? "true" : "false", r->components, r->input_vertices,
           r->boundary_edges, r->nonmanifold_edges, r->misoriented_edges, r->pinched_vertices, r->degenerate_triangles,
           r->split_polygons, r->triangles, r->reoriented ? "true" : "false", r->reoriented_shells,
           r->inward_components, (unsigned long long)r->trailing_bytes);
    cli_json_double(stdout, r->volume);
    printf(",\"scale\":");
    cli_json_double(stdout, r->scale);
    print_json_self_check(r, accepted);
    if (r->brep_surfaces > 0)
    {
        printf(",\"brep_solids\":%u,\"brep_surfaces\":%u,\"brep_volume\":", r->brep_solids, r->brep_surfaces);
        cli_json_double(stdout, r->brep_volume);
    }
    if (r->repair.ran)
    {
        char what[600];
        app_repair_summary(&r->repair, what, sizeof what);
        printf(",\"repaired\":");
        cli_json_string(stdout, what);
    }
    printf("}\n");
}

/// The self-check's lines of the table: intersecting pairs and the nesting of the shells.
static void print_table_self_check(const mc_mesh_report* r)
{
    if (!r->self_checked)
    {
        printf("self-intersection  not checked (the mesh is not closed, manifold and oriented)\n");
        return;
    }
    if (r->self_intersecting_pairs == 0)
    {
        printf("self-intersection  none\n");
    }
    else
    {
        printf("self-intersection  %llu pairs of triangles (the first: triangles %u and %u)\n",
               (unsigned long long)r->self_intersecting_pairs, r->self_intersection_sample[0],
               r->self_intersection_sample[1]);
    }
    if (r->cavity_components + r->nested_components + r->inverted_components == 0)
    {
        printf("nesting            none%s\n",
               r->self_intersecting_pairs > 0 ? " (shells that intersect another are not classified)" : "");
        return;
    }
    printf("nesting            %u cavities, %u nested with the same winding, %u inside out", r->cavity_components,
           r->nested_components, r->inverted_components);
    if (r->nested_components + r->inverted_components > 0)
    {
        printf(" (the first misnested: the component of triangle %u)", r->nesting_sample_triangle);
    }
    putchar('\n');
}

static void print_table(const char* path, const mc_mesh_report* r, const problem_list* p, bool accepted)
{
    mc_vec3 lo = r->bbox_min, hi = r->bbox_max;
    printf("file               %s\n", path);
    printf("triangles          %u\n", r->input_triangles);
    printf("vertices           %u (welded from %u)\n", r->vertices, r->input_vertices);
    printf("closed             %s\n", r->closed ? "yes" : "no");
    printf("manifold           %s\n", r->manifold ? "yes" : "no");
    printf("oriented           %s\n", r->oriented ? "yes" : "no");
    printf("components         %u\n", r->components);
    printf("volume             %.17g\n", r->signed_volume_as_read);
    printf("area               %.17g\n", r->area);
    printf("bbox min           %.17g %.17g %.17g\n", lo.x, lo.y, lo.z);
    printf("bbox max           %.17g %.17g %.17g\n", hi.x, hi.y, hi.z);
    printf("bbox size          %.6g x %.6g x %.6g\n", hi.x - lo.x, hi.y - lo.y, hi.z - lo.z);
    printf("scale              %.17g\n", r->scale);
    if (r->split_polygons > 0)
    {
        printf("polygons split     %u\n", r->split_polygons);
    }
    if (r->repair.ran)
    {
        char what[600];
        app_repair_summary(&r->repair, what, sizeof what);
        printf("repaired           %s\n", what);
    }
    if (cli_is_brep_path(path))
    {
        printf("b-rep              %u solids, %u faces tessellated, exact volume %.17g%s\n", r->brep_solids,
               r->brep_surfaces, r->brep_volume, r->brep_solids == 0 ? " (surfaces only: no solid)" : "");
    }
    print_table_self_check(r);
    printf("usable for contact %s", r->contact_ready ? "yes" : (accepted ? "yes, self-intersections accepted" : "no"));
    if (r->contact_ready || accepted)
    {
        printf(" (%u triangles, volume %.17g)", r->triangles, r->volume);
    }
    putchar('\n');
    if (p->count == 0)
    {
        printf("problems           none\n");
    }
    for (int i = 0; i < p->count; ++i)
    {
        printf("%s %s\n", i == 0 ? "problems          " : "                  ", p->text[i]);
    }
}

int cli_info(int argc, char** argv)
{
    const char* path = NULL;
    bool json = false, accept = false, repair = false;
    double angle_deg = 0.0, solid = -1.0;
    mc_import_options opt = mc_default_import_options();
    double max_triangles = 0.0;
    const cli_option options[] = {
        {"json", 0, CLI_FLAG, &json, 0, NULL, NULL, NULL},
        {"scale", 0, CLI_NUMBER, &opt.scale, 0, cli_positive, NULL, "a positive number"},
        {"max-triangles", 0, CLI_NUMBER, &max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"accept-self-intersections", 0, CLI_FLAG, &accept, 0, NULL, NULL, NULL},
        {"repair", 0, CLI_FLAG, &repair, 0, NULL, NULL, NULL},
        {"chord-tolerance", 0, CLI_NUMBER, &opt.chord_tolerance, 0, cli_positive, NULL, "a positive length"},
        {"angle", 0, CLI_NUMBER, &angle_deg, 0, cli_is_facet_angle, NULL, "degrees in (0, 90]"},
        {"solid", 0, CLI_NUMBER, &solid, 0, cli_is_solid_index, NULL, "a solid number from 0"},
        {"weld-tolerance", 0, CLI_NUMBER, &opt.weld_tolerance, 0, cli_positive, NULL, "a number from 1e-12 to 0.1"},
    };
    static const char* const operand_names[] = {"MESH"};
    const cli_syntax syntax = {"info", print_help, options, CLI_LENGTH(options), operand_names, &path, 1};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    if (max_triangles > 0.0)
    {
        opt.max_triangles = (uint64_t)max_triangles;
    }
    if (repair)
    {
        opt.repair.flags = MC_REPAIR_ALL;
    }
    cli_apply_brep_options(&opt, angle_deg, solid);
    struct stat sb;
    if (cli_stderr_is_tty() && stat(path, &sb) == 0 && (uint64_t)sb.st_size > INFO_PROGRESS_BYTES)
    {
        opt.progress = cli_progress;
        opt.progress_user = (void*)"reading";
    }
    mc_mesh_report r;
    mc_error err;
    memset(&err, 0, sizeof err);
    int muted = cli_mute_stdout(path);
    mc_status st = mc_mesh_check_file(path, &opt, &r, &err);
    cli_restore_stdout(muted);
    if (st != MC_OK)
    {
        return cli_fail(NULL, "%s", err.message[0] ? err.message : mc_status_string(st));
    }
    problem_list p;
    collect_problems(&r, &p);
    // The self-check's findings are the only ones the option can accept (it runs on otherwise usable meshes only).
    bool accepted =
        accept && r.self_checked && r.self_intersecting_pairs + r.nested_components + r.inverted_components > 0;
    if (json)
    {
        print_json(&r, &p, accepted);
    }
    else
    {
        print_table(path, &r, &p, accepted);
    }
    fflush(stdout);
    if (!r.contact_ready && !accepted)
    {
        char why[1000];
        size_t n = 0;
        why[0] = '\0';
        for (int i = 0; i < p.count && n < sizeof why; ++i)
        {
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", i ? "; " : "", p.text[i]);
        }
        bool hint = r.self_checked; // then the self-check is what failed
        char fix[800];
        bool fixable = !r.repair.ran && cli_repair_suggestion(path, &opt, fix, sizeof fix);
        return cli_fail(path, "cannot be used for contact: %s%s%s%s", n > 0 ? why : "not a closed manifold surface",
                        hint ? " (--accept-self-intersections uses it anyway)" : "", fixable ? "; " : "",
                        fixable ? fix : "");
    }
    return 0;
}
