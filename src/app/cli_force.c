// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact force`: contact regions of two meshes at given poses and velocities, with IMPACT forces, Coulomb
// friction and the resulting wrench on each body.
#include "src/app/cli.h"
#include "src/app/scenario_laws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_help(FILE* f)
{
    fprintf(f,
            "usage: meshcontact force MESH_I MESH_J [--pose-i P] [--pose-j P] [--vel-i V] [--vel-j V]\n"
            "                         (--stiffness K --exponent E [--damping C --dmax D] |\n"
            "                          --penalty P --restitution EPS [--normal-velocity VT])\n"
            "                         [--mu-static MS --mu-dynamic MD --stiction-velocity VS --friction-velocity VD]\n"
            "                         [--law TEXT] [--splines TEXT]\n"
            "                         [--scale S] [--max-triangles N] [--threads N] [--json]\n"
            "                         [--accept-self-intersections]\n\n"
            "MESH_I and MESH_J are mesh files or the analytic shapes of 'meshcontact contact': sphere:R, socket:R,\n"
            "plane, cylinder:R,L, hole:R,L (see 'meshcontact contact --help' for the pairs they support).\n\n"
            "Intersect two closed meshes at their poses and evaluate Adams IMPACT contact forces per region:\n"
            "Fn = max(0, K g^E + STEP(g, 0, 0, D, C) gdot), with g the penetration depth and gdot its rate; a region\n"
            "gets a force only when its area A > 2 g^2 (otherwise it is reported as rejected). With friction,\n"
            "Ft = -mu(v) Fn v/|v| (v: slip velocity of J relative to I) and a torque mu Fn (2/3) R about the normal\n"
            "opposing the relative spin (R = sqrt(A/pi)). The normal points from I into J; per-region forces and\n"
            "torques act on J (the opposite on I). With --penalty (Adams POISSON) the normal force is\n"
            "Fn = max(0, P g STEP(gdot, -VT, EPS^2, VT, 1)): a spring P while the bodies approach, EPS^2 P while\n"
            "they separate, so a bounce keeps the fraction EPS of its normal speed.\n\n"
            "options:\n"
            "  --pose-i P, --pose-j P  body to world: tx,ty,tz,qw,qx,qy,qz (quaternion normalised) or tx,ty,tz\n"
            "  --vel-i V, --vel-j V    vx,vy,vz,wx,wy,wz: world-frame velocity of the body reference point and\n"
            "                          angular velocity (default 0)\n"
            "  --stiffness K           IMPACT STIFFNESS (force / length^E), >= 0 (required)\n"
            "  --exponent E            IMPACT EXPONENT, > 0 (required)\n"
            "  --damping C             IMPACT DAMPING, maximum damping coefficient (default 0; needs --dmax)\n"
            "  --dmax D                depth of full damping, > 0\n"
            "  --penalty P             POISSON PENALTY (force / length), > 0: selects POISSON instead of IMPACT\n"
            "  --restitution EPS       POISSON RESTITUTION_COEFFICIENT, 0 <= EPS <= 1 (required with --penalty)\n"
            "  --normal-velocity VT    POISSON NORMAL_TRANSITION_VELOCITY, > 0 (default 1e-3)\n"
            "  --mu-static MS          MU_STATIC: turns Coulomb friction on (with --mu-dynamic)\n"
            "  --mu-dynamic MD         MU_DYNAMIC <= MU_STATIC\n"
            "  --stiction-velocity VS  STICTION_TRANSITION_VELOCITY, > 0 (default 0.1)\n"
            "  --friction-velocity VD  FRICTION_TRANSITION_VELOCITY, > VS (default 1)\n"
            "  --scale S               multiply both meshes' coordinates by S\n" CLI_MAX_TRIANGLES_HELP(
                "                          ") "  --threads N             worker threads (results do not depend on it)\n"
                                              "  --accept-self-intersections\n"
                                              "                          use a mesh whose triangles intersect each "
                                              "other or whose shells nest\n"
                                              "                          with the same winding (refused by default, "
                                              "see 'meshcontact info'),\n"
                                              "                          with a warning on stderr: its overlapping "
                                              "parts count twice\n"
                                              "  --json                  print one JSON object: the fields of "
                                              "'meshcontact contact --json' (regions\n"
                                              "                          with volume, centroid, area, radius, normal, "
                                              "depth, point_i, point_j) plus\n"
                                              "                          per region \"fn\", \"ft\":[x,y,z], "
                                              "\"torque\":[x,y,z], \"rejected\", and\n"
                                              "                          \"wrench_i\", \"wrench_j\": "
                                              "{\"force\":[...],\"torque\":[...]} (torque about each\n"
                                              "                          body's reference point, world frame)\n"
                                              "  --help                  this text\n\n"
                                              "exit status: 0 on success, 1 when a mesh cannot be read or a parameter "
                                              "is out of range, 2 on a usage "
                                              "error.\n");
    fputs("\nother contact laws (RecurDyn, DYMORE, splines, Adams user routines; include/meshcontact/README.md):\n"
          "  --law TEXT              a scenario CONTACT's law keywords (RECURDYN, DYMORE and their parameters,\n"
          "                          NORMAL_FUNCTION=USER(..), NORMAL_ROUTINE=lib::fn, FRICTION_SPLINE=id,\n"
          "                          FRICTION_FUNCTION, FRICTION_ROUTINE; 'meshcontact simulate --help'), e.g.\n"
          "                          --law \"RECURDYN, STIFFNESS=1e7, DAMPING=10, BOUNDARY_PENETRATION=1e-4\"\n"
          "  --splines TEXT          curves for --law's *_SPLINE=id: \"id, X=x1,x2,.., Y=y1,y2,..,\n"
          "                          [METHOD=CUBIC|AKIMA|LINEAR]\", several separated by ';'\n",
          f);
}

