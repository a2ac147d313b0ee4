#!/bin/sh
# Regenerates the seed corpus of fuzz_engines (tests/fuzz/corpus/engines/) from the golden cases:
# per case, the snapshot files its command line names with -f / --pod (directories: the files
# in them), joined into one multi-document YAML stream (JSON documents are YAML too), named
# golden-CASE.yaml (inputs that fail to load included: the error paths run first), one seed per
# distinct stream; then the inputs of issue 17's items (i17-*) from the ingest corpora. Other
# seeds (the engines' own i17-* inputs, regress-* reproducers of fixed findings) are kept.
# Run from the repository root:
# sh tests/fuzz/seed_engines.sh
set -eu
out=tests/fuzz/corpus/engines
mkdir -p $out
rm -f $out/golden-*
tmp=${TMPDIR:-/tmp}/kp-seed.$$
trap 'rm -f "$tmp"' EXIT INT TERM
for d in tests/golden/*/; do
    c=$(basename "$d")
    [ -f "$d/args" ] || continue
    files=$(awk '{ for (i = 1; i < NF; i++) if ($i == "-f" || $i == "--pod") print $(i+1) }' \
        "$d/args" | tr -d "'\"")
    [ -n "$files" ] || continue
    : > "$tmp"
    for f in $files; do
        p="$d/$f"
        if [ -d "$p" ]; then
            set -- $(find "$p" -type f \( -name '*.json' -o -name '*.y*ml' \) | LC_ALL=C sort)
        elif [ -f "$p" ]; then set -- "$p"
        else continue; fi
        for x in "$@"; do
            { printf -- '---\n'; cat "$x"; printf '\n'; } >> "$tmp"
        done
    done
    [ -s "$tmp" ] || continue
    [ "$(wc -c < "$tmp")" -le 65536 ] || continue
    # one seed per distinct input
    sum=$(cksum < "$tmp" | cut -d' ' -f1)
    grep -qlx "$sum" $out/.sums 2>/dev/null && continue
    echo "$sum" >> $out/.sums
    cp "$tmp" "$out/golden-$c.yaml"
done
rm -f $out/.sums
for f in tests/fuzz/corpus/json/i17-* tests/fuzz/corpus/yaml/i17-*; do
    [ -f "$f" ] && cp "$f" $out/
done
echo "seed_engines: $(ls $out | wc -l) seeds in $out"
