// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The one option parser of the command-line tool: every subcommand describes its options in a cli_syntax table and
// cli_parse_args reads argv with getopt_long, with the same messages for every subcommand.
#include "src/app/cli.h"

#include <getopt.h>
#include <string.h>

/// Options per subcommand, --help included.
#define MAX_OPTIONS 32
/// getopt_long's return value for long option k (above every short option character).
#define LONG_BASE 256

bool cli_positive(double v)
{
    return v > 0.0;
}

static bool takes_value(const cli_option* o)
{
    return o->kind != CLI_FLAG;
}

// Parse and store one option's value; false when it is not valid.
static bool store_value(const cli_option* o, const char* text)
{
    switch (o->kind)
    {
    case CLI_FLAG:
        *(bool*)o->value = true;
        return true;
    case CLI_TEXT:
        *(const char**)o->value = text;
        return true;
    case CLI_NUMBER:
        return cli_parse_double(text, (double*)o->value) && (o->accept == NULL || o->accept(*(double*)o->value));
    case CLI_NUMBERS:
        return cli_parse_doubles(text, (double*)o->value, o->count);
    case CLI_COUNT:
        return cli_parse_int(text, (int*)o->value);
    case CLI_POSE:
        return cli_parse_pose(text, (mc_pose*)o->value);
    }
    return false;
}

// The option as typed: "--name" or "-c", without an attached "=value".
static int typed_length(const char* text)
{
    const char* eq = strchr(text, '=');
    return eq != NULL ? (int)(eq - text) : (int)strlen(text);
}

// getopt_long accepts unambiguous abbreviations ("--stiff" for "--stiffness"); the tool wants names spelled out, so
// that adding an option never changes what an existing command line means.
static bool spelled_out(const char* text, const char* name)
{
    size_t n = strlen(name);
    return strncmp(text, "--", 2) == 0 && strncmp(text + 2, name, n) == 0 &&
           (text[2 + n] == '\0' || text[2 + n] == '=');
}

// The argv element holding the option getopt_long just returned (its value may be the next element).
static const char* option_text(char** argv, const char* value)
{
    return (value != NULL && value == argv[optind - 1]) ? argv[optind - 2] : argv[optind - 1];
}

// How messages name an option: "--name", or "-c" when it has no long name.
static const char* option_label(const cli_option* o, char buf[4])
{
    if (o->name != NULL)
    {
        return o->name;
    }
    buf[0] = o->short_name;
    buf[1] = '\0';
    return buf;
}

static int bad_value(const cli_syntax* syn, const cli_option* o, const char* value)
{
    char buf[4];
    return cli_usage_error(syn->command, "-%s%s needs %s, got '%s'", o->name != NULL ? "-" : "", option_label(o, buf),
                           o->needs, value);
}

static int missing_value(const cli_syntax* syn, const cli_option* o)
{
    char buf[4];
    return cli_usage_error(syn->command, "-%s%s needs %s", o->name != NULL ? "-" : "", option_label(o, buf), o->needs);
}

static int unknown_option(const cli_syntax* syn, const char* text)
{
    return cli_usage_error(syn->command, "unknown option '%.*s'", typed_length(text), text);
}

// The option whose getopt_long value is c, or NULL.
static const cli_option* find_option(const cli_syntax* syn, int c)
{
    if (c >= LONG_BASE && c < LONG_BASE + syn->option_count)
    {
        return &syn->options[c - LONG_BASE];
    }
    for (int k = 0; c > 0 && c < LONG_BASE && k < syn->option_count; ++k)
    {
        if (syn->options[k].short_name == c)
        {
            return &syn->options[k];
        }
    }
    return NULL;
}

// getopt_long's tables for a syntax: optstring "-:h" plus the short options ('-': operands come back in order as 1;
// ':': a missing value comes back as ':').
static void build_tables(const cli_syntax* syn, struct option* longs, char* shorts)
{
    int n = 0, s = 0;
    shorts[s++] = '-';
    shorts[s++] = ':';
    shorts[s++] = 'h';
    for (int k = 0; k < syn->option_count; ++k)
    {
        const cli_option* o = &syn->options[k];
        if (o->name != NULL)
        {
            longs[n++] =
                (struct option){o->name, takes_value(o) ? required_argument : no_argument, NULL, LONG_BASE + k};
        }
        if (o->short_name != 0)
        {
            shorts[s++] = o->short_name;
            if (takes_value(o))
            {
                shorts[s++] = ':';
            }
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[n] = (struct option){NULL, 0, NULL, 0};
    shorts[s] = '\0';
}

// A usage error for what getopt_long could not match: '?' (unknown option, or a value given to a flag) or ':'.
static int getopt_error(const cli_syntax* syn, int c, char** argv)
{
    const cli_option* o = find_option(syn, optopt);
    if (c == ':' && o != NULL)
    {
        return missing_value(syn, o);
    }
    if (o != NULL && o->name != NULL)
    {
        return cli_usage_error(syn->command, "--%s takes no value", o->name);
    }
    if (optopt == 'h')
    {
        return cli_usage_error(syn->command, "--help takes no value");
    }
    if (optopt != 0)
    {
        return cli_usage_error(syn->command, "unknown option '-%c'", optopt);
    }
    return unknown_option(syn, argv[optind - 1]);
}

static int add_operand(const cli_syntax* syn, int* count, const char* text)
{
    if (*count == syn->operand_count)
    {
        return cli_usage_error(syn->command, "unexpected argument '%s'", text);
    }
    syn->operands[(*count)++] = text;
    return CLI_CONTINUE;
}

int cli_parse_args(const cli_syntax* syn, int argc, char** argv)
{
    struct option longs[MAX_OPTIONS + 1];
    char shorts[2 * MAX_OPTIONS + 4];
    if (syn->option_count >= MAX_OPTIONS)
    {
        return cli_usage_error(syn->command, "internal error: too many options");
    }
    build_tables(syn, longs, shorts);
    int operands = 0;
    opterr = 0;
    optind = 0; // glibc: start over (each subcommand parses its own argv)
    for (int c; (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1;)
    {
        int rc = CLI_CONTINUE;
        const cli_option* o = find_option(syn, c);
        if (c == 1)
        {
            rc = add_operand(syn, &operands, optarg);
        }
        else if (c == 'h' && option_text(argv, NULL)[1] == '-' && !spelled_out(option_text(argv, NULL), "help"))
        {
            rc = unknown_option(syn, option_text(argv, NULL));
        }
        else if (c == 'h')
        {
            syn->help(stdout);
            rc = 0;
        }
        else if (o == NULL)
        {
            rc = getopt_error(syn, c, argv);
        }
        else if (c >= LONG_BASE && !spelled_out(option_text(argv, optarg), o->name))
        {
            rc = unknown_option(syn, option_text(argv, optarg));
        }
        else if (!store_value(o, optarg))
        {
            rc = bad_value(syn, o, optarg);
        }
        else if (o->seen != NULL)
        {
            *o->seen = true;
        }
        if (rc != CLI_CONTINUE)
        {
            return rc;
        }
    }
    for (int i = optind; i < argc; ++i) // after "--"
    {
        int rc = add_operand(syn, &operands, argv[i]);
        if (rc != CLI_CONTINUE)
        {
            return rc;
        }
    }
    if (operands < syn->operand_count)
    {
        return cli_usage_error(syn->command, "missing %s", syn->operand_names[operands]);
    }
    return CLI_CONTINUE;
}
