/* The simulated kubelets' in-place resizes (docs/scenario.md "Patch"): a bound pod's resize
 * decided by its node's kubelet as soon as the API server accepted it (handlePodResourcesResize:
 * kp_kubelet_resize_check, the answer written with kp_cluster_pod_resize_set and logged), and the
 * pending ones decided again when the node changes. */
#include <stdio.h>

#include "kprio/update.h"
#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

/* The kubelet of a resized bound pod decides at once (handlePodResourcesResize). */
kp_status kp__sim_resize_decide(kp_sim *s, kp_index pod, kp_error *err) {
    char msg[256];
    kp_resize_result d = kp_kubelet_resize_check(s->cl, pod, msg, sizeof msg);
    kp_status st = kp_cluster_pod_resize_set(s->cl, pod, d, msg, err);
    if (st != KP_OK) return st;
    kp_index node = kp_cluster_pod_node(s->cl, pod);
    long ev = d == KP_RESIZE_APPLIED
                  ? kp__sim_logf(s, KP_SIM_NORMAL, "ResizeCompleted", pod, node, -1,
                                 "Pod resize completed")
                  : kp__sim_logf(s, KP_SIM_WARNING,
                                 d == KP_RESIZE_DEFERRED ? "ResizeDeferred" : "ResizeInfeasible",
                                 pod, node, -1, "%s", msg);
    return ev < 0 ? nomem(err) : KP_OK;
}

/* mirrors manager.RetryPendingResizes (pkg/kubelet/allocation): the node's kubelet decides its
 * pending resizes again once something on the node changed (a pod left it, a resize or its
 * allocatable changed), in the order of the node's pod list; one that fits now completes (an
 * assigned pod update for the scheduling queue). */
kp_status kp__sim_resize_retry(kp_sim *s, kp_index node, kp_error *err) {
    if (node < 0) return KP_OK;
    for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_index pod = kp_cluster_node_pod(s->cl, node, i);
        kp_resize_result was = kp_cluster_pod_resize_state(s->cl, pod);
        if (was == KP_RESIZE_APPLIED) continue;
        char msg[256];
        if (kp_kubelet_resize_check(s->cl, pod, msg, sizeof msg) != KP_RESIZE_APPLIED) continue;
        kp_sched_pod_before(s->sched, pod); /* the AssignedPodUpdate's old object */
        kp_status st = kp__sim_resize_decide(s, pod, err);
        if (st != KP_OK) return st;
        if (kp__sim_move_pod(s, KP_SCHED_EV_POD_UPDATE, pod, node) != KP_OK) return nomem(err);
        i = (size_t)-1; /* the node's list changed order: look again from the start */
    }
    return KP_OK;
}
