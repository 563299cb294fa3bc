// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Native 3MF reader (3MF core specification): the ZIP package (mesh/zip.c), its root relationship to the 3D model
// part, and the model XML (mesh/xml.c): objects with a <mesh> (<vertices>, <triangles>) or <components> (other
// objects with transforms), and the <build> items that place them. The model's unit becomes the soup's conversion to
// metres. Every id, index and number is checked.
#include "mesh/soup.h"
#include "mesh/xml.h"
#include "mesh/zip.h"
#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Deepest component nesting followed, and most object placements (a component graph shared many times over is a
/// hostile file).
#define TMF_MAX_DEPTH 64
#define TMF_MAX_VISITS (1u << 20)

/// One <object>: its vertices and triangle corners in the reader's arrays, its components.
typedef struct tmf_object
{
    uint32_t id;
    uint32_t v_begin, v_count; ///< points in tmf.pos
    uint32_t t_begin, t_count; ///< corner indices in tmf.tri (3 per triangle), local to the object
    uint32_t c_begin, c_count; ///< entries in tmf.comp
} tmf_object;

/// A component or a build item: the object it places and how.
typedef struct tmf_ref
{
    uint32_t object_id;
    mc_affine x;
} tmf_ref;

typedef struct tmf
{
    const char* path;
    mc_soup* soup;
    mc_error* err;
    double* pos;
    uint32_t pos_count, pos_cap;
    uint32_t* tri;
    uint32_t tri_count, tri_cap;
    tmf_object* obj;
    uint32_t obj_count, obj_cap;
    tmf_ref* comp;
    uint32_t comp_count, comp_cap;
    tmf_ref* item;
    uint32_t item_count, item_cap;
    uint64_t visited;
    mc_xml xml;
} tmf;

static mc_status tmf_fail(tmf* t, mc_status st, const char* why)
{
    return mc_set_error(t->err, st, -1, mc_xml_offset(&t->xml), "%s: 3D model, byte %lld: %s", t->path,
                        (long long)mc_xml_offset(&t->xml), why);
}

static mc_status tmf_oom(tmf* t)
{
    return mc_set_error(t->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", t->path);
}

// A number attribute (3MF's ST_Number: digits, sign, point, exponent; no inf, nan or hex), finite.
static bool number_of(const char* v, size_t n, double* out)
{
    char buf[64];
    while (n > 0 && (*v == ' ' || *v == '\t'))
    {
        ++v, --n;
    }
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
    {
        --n;
    }
    if (n == 0 || n >= sizeof buf || strspn(v, "0123456789+-.eE") < n)
    {
        return false;
    }
    memcpy(buf, v, n);
    buf[n] = '\0';
    char* e = NULL;
    *out = strtod(buf, &e);
    return e == buf + n && isfinite(*out);
}

// Attribute `name` of the current element as a finite number (required).
static mc_status get_number(tmf* t, const char* name, double* out)
{
    const char* v = NULL;
    size_t n = 0;
    if (!mc_xml_attr(&t->xml, name, &v, &n) || !number_of(v, n, out))
    {
        char why[96];
        snprintf(why, sizeof why, "<%.*s> without a finite number '%s'", (int)t->xml.name_length, t->xml.name, name);
        return tmf_fail(t, MC_ERR_PARSE, why);
    }
    return MC_OK;
}

// Attribute `name` as an unsigned integer below UINT32_MAX (required).
static mc_status get_uint(tmf* t, const char* name, uint32_t* out)
{
    const char* v = NULL;
    size_t n = 0;
    uint64_t x = 0;
    bool ok = mc_xml_attr(&t->xml, name, &v, &n) && n > 0 && n <= 10;
    for (size_t k = 0; ok && k < n; ++k)
    {
        ok = v[k] >= '0' && v[k] <= '9';
        x = 10 * x + (uint64_t)(v[k] - '0');
    }
    if (!ok || x >= UINT32_MAX)
    {
        char why[96];
        snprintf(why, sizeof why, "<%.*s> without an integer '%s'", (int)t->xml.name_length, t->xml.name, name);
        return tmf_fail(t, MC_ERR_PARSE, why);
    }
    *out = (uint32_t)x;
    return MC_OK;
}

// The optional transform attribute: 12 numbers m00 m01 m02 m10 ... m32 of 3MF's row-vector convention
// (p' = [x y z 1] M), as a column-form affine transform; the identity when absent.
static mc_status get_transform(tmf* t, mc_affine* out)
{
    *out = mc_affine_identity();
    const char* v = NULL;
    size_t n = 0;
    if (!mc_xml_attr(&t->xml, "transform", &v, &n))
    {
        return MC_OK;
    }
    double m[12];
    const char* end = v + n;
    int k = 0;
    for (const char* p = v; p < end;)
    {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        {
            ++p;
        }
        const char* s = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
        {
            ++p;
        }
        if (p > s && (k == 12 || !number_of(s, (size_t)(p - s), &m[k++])))
        {
            return tmf_fail(t, MC_ERR_PARSE, "transform that is not 12 finite numbers");
        }
    }
    if (k != 12)
    {
        return tmf_fail(t, MC_ERR_PARSE, "transform that is not 12 finite numbers");
    }
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            out->m[i][j] = m[3 * j + i];
        }
        out->m[i][3] = m[9 + i];
    }
    return MC_OK;
}

