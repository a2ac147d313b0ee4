/* The controller manager's state (src/ctrl/, internal): what upstream keeps in its informers'
 * caches and the controllers' expectations, per workload and per pod, and the helpers every
 * controller shares (create a pod, delete one, report). */
#ifndef KP_CTRL_INTERNAL_H
#define KP_CTRL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/prng.h"
#include "core/workload.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

/* the controller a workload kind has */
typedef enum {
    CTRL_KIND_OTHER = 0,
    CTRL_KIND_REPLICASET, /* ReplicaSet, ReplicationController */
    CTRL_KIND_DEPLOYMENT,
    CTRL_KIND_STATEFULSET,
    CTRL_KIND_DAEMONSET,
    CTRL_KIND_JOB,
    CTRL_KIND_CRONJOB
} ctrl_kind;

/* per workload: the pods it owns (indices, in creation order; stale entries are skipped) */
typedef struct {
    uint32_t *pods;
    uint32_t n, cap;
    uint64_t name_seq; /* generateName sequence */
    uint32_t active_from; /* kp__ctrl_active_from: the pods before this position are inactive */
    uint32_t lost_from; /* kp__ctrl_lost_pod: every pod before this position is replaced or was
                         * active when last seen (a pod seen leaving lowers it): the search for
                         * the pod a new one replaces is linear over a run, not per creation */
    uint8_t kind; /* ctrl_kind */
    bool dirty; /* queued: syncs at the next kp_ctrl_sync */
    bool deleted; /* the workload was deleted: it makes no more pods */
    bool done; /* a Job that completed or failed: it makes no more pods */
    bool cron_started; /* a CronJob whose schedule the controller follows */
    int64_t cron_last; /* a CronJob's last scheduled time handled (unix s, lastScheduleTime) */
    int64_t resync_at; /* a resync asked for then (ms), 0 = none */
    kp_index
        owner_dep; /* a ReplicaSet: the Deployment controlling it (-1 none, -2 not looked up) */
    int32_t desired_replicas; /* a Deployment's ReplicaSet: its desired-replicas annotation, -1 */
    int64_t deadline_at; /* a Deployment: the progress check asked for then (ms), -1 none */
    int64_t avail_at; /* a Deployment: the availability check asked for then (ms), -1 none */
} ctrl_wl;

/* a pod's state as the manager last saw it (kp_ctrl_pod_changed) */
typedef enum {
    CTRL_POD_ACTIVE = 0, /* pending or running, not being deleted */
    CTRL_POD_TERMINATING,
    CTRL_POD_SUCCEEDED,
    CTRL_POD_FAILED,
    CTRL_POD_DELETED
} ctrl_pod_state;

/* per pod */
typedef struct {
    kp_index workload; /* its controller, -1 */
    uint32_t wl_pos; /* its position in its controller's pods (ctrl_wl.pods) */
    bool replaced; /* its controller made a pod in its place (or chose not to) */
    uint8_t state; /* ctrl_pod_state, as last seen */
    bool ready; /* its Ready condition, as last seen (kp_cluster_pod_ready) */
    kp_index node; /* the node it was last seen bound to, -1 */
    int64_t terminating_ms; /* when it was first seen terminating (ms), -1 */
    int64_t gone_ms; /* when it was first seen terminal or deleted (ms), -1 */
    bool taint_planned; /* taint eviction: a deletion is planned (src/ctrl/taint_eviction.c) */
    int64_t taint_since; /* when that plan was made (ms) */
} ctrl_pod;

/* per node: the node lifecycle controller's view of its health (src/ctrl/node_lifecycle.c) */
typedef struct {
    bool stopped; /* its kubelet stopped posting status (kp_ctrl_node_kubelet) */
    int64_t heartbeat; /* ms: the last status the controller saw (nodeHealthData.probeTimestamp) */
} ctrl_node;

/* per PDB: the pods its selector selected (disruption.c), valid while the cluster's structure
 * generation is the one it was built at; pods added since are looked at when it is used */
typedef struct {
    uint32_t *pods;
    uint32_t n, cap;
    size_t scanned; /* pods [0, scanned) were looked at */
    uint64_t gen;
    bool built;
} ctrl_pdb_sel;

