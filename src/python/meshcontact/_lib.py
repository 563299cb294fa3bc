# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Loading libmeshcontact and declaring the C functions the package calls (argument and result types).

Where the library comes from, first found wins:
1. the environment variable MESHCONTACT_LIBRARY: a path to the shared library (the tests point it at the build
   tree's libmeshcontact.so); when it is set, nothing else is tried;
2. the library Meson installed with this package (_config.py, written by Meson at install: the install libdir);
3. ctypes.util.find_library("meshcontact") (the system's library path, e.g. after ldconfig).
"""
import ctypes
import ctypes.util
import os
from ctypes import POINTER, c_bool, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint32, c_uint64, c_void_p

from . import _types as t

# The major version of the C API that the mirrors in _types.py describe.
API_MAJOR = 0


def _candidates():
    env = os.environ.get("MESHCONTACT_LIBRARY")
    if env:
        return [env], True
    found = []
    try:
        from . import _config  # written by Meson at install; absent in the source tree
    except ImportError:
        _config = None
    if _config is not None:
        found += [os.path.join(_config.LIBDIR, name) for name in _config.LIBRARY_NAMES]
    name = ctypes.util.find_library("meshcontact")
    if name:
        found.append(name)
    return found, False


def _load():
    paths, explicit = _candidates()
    errors = []
    for path in paths:
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            errors.append(f"{path}: {exc}")
    if explicit:
        raise ImportError(f"meshcontact: MESHCONTACT_LIBRARY={paths[0]} cannot be loaded: {errors[0]}")
    tried = "; ".join(errors) if errors else "no installed library found"
    raise ImportError(
        "meshcontact: cannot find libmeshcontact (" + tried + "). Build it with Meson and set MESHCONTACT_LIBRARY to "
        "the path of libmeshcontact.so, or install it (meson install) so that this package finds it."
    )


lib = _load()
path = lib._name


# The C functions the package declares (tests/python/test_layout.py checks them against the headers' MC_API list).
bound = []


def _fn(name, restype, *argtypes):
    bound.append(name)
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = POINTER
status = c_int
vp = c_void_p

# base.h
get_version = _fn("mc_get_version", t.Version)
status_string = _fn("mc_status_string", c_char_p, c_int)
get_byte_count = _fn("mc_get_byte_count", c_int64)
LOG_FCN = ctypes.CFUNCTYPE(None, c_char_p)
ASSERT_FCN = ctypes.CFUNCTYPE(c_int, c_char_p, c_char_p, c_int)
set_log_fcn = _fn("mc_set_log_fcn", None, LOG_FCN)
set_assert_fcn = _fn("mc_set_assert_fcn", None, ASSERT_FCN)

# mesh.h
default_repair_options = _fn("mc_default_repair_options", t.RepairOptions)
mesh_repair = _fn(
    "mc_mesh_repair",
    status,
    P(t.RepairOptions),
    vp,
    c_uint32,
    vp,
    c_uint32,
    P(P(c_double)),
    P(c_uint32),
    P(P(c_uint32)),
    P(c_uint32),
    P(t.RepairReport),
    P(t.ErrorRecord),
)
default_mesh_def = _fn("mc_default_mesh_def", t.MeshDef)
# mass.h
mesh_get_mass_properties = _fn(
    "mc_mesh_get_mass_properties", status, vp, c_double, P(t.MassProperties), P(t.ErrorRecord)
)
mass_properties_combine = _fn(
    "mc_mass_properties_combine", status, P(t.MassProperties), P(t.Pose), c_uint32, P(t.MassProperties),
    P(t.ErrorRecord)
)
mesh_create_transformed = _fn(
    "mc_mesh_create_transformed", status, vp, P(t.Pose), c_double, c_int, P(vp), P(t.MeshReport), P(t.ErrorRecord)
)
mesh_create = _fn("mc_mesh_create", status, P(t.MeshDef), P(vp), P(t.MeshReport), P(t.ErrorRecord))
mesh_destroy = _fn("mc_mesh_destroy", status, vp)
default_import_options = _fn("mc_default_import_options", t.ImportOptions)
mesh_import_file = _fn(
    "mc_mesh_import_file", status, c_char_p, P(t.ImportOptions), P(vp), P(t.MeshReport), P(t.ErrorRecord)
)
mesh_check_file = _fn("mc_mesh_check_file", status, c_char_p, P(t.ImportOptions), P(t.MeshReport), P(t.ErrorRecord))
mesh_get_report = _fn("mc_mesh_get_report", P(t.MeshReport), vp)
mesh_get_vertex_count = _fn("mc_mesh_get_vertex_count", c_uint32, vp)
mesh_get_triangle_count = _fn("mc_mesh_get_triangle_count", c_uint32, vp)
mesh_get_positions = _fn("mc_mesh_get_positions", vp, vp)
mesh_get_indices = _fn("mc_mesh_get_indices", vp, vp)
mesh_get_byte_count = _fn("mc_mesh_get_byte_count", c_size_t, vp)
mesh_write_stl = _fn("mc_mesh_write_stl", status, vp, c_char_p, P(t.ErrorRecord))
mesh_write_shl = _fn("mc_mesh_write_shl", status, vp, c_char_p, c_double, P(t.ErrorRecord))
default_primitive_def = _fn("mc_default_primitive_def", t.PrimitiveDef)
primitive_tessellate = _fn(
    "mc_primitive_tessellate",
    status,
    P(t.PrimitiveDef),
    P(P(c_double)),
    P(c_uint32),
    P(P(c_uint32)),
    P(c_uint32),
    P(t.ErrorRecord),
)
primitive_tessellate_count = _fn(
    "mc_primitive_tessellate_count",
    status,
    P(t.PrimitiveDef),
    c_uint32,
    P(P(c_double)),
    P(c_uint32),
    P(P(c_uint32)),
    P(c_uint32),
    P(t.ErrorRecord),
)
mesh_create_primitive = _fn("mc_mesh_create_primitive", status, P(t.PrimitiveDef), P(vp), P(t.ErrorRecord))
mesh_create_primitive_count = _fn(
    "mc_mesh_create_primitive_count", status, P(t.PrimitiveDef), c_uint32, P(vp), P(t.ErrorRecord)
)
free_arrays = _fn("mc_free_arrays", None, P(c_double), P(c_uint32))

# query.h, shape.h
workspace_create = _fn("mc_workspace_create", status, P(vp))
workspace_destroy = _fn("mc_workspace_destroy", None, vp)
workspace_get_byte_count = _fn("mc_workspace_get_byte_count", c_size_t, vp)
default_query_options = _fn("mc_default_query_options", t.QueryOptions)
query_triangle_pairs = _fn(
    "mc_query_triangle_pairs",
    status,
    vp,
    P(t.Pose),
    vp,
    P(t.Pose),
    P(t.QueryOptions),
    vp,
    vp,
    c_uint32,
    P(c_uint32),
    P(t.QueryStats),
)
query_regions = _fn(
    "mc_query_regions",
    status,
    vp,
    P(t.Pose),
    vp,
    P(t.Pose),
    P(t.QueryOptions),
    vp,
    vp,
    c_uint32,
    P(c_uint32),
    P(t.QueryStats),
)
query_distance = _fn(
    "mc_query_distance", status, vp, P(t.Pose), vp, P(t.Pose), c_double, P(t.QueryOptions), vp, P(t.DistanceResult)
)
mesh_prepare_regions = _fn("mc_mesh_prepare_regions", status, vp)
mesh_set_positions = _fn("mc_mesh_set_positions", status, vp, vp, c_uint32, P(t.ErrorRecord))
mesh_get_deform_info = _fn("mc_mesh_get_deform_info", t.MeshDeformInfo, vp)
mesh_count_self_intersections = _fn("mc_mesh_count_self_intersections", status, vp, P(c_uint64), P(c_uint32))
# flex.h
nodal_forces = _fn(
    "mc_nodal_forces",
    status,
    vp,
    P(t.Pose),
    vp,
    P(t.Pose),
    vp,
    vp,
    c_uint32,
    vp,
    c_uint32,
    P(c_uint32),
    vp,
)
mesh_contains_point = _fn("mc_mesh_contains_point", c_bool, vp, t.Vec3)
orient3d = _fn("mc_orient3d", c_int, t.Vec3, t.Vec3, t.Vec3, t.Vec3)
shape_mesh = _fn("mc_shape_mesh", t.ShapeStruct, vp)
shape_sphere = _fn("mc_shape_sphere", t.ShapeStruct, c_double)
shape_plane = _fn("mc_shape_plane", t.ShapeStruct)
shape_cylinder = _fn("mc_shape_cylinder", t.ShapeStruct, c_double, c_double)
shape_pair_support = _fn("mc_shape_pair_support", status, c_int, c_bool, c_int, c_bool, P(c_bool))
query_shape_regions = _fn(
    "mc_query_shape_regions",
    status,
    P(t.ShapeStruct),
    P(t.Pose),
    P(t.ShapeStruct),
    P(t.Pose),
    P(t.QueryOptions),
    vp,
    vp,
    c_uint32,
    P(c_uint32),
    P(t.QueryStats),
)

# world.h: force laws
step_fcn = _fn("mc_step_fcn", c_double, c_double, c_double, c_double, c_double, c_double)
impact_force = _fn("mc_impact_force", c_double, c_double, c_double, c_double, c_double, c_double, c_double)
poisson_force = _fn("mc_poisson_force", c_double, c_double, c_double, c_double, c_double, c_double)
friction_coefficient = _fn("mc_friction_coefficient", c_double, c_double, c_double, c_double, c_double, c_double)
default_force_model = _fn("mc_default_force_model", t.ForceModelStruct)
force_model_check = _fn("mc_force_model_check", status, P(t.ForceModelStruct), P(t.ErrorRecord))
stiction_force = _fn(
    "mc_stiction_force", c_double, P(t.ForceModelStruct), c_double, t.Vec3, t.Vec3, P(t.Vec3), P(t.Vec3)
)
contact_force_evaluate = _fn(
    "mc_contact_force_evaluate", status, P(t.ForceModelStruct), P(t.ContactKinematics), c_int, P(t.ContactForce)
)

# world.h: RecurDyn's and DYMORE's laws (issue 33)
recurdyn_force = _fn("mc_recurdyn_force", c_double, P(t.ForceModelStruct), c_double, c_double, P(c_double), P(c_double))
dymore_force = _fn("mc_dymore_force", c_double, P(t.ForceModelStruct), c_double, c_double, P(c_double), P(c_double))

# law.h: curves, Adams IMPACT and BISTOP
curve_create = _fn("mc_curve_create", status, P(c_double), P(c_double), c_int, c_int, P(vp), P(t.ErrorRecord))
curve_destroy = _fn("mc_curve_destroy", None, vp)
curve_eval = _fn("mc_curve_eval", c_double, vp, c_double, c_int)
curve_count = _fn("mc_curve_count", c_int, vp)
curve_get_method = _fn("mc_curve_get_method", c_int, vp)
curve_get_points = _fn("mc_curve_get_points", c_int, vp, P(c_double), P(c_double), c_int)
adams_impact = _fn("mc_adams_impact", c_double, *([c_double] * 7))
adams_impact_partials = _fn("mc_adams_impact_partials", c_double, *([c_double] * 7), P(c_double), P(c_double))
adams_bistop = _fn("mc_adams_bistop", c_double, *([c_double] * 8))
adams_bistop_partials = _fn("mc_adams_bistop_partials", c_double, *([c_double] * 8), P(c_double), P(c_double))
step_fcn_derivative = _fn("mc_step_fcn_derivative", c_double, c_double, c_double, c_double, c_double, c_double)

# world.h: the world
default_world_def = _fn("mc_default_world_def", t.WorldDef)
world_create = _fn("mc_world_create", status, P(t.WorldDef), P(vp))
world_destroy = _fn("mc_world_destroy", None, vp)
default_body_def = _fn("mc_default_body_def", t.BodyDef)
world_create_body = _fn("mc_world_create_body", t.BodyId, vp, P(t.BodyDef))
world_destroy_body = _fn("mc_world_destroy_body", None, vp, t.BodyId)
body_is_valid = _fn("mc_body_is_valid", c_bool, vp, t.BodyId)
body_set_pose = _fn("mc_body_set_pose", status, vp, t.BodyId, P(t.Pose))
body_set_velocity = _fn("mc_body_set_velocity", status, vp, t.BodyId, P(t.Twist))
body_get_pose = _fn("mc_body_get_pose", t.Pose, vp, t.BodyId)
body_get_velocity = _fn("mc_body_get_velocity", t.Twist, vp, t.BodyId)
body_get_wrench = _fn("mc_body_get_wrench", t.Wrench, vp, t.BodyId)
body_get_mesh = _fn("mc_body_get_mesh", vp, vp, t.BodyId)
world_set_poses = _fn("mc_world_set_poses", status, vp, vp, vp, c_uint32)
world_set_velocities = _fn("mc_world_set_velocities", status, vp, vp, vp, c_uint32)
world_get_wrenches = _fn("mc_world_get_wrenches", status, vp, vp, vp, c_uint32)
world_def_check = _fn("mc_world_def_check", status, P(t.WorldDef), P(t.ErrorRecord))
world_get_last_error = _fn("mc_world_get_last_error", P(t.ErrorRecord), vp)
world_clear_error = _fn("mc_world_clear_error", None, vp)
default_contact_def = _fn("mc_default_contact_def", t.ContactDef)
world_create_contact = _fn("mc_world_create_contact", status, vp, P(t.ContactDef), P(t.ContactId), P(t.ErrorRecord))
world_destroy_contact = _fn("mc_world_destroy_contact", None, vp, t.ContactId)
contact_is_valid = _fn("mc_contact_is_valid", c_bool, vp, t.ContactId)
contact_set_model = _fn("mc_contact_set_model", status, vp, t.ContactId, P(t.ForceModelStruct), P(t.ErrorRecord))
world_set_analysis = _fn("mc_world_set_analysis", None, vp, c_int)
world_evaluate = _fn("mc_world_evaluate", status, vp)
world_get_step_hint = _fn("mc_world_get_step_hint", status, vp, P(c_double))
world_get_regions = _fn("mc_world_get_regions", c_uint32, vp, vp, c_uint32)
world_commit = _fn("mc_world_commit", status, vp)
world_get_state = _fn("mc_world_get_state", c_size_t, vp, vp, c_size_t)
world_set_state = _fn("mc_world_set_state", status, vp, vp, c_size_t, P(t.ErrorRecord))
world_get_step_info = _fn("mc_world_get_step_info", t.StepInfo, vp)
world_get_max_capacity = _fn("mc_world_get_max_capacity", t.WorldCapacity, vp)
world_get_jacobian = _fn("mc_world_get_jacobian", status, vp, vp, c_uint32, P(c_uint32))
world_set_jacobian_method = _fn("mc_world_set_jacobian_method", status, vp, c_int)
world_set_patches = _fn("mc_world_set_patches", status, vp, c_uint32)
world_get_patches = _fn("mc_world_get_patches", c_uint32, vp, vp, c_uint32)
world_get_events = _fn("mc_world_get_events", c_uint32, vp, vp, c_uint32)
body_set_awake = _fn("mc_body_set_awake", status, vp, t.BodyId, c_bool)
body_is_awake = _fn("mc_body_is_awake", c_bool, vp, t.BodyId)
query_patches = _fn(
    "mc_query_patches",
    status,
    vp,
    P(t.Pose),
    vp,
    P(t.Pose),
    P(t.QueryOptions),
    c_uint32,
    vp,
    vp,
    vp,
    c_uint32,
    P(c_uint32),
    P(t.QueryStats),
)


def load_brep():
    """Load libmeshcontact-brep (B-rep import through gmsh, include/meshcontact/brep.h) and call its
    mc_brep_register(), which installs its reader into the loaded libmeshcontact: $MESHCONTACT_BREP_LIBRARY, else the
    file beside the loaded libmeshcontact, else ctypes.util.find_library. Returns the path loaded."""
    env = os.environ.get("MESHCONTACT_BREP_LIBRARY")
    if env:
        paths = [env]
    else:
        here = os.path.dirname(os.path.abspath(path)) if os.path.dirname(path) else ""
        paths = [os.path.join(here, n) for n in ("libmeshcontact-brep.so.0", "libmeshcontact-brep.so") if here]
        paths += [p for p in (ctypes.util.find_library("meshcontact-brep"),) if p]
    errors = []
    for p in paths:
        try:
            brep = ctypes.CDLL(p)
        except OSError as exc:
            errors.append(f"{p}: {exc}")
            continue
        register = brep.mc_brep_register
        register.restype, register.argtypes = None, []
        register()
        return p
    raise OSError(
        "meshcontact: libmeshcontact-brep not found (" + ("; ".join(errors) or "no candidate") + "); it is built "
        "where gmsh is installed (Debian libgmsh-dev), or set MESHCONTACT_BREP_LIBRARY to its path"
    )


version = get_version()
if version.major != API_MAJOR:
    raise ImportError(
        f"meshcontact: {path} is version {version.major}.{version.minor}.{version.patch}; this package mirrors the "
        f"structs of major version {API_MAJOR}"
    )
