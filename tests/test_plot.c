// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the SVG plots of `meshcontact simulate` rendered to PNG by rsvg-convert (Debian librsvg2-bin): a curve
// lands where a reference SVG made by the test itself draws it, nothing is clipped at the canvas edges or drawn
// outside it, and every panel of a simulation's plot shows its curves (its force peak where the incidents say).
// Built only when rsvg-convert and zlib are found (tests/meson.build skips it with a message otherwise).
#include "src/app/plot.h"
#include "src/app/scenario.h"
#include "src/app/simulate.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static const double PI = 3.14159265358979323846;

/// An 8-bit RGB image.
typedef struct image
{
    int w, h;
    unsigned char* rgb; // w * h * 3
} image;

static uint32_t be32(const unsigned char* p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/// Inflate the image data and undo the per-row filters. @return h rows of stride bytes
static unsigned char* png_unfilter(const unsigned char* z, size_t zn, size_t stride, int h, int channels)
{
    uLongf raw_n = (uLongf)((stride + 1) * (size_t)h);
    unsigned char* raw = malloc(raw_n);
    cr_assert(uncompress(raw, &raw_n, z, (uLong)zn) == Z_OK && raw_n == (stride + 1) * (size_t)h);
    unsigned char* px = calloc(stride * (size_t)h, 1);
    for (int y = 0; y < h; ++y)
    {
        int filter = raw[(size_t)y * (stride + 1)];
        cr_assert(filter >= 0 && filter <= 4, "filter %d", filter);
        const unsigned char* in = raw + (size_t)y * (stride + 1) + 1;
        unsigned char* out = px + (size_t)y * stride;
        const unsigned char* up = y > 0 ? out - stride : NULL;
        for (size_t i = 0; i < stride; ++i)
        {
            int a = i >= (size_t)channels ? out[i - (size_t)channels] : 0;
            int b = up != NULL ? up[i] : 0;
            int c = up != NULL && i >= (size_t)channels ? up[i - (size_t)channels] : 0;
            int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
            out[i] = (unsigned char)(in[i] + pred);
        }
    }
    free(raw);
    return px;
}

/// Decode a non-interlaced 8-bit RGB or RGBA PNG (what rsvg-convert writes) into RGB (alpha dropped: rsvg renders
/// our opaque white background). PNG: chunks, zlib stream, one filter byte per row (ISO/IEC 15948).
static image png_read(const char* path)
{
    FILE* f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char* buf = malloc((size_t)n);
    cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    cr_assert(n > 8 && memcmp(buf, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", path);
    image im = {0, 0, NULL};
    int channels = 0;
    unsigned char* z = malloc((size_t)n);
    size_t zn = 0;
    for (long p = 8; p + 12 <= n;)
    {
        uint32_t len = be32(buf + p);
        const unsigned char* type = buf + p + 4;
        const unsigned char* data = buf + p + 8;
        if (memcmp(type, "IHDR", 4) == 0)
        {
            im.w = (int)be32(data);
            im.h = (int)be32(data + 4);
            cr_assert(eq(int, data[8], 8), "bit depth");
            cr_assert(data[9] == 2 || data[9] == 6, "colour type %d", data[9]);
            cr_assert(eq(int, data[12], 0), "interlaced");
            channels = data[9] == 2 ? 3 : 4;
        }
        else if (memcmp(type, "IDAT", 4) == 0)
        {
            memcpy(z + zn, data, len);
            zn += len;
        }
        p += 12 + (long)len;
    }
    size_t stride = (size_t)im.w * (size_t)channels;
    unsigned char* px = png_unfilter(z, zn, stride, im.h, channels);
    im.rgb = malloc((size_t)im.w * (size_t)im.h * 3);
    for (size_t k = 0; k < (size_t)im.w * (size_t)im.h; ++k)
    {
        memcpy(im.rgb + 3 * k, px + (size_t)channels * k, 3);
    }
    free(px);
    free(z);
    free(buf);
    return im;
}

static const unsigned char* pixel(const image* im, int x, int y)
{
    return im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x);
}

static bool is_white(const unsigned char* p)
{
    return p[0] > 245 && p[1] > 245 && p[2] > 245;
}

/// The first curve colour #1f77b4 (31, 119, 180), or a blend of it with white or grey: clearly bluer than red.
static bool is_blue(const unsigned char* p)
{
    return p[2] > p[0] + 40 && p[2] >= p[1];
}

/// Render an SVG with rsvg-convert (path in $RSVG_CONVERT) to path.png and decode it.
static image render(const char* svg)
{
    const char* exe = getenv("RSVG_CONVERT");
    cr_assert(exe != NULL && exe[0] != '\0', "RSVG_CONVERT is not set");
    char png[600], cmd[2000];
    snprintf(png, sizeof png, "%s.png", svg);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s'", exe, svg, png);
    cr_assert(eq(int, system(cmd), 0), "%s failed", cmd);
    image im = png_read(png);
    remove(png);
    return im;
}

static void temp_path(char* buf, size_t n, const char* stem)
{
    const char* dir = getenv("TMPDIR");
    snprintf(buf, n, "%s/%s_XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp", stem);
    int fd = mkstemp(buf);
    cr_assert(fd >= 0);
    close(fd);
}

/// No pixel that is not white within `margin` pixels of the canvas edges: nothing clipped there.
static void assert_clear_border(const image* im, int margin)
{
    for (int y = 0; y < im->h; ++y)
    {
        for (int x = 0; x < im->w; ++x)
        {
            if (x < margin || y < margin || x >= im->w - margin || y >= im->h - margin)
            {
                const unsigned char* p = pixel(im, x, y);
                cr_assert(is_white(p), "pixel (%d, %d) = %d,%d,%d at the canvas edge: something is clipped", x, y, p[0],
                          p[1], p[2]);
            }
        }
    }
}

/// Every coordinate of the SVG (x, y, x1, y1, x2, y2 attributes, polyline points, translate) lies on the canvas.
static void assert_inside_canvas(const char* svg_path, double w, double h)
{
    FILE* f = fopen(svg_path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = malloc((size_t)n + 1);
    cr_assert(fread(text, 1, (size_t)n, f) == (size_t)n);
    text[n] = '\0';
    fclose(f);
    static const char* const keys[] = {" x=\"", " y=\"", " x1=\"", " x2=\"", " y1=\"", " y2=\""};
    int checked = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
    {
        bool is_x = strchr(keys[k], 'x') != NULL;
        for (const char* p = strstr(text, keys[k]); p != NULL; p = strstr(p + 1, keys[k]))
        {
            double v = strtod(p + strlen(keys[k]), NULL);
            cr_assert(v >= 0.0 && v <= (is_x ? w : h), "%.40s is off the canvas", p);
            ++checked;
        }
    }
    for (const char* p = strstr(text, "points=\""); p != NULL; p = strstr(p + 1, "points=\""))
    {
        char* c = (char*)p + 8;
        while (*c != '"')
        {
            double x = strtod(c, &c);
            cr_assert(c[0] == (char)44, "no comma in the points");
            double y = strtod(c + 1, &c);
            cr_assert(x >= 0.0 && x <= w && y >= 0.0 && y <= h, "point %g,%g is off the canvas", x, y);
            while (*c == ' ')
            {
                ++c;
            }
            ++checked;
        }
    }
    cr_assert(checked > 50);
    free(text);
}

Test(plot, curve_lands_where_the_reference_draws_it)
{
    // y = 10 sin(pi t) on [0, 1]: the y axis runs from 0 to exactly 10 (ticks of 2), so the test knows the mapping:
    // the plot area is 700 x 355 pixels from (80, 40) (plot.h, app_plot_write_svg).
    enum
    {
        N = 2001
    };
    static double t[N], y[N];
    for (int k = 0; k < N; ++k)
    {
        t[k] = (double)k / (N - 1);
        y[k] = 10.0 * sin(PI * t[k]);
    }
    app_plot_series s = {"sine", t, y, N};
    char path[512], ref[520];
    temp_path(path, sizeof path, "app_plot_png");
    cr_assert(app_plot_write_svg(path, "A sine", "time [s]", "force [N]", &s, 1, 0.0, 1.0));
    // The reference: the same canvas with only the expected polyline, drawn by the test.
    snprintf(ref, sizeof ref, "%s_ref.svg", path);
    FILE* f = fopen(ref, "w");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"450\" viewBox=\"0 0 800 450\">\n"
               "<rect width=\"800\" height=\"450\" fill=\"white\"/>\n<polyline fill=\"none\" stroke=\"#1f77b4\" "
               "stroke-width=\"1.5\" points=\"");
    for (int k = 0; k < N; ++k)
    {
        fprintf(f, "%.3f,%.3f ", 80.0 + 700.0 * t[k], 40.0 + 355.0 * (1.0 - y[k] / 10.0));
    }
    fprintf(f, "\"/>\n</svg>\n");
    fclose(f);
    image im = render(path), want = render(ref);
    cr_assert(eq(int, im.w, 800));
    cr_assert(eq(int, im.h, 450));
    cr_assert(eq(int, want.w, 800));
    int columns = 0, compared = 0;
    for (int x = 82; x < 778; ++x)
    {
        // Mean row of the blue pixels in each image, away from the legend box (top right) and the frame.
        double sum_a = 0.0, sum_b = 0.0;
        int na = 0, nb = 0;
        for (int yy = 42; yy < 394; ++yy)
        {
            if (x > 640 && yy < 75)
            {
                continue; // legend
            }
            if (is_blue(pixel(&im, x, yy)))
            {
                sum_a += yy;
                ++na;
            }
            if (is_blue(pixel(&want, x, yy)))
            {
                sum_b += yy;
                ++nb;
            }
        }
        if (nb == 0)
        {
            continue;
        }
        ++columns;
        cr_assert(na > 0, "column %d: the reference has the curve, the plot has nothing", x);
        // One pixel: both are the same polyline through the same points up to the plot's 0.1 px rounding and its
        // decimation (four of the ~3 samples per column kept: all of them).
        cr_assert(fabs(sum_a / na - sum_b / nb) <= 1.0, "column %d: curve at row %.1f, reference %.1f", x, sum_a / na,
                  sum_b / nb);
        ++compared;
    }
    cr_assert(columns > 600, "%d columns compared", columns);
    cr_log_info("%d pixel columns compared with the reference", compared);
    // Not blank: the title, the tick labels and the y label are there (dark pixels), the frame is black.
    int title = 0, ylabel = 0;
    for (int yy = 5; yy < 30; ++yy)
    {
        for (int x = 300; x < 560; ++x)
        {
            title += pixel(&im, x, yy)[0] < 100;
        }
    }
    for (int yy = 150; yy < 300; ++yy)
    {
        for (int x = 5; x < 30; ++x)
        {
            ylabel += pixel(&im, x, yy)[0] < 100;
        }
    }
    cr_assert(title > 20 && ylabel > 20, "title %d, y label %d dark pixels", title, ylabel);
    // The frame's bottom edge, y = 40 + 355: a 1 px line centred on a pixel boundary, grey over rows 394 and 395.
    cr_assert(pixel(&im, 400, 394)[0] < 170 && pixel(&im, 400, 395)[0] < 170, "the frame's bottom edge");
    assert_clear_border(&im, 3);
    assert_inside_canvas(path, 800.0, 450.0);
    free(im.rgb);
    free(want.rgb);
    remove(ref);
    remove(path);
}

Test(plot, every_panel_of_a_simulation_plot_shows_its_curves)
{
    // A 1 kg ball dropped from 2 cm onto the plate with friction (it is thrown sideways so that friction acts):
    // four panels: normal force, friction force, penetration, incidents.
    app_scenario* scn = NULL;
    app_scenario_error perr;
    const char* text = "UNITS/FORCE=NEWTON, LENGTH=METER, TIME=SECOND\n"
                       "ACCGRAV/KGRAV=-9.81\n"
                       "PART/1, GROUND\n"
                       "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                       "PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.07, VX=0.3\n"
                       "GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3\n"
                       "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5, DAMPING=50, DMAX=1e-3,\n"
                       ", COULOMB_FRICTION=ON, MU_STATIC=0.3, MU_DYNAMIC=0.2, STICTION_TRANSITION_VELOCITY=0.01,\n"
                       ", FRICTION_TRANSITION_VELOCITY=0.05\n"
                       "SIMULATE/DYNAMIC, END=0.3, STEPS=30\n";
    cr_assert(app_scenario_parse_string(text, "drop.scn", ".", &scn, &perr), "%s", perr.message);
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    app_sim* sim = NULL;
    char err[700] = "";
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "%s", err);
    char path[512];
    temp_path(path, sizeof path, "app_sim_png");
    app_sim_outputs outs = {NULL, NULL, path, NULL, NULL};
    cr_assert(app_sim_run_outputs(sim, &outs, err, sizeof err), "%s", err);
    int ni = 0;
    const app_sim_incident* in = app_sim_get_incidents(sim, &ni);
    cr_assert(ni >= 1);
    image im = render(path);
    int height = APP_PLOT_HEADER + 4 * APP_PLOT_PANEL_HEIGHT;
    cr_assert(eq(int, im.w, APP_PLOT_WIDTH));
    cr_assert(eq(int, im.h, height));
    assert_clear_border(&im, 3);
    assert_inside_canvas(path, APP_PLOT_WIDTH, height);
    for (int panel = 0; panel < 4; ++panel)
    {
        int top = APP_PLOT_HEADER + panel * APP_PLOT_PANEL_HEIGHT + APP_PLOT_PANEL_TOP;
        int bottom = APP_PLOT_HEADER + panel * APP_PLOT_PANEL_HEIGHT + APP_PLOT_PANEL_BOTTOM;
        // Blue pixels strictly inside the plot area, left of the legend: the curve (or the incident bars) rising
        // off the bottom edge.
        int blue = 0;
        for (int yy = top + 30; yy < bottom - 3; ++yy)
        {
            for (int x = APP_PLOT_LEFT + 2; x < APP_PLOT_LEFT + APP_PLOT_COLUMNS - 2; ++x)
            {
                blue += is_blue(pixel(&im, x, yy));
            }
        }
        cr_log_info("panel %d: %d curve pixels", panel, blue);
        cr_assert(blue > 20, "panel %d is blank (%d curve pixels)", panel, blue);
    }
    // The normal force panel's highest curve pixel sits at the first impact's peak: x from its time, y from max Fn
    // over the axis' top (the next tick above it).
    double fn = in[0].max_fn, tpk = in[0].max_fn_time;
    for (int k = 1; k < ni; ++k)
    {
        if (in[k].max_fn > fn)
        {
            fn = in[k].max_fn;
            tpk = in[k].max_fn_time;
        }
    }
    int top = APP_PLOT_HEADER + APP_PLOT_PANEL_TOP, bottom = APP_PLOT_HEADER + APP_PLOT_PANEL_BOTTOM;
    int best_y = bottom, best_x = -1;
    for (int x = APP_PLOT_LEFT + 2; x < APP_PLOT_LEFT + 500; ++x) // left of the legend
    {
        for (int yy = top + 1; yy < bottom; ++yy)
        {
            if (is_blue(pixel(&im, x, yy)) && yy < best_y)
            {
                best_y = yy;
                best_x = x;
            }
        }
    }
    double x_want = APP_PLOT_LEFT + tpk / 0.3 * APP_PLOT_COLUMNS;
    cr_log_info("peak %.3f N at t = %.5f: pixel (%d, %d), expected x %.1f", fn, tpk, best_x, best_y, x_want);
    cr_assert(fabs(best_x - x_want) <= 2.0, "peak drawn at x %d, expected %.1f", best_x, x_want);
    // The axis runs from 0 to the first multiple of its tick spacing at or above the peak; the spacing is 1, 2 or 5
    // times a power of ten, about a sixth of the peak (rounded as 1.5, 3.5 and 7.5 split the decade).
    double raw = fn / 6.0, p10 = pow(10.0, floor(log10(raw))), f = raw / p10;
    double tick = (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p10;
    double y_top = ceil(fn / tick) * tick;
    double y_want = top + (1.0 - fn / y_top) * (bottom - top);
    // The stroke is 1.5 px wide: its top pixel is within 1.5 px above the line's centre.
    cr_assert(best_y >= y_want - 2.0 && best_y <= y_want + 1.0, "peak drawn at y %d, expected %.1f", best_y, y_want);
    free(im.rgb);
    remove(path);
    app_sim_destroy(sim);
    app_scenario_destroy(scn);
}
