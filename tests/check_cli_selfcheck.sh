#!/bin/sh
# Contract checks of the self-check in the CLI: `info` reports the intersecting pairs (count and first pair) and the
# nesting of shells in text and JSON, exits 1 on a self-intersecting or misnested mesh unless
# --accept-self-intersections; `contact` and `force` refuse such a mesh with one stderr line naming the option, and
# use it with a warning line when it is given; a scenario's GRAPHICS takes ACCEPT_SELF_INTERSECTIONS. Separate shells
# are oriented one by one: one wound inward is reversed, reported, and the mesh is usable.
set -eu
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_selfcheck.$$"
trap 'rm -rf "$tmp".out "$tmp".err "$tmp".two.obj "$tmp".nested.obj "$tmp".cavity.obj "$tmp".cube.obj "$tmp".scn \
    "$tmp".run "$tmp".apart.stl "$tmp".spheres.stl "$tmp".one' EXIT
check_name=check_cli_selfcheck
. "$(dirname "$0")/cli_common.sh"

# write_shells FILE "x y z size inward" ...: axis-aligned cube shells from corner (x, y, z), one OBJ file.
write_shells() {
    file="$1"
    shift
    printf '%s\n' "$@" | awk '
        { x[NR] = $1; y[NR] = $2; z[NR] = $3; s[NR] = $4; in_[NR] = $5 }
        END {
            split("0 1 1 0 0 1 1 0", cx, " "); split("0 0 1 1 0 0 1 1", cy, " "); split("0 0 0 0 1 1 1 1", cz, " ")
            n = split("1 3 2 1 4 3 5 6 7 5 7 8 1 2 6 1 6 5 2 3 7 2 7 6 3 4 8 3 8 7 4 1 5 4 5 8", t, " ")
            for (k = 1; k <= NR; k++)
                for (i = 1; i <= 8; i++)
                    print "v", x[k] + s[k] * cx[i], y[k] + s[k] * cy[i], z[k] + s[k] * cz[i]
            for (k = 1; k <= NR; k++)
                for (i = 1; i <= n; i += 3) {
                    o = 8 * (k - 1)
                    if (in_[k]) print "f", t[i] + o, t[i + 2] + o, t[i + 1] + o
                    else print "f", t[i] + o, t[i + 1] + o, t[i + 2] + o
                }
        }' >"$file"
}
write_shells "$tmp".two.obj "0 0 0 1 0" "0.5 0.5 0.5 1 0"
write_shells "$tmp".nested.obj "-1 -1 -1 2 0" "-0.5 -0.5 -0.5 1 0"
write_shells "$tmp".cavity.obj "-1 -1 -1 2 0" "-0.5 -0.5 -0.5 1 1"
write_shells "$tmp".cube.obj "0 0 0 1 0"

"$exe" info --help >"$tmp".out || fail "info --help failed"
grep -q -- "--accept-self-intersections" "$tmp".out || fail "info --help lacks --accept-self-intersections"
for sub in contact force; do
    "$exe" "$sub" --help >"$tmp".out || fail "$sub --help failed"
    grep -q -- "--accept-self-intersections" "$tmp".out || fail "$sub --help lacks --accept-self-intersections"
done

# Two overlapping cubes: 18 intersecting pairs, the first (2, 16); refused, with the report on stdout.
set +e
"$exe" info "$tmp".two.obj >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "info on overlapping cubes: status $rc"
grep -q "^self-intersection  18 pairs of triangles (the first: triangles 2 and 16)$" "$tmp".out ||
    fail "info text: $(cat "$tmp".out)"
grep -q "^usable for contact no$" "$tmp".out || fail "info text usable: $(cat "$tmp".out)"
[ "$(wc -l <"$tmp".err)" -eq 1 ] || fail "info stderr is not one line"
grep -q "intersects itself: 18 pairs .*--accept-self-intersections" "$tmp".err || fail "info stderr: $(cat "$tmp".err)"
"$exe" info "$tmp".two.obj --json --accept-self-intersections >"$tmp".out 2>"$tmp".err ||
    fail "info --accept-self-intersections: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp".out)" -eq 1 ] || fail "JSON output is not one line"
grep -q '"contact_ready":false,' "$tmp".out || fail "JSON contact_ready: $(cat "$tmp".out)"
grep -q '"self_checked":true,"self_intersecting_pairs":18,"self_intersection_sample":\[2,16\],"cavity_components":0,"nested_components":0,"inverted_components":0,"nesting_sample_triangle":null,"self_intersections_accepted":true}$' \
    "$tmp".out || fail "JSON self-check keys: $(cat "$tmp".out)"

# Nested shells wound the same way: no pair, one nested component (its first triangle is 12).
set +e
"$exe" info "$tmp".nested.obj --json >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "info on nested cubes: status $rc"
grep -q '"self_intersecting_pairs":0,"self_intersection_sample":null,"cavity_components":0,"nested_components":1,"inverted_components":0,"nesting_sample_triangle":12,' \
    "$tmp".out || fail "JSON nested: $(cat "$tmp".out)"
