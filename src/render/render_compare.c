/* `kprio simulate --compare` output (docs/simulate.md "What-if comparison"): two runs side by
 * side (the counters that matter, pending-time percentiles), the pods that ended differently and
 * the findings only one run has; or a kprio/v1alpha1 SimulationComparison document. On the
 * public API only. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/insight.h"
#include "kprio/sim.h"
#include "render/emit.h"
#include "render/render_sim.h"

static void dur(int64_t ms, char *buf, size_t cap) { kp_duration_format(ms * 1000000, buf, cap); }

static void row_u(kp_table *t, const char *what, uint64_t a, uint64_t b) {
    kp_table_add(t, what);
    kp_table_addf(t, "%" PRIu64, a);
    kp_table_addf(t, "%" PRIu64, b);
    if (a == b) kp_table_add(t, "=");
    else if (b > a) kp_table_addf(t, "+%" PRIu64, b - a);
    else kp_table_addf(t, "-%" PRIu64, a - b);
}

static void row_t(kp_table *t, const char *what, int64_t a, int64_t b) {
    char x[40], y[40], d[48];
    dur(a, x, sizeof x);
    dur(b, y, sizeof y);
    kp_table_add(t, what);
    kp_table_add(t, x);
    kp_table_add(t, y);
    if (a == b) {
        kp_table_add(t, "=");
        return;
    }
    dur(b > a ? b - a : a - b, d + 1, sizeof d - 1);
    d[0] = b > a ? '+' : '-';
    kp_table_add(t, d);
}

/* "Bound on n1", "Pending", "(absent)" */
static void where(const kp_sim *sim, kp_index pod, kp_index node, kp_sim_pod_state st, char *buf,
                  size_t cap) {
    if (pod < 0) snprintf(buf, cap, "(absent)");
    else if (node >= 0)
        snprintf(buf, cap, "%s on %s", kp_sim_pod_state_name(st),
                 kp_cluster_node_name(kp_sim_cluster(sim), node));
    else snprintf(buf, cap, "%s", kp_sim_pod_state_name(st));
}

/* when the rollouts completed (kp_compare.rollout_a): a time, "not done" */
static void rollout_cell(int64_t t, char *buf, size_t cap) {
    if (t == KP_COMPARE_ROLLOUT_NOT_DONE) snprintf(buf, cap, "not done");
    else if (t == KP_COMPARE_NO_ROLLOUT) snprintf(buf, cap, "none");
    else dur(t, buf, cap);
}

static void row_rollout(kp_table *t, int64_t a, int64_t b) {
    if (a == KP_COMPARE_NO_ROLLOUT && b == KP_COMPARE_NO_ROLLOUT) return;
    if (a >= 0 && b >= 0) {
        row_t(t, "rollout complete", a, b);
        return;
    }
    char x[40], y[40];
    rollout_cell(a, x, sizeof x);
    rollout_cell(b, y, sizeof y);
    kp_table_add(t, "rollout complete");
    kp_table_add(t, x);
    kp_table_add(t, y);
    kp_table_add(t, a == b ? "=" : "");
}

static kp_table *numbers(const kp_sim *a, const kp_insight *ia, const char *la, const kp_sim *b,
                         const kp_insight *ib, const char *lb, const kp_compare *c) {
    kp_table *t = kp_table_new(4);
    kp_table_add(t, "");
    kp_table_addf(t, "A (%s)", la);
    kp_table_addf(t, "B (%s)", lb);
    kp_table_add(t, "B-A");
    row_t(t, "virtual time", kp_sim_now(a), kp_sim_now(b));
    row_rollout(t, c->rollout_a, c->rollout_b);
    if (c->rollout_a != KP_COMPARE_NO_ROLLOUT || c->rollout_b != KP_COMPARE_NO_ROLLOUT)
        row_t(t, "PDB below desired", c->pdb_below_a, c->pdb_below_b);
    row_u(t, "scheduled", c->a.scheduled, c->b.scheduled);
    row_u(t, "schedule attempts", c->a.attempts, c->b.attempts);
    row_u(t, "preemptions", c->a.preemptions, c->b.preemptions);
    row_u(t, "victims", c->a.victims, c->b.victims);
    row_u(t, "evictions (kubelet)", c->evictions_a, c->evictions_b);
    row_u(t, "pods created", c->a.pods_created, c->b.pods_created);
    row_u(t, "pods deleted", c->a.pods_deleted, c->b.pods_deleted);
    row_u(t, "still pending", c->a.pending_at_end, c->b.pending_at_end);
    static const char *PCT[4] = {"pending time p50", "pending time p90", "pending time p99",
                                 "pending time max"};
    for (int k = 0; k < 4; k++) row_t(t, PCT[k], c->pending_a[k], c->pending_b[k]);
    row_u(t, "findings", kp_insight_finding_count(ia), kp_insight_finding_count(ib));
    return t;
}

