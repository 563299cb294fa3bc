// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tests of the Adams function expressions (src/app/expr.c): operators and precedence, every function against its
// closed form, the marker measures' arguments, VARVAL and the splines through the callbacks, compile errors with
// their offsets, run-time domain errors with theirs.
#include "src/app/expr.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

// Markers 11, 21, 31 exist (indices 0, 1, 2); variables 5 (index 0), 6 (index 1); splines 3 (index 0).
static int marker_index(void* user, int id)
{
    (void)user;
    return id == 11 ? 0 : id == 21 ? 1 : id == 31 ? 2 : -1;
}

static int variable_index(void* user, int id)
{
    (void)user;
    return id == 5 ? 0 : id == 6 ? 1 : -1;
}

static int spline_index(void* user, int id)
{
    (void)user;
    return id == 3 ? 0 : -1;
}

static const app_expr_names s_names = {NULL, marker_index, variable_index, spline_index};

/// The measure callback encodes its arguments in the value: kind * 1e4 + (i+1) * 1e3 + (j+1) * 1e2 + (k+1) * 10 +
/// (l+1), with -1 (ground) giving digit 0: every argument the compiler passes shows in the result.
static double measure_code(void* user, app_expr_measure kind, const int m[4])
{
    (void)user;
    return (double)kind * 1e4 + (m[0] + 1) * 1e3 + (m[1] + 1) * 1e2 + (m[2] + 1) * 10.0 + (m[3] + 1);
}

static bool variable_value(void* user, int index, double* out, const char** why)
{
    (void)user;
    if (index == 1)
    {
        *why = "VARIABLE/6 depends on itself";
        return false;
    }
    *out = 42.0;
    return true;
}

static bool spline_value(void* user, int index, bool akima, double x, double z, int order, double* out,
                         const char** why)
{
    (void)user;
    (void)why;
    *out = 1000.0 * index + 100.0 * (akima ? 1 : 0) + 10.0 * order + x + 0.5 * z;
    return true;
}

static app_expr_env env_at(double t)
{
    app_expr_env env = {t, NULL, measure_code, variable_value, spline_value};
    return env;
}

static double eval_at(const char* text, double t)
{
    app_expr_error err;
    app_expr* e = app_expr_compile(text, &s_names, &err);
    cr_assert(e != NULL, "'%s' did not compile: %s at %d", text, err.message, err.offset);
    app_expr_env env = env_at(t);
    double v = NAN;
    app_expr_fault f;
    bool ok = app_expr_eval(e, &env, &v, &f);
    cr_assert(ok, "'%s' failed at t = %g: %s", text, t, ok ? "" : f.what);
    app_expr_destroy(e);
    return v;
}

static double eval(const char* text)
{
    return eval_at(text, 0.0);
}

// Exact: each of these is one or two correctly rounded operations of libm on the same operands.
#define EXPECT_EXACT(text, want) cr_expect(eval(text) == (want), "%s = %.17g, want %.17g", text, eval(text), (want))

Test(expr, operators_precedence_and_numbers)
{
    EXPECT_EXACT("1+2*3", 7.0);
    EXPECT_EXACT("(1+2)*3", 9.0);
    EXPECT_EXACT("-2**2", -4.0);    // the power binds tighter than the sign (Fortran)
    EXPECT_EXACT("2**3**2", 512.0); // right-associative
    EXPECT_EXACT("2**-1", 0.5);
    EXPECT_EXACT("3*-2", -6.0);
    EXPECT_EXACT("10/4", 2.5);  // real division, never integer
    EXPECT_EXACT("8-3-2", 3.0); // left-associative
    EXPECT_EXACT("16/4/2", 2.0);
    EXPECT_EXACT("1.5E2", 150.0);
    EXPECT_EXACT("1D-3", 1e-3);
    EXPECT_EXACT(".25", 0.25);
    EXPECT_EXACT("+ 4", 4.0);
    EXPECT_EXACT("1 +\n 2", 3.0); // newlines (joined continuation lines) are blanks
}

Test(expr, constants_and_time)
{
    EXPECT_EXACT("PI", PI);
    EXPECT_EXACT("dtor", PI / 180.0);
    EXPECT_EXACT("RTOD", 180.0 / PI);
    cr_expect(eval_at("TIME", 0.375) == 0.375);
    cr_expect(eval_at("sin(time)", 0.3) == sin(0.3));
    cr_expect(eval_at("2*TIME**2", 1.5) == 2.0 * pow(1.5, 2.0));
}