static void json_wrench(FILE* f, const char* key, mc_wrench w)
{
    fprintf(f, "\"%s\":{\"force\":", key);
    cli_json_vec3(f, w.force);
    fputs(",\"torque\":", f);
    cli_json_vec3(f, w.torque);
    fputc('}', f);
}

static void print_json(const mc_contact_region* rec, uint32_t n, const mc_step_info* info, mc_wrench wi, mc_wrench wj,
                       double seconds)
{
    FILE* f = stdout;
    double total = 0.0;
    fprintf(f, "{\"triangle_pairs\":%llu,\"regions\":[", (unsigned long long)info->triangle_pairs);
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_region* r = &rec[k].region;
        total += r->volume;
        fputs(k ? ",{" : "{", f);
        cli_json_region_members(f, r);
        fputs(",\"fn\":", f);
        cli_json_double(f, rec[k].normal_force);
        fputs(",\"ft\":", f);
        cli_json_vec3(f, rec[k].friction_force);
        fputs(",\"torque\":", f);
        cli_json_vec3(f, rec[k].friction_torque);
        fprintf(f, ",\"rejected\":%s}", rec[k].rejected ? "true" : "false");
    }
    fputs("],\"total_volume\":", f);
    cli_json_double(f, total);
    fputs(",\"seconds\":", f);
    cli_json_double(f, seconds);
    fputc(',', f);
    json_wrench(f, "wrench_i", wi);
    fputc(',', f);
    json_wrench(f, "wrench_j", wj);
    fputs("}\n", f);
}

static void print_vec(const char* label, mc_vec3 v)
{
    printf("%s%.9g %.9g %.9g\n", label, v.x, v.y, v.z);
}

static void print_text(const mc_contact_region* rec, uint32_t n, const mc_step_info* info, mc_wrench wi, mc_wrench wj,
                       double seconds)
{
    printf("triangle pairs: %llu\nregions: %u\n", (unsigned long long)info->triangle_pairs, n);
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_region* r = &rec[k].region;
        printf("region %u%s\n", k, rec[k].rejected ? " (rejected: area <= 2 depth^2, no force)" : "");
        printf("  volume    %.9g\n  area      %.9g\n  radius    %.9g\n  depth     %.9g\n  rate      %.9g\n", r->volume,
               r->area, r->radius, r->depth, rec[k].rate);
        print_vec("  centroid  ", r->centroid);
        print_vec("  normal    ", r->normal);
        printf("  fn        %.9g\n  slip      %.9g\n", rec[k].normal_force, rec[k].slip_speed);
        print_vec("  ft        ", rec[k].friction_force);
        print_vec("  torque    ", rec[k].friction_torque);
    }
    print_vec("wrench on I: force  ", wi.force);
    print_vec("             torque ", wi.torque);
    print_vec("wrench on J: force  ", wj.force);
    print_vec("             torque ", wj.torque);
    printf("seconds: %.6f\n", seconds);
}

typedef struct force_args
{
    const char* path[2];
    mc_pose pose[2];
    double vel[2][6]; // vx,vy,vz,wx,wy,wz
    double scale;
    double max_triangles; ///< --max-triangles, 0: the default
    int threads;
    bool json;
    bool accept_self_intersections;
    mc_force_model model;
    const char* law;     ///< --law: a CONTACT's law keywords (scenario_laws.h), or NULL
    const char* splines; ///< --splines: SPLINE definitions for --law, or NULL
    bool have_k, have_e, have_c, have_dmax, have_ms, have_md, have_p, have_eps;
} force_args;

