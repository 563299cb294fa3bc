#!/bin/sh
# Contract checks of the outputs of `meshcontact simulate`: the six files at their default paths, one stderr line per
# warning (here a part starting 5 mm inside the plate and REULER=0,90,0 without D) also listed in the JSON, the JSON's
# keys, one incident per bounce, the contacts CSV's peak column at least the sampled force, --json/--incidents/--tracks
# paths, and the error for an unwritable output.
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_simulate.$$"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_simulate
. "$(dirname "$0")/cli_common.sh"
mkdir -p "$tmp"

cat >"$tmp"/drop.scn <<'SCN'
UNITS/FORCE=NEWTON, LENGTH=METER, TIME=SECOND
ACCGRAV/KGRAV=-9.81
PART/1, GROUND
GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.045, REULER=0,90,0
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=5e-4
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5
SIMULATE/DYNAMIC, END=0.3, STEPS=30
SCN
"$exe" simulate "$tmp"/drop.scn -o "$tmp"/out >"$tmp".out 2>"$tmp".err || fail "simulate failed: $(cat "$tmp".err)"
for f in drop.csv drop.svg drop_contacts.csv drop_incidents.csv drop_tracks.csv drop.json; do
    [ -s "$tmp/out/$f" ] || fail "no $f"
    grep -q "$tmp/out/$f" "$tmp".out || fail "$f not named on stdout"
done
[ "$(grep -c '^meshcontact: warning: ' "$tmp".err)" -eq 2 ] || fail "expected two warnings: $(cat "$tmp".err)"
grep -q 'drop.scn:5: REULER=90 is read as radians' "$tmp".err || fail "no degrees warning"
grep -q 'drop.scn:7: CONTACT/1: PART/1 and PART/2 start interpenetrating' "$tmp".err || fail "no overlap warning"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp"/out <<'PY' || fail "JSON or CSV content"
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/drop.json"))
assert list(j.keys()) == ["scenario", "end", "step", "integrator", "integration_steps", "max_step", "rejected_steps",
                          "newton_failures", "onset_rejections", "jacobians", "warnings", "contacts", "incidents"], list(j.keys())
assert j["integrator"] == "BDF" and j["integration_steps"] > 0 and 0 < j["step"] <= j["max_step"], j
assert len(j["warnings"]) == 2 and "start interpenetrating" in j["warnings"][1], j["warnings"]
(c,) = j["contacts"]
assert c["label"] == "CONTACT/1: PART/1 BOX - PART/2 SPHERE", c["label"]
inc = j["incidents"]
assert c["incidents"] == len(inc) >= 2, (c, len(inc))
for a, b in zip(inc, inc[1:]):
    assert a["end"] < b["start"], (a, b)
assert all(i["normal_impulse"] > 0 and i["max_normal_force"] > 0 for i in inc)
rows = list(csv.DictReader(open(d + "/drop_contacts.csv")))
assert len(rows) == 31, len(rows)
peak = max(float(r["fn_peak"]) for r in rows)
assert peak >= max(float(r["fn"]) for r in rows)
assert abs(peak - c["max_normal_force"]) <= 1e-8 * peak, (peak, c["max_normal_force"])
ins = list(csv.DictReader(open(d + "/drop_incidents.csv")))
assert len(ins) == len(inc) and all(abs(float(a["normal_impulse"]) - b["normal_impulse"]) <= 1e-8 * b["normal_impulse"] for a, b in zip(ins, inc))
PY
fi

# Other paths for the contact outputs.
"$exe" simulate "$tmp"/drop.scn --csv "$tmp"/m.csv --svg "$tmp"/p.svg --contacts-csv "$tmp"/c.csv \
    --incidents "$tmp"/i.csv --tracks "$tmp"/t.csv --json "$tmp"/j.json --glb "$tmp"/a.glb --html "$tmp"/a.html \
    >"$tmp".out 2>"$tmp".err || fail "paths"
for f in m.csv p.svg c.csv i.csv t.csv j.json a.glb a.html; do
    [ -s "$tmp/$f" ] || fail "no $f"
done
head -1 "$tmp"/t.csv | grep -q '^time,contact,track,x,y,z,fn,depth,area$' || fail "tracks header"

# An output that cannot be written: one error line (from a scenario without warnings), status 1, before the run.
sed -e 's/, REULER=0,90,0//' -e 's/QG=0,0,0.045/QG=0,0,0.06/' "$tmp"/drop.scn >"$tmp"/quiet.scn
check_error simulate 1 "$tmp"/quiet.scn -o "$tmp"/out2 --json "$tmp"/no/such/dir/j.json
grep -q "j.json: cannot write" "$tmp".err || fail "unwritable JSON: $(cat "$tmp".err)"
# Integrator options: bad values are usage errors; an unreachable tolerance stops with the time and the contact,
# exit status 1, keeping the rows written before (a ball at 0.5 m/s without gravity lands at t = 0.02 s).
check_error simulate 2 "$tmp"/drop.scn --integrator gear
check_error simulate 2 "$tmp"/drop.scn --error 0
check_error simulate 2 "$tmp"/drop.scn --error nan
check_error simulate 2 "$tmp"/drop.scn --hmax -1
check_error simulate 2 "$tmp"/drop.scn --integrator rk4 --error 1e-3
cat >"$tmp"/stiff.scn <<'SCN'
PART/1, GROUND
GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.06, VZ=-0.5
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=1e-3
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e6, EXPONENT=1.5
INTEGRATOR/ERROR=1e-9, HMIN=1e-4
SIMULATE/DYNAMIC, END=0.1, STEPS=10
SCN
if "$exe" simulate "$tmp"/stiff.scn -o "$tmp"/stiff >"$tmp".out 2>"$tmp".err; then fail "an unreachable tolerance ran"; fi
grep -q "stiff.scn: the BDF integrator cannot meet INTEGRATOR/ERROR=1e-09 at t = 0.02.*CONTACT/1: PART/1 BOX - PART/2 SPHERE" "$tmp".err ||
    fail "tolerance message: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp"/stiff/stiff.csv)" -eq 4 ] || fail "the rows before the failure (header, t = 0, 0.01, 0.02) were not kept"
grep -q '"integrator":"BDF"' "$tmp"/stiff/stiff.json || fail "no JSON after the failure"
# --integrator rk4 runs the same scenario with the fixed step (the scenario's ERROR and HMIN are BDF's, ignored).
"$exe" simulate "$tmp"/stiff.scn --integrator rk4 -o "$tmp"/stiff >"$tmp".out 2>"$tmp".err || fail "rk4: $(cat "$tmp".err)"
grep -q "RK4 step" "$tmp".out || fail "rk4 summary: $(cat "$tmp".out)"

echo "check_cli_simulate: ok"
