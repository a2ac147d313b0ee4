/* `kprio simulate --report FILE.html` (docs/simulate.md "HTML report"): one self-contained page
 * — inline style, inline SVG, a small inline script for the event log's filter; nothing loaded
 * from anywhere. It answers first: the headline (what was disrupted, by cause; the findings
 * that matter most), then the charts (render_report_svg.c), then the long lists collapsed: every
 * finding, the cascades' trees, the event log (its first rows and the events the findings link
 * to; the JSON output has every event). Every text from the inputs is escaped. */
#include <inttypes.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

#define TOP_FINDINGS 5 /* the headline's */
#define DETAILED_FINDINGS 100 /* with their detail lines and events; the others one line each */
#define LOG_ROWS 1000 /* the event log's first rows (and every event a finding shown links to) */
#define PRESSURE_ROWS 40 /* nodes in the pressure heat map */
#define CASCADE_TREES 10 /* cascade trees drawn */
#define OPEN_BELOW 20 /* a list this short is shown open */

static void card(FILE *f, const char *id, const char *label, uint64_t v) {
    fprintf(f, "<div class=\"card%s\"", v ? "" : " zero");
    if (id) fprintf(f, " data-cause=\"%s\"", id);
    fprintf(f, "><b>%" PRIu64 "</b>%s</div>", v, label);
}

static const char *sev_name(kp_finding_severity s) {
    return s == KP_SEVERITY_CRITICAL ? "critical" : s == KP_SEVERITY_WARNING ? "warning" : "info";
}

static void subject(FILE *f, const kp_finding *fd) {
    kp__html_esc(f, fd->subject_kind);
    fputc(' ', f);
    if (fd->subject_ns && *fd->subject_ns) {
        kp__html_esc(f, fd->subject_ns);
        fputc('/', f);
    }
    kp__html_esc(f, fd->subject_name);
}

/* "N findings (a critical, b warning, c info)" */
static void findings_count(FILE *f, const kp_report_findings *fs) {
    size_t n = fs ? fs->n : 0, by[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        by[fs->items[i]->severity <= KP_SEVERITY_CRITICAL ? fs->items[i]->severity : 0]++;
    fprintf(f, "%zu finding(s)", n);
    if (!n) return;
    const char *sep = " (";
    for (int s = KP_SEVERITY_CRITICAL; s >= KP_SEVERITY_INFO; s--) {
        if (!by[s]) continue;
        fprintf(f, "%s%zu %s", sep, by[s], sev_name((kp_finding_severity)s));
        sep = ", ";
    }
    fputc(')', f);
}

/* The answer first: one sentence, the disruptions by cause, the run's counters, the findings
 * that matter most (the first: insight orders them most severe first). */
static void headline(FILE *f, const kp_sim *sim, const kp_report_findings *fs) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    char tb[40];
    kp__html_vtime(kp_sim_now(sim), tb, sizeof tb);
    fprintf(f, "<h1>kprio simulate: %s of virtual time (ended: ", tb);
    kp__html_esc(f, kp_sim_end_reason(sim));
    fputs(")</h1>\n<p class=\"answer\" id=\"answer\">", f);
    findings_count(f, fs);
    uint64_t total = 0;
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) total += c.disruptions[d];
    fprintf(f, "; %" PRIu64 " running pod(s) disrupted", total);
    const char *sep = " (";
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) {
        if (!c.disruptions[d]) continue;
        fprintf(f, "%s%s %" PRIu64, sep, kp_sim_disruption_title((kp_sim_disruption)d),
                c.disruptions[d]);
        sep = ", ";
    }
    fprintf(f, "%s; %" PRIu64 " pod(s) still pending.</p>\n", total ? ")" : "",
            c.pending_at_end + c.gated_at_end);
    fputs("<h2 id=\"disrupted\">Running pods disrupted, by cause</h2>\n"
          "<div class=\"cards\" id=\"disruption-cards\">",
          f);
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++)
        card(f, kp_sim_disruption_name((kp_sim_disruption)d),
             kp_sim_disruption_title((kp_sim_disruption)d), c.disruptions[d]);
    fputs("</div>\n<div class=\"cards\" id=\"summary\">", f);
    card(f, NULL, "pods scheduled", c.scheduled);
    card(f, NULL, "scheduling attempts", c.attempts);
    card(f, NULL, "preemptions", c.preemptions);
    card(f, NULL, "pods created", c.pods_created);
    card(f, NULL, "pods rejected by kubelets", c.kubelet_rejections);
    card(f, NULL, "still pending", c.pending_at_end + c.gated_at_end);
    fputs("</div>\n", f);
    if (c.longest_wait_pod >= 0) {
        kp__html_vtime(c.longest_wait_ms, tb, sizeof tb);
        fprintf(f, "<p>Longest time to schedule: %s (", tb);
        kp__html_esc(f, kp_cluster_pod_namespace(cl, c.longest_wait_pod));
        fputc('/', f);
        kp__html_esc(f, kp_cluster_pod_name(cl, c.longest_wait_pod));
        fputs(").</p>\n", f);
    }
    size_t n = fs ? fs->n : 0, top = n < TOP_FINDINGS ? n : TOP_FINDINGS;
    if (!top) return;
    fputs("<h2 id=\"top-findings\">Top findings</h2>\n<ol class=\"top\" id=\"top-list\">", f);
    for (size_t i = 0; i < top; i++) {
        const kp_finding *fd = fs->items[i];
        fprintf(f, "<li><span class=\"sev sev-%s\">%s</span> <a href=\"#finding-%zu\"><b>",
                sev_name(fd->severity), sev_name(fd->severity), i);
        kp__html_esc(f, fd->kind_name);
        fputs("</b></a> ", f);
        kp__html_esc(f, fd->summary);
        fputs("</li>", f);
    }
    fputs("</ol>\n", f);
    if (n > top) fprintf(f, "<p><a href=\"#findings\">%zu more finding(s)</a></p>\n", n - top);
}

