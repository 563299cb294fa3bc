#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# The simulator's integrators compared in one run: each scenario simulated with BDF (the default) and with RK4 by
# `meshcontact simulate`, one process after the other, reporting CPU time (user + system of the child, the figure
# that a machine shared with other jobs does not distort much), wall time, contact evaluations, integration steps,
# and the difference of the final states; for the steel ball, the first rebound apex against a fine-step RK4.
# Usage: integrator_bench.py MESHCONTACT [--quick] > result.md   (run from the repository's top directory)
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

SCENARIOS = ["bench/scenarios/knob_drop.scn", "bench/scenarios/steel_ball.scn", "data/ball_drop.scn",
             "data/ball_pile.scn", "data/spot_drop.scn"]


def run(exe, scn, outdir, extra):
    """Simulate; return (cpu seconds, wall seconds, summary line, JSON, CSV rows)."""
    os.makedirs(outdir, exist_ok=True)
    cmd = [exe, "simulate", scn, "-o", outdir] + extra
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    out = proc.stdout.read()
    err = proc.stderr.read()
    if status != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
    stem = os.path.splitext(os.path.basename(scn))[0]
    with open(os.path.join(outdir, stem + ".json")) as f:
        js = json.load(f)
    with open(os.path.join(outdir, stem + ".csv")) as f:
        rows = list(csv.DictReader(f))
    return usage.ru_utime + usage.ru_stime, wall, out.splitlines()[0], js, rows


def evaluations(summary):
    return int(summary.split(" contact evaluations")[0].split()[-1])


def final_difference(rows_a, rows_b):
    """Largest distance between the final centre-of-mass positions of the parts, and the largest difference of the
    final orientations (angle of the relative rotation, radians)."""
    a, b = rows_a[-1], rows_b[-1]
    parts = sorted({k.split("_")[0] for k in a if k.startswith("part")})
    dp, dq = 0.0, 0.0
    for p in parts:
        pa = [float(a[p + "_" + c]) for c in "xyz"]
        pb = [float(b[p + "_" + c]) for c in "xyz"]
        dp = max(dp, math.dist(pa, pb))
        qa = [float(a[p + "_q" + c]) for c in "wxyz"]
        qb = [float(b[p + "_q" + c]) for c in "wxyz"]
        dot = min(1.0, abs(sum(x * y for x, y in zip(qa, qb))))
        dq = max(dq, 2.0 * math.acos(dot))
    return dp, dq


def first_apex(rows, part="part2"):
    """Height of the first apex after the first bounce (vz turning from up to down after having been up)."""
    up = False
    best = -math.inf
    for r in rows:
        vz = float(r[part + "_vz"])
        z = float(r[part + "_z"])
        if vz > 0:
            up = True
            best = max(best, z)
        elif up:
            return best
    return best


def main():
    exe = os.path.abspath(sys.argv[1])
    quick = "--quick" in sys.argv
    tmp = tempfile.mkdtemp(prefix="mc_integrator_bench.")
    print("| scenario | integrator | CPU s | wall s | contact evaluations | steps (rejected, at onsets) | "
          "Jacobians | final position difference | final angle difference |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|")
    results = {}
    for scn in SCENARIOS:
        if quick and "knob" in scn:
            continue
        name = os.path.splitext(os.path.basename(scn))[0]
        res = {}
        for integ in ["bdf", "rk4"]:
            res[integ] = run(exe, scn, os.path.join(tmp, name + "_" + integ), ["--integrator", integ])
        results[name] = res
        dp, dq = final_difference(res["bdf"][4], res["rk4"][4])
        for integ in ["bdf", "rk4"]:
            cpu, wall, summary, js, _ = res[integ]
            steps = "%d (%d, %d)" % (js["integration_steps"], js["rejected_steps"], js["onset_rejections"])
            if integ == "rk4":
                steps = "%d (fixed %.3g s)" % (js["integration_steps"], js["step"])
            print("| %s | %s | %.2f | %.2f | %d | %s | %s | %s | %s |" % (
                name, integ.upper(), cpu, wall, evaluations(summary), steps,
                js["jacobians"] if integ == "bdf" else "-",
                "%.3g m" % dp if integ == "bdf" else "(reference)", "%.3g rad" % dq if integ == "bdf" else ""))
        print("| %s | RK4 / BDF | %.1fx | %.1fx | %.1fx | | | | |" % (
            name, res["rk4"][0] / max(res["bdf"][0], 1e-9), res["rk4"][1] / max(res["bdf"][1], 1e-9),
            evaluations(res["rk4"][2]) / max(evaluations(res["bdf"][2]), 1)))
    # The steel ball's first rebound apex against RK4 with a step of 1e-6 s.
    scn = "bench/scenarios/steel_ball.scn"
    fine = run(exe, scn, os.path.join(tmp, "steel_ball_fine"), ["--integrator", "rk4", "--hmax", "1e-6"])
    ref = first_apex(fine[4])
    print()
    print("Steel ball, first rebound apex (height of the centre; the ball touches the plate at z = 0.05, dropped "
          "from 0.1): fine-step RK4 (step 1e-6 s, %d contact evaluations, %.1f s CPU) %.6f m." % (
              evaluations(fine[2]), fine[0], ref))
    print()
    print("| integrator | apex (m) | difference of the rebound height (apex - 0.05) from the reference |")
    print("|---|---:|---:|")
    for integ in ["bdf", "rk4"]:
        apex = first_apex(results["steel_ball"][integ][4])
        print("| %s | %.6f | %.3f %% |" % (integ.upper(), apex, 100.0 * abs(apex - ref) / (ref - 0.05)))


if __name__ == "__main__":
    main()
