#!/bin/sh
# Circles of modules that depend on each other (rule 5 of docs/internals/architecture.md). A module is a
# path without its extension: src/kubelet/evict_manager stands for evict_manager.c, .h (and
# .cpp). Module A depends on module B when
#   - call:    A's object uses a global symbol B's object defines (the objects' symbol tables, nm);
#   - inline:  a file of A names a static inline function B's header defines (the header's code;
#              comments and string literals are blanked first);
#   - include: a .c/.cpp file of A includes a header of B (what a source file includes is what it
#              needs; headers including headers only compose types and are not counted).
# The groups of CIRCLE_GROUPS (scripts/layout.conf) count as one node each. Prints every group of
# modules that reach each other (a strongly connected component of more than one node), with
# the edges inside it that make the circle, and exits 1 if there is one:
#     circle: A B C
#       A -> B: calls kp__x
#       B -> C: includes c.h (line 12)
# usage: sh scripts/file_cycles.sh [BUILD_DIR [ROOT]]      (defaults: build, the repository)
set -eu
conf=${KP_LAYOUT_CONF:-"$(cd "$(dirname "$0")" && pwd)/layout.conf"}
build=${1:-build}
root=${2:-.}
cd "$root"
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
CIRCLE_GROUPS=""
# shellcheck source=/dev/null
. "$conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-cycles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP
find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort > "$tmp/files"

# C FILE SYM (call facts) from the symbol tables; a missing object is an error (build first)
: > "$tmp/facts"
: > "$tmp/objs"
while read -r f; do
    case $f in *.h) continue ;; esac
    o=$build/${f%.*}.o
    [ -f "$o" ] || { echo "file_cycles: $f: no object $o (build first: make all)" >&2; exit 2; }
    printf '%s %s\n' "$o" "$f" >> "$tmp/objs"
done < "$tmp/files"
# (one nm over every object, "OBJECT:VALUE TYPE SYM" or "OBJECT:          U SYM": a process per
# object cost more than the rest of the script)
if [ -s "$tmp/objs" ]; then
    nm -A $(awk '{ print $1 }' "$tmp/objs") | awk 'NR == FNR { src[$1] = $2; next }
        { i = index($0, ".o:"); f = src[substr($0, 1, i + 1)]; n = split(substr($0, i + 3), w, " ") }
        w[1] == "U" { print "U", f, w[2]; next }
        n == 3 && w[2] ~ /^[TDBRCVW]$/ { print "D", f, w[3] }' "$tmp/objs" - >> "$tmp/facts"
fi

