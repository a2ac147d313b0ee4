#!/bin/sh
# Obfuscation keeps every decision: each golden case of tests/golden whose command is schedule,
# why, inspect, evict or admit (and which exits 0) runs again on its inputs passed through
# `kprio obfuscate`, and its output must be the original's with the names mapped (the tokens
# of the output that `kprio obfuscate --show-map` lists).
#     sh tests/plugin/obfuscate_goldens.sh BUILD_DIR    "ok CASE" / "obfuscate CASE: ..." lines,
#                                                       then "OBFUSCATE PASSED FAILED"
# Cases run TEST_JOBS (default: the cores) at a time, each in a directory of its own
# (`BUILD_DIR --one W CASE_DIR` writes W/res-CASE), reported in name order.
B=$(cd "${1:-build}" && pwd)
R=$(cd "$(dirname "$0")/../.." && pwd)
K=$B/kprio
export KPRIO_OBFUSCATE_KEY=golden-key
rename() {
    awk 'NR == FNR { m[$1] = $2; next } {
        out = ""; s = $0
        while (match(s, /[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?/)) {
            t = substr(s, RSTART, RLENGTH)
            i = index(t, "/")
            if (t in m) r = m[t]
            else if (i && index(substr(t, 1, i), ".")) r = t # a label or taint key: kept
            else if (i) {
                a = substr(t, 1, i - 1); b = substr(t, i + 1)
                r = ((a in m) ? m[a] : a) "/" ((b in m) ? m[b] : b)
            } else r = (t in m) ? m[t] : t
            out = out substr(s, 1, RSTART - 1) r
            s = substr(s, RSTART + RLENGTH)
        }
        print out s }' "$1" -
}
if [ "$2" = --one ]; then
    W=$3; d=$4
    c=$(basename "$d")
    X=$W/case-$c
    trap 'rm -rf "$X"' EXIT
    mkdir -p "$X"
    [ -f "$d/args" ] || exit 0
    [ -f "$d/expected_rc" ] && [ "$(cat "$d/expected_rc")" != 0 ] && exit 0
    args=$(cat "$d/args")
    case $args in schedule\ *|why\ *|inspect\ *|evict\ *|admit\ *) ;; *) exit 0 ;; esac
    # (--expand-*: the pods made from templates are named from the template's name, hashed,
    # and a suffix derived from the whole name: the same decisions, names that do not map)
    case $args in *--help*|*" - "*|*"-f -"*|*"<"*|*"|"*|*--expand*) exit 0 ;; esac
    rm -rf "$X/o" "$X/c"
    cp -R "$d" "$X/c"
    mkdir -p "$X/o"
    (cd "$X/c" && find . -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' \)) |
        while read -r f; do
            mkdir -p "$X/o/$(dirname "$f")"
            o=$f
            case $f in # a snapshot's kubelet/NODE-summary.json: NODE is hashed as well
            */kubelet/*-summary.json | */kubelet/*-configz.json)
                b=${f##*/}; n=${b%-*.json}
                o=${f%/*}/$("$K" obfuscate --map "$n")-${b##*-} ;;
            esac
            "$K" obfuscate -f "$X/c/$f" >"$X/o/$o" 2>"$X/err" || echo "$f" >>"$X/o/.failed"
        done
    if [ -f "$X/o/.failed" ]; then
        echo "obfuscate $c: kprio obfuscate failed on $(cat "$X/o/.failed"): $(cat "$X/err")" >"$W/res-$c"
        exit 0
    fi
    (cd "$X/c" && eval "\"$K\" $args") >"$X/orig" 2>/dev/null
    # the mapping of every string hashed in the inputs (kprio obfuscate --show-map); a PDB's
    # name is mapped without its rank, as the run's output is read below
    (cd "$X/c" && find . -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' \) \
        -exec "$K" obfuscate --show-map -f {} \;) 2>/dev/null | sort -u | tee "$X/map.all" |
        awk -F '\t' '{ v = $2; sub(/^xp[0-9][0-9][0-9][0-9][0-9]-/, "", v); print $1, v }' >"$X/map"
    # a name that is also a word of kprio's messages cannot be told apart: skipped
    grep -qE '^(a|gated|pending|critical|node|nodes|pod|pods)	' "$X/map.all" && exit 0
    rename "$X/map" <"$X/orig" >"$X/want"
    oargs=$(printf '%s\n' "$args" | rename "$X/map")
    # (a PDB's name is its hash behind its rank in name order, "xp00001-": the rank dropped)
    (cd "$X/o" && eval "\"$K\" $oargs") 2>"$X/err" | sed 's/xp[0-9][0-9][0-9][0-9][0-9]-x/x/g' >"$X/got"
    # table columns are as wide as the names: compare with runs of blanks squeezed; inspect
    # lists nodes by name, so its lines are compared sorted (and the first of several nodes by
    # name, "2 (node-a, ...)", is another node once hashed: left out)
    for f in want got; do
        case $args in inspect*) tr -s ' ' <"$X/$f" | sed -E 's/\([^ (),]+, \.\.\.\)/(...)/' | sort ;; *) tr -s ' ' <"$X/$f" ;; esac >"$X/$f.n"
        mv "$X/$f.n" "$X/$f"
    done
    if diff -u "$X/want" "$X/got" >"$X/diff"; then
        echo "ok $c" >"$W/res-$c"
    else
        { echo "obfuscate $c: the answer on the obfuscated inputs differs (names mapped)"
            head -20 "$X/diff"; head -3 "$X/err"; } >"$W/res-$c"
    fi
    exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-obf-goldens.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
for d in "$R"/tests/golden/*/; do printf '%s\n' "$d"; done |
    xargs -P "${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh "$0" "$B" --one "$W"
pass=0 fail=0
for d in "$R"/tests/golden/*/; do
    r=$W/res-$(basename "$d")
    [ -f "$r" ] || continue
    if head -n 1 "$r" | grep -q '^ok '; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    cat "$r"
done
echo "OBFUSCATE $pass $fail"
