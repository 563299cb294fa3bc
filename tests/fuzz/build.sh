#!/bin/sh
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Builds the libFuzzer harnesses (never part of the normal build): the library floors and the application library
# with clang, AddressSanitizer, UBSan (with float-cast-overflow, nothing recoverable) and fuzzer instrumentation, in
# a Meson build directory of their own, then one executable per harness in <build dir>/fuzz/.
# Usage: sh tests/fuzz/build.sh [BUILD_DIR]       (default: build-fuzz, relative to the repository)
# Installs what is missing (Debian packages, as root): tests/install-deps.sh's set, then clang, libclang-rt-14-dev
# (the libFuzzer and sanitizer runtimes) and libomp-14-dev (clang's OpenMP).
set -e
cd "$(dirname "$0")/../.."
root=$(pwd)
build=${1:-build-fuzz}
jobs=${FUZZ_JOBS:-2}

sh tests/install-deps.sh
need=""
command -v clang >/dev/null 2>&1 || need="$need clang"
[ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
    need="$need libclang-rt-14-dev"
[ -n "$(ls /usr/lib/llvm-*/lib/libomp.so 2>/dev/null)" ] || need="$need libomp-14-dev"
if [ -n "$need" ]; then
    echo "installing:$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $need >/dev/null
fi

# Compile flags of the library and the harnesses; the link adds the fuzzer's main.
san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow"
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args="-fsanitize=fuzzer-no-link,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow" \
        -Dc_link_args="-fsanitize=float-cast-overflow" >/dev/null
fi
libs="src/app/libmc_app.a src/world/libmc_world.a src/contact/libmc_contact.a bvh/libmc_bvh.a mesh/libmc_mesh.a
src/base/libmc_base.a"
# shellcheck disable=SC2086
ninja -C "$build" -j "$jobs" $libs >/dev/null

mkdir -p "$build/fuzz"
link=""
for l in $libs; do link="$link $build/$l"; done
cflags="-std=c11 -O2 -g -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -ffp-contract=off -Wall -Wextra
-Wmissing-prototypes -Werror -I$root/include -I$root -I$root/tests/fuzz -fsanitize=fuzzer $san -fopenmp"
ldlibs="$(pkg-config --libs assimp) $(pkg-config --libs zlib 2>/dev/null) -lm"

# harness name, source, extra flags
harnesses="
stl_binary fuzz_reader.c -DFUZZ_EXT=stl -DFUZZ_STL_BINARY
stl_ascii fuzz_reader.c -DFUZZ_EXT=stl
obj fuzz_reader.c -DFUZZ_EXT=obj
off fuzz_reader.c -DFUZZ_EXT=off
shl fuzz_reader.c -DFUZZ_EXT=shl
ply fuzz_reader.c -DFUZZ_EXT=ply
3mf fuzz_reader.c -DFUZZ_EXT=3mf -DFUZZ_3MF_WRAP
gltf fuzz_reader.c -DFUZZ_EXT=gltf
glb fuzz_reader.c -DFUZZ_EXT=glb
dae fuzz_reader.c -DFUZZ_EXT=dae
scenario fuzz_scenario.c
mesh_create fuzz_mesh_create.c
query fuzz_query.c
shapes fuzz_shapes.c
world fuzz_world.c
"
echo "$harnesses" | while read -r name src extra; do
    [ -n "$name" ] || continue
    out="$build/fuzz/fuzz_$name"
    # shellcheck disable=SC2086
    clang $cflags $extra -o "$out" "tests/fuzz/$src" $link $ldlibs
done
echo "$build/fuzz"
