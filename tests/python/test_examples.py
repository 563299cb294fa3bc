# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The documentation runs as written: every ```python block of the package's Markdown files (src/python/*.md), from
the repository's root, and the example host loop (src/python/examples/pile.py, a short run) as a program."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(os.environ.get("MC_SOURCE_ROOT", pathlib.Path(__file__).resolve().parents[2]))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(root):
    for md in sorted((root / "src" / "python").glob("*.md")):
        for k, m in enumerate(BLOCK.finditer(md.read_text(encoding="utf-8"))):
            yield pytest.param(m.group(1), id=f"{md.name}-{k}")


def pytest_generate_tests(metafunc):
    if "block" in metafunc.fixturenames:
        metafunc.parametrize("block", list(python_blocks(ROOT)))


def test_markdown_python_blocks_run(block, root, monkeypatch, capsys):
    monkeypatch.chdir(root)
    exec(compile(block, "<markdown block>", "exec"), {"__name__": "__doc__"})
    assert capsys.readouterr().out  # every block prints what it shows


def test_the_pile_runs(root):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, str(root / "src" / "python" / "examples" / "pile.py"), "--steps", "300"],
                         env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "300 steps" in out.stdout and "energy" in out.stdout
