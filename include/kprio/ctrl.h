/* The controllers (kube-controller-manager): one file per upstream controller in src/ctrl/, each
 * mirroring its sync function, run by a small manager (kp_ctrl) that keeps what upstream keeps in
 * informers and expectations: per workload its pods, its generateName sequence, whether it is
 * dirty (queued), deleted or done; per pod its controller and whether something replaced it.
 *
 * Controllers change the cluster only through core's state-changing calls (kprio/cluster.h:
 * create a pod, mark one terminating, scale a ReplicaSet, ...) and report what they did through
 * a kp_ctrl_sink the caller supplies (the simulator logs events, plays grace periods, queues new
 * pods, plans resyncs). Every callback may be NULL (nothing to report).
 *
 * Typical use (a runner such as the simulator):
 *     kp_ctrl *c = kp_ctrl_new(cl);               // cl finalized; every workload queued
 *     kp_ctrl_set_epoch(c, epoch);                // unix seconds of t = 0
 *     ... a pod changed:  kp_ctrl_pod_changed(c, pod, now_ms);
 *     ... a node changed: kp_ctrl_node_changed(c, node);
 *     kp_ctrl_sync(c, epoch, now_ms, &sink, &err); // every queued controller syncs
 *     kp_ctrl_free(c);
 * Deterministic: workloads sync in index order, pods are considered in creation order. Not
 * thread-safe. */
#ifndef KP_CTRL_H
#define KP_CTRL_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_ctrl kp_ctrl;

/* What a controller did, as EventRecorder.Eventf on an object. The strings are the
 * controller's (valid during the callback only: copy them to keep them). */
typedef struct {
    bool warning; /* event type Warning (else Normal) */
    const char *reason, *kind, *ns, *name, *message;
    kp_index pod, node; /* the pod / node it is about, -1 when none */
    kp_index cause_pod; /* the pod whose loss this follows from (a replacement), -1 */
} kp_ctrl_event;

/* What kp_ctrl_sink.resync_at asks to sync again */
typedef enum {
    KP_CTRL_RESYNC_WORKLOAD = 0, /* obj: a workload index (kp_ctrl_workload_changed then) */
    KP_CTRL_RESYNC_POD = 1, /* obj: a pod (taint eviction: kp_ctrl_taint_eviction_fire then) */
    KP_CTRL_RESYNC_CRONJOB = 2, /* obj: a CronJob (kp_ctrl_cronjob_sync then); a schedule alone
                                 * need not keep a runner going */
    KP_CTRL_RESYNC_NODE = 3, /* obj: a Node (kp_ctrl_node_monitor then: a monitor pass) */
    KP_CTRL_RESYNC_WORKLOAD_IDLE = 4, /* obj: a workload, as KP_CTRL_RESYNC_WORKLOAD, for a check
                                       * alone (a Deployment's progress deadline): it need not
                                       * keep a runner going */
    KP_CTRL_RESYNC_CLAIMS = 5 /* obj: a pod whose claim could not be made (its template is
                               * missing): the resourceclaim controller's work queue retries it
                               * with its rate limiter (kp_ctrl_resourceclaim_pod then); a retry
                               * alone need not keep a runner going */
} kp_ctrl_resync_kind;

/* The runner's side. Every callback returns KP_OK or an error that stops the sync (KP_ENOMEM,
 * or the runner's own), and may be NULL. `ev` arguments may be NULL (nothing to log). */
typedef struct {
    void *ctx;
    /* an event to record */
    kp_status (*event)(void *ctx, const kp_ctrl_event *ev, kp_error *err);
    /* the controller created `pod` through core (replacing `replaces`, -1 for a scale-up);
     * ev: its SuccessfulCreate event, to record first */
    kp_status (*pod_created)(void *ctx, kp_index pod, kp_index replaces, const kp_ctrl_event *ev,
                             kp_error *err);
    /* the controller deleted `pod` (a running pod: core's kp_cluster_mark_terminating already
     * called; a pod bound to no node: not yet, the API server deletes it at once); the runner
     * plays the rest (the grace period, the kubelet stopping it, core's kp_cluster_delete_pod
     * at its end). cause: "deleted". ev: the SuccessfulDelete event, to record first (it caused
     * the deletion), or NULL (the garbage collector's cascade logs none) */
    kp_status (*pod_deleting)(void *ctx, kp_index pod, const char *cause, const kp_ctrl_event *ev,
                              kp_error *err);
    /* the controller deleted `pod`, which was terminal (Succeeded / Failed): it goes at once
     * (the runner calls kp_cluster_delete_pod); ev: the SuccessfulDelete event or NULL */
    kp_status (*pod_deleted)(void *ctx, kp_index pod, const kp_ctrl_event *ev, kp_error *err);
    /* sync object `obj` again at t_ms (workqueue.AddAfter); kind: kp_ctrl_resync_kind */
    kp_status (*resync_at)(void *ctx, int kind, kp_index obj, int64_t t_ms, kp_error *err);
    /* the resourceclaim controller changed ResourceClaim `claim` (kp_cluster_claim_info) for
     * `pod` (-1: none): change is a kp_ctrl_claim_change */
    kp_status (*claim_changed)(void *ctx, kp_index claim, int change, kp_index pod, kp_error *err);
} kp_ctrl_sink;

