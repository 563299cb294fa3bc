#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Per-call overhead of the Python package against C, on a warm two-body world of ~10k-triangle meshes: a Prusa part
(data/prusa/Spool-holder.stl, 10,320 triangles, in metres) with a sphere of 10,092 triangles (radius 1 cm) pressed
0.5 mm into its top face, IMPACT with friction, one worker thread. The C side is bench_python (bench/bench_python.c),
run as a subprocess between the Python rounds so that both see the same machine load; each round times `--calls`
calls of each kind and keeps the median; the table gives the medians over the rounds (microseconds) and the median of
the rounds' overheads (each Python round against the C round just before it):

  evaluate  World.evaluate() / mc_world_evaluate, J moved by one ulp between calls (the query runs each time)
  step      a host step: set_poses, set_velocities of both bodies, evaluate, wrenches(out=) / the four C calls
  reuse     evaluate at unchanged poses (regions reused: mostly the cost of the call itself)
  cold      evaluate of a world without temporal coherence, J moved by one ulp (the whole query each time;
            a tenth of the calls)

usage: MESHCONTACT_LIBRARY=build/libmeshcontact.so PYTHONPATH=src/python OMP_NUM_THREADS=1 \\
       python3 bench/bench_python.py --c build/bench/bench_python [--calls 2000] [--rounds 7]
"""
import argparse
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import meshcontact as mc

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCALE, RADIUS, TRIANGLES = 1e-3, 0.01, 10000


def scene(mesh_path):
    part = mc.Mesh.load(mesh_path, scale=SCALE)
    ball = mc.sphere(RADIUS, triangles=TRIANGLES)
    v = part.vertices
    top = v[v[:, 2] >= v[:, 2].max() - 1e-12]
    pose = np.array([top[:, 0].mean(), top[:, 1].mean(), v[:, 2].max() + RADIUS - 5e-4, 1.0, 0.0, 0.0, 0.0])
    if len(mc.regions(part, None, ball, pose)) == 0:
        sys.exit("bench_python.py: the sphere does not touch the part's top face")
    return part, ball, pose


def make_world(part, ball, poses, twists, coherence=True):
    """The world of bench_python.c, warmed up the same way (each round starts from a new one on both sides: the
    cost of an evaluation depends on the pair's coherence history)."""
    world = mc.World(threads=1, coherence=coherence)
    ids = np.array([world.create_body(part), world.create_body(ball, poses[0][1])], dtype=np.uint64)
    world.create_contact(ids[:1], ids[1:], model=mc.ForceModel(stiffness=1e7, damping=1e3, dmax=1e-3, friction="on"))
    world.set_velocities(ids, twists)
    world.evaluate()
    world.set_poses(ids, poses[1])
    world.evaluate()
    return world, ids


def python_round(world, ids, poses, twists, calls):
    t = np.empty(calls)
    clock = time.perf_counter
    for k in range(calls):
        world.set_pose(ids[1], poses[k % 2][1])
        t0 = clock()
        world.evaluate()
        t[k] = clock() - t0
    out = {"evaluate": 1e6 * np.median(t)}
    wrenches = np.empty((2, 6))
    for k in range(calls):
        t0 = clock()
        world.set_poses(ids, poses[k % 2])
        world.set_velocities(ids, twists)
        world.evaluate()
        world.wrenches(ids, out=wrenches)
        t[k] = clock() - t0
    out["step"] = 1e6 * np.median(t)
    for k in range(calls):
        t0 = clock()
        world.evaluate()
        t[k] = clock() - t0
    out["reuse"] = 1e6 * np.median(t)
    return out, wrenches[1, :3]


def python_cold(part, ball, poses, twists, calls):
    world = mc.World(threads=1, coherence=False)
    ids = np.array([world.create_body(part), world.create_body(ball, poses[0][1])], dtype=np.uint64)
    world.create_contact(ids[:1], ids[1:], model=mc.ForceModel(stiffness=1e7, damping=1e3, dmax=1e-3, friction="on"))
    world.set_velocities(ids, twists)
    world.evaluate()
    calls = max(1, calls // 10)
    t = np.empty(calls)
    clock = time.perf_counter
    for k in range(calls):
        world.set_pose(ids[1], poses[k % 2][1])
        t0 = clock()
        world.evaluate()
        t[k] = clock() - t0
    world.close()
    return 1e6 * np.median(t)


def c_round(exe, mesh_path, pose, calls):
    args = [exe, str(mesh_path), repr(SCALE)] + [repr(float(x)) for x in pose] + [repr(RADIUS), str(TRIANGLES),
                                                                                   str(calls)]  # fmt: skip
    out = {}
    for line in subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines():
        key, *vals = line.split()
        out[key] = [float.fromhex(v) for v in vals] if key == "check" else float(vals[0])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--c", required=True, help="path of the bench_python executable")
    p.add_argument("--mesh", default=str(ROOT / "data" / "prusa" / "Spool-holder.stl"))
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args(argv)
    part, ball, pose = scene(a.mesh)
    moved = pose.copy()
    moved[0] = np.nextafter(moved[0], np.inf)
    poses = [np.array([[0, 0, 0, 1, 0, 0, 0], pose]), np.array([[0, 0, 0, 1, 0, 0, 0], moved])]
    twists = np.array([[0, 0, 0, 0, 0, 0], [0.1, 0.02, -0.01, 0.0, 0.3, 1.0]])
    world, _ = make_world(part, ball, poses, twists)
    info = world.step_info()
    world.close()
    print(f"scene: {part.triangle_count} + {ball.triangle_count} triangles, regions {info.regions}, "
          f"triangle pairs {info.triangle_pairs}; {a.rounds} rounds of {a.calls} calls")  # fmt: skip
    kinds = ("evaluate", "step", "reuse", "cold")
    py, c = {k: [] for k in kinds}, {k: [] for k in kinds}
    for r in range(a.rounds):
        cr = c_round(a.c, a.mesh, pose, a.calls)
        world, ids = make_world(part, ball, poses, twists)
        pr, force = python_round(world, ids, poses, twists, a.calls)
        world.close()
        pr["cold"] = python_cold(part, ball, poses, twists, a.calls)
        if list(force) != cr["check"]:
            sys.exit(f"bench_python.py: the Python and C forces differ: {list(force)} {cr['check']}")
        for k in py:
            py[k].append(pr[k])
            c[k].append(cr[k])
        print(f"round {r}: " + ", ".join(f"{k} C {c[k][-1]:.2f} Python {py[k][-1]:.2f} us" for k in py), flush=True)
    # The machine's speed drifts between rounds (a shared machine): the overhead is taken round by round, C against
    # the Python round right after it, then the median over the rounds.
    print("\n| call | C (us) | Python (us) | overhead (us) | overhead |")
    print("|---|---:|---:|---:|---:|")
    for k in py:
        cm, pm = statistics.median(c[k]), statistics.median(py[k])
        diff = statistics.median(p - q for p, q in zip(py[k], c[k]))
        ratio = statistics.median(p / q - 1 for p, q in zip(py[k], c[k]))
        print(f"| {k} | {cm:.2f} | {pm:.2f} | {diff:+.2f} | {100 * ratio:+.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
