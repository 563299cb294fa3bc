#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# The simulator's own block-sparse NDF (the default BDF) against GSL's dense msbdf (MC_SIM_BDF=msbdf), on every
# shipped scenario (data/*.scn, all with `--integrator bdf`): steps, rejected steps, Newton failures, contact evaluations (the cost), CPU time, and
# the trajectories: the largest distance between the parts' centres of mass over all output rows, of each run from a
# reference, the same integrator at a 100 times tighter tolerance (the scenario's ERROR / 100), and between the two
# references (how far apart two accurate runs are: a chaotic pile's trajectories part after each contact change).
# Usage: bdf_compare.py MESHCONTACT [SCENARIO...] > result.md   (run from the repository's top directory)
import csv
import glob
import math
import os
import subprocess
import sys
import tempfile
import time

DEFAULT_ERROR = 1e-5  # APP_SIM_DEFAULT_ERROR


def run(exe, scn, outdir, method, error=None):
    """Simulate with MC_SIM_BDF=method; return (cpu s, summary line, CSV rows) or None when not a BDF run."""
    os.makedirs(outdir, exist_ok=True)
    cmd = [exe, "simulate", scn, "-o", outdir, "--no-animation", "--threads", "1", "--integrator", "bdf"]
    if error is not None:
        cmd += ["--error", "%g" % error]
    env = dict(os.environ, MC_SIM_BDF=method, OMP_NUM_THREADS="1")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        return None, "failed: " + err.strip().splitlines()[-1] if err.strip() else "failed", []
    stem = os.path.splitext(os.path.basename(scn))[0]
    with open(os.path.join(outdir, stem + ".csv")) as f:
        rows = list(csv.DictReader(f))
    return usage.ru_utime + usage.ru_stime, out.splitlines()[0], rows


def scenario_error(scn):
    """The scenario's INTEGRATOR/ERROR= (the default when not given)."""
    with open(scn) as f:
        for line in f:
            if line.upper().startswith("INTEGRATOR/") and "ERROR=" in line.upper():
                return float(line.upper().split("ERROR=")[1].split(",")[0])
    return DEFAULT_ERROR


def figures(summary):
    """steps, rejected, Newton failures, contact evaluations from the summary line."""
    if " BDF " not in summary:
        return None
    steps = int(summary.split(" BDF ")[1].split()[0])
    rejected = int(summary.split("(")[1].split(" rejected")[0])
    newton = int(summary.split("rejected, ")[1].split(" of them")[0])
    evals = int(summary.split(" contact evaluations")[0].split()[-1])
    return steps, rejected, newton, evals


def distance(rows_a, rows_b):
    """Largest distance between the same part's centre of mass in the same output row."""
    worst = 0.0
    for a, b in zip(rows_a, rows_b):
        parts = sorted({k[: -2] for k in a if k.startswith("part") and k.endswith("_x")})
        for p in parts:
            pa = [float(a[p + "_" + c]) for c in "xyz"]
            pb = [float(b[p + "_" + c]) for c in "xyz"]
            worst = max(worst, math.dist(pa, pb))
    return worst


def main():
    exe = sys.argv[1]
    scenarios = sys.argv[2:] or sorted(glob.glob("data/*.scn"))
    print("# Own block-sparse NDF against GSL msbdf on the shipped scenarios\n")
    print("`python3 bench/bdf_compare.py build/meshcontact` on %s, one thread, `--integrator bdf` (the RK4 scenarios "
          "too), each scenario's tolerance (ERROR=, default %g); references at ERROR / 100. Distances: the largest "
          "over output rows and parts between centres of mass (m)." % (time.strftime("%Y-%m-%d"), DEFAULT_ERROR))
    print()
    print("| scenario | integrator | steps | rejected | Newton failures | contact evaluations | CPU s | "
          "to its reference | to the other's reference | references apart |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for scn in scenarios:
            stem = os.path.splitext(os.path.basename(scn))[0]
            res = {}
            for method in ("ndf", "msbdf"):
                res[method] = run(exe, scn, os.path.join(tmp, stem, method), method)
                res[method + "_ref"] = run(exe, scn, os.path.join(tmp, stem, method + "_ref"), method,
                                           scenario_error(scn) / 100)
            if res["ndf"][0] is None or figures(res["ndf"][1]) is None:
                print("| %s | (not a BDF run: %s) | | | | | | | | |" % (stem, res["ndf"][1][:80]))
                continue
            apart = distance(res["ndf_ref"][2], res["msbdf_ref"][2]) if res["ndf_ref"][0] and res["msbdf_ref"][0] else math.nan
            for method, other in (("ndf", "msbdf"), ("msbdf", "ndf")):
                cpu, summary, rows = res[method]
                if cpu is None:
                    print("| %s | %s | %s | | | | | | | |" % (stem, method, summary[:80]))
                    continue
                steps, rejected, newton, evals = figures(summary)
                own = distance(rows, res[method + "_ref"][2]) if res[method + "_ref"][0] else math.nan
                cross = distance(rows, res[other + "_ref"][2]) if res[other + "_ref"][0] else math.nan
                print("| %s | %s | %d | %d | %d | %d | %.2f | %.2e | %.2e | %.2e |"
                      % (stem, "NDF (own)" if method == "ndf" else "msbdf (GSL)", steps, rejected, newton, evals,
                         cpu, own, cross, apart))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
