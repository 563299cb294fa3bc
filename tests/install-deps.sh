#!/bin/sh
# Installs the Debian packages meshcontact needs to build and test, when any is missing (run as root).
set -e
need=""
command -v meson >/dev/null 2>&1 || need="$need meson"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
pkg-config --exists assimp 2>/dev/null || need="$need libassimp-dev"
pkg-config --exists criterion 2>/dev/null || need="$need libcriterion-dev"
# The simulator's BDF integrator (GSL's msbdf).
pkg-config --exists gsl 2>/dev/null || need="$need libgsl-dev"
# The plots' PNG rendering test (rsvg-convert, zlib to read the PNG) and the ODE host test; both are skipped with a
# message when missing, so a build without them still passes.
command -v rsvg-convert >/dev/null 2>&1 || need="$need librsvg2-bin"
pkg-config --exists zlib 2>/dev/null || need="$need zlib1g-dev"
pkg-config --exists ode 2>/dev/null || need="$need libode-dev"
# JOINT and MOTION in scenarios (src/app/sim_mb.cpp): the multibody library Simbody (C++; optional, -Dsimbody).
pkg-config --exists simbody 2>/dev/null || need="$need libsimbody-dev"
# The Python package (src/python) and its tests (tests/python): Debian's NumPy and pytest, for Debian's python3 (a
# python3 earlier on PATH, such as pyenv's, does not see them: Meson then uses the Python that runs it).
dpkg -s python3-numpy >/dev/null 2>&1 || need="$need python3-numpy"
dpkg -s python3-pytest >/dev/null 2>&1 || need="$need python3-pytest"
# The animation's browser test (tests/check_anim_browser.py) opens the viewer page in headless Chromium; skipped with
# a message when missing.
command -v chromium >/dev/null 2>&1 || need="$need chromium"
# The locale test compiles de_DE.UTF-8 with localedef from the locales package's sources.
[ -f /usr/share/i18n/locales/de_DE ] || need="$need locales"
# B-rep import (STEP, IGES, BREP) is optional: MC_WITH_GMSH=1 adds gmsh's library and C header (libgmsh-dev, with
# OpenCASCADE: about 30 packages). A build directory set up before needs `meson setup --reconfigure build` to find it.
if [ "${MC_WITH_GMSH:-0}" = 1 ] && [ ! -f /usr/include/gmshc.h ]; then
    need="$need libgmsh-dev"
fi
if [ -n "$need" ]; then
    echo "installing:$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $need >/dev/null
fi
# The Khronos glTF validator (npm gltf-validator, Apache-2.0) for the animation test (tests/check_anim.py), into
# MC_NPM_PREFIX (default /opt/meshcontact-npm), when npm is there; the test skips the validator otherwise.
npm_prefix="${MC_NPM_PREFIX:-/opt/meshcontact-npm}"
if command -v npm >/dev/null 2>&1 && [ ! -d "$npm_prefix/node_modules/gltf-validator" ]; then
    npm install --silent --no-audit --no-fund --prefix "$npm_prefix" gltf-validator@2.0.0-dev.3.10 ||
        echo "gltf-validator not installed: tests/check_anim.py skips the validator" >&2
fi
