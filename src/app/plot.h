// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SVG line plots of `meshcontact simulate`: one panel or a stack of panels (curves per contact, or an incidents
// timeline), with axes, ticks, units, titles and legends. Part of the command-line tool, not of the library.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/// One curve of a plot: y[k] at t[k], k < count.
typedef struct app_plot_series
{
    const char* label; ///< legend text
    const double* t;   ///< abscissae (increasing)
    const double* y;   ///< ordinates
    size_t count;      ///< points
} app_plot_series;

/// Pixel columns of the plot area of app_plot_write_svg and app_plot_write_panels (its curves keep four samples per
/// column).
#define APP_PLOT_COLUMNS 700
/// Canvas width (pixels) and the plot area's left edge; the plot area is APP_PLOT_COLUMNS wide.
#define APP_PLOT_WIDTH 800
#define APP_PLOT_LEFT 80
/// Height of one panel of app_plot_write_panels, of the header above the first, and the plot area's top and bottom
/// within a panel (pixels from the panel's top).
#define APP_PLOT_PANEL_HEIGHT 300
#define APP_PLOT_HEADER 30
#define APP_PLOT_PANEL_TOP 32
#define APP_PLOT_PANEL_BOTTOM 250

/// A bar of a timeline panel: row `row` from t0 to t1.
typedef struct app_plot_bar
{
    int row;   ///< index into app_plot_panel.rows
    double t0; ///< start
    double t1; ///< end (>= t0; drawn at least 2 pixels wide)
} app_plot_bar;

/// One panel: curves (series) or, when row_count > 0, a timeline of bars (one row per label).
typedef struct app_plot_panel
{
    const char* title;             ///< panel title
    const char* y_label;           ///< y axis label with its unit (curves only)
    const app_plot_series* series; ///< curves
    int series_count;              ///< entries of series
    const char* const* rows;       ///< timeline row labels (top to bottom)
    int row_count;                 ///< rows (0: a curve panel)
    const app_plot_bar* bars;      ///< timeline bars
    size_t bar_count;              ///< entries of bars
} app_plot_panel;

/// Write an SVG line plot (axes, ticks, labels, legend), one polyline per series, decimated to the pixel columns
/// (each column keeps its minimum and maximum, so peaks survive). 800 x 450 pixels, plot area from (80, 40), 700 x
/// 355. Each polyline carries its largest value as `data-peak="%.9g"`.
/// @return false when the file cannot be written
bool app_plot_write_svg(const char* path, const char* title, const char* x_label, const char* y_label,
                        const app_plot_series* series, int series_count, double x_min, double x_max);

/// Write panels stacked vertically on one SVG canvas of APP_PLOT_WIDTH x (APP_PLOT_HEADER + panel_count *
/// APP_PLOT_PANEL_HEIGHT) pixels, sharing the x axis range [x_min, x_max] (each has its own ticks and x label).
/// Curve panels are drawn as app_plot_write_svg draws; timeline panels draw one row of bars per label.
/// @return false when the file cannot be written
bool app_plot_write_panels(const char* path, const char* title, const char* x_label, const app_plot_panel* panels,
                           int panel_count, double x_min, double x_max);
