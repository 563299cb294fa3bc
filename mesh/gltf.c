// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native glTF 2.0 reader (.gltf text with data: URIs or external buffer files, .glb binary container): the TRIANGLES
// primitives of the meshes that the default scene's node tree places, each with its node's world transform (matrix or
// translation/rotation/scale), positions FLOAT VEC3, indices UNSIGNED_BYTE/SHORT/INT or none. Every index, count,
// offset, stride and length is checked against what the file holds before it is used.
#include "mesh/json.h"
#include "mesh/soup.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Deepest node nesting followed, and most node visits (a node tree shared many times over is a hostile file).
#define GLTF_MAX_DEPTH 256
#define GLTF_MAX_VISITS (1u << 20)
/// Largest integer a glTF count or offset may have (JSON numbers are doubles: 2^53 is where they stop being exact).
#define GLTF_MAX_INT 9007199254740992.0

enum
{
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
    GLTF_TRIANGLES = 4,
};

/// A buffer's bytes, loaded on first use.
typedef struct gltf_buffer
{
    const unsigned char* data; ///< at least `length` bytes
    uint64_t length;           ///< the buffer's byteLength
    unsigned char* owned;      ///< what to free (decoded data URI or external file), or NULL
    bool loaded;
} gltf_buffer;

/// An accessor resolved to bytes: element k starts at data + k * stride.
typedef struct gltf_view
{
    const unsigned char* data;
    uint32_t count;
    uint32_t stride;
    uint32_t component; ///< component type
} gltf_view;

typedef struct gltf
{
    const char* path;
    mc_json doc;
    unsigned char* file;      ///< the whole file (NUL-terminated)
    uint64_t file_size;       ///< its size
    const unsigned char* bin; ///< GLB BIN chunk, or NULL
    uint64_t bin_size;
    uint32_t accessors, views, buffers, meshes, nodes; ///< indices of the root's arrays (0: absent)
    gltf_buffer* buffer;                               ///< one per buffer
    uint32_t buffer_count;
    double* pos;      ///< scratch: positions of one primitive
    uint32_t pos_cap; ///< points allocated
    uint32_t* tri;    ///< scratch: indices of one primitive
    uint32_t tri_cap; ///< indices allocated
    uint64_t visited; ///< node visits
    mc_soup* soup;
    mc_error* err;
} gltf;

static uint32_t le32(const unsigned char* p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static mc_status gltf_fail(gltf* g, mc_status st, const char* fmt, const char* what, uint32_t i, const char* why)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what, i, why);
    return mc_set_error(g->err, st, -1, -1, "%s: %s", g->path, msg);
}

// Number of elements of an array value (0 when v is not an array).
static uint32_t array_count(const gltf* g, uint32_t v)
{
    return v != 0 && g->doc.values[v].type == MC_JSON_ARRAY ? g->doc.values[v].count : 0;
}

// Integer member `key` of object `obj` into *out: *out = dflt when absent; an error when present and not an integer in
// [0, limit]. `what` and `i` name the object in the message ("accessor", 3).
static mc_status get_uint(gltf* g, uint32_t obj, const char* key, double limit, uint64_t dflt, const char* what,
                          uint32_t i, uint64_t* out)
{
    uint32_t v = mc_json_member(&g->doc, obj, key);
    if (v == 0)
    {
        *out = dflt;
        return MC_OK;
    }
    const mc_json_value* x = &g->doc.values[v];
    if (x->type != MC_JSON_NUMBER || x->number < 0.0 || x->number > limit || x->number != floor(x->number))
    {
        char why[96];
        snprintf(why, sizeof why, "'%s' must be an integer in [0, %.0f]", key, limit);
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", what, i, why);
    }
    *out = (uint64_t)x->number;
    return MC_OK;
}

// Value v as an index into an array of `count` elements: a number, an integer, in [0, count).
static bool as_index(const gltf* g, uint32_t v, uint32_t count, uint32_t* out)
{
    const mc_json_value* x = &g->doc.values[v];
    if (v == 0 || x->type != MC_JSON_NUMBER || !(x->number >= 0.0) || x->number >= count ||
        x->number != floor(x->number))
    {
        return false;
    }
    *out = (uint32_t)x->number;
    return true;
}

