/* `kprio why` for a pod the kubelet evicted (kprio evict --why, kprio simulate --why): the
 * ranking the eviction manager evicted it from, the comparator that decided it against each
 * other pod and what would have spared it, all read from the library (kp_evict_explain, which
 * reads the engine's comparator). Also the ranking columns of `kprio evict -o wide` and the
 * `ranking` object of its JSON / YAML (one writer of a ranking entry). */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kprio/quantity.h"
#include "render/emit.h"
#include "render/render_kubelet.h"

static bool has_request(kp_evict_rank_kind k) { return k != KP_EVRANK_PID; }

/* A count or bytes in the unit of the rank function (inodes and processes as plain numbers). */
static kp_quantity_str qty(kp_evict_rank_kind k, int64_t v) {
    bool bytes = k == KP_EVRANK_MEMORY || k == KP_EVRANK_DISK;
    return kp_quantity_string_int(v, bytes ? KP_QFMT_BINARY_SI : KP_QFMT_DECIMAL_SI);
}

/* usage - request as the comparator computes it (saturating) */
static int64_t excess(const kp_evict_rank_entry *e) {
    if (e->request >= 0 && e->usage < INT64_MIN + e->request) return INT64_MIN;
    if (e->request < 0 && e->usage > INT64_MAX + e->request) return INT64_MAX;
    return e->usage - e->request;
}

/* Does the entry use more than the request its exceed comparator reads? */
static bool exceeds(kp_evict_rank_kind k, const kp_evict_rank_entry *e) {
    return e->has_stats && e->usage > (k == KP_EVRANK_DISK_INODES ? 0 : e->request);
}

static const char *usage_word(kp_evict_rank_kind k) {
    switch (k) {
    case KP_EVRANK_MEMORY: return "memory usage (working set)";
    case KP_EVRANK_DISK: return "local storage usage";
    case KP_EVRANK_DISK_INODES: return "inode usage";
    case KP_EVRANK_PID: return "process count";
    }
    return "usage";
}

static const char *request_word(kp_evict_rank_kind k) {
    return k == KP_EVRANK_MEMORY ? "memory request" : "ephemeral-storage request";
}

/* The rank function's comparators, in order, as JSON names. */
static void emit_keys(kp_emit *e, kp_evict_rank_kind k) {
    kp_emit_key(e, "keys");
    kp_emit_arr_begin(e);
    if (k == KP_EVRANK_PID) {
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_PRIORITY));
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_STATS));
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_USAGE));
    } else {
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_STATS));
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_EXCEEDS));
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_PRIORITY));
        kp_emit_str(e, kp_evict_rank_key_name(KP_EVKEY_USAGE));
    }
    kp_emit_arr_end(e);
}

static void emit_ref(kp_emit *e, const kp_cluster *cl, kp_index pod) {
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "namespace", kp_cluster_pod_namespace(cl, pod));
    kp_emit_kv_str(e, "name", kp_cluster_pod_name(cl, pod));
    kp_emit_obj_end(e);
}

static void emit_entry(kp_emit *e, const kp_cluster *cl, kp_evict_rank_kind k,
                       const kp_evict_rank_entry *x) {
    kp_emit_key(e, "pod");
    emit_ref(e, cl, x->pod);
    kp_emit_kv_bool(e, "hasStats", x->has_stats);
    if (k != KP_EVRANK_PID) kp_emit_kv_bool(e, "exceedsRequests", exceeds(k, x));
    kp_emit_kv_int(e, "priority", x->priority);
    kp_emit_kv_int(e, "usage", x->usage);
    if (has_request(k)) {
        kp_emit_kv_int(e, "request", x->request);
        kp_emit_kv_int(e, "usageMinusRequest", excess(x));
    }
    kp_emit_kv_bool(e, "critical", x->critical);
}

