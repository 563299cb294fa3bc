// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Shared helpers of the command-line tool (cli.h): messages, number and pose parsing, JSON output, mesh loading.
#include "src/app/cli.h"

#include "src/app/app_io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// `meshcontact: [subject: ]message`, then ` (see 'meshcontact [hint ]--help')` unless hint is NULL.
// Control bytes (a line break in a file name) are escaped so that the message stays one line (app_io.h).
static void report(const char* subject, const char* hint, const char* fmt, va_list ap)
{
    char raw[8192], shown[8192];
    fprintf(stderr, "meshcontact: ");
    if (subject != NULL)
    {
        app_escape_controls(subject, shown, sizeof shown);
        fprintf(stderr, "%s: ", shown);
    }
    vsnprintf(raw, sizeof raw, fmt, ap);
    app_escape_controls(raw, shown, sizeof shown);
    fputs(shown, stderr);
    if (hint != NULL)
    {
        fprintf(stderr, " (see 'meshcontact %s%s--help')", hint, hint[0] != '\0' ? " " : "");
    }
    fputc('\n', stderr);
}

int cli_fail(const char* subject, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(subject, NULL, fmt, ap);
    va_end(ap);
    return 1;
}

static char s_last_log[512];

// The library's log hook: keep the last message, so that a failure can say what the library saw.
static void keep_log(const char* message)
{
    snprintf(s_last_log, sizeof s_last_log, "%s", message);
}

// The library's assert hook (debug builds): say what failed before the library traps.
static int print_assert(const char* condition, const char* file, int line)
{
    fprintf(stderr, "meshcontact: internal error: assertion `%s` failed at %s:%d; please report it with the input\n",
            condition, file, line);
    fflush(stderr);
    return 1;
}

void cli_install_hooks(void)
{
    mc_set_log_fcn(keep_log);
    mc_set_assert_fcn(print_assert);
}

const char* cli_last_log(void)
{
    return s_last_log;
}

int cli_usage_error(const char* command, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(command, command != NULL ? command : "", fmt, ap);
    va_end(ap);
    return 2;
}

bool cli_parse_double(const char* text, double* out)
{
    if (text == NULL || *text == '\0')
    {
        return false;
    }
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_int(const char* text, int* out)
{
    if (text == NULL || *text == '\0')
    {
        return false;
    }
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v <= 0 || v > 1 << 20)
    {
        return false;
    }
    *out = (int)v;
    return true;
}

static int parse_list(const char* text, double* out, int max)
{
    int n = 0;
    const char* p = text;
    char buf[64];
    while (n < max)
    {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof buf)
        {
            return -1;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (!cli_parse_double(buf, &out[n]))
        {
            return -1;
        }
        ++n;
        if (comma == NULL)
        {
            return n;
        }
        p = comma + 1;
    }
    return -1; // more values than expected
}

bool cli_parse_doubles(const char* text, double* out, int n)
{
    return text != NULL && parse_list(text, out, n) == n;
}

bool cli_parse_pose(const char* text, mc_pose* out)
{
    if (text == NULL)
    {
        return false;
    }
    double v[7];
    int n = parse_list(text, v, 7);
    if (n == 3)
    {
        *out = mc_pose_identity();
        out->p = mc_v3(v[0], v[1], v[2]);
        return true;
    }
    if (n != 7)
    {
        return false;
    }
    double l2 = v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6];
    if (!(l2 > 0.0) || !isfinite(l2))
    {
        return false;
    }
    out->p = mc_v3(v[0], v[1], v[2]);
    mc_quat q = {v[3], v[4], v[5], v[6]};
    out->q = mc_quat_normalize(q);
    return true;
}

void cli_json_double(FILE* f, double v)
{
    if (!isfinite(v))
    {
        fputs("null", f);
        return;
    }
    fprintf(f, "%.17g", v);
}

