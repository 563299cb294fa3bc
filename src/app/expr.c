// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Adams function expressions: a recursive-descent compiler to a postfix program and a stack evaluator (expr.h).
// Based on: MSC Adams/Solver function reference (STEP, STEP5, HAVSIN, IMPACT, BISTOP, DX .. WZ, AKISPL, CUBSPL).
#include "src/app/expr.h"

#include "meshcontact/law.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXPR_MAX_STACK 64
#define EXPR_MAX_NESTING 256
#define EXPR_PI 3.14159265358979323846

typedef enum op_code
{
    OP_CONST,
    OP_TIME,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_POW,
    OP_SIN,
    OP_COS,
    OP_TAN,
    OP_ASIN,
    OP_ACOS,
    OP_ATAN,
    OP_SQRT,
    OP_ABS,
    OP_EXP,
    OP_LOG,
    OP_ATAN2,
    OP_MIN,
    OP_MAX,
    OP_SIGN,
    OP_MOD,
    OP_STEP,
    OP_STEP5,
    OP_HAVSIN,
    OP_IMPACT,
    OP_BISTOP,
    OP_MEASURE, // sub = app_expr_measure, ref = markers
    OP_VARVAL,  // ref[0] = variable index
    OP_SPLINE,  // ref[0] = spline index, sub = order, akima
} op_code;

typedef struct expr_op
{
    uint8_t code;
    uint8_t sub;   // measure kind, spline order
    uint8_t akima; // AKISPL (1) or CUBSPL (0)
    int32_t pos;   // offset in the text (for run-time faults)
    double k;      // OP_CONST
    int32_t ref[4];
} expr_op;

struct app_expr
{
    expr_op* ops;
    int count;
    bool constant;
};

typedef enum tok_kind
{
    TOK_END,
    TOK_NUM,
    TOK_NAME,
    TOK_PLUS,
    TOK_MINUS,
    TOK_STAR,
    TOK_SLASH,
    TOK_POW,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_BAD,
} tok_kind;

typedef struct expr_parser
{
    const char* text;
    int pos; // next character
    tok_kind tok;
    int tok_pos;
    int tok_len;
    double num;
    bool num_integer; // the number has no '.' nor exponent
    const app_expr_names* names;
    app_expr_error* err;
    bool failed;
    expr_op* ops;
    int count;
    int cap;
    int depth; // stack depth after the emitted ops
    int max_depth;
    int nesting; // parentheses and calls open (the parser recurses: bounded)
    bool constant;
} expr_parser;

static void perr(expr_parser* p, int offset, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

static void perr(expr_parser* p, int offset, const char* fmt, ...)
{
    if (p->failed)
    {
        return;
    }
    p->failed = true;
    if (p->err != NULL)
    {
        p->err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
    }
}

static void next(expr_parser* p)
{
    const char* s = p->text;
    while (s[p->pos] != '\0' && isspace((unsigned char)s[p->pos]))
    {
        ++p->pos;
    }
    p->tok_pos = p->pos;
    char c = s[p->pos];
    p->tok_len = 1;
    if (c == '\0')
    {
        p->tok = TOK_END;
        p->tok_len = 0;
        return;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[p->pos + 1])))
    {
        // Fortran-style number: digits [. digits] [E|D [sign] digits]
        char buf[64];
        int n = 0;
        int i = p->pos;
        bool integer = true;
        while (isdigit((unsigned char)s[i]))
        {
            buf[n < 62 ? n++ : n] = s[i++];
        }
        if (s[i] == '.')
        {
            integer = false;
            buf[n < 62 ? n++ : n] = s[i++];
            while (isdigit((unsigned char)s[i]))
            {
                buf[n < 62 ? n++ : n] = s[i++];
            }
        }
        if ((s[i] == 'E' || s[i] == 'e' || s[i] == 'D' || s[i] == 'd') &&
            (isdigit((unsigned char)s[i + 1]) ||
             ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2]))))
        {
            integer = false;
            buf[n < 62 ? n++ : n] = 'e';
            ++i;
            if (s[i] == '+' || s[i] == '-')
            {
                buf[n < 62 ? n++ : n] = s[i++];
            }
            while (isdigit((unsigned char)s[i]))
            {
                buf[n < 62 ? n++ : n] = s[i++];
            }
        }
        buf[n] = '\0';
        p->tok_len = i - p->pos;
        p->pos = i;
        if (n >= 62 || isalpha((unsigned char)s[i]) || s[i] == '_' || s[i] == '.')
        {
            p->tok = TOK_BAD;
            p->tok_len = i - p->tok_pos + 1;
            return;
        }
        p->num = strtod(buf, NULL);
        p->num_integer = integer;
        p->tok = TOK_NUM;
        return;
    }
    if (isalpha((unsigned char)c) || c == '_')
    {
        int i = p->pos;
        while (isalnum((unsigned char)s[i]) || s[i] == '_')
        {
            ++i;
        }
        p->tok = TOK_NAME;
        p->tok_len = i - p->pos;
        p->pos = i;
        return;
    }
    ++p->pos;
    switch (c)
    {
    case '+':
        p->tok = TOK_PLUS;
        break;
    case '-':
        p->tok = TOK_MINUS;
        break;
    case '*':
        if (s[p->pos] == '*')
        {
            ++p->pos;
            p->tok = TOK_POW;
            p->tok_len = 2;
        }
        else
        {
            p->tok = TOK_STAR;
        }
        break;
    case '/':
        p->tok = TOK_SLASH;
        break;
    case '(':
        p->tok = TOK_LPAREN;
        break;
    case ')':
        p->tok = TOK_RPAREN;
        break;
    case ',':
        p->tok = TOK_COMMA;
        break;
    default:
        p->tok = TOK_BAD;
        break;
    }
}

