#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Builds the fuzz harnesses (tests/fuzz/build.sh) and runs them one after the other, each on a working copy of its
# committed corpus (tests/fuzz/corpus/<harness>/) with its dictionary, under ASan + UBSan.
#
# Usage: sh tests/fuzz/run.sh [-r RUNS] [-t SECONDS] [-b BUILD_DIR] [-m] [HARNESS ...]
#   -r RUNS     executions per harness (libFuzzer -runs; default 1000000)
#   -t SECONDS  stop each harness after this long instead (libFuzzer -max_total_time; -r is then ignored)
#   -b DIR      build directory (default build-fuzz)
#   -m          afterwards, merge what the run found into the committed corpus (libFuzzer -merge=1: only inputs
#               that add coverage are kept)
#   HARNESS     any of the names below (default: all)
# Writes <build>/fuzz-work/<harness>/{corpus/,log.txt,crash-*,...}; prints, per harness, libFuzzer's final line
# (#execs, cov, ft, exec/s) and the wall time. Exit status 1 when a harness stopped on a crash (its artifacts are in
# the working directory: minimise with `<binary> -minimize_crash=1 -runs=100000 <crash file>`).
#
# The Assimp format (ply) runs in libFuzzer's fork mode with crashes, out-of-memory and timeouts
# ignored: Assimp (not instrumented; Debian's build has its ai_assert on) aborts, over-allocates and leaks on malformed
# files within seconds, and a run must get past that to exercise the wrapper. Every artifact is kept and counted in the
# summary (triage them: tests/fuzz/open/README.md lists those known). Allocations over 512 MB fail (ASan
# allocator_may_return_null, max_allocation_size_mb: Assimp then fails the import as it does when the system refuses,
# instead of a libFuzzer out-of-memory stop), and LeakSanitizer is off: every leak it reports there is Assimp's
# (tests/fuzz/lsan.supp), it costs most of the speed, and the library's own memory is checked after every input by
# its byte count (tests/fuzz/ci.sh replays the committed inputs with LeakSanitizer on).
set -e
cd "$(dirname "$0")/../.."
runs=1000000
seconds=0
build=build-fuzz
merge=0
while getopts r:t:b:m opt; do
    case $opt in
    r) runs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    b) build=$OPTARG ;;
    m) merge=1 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
all="stl_binary stl_ascii obj off shl ply 3mf gltf glb dae scenario mesh_create query shapes world"
harnesses=${*:-$all}

sh tests/fuzz/build.sh "$build" >/dev/null

# The dictionary and the largest input of each harness.
dict_of() {
    case $1 in
    stl_ascii | obj | off | shl | ply | dae | gltf | 3mf | scenario) echo "tests/fuzz/dict/$1.dict" ;;
    glb) echo "tests/fuzz/dict/gltf.dict" ;;
    *) echo "" ;;
    esac
}
max_len_of() {
    case $1 in
    mesh_create | query | shapes) echo 2048 ;;
    world | scenario) echo 4096 ;;
    *) echo 8192 ;;
    esac
}

export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0}"
status=0
for h in $harnesses; do
    bin="$build/fuzz/fuzz_$h"
    [ -x "$bin" ] || { echo "no harness '$h' (have: $all)" >&2; exit 2; }
    work="$build/fuzz-work/$h"
    mkdir -p "$work/corpus"
    set -- -max_len="$(max_len_of "$h")" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/"
    asan="${ASAN_OPTIONS:-}"
    fork=0
    case $h in
    ply)
        set -- "$@" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -malloc_limit_mb=4096
        asan="allocator_may_return_null=1:max_allocation_size_mb=512:detect_leaks=0${asan:+:$asan}"
        fork=1
        ;;
    esac
    d=$(dict_of "$h")
    [ -z "$d" ] || set -- "$@" -dict="$d"
    if [ "$seconds" -gt 0 ]; then set -- "$@" -max_total_time="$seconds"; else set -- "$@" -runs="$runs"; fi
    start=$(date +%s)
    if ASAN_OPTIONS="$asan" "$bin" "$@" "$work/corpus" "tests/fuzz/corpus/$h" >"$work/log.txt" 2>&1; then
        result=ok
    elif [ $fork = 1 ]; then
        result="ok (fork mode)" # its exit status is the last failed job's: the artifacts are counted below
    else
        result=CRASH
        status=1
    fi
    end=$(date +%s)
    last=$(grep -E '^#[0-9]+(:|[[:space:]]+(DONE|INITED|NEW|REDUCE|pulse|RELOAD))' "$work/log.txt" | tail -1)
    artifacts=$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o \
        -name 'timeout-*' \) | wc -l)
    echo "$h: $result, $((end - start)) s, $artifacts artifacts: $last"
    if [ "$result" = CRASH ]; then
        grep -E -m3 'ERROR|invariant|MC_ASSERT|runtime error' "$work/log.txt" | sed 's/^/    /'
    fi
    if [ $merge = 1 ]; then
        "$bin" -merge=1 -max_len="$(max_len_of "$h")" "tests/fuzz/corpus/$h" "$work/corpus" >"$work/merge.txt" 2>&1
    fi
done
exit $status
