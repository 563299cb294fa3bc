#!/bin/sh
# Contract checks of `meshcontact repair` and of the repair hints of `info`: a cube with a flipped face is refused by
# info with the repair that fixes it, repaired into STL and .shl with every change counted (text and JSON), the
# output is usable; bad command lines are usage errors; a scenario's GRAPHICS takes REPAIR=.
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_repair.$$"
trap 'rm -rf "$tmp".out "$tmp".err "$tmp".flip.obj "$tmp".open.obj "$tmp".fixed.stl "$tmp".fixed.shl "$tmp".scn \
    "$tmp".run' EXIT
check_name=check_cli_repair
. "$(dirname "$0")/cli_common.sh"

# Unit cube, face 2 (triangles 5, 6 of the OBJ) wound inward.
cat >"$tmp".flip.obj <<'OBJ'
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 6 2
f 1 5 6
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
OBJ
# The same cube with its top face missing too (a 4-edge hole).
grep -v '^f 5 ' "$tmp".flip.obj >"$tmp".open.obj

set +e
"$exe" info "$tmp".flip.obj >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "info of a flipped cube: status $rc, want 1"
grep -q "'meshcontact repair' makes it usable (2 triangles flipped)" "$tmp".err ||
    fail "info does not name the repair: $(cat "$tmp".err)"

"$exe" repair "$tmp".flip.obj "$tmp".fixed.stl >"$tmp".out || fail "repair failed"
grep -q "^winding            2 triangles flipped" "$tmp".out || fail "repair table lacks the flips: $(cat "$tmp".out)"
"$exe" info "$tmp".fixed.stl >/dev/null || fail "the repaired STL is not usable"
"$exe" repair --json "$tmp".open.obj "$tmp".fixed.shl >"$tmp".out || fail "repair of an open cube failed"
grep -q '"filled_holes":1,"fill_triangles":2' "$tmp".out || fail "repair JSON lacks the fill: $(cat "$tmp".out)"
grep -q '"volume":1,' "$tmp".out || fail "repaired cube volume is not 1: $(cat "$tmp".out)"
"$exe" info --json "$tmp".fixed.shl >/dev/null || fail "the repaired .shl is not usable"
"$exe" info --repair --json "$tmp".open.obj >"$tmp".out || fail "info --repair of an open cube failed"
grep -q '"repaired":"2 triangles flipped, 1 holes filled, 2 triangles added"' "$tmp".out || fail "info --repair: $(cat "$tmp".out)"

# Still open after the repair: nothing written, the reason and the counts on stderr.
check_error repair 1 --repairs orient "$tmp".open.obj "$tmp".fixed.stl
grep -q "4 boundary edges.*repair: 2 triangles flipped)" "$tmp".err || fail "unrepaired mesh message: $(cat "$tmp".err)"
check_error repair 2 --repairs sideways "$tmp".open.obj "$tmp".fixed.stl
check_error repair 2 --weld-tolerance 1e-6 --weld-distance 1e-3 "$tmp".open.obj "$tmp".fixed.stl
check_error repair 2 --max-hole-edges 2 "$tmp".open.obj "$tmp".fixed.stl
check_error repair 2 "$tmp".open.obj "$tmp".fixed.ply
check_error repair 2 "$tmp".open.obj

# Scenario: GRAPHICS with REPAIR= on the open cube (a warning line lists the change), resting on a box.
cat >"$tmp".scn <<SCN
PART/1, GROUND
PART/2, MASS=1, IP=0.1,0.1,0.1, QG=0,0,1.2
GRAPHICS/1, PART=1, BOX, X=4, Y=4, Z=1, QP=-2,-2,0
GRAPHICS/2, PART=2, FILE="$tmp.open.obj", REPAIR="ORIENT, HOLES"
CONTACT/1, IGEOM=2, JGEOM=1, IMPACT, STIFFNESS=1e5, EXPONENT=1.5
ACCGRAV/KGRAV=-9.81
SIMULATE/DYNAMIC, END=0.01, STEPS=10
SCN
"$exe" simulate "$tmp".scn -o "$tmp".run >"$tmp".out 2>"$tmp".err || fail "scenario with REPAIR failed: $(cat "$tmp".err)"
grep -q "repaired as REPAIR asks: 2 triangles flipped, 1 holes filled, 2 triangles added" "$tmp".err ||
    fail "scenario repair warning: $(cat "$tmp".err)"
sed -i 's/REPAIR="ORIENT, HOLES"/REPAIR=SIDEWAYS/' "$tmp".scn
set +e
"$exe" simulate "$tmp".scn -o "$tmp".run >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a bad REPAIR= was accepted"
grep -q "REPAIR takes ALL" "$tmp".err || fail "bad REPAIR message: $(cat "$tmp".err)"
echo "$check_name: ok"