/// Append an op that pops `pops` values and pushes one.
static expr_op* emit(expr_parser* p, op_code code, int pos, int pops)
{
    if (p->failed)
    {
        return NULL;
    }
    if (p->count == p->cap)
    {
        int cap = p->cap < 16 ? 16 : 2 * p->cap;
        expr_op* ops = realloc(p->ops, (size_t)cap * sizeof *ops);
        if (ops == NULL)
        {
            perr(p, -1, "out of memory");
            return NULL;
        }
        p->ops = ops;
        p->cap = cap;
    }
    p->depth += 1 - pops;
    if (p->depth > p->max_depth)
    {
        p->max_depth = p->depth;
    }
    if (p->max_depth > EXPR_MAX_STACK)
    {
        perr(p, pos, "expression nested too deeply (more than %d pending values)", EXPR_MAX_STACK);
        return NULL;
    }
    expr_op* op = &p->ops[p->count++];
    memset(op, 0, sizeof *op);
    op->code = (uint8_t)code;
    op->pos = pos;
    for (int i = 0; i < 4; ++i)
    {
        op->ref[i] = -1;
    }
    return op;
}

static const char* tok_text(const expr_parser* p, char* buf, size_t cap)
{
    if (p->tok == TOK_END)
    {
        return "the end of the expression";
    }
    int n = p->tok_len < 24 ? p->tok_len : 24;
    snprintf(buf, cap, "'%.*s'", n, p->text + p->tok_pos);
    return buf;
}

static void expect(expr_parser* p, tok_kind k, const char* what)
{
    if (p->failed)
    {
        return;
    }
    if (p->tok != k)
    {
        char b[40];
        perr(p, p->tok_pos, "expected %s, found %s", what, tok_text(p, b, sizeof b));
        return;
    }
    next(p);
}

static void parse_sum(expr_parser* p);

typedef enum fn_kind
{
    FN_MATH,    // numeric arguments
    FN_MEASURE, // marker ids
    FN_VARVAL,  // one variable id
    FN_SPLINE,  // x, z, id[, order]
} fn_kind;

typedef struct fn_spec
{
    const char* name;
    fn_kind kind;
    int code; // op_code, or the measure kind
    int min_args;
    int max_args;
} fn_spec;