struct kp_ctrl {
    kp_cluster *cl;
    int64_t epoch; /* unix seconds of t = 0 */
    int64_t now; /* ms, of the call being served */
    ctrl_wl *wls;
    size_t n_wls, cap_wls;
    ctrl_pod *pods;
    size_t n_pods, cap_pods;
    bool any_dirty;
    uint8_t *node_tainted; /* per node: the pressure conditions the node lifecycle controller
                            * tainted it for (KP_NODE_COND_* bits; src/ctrl/node_lifecycle.c) */
    size_t n_node_tainted;
    uint32_t *orphans; /* pods with no controller reference, not adopted yet (ClaimPods) */
    size_t n_orphans, cap_orphans;
    ctrl_node *node_health; /* per node (src/ctrl/node_lifecycle.c) */
    size_t n_node_health;
    int64_t node_grace_ms; /* nodeMonitorGracePeriod */
    uint64_t *zone_keys; /* zoneNoExecuteTainter: per zone (GetZoneKey), the time its rate */
    int64_t *zone_next; /* limiter gives the next token (ms) */
    bool lost_rs_pods; /* some pod names a ReplicaSet the cluster lacks (deployment.c) */
    ctrl_pdb_sel *pdb_sel; /* per PDB (disruption.c) */
    size_t n_pdb_sel;
    void *dep_rs; /* deployment.c: its ReplicaSets while it syncs (scratch) */
    size_t cap_dep_rs;
    size_t n_zones;
    /* a workload's pods looked at by the scans of its pods on the creation path (the lost pod a
     * new one replaces, the active pods counted, Jobs' pods classified): the work a sync does,
     * which tests compare for N and 4N pods (creation stays linear, test_sim_limits.c) */
    uint64_t looked;
    kp_prng claim_prng; /* resourceclaim.c: generated claim names (kp_ctrl_set_seed) */
    size_t claim_pods_known; /* resourceclaim.c: pods [0, this) were there at its start */
    uint32_t *claim_fails; /* resourceclaim.c: per pod, its failed syncs (the rate limiter) */
    size_t n_claim_fails;
};

/* controller_utils.c */
kp_status kp__ctrl_nomem(kp_error *err);
/* the cluster's workloads not seen yet join (queued); KP_ENOMEM */
kp_status kp__ctrl_grow_workloads(kp_ctrl *c);
/* pods [c->n_pods, upto) join, indexed under their controller; KP_ENOMEM */
kp_status kp__ctrl_index_pods(kp_ctrl *c, size_t upto);
ctrl_pod_state kp__ctrl_seen_state(const kp_pod_info *pi);
/* the cluster's new workloads (queued) and pods (indexed) join; KP_ENOMEM */
kp_status kp__ctrl_grow(kp_ctrl *c);
void kp__ctrl_mark(kp_ctrl *c, kp_index w);
/* FilterActivePods: not terminal, not being deleted */
bool kp__ctrl_active(const kp_ctrl *c, uint32_t pod);
/* The first position of workload w's pods that may hold an active pod: a pod that left the
 * active pods never comes back (deleted, terminal, a deletionTimestamp), so a sync counting its
 * active pods starts there (a controller whose pods end and are replaced for a long run does
 * not count every pod it ever made at every sync) */
uint32_t kp__ctrl_active_from(kp_ctrl *c, kp_index w);
/* unix seconds now */
int64_t kp__ctrl_now_s(const kp_ctrl *c);
/* mirrors PodControllerRefManager.ClaimPods' adoption for workload w (a ReplicaSet or
 * ReplicationController, StatefulSet, DaemonSet, or a Job with a selector as written): the active
 * pods of its namespace with no controller reference that its selector (an empty one matches
 * nothing) selects join its pods, in creation order, the first workload to sync taking them. A
 * Deployment adopts through its ReplicaSets (their selectors add pod-template-hash). In the
 * manager's index only: the pod's ownerReferences are not written. KP_ENOMEM. */
kp_status kp__ctrl_claim_pods(kp_ctrl *c, kp_index w);
/* reports an event (sink->event) */
kp_status kp__ctrl_event(kp_ctrl *c, const kp_ctrl_sink *sink, bool warning, const char *reason,
                         const kp_workload_info *in, const char *message, kp_index pod,
                         kp_index node, kp_index cause_pod, kp_error *err);
/* The pod a new one replaces: the earliest inactive pod of workload w not replaced yet (node >=
 * 0, a DaemonSet's: one that ran on or targeted that node), now marked replaced; -1 when the new
 * pod is a scale-up. */
kp_index kp__ctrl_lost_pod(kp_ctrl *c, kp_index w, kp_index node);
/* pod was seen leaving the active pods (kp_ctrl_pod_changed): kp__ctrl_lost_pod looks at it */
void kp__ctrl_pod_left(kp_ctrl *c, uint32_t pod);
/* A new pod of workload w named name (node >= 0: a DaemonSet's pod for that node), with the
 * controller's SuccessfulCreate event ("Created pod: NAME"; a StatefulSet's "create Pod NAME in
 * StatefulSet SET successful"), or its FailedCreate (it tries again at its next sync). */
