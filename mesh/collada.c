// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native COLLADA 1.4/1.5 geometry reader (.dae), on the XML pull reader (mesh/xml.c): the <mesh> geometries that the
// scene's visual scene places, through its node tree (<matrix>, <translate>, <rotate>, <scale> composed in document
// order, nested nodes, <instance_geometry>, <instance_node> into <library_nodes>). A mesh's positions are its
// <vertices>' POSITION source (<float_array> through its <accessor>); its <triangles>, <polylist>, <polygons>,
// <tristrips> and <trifans> give the corners through the VERTEX input's offset in the interleaved <p> indices. The
// document's <unit meter> becomes the soup's conversion to metres; <up_axis> is checked and the coordinates are kept
// as written (README). Everything is collected in one pass into tables (ids sorted once and searched by bisection),
// then the scene is placed; every count, offset, stride and index is checked before use.
#include "mesh/soup.h"
#include "mesh/xml.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Most node placements (a node graph shared many times over is a hostile file), deepest <instance_node> chain.
#define DAE_MAX_VISITS (1u << 20)
#define DAE_MAX_DEPTH 256
/// Largest input offset: more interleaved inputs than any exporter writes.
#define DAE_MAX_OFFSET 4095

/// What an element is, from its name and its parent's kind (children of an ignored element are ignored).
typedef enum dae_kind
{
    K_OTHER,
    K_NONE, // above the root
    K_ROOT,
    K_ASSET,
    K_NESTED_ASSET,
    K_UNIT,
    K_NESTED_UNIT,
    K_UP_AXIS,
    K_LIB_GEOM,
    K_GEOMETRY,
    K_GEOM_OTHER,
    K_MESH,
    K_SOURCE,
    K_FLOAT_ARRAY,
    K_TECH,
    K_ACCESSOR,
    K_VERTICES,
    K_VINPUT,
    K_PRIM,
    K_PINPUT,
    K_VCOUNT,
    K_P,
    K_LIB_VS,
    K_VSCENE,
    K_LIB_NODES,
    K_NODE,
    K_XFORM,
    K_INST_GEOM,
    K_INST_NODE,
    K_SCENE,
    K_INST_VS,
    K_BAD,
} dae_kind;

typedef struct dae_child
{
    uint8_t parent;
    const char* name;
    uint8_t kind;
} dae_child;

static const dae_child s_children[] = {
    {K_ROOT, "asset", K_ASSET},
    {K_ROOT, "library_geometries", K_LIB_GEOM},
    {K_ROOT, "library_visual_scenes", K_LIB_VS},
    {K_ROOT, "library_nodes", K_LIB_NODES},
    {K_ROOT, "scene", K_SCENE},
    {K_ASSET, "unit", K_UNIT},
    {K_ASSET, "up_axis", K_UP_AXIS},
    {K_NESTED_ASSET, "unit", K_NESTED_UNIT},
    {K_LIB_GEOM, "geometry", K_GEOMETRY},
    {K_GEOMETRY, "mesh", K_MESH},
    {K_GEOMETRY, "convex_mesh", K_GEOM_OTHER},
    {K_GEOMETRY, "spline", K_GEOM_OTHER},
    {K_GEOMETRY, "brep", K_GEOM_OTHER},
    {K_MESH, "source", K_SOURCE},
    {K_MESH, "vertices", K_VERTICES},
    {K_MESH, "triangles", K_PRIM},
    {K_MESH, "polylist", K_PRIM},
    {K_MESH, "polygons", K_PRIM},
    {K_MESH, "tristrips", K_PRIM},
    {K_MESH, "trifans", K_PRIM},
    {K_MESH, "lines", K_PRIM},
    {K_MESH, "linestrips", K_PRIM},
    {K_SOURCE, "float_array", K_FLOAT_ARRAY},
    {K_SOURCE, "technique_common", K_TECH},
    {K_TECH, "accessor", K_ACCESSOR},
    {K_VERTICES, "input", K_VINPUT},
    {K_PRIM, "input", K_PINPUT},
    {K_PRIM, "vcount", K_VCOUNT},
    {K_PRIM, "p", K_P},
    {K_PRIM, "ph", K_BAD},
    {K_LIB_VS, "visual_scene", K_VSCENE},
    {K_VSCENE, "node", K_NODE},
    {K_LIB_NODES, "node", K_NODE},
    {K_NODE, "node", K_NODE},
    {K_NODE, "matrix", K_XFORM},
    {K_NODE, "translate", K_XFORM},
    {K_NODE, "rotate", K_XFORM},
    {K_NODE, "scale", K_XFORM},
    {K_NODE, "skew", K_BAD},
    {K_NODE, "lookat", K_BAD},
    {K_NODE, "instance_geometry", K_INST_GEOM},
    {K_NODE, "instance_node", K_INST_NODE},
    {K_NODE, "instance_controller", K_BAD},
    {K_SCENE, "instance_visual_scene", K_INST_VS},
};

/// Primitive element names, in the order of their type numbers; the last two (lines) carry no surface.
static const char* const s_prim_names[] = {"triangles", "polylist", "polygons",  "tristrips",
                                           "trifans",   "lines",    "linestrips"};
enum
{
    PRIM_TRIANGLES,
    PRIM_POLYLIST,
    PRIM_POLYGONS,
    PRIM_TRISTRIPS,
    PRIM_TRIFANS,
    PRIM_LINES,
};

/// Kinds of the ids that references resolve to, and their element names for messages.
enum
{
    ID_GEOMETRY,
    ID_SOURCE,
    ID_ARRAY,
    ID_VERTICES,
    ID_NODE,
    ID_SCENE,
};
static const char* const s_id_names[] = {"<geometry>", "<source>", "<float_array>",
                                         "<vertices>", "<node>",   "<visual_scene>"};

/// A reference "#id" (the id's span, without '#') and the byte offset of the element that holds it.
typedef struct dae_ref
{
    const char* s;
    uint32_t n;
    int64_t at;
} dae_ref;

/// An id of an element that references resolve to.
typedef struct dae_id
{
    const char* s;
    uint32_t n;
    uint32_t kind;
    uint32_t index; ///< in the table of its kind
} dae_id;

/// A <float_array>: its values in dae.num.
typedef struct dae_array
{
    uint32_t begin, count;
} dae_array;

