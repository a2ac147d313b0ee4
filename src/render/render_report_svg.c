/* The HTML report's charts as inline SVG (docs/simulate.md "HTML report"): pending pods by
 * priority over time, running pods disrupted per interval by cause, per-node pressure as a heat
 * map of node x time, and a cascade's tree. Legends are HTML under the chart (they wrap instead
 * of running off the drawing). On the public API only. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

#define H 220
#define ML 56 /* margins: left, right, top, bottom */
#define MR 16
#define MT 14
#define MB 30

static const char *const PALETTE[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define N_PALETTE (sizeof PALETTE / sizeof PALETTE[0])

/* one colour per cause, the same on every page (kp_sim_disruption order) */
static const char *const CAUSE_COLOR[KP_SIM_N_DISRUPT] = {"#d62728", "#ff7f0e", "#9467bd",
                                                          "#1f77b4", "#8c564b", "#7f7f7f"};

const char *kp__html_cause_color(kp_sim_disruption d) {
    return (unsigned)d < KP_SIM_N_DISRUPT ? CAUSE_COLOR[d] : "#999";
}

static int width_of(const kp__chart_opts *o) { return o && o->width > 0 ? o->width : 900; }

static double xpos(int w, int64_t t, int64_t end) {
    return ML + (end > 0 ? (double)t * (w - ML - MR) / (double)end : 0.0);
}

static double ypos(int64_t v, int64_t max) {
    return H - MB - (max > 0 ? (double)v * (H - MT - MB) / (double)max : 0.0);
}

/* time ticks at quarters under a plot from x0 to x1; the first label starts at its tick and the
 * last ends at its tick, so none runs past the drawing's edges */
static void time_ticks(FILE *f, double x0, double x1, int y, int64_t end) {
    for (int q = 0; q <= 4; q++) {
        char tb[40];
        kp__html_vtime(end * q / 4, tb, sizeof tb);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>",
                x0 + (x1 - x0) * q / 4, y,
                q == 0   ? "start"
                : q == 4 ? "end"
                         : "middle",
                tb);
    }
}

/* the frame: axes, the y maximum, time ticks at quarters */
static void frame(FILE *f, int w, int64_t end, int64_t ymax, const char *ylabel) {
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, H - MB, w - MR,
            H - MB);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, MT, ML,
            H - MB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>", ML - 4, MT + 4,
            ymax);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", ML - 4, H - MB);
    fprintf(f, "<text x=\"4\" y=\"%d\">", MT + 20);
    kp__html_esc(f, ylabel);
    fputs("</text>", f);
    time_ticks(f, ML, w - MR, H - MB + 16, end);
}

int64_t kp__html_metrics_end(const kp_metrics *m) {
    size_t nt = kp_metrics_time_count(m);
    int64_t end = nt ? kp_metrics_times(m)[nt - 1] : 0;
    return end > 0 ? end : 1;
}

static int64_t end_of(const kp_metrics *m, const kp__chart_opts *o) {
    return o && o->end_ms > 0 ? o->end_ms : kp__html_metrics_end(m);
}

int64_t kp__html_pending_max(const kp_metrics *m) {
    int64_t max = 1;
    size_t nt = kp_metrics_time_count(m);
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pending_pods") != 0) continue;
        for (size_t k = 0; k < nt; k++)
            if (s->values[k] > max) max = s->values[k];
    }
    return max;
}

/* "NAME (VALUE)": the PriorityClasses of the run's pods of that priority ("a, b (VALUE)" when
 * several share it, "no PriorityClass (0)" for pods naming none) */
