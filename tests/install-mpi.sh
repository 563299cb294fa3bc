#!/bin/sh
# Installs Open MPI for `mpirun -np N meshcontact sweep ...` (optional: without it the sweep runs in one process), when
# it is missing (run as root, Debian), then reconfigures ./build when it exists so that the next compile links MPI.
set -e
need=""
command -v mpirun >/dev/null 2>&1 || need="$need openmpi-bin"
pkg-config --exists ompi-c 2>/dev/null || need="$need libopenmpi-dev"
if [ -n "$need" ]; then
    echo "installing:$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $need >/dev/null
fi
if [ -d build ]; then
    meson setup --reconfigure build >/dev/null
fi
