#!/bin/sh
# Benchmarks: sh bench/run.sh BUILD_DIR [--full]
# Generates a kubectl-style snapshot into /tmp unless it already exists (default 500 nodes /
# 15,000 pods; --full: 5,000 nodes / 150,000 pods), runs the ingest benchmark on it, then every
# other BUILD_DIR/bench/bench_* binary (each runs without arguments). Builds nothing: run
# `make all` (or `make BUILD_DIR/bench/...`) first.
#
# Scaling: sh bench/run.sh BUILD_DIR --scale [--nodes K] [--runs R] [--only DIM[,DIM...]]
#          [--instructions]
# Runs bench_scale for every size of every dimension (bench_scale --list), each in its own
# process, R times (default 3; the median CPU time is kept), and prints per dimension the
# scheduling run's CPU time and the process's peak RSS at each size, and the growth exponent
# log(t4/t3) / log(n4/n3) between the two largest sizes (1.0 = linear), then issue 20's targets
# side by side, each marked ok or MISS (PDBs 10,000 vs 100 <= 2.5x, PDB input order <= 25%,
# 50,000 pending pods with 5% preempting <= 5x the schedule-only run, exponents <= 1.2 where
# upstream is linear). --instructions counts the instructions of kp_sched_run under callgrind
# instead of timing (repeatable on a loaded machine; slow: use it with --nodes 100 or so).
set -eu

usage() {
    echo "usage: sh bench/run.sh BUILD_DIR [--full]" >&2
    echo "       sh bench/run.sh BUILD_DIR --scale [--nodes K] [--runs R] [--only DIM[,DIM...]]" \
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
    results=$(mktemp)
    trap 'rm -f "$results"' EXIT
    "$scale_bin" --list | while read -r dim s1 s2 s3 s4; do
        if [ -n "$only" ]; then
            case ",$only," in *",$dim,"*) ;; *) continue ;; esac
        fi
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
        echo "$dim $s1 $1 $s4 $4 $exp $s3" >>"$results"
    done
    targets
}

# Issue 20's targets side by side, from this run's medians ($results: one line "dim n1 t1 n4 t4
# exponent n3" per dimension). A target whose dimensions were not run (--only) is left out.
targets() {
    echo
    echo "== targets (issue 20), this run"
    awk '
    { n1[$1] = $2; t1[$1] = $3; n4[$1] = $4; t4[$1] = $5; ex[$1] = $6; n3[$1] = $7; order[++k] = $1 }
    function mark(ok) { return ok ? "ok" : "MISS" }
    function row(what, val, lim, ok) { printf "%-58s %10s  %-8s %s\n", what, val, lim, mark(ok) }
    END {
        printf "%-58s %10s  %-8s %s\n", "target", "measured", "limit", ""
        for (i = 1; i <= 2; i++) {
            d = i == 1 ? "pdbs-ok" : "pdbs-covered"
            if ((d in t4) && t1[d] > 0) {
                r = t4[d] / t1[d]
                row(sprintf("%s: %d PDBs / %d PDBs", d, n4[d], n1[d]), sprintf("%.2fx", r),
                    "<= 2.5x", r <= 2.5)
            }
        }
        if (("pdbs-ok" in t4) && ("pdbs-unsorted" in t4) && t4["pdbs-ok"] > 0) {
            c = (t4["pdbs-unsorted"] / t4["pdbs-ok"] - 1) * 100
            row(sprintf("input order at %d PDBs (pdbs-unsorted / pdbs-ok)", n4["pdbs-ok"]),
                sprintf("%+.0f%%", c), "<= 25%", c <= 25 && c >= -25)
        }
        if (("pending-preempt" in t4) && ("pending-none" in t4) && t4["pending-none"] > 0) {
            r = t4["pending-preempt"] / t4["pending-none"]
            row(sprintf("%d pending, 5%% preempting / none preempting", n4["pending-none"]),
                sprintf("%.2fx", r), "<= 5x", r <= 5)
        }
        # exponents where upstream is linear (pending-preempt: the shape, not a linear loop:
        # its preemptors multiply with the queue; its target is the ratio above)
        for (i = 1; i <= k; i++) {
            d = order[i]
            if (d == "pending-preempt") continue
            row(sprintf("exponent %s (%d -> %d)", d, n3[d], n4[d]), ex[d], "<= 1.2",
                ex[d] != "-" && ex[d] <= 1.2)
        }
    }' "$results"
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
