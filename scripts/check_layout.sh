#!/bin/sh
# Layering rules of the source tree (issue 16; docs/development.md explains each rule). Reads the
# sources for #include lines and sizes, and the symbol tables of a build's objects (nm) for calls,
# so it needs a finished build of every source file under src/ (`make all`).
#
#     sh scripts/check_layout.sh [BUILD_DIR [ROOT]]      (defaults: build, the repository)
#
# Prints one line per violation, `check-layout: RULE N: FILE: what`, and exits 1 if there is one.
# Lines starting `check-layout: WARNING` (rule 8) are hints and do not fail. Files are found
# with find, never listed here: the rules are about folders, so moving files keeps them working.
# POSIX sh, awk, grep, nm only (Debian 12 with scripts/deps.sh).
set -eu

# The data of the rules (layers, the tool, the base utility module, who opens files, the groups of
# rule 5) is in scripts/layout.conf (or the file KP_LAYOUT_CONF names): adjust a name there.
conf=${KP_LAYOUT_CONF:-"$(cd "$(dirname "$0")" && pwd)/layout.conf"}
# shellcheck source=/dev/null
. "$conf"
# Rule 3: what only FILE_OPENERS may call to reach files. 64-bit, fortified (__*_chk) and
# old glibc stat (__xstat) spellings are what the compiler may actually emit for these calls.
FILE_IO="open openat fopen fdopen mmap munmap stat fstat lstat fstatat read pread fread
 opendir readdir scandir open64 openat64 fopen64 mmap64 stat64 fstat64 lstat64 fstatat64
 pread64 readdir64 scandir64 __open_2 __open64_2 __openat_2 __openat64_2 __read_chk
 __pread_chk __pread64_chk __fread_chk __xstat __fxstat __lxstat __xstat64 __fxstat64
 __lxstat64 __fxstatat __fxstatat64 fread_unlocked __fread_unlocked_chk"
# Rule 4: the C library's allocator; only src/base/ calls it (base/alloc.h wraps it so that every
# failure reaches the caller as KP_ENOMEM). Also C++ operator new/new[] (_Znwm, _Znam and their
# nothrow/aligned forms). Exempt: src/io/json_simdjson.cpp, the C++ shim: simdjson's parser
# buffers are allocated inside the simdjson header/library (operator new, aligned allocation)
# and cannot be routed through kp__malloc; the shim checks that allocation itself (nothrow new)
# and reports simdjson's MEMALLOC error as a failure of the parse.
ALLOC="malloc calloc realloc reallocarray free strdup strndup __strdup __strndup aligned_alloc
 posix_memalign memalign valloc pvalloc asprintf vasprintf __asprintf_chk __vasprintf_chk
 open_memstream getline getdelim __getdelim _Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t
 _ZnwmSt11align_val_t _ZnamSt11align_val_t"
ALLOC_EXEMPT="src/io/json_simdjson.cpp"
MAX_FILE_LINES=800
MAX_FUNC_LINES=${MAXF:-150}

build=${1:-build}
root=${2:-.}
cd "$root"
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
[ -d src ] || { echo "check-layout: no src/ under $root" >&2; exit 2; }
# A private directory of our own (never a name another run could share), removed however the
# script ends: a signal (timeout, ^C) exits through the EXIT trap.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-layout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP

find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort > "$tmp/files"

# --- facts ----------------------------------------------------------------------------------
# I FILE LINE TARGET    one #include; TARGET is <x> for angle brackets, else the quoted path
: > "$tmp/inc"
# (one grep over every file: "FILE:LINE:TEXT")
grep -Hn '^[[:space:]]*#[[:space:]]*include' $(cat "$tmp/files") | awk '{
    f = $0; sub(/:.*/, "", f); rest = substr($0, length(f) + 2)
    line = rest; sub(/:.*/, "", line); t = substr(rest, length(line) + 2)
    if (match(t, /<[^>]*>/)) print "I", f, line, substr(t, RSTART, RLENGTH)
    else if (match(t, /"[^"]*"/)) print "I", f, line, substr(t, RSTART + 1, RLENGTH - 2)
}' >> "$tmp/inc" || true

# D FILE SYM / U FILE SYM    from each object's symbol table; FILE is the object's source
# (one nm over every object: "OBJECT:VALUE TYPE SYM" or "OBJECT:          U SYM")
: > "$tmp/sym"
: > "$tmp/objs"
nobj=0
while read -r f; do
    case $f in *.h) continue ;; esac
    o=$build/${f%.*}.o
    if [ ! -f "$o" ]; then
        echo "check-layout: $f: no object $o (build first: make all)" >&2
        exit 2
    fi
    nobj=$((nobj + 1))
    printf '%s %s\n' "$o" "$f" >> "$tmp/objs"