// Required index member: present, and an integer below `count` (the size of the array it indexes).
static mc_status get_index(gltf* g, uint32_t obj, const char* key, uint32_t count, const char* what, uint32_t i,
                           uint32_t* out)
{
    uint32_t v = mc_json_member(&g->doc, obj, key);
    if (as_index(g, v, count, out))
    {
        return MC_OK;
    }
    char why[96];
    if (v == 0)
    {
        snprintf(why, sizeof why, "no '%s'", key);
    }
    else
    {
        snprintf(why, sizeof why, "'%s' is not an index below %u", key, count);
    }
    return gltf_fail(g, MC_ERR_INDEX_OUT_OF_RANGE, "%s %u: %s", what, i, why);
}

// Element i of root array `arr` as an object (an error naming `what` otherwise).
static mc_status get_object(gltf* g, uint32_t arr, uint32_t i, const char* what, uint32_t* out)
{
    *out = mc_json_element(&g->doc, arr, i);
    if (*out == 0 || g->doc.values[*out].type != MC_JSON_OBJECT)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", what, i, "not a JSON object");
    }
    return MC_OK;
}

// Optional array of n finite numbers (left as they are when absent).
static mc_status get_numbers(gltf* g, uint32_t obj, const char* key, uint32_t n, uint32_t node, double* out)
{
    uint32_t v = mc_json_member(&g->doc, obj, key);
    if (v == 0)
    {
        return MC_OK;
    }
    if (array_count(g, v) != n)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "node", node, "transform array of the wrong length");
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_json_value* x = &g->doc.values[mc_json_element(&g->doc, v, k)];
        if (x->type != MC_JSON_NUMBER)
        {
            return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "node", node, "transform entry that is not a number");
        }
        out[k] = x->number;
    }
    return MC_OK;
}

static int base64_value(unsigned char c)
{
    return c >= 'A' && c <= 'Z'   ? c - 'A'
           : c >= 'a' && c <= 'z' ? c - 'a' + 26
           : c >= '0' && c <= '9' ? c - '0' + 52
           : c == '+'             ? 62
           : c == '/'             ? 63
                                  : -1;
}

// Decode base64 text s[0..n) (padding optional) into d (room for n / 4 * 3 + 3 bytes). @return the byte count, or
// UINT64_MAX on a character that is not base64.
static uint64_t base64_decode(const char* s, size_t n, unsigned char* d)
{
    while (n > 0 && s[n - 1] == '=')
    {
        --n;
    }
    uint64_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; ++i)
    {
        int v = base64_value((unsigned char)s[i]);
        if (v < 0)
        {
            return UINT64_MAX;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8)
        {
            bits -= 8;
            d[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return o;
}

// Percent-decode a relative URI in place. @return false on a bad escape or an encoded NUL.
static bool percent_decode(char* s)
{
    size_t o = 0;
    for (size_t i = 0; s[i] != '\0'; ++i)
    {
        if (s[i] != '%')
        {
            s[o++] = s[i];
            continue;
        }
        int hi = mc_hex_digit(s[i + 1]), lo = hi < 0 ? -1 : mc_hex_digit(s[i + 2]);
        if (lo < 0 || (hi == 0 && lo == 0))
        {
            return false;
        }
        s[o++] = (char)(hi << 4 | lo);
        i += 2;
    }
    s[o] = '\0';
    return true;
}

// The bytes of a buffer given by URI: a base64 data URI, or a file relative to the glTF file's folder.
static mc_status load_uri(gltf* g, uint32_t i, const char* uri, gltf_buffer* b, uint64_t* have)
{
    if (strncmp(uri, "data:", 5) == 0)
    {
        const char* comma = strchr(uri, ',');
        if (comma == NULL || comma - uri < 12 || memcmp(comma - 7, ";base64", 7) != 0)
        {
            return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "data URI that is not base64");
        }
        size_t n = strlen(comma + 1);
        if ((b->owned = mc_alloc(n / 4 * 3 + 3)) == NULL)
        {
            return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", g->path);
        }
        *have = base64_decode(comma + 1, n, b->owned);
        return *have != UINT64_MAX ? MC_OK : gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "bad base64 data");
    }
    if (strchr(uri, ':') != NULL || uri[0] == '/' || uri[0] == '\0')
    {
        return gltf_fail(g, MC_ERR_UNSUPPORTED_FORMAT, "%s %u: %s", "buffer", i,
                         "URI is not a relative file name or a data URI");
    }
    const char* slash = strrchr(g->path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - g->path) + 1 : 0, n = strlen(uri);
    char* full = mc_alloc(dir + n + 1);
    if (full == NULL)
    {
        return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", g->path);
    }
    memcpy(full, g->path, dir);
    memcpy(full + dir, uri, n + 1);
    mc_status st = percent_decode(full + dir)
                       ? MC_OK
                       : gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "bad %-escape in its URI");
    char* data = NULL;
    if (st == MC_OK)
    {
        st = mc_read_file(full, g->soup->max_bytes, &data, have, g->err);
        if (st != MC_OK)
        {
            mc_error_prefix(g->err, g->path); // the message names the buffer file; say which glTF wanted it
        }
    }
    b->owned = (unsigned char*)data;
    mc_free(full);
    return st;
}

