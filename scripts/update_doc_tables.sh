#!/bin/sh
# Writes the generated tables of docs/internals/architecture.md between their markers: the "What lives
# where" table (scripts/where_table.sh, markers `where-table`) and the upstream-to-kprio table
# (scripts/mirror_table.sh, markers `mirror-table`). With --check, only compares and exits 1 when
# the file is stale. Without a table name, both.
# usage: sh scripts/update_doc_tables.sh [--check] [where|mirror]...
set -eu
cd "$(dirname "$0")/.."
doc=docs/internals/architecture.md
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
tables=${*:-"where mirror"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-doc-tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP
cp "$doc" "$tmp/doc"
stale=""
for t in $tables; do
    case $t in
    where) sh scripts/where_table.sh . > "$tmp/table" ;;
    mirror) sh scripts/mirror_table.sh src docs/internals/upstream-files.tsv > "$tmp/table" ;;
    *) echo "update_doc_tables: unknown table $t (where, mirror)" >&2; exit 2 ;;
    esac
    grep -q "^<!-- BEGIN $t-table" "$tmp/doc" || { echo "update_doc_tables: $doc has no $t-table markers" >&2; exit 2; }
    awk -v table="$tmp/table" -v name="$t-table" '
        index($0, "<!-- BEGIN " name) == 1 { print; while ((getline l < table) > 0) print l; skip = 1; next }
        index($0, "<!-- END " name) == 1 { skip = 0 }
        !skip { print }' "$tmp/doc" > "$tmp/new"
    cmp -s "$tmp/new" "$tmp/doc" || stale="$stale $t-table"
    mv "$tmp/new" "$tmp/doc"
done
if [ $check = 1 ]; then
    if [ -n "$stale" ]; then
        echo "check-docs: $doc is stale:$stale (run make where-table mirror-table)" >&2
        exit 1
    fi
    exit 0
fi
cp "$tmp/doc" "$doc"
