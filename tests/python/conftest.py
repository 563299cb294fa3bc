# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""pytest fixtures of the Python package's tests. `meson test python` sets the environment: MESHCONTACT_LIBRARY (the
build tree's libmeshcontact.so), PYTHONPATH (src/python), MC_SOURCE_ROOT, and the paths of the two C helpers
(MESHCONTACT_LAYOUT, MESHCONTACT_REFERENCE). Run by hand from the repository root:
    MESHCONTACT_LIBRARY=build/libmeshcontact.so PYTHONPATH=src/python python3 -m pytest tests/python
(the tests that need a C helper are then skipped)."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(os.environ.get("MC_SOURCE_ROOT", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def data():
    return ROOT / "data"


def helper(name):
    path = os.environ.get(name)
    if not path:
        pytest.skip(f"{name} is not set (meson test sets it to the path of the C helper)")
    return path


def run_helper(args):
    """A C helper's standard output. Under AddressSanitizer the test preloads the sanitizer's runtime into Python
    (LD_PRELOAD); the helpers carry their own, so they run without it."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture(scope="session")
def layout_exe():
    return helper("MESHCONTACT_LAYOUT")


@pytest.fixture(scope="session")
def reference_exe():
    return helper("MESHCONTACT_REFERENCE")
