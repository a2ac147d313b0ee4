#!/bin/sh
# Writes the generated upstream-to-kprio table (scripts/mirror_table.sh) between the markers of
# docs/architecture.md; with --check, only compares and exits 1 when the file is stale.
# usage: sh scripts/update_mirror_table.sh [--check]
set -eu
doc=docs/architecture.md
tmp=${TMPDIR:-/tmp}/kprio-arch.$$
trap 'rm -f "$tmp" "$tmp.table"' EXIT
sh scripts/mirror_table.sh src docs/upstream-files.tsv > "$tmp.table"
awk -v table="$tmp.table" '
    /^<!-- BEGIN mirror-table/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
    /^<!-- END mirror-table/ { skip = 0 }
    !skip { print }' "$doc" > "$tmp"
if [ "${1:-}" = --check ]; then
    if ! cmp -s "$tmp" "$doc"; then
        echo "check-docs: $doc: the upstream-to-kprio table is stale: run make mirror-table" >&2
        exit 1
    fi
    exit 0
fi
cp "$tmp" "$doc"
