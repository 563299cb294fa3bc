// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native STL reader: binary (decided by size 84 + 50 n) and strict ASCII (line numbers in errors, CRLF, polygons).
#include "mesh/soup.h"
#include "mesh/text.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool host_is_little_endian(void)
{
    uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static float read_f32_le(const unsigned char* p, bool swap)
{
    unsigned char q[4];
    if (swap)
    {
        q[0] = p[3], q[1] = p[2], q[2] = p[1], q[3] = p[0];
    }
    else
    {
        memcpy(q, p, 4);
    }
    float f;
    memcpy(&f, q, 4);
    return f;
}

static mc_status read_binary(const char* path, const unsigned char* data, uint64_t size, uint32_t n, mc_soup* soup,
                             mc_error* err)
{
    if (n == 0)
    {
        return mc_set_error(err, MC_ERR_EMPTY_MESH, -1, 80, "%s: binary STL with 0 triangles", path);
    }
    if (n > (UINT32_MAX - 3) / 3)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, 80, "%s: binary STL with %u triangles: too many", path, n);
    }
    (void)size;
    mc_status st = mc_soup_reserve(soup, 3ull * n, n, err);
    if (st != MC_OK)
    {
        return st;
    }
    bool swap = !host_is_little_endian();
    double* pos = soup->positions + 3 * (size_t)soup->vertex_count;
    uint32_t* idx = soup->indices + 3 * (size_t)soup->triangle_count;
    uint32_t base = soup->vertex_count;
    const unsigned char* p = data + 84;
    uint32_t step = n / 16 + 1;
    for (uint32_t t = 0; t < n; ++t, p += 50)
    {
        for (int k = 0; k < 9; ++k)
        {
            float f = read_f32_le(p + 12 + 4 * k, swap);
            if (!isfinite(f))
            {
                return mc_set_error(err, MC_ERR_NON_FINITE, -1, (int64_t)(p + 12 + 4 * k - data),
                                    "%s: byte offset %lld: triangle %u has a non-finite coordinate", path,
                                    (long long)(p + 12 + 4 * k - data), t);
            }
            pos[9 * (size_t)t + k] = (double)f;
        }
        idx[3 * (size_t)t] = base + 3 * t;
        idx[3 * (size_t)t + 1] = base + 3 * t + 1;
        idx[3 * (size_t)t + 2] = base + 3 * t + 2;
        if (soup->progress != NULL && t % step == 0)
        {
            soup->progress(0.5 * t / n, soup->progress_user);
        }
    }
    soup->vertex_count += 3 * n;
    soup->triangle_count += n;
    return MC_OK;
}

// ----------------------------------------------------------------------------------------------------------------
// ASCII

/// ASCII STL reader state.
typedef struct ascii_reader
{
    mc_text_reader text;    ///< cursor and errors (the buffer is mc_stl_read's)
    double* loop;           ///< points of the current facet loop, 3 coordinates each
    uint32_t loop_capacity; ///< points allocated in loop
    uint64_t last_report;   ///< bytes read at the last progress call
} ascii_reader;

static bool next_line(ascii_reader* r)
{
    return mc_text_next_line(&r->text.text, 0);
}

static const char* next_token(ascii_reader* r, size_t* len)
{
    return mc_text_token_span(&r->text.text, len);
}

static bool token_is(const char* tok, size_t len, const char* word)
{
    return tok != NULL && len == strlen(word) && strncasecmp(tok, word, len) == 0;
}

static mc_status parse_error(ascii_reader* r, const char* what)
{
    return mc_text_error(&r->text, MC_ERR_PARSE, "%s", what);
}

// Expect the current line to be exactly the given keywords.
static bool line_is(ascii_reader* r, const char* w1, const char* w2)
{
    size_t len;
    const char* t = next_token(r, &len);
    if (!token_is(t, len, w1))
    {
        return false;
    }
    if (w2 != NULL)
    {
        t = next_token(r, &len);
        if (!token_is(t, len, w2))
        {
            return false;
        }
    }
    return next_token(r, &len) == NULL;
}

// Move to the next line, which must be exactly the given keywords.
static mc_status expect_line(ascii_reader* r, const char* w1, const char* w2, const char* at_end, const char* otherwise)
{
    if (!next_line(r))
    {
        return parse_error(r, at_end);
    }
    if (!line_is(r, w1, w2))
    {
        return parse_error(r, otherwise);
    }
    return MC_OK;
}

