// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact sweep poses`: two meshes and a CSV of poses (and optionally velocities) in, the contact quantities of
// every row out (regions, volume, area, depth, normal, and with a force model the forces and the wrench on J; the
// minimum distance when separated).
#include "src/app/cli_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POSE_COLUMNS 15     // time, pose of I (7), pose of J (7)
#define VELOCITY_COLUMNS 27 // the same plus the velocities of I and J (6 each)

static const char* const s_input_header[VELOCITY_COLUMNS] = {
    "time", "x_i",  "y_i",  "z_i",  "qw_i", "qx_i", "qy_i", "qz_i", "x_j",  "y_j",  "z_j",  "qw_j", "qx_j", "qy_j",
    "qz_j", "vx_i", "vy_i", "vz_i", "wx_i", "wy_i", "wz_i", "vx_j", "vy_j", "vz_j", "wx_j", "wy_j", "wz_j",
};

#define OUT_BASE                                                                                                       \
    "row,time,status,triangle_pairs,regions,volume,area,depth,normal_x,normal_y,normal_z,centroid_x,centroid_y,"       \
    "centroid_z"
#define OUT_FORCES ",fn,rejected,force_j_x,force_j_y,force_j_z,torque_j_x,torque_j_y,torque_j_z"

static void print_help(FILE* f)
{
    fprintf(
        f,
        "usage: meshcontact sweep poses MESH_I MESH_J POSES.csv -o OUT.csv [--resume]\n"
        "                               [--stiffness K --exponent E [--damping C --dmax D] |\n"
        "                                --penalty P --restitution EPS [--normal-velocity VT]]\n"
        "                               [--mu-static MS --mu-dynamic MD --stiction-velocity VS --friction-velocity "
        "VD]\n"
        "                               [--scale S] [--max-triangles N] [--threads N] [--chunk N] [--window N]\n"
        "                               [--accept-self-intersections]\n\n"
        "Evaluate the contact of two meshes at every row of a table of poses (a mechanism cycle, a tolerance\n"
        "study): the same quantities as 'meshcontact contact' (and with a force model 'meshcontact force'),\n"
        "one output row per input row, in input order. Under mpirun the rows are spread over the ranks; the\n"
        "output is the same bytes for any number of ranks and threads.\n\n"
        "POSES.csv: lines starting with '#' and blank lines are skipped; the first other line is the header\n"
        "  time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j\n"
        "optionally followed by the velocities (world frame, about each body's reference point)\n"
        "  ,vx_i,vy_i,vz_i,wx_i,wy_i,wz_i,vx_j,vy_j,vz_j,wx_j,wy_j,wz_j\n"
        "then one row per pose (quaternions w,x,y,z, normalised; velocities default to 0).\n\n"
        "OUT.csv: the header line\n"
        "  " OUT_BASE "\n"
        "  [" OUT_FORCES "],distance,message\n"
        "then one row per input row: row (1-based input row number), time, status ('ok' or 'error'),\n"
        "triangle_pairs, regions, the total volume, the total contact area, the largest depth, the normal and\n"
        "centroid of the largest region (zero without contact; world frame, normal from I into J); with a force\n"
        "model the total normal force fn, the number of rejected regions (A <= 2 g^2) and the wrench on J (force,\n"
        "torque about J's reference point; the force on I is opposite); message says why a row failed (a\n"
        "malformed row, a zero quaternion, a pose out of range): its numbers are then empty and the sweep goes\n"
        "on; distance is the minimum distance between the two solids when they are separated (no region; the\n"
        "library's exact distance query, mc_query_distance), empty when they are in contact (or one is inside the\n"
        "other). Numbers are printed with 17 significant digits.\n\n"
        "options:\n"
        "  -o OUT.csv              the output table (required); rewritten unless --resume\n"
        "  --resume                keep the complete rows of an existing OUT.csv (each is checked against its\n"
        "                          input row; a torn last line is redone) and evaluate the rest\n"
        "  --stiffness ... --friction-velocity   the force model, as in 'meshcontact force --help'\n"
        "  --scale S               multiply both meshes' coordinates by S\n" CLI_MAX_TRIANGLES_HELP(
            "                          ") "  --threads N             OpenMP threads per process (results do not "
                                          "depend on it)\n"
                                          "  --chunk N               rows per MPI message (default 8; results do "
                                          "not depend on it)\n"
                                          "  --window N              MPI: chunks handed out at most past the oldest "
                                          "one not yet\n"
                                          "                          written (default max(64, 8 x ranks)): bounds "
                                          "the rows rank 0\n"
                                          "                          holds back to write them in order\n"
                                          "  --accept-self-intersections   use meshes that intersect themselves\n"
                                          "  --kill-after N          testing: after N rows are written, leave a torn "
                                          "line and kill the\n"
                                          "                          process (SIGKILL), as a crash would\n"
                                          "  --help                  this text\n\n"
                                          "exit status: 0 when every row succeeded, 1 when a row failed (OUT.csv "
                                          "is complete anyway) or\n"
                                          "a file cannot be read or written, 2 on a usage error.\n");
}

