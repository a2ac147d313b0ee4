/* Helpers for the preemption unit tests: build a cluster from small YAML snippets, run one
 * PostFilter through all three victim-selection paths (arithmetic, incremental, reference),
 * check they agree and that the cluster is unchanged, and render the result as names. */
#ifndef KP_TEST_PREEMPT_UTIL_H
#define KP_TEST_PREEMPT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/meta.h"
#include "core/node.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/preempt/preempt.h"

#define TP_MAX_NODES 300

static char tp_yaml[1 << 20];
static size_t tp_len;
static kp_cluster *tp_cl;
static kp_sched *tp_s;
static uint64_t tp_pdb_checks; /* kp_preempt_opts.pdb_checks of the last tp_attempt */

typedef struct {
    int codes[TP_MAX_NODES]; /* -1 = computed by the real Filter */
    long offset, tie;
    kp_preempt_compat compat;
    int64_t now;
    int32_t protect;
    int only_mode; /* -1 = all three */
} tp_opts;

typedef struct {
    kp_preempt_outcome outcome;
    char node[64];
    char victims[512];
    int32_t pdb_violations;
    char message[512];
    char decided_by[96];
    uint64_t dry_calls;
    uint64_t pdb_checks; /* kp_preempt_opts.pdb_checks of the attempt */
    char candidates[512];
    uint32_t n_candidates;
    char node_victims[TP_MAX_NODES][128];
    int node_viol[TP_MAX_NODES];
} tp_res;

static inline tp_opts tp_opts_default(void) {
    tp_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < TP_MAX_NODES; i++) o.codes[i] = -1;
    o.offset = o.tie = -1;
    o.now = KP_TIME_NONE;
    o.protect = -1;
    o.only_mode = -1;
    return o;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void
tp_add(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tp_yaml + tp_len, sizeof tp_yaml - tp_len, fmt, ap);
    va_end(ap);
    if (n > 0) tp_len += (size_t)n;
    if (tp_len >= sizeof tp_yaml) tp_len = sizeof tp_yaml - 1;
}

static inline void tp_begin(void) {
    tp_len = 0;
    tp_yaml[0] = '\0';
}

static inline void tp_raw(const char *s) { tp_add("%s", s); }

/* cpu/mem NULL = veryLarge (500m / 500). */
static inline void tp_node(const char *name, const char *cpu, const char *mem, int pods,
                           const char *labels) {
    tp_add("---\napiVersion: v1\nkind: Node\nmetadata: {name: %s, uid: uid-%s%s%s}\n"
           "status:\n  allocatable: {cpu: \"%s\", memory: \"%s\", pods: \"%d\"}\n"
           "  capacity: {cpu: \"%s\", memory: \"%s\", pods: \"%d\"}\n",
           name, name, labels ? ", labels: " : "", labels ? labels : "", cpu ? cpu : "500m",
           mem ? mem : "500", pods, cpu ? cpu : "500m", mem ? mem : "500", pods);
}

/* node NULL = pending. start < 0 = nil startTime, else seconds after the epoch. */
static inline void tp_pod(const char *name, const char *node, int prio, const char *cpu,
                          const char *mem, int start, const char *labels) {
    tp_add("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, uid: "
           "uid-%s%s%s}\n"
           "spec:\n  priority: %d\n",
           name, name, labels ? ", labels: " : "", labels ? labels : "", prio);
    if (node) tp_add("  nodeName: %s\n", node);
    if (cpu || mem)
        tp_add("  containers: [{name: c, resources: {requests: {cpu: \"%s\", memory: \"%s\"}}}]\n",
               cpu ? cpu : "0", mem ? mem : "0");
    else tp_add("  containers: [{name: c}]\n");
    tp_add("status:\n  phase: %s\n", node ? "Running" : "Pending");
    if (start >= 0)
        tp_add("  startTime: \"1970-01-01T%02d:%02d:%02dZ\"\n", start / 3600, start / 60 % 60,
               start % 60);
}

