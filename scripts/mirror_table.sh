#!/bin/sh
# The upstream-to-kprio table of docs/internals/architecture.md, generated from the code: every
# "mirrors NAME" comment in src/ gives one row (upstream file, upstream function, kprio file,
# kprio function or type), sorted by upstream file and function.
#
# Which kprio function a comment names: the function whose body holds the comment, else the
# declaration or definition that follows the comment block (a function, a type, a macro); a
# comment followed by anything else (a file's opening comment before its #includes) names the
# file as a whole, shown as "(the file)". A prototype's row in a header is left out when the
# definition's comment in the .c names the same upstream function.
#
# Upstream files come from docs/internals/upstream-files.tsv: NAME<TAB>path in
# kubernetes/kubernetes (or another repository, as `owner/repo:path`, or go:path for the Go
# standard library). A NAME
# that is ambiguous (two upstream functions of the same name) is written NAME@GLOB, GLOB a
# pattern of the kprio files whose comments mean that one; the qualified entry wins. A name
# with no entry prints "?" and makes the script exit 1 (after printing the table).
# usage: sh scripts/mirror_table.sh [SRC_DIR] [TSV]
set -eu
src=${1:-src}
tsv=${2:-docs/internals/upstream-files.tsv}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-mirror.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP
find "$src" \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort > "$tmp/files"
# shellcheck disable=SC2046
awk '
function names(text,   s, name) {              # the NAMEs of "mirrors NAME" in a comment
    s = text
    while (match(s, /mirrors (the )?[A-Za-z_][A-Za-z0-9_.]*/)) {
        name = substr(s, RSTART, RLENGTH); sub(/^mirrors (the )?/, "", name)
        s = substr(s, RSTART + RLENGTH)
        sub(/\.+$/, "", name)
        if (name ~ /^[a-z]+$/) continue         # prose: "mirrors the kubelet"
        if (depth > 0 && fn != "") row(name, fn)
        else pend[++np] = name
    }
}
function row(name, what) { print name "\t" FILENAME "\t" what }
function resolve(what,   i) { for (i = 1; i <= np; i++) row(name_or(pend[i]), what); np = 0 }
function name_or(x) { return x }
function lastid(s,   n, w) { n = split(s, w, /[^A-Za-z0-9_]+/); while (n > 0 && w[n] == "") n--; return n ? w[n] : "" }
function declname(h,   m) {                     # the name a file-level declaration declares
    if (match(h, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/) && substr(h, RSTART) !~ /^\(\*/) {
        m = substr(h, RSTART, RLENGTH); sub(/[ \t]*\($/, "", m)
        if (m !~ /^(if|for|while|switch|return|sizeof|defined)$/) return m
    }
    sub(/[\[=].*/, "", h); return lastid(h)
}
FNR == 1 { cont = 0; depth = 0; incom = 0; np = 0; hdr = ""; fn = ""; typ = ""; tdepth = -1; com = "" }
{
    raw = $0
    if (cont) { cont = (raw ~ /\\$/); next }   # a continued preprocessor line
    if (!incom && raw ~ /^[ \t]*#/) {           # a preprocessor line: comments on it, then it
        cont = (raw ~ /\\$/)
        c = raw; t = ""
        while (match(c, /\/\*[^*]*\*+([^\/*][^*]*\*+)*\//)) { t = t " " substr(c, RSTART, RLENGTH); c = substr(c, 1, RSTART - 1) substr(c, RSTART + RLENGTH) }
        if (index(c, "/*")) { incom = 1; com = substr(c, index(c, "/*")) }
        if (t != "") names(t)
        if (np && c ~ /^[ \t]*#[ \t]*define[ \t]/) { sub(/^[ \t]*#[ \t]*define[ \t]+/, "", c); m = c; sub(/[^A-Za-z0-9_].*/, "", m); resolve(m) }
        else if (np && depth == 0) resolve("")
        next
    }
    n = length(raw)
    for (i = 1; i <= n; i++) {
        ch = substr(raw, i, 1); c2 = substr(raw, i, 2)
        if (incom) {
            if (c2 == "*/") { incom = 0; i++; names(com); com = ""; continue }
            com = com ch; continue
        }
        if (c2 == "/*") { incom = 1; i++; com = ""; continue }
        if (c2 == "//") { names(substr(raw, i + 2)); break }
        if (ch == "\"" || ch == "\047") {
            q = ch; for (i++; i <= n; i++) { ch = substr(raw, i, 1); if (ch == "\\") { i++; continue } if (ch == q) break }
            if (depth == 0) hdr = hdr "\"\""
            continue
        }
        if (depth == 0 && ch != "{" && ch != "}" && ch != ";") { hdr = hdr ch; continue }
        if (ch == "{") {
            if (depth == 0) {
                if (hdr ~ /^[ \t]*(namespace|extern)[^(]*$/) { hdr = ""; continue }  # not a level
                if (hdr ~ /\(/ && hdr !~ /=/ && hdr !~ /^[ \t]*(typedef|struct|union|enum)[ \t]/) { fn = declname(hdr); resolve(fn) }
                else { fn = ""; typ = lastid(hdr); tdepth = 0 }
                hdr = ""
            }
            depth++
        } else if (ch == "}") {
            if (depth > 0) depth--
            if (depth == 0) { fn = ""; hdr = "" }
        } else if (ch == ";" && depth == 0) {
            if (tdepth == 0) { nm = lastid(hdr); if (nm == "") nm = typ; resolve(nm); tdepth = -1; typ = "" }
            else if (np) resolve(declname(hdr))
            hdr = ""
        } else if (ch == ";") { }
    }
    if (incom) com = com " "
    if (depth == 0 && hdr != "") hdr = hdr " "
}
END { }' $(cat "$tmp/files") > "$tmp/rows"

# the table: header rows dropped where the .c names the same upstream function for the same
# kprio function; upstream files from the TSV
awk -F '\t' -v tsv="$tsv" '
function glob2re(g) { gsub(/[.+^$(){}|\\]/, "\\\\&", g); gsub(/\*/, "[^/]*", g); return "^" g "$" }
BEGIN {
    while ((getline line < tsv) > 0) {
        if (line ~ /^#/ || line == "") continue
        split(line, p, "\t"); k = p[1]
        if (index(k, "@")) { nq++; qname[nq] = substr(k, 1, index(k, "@") - 1); qre[nq] = glob2re(substr(k, index(k, "@") + 1)); qpath[nq] = p[2] }
        else up[k] = p[2]
    }
}
{ r[++n] = $0; key[$1, $3] = key[$1, $3] " " $2 }
END {
    for (i = 1; i <= n; i++) {
        split(r[i], p, "\t"); name = p[1]; f = p[2]; what = p[3]
        if (f ~ /\.h$/ && what != "") { c = f; sub(/\.h$/, ".c", c); if (index(key[name, what] " ", " " c " ")) continue }
        path = ""
        for (q = 1; q <= nq; q++) if (qname[q] == name && f ~ qre[q]) { path = qpath[q]; break }
        if (path == "" && (name in up)) path = up[name]
        if (path == "") { path = "?"; missing = 1 }
        print path "\t" name "\t" f "\t" what
    }
    exit missing
}' "$tmp/rows" > "$tmp/table" || missing=1
echo "| upstream file (kubernetes/kubernetes unless named) | upstream function | kprio file | kprio function |"
echo "|---|---|---|---|"
LC_ALL=C sort -u -t "$(printf '\t')" -k1,1 -k2,2 -k3,3 -k4,4 "$tmp/table" | awk -F '\t' '{
    u = ($1 == "?") ? "?" : "`" $1 "`"
    k = ($4 == "") ? "(the file)" : "`" $4 "`"
    printf "| %s | `%s` | `%s` | %s |\n", u, $2, $3, k
}'
[ "${missing:-0}" = 0 ] || { echo "mirror_table: names without an upstream file in $tsv (rows with ?)" >&2; exit 1; }