/* ---- per PriorityClass (--compare-priorities) ---- */

static void cell_delta_u(kp_table *t, uint32_t a, uint32_t b) {
    if (a == b) kp_table_add(t, "=");
    else if (b > a) kp_table_addf(t, "+%" PRIu32, b - a);
    else kp_table_addf(t, "-%" PRIu32, a - b);
}

static void cell_delta_t(kp_table *t, int64_t a, int64_t b) {
    char d[48];
    if (a == b) {
        kp_table_add(t, "=");
        return;
    }
    dur(b > a ? b - a : a - b, d + 1, sizeof d - 1);
    d[0] = b > a ? '+' : '-';
    kp_table_add(t, d);
}

/* side 0: A's figures, 1: B's, 2: B-A */
static kp_table *class_table(const kp_compare *c, int side) {
    static const char *H[] = {"PRIORITYCLASS", "VALUE",       "PODS",        "PREEMPTIONS",
                              "VICTIMS",       "PENDING-P50", "PENDING-P90", "PENDING-P99",
                              "PENDING-MAX",   "FINDINGS"};
    kp_table *t = kp_table_new(10);
    for (size_t k = 0; k < 10; k++) kp_table_add(t, H[k]);
    for (size_t i = 0; i < c->n_classes; i++) {
        const kp_compare_class *x = &c->classes[i];
        kp_table_add(t, x->name[0] ? x->name : "(none)");
        if (side == 2) {
            if (x->has_a && x->has_b && x->value_a != x->value_b)
                kp_table_addf(t, "%+" PRId64, (int64_t)x->value_b - x->value_a);
            else kp_table_add(t, x->has_a && x->has_b ? "=" : "-");
            cell_delta_u(t, x->pods_a, x->pods_b);
            cell_delta_u(t, x->preemptions_a, x->preemptions_b);
            cell_delta_u(t, x->victims_a, x->victims_b);
            for (int k = 0; k < 4; k++) cell_delta_t(t, x->pending_a[k], x->pending_b[k]);
            cell_delta_u(t, x->findings_a, x->findings_b);
            continue;
        }
        bool has = side ? x->has_b : x->has_a;
        if (has) kp_table_addf(t, "%" PRId32, side ? x->value_b : x->value_a);
        else kp_table_add(t, "-");
        kp_table_addf(t, "%" PRIu32, side ? x->pods_b : x->pods_a);
        kp_table_addf(t, "%" PRIu32, side ? x->preemptions_b : x->preemptions_a);
        kp_table_addf(t, "%" PRIu32, side ? x->victims_b : x->victims_a);
        for (int k = 0; k < 4; k++) {
            char b[40];
            dur(side ? x->pending_b[k] : x->pending_a[k], b, sizeof b);
            kp_table_add(t, b);
        }
        kp_table_addf(t, "%" PRIu32, side ? x->findings_b : x->findings_a);
    }
    return t;
}

static kp_status class_tables(FILE *f, const kp_compare *c, const char *la, const char *lb) {
    kp_table *t[3] = {class_table(c, 0), class_table(c, 1), class_table(c, 2)};
    kp_status st = KP_OK;
    for (int k = 0; k < 3 && st == KP_OK; k++) st = kp_table_status(t[k]);
    for (int k = 0; k < 3 && st == KP_OK; k++) {
        if (k == 0) fprintf(f, "\nBy PriorityClass, A (%s):\n", la);
        else if (k == 1) fprintf(f, "\nBy PriorityClass, B (%s):\n", lb);
        else fprintf(f, "\nBy PriorityClass, B-A:\n");
        st = kp_table_print(t[k], f);
    }
    for (int k = 0; k < 3; k++) kp_table_free(t[k]);
    return st;
}

static void emit_class_side(kp_emit *e, const char *key, bool has, int32_t value, uint32_t pods,
                            uint32_t preemptions, uint32_t victims, const int64_t pend[4],
                            uint32_t findings) {
    char tb[40];
    kp_emit_key(e, key);
    kp_emit_obj_begin(e);
    kp_emit_key(e, "value");
    if (has) kp_emit_int(e, value);
    else kp_emit_null(e);
    kp_emit_kv_int(e, "pods", pods);
    kp_emit_kv_int(e, "preemptions", preemptions);
    kp_emit_kv_int(e, "victims", victims);
    kp_emit_key(e, "pendingTime");
    kp_emit_obj_begin(e);
    static const char *K[4] = {"p50", "p90", "p99", "max"};
    for (int k = 0; k < 4; k++) {
        dur(pend[k], tb, sizeof tb);
        kp_emit_kv_str(e, K[k], tb);
    }
    kp_emit_obj_end(e);
    kp_emit_kv_int(e, "findings", findings);
    kp_emit_obj_end(e);
}

