// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The 20-point Gauss-Legendre rule on [-1, 1], shared by the closed-form shape pairs that integrate one smooth
// variable numerically (cylinder_plane.c, cylinder_sphere.c, cylinder_mesh.c, analytic.c).
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
