#!/bin/sh
# Contract checks of `meshcontact contact` (DESIGN.md CLI rules): one JSON object on stdout with exactly the documented
# keys in order, regions in the world frame sorted by decreasing volume, the closed-form volume of two boxes,
# no region for exact touching, errors as one stderr line with a non-zero status and nothing on stdout.
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_contact.$$"
trap 'rm -f "$tmp".out "$tmp".eq.out "$tmp".err "$tmp".a.shl "$tmp".b.shl' EXIT
check_name=check_cli_contact
. "$(dirname "$0")/cli_common.sh"

"$exe" contact --help >"$tmp".out || fail "--help failed"
grep -q "usage: meshcontact contact" "$tmp".out || fail "--help text"
# Boxes [-1,1]^3 and [-0.5,0.5]^3 (exact in a .shl file: full double precision).
"$exe" primitive box --size 2,2,2 -o "$tmp".a.shl >/dev/null || fail "primitive a"
"$exe" primitive box --size 1,1,1 -o "$tmp".b.shl >/dev/null || fail "primitive b"

# Overlap: J at (10 + 1.25, 0.25, -0.125) and I at (10, 0, 0): x [0.75, 1], y [-0.25, 0.75], z [-0.625, 0.375].
"$exe" contact "$tmp".a.shl "$tmp".b.shl --pose-i 10,0,0 --pose-j 11.25,0.25,-0.125 --json >"$tmp".out 2>"$tmp".err ||
    fail "contact --json failed: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp".out)" -eq 1 ] || fail "JSON output is not one line"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
keys = list(d.keys())
assert keys[:4] == ["triangle_pairs", "regions", "total_volume", "seconds"], keys
assert d["triangle_pairs"] > 0
(r,) = d["regions"]
assert list(r.keys()) == ["volume", "centroid", "area", "radius", "normal", "depth", "point_i", "point_j"], r.keys()
v = 0.25 * 1.0 * 1.0
assert abs(r["volume"] - v) < 1e-12 and abs(d["total_volume"] - v) < 1e-12, r["volume"]
c = [10.875, 0.25, -0.125]  # world frame: I's pose moves everything by +10 in x
assert all(abs(a - b) < 1e-12 for a, b in zip(r["centroid"], c)), r["centroid"]
assert abs(r["radius"] - (r["area"] / 3.141592653589793) ** 0.5) < 1e-12
assert abs(sum(x * x for x in r["normal"]) - 1) < 1e-12 and r["normal"][0] > 0.5, r["normal"]
PY
fi

# The same query with --opt=value: the same regions.
"$exe" contact "$tmp".a.shl "$tmp".b.shl --pose-i=10,0,0 --pose-j=11.25,0.25,-0.125 --threads=1 --json >"$tmp".eq.out \
    2>"$tmp".err || fail "contact --opt=value failed: $(cat "$tmp".err)"
"$exe" contact "$tmp".a.shl "$tmp".b.shl --pose-i 10,0,0 --pose-j 11.25,0.25,-0.125 --threads 1 --json >"$tmp".out \
    2>"$tmp".err || fail "contact failed: $(cat "$tmp".err)"
[ "$(sed 's/"seconds":[^,]*,//' "$tmp".eq.out)" = "$(sed 's/"seconds":[^,]*,//' "$tmp".out)" ] ||
    fail "--opt=value and --opt value differ"

# Face to face (J's face on I's face x = 1): touching, no region.
"$exe" contact "$tmp".a.shl "$tmp".b.shl --pose-j 1.5,0,0 --json >"$tmp".out 2>"$tmp".err || fail "touching failed"
grep -q '"regions":\[\],"total_volume":0,' "$tmp".out || fail "touching gave a region: $(cat "$tmp".out)"
"$exe" contact "$tmp".a.shl "$tmp".b.shl --pose-j -1.5,0,0 --json >"$tmp".out 2>"$tmp".err || fail "touching failed"
grep -q '"regions":\[\],"total_volume":0,' "$tmp".out || fail "touching gave a region: $(cat "$tmp".out)"

