# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""ctypes mirrors of the C structs of include/meshcontact/*.h, and NumPy dtypes with the same layout.

Every class here has the same fields, in the same order and with the same C types, as the struct named by its
``_c_name_``. tests/python/test_layout.py checks that against the compiler (sizeof and offsetof of every field, printed
by tests/python/layout.c) and against the headers (the field names in order), so a struct change in C fails a test
instead of corrupting memory: change the mirror here in the same commit.
"""
import ctypes
from ctypes import (
    POINTER,
    c_bool,
    c_char,
    c_double,
    c_int,
    c_int8,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)

import numpy as np

c_enum = c_int  # C enums of the API: every value fits an int, so the compiler gives them the size of int


class Struct(ctypes.Structure):
    """Base of the mirrors: readable repr, and to_dict() for printing or comparing."""

    _c_name_ = None

    def to_dict(self):
        """The fields as a dict (nested structs as dicts, vectors as tuples, arrays as lists)."""
        out = {}
        for name, _ in self._fields_:
            out[name] = _plain(getattr(self, name))
        return out

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"{type(self).__name__}({body})"


def _plain(value):
    if isinstance(value, Vec3):
        return (value.x, value.y, value.z)
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, ctypes.Array):
        if value._type_ is c_char:
            return value.value.decode("utf-8", "replace")
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


class Vec3(Struct):
    """mc_vec3: a 3-vector (records give it as a float64 array of shape (3,))."""

    _c_name_ = "mc_vec3"
    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double)]

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __repr__(self):
        return f"Vec3({self.x!r}, {self.y!r}, {self.z!r})"


class Record:
    """A result struct as a plain Python object (a copy): its fields as attributes, each mc_vec3 as a float64 array
    of shape (3,), nested structs as Records, fixed arrays as NumPy arrays. to_dict() gives the fields as a dict."""

    def __init__(self, struct):
        self._c_name_ = struct._c_name_
        for name, ftype in struct._fields_:
            setattr(self, name, _value(getattr(struct, name), ftype))

    def to_dict(self):
        return {k: (v.to_dict() if isinstance(v, Record) else v) for k, v in vars(self).items() if k != "_c_name_"}

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"{self._c_name_}({body})"

    def __eq__(self, other):
        return isinstance(other, Record) and repr(self) == repr(other)


def _value(value, ftype):
    if ftype is Vec3:
        return np.array((value.x, value.y, value.z))
    if ftype is Mat33:
        return np.ctypeslib.as_array(value.m).copy()
    if isinstance(value, Struct):
        return Record(value)
    if isinstance(value, ctypes.Array):
        return np.ctypeslib.as_array(value).copy()
    return value


def record(struct):
    """A Record copy of a result struct."""
    return Record(struct)


class Quat(Struct):
    _c_name_ = "mc_quat"
    _fields_ = [("w", c_double), ("x", c_double), ("y", c_double), ("z", c_double)]


class Mat33(Struct):
    """mc_mat33: 3 x 3 doubles, row major (records give it as a float64 array of shape (3, 3))."""

    _c_name_ = "mc_mat33"
    _fields_ = [("m", (c_double * 3) * 3)]


class MassProperties(Struct):
    _c_name_ = "mc_mass_properties"
    _fields_ = [
        ("volume", c_double),
        ("mass", c_double),
        ("centroid", Vec3),
        ("inertia", Mat33),
        ("principal_moments", Vec3),
        ("principal_axes", Mat33),
        ("principal_rotation", Quat),
    ]


class Pose(Struct):
    """mc_pose: 7 doubles, tx ty tz qw qx qy qz (the layout of a pose row in the NumPy API)."""

    _c_name_ = "mc_pose"
    _fields_ = [("p", Vec3), ("q", Quat)]


class Twist(Struct):
    """mc_twist: 6 doubles, vx vy vz wx wy wz."""

    _c_name_ = "mc_twist"
    _fields_ = [("v", Vec3), ("w", Vec3)]


class Wrench(Struct):
    """mc_wrench: 6 doubles, fx fy fz tx ty tz."""

    _c_name_ = "mc_wrench"
    _fields_ = [("force", Vec3), ("torque", Vec3)]


class Version(Struct):
    _c_name_ = "mc_version"
    _fields_ = [("major", c_int), ("minor", c_int), ("patch", c_int)]


class ErrorRecord(Struct):
    _c_name_ = "mc_error"
    _fields_ = [
        ("status", c_enum),
        ("index", c_int64),
        ("line", c_int64),
        ("offset", c_int64),
        ("message", c_char * 512),
    ]


# ---------------------------------------------------------------------------------------------------------- mesh.h


class RepairOptions(Struct):
    _c_name_ = "mc_repair_options"
    _fields_ = [
        ("flags", c_uint32),
        ("weld_tolerance", c_double),
        ("weld_distance", c_double),
        ("max_hole_edges", c_uint32),
        ("min_component_triangles", c_uint32),
        ("min_component_size", c_double),
        ("internal_value", c_int),
    ]


class RepairReport(Struct):
    """mc_repair_report: what mc_mesh_repair changed (see mesh.h for each count)."""

    _c_name_ = "mc_repair_report"
    _fields_ = [("ran", c_bool), ("weld_distance", c_double)] + [
        (name, c_uint32)
        for name in (
            "welded_vertices",
            "collapsed_triangles",
            "duplicate_triangles",
            "back_to_back_triangles",
            "shared_face_triangles",
            "loose_components",
            "loose_triangles",
            "flipped_triangles",
            "unorientable_patches",
            "reversed_components",
            "filled_holes",
            "fill_triangles",
            "unfilled_holes",
            "largest_unfilled_hole",
            "split_vertices",
            "split_edges",
        )
    ]


class MeshReport(Struct):
    """mc_mesh_report: what the checks found in a mesh (see mesh.h for each field)."""

    _c_name_ = "mc_mesh_report"
    _fields_ = [
        ("input_vertices", c_uint32),
        ("input_triangles", c_uint32),
        ("vertices", c_uint32),
        ("triangles", c_uint32),
        ("welded_vertices", c_uint32),
        ("degenerate_triangles", c_uint32),
        ("dropped_triangles", c_uint32),
        ("boundary_edges", c_uint32),
        ("nonmanifold_edges", c_uint32),
        ("misoriented_edges", c_uint32),
        ("components", c_uint32),
        ("closed", c_bool),
        ("manifold", c_bool),
        ("oriented", c_bool),
        ("reoriented", c_bool),
        ("flipped", c_bool),
        ("signed_volume_as_read", c_double),
        ("volume", c_double),
        ("area", c_double),
        ("bbox_min", Vec3),
        ("bbox_max", Vec3),
        ("scale", c_double),
        ("pinched_vertices", c_uint32),
        ("split_polygons", c_uint32),
        ("repaired_triangles", c_uint32),
        ("contact_ready", c_bool),
        ("inward_components", c_uint32),
        ("reoriented_shells", c_uint32),
        ("trailing_bytes", c_uint64),
        ("self_checked", c_bool),
        ("self_check_accepted", c_bool),
        ("self_intersecting_pairs", c_uint64),
        ("self_intersection_sample", c_uint32 * 2),
        ("cavity_components", c_uint32),
        ("nested_components", c_uint32),
        ("inverted_components", c_uint32),
        ("nesting_sample_triangle", c_uint32),
        ("brep_solids", c_uint32),
        ("brep_surfaces", c_uint32),
        ("brep_volume", c_double),
        ("repair", RepairReport),
    ]


class MeshDef(Struct):
    _c_name_ = "mc_mesh_def"
    _fields_ = [
        ("positions", c_void_p),
        ("position_stride", c_size_t),
        ("vertex_count", c_uint32),
        ("indices", c_void_p),
        ("triangle_count", c_uint32),
        ("scale", c_double),
        ("weld_tolerance", c_double),
        ("flip", c_bool),
        ("require_closed", c_bool),
        ("internal_value", c_int),
        ("self_check", c_enum),
    ]


PROGRESS_FCN = ctypes.CFUNCTYPE(None, c_double, c_void_p)


class ImportOptions(Struct):
    _c_name_ = "mc_import_options"
    _fields_ = [
        ("scale", c_double),
        ("weld_tolerance", c_double),
        ("flip", c_bool),
        ("require_closed", c_bool),
        ("self_check", c_enum),
        ("progress", PROGRESS_FCN),
        ("progress_user", c_void_p),
        ("max_bytes", c_uint64),
        ("max_triangles", c_uint64),
        ("chord_tolerance", c_double),
        ("angle_tolerance", c_double),
        ("brep_solid", c_int32),
        ("repair", RepairOptions),
    ]


class PrimitiveDef(Struct):
    _c_name_ = "mc_primitive_def"
    _fields_ = [
        ("type", c_enum),
        ("dims", Vec3),
        ("chord_tolerance", c_double),
        ("max_angle", c_double),
        ("max_triangles", c_uint64),
        ("internal_value", c_int),
    ]


# --------------------------------------------------------------------------------------------- query.h, shape.h


class QueryOptions(Struct):
    _c_name_ = "mc_query_options"
    _fields_ = [("worker_count", c_int), ("depth_method", c_enum), ("internal_value", c_int)]


class Crossing(Struct):
    _c_name_ = "mc_crossing"
    _fields_ = [("point", Vec3), ("body", c_uint8), ("edge", c_uint8), ("entering", c_int8), ("degenerate", c_uint8)]


class TrianglePair(Struct):
    _c_name_ = "mc_triangle_pair"
    _fields_ = [("i", c_uint32), ("j", c_uint32), ("crossing", Crossing * 2)]


class QueryStats(Struct):
    """mc_query_stats: counters of one query (see query.h)."""

    _c_name_ = "mc_query_stats"
    _fields_ = [
        ("box_tests", c_uint64),
        ("triangle_tests", c_uint64),
        ("triangle_pairs", c_uint64),
        ("crossings", c_uint64),
        ("inside_vertices", c_uint64),
        ("regions", c_uint32),
        ("touching_regions", c_uint32),
        ("threads", c_int),
        ("seconds_pairs", c_double),
        ("seconds_regions", c_double),
        ("certified_reuse", c_uint32),
    ]


class Region(Struct):
    _c_name_ = "mc_region"
    _fields_ = [
        ("volume", c_double),
        ("centroid", Vec3),
        ("area", c_double),
        ("radius", c_double),
        ("normal", Vec3),
        ("depth", c_double),
        ("point_i", Vec3),
        ("point_j", Vec3),
        ("s_i", Vec3),
        ("s_j", Vec3),
        ("crossings", c_uint32),
        ("inside_vertices", c_uint32),
    ]


class MeshDeformInfo(Struct):
    """mc_mesh_deform_info: what mc_mesh_set_positions has done to a mesh's tree (mesh.h)."""

    _c_name_ = "mc_mesh_deform_info"
    _fields_ = [
        ("refits", c_uint32),
        ("rebuilds", c_uint32),
        ("tree_cost", c_double),
        ("tree_cost_built", c_double),
        ("version", c_uint64),
    ]


