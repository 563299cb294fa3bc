# Shared helpers of the CLI contract scripts (sourced; needs $exe, $tmp and $check_name set by the caller).

# Print the failure with the script's name and stop.
fail() { echo "$check_name: $*" >&2; exit 1; }

# check_error SUBCOMMAND STATUS ARGS...: the command fails with STATUS, prints nothing on stdout and exactly one
# stderr line starting with 'meshcontact: SUBCOMMAND: ' (DESIGN.md CLI rules); a usage error (status 2) ends with the
# hint to the subcommand's own help.
check_error() {
    sub="$1"; want="$2"; shift 2
    set +e
    "$exe" "$sub" "$@" >"$tmp".out 2>"$tmp".err
    rc=$?
    set -e
    [ "$rc" -eq "$want" ] || fail "expected status $want, got $rc for: $sub $*"
    [ ! -s "$tmp".out ] || fail "stdout not empty on error: $sub $*"
    [ "$(wc -l <"$tmp".err)" -eq 1 ] || fail "stderr is not one line: $sub $*"
    grep -q "^meshcontact: " "$tmp".err || fail "stderr does not start with 'meshcontact: ': $sub $*"
    if [ "$want" -eq 2 ]; then
        grep -q "^meshcontact: $sub: .* (see 'meshcontact $sub --help')\$" "$tmp".err ||
            fail "usage error without the '$sub' prefix and help hint: $(cat "$tmp".err)"
    fi
}

# check_scenario_error SCN PATTERN: `simulate SCN` fails with exactly one stderr line 'meshcontact: ...SCN...' that
# matches PATTERN (a grep pattern) after the scenario's name (and line, when the error has one).
check_scenario_error() {
    set +e
    "$exe" simulate "$1" -o "$tmp"/scenario_error >"$tmp".out 2>"$tmp".err
    rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "accepted: $1"
    [ "$(wc -l <"$tmp".err)" -eq 1 ] || fail "not one line for $1: $(cat "$tmp".err)"
    grep -q "^meshcontact: .*$(basename "$1")[:0-9]*: .*$2" "$tmp".err ||
        fail "unexpected message for $1: $(cat "$tmp".err)"
}
