#!/bin/sh
# The HTML report in a real browser (docs/simulate.md "HTML report"): `kprio simulate --report`
# of a golden scenario (a memory leak: pressure, evictions, replacements) opened in headless
# Chromium (Debian's `chromium`, installed by scripts/deps.sh). Checks: the page's own script
# ran to its end (it sets data-report-ready on <body> to the number of charts), no console
# error, the charts are there (svg ids), and a screenshot of the first screen is a PNG of the
# window's size that is not blank (more than 16 colours, counted by Chromium itself on a page
# that draws the PNG on a canvas: tests/html/png_check.js; no pixel comparison: fonts differ).
# The layout (tests/html/layout_check.js appended to a copy of each page, every section opened):
# nothing runs past the page's or its parent's right edge, no SVG text past its drawing (a
# clipped label). The headline of a drain's report counts its Eviction API evictions, legends
# name PriorityClasses, the comparison page has B - A for the percentiles and the two runs'
# charts side by side, a DRA run's report has its table of device classes.
# Skips, saying so, only when chromium is absent. Prints "ok NAME" / "html NAME: ..." lines and
# "HTML passed failed" last (tests/run.sh reads it).
B=$(cd "${1:-build}" && pwd)
CHROMIUM=${CHROMIUM:-chromium}
if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
    echo "html: SKIPPED: $CHROMIUM not found (sh scripts/deps.sh installs Debian's chromium)"
    echo "HTML 0 0"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/kprio-html.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { echo "ok $1"; pass=$((pass+1)); }
bad() { echo "html $1: $2"; fail=$((fail+1)); }
G=tests/golden/simulate-metrics-kubelet-evictions
if "$B/kprio" simulate -f $G/cluster.json --scenario $G/scenario.yaml --report "$T/report.html" \
    >/dev/null 2>"$T/err"; then ok report-written; else bad report-written "$(cat "$T/err")"; fi
# chromium's own profile and cache go to the temporary directory, never $HOME
run_chromium() {
    HOME="$T" timeout 60 "$CHROMIUM" --headless --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$T/profile" --disable-extensions --hide-scrollbars "$@"
}
run_chromium --enable-logging=stderr --v=0 --dump-dom "file://$T/report.html" \
    >"$T/dom.html" 2>"$T/console"
if grep -q 'data-report-ready="[1-9]' "$T/dom.html"; then ok script-ran
else bad script-ran "no data-report-ready on <body> (the inline script did not finish)"; fi
if grep -q 'Uncaught\|CONSOLE.*[Ee]rror\|Refused to' "$T/console"; then
    bad no-console-errors "$(grep 'Uncaught\|CONSOLE\|Refused to' "$T/console" | head -5)"
else ok no-console-errors; fi
for id in chart-pending chart-disruptions chart-pressure; do
    if grep -q "<svg id=\"$id\"" "$T/dom.html"; then ok "svg-$id"; else bad "svg-$id" missing; fi
