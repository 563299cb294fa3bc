// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The animation of `meshcontact simulate` as an animated glTF 2.0 binary: the recorder (keyframes at the output
// times and the force peaks between them) and the GLB writer. See anim_gltf.h for what the file holds.
#include "src/app/anim_gltf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A region at a keyframe: its contact, point and the force on the J part (normal plus friction).
typedef struct anim_region
{
    int contact;
    mc_vec3 point;
    mc_vec3 force;
} anim_region;

/// A snapshot of the state: part poses, summed normal force per contact and the regions.
typedef struct anim_snap
{
    double t;
    mc_pose* poses;       ///< per part
    double* fn;           ///< per contact
    anim_region* regions; ///< region_count of region_cap
    int region_count;
    int region_cap;
    bool valid;
} anim_snap;

struct app_anim
{
    int parts;
    int contacts;
    // keyframes
    int count;
    int cap;
    double* t;         ///< count
    mc_pose* poses;    ///< count * parts
    double* fn;        ///< count * contacts
    size_t* reg_start; ///< count + 1: regions of keyframe k are [reg_start[k], reg_start[k + 1])
    anim_region* reg;  ///< all regions
    size_t reg_cap;    ///< capacity of reg
    anim_snap* peak;   ///< per contact: the state where its normal force peaked since the last output
    anim_snap now;     ///< scratch
    int last_output;   ///< keyframe index of the last output time, -1 before the first
    bool failed;       ///< out of memory while recording
};

// ---------------------------------------------------------------------------------------------------------------
// Recorder
// ---------------------------------------------------------------------------------------------------------------

static bool snap_init(anim_snap* s, int parts, int contacts)
{
    memset(s, 0, sizeof *s);
    s->poses = calloc((size_t)(parts > 0 ? parts : 1), sizeof *s->poses);
    s->fn = calloc((size_t)(contacts > 0 ? contacts : 1), sizeof *s->fn);
    return s->poses != NULL && s->fn != NULL;
}

static void snap_free(anim_snap* s)
{
    free(s->poses);
    free(s->fn);
    free(s->regions);
}

/// The simulation's current state into s. @return false when out of memory
static bool snap_take(anim_snap* s, const app_sim* sim, int parts, int contacts)
{
    s->t = app_sim_get_time(sim);
    for (int i = 0; i < parts; ++i)
    {
        app_sim_get_part(sim, i, &s->poses[i], NULL, NULL);
    }
    for (int c = 0; c < contacts; ++c)
    {
        s->fn[c] = app_sim_get_contact(sim, c).normal_force;
    }
    int n = app_sim_get_tracked_region_count(sim);
    if (n > s->region_cap)
    {
        anim_region* r = realloc(s->regions, (size_t)n * sizeof *r);
        if (r == NULL)
        {
            return false;
        }
        s->regions = r;
        s->region_cap = n;
    }
    s->region_count = 0;
    for (int k = 0; k < n; ++k)
    {
        app_sim_tracked_region tr;
        if (app_sim_get_tracked_region(sim, k, &tr))
        {
            const mc_contact_region* cr = &tr.region;
            mc_vec3 f = mc_add(mc_scale(cr->region.normal, cr->normal_force), cr->friction_force);
            s->regions[s->region_count++] = (anim_region){tr.contact, cr->region.centroid, f};
        }
    }
    s->valid = true;
    return true;
}

static bool snap_copy(anim_snap* dst, const anim_snap* src, int parts, int contacts)
{
    if (src->region_count > dst->region_cap)
    {
        anim_region* r = realloc(dst->regions, (size_t)src->region_count * sizeof *r);
        if (r == NULL)
        {
            return false;
        }
        dst->regions = r;
        dst->region_cap = src->region_count;
    }
    dst->t = src->t;
    memcpy(dst->poses, src->poses, (size_t)parts * sizeof *dst->poses);
    memcpy(dst->fn, src->fn, (size_t)contacts * sizeof *dst->fn);
    if (src->region_count > 0)
    {
        memcpy(dst->regions, src->regions, (size_t)src->region_count * sizeof *dst->regions);
    }
    dst->region_count = src->region_count;
    dst->valid = true;
    return true;
}

app_anim* app_anim_create(const app_sim* sim)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    app_anim* a = calloc(1, sizeof *a);
    if (a == NULL)
    {
        return NULL;
    }
    a->parts = scn->part_count;
    a->contacts = scn->contact_count;
    a->last_output = -1;
    a->peak = calloc((size_t)(a->contacts > 0 ? a->contacts : 1), sizeof *a->peak);
    a->reg_start = calloc(1, sizeof *a->reg_start);
    bool ok = a->peak != NULL && a->reg_start != NULL && snap_init(&a->now, a->parts, a->contacts);
    for (int c = 0; ok && c < a->contacts; ++c)
    {
        ok = snap_init(&a->peak[c], a->parts, a->contacts);
    }
    if (!ok)
    {
        app_anim_destroy(a);
        return NULL;
    }
    return a;
}

void app_anim_destroy(app_anim* a)
{
    if (a == NULL)
    {
        return;
    }
    for (int c = 0; a->peak != NULL && c < a->contacts; ++c)
    {
        snap_free(&a->peak[c]);
    }
    snap_free(&a->now);
    free(a->peak);
    free(a->t);
    free(a->poses);
    free(a->fn);
    free(a->reg_start);
    free(a->reg);
    free(a);
}

/// Append a snapshot as a keyframe. @return false when out of memory
static bool push_keyframe(app_anim* a, const anim_snap* s)
{
    if (a->count == a->cap)
    {
        int cap = a->cap > 0 ? 2 * a->cap : 256;
        double* t = realloc(a->t, (size_t)cap * sizeof *t);
        a->t = t != NULL ? t : a->t;
        mc_pose* p = realloc(a->poses, (size_t)cap * (size_t)(a->parts > 0 ? a->parts : 1) * sizeof *p);
        a->poses = p != NULL ? p : a->poses;
        double* f = realloc(a->fn, (size_t)cap * (size_t)(a->contacts > 0 ? a->contacts : 1) * sizeof *f);
        a->fn = f != NULL ? f : a->fn;
        size_t* rs = realloc(a->reg_start, (size_t)(cap + 1) * sizeof *rs);
        a->reg_start = rs != NULL ? rs : a->reg_start;
        if (t == NULL || p == NULL || f == NULL || rs == NULL)
        {
            return false;
        }
        a->cap = cap;
    }
    size_t r0 = a->reg_start[a->count];
    size_t need = r0 + (size_t)s->region_count;
    if (need > a->reg_cap)
    {
        size_t cap = a->reg_cap > 0 ? 2 * a->reg_cap : 1024;
        cap = cap < need ? need : cap;
        anim_region* r = realloc(a->reg, cap * sizeof *r);
        if (r == NULL)
        {
            return false;
        }
        a->reg = r;
        a->reg_cap = cap;
    }
    int k = a->count;
    a->t[k] = s->t;
    memcpy(a->poses + (size_t)k * (size_t)a->parts, s->poses, (size_t)a->parts * sizeof *a->poses);
    memcpy(a->fn + (size_t)k * (size_t)a->contacts, s->fn, (size_t)a->contacts * sizeof *a->fn);
    if (s->region_count > 0)
    {
        memcpy(a->reg + r0, s->regions, (size_t)s->region_count * sizeof *a->reg);
    }
    a->reg_start[k + 1] = need;
    a->count = k + 1;
    return true;
}

