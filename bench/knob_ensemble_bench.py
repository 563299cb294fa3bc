#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Two builds of `meshcontact simulate` (BDF) on an ensemble of one scenario: the same scenario started at several
# heights a few nanometres apart (the z of its first QG= moved by k * DZ, k = -N/2 .. N/2 - 1, 0 being the shipped
# scenario), each start run by both builds one after the other. The knob drop's resting contact chatters, so one run
# of each build says little (a relative change of 1e-7 in the Jacobian, or of 1e-8 m in the start, moves its step
# count by 30 %); the ensemble's medians and sums do. Prints one markdown row per start and build (CPU time of the
# child, steps, rejected steps and the Newton failures among them, Jacobians, contact evaluations, contact incidents)
# and a summary of both builds.
# Usage: knob_ensemble_bench.py BEFORE AFTER [--scenario SCN] [--starts N] [--dz DZ] > result.md
#        (from the repository's top directory; SCN default bench/scenarios/knob_drop.scn, N 8, DZ 1e-8)
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from integrator_bench import run  # noqa: E402


def counts(summary):
    """(steps, rejected, Newton failures, Jacobians, evaluations, incidents) from simulate's summary line."""
    steps = int(summary.split(" steps of ")[0].split()[-1])
    rejected = int(summary.split(" rejected")[0].split("(")[-1])
    m = re.search(r"(\d+) of them Newton failures", summary)
    newton = int(m.group(1)) if m else -1
    jac = int(summary.split(" Jacobians")[0].split()[-1])
    evals = int(summary.split(" contact evaluations")[0].split()[-1])
    incidents = int(summary.split(" contact incidents")[0].split()[-1])
    return steps, rejected, newton, jac, evals, incidents


def moved_scenario(scn, dz, tmp):
    """A copy of scn in tmp with the first QG's z moved by dz and its FILE= paths made absolute."""
    base = os.path.dirname(os.path.abspath(scn))
    with open(scn) as f:
        text = f.read()
    text = re.sub(r'FILE="([^"]+)"', lambda m: 'FILE="%s"' % os.path.normpath(os.path.join(base, m.group(1))), text)

    def move(m):
        return "QG=%s,%s,%.10g" % (m.group(1), m.group(2), float(m.group(3)) + dz)

    text = re.sub(r"QG=([-0-9.eE+]+),([-0-9.eE+]+),([-0-9.eE+]+)", move, text, count=1)
    path = os.path.join(tmp, os.path.basename(scn))
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    args = sys.argv[1:]
    opts = {"--scenario": "bench/scenarios/knob_drop.scn", "--starts": "8", "--dz": "1e-8"}
    for key in list(opts):
        if key in args:
            k = args.index(key)
            opts[key] = args[k + 1]
            del args[k:k + 2]
    before, after = args
    starts, dz = int(opts["--starts"]), float(opts["--dz"])
    print("| start z offset (m) | build | CPU s | steps | rejected | Newton failures | Jacobians | contact evaluations |"
          " contact incidents |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    res = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(-(starts // 2), starts - starts // 2):
            scn = opts["--scenario"] if k == 0 else moved_scenario(opts["--scenario"], k * dz, tmp)
            for name, exe in (("before", before), ("after", after)):
                cpu, _, summary, _, _ = run(exe, scn, os.path.join(tmp, name), [])
                c = counts(summary)
                res[name].append((cpu,) + c)
                print("| %.0e | %s | %.2f | %d | %d | %d | %d | %d | %d |" % ((k * dz, name, cpu) + c))
                sys.stdout.flush()
    print()
    print("| build | CPU s, sum | CPU s, median | steps, median | steps, sum | rejected, sum | Newton failures, sum |"
          " Jacobians, sum | evaluations, sum |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("before", "after"):
        r = res[name]
        col = list(zip(*r))
        print("| %s | %.2f | %.2f | %d | %d | %d | %d | %d | %d |" % (
            name, sum(col[0]), statistics.median(col[0]), statistics.median(col[1]), sum(col[1]), sum(col[2]),
            sum(col[3]), sum(col[4]), sum(col[5])))
    tb, ta = (sum(x[0] for x in res[n]) for n in ("before", "after"))
    print()
    print("CPU before / after (sums): %.3fx" % (tb / ta))


if __name__ == "__main__":
    main()
