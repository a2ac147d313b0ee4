/* The taint-eviction controller (pkg/controller/tainteviction/taint_eviction.go): a pod bound to a
 * node with a NoExecute taint it does not tolerate is deleted at once, one whose tolerations of
 * those taints carry tolerationSeconds once the smallest has passed (processPodOnNode); the plan
 * is cancelled when the taint goes or the pod leaves. The plan is the manager's (per pod: made
 * at, planned), its timer the runner's (the sink's resync_at with KP_CTRL_RESYNC_POD; the runner
 * then calls kp_ctrl_taint_eviction_fire, as the TimedWorkerQueue calls deletePodHandler).
 *
 * The deletion: Normal TaintManagerEviction "Marking for deletion Pod NS/NAME"
 * (emitPodDeletionEvent), the DisruptionTarget condition with reason DeletionByTaintManager
 * (addConditionAndDeletePod), then the pod's graceful deletion (the sink's pod_deleting with that
 * event); a cancelled plan: "Cancelling deletion of Pod NS/NAME" (emitCancelPodDeletionEvent). */
#include <stdio.h>

#include "core/cluster.h"
#include "core/taints.h"
#include "ctrl/ctrl_internal.h"

typedef enum { NOEXEC_KEEP = 0, NOEXEC_NOW, NOEXEC_AFTER } noexec_verdict;

/* processPodOnNode's verdict over the node's NoExecute taints (getNoExecuteTaints): each taint's
 * first matching toleration of the pod (GetMatchingTolerations), then getMinTolerationTime. KEEP
 * when the node has no NoExecute taint or every one is tolerated without tolerationSeconds; NOW
 * when one is not tolerated or a used toleration has tolerationSeconds <= 0; AFTER with *seconds
 * the smallest tolerationSeconds of the tolerations used. */
static noexec_verdict verdict(const kp_cluster *cl, kp_index pod, kp_index node, int64_t *seconds) {
    *seconds = 0;
    const kp_pod *p = &cl->pods[pod];
    const kp_node *n = &cl->nodes[node];
    bool any = false, bounded = false;
    int64_t min = 0;
    for (uint16_t i = 0; i < n->n_taints; i++) {
        const kp_taint *t = &n->taints[i];
        if (t->effect != KP_EFFECT_NOEXECUTE) continue;
        any = true;
        const kp_toleration *used = NULL;
        for (uint16_t j = 0; j < p->n_tolerations && !used; j++)
            if (kp__toleration_tolerates(&p->tolerations[j], t)) used = &p->tolerations[j];
        if (!used) return NOEXEC_NOW;
        if (!used->has_seconds) continue; /* forever */
        if (used->seconds <= 0) return NOEXEC_NOW; /* getMinTolerationTime: 0 */
        if (!bounded || used->seconds < min) min = used->seconds;
        bounded = true;
    }
    if (!any || !bounded) return NOEXEC_KEEP;
    *seconds = min;
    return NOEXEC_AFTER;
}

/* the event about pod (emitPodDeletionEvent, emitCancelPodDeletionEvent) */
static kp_ctrl_event pod_event(const kp_ctrl *c, kp_index pod, const char *what, char *buf,
                               size_t cap) {
    const char *ns = kp_cluster_pod_namespace(c->cl, pod), *name = kp_cluster_pod_name(c->cl, pod);
    snprintf(buf, cap, "%s Pod %s/%s", what, ns, name);
    return (kp_ctrl_event){false, "TaintManagerEviction",          "Pod", ns, name, buf,
                           pod,   kp_cluster_pod_node(c->cl, pod), -1};
}

/* cancelWorkWithEvent: a planned deletion is dropped, with its event */
static kp_status cancel(kp_ctrl *c, kp_index pod, const kp_ctrl_sink *sink, kp_error *err) {
    ctrl_pod *p = &c->pods[pod];
    if (!p->taint_planned) return KP_OK;
    p->taint_planned = false;
    if (!sink || !sink->event) return KP_OK;
    char msg[700];
    kp_ctrl_event ev = pod_event(c, pod, "Cancelling deletion of", msg, sizeof msg);
    return sink->event(sink->ctx, &ev, err);
}

