#!/bin/sh
# Every relative link of README.md and docs/ (`[text](path)`, `[text](path#anchor)`) names a file
# or directory that exists, read from the linking page's directory; a link to a page that moved
# fails here rather than in a reader's browser. Anchors and absolute URLs are not checked.
# usage: sh scripts/check_doc_links.sh   (exit 1 and one line per broken link)
cd "$(dirname "$0")/.." || exit 2
bad=0
for f in README.md CHANGELOG.md $(find docs -name '*.md' | sort); do
    d=$(dirname "$f")
    # one link target per line: the text between "](" and the next ")" or "#"
    for t in $(grep -o '](\([^)#[:space:]]*\)[)#]' "$f" | sed 's/^](//; s/[)#]$//'); do
        case $t in
        '' | http://* | https://* | mailto:*) continue ;;
        esac
        if [ ! -e "$d/$t" ]; then
            echo "check-docs: $f: broken link $t" >&2
            bad=1
        fi
    done
done
exit $bad
