/* Workload decoders: v1 Service and ReplicationController, apps/v1 ReplicaSet, StatefulSet,
 * Deployment and DaemonSet, batch/v1 Job and CronJob, into the plain values of core/workload.h.
 *
 * Kept: namespace and name (taken by the caller), uid, the controller owner reference,
 * spec.selector, replicas, the pod template (decoded as a pod, so it is validated like one), the
 * update strategy, a StatefulSet's podManagementPolicy and ordinals, a Job's parallelism,
 * completions, completionMode, suspend and podReplacementPolicy with the status counts its
 * controller reads, a CronJob's schedule, suspend, concurrencyPolicy and jobTemplate. Defaults
 * are the API server's (SetDefaults_Deployment, _ReplicaSet, _StatefulSet, _DaemonSet, _Job,
 * _CronJob, _ReplicationController). Validation mirrors what the API server checks of these
 * fields (apps/validation ValidatePodTemplateSpecForReplicaSet: the selector must match the
 * template's labels); a missing template is accepted (kubectl-style snapshots may trim it) and is
 * an error only when `--expand-workloads` needs it. Templates are decoded (and validated) only
 * when kp_cluster_set_expand asked for them before loading. Other fields are ignored without
 * validation. */
#include <stdlib.h>
#include <string.h>

#include "core/pod.h"
#include "core/workload.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/encode_json.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

bool kp__workload_kind(const char *kind, kp_workload_kind *out) {
    for (int i = 0; i < KP_WL_KINDS; i++) {
        if (strcmp(kind, kp__workload_kind_name((kp_workload_kind)i)) == 0) {
            *out = (kp_workload_kind)i;
            return true;
        }
    }
    return false;
}

bool kp__workload_api_ok(kp_workload_kind kind, const char *api) {
    switch (kind) {
    case KP_WL_SERVICE:
    case KP_WL_RC: return strcmp(api, "v1") == 0;
    case KP_WL_RS:
    case KP_WL_STS:
    case KP_WL_DEPLOY:
    case KP_WL_DS: return strcmp(api, "apps/v1") == 0;
    case KP_WL_JOB:
    case KP_WL_CRONJOB: return strcmp(api, "batch/v1") == 0;
    case KP_WL_KINDS: break;
    }
    return false;
}

kp_status kp__d_origin(kp_dctx *d, kp_cluster *cl, const char *source, bool object,
                       kp_origin *out) {
    kp_str f = 0, o = 0;
    TRY(kp__d_intern(d, cl, NULL, NULL, source, strlen(source), &f));
    out->file = kp__s(cl, f);
    if (!object) return KP_OK;
    TRY(kp__d_intern(d, cl, NULL, NULL, d->object, strlen(d->object), &o));
    out->object = kp__s(cl, o);
    return KP_OK;
}

/* A maxSurge / maxUnavailable: an integer or "N%" (ValidatePositiveIntOrPercent). */
static kp_status int_or_percent(kp_dctx *d, const kp_tnode *obj, const char *key,
                                kp_int_or_percent *out) {
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    char *end = NULL;
    long long v = n->type == KP_T_NUM || n->type == KP_T_STR ? strtoll(n->s, &end, 10) : -1;
    bool pct = n->type == KP_T_STR && end && end != n->s && strcmp(end, "%") == 0;
    bool num = n->type == KP_T_NUM && end && !*end;
    if ((!pct && !num) || v < 0 || v > INT32_MAX)
        return kp__dctx_fail(d, n, KP_EINVAL, key,
                             "invalid value \"%s\": must be a non-negative integer or percentage",
                             n->s ? n->s : "");
    out->set = true;
    out->percent = pct;
    out->value = (int32_t)v;
    return KP_OK;
}

