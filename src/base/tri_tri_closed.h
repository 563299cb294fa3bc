// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Exact intersection of closed triangles with no perturbation, and the self-intersection rule for two triangles of
// one mesh (the mesh check of bvh/bvh_self.c).
// Based on: J. R. Shewchuk 1997 for the predicates (src/base/predicates.h); the tests are derived here.
//
// Why not mc_tri_tri_crossings: that test decides the configuration where body J is translated by an infinitesimal
// delta (tri_tri.h). Two triangles of one mesh have no second body to translate: a shared vertex would be pulled
// apart and two faces that only touch would be decided by the direction of delta. Here every decision is about the
// triangles exactly as they are, as closed point sets (edges and corners included).
//
// Self-intersection rule. Two distinct triangles A and B of one mesh (non-zero area) intersect when their closed point
// sets share a point that their shared corners do not account for:
// - no shared vertex: any common point, touching included (a corner on the other's face, edges that meet, flush
//   faces). A mesh whose surface touches itself is not the boundary of a solid, and the parity of points near the
//   touching place would depend on the direction of a perturbation.
// - one shared vertex a: any common point other than a. A is (a, b, c) and B is (a, e, f); by convexity the common
//   set is {a} or contains a segment from a, and it is {a} unless edge bc meets B, edge ef meets A, or one of the
//   edges ab, ac lies in B's plane and points from a into B's corner (closed: along B's edge counts), or one of ae,
//   af likewise into A. Two triangles that only share a corner (a fan around a vertex, or two shells pinched at a
//   point) do not intersect; one that passes through the other's face from the shared corner does.
// - two shared vertices (an edge ab): the triangles meet beyond ab only when they are coplanar and their third
//   vertices lie on the same side of ab (the surface folds back onto itself); a dihedral angle of any other value,
//   flat included, is not an intersection.
// - three shared vertices: a duplicated triangle, always an intersection.
// Vertices are compared by index: the mesh's vertices are welded, so two distinct indices are two distinct points
// (if two indices ever held the same point, that point is a common point the rule counts).
#pragma once

#include "meshcontact/vec_math.h"

#include <math.h>
#include <stdint.h>

/// A triangle with what its plane tests need, computed once: the corners, the normal (b - a) x (c - a) in floating
/// point and the per-component sums of absolute products that bound its rounding (the orient3d filter of
/// predicates.h, as tri_tri.c's plane_f).
typedef struct mc_tri_plane
{
    mc_vec3 v[3];   ///< corners a, b, c
    double n[3];    ///< (b - a) x (c - a), rounded
    double perm[3]; ///< |products| summed per component (filter bound)
} mc_tri_plane;

/// Fill a triangle's plane data (inline: the pair stage prepares the planes of a leaf's triangles).
static inline void mc_tri_plane_init(mc_tri_plane* t, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    t->v[0] = a;
    t->v[1] = b;
    t->v[2] = c;
    // The operations of mc_orient3d_adapt and mc_cross_component_sign, so that their filter bounds hold here (and
    // those of tri_tri.c's tests, which take their planes from here).
    double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
    double wx = c.x - a.x, wy = c.y - a.y, wz = c.z - a.z;
    double p1 = uy * wz, p2 = uz * wy, p3 = uz * wx, p4 = ux * wz, p5 = ux * wy, p6 = uy * wx;
    t->n[0] = p1 - p2;
    t->n[1] = p3 - p4;
    t->n[2] = p5 - p6;
    t->perm[0] = fabs(p1) + fabs(p2);
    t->perm[1] = fabs(p3) + fabs(p4);
    t->perm[2] = fabs(p5) + fabs(p6);
}

/// Exact test: do the closed triangles a and b (each of non-zero area) share a point?
/// @return 1 when they do, else 0
int mc_tri_tri_closed_intersect(const mc_tri_plane* a, const mc_tri_plane* b);

/// The self-intersection rule above for two distinct triangles of one mesh.
/// @param a, b the triangles (non-zero area)
/// @param ia, ib their vertex indices (equal indices mean the same vertex)
/// @return 1 when the triangles intersect under the rule, else 0
int mc_tri_tri_self_intersect(const mc_tri_plane* a, const uint32_t ia[3], const mc_tri_plane* b, const uint32_t ib[3]);