static inline void tp_pdb(const char *name, const char *match_labels, int allowed,
                          const char *disrupted) {
    tp_add("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
           "metadata: {name: %s, namespace: default}\n"
           "spec:\n  selector: {matchLabels: %s}\nstatus:\n  disruptionsAllowed: %d\n",
           name, match_labels, allowed);
    if (disrupted) tp_add("  disruptedPods: {\"%s\": \"2024-01-01T00:00:00Z\"}\n", disrupted);
}

static inline bool tp_load(void) {
    kp_error err;
    kp_error_clear(&err);
    tp_cl = kp_cluster_new();
    if (kp_cluster_load_buffer(tp_cl, "test.yaml", tp_yaml, tp_len, &err) != KP_OK ||
        kp_cluster_finalize(tp_cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n%s\n", err.msg, tp_yaml);
        kt_failed_checks++;
        kp_cluster_free(tp_cl);
        tp_cl = NULL;
        return false;
    }
    return true;
}

static inline bool tp_new_sched(const char *cfg_yaml) {
    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    if (cfg_yaml && kp_sched_config_load_buffer("cfg.yaml", cfg_yaml, strlen(cfg_yaml), NULL, &cfg,
                                                &err) != KP_OK) {
        fprintf(stderr, "  config failed: %s\n", err.msg);
        kt_failed_checks++;
        return false;
    }
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = 1;
    kp_status rc = kp_sched_new(tp_cl, cfg, &so, &tp_s, &err);
    kp_sched_config_free(cfg);
    if (rc != KP_OK) {
        fprintf(stderr, "  sched failed: %s\n", err.msg);
        kt_failed_checks++;
        return false;
    }
    return true;
}

static inline void tp_names(const kp_cluster *cl, const uint32_t *pods, uint32_t n, char *buf,
                            size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "",
                                kp__s(cl, cl->pods[pods[i]].name));
}

/* A fingerprint of every node's pod order and aggregates, to prove dry runs undo themselves. */
static inline uint64_t tp_fingerprint(const kp_cluster *cl) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        const kp_node *n = &cl->nodes[i];
        for (uint32_t j = 0; j < n->n_pods; j++) h = (h ^ n->pods[j]) * 1099511628211ull;
        for (uint32_t r = 0; r < cl->n_res; r++)
            h = (h ^ (uint64_t)n->requested[r]) * 1099511628211ull;
    }
    for (uint32_t i = 0; i < cl->n_pods; i++)
        h = (h ^ (uint64_t)(cl->pods[i].node + 7) ^ ((uint64_t)cl->pods[i].pos_in_node << 20)) *
            1099511628211ull;
    return h;
}

/* One PostFilter on tp_s for pod "default/p" (or `pod`), with explain. */
static inline kp_status tp_attempt(uint32_t pod, const tp_opts *to, int mode, kp_preempt_result *r,
                                   uint64_t *dry_calls) {
    kp_error err;
    kp_error_clear(&err);
    kp_node_status *st = calloc(tp_cl->n_nodes + 1, sizeof *st);
    kp_node_status pre;
    kp__status_reset(&pre);
    kp_cycle *c = kp__cycle_new(tp_s, pod, &pre);
    for (uint32_t i = 0; i < tp_cl->n_nodes; i++) {
        if (pre.code != KP_CODE_SUCCESS) st[i] = pre;
        else kp__cycle_filter(c, i, &st[i]);
        if (to && i < TP_MAX_NODES && to->codes[i] >= 0) st[i].code = (kp_code)to->codes[i];
    }
    kp_preempt_opts po;
    kp__preempt_opts_default(&po);
    if (to) {
        po.offset = to->offset;
        po.tie = to->tie;
        po.compat = to->compat;
        po.now = to->now;
        po.protect_pod = to->protect;
    }
    po.reference = mode == 2;
    po.no_fastpath = mode == 1;
    kp_status rc = kp__preempt_postfilter_ex(tp_s, c, pod, st, true, &po, r, &err);
    if (rc != KP_OK) fprintf(stderr, "  postfilter: %s\n", err.msg);
    if (dry_calls) *dry_calls = po.filter_calls;
    tp_pdb_checks = po.pdb_checks;
    kp__cycle_free(c);
    free(st);
    return rc;
}