/// A <source>'s accessor: `count` elements of `stride` values from `offset` in the array it names.
typedef struct dae_source
{
    dae_ref array;
    uint64_t count, stride, offset;
    bool accessor;
    int64_t at;
} dae_source;

/// A <vertices>: its POSITION input's source.
typedef struct dae_vertices
{
    dae_ref position;
    bool has_position;
    int64_t at;
} dae_vertices;

/// A run of integers (<p> or <vcount> content) in dae.idx.
typedef struct dae_run
{
    uint32_t begin, count;
} dae_run;

/// A primitive element of a mesh: its type, count attribute, inputs and index runs.
typedef struct dae_prim
{
    uint32_t type;
    uint64_t count;
    uint32_t stride;        ///< indices per corner: the largest input offset + 1
    uint32_t vertex_offset; ///< the VERTEX input's offset
    bool has_vertex, has_vcount;
    dae_ref vertex;                ///< the VERTEX input's <vertices>
    uint32_t vcount_run;           ///< the <vcount> run (polylist)
    uint32_t run_begin, run_count; ///< the <p> runs
    int64_t at;
} dae_prim;

/// A <geometry>: its <mesh>'s vertices and primitives, and once built, its points and corners in dae.pos / dae.tri.
typedef struct dae_geometry
{
    dae_ref id;
    int32_t vertices; ///< index of its <vertices>, -1 when none
    uint32_t prim_begin, prim_count;
    bool has_mesh, built;
    dae_ref other; ///< the name of a non-mesh geometry element (<spline>...), n = 0 when none
    uint32_t v_begin, v_count, t_begin, t_count, split;
} dae_geometry;

/// A node (also a visual scene and <library_nodes>, as nodes without transform): its local transform (the product of
/// its transform elements in document order), children and instances as linked lists in document order.
typedef struct dae_node
{
    mc_affine local;
    int32_t parent, first_child, last_child, next, first_inst, last_inst;
    bool on_path; ///< being placed (an <instance_node> back to it is a cycle)
    dae_ref id;
} dae_node;

/// An <instance_geometry> or <instance_node>.
typedef struct dae_inst
{
    dae_ref url;
    bool node;
    int32_t next;
} dae_inst;

typedef struct dae
{
    const char* path;
    mc_soup* soup;
    mc_error* err;
    mc_xml xml;
    double* num; ///< <float_array> values
    uint32_t num_count, num_cap;
    uint32_t* idx; ///< <p> and <vcount> integers
    uint32_t idx_count, idx_cap;
    dae_id* ids;
    uint32_t id_count, id_cap;
    dae_array* arr;
    uint32_t arr_count, arr_cap;
    dae_source* src;
    uint32_t src_count, src_cap;
    dae_vertices* vtx;
    uint32_t vtx_count, vtx_cap;
    dae_run* run;
    uint32_t run_count, run_cap;
    dae_prim* prim;
    uint32_t prim_count, prim_cap;
    dae_geometry* geo;
    uint32_t geo_count, geo_cap;
    dae_node* node;
    uint32_t node_count, node_cap;
    dae_inst* inst;
    uint32_t inst_count, inst_cap;
    double* pos; ///< points of the built geometries
    uint32_t pos_count, pos_cap;
    uint32_t* tri; ///< corners of the built geometries (local to each geometry's points)
    uint32_t tri_count, tri_cap;
    uint8_t kind[MC_XML_MAX_DEPTH + 1]; ///< kind of the open element at each depth
    int32_t cur_node;                   ///< innermost open node, visual scene or library of nodes (-1: none)
    int32_t first_scene;                ///< the first visual scene's node (-1: none)
    dae_ref scene;                      ///< <instance_visual_scene url>, n = 0 when absent
    double unit;                        ///< metres per unit
    uint64_t visits;
} dae;

static mc_status dae_fail(dae* d, mc_status st, int64_t at, const char* fmt, ...) __attribute__((format(printf, 4, 5)));

static mc_status dae_fail(dae* d, mc_status st, int64_t at, const char* fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at < 0)
    {
        return mc_set_error(d->err, st, -1, -1, "%s: COLLADA: %s", d->path, msg);
    }
    return mc_set_error(d->err, st, -1, at, "%s: COLLADA, byte %lld: %s", d->path, (long long)at, msg);
}

static mc_status dae_oom(dae* d)
{
    return mc_set_error(d->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", d->path);
}

// Byte offset of the current element's start tag.
static int64_t here(const dae* d)
{
    return d->xml.attrs != NULL ? (int64_t)(d->xml.attrs - d->xml.start) : mc_xml_offset(&d->xml);
}

// Room for one more item in a table (count, cap, item size). @return false when memory runs out.
static bool grow(void** data, uint32_t* cap, uint32_t count, size_t elem)
{
    return mc_array_reserve(data, cap, (uint64_t)count + 1, elem, 16);
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The next blank-separated token of [*p, end). @return false at the end.
static bool next_token(const char** p, const char* end, const char** tok, size_t* n)
{
    const char* s = *p;
    while (s < end && is_blank(*s))
    {
        ++s;
    }
    const char* e = s;
    while (e < end && !is_blank(*e))
    {
        ++e;
    }
    *tok = s;
    *n = (size_t)(e - s);
    *p = e;
    return e > s;
}

// A finite decimal number (digits, sign, point, exponent; no inf, nan or hex). The token is followed in the buffer by a
// byte that cannot continue a number (a blank, quote or '<'), so strtod stops inside it.
static bool parse_double(const char* s, size_t n, double* out)
{
    for (size_t k = 0; k < n; ++k)
    {
        if (strchr("0123456789+-.eE", s[k]) == NULL || s[k] == '\0')
        {
            return false;
        }
    }
    char* e = NULL;
    *out = strtod(s, &e);
    return n > 0 && e == s + n && isfinite(*out);
}

// A decimal integer in [0, limit].
static bool parse_uint(const char* s, size_t n, uint64_t limit, uint64_t* out)
{
    uint64_t x = 0;
    if (n == 0 || n > 19)
    {
        return false;
    }
    for (size_t k = 0; k < n; ++k)
    {
        if (s[k] < '0' || s[k] > '9')
        {
            return false;
        }
        x = 10 * x + (uint64_t)(s[k] - '0');
    }
    *out = x;
    return x <= limit;
}

// The current element's text as up to `cap` numbers (reading stops with an error past cap). @return the count in *n.
static mc_status text_numbers(dae* d, double* out, uint32_t cap, uint32_t* n)
{
    const char *p = NULL, *tok = NULL;
    size_t len = 0, tn = 0;
    *n = 0;
    if (!mc_xml_text(&d->xml, &p, &len))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "<%.*s> must hold numbers only", (int)d->xml.name_length,
                        d->xml.name);
    }
    for (const char* end = p + len; next_token(&p, end, &tok, &tn);)
    {
        if (*n == cap || !parse_double(tok, tn, &out[*n]))
        {
            return dae_fail(d, MC_ERR_PARSE, here(d), "<%.*s> holds %s", (int)d->xml.name_length, d->xml.name,
                            *n == cap ? "too many numbers" : "a value that is not a finite number");
        }
        ++*n;
    }
    return MC_OK;
}

