/* DynamicResources at PreEnqueue (dynamicresources.go PreEnqueue, foreachPodResourceClaim). */
#ifndef KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_ENQUEUE_H
#define KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_ENQUEUE_H

#include "core/dra.h"
#include "sched/framework.h"

/* foreachPodResourceClaim for one entry of spec.resourceClaims (resourceclaim.Name, the
 * claim's lookup, its deletionTimestamp, IsForPod; dynamic_resources_enqueue.c): the claim's
 * index, -1 when the entry needs none (a template whose status names no claim), -2 when the
 * pod cannot be scheduled, with upstream's message in *msg (kp__malloc'd; NULL: out of memory).
 * The DRA index must be in sync. */
long kp__dra_sched_pod_claim(const kp_sched *s, const kp_pod *p, const kp_pod_claim *pc,
                             char **msg);
/* mirrors DynamicResources.PreEnqueue: *msg (kp__malloc'd) when a claim of the pod does not
 * exist yet, is being deleted or is not the pod's (statusUnschedulable, the pod is not queued);
 * *msg NULL when the pod may be queued (or the profile does not run DynamicResources).
 * KP_ENOMEM. */
kp_status kp__pre_enqueue_dra(kp_sched *s, const kp_pod *p, char **msg);

#endif
