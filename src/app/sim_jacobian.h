// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact Jacobian blocks for the simulator's implicit integrator: per touching body pair, the derivatives of both
// bodies' contact wrenches with respect to both bodies' poses and twists, by forward finite differences of
// mc_world_evaluate. Part of the command-line tool, not of the library.
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The blocks have the layout of the library's coming analytic Jacobian (mc_world_get_jacobian): for a touching
 * pair of bodies (a, b), with a wrench = (force, torque about the body's reference point, the pose origin), world
 * frame, and per body the coordinates
 *     pose  (small world-frame rotation about the reference point, 0-2; translation, 3-5)
 *     twist (angular velocity, 0-2; linear velocity of the reference point, 3-5)
 * the stiffness block is d(wrench a, wrench b) / d(pose a, pose b) and the damping block d(wrench a, wrench b) /
 * d(twist a, twist b): rows 0-5 wrench a, 6-11 wrench b; columns 0-5 body a, 6-11 body b. A pair's wrench is the
 * sum over its region records of the force on J (normal force along the normal plus friction) at the contact point
 * plus the friction torque, and minus that on I (the world's own sum, mc_world_get_wrenches, is the sum over
 * pairs). Columns of a body that does not move (`movable` false) are left zero: an integrator never needs them.
 * The derivative does not exist at contact onset and at the A > 2 g^2 switch; forward differences there give
 * whatever side the perturbation lands on, which is all a Newton iteration matrix needs.
 */

/// The contact Jacobian of one touching body pair (see above).
typedef struct sim_jac_block
{
    uint32_t body_a;          ///< index of body a in the caller's arrays (the I body of its first region)
    uint32_t body_b;          ///< index of body b (the J body)
    double stiffness[12][12]; ///< d(wrench a, wrench b) / d(pose a, pose b)
    double damping[12][12];   ///< d(wrench a, wrench b) / d(twist a, twist b)
} sim_jac_block;

/// Perturbations of one body for the finite differences (each > 0).
typedef struct sim_jac_steps
{
    double rotation;    ///< radians
    double translation; ///< length
    double angular;     ///< rad / time
    double linear;      ///< length / time
} sim_jac_steps;

/// The world and its bodies as the simulator holds them.
typedef struct sim_jac_world
{
    mc_world* world;            ///< evaluated at poses and twists (mc_world_evaluate) before the call
    const mc_body_id* ids;      ///< the bodies, `count` of them
    const mc_pose* poses;       ///< their poses
    const mc_twist* twists;     ///< their twists
    const bool* movable;        ///< per body: false for bodies that never move (ground)
    const sim_jac_steps* steps; ///< per body: perturbations
    uint32_t count;             ///< bodies
} sim_jac_world;

/// Scratch of sim_contact_jacobian (zero-initialise; free with sim_jac_scratch_free).
typedef struct sim_jac_scratch
{
    mc_contact_region* regions; ///< region records
    uint32_t region_cap;        ///< their capacity
    double* base;               ///< per pair: the 12 wrench components at the unperturbed state
    double* moved;              ///< per pair: the same at a perturbed state
    uint32_t* pair_bodies;      ///< per pair: body a, body b
    uint32_t pair_cap;          ///< capacity of base and moved, in pairs
} sim_jac_scratch;

/// Free the scratch's buffers (the struct itself is the caller's).
void sim_jac_scratch_free(sim_jac_scratch* scratch);

/// Fill the contact Jacobian blocks of every touching body pair by forward differences: for each movable body of a
/// touching pair, 12 evaluations with one coordinate perturbed. The world is evaluated at the given state again
/// before returning, so its records are those of the unperturbed state.
/// @param blocks caller buffer of `capacity` blocks (may be NULL when capacity is 0); pairs in the order of their
///        first region record
/// @param count receives the number of touching pairs (may exceed capacity: only `capacity` blocks are written)
/// @param evaluations incremented by the number of mc_world_evaluate calls made
/// @return MC_OK, or the status of a failed evaluation or MC_ERR_OUT_OF_MEMORY
mc_status sim_contact_jacobian(const sim_jac_world* w, sim_jac_scratch* scratch, sim_jac_block* blocks,
                               uint32_t capacity, uint32_t* count, uint64_t* evaluations);
