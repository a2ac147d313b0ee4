/* The eviction manager's state (internal, a header of its own below every eviction file):
 * what synchronize (evict_manager.c) keeps between steps and the per-step scratch, with the two
 * helpers that record an eviction; read by the local-storage checks (evict_local_storage.c) and
 * the messages (evict_message.c), so that they depend on the state and not on the manager that
 * calls them. */
#ifndef KP_KUBELET_EVICT_STATE_H
#define KP_KUBELET_EVICT_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "core/kubelet_config.h"
#include "core/summary.h"
#include "kprio/eviction.h"
#include "kubelet/evict_rank.h"
#include "kubelet/evict_spec.h"
#include "kubelet/evict_thresholds.h"

#define MONITOR_NS                                                                \
    (10 * KP__NS_PER_SEC) /* evictionMonitoringPeriod, for summaries without time \
                           */

typedef struct {
    uint32_t pod;
    int32_t priority;
    int64_t mem_req, eph_req;
    bool critical;
    bool gone; /* evicted in an earlier step (slots stay put: the join index points at them) */
    bool local_check; /* has an emptyDir sizeLimit or an ephemeral-storage limit: the local-storage
                         checks can evict it; for other pods they are no-ops */
    uint32_t uid_hash;
    uint32_t uid_len;
    const char *uid; /* the pod's uid bytes: the join compares without touching the pod */
} kp__ev_active;

struct kp_evict_manager {
    const kp_cluster *cl;
    const kp_evict_config *cfg;
    kp__ev_threshold *th;
    uint32_t n_th;
    uint32_t n_ghost; /* user containerfs thresholds the first step evaluated, after th[n_th) */
    bool *stale; /* scratch of the containerfs derivation (kp__ev_update_containerfs) */
    bool layout_known, imagefs, split;
    kp_index node;
    size_t pod_cap; /* per-pod arrays' size */
    kp__ev_active *act;
    uint32_t n_act, n_pods_total; /* live pods / slots */
    uint32_t n_local_check; /* slots with local_check set (evicted ones included) */
    uint32_t *uid_tab, *nn_tab; /* open addressing over active pods: local index + 1 */
    uint32_t tab_cap;
    /* state carried between steps */
    bool *fo_has;
    int64_t *fo_at;
    bool cond_has[KP_NODE_COND_COUNT];
    int64_t cond_at[KP_NODE_COND_COUNT];
    uint32_t *met_prev, n_met_prev;
    bool last_has[KP_EVSIG_COUNT];
    int64_t last_time[KP_EVSIG_COUNT];
    bool has_last_step;
    int64_t last_step;
    unsigned conditions;
    /* per-step scratch and results */
    uint32_t *th_met; /* thresholds met this step (indices into th), merged with the unresolved */
    uint32_t *
        th_scratch; /* thresholds not yet resolved / past their grace period / still met after GC */
    uint32_t *th_updated; /* thresholds past their grace period with updated stats: acted on */
    uint32_t *th_all; /* 0 .. n_th - 1 */
    kp_evict_met *met;
    const kp__ev_pstats **stats_of;
    bool *joined_by_name; /* stats_of[i] was found by namespace/name (a side without uid) */
    kp__ev_rank_pod *rank, *rank_tmp;
    kp__ev_rank_key *keys;
    kp_evict_rank_entry *rank_ent; /* 2 * pod_cap: the ranking's comparator inputs, then scratch */
    kp_index *ranking;
    kp_evict_eviction *ev;
    uint32_t n_ev;
    kp_arena arena;
    kp__ev_spec_src spec; /* how spec quantities were written (messages only) */
};

/* The active pod `pod` was evicted: its slot stays (the join index points at it). */
static inline void kp__ev_remove_active(kp_evict_manager *m, uint32_t pod) {
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        if (m->act[i].pod == pod && !m->act[i].gone) {
            m->act[i].gone = true;
            m->n_act--;
            return;
        }
    }
}

static inline kp_evict_eviction *kp__ev_add_eviction(kp_evict_manager *m, uint32_t pod,
                                                     const char *signal, int64_t grace, char *msg,
                                                     bool local) {
    kp_evict_eviction *e = &m->ev[m->n_ev++];
    memset(e, 0, sizeof *e);
    e->pod = pod;
    e->signal = signal;
    e->grace_seconds = grace;
    e->message = msg ? msg : "";
    e->local_storage = local;
    return e;
}

#endif
