#!/bin/sh
# Hostile-user checks of issue 41, part 2: readers (NUL and control bytes with their place, devices, FIFOs,
# directories, long lines, a BOM), messages (long paths, non-UTF-8 and newline file names, the real cause of a bad
# number) and runs that cannot finish (BDF's memory, a contact time scale below double resolution), refused before
# any work. Part 1: check_cli_reliability.sh.
set -eu
export LC_ALL=C # file names that are not UTF-8 match `.` in grep
exe="$1"
tmp="${TMPDIR:-/tmp}/mc_cli_readers.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp".out "$tmp".err' EXIT
check_name=check_cli_readers
. "$(dirname "$0")/cli_common.sh"

. "$(dirname "$0")/cli_hostile.sh"

# --- Readers ------------------------------------------------------------------------------------------------------
# A NUL or control byte in a text mesh, a scenario, a poses or parameters table: an error with its line and column.
printf 'v 0 0 0\nv 1 0 0\000 junk\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n' >"$tmp"/nul.obj
run 1 "$exe" info "$tmp"/nul.obj
one_line "nul.obj: line 2, column 8: a NUL byte"
printf 'OFF\n4 4 0\n0 0 0\n1 0 0\007\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 1 2 3\n3 0 3 2\n' >"$tmp"/bel.off
run 1 "$exe" info "$tmp"/bel.off
one_line "bel.off: line 4, column 6: the control byte 0x07"
printf 'solid s\n facet normal 0 0 1\000\n' >"$tmp"/nul.stl
run 1 "$exe" info "$tmp"/nul.stl
one_line "nul.stl: line 2, column 20: a NUL byte"
"$exe" primitive box --size 1,1,1 -o "$tmp"/box.shl >/dev/null
awk 'NR == 3 { printf "%s\001\n", $0; next } { print }' "$tmp"/box.shl >"$tmp"/ctl.shl
run 1 "$exe" info "$tmp"/ctl.shl
one_line "ctl.shl: line 3, column [0-9]*: the control byte 0x01"
printf 'PART/1, GROUND\n! a comment\000\n' >"$tmp"/nul.scn
run 1 "$exe" simulate "$tmp"/nul.scn -o "$tmp"/x
one_line "nul.scn:2: column 12: a NUL byte"
{ head -3 "$tmp"/poses.csv; printf '0.9,0,0,0,1,0,0,0,0.1\000,0,0,1,0,0,0\n'; } >"$tmp"/nulposes.csv
check_error sweep 1 poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/nulposes.csv -o "$tmp"/o.csv
one_line "nulposes.csv: cannot read: line 4, column 22: a NUL byte"
printf 'STIFFNESS\n1e5\n2e5\002\n' >"$tmp"/ctl.params
check_error sweep 1 scenario "$tmp"/drop.scn "$tmp"/ctl.params -o "$tmp"/o.csv
one_line "ctl.params: cannot read: line 3, column 4: the control byte 0x02"
printf 'STIFFNESS = 1e5, 2e5\003\n' >"$tmp"/ctl.grid
check_error sweep 1 scenario "$tmp"/drop.scn "$tmp"/ctl.grid -o "$tmp"/o.csv
one_line "ctl.grid: byte 21: the control byte 0x03"
# A line of 2 MiB without a line break: refused, memory bounded.
{ printf 'time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j\n'; head -c 2097152 /dev/zero | tr '\0' 1; } \
    >"$tmp"/long.csv
check_error sweep 1 poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/long.csv -o "$tmp"/o.csv
one_line "long.csv: cannot read: line 2: longer than 1 MiB"
# Devices, FIFOs and directories: refused at once by every reader (a FIFO must not block: timeout 10 s).
mkfifo "$tmp"/fifo
for f in /dev/zero "$tmp"/fifo; do
    run 1 timeout 10 "$exe" simulate "$f" -o "$tmp"/x
    one_line "is a \(character device\|FIFO\|directory\)"
    run 1 timeout 10 "$exe" sweep poses "$tmp"/box.stl "$tmp"/ball.stl "$f" -o "$tmp"/o.csv
    one_line "is a \(character device\|FIFO\|directory\)"
    run 1 timeout 10 "$exe" sweep scenario "$tmp"/drop.scn "$f" -o "$tmp"/o.csv
    one_line "is a \(character device\|FIFO\|directory\)"
done
run 1 "$exe" simulate "$tmp" -o "$tmp"/x
one_line "is a directory"
# A UTF-8 byte order mark is skipped (scenario, OBJ, poses).
printf '\357\273\277' | cat - "$tmp"/drop.scn >"$tmp"/bom.scn
"$exe" simulate "$tmp"/bom.scn -o "$tmp"/bomrun >/dev/null 2>"$tmp".err || fail "scenario with a BOM: $(cat "$tmp".err)"
printf '\357\273\277' | cat - "$tmp"/tet.obj >"$tmp"/bom.obj
"$exe" info "$tmp"/bom.obj >/dev/null 2>"$tmp".err || fail "OBJ with a BOM: $(cat "$tmp".err)"
printf '\357\273\277' | cat - "$tmp"/poses.csv >"$tmp"/bomposes.csv
"$exe" sweep poses "$tmp"/box.stl "$tmp"/ball.stl "$tmp"/bomposes.csv -o "$tmp"/bom.csv 2>"$tmp".err ||
    fail "poses with a BOM: $(cat "$tmp".err)"

