// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SVG plots of `meshcontact simulate`: curve panels (decimated to four samples per pixel column) and incident
// timelines, one panel or several stacked on a canvas.
#include "src/app/plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char* const s_colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                        "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define COLOUR(k) s_colours[(k) % (int)(sizeof s_colours / sizeof s_colours[0])]

/// Where a panel's plot area lies on the canvas.
typedef struct plot_area
{
    double left, top, width, height; ///< pixels
    double x_min, x_max;             ///< abscissa range
    double y_min, y_max;             ///< ordinate range (curves)
} plot_area;

/// A "nice" tick spacing (1, 2 or 5 times a power of ten) giving about `target` intervals over `range`.
static double nice_step(double range, int target)
{
    double raw = range / target;
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    double nf = f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0;
    return nf * p;
}

static void svg_text_escaped(FILE* f, const char* s)
{
    static const char special[] = "<>&\"";
    static const char* const entity[] = {"&lt;", "&gt;", "&amp;", "&quot;"};
    for (; *s; ++s)
    {
        const char* hit = strchr(special, *s);
        if (hit != NULL)
        {
            fputs(entity[hit - special], f);
        }
        else
        {
            fputc(*s, f);
        }
    }
}

static void svg_text(FILE* f, double x, double y, const char* attrs, const char* text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s>", x, y, attrs);
    svg_text_escaped(f, text != NULL ? text : "");
    fprintf(f, "</text>\n");
}

static double sx(const plot_area* a, double x)
{
    return a->left + (x - a->x_min) / (a->x_max - a->x_min) * a->width;
}

static double sy(const plot_area* a, double y)
{
    return a->top + a->height - (y - a->y_min) / (a->y_max - a->y_min) * a->height;
}

/// The y range of the curves, widened to whole ticks (0 always included). @return the tick spacing
static double y_range(plot_area* a, const app_plot_series* series, int series_count)
{
    double y_max = 0.0, y_min = 0.0;
    for (int s = 0; s < series_count; ++s)
    {
        for (size_t k = 0; k < series[s].count; ++k)
        {
            if (isfinite(series[s].y[k]))
            {
                y_max = fmax(y_max, series[s].y[k]);
                y_min = fmin(y_min, series[s].y[k]);
            }
        }
    }
    if (!(y_max > y_min))
    {
        y_max = y_min + 1.0;
    }
    double ystep = nice_step(y_max - y_min, 6);
    a->y_max = ceil(y_max / ystep - 1e-9) * ystep;
    a->y_min = floor(y_min / ystep + 1e-9) * ystep;
    return ystep;
}

/// Frame, vertical grid and x ticks with labels, and the x axis label.
static void draw_x_axis(FILE* f, const plot_area* a, const char* x_label)
{
    double xstep = nice_step(a->x_max - a->x_min, 8);
    double x0 = ceil(a->x_min / xstep - 1e-9) * xstep;
    fprintf(f, "<g stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for (double x = x0; x <= a->x_max + 1e-9 * xstep; x += xstep)
    {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", sx(a, x), a->top, sx(a, x),
                a->top + a->height);
    }
    fprintf(f, "</g>\n<g text-anchor=\"middle\">\n");
    for (double x = x0; x <= a->x_max + 1e-9 * xstep; x += xstep)
    {
        char t[32];
        snprintf(t, sizeof t, "%g", fabs(x) < 1e-12 * xstep ? 0.0 : x);
        svg_text(f, sx(a, x), a->top + a->height + 18.0, "", t);
    }
    fprintf(f, "</g>\n");
    svg_text(f, a->left + 0.5 * a->width, a->top + a->height + 36.0, " text-anchor=\"middle\"", x_label);
}

static void draw_frame(FILE* f, const plot_area* a)
{
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n", a->left, a->top,
            a->width, a->height);
}