static const fn_spec s_fns[] = {
    {"SIN", FN_MATH, OP_SIN, 1, 1},        {"COS", FN_MATH, OP_COS, 1, 1},
    {"TAN", FN_MATH, OP_TAN, 1, 1},        {"ASIN", FN_MATH, OP_ASIN, 1, 1},
    {"ACOS", FN_MATH, OP_ACOS, 1, 1},      {"ATAN", FN_MATH, OP_ATAN, 1, 1},
    {"SQRT", FN_MATH, OP_SQRT, 1, 1},      {"ABS", FN_MATH, OP_ABS, 1, 1},
    {"EXP", FN_MATH, OP_EXP, 1, 1},        {"LOG", FN_MATH, OP_LOG, 1, 1},
    {"ATAN2", FN_MATH, OP_ATAN2, 2, 2},    {"MIN", FN_MATH, OP_MIN, 2, 2},
    {"MAX", FN_MATH, OP_MAX, 2, 2},        {"SIGN", FN_MATH, OP_SIGN, 2, 2},
    {"MOD", FN_MATH, OP_MOD, 2, 2},        {"STEP", FN_MATH, OP_STEP, 5, 5},
    {"STEP5", FN_MATH, OP_STEP5, 5, 5},    {"HAVSIN", FN_MATH, OP_HAVSIN, 5, 5},
    {"IMPACT", FN_MATH, OP_IMPACT, 7, 7},  {"BISTOP", FN_MATH, OP_BISTOP, 8, 8},
    {"DX", FN_MEASURE, APP_EXPR_DX, 1, 3}, {"DY", FN_MEASURE, APP_EXPR_DY, 1, 3},
    {"DZ", FN_MEASURE, APP_EXPR_DZ, 1, 3}, {"DM", FN_MEASURE, APP_EXPR_DM, 1, 2},
    {"VX", FN_MEASURE, APP_EXPR_VX, 1, 4}, {"VY", FN_MEASURE, APP_EXPR_VY, 1, 4},
    {"VZ", FN_MEASURE, APP_EXPR_VZ, 1, 4}, {"VR", FN_MEASURE, APP_EXPR_VR, 1, 3},
    {"WX", FN_MEASURE, APP_EXPR_WX, 1, 3}, {"WY", FN_MEASURE, APP_EXPR_WY, 1, 3},
    {"WZ", FN_MEASURE, APP_EXPR_WZ, 1, 3}, {"VARVAL", FN_VARVAL, OP_VARVAL, 1, 1},
    {"AKISPL", FN_SPLINE, 1, 3, 4},        {"CUBSPL", FN_SPLINE, 0, 3, 4},
};

static bool name_is(const expr_parser* p, const char* name)
{
    return (int)strlen(name) == p->tok_len && strncasecmp(p->text + p->tok_pos, name, (size_t)p->tok_len) == 0;
}

/// An integer literal argument (an id or an order); returns false after reporting.
static bool int_arg(expr_parser* p, const char* fname, const char* what, int* out)
{
    if (p->failed)
    {
        return false;
    }
    if (p->tok != TOK_NUM || !p->num_integer || p->num > 2147483647.0)
    {
        char b[40];
        perr(p, p->tok_pos, "%s: expected %s (an integer), found %s", fname, what, tok_text(p, b, sizeof b));
        return false;
    }
    *out = (int)p->num;
    next(p);
    return true;
}

static void parse_measure(expr_parser* p, const fn_spec* f, int pos)
{
    int ids[4] = {0, 0, 0, 0};
    int idpos[4] = {0, 0, 0, 0};
    int n = 0;
    static const char* const roles[4] = {"a marker id (I)", "a marker id (J, 0: ground)",
                                         "a marker id (the frame of the components, 0: ground)",
                                         "a marker id (the frame of the derivative, 0: ground)"};
    for (;;)
    {
        if (n == f->max_args)
        {
            char b[40];
            perr(p, p->tok_pos, "%s takes at most %d marker ids, found %s", f->name, f->max_args,
                 tok_text(p, b, sizeof b));
            return;
        }
        idpos[n] = p->tok_pos;
        const char* role = roles[n];
        if (f->code == APP_EXPR_VR && n == 2)
        {
            role = roles[3];
        }
        if (!int_arg(p, f->name, role, &ids[n]))
        {
            return;
        }
        ++n;
        if (p->tok == TOK_COMMA)
        {
            next(p);
            continue;
        }
        break;
    }
    expect(p, TOK_RPAREN, "')' or ','");
    if (p->failed)
    {
        return;
    }
    int ref[4] = {-1, -1, -1, -1};
    for (int i = 0; i < n; ++i)
    {
        if (ids[i] == 0)
        {
            if (i == 0)
            {
                perr(p, idpos[i], "%s: the I marker cannot be 0", f->name);
                return;
            }
            continue;
        }
        int idx = p->names != NULL && p->names->marker != NULL ? p->names->marker(p->names->user, ids[i]) : -1;
        if (idx < 0)
        {
            perr(p, idpos[i], "%s: MARKER/%d is not defined", f->name, ids[i]);
            return;
        }
        int slot = (f->code == APP_EXPR_VR && i == 2) ? 3 : i;
        ref[slot] = idx;
    }
    expr_op* op = emit(p, OP_MEASURE, pos, 0);
    if (op != NULL)
    {
        op->sub = (uint8_t)f->code;
        memcpy(op->ref, ref, sizeof ref);
    }
    p->constant = false;
}

