// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Unit tests of the sweep's text helpers (src/app/cli_sweep_run.c): CSV splitting and quoting, and the shortest
// round-trip formatting of doubles that makes a sweep's output bytes a function of the values alone.
#include "src/app/cli_sweep.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

Test(sweep, csv_split_trims_blanks_and_unquotes)
{
    char line[] = " 1.5 ,\t\"a, \"\"b\"\"\" , ,x";
    char* f[8];
    int n = sweep_csv_split(line, f, 8);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(f[0], "1.5");
    cr_assert_str_eq(f[1], "a, \"b\"");
    cr_assert_str_eq(f[2], "");
    cr_assert_str_eq(f[3], "x");
}

Test(sweep, csv_split_counts_one_field_past_the_maximum_and_refuses_bad_quotes)
{
    char line[] = "1,2,3,4";
    char* f[2];
    cr_assert_eq(sweep_csv_split(line, f, 2), 3);
    char open[] = "1,\"2";
    cr_assert_eq(sweep_csv_split(open, f, 2), -1);
    char trailing[] = "\"2\"x,3";
    cr_assert_eq(sweep_csv_split(trailing, f, 2), -1);
    char empty[] = "";
    cr_assert_eq(sweep_csv_split(empty, f, 2), 1);
    cr_assert_str_eq(f[0], "");
}

Test(sweep, csv_string_quotes_only_when_needed_and_stays_on_one_line)
{
    sweep_text t = {0};
    cr_assert(sweep_text_csv_string(&t, "plain text"));
    cr_assert(sweep_text_append(&t, ",", 1));
    cr_assert(sweep_text_csv_string(&t, "y_j is 'x', \"bad\"\nnext"));
    cr_assert_str_eq(t.data, "plain text,\"y_j is 'x', \"\"bad\"\" next\"");
    // Split back: the same two fields.
    char* f[4];
    cr_assert_eq(sweep_csv_split(t.data, f, 4), 2);
    cr_assert_str_eq(f[1], "y_j is 'x', \"bad\" next");
    sweep_text_free(&t);
    cr_assert_null(t.data);
}

Test(sweep, doubles_are_printed_with_the_fewest_digits_that_read_back)
{
    char buf[40];
    sweep_format_double(buf, sizeof buf, 0.3);
    cr_assert_str_eq(buf, "0.3");
    sweep_format_double(buf, sizeof buf, 0.1 + 0.2);
    cr_assert_str_eq(buf, "0.30000000000000004");
    sweep_format_double(buf, sizeof buf, -0.0);
    cr_assert_str_eq(buf, "-0");
    sweep_format_double(buf, sizeof buf, NAN);
    cr_assert_str_eq(buf, "");
    sweep_format_double(buf, sizeof buf, -INFINITY);
    cr_assert_str_eq(buf, "");
    // Random bit patterns (finite ones): every one reads back exactly, with at most 17 digits.
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int k = 0; k < 100000; ++k)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
        {
            continue;
        }
        sweep_format_double(buf, sizeof buf, v);
        cr_assert_eq(strtod(buf, NULL), v, "%s", buf);
        cr_assert_leq(strlen(buf), 24u);
    }
}

Test(sweep, text_grows_past_its_first_block)
{
    sweep_text t = {0};
    for (int k = 0; k < 1000; ++k)
    {
        cr_assert(sweep_text_printf(&t, "%04d,", k));
    }
    cr_assert_eq(t.length, 5000u);
    cr_assert_eq(strncmp(t.data + 4995, "0999,", 5), 0);
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_assert(sweep_text_printf(&t, "%s", big));
    cr_assert_eq(t.length, 5000u + 599u);
    sweep_text_free(&t);
}