// Attribute `name` of the current element as an integer in [0, limit]: *out = dflt when absent and not required.
static mc_status attr_uint(dae* d, const char* name, bool required, uint64_t limit, uint64_t dflt, uint64_t* out)
{
    const char* v = NULL;
    size_t n = 0;
    *out = dflt;
    bool has = mc_xml_attr(&d->xml, name, &v, &n);
    if ((!has && !required) || (has && parse_uint(v, n, limit, out)))
    {
        return MC_OK;
    }
    return dae_fail(d, MC_ERR_PARSE, here(d), "<%.*s> without an integer '%s' in [0, %llu]", (int)d->xml.name_length,
                    d->xml.name, name, (unsigned long long)limit);
}

// Attribute `name` (a URI "#id": a fragment of this document) as a reference.
static mc_status attr_ref(dae* d, const char* name, dae_ref* out)
{
    const char* v = NULL;
    size_t n = 0;
    if (!mc_xml_attr(&d->xml, name, &v, &n) || n < 2 || v[0] != '#' || n > UINT32_MAX)
    {
        bool other = n > 0 && memchr(v, '#', n) != NULL && v[0] != '#';
        return dae_fail(d, other ? MC_ERR_UNSUPPORTED_FORMAT : MC_ERR_PARSE, here(d),
                        other ? "<%.*s> %s='%.*s' refers to another document, which is not read"
                              : "<%.*s> without a reference %s=\"#id\"%.*s",
                        (int)d->xml.name_length, d->xml.name, name, other ? (int)(n < 64 ? n : 64) : 0,
                        v != NULL ? v : "");
    }
    *out = (dae_ref){v + 1, (uint32_t)(n - 1), here(d)};
    return MC_OK;
}

// Register the current element's id (when it has one) as `kind` number `index`.
static mc_status add_id(dae* d, uint32_t kind, uint32_t index, dae_ref* keep)
{
    const char* v = NULL;
    size_t n = 0;
    if (!mc_xml_attr(&d->xml, "id", &v, &n) || n == 0 || n > UINT32_MAX)
    {
        return MC_OK;
    }
    if (!grow((void**)&d->ids, &d->id_cap, d->id_count, sizeof(dae_id)))
    {
        return dae_oom(d);
    }
    d->ids[d->id_count++] = (dae_id){v, (uint32_t)n, kind, index};
    if (keep != NULL)
    {
        *keep = (dae_ref){v, (uint32_t)n, here(d)};
    }
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Elements

static mc_status begin_root(dae* d)
{
    const char* v = NULL;
    size_t n = 0;
    if (!mc_xml_is(&d->xml, "COLLADA"))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "the root element is not <COLLADA>");
    }
    if (mc_xml_attr(&d->xml, "version", &v, &n) && !(n >= 3 && (memcmp(v, "1.4", 3) == 0 || memcmp(v, "1.5", 3) == 0)))
    {
        return dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, here(d), "COLLADA version '%.*s' (1.4 and 1.5 are read)",
                        (int)(n < 32 ? n : 32), v);
    }
    return MC_OK;
}

// <unit meter="..."> of the document (nested: of an element, which must agree with the document's).
static mc_status read_unit(dae* d, bool nested)
{
    const char* v = NULL;
    size_t n = 0;
    double m = 1.0;
    if (mc_xml_attr(&d->xml, "meter", &v, &n) && !(parse_double(v, n, &m) && m > 0.0))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "<unit> whose 'meter' is not a positive number");
    }
    if (!nested)
    {
        d->unit = m;
        return MC_OK;
    }
    return m == d->unit ? MC_OK
                        : dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, here(d),
                                   "a <unit> of %g m inside an element's <asset>, the document's is %g m: only the "
                                   "document's unit is read",
                                   m, d->unit);
}

// <up_axis>: X_UP, Y_UP or Z_UP (checked; the coordinates are kept as written).
static mc_status read_up_axis(dae* d)
{
    const char *p = NULL, *tok = NULL, *rest = NULL;
    size_t len = 0, n = 0, rn = 0;
    bool ok = mc_xml_text(&d->xml, &p, &len);
    const char* end = p + len;
    ok = ok && next_token(&p, end, &tok, &n) && n == 4 && !next_token(&p, end, &rest, &rn) &&
         (memcmp(tok, "X_UP", 4) == 0 || memcmp(tok, "Y_UP", 4) == 0 || memcmp(tok, "Z_UP", 4) == 0);
    return ok ? MC_OK : dae_fail(d, MC_ERR_PARSE, here(d), "<up_axis> is not X_UP, Y_UP or Z_UP");
}

static mc_status begin_geometry(dae* d)
{
    if (!grow((void**)&d->geo, &d->geo_cap, d->geo_count, sizeof(dae_geometry)))
    {
        return dae_oom(d);
    }
    dae_geometry* g = &d->geo[d->geo_count];
    memset(g, 0, sizeof *g);
    g->vertices = -1;
    g->id = (dae_ref){"", 0, here(d)};
    return add_id(d, ID_GEOMETRY, d->geo_count++, &g->id);
}

static mc_status begin_source(dae* d)
{
    if (!grow((void**)&d->src, &d->src_cap, d->src_count, sizeof(dae_source)))
    {
        return dae_oom(d);
    }
    memset(&d->src[d->src_count], 0, sizeof(dae_source));
    d->src[d->src_count].at = here(d);
    return add_id(d, ID_SOURCE, d->src_count++, NULL);
}

