#!/bin/sh
# Installs the build in BUILD_DIR into a scratch folder and links tests/static_link/main.c against the installed
# static library with the flags `pkg-config --static` gives, then runs it. Usage: check.sh BUILD_DIR
set -eu
build="$1"
here="$(cd "$(dirname "$0")" && pwd)"
dest="$(mktemp -d)"
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --quiet >/dev/null
pc="$(dirname "$(find "$dest" -name meshcontact.pc | head -n 1)")"
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$dest"
cflags="$(pkg-config --cflags meshcontact)"
# -l:libmeshcontact.a picks the archive where the shared library is installed beside it.
libs="$(pkg-config --static --libs meshcontact | sed 's/-lmeshcontact\b/-l:libmeshcontact.a/')"
# shellcheck disable=SC2086
cc -std=c11 -o "$dest/static_link" "$here/main.c" $cflags $libs
if ldd "$dest/static_link" | grep -q libmeshcontact; then
    echo "static_link: the program loads the shared library" >&2
    exit 1
fi
"$dest/static_link"
