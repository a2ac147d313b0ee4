/* Services and controllers back to JSON (kp_cluster_encode_json): what decode_workload.c keeps.
 * Defaults the decoder applied are written out (replicas, a Job's parallelism and completions,
 * the strategies), which loads back to the same values. The pod template is written when the
 * model has it (kp_cluster_set_expand asked for templates before loading); a CronJob's
 * status.active is written as that many empty references (the model keeps their count only). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/workload.h"
#include "io/encode_json.h"

static const char *api_of(kp_workload_kind k) {
    switch (k) {
    case KP_WL_SERVICE:
    case KP_WL_RC: return "v1";
    case KP_WL_JOB:
    case KP_WL_CRONJOB: return "batch/v1";
    default: return "apps/v1";
    }
}

static void owner(kp__enc *e, const kp_workload *w) {
    if (!w->owner_kind) return;
    const char *kind = kp__s(e->cl, w->owner_kind);
    kp__enc_arr(e, "ownerReferences");
    kp__enc_obj(e, NULL);
    for (int k = 0; k < KP_WL_KINDS; k++)
        if (strcmp(kind, kp__workload_kind_name((kp_workload_kind)k)) == 0)
            kp__enc_str(e, "apiVersion", api_of((kp_workload_kind)k));
    kp__enc_str(e, "kind", kind);
    kp__enc_sid(e, "name", w->owner_name);
    kp__enc_bool(e, "controller", true);
    kp__enc_end_obj(e);
    kp__enc_end_arr(e);
}

static void int_or_percent(kp__enc *e, const char *key, const kp_int_or_percent *v) {
    if (!v->set) return;
    if (!v->percent) {
        kp__enc_int(e, key, v->value);
        return;
    }
    char b[16];
    snprintf(b, sizeof b, "%" PRId32 "%%", v->value);
    kp__enc_str(e, key, b);
}

/* Deployment strategy, StatefulSet / DaemonSet updateStrategy. */
static void strategy(kp__enc *e, const kp_workload *w) {
    const kp_wl_strategy *s = &w->strategy;
    bool deploy = w->kind == KP_WL_DEPLOY;
    kp__enc_obj(e, deploy ? "strategy" : "updateStrategy");
    kp__enc_str(e, "type",
                s->type == KP_WL_STRATEGY_RECREATE   ? "Recreate"
                : s->type == KP_WL_STRATEGY_ONDELETE ? "OnDelete"
                                                     : "RollingUpdate");
    if (s->max_surge.set || s->max_unavailable.set || s->partition) {
        kp__enc_obj(e, "rollingUpdate");
        if (w->kind == KP_WL_STS || s->partition) kp__enc_int(e, "partition", s->partition);
        int_or_percent(e, "maxUnavailable", &s->max_unavailable);
        int_or_percent(e, "maxSurge", &s->max_surge);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

/* spec.template. A ReplicaSet of a Deployment carries the pod-template-hash label in its selector
 * and its template (the deployment controller's getNewReplicaSet); the ReplicaSet that expansion
 * makes for a Deployment shares the Deployment's template, so the label is added here, as the
 * controller's object has it (without it the selector would not match the template: invalid). */
static void template(kp__enc *e, const kp_workload *w) {
    if (!w->template) return;
    const kp_label *hash = NULL;
    kp_str key = kp__intern_find(&e->cl->strs, "pod-template-hash", 17);
    for (uint32_t i = 0; w->kind == KP_WL_RS && key != UINT32_MAX && i < w->sel.match_labels.n; i++)
        if (w->sel.match_labels.items[i].key == key) hash = &w->sel.match_labels.items[i];
    kp__enc_pod_template(e, "template", w->template, hash);
}

/* A JobSpec: a Job's spec, or a CronJob's jobTemplate.spec. */
static void job_spec(kp__enc *e, const kp_workload *w) {
    const kp_job_spec *j = &w->job;
    kp__enc_obj(e, "spec");
    kp__enc_int(e, "parallelism", j->parallelism);
    if (j->has_completions) kp__enc_int(e, "completions", j->completions);
    kp__enc_selector(e, "selector", &w->sel);
    if (j->manual_selector) kp__enc_bool(e, "manualSelector", true);
    template(e, w);
    kp__enc_str(e, "completionMode", j->indexed ? "Indexed" : "NonIndexed");
    kp__enc_bool(e, "suspend", j->suspend);
    kp__enc_str(e, "podReplacementPolicy",
                j->replacement == KP_JOB_REPLACE_FAILED ? "Failed" : "TerminatingOrFailed");
    kp__enc_end_obj(e);
}

static void job_status(kp__enc *e, const kp_job_spec *j) {
    kp__enc_obj(e, "status");
    if (j->finished) {
        kp__enc_arr(e, "conditions");
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "type", "Complete");
        kp__enc_str(e, "status", "True");
        kp__enc_end_obj(e);
        kp__enc_end_arr(e);
    }
    if (j->active) kp__enc_int(e, "active", j->active);
    if (j->succeeded) kp__enc_int(e, "succeeded", j->succeeded);
    if (j->failed) kp__enc_int(e, "failed", j->failed);
    kp__enc_sid(e, "completedIndexes", j->completed_indexes);
    kp__enc_end_obj(e);
}

static void cronjob(kp__enc *e, const kp_workload *w) {
    kp__enc_obj(e, "spec");
    kp__enc_sid(e, "schedule", w->schedule);
    kp__enc_str(e, "concurrencyPolicy",
                w->concurrency == KP_CONCURRENCY_FORBID    ? "Forbid"
                : w->concurrency == KP_CONCURRENCY_REPLACE ? "Replace"
                                                           : "Allow");
    kp__enc_bool(e, "suspend", w->suspend);
    kp__enc_obj(e, "jobTemplate");
    if (w->labels.n) {
        kp__enc_obj(e, "metadata");
        kp__enc_labels(e, "labels", &w->labels, false);
        kp__enc_end_obj(e);
    }
    job_spec(e, w);
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "status");
    if (w->n_active_jobs) {
        kp__enc_arr(e, "active");
        for (int32_t i = 0; i < w->n_active_jobs; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
}

/* ReplicationController, ReplicaSet, StatefulSet, Deployment, DaemonSet */
static void controller_spec(kp__enc *e, const kp_workload *w) {
    kp__enc_obj(e, "spec");
    if (w->kind != KP_WL_DS) kp__enc_int(e, "replicas", w->replicas);
    if (w->min_ready_seconds) kp__enc_int(e, "minReadySeconds", w->min_ready_seconds);
    if (w->kind == KP_WL_RC) {
        if (w->has_map) kp__enc_labels(e, "selector", &w->map, true);
    } else {
        kp__enc_selector(e, "selector", &w->sel);
    }
    template(e, w);
    if (w->kind == KP_WL_DEPLOY || w->kind == KP_WL_STS || w->kind == KP_WL_DS) strategy(e, w);
    if (w->kind == KP_WL_STS) {
        kp__enc_str(e, "podManagementPolicy", w->parallel_pods ? "Parallel" : "OrderedReady");
        if (w->ordinals_start) {
            kp__enc_obj(e, "ordinals");
            kp__enc_int(e, "start", w->ordinals_start);
            kp__enc_end_obj(e);
        }
    }
    if (w->kind == KP_WL_DEPLOY && w->paused) kp__enc_bool(e, "paused", true);
    if (w->kind == KP_WL_DEPLOY) {
        kp__enc_int(e, "revisionHistoryLimit", w->revision_history_limit);
        kp__enc_int(e, "progressDeadlineSeconds", w->progress_deadline_seconds);
    }
    kp__enc_end_obj(e);
}

/* A Deployment's status as its controller wrote it (calculateStatus, syncRolloutStatus): the
 * counts (omitted when 0, as the API's omitempty) and the Available and Progressing conditions. */
static void condition(kp__enc *e, const char *type, const kp_wl_condition *c) {
    if (!c->set) return;
    kp__enc_obj(e, NULL);
    kp__enc_str(e, "type", type);
    kp__enc_str(e, "status", c->status > 0 ? "True" : c->status == 0 ? "False" : "Unknown");
    kp__enc_time(e, "lastUpdateTime", c->last_update);
    kp__enc_time(e, "lastTransitionTime", c->last_transition);
    kp__enc_sid(e, "reason", c->reason);
    kp__enc_sid(e, "message", c->message);
    kp__enc_end_obj(e);
}

static void deployment_status(kp__enc *e, const kp_deploy_status *s) {
    if (!s->written) return;
    kp__enc_obj(e, "status");
    if (s->replicas) kp__enc_int(e, "replicas", s->replicas);
    if (s->updated) kp__enc_int(e, "updatedReplicas", s->updated);
    if (s->ready) kp__enc_int(e, "readyReplicas", s->ready);
    if (s->available) kp__enc_int(e, "availableReplicas", s->available);
    if (s->unavailable) kp__enc_int(e, "unavailableReplicas", s->unavailable);
    if (s->available_cond.set || s->progressing.set) {
        kp__enc_arr(e, "conditions");
        condition(e, "Available", &s->available_cond);
        condition(e, "Progressing", &s->progressing);
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
}

/* metadata.annotations deployment.kubernetes.io/revision of a Deployment and its ReplicaSets */
static void revision(kp__enc *e, int64_t rev) {
    if (rev <= 0) return;
    char b[24];
    snprintf(b, sizeof b, "%" PRId64, rev);
    kp__enc_obj(e, "annotations");
    kp__enc_str(e, "deployment.kubernetes.io/revision", b);
    kp__enc_end_obj(e);
}

void kp__enc_workload(kp__enc *e, const kp_workload *w) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, api_of(w->kind), kp__workload_kind_name(w->kind), w->ns, w->name);
    if (w->kind != KP_WL_SERVICE) {
        kp__enc_sid(e, "uid", w->uid);
        owner(e, w);
        revision(e, w->kind == KP_WL_DEPLOY ? w->dstatus.revision : w->revision);
    }
    kp__enc_end_obj(e); /* metadata */
    switch (w->kind) {
    case KP_WL_SERVICE:
        kp__enc_obj(e, "spec");
        if (w->has_map) kp__enc_labels(e, "selector", &w->map, true);
        kp__enc_end_obj(e);
        break;
    case KP_WL_JOB:
        job_spec(e, w);
        job_status(e, &w->job);
        break;
    case KP_WL_CRONJOB: cronjob(e, w); break;
    default:
        controller_spec(e, w);
        if (w->kind == KP_WL_DEPLOY) deployment_status(e, &w->dstatus);
        break;
    }
    kp__enc_end_obj(e);
}
