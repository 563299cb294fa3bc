#!/bin/sh
# Contract checks of `meshcontact sweep scenario` (issue 18), one process: a grid expands to every combination (last
# line fastest) and gives the same bytes as the equivalent table; each run's final state, incidents and peaks equal
# the outputs of `meshcontact simulate` on the scenario edited to the run's values (to the 9 digits simulate prints:
# the last row of its CSV, the rows of its incidents CSV, the largest of its contacts CSV's peak columns); a run that fails is
# reported in its row and the sweep goes on; a killed run resumed with --resume gives the same bytes; unknown or
# inapplicable parameter names are one-line errors; --runs-dir writes each run's CSV, byte-identical to simulate's. Usage: check_cli_sweep_scenario.sh MESHCONTACT
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_sweep_scenario.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_sweep_scenario
. "$(dirname "$0")/cli_common.sh"
export OMP_NUM_THREADS=1

# A ball thrown sideways onto a plate with friction (IMPACT with damping): it lands, slides and rolls.
scenario() { # STIFFNESS MU_STATIC VZ
    cat <<EOF
ACCGRAV/KGRAV=-9.81
PART/1, GROUND
GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
PART/2, MASS=1, IP=4e-4,4e-4,4e-4, QG=0,0,0.06, VX=0.5, VZ=$3
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=$1, EXPONENT=1.5, DAMPING=100, DMAX=1e-4,
, COULOMB_FRICTION=ON, MU_STATIC=$2, MU_DYNAMIC=0.2
SIMULATE/DYNAMIC, END=0.06, STEPS=12
EOF
}
scenario 1e7 0.3 0 >"$tmp"/slide.scn
printf '# three parameters\nSTIFFNESS = 1e6, 1e7\nmu_static/1 = 0.3, 0.5\n\nVZ/2 = 0, -1\n' >"$tmp"/grid.txt
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/grid.csv 2>"$tmp"/err ||
    fail "grid sweep failed: $(cat "$tmp"/err)"
[ "$(wc -l <"$tmp"/grid.csv)" -eq 10 ] || fail "expected a fingerprint line, a header and 8 runs"
sed -n 2p "$tmp"/grid.csv | grep -q "^row,STIFFNESS,mu_static/1,VZ/2,status,evaluations,contact1_incidents,contact1_peak_fn,contact1_peak_ft,contact1_peak_depth,part2_x,part2_y,part2_z,part2_qw,part2_qx,part2_qy,part2_qz,part2_vx,part2_vy,part2_vz,part2_wx,part2_wy,part2_wz,message$" ||
    fail "output header: $(sed -n 2p "$tmp"/grid.csv)"
[ "$(grep -v '^#' "$tmp"/grid.csv | cut -d, -f1-4 | tr '\n' ' ')" = "row,STIFFNESS,mu_static/1,VZ/2 1,1000000,0.3,0 2,1000000,0.3,-1 3,1000000,0.5,0 4,1000000,0.5,-1 5,10000000,0.3,0 6,10000000,0.3,-1 7,10000000,0.5,0 8,10000000,0.5,-1 " ] ||
    fail "grid order: $(grep -v '^#' "$tmp"/grid.csv | cut -d, -f1-4 | tr '\n' ' ')"

# The same runs as a table: the same bytes.
{
    echo "STIFFNESS,mu_static/1,VZ/2"
    for k in 1e6 1e7; do for m in 0.3 0.5; do for v in 0 -1; do echo "$k,$m,$v"; done; done; done
} >"$tmp"/table.csv
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/table.csv -o "$tmp"/table.out || fail "table sweep failed"
cmp -s "$tmp"/grid.csv "$tmp"/table.out || fail "table and grid outputs differ"
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/table.csv -o "$tmp"/t2.out --threads 2 || fail "--threads 2"
cmp -s "$tmp"/grid.csv "$tmp"/t2.out || fail "--threads 2 changed the output"

# --runs-dir: each run's full output besides the same summary.
mkdir -p "$tmp"/runs
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/runs.csv --runs-dir "$tmp"/runs || fail "--runs-dir"
cmp -s "$tmp"/grid.csv "$tmp"/runs.csv || fail "--runs-dir changed the summary"
[ "$(ls "$tmp"/runs | wc -l)" -eq 8 ] || fail "--runs-dir: expected 8 files"
check_error sweep 1 scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/o.csv --runs-dir "$tmp"/no-such-dir

# The oracle: runs 2, 5 and 8 against `meshcontact simulate` on the scenario edited to their values (and their
# --runs-dir files are that CSV, byte for byte).
for run in "2 1e6 0.3 -1" "5 1e7 0.3 0" "8 1e7 0.5 -1"; do
    # shellcheck disable=SC2086
    set -- $run
    scenario "$2" "$3" "$4" >"$tmp"/run.scn
    rm -rf "$tmp"/sim
    "$exe" simulate "$tmp"/run.scn -o "$tmp"/sim >/dev/null 2>&1 || fail "simulate run $1"
    cmp -s "$tmp"/sim/run.csv "$tmp"/runs/run"$1".csv || fail "--runs-dir file of run $1 differs from simulate's CSV"
    python3 - "$tmp"/grid.csv "$1" "$tmp"/sim <<'PY' || fail "run $1 differs from meshcontact simulate"
