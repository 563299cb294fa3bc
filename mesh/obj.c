// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native Wavefront OBJ reader in double precision: `v` and `f` statements (v, v/vt, v//vn, v/vt/vn, negative
// relative indices), polygons fan-split; other statements (vt, vn, g, o, s, usemtl, l, p, ...) are ignored.
#include "mesh/soup.h"
#include "mesh/text.h"
#include "src/base/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static mc_status obj_error(const char* path, const mc_text* t, mc_status st, const char* what, const char* tok,
                           mc_error* err)
{
    return mc_set_error(err, st, t->line, -1, "%s: line %lld: %s%s%s%s", path, (long long)t->line, what,
                        tok ? " '" : "", tok ? tok : "", tok ? "'" : "");
}

mc_status mc_obj_read(const char* path, mc_soup* soup, mc_error* err)
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
    uint32_t* poly = NULL;
    uint32_t poly_cap = 0;
    // Positive indices may refer to vertices defined later: checked at the end.
    uint64_t max_index = 0;
    int64_t max_index_line = -1;
    uint64_t lines_done = 0;
    while (mc_text_next_line(&t, '#'))
    {
        if (!mc_text_token(&t, tok, sizeof tok))
        {
            continue;
        }
        if (strcmp(tok, "v") == 0)
        {
            double x[3];
            for (int k = 0; k < 3; ++k)
            {
                if (!mc_text_token(&t, tok, sizeof tok))
                {
                    st = obj_error(path, &t, MC_ERR_PARSE, "vertex with fewer than 3 coordinates", NULL, err);
                    goto done;
                }
                if (!mc_text_f64(tok, &x[k]))
                {
                    st = obj_error(path, &t, MC_ERR_PARSE, "not a number:", tok, err);
                    goto done;
                }
                if (!isfinite(x[k]))
                {
                    st = obj_error(path, &t, MC_ERR_NON_FINITE, "non-finite coordinate", tok, err);
                    goto done;
                }
            }
            // optional w or vertex colour: numbers, ignored
            while (mc_text_token(&t, tok, sizeof tok))
            {
                double ignored;
                if (!mc_text_f64(tok, &ignored))
                {
                    st = obj_error(path, &t, MC_ERR_PARSE, "not a number:", tok, err);
                    goto done;
                }
            }
            st = mc_soup_reserve(soup, 1, 0, err);
            if (st != MC_OK)
            {
                goto done;
            }
            memcpy(soup->positions + 3 * (size_t)soup->vertex_count++, x, sizeof x);
        }
        else if (strcmp(tok, "f") == 0 || strcmp(tok, "fo") == 0)
        {
            uint32_t k = 0;
            while (mc_text_token(&t, tok, sizeof tok))
            {
                char* slash = strchr(tok, '/');
                if (slash != NULL)
                {
                    *slash = '\0'; // texture / normal indices are not needed
                }
                int64_t v = 0;
                if (!mc_text_i64(tok, &v) || v == 0)
                {
                    st = obj_error(path, &t, MC_ERR_PARSE, "bad vertex index", tok, err);
                    goto done;
                }
                uint64_t idx;
                if (v < 0)
                {
                    if ((uint64_t)(-(v + 1)) >= soup->vertex_count)
                    {
                        char msg[160];
                        snprintf(msg, sizeof msg, "relative vertex index %lld before the first of %u vertices",
                                 (long long)v, soup->vertex_count);
                        st = obj_error(path, &t, MC_ERR_INDEX_OUT_OF_RANGE, msg, NULL, err);
                        goto done;
                    }
                    idx = soup->vertex_count + (uint64_t)v; // v < 0
                }
                else
                {
                    idx = (uint64_t)v - 1;
                    if (idx >= UINT32_MAX - 1)
                    {
                        st = obj_error(path, &t, MC_ERR_INDEX_OUT_OF_RANGE, "vertex index too large", tok, err);
                        goto done;
                    }
                    if (idx + 1 > max_index)
                    {
                        max_index = idx + 1;
                        max_index_line = t.line;
                    }
                }
                if (k == poly_cap)
                {
                    uint32_t ncap = poly_cap ? 2 * poly_cap : 16;
                    if (ncap > (1u << 24))
                    {
                        st = obj_error(path, &t, MC_ERR_PARSE, "face with too many vertices", NULL, err);
                        goto done;
                    }
                    uint32_t* np = mc_realloc(poly, (size_t)ncap * sizeof(uint32_t));
                    if (np == NULL)
                    {
                        st = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, t.line, -1, "%s: out of memory", path);
                        goto done;
                    }
                    poly = np;
                    poly_cap = ncap;
                }
                poly[k++] = (uint32_t)idx;
            }
            if (k < 3)
            {
                st = obj_error(path, &t, MC_ERR_PARSE, "face with fewer than 3 vertices", NULL, err);
                goto done;
            }
            st = mc_soup_add_polygon(soup, poly, k, err);
            if (st != MC_OK)
            {
                goto done;
            }
        }
        // everything else is ignored
        if (soup->progress != NULL && (++lines_done & 0xfffff) == 0)
        {
            soup->progress(0.5 * (double)(t.p - data) / (double)size, soup->progress_user);
        }
    }
    if (max_index > soup->vertex_count)
    {
        st = mc_set_error(err, MC_ERR_INDEX_OUT_OF_RANGE, max_index_line, -1,
                          "%s: line %lld: vertex index %llu but the file has %u vertices", path,
                          (long long)max_index_line, (unsigned long long)max_index, soup->vertex_count);
    }
done:
    mc_free(poly);
    mc_free(data);
    return st;
}