/* "classes": [{name, a: {...}, b: {...}, delta: {...}}] */
static void emit_classes(kp_emit *e, const kp_compare *c) {
    kp_emit_key(e, "classes");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < c->n_classes; i++) {
        const kp_compare_class *x = &c->classes[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "name", x->name);
        emit_class_side(e, "a", x->has_a, x->value_a, x->pods_a, x->preemptions_a, x->victims_a,
                        x->pending_a, x->findings_a);
        emit_class_side(e, "b", x->has_b, x->value_b, x->pods_b, x->preemptions_b, x->victims_b,
                        x->pending_b, x->findings_b);
        kp_emit_key(e, "delta"); /* B-A */
        kp_emit_obj_begin(e);
        kp_emit_kv_int(e, "pods", (int64_t)x->pods_b - x->pods_a);
        kp_emit_kv_int(e, "preemptions", (int64_t)x->preemptions_b - x->preemptions_a);
        kp_emit_kv_int(e, "victims", (int64_t)x->victims_b - x->victims_a);
        kp_emit_key(e, "pendingTime");
        kp_emit_obj_begin(e);
        static const char *K[4] = {"p50", "p90", "p99", "max"};
        for (int k = 0; k < 4; k++) {
            char tb[48];
            int64_t d = x->pending_b[k] - x->pending_a[k];
            dur(d < 0 ? -d : d, tb + 1, sizeof tb - 1);
            tb[0] = '-';
            kp_emit_kv_str(e, K[k], d < 0 ? tb : tb + 1);
        }
        kp_emit_obj_end(e);
        kp_emit_kv_int(e, "findings", (int64_t)x->findings_b - x->findings_a);
        kp_emit_obj_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static kp_table *pods_table(const kp_sim *a, const kp_sim *b, const kp_compare *c) {
    kp_table *t = kp_table_new(3);
    kp_table_add(t, "POD");
    kp_table_add(t, "A");
    kp_table_add(t, "B");
    for (size_t i = 0; i < c->n_pods; i++) {
        const kp_compare_pod *p = &c->pods[i];
        char x[400], y[400];
        where(a, p->pod_a, p->node_a, p->state_a, x, sizeof x);
        where(b, p->pod_b, p->node_b, p->state_b, y, sizeof y);
        if (p->name_b && strcmp(p->name_b, p->name) != 0)
            kp_table_addf(t, "%s/%s (B: %s)", p->ns, p->name, p->name_b);
        else kp_table_addf(t, "%s/%s", p->ns, p->name);
        kp_table_add(t, x);
        kp_table_add(t, y);
    }
    return t;
}

static void only_text(FILE *f, const char *which, const kp_insight *in, const size_t *v, size_t n) {
    fprintf(f, "\nFindings only in %s: ", which);
    if (!n) {
        fprintf(f, "none.\n");
        return;
    }
    fprintf(f, "%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        const kp_finding *x = kp_insight_finding_get(in, v[i]);
        fprintf(f, "  %s %s: %s\n",
                x->severity == KP_SEVERITY_CRITICAL  ? "Critical"
                : x->severity == KP_SEVERITY_WARNING ? "Warning"
                                                     : "Info",
                x->kind_name, x->summary);
    }
}

static void emit_side(kp_emit *e, const char *key, const char *label, const kp_sim *sim,
                      const kp_insight *in, const kp_sim_counters *c, const int64_t pend[4],
                      uint64_t evictions, int64_t rollout, int64_t pdb_below) {
    kp_emit_key(e, key);
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "label", label);
    char tb[40];
    dur(kp_sim_now(sim), tb, sizeof tb);
    kp_emit_kv_str(e, "duration", tb);
    kp_emit_kv_str(e, "endReason", kp_sim_end_reason(sim));
    kp_emit_kv_int(e, "scheduled", (int64_t)c->scheduled);
    kp_emit_kv_int(e, "scheduleAttempts", (int64_t)c->attempts);
    kp_emit_kv_int(e, "preemptions", (int64_t)c->preemptions);
    kp_emit_kv_int(e, "victims", (int64_t)c->victims);
    kp_emit_kv_int(e, "evictions", (int64_t)evictions);
    kp_emit_kv_int(e, "podsCreated", (int64_t)c->pods_created);
    kp_emit_kv_int(e, "podsDeleted", (int64_t)c->pods_deleted);
    kp_emit_kv_int(e, "pendingAtEnd", (int64_t)c->pending_at_end);
    kp_emit_key(e, "pendingTime");
    kp_emit_obj_begin(e);
    static const char *K[4] = {"p50", "p90", "p99", "max"};
    for (int k = 0; k < 4; k++) {
        dur(pend[k], tb, sizeof tb);
        kp_emit_kv_str(e, K[k], tb);
    }
    kp_emit_obj_end(e);
    kp_emit_kv_int(e, "findings", (int64_t)kp_insight_finding_count(in));
    if (rollout != KP_COMPARE_NO_ROLLOUT) { /* a Deployment rolled out */
        rollout_cell(rollout, tb, sizeof tb);
        kp_emit_kv_str(e, "rolloutComplete", tb);
        dur(pdb_below, tb, sizeof tb);
        kp_emit_kv_str(e, "pdbBelowDesired", tb);
    }
    kp_emit_obj_end(e);
}

