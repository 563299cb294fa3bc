#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The animation of `meshcontact simulate` (src/app/anim_gltf.c) against the run's CSVs, read independently of the
writer (Python's struct and json on the GLB bytes):
  - the default outputs include <name>.glb and <name>.html; --no-animation writes neither;
  - the GLB's structure: header, chunks, every accessor inside its bufferView and the buffer;
  - on data/spot_drop.scn cut to 0.25 s (Spot lands, the ball hits her), keyframes: every output time of the motion
    CSV is a keyframe; each moving part's node translation and rotation at it equal the CSV's centre of mass
    position and orientation to 1e-6 relative (the GLB holds float32: 6e-8 relative rounding; the CSV %.9g: 5e-9);
    the ground part's static node equals its CSV pose;
  - the peaks: each contacts-CSV fn_peak_time strictly between two output times, with fn_peak above the normal force
    at both ends, is a keyframe (float32 of the time);
  - the arrows at each output keyframe: arrow k of a contact stands at the k-th region of that contact in the tracks
    CSV (same point to 1e-6 relative to the scene), with length |F| times the stated force scale >= its normal force
    (|F| includes friction) and zero scale for absent regions;
  - geometry: Spot's mesh is the OBJ's (5856 triangles, its bounding box times SCALE=0.1 to float precision); a
    300k-triangle sphere (made by `meshcontact primitive`) is shown decimated to at most 250,000 triangles and at
    least half that, every shown vertex within 1 % of the radius from the exact sphere, no degenerate triangle, and
    the shown mesh's enclosed volume within 2 % of the sphere's (closed and outward);
  - determinism: a second run with another thread count gives the same GLB bytes;
  - the Khronos glTF validator (npm gltf-validator) reports no error and no warning, when node and the package are
    found (MC_NPM_PREFIX, default the prefix tests/install-deps.sh installs into); otherwise that part is skipped with
    a message.
Usage: check_anim.py MESHCONTACT DATA_DIR"""
import array
import csv
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

NPM_PREFIX_DEFAULT = "/opt/meshcontact-npm"


def fail(msg):
    print("check_anim: " + msg, file=sys.stderr)
    sys.exit(1)


def read_glb(path):
    data = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != 0x46546C67 or version != 2 or length != len(data):
        fail(f"{path}: bad GLB header {magic:#x} {version} {length} (file {len(data)})")
    jlen, jtype = struct.unpack_from("<II", data, 12)
    if jtype != 0x4E4F534A or jlen % 4:
        fail("first chunk is not a 4-aligned JSON chunk")
    gltf = json.loads(data[20:20 + jlen])
    blen, btype = struct.unpack_from("<II", data, 20 + jlen)
    if btype != 0x004E4942 or 28 + jlen + blen != len(data):
        fail("second chunk is not the BIN chunk ending the file")
    binary = data[28 + jlen:28 + jlen + blen]
    if gltf["buffers"][0]["byteLength"] > blen:
        fail("buffer longer than the BIN chunk")
    return gltf, binary


def accessor(gltf, binary, index):
    """The accessor's values as a list of tuples (float32 or uint32, little-endian)."""
    acc = gltf["accessors"][index]
    view = gltf["bufferViews"][acc["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    size = 4 * width * acc["count"]
    start = view["byteOffset"] + acc.get("byteOffset", 0)
    if start % 4 or start + size > view["byteOffset"] + view["byteLength"] or start + size > len(binary):
        fail(f"accessor {index} outside its bufferView or the buffer")
    values = array.array("I" if acc["componentType"] == 5125 else "f", binary[start:start + size])
    if sys.byteorder != "little":
        values.byteswap()
    return list(zip(*[iter(values)] * width))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def close(a, b, scale=0.0, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), scale)


def run(exe, args):
    # passive: OpenMP's spinning waits made the 2-thread run take 25 times the CPU on a loaded machine
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    r = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fail(f"{' '.join(args)} failed: {r.stderr}")
    return r


def check_keyframes(gltf, binary, out):
    nodes = gltf["nodes"]
    by_name = {n["name"]: i for i, n in enumerate(nodes)}
    anim = gltf["animations"][0]
    rows = list(csv.DictReader(open(os.path.join(out, "spot_drop.csv"))))
    times = None
    tracks = {}
    for ch in anim["channels"]:
        s = anim["samplers"][ch["sampler"]]
        t = [v[0] for v in accessor(gltf, binary, s["input"])]
        if times is None:
            times = t
        elif t != times:
            fail("samplers with different inputs")
        tracks[(ch["target"]["node"], ch["target"]["path"])] = (s["interpolation"], accessor(gltf, binary, s["output"]))
    if any(b <= a for a, b in zip(times, times[1:])):
        fail("keyframe times are not strictly increasing")
    index = {t: k for k, t in enumerate(times)}
    moving = 0
    for pid in (1, 2, 3):
        node = by_name[f"PART/{pid}"]
        animated = (node, "translation") in tracks
        moving += animated
        for row in rows:
            t = f32(float(row["time"]))
            if t not in index:
                fail(f"output time {row['time']} is not a keyframe")
            k = index[t]
            p = [float(row[f"part{pid}_{c}"]) for c in "xyz"]
            q = [float(row[f"part{pid}_q{c}"]) for c in "xyzw"]  # glTF order x, y, z, w
            if animated:
                gp = tracks[(node, "translation")][1][k]
                gq = tracks[(node, "rotation")][1][k]
            else:
                gp, gq = nodes[node]["translation"], nodes[node]["rotation"]
            if not all(close(a, b) for a, b in zip(gp, p)) or not all(close(a, b) for a, b in zip(gq, q)):
                fail(f"PART/{pid} at t = {row['time']}: glTF {gp} {gq}, CSV {p} {q}")
    if moving != 2:
        fail(f"expected 2 animated parts (Spot and the ball), got {moving}")
    return times, tracks, by_name, rows


def check_peaks(times, out):
    rows = list(csv.DictReader(open(os.path.join(out, "spot_drop_contacts.csv"))))
    fn = {}
    keyset = set(times)
    checked = 0
    for r in rows:
        c, t = r["contact"], float(r["time"])
        prev = fn.get(c)
        if prev is not None:
            tp, fp = float(r["fn_peak_time"]), float(r["fn_peak"])
            if prev[0] < tp < t and fp > prev[1] and fp > float(r["fn"]):
                checked += 1
                if f32(tp) not in keyset:
                    fail(f"contact {c}: peak at {tp} between {prev[0]} and {t} is not a keyframe")
        fn[c] = (t, float(r["fn"]))
    if checked == 0:
        fail("no force peak between output times to check (the demo has impacts between them)")
    return checked


def check_arrows(gltf, times, tracks, by_name, out):
    extras = gltf["scenes"][0]["extras"]
    scale = extras["arrow_length_per_force"]
    size = math.dist(extras["bounds"][:3], extras["bounds"][3:])
    regions = {}
    for r in csv.DictReader(open(os.path.join(out, "spot_drop_tracks.csv"))):
        regions.setdefault((f32(float(r["time"])), r["contact"]), []).append(r)
    checked = 0
    for contact in ("1", "2", "3"):
        k = 0
        while f"CONTACT/{contact} arrow {k}" in by_name:
            node = by_name[f"CONTACT/{contact} arrow {k}"]
            interp, pos = tracks[(node, "translation")]
            _, sc = tracks[(node, "scale")]
            if interp != "STEP":
                fail("arrows are not STEP-interpolated")
            for (t, c), regs in regions.items():
                if c != contact:
                    continue
                i = times.index(t)
                if k >= len(regs):
                    if sc[i] != (0.0, 0.0, 0.0):
                        fail(f"CONTACT/{c} arrow {k} shown at t = {t} without a region")
                    continue
                p = [float(regs[k][a]) for a in "xyz"]
                if not all(close(a, b, size) for a, b in zip(pos[i], p)):
                    fail(f"CONTACT/{c} arrow {k} at t = {t}: at {pos[i]}, tracks CSV {p}")
                if sc[i][1] < float(regs[k]["fn"]) * scale * (1 - 1e-5):
                    fail(f"CONTACT/{c} arrow {k} at t = {t}: length {sc[i][1]} < fn {regs[k]['fn']} x {scale}")
                checked += 1
            k += 1
    if checked < 100:
        fail(f"only {checked} arrows checked")
    return checked


def mesh_of(gltf, binary, graphics):
    """(vertices, triangles) of the mesh of node GRAPHICS/<graphics>."""
    node = next(n for n in gltf["nodes"] if n["name"] == f"GRAPHICS/{graphics}")
    prim = gltf["meshes"][node["mesh"]]["primitives"][0]
    pos = accessor(gltf, binary, prim["attributes"]["POSITION"])
    idx = [v[0] for v in accessor(gltf, binary, prim["indices"])]
    return pos, [tuple(idx[k:k + 3]) for k in range(0, len(idx), 3)]


def check_spot_mesh(gltf, binary, data):
    pos, tris = mesh_of(gltf, binary, 2)
    if len(tris) != 5856:
        fail(f"Spot shown with {len(tris)} triangles, not the 5856 of the file")
    obj = [[0.1 * float(x) for x in line.split()[1:4]] for line in open(os.path.join(data, "spot.obj"))
           if line.startswith("v ")]
    for a in range(3):
        lo, hi = min(v[a] for v in obj), max(v[a] for v in obj)
        glo, ghi = min(v[a] for v in pos), max(v[a] for v in pos)
        if not (close(lo, glo, 0.1) and close(hi, ghi, 0.1)):
            fail(f"Spot's bounding box along axis {a}: glTF {glo}..{ghi}, OBJ x 0.1 {lo}..{hi}")


def check_decimation(exe, tmp):
    r_exact, limit = 0.05, 250000
    stl = os.path.join(tmp, "s300.stl")
    run(exe, ["primitive", "sphere", "--radius", str(r_exact), "--triangles", "300000", "-o", stl])
    scn = os.path.join(tmp, "dec.scn")
    with open(scn, "w") as f:
        f.write("ACCGRAV/KGRAV=-9.81\nPART/1, GROUND\n"
                "GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05\n"
                "PART/2, MASS=0.5, IP=4e-4,4e-4,4e-4, QG=0,0,0.2\nGRAPHICS/2, PART=2, FILE=s300.stl\n"
                "CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e5, EXPONENT=1.5\n"
                "SIMULATE/DYNAMIC, END=0.01, STEPS=2\n")
    out = os.path.join(tmp, "dec")
    run(exe, ["simulate", scn, "-o", out])
    gltf, binary = read_glb(os.path.join(out, "dec.glb"))
    pos, tris = mesh_of(gltf, binary, 2)
    if not limit // 2 <= len(tris) <= limit:
        fail(f"the 300k-triangle sphere is shown with {len(tris)} triangles (limit {limit})")
    worst = max(abs(math.sqrt(sum(c * c for c in v)) - r_exact) for v in pos)
    if worst > 0.01 * r_exact:
        fail(f"a decimated vertex lies {worst} off the sphere of radius {r_exact}")
    vol = 0.0
    for a, b, c in tris:
        if len({a, b, c}) < 3 or max(a, b, c) >= len(pos):
            fail(f"degenerate or out-of-range triangle {a, b, c}")
        p, q, w = pos[a], pos[b], pos[c]
        vol += (p[0] * (q[1] * w[2] - q[2] * w[1]) - p[1] * (q[0] * w[2] - q[2] * w[0])
                + p[2] * (q[0] * w[1] - q[1] * w[0])) / 6.0
    exact = 4.0 / 3.0 * math.pi * r_exact ** 3
    if abs(vol - exact) > 0.02 * exact:
        fail(f"the decimated sphere encloses {vol}, the sphere {exact}")
    return len(tris), worst / r_exact


def validate(glb):
    prefix = os.environ.get("MC_NPM_PREFIX", NPM_PREFIX_DEFAULT)
    module = os.path.join(prefix, "node_modules", "gltf-validator")
    node = shutil.which("node")
    if node is None or not os.path.isdir(module):
        print(f"SKIP (validator): node or the npm package gltf-validator under {prefix} not found "
              "(tests/install-deps.sh installs it when npm is there)")
        return
    script = ("const v = require(process.argv[1]);"
              "const d = new Uint8Array(require('fs').readFileSync(process.argv[2]));"
              "v.validateBytes(d).then(r => { console.log(JSON.stringify(r.issues));"
              "process.exit(r.issues.numErrors + r.issues.numWarnings ? 1 : 0); },"
              "e => { console.error(e); process.exit(2); });")
    r = subprocess.run([node, "-e", script, module, glb], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"gltf-validator: {r.stdout} {r.stderr}")
    issues = json.loads(r.stdout)
    print(f"gltf-validator: {issues['numErrors']} errors, {issues['numWarnings']} warnings, {issues['numInfos']} infos")


def main():
    exe, data = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="mc_anim.")
    try:
        # The demo cut to its first 0.25 s (Spot lands at 0.1 s, the ball hits her at 0.2 s): two runs of the whole
        # 0.6 s took 25 s of CPU under AddressSanitizer.
        scn = os.path.join(tmp, "spot_drop.scn")
        shutil.copy(os.path.join(data, "spot.obj"), tmp)
        with open(os.path.join(data, "spot_drop.scn")) as src, open(scn, "w") as dst:
            text = src.read()
            if "END=0.6, STEPS=600" not in text:
                fail("data/spot_drop.scn no longer ends with END=0.6, STEPS=600: update this test")
            dst.write(text.replace("END=0.6, STEPS=600", "END=0.25, STEPS=250"))
        out = os.path.join(tmp, "out")
        r = run(exe, ["simulate", scn, "-o", out])
        for f in ("spot_drop.glb", "spot_drop.html"):
            if not os.path.getsize(os.path.join(out, f)) or os.path.join(out, f) not in r.stdout:
                fail(f"{f} not written or not named on stdout")
        gltf, binary = read_glb(os.path.join(out, "spot_drop.glb"))
        times, tracks, by_name, rows = check_keyframes(gltf, binary, out)
        peaks = check_peaks(times, out)
        arrows = check_arrows(gltf, times, tracks, by_name, out)
        check_spot_mesh(gltf, binary, data)
        shown, off = check_decimation(exe, tmp)
        html = open(os.path.join(out, "spot_drop.html"), encoding="utf-8").read()
        if "@@" in html or "Three.js Authors" not in html or "class GLTFLoader" not in html:
            fail("the page has an unfilled marker or no three.js")
        out2 = os.path.join(tmp, "out2")
        run(exe, ["simulate", scn, "-o", out2, "--threads", "2"])
        glb1 = open(os.path.join(out, "spot_drop.glb"), "rb").read()
        if glb1 != open(os.path.join(out2, "spot_drop.glb"), "rb").read():
            fail("the GLB differs between two runs (1 and 2 threads)")
        out3 = os.path.join(tmp, "out3")
        run(exe, ["simulate", os.path.join(data, "ball_drop.scn"), "-o", out3, "--no-animation"])
        if any(f.endswith((".glb", ".html")) for f in os.listdir(out3)):
            fail("--no-animation wrote the animation")
        print(f"check_anim: {len(rows)} output rows and {len(times) - len(rows)} peak keyframes match the CSVs "
              f"({peaks} peaks, {arrows} arrows checked); the GLB is the same with 1 and 2 threads; "
              f"a 300k-triangle sphere is shown with {shown} triangles, at most {off:.2g} of its radius off")
        validate(os.path.join(out, "spot_drop.glb"))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
