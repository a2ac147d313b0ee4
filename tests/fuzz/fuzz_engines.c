/* libFuzzer harness for the engines on decoded clusters, written on the public API alone
 * (include/kprio/): the input is a snapshot (JSON or YAML, as kp_cluster_load_buffer detects
 * it); when it loads and finalizes, kprio runs on it
 *   - what-if preemption (kp_preemption_new) for the first pending pods, optimised and
 *     --reference, with the candidate offset and the final tie fixed;
 *   - kubelet admission (kp_admit) of the first pods on the first nodes;
 *   - node-pressure eviction (kp_evict_manager_step) on the first nodes, three steps, with a fixed
 *     kubelet configuration and Summary API documents derived from the input's bytes and pods;
 *   - the scheduling cycle with preemption (kp_sched_run), victims left terminating, then again
 *     on a fresh load with until_settled;
 * and checks the invariants that hold whatever the input:
 *   - no crash, no sanitizer report, no leak; every error carries a message;
 *   - a pod bound by the scheduler fits its node: on every node whose requested cpu, memory or pod
 *     count grew, the amount is within allocatable (the node's own accounting, which counts
 *     terminating pods as upstream's NodeInfo does; a pod requesting 0 of a resource may land on a
 *     node already over it, as NodeResourcesFit allows, hence "grew");
 *   - no victim of the scheduler or of a what-if has a priority >= its preemptor's, victims are
 *     bound to the nominated node, which exists; an admission victim is preemptable by the
 *     kubelet's rule (kubetypes.Preemptable: critical preemptor, victim not critical by priority
 *     or of lower priority), is bound to the node and only an admitted critical pod has victims;
 *   - the what-if leaves the cluster as it was, and optimised and --reference agree;
 *   - an eviction step evicts at most one pod, except local-storage evictions (upstream's
 *     localStorageEviction returns every pod over its limits), only active pods of the node, and
 *     each at most once;
 *   - everything is deterministic: the whole run is made twice on fresh loads and the digests of
 *     the two runs must be equal.
 * Inputs over 64 KiB, and clusters big enough to make one input take seconds, are skipped. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kprio/inspect.h"
#include "kprio/preempt.h"
#include "kprio/sched.h"

#define MAX_INPUT (64u << 10)
#define MAX_PODS 300
#define MAX_NODES 40
#define MAX_WHATIF 6 /* pending pods given a what-if preemption */
#define MAX_ADMIT 4 /* pods x nodes admitted */
#define MAX_EVICT_NODES 3
#define EVICT_STEPS 3
#define CRITICAL_PRIORITY 2000000000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "fuzz_engines: invariant broken: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

/* Every error must carry a message. */
static void check_err(kp_status st, const kp_error *err, const char *where) {
    if (st != KP_OK && err->msg[0] == 0) fail("an error without a message", where);
}

/* ---- digest (FNV-1a, 64 bits) ---- */

typedef struct {
    uint64_t h;
} digest;

static void dg_bytes(digest *d, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) d->h = (d->h ^ b[i]) * 0x100000001b3ull;
}
static void dg_i64(digest *d, int64_t v) { dg_bytes(d, &v, sizeof v); }
static void dg_str(digest *d, const char *s) {
    if (!s) s = "(null)";
    dg_bytes(d, s, strlen(s) + 1);
}

/* ---- a small deterministic PRNG for the derived summaries (splitmix64) ---- */

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- a growable text buffer for the summaries ---- */

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} text;

static void tx_add(text *t, const char *s, size_t n) {
    if (t->oom) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1) cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}
static void tx_s(text *t, const char *s) { tx_add(t, s, strlen(s)); }
static void tx_u(text *t, uint64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    tx_s(t, b);
}
/* A JSON string literal (names may hold any byte but NUL). */
static void tx_json(text *t, const char *s) {
    tx_s(t, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char b[8];
        if (*c == '"' || *c == '\\') {
            b[0] = '\\';
            b[1] = (char)*c;
            tx_add(t, b, 2);
        } else if (*c < 0x20) {
            snprintf(b, sizeof b, "\\u%04x", *c);
            tx_s(t, b);
        } else {
            tx_add(t, (const char *)c, 1);
        }
    }
    tx_s(t, "\"");
}

