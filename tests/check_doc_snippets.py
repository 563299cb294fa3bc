#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The documentation's C code compiles against the library, links, and runs; its section links lead somewhere.

Every ```c block of every Markdown file of the source tree (README.md and the reference documents beside the code;
not bench/results/, which records past measurements, nor build folders) is one of:

- a program: it contains `int main(`. Compiled, linked against the build's libmeshcontact and run from the source
  root (so it can read data/); it must exit with status 0.
- a fragment: any other block. Compiled as the body of a function, after the declarations of an HTML comment
  `<!-- c-declarations: ... -->` on the line just before its opening fence (invisible on the rendered page), and
  linked into a program that is not run.

Both are C11 with -Wall -Wextra -Werror (fragments without the unused-variable warnings) and
-Werror=implicit-function-declaration, and an executable allows no undefined symbol: a call to a function that the
library does not have fails the test, the compiler or the linker naming it. Before the documents, the script plants
such calls (an undeclared function in a fragment, a declared but missing one in a program) and fails unless both are
refused, so a set-up that would let them through cannot pass.

Also checked: every link of these files to a section of a Markdown file (`file.md#anchor`, `#anchor`) names a heading
of that file (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).

Usage: check_doc_snippets.py --source-root DIR --library LIBMESHCONTACT_SO [--cc 'COMPILER ...'] [--cflags 'FLAGS']
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

SKIP_DIRS = ("bench/results", "tests/fuzz/corpus", ".git")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)")
DECLARATIONS = re.compile(r"^\s*<!--\s*c-declarations:(.*?)-->\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PRELUDE = "#include <meshcontact/meshcontact.h>\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n" \
          "#include <string.h>\n"
COMMON_FLAGS = ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror",
                "-Werror=implicit-function-declaration"]
FRAGMENT_FLAGS = ["-Wno-unused-variable", "-Wno-unused-parameter", "-Wno-unused-but-set-variable"]


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        rel = "" if rel == "." else rel
        dirs[:] = sorted(d for d in dirs if not d.startswith("build") and
                         os.path.join(rel, d) not in SKIP_DIRS and not (rel == "" and d.startswith(".")))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(rel, name)


def blocks(path, text):
    """(language, first line number of the code, code, declarations) of every fenced block."""
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        fence, lang = m.group(2), m.group(3).lower()
        decl = DECLARATIONS.match(lines[k - 1]) if k > 0 else None
        start = k + 1
        k += 1
        while k < len(lines) and not lines[k].strip().startswith(fence[0] * len(fence)):
            k += 1
        yield lang, start + 1, "\n".join(lines[start:k]) + "\n", decl.group(1).strip() if decl else ""
        k += 1


def source_of(doc, line, code, declarations):
    """A C file for one block, with #line so that diagnostics name the document's lines."""
    where = '#line %d "%s"\n' % (line, doc)
    if re.search(r"\bint\s+main\s*\(", code):
        return True, where + code
    return False, (PRELUDE + "void doc_fragment(void);\nvoid doc_fragment(void)\n{\n" + declarations + "\n" + where +
                   code + "}\nint main(void)\n{\n    return 0;\n}\n")


def build(args, tmp, name, program, text):
    """Compile and link one C file; returns (ok, executable, compiler output)."""
    c_file = os.path.join(tmp, name + ".c")
    exe = os.path.join(tmp, name)
    with open(c_file, "w", encoding="utf-8") as f:
        f.write(text)
    lib = os.path.abspath(args.library)
    cmd = (shlex.split(args.cc) + COMMON_FLAGS + ([] if program else FRAGMENT_FLAGS) + shlex.split(args.cflags) +
           ["-I", os.path.join(args.source_root, "include"), c_file, "-o", exe, lib,
            "-Wl,-rpath," + os.path.dirname(lib), "-lm"])
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode == 0, exe, proc.stdout


def plant(args, tmp):
    """The check must refuse calls to functions the library does not have."""
    cases = [
        ("planted_fragment", "planted.md", 1, "mc_world_evaluate_twice(w);\n", "mc_world* w = NULL;"),
        ("planted_program", "planted.md", 1,
         "#include <meshcontact/meshcontact.h>\nMC_API mc_status mc_world_step(mc_world* world);\n"
         "int main(void)\n{\n    return mc_world_step(NULL) == MC_OK ? 0 : 1;\n}\n", ""),
    ]
    bad = 0
    for name, doc, line, code, decl in cases:
        program, text = source_of(doc, line, code, decl)
        ok, _, _ = build(args, tmp, name, program, text)
        if ok:
            print("FAIL: a %s calling a function the library does not have was accepted: the check cannot catch one"
                  % ("program" if program else "fragment"))
            bad += 1
    if not bad:
        print("ok: planted calls to missing functions are refused (fragment and program)")
    return bad


