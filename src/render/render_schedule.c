/* The SchedulePlan of `kprio schedule` (docs/schedule.md): a kubectl-style table or a
 * kprio/v1alpha1 SchedulePlan document, plus the --explain section; on the public API only. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "render/emit.h"
#include "render/render_gates.h"
#include "render/render_sched.h"
#include "render/view.h"

static const char *outcome_str(kp_sched_outcome o) {
    switch (o) {
    case KP_OUTCOME_BOUND: return "Bound";
    case KP_OUTCOME_NOMINATED: return "Nominated";
    case KP_OUTCOME_UNSCHEDULABLE: return "Unschedulable";
    case KP_OUTCOME_GATED: return "SchedulingGated"; /* the pod's PodScheduled reason */
    }
    return "?";
}

/* A pod PreEnqueue kept out of the queue: SchedulingGated (its gates; the API server's condition
 * message), else DynamicResources' rejection (a claim not there yet), which sets no condition. */
static const char *row_outcome(const kp_sched_pod_result *r) {
    if (r->outcome == KP_OUTCOME_GATED &&
        strcmp(r->message, "Scheduling is blocked due to non-empty scheduling gates") != 0)
        return "PreEnqueueRejected";
    return outcome_str(r->outcome);
}

static const char *code_str(kp_filter_code c) { return kp_filter_code_name(c); }

/* "namespace/name" of a pod, cut to cap like the table's other cells. */
static const char *pod_ref(const kp_cluster *cl, kp_index pod, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
    return buf;
}

/* The reasons joined by ", " (upstream's Status.Message for several reasons). */
static void node_reasons(const kp_sched *s, kp_index node, size_t n, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = 0;
    for (size_t r = 0; r < n && off < cap; r++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", r ? ", " : "",
                                kp_sched_explain_node_reason(s, node, r));
}

static void preempt_reasons(const kp_sched *s, size_t i, size_t n, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = 0;
    for (size_t r = 0; r < n && off < cap; r++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", r ? ", " : "",
                                kp_sched_explain_preemption_reason(s, i, r));
}

/* Upstream's PostFilter text says "preempting 1 victims"; the human output says "1 victim"
 * (JSON and YAML keep upstream's exact string). The length of msg to print, then the plural's
 * "s" is left out. */
static int human_len(const char *msg) {
    static const char tail[] = " preempting 1 victims";
    size_t len = strlen(msg), tl = sizeof tail - 1;
    if (len >= tl && strcmp(msg + len - tl, tail) == 0) len--;
    return len > INT_MAX ? INT_MAX : (int)len;
}

/* ---------------------------------------------------------------- plan */

static void emit_plan(const kp_sched *s, const kp_cluster *cl, const kp__sched_rollup *ru,
                      kp_emit *e) {
    bool several = kp_sched_profile_count(s) > 1; /* the profile is named only then */
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "SchedulePlan");
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (!r || !kp_view_pod(cl, r->pod)) continue; /* -n, -l */
        kp_emit_obj_begin(e);
        kp_emit_kv_pod_ref(e, "pod", kp_cluster_pod_namespace(cl, r->pod),
                           kp_cluster_pod_name(cl, r->pod));
        if (several) kp_emit_kv_str(e, "schedulerName", r->scheduler_name);
        kp_emit_kv_int(e, "priority", r->priority);
        kp_emit_kv_str(e, "outcome", row_outcome(r));
        if (r->outcome == KP_OUTCOME_BOUND)
            kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, r->node));
        if (r->outcome == KP_OUTCOME_NOMINATED)
            kp_emit_kv_str(e, "nominatedNode", kp_cluster_node_name(cl, r->nominated_node));
        kp_emit_key(e, "victims");
        kp_emit_arr_begin(e);
        for (size_t v = 0; v < r->n_victims; v++) {
            kp_emit_obj_begin(e);
            kp_emit_kv_pod_ref(e, "pod", kp_cluster_pod_namespace(cl, r->victims[v]),
                               kp_cluster_pod_name(cl, r->victims[v]));
            kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, r->victim_nodes[v]));
            kp_emit_kv_int(e, "priority", kp_cluster_pod_priority(cl, r->victims[v]));
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_kv_int(e, "pdbViolations", r->pdb_violations);
        kp_emit_kv_str(e, "message", r->message);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp__sched_rollup_emit(e, cl, ru); /* render_sched_rollup.c */
}

