# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Meshes (mesh.h): creation from arrays, import from files, the checks' report, primitives, repair, export."""
import ctypes
import os
from ctypes import byref, c_double, c_uint32

import numpy as np

from . import _common as c
from . import _lib
from . import _types as t

SELF_CHECK = {"refuse": 0, "accept": 1, "skip": 2}
PRIMITIVES = {"box": 0, "ellipsoid": 1, "sphere": 1, "cylinder": 2, "frustum": 3, "torus": 4}
REPAIRS = {
    "duplicates": 1 << 0,
    "shared_faces": 1 << 1,
    "loose_components": 1 << 2,
    "orient": 1 << 3,
    "holes": 1 << 4,
    "pinches": 1 << 5,
    "all": 0x3F,
}


def _path(path):
    return os.fsencode(os.fspath(path))


def _self_check(value):
    try:
        return SELF_CHECK[value]
    except KeyError:
        raise ValueError(f"self_check: one of {sorted(SELF_CHECK)}, got {value!r}") from None


class Mesh(c.Owned):
    """A closed, checked triangle mesh with its OBB tree (mc_mesh): shareable between worlds and threads, immutable
    but for set_positions() (a deforming mesh: flexible bodies).

    Mesh(vertices, triangles, ...) copies (n, 3) vertices and (m, 3) counter-clockwise (seen from outside) vertex
    indices (see the package docs for the accepted dtypes), scales, welds, drops zero-area triangles, checks that the
    mesh is closed and does not intersect itself, and builds the tree. Failures raise meshcontact.Error with the
    library's message, and the checks' findings as its ``report``.

    Parameters (as mc_mesh_def): scale (> 0, multiplies every coordinate), weld_tolerance (0: exact welding only, else
    a fraction of the bounding-box diagonal in [1e-12, 0.1]), flip (the solid is the outside: Adams IFLIP_GEOMETRY),
    require_closed (False accepts an open mesh, which cannot be used for contact), self_check ("refuse", "accept" or
    "skip"; see mc_self_check).

    close() destroys the C mesh (also at garbage collection and at the end of a with block); a mesh used by bodies of
    a live World cannot be closed (RuntimeError) until they are destroyed.
    """

    _destroy = staticmethod(_lib.mesh_destroy)

    def __init__(self, vertices, triangles, *, scale=1.0, weld_tolerance=0.0, flip=False, require_closed=True,
                 self_check="refuse"):  # fmt: skip
        v, _ = c.real_array(vertices, "vertices", (3,), single_ok=False)
        f = c.index_array(triangles, "triangles")
        d = _lib.default_mesh_def()
        d.positions = c.ptr(v)
        d.vertex_count = v.shape[0]
        d.indices = c.ptr(f)
        d.triangle_count = f.shape[0]
        d.scale = scale
        d.weld_tolerance = weld_tolerance
        d.flip = bool(flip)
        d.require_closed = bool(require_closed)
        d.self_check = _self_check(self_check)
        out = ctypes.c_void_p()
        report = t.MeshReport()
        err = t.ErrorRecord()
        s = _lib.mesh_create(byref(d), byref(out), byref(report), byref(err))
        c.check(s, "mc_mesh_create", err, report)
        self._ptr = out.value
        self._users = 0

    @classmethod
    def _adopt(cls, handle):
        m = cls.__new__(cls)
        m._ptr = handle
        m._users = 0
        return m

    @classmethod
    def load(cls, path, **options):
        """Import a mesh file (mc_mesh_import_file): .stl, .obj, .off, .shl, .3mf, .gltf/.glb, .dae natively, .ply
        through Assimp, and B-rep files (.step, .iges, .brep) when the library was built with gmsh.

        Options (mc_import_options): scale, weld_tolerance, flip, require_closed, self_check (as Mesh()),
        max_bytes, max_triangles (size guards), chord_tolerance, angle_tolerance (radians), brep_solid (B-rep
        faceting and solid choice), repair (None: no repair; or a dict of repair() keywords applied to the
        triangles as read) and progress (a callable taking a fraction in [0, 1]).
        Raises meshcontact.Error (with the file, line or offset in its message, and the report as far as read)."""
        opts, keep = _import_options(**options)
        out = ctypes.c_void_p()
        report = t.MeshReport()
        err = t.ErrorRecord()
        s = _lib.mesh_import_file(_path(path), byref(opts), byref(out), byref(report), byref(err))
        keep.reraise()
        c.check(s, "mc_mesh_import_file", err, report)
        return cls._adopt(out.value)

    @classmethod
    def primitive(cls, kind, dims, *, chord_tolerance=None, max_angle=None, max_triangles=None, triangles=None):
        """Tessellate a primitive into a mesh (mc_mesh_create_primitive, or with ``triangles`` the count-based
        mc_mesh_create_primitive_count). kind and dims as in tessellate()."""
        d = _primitive_def(kind, dims, chord_tolerance, max_angle, max_triangles)
        out = ctypes.c_void_p()
        err = t.ErrorRecord()
        if triangles is None:
            s = _lib.mesh_create_primitive(byref(d), byref(out), byref(err))
        else:
            s = _lib.mesh_create_primitive_count(byref(d), _count(triangles), byref(out), byref(err))
        c.check(s, "mc_mesh_create_primitive", err)
        return cls._adopt(out.value)

    def close(self):
        users = getattr(self, "_users", 0)
        if users and self._ptr is not None:
            raise RuntimeError(
                f"Mesh.close: the mesh is used by {users} bodies of live worlds; destroy them (or close the worlds) "
                "first"
            )
        super().close()

    @property
    def vertex_count(self):
        return int(_lib.mesh_get_vertex_count(self._handle()))

    @property
    def triangle_count(self):
        return int(_lib.mesh_get_triangle_count(self._handle()))

    @property
    def vertices(self):
        """The cleaned mesh's vertices, (n, 3) float64, body frame, scaled (a copy)."""
        p = self._handle()
        n = _lib.mesh_get_vertex_count(p)
        buf = (c_double * (3 * n)).from_address(_lib.mesh_get_positions(p))
        return np.frombuffer(buf, dtype=np.float64).reshape(n, 3).copy()

    @property
    def triangles(self):
        """The cleaned mesh's triangles, (m, 3) uint32, counter-clockwise seen from outside (a copy)."""
        p = self._handle()
        m = _lib.mesh_get_triangle_count(p)
        buf = (c_uint32 * (3 * m)).from_address(_lib.mesh_get_indices(p))
        return np.frombuffer(buf, dtype=np.uint32).reshape(m, 3).copy()

    @property
    def report(self):
        """What the checks found at creation (a copy of mc_mesh_report: volume, area, bbox_min, closed, ...)."""
        return t.record(_lib.mesh_get_report(self._handle()).contents)

    def mass_properties(self, density=1.0):
        """Volume, mass, centre of mass, inertia tensor about it (3, 3), principal moments (ascending) and axes (the
        columns of a rotation matrix) and their quaternion (w, x, y, z), at a uniform density, in the mesh frame
        (mc_mesh_get_mass_properties: divergence theorem, exact to rounding). A Record."""
        out = t.MassProperties()
        err = t.ErrorRecord()
        c.check(_lib.mesh_get_mass_properties(self._handle(), density, byref(out), byref(err)),
                "mc_mesh_get_mass_properties", err)  # fmt: skip
        return t.record(out)

    def transformed(self, pose=None, scale=1.0, *, self_check="refuse"):
        """A new mesh whose points are R (scale x) + t, (R, t) = pose (7 values tx ty tz qw qx qy qz, or None for
        identity); a negative scale mirrors and the triangles are rewound to stay outward
        (mc_mesh_create_transformed)."""
        p = None if pose is None else byref(c.to_pose(pose))
        out = ctypes.c_void_p()
        report = t.MeshReport()
        err = t.ErrorRecord()
        s = _lib.mesh_create_transformed(self._handle(), p, scale, _self_check(self_check), byref(out), byref(report),
                                         byref(err))  # fmt: skip
        c.check(s, "mc_mesh_create_transformed", err, report)
        return Mesh._adopt(out.value)

    @property
    def byte_count(self):
        """Bytes owned by the mesh (arrays, topology, tree and, once built, region blocks)."""
        return int(_lib.mesh_get_byte_count(self._handle()))

    def prepare_regions(self):
        """Build the region blocks now instead of in the first region query (mc_mesh_prepare_regions)."""
        c.check(_lib.mesh_prepare_regions(self._handle()), "mc_mesh_prepare_regions")

    def set_positions(self, vertices):
        """Deform the mesh (flexible bodies; mc_mesh_set_positions): new (n, 3) vertex positions for the same
        triangles, n = vertex_count, in the order of ``vertices`` (body frame, after the creation scale). The tree is
        refitted (rebuilt when the refit has degraded it) and every query afterwards answers as on a mesh created from
        these positions. Raises meshcontact.Error (the mesh keeps its positions) for a wrong shape, a non-finite or
        out-of-range coordinate, a zero-area triangle or a component turned inside out. Not checked (the host's duty):
        the surface must not intersect itself (count_self_intersections() checks it). The mesh must not be in use by
        another thread's query or world evaluation meanwhile; a body created with flip=True follows at its world's
        next evaluation (its BodyMesh takes the new positions)."""
        p = self._handle()
        n = int(_lib.mesh_get_vertex_count(p))
        v, _ = c.real_array(vertices, "vertices", (3,), single_ok=False)
        if v.shape[0] != n:
            raise ValueError(f"vertices: expected shape ({n}, 3), got {v.shape}")
        err = t.ErrorRecord()
        c.check(_lib.mesh_set_positions(p, c.ptr(v), n, byref(err)), "mc_mesh_set_positions", err)

    @property
    def deform_info(self):
        """What the deformations did to the tree (mc_mesh_get_deform_info): refits, rebuilds, tree_cost,
        tree_cost_built (the sum of the boxes' areas over the mesh's area, now and after the last build) and version
        (0 at creation, new after each deformation). A Record."""
        return t.record(_lib.mesh_get_deform_info(self._handle()))

    def count_self_intersections(self):
        """Pairs of triangles that intersect each other at the current positions (mc_mesh_count_self_intersections),
        and the smallest such pair (i, j) or None: (count, pair)."""
        n = ctypes.c_uint64()
        first = (c_uint32 * 2)()
        c.check(_lib.mesh_count_self_intersections(self._handle(), byref(n), first), "mc_mesh_count_self_intersections")
        return int(n.value), (None if n.value == 0 else (int(first[0]), int(first[1])))

    def contains(self, points):
        """Exact point-in-solid test (mc_mesh_contains_point) of one point (3,) -> bool, or of (n, 3) points -> bool
        array; body frame. For a flipped mesh the solid is the outside."""
        p = self._handle()
        a, single = c.real_array(points, "points", (3,))
        if single:
            return bool(_lib.mesh_contains_point(p, t.Vec3(*a.tolist())))
        fn, vec = _lib.mesh_contains_point, t.Vec3
        return np.fromiter((fn(p, vec(*row)) for row in a.tolist()), dtype=bool, count=a.shape[0])

    def write_stl(self, path):
        """Write the mesh as binary STL (32-bit floats; mc_mesh_write_stl)."""
        err = t.ErrorRecord()
        c.check(_lib.mesh_write_stl(self._handle(), _path(path), byref(err)), "mc_mesh_write_stl", err)

    def write_shl(self, path, scale=1.0):
        """Write the mesh as an Adams shell file (doubles in %.17g; mc_mesh_write_shl); scale is the header's factor
        to metres."""
        err = t.ErrorRecord()
        c.check(_lib.mesh_write_shl(self._handle(), _path(path), scale, byref(err)), "mc_mesh_write_shl", err)

    def __repr__(self):
        if self._ptr is None:
            return "<meshcontact.Mesh (closed)>"
        return f"<meshcontact.Mesh {self.triangle_count} triangles, {self.vertex_count} vertices>"


