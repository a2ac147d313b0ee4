/* `kprio simulate --report FILE.html` (docs/simulate.md "HTML report"): one self-contained page
 * — inline style, inline SVG, a small inline script for the event log's filter; nothing loaded
 * from anywhere — with a headline summary, the findings (kprio/insight.h), the charts
 * (render_report_svg.c) and the event log. Every text from the inputs is escaped. */
#include <inttypes.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

static void card(FILE *f, const char *label, uint64_t v) {
    fprintf(f, "<div class=\"card\"><b>%" PRIu64 "</b>%s</div>", v, label);
}

static void summary(FILE *f, const kp_sim *sim) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    char tb[40];
    kp__html_vtime(kp_sim_now(sim), tb, sizeof tb);
    fprintf(f, "<h1>kprio simulate: %s of virtual time (ended: ", tb);
    kp__html_esc(f, kp_sim_end_reason(sim));
    fputs(")</h1>\n<div class=\"cards\" id=\"summary\">", f);
    card(f, "pods scheduled", c.scheduled);
    card(f, "scheduling attempts", c.attempts);
    card(f, "preemptions", c.preemptions);
    card(f, "preemption victims", c.victims);
    card(f, "kubelet evictions", c.kubelet_evictions);
    card(f, "pods created", c.pods_created);
    card(f, "pods deleted", c.pods_deleted);
    card(f, "still pending", c.pending_at_end + c.gated_at_end);
    fputs("</div>\n", f);
    if (c.longest_wait_pod >= 0) {
        kp__html_vtime(c.longest_wait_ms, tb, sizeof tb);
        fprintf(f, "<p>Longest time to schedule: %s (", tb);
        kp__html_esc(f, kp_cluster_pod_namespace(cl, c.longest_wait_pod));
        fputc('/', f);
        kp__html_esc(f, kp_cluster_pod_name(cl, c.longest_wait_pod));
        fputs(").</p>\n", f);
    }
}

static const char *sev_name(kp_finding_severity s) {
    return s == KP_SEVERITY_CRITICAL ? "critical" : s == KP_SEVERITY_WARNING ? "warning" : "info";
}

/* one finding: severity, kind, subject, summary, detail, times, the events it links to */
static void finding(FILE *f, const kp_sim *sim, const kp_finding *fd) {
    fprintf(f, "<div class=\"finding\"><span class=\"sev sev-%s\">%s</span> <b>",
            sev_name(fd->severity), sev_name(fd->severity));
    kp__html_esc(f, fd->kind_name);
    fputs("</b> ", f);
    kp__html_esc(f, fd->subject_kind);
    fputc(' ', f);
    if (fd->subject_ns && *fd->subject_ns) {
        kp__html_esc(f, fd->subject_ns);
        fputc('/', f);
    }
    kp__html_esc(f, fd->subject_name);
    fputs("<div>", f);
    kp__html_esc(f, fd->summary);
    fputs("</div>", f);
    if (fd->detail && *fd->detail) {
        fputs("<div class=\"detail\">", f);
        kp__html_esc(f, fd->detail);
        fputs("</div>", f);
    }
    char a[40], b[40];
    kp__html_vtime(fd->first_ms, a, sizeof a);
    kp__html_vtime(fd->last_ms, b, sizeof b);
    fprintf(f, "<div>from %s to %s", a, b);
    if (fd->n_events) fputs("; events:", f);
    for (size_t i = 0; i < fd->n_events; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, (size_t)fd->events[i]);
        if (!e) continue;
        fprintf(f, " <a href=\"#ev-%ld\">", fd->events[i]);
        kp__html_esc(f, e->reason);
        fprintf(f, "#%ld</a>", fd->events[i]);
    }
    fputs("</div></div>\n", f);
}

