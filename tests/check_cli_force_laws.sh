#!/bin/sh
# `meshcontact force --law/--splines` (issue 33): RecurDyn's law with the rebound floor, DYMORE's with a spline and a
# user routine from the example library against their closed forms (a ball on an analytic plane: depth 1e-3 to
# rounding, 1e-12 relative on the depth, so 1e-9 on Fn), the routine equal to the built-in IMPACT bit for bit, and
# the errors as one stderr line. Usage: check_cli_force_laws.sh MESHCONTACT ROUTINE_LIBRARY
set -eu
exe="$1"
lib="$2"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp".out "$tmp".err "$tmp".a "$tmp".b' EXIT
check_name=check_cli_force_laws
. "$(dirname "$0")/cli_common.sh"

fn() { # the first region's Fn of a --json run, exactly as printed
    "$exe" force plane sphere:0.05 --pose-j 0,0,0.049 --json "$@" >"$tmp".out 2>"$tmp".err ||
        fail "force $* failed: $(cat "$tmp".err)"
    sed 's/.*"fn":\([^,]*\),.*/\1/' "$tmp".out
}
close() { # close GOT WANT: 1e-9 relative
    python3 -c "import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(g - w) > 1e-9 * abs(w))" \
        "$1" "$2" || fail "$3: got $1, want $2"
}
# RecurDyn, separating at 0.3 m/s: f_ns = 1e7 (1e-3)^1.5 = 316.227766..., f_nd = -2e4 0.3^1.2 pulls far below
# R_df f_ns, so Fn = 0.5 f_ns.
got=$(fn --vel-j 0,0,0.3,0,0,0 --law "RECURDYN, STIFFNESS=1e7, STIFFNESS_EXPONENT=1.5, DAMPING=2e4, DAMPING_EXPONENT=1.2, BOUNDARY_PENETRATION=1e-4, REBOUND_DAMPING_FACTOR=0.5")
close "$got" 158.11388300841898 "RecurDyn R_df floor"
# ... and approaching at 0.1 m/s with m_i = 0.5: f_nd = 2e4 0.1^1.2 (1e-3)^0.5 (the ramp is 1 beyond 1e-4)
want=$(python3 -c "print(1e7 * 1e-3 ** 1.5 + 2e4 * 0.1 ** 1.2 * 1e-3 ** 0.5)")
got=$(fn --vel-j 0,0,-0.1,0,0,0 --law "RECURDYN, STIFFNESS=1e7, DAMPING=2e4, DAMPING_EXPONENT=1.2, INDENTATION_EXPONENT=0.5, BOUNDARY_PENETRATION=1e-4, REBOUND_DAMPING_FACTOR=0.5")
close "$got" "$want" "RecurDyn approaching"
# beyond MAXIMUM_PENETRATION: no force
got=$(fn --law "RECURDYN, STIFFNESS=1e7, MAXIMUM_PENETRATION=5e-4")
close "$got" 0 "maximum penetration"
# DYMORE with a nonlinear spring (Akima through (1e-3, 10)), approaching at 0.4 m/s, mu = 0.5: 10 (1 + 0.2)
got=$(fn --vel-j 0,0,-0.4,0,0,0 --law "DYMORE, STIFFNESS_SPLINE=3, DISSIPATION=0.5" \
    --splines "3, X=0,1e-3,2e-3,3e-3, Y=0,10,30,60, METHOD=AKIMA")
close "$got" 12 "DYMORE spline"
# the example routine library: IMPACT bit for bit (the same printed digits, %.17g)
a=$(fn --vel-j 0,0,-0.2,0,0,0 --stiffness 1e8 --exponent 1.5 --damping 3e3 --dmax 2e-3)
b=$(fn --vel-j 0,0,-0.2,0,0,0 --law "NORMAL_FUNCTION=USER(1e8,1.5,3e3,2e-3), NORMAL_ROUTINE=\"$lib::mc_example_impact\"")
[ "$a" = "$b" ] || fail "user IMPACT routine $b differs from IMPACT $a"
# errors: one line naming the library and the function, non-zero status, nothing on stdout
check_error force 1 plane sphere:0.05 --law "NORMAL_FUNCTION=USER(1,2,3,4), NORMAL_ROUTINE=no-such-lib.so::fn"
grep -q "no-such-lib.so.*fn" "$tmp".err || fail "missing library: $(cat "$tmp".err)"
check_error force 1 plane sphere:0.05 --law "NORMAL_FUNCTION=USER(1,2,3,4), NORMAL_ROUTINE=\"$lib::nope\""
grep -q "has no function 'nope'" "$tmp".err || fail "missing symbol: $(cat "$tmp".err)"
check_error force 1 plane sphere:0.05 --law "NORMAL_FUNCTION=USER(1,2), NORMAL_ROUTINE=\"$lib::mc_example_impact\""
grep -q "takes 4 USER() values, got 2" "$tmp".err || fail "wrong count: $(cat "$tmp".err)"
check_error force 1 plane sphere:0.05 --law "RECURDYN, STIFFNESS=1e7, REBOUND_DAMPING_FACTOR=3"
check_error force 1 plane sphere:0.05 --law "FRICTION_SPLINE=4"
check_error force 1 plane sphere:0.05 --law "COULOMB_FRICTION=ON"
grep -q "COULOMB_FRICTION" "$tmp".err || fail "--law without a law: $(cat "$tmp".err)"
echo "meshcontact force --law: CLI contract OK"