static void parse_call(expr_parser* p, const fn_spec* f, int pos)
{
    next(p); // the name
    expect(p, TOK_LPAREN, "'(' after the function name");
    if (p->failed)
    {
        return;
    }
    if (f->kind == FN_MEASURE)
    {
        parse_measure(p, f, pos);
        return;
    }
    if (f->kind == FN_VARVAL)
    {
        int idpos = p->tok_pos, id = 0;
        if (!int_arg(p, f->name, "a VARIABLE id", &id))
        {
            return;
        }
        expect(p, TOK_RPAREN, "')'");
        int idx = p->names != NULL && p->names->variable != NULL ? p->names->variable(p->names->user, id) : -1;
        if (!p->failed && idx < 0)
        {
            perr(p, idpos, "VARVAL: VARIABLE/%d is not defined", id);
            return;
        }
        expr_op* op = emit(p, OP_VARVAL, pos, 0);
        if (op != NULL)
        {
            op->ref[0] = idx;
        }
        p->constant = false;
        return;
    }
    int nargs = 0;
    for (;;)
    {
        if (f->kind == FN_SPLINE && nargs >= 2)
        {
            break;
        }
        parse_sum(p);
        if (p->failed)
        {
            return;
        }
        ++nargs;
        if (p->tok == TOK_COMMA)
        {
            if (nargs == f->max_args)
            {
                perr(p, p->tok_pos, "%s takes %d arguments, found more", f->name, f->max_args);
                return;
            }
            next(p);
            continue;
        }
        break;
    }
    if (f->kind == FN_SPLINE)
    {
        if (nargs < 2)
        {
            char b[40];
            perr(p, p->tok_pos, "%s(x, z, id[, order]): expected ',', found %s", f->name, tok_text(p, b, sizeof b));
            return;
        }
        int idpos = p->tok_pos, id = 0, order = 0;
        if (!int_arg(p, f->name, "a SPLINE id", &id))
        {
            return;
        }
        if (p->tok == TOK_COMMA)
        {
            next(p);
            int opos = p->tok_pos;
            if (!int_arg(p, f->name, "the order of the derivative (0, 1 or 2)", &order))
            {
                return;
            }
            if (order > 2)
            {
                perr(p, opos, "%s: the order of the derivative is %d, not 0, 1 or 2", f->name, order);
                return;
            }
        }
        expect(p, TOK_RPAREN, "')' or ','");
        int idx = p->names != NULL && p->names->spline != NULL ? p->names->spline(p->names->user, id) : -1;
        if (!p->failed && idx < 0)
        {
            perr(p, idpos, "%s: SPLINE/%d is not defined", f->name, id);
            return;
        }
        expr_op* op = emit(p, OP_SPLINE, pos, 2);
        if (op != NULL)
        {
            op->ref[0] = idx;
            op->sub = (uint8_t)order;
            op->akima = (uint8_t)f->code;
        }
        p->constant = false;
        return;
    }
    if (nargs < f->min_args)
    {
        char b[40];
        perr(p, p->tok_pos, "%s takes %d argument%s, found %d before %s", f->name, f->min_args,
             f->min_args == 1 ? "" : "s", nargs, tok_text(p, b, sizeof b));
        return;
    }
    expect(p, TOK_RPAREN, "')' or ','");
    emit(p, (op_code)f->code, pos, nargs);
}

/// One more level of parentheses or calls (the parser recurses): false, after reporting, past the bound.
static bool enter(expr_parser* p, int pos)
{
    if (++p->nesting > EXPR_MAX_NESTING)
    {
        perr(p, pos, "expression nested too deeply (more than %d parentheses and calls)", EXPR_MAX_NESTING);
        return false;
    }
    return true;
}

