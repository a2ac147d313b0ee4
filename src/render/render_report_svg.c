/* The HTML report's charts as inline SVG (docs/simulate.md "HTML report"): pending pods by
 * priority over time, preemptions and evictions over time, per-node pressure as a heat map of
 * node x time, and a cascade's tree. On the public API only. */
#include <inttypes.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

#define W 900
#define H 220
#define ML 56 /* margins: left, right, top, bottom */
#define MR 16
#define MT 14
#define MB 30

static const char *const PALETTE[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define N_PALETTE (sizeof PALETTE / sizeof PALETTE[0])

static double xpos(int64_t t, int64_t end) {
    return ML + (end > 0 ? (double)t * (W - ML - MR) / (double)end : 0.0);
}

static double ypos(int64_t v, int64_t max) {
    return H - MB - (max > 0 ? (double)v * (H - MT - MB) / (double)max : 0.0);
}

/* the frame: axes, the y maximum, time ticks at quarters */
static void frame(FILE *f, int64_t end, int64_t ymax, const char *ylabel) {
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, H - MB, W - MR,
            H - MB);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML, MT, ML,
            H - MB);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>", ML - 4, MT + 4,
            ymax);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", ML - 4, H - MB);
    fprintf(f, "<text x=\"4\" y=\"%d\">", MT + 20);
    kp__html_esc(f, ylabel);
    fputs("</text>", f);
    for (int q = 0; q <= 4; q++) {
        char tb[40];
        kp__html_vtime(end * q / 4, tb, sizeof tb);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                xpos(end * q / 4, end), H - MB + 16, tb);
    }
}

static int64_t end_of(const kp_metrics *m) {
    size_t nt = kp_metrics_time_count(m);
    int64_t end = nt ? kp_metrics_times(m)[nt - 1] : 0;
    return end > 0 ? end : 1;
}

void kp__html_chart_pending(FILE *f, const kp_metrics *m) {
    size_t nt = kp_metrics_time_count(m);
    int64_t end = end_of(m), max = 1;
    const int64_t *t = kp_metrics_times(m);
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pending_pods") != 0) continue;
        for (size_t k = 0; k < nt; k++)
            if (s->values[k] > max) max = s->values[k];
    }
    fprintf(f,
            "<svg id=\"chart-pending\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\"><title>Pending pods by priority</title>",
            W, H, W, H);
    frame(f, end, max, "pods");
    size_t color = 0;
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_pending_pods") != 0) continue;
        const char *c = PALETTE[color++ % N_PALETTE];
        fprintf(f, "<polyline class=\"series\" data-priority=\"");
        kp__html_esc(f, s->label_value);
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" points=\"", c);
        for (size_t k = 0; k < nt; k++) { /* steps: the value holds until the next sample */
            if (k) fprintf(f, "%.1f,%.1f ", xpos(t[k], end), ypos(s->values[k - 1], max));
            fprintf(f, "%.1f,%.1f ", xpos(t[k], end), ypos(s->values[k], max));
        }
        fputs("\"><title>priority ", f);
        kp__html_esc(f, s->label_value);
        fputs("</title></polyline>", f);
        fprintf(f, "<rect x=\"%zu\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
                (size_t)(W - 150), (int)(MT + 14 * (color - 1)), c);
        fprintf(f, "<text x=\"%d\" y=\"%d\">priority ", W - 136, (int)(MT + 9 + 14 * (color - 1)));
        kp__html_esc(f, s->label_value);
        fputs("</text>", f);
    }
    if (!color) fprintf(f, "<text x=\"%d\" y=\"%d\">no pod was pending</text>", W / 2 - 60, H / 2);
    fputs("</svg>\n", f);
}

/* preemption victims and evictions per sample interval, side by side */
void kp__html_chart_disruptions(FILE *f, const kp_metrics *m) {
    size_t nt = kp_metrics_time_count(m);
    int64_t end = end_of(m), max = 1;
    const int64_t *t = kp_metrics_times(m);
    const int64_t *vict = NULL;
    const int64_t *ev[16]; /* kubelet_evictions per signal: 12 signals at most */
    size_t nev = 0;
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, "kprio_preemption_victims_total") == 0) vict = s->values;
        else if (strcmp(s->name, "kubelet_evictions") == 0 && nev < 16) ev[nev++] = s->values;
    }
    /* per-interval increments of the cumulative series */
