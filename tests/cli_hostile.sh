# Shared by check_cli_reliability.sh and check_cli_readers.sh (issue 41's hostile-user checks), sourced after
# cli_common.sh with $exe and $tmp set: the run and one_line checks, and the fixtures both use (a tetrahedron OBJ, a
# ball and a box STL, a ball dropped on a plate, a table of six poses).
# run STATUS CMD...: the command exits with STATUS; its stderr is in $tmp.err.
run() {
    want="$1"; shift
    set +e
    "$@" >"$tmp".out 2>"$tmp".err
    rc=$?
    set -e
    [ "$rc" -eq "$want" ] || fail "status $rc, want $want: $* ($(cat "$tmp".err))"
}
# one_line PATTERN: stderr is one line matching PATTERN.
one_line() {
    [ "$(wc -l <"$tmp".err)" -eq 1 ] || fail "stderr is not one line: $(cat "$tmp".err)"
    grep -q -- "$1" "$tmp".err || fail "stderr does not match '$1': $(cat "$tmp".err)"
}

# A tetrahedron in OBJ (and its copies below).
cat >"$tmp"/tet.obj <<'OBJ'
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 2 3 4
f 1 4 3
OBJ
"$exe" primitive sphere --radius 1 --triangles 600 -o "$tmp"/ball.stl >/dev/null
"$exe" primitive box --size 1,1,1 -o "$tmp"/box.stl >/dev/null

# A ball dropped on a plate; a table of six poses.
cat >"$tmp"/drop.scn <<'SCN'
PART/1, GROUND
PART/2, MASS=1, IP=0.1,0.1,0.1, QG=0,0,0.6
GRAPHICS/1, PART=1, BOX, X=4, Y=4, Z=1, QP=-2,-2,-1
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.5
CONTACT/1, IGEOM=2, JGEOM=1, IMPACT, STIFFNESS=1e5, EXPONENT=1.5, DAMPING=10, DMAX=0.001
ACCGRAV/KGRAV=-9.81
SIMULATE/DYNAMIC, END=0.05, STEPS=10
SCN
{
    echo "time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j"
    for k in 1 2 3 4 5 6; do echo "0.$k,0,0,0,1,0,0,0,0.$k,0.1,0.2,1,0,0,0"; done
} >"$tmp"/poses.csv
