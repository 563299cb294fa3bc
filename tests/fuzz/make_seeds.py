#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Writes the seed inputs of the fuzz harnesses: small valid files of every format (a cube, a tetrahedron, quads,
comments, the syntax variants each reader accepts), scenarios, and byte strings for the API harnesses.

Usage: python3 tests/fuzz/make_seeds.py OUTDIR     (writes OUTDIR/<harness>/<name>)
The committed corpora (tests/fuzz/corpus/) started from this output and were then grown by fuzzing and minimised
with libFuzzer's -merge=1."""
import base64
import io
import json
import os
import struct
import sys
import zipfile

CUBE_V = [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]
CUBE_T = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4), (1, 2, 6), (1, 6, 5), (2, 3, 7),
          (2, 7, 6), (3, 0, 4), (3, 4, 7)]
CUBE_Q = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
TET_V = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TET_T = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def normal(v, t):
    a, b, c = (v[i] for i in t)
    u = [b[k] - a[k] for k in range(3)]
    w = [c[k] - a[k] for k in range(3)]
    return (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])


def stl_ascii(v, t, name="cube", eol="\n"):
    out = [f"solid {name}"]
    for tri in t:
        out.append("  facet normal %g %g %g" % normal(v, tri))
        out.append("    outer loop")
        out += ["      vertex %.17g %.17g %.17g" % v[i] for i in tri]
        out.append("    endloop")
        out.append("  endfacet")
    out.append(f"endsolid {name}")
    return (eol.join(out) + eol).encode()


def stl_binary(v, t, header=b"binary stl seed"):
    b = header.ljust(80, b" ")[:80] + struct.pack("<I", len(t))
    for tri in t:
        b += struct.pack("<3f", *normal(v, tri))
        for i in tri:
            b += struct.pack("<3f", *v[i])
        b += b"\0\0"
    return b


def obj(v, faces, neg=False):
    out = ["# seed", "o cube", "g part"]
    out += ["v %g %g %g" % p for p in v]
    out += ["vt 0 0", "vn 0 0 1", "s off"]
    for f in faces:
        if neg:
            out.append("f " + " ".join(str(i - len(v)) for i in f))
        else:
            out.append("f " + " ".join("%d/1/1" % (i + 1) for i in f))
    return ("\n".join(out) + "\n").encode()


def off(v, faces, kw="OFF"):
    out = [kw, "# comment", "%d %d 0" % (len(v), len(faces))]
    extra = " 0.5 0.5 0.5 1" if kw == "COFF" else ""
    out += ["%g %g %g%s" % (p + (extra,)) for p in v]
    out += ["%d %s" % (len(f), " ".join(str(i) for i in f)) for f in faces]
    return ("\n".join(out) + "\n").encode()


def shl(v, faces, version2=False, scale=1.0):
    out = []
    if version2:
        out.append("Version: 2")
        out.append("%d %d %g %d" % (len(v), len(faces), scale, 1))
    else:
        out.append("%d %d %g" % (len(v), len(faces), scale))
    out += ["%.17g %.17g %.17g" % p for p in v]
    out += ["%d %s" % (len(f), " ".join(str(i + 1) for i in f)) for f in faces]
    if version2:
        out.append("0 0 1")
    return ("\n".join(out) + "\n").encode()


def ply_ascii(v, faces):
    out = ["ply", "format ascii 1.0", "comment seed", "element vertex %d" % len(v), "property float x",
           "property float y", "property float z", "element face %d" % len(faces),
           "property list uchar int vertex_indices", "end_header"]
    out += ["%g %g %g" % p for p in v]
    out += ["%d %s" % (len(f), " ".join(str(i) for i in f)) for f in faces]
    return ("\n".join(out) + "\n").encode()


def ply_binary(v, faces):
    head = ["ply", "format binary_little_endian 1.0", "element vertex %d" % len(v), "property float x",
            "property float y", "property float z", "element face %d" % len(faces),
            "property list uchar int vertex_indices", "end_header"]
    b = ("\n".join(head) + "\n").encode()
    for p in v:
        b += struct.pack("<3f", *p)
    for f in faces:
        b += struct.pack("<B", len(f)) + struct.pack("<%di" % len(f), *f)
    return b


def threemf_model(v, t, components=False):
    model = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">',
             '<resources><object id="1" type="model"><mesh><vertices>']
    model += ['<vertex x="%g" y="%g" z="%g"/>' % p for p in v]
    model += ['</vertices><triangles>']
    model += ['<triangle v1="%d" v2="%d" v3="%d"/>' % tri for tri in t]
    model += ['</triangles></mesh></object>']
    if components:
        model += ['<object id="2"><components><component objectid="1" transform="1 0 0 1 1 0 0 0 1 3 0 0"/>',
                  '<component objectid="1" transform="-1 0 0 0 1 0 0 0 1 -3 0 0"/></components></object>']
    model += ['</resources>', '<build><item objectid="%d" transform="1 0 0 0 1 0 0 0 1 0.5 0 0"/></build></model>'
              % (2 if components else 1)]
    return "\n".join(model)


