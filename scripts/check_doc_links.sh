#!/bin/sh
# Every relative link of README.md, CHANGELOG.md and docs/ (`[text](path)`, `[text](path#anchor)`,
# `[text](#anchor)`) names a file or directory that exists, read from the linking page's
# directory, and an anchor into a Markdown page names one of its headings (GitHub's slugs:
# lower case, punctuation dropped, blanks to `-`, `-1`, `-2` ... for repeated headings). A link
# to a page or a section that moved fails here rather than in a reader's browser. Absolute URLs
# are not checked.
# usage: sh scripts/check_doc_links.sh   (exit 1 and one line per broken link)
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-doc-links.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP
# slugs FILE: the anchors of FILE's headings, one a line (fenced code blocks skipped)
slugs() {
    awk '/^```/ { code = !code; next }
        !code && /^#+ / {
            s = $0; sub(/^#+ +/, "", s); s = tolower(s)
            gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
            if (s in seen) { seen[s]++; print s "-" seen[s] } else { seen[s] = 0; print s }
        }' "$1"
}
bad=0
for f in README.md CHANGELOG.md $(find docs -name '*.md' | sort); do
    d=$(dirname "$f")
    # one link target a line: the text between "](" and the next ")"
    grep -o '](\([^)[:space:]]*\))' "$f" | sed 's/^](//; s/)$//' | sort -u > "$tmp/links"
    while IFS= read -r t; do
        case $t in
        '' | http://* | https://* | mailto:*) continue ;;
        esac
        path=${t%%#*}
        anchor=""
        case $t in *'#'*) anchor=${t#*#} ;; esac
        if [ -z "$path" ]; then target=$f; else target=$d/$path; fi
        if [ ! -e "$target" ]; then
            echo "check-docs: $f: broken link $t" >&2; bad=1; continue
        fi
        case $target in *.md) ;; *) continue ;; esac
        [ -n "$anchor" ] || continue
        # each page's headings are read once
        key=$(printf '%s' "$target" | tr '/.' '__')
        [ -f "$tmp/$key" ] || slugs "$target" > "$tmp/$key"
        grep -qxF -- "$anchor" "$tmp/$key" ||
            { echo "check-docs: $f: link $t: no such heading in $target" >&2; bad=1; }
    done < "$tmp/links"
done
exit $bad