check_error contact 1 "$tmp".a.shl "$tmp".does-not-exist.stl --json
check_error contact 2 "$tmp".a.shl --json
check_error contact 2 "$tmp".a.shl "$tmp".b.shl --pose-j 1,2 --json
check_error contact 2 "$tmp".a.shl "$tmp".b.shl --pose-j=1,2 --json
grep -q -- "--pose-j needs .*, got '1,2'" "$tmp".err || fail "--pose-j=1,2 message: $(cat "$tmp".err)"
check_error contact 2 "$tmp".a.shl "$tmp".b.shl --pose-j
check_error contact 2 "$tmp".a.shl "$tmp".b.shl --json=yes
check_error contact 2 "$tmp".a.shl "$tmp".b.shl --pose 1,2,3
check_error contact 2 "$tmp".a.shl "$tmp".b.shl "$tmp".a.shl
check_error info 2
check_error info 2 "$tmp".a.shl --scale=0
check_error simulate 2 --threads=0 x.scn
check_error simulate 2
# Analytic shapes: a ball of radius 1 sunk 0.25 into a plane (a cap: volume pi h^2 (3R - h) / 3, depth h), the box
# [-1, 1]^3 cut at z = -0.5 by a plane through (0, 0, -0.5) (a 2 x 2 x 0.5 slab), two planes (unbounded), a ball against
# a mesh (a ball of radius 0.5 centred on the box's face: half the ball), a socket against a mesh (not supported).
"$exe" contact sphere:1 plane --pose-i 0,0,0.75 --json >"$tmp".out 2>"$tmp".err || fail "sphere plane: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "sphere on plane JSON"
import json, math, sys
d = json.load(open(sys.argv[1]))
(r,) = d["regions"]
h = 0.25
assert abs(r["volume"] - math.pi * h * h * (3 - h) / 3) < 1e-14, r["volume"]
assert abs(r["depth"] - h) < 1e-15 and abs(r["area"] - math.pi * h * (2 - h)) < 1e-14 and r["normal"][2] == -1
PY
fi
"$exe" contact "$tmp".a.shl plane --pose-j 0,0,-0.5 --json >"$tmp".out 2>"$tmp".err || fail "mesh plane: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "mesh on plane JSON"
import json, sys
d = json.load(open(sys.argv[1]))
(r,) = d["regions"]
assert abs(r["volume"] - 2.0) < 1e-14 and abs(r["area"] - 4.0) < 1e-14 and abs(r["depth"] - 0.5) < 1e-15, r
assert all(abs(a - b) < 1e-14 for a, b in zip(r["centroid"], [0, 0, -0.75])), r["centroid"]
PY
fi
check_error contact 1 plane plane
grep -q "unbounded" "$tmp".err || fail "plane plane message: $(cat "$tmp".err)"
"$exe" contact sphere:0.5 "$tmp".a.shl --pose-i 0.2,0.1,1 --json >"$tmp".out 2>"$tmp".err ||
    fail "sphere mesh: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "sphere on mesh JSON"
import json, math, sys
(r,) = json.load(open(sys.argv[1]))["regions"]
assert abs(r["volume"] - 2 * math.pi / 3 * 0.125) < 1e-14 and abs(r["depth"] - 0.5) < 1e-15, r
PY
fi
# A pin in a hole: the pin's circle minus the lens, over the pin's length inside the hole's slab.
"$exe" contact cylinder:0.5,1 hole:0.52,2 --pose-i 0.05,0,0.2 --json >"$tmp".out 2>"$tmp".err ||
    fail "pin hole: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "pin in hole JSON"
import json, math, sys
(r,) = json.load(open(sys.argv[1]))["regions"]
a, b, d = 0.5, 0.52, 0.05
lens = (a * a * math.acos((d * d + a * a - b * b) / (2 * d * a)) + b * b * math.acos((d * d + b * b - a * a) / (2 * d * b))
        - 0.5 * math.sqrt((-d + a + b) * (d + a - b) * (d - a + b) * (d + a + b)))
assert abs(r["volume"] - (math.pi * a * a - lens)) < 1e-12, r["volume"]
assert abs(r["depth"] - 0.03) < 1e-14 and r["normal"][0] > 0.999
PY
fi
# A cylinder lying on a plane (turned 90 degrees about y), 0.1 into it: its length times the circular segment.
"$exe" contact cylinder:0.5,2 plane --pose-i 0,0,0.4,0.70710678118654757,0,0.70710678118654757,0 --json \
    >"$tmp".out 2>"$tmp".err || fail "cylinder plane: $(cat "$tmp".err)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "cylinder on plane JSON"
import json, math, sys
(r,) = json.load(open(sys.argv[1]))["regions"]
phi = math.acos(0.8)  # the segment's half angle: cos = (r - h) / r
assert abs(r["volume"] - 2 * 0.25 * (phi - math.sin(phi) * math.cos(phi))) < 1e-13, r["volume"]
assert abs(r["depth"] - 0.1) < 1e-13 and abs(r["area"] - 2 * 2 * 0.5 * math.sin(phi)) < 1e-13, r
assert r["normal"][2] < -0.999999
PY
fi
check_error contact 1 cylinder:0,1 plane
check_error contact 1 socket:1 "$tmp".a.shl
grep -q "not supported" "$tmp".err || fail "socket mesh message: $(cat "$tmp".err)"
check_error contact 1 sphere:0 plane
echo "meshcontact contact: CLI contract OK"