/* ---- cluster state (for "the what-if changed nothing") ---- */

static uint64_t cluster_state(const kp_cluster *cl) {
    digest d = {0xcbf29ce484222325ull};
    size_t np = kp_cluster_pod_count(cl);
    for (size_t i = 0; i < np; i++) dg_i64(&d, kp_cluster_pod_node(cl, (kp_index)i));
    kp_inspection *in = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_inspection_new(cl, &in, &err);
    check_err(st, &err, "kp_inspection_new");
    if (st != KP_OK) return d.h;
    const kp_inspect_summary *s = kp_inspection_summary(in);
    dg_i64(&d, (int64_t)s->pending_pods);
    dg_i64(&d, (int64_t)s->terminating_pods);
    dg_i64(&d, (int64_t)s->nominated_pods);
    for (size_t i = 0; i < kp_inspection_node_count(in); i++) {
        const kp_inspect_node *n = kp_inspection_node(in, i);
        dg_i64(&d, n->requested_cpu_milli);
        dg_i64(&d, n->requested_memory);
        dg_i64(&d, n->requested_pods);
    }
    kp_inspection_free(in);
    return d.h;
}

/* Requested and allocatable per node, indexed by cluster node index. */
typedef struct {
    int64_t req[3], alloc[3]; /* cpu (milli), memory, pods */
    bool seen;
} node_use;

static node_use *node_usage(const kp_cluster *cl) {
    size_t nn = kp_cluster_node_count(cl);
    node_use *u = calloc(nn ? nn : 1, sizeof *u);
    if (!u) return NULL;
    kp_inspection *in = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_inspection_new(cl, &in, &err);
    check_err(st, &err, "kp_inspection_new");
    if (st != KP_OK) {
        free(u);
        return NULL;
    }
    for (size_t i = 0; i < kp_inspection_node_count(in); i++) {
        const kp_inspect_node *n = kp_inspection_node(in, i);
        kp_index ni = kp_cluster_find_node(cl, n->name);
        if (ni < 0 || (size_t)ni >= nn) fail("an inspected node the cluster cannot find", n->name);
        node_use *x = &u[ni];
        if (x->seen) fail("two inspection rows for one node", n->name);
        x->seen = true;
        x->req[0] = n->requested_cpu_milli;
        x->req[1] = n->requested_memory;
        x->req[2] = n->requested_pods;
        x->alloc[0] = n->allocatable_cpu_milli;
        x->alloc[1] = n->allocatable_memory;
        x->alloc[2] = n->allocatable_pods;
    }
    kp_inspection_free(in);
    return u;
}

static bool valid_node(const kp_cluster *cl, kp_index n) {
    return n >= 0 && (size_t)n < kp_cluster_node_count(cl);
}
static bool valid_pod(const kp_cluster *cl, kp_index p) {
    return p >= 0 && (size_t)p < kp_cluster_pod_count(cl);
}

/* ---- what-if preemption ---- */

