// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Runs that cannot finish, refused before any work (sim_guard.h).
#include "src/app/sim_guard.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

sim_bdf_method app_sim_bdf_method(void)
{
    const char* v = getenv("MC_SIM_BDF");
    if (v != NULL && strcmp(v, "msbdf") == 0)
    {
        return SIM_BDF_METHOD_MSBDF;
    }
    return v != NULL && strcmp(v, "bdf") == 0 ? SIM_BDF_METHOD_BDF : SIM_BDF_METHOD_NDF;
}

double app_sim_bdf_bytes(size_t n)
{
    return sim_bdf_bytes(app_sim_bdf_method(), n, 12, 0);
}

double app_sim_bdf_limit(double limit)
{
    limit = limit > 0.0 ? limit : app_sim_memory_limit();
    // Half the limit: the meshes, the world and the rest of the process need room too.
    return fmin(APP_SIM_BDF_MAX_BYTES, 0.5 * limit);
}

double app_sim_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    double limit = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    {
        limit = fmin(limit, (double)rl.rlim_cur);
    }
    return limit;
}

bool app_sim_check_bdf_memory(const app_scenario* scn, double limit, char* why, size_t cap)
{
    if (scn->integrator != APP_SCENARIO_BDF)
    {
        return true;
    }
    int moving = 0;
    for (int i = 0; i < scn->part_count; ++i)
    {
        moving += scn->parts[i].ground ? 0 : 1;
    }
    double bytes = app_sim_bdf_bytes((size_t)moving * 12u);
    double allowed = app_sim_bdf_limit(limit);
    if (bytes > allowed)
    {
        bool dense = app_sim_bdf_method() == SIM_BDF_METHOD_MSBDF;
        snprintf(why, cap,
                 "%s: %d moving parts: the BDF integrator needs about %.3g GB (%s), more than the %.3g GB allowed "
                 "(%s); use INTEGRATOR/RK4 (or --integrator rk4: memory and time in proportion to the parts)",
                 scn->path, moving, bytes / 1e9,
                 dense ? "GSL msbdf's dense Jacobian and iteration matrix, 2 x (12 x parts)^2 doubles"
                       : "its history, Jacobian and factors, in proportion to the parts before any contact",
                 allowed / 1e9,
                 allowed < APP_SIM_BDF_MAX_BYTES ? "half of the memory this process may use" : "the BDF limit");
        return false;
    }
    return true;
}

bool app_sim_check_time_scale(const app_scenario* scn, double time_scale, char* why, size_t cap)
{
    double resolution = 64.0 * DBL_EPSILON * scn->end_time; // 64 roundings of the largest time of the run
    if (time_scale > 0.0 && 1e-3 * time_scale < resolution)
    {
        snprintf(why, cap,
                 "%s: the contacts' time scale %.3g s (from MASS, IP and STIFFNESS) is too short for END=%g: a step "
                 "resolving it (%.3g) is below what double precision resolves at END (%.3g), so the run could not "
                 "advance; check the units of MASS and STIFFNESS",
                 scn->path, time_scale, scn->end_time, 1e-3 * time_scale, resolution);
        return false;
    }
    return true;
}

long app_sim_first_non_finite(const double* y, size_t n)
{
    for (size_t i = 0; i < n; ++i)
    {
        if (!isfinite(y[i]))
        {
            return (long)i;
        }
    }
    return -1;
}