/* Per device class (a run whose cluster has claims): the devices' churn, the pods' wait for them,
 * the holders preempted, and the class's findings linked (kp_sim_device_class, as -o json's
 * "devices") */
static void devices(FILE *f, const kp_sim *sim, const kp_report_findings *fs) {
    size_t n = kp_sim_device_class_count(sim);
    if (!n) return;
    fprintf(f,
            "<h2 id=\"devices\">Devices by class (%zu)</h2>\n<table id=\"device-classes\">"
            "<thead><tr><th>DEVICE CLASS</th><th>ALLOCATIONS</th><th>DEVICES</th>"
            "<th>RELEASED</th><th>PODS BOUND</th><th>WAIT MEAN</th><th>WAIT MAX</th>"
            "<th>STILL WAITING</th><th>HOLDERS PREEMPTED</th><th>FINDINGS</th></tr></thead>"
            "<tbody>\n",
            n);
    for (size_t i = 0; i < n; i++) {
        kp_sim_device_class d;
        if (kp_sim_device_class_get(sim, i, &d) != KP_OK) continue;
        char mean[40] = "-", max[40] = "-";
        if (d.pods_bound) {
            kp__html_vtime(d.wait_ms_sum / (int64_t)d.pods_bound, mean, sizeof mean);
            kp__html_vtime(d.wait_ms_max, max, sizeof max);
        }
        fputs("<tr><td>", f);
        kp__html_esc(f, *d.device_class ? d.device_class : "(no class)");
        fprintf(f,
                "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
                "</td><td>%s</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>",
                d.allocations, d.devices_allocated, d.deallocations, d.pods_bound, mean, max,
                d.pods_waiting, d.holders_preempted);
        size_t k = 0;
        for (size_t j = 0; fs && j < fs->n; j++) {
            const kp_finding *fd = fs->items[j];
            if (fd->kind != KP_FINDING_DEVICE_CONTENTION ||
                strcmp(fd->subject_name, *d.device_class ? d.device_class : "(no class)"))
                continue;
            fprintf(f, "%s<a href=\"#finding-%zu\">", k++ ? ", " : "", j);
            kp__html_esc(f, fd->condition);
            fputs("</a>", f);
        }
        fputs(k ? "</td></tr>\n" : "-</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* one finding: severity, kind, subject, summary; detailed: its detail, times and events */
static void finding(FILE *f, const kp_sim *sim, const kp_finding *fd, size_t i, bool detailed,
                    const bool *shown) {
    fprintf(f, "<div class=\"finding\" id=\"finding-%zu\"><span class=\"sev sev-%s\">%s</span> <b>",
            i, sev_name(fd->severity), sev_name(fd->severity));
    kp__html_esc(f, fd->kind_name);
    fputs("</b> ", f);
    subject(f, fd);
    fputs("<div>", f);
    kp__html_esc(f, fd->summary);
    fputs("</div>", f);
    if (!detailed) {
        fputs("</div>\n", f);
        return;
    }
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
    for (size_t k = 0; k < fd->n_events; k++) {
        const kp_sim_event *e = kp_sim_event_get(sim, (size_t)fd->events[k]);
        if (!e) continue;
        if (shown[fd->events[k]]) fprintf(f, " <a href=\"#ev-%ld\">", fd->events[k]);
        else fputc(' ', f);
        kp__html_esc(f, e->reason);
        fprintf(f, "#%ld%s", fd->events[k], shown[fd->events[k]] ? "</a>" : "");
    }
    fputs("</div></div>\n", f);
}

static kp_status findings(FILE *f, const kp_sim *sim, const kp_report_findings *fs,
                          const bool *shown) {
    size_t n = fs ? fs->n : 0;
    fprintf(f, "<h2 id=\"findings\">Findings (%zu)</h2>\n", n);
    if (!n) fputs("<p>No findings.</p>\n", f);
    if (n) {
        fprintf(f, "<details id=\"findings-box\"%s><summary>every finding, most severe first",
                n <= OPEN_BELOW ? " open" : "");
        if (n > DETAILED_FINDINGS)
            fprintf(f, " (the first %d with their details and events; the JSON output has all)",
                    DETAILED_FINDINGS);
        fputs("</summary>\n", f);
        for (size_t i = 0; i < n; i++)
            finding(f, sim, fs->items[i], i, i < DETAILED_FINDINGS, shown);
        fputs("</details>\n", f);
    }
    size_t k = 0, nc = 0;
    for (size_t i = 0; i < n; i++)
        nc += fs->items[i]->kind == KP_FINDING_CASCADE && fs->items[i]->n_tree;
    if (!nc) return KP_OK;
    fprintf(f,
            "<h2 id=\"cascades\">Cascades (%zu)</h2>\n<details id=\"cascades-box\"%s>"
            "<summary>who displaced whom",
            nc, nc <= 3 ? " open" : "");
    if (nc > CASCADE_TREES) fprintf(f, " (the first %d trees)", CASCADE_TREES);
    fputs("</summary>\n", f);
    for (size_t i = 0; i < n && k < CASCADE_TREES; i++) {
        const kp_finding *fd = fs->items[i];
        if (fd->kind != KP_FINDING_CASCADE || !fd->n_tree) continue;
        fputs("<p>", f);
        kp__html_esc(f, fd->summary);
        fputs("</p>", f);
        kp_status st = kp__html_chart_cascade(f, sim, fd, k++);
        if (st != KP_OK) return st;
    }
    fputs("</details>\n", f);
    return KP_OK;
}

/* The events the page shows: the first LOG_ROWS, and every event a detailed finding or a drawn
 * cascade links to (so that no link of the page leads nowhere). */
static bool *shown_events(const kp_sim *sim, const kp_report_findings *fs) {
    size_t ne = kp_sim_event_count(sim);
    bool *shown = kp_calloc(ne ? ne : 1, sizeof *shown);
    if (!shown) return NULL;
    for (size_t i = 0; i < ne && i < LOG_ROWS; i++) shown[i] = true;
    size_t n = fs ? fs->n : 0, trees = 0;
    for (size_t i = 0; i < n; i++) {
        const kp_finding *fd = fs->items[i];
        for (size_t k = 0; i < DETAILED_FINDINGS && k < fd->n_events; k++)
            if (fd->events[k] >= 0 && (size_t)fd->events[k] < ne) shown[fd->events[k]] = true;
        if (fd->kind != KP_FINDING_CASCADE || !fd->n_tree || trees++ >= CASCADE_TREES) continue;
        for (size_t k = 0; k < fd->n_tree; k++)
            if (fd->tree[k].event >= 0 && (size_t)fd->tree[k].event < ne)
                shown[fd->tree[k].event] = true;
    }
    return shown;
}

/* the event log with its filter: type, reason (the reasons of the rows shown), text */
static void event_log(FILE *f, const kp_sim *sim, const bool *shown) {
    size_t n = kp_sim_event_count(sim), rows = 0;
    for (size_t i = 0; i < n; i++) rows += shown[i];
    fprintf(f, "<h2 id=\"events\">Events (%zu)</h2>\n", n);
    if (rows < n)
        fprintf(f,
                "<p class=\"more\" id=\"events-more\">%zu of %zu events shown: the first %d and "
                "those the findings link to; %zu more: the JSON output (-o json) has every "
                "event.</p>\n",
                rows, n, LOG_ROWS, n - rows);
    fprintf(f, "<details id=\"events-box\"%s><summary>the event log</summary>\n",
            rows <= OPEN_BELOW ? " open" : "");
    fputs("<div class=\"filters\"><select id=\"f-type\"><option value=\"\">all types</option>"
          "<option>Normal</option><option>Warning</option></select><select id=\"f-reason\">"
          "<option value=\"\">all reasons</option>",
          f);
    const char *seen[64]; /* each reason once, in order of first use (a few dozen exist) */
    size_t n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!shown[i]) continue;
        const char *r = kp_sim_event_get(sim, i)->reason;
        size_t j = 0;
        while (j < n_seen && strcmp(seen[j], r) != 0) j++;
        if (j < n_seen) continue;
        if (n_seen == sizeof seen / sizeof seen[0]) { /* past the table: look back */
            size_t k = 0;
            while (k < i && (!shown[k] || strcmp(kp_sim_event_get(sim, k)->reason, r) != 0)) k++;
            if (k < i) continue;
        } else {
            seen[n_seen++] = r;
        }
        fputs("<option>", f);
        kp__html_esc(f, r);
        fputs("</option>", f);
    }
    fputs("</select><input id=\"f-text\" type=\"search\" placeholder=\"object or message\">"
          "<span id=\"f-count\"></span></div>\n<table id=\"log\"><thead><tr><th>#</th><th>TIME"
          "</th><th>TYPE</th><th>REASON</th><th>OBJECT</th><th>MESSAGE</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        if (!shown[i]) continue;
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
    fputs("</tbody></table></details>\n", f);
}

kp_status kp_render_report_html(FILE *f, const kp_sim *sim, const kp_report_findings *fs) {
    kp_metrics *m;
    kp_error err;
    if (kp_metrics_new(sim, &m, &err) != KP_OK) return KP_ENOMEM;
    bool *shown = shown_events(sim, fs);
    if (!shown) {
        kp_metrics_free(m);
        return KP_ENOMEM;
    }
    kp__html_head(f, "kprio simulate report", false);
    headline(f, sim, fs);
    fputs("<h2 id=\"pending\">Pending pods by priority</h2>\n", f);
    kp__html_chart_pending(f, sim, m, "chart-pending", NULL);
    char step[40];
    kp__html_vtime(kp_metrics_step(m), step, sizeof step);
    fprintf(f, "<h2 id=\"disruptions\">Running pods disrupted per %s, by cause</h2>\n", step);
    kp__html_chart_disruptions(f, m, "chart-disruptions", NULL);
    fputs("<h2 id=\"pressure\">Node pressure</h2>\n", f);
    kp_status st = kp__html_chart_pressure(f, sim, PRESSURE_ROWS);
    if (st == KP_OK) devices(f, sim, fs);
    if (st == KP_OK) st = findings(f, sim, fs, shown);
    if (st == KP_OK) {
        event_log(f, sim, shown);
        kp__html_tail(f);
    }
    kp_free(shown);
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