static void whatif_one(kp_cluster *cl, kp_index pod, bool reference, digest *d, digest *cmp) {
    kp_preempt_options o;
    kp_preempt_options_init(&o);
    o.seed = 7;
    o.offset = 0;
    o.tie = 0;
    o.reference = reference;
    kp_preemption *p = NULL;
    kp_error err;
    kp_error_clear(&err);
    uint64_t before = cluster_state(cl);
    kp_status st = kp_preemption_new(cl, pod, &o, &p, &err);
    check_err(st, &err, "kp_preemption_new");
    if (cluster_state(cl) != before) fail("a what-if preemption changed the cluster", NULL);
    dg_i64(d, st);
    dg_i64(cmp, st);
    if (st != KP_OK) {
        if (p) fail("kp_preemption_new failed but returned a result", err.msg);
        return;
    }
    kp_preemption_verdict v = kp_preemption_outcome(p);
    kp_index node = kp_preemption_node(p);
    size_t nv = kp_preemption_victim_count(p);
    if ((v == KP_PREEMPTION_NOMINATED || v == KP_PREEMPTION_NOT_NEEDED) && !valid_node(cl, node))
        fail("a what-if names a node that does not exist", kp_preemption_message(p));
    if (v != KP_PREEMPTION_NOMINATED && nv) fail("victims without a nomination", NULL);
    int32_t prio = kp_cluster_pod_priority(cl, pod);
    for (size_t i = 0; i < nv; i++) {
        kp_index vi = kp_preemption_victim(p, i);
        if (!valid_pod(cl, vi) || vi == pod) fail("a what-if victim is not a pod", NULL);
        if (kp_cluster_pod_priority(cl, vi) >= prio)
            fail("a what-if victim's priority is not below the preemptor's",
                 kp_cluster_pod_name(cl, vi));
        if (kp_cluster_pod_node(cl, vi) != node)
            fail("a what-if victim is not on the nominated node", kp_cluster_pod_name(cl, vi));
        dg_i64(d, vi);
        dg_i64(cmp, vi);
    }
    dg_i64(d, v);
    dg_i64(d, node);
    dg_i64(d, kp_preemption_pdb_violations(p));
    dg_str(d, kp_preemption_message(p));
    dg_str(d, kp_preemption_decided_by(p));
    dg_i64(cmp, v);
    dg_i64(cmp, node);
    dg_i64(cmp, kp_preemption_pdb_violations(p));
    dg_str(cmp, kp_preemption_message(p));
    kp_preemption_free(p);
}

static void whatifs(kp_cluster *cl, digest *d) {
    size_t np = kp_cluster_pod_count(cl), done = 0;
    for (size_t i = 0; i < np && done < MAX_WHATIF; i++) {
        if (kp_cluster_pod_node(cl, (kp_index)i) >= 0) continue;
        done++;
        digest fast = {1}, ref = {1};
        whatif_one(cl, (kp_index)i, false, d, &fast);
        whatif_one(cl, (kp_index)i, true, d, &ref);
        if (fast.h != ref.h)
            fail("the optimised and the reference preemption disagree",
                 kp_cluster_pod_name(cl, (kp_index)i));
    }
}

/* ---- kubelet admission ---- */

static void admit_one(const kp_cluster *cl, kp_admission *a, kp_index node, kp_index pod,
                      digest *d) {
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_admit(cl, node, pod, NULL, a, &err);
    check_err(st, &err, "kp_admit");
    dg_i64(d, st);
    if (st != KP_OK) return;
    bool admitted = kp_admission_admitted(a);
    const char *reason = kp_admission_reason(a), *msg = kp_admission_message(a);
    if (!reason || !msg) fail("an admission without reason or message", NULL);
    if (admitted && reason[0]) fail("an admitted pod with a rejection reason", reason);
    if (!admitted && !reason[0]) fail("a rejected pod without a reason", msg);
    size_t nv = kp_admission_victim_count(a);
    if (nv && (!admitted || !kp_admission_critical(a)))
        fail("admission victims for a pod not admitted or not critical", NULL);
    int32_t prio = kp_cluster_pod_priority(cl, pod);
    for (size_t i = 0; i < nv; i++) {
        const kp_admit_victim *v = kp_admission_victim(a, i);
        if (!v || !valid_pod(cl, v->pod) || v->pod == pod)
            fail("an admission victim is not a pod", NULL);
        if (kp_cluster_pod_node(cl, v->pod) != node)
            fail("an admission victim is not on the node", kp_cluster_pod_name(cl, v->pod));
        if (v->priority != kp_cluster_pod_priority(cl, v->pod))
            fail("an admission victim's priority is not the pod's", NULL);
        if (v->priority >= CRITICAL_PRIORITY && v->priority >= prio)
            fail("an admission victim is critical and not of lower priority",
                 kp_cluster_pod_name(cl, v->pod));
        for (size_t j = 0; j < i; j++)
            if (kp_admission_victim(a, j)->pod == v->pod) fail("an admission victim twice", NULL);
        dg_i64(d, v->pod);
        dg_i64(d, v->qos);
    }
    dg_i64(d, admitted);
    dg_str(d, reason);
    dg_str(d, msg);
    for (size_t i = 0; i < kp_admission_failure_count(a); i++) {
        const kp_admit_reason *r = kp_admission_failure(a, i);
        if (!r || !r->reason || !r->message) fail("an admission failure without text", NULL);
        dg_str(d, r->reason);
        dg_str(d, r->message);
    }
}

