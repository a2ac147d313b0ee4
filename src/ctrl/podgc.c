/* The pod garbage collector (pkg/controller/podgc/gc_controller.go): PodGCController.gc for what
 * kprio models. gcOrphaned: a pod still bound to a node that no longer exists is deleted at once
 * (force deletion, no grace period; kprio without the quarantine upstream waits for a node to
 * stay gone). gcTerminated: past terminated_threshold terminated pods (Succeeded or Failed,
 * --terminated-pod-gc-threshold, 12500 by default), the oldest go (evicted ones first, then by
 * creationTimestamp: byEvictionAndCreationTimestamp). Each deletion goes through core
 * (kp_cluster_delete_pod) by way of the sink's pod_deleted; the collector records no events.
 * Not modelled: gcUnscheduledTerminating, the out-of-service taint. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "ctrl/ctrl_internal.h"

/* the sink's pod_deleted, else core's delete */
static kp_status gc_delete(kp_ctrl *c, kp_index pod, const kp_ctrl_sink *sink, kp_error *err) {
    if (sink && sink->pod_deleted) return sink->pod_deleted(sink->ctx, pod, NULL, err);
    return kp_cluster_delete_pod(c->cl, pod, err);
}

/* mirrors PodGCController.gcOrphaned: the pods bound to deleted nodes, node by node, the node's
 * last pod first */
static kp_status gc_orphaned(kp_ctrl *c, const kp_ctrl_sink *sink, kp_error *err) {
    for (size_t n = 0; n < kp_cluster_node_count(c->cl); n++) {
        if (!kp_cluster_node_deleted(c->cl, (kp_index)n)) continue;
        for (size_t left = kp_cluster_node_pod_count(c->cl, (kp_index)n); left > 0; left--) {
            kp_index p = kp_cluster_node_pod(c->cl, (kp_index)n, left - 1);
            if (p < 0) continue;
            kp_status st = gc_delete(c, p, sink, err);
            if (st != KP_OK) return st;
            /* a sink that kept the pod would loop: the count shrinks with each deletion */
            if (kp_cluster_node_pod_count(c->cl, (kp_index)n) >= left) return KP_OK;
        }
    }
    return KP_OK;
}

typedef struct {
    bool evicted;
    int64_t created;
    kp_index pod;
} gc_key;

/* byEvictionAndCreationTimestamp, then the pod's index (kprio's total order) */
static int key_cmp(const void *a, const void *b) {
    const gc_key *x = a, *y = b;
    if (x->evicted != y->evicted) return x->evicted ? -1 : 1;
    if (x->created != y->created) return x->created < y->created ? -1 : 1;
    return (x->pod > y->pod) - (x->pod < y->pod);
}

/* mirrors PodGCController.gcTerminated */
static kp_status gc_terminated(kp_ctrl *c, int32_t threshold, const kp_ctrl_sink *sink,
                               kp_error *err) {
    kp_cluster *cl = c->cl;
    size_t n = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++)
        n += !cl->pods[i].deleted && kp__pod_is_terminal(&cl->pods[i]);
    if (n <= (size_t)threshold) return KP_OK;
    gc_key *keys = kp__malloc(n * sizeof *keys);
    if (!keys) return kp__ctrl_nomem(err);
    size_t k = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->deleted || !kp__pod_is_terminal(p)) continue;
        kp_pod_info pi;
        kp_cluster_pod_info(cl, (kp_index)i, &pi);
        bool evicted = pi.phase == KP_POD_PHASE_FAILED && p->status_reason &&
                       strcmp(kp__s(cl, p->status_reason), "Evicted") == 0;
        keys[k++] = (gc_key){evicted, pi.creation_ts, (kp_index)i};
    }
    qsort(keys, n, sizeof *keys, key_cmp);
    kp_status st = KP_OK;
    for (size_t i = 0; i < n - (size_t)threshold && st == KP_OK; i++)
        st = gc_delete(c, keys[i].pod, sink, err);
    kp__free(keys);
    return st;
}

/* mirrors PodGCController.gc: gcTerminated (when terminated_threshold > 0), then gcOrphaned. */
kp_status kp_ctrl_podgc_sync(kp_ctrl *c, int64_t now_ms, int32_t terminated_threshold,
                             const kp_ctrl_sink *sink, kp_error *err) {
    c->now = now_ms;
    kp_status st = KP_OK;
    if (terminated_threshold > 0 &&
        (st = gc_terminated(c, terminated_threshold, sink, err)) != KP_OK)
        return st;
    return gc_orphaned(c, sink, err);
}