grep -q "1 shell nested in another with the same winding" "$tmp".err || fail "nested stderr: $(cat "$tmp".err)"
# A cavity is fine.
"$exe" info "$tmp".cavity.obj >"$tmp".out 2>"$tmp".err || fail "info on a cavity: $(cat "$tmp".err)"
grep -q "^nesting            1 cavities, 0 nested with the same winding, 0 inside out$" "$tmp".out ||
    fail "cavity text: $(cat "$tmp".out)"
grep -q "^usable for contact yes (24 triangles, volume 7)$" "$tmp".out || fail "cavity usable: $(cat "$tmp".out)"

# Separate shells, one wound inward (OpenFOAM's simpleCar.stl, issue 32), as an ASCII STL: each shell apart from the
# others is oriented on its own, so the inward one is reversed and the mesh is usable (volume 1 + 0.125).
# write_stl_shells FILE "x y z size inward" ...: cube shells from corner (x, y, z).
write_stl_shells() {
    file="$1"
    shift
    printf '%s\n' "$@" | awk '
        { x[NR] = $1; y[NR] = $2; z[NR] = $3; s[NR] = $4; in_[NR] = $5 }
        END {
            split("0 1 1 0 0 1 1 0", cx, " "); split("0 0 1 1 0 0 1 1", cy, " "); split("0 0 0 0 1 1 1 1", cz, " ")
            n = split("1 3 2 1 4 3 5 6 7 5 7 8 1 2 6 1 6 5 2 3 7 2 7 6 3 4 8 3 8 7 4 1 5 4 5 8", t, " ")
            print "solid shells"
            for (k = 1; k <= NR; k++)
                for (i = 1; i <= n; i += 3) {
                    print " facet normal 0 0 0"
                    print "  outer loop"
                    for (j = 0; j < 3; j++) {
                        c = t[i + (in_[k] && j > 0 ? 3 - j : j)]
                        print "   vertex", x[k] + s[k] * cx[c], y[k] + s[k] * cy[c], z[k] + s[k] * cz[c]
                    }
                    print "  endloop"
                    print " endfacet"
                }
            print "endsolid shells"
        }' >"$file"
}
write_stl_shells "$tmp".apart.stl "0 0 0 1 0" "3 0 0 0.5 1"
"$exe" info "$tmp".apart.stl >"$tmp".out 2>"$tmp".err || fail "info on separate shells: $(cat "$tmp".err)"
[ ! -s "$tmp".err ] || fail "info on separate shells wrote to stderr: $(cat "$tmp".err)"
grep -q "^usable for contact yes (24 triangles, volume 1.125)$" "$tmp".out || fail "separate usable: $(cat "$tmp".out)"
grep -q "^nesting            none$" "$tmp".out || fail "separate nesting: $(cat "$tmp".out)"
grep -q "1 of 2 shells wound inward: reversed for contact" "$tmp".out || fail "separate problems: $(cat "$tmp".out)"
"$exe" info "$tmp".apart.stl --json >"$tmp".out 2>"$tmp".err || fail "info --json on separate shells"
grep -q '"contact_ready":true,"components":2,' "$tmp".out || fail "separate JSON ready: $(cat "$tmp".out)"
grep -q '"reoriented":true,"reoriented_shells":1,"inward_components":0,.*"contact_volume":1.125,' "$tmp".out ||
    fail "separate JSON reorientation: $(cat "$tmp".out)"
grep -q '"inverted_components":0,' "$tmp".out || fail "separate JSON nesting: $(cat "$tmp".out)"
# The larger shell wound inward, the smaller outward (the whole mesh's volume is negative as read): the same.
write_stl_shells "$tmp".apart.stl "0 0 0 1 1" "3 0 0 0.5 0"
"$exe" info "$tmp".apart.stl --json >"$tmp".out 2>"$tmp".err || fail "info on the inward larger shell"
grep -q '"volume":-0.875,.*"reoriented":true,"reoriented_shells":1,.*"contact_volume":1.125,' "$tmp".out ||
    fail "inward larger shell JSON: $(cat "$tmp".out)"
# Both inward: both reversed (the whole mesh).
write_stl_shells "$tmp".apart.stl "0 0 0 1 1" "3 0 0 0.5 1"
"$exe" info "$tmp".apart.stl --json >"$tmp".out 2>"$tmp".err || fail "info on two inward shells"
grep -q '"reoriented":true,"reoriented_shells":2,.*"contact_volume":1.125,' "$tmp".out ||
    fail "two inward shells JSON: $(cat "$tmp".out)"
