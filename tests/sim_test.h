// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Scenario and simulation set-up shared by the simulate tests (test_simulate, test_mech*, test_static): parse a
// scenario text or create its simulation, failing the test with the tool's message otherwise.
#ifndef MC_TESTS_SIM_TEST_H
#define MC_TESTS_SIM_TEST_H

#include "src/app/scenario.h"
#include "src/app/simulate.h"

#include <criterion/criterion.h>

/// Parse scenario `text` as file `name` (dir: where its relative paths resolve, NULL: none); fails the test on error.
static inline app_scenario* sim_test_parse(const char* text, const char* name, const char* dir)
{
    app_scenario* scn = NULL;
    app_scenario_error err;
    cr_assert(app_scenario_parse_string(text, name, dir, &scn, &err), "parse failed: %s", err.message);
    return scn;
}

/// The scenario's simulation with one worker (Criterion runs the tests in parallel processes, and the scenes are
/// small); fails the test on error.
static inline app_sim* sim_ok(const app_scenario* scn)
{
    app_sim* sim = NULL;
    char err[700] = "";
    app_sim_options opt = app_sim_default_options();
    opt.worker_count = 1;
    cr_assert(app_sim_create(scn, &opt, &sim, err, sizeof err), "sim create failed: %s", err);
    return sim;
}

#endif
