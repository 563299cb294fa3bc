// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private line/token reader shared by the native text readers (OBJ, OFF, ASCII STL, SHL): blank lines skipped, CRLF and
// trailing blanks accepted, 1-based line numbers for errors.
#pragma once

#include "meshcontact/base.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Cursor over a NUL-terminated text buffer.
typedef struct mc_text
{
    const char* p;   ///< start of the next line
    const char* end; ///< end of the buffer
    int64_t line;    ///< 1-based number of the current line
    const char* cur; ///< cursor in the current line
    const char* eol; ///< end of the current line (trailing blanks and CR removed)
} mc_text;

/// Advance to the next line that is not blank (and, if `comment` is not 0, does not start with it).
static inline bool mc_text_next_line(mc_text* t, char comment)
{
    while (t->p < t->end)
    {
        const char* s = t->p;
        const char* nl = memchr(s, '\n', (size_t)(t->end - s));
        const char* e = nl ? nl : t->end;
        t->p = nl ? nl + 1 : t->end;
        t->line++;
        while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
        {
            --e;
        }
        while (s < e && (*s == ' ' || *s == '\t'))
        {
            ++s;
        }
        if (s < e && (comment == 0 || *s != comment))
        {
            t->cur = s;
            t->eol = e;
            return true;
        }
    }
    return false;
}

/// Next blank-separated token of the current line, without copying: returns its start and sets *len, or returns
/// NULL when the line has no more tokens (the token is not NUL-terminated).
static inline const char* mc_text_token_span(mc_text* t, size_t* len)
{
    const char* s = t->cur;
    while (s < t->eol && (*s == ' ' || *s == '\t'))
    {
        ++s;
    }
    if (s >= t->eol)
    {
        t->cur = s;
        return NULL;
    }
    const char* e = s;
    while (e < t->eol && *e != ' ' && *e != '\t')
    {
        ++e;
    }
    t->cur = e;
    *len = (size_t)(e - s);
    return s;
}

/// Copy the next blank-separated token of the line into buf (NUL-terminated, cut to cap - 1 characters and then
/// marked invalid with a trailing '#'). Returns false when the line has no more tokens.
static inline bool mc_text_token(mc_text* t, char* buf, size_t cap)
{
    size_t len = 0;
    const char* s = mc_text_token_span(t, &len);
    if (s == NULL)
    {
        return false;
    }
    if (len >= cap)
    {
        len = cap - 1;
        memcpy(buf, s, len);
        buf[len - 1] = '#';
    }
    else
    {
        memcpy(buf, s, len);
    }
    buf[len] = '\0';
    return true;
}

/// Parse a whole token as a double (any value, including inf/nan: the caller checks finiteness). Besides C's forms
/// (1.5, 1.5e3, 1.5E+003, .5, 1.) a Fortran exponent letter is read (1.5D+03, 1.5d3: some CAD and FE exporters write
/// it); nothing else may follow the number.
static inline bool mc_text_f64(const char* s, double* out)
{
    char* e = NULL;
    double v = strtod(s, &e);
    if (e != s && (*e == 'D' || *e == 'd') && e - s < 64)
    {
        // Fortran exponent: the mantissa, then the exponent as a C integer (an optional sign and digits only).
        const char* x = e + 1 + (e[1] == '+' || e[1] == '-');
        if (*x < '0' || *x > '9')
        {
            return false;
        }
        char buf[96];
        size_t n = (size_t)(e - s);
        memcpy(buf, s, n);
        buf[n] = 'e';
        size_t tail = strlen(e + 1);
        if (n + 1 + tail >= sizeof buf)
        {
            return false;
        }
        memcpy(buf + n + 1, e + 1, tail + 1);
        v = strtod(buf, &e);
        if (*e != '\0')
        {
            return false;
        }
        *out = v;
        return true;
    }
    if (e == s || *e != '\0')
    {
        return false;
    }
    *out = v;
    return true;
}

/// Parse a whole token as a signed 64-bit integer.
static inline bool mc_text_i64(const char* s, int64_t* out)
{
    char* e = NULL;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (e == s || *e != '\0' || errno == ERANGE)
    {
        return false;
    }
    *out = v;
    return true;
}

/// Parse a whole token as an unsigned 64-bit integer (decimal digits only: no sign, no leading blank).
static inline bool mc_text_u64(const char* s, uint64_t* out)
{
    if (*s < '0' || *s > '9')
    {
        return false;
    }
    char* e = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (*e != '\0' || errno == ERANGE)
    {
        return false;
    }
    *out = v;
    return true;
}

/// A native text reader's state: the whole file, a cursor over it, the polygon being read and where errors go.
typedef struct mc_text_reader
{
    const char* path;          ///< file name: every error message starts with it
    char* data;                ///< the whole file, NUL-terminated (library allocator)
    uint64_t size;             ///< bytes in data, without the NUL
    mc_text text;              ///< line/token cursor over data
    mc_error* err;             ///< where errors go (may be NULL)
    uint32_t* polygon;         ///< vertex indices of the polygon being read (library allocator)
    uint32_t polygon_capacity; ///< entries allocated in polygon
} mc_text_reader;

/// Read the whole file into r (cursor before its first line). On failure r holds nothing to free.
mc_status mc_text_reader_open(mc_text_reader* r, const char* path, uint64_t max_bytes, mc_error* err);
/// Refuse NUL and control bytes (all below 0x20 but tab, line feed, carriage return, form feed and vertical tab):
/// a positioned MC_ERR_PARSE ("<path>: line L, column C: a NUL byte ...", mc_error.line and .offset set), where a
/// token reader would silently stop at a NUL. mc_text_reader_open calls it.
mc_status mc_text_reader_check(mc_text_reader* r);
/// Start a reader over a buffer the caller already holds (a leading UTF-8 byte order mark is skipped);
/// mc_text_reader_close frees it with mc_free.
void mc_text_reader_start(mc_text_reader* r, const char* path, char* data, uint64_t size, mc_error* err);
/// Free the reader's file buffer and polygon.
void mc_text_reader_close(mc_text_reader* r);
/// Error at the current line: "<path>: line <n>: <formatted text>" with status st (the text is cut to 255 chars).
mc_status mc_text_error(const mc_text_reader* r, mc_status st, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/// Out of memory while reading the current line: "<path>: out of memory".
mc_status mc_text_out_of_memory(const mc_text_reader* r);
/// Make room for `count` entries in r->polygon.
mc_status mc_text_polygon_reserve(mc_text_reader* r, uint64_t count);
/// Fraction of the file read so far, in [0, 1].
double mc_text_fraction_read(const mc_text_reader* r);
/// Read three finite coordinates from the current line. Errors: `too_few` when a coordinate is missing,
/// "<not_number_before>'<token>'<not_number_after>" when a token is not a number, "non-finite coordinate '<token>'".
mc_status mc_text_read_point(mc_text_reader* r, double x[3], const char* too_few, const char* not_number_before,
                             const char* not_number_after);