class NodalForce(Struct):
    """mc_nodal_force: one node's share of one region's force (flex.h)."""

    _c_name_ = "mc_nodal_force"
    _fields_ = [
        ("vertex", c_uint32),
        ("region", c_uint32),
        ("penetration", c_double),
        ("force", Vec3),
    ]


class DistanceResult(Struct):
    """mc_distance_result: minimum distance, closest points (world frame), triangles, kind (see query.h)."""

    _c_name_ = "mc_distance_result"
    _fields_ = [
        ("distance", c_double),
        ("point_i", Vec3),
        ("point_j", Vec3),
        ("triangle_i", c_uint32),
        ("triangle_j", c_uint32),
        ("kind", c_enum),
        ("box_tests", c_uint64),
        ("triangle_tests", c_uint64),
    ]


class ShapeStruct(Struct):
    _c_name_ = "mc_shape"
    _fields_ = [("type", c_enum), ("mesh", c_void_p), ("radius", c_double), ("length", c_double), ("flip", c_bool)]


# ---------------------------------------------------------------------------------------------------------- world.h


class ContactKinematics(Struct):
    """mc_contact_kinematics: one region's kinematics as the force laws see them (world frame, see world.h)."""

    _c_name_ = "mc_contact_kinematics"
    _fields_ = [
        ("depth", c_double),
        ("rate", c_double),
        ("area", c_double),
        ("volume", c_double),
        ("radius", c_double),
        ("point", Vec3),
        ("normal", Vec3),
        ("slip_velocity", Vec3),
        ("spin_rate", c_double),
    ]


