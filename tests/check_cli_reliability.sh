#!/bin/sh
# Hostile-user checks of issue 41, part 1: outputs all or nothing (repair IN IN under `ulimit -f`, stdout to
# /dev/full, an unwritable --svg or output folder before the run) and sweeps that cannot mix (a foreign --resume, a
# second writer). Part 2 (readers, messages, runs that cannot finish): check_cli_readers.sh.
set -eu
export LC_ALL=C # file names that are not UTF-8 match `.` in grep
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_reliability.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_reliability
. "$(dirname "$0")/cli_common.sh"

. "$(dirname "$0")/cli_hostile.sh"

# --- Outputs all or nothing ---------------------------------------------------------------------------------------
# repair IN IN on a "full disk" (ulimit -f: 10 blocks, the STL needs about 30 kB): exit 1 with the reason, IN intact,
# no temporary left behind.
cp "$tmp"/ball.stl "$tmp"/in.stl
set +e
(ulimit -f 10; "$exe" repair "$tmp"/in.stl "$tmp"/in.stl) >"$tmp".out 2>"$tmp".err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "repair IN IN under ulimit -f: status $rc ($(cat "$tmp".err))"
one_line "in.stl: write failed: File too large (the previous file, if any, is unchanged)"
cmp -s "$tmp"/ball.stl "$tmp"/in.stl || fail "repair IN IN under ulimit -f changed IN"
[ -z "$(ls -A "$tmp" | grep '\.tmp$' || true)" ] || fail "a temporary was left behind: $(ls -A "$tmp")"
# Without the limit, repair in place works, the file is usable and keeps its permissions.
chmod 600 "$tmp"/in.stl
"$exe" repair "$tmp"/in.stl "$tmp"/in.stl >/dev/null || fail "repair IN IN failed"
"$exe" info "$tmp"/in.stl >/dev/null || fail "repaired in place: not usable"
[ "$(stat -c %a "$tmp"/in.stl)" = 600 ] || fail "repair in place changed the permissions: $(stat -c %a "$tmp"/in.stl)"
# primitive into a folder that does not exist: one line, nothing created.
run 1 "$exe" primitive box --size 1,1,1 -o "$tmp"/no/such/dir/box.stl
one_line "box.stl: cannot write: No such file or directory"
# stdout to a full device: every command fails with the reason (the output is incomplete), not exit 0.
for cmd in "info $tmp/tet.obj --json" "info $tmp/tet.obj" "contact $tmp/tet.obj $tmp/tet.obj --json" \
    "force $tmp/tet.obj $tmp/tet.obj --stiffness 1e5 --exponent 1.5 --json" \
    "repair $tmp/tet.obj $tmp/rep.stl --json" "primitive box --size 1,1,1 -o $tmp/p.stl --json" \
    "bench $tmp/tet.obj $tmp/tet.obj --repeat 1 --json" "--version"; do
    set +e
    # shellcheck disable=SC2086
    "$exe" $cmd >/dev/full 2>"$tmp".err
    rc=$?
    set -e
    [ "$rc" -eq 1 ] || fail "$cmd > /dev/full: status $rc"
    one_line "^meshcontact: stdout: write error.*(the output is incomplete)"
done

# simulate: an unwritable --svg (or output folder) fails before the run, and no output is created.
run 1 "$exe" simulate "$tmp"/drop.scn -o "$tmp"/run --svg "$tmp"/no/such/dir/plot.svg
one_line "plot.svg: cannot write: No such file or directory"
[ -z "$(ls -A "$tmp"/run 2>/dev/null)" ] || fail "simulate created outputs before failing: $(ls -A "$tmp"/run)"
"$exe" simulate "$tmp"/drop.scn -o "$tmp"/run >/dev/null || fail "simulate failed"
[ "$(ls -A "$tmp"/run | wc -l)" -eq 8 ] || fail "simulate: expected 8 outputs (6 and the animation's 2) and no temporary: $(ls -A "$tmp"/run)"
# An unwritable animation path fails before the run too.
run 1 "$exe" simulate "$tmp"/drop.scn -o "$tmp"/run2 --glb "$tmp"/no/such/dir/a.glb
one_line "a.glb: cannot write: No such file or directory"
[ -z "$(ls -A "$tmp"/run2 2>/dev/null)" ] || fail "simulate created outputs before failing: $(ls -A "$tmp"/run2)"
cp "$tmp"/run/drop.csv "$tmp"/drop.csv
# A failed write keeps the previous outputs: the CSV on a device that fails (/dev/full) -> exit 1, others unchanged.
run 1 "$exe" simulate "$tmp"/drop.scn -o "$tmp"/run --csv /dev/full
grep -q "/dev/full: cannot write: No space left on device" "$tmp".err || fail "CSV on /dev/full: $(cat "$tmp".err)"
cmp -s "$tmp"/drop.csv "$tmp"/run/drop.csv || fail "the previous CSV changed"

# --- Sweeps that cannot mix --------------------------------------------------------------------------------------
"$exe" sweep poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses.csv -o "$tmp"/sweep.csv || fail "sweep failed"
head -1 "$tmp"/sweep.csv | grep -q "^# meshcontact sweep poses fingerprint: meshes=[0-9a-f]\{16\} options=[0-9a-f]\{16\} scenario=[0-9a-f]\{16\} input=[0-9a-f]\{16\}$" ||
    fail "fingerprint line: $(head -1 "$tmp"/sweep.csv)"
cp "$tmp"/sweep.csv "$tmp"/keep.csv
# The same file names, other contents / options / rows: each refused with one line naming what differs.
cp "$tmp"/ball.stl "$tmp"/ball.bak
"$exe" primitive sphere --radius 1.01 --triangles 600 -o "$tmp"/ball.stl >/dev/null
check_error sweep 1 poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses.csv -o "$tmp"/sweep.csv --resume
one_line "sweep.csv: cannot resume: it was written by a sweep of other meshes"
cp "$tmp"/ball.bak "$tmp"/ball.stl
check_error sweep 1 poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses.csv -o "$tmp"/sweep.csv --resume --scale 2
one_line "cannot resume: it was written by a sweep of other options"
sed 's/^0.6,0,/0.6,1e-9,/' "$tmp"/poses.csv >"$tmp"/poses2.csv
check_error sweep 1 poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses2.csv -o "$tmp"/sweep.csv --resume
one_line "cannot resume: it was written by a sweep of another input table"
cmp -s "$tmp"/keep.csv "$tmp"/sweep.csv || fail "a refused resume changed the output"
# The same inputs resume (nothing to do).
"$exe" sweep poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses.csv -o "$tmp"/sweep.csv --resume || fail "own resume"
cmp -s "$tmp"/keep.csv "$tmp"/sweep.csv || fail "resume of a complete output changed it"
# A second writer: while another process holds the output's lock (flock(1), the lock a running sweep takes), a sweep
# on it is refused at once, the output untouched, with and without --resume.
if command -v flock >/dev/null; then
    for opt in "" "--resume"; do
        set +e
        # shellcheck disable=SC2086
        flock "$tmp"/sweep.csv "$exe" sweep poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/poses.csv -o "$tmp"/sweep.csv \
            $opt >"$tmp".out 2>"$tmp".err
        rc=$?
        set -e
        [ "$rc" -eq 1 ] || fail "second writer $opt: status $rc"
        one_line "sweep.csv: another sweep is writing this output (it is locked)"
        cmp -s "$tmp"/keep.csv "$tmp"/sweep.csv || fail "a refused second writer changed the output"
    done
fi

echo "meshcontact reliability: all or nothing outputs, checked stdout, sweeps that cannot mix: ok"
