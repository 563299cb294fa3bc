#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Fails when libmeshcontact.so depends on gmsh or OpenCASCADE (whose libraries are libTK*): B-rep import lives in the
# library meshcontact-brep, so that a host that never reads a CAD file does not load them. Checks the library's own
# NEEDED entries (readelf -d) and everything the dynamic loader loads with it (ldd).
# Usage: check_core_deps.sh LIBMESHCONTACT_SO
set -eu
lib="$1"
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
loaded=$(ldd "$lib" | awk '{print $1}')
bad=$(printf '%s\n%s\n' "$needed" "$loaded" | grep -E '^(libgmsh|libTK|libocct|libopencascade)' | sort -u || true)
if [ -n "$bad" ]; then
    echo "$lib depends on gmsh or OpenCASCADE:" >&2
    echo "$bad" >&2
    exit 1
fi
echo "$(basename "$lib"): $(echo "$needed" | wc -l) direct dependencies ($(echo "$needed" | tr '\n' ' ')), $(echo "$loaded" | wc -l) libraries loaded in all; no gmsh, no OpenCASCADE"