// Parse exactly three numbers to the end of the line.
static mc_status parse_three(ascii_reader* r, double* out, bool check_finite, const char* what)
{
    for (int k = 0; k < 3; ++k)
    {
        size_t len;
        const char* t = next_token(r, &len);
        if (t == NULL)
        {
            return parse_error(r, what);
        }
        char buf[128];
        if (len >= sizeof buf)
        {
            return parse_error(r, "number too long");
        }
        memcpy(buf, t, len);
        buf[len] = '\0';
        double v;
        if (!mc_text_f64(buf, &v))
        {
            return mc_text_error(&r->text, MC_ERR_PARSE, "'%s' is not a number", buf);
        }
        if (check_finite && !isfinite(v))
        {
            return mc_text_error(&r->text, MC_ERR_NON_FINITE, "non-finite coordinate '%s'", buf);
        }
        out[k] = v;
    }
    size_t len;
    if (next_token(r, &len) != NULL)
    {
        return parse_error(r, "extra text after three numbers");
    }
    return MC_OK;
}

// The "vertex x y z" lines of a loop up to "endloop"; *count gets the number of points.
static mc_status read_loop(ascii_reader* r, uint32_t* count)
{
    uint32_t k = 0;
    for (;;)
    {
        if (!next_line(r))
        {
            return parse_error(r, "unexpected end of file: expected 'vertex' or 'endloop'");
        }
        const char* save = r->text.text.cur;
        size_t len;
        const char* t = next_token(r, &len);
        if (token_is(t, len, "endloop"))
        {
            *count = k;
            return next_token(r, &len) != NULL ? parse_error(r, "extra text after 'endloop'") : MC_OK;
        }
        if (!token_is(t, len, "vertex"))
        {
            r->text.text.cur = save;
            return parse_error(r, "expected 'vertex' or 'endloop'");
        }
        if (k >= (1u << 24))
        {
            return parse_error(r, "facet with more than 16M vertices");
        }
        if (!mc_array_reserve((void**)&r->loop, &r->loop_capacity, (uint64_t)k + 1, 3 * sizeof(double), 8))
        {
            return mc_text_out_of_memory(&r->text);
        }
        mc_status st = parse_three(r, r->loop + 3 * (size_t)k, true, "expected three coordinates after 'vertex'");
        if (st != MC_OK)
        {
            return st;
        }
        ++k;
    }
}

// Append the loop's k points and its fan of k - 2 triangles.
static mc_status add_loop(ascii_reader* r, uint32_t k, mc_soup* soup)
{
    mc_status st = mc_soup_reserve(soup, k, k - 2, r->text.err);
    if (st != MC_OK)
    {
        return st;
    }
    uint32_t base = soup->vertex_count;
    memcpy(soup->positions + 3 * (size_t)base, r->loop, (size_t)k * 3 * sizeof(double));
    soup->vertex_count += k;
    for (uint32_t i = 1; i + 1 < k; ++i)
    {
        uint32_t* x = soup->indices + 3 * (size_t)soup->triangle_count++;
        x[0] = base, x[1] = base + i, x[2] = base + i + 1;
    }
    if (k > 3)
    {
        soup->split_polygons++;
    }
    uint64_t done_bytes = (uint64_t)(r->text.text.p - r->text.data);
    if (soup->progress != NULL && done_bytes - r->last_report > r->text.size / 16)
    {
        r->last_report = done_bytes;
        soup->progress(0.5 * (double)done_bytes / (double)r->text.size, soup->progress_user);
    }
    return MC_OK;
}

// One facet after its "facet" keyword: "normal n n n", "outer loop", the loop, "endfacet".
static mc_status read_facet(ascii_reader* r, mc_soup* soup)
{
    size_t len;
    const char* t = next_token(r, &len);
    if (!token_is(t, len, "normal"))
    {
        return parse_error(r, "expected 'normal' after 'facet'");
    }
    double nrm[3];
    mc_status st = parse_three(r, nrm, false, "expected three numbers after 'facet normal'");
    if (st == MC_OK)
    {
        st = expect_line(r, "outer", "loop", "unexpected end of file: expected 'outer loop'", "expected 'outer loop'");
    }
    uint32_t k = 0;
    if (st == MC_OK)
    {
        st = read_loop(r, &k);
    }
    if (st == MC_OK && k < 3)
    {
        st = parse_error(r, "facet loop with fewer than 3 vertices");
    }
    if (st == MC_OK)
    {
        st = expect_line(r, "endfacet", NULL, "unexpected end of file: expected 'endfacet'", "expected 'endfacet'");
    }
    return st == MC_OK ? add_loop(r, k, soup) : st;
}

// The facets of one solid, up to its "endsolid" (a name may follow).
static mc_status read_solid(ascii_reader* r, mc_soup* soup)
{
    for (;;)
    {
        if (!next_line(r))
        {
            return parse_error(r, "unexpected end of file: expected 'facet normal' or 'endsolid'");
        }
        size_t len;
        const char* t = next_token(r, &len);
        if (token_is(t, len, "endsolid"))
        {
            return MC_OK;
        }
        if (!token_is(t, len, "facet"))
        {
            return parse_error(r, "expected 'facet normal' or 'endsolid'");
        }
        mc_status st = read_facet(r, soup);
        if (st != MC_OK)
        {
            return st;
        }
    }
}