void kp__html_priority_name(FILE *f, const kp_sim *sim, const char *value) {
    const kp_cluster *cl = sim ? kp_sim_cluster(sim) : NULL;
    const char *names[3] = {NULL, NULL, NULL};
    size_t n = 0;
    bool more = false;
    long v = strtol(value, NULL, 10);
    for (size_t i = 0; cl && i < kp_sim_pod_count(sim) && !more; i++) {
        kp_pod_info pi;
        if (kp_cluster_pod_info(cl, kp_sim_pod_get(sim, i)->pod, &pi) != KP_OK || pi.priority != v)
            continue;
        size_t k = 0;
        while (k < n && strcmp(names[k], pi.priority_class) != 0) k++;
        if (k < n) continue;
        if (n == 3) more = true;
        else names[n++] = pi.priority_class;
    }
    for (size_t k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        kp__html_esc(f, *names[k] ? names[k] : "no PriorityClass");
    }
    if (more) fputs(", ...", f);
    if (!n) fputs("priority", f);
    fputs(" (", f);
    kp__html_esc(f, value);
    fputc(')', f);
}

static void legend_item(FILE *f, const char *color) {
    fprintf(f, "<span class=\"key\"><i style=\"background:%s\"></i>", color);
}

void kp__html_chart_pending(FILE *f, const kp_sim *sim, const kp_metrics *m, const char *id,
                            const kp__chart_opts *o) {
    size_t nt = kp_metrics_time_count(m);
    int w = width_of(o);
    int64_t end = end_of(m, o), max = o && o->ymax > 0 ? o->ymax : kp__html_pending_max(m);
    const int64_t *t = kp_metrics_times(m);
    fprintf(f,
            "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\"><title>Pending pods by priority</title>",
            id, w, H, w, H);
    frame(f, w, end, max, "pods");
    size_t color = 0;
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pending_pods") != 0) continue;
        fputs("<polyline class=\"series\" data-priority=\"", f);
        kp__html_esc(f, s->label_value);
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" points=\"", PALETTE[color++ % N_PALETTE]);
        for (size_t k = 0; k < nt; k++) { /* steps: the value holds until the next sample */
            if (k && s->values[k] == s->values[k - 1]) { /* a flat stretch: its last point */
                if (k + 1 < nt && s->values[k + 1] == s->values[k]) continue;
                fprintf(f, "%.1f,%.1f ", xpos(w, t[k], end), ypos(s->values[k], max));
                continue;
            }
            if (k) fprintf(f, "%.1f,%.1f ", xpos(w, t[k], end), ypos(s->values[k - 1], max));
            fprintf(f, "%.1f,%.1f ", xpos(w, t[k], end), ypos(s->values[k], max));
        }
        fputs("\"><title>", f);
        kp__html_priority_name(f, sim, s->label_value);
        fputs("</title></polyline>", f);
    }
    if (!color)
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no pod was pending</text>",
                w / 2, H / 2);
    fprintf(f, "</svg>\n<div class=\"legend\" id=\"%s-legend\">", id);
    color = 0;
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pending_pods") != 0) continue;
        legend_item(f, PALETTE[color++ % N_PALETTE]);
        kp__html_priority_name(f, sim, s->label_value);
        fputs("</span>", f);
    }
    fputs("</div>\n", f);
}

/* the disruption series of m by cause (NULL: none of that cause) */
static void cause_series(const kp_metrics *m, const int64_t *by[KP_SIM_N_DISRUPT]) {
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) by[d] = NULL;
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pod_disruptions_total") != 0) continue;
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++)
            if (strcmp(s->label_value, kp_sim_disruption_name((kp_sim_disruption)d)) == 0)
                by[d] = s->values;
    }
}

/* per-interval increments of a cumulative series */
static int64_t delta(const int64_t *v, size_t k) { return v[k] - (k ? v[k - 1] : 0); }

int64_t kp__html_disruptions_max(const kp_metrics *m) {
    const int64_t *by[KP_SIM_N_DISRUPT];
    cause_series(m, by);
    int64_t max = 1;
    for (size_t k = 0; k < kp_metrics_time_count(m); k++) {
        int64_t sum = 0;
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++) sum += by[d] ? delta(by[d], k) : 0;
        if (sum > max) max = sum;
    }
    return max;
}

