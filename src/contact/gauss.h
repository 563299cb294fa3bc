// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Gauss-Legendre rules on [-1, 1], shared by the closed-form shape pairs that integrate smooth functions numerically:
// 20 points (cylinder_plane.c, cylinder_sphere.c, cylinder_mesh.c, analytic.c) and 8 points (analytic.c: the first
// moments of a ball much larger than the faces it cuts). Both are checked against the moments of x^k, k < 2n, by
// tests/test_analytic.c.
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

/// Nodes (positive half) and weights of the 8-point Gauss-Legendre rule on [-1, 1], as mc_gauss20.
static const double mc_gauss8[4][2] = {
    {0.960289856497536231684, 0.101228536290376259153},
    {0.796666477413626739592, 0.222381034453374470544},
    {0.525532409916328985818, 0.313706645877887287338},
    {0.183434642495649804939, 0.362683783378361982965},
};