done < "$tmp/files"
if [ "$nobj" -gt 0 ]; then
    nm -A $(awk '{ print $1 }' "$tmp/objs") | awk 'NR == FNR { src[$1] = $2; next }
        { i = index($0, ".o:"); f = src[substr($0, 1, i + 1)]; n = split(substr($0, i + 3), w, " ") }
        w[1] == "U" { print "U", f, w[2]; next }
        n == 3 && w[2] ~ /^[TDBRCVWGSui]$/ { print "D", f, w[3] }' "$tmp/objs" - >> "$tmp/sym"
fi

# --- rules 1, 2, 3, 4, 7 (includes and symbols) ---------------------------------------------
awk -v layers="$LAYERS" -v fileio="$FILE_IO" -v openers="$FILE_OPENERS" -v alloc="$ALLOC" \
    -v allocex="$ALLOC_EXEMPT" -v tooldirs="$TOOL_DIRS" -v toolsees="$TOOL_SEES" \
    -v util="$BASE_UTILITY" '
function top(f,   p) { split(f, p, "/"); return p[2] }          # src/DIR/... -> DIR
function words(s, set,   a, n, i) { n = split(s, a, /[ \t\n]+/); for (i = 1; i <= n; i++) if (a[i] != "") set[a[i]] = 1 }
function glob2re(g) { gsub(/[.+^$(){}|\\]/, "\\\\&", g); gsub(/\*/, "[^/]*", g); gsub(/\?/, "[^/]", g); return "^" g "$" }
function globs(s, re,   a, n, i, k) { n = split(s, a, /[ \t\n]+/); k = 0; for (i = 1; i <= n; i++) if (a[i] != "") re[++k] = glob2re(a[i]); return k }
function matches(f, re, n,   i) { for (i = 1; i <= n; i++) if (f ~ re[i]) return 1; return 0 }
function out(rule, f, what) { printf "check-layout: RULE %d: %s: %s\n", rule, f, what; bad = 1 }
# may a client folder d (sim or the tool) use file g (a header it includes, or the .c defining a
# kp__ function it calls)? its own folder, the folders it sees, and the base utility module
function client_ok(d, g,   e) {
    e = top(g)
    if (e == d || (d SUBSEP e) in sees) return 1
    return matches(g, ure, nu_re)
}
BEGIN {
    n = split(layers, a, " ")
    for (i = 1; i <= n; i++) { split(a[i], kv, ":"); layer[kv[1]] = kv[2] + 0 }
    words(fileio, io); words(alloc, al); words(allocex, alex); words(tooldirs, tool)
    n = split(toolsees, a, /[ \t\n]+/)
    for (i = 1; i <= n; i++) if (split(a[i], kv, ":") == 2) sees[kv[1], kv[2]] = 1
    nu_re = globs(util, ure); no_re = globs(openers, ore)
    client["sim"] = 2; for (d in tool) client[d] = 1       # the rule a client breaks
}
$1 == "I" { inc[++ni] = $2 SUBSEP $3 SUBSEP $4; next }
$1 == "D" { if (!($3 in def)) def[$3] = $2; next }
$1 == "U" { use[++nu] = $2 SUBSEP $3; next }
END {
    # folders in no layer
    for (i = 1; i <= ni; i++) { split(inc[i], p, SUBSEP); d = top(p[1]); if (!(d in layer) && !(d in told)) { told[d] = 1; out(7, "src/" d, "folder is in no layer (add it to LAYERS in scripts/layout.conf)") } }
    for (i = 1; i <= ni; i++) {
        split(inc[i], p, SUBSEP); f = p[1]; line = p[2]; t = p[3]; d = top(f)
        angle = (substr(t, 1, 1) == "<")
        path = angle ? substr(t, 2, length(t) - 2) : t
        while (substr(path, 1, 3) == "../") path = substr(path, 4)
        if (substr(path, 1, 2) == "./") path = substr(path, 3)
        slash = index(path, "/")
        if (!slash) { if (angle) continue; td = d; path = d "/" path }  # "x.h": beside the includer
        else td = substr(path, 1, slash - 1)
        if (angle && td != "kprio" && !(td in layer)) continue  # a system header
        where = f ":" line
        if (td == "kprio") { if (d == "sim" || (d in tool)) kprio_seen[d] = 1; continue }
        # rules 1 and 2: the tool and sim see kprio/*.h, their own folder, the folders they are
        # given and the base utility headers
        if ((d in client) && !client_ok(d, "src/" path)) {
            if (d == "sim") out(2, where, "includes " path " (src/sim includes only kprio/*.h, src/sim/ and base utility headers)")
            else out(1, where, "includes " path " (only <system>, kprio/*.h, src/" d "/, the base utility and the folders it is given)")
        }
        # rule 2: the two engines never include each other
        if ((d == "sched" && td == "kubelet") || (d == "kubelet" && td == "sched")) out(2, where, "includes " path " (src/sched and src/kubelet never include each other)")
        # rule 7: includes go down the layers, never sideways
        if ((d in layer) && (td in layer) && td != d) {
            if (layer[td] > layer[d]) out(7, where, "includes " path " (layer " td " is above " d ")")
            else if (layer[td] == layer[d] && !((d SUBSEP td) in sees)) out(7, where, "includes " path " (" td " and " d " are siblings)")
        }
    }
    for (i = 1; i <= nu; i++) {
        split(use[i], p, SUBSEP); f = p[1]; s = p[2]; d = top(f)
        if ((s in io) && !matches(f, ore, no_re)) out(3, f, "calls " s " (only src/io/ and the base file writer and directory walker reach files)")
        if (d != "base" && (s in al) && !(f in alex)) out(4, f, "calls " s " (use base/alloc.h: kp__malloc, kp__free, ...)")
        if (!(s in def)) continue
        g = def[s]; e = top(g)
        if (g == f) continue
        if ((d in client) && substr(s, 1, 4) == "kp__" && !client_ok(d, g)) {
            if (d == "sim") out(2, f, "calls " s " defined in " g " (a public kp_ function, or the base utility module)")
            else out(1, f, "calls " s " defined in " g " (a public kp_ function, or the base utility module)")
        }
        if ((d in layer) && (e in layer) && e != d) {
            if (layer[e] > layer[d]) out(7, f, "uses " s " of " g " (layer " e " is above " d ")")
            else if (layer[e] == layer[d] && !((d SUBSEP e) in sees)) out(7, f, "uses " s " of " g " (" e " and " d " are siblings)")
        }
    }
    exit bad
}' "$tmp/inc" "$tmp/sym" > "$tmp/out1" || true