class ForceModelStruct(Struct):
    _c_name_ = "mc_force_model"


NORMAL_FCN = ctypes.CFUNCTYPE(c_double, POINTER(ContactKinematics), POINTER(ForceModelStruct), c_void_p)
FRICTION_FCN = ctypes.CFUNCTYPE(
    None, POINTER(ContactKinematics), c_double, POINTER(ForceModelStruct), c_void_p, POINTER(Vec3), POINTER(Vec3)
)

ForceModelStruct._fields_ = [
    ("normal_law", c_enum),
    ("stiffness", c_double),
    ("exponent", c_double),
    ("damping", c_double),
    ("dmax", c_double),
    ("penalty", c_double),
    ("restitution", c_double),
    ("normal_transition_velocity", c_double),
    ("friction", c_enum),
    ("mu_static", c_double),
    ("mu_dynamic", c_double),
    ("stiction_velocity", c_double),
    ("friction_velocity", c_double),
    ("stiction", c_bool),
    ("max_stiction_deformation", c_double),
    ("normal_fcn", NORMAL_FCN),
    ("friction_fcn", FRICTION_FCN),
    ("user_data", c_void_p),
    ("damping_exponent", c_double),
    ("indentation_exponent", c_double),
    ("rebound_damping_factor", c_double),
    ("max_penetration", c_double),
    ("dissipation", c_double),
    ("stiffness_curve", c_void_p),
    ("damping_curve", c_void_p),
    ("friction_curve", c_void_p),
    ("friction_curve_kind", c_enum),
    ("internal_value", c_int),
]