# I FILE LINE TARGET (includes of source files), N FILE NAME (a static inline function a header
# defines), W FILE NAME (identifiers a file names, comments and strings blanked)
# shellcheck disable=SC2046
awk '
FNR == 1 { incom = 0; f = FILENAME }
{
    raw = $0
    if (f !~ /\.h$/ && raw ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
        t = raw; sub(/^[^"]*"/, "", t); sub(/".*/, "", t); print "I", f, FNR, t
    }
    if (f ~ /\.h$/ && raw ~ /^[ \t]*static[ \t]+inline[ \t]/ && raw ~ /\(/) {
        h = raw; sub(/\(.*/, "", h); n = split(h, w, /[^A-Za-z0-9_]+/); if (w[n] != "") print "N", f, w[n]
    }
    # blank comments and literals, then list the identifiers (a line without a slash or a quote
    # is left as it is, or blank inside a comment: the character loop below is the slow part)
    s = ""; m = length(raw)
    if (index(raw, "/") == 0 && index(raw, "\"") == 0 && index(raw, "\047") == 0) { if (!incom) s = raw; m = 0 }
    for (i = 1; i <= m; i++) {
        c = substr(raw, i, 1); c2 = substr(raw, i, 2)
        if (incom) { if (c2 == "*/") { incom = 0; i++ } ; continue }
        if (c2 == "/*") { incom = 1; i++; s = s " "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "\047") {
            for (i++; i <= m; i++) { d = substr(raw, i, 1); if (d == "\\") { i++; continue } if (d == c) break }
            s = s " "; continue
        }
        s = s c
    }
    if (raw ~ /^[ \t]*#[ \t]*include/) next
    n = split(s, w, /[^A-Za-z0-9_]+/)
    for (i = 1; i <= n; i++) if (w[i] ~ /^kp_/ && !((f, w[i]) in said)) { said[f, w[i]] = 1; print "W", f, w[i] }
}' $(cat "$tmp/files") >> "$tmp/facts"

printf '%s\n' "$CIRCLE_GROUPS" > "$tmp/groups"
awk -v groupsfile="$tmp/groups" -v filesfile="$tmp/files" '
function mod(f) { sub(/\.(c|h|cpp)$/, "", f); return f }
function glob2re(g) { gsub(/[.+^$(){}|\\]/, "\\\\&", g); gsub(/\*/, "[^/]*", g); gsub(/\?/, "[^/]", g); return "^" g "$" }
function node(m,   i) { for (i = 1; i <= ng; i++) if (m ~ gre[i]) return "[" gname[i] "]"; return m }
function edge(a, b, why,   x, y) {
    x = node(a); y = node(b)
    if (x == y) return
    if (!((x, y) in has)) { has[x, y] = 1; adj[x, ++deg[x]] = y; nodes[x]; nodes[y] }
    if (!((a, b) in seen)) { seen[a, b] = 1; ew[x, y] = ew[x, y] "\n  " a " -> " b ": " why }
}
function visit(v,   i, w, grp, cnt, k, j) {
    idx[v] = low[v] = ++counter; st[++sp] = v; on[v] = 1
    for (i = 1; i <= deg[v]; i++) {
        w = adj[v, i]
        if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
        else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
    }
    if (low[v] != idx[v]) return
    cnt = 0
    do { w = st[sp--]; on[w] = 0; mem[++cnt] = w } while (w != v)
    if (cnt < 2) return
    # sorted members, then the edges between them
    for (i = 2; i <= cnt; i++) { w = mem[i]; for (j = i - 1; j >= 1 && mem[j] > w; j--) mem[j + 1] = mem[j]; mem[j + 1] = w }
    grp = ""; for (i = 1; i <= cnt; i++) { grp = grp " " mem[i]; inscc[mem[i]] = 1 }
    out[++nout] = "circle:" grp
    for (i = 1; i <= cnt; i++) for (j = 1; j <= cnt; j++) if ((mem[i], mem[j]) in ew) out[nout] = out[nout] ew[mem[i], mem[j]]
    for (i = 1; i <= cnt; i++) delete inscc[mem[i]]
}
BEGIN {
    while ((getline l < groupsfile) > 0) {
        n = split(l, gw, /[ \t]+/); k = 0
        for (i = 1; i <= n; i++) { if (gw[i] == "") continue; if (!k) { k = 1; name = gw[i]; continue } ng++; gname[ng] = name; gre[ng] = glob2re(gw[i]) }
    }
    while ((getline l < filesfile) > 0) present[l] = 1
}
$1 == "D" { if (!($3 in def)) def[$3] = $2; next }
$1 == "U" { use[++nu] = $2 SUBSEP $3; next }
$1 == "I" { inc[++ni] = $2 SUBSEP $3 SUBSEP $4; next }
$1 == "N" { if (!($3 in inl)) inl[$3] = $2; next }
$1 == "W" { word[++nw] = $2 SUBSEP $3; next }
END {
    for (i = 1; i <= nu; i++) { split(use[i], p, SUBSEP); if (p[2] in def) edge(mod(p[1]), mod(def[p[2]]), "calls " p[2]) }
    for (i = 1; i <= nw; i++) { split(word[i], p, SUBSEP); if (p[2] in inl) edge(mod(p[1]), mod(inl[p[2]]), "uses " p[2] " (static inline in " inl[p[2]] ")") }
    for (i = 1; i <= ni; i++) {
        split(inc[i], p, SUBSEP); t = p[3]
        d = p[1]; sub(/\/[^\/]*$/, "", d)
        if (present[d "/" t]) t = d "/" t; else if (present["src/" t]) t = "src/" t; else continue
        edge(mod(p[1]), mod(t), "includes " p[3] " (line " p[2] ")")
    }
    n = 0; for (v in nodes) srt[++n] = v
    for (i = 2; i <= n; i++) { x = srt[i]; for (j = i - 1; j >= 1 && srt[j] > x; j--) srt[j + 1] = srt[j]; srt[j + 1] = x }
    for (i = 1; i <= n; i++) if (!(srt[i] in idx)) visit(srt[i])
    for (i = 1; i <= nout; i++) print out[i]
    exit nout > 0
}' "$tmp/facts"
