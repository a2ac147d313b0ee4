#!/bin/sh
# Golden end-to-end cases: tests/golden/<case>/ holds `args` (the kprio command line, one line,
# run from inside the case directory), the input files, `expected` (exact stdout) and optionally
# `expected_rc` (exit status, default 0), `expected_stderr` (a substring of stderr) and
# `expected_stderr_exact` (the whole of stderr).
# Cases run TEST_JOBS at a time (default: the machine's cores), eight to a shell, each into a
# report file of its own; the reports are printed in case order, so the output does not depend
# on the timing. A case costs a few processes besides kprio (each fork and exec is milliseconds
# of CPU, more than most cases' kprio: hence no basename, cat or rm per case).
# Last line: "GOLDEN passed failed".

# run.sh BUILD --one REPORT-DIR CASE-DIR...: the cases; each one's report file holds the failure
# lines and ends with "PASS" or "FAIL" (a report of one line "PASS" is a pass).
if [ "$2" = --one ]; then
    B=$1; W=$3; shift 3
    for d in "$@"; do
        d=${d%/}; name=${d##*/}; R=$W/$name
        err=$R.err; dif=$R.diff
        want_rc=0; [ -f "$d/expected_rc" ] && read -r want_rc <"$d/expected_rc"
        args=; read -r args <"$d/args"
        out=$(cd "$d" && eval "\"$B/kprio\" $args" 2>"$err"); rc=$?
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
            if [ -s "$err" ] && grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\)\|runtime error:' "$err"; then
                echo "golden $name: sanitizer report"; cat "$err"; ok=0
            fi
            if [ $ok = 1 ]; then echo PASS; else echo FAIL; fi
        } >"$R"
    done
    exit 0
fi

B=$(cd "${1:-build}" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-golden.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
J=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
for d in tests/golden/*/; do [ -f "$d/args" ] && printf '%s\n' "$d"; done |
    xargs -P "$J" -n 8 sh tests/golden/run.sh "$B" --one "$W"
pass=0; fail=0
for d in tests/golden/*/; do
    [ -f "$d/args" ] || continue
    d=${d%/}; r=$W/${d##*/}; first=
    [ -f "$r" ] && read -r first <"$r"
    if [ "$first" = PASS ]; then
        pass=$((pass+1))
    else
        fail=$((fail+1))
        if [ -s "$r" ]; then sed '$d' "$r"; else echo "golden ${d##*/}: no report"; fi
    fi
done
echo "GOLDEN $pass $fail"
