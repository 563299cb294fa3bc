#!/bin/sh
# Contract checks of `meshcontact primitive`: --help documents every TYPE and option; the summary line / JSON; the
# written .stl (84 + 50 n bytes) and .shl files read back by `meshcontact info` with the same triangle count, closed;
# errors as one stderr line starting with 'meshcontact: ', nothing on stdout, status 2 (usage) or 1 (file).
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_primitive.$$"
trap 'rm -f "$tmp".out "$tmp".err "$tmp".stl "$tmp".shl' EXIT
check_name=check_cli_primitive
. "$(dirname "$0")/cli_common.sh"

"$exe" primitive --help >"$tmp".out || fail "--help failed"
for word in box sphere ellipsoid cylinder frustum cone torus --size --radius --radii --length --radius-bottom \
    --radius-top --height --major --minor --tolerance --angle --triangles --scale --json -o; do
    grep -q -- "$word" "$tmp".out || fail "--help does not mention $word"
done

# A sphere of about 1000 triangles: exactly 12 n^2 with n = round(sqrt(1000 / 12)) = 9.
"$exe" primitive sphere --radius 2 --triangles 1000 --json -o "$tmp".stl >"$tmp".out 2>"$tmp".err ||
    fail "sphere failed: $(cat "$tmp".err)"
grep -q '"triangles":972,"vertices":488,' "$tmp".out || fail "sphere JSON: $(cat "$tmp".out)"
size=$(wc -c <"$tmp".stl)
[ "$size" -eq $((84 + 50 * 972)) ] || fail "binary STL size $size"
"$exe" info "$tmp".stl --json >"$tmp".out || fail "info on the STL"
grep -q '"triangles":972,"vertices":488,"closed":true,"oriented":true' "$tmp".out || fail "info: $(cat "$tmp".out)"

# A torus at a chord tolerance, written as .shl with a scale: volume within tol * area of the exact one.
"$exe" primitive torus --major 1 --minor 0.25 --tolerance 1e-3 --scale 0.001 --json -o "$tmp".shl >"$tmp".out ||
    fail "torus failed"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "torus JSON: $(cat "$tmp".out)"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert list(d.keys()) == ["type", "triangles", "vertices", "volume", "exact_volume", "area", "exact_area", "file"]
assert d["type"] == "torus"
assert abs(d["exact_volume"] - 2 * math.pi ** 2 * 0.25 ** 2) < 1e-12
assert abs(d["volume"] - d["exact_volume"]) <= 1e-3 * d["exact_area"], (d["volume"], d["exact_volume"])
PY
fi
"$exe" info "$tmp".shl --json >"$tmp".out || fail "info on the .shl"
grep -q '"closed":true,"oriented":true' "$tmp".out || fail "info .shl: $(cat "$tmp".out)"
head -c 200 "$tmp".shl | head -n 1 | grep -q ' 0.001$' || fail ".shl header scale"

# Summary line without --json.
"$exe" primitive box --size 1,2,3 -o "$tmp".stl >"$tmp".out || fail "box"
grep -q "^box: 12 triangles, 8 vertices, volume 6 (exact 6," "$tmp".out || fail "box summary: $(cat "$tmp".out)"

# --opt=value, and -oFILE.
"$exe" primitive box --size=1,2,3 --output="$tmp".stl >"$tmp".out || fail "box --opt=value"
grep -q "^box: 12 triangles, 8 vertices, volume 6 (exact 6," "$tmp".out || fail "box summary: $(cat "$tmp".out)"
"$exe" primitive box --size=1,2,3 -o"$tmp".stl >"$tmp".out || fail "box -oFILE"

check_error primitive 2 pyramid --radius 1 -o "$tmp".stl
check_error primitive 2 sphere -o "$tmp".stl
check_error primitive 2 sphere --radius 1 --length 2 -o "$tmp".stl
check_error primitive 2 sphere --radius 1 -o "$tmp".obj
check_error primitive 2 sphere --radius 1
check_error primitive 2 sphere --radius 1 --tolerance 0 -o "$tmp".stl
check_error primitive 2 sphere --radius 1 --angle 95 -o "$tmp".stl
check_error primitive 2 torus --major 1 --minor 2 -o "$tmp".stl
check_error primitive 2 sphere --radius 1 --tolerance 1e-300 -o "$tmp".stl
check_error primitive 2 box --size 1,1,1 --scale 2 -o "$tmp".stl
check_error primitive 2 box --size=1,1 -o "$tmp".stl
check_error primitive 2 sphere --radius=1 --triangles=2.5 -o "$tmp".stl
check_error primitive 2 sphere --radius 1 -o
check_error primitive 1 sphere --radius 1 -o "$tmp".no-such-dir/x.stl
grep -q "no-such-dir/x.stl" "$tmp".err || fail "file error does not name the file: $(cat "$tmp".err)"
echo "meshcontact primitive: CLI contract OK"
