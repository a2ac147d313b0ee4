#!/bin/sh
# Golden end-to-end cases: tests/golden/<case>/ holds `args` (the kprio command line, one line,
# run from inside the case directory), the input files, `expected` (exact stdout) and optionally
# `expected_rc` (exit status, default 0), `expected_stderr` (a substring of stderr) and
# `expected_stderr_exact` (the whole of stderr).
# Cases run TEST_JOBS at a time (default: the machine's cores), each into a report file of its
# own; the reports are printed in case order, so the output does not depend on the timing.
# Last line: "GOLDEN passed failed".
B=$(cd "${1:-build}" && pwd)

# run.sh BUILD --one REPORT-DIR CASE-DIR: one case; its report file holds the failure lines and
# ends with "PASS" or "FAIL".
if [ "$2" = --one ]; then
    d=${4%/}; name=$(basename "$d"); R=$3/$name
    err=$R.err; dif=$R.diff
    want_rc=0; [ -f "$d/expected_rc" ] && want_rc=$(cat "$d/expected_rc")
    out=$(cd "$d" && eval "\"$B/kprio\" $(cat args)" 2>"$err"); rc=$?
    ok=1
    {
        [ "$rc" = "$want_rc" ] || { echo "golden $name: exit $rc, expected $want_rc"; ok=0; }
        if [ -f "$d/expected" ]; then
            printf '%s\n' "$out" | diff -u "$d/expected" - >"$dif" || {
                echo "golden $name: stdout differs"; cat "$dif"; ok=0; }
        fi
        if [ -f "$d/expected_stderr" ]; then
            grep -qF -- "$(cat "$d/expected_stderr")" "$err" || {
                echo "golden $name: stderr lacks '$(cat "$d/expected_stderr")'"; cat "$err"; ok=0; }
        fi
        if [ -f "$d/expected_stderr_exact" ]; then
            diff -u "$d/expected_stderr_exact" "$err" >"$dif" || {
                echo "golden $name: stderr differs"; cat "$dif"; ok=0; }
        fi
        if grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\)\|runtime error:' "$err"; then
            echo "golden $name: sanitizer report"; cat "$err"; ok=0
        fi
        if [ $ok = 1 ]; then echo PASS; else echo FAIL; fi
    } >"$R"
    rm -f "$err" "$dif"
    exit 0
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-golden.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
J=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
for d in tests/golden/*/; do [ -f "$d/args" ] && printf '%s\n' "$d"; done |
    xargs -P "$J" -n 1 sh tests/golden/run.sh "$B" --one "$W"
pass=0; fail=0
for d in tests/golden/*/; do
    [ -f "$d/args" ] || continue
    r=$W/$(basename "$d")
    if [ "$(tail -n 1 "$r" 2>/dev/null)" = PASS ]; then
        pass=$((pass+1))
    else
        fail=$((fail+1))
        if [ -s "$r" ]; then sed '$d' "$r"; else echo "golden $(basename "$d"): no report"; fi
    fi
done
echo "GOLDEN $pass $fail"
