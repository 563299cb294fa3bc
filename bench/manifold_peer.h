// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Manifold (manifold-3d from the npm registry, run under node) as a peer of bench_regions -M: benchmark only.
#pragma once

#include "scenes.h"

/// Result of one scene through Manifold.
typedef struct manifold_peer_result
{
    double volume;      ///< Manifold's intersection volume
    double seconds;     ///< its best time for intersect + volume over the repeats
    double volume_ours; ///< our region query's volume on the same float32-rounded input
    double rel;         ///< |volume - volume_ours| / |volume_ours|
    /// The arbiter where the two differ: CGAL's exact corefinement (Epeck) of the same float32-rounded meshes, NAN
    /// when bench_regions was built without CGAL or CGAL failed
    double volume_exact;
    char status[64]; ///< Manifold's status of both inputs ("0,0": no error)
} manifold_peer_result;

/// Install manifold-3d into bench/manifold/node_modules when missing (npm install, versions pinned by its
/// package.json). @return 0, or -1 (message on stderr) when node or npm is missing or the install fails
int manifold_peer_setup(void);

/// Both meshes of `s` in I's frame rounded to float32 (Manifold's input type), through Manifold's intersection and
/// through ours (mc_query_regions on meshes made from the same rounded coordinates). @return 0, or -1 (message on
/// stderr)
int manifold_peer_run(const scene_pair* s, int repeats, manifold_peer_result* out);
