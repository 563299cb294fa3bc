#!/bin/sh
# `meshcontact simulate` with STICTION=ON on the shipped scenarios: the block on the 20 degree slope stays put (its
# centre of mass moves less than 1.5 MAX_STICTION_DEFORMATION along the slope in 1 s: the creep of the contact,
# at most 0.73 Dmax here, plus the block's small forward tilt, 0.05 m times ~2.4e-4 rad; it ends at rest), the one
# on the 30 degree slope slides with g (sin 30 - MU_DYNAMIC cos 30) over the last half second (1e-3 relative: the
# 6-degree-of-freedom block rocks a little as it slides, which modulates Fn; the library test without rocking agrees
# to 1e-6). And the scenario's bad stiction inputs: one stderr line naming the file, the line and the keyword.
set -eu
exe="$1"
data="$2"
tmp="${TMPDIR:-/tmp}/mc_cli_stiction.$$"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_stiction
. "$(dirname "$0")/cli_common.sh"
mkdir -p "$tmp"

for s in slope_stick slope_slide; do
    "$exe" simulate "$data/$s.scn" -o "$tmp/$s" >"$tmp".out 2>"$tmp".err || fail "$s failed: $(cat "$tmp".err)"
done
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp" <<'PY' || fail "the blocks did not move as stiction says"
import csv, math, sys
d = sys.argv[1]
def run(name, deg):
    rows = list(csv.DictReader(open("%s/%s/%s.csv" % (d, name, name))))
    a = math.radians(deg)
    down = (0.0, -math.cos(a), -math.sin(a))  # the plates are tilted about x: downhill is -y in their frame
    along = lambda r, k: sum(float(r["part2_" + k + c]) * down[i] for i, c in enumerate("xyz"))
    return rows, along, a
rows, along, a = run("slope_stick", 20)
moved = max(abs(along(r, "") - along(rows[0], "")) for r in rows)
assert moved < 1.5e-4, "moved %g" % moved
assert abs(along(rows[-1], "v")) < 1e-9, "still moving: %g" % along(rows[-1], "v")
rows, along, a = run("slope_slide", 30)
half = rows[len(rows) // 2]
acc = (along(rows[-1], "v") - along(half, "v")) / (float(rows[-1]["time"]) - float(half["time"]))
want = 9.81 * (math.sin(a) - 0.3 * math.cos(a))
assert abs(acc - want) < 1e-3 * want, "acceleration %.9g, want %.9g" % (acc, want)
PY
fi

# Bad stiction inputs in a scenario.
bad() {
    sed "s/STICTION=ON, MAX_STICTION_DEFORMATION=1e-4/$1/" "$data/slope_stick.scn" >"$tmp"/bad.scn
    check_scenario_error "$tmp"/bad.scn "$2"
}
bad "STICTION=MAYBE" "STICTION is ON or OFF"
bad "STICTION=ON, MAX_STICTION_DEFORMATION=0" "MAX_STICTION_DEFORMATION=0 must be finite and > 0"
bad "STICTION=ON, MAX_STICTION_DEFORMATION=-1e-4" "MAX_STICTION_DEFORMATION=-0.0001 must be finite and > 0"
sed -e "s/COULOMB_FRICTION=ON/COULOMB_FRICTION=OFF/" "$data/slope_stick.scn" >"$tmp"/off.scn
check_scenario_error "$tmp"/off.scn "STICTION=ON needs COULOMB_FRICTION"
echo "check_cli_stiction: ok"
