// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact sweep scenario`: a scenario file and a table (or grid) of Adams parameter values in, one simulation per
// row and one summary row out (incidents and peak forces and depth per contact, final state per part).
#include "src/app/app_io.h"
#include "src/app/cli_sweep.h"
#include "src/app/simulate.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_PARAMS 32      // columns of a parameter table
#define PART_COLUMNS 13    // final state per moving part
#define CONTACT_COLUMNS 4  // incidents, peak normal force, peak friction force, peak depth per contact
#define MAX_GRID_RUNS 1e8  // runs a grid may expand to
#define MAX_GRID_VALUES 64 // values per grid line

static void print_help(FILE* f)
{
    fprintf(f,
            "usage: meshcontact sweep scenario SCENARIO.scn PARAMS -o OUT.csv [--resume] [--threads N] [--chunk N]\n"
            "                                  [--window N] [--runs-dir DIR]\n\n"
            "Simulate a scenario (see 'meshcontact simulate --help') once per row of a table of parameter values\n"
            "and write one summary row per run, in input order. Under mpirun the runs are spread over the ranks;\n"
            "the output is the same bytes for any number of ranks and threads.\n\n"
            "PARAMS is a table or a grid (lines starting with '#' and blank lines are skipped):\n"
            "  table: a CSV header of parameter names, then one row of values per run, e.g.\n"
            "           STIFFNESS,MU_STATIC/1,VZ/2\n"
            "           1e7,0.3,-1\n"
            "  grid:  one line per parameter, NAME = v1, v2, ...; the runs are every combination, the last line\n"
            "         varying fastest, e.g.  STIFFNESS = 1e6, 1e7, 1e8   and   VZ/2 = -0.5, -1\n"
            "A parameter is NAME (every statement it belongs to) or NAME/id (that CONTACT or PART), names as in\n"
            "the scenario file (case-insensitive):\n"
            "  CONTACT  STIFFNESS EXPONENT DAMPING DMAX (IMPACT), PENALTY RESTITUTION_COEFFICIENT\n"
            "           NORMAL_TRANSITION_VELOCITY (POISSON), MU_STATIC MU_DYNAMIC STICTION_TRANSITION_VELOCITY\n"
            "           FRICTION_TRANSITION_VELOCITY (COULOMB_FRICTION on)\n"
            "  PART     MASS (a part given MASS), DENSITY (a part given DENSITY), VX VY VZ WX WY WZ (initial\n"
            "           velocity, as on the PART statement; not a GROUND part)\n"
            "  global   IGRAV JGRAV KGRAV (ACCGRAV), END (SIMULATE; the number of output steps is kept), HMAX\n"
            "           (INTEGRATOR)\n"
            "A parameter that cannot apply (MU_STATIC on a contact without friction, PENALTY on an IMPACT contact,\n"
            "VZ on a GROUND part) is an error, as is an unknown name or id.\n\n"
            "OUT.csv: the header row, the parameter columns as given, status, evaluations, then per CONTACT\n"
            "contact<id>_incidents (the simulator's Adams-style incidents, as in <name>_incidents.csv of\n"
            "'meshcontact simulate'), contact<id>_peak_fn, _peak_ft, _peak_depth (largest summed normal force,\n"
            "friction force and depth over every integration step), then per moving PART its state at END, as in\n"
            "the CSV of 'meshcontact simulate': part<id>_x,_y,_z (centre of mass), _qw,_qx,_qy,_qz, _vx,_vy,_vz,\n"
            "_wx,_wy,_wz; and message. A run that fails (a parameter out of range, a state that becomes\n"
            "non-finite) has status 'error', empty results and the reason; the sweep goes on. Numbers are printed\n"
            "with the fewest of 15 to 17 significant digits that read back as the same double.\n\n"
            "options:\n"
            "  -o OUT.csv      the output table (required); rewritten unless --resume\n"
            "  --resume        keep the complete rows of an existing OUT.csv and run the rest\n"
            "  --threads N     OpenMP threads per process (results do not depend on it)\n"
            "  --chunk N       runs per MPI message (default 8)\n"
            "  --window N      MPI: chunks handed out at most past the oldest one not yet written (default\n"
            "                  max(64, 8 x ranks)): bounds the rows rank 0 holds back to write them in order\n"
            "  --runs-dir DIR  also write each run's full output, DIR/run<row>.csv (the CSV of 'meshcontact\n"
            "                  simulate'; the run is simulated a second time for it); DIR must exist (on every node\n"
            "                  under MPI: each rank writes the runs it does)\n"
            "  --kill-after N  testing: after N rows are written, leave a torn line and SIGKILL the process\n"
            "  --help          this text\n\n"
            "exit status: 0 when every run succeeded, 1 when a run failed (OUT.csv is complete anyway) or a file\n"
            "cannot be read or written, 2 on a usage error.\n");
}