class _Callbacks:
    """Keeps a progress callback alive during a call and re-raises what it raised."""

    def __init__(self):
        self.error = None
        self.refs = []

    def wrap(self, fn):
        def call(fraction, _user):
            if self.error is None:
                try:
                    fn(fraction)
                except BaseException as exc:  # noqa: B902 - re-raised after the C call returns
                    self.error = exc

        w = t.PROGRESS_FCN(call)
        self.refs.append(w)
        return w

    def reraise(self):
        if self.error is not None:
            raise self.error


def _import_options(
    scale=1.0,
    weld_tolerance=0.0,
    flip=False,
    require_closed=True,
    self_check="refuse",
    max_bytes=None,
    max_triangles=None,
    chord_tolerance=0.0,
    angle_tolerance=None,
    brep_solid=-1,
    repair=None,
    progress=None,
):
    o = _lib.default_import_options()
    o.scale = scale
    o.weld_tolerance = weld_tolerance
    o.flip = bool(flip)
    o.require_closed = bool(require_closed)
    o.self_check = _self_check(self_check)
    if max_bytes is not None:
        o.max_bytes = max_bytes
    if max_triangles is not None:
        o.max_triangles = max_triangles
    o.chord_tolerance = chord_tolerance
    if angle_tolerance is not None:
        o.angle_tolerance = angle_tolerance
    o.brep_solid = brep_solid
    if repair is not None:
        o.repair = _repair_options(**repair)
    keep = _Callbacks()
    if progress is not None:
        o.progress = keep.wrap(progress)
    return o, keep


