// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The multibody model without Simbody: a scenario with JOINTs is refused with the package to install (sim_mb.h).
#include "src/app/sim_mb.h"
#include "src/app/sim_static.h"

#include <stdio.h>

bool app_mb_available(void)
{
    return false;
}

bool app_mb_create(const app_mb_def* def, app_mb** out, char* err, size_t cap)
{
    *out = NULL;
    const app_scenario_joint* j = &def->scn->mech->joints[0];
    snprintf(err, cap,
             "%s:%d: JOINT/%d: joints need the multibody library Simbody, not in this build (install the Debian "
             "package libsimbody-dev, tests/install-deps.sh does, and configure again)",
             def->scn->path, j->line, j->id);
    return false;
}

bool app_mb_step_to(app_mb* mb, double t, char* err, size_t cap)
{
    (void)mb;
    (void)t;
    snprintf(err, cap, "no multibody model");
    return false;
}

void app_mb_get_motions(const app_mb* mb, app_part_motion* out)
{
    (void)mb;
    (void)out;
}

int app_mb_redundant_count(const app_mb* mb)
{
    (void)mb;
    return 0;
}

long app_mb_step_count(const app_mb* mb)
{
    (void)mb;
    return 0;
}

void app_mb_destroy(app_mb* mb)
{
    (void)mb;
}

bool app_mb_get_reactions(const app_mb* mb, mc_wrench* joints, double* motions, char* err, size_t cap)
{
    (void)mb;
    (void)joints;
    (void)motions;
    snprintf(err, cap, "no multibody model");
    return false;
}

void app_mb_csv_header(const app_scenario* scn, FILE* f)
{
    (void)scn;
    (void)f;
}

void app_mb_csv_row(const app_mb* mb, FILE* f)
{
    (void)mb;
    (void)f;
}

bool app_mb_static(app_mb* mb, double imbalance, double error, int maxit, app_sim_static_report* rep, char* err,
                   size_t cap)
{
    (void)mb;
    (void)imbalance;
    (void)error;
    (void)maxit;
    (void)rep;
    snprintf(err, cap, "no multibody model");
    return false;
}