/* What kp_ctrl_sink.claim_changed reports */
typedef enum {
    KP_CTRL_CLAIM_CREATED = 0, /* generated from its pod's ResourceClaimTemplate */
    KP_CTRL_CLAIM_UNRESERVED, /* reservedFor entries of pods gone or done dropped */
    KP_CTRL_CLAIM_DEALLOCATED, /* no longer reserved: status.allocation cleared, devices free */
    KP_CTRL_CLAIM_DELETED /* a generated claim whose pod is done or gone */
} kp_ctrl_claim_change;

/* The manager for cluster cl (finalized; it must outlive the manager): every pod indexed under
 * its controller (kp_cluster_pod_workload), every workload queued for a sync. NULL on
 * allocation failure. */
kp_ctrl *kp_ctrl_new(kp_cluster *cl);
/* NULL is a no-op. */
void kp_ctrl_free(kp_ctrl *c);
/* Unix seconds of t = 0 (0 until set): creationTimestamps and deletionTimestamps the controllers
 * write are epoch + now_ms / 1000. kp_ctrl_sync sets it too. */
void kp_ctrl_set_epoch(kp_ctrl *c, int64_t epoch);

/* Informer notifications. kp_ctrl_pod_changed: pod (any pod of the cluster) was added or its
 * state changed at now_ms. A pod the manager has not seen yet is indexed under its controller
 * (no sync: a new pod is what its controller expected). Otherwise its controller is queued when
 * the pod is no longer active (terminating, terminal or deleted: FilterActivePods), and a
 * StatefulSet's when its pod is bound (running and ready in kprio: an OrderedReady set goes on).
 * KP_ENOMEM. */
kp_status kp_ctrl_pod_changed(kp_ctrl *c, kp_index pod, int64_t now_ms);
/* node was added, changed or deleted (-1: some node may have): every DaemonSet is queued. */
kp_status kp_ctrl_node_changed(kp_ctrl *c, kp_index node);
/* Workload w's spec changed (a scale; or a resync asked through resync_at came): it is queued.
 * Workloads the cluster gained since the manager last looked are queued too (w = -1: only
 * those). KP_ENOMEM. */
kp_status kp_ctrl_workload_changed(kp_ctrl *c, kp_index w);

/* Whether a controller is queued (kp_ctrl_sync has work) */
bool kp_ctrl_queued(const kp_ctrl *c);

/* A workload's replica counts as its controller writes them in its status at `now` (unix
 * seconds): replicas, the active pods (FilterActivePods); ready, those Ready (IsPodReady);
 * available, those available for spec.minReadySeconds (IsPodAvailable). ReplicaSet / RC:
 * calculateStatus (status.replicas, readyReplicas, availableReplicas); Deployment: the sums over
 * its ReplicaSets (GetReadyReplicaCountForReplicaSets, GetAvailableReplicaCountForReplicaSets);
 * StatefulSet: status.readyReplicas / availableReplicas; DaemonSet: numberReady /
 * numberAvailable; Job: status.active and status.ready (countReadyPods; available = ready).
 * KP_EINVAL when w is not a workload the manager follows. */
typedef struct {
    int32_t replicas, ready, available;
} kp_replica_status;
kp_status kp_ctrl_workload_status(const kp_ctrl *c, kp_index w, int64_t now,
                                  kp_replica_status *out);

/* Syncs every queued controller at now_ms (unix seconds: epoch + now_ms / 1000), in workload
 * index order, again while a sync queued another (a Deployment's new ReplicaSet, a Job's pod
 * gone). Errors: the sink's, KP_ENOMEM, core's. */