def check_file(path, **options):
    """Read a mesh file without requiring it to be usable for contact (mc_mesh_check_file) and return its
    MeshReport. Options as Mesh.load. Raises meshcontact.Error when the file cannot be read."""
    opts, keep = _import_options(**options)
    report = t.MeshReport()
    err = t.ErrorRecord()
    s = _lib.mesh_check_file(_path(path), byref(opts), byref(report), byref(err))
    keep.reraise()
    c.check(s, "mc_mesh_check_file", err, report)
    return t.record(report)


# ------------------------------------------------------------------------------------------------ primitives


def _count(n):
    n = int(n)
    if not 1 <= n <= 2**31:
        raise ValueError(f"triangles: a count in [1, 2^31], got {n}")
    return n


def _primitive_def(kind, dims, chord_tolerance, max_angle, max_triangles):
    d = _lib.default_primitive_def()
    try:
        d.type = PRIMITIVES[kind]
    except KeyError:
        raise ValueError(f"kind: one of {sorted(PRIMITIVES)}, got {kind!r}") from None
    if kind == "sphere" and np.ndim(dims) == 0:
        dims = (dims, dims, dims)
    d.dims = c.to_vec3(dims, "dims")
    if chord_tolerance is not None:
        d.chord_tolerance = chord_tolerance
    if max_angle is not None:
        d.max_angle = max_angle
    if max_triangles is not None:
        d.max_triangles = max_triangles
    return d


