#!/bin/sh
# Benchmarks: sh bench/run.sh BUILD_DIR [--full]
# Generates a kubectl-style snapshot into /tmp unless it already exists (default 500 nodes /
# 15,000 pods; --full: 5,000 nodes / 150,000 pods), runs the ingest benchmark on it, then every
# other BUILD_DIR/bench/bench_* binary (each runs without arguments). Builds nothing: run
# `make all` (or `make BUILD_DIR/bench/...`) first.
set -eu

usage() {
    echo "usage: sh bench/run.sh BUILD_DIR [--full]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
nodes=500
pods=15000
while [ $# -gt 0 ]; do
    case $1 in
    --full) nodes=5000; pods=150000 ;;
    *) usage ;;
    esac
    shift
done

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
    bench_ingest) continue ;;
    esac
    echo
    echo "== ${b##*/}"
    "$b" || { echo "(${b##*/} exited with status $?)"; status=1; }
done
exit $status