// Buffer i's bytes, loaded once: the GLB's BIN chunk (no URI), a data URI or an external file; at least byteLength.
static mc_status load_buffer(gltf* g, uint32_t i, gltf_buffer** out)
{
    gltf_buffer* b = &g->buffer[i];
    *out = b;
    if (b->loaded)
    {
        return MC_OK;
    }
    uint32_t obj = 0;
    mc_status st = get_object(g, g->buffers, i, "buffer", &obj);
    st = st == MC_OK ? get_uint(g, obj, "byteLength", GLTF_MAX_INT, 0, "buffer", i, &b->length) : st;
    if (st == MC_OK && b->length == 0)
    {
        st = gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "no byteLength (or 0)");
    }
    if (st != MC_OK)
    {
        return st;
    }
    uint32_t u = mc_json_member(&g->doc, obj, "uri");
    uint64_t have = 0;
    if (u == 0)
    {
        if (i != 0 || g->bin == NULL)
        {
            return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "no URI and no GLB binary chunk");
        }
        b->data = g->bin;
        have = g->bin_size;
    }
    else
    {
        size_t cap = g->doc.values[u].type == MC_JSON_STRING ? (size_t)g->doc.values[u].count + 1 : 1;
        char* uri = mc_alloc(cap);
        if (uri == NULL)
        {
            return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", g->path);
        }
        st = mc_json_string(&g->doc, u, uri, cap) ? load_uri(g, i, uri, b, &have)
                                                  : gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, "bad URI");
        mc_free(uri);
        b->data = b->owned;
        if (st != MC_OK)
        {
            return st;
        }
    }
    if (have < b->length)
    {
        char why[128];
        snprintf(why, sizeof why, "byteLength %llu but its data has %llu bytes", (unsigned long long)b->length,
                 (unsigned long long)have);
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "buffer", i, why);
    }
    b->loaded = true;
    return MC_OK;
}