Test(expr, one_and_two_argument_functions_are_libm)
{
    EXPECT_EXACT("SIN(0.7)", sin(0.7));
    EXPECT_EXACT("COS(0.7)", cos(0.7));
    EXPECT_EXACT("TAN(0.7)", tan(0.7));
    EXPECT_EXACT("ASIN(0.3)", asin(0.3));
    EXPECT_EXACT("ACOS(-0.3)", acos(-0.3));
    EXPECT_EXACT("ATAN(2)", atan(2.0));
    EXPECT_EXACT("SQRT(2)", sqrt(2.0));
    EXPECT_EXACT("ABS(-3.5)", 3.5);
    EXPECT_EXACT("EXP(1.5)", exp(1.5));
    EXPECT_EXACT("LOG(10)", log(10.0));
    EXPECT_EXACT("ATAN2(1, -1)", 0.75 * PI);
    EXPECT_EXACT("ATAN2(-1, 0)", -0.5 * PI);
    EXPECT_EXACT("MIN(3, -2)", -2.0);
    EXPECT_EXACT("MAX(3, -2)", 3.0);
    EXPECT_EXACT("SIGN(3, -2)", -3.0);
    EXPECT_EXACT("SIGN(-3, 0)", 3.0); // b >= 0: +|a|
    EXPECT_EXACT("MOD(7, 3)", 1.0);
    EXPECT_EXACT("MOD(-7, 3)", -1.0); // Fortran: the sign of a
    EXPECT_EXACT("MOD(7.5, -2)", 1.5);
}

Test(expr, step_step5_havsin_closed_forms)
{
    // Ends and outside: h0 and h1 exactly.
    EXPECT_EXACT("STEP(-1, 0, 1, 1, 3)", 1.0);
    EXPECT_EXACT("STEP(0, 0, 1, 1, 3)", 1.0);
    EXPECT_EXACT("STEP(1, 0, 1, 1, 3)", 3.0);
    EXPECT_EXACT("STEP5(2, 0, 1, 1, 3)", 3.0);
    EXPECT_EXACT("HAVSIN(-2, 0, 1, 1, 3)", 1.0);
    // Midpoints: (h0 + h1) / 2 for all three (each is antisymmetric about the midpoint).
    EXPECT_EXACT("STEP(0.5, 0, 1, 1, 3)", 2.0);
    EXPECT_EXACT("STEP5(0.5, 0, 1, 1, 3)", 2.0);
    cr_expect(fabs(eval("HAVSIN(0.5, 0, 1, 1, 3)") - 2.0) < 1e-15); // sin(0) up to the rounding of pi/2 - pi/2
    // A quarter: cubic h0 + a d^2 (3 - 2 d) = 1 + 2 (1/16)(5/2) = 1.3125; quintic d^3 (10 - 15 d + 6 d^2) =
    // (1/64)(10 - 3.75 + 0.375) = 0.103515625, so 1.20703125; haversine 2 - sin(pi/4). Dyadic numbers: exact.
    EXPECT_EXACT("STEP(0.25, 0, 1, 1, 3)", 1.3125);
    EXPECT_EXACT("STEP5(0.25, 0, 1, 1, 3)", 1.20703125);
    cr_expect(fabs(eval("HAVSIN(0.25, 0, 1, 1, 3)") - (2.0 - sqrt(0.5))) < 4e-16); // a few ulps of libm's sin
    // A shifted, scaled interval: STEP(x, 2, -1, 6, 1) at x = 3: d = 1/4, -1 + 2 (1/16)(5/2) = -0.6875.
    EXPECT_EXACT("STEP(3, 2, -1, 6, 1)", -0.6875);
}

