#!/bin/sh
# `make test-valgrind`: every unit-test binary of the plain build in $1 (default build), then a
# few golden cases through kprio (one per command, JSON and YAML input, a config and an error
# path), under valgrind. Valgrind emulates a CPU without AVX-512, so this also proves the
# portable build does not execute instructions the machine may lack. Fails on any valgrind
# error, definite or possible leak, wrong output or wrong exit status. Runs TEST_JOBS (default:
# the machine's cores) at a time, each into a report of its own, printed in a fixed order.
B=$(cd "${1:-build}" && pwd)
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible"
CASES="inspect-json inspect-table inspect-workload-kinds admit-example evict-memory-pressure-json
 evict-kubelet-config preempt-cascade-fewest-victims preempt-pdb-fewest-violations sched-topology
 sched-whatif sched-config-error bad-json-syntax bad-yaml-syntax simulate-pdb-budget-second-preemptor
 simulate-drain-blocked-by-pdb simulate-err-scenario-bad-at"

# valgrind.sh BUILD --one REPORT-DIR JOB: JOB is a unit-test binary's path or "golden:CASE"; the
# report REPORT-DIR/<name> holds the result line first, then any log.
if [ "$2" = --one ]; then
    W=$3; job=$4; log=$W/$(basename "$job").log
    case $job in
    golden:*)
        c=${job#golden:}; r=$W/golden-$c; d=tests/golden/$c
        [ -f "$d/args" ] || { echo "FAIL golden $c: no such case" >"$r"; exit 0; }
        want=0; [ -f "$d/expected_rc" ] && want=$(cat "$d/expected_rc")
        out=$(cd "$d" && eval "$VG \"$B/kprio\" $(cat args)" 2>"$log"); rc=$?
        if [ "$rc" = "$want" ] && { [ ! -f "$d/expected" ] || printf '%s\n' "$out" | cmp -s "$d/expected" -; }; then
            echo "ok golden $c" >"$r"
        else
            { echo "FAIL golden $c (exit $rc, expected $want)"; tail -n 40 "$log"; } >"$r"
        fi ;;
    *)
        r=$W/unit-$(basename "$job")
        if $VG "$job" >"$log" 2>&1 && grep -q '^RESULT [0-9]* 0 ' "$log"; then
            echo "ok $(basename "$job")" >"$r"
        else
            { echo "FAIL $(basename "$job")"; grep -v '^ok\|^PASS' "$log" | tail -n 40; } >"$r"
        fi ;;
    esac
    rm -f "$log"
    exit 0
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-vg.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
# the longest runs first (the sweeps; by plain-build CPU time), so that none starts near the end
# and runs alone on one core; then the other binaries, then the golden cases
SLOW="test_alloc_fail test_cli_oom test_cli_oom_malloc test_sim test_io_shim_oom test_io_scan"
{
    for n in $SLOW; do [ -x "$B/tests/$n" ] && printf '%s\n' "$B/tests/$n"; done
    for t in "$B"/tests/test_*; do
        case " $SLOW " in *" ${t##*/} "*) continue ;; esac
        [ -x "$t" ] && printf '%s\n' "$t"
    done
    for c in $CASES; do printf 'golden:%s\n' "$c"; done
} | xargs -P "${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh tests/valgrind.sh "$B" --one "$W"
pass=0; fail=0
for r in $(for t in "$B"/tests/test_*; do [ -x "$t" ] && echo "$W/unit-$(basename "$t")"; done) \
    $(for c in $CASES; do echo "$W/golden-$c"; done); do
    if [ ! -f "$r" ]; then
        fail=$((fail + 1)); echo "FAIL $(basename "$r"): no report"
    elif head -n 1 "$r" | grep -q '^ok '; then
        pass=$((pass + 1)); head -n 1 "$r"
    else
        fail=$((fail + 1)); cat "$r"
    fi
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
