/* The eviction manager: one synchronize step per summary.
 *
 * Upstream: eviction_manager.go (managerImpl.synchronize, reclaimNodeLevelResources,
 * localStorageEviction, emptyDirLimitEviction, podEphemeralStorageLimitEviction,
 * containerEphemeralStorageLimitEviction, evictPod) and helpers.go (evictionMessage,
 * getThresholdMetInfo, byEvictionPriority, buildSignalToNodeReclaimFuncs,
 * thresholdsFirstObservedAt, nodeConditions*, thresholdsMetGracePeriod, thresholdsUpdatedStats,
 * mergeThresholds).
 *
 * Deterministic choices where upstream iterates Go maps (see docs/evict.md):
 *   - thresholds met keep configuration order (hard, soft, allocatable copies, containerfs);
 *   - byEvictionPriority: memory signals first, then hard before soft, then configuration order;
 *   - node conditions are reported as MemoryPressure, DiskPressure, PIDPressure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/node_conditions.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "core/summary.h"
#include "kubelet/evict_local_storage.h"
#include "kubelet/evict_message.h"
#include "kubelet/evict_rank.h"
#include "kubelet/evict_signals.h"
#include "kubelet/evict_state.h"
#include "kubelet/evict_thresholds.h"

/* ---------------------------------------------------------------- small helpers */

static const char *pod_ns(const kp_cluster *cl, const kp_pod *p, size_t *len) {
    if (cl->strs.len[p->ns] == 0) {
        *len = 7;
        return "default";
    }
    *len = cl->strs.len[p->ns];
    return kp__s(cl, p->ns);
}

static uint32_t nn_hash(const char *ns, size_t nsl, const char *name, size_t nl) {
    return kp__ev_mix(
        kp__ev_fnv(name, nl, kp__ev_fnv("/", 1, kp__ev_fnv(ns, nsl, KP__EV_FNV_BASIS))));
}


/* ---------------------------------------------------------------- creation */

static kp_status build_index(kp_evict_manager *m) {
    const kp_cluster *cl = m->cl;
    uint32_t cap = 16;
    while (cap < m->n_act * 2 + 2) cap *= 2;
    m->tab_cap = cap;
    m->uid_tab = kp__calloc(cap, sizeof *m->uid_tab);
    m->nn_tab = kp__calloc(cap, sizeof *m->nn_tab);
    if (!m->uid_tab || !m->nn_tab) return KP_ENOMEM;
    for (uint32_t i = 0; i < m->n_act; i++) {
        const kp_pod *p = &cl->pods[m->act[i].pod];
        size_t nsl, nl = cl->strs.len[p->name];
        const char *ns = pod_ns(cl, p, &nsl);
        uint32_t h = nn_hash(ns, nsl, kp__s(cl, p->name), nl) & (cap - 1);
        while (m->nn_tab[h]) h = (h + 1) & (cap - 1);
        m->nn_tab[h] = i + 1;
        if (cl->strs.len[p->uid]) {
            uint32_t full = kp__ev_hash(kp__s(cl, p->uid), cl->strs.len[p->uid]);
            h = full & (cap - 1);
            while (m->uid_tab[h]) h = (h + 1) & (cap - 1);
            m->uid_tab[h] = i + 1;
            m->act[i].uid_hash = full;
            m->act[i].uid = kp__s(cl, p->uid);
            m->act[i].uid_len = cl->strs.len[p->uid];
        }
    }
    return KP_OK;
}

/* The node's active pods (GetActivePods: bound, not terminal), in the node's order, into fresh
 * per-pod arrays; the state carried between steps is kept. */