// A component or build item: objectid, optional transform; a reference into another model part (the production
// extension's path attribute) is not read.
static mc_status add_ref(tmf* t, tmf_ref** arr, uint32_t* count, uint32_t* cap)
{
    const char* v = NULL;
    size_t n = 0;
    if (mc_xml_attr(&t->xml, "path", &v, &n))
    {
        return tmf_fail(t, MC_ERR_UNSUPPORTED_FORMAT,
                        "reference to another model part (3MF production extension 'path'), not read");
    }
    tmf_ref r;
    mc_status st = get_uint(t, "objectid", &r.object_id);
    st = st == MC_OK ? get_transform(t, &r.x) : st;
    if (st != MC_OK)
    {
        return st;
    }
    if (!mc_array_reserve((void**)arr, cap, (uint64_t)*count + 1, sizeof(tmf_ref), 16))
    {
        return tmf_oom(t);
    }
    (*arr)[(*count)++] = r;
    return MC_OK;
}

// Three required attributes of the current element: finite numbers into d, or (d NULL) integers into u.
static mc_status get_three(tmf* t, const char* const names[3], double* d, uint32_t* u)
{
    mc_status st = MC_OK;
    for (int k = 0; k < 3 && st == MC_OK; ++k)
    {
        st = d != NULL ? get_number(t, names[k], &d[k]) : get_uint(t, names[k], &u[k]);
    }
    return st;
}

// A <vertex> (x, y, z) or a <triangle> (v1, v2, v3: object-local indices, checked when the object is placed) of the
// current object.
static mc_status add_vertex_or_triangle(tmf* t, bool vertex)
{
    static const char* const names[2][3] = {{"v1", "v2", "v3"}, {"x", "y", "z"}};
    double p[3];
    uint32_t v[3];
    mc_status st = get_three(t, names[vertex], vertex ? p : NULL, v);
    if (st != MC_OK)
    {
        return st;
    }
    bool room =
        vertex ? mc_array_reserve((void**)&t->pos, &t->pos_cap, (uint64_t)t->pos_count + 1, 3 * sizeof(double), 256)
               : t->tri_count <= UINT32_MAX - 4 &&
                     mc_array_reserve((void**)&t->tri, &t->tri_cap, (uint64_t)t->tri_count + 3, sizeof(uint32_t), 256);
    if (!room)
    {
        return tmf_oom(t);
    }
    tmf_object* o = &t->obj[t->obj_count - 1];
    if (vertex)
    {
        memcpy(t->pos + 3 * (size_t)t->pos_count++, p, sizeof p);
        o->v_count++;
    }
    else
    {
        memcpy(t->tri + t->tri_count, v, sizeof v);
        t->tri_count += 3;
        o->t_count += 3;
    }
    return MC_OK;
}

static mc_status begin_object(tmf* t)
{
    uint32_t id = 0;
    mc_status st = get_uint(t, "id", &id);
    if (st != MC_OK)
    {
        return st;
    }
    if (!mc_array_reserve((void**)&t->obj, &t->obj_cap, (uint64_t)t->obj_count + 1, sizeof(tmf_object), 16))
    {
        return tmf_oom(t);
    }
    t->obj[t->obj_count++] = (tmf_object){id, t->pos_count, 0, t->tri_count, 0, t->comp_count, 0};
    return MC_OK;
}

/// Where the reader is in the model: which of object, mesh, vertices, triangles, components, build are open.
typedef struct tmf_context
{
    bool object, mesh, vertices, triangles, components, build;
} tmf_context;

// The flag of the context element the current element opens or closes (object aside), or NULL.
static bool* context_flag(const mc_xml* x, tmf_context* c)
{
    return mc_xml_is(x, "mesh")         ? &c->mesh
           : mc_xml_is(x, "vertices")   ? &c->vertices
           : mc_xml_is(x, "triangles")  ? &c->triangles
           : mc_xml_is(x, "components") ? &c->components
           : mc_xml_is(x, "build")      ? &c->build
                                        : NULL;
}