// Accessor i resolved to bytes, of type `type` ("VEC3", "SCALAR") and a component type that `ok_component` accepts;
// every element within its buffer view, the view within its buffer.
static mc_status get_accessor(gltf* g, uint32_t i, const char* type, bool (*ok_component)(uint64_t), gltf_view* out)
{
    uint32_t acc = 0, view = 0, bi = 0, vi = 0;
    uint64_t ctype = 0, count = 0, offset = 0, view_offset = 0, view_length = 0, stride = 0;
    char t[8] = "";
    mc_status st = get_object(g, g->accessors, i, "accessor", &acc);
    st = st == MC_OK ? get_index(g, acc, "bufferView", array_count(g, g->views), "accessor", i, &vi) : st;
    st = st == MC_OK ? get_uint(g, acc, "componentType", 65535, 0, "accessor", i, &ctype) : st;
    st = st == MC_OK ? get_uint(g, acc, "count", UINT32_MAX - 1, 0, "accessor", i, &count) : st;
    st = st == MC_OK ? get_uint(g, acc, "byteOffset", GLTF_MAX_INT, 0, "accessor", i, &offset) : st;
    if (st != MC_OK)
    {
        return st;
    }
    if (mc_json_member(&g->doc, acc, "sparse") != 0)
    {
        return gltf_fail(g, MC_ERR_UNSUPPORTED_FORMAT, "%s %u: %s", "accessor", i, "sparse accessors are not read");
    }
    if (!mc_json_string(&g->doc, mc_json_member(&g->doc, acc, "type"), t, sizeof t) || strcmp(t, type) != 0 ||
        !ok_component(ctype) || count == 0)
    {
        char why[128];
        snprintf(why, sizeof why, "type '%s', componentType %llu, count %llu (%s expected)", t,
                 (unsigned long long)ctype, (unsigned long long)count,
                 strcmp(type, "VEC3") == 0 ? "FLOAT VEC3 positions" : "unsigned integer SCALAR indices");
        return gltf_fail(g, MC_ERR_UNSUPPORTED_FORMAT, "%s %u: %s", "accessor", i, why);
    }
    st = get_object(g, g->views, vi, "bufferView", &view);
    st = st == MC_OK ? get_index(g, view, "buffer", g->buffer_count, "bufferView", vi, &bi) : st;
    st = st == MC_OK ? get_uint(g, view, "byteOffset", GLTF_MAX_INT, 0, "bufferView", vi, &view_offset) : st;
    st = st == MC_OK ? get_uint(g, view, "byteLength", GLTF_MAX_INT, 0, "bufferView", vi, &view_length) : st;
    st = st == MC_OK ? get_uint(g, view, "byteStride", 252, 0, "bufferView", vi, &stride) : st;
    gltf_buffer* b = NULL;
    st = st == MC_OK ? load_buffer(g, bi, &b) : st;
    if (st != MC_OK)
    {
        return st;
    }
    uint64_t csize = ctype == GLTF_UNSIGNED_BYTE ? 1 : ctype == GLTF_UNSIGNED_SHORT ? 2 : 4;
    uint64_t elem = csize * (strcmp(type, "VEC3") == 0 ? 3 : 1);
    stride = stride != 0 ? stride : elem;
    if (view_offset + view_length > b->length)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "bufferView", vi, "extends past the end of its buffer");
    }
    if (stride < elem || offset + stride * (count - 1) + elem > view_length)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "accessor", i,
                         "its elements extend past the end of its buffer view (or overlap: byteStride too small)");
    }
    *out = (gltf_view){b->data + view_offset + offset, (uint32_t)count, (uint32_t)stride, (uint32_t)ctype};
    return MC_OK;
}

static bool is_float(uint64_t c)
{
    return c == GLTF_FLOAT;
}

static bool is_index_type(uint64_t c)
{
    return c == GLTF_UNSIGNED_BYTE || c == GLTF_UNSIGNED_SHORT || c == GLTF_UNSIGNED_INT;
}

// Grow the scratch arrays to n points and m indices.
static mc_status scratch(gltf* g, uint64_t n, uint64_t m)
{
    if (!mc_array_reserve((void**)&g->pos, &g->pos_cap, n, 3 * sizeof(double), 64) ||
        !mc_array_reserve((void**)&g->tri, &g->tri_cap, m, sizeof(uint32_t), 64))
    {
        return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for %llu points", g->path,
                            (unsigned long long)n);
    }
    return MC_OK;
}

// One primitive of mesh `mi` placed by x.
static mc_status add_primitive(gltf* g, uint32_t mi, uint32_t pi, uint32_t prim, const mc_affine* x)
{
    char what[64];
    snprintf(what, sizeof what, "mesh %u primitive %u", mi, pi);
    uint64_t mode = 0;
    uint32_t pa = 0;
    mc_status st = get_uint(g, prim, "mode", 6, GLTF_TRIANGLES, "mesh", mi, &mode);
    if (st == MC_OK && mode != GLTF_TRIANGLES)
    {
        static const char* const names[] = {"POINTS", "LINES",          "LINE_LOOP",   "LINE_STRIP",
                                            "",       "TRIANGLE_STRIP", "TRIANGLE_FAN"};
        char why[96];
        snprintf(why, sizeof why, "mode %s: only TRIANGLES (4) is read", names[mode]);
        return gltf_fail(g, MC_ERR_UNSUPPORTED_FORMAT, "%s %u: %s", "mesh", mi, why);
    }
    uint32_t attrs = mc_json_member(&g->doc, prim, "attributes");
    st = st == MC_OK ? get_index(g, attrs, "POSITION", array_count(g, g->accessors), what, 0, &pa) : st;
    gltf_view p;
    st = st == MC_OK ? get_accessor(g, pa, "VEC3", is_float, &p) : st;
    uint32_t ia = UINT32_MAX;
    gltf_view ix = {NULL, p.count, 0, 0};
    if (st == MC_OK && mc_json_member(&g->doc, prim, "indices") != 0)
    {
        st = get_index(g, prim, "indices", array_count(g, g->accessors), what, 0, &ia);
        st = st == MC_OK ? get_accessor(g, ia, "SCALAR", is_index_type, &ix) : st;
    }
    st = st == MC_OK ? scratch(g, p.count, ix.count) : st;
    if (st != MC_OK)
    {
        return st;
    }
    if (ix.count % 3 != 0)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", what, 0, "index count is not a multiple of 3");
    }
    for (uint32_t k = 0; k < p.count; ++k)
    {
        for (int c = 0; c < 3; ++c)
        {
            uint32_t bits = le32(p.data + (size_t)k * p.stride + 4 * c);
            float f;
            memcpy(&f, &bits, 4);
            g->pos[3 * (size_t)k + c] = f;
        }
    }
    for (uint32_t k = 0; k < ix.count; ++k)
    {
        // Without indices (ix.data NULL: no pointer arithmetic on it), the points are taken in threes.
        const unsigned char* e = ix.data != NULL ? ix.data + (size_t)k * ix.stride : NULL;
        g->tri[k] = e == NULL                             ? k
                    : ix.component == GLTF_UNSIGNED_BYTE  ? e[0]
                    : ix.component == GLTF_UNSIGNED_SHORT ? (uint32_t)e[0] | (uint32_t)e[1] << 8
                                                          : le32(e);
    }
    char where[600];
    snprintf(where, sizeof where, "%s: %s", g->path, what);
    return mc_soup_add_instance(g->soup, g->pos, p.count, g->tri, ix.count / 3, x, where, g->err);
}

