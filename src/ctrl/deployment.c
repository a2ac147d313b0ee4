/* The Deployment controller (pkg/controller/deployment), as far as kprio models it: a Deployment
 * without a ReplicaSet gets its new one (getNewReplicaSet), and a scaled Deployment scales its
 * ReplicaSet (scale). No rollouts: a Deployment has one ReplicaSet that matters. */
#include <stdio.h>
#include <string.h>

#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

static kp_status scaling_event(kp_ctrl *c, const kp_workload_info *d, const char *rs, bool up,
                               int32_t from, int32_t to, const kp_ctrl_sink *sink, kp_error *err) {
    char msg[600];
    snprintf(msg, sizeof msg, "Scaled %s replica set %s from %d to %d", up ? "up" : "down", rs,
             from, to);
    return kp__ctrl_event(c, sink, false, "ScalingReplicaSet", d, msg, -1, -1, -1, err);
}

/* mirrors DeploymentController.syncDeployment's getNewReplicaSet (createIfNotExisted) for a
 * Deployment without a ReplicaSet (created by the scenario, or one the snapshot lacks): its new
 * ReplicaSet NAME-HASH (core's kp__cluster_deployment_new_replicaset) at the Deployment's replicas,
 * the event ScalingReplicaSet "Scaled up replica set NAME from 0 to N"; the ReplicaSet's controller
 * then creates the pods (it is queued). A Deployment with one: nothing (kp_ctrl_workload_scaled
 * scales it). */
kp_status kp_ctrl_deployment_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_DEPLOYMENT ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "deployment sync: %ld is not a Deployment", (long)w);
    c->now = now_ms;
    if (!in.has_template || kp__ctrl_deployment_rs(c, &in) >= 0) return KP_OK;
    kp_index rs = -1;
    kp_status st = kp__cluster_deployment_new_replicaset(c->cl, w, &rs, err);
    if (st != KP_OK) return st;
    kp_workload_info ri;
    if (kp__ctrl_grow(c) != KP_OK || kp_cluster_workload_info(c->cl, rs, &ri) != KP_OK)
        return kp__ctrl_nomem(err);
    if ((st = scaling_event(c, &in, ri.name, true, 0, ri.replicas, sink, err)) != KP_OK) return st;
    kp__ctrl_mark(c, rs);
    return KP_OK;
}

/* mirrors DeploymentController.scale for a Deployment whose spec.replicas changed: its
 * ReplicaSet (kp__ctrl_deployment_rs) scales to the same count with ScalingReplicaSet "Scaled
 * up/down replica set NAME from A to B" and syncs; without one the Deployment syncs (its new
 * ReplicaSet comes at that scale). */
kp_status kp__ctrl_deployment_scale(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink,
                                    kp_error *err) {
    kp_workload_info in, ri;
    if (kp_cluster_workload_info(c->cl, w, &in) != KP_OK) return KP_OK;
    kp_index rs = kp__ctrl_deployment_rs(c, &in);
    if (rs < 0) {
        kp__ctrl_mark(c, w);
        return KP_OK;
    }
    kp_cluster_workload_info(c->cl, rs, &ri);
    kp_status st = scaling_event(c, &in, ri.name, in.replicas >= ri.replicas, ri.replicas,
                                 in.replicas, sink, err);
    if (st == KP_OK) st = kp_cluster_workload_scale(c->cl, rs, in.replicas, err);
    if (st != KP_OK) return st;
    kp__ctrl_mark(c, rs);
    return KP_OK;
}
