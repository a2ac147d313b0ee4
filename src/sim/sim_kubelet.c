/* The kubelets of a simulation (docs/simulate.md "Kubelets"): one eviction manager per node,
 * driven through kprio/eviction.h exactly as `kprio evict` drives it. Every
 * evictionMonitoringPeriod a node's kubelet observes its pods' usage (the Scenario's usage
 * models, else each pod's memory request) as a Summary, filled through kprio/summary_builder.h
 * (no JSON text: that is written only for summary_hook, --dump-summaries, and decodes to the
 * same summary), runs one synchronize step and applies its decision: the evicted pod goes Failed
 * with reason Evicted and the engine's message, and the node's pressure conditions are reported
 * (the node lifecycle controller, src/ctrl/node_lifecycle.c, taints the node after them).
 *
 * Upstream: pkg/kubelet/eviction/eviction_manager.go (managerImpl.Start: synchronize every
 * monitoringInterval; after an eviction, waitForPodsCleanup polls every podCleanupPollFreq = 1s
 * for at most podCleanupTimeout = 30s before the next synchronize), pkg/kubelet/nodestatus/
 * setters.go (MemoryPressureCondition & co.: the NodeHas... events). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_usage.h"

#define KUBELET_PERIOD_MS 10000 /* evictionMonitoringPeriod */
#define CLEANUP_POLL_MS 1000 /* podCleanupPollFreq */
#define CLEANUP_TIMEOUT_MS 30000 /* podCleanupTimeout */

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory");
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* ---------------------------------------------------------------- decisions */

