/* Pod state writers (internal face of include/kprio/cluster.h, "Pod state changes"): the one
 * place that writes a pod's node (spec.nodeName and the node's aggregates), its nomination,
 * its deletionTimestamp and DisruptionTarget condition, its phase, reason and message, and its
 * removal. The public kp_cluster_* calls check their arguments and call these; the scheduler calls
 * these directly on its hot path (indices it holds are valid, and it catches up its own caches
 * itself). */
#ifndef KP_CORE_POD_STATE_H
#define KP_CORE_POD_STATE_H

#include <stdint.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "kprio/cluster.h"
#include "kprio/common.h"

/* The pod joins node (assume + bind): spec.nodeName, the node's pod list and aggregates
 * (kp__node_add_pod). The pod must be on no node. KP_ENOMEM, or KP_ERANGE when a sum of the
 * node's requests would not fit in int64: the pod and the node are unchanged then. Nothing is
 * logged: the caller (a scheduler) updates its own caches; kp_cluster_bind_pod tells the others. */
kp_status kp__pod_bind(kp_cluster *cl, uint32_t pod, uint32_t node);

/* status.nominatedNodeName: node's name, or none for node < 0. */
static inline void kp__pod_nominate(kp_cluster *cl, uint32_t pod, int32_t node) {
    cl->pods[pod].nominated_node = node >= 0 ? cl->nodes[node].name : 0;
}

/* The pod leaves its node at once, everything else kept (a victim of a scheduler run until
 * settled, whose termination takes no time). No-op when it is on no node. */
static inline void kp__pod_unbind(kp_cluster *cl, uint32_t pod) { kp__node_remove_pod(cl, pod); }

/* A deletion request at `now` (deletionTimestamp; resources kept until the pod is deleted) and,
 * when reason is non-NULL, the DisruptionTarget condition (status True, reason, message or none
 * for NULL) added or replaced. No-op for a deleted or already terminating pod. Logged in
 * cl->changed_log (schedulers catch up). KP_ENOMEM naming the pod (nothing changed then). */
kp_status kp__pod_mark_terminating(kp_cluster *cl, uint32_t pod, int64_t now, const char *reason,
                                   const char *message, kp_error *err);

/* The API server's create of pod p at unix time now (rest.BeforeCreate,
 * podStrategy.PrepareForCreate): creationTimestamp now, no deletionTimestamp, and its status
 * replaced by phase Pending (no reason, message, conditions, startTime, nomination or resize
 * status). Before the pod is finalized (its requests read the resize status); spec.nodeName is the
 * caller's. */
void kp__pod_prepare_create(kp_pod *p, int64_t now);

#endif
