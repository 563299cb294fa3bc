// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Gauss-Legendre rules on [-1, 1], shared by the closed-form shape pairs that integrate smooth functions numerically:
// 20 points (cylinder_plane.c, cylinder_sphere.c, cylinder_mesh.c, analytic.c) and 3 to 8 points (analytic.c: the
// first moments of a ball against faces far from its centre). Each is checked against the moments of x^k, k <= 2n,
// by tests/test_analytic.c.
#pragma once

/// Nodes (positive half) and weights of the 20-point Gauss-Legendre rule on [-1, 1]: node k and its mirror -node k
/// share weight k.
static const double mc_gauss20[10][2] = {
    {0.993128599185094924776, 0.0176140071391521183216}, {0.963971927277913791287, 0.0406014298003869413219},
    {0.912234428251325905857, 0.0626720483341090635121}, {0.83911697182221882342, 0.0832767415767047487602},
    {0.746331906460150792634, 0.101930119817240435066},  {0.636053680726515025467, 0.11819453196151841729},
    {0.510867001950827097985, 0.131688638449176626902},  {0.373706088715419560662, 0.142096109318382051299},
    {0.227785851141645078076, 0.149172986472603746812},  {0.0765265211334973337581, 0.152753387130725850699},
};

/// Nodes (the positive half, largest first; for odd n the zero last) and weights of the n-point Gauss-Legendre rules
/// on [-1, 1], n = 3 to 8, one after the other (mc_gauss_node reads them).
static const double mc_gauss_small[18][2] = {
    {0.774596669241483377035, 0.555555555555555555556},
    {0.0, 0.888888888888888888889},
    {0.861136311594052575224, 0.347854845137453857373},
    {0.339981043584856264803, 0.652145154862546142627},
    {0.906179845938663992798, 0.236926885056189087514},
    {0.538469310105683091036, 0.478628670499366468041},
    {0.0, 0.568888888888888888889},
    {0.932469514203152027812, 0.171324492379170345040},
    {0.661209386466264513661, 0.360761573048138607570},
    {0.238619186083196908631, 0.467913934572691047390},
    {0.949107912342758524526, 0.129484966168869693271},
    {0.741531185599394439864, 0.279705391489276667901},
    {0.405845151377397166907, 0.381830050505118944950},
    {0.0, 0.417959183673469387755},
    {0.960289856497536231684, 0.101228536290376259153},
    {0.796666477413626739592, 0.222381034453374470544},
    {0.525532409916328985818, 0.313706645877887287338},
    {0.183434642495649804939, 0.362683783378361982965},
};

/// Node k < 20 of the 20-point rule (the negative half first, then the positive, each from the largest magnitude down)
/// and its weight in *w.
static inline double mc_gauss20_node(int k, double* w)
{
    *w = mc_gauss20[k % 10][1];
    return k < 10 ? -mc_gauss20[k][0] : mc_gauss20[k - 10][0];
}

/// Node i < n of the n-point Gauss-Legendre rule on [-1, 1], n = 3 to 8 (ascending) or 20 (mc_gauss20_node's order),
/// and its weight in *w.
static inline double mc_gauss_node(int n, int i, double* w)
{
    if (n == 20)
    {
        return mc_gauss20_node(i, w);
    }
    static const int first[6] = {0, 2, 4, 7, 10, 14};
    const double(*t)[2] = mc_gauss_small + first[n - 3];
    int k = i < n / 2 ? i : n - 1 - i; // t[0] holds the largest node
    *w = t[k][1];
    return i < n / 2 ? -t[k][0] : t[k][0];
}