/* running pods disrupted per sample interval, stacked by cause (kprio_pod_disruptions_total) */
void kp__html_chart_disruptions(FILE *f, const kp_metrics *m, const char *id,
                                const kp__chart_opts *o) {
    size_t nt = kp_metrics_time_count(m);
    int w = width_of(o);
    int64_t end = end_of(m, o), max = o && o->ymax > 0 ? o->ymax : kp__html_disruptions_max(m);
    const int64_t *t = kp_metrics_times(m);
    const int64_t *by[KP_SIM_N_DISRUPT];
    cause_series(m, by);
    fprintf(f,
            "<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\"><title>Running pods disrupted per interval, by cause</title>",
            id, w, H, w, H);
    frame(f, w, end, max, "pods");
    int64_t step = kp_metrics_step(m) > 0 ? kp_metrics_step(m) : 10000;
    double bw = (double)step * (w - ML - MR) / (double)end * 0.8;
    if (bw < 1) bw = 1;
    bool any = false;
    for (size_t k = 0; k < nt; k++) {
        int64_t sum = 0;
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++) sum += by[d] ? delta(by[d], k) : 0;
        if (sum <= 0) continue;
        any = true;
        char tb[40];
        kp__html_vtime(t[k], tb, sizeof tb);
        double x = xpos(w, t[k], end) - bw; /* the interval up to t[k], inside the plot */
        if (x < ML) x = ML;
        fprintf(f, "<g class=\"bar\"><title>up to %s:", tb);
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++)
            if (by[d] && delta(by[d], k) > 0)
                fprintf(f, " %" PRId64 " %s;", delta(by[d], k),
                        kp_sim_disruption_title((kp_sim_disruption)d));
        fputs("</title>", f);
        int64_t below = 0;
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++) {
            int64_t v = by[d] ? delta(by[d], k) : 0;
            if (v <= 0) continue;
            fprintf(f,
                    "<rect data-cause=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"%s\"/>",
                    kp_sim_disruption_name((kp_sim_disruption)d), x, ypos(below + v, max), bw,
                    ypos(below, max) - ypos(below + v, max), CAUSE_COLOR[d]);
            below += v;
        }
        fputs("</g>", f);
    }
    if (!any)
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no running pod was disrupted"
                "</text>",
                w / 2, H / 2);
    fprintf(f, "</svg>\n<div class=\"legend\" id=\"%s-legend\">", id);
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) {
        if (!by[d]) continue;
        legend_item(f, CAUSE_COLOR[d]);
        fprintf(f, "%s: %" PRId64 "</span>", kp_sim_disruption_title((kp_sim_disruption)d),
                nt ? by[d][nt - 1] : 0);
    }
    fputs("</div>\n", f);
}

/* ---------------------------------------------------------------- pressure heat map */

static const struct {
    const char *on, *off, *color, *name;
} COND[3] = {
    {"NodeHasInsufficientMemory", "NodeHasSufficientMemory", "#d62728", "MemoryPressure"},
    {"NodeHasDiskPressure", "NodeHasNoDiskPressure", "#ff7f0e", "DiskPressure"},
    {"NodeHasInsufficientPID", "NodeHasSufficientPID", "#9467bd", "PIDPressure"},
};

static int cond_of(const char *reason, bool *on) {
    for (int c = 0; c < 3; c++) {
        if (strcmp(reason, COND[c].on) == 0) return *on = true, c;
        if (strcmp(reason, COND[c].off) == 0) return *on = false, c;
    }
    return -1;
}

#define ROW_H 18
#define NAME_W 120 /* the node names' column */
#define NAME_CHARS 18 /* longer names are cut (the full name is the row's title) */
#define PW 900

static void band(FILE *f, const kp_cluster *cl, kp_index node, int32_t row, int c, int64_t t0,
                 int64_t t1, int64_t end) {
    double span = PW - NAME_W - MR;
    char a[40], b[40];
    kp__html_vtime(t0, a, sizeof a);
    kp__html_vtime(t1, b, sizeof b);
    fprintf(f,
            "<rect class=\"p-%s\" fill=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
            "height=\"5\"><title>",
            c == 0   ? "mem"
            : c == 1 ? "disk"
                     : "pid",
            COND[c].color, NAME_W + (double)t0 * span / (double)end, MT + row * ROW_H + 2 + c * 5,
            (double)(t1 - t0) * span / (double)end + 1);
    kp__html_esc(f, kp_cluster_node_name(cl, node));
    fprintf(f, ": %s %s..%s</title></rect>", COND[c].name, a, b);
}

