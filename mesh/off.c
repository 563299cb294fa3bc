// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native OFF reader in double precision: header OFF / COFF / NOFF / CNOFF, counts, vertices, 0-based polygon faces
// (fan-split; a trailing face colour is allowed), '#' comments.
#include "mesh/soup.h"
#include "mesh/text.h"
#include "src/base/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// What the OFF header announces.
typedef struct off_header
{
    bool extras;          ///< COFF / NOFF / CNOFF: colours or normals follow the coordinates
    int64_t vertex_count; ///< vertices announced
    int64_t face_count;   ///< faces announced
} off_header;

// Header: the keyword, then the counts "vertices faces [edges]" on the same line or the next one.
static mc_status off_read_header(mc_text_reader* r, off_header* h)
{
    char tok[128];
    if (!mc_text_next_line(&r->text, '#') || !mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_set_error(r->err, MC_ERR_PARSE, -1, 0, "%s: blank file", r->path);
    }
    size_t tl = strlen(tok);
    if (tl < 3 || strcmp(tok + tl - 3, "OFF") != 0 || strspn(tok, "CN") != tl - 3)
    {
        return mc_text_error(r, MC_ERR_PARSE, "expected 'OFF' (or COFF, NOFF, CNOFF), found '%s'", tok);
    }
    h->extras = tl > 3;
    int64_t counts[3] = {0, 0, 0};
    int got = 0;
    while (got < 3)
    {
        if (!mc_text_token(&r->text, tok, sizeof tok))
        {
            if (got == 0 && mc_text_next_line(&r->text, '#'))
            {
                continue;
            }
            if (got == 2)
            {
                break; // the edge count may be missing
            }
            return mc_text_error(r, MC_ERR_PARSE, "expected the counts: vertices faces edges");
        }
        if (!mc_text_i64(tok, &counts[got]) || counts[got] < 0)
        {
            return mc_text_error(r, MC_ERR_PARSE, "'%s' is not a valid count", tok);
        }
        ++got;
    }
    if (mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_text_error(r, MC_ERR_PARSE, "extra text '%s' after the counts", tok);
    }
    h->vertex_count = counts[0];
    h->face_count = counts[1];
    if (h->vertex_count == 0 || h->face_count == 0)
    {
        return mc_text_error(r, MC_ERR_EMPTY_MESH, "no vertices or no faces");
    }
    if (h->vertex_count > (int64_t)UINT32_MAX - 1 || h->face_count > (int64_t)(UINT32_MAX - 3) / 3)
    {
        return mc_text_error(r, MC_ERR_PARSE, "counts too large");
    }
    return MC_OK;
}

// Move to the line of record `i` of the `count` vertices or faces the header announces.
static mc_status off_next_record(mc_text_reader* r, int64_t i, int64_t count, const char* what)
{
    if (!mc_text_next_line(&r->text, '#'))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unexpected end of file: the header promises %lld %s, found %lld",
                             (long long)count, what, (long long)i);
    }
    return MC_OK;
}

// Vertex line "x y z" (more numbers only with COFF / NOFF / CNOFF).
static mc_status off_vertex(mc_text_reader* r, const off_header* h, mc_soup* soup)
{
    double x[3];
    mc_status st = mc_text_read_point(r, x, "vertex line with fewer than 3 coordinates", "", " is not a number");
    if (st != MC_OK)
    {
        return st;
    }
    char tok[128];
    if (!h->extras && mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_text_error(r, MC_ERR_PARSE,
                             "vertex line with more than 3 numbers ('%s'): fewer vertices than the header says?", tok);
    }
    return mc_soup_add_point(soup, x, r->err);
}

// Face line "k i1 ... ik [colour]" with 0-based indices.
static mc_status off_face(mc_text_reader* r, const off_header* h, mc_soup* soup)
{
    char tok[128] = ""; // the line is not blank: the count token exists
    int64_t k = 0;
    if (!mc_text_token(&r->text, tok, sizeof tok) || !mc_text_i64(tok, &k))
    {
        return mc_text_error(r, MC_ERR_PARSE, "face line must start with its vertex count, found '%s'", tok);
    }
    if (k < 3 || k > (1 << 24))
    {
        return mc_text_error(r, MC_ERR_PARSE, "face with %lld vertices (3 or more expected)", (long long)k);
    }
    mc_status st = mc_text_polygon_reserve(r, (uint64_t)k);
    if (st != MC_OK)
    {
        return st;
    }
    for (int64_t j = 0; j < k; ++j)
    {
        int64_t v = 0;
        if (!mc_text_token(&r->text, tok, sizeof tok))
        {
            return mc_text_error(r, MC_ERR_PARSE, "face says %lld vertices but lists %lld", (long long)k, (long long)j);
        }
        if (!mc_text_i64(tok, &v))
        {
            return mc_text_error(r, MC_ERR_PARSE, "'%s' is not a vertex index", tok);
        }
        if (v < 0 || v >= h->vertex_count)
        {
            return mc_text_error(r, MC_ERR_INDEX_OUT_OF_RANGE, "vertex index %lld out of range 0..%lld", (long long)v,
                                 (long long)(h->vertex_count - 1));
        }
        r->polygon[j] = (uint32_t)v;
    }
    // A face colour may follow: numbers only.
    while (mc_text_token(&r->text, tok, sizeof tok))
    {
        double c;
        if (!mc_text_f64(tok, &c))
        {
            return mc_text_error(r, MC_ERR_PARSE, "'%s' after the face indices is not a colour value", tok);
        }
    }
    return mc_soup_add_polygon(soup, r->polygon, (uint32_t)k, r->err);
}

static mc_status off_body(mc_text_reader* r, mc_soup* soup)
{
    off_header h = {false, 0, 0};
    mc_status st = off_read_header(r, &h);
    for (int64_t i = 0; i < h.vertex_count && st == MC_OK; ++i)
    {
        st = off_next_record(r, i, h.vertex_count, "vertices");
        if (st == MC_OK)
        {
            st = off_vertex(r, &h, soup);
        }
    }
    for (int64_t i = 0; i < h.face_count && st == MC_OK; ++i)
    {
        st = off_next_record(r, i, h.face_count, "faces");
        if (st == MC_OK)
        {
            st = off_face(r, &h, soup);
        }
    }
    if (st == MC_OK && mc_text_next_line(&r->text, '#'))
    {
        st = mc_text_error(r, MC_ERR_PARSE, "extra content after the %lld faces the header announces",
                           (long long)h.face_count);
    }
    return st;
}

mc_status mc_off_read(const char* path, mc_soup* soup, mc_error* err)
{
    mc_text_reader r;
    mc_status st = mc_text_reader_open(&r, path, soup->max_bytes, err);
    if (st == MC_OK)
    {
        st = off_body(&r, soup);
    }
    mc_text_reader_close(&r);
    return st;
}
