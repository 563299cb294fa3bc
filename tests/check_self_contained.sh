#!/bin/sh
# The repository is self-contained: its tests, benchmarks, scripts and docs refer to no file outside it.
# Fails (exit 1, one line per finding) on
#  - a mention of a folder beside the repository (`../shared`, `shared/corpus`) or of this kind of machine's home and
#    work folders (`/work/`, `/home/`, `/root/`), in any tracked text file;
#  - a `FILE=` of a scenario file (*.scn) that leaves the repository or names no file;
#  - a "data/..." string of a C test or benchmark that names no file;
#  - a relative link of a Markdown file that leaves the repository or names no file or folder.
# Usage: check_self_contained.sh SOURCE_ROOT
set -u
root="$(cd "${1:-.}" && pwd -P)"
cd "$root" || exit 1
self="tests/check_self_contained.sh"
bad=0
fail() {
    echo "self-contained: $*" >&2
    bad=1
}

# The files to look at: git's list in a clone, otherwise every file outside build folders (a source tarball).
list_files() {
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$root" ls-files --cached --others --exclude-standard
    else
        find . -type f ! -path './build*' ! -path './.git/*' | sed 's#^\./##'
    fi
}
files="$(mktemp)"
trap 'rm -f "$files"' EXIT
list_files | grep -v -e '^build' -e "^$self\$" | while read -r f; do
    [ -f "$f" ] && echo "$f"
done >"$files"

# 1. Folders outside the repository (text files only: -I).
hits="$(tr '\n' '\0' <"$files" | xargs -0 grep -I -n -e '\.\./shared' -e 'shared/corpus' -e '/work/' -e '/home/' \
    -e '/root/' 2>/dev/null | cut -c1-200)"
if [ -n "$hits" ]; then
    echo "$hits" | sed 's/^/self-contained: a path outside the repository: /' >&2
    bad=1
fi

# Whether path $2, relative to folder $1 (from the root), names something inside the repository.
inside() {
    target="$(cd "$root/$1" 2>/dev/null && realpath -m "$2")"
    case "$target" in
        "$root" | "$root"/*) [ -e "$target" ] ;;
        *) return 1 ;;
    esac
}

# 2. Scenario files' FILE= values (not the fuzzers' inputs, which name files that need not exist).
for f in $(grep '\.scn$' "$files" | grep -v '^tests/fuzz/'); do
    dir="$(dirname "$f")"
    grep -o 'FILE="[^"]*"' "$f" | sed 's/^FILE="//; s/"$//' | while read -r p; do
        inside "$dir" "$p" || { echo "self-contained: $f: FILE=\"$p\" is not a file of the repository" >&2; echo x; }
    done
done | grep -q x && bad=1

# 3. "data/...ext" strings (file names) of the C tests and benchmarks.
for f in $(grep -E '^(tests|bench)/.*\.(c|h|cpp)$' "$files"); do
    grep -o -E '"data/[A-Za-z0-9_./-]+\.[A-Za-z0-9]+"' "$f" | tr -d '"' | while read -r p; do
        [ -e "$root/$p" ] || { echo "self-contained: $f: \"$p\" is not a file of the repository" >&2; echo x; }
    done
done | grep -q x && bad=1

# 4. Relative links of the Markdown files.
for f in $(grep '\.md$' "$files"); do
    dir="$(dirname "$f")"
    grep -o '](\([^)# ]*\)[)#]' "$f" | sed 's/^](//; s/[)#]$//' | while read -r p; do
        case "$p" in
            '' | http://* | https://* | mailto:*) continue ;;
        esac
        inside "$dir" "$p" || { echo "self-contained: $f: link '$p' is not a file of the repository" >&2; echo x; }
    done
done | grep -q x && bad=1

[ "$bad" = 0 ] && echo "self-contained: $(wc -l <"$files") text files checked"
exit "$bad"
