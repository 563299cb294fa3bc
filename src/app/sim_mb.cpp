// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The multibody model of a scenario with JOINTs and MOTIONs, on Simbody (sim_mb.h): a spanning tree of the joints
// from the ground gives each moving part its mobilizer, the joints left over close loops as constraints, MOTIONs
// prescribe mobilities, and a custom force brings in every other force through the simulator's callback.
// Based on: Sherman, Seth, Delp, "Simbody: multibody dynamics for biomedical research", Procedia IUTAM 2 (2011).
extern "C"
{
#include "src/app/sim_mb.h"

#include "src/app/sim_static.h"
}

#include "Simbody.h"
#include "src/app/sim_mb_internal.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

using namespace SimTK;

namespace
{
Rotation rot_of(mc_quat q)
{
    return Rotation(Quaternion(q.w, q.x, q.y, q.z));
}

mc_quat quat_of(const Rotation& r)
{
    Quaternion q = r.convertRotationToQuaternion();
    return mc_quat{q[0], q[1], q[2], q[3]};
}

Vec3 vec_of(mc_vec3 v)
{
    return Vec3(v.x, v.y, v.z);
}

mc_vec3 v3(const Vec3& v)
{
    return mc_vec3{v[0], v[1], v[2]};
}
} // namespace

struct app_mb
{
    MultibodySystem system;
    SimbodyMatterSubsystem matter{system};
    GeneralForceSubsystem forces{system};
    const app_scenario* scn = nullptr;
    std::vector<MobilizedBody> body;    // per part (Ground for ground parts)
    std::vector<Transform> ground_pose; // per ground part: its frame in Ground
    std::vector<bool> ground;           // per part
    app_mb_force_fcn* force = nullptr;
    void* user = nullptr;
    std::vector<app_part_motion> motion; // scratch for the callback
    std::vector<mc_wrench> wrench;
    std::string error;
    State state;
    // The outputs (app_mb_csv_row): per JOINT of the tree its child part and whether the child holds the I marker
    // (-1: a loop joint), per loop JOINT its constraints; per MOTION its child part and the sign of I relative to J.
    std::vector<int> joint_child;
    std::vector<bool> joint_child_is_i;
    std::vector<std::vector<Constraint>> joint_constraints;
    std::vector<Vec3> joint_station; // per loop JOINT: its I marker in the I part's body frame
    std::vector<int> motion_child;
    std::vector<double> motion_sign;
    std::vector<Constraint> motion_driver; // per MOTION on a CYLINDRICAL joint: its driver (else empty)
    int redundant = 0;                     // redundant constraint equations (sim_mb_loops.cpp keeps them)
    Integrator* integ = nullptr;
    TimeStepper* stepper = nullptr;

    ~app_mb()
    {
        delete stepper;
        delete integ;
    }

    /// The part motions at state s.
    void motions(const State& s, app_part_motion* out) const
    {
        for (size_t i = 0; i < body.size(); ++i)
        {
            if (ground[i])
            {
                out[i] = app_part_motion{v3(ground_pose[i].p()), quat_of(ground_pose[i].R()), mc_vec3{0, 0, 0},
                                         mc_vec3{0, 0, 0}};
                continue;
            }
            const Transform& x = body[i].getBodyTransform(s);
            const SpatialVec& v = body[i].getBodyVelocity(s);
            out[i] = app_part_motion{v3(x.p()), quat_of(x.R()), v3(v[1]), v3(v[0])};
        }
    }
};

namespace
{
/// Every force but gravity, from the simulator.
class callback_force : public Force::Custom::Implementation
{
  public:
    explicit callback_force(app_mb* mb) : mb_(mb) {}