static const struct {
    unsigned bit;
    const char *on, *off;
} PRESSURE[] = {
    {KP_NODE_COND_MEMORY_PRESSURE, "NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
    {KP_NODE_COND_DISK_PRESSURE, "NodeHasDiskPressure", "NodeHasNoDiskPressure"},
    {KP_NODE_COND_PID_PRESSURE, "NodeHasInsufficientPID", "NodeHasSufficientPID"},
};

/* The kubelet reports each condition that changed (recordNodeStatusEvent); the node lifecycle
 * controller follows each report with its taint (kp_ctrl_node_lifecycle_sync). */
static kp_status follow_conditions(kp_sim *s, kp_index node, sim_kub_node *kn, unsigned cond,
                                   kp_error *err) {
    bool untainted = false;
    const char *nn = kp_cluster_node_name(s->cl, node);
    kp_sched_node_before(s->sched, node); /* the NodeUpdate's old object */
    for (size_t i = 0; i < sizeof PRESSURE / sizeof PRESSURE[0]; i++) {
        unsigned b = PRESSURE[i].bit;
        bool on = (cond & b) != 0, was = (kn->tainted & b) != 0;
        if (on == was) continue;
        const char *what = on ? PRESSURE[i].on : PRESSURE[i].off;
        if (kp__sim_logf(s, KP_SIM_NORMAL, what, -1, node, -1, "Node %s status is now: %s", nn,
                         what) < 0)
            return nomem(err);
        if (on) kn->tainted |= b;
        else kn->tainted &= ~b;
        bool removed = false;
        kp_status st = kp__sim_node_lifecycle(s, node, kn->tainted, &removed, err);
        if (st != KP_OK) return st;
        untainted |= removed;
    }
    if (untainted && kp__sim_move_node(s, KP_SCHED_EV_NODE_UPDATE, node) != KP_OK)
        return nomem(err);
    return KP_OK;
}

/* mirrors managerImpl.evictPod: the pod is killed with the grace period override, then its
 * status is Failed, reason Evicted, the engine's message (an event of reason Evicted). */
static kp_status evict(kp_sim *s, kp_index node, sim_kub_node *kn, const kp_evict_eviction *e,
                       kp_error *err) {
    kp__sim_disrupted(s, e->pod, KP_SIM_DISRUPT_NODE_PRESSURE);
    long ev = kp__sim_logf(s, KP_SIM_WARNING, "Evicted", e->pod, node, -1, "%s", e->message);
    /* evictPod kills the pod at once (killPodFunc): its containers are stopped */
    if (ev < 0 || kp__sim_log_killing(s, (uint32_t)e->pod, node, ev) != KP_OK) return nomem(err);
    sim_pod *sp = &s->pods[e->pod];
    if (sp->lost_ev < 0) sp->lost_ev = ev;
    sp->evict_msg = s->events[ev].message; /* its status message once killed */
    sp->evict_condition = !e->local_storage;
    if (!kp__grow32((void **)&kn->waits, &kn->cap_waits, (size_t)kn->n_waits + 1, sizeof *kn->waits,
                    2))
        return nomem(err);
    kn->waits[kn->n_waits++] = e->pod;
    kn->wait_since = s->now;
    kn->wait_kill_at = s->now + e->grace_seconds * 1000;
    s->c.kubelet_evictions++;
    if (e->grace_seconds > 0) { /* Terminating until killed (kp__sim_pod_state) */
        sp->pub.terminating_ms = s->now;
        return KP_OK; /* killed when the grace period ends (the cleanup polls) */
    }
    return KP_OK;
}

/* Keeps the ranking a threshold eviction of e->pod was decided on (kp_sim_eviction_ranking):
 * the result's entries are the engine's, valid until the manager's next step. */
static kp_status keep_ranking(kp_sim *s, kp_index node, const kp_evict_result *res,
                              const kp_evict_eviction *e) {
    sim_kubelets *k = s->kub;
    size_t pos = 0;
    while (pos < res->n_ranking && res->rank_entries[pos].pod != e->pod) pos++;
    if (pos == res->n_ranking) return KP_OK;
    if (!kp__grow((void **)&k->ranks, &k->cap_ranks, k->n_ranks + 1, sizeof *k->ranks, 16) ||
        !kp__grow((void **)&k->rank_pool, &k->cap_rank_pool, k->n_rank_pool + res->n_ranking,
                  sizeof *k->rank_pool, 64))
        return KP_ENOMEM;
    sim_rank_rec *r = &k->ranks[k->n_ranks++];
    r->pod = e->pod;
    r->node = node;
    r->t_ms = s->now;
    r->signal = e->signal;
    r->message = s->pods[e->pod].evict_msg;
    r->kind = res->rank_kind;
    r->off = k->n_rank_pool;
    r->n = res->n_ranking;
    r->position = pos;
    memcpy(k->rank_pool + k->n_rank_pool, res->rank_entries, res->n_ranking * sizeof *k->rank_pool);
    k->n_rank_pool += res->n_ranking;
    return KP_OK;
}

bool kp_sim_eviction_ranking_get(const kp_sim *s, kp_index pod, kp_sim_eviction_ranking *out) {
    const sim_kubelets *k = s->kub;
    for (size_t i = k ? k->n_ranks : 0; i-- > 0;) {
        const sim_rank_rec *r = &k->ranks[i];
        if (r->pod != pod) continue;
        out->node = r->node;
        out->t_ms = r->t_ms;
        out->signal = r->signal;
        out->message = r->message ? r->message : "";
        out->kind = r->kind;
        out->ranking = k->rank_pool + r->off;
        out->n_ranking = r->n;
        out->position = r->position;
        return true;
    }
    return false;
}

/* The evicted pod's containers are stopped: Failed, Evicted; its controller replaces it. */
static kp_status finish_evicted(kp_sim *s, kp_index pod, kp_error *err) {
    kp_status st = kp__sim_pod_finished(s, (uint32_t)pod, KP_POD_PHASE_FAILED, "Evicted",
                                        s->pods[pod].evict_msg, s->pods[pod].evict_condition, err);
    if (st == KP_OK) s->pods[pod].pub.cause = "evicted";
    return st;
}

/* ---------------------------------------------------------------- the pass */

static kp_status step(kp_sim *s, kp_index node, sim_kub_node *kn, uint64_t pods_sig,
                      const kp_evict_summary *sum, kp_error *err) {
    sim_kubelets *k = s->kub;
    kp_status st;
    if (!kn->m) {
        const kp_evict_config *cfg = kp__sim_kubelet_config(s, node, k->cfg); /* its pool's */
        if ((st = kp_evict_manager_new(s->cl, node, cfg, &kn->m, err)) != KP_OK) return st;
    } else if (pods_sig != kn->pods_sig) {
        if ((st = kp_evict_manager_sync_pods(kn->m, err)) != KP_OK) return st;
    }
    kp_evict_result res;
    if ((st = kp_evict_manager_step(kn->m, sum, &res, err)) != KP_OK) return st;
    s->c.kubelet_steps++;
    kn->idle = res.n_met == 0 && res.conditions == 0;
    if ((st = follow_conditions(s, node, kn, res.conditions, err)) != KP_OK) return st;
    /* one threshold eviction per pass (the manager returns after the first pod it kills);
     * localStorageEviction evicts every pod past a local-storage limit in the same pass */
    for (size_t i = 0; i < res.n_evicted && st == KP_OK; i++) {
        if (i && !res.evicted[i].local_storage) break;
        if ((st = evict(s, node, kn, &res.evicted[i], err)) != KP_OK) return st;
        if (!res.evicted[i].local_storage && keep_ranking(s, node, &res, &res.evicted[i]) != KP_OK)
            return nomem(err);
        if (res.evicted[i].grace_seconds <= 0) st = finish_evicted(s, res.evicted[i].pod, err);
    }
    return st;
}

/* The node's pod list (bound, not terminal: finished and deleted pods leave it). Hashed only when
 * its generation moved since the last observation: while the generation is the same, so is the
 * list, and a quiet pass costs no look at it. */
static uint64_t ids_sig(const kp_sim *s, kp_index node, const sim_kub_node *kn, uint32_t gen) {
    if (kn->has_ids && gen == kn->ids_gen) return kn->ids_sig;
    uint64_t h = 0x9abc;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    for (size_t i = 0; i < n; i++) h = mix(h, (uint64_t)kp_cluster_node_pod(s->cl, node, i));
    return mix(h, (uint64_t)n);
}

/* The evicted pod is cleaned up (podCleanedUpFunc): gone, or ended. */
static bool cleaned_up(kp_sim *s, kp_index pod) {
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    return pi.deleted || pi.terminal;
}

/* the document text of sum into k->json */
static kp_status keep_json(void *ctx, const char *buf, size_t len) {
    sim_kubelets *k = ctx;
    if (!kp__grow((void **)&k->json, &k->json_cap, len + 1, 1, 4096)) return KP_ENOMEM;
    memcpy(k->json, buf, len);
    k->json[len] = 0;
    k->json_len = len;
    return KP_OK;
}

/* summary_hook (--dump-summaries): the summary as the Summary API document it decodes from */
static kp_status hook(kp_sim *s, kp_index node, const kp_evict_summary *sum, kp_error *err) {
    sim_kubelets *k = s->kub;
    kp_status st = kp_evict_summary_encode_json(sum, keep_json, k, err);
    if (st == KP_ENOMEM) return nomem(err);
    if (st != KP_OK) return st;
    return s->o.summary_hook(s->o.summary_ctx, s, node, k->json, k->json_len, err);
}

static kp_status pass(kp_sim *s, kp_index node, kp_error *err) {
    sim_kubelets *k = s->kub;
    if (!k || (size_t)node >= k->n_nodes || kp_cluster_node_deleted(s->cl, node)) return KP_OK;
    sim_kub_node *kn = &k->nodes[node];
    kp_status st = KP_OK;
    k->sched_seen = s->c.scheduled;
    k->oom = false;
    if (kn->n_waits) { /* waitForPodsCleanup: every evicted pod gone or ended */
        bool all = true;
        for (uint32_t i = 0; i < kn->n_waits; i++) {
            kp_index p = kn->waits[i];
            if (!cleaned_up(s, p) && s->now >= kn->wait_kill_at &&
                (st = finish_evicted(s, p, err)) != KP_OK)
                return st;
            if (!cleaned_up(s, p)) all = false;
        }
        if (!all && s->now - kn->wait_since < CLEANUP_TIMEOUT_MS)
            return kp__sim_timer_add(s, s->now + CLEANUP_POLL_MS, SIM_EV_KUBELET, node, 0) == KP_OK
                       ? KP_OK
                       : nomem(err);
        kn->n_waits = 0;
    }
    bool live = false;
    uint32_t gen = kp_cluster_node_generation(s->cl, node);
    uint64_t ps = 0, os = 0, ids = ids_sig(s, node, kn, gen);
    if (kn->has_ids && ids == kn->ids_sig) kn->ids_gen = gen; /* the same list: no new hash */
    /* a node whose pods and usage did not change since a step that met nothing needs no step:
     * the manager would decide the same (no allocation, no parse). Without a pod whose usage
     * moves by itself, the same pod list is the same observation. */
    bool skip = kn->has_step && kn->idle && !kn->live && ids == kn->ids_sig;
    if (!skip) {
        /* containers past their memory limit were OOM-killed since the last pass */
        size_t killed = 0;
        if ((st = kp__sim_oom_kills(s, node, &killed, err)) != KP_OK) return st;
        /* the summary is filled at once: cheaper than a second look when the step runs */
        kp__sim_observe(s, node, &ps, &os, &live);
        if (k->oom) return nomem(err);
        skip = kn->has_step && kn->idle && ps == kn->pods_sig && os == kn->obs_sig;
        kn->live = live || killed; /* a restarted container may pass its limit again */
        kn->ids_sig = ids;
        kn->ids_gen = gen;
        kn->has_ids = true;
    }
    if (!skip && kp_cluster_node_pod_count(s->cl, node) == 0 && !kn->m) skip = true;
    if (!skip) {
        kp_evict_summary *sum = NULL;
        if ((st = kp_summary_builder_finish(k->sb, &sum, err)) != KP_OK) return st;
        if (s->o.summary_hook) st = hook(s, node, sum, err);
        if (st == KP_OK) st = step(s, node, kn, ps, sum, err);
        kp_evict_summary_free(sum);
        if (st != KP_OK) return st;
        kn->has_step = true;
        kn->pods_sig = ps;
        kn->obs_sig = os;
    } else {
        s->c.kubelet_quiet_passes++;
    }
    int64_t next = s->now + (kn->n_waits ? CLEANUP_POLL_MS : KUBELET_PERIOD_MS);
    bool busy = kn->live || !kn->idle || kn->n_waits;
    return kp__sim_timer_add(s, next, busy ? SIM_EV_KUBELET : SIM_EV_KUBELET_IDLE, node, 0) == KP_OK
               ? KP_OK
               : nomem(err);
}

/* Nodes that appeared since the last look get a kubelet (a pass now). */
static kp_status add_nodes(kp_sim *s, kp_error *err) {
    sim_kubelets *k = s->kub;
    size_t n = kp_cluster_node_count(s->cl);
    if (n <= k->n_nodes) return KP_OK;
    sim_kub_node *nn = kp_realloc(k->nodes, n * sizeof *nn);
    if (!nn) return nomem(err);
    k->nodes = nn;
    for (size_t i = k->n_nodes; i < n; i++) {
        memset(&nn[i], 0, sizeof nn[i]);
        if (kp__sim_timer_add(s, s->now, SIM_EV_KUBELET_IDLE, (int64_t)i, 0) != KP_OK)
            return nomem(err);
    }
    k->n_nodes = n;
    return KP_OK;
}

kp_status kp__sim_kubelet_timer(kp_sim *s, kp_index node, kp_error *err) {
    kp_status st = add_nodes(s, err);
    if (st == KP_OK && kp__sim_node_failed(s, node)) /* a failed node's kubelet does nothing */
        return kp__sim_timer_add(s, s->now + KUBELET_PERIOD_MS, SIM_EV_KUBELET_IDLE, node, 0) ==
                       KP_OK
                   ? KP_OK
                   : nomem(err);
    return st == KP_OK ? pass(s, node, err) : st;
}

kp_status kp__sim_kubelets_start(kp_sim *s, kp_error *err) {
    bool on =
        s->o.kubelets || s->o.kubelet_config || s->o.n_kubelet_pools || (s->sc && s->sc->n_usage);
    if (!on) return KP_OK;
    sim_kubelets *k = kp_calloc(1, sizeof *k);
    if (!k) return nomem(err);
    s->kub = k;
    if (s->sc && s->sc->n_usage && !(k->usage_hit = kp_calloc(s->sc->n_usage, 1)))
        return nomem(err);
    k->cfg = s->o.kubelet_config;
    if (!k->cfg) {
        k->own_cfg = kp_evict_config_new();
        if (!k->own_cfg) return nomem(err);
        kp_status st = kp_evict_config_finish(k->own_cfg, err);
        if (st != KP_OK) return st;
        k->cfg = k->own_cfg;
    }
    return add_nodes(s, err);
}

unsigned kp__sim_kubelet_conditions(const kp_sim *s, kp_index node) {
    const sim_kubelets *k = s->kub;
    return k && node >= 0 && (size_t)node < k->n_nodes ? k->nodes[node].tainted : 0;
}

bool kp__sim_kubelets_settled(const kp_sim *s) {
    return !s->kub || s->kub->sched_seen == s->c.scheduled;
}

void kp__sim_kubelets_free(kp_sim *s) {
    sim_kubelets *k = s->kub;
    if (!k) return;
    for (size_t i = 0; i < k->n_nodes; i++) {
        kp_evict_manager_free(k->nodes[i].m);
        kp_free(k->nodes[i].waits);
    }
    kp_free(k->nodes);
    kp_free(k->ranks);
    kp_free(k->rank_pool);
    kp__sim_usage_free(k);
    kp_evict_config_free(k->own_cfg);
    kp_free(k);
    s->kub = NULL;
}
