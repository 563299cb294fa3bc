#!/bin/sh
# `meshcontact simulate` with analytic geometry: data/ball_roll.scn (an ANALYTIC ball rolling across a 12-triangle
# plate) and data/cylinder_roll.scn (an ANALYTIC cylinder lying on a PLANE, rolling about its axis) keep their normal
# force at exactly the same printed value in every output row and end where rolling takes them; a PLANE ground gives
# the ball the same force as the plate; and the bad inputs: ANALYTIC on a BOX or a FILE, a flipped PLANE, two PLANEs
# in one contact, an ANALYTIC geometry in a DENSITY part, an unsupported analytic pair (a cylinder on a mesh box),
# each one stderr line with the file (and the line, except for the pair found during the run).
set -eu
exe="$1"
data="$2"
tmp="${TMPDIR:-/tmp}/mc_cli_analytic.$$"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_analytic
. "$(dirname "$0")/cli_common.sh"
mkdir -p "$tmp"

"$exe" simulate "$data/ball_roll.scn" -o "$tmp/roll" >"$tmp".out 2>"$tmp".err || fail "ball_roll: $(cat "$tmp".err)"
sed 's|^GRAPHICS/1, PART=1, BOX, X=1, Y=0.4, Z=0.05, QP=-0.5,-0.2,-0.05|GRAPHICS/1, PART=1, PLANE|' \
    "$data/ball_roll.scn" >"$tmp"/plane.scn
grep -q 'GRAPHICS/1, PART=1, PLANE' "$tmp"/plane.scn || fail "could not make the PLANE variant"
"$exe" simulate "$tmp"/plane.scn -o "$tmp/plane" >"$tmp".out 2>"$tmp".err || fail "plane: $(cat "$tmp".err)"
"$exe" simulate "$data/cylinder_roll.scn" -o "$tmp/cyl" >"$tmp".out 2>"$tmp".err || fail "cylinder_roll: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp" <<'PY' || fail "the rolling ball's normal force or motion"
import csv, sys
d = sys.argv[1]
for name in ("roll/ball_roll", "plane/plane"):
    rows = list(csv.DictReader(open("%s/%s.csv" % (d, name))))
    fn = set(r["contact1_fn"] for r in rows)
    assert len(fn) == 1, (name, sorted(fn)[:3])  # the same printed value (9 digits) in all 101 rows
    assert abs(float(rows[0]["contact1_fn"]) - 4.084 * 9.81) < 1e-6 * 40.06, rows[0]["contact1_fn"]
    x = float(rows[-1]["part2_x"])
    assert abs(x - 0.2) < 1e-3, x  # 0.5 m/s for 1 s from x = -0.3 (rolling: friction does no work)
rows = list(csv.DictReader(open("%s/cyl/cylinder_roll.csv" % d)))
fn = set(r["contact1_fn"] for r in rows)
assert len(fn) == 1, sorted(fn)[:3]  # closed form: no facets, no ripple
assert abs(float(rows[0]["contact1_fn"]) - 6.126 * 9.81) < 1e-6 * 60.1, rows[0]["contact1_fn"]
x = float(rows[-1]["part2_x"])
assert abs(x - 0.2) < 1e-3, x
PY
fi

bad() {
    printf '%s\n' "$1" >"$tmp"/bad.scn
    check_scenario_error "$tmp"/bad.scn "$2"
}
head='ACCGRAV/KGRAV=-9.81
PART/1, GROUND'
ball='PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.0499
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, ANALYTIC'
tail='CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e8
SIMULATE/DYNAMIC, END=0.01, STEPS=2'
bad "$head
GRAPHICS/1, PART=1, BOX, X=1, Y=1, Z=1, ANALYTIC
$ball
$tail" "ANALYTIC is for SPHERE, CYLINDER or PLANE, not BOX"
bad "$head
GRAPHICS/1, PART=1, FILE=x.stl, ANALYTIC
$ball
$tail" "ANALYTIC is for SPHERE, CYLINDER or PLANE"
bad "$head
GRAPHICS/1, PART=1, PLANE, IFLIP_GEOMETRY
$ball
$tail" "a PLANE cannot be flipped"
bad "$head
GRAPHICS/1, PART=1, PLANE
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,1
GRAPHICS/2, PART=2, PLANE
$tail" "both unbounded solids"
bad "$head
GRAPHICS/1, PART=1, PLANE
PART/2, DENSITY=1000, QG=0,0,0.0499
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, ANALYTIC
$tail" "DENSITY cannot be used with a ANALYTIC or PLANE geometry"
bad "$head
GRAPHICS/1, PART=1, BOX, X=1, Y=1, Z=0.1, QP=-0.5,-0.5,-0.1
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,-0.01
GRAPHICS/2, PART=2, CYLINDER, RADIUS=0.05, LENGTH=0.1, ANALYTIC, IFLIP_GEOMETRY
$tail" "a contact pair could not be computed"
bad "$head
GRAPHICS/1, PART=1, PLANE
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0,0,0.0499
GRAPHICS/2, PART=2, SPHERE, RADIUS=0, ANALYTIC
$tail" "RADIUS must be > 0"
echo "check_cli_analytic: ok"
