// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Primitive tessellation: box, ellipsoid (sphere), cylinder, frustum (cone) and torus into closed, outward wound,
// sliver-free indexed triangle meshes whose facets stay within a chord tolerance of the true surface.
//
// Spheres use an equal-angle cube sphere (a lattice on the surface of a cube pushed onto the sphere along rays), so
// no triangle fans meet at a pole and the triangle count is exactly 12 n^2. Cylinders, frusta, tori and the other
// ellipsoids are rings of vertices: a profile of points in the meridian half-plane, each swept into a ring (a circle,
// or for a triaxial ellipsoid an ellipse around the axis that leaves the roundest rings), and adjacent rings joined
// by a "zip" strip (the next triangle always advances the ring whose next vertex has the smaller azimuth, so rings
// with different counts join without slivers). Profile points are spaced by the local curvature with a bounded
// rate of change, and ring counts follow the ring size, so caps, poles and small rims get concentric rings instead
// of long thin fans.
//
// Every tessellation is checked after it is built with a rigorous bound of the facet-to-surface distance and of the
// angle between the true normals at the two ends of each edge; when a bound is exceeded the resolution is raised and
// the mesh is built again.
#include "mesh/mesh_internal.h"
#include "src/base/core.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/// Triangle counts above this are refused (an error, never a silent cap).
#define TESS_MAX_TRIANGLES 2147483648.0
/// Upper bound of (long side / short side) of the cells the tessellator aims for (rings and lattices).
#define TESS_ASPECT 1.5
/// Largest (ring spacing / side length) accepted where a cylinder's or frustum's side is a single row of triangles.
#define TESS_SIDE_ASPECT 2.5
/// Fewest vertices of a ring on a cylinder's or frustum's side (fewer make strips between unlike rings thin).
#define TESS_MIN_SIDE_RING 6.0
/// Largest change of the target edge length per unit arc length along a profile (ellipsoids, tori).
#define TESS_GRADING 0.4
/// Resolution refinements tried before giving up (each one shrinks the working tolerance / angle).
#define TESS_MAX_PASSES 40

// ---------------------------------------------------------------------------------------------------------------
// Output arrays

typedef struct tess_out
{
    double* pos;          ///< 3 * nv
    uint32_t* idx;        ///< 3 * nt
    uint32_t nv;          ///< vertices
    uint32_t nt;          ///< triangles
    double max_triangles; ///< the caller's limit (mc_primitive_def.max_triangles), checked before allocating
} tess_out;

static mc_status out_alloc(tess_out* o, double nv, double nt, mc_error* err)
{
    o->pos = NULL;
    o->idx = NULL;
    o->nv = 0;
    o->nt = 0;
    if (!(nt <= o->max_triangles))
    {
        return mc_set_error(err, MC_ERR_LIMIT, -1, -1,
                            "primitive would need %.0f triangles, more than the limit of %.0f "
                            "(mc_primitive_def.max_triangles): raise chord_tolerance or the limit",
                            nt, o->max_triangles);
    }
    if (!(nt <= TESS_MAX_TRIANGLES) || !(nv <= TESS_MAX_TRIANGLES))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "primitive would need %.3g triangles, more than the limit of 2^31: raise chord_tolerance",
                            nt);
    }
    o->pos = mc_alloc_array((size_t)nv * 3, sizeof(double));
    o->idx = mc_alloc_array((size_t)nt * 3, sizeof(uint32_t));
    if (o->pos == NULL || o->idx == NULL)
    {
        mc_free(o->pos);
        mc_free(o->idx);
        o->pos = NULL;
        o->idx = NULL;
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for %.0f triangles", nt);
    }
    o->nv = (uint32_t)nv;
    o->nt = (uint32_t)nt;
    return MC_OK;
}

static void out_free(tess_out* o)
{
    mc_free(o->pos);
    mc_free(o->idx);
    o->pos = NULL;
    o->idx = NULL;
}

static inline mc_vec3 out_vertex(const tess_out* o, uint32_t v)
{
    return mc_v3(o->pos[3 * (size_t)v], o->pos[3 * (size_t)v + 1], o->pos[3 * (size_t)v + 2]);
}

static inline double dist2(mc_vec3 a, mc_vec3 b)
{
    mc_vec3 d = mc_sub(a, b);
    return mc_dot(d, d);
}

/// acos(1 - x) for x in [0, 2], accurate for small x.
static double acos_one_minus(double x)
{
    if (x >= 2.0)
    {
        return MC_PI;
    }
    return 2.0 * asin(sqrt(0.5 * x));
}

// ---------------------------------------------------------------------------------------------------------------
// Cube lattice (boxes and spheres)

/// The surface points of an nx * ny * nz lattice on a cube, numbered layer by layer along z: the full bottom layer,
/// then one perimeter ring per inner layer, then the full top layer.
typedef struct cube_lattice
{
    uint32_t n[3]; ///< cells along x, y, z (>= 1)
    uint32_t full; ///< points of a full layer: (nx + 1) (ny + 1)
    uint32_t ring; ///< points of a perimeter ring: 2 (nx + ny)
} cube_lattice;

static cube_lattice lattice_make(const uint32_t n[3])
{
    cube_lattice l;
    memcpy(l.n, n, sizeof l.n);
    l.full = (n[0] + 1) * (n[1] + 1);
    l.ring = 2 * (n[0] + n[1]);
    return l;
}

static double lattice_vertex_count(const double n[3])
{
    return 2.0 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]) + 2.0;
}

static double lattice_triangle_count(const double n[3])
{
    return 4.0 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0]);
}

/// Index of surface lattice point (c[0], c[1], c[2]); one coordinate at least is 0 or n.
static inline uint32_t lattice_index(const cube_lattice* l, const uint32_t c[3])
{
    uint32_t nx = l->n[0], ny = l->n[1], nz = l->n[2];
    uint32_t i = c[0], j = c[1], k = c[2];
    if (k == 0)
    {
        return j * (nx + 1) + i;
    }
    if (k == nz)
    {
        return l->full + (nz - 1) * l->ring + j * (nx + 1) + i;
    }
    uint32_t r;
    if (j == 0)
    {
        r = i;
    }
    else if (i == nx)
    {
        r = nx + j;
    }
    else if (j == ny)
    {
        r = nx + ny + (nx - i);
    }
    else
    {
        r = 2 * nx + ny + (ny - j);
    }
    return l->full + (k - 1) * l->ring + r;
}

