// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Mass properties of closed meshes (divergence theorem, compensated sums), principal axes (cyclic Jacobi), and their
// combination for assemblies.
#include "meshcontact/mass.h"

#include "mesh/mesh_internal.h"
#include "src/base/core.h"

#include <math.h>
#include <string.h>

// Neumaier's compensated sum: the error of each addition is kept in c and added back at the end.
typedef struct ksum
{
    double s;
    double c;
} ksum;

static void ksum_add(ksum* k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
    {
        k->c += (k->s - t) + x;
    }
    else
    {
        k->c += (x - t) + k->s;
    }
    k->s = t;
}

static double ksum_get(const ksum* k)
{
    return k->s + k->c;
}

static mc_status index_error(mc_error* err, mc_status status, int64_t index, const char* what, const char* reason)
{
    mc_set_error(err, status, -1, -1, "%s: entry %lld: %s", what, (long long)index, reason);
    if (err != NULL)
    {
        err->index = index;
    }
    return status;
}

// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: a = v diag(e) v^T, v's columns the
// eigenvectors. Deterministic (fixed sweep order); converges quadratically, at most 50 sweeps.
static void jacobi3(const mc_mat33* a_in, double e[3], double v[3][3])
{
    double a[3][3];
    memcpy(a, a_in->m, sizeof a);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            v[i][j] = i == j ? 1.0 : 0.0;
        }
    }
    for (int sweep = 0; sweep < 50; ++sweep)
    {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (off == 0.0)
        {
            break;
        }
        for (int p = 0; p < 2; ++p)
        {
            for (int q = p + 1; q < 3; ++q)
            {
                double apq = a[p][q];
                if (apq == 0.0)
                {
                    continue;
                }
                // Negligible against both diagonal entries: set to zero (as Numerical Recipes' jacobi).
                double g = 100.0 * fabs(apq);
                if (sweep > 3 && fabs(a[p][p]) + g == fabs(a[p][p]) && fabs(a[q][q]) + g == fabs(a[q][q]))
                {
                    a[p][q] = a[q][p] = 0.0;
                    continue;
                }
                double theta = (a[q][q] - a[p][p]) / (2.0 * apq);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                if (!isfinite(theta))
                {
                    t = 0.5 / theta; // theta^2 overflowed: t ~ 1 / (2 theta)
                }
                double c = 1.0 / sqrt(t * t + 1.0);
                double s = t * c;
                // a <- J^T a J with J the rotation in the (p, q) plane.
                for (int k = 0; k < 3; ++k)
                {
                    double akp = a[k][p];
                    double akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k)
                {
                    double apk = a[p][k];
                    double aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                a[p][q] = a[q][p] = 0.0;
                for (int k = 0; k < 3; ++k)
                {
                    double vkp = v[k][p];
                    double vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
        }
    }
    for (int i = 0; i < 3; ++i)
    {
        e[i] = a[i][i];
    }
}

static mc_quat quat_from_matrix(const mc_mat33* r)
{
    const double(*m)[3] = r->m;
    mc_quat q;
    double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0.0)
    {
        double s = 2.0 * sqrt(tr + 1.0);
        q.w = 0.25 * s;
        q.x = (m[2][1] - m[1][2]) / s;
        q.y = (m[0][2] - m[2][0]) / s;
        q.z = (m[1][0] - m[0][1]) / s;
    }
    else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2])
    {
        double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
        q.w = (m[2][1] - m[1][2]) / s;
        q.x = 0.25 * s;
        q.y = (m[0][1] + m[1][0]) / s;
        q.z = (m[0][2] + m[2][0]) / s;
    }
    else if (m[1][1] >= m[2][2])
    {
        double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
        q.w = (m[0][2] - m[2][0]) / s;
        q.x = (m[0][1] + m[1][0]) / s;
        q.y = 0.25 * s;
        q.z = (m[1][2] + m[2][1]) / s;
    }
    else
    {
        double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
        q.w = (m[1][0] - m[0][1]) / s;
        q.x = (m[0][2] + m[2][0]) / s;
        q.y = (m[1][2] + m[2][1]) / s;
        q.z = 0.25 * s;
    }
    if (q.w < 0.0)
    {
        q.w = -q.w;
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
    }
    return mc_quat_normalize(q);
}