static mc_status add_mesh(gltf* g, uint32_t mi, const mc_affine* x)
{
    uint32_t mesh = 0;
    mc_status st = get_object(g, g->meshes, mi, "mesh", &mesh);
    uint32_t prims = mc_json_member(&g->doc, mesh, "primitives");
    for (uint32_t pi = 0; st == MC_OK && pi < array_count(g, prims); ++pi)
    {
        uint32_t prim = mc_json_element(&g->doc, prims, pi);
        st = g->doc.values[prim].type == MC_JSON_OBJECT
                 ? add_primitive(g, mi, pi, prim, x)
                 : gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "mesh", mi, "primitive that is not a JSON object");
    }
    return st;
}

// Node ni's local transform: its column-major matrix (affine: last row 0 0 0 1) or T * R * S.
static mc_status node_transform(gltf* g, uint32_t node, uint32_t ni, mc_affine* out)
{
    double a[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    mc_status st = get_numbers(g, node, "matrix", 16, ni, a);
    st = st == MC_OK ? get_numbers(g, node, "translation", 3, ni, t) : st;
    st = st == MC_OK ? get_numbers(g, node, "rotation", 4, ni, q) : st;
    st = st == MC_OK ? get_numbers(g, node, "scale", 3, ni, s) : st;
    if (st != MC_OK)
    {
        return st;
    }
    if (a[3] != 0.0 || a[7] != 0.0 || a[11] != 0.0 || a[15] != 1.0)
    {
        return gltf_fail(g, MC_ERR_UNSUPPORTED_FORMAT, "%s %u: %s", "node", ni,
                         "matrix is not affine (last row must be 0 0 0 1)");
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.0) || !isfinite(n))
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "node", ni, "rotation quaternion of zero or infinite length");
    }
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    mc_affine m, trs;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            m.m[i][j] = a[4 * j + i];
            trs.m[i][j] = r[i][j] * s[j];
        }
        m.m[i][3] = a[12 + i];
        trs.m[i][3] = t[i];
    }
    *out = mc_affine_mul(&m, &trs); // a node has a matrix or TRS; the other is the identity
    return mc_affine_is_finite(out)
               ? MC_OK
               : gltf_fail(g, MC_ERR_NON_FINITE, "%s %u: %s", "node", ni, "transform is not finite");
}