class ContactForce(Struct):
    """mc_contact_force: the forces of one region on body J (see world.h)."""

    _c_name_ = "mc_contact_force"
    _fields_ = [
        ("normal_force", c_double),
        ("friction_force", Vec3),
        ("friction_torque", Vec3),
        ("friction_coefficient", c_double),
        ("slip_speed", c_double),
        ("rejected", c_bool),
    ]


class BodyId(Struct):
    _c_name_ = "mc_body_id"
    _fields_ = [("index1", c_int32), ("generation", c_uint32)]


class ContactId(Struct):
    _c_name_ = "mc_contact_id"
    _fields_ = [("index1", c_int32), ("generation", c_uint32)]


class WorldDef(Struct):
    _c_name_ = "mc_world_def"
    _fields_ = [
        ("worker_count", c_int),
        ("depth_method", c_enum),
        ("body_capacity", c_uint32),
        ("contact_capacity", c_uint32),
        ("region_capacity", c_uint32),
        ("coherence", c_bool),
        ("internal_value", c_int),
    ]


class BodyDef(Struct):
    _c_name_ = "mc_body_def"
    _fields_ = [
        ("mesh", c_void_p),
        ("shape", ShapeStruct),
        ("pose", Pose),
        ("velocity", Twist),
        ("flip", c_bool),
        ("user_data", c_void_p),
        ("internal_value", c_int),
    ]


class BodyPair(Struct):
    _c_name_ = "mc_body_pair"
    _fields_ = [("a", BodyId), ("b", BodyId)]


class ContactDef(Struct):
    _c_name_ = "mc_contact_def"
    _fields_ = [
        ("i_bodies", c_void_p),
        ("i_count", c_uint32),
        ("j_bodies", c_void_p),
        ("j_count", c_uint32),
        ("mode", c_enum),
        ("excluded_pairs", c_void_p),
        ("excluded_count", c_uint32),
        ("model", ForceModelStruct),
        ("depth_method", c_enum),
        ("user_data", c_void_p),
        ("internal_value", c_int),
    ]


class ContactRegion(Struct):
    _c_name_ = "mc_contact_region"
    _fields_ = [
        ("contact", ContactId),
        ("body_i", BodyId),
        ("body_j", BodyId),
        ("region", Region),
        ("rate", c_double),
        ("slip_velocity", Vec3),
        ("slip_speed", c_double),
        ("spin_rate", c_double),
        ("normal_force", c_double),
        ("friction_force", Vec3),
        ("friction_torque", Vec3),
        ("friction_coefficient", c_double),
        ("rejected", c_bool),
        ("depth_off_region", c_bool),
        ("sticking", c_bool),
        ("creep", Vec3),
    ]


class StepInfo(Struct):
    """mc_step_info: counters and timings of the last evaluation (see world.h)."""

    _c_name_ = "mc_step_info"
    _fields_ = [
        ("flags", c_uint32),
        ("defined_pairs", c_uint32),
        ("candidate_pairs", c_uint32),
        ("touching_pairs", c_uint32),
        ("regions", c_uint32),
        ("rejected_regions", c_uint32),
        ("off_region_depths", c_uint32),
        ("reused_pairs", c_uint32),
        ("box_tests", c_uint64),
        ("triangle_tests", c_uint64),
        ("triangle_pairs", c_uint64),
        ("threads", c_int),
        ("seconds_total", c_double),
        ("seconds_broadphase", c_double),
        ("seconds_queries", c_double),
        ("seconds_forces", c_double),
        ("seconds_pairs", c_double),
        ("seconds_regions", c_double),
        ("evaluations", c_uint64),
        ("certified_pairs", c_uint32),
        ("planned_pairs", c_uint32),
        ("broad_pairs", c_uint32),
        ("broad_rebuilt", c_uint32),
        ("broad_moved", c_uint32),
        ("sleeping_bodies", c_uint32),
        ("woken_bodies", c_uint32),
        ("sleeping_pairs", c_uint32),
        ("restored_pairs", c_uint32),
    ]