/// Write the 12 n_a n_b quads' triangles of the six faces, each quad split along its shorter diagonal (positions must
/// be written first). Counter-clockwise seen from outside.
static void lattice_triangles(const cube_lattice* l, tess_out* o)
{
    uint32_t* out = o->idx;
    for (int a = 0; a < 3; ++a)
    {
        int b = (a + 1) % 3, c = (a + 2) % 3; // e_b x e_c = e_a
        for (int side = 0; side < 2; ++side)
        {
            uint32_t co[3];
            co[a] = side ? l->n[a] : 0;
            for (uint32_t q = 0; q < l->n[c]; ++q)
            {
                for (uint32_t p = 0; p < l->n[b]; ++p)
                {
                    uint32_t v[4];
                    static const uint32_t dp[4] = {0, 1, 1, 0}, dq[4] = {0, 0, 1, 1};
                    for (int k = 0; k < 4; ++k)
                    {
                        co[b] = p + dp[k];
                        co[c] = q + dq[k];
                        v[k] = lattice_index(l, co);
                    }
                    if (!side)
                    {
                        uint32_t t = v[1];
                        v[1] = v[3];
                        v[3] = t;
                    }
                    // v0 v1 v2 v3 counter-clockwise from outside.
                    double d02 = dist2(out_vertex(o, v[0]), out_vertex(o, v[2]));
                    double d13 = dist2(out_vertex(o, v[1]), out_vertex(o, v[3]));
                    if (d13 < d02)
                    {
                        uint32_t t[6] = {v[0], v[1], v[3], v[1], v[2], v[3]};
                        memcpy(out, t, sizeof t);
                    }
                    else
                    {
                        uint32_t t[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
                        memcpy(out, t, sizeof t);
                    }
                    out += 6;
                }
            }
        }
    }
}

/// Visit every surface lattice point once: fn(ctx, c) with c its lattice coordinates.
typedef void lattice_point_fcn(void* ctx, const cube_lattice* l, const uint32_t c[3]);

static void lattice_points(const cube_lattice* l, lattice_point_fcn* fn, void* ctx)
{
    uint32_t nx = l->n[0], ny = l->n[1], nz = l->n[2];
    for (uint32_t k = 0; k <= nz; ++k)
    {
        if (k == 0 || k == nz)
        {
            for (uint32_t j = 0; j <= ny; ++j)
            {
                for (uint32_t i = 0; i <= nx; ++i)
                {
                    uint32_t c[3] = {i, j, k};
                    fn(ctx, l, c);
                }
            }
            continue;
        }
        for (uint32_t i = 0; i <= nx; ++i)
        {
            uint32_t c0[3] = {i, 0, k}, c1[3] = {i, ny, k};
            fn(ctx, l, c0);
            fn(ctx, l, c1);
        }
        for (uint32_t j = 1; j < ny; ++j)
        {
            uint32_t c0[3] = {0, j, k}, c1[3] = {nx, j, k};
            fn(ctx, l, c0);
            fn(ctx, l, c1);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Box

typedef struct box_ctx
{
    tess_out* o;
    mc_vec3 h;
} box_ctx;

static void box_point(void* ctx, const cube_lattice* l, const uint32_t c[3])
{
    box_ctx* b = ctx;
    uint32_t v = lattice_index(l, c);
    b->o->pos[3 * (size_t)v] = c[0] ? b->h.x : -b->h.x;
    b->o->pos[3 * (size_t)v + 1] = c[1] ? b->h.y : -b->h.y;
    b->o->pos[3 * (size_t)v + 2] = c[2] ? b->h.z : -b->h.z;
}

/// A box of full edge lengths `len` centred at the origin.
static mc_status tess_box(mc_vec3 len, tess_out* o, mc_error* err)
{
    mc_vec3 h = mc_v3(0.5 * len.x, 0.5 * len.y, 0.5 * len.z);
    static const uint32_t n[3] = {1, 1, 1};
    double nd[3] = {1, 1, 1};
    mc_status s = out_alloc(o, lattice_vertex_count(nd), lattice_triangle_count(nd), err);
    if (s != MC_OK)
    {
        return s;
    }
    cube_lattice l = lattice_make(n);
    box_ctx ctx = {o, h};
    lattice_points(&l, box_point, &ctx);
    lattice_triangles(&l, o);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Sphere: equal-angle cube sphere (written for semi-axes; used for spheres, other ellipsoids use rings below)

typedef struct ell_ctx
{
    tess_out* o;
    mc_vec3 ax;     ///< semi-axes
    double* tan[3]; ///< per axis: tan(pi/4 u) at the lattice coordinates u = -1 + 2 i / n
} ell_ctx;

static void ell_point(void* ctx, const cube_lattice* l, const uint32_t c[3])
{
    ell_ctx* e = ctx;
    double d[3] = {e->tan[0][c[0]], e->tan[1][c[1]], e->tan[2][c[2]]};
    double inv = 1.0 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    uint32_t v = lattice_index(l, c);
    e->o->pos[3 * (size_t)v] = e->ax.x * d[0] * inv;
    e->o->pos[3 * (size_t)v + 1] = e->ax.y * d[1] * inv;
    e->o->pos[3 * (size_t)v + 2] = e->ax.z * d[2] * inv;
}

static mc_status ellipsoid_build(mc_vec3 ax, const double nd[3], tess_out* o, mc_error* err)
{
    mc_status s = out_alloc(o, lattice_vertex_count(nd), lattice_triangle_count(nd), err);
    if (s != MC_OK)
    {
        return s;
    }
    uint32_t n[3] = {(uint32_t)nd[0], (uint32_t)nd[1], (uint32_t)nd[2]};
    double* tan_all = mc_alloc_array((size_t)n[0] + n[1] + n[2] + 3, sizeof(double));
    if (tan_all == NULL)
    {
        out_free(o);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    ell_ctx ctx = {o, ax, {tan_all, tan_all + n[0] + 1, tan_all + n[0] + n[1] + 2}};
    for (int a = 0; a < 3; ++a)
    {
        // Symmetric by construction: t[n - i] = -t[i], ends exactly +-1, middle exactly 0.
        for (uint32_t i = 0; 2 * i <= n[a]; ++i)
        {
            double t = (i == 0) ? -1.0 : (2 * i == n[a]) ? 0.0 : tan(0.25 * MC_PI * ((double)(2 * i) - n[a]) / n[a]);
            ctx.tan[a][i] = t;
            ctx.tan[a][n[a] - i] = -t;
        }
    }
    cube_lattice l = lattice_make(n);
    lattice_points(&l, ell_point, &ctx);
    mc_free(tan_all);
    lattice_triangles(&l, o);
    return MC_OK;
}

/// Rigorous bounds for a tessellated ellipsoid: the largest facet-to-surface distance and the largest angle between
/// the true normals at the two ends of an edge.
/// Distance: for a facet point p = sum l_i v_i (vertices on the surface), with Q(x) = |A^-1 x|^2 the quadric,
/// 1 - Q(p) = sum_{i<j} l_i l_j Q(v_i - v_j) <= max_ij Q(e_ij) / 3 =: eta. Along the unit gradient u at p,
/// Q(p + t u) >= Q(p) + t |grad Q(p)|, so the surface is reached within t <= eta / |grad Q(p)|, and
/// |grad Q(p)| = 2 |A^-2 p| >= 2 d . A^-2 p >= 2 min_i d . A^-2 v_i for any unit d (d = direction of A^-2 at the
/// centroid).
static void ellipsoid_check(mc_vec3 ax, const tess_out* o, double* max_dev, double* max_angle)
{
    mc_vec3 inv = mc_v3(1.0 / ax.x, 1.0 / ax.y, 1.0 / ax.z);
    mc_vec3 inv2 = mc_v3(inv.x * inv.x, inv.y * inv.y, inv.z * inv.z);
    double dev = 0.0, min_cos = 1.0;
    for (uint32_t t = 0; t < o->nt; ++t)
    {
        mc_vec3 v[3], g[3];
        for (int k = 0; k < 3; ++k)
        {
            v[k] = out_vertex(o, o->idx[3 * (size_t)t + k]);
            g[k] = mc_v3(v[k].x * inv2.x, v[k].y * inv2.y, v[k].z * inv2.z);
        }
        double eta = 0.0;
        for (int k = 0; k < 3; ++k)
        {
            mc_vec3 e = mc_sub(v[(k + 1) % 3], v[k]);
            mc_vec3 s = mc_v3(e.x * inv.x, e.y * inv.y, e.z * inv.z);
            eta = fmax(eta, mc_dot(s, s));
            double c = mc_dot(g[k], g[(k + 1) % 3]) / (mc_length(g[k]) * mc_length(g[(k + 1) % 3]));
            min_cos = fmin(min_cos, c);
        }
        eta /= 3.0;
        mc_vec3 d = mc_normalize(mc_add(mc_add(g[0], g[1]), g[2]));
        double glb = fmin(fmin(mc_dot(d, g[0]), mc_dot(d, g[1])), mc_dot(d, g[2]));
        dev = fmax(dev, glb > 0.0 ? eta / (2.0 * glb) : INFINITY);
    }
    *max_dev = dev;
    *max_angle = acos(fmax(-1.0, fmin(1.0, min_cos)));
}

static double clamp_count(double n)
{
    return n < 1.0 ? 1.0 : n;
}

static mc_status tess_ellipsoid(mc_vec3 ax, double tol, double angle, tess_out* o, mc_error* err)
{
    double amin = fmin(ax.x, fmin(ax.y, ax.z));
    // Sphere of radius R, n cells per cube edge: the largest cells are at the face centres, right isosceles triangles
    // with legs (pi / 2) R / n; the bound above gives about pi^2 R / (12 n^2), and the hypotenuse subtends
    // sqrt(2) pi / (2 n). An ellipsoid starts from the sphere of its smallest semi-axis, with cells proportional to
    // the semi-axes, and is refined when the check fails.
    double n0 = fmax(MC_PI * sqrt(amin / (12.0 * tol)), MC_PI / (sqrt(2.0) * angle));
    double scale = n0 / amin;
    for (int pass = 0; pass < TESS_MAX_PASSES; ++pass)
    {
        double nd[3] = {clamp_count(ceil(scale * ax.x - 1e-9)), clamp_count(ceil(scale * ax.y - 1e-9)),
                        clamp_count(ceil(scale * ax.z - 1e-9))};
        if (!(lattice_triangle_count(nd) <= TESS_MAX_TRIANGLES))
        {
            return mc_set_error(
                err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                "ellipsoid (%g, %g, %g) at chord tolerance %g would need %.3g triangles, more than the limit of 2^31",
                ax.x, ax.y, ax.z, tol, lattice_triangle_count(nd));
        }
        mc_status s = ellipsoid_build(ax, nd, o, err);
        if (s != MC_OK)
        {
            return s;
        }
        double dev, ang;
        ellipsoid_check(ax, o, &dev, &ang);
        if (dev <= tol && ang <= angle)
        {
            return MC_OK;
        }
        out_free(o);
        double f = fmax(dev > tol ? sqrt(dev / tol) : 1.0, ang > angle ? ang / angle : 1.0);
        scale *= fmax(1.05 * f, 1.1);
    }
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                        "ellipsoid (%g, %g, %g): could not meet chord tolerance %g and angle %g", ax.x, ax.y, ax.z, tol,
                        angle);
}

/// Cube sphere with about `target` triangles: 12 n^2 with n = round(sqrt(target / 12)) for a sphere.
static mc_status tess_ellipsoid_count(mc_vec3 ax, double target, tess_out* o, mc_error* err)
{
    double s = sqrt(target / (4.0 * (ax.x * ax.y + ax.y * ax.z + ax.z * ax.x)));
    double nd[3] = {clamp_count(round(s * ax.x)), clamp_count(round(s * ax.y)), clamp_count(round(s * ax.z))};
    return ellipsoid_build(ax, nd, o, err);
}

// ---------------------------------------------------------------------------------------------------------------
// Surfaces of revolution (cylinder, frustum, torus)

/// One profile point swept into a ring.
typedef struct rev_point
{
    double rho; ///< distance from the z axis (0: a single vertex on the axis)
    double z;   ///< height
    double m;   ///< vertices in the ring (1 on the axis, else >= 3)
} rev_point;

/// A profile segment, stored with the point it ends at (closed profiles: segs[0] goes from the last point to 0).
typedef struct rev_seg
{
    double n0r, n0z; ///< outward unit normal (rho, z) of the true surface at the start of the segment
    double n1r, n1z; ///< outward unit normal at the end of the segment
    double sag;      ///< largest distance from the chord to the true profile curve over the segment
    double nrho;     ///< bound of |d distance / d rho| for points near the segment (see rev_build)
} rev_seg;

typedef struct rev_profile
{
    rev_point* pts; ///< points
    rev_seg* segs;  ///< segs[k] ends at pts[k] (segs[0]: closed profiles only, from the last point back to pts[0])
    uint32_t count; ///< points
    uint32_t cap;   ///< allocated points
    bool closed;    ///< last point connects back to the first (torus)
    bool oom;       ///< an allocation failed
    double verts;   ///< sum of ring counts
    double tris;    ///< triangles of the strips so far
} rev_profile;

static void rev_init(rev_profile* p, bool closed)
{
    memset(p, 0, sizeof *p);
    p->closed = closed;
}

static void rev_free(rev_profile* p)
{
    mc_free(p->pts);
    mc_free(p->segs);
    p->pts = NULL;
    p->segs = NULL;
}

static double strip_tris(double ma, double mb)
{
    return ma == 1.0 ? mb : mb == 1.0 ? ma : ma + mb;
}

/// Append a point; `seg` describes the segment from the previous point (ignored for the first point).
static void rev_add(rev_profile* p, double rho, double z, double m, rev_seg seg)
{
    if (p->oom)
    {
        return;
    }
    if (p->count == p->cap)
    {
        uint32_t cap = p->cap ? 2 * p->cap : 64;
        rev_point* np = mc_realloc(p->pts, cap * sizeof *np);
        if (np == NULL)
        {
            p->oom = true;
            return;
        }
        p->pts = np;
        rev_seg* ns = mc_realloc(p->segs, cap * sizeof *ns);
        if (ns == NULL)
        {
            p->oom = true;
            return;
        }
        p->segs = ns;
        p->cap = cap;
    }
    rev_point pt = {rho, z, m};
    if (p->count > 0)
    {
        p->tris += strip_tris(p->pts[p->count - 1].m, m);
    }
    p->pts[p->count] = pt;
    p->segs[p->count] = seg;
    p->count++;
    p->verts += m;
}

/// Close a closed profile with the segment from the last point back to the first.
static void rev_close(rev_profile* p, rev_seg seg)
{
    if (p->oom || p->count < 2)
    {
        return;
    }
    p->tris += strip_tris(p->pts[p->count - 1].m, p->pts[0].m);
    p->segs[0] = seg;
}

/// Ring vertices so that a chord over one step stays within tol of a circle of radius rho, where a radial move of the
/// facet changes the distance to the surface by at most nrho times the move.
static double ring_for_tolerance(double rho, double nrho, double tol)
{
    double r = rho * nrho;
    if (!(r > 0.0) || tol >= 2.0 * r)
    {
        return 3.0;
    }
    return fmax(3.0, ceil(MC_PI / acos_one_minus(tol / r)));
}

/// Ring vertices so that the normals (nr cos t, nr sin t, nz) at the two ends of a ring edge differ by <= angle.
static double ring_for_angle(double nr, double nz, double angle)
{
    double nr2 = nr * nr;
    if (!(nr2 > 0.0))
    {
        return 3.0;
    }
    double c = (cos(angle) - nz * nz) / nr2;
    if (c <= -1.0)
    {
        return 3.0;
    }
    return fmax(3.0, ceil(2.0 * MC_PI / acos(fmin(1.0, c))));
}

/// Worst case found while zipping one strip (angles in radians, unwrapped azimuths).
typedef struct strip_stats
{
    double max_span;  ///< largest azimuth range of a triangle
    double min_cross; ///< smallest |azimuth difference| of an edge between the two rings
    double max_cross; ///< largest |azimuth difference| of an edge between the two rings
} strip_stats;

static inline void stats_tri(strip_stats* st, double t0, double t1, double t2, double c0, double c1)
{
    double lo = fmin(t0, fmin(t1, t2)), hi = fmax(t0, fmax(t1, t2));
    st->max_span = fmax(st->max_span, hi - lo);
    st->min_cross = fmin(st->min_cross, fmin(c0, c1));
    st->max_cross = fmax(st->max_cross, fmax(c0, c1));
}

/// Whether zipping advances on ring a next: the ring whose next vertex has the smaller azimuth (cmp < 0: a's,
/// cmp > 0: b's; cmp is only looked at while both rings have vertices left); at equal azimuths, the quad is split
/// along its shorter diagonal.
static bool zip_advance_a(const tess_out* o, uint32_t ba, uint32_t ma, uint32_t i, uint32_t bb, uint32_t mb, uint32_t j,
                          int cmp)
{
    if (i == ma)
    {
        return false;
    }
    if (j == mb)
    {
        return true;
    }
    if (cmp != 0)
    {
        return cmp < 0;
    }
    double d_a_first = dist2(out_vertex(o, ba + (i + 1) % ma), out_vertex(o, bb + j));
    double d_b_first = dist2(out_vertex(o, ba + i), out_vertex(o, bb + (j + 1) % mb));
    return d_a_first <= d_b_first;
}

/// Write the next triangle of a zip (two vertices of the advancing ring, one of the other) and advance.
static uint32_t* zip_emit(uint32_t ba, uint32_t ma, uint32_t* i, uint32_t bb, uint32_t mb, uint32_t* j, bool adv_a,
                          uint32_t* out)
{
    out[0] = ba + *i % ma;
    if (adv_a)
    {
        out[1] = ba + (*i + 1) % ma;
        out[2] = bb + *j % mb;
        ++*i;
    }
    else
    {
        out[1] = bb + (*j + 1) % mb;
        out[2] = bb + *j % mb;
        ++*j;
    }
    return out + 3;
}

/// Join ring a (ma vertices from index ba) to ring b (mb vertices from bb); triangles written at *out.
/// Ring vertex i sits at azimuth 2 pi i / m.
static uint32_t* zip_strip(const tess_out* o, uint32_t ba, uint32_t ma, uint32_t bb, uint32_t mb, uint32_t* out,
                           strip_stats* st)
{
    double da = 2.0 * MC_PI / ma, db = 2.0 * MC_PI / mb;
    st->max_span = 0.0;
    st->min_cross = INFINITY;
    st->max_cross = 0.0;
    if (ma == 1 || mb == 1)
    {
        // Fan around a vertex on the axis; its azimuth is irrelevant (it has rho = 0).
        uint32_t m = ma == 1 ? mb : ma;
        for (uint32_t i = 0; i < m; ++i)
        {
            uint32_t i1 = (i + 1) % m;
            if (ma == 1)
            {
                out[0] = ba;
                out[1] = bb + i1;
                out[2] = bb + i;
            }
            else
            {
                out[0] = ba + i;
                out[1] = ba + i1;
                out[2] = bb;
            }
            out += 3;
        }
        st->max_span = ma == 1 ? db : da;
        st->min_cross = 0.0;
        st->max_cross = 0.0;
        return out;
    }
    uint32_t i = 0, j = 0;
    while (i < ma || j < mb)
    {
        int cmp = 0;
        if (i < ma && j < mb)
        {
            uint64_t lhs = (uint64_t)(i + 1) * mb, rhs = (uint64_t)(j + 1) * ma; // azimuths of a[i+1] and b[j+1]
            cmp = lhs < rhs ? -1 : lhs > rhs;
        }
        bool adv_a = zip_advance_a(o, ba, ma, i, bb, mb, j, cmp);
        double ta = i * da, tb = j * db;
        if (adv_a)
        {
            double ta1 = (i + 1) * da;
            stats_tri(st, ta, ta1, tb, fabs(ta - tb), fabs(ta1 - tb));
        }
        else
        {
            double tb1 = (j + 1) * db;
            stats_tri(st, ta, tb1, tb, fabs(ta - tb1), fabs(ta - tb));
        }
        out = zip_emit(ba, ma, &i, bb, mb, &j, adv_a, out);
    }
    return out;
}

static double normal_cos(double nar, double naz, double nbr, double nbz, double dtheta)
{
    return nar * nbr * cos(dtheta) + naz * nbz;
}

/// Build the mesh of a profile and check it. *max_dev: largest facet-to-surface distance bound; *max_angle: largest
/// angle between true normals at the ends of an edge (edges at a cone apex, where there is no normal, excluded).
/// Distance bound for a triangle of a strip: write its points in the meridian half-plane. With P' = sum l_i (rho_i,
/// z_i), which lies on the chord between the two profile points (within seg.sag of the true profile), the point's
/// own (rho, z) is P' moved towards the axis by at most rho_max (1 - cos(span / 2)); that move changes the distance
/// to the surface by at most seg.nrho times its length.
static mc_status rev_build(const rev_profile* p, tess_out* o, double* max_dev, double* max_angle, mc_error* err)
{
    mc_status s = out_alloc(o, p->verts, p->tris, err);
    if (s != MC_OK)
    {
        return s;
    }
    uint32_t* base = mc_alloc_array(p->count, sizeof(uint32_t));
    if (base == NULL)
    {
        out_free(o);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    uint32_t v = 0;
    for (uint32_t k = 0; k < p->count; ++k)
    {
        base[k] = v;
        uint32_t m = (uint32_t)p->pts[k].m;
        double rho = p->pts[k].rho, z = p->pts[k].z;
        for (uint32_t i = 0; i < m; ++i)
        {
            double* q = o->pos + 3 * (size_t)(v + i);
            if (m == 1)
            {
                q[0] = 0.0;
                q[1] = 0.0;
            }
            else
            {
                double t = 2.0 * MC_PI * i / m;
                q[0] = rho * cos(t);
                q[1] = rho * sin(t);
            }
            q[2] = z;
        }
        v += m;
    }
    uint32_t* out = o->idx;
    double dev = 0.0, min_cos = 1.0;
    uint32_t nseg = p->closed ? p->count : p->count - 1;
    for (uint32_t k = 0; k < nseg; ++k)
    {
        uint32_t a = k, b = (k + 1) % p->count;
        const rev_seg* sg = &p->segs[b];
        uint32_t ma = (uint32_t)p->pts[a].m, mb = (uint32_t)p->pts[b].m;
        strip_stats st;
        out = zip_strip(o, base[a], ma, base[b], mb, out, &st);
        double rho_max = fmax(p->pts[a].rho, p->pts[b].rho);
        dev = fmax(dev, sg->sag + sg->nrho * rho_max * (1.0 - cos(0.5 * st.max_span)));
        if (ma > 1)
        {
            min_cos = fmin(min_cos, normal_cos(sg->n0r, sg->n0z, sg->n0r, sg->n0z, 2.0 * MC_PI / ma));
        }
        if (mb > 1)
        {
            min_cos = fmin(min_cos, normal_cos(sg->n1r, sg->n1z, sg->n1r, sg->n1z, 2.0 * MC_PI / mb));
        }
        bool apex = (ma == 1 || mb == 1) && (sg->n0r != 0.0 || sg->n1r != 0.0);
        if (!apex)
        {
            min_cos = fmin(min_cos, normal_cos(sg->n0r, sg->n0z, sg->n1r, sg->n1z, st.min_cross));
            min_cos = fmin(min_cos, normal_cos(sg->n0r, sg->n0z, sg->n1r, sg->n1z, st.max_cross));
        }
    }
    mc_free(base);
    MC_ASSERT((size_t)(out - o->idx) == 3 * (size_t)o->nt);
    *max_dev = dev;
    *max_angle = acos(fmax(-1.0, fmin(1.0, min_cos)));
    return MC_OK;
}

static rev_seg seg_flat(double nr, double nz, double nrho)
{
    rev_seg s = {nr, nz, nr, nz, 0.0, nrho};
    return s;
}

/// Flat disc at height z, outward normal (0, nz), rim of radius r with m_rim vertices: concentric rings whose counts
/// grow with the radius, so all triangles are close to equilateral. Points are added from the centre outwards
/// (from_centre = false: from the rim inwards); the rim itself is added by the caller.
static void add_cap(rev_profile* p, double r, double z, double nz, double m_rim, bool from_centre)
{
    double rings = fmax(1.0, round(m_rim / (2.0 * MC_PI)));
    if (!(rings * m_rim <= TESS_MAX_TRIANGLES))
    {
        p->tris = INFINITY;
        return;
    }
    rev_seg s = seg_flat(0.0, nz, 0.0);
    if (from_centre)
    {
        rev_add(p, 0.0, z, 1.0, s);
        for (double k = 1; k < rings; ++k)
        {
            rev_add(p, r * k / rings, z, fmax(3.0, round(m_rim * k / rings)), s);
        }
    }
    else
    {
        for (double k = rings - 1; k >= 1; --k)
        {
            rev_add(p, r * k / rings, z, fmax(3.0, round(m_rim * k / rings)), s);
        }
        rev_add(p, 0.0, z, 1.0, s);
    }
}

/// Cylinder of radius r, from z = -h/2 to +h/2.
static void profile_cylinder(rev_profile* p, double r, double h, double tol, double angle)
{
    double n = fmax(fmax(ring_for_tolerance(r, 1.0, tol), ring_for_angle(1.0, 0.0, angle)), TESS_MIN_SIDE_RING);
    n = fmax(n, ceil(2.0 * MC_PI * r / (TESS_SIDE_ASPECT * h) - 1e-9)); // a short side is one row: no slivers
    double s = 2.0 * MC_PI * r / n;
    double rows = fmax(1.0, ceil(h / (TESS_ASPECT * s)));
    rev_init(p, false);
    if (!(2.0 * n * (rows + n) <= TESS_MAX_TRIANGLES))
    {
        p->tris = INFINITY;
        return;
    }
    add_cap(p, r, -0.5 * h, -1.0, n, true);
    rev_add(p, r, -0.5 * h, n, seg_flat(0.0, -1.0, 0.0));
    rev_seg side = seg_flat(1.0, 0.0, 1.0);
    for (double j = 1; j < rows && !p->oom && p->tris <= TESS_MAX_TRIANGLES; ++j)
    {
        rev_add(p, r, -0.5 * h + h * j / rows, n, side);
    }
    rev_add(p, r, 0.5 * h, n, side);
    add_cap(p, r, 0.5 * h, 1.0, n, false);
}

/// Frustum: radius rb at z = 0, rt at z = h (one of them may be 0: a cone with an apex vertex).
static void profile_frustum(rev_profile* p, double rb, double rt, double h, double tol, double angle)
{
    double L = hypot(rb - rt, h);
    double nr = h / L, nz = (rb - rt) / L; // outward side normal (rho, z)
    double rbig = fmax(rb, rt), rsmall = fmin(rb, rt);
    double m_floor = fmax(ring_for_angle(nr, nz, angle), TESS_MIN_SIDE_RING);
    if (rsmall > 0.0)
    {
        // Rings of equal counts a step (TESS_ASPECT ring spacings) apart grow by 1 + 3 pi sin(a) / m: keep it <= 1.5.
        m_floor = fmax(m_floor, ceil(6.0 * MC_PI * (rbig - rsmall) / L - 1e-9));
    }
    double m_big = fmax(m_floor, ring_for_tolerance(rbig, nr, tol));
    m_big = fmax(m_big, ceil(2.0 * MC_PI * rbig / (TESS_SIDE_ASPECT * L) - 1e-9)); // short side: no slivers
    double s = 2.0 * MC_PI * rbig / m_big; // arc spacing aimed for on every ring
    double m_small = 1.0;
    if (rsmall > 0.0)
    {
        m_small = fmax(fmax(m_floor, ring_for_tolerance(rsmall, nr, tol)), ceil(2.0 * MC_PI * rsmall / s - 1e-9));
    }
    // Side rings. A cone marches from the rim towards the apex and fans to the apex from the first ring whose count
    // is at its floor. A frustum marches from the small rim towards the big one with steps of TESS_ASPECT times the
    // local ring spacing, so rings grow geometrically away from a small rim and no strip is much taller or flatter
    // than its rings are wide. Rings are stored big end first: side[0] is the big rim, the small rim is not stored.
    uint32_t cap = 64, nside = 0;
    rev_point* side = mc_alloc_array(cap, sizeof(rev_point));
    double tris = 0.0;
    bool oom = side == NULL, too_many = false;
    bool cone = rsmall == 0.0;
    double l = 0.0; // slant distance from the starting end
    while (!oom && !too_many)
    {
        double rho = cone ? rbig - rbig * l / L : rsmall + (rbig - rsmall) * l / L;
        double m = fmax(fmax(m_floor, ring_for_tolerance(rho, nr, tol)), ceil(2.0 * MC_PI * rho / s - 1e-9));
        double rest = L - l;
        bool last = false;
        double step =
            (rbig == rsmall) ? L / fmax(1.0, ceil(L / (TESS_ASPECT * s))) : TESS_ASPECT * 2.0 * MC_PI * rho / m;
        if (rest <= step * (1.0 + 1e-9) || (cone && m <= m_floor && l > 0.0))
        {
            last = true; // frustum: next is the big rim; cone: next is the apex
        }
        if (nside == cap)
        {
            cap *= 2;
            rev_point* np = mc_realloc(side, cap * sizeof *np);
            if (np == NULL)
            {
                oom = true;
                break;
            }
            side = np;
        }
        rev_point pt = {rho, cone ? l : L - l, m}; // z holds the slant distance from the big end for now
        if (cone || l > 0.0)
        {
            side[nside++] = pt; // the small rim (l = 0 of a frustum) is added by the caller
        }
        tris += 2.0 * m;
        too_many = !(tris <= TESS_MAX_TRIANGLES);
        if (last)
        {
            break;
        }
        l += (rest < 2.0 * step) ? 0.5 * rest : step;
    }
    if (!oom && !too_many && !cone)
    {
        // Append the big rim (the last ring is within a step of it), then put the big end first.
        rev_point big = {rbig, 0.0, m_big};
        if (nside == cap)
        {
            rev_point* np = mc_realloc(side, (cap + 1) * sizeof *np);
            oom = np == NULL;
            side = np != NULL ? np : side;
        }
        if (!oom)
        {
            side[nside++] = big;
            for (uint32_t a = 0, b = nside - 1; a < b; ++a, --b)
            {
                rev_point t = side[a];
                side[a] = side[b];
                side[b] = t;
            }
        }
    }
    else if (!oom && !too_many && cone)
    {
        side[0].m = m_big;
    }
    rev_init(p, false);
    if (oom || too_many)
    {
        p->oom = oom;
        p->tris = too_many ? INFINITY : p->tris;
        mc_free(side);
        return;
    }
    // side[0] is the big rim; side[1..] inner rings; the small rim (or apex) follows.
    rev_seg sseg = seg_flat(nr, nz, nr);
    // Profile goes bottom (z = 0) to top (z = h).
    bool big_at_bottom = rb >= rt;
    double m_b = big_at_bottom ? side[0].m : m_small;
    double m_t = big_at_bottom ? m_small : side[0].m;
    if (rb > 0.0)
    {
        add_cap(p, rb, 0.0, -1.0, m_b, true);
        rev_add(p, rb, 0.0, m_b, seg_flat(0.0, -1.0, 0.0));
    }
    else
    {
        rev_add(p, 0.0, 0.0, 1.0, sseg);
    }
    for (uint32_t k = 1; k < nside; ++k)
    {
        const rev_point* q = big_at_bottom ? &side[k] : &side[nside - k];
        double z = big_at_bottom ? h * q->z / L : h - h * q->z / L;
        rev_add(p, q->rho, z, q->m, sseg);
    }
    if (rt > 0.0)
    {
        rev_add(p, rt, h, m_t, sseg);
        add_cap(p, rt, h, 1.0, m_t, false);
    }
    else
    {
        rev_add(p, 0.0, h, 1.0, sseg);
    }
    mc_free(side);
}

/// Torus around z: major radius R, tube radius r < R. The tube circle is the profile (counter-clockwise in the
/// meridian half-plane, so the outward side is on the right of the direction of travel). Profile points are spaced
/// by the local curvature (graded, so a fat torus gets fine rings only near its inner equator) and each ring gets
/// as many vertices as its circumference over the local spacing.
static void profile_torus(rev_profile* p, double R, double r, double tol, double angle)
{
    enum
    {
        SAMPLES = 8192
    };
    rev_init(p, true);
    double* cum = mc_alloc_array(SAMPLES + 1, sizeof(double));
    double* len = mc_alloc_array(SAMPLES, sizeof(double));
    if (cum == NULL || len == NULL)
    {
        mc_free(cum);
        mc_free(len);
        p->oom = true;
        return;
    }
    double dv = 2.0 * MC_PI / SAMPLES, ds = r * dv;
    for (int j = 0; j < SAMPLES; ++j)
    {
        double v = dv * (j + 0.5), c = cos(v);
        double kappa = fmax(1.0 / r, fabs(c) / (R + r * c)); // larger principal curvature
        len[j] = fmin(sqrt(6.0 * tol / kappa), angle / kappa);
    }
    for (int pass = 0; pass < 2; ++pass) // periodic grading: twice around in each direction
    {
        for (int j = 0; j < SAMPLES; ++j)
        {
            len[j] = fmin(len[j], len[(j + SAMPLES - 1) % SAMPLES] + TESS_GRADING * ds);
        }
        for (int j = SAMPLES - 1; j >= 0; --j)
        {
            len[j] = fmin(len[j], len[(j + 1) % SAMPLES] + TESS_GRADING * ds);
        }
    }
    cum[0] = 0.0;
    for (int j = 0; j < SAMPLES; ++j)
    {
        cum[j + 1] = cum[j] + ds / len[j];
    }
    double kv = fmax(3.0, ceil(cum[SAMPLES] - 1e-9));
    if (!(kv * kv <= TESS_MAX_TRIANGLES))
    {
        p->tris = INFINITY;
        mc_free(cum);
        mc_free(len);
        return;
    }
    uint32_t n = (uint32_t)kv;
    double* vk = mc_alloc_array((size_t)n + 1, sizeof(double));
    if (vk == NULL)
    {
        p->oom = true;
        mc_free(cum);
        mc_free(len);
        return;
    }
    int j = 0;
    for (uint32_t k = 0; k <= n; ++k)
    {
        double target = cum[SAMPLES] * k / n;
        while (j < SAMPLES - 1 && cum[j + 1] < target)
        {
            ++j;
        }
        double f = (target - cum[j]) / (cum[j + 1] - cum[j]);
        vk[k] = k == 0 ? 0.0 : k == n ? 2.0 * MC_PI : dv * (j + fmin(1.0, fmax(0.0, f)));
    }
    for (uint32_t k = 0; k < n && !p->oom && p->tris <= TESS_MAX_TRIANGLES; ++k)
    {
        double v = vk[k], c = cos(v), sn = sin(v), rho = R + r * c;
        double step = 0.5 * r * (vk[k + 1] - (k == 0 ? vk[n - 1] - 2.0 * MC_PI : vk[k - 1])); // local spacing
        double m = fmax(fmax(ring_for_tolerance(rho, 1.0, 0.5 * tol), ring_for_angle(c, sn, angle)),
                        ceil(2.0 * MC_PI * rho / (TESS_ASPECT * step) - 1e-9));
        double vp = k == 0 ? vk[n - 1] - 2.0 * MC_PI : vk[k - 1];
        rev_seg sg = {cos(vp), sin(vp), c, sn, r * (1.0 - cos(0.5 * (v - vp))), 1.0};
        rev_add(p, rho, r * sn, m, sg);
    }
    double vl = vk[n - 1];
    rev_seg last = {cos(vl), sin(vl), 1.0, 0.0, r * (1.0 - cos(0.5 * (2.0 * MC_PI - vl))), 1.0};
    rev_close(p, last);
    mc_free(vk);
    mc_free(cum);
    mc_free(len);
}

typedef enum rev_shape
{
    REV_CYLINDER,
    REV_FRUSTUM,
    REV_TORUS
} rev_shape;

static void profile_make(rev_profile* p, rev_shape shape, mc_vec3 size, double tol, double angle)
{
    switch (shape)
    {
    case REV_CYLINDER:
        profile_cylinder(p, size.x, size.z, tol, angle);
        break;
    case REV_FRUSTUM:
        profile_frustum(p, size.x, size.y, size.z, tol, angle);
        break;
    case REV_TORUS:
        profile_torus(p, size.x, size.y, tol, angle);
        break;
    }
}

static mc_status profile_status(const rev_profile* p, mc_error* err)
{
    if (p->oom)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    if (!(p->tris <= TESS_MAX_TRIANGLES))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "primitive would need more than 2^31 triangles: raise chord_tolerance or max_angle (a very "
                            "flat cylinder or frustum also needs many triangles to avoid slivers)");
    }
    return MC_OK;
}

// One refinement step of the tessellation loops: the working chord tolerance and angle shrink in proportion to how
// far the built mesh missed them (by at most 4x and 2x per step, at least 5%), each only when it was missed.
static void tighten_targets(double deviation, double tolerance, double angle_seen, double angle, double* tol_w,
                            double* angle_w)
{
    if (deviation > tolerance)
    {
        *tol_w *= fmax(0.25, fmin(0.95, 0.95 * tolerance / deviation));
    }
    if (angle_seen > angle)
    {
        *angle_w *= fmax(0.5, fmin(0.95, 0.95 * angle / angle_seen));
    }
}

static mc_status tess_revolution(rev_shape shape, mc_vec3 size, double tol, double angle, tess_out* o, mc_error* err)
{
    double tol_w = tol, angle_w = angle;
    for (int pass = 0; pass < TESS_MAX_PASSES; ++pass)
    {
        rev_profile p;
        profile_make(&p, shape, size, tol_w, angle_w);
        mc_status s = profile_status(&p, err);
        double dev = 0.0, ang = 0.0;
        if (s == MC_OK)
        {
            s = rev_build(&p, o, &dev, &ang, err);
        }
        rev_free(&p);
        if (s != MC_OK)
        {
            return s;
        }
        if (dev <= tol && ang <= angle)
        {
            return MC_OK;
        }
        out_free(o);
        tighten_targets(dev, tol, ang, angle, &tol_w, &angle_w);
    }
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "could not meet chord tolerance %g and angle %g", tol,
                        angle);
}

/// Triangle count at a working tolerance (angle limit off), INFINITY when too many; *oom set on out of memory.
typedef double count_at_fcn(void* ctx, double tol, bool* oom);

/// The working tolerance whose triangle count is closest to target (in ratio): walk down from the shape's extent by
/// tenfold steps until the count passes the target (so no absurd resolution is ever tried), then bisect.
static double tolerance_for_count(count_at_fcn* fn, void* ctx, double extent, double target, bool* oom)
{
    double hi = extent, lo = extent, best_tol = extent, best_err = INFINITY;
    *oom = false;
    for (int it = 0; it < 100 && !*oom; ++it)
    {
        bool bracketing = lo == hi;
        double t = bracketing ? lo : sqrt(lo * hi);
        double tris = fn(ctx, t, oom);
        double e = fabs(log(tris / target));
        if (e < best_err)
        {
            best_err = e;
            best_tol = t;
        }
        if (best_err < 0.002)
        {
            break; // within 0.2 %: close enough
        }
        if (bracketing)
        {
            if (tris > target || t < 1e-12 * extent)
            {
                hi = 10.0 * t; // the target lies between t and 10 t
                lo = t;
            }
            else
            {
                hi = lo = 0.1 * t;
            }
            continue;
        }
        if (tris > target)
        {
            lo = t;
        }
        else
        {
            hi = t;
        }
        if (hi / lo < 1.0 + 1e-3)
        {
            break;
        }
    }
    return best_tol;
}

typedef struct rev_count_ctx
{
    rev_shape shape;
    mc_vec3 size;
} rev_count_ctx;

static double rev_count_at(void* ctx, double tol, bool* oom)
{
    rev_count_ctx* c = ctx;
    rev_profile p;
    profile_make(&p, c->shape, c->size, tol, 0.5 * MC_PI);
    *oom = p.oom;
    double tris = p.tris;
    rev_free(&p);
    return tris;
}

/// Surface of revolution with about `target` triangles.
static mc_status tess_revolution_count(rev_shape shape, mc_vec3 size, double target, tess_out* o, mc_error* err)
{
    double extent = fmax(size.x, fmax(size.y, size.z));
    rev_count_ctx ctx = {shape, size};
    bool oom = false;
    double best_tol = tolerance_for_count(rev_count_at, &ctx, extent, target, &oom);
    if (oom)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    rev_profile p;
    profile_make(&p, shape, size, best_tol, 0.5 * MC_PI);
    mc_status s = profile_status(&p, err);
    double dev, ang;
    if (s == MC_OK)
    {
        s = rev_build(&p, o, &dev, &ang, err);
    }
    rev_free(&p);
    return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Ellipsoids other than spheres: rings of similar ellipses around the axis that leaves the roundest rings

/// A spheroid or triaxial ellipsoid in a local frame: rings are ellipses of semi-axes (A s, B s) at height -C cos(t),
/// s = sin(t), t from 0 (bottom pole) to pi (top pole). Local (X, Y, Z) is a cyclic permutation of (x, y, z).
typedef struct ell_rings
{
    double A, B, C;      ///< local semi-axes (rings in X, Y; axis Z)
    int axis;            ///< global axis that is local Z
    double* tau;         ///< ring parameters t, count entries (tau[0] = 0, tau[count - 1] = pi: the poles)
    double* m;           ///< ring vertex counts (1 at the poles)
    uint32_t count;      ///< rings including the two poles
    double verts;        ///< sum of m
    double tris;         ///< triangles of all strips
    double ring_g[512];  ///< |d/dphi (A cos phi, B sin phi)| at the ring samples phi = 2 pi (i + 1/2) / 512
    double ring_r2[512]; ///< |(A cos phi, B sin phi)|^2 at the ring samples
} ell_rings;

#define PROFILE_SAMPLES 8192
#define RING_SAMPLES 512

/// Largest normal curvature of the ellipsoid along the meridians and rings at parameter t (bound used for spacing).
static double ell_curvature(const ell_rings* e, double t)
{
    double s = sin(t), c = cos(t), A = e->A, B = e->B, C = e->C;
    double k = 0.0;
    double r[2] = {A, B};
    for (int i = 0; i < 2; ++i)
    {
        double v = sqrt(r[i] * r[i] * c * c + C * C * s * s);
        k = fmax(k, r[i] * C / (v * v * v)); // meridian through the ring point at the end of semi-axis r[i]
    }
    // Ring direction (Meusnier): ring curvature times the horizontal part of the normal, at both ring ends.
    k = fmax(k, 1.0 / (B * B * sqrt(s * s / (A * A) + c * c / (C * C))));
    k = fmax(k, 1.0 / (A * A * sqrt(s * s / (B * B) + c * c / (C * C))));
    return k;
}

/// Target edge length at t: sagitta of an equilateral facet of side L is about kappa L^2 / 6; normals turn by about
/// kappa L along an edge.
static double ell_edge(const ell_rings* e, double t, double tol, double angle)
{
    double k = ell_curvature(e, t);
    return fmin(sqrt(6.0 * tol / k), angle / k);
}

/// Ring vertex density at ring sample i (phi = 2 pi (i + 1/2) / RING_SAMPLES) for ring t with meridian step dt:
/// ring speed over the local meridian spacing (meridian speed times dt), so that triangles are about as wide as
/// they are tall everywhere on the ring.
static double ell_ring_density(const ell_rings* e, double sn, double cs, double dt, int i)
{
    return sn * e->ring_g[i] / (sqrt(e->ring_r2[i] * cs * cs + e->C * e->C * sn * sn) * dt);
}

static void ell_rings_free(ell_rings* e)
{
    mc_free(e->tau);
    mc_free(e->m);
    e->tau = NULL;
    e->m = NULL;
}

/// Choose the axis whose rings are roundest.
static void ell_rings_init(ell_rings* e, mc_vec3 ax)
{
    memset(e, 0, sizeof *e);
    double g[3] = {ax.x, ax.y, ax.z};
    double best = INFINITY;
    static const int order[3] = {2, 0, 1};
    for (int i = 0; i < 3; ++i)
    {
        int k = order[i];
        double u = g[(k + 1) % 3], v = g[(k + 2) % 3];
        double ratio = fmax(u, v) / fmin(u, v);
        if (ratio < best * (1.0 - 1e-12))
        {
            best = ratio;
            e->axis = k;
        }
    }
    e->A = g[(e->axis + 1) % 3];
    e->B = g[(e->axis + 2) % 3];
    e->C = g[e->axis];
    for (int i = 0; i < RING_SAMPLES; ++i)
    {
        double ph = 2.0 * MC_PI * (i + 0.5) / RING_SAMPLES, c = cos(ph), sn = sin(ph);
        e->ring_g[i] = hypot(e->A * sn, e->B * c);
        e->ring_r2[i] = e->A * e->A * c * c + e->B * e->B * sn * sn;
    }
}

static double ell_ring_dt(const ell_rings* e, uint32_t k)
{
    return 0.5 * (e->tau[k + 1] - e->tau[k - 1]);
}

/// Place the rings for a working tolerance / angle. Returns MC_OK, or an error for absurd counts / no memory.
static mc_status ell_rings_place(ell_rings* e, double tol, double angle, mc_error* err)
{
    ell_rings_free(e);
    // Edges along the meridians: integral of (largest meridian speed) / L over t, by the midpoint rule, with L
    // graded so that it changes by at most TESS_GRADING times the arc length (neighbouring rings stay alike even
    // where the curvature changes fast, as at the rim of a flat ellipsoid).
    double* cum = mc_alloc_array(PROFILE_SAMPLES + 1, sizeof(double));
    double* len = mc_alloc_array(PROFILE_SAMPLES + 1, sizeof(double));
    if (cum == NULL || len == NULL)
    {
        mc_free(cum);
        mc_free(len);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    double dt = MC_PI / PROFILE_SAMPLES, r = fmax(e->A, e->B);
    for (int j = 1; j <= PROFILE_SAMPLES; ++j)
    {
        double t = dt * (j - 0.5), s = sin(t), c = cos(t);
        cum[j] = sqrt(r * r * c * c + e->C * e->C * s * s) * dt; // arc length of sample j
        len[j] = ell_edge(e, t, tol, angle);
    }
    for (int j = 2; j <= PROFILE_SAMPLES; ++j)
    {
        len[j] = fmin(len[j], len[j - 1] + TESS_GRADING * 0.5 * (cum[j] + cum[j - 1]));
    }
    for (int j = PROFILE_SAMPLES - 1; j >= 1; --j)
    {
        len[j] = fmin(len[j], len[j + 1] + TESS_GRADING * 0.5 * (cum[j] + cum[j + 1]));
    }
    cum[0] = 0.0;
    for (int j = 1; j <= PROFILE_SAMPLES; ++j)
    {
        cum[j] = cum[j - 1] + cum[j] / len[j];
    }
    mc_free(len);
    double steps = fmax(2.0, ceil(cum[PROFILE_SAMPLES] - 1e-9));
    if (!(steps * steps <= TESS_MAX_TRIANGLES))
    {
        mc_free(cum);
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "ellipsoid (%g, %g, %g) at chord tolerance %g would need more than 2^31 triangles", e->A,
                            e->B, e->C, tol);
    }
    e->count = (uint32_t)steps + 1;
    e->tau = mc_alloc_array(e->count, sizeof(double));
    e->m = mc_alloc_array(e->count, sizeof(double));
    if (e->tau == NULL || e->m == NULL)
    {
        mc_free(cum);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    int j = 0;
    for (uint32_t k = 0; k < e->count; ++k)
    {
        double t = k == 0 ? 0.0 : MC_PI;
        if (k > 0 && k + 1 < e->count)
        {
            double target = cum[PROFILE_SAMPLES] * k / (e->count - 1);
            while (j < PROFILE_SAMPLES - 1 && cum[j + 1] < target)
            {
                ++j;
            }
            double f = (target - cum[j]) / (cum[j + 1] - cum[j]);
            t = dt * (j + fmin(1.0, fmax(0.0, f)));
        }
        e->tau[k] = t;
    }
    mc_free(cum);
    e->verts = 0.0;
    e->tris = 0.0;
    for (uint32_t k = 0; k < e->count; ++k)
    {
        double m = 1.0;
        if (k > 0 && k + 1 < e->count)
        {
            double sum = 0.0, t = e->tau[k], d = ell_ring_dt(e, k), sn = sin(t), cs = cos(t);
            int stride = e->A == e->B ? RING_SAMPLES : 1; // circular rings: constant density
            for (int i = 0; i < RING_SAMPLES; i += stride)
            {
                sum += ell_ring_density(e, sn, cs, d, i) * stride;
            }
            m = fmax(3.0, ceil(sum * 2.0 * MC_PI / RING_SAMPLES - 1e-9));
        }
        e->m[k] = m;
        e->verts += m;
        if (k > 0)
        {
            e->tris += strip_tris(e->m[k - 1], m);
        }
    }
    if (!(e->tris <= TESS_MAX_TRIANGLES))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "ellipsoid (%g, %g, %g) at chord tolerance %g would need %.3g triangles, more than the "
                            "limit of 2^31",
                            e->A, e->B, e->C, tol, e->tris);
    }
    return MC_OK;
}

/// Join ring a (ma vertices from ba, azimuths pa[0] = 0 < ... < 2 pi) to ring b: as zip_strip, ordered by azimuth.
static uint32_t* zip_strip_phi(const tess_out* o, uint32_t ba, uint32_t ma, const double* pa, uint32_t bb, uint32_t mb,
                               const double* pb, uint32_t* out)
{
    if (ma == 1 || mb == 1)
    {
        strip_stats st;
        return zip_strip(o, ba, ma, bb, mb, out, &st);
    }
    uint32_t i = 0, j = 0;
    while (i < ma || j < mb)
    {
        int cmp = 0;
        if (i < ma && j < mb)
        {
            double na = i + 1 < ma ? pa[i + 1] : 2.0 * MC_PI, nb = j + 1 < mb ? pb[j + 1] : 2.0 * MC_PI;
            cmp = na < nb ? -1 : na > nb;
        }
        out = zip_emit(ba, ma, &i, bb, mb, &j, zip_advance_a(o, ba, ma, i, bb, mb, j, cmp), out);
    }
    return out;
}

static mc_status ell_rings_build(const ell_rings* e, tess_out* o, mc_error* err)
{
    mc_status s = out_alloc(o, e->verts, e->tris, err);
    if (s != MC_OK)
    {
        return s;
    }
    uint32_t* base = mc_alloc_array(e->count, sizeof(uint32_t));
    double* phi = mc_alloc_array(o->nv, sizeof(double));
    double* cum = mc_alloc_array(RING_SAMPLES + 1, sizeof(double));
    if (base == NULL || phi == NULL || cum == NULL)
    {
        mc_free(base);
        mc_free(phi);
        mc_free(cum);
        out_free(o);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    int gx = (e->axis + 1) % 3, gy = (e->axis + 2) % 3, gz = e->axis;
    uint32_t v = 0;
    for (uint32_t k = 0; k < e->count; ++k)
    {
        base[k] = v;
        uint32_t m = (uint32_t)e->m[k];
        bool pole = k == 0 || k + 1 == e->count;
        double t = e->tau[k], sn = pole ? 0.0 : sin(t);
        double z = (k == 0) ? -e->C : (k + 1 == e->count) ? e->C : -e->C * cos(t);
        if (!pole && e->A != e->B)
        {
            double d = ell_ring_dt(e, k), cs = cos(t);
            cum[0] = 0.0;
            for (int i = 1; i <= RING_SAMPLES; ++i)
            {
                cum[i] = cum[i - 1] + ell_ring_density(e, sn, cs, d, i - 1);
            }
        }
        int jj = 0;
        for (uint32_t i = 0; i < m; ++i)
        {
            double ph = 2.0 * MC_PI * i / m; // circular rings: uniform
            if (!pole && e->A != e->B && i > 0)
            {
                double target = cum[RING_SAMPLES] * i / m;
                while (jj < RING_SAMPLES - 1 && cum[jj + 1] < target)
                {
                    ++jj;
                }
                double f = (target - cum[jj]) / (cum[jj + 1] - cum[jj]);
                ph = 2.0 * MC_PI * (jj + fmin(1.0, fmax(0.0, f))) / RING_SAMPLES;
            }
            phi[v + i] = ph;
            double* q = o->pos + 3 * (size_t)(v + i);
            q[gx] = pole ? 0.0 : e->A * sn * cos(ph);
            q[gy] = pole ? 0.0 : e->B * sn * sin(ph);
            q[gz] = z;
        }
        v += m;
    }
    uint32_t* out = o->idx;
    for (uint32_t k = 0; k + 1 < e->count; ++k)
    {
        out = zip_strip_phi(o, base[k], (uint32_t)e->m[k], phi + base[k], base[k + 1], (uint32_t)e->m[k + 1],
                            phi + base[k + 1], out);
    }
    MC_ASSERT((size_t)(out - o->idx) == 3 * (size_t)o->nt);
    mc_free(cum);
    mc_free(phi);
    mc_free(base);
    return MC_OK;
}

static mc_status tess_ellipsoid_rings(mc_vec3 ax, double tol, double angle, tess_out* o, mc_error* err)
{
    ell_rings e;
    ell_rings_init(&e, ax);
    double tol_w = tol, angle_w = angle;
    mc_status s = MC_OK;
    for (int pass = 0; pass < TESS_MAX_PASSES; ++pass)
    {
        s = ell_rings_place(&e, tol_w, angle_w, err);
        if (s == MC_OK)
        {
            s = ell_rings_build(&e, o, err);
        }
        if (s != MC_OK)
        {
            ell_rings_free(&e);
            return s;
        }
        double dev, ang;
        ellipsoid_check(ax, o, &dev, &ang);
        if (dev <= tol && ang <= angle)
        {
            ell_rings_free(&e);
            return MC_OK;
        }
        out_free(o);
        tighten_targets(dev, tol, ang, angle, &tol_w, &angle_w);
    }
    ell_rings_free(&e);
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                        "ellipsoid (%g, %g, %g): could not meet chord tolerance %g and angle %g", ax.x, ax.y, ax.z, tol,
                        angle);
}

static double ell_count_at(void* ctx, double tol, bool* oom)
{
    ell_rings* e = ctx;
    mc_error dummy;
    mc_status s = ell_rings_place(e, tol, 0.5 * MC_PI, &dummy);
    *oom = s == MC_ERR_OUT_OF_MEMORY;
    return s == MC_OK ? e->tris : INFINITY;
}

/// Non-spherical ellipsoid with about `target` triangles.
static mc_status tess_ellipsoid_rings_count(mc_vec3 ax, double target, tess_out* o, mc_error* err)
{
    ell_rings e;
    ell_rings_init(&e, ax);
    double extent = fmax(ax.x, fmax(ax.y, ax.z));
    bool oom = false;
    double best_tol = tolerance_for_count(ell_count_at, &e, extent, target, &oom);
    if (oom)
    {
        ell_rings_free(&e);
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    mc_status s = ell_rings_place(&e, best_tol, 0.5 * MC_PI, err);
    if (s == MC_OK)
    {
        s = ell_rings_build(&e, o, err);
    }
    ell_rings_free(&e);
    return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Public entry points

mc_primitive_def mc_default_primitive_def(void)
{
    mc_primitive_def d;
    memset(&d, 0, sizeof d);
    d.type = MC_PRIMITIVE_ELLIPSOID;
    d.dims = mc_v3(1.0, 1.0, 1.0);
    d.chord_tolerance = 1e-3;
    d.max_angle = MC_PI / 12.0;
    d.max_triangles = MC_DEFAULT_MAX_TRIANGLES;
    d.internal_value = (int)MC_DEF_COOKIE;
    return d;
}

static bool is_sphere(mc_vec3 s)
{
    return s.x == s.y && s.y == s.z;
}

static bool positive(double x)
{
    return x > 0.0 && isfinite(x);
}

static const char* type_name(mc_primitive_type t)
{
    switch (t)
    {
    case MC_PRIMITIVE_BOX:
        return "box";
    case MC_PRIMITIVE_ELLIPSOID:
        return "ellipsoid";
    case MC_PRIMITIVE_CYLINDER:
        return "cylinder";
    case MC_PRIMITIVE_FRUSTUM:
        return "frustum";
    case MC_PRIMITIVE_TORUS:
        return "torus";
    }
    return "unknown";
}

/// Check the shape parameters (not the faceting controls).
static mc_status check_shape(const mc_primitive_def* def, mc_error* err)
{
    MC_ASSERT(def->internal_value == (int)MC_DEF_COOKIE);
    if (def->internal_value != (int)MC_DEF_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "primitive def not initialized with mc_default_primitive_def");
    }
    mc_vec3 s = def->dims;
    const char* name = type_name(def->type);
    switch (def->type)
    {
    case MC_PRIMITIVE_BOX:
    case MC_PRIMITIVE_ELLIPSOID:
        if (!positive(s.x) || !positive(s.y) || !positive(s.z))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "%s size (%g, %g, %g) must be finite and positive", name, s.x, s.y, s.z);
        }
        return MC_OK;
    case MC_PRIMITIVE_CYLINDER:
        if (!positive(s.x) || !positive(s.z))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "cylinder radius %g and length %g must be finite and positive", s.x, s.z);
        }
        return MC_OK;
    case MC_PRIMITIVE_FRUSTUM:
    {
        double big = fmax(s.x, s.y);
        if (!(s.x >= 0.0) || !(s.y >= 0.0) || !isfinite(s.x) || !isfinite(s.y) || !positive(s.z) || !(big > 0.0))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "frustum radii %g, %g must be finite, >= 0 and not both 0, height %g finite and "
                                "positive",
                                s.x, s.y, s.z);
        }
        double small = fmin(s.x, s.y);
        if (small > 0.0 && small < 1e-9 * fmax(big, s.z))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "frustum radius %g is tiny but not zero: use 0 for a cone", small);
        }
        return MC_OK;
    }
    case MC_PRIMITIVE_TORUS:
        if (!positive(s.x) || !positive(s.y) || !(s.y < s.x))
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "torus radii major %g, minor %g must be finite, positive and minor < major", s.x, s.y);
        }
        return MC_OK;
    }
    return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown primitive type %d", (int)def->type);
}

