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

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct shl_reader
{
    const char* path;
    mc_text t; // line/token cursor
    mc_error* err;
} shl_reader;

__attribute__((format(printf, 3, 4))) static mc_status shl_error(shl_reader* r, mc_status st, const char* fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mc_set_error(r->err, st, r->t.line, -1, "%s: line %lld: %s", r->path, (long long)r->t.line, what);
}

mc_status mc_shl_read(const char* path, mc_soup* soup, mc_error* err)
{
    FILE* f = fopen(path, "rb");
    if (f == NULL)
    {
        return mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot open: %s", path, strerror(errno));
    }
    mc_status st = MC_OK;
    char* data = NULL;
    uint32_t* poly = NULL;
    uint32_t poly_cap = 0;
    off_t fsize = -1;
    if (fseeko(f, 0, SEEK_END) != 0 || (fsize = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0)
    {
        st = mc_set_error(err, MC_ERR_IO, -1, -1, "%s: cannot determine the size: %s", path, strerror(errno));
        goto done;
    }
    uint64_t size = (uint64_t)fsize;
    if (size == 0)
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: empty file", path);
        goto done;
    }
    data = mc_alloc((size_t)size + 1);
    if (data == NULL)
    {
        st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", path);
        goto done;
    }
    if (fread(data, 1, (size_t)size, f) != (size_t)size)
    {
        st = mc_set_error(err, MC_ERR_IO, -1, -1, "%s: read error", path);
        goto done;
    }
    data[size] = '\0';
    shl_reader r = {path, {data, data + size, 0, NULL, NULL}, err};
    char tok[128];
    if (!mc_text_next_line(&r.t, 0))
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: blank file", path);
        goto done;
    }
    // Optional "Version: 2".
    int version = 1;
    {
        const char* save = r.t.cur;
        if (mc_text_token(&r.t, tok, sizeof tok) && strncasecmp(tok, "version", 7) == 0)
        {
            const char* rest = tok + 7;
            char num[128];
            if (*rest == ':' && rest[1] != '\0')
            {
                snprintf(num, sizeof num, "%s", rest + 1);
            }
            else if ((*rest == ':' && rest[1] == '\0') || *rest == '\0')
            {
                if (!mc_text_token(&r.t, num, sizeof num))
                {
                    st = shl_error(&r, MC_ERR_PARSE, "'Version:' without a number");
                    goto done;
                }
                if (*rest == '\0' && num[0] == ':')
                {
                    memmove(num, num + 1, strlen(num));
                    if (num[0] == '\0' && !mc_text_token(&r.t, num, sizeof num))
                    {
                        st = shl_error(&r, MC_ERR_PARSE, "'Version:' without a number");
                        goto done;
                    }
                }
            }
            else
            {
                st = shl_error(&r, MC_ERR_PARSE, "unexpected '%s' in the first line", tok);
                goto done;
            }
            uint64_t v = 0;
            if (!mc_text_u64(num, &v) || v != 2 || mc_text_token(&r.t, tok, sizeof tok))
            {
                st = shl_error(&r, MC_ERR_PARSE, "unsupported shell file version '%s' (1 or 2 expected)", num);
                goto done;
            }
            version = 2;
            if (!mc_text_next_line(&r.t, 0))
            {
                st = shl_error(&r, MC_ERR_PARSE, "unexpected end of file: expected the header");
                goto done;
            }
        }
        else
        {
            r.t.cur = save;
        }
    }
    // Header.
    uint64_t n_points = 0, n_faces = 0;
    double scale = 1.0;
    {
        int want = version == 2 ? 4 : 3;
        const char* names[4] = {"point count", "face count", "scale", "normal count"};
        for (int i = 0; i < want; ++i)
        {
            if (!mc_text_token(&r.t, tok, sizeof tok))
            {
                st = shl_error(&r, MC_ERR_PARSE, "header: missing the %s", names[i]);
                goto done;
            }
            bool ok = true;
            if (i == 0)
            {
                ok = mc_text_u64(tok, &n_points);
            }
            else if (i == 1)
            {
                ok = mc_text_u64(tok, &n_faces);
            }
            else if (i == 2)
            {
                ok = mc_text_f64(tok, &scale) && isfinite(scale) && scale > 0.0;
            }
            else
            {
                uint64_t nn;
                ok = mc_text_u64(tok, &nn);
            }
            if (!ok)
            {
                st = shl_error(&r, MC_ERR_PARSE, "header: '%s' is not a valid %s", tok, names[i]);
                goto done;
            }
        }
        if (mc_text_token(&r.t, tok, sizeof tok))
        {
            st = shl_error(&r, MC_ERR_PARSE,
                           version == 2 ? "header: extra text '%s' (expected: n_points n_faces scale n_normals)"
                                        : "header: extra text '%s' (expected: n_points n_faces scale)",
                           tok);
            goto done;
        }
    }
    if (n_points == 0 || n_faces == 0)
    {
        st = shl_error(&r, MC_ERR_EMPTY_MESH, "header: no points or no faces");
        goto done;
    }
    if (n_points > UINT32_MAX - 1 || n_faces > (UINT32_MAX - 3) / 3)
    {
        st = shl_error(&r, MC_ERR_PARSE, "header: counts too large");
        goto done;
    }
    soup->file_scale = scale;
    // Points (storage grows with what is really in the file, never with what the header claims).
    for (uint64_t i = 0; i < n_points; ++i)
    {
        if (!mc_text_next_line(&r.t, 0))
        {
            st = shl_error(&r, MC_ERR_PARSE, "unexpected end of file: the header promises %llu points, found %llu",
                           (unsigned long long)n_points, (unsigned long long)i);
            goto done;
        }
        double x[3];
        for (int k = 0; k < 3; ++k)
        {
            if (!mc_text_token(&r.t, tok, sizeof tok))
            {
                st = shl_error(&r, MC_ERR_PARSE, "point line with fewer than 3 coordinates");
                goto done;
            }
            if (!mc_text_f64(tok, &x[k]))
            {
                st = shl_error(&r, MC_ERR_PARSE, "'%s' is not a number", tok);
                goto done;
            }
            if (!isfinite(x[k]))
            {
                st = shl_error(&r, MC_ERR_NON_FINITE, "non-finite coordinate '%s'", tok);
                goto done;
            }
        }
        if (mc_text_token(&r.t, tok, sizeof tok))
        {
            st = shl_error(&r, MC_ERR_PARSE,
                           "point line with more than 3 numbers ('%s'): fewer points than the header says?", tok);
            goto done;
        }
        st = mc_soup_reserve(soup, 1, 0, err);
        if (st != MC_OK)
        {
            goto done;
        }
        memcpy(soup->positions + 3 * (size_t)soup->vertex_count++, x, sizeof x);
        if (soup->progress != NULL && (i & 0xfffff) == 0)
        {
            soup->progress(0.5 * (double)(r.t.p - data) / (double)size, soup->progress_user);
        }
    }
    // Faces.
    for (uint64_t i = 0; i < n_faces; ++i)
    {
        if (!mc_text_next_line(&r.t, 0))
        {
            st = shl_error(&r, MC_ERR_PARSE, "unexpected end of file: the header promises %llu faces, found %llu",
                           (unsigned long long)n_faces, (unsigned long long)i);
            goto done;
        }
        uint64_t k = 0;
        if (!mc_text_token(&r.t, tok, sizeof tok) || !mc_text_u64(tok, &k))
        {
            st = shl_error(&r, MC_ERR_PARSE, "face line must start with its vertex count, found '%s'", tok);
            goto done;
        }
        if (k < 3)
        {
            st = shl_error(&r, MC_ERR_PARSE, "face with fewer than 3 vertices ('%s')", tok);
            goto done;
        }
        if (k > (1u << 24))
        {
            st = shl_error(&r, MC_ERR_PARSE, "face with too many vertices ('%s')", tok);
            goto done;
        }
        uint32_t got = 0;
        while (mc_text_token(&r.t, tok, sizeof tok))
        {
            uint64_t v = 0;
            if (!mc_text_u64(tok, &v))
            {
                st = shl_error(&r, MC_ERR_PARSE, "'%s' is not a vertex index", tok);
                goto done;
            }
            if (v < 1 || v > n_points)
            {
                st = shl_error(&r, MC_ERR_INDEX_OUT_OF_RANGE, "vertex index %s out of range 1..%llu", tok,
                               (unsigned long long)n_points);
                goto done;
            }
            if (got == k)
            {
                st = shl_error(&r, MC_ERR_PARSE, "face has more indices than its count says (extra '%s')", tok);
                goto done;
            }
            if (got == poly_cap)
            {
                uint32_t ncap = poly_cap ? 2 * poly_cap : 16;
                uint32_t* np = mc_realloc(poly, (size_t)ncap * sizeof(uint32_t));
                if (np == NULL)
                {
                    st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, r.t.line, -1, "%s: out of memory", path);
                    goto done;
                }
                poly = np;
                poly_cap = ncap;
            }
            poly[got++] = (uint32_t)(v - 1);
        }
        if (got != k)
        {
            st = shl_error(&r, MC_ERR_PARSE, "face says %llu vertices but lists %u", (unsigned long long)k, got);
            goto done;
        }
        st = mc_soup_add_polygon(soup, poly, got, err);
        if (st != MC_OK)
        {
            goto done;
        }
    }
    if (version == 1 && mc_text_next_line(&r.t, 0))
    {
        st = shl_error(&r, MC_ERR_PARSE, "extra content after the %llu faces the header announces",
                       (unsigned long long)n_faces);
        goto done;
    }
done:
    mc_free(poly);
    mc_free(data);
    fclose(f);
    return st;
}