/// What a parameter applies to.
typedef enum target_kind
{
    TARGET_CONTACT,
    TARGET_PART,
    TARGET_GLOBAL,
} target_kind;

/// When a statement accepts a parameter.
typedef enum target_need
{
    NEED_ANY,
    NEED_IMPACT,   // an IMPACT contact
    NEED_POISSON,  // a POISSON contact
    NEED_FRICTION, // a contact with friction on
    NEED_MASS,     // a moving part given MASS
    NEED_DENSITY,  // a moving part given DENSITY
    NEED_MOVING,   // a moving part
    NEED_POSITIVE, // a global value > 0
} target_need;

/// A parameter name and the double it sets.
typedef struct param_def
{
    const char* name;
    target_kind kind;
    size_t offset; // in app_scenario_contact, app_scenario_part or app_scenario
    target_need need;
} param_def;

static const param_def s_params[] = {
    {"STIFFNESS", TARGET_CONTACT, offsetof(app_scenario_contact, stiffness), NEED_IMPACT},
    {"EXPONENT", TARGET_CONTACT, offsetof(app_scenario_contact, exponent), NEED_IMPACT},
    {"DAMPING", TARGET_CONTACT, offsetof(app_scenario_contact, damping), NEED_IMPACT},
    {"DMAX", TARGET_CONTACT, offsetof(app_scenario_contact, dmax), NEED_IMPACT},
    {"PENALTY", TARGET_CONTACT, offsetof(app_scenario_contact, penalty), NEED_POISSON},
    {"RESTITUTION_COEFFICIENT", TARGET_CONTACT, offsetof(app_scenario_contact, restitution), NEED_POISSON},
    {"NORMAL_TRANSITION_VELOCITY", TARGET_CONTACT, offsetof(app_scenario_contact, normal_transition_velocity),
     NEED_POISSON},
    {"MU_STATIC", TARGET_CONTACT, offsetof(app_scenario_contact, mu_static), NEED_FRICTION},
    {"MU_DYNAMIC", TARGET_CONTACT, offsetof(app_scenario_contact, mu_dynamic), NEED_FRICTION},
    {"STICTION_TRANSITION_VELOCITY", TARGET_CONTACT, offsetof(app_scenario_contact, stiction_velocity), NEED_FRICTION},
    {"FRICTION_TRANSITION_VELOCITY", TARGET_CONTACT, offsetof(app_scenario_contact, friction_velocity), NEED_FRICTION},
    {"MASS", TARGET_PART, offsetof(app_scenario_part, mass), NEED_MASS},
    {"DENSITY", TARGET_PART, offsetof(app_scenario_part, density), NEED_DENSITY},
    {"VX", TARGET_PART, offsetof(app_scenario_part, v.x), NEED_MOVING},
    {"VY", TARGET_PART, offsetof(app_scenario_part, v.y), NEED_MOVING},
    {"VZ", TARGET_PART, offsetof(app_scenario_part, v.z), NEED_MOVING},
    {"WX", TARGET_PART, offsetof(app_scenario_part, w_body.x), NEED_MOVING},
    {"WY", TARGET_PART, offsetof(app_scenario_part, w_body.y), NEED_MOVING},
    {"WZ", TARGET_PART, offsetof(app_scenario_part, w_body.z), NEED_MOVING},
    {"IGRAV", TARGET_GLOBAL, offsetof(app_scenario, gravity.x), NEED_ANY},
    {"JGRAV", TARGET_GLOBAL, offsetof(app_scenario, gravity.y), NEED_ANY},
    {"KGRAV", TARGET_GLOBAL, offsetof(app_scenario, gravity.z), NEED_ANY},
    {"END", TARGET_GLOBAL, offsetof(app_scenario, end_time), NEED_POSITIVE},
    {"HMAX", TARGET_GLOBAL, offsetof(app_scenario, hmax), NEED_POSITIVE},
};

/// A column of the parameter table: a parameter and its statement (index into the scenario's array; -1: all).
typedef struct param_column
{
    const param_def* def;
    int index;
    char name[64]; // as given
} param_column;