// Which force law the options select, and whether they go together; returns CLI_CONTINUE or a usage error.
static int check_model(force_args* a)
{
    bool impact = a->have_k || a->have_e || a->have_c || a->have_dmax;
    if (a->have_p || a->have_eps)
    {
        if (impact)
        {
            return cli_usage_error("force", "IMPACT options (--stiffness, --exponent, --damping, --dmax) and POISSON "
                                            "options (--penalty, --restitution) exclude each other");
        }
        if (!a->have_p || !a->have_eps)
        {
            return cli_usage_error("force", "POISSON needs both --penalty and --restitution");
        }
        a->model.normal_law = MC_NORMAL_POISSON;
    }
    else if ((!a->have_k || !a->have_e) && a->law == NULL) // --law may choose another normal law (checked later)
    {
        return cli_usage_error("force", "--stiffness and --exponent are required (or --penalty and --restitution)");
    }
    if (a->have_c && !a->have_dmax && a->model.damping > 0.0)
    {
        return cli_usage_error("force", "--damping needs --dmax (the depth of full damping)");
    }
    if (a->have_ms != a->have_md)
    {
        return cli_usage_error("force", "friction needs both --mu-static and --mu-dynamic");
    }
    a->model.friction = a->have_ms ? MC_FRICTION_ON : MC_FRICTION_OFF;
    return CLI_CONTINUE;
}

// Parse the command line; returns CLI_CONTINUE, else an exit status.
static int parse_args(int argc, char** argv, force_args* a)
{
    const char* pose = "tx,ty,tz or tx,ty,tz,qw,qx,qy,qz (finite numbers, non-zero quaternion)";
    const char* twist = "six comma-separated numbers vx,vy,vz,wx,wy,wz";
    const char* number = "a number";
    mc_force_model* m = &a->model;
    const cli_option options[] = {
        {"json", 0, CLI_FLAG, &a->json, 0, NULL, NULL, NULL},
        {"pose-i", 0, CLI_POSE, &a->pose[0], 0, NULL, NULL, pose},
        {"pose-j", 0, CLI_POSE, &a->pose[1], 0, NULL, NULL, pose},
        {"vel-i", 0, CLI_NUMBERS, a->vel[0], 6, NULL, NULL, twist},
        {"vel-j", 0, CLI_NUMBERS, a->vel[1], 6, NULL, NULL, twist},
        {"stiffness", 0, CLI_NUMBER, &m->stiffness, 0, NULL, &a->have_k, number},
        {"exponent", 0, CLI_NUMBER, &m->exponent, 0, NULL, &a->have_e, number},
        {"damping", 0, CLI_NUMBER, &m->damping, 0, NULL, &a->have_c, number},
        {"dmax", 0, CLI_NUMBER, &m->dmax, 0, NULL, &a->have_dmax, number},
        {"penalty", 0, CLI_NUMBER, &m->penalty, 0, NULL, &a->have_p, number},
        {"restitution", 0, CLI_NUMBER, &m->restitution, 0, NULL, &a->have_eps, number},
        {"normal-velocity", 0, CLI_NUMBER, &m->normal_transition_velocity, 0, NULL, NULL, number},
        {"mu-static", 0, CLI_NUMBER, &m->mu_static, 0, NULL, &a->have_ms, number},
        {"mu-dynamic", 0, CLI_NUMBER, &m->mu_dynamic, 0, NULL, &a->have_md, number},
        {"stiction-velocity", 0, CLI_NUMBER, &m->stiction_velocity, 0, NULL, NULL, number},
        {"friction-velocity", 0, CLI_NUMBER, &m->friction_velocity, 0, NULL, NULL, number},
        {"scale", 0, CLI_NUMBER, &a->scale, 0, cli_positive, NULL, "a positive number"},
        {"max-triangles", 0, CLI_NUMBER, &a->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"threads", 0, CLI_COUNT, &a->threads, 0, NULL, NULL, "a positive integer"},
        {"accept-self-intersections", 0, CLI_FLAG, &a->accept_self_intersections, 0, NULL, NULL, NULL},
        {"law", 0, CLI_TEXT, &a->law, 0, NULL, NULL, "a CONTACT's law keywords"},
        {"splines", 0, CLI_TEXT, &a->splines, 0, NULL, NULL, "SPLINE definitions"},
    };
    static const char* const operand_names[] = {"MESH_I", "MESH_J"};
    const cli_syntax syntax = {"force", print_help, options, CLI_LENGTH(options), operand_names, a->path, 2};
    int rc = cli_parse_args(&syntax, argc, argv);
    return rc != CLI_CONTINUE ? rc : check_model(a);
}