def _take_arrays(pos, nv, idx, nt):
    try:
        v = np.frombuffer((c_double * (3 * nv.value)).from_address(ctypes.cast(pos, ctypes.c_void_p).value), np.float64)
        f = np.frombuffer((c_uint32 * (3 * nt.value)).from_address(ctypes.cast(idx, ctypes.c_void_p).value), np.uint32)
        return v.reshape(-1, 3).copy(), f.reshape(-1, 3).copy()
    finally:
        _lib.free_arrays(pos, idx)


def tessellate(kind, dims, *, chord_tolerance=None, max_angle=None, max_triangles=None, triangles=None):
    """Tessellate a primitive into arrays (mc_primitive_tessellate, or with ``triangles`` the count-based
    mc_primitive_tessellate_count): returns (vertices (n, 3) float64, triangles (m, 3) uint32).

    kind and dims (body frame, length units): "box" (full edge lengths x, y, z, centred), "ellipsoid" (semi-axes),
    "sphere" (a radius, or semi-axes), "cylinder" (radius, unused, length; along z, centred), "frustum" (bottom
    radius at z = 0, top radius, height), "torus" (major radius, minor radius, unused). Defaults: chord tolerance
    1e-3, max_angle 15 degrees (radians), max_triangles 2^26."""
    d = _primitive_def(kind, dims, chord_tolerance, max_angle, max_triangles)
    pos, idx = ctypes.POINTER(c_double)(), ctypes.POINTER(c_uint32)()
    nv, nt = c_uint32(), c_uint32()
    err = t.ErrorRecord()
    if triangles is None:
        s = _lib.primitive_tessellate(byref(d), byref(pos), byref(nv), byref(idx), byref(nt), byref(err))
    else:
        s = _lib.primitive_tessellate_count(
            byref(d), _count(triangles), byref(pos), byref(nv), byref(idx), byref(nt), byref(err)
        )
    c.check(s, "mc_primitive_tessellate", err)
    return _take_arrays(pos, nv, idx, nt)