Test(expr, impact_and_bistop_closed_forms)
{
    // IMPACT(x, x', x1, k, e, cmax, d): penetration 0.05 of free length 1, k 100, e 1.5, half way to d = 0.1:
    // damping STEP(0.95, 0.9, 25, 1, 0) = 12.5, so F = 100 * 0.05^1.5 + 12.5 * 0.2 (approaching at 0.2).
    double want = 100.0 * pow(0.05, 1.5) + 12.5 * 0.2;
    double got = eval("IMPACT(0.95, -0.2, 1.0, 100, 1.5, 25, 0.1)");
    cr_expect(fabs(got - want) < 1e-14 * want, "IMPACT %.17g want %.17g", got, want); // a few roundings
    EXPECT_EXACT("IMPACT(1.2, -5, 1.0, 100, 1.5, 25, 0.1)", 0.0);                     // separated
    // Separating fast: the damping would pull, IMPACT never returns a negative force.
    EXPECT_EXACT("IMPACT(0.99, 100, 1.0, 100, 1.5, 25, 0.1)", 0.0);
    // BISTOP(x, x', x1, x2, k, e, cmax, d): free between x1 and x2, -k (x - x2)^e beyond x2 (at rest: no damping).
    EXPECT_EXACT("BISTOP(0.5, 3, 0, 1, 100, 2, 25, 0.1)", 0.0);
    cr_expect(fabs(eval("BISTOP(1.2, 0, 0, 1, 100, 2, 25, 0.1)") + 100.0 * 0.2 * 0.2) < 1e-12);
    cr_expect(fabs(eval("BISTOP(-0.2, 0, 0, 1, 100, 2, 25, 0.1)") - 100.0 * 0.2 * 0.2) < 1e-12);
}

Test(expr, marker_measures_pass_resolved_markers)
{
    // DX(11, 21, 31): i = 0, j = 1, k = 2, no l; DX(11): only i; 0 is the ground (-1).
    cr_expect(eval("DX(11, 21, 31)") == APP_EXPR_DX * 1e4 + 1e3 + 2e2 + 30 + 0);
    cr_expect(eval("DX(11)") == APP_EXPR_DX * 1e4 + 1e3);
    cr_expect(eval("DY(11, 0, 31)") == APP_EXPR_DY * 1e4 + 1e3 + 30);
    cr_expect(eval("DZ(11,21,21)") == APP_EXPR_DZ * 1e4 + 1e3 + 2e2 + 20);
    cr_expect(eval("DM(21, 11)") == APP_EXPR_DM * 1e4 + 2e3 + 1e2);
    cr_expect(eval("VZ(11,21,21,21)") == APP_EXPR_VZ * 1e4 + 1e3 + 2e2 + 20 + 2);
    cr_expect(eval("VX(11, 21)") == APP_EXPR_VX * 1e4 + 1e3 + 2e2);
    cr_expect(eval("VY(11, 21, 0, 31)") == APP_EXPR_VY * 1e4 + 1e3 + 2e2 + 3);
    // VR(i, j, l): the third marker is the frame of the derivative (slot l).
    cr_expect(eval("VR(11, 21, 31)") == APP_EXPR_VR * 1e4 + 1e3 + 2e2 + 3);
    cr_expect(eval("WX(31, 11, 21)") == APP_EXPR_WX * 1e4 + 3e3 + 1e2 + 20);
    cr_expect(eval("WY(11)") == APP_EXPR_WY * 1e4 + 1e3);
    cr_expect(eval("WZ(11,21)") == APP_EXPR_WZ * 1e4 + 1e3 + 2e2);
    // Inside an expression: IMPACT of the documentation's example, with its measures.
    double x = APP_EXPR_DZ * 1e4 + 1e3 + 2e2 + 20;
    cr_expect(eval("IMPACT(DZ(11,21,21), VZ(11,21,21,21), 1.0, 100, 1.5, 25, 0.1) + DZ(11,21,21)") == x);
}

Test(expr, varval_and_splines_through_the_callbacks)
{
    EXPECT_EXACT("VARVAL(5) + 1", 43.0);
    // 1 - AKISPL(x, z, 3): index 0, Akima, order 0, x + z / 2.
    EXPECT_EXACT("1-AKISPL(2, 4, 3)", 1.0 - (100.0 + 2.0 + 2.0));
    EXPECT_EXACT("CUBSPL(TIME, 0, 3, 2)", 20.0);
    app_expr_error err;
    app_expr* e = app_expr_compile("AKISPL(DX(11,21,21), DZ(11,21,21), 3)", &s_names, &err);
    cr_assert(e != NULL);
    cr_expect(app_expr_is_constant(e) == false);
    app_expr_destroy(e);
    e = app_expr_compile("2*PI + SQRT(4)", &s_names, &err);
    cr_assert(e != NULL);
    cr_expect(app_expr_is_constant(e));
    app_expr_destroy(e);
}