# --- Messages -----------------------------------------------------------------------------------------------------
# A legal path of more than 600 bytes: the message keeps the file name and the reason.
long="$tmp"
for k in 1 2 3 4 5 6; do
    long="$long/dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd$k"
done
mkdir -p "$long"
printf 'v 0 0 0\nf 1 2\n' >"$long"/the_file_name.obj
run 1 "$exe" info "$long"/the_file_name.obj
one_line "\.\.\..*/the_file_name.obj: line 2: face with fewer than 3 vertices"
# A file name with a line break and a byte that is not UTF-8: one line on stderr, valid JSON on stdout.
odd="$(printf '%s/odd\377\nname' "$tmp")"
cp "$tmp"/tet.obj "$odd.obj"
run 1 "$exe" info "$odd.ob"
one_line 'odd.*\\nname.ob: '
"$exe" repair "$odd.obj" "$odd.stl" --json >"$tmp".out || fail "repair of an odd name failed"
python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' <"$tmp".out ||
    fail "repair --json of an odd name: not valid UTF-8 JSON: $(cat "$tmp".out)"
# The real cause of a bad number or inertia.
sed 's/END=0.05/END=4.9e-324/' "$tmp"/drop.scn >"$tmp"/end.scn
check_scenario_error "$tmp"/end.scn "END=4.9e-324 is out of the range of double precision"
sed 's/IP=0.1,0.1,0.1/IP=1e300,1e300,1e300/' "$tmp"/drop.scn >"$tmp"/ip.scn
check_scenario_error "$tmp"/ip.scn "out of the range the simulator handles.*would overflow"
sed 's/IP=0.1,0.1,0.1/IP=1e-300,1e-300,1e-300/' "$tmp"/drop.scn >"$tmp"/ip.scn
check_scenario_error "$tmp"/ip.scn "out of the range the simulator handles.*would underflow"

# --- Runs that cannot finish: refused before any work ---------------------------------------------------------------
# 2000 free-falling parts: the block-sparse BDF runs them (0.5 s, 64 MB; GSL's dense msbdf would need 9.2 GB: still
# refused at once with the estimate when asked for).
awk 'BEGIN {
    print "ACCGRAV/KGRAV=-9.81"
    print "PART/1, GROUND"
    for (i = 0; i < 2000; i++) printf "PART/%d, MASS=1, IP=0.01,0.01,0.01, QG=%g,%g,1\n", i + 2, (i % 50) * 0.3, int(i / 50) * 0.3
    print "SIMULATE/DYNAMIC, END=0.1, STEPS=10"
}' >"$tmp"/fall.scn
"$exe" simulate "$tmp"/fall.scn -o "$tmp"/fall --no-animation >/dev/null || fail "2000 free-falling parts with BDF failed"
# The last part after 0.1 s of free fall from z = 1: 1 - 9.81 / 2 * 0.01 = 0.95095 (the NDF integrates a parabola
# exactly from order 2 on; its first steps at order 1 err by about the tolerance, 1e-5 of the 1 mm length scale).
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "part2001_z") col = i } END { z = $col;
    if (col == 0 || z - 0.95095 > 1e-6 || 0.95095 - z > 1e-6) { print "part2001_z = " z; exit 1 } }' \
    "$tmp"/fall/fall.csv || fail "2000 free-falling parts: wrong final height"
export MC_SIM_BDF=msbdf
check_scenario_error "$tmp"/fall.scn "2000 moving parts: the BDF integrator needs about 9.22 GB (GSL msbdf's dense.*use INTEGRATOR/RK4"
unset MC_SIM_BDF
# A few parts without contacts integrate with BDF (their Jacobian has no contact part).
head -5 "$tmp"/fall.scn >"$tmp"/fall3.scn
tail -1 "$tmp"/fall.scn >>"$tmp"/fall3.scn
"$exe" simulate "$tmp"/fall3.scn -o "$tmp"/fall3 >/dev/null || fail "3 free-falling parts with BDF failed"
# A contact time scale below what doubles resolve at END (MASS=1e-50, STIFFNESS=1e50; they ran for minutes, and
# MASS=1e-30 or STIFFNESS=1e40 trapped the library's assertion in debug builds): refused, naming the cause.
for edit in 's/MASS=1,/MASS=1e-50,/' 's/MASS=1,/MASS=1e-30,/' 's/STIFFNESS=1e5/STIFFNESS=1e50/' \
    's/STIFFNESS=1e5/STIFFNESS=1e40/'; do
    sed "$edit" "$tmp"/drop.scn >"$tmp"/fast.scn
    check_scenario_error "$tmp"/fast.scn "the contacts' time scale .* is too short for END=0.05.*check the units of MASS and STIFFNESS"
done

echo "meshcontact readers: control bytes, special files, long lines, BOM, messages, runs that cannot finish: ok"
