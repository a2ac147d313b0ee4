/* The deployment controller's files (src/ctrl/deployment*.c, internal): one sync's view of a
 * Deployment and its ReplicaSets, shared by the sync (deployment.c) and the two strategies
 * (deployment_rollout.c), over deployment_rs.c. */
#ifndef KP_CTRL_DEPLOYMENT_INTERNAL_H
#define KP_CTRL_DEPLOYMENT_INTERNAL_H

#include "ctrl/ctrl_internal.h"

/* one ReplicaSet of the Deployment: spec.replicas and its status as its controller counts it
 * (active pods, Ready, available for the Deployment's minReadySeconds) */
typedef struct {
    kp_index w;
    int32_t spec, actual, ready, available;
    int32_t running; /* pods not terminal, terminating ones included (oldPodsRunning) */
    int64_t revision;
} dep_rs;

/* one sync */
typedef struct {
    kp_ctrl *c;
    const kp_ctrl_sink *sink;
    kp_error *err;
    kp_index d;
    kp_workload_info in;
    kp_workload dw; /* the Deployment (a copy: the cluster's array may move when a ReplicaSet is
                     * made); replicas less the pods of ReplicaSets the cluster lacks */
    dep_rs *rs; /* its ReplicaSets, oldest first (ReplicaSetsByCreationTimestamp) */
    size_t n;
    long nw; /* the new one (FindNewReplicaSet), -1 */
    int32_t lost, lost_ready, lost_available; /* pods whose ReplicaSet the cluster lacks */
    int64_t now_s;
} dep_sync;

/* deployment_rs.c: the Deployment's ReplicaSets gathered into x (oldest first, x->nw the new
 * one); the sum of their spec.replicas; one scaled with its ScalingReplicaSet event; the new one
 * made (getNewReplicaSet with createIfNotExisted, scaled to NewRSNewReplicas); the revisions
 * synced; the Progressing condition of a new ReplicaSet made or found; a condition set
 * (SetDeploymentCondition); whether the Deployment has a progress deadline. KP_ENOMEM, core's. */
kp_status kp__dep_gather(dep_sync *x);
int32_t kp__dep_sum_spec(const dep_sync *x);
kp_status kp__dep_scale_rs(dep_sync *x, size_t i, int32_t to, bool *scaled);
kp_status kp__dep_create_new(dep_sync *x);
kp_status kp__dep_sync_revision(dep_sync *x);
kp_status kp__dep_progressing_for_new(dep_sync *x, bool created);
kp_status kp__dep_set_cond(dep_sync *x, kp_wl_condition *cur, int8_t status, const char *reason,
                           const char *msg);
bool kp__dep_has_deadline(const dep_sync *x);

/* deployment_rollout.c: rolloutRolling, rolloutRecreate, scale (the proportional scaling of a
 * scaling event); each ends with the caller's status sync */
kp_status kp__dep_rollout_rolling(dep_sync *x);
kp_status kp__dep_rollout_recreate(dep_sync *x);
kp_status kp__dep_scale(dep_sync *x);

#endif
