#!/bin/sh
# Benchmarks: sh bench/run.sh BUILD_DIR [--full]
# Generates a kubectl-style snapshot into /tmp unless it already exists (default 500 nodes /
# 15,000 pods; --full: 5,000 nodes / 150,000 pods), runs the ingest benchmark on it, then every
# other BUILD_DIR/bench/bench_* binary (each runs without arguments). Builds nothing: run
# `make all` (or `make BUILD_DIR/bench/...`) first.
#
# Scaling: sh bench/run.sh BUILD_DIR --scale [--nodes K] [--runs R] [--only DIM] [--instructions]
# Runs bench_scale for every size of every dimension (bench_scale --list), each in its own
# process, R times (default 3; the median CPU time is kept), and prints per dimension the
# scheduling run's CPU time and the process's peak RSS at each size, and the growth exponent
# log(t4/t3) / log(n4/n3) between the two largest sizes (1.0 = linear). --instructions counts
# the instructions of kp_sched_run under callgrind instead of timing (repeatable on a loaded
# machine; slow: use it with --nodes 100 or so).
set -eu

usage() {
    echo "usage: sh bench/run.sh BUILD_DIR [--full]" >&2
    echo "       sh bench/run.sh BUILD_DIR --scale [--nodes K] [--runs R] [--only DIM]" \
        "[--instructions]" >&2
    exit 2
}

# One bench_scale run: prints "CPU_SECONDS MAXRSS_KB DECISIONS" (or "INSTRUCTIONS - DECISIONS").
scale_one() {
    if [ "$instr" = 1 ]; then
        out=$(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=kp_sched_run \
            --callgrind-out-file=/dev/null "$scale_bin" "$1" "$2" $scale_nodes 2>&1) || return 1
        ir=$(printf '%s\n' "$out" | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
        dec=$(printf '%s\n' "$out" | sed -n 's/.*decisions=\([0-9a-f]*\).*/\1/p')
        echo "$ir - $dec"
        return 0
    fi
    out=$("$scale_bin" "$1" "$2" $scale_nodes) || return 1
    printf '%s\n' "$out" | sed -n 's/.* cpu=\([0-9.]*\)s maxrss=\([0-9]*\)kB decisions=\([0-9a-f]*\).*/\1 \2 \3/p'
}

scale() {
    scale_bin=$build/bench/bench_scale
    if [ ! -x "$scale_bin" ]; then
        echo "bench/run.sh: $scale_bin is missing: build it first (make $scale_bin)" >&2
        exit 1
    fi
    unit=cpu-s
    [ "$instr" = 1 ] && unit=Minstr
    echo "== bench_scale ($unit of kp_sched_run per size; peak RSS in MB; exponent between the" \
        "two largest sizes)"
    "$scale_bin" --list | while read -r dim s1 s2 s3 s4; do
        [ -n "$only" ] && [ "$only" != "$dim" ] && continue
        line="$dim"
        vals=""
        for n in $s1 $s2 $s3 $s4; do
            samples=""
            rss=0
            dec=""
            i=0
            while [ $i -lt "$runs" ]; do
                r=$(scale_one "$dim" "$n") || { echo "$dim $n: bench_scale failed" >&2; exit 1; }
                set -- $r
                samples="$samples $1"
                [ "$2" != - ] && rss=$2
                dec=$3
                i=$((i + 1))
            done
            med=$(printf '%s\n' $samples | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
            [ "$instr" = 1 ] && med=$(awk -v v="$med" 'BEGIN {printf "%.1f", v / 1e6}')
            vals="$vals $med"
            if [ "$instr" = 1 ]; then
                line="$line | n=$n $med"
            else
                line="$line | n=$n ${med}s $(awk -v k="$rss" 'BEGIN {printf "%.0f", k / 1024}')MB"
            fi
            line="$line ${dec%????????????}"
        done
        set -- $vals
        exp=$(awk -v a="$3" -v b="$4" -v m="$s3" -v n="$s4" \
            'BEGIN {if (a > 0 && b > 0) printf "%.2f", log(b / a) / log(n / m); else print "-"}')
        echo "$line | exponent $exp"
    done
}

[ $# -ge 1 ] || usage
build=$1
shift
nodes=500
pods=15000
mode=main
scale_nodes=""
runs=3
only=""
instr=0
while [ $# -gt 0 ]; do
    case $1 in
    --full) nodes=5000; pods=150000 ;;
    --scale) mode=scale ;;
    --nodes) [ $# -ge 2 ] || usage; scale_nodes="--nodes $2"; shift ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
    --only) [ $# -ge 2 ] || usage; only=$2; shift ;;
    --instructions) instr=1; runs=1 ;;
    *) usage ;;
    esac
    shift
done
if [ $mode = scale ]; then
    scale
    exit 0
fi

gen=$build/bench/gen_snapshot
ingest=$build/bench/bench_ingest
for b in "$gen" "$ingest"; do
    if [ ! -x "$b" ]; then
        echo "bench/run.sh: $b is missing: build it first (make $b)" >&2
        exit 1
    fi
done

snap=${TMPDIR:-/tmp}/kprio-snapshot-${nodes}n-${pods}p.json
if [ -s "$snap" ]; then
    echo "== snapshot: $snap (exists, reused)"
else
    echo "== snapshot: generating $snap ($nodes nodes, $pods pods)"
    "$gen" --nodes "$nodes" --pods "$pods" --seed 1 -o "$snap.tmp"
    mv "$snap.tmp" "$snap"
fi

status=0
echo
echo "== bench_ingest $snap"
"$ingest" "$snap" || status=1

for b in "$build"/bench/bench_*; do
    [ -x "$b" ] || continue
    case ${b##*/} in
    bench_ingest | bench_scale) continue ;; # bench_scale: --scale
    esac
    echo
    echo "== ${b##*/}"
    "$b" || { echo "(${b##*/} exited with status $?)"; status=1; }
done
exit $status