/// The scenario sweep's state.
typedef struct scenario_sweep
{
    const char* scenario_path;
    const char* params_path;
    int threads;
    double kill_after;
    sweep_io io;
    app_scenario* scn;        // as parsed
    app_scenario_part* parts; // per run: a copy of scn->parts with the run's values
    app_scenario_contact* contacts;
    param_column columns[MAX_PARAMS];
    int column_count;
    char* out_header;
    int moving_parts;
    char* grid_text;      // rank 0, a grid: the table it expands to
    const char* runs_dir; // --runs-dir: each run's full output goes there, or NULL
    sweep_job* job;       // the job, whose output header read_header sets
} scenario_sweep;

static bool is_kill_after(double v)
{
    return v >= 1.0 && v <= 9e15 && v == floor(v);
}

static int parse_args(int argc, char** argv, scenario_sweep* s)
{
    const cli_option options[] = {
        {"output", 'o', CLI_TEXT, &s->io.output_path, 0, NULL, NULL, NULL},
        {"resume", 0, CLI_FLAG, &s->io.resume, 0, NULL, NULL, NULL},
        {"threads", 0, CLI_COUNT, &s->threads, 0, NULL, NULL, "a positive integer"},
        {"chunk", 0, CLI_COUNT, &s->io.chunk, 0, NULL, NULL, "a positive integer"},
        {"window", 0, CLI_COUNT, &s->io.window, 0, NULL, NULL, "a positive integer"},
        {"kill-after", 0, CLI_NUMBER, &s->kill_after, 0, is_kill_after, NULL, "a positive whole number"},
        {"runs-dir", 0, CLI_TEXT, &s->runs_dir, 0, NULL, NULL, NULL},
    };
    static const char* const operand_names[] = {"SCENARIO.scn", "PARAMS"};
    const char* operands[2] = {NULL, NULL};
    const cli_syntax syntax = {"sweep", print_help, options, CLI_LENGTH(options), operand_names, operands, 2};
    int rc = cli_parse_args(&syntax, argc, argv);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    s->scenario_path = operands[0];
    s->params_path = operands[1];
    s->io.input_path = operands[1];
    s->io.kill_after = (int64_t)s->kill_after;
    if (s->io.output_path == NULL)
    {
        return cli_usage_error("sweep", "-o OUT.csv is required");
    }
    if (s->io.chunk > 1000000)
    {
        return cli_usage_error("sweep", "--chunk needs a positive integer up to 1000000, got %d", s->io.chunk);
    }
    return CLI_CONTINUE;
}

// ---------------------------------------------------------------------------------------------------------------
// Parameter names
// ---------------------------------------------------------------------------------------------------------------

/// Does statement `k` (a contact or a part) accept the parameter? On refusal writes why.
static bool accepts(const scenario_sweep* s, const param_def* d, int k, char* why, size_t cap)
{
    if (d->kind == TARGET_CONTACT)
    {
        const app_scenario_contact* c = &s->scn->contacts[k];
        bool ok = d->need == NEED_ANY || (d->need == NEED_IMPACT && c->model == APP_SCENARIO_IMPACT) ||
                  (d->need == NEED_POISSON && c->model == APP_SCENARIO_POISSON) ||
                  (d->need == NEED_FRICTION && c->friction != APP_SCENARIO_FRICTION_OFF);
        if (!ok)
        {
            snprintf(why, cap, "CONTACT/%d %s: %s would change nothing", c->id,
                     d->need == NEED_FRICTION ? "has COULOMB_FRICTION=OFF"
                     : d->need == NEED_IMPACT ? "is POISSON, not IMPACT"
                                              : "is IMPACT, not POISSON",
                     d->name);
        }
        return ok;
    }
    const app_scenario_part* p = &s->scn->parts[k];
    bool ok =
        !p->ground && (d->need != NEED_MASS || p->density <= 0.0) && (d->need != NEED_DENSITY || p->density > 0.0);
    if (!ok)
    {
        snprintf(why, cap, "PART/%d %s: %s does not apply", p->id,
                 p->ground              ? "is GROUND"
                 : d->need == NEED_MASS ? "is given DENSITY, not MASS"
                                        : "is given MASS, not DENSITY",
                 d->name);
    }
    return ok;
}