#define DELTA(v, k) ((v)[k] - ((k) ? (v)[(k)-1] : 0))
    for (size_t k = 0; k < nt; k++) {
        int64_t e = 0;
        for (size_t j = 0; j < nev; j++) e += DELTA(ev[j], k);
        if (vict && DELTA(vict, k) > max) max = DELTA(vict, k);
        if (e > max) max = e;
    }
    fprintf(f,
            "<svg id=\"chart-disruptions\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\"><title>Preemptions and evictions over time</title>",
            W, H, W, H);
    frame(f, end, max, "pods");
    double bw = nt > 1 ? (W - ML - MR) / (double)nt / 2.2 : 8.0;
    if (bw < 1) bw = 1;
    for (size_t k = 0; k < nt; k++) {
        int64_t p = vict ? DELTA(vict, k) : 0, e = 0;
        for (size_t j = 0; j < nev; j++) e += DELTA(ev[j], k);
        char tb[40];
        kp__html_vtime(t[k], tb, sizeof tb);
        double x = xpos(t[k], end) - bw; /* the interval up to t[k], inside the plot */
        if (x < ML) x = ML;
        if (p > 0)
            fprintf(f,
                    "<rect class=\"preempt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\"><title>%s: %" PRId64 " preempted</title></rect>",
                    x, ypos(p, max), bw, ypos(0, max) - ypos(p, max), tb, p);
        if (e > 0)
            fprintf(f,
                    "<rect class=\"evict\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\"><title>%s: %" PRId64 " evicted</title></rect>",
                    x + bw, ypos(e, max), bw, ypos(0, max) - ypos(e, max), tb, e);
    }
#undef DELTA
    fprintf(f,
            "<rect class=\"preempt\" x=\"%d\" y=\"%d\" width=\"10\" height=\"10\"/>"
            "<text x=\"%d\" y=\"%d\">preempted</text>"
            "<rect class=\"evict\" x=\"%d\" y=\"%d\" width=\"10\" height=\"10\"/>"
            "<text x=\"%d\" y=\"%d\">evicted</text></svg>\n",
            W - 150, MT, W - 136, MT + 9, W - 150, MT + 14, W - 136, MT + 23);
}

/* ---------------------------------------------------------------- pressure heat map */

static const struct {
    const char *on, *off, *cls, *name;
} COND[3] = {
    {"NodeHasInsufficientMemory", "NodeHasSufficientMemory", "p-mem", "MemoryPressure"},
    {"NodeHasDiskPressure", "NodeHasNoDiskPressure", "p-disk", "DiskPressure"},
    {"NodeHasInsufficientPID", "NodeHasSufficientPID", "p-pid", "PIDPressure"},
};

static int cond_of(const char *reason, bool *on) {
    for (int c = 0; c < 3; c++) {
        if (strcmp(reason, COND[c].on) == 0) return *on = true, c;
        if (strcmp(reason, COND[c].off) == 0) return *on = false, c;
    }
    return -1;
}

#define ROW_H 18

static void band(FILE *f, const kp_cluster *cl, kp_index node, int32_t row, int c, int64_t t0,
                 int64_t t1, int64_t end) {
    double span = W - ML - 84 - MR;
    char a[40], b[40];
    kp__html_vtime(t0, a, sizeof a);
    kp__html_vtime(t1, b, sizeof b);
    fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"5\"><title>",
            COND[c].cls, ML + 84 + (double)t0 * span / (double)end, MT + row * ROW_H + 2 + c * 5,
            (double)(t1 - t0) * span / (double)end + 1);
    kp__html_esc(f, kp_cluster_node_name(cl, node));
    fprintf(f, ": %s %s..%s</title></rect>", COND[c].name, a, b);
}

/* One row per node that reported a pressure condition, a band per stretch under it (from its
 * NodeHas*Pressure event to its NodeHasSufficient* / NodeHasNo* event, or the end). */
kp_status kp__html_chart_pressure(FILE *f, const kp_sim *sim) {
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
    int32_t rows = 0;
    bool on;
    for (size_t i = 0; i < ne; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->node >= 0 && (size_t)e->node < nn && !row[e->node] && cond_of(e->reason, &on) >= 0)
            row[e->node] = ++rows;
    }
    int rh = ROW_H, h = MT + MB + (rows ? rows : 1) * rh;
    fprintf(f,
            "<svg id=\"chart-pressure\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\"><title>Node pressure over time</title>",
            W, h, W, h);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", ML + 84, h - MB,
            W - MR, h - MB);
    for (int q = 0; q <= 4; q++) {
        char tb[40];
        kp__html_vtime(end * q / 4, tb, sizeof tb);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                ML + 84 + (double)q * (W - ML - 84 - MR) / 4, h - MB + 16, tb);
    }
    for (size_t n = 0; n < nn; n++) {
        if (!row[n]) continue;
        fprintf(f, "<text class=\"node\" x=\"4\" y=\"%d\">", MT + (row[n] - 1) * rh + 13);
        kp__html_esc(f, kp_cluster_node_name(cl, (kp_index)n));
        fputs("</text>", f);
    }
    for (size_t i = 0; i < ne; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        int c = e->node >= 0 && (size_t)e->node < nn ? cond_of(e->reason, &on) : -1;
        if (c < 0) continue;
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
        fprintf(f, "<text x=\"%d\" y=\"%d\">no node reported pressure</text>", W / 2 - 80, MT + 12);
    fputs("</svg>\n", f);
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
            k, W, h, W, h);
    for (size_t i = 0; i < no; i++) {
        const kp_finding_link *l = &fd->tree[order[i]];
        uint32_t d = l->depth < 30 ? l->depth : 30;
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