// <float_array count="n">: n finite numbers.
static mc_status read_float_array(dae* d)
{
    uint64_t count = 0;
    mc_status st = attr_uint(d, "count", true, UINT32_MAX - 1, 0, &count);
    if (st != MC_OK)
    {
        return st;
    }
    // Each value takes at least two bytes of the document: a larger count is a lie, caught before allocating.
    if (count > (uint64_t)(d->xml.end - d->xml.p) / 2 + 1 ||
        !mc_array_reserve((void**)&d->num, &d->num_cap, (uint64_t)d->num_count + count, sizeof(double), 256) ||
        !grow((void**)&d->arr, &d->arr_cap, d->arr_count, sizeof(dae_array)))
    {
        return count > (uint64_t)(d->xml.end - d->xml.p) / 2 + 1
                   ? dae_fail(d, MC_ERR_PARSE, here(d), "<float_array> count %llu is more than the document holds",
                              (unsigned long long)count)
                   : dae_oom(d);
    }
    uint32_t got = 0;
    double none = 0.0; // an empty array has no storage yet (d->num may still be NULL)
    st = text_numbers(d, count > 0 ? d->num + d->num_count : &none, (uint32_t)count, &got);
    if (st == MC_OK && got != count)
    {
        st = dae_fail(d, MC_ERR_PARSE, here(d), "<float_array> has %u values, its count says %llu", got,
                      (unsigned long long)count);
    }
    if (st != MC_OK)
    {
        return st;
    }
    d->arr[d->arr_count] = (dae_array){d->num_count, got};
    d->num_count += got;
    return add_id(d, ID_ARRAY, d->arr_count++, NULL);
}

static mc_status read_accessor(dae* d)
{
    dae_source* s = &d->src[d->src_count - 1];
    s->accessor = true;
    s->at = here(d);
    mc_status st = attr_ref(d, "source", &s->array);
    st = st == MC_OK ? attr_uint(d, "count", true, UINT32_MAX - 1, 0, &s->count) : st;
    st = st == MC_OK ? attr_uint(d, "stride", false, UINT32_MAX, 1, &s->stride) : st;
    return st == MC_OK ? attr_uint(d, "offset", false, UINT32_MAX, 0, &s->offset) : st;
}

static mc_status begin_vertices(dae* d)
{
    dae_geometry* g = &d->geo[d->geo_count - 1];
    if (g->vertices >= 0)
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "a second <vertices> in one <mesh>");
    }
    if (!grow((void**)&d->vtx, &d->vtx_cap, d->vtx_count, sizeof(dae_vertices)))
    {
        return dae_oom(d);
    }
    memset(&d->vtx[d->vtx_count], 0, sizeof(dae_vertices));
    d->vtx[d->vtx_count].at = here(d);
    g->vertices = (int32_t)d->vtx_count;
    return add_id(d, ID_VERTICES, d->vtx_count++, NULL);
}

static bool semantic_is(dae* d, const char* want)
{
    const char* v = NULL;
    size_t n = 0;
    return mc_xml_attr(&d->xml, "semantic", &v, &n) && n == strlen(want) && memcmp(v, want, n) == 0;
}

static mc_status read_vertices_input(dae* d)
{
    dae_vertices* v = &d->vtx[d->vtx_count - 1];
    if (!semantic_is(d, "POSITION"))
    {
        return MC_OK; // normals, colours: not needed
    }
    if (v->has_position)
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "two POSITION inputs in one <vertices>");
    }
    v->has_position = true;
    return attr_ref(d, "source", &v->position);
}

static mc_status begin_prim(dae* d)
{
    dae_geometry* g = &d->geo[d->geo_count - 1];
    if (!grow((void**)&d->prim, &d->prim_cap, d->prim_count, sizeof(dae_prim)))
    {
        return dae_oom(d);
    }
    dae_prim* p = &d->prim[d->prim_count];
    memset(p, 0, sizeof *p);
    p->at = here(d);
    p->run_begin = d->run_count;
    for (uint32_t k = 0; k < sizeof s_prim_names / sizeof s_prim_names[0]; ++k)
    {
        p->type = mc_xml_is(&d->xml, s_prim_names[k]) ? k : p->type;
    }
    if (g->prim_count == 0)
    {
        g->prim_begin = d->prim_count;
    }
    g->prim_count++;
    d->prim_count++;
    return attr_uint(d, "count", true, UINT32_MAX - 1, 0, &p->count);
}

static mc_status read_prim_input(dae* d)
{
    dae_prim* p = &d->prim[d->prim_count - 1];
    uint64_t offset = 0;
    mc_status st = attr_uint(d, "offset", true, DAE_MAX_OFFSET, 0, &offset);
    if (st != MC_OK)
    {
        return st;
    }
    p->stride = p->stride > (uint32_t)offset + 1 ? p->stride : (uint32_t)offset + 1;
    if (!semantic_is(d, "VERTEX"))
    {
        return MC_OK; // normals, texture coordinates: only their offsets matter
    }
    if (p->has_vertex)
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "two VERTEX inputs in one <%s>", s_prim_names[p->type]);
    }
    p->has_vertex = true;
    p->vertex_offset = (uint32_t)offset;
    return attr_ref(d, "source", &p->vertex);
}

// The current element's text as non-negative integers below 2^32, appended to dae.idx as a new run.
static mc_status read_run(dae* d)
{
    const char *p = NULL, *tok = NULL;
    size_t len = 0, n = 0;
    if (!mc_xml_text(&d->xml, &p, &len))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "<%.*s> must hold integers only", (int)d->xml.name_length,
                        d->xml.name);
    }
    if (!grow((void**)&d->run, &d->run_cap, d->run_count, sizeof(dae_run)))
    {
        return dae_oom(d);
    }
    dae_run r = {d->idx_count, 0};
    for (const char* end = p + len; next_token(&p, end, &tok, &n);)
    {
        uint64_t x = 0;
        if (!parse_uint(tok, n, UINT32_MAX - 1, &x))
        {
            return dae_fail(d, MC_ERR_PARSE, here(d), "<%.*s> holds '%.*s', not an index", (int)d->xml.name_length,
                            d->xml.name, (int)(n < 32 ? n : 32), tok);
        }
        if (!mc_array_reserve((void**)&d->idx, &d->idx_cap, (uint64_t)d->idx_count + 1, sizeof(uint32_t), 1024))
        {
            return dae_oom(d);
        }
        d->idx[d->idx_count++] = (uint32_t)x;
        r.count++;
    }
    d->run[d->run_count++] = r;
    return MC_OK;
}

