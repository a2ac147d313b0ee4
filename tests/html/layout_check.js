// The layout check (tests/html/run.sh appends this script to a copy of a report): every
// collapsed section opened, then no element may run past the page's right edge (no horizontal
// scroll), no HTML element past its parent's box, and no SVG text past its drawing's viewBox
// (a clipped axis label or legend). <body> gets data-overflow="N" (how many offenders) and
// data-overflow-what (the first few, "tag#id.class: why"), which --dump-dom shows.
(function () {
    var bad = [];
    function name(e) {
        return e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
            (e.getAttribute("class") ? "." + e.getAttribute("class").split(" ")[0] : "") +
            " '" + (e.textContent || "").slice(0, 30) + "'";
    }
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    var root = document.documentElement;
    if (root.scrollWidth > window.innerWidth + 1)
        bad.push("page: " + root.scrollWidth + "px wide in a " + window.innerWidth + "px window");
    document.body.querySelectorAll("*").forEach(function (e) {
        if (e.closest("svg")) return;
        var p = e.parentElement, r = e.getBoundingClientRect();
        if (!p || r.width === 0) return;
        var pr = p.getBoundingClientRect();
        if (r.right > pr.right + 1 && getComputedStyle(p).overflowX === "visible")
            bad.push(name(e) + ": right " + Math.round(r.right) + " > parent " + Math.round(pr.right));
    });
    document.querySelectorAll("svg").forEach(function (s) {
        var vb = s.viewBox && s.viewBox.baseVal;
        if (!vb || !vb.width) return;
        s.querySelectorAll("text").forEach(function (t) {
            var b = t.getBBox();
            if (b.width && (b.x < vb.x - 0.5 || b.x + b.width > vb.x + vb.width + 0.5))
                bad.push((s.id || "svg") + " text '" + t.textContent.slice(0, 30) + "': x " +
                    Math.round(b.x) + ".." + Math.round(b.x + b.width) + " of " + vb.width);
        });
    });
    document.body.setAttribute("data-overflow", String(bad.length));
    document.body.setAttribute("data-overflow-what", bad.slice(0, 5).join(" | "));
})();
