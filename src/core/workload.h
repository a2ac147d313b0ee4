/* Workload objects (internal): Services (their selectors only) and the controllers that make pods —
 * ReplicationControllers, ReplicaSets, StatefulSets, Deployments, DaemonSets, Jobs, CronJobs —
 * decoded into plain values (src/io/decode_workload.c) for PodTopologySpread's default selector
 * (helper.DefaultSelector) and for the controllers (src/ctrl/: the simulator and
 * `--expand-workloads`).
 *
 * Defaults are the API server's (SetDefaults_*), applied when decoding: replicas 1, Job
 * parallelism 1 (and completions 1 when both are unset), backoffLimit 6, podManagementPolicy
 * OrderedReady, strategies RollingUpdate with 25% / 25% (Deployment), 1 / 0 (DaemonSet), partition
 * 0 (StatefulSet); concurrencyPolicy Allow. Fields that change no decision kprio models
 * are not kept. */
#ifndef KP_CORE_WORKLOAD_H
#define KP_CORE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/selector.h"

struct kp_pod;

typedef enum {
    KP_WL_SERVICE = 0, /* v1 Service: selector map only */
    KP_WL_RC, /* v1 ReplicationController */
    KP_WL_RS, /* apps/v1 ReplicaSet */
    KP_WL_STS, /* apps/v1 StatefulSet */
    KP_WL_DEPLOY, /* apps/v1 Deployment */
    KP_WL_DS, /* apps/v1 DaemonSet */
    KP_WL_JOB, /* batch/v1 Job */
    KP_WL_CRONJOB, /* batch/v1 CronJob */
    KP_WL_KINDS
} kp_workload_kind;

/* The kind as the API spells it ("Deployment"). */
static inline const char *kp__workload_kind_name(kp_workload_kind kind) {
    static const char *const names[KP_WL_KINDS] = {"Service",    "ReplicationController",
                                                   "ReplicaSet", "StatefulSet",
                                                   "Deployment", "DaemonSet",
                                                   "Job",        "CronJob"};
    return kind < KP_WL_KINDS ? names[kind] : "";
}

/* An intstr.IntOrString of a strategy (maxSurge, maxUnavailable): a count or a percentage. */
typedef struct {
    bool set;
    bool percent; /* value is a percentage ("25%") */
    int32_t value;
} kp_int_or_percent;

typedef enum {
    KP_WL_STRATEGY_ROLLING = 0, /* RollingUpdate (every kind's default) */
    KP_WL_STRATEGY_RECREATE, /* Deployment: Recreate */
    KP_WL_STRATEGY_ONDELETE /* StatefulSet, DaemonSet: OnDelete */
} kp_wl_strategy_type;

typedef struct {
    kp_wl_strategy_type type;
    kp_int_or_percent max_surge, max_unavailable; /* Deployment, DaemonSet (StatefulSet: maxUn.) */
    int32_t partition; /* StatefulSet rollingUpdate.partition */
} kp_wl_strategy;

/* A condition of a Deployment's status (DeploymentCondition) as the deployment controller writes
 * it; times are unix seconds. */
typedef struct {
    bool set;
    int8_t status; /* 1 True, 0 False, -1 Unknown */
    kp_str reason, message;
    int64_t last_update, last_transition;
} kp_wl_condition;

/* A Deployment's status (calculateStatus, syncRolloutStatus), written by the deployment
 * controller through kp__cluster_deployment_status_set (workload_ctrl.h); written = false until
 * it first syncs (the encoder then writes no status). */
typedef struct {
    bool written;
    int32_t replicas, updated, ready, available, unavailable;
    int64_t revision; /* metadata.annotations deployment.kubernetes.io/revision */
    kp_wl_condition available_cond, progressing; /* types Available, Progressing */
} kp_deploy_status;

typedef enum { KP_JOB_REPLACE_TERMINATING_OR_FAILED = 0, KP_JOB_REPLACE_FAILED } kp_job_replace;

/* batch/v1 JobSpec (a Job's spec, or a CronJob's jobTemplate.spec) and what of the Job's status
 * the Job controller's manageJob reads. */
