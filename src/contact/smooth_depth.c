// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// MC_DEPTH_SMOOTH: the depth of a region between the smooth surfaces the two meshes sample. Near each of the
// region's two Adams contact points, the mesh's vertices (which a tessellator places on the true surface) are fitted
// by a plane (when they are coplanar) or a sphere (algebraic least squares, |x|^2 + u.x + u0 = 0: exact for points on
// a sphere; the local-sphere idea of algebraic point set surfaces, Guennebaud and Gross, SIGGRAPH 2007), and the depth
// is the overlap of the two fitted solids: r_i + r_j - |c_i - c_j| for two balls, r - (distance of the centre to the
// plane) for a ball on a plane, |c_i - c_j| + r_ball - r_socket for a ball in a socket.
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/contact/regions.h"
#include "src/contact/workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// A local smooth surface: a plane (outward normal, point) or a sphere (centre, radius) whose solid is the ball
/// (convex) or the outside of the ball (a socket).
typedef struct local_surface
{
    enum
    {
        SURF_NONE,
        SURF_PLANE,
        SURF_BALL,
        SURF_SOCKET
    } kind;
    mc_vec3 point;  ///< plane: a point; sphere: the centre
    mc_vec3 normal; ///< plane: outward unit normal
    double radius;  ///< sphere radius
} local_surface;

static int cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

