#!/bin/sh
# Fails when the shared library exports a symbol without the mc_ prefix (STYLE S19), or fewer mc_ symbols than MIN
# (default 10: fewer means the visibility is wrong). Usage: check_symbols.sh LIB [MIN]
set -eu
lib="$1"
min="${2:-10}"
# _edata, _end and __bss_start are the linker's section markers, not code: GNU ld exports them from our library when
# a library it links (libgmsh) exports them too.
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | grep -v '^mc_' |
    grep -v -x -e _edata -e _end -e __bss_start || true)
count=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | grep -c '^mc_' || true)
if [ -n "$bad" ]; then
    echo "exported symbols without the mc_ prefix:" >&2
    echo "$bad" >&2
    exit 1
fi
if [ "$count" -lt "$min" ]; then
    echo "only $count mc_ symbols exported: visibility is wrong" >&2
    exit 1
fi
echo "$count exported symbols, all prefixed mc_"