void kp__render_emit_ranking(kp_emit *e, const kp_cluster *cl, const kp_evict_result *r) {
    kp_emit_key(e, "ranking");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "rankFunction", kp_evict_rank_kind_name(r->rank_kind));
    kp_emit_kv_str(e, "resource", r->reclaim_resource ? r->reclaim_resource : "");
    emit_keys(e, r->rank_kind);
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < r->n_ranking; i++) {
        kp_emit_obj_begin(e);
        emit_entry(e, cl, r->rank_kind, &r->rank_entries[i]);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
}

/* The ranking columns of one pod (after RANK and POD): STATS, EXCEEDS REQUESTS, PRIORITY, USAGE,
 * REQUEST, USAGE-REQUEST ("-" where the rank function has none). */
static void entry_cells(kp_table *t, kp_evict_rank_kind k, const kp_evict_rank_entry *x) {
    kp_table_add(t, x->has_stats ? "yes" : "no");
    kp_table_add(t, k == KP_EVRANK_PID ? "-" : exceeds(k, x) ? "yes" : "no");
    kp_table_addf(t, "%d", (int)x->priority);
    kp_table_add(t, x->has_stats ? qty(k, x->usage).s : "-");
    kp_table_add(t, has_request(k) ? qty(k, x->request).s : "-");
    kp_table_add(t, has_request(k) && x->has_stats ? qty(k, excess(x)).s : "-");
}

static const char *const RANK_HEAD[] = {"STATS", "EXCEEDS REQUESTS", "PRIORITY",
                                        "USAGE", "REQUEST",          "USAGE-REQUEST"};
#define N_RANK_HEAD (int)(sizeof RANK_HEAD / sizeof RANK_HEAD[0])

kp_table *kp__render_ranking_table_new(void) {
    kp_table *t = kp_table_new(4 + N_RANK_HEAD);
    kp_table_add(t, "TIME");
    kp_table_add(t, "RANK");
    kp_table_add(t, "POD");
    for (int i = 0; i < N_RANK_HEAD; i++) kp_table_add(t, RANK_HEAD[i]);
    kp_table_add(t, "OUTCOME");
    return t;
}

void kp__render_ranking_rows(kp_table *t, const kp_cluster *cl, const char *when,
                             const kp_evict_result *r) {
    for (size_t i = 0; i < r->n_ranking; i++) {
        const kp_evict_rank_entry *x = &r->rank_entries[i];
        kp_table_add(t, when);
        kp_table_addf(t, "%zu", i + 1);
        kp_table_addf(t, "%s/%s", kp_cluster_pod_namespace(cl, x->pod),
                      kp_cluster_pod_name(cl, x->pod));
        entry_cells(t, r->rank_kind, x);
        bool evicted = false;
        for (size_t v = 0; v < r->n_evicted; v++) evicted |= r->evicted[v].pod == x->pod;
        kp_table_add(t, evicted ? "evicted" : x->critical ? "critical: not evicted" : "");
    }
}

/* ---------------------------------------------------------------- why */

/* The comparator that put the evicted pod e before x, in words. */
static void decided(kp__buf *b, kp_evict_rank_kind k, kp_evict_rank_key d,
                    const kp_evict_rank_entry *e, const kp_evict_rank_entry *x) {
    switch (d) {
    case KP_EVKEY_ORDER: kp__buf_printf(b, "tie on every key: the order of the pod list"); return;
    case KP_EVKEY_STATS:
        kp__buf_printf(b, "stats: %s", e->has_stats ? "it has none" : "the evicted pod has none");
        return;
    case KP_EVKEY_EXCEEDS:
        kp__buf_printf(b, "exceeds requests: the evicted pod's usage is above its request, this "
                          "one's is not");
        return;
    case KP_EVKEY_PRIORITY:
        kp__buf_printf(b, "priority: %d < %d", (int)e->priority, (int)x->priority);
        return;
    case KP_EVKEY_USAGE:
        if (k == KP_EVRANK_PID)
            kp__buf_printf(b, "process count: %s > %s", qty(k, e->usage).s, qty(k, x->usage).s);
        else kp__buf_printf(b, "usage-request: %s > %s", qty(k, excess(e)).s, qty(k, excess(x)).s);
        return;
    }
}