def threemf(v, t, compression=zipfile.ZIP_STORED):
    model = threemf_model(v, t)
    types = ('<?xml version="1.0" encoding="UTF-8"?><Types '
             'xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>'
             '</Types>')
    rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships '
            'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Target="/3D/3dmodel.model" Id="rel0" '
            'Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, text in (("[Content_Types].xml", types), ("_rels/.rels", rels),
                           ("3D/3dmodel.model", model)):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            z.writestr(info, text, compress_type=compression)
    return buf.getvalue()


def gltf_parts(v, t, matrix=None):
    pos = b"".join(struct.pack("<3f", *p) for p in v)
    idx = b"".join(struct.pack("<3H", *tri) for tri in t)
    data = pos + idx
    node = {"mesh": 0}
    if matrix is not None:
        node["matrix"] = matrix
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [node],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
        "buffers": [{"byteLength": len(data)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
                        {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx), "target": 34963}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(v), "type": "VEC3",
             "min": [min(p[k] for p in v) for k in range(3)], "max": [max(p[k] for p in v) for k in range(3)]},
            {"bufferView": 1, "componentType": 5123, "count": 3 * len(t), "type": "SCALAR"}],
    }
    return doc, data


def gltf(v, t, matrix=None):
    doc, data = gltf_parts(v, t, matrix)
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    return json.dumps(doc, indent=1).encode()


def glb(v, t):
    doc, data = gltf_parts(v, t)
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    data += b"\0" * (-len(data) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(data), 0x004E4942) + data
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body


def dae(v, t):
    pos = " ".join("%g %g %g" % p for p in v)
    tri = " ".join("%d %d %d" % x for x in t)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
 <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
 <library_geometries><geometry id="g" name="g"><mesh>
  <source id="g-pos"><float_array id="g-pos-array" count="{3 * len(v)}">{pos}</float_array>
   <technique_common><accessor source="#g-pos-array" count="{len(v)}" stride="3">
    <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
   </accessor></technique_common></source>
  <vertices id="g-vtx"><input semantic="POSITION" source="#g-pos"/></vertices>
  <triangles count="{len(t)}"><input semantic="VERTEX" source="#g-vtx" offset="0"/><p>{tri}</p></triangles>
 </mesh></geometry></library_geometries>
 <library_visual_scenes><visual_scene id="s"><node id="n"><matrix>1 0 0 0.5 0 1 0 0 0 0 1 0 0 0 0 1</matrix>
  <instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>
 <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
""".encode()


def dae_scene(v, q):
    """A COLLADA document of the native reader's features: a polylist, polygons, trifans and tristrips of one quad
    mesh, placed by nodes with translate / rotate / scale / matrix, a nested node, an instance of a library node and a
    mirror, in centimetres."""
    pos = " ".join("%g %g %g" % p for p in v)
    quads = [" ".join(str(i) for i in f) for f in q]
    strips = [" ".join(str(f[i]) for i in (0, 1, 3, 2)) for f in q]
    prims = {
        "pl": '<polylist count="6"><input semantic="VERTEX" source="#pl-v" offset="0"/>'
              '<input semantic="NORMAL" source="#pl-n" offset="1"/><vcount>4 4 4 4 4 4</vcount><p>'
              + " ".join(" ".join("%s 0" % i for i in f.split()) for f in quads) + "</p></polylist>",
        "pg": '<polygons count="6"><input semantic="VERTEX" source="#pg-v" offset="0"/>'
              + "".join("<p>%s</p>" % f for f in quads) + "</polygons>",
        "fa": '<trifans count="6"><input semantic="VERTEX" source="#fa-v" offset="0"/>'
              + "".join("<p>%s</p>" % f for f in quads) + "</trifans>",
        "st": '<tristrips count="6"><input semantic="VERTEX" source="#st-v" offset="0"/>'
              + "".join("<p>%s</p>" % f for f in strips) + "</tristrips>",
    }
    geoms = "".join(
        f'<geometry id="{g}"><mesh><source id="{g}-p"><float_array id="{g}-a" count="{3 * len(v)}">{pos}'
        f'</float_array><technique_common><accessor source="#{g}-a" count="{len(v)}" stride="3"/></technique_common>'
        f'</source><vertices id="{g}-v"><input semantic="POSITION" source="#{g}-p"/></vertices>{body}</mesh>'
        f"</geometry>\n" for g, body in prims.items())
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.5.0">
 <asset><unit name="centimeter" meter="0.01"/><up_axis>Y_UP</up_axis></asset>
 <library_geometries>
{geoms} </library_geometries>
 <library_nodes><node id="lib"><translate>0 0 10</translate><instance_geometry url="#pl"/></node></library_nodes>
 <library_visual_scenes><visual_scene id="s">
  <node id="a"><translate>10 0 0</translate><rotate>0 0 1 30</rotate><scale>2 1 1</scale>
   <instance_geometry url="#pg"/></node>
  <node id="b"><matrix>1 0.5 0 -20 0 1 0 0 0 0 1 0 0 0 0 1</matrix><node id="c"><instance_node url="#lib"/></node></node>
  <node id="d"><translate>0 20 0</translate><scale>-1 1 1</scale><instance_geometry url="#fa"/></node>
  <node id="e"><translate>40 0 0</translate><instance_geometry url="#st"><bind_material/></instance_geometry></node>
 </visual_scene></library_visual_scenes>
 <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
""".encode()