static mc_status read_vcount_or_p(dae* d, bool vcount)
{
    dae_prim* p = &d->prim[d->prim_count - 1];
    if (vcount && (p->has_vcount || p->run_count > 0))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "<vcount> after <p> or twice in one <%s>", s_prim_names[p->type]);
    }
    mc_status st = read_run(d);
    if (st != MC_OK)
    {
        return st;
    }
    if (vcount)
    {
        p->has_vcount = true;
        p->vcount_run = d->run_count - 1;
        p->run_begin = d->run_count;
    }
    else
    {
        p->run_count++;
    }
    return MC_OK;
}

// Append item k to a list kept as its first and last indices; last_next is the link of the last item (NULL: empty).
static void link_last(int32_t* first, int32_t* last, int32_t* last_next, int32_t k)
{
    if (last_next != NULL)
    {
        *last_next = k;
    }
    else
    {
        *first = k;
    }
    *last = k;
}

// A node, visual scene or library of nodes: a child of the innermost open one.
static mc_status begin_node(dae* d, uint32_t id_kind)
{
    if (!grow((void**)&d->node, &d->node_cap, d->node_count, sizeof(dae_node)))
    {
        return dae_oom(d);
    }
    int32_t k = (int32_t)d->node_count++;
    dae_node* n = &d->node[k];
    *n = (dae_node){.local = mc_affine_identity(),
                    .parent = d->cur_node,
                    .first_child = -1,
                    .last_child = -1,
                    .next = -1,
                    .first_inst = -1,
                    .last_inst = -1,
                    .on_path = false,
                    .id = {"", 0, here(d)}};
    if (d->cur_node >= 0)
    {
        dae_node* parent = &d->node[d->cur_node];
        link_last(&parent->first_child, &parent->last_child,
                  parent->last_child >= 0 ? &d->node[parent->last_child].next : NULL, k);
    }
    d->cur_node = k;
    if (id_kind == ID_SCENE && d->first_scene < 0)
    {
        d->first_scene = k;
    }
    return id_kind <= ID_SCENE ? add_id(d, id_kind, (uint32_t)k, &d->node[k].id) : MC_OK;
}

// A rotation by `deg` degrees about a unit axis (exact for multiples of 90 degrees).
static mc_affine rotation(const double a[3], double deg)
{
    double r = fmod(deg, 360.0), c = 0.0, s = 0.0;
    if (fmod(r, 90.0) == 0.0)
    {
        int q = ((int)(r / 90.0) + 4) % 4;
        c = q == 0 ? 1.0 : q == 2 ? -1.0 : 0.0;
        s = q == 1 ? 1.0 : q == 3 ? -1.0 : 0.0;
    }
    else
    {
        c = cos(r * MC_PI / 180.0);
        s = sin(r * MC_PI / 180.0);
    }
    double t = 1.0 - c, x = a[0], y = a[1], z = a[2];
    return (mc_affine){{{t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0.0},
                        {t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0.0},
                        {t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0.0}}};
}

// A transform element of the current node, multiplied on the right of its local transform (document order).
static mc_status read_transform(dae* d)
{
    static const char* const names[] = {"matrix", "translate", "rotate", "scale"};
    static const uint32_t want[] = {16, 3, 4, 3};
    int k = 0;
    while (k < 3 && !mc_xml_is(&d->xml, names[k]))
    {
        ++k;
    }
    double v[16];
    uint32_t n = 0;
    mc_status st = text_numbers(d, v, 16, &n);
    if (st == MC_OK && n != want[k])
    {
        st = dae_fail(d, MC_ERR_PARSE, here(d), "<%s> has %u numbers, %u expected", names[k], n, want[k]);
    }
    if (st != MC_OK)
    {
        return st;
    }
    mc_affine t = mc_affine_identity();
    double len = k == 2 ? sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) : 1.0;
    if (k == 0 && !(v[12] == 0.0 && v[13] == 0.0 && v[14] == 0.0 && v[15] == 1.0))
    {
        return dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, here(d), "<matrix> that is not affine (last row not 0 0 0 1)");
    }
    if (!(len > 0.0) || !isfinite(len))
    {
        return dae_fail(d, MC_ERR_PARSE, here(d), "<rotate> about an axis of length %g", len);
    }
    for (int i = 0; k == 0 && i < 12; ++i)
    {
        t.m[i / 4][i % 4] = v[i];
    }
    for (int i = 0; i < 3; ++i)
    {
        t.m[i][3] = k == 1 ? v[i] : t.m[i][3];
        t.m[i][i] = k == 3 ? v[i] : t.m[i][i];
        v[i] /= len;
    }
    if (k == 2)
    {
        t = rotation(v, v[3]);
    }
    dae_node* node = &d->node[d->cur_node];
    node->local = mc_affine_mul(&node->local, &t);
    return mc_affine_is_finite(&node->local)
               ? MC_OK
               : dae_fail(d, MC_ERR_NON_FINITE, here(d), "the node's transform is not finite");
}

static mc_status add_instance(dae* d, bool node)
{
    if (!grow((void**)&d->inst, &d->inst_cap, d->inst_count, sizeof(dae_inst)))
    {
        return dae_oom(d);
    }
    dae_inst* in = &d->inst[d->inst_count];
    in->node = node;
    in->next = -1;
    mc_status st = attr_ref(d, "url", &in->url);
    if (st != MC_OK)
    {
        return st;
    }
    int32_t k = (int32_t)d->inst_count++;
    dae_node* n = &d->node[d->cur_node];
    link_last(&n->first_inst, &n->last_inst, n->last_inst >= 0 ? &d->inst[n->last_inst].next : NULL, k);
    return MC_OK;
}

// What a child named like the current element of a `parent` element is.
static dae_kind child_kind(const mc_xml* x, dae_kind parent)
{
    if (parent == K_OTHER || parent == K_BAD)
    {
        return K_OTHER;
    }
    if (parent == K_NONE)
    {
        return K_ROOT;
    }
    for (size_t k = 0; k < sizeof s_children / sizeof s_children[0]; ++k)
    {
        if (s_children[k].parent == parent && mc_xml_is(x, s_children[k].name))
        {
            return (dae_kind)s_children[k].kind;
        }
    }
    return mc_xml_is(x, "asset") ? K_NESTED_ASSET : K_OTHER;
}