static const char *rank_rule(kp_evict_rank_kind k) {
    switch (k) {
    case KP_EVRANK_MEMORY:
        return "pods without stats first, then pods whose working set exceeds their memory "
               "request,\nthen lower priority, then larger usage - request";
    case KP_EVRANK_DISK:
        return "pods without stats first, then pods whose local storage usage exceeds their "
               "ephemeral-storage\nrequest, then lower priority, then larger usage - request";
    case KP_EVRANK_DISK_INODES:
        return "pods without stats first, then pods using any inodes, then lower priority, then "
               "larger\ninode usage - ephemeral-storage request";
    case KP_EVRANK_PID: return "lower priority first, then pods without stats, then more processes";
    }
    return "";
}

static kp_status why_table(FILE *f, const kp_cluster *cl, const kp_evict_why_input *in,
                           const kp_evict_rank_key *dec, const kp_evict_spare *sp) {
    const kp_evict_rank_entry *e = &in->ranking[in->position];
    kp_evict_rank_kind k = in->kind;
    const char *ns = kp_cluster_pod_namespace(cl, e->pod), *nm = kp_cluster_pod_name(cl, e->pod);
    fprintf(f, "%s/%s was evicted by the kubelet of node %s at %s (%s):\n  %s\n", ns, nm, in->node,
            in->when, in->signal, in->message);
    fprintf(f,
            "\nThe kubelet ranked the node's %zu pods with %s: %s.\nThe first pod that is not "
            "critical is evicted.\n\n",
            in->n_ranking, kp_evict_rank_kind_name(k), rank_rule(k));
    kp_table *t = kp_table_new(3 + N_RANK_HEAD);
    kp_table_add(t, "RANK");
    kp_table_add(t, "POD");
    for (int i = 0; i < N_RANK_HEAD; i++) kp_table_add(t, RANK_HEAD[i]);
    kp_table_add(t, "AGAINST THE EVICTED POD");
    kp__buf cell = {0};
    for (size_t i = 0; i < in->n_ranking; i++) {
        const kp_evict_rank_entry *x = &in->ranking[i];
        kp_table_addf(t, "%zu", i + 1);
        kp_table_addf(t, "%s/%s", kp_cluster_pod_namespace(cl, x->pod),
                      kp_cluster_pod_name(cl, x->pod));
        entry_cells(t, k, x);
        if (i == in->position) kp__buf_printf(&cell, "evicted");
        else if (i < in->position) kp__buf_printf(&cell, "critical: evictPod refuses it");
        else decided(&cell, k, dec[i], e, x);
        if (cell.failed) kp_table_fail(t, KP_ENOMEM);
        kp_table_add(t, kp__buf_str(&cell));
        kp__buf_reset(&cell);
    }
    kp__buf_free(&cell);
    kp_status st = kp_table_print(t, f);
    kp_table_free(t);
    if (st != KP_OK) return st;
    if (sp->runner_up >= in->n_ranking) {
        fprintf(f,
                "\nNo other pod could be evicted: only a priority of at least %d (critical) "
                "would have spared it.\n",
                (int)sp->min_priority);
        return KP_OK;
    }
    const kp_evict_rank_entry *r = &in->ranking[sp->runner_up];
    fprintf(f, "\nIn this step any one of these would have spared it (%s/%s evicted instead):\n",
            kp_cluster_pod_namespace(cl, r->pod), kp_cluster_pod_name(cl, r->pod));
    if (sp->by_request)
        fprintf(f, "  a %s of at least %s (now %s)\n", request_word(k), qty(k, sp->min_request).s,
                qty(k, e->request).s);
    fprintf(f, "  a priority of at least %d (now %d)%s\n", (int)sp->min_priority, (int)e->priority,
            sp->priority_critical           ? ": a critical pod, never evicted"
            : sp->min_priority > 1000000000 ? ": above 1000000000, only the system classes"
                                            : "");
    if (sp->by_usage)
        fprintf(f, "  a %s of at most %s (now %s)\n", usage_word(k), qty(k, sp->max_usage).s,
                qty(k, e->usage).s);
    return KP_OK;
}