kp_status kp_ctrl_sync(kp_ctrl *c, int64_t epoch, int64_t now_ms, const kp_ctrl_sink *sink,
                       kp_error *err);

/* The garbage collector's background cascading deletion of workload w (mirrors
 * GarbageCollector.attemptToDeleteItem with propagationPolicy Background): the workload leaves
 * the cluster (kp_cluster_delete_workload), its pods are deleted (pod_deleting, no event) and so
 * are the workloads it controls (a Deployment's ReplicaSets, a CronJob's Jobs) with theirs. A
 * workload deleted already: nothing. Errors: the sink's, core's. */
kp_status kp_ctrl_delete_workload(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err);
/* Workload w's spec.replicas was written (kp_cluster_workload_scale) at now_ms: a Deployment
 * scales its ReplicaSet at once (ScalingReplicaSet "Scaled up/down replica set NAME from A to
 * B", src/ctrl/deployment.c) and that one is queued; any other workload (or a Deployment without
 * a ReplicaSet yet) is queued. Errors: the sink's, core's. */
kp_status kp_ctrl_workload_scaled(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err);
/* Whether workload w makes no more pods: a Job that completed or failed, or a deleted workload */
bool kp_ctrl_workload_done(const kp_ctrl *c, kp_index w);

/* `--expand-workloads`: the controllers' own sync at t = 0 over a finalized cluster whose
 * kp_cluster_set_expand flags were set before loading (without KP_EXPAND_WORKLOADS or
 * KP_EXPAND_CRONJOBS nothing happens): a manager over the cluster, each CronJob fired once
 * (KP_EXPAND_CRONJOBS), then kp_ctrl_sync until no controller is queued; the pods the
 * controllers create are the expanded ones (kp_cluster_expanded_pod_count), created through
 * core like any controller's. One instant: no pod is scheduled, started or Ready meanwhile, so a
 * StatefulSet with podManagementPolicy OrderedReady makes its first missing ordinal only
 * (src/ctrl/expand.c). Runs once. Errors: KP_EINVAL (the cluster is not finalized; a workload
 * that asks for pods without a template, or whose template names a missing PriorityClass: one
 * line naming the workload's file, object and field, checked before any controller acts; a
 * creation the API server refuses), KP_ELIMIT (more than KP_EXPAND_MAX_PODS), KP_ENOMEM. */
kp_status kp_ctrl_expand(kp_cluster *cl, kp_error *err);

/* One sync function per controller (what kp_ctrl_sync calls for a queued workload of its kind),
 * public for their unit tests: w must be a workload of that kind (else KP_EINVAL). They read
 * the cluster as it is now and act at now_ms. */
/* mirrors ReplicaSetController.syncReplicaSet / manageReplicas (ReplicaSet and
 * ReplicationController; src/ctrl/replicaset.c) */
kp_status kp_ctrl_replicaset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err);
/* mirrors DeploymentController.syncDeployment (src/ctrl/deployment.c): the new ReplicaSet made
 * or found, the rollout by the strategy (RollingUpdate, Recreate), the status written (core) and
 * the resyncs a rollout needs asked for (resync_at) */
kp_status kp_ctrl_deployment_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err);
/* mirrors StatefulSetControl.UpdateStatefulSet (src/ctrl/statefulset.c) */
kp_status kp_ctrl_statefulset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                   kp_error *err);
/* mirrors DaemonSetsController.syncDaemonSet / manage (src/ctrl/daemonset.c) */
kp_status kp_ctrl_daemonset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err);
/* mirrors Controller.syncJob / manageJob (src/ctrl/job.c) */
kp_status kp_ctrl_job_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                           kp_error *err);

/* The controllers that are not workload controllers (src/ctrl/cronjob.c, disruption.c,
 * taint_eviction.c, node_lifecycle.c, podgc.c): the runner calls them when their inputs change
 * (kp_ctrl_sync does not). */
/* mirrors ControllerV2.syncCronJob for CronJob w: its first sync reads the schedule
 * (InvalidSchedule, UnsupportedTimeZone events) and starts following it from now_ms; a later one
 * runs the most recent scheduled time not handled yet (Forbid, Replace, the new Job, which is
 * queued) unless suspended. Each asks for a resync at the next scheduled time (resync_at,
 * KP_CTRL_RESYNC_CRONJOB, once per time). KP_EINVAL when w is not a CronJob. */
