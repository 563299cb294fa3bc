// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Minimum distance between two triangles: edge pairs, vertex-face projections and edge-face crossings.
// Based on: V. J. Lumelsky, "On fast computation of distance between line segments", IPL 21, 1985; D. Eberly,
// "Distance Between Two Triangles in 3D" (Geometric Tools).
#include "src/base/tri_distance.h"

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

double mc_segment_segment_closest(mc_vec3 p0, mc_vec3 p1, mc_vec3 q0, mc_vec3 q1, mc_vec3* a, mc_vec3* b)
{
    // |p0 + s d1 - q0 - t d2|^2 is convex in (s, t). For a fixed s the best t is clamp((b s + f) / e); the
    // unconstrained s of the lines, clamped, then t, then s again for the clamped t, reaches the minimum over the
    // square (the minimiser lies on the clamped s line or on an edge t = 0 or t = 1 of the square).
    mc_vec3 d1 = mc_sub(p1, p0), d2 = mc_sub(q1, q0), r = mc_sub(p0, q0);
    double aa = mc_dot(d1, d1), e = mc_dot(d2, d2), f = mc_dot(d2, r);
    double s = 0.0, t = 0.0;
    if (aa <= 0.0 && e <= 0.0)
    {
        s = t = 0.0;
    }
    else if (aa <= 0.0)
    {
        t = clamp01(f / e);
    }
    else
    {
        double c = mc_dot(d1, r);
        if (e <= 0.0)
        {
            s = clamp01(-c / aa);
        }
        else
        {
            double bb = mc_dot(d1, d2);
            double denom = aa * e - bb * bb;
            // Parallel (or nearly: denom below the rounding of its terms): any s is as good; take 0.
            s = denom > 1e-14 * aa * e ? clamp01((bb * f - c * e) / denom) : 0.0;
            double tn = bb * s + f;
            if (tn < 0.0)
            {
                t = 0.0;
                s = clamp01(-c / aa);
            }
            else if (tn > e)
            {
                t = 1.0;
                s = clamp01((bb - c) / aa);
            }
            else
            {
                t = tn / e;
            }
        }
    }
    *a = mc_mul_add(p0, s, d1);
    *b = mc_mul_add(q0, t, d2);
    mc_vec3 d = mc_sub(*a, *b);
    return mc_dot(d, d);
}

/// 1 when the projection of p on the plane of t (normal n, not normalised) lies inside t or on its boundary.
static int projects_inside(const mc_vec3 t[3], mc_vec3 n, mc_vec3 p)
{
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 u = t[k], v = t[(k + 1) % 3];
        if (mc_dot(mc_cross(mc_sub(v, u), mc_sub(p, u)), n) < 0.0)
        {
            return 0;
        }
    }
    return 1;
}

/// Vertex-face and edge-face cases of the vertices and edges of s against triangle t (normal n, |n|^2 = nn). Updates
/// *best (squared distance) and the points (point on s into *ps, on t into *pt). @return 1 on a crossing (distance 0)
static int against_face(const mc_vec3 s[3], const mc_vec3 t[3], mc_vec3 n, double nn, double* best, mc_vec3* ps,
                        mc_vec3* pt)
{
    double h[3];
    for (int k = 0; k < 3; ++k)
    {
        h[k] = mc_dot(mc_sub(s[k], t[0]), n);
    }
    for (int k = 0; k < 3; ++k)
    {
        // The edge k -> k + 1 crosses the plane: its crossing point inside t means the triangles meet.
        int l = (k + 1) % 3;
        if ((h[k] > 0.0 && h[l] < 0.0) || (h[k] < 0.0 && h[l] > 0.0))
        {
            mc_vec3 x = mc_mul_add(s[k], h[k] / (h[k] - h[l]), mc_sub(s[l], s[k]));
            if (projects_inside(t, n, x))
            {
                *best = 0.0;
                *ps = x;
                *pt = x;
                return 1;
            }
        }
    }
    for (int k = 0; k < 3; ++k)
    {
        double d2 = h[k] * h[k] / nn;
        if (d2 < *best && projects_inside(t, n, s[k]))
        {
            *best = d2;
            *ps = s[k];
            *pt = mc_mul_add(s[k], -h[k] / nn, n);
        }
    }
    return 0;
}

mc_tri_distance mc_tri_tri_distance(const mc_vec3 a[3], const mc_vec3 b[3])
{
    mc_tri_distance out;
    double best = INFINITY;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            mc_vec3 x, y;
            double d2 = mc_segment_segment_closest(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3], &x, &y);
            if (d2 < best)
            {
                best = d2;
                out.point_a = x;
                out.point_b = y;
            }
        }
    }
    mc_vec3 na = mc_cross(mc_sub(a[1], a[0]), mc_sub(a[2], a[0]));
    mc_vec3 nb = mc_cross(mc_sub(b[1], b[0]), mc_sub(b[2], b[0]));
    double nna = mc_dot(na, na), nnb = mc_dot(nb, nb);
    if (best > 0.0 && nnb > 0.0 && against_face(a, b, nb, nnb, &best, &out.point_a, &out.point_b))
    {
        out.distance = 0.0;
        return out;
    }
    if (best > 0.0 && nna > 0.0 && against_face(b, a, na, nna, &best, &out.point_b, &out.point_a))
    {
        out.distance = 0.0;
        return out;
    }
    out.distance = mc_length(mc_sub(out.point_b, out.point_a));
    return out;
}
