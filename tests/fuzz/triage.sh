#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Groups the artifacts of a fuzz run by what they trigger: each file is run once through its harness (not in fork
# mode) and reduced to a signature (the failed check or assert, the sanitizer error and its first frame, an Assimp
# ai_assert, out-of-memory, a leak, or "passes now"); prints per signature the count and the smallest file.
# Usage: sh tests/fuzz/triage.sh HARNESS FILE...      (after tests/fuzz/build.sh; BUILD_DIR in the environment,
#        default build-fuzz)
set -e
cd "$(dirname "$0")/../.."
h=$1
shift
bin="${BUILD_DIR:-build-fuzz}/fuzz/fuzz_$h"
[ -x "$bin" ] || { echo "no harness $bin" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$@"; do
    ASAN_OPTIONS=fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=512:symbolize=1 \
        LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp" timeout 60 "$bin" -rss_limit_mb=2048 \
        -malloc_limit_mb=4096 "$f" >"$tmp/out" 2>&1 || true
    sig=$(grep -E -m1 -o 'fuzz invariant failed: [^0-9(]*|MC_ASSERT failed: .*|ai_assert failure in [^:]*: .*|runtime error: .*|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [A-Za-z -]+' "$tmp/out" || true)
    case $sig in
    *AddressSanitizer*)
        # the first frame that is not the sanitizer's own
        frame=$(grep -E -m1 '^ *#[0-9]+ .* in [^_]' "$tmp/out" | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in //; s/ \(BuildId.*//')
        sig="$sig at $frame"
        ;;
    "") sig="passes now" ;;
    esac
    printf '%s\t%s\t%s\n' "$sig" "$(wc -c <"$f")" "$f"
done | sort -t "$(printf '\t')" -k1,1 -k2,2n | awk -F '\t' '
    $1 != last { if (n) printf "%5d  %s\n       smallest: %s (%d bytes)\n", n, last, file, size; last = $1; n = 0; file = $3; size = $2 }
    { n++ }
    END { if (n) printf "%5d  %s\n       smallest: %s (%d bytes)\n", n, last, file, size }'