/// Read one column name (NAME or NAME/id) into `col`. On failure writes the message.
static bool read_column(const scenario_sweep* s, const char* text, param_column* col, char* err, size_t cap)
{
    char name[64];
    const char* slash = strchr(text, '/');
    size_t n = slash != NULL ? (size_t)(slash - text) : strlen(text);
    if (n == 0 || n >= sizeof name || strlen(text) >= sizeof col->name)
    {
        snprintf(err, cap, "'%s' is not a parameter name", text);
        return false;
    }
    memcpy(name, text, n);
    name[n] = '\0';
    snprintf(col->name, sizeof col->name, "%s", text);
    col->def = NULL;
    for (int k = 0; k < CLI_LENGTH(s_params); ++k)
    {
        col->def = strcasecmp(name, s_params[k].name) == 0 ? &s_params[k] : col->def;
    }
    if (col->def == NULL)
    {
        snprintf(err, cap,
                 "unknown parameter '%s' (known: STIFFNESS EXPONENT DAMPING DMAX PENALTY RESTITUTION_COEFFICIENT "
                 "NORMAL_TRANSITION_VELOCITY MU_STATIC MU_DYNAMIC STICTION_TRANSITION_VELOCITY "
                 "FRICTION_TRANSITION_VELOCITY MASS DENSITY VX VY VZ WX WY WZ IGRAV JGRAV KGRAV END HMAX)",
                 name);
        return false;
    }
    col->index = -1;
    int count = col->def->kind == TARGET_CONTACT ? s->scn->contact_count
                : col->def->kind == TARGET_PART  ? s->scn->part_count
                                                 : 0;
    if (slash != NULL)
    {
        char* end = NULL;
        long id = strtol(slash + 1, &end, 10);
        for (int k = 0; k < count && *end == '\0' && end != slash + 1; ++k)
        {
            int kid = col->def->kind == TARGET_CONTACT ? s->scn->contacts[k].id : s->scn->parts[k].id;
            col->index = kid == id ? k : col->index;
        }
        if (col->index < 0)
        {
            snprintf(err, cap, "'%s': no %s/%s in %s", text,
                     col->def->kind == TARGET_CONTACT ? "CONTACT"
                     : col->def->kind == TARGET_PART  ? "PART"
                                                      : "statement id for",
                     slash + 1, s->scenario_path);
            return false;
        }
    }
    bool any = col->def->kind == TARGET_GLOBAL;
    for (int k = 0; k < count; ++k)
    {
        if (col->index >= 0 && k != col->index)
        {
            continue;
        }
        char why[256];
        bool ok = accepts(s, col->def, k, why, sizeof why);
        if (!ok && (col->index >= 0 || col->def->kind == TARGET_CONTACT))
        {
            snprintf(err, cap, "'%s': %s", text, why);
            return false;
        }
        any = any || ok;
    }
    if (!any)
    {
        snprintf(err, cap, "'%s': no %s of %s accepts it", text, col->def->kind == TARGET_PART ? "PART" : "CONTACT",
                 s->scenario_path);
    }
    return any;
}

/// The output header: row, the parameter columns, status, evaluations, per contact and per moving part its columns,
/// message.
static bool make_out_header(scenario_sweep* s)
{
    sweep_text t = {0};
    bool ok = sweep_text_append(&t, "row", 3);
    for (int k = 0; ok && k < s->column_count; ++k)
    {
        ok = sweep_text_printf(&t, ",%s", s->columns[k].name);
    }
    ok = ok && sweep_text_printf(&t, ",status,evaluations");
    for (int c = 0; ok && c < s->scn->contact_count; ++c)
    {
        int id = s->scn->contacts[c].id;
        ok = sweep_text_printf(&t, ",contact%d_incidents,contact%d_peak_fn,contact%d_peak_ft,contact%d_peak_depth", id,
                               id, id, id);
    }
    static const char* const cols[PART_COLUMNS] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                                   "vx", "vy", "vz", "wx", "wy", "wz"};
    for (int p = 0; ok && p < s->scn->part_count; ++p)
    {
        for (int k = 0; ok && !s->scn->parts[p].ground && k < PART_COLUMNS; ++k)
        {
            ok = sweep_text_printf(&t, ",part%d_%s", s->scn->parts[p].id, cols[k]);
        }
    }
    ok = ok && sweep_text_printf(&t, ",message");
    if (!ok)
    {
        sweep_text_free(&t);
        return false;
    }
    free(s->out_header);
    s->out_header = t.data;
    return true;
}