static kp_status load_pods(kp_evict_manager *m) {
    const kp_cluster *cl = m->cl;
    const kp_node *n = &cl->nodes[m->node];
    size_t np = n->n_pods ? n->n_pods : 1;
    if (np > m->pod_cap) {
        kp__free(m->act);
        kp__free(m->stats_of);
        kp__free(m->joined_by_name);
        kp__free(m->rank);
        kp__free(m->rank_tmp);
        kp__free(m->keys);
        kp__free(m->rank_ent);
        kp__free(m->ranking);
        kp__free(m->ev);
        m->act = kp__calloc(np, sizeof *m->act);
        m->stats_of = kp__calloc(np, sizeof *m->stats_of);
        m->joined_by_name = kp__calloc(np, sizeof *m->joined_by_name);
        m->rank = kp__calloc(np, sizeof *m->rank);
        m->rank_tmp = kp__calloc(np, sizeof *m->rank_tmp);
        m->keys = kp__calloc(np * 2, sizeof *m->keys);
        m->rank_ent = kp__calloc(np * 2, sizeof *m->rank_ent);
        m->ranking = kp__calloc(np, sizeof *m->ranking);
        m->ev = kp__calloc(np, sizeof *m->ev);
        m->pod_cap = 0;
        if (!m->act || !m->stats_of || !m->joined_by_name || !m->rank || !m->rank_tmp || !m->keys ||
            !m->rank_ent || !m->ranking || !m->ev)
            return KP_ENOMEM;
        m->pod_cap = np;
    } else {
        memset(m->act, 0, np * sizeof *m->act);
    }
    m->n_act = m->n_local_check = 0;
    for (uint32_t i = 0; i < n->n_pods; i++) {
        const kp_pod *p = &cl->pods[n->pods[i]];
        if (kp__pod_is_terminal(p)) continue; /* GetActivePods drops terminal pods */
        kp__ev_active *a = &m->act[m->n_act++];
        a->pod = n->pods[i];
        a->priority = p->priority;
        a->mem_req = kp__pod_resource_request(cl, p, KP_RES_MEM); /* GetResourceRequestQuantity */
        a->eph_req = kp__pod_resource_request(cl, p, KP_RES_EPH);
        a->critical = p->is_critical;
        int64_t lim;
        a->local_check = kp__ev_pod_eph_limit(&m->spec, a->pod, &lim, NULL);
        for (uint16_t v = 0; v < p->n_volumes; v++)
            if (p->volumes[v].is_empty_dir && p->volumes[v].has_size_limit &&
                p->volumes[v].size_limit > 0)
                a->local_check = true;
        if (a->local_check) m->n_local_check++;
    }
    m->n_pods_total = m->n_act;
    kp__free(m->uid_tab);
    kp__free(m->nn_tab);
    m->uid_tab = m->nn_tab = NULL;
    return build_index(m);
}

kp_status kp_evict_manager_sync_pods(kp_evict_manager *m, kp_error *err) {
    if (load_pods(m) != KP_OK) return kp_error_set(err, KP_ENOMEM, "out of memory");
    return KP_OK;
}

kp_status kp_evict_manager_new(const kp_cluster *cl, kp_index node, const kp_evict_config *cfg,
                               kp_evict_manager **out, kp_error *err) {
    *out = NULL;
    if (!cfg->finished) return kp_error_set(err, KP_EINVAL, "eviction configuration not finished");
    if (!cl->finalized) return kp_error_set(err, KP_EINVAL, "cluster not finalized");
    if (node < 0 || (size_t)node >= cl->n_nodes)
        return kp_error_set(err, KP_EINVAL, "node index %ld out of range", node);
    kp_evict_manager *m = kp__calloc(1, sizeof *m);
    if (!m) goto oom;
    kp__arena_init(&m->arena);
    m->cl = cl;
    m->spec.cl = cl;
    m->cfg = cfg;
    uint32_t cap_th = cfg->n_th + 8; /* + containerfs copies + the user originals (first step) */
    m->th = kp__malloc(cap_th * sizeof *m->th);
    m->fo_has = kp__calloc(cap_th, sizeof *m->fo_has);
    m->fo_at = kp__calloc(cap_th, sizeof *m->fo_at);
    m->met_prev = kp__calloc(cap_th, sizeof *m->met_prev);
    m->th_met = kp__calloc(cap_th * 2, sizeof *m->th_met);
    m->th_scratch = kp__calloc(cap_th * 2, sizeof *m->th_scratch);
    m->th_updated = kp__calloc(cap_th * 2, sizeof *m->th_updated);
    m->th_all = kp__calloc(cap_th, sizeof *m->th_all);
    m->stale = kp__calloc(cap_th, sizeof *m->stale);
    m->met = kp__calloc(cap_th * 2, sizeof *m->met);
    if (!m->th || !m->fo_has || !m->fo_at || !m->met_prev || !m->th_met || !m->th_scratch ||
        !m->th_updated || !m->th_all || !m->stale || !m->met)
        goto oom;
    if (cfg->n_th) memcpy(m->th, cfg->th, cfg->n_th * sizeof *m->th);
    m->n_th = cfg->n_th;
    m->node = node;
    if (load_pods(m) != KP_OK) goto oom;
    *out = m;
    return KP_OK;
oom:
    kp_evict_manager_free(m);
    return kp_error_set(err, KP_ENOMEM, "out of memory");
}

