# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The world (world.h): bodies, contact definitions and groups, force models, evaluation at a state, wrenches,
region records, Jacobians, the stiction state (commit, save, restore); and the pure force laws.

Body and contact ids are plain integers (the 8 bytes of mc_body_id / mc_contact_id read as one uint64; 0 is the null
id), so an array of them is what the bulk calls take and what the record arrays' body_i, body_j and contact fields
hold. Poses are rows of 7 float64 (tx ty tz qw qx qy qz), twists rows of 6 (vx vy vz wx wy wz, world frame),
wrenches rows of 6 (fx fy fz tx ty tz, world frame, torque about the body's reference point).
"""
import ctypes
from ctypes import byref, c_double, c_uint32

import numpy as np

from . import _common as c
from . import _lib
from . import _types as t
from .mesh import Mesh
from .query import Shape, depth_method

NORMAL_LAWS = {"impact": 0, "poisson": 1, "user": 2}
FRICTION = {"off": 0, "on": 1, "dynamics_only": 2}
ANALYSIS = {"dynamic": 0, "static": 1}
JACOBIAN_METHODS = {"analytic": 0, "differences": 1}

_evaluate = _lib.world_evaluate
_set_poses = _lib.world_set_poses
_set_velocities = _lib.world_set_velocities
_get_wrenches = _lib.world_get_wrenches

# mc_step_info.flags and mc_jacobian_block.flags bits
STEP_UNBOUNDED_PAIR = 1 << 0
STEP_PAIR_FAILED = 1 << 1
STEP_REJECTED_REGIONS = 1 << 2
STEP_NON_FINITE = 1 << 3
JACOBIAN_TOPOLOGY_CHANGED = 1 << 0
JACOBIAN_NEAR_SWITCH = 1 << 1


def _choice(table, value, name):
    if isinstance(value, str):
        try:
            return table[value]
        except KeyError:
            pass
    raise ValueError(f"{name}: one of {sorted(table)}, got {value!r}")


_MODEL_FIELDS = {name for name, _ in t.ForceModelStruct._fields_} - {
    "normal_fcn",
    "friction_fcn",
    "user_data",
    "internal_value",
}


class ForceModel:
    """A contact's force laws with Adams' names (mc_force_model), starting from mc_default_force_model():
    ForceModel(stiffness=1e7, exponent=1.5, damping=1e3, dmax=1e-3, friction="on", mu_static=0.3, ...).

    normal_law: "impact" (default), "poisson" or "user"; friction: "off" (default), "on" or "dynamics_only".
    User laws (Adams CNFSUB / CFFSUB) are Python callables, run on the thread that calls World.evaluate:
    normal_fcn(kinematics, model) -> Fn, and friction_fcn(kinematics, normal_force, model) -> (force, torque) on J
    (two 3-vectors, world frame), where kinematics is a ContactKinematics and model the ForceModelStruct, both valid
    only during the call. An exception raised by a callback is raised again by the call that ran it."""

    def __init__(self, **params):
        object.__setattr__(self, "_s", _lib.default_force_model())
        object.__setattr__(self, "normal_fcn", None)
        object.__setattr__(self, "friction_fcn", None)
        for k, v in params.items():
            setattr(self, k, v)

    def __setattr__(self, name, value):
        if name in ("normal_fcn", "friction_fcn"):
            if value is not None and not callable(value):
                raise TypeError(f"{name}: expected a callable or None")
            object.__setattr__(self, name, value)
        elif name == "normal_law":
            self._s.normal_law = _choice(NORMAL_LAWS, value, name)
        elif name == "friction":
            self._s.friction = _choice(FRICTION, value, name)
        elif name in _MODEL_FIELDS:
            setattr(self._s, name, value)
        else:
            raise AttributeError(f"ForceModel has no parameter {name!r}")

    def __getattr__(self, name):
        if name == "normal_law":
            return {v: k for k, v in NORMAL_LAWS.items()}[self._s.normal_law]
        if name == "friction":
            return {v: k for k, v in FRICTION.items()}[self._s.friction]
        if name in _MODEL_FIELDS:
            return getattr(self._s, name)
        raise AttributeError(name)

    def __repr__(self):
        params = ", ".join(f"{k}={getattr(self, k)!r}" for k, _ in t.ForceModelStruct._fields_ if k in _MODEL_FIELDS)
        return f"ForceModel({params})"

    def _struct(self, sink):
        """A copy of the C struct with the callbacks wrapped (the wrappers go into sink.refs: keep sink alive)."""
        s = t.ForceModelStruct.from_buffer_copy(self._s)
        if self.normal_fcn is not None:
            s.normal_fcn = sink.normal(self.normal_fcn)
        if self.friction_fcn is not None:
            s.friction_fcn = sink.friction(self.friction_fcn)
        return s

    def check(self):
        """Check the parameters of the selected laws against Adams' ranges (mc_force_model_check); raises Error."""
        sink = _Sink()
        s = self._struct(sink)
        err = t.ErrorRecord()
        c.check(_lib.force_model_check(byref(s), byref(err)), "mc_force_model_check", err)


def _model(model):
    if model is None:
        return ForceModel()
    if isinstance(model, ForceModel):
        return model
    if isinstance(model, dict):
        return ForceModel(**model)
    raise TypeError(f"model: expected a ForceModel or a dict of parameters, got {type(model).__name__}")


class _Sink:
    """Python callbacks handed to the library: keeps them alive, and keeps the first exception they raise."""

    def __init__(self):
        self.refs = []
        self.error = None

    def normal(self, fn):
        def call(kin, model, _user):
            if self.error is not None:
                return 0.0
            try:
                return float(fn(t.record(kin.contents), t.record(model.contents)))
            except BaseException as exc:  # noqa: B902 - raised again after the C call
                self.error = exc
                return 0.0

        w = t.NORMAL_FCN(call)
        self.refs.append(w)
        return w

    def friction(self, fn):
        def call(kin, normal_force, model, _user, force, torque):
            if self.error is not None:
                return
            try:
                f, q = fn(t.record(kin.contents), normal_force, t.record(model.contents))
                force[0] = c.to_vec3(f, "friction force")
                torque[0] = c.to_vec3(q, "friction torque")
            except BaseException as exc:  # noqa: B902 - raised again after the C call
                self.error = exc

        w = t.FRICTION_FCN(call)
        self.refs.append(w)
        return w

    def reraise(self):
        exc, self.error = self.error, None
        if exc is not None:
            raise exc


# ------------------------------------------------------------------------------------------------ force laws


def step(x, x0, h0, x1, h1):
    """Adams' cubic STEP (mc_step_fcn)."""
    return _lib.step_fcn(x, x0, h0, x1, h1)


def impact_force(depth, rate, stiffness, exponent, damping, dmax):
    """Adams IMPACT normal force (mc_impact_force)."""
    return _lib.impact_force(depth, rate, stiffness, exponent, damping, dmax)


def poisson_force(depth, rate, penalty, restitution, transition_velocity):
    """POISSON normal force (mc_poisson_force)."""
    return _lib.poisson_force(depth, rate, penalty, restitution, transition_velocity)


def friction_coefficient(slip_speed, mu_static, mu_dynamic, stiction_velocity, friction_velocity):
    """Adams' Coulomb friction coefficient mu(v) (mc_friction_coefficient)."""
    return _lib.friction_coefficient(slip_speed, mu_static, mu_dynamic, stiction_velocity, friction_velocity)


def kinematics(depth=0.0, rate=0.0, area=0.0, volume=0.0, radius=0.0, point=(0, 0, 0), normal=(0, 0, 1),
               slip_velocity=(0, 0, 0), spin_rate=0.0):  # fmt: skip
    """A ContactKinematics (mc_contact_kinematics) for contact_force()."""
    return t.ContactKinematics(
        depth, rate, area, volume, radius, c.to_vec3(point, "point"), c.to_vec3(normal, "normal"),
        c.to_vec3(slip_velocity, "slip_velocity"), spin_rate,
    )  # fmt: skip


def contact_force(model, kin, analysis="dynamic"):
    """The force laws of one region (mc_contact_force_evaluate): a ContactForce (normal_force, friction_force,
    friction_torque, friction_coefficient, slip_speed, rejected) on body J."""
    sink = _Sink()
    s = _model(model)._struct(sink)
    out = t.ContactForce()
    st = _lib.contact_force_evaluate(byref(s), byref(kin), _choice(ANALYSIS, analysis, "analysis"), byref(out))
    sink.reraise()
    c.check(st, "mc_contact_force_evaluate")
    return t.record(out)


def stiction_force(model, normal_force, creep, slip_velocity):
    """meshcontact's STICTION law (mc_stiction_force): returns (mu, friction force on J, creep kept)."""
    s = _model(model)._struct(_Sink())
    f, kept = t.Vec3(), t.Vec3()
    mu = _lib.stiction_force(
        byref(s), normal_force, c.to_vec3(creep, "creep"), c.to_vec3(slip_velocity, "slip_velocity"), byref(f),
        byref(kept),
    )  # fmt: skip
    return mu, np.array(tuple(f)), np.array(tuple(kept))


# ------------------------------------------------------------------------------------------------ the world


class BodyMesh(Mesh):
    """The mesh a body's queries use when it is not the Mesh the body was made with: the world's flipped copy of a
    flipped body's mesh (World.body_mesh). Borrowed from the world: valid while the body lives (any use after it is
    destroyed, or its world closed, raises ClosedError); usable in queries, not for making bodies."""

    def __init__(self, world, body, handle):
        self._world, self._body, self._ptr, self._users = world, body, handle, 0

    def _handle(self):
        p, w = self._ptr, self._world._ptr
        if p is None or w is None or not _lib.body_is_valid(w, c.int_to_body_id(self._body)):
            raise c.ClosedError("BodyMesh: its body was destroyed or its world closed")
        return p

    def close(self):
        self._ptr = None  # borrowed: the world destroys it with the body




class World(c.Owned):
    """A world of bodies and contact definitions (mc_world). Used by one thread at a time; separate worlds may be
    evaluated concurrently from different threads (the GIL is released during library calls).

    World(threads=0, depth="adams", coherence=True, body_capacity=0, contact_capacity=0, region_capacity=0):
    threads is the OpenMP worker count of evaluate (0: the OpenMP default; results are the same bits for any);
    depth the depth method ("adams", "volume_area", "extent", "smooth"). close() destroys the world with its bodies
    and contacts; the meshes stay (the world holds a reference to the meshes of its bodies while they live)."""

    _destroy = staticmethod(_lib.world_destroy)

    def __init__(self, *, threads=0, depth="adams", coherence=True, body_capacity=0, contact_capacity=0,
                 region_capacity=0):  # fmt: skip
        d = _lib.default_world_def()
        d.worker_count = int(threads)
        d.depth_method = depth_method(depth)
        d.coherence = bool(coherence)
        d.body_capacity = body_capacity
        d.contact_capacity = contact_capacity
        d.region_capacity = region_capacity
        out = ctypes.c_void_p()
        c.check(_lib.world_create(byref(d), byref(out)), "mc_world_create")
        self._ptr = out.value
        self._meshes = {}  # body id -> Mesh (or None): the meshes live as long as their bodies
        self._sinks = {}  # contact id -> _Sink of its user force laws
        self._active = ()  # the sinks that hold callbacks (checked after each evaluation)

    def close(self):
        """Destroy the world, its bodies and contacts (idempotent). The meshes are not destroyed."""
        if self._ptr is None:
            return
        super().close()
        for m in self._meshes.values():
            if m is not None:
                m._users -= 1
        self._meshes.clear()
        self._sinks.clear()
        self._active = ()

    def _set_sink(self, contact, sink):
        if sink is None:
            self._sinks.pop(contact, None)
        else:
            self._sinks[contact] = sink
        self._active = tuple(s for s in self._sinks.values() if s.refs)

    # -------------------------------------------------------------------------------------------- bodies

    def create_body(self, geometry, pose=None, velocity=None, *, flip=False):
        """Create a body of a Mesh or a Shape (analytic sphere, plane, cylinder) at a pose with a velocity (world
        frame); flip: the solid is the outside of the mesh (Adams I/JFLIP_GEOMETRY). Returns the body id (int)."""
        p = self._handle()
        shape = Shape.of(geometry)
        if isinstance(shape.mesh, BodyMesh):
            raise TypeError("create_body: a BodyMesh lives only as long as its body; make bodies of a Mesh")
        bd = _lib.default_body_def()
        mesh = None
        if shape.kind == "mesh":
            mesh = shape.mesh
            bd.mesh = mesh._handle()
        else:
            bd.shape = shape._struct()
        bd.pose = c.to_pose(pose)
        bd.velocity = c.to_twist(velocity)
        bd.flip = bool(flip)
        c.clear_log()
        bid = c.id_to_int(_lib.world_create_body(p, byref(bd)))
        if bid == 0:
            c.check(c.Status.INVALID_ARGUMENT, "mc_world_create_body")
        self._meshes[bid] = mesh
        if mesh is not None:
            mesh._users += 1
        return bid

    def destroy_body(self, body):
        """Destroy a body (contacts that list it skip it from then on). Stale ids are ignored."""
        p = self._handle()
        _lib.world_destroy_body(p, c.int_to_body_id(body))
        m = self._meshes.pop(int(body), None)
        if m is not None:
            m._users -= 1

    def is_valid(self, body):
        """True when body is a live body of this world."""
        return bool(_lib.body_is_valid(self._handle(), c.int_to_body_id(body)))

    @property
    def bodies(self):
        """The ids of the live bodies, in creation order (a uint64 array, ready for the bulk calls)."""
        self._handle()
        return np.fromiter(self._meshes.keys(), dtype=np.uint64, count=len(self._meshes))

    def _body(self, body):
        p = self._handle()
        b = c.int_to_body_id(body)
        if not _lib.body_is_valid(p, b):
            raise ValueError(f"body {int(body)} is not a live body of this world")
        return p, b

    def set_pose(self, body, pose):
        """Set one body's pose ([tx, ty, tz, qw, qx, qy, qz] or [tx, ty, tz]; the quaternion is normalised)."""
        p, b = self._body(body)
        c.check(_lib.body_set_pose(p, b, byref(c.to_pose(pose))), "mc_body_set_pose (a pose outside the range)")

    def set_velocity(self, body, velocity):
        """Set one body's twist [vx, vy, vz, wx, wy, wz] (world frame)."""
        p, b = self._body(body)
        c.check(_lib.body_set_velocity(p, b, byref(c.to_twist(velocity))), "mc_body_set_velocity (not finite)")

    def pose(self, body):
        """The body's pose, (7,) float64."""
        p, b = self._body(body)
        return c.struct_array(_lib.body_get_pose(p, b))

    def velocity(self, body):
        """The body's twist, (6,) float64."""
        p, b = self._body(body)
        return c.struct_array(_lib.body_get_velocity(p, b))

    def wrench(self, body):
        """The contact wrench on the body from the last evaluation, (6,) float64: force, torque about the body's
        reference point (world frame)."""
        p, b = self._body(body)
        return c.struct_array(_lib.body_get_wrench(p, b))

    def body_mesh(self, body):
        """The mesh the body's queries use (mc_body_get_mesh): the Mesh it was made with, or for a flipped body the
        world's flipped copy (a BodyMesh, valid while the body lives); None for an analytic shape. With it, regions()
        on two bodies' meshes at their poses gives bitwise the regions evaluate() records for the pair."""
        p, b = self._body(body)
        handle = _lib.body_get_mesh(p, b)
        if not handle:
            return None
        mine = self._meshes.get(int(body))
        if mine is not None and mine._ptr == handle:
            return mine
        return BodyMesh(self, int(body), handle)

    def _bulk_error(self, where, ids, what):
        for k, bid in enumerate(ids.tolist()):
            if not _lib.body_is_valid(self._ptr, c.int_to_body_id(bid)):
                return ValueError(f"{where}: ids[{k}] = {bid} is not a live body of this world (nothing was set)")
        return c.Error(c.Status.INVALID_ARGUMENT, f"{where}: a {what} is not finite or out of range (nothing was set)")

    # The bulk calls are the host loop's: their checks take the fast paths of _common (ids as a uint64 array and
    # rows as C-contiguous float64 cost a few type checks; anything else is converted, or refused, first).

    def _set_rows(self, fn, where, ids, rows, name, width, what):
        """The bulk setters' one path: ids (n,) and rows (n, width) checked, then fn(world, ids, rows, n)."""
        p = self._ptr
        if p is None:
            self._handle()
        a, v = c.ids(ids), c.rows(rows, name, width)
        n = a.shape[0]
        if v.shape[0] != n:
            raise ValueError(f"{name}: {v.shape[0]} rows for {n} ids")
        if fn(p, c.ptr(a), c.ptr(v), n):
            raise self._bulk_error(where, a, what)

    def set_poses(self, ids, poses):
        """Set the poses of many bodies at once: ids (n,) and poses (n, 7). All are checked first; on an invalid id
        or pose nothing changes (ValueError or Error)."""
        self._set_rows(_set_poses, "mc_world_set_poses", ids, poses, "poses", 7, "pose")

    def set_velocities(self, ids, twists):
        """Set the twists of many bodies at once: ids (n,) and twists (n, 6); same rules as set_poses."""
        self._set_rows(_set_velocities, "mc_world_set_velocities", ids, twists, "twists", 6, "twist")

    def wrenches(self, ids, out=None):
        """The contact wrenches of many bodies from the last evaluation: (n, 6) float64 (an id that is not a live
        body raises meshcontact.Error naming its entry, as in C, and nothing is written). out: an (n, 6) float64
        C-contiguous writeable array to fill instead of a new one."""
        p = self._ptr
        if p is None:
            self._handle()
        a = c.ids(ids)
        n = a.shape[0]
        if out is None:
            out = np.empty((n, 6))
        else:
            c.out_array(out, "out", (n, 6))
        s = _get_wrenches(p, c.ptr(a), c.ptr(out), n)
        if s != 0:
            err = _lib.world_get_last_error(p).contents
            c.check(s, "mc_world_get_wrenches", err)
        return out

    # -------------------------------------------------------------------------------------------- contacts

    def create_contact(self, i_bodies, j_bodies=None, *, model=None, depth="default", exclude=()):
        """Create a contact definition and return its id (int).

        With j_bodies: Adams IGEOM x JGEOM lists (every pair of a body of i_bodies with one of j_bodies; normals
        and forces reported from I into J). Without (None): a group, every pair of two bodies of i_bodies.
        model: a ForceModel (or a dict of its parameters; default ForceModel()). depth: "default" (the world's) or
        a depth method for this contact. exclude: pairs (a, b) of bodies not to evaluate (e.g. joined bodies)."""
        p = self._handle()
        ia = c.id_array(i_bodies, "i_bodies")
        ja = None if j_bodies is None else c.id_array(j_bodies, "j_bodies")
        ex = np.zeros((0, 2), dtype=np.uint64)
        if len(exclude):
            ex = np.ascontiguousarray(c.id_array(np.asarray(exclude).reshape(-1), "exclude").reshape(-1, 2))
        sink = _Sink()
        d = _lib.default_contact_def()
        d.i_bodies, d.i_count = c.ptr(ia), ia.shape[0]
        if ja is None:
            d.mode = 1  # MC_CONTACT_GROUP
        else:
            d.j_bodies, d.j_count = c.ptr(ja), ja.shape[0]
        if ex.shape[0]:
            d.excluded_pairs, d.excluded_count = c.ptr(ex), ex.shape[0]
        d.model = _model(model)._struct(sink)
        d.depth_method = depth_method(depth)
        out = t.ContactId()
        err = t.ErrorRecord()
        c.check(_lib.world_create_contact(p, byref(d), byref(out), byref(err)), "mc_world_create_contact", err)
        cid = c.id_to_int(out)
        self._set_sink(cid, sink)
        return cid

    def destroy_contact(self, contact):
        """Destroy a contact definition. Stale ids are ignored."""
        _lib.world_destroy_contact(self._handle(), c.int_to_contact_id(contact))
        self._set_sink(int(contact), None)

    def contact_is_valid(self, contact):
        return bool(_lib.contact_is_valid(self._handle(), c.int_to_contact_id(contact)))

    def set_model(self, contact, model):
        """Replace a contact's force model (checked; the pairs and their warm memory are kept)."""
        p = self._handle()
        sink = _Sink()
        s = _model(model)._struct(sink)
        err = t.ErrorRecord()
        c.check(_lib.contact_set_model(p, c.int_to_contact_id(contact), byref(s), byref(err)), "mc_contact_set_model",
                err)  # fmt: skip
        self._set_sink(int(contact), sink)

    def set_analysis(self, analysis):
        """"dynamic" (default) or "static" (friction of DYNAMICS_ONLY contacts off)."""
        _lib.world_set_analysis(self._handle(), _choice(ANALYSIS, analysis, "analysis"))

    # -------------------------------------------------------------------------------------------- evaluation

    def evaluate(self):
        """Evaluate every contact at the current poses and velocities (mc_world_evaluate). Raises Error on failure
        (then wrenches and records are zero / empty), or what a user force law raised."""
        p = self._ptr
        if p is None:
            self._handle()
        s = _evaluate(p)
        for sink in self._active:
            sink.reraise()
        if s:
            c.check(s, "mc_world_evaluate")

    def regions(self):
        """The region records of the last evaluation (contact, body_i, body_j, region, rate, slip_velocity,
        normal_force, friction_force, ...): a record array of CONTACT_REGION_DTYPE in the library's fixed order."""
        p = self._handle()
        n = _lib.world_get_regions(p, None, 0)
        out = np.empty(n, dtype=t.CONTACT_REGION_DTYPE)
        if n:
            _lib.world_get_regions(p, c.ptr(out), n)
        return out

    def set_patches(self, manifold):
        """Keep the contact patch of every region record with `manifold` points (1 .. 8), or none (0, the default)
        (mc_world_set_patches)."""
        c.check(_lib.world_set_patches(self._handle(), int(manifold)), "mc_world_set_patches (0 .. 8 points)")

    def patches(self):
        """The contact patches of the last evaluation, one per record of regions() in the same order
        (mc_world_get_patches): dicts with "loops", "manifold", "depths", "open_loops" (see meshcontact.patches)."""
        p = self._handle()
        n = _lib.world_get_patches(p, None, 0)
        pat = (t.Patch * max(n, 1))()
        n = _lib.world_get_patches(p, pat, n)
        return [c.patch_dict(pat[k]) for k in range(n)]

    def events(self):
        """The contact events of the last evaluation against the previous successful one (mc_world_get_events): a
        list of (type, contact, body_i, body_j, first_region, regions), type "begin", "persist" or "end"."""
        p = self._handle()
        n = _lib.world_get_events(p, None, 0)
        ev = (t.ContactEvent * max(n, 1))()
        n = _lib.world_get_events(p, ev, n)
        names = ("begin", "persist", "end")
        return [(names[e.type], c.id_to_int(e.contact), c.id_to_int(e.body_i), c.id_to_int(e.body_j),
                 e.first_region, e.regions) for e in ev[:n]]  # fmt: skip

    def set_awake(self, body, awake):
        """Mark a body at rest (awake=False) or awake (mc_body_set_awake): a sleeping body is woken by a pose or
        velocity set to other values; pairs of two sleeping bodies reuse their regions (results unchanged)."""
        p, b = self._body(body)
        c.check(_lib.body_set_awake(p, b, bool(awake)), "mc_body_set_awake")

    def is_awake(self, body):
        """False when the body sleeps (mc_body_is_awake)."""
        p, b = self._body(body)
        return bool(_lib.body_is_awake(p, b))

    def step_info(self):
        """Counters and timings of the last evaluation (a StepInfo)."""
        return t.record(_lib.world_get_step_info(self._handle()))

    def max_capacity(self):
        """The largest counts the world has needed (a WorldCapacity)."""
        return t.record(_lib.world_get_max_capacity(self._handle()))

    def step_hint(self):
        """A lower bound of the time to the next contact onset under the current twists (seconds; inf: none)."""
        out = c_double()
        c.check(_lib.world_get_step_hint(self._handle(), byref(out)), "mc_world_get_step_hint")
        return out.value

    def jacobian(self):
        """The derivatives of the contact wrenches at the current state, one block per touching contact pair
        (mc_world_get_jacobian): a record array of JACOBIAN_DTYPE (contact, body_i, body_j, regions, flags,
        stiffness (12, 12), damping (12, 12)). Call after evaluate(). User force laws are differenced (world.h):
        what one raises is raised here."""
        p = self._handle()
        n = c_uint32()
        cap = 4
        while True:
            out = np.empty(cap, dtype=t.JACOBIAN_DTYPE)
            c.clear_log()
            s = _lib.world_get_jacobian(p, c.ptr(out), cap, byref(n))
            for sink in self._active:
                sink.reraise()
            if s == c.Status.CAPACITY and n.value > cap:
                cap = n.value
                continue
            c.check(s, "mc_world_get_jacobian")
            return out[: n.value]

    def set_jacobian_method(self, method):
        """"analytic" (default) or "differences" (central differences for every pair)."""
        s = _lib.world_set_jacobian_method(self._handle(), _choice(JACOBIAN_METHODS, method, "method"))
        c.check(s, "mc_world_set_jacobian_method")

    # -------------------------------------------------------------------------------------------- state

    def commit(self):
        """Commit the stiction state of the last evaluation (once per accepted step; mc_world_commit)."""
        c.clear_log()
        c.check(_lib.world_commit(self._handle()), "mc_world_commit")

    def get_state(self):
        """The committed state (stiction anchors) as bytes, for set_state on this same world."""
        p = self._handle()
        size = _lib.world_get_state(p, None, 0)
        buf = ctypes.create_string_buffer(size)
        _lib.world_get_state(p, buf, size)
        return buf.raw

    def set_state(self, state):
        """Restore a state from get_state of this world (it becomes the committed state)."""
        p = self._handle()
        data = bytes(state)
        err = t.ErrorRecord()
        c.check(_lib.world_set_state(p, data, len(data), byref(err)), "mc_world_set_state", err)

    def __repr__(self):
        if self._ptr is None:
            return "<meshcontact.World (closed)>"
        return f"<meshcontact.World {len(self._meshes)} bodies, {len(self._sinks)} contacts>"
