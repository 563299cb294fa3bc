#!/bin/sh
# Contract checks of `meshcontact bench`: --help, one JSON object with the documented keys, every stage for every
# thread count of --threads with positive times in order (min <= median <= max), the query's own result (the
# closed-form volume of two overlapping boxes), positive memory figures; usage errors as one stderr line.
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_bench.$$"
trap 'rm -f "$tmp".out "$tmp".err "$tmp".a.shl "$tmp".b.shl' EXIT
check_name=check_cli_bench
. "$(dirname "$0")/cli_common.sh"

"$exe" bench --help >"$tmp".out || fail "--help failed"
grep -q "usage: meshcontact bench MESH_I MESH_J" "$tmp".out || fail "--help text"
"$exe" --help | grep -q "^  bench " || fail "bench missing from the command list"
"$exe" primitive box --size 2,2,2 -o "$tmp".a.shl >/dev/null || fail "primitive a"
"$exe" primitive sphere --radius 0.5 --tolerance 0.01 -o "$tmp".b.shl >/dev/null || fail "primitive b"

OMP_NUM_THREADS=2 "$exe" bench "$tmp".a.shl "$tmp".a.shl --pose-j 1.5,0,0 --threads 1,2 --repeat 3 --json \
    >"$tmp".out 2>"$tmp".err || fail "bench --json failed: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp".out)" -eq 1 ] || fail "JSON output is not one line"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp".out <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d.keys()) == ["mesh_i", "mesh_j", "triangles_i", "triangles_j", "triangle_pairs", "regions",
                          "total_volume", "stages", "mesh_bytes_per_triangle", "workspace_bytes",
                          "peak_rss_bytes"], list(d.keys())
assert d["triangles_i"] == 12 and d["triangles_j"] == 12
# Two boxes of edge 2, 1.5 apart along x: one region of 0.5 x 2 x 2.
assert d["regions"] == 1 and abs(d["total_volume"] - 2.0) < 1e-12, d["total_volume"]
assert d["triangle_pairs"] > 0
want = ["import_i", "create_i", "create_checked_i", "import_j", "create_j", "create_checked_j", "cold_query"]
want += [s for t in (1, 2) for s in ("pairs", "regions", "evaluate")]
assert [s["stage"] for s in d["stages"]] == want, [s["stage"] for s in d["stages"]]
assert [s["threads"] for s in d["stages"][7:]] == [1, 1, 1, 2, 2, 2]
for s in d["stages"]:
    assert list(s.keys()) == ["stage", "threads", "calls", "min_ms", "median_ms", "max_ms"], s.keys()
    assert s["calls"] >= 1
    assert 0 < s["min_ms"] <= s["median_ms"] <= s["max_ms"], s
assert d["mesh_bytes_per_triangle"] > 0 and d["workspace_bytes"] > 0 and d["peak_rss_bytes"] > 0
PY
fi
# The text form: one line per stage.
"$exe" bench "$tmp".a.shl "$tmp".b.shl --repeat 2 >"$tmp".out 2>"$tmp".err || fail "bench failed: $(cat "$tmp".err)"
grep -q "^evaluate  *1 " "$tmp".out || fail "text output has no evaluate line"
grep -q "^mesh bytes per triangle" "$tmp".out || fail "text output has no memory line"

check_error bench 2 "$tmp".a.shl "$tmp".a.shl --threads 0
check_error bench 2 "$tmp".a.shl "$tmp".a.shl --threads 1,
check_error bench 2 "$tmp".a.shl "$tmp".a.shl --threads 1,2,3,4,5,6,7,8,9
check_error bench 2 "$tmp".a.shl "$tmp".a.shl --repeat 0
check_error bench 2 "$tmp".a.shl
check_error bench 1 "$tmp".a.shl "$tmp".missing.stl
echo "$check_name: ok"
