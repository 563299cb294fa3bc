#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Installing for a host, as the README says: `meson install` of BUILD_DIR into a scratch folder (--destdir: the
# configured prefix under it), then programs built against the install with pkg-config exactly as a host builds them:
# shared (found at run time through the rpath pkg-config's libdir gives) and static (the archive in place of
# -lmeshcontact), and meshcontact-brep's, which reads a STEP file, when that library was built. Each program runs.
# The only difference from an install into the prefix itself: the copies of the .pc files that pkg-config reads have
# their prefix= line pointed at the scratch folder. Also checks that the core's flags carry no gmsh.
# Usage: check.sh MESON BUILD_DIR SOURCE_ROOT
set -eu
meson="$1"
build="$(cd "$2" && pwd)"
root="$(cd "$3" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
dest="$(mktemp -d)"
trap 'rm -rf "$dest"' EXIT
fail() {
    echo "install: $*" >&2
    exit 1
}

out="$("$meson" install -C "$build" --no-rebuild --destdir "$dest" --quiet 2>&1)" ||
    fail "meson install -C $build failed (is everything built?): $out"
# Where the build puts things: the prefix and libdir it was configured with (on Debian, libdir is lib/x86_64-linux-gnu).
eval "$("$meson" introspect "$build" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print("prefix=%s libdir=%s includedir=%s" % (o["prefix"], o["libdir"], o["includedir"]))')"
installed_pc="$dest$prefix/$libdir/pkgconfig"
[ -f "$installed_pc/meshcontact.pc" ] || fail "no meshcontact.pc in <prefix>/$libdir/pkgconfig"
echo "install: prefix $prefix, libdir $libdir, pkg-config files in <prefix>/$libdir/pkgconfig"
pcdir="$dest/pkgconfig"
mkdir "$pcdir"
for pc in "$installed_pc"/meshcontact*.pc; do
    sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" >"$pcdir/$(basename "$pc")"
done
export PKG_CONFIG_PATH="$pcdir"
cd "$dest"

if pkg-config --static --libs meshcontact | grep -q -e '-lgmsh'; then
    fail "pkg-config --static --libs meshcontact names gmsh: $(pkg-config --static --libs meshcontact)"
fi

# build NAME PACKAGE SOURCE: the shared and the static program, with the README's commands (-lm for the inline vector
# math a host's own code may call; the static link names the archives, -l:libmeshcontact.a, in place of -lmeshcontact).
build_pair() {
    # shellcheck disable=SC2046
    cc -std=c11 "$3" $(pkg-config --cflags --libs "$2") -Wl,-rpath,"$(pkg-config --variable=libdir "$2")" -o "$1"
    # shellcheck disable=SC2046
    cc -std=c11 "$3" $(pkg-config --cflags "$2") \
        $(pkg-config --static --libs "$2" | sed -E 's/-l(meshcontact[-a-z]*)/-l:lib\1.a/g') -o "$1-static"
    ldd "./$1" | grep -q "libmeshcontact.so.0 => $dest" || fail "$1 does not load the installed libmeshcontact.so"
    if ldd "./$1-static" | grep -q libmeshcontact; then
        fail "$1-static loads a shared libmeshcontact"
    fi
}

build_pair host meshcontact "$here/host.c"
./host
./host-static
if [ -f "$pcdir/meshcontact-brep.pc" ]; then
    [ -f "$dest$prefix/$includedir/meshcontact/brep.h" ] || fail "meshcontact-brep.pc installed without meshcontact/brep.h"
    build_pair host_brep meshcontact-brep "$here/host_brep.c"
    ./host_brep "$root/data/brep/bracket.step"
    ./host_brep-static "$root/data/brep/bracket.step"
else
    [ ! -f "$dest$prefix/$includedir/meshcontact/brep.h" ] || fail "meshcontact/brep.h installed without its library"
    echo "install: no meshcontact-brep in this build (gmsh not found or -Dgmsh=disabled)"
fi
echo "install: shared and static programs built from the install and run"