void kp_evict_manager_free(kp_evict_manager *m) {
    if (!m) return;
    kp__free(m->th);
    kp__free(m->fo_has);
    kp__free(m->fo_at);
    kp__free(m->met_prev);
    kp__free(m->th_met);
    kp__free(m->th_scratch);
    kp__free(m->th_updated);
    kp__free(m->th_all);
    kp__free(m->stale);
    kp__free(m->met);
    kp__free(m->act);
    kp__free(m->stats_of);
    kp__free(m->joined_by_name);
    kp__free(m->rank);
    kp__free(m->rank_tmp);
    kp__free(m->keys);
    kp__free(m->rank_ent);
    kp__free(m->ranking);
    kp__free(m->ev);
    kp__free(m->uid_tab);
    kp__free(m->nn_tab);
    kp__arena_fini(&m->arena);
    kp__free(m);
}

size_t kp_evict_manager_threshold_count(const kp_evict_manager *m) { return m->n_th; }

const kp_evict_threshold_info *kp_evict_manager_threshold(const kp_evict_manager *m, size_t i) {
    return i < m->n_th ? kp__ev_threshold_info(&m->th[i]) : NULL;
}

size_t kp_evict_manager_active_count(const kp_evict_manager *m) { return m->n_act; }

void kp_evict_manager_set_spec_text(kp_evict_manager *m, kp_evict_spec_text_fn fn, void *ctx) {
    m->spec.fn = fn;
    m->spec.ctx = ctx;
}

/* ---------------------------------------------------------------- per-step pieces */

/* mirrors cachedStatsFunc (helpers.go): pod stats are keyed by podRef.uid, so an entry whose uid
 * differs from the pod's (a pod recreated under the same name) gives the pod no stats. kprio
 * joins by namespace/name only where one side has no uid (manifests often carry none). Later
 * entries win (map assignment). Counts the joins of each kind in the result. */
