/* The what-if comparison as a two-column HTML page (kp_render_compare_html, docs/simulate.md
 * "HTML report"): run a beside run b — counters and pending-time percentiles with B - A, the
 * running pods disrupted by cause, the two runs' charts side by side on one scale, the pods
 * that ended differently, the findings of one run only. Self-contained like the report. */
#include <inttypes.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

#define POD_ROWS 1000 /* the pods that ended differently shown (-o json has all) */

/* a count row: A, B and B - A ("=" when equal) */
static void row_u(FILE *f, const char *label, uint64_t a, uint64_t b) {
    fprintf(f,
            "<tr%s><td>%s</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
            "</td><td class=\"num\">",
            a != b ? " class=\"diff\"" : "", label, a, b);
    if (a == b) fputs("=", f);
    else fprintf(f, "%+" PRId64, (int64_t)(b - a));
    fputs("</td></tr>\n", f);
}

/* a time row: A, B and B - A as a signed duration ("=" when equal) */
static void row_t(FILE *f, const char *label, int64_t a, int64_t b) {
    char ta[40], tb[40], td[40];
    kp__html_vtime(a, ta, sizeof ta);
    kp__html_vtime(b, tb, sizeof tb);
    kp__html_vtime(b > a ? b - a : a - b, td, sizeof td);
    fprintf(f,
            "<tr%s><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td "
            "class=\"num%s\">%s%s</td></tr>\n",
            a != b ? " class=\"diff\"" : "", label, ta, tb,
            b > a   ? " pos"
            : b < a ? " neg"
                    : "",
            b > a   ? "+"
            : b < a ? "-"
                    : "",
            a == b ? "=" : td);
}

static void title(FILE *f, const kp_report_run *r, const char *dflt) {
    kp__html_esc(f, r->title && *r->title ? r->title : dflt);
}

static void node_state(FILE *f, const kp_sim *sim, kp_index pod, kp_index node,
                       kp_sim_pod_state st) {
    fputs("<td>", f);
    if (pod < 0) {
        fputs("(no such pod)</td>", f);
        return;
    }
    fputs(kp_sim_pod_state_name(st), f);
    if (node >= 0 && sim) {
        fputs(" on ", f);
        kp__html_esc(f, kp_cluster_node_name(kp_sim_cluster(sim), node));
    }
    fputs("</td>", f);
}

static void only_findings(FILE *f, const kp_report_run *r, const size_t *idx, size_t n) {
    fputs("<div><h3>", f);
    title(f, r, "run");
    fprintf(f, " only (%zu)</h3>", n);
    for (size_t i = 0; i < n; i++) {
        const kp_finding *fd =
            r->findings && idx[i] < r->findings->n ? r->findings->items[idx[i]] : NULL;
        if (!fd) continue;
        fputs("<div class=\"finding\"><b>", f);
        kp__html_esc(f, fd->kind_name);
        fputs("</b> ", f);
        kp__html_esc(f, fd->summary);
        fputs("</div>", f);
    }
    fputs("</div>", f);
}

/* The two runs' charts side by side, each pair on one time axis and one y scale. */
static kp_status charts(FILE *f, const kp_report_run *a, const kp_report_run *b) {
    kp_metrics *ma = NULL, *mb = NULL;
    kp_error err;
    if (kp_metrics_new(a->sim, &ma, &err) != KP_OK || kp_metrics_new(b->sim, &mb, &err) != KP_OK) {
        kp_metrics_free(ma);
        return KP_ENOMEM;
    }
    int64_t ea = kp__html_metrics_end(ma), eb = kp__html_metrics_end(mb);
    int64_t pa = kp__html_pending_max(ma), pb = kp__html_pending_max(mb);
    int64_t da = kp__html_disruptions_max(ma), db = kp__html_disruptions_max(mb);
    kp__chart_opts pend = {660, ea > eb ? ea : eb, pa > pb ? pa : pb};
    kp__chart_opts dis = {660, pend.end_ms, da > db ? da : db};
    const kp_report_run *run[2] = {a, b};
    kp_metrics *m[2] = {ma, mb};
    static const char *const ID[2][2] = {{"chart-pending-a", "chart-disruptions-a"},
                                         {"chart-pending-b", "chart-disruptions-b"}};
    fputs("<h2 id=\"charts\">Pending pods by priority</h2><div class=\"cols\">", f);
    for (int i = 0; i < 2; i++) {
        fputs("<div><h3>", f);
        title(f, run[i], i ? "B" : "A");
        fputs("</h3>", f);
        kp__html_chart_pending(f, run[i]->sim, m[i], ID[i][0], &pend);
        fputs("</div>", f);
    }
    fputs("</div>\n<h2>Running pods disrupted, by cause</h2><div class=\"cols\">", f);
    for (int i = 0; i < 2; i++) {
        fputs("<div><h3>", f);
        title(f, run[i], i ? "B" : "A");
        fputs("</h3>", f);
        kp__html_chart_disruptions(f, m[i], ID[i][1], &dis);
        fputs("</div>", f);
    }
    fputs("</div>\n", f);
    kp_metrics_free(ma);
    kp_metrics_free(mb);
    return KP_OK;
}

/* --compare-priorities: per PriorityClass, a group of rows (its pods, preemptions, victims,
 * pending-time percentiles, findings) with B - A */
