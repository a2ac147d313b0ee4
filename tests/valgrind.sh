#!/bin/sh
# `make test-valgrind`: every unit-test binary of the plain build in $1 (default build), then a
# few golden cases through kprio (one per command, JSON and YAML input, a config and an error
# path), under valgrind. Valgrind emulates a CPU without AVX-512, so this also proves the
# portable build does not execute instructions the machine may lack. Fails on any valgrind
# error, definite or possible leak, wrong output or wrong exit status.
B=$(cd "${1:-build}" && pwd)
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible"
CASES="inspect-json inspect-table inspect-workload-kinds admit-example evict-memory-pressure-json
 evict-kubelet-config preempt-cascade-fewest-victims preempt-pdb-fewest-violations sched-topology
 sched-whatif sched-config-error bad-json-syntax bad-yaml-syntax simulate-pdb-budget-second-preemptor
 simulate-drain-blocked-by-pdb simulate-err-scenario-bad-at"
pass=0; fail=0
log=${TMPDIR:-/tmp}/kprio-vg.$$
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    if $VG "$t" > "$log" 2>&1 && grep -q '^RESULT [0-9]* 0 ' "$log"; then
        pass=$((pass + 1)); echo "ok $(basename "$t")"
    else
        fail=$((fail + 1)); echo "FAIL $(basename "$t")"; grep -v '^ok\|^PASS' "$log" | tail -n 40
    fi
done
for c in $CASES; do
    d=tests/golden/$c
    [ -f "$d/args" ] || { echo "FAIL golden $c: no such case"; fail=$((fail + 1)); continue; }
    want=0; [ -f "$d/expected_rc" ] && want=$(cat "$d/expected_rc")
    out=$(cd "$d" && eval "$VG \"$B/kprio\" $(cat args)" 2> "$log"); rc=$?
    if [ "$rc" = "$want" ] && { [ ! -f "$d/expected" ] || printf '%s\n' "$out" | cmp -s "$d/expected" -; }; then
        pass=$((pass + 1)); echo "ok golden $c"
    else
        fail=$((fail + 1)); echo "FAIL golden $c (exit $rc, expected $want)"; tail -n 40 "$log"
    fi
done
rm -f "$log"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
