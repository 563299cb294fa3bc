#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Two builds of `meshcontact simulate` with BDF (the default) on the integrator benchmark's scenarios, run one after
# the other and alternating, each `--repeats` times: the minimum CPU time (user + system of the child), integration
# steps, Jacobians, contact evaluations, and the difference of the final states of the two builds (centre-of-mass
# positions, orientation angles). Written for the analytic contact Jacobians (issue 12): BEFORE takes 24 region
# queries per pair for each Jacobian, AFTER one.
# Usage: jacobian_sim_bench.py BEFORE AFTER [--repeats N] > result.md   (from the repository's top directory)
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from integrator_bench import SCENARIOS, final_difference, run  # noqa: E402


def counts(summary):
    """(steps, rejected, Jacobians, evaluations) from simulate's summary line."""
    steps = int(summary.split(" steps of ")[0].split()[-1])
    rejected = int(summary.split(" rejected")[0].split("(")[-1])
    jac = int(summary.split(" Jacobians")[0].split()[-1])
    evals = int(summary.split(" contact evaluations")[0].split()[-1])
    return steps, rejected, jac, evals


def main():
    args = sys.argv[1:]
    repeats = 1
    if "--repeats" in args:
        k = args.index("--repeats")
        repeats = int(args[k + 1])
        del args[k:k + 2]
    before, after = args
    print("| scenario | build | CPU s (min of %d) | steps (rejected) | Jacobians | contact evaluations |"
          " final position difference | final angle difference |" % repeats)
    print("|---|---|---:|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for scn in SCENARIOS:
            best = {}
            for r in range(repeats):
                for name, exe in (("before", before), ("after", after)):
                    cpu, _, summary, _, rows = run(exe, scn, os.path.join(tmp, name), [])
                    if name not in best or cpu < best[name][0]:
                        best[name] = (cpu, summary, rows)
            stem = os.path.splitext(os.path.basename(scn))[0]
            dp, dq = final_difference(best["before"][2], best["after"][2])
            for name in ("before", "after"):
                cpu, summary, _ = best[name]
                s, rej, jac, ev = counts(summary)
                diff = "(reference)" if name == "before" else "%.3g m" % dp
                ang = "" if name == "before" else "%.3g rad" % dq
                print("| %s | %s | %.2f | %d (%d) | %d | %d | %s | %s |" % (stem, name, cpu, s, rej, jac, ev, diff, ang))
            print("| %s | before / after | %.2fx | | | | | |" % (stem, best["before"][0] / best["after"][0]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
