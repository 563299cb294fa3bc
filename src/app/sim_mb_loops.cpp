// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Joints that close loops, as Simbody constraint sets with Adams' constraint equations, and the coordinate drivers of
// MOTIONs on CYLINDRICAL joints (sim_mb_internal.hpp). Each set removes the joint's degrees of freedom:
//   SPHERICAL      Ball (3: the origins of I and J coincide)
//   REVOLUTE       Ball + 2 ConstantAngle (I's z stays perpendicular to J's x and y): 5
//   TRANSLATIONAL  PointOnLine (2: I's origin on J's z axis) + ConstantOrientation (3: I keeps J's orientation): 5
//   CYLINDRICAL    PointOnLine (2) + 2 ConstantAngle (I's z along J's z): 4
//   UNIVERSAL      Ball (3) + ConstantAngle (1: I's z stays perpendicular to J's z): 4
//   PLANAR         PointInPlane (1: I's origin in J's xy plane) + 2 ConstantAngle (I's z along J's z): 3
//   FIXED          Weld (6)
// Redundant equations (a planar loop of joints repeats its out-of-plane equations) are kept: Simbody projects and
// solves for the multipliers in the least-squares sense (its QTZ factorization of the constraint Jacobian), so the
// motion is the one Adams finds after removing them, and the reactions are the smallest (minimum-norm) set that
// balances every part. Adams instead zeroes the reactions of the equations it removes: the sum on each part is the
// same, the split between the joints of a loop along the redundant directions differs.
#include "src/app/sim_mb_internal.hpp"

#include <cstdio>

using namespace SimTK;

double mb_motion_value(const app_scenario_motion* m, double sign, double t, int order)
{
    auto f = [&](double x)
    {
        app_expr_env env = {x, nullptr, nullptr, nullptr, nullptr};
        double v = 0.0;
        app_expr_fault fault;
        if (!app_expr_eval(m->function.code, &env, &v, &fault))
        {
            char b[400];
            snprintf(b, sizeof b, "MOTION/%d FUNCTION= at t = %.9g: %s in '%s'", m->id, x, fault.what,
                     m->function.text);
            throw mb_force_failure(b);
        }
        return sign * v;
    };
    // Central differences: step 1e-4 (1e-3 for the second) of the time scale 1: errors h^2 f''' / 6, h^2 f'''' / 12.
    if (order == 1)
    {
        const double h = 1e-4;
        return (f(t + h) - f(t - h)) / (2.0 * h);
    }
    if (order == 2)
    {
        const double h = 1e-3;
        return (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h);
    }
    return f(t);
}

void mb_loop_constraints(app_joint_type type, MobilizedBody& bi, const Transform& xi, MobilizedBody& bj,
                         const Transform& xj, std::vector<Constraint>& out)
{
    UnitVec3 iz(xi.R().z()), jx(xj.R().x()), jy(xj.R().y()), jz(xj.R().z());
    // I's z along J's z: perpendicular to J's x and y (two equations at the well-conditioned 90 degrees).
    auto align_z = [&]()
    {
        out.push_back(Constraint::ConstantAngle(bj, jx, bi, iz, Pi / 2));
        out.push_back(Constraint::ConstantAngle(bj, jy, bi, iz, Pi / 2));
    };
    switch (type)
    {
    case APP_JOINT_SPHERICAL:
        out.push_back(Constraint::Ball(bi, xi.p(), bj, xj.p()));
        break;
    case APP_JOINT_REVOLUTE:
        out.push_back(Constraint::Ball(bi, xi.p(), bj, xj.p()));
        align_z();
        break;
    case APP_JOINT_TRANSLATIONAL:
        out.push_back(Constraint::PointOnLine(bj, jz, xj.p(), bi, xi.p()));
        out.push_back(Constraint::ConstantOrientation(bj, xj.R(), bi, xi.R()));
        break;
    case APP_JOINT_CYLINDRICAL:
        out.push_back(Constraint::PointOnLine(bj, jz, xj.p(), bi, xi.p()));
        align_z();
        break;
    case APP_JOINT_UNIVERSAL:
        out.push_back(Constraint::Ball(bi, xi.p(), bj, xj.p()));
        out.push_back(Constraint::ConstantAngle(bj, jz, bi, iz, Pi / 2));
        break;
    case APP_JOINT_PLANAR:
        out.push_back(Constraint::PointInPlane(bj, jz, dot(Vec3(jz), xj.p()), bi, xi.p()));
        align_z();
        break;
    case APP_JOINT_FIXED:
        out.push_back(Constraint::Weld(bi, xi, bj, xj));
        break;
    }
}