static void join_stats(kp_evict_manager *m, const kp_evict_summary *s, kp_evict_result *res) {
    const kp_cluster *cl = m->cl;
    uint32_t mask = m->tab_cap - 1;
    memset(m->stats_of, 0, m->n_pods_total * sizeof *m->stats_of);
    memset(m->joined_by_name, 0, m->n_pods_total * sizeof *m->joined_by_name);
    for (uint32_t j = 0; j < s->n_pods; j++) {
        const kp__ev_pstats *ps = &s->pods[j];
        uint32_t hit = 0;
        if (ps->uid_len) {
            const char *uid = kp__ev_str(s, ps->uid);
            for (uint32_t h = ps->uid_hash & mask; m->uid_tab[h]; h = (h + 1) & mask) {
                const kp__ev_active *a = &m->act[m->uid_tab[h] - 1];
                if (a->uid_hash == ps->uid_hash && a->uid_len == ps->uid_len &&
                    memcmp(a->uid, uid, ps->uid_len) == 0) {
                    hit = m->uid_tab[h];
                    break;
                }
            }
        }
        bool by_name = false;
        if (!hit && ps->name_len) {
            const char *ns = ps->ns_len ? kp__ev_str(s, ps->ns) : "default";
            const char *name = kp__ev_str(s, ps->name);
            size_t nsl = ps->ns_len ? ps->ns_len : 7;
            for (uint32_t h = nn_hash(ns, nsl, name, ps->name_len) & mask; m->nn_tab[h];
                 h = (h + 1) & mask) {
                const kp__ev_active *a = &m->act[m->nn_tab[h] - 1];
                if (ps->uid_len && a->uid_len) continue; /* both have uids: they differ */
                const kp_pod *p = &cl->pods[a->pod];
                size_t pnsl;
                const char *pns = pod_ns(cl, p, &pnsl);
                if (pnsl == nsl && memcmp(pns, ns, nsl) == 0 &&
                    cl->strs.len[p->name] == ps->name_len &&
                    memcmp(kp__s(cl, p->name), name, ps->name_len) == 0) {
                    hit = m->nn_tab[h];
                    by_name = true;
                    break;
                }
            }
        }
        if (hit) {
            m->stats_of[hit - 1] = ps;
            m->joined_by_name[hit - 1] = by_name;
        }
    }
    res->stats_joined = true;
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        if (m->act[i].gone) continue;
        if (!m->stats_of[i]) res->n_stats_missing++;
        else if (m->joined_by_name[i]) res->n_stats_by_name++;
        else res->n_stats_by_uid++;
    }
}

static bool fs_same(const kp__ev_fs *a, const kp__ev_fs *b) {
    const uint8_t bits = KP__EVF_AVAIL | KP__EVF_CAP | KP__EVF_IFREE | KP__EVF_INODES;
    if ((a->has & bits) != (b->has & bits)) return false;
    return a->avail == b->avail && a->cap == b->cap && a->inodes_free == b->inodes_free &&
           a->inodes == b->inodes;
}

/* HasDedicatedImageFs / HasDedicatedContainerFs, from the summary or the forced layout. */
static void detect_layout(kp_evict_manager *m, const kp_evict_summary *s) {
    switch (m->cfg->layout) {
    case KP_EVFS_SHARED:
        m->imagefs = false;
        m->split = false;
        return;
    case KP_EVFS_DEDICATED:
        m->imagefs = true;
        m->split = false;
        return;
    case KP_EVFS_SPLIT:
        m->imagefs = true;
        m->split = true;
        return;
    case KP_EVFS_AUTO: break;
    }
    m->imagefs = (s->imagefs.has & KP__EVF_PRESENT) && !fs_same(&s->imagefs, &s->node_fs);
    m->split = m->imagefs && (s->containerfs.has & KP__EVF_PRESENT) &&
               !fs_same(&s->containerfs, &s->imagefs);
}

static kp_evict_fs_layout layout_of(const kp_evict_manager *m) {
    return !m->imagefs ? KP_EVFS_SHARED : m->split ? KP_EVFS_SPLIT : KP_EVFS_DEDICATED;
}

static unsigned condition_of(kp_evict_signal s) {
    if (kp__ev_is_memory_signal(s)) return KP_NODE_COND_MEMORY_PRESSURE;
    if (s == KP_EVSIG_PID_AVAILABLE) return KP_NODE_COND_PID_PRESSURE;
    return KP_NODE_COND_DISK_PRESSURE;
}

/* buildSignalToNodeReclaimFuncs: 1 = container GC, 2 = image GC */
static unsigned reclaim_funcs(const kp_evict_manager *m, kp_evict_signal s) {
    if (kp__ev_is_memory_signal(s) || s == KP_EVSIG_PID_AVAILABLE) return 0;
    bool nodefs = s == KP_EVSIG_NODEFS_AVAILABLE || s == KP_EVSIG_NODEFS_INODES_FREE;
    bool image = s == KP_EVSIG_IMAGEFS_AVAILABLE || s == KP_EVSIG_IMAGEFS_INODES_FREE;
    if (!m->imagefs) return 3;
    if (!m->split) return nodefs ? 0 : 3;
    return image ? 2 : 1;
}