static mc_status check_outputs(double** positions, uint32_t* vertex_count, uint32_t** indices, uint32_t* triangle_count,
                               mc_error* err)
{
    if (positions == NULL || vertex_count == NULL || indices == NULL || triangle_count == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "output pointer is NULL");
    }
    return MC_OK;
}

static void hand_out(tess_out* o, double** positions, uint32_t* vertex_count, uint32_t** indices,
                     uint32_t* triangle_count)
{
    *positions = o->pos;
    *vertex_count = o->nv;
    *indices = o->idx;
    *triangle_count = o->nt;
}

// The checks both tessellation entry points start with: a def, output pointers, a valid shape.
static mc_status check_request(const mc_primitive_def* def, double** positions, uint32_t* vertex_count,
                               uint32_t** indices, uint32_t* triangle_count, mc_error* err)
{
    if (def == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "primitive def is NULL");
    }
    mc_status s = check_outputs(positions, vertex_count, indices, triangle_count, err);
    s = s == MC_OK ? check_shape(def, err) : s;
    if (s == MC_OK && def->max_triangles == 0)
    {
        s = mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "max_triangles must be > 0 (default 2^26)");
    }
    return s;
}

mc_status mc_primitive_tessellate(const mc_primitive_def* def, double** positions, uint32_t* vertex_count,
                                  uint32_t** indices, uint32_t* triangle_count, mc_error* err)
{
    mc_status s = check_request(def, positions, vertex_count, indices, triangle_count, err);
    if (s != MC_OK)
    {
        return s;
    }
    double tol = def->chord_tolerance, angle = def->max_angle;
    if (!positive(tol))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "chord tolerance %g must be finite and positive",
                            tol);
    }
    if (!(angle > 0.0 && angle <= 0.5 * MC_PI))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "max angle %g rad must be in (0, pi/2] (15 degrees is 0.2618)", angle);
    }
    tess_out o;
    memset(&o, 0, sizeof o);
    o.max_triangles = (double)def->max_triangles;
    switch (def->type)
    {
    case MC_PRIMITIVE_BOX:
        s = tess_box(def->dims, &o, err);
        break;
    case MC_PRIMITIVE_ELLIPSOID:
        s = is_sphere(def->dims) ? tess_ellipsoid(def->dims, tol, angle, &o, err)
                                 : tess_ellipsoid_rings(def->dims, tol, angle, &o, err);
        break;
    case MC_PRIMITIVE_CYLINDER:
        s = tess_revolution(REV_CYLINDER, def->dims, tol, angle, &o, err);
        break;
    case MC_PRIMITIVE_FRUSTUM:
        s = tess_revolution(REV_FRUSTUM, def->dims, tol, angle, &o, err);
        break;
    case MC_PRIMITIVE_TORUS:
        s = tess_revolution(REV_TORUS, def->dims, tol, angle, &o, err);
        break;
    }
    if (s == MC_OK)
    {
        hand_out(&o, positions, vertex_count, indices, triangle_count);
    }
    return s;
}