import csv, sys
sweep = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))[int(sys.argv[2]) - 1]
sim = list(csv.DictReader(open(sys.argv[3] + "/run.csv")))
contacts = [r for r in csv.DictReader(open(sys.argv[3] + "/run_contacts.csv")) if r["contact"] == "1"]
incidents = [r for r in csv.DictReader(open(sys.argv[3] + "/run_incidents.csv")) if r["contact"] == "1"]
assert sweep["status"] == "ok" and sweep["message"] == "", sweep
same = lambda mine, printed: float("%.9g" % float(mine)) == float(printed)
last = sim[-1]
for c in ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]:
    assert same(sweep["part2_" + c], last["part2_" + c]), (c, sweep["part2_" + c], last["part2_" + c])
# Peaks: the largest of the per-row peak columns of simulate's contacts CSV (every integration step).
for mine, theirs in [("peak_fn", "fn_peak"), ("peak_ft", "ft_peak"), ("peak_depth", "depth_peak")]:
    want = max(float(r[theirs]) for r in contacts)
    assert want > 0 and same(sweep["contact1_" + mine], want), (mine, sweep["contact1_" + mine], want)
assert int(sweep["contact1_incidents"]) == len(incidents) >= 1, (sweep["contact1_incidents"], len(incidents))
assert same(sweep["contact1_peak_fn"], max(float(r["max_fn"]) for r in incidents))
PY
done

# A failing run (negative stiffness) and a malformed row: reported in their rows, the others run, exit status 1.
printf 'STIFFNESS,VZ/2\n1e7,0\n-5,0\n1e7,x\n1e7,-1,3\n1e7,-1\n' >"$tmp"/bad.csv
set +e
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/bad.csv -o "$tmp"/bad.out >"$tmp"/out 2>"$tmp"/err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "failing runs: status $rc"
[ "$(wc -l <"$tmp"/err)" -eq 1 ] && grep -q "3 of 5 rows failed (the first: row 2" "$tmp"/err ||
    fail "failing runs: stderr: $(cat "$tmp"/err)"
grep -q '^2,-5,0,error,.*,"\?run failed: .*STIFFNESS = -5 is out of range' "$tmp"/bad.out || fail "negative stiffness row"
grep -q "^3,10000000,,error,.*\"line 4: VZ/2 is 'x', not a finite number\"$" "$tmp"/bad.out || fail "malformed row"
grep -q '^4,10000000,-1,error,.*line 5: 3 values where the header has 2$' "$tmp"/bad.out || fail "long row"
[ "$(sed -n 3p "$tmp"/bad.out | cut -d, -f4-)" = "$(sed -n 7p "$tmp"/grid.csv | cut -d, -f5-)" ] ||
    fail "run 1 of the table differs from the same run of the grid"
grep -q "^5,10000000,-1,ok," "$tmp"/bad.out || fail "the run after the failures"

# Killed after 3 rows (a torn line left), resumed: the same bytes.
set +e
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/kill.csv --kill-after 3 2>/dev/null
rc=$?
set -e
[ "$rc" -gt 128 ] || fail "--kill-after: the process was not killed (status $rc)"
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/kill.csv --resume || fail "resume failed"
cmp -s "$tmp"/grid.csv "$tmp"/kill.csv || fail "killed and resumed output differs"

# Parameter names: unknown, inapplicable, unknown id, twice; whole-file errors.
for bad in "STIFNESS|unknown parameter 'STIFNESS'" "PENALTY|CONTACT/1 is IMPACT, not POISSON" \
    "VZ/1|PART/1 is GROUND" "VZ/7|no PART/7 in" "DENSITY/2|PART/2 is given MASS, not DENSITY" "DENSITY|no PART of" \
    "STIFFNESS/2|no CONTACT/2 in" "VZ,vz|'vz' is given twice"; do
    printf '%s\n1\n' "${bad%%|*}" >"$tmp"/names.csv
    check_error sweep 1 scenario "$tmp"/slide.scn "$tmp"/names.csv -o "$tmp"/o.csv
    grep -q "${bad#*|}" "$tmp".err || fail "message for ${bad%%|*}: $(cat "$tmp".err)"
done
printf 'STIFFNESS = 1e6, 1e7\nVZ/2\n' >"$tmp"/badgrid.txt
check_error sweep 1 scenario "$tmp"/slide.scn "$tmp"/badgrid.txt -o "$tmp"/o.csv
grep -q "line 2: a grid line is NAME = v1, v2" "$tmp".err || fail "grid line message: $(cat "$tmp".err)"
printf 'END\n0\n' >"$tmp"/end.csv
set +e
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/end.csv -o "$tmp"/end.out 2>/dev/null
set -e
grep -q "^1,0,error,.*END is 0; it must be > 0" "$tmp"/end.out || fail "END = 0 row: $(cat "$tmp"/end.out)"
check_error sweep 1 scenario "$tmp"/none.scn "$tmp"/grid.txt -o "$tmp"/o.csv
check_error sweep 1 scenario "$tmp"/slide.scn "$tmp"/none.txt -o "$tmp"/o.csv
check_error sweep 2 scenario "$tmp"/slide.scn "$tmp"/grid.txt
check_error sweep 2 scenario "$tmp"/slide.scn -o "$tmp"/o.csv
echo "meshcontact sweep scenario: CLI contract OK"