/* Filesystem a disk signal observes, for --reclaimable: 0 nodefs, 1 image filesystem; -1 none. */
static int fs_group(const kp_evict_manager *m, kp_evict_signal s) {
    switch (s) {
    case KP_EVSIG_NODEFS_AVAILABLE:
    case KP_EVSIG_NODEFS_INODES_FREE: return 0;
    case KP_EVSIG_IMAGEFS_AVAILABLE:
    case KP_EVSIG_IMAGEFS_INODES_FREE: return m->imagefs ? 1 : 0;
    case KP_EVSIG_CONTAINERFS_AVAILABLE:
    case KP_EVSIG_CONTAINERFS_INODES_FREE: return (m->imagefs && !m->split) ? 1 : 0;
    default: return -1;
    }
}

/* mirrors reclaimNodeLevelResources; the summary after GC is this step's summary plus what
 * --reclaimable says GC frees on each filesystem. */
static bool reclaim_node_level(kp_evict_manager *m, kp_evict_signal sig,
                               const kp_evict_observation *obs, kp_evict_result *res) {
    unsigned funcs = reclaim_funcs(m, sig);
    res->node_reclaim = funcs;
    if (!funcs) return false;
    kp_evict_observation after[KP_EVSIG_COUNT];
    memcpy(after, obs, sizeof after);
    for (int src = 0; src < KP_EVSIG_COUNT; src++) {
        if (!m->cfg->has_reclaimable[src]) continue;
        int g = fs_group(m, (kp_evict_signal)src);
        for (int s = 0; s < KP_EVSIG_COUNT; s++) {
            if (fs_group(m, (kp_evict_signal)s) != g ||
                kp__ev_is_inode_signal((kp_evict_signal)s) !=
                    kp__ev_is_inode_signal((kp_evict_signal)src))
                continue;
            if (after[s].present)
                after[s].available = kp__ev_sat_add(after[s].available, m->cfg->reclaimable[src]);
        }
    }
    for (uint32_t i = 0; i < m->n_th; i++) m->th_all[i] = i;
    uint32_t still = kp__ev_thresholds_met(m->th, m->th_all, m->n_th, after, true, m->th_scratch);
    res->node_reclaim_enough = still == 0;
    return still == 0;
}

/* ---------------------------------------------------------------- synchronize */

static int eviction_priority_class(const kp__ev_threshold *t) {
    return (kp__ev_is_memory_signal(t->signal) ? 0 : 2) + (t->grace_ns ? 1 : 0);
}

/* byEvictionPriority with a deterministic tie order: memory signals first, then hard before
 * soft, then configuration order (upstream: Go map order, i.e. random). Insertion sort, n small. */
static void sort_by_eviction_priority(const kp__ev_threshold *th, uint32_t *idx, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        int kv = eviction_priority_class(&th[v]);
        while (j > 0) {
            uint32_t u = idx[j - 1];
            int ku = eviction_priority_class(&th[u]);
            if (ku < kv || (ku == kv && u < v)) break;
            idx[j--] = u;
        }
        idx[j] = v;
    }
}

static bool contains(const uint32_t *a, uint32_t n, uint32_t v) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

/* Evicts the first non-critical pod of the ranking (evictPod refuses critical pods). */
static kp_status evict_one(kp_evict_manager *m, const kp_evict_summary *s,
                           const kp__ev_threshold *eval, uint32_t chosen, const char *resource,
                           const uint32_t *t3, uint32_t n3, const kp_evict_observation *obs,
                           kp_evict_result *res) {
    const kp__ev_threshold *t = &eval[chosen];
    for (uint32_t r = 0; r < res->n_ranking; r++) {
        const kp__ev_rank_pod *rp = &m->rank[r];
        const kp_pod *p = &m->cl->pods[rp->pod];
        int64_t grace = 1; /* immediateEvictionGracePeriodSeconds */
        if (t->grace_ns != 0) {
            /* AllowOverwriteTerminationGracePeriodSeconds (settable up to 1.34, locked off
             * from 1.35): on, evictionMaxPodGracePeriod overrides the pod's own period */
            grace = m->cfg->max_pod_grace;
            if (p->has_termination_grace && p->termination_grace < grace &&
                !m->cl->gates.on[KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS])
                grace = p->termination_grace;
        }
        if (p->is_critical) continue;
        kp_evict_eviction *e =
            kp__ev_add_eviction(m, rp->pod, kp_evict_signal_name(t->signal), grace, NULL, false);
        kp__ev_remove_active(m, rp->pod);
        return kp__ev_eviction_message(m, e, resource, rp->pod, s, rp->st, t3, n3, obs);
    }
    res->note = "unable to evict any pods from the node (every candidate is critical)";
    return KP_OK;
}

