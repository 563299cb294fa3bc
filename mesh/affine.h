// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private affine transforms of the scene readers (glTF, 3MF, Assimp): 3 x 4 row-major matrices in double, applied to
// column points p' = M [p; 1].
#pragma once

#include <math.h>
#include <stdbool.h>
#include <string.h>

/// Row-major affine transform: p'[i] = m[i][0] p[0] + m[i][1] p[1] + m[i][2] p[2] + m[i][3].
typedef struct mc_affine
{
    double m[3][4];
} mc_affine;

/// The identity.
static inline mc_affine mc_affine_identity(void)
{
    mc_affine x;
    memset(&x, 0, sizeof x);
    x.m[0][0] = x.m[1][1] = x.m[2][2] = 1.0;
    return x;
}

/// The product a * b (b applied first).
static inline mc_affine mc_affine_mul(const mc_affine* a, const mc_affine* b)
{
    mc_affine r;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 4; ++j)
        {
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
            {
                s += a->m[i][k] * b->m[k][j];
            }
            r.m[i][j] = j == 3 ? s + a->m[i][3] : s;
        }
    }
    return r;
}

/// True when every entry is exactly the identity's.
static inline bool mc_affine_is_identity(const mc_affine* x)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 4; ++j)
        {
            if (x->m[i][j] != (i == j ? 1.0 : 0.0))
            {
                return false;
            }
        }
    }
    return true;
}

/// Determinant of the linear part (negative: the transform mirrors, and triangle winding must be reversed).
static inline double mc_affine_det(const mc_affine* x)
{
    const double(*m)[4] = x->m;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/// True when all 12 entries are finite.
static inline bool mc_affine_is_finite(const mc_affine* x)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 4; ++j)
        {
            if (!isfinite(x->m[i][j]))
            {
                return false;
            }
        }
    }
    return true;
}

/// out = x applied to p. @return false when a coordinate of the result is not finite.
static inline bool mc_affine_apply(const mc_affine* x, const double p[3], double out[3])
{
    double q[3];
    for (int r = 0; r < 3; ++r)
    {
        q[r] = x->m[r][0] * p[0] + x->m[r][1] * p[1] + x->m[r][2] * p[2] + x->m[r][3];
    }
    memcpy(out, q, sizeof q);
    return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]);
}
