/* The taint-eviction controller in the simulation (kube-controller-manager's
 * taint-eviction-controller, pkg/controller/tainteviction/taint_eviction.go): a pod bound to a
 * node with a NoExecute taint it does not tolerate is deleted at once, one whose tolerations of
 * those taints carry tolerationSeconds once the smallest has passed (processPodOnNode, the verdict
 * being kp_cluster_pod_noexecute); the plan is cancelled when the taint goes or the pod leaves.
 * The deletion: Normal TaintManagerEviction "Marking for deletion Pod NS/NAME"
 * (emitPodDeletionEvent), the DisruptionTarget condition with reason DeletionByTaintManager
 * (addConditionAndDeletePod), then the pod's graceful deletion; a cancelled plan logs
 * "Cancelling deletion of Pod NS/NAME" (emitCancelPodDeletionEvent). */
#include <stdio.h>

#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

static kp_status log_pod(kp_sim *s, uint32_t pod, const char *what, kp_error *err) {
    return kp__sim_logf(s, KP_SIM_NORMAL, "TaintManagerEviction", (kp_index)pod,
                        kp_cluster_pod_node(s->cl, (kp_index)pod), -1, "%s Pod %s/%s", what,
                        kp_cluster_pod_namespace(s->cl, (kp_index)pod),
                        kp_cluster_pod_name(s->cl, (kp_index)pod)) < 0
               ? nomem(err)
               : KP_OK;
}

/* cancelWorkWithEvent: a planned deletion is dropped, with its event */
static kp_status cancel(kp_sim *s, uint32_t pod, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    if (p->taint_since < 0) return KP_OK;
    p->taint_since = -1;
    p->taint_gen++;
    return log_pod(s, pod, "Cancelling deletion of", err);
}

static kp_status plan(kp_sim *s, uint32_t pod, int64_t since, int64_t at, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    p->taint_since = since;
    p->taint_gen++;
    return kp__sim_timer_add(s, at, SIM_EV_TAINT_EVICT, pod, p->taint_gen) == KP_OK ? KP_OK
                                                                                    : nomem(err);
}

/* processPodOnNode for a bound pod that is not being deleted */
static kp_status process(kp_sim *s, uint32_t pod, kp_error *err) {
    kp_pod_info pi;
    if (pod >= s->n_pods || kp_cluster_pod_info(s->cl, pod, &pi) != KP_OK) return KP_OK;
    if (pi.deleted || pi.terminal || pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET) return KP_OK;
    int64_t secs = 0;
    kp_noexec_verdict v = kp_cluster_pod_noexecute(s->cl, pod, pi.node, &secs);
    kp_status st = KP_OK;
    if (v == KP_NOEXEC_KEEP) return cancel(s, pod, err);
    if (v == KP_NOEXEC_NOW) {
        if ((st = cancel(s, pod, err)) != KP_OK) return st;
        return plan(s, pod, s->now, s->now, err);
    }
    /* a plan made earlier counts from when it was made: it stays unless made now */
    sim_pod *p = &s->pods[pod];
    int64_t at = s->now + secs * 1000;
    if (p->taint_since >= 0) {
        if (p->taint_since + secs * 1000 < at) return KP_OK;
        if ((st = cancel(s, pod, err)) != KP_OK) return st;
    }
    return plan(s, pod, p->taint_since >= 0 ? p->taint_since : s->now, at, err);
}

kp_status kp__sim_taint_node(kp_sim *s, kp_index node, kp_error *err) {
    /* handleNodeUpdate: every pod of the node (the list is copied: a deletion at once changes
     * nothing here, the pods stay bound until their grace period ends) */
    for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_status st = process(s, (uint32_t)kp_cluster_node_pod(s->cl, node, i), err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

kp_status kp__sim_taint_pod(kp_sim *s, uint32_t pod, kp_error *err) { return process(s, pod, err); }

kp_status kp__sim_taint_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    uint32_t pod = (uint32_t)t->arg;
    if (pod >= s->n_pods || s->pods[pod].taint_gen != t->gen || s->pods[pod].taint_since < 0)
        return KP_OK; /* cancelled or replaced */
    s->pods[pod].taint_since = -1;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal || pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET) return KP_OK;
    kp_status st = log_pod(s, pod, "Marking for deletion", err);
    if (st != KP_OK) return st;
    long ev = (long)s->n_events - 1;
    if ((st = kp_cluster_mark_terminating(s->cl, pod, s->epoch + s->now / 1000,
                                          "DeletionByTaintManager", err)) != KP_OK)
        return st;
    if (s->pods[pod].lost_ev < 0) s->pods[pod].lost_ev = ev;
    return kp__sim_pod_terminating(s, pod, "deleted", ev, err);
}