/* thresholdsMet, then mergeThresholds with the thresholds met last time whose minimum reclaim
 * is not yet satisfied (thresholdsNotYetResolved). Writes indices into m->th_met; returns the
 * count. */
static uint32_t thresholds_met_merged(kp_evict_manager *m, const kp__ev_threshold *eval,
                                      uint32_t n_eval, const kp_evict_observation *obs) {
    uint32_t *met = m->th_met, n_met; /* m->th_all: the indices of the list evaluated */
    n_met = kp__ev_thresholds_met(eval, m->th_all, n_eval, obs, false, met);
    if (m->n_met_prev == 0) return n_met;
    uint32_t *unresolved = m->th_scratch;
    uint32_t n_unresolved =
        kp__ev_thresholds_met(m->th, m->met_prev, m->n_met_prev, obs, true, unresolved);
    for (uint32_t k = 0; k < n_unresolved; k++) { /* mirrors mergeThresholds */
        bool dup = false;
        for (uint32_t j = 0; j < n_met && !dup; j++)
            dup = kp__ev_threshold_same(&eval[met[j]], &m->th[unresolved[k]]);
        if (!dup) met[n_met++] = unresolved[k];
    }
    return n_met;
}

/* mirrors thresholdsFirstObservedAt: entries not met now are forgotten */
static void thresholds_first_observed_at(kp_evict_manager *m, uint32_t n_eval, uint32_t n_met,
                                         int64_t now) {
    for (uint32_t i = 0; i < n_eval || i < m->n_th + m->n_ghost; i++) {
        if (!contains(m->th_met, n_met, i)) {
            m->fo_has[i] = false;
            continue;
        }
        if (!m->fo_has[i]) {
            m->fo_has[i] = true;
            m->fo_at[i] = now;
        }
    }
}

/* mirrors nodeConditions, nodeConditionsLastObservedAt and nodeConditionsObservedSince: the
 * conditions of every threshold met (before grace periods), held for the transition period */
static void node_conditions(kp_evict_manager *m, const kp__ev_threshold *eval, uint32_t n_met,
                            int64_t now) {
    unsigned observed = 0;
    for (uint32_t i = 0; i < n_met; i++) observed |= condition_of(eval[m->th_met[i]].signal);
    m->conditions = 0;
    for (unsigned bit = 1; bit <= KP_NODE_COND_PID_PRESSURE; bit <<= 1) {
        int c = kp__node_condition_index(bit);
        if (observed & bit) {
            m->cond_has[c] = true;
            m->cond_at[c] = now;
        }
        if (m->cond_has[c] && now - m->cond_at[c] < m->cfg->transition_ns) m->conditions |= bit;
    }
}

/* mirrors thresholdsMetGracePeriod, then thresholdsUpdatedStats: fills m->met (the report of
 * every threshold met), keeps those past their grace period for the next step (met_prev) and
 * writes those with updated stats into m->th_updated (*n_acted of them). KP_ENOMEM when out of
 * memory. */