done
# the heat map has the leaking nodes' MemoryPressure bands, the event log its rows
if grep -q 'class="p-mem"' "$T/dom.html"; then ok pressure-bands; else bad pressure-bands none; fi
if grep -q '<tr id="ev-0"' "$T/dom.html"; then ok event-log; else bad event-log "no rows"; fi
# layout_check PAGE NAME WIDTH: no overflow in a window WIDTH px wide
layout_check() {
    { sed 's#</body></html>##' "$1"; printf '<script>'; cat tests/html/layout_check.js
      printf '</script></body></html>\n'; } >"$T/layout.html"
    run_chromium --window-size="$3",900 --dump-dom "file://$T/layout.html" >"$T/ldom.html" \
        2>/dev/null
    if grep -q 'data-overflow="0"' "$T/ldom.html"; then ok "$2"
    else bad "$2" "$(sed -n 's/.*data-overflow-what="\([^"]*\)".*/\1/p' "$T/ldom.html" |
        head -c 600)"; fi
}
layout_check "$T/report.html" layout-report 1000
# a drain through the Eviction API: the headline's card and the chart's legend count it
D=tests/golden/simulate-drain-pool
if "$B/kprio" simulate -f $D/cluster.yaml --scenario $D/scenario.yaml --report "$T/drain.html" \
    >/dev/null 2>"$T/err"; then ok drain-written; else bad drain-written "$(cat "$T/err")"; fi
run_chromium --dump-dom "file://$T/drain.html" >"$T/ddom.html" 2>/dev/null
if grep -q 'data-cause="evictionAPI"><b>3</b>' "$T/ddom.html" &&
    grep -q 'Eviction API (drain): 3</span>' "$T/ddom.html" &&
    grep -q '<rect data-cause="evictionAPI"' "$T/ddom.html"; then ok headline-drain-evictions
else bad headline-drain-evictions "no 3 Eviction API evictions in the cards, legend or bars"; fi
layout_check "$T/drain.html" layout-drain 1000
# devices: the per-class table (a row per device class, its findings linked) fits the page
V=tests/golden/simulate-dra-findings
if "$B/kprio" simulate -f $V/cluster.yaml --scenario $V/scenario.yaml --report "$T/dra.html" \
    >/dev/null 2>"$T/err"; then ok dra-written; else bad dra-written "$(cat "$T/err")"; fi
layout_check "$T/dra.html" layout-devices 1000
if grep -q '<table id="device-classes">' "$T/ldom.html" &&
    grep -q '<td>gpu.example.com</td>.*<a href="#finding-[0-9]*">Wait</a>' "$T/ldom.html"; then
    ok devices-table
else bad devices-table "no device class row linking its Wait finding"; fi
run_chromium --window-size=1000,800 --screenshot="$T/first.png" "file://$T/report.html" \
    >/dev/null 2>&1
if [ ! -s "$T/first.png" ]; then
    bad screenshot "no PNG written"
else
    { printf '<!DOCTYPE html><html><body><img id="shot" src="data:image/png;base64,'
      base64 -w0 "$T/first.png"
      printf '"><script>'; cat tests/html/png_check.js; printf '</script></body></html>\n'
    } >"$T/check.html"
    png=$(run_chromium --dump-dom "file://$T/check.html" 2>/dev/null |
        sed -n 's/.*data-png="\([0-9]*x[0-9]*\) \([0-9]*\)".*/\1 \2/p')
    size=${png% *}; colours=${png#* }
    if [ "$size" != 1000x800 ]; then bad screenshot "size '$size', expected 1000x800"
    elif [ "${colours:-0}" -le 16 ]; then bad screenshot "blank: ${colours:-0} colours"
    else ok "screenshot ($size, $colours colours)"; fi
fi
# the what-if page (--compare ... --report): two runs side by side, the same checks of loading
C=tests/golden/simulate-compare-scenarios
if "$B/kprio" simulate -f $C/cluster.json --compare $C/a.yaml $C/b.yaml \
    --report "$T/compare.html" >"$T/compare.txt" 2>"$T/err" && [ -s "$T/compare.txt" ]; then
    ok compare-written
else bad compare-written "$(cat "$T/err")"; fi
run_chromium --enable-logging=stderr --v=0 --dump-dom "file://$T/compare.html" \
    >"$T/cdom.html" 2>"$T/cconsole"
if grep -q 'data-report-ready="' "$T/cdom.html" && grep -q '<table id="compare"' "$T/cdom.html" &&
    grep -q '<table id="pods"' "$T/cdom.html" && grep -q 'a.yaml' "$T/cdom.html" &&
    grep -q 'b.yaml' "$T/cdom.html"; then ok compare-page
else bad compare-page "script, tables #compare / #pods or run titles missing"; fi
# B - A for the percentiles, the two runs' charts side by side, classes named in their legends
if grep -q '<td>pending time p50</td><td class="num">[^<]*</td><td class="num">[^<]*</td><td class="num[^"]*">[-+=]' "$T/cdom.html" &&
    grep -q '<svg id="chart-pending-a"' "$T/cdom.html" && grep -q '<svg id="chart-pending-b"' "$T/cdom.html" &&
    grep -q '<svg id="chart-disruptions-b"' "$T/cdom.html" &&
    grep -q 'id="chart-pending-a-legend"><span class="key"><i style="background:#[0-9a-f]*"></i>urgent (1000)' "$T/cdom.html"; then
    ok compare-deltas-charts
else bad compare-deltas-charts "no B - A for p50, no charts side by side or no class names"; fi
layout_check "$T/compare.html" layout-compare 1400
if grep -q 'Uncaught\|CONSOLE.*[Ee]rror\|Refused to' "$T/cconsole"; then
    bad compare-no-console-errors "$(grep 'Uncaught\|CONSOLE\|Refused to' "$T/cconsole" | head -5)"
else ok compare-no-console-errors; fi
echo "HTML $pass $fail"
