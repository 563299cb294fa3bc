# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""meshcontact: contact between closed triangle meshes (intersection volumes, areas, depths and MSC Adams-style
IMPACT / POISSON contact forces with friction), from Python.

A pure-Python binding (ctypes) over the shared library libmeshcontact, with NumPy arrays:

    import numpy as np
    import meshcontact as mc

    ball = mc.sphere(0.05, triangles=5000)            # a tessellated sphere, radius 5 cm
    plate = mc.box(1.0, 1.0, 0.02)                    # a 1 m x 1 m x 2 cm plate
    regions = mc.regions(plate, [0, 0, 0], ball, [0, 0, 0.055])  # stateless query: a record array
    world = mc.World()
    b = world.create_body(ball, [0, 0, 0.055], [0, 0, -1, 0, 0, 0])
    p = world.create_body(plate)
    world.create_contact([p], [b], model=mc.ForceModel(stiffness=1e7, damping=1e3, dmax=1e-4))
    world.evaluate()
    wrenches = world.wrenches([p, b])                  # (2, 6): force, torque about each body's origin

Conventions (as in the C API): doubles everywhere, poses [tx, ty, tz, qw, qx, qy, qz] (body to world, quaternion w
first), twists [vx, vy, vz, wx, wy, wz] (world frame), wrenches [fx, fy, fz, tx, ty, tz] (world frame, torque about
the body's reference point), units are the user's. Ids of bodies and contacts are integers.

Arrays: inputs of real numbers accept any float dtype up to float64 and exact integers, converted with
np.ascontiguousarray (copied only when needed); triangle indices accept integer dtypes with values in
[0, 2^32 - 1] (converted to uint32; floats are refused). A wrong dtype raises TypeError, a wrong shape ValueError;
output arrays passed as out= must already be float64, C-contiguous and of the right shape (never silently copied).

Errors of the library raise meshcontact.Error (status, message: the library's own). Mesh, World and Workspace own
their C objects: close() (or a with block, or garbage collection) destroys them, and any later use raises
ClosedError.

Library lookup: $MESHCONTACT_LIBRARY, else the library installed with this package, else the system's library path.
"""
from . import _lib
from ._common import ClosedError, Error, Status
from ._types import (
    CONTACT_REGION_DTYPE,
    JACOBIAN_DTYPE,
    NODAL_FORCE_DTYPE,
    REGION_DTYPE,
    TRIANGLE_PAIR_DTYPE,
    ContactForce,
    ContactKinematics,
    DistanceResult,
    MeshReport,
    QueryStats,
    RepairReport,
    StepInfo,
    Vec3,
    WorldCapacity,
)
from .mesh import Mesh, box, check_file, cylinder, ellipsoid, frustum, repair, sphere, tessellate, torus
from .query import (
    DISTANCE_KINDS,
    Shape,
    Workspace,
    contains,
    distance,
    nodal_forces,
    orient3d,
    patches,
    regions,
    triangle_pairs,
)
from .world import (
    JACOBIAN_NEAR_SWITCH,
    JACOBIAN_TOPOLOGY_CHANGED,
    STEP_NON_FINITE,
    STEP_PAIR_FAILED,
    STEP_REJECTED_REGIONS,
    STEP_UNBOUNDED_PAIR,
    BodyMesh,
    ForceModel,
    World,
    contact_force,
    friction_coefficient,
    impact_force,
    kinematics,
    poisson_force,
    step,
    stiction_force,
)

__version__ = "{}.{}.{}".format(_lib.version.major, _lib.version.minor, _lib.version.patch)
library_path = _lib.path


def register_brep():
    """Make Mesh.load read B-rep files (.step .stp .iges .igs .brep): load the separate library meshcontact-brep
    (gmsh and OpenCASCADE) and register its reader (mc_brep_register). Not done at import, so that a program that
    reads no CAD file does not load them. Returns the library's path; raises OSError when it is not found
    ($MESHCONTACT_BREP_LIBRARY, beside libmeshcontact, or the system's library path)."""
    return _lib.load_brep()


def byte_count():
    """Bytes currently allocated by the library (all threads; mc_get_byte_count)."""
    return int(_lib.get_byte_count())


def pose(translation=(0.0, 0.0, 0.0), quaternion=(1.0, 0.0, 0.0, 0.0)):
    """A pose row [tx, ty, tz, qw, qx, qy, qz] (float64) from a translation and a quaternion (w first)."""
    import numpy as np

    return np.concatenate([np.asarray(translation, dtype=np.float64), np.asarray(quaternion, dtype=np.float64)])


__all__ = [
    "BodyMesh",
    "CONTACT_REGION_DTYPE",
    "ClosedError",
    "ContactForce",
    "ContactKinematics",
    "DISTANCE_KINDS",
    "DistanceResult",
    "Error",
    "ForceModel",
    "JACOBIAN_DTYPE",
    "JACOBIAN_NEAR_SWITCH",
    "JACOBIAN_TOPOLOGY_CHANGED",
    "Mesh",
    "MeshReport",
    "NODAL_FORCE_DTYPE",
    "QueryStats",
    "REGION_DTYPE",
    "RepairReport",
    "STEP_NON_FINITE",
    "STEP_PAIR_FAILED",
    "STEP_REJECTED_REGIONS",
    "STEP_UNBOUNDED_PAIR",
    "Shape",
    "Status",
    "StepInfo",
    "TRIANGLE_PAIR_DTYPE",
    "Vec3",
    "Workspace",
    "World",
    "WorldCapacity",
    "box",
    "byte_count",
    "check_file",
    "contact_force",
    "contains",
    "cylinder",
    "distance",
    "ellipsoid",
    "friction_coefficient",
    "frustum",
    "impact_force",
    "kinematics",
    "library_path",
    "nodal_forces",
    "orient3d",
    "poisson_force",
    "pose",
    "patches",
    "regions",
    "register_brep",
    "repair",
    "sphere",
    "step",
    "stiction_force",
    "tessellate",
    "torus",
    "triangle_pairs",
]
