/* The controller manager (kprio/ctrl.h): informer notifications (pods, nodes, workloads) queue
 * the controllers and kp_ctrl_sync runs each queued one's sync function (the garbage
 * collector's cascading deletion is garbagecollector.c's). The bookkeeping and the helpers the
 * controllers share are controller_utils.c's. Controllers act in the instant of the change: their
 * work queues take no time. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "ctrl/ctrl_internal.h"

kp_ctrl *kp_ctrl_new(kp_cluster *cl) {
    kp_ctrl *c = kp__calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cl = cl;
    c->node_grace_ms = KP_CTRL_NODE_MONITOR_GRACE_MS;
    kp_ctrl_set_seed(c, 0);
    if (kp__ctrl_grow(c) != KP_OK) {
        kp_ctrl_free(c);
        return NULL;
    }
    return c;
}

void kp_ctrl_free(kp_ctrl *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_wls; i++) kp__free(c->wls[i].pods);
    kp__free(c->wls);
    kp__free(c->pods);
    kp__free(c->node_tainted);
    kp__free(c->orphans);
    kp__free(c->claim_fails);
    kp__free(c->node_health);
    kp__free(c->zone_keys);
    kp__free(c->zone_next);
    kp__free(c->dep_rs);
    for (size_t i = 0; i < c->n_pdb_sel; i++) kp__free(c->pdb_sel[i].pods);
    kp__free(c->pdb_sel);
    kp__free(c);
}

void kp_ctrl_set_epoch(kp_ctrl *c, int64_t epoch) { c->epoch = epoch; }

/* the resourceclaim controller's generated names (src/ctrl/resourceclaim.c) */
void kp_ctrl_set_seed(kp_ctrl *c, uint64_t seed) { kp__prng_seed(&c->claim_prng, seed); }

kp_status kp_ctrl_pod_changed(kp_ctrl *c, kp_index pod, int64_t now_ms) {
    if (pod < 0 || (size_t)pod >= kp_cluster_pod_count(c->cl)) return KP_OK;
    if (kp__ctrl_grow_workloads(c) != KP_OK) return KP_ENOMEM;
    if ((size_t)pod >= c->n_pods) /* new: what its controller expected, no sync */
        return kp__ctrl_index_pods(c, (size_t)pod + 1);
    ctrl_pod *p = &c->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(c->cl, pod, &pi);
    ctrl_pod_state st = kp__ctrl_seen_state(&pi);
    if (pi.node >= 0) p->node = pi.node;
    if (st != p->state) { /* getFinishedTime's inputs: deletion requested, ended or gone */
        if (st == CTRL_POD_TERMINATING && p->terminating_ms < 0) p->terminating_ms = now_ms;
        if (st != CTRL_POD_TERMINATING && st != CTRL_POD_ACTIVE) p->gone_ms = now_ms;
        p->state = (uint8_t)st;
    }
    bool ready_changed = pi.ready != p->ready;
    p->ready = pi.ready;
    /* a Deployment watches its ReplicaSets' status (updateReplicaSet): their pods' counts */
    if (st != CTRL_POD_ACTIVE || ready_changed)
        kp__ctrl_mark(c, kp__ctrl_rs_deployment(c, p->workload));
    if (st != CTRL_POD_ACTIVE) { /* FilterActivePods: not active */
        kp__ctrl_pod_left(c, (uint32_t)pod);
        kp__ctrl_mark(c, p->workload);
    } else if (ready_changed) /* updatePod: a readiness change syncs its controller (an OrderedReady
                               * StatefulSet goes on, replicas become ready / available) */
        kp__ctrl_mark(c, p->workload);
    return KP_OK;
}

kp_status kp_ctrl_node_changed(kp_ctrl *c, kp_index node) {
    (void)node; /* every DaemonSet looks at every node (DaemonSetsController.addNode/updateNode) */
    if (kp__ctrl_grow_workloads(c) != KP_OK) return KP_ENOMEM;
    for (size_t w = 0; w < c->n_wls; w++)
        if (c->wls[w].kind == CTRL_KIND_DAEMONSET) kp__ctrl_mark(c, (kp_index)w);
    return KP_OK;
}

kp_status kp_ctrl_workload_changed(kp_ctrl *c, kp_index w) {
    if (kp__ctrl_grow_workloads(c) != KP_OK) return KP_ENOMEM;
    kp__ctrl_mark(c, w);
    return KP_OK;
}