// The model's unit (default millimetre) in metres.
static mc_status read_unit(tmf* t)
{
    static const char* const names[] = {"micron", "millimeter", "centimeter", "inch", "foot", "meter"};
    static const double metres[] = {1e-6, 1e-3, 1e-2, 0.0254, 0.3048, 1.0};
    const char* v = NULL;
    size_t n = 0;
    t->soup->file_scale = 1e-3;
    if (!mc_xml_attr(&t->xml, "unit", &v, &n))
    {
        return MC_OK;
    }
    for (size_t k = 0; k < sizeof metres / sizeof metres[0]; ++k)
    {
        if (strlen(names[k]) == n && memcmp(v, names[k], n) == 0)
        {
            t->soup->file_scale = metres[k];
            return MC_OK;
        }
    }
    return tmf_fail(t, MC_ERR_UNSUPPORTED_FORMAT,
                    "unknown unit (micron, millimeter, centimeter, inch, foot or meter expected)");
}

// One start tag of the model.
static mc_status model_start(tmf* t, tmf_context* c, int depth)
{
    mc_xml* x = &t->xml;
    if (depth == 1)
    {
        return mc_xml_is(x, "model") ? read_unit(t) : tmf_fail(t, MC_ERR_PARSE, "the root element is not <model>");
    }
    if (mc_xml_is(x, "object"))
    {
        c->object = true;
        return depth == 3 ? begin_object(t) : tmf_fail(t, MC_ERR_PARSE, "<object> outside <resources>");
    }
    bool* flag = context_flag(x, c);
    if (flag != NULL)
    {
        *flag = true;
        return MC_OK;
    }
    if (mc_xml_is(x, "vertex") && c->object && c->mesh && c->vertices)
    {
        return add_vertex_or_triangle(t, true);
    }
    if (mc_xml_is(x, "triangle") && c->object && c->mesh && c->triangles)
    {
        return add_vertex_or_triangle(t, false);
    }
    if (mc_xml_is(x, "component") && c->object && c->components)
    {
        mc_status st = add_ref(t, &t->comp, &t->comp_count, &t->comp_cap);
        t->obj[t->obj_count - 1].c_count += st == MC_OK;
        return st;
    }
    if (mc_xml_is(x, "item") && c->build)
    {
        return add_ref(t, &t->item, &t->item_count, &t->item_cap);
    }
    return MC_OK; // metadata, materials, extensions: ignored
}

static void model_end(tmf* t, tmf_context* c)
{
    bool* flag = mc_xml_is(&t->xml, "object") ? &c->object : context_flag(&t->xml, c);
    if (flag != NULL)
    {
        *flag = false;
    }
}

static mc_status parse_model(tmf* t, const char* text, uint64_t size, const char* part)
{
    char what[600];
    snprintf(what, sizeof what, "%s: %s", t->path, part);
    mc_xml_init(&t->xml, text, (size_t)size, what);
    tmf_context c = {false, false, false, false, false, false};
    for (;;)
    {
        mc_xml_event ev;
        mc_status st = mc_xml_next(&t->xml, &ev, t->err);
        if (st != MC_OK || ev == MC_XML_DONE)
        {
            return st;
        }
        if (ev == MC_XML_START)
        {
            st = model_start(t, &c, t->xml.depth);
        }
        else
        {
            model_end(t, &c);
        }
        if (st != MC_OK)
        {
            return st;
        }
    }
}

static int object_order(const void* a, const void* b)
{
    uint32_t x = ((const tmf_object*)a)->id, y = ((const tmf_object*)b)->id;
    return (x > y) - (x < y);
}

static const tmf_object* find_object(const tmf* t, uint32_t id)
{
    tmf_object key = {.id = id};
    return t->obj_count > 0 ? bsearch(&key, t->obj, t->obj_count, sizeof(tmf_object), object_order) : NULL;
}

// Object `id` placed by x: its mesh, then its components (each component's transform applied first).
static mc_status place(tmf* t, uint32_t id, const mc_affine* x, int depth)
{
    const tmf_object* o = find_object(t, id);
    if (o == NULL || depth > TMF_MAX_DEPTH || ++t->visited > TMF_MAX_VISITS)
    {
        char why[128];
        snprintf(why, sizeof why,
                 o == NULL ? "%s %u, which is not defined" : "%s %u nested too deep, cyclic or too often shared",
                 "reference to object", id);
        return mc_set_error(t->err, o == NULL ? MC_ERR_INDEX_OUT_OF_RANGE : MC_ERR_PARSE, -1, -1, "%s: %s", t->path,
                            why);
    }
    char what[600];
    snprintf(what, sizeof what, "%s: object %u", t->path, id);
    // An object of components only has no points or corners (and its arrays may still be NULL).
    const double* pos = o->v_count > 0 ? t->pos + 3 * (size_t)o->v_begin : NULL;
    const uint32_t* tri = o->t_count > 0 ? t->tri + o->t_begin : NULL;
    mc_status st = mc_soup_add_instance(t->soup, pos, o->v_count, tri, o->t_count / 3, x, what, t->err);
    for (uint32_t k = 0; st == MC_OK && k < o->c_count; ++k)
    {
        const tmf_ref* r = &t->comp[o->c_begin + k];
        mc_affine y = mc_affine_mul(x, &r->x);
        st = place(t, r->object_id, &y, depth + 1);
    }
    return st;
}