/* -o wide adds PROFILE (always), VICTIMS, PDB-VIOLATIONS and CHOSEN-BY (the step of the node
 * choice that picked a nominated node) before MESSAGE. */
static kp_status print_table(const kp_sched *s, const kp_cluster *cl, const kp__sched_rollup *ru,
                             FILE *f, bool wide) {
    if (kp_sched_result_count(s) == 0) {
        fprintf(f, "No pending pods to schedule: every pod is bound, finished or being deleted, "
                   "or names another spec.schedulerName.\n");
        return KP_OK;
    }
    /* with a preemption, the answer first and the roll-ups after the rows (not with
     * --no-headers: rows only, for awk) */
    bool rollup = ru->victims > 0 && !kp_table_no_headers();
    bool several = wide || kp_sched_profile_count(s) > 1; /* a PROFILE column only then */
    kp_table *t = kp_table_new((several ? 6 : 5) + (wide ? 3 : 0));
    kp_table_add(t, "POD");
    if (several) kp_table_add(t, "PROFILE");
    kp_table_add(t, "PRIORITY");
    kp_table_add(t, "OUTCOME");
    kp_table_add(t, "NODE");
    if (wide) {
        kp_table_add(t, "VICTIMS");
        kp_table_add(t, "PDB-VIOLATIONS");
        kp_table_add(t, "CHOSEN-BY");
    }
    kp_table_add(t, "MESSAGE");
    char ref[512];
    size_t rows = 0;
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (!r || !kp_view_pod(cl, r->pod)) continue; /* -n, -l */
        rows++;
        kp_table_add(t, pod_ref(cl, r->pod, ref, sizeof ref));
        if (several) kp_table_add(t, r->scheduler_name);
        kp_table_addf(t, "%" PRId32, r->priority);
        kp_table_add(t, row_outcome(r));
        kp_index node = r->outcome == KP_OUTCOME_BOUND       ? r->node
                        : r->outcome == KP_OUTCOME_NOMINATED ? r->nominated_node
                                                             : -1;
        kp_table_add(t, node >= 0 ? kp_cluster_node_name(cl, node) : "<none>");
        if (wide) {
            kp_table_addf(t, "%zu", r->n_victims);
            kp_table_addf(t, "%" PRId32, r->pdb_violations);
            kp_table_add(t, r->decided_by && r->decided_by[0] ? r->decided_by : "<none>");
        }
        if (r->n_victims) {
            char msg[4096];
            size_t off = (size_t)snprintf(msg, sizeof msg, "preempts ");
            for (size_t v = 0; v < r->n_victims && off < sizeof msg; v++)
                off += (size_t)snprintf(msg + off, sizeof msg - off, "%s%s", v ? ", " : "",
                                        pod_ref(cl, r->victims[v], ref, sizeof ref));
            if (off < sizeof msg && r->pdb_violations)
                off +=
                    (size_t)snprintf(msg + off, sizeof msg - off, " (%" PRId32 " PDB violation%s)",
                                     r->pdb_violations, r->pdb_violations == 1 ? "" : "s");
            if (off < sizeof msg && r->message[0])
                snprintf(msg + off, sizeof msg - off, "; %.*s", human_len(r->message), r->message);
            kp_table_add(t, msg);
        } else {
            kp_table_addf(t, "%.*s", human_len(r->message), r->message);
        }
    }
    kp_status st = kp_table_status(t); /* nothing printed when a table failed */
    if (st == KP_OK && rollup) {
        kp__sched_rollup_headline(f, cl, ru);
        fprintf(f, "\n");
    }
    if (st == KP_OK && !rows && kp_view_filters()) kp_view_none_found(f); /* -n, -l */
    else if (st == KP_OK) st = kp_table_print(t, f);
    kp_table_free(t);
    /* the roll-ups sum several decisions: one decision's victims are all in its own row */
    if (st == KP_OK && rollup && ru->preemptors > 1) st = kp__sched_rollup_tables(f, cl, ru);
    return st;
}

