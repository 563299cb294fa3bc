// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The C signatures of contact force routines in a shared library (Adams user subroutines CNFSUB and CFFSUB), which a
// scenario names with NORMAL_ROUTINE=library::function and FRICTION_ROUTINE=library::function and feeds with
// NORMAL_FUNCTION=USER(r1, ..., r30) and FRICTION_FUNCTION=USER(...). The library meshcontact does not load routines
// itself: the application does (dlopen, dlsym) and installs them as the model's normal_fcn and friction_fcn
// (world.h); a host can do the same.
// Based on: MSC Adams/Solver user-written subroutines CNFSUB and CFFSUB (their role and the USER() parameter list).
#pragma once

#include "world.h"

#ifdef __cplusplus
extern "C"
{
#endif

/// The most parameters a USER() list may give (Adams' limit). A library may also export, beside a routine `fn`, a
/// `const int fn_parameter_count`: a scenario whose USER() list has another count is then refused when it is read
/// (an error naming the file, line, library and function).
#define MC_ROUTINE_MAX_PARAMETERS 30

    /// A normal force routine (CNFSUB). Called once per valid region (A > 2 g^2) and evaluation, on the thread that
    /// evaluates the world, in a fixed order; it must be a pure function of its arguments (the Jacobian calls it at
    /// nearby kinematics to difference it) and must not call into the world.
    /// @param kin the region's kinematics (world.h: depth g, rate gdot positive approaching, area, volume, radius,
    ///        point, normal from I into J, slip velocity, spin rate; SI units or the scenario's)
    /// @param par the USER() values r1..rn in the order written, @param npar n (1..MC_ROUTINE_MAX_PARAMETERS)
    /// @return the normal force magnitude on J along +normal (negative values are clamped to 0; NaN and infinity
    ///         stop the evaluation with MC_ERR_OUT_OF_RANGE)
    typedef double mc_normal_routine_fcn(const mc_contact_kinematics* kin, const double* par, int npar);

    /// A friction routine (CFFSUB). Called after the normal force, once per valid region, when friction is active.
    /// @param kin the region's kinematics, @param normal_force Fn (>= 0)
    /// @param par, npar the USER() values of FRICTION_FUNCTION
    /// @param friction_force out: friction force on J, world frame (its normal component is removed); preset to 0
    /// @param friction_torque out: torque on J about the contact point, world frame; preset to 0
    typedef void mc_friction_routine_fcn(const mc_contact_kinematics* kin, double normal_force, const double* par,
                                         int npar, mc_vec3* friction_force, mc_vec3* friction_torque);

#ifdef __cplusplus
}
#endif