static mc_status read_ascii(const char* path, char* data, uint64_t size, mc_soup* soup, mc_error* err)
{
    ascii_reader r = {.loop = NULL, .loop_capacity = 0, .last_report = 0};
    mc_text_reader_start(&r.text, path, data, size, err);
    uint32_t solids = 0;
    // Control bytes in what starts as an ASCII STL are an error with their place; a file that does not start with
    // "solid" keeps the message below (neither ASCII nor binary STL).
    const char* head = r.text.text.p;
    while (head < r.text.text.end && (*head == ' ' || *head == '\t' || *head == '\r' || *head == '\n'))
    {
        ++head;
    }
    bool solid = r.text.text.end - head >= 5 && memcmp(head, "solid", 5) == 0;
    mc_status st = solid ? mc_text_reader_check(&r.text) : MC_OK;
    while (st == MC_OK && next_line(&r))
    {
        size_t len;
        const char* t = next_token(&r, &len);
        if (!token_is(t, len, "solid"))
        {
            st = parse_error(&r, solids == 0 ? "expected 'solid' (not an ASCII STL; the size does not match a binary "
                                               "STL either)"
                                             : "expected 'solid' or end of file after 'endsolid'");
            break;
        }
        ++solids;
        st = read_solid(&r, soup);
    }
    if (st == MC_OK && solids == 0)
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: no 'solid' found (blank file)", path);
    }
    else if (st == MC_OK && soup->triangle_count == 0)
    {
        st = mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1, "%s: ASCII STL without any facet", path);
    }
    mc_free(r.loop);
    return st;
}

// ----------------------------------------------------------------------------------------------------------------

static bool starts_with_solid(const unsigned char* data, uint64_t size)
{
    uint64_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
    {
        ++i;
    }
    return size - i >= 5 && strncasecmp((const char*)data + i, "solid", 5) == 0;
}

mc_status mc_stl_read(const char* path, mc_soup* soup, mc_error* err)
{
    char* text = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, soup->max_bytes, &text, &size, err);
    if (st != MC_OK)
    {
        return st;
    }
    unsigned char* data = (unsigned char*)text;
    uint32_t n = 0; // the header's triangle count
    if (size >= 84)
    {
        n = (uint32_t)data[80] | (uint32_t)data[81] << 8 | (uint32_t)data[82] << 16 | (uint32_t)data[83] << 24;
    }
    uint64_t binary_size = 84 + 50 * (uint64_t)n; // what a binary file with that count holds
    bool binary = size >= 84 && size == binary_size;
    bool ascii_start = starts_with_solid(data, size < 84 ? (size_t)size : 84);
    // A binary STL with bytes after its last triangle (some exporters pad or append): read as binary when the file is
    // not ASCII, with the extra bytes reported; a file that starts with "solid" is tried as ASCII first.
    uint64_t tail = n > 0 && size > binary_size ? size - binary_size : 0;
    if (!binary && !ascii_start && tail > 0)
    {
        binary = true;
        soup->trailing_bytes = tail;
    }
    if (!binary && !ascii_start)
    {
        if (size < 84)
        {
            st = mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)size,
                              "%s: %llu bytes: too short for a binary STL (84-byte header) and not ASCII (no 'solid')",
                              path, (unsigned long long)size);
        }
        else
        {
            st = mc_set_error(err, MC_ERR_PARSE, -1, 80,
                              "%s: binary STL header says %u triangles (%llu bytes) but the file has %llu bytes", path,
                              n, (unsigned long long)binary_size, (unsigned long long)size);
        }
    }
    else if (binary)
    {
        st = read_binary(path, data, size, n, soup, err);
    }
    else
    {
        st = read_ascii(path, text, size, soup, err);
        if (st == MC_ERR_PARSE && tail > 0)
        {
            // "solid" was the start of a binary header: the triangles the header counts, and the tail reported.
            soup->vertex_count = soup->triangle_count = soup->split_polygons = 0;
            soup->trailing_bytes = tail;
            st = read_binary(path, data, size, n, soup, err);
        }
        else if (st == MC_ERR_PARSE && size >= 84 && err != NULL)
        {
            size_t l = strlen(err->message);
            snprintf(err->message + l, sizeof err->message - l,
                     " (as a binary STL: header says %u triangles = %llu bytes, file has %llu)", n,
                     (unsigned long long)binary_size, (unsigned long long)size);
        }
    }
    mc_free(text);
    return st;
}
