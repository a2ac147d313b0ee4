/* The what-if comparison as a two-column HTML page (kp_render_compare_html, docs/simulate.md
 * "HTML report"): run a beside run b — counters, pending-time percentiles, the pods that ended
 * differently, the findings of one run only. Self-contained like the report. */
#include <inttypes.h>
#include <string.h>

#include "kprio/cluster.h"
#include "render/render_report_html.h"

static void row_u(FILE *f, const char *label, uint64_t a, uint64_t b) {
    fprintf(f,
            "<tr%s><td>%s</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
            "</td><td class=\"num\">%+" PRId64 "</td></tr>\n",
            a != b ? " class=\"diff\"" : "", label, a, b, (int64_t)(b - a));
}

static void row_t(FILE *f, const char *label, int64_t a, int64_t b) {
    char ta[40], tb[40];
    kp__html_vtime(a, ta, sizeof ta);
    kp__html_vtime(b, tb, sizeof tb);
    fprintf(f,
            "<tr%s><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td></td></tr>\n",
            a != b ? " class=\"diff\"" : "", label, ta, tb);
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

kp_status kp_render_compare_html(FILE *f, const kp_compare *c, const kp_report_run *a,
                                 const kp_report_run *b) {
    kp__html_head(f, "kprio simulate: what-if comparison");
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
    row_u(f, "pods created", c->a.pods_created, c->b.pods_created);
    row_u(f, "pods deleted", c->a.pods_deleted, c->b.pods_deleted);
    row_u(f, "still pending", c->a.pending_at_end + c->a.gated_at_end,
          c->b.pending_at_end + c->b.gated_at_end);
    static const char *const P[4] = {"pending time p50", "pending time p90", "pending time p99",
                                     "pending time max"};
    for (int i = 0; i < 4; i++) row_t(f, P[i], c->pending_a[i], c->pending_b[i]);
    fprintf(f, "</tbody></table>\n<h2>Pods that ended differently (%zu)</h2>", c->n_pods);
    fputs("<table id=\"pods\"><thead><tr><th>pod</th><th>", f);
    title(f, a, "A");
    fputs("</th><th>", f);
    title(f, b, "B");
    fputs("</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < c->n_pods; i++) {
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
    fputs("</tbody></table>\n<h2>Findings in one run only</h2><div class=\"cols\">", f);
    only_findings(f, a, c->only_a, c->n_only_a);
    only_findings(f, b, c->only_b, c->n_only_b);
    fputs("</div>\n", f);
    kp__html_tail(f);
    return ferror(f) ? KP_EIO : KP_OK;
}