static kp_status why_doc(FILE *f, kp_outfmt fmt, const kp_cluster *cl, const kp_evict_why_input *in,
                         const kp_evict_rank_key *dec, const kp_evict_spare *sp) {
    kp_emit *e = kp_emit_new(f, fmt);
    if (!e) return KP_ENOMEM;
    const kp_evict_rank_entry *x = &in->ranking[in->position];
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "EvictionWhy");
    kp_emit_key(e, "pod");
    emit_ref(e, cl, x->pod);
    kp_emit_kv_bool(e, "evicted", true);
    kp_emit_kv_str(e, "node", in->node);
    kp_emit_kv_str(e, "time", in->when);
    kp_emit_kv_str(e, "signal", in->signal);
    kp_emit_kv_str(e, "message", in->message);
    kp_emit_kv_str(e, "rankFunction", kp_evict_rank_kind_name(in->kind));
    emit_keys(e, in->kind);
    kp_emit_kv_int(e, "rank", (int64_t)in->position + 1);
    kp_emit_key(e, "ranking");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < in->n_ranking; i++) {
        kp_emit_obj_begin(e);
        emit_entry(e, cl, in->kind, &in->ranking[i]);
        if (i != in->position)
            kp_emit_kv_str(e, "decidedBy",
                           i < in->position ? "critical" : kp_evict_rank_key_name(dec[i]));
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "sparedBy");
    kp_emit_obj_begin(e);
    if (sp->runner_up < in->n_ranking) {
        kp_emit_key(e, "evictedInstead");
        emit_ref(e, cl, in->ranking[sp->runner_up].pod);
    }
    if (sp->by_request) kp_emit_kv_int(e, "minRequest", sp->min_request);
    kp_emit_kv_int(e, "minPriority", sp->min_priority);
    kp_emit_kv_bool(e, "minPriorityIsCritical", sp->priority_critical);
    if (sp->by_usage) kp_emit_kv_int(e, "maxUsage", sp->max_usage);
    kp_emit_obj_end(e);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

kp_status kp_render_evict_why(FILE *f, kp_outfmt fmt, const kp_cluster *cl,
                              const kp_evict_why_input *in, kp_error *err) {
    kp_evict_spare sp;
    kp_evict_rank_key *dec = kp_calloc(in->n_ranking ? in->n_ranking : 1, sizeof *dec);
    if (!dec) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st =
        kp_evict_explain(in->kind, in->ranking, in->n_ranking, in->position, dec, &sp, err);
    if (st == KP_OK) {
        st = fmt == KP_OUT_JSON || fmt == KP_OUT_YAML ? why_doc(f, fmt, cl, in, dec, &sp)
                                                      : why_table(f, cl, in, dec, &sp);
        if (st != KP_OK) kp_error_set(err, st, "out of memory");
    }
    kp_free(dec);
    return st;
}

kp_status kp_render_evict_not_evicted(FILE *f, kp_outfmt fmt, const kp_cluster *cl, kp_index pod,
                                      const char *node, const char *why) {
    if (fmt == KP_OUT_JSON || fmt == KP_OUT_YAML) {
        kp_emit *e = kp_emit_new(f, fmt);
        if (!e) return KP_ENOMEM;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
        kp_emit_kv_str(e, "kind", "EvictionWhy");
        kp_emit_key(e, "pod");
        emit_ref(e, cl, pod);
        kp_emit_kv_bool(e, "evicted", false);
        if (node) kp_emit_kv_str(e, "node", node);
        kp_emit_kv_str(e, "note", why);
        kp_emit_obj_end(e);
        kp_status st = kp_emit_status(e);
        kp_emit_free(e);
        return st;
    }
    fprintf(f, "%s/%s was not evicted by a kubelet's ranking: %s\n",
            kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod), why);
    return KP_OK;
}
