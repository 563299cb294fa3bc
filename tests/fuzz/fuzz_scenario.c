// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of the scenario parser (src/app/scenario.c) on text in memory (app_scenario_parse_string; the
// parser opens no file: FILE= paths are only resolved). Checked: a failure has a message with a line within the
// text; a parsed scenario has finite values, END > 0, STEPS in 1..1e7, usable part orientations, and GRAPHICS and
// CONTACT references that point into its arrays and agree with the lookups by id.
#include "fuzz_common.h"
#include "src/app/scenario.h"

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    mc_set_assert_fcn(fuzz_assert_trap);
    return 0;
}

static bool finite_n(const double* x, int n)
{
    for (int k = 0; k < n; ++k)
    {
        if (!isfinite(x[k]))
        {
            return false;
        }
    }
    return true;
}

static void check_parts(const app_scenario* s)
{
    for (int k = 0; k < s->part_count; ++k)
    {
        const app_scenario_part* p = &s->parts[k];
        double q2 = p->pose.q.w * p->pose.q.w + p->pose.q.x * p->pose.q.x + p->pose.q.y * p->pose.q.y +
                    p->pose.q.z * p->pose.q.z;
        FUZZ_CHECK(fuzz_vec3_finite(p->pose.p) && isfinite(q2) && q2 > 0.0, "part %d: unusable pose", p->id);
        FUZZ_CHECK(isfinite(p->mass) && isfinite(p->density) && finite_n(p->ip, 6) && fuzz_vec3_finite(p->v) &&
                       fuzz_vec3_finite(p->w_body),
                   "part %d: a non-finite number", p->id);
        FUZZ_CHECK(app_scenario_find_part(s, p->id) >= 0 && s->parts[app_scenario_find_part(s, p->id)].id == p->id,
                   "part %d: not found by its id", p->id);
    }
}

static void check_graphics(const app_scenario* s)
{
    for (int k = 0; k < s->graphics_count; ++k)
    {
        const app_scenario_graphics* g = &s->graphics[k];
        FUZZ_CHECK(g->part_index >= 0 && g->part_index < s->part_count && s->parts[g->part_index].id == g->part_id,
                   "graphics %d: part index %d of %d for PART/%d", g->id, g->part_index, s->part_count, g->part_id);
        FUZZ_CHECK((g->shape == APP_SCENARIO_FILE) == (g->path != NULL), "graphics %d: shape %d with path %p", g->id,
                   (int)g->shape, (void*)g->path);
        FUZZ_CHECK(isfinite(g->scale) && finite_n(g->size, 3) && isfinite(g->chord_tolerance) &&
                       isfinite(g->angle_tolerance) && fuzz_vec3_finite(g->local.p),
                   "graphics %d: a non-finite number", g->id);
        FUZZ_CHECK(app_scenario_find_graphics(s, g->id) >= 0, "graphics %d: not found by its id", g->id);
    }
}

static void check_contacts(const app_scenario* s)
{
    for (int k = 0; k < s->contact_count; ++k)
    {
        const app_scenario_contact* c = &s->contacts[k];
        FUZZ_CHECK(c->igeom_count > 0 && c->jgeom_count > 0, "contact %d: %d IGEOM, %d JGEOM", c->id, c->igeom_count,
                   c->jgeom_count);
        for (int a = 0; a < c->igeom_count; ++a)
        {
            FUZZ_CHECK(c->igeom[a] >= 0 && c->igeom[a] < s->graphics_count, "contact %d: IGEOM index %d of %d", c->id,
                       c->igeom[a], s->graphics_count);
        }
        for (int b = 0; b < c->jgeom_count; ++b)
        {
            FUZZ_CHECK(c->jgeom[b] >= 0 && c->jgeom[b] < s->graphics_count, "contact %d: JGEOM index %d of %d", c->id,
                       c->jgeom[b], s->graphics_count);
        }
        const double v[] = {c->stiffness,
                            c->exponent,
                            c->damping,
                            c->dmax,
                            c->penalty,
                            c->restitution,
                            c->mu_static,
                            c->mu_dynamic,
                            c->stiction_velocity,
                            c->friction_velocity,
                            c->normal_transition_velocity};
        FUZZ_CHECK(finite_n(v, (int)(sizeof v / sizeof v[0])), "contact %d: a non-finite parameter", c->id);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    char* text = malloc(size + 1);
    if (text == NULL)
    {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    app_scenario* s = NULL;
    app_scenario_error err;
    bool ok = app_scenario_parse_string(text, "fuzz.scn", "base", &s, &err);
    FUZZ_CHECK(ok == (s != NULL), "parse returned %d with scenario %p", ok, (void*)s);
    FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "error message not terminated");
    if (!ok)
    {
        int lines = 1;
        for (size_t k = 0; k < size && text[k] != '\0'; ++k)
        {
            lines += text[k] == '\n';
        }
        FUZZ_CHECK(err.message[0] != '\0' && err.line >= 0 && err.line <= lines, "failure at line %d of %d: '%s'",
                   err.line, lines, err.message);
    }
    else
    {
        FUZZ_CHECK(isfinite(s->end_time) && s->end_time > 0.0 && s->steps >= 1 && s->steps <= 10000000 &&
                       isfinite(s->hmax) && s->hmax >= 0.0 && fuzz_vec3_finite(s->gravity),
                   "scenario: END %g, STEPS %d, HMAX %g", s->end_time, s->steps, s->hmax);
        check_parts(s);
        check_graphics(s);
        check_contacts(s);
        app_scenario_destroy(s);
    }
    free(text);
    return 0;
}
