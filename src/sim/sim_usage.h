/* The simulated kubelets' shared state and the usage models' calls (internal): sim_usage.c
 * evaluates the usage models and fills the Summary a pass observes (kprio/summary_builder.h);
 * sim_kubelet.c, above it, runs the passes and applies the decisions. */
#ifndef KP_SIM_USAGE_H
#define KP_SIM_USAGE_H

#include "kprio/eviction.h"
#include "kprio/summary_builder.h"
#include "sim/sim_internal.h"

typedef struct {
    kp_evict_manager *m;
    uint64_t pods_sig, obs_sig; /* the active pods, and what they use, at the last step */
    bool has_step;
    bool idle; /* the last step met no threshold and reported no condition */
    bool live; /* at the last observation a pod's usage could still change by itself */
    uint64_t ids_sig; /* the node's pod list at the last observation */
    uint32_t ids_gen; /* its generation then (kp_cluster_node_generation) */
    bool has_ids; /* ids_sig and ids_gen are set */
    unsigned tainted; /* KP_NODE_COND_* bits it last reported (the node lifecycle controller
                       * taints after them) */
    kp_index *waits; /* evicted pods whose cleanup the next step waits for */
    uint32_t n_waits, cap_waits;
    int64_t wait_since, wait_kill_at; /* ms: the eviction; when its grace period ends */
} sim_kub_node;

/* what of a usage entry matched (kp_sim_usage_unmatched): its pod's selector and namespace, or
 * its node; its container or volume */
#define SIM_USAGE_HIT_SCOPE 1u
#define SIM_USAGE_HIT_NAME 2u

/* per pod: the usage entries matching it (a run of kp_sim's match pool), its containers' usage
 * origin (bound, or the last OOM restart) and restarts */
typedef struct {
    uint32_t off, n;
    bool looked; /* off/n are valid */
    bool restarted; /* origin_ms is set (else: the bound time) */
    int64_t origin_ms;
    uint32_t restarts;
} sim_use_pod;

/* a threshold eviction's ranking (kp_sim_eviction_ranking): entries [off, off + n) of the
 * kubelets' rank pool */
typedef struct {
    kp_index pod, node;
    int64_t t_ms;
    const char *signal, *message; /* the signal name (static), the event's message (the log's) */
    kp_evict_rank_kind kind;
    size_t off, n, position;
} sim_rank_rec;

struct sim_kubelets {
    kp_evict_config *own_cfg; /* the default configuration, when none was given */
    const kp_evict_config *cfg;
    sim_kub_node *nodes;
    size_t n_nodes;
    sim_use_pod *upods; /* per pod */
    size_t n_upods;
    int32_t *pool; /* usage entry indices, runs per pod */
    uint8_t *usage_hit; /* per usage entry: SIM_USAGE_HIT_* met in the run so far */
    size_t n_pool, cap_pool;
    kp_summary_builder *sb; /* the summary being observed */
    char *json; /* its Summary API document, for summary_hook only */
    size_t json_len, json_cap;
    bool oom;
    int64_t *shares; /* per container of the pod being written: its working set */
    size_t n_shares, cap_shares;
    uint64_t sched_seen; /* s->c.scheduled at the latest pass */
    uint64_t next_pid; /* the simulated PID an OOM-killed process had (SystemOOM events) */
    sim_rank_rec *ranks; /* every threshold eviction's ranking, in eviction order */
    size_t n_ranks, cap_ranks;
    kp_evict_rank_entry *rank_pool;
    size_t n_rank_pool, cap_rank_pool;
};

/* sim_usage.c. One pass over the node's pods: their usage, the signatures, and the Summary in
 * k->sb (k->oom on allocation failure; the builder keeps its own error); *live: some
 * usage may change by itself later. */
void kp__sim_observe(kp_sim *s, kp_index node, uint64_t *pods_sig, uint64_t *obs_sig, bool *live);
/* OOM kills on the node: every container whose working set passed its memory limit is killed
 * and restarted (SystemOOM and Started events; the pod's usage restarts from the models'
 * start). *killed: how many. */
kp_status kp__sim_oom_kills(kp_sim *s, kp_index node, size_t *killed, kp_error *err);
void kp__sim_usage_free(sim_kubelets *k);

#endif
