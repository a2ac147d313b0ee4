#!/bin/sh
# The "What lives where" table of docs/internals/architecture.md, generated from the tree: one row per
# folder of src/ (subfolders get their own row), every .c/.cpp named once in its folder's row
# with a one-line description, the first sentence of the file's first comment; the last column
# is what the folder may use, from the layers of scripts/layout.conf. Prints Markdown on stdout.
# usage: sh scripts/where_table.sh [ROOT]
set -eu
conf=${KP_LAYOUT_CONF:-"$(cd "$(dirname "$0")" && pwd)/layout.conf"}
cd "${1:-.}"
# shellcheck source=/dev/null
. "$conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-where.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP

# F FOLDER FILE DESCRIPTION, one per source file
find src -type f \( -name '*.c' -o -name '*.cpp' \) | LC_ALL=C sort | while read -r f; do
    d=$(awk '
        # the first comment: /* ... */ or a run of // lines; its first sentence, on one line
        !started && /^[ \t]*(\/\*|\/\/)/ { started = 1 }
        !started { next }
        {
            l = $0
            if (style == "") style = (l ~ /^[ \t]*\/\//) ? "line" : "block"
            if (style == "line" && l !~ /^[ \t]*\/\//) exit
            sub(/^[ \t]*(\/\*+|\/\/+|\*+)[ \t]?/, "", l)
            last = (style == "block" && index(l, "*/"))
            sub(/[ \t]*\*\/.*/, "", l)
            text = text (text == "" ? "" : " ") l
            if (last || match(text, /[.?!]([ \t]|$)/)) exit
        }
        END {
            gsub(/[ \t]+/, " ", text); sub(/^ /, "", text)
            if (match(text, /[.?!]([ \t]|$)/)) text = substr(text, 1, RSTART - (substr(text, RSTART, 1) == "." ? 1 : 0))
            while (match(text, /[^ ]\/ /)) text = substr(text, 1, RSTART + 1) substr(text, RSTART + 3)  # a path wrapped after its slash
            # one line: a long sentence is cut at its last clause boundary before 160 characters
            if (length(text) > 160) {
                cut = 0
                for (i = 40; i <= 160; i++) { c2 = substr(text, i, 2); if (c2 == " (" || c2 == "; " || c2 == ", ") cut = i }
                if (cut) text = substr(text, 1, cut - 1) " …"
                else { text = substr(text, 1, 160); sub(/ [^ ]*$/, "", text); text = text " …" }
            }
            gsub(/\|/, "\\|", text)
            print text
        }' "$f")
    printf 'F\t%s\t%s\t%s\n' "$(dirname "$f")" "$(basename "$f")" "$d"
done > "$tmp/files"

awk -F '\t' -v layers="$LAYERS" -v tooldirs="$TOOL_DIRS" -v toolsees="$TOOL_SEES" '
function top(f,   p) { split(f, p, "/"); return p[2] }
BEGIN {
    n = split(layers, a, " ")
    for (i = 1; i <= n; i++) { split(a[i], kv, ":"); layer[kv[1]] = kv[2] + 0; order[i] = kv[1] }
    nl = n
    n = split(tooldirs, a, " "); for (i = 1; i <= n; i++) client[a[i]] = 1
    client["sim"] = 1
    n = split(toolsees, a, " "); for (i = 1; i <= n; i++) if (split(a[i], kv, ":") == 2) sees[kv[1]] = sees[kv[1]] ", `src/" kv[2] "/`"
    print "| folder | holds (each file: the first sentence of its first comment) | may use |"
    print "|---|---|---|"
}
{
    dir = $2; if (!(dir in cell)) { dirs[++nd] = dir; cell[dir] = "" }
    cell[dir] = cell[dir] (cell[dir] == "" ? "" : "<br>") "`" $3 "` " ($4 == "" ? "" : "— " $4)
}
END {
    # folders in layer order, subfolders after their parent
    for (k = 1; k <= nl; k++) for (i = 1; i <= nd; i++) if (top(dirs[i] "/x") == order[k]) emit(dirs[i])
    for (i = 1; i <= nd; i++) if (!(top(dirs[i] "/x") in layer)) emit(dirs[i])
}
function emit(dir,   d, uses, k) {
    d = top(dir "/x")
    if (d in client) uses = "`kprio/*.h`" sees[d] ", the base utility module"
    else if (!(d in layer)) uses = "(in no layer)"
    else {
        uses = ""
        for (k = 1; k <= nl; k++) if (layer[order[k]] < layer[d]) uses = uses (uses == "" ? "" : ", ") order[k]
        if (uses == "") uses = "libc"
    }
    printf "| `%s/` | %s | %s |\n", dir, cell[dir], uses
}' "$tmp/files"