/* ---------------------------------------------------------------- explain */

static void emit_explain(const kp_sched *s, const kp_cluster *cl, const kp_sched_explanation *x,
                         kp_emit *e) {
    char txt[1024];
    kp_emit_key(e, "explain");
    kp_emit_obj_begin(e);
    kp_emit_kv_pod_ref(e, "pod", kp_cluster_pod_namespace(cl, x->pod),
                       kp_cluster_pod_name(cl, x->pod));
    kp__render_emit_gates(e, cl); /* the gates that differ from the defaults */
    if (kp_sched_profile_count(s) > 1 && x->scheduler_name[0])
        kp_emit_kv_str(e, "schedulerName", x->scheduler_name);
    kp_emit_kv_bool(e, "attempted", x->attempted);
    if (x->pre_enqueue_message[0]) kp_emit_kv_str(e, "preEnqueue", x->pre_enqueue_message);
    if (x->prefilter_message[0]) kp_emit_kv_str(e, "preFilter", x->prefilter_message);
    if (x->nominated_node_first) kp_emit_kv_bool(e, "nominatedNodeFirst", true);
    if (x->selected_node >= 0)
        kp_emit_kv_str(e, "selectedNode", kp_cluster_node_name(cl, x->selected_node));
    kp_emit_key(e, "nodes");
    kp_emit_arr_begin(e);
    for (size_t i = 0; x->attempted && i < x->n_nodes; i++) {
        kp_sched_explain_node n;
        if (kp_sched_explain_node_get(s, (kp_index)i, &n) != KP_OK) continue;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, (kp_index)i));
        kp_emit_kv_bool(e, "evaluated", n.evaluated);
        if (n.evaluated) {
            kp_emit_kv_str(e, "status", code_str(n.code));
            if (n.plugin) kp_emit_kv_str(e, "plugin", n.plugin);
            node_reasons(s, (kp_index)i, n.n_reasons, txt, sizeof txt);
            if (txt[0]) kp_emit_kv_str(e, "reason", txt);
            kp_emit_key(e, "filters");
            kp_emit_arr_begin(e);
            for (size_t k = 0; k < n.n_filters; k++) {
                kp_sched_explain_filter ef;
                if (kp_sched_explain_filter_get(s, (kp_index)i, k, &ef) != KP_OK) continue;
                kp_emit_obj_begin(e);
                kp_emit_kv_str(e, "plugin", ef.plugin);
                kp_emit_kv_str(e, "verdict", code_str(ef.code));
                if (ef.reason[0]) kp_emit_kv_str(e, "reason", ef.reason);
                kp_emit_obj_end(e);
            }
            kp_emit_arr_end(e);
        }
        if (n.scored) {
            kp_emit_key(e, "scores");
            kp_emit_obj_begin(e);
            for (size_t k = 0; k < kp_sched_score_plugin_count(s); k++)
                kp_emit_kv_int(e, kp_sched_score_plugin_name(s, k),
                               kp_sched_explain_score(s, (kp_index)i, k));
            kp_emit_obj_end(e);
            kp_emit_kv_int(e, "totalScore", n.total_score);
        }
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_sched_preemption_explain pr;
    if (x->has_preemption && kp_sched_explain_preemption_get(s, &pr) == KP_OK) {
        kp_emit_key(e, "preemption");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "outcome",
                       pr.outcome == KP_PREEMPTION_NOMINATED      ? "Nominated"
                       : pr.outcome == KP_PREEMPTION_NOT_ELIGIBLE ? "NotEligible"
                                                                  : "NoCandidates");
        if (pr.node >= 0) kp_emit_kv_str(e, "nominatedNode", kp_cluster_node_name(cl, pr.node));
        if (pr.decided_by[0]) kp_emit_kv_str(e, "decidedBy", pr.decided_by);
        kp_emit_kv_str(e, "message", pr.message);
        kp_emit_key(e, "nodes");
        kp_emit_arr_begin(e);
        for (size_t i = 0; i < pr.n_nodes; i++) {
            kp_sched_preemption_node pn;
            if (kp_sched_explain_preemption_node_get(s, i, &pn) != KP_OK) continue;
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, pn.node));
            kp_emit_kv_str(e, "filterStatus", code_str(pn.filter_code));
            kp_emit_kv_bool(e, "considered", pn.considered);
            kp_emit_kv_bool(e, "candidate", pn.candidate);
            preempt_reasons(s, i, pn.n_reasons, txt, sizeof txt);
            if (!pn.candidate && txt[0]) kp_emit_kv_str(e, "reason", txt);
            if (pn.candidate) {
                kp_emit_key(e, "victims");
                kp_emit_arr_begin(e);
                for (size_t v = 0; v < pn.n_victims; v++) {
                    kp_index vp = kp_sched_explain_preemption_victim(s, i, v);
                    kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, vp),
                                    kp_cluster_pod_name(cl, vp));
                }
                kp_emit_arr_end(e);
                kp_emit_kv_int(e, "pdbViolations", pn.pdb_violations);
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_obj_end(e);
}

