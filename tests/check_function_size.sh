#!/bin/sh
# Fails when a library function is over 150 lines or has more than 40 branches (clang-tidy's
# readability-function-size, which counts if, loops, case labels and && / ||). Usage: check_function_size.sh BUILD_DIR
# (a configured build directory: clang-tidy reads its compile_commands.json).
set -eu
build="$1"
cd "$(dirname "$0")/.."
out="$(clang-tidy -p "$build" --quiet --checks='-*,readability-function-size' \
    --config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 150}, {key: readability-function-size.BranchThreshold, value: 40}]}' \
    src/base/*.c mesh/*.c bvh/*.c src/contact/*.c src/world/*.c 2>/dev/null | grep -E 'warning:|note:' || true)"
if [ -n "$out" ]; then
    echo "$out" >&2
    echo "check_function_size: library functions over 150 lines or 40 branches (above)" >&2
    exit 1
fi
echo "check_function_size: every library function is within 150 lines and 40 branches"
