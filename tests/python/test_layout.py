# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The ctypes mirrors against C: every mirrored struct has the compiler's size, alignment, field offsets and field
sizes (printed by layout.c), the fields the header declares, in its order; the NumPy record dtypes have the same
layout; and every struct and MC_API function of the public headers is mirrored or bound, or listed below as left out
on purpose (so that what the C API gains, the binding is told about)."""
import ctypes
import re

from conftest import run_helper

import meshcontact
from meshcontact import _lib
from meshcontact import _types as t

# Structs of the public headers that the package does not mirror, and why.
UNMIRRORED = {
    "mc_brep_info": "for B-rep readers written in C (mc_brep_reader_fcn), not for hosts",
}
# MC_API functions the package does not call, and why.
UNBOUND = {
    "mc_set_allocator": "the allocator hook must be set before any other call; Python programs keep the default",
    "mc_body_get_user_data": "Python keeps its own data per body id (a dict)",
    "mc_contact_get_user_data": "Python keeps its own data per contact id (a dict)",
    "mc_mesh_set_brep_reader": "for B-rep readers written in C",
    "mc_mesh_get_brep_reader": "for B-rep readers written in C",
    "mc_brep_sink_add_points": "for B-rep readers written in C",
    "mc_brep_sink_add_triangles": "for B-rep readers written in C",
    "mc_mass_properties_combine": "NumPy sums parts directly; a mesh's own properties are bound",
    "mc_world_def_check": "World() raises with the status; the def is built by the package from checked keywords",
    "mc_world_clear_error": "the package reads the last error right after a failure",
}


def compiler_layout(exe):
    structs, fields = {}, {}
    out = run_helper([exe])
    for line in out.splitlines():
        kind, *rest = line.split()
        if kind == "struct":
            structs[rest[0]] = (int(rest[1]), int(rest[2]))
            fields[rest[0]] = []
        else:
            fields[rest[0]].append((rest[1], int(rest[2]), int(rest[3])))
    return structs, fields


def header_text(root):
    text = ""
    for h in sorted((root / "include" / "meshcontact").glob("*.h")):
        text += h.read_text(encoding="utf-8") + "\n"
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"^\s*#.*$", "", text, flags=re.M)


def header_structs(root):
    """{struct name: [field names in order]} of every `typedef struct X { ... } X;` of the public headers."""
    out = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", header_text(root), flags=re.S):
        names = []
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp:
                names.append(fp.group(1))
            else:
                names.append(re.findall(r"\w+", re.sub(r"\[[^\]]*\]", "", decl))[-1])
        out[m.group(3)] = names
    return out


def header_functions(root):
    return set(re.findall(r"\bMC_API\s+[^;{}]*?\b(mc_\w+)\s*\(", header_text(root)))


def test_struct_layouts_match_the_compiler(layout_exe):
    structs, fields = compiler_layout(layout_exe)
    problems = []
    for name, cls in t.MIRRORS.items():
        if name not in structs:
            problems.append(f"{name}: not printed by tests/python/layout.c (add its S() and F() lines)")
            continue
        size, align = structs[name]
        if (ctypes.sizeof(cls), ctypes.alignment(cls)) != (size, align):
            problems.append(
                f"{name}: C sizeof {size} alignof {align}, ctypes {ctypes.sizeof(cls)} {ctypes.alignment(cls)}"
            )
        mirror = [(f, getattr(cls, f).offset, getattr(cls, f).size) for f, _ in cls._fields_]
        if [f for f, _, _ in mirror] != [f for f, _, _ in fields[name]]:
            problems.append(f"{name}: fields {[f for f, _, _ in mirror]} in ctypes, {[f for f, _, _ in fields[name]]}"
                            " printed by layout.c")
            continue
        for (f, off, sz), (_, c_off, c_sz) in zip(mirror, fields[name]):
            if (off, sz) != (c_off, c_sz):
                problems.append(f"{name}.{f}: C offset {c_off} size {c_sz}, ctypes offset {off} size {sz}")
    assert not problems, "\n".join(problems)


def test_mirrors_have_the_headers_fields(root):
    declared = header_structs(root)
    problems = []
    for name, cls in t.MIRRORS.items():
        mine = [f for f, _ in cls._fields_]
        if name not in declared:
            problems.append(f"{name}: no such struct in include/meshcontact/*.h")
        elif mine != declared[name]:
            problems.append(f"{name}: the header declares {declared[name]}, the mirror has {mine}")
    for name in sorted(set(declared) - set(t.MIRRORS) - set(UNMIRRORED)):
        problems.append(f"{name}: a public struct that _types.py does not mirror (mirror it or list it in UNMIRRORED)")
    assert not problems, "\n".join(problems)


def test_every_api_function_is_bound(root):
    declared = header_functions(root)
    assert "mc_world_evaluate" in declared and "mc_get_version" in declared  # the parser works
    missing = sorted(declared - set(_lib.bound) - set(UNBOUND))
    assert not missing, f"MC_API functions the package neither binds nor lists in UNBOUND: {missing}"
    stale = sorted(set(_lib.bound) - declared)
    assert not stale, f"bound functions that the headers no longer declare: {stale}"


def test_record_dtypes_have_the_struct_layout():
    for dtype, cls in (
        (meshcontact.REGION_DTYPE, t.Region),
        (meshcontact.TRIANGLE_PAIR_DTYPE, t.TrianglePair),
        (meshcontact.CONTACT_REGION_DTYPE, t.ContactRegion),
        (meshcontact.JACOBIAN_DTYPE, t.JacobianBlock),
        (meshcontact.NODAL_FORCE_DTYPE, t.NodalForce),
    ):
        assert dtype.itemsize == ctypes.sizeof(cls)
        for name, _ in cls._fields_:
            assert dtype.fields[name][1] == getattr(cls, name).offset, (cls.__name__, name)
            assert dtype.fields[name][0].itemsize == getattr(cls, name).size, (cls.__name__, name)
    # Pose, twist and wrench rows are the structs themselves.
    assert ctypes.sizeof(t.Pose) == 7 * 8 and t.Pose.q.offset == 3 * 8
    assert ctypes.sizeof(t.Twist) == 6 * 8 and ctypes.sizeof(t.Wrench) == 6 * 8
    assert ctypes.sizeof(t.BodyId) == 8 and ctypes.sizeof(t.BodyPair) == 16
