#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Build-time check of the floors (README, Layout): no #include runs up a floor, and only src/app/ prints or exits.

usage: check_layers.py SOURCE_ROOT STAMP   (writes STAMP when the tree is clean, exits 1 with one line per breach)
"""
import pathlib
import re
import sys

# Floors from the bottom up; include/meshcontact is the public API, usable by every floor.
FLOORS = ["src/base", "mesh", "bvh", "src/contact", "src/world", "src/app"]
LIBRARY = FLOORS[:-1]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# What a library floor must not do: print, touch the standard streams, or end the process (writing a file the caller
# named with fprintf is fine; a printf-style format attribute is not a call).
FORBIDDEN = re.compile(r"(?<!format\()\b(printf|vprintf|puts|putchar|perror|exit|_Exit|abort|stdout|stderr|stdin)\b")


def floor_of(path):
    """Index of the floor a repository-relative path belongs to, -1 for the public API, None for anything else."""
    if path.startswith("include/") or path.startswith("meshcontact/"):
        return -1
    for k in sorted(range(len(FLOORS)), key=lambda k: -len(FLOORS[k])):
        if path.startswith(FLOORS[k] + "/"):
            return k
    return None


def strip_comments_and_strings(text):
    """The code without comments and string or character literals (kept as empty quotes), lines kept."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)

    def repl(m):
        s = m.group(0)
        if s.startswith("/"):
            return "\n" * s.count("\n")
        return '""'

    return pattern.sub(repl, text)


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    for k, floor in enumerate(FLOORS):
        for f in sorted((root / floor).glob("*.[ch]")):
            rel = f.relative_to(root).as_posix()
            text = f.read_text(encoding="utf-8")
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if "/" not in target:
                    if (f.parent / target).exists():
                        target = (f.parent / target).relative_to(root).as_posix()
                    else:
                        problems.append(f"{rel}:{line}: include \"{m.group(1)}\" without its floor's folder")
                        continue
                t = floor_of(target)
                if t is None:
                    problems.append(f"{rel}:{line}: include \"{m.group(1)}\" is not in a floor of the library")
                elif t > k:
                    problems.append(f"{rel}:{line}: include \"{m.group(1)}\" runs up from {floor} to {FLOORS[t]}")
            if floor in LIBRARY:
                code = strip_comments_and_strings(text)
                for lineno, line in enumerate(code.split("\n"), 1):
                    m = FORBIDDEN.search(line)
                    if m:
                        problems.append(f"{rel}:{lineno}: '{m.group(1)}' in the library (only src/app/ prints or exits)")
    for f in sorted((root / "include" / "meshcontact").glob("*.h")):
        for m in INCLUDE.finditer(f.read_text(encoding="utf-8")):
            if not m.group(1).startswith("meshcontact/") and "/" in m.group(1):
                problems.append(f"{f.relative_to(root).as_posix()}: public header includes \"{m.group(1)}\"")
    if problems:
        for p in problems:
            print("check_layers: " + p, file=sys.stderr)
        return 1
    pathlib.Path(sys.argv[2]).write_text("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