static kp_status thresholds_met_grace_period(kp_evict_manager *m, const kp__ev_threshold *eval,
                                             uint32_t n_met, const kp_evict_observation *obs,
                                             int64_t now, uint32_t *n_acted) {
    uint32_t n_grace = 0, n_updated = 0, *grace_met = m->th_scratch;
    for (uint32_t i = 0; i < n_met; i++) {
        uint32_t ti = m->th_met[i];
        const kp__ev_threshold *t = &eval[ti];
        kp_evict_met *me = &m->met[i];
        memset(me, 0, sizeof *me);
        me->index = ti;
        me->signal = t->signal;
        me->hard = t->grace_ns == 0;
        me->grace_ns = t->grace_ns;
        me->grace_met = now - m->fo_at[ti] >= t->grace_ns;
        me->value = t->value_text;
        char q[64];
        kp__ev_threshold_quantity_str(&t->value, obs[t->signal].capacity, q, sizeof q);
        me->quantity_str = kp__arena_dup(&m->arena, q, strlen(q) + 1);
        if (!me->quantity_str) return KP_ENOMEM;
        me->quantity = kp__ev_value_amount(&t->value, obs[t->signal].capacity).whole;
        if (!me->grace_met) continue;
        grace_met[n_grace++] = ti;
        const kp_evict_observation *o = &obs[t->signal];
        if (o->present &&
            (!m->last_has[t->signal] || o->time_ns == 0 || o->time_ns > m->last_time[t->signal])) {
            me->acted = true;
            m->th_updated[n_updated++] = ti;
        }
    }
    memcpy(m->met_prev, grace_met, n_grace * sizeof *m->met_prev);
    m->n_met_prev = n_grace;
    for (int sg = 0; sg < KP_EVSIG_COUNT; sg++) {
        m->last_has[sg] = obs[sg].present;
        m->last_time[sg] = obs[sg].time_ns;
    }
    *n_acted = n_updated;
    return KP_OK;
}

/* The rank function of the chosen signal over the active pods (signalToRankFunc), then
 * evictPod on the first that may go. */
static kp_status rank_and_evict(kp_evict_manager *m, const kp_evict_summary *s,
                                const kp__ev_threshold *eval, uint32_t chosen, const char *resource,
                                uint32_t n_updated, const kp_evict_observation *obs,
                                kp_evict_result *res) {
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(eval[chosen].signal, m->imagefs, m->split);
    uint32_t n_live = 0;
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        if (m->act[i].gone) continue;
        kp__ev_rank_pod *rp = &m->rank[n_live++];
        rp->pod = m->act[i].pod;
        rp->priority = m->act[i].priority;
        rp->mem_req = m->act[i].mem_req;
        rp->eph_req = m->act[i].eph_req;
        rp->st = m->stats_of[i];
    }
    kp__ev_rank(m->cl, s, &fn, m->rank, m->n_act, m->keys, m->rank_tmp, m->rank_ent);
    res->n_ranking = m->n_act;
    res->rank_kind = kp__ev_rank_public_kind(&fn);
    res->rank_entries = m->rank_ent;
    for (uint32_t i = 0; i < m->n_act; i++) m->ranking[i] = m->rank[i].pod;
    kp_status st = evict_one(m, s, eval, chosen, resource, m->th_updated, n_updated, obs, res);
    res->n_evicted = m->n_ev;
    return st;
}