static void print_explain(const kp_sched *s, const kp_cluster *cl, const kp_sched_explanation *x,
                          FILE *f) {
    char ref[512], txt[1024];
    fprintf(f, "\nExplain %s (priority %" PRId32, pod_ref(cl, x->pod, ref, sizeof ref),
            kp_cluster_pod_priority(cl, x->pod));
    if (kp_sched_profile_count(s) > 1 && x->scheduler_name[0])
        fprintf(f, ", profile %s", x->scheduler_name);
    fprintf(f, "):\n");
    kp__render_print_gates(f, cl,
                           "  feature gates that differ from the Kubernetes " KP_KUBERNETES_VERSION
                           " defaults: ");
    if (!x->attempted && x->pre_enqueue_message[0]) {
        bool gates = strncmp(x->pre_enqueue_message, "waiting for scheduling gates", 28) == 0;
        fprintf(f, "  not queued: PreEnqueue rejected the pod (%s): %s\n",
                gates ? "SchedulingGates" : "DynamicResources", x->pre_enqueue_message);
        return;
    }
    if (!x->attempted) {
        fprintf(f,
                "  not scheduled in this run (not pending for this scheduler, or already bound)\n");
        return;
    }
    if (x->prefilter_message[0])
        fprintf(f, "  PreFilter rejected the pod: %s\n", x->prefilter_message);
    if (x->nominated_node_first)
        fprintf(f, "  the nominated node passed every filter: chosen without a full pass\n");
    for (size_t i = 0; i < x->n_nodes; i++) {
        kp_sched_explain_node n;
        if (kp_sched_explain_node_get(s, (kp_index)i, &n) != KP_OK) continue;
        const char *name = kp_cluster_node_name(cl, (kp_index)i);
        if (!n.evaluated) {
            fprintf(f,
                    "  %s: not evaluated (enough feasible nodes found first, or outside the "
                    "PreFilter result)\n",
                    name);
            continue;
        }
        if (n.code == KP_FILTER_SUCCESS) {
            fprintf(f, "  %s: feasible", name);
            if (n.scored) {
                fprintf(f, ", score %" PRId64 " (", n.total_score);
                for (size_t k = 0; k < kp_sched_score_plugin_count(s); k++)
                    fprintf(f, "%s%s %" PRId64, k ? ", " : "", kp_sched_score_plugin_name(s, k),
                            kp_sched_explain_score(s, (kp_index)i, k));
                fprintf(f, ")");
            }
            fprintf(f, "%s\n", x->selected_node == (kp_index)i ? "  <- selected" : "");
        } else {
            node_reasons(s, (kp_index)i, n.n_reasons, txt, sizeof txt);
            fprintf(f, "  %s: %s by %s: %s\n", name, code_str(n.code), n.plugin ? n.plugin : "?",
                    txt);
        }
        for (size_t k = 0; k < n.n_filters; k++) {
            kp_sched_explain_filter ef;
            if (kp_sched_explain_filter_get(s, (kp_index)i, k, &ef) != KP_OK) continue;
            fprintf(f, "      %-32s %s%s%s\n", ef.plugin,
                    ef.code == KP_FILTER_SUCCESS ? "ok" : code_str(ef.code),
                    ef.reason[0] ? ": " : "", ef.reason);
        }
    }
    kp_sched_preemption_explain pr;
    if (x->has_preemption && kp_sched_explain_preemption_get(s, &pr) == KP_OK) {
        fprintf(f, "  Preemption: %s",
                pr.outcome == KP_PREEMPTION_NOMINATED      ? "nominated"
                : pr.outcome == KP_PREEMPTION_NOT_ELIGIBLE ? "pod not eligible"
                                                           : "no candidate node");
        if (pr.node >= 0) fprintf(f, " %s", kp_cluster_node_name(cl, pr.node));
        if (pr.decided_by[0]) fprintf(f, " (decided by: %s)", pr.decided_by);
        fprintf(f, "\n");
        if (pr.message[0]) fprintf(f, "    %.*s\n", human_len(pr.message), pr.message);
        for (size_t i = 0; i < pr.n_nodes; i++) {
            kp_sched_preemption_node pn;
            if (kp_sched_explain_preemption_node_get(s, i, &pn) != KP_OK) continue;
            fprintf(f, "    %s: ", kp_cluster_node_name(cl, pn.node));
            if (pn.candidate) {
                fprintf(f, "candidate, victims:");
                for (size_t v = 0; v < pn.n_victims; v++)
                    fprintf(
                        f, " %s",
                        pod_ref(cl, kp_sched_explain_preemption_victim(s, i, v), ref, sizeof ref));
                fprintf(f, ", PDB violations %" PRId32 "\n", pn.pdb_violations);
            } else {
                preempt_reasons(s, i, pn.n_reasons, txt, sizeof txt);
                if (pn.filter_code == KP_FILTER_UNRESOLVABLE)
                    fprintf(f, "not a candidate: filter status UnschedulableAndUnresolvable "
                               "(preemption cannot help)\n");
                else if (!pn.considered) fprintf(f, "not evaluated (candidate budget reached)\n");
                else fprintf(f, "not a candidate: %s\n", txt[0] ? txt : "no victims help");
            }
        }
    }
}

/* ---------------------------------------------------------------- entry */

kp_status kp_render_schedule(FILE *f, const kp_sched *s, const kp_cluster *cl, kp_outfmt fmt) {
    kp_sched_explanation x;
    bool has_explain = kp_sched_explanation_get(s, &x);
    kp__sched_rollup ru;
    kp_status st = kp__sched_rollup_build(s, cl, &ru); /* before any output: all or nothing */
    if (st != KP_OK) return st;
    if (fmt == KP_OUT_JSON || fmt == KP_OUT_YAML) {
        kp_emit *e = kp_emit_new(f, fmt);
        if (!e) {
            kp__sched_rollup_fini(&ru);
            return KP_ENOMEM;
        }
        kp_emit_obj_begin(e);
        emit_plan(s, cl, &ru, e);
        if (has_explain) emit_explain(s, cl, &x, e);
        kp_emit_obj_end(e);
        st = kp_emit_status(e);
        kp_emit_free(e);
        kp__sched_rollup_fini(&ru);
        return st;
    }
    st = print_table(s, cl, &ru, f, fmt == KP_OUT_WIDE);
    if (st == KP_OK && has_explain) print_explain(s, cl, &x, f);
    kp__sched_rollup_fini(&ru);
    return st;
}
