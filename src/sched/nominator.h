/* The nominator: pods nominated to each node (insertion order), and each pod's nominated node
 * (mirrors pkg/scheduler/backend/queue's nominator over the scheduler's state). */
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

#endif