static void expect_compile_error(const char* text, int offset, const char* part)
{
    app_expr_error err;
    memset(&err, 0, sizeof err);
    app_expr* e = app_expr_compile(text, &s_names, &err);
    cr_expect(e == NULL, "'%s' compiled", text);
    app_expr_destroy(e);
    cr_expect(err.offset == offset, "'%s': offset %d, want %d (%s)", text, err.offset, offset, err.message);
    cr_expect(strstr(err.message, part) != NULL, "'%s': message '%s' lacks '%s'", text, err.message, part);
}

Test(expr, compile_errors_name_the_offset)
{
    expect_compile_error("1 + * 2", 4, "expected a number");
    expect_compile_error("SIN(1", 5, "')'");
    expect_compile_error("FOO(1)", 0, "unknown name 'FOO'");
    expect_compile_error("2 * DX(99)", 7, "MARKER/99 is not defined");
    expect_compile_error("DX(0)", 3, "I marker cannot be 0");
    expect_compile_error("DX(11, 21, 31, 11)", 15, "at most 3");
    expect_compile_error("DX(11.5)", 3, "integer");
    expect_compile_error("VARVAL(7)", 7, "VARIABLE/7 is not defined");
    expect_compile_error("AKISPL(1, 0, 4)", 13, "SPLINE/4 is not defined");
    expect_compile_error("AKISPL(1, 0, 3, 3)", 16, "not 0, 1 or 2");
    expect_compile_error("MIN(1)", 5, "takes 2 arguments");
    expect_compile_error("MAX(1, 2, 3)", 8, "takes 2 arguments");
    expect_compile_error("1 2", 2, "expected an operator");
    expect_compile_error("", 0, "empty expression");
    expect_compile_error("1 # 2", 2, "'#'");
    expect_compile_error("2x", 0, "'2x'");
    // 64 pending left operands fit the evaluator's stack; the 65th "1" (at offset 3 * 64) does not.
    char deep[400] = "";
    for (int i = 0; i < 70; ++i)
    {
        strcat(deep, "1+(");
    }
    strcat(deep, "1");
    for (int i = 0; i < 70; ++i)
    {
        strcat(deep, ")");
    }
    expect_compile_error(deep, 192, "nested too deeply");
    // Parentheses alone do not hold values, but nesting is bounded too (the compiler recurses).
    char parens[1200] = "";
    for (int i = 0; i < 500; ++i)
    {
        strcat(parens, "(");
    }
    expect_compile_error(parens, 256, "nested too deeply");
}

static void expect_fault(const char* text, double t, int offset, const char* part)
{
    app_expr_error err;
    app_expr* e = app_expr_compile(text, &s_names, &err);
    cr_assert(e != NULL, "'%s': %s", text, err.message);
    app_expr_env env = env_at(t);
    double v = 0.0;
    app_expr_fault f;
    memset(&f, 0, sizeof f);
    cr_expect(app_expr_eval(e, &env, &v, &f) == false, "'%s' evaluated to %g", text, v);
    cr_expect(f.offset == offset, "'%s': offset %d, want %d", text, f.offset, offset);
    cr_expect(f.what != NULL && strstr(f.what, part) != NULL, "'%s': '%s' lacks '%s'", text, f.what, part);
    app_expr_destroy(e);
}

Test(expr, domain_errors_stop_with_the_operation)
{
    expect_fault("1/(TIME-1)", 1.0, 1, "division by zero");
    expect_fault("2 + SQRT(TIME-1)", 0.5, 4, "SQRT of a negative");
    expect_fault("LOG(TIME)", 0.0, 0, "LOG");
    expect_fault("ASIN(TIME)", 1.5, 0, "ASIN");
    expect_fault("ACOS(-TIME)", 1.5, 0, "ACOS");
    expect_fault("ATAN2(TIME, 0)", 0.0, 0, "ATAN2(0, 0)");
    expect_fault("MOD(1, TIME)", 0.0, 0, "MOD");
    expect_fault("TIME**-1", 0.0, 4, "zero raised");
    expect_fault("(TIME-1)**0.5", 0.0, 8, "negative number raised");
    expect_fault("STEP(TIME, 1, 0, 1, 1)", 0.0, 0, "x0 not less than x1");
    expect_fault("IMPACT(0, 0, 1, -1, 1.5, 0, 0.1)", 0.0, 0, "k >= 0");
    expect_fault("VARVAL(6)", 0.0, 0, "depends on itself");
    expect_fault("EXP(1000*(TIME+1))", 0.0, 0, "not finite");
    // Still fine where the domain holds (the same compiled expression, another time).
    cr_expect(eval_at("1/(TIME-1)", 3.0) == 0.5);
}