/* mirrors managerImpl.synchronize */
kp_status kp_evict_manager_step(kp_evict_manager *m, const kp_evict_summary *s,
                                kp_evict_result *res, kp_error *err) {
    const kp_evict_config *cfg = m->cfg;
    int64_t now;
    if (!kp_evict_summary_time(s, &now)) now = m->has_last_step ? m->last_step + MONITOR_NS : 0;
    if (m->has_last_step && now < m->last_step)
        return kp_error_set(err, KP_EINVAL,
                            "summary time goes backwards (summaries must be given in time order)");
    m->has_last_step = true;
    m->last_step = now;
    kp__arena_reset(&m->arena);
    memset(res, 0, sizeof *res);
    m->n_ev = 0;
    res->time_ns = now;
    kp_evict_observation *obs = res->obs;
    kp__ev_observe(s, obs); /* makeSignalObservations */
    res->met = m->met;
    res->ranking = m->ranking;
    res->evicted = m->ev;
    res->layout = m->layout_known ? layout_of(m) : KP_EVFS_SHARED;

    if (cfg->n_th == 0 && !cfg->local_storage_isolation) {
        res->conditions = m->conditions;
        res->note = "no eviction thresholds configured";
        return KP_OK;
    }
    /* Layout and containerfs thresholds, once. The first step still evaluates the list from
     * before the derivation: upstream's synchronize shadows its `thresholds` variable (`:=`),
     * which keeps the old length and the old backing array. UpdateContainerFsThresholds appends
     * before it overwrites: an overwrite of a user containerfs threshold made while the appends
     * still fit the slice's capacity lands in that array (the first step sees the new value); one
     * made after an append outgrew it lands in a new array, so the first step evaluates the user's
     * original threshold. Those originals are kept after the list (m->n_ghost of them), so that
     * the thresholds met they give stay what they are in later steps (thresholdsMet of
     * m.thresholdsMet re-evaluates the threshold values, not positions). The appended copies
     * are evaluated from the next step on. */
    uint32_t n_eval = m->n_th;
    for (uint32_t i = 0; i < n_eval; i++) m->th_all[i] = i;
    if (!m->layout_known) {
        m->layout_known = true;
        detect_layout(m, s);
        kp__ev_threshold user[4];
        uint32_t user_at[4], n_user = 0;
        for (uint32_t i = 0; i < m->n_th && n_user < 4; i++)
            if (m->th[i].signal == KP_EVSIG_CONTAINERFS_AVAILABLE ||
                m->th[i].signal == KP_EVSIG_CONTAINERFS_INODES_FREE) {
                user[n_user] = m->th[i];
                user_at[n_user++] = i;
            }
        memset(m->stale, 0, (m->n_th + 8) * sizeof *m->stale);
        if (kp__ev_update_containerfs(&m->th, &m->n_th, m->imagefs, m->split, cfg->th_go_cap, NULL,
                                      m->stale, m->n_th + 8) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "out of memory");
        for (uint32_t u = 0; u < n_user; u++) {
            if (!m->stale[user_at[u]]) continue;
            m->th[m->n_th + m->n_ghost] = user[u];
            m->th_all[user_at[u]] = m->n_th + m->n_ghost++;
        }
        res->layout = layout_of(m);
    }
    const kp__ev_threshold *eval = m->th;
    uint32_t n_met = thresholds_met_merged(m, eval, n_eval, obs);
    thresholds_first_observed_at(m, n_eval, n_met, now);
    node_conditions(m, eval, n_met, now);
    res->conditions = m->conditions;
    uint32_t n_updated = 0;
    if (thresholds_met_grace_period(m, eval, n_met, obs, now, &n_updated) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    res->n_met = n_met;

    /* statsFunc: the join runs only when something reads pod stats (the local-storage checks of
     * pods that have limits, ranking); a quiet step reads none */
    bool joined = false;
    if (cfg->local_storage_isolation) {
        if (m->n_local_check) {
            join_stats(m, s, res);
            joined = true;
            if (kp__ev_local_storage_eviction(m, s) != KP_OK)
                return kp_error_set(err, KP_ENOMEM, "out of memory");
        }
        if (m->n_ev > 0) {
            res->n_evicted = m->n_ev;
            return KP_OK;
        }
    }
    if (n_updated == 0) {
        res->note =
            n_met ? "thresholds met, but none past its grace period with updated stats" : NULL;
        return KP_OK;
    }
    sort_by_eviction_priority(eval, m->th_updated, n_updated);
    uint32_t chosen =
        m->th_updated[0]; /* getReclaimableThreshold: every supported signal has a resource */
    const char *resource = kp_evict_signal_resource(eval[chosen].signal);
    res->has_reclaim = true;
    res->reclaim_threshold = chosen;
    res->reclaim_resource = resource;
    if (reclaim_node_level(m, eval[chosen].signal, obs, res)) {
        res->note = "node-level reclaim (garbage collection) relieved the pressure";
        return KP_OK;
    }
    if (m->n_act == 0) {
        res->note = "eviction thresholds have been met, but no pods are active to evict";
        return KP_OK;
    }
    if (!joined) join_stats(m, s, res);
    if (rank_and_evict(m, s, eval, chosen, resource, n_updated, obs, res) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    return KP_OK;
}
