/* The nominator: pods nominated to each node (insertion order), and each pod's nominated node
 * (mirrors pkg/scheduler/backend/queue's nominator over the scheduler's state), with per node the
 * nominated pods' requests summed by priority: "the nominated pods of priority >= p" (what
 * addGENominatedPods adds to the node for a pod of priority p) is a lookup over the node's
 * distinct priorities, not a walk over its pods. */
#ifndef KP_SCHED_NOMINATOR_H
#define KP_SCHED_NOMINATOR_H

#include <stdint.h>

#include "kprio/common.h"

typedef struct kp_sched kp_sched;

/* Pods nominated to node (indices, *pods valid until the next nomination change). */
uint32_t kp__sched_nominated_on(kp_sched *s, uint32_t node, const uint32_t **pods);
/* Nominates pod to node (-1 clears); sets or clears the pod's nominatedNodeName. KP_ENOMEM
 * (the pod is then not nominated; clearing never fails). Keeps s->nom_scratch at least as long
 * as any node's list (the Filter's nominated pass copies a list there). */
kp_status kp__sched_nominate(kp_sched *s, uint32_t pod, int32_t node);
/* The pods nominated to node with priority >= prio, other than `self` (a pod index, or
 * UINT32_MAX): returns their number and sets sum[r] to the sum of their requests of resource r
 * (kp__resv_get) for every registered resource r (r < cl->n_res, and at least cpu, memory,
 * ephemeral-storage and pods), without reading the pods. sum has KP_MAX_RES entries. */
uint32_t kp__sched_nominated_sum(kp_sched *s, uint32_t node, int32_t prio, uint32_t self,
                                 int64_t *sum);
/* Frees the aggregates (kp_sched_free). */
void kp__sched_nominator_free(kp_sched *s);

#endif
