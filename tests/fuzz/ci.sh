#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# CI step for the fuzz harnesses (about 2-3 minutes on 2 cores): build them (tests/fuzz/build.sh), replay every
# committed input once (tests/fuzz/corpus/<harness>/ and tests/fuzz/regressions/<harness>/: a crash fails the step),
# then fuzz each harness for FUZZ_CI_SECONDS (default 3: CI's 20 minutes) from a copy of its corpus. A crash in that short run fails the
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
    # shellcheck disable=SC2046
    if ! ASAN_OPTIONS="$asan" "$bin" $(find "tests/fuzz/corpus/$h" "tests/fuzz/regressions/$h" -type f 2>/dev/null) \
        >"$work/$h/replay.txt" 2>&1; then
        echo "$h: a committed input fails:" >&2
        grep -E -m5 'Running|ERROR|invariant|MC_ASSERT|runtime error' "$work/$h/replay.txt" >&2 || true
        status=1
        continue
    fi
    # shellcheck disable=SC2086
    if ASAN_OPTIONS="$asan" "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$h/" $extra "$work/$h/corpus" "tests/fuzz/corpus/$h" >"$work/$h/fuzz.txt" 2>&1 ||
        [ -n "$extra" ]; then
        n=$(find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
        echo "$h: ok$([ "$n" -eq 0 ] || echo ", $n Assimp artifacts in $work/$h/ (ignored)")"
    else
        echo "$h: crash while fuzzing (input saved in $work/$h/):" >&2
        grep -E -m5 'ERROR|invariant|MC_ASSERT|runtime error' "$work/$h/fuzz.txt" >&2 || true
        status=1
    fi
done
exit $status