mc_status mc_primitive_tessellate_count(const mc_primitive_def* def, uint32_t target_triangles, double** positions,
                                        uint32_t* vertex_count, uint32_t** indices, uint32_t* triangle_count,
                                        mc_error* err)
{
    mc_status s = check_request(def, positions, vertex_count, indices, triangle_count, err);
    if (s != MC_OK)
    {
        return s;
    }
    if (target_triangles == 0 || target_triangles > (uint32_t)TESS_MAX_TRIANGLES)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "target triangle count %u must be in 1 .. 2^31",
                            (unsigned)target_triangles);
    }
    tess_out o;
    memset(&o, 0, sizeof o);
    o.max_triangles = (double)def->max_triangles;
    double target = (double)target_triangles;
    switch (def->type)
    {
    case MC_PRIMITIVE_BOX:
        s = tess_box(def->dims, &o, err);
        break;
    case MC_PRIMITIVE_ELLIPSOID:
        s = is_sphere(def->dims) ? tess_ellipsoid_count(def->dims, target, &o, err)
                                 : tess_ellipsoid_rings_count(def->dims, target, &o, err);
        break;
    case MC_PRIMITIVE_CYLINDER:
        s = tess_revolution_count(REV_CYLINDER, def->dims, target, &o, err);
        break;
    case MC_PRIMITIVE_FRUSTUM:
        s = tess_revolution_count(REV_FRUSTUM, def->dims, target, &o, err);
        break;
    case MC_PRIMITIVE_TORUS:
        s = tess_revolution_count(REV_TORUS, def->dims, target, &o, err);
        break;
    }
    if (s == MC_OK)
    {
        hand_out(&o, positions, vertex_count, indices, triangle_count);
    }
    return s;
}

void mc_free_arrays(double* positions, uint32_t* indices)
{
    mc_free(positions);
    mc_free(indices);
}
