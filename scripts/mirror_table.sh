#!/bin/sh
# The upstream-to-kprio table of docs/architecture.md, generated from the code: every
# "mirrors NAME" comment in src/ gives one row (upstream function, upstream file, kprio file,
# kprio function that follows the comment). Upstream files come from docs/upstream-files.tsv
# (NAME<TAB>path in kubernetes/kubernetes). Prints Markdown on stdout.
# usage: sh scripts/mirror_table.sh [SRC_DIR] [TSV]
set -eu
src=${1:-src}
tsv=${2:-docs/upstream-files.tsv}
find "$src" -name '*.c' -o -name '*.h' -o -name '*.cpp' | LC_ALL=C sort | while read -r f; do
    awk -v f="$f" '
    # A function definition at column 0: "type name(args) {" or the brace on the next line.
    function fname(line,   m) {
        if (line !~ /^[A-Za-z_][A-Za-z0-9_ \t\*]*[ \t\*]([A-Za-z_][A-Za-z0-9_]*)\(/) return ""
        if (line ~ /;[ \t]*$/ || line ~ /^(typedef|return|if|else|for|while|switch)[ \t(]/) return ""
        m = line; sub(/\(.*/, "", m); sub(/.*[ \t\*]/, "", m); return m
    }
    {
        n = fname($0)
        if (n != "" && npend) { for (i = 1; i <= npend; i++) print pend[i] "\t" f "\t" n; npend = 0 }
        s = $0
        while (match(s, /mirrors (the )?[A-Za-z_][A-Za-z0-9_.]*/)) {
            name = substr(s, RSTART, RLENGTH); sub(/^mirrors (the )?/, "", name)
            s = substr(s, RSTART + RLENGTH)
            sub(/\.$/, "", name)
            if (name ~ /^[a-z]+$/ && name !~ /^[a-z]+[A-Z]/) continue  # prose: "mirrors the kubelet"
            pend[++npend] = name
        }
    }
    END { for (i = 1; i <= npend; i++) print pend[i] "\t" f "\t" "" }' "$f"
done | LC_ALL=C sort -u -t "$(printf '\t')" -k1,1 -k2,2 | awk -F '\t' -v tsv="$tsv" '
BEGIN {
    while ((getline line < tsv) > 0) { if (line ~ /^#/) continue; split(line, p, "\t"); up[p[1]] = p[2] }
    print "| upstream function | upstream file (kubernetes/kubernetes) | kprio file | kprio function |"
    print "|---|---|---|---|"
}
{
    u = ($1 in up) ? "`" up[$1] "`" : "?"
    k = $3 == "" ? "" : "`" $3 "`"
    printf "| `%s` | %s | `%s` | %s |\n", $1, u, $2, k
}'