static bool read_header(void* ctx, char* header, char* err, size_t err_cap)
{
    scenario_sweep* s = ctx;
    char* fields[MAX_PARAMS + 1];
    int n = sweep_csv_split(header, fields, MAX_PARAMS);
    if (n < 1 || n > MAX_PARAMS)
    {
        snprintf(err, err_cap, "the header needs 1 to %d parameter names", MAX_PARAMS);
        return false;
    }
    for (int k = 0; k < n; ++k)
    {
        if (!read_column(s, fields[k], &s->columns[k], err, err_cap))
        {
            return false;
        }
        for (int j = 0; j < k; ++j)
        {
            if (strcasecmp(s->columns[j].name, s->columns[k].name) == 0)
            {
                snprintf(err, err_cap, "parameter '%s' is given twice", fields[k]);
                return false;
            }
        }
    }
    s->column_count = n;
    if (!make_out_header(s))
    {
        snprintf(err, err_cap, "out of memory");
        return false;
    }
    s->job->out_header = s->out_header;
    s->job->out_columns = 1 + n + 2 + CONTACT_COLUMNS * s->scn->contact_count + PART_COLUMNS * s->moving_parts + 1;
    s->job->status_column = 1 + n;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------------------

/// Parse a row's values; on failure write why.
static bool parse_values(const scenario_sweep* s, char* text, double* v, char* err, size_t cap)
{
    char* fields[MAX_PARAMS + 1];
    int n = sweep_csv_split(text, fields, MAX_PARAMS);
    if (n != s->column_count)
    {
        snprintf(err, cap, n < 0 ? "a quoted field is not closed" : "%d values where the header has %d", n,
                 s->column_count);
        return false;
    }
    for (int k = 0; k < n; ++k)
    {
        if (!cli_parse_double(fields[k], &v[k]))
        {
            snprintf(err, cap, "%s is '%s', not a finite number", s->columns[k].name, fields[k]);
            return false;
        }
        if (s->columns[k].def->need == NEED_POSITIVE && !(v[k] > 0.0))
        {
            snprintf(err, cap, "%s is %s; it must be > 0", s->columns[k].name, fields[k]);
            return false;
        }
    }
    return true;
}

static void set_value(scenario_sweep* s, app_scenario* run, const param_column* col, double v)
{
    const param_def* d = col->def;
    if (d->kind == TARGET_GLOBAL)
    {
        *(double*)((char*)run + d->offset) = v;
        return;
    }
    int count = d->kind == TARGET_CONTACT ? run->contact_count : run->part_count;
    for (int k = 0; k < count; ++k)
    {
        char why[256]; // unused here, but room for the whole message (gcc checks the truncation)
        if ((col->index < 0 || k == col->index) && accepts(s, d, k, why, sizeof why))
        {
            char* base = d->kind == TARGET_CONTACT ? (char*)&s->contacts[k] : (char*)&s->parts[k];
            *(double*)(base + d->offset) = v;
        }
    }
}

/// Print a run's result columns (from status on) into out: evaluations, per contact its incidents and peaks (the
/// simulator's: every integration step since time 0), per moving part its final state.
static bool print_run(const app_sim* sim, const app_scenario* run, const app_sim_contact_peaks* peaks, sweep_text* out)
{
    int count = 0;
    const app_sim_incident* inc = app_sim_get_incidents(sim, &count);
    bool ok = sweep_text_printf(out, "ok,%llu", (unsigned long long)app_sim_get_evaluations(sim));
    for (int c = 0; ok && c < run->contact_count; ++c)
    {
        int n = 0;
        for (int k = 0; k < count; ++k)
        {
            n += inc[k].contact == c ? 1 : 0;
        }
        ok = sweep_text_printf(out, ",%d,", n) && sweep_text_double(out, peaks[c].fn_max) &&
             sweep_text_append(out, ",", 1) && sweep_text_double(out, peaks[c].ft_max) &&
             sweep_text_append(out, ",", 1) && sweep_text_double(out, peaks[c].depth_max);
    }
    for (int p = 0; ok && p < run->part_count; ++p)
    {
        if (run->parts[p].ground)
        {
            continue;
        }
        mc_pose pose;
        mc_twist tw;
        app_sim_get_part(sim, p, &pose, &tw, NULL);
        double v[PART_COLUMNS] = {pose.p.x, pose.p.y, pose.p.z, pose.q.w, pose.q.x, pose.q.y, pose.q.z,
                                  tw.v.x,   tw.v.y,   tw.v.z,   tw.w.x,   tw.w.y,   tw.w.z};
        for (int k = 0; ok && k < PART_COLUMNS; ++k)
        {
            ok = sweep_text_append(out, ",", 1) && sweep_text_double(out, v[k]);
        }
    }
    return ok;
}

/// Simulate one run as 'meshcontact simulate' does (the same steps from 0 to END), then print its result columns
/// (from status on) into out. Returns false with a message when the run fails.
static bool simulate_run(const scenario_sweep* s, const app_scenario* run, sweep_text* out, char* err, size_t cap)
{
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = s->threads;
    app_sim* sim = NULL;
    app_sim_contact_peaks* peaks = calloc((size_t)(run->contact_count > 0 ? run->contact_count : 1), sizeof *peaks);
    if (peaks == NULL)
    {
        snprintf(err, cap, "out of memory");
        return false;
    }
    bool ok = app_sim_create(run, &opt, &sim, err, cap);
    // The run loop of 'meshcontact simulate' itself, writing nothing (its steps depend on the integrator).
    const app_sim_outputs none = {NULL, NULL, NULL, NULL, NULL};
    ok = ok && app_sim_run_outputs(sim, &none, err, cap);
    if (ok)
    {
        app_sim_take_peaks(sim, peaks);
        ok = print_run(sim, run, peaks, out);
        if (!ok)
        {
            snprintf(err, cap, "out of memory");
        }
    }
    app_sim_destroy(sim);
    free(peaks);
    return ok;
}

/// --runs-dir: the run's full output, DIR/run<row>.csv, written by the simulator's own CSV writer (the CSV of
/// 'meshcontact simulate --csv'), which runs the simulation a second time. Returns false with a message.
static bool write_full_output(const scenario_sweep* s, const app_scenario* run, int64_t row, char* err, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run%lld.csv", s->runs_dir, (long long)row);
    app_output o; // all or nothing (app_io.h)
    if (!app_output_open(&o, path, false, err, cap))
    {
        return false;
    }
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = s->threads;
    app_sim* sim = NULL;
    bool ok = app_sim_create(run, &opt, &sim, err, cap) && app_sim_run(sim, o.f, NULL, err, cap);
    app_sim_destroy(sim);
    ok = ok && app_output_commit(&o, err, cap);
    app_output_discard(&o);
    return ok;
}

/// The key columns of a row: its values as printed (empty fields where a value is not a number).
static void row_key(void* ctx, const sweep_row* row, char* key, size_t key_cap)
{
    const scenario_sweep* s = ctx;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", row->text);
    char* fields[MAX_PARAMS + 1];
    int n = sweep_csv_split(copy, fields, MAX_PARAMS);
    size_t used = 0;
    key[0] = '\0';
    for (int k = 0; k < s->column_count && used + 34 < key_cap; ++k)
    {
        double v;
        if (k > 0)
        {
            key[used++] = ',';
        }
        key[used] = '\0';
        if (k < n && cli_parse_double(fields[k], &v))
        {
            sweep_format_double(key + used, key_cap - used, v);
            used += strlen(key + used);
        }
    }
}

static int evaluate(void* ctx, sweep_row* row, sweep_text* out)
{
    scenario_sweep* s = ctx;
    size_t start = out->length;
    char key[1024];
    row_key(ctx, row, key, sizeof key);
    double v[MAX_PARAMS];
    char err[700] = "";
    int nc = s->scn->contact_count;
    bool ok = sweep_text_printf(out, "%lld,%s,", (long long)row->index, key);
    bool parsed = ok && parse_values(s, row->text, v, err, sizeof err);
    bool ran = false;
    if (parsed)
    {
        app_scenario run = *s->scn;
        memcpy(s->parts, s->scn->parts, (size_t)run.part_count * sizeof *s->parts);
        memcpy(s->contacts, s->scn->contacts, (size_t)run.contact_count * sizeof *s->contacts);
        run.parts = s->parts;
        run.contacts = s->contacts;
        for (int k = 0; k < s->column_count; ++k)
        {
            set_value(s, &run, &s->columns[k], v[k]);
        }
        size_t mark = out->length;
        ran = simulate_run(s, &run, out, err, sizeof err) &&
              (s->runs_dir == NULL || write_full_output(s, &run, row->index, err, sizeof err));
        out->length = ran ? out->length : mark;
    }
    if (ok && !ran)
    {
        int empty = 1 + CONTACT_COLUMNS * nc + PART_COLUMNS * s->moving_parts;
        char msg[800];
        if (parsed)
        {
            snprintf(msg, sizeof msg, "run failed: %s", err);
        }
        else
        {
            snprintf(msg, sizeof msg, "line %lld: %s", (long long)row->line, err);
        }
        ok = sweep_text_append(out, "error", 5);
        for (int k = 0; ok && k < empty; ++k)
        {
            ok = sweep_text_append(out, ",", 1);
        }
        ok = ok && sweep_text_append(out, ",", 1) && sweep_text_csv_string(out, msg) && sweep_text_append(out, "\n", 1);
    }
    else if (ok)
    {
        ok = sweep_text_append(out, ",\n", 2);
    }
    if (!ok)
    {
        out->length = start;
        return -1;
    }
    return ran ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Grid
// ---------------------------------------------------------------------------------------------------------------

/// One grid line: a parameter name and its values (as written).
typedef struct grid_line
{
    char* name;
    char* values[MAX_GRID_VALUES];
    int count;
} grid_line;

/// Expand a grid file (NAME = v1, v2, ... per line) into the table it stands for: header, then every combination
/// (the last line fastest). Returns 0 with *text set, 1 after printing the error.
static int expand_grid(const char* path, char* content, char** text)
{
    grid_line lines[MAX_PARAMS];
    int n = 0;
    int line_no = 0;
    double runs = 1.0;
    for (char* line = strtok(content, "\n"); line != NULL; line = strtok(NULL, "\n"))
    {
        ++line_no;
        char* p = line + strspn(line, " \t\r");
        if (*p == '\0' || *p == '#')
        {
            continue;
        }
        line[strcspn(line, "\r")] = '\0';
        char* eq = strchr(p, '=');
        if (eq == NULL || n == MAX_PARAMS)
        {
            return cli_fail(path,
                            eq == NULL ? "line %d: a grid line is NAME = v1, v2, ..."
                                       : "line %d: more than 32 "
                                         "parameters",
                            line_no);
        }
        *eq = '\0';
        char* name_end = eq;
        while (name_end > p && (name_end[-1] == ' ' || name_end[-1] == '\t'))
        {
            *--name_end = '\0';
        }
        lines[n].name = p;
        int count = sweep_csv_split(eq + 1, lines[n].values, MAX_GRID_VALUES);
        if (count < 1 || count > MAX_GRID_VALUES || (count == 1 && lines[n].values[0][0] == '\0'))
        {
            return cli_fail(path, "line %d: %s needs 1 to %d comma-separated values", line_no, p, MAX_GRID_VALUES);
        }
        lines[n].count = count;
        runs *= count;
        ++n;
    }
    if (n == 0 || runs > MAX_GRID_RUNS)
    {
        return cli_fail(path, n == 0 ? "no grid lines" : "the grid has %.0f runs (at most 1e8)", runs);
    }
    sweep_text t = {0};
    bool ok = true;
    for (int k = 0; ok && k < n; ++k)
    {
        ok = sweep_text_printf(&t, "%s%s", k > 0 ? "," : "", lines[k].name);
    }
    int idx[MAX_PARAMS] = {0};
    for (int64_t r = 0; ok && r < (int64_t)runs; ++r)
    {
        ok = sweep_text_append(&t, "\n", 1);
        for (int k = 0; ok && k < n; ++k)
        {
            ok = sweep_text_printf(&t, "%s%s", k > 0 ? "," : "", lines[k].values[idx[k]]);
        }
        for (int k = n - 1; k >= 0 && ++idx[k] == lines[k].count; --k)
        {
            idx[k] = 0;
        }
    }
    ok = ok && sweep_text_append(&t, "\n", 1);
    if (!ok)
    {
        sweep_text_free(&t);
        return cli_fail(path, "out of memory");
    }
    *text = t.data;
    return 0;
}

/// Rank 0: when PARAMS is a grid (its first line that is not blank or a comment holds '='), read it whole and
/// expand it; a table is left to the driver, which streams it.
static int read_params(scenario_sweep* s)
{
    char why[600];
    FILE* f = app_open_input(s->params_path, why, sizeof why); // no device, FIFO or directory (app_io.h)
    if (f == NULL)
    {
        return cli_fail(NULL, "%s", why);
    }
    char* line = NULL;
    size_t cap = 0;
    bool grid = false;
    while (getline(&line, &cap, f) > 0)
    {
        const char* q = line + strspn(line, " \t\r\n");
        if (*q != '\0' && *q != '#')
        {
            grid = strchr(q, '=') != NULL;
            break;
        }
    }
    free(line);
    sweep_text t = {0};
    bool ok = true;
    if (grid)
    {
        rewind(f);
        char buf[4096];
        size_t n;
        while (ok && t.length <= APP_MAX_TEXT_BYTES && (n = fread(buf, 1, sizeof buf, f)) > 0)
        {
            ok = sweep_text_append(&t, buf, n);
        }
    }
    fclose(f);
    int rc = ok ? 0 : cli_fail(s->params_path, "out of memory: %s", strerror(ENOMEM));
    if (rc == 0 && t.length > APP_MAX_TEXT_BYTES)
    {
        rc = cli_fail(s->params_path, "a grid of more than %zu bytes (at most 256 MiB)", (size_t)APP_MAX_TEXT_BYTES);
    }
    long bad = rc == 0 && grid ? app_text_bad_byte(t.data, t.length) : -1;
    if (bad >= 0)
    {
        char what[40];
        app_describe_byte((unsigned char)t.data[bad], what, sizeof what);
        rc = cli_fail(s->params_path, "byte %ld: %s (a text file holds none)", bad + 1, what);
    }
    if (rc == 0 && grid)
    {
        rc = expand_grid(s->params_path, t.data, &s->grid_text);
    }
    sweep_text_free(&t);
    return rc;
}

/// Parse the scenario and make the per-run copies of its parts and contacts. Returns 0 or 1 (printed).
static int prepare(scenario_sweep* s, sweep_ranks ranks)
{
    struct stat st;
    if (s->runs_dir != NULL && (stat(s->runs_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
    {
        return cli_fail(s->runs_dir, "--runs-dir needs an existing directory");
    }
    app_scenario_error perr;
    memset(&perr, 0, sizeof perr);
    if (!app_scenario_parse_file(s->scenario_path, &s->scn, &perr))
    {
        return cli_fail(NULL, "%s", perr.message);
    }
    s->parts = calloc((size_t)(s->scn->part_count > 0 ? s->scn->part_count : 1), sizeof *s->parts);
    s->contacts = calloc((size_t)(s->scn->contact_count > 0 ? s->scn->contact_count : 1), sizeof *s->contacts);
    if (s->parts == NULL || s->contacts == NULL)
    {
        return cli_fail(NULL, "sweep: out of memory");
    }
    for (int p = 0; p < s->scn->part_count; ++p)
    {
        s->moving_parts += s->scn->parts[p].ground ? 0 : 1;
    }
    if (ranks.rank == 0)
    {
        // What the output records of this sweep's inputs (cli_sweep_guard.c): the mesh files' contents and the
        // scenario's bytes (its options are in the scenario; --threads and --runs-dir change no result).
        uint64_t h = sweep_hash_start();
        for (int g = 0; g < s->scn->graphics_count; ++g)
        {
            const char* path = s->scn->graphics[g].path;
            uint64_t f = sweep_hash_start();
            if (path != NULL && !sweep_hash_file(&f, path))
            {
                f = sweep_hash_bytes(sweep_hash_start(), path, strlen(path));
            }
            h = sweep_hash_bytes(h, &f, sizeof f);
        }
        s->io.fingerprint.part[0] = h;
        s->io.fingerprint.part[1] = sweep_hash_start();
        s->io.fingerprint.part[2] = sweep_hash_start();
        sweep_hash_file(&s->io.fingerprint.part[2], s->scenario_path);
    }
    return ranks.rank == 0 ? read_params(s) : 0;
}

int cli_sweep_scenario(int argc, char** argv, sweep_ranks ranks)
{
    scenario_sweep s;
    memset(&s, 0, sizeof s);
    int rc = parse_args(argc, argv, &s);
    if (rc != CLI_CONTINUE)
    {
        return rc;
    }
    sweep_restore_stderr();
    rc = prepare(&s, ranks);
    if (sweep_parallel_all(rc == 0))
    {
        s.io.input_text = s.grid_text;
        // The output header and column count are known once the input header is read (sweep_run calls read_header
        // first): the job points at them.
        sweep_job job = {"scenario", NULL, 0, 0, read_header, evaluate, row_key, &s};
        s.job = &job;
        rc = sweep_run(&job, &s.io, ranks);
    }
    else
    {
        rc = 1;
    }
    app_scenario_destroy(s.scn);
    free(s.parts);
    free(s.contacts);
    free(s.out_header);
    free(s.grid_text);
    return rc;
}
