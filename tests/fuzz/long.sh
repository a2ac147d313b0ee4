#!/bin/sh
# The long fuzz run of docs/internals/fuzzing.md: builds the targets (tests/fuzz/run.sh, 1 s each), then
# runs each target SECS seconds (default 630) one after the other at nice 19, on one core,
# restarting after a crash so a finding does not end the run. Everything goes to OUT (default
# /tmp/fuzzlong): TARGET.runN.log, corpus-TARGET/ (seeds + what was found), arts-TARGET/
# (crashing inputs), progress.log; the last line per target gives executions, coverage (cov, ft:
# libFuzzer's final counters), corpus size and the number of crashing inputs.
#     sh tests/fuzz/long.sh [SECS [TARGET...]]      (from the repository root)
set -eu
SECS=${1:-630}
[ $# -gt 0 ] && shift
TARGETS=${*:-fuzz_ingest_json fuzz_ingest_yaml fuzz_summary fuzz_kubelet_config fuzz_sched_config
 fuzz_quantity fuzz_engines}
OUT=${OUT:-/tmp/fuzzlong}
REPO=$(pwd)
corpora() { # the seed directories of a target (as tests/fuzz/run.sh)
    case $1 in
    fuzz_ingest_json) echo json ;; fuzz_ingest_yaml) echo yaml json ;;
    fuzz_summary) echo summary ;; fuzz_kubelet_config) echo kubeletconfig ;;
    fuzz_sched_config) echo schedconfig ;; fuzz_quantity) echo quantity ;;
    fuzz_engines) echo engines ;;
    esac
}
FUZZ_SECONDS=1 nice -n 19 sh tests/fuzz/run.sh > /dev/null
mkdir -p "$OUT"
for t in $TARGETS; do
    mkdir -p "$OUT/corpus-$t" "$OUT/arts-$t"
    for c in $(corpora "$t"); do cp "$REPO"/tests/fuzz/corpus/$c/* "$OUT/corpus-$t/"; done
    echo "$(date +%T) start $t" >> "$OUT/progress.log"
    t0=$(date +%s); i=0; execs=0
    while :; do
        left=$((SECS - ($(date +%s) - t0)))
        [ "$left" -ge 5 ] || break
        i=$((i + 1))
        log="$OUT/$t.run$i.log"
        ASAN_OPTIONS=detect_leaks=1 nice -n 19 "$REPO/build-fuzz/$t" -max_total_time="$left" \
            -timeout=25 -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/arts-$t/" \
            "$OUT/corpus-$t" > "$log" 2>&1 || true
        e=$(grep -a '^stat::number_of_executed_units' "$log" | awk '{print $2}')
        execs=$((execs + ${e:-0}))
    done
    cov=$(grep -a -E '^#[0-9]+.*cov:' "$log" | tail -n 1 |
        sed 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/')
    kib=$(($(cat "$OUT/corpus-$t"/* | wc -c) / 1024))
    echo "$t: $(($(date +%s) - t0)) s, $i run(s), $execs executions, $cov," \
        "corpus $(ls "$OUT/corpus-$t" | wc -l) files / $kib KiB," \
        "$(ls "$OUT/arts-$t" | wc -l) crashing input(s)" | tee -a "$OUT/progress.log"
done
