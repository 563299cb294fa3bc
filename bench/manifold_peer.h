// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Manifold (manifold-3d from the npm registry, run under node) as a peer of bench_regions -M: benchmark only.
#pragma once

#include "scenes.h"

/// Manifold's figures in one input mode.
typedef struct manifold_peer_mode
{
    double volume;    ///< Manifold's intersection volume (NAN when the mode did not run)
    double seconds;   ///< its best time for intersect + volume over the repeats
    double tolerance; ///< the larger of the two inputs' Manifold tolerance
    /// The larger relative difference between an input solid's Manifold volume and the signed volume of the mesh
    /// it was made from: the check that making the solids changed nothing
    double input_rel;
} manifold_peer_mode;

/// Result of one scene through Manifold. Modes (bench/manifold/manifold_bench.mjs): `f64` the scene's float64
/// positions (warpBatch) with the tolerance lowered to Manifold's double epsilon and the faces re-made at it, as a
/// native MeshGL64 caller gets; `f32` the float32-rounded positions, same tolerance and faces; `f32_default` the
/// float32 mesh with the float-sized tolerance manifold-3d gives it (FLT_EPSILON x bounding-box scale), the comparison
/// before the fix.
typedef struct manifold_peer_result
{
    manifold_peer_mode f64, f32, f32_default;
    double volume_ours;   ///< our region query's volume on the float32-rounded input
    double volume_ours_d; ///< ours on the float64 input (I's frame, the same doubles Manifold's f64 mode gets)
    /// The arbiter: CGAL's exact corefinement (Epeck) of the same float32-rounded meshes, NAN when bench_regions was
    /// built without CGAL or CGAL failed
    double volume_exact;
    double volume_exact_d; ///< CGAL's exact volume of the float64 input (I's frame), or NAN
    char status[64];       ///< Manifold's status of both inputs ("0,0": no error)
} manifold_peer_result;

/// Install manifold-3d into bench/manifold/node_modules when missing (npm install, versions pinned by its
/// package.json). @return 0, or -1 (message on stderr) when node or npm is missing or the install fails
int manifold_peer_setup(void);

/// Both meshes of `s` in I's frame, as float32 (Manifold's JS input type) and as float64, through Manifold's
/// intersection, ours (mc_query_regions on meshes made from the same coordinates) and CGAL's when built with it.
/// @return 0, or -1 (message on stderr)
int manifold_peer_run(const scene_pair* s, int repeats, manifold_peer_result* out);