static void class_rows(FILE *f, const kp_compare *c, const kp_report_run *a,
                       const kp_report_run *b) {
    fputs("<h2 id=\"by-class\">By PriorityClass</h2><table id=\"classes\"><thead><tr><th></th>"
          "<th>",
          f);
    title(f, a, "A");
    fputs("</th><th>", f);
    title(f, b, "B");
    fputs("</th><th>B - A</th></tr></thead><tbody>\n", f);
    static const char *const P[4] = {"pending time p50", "pending time p90", "pending time p99",
                                     "pending time max"};
    for (size_t i = 0; i < c->n_classes; i++) {
        const kp_compare_class *x = &c->classes[i];
        fputs("<tr class=\"group\"><th colspan=\"4\">", f);
        kp__html_esc(f, x->name[0] ? x->name : "(no class)");
        fputs(" (value ", f);
        if (x->has_a) fprintf(f, "%" PRId32, x->value_a);
        else fputs("-", f);
        fputs(" / ", f);
        if (x->has_b) fprintf(f, "%" PRId32, x->value_b);
        else fputs("-", f);
        fputs(")</th></tr>\n", f);
        row_u(f, "pods", x->pods_a, x->pods_b);
        row_u(f, "preemptions (as preemptor)", x->preemptions_a, x->preemptions_b);
        row_u(f, "preemption victims", x->victims_a, x->victims_b);
        for (int k = 0; k < 4; k++) row_t(f, P[k], x->pending_a[k], x->pending_b[k]);
        row_u(f, "findings", x->findings_a, x->findings_b);
    }
    fputs("</tbody></table>\n", f);
}

kp_status kp_render_compare_html(FILE *f, const kp_compare *c, const kp_report_run *a,
                                 const kp_report_run *b) {
    kp__html_head(f, "kprio simulate: what-if comparison", true);
    fputs("<h1>What-if: ", f);
    title(f, a, "A");
    fputs(" vs ", f);
    title(f, b, "B");
    fputs("</h1>\n<h2>Counters</h2><table id=\"compare\"><thead><tr><th></th><th>", f);
    title(f, a, "A");
    fputs("</th><th>", f);
    title(f, b, "B");
    fputs("</th><th>B - A</th></tr></thead><tbody>\n", f);
    row_u(f, "scheduling attempts", c->a.attempts, c->b.attempts);
    row_u(f, "pods scheduled", c->a.scheduled, c->b.scheduled);
    row_u(f, "unschedulable attempts", c->a.unschedulable, c->b.unschedulable);
    row_u(f, "preemption attempts", c->a.preemption_attempts, c->b.preemption_attempts);
    row_u(f, "preemptions", c->a.preemptions, c->b.preemptions);
    row_u(f, "preemption victims", c->a.victims, c->b.victims);
    row_u(f, "kubelet evictions", c->evictions_a, c->evictions_b);
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) { /* running pods disrupted, by cause */
        char label[80];
        snprintf(label, sizeof label, "disrupted: %s",
                 kp_sim_disruption_title((kp_sim_disruption)d));
        row_u(f, label, c->a.disruptions[d], c->b.disruptions[d]);
    }
    row_u(f, "pods created", c->a.pods_created, c->b.pods_created);
    row_u(f, "pods deleted", c->a.pods_deleted, c->b.pods_deleted);
    row_u(f, "still pending", c->a.pending_at_end + c->a.gated_at_end,
          c->b.pending_at_end + c->b.gated_at_end);
    static const char *const P[4] = {"pending time p50", "pending time p90", "pending time p99",
                                     "pending time max"};
    for (int i = 0; i < 4; i++) row_t(f, P[i], c->pending_a[i], c->pending_b[i]);
    fputs("</tbody></table>\n", f);
    if (c->classes) class_rows(f, c, a, b);
    if (a->sim && b->sim) {
        kp_status st = charts(f, a, b);
        if (st != KP_OK) return st;
    }
    fprintf(f,
            "<h2>Pods that ended differently (%zu)</h2><details id=\"pods-box\"%s><summary>"
            "each pod, its state and node in either run</summary>",
            c->n_pods, c->n_pods <= 20 ? " open" : "");
    fputs("<table id=\"pods\"><thead><tr><th>pod</th><th>", f);
    title(f, a, "A");
    fputs("</th><th>", f);
    title(f, b, "B");
    fputs("</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < c->n_pods && i < POD_ROWS; i++) {
        const kp_compare_pod *p = &c->pods[i];
        fputs("<tr><td>", f);
        kp__html_esc(f, p->ns);
        fputc('/', f);
        kp__html_esc(f, p->name);
        if (p->name_b && strcmp(p->name_b, p->name) != 0) {
            fputs(" (B: ", f);
            kp__html_esc(f, p->name_b);
            fputc(')', f);
        }
        fputs("</td>", f);
        node_state(f, a->sim, p->pod_a, p->node_a, p->state_a);
        node_state(f, b->sim, p->pod_b, p->node_b, p->state_b);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>", f);
    if (c->n_pods > POD_ROWS)
        fprintf(f,
                "<p class=\"more\" id=\"pods-more\">%zu more: the JSON output (-o json) has "
                "every pod</p>",
                c->n_pods - POD_ROWS);
    fputs("</details>\n<h2>Findings in one run only</h2><div class=\"cols\">", f);
    only_findings(f, a, c->only_a, c->n_only_a);
    only_findings(f, b, c->only_b, c->n_only_b);
    fputs("</div>\n", f);
    kp__html_tail(f);
    return ferror(f) ? KP_EIO : KP_OK;
}