static void admissions(const kp_cluster *cl, digest *d) {
    kp_admission *a = kp_admission_new();
    if (!a) return;
    size_t np = kp_cluster_pod_count(cl), nn = kp_cluster_node_count(cl);
    for (size_t p = 0; p < np && p < MAX_ADMIT; p++)
        for (size_t n = 0; n < nn && n < MAX_ADMIT; n++)
            admit_one(cl, a, (kp_index)n, (kp_index)p, d);
    kp_admission_free(a);
}

/* ---- node-pressure eviction ---- */

static const char *const EVICT_FLAGS[][2] = {
    {"eviction-hard", "memory.available<1Gi,nodefs.available<10%,nodefs.inodesFree<5%,"
                      "imagefs.available<15%,pid.available<100"},
    {"eviction-soft", "memory.available<2Gi,nodefs.available<20%"},
    {"eviction-soft-grace-period", "memory.available=1m,nodefs.available=30s"},
    {"eviction-minimum-reclaim", "memory.available=100Mi,nodefs.available=1Gi"},
    {"eviction-max-pod-grace-period", "30"},
};

static kp_evict_config *evict_config(void) {
    kp_evict_config *cfg = kp_evict_config_new();
    if (!cfg) return NULL;
    kp_error err;
    kp_error_clear(&err);
    for (size_t i = 0; i < sizeof EVICT_FLAGS / sizeof EVICT_FLAGS[0]; i++)
        if (kp_evict_config_set_flag(cfg, EVICT_FLAGS[i][0], EVICT_FLAGS[i][1], &err) != KP_OK)
            fail("the fixed kubelet flags are rejected", err.msg);
    if (kp_evict_config_finish(cfg, &err) != KP_OK)
        fail("the fixed kubelet configuration is rejected", err.msg);
    return cfg;
}

static void fs_stats(text *t, uint64_t *rng, const char *time) {
    uint64_t cap = (uint64_t)100 << 30, inodes = 1000000;
    tx_s(t, "{\"time\":\"");
    tx_s(t, time);
    tx_s(t, "\",\"availableBytes\":");
    tx_u(t, mix(rng) % cap);
    tx_s(t, ",\"capacityBytes\":");
    tx_u(t, cap);
    tx_s(t, ",\"inodesFree\":");
    tx_u(t, mix(rng) % inodes);
    tx_s(t, ",\"inodes\":");
    tx_u(t, inodes);
    tx_s(t, "}");
}

/* A Summary API document for node `node` at step `step`: usage drawn from rng, one entry per pod
 * bound to the node (podRef by namespace and name). */