kp_status kp__ctrl_create_pod(kp_ctrl *c, kp_index w, const kp_workload_info *in, const char *name,
                              kp_index node, const kp_ctrl_sink *sink, kp_error *err);
/* A controller deletes one of its pods with the event SuccessfulDelete `msg` (NULL: RealPodControl
 * .DeletePod's "Deleted pod: NAME"); nothing replaces it. A terminal pod goes at once
 * (pod_deleted), a running one terminates (core's mark terminating, pod_deleting). */
kp_status kp__ctrl_delete_pod(kp_ctrl *c, const kp_workload_info *in, uint32_t pod, const char *msg,
                              const kp_ctrl_sink *sink, kp_error *err);
/* The deletion of a pod without the event: core's mark terminating (a bound, running pod), then
 * the sink's pod_deleting with ev (may be NULL); without a sink a pod on no node is deleted at
 * once (core's kp_cluster_delete_pod). */
kp_status kp__ctrl_pod_deleting(kp_ctrl *c, uint32_t pod, const kp_ctrl_event *ev,
                                const kp_ctrl_sink *sink, kp_error *err);
/* A terminal pod goes at once: the sink's pod_deleted with ev (may be NULL), or without one
 * core's kp_cluster_delete_pod. */
kp_status kp__ctrl_pod_deleted(kp_ctrl *c, uint32_t pod, const kp_ctrl_event *ev,
                               const kp_ctrl_sink *sink, kp_error *err);
/* The Deployment controlling ReplicaSet rs (its controller reference), -1 (cached). */
kp_index kp__ctrl_rs_deployment(kp_ctrl *c, kp_index rs);

/* taint_eviction.c: processPodOnNode with a plan counted from since_ms (<= now_ms): the
 * snapshot's NoExecute taints, planned from their timeAdded */
kp_status kp__ctrl_taint_eviction_since(kp_ctrl *c, kp_index pod, int64_t now_ms, int64_t since_ms,
                                        const kp_ctrl_sink *sink, kp_error *err);

/* deployment_util.c: the deployment controller's arithmetic (deployment_util.go), pure */
struct kp_workload;
/* the reasons of a Deployment's conditions (deployment_util.go) */
#define KP_DEPLOY_NEW_RS_CREATED "NewReplicaSetCreated"
#define KP_DEPLOY_FOUND_NEW_RS "FoundNewReplicaSet"
#define KP_DEPLOY_RS_UPDATED "ReplicaSetUpdated"
#define KP_DEPLOY_NEW_RS_AVAILABLE "NewReplicaSetAvailable"
#define KP_DEPLOY_TIMED_OUT "ProgressDeadlineExceeded"
#define KP_DEPLOY_MIN_AVAILABLE "MinimumReplicasAvailable"
#define KP_DEPLOY_MIN_UNAVAILABLE "MinimumReplicasUnavailable"
#define KP_DEPLOY_PAUSED "DeploymentPaused"
#define KP_DEPLOY_RESUMED "DeploymentResumed"
int32_t kp__deploy_scaled(const kp_int_or_percent *v, int32_t total, bool round_up);
void kp__deploy_fenceposts(const kp_int_or_percent *max_surge,
                           const kp_int_or_percent *max_unavailable, int32_t desired,
                           int32_t *surge, int32_t *unavailable);
int32_t kp__deploy_max_surge(const struct kp_workload *d);
int32_t kp__deploy_max_unavailable(const struct kp_workload *d);
int32_t kp__deploy_new_rs_replicas(const struct kp_workload *d, int32_t all_replicas,
                                   int32_t new_replicas);
bool kp__deploy_complete(int32_t replicas, const kp_deploy_status *s);
bool kp__deploy_progressing(const kp_deploy_status *old, const kp_deploy_status *nw);
/* one scaling of an old ReplicaSet (kp__deploy_old_scale_down) */
typedef struct {
    size_t rs;
    int32_t to;
} kp_deploy_step;
size_t kp__deploy_old_scale_down(const struct kp_workload *d, int32_t new_spec,
                                 int32_t new_available, size_t n, int32_t *spec,
                                 const int32_t *available, kp_deploy_step *steps);
bool kp__deploy_timed_out(int32_t deadline_s, const char *reason, int64_t last_update,
                          int64_t now_s);

/* deployment.c: Deployment w's spec.replicas changed: its ReplicaSet scales now (queued), or
 * w is queued when it has none yet (kp_ctrl_workload_scaled) */
kp_status kp__ctrl_deployment_scale(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink,
                                    kp_error *err);

/* cronjob.c: CronJob w fires once now (--expand-cronjobs; kprio/ctrl.h kp_ctrl_expand) */
kp_status kp__ctrl_cronjob_fire(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink, kp_error *err);

#endif