    void calcForce(const State& s, Vector_<SpatialVec>& body_forces, Vector_<Vec3>&, Vector&) const override
    {
        mb_->motions(s, mb_->motion.data());
        char err[700] = "";
        if (!mb_->force(mb_->user, s.getTime(), mb_->motion.data(), mb_->wrench.data(), err, sizeof err))
        {
            throw mb_force_failure(err);
        }
        for (size_t i = 0; i < mb_->body.size(); ++i)
        {
            if (!mb_->ground[i])
            {
                const mc_wrench& w = mb_->wrench[i];
                mb_->body[i].applyBodyForce(s, SpatialVec(vec_of(w.torque), vec_of(w.force)), body_forces);
            }
        }
    }

    Real calcPotentialEnergy(const State&) const override { return 0.0; }

    bool dependsOnlyOnPositions() const override { return false; }

  private:
    app_mb* mb_;
};

/// A MOTION: the joint coordinate (or its rate) as the function of time, derivatives by central differences.
class expr_motion : public Motion::Custom::Implementation
{
  public:
    expr_motion(const app_scenario_motion* m, double sign) : m_(m), sign_(sign) {}

    Motion::Level getLevel(const State&) const override { return m_->velocity ? Motion::Velocity : Motion::Position; }

    void calcPrescribedPosition(const State& s, int, Real* q) const override { q[0] = f(s.getTime()); }

    void calcPrescribedPositionDot(const State& s, int, Real* qd) const override { qd[0] = d1(s.getTime()); }

    void calcPrescribedPositionDotDot(const State& s, int, Real* qdd) const override { qdd[0] = d2(s.getTime()); }

    void calcPrescribedVelocity(const State& s, int, Real* u) const override { u[0] = f(s.getTime()); }

    void calcPrescribedVelocityDot(const State& s, int, Real* ud) const override { ud[0] = d1(s.getTime()); }

  private:
    double f(double t) const { return mb_motion_value(m_, sign_, t, 0); }

    double d1(double t) const { return mb_motion_value(m_, sign_, t, 1); }

    double d2(double t) const { return mb_motion_value(m_, sign_, t, 2); }

    const app_scenario_motion* m_;
    double sign_;
};

} // namespace

extern "C" bool app_mb_available(void)
{
    return true;
}

