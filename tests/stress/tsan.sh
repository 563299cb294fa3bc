#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# The concurrency stress (tests/stress/threads.c) under ThreadSanitizer: builds the library's sources and the program
# with clang 14, -fsanitize=thread and LLVM's OpenMP runtime (libomp), whose OMPT tool Archer tells ThreadSanitizer
# about OpenMP's synchronisation (GCC's libgomp is not instrumented: every parallel region would be reported), then
# checks that the set-up sees a planted race on the library's OpenMP workers and runs the stress. Fails on any
# ThreadSanitizer report or any result that differs from the single-threaded reference.
# usage: sh tests/stress/tsan.sh [BUILD_DIR [THREADS_OPTIONS...]]   (BUILD_DIR relative to the repository root,
#        default build-tsan; THREADS_OPTIONS go to the program, e.g. --rounds 4; installs what is missing with apt-get)
set -eu
cd "$(dirname "$0")/../.."
out="${1:-build-tsan}"
[ $# -eq 0 ] || shift

# clang-14 (compiler), libclang-rt-14-dev (the ThreadSanitizer runtime), libomp-14-dev (libomp and libarcher.so),
# libassimp-dev and pkg-config (mesh/import_assimp.c is compiled with the rest of the library).
missing=""
for p in clang-14 libclang-rt-14-dev libomp-14-dev libassimp-dev pkg-config; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "tsan: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
fi
llvm=/usr/lib/llvm-14/lib
archer="$llvm/libarcher.so"
[ -f "$archer" ] || { echo "tsan: $archer not found (package libomp-14-dev)" >&2; exit 1; }

# The library's flags (meson.build) plus ThreadSanitizer; -fopenmp with clang links libomp. Every library source is
# compiled (the same globs as tests/check_function_size.sh), two at a time, except mesh/import_gmsh.c: gmsh's reader is
# the library meshcontact-brep, not part of libmeshcontact.
cflags="-std=c11 -O2 -g -fno-omit-frame-pointer -fsanitize=thread -fopenmp -ffp-contract=off \
-D_POSIX_C_SOURCE=200809L -DMC_BUILDING_LIBRARY -Iinclude -I. $(pkg-config --cflags assimp)"
rm -rf "$out/obj" "$out/threads"
mkdir -p "$out/obj"
start=$(date +%s)
# shellcheck disable=SC2016,SC2011
ls src/base/*.c mesh/*.c bvh/*.c src/contact/*.c src/world/*.c | grep -v -x mesh/import_gmsh.c |
    CFLAGS="$cflags" OUT="$out/obj" xargs -P 2 -I{} sh -c 'clang-14 $CFLAGS -c "{}" -o "$OUT/$(echo "{}" | tr / _).o"'
# shellcheck disable=SC2086
clang-14 $cflags -Wall -Wextra -Wpedantic -Werror -c tests/stress/threads.c -o "$out/obj/threads.o"
libs="$(pkg-config --libs assimp) -lm -lpthread"
# shellcheck disable=SC2086
clang-14 -fsanitize=thread -fopenmp -o "$out/threads" "$out"/obj/*.o $libs
echo "tsan: built in $(($(date +%s) - start)) s"

# Run-time set-up:
# - OMP_TOOL_LIBRARIES loads Archer explicitly (libomp would otherwise search for it by name), and ARCHER_OPTIONS
#   verbose=1 makes it say that it found ThreadSanitizer, which is checked below.
# - Archer is what makes OpenMP checkable: without it (OMP_TOOL=disabled) the stress gets about 200 reports, every one
#   on data handed between a parallel region's master and its workers, whose fork and join ThreadSanitizer cannot see
#   in the uninstrumented libomp.
# - ignore_noninstrumented_modules=1 is what Archer asks for (it prints a warning without it). It is not a
#   suppression of our code: ThreadSanitizer then ignores the intercepted calls (pthread_mutex_*, memcpy, ...) made
#   from libraries that were not compiled with -fsanitize=thread (libomp, libstdc++, Assimp). Without it the only
#   reports are false positives inside libomp: pthread_mutex_init in a new team's worker against pthread_mutex_lock
#   in the master, both called by libomp.so itself on a lock in memory libomp allocated (libomp's own ordering of the
#   two is invisible to the tool). Everything compiled here, the library and the program, is checked as before; the
#   canary below shows it on OpenMP workers. No suppression file is used.
# - OMP_WAIT_POLICY=passive: idle OpenMP workers sleep instead of spinning, so that up to 32 workers of 8 host threads
#   share two cores without starving each other (it changes no result).
export OMP_TOOL_LIBRARIES="$archer" ARCHER_OPTIONS="verbose=1" OMP_WAIT_POLICY=passive
export TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=0 exitcode=66 second_deadlock_stack=1"

# 1. The canary: a plain counter written by two workers of the library's parallel loop must be reported.
if "$out/threads" --canary >"$out/canary.log" 2>&1; then
    cat "$out/canary.log" >&2
    echo "tsan: the planted race on OpenMP workers was not reported: the set-up hides races" >&2
    exit 1
fi
if ! grep -q 'WARNING: ThreadSanitizer: data race' "$out/canary.log" || ! grep -q 'racy_task' "$out/canary.log"; then
    cat "$out/canary.log" >&2
    echo "tsan: the canary failed without reporting its planted race" >&2
    exit 1
fi
echo "tsan: the planted race on OpenMP workers is reported (canary)"

# 2. The stress.
status=0
"$out/threads" "$@" >"$out/stress.log" 2>&1 || status=$?
cat "$out/stress.log"
if ! grep -q '^Archer detected OpenMP application with TSan' "$out/stress.log"; then
    echo "tsan: Archer did not start (OpenMP synchronisation unknown to ThreadSanitizer)" >&2
    exit 1
fi
reports=$(grep -c '^WARNING: ThreadSanitizer' "$out/stress.log" || true)
if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
    echo "tsan: FAILED (exit status $status, $reports ThreadSanitizer reports; log: $out/stress.log)" >&2
    exit 1
fi
echo "tsan: no ThreadSanitizer report, every result bitwise equal to the reference ($(($(date +%s) - start)) s)"