// Principal moments (ascending), axes (columns, right-handed, signs fixed) and quaternion of out->inertia.
static void principal(mc_mass_properties* out)
{
    double e[3];
    double v[3][3];
    jacobi3(&out->inertia, e, v);
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 2; ++i) // sort ascending (stable on ties: keeps Jacobi's order)
    {
        for (int j = 0; j < 2 - i; ++j)
        {
            if (e[order[j + 1]] < e[order[j]])
            {
                int t = order[j];
                order[j] = order[j + 1];
                order[j + 1] = t;
            }
        }
    }
    mc_vec3 axis[3];
    for (int k = 0; k < 3; ++k)
    {
        int c = order[k];
        axis[k] = mc_v3(v[0][c], v[1][c], v[2][c]);
    }
    for (int k = 0; k < 2; ++k)
    {
        double comp[3] = {axis[k].x, axis[k].y, axis[k].z};
        int big = 0;
        for (int i = 1; i < 3; ++i)
        {
            big = fabs(comp[i]) > fabs(comp[big]) ? i : big;
        }
        if (comp[big] < 0.0)
        {
            axis[k] = mc_neg(axis[k]);
        }
    }
    axis[2] = mc_cross(axis[0], axis[1]);
    out->principal_moments = mc_v3(e[order[0]], e[order[1]], e[order[2]]);
    for (int k = 0; k < 3; ++k)
    {
        out->principal_axes.m[0][k] = axis[k].x;
        out->principal_axes.m[1][k] = axis[k].y;
        out->principal_axes.m[2][k] = axis[k].z;
    }
    out->principal_rotation = quat_from_matrix(&out->principal_axes);
}

static bool props_finite(const mc_mass_properties* p)
{
    bool ok = isfinite(p->volume) && isfinite(p->mass) && isfinite(p->centroid.x) && isfinite(p->centroid.y) &&
              isfinite(p->centroid.z);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            ok = ok && isfinite(p->inertia.m[i][j]);
        }
    }
    return ok;
}

mc_status mc_mesh_get_mass_properties(const mc_mesh* mesh, double density, mc_mass_properties* out, mc_error* err)
{
    if (mesh == NULL || out == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "mc_mesh_get_mass_properties: NULL mesh or out");
    }
    if (!(isfinite(density) && density > 0.0))
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_mesh_get_mass_properties: density %g is not finite and > 0", density);
    }
    if (mesh->flipped)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "mc_mesh_get_mass_properties: a flipped mesh's solid is unbounded: it has no mass");
    }
    if (!mesh->report.closed)
    {
        return mc_set_error(err, MC_ERR_MESH_NOT_CLOSED, -1, -1,
                            "mc_mesh_get_mass_properties: the mesh is not closed: it encloses no volume");
    }
    const mc_vec3* pos = mesh->positions;
    const uint32_t* idx = mesh->indices;
    uint32_t nt = mesh->triangle_count;
    // Pass 1: volume and first moment, tetrahedra from the bounding box centre o.
    mc_vec3 o = mc_scale(mc_add(mesh->report.bbox_min, mesh->report.bbox_max), 0.5);
    ksum v1 = {0.0, 0.0};
    ksum m1[3] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (uint32_t t = 0; t < nt; ++t)
    {
        mc_vec3 a = mc_sub(pos[idx[3 * t]], o);
        mc_vec3 b = mc_sub(pos[idx[3 * t + 1]], o);
        mc_vec3 c = mc_sub(pos[idx[3 * t + 2]], o);
        double d = mc_dot(a, mc_cross(b, c)); // 6 times the tetrahedron's signed volume
        ksum_add(&v1, d);
        ksum_add(&m1[0], d * (a.x + b.x + c.x));
        ksum_add(&m1[1], d * (a.y + b.y + c.y));
        ksum_add(&m1[2], d * (a.z + b.z + c.z));
    }
    double six_v = ksum_get(&v1);
    if (!(six_v > 0.0) || !isfinite(six_v))
    {
        return mc_set_error(err, MC_ERR_EMPTY_MESH, -1, -1,
                            "mc_mesh_get_mass_properties: the mesh encloses no positive volume (%g)", six_v / 6.0);
    }
    // integral of (x - o) dV = sum d (a + b + c) / 24, volume = sum d / 6: centroid = o + sum / (4 sum d)
    mc_vec3 cen = mc_add(
        o, mc_v3(ksum_get(&m1[0]) / (4.0 * six_v), ksum_get(&m1[1]) / (4.0 * six_v), ksum_get(&m1[2]) / (4.0 * six_v)));
    // Pass 2: second moments about the centroid, tetrahedra from the centroid: integral of r_i r_j over the
    // tetrahedron (0, a, b, c) = d / 120 (a_i a_j + b_i b_j + c_i c_j + s_i s_j), s = a + b + c.
    ksum v2 = {0.0, 0.0};
    ksum m2[6];
    memset(m2, 0, sizeof m2);
    static const int pi[6] = {0, 1, 2, 0, 0, 1};
    static const int pj[6] = {0, 1, 2, 1, 2, 2};
    for (uint32_t t = 0; t < nt; ++t)
    {
        mc_vec3 a = mc_sub(pos[idx[3 * t]], cen);
        mc_vec3 b = mc_sub(pos[idx[3 * t + 1]], cen);
        mc_vec3 c = mc_sub(pos[idx[3 * t + 2]], cen);
        double d = mc_dot(a, mc_cross(b, c));
        ksum_add(&v2, d);
        double av[3] = {a.x, a.y, a.z};
        double bv[3] = {b.x, b.y, b.z};
        double cv[3] = {c.x, c.y, c.z};
        for (int k = 0; k < 6; ++k)
        {
            int i = pi[k];
            int j = pj[k];
            double s_i = av[i] + bv[i] + cv[i];
            double s_j = av[j] + bv[j] + cv[j];
            ksum_add(&m2[k], d * (av[i] * av[j] + bv[i] * bv[j] + cv[i] * cv[j] + s_i * s_j));
        }
    }
    double cov[3][3];
    for (int k = 0; k < 6; ++k)
    {
        cov[pi[k]][pj[k]] = cov[pj[k]][pi[k]] = ksum_get(&m2[k]) / 120.0;
    }
    mc_mass_properties r;
    memset(&r, 0, sizeof r);
    r.volume = ksum_get(&v2) / 6.0;
    r.mass = density * r.volume;
    r.centroid = cen;
    double tr = cov[0][0] + cov[1][1] + cov[2][2];
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            r.inertia.m[i][j] = density * ((i == j ? tr : 0.0) - cov[i][j]);
        }
    }
    if (!props_finite(&r))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_RANGE, -1, -1,
                            "mc_mesh_get_mass_properties: a mass property overflowed (density %g)", density);
    }
    principal(&r);
    *out = r;
    return MC_OK;
}