extern "C" bool app_mb_create(const app_mb_def* def, app_mb** out, char* err, size_t cap)
{
    *out = nullptr;
    const app_scenario* scn = def->scn;
    const app_scenario_mech* m = scn->mech;
    app_mb* mb = new app_mb();
    mb->scn = scn;
    mb->force = def->force;
    mb->user = def->user;
    int np = scn->part_count;
    mb->body.assign((size_t)np, MobilizedBody());
    mb->ground.assign((size_t)np, false);
    mb->ground_pose.assign((size_t)np, Transform());
    mb->motion.resize((size_t)np);
    mb->wrench.resize((size_t)np);
    std::vector<bool> in_tree((size_t)np, false);
    for (int i = 0; i < np; ++i)
    {
        if (scn->parts[i].ground)
        {
            mb->ground[(size_t)i] = true;
            in_tree[(size_t)i] = true;
            mb->ground_pose[(size_t)i] = Transform(rot_of(def->initial[i].q), vec_of(def->initial[i].p));
        }
    }
    // A marker's frame in its body's frame (ground parts: in Ground).
    auto marker_frame = [&](int k)
    {
        const app_scenario_marker& mk = m->markers[k];
        Transform local(rot_of(mk.local.q), vec_of(mk.local.p) - vec_of(def->cm[mk.part_index]));
        return mb->ground[(size_t)mk.part_index] ? mb->ground_pose[(size_t)mk.part_index] * local : local;
    };
    auto body_of = [&](int part) -> MobilizedBody&
    { return mb->ground[(size_t)part] ? mb->matter.updGround() : mb->body[(size_t)part]; };
    std::vector<bool> used((size_t)m->joint_count, false);
    mb->joint_child.assign((size_t)m->joint_count, -1);
    mb->joint_child_is_i.assign((size_t)m->joint_count, false);
    mb->joint_constraints.assign((size_t)m->joint_count, std::vector<Constraint>());
    mb->joint_station.assign((size_t)m->joint_count, Vec3(0));
    mb->motion_child.assign((size_t)m->motion_count, -1);
    mb->motion_sign.assign((size_t)m->motion_count, 1.0);
    mb->motion_driver.assign((size_t)m->motion_count, Constraint());
    std::vector<int> parent_of((size_t)np, -1);                  // per moving part: its parent part (-1: Ground)
    std::vector<Transform> xf_of((size_t)np), xm_of((size_t)np); // its mobilizer frames F (on the parent), M
    auto fail = [&](const char* fmt, int line, int id, const char* what)
    {
        char b[500];
        snprintf(b, sizeof b, fmt, id, what);
        snprintf(err, cap, "%s:%d: %s", scn->path, line, b);
        delete mb;
        return false;
    };
    try
    {
        // Grow the tree from the ground, one joint at a time, in file order.
        for (bool grew = true; grew;)
        {
            grew = false;
            for (int k = 0; k < m->joint_count; ++k)
            {
                const app_scenario_joint& jt = m->joints[k];
                int pi = m->markers[jt.i].part_index, pj = m->markers[jt.j].part_index;
                if (used[(size_t)k] || in_tree[(size_t)pi] == in_tree[(size_t)pj])
                {
                    continue;
                }
                bool child_is_i = !in_tree[(size_t)pi];
                int child = child_is_i ? pi : pj, parent = child_is_i ? pj : pi;
                Transform xf = marker_frame(child_is_i ? jt.j : jt.i); // on the parent
                Transform xm = marker_frame(child_is_i ? jt.i : jt.j); // on the child
                const mc_mat33& in = def->inertia[child];
                Body::Rigid rb(
                    MassProperties(def->mass[child], Vec3(0),
                                   Inertia(in.m[0][0], in.m[1][1], in.m[2][2], in.m[0][1], in.m[0][2], in.m[1][2])));
                MobilizedBody& pb = body_of(parent);
                Transform z_to_x(Rotation(-Pi / 2, YAxis)); // Simbody slides along x, Adams along z
                Transform z_to_y(Rotation(Pi / 2, XAxis));
                if (jt.type == APP_JOINT_TRANSLATIONAL || jt.type == APP_JOINT_UNIVERSAL)
                {
                    xf = xf * z_to_x;
                    xm = xm * (jt.type == APP_JOINT_UNIVERSAL ? z_to_y : z_to_x);
                }
                switch (jt.type)
                {
                case APP_JOINT_REVOLUTE:
                    mb->body[(size_t)child] = MobilizedBody::Pin(pb, xf, rb, xm);
                    break;
                case APP_JOINT_TRANSLATIONAL:
                    mb->body[(size_t)child] = MobilizedBody::Slider(pb, xf, rb, xm);
                    break;
                case APP_JOINT_CYLINDRICAL:
                    mb->body[(size_t)child] = MobilizedBody::Cylinder(pb, xf, rb, xm);
                    break;
                case APP_JOINT_SPHERICAL:
                    mb->body[(size_t)child] = MobilizedBody::Ball(pb, xf, rb, xm);
                    break;
                case APP_JOINT_UNIVERSAL:
                    mb->body[(size_t)child] = MobilizedBody::Universal(pb, xf, rb, xm);
                    break;
                case APP_JOINT_PLANAR:
                    mb->body[(size_t)child] = MobilizedBody::Planar(pb, xf, rb, xm);
                    break;
                case APP_JOINT_FIXED:
                    mb->body[(size_t)child] = MobilizedBody::Weld(pb, xf, rb, xm);
                    break;
                }
                parent_of[(size_t)child] = mb->ground[(size_t)parent] ? -1 : parent;
                xf_of[(size_t)child] = xf;
                xm_of[(size_t)child] = xm;
                mb->joint_child[(size_t)k] = child;
                mb->joint_child_is_i[(size_t)k] = child_is_i;
                in_tree[(size_t)child] = true;
                used[(size_t)k] = true;
                grew = true;
            }
        }
        // Parts no joint reaches from the ground move freely.
        for (int i = 0; i < np; ++i)
        {
            if (!in_tree[(size_t)i])
            {
                const mc_mat33& in = def->inertia[i];
                Body::Rigid rb(
                    MassProperties(def->mass[i], Vec3(0),
                                   Inertia(in.m[0][0], in.m[1][1], in.m[2][2], in.m[0][1], in.m[0][2], in.m[1][2])));
                mb->body[(size_t)i] = MobilizedBody::Free(mb->matter.updGround(), Transform(), rb, Transform());
                in_tree[(size_t)i] = true;
            }
        }
        // The joints left over close loops.
        for (int k = 0; k < m->joint_count; ++k)
        {
            if (used[(size_t)k])
            {
                continue;
            }
            const app_scenario_joint& jt = m->joints[k];
            int pi = m->markers[jt.i].part_index, pj = m->markers[jt.j].part_index;
            if (mb->ground[(size_t)pi] && mb->ground[(size_t)pj])
            {
                return fail("JOINT/%d joins two ground parts%s", jt.line, jt.id, "");
            }
            Transform xi = marker_frame(jt.i), xj = marker_frame(jt.j);
            mb->joint_station[(size_t)k] = xi.p();
            mb_loop_constraints(jt.type, body_of(pi), xi, body_of(pj), xj, mb->joint_constraints[(size_t)k]);
        }
        // The MOTIONs, on joints of the tree: Adams drives I relative to J, the mobilizer measures the child relative
        // to the parent. A REVOLUTE's or TRANSLATIONAL's one mobility is prescribed (Simbody's Motion); a
        // CYLINDRICAL's rotation and translation are driven one by one by a constraint (a Motion would prescribe
        // both).
        for (int k = 0; k < m->motion_count; ++k)
        {
            const app_scenario_motion& mo = m->motions[k];
            const app_scenario_joint& jt = m->joints[mo.joint];
            int child = mb->joint_child[(size_t)mo.joint];
            if (child < 0)
            {
                return fail("JOINT/%d closes a loop of joints: a MOTION cannot drive it (drive a joint of the tree, "
                            "%s)",
                            jt.line, jt.id, "one met earlier in the file from the ground");
            }
            double sign = mb->joint_child_is_i[(size_t)mo.joint] ? 1.0 : -1.0;
            mb->motion_child[(size_t)k] = child;
            mb->motion_sign[(size_t)k] = sign;
            if (jt.type == APP_JOINT_CYLINDRICAL)
            {
                mb->motion_driver[(size_t)k] =
                    mb_coordinate_driver(mb->body[(size_t)child], mo.rotation ? 0 : 1, &mo, sign);
            }
            else
            {
                Motion::Custom(mb->body[(size_t)child], new expr_motion(&mo, sign));
            }
        }
        Force::UniformGravity(mb->forces, mb->matter, vec_of(scn->gravity));
        Force::Custom(mb->forces, new callback_force(mb));
        mb->state = mb->system.realizeTopology();
        // The initial poses and velocities of the parts, fitted by each mobilizer, then the loops assembled.
        mb->system.realizeModel(mb->state);
        for (int i = 0; i < np; ++i)
        {
            if (mb->ground[(size_t)i])
            {
                continue;
            }
            // X_FM = X_PF^-1 X_GP^-1 X_GB X_BM and the velocity of M in F, from the initial motions.
            const app_part_motion& x = def->initial[i];
            int par = parent_of[(size_t)i];
            Transform xgp, xgb(rot_of(x.q), vec_of(x.p));
            Vec3 wp(0), vp(0);
            if (par >= 0)
            {
                xgp = Transform(rot_of(def->initial[par].q), vec_of(def->initial[par].p));
                wp = vec_of(def->initial[par].w);
                vp = vec_of(def->initial[par].v);
            }
            Transform xgf = xgp * xf_of[(size_t)i], xgm = xgb * xm_of[(size_t)i];
            mb->body[(size_t)i].setQToFitTransform(mb->state, ~xgf * xgm);
            Vec3 w = vec_of(x.w), v = vec_of(x.v);
            Vec3 vf = vp + wp % (xgf.p() - xgp.p()), vm = v + w % (xgm.p() - xgb.p());
            Vec3 w_rel = w - wp, v_rel = vm - vf - wp % (xgm.p() - xgf.p());
            mb->body[(size_t)i].setUToFitVelocity(mb->state, SpatialVec(~xgf.R() * w_rel, ~xgf.R() * v_rel));
        }
        mb->system.realize(mb->state, Stage::Time);
        mb->system.prescribeQ(mb->state);
        mb->system.realize(mb->state, Stage::Position);
        mb->system.prescribeU(mb->state);
        mb->system.project(mb->state, 1e-12);
        mb->redundant = mb_redundant_count(mb->matter, mb->state);
        mb->integ = new RungeKuttaMersonIntegrator(mb->system);
        mb->integ->setAccuracy(def->accuracy);
        mb->integ->setConstraintTolerance(1e-10);
        mb->stepper = new TimeStepper(mb->system, *mb->integ);
        mb->stepper->initialize(mb->state);
    }
    catch (const std::exception& e)
    {
        snprintf(err, cap, "%s: the multibody model: %s", scn->path, e.what());
        delete mb;
        return false;
    }
    *out = mb;
    return true;
}

