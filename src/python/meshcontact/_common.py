# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Errors, the library's log and assert hooks, owned handles, and the checks that turn Python values into what the C
functions take (the dtype and shape rules of the package are all here)."""
import atexit
import ctypes
import enum
import logging
import sys
import threading

import numpy as np

from . import _lib
from . import _types as t

logger = logging.getLogger("meshcontact")


class Status(enum.IntEnum):
    """mc_status: the library's status codes (0 success, negative errors)."""

    OK = 0
    INVALID_ARGUMENT = -1
    OUT_OF_MEMORY = -2
    IO = -3
    PARSE = -4
    UNSUPPORTED_FORMAT = -5
    MESH_NOT_CLOSED = -6
    EMPTY_MESH = -7
    CAPACITY = -8
    NON_FINITE = -9
    INDEX_OUT_OF_RANGE = -10
    UNBOUNDED = -11
    OUT_OF_RANGE = -12
    LIMIT = -13
    SELF_INTERSECTING = -14
    UNSUPPORTED = -15


class Error(Exception):
    """A failure reported by the library: ``status`` (a Status), ``message`` (the library's mc_error message, or the
    status text and what the library logged), and for file errors ``line`` and ``offset`` (-1 when unknown).
    Mesh creation and import attach what the checks found as ``report`` (a MeshReport, or None)."""

    def __init__(self, status, message, line=-1, offset=-1, report=None):
        super().__init__(message)
        try:
            self.status = Status(status)
        except ValueError:
            self.status = status
        self.message = message
        self.line = line
        self.offset = offset
        self.report = report


class ClosedError(ValueError):
    """An operation on a closed (destroyed) object: a Mesh, World or Workspace after close()."""


# ------------------------------------------------------------------------------------------------ hooks
# The library never prints: it hands messages to a log hook. The package installs one that passes them to the
# `logging` logger "meshcontact" (DEBUG level) and keeps the last message of the calling thread, so that an exception
# for a call without an mc_error record (creating a body, a Jacobian) can say what the library said. In a debug build
# of the library, a programmer error calls the assert hook, which would trap (kill Python); the package's hook logs it
# (ERROR level), keeps it for the exception and lets the library take its release path (an error status or a null
# id). The hooks are process-wide: a program that sets its own through the C API replaces these.

_local = threading.local()


def _on_log(message):
    text = message.decode("utf-8", "replace")
    _local.message = text
    logger.debug("%s", text)


def _on_assert(condition, file, line):
    text = "assertion failed in the library: {} ({}:{})".format(
        condition.decode("utf-8", "replace"), file.decode("utf-8", "replace"), line
    )
    _local.message = text
    logger.error("%s", text)
    return 0


_log_hook = _lib.LOG_FCN(_on_log)
_assert_hook = _lib.ASSERT_FCN(_on_assert)
_lib.set_log_fcn(_log_hook)
_lib.set_assert_fcn(_assert_hook)


@atexit.register
def _remove_hooks():
    # Objects destroyed during interpreter shutdown must not call back into a finalizing interpreter.
    _lib.set_log_fcn(ctypes.cast(None, _lib.LOG_FCN))
    _lib.set_assert_fcn(ctypes.cast(None, _lib.ASSERT_FCN))


def clear_log():
    _local.message = None


def last_log():
    return getattr(_local, "message", None)


def status_text(status):
    return _lib.status_string(status).decode()


def check(status, where, err=None, report=None):
    """Raise Error for a non-zero status; the message is the error record's, else the status text plus the log."""
    if status == 0:
        return
    line = offset = -1
    message = ""
    if err is not None:
        message = err.message.decode("utf-8", "replace")
        line, offset = err.line, err.offset
    if not message:
        message = f"{where}: {status_text(status)}"
        logged = last_log()
        if logged:
            message += f" ({logged})"
    clear_log()
    raise Error(status, message, line, offset, None if report is None else t.record(report))


# ------------------------------------------------------------------------------------------------ owned handles


class Owned:
    """Owner of one C handle: close() destroys it (also on garbage collection and at the end of a with block);
    any use after close() raises ClosedError."""

    _ptr = None
    _destroy = None

    def _handle(self):
        p = self._ptr
        if p is None:
            raise ClosedError(f"{type(self).__name__} is closed")
        return p

    @property
    def closed(self):
        """True once close() has destroyed the C object."""
        return self._ptr is None

    def close(self):
        """Destroy the C object now (idempotent)."""
        p, self._ptr = self._ptr, None
        if p is not None:
            type(self)._destroy(p)

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


