#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Build-time check of the floors (README, Layout): no #include runs up a floor, and only src/app/ prints or exits.

usage: check_layers.py SOURCE_ROOT STAMP   (writes STAMP when the tree is clean, exits 1 with one line per breach)
       check_layers.py --self-test            (checks that the checker finds planted breaches and passes a clean tree)
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


def find_problems(root):
    """Every breach of the floors under root, one line each."""
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
    return problems


def self_test():
    """Plant one breach of each kind in a scratch tree and check that each is found, and that a clean tree passes."""
    import tempfile

    clean = {
        "src/base/core.c": '#include "src/base/core.h"\nint f(void) { return snprintf(0, 0, "exit"); }\n',
        "mesh/mesh.c": '#include "src/base/core.h"\n// printf in a comment is fine\n',
        "src/app/cli.c": '#include "src/world/world.h"\nint main(void) { printf("x"); exit(0); }\n',
    }
    breaches = {
        "mesh/up.c": ('#include "bvh/bvh.h"\n', "runs up from mesh to bvh"),
        "src/contact/print.c": ('void g(void) { printf("%d", 1); }\n', "'printf' in the library"),
        "src/world/stream.c": ("void h(void) { fputs(\"x\", stderr); }\n", "'stderr' in the library"),
        "bvh/quit.c": ("void q(void) { exit(1); }\n", "'exit' in the library"),
        "src/base/app.c": ('#include "src/app/cli.h"\n', "runs up from src/base to src/app"),
    }
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for name, text in clean.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        if find_problems(root):
            print("check_layers self-test: a clean tree was refused: %s" % find_problems(root), file=sys.stderr)
            return 1
        for name, (text, want) in breaches.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
            found = [p for p in find_problems(root) if p.startswith(name) and want in p]
            (root / name).unlink()
            if not found:
                print("check_layers self-test: missed %s in %s" % (want, name), file=sys.stderr)
                return 1
    print("check_layers self-test: every planted breach found, the clean tree passes")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = find_problems(pathlib.Path(sys.argv[1]))
    if problems:
        for p in problems:
            print("check_layers: " + p, file=sys.stderr)
        return 1
    pathlib.Path(sys.argv[2]).write_text("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