bool kp_ctrl_queued(const kp_ctrl *c) { return c->any_dirty; }

bool kp_ctrl_workload_done(const kp_ctrl *c, kp_index w) {
    return w >= 0 && (size_t)w < c->n_wls && (c->wls[w].done || c->wls[w].deleted);
}

/* ---------------------------------------------------------------- the queue */

kp_status kp_ctrl_workload_scaled(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    if (w < 0 || (size_t)w >= c->n_wls) return KP_OK;
    c->now = now_ms;
    if (c->wls[w].kind == CTRL_KIND_DEPLOYMENT) return kp__ctrl_deployment_scale(c, w, sink, err);
    kp__ctrl_mark(c, w);
    return KP_OK;
}

static kp_status sync_one(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink, kp_error *err) {
    switch ((ctrl_kind)c->wls[w].kind) {
    case CTRL_KIND_REPLICASET: {
        /* its status changes: its Deployment syncs (DeploymentController.updateReplicaSet) */
        kp__ctrl_mark(c, kp__ctrl_rs_deployment(c, w));
        return kp_ctrl_replicaset_sync(c, w, c->now, sink, err);
    }
    case CTRL_KIND_DEPLOYMENT: return kp_ctrl_deployment_sync(c, w, c->now, sink, err);
    case CTRL_KIND_STATEFULSET: return kp_ctrl_statefulset_sync(c, w, c->now, sink, err);
    case CTRL_KIND_DAEMONSET: return kp_ctrl_daemonset_sync(c, w, c->now, sink, err);
    case CTRL_KIND_JOB: return kp_ctrl_job_sync(c, w, c->now, sink, err);
    case CTRL_KIND_CRONJOB: /* fired by its schedule, not by its pods */
    case CTRL_KIND_OTHER: return KP_OK;
    }
    return KP_OK;
}

kp_status kp_ctrl_sync(kp_ctrl *c, int64_t epoch, int64_t now_ms, const kp_ctrl_sink *sink,
                       kp_error *err) {
    c->epoch = epoch;
    c->now = now_ms;
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    while (c->any_dirty) {
        c->any_dirty = false;
        for (size_t w = 0; w < c->n_wls; w++) {
            if (!c->wls[w].dirty) continue;
            c->wls[w].dirty = false;
            if (c->wls[w].deleted) continue;
            kp_status st = sync_one(c, (kp_index)w, sink, err);
            if (st != KP_OK) return st;
        }
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- replica status */

/* the active pods of workload w counted into *out (mirrors calculateStatus's loop over
 * FilterActivePods: IsPodReady, IsPodAvailable with minReadySeconds) */
static void count_pods(const kp_ctrl *c, kp_index w, int32_t min_ready, int64_t now,
                       kp_replica_status *out) {
    const ctrl_wl *wl = &c->wls[w];
    for (uint32_t i = 0; i < wl->n; i++) {
        uint32_t q = wl->pods[i];
        if (!kp__ctrl_active(c, q)) continue;
        out->replicas++;
        out->ready += kp_cluster_pod_ready(c->cl, (kp_index)q);
        out->available += kp_cluster_pod_available(c->cl, (kp_index)q, min_ready, now);
    }
}

kp_status kp_ctrl_workload_status(const kp_ctrl *c, kp_index w, int64_t now,
                                  kp_replica_status *out) {
    *out = (kp_replica_status){0, 0, 0};
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return KP_EINVAL;
    if (c->wls[w].kind != CTRL_KIND_DEPLOYMENT) {
        count_pods(c, w, c->wls[w].kind == CTRL_KIND_JOB ? 0 : in.min_ready_seconds, now, out);
        return KP_OK;
    }
    /* a Deployment: its ReplicaSets' counts, each with the Deployment's minReadySeconds (the
     * deployment controller sets it on the ReplicaSets it owns) */
    for (size_t i = 0; i < c->n_wls; i++) {
        kp_workload_info ri;
        if (kp_cluster_workload_info(c->cl, (kp_index)i, &ri) != KP_OK || ri.deleted ||
            strcmp(ri.kind, "ReplicaSet") != 0 || strcmp(ri.ns, in.ns) != 0 ||
            strcmp(ri.owner_kind, "Deployment") != 0 || strcmp(ri.owner_name, in.name) != 0)
            continue;
        count_pods(c, (kp_index)i, in.min_ready_seconds, now, out);
    }
    return KP_OK;
}
