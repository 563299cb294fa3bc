#!/bin/sh
# The table of real meshes in mesh/README.md (Mesh repair): every mesh file under CORPUS_DIR through `meshcontact info`
# as read, then through `meshcontact repair` (every repair; when that is not enough, again with a weld of 1e-6 of the
# bbox diagonal, with holes of up to 256 edges filled, then with both). The reason shown for a file still refused is
# that of the first attempt.
# Prints one Markdown row per file: usable as read, why not (the first problem), usable after repair, with which
# command line and changes, or why not. Usage: sh tests/corpus_repair.sh BUILD_DIR CORPUS_DIR
set -u
exe="$1/meshcontact"
corpus="$2"
tmp="${TMPDIR:-/tmp}/mc_corpus_repair.$$"
trap 'rm -f "$tmp".out "$tmp".err "$tmp".err2 "$tmp".stl' EXIT
# first_reason FILE: the part of the one-line error after "cannot be used for contact: " (or the whole line).
first_reason() {
    sed -e 's/^meshcontact: [^:]*: //' -e 's/^cannot be used for contact: //' -e 's/;.*//' \
        -e 's/ (--accept-self-intersections uses it anyway)//' -e 's/|/\\|/g' "$1" | head -n 1
}
echo "| file | as read | after repair | changes, or why it is still refused |"
echo "|---|---|---|---|"
find "$corpus" -type f ! -name '*.md' | sort | while read -r f; do
    name="${f#"$corpus"/}"
    if "$exe" info "$f" >/dev/null 2>"$tmp".err; then
        before="usable"
    else
        before="refused: $(first_reason "$tmp".err)"
    fi
    how=""
    for opts in "" "--weld-tolerance 1e-6" "--max-hole-edges 256" "--weld-tolerance 1e-6 --max-hole-edges 256"; do
        # shellcheck disable=SC2086
        if "$exe" repair --json $opts "$f" "$tmp".stl >"$tmp".out 2>"$tmp".err2; then
            how="repair${opts:+ $opts}"
            break
        fi
        [ -n "$opts" ] || cp "$tmp".err2 "$tmp".err
    done
    if [ -n "$how" ]; then
        changes=$(sed -e 's/.*"repair":{//' -e 's/}}$//' -e 's/"weld_distance":[^,]*,//' -e 's/"//g' \
            -e 's/[a-z_]*:0,\{0,1\}//g' -e 's/,$//' -e 's/,/, /g' -e 's/:/ /g' "$tmp".out)
        echo "| $name | $before | usable (\`$how\`) | ${changes:-nothing changed} |"
    else
        echo "| $name | $before | refused | $(sed -e 's/^meshcontact: [^:]*: //' -e 's/|/\\|/g' "$tmp".err | head -n 1) |"
    fi
done