static inline void tp_render(const kp_preempt_result *r, uint64_t calls, tp_res *out) {
    memset(out, 0, sizeof *out);
    out->outcome = r->outcome;
    if (r->node >= 0)
        snprintf(out->node, sizeof out->node, "%s", kp__s(tp_cl, tp_cl->nodes[r->node].name));
    tp_names(tp_cl, r->victims, r->n_victims, out->victims, sizeof out->victims);
    out->pdb_violations = r->pdb_violations;
    snprintf(out->message, sizeof out->message, "%s", r->message);
    snprintf(out->decided_by, sizeof out->decided_by, "%s", r->decided_by ? r->decided_by : "");
    out->dry_calls = calls;
    out->n_candidates = r->n_candidates;
    size_t len = 0;
    for (uint32_t i = 0; i < r->n_nodes && i < TP_MAX_NODES; i++) {
        const kp_preempt_node *pn = &r->nodes[i];
        if (pn->candidate) {
            tp_names(tp_cl, pn->victims, pn->n_victims, out->node_victims[i],
                     sizeof out->node_victims[i]);
            out->node_viol[i] = pn->pdb_violations;
            if (len < sizeof out->candidates)
                len += (size_t)snprintf(out->candidates + len, sizeof out->candidates - len, "%s%s",
                                        len ? "," : "", kp__s(tp_cl, tp_cl->nodes[i].name));
        }
    }
}

/* Loads the YAML, runs the three paths (fresh scheduler each, same seed), checks agreement and
 * that the cluster is untouched; *out = the incremental path's result (upstream call counts). */
static inline void tp_run(const char *cfg, const tp_opts *to, tp_res *out) {
    memset(out, 0, sizeof *out);
    if (!tp_cl && !tp_load()) return;
    long pod = kp_cluster_find_pod(tp_cl, "default/p");
    if (pod < 0) {
        kt_failed_checks++;
        return;
    }
    tp_res all[3];
    uint64_t fp0 = tp_fingerprint(tp_cl);
    for (int mode = 0; mode < 3; mode++) {
        if (to && to->only_mode >= 0 && to->only_mode != mode) continue;
        if (!tp_new_sched(cfg)) return;
        kp_preempt_result r;
        uint64_t calls = 0;
        if (tp_attempt((uint32_t)pod, to, mode, &r, &calls) != KP_OK) kt_failed_checks++;
        tp_render(&r, calls, &all[mode]);
        all[mode].pdb_checks = tp_pdb_checks;
        kp__preempt_result_fini(&r);
        kp_sched_free(tp_s);
        tp_s = NULL;
        KT_CHECK(tp_fingerprint(tp_cl) == fp0);
    }
    int ref = to && to->only_mode >= 0 ? to->only_mode : 1;
    *out = all[ref];
    if (!to || to->only_mode < 0) {
        for (int m = 0; m < 3; m += 2) {
            KT_CHECK_STR(all[m].node, all[1].node);
            KT_CHECK_STR(all[m].victims, all[1].victims);
            KT_CHECK_STR(all[m].message, all[1].message);
            KT_CHECK_STR(all[m].candidates, all[1].candidates);
            KT_CHECK_INT(all[m].pdb_violations, all[1].pdb_violations);
        }
    }
}

static inline void tp_end(void) {
    kp_sched_free(tp_s);
    tp_s = NULL;
    kp_cluster_free(tp_cl);
    tp_cl = NULL;
}

#endif
