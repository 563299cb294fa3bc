// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact force laws with MSC Adams semantics (IMPACT, POISSON, Coulomb friction, friction torque) and the world:
// bodies, contact definitions between lists of bodies, and evaluation of forces at a state (poses, velocities).
// Based on: MSC Adams/Solver CONTACT statement and IMPACT / STEP functions (documented behaviour, parameter names).
#pragma once

#include "base.h"
#include "law.h"
#include "mesh.h"
#include "query.h"
#include "shape.h"
#include "vec_math.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    // ------------------------------------------------------------------------------------------------------------
    // Force laws (pure functions: no state, no allocation; usable without a world)
    // ------------------------------------------------------------------------------------------------------------

    /// Adams' cubic STEP: h0 for x <= x0, h1 for x >= x1, and h0 + (h1 - h0) D^2 (3 - 2 D) with D = (x - x0) / (x1 -
    /// x0) in between. Continuous with a continuous first derivative. Requires x0 < x1 (returns h1 for x >= x1 and
    /// h0 otherwise when x0 >= x1).
    MC_API double mc_step_fcn(double x, double x0, double h0, double x1, double h1);

    /// Adams IMPACT normal force: Fn = max(0, k g^e + STEP(g, 0, 0, dmax, c) gdot), and 0 when g <= 0.
    /// @param depth penetration depth g (length, >= 0 in contact)
    /// @param rate penetration rate gdot (length / s), positive when the bodies approach
    /// @param stiffness k (force / length^e, >= 0)
    /// @param exponent e (> 0)
    /// @param damping maximum damping coefficient c (force s / length, >= 0), reached at depth dmax
    /// @param dmax depth of full damping (length, > 0)
    /// @return the normal force magnitude (>= 0)
    MC_API double mc_impact_force(double depth, double rate, double stiffness, double exponent, double damping,
                                  double dmax);

    /// POISSON (restitution) normal force, meshcontact's formula:
    ///
    ///     Fn = max(0, p g STEP(gdot, -vt, eps^2, vt, 1)),   and 0 when g <= 0
    ///
    /// i.e. a linear penalty spring p g while the bodies approach (gdot >= vt) and a spring of stiffness eps^2 p
    /// while they separate (gdot <= -vt), blended by a cubic STEP over |gdot| < vt (vt = normal transition
    /// velocity), so the force is continuous in the velocity. Why it reproduces the coefficient of restitution: for
    /// any mass m and approach speed v0 >> vt, loading stores (1/2) p gmax^2 = (1/2) m v0^2, unloading gives back
    /// (1/2) eps^2 p gmax^2 = (1/2) m v1^2, so v1 / v0 = eps exactly, independent of m and p (the error is of order
    /// vt / v0, from the blend around the turning point). No dependence on the mass is the reason for choosing a
    /// hysteretic spring over a spring-dashpot (whose damping would have to be tuned to the mass).
    /// @param depth g (length), @param rate gdot (length / s, positive approaching)
    /// @param penalty p (force / length, > 0)
    /// @param restitution eps (0 <= eps <= 1)
    /// @param transition_velocity vt (length / s, > 0)
    MC_API double mc_poisson_force(double depth, double rate, double penalty, double restitution,
                                   double transition_velocity);

    /// Adams' Coulomb friction coefficient as a function of the slip speed v >= 0:
    /// mu(v) = STEP(v, -vs, -1, vs, 1) * STEP(v, vs, mu_s, vd, mu_d): a smooth ramp from 0 (at v = 0) to mu_s (at
    /// v = vs), a STEP from mu_s down to mu_d between vs and vd, and mu_d above vd. Odd in v (negative v gives -mu).
    MC_API double mc_friction_coefficient(double slip_speed, double mu_static, double mu_dynamic,
                                          double stiction_velocity, double friction_velocity);

    /// Normal force law of a contact.
    typedef enum mc_normal_law
    {
        MC_NORMAL_IMPACT = 0,  ///< Adams IMPACT: stiffness, exponent, damping, dmax (see mc_impact_force)
        MC_NORMAL_POISSON = 1, ///< Adams POISSON: penalty, restitution, normal transition velocity (mc_poisson_force)
        MC_NORMAL_USER = 2,    ///< the user callback normal_fcn (Adams CNFSUB) gives Fn
        /// RecurDyn's standard contact force (mc_recurdyn_force): stiffness K = stiffness, m_s = exponent, damping
        /// C = damping, m_d = damping_exponent, m_i = indentation_exponent, boundary penetration = dmax, rebound
        /// damping factor R_df = rebound_damping_factor, maximum penetration = max_penetration; stiffness_curve and
        /// damping_curve (RecurDyn's splines) replace K g^m_s and C sign(gdot) |gdot|^m_d when given.
        MC_NORMAL_RECURDYN = 3,
        /// DYMORE's contact model (mc_dymore_force): elastic force F_el = k g^e (Hertz: e = 3/2) or stiffness_curve(g)
        /// (DYMORE's nonlinear spring), times (1 + mu gdot) with mu = dissipation (damping proportional to the
        /// elastic force).
        MC_NORMAL_DYMORE = 4,
    } mc_normal_law;

    /// What a contact's friction_curve gives against the slip speed (RecurDyn's friction spline).
    typedef enum mc_friction_curve_kind
    {
        MC_FRICTION_CURVE_COEFFICIENT = 0, ///< the friction coefficient mu(v): friction force mu(|v_s|) Fn
        MC_FRICTION_CURVE_FORCE = 1,       ///< the friction force magnitude F(v) itself (independent of Fn)
    } mc_friction_curve_kind;

    /// Adams COULOMB_FRICTION.
    typedef enum mc_friction_mode
    {
        MC_FRICTION_OFF = 0, ///< no friction force and no friction torque
        MC_FRICTION_ON = 1,  ///< friction in every evaluation
        /// Friction only while the world is in a dynamic analysis (mc_world_set_analysis(MC_ANALYSIS_DYNAMIC), the
        /// default); off when the host declares a static-equilibrium or quasi-static analysis (MC_ANALYSIS_STATIC).
        /// This is what Adams' DYNAMICS_ONLY means: friction is left out of static equilibrium solutions.
        MC_FRICTION_DYNAMICS_ONLY = 2,
    } mc_friction_mode;

    /// Which analysis the host is running; only affects MC_FRICTION_DYNAMICS_ONLY contacts.
    typedef enum mc_analysis
    {
        MC_ANALYSIS_DYNAMIC = 0, ///< transient dynamics (default)
        MC_ANALYSIS_STATIC = 1,  ///< static equilibrium or quasi-static: DYNAMICS_ONLY friction is off
    } mc_analysis;

    /// Kinematics of one contact region at the evaluated state, as seen by the force laws and the user callbacks.
    /// World frame. "Relative" always means body J relative to body I.
    typedef struct mc_contact_kinematics
    {
        double depth;          ///< penetration depth g (length), by the world's depth method
        double rate;           ///< penetration rate gdot = -(v_rel . n) (length / s), positive when approaching
        double area;           ///< contact area A (length^2)
        double volume;         ///< intersection volume V (length^3)
        double radius;         ///< equivalent radius R = sqrt(A / pi) (length)
        mc_vec3 point;         ///< contact point (the region's centroid), world frame
        mc_vec3 normal;        ///< unit normal from I into J (direction of the normal force on J)
        mc_vec3 slip_velocity; ///< tangential part of v_rel at the point: v_rel - (v_rel . n) n (length / s)
        double spin_rate;      ///< relative angular velocity along the normal, (w_J - w_I) . n (rad / s)
    } mc_contact_kinematics;

    struct mc_force_model;

    /// User normal force law (Adams CNFSUB). Called once per valid region (A > 2 g^2), on the thread that called
    /// mc_world_evaluate, in a fixed order; it must not call into the world.
    /// @param kin the region's kinematics: depth, rate, area, volume, radius, point, normal, slip velocity, spin
    /// @param model the contact's force model (its parameters, e.g. stiffness, may be used freely by the callback)
    /// @param user_data the model's user_data pointer
    /// @return Fn, the normal force magnitude on J along +normal (force units). Negative values are clamped to 0.
    typedef double mc_normal_force_fcn(const mc_contact_kinematics* kin, const struct mc_force_model* model,
                                       void* user_data);

    /// User friction law (Adams CFFSUB). Called once per valid region when friction is active (mode ON, or
    /// DYNAMICS_ONLY in a dynamic analysis), after the normal force, instead of the Coulomb law.
    /// @param kin the region's kinematics (see mc_contact_kinematics)
    /// @param normal_force Fn from the normal law (>= 0)
    /// @param model the contact's force model, @param user_data the model's user_data pointer
    /// @param friction_force out: friction force on J, world frame (force units); the world projects it onto the
    ///        tangent plane (any normal component is removed). Preset to zero.
    /// @param friction_torque out: friction torque on J about the contact point, world frame (force * length);
    ///        preset to zero. The opposite force and torque act on I.
    typedef void mc_friction_force_fcn(const mc_contact_kinematics* kin, double normal_force,
                                       const struct mc_force_model* model, void* user_data, mc_vec3* friction_force,
                                       mc_vec3* friction_torque);

    /// Parameters of a contact's force laws, with Adams' names. Initialize with mc_default_force_model() and check
    /// with mc_force_model_check() (mc_world_create_contact checks too).
    typedef struct mc_force_model
    {
        mc_normal_law normal_law;            ///< IMPACT (default), POISSON or USER
        double stiffness;                    ///< IMPACT STIFFNESS k (force / length^exponent), >= 0
        double exponent;                     ///< IMPACT EXPONENT e, > 0 (Adams: e > 1 stiffening, 0 < e < 1 softening)
        double damping;                      ///< IMPACT DAMPING c, maximum damping coefficient (force s / length), >= 0
        double dmax;                         ///< IMPACT DMAX, depth at which full damping applies (length), > 0
        double penalty;                      ///< POISSON PENALTY p (force / length), > 0
        double restitution;                  ///< POISSON RESTITUTION_COEFFICIENT eps, 0 <= eps <= 1
        double normal_transition_velocity;   ///< POISSON NORMAL_TRANSITION_VELOCITY vt (length / s), > 0
        mc_friction_mode friction;           ///< COULOMB_FRICTION: OFF (default), ON, DYNAMICS_ONLY
        double mu_static;                    ///< MU_STATIC, >= 0
        double mu_dynamic;                   ///< MU_DYNAMIC, 0 <= mu_dynamic <= mu_static
        double stiction_velocity;            ///< STICTION_TRANSITION_VELOCITY vs (length / s), > 0
        double friction_velocity;            ///< FRICTION_TRANSITION_VELOCITY vd (length / s), > vs
        bool stiction;                       ///< STICTION = ON: see mc_stiction_force (default off)
        double max_stiction_deformation;     ///< MAX_STICTION_DEFORMATION Dmax (length), finite, > 0 (stiction on)
        mc_normal_force_fcn* normal_fcn;     ///< required when normal_law is MC_NORMAL_USER, ignored otherwise
        mc_friction_force_fcn* friction_fcn; ///< optional: replaces the Coulomb law when friction is active
        void* user_data;                     ///< passed to the callbacks; never dereferenced by the library
        // RecurDyn and DYMORE laws, curves (issue 33): see mc_recurdyn_force, mc_dymore_force and the table of
        // vendor parameters in include/meshcontact/README.md.
        double damping_exponent;       ///< RecurDyn m_d, exponent of the penetration velocity in f_nd (> 0, default 1)
        double indentation_exponent;   ///< RecurDyn m_i, exponent of the penetration in f_nd (>= 0, default 0)
        double rebound_damping_factor; ///< RecurDyn R_df, 0 <= R_df <= 1 (default 0): f_n >= R_df f_ns
        /// RecurDyn maximum penetration (length, > 0; default +infinity: none): a region deeper than it gets no
        /// force (RECURDYN and DYMORE laws)
        double max_penetration;
        double dissipation; ///< DYMORE mu, dissipation coefficient (s / length, >= 0): F = F_el (1 + mu gdot)
        /// Elastic force against penetration (force; RecurDyn stiffness spline, DYMORE nonlinear spring), or NULL
        /// (then the power law). Not copied: the curve must outlive the contact (like a body's mesh).
        const mc_curve* stiffness_curve;
        /// RecurDyn damping spline: damping force against penetration velocity (force), or NULL (C sign |gdot|^m_d).
        const mc_curve* damping_curve;
        /// Friction against the slip speed (RecurDyn friction spline), or NULL (Adams' Coulomb STEP law). Used when
        /// friction is active; also gives the friction torque's coefficient (or force) at |w_n| R / 2.
        const mc_curve* friction_curve;
        mc_friction_curve_kind friction_curve_kind; ///< whether friction_curve is a coefficient or a force
        int internal_value;                         ///< set by mc_default_force_model()
    } mc_force_model;

    /// @return IMPACT with k = 1e5, e = 1.5, c = 0, dmax = 1e-4; POISSON p = 1e5, eps = 1, vt = 1e-3; friction OFF
    /// with mu_s = 0.3, mu_d = 0.1, vs = 0.1, vd = 1; stiction OFF with Dmax = 1e-4 (SI-flavoured starting values,
    /// not material data).
    MC_API mc_force_model mc_default_force_model(void);

    /// Check a force model against Adams' ranges. Only the parameters of the selected laws are checked (e.g.
    /// POISSON parameters are ignored with IMPACT; friction parameters are ignored with friction OFF or a user
    /// friction_fcn).
    /// @param err may be NULL; on failure its message names the parameter, its value and the allowed range
    /// @return MC_OK or MC_ERR_INVALID_ARGUMENT
    MC_API mc_status mc_force_model_check(const mc_force_model* model, mc_error* err);

    /// RecurDyn's standard contact force (RecurDyn/Solver, contact force; the names are RecurDyn's):
    ///
    ///     f_ns = K g^m_s                          (or stiffness_curve(g), force against penetration)
    ///     f_nd = C (gdot / |gdot|) |gdot|^m_d g^m_i STEP(g, 0, 0, bp, 1)
    ///                                             (C sign(gdot) |gdot|^m_d replaced by damping_curve(gdot), force
    ///                                              against penetration velocity, when given)
    ///     f_n  = max(f_ns + f_nd, R_df f_ns)      for 0 < g <= max_penetration, else 0
    ///
    /// g: penetration, gdot: its rate (positive approaching), bp: the boundary penetration (dmax; the damping is
    /// ramped in by Adams' cubic STEP up to it), R_df in [0, 1]: the rebound damping factor (while the parts
    /// separate, the damping can lower the force to R_df f_ns and no further; R_df = 0 is the plain no-pull clamp).
    /// With m_d = 1, m_i = 0, R_df = 0 it is Adams' IMPACT (mc_impact_force) with dmax = bp.
    /// @param model stiffness, exponent, damping, damping_exponent, indentation_exponent, dmax,
    ///        rebound_damping_factor, max_penetration, stiffness_curve, damping_curve are used
    /// @param depth g (length), @param rate gdot (length / s)
    /// @param dfdg, dfdrate out (may be NULL): the partial derivatives dFn/dg, dFn/dgdot (0 where a clamp holds or
    ///        beyond max_penetration; gdot = 0 with m_d < 1 has an unbounded slope and reports 0)
    /// @return Fn >= 0 (force units)
    MC_API double mc_recurdyn_force(const mc_force_model* model, double depth, double rate, double* dfdg,
                                    double* dfdrate);

    /// DYMORE's contact force (DYMORE user's manual, contact models; names are DYMORE's):
    ///
    ///     F_el   = k a^e                 (Hertz: e = 3/2), or stiffness_curve(a) (nonlinear spring)
    ///     F_diss = F_el mu da/dt         (dissipation proportional to the elastic force)
    ///     F      = max(0, F_el + F_diss) = max(0, F_el (1 + mu da/dt))
    ///
    /// a: penetration (depth), da/dt: its rate (positive approaching), mu = model->dissipation (s / length). This is
    /// the Hunt-Crossley form: a ball of any mass and stiffness hitting at speed v0 leaves at v1 = eps v0 with
    /// mu v0 - ln(1 + mu v0) = -mu v1 - ln(1 - mu v1) (exact for F_el = k a^e, any e; eps ~ 1 - (2/3) mu v0 for small
    /// mu v0), and the force never pulls. max_penetration applies as in RecurDyn's law.
    /// @param model stiffness, exponent, dissipation, stiffness_curve, max_penetration are used
    /// @param dfdg, dfdrate out (may be NULL): partial derivatives (0 where the clamp holds)
    /// @return F >= 0
    MC_API double mc_dymore_force(const mc_force_model* model, double depth, double rate, double* dfdg,
                                  double* dfdrate);

    /// Forces of one region, on body J (the opposite acts on I).
    typedef struct mc_contact_force
    {
        double normal_force;         ///< Fn >= 0 (force units), along +normal on J
        mc_vec3 friction_force;      ///< friction force on J, world frame, tangent to the contact plane
        mc_vec3 friction_torque;     ///< friction torque on J about the contact point, world frame (along the normal)
        double friction_coefficient; ///< mu(slip speed) used for the friction force (0 with friction off / user law)
        double slip_speed;           ///< |slip_velocity| (length / s)
        bool rejected; ///< the region failed Adams' validity rule A > 2 g^2, had no valid normal, or a volume <= 0
                       ///< (only possible with a self-intersecting input mesh): all forces zero
    } mc_contact_force;

    /// STICTION (meshcontact's model; Adams names its parameters but does not publish its equations). A region of a
    /// contact with `stiction` on carries a tangential spring anchored where the contact started to stick: two
    /// anchor points, one fixed in each body, that coincide when the spring is relaxed. The creep `d` is the part of
    /// (anchor on J - anchor on I), at the current poses, tangent to the region (normal component removed). With Fn
    /// the normal force, v_s the slip velocity, v = |v_s|, Dmax = max_stiction_deformation:
    ///
    ///     mu_lim(v) = STEP(v, vs, mu_s, vd, mu_d)              mu_s while v <= vs, mu_d once v >= vd
    ///     d_kept    = d  capped at the length Dmax mu_lim / mu_s  (<= Dmax: the creep never exceeds Dmax)
    ///     u         = d_kept / Dmax + v_s / vs                  spring (stiffness mu_s Fn / Dmax) and damper
    ///     Ft        = -mu_s Fn u               when mu_s |u| <= mu_lim    (sticking: the spring holds the part)
    ///     Ft        = -mu_lim Fn u / |u|       otherwise                  (slipping, with mu_d once v >= vd)
    ///
    /// So a part at rest on a slope of angle a < atan(mu_s) is held with a creep Dmax tan(a) / mu_s, and a faster
    /// or steeper one slides with mu_d (in steady sliding d_kept and v_s are parallel: Ft = -mu_d Fn v_s / v). The
    /// damper (coefficient mu_s Fn / vs, the slope at which the plain Coulomb law would reach mu_s) damps the spring
    /// critically when vs ~ sqrt(mu_s |g| Dmax) / 2. The force is continuous in the state. The friction torque about
    /// the normal keeps the velocity law of mc_contact_force_evaluate. A contact with `stiction` on needs friction ON
    /// or DYNAMICS_ONLY, the built-in Coulomb law (no friction_fcn), MU_STATIC > 0 and a finite Dmax > 0
    /// (mc_force_model_check). Any normal law works, IMPACT as well as POISSON (Adams pairs stiction with POISSON):
    /// the law only uses Fn, and its spring, mu_s Fn / Dmax, follows the normal force whatever law gives it.
    /// Pure function.
    /// @param model a checked force model (mu_s > 0, Dmax > 0, vs, vd, mu_d are used)
    /// @param normal_force Fn >= 0
    /// @param creep d, tangent to the region (length)
    /// @param slip_velocity v_s (length / s)
    /// @param friction_force out: Ft on J (force units); may be NULL
    /// @param creep_kept out: d_kept, what the anchors keep when the state is committed; may be NULL
    /// @return |Ft| / Fn, the friction coefficient in use (0 when Fn = 0, and for a NULL model: outputs zero)
    MC_API double mc_stiction_force(const mc_force_model* model, double normal_force, mc_vec3 creep,
                                    mc_vec3 slip_velocity, mc_vec3* friction_force, mc_vec3* creep_kept);

    /// Evaluate the force laws for one region (what mc_world_evaluate does per region). Pure function.
    /// Validity: forces are computed only when A > 2 g^2 (Adams); otherwise everything is zero and rejected is set.
    /// Friction force on J: -mu(|v_s|) Fn v_s / |v_s| (zero when v_s = 0). Friction torque on J about the normal:
    /// magnitude mu(|w_n| R / 2) Fn (2/3) R, opposing the relative spin w_n.
    /// @param model a checked force model, @param kin the region kinematics
    /// @param analysis MC_ANALYSIS_DYNAMIC or MC_ANALYSIS_STATIC (for DYNAMICS_ONLY friction)
    /// @param out receives the forces
    /// @return MC_OK, or MC_ERR_OUT_OF_RANGE when a force, torque or speed is not finite (the parameters make the
    ///         law overflow, or a user callback returned NaN or infinity): then *out is all zero with rejected set.
    ///         NaN and infinity never leave the library as results. MC_ERR_INVALID_ARGUMENT for a NULL argument (*out,
    ///         when given, zero with rejected set).
    MC_API mc_status mc_contact_force_evaluate(const mc_force_model* model, const mc_contact_kinematics* kin,
                                               mc_analysis analysis, mc_contact_force* out);

    // ------------------------------------------------------------------------------------------------------------
    // World: bodies, contact definitions, evaluation at a state
    // ------------------------------------------------------------------------------------------------------------

    /// A world of bodies and contact definitions. Used by one host thread at a time; separate worlds may be
    /// evaluated concurrently (meshes may be shared between them). mc_world_evaluate runs the contact queries on
    /// OpenMP workers (num_threads clause only: the host's OpenMP settings are never changed), so an allocator hook
    /// must be thread-safe; the force laws and user callbacks run on the calling thread, after the queries.
    typedef struct mc_world mc_world;

    /// Body handle: index plus generation; all zero is the null id. Stale ids (destroyed bodies) are detected.
    typedef struct mc_body_id
    {
        int32_t index1;      ///< slot index + 1 (0: null)
        uint32_t generation; ///< incremented when the slot is reused
    } mc_body_id;

    /// Contact definition handle: index plus generation; all zero is the null id.
    typedef struct mc_contact_id
    {
        int32_t index1;      ///< slot index + 1 (0: null)
        uint32_t generation; ///< incremented when the slot is reused
    } mc_contact_id;

    /// The null body id.
    static const mc_body_id mc_null_body_id = {0, 0};
    /// The null contact id.
    static const mc_contact_id mc_null_contact_id = {0, 0};

    /// World options. Initialize with mc_default_world_def().
    typedef struct mc_world_def
    {
        int worker_count; ///< OpenMP threads used by mc_world_evaluate (>= 0); 0: the OpenMP default. Results do not
                          ///< depend on it (bitwise).
        mc_depth_method depth_method; ///< how region depths are measured (default MC_DEPTH_ADAMS)
        uint32_t body_capacity;       ///< initial body slots (a hint; grows on demand)
        uint32_t contact_capacity;    ///< initial contact definition slots (a hint; grows on demand)
        uint32_t region_capacity;     ///< initial region record capacity (a hint; grows on demand)
        /// Temporal coherence per pair (default true): each pair keeps the traversal front of its last query (the
        /// node pairs where the descent stopped, with a lower bound of each separated pair's gap) and the next query
        /// skips the separated ones that J cannot have crossed since (gap above a bound of its motion in I's frame),
        /// re-descending the others exactly; the front is recorded with a margin of the pair's recent steps, so that
        /// bodies that keep moving a little stay within it for many queries. A pair's first query runs plain (the
        /// front is recorded from its second), and a pair whose recent steps exceed a fortieth of its meshes' mean
        /// leaf size runs the plain query until they are small again (a front costs more than it saves under large
        /// motions). Results are bitwise the same with or without it
        /// (see mc_world_evaluate); false runs every moved pair's query from the roots (benchmarks, checks).
        bool coherence;
        int internal_value; ///< set by mc_default_world_def()
    } mc_world_def;

    /// @return defaults: OpenMP default threads, Adams depth, small capacities.
    MC_API mc_world_def mc_default_world_def(void);

    /// Create a world.
    /// @param def options (not retained), @param out receives the world on success only
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL out, or a def that mc_world_def_check refuses: it says why) or
    ///         MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_world_create(const mc_world_def* def, mc_world** out);

    /// Check a world def as mc_world_create does (there is no world yet to hold the error).
    /// @param err may be NULL; on failure names the field, its value and what is allowed
    /// @return MC_OK or MC_ERR_INVALID_ARGUMENT (NULL def, not from mc_default_world_def(), negative worker_count,
    ///         unknown depth_method)
    MC_API mc_status mc_world_def_check(const mc_world_def* def, mc_error* err);

    /// The world's last error: the world calls on bodies and contacts (creation, single and bulk setters and getters,
    /// mc_world_create_contact, mc_contact_set_model) and mc_world_get_step_hint, when they fail (a status other than
    /// MC_OK, a null id, or a getter given an invalid id), record here what failed and why, with mc_error.index the
    /// entry of a list argument (the k of ids[k] in mc_world_set_poses, of i_bodies[k] or excluded_pairs[k] in
    /// mc_world_create_contact) or -1, and sends the message to the log hook (see "Errors" in base.h).
    /// mc_world_evaluate, mc_world_commit, mc_world_set_state and mc_world_get_jacobian report through their status,
    /// mc_step_info and the log hook (set_state: its mc_error). Successful calls leave it as it is (errno-like): read
    /// it right after the failure, or clear it (mc_world_clear_error) before a call whose result cannot show failure
    /// (mc_body_get_pose of a stale id returns the identity). Failing getters of a const world write it too (a host
    /// that reads one world from several threads at once must not give them invalid ids).
    /// @return the record (valid while the world lives; status MC_OK, index -1 and an empty message when nothing
    ///         failed since creation or the last clear); for NULL, a static record that says so
    MC_API const mc_error* mc_world_get_last_error(const mc_world* world);

    /// Reset the world's last error to MC_OK (index, line and offset -1, empty message). NULL is ignored.
    MC_API void mc_world_clear_error(mc_world* world);

    /// Destroy a world with its bodies and contacts (meshes are not destroyed: the caller owns them). NULL ignored.
    MC_API void mc_world_destroy(mc_world* world);

    /// Body creation options. Initialize with mc_default_body_def(). A body is one rigid geometry (one mesh); a host
    /// part with several geometries uses several bodies and sums their wrenches.
    typedef struct mc_body_def
    {
        const mc_mesh* mesh; ///< the body's mesh (unless `shape` is analytic); must outlive the body (not copied:
                             ///< meshes are immutable and shareable)
        /// An analytic geometry instead of the mesh (mesh then NULL): mc_shape_sphere, mc_shape_plane or
        /// mc_shape_cylinder (its `flip`: a socket or a hole). The default (type MC_SHAPE_MESH) means `mesh`. Pairs
        /// with an analytic body are computed by mc_query_shape_regions (shape.h says which pairs it supports; an
        /// unsupported one fails at evaluation with MC_STEP_PAIR_FAILED). Two unbounded solids (a plane, a socket
        /// or a hole against a plane, a socket, a hole or a flipped mesh) cannot be paired: mc_world_create_contact
        /// refuses them.
        mc_shape shape;
        mc_pose pose;       ///< body to world (quaternion normalised by the world)
        mc_twist velocity;  ///< world-frame velocity of the reference point and angular velocity
        bool flip;          ///< Adams I/JFLIP_GEOMETRY: the solid is the outside of the mesh (the world makes a
                            ///< flipped copy of the mesh at creation, which follows the mesh's deformations,
                            ///< mc_mesh_set_positions, at each evaluation; the mesh counts the body as a user).
                            ///< Two flipped bodies never produce forces.
        void* user_data;    ///< returned by mc_body_get_user_data; never dereferenced
        int internal_value; ///< set by mc_default_body_def()
    } mc_body_def;

    /// @return identity pose, zero velocity, no flip, no mesh (must be set).
    MC_API mc_body_def mc_default_body_def(void);

    /// Create a body. Prepares the mesh's region blocks (mc_mesh_prepare_regions) so that evaluations do not build
    /// them. @return its id, or the null id on failure, with the reason in the world's last error
    /// (mc_world_get_last_error; status MC_ERR_INVALID_ARGUMENT or MC_ERR_OUT_OF_MEMORY): NULL mesh without an
    /// analytic shape, a mesh and an analytic shape both, a radius or length not finite and > 0, `flip` on an
    /// analytic shape (use the shape's own flip), a pose not finite, out of range or with a zero quaternion, a
    /// non-finite velocity, out of memory.
    MC_API mc_body_id mc_world_create_body(mc_world* world, const mc_body_def* def);

    /// Destroy a body. Contact definitions that list it simply skip it from now on. A stale, null or unknown id
    /// destroys nothing and sets the world's last error (mc_world_get_last_error) to say so.
    MC_API void mc_world_destroy_body(mc_world* world, mc_body_id id);

    /// @return true when the id refers to a live body of this world.
    MC_API bool mc_body_is_valid(const mc_world* world, mc_body_id id);

    /// Set one body's pose (body to world; the quaternion is normalised). Non-finite poses and invalid ids are
    /// rejected (MC_ERR_INVALID_ARGUMENT, state unchanged, the reason in mc_world_get_last_error).
    MC_API mc_status mc_body_set_pose(mc_world* world, mc_body_id id, const mc_pose* pose);
    /// Set one body's velocity (world-frame linear velocity of the reference point, world-frame angular velocity).
    /// Invalid ids and non-finite twists: as mc_body_set_pose.
    MC_API mc_status mc_body_set_velocity(mc_world* world, mc_body_id id, const mc_twist* velocity);
    /// @return the body's pose (identity for an invalid id, recorded in mc_world_get_last_error as are the other
    /// getters' invalid ids below).
    MC_API mc_pose mc_body_get_pose(const mc_world* world, mc_body_id id);
    /// @return the body's velocity (zero for an invalid id).
    MC_API mc_twist mc_body_get_velocity(const mc_world* world, mc_body_id id);
    /// @return the contact wrench on the body from the last mc_world_evaluate (force and torque about the body's
    /// reference point, world frame; zero for an invalid id or before the first evaluation).
    MC_API mc_wrench mc_body_get_wrench(const mc_world* world, mc_body_id id);
    /// @return the user_data given at creation (NULL for an invalid id).
    MC_API void* mc_body_get_user_data(const mc_world* world, mc_body_id id);
    /// @return the mesh the body's contact queries use: the mesh given at creation, or, for a body created with flip,
    /// the world's flipped copy of it (owned by the world, valid while the body lives). NULL for an invalid id and for
    /// a body of an analytic shape (mc_body_def.shape). With it, mc_query_regions on two bodies' meshes at their poses
    /// gives bitwise the regions mc_world_evaluate records for the pair (same depth method).
    MC_API const mc_mesh* mc_body_get_mesh(const mc_world* world, mc_body_id id);

    /// Bulk pose setter: poses[k] for ids[k], k < count. All entries are checked first; on any invalid id (null,
    /// stale, never created) or unusable pose (not finite, translation beyond MC_COORDINATE_MAX, zero quaternion)
    /// nothing is changed and MC_ERR_INVALID_ARGUMENT is returned, the world's last error naming the first bad entry
    /// (mc_error.index = k) and the reason.
    MC_API mc_status mc_world_set_poses(mc_world* world, const mc_body_id* ids, const mc_pose* poses, uint32_t count);
    /// Bulk velocity setter, same rules as mc_world_set_poses.
    MC_API mc_status mc_world_set_velocities(mc_world* world, const mc_body_id* ids, const mc_twist* velocities,
                                             uint32_t count);
    /// Bulk wrench getter: out[k] = wrench of ids[k] from the last evaluation (zero before the first). All ids are
    /// checked first: an invalid one is an error (MC_ERR_INVALID_ARGUMENT, nothing written to out, the world's last
    /// error names the entry and the reason), not a zero wrench.
    /// @return MC_OK or MC_ERR_INVALID_ARGUMENT (also NULL world, or NULL ids or out with count > 0)
    MC_API mc_status mc_world_get_wrenches(const mc_world* world, const mc_body_id* ids, mc_wrench* out,
                                           uint32_t count);

    /// How a contact definition's lists make contact pairs.
    typedef enum mc_contact_mode
    {
        /// Adams IGEOM x JGEOM: the unordered pair {a, b} of two different bodies is a contact pair when a is in
        /// i_bodies and b in j_bodies, or the other way round. Each pair is evaluated once. When only one orientation
        /// is listed, the I body is the one from i_bodies; when both are (a and b each in both lists), the I body is
        /// the one with the lower slot (the lower mc_body_id.index1). Lists may overlap; a list of all bodies as both
        /// I and J is the same as MC_CONTACT_GROUP.
        MC_CONTACT_LISTS = 0,
        /// A group: every unordered pair of two different bodies of i_bodies, once, with the lower index1 as I.
        /// j_bodies must be empty (NULL, j_count 0); i_bodies needs at least two bodies.
        MC_CONTACT_GROUP = 1,
    } mc_contact_mode;

    /// An unordered pair of bodies (for excluded pairs).
    typedef struct mc_body_pair
    {
        mc_body_id a; ///< one body
        mc_body_id b; ///< the other body
    } mc_body_pair;

    /// Contact definition (Adams CONTACT with IGEOM / JGEOM lists, or a group of bodies that all touch each other):
    /// which pairs it makes is said by `mode` (see mc_contact_mode); a body is never paired with itself, and each
    /// unordered pair of bodies is evaluated at most once per definition. Initialize with mc_default_contact_def().
    /// The lists are copied; memory is proportional to the list lengths, not to the number of pairs (pair records
    /// exist only for pairs whose world bounding boxes overlap).
    typedef struct mc_contact_def
    {
        const mc_body_id* i_bodies; ///< the I geometries, or the group (normal and forces are reported from I into J)
        uint32_t i_count;           ///< entries in i_bodies (>= 1; >= 2 for a group); no body twice
        const mc_body_id* j_bodies; ///< the J geometries (NULL for a group)
        uint32_t j_count;           ///< entries in j_bodies (>= 1; 0 for a group); no body twice
        mc_contact_mode mode;       ///< MC_CONTACT_LISTS (default) or MC_CONTACT_GROUP
        /// Pairs this definition must not evaluate (for example bodies joined by a joint), or NULL. Each must name
        /// two different live bodies that the definition pairs; listing a pair twice is allowed (no effect).
        const mc_body_pair* excluded_pairs;
        uint32_t excluded_count; ///< entries in excluded_pairs
        mc_force_model model;    ///< force laws and parameters (checked at creation)
        /// how this contact's region depths are measured; MC_DEPTH_DEFAULT (the default): the world's
        /// (mc_world_def.depth_method). MC_DEPTH_SMOOTH suits tessellated balls (exact on balls and plates).
        mc_depth_method depth_method;
        void* user_data;    ///< returned by mc_contact_get_user_data; never dereferenced
        int internal_value; ///< set by mc_default_contact_def()
    } mc_contact_def;

    /// @return empty lists, MC_CONTACT_LISTS, no excluded pairs and mc_default_force_model().
    MC_API mc_contact_def mc_default_contact_def(void);

    /// Create a contact definition. Nothing is created on failure.
    /// @param out receives the id on success only
    /// @param err may be NULL; on failure says which parameter or body is wrong (mc_error.index: the entry of
    ///        i_bodies, j_bodies or excluded_pairs the message names, else -1); also recorded as the world's last error
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (bad parameter; empty list; a group of fewer than two bodies or with a
    ///         J list; a body listed twice in one list; lists that pair no two different bodies; an invalid or
    ///         destroyed body id in a list or an excluded pair; an excluded pair of one body or of two bodies the
    ///         definition does not pair) or MC_ERR_OUT_OF_MEMORY
    MC_API mc_status mc_world_create_contact(mc_world* world, const mc_contact_def* def, mc_contact_id* out,
                                             mc_error* err);
    /// Destroy a contact definition. A stale, null or unknown id destroys nothing and sets the world's last error.
    MC_API void mc_world_destroy_contact(mc_world* world, mc_contact_id id);
    /// @return true when the id refers to a live contact definition of this world.
    MC_API bool mc_contact_is_valid(const mc_world* world, mc_contact_id id);
    /// @return the user_data given at creation (NULL for an invalid id).
    MC_API void* mc_contact_get_user_data(const mc_world* world, mc_contact_id id);
    /// Replace a contact's force model (checked; the pairs and their warm memory are kept).
    MC_API mc_status mc_contact_set_model(mc_world* world, mc_contact_id id, const mc_force_model* model,
                                          mc_error* err);

    /// Declare the analysis the host is running (default MC_ANALYSIS_DYNAMIC); see MC_FRICTION_DYNAMICS_ONLY.
    MC_API void mc_world_set_analysis(mc_world* world, mc_analysis analysis);

    /// Evaluate all contacts at the current state (poses and velocities): broad phase (a bounding volume tree over
    /// enlarged world boxes of the bodies that belong to a contact, grown by a tenth of their bounding radius: the
    /// pairs of enlarged boxes are kept and filtered with the current boxes; bodies that leave their enlarged boxes
    /// get new ones and new pairs from the refitted tree, or the tree is rebuilt when they are more than a quarter
    /// of the bodies, and every evaluation without coherence), then the candidate pairs (overlapping boxes and
    /// bounding spheres at the current poses, paired by a definition, not excluded) sorted by (contact slot, I slot,
    /// J slot); intersection regions (in parallel over pairs, or, when fewer pairs than workers need a query,
    /// one pair after the other with the parallelism inside), force laws, then a serial reduction into per-body
    /// wrenches in that order. Cost grows with the bodies and the candidate pairs, not with the product of the list
    /// lengths. Temporal coherence, exact: a pair whose two bodies are at bitwise the poses of the pair's query in
    /// the previous evaluation keeps that query's regions (a query is a pure function of the meshes and poses); every
    /// other pair is queried again, through its traversal front when mc_world_def.coherence is on (the default). The
    /// front rule: the front is where the pair's last descent of the two trees stopped, node pairs split by a
    /// separating axis (each with a lower bound of its gap) and leaf pairs (each with its near list: the triangle
    /// pairs within a margin of each other by their bounding boxes, planes and edge axes, and a lower bound of the gap
    /// of all its other triangle pairs), at the relative pose of that descent. A query bounds how far any point of J
    /// can have moved in I's frame since then (||R1 - R0||_F sqrt(3) max|J coordinate| + |t1 - t0|, rounded up);
    /// below every gap it only tests the near lists with the exact triangle test, else every entry whose gap it
    /// exceeds is descended again exactly from its node pair (new leaf pairs get a margin of 4 times that motion).
    /// Every crossing triangle pair is found either way, the same function gives the same crossings and the pairs are
    /// sorted, so the regions are bitwise those of a query from the roots (only mc_step_info's box and triangle test
    /// counts differ). The force laws always run (the velocities may have changed). Likewise the
    /// broad phase is skipped when no pose is bitwise different and no body or contact was created or destroyed since
    /// the last one (its sorted candidate list is then still exact). Results are therefore bitwise those of a cold
    /// world, whatever the history.
    /// There is no time step and no integration: the result depends only on the current state (and, for contacts
    /// with stiction, on the committed anchors, which evaluations never change: see mc_world_commit), so an implicit
    /// host may call this many times per step. Same state -> bitwise the same results for any worker_count.
    /// No heap allocation once warm (after an evaluation with at least as many touching pairs and regions).
    /// A pair that fails (e.g. two flipped bodies) is skipped and flagged in mc_step_info.flags.
    /// @return MC_OK, MC_ERR_OUT_OF_MEMORY, or MC_ERR_OUT_OF_RANGE when a force law gave a non-finite force or a
    ///         body's wrench overflowed (flag MC_STEP_NON_FINITE; the log hook names the contact and the state). On
    ///         an error wrenches and records are zero / empty: NaN and infinity never leave the library.
    MC_API mc_status mc_world_evaluate(mc_world* world);

    /// Contact prediction: a lower bound of the time until the first contact onset among the separated body pairs, if
    /// every body kept its current twist (constant linear and angular velocity, world frame; no acceleration), so that
    /// an integrator stepping at most this far under those velocities cannot step over an impact. For each pair of live
    /// bodies that some contact definition pairs (not excluded) the bound is d / (s_i + s_j): d the minimum distance of
    /// the two solids (mc_query_distance for two meshes; exact for two balls and for a plane with a mesh, a ball or a
    /// cylinder; for other pairs with an analytic body, mc_query_shape_regions says whether they touch and the bounding
    /// spheres' gap, 0 with an unbounded body, bounds d from below), s the largest speed any point of the body's
    /// boundary can have at any time under its constant twist, s = |v| + |w| (|c - p| + r) (p the reference point, c
    /// and r the bounding sphere of the boundary; INFINITY for a turning plane or hole, so that their pairs give 0), so
    /// that d can shrink no faster than s_i + s_j. The hint is the minimum over the pairs. Pairs are found by a sweep
    /// over the bounding spheres sorted along x within a time horizon T: every pair whose spheres' gap is below T (s_i
    /// + s_j) is measured (its query stops at that distance), T growing by 4 from the median radius over the largest
    /// speed until it reaches the best bound found (or covers every pair); unbounded bodies are paired with every body.
    /// Cost: about the bodies near each other, not their square (1e5 boxes on a grid: 3.7 s of CPU,
    /// tests/test_host_api.c). The result is the same minimum as over all pairs. Pairs already in contact (surfaces
    /// crossing, one solid inside the other, or touching at distance 0) are left out: their contact is evaluated by
    /// mc_world_evaluate and they have no onset to miss (a pair that separates and meets again within the step is not
    /// bounded). Uses the current poses and velocities (mc_world_set_poses / mc_world_set_velocities), not the last
    /// evaluation. Deterministic (the same for any worker_count). Do not call during mc_world_evaluate.
    /// @param step_out receives the bound (seconds, >= 0, never NaN); INFINITY when no separated pair can close (no
    ///        pair, or nothing moves)
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL argument) or MC_ERR_OUT_OF_MEMORY (recorded in
    ///         mc_world_get_last_error)
    MC_API mc_status mc_world_get_step_hint(mc_world* world, double* step_out);

    /// One region of one contact pair with its forces, from the last evaluation. World frame.
    typedef struct mc_contact_region
    {
        mc_contact_id contact;       ///< the contact definition
        mc_body_id body_i;           ///< the I body
        mc_body_id body_j;           ///< the J body
        mc_region region;            ///< geometry: volume, centroid (= contact point), area, radius, normal, depth, ...
        double rate;                 ///< penetration rate gdot (length / s), positive approaching
        mc_vec3 slip_velocity;       ///< tangential relative velocity of J with respect to I at the point (length / s)
        double slip_speed;           ///< |slip_velocity|
        double spin_rate;            ///< (w_J - w_I) . n (rad / s)
        double normal_force;         ///< Fn >= 0 on J along +normal (0 when rejected)
        mc_vec3 friction_force;      ///< friction force on J (world frame; opposite on I)
        mc_vec3 friction_torque;     ///< friction torque on J about the contact point (opposite on I)
        double friction_coefficient; ///< mu used for the friction force
        bool rejected; ///< failed the validity rule A > 2 g^2 (or volume <= 0): zero force, reported anyway
        /// Adams depth far from the region's thickness: the contact measures MC_DEPTH_ADAMS, the region is not
        /// rejected, and its depth exceeds MC_OFF_REGION_DEPTH_RATIO times its 2V/A (twice its mean thickness). The
        /// region's centroid then lies off the region (a ring: a torus or a hollow knob lying on a plate), its
        /// depth and force follow its shape, not the penetration, and can throw the part (measured: a torus on a
        /// floor, depth 13.25 mm where 2V/A is 0.13 mm, 1527 N on 35 g). What to do: give the contact
        /// MC_DEPTH_EXTENT or MC_DEPTH_VOLUME_AREA (mc_contact_def.depth_method), which measure across the region.
        bool depth_off_region;
        bool sticking; ///< STICTION on and the region had a normal force: the creep below is in use
        mc_vec3 creep; ///< stiction creep d_kept (world frame, tangent, length <= MAX_STICTION_DEFORMATION); zero
                       ///< without stiction (see mc_stiction_force)
    } mc_contact_region;

    /// Region records of the last evaluation, in a fixed order: by contact slot (mc_contact_id.index1), then I body
    /// slot, then J body slot (mc_body_id.index1), then decreasing volume. The order does not depend on the order of
    /// the lists, on earlier evaluations or on worker_count.
    /// @param out caller buffer of `capacity` records (may be NULL when capacity is 0)
    /// @return the number of records available (may exceed capacity: only `capacity` are written)
    MC_API uint32_t mc_world_get_regions(const mc_world* world, mc_contact_region* out, uint32_t capacity);

    // ------------------------------------------------------------------------------------------------------------
    // State that outlives an evaluation: the stiction anchors (commit, save, restore)
    // ------------------------------------------------------------------------------------------------------------
    //
    // The only state a world keeps between evaluations that changes results is the stiction anchors of the regions
    // of contacts with `stiction` on (the temporal-coherence caches are exact and never change a bit of a result).
    // Contract, made for integrators that evaluate many trial states per step (implicit multistep methods,
    // Runge-Kutta stages, Newton iterations, rejected steps):
    //   - mc_world_evaluate reads the committed anchors and never changes them: evaluating any number of trial
    //     states, in any order, gives each the same result as evaluating it alone right after the commit;
    //   - mc_world_commit advances the anchors to the state of the last evaluation; a host calls it once per
    //     accepted step, after evaluating the accepted state (poses and velocities at the end of the step);
    //   - mc_world_get_state / mc_world_set_state copy the committed anchors out and back (a host that rolls back
    //     restores them with its own poses and velocities; FMI-style get/set FMU state).
    // Anchor matching: at an evaluation, each region of a stiction pair takes, in the pair's region order, the
    // nearest unused committed anchor of the same pair (contact, I body, J body) whose midpoint lies within the
    // region's equivalent radius plus Dmax of the region's contact point; a region without one starts with zero
    // creep. At a commit every region with a normal force stores its anchors re-centred on its contact point, its
    // creep capped as mc_stiction_force says (so the committed creep never exceeds MAX_STICTION_DEFORMATION); regions
    // that are gone, rejected or without normal force drop theirs.

    /// Commit the stiction state of the last successful mc_world_evaluate (see the contract above). Committing
    /// twice in a row commits the same state. Without any stiction contact it only checks its argument.
    /// @return MC_OK, or MC_ERR_INVALID_ARGUMENT when there is nothing to commit: no successful evaluation since the
    ///         last change of a pose, velocity, body, contact, force model, analysis or mc_world_set_state (evaluate
    ///         the accepted state first), or MC_ERR_OUT_OF_MEMORY (the committed state is then unchanged)
    MC_API mc_status mc_world_commit(mc_world* world);

    /// Copy the committed state into a caller buffer: a header (format tag, version, this world's identity,
    /// entry count, checksum) and the anchors (contact and body slots with generations, anchor points in the body
    /// frames). Bytes, in this process's layout: not a file format.
    /// @param buffer caller buffer of `capacity` bytes, may be NULL when capacity is 0
    /// @return the size of the state in bytes; the state is written only when capacity is at least that (a buffer
    ///         too small is left untouched); 0 for a NULL world
    MC_API size_t mc_world_get_state(const mc_world* world, void* buffer, size_t capacity);

    /// Restore a state saved by mc_world_get_state of this same world: it becomes the committed state (the next
    /// evaluation reads it). Anchors naming a body or contact destroyed since are ignored.
    /// @param size bytes in buffer (exactly what mc_world_get_state returned)
    /// @param err may be NULL; on failure says what is wrong
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL, wrong size, not a state buffer, a buffer from another world,
    ///         a damaged buffer: checksum or contents; nothing changed) or MC_ERR_OUT_OF_MEMORY (nothing changed)
    MC_API mc_status mc_world_set_state(mc_world* world, const void* buffer, size_t size, mc_error* err);

    /// Soft conditions of the last evaluation (bits of mc_step_info.flags).
    enum
    {
        MC_STEP_UNBOUNDED_PAIR = 1u << 0,   ///< a pair of two flipped bodies was skipped (their overlap is unbounded)
        MC_STEP_PAIR_FAILED = 1u << 1,      ///< a pair's query failed for another reason and was skipped
        MC_STEP_REJECTED_REGIONS = 1u << 2, ///< some regions failed A > 2 g^2 and produced no force
        MC_STEP_NON_FINITE = 1u << 3,       ///< a force or wrench was not finite: the evaluation failed
        /// some regions' Adams depths were far from their thickness (mc_contact_region.depth_off_region): see there
        MC_STEP_OFF_REGION_DEPTH = 1u << 4,
    };

/// The Adams depth of a region that exceeds this many times its 2V/A (twice its mean thickness) was not measured
/// across the region (mc_contact_region.depth_off_region). For the shapes the Adams depth suits the ratio is at most
/// about 1: 1 for a spherical cap, at most 1 for a wedge, 1/2 for a flat slab. `meshcontact simulate` warns by the
/// same rule.
#define MC_OFF_REGION_DEPTH_RATIO 10.0

    /// Counters and timings of the last evaluation.
    typedef struct mc_step_info
    {
        uint32_t flags;            ///< MC_STEP_* bits
        uint32_t defined_pairs;    ///< pairs of live bodies in all contact definitions, less excluded pairs
                                   ///< (counted, not enumerated; UINT32_MAX when larger)
        uint32_t candidate_pairs;  ///< defined, not excluded pairs whose world boxes and bounding spheres overlap
                                   ///< (each queried, or reused: see reused_pairs)
        uint32_t touching_pairs;   ///< pairs with at least one region
        uint32_t regions;          ///< region records
        uint32_t rejected_regions; ///< regions that failed the validity rule
        /// regions flagged depth_off_region (mc_contact_region; flag MC_STEP_OFF_REGION_DEPTH)
        uint32_t off_region_depths;
        uint32_t reused_pairs;     ///< candidate pairs whose two poses were bitwise those of their previous query in
                                   ///< the previous evaluation: their regions were reused, no query ran
        uint64_t box_tests;        ///< OBB tests, summed over pairs (with coherence: depend on the fronts' history)
        uint64_t triangle_tests;   ///< triangle-triangle tests, summed over pairs (likewise)
        uint64_t triangle_pairs;   ///< intersecting triangle pairs, summed over pairs
        int threads;               ///< worker threads used
        double seconds_total;      ///< wall time of mc_world_evaluate
        double seconds_broadphase; ///< bounding box culling
        double seconds_queries;    ///< pair and region stages (wall time, all pairs)
        double seconds_forces;     ///< force laws and reduction
        double seconds_pairs;      ///< pair stage (tree vs tree, triangle tests), summed over pairs
        double seconds_regions;    ///< region stage, summed over pairs
        uint64_t evaluations;      ///< mc_world_evaluate calls so far
        uint32_t certified_pairs;  ///< queried pairs whose pair stage replayed its last tested triangle pairs under
                                   ///< the certified motion margin of temporal coherence (no triangle test ran)
        uint32_t planned_pairs;    ///< of those, pairs whose region stage restored its last combinatorics (crossing
                                   ///< records, states, regions) and only recomputed the sums and depth
        uint32_t broad_pairs;      ///< pairs of overlapping enlarged boxes that the broad phase filtered into the
                                   ///< candidates (0 when no pose changed: the last candidates were kept)
        uint32_t broad_rebuilt;    ///< 1 when the broad phase rebuilt its tree and all enlarged boxes (bodies or
                                   ///< contacts changed, coherence is off, or more than a quarter of the bodies moved)
        uint32_t broad_moved;      ///< bodies that left their enlarged box or sphere (without a rebuild: their pairs
                                   ///< were found again from the tree, the others kept)
        uint32_t sleeping_bodies;  ///< bodies at rest (mc_body_set_awake) during this evaluation
        uint32_t woken_bodies;     ///< sleeping bodies this evaluation woke (pose or velocity set to other values)
        uint32_t sleeping_pairs;   ///< candidate pairs of two sleeping bodies (their regions reused, no query)
        uint32_t restored_pairs;   ///< queried pairs whose triangle pairs, tested again, had the combinatorics of
                                   ///< their last query, so that the region stage restored that query's crossing
                                   ///< records, states and regions and only recomputed the sums and depth (bodies
                                   ///< that all move a little; planned_pairs counts the certified restores)
    } mc_step_info;

    /// @return counters of the last evaluation.
    MC_API mc_step_info mc_world_get_step_info(const mc_world* world);

    /// What a world has needed so far: the largest counts over its lifetime. Give them back as the capacity hints of
    /// mc_world_def (body_capacity, contact_capacity, region_capacity) to a world that should not grow its arrays
    /// during its first evaluations; once warm, evaluations allocate nothing anyway (pools and per-worker scratch are
    /// kept).
    typedef struct mc_world_capacity
    {
        uint32_t body_count;        ///< most body slots in use (live or waiting for reuse)
        uint32_t contact_count;     ///< most contact definition slots in use
        uint32_t pair_count;        ///< most candidate body pairs queried in one evaluation
        uint32_t region_count;      ///< most region records of one evaluation
        uint32_t pair_region_count; ///< most regions of one body pair in one query
        size_t workspace_bytes;     ///< largest query scratch held by one worker (pair stage and region stage)
    } mc_world_capacity;

    /// @return the high-water marks of the world (all zero for NULL).
    MC_API mc_world_capacity mc_world_get_max_capacity(const mc_world* world);

    // ------------------------------------------------------------------------------------------------------------
    // Jacobians (for implicit integrators)
    // ------------------------------------------------------------------------------------------------------------

    /// Bits of mc_jacobian_block.flags.
    enum
    {
        /// Differenced pairs only (see mc_world_get_jacobian): a perturbed query found another number of regions than
        /// the evaluation (a region appears, vanishes, splits or merges within the difference step): the geometric
        /// derivatives of this pair span a change of topology and are those of the regions matched by nearest
        /// centroid. The derivative does not exist there. Analytic pairs hold the topology fixed and never set it.
        MC_JACOBIAN_TOPOLOGY_CHANGED = 1u << 0,
        /// A region of the pair is within the step h of the validity switch A > 2 g^2, of contact onset (depth 0),
        /// or of a kink of a force law (Fn clamped at 0), or (analytic pairs) its Adams depth is 0 or has no
        /// derivative: the block is the derivative of the force on the side the evaluation is on; the derivative does
        /// not exist at the switch itself. Analytic pairs estimate "within h" to first order: |A - 2 g^2| or g at
        /// most the sum over the 12 pose coordinates of |its derivative| times h.
        MC_JACOBIAN_NEAR_SWITCH = 1u << 1,
    };

    /// Derivatives of one contact pair's wrenches: the pair's two bodies, and two 12 x 12 blocks. Rows: the wrench
    /// on I (force, then torque about I's reference point), then the wrench on J (force, torque about J's reference
    /// point), world frame, as mc_body_get_wrench reports them. Columns of `stiffness`: a small translation of I's
    /// reference point (3, world frame), a small rotation of I about its reference point (3, world-frame rotation
    /// vector), then the same for J; columns of `damping`: I's linear velocity (3), I's angular velocity (3), then J's
    /// (the twists of mc_body_set_velocity). Entry [r][c] = d wrench_r / d x_c. Only this contact's regions of this
    /// pair are included: a host sums the blocks of all pairs into its global matrix at (body_i, body_j).
    typedef struct mc_jacobian_block
    {
        mc_contact_id contact;    ///< the contact definition
        mc_body_id body_i;        ///< the I body (rows and columns 0..5)
        mc_body_id body_j;        ///< the J body (rows and columns 6..11)
        uint32_t regions;         ///< regions of the pair in the last evaluation (rejected ones included)
        uint32_t flags;           ///< MC_JACOBIAN_* bits
        double stiffness[12][12]; ///< d wrench / d pose (force / length, force, torque / length, torque)
        double damping[12][12];   ///< d wrench / d twist (force s / length, ...)
    } mc_jacobian_block;

    /// Derivatives of the contact wrenches at the current state, one block per contact pair that had at least one
    /// region in the last evaluation, in the order of mc_world_get_regions (contact slot, I slot, J slot).
    ///
    /// What is held fixed and how each part is obtained:
    /// - The force laws (IMPACT with its STEP-ramped damping, POISSON, Coulomb friction with its STEP curves, the
    ///   friction torque mu Fn (2/3) R) and the kinematics (penetration rate, slip velocity, spin rate from the
    ///   twists, the lever arms from the reference points) are differentiated analytically (forward-mode
    ///   derivatives of the same formulas mc_world_evaluate uses), so the damping block is exact: the geometry does
    ///   not depend on the twists.
    /// - The region geometry (depth, normal, centroid, area) depends on the poses only through the motion of J
    ///   relative to I. For two meshes with the Adams, volume/area or extent depth it is differentiated analytically,
    ///   from one region query per pair at the evaluation's poses, with the region's combinatorics HELD FIXED: its
    ///   edge-face crossings (each crossing point moves along its edge as the crossed plane moves, a closed-form
    ///   line-plane derivative), its inside vertices, whole faces and inside blocks (moving rigidly with their body),
    ///   and, for the Adams depth, the triangle feature (vertex, edge or face interior) that holds each closest point.
    ///   The volume, first moment and vector areas are the region stage's flag sums (W. R. Franklin's local formulas)
    ///   in forward mode; centroid = moment / volume, area = |S_I|, normal = S_I / |S_I|, depth = |p_J - p_I| (Adams:
    ///   p_I follows the centroid on its fixed feature of I, p_J moves with J and follows the centroid's motion
    ///   relative to J on its feature), 2V/A, or n . (x_hi - x_lo) over the fixed extreme points of the extent (their
    ///   ties, e.g. the vertices of a flat face parallel to the other surface, have no derivative either). These are
    ///   the one-sided derivatives of the piecewise-smooth geometry
    ///   the evaluation computes, exact up to rounding (agreement with central differences of mc_world_evaluate
    ///   about 1e-9 relative on smooth configurations, tests/test_jacobian.c). The derivative does NOT exist (and
    ///   the block gives the slope of the current piece) where the combinatorics change: a crossing passing a mesh
    ///   vertex or edge, a vertex entering or leaving the other solid, regions appearing, splitting or merging, the
    ///   closest point of the Adams depth changing feature or face, and ties of that closest point (several faces
    ///   equally near the centroid, e.g. the fan around a tessellated sphere's pole straight below it: the depth is
    ///   then a minimum of equal branches, not flagged).
    /// - For the other pairs (an analytic shape: sphere, plane, cylinder; the smooth depth) the region
    ///   geometry's derivatives are central differences of the pair's region query at poses moved by +-h along each
    ///   of the 12 pose coordinates (24 queries per pair), h = 1e-6 times the smallest region radius of the pair (at
    ///   least 1e-9 times the largest centroid coordinate) for translations, and the angle that moves the farthest
    ///   region centroid (or radius) from the body's reference point by h for rotations. Error: rounding about 1e-16
    ///   of the coordinates over h, truncation O(h^2) relative to the features' size; a kink within +-h averages the
    ///   two one-sided derivatives. Regions are matched by index (the query sorts them by volume), or by nearest
    ///   centroid when the count changes (flag MC_JACOBIAN_TOPOLOGY_CHANGED).
    /// - Where no derivative exists: contact onset (depth 0), the validity switch A > 2 g^2 (rejected regions
    ///   contribute zero), Fn clamped at 0 (a law that would pull), zero slip or spin speed (the friction law's
    ///   limit slope is used: mu(v) / v -> mu'(0)). Regions within h of such a point set MC_JACOBIAN_NEAR_SWITCH.
    /// RecurDyn's and DYMORE's laws are differentiated analytically (mc_recurdyn_force, mc_dymore_force give their
    /// partial derivatives; curves by their interpolant's derivative), as are friction curves. User laws
    /// (normal_fcn, friction_fcn) are differentiated by central differences of the callback along each state
    /// coordinate's direction: the kinematics it receives (depth, rate, area, radius, point, normal, slip velocity,
    /// spin rate, and for friction_fcn the normal force) move by their derivatives times a step that changes each by
    /// at most 1e-6 of its scale (the region's depth or radius, area, speed, Fn); the volume is held fixed. Two
    /// callback calls per state coordinate and region (48), on the calling thread. STICTION (mc_stiction_force) is
    /// not differentiated: a pair whose contact uses it gives MC_ERR_UNSUPPORTED (nothing written).
    ///
    /// Call it after a successful mc_world_evaluate at the current poses (velocities may have changed since: the
    /// blocks use the current ones); it runs one region query per analytic pair and 24 per differenced pair (in
    /// parallel over pairs and directions, each written to its own slot: the blocks are the same bits for any
    /// worker_count) and does not change the results of the last evaluation (its records, wrenches and warm regions
    /// stay as they were). An analytic pair's query must reproduce the evaluation's regions bit for bit (it does:
    /// same poses, same options); otherwise MC_ERR_OUT_OF_RANGE.
    /// @param out caller buffer of `capacity` blocks (NULL allowed when capacity is 0)
    /// @param count receives the number of blocks available (may exceed capacity: then MC_ERR_CAPACITY and the first
    ///        `capacity` blocks are written)
    /// @return MC_OK, MC_ERR_CAPACITY, MC_ERR_INVALID_ARGUMENT (NULL world or count; no successful evaluation at the
    ///         current poses, or a body's mesh deformed since (mc_mesh_set_positions): call mc_world_evaluate first),
    ///         MC_ERR_UNSUPPORTED (a user force law, stiction), or
    ///         MC_ERR_OUT_OF_MEMORY / MC_ERR_OUT_OF_RANGE (a perturbed query failed, or a derivative overflowed)
    MC_API mc_status mc_world_get_jacobian(mc_world* world, mc_jacobian_block* out, uint32_t capacity, uint32_t* count);

    /// How mc_world_get_jacobian obtains the region geometry's derivatives of mesh pairs.
    typedef enum mc_jacobian_method
    {
        /// Analytic where it can (two meshes, Adams, volume/area or extent depth: one region query per pair), central
        /// differences otherwise. The default.
        MC_JACOBIAN_ANALYTIC = 0,
        /// Central differences of the pair's region query for every pair (24 queries per pair; 4.5 to 12 times the
        /// CPU of the analytic blocks on the benchmark scenes). The two agree to about 1e-9 relative on smooth
        /// configurations and differ where the geometry has kinks within the difference step (see above). An
        /// integrator whose runs are chaotic (a faceted part chattering on another) takes other steps with either:
        /// `meshcontact simulate` keeps the differences, with which its knob drop took fewer steps at 9 of 11 starts
        /// 10 nm apart (bench/results/debian12-2core-xeon/jacobian.md).
        MC_JACOBIAN_DIFFERENCES = 1,
    } mc_jacobian_method;

    /// Choose how mc_world_get_jacobian differentiates the region geometry (the force laws are always exact).
    /// @return MC_OK, or MC_ERR_INVALID_ARGUMENT (NULL world, unknown method)
    MC_API mc_status mc_world_set_jacobian_method(mc_world* world, mc_jacobian_method method);

    // ------------------------------------------------------------------------------------------------------------
    // Host helpers
    // ------------------------------------------------------------------------------------------------------------

    /// Move a wrench to another reference point: the same force, and the torque about `to` of a wrench whose torque
    /// is about `from`, torque_to = torque_from + (from - to) x force. mc_world_get_wrenches gives torques about each
    /// body's reference point (the mesh origin at the body's pose); a host that integrates about the centre of mass
    /// (ODE, Bullet, MuJoCo) applies `mc_wrench_shift(&w, pose.p, com)` with com the centre of mass in the world
    /// frame. World frame, any consistent units; pure, inline (no symbol in the library).
    /// @param wrench force and torque about `from`
    /// @param from the point the torque is about, @param to the new reference point
    /// @return the force and the torque about `to`
    static inline mc_wrench mc_wrench_shift(const mc_wrench* wrench, mc_vec3 from, mc_vec3 to)
    {
        mc_wrench out = *wrench;
        out.torque = mc_add(wrench->torque, mc_cross(mc_sub(from, to), wrench->force));
        return out;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Contact patches, contact events and bodies at rest (for hosts with their own solvers)
    // ------------------------------------------------------------------------------------------------------------

    /// Keep the contact patch of every region record (mc_patch: the intersection curve as closed polylines and a
    /// reduced manifold of `manifold_points` points with depths, for constraint-based solvers). Off by default
    /// (0); turning it on or changing the count makes the next evaluation query every pair again (their cached
    /// regions have no patches of that size). Patches come from mesh pairs (mc_query_patches, the same bits); a pair
    /// with an analytic body (mc_body_def.shape) has no triangle pairs: its patches have no loop and the centroid as
    /// the one manifold point. Allocation-free once warm; the cost is one pass over each queried pair's triangle
    /// pairs (pairs that reuse their regions reuse their patches).
    /// @param manifold_points 0 (off), or 1 .. MC_MANIFOLD_MAX
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (NULL world, count out of range)
    MC_API mc_status mc_world_set_patches(mc_world* world, uint32_t manifold_points);

    /// The contact patches of the last evaluation: out[k] is the patch of record k of mc_world_get_regions (same
    /// order, same count). Its arrays belong to the world and stay valid until the next mc_world_evaluate,
    /// mc_world_set_patches or destroy. With patches off, or changed since the last evaluation, every patch is the
    /// centroid alone (no loop, one manifold point with the region's depth).
    /// @param out caller buffer of `capacity` patches (may be NULL when capacity is 0)
    /// @return the number of patches available (may exceed capacity: only `capacity` are written)
    MC_API uint32_t mc_world_get_patches(const mc_world* world, mc_patch* out, uint32_t capacity);

    /// What happened to a contact pair between two evaluations.
    typedef enum mc_contact_event_type
    {
        MC_CONTACT_BEGIN = 0,   ///< the pair has region records now and had none in the previous evaluation
        MC_CONTACT_PERSIST = 1, ///< it had and has
        MC_CONTACT_END = 2,     ///< it had and has no longer (apart, or a body or the contact destroyed)
    } mc_contact_event_type;

    /// One contact event: a (contact, I body, J body) pair with at least one region record (rejected ones count) in
    /// this evaluation or the previous one.
    typedef struct mc_contact_event
    {
        mc_contact_id contact;      ///< the contact definition (possibly destroyed since, for an END)
        mc_body_id body_i;          ///< the I body (possibly destroyed since, for an END)
        mc_body_id body_j;          ///< the J body
        mc_contact_event_type type; ///< BEGIN, PERSIST or END
        uint32_t first_region;      ///< index of the pair's first record in mc_world_get_regions (UINT32_MAX: END)
        uint32_t regions;           ///< its records in this evaluation (0 for END)
    } mc_contact_event;

    /// The contact events of the last evaluation against the previous successful one: one per pair that touches in
    /// either, in the order of the pairs (contact slot, I slot, J slot; an END before a BEGIN of a reused slot).
    /// "Previous" is the previous successful mc_world_evaluate, whatever state it was at: a host that evaluates trial
    /// states (implicit integrators, Runge-Kutta stages) gets events between consecutive evaluations, so it reads
    /// them after evaluating each accepted state and ignores those of the trials, or compares the PERSIST lists
    /// itself. The first evaluation reports every touching pair as BEGIN. A failed evaluation reports none and
    /// leaves the reference unchanged. Deterministic: the same for any worker_count.
    /// @param out caller buffer of `capacity` events (may be NULL when capacity is 0)
    /// @return the number of events (may exceed capacity: only `capacity` are written)
    MC_API uint32_t mc_world_get_events(const mc_world* world, mc_contact_event* out, uint32_t capacity);

    /// Mark a body at rest (sleeping, awake = false) or awake again (true, the default). What the world does with a
    /// sleeping body: it freezes nothing and changes no result. A sleeping body is woken by the world at the next
    /// mc_world_evaluate when its pose or velocity is no longer bitwise the one it had when put to sleep (set by
    /// mc_body_set_pose, mc_world_set_poses and the velocity setters: setting the same values keeps it asleep), and
    /// every pair of two sleeping bodies is then at bitwise the poses of its last query, so it reuses that query's
    /// regions with no query at all (the exact temporal coherence of mc_world_evaluate): its records and wrenches are
    /// bitwise those an awake world computes at that state. The force laws of every region still run, so the cost of
    /// a sleeping pile is its force laws and the bookkeeping (0.1 to 1.3 % of an awake step on the 500-part resting bin
    /// and 1000 spheres: bench_many --sleep, bench/README.md). The host's part, as Box2D's islands: stop integrating a
    /// body that has been slow for a while (its twist below a threshold for some time), set its velocity to zero if it
    /// wants, mark it asleep, and keep setting its unchanged pose (or none). Wake it (or let a new pose wake it) when
    /// something touches it: a MC_CONTACT_BEGIN event of a pair with a sleeping body, a wrench that changed, or the
    /// host's own joints. A pair of a sleeping and an awake body is queried as usual, so a sleeping body's wrench is
    /// complete.
    /// @return MC_OK, MC_ERR_INVALID_ARGUMENT (stale or null id)
    MC_API mc_status mc_body_set_awake(mc_world* world, mc_body_id id, bool awake);

    /// @return false when the body sleeps (mc_body_set_awake), true when it is awake or the id is not a live body.
    MC_API bool mc_body_is_awake(const mc_world* world, mc_body_id id);

#ifdef __cplusplus
}
#endif
