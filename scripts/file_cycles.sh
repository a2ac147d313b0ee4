#!/bin/sh
# Circles of source files that call each other (rule 5 of docs/architecture.md), read from the
# symbol tables of the objects of a build: file A depends on file B when A's object uses a global
# symbol B's object defines. Prints every group of files that reach each other (a strongly
# connected component of more than one file) and exits 1 if there is one.
# usage: sh scripts/file_cycles.sh BUILD_DIR
set -eu
build=${1:-build}
find "$build/src" -name '*.o' | sort | while read -r o; do
    f=${o#"$build"/}
    f=${f%.o}
    nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2; next }
        NF == 3 && $2 ~ /^[TDBRCVW]$/ { print "D", f, $3 }'
done | awk '
$1 == "D" { def[$3] = $2; next }
$1 == "U" { use[++nu] = $2 SUBSEP $3; next }
END {
    for (i = 1; i <= nu; i++) {
        split(use[i], p, SUBSEP)
        if (!(p[2] in def) || def[p[2]] == p[1]) continue
        a = p[1]; b = def[p[2]]
        if (!(a in id)) { id[a] = ++n; name[n] = a }
        if (!(b in id)) { id[b] = ++n; name[n] = b }
        r[id[a], id[b]] = 1
        why[id[a], id[b]] = p[2]
    }
    for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if ((i, k) in r)
        for (j = 1; j <= n; j++) if ((k, j) in r) r[i, j] = 1
    bad = 0
    for (i = 1; i <= n; i++) {
        if (done[i]) continue
        grp = ""; cnt = 0
        for (j = 1; j <= n; j++) if (j != i && (i, j) in r && (j, i) in r) {
            grp = grp " " name[j]; done[j] = 1; cnt++
        }
        if (cnt) {
            bad = 1
            printf "circle: %s%s\n", name[i], grp
        }
    }
    exit bad
}'
