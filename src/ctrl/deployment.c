/* The Deployment controller (pkg/controller/deployment), as far as kprio models it: a Deployment
 * without a ReplicaSet gets its new one (getNewReplicaSet), and its ReplicaSet takes the replicas
 * its older ReplicaSets' pods do not cover (scale). No rollouts: a Deployment has one ReplicaSet
 * that matters. */
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

/* The active pods of Deployment d (workload index di) controlled by a ReplicaSet of it other than
 * cur: one the cluster holds (controlled by d), or one it lacks (a snapshot without the
 * ReplicaSet object) whose name is d's name, "-" and a hash (the controller's naming). */
static int32_t old_pods(const kp_ctrl *c, const kp_workload_info *d, kp_index cur) {
    int32_t n = 0;
    size_t dn = strlen(d->name);
    for (size_t q = 0; q < c->n_pods; q++) {
        if (!kp__ctrl_active(c, (uint32_t)q)) continue;
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, (kp_index)q, &pi);
        if (strcmp(pi.owner_kind, "ReplicaSet") != 0 || strcmp(pi.ns, d->ns) != 0) continue;
        kp_index rs = c->pods[q].workload;
        if (rs >= 0 && rs == cur) continue;
        kp_workload_info ri;
        if (rs >= 0) {
            if (kp_cluster_workload_info(c->cl, rs, &ri) == KP_OK &&
                strcmp(ri.kind, "ReplicaSet") == 0 && strcmp(ri.owner_kind, "Deployment") == 0 &&
                strcmp(ri.owner_name, d->name) == 0)
                n++;
            continue;
        }
        const char *dash = strrchr(pi.owner_name, '-');
        if (dash && (size_t)(dash - pi.owner_name) == dn &&
            strncmp(pi.owner_name, d->name, dn) == 0)
            n++;
    }
    return n;
}

/* mirrors DeploymentController.syncDeployment for a Deployment with a template: its new
 * ReplicaSet (getNewReplicaSet with createIfNotExisted: NAME-HASH, core's
 * kp__cluster_deployment_new_replicaset) when it has none, and the ReplicaSet's scale
 * (DeploymentController.scale, NewRSNewReplicas): spec.replicas less the active pods of its
 * other ReplicaSets (an older revision's, or one the snapshot lacks), at least 0, with the
 * event ScalingReplicaSet "Scaled up/down replica set NAME from A to B"; the ReplicaSet's
 * controller then creates or deletes the pods (it is queued). kprio models no rollout: no
 * maxSurge on top of spec.replicas, and the old ReplicaSets are not scaled down. */
kp_status kp_ctrl_deployment_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in, ri;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_DEPLOYMENT ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "deployment sync: %ld is not a Deployment", (long)w);
    c->now = now_ms;
    if (!in.has_template) return KP_OK;
    kp_index rs = kp__ctrl_deployment_rs(c, w);
    int32_t want = in.replicas - old_pods(c, &in, rs), from = 0;
    if (want < 0) want = 0;
    kp_status st;
    if (rs < 0) {
        if ((st = kp__cluster_deployment_new_replicaset(c->cl, w, &rs, err)) != KP_OK) return st;
        if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    } else {
        kp_cluster_workload_info(c->cl, rs, &ri);
        if (ri.replicas == want) return KP_OK;
        from = ri.replicas;
    }
    if ((st = kp_cluster_workload_scale(c->cl, rs, want, err)) != KP_OK) return st;
    kp_cluster_workload_info(c->cl, rs, &ri);
    if ((st = scaling_event(c, &in, ri.name, want >= from, from, want, sink, err)) != KP_OK)
        return st;
    kp__ctrl_mark(c, rs);
    return KP_OK;
}

/* mirrors DeploymentController.scale for Deployment w, whose spec.replicas changed: it syncs at
 * once (kp_ctrl_deployment_sync holds the rule: its ReplicaSet scaled, or its new one made). */
kp_status kp__ctrl_deployment_scale(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink,
                                    kp_error *err) {
    return kp_ctrl_deployment_sync(c, w, c->now, sink, err);
}
