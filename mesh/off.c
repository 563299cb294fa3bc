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

static mc_status off_error(const char* path, const mc_text* t, mc_status st, const char* what, mc_error* err)
{
    return mc_set_error(err, st, t->line, -1, "%s: line %lld: %s", path, (long long)t->line, what);
}

mc_status mc_off_read(const char* path, mc_soup* soup, mc_error* err)
{
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, &data, &size, err);
    if (st != MC_OK)
    {
        return st;
    }
    mc_text t = {data, data + size, 0, NULL, NULL};
    char tok[128];
    char msg[256];
    uint32_t* poly = NULL;
    uint32_t poly_cap = 0;
    if (!mc_text_next_line(&t, '#') || !mc_text_token(&t, tok, sizeof tok))
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, 0, "%s: blank file", path);
        goto done;
    }
    size_t tl = strlen(tok);
    if (tl < 3 || strcmp(tok + tl - 3, "OFF") != 0 || strspn(tok, "CN") != tl - 3)
    {
        snprintf(msg, sizeof msg, "expected 'OFF' (or COFF, NOFF, CNOFF), found '%s'", tok);
        st = off_error(path, &t, MC_ERR_PARSE, msg, err);
        goto done;
    }
    bool extras = tl > 3; // colours / normals follow the coordinates
    // Counts may follow on the same line.
    int64_t counts[3] = {0, 0, 0};
    int got = 0;
    while (got < 3)
    {
        if (!mc_text_token(&t, tok, sizeof tok))
        {
            if (got == 0 && mc_text_next_line(&t, '#'))
            {
                continue;
            }
            if (got == 2)
            {
                break; // the edge count may be missing
            }
            st = off_error(path, &t, MC_ERR_PARSE, "expected the counts: vertices faces edges", err);
            goto done;
        }
        if (!mc_text_i64(tok, &counts[got]) || counts[got] < 0)
        {
            snprintf(msg, sizeof msg, "'%s' is not a valid count", tok);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        ++got;
    }
    if (mc_text_token(&t, tok, sizeof tok))
    {
        snprintf(msg, sizeof msg, "extra text '%s' after the counts", tok);
        st = off_error(path, &t, MC_ERR_PARSE, msg, err);
        goto done;
    }
    int64_t nv = counts[0], nf = counts[1];
    if (nv == 0 || nf == 0)
    {
        st = off_error(path, &t, MC_ERR_EMPTY_MESH, "no vertices or no faces", err);
        goto done;
    }
    if (nv > (int64_t)UINT32_MAX - 1 || nf > (int64_t)(UINT32_MAX - 3) / 3)
    {
        st = off_error(path, &t, MC_ERR_PARSE, "counts too large", err);
        goto done;
    }
    for (int64_t i = 0; i < nv; ++i)
    {
        if (!mc_text_next_line(&t, '#'))
        {
            snprintf(msg, sizeof msg, "unexpected end of file: the header promises %lld vertices, found %lld",
                     (long long)nv, (long long)i);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        double x[3];
        for (int k = 0; k < 3; ++k)
        {
            if (!mc_text_token(&t, tok, sizeof tok))
            {
                st = off_error(path, &t, MC_ERR_PARSE, "vertex line with fewer than 3 coordinates", err);
                goto done;
            }
            if (!mc_text_f64(tok, &x[k]))
            {
                snprintf(msg, sizeof msg, "'%s' is not a number", tok);
                st = off_error(path, &t, MC_ERR_PARSE, msg, err);
                goto done;
            }
            if (!isfinite(x[k]))
            {
                snprintf(msg, sizeof msg, "non-finite coordinate '%s'", tok);
                st = off_error(path, &t, MC_ERR_NON_FINITE, msg, err);
                goto done;
            }
        }
        if (!extras && mc_text_token(&t, tok, sizeof tok))
        {
            snprintf(msg, sizeof msg,
                     "vertex line with more than 3 numbers ('%s'): fewer vertices than the header says?", tok);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        st = mc_soup_reserve(soup, 1, 0, err);
        if (st != MC_OK)
        {
            goto done;
        }
        memcpy(soup->positions + 3 * (size_t)soup->vertex_count++, x, sizeof x);
    }
    for (int64_t i = 0; i < nf; ++i)
    {
        if (!mc_text_next_line(&t, '#'))
        {
            snprintf(msg, sizeof msg, "unexpected end of file: the header promises %lld faces, found %lld",
                     (long long)nf, (long long)i);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        int64_t k = 0;
        if (!mc_text_token(&t, tok, sizeof tok) || !mc_text_i64(tok, &k))
        {
            snprintf(msg, sizeof msg, "face line must start with its vertex count, found '%s'", tok);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        if (k < 3 || k > (1 << 24))
        {
            snprintf(msg, sizeof msg, "face with %lld vertices (3 or more expected)", (long long)k);
            st = off_error(path, &t, MC_ERR_PARSE, msg, err);
            goto done;
        }
        if ((uint64_t)k > poly_cap)
        {
            uint32_t* np = mc_realloc(poly, (size_t)k * sizeof(uint32_t));
            if (np == NULL)
            {
                st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, t.line, -1, "%s: out of memory", path);
                goto done;
            }
            poly = np;
            poly_cap = (uint32_t)k;
        }
        for (int64_t j = 0; j < k; ++j)
        {
            int64_t v = 0;
            if (!mc_text_token(&t, tok, sizeof tok))
            {
                snprintf(msg, sizeof msg, "face says %lld vertices but lists %lld", (long long)k, (long long)j);
                st = off_error(path, &t, MC_ERR_PARSE, msg, err);
                goto done;
            }
            if (!mc_text_i64(tok, &v))
            {
                snprintf(msg, sizeof msg, "'%s' is not a vertex index", tok);
                st = off_error(path, &t, MC_ERR_PARSE, msg, err);
                goto done;
            }
            if (v < 0 || v >= nv)
            {
                snprintf(msg, sizeof msg, "vertex index %lld out of range 0..%lld", (long long)v, (long long)(nv - 1));
                st = off_error(path, &t, MC_ERR_INDEX_OUT_OF_RANGE, msg, err);
                goto done;
            }
            poly[j] = (uint32_t)v;
        }
        // A face colour may follow: numbers only.
        while (mc_text_token(&t, tok, sizeof tok))
        {
            double c;
            if (!mc_text_f64(tok, &c))
            {
                snprintf(msg, sizeof msg, "'%s' after the face indices is not a colour value", tok);
                st = off_error(path, &t, MC_ERR_PARSE, msg, err);
                goto done;
            }
        }
        st = mc_soup_add_polygon(soup, poly, (uint32_t)k, err);
        if (st != MC_OK)
        {
            goto done;
        }
    }
    if (mc_text_next_line(&t, '#'))
    {
        snprintf(msg, sizeof msg, "extra content after the %lld faces the header announces", (long long)nf);
        st = off_error(path, &t, MC_ERR_PARSE, msg, err);
        goto done;
    }
done:
    mc_free(poly);
    mc_free(data);
    return st;
}