static void node_label(FILE *f, const char *name, int y) {
    fprintf(f, "<text class=\"node\" x=\"4\" y=\"%d\"><title>", y);
    kp__html_esc(f, name);
    fputs("</title>", f);
    size_t len = strlen(name);
    if (len <= NAME_CHARS) {
        kp__html_esc(f, name);
    } else { /* the start and the end, which tell nodes of a pool apart */
        char cut[NAME_CHARS + 1];
        memcpy(cut, name, NAME_CHARS / 2 - 1);
        cut[NAME_CHARS / 2 - 1] = 0;
        kp__html_esc(f, cut);
        fputs("\xe2\x80\xa6", f); /* U+2026 */
        kp__html_esc(f, name + len - (NAME_CHARS / 2 - 1));
    }
    fputs("</text>", f);
}

/* One row per node that reported a pressure condition (the first max_rows in order of their
 * first report), a band per stretch under it (from its NodeHas*Pressure event to its
 * NodeHasSufficient* / NodeHasNo* event, or the end). */
kp_status kp__html_chart_pressure(FILE *f, const kp_sim *sim, size_t max_rows) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t nn = kp_cluster_node_count(cl), ne = kp_sim_event_count(sim);
    int64_t end = kp_sim_now(sim) > 0 ? kp_sim_now(sim) : 1;
    int32_t *row = kp_calloc(nn ? nn : 1, sizeof *row); /* node -> row + 1 */
    int64_t *since = kp_calloc(nn ? nn * 3 : 1, sizeof *since); /* start + 1 of a stretch */
    if (!row || !since) {
        kp_free(row);
        kp_free(since);
        return KP_ENOMEM;
    }
    int32_t rows = 0, all = 0;
    bool on;
    for (size_t i = 0; i < ne; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->node >= 0 && (size_t)e->node < nn && !row[e->node] && cond_of(e->reason, &on) >= 0)
            row[e->node] = (size_t)all++ < max_rows ? ++rows : -1;
    }
    int h = MT + MB + (rows ? rows : 1) * ROW_H;
    fprintf(f,
            "<svg id=\"chart-pressure\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\"><title>Node pressure over time</title>",
            PW, h, PW, h);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", NAME_W, h - MB,
            PW - MR, h - MB);
    time_ticks(f, NAME_W, PW - MR, h - MB + 16, end);
    for (size_t n = 0; n < nn; n++)
        if (row[n] > 0)
            node_label(f, kp_cluster_node_name(cl, (kp_index)n), MT + (row[n] - 1) * ROW_H + 13);
    for (size_t i = 0; i < ne; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        int c = e->node >= 0 && (size_t)e->node < nn ? cond_of(e->reason, &on) : -1;
        if (c < 0 || row[e->node] <= 0) continue;
        int64_t *st = &since[(size_t)e->node * 3 + (size_t)c];
        if (on && !*st) *st = e->t_ms + 1;
        if (on || !*st) continue;
        band(f, cl, e->node, row[e->node] - 1, c, *st - 1, e->t_ms, end);
        *st = 0;
    }
    for (size_t n = 0; n < nn; n++) /* still under pressure at the end */
        for (int k = 0; k < 3; k++)
            if (since[n * 3 + (size_t)k])
                band(f, cl, (kp_index)n, row[n] - 1, k, since[n * 3 + (size_t)k] - 1, end, end);
    if (!rows)
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no node reported pressure</text>",
                PW / 2, MT + 12);
    fputs("</svg>\n<div class=\"legend\">", f);
    for (int c = 0; c < 3; c++) {
        legend_item(f, COND[c].color);
        fprintf(f, "%s</span>", COND[c].name);
    }
    if (all > rows)
        fprintf(f,
                "<span class=\"more\">%" PRId32 " more node(s) reported pressure: the "
                "PressureHotSpot findings and the JSON output have them all</span>",
                all - rows);
    fputs("</div>\n", f);
    kp_free(row);
    kp_free(since);
    return KP_OK;
}