/* strategy (Deployment) / updateStrategy (StatefulSet, DaemonSet). */
static kp_status decode_strategy(kp_dctx *d, const kp_tnode *spec, kp_workload *w) {
    const char *key = w->kind == KP_WL_DEPLOY ? "strategy" : "updateStrategy";
    kp_wl_strategy *s = &w->strategy;
    if (w->kind == KP_WL_DEPLOY) { /* SetDefaults_Deployment */
        s->max_surge = (kp_int_or_percent){true, true, 25};
        s->max_unavailable = (kp_int_or_percent){true, true, 25};
    } else if (w->kind == KP_WL_DS) { /* SetDefaults_DaemonSet */
        s->max_surge = (kp_int_or_percent){true, false, 0};
        s->max_unavailable = (kp_int_or_percent){true, false, 1};
    }
    const kp_tnode *st_node, *ru;
    TRY(kp__dget_obj(d, spec, key, &st_node));
    if (!st_node) return KP_OK;
    size_t saved = kp__dctx_push(d, key);
    const char *type = NULL;
    bool has = false;
    kp_status st = kp__dget_str(d, st_node, "type", &type, &has);
    if (st == KP_OK && has && type[0]) {
        bool deploy = w->kind == KP_WL_DEPLOY;
        if (strcmp(type, "RollingUpdate") == 0) s->type = KP_WL_STRATEGY_ROLLING;
        else if (deploy && strcmp(type, "Recreate") == 0) s->type = KP_WL_STRATEGY_RECREATE;
        else if (!deploy && strcmp(type, "OnDelete") == 0) s->type = KP_WL_STRATEGY_ONDELETE;
        else
            st = kp__dctx_fail(d, kp__tree_get(st_node, "type"), KP_EINVAL, "type",
                               "unsupported value \"%s\": supported values: \"%s\", \"%s\"", type,
                               deploy ? "Recreate" : "OnDelete", "RollingUpdate");
    }
    if (st == KP_OK) st = kp__dget_obj(d, st_node, "rollingUpdate", &ru);
    if (st == KP_OK && ru) {
        size_t s2 = kp__dctx_push(d, "rollingUpdate");
        st = int_or_percent(d, ru, "maxSurge", &s->max_surge);
        if (st == KP_OK) st = int_or_percent(d, ru, "maxUnavailable", &s->max_unavailable);
        int64_t v = 0;
        bool hp = false;
        if (st == KP_OK) st = kp__dget_int(d, ru, "partition", 0, INT32_MAX, &v, &hp);
        if (hp) s->partition = (int32_t)v;
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* template (a PodTemplateSpec) decoded as a pod of the workload's namespace; only when asked for
 * (kp_cluster_set_expand before loading): decoding it costs as much as a pod, and a snapshot holds
 * many ReplicaSets (ten old revisions per Deployment by default) whose template nothing reads. */
static kp_status decode_template(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_workload *w) {
    const kp_tnode *t, *ts;
    TRY(kp__dget_obj(d, spec, "template", &t));
    if (!t || !cl->expand_flags) return KP_OK;
    kp_pod *p = kp__d_alloc(d, cl, sizeof *p);
    if (!p) return KP_ENOMEM;
    p->ns = w->ns;
    p->creation_ts = p->deletion_ts = p->start_time = p->ready_ts = KP_TIME_NONE;
    p->termination_grace = 30;
    p->node = -1;
    size_t saved = kp__dctx_push(d, "template");
    kp_status st = kp__decode_pod(d, cl, t, p);
    if (st == KP_OK && (ts = kp__tree_get(t, "spec")) && ts->type == KP_T_OBJ) {
        size_t s2 = kp__dctx_push(d, "spec");
        st = kp__dget_bool(d, ts, "hostNetwork", &w->template_host_network, NULL);
        kp__dctx_pop(d, s2);
    }
    /* ValidatePodTemplateSpecForReplicaSet (and the StatefulSet, DaemonSet, Job copies): a
     * non-empty selector must select the template's labels */
    const kp_label_selector *sel = &w->sel;
    bool empty = !sel->is_set || (sel->match_labels.n == 0 && sel->n_exprs == 0);
    if (w->kind == KP_WL_RC) empty = !w->has_map || w->map.n == 0;
    bool match = w->kind == KP_WL_RC ? true : kp__selector_matches(cl, sel, &p->labels);
    for (uint32_t i = 0; w->kind == KP_WL_RC && !empty && i < w->map.n && match; i++) {
        kp_str v;
        match = kp__labels_get(&p->labels, w->map.items[i].key, &v) && v == w->map.items[i].val;
    }
    if (st == KP_OK && !empty && !match)
        st = kp__dctx_fail(d, t, KP_EINVAL, "metadata.labels",
                           "`selector` does not match template `labels`");
    kp__dctx_pop(d, saved);
    if (st == KP_OK) w->template = p;
    /* its identity: what a Deployment's ReplicaSets are told apart by (FindNewReplicaSet) */
    if (st == KP_OK && kp__enc_template_fp(cl, p, &w->template_fp, &w->template_hash32) != KP_OK)
        st = kp__dctx_fail(d, t, KP_ENOMEM, NULL, "out of memory");
    return st;
}

/* Job status: the counts and conditions the Job controller reads. */
static kp_status decode_job_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj,
                                   kp_job_spec *j) {
    const kp_tnode *status, *conds;
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (!status) return KP_OK;
    size_t saved = kp__dctx_push(d, "status");
    int64_t v = 0;
    bool has = false;
    kp_status st = kp__dget_int(d, status, "succeeded", 0, INT32_MAX, &v, &has);
    if (has) j->succeeded = (int32_t)v;
    has = false;
    if (st == KP_OK) st = kp__dget_int(d, status, "failed", 0, INT32_MAX, &v, &has);
    if (has) j->failed = (int32_t)v;
    has = false;
    if (st == KP_OK) st = kp__dget_int(d, status, "active", 0, INT32_MAX, &v, &has);
    if (has) j->active = (int32_t)v;
    if (st == KP_OK) st = kp__d_str(d, cl, status, "completedIndexes", &j->completed_indexes);
    if (st == KP_OK) st = kp__dget_arr(d, status, "conditions", &conds);
    uint32_t i = 0;
    for (const kp_tnode *c = st == KP_OK && conds ? conds->first : NULL; c && st == KP_OK;
         c = c->next, i++) {
        size_t s2 = kp__dctx_push(d, "conditions");
        kp__dctx_push_index(d, i);
        const char *type = NULL, *cs = NULL;
        if (c->type != KP_T_OBJ) st = kp__dctx_fail(d, c, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_str(d, c, "type", &type, NULL);
        if (st == KP_OK) st = kp__dget_str(d, c, "status", &cs, NULL);
        /* IsJobFinished: a Complete or Failed condition that is True */
        if (st == KP_OK && type && cs && strcmp(cs, "True") == 0 &&
            (strcmp(type, "Complete") == 0 || strcmp(type, "Failed") == 0))
            j->finished = true;
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* A JobSpec (a Job's spec or a CronJob's jobTemplate.spec), with SetDefaults_Job. */
static kp_status decode_job_spec(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_workload *w) {
    kp_job_spec *j = &w->job;
    int64_t v = 0;
    bool has_par = false;
    TRY(kp__dget_int(d, spec, "parallelism", 0, INT32_MAX, &v, &has_par));
    if (has_par) j->parallelism = (int32_t)v;
    TRY(kp__dget_int(d, spec, "completions", 0, INT32_MAX, &v, &j->has_completions));
    if (j->has_completions) j->completions = (int32_t)v;
    if (!has_par && !j->has_completions) { /* "both are unset: both default to 1" */
        j->has_completions = true;
        j->completions = 1;
    }
    if (!has_par) j->parallelism = 1;
    const char *s = NULL;
    bool has = false;
    TRY(kp__dget_str(d, spec, "completionMode", &s, &has));
    if (has && strcmp(s, "Indexed") == 0) j->indexed = true;
    else if (has && strcmp(s, "NonIndexed") != 0)
        return kp__dctx_fail(d, kp__tree_get(spec, "completionMode"), KP_EINVAL, "completionMode",
                             "unsupported value \"%s\": supported values: \"NonIndexed\", "
                             "\"Indexed\"",
                             s);
    if (j->indexed && !j->has_completions)
        return kp__dctx_fail(d, spec, KP_EINVAL, "completions",
                             "Required value: when completion mode is Indexed");
    bool has_bl = false;
    TRY(kp__dget_int(d, spec, "backoffLimit", 0, INT32_MAX, &v, &has_bl));
    j->backoff_limit = has_bl ? (int32_t)v : 6; /* SetDefaults_Job */
    TRY(kp__dget_bool(d, spec, "suspend", &j->suspend, NULL));
    TRY(kp__dget_bool(d, spec, "manualSelector", &j->manual_selector, NULL));
    const kp_tnode *pfp;
    TRY(kp__dget_obj(d, spec, "podFailurePolicy", &pfp));
    j->replacement = pfp ? KP_JOB_REPLACE_FAILED : KP_JOB_REPLACE_TERMINATING_OR_FAILED;
    has = false;
    TRY(kp__dget_str(d, spec, "podReplacementPolicy", &s, &has));
    if (has && strcmp(s, "Failed") == 0) j->replacement = KP_JOB_REPLACE_FAILED;
    else if (has && strcmp(s, "TerminatingOrFailed") == 0)
        j->replacement = KP_JOB_REPLACE_TERMINATING_OR_FAILED;
    else if (has)
        return kp__dctx_fail(d, kp__tree_get(spec, "podReplacementPolicy"), KP_EINVAL,
                             "podReplacementPolicy",
                             "unsupported value \"%s\": supported values: \"Failed\", "
                             "\"TerminatingOrFailed\"",
                             s);
    TRY(kp__d_label_selector(d, cl, spec, "selector", &w->sel));
    return decode_template(d, cl, spec, w);
}

static kp_status decode_cronjob(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_workload *w) {
    TRY(kp__d_str(d, cl, spec, "schedule", &w->schedule));
    TRY(kp__d_str(d, cl, spec, "timeZone", &w->time_zone));
    TRY(kp__dget_bool(d, spec, "suspend", &w->suspend, NULL));
    const char *s = NULL;
    bool has = false;
    TRY(kp__dget_str(d, spec, "concurrencyPolicy", &s, &has));
    if (has && strcmp(s, "Forbid") == 0) w->concurrency = KP_CONCURRENCY_FORBID;
    else if (has && strcmp(s, "Replace") == 0) w->concurrency = KP_CONCURRENCY_REPLACE;
    else if (has && strcmp(s, "Allow") != 0)
        return kp__dctx_fail(d, kp__tree_get(spec, "concurrencyPolicy"), KP_EINVAL,
                             "concurrencyPolicy",
                             "unsupported value \"%s\": supported values: \"Allow\", \"Forbid\", "
                             "\"Replace\"",
                             s);
    const kp_tnode *jt, *jm, *js = NULL;
    /* SetDefaults_Job for a missing jobTemplate.spec (then expanding it reports the template) */
    w->job.parallelism = w->job.completions = 1;
    w->job.has_completions = true;
    w->job.backoff_limit = 6;
    TRY(kp__dget_obj(d, spec, "jobTemplate", &jt));
    if (jt) {
        size_t saved = kp__dctx_push(d, "jobTemplate");
        kp_status st = kp__dget_obj(d, jt, "metadata", &jm);
        if (st == KP_OK && jm) {
            size_t s2 = kp__dctx_push(d, "metadata");
            st = kp__d_labels(d, cl, jm, "labels", &w->labels);
            kp__dctx_pop(d, s2);
        }
        if (st == KP_OK) st = kp__dget_obj(d, jt, "spec", &js);
        if (st == KP_OK && js) {
            size_t s2 = kp__dctx_push(d, "spec");
            st = decode_job_spec(d, cl, js, w);
            kp__dctx_pop(d, s2);
        }
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* CronJob status.active: the Jobs of it still running (concurrencyPolicy reads them). */
static kp_status decode_cronjob_status(kp_dctx *d, const kp_tnode *obj, kp_workload *w) {
    const kp_tnode *status, *active;
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (!status) return KP_OK;
    size_t saved = kp__dctx_push(d, "status");
    kp_status st = kp__dget_arr(d, status, "active", &active);
    if (st == KP_OK && active)
        w->n_active_jobs = active->n > INT32_MAX ? INT32_MAX : (int32_t)active->n;
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_meta(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_workload *w) {
    const kp_tnode *meta, *owners;
    TRY(kp__dget_obj(d, obj, "metadata", &meta));
    if (!meta) return KP_OK;
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__d_str(d, cl, meta, "uid", &w->uid);
    if (st == KP_OK) st = kp__dget_arr(d, meta, "ownerReferences", &owners);
    uint32_t i = 0;
    for (const kp_tnode *o = st == KP_OK && owners ? owners->first : NULL; o && st == KP_OK;
         o = o->next, i++) {
        size_t s2 = kp__dctx_push(d, "ownerReferences");
        kp__dctx_push_index(d, i);
        bool ctrl = false;
        if (o->type != KP_T_OBJ) st = kp__dctx_fail(d, o, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_bool(d, o, "controller", &ctrl, NULL);
        if (st == KP_OK && ctrl) st = kp__d_str(d, cl, o, "kind", &w->owner_kind);
        if (st == KP_OK && ctrl) st = kp__d_str(d, cl, o, "name", &w->owner_name);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* A Deployment's status as its controller last wrote it (the counts, the Available and
 * Progressing conditions) and the revision annotation of a Deployment or ReplicaSet
 * (deployment.kubernetes.io/revision): the deployment controller reads them at its next sync, and
 * the encoder writes them back. */
static kp_status decode_deploy_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj,
                                      kp_workload *w) {
    const kp_tnode *md = kp__tree_get(obj, "metadata"), *an, *status, *conds;
    an = md && md->type == KP_T_OBJ ? kp__tree_get(md, "annotations") : NULL;
    const kp_tnode *rev =
        an && an->type == KP_T_OBJ ? kp__tree_get(an, "deployment.kubernetes.io/revision") : NULL;
    int64_t r = rev && rev->type == KP_T_STR ? strtoll(rev->s, NULL, 10) : 0;
    if (w->kind == KP_WL_RS) w->revision = r > 0 ? r : 0;
    if (w->kind != KP_WL_DEPLOY) return KP_OK;
    kp_deploy_status *s = &w->dstatus;
    s->revision = r > 0 ? r : 0;
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (!status) return KP_OK;
    size_t saved = kp__dctx_push(d, "status");
    static const char *const KEYS[5] = {"replicas", "updatedReplicas", "readyReplicas",
                                        "availableReplicas", "unavailableReplicas"};
    int32_t *vals[5] = {&s->replicas, &s->updated, &s->ready, &s->available, &s->unavailable};
    kp_status st = KP_OK;
    for (int k = 0; k < 5 && st == KP_OK; k++) {
        int64_t v = 0;
        st = kp__dget_int(d, status, KEYS[k], 0, INT32_MAX, &v, NULL);
        *vals[k] = (int32_t)v;
    }
    if (st == KP_OK) st = kp__dget_arr(d, status, "conditions", &conds);
    for (const kp_tnode *c = st == KP_OK && conds ? conds->first : NULL; c && st == KP_OK;
         c = c->next) {
        const kp_tnode *t = kp__tree_get(c, "type"), *v = kp__tree_get(c, "status");
        if (c->type != KP_T_OBJ || !t || t->type != KP_T_STR) continue;
        kp_wl_condition *wc = strcmp(t->s, "Available") == 0     ? &s->available_cond
                              : strcmp(t->s, "Progressing") == 0 ? &s->progressing
                                                                 : NULL;
        if (!wc) continue;
        memset(wc, 0, sizeof *wc);
        wc->set = true;
        wc->status = !v || v->type != KP_T_STR    ? -1
                     : strcmp(v->s, "True") == 0  ? 1
                     : strcmp(v->s, "False") == 0 ? 0
                                                  : -1;
        wc->last_update = wc->last_transition = KP_TIME_NONE;
        st = kp__d_str(d, cl, c, "reason", &wc->reason);
        if (st == KP_OK) st = kp__d_str(d, cl, c, "message", &wc->message);
        if (st == KP_OK) st = kp__dget_time(d, c, "lastUpdateTime", &wc->last_update, NULL);
        if (st == KP_OK) st = kp__dget_time(d, c, "lastTransitionTime", &wc->last_transition, NULL);
    }
    s->written = st == KP_OK;
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__decode_workload(kp_dctx *d, kp_cluster *cl, const char *source, const kp_tnode *obj,
                              kp_workload *w) {
    TRY(kp__d_origin(d, cl, source, false, &w->origin));
    if (w->kind != KP_WL_SERVICE) TRY(decode_meta(d, cl, obj, w));
    const kp_tnode *spec;
    kp_status st = kp__dget_obj(d, obj, "spec", &spec);
    if (w->kind == KP_WL_JOB && st == KP_OK) st = decode_job_status(d, cl, obj, &w->job);
    if ((w->kind == KP_WL_DEPLOY || w->kind == KP_WL_RS) && st == KP_OK)
        st = decode_deploy_status(d, cl, obj, w);
    if (w->kind == KP_WL_CRONJOB && st == KP_OK) st = decode_cronjob_status(d, obj, w);
    if (st != KP_OK || !spec) {
        if (w->kind == KP_WL_JOB || w->kind == KP_WL_CRONJOB) { /* SetDefaults_Job */
            w->job.parallelism = w->job.completions = 1;
            w->job.has_completions = true;
            w->job.backoff_limit = 6;
        }
        w->replicas = 1;
        return st;
    }
    size_t saved = kp__dctx_push(d, "spec");
    if (w->kind == KP_WL_SERVICE || w->kind == KP_WL_RC) {
        /* a nil Service selector selects nothing (GetPodServices), an empty one everything */
        const kp_tnode *m;
        st = kp__dget_obj(d, spec, "selector", &m);
        w->has_map = st == KP_OK && m != NULL;
        if (st == KP_OK) st = kp__d_labels(d, cl, spec, "selector", &w->map);
    } else if (w->kind == KP_WL_JOB) {
        st = decode_job_spec(d, cl, spec, w);
    } else if (w->kind == KP_WL_CRONJOB) {
        st = decode_cronjob(d, cl, spec, w);
    } else {
        st = kp__d_label_selector(d, cl, spec, "selector", &w->sel);
    }
    int64_t v = 1;
    bool replicated = w->kind == KP_WL_RC || w->kind == KP_WL_RS || w->kind == KP_WL_STS ||
                      w->kind == KP_WL_DEPLOY;
    if (st == KP_OK && replicated) st = kp__dget_int(d, spec, "replicas", 0, INT32_MAX, &v, NULL);
    w->replicas = (int32_t)v;
    if (st == KP_OK && (replicated || w->kind == KP_WL_DS)) { /* availability (IsPodAvailable) */
        v = 0;
        st = kp__dget_int(d, spec, "minReadySeconds", 0, INT32_MAX, &v, NULL);
        w->min_ready_seconds = (int32_t)v;
    }
    if (st == KP_OK && (w->kind == KP_WL_DEPLOY || w->kind == KP_WL_STS || w->kind == KP_WL_DS))
        st = decode_strategy(d, spec, w);
    if (st == KP_OK && w->kind == KP_WL_DEPLOY)
        st = kp__dget_bool(d, spec, "paused", &w->paused, NULL);
    if (w->kind == KP_WL_DEPLOY) { /* SetDefaults_Deployment */
        w->progress_deadline_seconds = 600;
        w->revision_history_limit = 10;
        bool has = false;
        v = 0;
        if (st == KP_OK)
            st = kp__dget_int(d, spec, "progressDeadlineSeconds", 0, INT32_MAX, &v, &has);
        if (has) w->progress_deadline_seconds = (int32_t)v;
        has = false;
        if (st == KP_OK) st = kp__dget_int(d, spec, "revisionHistoryLimit", 0, INT32_MAX, &v, &has);
        if (has) w->revision_history_limit = (int32_t)v;
    }
    if (st == KP_OK && w->kind == KP_WL_STS) {
        const char *pmp = NULL;
        bool has = false;
        const kp_tnode *ord;
        st = kp__dget_str(d, spec, "podManagementPolicy", &pmp, &has);
        if (st == KP_OK && has && strcmp(pmp, "Parallel") == 0) w->parallel_pods = true;
        else if (st == KP_OK && has && strcmp(pmp, "OrderedReady") != 0)
            st = kp__dctx_fail(d, kp__tree_get(spec, "podManagementPolicy"), KP_EINVAL,
                               "podManagementPolicy",
                               "unsupported value \"%s\": supported values: \"OrderedReady\", "
                               "\"Parallel\"",
                               pmp);
        if (st == KP_OK) st = kp__dget_obj(d, spec, "ordinals", &ord);
        if (st == KP_OK && ord) {
            size_t s2 = kp__dctx_push(d, "ordinals");
            st = kp__dget_int(d, ord, "start", 0, INT32_MAX, &v, &has);
            if (has) w->ordinals_start = (int32_t)v;
            kp__dctx_pop(d, s2);
        }
    }
    if (st == KP_OK && (replicated || w->kind == KP_WL_DS)) st = decode_template(d, cl, spec, w);
    /* SetDefaults_ReplicationController: an empty selector is the template's labels */
    if (st == KP_OK && w->kind == KP_WL_RC && w->template && w->map.n == 0) {
        w->has_map = true;
        w->map = w->template->labels;
    }
    kp__dctx_pop(d, saved);
    return st;
}