// Solve the symmetric 4 x 4 system a x = b by Gaussian elimination with partial pivoting. @return false if singular.
static bool solve4(double a[4][4], double b[4], double x[4])
{
    for (int c = 0; c < 4; ++c)
    {
        int p = c;
        for (int r = c + 1; r < 4; ++r)
        {
            p = fabs(a[r][c]) > fabs(a[p][c]) ? r : p;
        }
        if (!(fabs(a[p][c]) > 0.0))
        {
            return false;
        }
        for (int k = 0; k < 4; ++k)
        {
            double t = a[c][k];
            a[c][k] = a[p][k];
            a[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < 4; ++r)
        {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 4; ++k)
            {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    for (int r = 3; r >= 0; --r)
    {
        double s = b[r];
        for (int k = r + 1; k < 4; ++k)
        {
            s -= a[r][k] * x[k];
        }
        x[r] = s / a[r][r];
    }
    return true;
}

// Is triangle t already in the first n entries of list? (patches are small: a linear scan)
static bool listed(const uint32_t* list, uint32_t n, uint32_t t)
{
    for (uint32_t k = 0; k < n; ++k)
    {
        if (list[k] == t)
        {
            return true;
        }
    }
    return false;
}

// The smooth patch of `mesh` around p (mesh frame): from the triangle closest to p (among those the tree finds within
// rho), breadth-first over edges whose dihedral angle is below 30 degrees (sharper edges are features: a box's edges,
// a cylinder's rims), keeping triangles within rho of p; the first PATCH_MAX triangles. Their distinct vertices go to
// ws->smooth_vertices (sorted), the closest triangle's outward normal to *normal. *clipped says whether a smooth
// neighbour was left out for its distance (a larger rho would find more). @return the vertex count (0: no triangle
// within rho), or UINT32_MAX when out of memory.
#define PATCH_MAX 64u // enough for the fit (about 35 vertices); more only costs (the breadth-first order is local)
#define SMOOTH_EDGE_COS 0.8660254037844386 // cos 30 degrees

static uint32_t gather(const struct mc_mesh* mesh, mc_vec3 p, double rho, mc_workspace* ws, mc_vec3* normal,
                       bool* clipped)
{
    uint32_t n = 0;
    *clipped = false;
    if (!mc_array_reserve((void**)&ws->smooth_vertices, &ws->smooth_vertex_capacity, 3ull * PATCH_MAX, sizeof(uint32_t),
                          64))
    {
        return UINT32_MAX;
    }
    // The seed: the triangle closest to p among those near it. p is an Adams contact point, on the surface, so a tiny
    // ball finds its triangle; the ball grows (x16) up to rho when p is the centroid (no surface point was found).
    double best = INFINITY;
    uint32_t seed = 0;
    for (double reach = 1e-6 * rho; !(best <= rho) && reach <= 16.0 * rho; reach *= 16.0)
    {
        if (mc_bvh_ball_triangles(mesh, p, fmin(reach, rho), &ws->smooth_tris, &ws->smooth_tri_capacity, &n) != MC_OK)
        {
            return UINT32_MAX;
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            const uint32_t* t = &mesh->indices[3u * ws->smooth_tris[k]];
            mc_vec3 a = mesh->positions[t[0]], b = mesh->positions[t[1]], c = mesh->positions[t[2]];
            double d = mc_length(mc_sub(mc_closest_on_triangle(p, a, b, c), p));
            if (d < best)
            {
                best = d;
                seed = ws->smooth_tris[k];
            }
        }
    }
    if (!(best <= rho) ||
        !mc_array_reserve((void**)&ws->smooth_tris, &ws->smooth_tri_capacity, PATCH_MAX, sizeof(uint32_t), 64))
    {
        return best <= rho ? UINT32_MAX : 0;
    }
    *normal = mesh->face_normals[seed];
    uint32_t* patch = ws->smooth_tris; // reused as the breadth-first queue (the tree's list is no longer needed)
    uint32_t count = 1;
    patch[0] = seed;
    for (uint32_t head = 0; head < count; ++head)
    {
        uint32_t f = patch[head];
        for (uint32_t e = 0; e < 3; ++e)
        {
            uint32_t g = mesh->twin[3u * f + e] / 3u;
            if (mc_dot(mesh->face_normals[f], mesh->face_normals[g]) < SMOOTH_EDGE_COS || listed(patch, count, g))
            {
                continue;
            }
            const uint32_t* t = &mesh->indices[3u * g];
            mc_vec3 c = mc_closest_on_triangle(p, mesh->positions[t[0]], mesh->positions[t[1]], mesh->positions[t[2]]);
            if (count == PATCH_MAX)
            {
                continue;
            }
            if (mc_length(mc_sub(c, p)) > rho)
            {
                *clipped = true;
                continue;
            }
            patch[count++] = g;
        }
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        memcpy(&ws->smooth_vertices[3u * k], &mesh->indices[3u * patch[k]], 3 * sizeof(uint32_t));
    }
    qsort(ws->smooth_vertices, 3u * count, sizeof(uint32_t), cmp_u32);
    uint32_t distinct = 0;
    for (uint32_t k = 0; k < 3u * count; ++k)
    {
        if (distinct == 0 || ws->smooth_vertices[distinct - 1] != ws->smooth_vertices[k])
        {
            ws->smooth_vertices[distinct++] = ws->smooth_vertices[k];
        }
    }
    return distinct;
}

// Fit the surface of `mesh` near p (mesh frame): the smooth patch around p within `rho`, rho doubled until the patch
// holds at least 8 vertices or is whole (bounded by feature edges). Coplanar vertices (rms distance to their plane <=
// 1e-9 of their extent) give a plane, others a sphere (least squares in coordinates centred on p and scaled by rho, for
// conditioning).
static local_surface fit_surface(const struct mc_mesh* mesh, mc_vec3 p, double rho, mc_workspace* ws, bool* oom)
{
    local_surface s = {SURF_NONE, {0, 0, 0}, {0, 0, 0}, 0.0};
    const mc_mesh_report* rep = &mesh->report;
    double diag = mc_length(mc_sub(rep->bbox_max, rep->bbox_min));
    mc_vec3 nout = {0, 0, 1};
    uint32_t n = 0;
    for (int grow = 0; grow < 64; ++grow)
    {
        bool clipped = false;
        n = gather(mesh, p, rho, ws, &nout, &clipped);
        if (n == UINT32_MAX)
        {
            *oom = true;
            return s;
        }
        if ((n >= 8 && n > 0) || (!clipped && n > 0) || rho > 2.0 * diag)
        {
            break;
        }
        rho *= 2.0;
    }
    if (n < 4)
    {
        return s;
    }
    // centroid and covariance (plane test)
    mc_vec3 m = {0, 0, 0};
    for (uint32_t k = 0; k < n; ++k)
    {
        m = mc_add(m, mc_sub(mesh->positions[ws->smooth_vertices[k]], p));
    }
    m = mc_scale(m, 1.0 / n);
    double cov[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_vec3 d = mc_sub(mc_sub(mesh->positions[ws->smooth_vertices[k]], p), m);
        cov[0] += d.x * d.x;
        cov[1] += d.y * d.y;
        cov[2] += d.z * d.z;
        cov[3] += d.x * d.y;
        cov[4] += d.x * d.z;
        cov[5] += d.y * d.z;
    }
    double axes[3][3], values[3];
    mc_obb_eigen_sym3(cov, axes, values);
    if (values[2] <= 1e-18 * values[0])
    {
        s.kind = SURF_PLANE;
        s.normal = mc_v3(axes[2][0], axes[2][1], axes[2][2]);
        if (mc_dot(s.normal, nout) < 0.0)
        {
            s.normal = mc_neg(s.normal);
        }
        s.point = mc_add(p, m);
        return s;
    }
    // sphere: minimise sum (|y|^2 + u.y + u0)^2 over y = (x - p) / rho
    double a[4][4], b[4], u[4];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_vec3 y = mc_scale(mc_sub(mesh->positions[ws->smooth_vertices[k]], p), 1.0 / rho);
        double row[4] = {y.x, y.y, y.z, 1.0};
        double rhs = -mc_dot(y, y);
        for (int i = 0; i < 4; ++i)
        {
            for (int j = 0; j < 4; ++j)
            {
                a[i][j] += row[i] * row[j];
            }
            b[i] += row[i] * rhs;
        }
    }
    if (!solve4(a, b, u))
    {
        return s;
    }
    mc_vec3 c = mc_v3(-0.5 * u[0], -0.5 * u[1], -0.5 * u[2]);
    double r2 = mc_dot(c, c) - u[3];
    if (!(r2 > 0.0) || !isfinite(r2))
    {
        return s;
    }
    s.point = mc_add(p, mc_scale(c, rho));
    s.radius = sqrt(r2) * rho;
    // the solid is the ball when the outward normal points away from the centre
    s.kind = mc_dot(mc_sub(p, s.point), nout) > 0.0 ? SURF_BALL : SURF_SOCKET;
    return s;
}

// Overlap depth of two local solids, or NAN when the pair of kinds has no closed form here.
static double overlap(const local_surface* a, const local_surface* b)
{
    if (a->kind == SURF_BALL && b->kind == SURF_BALL)
    {
        return a->radius + b->radius - mc_length(mc_sub(a->point, b->point));
    }
    if (a->kind == SURF_PLANE && b->kind == SURF_BALL)
    {
        return b->radius - mc_dot(mc_sub(b->point, a->point), a->normal);
    }
    if (a->kind == SURF_BALL && b->kind == SURF_PLANE)
    {
        return overlap(b, a);
    }
    if (a->kind == SURF_SOCKET && b->kind == SURF_BALL)
    {
        return mc_length(mc_sub(a->point, b->point)) + b->radius - a->radius;
    }
    if (a->kind == SURF_BALL && b->kind == SURF_SOCKET)
    {
        return overlap(b, a);
    }
    return NAN;
}

mc_status mc_smooth_depth(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, mc_region* r,
                          mc_workspace* ws)
{
    if (!(r->area > 0.0))
    {
        return MC_OK; // one solid inside the other: no surface contact, the depth stays 0
    }
    double rho = 2.0 * r->radius;
    bool oom = false;
    local_surface si = fit_surface(mi, r->point_i, rho, ws, &oom);
    mc_vec3 pj = mc_quat_rotate(mc_quat_conj(j_in_i->q), mc_sub(r->point_j, j_in_i->p));
    local_surface sj = fit_surface(mj, pj, rho, ws, &oom);
    if (oom)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    if (mi->flipped || mj->flipped)
    {
        return MC_OK; // the fitted kinds describe the surface, not the flipped solid: keep the Adams depth
    }
    // J's surface into I's frame
    if (sj.kind == SURF_PLANE)
    {
        sj.normal = mc_quat_rotate(j_in_i->q, sj.normal);
    }
    sj.point = mc_pose_transform(j_in_i, sj.point);
    double d = overlap(&si, &sj);
    if (isfinite(d))
    {
        r->depth = d > 0.0 ? d : 0.0;
    }
    return MC_OK;
}