static kp_status plan(kp_ctrl *c, kp_index pod, int64_t since, int64_t at, const kp_ctrl_sink *sink,
                      kp_error *err) {
    ctrl_pod *p = &c->pods[pod];
    p->taint_planned = true;
    p->taint_since = since;
    if (!sink || !sink->resync_at) return KP_OK;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_POD, pod, at, err);
}

/* The pod as the controller reads it: NULL when it is not a bound pod still running (a pod
 * deleted, ended, being deleted or not bound has nothing to plan). */
static bool running_on(const kp_ctrl *c, kp_index pod, kp_pod_info *pi) {
    if (kp_cluster_pod_info(c->cl, pod, pi) != KP_OK) return false;
    return !pi->deleted && !pi->terminal && pi->node >= 0 && pi->deletion_ts == KP_TIME_UNSET;
}

/* mirrors Controller.processPodOnNode for a bound pod that is not being deleted: no NoExecute
 * taint left untolerated, the plan is cancelled; one not tolerated, deletion now; tolerations
 * with tolerationSeconds, deletion once the smallest has passed (a plan made earlier stays when
 * it ends sooner, counted from when it was made). */
kp_status kp_ctrl_taint_eviction_pod(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                     const kp_ctrl_sink *sink, kp_error *err) {
    return kp__ctrl_taint_eviction_since(c, pod, now_ms, now_ms, sink, err);
}

kp_status kp__ctrl_taint_eviction_since(kp_ctrl *c, kp_index pod, int64_t now_ms, int64_t since_ms,
                                        const kp_ctrl_sink *sink, kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    c->now = now_ms;
    kp_pod_info pi;
    if (pod < 0 || (size_t)pod >= c->n_pods || !running_on(c, pod, &pi)) return KP_OK;
    int64_t secs = 0;
    noexec_verdict v = verdict(c->cl, pod, pi.node, &secs);
    kp_status st = KP_OK;
    if (v == NOEXEC_KEEP) return cancel(c, pod, sink, err);
    if (v == NOEXEC_NOW) {
        if ((st = cancel(c, pod, sink, err)) != KP_OK) return st;
        return plan(c, pod, now_ms, now_ms, sink, err);
    }
    const ctrl_pod *p = &c->pods[pod];
    if (since_ms > now_ms) since_ms = now_ms;
    int64_t at = since_ms + secs * 1000;
    if (p->taint_planned) { /* the earlier plan stays if it ends sooner, else a new one now */
        if (p->taint_since + secs * 1000 < at) return KP_OK;
        if ((st = cancel(c, pod, sink, err)) != KP_OK) return st;
    }
    return plan(c, pod, since_ms, at < now_ms ? now_ms : at, sink, err);
}

/* mirrors Controller.handleNodeUpdate: every pod of the node (a deletion at once changes nothing
 * here: the pods stay bound until their grace period ends) */
kp_status kp_ctrl_taint_eviction_node(kp_ctrl *c, kp_index node, int64_t now_ms,
                                      const kp_ctrl_sink *sink, kp_error *err) {
    for (size_t i = 0; i < kp_cluster_node_pod_count(c->cl, node); i++) {
        kp_status st =
            kp_ctrl_taint_eviction_pod(c, kp_cluster_node_pod(c->cl, node, i), now_ms, sink, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* mirrors deletePodHandler (the TimedWorkerQueue's work for a pod): a plan still in place is
 * carried out (addConditionAndDeletePod). */
kp_status kp_ctrl_taint_eviction_fire(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                      const kp_ctrl_sink *sink, kp_error *err) {
    if (pod < 0 || (size_t)pod >= c->n_pods || !c->pods[pod].taint_planned) return KP_OK;
    c->now = now_ms;
    c->pods[pod].taint_planned = false;
    kp_pod_info pi;
    if (!running_on(c, pod, &pi)) return KP_OK;
    char msg[700];
    kp_ctrl_event ev = pod_event(c, pod, "Marking for deletion", msg, sizeof msg);
    kp_status st =
        kp_cluster_mark_terminating(c->cl, pod, kp__ctrl_now_s(c), "DeletionByTaintManager", err);
    if (st != KP_OK) return st;
    if (!sink || !sink->pod_deleting) return KP_OK;
    return sink->pod_deleting(sink->ctx, pod, "deleted", &ev, err);
}