# A cavity wound outward stays refused (a wrong-way cavity, or a second solid inside the first).
write_stl_shells "$tmp".apart.stl "-1 -1 -1 2 0" "-0.5 -0.5 -0.5 1 0" "3 0 0 0.5 1"
set +e
"$exe" info "$tmp".apart.stl >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "info on a nest beside a separate shell: status $rc"
grep -q "1 shell nested in another with the same winding" "$tmp".err || fail "nest stderr: $(cat "$tmp".err)"
# Two UV spheres, the second wound inward, of 63,360 triangles in all (the self-check's parallel path): the same
# report for any thread count.
awk 'BEGIN {
    pi = atan2(0, -1); nlat = 100; nlon = 160
    print "solid spheres"
    for (s = 0; s < 2; s++) {
        r = s ? 0.5 : 1; cx = s ? 3 : 0
        for (i = 0; i <= nlat; i++)
            for (j = 0; j < nlon; j++) {
                th = pi * i / nlat; ph = 2 * pi * j / nlon
                k = i * nlon + j
                if (i == 0 || i == nlat) { ph = 0 }
                X[k] = sprintf("%.17g %.17g %.17g", cx + r * sin(th) * cos(ph), r * sin(th) * sin(ph), r * cos(th))
            }
        for (i = 0; i < nlat; i++)
            for (j = 0; j < nlon; j++) {
                a = i * nlon + j; b = i * nlon + (j + 1) % nlon; c = a + nlon; d = b + nlon
                if (i == 0) { a = 0; b = 0 }
                if (i == nlat - 1) { c = nlat * nlon; d = nlat * nlon }
                if (i > 0) tri(a, c, b, s)
                if (i < nlat - 1) tri(b, c, d, s)
            }
    }
    print "endsolid spheres"
}
function tri(p, q, w, inward) {
    print " facet normal 0 0 0"; print "  outer loop"
    print "   vertex", X[p]
    print "   vertex", inward ? X[w] : X[q]
    print "   vertex", inward ? X[q] : X[w]
    print "  endloop"; print " endfacet"
}' >"$tmp".spheres.stl
OMP_NUM_THREADS=1 "$exe" info "$tmp".spheres.stl --json >"$tmp".one 2>"$tmp".err || fail "spheres: $(cat "$tmp".err)"
grep -q '"triangles":63360,.*"contact_ready":true,"components":2,.*"reoriented":true,"reoriented_shells":1,' \
    "$tmp".one || fail "spheres JSON: $(cat "$tmp".one)"
OMP_NUM_THREADS=3 "$exe" info "$tmp".spheres.stl --json >"$tmp".out 2>"$tmp".err || fail "spheres, 3 threads"
cmp -s "$tmp".one "$tmp".out || fail "spheres: 1 and 3 threads differ: $(cat "$tmp".one) / $(cat "$tmp".out)"

# contact and force: refused with the hint, used with a warning.
check_error contact 1 "$tmp".two.obj "$tmp".cube.obj
grep -q "mesh intersects itself: 18 pairs.*(--accept-self-intersections uses it anyway)$" "$tmp".err ||
    fail "contact stderr: $(cat "$tmp".err)"
"$exe" contact "$tmp".two.obj "$tmp".cube.obj --pose-j 0.25,0,0 --json --accept-self-intersections >"$tmp".out \
    2>"$tmp".err || fail "contact --accept-self-intersections: $(cat "$tmp".err)"
[ "$(wc -l <"$tmp".out)" -eq 1 ] || fail "contact JSON is not one line"
[ "$(wc -l <"$tmp".err)" -eq 1 ] || fail "contact warning is not one line: $(cat "$tmp".err)"
grep -q "^meshcontact: warning: $tmp.two.obj: used although it intersects itself: 18 pairs" "$tmp".err ||
    fail "contact warning: $(cat "$tmp".err)"
check_error force 1 "$tmp".two.obj "$tmp".cube.obj --stiffness 1e5 --exponent 1.5
"$exe" force "$tmp".two.obj "$tmp".cube.obj --pose-j 0.25,0,0 --stiffness 1e5 --exponent 1.5 \
    --accept-self-intersections >"$tmp".out 2>"$tmp".err || fail "force --accept-self-intersections: $(cat "$tmp".err)"

# A scenario: refused by default, the flag on the GRAPHICS statement uses the mesh (with a warning).
write_scenario() {
    cat >"$tmp".scn <<EOF
PART/1, GROUND
GRAPHICS/1, PART=1, FILE=$tmp.two.obj $1
PART/2, MASS=1, IP=1e-3,1e-3,1e-3, QG=0.5,0.5,3
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.1
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e5
SIMULATE/DYNAMIC, END=0.01, STEPS=2
EOF
}
write_scenario ""
check_error simulate 1 "$tmp".scn -o "$tmp".run
grep -q "GRAPHICS/1: .*intersects itself.*ACCEPT_SELF_INTERSECTIONS" "$tmp".err || fail "simulate: $(cat "$tmp".err)"
write_scenario ", ACCEPT_SELF_INTERSECTIONS"
"$exe" simulate "$tmp".scn -o "$tmp".run >"$tmp".out 2>"$tmp".err || fail "simulate accepted: $(cat "$tmp".err)"
grep -q "warning: .*GRAPHICS/1: .*intersects itself (18 pairs of triangles" "$tmp".err ||
    fail "simulate warning: $(cat "$tmp".err)"
echo "$check_name: ok"