class WorldCapacity(Struct):
    """mc_world_capacity: the largest counts a world has needed (see world.h)."""

    _c_name_ = "mc_world_capacity"
    _fields_ = [
        ("body_count", c_uint32),
        ("contact_count", c_uint32),
        ("pair_count", c_uint32),
        ("region_count", c_uint32),
        ("pair_region_count", c_uint32),
        ("workspace_bytes", c_size_t),
    ]


class JacobianBlock(Struct):
    _c_name_ = "mc_jacobian_block"
    _fields_ = [
        ("contact", ContactId),
        ("body_i", BodyId),
        ("body_j", BodyId),
        ("regions", c_uint32),
        ("flags", c_uint32),
        ("stiffness", c_double * 12 * 12),
        ("damping", c_double * 12 * 12),
    ]


class ManifoldPoint(Struct):
    _c_name_ = "mc_manifold_point"
    _fields_ = [("point", Vec3), ("depth", c_double)]


class Patch(Struct):
    """mc_patch: a region's intersection curve (views into library memory) and its reduced manifold (query.h)."""

    _c_name_ = "mc_patch"
    _fields_ = [
        ("points", c_void_p),
        ("loop_ends", c_void_p),
        ("point_count", c_uint32),
        ("loop_count", c_uint32),
        ("open_loops", c_uint32),
        ("manifold_count", c_uint32),
        ("manifold", ManifoldPoint * 8),
    ]


class ContactEvent(Struct):
    _c_name_ = "mc_contact_event"
    _fields_ = [
        ("contact", ContactId),
        ("body_i", BodyId),
        ("body_j", BodyId),
        ("type", c_int),
        ("first_region", c_uint32),
        ("regions", c_uint32),
    ]


# Every mirror, by its C name (the layout test walks this list).
MIRRORS = {
    cls._c_name_: cls
    for cls in (
        Vec3,
        Quat,
        Mat33,
        MassProperties,
        Pose,
        Twist,
        Wrench,
        Version,
        ErrorRecord,
        RepairOptions,
        RepairReport,
        MeshReport,
        MeshDef,
        ImportOptions,
        PrimitiveDef,
        QueryOptions,
        Crossing,
        TrianglePair,
        QueryStats,
        Region,
        MeshDeformInfo,
        NodalForce,
        DistanceResult,
        ShapeStruct,
        ContactKinematics,
        ForceModelStruct,
        ContactForce,
        BodyId,
        ContactId,
        WorldDef,
        BodyDef,
        BodyPair,
        ContactDef,
        ContactRegion,
        StepInfo,
        WorldCapacity,
        JacobianBlock,
        ManifoldPoint,
        Patch,
        ContactEvent,
    )
}

# ------------------------------------------------------------------------------------------------ NumPy dtypes
# Record arrays that the library fills directly (regions, triangle pairs, contact regions, Jacobian blocks). Their
# dtypes are derived from the mirrors (same offsets and item size), with two conveniences: an mc_vec3 field is a
# float64 subarray of shape (3,) (so regions["centroid"] is an (n, 3) array), and a body or contact id is one uint64,
# the 8 bytes of the id read as an integer: the same number as the ids World returns (0: the null id).


def _dtype_of(ctype):
    if ctype is Vec3:
        return np.dtype((np.float64, (3,)))
    if ctype in (BodyId, ContactId):
        return np.dtype(np.uint64)
    if isinstance(ctype, type) and issubclass(ctype, ctypes.Structure):
        names, formats, offsets = [], [], []
        for name, field_type in ctype._fields_:
            names.append(name)
            formats.append(_dtype_of(field_type))
            offsets.append(getattr(ctype, name).offset)
        return np.dtype(
            {"names": names, "formats": formats, "offsets": offsets, "itemsize": ctypes.sizeof(ctype)}
        )
    if isinstance(ctype, type) and issubclass(ctype, ctypes.Array):
        base = _dtype_of(ctype._type_)
        return np.dtype((base, (ctype._length_,)))
    return np.dtype(ctype)


REGION_DTYPE = _dtype_of(Region)
TRIANGLE_PAIR_DTYPE = _dtype_of(TrianglePair)
CONTACT_REGION_DTYPE = _dtype_of(ContactRegion)
JACOBIAN_DTYPE = _dtype_of(JacobianBlock)
NODAL_FORCE_DTYPE = _dtype_of(NodalForce)

# The array layouts of poses, twists and wrenches: rows of 7, 6 and 6 float64, which is exactly mc_pose, mc_twist and
# mc_wrench (checked by the layout test).
POSE_SIZE = ctypes.sizeof(Pose) // 8
TWIST_SIZE = ctypes.sizeof(Twist) // 8
WRENCH_SIZE = ctypes.sizeof(Wrench) // 8
