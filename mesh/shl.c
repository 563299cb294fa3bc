// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native reader of Adams shell files (.shl): header, points, 1-based polygon faces (fan-split), optional Version 2.
//
// Layout accepted (one record per line, blanks and tabs separate numbers, CRLF and trailing blanks accepted):
//   [Version: 2]                       optional; then the header has a fourth number (count of trailing normals)
//   n_points n_faces scale [n_normals] scale = conversion factor of the coordinates to metres (> 0)
//   x y z                              n_points lines
//   k i1 ... ik                        n_faces lines, k >= 3, 1-based indices
//   ...                                Version 2 only: a trailing block (normals), skipped
#include "mesh/soup.h"
#include "mesh/text.h"
#include "src/base/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/// What the header (and the optional version line) announce.
typedef struct shl_header
{
    int version;       ///< 1, or 2 with "Version: 2" (a trailing block follows the faces)
    uint64_t n_points; ///< points announced
    uint64_t n_faces;  ///< faces announced
    double scale;      ///< conversion of the coordinates to metres
} shl_header;

// The number of a "Version: 2" line into num, after the token `tok` that starts with "version".
static mc_status shl_version_number(mc_text_reader* r, const char* tok, char* num, size_t cap)
{
    const char* rest = tok + 7;
    if (*rest == ':' && rest[1] != '\0')
    {
        snprintf(num, cap, "%s", rest + 1);
        return MC_OK;
    }
    if (!((*rest == ':' && rest[1] == '\0') || *rest == '\0'))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unexpected '%s' in the first line", tok);
    }
    if (!mc_text_token(&r->text, num, cap))
    {
        return mc_text_error(r, MC_ERR_PARSE, "'Version:' without a number");
    }
    if (*rest == '\0' && num[0] == ':')
    {
        memmove(num, num + 1, strlen(num));
        if (num[0] == '\0' && !mc_text_token(&r->text, num, cap))
        {
            return mc_text_error(r, MC_ERR_PARSE, "'Version:' without a number");
        }
    }
    return MC_OK;
}

// Optional first line "Version: 2" (also "Version:2", "Version 2", "Version :2"); the cursor ends on the header line.
static mc_status shl_read_version(mc_text_reader* r, shl_header* h)
{
    char tok[128];
    h->version = 1;
    if (!mc_text_next_line(&r->text, 0))
    {
        return mc_set_error(r->err, MC_ERR_PARSE, -1, 0, "%s: blank file", r->path);
    }
    const char* save = r->text.cur;
    if (!mc_text_token(&r->text, tok, sizeof tok) || strncasecmp(tok, "version", 7) != 0)
    {
        r->text.cur = save;
        return MC_OK;
    }
    char num[128];
    mc_status st = shl_version_number(r, tok, num, sizeof num);
    if (st != MC_OK)
    {
        return st;
    }
    uint64_t v = 0;
    if (!mc_text_u64(num, &v) || v != 2 || mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unsupported shell file version '%s' (1 or 2 expected)", num);
    }
    h->version = 2;
    if (!mc_text_next_line(&r->text, 0))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unexpected end of file: expected the header");
    }
    return MC_OK;
}

// Header "n_points n_faces scale [n_normals]" (n_normals with version 2 only).
static mc_status shl_read_header(mc_text_reader* r, shl_header* h)
{
    char tok[128];
    int want = h->version == 2 ? 4 : 3;
    const char* names[4] = {"point count", "face count", "scale", "normal count"};
    for (int i = 0; i < want; ++i)
    {
        if (!mc_text_token(&r->text, tok, sizeof tok))
        {
            return mc_text_error(r, MC_ERR_PARSE, "header: missing the %s", names[i]);
        }
        uint64_t normal_count;
        bool ok = i == 0   ? mc_text_u64(tok, &h->n_points)
                  : i == 1 ? mc_text_u64(tok, &h->n_faces)
                  : i == 2 ? mc_text_f64(tok, &h->scale) && isfinite(h->scale) && h->scale > 0.0
                           : mc_text_u64(tok, &normal_count);
        if (!ok)
        {
            return mc_text_error(r, MC_ERR_PARSE, "header: '%s' is not a valid %s", tok, names[i]);
        }
    }
    if (mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_text_error(r, MC_ERR_PARSE,
                             h->version == 2 ? "header: extra text '%s' (expected: n_points n_faces scale n_normals)"
                                             : "header: extra text '%s' (expected: n_points n_faces scale)",
                             tok);
    }
    if (h->n_points == 0 || h->n_faces == 0)
    {
        return mc_text_error(r, MC_ERR_EMPTY_MESH, "header: no points or no faces");
    }
    if (h->n_points > UINT32_MAX - 1 || h->n_faces > (UINT32_MAX - 3) / 3)
    {
        return mc_text_error(r, MC_ERR_PARSE, "header: counts too large");
    }
    return MC_OK;
}