# ------------------------------------------------------------------------------------------------ array checks
# Inputs (vertices, poses, twists, points): any floating dtype of at most 64 bits, or integers whose values are exact
# in float64 (|v| <= 2^53), converted to C-contiguous float64 with np.ascontiguousarray (a copy only when needed: the
# library copies what it keeps anyway). Refused with TypeError: booleans, complex, longdouble, objects, strings.
# Indices (triangles): any integer dtype, values in [0, 2^32 - 1], converted to uint32; floats are refused
# (TypeError). Output arrays given by the caller (out=): float64, C-contiguous, writeable and of the exact shape, or
# refused (a converted copy would not be the caller's array). Shapes are checked (ValueError), never broadcast.

_EXACT = 2.0**53


def real_array(value, name, tail, single_ok=True):
    """value as a C-contiguous float64 array of shape (n, *tail), or tail when single_ok and value has that shape;
    returns (array, single)."""
    a = np.asarray(value)
    kind = a.dtype.kind
    if kind == "f":
        if a.dtype.itemsize > 8:
            raise TypeError(f"{name}: dtype {a.dtype} would be rounded to float64; convert it explicitly")
    elif kind in "iu":
        if a.size and float(np.max(np.abs(a.astype(np.float64)))) > _EXACT:
            raise ValueError(f"{name}: integer values beyond 2^53 are not exact in float64")
    else:
        raise TypeError(f"{name}: expected real numbers (a float or integer array), got dtype {a.dtype}")
    tail = tuple(tail)
    single = single_ok and a.shape == tail
    if not single and (a.ndim != len(tail) + 1 or a.shape[1:] != tail):
        want = f"({', '.join(['n'] + [str(x) for x in tail])})"
        if single_ok:
            want += f" or {tail}"
        raise ValueError(f"{name}: expected shape {want}, got {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64), single


def index_array(value, name, width=3):
    """value as a C-contiguous uint32 array of shape (m, width)."""
    a = np.asarray(value)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer indices, got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[1] != width:
        raise ValueError(f"{name}: expected shape (m, {width}), got {a.shape}")
    if a.size and (int(a.min()) < 0 or int(a.max()) > 0xFFFFFFFF):
        raise ValueError(f"{name}: indices must be in [0, 2^32 - 1]")
    return np.ascontiguousarray(a, dtype=np.uint32)


def out_array(out, name, shape):
    """The caller's output array, checked (never copied)."""
    if type(out) is np.ndarray and out.dtype is F64 and out.shape == shape and out.flags.c_contiguous \
            and out.flags.writeable:  # fmt: skip
        return out
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name}: expected a numpy.ndarray, got {type(out).__name__}")
    if out.dtype != np.float64:
        raise TypeError(f"{name}: expected dtype float64, got {out.dtype}")
    if out.shape != tuple(shape):
        raise ValueError(f"{name}: expected shape {tuple(shape)}, got {out.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"{name}: must be C-contiguous and writeable")
    return out


def to_pose(value, name="pose"):
    """A Pose struct from a Pose, [tx, ty, tz, qw, qx, qy, qz] or [tx, ty, tz] (no rotation); None: identity."""
    if value is None:
        return t.Pose(t.Vec3(0.0, 0.0, 0.0), t.Quat(1.0, 0.0, 0.0, 0.0))
    if isinstance(value, t.Pose):
        return value
    a = np.asarray(value)
    if a.shape not in ((3,), (t.POSE_SIZE,)):
        raise ValueError(f"{name}: expected one pose of 7 (or 3) values, got shape {a.shape}")
    a, _ = real_array(a, name, a.shape)
    if a.shape == (3,):
        a = np.concatenate([a, [1.0, 0.0, 0.0, 0.0]])
    return t.Pose.from_buffer_copy(a.tobytes())


def to_twist(value, name="velocity"):
    """A Twist struct from a Twist or [vx, vy, vz, wx, wy, wz]; None: zero."""
    if value is None:
        return t.Twist()
    if isinstance(value, t.Twist):
        return value
    a, single = real_array(value, name, (t.TWIST_SIZE,))
    if not single:
        raise ValueError(f"{name}: expected one twist of 6 values, got shape {a.shape}")
    return t.Twist.from_buffer_copy(a.tobytes())


def to_vec3(value, name):
    if isinstance(value, t.Vec3):
        return value
    a, single = real_array(value, name, (3,))
    if not single:
        raise ValueError(f"{name}: expected 3 values, got shape {a.shape}")
    return t.Vec3(*a.tolist())


def struct_array(s):
    """A struct of doubles (Pose, Twist, Wrench, Vec3) as a float64 array (a copy)."""
    return np.frombuffer(bytes(s), dtype=np.float64).copy()


# ------------------------------------------------------------------------------------------------ ids
# A body or contact id is handed to Python as one integer: its 8 bytes (index1, generation) read as a native uint64,
# which is what the uint64 id fields of the record arrays hold. 0 is the null id.


def id_to_int(s):
    return int.from_bytes(bytes(s), sys.byteorder)


def int_to_body_id(value):
    return t.BodyId.from_buffer_copy(int(value).to_bytes(8, sys.byteorder))


def int_to_contact_id(value):
    return t.ContactId.from_buffer_copy(int(value).to_bytes(8, sys.byteorder))


def id_array(ids, name="bodies"):
    """ids (integers from World, or an array of them) as a C-contiguous uint64 array: mc_body_id[] in memory."""
    a = np.asarray(ids)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer ids, got dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of ids, got shape {a.shape}")
    if a.dtype != np.uint64:
        if a.size and int(a.min()) < 0:
            raise ValueError(f"{name}: ids are non-negative")
        a = a.astype(np.uint64)
    return np.ascontiguousarray(a)


_from_buffer = ctypes.c_char.from_buffer
_addressof = ctypes.addressof


def ptr(a):
    """The address of a C-contiguous NumPy array's data, for a c_void_p argument (None when it is empty). Through
    the buffer protocol when the array is writeable: a.ctypes.data costs several times more, and the bulk calls of a
    host loop pass three arrays per step."""
    try:
        return _addressof(_from_buffer(a))
    except (TypeError, ValueError, BufferError):  # read-only, or empty
        return a.ctypes.data if a.size else None


F64 = np.dtype(np.float64)
U64 = np.dtype(np.uint64)


def rows(value, name, width):
    """value as (n, width) C-contiguous float64: real_array without its costs when it already is one."""
    if type(value) is np.ndarray and value.dtype is F64 and value.ndim == 2 and value.shape[1] == width \
            and value.flags.c_contiguous:  # fmt: skip
        return value
    return real_array(value, name, (width,), single_ok=False)[0]


def ids(value, name="bodies"):
    """value as a 1-D C-contiguous uint64 array of ids: id_array without its costs when it already is one."""
    if type(value) is np.ndarray and value.dtype is U64 and value.ndim == 1 and value.flags.c_contiguous:
        return value
    return id_array(value, name)


# ------------------------------------------------------------------------------------------------ patches


def patch_dict(patch):
    """An mc_patch as Python values (copies): "loops", a list of (m, 3) float64 arrays (closed polylines, world frame);
    "manifold", a (k, 3) array of points; "depths", their k depths; "open_loops"."""
    loops = []
    if patch.point_count:
        pts = np.ctypeslib.as_array(ctypes.cast(patch.points, ctypes.POINTER(ctypes.c_double)),
                                    shape=(patch.point_count * 3,)).reshape(-1, 3)  # fmt: skip
        ends = np.ctypeslib.as_array(ctypes.cast(patch.loop_ends, ctypes.POINTER(ctypes.c_uint32)),
                                     shape=(patch.loop_count,))  # fmt: skip
        start = 0
        for e in ends:
            loops.append(pts[start:int(e)].copy())
            start = int(e)
    k = patch.manifold_count
    manifold = np.array([[patch.manifold[m].point.x, patch.manifold[m].point.y, patch.manifold[m].point.z]
                         for m in range(k)], dtype=np.float64).reshape(k, 3)  # fmt: skip
    depths = np.array([patch.manifold[m].depth for m in range(k)], dtype=np.float64)
    return {"loops": loops, "manifold": manifold, "depths": depths, "open_loops": int(patch.open_loops)}
