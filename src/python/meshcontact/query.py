# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Stateless queries between two meshes or shapes at given poses (query.h, shape.h): intersecting triangle pairs,
intersection regions, minimum distance, point containment, the exact orientation predicate.

Poses are [tx, ty, tz, qw, qx, qy, qz] (body to world, quaternion w first, normalised by the library) or
[tx, ty, tz]. Results are in the world frame. Regions and pairs come back as NumPy record arrays with the C layout
(REGION_DTYPE, TRIANGLE_PAIR_DTYPE): regions["volume"] is (n,), regions["centroid"] is (n, 3), and so on.
"""
import ctypes
import math
import threading
from ctypes import byref, c_uint32

import numpy as np

from . import _common as c
from . import _lib
from . import _types as t
from .mesh import Mesh

DEPTH = {"default": -1, "adams": 0, "volume_area": 1, "extent": 2, "smooth": 3}
DISTANCE_KINDS = ("separated", "beyond", "intersecting", "contained")


def depth_method(value):
    try:
        return DEPTH[value]
    except KeyError:
        raise ValueError(f"depth: one of {sorted(DEPTH)}, got {value!r}") from None


class Workspace(c.Owned):
    """Reusable scratch memory for queries (mc_workspace): one call at a time; it grows to the largest query served
    and then stops allocating. Queries without a workspace use one per Python thread, made on first use."""

    _destroy = staticmethod(_lib.workspace_destroy)

    def __init__(self):
        out = ctypes.c_void_p()
        c.check(_lib.workspace_create(byref(out)), "mc_workspace_create")
        self._ptr = out.value

    @property
    def byte_count(self):
        return int(_lib.workspace_get_byte_count(self._handle()))


_local = threading.local()


def _workspace(ws):
    if ws is not None:
        if not isinstance(ws, Workspace):
            raise TypeError(f"workspace: expected a Workspace, got {type(ws).__name__}")
        return ws._handle()
    w = getattr(_local, "workspace", None)
    if w is None:
        w = _local.workspace = Workspace()
    return w._handle()


def _options(depth, threads):
    o = _lib.default_query_options()
    o.depth_method = depth_method(depth)
    o.worker_count = int(threads)
    return o


class Shape:
    """A body geometry for shape queries and World bodies (mc_shape): a mesh, or an analytic sphere, plane (the
    half-space z <= 0 of its frame) or cylinder (along z, centred). ``flip``: a spherical socket, or a cylindrical
    hole (the material around the cylinder)."""

    def __init__(self, kind, mesh=None, radius=0.0, length=0.0, flip=False):
        if kind not in ("mesh", "sphere", "plane", "cylinder"):
            raise ValueError(f"kind: mesh, sphere, plane or cylinder, got {kind!r}")
        if (kind == "mesh") != (mesh is not None):
            raise ValueError("a mesh shape needs a mesh, and only it")
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"mesh: expected a Mesh, got {type(mesh).__name__}")
        self.kind, self.mesh, self.radius, self.length, self.flip = kind, mesh, float(radius), float(length), bool(flip)

    @classmethod
    def sphere(cls, radius, flip=False):
        return cls("sphere", radius=radius, flip=flip)

    @classmethod
    def plane(cls):
        return cls("plane")

    @classmethod
    def cylinder(cls, radius, length, flip=False):
        return cls("cylinder", radius=radius, length=length, flip=flip)

    @classmethod
    def of(cls, value):
        if isinstance(value, Shape):
            return value
        if isinstance(value, Mesh):
            return cls("mesh", mesh=value)
        raise TypeError(f"expected a Mesh or a Shape, got {type(value).__name__}")

    def _struct(self):
        if self.kind == "mesh":
            s = _lib.shape_mesh(self.mesh._handle())
        elif self.kind == "sphere":
            s = _lib.shape_sphere(self.radius)
        elif self.kind == "plane":
            s = _lib.shape_plane()
        else:
            s = _lib.shape_cylinder(self.radius, self.length)
        s.flip = self.flip
        return s

    def __repr__(self):
        if self.kind == "mesh":
            return f"Shape.mesh({self.mesh!r})"
        return f"Shape({self.kind!r}, radius={self.radius}, length={self.length}, flip={self.flip})"


def _grow(call, dtype, capacity, where):
    """Run a query that fills a caller buffer, growing the buffer once when the library says it needs more."""
    n = c_uint32()
    while True:
        buf = np.empty(capacity, dtype=dtype)
        s = call(c.ptr(buf), capacity, byref(n))
        if s == c.Status.CAPACITY and n.value > capacity:
            capacity = n.value
            continue
        c.check(s, where)
        return buf[: n.value]


def regions(a, pose_a, b, pose_b, *, depth="adams", threads=0, workspace=None, stats=False):
    """Intersection regions of two solids at their poses (mc_query_regions for two meshes, mc_query_shape_regions
    when either is a Shape), sorted by decreasing volume: a record array of REGION_DTYPE (volume, centroid, area,
    radius, normal from a into b, depth, point_i, point_j, s_i, s_j, crossings, inside_vertices). With stats=True,
    returns (regions, QueryStats)."""
    pa, pb = c.to_pose(pose_a, "pose_a"), c.to_pose(pose_b, "pose_b")
    opts = _options(depth, threads)
    st = t.QueryStats()
    if isinstance(a, Mesh) and isinstance(b, Mesh):
        ma, mb = a._handle(), b._handle()
        ws = _workspace(workspace)

        def call(buf, cap, n):
            return _lib.query_regions(ma, byref(pa), mb, byref(pb), byref(opts), ws, buf, cap, n, byref(st))

        where = "mc_query_regions"
    else:
        sa, sb = Shape.of(a)._struct(), Shape.of(b)._struct()
        ws = _workspace(workspace)

        def call(buf, cap, n):
            return _lib.query_shape_regions(byref(sa), byref(pa), byref(sb), byref(pb), byref(opts), ws, buf, cap, n,
                                            byref(st))  # fmt: skip

        where = "mc_query_shape_regions"
    out = _grow(call, t.REGION_DTYPE, 8, where)
    return (out, t.record(st)) if stats else out


def patches(mesh_a, pose_a, mesh_b, pose_b, *, manifold=4, depth="adams", threads=0, workspace=None):
    """Intersection regions of two meshes with their contact patches (mc_query_patches): (regions, patches), the
    regions as regions() gives them and, for each, a dict of its intersection curve ("loops": closed polylines as
    (m, 3) arrays, world frame), its reduced manifold ("manifold": (k, 3) points on the curve, k <= manifold,
    "depths": their depths) and "open_loops" (0 for consistent closed meshes)."""
    ma, mb = _mesh(mesh_a, "mesh_a")._handle(), _mesh(mesh_b, "mesh_b")._handle()
    pa, pb = c.to_pose(pose_a, "pose_a"), c.to_pose(pose_b, "pose_b")
    opts = _options(depth, threads)
    st = t.QueryStats()
    ws = _workspace(workspace)
    n = c_uint32()
    capacity = 8
    while True:
        buf = np.empty(capacity, dtype=t.REGION_DTYPE)
        pat = (t.Patch * capacity)()
        s = _lib.query_patches(ma, byref(pa), mb, byref(pb), byref(opts), int(manifold), ws, c.ptr(buf), pat,
                               capacity, byref(n), byref(st))  # fmt: skip
        if s == c.Status.CAPACITY and n.value > capacity:
            capacity = n.value
            continue
        c.check(s, "mc_query_patches")
        return buf[: n.value], [c.patch_dict(pat[k]) for k in range(n.value)]


def triangle_pairs(mesh_a, pose_a, mesh_b, pose_b, *, threads=0, workspace=None, stats=False):
    """Every intersecting triangle pair of two meshes at their poses (mc_query_triangle_pairs), sorted by (i, j): a
    record array of TRIANGLE_PAIR_DTYPE (i, j, crossing[2] with point (world frame), body, edge, entering,
    degenerate). With stats=True, returns (pairs, QueryStats)."""
    ma, mb = _mesh(mesh_a, "mesh_a")._handle(), _mesh(mesh_b, "mesh_b")._handle()
    pa, pb = c.to_pose(pose_a, "pose_a"), c.to_pose(pose_b, "pose_b")
    opts = _options("adams", threads)
    st = t.QueryStats()
    ws = _workspace(workspace)

    def call(buf, cap, n):
        return _lib.query_triangle_pairs(ma, byref(pa), mb, byref(pb), byref(opts), ws, buf, cap, n, byref(st))

    out = _grow(call, t.TRIANGLE_PAIR_DTYPE, 64, "mc_query_triangle_pairs")
    return (out, t.record(st)) if stats else out


def distance(mesh_a, pose_a, mesh_b, pose_b, *, max_distance=math.inf, threads=0, workspace=None):
    """Minimum distance between two closed meshes (0 when they intersect or one contains the other) with its closest
    points and triangles (mc_query_distance): a DistanceResult (distance, point_i, point_j, triangle_i, triangle_j,
    kind: an index into DISTANCE_KINDS, box_tests, triangle_tests). max_distance > 0 stops early ("beyond")."""
    ma, mb = _mesh(mesh_a, "mesh_a")._handle(), _mesh(mesh_b, "mesh_b")._handle()
    pa, pb = c.to_pose(pose_a, "pose_a"), c.to_pose(pose_b, "pose_b")
    opts = _options("adams", threads)
    r = t.DistanceResult()
    s = _lib.query_distance(ma, byref(pa), mb, byref(pb), max_distance, byref(opts), _workspace(workspace), byref(r))
    c.check(s, "mc_query_distance")
    return t.record(r)


def nodal_forces(flex, pose_flex, other, pose_other, regions, forces):
    """The regions' forces on a deformable mesh distributed to its nodes (mc_nodal_forces, Adams' rule for flexible
    bodies): the vertices of ``flex`` inside ``other``, each region's force shared in proportion to their
    penetrations (a region without an inside vertex gives its force to the three vertices of the nearest flex
    triangle). ``regions`` is the record array of regions() for the pair (either order), ``forces`` the (n, 3) forces
    on ``flex`` (world frame), one per region. Returns (nodal, moment_lost): a record array of NODAL_FORCE_DTYPE
    (vertex, region, penetration, force: the inside nodes by increasing vertex, then three entries per vertex-free
    region) whose forces sum per region to ``forces``, and the (n, 3) couples that would restore each region's moment
    about its centroid (see flex.h)."""
    fm, om = _mesh(flex, "flex")._handle(), _mesh(other, "other")._handle()
    pf, po = c.to_pose(pose_flex, "pose_flex"), c.to_pose(pose_other, "pose_other")
    reg = np.ascontiguousarray(regions)
    if reg.dtype != t.REGION_DTYPE or reg.ndim != 1:
        raise TypeError("regions: expected a 1-d record array of REGION_DTYPE (as regions() returns)")
    f, _ = c.real_array(forces, "forces", (3,), single_ok=False)
    if f.shape[0] != reg.shape[0]:
        raise ValueError(f"forces: expected shape ({reg.shape[0]}, 3), got {f.shape}")
    lost = np.zeros((reg.shape[0], 3))
    n = c_uint32()
    capacity = 64
    while True:
        buf = np.empty(capacity, dtype=t.NODAL_FORCE_DTYPE)
        s = _lib.nodal_forces(fm, byref(pf), om, byref(po), c.ptr(reg), c.ptr(f), reg.shape[0], c.ptr(buf), capacity,
                              byref(n), c.ptr(lost))  # fmt: skip
        if s == c.Status.CAPACITY:
            capacity = n.value + 3 * reg.shape[0]
            continue
        c.check(s, "mc_nodal_forces")
        return buf[: n.value], lost


def contains(mesh, points):
    """Exact point-in-solid test in the mesh's body frame (Mesh.contains)."""
    return _mesh(mesh, "mesh").contains(points)


def orient3d(a, b, c_, d):
    """The exact sign (+1, 0, -1) of det[b - a, c - a, d - a] (mc_orient3d)."""
    v = [c.to_vec3(x, name) for x, name in ((a, "a"), (b, "b"), (c_, "c"), (d, "d"))]
    return int(_lib.orient3d(*v))


def _mesh(value, name):
    if not isinstance(value, Mesh):
        raise TypeError(f"{name}: expected a Mesh, got {type(value).__name__}")
    return value