kp_status kp_ctrl_cronjob_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                               kp_error *err);
/* The CronJobs the manager has not followed yet (the cluster's, loaded since too) get their
 * first kp_ctrl_cronjob_sync (the informer's addCronjob), in index order. */
kp_status kp_ctrl_cronjobs_added(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err);
/* mirrors DisruptionController.trySync for PodDisruptionBudget pdb: its status (currentHealthy,
 * desiredHealthy, expectedPods, disruptionsAllowed) recomputed from the pods it selects now and
 * written through core: expected pods from minAvailable / maxUnavailable (percentages against
 * the pods' controllers' scale), healthy = bound, not terminal, not terminating;
 * disruptionsAllowed = healthy - desired, at least 0, 0 when a pod's controller is not found
 * (failSafe). A deleted PDB: nothing. KP_EINVAL (out of range), KP_ENOMEM. */
kp_status kp_ctrl_disruption_sync(kp_ctrl *c, kp_index pdb, kp_error *err);
/* The taint-eviction controller. kp_ctrl_taint_eviction_pod: processPodOnNode for pod (bound,
 * running) against its node's NoExecute taints: a deletion planned now, after the smallest
 * tolerationSeconds (resync_at, KP_CTRL_RESYNC_POD), or a plan cancelled (event
 * TaintManagerEviction "Cancelling deletion of Pod NS/NAME"). kp_ctrl_taint_eviction_node: the
 * same for every pod of node (its taints changed). kp_ctrl_taint_eviction_fire: the resync came;
 * a plan still in place deletes the pod (DisruptionTarget DeletionByTaintManager, pod_deleting
 * with the event "Marking for deletion Pod NS/NAME"). Errors: the sink's, core's, KP_ENOMEM. */
kp_status kp_ctrl_taint_eviction_pod(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                     const kp_ctrl_sink *sink, kp_error *err);
kp_status kp_ctrl_taint_eviction_node(kp_ctrl *c, kp_index node, int64_t now_ms,
                                      const kp_ctrl_sink *sink, kp_error *err);
kp_status kp_ctrl_taint_eviction_fire(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                      const kp_ctrl_sink *sink, kp_error *err);
/* mirrors Controller.doNoScheduleTaintingPass (node lifecycle) for node's pressure conditions
 * now (KP_NODE_COND_* bits, kprio/node_conditions.h): the NoSchedule taint of a condition newly
 * on is added (event TaintAdded), that of a condition the controller tainted for and now off is
 * removed (TaintRemoved); *untainted (may be NULL): a taint was removed. KP_EINVAL (node out of
 * range), core's errors. */
kp_status kp_ctrl_node_lifecycle_sync(kp_ctrl *c, kp_index node, unsigned conditions,
                                      int64_t now_ms, const kp_ctrl_sink *sink, bool *untainted,
                                      kp_error *err);
/* The node lifecycle controller's health monitoring (src/ctrl/node_lifecycle.c; upstream's
 * defaults: nodeMonitorPeriod 5 s, passes at multiples of it from t = 0; nodeMonitorGracePeriod
 * KP_CTRL_NODE_MONITOR_GRACE_MS; a zone's NoExecute taints one node every 10 s).
 * kp_ctrl_node_lifecycle_start: the controller's first look at a snapshot (Ready Unknown: the
 * kubelet is not posting; Ready False / Unknown: their not-ready / unreachable NoSchedule and
 * NoExecute taints; spec.unschedulable: its taint; the NoExecute taints' evictions planned from
 * their timeAdded). kp_ctrl_node_kubelet: node's kubelet stopped (posting false) or resumed
 * posting its status at now_ms; resumed, it reports Ready (event NodeReady) and the NoSchedule
 * taints go at once. kp_ctrl_node_monitor: a monitor pass of node (the resync
 * KP_CTRL_RESYNC_NODE came): past the grace period, Ready and the pressure conditions go
 * Unknown (events NodeNotReady on the node and on each of its running pods, the NoSchedule
 * taint), at the next pass the NoExecute taint (monitorNodeHealth, processTaintBaseEviction,
 * doNoExecuteTaintingPass) and the taint-eviction controller's plans; Ready again, the NoExecute
 * taints go (markNodeAsReachable). kp_ctrl_node_noschedule_pass: doNoScheduleTaintingPass for
 * the Ready condition's and spec.unschedulable's taints (cordon, uncordon). *untainted (may be
 * NULL): a taint was removed. Errors: KP_EINVAL (node out of range), the sink's, core's. */
