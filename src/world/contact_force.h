// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Internal helpers of the force stage: region kinematics from body states (the laws themselves are public, world.h).
#pragma once

#include "meshcontact/world.h"

#include <stdbool.h>

/// Whether a model's Coulomb friction acts in this analysis: COULOMB_FRICTION = ON, or DYNAMICS_ONLY in a dynamic
/// analysis (the one rule of the force law, the stiction state and the Jacobian).
static inline bool mc_friction_active(const mc_force_model* m, mc_analysis analysis)
{
    return m->friction == MC_FRICTION_ON ||
           (m->friction == MC_FRICTION_DYNAMICS_ONLY && analysis == MC_ANALYSIS_DYNAMIC);
}

/// Kinematics of a region between body I and body J at their poses and velocities (world frame).
/// Relative velocity at the contact point c: v_rel = (v_J + w_J x (c - o_J)) - (v_I + w_I x (c - o_I)),
/// rate = -(v_rel . n), slip = v_rel - (v_rel . n) n, spin = (w_J - w_I) . n.
/// @param region the region (world frame), @param pose_i, pose_j body poses (only positions are used)
/// @param vel_i, vel_j body twists (world frame, about the reference points)
mc_contact_kinematics mc_contact_kinematics_compute(const mc_region* region, const mc_pose* pose_i,
                                                    const mc_twist* vel_i, const mc_pose* pose_j,
                                                    const mc_twist* vel_j);

/// The friction law of a model at the slip speed v >= 0: friction_curve(v) when the model has one (a coefficient or,
/// with MC_FRICTION_CURVE_FORCE, a force), otherwise Adams' coefficient mc_friction_coefficient. @param slope out (may
/// be NULL): its derivative in v.
double mc_model_friction(const mc_force_model* m, double v, double* slope);

/// Parameter check of the RECURDYN and DYMORE normal laws (called by mc_force_model_check).
mc_status mc_vendor_law_check(const mc_force_model* m, mc_error* err);

/// A user normal law (normal_fcn, clamped at 0 as the evaluation does) and its derivatives along `count` directions:
/// tangents[s] holds the derivative of every kinematic quantity along direction s (its `volume` is ignored: held
/// fixed); out[s] receives (Fn(kin + t tangent) - Fn(kin - t tangent)) / 2t, with t moving each quantity by at most
/// 1e-6 of its scale. @return Fn at kin.
double mc_user_normal_partials(const mc_force_model* m, const mc_contact_kinematics* kin,
                               const mc_contact_kinematics* tangents, int count, double* out);

/// A user friction law (friction_fcn, its force projected on the tangent plane) and its derivatives along `count`
/// directions, the normal force moving by dfn[s] along direction s; same differences as mc_user_normal_partials.
void mc_user_friction_partials(const mc_force_model* m, const mc_contact_kinematics* kin, double fn,
                               const mc_contact_kinematics* tangents, const double* dfn, int count, mc_vec3* force,
                               mc_vec3* torque, mc_vec3* dforce, mc_vec3* dtorque);