void cli_json_vec3(FILE* f, mc_vec3 v)
{
    fputc('[', f);
    cli_json_double(f, v.x);
    fputc(',', f);
    cli_json_double(f, v.y);
    fputc(',', f);
    cli_json_double(f, v.z);
    fputc(']', f);
}

void cli_json_region_members(FILE* f, const mc_region* r)
{
    // One row per key; exactly one of scalar and vec is set.
    const struct
    {
        const char* key;
        const double* scalar;
        const mc_vec3* vec;
    } members[] = {
        {"volume", &r->volume, NULL},   {"centroid", NULL, &r->centroid}, {"area", &r->area, NULL},
        {"radius", &r->radius, NULL},   {"normal", NULL, &r->normal},     {"depth", &r->depth, NULL},
        {"point_i", NULL, &r->point_i}, {"point_j", NULL, &r->point_j},
    };
    for (size_t k = 0; k < sizeof members / sizeof members[0]; ++k)
    {
        fprintf(f, "%s\"%s\":", k > 0 ? "," : "", members[k].key);
        if (members[k].scalar != NULL)
        {
            cli_json_double(f, *members[k].scalar);
        }
        else
        {
            cli_json_vec3(f, *members[k].vec);
        }
    }
}

void cli_json_string(FILE* f, const char* s)
{
    app_json_string(f, s); // valid UTF-8 whatever the text holds
}

bool cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO) != 0;
}

void cli_progress(double fraction, void* user)
{
    const char* label = user ? (const char*)user : "working";
    int pct = (int)(fraction * 100.0 + 0.5);
    fprintf(stderr, "\r%s %3d%%", label, pct);
    if (fraction >= 1.0)
    {
        fputc('\n', stderr);
    }
    fflush(stderr);
}

bool cli_is_max_triangles(double v)
{
    return v >= 1.0 && v <= 0x1p40 && v == floor(v);
}

void cli_self_check_summary(const mc_mesh_report* r, char* buf, size_t size)
{
    int n = 0;
    buf[0] = '\0';
    if (!r->self_checked)
    {
        return;
    }
    if (r->self_intersecting_pairs > 0)
    {
        n += snprintf(buf, size, "%llu pairs of triangles intersect (the first: triangles %u and %u)",
                      (unsigned long long)r->self_intersecting_pairs, r->self_intersection_sample[0],
                      r->self_intersection_sample[1]);
    }
    if (r->nested_components > 0 && (size_t)n < size)
    {
        n += snprintf(buf + n, size - (size_t)n,
                      "%s%u component%s nested in another with the same winding (volume counted twice)",
                      n > 0 ? "; " : "", r->nested_components, r->nested_components == 1 ? "" : "s");
    }
    if (r->inverted_components > 0 && (size_t)n < size)
    {
        n += snprintf(buf + n, size - (size_t)n, "%s%u component%s wound inside out (inward, in no other)",
                      n > 0 ? "; " : "", r->inverted_components, r->inverted_components == 1 ? "" : "s");
    }
    if (r->nested_components + r->inverted_components > 0 && (size_t)n < size)
    {
        snprintf(buf + n, size - (size_t)n, " (the first: the component of triangle %u)", r->nesting_sample_triangle);
    }
}

bool cli_is_facet_angle(double v)
{
    return v > 0.0 && v <= 90.0;
}

bool cli_is_solid_index(double v)
{
    return v >= 0.0 && v <= 2147483647.0 && v == floor(v);
}

void cli_apply_brep_options(mc_import_options* opt, double angle_deg, double solid)
{
    if (angle_deg > 0.0)
    {
        opt->angle_tolerance = angle_deg * MC_PI / 180.0;
    }
    opt->brep_solid = solid >= 0.0 ? (int32_t)solid : -1;
}

bool cli_is_brep_path(const char* path)
{
    static const char* const ext[] = {".step", ".stp", ".iges", ".igs", ".brep"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; ++i)
    {
        size_t k = strlen(ext[i]);
        bool same = n >= k;
        for (size_t c = 0; same && c < k; ++c)
        {
            same = tolower((unsigned char)path[n - k + c]) == ext[i][c];
        }
        if (same)
        {
            return true;
        }
    }
    return false;
}