void app_anim_step(app_anim* a, const app_sim* sim)
{
    if (a->failed)
    {
        return;
    }
    bool taken = false;
    for (int c = 0; c < a->contacts; ++c)
    {
        double fn = app_sim_get_contact(sim, c).normal_force;
        anim_snap* p = &a->peak[c];
        if (fn > 0.0 && (!p->valid || fn > p->fn[c]))
        {
            if (!taken && !snap_take(&a->now, sim, a->parts, a->contacts))
            {
                a->failed = true;
                return;
            }
            taken = true;
            if (!snap_copy(p, &a->now, a->parts, a->contacts))
            {
                a->failed = true;
                return;
            }
        }
    }
}

/// Peak snapshots of the interval before the output snapshot `now`, in time order (contacts in order on ties).
static int interval_peaks(const app_anim* a, const anim_snap* now, int* order)
{
    int n = 0;
    double t0 = a->last_output >= 0 ? a->t[a->last_output] : -INFINITY;
    for (int c = 0; c < a->contacts; ++c)
    {
        const anim_snap* p = &a->peak[c];
        double before = a->last_output >= 0 ? a->fn[(size_t)a->last_output * (size_t)a->contacts + (size_t)c] : 0.0;
        if (p->valid && p->t > t0 && p->t < now->t && p->fn[c] > before && p->fn[c] > now->fn[c])
        {
            int k = n++;
            while (k > 0 && a->peak[order[k - 1]].t > p->t) // insertion sort, stable
            {
                order[k] = order[k - 1];
                --k;
            }
            order[k] = c;
        }
    }
    return n;
}

void app_anim_output(app_anim* a, const app_sim* sim)
{
    if (a->failed)
    {
        return;
    }
    if (!snap_take(&a->now, sim, a->parts, a->contacts))
    {
        a->failed = true;
        return;
    }
    int* order = malloc((size_t)(a->contacts > 0 ? a->contacts : 1) * sizeof *order);
    bool ok = order != NULL;
    int n = ok ? interval_peaks(a, &a->now, order) : 0;
    double last = -INFINITY;
    for (int k = 0; ok && k < n; ++k)
    {
        const anim_snap* p = &a->peak[order[k]];
        if (p->t > last)
        {
            ok = push_keyframe(a, p);
            last = p->t;
        }
    }
    ok = ok && push_keyframe(a, &a->now);
    for (int c = 0; c < a->contacts; ++c)
    {
        a->peak[c].valid = false;
    }
    a->last_output = a->count - 1;
    a->failed = !ok;
    free(order);
}

int app_anim_get_keyframes(const app_anim* a, const double** times)
{
    *times = a->t;
    return a->count;
}

double app_anim_get_normal_force(const app_anim* a, int k, int c)
{
    return a->fn[(size_t)k * (size_t)a->contacts + (size_t)c];
}

// ---------------------------------------------------------------------------------------------------------------
// Growing buffers: the JSON text and the binary chunk
// ---------------------------------------------------------------------------------------------------------------

typedef struct buf
{
    unsigned char* data;
    size_t size;
    size_t cap;
    bool failed;
} buf;

