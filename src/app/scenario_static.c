// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// SIMULATE/STATIC of scenario files (scenario.h): a static equilibrium before SIMULATE/DYNAMIC or instead of it, with
// Adams' EQUILIBRIUM controls IMBALANCE, ERROR and MAXIT. The solver is sim_static.c.
#include "src/app/scenario_internal.h"

#include <math.h>

bool scn_statement_static(scn_parser* p)
{
    app_scenario_static* st = &p->scn->statics;
    if (st->line != 0)
    {
        return scn_fail(p, p->st.line, "SIMULATE/STATIC given twice (line %d)", st->line);
    }
    if (p->seen_simulate)
    {
        return scn_fail(p, p->st.line,
                        "SIMULATE/STATIC after SIMULATE/DYNAMIC (line %d): the equilibrium comes first, the dynamic "
                        "run then starts from it",
                        p->scn->simulate_line);
    }
    bool dynamic = false;
    if (!scn_get_flag(p, "DYNAMIC", &dynamic))
    {
        return false;
    }
    if (dynamic)
    {
        return scn_fail(p, p->st.line,
                        "SIMULATE takes STATIC or DYNAMIC, not both: write SIMULATE/STATIC, then "
                        "SIMULATE/DYNAMIC, END=t on its own line");
    }
    st->line = p->st.line;
    st->imbalance = 1e-4;
    st->error = 1e-4;
    double maxit = 25.0;
    bool found = false;
    if (!scn_get_real(p, "IMBALANCE", &st->imbalance, &found) || !scn_get_real(p, "ERROR", &st->error, &found) ||
        !scn_get_real(p, "MAXIT", &maxit, &found))
    {
        return false;
    }
    if (!(st->imbalance > 0.0) || !isfinite(st->imbalance))
    {
        return scn_fail(p, p->st.line, "IMBALANCE must be > 0 and finite");
    }
    if (!(st->error > 0.0) || !isfinite(st->error))
    {
        return scn_fail(p, p->st.line, "ERROR must be > 0 and finite");
    }
    if (!(maxit >= 1.0) || maxit != floor(maxit) || maxit > 100000.0)
    {
        return scn_fail(p, p->st.line, "MAXIT must be a whole number from 1 to 100000");
    }
    st->maxit = (int)maxit;
    const char* ends[] = {"END", "STEPS", "DTOUT"};
    for (int k = 0; k < 3; ++k)
    {
        bool has = false;
        if (scn_find_arg(p, ends[k]) != NULL)
        {
            has = true;
        }
        if (has)
        {
            return scn_fail(p, p->st.line,
                            "SIMULATE/STATIC takes no %s= (an equilibrium has no duration): give it on "
                            "SIMULATE/DYNAMIC",
                            ends[k]);
        }
    }
    return scn_check_args(p);
}

bool scn_resolve_static(scn_parser* p)
{
    app_scenario* s = p->scn;
    app_scenario_static* st = &s->statics;
    if (st->line == 0)
    {
        return true;
    }
    if (s->integrator == APP_SCENARIO_RK4)
    {
        return scn_fail(p, st->line, "SIMULATE/STATIC needs INTEGRATOR/BDF (its contact Jacobian), not RK4 (line %d)",
                        s->integrator_line);
    }
    if (!p->seen_simulate)
    {
        // The equilibrium alone: one output row at time 0; END and STEPS of 1 keep the set-up's step sizes defined.
        st->only = true;
        s->end_time = 1.0;
        s->steps = 1;
        s->simulate_line = st->line;
    }
    return true;
}