int cli_mute_stdout(const char* path)
{
    if (!cli_is_brep_path(path))
    {
        return -1;
    }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved < 0 || null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0)
    {
        if (saved >= 0)
        {
            close(saved);
        }
        saved = -1;
    }
    if (null_fd >= 0)
    {
        close(null_fd);
    }
    return saved;
}

void cli_restore_stdout(int saved)
{
    if (saved >= 0)
    {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
}

int cli_load_mesh(const char* path, double scale, double max_triangles, bool accept_self_intersections, mc_mesh** out)
{
    mc_import_options opt = mc_default_import_options();
    opt.scale = scale;
    opt.self_check = accept_self_intersections ? MC_SELF_CHECK_ACCEPT : MC_SELF_CHECK_REFUSE;
    if (max_triangles > 0.0)
    {
        opt.max_triangles = (uint64_t)max_triangles;
    }
    if (cli_stderr_is_tty())
    {
        opt.progress = cli_progress;
        opt.progress_user = (void*)path;
    }
    mc_error err;
    memset(&err, 0, sizeof err);
    mc_mesh_report rep;
    int muted = cli_mute_stdout(path);
    mc_status s = mc_mesh_import_file(path, &opt, out, &rep, &err);
    cli_restore_stdout(muted);
    if (s != MC_OK)
    {
        const char* what = err.message[0] != '\0' ? err.message : mc_status_string(s);
        const char* hint = s == MC_ERR_SELF_INTERSECTING ? " (--accept-self-intersections uses it anyway)" : "";
        // The importer's message usually starts with the file name already.
        return strncmp(what, path, strlen(path)) == 0 ? cli_fail(NULL, "%s%s", what, hint)
                                                      : cli_fail(path, "%s%s", what, hint);
    }
    if (rep.self_check_accepted)
    {
        char what[600];
        cli_self_check_summary(&rep, what, sizeof what);
        char shown[1200];
        app_escape_controls(path, shown, sizeof shown);
        fprintf(stderr, "meshcontact: warning: %s: used although it intersects itself: %s\n", shown, what);
    }
    return 0;
}

int cli_load_shape(const char* spec, double scale, double max_triangles, bool accept_self_intersections,
                   mc_shape* shape, mc_mesh** mesh)
{
    *mesh = NULL;
    bool socket = strncmp(spec, "socket:", 7) == 0;
    if (strncmp(spec, "sphere:", 7) == 0 || socket)
    {
        double r = 0.0;
        if (!cli_parse_double(spec + 7, &r) || !(r > 0.0))
        {
            return cli_fail(spec, "the radius of %s needs a positive number", socket ? "socket:R" : "sphere:R");
        }
        *shape = mc_shape_sphere(r * scale);
        shape->flip = socket;
        return 0;
    }
    if (strcmp(spec, "plane") == 0)
    {
        *shape = mc_shape_plane();
        return 0;
    }
    bool hole = strncmp(spec, "hole:", 5) == 0;
    if (strncmp(spec, "cylinder:", 9) == 0 || hole)
    {
        double rl[2];
        if (!cli_parse_doubles(spec + (hole ? 5 : 9), rl, 2) || !(rl[0] > 0.0) || !(rl[1] > 0.0))
        {
            return cli_fail(spec, "%s needs a positive radius and length, R,L", hole ? "hole:R,L" : "cylinder:R,L");
        }
        *shape = mc_shape_cylinder(rl[0] * scale, rl[1] * scale);
        shape->flip = hole;
        return 0;
    }
    if (cli_load_mesh(spec, scale, max_triangles, accept_self_intersections, mesh) != 0)
    {
        return 1;
    }
    *shape = mc_shape_mesh(*mesh);
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