static bool buf_reserve(buf* b, size_t extra)
{
    if (b->failed)
    {
        return false;
    }
    if (b->size + extra <= b->cap)
    {
        return true;
    }
    size_t cap = b->cap > 0 ? b->cap : 4096;
    while (cap < b->size + extra)
    {
        cap *= 2;
    }
    unsigned char* d = realloc(b->data, cap);
    if (d == NULL)
    {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

static void buf_add(buf* b, const void* p, size_t n)
{
    if (n > 0 && buf_reserve(b, n))
    {
        memcpy(b->data + b->size, p, n);
        b->size += n;
    }
}

static void buf_printf(buf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(buf* b, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n + 1))
    {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf((char*)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
}

/// A JSON string (quotes, backslashes and control characters escaped; '<' as \u003c so that the text can sit in an
/// HTML script element).
static void buf_json_string(buf* b, const char* s)
{
    buf_add(b, "\"", 1);
    for (const unsigned char* p = (const unsigned char*)s; *p; ++p)
    {
        if (*p == '"' || *p == '\\')
        {
            buf_printf(b, "\\%c", *p);
        }
        else if (*p < 0x20 || *p == '<')
        {
            buf_printf(b, "\\u%04x", *p);
        }
        else
        {
            buf_add(b, p, 1);
        }
    }
    buf_add(b, "\"", 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Geometry for display
// ---------------------------------------------------------------------------------------------------------------

/// A display mesh: float positions and 32-bit indices, in the mesh frame.
typedef struct disp_mesh
{
    float* pos;    ///< 3 * vertices
    uint32_t* idx; ///< 3 * triangles
    uint32_t vertices;
    uint32_t triangles;
    uint32_t source_triangles; ///< before decimation
} disp_mesh;

typedef struct cluster_key
{
    uint64_t key;
    uint32_t vertex;
} cluster_key;

static int cluster_cmp(const void* pa, const void* pb)
{
    const cluster_key* a = pa;
    const cluster_key* b = pb;
    if (a->key != b->key)
    {
        return a->key < b->key ? -1 : 1;
    }
    return a->vertex < b->vertex ? -1 : (a->vertex > b->vertex ? 1 : 0);
}

/// Vertex clustering on a grid of cell h: vertices in one cell merge into their mean; triangles that lose a corner
/// are dropped. Writes the result into out (allocated). @return the triangle count, or -1 when out of memory
static int64_t cluster(const mc_vec3* pos, uint32_t nv, const uint32_t* idx, uint32_t nt, mc_vec3 lo, double h,
                       disp_mesh* out)
{
    cluster_key* keys = malloc((size_t)nv * sizeof *keys);
    uint32_t* remap = malloc((size_t)nv * sizeof *remap);
    double* sum = calloc((size_t)nv * 4, sizeof *sum);
    uint32_t* tri = malloc((size_t)nt * 3 * sizeof *tri);
    if (keys == NULL || remap == NULL || sum == NULL || tri == NULL)
    {
        free(keys);
        free(remap);
        free(sum);
        free(tri);
        return -1;
    }
    for (uint32_t v = 0; v < nv; ++v)
    {
        uint64_t ix = (uint64_t)((pos[v].x - lo.x) / h) & 0x1FFFFF;
        uint64_t iy = (uint64_t)((pos[v].y - lo.y) / h) & 0x1FFFFF;
        uint64_t iz = (uint64_t)((pos[v].z - lo.z) / h) & 0x1FFFFF;
        keys[v] = (cluster_key){(ix << 42) | (iy << 21) | iz, v};
    }
    qsort(keys, nv, sizeof *keys, cluster_cmp);
    uint32_t cells = 0;
    for (uint32_t k = 0; k < nv; ++k)
    {
        if (k > 0 && keys[k].key != keys[k - 1].key)
        {
            ++cells;
        }
        uint32_t v = keys[k].vertex;
        remap[v] = cells;
        sum[4 * cells] += pos[v].x;
        sum[4 * cells + 1] += pos[v].y;
        sum[4 * cells + 2] += pos[v].z;
        sum[4 * cells + 3] += 1.0;
    }
    cells += nv > 0 ? 1 : 0;
    uint32_t kept = 0;
    for (uint32_t t = 0; t < nt; ++t)
    {
        uint32_t a = remap[idx[3 * t]], b = remap[idx[3 * t + 1]], c = remap[idx[3 * t + 2]];
        if (a != b && b != c && a != c)
        {
            tri[3 * kept] = a;
            tri[3 * kept + 1] = b;
            tri[3 * kept + 2] = c;
            ++kept;
        }
    }
    float* p = malloc((size_t)(cells > 0 ? cells : 1) * 3 * sizeof *p);
    if (p == NULL)
    {
        free(keys);
        free(remap);
        free(sum);
        free(tri);
        return -1;
    }
    for (uint32_t c = 0; c < cells; ++c)
    {
        for (int d = 0; d < 3; ++d)
        {
            p[3 * c + (uint32_t)d] = (float)(sum[4 * c + (uint32_t)d] / sum[4 * c + 3]);
        }
    }
    free(out->pos);
    free(out->idx);
    out->pos = p;
    out->idx = tri;
    out->vertices = cells;
    out->triangles = kept;
    free(keys);
    free(remap);
    free(sum);
    return kept;
}

/// The display mesh of an mc_mesh: as is, or decimated to at most APP_ANIM_MAX_TRIANGLES triangles.
static bool display_from_arrays(const mc_vec3* pos, uint32_t nv, const uint32_t* idx, uint32_t nt, disp_mesh* out)
{
    memset(out, 0, sizeof *out);
    out->source_triangles = nt;
    if (nt <= APP_ANIM_MAX_TRIANGLES)
    {
        out->pos = malloc((size_t)(nv > 0 ? nv : 1) * 3 * sizeof *out->pos);
        out->idx = malloc((size_t)(nt > 0 ? nt : 1) * 3 * sizeof *out->idx);
        if (out->pos == NULL || out->idx == NULL)
        {
            return false;
        }
        for (uint32_t v = 0; v < nv; ++v)
        {
            out->pos[3 * v] = (float)pos[v].x;
            out->pos[3 * v + 1] = (float)pos[v].y;
            out->pos[3 * v + 2] = (float)pos[v].z;
        }
        memcpy(out->idx, idx, (size_t)nt * 3 * sizeof *idx);
        out->vertices = nv;
        out->triangles = nt;
        return true;
    }
    // Cell from the surface area: a closed mesh clustered at cell h keeps about 2 A / h^2 triangles (two per
    // occupied cell face); then grown until at most the limit remain.
    mc_vec3 lo = pos[0], hi = pos[0];
    for (uint32_t v = 1; v < nv; ++v)
    {
        lo = mc_v3(fmin(lo.x, pos[v].x), fmin(lo.y, pos[v].y), fmin(lo.z, pos[v].z));
        hi = mc_v3(fmax(hi.x, pos[v].x), fmax(hi.y, pos[v].y), fmax(hi.z, pos[v].z));
    }
    double area = 0.0;
    for (uint32_t t = 0; t < nt; ++t)
    {
        mc_vec3 a = pos[idx[3 * t]], b = pos[idx[3 * t + 1]], c = pos[idx[3 * t + 2]];
        area += 0.5 * mc_length(mc_cross(mc_sub(b, a), mc_sub(c, a)));
    }
    double extent = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    double h = fmax(sqrt(2.0 * area / APP_ANIM_MAX_TRIANGLES), extent / 2.0e6); // 21-bit cell indices
    for (int iter = 0; iter < 40; ++iter)
    {
        int64_t kept = cluster(pos, nv, idx, nt, lo, h, out);
        if (kept < 0)
        {
            return false;
        }
        if (kept <= APP_ANIM_MAX_TRIANGLES)
        {
            return true;
        }
        h *= fmax(1.02, sqrt((double)kept / APP_ANIM_MAX_TRIANGLES));
    }
    return false;
}

static void disp_free(disp_mesh* m)
{
    free(m->pos);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

/// The library's tessellation of an ANALYTIC sphere or cylinder (the exact shape's frame: the cylinder centred).
static bool display_analytic(const app_scenario_graphics* g, disp_mesh* out, char* err, size_t cap)
{
    mc_primitive_def d = mc_default_primitive_def();
    d.type = g->shape == APP_SCENARIO_SPHERE ? MC_PRIMITIVE_ELLIPSOID : MC_PRIMITIVE_CYLINDER;
    d.dims = g->shape == APP_SCENARIO_SPHERE ? mc_v3(g->size[0], g->size[0], g->size[0])
                                             : mc_v3(g->size[0], 0.0, g->size[1]);
    double* pos = NULL;
    uint32_t* idx = NULL;
    uint32_t nv = 0, nt = 0;
    mc_status st = mc_primitive_tessellate_count(&d, APP_ANIM_ANALYTIC_TRIANGLES, &pos, &nv, &idx, &nt, NULL);
    if (st != MC_OK)
    {
        snprintf(err, cap, "GRAPHICS/%d: cannot tessellate the analytic shape for display: %s", g->id,
                 mc_status_string(st));
        return false;
    }
    bool ok = display_from_arrays((const mc_vec3*)pos, nv, idx, nt, out);
    mc_free_arrays(pos, idx);
    return ok;
}

/// A unit arrow along +y from 0 to 1: a 12-sided shaft of radius 0.15 to y = 0.7 and a cone of radius 0.4 to the
/// tip. The node's scale (w, L, w) gives it its width w and length L.
static bool display_arrow(disp_mesh* out)
{
    enum
    {
        SEG = 12
    };
    memset(out, 0, sizeof *out);
    out->vertices = 3 * SEG + 3;
    out->triangles = 5 * SEG;
    out->pos = calloc((size_t)out->vertices * 3, sizeof *out->pos);
    out->idx = calloc((size_t)out->triangles * 3, sizeof *out->idx);
    if (out->pos == NULL || out->idx == NULL)
    {
        return false;
    }
    const double pi = 3.14159265358979323846;
    float* p = out->pos;
    for (int k = 0; k < SEG; ++k)
    {
        double a = 2.0 * pi * k / SEG;
        float c = (float)cos(a), s = (float)sin(a);
        float ring[3][3] = {{0.15f * c, 0.0f, 0.15f * s}, {0.15f * c, 0.7f, 0.15f * s}, {0.4f * c, 0.7f, 0.4f * s}};
        for (int r = 0; r < 3; ++r)
        {
            memcpy(p + 3 * (r * SEG + k), ring[r], sizeof ring[r]);
        }
    }
    float centres[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.7f, 0.0f}, {0.0f, 1.0f, 0.0f}};
    memcpy(p + 9 * SEG, centres, sizeof centres);
    uint32_t base = 3 * SEG, tip = 3 * SEG + 2, head = 3 * SEG + 1;
    uint32_t* t = out->idx;
    for (uint32_t k = 0; k < SEG; ++k)
    {
        uint32_t n = (k + 1) % SEG;
        uint32_t tris[5][3] = {
            {base, k, n},                     // bottom cap (seen from -y)
            {k, SEG + n, n},                  // shaft
            {k, SEG + k, SEG + n},            // shaft
            {2 * SEG + k, head, 2 * SEG + n}, // underside of the head
            {2 * SEG + k, 2 * SEG + n, tip},  // cone
        };
        memcpy(t + 15 * k, tris, sizeof tris);
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Scene layout
// ---------------------------------------------------------------------------------------------------------------

/// Metres per length unit of UNITS/LENGTH, 1 when unknown or not given (stated in anim_gltf.h).
static double metres_per_unit(const char* unit)
{
    static const struct
    {
        const char* name;
        double m;
    } units[] = {{"METER", 1.0}, {"METRE", 1.0},       {"M", 1.0},           {"MILLIMETER", 1e-3}, {"MILLIMETRE", 1e-3},
                 {"MM", 1e-3},   {"CENTIMETER", 1e-2}, {"CENTIMETRE", 1e-2}, {"CM", 1e-2},         {"KILOMETER", 1e3},
                 {"KM", 1e3},    {"INCH", 0.0254},     {"IN", 0.0254},       {"FOOT", 0.3048},     {"FT", 0.3048}};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; ++k)
    {
        const char* a = unit;
        const char* b = units[k].name;
        while (*a && *b && (*a == *b || *a == *b + ('a' - 'A')))
        {
            ++a;
            ++b;
        }
        if (*a == '\0' && *b == '\0')
        {
            return units[k].m;
        }
    }
    return 1.0;
}

/// The rotation taking unit u onto +y (the shortest one; half a turn about x when u = -y).
static mc_quat onto_y(mc_vec3 u)
{
    mc_vec3 y = mc_v3(0.0, 1.0, 0.0);
    double c = mc_dot(u, y);
    if (c < -1.0 + 1e-12)
    {
        return (mc_quat){0.0, 1.0, 0.0, 0.0};
    }
    mc_vec3 ax = mc_cross(u, y);
    mc_quat q = {1.0 + c, ax.x, ax.y, ax.z};
    return mc_quat_normalize(q);
}

/// The rotation taking +y onto unit d (the shortest one).
static mc_quat from_y(mc_vec3 d)
{
    mc_quat q = onto_y(d);
    return (mc_quat){q.w, -q.x, -q.y, -q.z};
}

/// Everything the GLB needs beside the recorder: display meshes, bounds, scale factors.
typedef struct scene
{
    const app_scenario* scn;
    disp_mesh* meshes; ///< per graphics
    mc_pose* local;    ///< per graphics: mesh frame in the part's centre of mass frame
    disp_mesh arrow;
    bool* moving;       ///< per part: its pose changes over the run
    mc_vec3 lo, hi;     ///< bounds of the space swept by the moving parts (scenario frame)
    double size;        ///< the diagonal of those bounds
    double force_scale; ///< arrow length per force unit
    double width;       ///< arrow width
    int* slots;         ///< per contact: arrows
    int* material_of;   ///< 7 + contacts: the material's index in the file (see add_materials), -1 when unused
    int* kept;          ///< keyframes kept (strictly increasing float times)
    int kept_count;
} scene;

static void scene_free(scene* s)
{
    for (int g = 0; s->meshes != NULL && g < s->scn->graphics_count; ++g)
    {
        disp_free(&s->meshes[g]);
    }
    disp_free(&s->arrow);
    free(s->meshes);
    free(s->local);
    free(s->moving);
    free(s->slots);
    free(s->material_of);
    free(s->kept);
}

/// Bounds of the moving parts over the keyframes (a sphere around each centre of mass holding its display
/// vertices), or of every non-plane geometry at the first keyframe when nothing moves.
static void scene_bounds(scene* s, const app_anim* a)
{
    const app_scenario* scn = s->scn;
    s->lo = mc_v3(INFINITY, INFINITY, INFINITY);
    s->hi = mc_v3(-INFINITY, -INFINITY, -INFINITY);
    bool any_moving = false;
    for (int i = 0; i < scn->part_count; ++i)
    {
        any_moving = any_moving || s->moving[i];
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        if (any_moving && !s->moving[i])
        {
            continue;
        }
        double r = 0.0;
        for (int g = 0; g < scn->graphics_count; ++g)
        {
            const disp_mesh* m = &s->meshes[g];
            for (uint32_t v = 0; scn->graphics[g].part_index == i && v < m->vertices; ++v)
            {
                mc_vec3 x = mc_v3(m->pos[3 * v], m->pos[3 * v + 1], m->pos[3 * v + 2]);
                r = fmax(r, mc_length(mc_pose_transform(&s->local[g], x)));
            }
        }
        for (int k = 0; k < (any_moving ? a->count : 1); ++k)
        {
            mc_vec3 p = a->poses[(size_t)k * (size_t)a->parts + (size_t)i].p;
            s->lo = mc_v3(fmin(s->lo.x, p.x - r), fmin(s->lo.y, p.y - r), fmin(s->lo.z, p.z - r));
            s->hi = mc_v3(fmax(s->hi.x, p.x + r), fmax(s->hi.y, p.y + r), fmax(s->hi.z, p.z + r));
        }
    }
    if (!(s->lo.x <= s->hi.x))
    {
        s->lo = mc_v3(-0.5, -0.5, -0.5);
        s->hi = mc_v3(0.5, 0.5, 0.5);
    }
    s->size = mc_length(mc_sub(s->hi, s->lo));
    s->size = s->size > 0.0 ? s->size : 1.0;
}

/// A PLANE's display square in its geometry frame: z = 0, centred under the swept bounds, 4 times their size.
static bool display_plane(scene* s, const app_anim* a, int g)
{
    const app_scenario_graphics* gr = &s->scn->graphics[g];
    mc_pose part = a->poses[gr->part_index];
    mc_pose frame = mc_pose_mul(&part, &s->local[g]);
    mc_vec3 c = mc_pose_inv_transform(&frame, mc_scale(mc_add(s->lo, s->hi), 0.5));
    double h = 2.0 * s->size;
    mc_vec3 corners[4] = {mc_v3(c.x - h, c.y - h, 0.0), mc_v3(c.x + h, c.y - h, 0.0), mc_v3(c.x + h, c.y + h, 0.0),
                          mc_v3(c.x - h, c.y + h, 0.0)};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    return display_from_arrays(corners, 4, idx, 2, &s->meshes[g]);
}

static bool scene_build(scene* s, const app_anim* a, const app_sim* sim, char* err, size_t cap)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    memset(s, 0, sizeof *s);
    s->scn = scn;
    int ng = scn->graphics_count, nc = scn->contact_count;
    s->meshes = calloc((size_t)(ng > 0 ? ng : 1), sizeof *s->meshes);
    s->local = calloc((size_t)(ng > 0 ? ng : 1), sizeof *s->local);
    s->moving = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->moving);
    s->slots = calloc((size_t)(nc > 0 ? nc : 1), sizeof *s->slots);
    s->kept = calloc((size_t)(a->count > 0 ? a->count : 1), sizeof *s->kept);
    s->material_of = calloc((size_t)(7 + nc), sizeof *s->material_of);
    if (s->meshes == NULL || s->local == NULL || s->moving == NULL || s->slots == NULL || s->kept == NULL ||
        s->material_of == NULL || !display_arrow(&s->arrow))
    {
        snprintf(err, cap, "out of memory for the animation");
        return false;
    }
    for (int g = 0; g < ng; ++g)
    {
        const mc_mesh* m = app_sim_get_graphics_mesh(sim, g, &s->local[g]);
        bool ok = true;
        if (m != NULL)
        {
            ok = display_from_arrays(mc_mesh_get_positions(m), mc_mesh_get_vertex_count(m), mc_mesh_get_indices(m),
                                     mc_mesh_get_triangle_count(m), &s->meshes[g]);
        }
        else if (scn->graphics[g].shape != APP_SCENARIO_PLANE)
        {
            ok = display_analytic(&scn->graphics[g], &s->meshes[g], err, cap);
            if (!ok)
            {
                return false;
            }
        }
        if (!ok)
        {
            snprintf(err, cap, "out of memory for the animation");
            return false;
        }
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        for (int k = 1; k < a->count && !s->moving[i]; ++k)
        {
            const mc_pose* p0 = &a->poses[i];
            const mc_pose* pk = &a->poses[(size_t)k * (size_t)a->parts + (size_t)i];
            s->moving[i] = memcmp(p0, pk, sizeof *p0) != 0;
        }
    }
    scene_bounds(s, a);
    for (int g = 0; g < ng; ++g)
    {
        if (scn->graphics[g].shape == APP_SCENARIO_PLANE && !display_plane(s, a, g))
        {
            snprintf(err, cap, "out of memory for the animation");
            return false;
        }
    }
    // Arrows: the largest force gives APP_ANIM_ARROW_FRACTION of the size; slots: the most regions at once.
    double fmax_all = 0.0;
    for (int k = 0; k < a->count; ++k)
    {
        int* per = s->slots; // counted per keyframe, kept as the maximum
        int counts[64];
        int* cnt = nc <= 64 ? counts : NULL;
        int* heap = cnt == NULL ? calloc((size_t)nc, sizeof *heap) : NULL;
        cnt = cnt != NULL ? cnt : heap;
        if (cnt == NULL)
        {
            snprintf(err, cap, "out of memory for the animation");
            return false;
        }
        memset(cnt, 0, (size_t)nc * sizeof *cnt);
        for (size_t r = a->reg_start[k]; r < a->reg_start[k + 1]; ++r)
        {
            cnt[a->reg[r].contact] += 1;
            fmax_all = fmax(fmax_all, mc_length(a->reg[r].force));
        }
        for (int c = 0; c < nc; ++c)
        {
            per[c] = cnt[c] > per[c] ? (cnt[c] < APP_ANIM_MAX_ARROWS ? cnt[c] : APP_ANIM_MAX_ARROWS) : per[c];
        }
        free(heap);
    }
    s->force_scale = fmax_all > 0.0 ? APP_ANIM_ARROW_FRACTION * s->size / fmax_all : 0.0;
    s->width = 0.012 * s->size;
    // Materials in use only (the validator reports unused ones): those of the parts with geometry, of the contacts
    // with arrows.
    for (int m = 0; m < 7 + nc; ++m)
    {
        s->material_of[m] = -1;
    }
    for (int g = 0; g < ng; ++g)
    {
        int i = scn->graphics[g].part_index;
        s->material_of[s->moving[i] ? 1 + i % 6 : 0] = 0;
    }
    for (int c = 0; c < nc; ++c)
    {
        s->material_of[7 + c] = s->slots[c] > 0 ? 0 : -1;
    }
    for (int m = 0, next = 0; m < 7 + nc; ++m)
    {
        s->material_of[m] = s->material_of[m] == 0 ? next++ : -1;
    }
    float last = -INFINITY;
    for (int k = 0; k < a->count; ++k)
    {
        if ((float)a->t[k] > last)
        {
            s->kept[s->kept_count++] = k;
            last = (float)a->t[k];
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// GLB
// ---------------------------------------------------------------------------------------------------------------

/// The JSON and binary chunks under construction, and the counts of what they hold.
typedef struct glb
{
    buf json;
    buf bin;
    buf accessors; ///< the "accessors" array's items, comma-separated
    buf views;     ///< the "bufferViews" items
    int accessor_count;
} glb;

/// Add a bufferView and an accessor of float or uint32 data. @return the accessor index
static int add_accessor(glb* g, const void* data, size_t count, int components, bool is_uint, int target,
                        const float* minv, const float* maxv)
{
    static const char* const types[] = {"", "SCALAR", "", "VEC3", "VEC4"};
    size_t bytes = count * (size_t)components * 4;
    size_t offset = g->bin.size;
    buf_add(&g->bin, data, bytes);
    int view = g->accessor_count;
    buf_printf(&g->views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", view > 0 ? "," : "", offset, bytes);
    if (target != 0)
    {
        buf_printf(&g->views, ",\"target\":%d", target);
    }
    buf_printf(&g->views, "}");
    buf_printf(&g->accessors, "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%zu,\"type\":\"%s\"",
               view > 0 ? "," : "", view, is_uint ? 5125 : 5126, count, types[components]);
    if (minv != NULL)
    {
        buf_printf(&g->accessors, ",\"min\":[");
        for (int c = 0; c < components; ++c)
        {
            buf_printf(&g->accessors, "%s%.9g", c ? "," : "", (double)minv[c]);
        }
        buf_printf(&g->accessors, "],\"max\":[");
        for (int c = 0; c < components; ++c)
        {
            buf_printf(&g->accessors, "%s%.9g", c ? "," : "", (double)maxv[c]);
        }
        buf_printf(&g->accessors, "]");
    }
    buf_printf(&g->accessors, "}");
    return g->accessor_count++;
}

/// A mesh item of the "meshes" array: one primitive.
static void mesh_item(buf* meshes, int mesh_index, const char* name, int pos, int idx, int material)
{
    buf_printf(meshes, "%s{\"name\":", mesh_index > 0 ? "," : "");
    buf_json_string(meshes, name);
    buf_printf(meshes, ",\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"indices\":%d,\"material\":%d}]}", pos, idx,
               material);
}

/// Mesh accessors (positions with their bounds, indices) into acc[0], acc[1].
static void add_mesh_data(glb* g, const disp_mesh* m, int* acc)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < m->vertices; ++v)
    {
        for (int c = 0; c < 3; ++c)
        {
            lo[c] = fminf(lo[c], m->pos[3 * v + (uint32_t)c]);
            hi[c] = fmaxf(hi[c], m->pos[3 * v + (uint32_t)c]);
        }
    }
    acc[0] = add_accessor(g, m->pos, m->vertices, 3, false, 34962, lo, hi);
    acc[1] = add_accessor(g, m->idx, (size_t)m->triangles * 3, 1, true, 34963, NULL, NULL);
}

static void json_pose(buf* b, const mc_pose* p)
{
    // glTF: rotation (x, y, z, w)
    buf_printf(b, ",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g]", (double)(float)p->p.x,
               (double)(float)p->p.y, (double)(float)p->p.z, (double)(float)p->q.x, (double)(float)p->q.y,
               (double)(float)p->q.z, (double)(float)p->q.w);
}

/// sRGB hex digit pair to a linear component (glTF colours are linear).
static double srgb_linear(const char* hex)
{
    unsigned v = 0;
    sscanf(hex, "%2x", &v);
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/// The plot's colours (plot.c's s_colours), for the contacts.
static const char* const s_contact_colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                "#9467bd", "#8c564b", "#e377c2", "#17becf"};

const char* app_anim_contact_colour(int c)
{
    return s_contact_colours[c % 8];
}

/// Materials: 0 ground parts, 1..6 moving parts (cycled), then one per contact; those in use (s->material_of).
static void add_materials(buf* j, const scene* s, int contacts)
{
    static const double parts[7][3] = {{0.55, 0.55, 0.52}, {0.80, 0.62, 0.45}, {0.55, 0.65, 0.80}, {0.70, 0.78, 0.55},
                                       {0.80, 0.60, 0.70}, {0.65, 0.60, 0.80}, {0.80, 0.75, 0.50}};
    buf_printf(j, ",\"materials\":[");
    for (int m = 0; m < 7; ++m)
    {
        if (s->material_of[m] < 0)
        {
            continue;
        }
        buf_printf(j,
                   "%s{\"name\":\"%s%d\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.4f,%.4f,%.4f,1],"
                   "\"metallicFactor\":0,\"roughnessFactor\":0.8}}",
                   s->material_of[m] > 0 ? "," : "", m == 0 ? "ground" : "part", m, parts[m][0], parts[m][1],
                   parts[m][2]);
    }
    for (int c = 0; c < contacts; ++c)
    {
        if (s->material_of[7 + c] < 0)
        {
            continue;
        }
        const char* h = s_contact_colours[c % 8] + 1;
        buf_printf(j,
                   "%s{\"name\":\"contact%d\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.4f,%.4f,%.4f,1],"
                   "\"metallicFactor\":0,\"roughnessFactor\":0.6}}",
                   s->material_of[7 + c] > 0 ? "," : "", c, srgb_linear(h), srgb_linear(h + 2), srgb_linear(h + 4));
    }
    buf_printf(j, "]");
}

/// The arrow of slot `slot` of contact c at keyframe k: translation, rotation (x, y, z, w) and scale.
static void arrow_at(const scene* s, const app_anim* a, int k, int c, int slot, float* t, float* r, float* sc)
{
    int seen = 0;
    memset(t, 0, 3 * sizeof *t);
    r[0] = r[1] = r[2] = 0.0f;
    r[3] = 1.0f;
    memset(sc, 0, 3 * sizeof *sc);
    for (size_t i = a->reg_start[k]; i < a->reg_start[k + 1]; ++i)
    {
        const anim_region* g = &a->reg[i];
        if (g->contact != c || seen++ != slot)
        {
            continue;
        }
        double f = mc_length(g->force);
        t[0] = (float)g->point.x;
        t[1] = (float)g->point.y;
        t[2] = (float)g->point.z;
        if (f > 0.0)
        {
            mc_quat q = from_y(mc_scale(g->force, 1.0 / f));
            r[0] = (float)q.x;
            r[1] = (float)q.y;
            r[2] = (float)q.z;
            r[3] = (float)q.w;
            sc[0] = sc[2] = (float)s->width;
            sc[1] = (float)(f * s->force_scale);
        }
        return;
    }
}

/// Animation samplers and channels of the moving parts and the arrows. node_of_part: node index per part;
/// first_arrow: node index of contact 0's first arrow.
static bool add_animation(glb* g, const scene* s, const app_anim* a, const int* node_of_part, int first_arrow)
{
    int n = s->kept_count;
    float* tv = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof *tv);
    float* rv = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof *rv);
    float* sv = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof *sv);
    if (tv == NULL || rv == NULL || sv == NULL)
    {
        free(tv);
        free(rv);
        free(sv);
        return false;
    }
    for (int k = 0; k < n; ++k)
    {
        tv[k] = (float)a->t[s->kept[k]];
    }
    float tmin = n > 0 ? tv[0] : 0.0f, tmax = n > 0 ? tv[n - 1] : 0.0f;
    int input = add_accessor(g, tv, (size_t)n, 1, false, 0, &tmin, &tmax);
    buf samplers = {0}, channels = {0};
    int count = 0;
    for (int i = 0; i < a->parts; ++i)
    {
        if (!s->moving[i])
        {
            continue;
        }
        for (int k = 0; k < n; ++k)
        {
            const mc_pose* p = &a->poses[(size_t)s->kept[k] * (size_t)a->parts + (size_t)i];
            float tt[3] = {(float)p->p.x, (float)p->p.y, (float)p->p.z};
            float rr[4] = {(float)p->q.x, (float)p->q.y, (float)p->q.z, (float)p->q.w};
            memcpy(tv + 3 * k, tt, sizeof tt);
            memcpy(rv + 4 * k, rr, sizeof rr);
        }
        int out_t = add_accessor(g, tv, (size_t)n, 3, false, 0, NULL, NULL);
        int out_r = add_accessor(g, rv, (size_t)n, 4, false, 0, NULL, NULL);
        const char* paths[2] = {"translation", "rotation"};
        int outs[2] = {out_t, out_r};
        for (int m = 0; m < 2; ++m, ++count)
        {
            buf_printf(&samplers, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}", count ? "," : "",
                       input, outs[m]);
            buf_printf(&channels, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", count ? "," : "",
                       count, node_of_part[i], paths[m]);
        }
    }
    int node = first_arrow;
    for (int c = 0; c < a->contacts; ++c)
    {
        for (int slot = 0; slot < s->slots[c]; ++slot, ++node)
        {
            for (int k = 0; k < n; ++k)
            {
                arrow_at(s, a, s->kept[k], c, slot, tv + 3 * k, rv + 4 * k, sv + 3 * k);
            }
            int outs[3] = {add_accessor(g, tv, (size_t)n, 3, false, 0, NULL, NULL),
                           add_accessor(g, rv, (size_t)n, 4, false, 0, NULL, NULL),
                           add_accessor(g, sv, (size_t)n, 3, false, 0, NULL, NULL)};
            const char* paths[3] = {"translation", "rotation", "scale"};
            for (int m = 0; m < 3; ++m, ++count)
            {
                buf_printf(&samplers, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"}", count ? "," : "",
                           input, outs[m]);
                buf_printf(&channels, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", count ? "," : "",
                           count, node, paths[m]);
            }
        }
    }
    free(tv);
    free(rv);
    free(sv);
    if (count > 0)
    {
        buf_printf(&g->json, ",\"animations\":[{\"name\":\"simulation\",\"samplers\":[");
        buf_add(&g->json, samplers.data, samplers.size);
        buf_printf(&g->json, "],\"channels\":[");
        buf_add(&g->json, channels.data, channels.size);
        buf_printf(&g->json, "]}]");
    }
    bool ok = !samplers.failed && !channels.failed;
    free(samplers.data);
    free(channels.data);
    return ok;
}

/// The node tree (see anim_gltf.h) and the meshes. @return false when out of memory
static bool add_nodes(glb* g, const scene* s, const app_anim* a, const app_sim* sim)
{
    const app_scenario* scn = s->scn;
    int np = scn->part_count, ng = scn->graphics_count;
    int* node_of_part = calloc((size_t)(np > 0 ? np : 1), sizeof *node_of_part);
    if (node_of_part == NULL)
    {
        return false;
    }
    buf nodes = {0}, meshes = {0};
    // Root: the scenario frame in glTF's (+y up, metres).
    double up_len = mc_length(scn->gravity);
    mc_vec3 up = up_len > 0.0 ? mc_scale(scn->gravity, -1.0 / up_len) : mc_v3(0.0, 0.0, 1.0);
    mc_quat rq = onto_y(up);
    double m = metres_per_unit(scn->length_unit);
    int arrows = 0;
    for (int c = 0; c < a->contacts; ++c)
    {
        arrows += s->slots[c];
    }
    buf_printf(&nodes,
               "{\"name\":\"scenario\",\"rotation\":[%.9g,%.9g,%.9g,%.9g],\"scale\":[%.9g,%.9g,%.9g],"
               "\"children\":[",
               rq.x, rq.y, rq.z, rq.w, m, m, m);
    // Node numbering: 0 root, then each part followed by its graphics, then the arrows.
    int next = 1;
    for (int i = 0; i < np; ++i)
    {
        node_of_part[i] = next++;
        for (int gi = 0; gi < ng; ++gi)
        {
            next += scn->graphics[gi].part_index == i ? 1 : 0;
        }
    }
    int first_arrow = next;
    for (int i = 0; i < np; ++i)
    {
        buf_printf(&nodes, "%s%d", i ? "," : "", node_of_part[i]);
    }
    for (int k = 0; k < arrows; ++k)
    {
        buf_printf(&nodes, "%s%d", np + k ? "," : "", first_arrow + k);
    }
    buf_printf(&nodes, "]}");
    int mesh_count = 0;
    for (int i = 0; i < np; ++i)
    {
        const mc_pose* p0 = &a->poses[i];
        buf_printf(&nodes, ",{\"name\":\"PART/%d\"", scn->parts[i].id);
        json_pose(&nodes, p0);
        int child = node_of_part[i] + 1, first = 1;
        for (int gi = 0; gi < ng; ++gi)
        {
            if (scn->graphics[gi].part_index == i)
            {
                buf_printf(&nodes, "%s%d", first ? ",\"children\":[" : ",", child++);
                first = 0;
            }
        }
        buf_printf(&nodes, first ? "}" : "]}"); // glTF: no empty arrays
        int material = s->material_of[s->moving[i] ? 1 + i % 6 : 0];
        for (int gi = 0; gi < ng; ++gi)
        {
            if (scn->graphics[gi].part_index != i)
            {
                continue;
            }
            char name[64];
            snprintf(name, sizeof name, "GRAPHICS/%d", scn->graphics[gi].id);
            buf_printf(&nodes, ",{\"name\":\"%s\",\"mesh\":%d", name, mesh_count);
            json_pose(&nodes, &s->local[gi]);
            buf_printf(&nodes, "}");
            int acc[2];
            add_mesh_data(g, &s->meshes[gi], acc);
            mesh_item(&meshes, mesh_count++, name, acc[0], acc[1], material);
        }
    }
    int arrow_acc[2] = {-1, -1};
    for (int c = 0; c < a->contacts; ++c)
    {
        if (s->slots[c] == 0)
        {
            continue; // never in contact: no arrow
        }
        if (arrow_acc[0] < 0)
        {
            add_mesh_data(g, &s->arrow, arrow_acc);
        }
        char name[64];
        snprintf(name, sizeof name, "CONTACT/%d arrow", scn->contacts[c].id);
        // One mesh per contact (its material), sharing the arrow's accessors.
        mesh_item(&meshes, mesh_count, name, arrow_acc[0], arrow_acc[1], s->material_of[7 + c]);
        for (int k = 0; k < s->slots[c]; ++k)
        {
            buf_printf(&nodes, ",{\"name\":\"CONTACT/%d arrow %d\",\"mesh\":%d,\"scale\":[0,0,0]}", scn->contacts[c].id,
                       k, mesh_count);
        }
        ++mesh_count;
    }
    (void)sim;
    buf_printf(&g->json, ",\"nodes\":[");
    buf_add(&g->json, nodes.data, nodes.size);
    buf_printf(&g->json, "],\"meshes\":[");
    buf_add(&g->json, meshes.data, meshes.size);
    buf_printf(&g->json, "]");
    bool ok = !nodes.failed && !meshes.failed && add_animation(g, s, a, node_of_part, first_arrow);
    free(nodes.data);
    free(meshes.data);
    free(node_of_part);
    return ok;
}

/// The scene's extras: how to read the file.
static void add_extras(buf* j, const scene* s, const app_anim* a)
{
    const app_scenario* scn = s->scn;
    double up_len = mc_length(scn->gravity);
    mc_vec3 up = up_len > 0.0 ? mc_scale(scn->gravity, -1.0 / up_len) : mc_v3(0.0, 0.0, 1.0);
    uint64_t shown = 0, used = 0;
    for (int g = 0; g < scn->graphics_count; ++g)
    {
        shown += s->meshes[g].triangles;
        used += s->meshes[g].source_triangles;
    }
    buf_printf(j, ",\"scenes\":[{\"name\":");
    const char* base = strrchr(scn->path, '/');
    buf_json_string(j, base != NULL ? base + 1 : scn->path);
    buf_printf(j,
               ",\"nodes\":[0],\"extras\":{\"generator\":\"meshcontact simulate\",\"up\":[%.9g,%.9g,%.9g],"
               "\"length_unit\":",
               up.x, up.y, up.z);
    buf_json_string(j, scn->length_unit);
    buf_printf(j, ",\"metres_per_length_unit\":%.9g,\"force_unit\":", metres_per_unit(scn->length_unit));
    buf_json_string(j, scn->force_unit);
    buf_printf(j, ",\"time_unit\":");
    buf_json_string(j, scn->time_unit);
    buf_printf(j,
               ",\"arrow_length_per_force\":%.9g,\"end\":%.9g,\"keyframes\":%d,\"output_keyframes\":%d,"
               "\"triangles_shown\":%llu,\"triangles_in_contact_meshes\":%llu,"
               "\"bounds\":[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g]}}]",
               s->force_scale, scn->end_time, s->kept_count, scn->steps + 1, (unsigned long long)shown,
               (unsigned long long)used, s->lo.x, s->lo.y, s->lo.z, s->hi.x, s->hi.y, s->hi.z);
    (void)a;
}

bool app_anim_build_glb(const app_anim* a, const app_sim* sim, unsigned char** out, size_t* size, char* err, size_t cap)
{
    *out = NULL;
    *size = 0;
    if (a->failed || a->count == 0)
    {
        snprintf(err, cap, a->failed ? "out of memory for the animation" : "no keyframes recorded");
        return false;
    }
    scene s;
    if (!scene_build(&s, a, sim, err, cap))
    {
        scene_free(&s);
        return false;
    }
    glb g;
    memset(&g, 0, sizeof g);
    buf_printf(&g.json, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"meshcontact simulate\"},\"scene\":0");
    add_extras(&g.json, &s, a);
    bool ok = add_nodes(&g, &s, a, sim);
    add_materials(&g.json, &s, a->contacts);
    buf_printf(&g.json, ",\"accessors\":[");
    buf_add(&g.json, g.accessors.data, g.accessors.size);
    buf_printf(&g.json, "],\"bufferViews\":[");
    buf_add(&g.json, g.views.data, g.views.size);
    buf_printf(&g.json, "],\"buffers\":[{\"byteLength\":%zu}]}", g.bin.size);
    while (g.json.size % 4 != 0)
    {
        buf_add(&g.json, " ", 1);
    }
    static const unsigned char zero[4] = {0, 0, 0, 0};
    buf_add(&g.bin, zero, (4 - g.bin.size % 4) % 4);
    ok = ok && !g.json.failed && !g.bin.failed && !g.accessors.failed && !g.views.failed;
    size_t total = 12 + 8 + g.json.size + 8 + g.bin.size;
    unsigned char* r = ok && total < UINT32_MAX ? malloc(total) : NULL;
    if (r != NULL)
    {
        uint32_t head[5] = {0x46546C67u, 2u, (uint32_t)total, (uint32_t)g.json.size, 0x4E4F534Au};
        uint32_t bin_head[2] = {(uint32_t)g.bin.size, 0x004E4942u};
        // GLB is little-endian: write the words byte by byte
        unsigned char* p = r;
        for (int k = 0; k < 5; ++k, p += 4)
        {
            for (int b = 0; b < 4; ++b)
            {
                p[b] = (unsigned char)(head[k] >> (8 * b));
            }
        }
        memcpy(p, g.json.data, g.json.size);
        p += g.json.size;
        for (int k = 0; k < 2; ++k, p += 4)
        {
            for (int b = 0; b < 4; ++b)
            {
                p[b] = (unsigned char)(bin_head[k] >> (8 * b));
            }
        }
        if (g.bin.size > 0)
        {
            memcpy(p, g.bin.data, g.bin.size);
        }
        *out = r;
        *size = total;
    }
    else
    {
        snprintf(err, cap,
                 total >= UINT32_MAX ? "the animation is over 4 GB (GLB's limit)" : "out of memory for the animation");
    }
    free(g.json.data);
    free(g.bin.data);
    free(g.accessors.data);
    free(g.views.data);
    scene_free(&s);
    return r != NULL;
}