static mc_status walk_node(gltf* g, uint32_t ni, const mc_affine* parent, int depth)
{
    if (depth > GLTF_MAX_DEPTH || ++g->visited > GLTF_MAX_VISITS)
    {
        return gltf_fail(g, MC_ERR_PARSE, "%s %u: %s", "node", ni, "node tree too deep, cyclic or too often shared");
    }
    uint32_t node = 0;
    mc_affine local, x;
    mc_status st = get_object(g, g->nodes, ni, "node", &node);
    st = st == MC_OK ? node_transform(g, node, ni, &local) : st;
    if (st != MC_OK)
    {
        return st;
    }
    x = mc_affine_mul(parent, &local);
    if (mc_json_member(&g->doc, node, "mesh") != 0)
    {
        uint32_t mi = 0;
        st = get_index(g, node, "mesh", array_count(g, g->meshes), "node", ni, &mi);
        st = st == MC_OK ? add_mesh(g, mi, &x) : st;
    }
    uint32_t children = mc_json_member(&g->doc, node, "children");
    for (uint32_t k = 0; st == MC_OK && k < array_count(g, children); ++k)
    {
        uint32_t ci = 0;
        st = as_index(g, mc_json_element(&g->doc, children, k), array_count(g, g->nodes), &ci)
                 ? walk_node(g, ci, &x, depth + 1)
                 : gltf_fail(g, MC_ERR_INDEX_OUT_OF_RANGE, "%s %u: %s", "node", ni, "child that is not a node index");
    }
    return st;
}

// The nodes to start from: the default scene's (`scene`, else scene 0); without scenes, every node that is no node's
// child; without nodes, every mesh once, untransformed.
static mc_status walk_scene(gltf* g)
{
    mc_affine id = mc_affine_identity();
    uint32_t scenes = mc_json_member(&g->doc, 0, "scenes");
    uint32_t n = array_count(g, g->nodes);
    if (scenes != 0)
    {
        uint32_t si = 0, scene = 0;
        mc_status st = mc_json_member(&g->doc, 0, "scene") != 0
                           ? get_index(g, 0, "scene", array_count(g, scenes), "glTF", 0, &si)
                           : MC_OK;
        st = st == MC_OK ? get_object(g, scenes, si, "scene", &scene) : st;
        uint32_t roots = mc_json_member(&g->doc, scene, "nodes");
        for (uint32_t k = 0; st == MC_OK && k < array_count(g, roots); ++k)
        {
            uint32_t ni = 0;
            st = as_index(g, mc_json_element(&g->doc, roots, k), n, &ni)
                     ? walk_node(g, ni, &id, 0)
                     : gltf_fail(g, MC_ERR_INDEX_OUT_OF_RANGE, "%s %u: %s", "scene", si, "entry that is not a node");
        }
        return st;
    }
    if (n == 0)
    {
        mc_status st = MC_OK;
        for (uint32_t mi = 0; st == MC_OK && mi < array_count(g, g->meshes); ++mi)
        {
            st = add_mesh(g, mi, &id);
        }
        return st;
    }
    bool* child = mc_calloc(n, sizeof(bool));
    if (child == NULL)
    {
        return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", g->path);
    }
    for (uint32_t ni = 0; ni < n; ++ni)
    {
        uint32_t children = mc_json_member(&g->doc, mc_json_element(&g->doc, g->nodes, ni), "children");
        for (uint32_t k = 0; k < array_count(g, children); ++k)
        {
            uint32_t ci = 0;
            if (as_index(g, mc_json_element(&g->doc, children, k), n, &ci))
            {
                child[ci] = true;
            }
        }
    }
    mc_status st = MC_OK;
    for (uint32_t ni = 0; st == MC_OK && ni < n; ++ni)
    {
        st = child[ni] ? MC_OK : walk_node(g, ni, &id, 0);
    }
    mc_free(child);
    return st;
}

// A .glb container: 12-byte header (magic, version 2, total length), a JSON chunk, an optional BIN chunk, every
// length within the file. Sets *json / *json_size and g->bin.
static mc_status glb_chunks(gltf* g, const char** json, uint64_t* json_size)
{
    const unsigned char* d = g->file;
    uint64_t size = g->file_size;
    if (size < 20)
    {
        return mc_set_error(g->err, MC_ERR_PARSE, -1, 0, "%s: binary glTF of %llu bytes: truncated", g->path,
                            (unsigned long long)size);
    }
    uint32_t version = le32(d + 4), length = le32(d + 8), json_len = le32(d + 12);
    if (version != 2)
    {
        return mc_set_error(g->err, MC_ERR_UNSUPPORTED_FORMAT, -1, 4,
                            "%s: binary glTF version %u: only glTF 2.0 is read", g->path, version);
    }
    if (length != size)
    {
        return mc_set_error(g->err, MC_ERR_PARSE, -1, 8, "%s: binary glTF header says %u bytes, the file has %llu",
                            g->path, length, (unsigned long long)size);
    }
    if (le32(d + 16) != 0x4E4F534Au || json_len > size - 20)
    {
        return mc_set_error(g->err, MC_ERR_PARSE, -1, 12,
                            "%s: broken binary glTF: the first chunk must be JSON and fit in the file", g->path);
    }
    *json = (const char*)d + 20;
    *json_size = json_len;
    uint64_t p = 20 + (uint64_t)json_len;
    if (size - p >= 8 && le32(d + p + 4) == 0x004E4942u)
    {
        uint64_t bin_len = le32(d + p);
        if (bin_len > size - p - 8)
        {
            return mc_set_error(g->err, MC_ERR_PARSE, -1, (int64_t)p,
                                "%s: broken binary glTF: BIN chunk of %llu bytes at byte %llu past the end", g->path,
                                (unsigned long long)bin_len, (unsigned long long)p);
        }
        g->bin = d + p + 8;
        g->bin_size = bin_len;
    }
    return MC_OK;
}

