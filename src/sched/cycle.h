/* The per-pod CycleState: PreFilter, Filter with the two-pass nominated-pods rule and
 * the PreFilterExtensions preemption uses (the framework layer above the plugins). */
#ifndef KP_SCHED_CYCLE_H
#define KP_SCHED_CYCLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/framework.h"

/* Runs PreFilter for pod; returns the cycle state (NULL: out of memory). If a PreFilter plugin
 * rejects the pod, *pre holds that status (code != SUCCESS) and the cycle is still returned. */
kp_cycle *kp__cycle_new(kp_sched *s, uint32_t pod, kp_node_status *pre);
void kp__cycle_free(kp_cycle *c);
/* Filter plugins for the cycle's pod on node, with the two-pass nominated-pods rule
 * (RunFilterPluginsWithNominatedPods). Reads the cluster's current node aggregates. */
void kp__cycle_filter(kp_cycle *c, uint32_t node, kp_node_status *out);
/* PreFilterExtensions: call after the cluster removed pod `victim` from its node
 * (kp__node_remove_pod) / after it added it back (kp__node_add_pod). */
void kp__cycle_remove_pod(kp_cycle *c, uint32_t victim, uint32_t node);
void kp__cycle_add_pod(kp_cycle *c, uint32_t victim, uint32_t node);
/* KP_ENOMEM when a PreFilter state update could not allocate since the cycle began (its
 * Filter verdicts are then unusable), else KP_OK. Check after a filter pass or a dry run. */
kp_status kp__nvl_status(const struct kp_nvl *s); /* plugins/node_volume_limits.c */
kp_status kp__dra_cycle_status(const struct kp_dra_cycle *d); /* plugins/dynamic_resources.c */
static inline kp_status kp__cycle_status(const kp_cycle *c) {
    if (c->st != KP_OK) return c->st;
    if (c->dra && kp__dra_cycle_status(c->dra) != KP_OK) return KP_ENOMEM;
    return c->nvl ? kp__nvl_status(c->nvl) : KP_OK;
}
/* --explain: each filter's own verdict on node */
void kp__cycle_explain_filters(const kp_cycle *c, uint32_t node, kp_explain_node *en,
                               kp_explain *x);

#endif