typedef struct {
    int32_t parallelism; /* default 1 */
    bool has_completions; /* nil completions: a work queue, done when one pod succeeds */
    int32_t completions;
    bool indexed; /* completionMode: Indexed */
    int32_t backoff_limit; /* spec.backoffLimit (default 6) */
    bool suspend;
    kp_job_replace replacement; /* podReplacementPolicy (Failed when podFailurePolicy is set) */
    bool manual_selector;
    /* status (Jobs only) */
    int32_t succeeded, failed, active;
    kp_str completed_indexes; /* status.completedIndexes as written ("1,3-5"), 0 if none */
    bool finished; /* a Complete or Failed condition with status True */
} kp_job_spec;

typedef enum { KP_CONCURRENCY_ALLOW = 0, KP_CONCURRENCY_FORBID, KP_CONCURRENCY_REPLACE } kp_concur;

typedef struct kp_workload {
    kp_str ns, name, uid;
    kp_workload_kind kind;
    kp_origin origin; /* file it was read from (for errors after loading); object NULL */
    /* metadata.ownerReferences[] with controller: true (a ReplicaSet's Deployment, a Job's
     * CronJob); kind 0 when none */
    kp_str owner_kind, owner_name;
    bool has_map; /* Service / ReplicationController: spec.selector present (not nil) */
    kp_labels map; /* Service / ReplicationController: spec.selector (map) */
    kp_label_selector sel; /* the other controllers: spec.selector (LabelSelector; Job: as written,
                              is_set false when the API server would generate it) */
    kp_labels labels; /* CronJob: jobTemplate.metadata.labels (its Jobs' labels); else empty */

    /* controllers */
    int32_t replicas; /* RC, RS, StatefulSet, Deployment: spec.replicas (default 1) */
    int32_t
        min_ready_seconds; /* RC, RS, StatefulSet, Deployment, DaemonSet: spec.minReadySeconds */
    struct kp_pod *template; /* spec.template (CronJob: spec.jobTemplate.spec.template) decoded as
                                a pod without status; NULL when absent, or when no
                                kp_cluster_set_expand flag asked for templates before loading */
    bool template_host_network; /* template spec.hostNetwork (DaemonSet tolerations) */
    kp_wl_strategy strategy; /* Deployment strategy, StatefulSet / DaemonSet updateStrategy */
    /* StatefulSet / DaemonSet revisions (their ControllerRevisions): tmpl_rev numbers the
     * template, 0 as loaded, one more at each change of it (kp__cluster_update_workload);
     * a StatefulSet's status.currentRevision is cur_rev with its template cur_template (NULL:
     * the same as template) until the controller completes the rolling update
     * (kp__workload_rollout_done). */
    uint32_t tmpl_rev, cur_rev;
    struct kp_pod *cur_template;
    bool paused; /* Deployment spec.paused */
    int32_t progress_deadline_seconds; /* Deployment spec.progressDeadlineSeconds (default 600;
                                        * INT32_MAX: none, HasProgressDeadline) */
    int32_t revision_history_limit; /* Deployment spec.revisionHistoryLimit (default 10) */
    /* the pod template's identity (io computes it when it decodes a template): fnv-1a over the
     * template as the encoder writes it, the pod-template-hash label left out; 64 bits decide
     * template equality (FindNewReplicaSet's EqualIgnoreHash), 32 bits name a new ReplicaSet
     * (ComputeHash) */
    uint64_t template_fp;
    uint32_t template_hash32;
    int64_t revision; /* ReplicaSet of a Deployment: its revision (annotation), 0 unknown */
    kp_deploy_status dstatus; /* Deployment: the status its controller wrote */
    bool parallel_pods; /* StatefulSet podManagementPolicy: Parallel (default OrderedReady) */
    int32_t ordinals_start; /* StatefulSet spec.ordinals.start */
    kp_job_spec job; /* Job spec and status; CronJob jobTemplate.spec */
    /* CronJob */
    kp_str schedule; /* spec.schedule as written */
    kp_str time_zone; /* spec.timeZone, 0 when unset */
    bool suspend; /* spec.suspend */
    kp_concur concurrency; /* spec.concurrencyPolicy */
    int32_t n_active_jobs; /* status.active[] length */
    bool deleted; /* kp_cluster_delete_workload: no longer listed, not written, name free */
} kp_workload;

#endif