static void summary_text(const kp_cluster *cl, kp_index node, int step, uint64_t *rng, text *t) {
    char time[40];
    snprintf(time, sizeof time, "2025-01-01T00:%02d:00Z", step * 2);
    uint64_t mem = (uint64_t)8 << 30;
    tx_s(t, "{\"node\":{\"nodeName\":");
    tx_json(t, kp_cluster_node_name(cl, node));
    tx_s(t, ",\"memory\":{\"time\":\"");
    tx_s(t, time);
    tx_s(t, "\",\"availableBytes\":");
    tx_u(t, mix(rng) % mem);
    tx_s(t, ",\"workingSetBytes\":");
    tx_u(t, mix(rng) % mem);
    tx_s(t, "},\"fs\":");
    fs_stats(t, rng, time);
    tx_s(t, ",\"runtime\":{\"imageFs\":");
    fs_stats(t, rng, time);
    tx_s(t, "},\"rlimit\":{\"time\":\"");
    tx_s(t, time);
    tx_s(t, "\",\"maxpid\":4096,\"curproc\":");
    tx_u(t, mix(rng) % 4096);
    tx_s(t, "}},\"pods\":[");
    size_t np = kp_cluster_pod_count(cl);
    bool first = true;
    for (size_t i = 0; i < np; i++) {
        if (kp_cluster_pod_node(cl, (kp_index)i) != node) continue;
        tx_s(t, first ? "{\"podRef\":{\"name\":" : ",{\"podRef\":{\"name\":");
        first = false;
        tx_json(t, kp_cluster_pod_name(cl, (kp_index)i));
        tx_s(t, ",\"namespace\":");
        tx_json(t, kp_cluster_pod_namespace(cl, (kp_index)i));
        tx_s(t, "},\"memory\":{\"workingSetBytes\":");
        tx_u(t, mix(rng) % ((uint64_t)2 << 30));
        tx_s(t, "},\"ephemeral-storage\":{\"usedBytes\":");
        tx_u(t, mix(rng) % ((uint64_t)4 << 30));
        tx_s(t, ",\"inodesUsed\":");
        tx_u(t, mix(rng) % 10000);
        tx_s(t, "},\"process_stats\":{\"process_count\":");
        tx_u(t, mix(rng) % 100);
        tx_s(t, "}");
        /* Half of the pod entries have no container and no volume (a Summary may omit both:
         * tests/fuzz/crashes-found/summary-null-conts). */
        if (mix(rng) & 1) {
            tx_s(t, ",\"containers\":[{\"name\":\"c\",\"rootfs\":{\"usedBytes\":");
            tx_u(t, mix(rng) % ((uint64_t)1 << 30));
            tx_s(t, ",\"inodesUsed\":");
            tx_u(t, mix(rng) % 5000);
            tx_s(t, "},\"logs\":{\"usedBytes\":");
            tx_u(t, mix(rng) % ((uint64_t)1 << 28));
            tx_s(t, "}}],\"volume\":[{\"name\":\"v\",\"usedBytes\":");
            tx_u(t, mix(rng) % ((uint64_t)1 << 30));
            tx_s(t, "}]");
        }
        tx_s(t, "}");
    }
    tx_s(t, "]}");
}

static void check_step(const kp_cluster *cl, kp_index node, const kp_evict_result *res,
                       bool *evicted, size_t active_before, size_t active_after, size_t n_thr) {
    if (res->n_evicted > 1)
        for (size_t i = 0; i < res->n_evicted; i++)
            if (!res->evicted[i].local_storage)
                fail("a step evicts more than one pod, not all for local storage", NULL);
    for (size_t i = 0; i < res->n_evicted; i++) {
        kp_index p = res->evicted[i].pod;
        if (!valid_pod(cl, p) || kp_cluster_pod_node(cl, p) != node)
            fail("an evicted pod is not a pod of the node", NULL);
        if (evicted[p]) fail("a pod evicted twice", kp_cluster_pod_name(cl, p));
        evicted[p] = true;
        if (!res->evicted[i].message || !res->evicted[i].signal)
            fail("an eviction without a message or a signal", NULL);
    }
    if (active_after + res->n_evicted != active_before)
        fail("the active pods do not shrink by the pods evicted", NULL);
    if (res->n_ranking > active_before) fail("a ranking longer than the active pods", NULL);
    for (size_t i = 0; i < res->n_ranking; i++) {
        kp_index p = res->ranking[i];
        if (!valid_pod(cl, p) || kp_cluster_pod_node(cl, p) != node)
            fail("a ranked pod is not a pod of the node", NULL);
    }
    for (size_t i = 0; i < res->n_met; i++)
        if (res->met[i].index >= n_thr || (unsigned)res->met[i].signal >= KP_EVSIG_COUNT)
            fail("a met threshold out of range", NULL);
    if (res->has_reclaim && res->reclaim_threshold >= n_thr)
        fail("the reclaim threshold is out of range", NULL);
}