/// The pose sweep's state: meshes, options, and per process the query workspace or the world of the force model.
typedef struct pose_sweep
{
    const char* path[2];
    const char* poses_path;
    double scale;
    double max_triangles;
    int threads;
    bool accept_self_intersections;
    sweep_io io;
    double kill_after; // --kill-after, 0: off
    mc_force_model model;
    bool forces; // a force model was given
    bool have_k, have_e, have_c, have_dmax, have_ms, have_md, have_p, have_eps;
    int input_columns; // POSE_COLUMNS or VELOCITY_COLUMNS (from the header)
    mc_mesh* mesh[2];
    mc_workspace* ws;
    mc_region* regions;
    uint32_t region_capacity;
    mc_world* world;
    mc_body_id body[2];
    mc_contact_region* records;
    uint32_t record_capacity;
} pose_sweep;

// Which force law the options select (the rules of 'meshcontact force'); returns CLI_CONTINUE or a usage error.
static int check_model(pose_sweep* s)
{
    bool impact = s->have_k || s->have_e || s->have_c || s->have_dmax;
    bool poisson = s->have_p || s->have_eps;
    s->forces = impact || poisson || s->have_ms || s->have_md;
    if (!s->forces)
    {
        return CLI_CONTINUE;
    }
    if (impact && poisson)
    {
        return cli_usage_error("sweep", "IMPACT options (--stiffness, --exponent, --damping, --dmax) and POISSON "
                                        "options (--penalty, --restitution) exclude each other");
    }
    if (poisson && (!s->have_p || !s->have_eps))
    {
        return cli_usage_error("sweep", "POISSON needs both --penalty and --restitution");
    }
    if (!poisson && (!s->have_k || !s->have_e))
    {
        return cli_usage_error("sweep", "a force model needs --stiffness and --exponent (or --penalty and "
                                        "--restitution)");
    }
    if (s->have_c && !s->have_dmax && s->model.damping > 0.0)
    {
        return cli_usage_error("sweep", "--damping needs --dmax (the depth of full damping)");
    }
    if (s->have_ms != s->have_md)
    {
        return cli_usage_error("sweep", "friction needs both --mu-static and --mu-dynamic");
    }
    s->model.normal_law = poisson ? MC_NORMAL_POISSON : s->model.normal_law;
    s->model.friction = s->have_ms ? MC_FRICTION_ON : MC_FRICTION_OFF;
    return CLI_CONTINUE;
}

static bool is_kill_after(double v)
{
    return v >= 1.0 && v <= 9e15 && v == floor(v);
}

