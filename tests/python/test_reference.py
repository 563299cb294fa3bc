# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The binding gives the C results bit for bit: the scene of reference.c (real meshes from data/ and primitives:
mesh reports and arrays, regions with every depth method, triangle pairs, distance, containment, shape queries, a
world with lists and a group, IMPACT with friction and POISSON, wrenches, region records, Jacobian blocks, a second
evaluation after bulk pose and velocity changes, the step hint, the force laws), built here through the package,
every double compared by its bits."""
import struct
import sys

import numpy as np
from conftest import run_helper

import meshcontact as mc


def fnv1a(data):
    h = 14695981039346656037
    for b in bytes(data):
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def id_parts(value):
    return struct.unpack("=iI", int(value).to_bytes(8, sys.byteorder))


class Out(dict):
    def put(self, key, *values):
        vals = []
        for v in values:
            if isinstance(v, (np.ndarray, list, tuple)):
                vals.extend(np.asarray(v).reshape(-1).tolist())
            else:
                vals.append(v.item() if isinstance(v, np.generic) else v)
        self[key] = [int(v) if isinstance(v, bool) else v for v in vals]

    def region(self, prefix, r):
        self.put(f"{prefix}.volume", r["volume"])
        self.put(f"{prefix}.centroid", r["centroid"])
        self.put(f"{prefix}.area", r["area"])
        self.put(f"{prefix}.radius", r["radius"])
        self.put(f"{prefix}.normal", r["normal"])
        self.put(f"{prefix}.depth", r["depth"])
        for f in ("point_i", "point_j", "s_i", "s_j"):
            self.put(f"{prefix}.{f}", r[f])
        self.put(f"{prefix}.crossings", r["crossings"])
        self.put(f"{prefix}.inside_vertices", r["inside_vertices"])

    def mesh(self, name, m):
        r = m.report
        self.put(f"{name}.counts", m.vertex_count, m.triangle_count)
        self.put(f"{name}.volume", r.volume)
        self.put(f"{name}.area", r.area)
        self.put(f"{name}.signed_volume_as_read", r.signed_volume_as_read)
        self.put(f"{name}.bbox", list(r.bbox_min) + list(r.bbox_max))
        self.put(f"{name}.positions_hash", fnv1a(m.vertices.tobytes()))
        self.put(f"{name}.indices_hash", fnv1a(m.triangles.tobytes()))


def python_side(data):
    out = Out()
    spot = mc.Mesh.load(data / "spot.obj")
    knob = mc.Mesh.load(data / "prusa" / "LCD-knob.stl", scale=1e-3)
    ball = mc.Mesh.primitive("ellipsoid", (0.3, 0.3, 0.3), triangles=2000)
    plate = mc.box(3.0, 3.0, 0.2)
    torus = mc.torus(0.2, 0.05)
    for name, m in (("spot", spot), ("knob", knob), ("ball", ball), ("plate", plate), ("torus", torus)):
        out.mesh(name, m)
    v, f = mc.tessellate("frustum", (0.3, 0.1, 0.5), chord_tolerance=1e-3)
    out.put("frustum.counts", len(v), len(f))
    out.put("frustum.hash", fnv1a(v.tobytes()), fnv1a(f.tobytes()))

    pa = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    pb = [0.2, -0.1, 0.55, 0.9, 0.1, 0.3, -0.2]
    for depth in ("adams", "volume_area", "extent", "smooth"):
        rs = mc.regions(spot, pa, ball, pb, depth=depth)
        out.put(f"regions.{depth}.count", len(rs))
        for k, r in enumerate(rs):
            out.region(f"regions.{depth}.{k}", r)
    pairs = mc.triangle_pairs(spot, pa, ball, pb)
    out.put("pairs.count", len(pairs))
    for k, p in enumerate(pairs):
        vals = [p["i"], p["j"]]
        for x in p["crossing"]:
            vals += list(x["point"]) + [x["body"], x["edge"], x["entering"], x["degenerate"]]
        out.put(f"pairs.{k}", *vals)
    d = mc.distance(spot, pa, knob, [1.5, 0.25, -0.125, 0.5, 0.5, 0.5, 0.5], max_distance=1e300)
    out.put("distance", d.distance)
    out.put("distance.point_i", list(d.point_i))
    out.put("distance.point_j", list(d.point_j))
    out.put("distance.triangles", d.triangle_i, d.triangle_j)
    out.put("distance.kind", d.kind)
    for k in range(8):
        q = (-0.4 + 0.1 * k, 0.05 * k - 0.2, 0.125 * (k % 3) - 0.1)
        out.put(f"contains.{k}", int(spot.contains(q)))
    ident = [0, 0, 0, 1, 0, 0, 0]
    cases = [
        ("plane_sphere", mc.Shape.plane(), ident, mc.Shape.sphere(0.25), [0.0, 0.0, 0.2, 1, 0, 0, 0]),
        ("cylinder_plane", mc.Shape.cylinder(0.1, 0.4), [0, 0, 0.15, 0.9, 0.3, 0.1, 0.0], mc.Shape.plane(), ident),
        ("sphere_mesh", mc.Shape.sphere(0.25), [0.1, 0.2, 0.3, 1, 0, 0, 0], ball, [0.0, 0.1, 0.0, 0.8, 0.0, 0.6, 0.0]),
    ]
    for name, a, pose_a, b, pose_b in cases:
        rs = mc.regions(a, pose_a, b, pose_b)
        out.put(f"shape.{name}.count", len(rs))
        for k, r in enumerate(rs):
            out.region(f"shape.{name}.{k}", r)

    with mc.World(threads=2) as w:
        meshes = [plate, spot, ball, torus, knob]
        sx, sy = [0.0, 0.0, 0.75, -0.75, 0.5], [0.0, 0.0, 0.25, 0.5, -0.625]
        ids = []
        for k, m in enumerate(meshes):
            z = 0.0 if k == 0 else 0.1 - m.report.bbox_min[2] - 0.01
            ids.append(w.create_body(m, [sx[k], sy[k], z, 1, 0, 0, 0], [0.01 * k, -0.02, -0.1, 0.0, 0.1 * k, 0.5]))
        w.create_contact(ids[:1], ids[1:], model=mc.ForceModel(stiffness=1e6, damping=1e2, dmax=1e-3, friction="on"))
        w.create_contact(ids[1:], model=mc.ForceModel(normal_law="poisson", penalty=1e5, restitution=0.5),
                         depth="volume_area")  # fmt: skip
        w.evaluate()
        world_out(out, w, "world.0", ids)
        zs = 0.1 - spot.report.bbox_min[2] - 0.0125
        w.set_poses(ids[1:3], [[0.0625, 0.0, zs, 0.99, 0.0, 0.0, 0.05], [0.5, 0.375, 0.1 + 0.3 - 0.02, 1, 0, 0, 0]])
        w.set_velocities(ids[1:3], [[0.1, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, -0.05, -0.2, 0.3, 0.0, 0.0]])
        w.evaluate()
        world_out(out, w, "world.1", ids)
        out.put("world.hint", w.step_hint())
    out.put("impact", mc.impact_force(1e-3, 0.2, 1e7, 1.5, 1e3, 1e-3))
    out.put("poisson", mc.poisson_force(1e-3, -0.1, 1e5, 0.5, 1e-2))
    out.put("mu", mc.friction_coefficient(0.05, 0.3, 0.1, 0.1, 1.0))
    for m in (spot, knob, ball, plate, torus):
        m.close()
    return out


def world_out(out, w, tag, ids):
    si = w.step_info()
    out.put(f"{tag}.info", si.flags, si.candidate_pairs, si.touching_pairs, si.regions, si.rejected_regions,
            si.reused_pairs, si.triangle_pairs)  # fmt: skip
    for k, wr in enumerate(w.wrenches(ids)):
        out.put(f"{tag}.wrench.{k}", wr)
    recs = w.regions()
    out.put(f"{tag}.records", len(recs))
    for k, r in enumerate(recs):
        key = f"{tag}.record.{k}"
        out.put(f"{key}.ids", *id_parts(r["contact"]), *id_parts(r["body_i"]), *id_parts(r["body_j"]))
        out.region(f"{key}.region", r["region"])
        out.put(f"{key}.forces", r["rate"], r["slip_velocity"], r["slip_speed"], r["spin_rate"], r["normal_force"],
                r["friction_force"], r["friction_torque"], r["friction_coefficient"], r["rejected"],
                r["sticking"])  # fmt: skip
    jac = w.jacobian()
    out.put(f"{tag}.jacobian", len(jac))
    for k, b in enumerate(jac):
        out.put(f"{tag}.jacobian.{k}", id_parts(b["body_i"])[0], id_parts(b["body_j"])[0], b["regions"], b["flags"],
                fnv1a(b["stiffness"].tobytes()), fnv1a(b["damping"].tobytes()))  # fmt: skip


def c_side(exe, data):
    out = {}
    text = run_helper([exe, data])
    for line in text.splitlines():
        key, *tokens = line.split()
        out[key] = [float.fromhex(x) if ("x" in x or x in ("inf", "-inf", "nan")) else int(x) for x in tokens]
    return out


def norm(values):
    return [("f", struct.pack("<d", v)) if isinstance(v, float) else ("i", int(v)) for v in values]


def test_python_gives_the_c_results_bit_for_bit(reference_exe, data):
    want = c_side(reference_exe, data)
    got = python_side(data)
    only_c, only_py = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    assert not only_c and not only_py, f"keys only in C: {only_c[:10]}, only in Python: {only_py[:10]}"
    bad = [k for k in sorted(want) if norm(got[k]) != norm(want[k])]
    assert not bad, "\n".join(f"{k}: C {want[k]} Python {got[k]}" for k in bad[:10])
    # The scene is not trivial: regions with every depth method, pairs, two worlds' records and Jacobian blocks.
    assert want["regions.adams.count"][0] >= 1 and want["pairs.count"][0] > 10
    assert want["world.0.records"][0] >= 4 and want["world.1.jacobian"][0] >= 3