// The root's checks: a JSON object, asset.version 2.x, no required extension that changes geometry.
static mc_status check_root(gltf* g)
{
    char version[16] = "";
    if (g->doc.values[0].type != MC_JSON_OBJECT)
    {
        return mc_set_error(g->err, MC_ERR_PARSE, -1, 0, "%s: not a glTF file (JSON object expected)", g->path);
    }
    uint32_t asset = mc_json_member(&g->doc, 0, "asset");
    if (!mc_json_string(&g->doc, mc_json_member(&g->doc, asset, "version"), version, sizeof version) ||
        strncmp(version, "2.", 2) != 0)
    {
        return mc_set_error(g->err, MC_ERR_UNSUPPORTED_FORMAT, -1, -1,
                            "%s: glTF asset version '%s': only glTF 2.0 is read", g->path, version);
    }
    uint32_t req = mc_json_member(&g->doc, 0, "extensionsRequired");
    for (uint32_t k = 0; k < array_count(g, req); ++k)
    {
        char ext[64] = "";
        mc_json_string(&g->doc, mc_json_element(&g->doc, req, k), ext, sizeof ext);
        if (strstr(ext, "compression") != NULL || strstr(ext, "quantization") != NULL)
        {
            return mc_set_error(g->err, MC_ERR_UNSUPPORTED_FORMAT, -1, -1,
                                "%s: requires the extension %s, which is not read", g->path, ext);
        }
    }
    return MC_OK;
}

static mc_status gltf_document(gltf* g)
{
    const char* json = (const char*)g->file;
    uint64_t json_size = g->file_size;
    bool glb = g->file_size >= 4 && memcmp(g->file, "glTF", 4) == 0;
    mc_status st = glb ? glb_chunks(g, &json, &json_size) : MC_OK;
    st = st == MC_OK ? mc_json_parse(json, (size_t)json_size, g->path, &g->doc, g->err) : st;
    st = st == MC_OK ? check_root(g) : st;
    if (st != MC_OK)
    {
        return st;
    }
    g->accessors = mc_json_member(&g->doc, 0, "accessors");
    g->views = mc_json_member(&g->doc, 0, "bufferViews");
    g->buffers = mc_json_member(&g->doc, 0, "buffers");
    g->meshes = mc_json_member(&g->doc, 0, "meshes");
    g->nodes = mc_json_member(&g->doc, 0, "nodes");
    uint32_t n = array_count(g, g->buffers);
    if (n > 0 && (g->buffer = mc_calloc(n, sizeof(gltf_buffer))) == NULL)
    {
        return mc_set_error(g->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", g->path);
    }
    g->buffer_count = n;
    return walk_scene(g);
}

mc_status mc_gltf_read(const char* path, mc_soup* soup, mc_error* err)
{
    gltf g = {.path = path, .soup = soup, .err = err};
    char* data = NULL;
    mc_status st = mc_read_file(path, soup->max_bytes, &data, &g.file_size, err);
    g.file = (unsigned char*)data;
    if (st == MC_OK)
    {
        st = gltf_document(&g);
    }
    for (uint32_t i = 0; i < g.buffer_count; ++i)
    {
        mc_free(g.buffer[i].owned);
    }
    mc_free(g.buffer);
    mc_free(g.pos);
    mc_free(g.tri);
    mc_json_free(&g.doc);
    mc_free(data);
    return st;
}