static int parse_args(int argc, char** argv, pose_sweep* s)
{
    const char* number = "a number";
    mc_force_model* m = &s->model;
    const cli_option options[] = {
        {"output", 'o', CLI_TEXT, &s->io.output_path, 0, NULL, NULL, NULL},
        {"resume", 0, CLI_FLAG, &s->io.resume, 0, NULL, NULL, NULL},
        {"stiffness", 0, CLI_NUMBER, &m->stiffness, 0, NULL, &s->have_k, number},
        {"exponent", 0, CLI_NUMBER, &m->exponent, 0, NULL, &s->have_e, number},
        {"damping", 0, CLI_NUMBER, &m->damping, 0, NULL, &s->have_c, number},
        {"dmax", 0, CLI_NUMBER, &m->dmax, 0, NULL, &s->have_dmax, number},
        {"penalty", 0, CLI_NUMBER, &m->penalty, 0, NULL, &s->have_p, number},
        {"restitution", 0, CLI_NUMBER, &m->restitution, 0, NULL, &s->have_eps, number},
        {"normal-velocity", 0, CLI_NUMBER, &m->normal_transition_velocity, 0, NULL, NULL, number},
        {"mu-static", 0, CLI_NUMBER, &m->mu_static, 0, NULL, &s->have_ms, number},
        {"mu-dynamic", 0, CLI_NUMBER, &m->mu_dynamic, 0, NULL, &s->have_md, number},
        {"stiction-velocity", 0, CLI_NUMBER, &m->stiction_velocity, 0, NULL, NULL, number},
        {"friction-velocity", 0, CLI_NUMBER, &m->friction_velocity, 0, NULL, NULL, number},
        {"scale", 0, CLI_NUMBER, &s->scale, 0, cli_positive, NULL, "a positive number"},
        {"max-triangles", 0, CLI_NUMBER, &s->max_triangles, 0, cli_is_max_triangles, NULL,
         "a whole number from 1 to 2^40"},
        {"threads", 0, CLI_COUNT, &s->threads, 0, NULL, NULL, "a positive integer"},
        {"chunk", 0, CLI_COUNT, &s->io.chunk, 0, NULL, NULL, "a positive integer"},
        {"window", 0, CLI_COUNT, &s->io.window, 0, NULL, NULL, "a positive integer"},
        {"kill-after", 0, CLI_NUMBER, &s->kill_after, 0, is_kill_after, NULL, "a positive whole number"},
        {"accept-self-intersections", 0, CLI_FLAG, &s->accept_self_intersections, 0, NULL, NULL, NULL},
    };
    static const char* const operand_names[] = {"MESH_I", "MESH_J", "POSES.csv"};
    const char* operands[3] = {NULL, NULL, NULL};
    const cli_syntax syntax = {"sweep", print_help, options, CLI_LENGTH(options), operand_names, operands, 3};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    s->path[0] = operands[0];
    s->path[1] = operands[1];
    s->io.input_path = operands[2];
    s->io.kill_after = (int64_t)s->kill_after;
    if (s->io.output_path == NULL)
    {
        return cli_usage_error("sweep", "-o OUT.csv is required");
    }
    if (s->io.chunk > 1000000)
    {
        return cli_usage_error("sweep", "--chunk needs a positive integer up to 1000000, got %d", s->io.chunk);
    }
    return check_model(s);
}

static bool read_header(void* ctx, char* header, char* err, size_t err_cap)
{
    pose_sweep* s = ctx;
    char* fields[VELOCITY_COLUMNS + 1];
    int n = sweep_csv_split(header, fields, VELOCITY_COLUMNS);
    bool ok = n == POSE_COLUMNS || n == VELOCITY_COLUMNS;
    for (int k = 0; ok && k < n; ++k)
    {
        if (strcmp(fields[k], s_input_header[k]) != 0)
        {
            snprintf(err, err_cap, "header column %d is '%s', expected '%s' (see 'meshcontact sweep poses --help')",
                     k + 1, fields[k], s_input_header[k]);
            return false;
        }
    }
    if (!ok)
    {
        snprintf(err, err_cap,
                 "the header has %d columns; expected 15 (time, pose of I, pose of J) or 27 (with velocities), "
                 "starting time,x_i,y_i,z_i,qw_i (see 'meshcontact sweep poses --help')",
                 n < 0 ? 0 : n);
        return false;
    }
    s->input_columns = n;
    return true;
}

