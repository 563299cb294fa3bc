// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// What the native text readers (OBJ, OFF, ASCII STL, SHL) share: opening a file, errors with line numbers, the
// polygon buffer, points.
#include "mesh/text.h"

#include "mesh/soup.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void mc_text_reader_start(mc_text_reader* r, const char* path, char* data, uint64_t size, mc_error* err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->data = data;
    r->size = size;
    // No pointer arithmetic on NULL (a failed read hands over no data): undefined behaviour even with size 0.
    r->text = (mc_text){data, data != NULL ? data + size : NULL, 0, NULL, NULL};
    // A UTF-8 byte order mark (some Windows editors write one) is not part of the first line.
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
    {
        r->text.p = data + 3;
    }
}

mc_status mc_text_reader_check(mc_text_reader* r)
{
    const unsigned char* d = (const unsigned char*)r->data;
    int64_t line = 1;
    uint64_t line_start = 0;
    for (uint64_t i = 0; i < r->size; ++i)
    {
        unsigned char c = d[i];
        if (c >= 0x20 || c == '\t' || c == '\r')
        {
            continue;
        }
        if (c == '\n')
        {
            ++line;
            line_start = i + 1;
            continue;
        }
        if (c == '\f' || c == '\v')
        {
            continue; // blanks of old editors: harmless inside a comment, a token error elsewhere
        }
        char what[40];
        if (c == 0)
        {
            snprintf(what, sizeof what, "a NUL byte");
        }
        else
        {
            snprintf(what, sizeof what, "the control byte 0x%02X", (unsigned)c);
        }
        return mc_set_error(r->err, MC_ERR_PARSE, line, (int64_t)i,
                            "%s: line %lld, column %llu: %s (a text file holds none; a damaged or binary file?)",
                            r->path, (long long)line, (unsigned long long)(i - line_start + 1), what);
    }
    return MC_OK;
}

mc_status mc_text_reader_open(mc_text_reader* r, const char* path, uint64_t max_bytes, mc_error* err)
{
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, max_bytes, &data, &size, err);
    mc_text_reader_start(r, path, data, size, err);
    return st == MC_OK ? mc_text_reader_check(r) : st;
}

void mc_text_reader_close(mc_text_reader* r)
{
    mc_free(r->polygon);
    mc_free(r->data);
    r->polygon = NULL;
    r->data = NULL;
    r->polygon_capacity = 0;
}

mc_status mc_text_error(const mc_text_reader* r, mc_status st, const char* fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mc_set_error(r->err, st, r->text.line, -1, "%s: line %lld: %s", r->path, (long long)r->text.line, what);
}

mc_status mc_text_out_of_memory(const mc_text_reader* r)
{
    return mc_set_error(r->err, MC_ERR_OUT_OF_MEMORY, r->text.line, -1, "%s: line %lld: out of memory (%s)", r->path,
                        (long long)r->text.line, strerror(ENOMEM));
}

mc_status mc_text_polygon_reserve(mc_text_reader* r, uint64_t count)
{
    if (!mc_array_reserve((void**)&r->polygon, &r->polygon_capacity, count, sizeof(uint32_t), 16))
    {
        return mc_text_out_of_memory(r);
    }
    return MC_OK;
}

double mc_text_fraction_read(const mc_text_reader* r)
{
    return (double)(r->text.p - r->data) / (double)r->size;
}

mc_status mc_text_read_point(mc_text_reader* r, double x[3], const char* too_few, const char* not_number_before,
                             const char* not_number_after)
{
    char tok[128];
    for (int k = 0; k < 3; ++k)
    {
        if (!mc_text_token(&r->text, tok, sizeof tok))
        {
            return mc_text_error(r, MC_ERR_PARSE, "%s", too_few);
        }
        if (!mc_text_f64(tok, &x[k]))
        {
            return mc_text_error(r, MC_ERR_PARSE, "%s'%s'%s", not_number_before, tok, not_number_after);
        }
        if (!isfinite(x[k]))
        {
            return mc_text_error(r, MC_ERR_NON_FINITE, "non-finite coordinate '%s'", tok);
        }
    }
    return MC_OK;
}
