// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private to the multibody model (sim_mb.cpp, sim_mb_loops.cpp; C++ on Simbody): the joints that close loops as
// constraint sets, the drivers of MOTIONs on CYLINDRICAL joints, and the exception a function expression throws.
#pragma once

extern "C"
{
#include "src/app/scenario_mech.h"
}

#include "Simbody.h"

#include <stdexcept>
#include <string>
#include <vector>

/// A failure of a function expression (or of the force callback) during the integration: its message is the
/// user's (app_mb_step_to passes it on as it is).
struct mb_force_failure : std::runtime_error
{
    explicit mb_force_failure(const std::string& m) : std::runtime_error(m) {}
};

/// The value of MOTION m's FUNCTION= (times sign) at time t, or its first (order 1) or second (order 2) time
/// derivative by central differences. Throws mb_force_failure on a domain error.
double mb_motion_value(const app_scenario_motion* m, double sign, double t, int order);

/// The constraints that make joint `type` between marker frame xi on body bi and xj on bj (each in its body's
/// frame) hold, as Adams' constraint set of that joint (sim_mb_loops.cpp says which Simbody constraints make each).
/// Appends them to out.
void mb_loop_constraints(app_joint_type type, SimTK::MobilizedBody& bi, const SimTK::Transform& xi,
                         SimTK::MobilizedBody& bj, const SimTK::Transform& xj, std::vector<SimTK::Constraint>& out);

/// A driver of one coordinate of a mobilizer (`which_q`: 0 for a Cylinder's rotation, 1 for its translation) by
/// MOTION m: q = sign f(t) (DISPLACEMENT) or u = sign f(t) (VELOCITY), one constraint equation whose multiplier is
/// the driver's generalized force with the sign of constraint forces (the applied force is its negative).
SimTK::Constraint mb_coordinate_driver(SimTK::MobilizedBody& body, int which_q, const app_scenario_motion* m,
                                       double sign);

/// Constraint equations of the model that are redundant (rows of the constraint Jacobian G at state s minus its
/// rank); s realized to Position at least.
int mb_redundant_count(const SimTK::SimbodyMatterSubsystem& matter, const SimTK::State& s);