mc_status mc_mass_properties_combine(const mc_mass_properties* parts, const mc_pose* poses, uint32_t count,
                                     mc_mass_properties* out, mc_error* err)
{
    static const char* what = "mc_mass_properties_combine";
    if (parts == NULL || out == NULL || count == 0)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s: NULL parts or out, or count 0", what);
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        if (!props_finite(&parts[k]) || !(parts[k].mass > 0.0) || !(parts[k].volume > 0.0))
        {
            return index_error(err, MC_ERR_INVALID_ARGUMENT, k, what,
                               "mass or volume not > 0, or a non-finite property");
        }
        if (poses != NULL && !mc_pose_is_valid(&poses[k]))
        {
            return index_error(err, MC_ERR_INVALID_ARGUMENT, k, what,
                               "pose not finite, out of range, or a zero quaternion");
        }
    }
    ksum mass = {0.0, 0.0};
    ksum vol = {0.0, 0.0};
    ksum mom[3] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (uint32_t k = 0; k < count; ++k)
    {
        mc_pose p = poses != NULL ? poses[k] : mc_pose_identity();
        p.q = mc_quat_normalize(p.q);
        mc_vec3 c = mc_pose_transform(&p, parts[k].centroid);
        ksum_add(&mass, parts[k].mass);
        ksum_add(&vol, parts[k].volume);
        ksum_add(&mom[0], parts[k].mass * c.x);
        ksum_add(&mom[1], parts[k].mass * c.y);
        ksum_add(&mom[2], parts[k].mass * c.z);
    }
    mc_mass_properties r;
    memset(&r, 0, sizeof r);
    r.mass = ksum_get(&mass);
    r.volume = ksum_get(&vol);
    r.centroid = mc_v3(ksum_get(&mom[0]) / r.mass, ksum_get(&mom[1]) / r.mass, ksum_get(&mom[2]) / r.mass);
    ksum in[3][3];
    memset(in, 0, sizeof in);
    for (uint32_t k = 0; k < count; ++k)
    {
        mc_pose p = poses != NULL ? poses[k] : mc_pose_identity();
        p.q = mc_quat_normalize(p.q);
        mc_mat33 rot = mc_quat_to_mat33(p.q);
        mc_vec3 d = mc_sub(mc_pose_transform(&p, parts[k].centroid), r.centroid);
        double dv[3] = {d.x, d.y, d.z};
        double d2 = mc_dot(d, d);
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                double rir = 0.0; // (R I R^T)_ij
                for (int a = 0; a < 3; ++a)
                {
                    for (int b = 0; b < 3; ++b)
                    {
                        rir += rot.m[i][a] * parts[k].inertia.m[a][b] * rot.m[j][b];
                    }
                }
                ksum_add(&in[i][j], rir);
                ksum_add(&in[i][j], parts[k].mass * ((i == j ? d2 : 0.0) - dv[i] * dv[j]));
            }
        }
    }
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j <= i; ++j)
        {
            // symmetric by construction up to the order of the products: average the two triangles
            double x = i == j ? ksum_get(&in[i][j]) : 0.5 * (ksum_get(&in[i][j]) + ksum_get(&in[j][i]));
            r.inertia.m[i][j] = r.inertia.m[j][i] = x;
        }
    }
    if (!props_finite(&r))
    {
        return mc_set_error(err, MC_ERR_OUT_OF_RANGE, -1, -1, "%s: a mass property overflowed", what);
    }
    principal(&r);
    *out = r;
    return MC_OK;
}