BALL_DROP = b"""! a ball dropped on a plate
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND
ACCGRAV/KGRAV=-9.81
PART/1, GROUND
GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
PART/2, MASS=1, IP=4e-4,4e-4,4e-4, QG=0,0,0.1, VX=0.5, WZ=2
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=2e-4
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=10, DMAX=1e-4
, COULOMB_FRICTION=ON, MU_STATIC=0.3, MU_DYNAMIC=0.2
INTEGRATOR/RK4, HMAX=1e-4
SIMULATE/DYNAMIC, END=0.5, STEPS=500
END
"""

SHAPES = b"""GRAVITY/0,0,-9.81
PART/1, GROUND, QG=0,0,-1, REULER=90D,0,0
GRAPHICS/10, PART=1, EXTERNAL, FILE="meshes/floor one.stl", SCALE=0.001
PART/2, DENSITY=7800, QUATERNION=1,0,0,0, VZ=-1, &
  WX=0.1
GRAPHICS/20, PART=2, ELLIPSOID, XSCALE=0.1, YSCALE=0.2, ZSCALE=0.3, IFLIP_GEOMETRY
GRAPHICS/21, PART=2, CYLINDER, RADIUS=0.05, LENGTH=0.2, ANGLE_TOLERANCE=10D
GRAPHICS/22, PART=2, FRUSTUM, BOTTOM=0.1, TOP=0.05, LENGTH=0.1, REULER=0,90D,0
GRAPHICS/23, PART=2, TORUS, MAJOR_RADIUS=0.2, MINOR_RADIUS=0.05
PART/3, MASS=2, IP=1,2,2.5,0.1,0,0
GRAPHICS/30, spot.obj
CONTACT/5, IGEOM=10, JGEOM=20,21,22,23, JFLIP_GEOMETRY=20, POISSON, PENALTY=1e5, RESTITUTION_COEFFICIENT=0.5,
, NORMAL_TRANSITION_VELOCITY=0.01, COULOMB_FRICTION=DYNAMICS_ONLY, MU_STATIC=0.5, MU_DYNAMIC=0.4,
, STICTION_TRANSITION_VELOCITY=0.1, FRICTION_TRANSITION_VELOCITY=1
CONTACT/6, IGEOM=30, JGEOM=10, IMPACT, STIFFNESS=1e5
SIMULATE/END=1, DTOUT=0.01
"""


def tame(x):
    """fuzz_real's encoding of a multiple of 1/8 in [-16, 15.875] (mode byte < 160, then an int8)."""
    return bytes([0, int(round(x * 8)) & 0xFF])


def tame_pose(t, q=(1, 0, 0, 0)):
    """fuzz_pose: three reals, then a mode byte < 192 and a quaternion of int8s."""
    return b"".join(tame(c) for c in t) + bytes([0]) + bytes(c & 0xFF for c in q)


def mesh_create_seed(v, t, flags=2):
    """fuzz_mesh_create.c: flags, counts, coordinates, indices, then a probe point pair and a pose."""
    b = bytes([flags, len(v), len(t)])
    b += b"".join(tame(c) for p in v for c in p)
    b += bytes(i for tri in t for i in tri)
    b += b"".join(tame(c) for c in (0.25, 0.25, 0.25)) * 2
    return b + tame_pose((0.5, 0.25, 0.125))


def query_seed(a, b, ta, tb, q=(1, 0, 0, 0)):
    """fuzz_query.c: per side shape, flip byte (non-zero: not flipped), scale mode (< 128: 1), pose; then the
    options: depth method, workers, pair capacity, region capacity."""
    out = b""
    for shape, t, quat in ((a, ta, (1, 0, 0, 0)), (b, tb, q)):
        out += bytes([shape, 1, 0]) + tame_pose(t, quat)
    return out + bytes([0, 0, 64, 32])


