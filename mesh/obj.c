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

/// OBJ reader state: the text reader and the largest positive vertex index seen (checked at the end, since positive
/// indices may refer to vertices defined later).
typedef struct obj_reader
{
    mc_text_reader text;    ///< file, cursor, polygon buffer, errors
    uint64_t max_index;     ///< largest 1-based positive vertex index seen
    int64_t max_index_line; ///< line where it was seen (-1: none)
} obj_reader;

// Statement "v x y z [w | r g b]": one vertex; the numbers after the third are ignored.
static mc_status obj_vertex(obj_reader* o, mc_soup* soup)
{
    mc_text_reader* r = &o->text;
    double x[3];
    mc_status st = mc_text_read_point(r, x, "vertex with fewer than 3 coordinates", "not a number: ", "");
    if (st != MC_OK)
    {
        return st;
    }
    char tok[128];
    while (mc_text_token(&r->text, tok, sizeof tok))
    {
        double ignored;
        if (!mc_text_f64(tok, &ignored))
        {
            return mc_text_error(r, MC_ERR_PARSE, "not a number: '%s'", tok);
        }
    }
    return mc_soup_add_point(soup, x, r->err);
}

// One vertex reference of an "f" statement (v, v/vt, v//vn or v/vt/vn; negative: relative) as a 0-based index.
static mc_status obj_face_index(obj_reader* o, char* tok, uint32_t vertex_count, uint32_t* index)
{
    mc_text_reader* r = &o->text;
    char* slash = strchr(tok, '/');
    if (slash != NULL)
    {
        *slash = '\0'; // texture / normal indices are not needed
    }
    int64_t v = 0;
    if (!mc_text_i64(tok, &v) || v == 0)
    {
        return mc_text_error(r, MC_ERR_PARSE, "bad vertex index '%s'", tok);
    }
    if (v < 0)
    {
        if ((uint64_t)(-(v + 1)) >= vertex_count)
        {
            return mc_text_error(r, MC_ERR_INDEX_OUT_OF_RANGE,
                                 "relative vertex index %lld before the first of %u vertices", (long long)v,
                                 vertex_count);
        }
        *index = (uint32_t)(vertex_count + (uint64_t)v); // v < 0
        return MC_OK;
    }
    uint64_t idx = (uint64_t)v - 1;
    if (idx >= UINT32_MAX - 1)
    {
        return mc_text_error(r, MC_ERR_INDEX_OUT_OF_RANGE, "vertex index too large '%s'", tok);
    }
    if (idx + 1 > o->max_index)
    {
        o->max_index = idx + 1;
        o->max_index_line = r->text.line;
    }
    *index = (uint32_t)idx;
    return MC_OK;
}

// Statement "f i j k ..." (or "fo"): one polygon, fan-split.
static mc_status obj_face(obj_reader* o, mc_soup* soup)
{
    mc_text_reader* r = &o->text;
    char tok[128];
    uint32_t k = 0;
    while (mc_text_token(&r->text, tok, sizeof tok))
    {
        uint32_t index = 0;
        mc_status st = obj_face_index(o, tok, soup->vertex_count, &index);
        if (st == MC_OK && k >= (1u << 24))
        {
            st = mc_text_error(r, MC_ERR_PARSE, "face with too many vertices");
        }
        if (st == MC_OK)
        {
            st = mc_text_polygon_reserve(r, (uint64_t)k + 1);
        }
        if (st != MC_OK)
        {
            return st;
        }
        r->polygon[k++] = index;
    }
    if (k < 3)
    {
        return mc_text_error(r, MC_ERR_PARSE, "face with fewer than 3 vertices");
    }
    return mc_soup_add_polygon(soup, r->polygon, k, r->err);
}

static mc_status obj_statements(obj_reader* o, mc_soup* soup)
{
    mc_text_reader* r = &o->text;
    char tok[128];
    uint64_t lines_done = 0;
    while (mc_text_next_line(&r->text, '#'))
    {
        if (!mc_text_token(&r->text, tok, sizeof tok))
        {
            continue;
        }
        mc_status st = MC_OK;
        if (strcmp(tok, "v") == 0)
        {
            st = obj_vertex(o, soup);
        }
        else if (strcmp(tok, "f") == 0 || strcmp(tok, "fo") == 0)
        {
            st = obj_face(o, soup);
        }
        // everything else is ignored
        if (st != MC_OK)
        {
            return st;
        }
        if (soup->progress != NULL && (++lines_done & 0xfffff) == 0)
        {
            soup->progress(0.5 * mc_text_fraction_read(r), soup->progress_user);
        }
    }
    if (o->max_index > soup->vertex_count)
    {
        return mc_set_error(r->err, MC_ERR_INDEX_OUT_OF_RANGE, o->max_index_line, -1,
                            "%s: line %lld: vertex index %llu but the file has %u vertices", r->path,
                            (long long)o->max_index_line, (unsigned long long)o->max_index, soup->vertex_count);
    }
    return MC_OK;
}

mc_status mc_obj_read(const char* path, mc_soup* soup, mc_error* err)
{
    obj_reader o = {.max_index = 0, .max_index_line = -1};
    mc_status st = mc_text_reader_open(&o.text, path, soup->max_bytes, err);
    if (st == MC_OK)
    {
        st = obj_statements(&o, soup);
    }
    mc_text_reader_close(&o.text);
    return st;
}