#define KP_CTRL_NODE_MONITOR_GRACE_MS 50000 /* nodeMonitorGracePeriod (v1.32+; 40 s before) */
kp_status kp_ctrl_node_lifecycle_start(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                       kp_error *err);
kp_status kp_ctrl_node_kubelet(kp_ctrl *c, kp_index node, bool posting, int64_t now_ms,
                               const kp_ctrl_sink *sink, bool *untainted, kp_error *err);
kp_status kp_ctrl_node_monitor(kp_ctrl *c, kp_index node, int64_t now_ms, const kp_ctrl_sink *sink,
                               bool *untainted, kp_error *err);
kp_status kp_ctrl_node_noschedule_pass(kp_ctrl *c, kp_index node, bool *untainted, kp_error *err);
/* nodeMonitorGracePeriod (<= 0: the default) */
void kp_ctrl_set_node_monitor_grace(kp_ctrl *c, int64_t grace_ms);
/* mirrors PodGCController.gc: with terminated_threshold > 0 (upstream's default 12500) the
 * oldest terminated pods past that many are deleted (gcTerminated), then every pod still bound to
 * a deleted node (gcOrphaned). Each deletion: the sink's pod_deleted (ev NULL), or core's
 * kp_cluster_delete_pod when the sink has none. Errors: the sink's, core's, KP_ENOMEM. */
kp_status kp_ctrl_podgc_sync(kp_ctrl *c, int64_t now_ms, int32_t terminated_threshold,
                             const kp_ctrl_sink *sink, kp_error *err);

/* ---- the resourceclaim controller (src/ctrl/resourceclaim.c, pkg/controller/resourceclaim) ----
 * Claims from templates and their release, done at once (its work queue takes no time):
 * kp_ctrl_resourceclaim_pod is the pod informer's enqueuePod with the syncs it queues. A pod
 * that no longer needs its claims (deleted, terminal, or deleted before it was scheduled:
 * podNeedsClaims) has each of its claims synced (syncClaim: reservedFor entries of pods that are
 * gone, replaced or done dropped; a claim whose last reservation went has its allocation cleared;
 * a claim generated for a pod that is done is deleted, one whose pod is gone is deleted by the
 * garbage collector, its owner reference). A pod that needs work has syncPod: each
 * spec.resourceClaims entry with a template and no claim yet gets one (handleClaim: named
 * generateName "<pod>-<podClaim>-" + 5 characters of the manager's PRNG, kp_ctrl_set_seed;
 * status.resourceClaimStatuses written); a missing template: the Warning event
 * FailedResourceClaimCreation "PodResourceClaim NAME: resource claim template ...", the pod left
 * without its claim and retried (KP_CTRL_RESYNC_CLAIMS) after the work queue's per-item
 * exponential backoff, 5 ms doubling to at most 1000 s (DefaultTypedControllerRateLimiter); the
 * retries' identical events are the first one's (the event recorder aggregates them), a success
 * forgets the failures. A pod without spec.resourceClaims: nothing. Errors: the sink's, KP_ENOMEM.
 */
void kp_ctrl_set_seed(kp_ctrl *c, uint64_t seed);
kp_status kp_ctrl_resourceclaim_pod(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                    const kp_ctrl_sink *sink, kp_error *err);
/* The controller's start (its informers' first lists): every pod with claims as above, in index
 * order, then every claim synced (a snapshot's reservations of pods it lacks dropped; a
 * generated claim found by its owner and annotation completes its pod's status,
 * findPodResourceClaim). Errors as above. */
kp_status kp_ctrl_resourceclaim_start(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                      kp_error *err);
/* `schedule` and `why`: the claims a live cluster's controller would have made already, for
 * every pending pod of finalized cluster cl (kp_ctrl_resourceclaim_start's creation step alone,
 * at unix time now_s (0: creationTimestamp unset), names from seed). *created (may be NULL): how
 * many. Errors: KP_ENOMEM. */
kp_status kp_ctrl_resourceclaim_create_all(kp_cluster *cl, uint64_t seed, int64_t now_s,
                                           size_t *created, kp_error *err);

#ifdef __cplusplus
}
#endif

#endif