def box(x, y, z):
    """A box of full edge lengths x, y, z centred at the origin (12 triangles)."""
    return Mesh.primitive("box", (x, y, z))


def sphere(radius, **faceting):
    """A sphere (cube sphere) of the given radius; faceting: chord_tolerance, max_angle, max_triangles or triangles
    (about that many: exactly 12 n^2)."""
    return Mesh.primitive("sphere", radius, **faceting)


def ellipsoid(a, b, c_, **faceting):
    """An ellipsoid of semi-axes a, b, c along x, y, z."""
    return Mesh.primitive("ellipsoid", (a, b, c_), **faceting)


def cylinder(radius, length, **faceting):
    """A cylinder along z, centred, of the given radius and length."""
    return Mesh.primitive("cylinder", (radius, 0.0, length), **faceting)


def frustum(bottom_radius, top_radius, height, **faceting):
    """A truncated cone along z: bottom radius at z = 0, top radius at z = height."""
    return Mesh.primitive("frustum", (bottom_radius, top_radius, height), **faceting)


def torus(major_radius, minor_radius, **faceting):
    """A torus around z."""
    return Mesh.primitive("torus", (major_radius, minor_radius, 0.0), **faceting)


# ------------------------------------------------------------------------------------------------ repair


def _repair_options(
    flags="all",
    weld_tolerance=0.0,
    weld_distance=0.0,
    max_hole_edges=None,
    min_component_triangles=None,
    min_component_size=0.0,
):
    o = _lib.default_repair_options()
    if isinstance(flags, str):
        flags = [flags]
    if not isinstance(flags, int):
        bits = 0
        for name in flags:
            try:
                bits |= REPAIRS[name]
            except KeyError:
                raise ValueError(f"flags: names among {sorted(REPAIRS)}, got {name!r}") from None
        flags = bits
    o.flags = flags
    o.weld_tolerance = weld_tolerance
    o.weld_distance = weld_distance
    if max_hole_edges is not None:
        o.max_hole_edges = max_hole_edges
    if min_component_triangles is not None:
        o.min_component_triangles = min_component_triangles
    o.min_component_size = min_component_size
    return o


def repair(vertices, triangles, **options):
    """Repair a triangle soup so that it can become a closed mesh (mc_mesh_repair): returns (vertices, triangles,
    RepairReport). Options: flags (a name or list of names among "duplicates", "shared_faces", "loose_components",
    "orient", "holes", "pinches", "all" (the default), or the C bit mask), weld_tolerance, weld_distance,
    max_hole_edges, min_component_triangles, min_component_size (see mc_repair_options)."""
    v, _ = c.real_array(vertices, "vertices", (3,), single_ok=False)
    f = c.index_array(triangles, "triangles")
    o = _repair_options(**options)
    pos, idx = ctypes.POINTER(c_double)(), ctypes.POINTER(c_uint32)()
    nv, nt = c_uint32(), c_uint32()
    report = t.RepairReport()
    err = t.ErrorRecord()
    s = _lib.mesh_repair(
        byref(o), c.ptr(v), v.shape[0], c.ptr(f), f.shape[0], byref(pos), byref(nv), byref(idx), byref(nt),
        byref(report), byref(err),
    )  # fmt: skip
    c.check(s, "mc_mesh_repair", err)
    if nt.value == 0:
        _lib.free_arrays(pos, idx)
        return np.zeros((0, 3)), np.zeros((0, 3), np.uint32), t.record(report)
    v2, f2 = _take_arrays(pos, nv, idx, nt)
    return v2, f2, t.record(report)

