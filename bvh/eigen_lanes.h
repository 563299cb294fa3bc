// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The build's warm Jacobi sweep (eigen_warm in obb_fit.c) on several lanes at once, written once for every lane
// count: obb_fit.c includes this file once per vector type, with
//   EL_T        the vector of doubles (GCC vector extension), EL_M the vector of 64-bit masks of the same lanes,
//   EL_ATTR     the function attributes (target) of that width,
//   EL_SQRT(x)  the lane-wise correctly rounded square root,
//   EL_NAME(n)  the name of this width's copy of n.
// Every lane does eigen_warm's IEEE operations in eigen_warm's order (division and square root are correctly rounded;
// nothing is fused under -ffp-contract=off) and its branches become selections, so every lane's axes equal
// eigen_warm's bit for bit. Comparisons follow C's: != is true for NaN, !(a <= b) is written ~(a <= b).

// mask ? a : b, lane by lane.
EL_ATTR static inline EL_T EL_NAME(sel)(EL_M mask, EL_T a, EL_T b)
{
    return (EL_T)((mask & (EL_M)a) | (~mask & (EL_M)b));
}

EL_ATTR static inline EL_T EL_NAME(abs)(EL_T x)
{
    return (EL_T)((EL_M)x & 0x7fffffffffffffffLL);
}

EL_ATTR static inline int EL_NAME(any)(EL_M m)
{
    long long acc = 0;
    for (unsigned l = 0; l < sizeof(EL_M) / sizeof(long long); ++l)
    {
        acc |= m[l];
    }
    return acc != 0;
}

// jacobi_rotate on every lane; lanes outside `live` are left unchanged.
EL_ATTR static inline void EL_NAME(rotate)(EL_T* app, EL_T* aqq, EL_T* apq, EL_T* arp, EL_T* arq, EL_T ep[3],
                                           EL_T eq[3], EL_M live)
{
    EL_T x = *apq;
    EL_M rot = live & (EL_M)(x != 0.0) & ~(EL_M)(x * x <= 1e-14 * EL_NAME(abs)(*app * *aqq));
    if (!EL_NAME(any)(rot))
    {
        return;
    }
    EL_T d = *aqq - *app;
    EL_M small = (EL_M)(EL_NAME(abs)(x) <= 0.02 * EL_NAME(abs)(d));
    // Small-angle branch (see jacobi_rotate).
    EL_T rho = x / d;
    EL_T u = 0.5 * rho * (1.0 - 1.25 * rho * rho);
    EL_T u2 = u * u;
    EL_T inv = 1.0 - u2 * (1.0 - u2 * (1.0 - u2 * (1.0 - u2)));
    EL_T cs = (1.0 - u2) * inv;
    EL_T ss = 2.0 * u * inv;
    EL_T g = ss * (2.0 * cs * x - ss * d);
    // Exact branch.
    EL_T sx = EL_NAME(sel)((EL_M)(d >= 0.0), x, -x);
    EL_T t = 2.0 * sx / (EL_NAME(abs)(d) + EL_SQRT(d * d + 4.0 * x * x));
    EL_T ce = 1.0 / EL_SQRT(t * t + 1.0);
    EL_T se = t * ce;
    EL_T c = EL_NAME(sel)(small, cs, ce), s = EL_NAME(sel)(small, ss, se);
    EL_T new_pp = EL_NAME(sel)(small, *app - g, *app - t * x);
    EL_T new_qq = EL_NAME(sel)(small, *aqq + g, *aqq + t * x);
    EL_T rp = *arp, rq = *arq;
    *app = EL_NAME(sel)(rot, new_pp, *app);
    *aqq = EL_NAME(sel)(rot, new_qq, *aqq);
    const EL_T zero = {0};
    *apq = EL_NAME(sel)(rot, zero, x);
    *arp = EL_NAME(sel)(rot, c * rp - s * rq, rp);
    *arq = EL_NAME(sel)(rot, s * rp + c * rq, rq);
    for (int k = 0; k < 3; ++k)
    {
        EL_T vp = ep[k], vq = eq[k];
        ep[k] = EL_NAME(sel)(rot, c * vp - s * vq, vp);
        eq[k] = EL_NAME(sel)(rot, s * vp + c * vq, vq);
    }
}

EL_ATTR static inline void EL_NAME(swap)(EL_M mask, EL_T* va, EL_T* vb, EL_T ea[3], EL_T eb[3])
{
    EL_T a = *va;
    *va = EL_NAME(sel)(mask, *vb, a);
    *vb = EL_NAME(sel)(mask, a, *vb);
    for (int k = 0; k < 3; ++k)
    {
        EL_T u = ea[k];
        ea[k] = EL_NAME(sel)(mask, eb[k], u);
        eb[k] = EL_NAME(sel)(mask, u, eb[k]);
    }
}

// eigen_warm on every lane: m = (xx, yy, zz, xy, xz, yz), g = guess rows; e receives the first two axes (rows).
EL_ATTR static inline void EL_NAME(eigen_warm)(const EL_T m[6], EL_T g[3][3], EL_T e[3][3])
{
    EL_T ag[3][3];
    for (int j = 0; j < 3; ++j)
    {
        ag[j][0] = m[0] * g[j][0] + m[3] * g[j][1] + m[4] * g[j][2];
        ag[j][1] = m[3] * g[j][0] + m[1] * g[j][1] + m[5] * g[j][2];
        ag[j][2] = m[4] * g[j][0] + m[5] * g[j][1] + m[2] * g[j][2];
    }
    EL_T a00 = g[0][0] * ag[0][0] + g[0][1] * ag[0][1] + g[0][2] * ag[0][2];
    EL_T a11 = g[1][0] * ag[1][0] + g[1][1] * ag[1][1] + g[1][2] * ag[1][2];
    EL_T a22 = g[2][0] * ag[2][0] + g[2][1] * ag[2][1] + g[2][2] * ag[2][2];
    EL_T a01 = g[0][0] * ag[1][0] + g[0][1] * ag[1][1] + g[0][2] * ag[1][2];
    EL_T a02 = g[0][0] * ag[2][0] + g[0][1] * ag[2][1] + g[0][2] * ag[2][2];
    EL_T a12 = g[1][0] * ag[2][0] + g[1][1] * ag[2][1] + g[1][2] * ag[2][2];
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            e[i][k] = g[i][k];
        }
    }
    EL_T off = a01 * a01 + a02 * a02 + a12 * a12;
    EL_T diag = a00 * a00 + a11 * a11 + a22 * a22;
    EL_M live = (EL_M)(off > 1e-14 * diag) & (EL_M)(off != 0.0);
    if (EL_NAME(any)(live))
    {
        EL_NAME(rotate)(&a00, &a11, &a01, &a02, &a12, e[0], e[1], live);
        EL_NAME(rotate)(&a00, &a22, &a02, &a01, &a12, e[0], e[2], live);
        EL_NAME(rotate)(&a11, &a22, &a12, &a01, &a02, e[1], e[2], live);
    }
    EL_NAME(swap)((EL_M)(a11 > a00), &a00, &a11, e[0], e[1]);
    EL_NAME(swap)((EL_M)(a22 > a00), &a00, &a22, e[0], e[2]);
    EL_NAME(swap)((EL_M)(a22 > a11), &a11, &a22, e[1], e[2]);
}