// Point i: "x y z" (storage grows with what is really in the file, never with what the header claims).
static mc_status shl_point(mc_text_reader* r, const shl_header* h, uint64_t i, mc_soup* soup)
{
    if (!mc_text_next_line(&r->text, 0))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unexpected end of file: the header promises %llu points, found %llu",
                             (unsigned long long)h->n_points, (unsigned long long)i);
    }
    double x[3];
    mc_status st = mc_text_read_point(r, x, "point line with fewer than 3 coordinates", "", " is not a number");
    if (st != MC_OK)
    {
        return st;
    }
    char tok[128];
    if (mc_text_token(&r->text, tok, sizeof tok))
    {
        return mc_text_error(r, MC_ERR_PARSE,
                             "point line with more than 3 numbers ('%s'): fewer points than the header says?", tok);
    }
    st = mc_soup_add_point(soup, x, r->err);
    if (st == MC_OK && soup->progress != NULL && (i & 0xfffff) == 0)
    {
        soup->progress(0.5 * mc_text_fraction_read(r), soup->progress_user);
    }
    return st;
}

// The vertex count k that starts a face line.
static mc_status shl_face_size(mc_text_reader* r, uint64_t* k)
{
    char tok[128] = ""; // the line is not blank: the count token exists
    if (!mc_text_token(&r->text, tok, sizeof tok) || !mc_text_u64(tok, k))
    {
        return mc_text_error(r, MC_ERR_PARSE, "face line must start with its vertex count, found '%s'", tok);
    }
    if (*k < 3)
    {
        return mc_text_error(r, MC_ERR_PARSE, "face with fewer than 3 vertices ('%s')", tok);
    }
    if (*k > (1u << 24))
    {
        return mc_text_error(r, MC_ERR_PARSE, "face with too many vertices ('%s')", tok);
    }
    return MC_OK;
}

// Face i: "k i1 ... ik" with 1-based indices.
static mc_status shl_face(mc_text_reader* r, const shl_header* h, uint64_t i, mc_soup* soup)
{
    if (!mc_text_next_line(&r->text, 0))
    {
        return mc_text_error(r, MC_ERR_PARSE, "unexpected end of file: the header promises %llu faces, found %llu",
                             (unsigned long long)h->n_faces, (unsigned long long)i);
    }
    uint64_t k = 0;
    mc_status st = shl_face_size(r, &k);
    uint32_t got = 0;
    char tok[128];
    while (st == MC_OK && mc_text_token(&r->text, tok, sizeof tok))
    {
        uint64_t v = 0;
        if (!mc_text_u64(tok, &v))
        {
            return mc_text_error(r, MC_ERR_PARSE, "'%s' is not a vertex index", tok);
        }
        if (v < 1 || v > h->n_points)
        {
            return mc_text_error(r, MC_ERR_INDEX_OUT_OF_RANGE, "vertex index %s out of range 1..%llu", tok,
                                 (unsigned long long)h->n_points);
        }
        if (got == k)
        {
            return mc_text_error(r, MC_ERR_PARSE, "face has more indices than its count says (extra '%s')", tok);
        }
        st = mc_text_polygon_reserve(r, (uint64_t)got + 1);
        if (st == MC_OK)
        {
            r->polygon[got++] = (uint32_t)(v - 1);
        }
    }
    if (st != MC_OK)
    {
        return st;
    }
    if (got != k)
    {
        return mc_text_error(r, MC_ERR_PARSE, "face says %llu vertices but lists %u", (unsigned long long)k, got);
    }
    return mc_soup_add_polygon(soup, r->polygon, got, r->err);
}

static mc_status shl_body(mc_text_reader* r, mc_soup* soup)
{
    shl_header h = {1, 0, 0, 1.0};
    mc_status st = shl_read_version(r, &h);
    if (st == MC_OK)
    {
        st = shl_read_header(r, &h);
    }
    if (st != MC_OK)
    {
        return st;
    }
    soup->file_scale = h.scale;
    for (uint64_t i = 0; i < h.n_points && st == MC_OK; ++i)
    {
        st = shl_point(r, &h, i, soup);
    }
    for (uint64_t i = 0; i < h.n_faces && st == MC_OK; ++i)
    {
        st = shl_face(r, &h, i, soup);
    }
    if (st == MC_OK && h.version == 1 && mc_text_next_line(&r->text, 0))
    {
        st = mc_text_error(r, MC_ERR_PARSE, "extra content after the %llu faces the header announces",
                           (unsigned long long)h.n_faces);
    }
    return st;
}

mc_status mc_shl_read(const char* path, mc_soup* soup, mc_error* err)
{
    mc_text_reader r;
    mc_status st = mc_text_reader_open(&r, path, soup->max_bytes, err);
    if (st == MC_ERR_OUT_OF_MEMORY)
    {
        // This reader has always reported the file buffer's allocation failure without the byte count.
        st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory (%s)", path, strerror(ENOMEM));
    }
    if (st == MC_OK)
    {
        st = shl_body(&r, soup);
    }
    mc_text_reader_close(&r);
    return st;
}
