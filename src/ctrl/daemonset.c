/* The DaemonSet controller (pkg/controller/daemon): one pod per node that should run one, pinned
 * to it; failed and succeeded daemon pods deleted and replaced, extra ones deleted, pods on nodes
 * that should no longer run them deleted. Which nodes should run a daemon pod is core's rule
 * (kp__daemon_should_run, the node-affinity and taint-toleration predicates of component-helpers,
 * shared with kp_cluster_create_daemon_pod). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

/* NodeShouldRunDaemonPod for DaemonSet w on node (core's kp__daemon_should_run); both false for a
 * deleted node */
static void should_run(const kp_ctrl *c, kp_index w, kp_index node, bool *run, bool *cont) {
    const kp_cluster *cl = c->cl;
    *run = *cont = false;
    if (cl->nodes[node].deleted || !cl->workloads[w].template) return;
    kp__daemon_should_run(cl, &cl->workloads[w], &cl->nodes[node], run, cont);
}

/* The oldest of two running daemon pods (podByCreationTimestampAndPhase: bound first, then the
 * earlier creationTimestamp, then the name). */
static bool daemon_older(const kp_ctrl *c, uint32_t a, uint32_t b) {
    kp_pod_info x, y;
    kp_cluster_pod_info(c->cl, a, &x);
    kp_cluster_pod_info(c->cl, b, &y);
    if ((x.node >= 0) != (y.node >= 0)) return x.node >= 0;
    if (x.creation_ts != y.creation_ts) return x.creation_ts < y.creation_ts;
    return strcmp(x.name, y.name) < 0;
}

/* A Failed / Succeeded daemon pod: FailedDaemonPod / SucceededDaemonPod "Found failed daemon pod
 * NS/NAME on node NODE, will try to kill it" (no failedPodsBackoff in kprio), then deleted at
 * once; its replacement comes at the next sync and links to it. */
static kp_status delete_finished(kp_ctrl *c, const kp_workload_info *in, kp_index node,
                                 uint32_t pod, const kp_pod_info *pi, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    bool failed = pi->phase == KP_POD_PHASE_FAILED;
    char msg[800];
    snprintf(msg, sizeof msg, "Found %s daemon pod %s/%s on node %s, will try to %s",
             failed ? "failed" : "succeeded", pi->ns, pi->name, kp_cluster_node_name(c->cl, node),
             failed ? "kill it" : "delete it");
    kp_status st =
        kp__ctrl_event(c, sink, failed, failed ? "FailedDaemonPod" : "SucceededDaemonPod", in, msg,
                       (kp_index)pod, node, (kp_index)pod, err);
    if (st != KP_OK) return st;
    c->pods[pod].replaced = false; /* its replacement links to it */
    char del[400];
    snprintf(del, sizeof del, "Deleted pod: %s", pi->name);
    kp_ctrl_event ev = {false, "SuccessfulDelete", in->kind, in->ns, in->name, del, pod, -1, -1};
    return kp__ctrl_pod_deleted(c, pod, &ev, sink, err);
}

/* mirrors DaemonSetsController.podsShouldBeOnNode (no surge) for one node, its pods of the set
 * in pods[0..n): should run and none there: a pod for it; a Failed pod is deleted
 * (FailedDaemonPod) and a Succeeded one too (SucceededDaemonPod), then replaced at the next
 * sync; of several running pods the oldest stays; a pod that should not continue running (an
 * untolerated NoExecute taint, a selector that no longer fits) goes. A terminating pod still
 * counts as there: its replacement waits until it is gone. */
static kp_status daemon_node(kp_ctrl *c, kp_index w, const kp_workload_info *in, kp_index node,
                             const uint32_t *pods, uint32_t n, const kp_ctrl_sink *sink,
                             kp_error *err) {
    bool run = false, cont = false;
    should_run(c, w, node, &run, &cont);
    if (run && n == 0) {
        char base[320], name[400];
        snprintf(base, sizeof base, "%s-", in->name);
        kp_cluster_generate_pod_name(c->cl, in->ns, base, c->wls[w].name_seq++, name, sizeof name);
        return kp__ctrl_create_pod(c, w, in, name, node, sink, err);
    }
    long keep = -1;
    for (uint32_t i = 0; i < n; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, pods[i], &pi);
        if (pi.deletion_ts != KP_TIME_UNSET) continue;
        kp_status st = KP_OK;
        if (!cont) {
            st = kp__ctrl_delete_pod(c, in, pods[i], NULL, sink, err);
        } else if (pi.terminal) {
            st = delete_finished(c, in, node, pods[i], &pi, sink, err);
        } else if (keep < 0 || daemon_older(c, pods[i], (uint32_t)keep)) {
            if (keep >= 0) st = kp__ctrl_delete_pod(c, in, (uint32_t)keep, NULL, sink, err);
            keep = pods[i];
        } else {
            st = kp__ctrl_delete_pod(c, in, pods[i], NULL, sink, err);
        }
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* mirrors DaemonSetsController.syncDaemonSet / manage: getNodesToDaemonPods (the set's pods by
 * target node, GetTargetNodeName), podsShouldBeOnNode for every node (daemon_node), and
 * getUnscheduledPodsWithoutNode (a pending pod whose node is gone is deleted). A node added,
 * changed or deleted queues every set (kp_ctrl_node_changed). */
kp_status kp_ctrl_daemonset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_DAEMONSET ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "daemonset sync: %ld is not a DaemonSet", (long)w);
    c->now = now_ms;
    if (kp__ctrl_claim_pods(c, w) != KP_OK) return kp__ctrl_nomem(err);
    if (!in.has_template) return KP_OK;
    size_t nn = kp_cluster_node_count(c->cl);
    uint32_t nw = c->wls[w].n;
    /* by node: first[node] -> next[i] chains over the set's pods (indices into list) */
    int64_t *first = kp__malloc((nn + 1) * sizeof *first);
    int64_t *next = kp__malloc(((size_t)nw + 1) * sizeof *next);
    uint32_t *list = kp__malloc(((size_t)nw + 1) * sizeof *list), *on = NULL;
    if (!first || !next || !list || !(on = kp__malloc(((size_t)nw + 1) * sizeof *on))) {
        kp__free(first), kp__free(next), kp__free(list);
        return kp__ctrl_nomem(err);
    }
    for (size_t k = 0; k < nn; k++) first[k] = -1;
    uint32_t m = 0;
    for (uint32_t i = nw; i-- > 0;) { /* chains in creation order */
        uint32_t q = c->wls[w].pods[i];
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, q, &pi);
        if (pi.deleted) continue;
        kp_index t = pi.node >= 0 ? pi.node : kp_cluster_pod_target_node(c->cl, q);
        if (t == -2 && pi.deletion_ts == KP_TIME_UNSET) /* getUnscheduledPodsWithoutNode */
            on[m++] = q;
        if (t < 0) continue; /* no target node: GetTargetNodeName's error, skipped */
        list[i] = q;
        next[i] = first[t];
        first[t] = i;
    }
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < m && st == KP_OK; i++)
        st = kp__ctrl_delete_pod(c, &in, on[i], NULL, sink, err);
    for (size_t k = 0; k < nn && st == KP_OK; k++) {
        if (kp_cluster_node_deleted(c->cl, (kp_index)k)) continue;
        uint32_t n = 0;
        for (int64_t i = first[k]; i >= 0; i = next[i]) on[n++] = list[i];
        st = daemon_node(c, w, &in, (kp_index)k, on, n, sink, err);
    }
    kp__free(first), kp__free(next), kp__free(list), kp__free(on);
    return st;
}