/* ---------------------------------------------------------------- cascade tree */

static void tree_label(FILE *f, const kp_sim *sim, const kp_finding_link *l) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    if (l->pod >= 0 && (size_t)l->pod < kp_cluster_pod_count(cl)) {
        kp__html_esc(f, kp_cluster_pod_namespace(cl, l->pod));
        fputc('/', f);
        kp__html_esc(f, kp_cluster_pod_name(cl, l->pod));
    } else {
        fputs("?", f);
    }
    const kp_sim_event *e = l->event >= 0 ? kp_sim_event_get(sim, (size_t)l->event) : NULL;
    if (e) {
        char tb[40];
        kp__html_vtime(e->t_ms, tb, sizeof tb);
        fprintf(f, " (%s, ", tb);
        kp__html_esc(f, e->reason);
        fputc(')', f);
    }
}

/* The tree drawn in depth-first order: one row per link, indented by depth, an elbow from each
 * link to its parent; each row links to its event in the log. */
kp_status kp__html_chart_cascade(FILE *f, const kp_sim *sim, const kp_finding *fd, size_t k) {
    size_t n = fd->n_tree;
    size_t *order = kp_calloc(n ? n : 1, sizeof *order),
           *rowof = kp_calloc(n ? n : 1, sizeof *rowof);
    size_t *stack = kp_calloc(n ? n : 1, sizeof *stack);
    bool *seen = kp_calloc(n ? n : 1, sizeof *seen);
    if (!order || !rowof || !stack || !seen) {
        kp_free(order);
        kp_free(rowof);
        kp_free(stack);
        kp_free(seen);
        return KP_ENOMEM;
    }
    size_t no = 0;
    for (size_t r = 0; r < n; r++) { /* every root (and any link whose parent is out of range) */
        int32_t p = fd->tree[r].parent;
        if (p >= 0 && (size_t)p < n && p != (int32_t)r) continue;
        size_t sp = 0;
        stack[sp++] = r;
        while (sp) {
            size_t x = stack[--sp];
            if (seen[x]) continue;
            seen[x] = true;
            rowof[x] = no;
            order[no++] = x;
            for (size_t c = n; c-- > 0;) /* children, first pushed last */
                if (fd->tree[c].parent == (int32_t)x && !seen[c] && sp < n) stack[sp++] = c;
        }
    }
    int rh = 20, h = 10 + (int)(no ? no : 1) * rh;
    fprintf(f,
            "<svg id=\"chart-cascade-%zu\" class=\"chart cascade\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\"><title>Cascade tree</title>",
            k, PW, h, PW, h);
    for (size_t i = 0; i < no; i++) {
        const kp_finding_link *l = &fd->tree[order[i]];
        uint32_t d = l->depth < 20 ? l->depth : 20;
        int x = 10 + (int)d * 28, y = 10 + (int)i * rh;
        if (l->parent >= 0 && (size_t)l->parent < n && seen[l->parent]) {
            int py = 10 + (int)rowof[l->parent] * rh;
            fprintf(f, "<path class=\"edge\" d=\"M%d %d V%d H%d\" fill=\"none\"/>", x - 20, py + 6,
                    y + 6, x);
        }
        fprintf(f, "<circle class=\"%s\" cx=\"%d\" cy=\"%d\" r=\"5\"/>",
                l->depth ? "victim" : "root", x + 5, y + 6);
        if (l->event >= 0) fprintf(f, "<a href=\"#ev-%ld\">", l->event);
        fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 14, y + 10);
        tree_label(f, sim, l);
        fputs("</text>", f);
        if (l->event >= 0) fputs("</a>", f);
    }
    fputs("</svg>\n", f);
    kp_free(order);
    kp_free(rowof);
    kp_free(stack);
    kp_free(seen);
    return KP_OK;
}