int cli_force(int argc, char** argv)
{
    force_args a;
    memset(&a, 0, sizeof a);
    a.pose[0] = a.pose[1] = mc_pose_identity();
    a.scale = 1.0;
    a.model = mc_default_force_model();
    a.model.damping = 0.0;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    mc_error err;
    memset(&err, 0, sizeof err);
    app_scenario_laws* law_data = NULL; // curves and routine libraries of --law (live until the end)
    app_contact_laws* laws = NULL;
    if (a.law != NULL || a.splines != NULL)
    {
        app_law_error le = {0, ""};
        bool ok = app_laws_from_text(a.splines, a.law, NULL, &law_data, &laws, &le);
        if (ok && (laws == NULL || laws->normal == APP_LAW_NORMAL_NONE) && (!a.have_k || !a.have_e) &&
            a.model.normal_law == MC_NORMAL_IMPACT)
        {
            app_laws_free_contact(laws);
            app_laws_free_scenario(law_data);
            return cli_usage_error("force", "--stiffness and --exponent are required (or --penalty and --restitution, "
                                            "or a normal law in --law)");
        }
        app_laws_apply(laws, &a.model);
        if (!ok)
        {
            app_laws_free_scenario(law_data);
            return cli_fail(NULL, "force: %s", le.message);
        }
    }
    if (mc_force_model_check(&a.model, &err) != MC_OK)
    {
        app_laws_free_contact(laws);
        app_laws_free_scenario(law_data);
        return cli_fail(NULL, "force: %s", err.message);
    }
    mc_mesh* mesh[2] = {NULL, NULL};
    mc_shape shape[2];
    mc_world* w = NULL;
    mc_contact_region* rec = NULL;
    rc = 1;
    for (int k = 0; k < 2; ++k)
    {
        if (cli_load_shape(a.path[k], a.scale, a.max_triangles, a.accept_self_intersections, &shape[k], &mesh[k]) != 0)
        {
            goto done;
        }
    }
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = a.threads;
    if (mc_world_create(&wd, &w) != MC_OK)
    {
        cli_fail(NULL, "force: cannot create the world (out of memory)");
        goto done;
    }
    mc_body_id id[2];
    for (int k = 0; k < 2; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = mesh[k];
        if (mesh[k] == NULL)
        {
            bd.shape = shape[k]; // an analytic shape
        }
        bd.pose = a.pose[k];
        bd.velocity.v = mc_v3(a.vel[k][0], a.vel[k][1], a.vel[k][2]);
        bd.velocity.w = mc_v3(a.vel[k][3], a.vel[k][4], a.vel[k][5]);
        id[k] = mc_world_create_body(w, &bd);
        if (id[k].index1 == 0)
        {
            cli_fail(a.path[k], "cannot create the body%s%s", cli_last_log()[0] != '\0' ? ": " : "", cli_last_log());
            goto done;
        }
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &id[0];
    cd.i_count = 1;
    cd.j_bodies = &id[1];
    cd.j_count = 1;
    cd.model = a.model;
    mc_contact_id cid;
    if (mc_world_create_contact(w, &cd, &cid, &err) != MC_OK)
    {
        cli_fail(NULL, "force: %s", err.message);
        goto done;
    }
    double t0 = cli_now();
    mc_status s = mc_world_evaluate(w);
    double seconds = cli_now() - t0;
    mc_step_info info = mc_world_get_step_info(w);
    if (s != MC_OK || (info.flags & (MC_STEP_UNBOUNDED_PAIR | MC_STEP_PAIR_FAILED)))
    {
        cli_fail(NULL, "force: %s%s%s",
                 (info.flags & MC_STEP_UNBOUNDED_PAIR)
                     ? "both geometries are flipped: their intersection is unbounded"
                     : (s != MC_OK                           ? mc_status_string(s)
                        : mesh[0] == NULL || mesh[1] == NULL ? "the contact query failed (a pair of shapes that "
                                                               "'meshcontact contact --help' lists as not supported?)"
                                                             : "the contact query failed"),
                 cli_last_log()[0] != '\0' ? ": " : "", cli_last_log());
        goto done;
    }
    uint32_t n = mc_world_get_regions(w, NULL, 0);
    rec = n > 0 ? calloc(n, sizeof *rec) : NULL;
    if (n > 0 && rec == NULL)
    {
        cli_fail(NULL, "force: out of memory");
        goto done;
    }
    mc_world_get_regions(w, rec, n);
    mc_wrench wi = mc_body_get_wrench(w, id[0]);
    mc_wrench wj = mc_body_get_wrench(w, id[1]);
    if (a.json)
    {
        print_json(rec, n, &info, wi, wj, seconds);
    }
    else
    {
        print_text(rec, n, &info, wi, wj, seconds);
    }
    rc = 0;
done:
    free(rec);
    mc_world_destroy(w);
    mc_mesh_destroy(mesh[0]);
    mc_mesh_destroy(mesh[1]);
    app_laws_free_contact(laws);
    app_laws_free_scenario(law_data);
    return rc;
}
