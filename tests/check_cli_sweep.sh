#!/bin/sh
# Contract checks of `meshcontact sweep poses` (issue 18), one process: every row equals `meshcontact contact --json`
# (and with a force model `meshcontact force --json`) at the same poses, bit for bit; rows in input order; a failing
# row is reported in its row and the sweep goes on; the output does not depend on the thread count; a run killed
# midway (SIGKILL after N rows, leaving a torn line) and re-run with --resume gives the same bytes as an uninterrupted
# run, and so does a resume from an output cut at any byte; a resume refuses an output of another sweep; errors are
# one stderr line; the distance column is empty in contact and positive when separated. Usage: check_cli_sweep.sh MESHCONTACT
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_sweep.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_sweep
. "$(dirname "$0")/cli_common.sh"
export OMP_NUM_THREADS=1

"$exe" sweep --help >"$tmp"/help.out || fail "sweep --help failed"
grep -q "usage: meshcontact sweep KIND" "$tmp"/help.out || fail "sweep --help text"
"$exe" sweep poses --help >"$tmp"/help.out || fail "sweep poses --help failed"
grep -q "usage: meshcontact sweep poses MESH_I MESH_J POSES.csv" "$tmp"/help.out || fail "sweep poses --help text"

"$exe" primitive box --size 2,2,2 -o "$tmp"/box.shl >/dev/null || fail "primitive box"
"$exe" primitive ellipsoid --radii 0.6,0.4,0.3 --tolerance 0.01 -o "$tmp"/ell.shl >/dev/null || fail "primitive ellipsoid"

# Poses: J passes through I and out again along x while it turns (contact, deep overlap, separation), I tilted; the
# last column group are velocities. Comment and blank lines are not rows.
poses="$tmp"/poses.csv
{
    echo "# a sweep of J through I"
    echo "time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j,vx_i,vy_i,vz_i,wx_i,wy_i,wz_i,vx_j,vy_j,vz_j,wx_j,wy_j,wz_j"
    echo ""
    awk 'BEGIN {
        for (k = 0; k < 60; k++) {
            t = k * 0.05
            printf "%.2f,0.1,0,0,1,0.05,0,0,%.6f,%.6f,0.05,%.6f,0.1,%.6f,0.2,0,0,0,0,0,0.5,-1,0.2,0,0,1,0\n",
                t, 2.4 - 1.6 * t, 0.3 * sin(3 * t), cos(t), sin(t)
        }
    }'
} >"$poses"
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/full.csv 2>"$tmp"/err ||
    fail "sweep failed: $(cat "$tmp"/err)"
[ ! -s "$tmp"/err ] || fail "stderr not empty: $(cat "$tmp"/err)"
[ "$(wc -l <"$tmp"/full.csv)" -eq 62 ] || fail "expected a fingerprint line, a header and 60 rows"
head -1 "$tmp"/full.csv | grep -q "^# meshcontact sweep poses fingerprint: meshes=[0-9a-f]\{16\} options=" ||
    fail "no fingerprint line: $(head -1 "$tmp"/full.csv)"
sed -n 2p "$tmp"/full.csv | grep -qx "row,time,status,triangle_pairs,regions,volume,area,depth,normal_x,normal_y,normal_z,centroid_x,centroid_y,centroid_z,distance,message" ||
    fail "output header: $(sed -n 2p "$tmp"/full.csv)"

# The oracle: every 4th row against `meshcontact contact --json` at the same poses (exact equality of every number:
# both print 17 significant digits of the same computation).
python3 - "$exe" "$tmp" "$poses" "$tmp"/full.csv contact <<'PY' || fail "rows differ from meshcontact contact --json"
import csv, json, subprocess, sys
exe, tmp, poses, out, mode = sys.argv[1:6]
rows = [l for l in open(poses) if l.strip() and not l.startswith("#")]
inp = list(csv.reader(rows))[1:]
res = list(csv.DictReader(l for l in open(out) if not l.startswith("#")))
assert [int(r["row"]) for r in res] == list(range(1, len(inp) + 1))
contacts = 0
for k in range(0, len(inp), 4):
    f, r = inp[k], res[k]
    assert r["status"] == "ok" and r["message"] == "", r
    assert float(r["time"]) == float(f[0])
    args = [exe, mode, tmp + "/box.shl", tmp + "/ell.shl", "--pose-i=" + ",".join(f[1:8]), "--pose-j=" + ",".join(f[8:15]),
            "--json"]
    if mode == "force":
        args += ["--vel-i=" + ",".join(f[15:21]), "--vel-j=" + ",".join(f[21:27]), "--stiffness", "1e5", "--exponent",
                 "1.5", "--damping", "10", "--dmax", "0.01", "--mu-static", "0.3", "--mu-dynamic", "0.2"]
    d = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
    g = d["regions"]
    want = {"triangle_pairs": d["triangle_pairs"], "regions": len(g), "volume": sum(x["volume"] for x in g) if g else 0,
            "area": sum(x["area"] for x in g) if g else 0, "depth": max(x["depth"] for x in g) if g else 0}
    for i, a in enumerate("xyz"):
        want["normal_" + a] = g[0]["normal"][i] if g else 0
        want["centroid_" + a] = g[0]["centroid"][i] if g else 0
    if mode == "force":
        want["fn"] = sum(x["fn"] for x in g) if g else 0
        want["rejected"] = sum(1 for x in g if x["rejected"])
        for i, a in enumerate("xyz"):
            want["force_j_" + a] = d["wrench_j"]["force"][i]
            want["torque_j_" + a] = d["wrench_j"]["torque"][i]
    for key, v in want.items():
        assert float(r[key]) == float(v), (k + 1, key, r[key], v)
    contacts += len(g) > 0
