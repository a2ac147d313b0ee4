/* `kprio sweep --html FILE` (render/render_sweep.h): one self-contained page, the report's head,
 * style and escaping (render_report_html.h), one inline SVG chart per figure and variable (the
 * figure's mean over the runs of each value, a bar from its p50 to its p95), then the runs. The
 * seeds are no axis: each point is over them. On the public API only. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "render/render_report_html.h"
#include "render/render_sweep.h"

#define W 440
#define H 200
#define ML 56
#define MR 16
#define MT 14
#define MB 44

static double ypos(double v, double max) {
    return H - MB - (max > 0 ? v * (H - MT - MB) / max : 0.0);
}

static double xpos(size_t k, size_t n) {
    return ML + (n > 1 ? (double)k * (W - ML - MR) / (double)(n - 1) : (W - ML - MR) / 2.0);
}

/* One chart: figure k against variable v. */
static void chart(FILE *f, const kp_sweep_result *r, size_t v, size_t k, int64_t *scratch) {
    const kp_sweep_var *var = &r->vars[v];
    double max = 0;
    for (size_t i = 0; i < var->n_values; i++) {
        kp__sweep_stat s;
        kp__sweep_stat_of(r, v, i, k, scratch, &s);
        if (s.n && (double)s.p95 > max) max = (double)s.p95;
        if (s.n && s.mean > max) max = s.mean;
    }
    if (max <= 0) max = 1;
    const char *fig = kp_sweep_figure_name(r->figures[k]);
    fprintf(f, "<figure class=\"chart\"><figcaption>");
    kp__html_esc(f, fig);
    fprintf(f, " by ");
    kp__html_esc(f, var->name);
    fprintf(f,
            "</figcaption><svg id=\"fig-%zu-var-%zu\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\">",
            k, v, W, H, W, H);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, H - MB, W - MR,
            H - MB);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, MT, ML,
            H - MB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.6g</text>", ML - 4, MT + 4, max);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", ML - 4, H - MB);
    double px = 0, py = 0;
    bool have_prev = false;
    for (size_t i = 0; i < var->n_values; i++) {
        kp__sweep_stat s;
        kp__sweep_stat_of(r, v, i, k, scratch, &s);
        double x = xpos(i, var->n_values);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x,
                H - MB + 16);
        kp__html_esc(f, var->values[i]);
        fputs("</text>", f);
        if (!s.n) {
            have_prev = false;
            continue;
        }
        double y = ypos(s.mean, max);
        fprintf(f,
                "<line class=\"spread\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#9ecae1\" stroke-width=\"6\"/>",
                x, ypos((double)s.p50, max), x, ypos((double)s.p95, max));
        if (have_prev)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\"/>",
                    px, py, x, y);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#1f77b4\"><title>", x, y);
        kp__html_esc(f, var->values[i]);
        fprintf(f, ": mean %.3f, p50 %" PRId64 ", p95 %" PRId64 " over %zu run(s)</title></circle>",
                s.mean, s.p50, s.p95, s.n);
        px = x, py = y, have_prev = true;
    }
    fprintf(f, "</svg></figure>\n");
}

static void runs_table(FILE *f, const kp_sweep_result *r) {
    fprintf(f, "<h2>Runs</h2>\n<table><thead><tr><th>run</th>");
    for (size_t v = 0; v < r->n_vars; v++) {
        fputs("<th>", f);
        kp__html_esc(f, r->vars[v].name);
        fputs("</th>", f);
    }
    for (size_t k = 0; k < r->n_figures; k++) {
        fputs("<th>", f);
        kp__html_esc(f, kp_sweep_figure_name(r->figures[k]));
        fputs("</th>", f);
    }
    fprintf(f, "<th>error</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        fprintf(f, "<tr><td>%zu</td>", row->run);
        for (size_t v = 0; v < r->n_vars; v++) {
            fputs("<td>", f);
            kp__html_esc(f, r->vars[v].values[kp__sweep_value_of(r, row->run, v)]);
            fputs("</td>", f);
        }
        for (size_t k = 0; k < r->n_figures; k++) {
            if (row->error) fputs("<td>-</td>", f);
            else fprintf(f, "<td>%" PRId64 "</td>", row->figures[k]);
        }
        fputs("<td>", f);
        kp__html_esc(f, row->error ? row->error : "");
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</tbody></table>\n");
}

kp_status kp_render_sweep_html(FILE *f, const kp_sweep_result *r) {
    int64_t *scratch = kp_malloc((r->n_rows ? r->n_rows : 1) * sizeof *scratch);
    if (!scratch) return KP_ENOMEM;
    char title[300];
    snprintf(title, sizeof title, "kprio sweep %s", r->sweep[0] ? r->sweep : "");
    kp__html_head(f, title, true);
    fprintf(f, "<h1>");
    kp__html_esc(f, title);
    size_t failed = 0;
    for (size_t i = 0; i < r->n_rows; i++) failed += r->rows[i].error != NULL;
    fprintf(f,
            "</h1>\n<p>%zu run(s), %zu failed. Each chart: a figure's mean over the runs of "
            "each value (the dots), and its p50 to p95 (the bar).</p>\n",
            r->n_rows, failed);
    bool any_axis = false;
    for (size_t v = 0; v < r->n_vars; v++) {
        if (r->vars[v].kind == KP_SWEEP_SEEDS) continue;
        any_axis = true;
        fprintf(f, "<h2>By ");
        kp__html_esc(f, r->vars[v].name);
        fprintf(f, " (%s)</h2>\n<div class=\"charts\">\n", kp_sweep_var_kind_name(r->vars[v].kind));
        for (size_t k = 0; k < r->n_figures; k++) chart(f, r, v, k, scratch);
        fprintf(f, "</div>\n");
    }
    if (!any_axis) fprintf(f, "<p>No variable but the seeds: nothing to plot against.</p>\n");
    runs_table(f, r);
    kp__html_tail(f);
    kp_free(scratch);
    return ferror(f) ? KP_EIO : KP_OK;
}