extern "C" bool app_mb_step_to(app_mb* mb, double t, char* err, size_t cap)
{
    try
    {
        mb->stepper->stepTo(t);
    }
    catch (const mb_force_failure& e)
    {
        snprintf(err, cap, "%s", e.what());
        return false;
    }
    catch (const std::exception& e)
    {
        snprintf(err, cap, "%s: the multibody integration failed at t = %.9g: %s", mb->scn->path, mb->integ->getTime(),
                 e.what());
        return false;
    }
    return true;
}

extern "C" void app_mb_get_motions(const app_mb* mb, app_part_motion* out)
{
    mb->motions(mb->integ->getState(), out);
}

extern "C" int app_mb_redundant_count(const app_mb* mb)
{
    return mb->redundant;
}

extern "C" long app_mb_step_count(const app_mb* mb)
{
    return mb->integ->getNumStepsTaken();
}

extern "C" void app_mb_destroy(app_mb* mb)
{
    delete mb;
}

extern "C" void app_mb_csv_header(const app_scenario* scn, FILE* f)
{
    const app_scenario_mech* m = scn->mech;
    if (m == nullptr || m->joint_count == 0)
    {
        return;
    }
    for (int k = 0; k < m->joint_count; ++k)
    {
        int id = m->joints[k].id;
        fprintf(f, ",joint%d_fx,joint%d_fy,joint%d_fz,joint%d_tx,joint%d_ty,joint%d_tz", id, id, id, id, id, id);
    }
    for (int k = 0; k < m->motion_count; ++k)
    {
        fprintf(f, ",motion%d_f", m->motions[k].id);
    }
}