assert contacts >= 5, contacts
# The distance column: empty in contact, the (positive) minimum distance when separated (the value is checked
# against brute force in test_distance); J leaves I along x at 1.6 per unit time, so it grows at the end.
sep = [(float(r["time"]), float(r["distance"])) for r in res if r["regions"] == "0"]
assert all(r["distance"] == "" for r in res if r["regions"] != "0"), "distance given in contact"
assert len(sep) >= 5 and all(d > 0 for t, d in sep), sep
assert sep[-1][1] > sep[-2][1] > sep[-3][1], sep[-3:]
PY

# With a force model (IMPACT with damping, friction; velocities from the table): against `meshcontact force --json`.
force_opts="--stiffness 1e5 --exponent 1.5 --damping 10 --dmax 0.01 --mu-static 0.3 --mu-dynamic 0.2"
# shellcheck disable=SC2086
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/force.csv $force_opts 2>"$tmp"/err ||
    fail "sweep with forces failed: $(cat "$tmp"/err)"
python3 - "$exe" "$tmp" "$poses" "$tmp"/force.csv force <<'PY' || fail "rows differ from meshcontact force --json"
import csv, json, subprocess, sys
exe, tmp, poses, out, mode = sys.argv[1:6]
rows = [l for l in open(poses) if l.strip() and not l.startswith("#")]
inp = list(csv.reader(rows))[1:]
res = list(csv.DictReader(l for l in open(out) if not l.startswith("#")))
assert len(res) == len(inp)
for k in range(1, len(inp), 5):
    f, r = inp[k], res[k]
    args = [exe, mode, tmp + "/box.shl", tmp + "/ell.shl", "--pose-i=" + ",".join(f[1:8]), "--pose-j=" + ",".join(f[8:15]),
            "--vel-i=" + ",".join(f[15:21]), "--vel-j=" + ",".join(f[21:27]), "--stiffness", "1e5", "--exponent", "1.5",
            "--damping", "10", "--dmax", "0.01", "--mu-static", "0.3", "--mu-dynamic", "0.2", "--json"]
    d = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
    g = d["regions"]
    assert float(r["fn"]) == (sum(x["fn"] for x in g) if g else 0), (k + 1, r["fn"])
    assert int(r["rejected"]) == sum(1 for x in g if x["rejected"])
    for i, a in enumerate("xyz"):
        assert float(r["force_j_" + a]) == d["wrench_j"]["force"][i], (k + 1, a)
        assert float(r["torque_j_" + a]) == d["wrench_j"]["torque"][i], (k + 1, a)
    assert float(r["volume"]) == (sum(x["volume"] for x in g) if g else 0)
assert any(float(r["fn"]) > 0 for r in res) and any(float(r["force_j_y"]) != 0 for r in res)
PY

# Threads do not change a byte.
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/t2.csv --threads 2 || fail "--threads 2"
cmp -s "$tmp"/full.csv "$tmp"/t2.csv || fail "--threads 2 changed the output"

# Failing rows: reported in their row (status error, empty numbers, the line and the reason), the others computed as
# before, exit status 1 with one stderr line.
{
    head -2 "$poses" | tail -1 | cut -d, -f1-15
    echo "0,0,0,0,1,0,0,0,1.25,0,0,1,0,0,0"
    echo "1,0,0,0,0,0,0,0,1.25,0,0,1,0,0,0"
    echo "2,0,0,0,1,0,0,0,1.25,x,0,1,0,0,0"
    echo "3,0,0,0,1,0,0,0,1.25"
    echo "4,0,0,0,1,0,0,0,1e300,0,0,1,0,0,0"
    echo "5,0,0,0,1,0,0,0,1.25,0,0,1,0,0,0"
} >"$tmp"/bad.csv
set +e
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/bad.csv -o "$tmp"/bad.out >"$tmp"/out 2>"$tmp"/err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "failing rows: status $rc"
[ ! -s "$tmp"/out ] || fail "failing rows: stdout not empty"
[ "$(wc -l <"$tmp"/err)" -eq 1 ] && grep -q "4 of 6 rows failed (the first: row 2" "$tmp"/err ||
    fail "failing rows: stderr: $(cat "$tmp"/err)"
