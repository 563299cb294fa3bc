#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# CI step for the fuzz harnesses (about 2-3 minutes on 2 cores): build them (tests/fuzz/build.sh), replay every
# committed input once, in two processes of half the inputs each (tests/fuzz/corpus/<harness>/ and
# tests/fuzz/regressions/<harness>/: a crash fails the step),
# then fuzz each harness for FUZZ_CI_SECONDS (default 3: CI's 20 minutes) from a sample of its corpus. A crash in that short run fails the
# step too, except for the Assimp format (PLY), whose run ignores crashes inside Assimp (known: tests/fuzz/open/README.md)
# and lists the artifacts it saved. tests/fuzz/open/ is not replayed: those inputs still fail.
# Usage: sh tests/fuzz/ci.sh [BUILD_DIR]      (default: build-fuzz-ci)
set -e
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz-ci}
seconds=${FUZZ_CI_SECONDS:-3}
sh tests/fuzz/build.sh "$build" >/dev/null
export OMP_NUM_THREADS=2
export UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0"
work="$build/fuzz-ci"
rm -rf "$work"
status=0
for h in stl_binary stl_ascii obj off shl ply 3mf gltf glb dae scenario mesh_create query shapes world; do
    bin="$build/fuzz/fuzz_$h"
    mkdir -p "$work/$h/corpus"
    extra=""
    asan=""
    case $h in
    ply)
        extra="-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -malloc_limit_mb=4096"
        asan="fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=512"
        ;;
    esac
    # The replay runs in two processes, each on half the inputs (the world corpus alone takes a minute on one core).
    find "tests/fuzz/corpus/$h" "tests/fuzz/regressions/$h" -type f 2>/dev/null | sort >"$work/$h/inputs.txt"
    count=$(wc -l <"$work/$h/inputs.txt")
    if [ "$count" -eq 0 ]; then
        echo "$h: no committed input (a harness without inputs would fuzz forever)" >&2
        status=1
        continue
    fi
    half=$(((count + 1) / 2))
    sed -n "1,${half}p" "$work/$h/inputs.txt" >"$work/$h/inputs1.txt"
    sed -n "$((half + 1)),\$p" "$work/$h/inputs.txt" >"$work/$h/inputs2.txt"
    # shellcheck disable=SC2046
    ASAN_OPTIONS="$asan" "$bin" $(cat "$work/$h/inputs1.txt") >"$work/$h/replay.txt" 2>&1 &
    first=$!
    second_ok=1
    if [ -s "$work/$h/inputs2.txt" ]; then
        # shellcheck disable=SC2046
        ASAN_OPTIONS="$asan" "$bin" $(cat "$work/$h/inputs2.txt") >"$work/$h/replay2.txt" 2>&1 || second_ok=0
        cat "$work/$h/replay2.txt" >>"$work/$h/replay.txt"
    fi
    first_ok=1
    wait "$first" || first_ok=0
    if [ "$first_ok" = 0 ] || [ "$second_ok" = 0 ]; then
        echo "$h: a committed input fails:" >&2
        grep -E -m5 'Running|ERROR|invariant|MC_ASSERT|runtime error' "$work/$h/replay.txt" >&2 || true
        status=1
        continue
    fi
    # libFuzzer runs every seed before it mutates: the short run starts from at most 200 of the committed inputs
    # (every k-th: the replay above has just run them all), or it would spend minutes replaying the world corpus again.
    step=$(((count + 199) / 200))
    awk -v k="$step" 'NR % k == 1 || k == 1' "$work/$h/inputs.txt" | while read -r f; do cp "$f" "$work/$h/corpus/"; done
    # shellcheck disable=SC2086
    if ASAN_OPTIONS="$asan" "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$h/" $extra "$work/$h/corpus" >"$work/$h/fuzz.txt" 2>&1 ||
        [ -n "$extra" ]; then
        n=$(find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
        echo "$h: ok$([ "$n" -eq 0 ] || echo ", $n Assimp artifacts in $work/$h/ (ignored)")"
    else
        echo "$h: crash while fuzzing (input saved in $work/$h/):" >&2
        grep -E -m5 'ERROR|invariant|MC_ASSERT|runtime error' "$work/$h/fuzz.txt" >&2 || true
        # .ci/run works in a clone it deletes on exit: the log keeps what reproduces the crash (the seed, the
        # harness's description of the input, and the input itself in base64: `base64 -d > input` then run the
        # harness on it).
        grep -E -m1 'INFO: Seed:' "$work/$h/fuzz.txt" >&2 || true
        grep -E -m1 -A12 'fuzz invariant failed|MC_ASSERT failed' "$work/$h/fuzz.txt" >&2 || true
        for a in "$work/$h"/crash-* "$work/$h"/leak-* "$work/$h"/timeout-* "$work/$h"/oom-*; do
            if [ -f "$a" ]; then echo "$h: $(basename "$a") in base64: $(base64 -w0 "$a")" >&2; fi
        done
        status=1
    fi
done
exit $status