// The message for an element that is not read.
static mc_status refuse(dae* d)
{
    static const char* const why[][2] = {
        {"ph", "a polygon with holes"},
        {"skew", "a skew transform"},
        {"lookat", "a look-at transform"},
        {"instance_controller", "skinned or morphed geometry"},
    };
    const char* what = "";
    for (size_t k = 0; k < sizeof why / sizeof why[0]; ++k)
    {
        what = mc_xml_is(&d->xml, why[k][0]) ? why[k][1] : what;
    }
    return dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, here(d), "<%.*s> (%s) is not read", (int)d->xml.name_length,
                    d->xml.name, what);
}

// One start tag: its kind from its parent's, then what it holds.
static mc_status element_start(dae* d, int depth)
{
    dae_kind k = child_kind(&d->xml, (dae_kind)d->kind[depth - 1]);
    d->kind[depth] = (uint8_t)k;
    switch (k)
    {
    case K_ROOT:
        return begin_root(d);
    case K_UNIT:
        return read_unit(d, false);
    case K_NESTED_UNIT:
        return read_unit(d, true);
    case K_UP_AXIS:
        return read_up_axis(d);
    case K_GEOMETRY:
        return begin_geometry(d);
    case K_MESH:
        d->geo[d->geo_count - 1].has_mesh = true;
        return MC_OK;
    case K_GEOM_OTHER:
        d->geo[d->geo_count - 1].other = (dae_ref){d->xml.name, (uint32_t)d->xml.name_length, here(d)};
        return MC_OK;
    case K_SOURCE:
        return begin_source(d);
    case K_FLOAT_ARRAY:
        return read_float_array(d);
    case K_ACCESSOR:
        return read_accessor(d);
    case K_VERTICES:
        return begin_vertices(d);
    case K_VINPUT:
        return read_vertices_input(d);
    case K_PRIM:
        return begin_prim(d);
    case K_PINPUT:
        return read_prim_input(d);
    case K_VCOUNT:
        return read_vcount_or_p(d, true);
    case K_P:
        return read_vcount_or_p(d, false);
    case K_VSCENE:
        return begin_node(d, ID_SCENE);
    case K_LIB_NODES:
        return begin_node(d, ID_SCENE + 1);
    case K_NODE:
        return begin_node(d, ID_NODE);
    case K_XFORM:
        return read_transform(d);
    case K_INST_GEOM:
        return add_instance(d, false);
    case K_INST_NODE:
        return add_instance(d, true);
    case K_INST_VS:
        return attr_ref(d, "url", &d->scene);
    case K_BAD:
        return refuse(d);
    default:
        return MC_OK;
    }
}