grep -q '^2,1,error,,,,,,,,,,,,,line 3: the quaternion of I is zero$' "$tmp"/bad.out || fail "zero quaternion row"
grep -q "^3,2,error,.*\"line 4: y_j is 'x', not a finite number\"$" "$tmp"/bad.out || fail "malformed number row"
grep -q '^4,3,error,.*line 5: 9 fields where the header has 15$' "$tmp"/bad.out || fail "short row"
grep -q '^5,4,error,.*line 6: the position of J is outside the coordinate range' "$tmp"/bad.out || fail "range row"
[ "$(sed -n 3p "$tmp"/bad.out | cut -d, -f3-)" = "$(sed -n 8p "$tmp"/bad.out | cut -d, -f3-)" ] ||
    fail "the good rows around the bad ones differ"

# Kill midway: --kill-after 23 writes 23 rows and a torn line, then SIGKILLs the process; --resume completes it.
set +e
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/kill.csv --kill-after 23 2>/dev/null
rc=$?
set -e
[ "$rc" -gt 128 ] || fail "--kill-after: the process was not killed (status $rc)"
[ "$(wc -l <"$tmp"/kill.csv)" -eq 25 ] || fail "--kill-after: expected a fingerprint, a header, 23 rows and a torn line"
[ "$(tail -c 3 "$tmp"/kill.csv)" = "24," ] || fail "--kill-after: no torn line"
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/kill.csv --resume || fail "resume failed"
cmp -s "$tmp"/full.csv "$tmp"/kill.csv || fail "killed and resumed output differs from the uninterrupted one"
# Resuming a complete output changes nothing; resuming from a cut at any of these bytes gives the same bytes.
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/kill.csv --resume || fail "resume of a full file"
cmp -s "$tmp"/full.csv "$tmp"/kill.csv || fail "resume of a complete output changed it"
size=$(wc -c <"$tmp"/full.csv)
for cut in 0 1 100 $((size / 3)) $((size / 2 + 7)) $((size - 1)); do
    head -c "$cut" "$tmp"/full.csv >"$tmp"/cut.csv
    "$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/cut.csv --resume || fail "resume at $cut"
    cmp -s "$tmp"/full.csv "$tmp"/cut.csv || fail "resume from a cut at byte $cut differs"
done
# Resume of a missing output starts afresh.
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/new.csv --resume || fail "resume, no file"
cmp -s "$tmp"/full.csv "$tmp"/new.csv || fail "resume without an output differs"

# A resume refuses an output that is not this sweep's (a row of another time, another header, more rows).
awk -F, -v OFS=, 'NR == 9 { $2 = "0.5" } { print }' "$tmp"/full.csv >"$tmp"/other.csv
cmp -s "$tmp"/full.csv "$tmp"/other.csv && fail "test set-up: row 7 not changed"
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/other.csv --resume
grep -q "line 9 is not row 7 of this sweep" "$tmp".err || fail "foreign row message: $(cat "$tmp".err)"
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/force.csv --resume
grep -q "it was written by a sweep of other options (force model" "$tmp".err ||
    fail "foreign options message: $(cat "$tmp".err)"
head -12 "$poses" >"$tmp"/short.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/short.csv -o "$tmp"/full.csv --resume
grep -q "it was written by a sweep of another input table (its rows differ)" "$tmp".err ||
    fail "other input message: $(cat "$tmp".err)"

# Whole-file and usage errors: one line, nothing on stdout.
echo "time,x_i,y_i" >"$tmp"/hdr.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/hdr.csv -o "$tmp"/o.csv
grep -q "line 1: the header has 3 columns" "$tmp".err || fail "header message: $(cat "$tmp".err)"
echo "time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,QZ_J" >"$tmp"/hdr.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/hdr.csv -o "$tmp"/o.csv
grep -q "header column 15 is 'QZ_J', expected 'qz_j'" "$tmp".err || fail "header name message: $(cat "$tmp".err)"
: >"$tmp"/empty.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/empty.csv -o "$tmp"/o.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/none.csv -o "$tmp"/o.csv
check_error sweep 1 poses "$tmp"/box.shl "$tmp"/none.stl "$poses" -o "$tmp"/o.csv
check_error sweep 2 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses"
check_error sweep 2 poses "$tmp"/box.shl "$tmp"/ell.shl -o "$tmp"/o.csv
check_error sweep 2 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/o.csv --stiffness 1e5
check_error sweep 2 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/o.csv --chunk 0
check_error sweep 2 poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/o.csv --kill-after 1.5
check_error sweep 2 nonsense
check_error sweep 2
echo "meshcontact sweep: CLI contract OK"
