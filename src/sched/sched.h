/* Scheduler engine internals shared by the scheduling cycle (issue 3) and DefaultPreemption
 * (issue 4). Owned by the scheduling-cycle code; preemption relies ONLY on the functions marked
 * [preemption hook] below, so both can evolve independently.
 *
 * Model: a kp_sched wraps a finalized kp_cluster plus configuration, a seeded PRNG and the
 * in-memory nominator. A kp_cycle is the per-pod CycleState: PreFilter results for one pod
 * (affinity / spread precomputation) that can be updated incrementally when pods are removed
 * from or added back to a node (PreFilterExtensions.RemovePod/AddPod). */
#ifndef KP_SCHED_SCHED_H
#define KP_SCHED_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"

typedef enum {
    KP_CODE_SUCCESS = 0,
    KP_CODE_UNSCHEDULABLE = 1,
    KP_CODE_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KP_CODE_ERROR = 3
} kp_code;

#define KP_STATUS_MAX_REASONS 6
/* framework.Status of one node for one pod. Reasons are upstream's strings. */
typedef struct {
    kp_code code;
    const char *plugin; /* failing plugin name (static string), NULL on success */
    uint8_t n_reasons;
    char reasons[KP_STATUS_MAX_REASONS][112];
} kp_node_status;

void kp__status_reset(kp_node_status *st);
void kp__status_add_reason(kp_node_status *st, const char *reason);

/* Deterministic PRNG (splitmix64/xoshiro-style), seeded from --seed. */
typedef struct {
    uint64_t s[4];
} kp_prng;
void kp__prng_seed(kp_prng *r, uint64_t seed);
uint64_t kp__prng_next(kp_prng *r);
/* Uniform integer in [0, n) (n > 0). */
uint32_t kp__prng_below(kp_prng *r, uint32_t n);

typedef struct kp_sched kp_sched;
typedef struct kp_cycle kp_cycle;

/* [preemption hook] The cluster the scheduler works on. */
kp_cluster *kp__sched_cluster(kp_sched *s);
/* [preemption hook] The PRNG (candidate offset, final ties). */
kp_prng *kp__sched_prng(kp_sched *s);
/* [preemption hook] DefaultPreemptionArgs from the configuration. */
void kp__sched_preemption_args(const kp_sched *s, int32_t *min_pct, int32_t *min_abs);

/* [preemption hook] Runs PreFilter for pod; returns the cycle state. If a PreFilter plugin
 * rejects the pod, *pre holds that status (code != SUCCESS) and the cycle is still returned. */
kp_cycle *kp__cycle_new(kp_sched *s, uint32_t pod, kp_node_status *pre);
void kp__cycle_free(kp_cycle *c);
/* [preemption hook] Filter plugins for the cycle's pod on node, with the two-pass nominated-pods
 * rule (RunFilterPluginsWithNominatedPods). Reads the cluster's current node aggregates. */
void kp__cycle_filter(kp_cycle *c, uint32_t node, kp_node_status *out);
/* [preemption hook] PreFilterExtensions: call after the cluster removed pod `victim` from its node
 * (kp__node_remove_pod) / after it added it back (kp__node_add_pod). */
void kp__cycle_remove_pod(kp_cycle *c, uint32_t victim, uint32_t node);
void kp__cycle_add_pod(kp_cycle *c, uint32_t victim, uint32_t node);

/* [preemption hook] Nominator: pods nominated to node (indices), and (un)nominating. */
uint32_t kp__sched_nominated_on(kp_sched *s, uint32_t node, const uint32_t **pods);
void kp__sched_nominate(kp_sched *s, uint32_t pod, int32_t node /* -1 clears */);
/* [preemption hook] Number of bound pods carrying pod (anti-)affinity ever tracked by the
 * scheduler (upper bound; 0 means no pod on any node has (anti-)affinity). */
uint32_t kp__sched_affinity_pod_bound(const kp_sched *s);
/* [preemption hook] Slot for the preemption code's per-scheduler cache (opaque); kp_sched_free
 * releases it with kp__preempt_cache_free (preempt.h). */
void **kp__sched_preempt_cache(kp_sched *s);

#endif
