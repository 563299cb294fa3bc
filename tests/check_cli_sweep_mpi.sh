#!/bin/sh
# `meshcontact sweep` under MPI (issue 18): a pose sweep under `mpirun -np 2`, `-np 3` and `-np 9` (oversubscribed,
# small chunks so that the ranks interleave, small windows) writes the same bytes as one process; a run killed midway under mpirun and
# resumed under mpirun gives the same bytes too; so does a 50-run scenario sweep under `-np 2`. Skipped (exit status 77, with the reason) when mpirun is missing or the build has no MPI.
# Usage: check_cli_sweep_mpi.sh MESHCONTACT
set -eu
exe="$1"
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (install openmpi-bin and libopenmpi-dev, then reconfigure the build)"
    exit 77
fi
if ! "$exe" sweep --help | grep -q "This build has MPI"; then
    echo "SKIP: meshcontact was built without MPI (install libopenmpi-dev, then reconfigure the build)"
    exit 77
fi
tmp="${TMPDIR:-/tmp}/mc_cli_sweep_mpi.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
check_name=check_cli_sweep_mpi
fail() { echo "$check_name: $*" >&2; exit 1; }
export OMP_NUM_THREADS=1
# Open MPI refuses to run as root unless told (CI containers run as root); shared memory without the single-copy
# mechanism, which containers often forbid (ptrace); no leak report from Open MPI's own allocations under ASan.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi="mpirun --oversubscribe"

"$exe" primitive box --size 2,2,2 -o "$tmp"/box.shl >/dev/null || fail "primitive box"
"$exe" primitive ellipsoid --radii 0.6,0.4,0.3 --tolerance 0.01 -o "$tmp"/ell.shl >/dev/null || fail "primitive ellipsoid"
poses="$tmp"/poses.csv
{
    echo "time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j"
    awk 'BEGIN {
        for (k = 0; k < 200; k++) {
            t = k * 0.015
            printf "%.3f,0.1,0,0,1,0.05,0,0,%.6f,%.6f,0.05,%.6f,0.1,%.6f,0.2\n", t, 2.4 - 1.6 * t, 0.3 * sin(3 * t),
                cos(t), sin(t)
        }
        print "3,0,0,0,0,0,0,0,1,0,0,1,0,0,0"
    }'
} >"$poses"
opts="--stiffness 1e5 --exponent 1.5 --mu-static 0.3 --mu-dynamic 0.2"
set +e
# shellcheck disable=SC2086
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/one.csv $opts 2>/dev/null
[ $? -eq 1 ] || fail "one process: expected status 1 (the last row fails)"
# 2 and 3 ranks; a window of 1 and 2 chunks (rank 0 hands out a chunk only when the one before is written: the
# starved workers are fed as writes advance); 9 ranks, where rank 0 only hands out and writes.
for spec in "2 --chunk 3" "3 --chunk 3" "3 --chunk 2 --window 1" "9 --chunk 5 --window 2"; do
    np="${spec%% *}"
    # shellcheck disable=SC2086
    $mpi -np $np "$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$poses" -o "$tmp"/np$np.csv ${spec#* } $opts \
        >"$tmp"/mpi.out 2>&1
    cmp -s "$tmp"/one.csv "$tmp"/np$np.csv || { cat "$tmp"/mpi.out >&2; fail "mpirun -np $spec: output differs"; }
done
set -e
grep -q "^201,3,error," "$tmp"/np9.csv || fail "the failing row is not in the MPI output"

# Killed under mpirun after 77 rows (rank 0 SIGKILLs itself, mpirun ends the job), resumed under mpirun.
grep -v "^3,0,0,0,0" "$poses" >"$tmp"/good.csv
# shellcheck disable=SC2086
"$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/good.csv -o "$tmp"/good1.csv $opts || fail "one process"
set +e
# shellcheck disable=SC2086
$mpi -np 2 "$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/good.csv -o "$tmp"/kill.csv --kill-after 77 \
    --chunk 2 $opts >/dev/null 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "--kill-after under mpirun: the job was not killed"
[ "$(grep -c '' "$tmp"/kill.csv)" -eq 79 ] || fail "--kill-after under mpirun: expected a header, 77 rows, a torn line"
# shellcheck disable=SC2086
$mpi -np 2 "$exe" sweep poses "$tmp"/box.shl "$tmp"/ell.shl "$tmp"/good.csv -o "$tmp"/kill.csv --resume --chunk 5 \
    $opts >"$tmp"/mpi.out 2>&1 || { cat "$tmp"/mpi.out >&2; fail "resume under mpirun failed"; }
cmp -s "$tmp"/good1.csv "$tmp"/kill.csv || fail "killed and resumed under mpirun: output differs"
# A 50-run scenario sweep (a grid of 5 stiffnesses x 5 friction coefficients x 2 drop speeds of a ball thrown onto
# a plate): the same bytes under mpirun -np 2 as in one process.
cat >"$tmp"/slide.scn <<'SCN'
ACCGRAV/KGRAV=-9.81
PART/1, GROUND
GRAPHICS/1, PART=1, BOX, X=0.4, Y=0.4, Z=0.05, QP=-0.2,-0.2,-0.05
PART/2, MASS=1, IP=4e-4,4e-4,4e-4, QG=0,0,0.06, VX=0.5
GRAPHICS/2, PART=2, SPHERE, RADIUS=0.05, CHORD_TOLERANCE=2e-3
CONTACT/1, IGEOM=1, JGEOM=2, IMPACT, STIFFNESS=1e7, EXPONENT=1.5, DAMPING=100, DMAX=1e-4,
, COULOMB_FRICTION=ON, MU_STATIC=0.3, MU_DYNAMIC=0.1
SIMULATE/DYNAMIC, END=0.04, STEPS=8
SCN
printf 'STIFFNESS = 1e6, 2e6, 5e6, 1e7, 2e7
MU_STATIC = 0.1, 0.2, 0.3, 0.4, 0.5
VZ/2 = 0, -1
' >"$tmp"/grid.txt
"$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/scn1.csv || fail "scenario sweep, one process"
[ "$(grep -c ',ok,' "$tmp"/scn1.csv)" -eq 50 ] || fail "scenario sweep: expected 50 runs that succeed"
$mpi -np 2 "$exe" sweep scenario "$tmp"/slide.scn "$tmp"/grid.txt -o "$tmp"/scn2.csv --chunk 3 >"$tmp"/mpi.out 2>&1 ||
    { cat "$tmp"/mpi.out >&2; fail "scenario sweep under mpirun -np 2 failed"; }
cmp -s "$tmp"/scn1.csv "$tmp"/scn2.csv || fail "scenario sweep under mpirun -np 2: output differs"
echo "meshcontact sweep under MPI: the same bytes for 1, 2, 3 and 9 ranks, after a kill and --resume, and on a 50-run" \
    "scenario sweep"
