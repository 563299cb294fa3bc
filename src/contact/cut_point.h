// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The point where a mesh edge meets a cutting plane, the same bits from both triangles of the edge (the mesh-plane
// cut of analytic.c and the cylinder's end planes of cylinder_mesh.c).
#pragma once

#include "meshcontact/vec_math.h"

#include <stdbool.h>

/// The point where edge (a, b), with heights ha and hb of opposite signs (or one zero) above the plane, meets it:
/// computed from the lexicographically smaller end, so that both triangles of the edge get bitwise the same point.
static inline mc_vec3 mc_edge_cut_point(mc_vec3 a, double ha, mc_vec3 b, double hb)
{
    bool swap = b.x < a.x || (b.x == a.x && (b.y < a.y || (b.y == a.y && b.z < a.z)));
    if (swap)
    {
        mc_vec3 t = a;
        a = b;
        b = t;
        double th = ha;
        ha = hb;
        hb = th;
    }
    double t = ha / (ha - hb);
    return mc_add(a, mc_scale(mc_sub(b, a), t));
}