def slug(title):
    title = re.sub(r"`|\*\*|\*|_(?=\W)|(?<=\W)_", "", title).strip().lower()
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def anchors(text):
    seen = {}
    result = set()
    in_code = False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_code = not in_code
            continue
        m = None if in_code else HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else "%s-%d" % (base, n))
    return result


def check_links(root, docs, texts):
    bad = 0
    for doc in docs:
        in_code = False
        for number, line in enumerate(texts[doc].split("\n"), 1):
            if FENCE.match(line):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if "#" not in target or "://" in target:
                    continue
                path, anchor = target.split("#", 1)
                if path and not path.endswith(".md"):
                    continue
                other = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                if other not in texts:
                    full = os.path.join(root, other)
                    if not os.path.isfile(full):
                        continue  # tests/check_self_contained.sh reports links to missing files
                    with open(full, encoding="utf-8") as f:
                        texts[other] = f.read()
                if anchor not in anchors(texts[other]):
                    print("FAIL: %s:%d: link '%s': %s has no heading with the anchor '%s'"
                          % (doc, number, target, other, anchor))
                    bad += 1
    return bad


def run_python_blocks(args):
    """Every ```python block of the documentation runs from the source root and exits 0."""
    root = os.path.abspath(args.source_root)
    env = dict(os.environ, MESHCONTACT_LIBRARY=os.path.abspath(args.library),
               PYTHONPATH=os.path.join(root, "src", "python"), PYTHONDONTWRITEBYTECODE="1")
    bad = count = 0
    for doc in markdown_files(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for lang, line, code, _ in blocks(doc, text):
            if lang != "python":
                continue
            count += 1
            try:
                run = subprocess.run([args.python, "-c", code], cwd=root, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, timeout=300)
                status, out = run.returncode, run.stdout
            except subprocess.TimeoutExpired:
                status, out = "timeout (300 s)", ""
            if status != 0:
                print("FAIL: %s:%d: the Python block exits with %s:\n%s" % (doc, line, status, out))
                bad += 1
            else:
                print("ok: %s:%d: Python block runs" % (doc, line))
    # A planted error must fail, so that a runner that runs nothing cannot pass.
    planted = subprocess.run([args.python, "-c", "import meshcontact\nmeshcontact.no_such_function()"], cwd=root,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if planted.returncode == 0:
        print("FAIL: a planted call to a missing function ran")
        bad += 1
    print("%d Python blocks; %d failures" % (count, bad))
    return 1 if bad or count == 0 else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--library", required=True, help="the built shared library (libmeshcontact.so)")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--cflags", default="", help="more compile and link flags (the build's sanitizers)")
    parser.add_argument("--python", default="",
                        help="run every ```python block with this interpreter instead of checking the C blocks "
                             "(the package from src/python, the library of --library)")
    args = parser.parse_args()
    if args.python:
        return run_python_blocks(args)
    root = os.path.abspath(args.source_root)
    args.source_root = root
    docs = list(markdown_files(root))
    texts = {}
    for doc in docs:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            texts[doc] = f.read()
    bad = 0
    count = 0
    with tempfile.TemporaryDirectory(prefix="doc_snippets.") as tmp:
        bad += plant(args, tmp)
        for doc in docs:
            for lang, line, code, decl in blocks(doc, texts[doc]):
                if lang != "c":
                    continue
                count += 1
                name = "snippet_%d" % count
                program, text = source_of(doc, line, code, decl)
                kind = "program" if program else "fragment"
                ok, exe, output = build(args, tmp, name, program, text)
                if not ok:
                    print("FAIL: %s:%d: the %s does not compile or link:\n%s" % (doc, line, kind, output))
                    bad += 1
                    continue
                if not program:
                    print("ok: %s:%d: fragment compiles and links" % (doc, line))
                    continue
                try:
                    run = subprocess.run([exe], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True, timeout=300)
                    status, out = run.returncode, run.stdout
                except subprocess.TimeoutExpired:
                    status, out = "timeout (300 s)", ""
                if status != 0:
                    print("FAIL: %s:%d: the program exits with %s:\n%s" % (doc, line, status, out))
                    bad += 1
                else:
                    print("ok: %s:%d: program compiles, links and runs:\n    %s" % (doc, line,
                                                                                 out.strip().replace("\n", "\n    ")))
    bad += check_links(root, docs, texts)
    print("%d C blocks in %d Markdown files; %d failures" % (count, len(docs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