static void evict_node(const kp_cluster *cl, const kp_evict_config *cfg, kp_index node,
                       uint64_t seed, digest *d) {
    kp_evict_manager *m = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_evict_manager_new(cl, node, cfg, &m, &err);
    check_err(st, &err, "kp_evict_manager_new");
    dg_i64(d, st);
    if (st != KP_OK) return;
    bool *evicted = calloc(kp_cluster_pod_count(cl) + 1, 1);
    uint64_t rng = seed ^ (uint64_t)node;
    for (int step = 0; step < EVICT_STEPS && evicted; step++) {
        text t = {0};
        summary_text(cl, node, step, &rng, &t);
        if (t.oom) break;
        kp_evict_summary *s = NULL;
        st = kp_evict_summary_load_buffer("fuzz-summary.json", t.p, t.len, &s, &err);
        if (st != KP_OK) fail("a derived summary does not load", err.msg);
        free(t.p);
        size_t before = kp_evict_manager_active_count(m);
        kp_evict_result res;
        st = kp_evict_manager_step(m, s, &res, &err);
        check_err(st, &err, "kp_evict_manager_step");
        dg_i64(d, st);
        if (st == KP_OK) {
            check_step(cl, node, &res, evicted, before, kp_evict_manager_active_count(m),
                       kp_evict_manager_threshold_count(m));
            dg_i64(d, (int64_t)res.conditions);
            for (size_t i = 0; i < res.n_met; i++) dg_i64(d, (int64_t)res.met[i].index);
            for (size_t i = 0; i < res.n_ranking; i++) dg_i64(d, res.ranking[i]);
            for (size_t i = 0; i < res.n_evicted; i++) {
                dg_i64(d, res.evicted[i].pod);
                dg_str(d, res.evicted[i].message);
            }
            dg_str(d, res.note);
        }
        kp_evict_summary_free(s);
        if (st != KP_OK) break;
    }
    free(evicted);
    kp_evict_manager_free(m);
}

static void evictions(const kp_cluster *cl, uint64_t seed, digest *d) {
    kp_evict_config *cfg = evict_config();
    if (!cfg) return;
    size_t nn = kp_cluster_node_count(cl);
    for (size_t n = 0; n < nn && n < MAX_EVICT_NODES; n++)
        evict_node(cl, cfg, (kp_index)n, seed, d);
    kp_evict_config_free(cfg);
}

/* ---- the scheduling cycle ---- */

static void check_result(const kp_sched *s, const kp_cluster *cl, const kp_sched_pod_result *r,
                         bool settled, unsigned char *seen) {
    if (!valid_pod(cl, r->pod)) fail("a result for a pod that does not exist", NULL);
    if (seen[r->pod]++) fail("two results for one pod", kp_cluster_pod_name(cl, r->pod));
    if (r->priority != kp_cluster_pod_priority(cl, r->pod))
        fail("a result's priority is not the pod's", NULL);
    if (!r->message) fail("a result without a message", NULL);
    if (r->outcome == KP_OUTCOME_BOUND) {
        if (!valid_node(cl, r->node)) fail("a pod bound to a node that does not exist", NULL);
        size_t who;
        if (kp_cluster_pod_node(cl, r->pod) != r->node &&
            kp_sched_result_find_preemptor(s, r->pod, &who) != KP_OK)
            fail("a bound pod is not on its node and nobody preempted it", NULL);
    } else if (r->outcome == KP_OUTCOME_NOMINATED) {
        if (!valid_node(cl, r->nominated_node))
            fail("a nominated node that does not exist", kp_cluster_pod_name(cl, r->pod));
    } else if (r->outcome != KP_OUTCOME_UNSCHEDULABLE) {
        fail("an unknown outcome", NULL);
    }
    for (size_t v = 0; v < r->n_victims; v++) {
        kp_index vi = r->victims[v];
        if (!valid_pod(cl, vi) || vi == r->pod) fail("a victim that is not another pod", NULL);
        if (kp_cluster_pod_priority(cl, vi) >= r->priority)
            fail("a victim's priority is not below its preemptor's", kp_cluster_pod_name(cl, vi));
        if (!valid_node(cl, r->victim_nodes[v]))
            fail("a victim on a node that does not exist", NULL);
        if (!settled && kp_cluster_pod_node(cl, vi) != r->victim_nodes[v])
            fail("a terminating victim left its node", kp_cluster_pod_name(cl, vi));
    }
}

