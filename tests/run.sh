#!/bin/sh
# Runs every unit-test binary and every golden case against the build in $1 (default: build).
# $2 names the pass (default: plain) and starts every summary line, so that the plain and the
# sanitizer passes of `make test` read apart: "plain: test_cluster: 40 passed, 0 failed", ...,
# "plain: golden: 138 passed, 0 failed", "plain: plugin: 17 passed, 0 failed" (the kubectl plugin,
# tests/plugin/run.sh), "plain: examples: 14 passed, 0 failed" (every command of the user guide,
# tests/examples.sh), "plain: html: 9 passed, 0 failed" (the HTML report in headless Chromium,
# tests/html/run.sh), then the pass's totals, "plain: N passed, N failed".
# The totals line is also left in $1/test-totals (`make test` repeats both passes' at the end).
# Exits non-zero if anything failed.
B=${1:-build}
L=${2:-plain}
pass=0; fail=0
# Unit-test binaries run TEST_JOBS at a time (default: the machine's cores), each into files of
# its own; their reports are read back in name order.
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-unit.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
# (the longest first, so that none starts near the end and runs alone on one core)
SLOW="test_alloc_fail test_cli_oom test_cli_oom_malloc test_io_input test_sim test_io_shim_oom"
{
    for n in $SLOW; do [ -x "$B/tests/$n" ] && printf '%s\n' "$B/tests/$n"; done
    for t in "$B"/tests/test_*; do
        case " $SLOW " in *" ${t##*/} "*) continue ;; esac
        [ -x "$t" ] && printf '%s\n' "$t"
    done
} | xargs -P "${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh -c \
        'n=$(basename "$1"); "$1" >"$0/$n.out" 2>"$0/$n.err"; echo $? >"$0/$n.rc"' "$W"
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t"); rc=$(cat "$W/$n.rc" 2>/dev/null)
    res=$(awk '/^RESULT/{print $2, $3}' "$W/$n.out" 2>/dev/null | tail -n 1)
    if [ -z "$res" ]; then
        echo "$L: CRASH $t (exit $rc)"; cat "$W/$n.err"; fail=$((fail+1)); continue
    fi
    p=${res% *}; f=${res#* }
    pass=$((pass+p)); fail=$((fail+f))
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        cat "$W/$n.err"
        [ "$f" = 0 ] && { echo "$L: FAIL $t exited $rc"; fail=$((fail+1)); }
    fi
    echo "$L: $n: $p passed, $f failed"
done
# (not `tee /dev/stderr`: reopening stderr truncates it when it is redirected to a file)
gout=$(sh tests/golden/run.sh "$B")
printf '%s\n' "$gout" | grep -v '^ok \|^GOLDEN ' | sed "s/^/$L: /" >&2
g=$(printf '%s\n' "$gout" | awk '/^GOLDEN/{print $2, $3}' | tail -n 1)
if [ -n "$g" ]; then
    echo "$L: golden: ${g% *} passed, ${g#* } failed"
    pass=$((pass+${g% *})); fail=$((fail+${g#* }))
else
    echo "$L: golden: no result"; fail=$((fail+1))
fi
# the kubectl plugin against a fake kubectl (tests/plugin/run.sh)
pout=$(sh tests/plugin/run.sh "$B")
printf '%s\n' "$pout" | grep -v '^ok \|^PLUGIN ' | sed "s/^/$L: /" >&2
g=$(printf '%s\n' "$pout" | awk '/^PLUGIN/{print $2, $3}' | tail -n 1)
if [ -n "$g" ]; then
    echo "$L: plugin: ${g% *} passed, ${g#* } failed"
    pass=$((pass+${g% *})); fail=$((fail+${g#* }))
else
    echo "$L: plugin: no result"; fail=$((fail+1))
fi
# every command of the user guide, docs/guide.md, and the output it shows (tests/examples.sh)
eout=$(sh tests/examples.sh "$B")
printf '%s\n' "$eout" | grep -v '^ok \|^EXAMPLES ' | sed "s/^/$L: /" >&2
g=$(printf '%s\n' "$eout" | awk '/^EXAMPLES/{print $2, $3}' | tail -n 1)
if [ -n "$g" ]; then
    echo "$L: examples: ${g% *} passed, ${g#* } failed"
    pass=$((pass+${g% *})); fail=$((fail+${g#* }))
else
    echo "$L: examples: no result"; fail=$((fail+1))
fi
# obfuscation keeps every golden case's decisions (tests/plugin/obfuscate_goldens.sh; plain pass
# only: ~15 s, and the sanitizer pass runs the obfuscator in the plugin tests above)
if [ "$L" = plain ]; then
    oout=$(sh tests/plugin/obfuscate_goldens.sh "$B")
    printf '%s\n' "$oout" | grep -v '^ok \|^OBFUSCATE ' | sed "s/^/$L: /" >&2
    g=$(printf '%s\n' "$oout" | awk '/^OBFUSCATE/{print $2, $3}' | tail -n 1)
    if [ -n "$g" ]; then
        echo "$L: obfuscate-goldens: ${g% *} passed, ${g#* } failed"
        pass=$((pass+${g% *})); fail=$((fail+${g#* }))
    else
        echo "$L: obfuscate-goldens: no result"; fail=$((fail+1))
    fi
fi
# the HTML report in headless Chromium (tests/html/run.sh; plain pass only: a few seconds)
if [ "$L" = plain ]; then
    hout=$(sh tests/html/run.sh "$B")
    printf '%s\n' "$hout" | grep -v '^ok \|^HTML ' | sed "s/^/$L: /" >&2
    g=$(printf '%s\n' "$hout" | awk '/^HTML/{print $2, $3}' | tail -n 1)
    if [ -n "$g" ]; then
        echo "$L: html: ${g% *} passed, ${g#* } failed"
        pass=$((pass+${g% *})); fail=$((fail+${g#* }))
    else
        echo "$L: html: no result"; fail=$((fail+1))
    fi
fi
echo "$L: $pass passed, $fail failed" | tee "$B/test-totals"
[ "$fail" = 0 ]