static mc_status parse(dae* d)
{
    d->kind[0] = K_NONE;
    for (;;)
    {
        mc_xml_event ev;
        mc_status st = mc_xml_next(&d->xml, &ev, d->err);
        if (st != MC_OK || ev == MC_XML_DONE)
        {
            return st;
        }
        if (ev == MC_XML_START)
        {
            st = element_start(d, d->xml.depth);
            if (st != MC_OK)
            {
                return st;
            }
            continue;
        }
        dae_kind k = (dae_kind)d->kind[d->xml.depth + 1];
        if (k == K_NODE || k == K_VSCENE || k == K_LIB_NODES)
        {
            d->cur_node = d->node[d->cur_node].parent;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// References

static int id_order(const void* a, const void* b)
{
    const dae_id *x = a, *y = b;
    if (x->n != y->n)
    {
        return x->n < y->n ? -1 : 1;
    }
    return memcmp(x->s, y->s, x->n);
}

static mc_status sort_ids(dae* d)
{
    if (d->id_count == 0)
    {
        return MC_OK;
    }
    qsort(d->ids, d->id_count, sizeof(dae_id), id_order);
    for (uint32_t k = 1; k < d->id_count; ++k)
    {
        if (id_order(&d->ids[k - 1], &d->ids[k]) == 0)
        {
            return dae_fail(d, MC_ERR_PARSE, -1, "two elements with id '%.*s'",
                            (int)(d->ids[k].n < 64 ? d->ids[k].n : 64), d->ids[k].s);
        }
    }
    return MC_OK;
}

// The element of `kind` that reference r names: its index in the table of its kind.
static mc_status resolve(dae* d, const dae_ref* r, uint32_t kind, uint32_t* out)
{
    dae_id key = {r->s, r->n, 0, 0};
    const dae_id* hit = d->id_count > 0 ? bsearch(&key, d->ids, d->id_count, sizeof(dae_id), id_order) : NULL;
    int n = (int)(r->n < 64 ? r->n : 64);
    if (hit == NULL)
    {
        return dae_fail(d, MC_ERR_INDEX_OUT_OF_RANGE, r->at, "'#%.*s' refers to no %s", n, r->s, s_id_names[kind]);
    }
    if (hit->kind != kind)
    {
        return dae_fail(d, MC_ERR_PARSE, r->at, "'#%.*s' refers to a %s, not a %s", n, r->s, s_id_names[hit->kind],
                        s_id_names[kind]);
    }
    *out = hit->index;
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Geometry

// The points of geometry g: its <vertices>' POSITION source through the source's accessor, into dae.pos.
static mc_status build_points(dae* d, dae_geometry* g)
{
    const dae_vertices* v = &d->vtx[g->vertices];
    if (!v->has_position)
    {
        return dae_fail(d, MC_ERR_PARSE, v->at, "<vertices> without a POSITION input");
    }
    uint32_t si = 0, ai = 0;
    mc_status st = resolve(d, &v->position, ID_SOURCE, &si);
    const dae_source* s = &d->src[si];
    if (st == MC_OK && !s->accessor)
    {
        return dae_fail(d, MC_ERR_PARSE, s->at, "the POSITION <source> has no <accessor>");
    }
    st = st == MC_OK ? resolve(d, &s->array, ID_ARRAY, &ai) : st;
    if (st != MC_OK)
    {
        return st;
    }
    const dae_array* a = &d->arr[ai];
    if (s->stride < 3)
    {
        return dae_fail(d, MC_ERR_PARSE, s->at,
                        "POSITION <accessor> of stride %llu: 3 values (X, Y, Z) per point needed",
                        (unsigned long long)s->stride);
    }
    // (count - 1) * stride is formed only once it is known to be at most the array's size: no wrap-around.
    if (s->count > 0 && (s->count - 1 > a->count / s->stride || s->offset + (s->count - 1) * s->stride + 3 > a->count))
    {
        return dae_fail(d, MC_ERR_PARSE, s->at,
                        "POSITION <accessor> (count %llu, stride %llu, offset %llu) reads past its <float_array> of %u "
                        "values",
                        (unsigned long long)s->count, (unsigned long long)s->stride, (unsigned long long)s->offset,
                        a->count);
    }
    if (!mc_array_reserve((void**)&d->pos, &d->pos_cap, (uint64_t)d->pos_count + s->count, 3 * sizeof(double), 256))
    {
        return dae_oom(d);
    }
    g->v_begin = d->pos_count;
    g->v_count = (uint32_t)s->count;
    for (uint64_t k = 0; k < s->count; ++k)
    {
        memcpy(d->pos + 3 * (size_t)(d->pos_count + k), d->num + a->begin + s->offset + k * s->stride,
               3 * sizeof(double));
    }
    d->pos_count += g->v_count;
    return MC_OK;
}

/// Corners of one primitive element being added to a geometry.
typedef struct dae_corners
{
    const dae_prim* p;
    uint32_t nv; ///< points of the geometry
} dae_corners;

// Point of corner k (counted in corners, not indices) of run r: checked against the geometry's points.
static mc_status corner(dae* d, const dae_corners* c, const dae_run* r, uint64_t k, uint32_t* out)
{
    *out = d->idx[r->begin + k * c->p->stride + c->p->vertex_offset];
    if (*out >= c->nv)
    {
        return dae_fail(d, MC_ERR_INDEX_OUT_OF_RANGE, c->p->at, "<%s> refers to point %u, the positions have %u",
                        s_prim_names[c->p->type], *out, c->nv);
    }
    return MC_OK;
}

// Triangles of the polygon (fan, as the other readers split polygons) or strip of `n` corners from corner `first` of
// run r, into dae.tri.
static mc_status add_polygon(dae* d, const dae_corners* c, const dae_run* r, uint64_t first, uint64_t n, bool strip)
{
    if (n < 3)
    {
        return dae_fail(d, MC_ERR_PARSE, c->p->at, "<%s> has a %s of %llu corners", s_prim_names[c->p->type],
                        strip ? "strip" : "polygon", (unsigned long long)n);
    }
    if (!mc_array_reserve((void**)&d->tri, &d->tri_cap, (uint64_t)d->tri_count + 3 * (n - 2), sizeof(uint32_t), 256))
    {
        return dae_oom(d);
    }
    uint32_t v0 = 0, a = 0, b = 0;
    mc_status st = corner(d, c, r, first, &v0);
    st = st == MC_OK ? corner(d, c, r, first + 1, &a) : st;
    for (uint64_t j = 2; st == MC_OK && j < n; ++j)
    {
        st = corner(d, c, r, first + j, &b);
        uint32_t* t = d->tri + d->tri_count;
        bool odd = strip && (j & 1) != 0; // strips alternate their winding: (0 1 2), (2 1 3), (2 3 4), ...
        t[0] = strip ? (odd ? a : v0) : v0;
        t[1] = strip ? (odd ? v0 : a) : a;
        t[2] = b;
        d->tri_count += st == MC_OK ? 3 : 0;
        v0 = strip ? a : v0;
        a = b;
    }
    return st;
}

// The triangles of primitive p of a geometry with nv points.
static mc_status build_prim(dae* d, const dae_prim* p, int32_t vertices, dae_geometry* g)
{
    const char* name = s_prim_names[p->type];
    uint32_t vi = 0;
    if (p->type >= PRIM_LINES)
    {
        return dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, p->at, "<%s> (edges without a surface) is not read", name);
    }
    mc_status st = p->has_vertex ? resolve(d, &p->vertex, ID_VERTICES, &vi)
                                 : dae_fail(d, MC_ERR_PARSE, p->at, "<%s> without a VERTEX input", name);
    if (st == MC_OK && (int32_t)vi != vertices)
    {
        st = dae_fail(d, MC_ERR_PARSE, p->at, "<%s>'s VERTEX input is the <vertices> of another <mesh>", name);
    }
    if (st != MC_OK)
    {
        return st;
    }
    dae_corners c = {p, g->v_count};
    const dae_run* runs = p->run_count > 0 ? d->run + p->run_begin : NULL; // d->run is NULL before the first run
    bool single = p->type == PRIM_TRIANGLES || p->type == PRIM_POLYLIST;
    uint64_t want = single ? (p->count > 0) : p->count;
    if (p->run_count != want || (p->type == PRIM_POLYLIST && !p->has_vcount))
    {
        return dae_fail(d, MC_ERR_PARSE, p->at, "<%s count=\"%llu\"> has %u <p>%s", name, (unsigned long long)p->count,
                        p->run_count, p->type == PRIM_POLYLIST && !p->has_vcount ? " and no <vcount>" : "");
    }
    if (p->type == PRIM_TRIANGLES && want == 1 && runs[0].count != 3 * p->count * p->stride)
    {
        return dae_fail(
            d, MC_ERR_PARSE, p->at, "<triangles count=\"%llu\"> has %u indices, %llu expected (%u per corner)",
            (unsigned long long)p->count, runs[0].count, (unsigned long long)(3 * p->count * p->stride), p->stride);
    }
    if (p->type == PRIM_POLYLIST)
    {
        const dae_run* vc = &d->run[p->vcount_run];
        uint64_t corners = 0;
        for (uint32_t k = 0; k < vc->count; ++k)
        {
            corners += d->idx[vc->begin + k];
        }
        if (vc->count != p->count || (want == 1 && runs[0].count != corners * p->stride))
        {
            return dae_fail(d, MC_ERR_PARSE, p->at,
                            "<polylist count=\"%llu\">: <vcount> has %u numbers for %llu corners, <p> %u indices for "
                            "%u inputs",
                            (unsigned long long)p->count, vc->count, (unsigned long long)corners,
                            want == 1 ? runs[0].count : 0, p->stride);
        }
        uint64_t first = 0;
        for (uint32_t k = 0; st == MC_OK && k < vc->count; ++k)
        {
            uint32_t n = d->idx[vc->begin + k];
            st = add_polygon(d, &c, runs, first, n, false);
            g->split += n > 3;
            first += n;
        }
        return st;
    }
    for (uint32_t k = 0; st == MC_OK && k < p->run_count; ++k)
    {
        const dae_run* r = &runs[k];
        uint64_t n = p->type == PRIM_TRIANGLES ? 3 : r->count / p->stride;
        if (r->count % p->stride != 0)
        {
            return dae_fail(d, MC_ERR_PARSE, p->at, "<%s>: a <p> of %u indices for %u inputs", name, r->count,
                            p->stride);
        }
        for (uint64_t first = 0; st == MC_OK && first < (uint64_t)r->count / p->stride; first += n)
        {
            st = add_polygon(d, &c, r, first, n, p->type == PRIM_TRISTRIPS);
            g->split += p->type == PRIM_POLYGONS && n > 3;
        }
    }
    return st;
}

// Geometry g's points and triangles (once; later instances reuse them).
static mc_status build_geometry(dae* d, dae_geometry* g)
{
    int n = (int)(g->id.n < 64 ? g->id.n : 64);
    if (g->other.n > 0)
    {
        return dae_fail(d, MC_ERR_UNSUPPORTED_FORMAT, g->other.at, "geometry '%.*s': <%.*s> is not read (only <mesh>)",
                        n, g->id.s, (int)g->other.n, g->other.s);
    }
    if (!g->has_mesh)
    {
        return dae_fail(d, MC_ERR_PARSE, g->id.at, "geometry '%.*s' has no <mesh>", n, g->id.s);
    }
    g->built = true;
    g->t_begin = d->tri_count;
    g->v_begin = d->pos_count;
    if (g->prim_count == 0)
    {
        return MC_OK;
    }
    if (g->vertices < 0)
    {
        return dae_fail(d, MC_ERR_PARSE, g->id.at, "geometry '%.*s': <mesh> without <vertices>", n, g->id.s);
    }
    mc_status st = build_points(d, g);
    for (uint32_t k = 0; st == MC_OK && k < g->prim_count; ++k)
    {
        st = build_prim(d, &d->prim[g->prim_begin + k], g->vertices, g);
    }
    g->t_count = d->tri_count - g->t_begin;
    return st;
}

static mc_status place_geometry(dae* d, const dae_ref* url, const mc_affine* x)
{
    uint32_t gi = 0;
    mc_status st = resolve(d, url, ID_GEOMETRY, &gi);
    dae_geometry* g = &d->geo[gi];
    if (st == MC_OK && !g->built)
    {
        st = build_geometry(d, g);
    }
    if (st != MC_OK)
    {
        return st;
    }
    char what[600];
    snprintf(what, sizeof what, "%s: geometry '%.*s'", d->path, (int)(g->id.n < 64 ? g->id.n : 64), g->id.s);
    d->soup->split_polygons += g->split;
    const double* pos = g->v_count > 0 ? d->pos + 3 * (size_t)g->v_begin : NULL;
    const uint32_t* tri = g->t_count > 0 ? d->tri + g->t_begin : NULL;
    return mc_soup_add_instance(d->soup, pos, g->v_count, tri, g->t_count / 3, x, what, d->err);
}

// Node k placed by `parent`: its instances, then its child nodes, each under parent * local.
static mc_status place_node(dae* d, int32_t k, const mc_affine* parent, int depth)
{
    dae_node* n = &d->node[k];
    int len = (int)(n->id.n < 64 ? n->id.n : 64);
    if (n->on_path || depth > DAE_MAX_DEPTH || ++d->visits > DAE_MAX_VISITS)
    {
        return dae_fail(d, MC_ERR_PARSE, n->id.at,
                        n->on_path ? "node '%.*s' instantiates itself (a cycle of <instance_node>)"
                                   : "node '%.*s' nested too deep or placed too often",
                        len, n->id.s);
    }
    mc_affine x = mc_affine_mul(parent, &n->local);
    n->on_path = true;
    mc_status st = MC_OK;
    for (int32_t i = n->first_inst; st == MC_OK && i >= 0; i = d->inst[i].next)
    {
        uint32_t target = 0;
        if (d->inst[i].node)
        {
            st = resolve(d, &d->inst[i].url, ID_NODE, &target);
            st = st == MC_OK ? place_node(d, (int32_t)target, &x, depth + 1) : st;
        }
        else
        {
            st = place_geometry(d, &d->inst[i].url, &x);
        }
    }
    for (int32_t c = n->first_child; st == MC_OK && c >= 0; c = d->node[c].next)
    {
        st = place_node(d, c, &x, depth + 1);
    }
    d->node[k].on_path = false;
    return st;
}

static mc_status place_scene(dae* d)
{
    mc_status st = sort_ids(d);
    uint32_t scene = d->first_scene >= 0 ? (uint32_t)d->first_scene : 0;
    if (st == MC_OK && d->scene.n > 0)
    {
        st = resolve(d, &d->scene, ID_SCENE, &scene);
    }
    else if (st == MC_OK && d->first_scene < 0)
    {
        st = dae_fail(d, MC_ERR_EMPTY_MESH, -1, "no <visual_scene> places a geometry");
    }
    if (st != MC_OK)
    {
        return st;
    }
    d->soup->file_scale = d->unit;
    mc_affine id = mc_affine_identity();
    return place_node(d, (int32_t)scene, &id, 0);
}

mc_status mc_collada_read(const char* path, mc_soup* soup, mc_error* err)
{
    dae d = {.path = path, .soup = soup, .err = err, .cur_node = -1, .first_scene = -1, .unit = 1.0};
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, soup->max_bytes, &data, &size, err);
    if (st == MC_OK)
    {
        mc_xml_init(&d.xml, data, (size_t)size, path);
        st = parse(&d);
        st = st == MC_OK ? place_scene(&d) : st;
    }
    mc_free(data);
    void* arrays[] = {d.num, d.idx, d.ids, d.arr, d.src, d.vtx, d.run, d.prim, d.geo, d.node, d.inst, d.pos, d.tri};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
    {
        mc_free(arrays[k]);
    }
    return st;
}
