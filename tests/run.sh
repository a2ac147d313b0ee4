#!/bin/sh
# Runs every unit-test binary and every golden case against the build in $1 (default: build).
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
B=${1:-build}
pass=0; fail=0
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>/tmp/kprio-unit-err.$$); rc=$?
    res=$(printf '%s\n' "$out" | awk '/^RESULT/{print $2, $3}' | tail -n 1)
    if [ -z "$res" ]; then
        echo "CRASH $t (exit $rc)"; cat /tmp/kprio-unit-err.$$; fail=$((fail+1)); continue
    fi
    p=${res% *}; f=${res#* }
    pass=$((pass+p)); fail=$((fail+f))
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        cat /tmp/kprio-unit-err.$$
        [ "$f" = 0 ] && { echo "FAIL $t exited $rc"; fail=$((fail+1)); }
    fi
    echo "$(basename "$t"): $p passed, $f failed"
done
rm -f /tmp/kprio-unit-err.$$
# (not `tee /dev/stderr`: reopening stderr truncates it when it is redirected to a file)
gout=$(sh tests/golden/run.sh "$B")
printf '%s\n' "$gout" | grep -v '^ok ' >&2
g=$(printf '%s\n' "$gout" | awk '/^GOLDEN/{print $2, $3}' | tail -n 1)
if [ -n "$g" ]; then pass=$((pass+${g% *})); fail=$((fail+${g#* })); else fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