static void parse_primary(expr_parser* p)
{
    if (p->failed)
    {
        return;
    }
    int pos = p->tok_pos;
    if (p->tok == TOK_NUM)
    {
        expr_op* op = emit(p, OP_CONST, pos, 0);
        if (op != NULL)
        {
            op->k = p->num;
        }
        next(p);
        return;
    }
    if (p->tok == TOK_LPAREN)
    {
        if (!enter(p, pos))
        {
            return;
        }
        next(p);
        parse_sum(p);
        expect(p, TOK_RPAREN, "')'");
        --p->nesting;
        return;
    }
    if (p->tok == TOK_NAME)
    {
        static const struct
        {
            const char* name;
            double value;
        } consts[] = {{"PI", EXPR_PI}, {"DTOR", EXPR_PI / 180.0}, {"RTOD", 180.0 / EXPR_PI}};
        if (name_is(p, "TIME"))
        {
            emit(p, OP_TIME, pos, 0);
            p->constant = false;
            next(p);
            return;
        }
        for (size_t i = 0; i < sizeof consts / sizeof consts[0]; ++i)
        {
            if (name_is(p, consts[i].name))
            {
                expr_op* op = emit(p, OP_CONST, pos, 0);
                if (op != NULL)
                {
                    op->k = consts[i].value;
                }
                next(p);
                return;
            }
        }
        for (size_t i = 0; i < sizeof s_fns / sizeof s_fns[0]; ++i)
        {
            if (name_is(p, s_fns[i].name))
            {
                if (!enter(p, pos))
                {
                    return;
                }
                parse_call(p, &s_fns[i], pos);
                --p->nesting;
                return;
            }
        }
        perr(p, pos, "unknown name '%.*s' (a function or constant of Adams' expression subset: see simulate.md)",
             p->tok_len < 24 ? p->tok_len : 24, p->text + pos);
        return;
    }
    char b[40];
    perr(p, pos, "expected a number, a name or '(', found %s", tok_text(p, b, sizeof b));
}

/// power: primary ['**' signed_factor] (right-associative; the exponent may carry a sign)
static void parse_factor(expr_parser* p);

static void parse_power(expr_parser* p)
{
    parse_primary(p);
    if (!p->failed && p->tok == TOK_POW)
    {
        int pos = p->tok_pos;
        next(p);
        parse_factor(p);
        emit(p, OP_POW, pos, 2);
    }
}

/// factor: ['+' | '-'] factor | power (so -2**2 = -(2**2), and a*-b is accepted)
static void parse_factor(expr_parser* p)
{
    if (p->failed)
    {
        return;
    }
    if (p->tok == TOK_MINUS || p->tok == TOK_PLUS)
    {
        int pos = p->tok_pos;
        bool neg = p->tok == TOK_MINUS;
        next(p);
        parse_factor(p);
        if (neg)
        {
            emit(p, OP_NEG, pos, 1);
        }
        return;
    }
    parse_power(p);
}

static void parse_product(expr_parser* p)
{
    parse_factor(p);
    while (!p->failed && (p->tok == TOK_STAR || p->tok == TOK_SLASH))
    {
        op_code c = p->tok == TOK_STAR ? OP_MUL : OP_DIV;
        int pos = p->tok_pos;
        next(p);
        parse_factor(p);
        emit(p, c, pos, 2);
    }
}

static void parse_sum(expr_parser* p)
{
    parse_product(p);
    while (!p->failed && (p->tok == TOK_PLUS || p->tok == TOK_MINUS))
    {
        op_code c = p->tok == TOK_PLUS ? OP_ADD : OP_SUB;
        int pos = p->tok_pos;
        next(p);
        parse_product(p);
        emit(p, c, pos, 2);
    }
}