/// Horizontal grid, y ticks with labels and the y axis label.
static void draw_y_axis(FILE* f, const plot_area* a, double ystep, const char* y_label)
{
    fprintf(f, "<g stroke=\"#dddddd\" stroke-width=\"1\">\n");
    for (double y = a->y_min; y <= a->y_max + 1e-9 * ystep; y += ystep)
    {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", a->left, sy(a, y), a->left + a->width,
                sy(a, y));
    }
    fprintf(f, "</g>\n<g text-anchor=\"end\">\n");
    for (double y = a->y_min; y <= a->y_max + 1e-9 * ystep; y += ystep)
    {
        char t[32];
        snprintf(t, sizeof t, "%g", fabs(y) < 1e-12 * ystep ? 0.0 : y);
        svg_text(f, a->left - 6.0, sy(a, y) + 4.0, "", t);
    }
    fprintf(f, "</g>\n");
    fprintf(f, "<text transform=\"translate(18,%g) rotate(-90)\" text-anchor=\"middle\">", a->top + 0.5 * a->height);
    svg_text_escaped(f, y_label != NULL ? y_label : "");
    fprintf(f, "</text>\n");
}

/// One polyline: per pixel column the first, minimum, maximum and last sample, so peaks and steps survive.
static void draw_curve(FILE* f, const plot_area* a, const app_plot_series* sr, const char* colour)
{
    double peak = -INFINITY;
    for (size_t k = 0; k < sr->count; ++k)
    {
        peak = isfinite(sr->y[k]) ? fmax(peak, sr->y[k]) : peak;
    }
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" data-peak=\"%.9g\" points=\"", colour,
            isfinite(peak) ? peak : 0.0);
    int columns = APP_PLOT_COLUMNS;
    size_t k = 0;
    while (k < sr->count)
    {
        int col = (int)floor((sr->t[k] - a->x_min) / (a->x_max - a->x_min) * columns);
        size_t start = k, kmin = k, kmax = k;
        while (k < sr->count && (int)floor((sr->t[k] - a->x_min) / (a->x_max - a->x_min) * columns) == col)
        {
            kmin = sr->y[k] < sr->y[kmin] ? k : kmin;
            kmax = sr->y[k] > sr->y[kmax] ? k : kmax;
            ++k;
        }
        size_t pick[4] = {start, kmin < kmax ? kmin : kmax, kmin < kmax ? kmax : kmin, k - 1};
        size_t last = (size_t)-1;
        for (int m = 0; m < 4; ++m)
        {
            if (pick[m] == last)
            {
                continue;
            }
            last = pick[m];
            double y = isfinite(sr->y[last]) ? sr->y[last] : 0.0;
            fprintf(f, "%.1f,%.1f ", sx(a, sr->t[last]), sy(a, y));
        }
    }
    fprintf(f, "\"/>\n");
}

/// Legend in the plot area's top right corner, on a white box so that curves do not hide it.
static void draw_legend(FILE* f, const plot_area* a, const app_plot_series* series, int series_count)
{
    size_t longest = 0;
    for (int s = 0; s < series_count; ++s)
    {
        size_t n = series[s].label != NULL ? strlen(series[s].label) : 0;
        longest = n > longest ? n : longest;
    }
    if (series_count == 0)
    {
        return;
    }
    double w = 40.0 + 6.8 * (double)longest; // sans-serif 12 px: at most about 6.8 px per character
    double lx = fmax(a->left + 4.0, a->left + a->width - w - 6.0);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" fill-opacity=\"0.85\" "
            "stroke=\"#bbbbbb\"/>\n",
            lx, a->top + 4.0, fmin(w, a->width - 8.0), 16.0 * series_count + 6.0);
    for (int s = 0; s < series_count; ++s)
    {
        double ly = a->top + 18.0 + 16.0 * s;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                lx + 6.0, ly - 4.0, lx + 30.0, ly - 4.0, COLOUR(s));
        svg_text(f, lx + 36.0, ly, "", series[s].label);
    }
}