extern "C" bool app_mb_get_reactions(const app_mb* mb, mc_wrench* joints, double* motions, char* err, size_t cap)
{
    const app_scenario_mech* m = mb->scn->mech;
    const State& s = mb->integ->getState();
    try
    {
        // Reactions need accelerations: realized by the integrator's last step, else here (calls the forces).
        if (s.getSystemStage() < Stage::Acceleration)
        {
            mb->system.realize(s, Stage::Acceleration);
        }
        for (int k = 0; k < m->joint_count; ++k)
        {
            const app_scenario_joint& jt = m->joints[k];
            const app_scenario_marker& mi = m->markers[jt.i];
            int child = mb->joint_child[(size_t)k];
            SpatialVec r(Vec3(0), Vec3(0)); // on the I part, at the I marker, in Ground
            if (child >= 0)
            {
                const MobilizedBody& b = mb->body[(size_t)child];
                // The child's M frame is its marker; the parent's F frame is the other marker.
                r = mb->joint_child_is_i[(size_t)k] ? b.findMobilizerReactionOnBodyAtMInGround(s)
                                                    : b.findMobilizerReactionOnParentAtFInGround(s);
            }
            else
            {
                // A loop joint: its constraints' forces on the I part's body (at its origin, in Ground; Simbody's
                // constraint forces have the sign opposite to applied forces), shifted to the I marker.
                const MobilizedBody& bi =
                    mb->ground[(size_t)mi.part_index] ? mb->matter.getGround() : mb->body[(size_t)mi.part_index];
                Vec3 p_i = bi.getBodyTransform(s) * mb->joint_station[(size_t)k];
                for (const Constraint& c : mb->joint_constraints[(size_t)k])
                {
                    Vector_<SpatialVec> f = c.getConstrainedBodyForcesAsVector(s);
                    for (ConstrainedBodyIndex cb(0); cb < c.getNumConstrainedBodies(); ++cb)
                    {
                        if (c.getMobilizedBodyFromConstrainedBody(cb).getMobilizedBodyIndex() ==
                            bi.getMobilizedBodyIndex())
                        {
                            Vec3 o = c.getMobilizedBodyFromConstrainedBody(cb).getBodyOriginLocation(s);
                            r -= shiftForceFromTo(f[cb], o, p_i);
                        }
                    }
                }
            }
            joints[k] = mc_wrench{v3(r[1]), v3(r[0])};
        }
        Vector tau;
        if (m->motion_count > 0)
        {
            mb->matter.findMotionForces(s, tau);
        }
        for (int k = 0; k < m->motion_count; ++k)
        {
            const MobilizedBody& b = mb->body[(size_t)mb->motion_child[(size_t)k]];
            if (!mb->motion_driver[(size_t)k].isEmptyHandle())
            {
                // A driver constraint's multiplier, with the sign of constraint forces (as below).
                motions[k] = -mb->motion_sign[(size_t)k] * mb->motion_driver[(size_t)k].getMultipliersAsVector(s)[0];
                continue;
            }
            // Simbody's motion forces are multipliers (the sign of constraint forces): the applied driver force is
            // their negative, on the child; Adams reports it on I relative to J.
            motions[k] = -mb->motion_sign[(size_t)k] * b.getOneFromUPartition(s, 0, tau);
        }
    }
    catch (const std::exception& e)
    {
        snprintf(err, cap, "%s: the joint reactions at t = %.9g: %s", mb->scn->path, s.getTime(), e.what());
        return false;
    }
    return true;
}

