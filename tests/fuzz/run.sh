#!/bin/sh
# Builds the libFuzzer targets with clang (ASan+UBSan) and runs each for FUZZ_SECONDS (default
# 20) on its seed corpus, in a scratch copy so new inputs do not touch the repository.
# FUZZ_ONLY="fuzz_summary fuzz_sched_config" runs only those targets. A crash leaves its input in
# build-fuzz/crash-*; replay it with `build-fuzz/TARGET FILE`.
set -e
SECS=${FUZZ_SECONDS:-20}
B=build-fuzz
# run.sh --run NAME: one built target for SECS seconds on its corpus (a scratch copy).
# fuzz_scenario, fuzz_sim, fuzz_trace, fuzz_convert and fuzz_simkube share one target's time (the
# scenario decoder, the actions played, the trace reader, the converters, the SimKube trace
# reader), and so do fuzz_cron and
# fuzz_sweep, and fuzz_quantity and fuzz_cel (small decoders and parsers), so the total stays
# what it was.
fuzz_one() {
    s=$SECS
    case $1 in
    fuzz_scenario | fuzz_sim | fuzz_trace | fuzz_convert | fuzz_simkube) s=$(((SECS + 4) / 5)) ;;
    fuzz_cron | fuzz_sweep | fuzz_quantity | fuzz_cel) s=$(((SECS + 1) / 2)) ;;
    esac
    ASAN_OPTIONS=detect_leaks=1 $B/$1 -max_total_time="$s" -timeout=10 -max_len=65536 -print_final_stats=0 $B/corpus-$1 \
        -artifact_prefix=$B/ 2>$B/$1.log || { tail -n 60 $B/$1.log; echo "fuzz: $1 FAILED"; return 1; }
    echo "fuzz: $1 for ${s}s: $(grep -E '^Done [0-9]+ runs' $B/$1.log | tail -n 1)"
}
if [ "$1" = --run ]; then fuzz_one "$2"; exit; fi
mkdir -p $B
FLAGS="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc"
LIBSRC=$(find src -name '*.c' -not -path 'src/cli/*')
clang++ -std=c++17 -g -O1 -fsanitize=address,undefined -Iinclude -Isrc -c src/io/json_simdjson.cpp -o $B/json_simdjson.o
objs=""
for f in $LIBSRC; do objs="$objs $B/$(echo "$f" | tr '/' '_' | sed 's/\.c$/.o/')"; done
# the library's objects, FUZZ_JOBS (default: the cores) at a time
CFLAGS_LIB=$(echo "$FLAGS" | sed 's/fuzzer,/fuzzer-no-link,/')
export CFLAGS_LIB B
printf '%s\n' $LIBSRC | xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh -c \
    'clang $CFLAGS_LIB -c "$1" -o "$B/$(echo "$1" | tr / _ | sed "s/\.c\$/.o/")"' sh
targets=""
: >$B/targets
build() { # name source extra-flags corpus-dirs
    case " ${FUZZ_ONLY:-$1} " in *" $1 "*) ;; *) return 0 ;; esac
    echo "$1 $2 ${3:--}" >>$B/targets
    rm -rf $B/corpus-$1 && mkdir -p $B/corpus-$1
    for c in $4; do cp tests/fuzz/corpus/$c/* $B/corpus-$1/ 2>/dev/null || true; done
    targets="$targets $1"
}
build fuzz_quantity tests/fuzz/fuzz_quantity.c "" quantity
build fuzz_ingest_json tests/fuzz/fuzz_ingest.c "" json
build fuzz_ingest_yaml tests/fuzz/fuzz_ingest.c "-DFUZZ_FORCE_YAML" "yaml json"
build fuzz_summary tests/fuzz/fuzz_summary.c "" summary
build fuzz_kubelet_config tests/fuzz/fuzz_kubelet_config.c "" kubeletconfig
build fuzz_sched_config tests/fuzz/fuzz_sched_config.c "" schedconfig
build fuzz_engines tests/fuzz/fuzz_engines.c "" engines
build fuzz_encode tests/fuzz/fuzz_encode.c "" "json yaml"
build fuzz_scenario tests/fuzz/fuzz_scenario.c "" scenario
build fuzz_cron tests/fuzz/fuzz_cron.c "" cron
build fuzz_sim tests/fuzz/fuzz_sim.c "" scenario
build fuzz_sweep tests/fuzz/fuzz_sweep.c "" sweep
build fuzz_trace tests/fuzz/fuzz_trace.c "" trace
build fuzz_convert tests/fuzz/fuzz_convert.c "" convert
build fuzz_simkube tests/fuzz/fuzz_simkube.c "" simkube
build fuzz_cel tests/fuzz/fuzz_cel.c "" cel
# the targets' objects and links, FUZZ_JOBS at a time (one after the other, they kept one core
# busy and the other idle)
export FLAGS objs
xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" -L 1 sh -c '
    x=$3; [ "$x" = - ] && x=
    clang $(echo "$FLAGS" | sed "s/fuzzer,/fuzzer-no-link,/") $x -c "$2" -o $B/$1.o &&
    clang++ -fsanitize=fuzzer,address,undefined $B/$1.o $objs $B/json_simdjson.o -o $B/$1 \
        -lsimdjson -lyaml -lmsgpackc -lm' sh <$B/targets
# each target for SECS seconds, FUZZ_JOBS (default: the cores) at a time
printf '%s\n' $targets | xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh tests/fuzz/run.sh --run
echo "fuzz: all targets clean"