/// The key column of a row: its time as the output prints it (empty when it is not a number).
static void row_key(void* ctx, const sweep_row* row, char* key, size_t key_cap)
{
    (void)ctx;
    const char* p = row->text;
    while (*p == ' ' || *p == '\t' || *p == '"')
    {
        ++p;
    }
    size_t n = strcspn(p, ",\"");
    char field[128];
    double t;
    key[0] = '\0';
    if (n < sizeof field)
    {
        memcpy(field, p, n);
        field[n] = '\0';
        while (n > 0 && (field[n - 1] == ' ' || field[n - 1] == '\t'))
        {
            field[--n] = '\0';
        }
        if (cli_parse_double(field, &t))
        {
            sweep_format_double(key, key_cap, t);
        }
    }
}

/// One parsed input row.
typedef struct pose_row
{
    double time;
    mc_pose pose[2];
    double vel[2][6];
} pose_row;

/// Parse a row's fields; on failure write the reason into err.
static bool parse_row(const pose_sweep* s, char** f, int n, pose_row* r, char* err, size_t err_cap)
{
    if (n != s->input_columns)
    {
        snprintf(err, err_cap, "%d fields where the header has %d", n > s->input_columns ? n : n, s->input_columns);
        return false;
    }
    memset(r, 0, sizeof *r);
    for (int k = 0; k < n; ++k)
    {
        double v;
        if (!cli_parse_double(f[k], &v))
        {
            snprintf(err, err_cap, "%s is '%s', not a finite number", s_input_header[k], f[k]);
            return false;
        }
        if (k == 0)
        {
            r->time = v;
        }
        else if (k >= POSE_COLUMNS)
        {
            r->vel[(k - POSE_COLUMNS) / 6][(k - POSE_COLUMNS) % 6] = v;
        }
    }
    for (int b = 0; b < 2; ++b)
    {
        // The pose exactly as 'meshcontact contact --pose-i' reads it.
        char text[7 * 130];
        snprintf(text, sizeof text, "%s,%s,%s,%s,%s,%s,%s", f[1 + 7 * b], f[2 + 7 * b], f[3 + 7 * b], f[4 + 7 * b],
                 f[5 + 7 * b], f[6 + 7 * b], f[7 + 7 * b]);
        if (!cli_parse_pose(text, &r->pose[b]))
        {
            snprintf(err, err_cap, "the quaternion of %s is zero", b == 0 ? "I" : "J");
            return false;
        }
        if (!mc_pose_is_valid(&r->pose[b]))
        {
            snprintf(err, err_cap, "the position of %s is outside the coordinate range (|x| <= %g)", b == 0 ? "I" : "J",
                     MC_COORDINATE_MAX);
            return false;
        }
    }
    return true;
}

/// What a row gives, before printing.
typedef struct pose_result
{
    uint64_t triangle_pairs;
    uint32_t regions;
    double volume, area, depth;
    mc_vec3 normal, centroid;
    double fn;
    uint32_t rejected;
    mc_wrench wrench_j;
    bool separated;  // no contact: `distance` holds the minimum distance
    double distance; // minimum distance of the separated solids
} pose_result;

/// The minimum distance of a row without regions (mc_query_distance); a pair that crosses or nests is left in contact.
static mc_status distance_row(pose_sweep* s, const pose_row* r, pose_result* out)
{
    if (out->regions > 0 || out->triangle_pairs > 0)
    {
        return MC_OK;
    }
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = s->threads;
    mc_distance_result d;
    mc_status st = mc_query_distance(s->mesh[0], &r->pose[0], s->mesh[1], &r->pose[1], INFINITY, &opt, s->ws, &d);
    if (st == MC_OK && d.kind == MC_DISTANCE_SEPARATED)
    {
        out->separated = true;
        out->distance = d.distance;
    }
    return st;
}

