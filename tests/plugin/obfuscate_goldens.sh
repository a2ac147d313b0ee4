#!/bin/sh
# Obfuscation keeps every decision: each golden case of tests/golden whose command is schedule,
# why, inspect, evict or admit (and which exits 0) runs again on its inputs passed through
# `kprio obfuscate`, and its output must be the original's with the names mapped (the tokens
# of the output that `kprio obfuscate --show-map` lists).
#     sh tests/plugin/obfuscate_goldens.sh BUILD_DIR    "ok CASE" / "obfuscate CASE: ..." lines,
#                                                       then "OBFUSCATE PASSED FAILED"
B=$(cd "${1:-build}" && pwd)
R=$(cd "$(dirname "$0")/../.." && pwd)
K=$B/kprio
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-obf-goldens.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
export KPRIO_OBFUSCATE_KEY=golden-key
pass=0 fail=0
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
for d in "$R"/tests/golden/*/; do
    c=$(basename "$d")
    [ -f "$d/args" ] || continue
    [ -f "$d/expected_rc" ] && [ "$(cat "$d/expected_rc")" != 0 ] && continue
    args=$(cat "$d/args")
    case $args in schedule\ *|why\ *|inspect\ *|evict\ *|admit\ *) ;; *) continue ;; esac
    # (--expand-*: the pods made from templates are named from the template's name, hashed,
    # and a suffix derived from the whole name: the same decisions, names that do not map)
    case $args in *--help*|*" - "*|*"-f -"*|*"<"*|*"|"*|*--expand*) continue ;; esac
    rm -rf "$W/o" "$W/c"
    cp -R "$d" "$W/c"
    mkdir -p "$W/o"
    (cd "$W/c" && find . -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' \)) |
        while read -r f; do
            mkdir -p "$W/o/$(dirname "$f")"
            o=$f
            case $f in # a snapshot's kubelet/NODE-summary.json: NODE is hashed as well
            */kubelet/*-summary.json | */kubelet/*-configz.json)
                b=${f##*/}; n=${b%-*.json}
                o=${f%/*}/$("$K" obfuscate --map "$n")-${b##*-} ;;
            esac
            "$K" obfuscate -f "$W/c/$f" >"$W/o/$o" 2>"$W/err" || echo "$f" >>"$W/o/.failed"
        done
    if [ -f "$W/o/.failed" ]; then
        echo "obfuscate $c: kprio obfuscate failed on $(cat "$W/o/.failed"): $(cat "$W/err")"
        fail=$((fail + 1)); continue
    fi
    (cd "$W/c" && eval "\"$K\" $args") >"$W/orig" 2>/dev/null
    # the mapping of every string hashed in the inputs (kprio obfuscate --show-map); a PDB's
    # name is mapped without its rank, as the run's output is read below
    (cd "$W/c" && find . -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' \) \
        -exec "$K" obfuscate --show-map -f {} \;) 2>/dev/null | sort -u | tee "$W/map.all" |
        awk -F '\t' '{ v = $2; sub(/^xp[0-9][0-9][0-9][0-9][0-9]-/, "", v); print $1, v }' >"$W/map"
    # a name that is also a word of kprio's messages cannot be told apart: skipped
    grep -qE '^(a|gated|pending|critical|node|nodes|pod|pods)	' "$W/map.all" && continue
    rename "$W/map" <"$W/orig" >"$W/want"
    oargs=$(printf '%s\n' "$args" | rename "$W/map")
    # (a PDB's name is its hash behind its rank in name order, "xp00001-": the rank dropped)
    (cd "$W/o" && eval "\"$K\" $oargs") 2>"$W/err" | sed 's/xp[0-9][0-9][0-9][0-9][0-9]-x/x/g' >"$W/got"
    # table columns are as wide as the names: compare with runs of blanks squeezed; inspect
    # lists nodes by name, so its lines are compared sorted (and the first of several nodes by
    # name, "2 (node-a, ...)", is another node once hashed: left out)
    for f in want got; do
        case $args in inspect*) tr -s ' ' <"$W/$f" | sed -E 's/\([^ (),]+, \.\.\.\)/(...)/' | sort ;; *) tr -s ' ' <"$W/$f" ;; esac >"$W/$f.n"
        mv "$W/$f.n" "$W/$f"
    done
    if diff -u "$W/want" "$W/got" >"$W/diff"; then
        echo "ok $c"; pass=$((pass + 1))
    else
        echo "obfuscate $c: the answer on the obfuscated inputs differs (names mapped)"
        head -20 "$W/diff"; head -3 "$W/err"; fail=$((fail + 1))
    fi
done
echo "OBFUSCATE $pass $fail"