app_expr* app_expr_compile(const char* text, const app_expr_names* names, app_expr_error* err)
{
    expr_parser p;
    memset(&p, 0, sizeof p);
    p.text = text != NULL ? text : "";
    p.names = names;
    p.err = err;
    p.constant = true;
    next(&p);
    if (p.tok == TOK_END)
    {
        perr(&p, p.tok_pos, "empty expression");
    }
    parse_sum(&p);
    if (!p.failed && p.tok != TOK_END)
    {
        char b[40];
        perr(&p, p.tok_pos, "expected an operator or the end of the expression, found %s", tok_text(&p, b, sizeof b));
    }
    app_expr* e = NULL;
    if (!p.failed)
    {
        e = malloc(sizeof *e);
        if (e == NULL)
        {
            perr(&p, -1, "out of memory");
        }
    }
    if (p.failed)
    {
        free(p.ops);
        free(e);
        return NULL;
    }
    e->ops = p.ops;
    e->count = p.count;
    e->constant = p.constant;
    return e;
}

void app_expr_destroy(app_expr* e)
{
    if (e != NULL)
    {
        free(e->ops);
        free(e);
    }
}

bool app_expr_is_constant(const app_expr* e)
{
    return e != NULL && e->constant;
}

static bool fault_at(app_expr_fault* f, const expr_op* op, const char* what, double value)
{
    if (f != NULL)
    {
        f->offset = op->pos;
        f->what = what;
        f->value = value;
    }
    return false;
}

/// Adams STEP family between x0 and x1: 0 cubic, 1 quintic, 2 haversine.
static double step_family(int kind, double x, double x0, double h0, double x1, double h1)
{
    if (x <= x0)
    {
        return h0;
    }
    if (x >= x1)
    {
        return h1;
    }
    double d = (x - x0) / (x1 - x0);
    double a = h1 - h0;
    if (kind == 0)
    {
        return h0 + a * d * d * (3.0 - 2.0 * d);
    }
    if (kind == 1)
    {
        return h0 + a * d * d * d * (10.0 + d * (-15.0 + 6.0 * d));
    }
    return 0.5 * (h0 + h1) + 0.5 * a * sin(EXPR_PI * d - 0.5 * EXPR_PI);
}