static void sum_regions(const mc_region* g, uint32_t n, pose_result* out)
{
    out->regions = n;
    for (uint32_t k = 0; k < n; ++k)
    {
        out->volume += g[k].volume;
        out->area += g[k].area;
        out->depth = k == 0 || g[k].depth > out->depth ? g[k].depth : out->depth;
    }
    if (n > 0)
    {
        out->normal = g[0].normal;
        out->centroid = g[0].centroid;
    }
}

/// The regions of a row (no force model), as 'meshcontact contact' computes them.
static mc_status query_row(pose_sweep* s, const pose_row* r, pose_result* out)
{
    mc_query_options opt = mc_default_query_options();
    opt.worker_count = s->threads;
    mc_query_stats stats;
    uint32_t n = 0;
    mc_status st = mc_query_regions(s->mesh[0], &r->pose[0], s->mesh[1], &r->pose[1], &opt, s->ws, s->regions,
                                    s->region_capacity, &n, &stats);
    if (st == MC_ERR_CAPACITY)
    {
        mc_region* grown = realloc(s->regions, (size_t)n * sizeof *grown);
        if (grown == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        s->regions = grown;
        s->region_capacity = n;
        st = mc_query_regions(s->mesh[0], &r->pose[0], s->mesh[1], &r->pose[1], &opt, s->ws, s->regions,
                              s->region_capacity, &n, &stats);
    }
    if (st == MC_OK)
    {
        out->triangle_pairs = stats.triangle_pairs;
        sum_regions(s->regions, n, out);
    }
    return st;
}

/// The regions and forces of a row, as 'meshcontact force' computes them.
static mc_status force_row(pose_sweep* s, const pose_row* r, pose_result* out, char* err, size_t err_cap)
{
    mc_twist v[2];
    for (int b = 0; b < 2; ++b)
    {
        v[b].v = mc_v3(r->vel[b][0], r->vel[b][1], r->vel[b][2]);
        v[b].w = mc_v3(r->vel[b][3], r->vel[b][4], r->vel[b][5]);
    }
    mc_status st = mc_world_set_poses(s->world, s->body, r->pose, 2);
    st = st == MC_OK ? mc_world_set_velocities(s->world, s->body, v, 2) : st;
    st = st == MC_OK ? mc_world_evaluate(s->world) : st;
    mc_step_info info = mc_world_get_step_info(s->world);
    if (st == MC_OK && (info.flags & (MC_STEP_UNBOUNDED_PAIR | MC_STEP_PAIR_FAILED)))
    {
        snprintf(err, err_cap, "%s",
                 (info.flags & MC_STEP_UNBOUNDED_PAIR) ? "both meshes are flipped" : "the contact query failed");
        return MC_ERR_INVALID_ARGUMENT;
    }
    uint32_t n = st == MC_OK ? mc_world_get_regions(s->world, NULL, 0) : 0;
    if (n > s->record_capacity)
    {
        mc_contact_region* grown = realloc(s->records, (size_t)n * sizeof *grown);
        if (grown == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        s->records = grown;
        s->record_capacity = n;
    }
    if (st != MC_OK)
    {
        return st;
    }
    mc_world_get_regions(s->world, s->records, n);
    if (n > s->region_capacity)
    {
        mc_region* grown = realloc(s->regions, (size_t)n * sizeof *grown);
        if (grown == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        s->regions = grown;
        s->region_capacity = n;
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        s->regions[k] = s->records[k].region;
        out->fn += s->records[k].normal_force;
        out->rejected += s->records[k].rejected ? 1u : 0u;
    }
    sum_regions(s->regions, n, out);
    out->triangle_pairs = info.triangle_pairs;
    out->wrench_j = mc_body_get_wrench(s->world, s->body[1]);
    return MC_OK;
}

static bool print_vec(sweep_text* t, mc_vec3 v)
{
    return sweep_text_append(t, ",", 1) && sweep_text_double(t, v.x) && sweep_text_append(t, ",", 1) &&
           sweep_text_double(t, v.y) && sweep_text_append(t, ",", 1) && sweep_text_double(t, v.z);
}

static bool print_result(const pose_sweep* s, const pose_result* r, sweep_text* t)
{
    bool ok = sweep_text_printf(t, "ok,%llu,%u,", (unsigned long long)r->triangle_pairs, r->regions) &&
              sweep_text_double(t, r->volume) && sweep_text_append(t, ",", 1) && sweep_text_double(t, r->area) &&
              sweep_text_append(t, ",", 1) && sweep_text_double(t, r->depth) && print_vec(t, r->normal) &&
              print_vec(t, r->centroid);
    if (ok && s->forces)
    {
        ok = sweep_text_append(t, ",", 1) && sweep_text_double(t, r->fn) && sweep_text_printf(t, ",%u", r->rejected) &&
             print_vec(t, r->wrench_j.force) && print_vec(t, r->wrench_j.torque);
    }
    ok = ok && sweep_text_append(t, ",", 1) && (!r->separated || sweep_text_double(t, r->distance));
    return ok && sweep_text_append(t, ",\n", 2);
}

/// A failed row: row, time (when it is a number), status, empty numbers, the message.
static bool print_failure(const pose_sweep* s, const sweep_row* row, const char* key, const char* why, sweep_text* t)
{
    char msg[400];
    snprintf(msg, sizeof msg, "line %lld: %s", (long long)row->line, why);
    bool ok = sweep_text_printf(t, "%lld,%s,error", (long long)row->index, key);
    int empty = s->forces ? 20 : 12;
    for (int k = 0; ok && k < empty; ++k)
    {
        ok = sweep_text_append(t, ",", 1);
    }
    return ok && sweep_text_append(t, ",", 1) && sweep_text_csv_string(t, msg) && sweep_text_append(t, "\n", 1);
}

static int evaluate(void* ctx, sweep_row* row, sweep_text* out)
{
    pose_sweep* s = ctx;
    size_t start = out->length;
    char key[64];
    row_key(ctx, row, key, sizeof key);
    char* fields[VELOCITY_COLUMNS + 1];
    int n = sweep_csv_split(row->text, fields, VELOCITY_COLUMNS);
    pose_row r;
    char err[300] = "";
    pose_result res;
    memset(&res, 0, sizeof res);
    bool parsed = n >= 0 ? parse_row(s, fields, n, &r, err, sizeof err)
                         : (snprintf(err, sizeof err, "a quoted field is not closed"), false);
    mc_status st = MC_OK;
    if (parsed)
    {
        st = s->forces ? force_row(s, &r, &res, err, sizeof err) : query_row(s, &r, &res);
        st = st == MC_OK ? distance_row(s, &r, &res) : st;
        if (st == MC_ERR_OUT_OF_MEMORY)
        {
            return -1;
        }
        if (st != MC_OK && err[0] == '\0')
        {
            snprintf(err, sizeof err, "%s%s%s", mc_status_string(st), cli_last_log()[0] != '\0' ? ": " : "",
                     cli_last_log());
        }
    }
    bool ok = parsed && st == MC_OK
                  ? sweep_text_printf(out, "%lld,%s,", (long long)row->index, key) && print_result(s, &res, out)
                  : print_failure(s, row, key, err, out);
    if (!ok)
    {
        out->length = start;
        return -1;
    }
    return parsed && st == MC_OK ? 1 : 0;
}

/// The world of the force model: two bodies and one contact (as 'meshcontact force' builds it).
static int make_world(pose_sweep* s)
{
    mc_world_def wd = mc_default_world_def();
    wd.worker_count = s->threads;
    if (mc_world_create(&wd, &s->world) != MC_OK)
    {
        return cli_fail(NULL, "sweep: cannot create the world (out of memory)");
    }
    for (int k = 0; k < 2; ++k)
    {
        mc_body_def bd = mc_default_body_def();
        bd.mesh = s->mesh[k];
        s->body[k] = mc_world_create_body(s->world, &bd);
        if (!mc_body_is_valid(s->world, s->body[k]))
        {
            return cli_fail(s->path[k], "cannot create the body");
        }
    }
    mc_contact_def cd = mc_default_contact_def();
    cd.i_bodies = &s->body[0];
    cd.i_count = 1;
    cd.j_bodies = &s->body[1];
    cd.j_count = 1;
    cd.model = s->model;
    mc_contact_id cid;
    mc_error err;
    memset(&err, 0, sizeof err);
    if (mc_world_create_contact(s->world, &cd, &cid, &err) != MC_OK)
    {
        return cli_fail(NULL, "sweep: %s", err.message);
    }
    return 0;
}

/// Load the meshes and make the workspace or the world. Returns 0 or 1 (printed).
static int prepare(pose_sweep* s)
{
    for (int k = 0; k < 2; ++k)
    {
        if (cli_load_mesh(s->path[k], s->scale, s->max_triangles, s->accept_self_intersections, &s->mesh[k]) != 0)
        {
            return 1;
        }
    }
    if (mc_workspace_create(&s->ws) != MC_OK)
    {
        return cli_fail(NULL, "sweep: out of memory");
    }
    if (s->forces)
    {
        return make_world(s);
    }
    s->region_capacity = 16;
    s->regions = malloc(s->region_capacity * sizeof *s->regions);
    return s->regions == NULL ? cli_fail(NULL, "sweep: out of memory") : 0;
}

/// What the output records of this sweep's inputs (cli_sweep_guard.c): the meshes' contents (an analytic shape: its
/// text) and every option that changes a result.
static void fingerprint(pose_sweep* s)
{
    uint64_t h = sweep_hash_start();
    for (int k = 0; k < 2; ++k)
    {
        uint64_t f = sweep_hash_start();
        if (s->mesh[k] == NULL || !sweep_hash_file(&f, s->path[k]))
        {
            f = sweep_hash_bytes(sweep_hash_start(), s->path[k], strlen(s->path[k]));
        }
        h = sweep_hash_bytes(h, &f, sizeof f);
    }
    s->io.fingerprint.part[0] = h;
    const mc_force_model* m = &s->model;
    const double v[] = {s->forces ? 1.0 : 0.0,
                        (double)m->normal_law,
                        (double)m->friction,
                        m->stiffness,
                        m->exponent,
                        m->damping,
                        m->dmax,
                        m->penalty,
                        m->restitution,
                        m->normal_transition_velocity,
                        m->mu_static,
                        m->mu_dynamic,
                        m->stiction_velocity,
                        m->friction_velocity,
                        s->scale,
                        s->max_triangles,
                        s->accept_self_intersections ? 1.0 : 0.0};
    h = sweep_hash_start();
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
    {
        h = sweep_hash_double(h, v[k]);
    }
    s->io.fingerprint.part[1] = h;
}

int cli_sweep_poses(int argc, char** argv, sweep_ranks ranks)
{
    pose_sweep s;
    memset(&s, 0, sizeof s);
    s.scale = 1.0;
    s.model = mc_default_force_model();
    s.model.damping = 0.0;
    int rc = parse_args(argc, argv, &s);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    sweep_restore_stderr();
    mc_error err;
    memset(&err, 0, sizeof err);
    if (s.forces && mc_force_model_check(&s.model, &err) != MC_OK)
    {
        rc = cli_fail(NULL, "sweep: %s", err.message);
    }
    else
    {
        rc = prepare(&s);
    }
    if (rc == 0 && ranks.rank == 0)
    {
        fingerprint(&s);
    }
    if (sweep_parallel_all(rc == 0))
    {
        sweep_job job = {"poses",
                         s.forces ? OUT_BASE OUT_FORCES ",distance,message" : OUT_BASE ",distance,message",
                         s.forces ? 24 : 16,
                         2,
                         read_header,
                         evaluate,
                         row_key,
                         &s};
        rc = sweep_run(&job, &s.io, ranks);
    }
    else
    {
        rc = 1;
    }
    mc_world_destroy(s.world);
    mc_workspace_destroy(s.ws);
    free(s.regions);
    free(s.records);
    mc_mesh_destroy(s.mesh[0]);
    mc_mesh_destroy(s.mesh[1]);
    return rc;
}
