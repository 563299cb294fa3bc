#!/bin/sh
# Contract checks of `meshcontact force` (DESIGN.md CLI rules): one JSON object on stdout with the documented keys,
# action = -reaction between wrench_i and wrench_j, errors as one stderr line and a non-zero status, nothing on stdout.
set -eu
exe="$1"
root="$2"
mesh="$root/data/spot.obj"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp".out "$tmp".eq "$tmp".err' EXIT
check_name=check_cli_force
. "$(dirname "$0")/cli_common.sh"

"$exe" force --help >"$tmp".out || fail "--help failed"
grep -q "usage: meshcontact force" "$tmp".out || fail "--help text"

"$exe" force "$mesh" "$mesh" --pose-j 0.3,0.1,0.05 --vel-j 0.5,0,-0.2,0,0,3 --stiffness 1e6 --exponent 1.5 \
    --damping 100 --dmax 0.01 --mu-static 0.4 --mu-dynamic 0.3 --stiction-velocity 0.01 --friction-velocity 0.02 \
    --json >"$tmp".out 2>"$tmp".err || fail "force --json failed: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp".out)" -eq 1 ] || fail "JSON output is not one line"
for key in triangle_pairs regions volume centroid area radius normal depth point_i point_j fn ft torque rejected \
    total_volume seconds wrench_i wrench_j force; do
    grep -q "\"$key\":" "$tmp".out || fail "JSON lacks \"$key\""
done
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["regions"]) >= 1 and d["regions"][0]["fn"] > 0 and d["regions"][0]["rejected"] is False
fi, fj = d["wrench_i"]["force"], d["wrench_j"]["force"]
assert all(a == -b for a, b in zip(fi, fj)), (fi, fj)
ft = d["regions"][0]["ft"]; n = d["regions"][0]["normal"]
assert abs(sum(a * b for a, b in zip(ft, n))) <= 1e-9 * (1 + sum(a * a for a in ft) ** 0.5), "ft not tangent"
PY
fi

# POISSON: approaching faster than VT the force is the penalty spring P g; separating faster than VT it is EPS^2 P g.
for case in "-0.5 1" "0.5 0.25"; do
    set -- $case
    "$exe" force "$mesh" "$mesh" --pose-j 0.3,0.1,0.05 --vel-j "$1",0,0,0,0,0 --penalty 2e5 --restitution 0.5 \
        --normal-velocity 1e-3 --json >"$tmp".out 2>"$tmp".err || fail "POISSON force failed: $(cat "$tmp".err)"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$tmp".out "$2" <<'PY' || fail "POISSON force for J velocity $1"
import json, sys
d = json.load(open(sys.argv[1])); f = float(sys.argv[2])
r = [x for x in d["regions"] if not x["rejected"]]
assert r, "no region with a force"
for x in r:
    want = f * 2e5 * x["depth"]
    assert abs(x["fn"] - want) <= 1e-12 * want, (x["fn"], want)
PY
    fi
done

# --opt=value gives the same forces as --opt value.
"$exe" force "$mesh" "$mesh" --pose-j=0.3,0.1,0.05 --vel-j=0.5,0,-0.2,0,0,3 --stiffness=1e6 --exponent=1.5 \
    --threads=1 --json >"$tmp".eq 2>"$tmp".err || fail "force --opt=value failed: $(cat "$tmp".err)"
"$exe" force "$mesh" "$mesh" --pose-j 0.3,0.1,0.05 --vel-j 0.5,0,-0.2,0,0,3 --stiffness 1e6 --exponent 1.5 \
    --threads 1 --json >"$tmp".out 2>"$tmp".err || fail "force failed: $(cat "$tmp".err)"
[ "$(sed 's/"seconds":[^,]*,//' "$tmp".eq)" = "$(sed 's/"seconds":[^,]*,//' "$tmp".out)" ] ||
    fail "--opt=value and --opt value differ"

check_error force 1 "$mesh" "$root/does-not-exist.stl" --stiffness 1 --exponent 1
check_error force 1 "$mesh" "$mesh" --stiffness 1 --exponent -1
check_error force 1 "$mesh" "$mesh" --stiffness 1 --exponent 1 --mu-static 0.1 --mu-dynamic 0.3
check_error force 2 "$mesh" "$mesh" --stiffness 1
check_error force 2 "$mesh" --stiffness 1 --exponent 1
check_error force 2 "$mesh" "$mesh" --stiffness 1 --exponent 1 --vel-i 1,2,3
check_error force 2 "$mesh" "$mesh" --stiffness 1 --exponent 1 --penalty 1 --restitution 0.5
check_error force 2 "$mesh" "$mesh" --penalty 1
check_error force 2 "$mesh" "$mesh" --stiff 1 --exponent 1
check_error force 2 "$mesh" "$mesh" --stiffness=x --exponent 1
check_error force 1 "$mesh" "$mesh" --penalty 1 --restitution 1.5

# Analytic shapes, as 'contact' takes them: a 5 cm ball 0.1 mm into the floor gets Fn = k g^e = 1e5 * 1e-4^1.5 = 0.1 N
# up on the ball, in closed form (the sphere-plane pair is exact: g to rounding of 0.05 - 0.0499, 2.7e-17 relative to
# the radius, hence 1e-9 relative on Fn), and a mesh against an analytic shape works too; an unsupported pair is one
# error line.
"$exe" force sphere:0.05 plane --pose-i 0,0,0.0499 --stiffness 1e5 --exponent 1.5 --json >"$tmp".out 2>"$tmp".err ||
    fail "force with analytic shapes failed: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "sphere on plane: Fn is not k g^e"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["regions"]) == 1, d
fn = d["regions"][0]["fn"]
assert abs(fn - 0.1) <= 1e-9, fn
assert abs(d["wrench_i"]["force"][2] - 0.1) <= 1e-9 and d["wrench_i"]["force"][0] == 0.0, d["wrench_i"]
PY
fi
"$exe" force "$mesh" plane --pose-i 0,0,0.6 --stiffness 1e5 --exponent 1.5 --json >"$tmp".out 2>"$tmp".err ||
    fail "force mesh against plane failed: $(cat "$tmp".err)"
grep -q '"regions":\[{' "$tmp".out || fail "mesh against plane: no region"
check_error force 1 hole:0.5,2 "$mesh" --stiffness 1 --exponent 1 # a hole against a mesh: not yet
echo "meshcontact force: CLI contract OK"