/// A timeline: one row per label, a bar per incident.
static void draw_timeline(FILE* f, const plot_area* a, const app_plot_panel* p)
{
    double row_h = a->height / p->row_count;
    for (int r = 0; r < p->row_count; ++r)
    {
        double y = a->top + row_h * r;
        if (r > 0)
        {
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", a->left, y,
                    a->left + a->width, y);
        }
        svg_text(f, a->left + 4.0, y + fmin(14.0, 0.45 * row_h + 4.0), " font-size=\"11\"", p->rows[r]);
    }
    for (size_t k = 0; k < p->bar_count; ++k)
    {
        const app_plot_bar* b = &p->bars[k];
        double x0 = sx(a, b->t0), x1 = fmax(sx(a, b->t1), x0 + 2.0);
        x1 = fmin(x1, a->left + a->width);
        x0 = fmin(x0, x1 - 2.0);
        double y = a->top + row_h * b->row;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n", x0, y + 0.55 * row_h,
                x1 - x0, 0.35 * row_h, COLOUR(b->row));
    }
}

/// A whole panel whose plot area is a.
static void draw_panel(FILE* f, plot_area* a, const app_plot_panel* p, const char* x_label)
{
    if (p->row_count > 0)
    {
        draw_x_axis(f, a, x_label);
        draw_timeline(f, a, p);
        draw_frame(f, a);
        return;
    }
    double ystep = y_range(a, p->series, p->series_count);
    draw_x_axis(f, a, x_label);
    draw_y_axis(f, a, ystep, p->y_label);
    draw_frame(f, a);
    for (int s = 0; s < p->series_count; ++s)
    {
        draw_curve(f, a, &p->series[s], COLOUR(s));
    }
    draw_legend(f, a, p->series, p->series_count);
}

static FILE* svg_open(const char* path, int width, int height)
{
    FILE* f = fopen(path, "w");
    if (f != NULL)
    {
        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
                width, height, width, height);
        fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    }
    return f;
}

static bool svg_close(FILE* f)
{
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}

static plot_area make_area(double top, double height, double x_min, double x_max)
{
    plot_area a = {APP_PLOT_LEFT, top, APP_PLOT_COLUMNS, height, x_min, x_max, 0.0, 1.0};
    if (!(a.x_max > a.x_min))
    {
        a.x_max = a.x_min + 1.0;
    }
    return a;
}

bool app_plot_write_svg(const char* path, const char* title, const char* x_label, const char* y_label,
                        const app_plot_series* series, int series_count, double x_min, double x_max)
{
    FILE* f = svg_open(path, APP_PLOT_WIDTH, 450);
    if (f == NULL)
    {
        return false;
    }
    plot_area a = make_area(40.0, 355.0, x_min, x_max);
    svg_text(f, a.left + 0.5 * a.width, 22.0, " text-anchor=\"middle\" font-size=\"14\"", title);
    app_plot_panel p = {NULL, y_label, series, series_count, NULL, 0, NULL, 0};
    draw_panel(f, &a, &p, x_label);
    return svg_close(f);
}

bool app_plot_write_panels(const char* path, const char* title, const char* x_label, const app_plot_panel* panels,
                           int panel_count, double x_min, double x_max)
{
    FILE* f = svg_open(path, APP_PLOT_WIDTH, APP_PLOT_HEADER + panel_count * APP_PLOT_PANEL_HEIGHT);
    if (f == NULL)
    {
        return false;
    }
    svg_text(f, 0.5 * APP_PLOT_WIDTH, 20.0, " text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\"", title);
    for (int k = 0; k < panel_count; ++k)
    {
        double y0 = APP_PLOT_HEADER + (double)k * APP_PLOT_PANEL_HEIGHT;
        plot_area a = make_area(y0 + APP_PLOT_PANEL_TOP, APP_PLOT_PANEL_BOTTOM - APP_PLOT_PANEL_TOP, x_min, x_max);
        svg_text(f, a.left + 0.5 * a.width, y0 + 22.0, " text-anchor=\"middle\" font-size=\"13\"", panels[k].title);
        draw_panel(f, &a, &panels[k], x_label);
    }
    return svg_close(f);
}
