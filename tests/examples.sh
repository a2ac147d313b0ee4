#!/bin/sh
# Runs every command of the user guide (docs/guide.md) against the build in $1 (default: build)
# and checks that the output the guide shows is what kprio prints, so the guide stays true.
# A command is a line "$ COMMAND" inside a ```console block; the lines after it, up to the next
# "$ " line or the end of the block, are its output as shown. Each command runs with `sh -c` in
# a scratch directory where examples/ is the repository's (files it writes land there), with
# $1 first on PATH; it must exit 0, and every line shown (trailing blanks aside; a line "..."
# marks a cut) must be a line of what it prints on stdout and stderr. Order is not checked, and
# long outputs may be shown in part. ```sh blocks need a live cluster and are not run.
# Prints "ok N: COMMAND" or "FAIL N: ..." per command, then "EXAMPLES <passed> <failed>".
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
guide=${GUIDE:-docs/guide.md}
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-examples.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM HUP
mkdir "$W/run" "$W/cmd" && ln -s "$PWD/examples" "$W/run/examples" || exit 2
# one file per command: $W/cmd/N.sh (the command) and $W/cmd/N.exp (the lines shown)
awk -v dir="$W/cmd" '
    /^```console[ \t]*$/ { inb = 1; next }
    inb && /^```[ \t]*$/ { inb = 0; next }
    inb && /^\$ / { n++; print substr($0, 3) > (dir "/" n ".sh"); printf "" > (dir "/" n ".exp"); next }
    inb && n { sub(/[ \t]+$/, ""); if ($0 != "" && $0 != "...") print > (dir "/" n ".exp") }
    END { print n + 0 > (dir "/count") }' "$guide"
n=$(cat "$W/cmd/count")
pass=0; fail=0
i=1
while [ "$i" -le "$n" ]; do
    c=$(cat "$W/cmd/$i.sh")
    (cd "$W/run" && PATH="$B:$PATH" sh -c "$c") > "$W/out" 2>&1
    rc=$?
    missing=$(awk 'NR == FNR { sub(/[ \t]+$/, ""); have[$0] = 1; next }
        !($0 in have) { print; exit }' "$W/out" "$W/cmd/$i.exp")
    if [ "$rc" != 0 ]; then
        echo "FAIL $i: $c: exit $rc"; sed 's/^/    /' "$W/out" | head -n 5; fail=$((fail+1))
    elif [ -n "$missing" ]; then
        echo "FAIL $i: $c: the guide shows a line it does not print: $missing"; fail=$((fail+1))
    else
        echo "ok $i: $c"; pass=$((pass+1))
    fi
    i=$((i+1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no commands in $guide"; fail=$((fail+1)); }
echo "EXAMPLES $pass $fail"
[ "$fail" = 0 ]
