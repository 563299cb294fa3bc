#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# How the default BDF integrator (the block-sparse NDF, src/app/sim_bdf.c) scales with the parts (issue 41): N
# free-falling parts (no geometry, 0.1 s, 10 output rows) and N analytic balls dropped together onto a plane, alone
# or in stacks of 4 (contacts coupling 4 parts: components of the Newton matrix), one thread. Wall time, CPU time and
# the largest resident set (GNU time -v). GSL's dense msbdf (MC_SIM_BDF=msbdf) at the smaller sizes for comparison.
# Usage: sh bench/bdf_scaling.sh build/meshcontact > result.md   (from the repository's top directory)
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_bdf_scaling.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fall() { # N: free-falling parts
    awk -v N="$1" 'BEGIN { print "ACCGRAV/KGRAV=-9.81"; print "PART/1, GROUND"
        for (i = 0; i < N; i++) printf "PART/%d, MASS=1, IP=0.01,0.01,0.01, QG=%g,%g,1\n", i + 2, (i % 50) * 0.3, int(i / 50) * 0.3
        print "SIMULATE/DYNAMIC, END=0.1, STEPS=10" }'
}
balls() { # N STACK: N balls (radius 0.05 m, 4.084 kg) in columns of STACK onto a plane, 0.3 s
    awk -v N="$1" -v S="$2" 'BEGIN { print "ACCGRAV/KGRAV=-9.81"; print "PART/1, GROUND"; print "GRAPHICS/1, PART=1, PLANE"
        side = int(sqrt(N / S) + 0.999); g = ""
        for (i = 0; i < N; i++) { col = int(i / S); lev = i % S
            z = S > 1 ? 0.06 + lev * 0.1001 : 0.1
            printf "PART/%d, MASS=4.084, IP=4.084e-3,4.084e-3,4.084e-3, QG=%g,%g,%g\n", i + 2, (col % side) * 0.15, int(col / side) * 0.15, z
            printf "GRAPHICS/%d, PART=%d, SPHERE, RADIUS=0.05, ANALYTIC\n", i + 2, i + 2; g = g "," (i + 2) }
        print "CONTACT/1, GROUP=1" g ", IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=1e3, DMAX=1e-4"
        print "SIMULATE/DYNAMIC, END=0.3, STEPS=30" }'
}
run() { # LABEL METHOD SCENARIO
    MC_SIM_BDF="$2" OMP_NUM_THREADS=1 /usr/bin/time -v "$exe" simulate "$3" -o "$tmp"/out --no-animation --threads 1 \
        >"$tmp"/summary 2>"$tmp"/time || { echo "| $1 | $2 | failed: $(grep -v '^\s' "$tmp"/time | head -1) | | | |"; return; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp"/time)
    cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$tmp"/time)
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp"/time)
    steps=$(sed -n 's/.* BDF \([0-9]*\) steps.*/\1/p' "$tmp"/summary | head -1)
    evals=$(sed -n 's/.* \([0-9]*\) contact evaluations.*/\1/p' "$tmp"/summary | head -1)
    echo "| $1 | $2 | $wall | $cpu | $rss | $steps | $evals |"
}
echo "# The BDF integrator against the number of parts"
echo
echo "\`sh bench/bdf_scaling.sh build/meshcontact\` on $(date -u +%Y-%m-%d), one thread (\`--threads 1\`,"
echo "OMP_NUM_THREADS=1), $(nproc) cores shared with other jobs (load $(cut -d' ' -f1 /proc/loadavg) at the start)."
echo "Wall and CPU seconds and the largest resident set of the whole \`simulate\` run (reading, integration, CSV, JSON,"
echo "plot). ndf: the default (block-sparse); msbdf: GSL's dense msbdf (\`MC_SIM_BDF=msbdf\`)."
echo
echo "| scenario | integrator | wall s | CPU s | max RSS MB | steps | contact evaluations |"
echo "|---|---|---:|---:|---:|---:|---:|"
for n in 400 2000 8000; do
    fall "$n" >"$tmp"/fall$n.scn
    run "$n free-falling parts" ndf "$tmp"/fall$n.scn
done
for n in 100 400; do
    fall "$n" >"$tmp"/fall$n.scn
    run "$n free-falling parts" msbdf "$tmp"/fall$n.scn
done
for n in 400 2000; do
    balls "$n" 1 >"$tmp"/balls$n.scn
    run "$n balls onto a plane" ndf "$tmp"/balls$n.scn
    balls "$n" 4 >"$tmp"/stacks$n.scn
    run "$n balls in stacks of 4" ndf "$tmp"/stacks$n.scn
done
balls 100 1 >"$tmp"/balls100.scn
run "100 balls onto a plane" msbdf "$tmp"/balls100.scn