def world_seed():
    """fuzz_world.c: world def bytes, no extra meshes, then operations: two bodies, a contact, poses, velocities,
    evaluations and reads."""
    out = bytes([1, 0, 2, 2, 2]) + bytes([255, 255])
    # create body (op 0): shape, pose, twist mode (< 128: zero), flip byte (non-zero), on the cube and the sphere
    out += bytes([0, 1]) + tame_pose((0, 0, 0)) + bytes([0, 1])
    out += bytes([0, 4]) + tame_pose((0, 0, 1.75)) + bytes([200]) + b"".join(tame(c) for c in (0, 0, -1, 0, 0, 1))
    out += bytes([1])
    # create contact (op 3): one I body (the first), one J body (the second), IMPACT with friction on
    out += bytes([3, 0, 0, 0, 1]) + bytes([0, 1, 0, 0, 0])
    out += bytes([8, 0])  # evaluate, read with capacity 0
    out += bytes([5, 1]) + tame_pose((0.25, 0, 1.5), (2, 1, 0, 0))  # set pose of body 2
    out += bytes([9, 8])  # evaluate, read 8 records
    out += bytes([12, 1, 9, 8, 13, 0, 0])  # static analysis, evaluate, getters
    return out


def main():
    out = sys.argv[1]
    seeds = {
        "stl_ascii": {"cube.stl": stl_ascii(CUBE_V, CUBE_T), "tet_crlf.stl": stl_ascii(TET_V, TET_T, "t", "\r\n"),
                      "upper.stl": stl_ascii(TET_V, TET_T).upper()},
        # the first byte is the harness's mode (see fuzz_reader.c)
        "stl_binary": {"cube.bin": b"\0" + stl_binary(CUBE_V, CUBE_T),
                       "tail.bin": b"\1" + stl_binary(TET_V, TET_T) + b"\0" * 60,
                       "solid.bin": b"\2" + stl_binary(TET_V, TET_T, b"solid but binary")},
        "obj": {"cube_quads.obj": obj(CUBE_V, CUBE_Q), "tet_neg.obj": obj(TET_V, TET_T, neg=True)},
        "off": {"cube.off": off(CUBE_V, CUBE_Q), "tet_coff.off": off(TET_V, TET_T, "COFF")},
        "shl": {"cube.shl": shl(CUBE_V, CUBE_Q, scale=0.001), "tet_v2.shl": shl(TET_V, TET_T, version2=True)},
        "ply": {"cube_ascii.ply": ply_ascii(CUBE_V, CUBE_Q), "tet_binary.ply": ply_binary(TET_V, TET_T)},
        # the first byte is the harness's mode (see fuzz_reader.c): even, a model the harness packs; odd, a package
        "3mf": {"cube_model.bin": b"\0" + threemf_model(CUBE_V, CUBE_T).encode(),
                "components_model.bin": b"\0" + threemf_model(CUBE_V, CUBE_T, True).encode(),
                "cube.3mf": b"\1" + threemf(CUBE_V, CUBE_T),
                "cube_deflated.3mf": b"\1" + threemf(CUBE_V, CUBE_T, zipfile.ZIP_DEFLATED)},
        "gltf": {"cube.gltf": gltf(CUBE_V, CUBE_T),
                 "tet_matrix.gltf": gltf(TET_V, TET_T, [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1])},
        "glb": {"cube.glb": glb(CUBE_V, CUBE_T)},
        "dae": {"cube.dae": dae(CUBE_V, CUBE_T), "scene.dae": dae_scene(CUBE_V, CUBE_Q)},
        "scenario": {"ball_drop.scn": BALL_DROP, "shapes.scn": SHAPES},
        "mesh_create": {"cube.bin": mesh_create_seed(CUBE_V, CUBE_T), "tet.bin": mesh_create_seed(TET_V, TET_T, 3),
                        "open.bin": mesh_create_seed(TET_V, TET_T[:3], 0)},
        "query": {"cube_sphere.bin": query_seed(1, 4, (0, 0, 0), (0, 0, 1.5)),
                  "torus_cylinder.bin": query_seed(6, 5, (0, 0, 0), (1, 0, 0), (1, 1, 0, 0)),
                  "cavity_tet.bin": query_seed(3, 0, (0, 0, 0), (0.5, 0.5, 0.5)),
                  "l_cube.bin": query_seed(2, 1, (0, 0, 0), (1.5, 1.5, 0.5))},
        "world": {"two_bodies.bin": world_seed()},
    }
    for harness, files in seeds.items():
        os.makedirs(os.path.join(out, harness), exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(out, harness, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