static kp_status findings(FILE *f, const kp_sim *sim, const kp_report_findings *fs) {
    size_t n = fs ? fs->n : 0;
    fprintf(f, "<h2 id=\"findings\">Findings (%zu)</h2>\n", n);
    if (!n) fputs("<p>No findings.</p>\n", f);
    for (size_t i = 0; i < n; i++) finding(f, sim, fs->items[i]);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const kp_finding *fd = fs->items[i];
        if (fd->kind != KP_FINDING_CASCADE || !fd->n_tree) continue;
        if (!k) fputs("<h2>Cascades</h2>\n", f);
        fputs("<p>", f);
        kp__html_esc(f, fd->summary);
        fputs("</p>", f);
        kp_status st = kp__html_chart_cascade(f, sim, fd, k++);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* the event log with its filter: type, reason (the reasons that occur), text */
static void event_log(FILE *f, const kp_sim *sim) {
    size_t n = kp_sim_event_count(sim);
    fprintf(f, "<h2 id=\"events\">Events</h2>\n<div class=\"filters\"><select id=\"f-type\">"
               "<option value=\"\">all types</option><option>Normal</option>"
               "<option>Warning</option></select><select id=\"f-reason\">"
               "<option value=\"\">all reasons</option>");
    for (size_t i = 0; i < n; i++) { /* each reason once, in order of first use */
        const char *r = kp_sim_event_get(sim, i)->reason;
        size_t j = 0;
        while (j < i && strcmp(kp_sim_event_get(sim, j)->reason, r) != 0) j++;
        if (j < i) continue;
        fputs("<option>", f);
        kp__html_esc(f, r);
        fputs("</option>", f);
    }
    fputs("</select><input id=\"f-text\" type=\"search\" placeholder=\"object or message\">"
          "<span id=\"f-count\"></span></div>\n<table id=\"log\"><thead><tr><th>#</th><th>TIME"
          "</th><th>TYPE</th><th>REASON</th><th>OBJECT</th><th>MESSAGE</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        const char *type = e->type == KP_SIM_WARNING ? "Warning" : "Normal";
        char tb[40];
        kp__html_vtime(e->t_ms, tb, sizeof tb);
        fprintf(f, "<tr id=\"ev-%zu\" class=\"%s\" data-type=\"%s\" data-reason=\"", i, type, type);
        kp__html_esc(f, e->reason);
        fprintf(f, "\"><td>%zu</td><td>%s</td><td class=\"type\">%s</td><td>", i, tb, type);
        kp__html_esc(f, e->reason);
        fputs("</td><td>", f);
        kp__html_esc(f, e->kind);
        fputc('/', f);
        if (*e->ns) {
            kp__html_esc(f, e->ns);
            fputc('/', f);
        }
        kp__html_esc(f, e->name);
        fputs("</td><td>", f);
        kp__html_esc(f, e->message);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

kp_status kp_render_report_html(FILE *f, const kp_sim *sim, const kp_report_findings *fs) {
    kp_metrics *m;
    kp_error err;
    if (kp_metrics_new(sim, &m, &err) != KP_OK) return KP_ENOMEM;
    kp__html_head(f, "kprio simulate report");
    summary(f, sim);
    kp_status st = findings(f, sim, fs);
    if (st == KP_OK) {
        fputs("<h2 id=\"pending\">Pending pods by priority</h2>\n", f);
        kp__html_chart_pending(f, m);
        fputs("<h2 id=\"disruptions\">Preemptions and evictions</h2>\n", f);
        kp__html_chart_disruptions(f, m);
        fputs("<h2 id=\"pressure\">Node pressure</h2>\n", f);
        st = kp__html_chart_pressure(f, sim);
    }
    if (st == KP_OK) {
        event_log(f, sim);
        kp__html_tail(f);
    }
    kp_metrics_free(m);
    return st;
}

kp_report_findings kp_report_findings_of(const kp_insight *in) {
    kp_report_findings fs = {NULL, 0};
    size_t n = in ? kp_insight_finding_count(in) : 0;
    if (!n) return fs;
    const kp_finding **items = kp_malloc(n * sizeof *items);
    if (!items) return fs;
    for (size_t i = 0; i < n; i++) items[i] = kp_insight_finding_get(in, i);
    fs.items = items;
    fs.n = n;
    return fs;
}

void kp_report_findings_free(kp_report_findings *fs) {
    kp_free((void *)fs->items);
    fs->items = NULL;
    fs->n = 0;
}