/* Every node whose requested cpu, memory or pod count grew is within allocatable. */
static void check_fit(const kp_cluster *cl, const node_use *before, const node_use *after) {
    static const char *const what[3] = {"cpu", "memory", "pods"};
    for (size_t n = 0; n < kp_cluster_node_count(cl); n++)
        for (int r = 0; r < 3; r++)
            if (after[n].req[r] > before[n].req[r] && after[n].req[r] > after[n].alloc[r]) {
                char b[200];
                snprintf(b, sizeof b, "node %s %s requested %" PRId64 " > allocatable %" PRId64,
                         kp_cluster_node_name(cl, (kp_index)n), what[r], after[n].req[r],
                         after[n].alloc[r]);
                fail("a pod bound where it does not fit", b);
            }
}

static void schedule(kp_cluster *cl, bool settled, digest *d) {
    node_use *before = node_usage(cl);
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 42;
    o.until_settled = settled;
    kp_sched *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_sched_new(cl, NULL, &o, &s, &err);
    check_err(st, &err, "kp_sched_new");
    if (st == KP_OK) st = kp_sched_run(s, &err);
    check_err(st, &err, "kp_sched_run");
    dg_i64(d, st);
    unsigned char *seen = calloc(kp_cluster_pod_count(cl) + 1, 1);
    if (st == KP_OK && seen) {
        for (size_t i = 0; i < kp_sched_result_count(s); i++) {
            const kp_sched_pod_result *r = kp_sched_result(s, i);
            if (!r) fail("a result index within the count gives NULL", NULL);
            check_result(s, cl, r, settled, seen);
            dg_i64(d, r->pod);
            dg_i64(d, r->outcome);
            dg_i64(d, r->node);
            dg_i64(d, r->nominated_node);
            for (size_t v = 0; v < r->n_victims; v++) dg_i64(d, r->victims[v]);
            dg_str(d, r->message);
        }
        node_use *after = node_usage(cl);
        if (before && after) check_fit(cl, before, after);
        free(after);
    }
    free(seen);
    free(before);
    kp_sched_free(s);
}

/* ---- one run ---- */

static kp_cluster *load(const uint8_t *data, size_t size, bool *ok) {
    kp_cluster *cl = kp_cluster_new();
    *ok = false;
    if (!cl) return NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cluster_load_buffer(cl, "fuzz.yaml", (const char *)data, size, &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    check_err(st, &err, "load");
    *ok = st == KP_OK;
    return cl;
}

/* Runs every engine on fresh loads of the input; returns the digest of all answers, 0 when the
 * input does not load or is too big. */
static uint64_t run(const uint8_t *data, size_t size) {
    bool ok;
    kp_cluster *cl = load(data, size, &ok);
    if (!ok || kp_cluster_pod_count(cl) > MAX_PODS || kp_cluster_node_count(cl) > MAX_NODES) {
        kp_cluster_free(cl);
        return 0;
    }
    digest d = {0xcbf29ce484222325ull};
    digest in = {0xcbf29ce484222325ull};
    dg_bytes(&in, data, size);
    whatifs(cl, &d);
    admissions(cl, &d);
    evictions(cl, in.h, &d);
    schedule(cl, false, &d);
    kp_cluster_free(cl);
    cl = load(data, size, &ok);
    if (ok) schedule(cl, true, &d);
    kp_cluster_free(cl);
    return d.h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > MAX_INPUT) return 0;
    uint64_t a = run(data, size);
    if (a == 0) return 0;
    if (run(data, size) != a) fail("two runs on the same input give different answers", NULL);
    return 0;
}