namespace
{
/// q = f(t) (holonomic) or u = f(t) (nonholonomic) on one coordinate of one mobilizer (qdot = u there: Cylinder).
class coordinate_driver : public Constraint::Custom::Implementation
{
  public:
    coordinate_driver(MobilizedBody& body, int which, const app_scenario_motion* m, double sign)
        : Implementation(body.updMatterSubsystem(), m->velocity ? 0 : 1, m->velocity ? 1 : 0, 0), which_(which), m_(m),
          sign_(sign)
    {
        mobilizer_ = addConstrainedMobilizer(body);
    }

    Implementation* clone() const override { return new coordinate_driver(*this); }

    void calcPositionErrors(const State& s, const Array_<Transform, ConstrainedBodyIndex>&,
                            const Array_<Real, ConstrainedQIndex>& q, Array_<Real>& perr) const override
    {
        perr[0] = getOneQ(s, q, mobilizer_, MobilizerQIndex(which_)) - mb_motion_value(m_, sign_, s.getTime(), 0);
    }

    void calcPositionDotErrors(const State& s, const Array_<SpatialVec, ConstrainedBodyIndex>&,
                               const Array_<Real, ConstrainedQIndex>& qd, Array_<Real>& pverr) const override
    {
        pverr[0] = getOneQDot(s, qd, mobilizer_, MobilizerQIndex(which_)) - mb_motion_value(m_, sign_, s.getTime(), 1);
    }

    void calcPositionDotDotErrors(const State& s, const Array_<SpatialVec, ConstrainedBodyIndex>&,
                                  const Array_<Real, ConstrainedQIndex>& qdd, Array_<Real>& paerr) const override
    {
        paerr[0] =
            getOneQDotDot(s, qdd, mobilizer_, MobilizerQIndex(which_)) - mb_motion_value(m_, sign_, s.getTime(), 2);
    }

    void addInPositionConstraintForces(const State& s, const Array_<Real>& lambda,
                                       Array_<SpatialVec, ConstrainedBodyIndex>&,
                                       Array_<Real, ConstrainedQIndex>& qf) const override
    {
        addInOneQForce(s, mobilizer_, MobilizerQIndex(which_), lambda[0], qf);
    }

    void calcVelocityErrors(const State& s, const Array_<SpatialVec, ConstrainedBodyIndex>&,
                            const Array_<Real, ConstrainedUIndex>& u, Array_<Real>& verr) const override
    {
        verr[0] = getOneU(s, u, mobilizer_, MobilizerUIndex(which_)) - mb_motion_value(m_, sign_, s.getTime(), 0);
    }

    void calcVelocityDotErrors(const State& s, const Array_<SpatialVec, ConstrainedBodyIndex>&,
                               const Array_<Real, ConstrainedUIndex>& ud, Array_<Real>& vaerr) const override
    {
        vaerr[0] = getOneUDot(s, ud, mobilizer_, MobilizerUIndex(which_)) - mb_motion_value(m_, sign_, s.getTime(), 1);
    }

    void addInVelocityConstraintForces(const State& s, const Array_<Real>& lambda,
                                       Array_<SpatialVec, ConstrainedBodyIndex>&,
                                       Array_<Real, ConstrainedUIndex>& uf) const override
    {
        addInOneMobilityForce(s, mobilizer_, MobilizerUIndex(which_), lambda[0], uf);
    }

  private:
    int which_;
    const app_scenario_motion* m_;
    double sign_;
    ConstrainedMobilizerIndex mobilizer_;
};
} // namespace

Constraint mb_coordinate_driver(MobilizedBody& body, int which_q, const app_scenario_motion* m, double sign)
{
    return Constraint::Custom(new coordinate_driver(body, which_q, m, sign));
}

int mb_redundant_count(const SimbodyMatterSubsystem& matter, const State& s)
{
    Matrix g;
    matter.calcG(s, g);
    if (g.nrow() == 0)
    {
        return 0;
    }
    // Rank with the relative tolerance 1e-9 of the largest singular value estimate: the joints' equations have
    // unit-scale rows (lengths of about the model size, unit vectors), far from that.
    FactorQTZ qtz(g, 1e-9);
    return g.nrow() - qtz.getRank();
}