static void emit_end(kp_emit *e, const char *key, const kp_sim *sim, kp_index pod, kp_index node,
                     kp_sim_pod_state st) {
    kp_emit_key(e, key);
    if (pod < 0) {
        kp_emit_null(e);
        return;
    }
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "state", kp_sim_pod_state_name(st));
    kp_emit_key(e, "node");
    if (node < 0) kp_emit_null(e);
    else kp_emit_str(e, kp_cluster_node_name(kp_sim_cluster(sim), node));
    kp_emit_obj_end(e);
}

static kp_status document(FILE *f, const kp_sim *a, const kp_insight *ia, const char *la,
                          const kp_sim *b, const kp_insight *ib, const char *lb,
                          const kp_compare *c, kp_outfmt fmt) {
    kp_emit *e = kp_emit_new(f, fmt);
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "SimulationComparison");
    emit_side(e, "a", la, a, ia, &c->a, c->pending_a, c->evictions_a, c->rollout_a, c->pdb_below_a);
    emit_side(e, "b", lb, b, ib, &c->b, c->pending_b, c->evictions_b, c->rollout_b, c->pdb_below_b);
    if (c->classes) emit_classes(e, c);
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < c->n_pods; i++) {
        const kp_compare_pod *p = &c->pods[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "namespace", p->ns);
        kp_emit_kv_str(e, "name", p->name);
        if (p->name_b && strcmp(p->name_b, p->name) != 0) kp_emit_kv_str(e, "nameB", p->name_b);
        if (p->owner_kind && p->owner_kind[0]) {
            kp_emit_key(e, "matchedBy");
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "ownerKind", p->owner_kind);
            kp_emit_kv_str(e, "ownerName", p->owner_name);
            kp_emit_kv_int(e, "ordinal", p->ordinal);
            kp_emit_obj_end(e);
        }
        emit_end(e, "a", a, p->pod_a, p->node_a, p->state_a);
        emit_end(e, "b", b, p->pod_b, p->node_b, p->state_b);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "findingsOnlyA");
    kp_render_findings_emit(e, a, ia, c->only_a, c->n_only_a);
    kp_emit_key(e, "findingsOnlyB");
    kp_render_findings_emit(e, b, ib, c->only_b, c->n_only_b);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

kp_status kp_render_compare(FILE *f, const kp_sim *a, const kp_insight *ia, const char *label_a,
                            const kp_sim *b, const kp_insight *ib, const char *label_b,
                            const kp_compare *c, kp_outfmt fmt) {
    if (fmt != KP_OUT_TABLE && fmt != KP_OUT_WIDE)
        return document(f, a, ia, label_a, b, ib, label_b, c, fmt);
    /* both tables made before anything is printed: out of memory prints nothing */
    kp_table *nums = numbers(a, ia, label_a, b, ib, label_b, c), *pods = pods_table(a, b, c);
    kp_status st = kp_table_status(nums);
    if (st == KP_OK) st = kp_table_status(pods);
    if (st == KP_OK) st = kp_table_print(nums, f);
    if (st == KP_OK && c->classes) st = class_tables(f, c, label_a, label_b);
    if (st == KP_OK) {
        fprintf(f, "\nPods that ended differently: ");
        if (c->n_pods) {
            fprintf(f, "%zu\n", c->n_pods);
            st = kp_table_print(pods, f);
        } else {
            fprintf(f, "none.\n");
        }
    }
    kp_table_free(nums);
    kp_table_free(pods);
    if (st != KP_OK) return st;
    only_text(f, "A", ia, c->only_a, c->n_only_a);
    only_text(f, "B", ib, c->only_b, c->n_only_b);
    return KP_OK;
}