static mc_status build(tmf* t)
{
    if (t->item_count == 0)
    {
        return mc_set_error(t->err, MC_ERR_EMPTY_MESH, -1, -1, "%s: the 3D model has no build item", t->path);
    }
    if (t->obj_count > 0) // qsort's array may not be NULL, even for no element
    {
        qsort(t->obj, t->obj_count, sizeof(tmf_object), object_order);
    }
    for (uint32_t k = 1; k < t->obj_count; ++k)
    {
        if (t->obj[k].id == t->obj[k - 1].id)
        {
            return mc_set_error(t->err, MC_ERR_PARSE, -1, -1, "%s: two objects with id %u", t->path, t->obj[k].id);
        }
    }
    mc_status st = MC_OK;
    for (uint32_t k = 0; st == MC_OK && k < t->item_count; ++k)
    {
        st = place(t, t->item[k].object_id, &t->item[k].x, 0);
    }
    return st;
}

// The model part's name: the package relationship of type .../3dmodel in _rels/.rels (leading '/' dropped), else the
// conventional 3D/3dmodel.model.
static mc_status model_part(tmf* t, const mc_zip* zip, char* name, size_t cap)
{
    snprintf(name, cap, "3D/3dmodel.model");
    const mc_zip_entry* rels = mc_zip_find(zip, "_rels/.rels");
    if (rels == NULL)
    {
        return MC_OK;
    }
    char* text = NULL;
    uint64_t size = 0;
    mc_status st = mc_zip_extract(zip, rels, t->soup->max_bytes, &text, &size, t->err);
    if (st != MC_OK)
    {
        return st;
    }
    char what[600];
    snprintf(what, sizeof what, "%s: _rels/.rels", t->path);
    mc_xml x;
    mc_xml_init(&x, text, (size_t)size, what);
    mc_xml_event ev = MC_XML_START;
    while (st == MC_OK && ev != MC_XML_DONE)
    {
        st = mc_xml_next(&x, &ev, t->err);
        const char *type = NULL, *target = NULL;
        size_t tn = 0, gn = 0;
        if (st == MC_OK && ev == MC_XML_START && mc_xml_is(&x, "Relationship") && mc_xml_attr(&x, "Type", &type, &tn) &&
            tn >= 8 && memcmp(type + tn - 8, "/3dmodel", 8) == 0 && mc_xml_attr(&x, "Target", &target, &gn))
        {
            size_t skip = gn > 0 && target[0] == '/';
            snprintf(name, cap, "%.*s", (int)(gn - skip < cap - 1 ? gn - skip : cap - 1), target + skip);
            break;
        }
    }
    mc_free(text);
    return st;
}

static mc_status read_package(tmf* t, const unsigned char* data, uint64_t size)
{
    mc_zip zip;
    char part[256];
    mc_status st = mc_zip_open(&zip, data, size, t->path, t->err);
    st = st == MC_OK ? model_part(t, &zip, part, sizeof part) : st;
    if (st == MC_OK)
    {
        const mc_zip_entry* e = mc_zip_find(&zip, part);
        char* text = NULL;
        uint64_t n = 0;
        st = e == NULL
                 ? mc_set_error(t->err, MC_ERR_PARSE, -1, -1, "%s: no 3D model part '%s' in the package", t->path, part)
                 : mc_zip_extract(&zip, e, t->soup->max_bytes, &text, &n, t->err);
        st = st == MC_OK ? parse_model(t, text, n, part) : st;
        st = st == MC_OK ? build(t) : st;
        mc_free(text);
    }
    mc_zip_close(&zip);
    return st;
}

mc_status mc_3mf_read(const char* path, mc_soup* soup, mc_error* err)
{
    tmf t = {.path = path, .soup = soup, .err = err};
    char* data = NULL;
    uint64_t size = 0;
    mc_status st = mc_read_file(path, soup->max_bytes, &data, &size, err);
    if (st == MC_OK)
    {
        st = read_package(&t, (const unsigned char*)data, size);
    }
    mc_free(data);
    mc_free(t.pos);
    mc_free(t.tri);
    mc_free(t.obj);
    mc_free(t.comp);
    mc_free(t.item);
    return st;
}