extern "C" void app_mb_csv_row(const app_mb* mb, FILE* f)
{
    const app_scenario_mech* m = mb->scn->mech;
    std::vector<mc_wrench> jw((size_t)m->joint_count + 1);
    std::vector<double> mf((size_t)m->motion_count + 1);
    char err[600];
    bool ok = app_mb_get_reactions(mb, jw.data(), mf.data(), err, sizeof err);
    for (int k = 0; k < m->joint_count; ++k)
    {
        const mc_wrench& w = jw[(size_t)k];
        double v[6] = {w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z};
        for (double x : v)
        {
            fprintf(f, ok ? ",%.9g" : ",nan", x);
        }
    }
    for (int k = 0; k < m->motion_count; ++k)
    {
        fprintf(f, ok ? ",%.9g" : ",nan", mf[(size_t)k]);
    }
}

// SIMULATE/STATIC with JOINTs: not yet (the Simbody side of the static solve, sim_mb_static.cpp on the branch
// s39static, is unfinished). Free parts are solved by sim_static.c.
extern "C" bool app_mb_static(app_mb* mb, double imbalance, double error, int maxit, app_sim_static_report* rep,
                              char* err, size_t cap)
{
    (void)mb;
    (void)imbalance;
    (void)error;
    (void)maxit;
    (void)rep;
    snprintf(err, cap, "a model with JOINTs is not supported yet (free parts only)");
    return false;
}