# --- rule 5: circles of modules (calls, static inline functions, includes) ---------------------
sh "$(dirname "$0")/file_cycles.sh" "$build" . > "$tmp/cycles" 2>&1 || true
awk '/^circle:/ { if (line != "") print line ")"; line = "check-layout: RULE 5: " $2 ": in a circle with"
        for (i = 3; i <= NF; i++) line = line " " $i
        line = line " ("; sep = ""; next }
    /^  / { sub(/^  /, ""); line = line sep $0; sep = "; "; next }
    /^file_cycles:/ { print "check-layout: RULE 5: " $0 }
    END { if (line != "") print line ")" }' "$tmp/cycles" > "$tmp/out5"

# --- rule 6: file and function sizes ----------------------------------------------------------
: > "$tmp/out6"
# One awk over every file (state reset at each file's first line): file length, then each
# function's. A function: a header starting in column 0 at file level, then a body; its length
# runs from the header's first line to the closing brace. Comments, strings and character
# literals are blanked first; `namespace x {` and `extern "C" {` do not count as a level.
awk -v max="$MAX_FUNC_LINES" -v maxf="$MAX_FILE_LINES" '
    function strip(s,   o, c, c2, i, n) {
        o = ""; n = length(s)
        for (i = 1; i <= n; i++) {
            c = substr(s, i, 1); c2 = substr(s, i, 2)
            if (incom) { if (c2 == "*/") { incom = 0; i++ } ; continue }
            if (c2 == "/*") { incom = 1; i++; o = o " "; continue }
            if (c2 == "//") break
            if (c == "\"" || c == "\047") {
                q = c; o = o q
                for (i++; i <= n; i++) { c = substr(s, i, 1); if (c == "\\") { i++; continue } if (c == q) break }
                o = o q; continue
            }
            o = o c
        }
        return o
    }
    function file_end() {
        if (f != "" && lines > maxf) printf "check-layout: RULE 6: %s: %d lines (at most %d)\n", f, lines, maxf
        printf "%s", fnbuf; fnbuf = ""
    }
    FNR == 1 {
        file_end()
        f = FILENAME; lines = 0; cont = 0; incom = 0; depth = 0; hdr = ""; hstart = 0; nt = 0; isfn = 0
    }
    { lines = FNR }
    END { file_end() }
    {
        raw = $0
        if (cont) { cont = (raw ~ /\\$/); next }                 # preprocessor continuation
        if (!incom && raw ~ /^[ \t]*#/) { cont = (raw ~ /\\$/); next }
        s = strip(raw)
        if (depth == 0 && hdr ~ /^[ \t]*$/ && s ~ /^[A-Za-z_]/) hstart = FNR
        n = length(s)
        for (i = 1; i <= n; i++) {
            c = substr(s, i, 1)
            if (depth == 0 && c != "{" && c != "}" && c != ";") { hdr = hdr c; continue }
            if (c == "{") {
                if (depth == 0 && hdr ~ /^[ \t]*(namespace|extern)[^(]*$/) { tr[++nt] = 1; hdr = ""; continue }
                tr[++nt] = 0
                if (depth == 0) {
                    isfn = (hdr ~ /\(/ && hdr !~ /=/ && hdr !~ /^[ \t]*(struct|union|enum|typedef)[ \t]/ && hstart)
                    if (isfn) { h = hdr; sub(/\(.*/, "", h); gsub(/[^A-Za-z0-9_]+/, " ", h); m = split(h, w, " "); fname = w[m]; fstart = hstart }
                }
                depth++
            } else if (c == "}") {
                if (nt > 0 && tr[nt]) { nt--; continue }
                if (nt > 0) nt--
                if (depth > 0) depth--
                if (depth == 0) {
                    if (isfn && FNR - fstart + 1 > max)
                        fnbuf = fnbuf sprintf("check-layout: RULE 6: %s:%d: function %s is %d lines (at most %d)\n", f, fstart, fname, FNR - fstart + 1, max)
                    isfn = 0; hdr = ""; hstart = 0
                }
            } else if (c == ";") { hdr = ""; hstart = 0 }
            if (depth == 0 && c == "}") { hdr = ""; hstart = 0 }
        }
        if (depth == 0 && hdr != "") hdr = hdr " "
    }' $(cat "$tmp/files") >> "$tmp/out6"

# --- rule 8 (a hint): fixed limits that no error message names ---------------------------------
# A KP_..MAX.. macro is taken as reported when some line within two of a use of it (outside its
# #define) holds a string literal: the usual `if (n > KP_MAX_X) return kp__err(..., "...")`.
# A macro that was read and is not a limit that can change an answer (a bound that cannot be
# reached, an upstream constant, a cap on an optimisation only) says so where it is defined:
# `rule 8:` and the reason, on the #define line or in the comment block right above it.
: > "$tmp/out8"
grep -n "^[[:space:]]*#[[:space:]]*define[[:space:]][[:space:]]*KP_[A-Z0-9_]*MAX" $(cat "$tmp/files") 2>/dev/null |
while IFS=: read -r df dl rest; do
    name=$(printf '%s\n' "$rest" | sed 's/^[[:space:]]*#[[:space:]]*define[[:space:]]*\([A-Za-z0-9_]*\).*/\1/')
    reviewed=$(awk -v dl="$dl" '
        { line[NR] = $0 }
        END {
            if (index(line[dl], "rule 8:")) { print "y"; exit }
            for (i = dl - 1; i >= 1 && line[i] ~ /^[ \t]*(\/\*|\*)/; i--)
                if (index(line[i], "rule 8:")) { print "y"; exit }
        }' "$df")
    [ -z "$reviewed" ] || continue
    said=$(awk -v m="$name" -v df="$df" -v dl="$dl" '
        function check(   i, j) {
            for (i = 1; i <= n; i++) {
                if (fn == df && i == dl) continue
                if (line[i] ~ /^[ \t]*#[ \t]*define/ ) continue
                if (index(line[i], m) == 0) continue
                for (j = i - 2; j <= i + 2; j++) if (j >= 1 && j <= n && line[j] ~ /"/) return 1
            }
            return 0
        }
        FNR == 1 && NR > 1 { if (check()) { found = 1; exit } n = 0 }
        { fn = FILENAME; line[++n] = $0 }
        END { if (found || check()) print "y" }' $(cat "$tmp/files"))
    [ -n "$said" ] || echo "check-layout: WARNING: RULE 8: $df:$dl: $name is a fixed limit that no error message names" >> "$tmp/out8"
done

[ "$nobj" -gt 0 ] || { echo "check-layout: no objects under $build/src" >&2; exit 2; }
cat "$tmp/out1" | sort -t: -k2,2 -s > "$tmp/out17"
# one block per rule, in rule order
for r in 1 2 3 4 5 6 7; do
    cat "$tmp/out17" "$tmp/out5" "$tmp/out6" | grep "^check-layout: RULE $r:" || true
done > "$tmp/all"
cat "$tmp/all" "$tmp/out8"
if [ -s "$tmp/all" ]; then
    echo "check-layout: $(wc -l < "$tmp/all") violation(s)" >&2
    exit 1
fi
echo "check-layout: all rules hold ($nobj objects)" >&2
