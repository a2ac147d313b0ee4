#!/bin/sh
# Golden end-to-end cases: tests/golden/<case>/ holds `args` (the kprio command line, one line,
# run from inside the case directory), the input files, `expected` (exact stdout) and optionally
# `expected_rc` (exit status, default 0), `expected_stderr` (a substring of stderr) and
# `expected_stderr_exact` (the whole of stderr).
B=$(cd "${1:-build}" && pwd)
pass=0; fail=0
for d in tests/golden/*/; do
    [ -f "$d/args" ] || continue
    name=$(basename "$d")
    want_rc=0; [ -f "$d/expected_rc" ] && want_rc=$(cat "$d/expected_rc")
    out=$(cd "$d" && eval "\"$B/kprio\" $(cat args)" 2>/tmp/kprio-golden-err.$$); rc=$?
    ok=1
    [ "$rc" = "$want_rc" ] || { echo "golden $name: exit $rc, expected $want_rc"; ok=0; }
    if [ -f "$d/expected" ]; then
        printf '%s\n' "$out" | diff -u "$d/expected" - >/tmp/kprio-golden-diff.$$ || {
            echo "golden $name: stdout differs"; cat /tmp/kprio-golden-diff.$$; ok=0; }
    fi
    if [ -f "$d/expected_stderr" ]; then
        grep -qF -- "$(cat "$d/expected_stderr")" /tmp/kprio-golden-err.$$ || {
            echo "golden $name: stderr lacks '$(cat "$d/expected_stderr")'"; cat /tmp/kprio-golden-err.$$; ok=0; }
    fi
    if [ -f "$d/expected_stderr_exact" ]; then
        diff -u "$d/expected_stderr_exact" /tmp/kprio-golden-err.$$ >/tmp/kprio-golden-diff.$$ || {
            echo "golden $name: stderr differs"; cat /tmp/kprio-golden-diff.$$; ok=0; }
    fi
    if grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\)\|runtime error:' /tmp/kprio-golden-err.$$; then
        echo "golden $name: sanitizer report"; cat /tmp/kprio-golden-err.$$; ok=0
    fi
    if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
rm -f /tmp/kprio-golden-err.$$ /tmp/kprio-golden-diff.$$
echo "GOLDEN $pass $fail"