bool app_expr_eval(const app_expr* e, const app_expr_env* env, double* out, app_expr_fault* fault)
{
    double st[EXPR_MAX_STACK];
    int sp = 0; // number of values on the stack
    for (int i = 0; i < e->count; ++i)
    {
        const expr_op* op = &e->ops[i];
        double r = 0.0;
        switch ((op_code)op->code)
        {
        case OP_CONST:
            st[sp++] = op->k;
            continue;
        case OP_TIME:
            st[sp++] = env->time;
            continue;
        case OP_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case OP_ADD:
            r = st[sp - 2] + st[sp - 1];
            break;
        case OP_SUB:
            r = st[sp - 2] - st[sp - 1];
            break;
        case OP_MUL:
            r = st[sp - 2] * st[sp - 1];
            break;
        case OP_DIV:
            if (st[sp - 1] == 0.0)
            {
                return fault_at(fault, op, "division by zero", st[sp - 2]);
            }
            r = st[sp - 2] / st[sp - 1];
            break;
        case OP_POW:
        {
            double a = st[sp - 2], b = st[sp - 1];
            if (a == 0.0 && b < 0.0)
            {
                return fault_at(fault, op, "zero raised to a negative power", b);
            }
            if (a < 0.0 && b != floor(b))
            {
                return fault_at(fault, op, "a negative number raised to a non-integer power", a);
            }
            r = pow(a, b);
            break;
        }
        case OP_SIN:
            st[sp - 1] = sin(st[sp - 1]);
            continue;
        case OP_COS:
            st[sp - 1] = cos(st[sp - 1]);
            continue;
        case OP_TAN:
            st[sp - 1] = tan(st[sp - 1]);
            continue;
        case OP_ASIN:
        case OP_ACOS:
        {
            double a = st[sp - 1];
            if (!(a >= -1.0 && a <= 1.0))
            {
                return fault_at(
                    fault, op,
                    op->code == OP_ASIN ? "ASIN of a number outside [-1, 1]" : "ACOS of a number outside [-1, 1]", a);
            }
            st[sp - 1] = op->code == OP_ASIN ? asin(a) : acos(a);
            continue;
        }
        case OP_ATAN:
            st[sp - 1] = atan(st[sp - 1]);
            continue;
        case OP_SQRT:
            if (st[sp - 1] < 0.0)
            {
                return fault_at(fault, op, "SQRT of a negative number", st[sp - 1]);
            }
            st[sp - 1] = sqrt(st[sp - 1]);
            continue;
        case OP_ABS:
            st[sp - 1] = fabs(st[sp - 1]);
            continue;
        case OP_EXP:
            st[sp - 1] = exp(st[sp - 1]);
            continue;
        case OP_LOG:
            if (!(st[sp - 1] > 0.0))
            {
                return fault_at(fault, op, "LOG of a number that is not positive", st[sp - 1]);
            }
            st[sp - 1] = log(st[sp - 1]);
            continue;
        case OP_ATAN2:
            if (st[sp - 2] == 0.0 && st[sp - 1] == 0.0)
            {
                return fault_at(fault, op, "ATAN2(0, 0)", 0.0);
            }
            r = atan2(st[sp - 2], st[sp - 1]);
            break;
        case OP_MIN:
            r = st[sp - 1] < st[sp - 2] ? st[sp - 1] : st[sp - 2];
            break;
        case OP_MAX:
            r = st[sp - 1] > st[sp - 2] ? st[sp - 1] : st[sp - 2];
            break;
        case OP_SIGN:
            r = st[sp - 1] >= 0.0 ? fabs(st[sp - 2]) : -fabs(st[sp - 2]);
            break;
        case OP_MOD:
            if (st[sp - 1] == 0.0)
            {
                return fault_at(fault, op, "MOD with a zero divisor", st[sp - 2]);
            }
            r = fmod(st[sp - 2], st[sp - 1]); // Fortran MOD: a - INT(a / b) b, the sign of a
            break;
        case OP_STEP:
        case OP_STEP5:
        case OP_HAVSIN:
        {
            const double* a = &st[sp - 5];
            if (!(a[1] < a[3]))
            {
                return fault_at(fault, op, "STEP, STEP5 or HAVSIN with x0 not less than x1", a[1]);
            }
            r = step_family(op->code - OP_STEP, a[0], a[1], a[2], a[3], a[4]);
            sp -= 4;
            st[sp - 1] = r;
            continue;
        }
        case OP_IMPACT:
        {
            const double* a = &st[sp - 7];
            if (a[3] < 0.0 || !(a[4] > 0.0) || a[5] < 0.0 || !(a[6] > 0.0))
            {
                return fault_at(fault, op, "IMPACT needs k >= 0, e > 0, cmax >= 0 and d > 0", 0.0);
            }
            r = mc_adams_impact(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
            sp -= 6;
            st[sp - 1] = r;
            continue;
        }
        case OP_BISTOP:
        {
            const double* a = &st[sp - 8];
            if (!(a[2] < a[3]) || a[4] < 0.0 || !(a[5] > 0.0) || a[6] < 0.0 || !(a[7] > 0.0))
            {
                return fault_at(fault, op, "BISTOP needs x1 < x2, k >= 0, e > 0, cmax >= 0 and d > 0", 0.0);
            }
            r = mc_adams_bistop(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
            sp -= 7;
            st[sp - 1] = r;
            continue;
        }
        case OP_MEASURE:
            if (env->measure == NULL)
            {
                return fault_at(fault, op, "a marker measure where only TIME is defined (a MOTION's function)", 0.0);
            }
            st[sp++] = env->measure(env->user, (app_expr_measure)op->sub, op->ref);
            continue;
        case OP_VARVAL:
        {
            const char* why = "cannot be evaluated";
            if (env->variable == NULL || !env->variable(env->user, op->ref[0], &r, &why))
            {
                return fault_at(fault, op, why, 0.0);
            }
            st[sp++] = r;
            continue;
        }
        case OP_SPLINE:
        {
            const char* why = "cannot be evaluated";
            if (env->spline == NULL ||
                !env->spline(env->user, op->ref[0], op->akima != 0, st[sp - 2], st[sp - 1], op->sub, &r, &why))
            {
                return fault_at(fault, op, why, st[sp - 2]);
            }
            --sp;
            st[sp - 1] = r;
            continue;
        }
        }
        // binary operators land here: pop two, push r
        --sp;
        st[sp - 1] = r;
    }
    double v = st[0];
    if (!isfinite(v))
    {
        if (fault != NULL)
        {
            fault->offset = 0;
            fault->what = "the value is not finite (overflow)";
            fault->value = v;
        }
        return false;
    }
    *out = v;
    return true;
}
