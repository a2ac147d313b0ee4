/* The Job controller (pkg/controller/job/job_controller.go): Controller.syncJob and manageJob
 * over the pods the manager indexed under the Job (src/ctrl/ctrl_internal.h), acting through
 * core's calls (a pod created from the template, a pod marked terminating) and reporting through
 * the sink (SuccessfulCreate / SuccessfulDelete from the shared pod helpers, Completed,
 * BackoffLimitExceeded, and a resync when the pod failure backoff ends).
 *
 * Modelled: completions and parallelism (NonIndexed and Indexed), the work-queue Job (no
 * completions), spec.backoffLimit with the pod failure backoff (backoffRecord), suspend (no new
 * pods). Pods Succeed through the runner (the simulator's scenario lifetimes); without one they
 * run forever. Not modelled: backoffLimitPerIndex, pod failure policies, success policies,
 * activeDeadlineSeconds, deleting pods beyond parallelism or of a suspended Job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"
#include "ctrl/expand_index.h"

/* DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff (ms) */
#define JOB_BACKOFF_MS 10000
#define JOB_BACKOFF_MAX_MS 600000

/* The completion index of an Indexed Job's pod NAME-INDEX-xxxxx (podGenerateNameWithIndex; the
 * completion-index annotation kprio does not read back carries the same), -1 when none. */
static int64_t job_index_of(const char *pod, const char *job) {
    size_t n = strlen(job);
    if (strncmp(pod, job, n) != 0 || pod[n] != '-') return -1;
    int64_t v = 0;
    const char *c = pod + n + 1;
    for (; *c >= '0' && *c <= '9' && v <= INT32_MAX; c++) v = v * 10 + (*c - '0');
    return c > pod + n + 1 && *c == '-' && v <= INT32_MAX ? v : -1;
}

/* What syncJob reads of the Job's pods: active ones, succeeded ones (Indexed: distinct succeeded
 * indexes) and failed ones (isPodFailed: phase Failed, or being or been deleted without having
 * succeeded, podReplacementPolicy TerminatingOrFailed). done[i]: index i succeeded (1) or has an
 * active pod (2). */
typedef struct {
    int64_t active, succeeded, failed;
    uint8_t *done;
    int64_t last_success_ms, last_failure_ms; /* -1 when none */
    int64_t failures_after_success; /* backoffRecord.failuresAfterLastSuccess */
} job_pods;

/* When a pod failed (getFinishedTime: a Failed pod when it ended, a deleted one when its deletion
 * was requested) or succeeded, as the manager saw it. */
static int64_t finish_ms(const ctrl_pod *p) {
    if (p->state != CTRL_POD_FAILED && p->state != CTRL_POD_SUCCEEDED && p->terminating_ms >= 0)
        return p->terminating_ms;
    return p->gone_ms;
}

static void count_job_pods(kp_ctrl *c, const ctrl_wl *w, const kp_workload_info *in, job_pods *jp) {
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        ctrl_pod *p = &c->pods[q];
        int64_t ix = jp->done ? job_index_of(kp_cluster_pod_name(c->cl, q), in->name) : -1;
        if (ix >= in->completions) ix = -1;
        if (p->state == CTRL_POD_SUCCEEDED) {
            p->replaced = true; /* done: nothing replaces it */
            if (finish_ms(p) > jp->last_success_ms) jp->last_success_ms = finish_ms(p);
            if (!jp->done) jp->succeeded++;
            else if (ix >= 0 && jp->done[ix] != 1) jp->succeeded++, jp->done[ix] = 1;
            continue;
        }
        if (kp__ctrl_active(c, q)) {
            jp->active++;
            if (ix >= 0 && !jp->done[ix]) jp->done[ix] = 2;
            continue;
        }
        jp->failed++;
    }
    /* newBackoffRecord: the failures after the last success, the latest failure's time */
    for (uint32_t i = 0; i < w->n; i++) {
        const ctrl_pod *p = &c->pods[w->pods[i]];
        if (p->state == CTRL_POD_SUCCEEDED || kp__ctrl_active(c, w->pods[i])) continue;
        int64_t t = finish_ms(p);
        if (t <= jp->last_success_ms) continue;
        jp->failures_after_success++;
        if (t > jp->last_failure_ms) jp->last_failure_ms = t;
    }
}

/* mirrors backoffRecord.getRemainingTime: 10s (DefaultJobPodFailureBackOff) doubled per failure
 * after the last success, at most 10 min (MaxJobPodFailureBackOff), from the last failure. */
static int64_t job_backoff_left(int64_t now_ms, const job_pods *jp) {
    if (jp->failures_after_success == 0) return 0;
    int64_t d = JOB_BACKOFF_MS;
    for (int64_t i = 1; i < jp->failures_after_success && d < JOB_BACKOFF_MAX_MS; i++) d *= 2;
    if (d > JOB_BACKOFF_MAX_MS) d = JOB_BACKOFF_MAX_MS;
    int64_t elapsed = now_ms - jp->last_failure_ms;
    return d < elapsed ? 0 : d - elapsed;
}

/* The Job failed (pastBackoffLimitOnFailure / exceedsBackoffLimit: more failed pods than
 * spec.backoffLimit): its active pods are deleted (deleteActivePods) and the event Warning
 * BackoffLimitExceeded "Job has reached the specified backoff limit" follows. */
static kp_status fail_job(kp_ctrl *c, kp_index w, const kp_workload_info *in,
                          const kp_ctrl_sink *sink, kp_error *err) {
    c->wls[w].done = true;
    for (uint32_t i = 0; i < c->wls[w].n; i++) {
        uint32_t q = c->wls[w].pods[i];
        if (!kp__ctrl_active(c, q)) continue;
        kp_status st = kp__ctrl_delete_pod(c, in, q, NULL, sink, err);
        if (st != KP_OK) return st;
    }
    return kp__ctrl_event(c, sink, true, "BackoffLimitExceeded", in,
                          "Job has reached the specified backoff limit", -1, -1, -1, err);
}

/* mirrors Controller.manageJob's wantActive, the one rule of how many pods a Job keeps active:
 * parallelism, at most the completions not succeeded yet (completions < 0: none set; then, once
 * a pod succeeded, no new pods: the active ones finish the work); never below 0. */
static int64_t want_active(int64_t parallelism, int64_t completions, int64_t succeeded,
                           int64_t active) {
    int64_t want = parallelism;
    if (completions < 0 && succeeded > 0) want = active;
    if (completions >= 0 && completions - succeeded < want) want = completions - succeeded;
    return want < 0 ? 0 : want;
}

/* manageJob's creations: up to `want` active pods, Indexed ones at the lowest indexes neither
 * succeeded nor active (firstPendingIndexes), after the pod failure backoff
 * (enqueueSyncJobWithDelay asks for a resync when it ends). */
static kp_status manage_job(kp_ctrl *c, kp_index w, const kp_workload_info *in, job_pods *jp,
                            const kp_ctrl_sink *sink, kp_error *err) {
    int64_t have = jp->active;
    int64_t want = want_active(in->replicas, in->completions, jp->succeeded, have);
    int64_t next = 0, left = have < want ? job_backoff_left(c->now, jp) : 0;
    kp_status st = KP_OK;
    if (left > 0 && c->wls[w].resync_at != c->now + left) {
        c->wls[w].resync_at = c->now + left;
        if (sink && sink->resync_at)
            st = sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD, w, c->now + left, err);
    }
    for (; left == 0 && have < want && st == KP_OK; have++) {
        char base[320], name[400];
        if (jp->done) {
            while (next < in->completions && jp->done[next]) next++;
            if (next >= in->completions) break;
            jp->done[next] = 2;
            snprintf(base, sizeof base, "%s-%lld-", in->name, (long long)next);
        } else {
            snprintf(base, sizeof base, "%s-", in->name);
        }
        kp_cluster_generate_pod_name(c->cl, in->ns, base, c->wls[w].name_seq++, name, sizeof name);
        st = kp__ctrl_create_pod(c, w, in, name, -1, sink, err);
    }
    return st;
}

/* mirrors Controller.syncJob / manageJob (pkg/controller/job): `parallelism` active pods
 * (FilterActivePods) while fewer than `completions` pods succeeded (wantActive: completions -
 * succeeded, at most parallelism; without completions, parallelism until a pod succeeded, then
 * none new); complete once `completions` pods succeeded (without completions: one succeeded and
 * none active), with the event Completed "Job completed"; failed once more pods failed than
 * spec.backoffLimit (fail_job). Indexed (indexed_job_utils.go): one pod per completion index,
 * named NAME-INDEX-xxxxx with the completion-index label and annotation, the lowest indexes
 * neither succeeded nor active first: a failed index is retried under the same index. A Job
 * done (complete or failed) or suspended makes no pods (a suspended Job's active ones stay). */
kp_status kp_ctrl_job_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                           kp_error *err) {
    kp_workload_info in;
    if (kp_cluster_workload_info(c->cl, w, &in) != KP_OK || strcmp(in.kind, "Job") != 0)
        return kp_error_set(err, KP_EINVAL, "workload %ld is not a Job", (long)w);
    kp_status st = kp__ctrl_grow(c);
    if (st != KP_OK) return kp__ctrl_nomem(err);
    c->now = now_ms;
    ctrl_wl *cw = &c->wls[w];
    if (cw->done || cw->deleted || in.deleted || in.suspend) return KP_OK;
    job_pods jp = {0, 0, 0, NULL, -1, -1, 0};
    if (in.indexed && in.completions > 0 && !(jp.done = kp__calloc((size_t)in.completions, 1)))
        return kp__ctrl_nomem(err);
    count_job_pods(c, cw, &in, &jp);
    bool complete =
        in.completions >= 0 ? jp.succeeded >= in.completions : jp.succeeded > 0 && !jp.active;
    if (complete) {
        cw->done = true;
        st = kp__ctrl_event(c, sink, false, "Completed", &in, "Job completed", -1, -1, -1, err);
    } else if (jp.failed > in.backoff_limit) {
        st = fail_job(c, w, &in, sink, err);
    } else {
        st = manage_job(c, w, &in, &jp, sink, err);
    }
    kp__free(jp.done);
    return st;
}

/* ---------------------------------------------------------------- --expand-workloads */

/* status.completedIndexes ("1,3-5") into done[0..completions); returns how many are set. */
static int32_t completed_indexes(const char *s, uint8_t *done, int32_t completions) {
    int32_t n = 0;
    while (s && *s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        for (long i = a < 0 ? 0 : a; i <= b && i < completions; i++)
            if (!done[i]) done[i] = 1, n++;
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* Marks in done[] the completion indexes of the Job's active pods: their
 * batch.kubernetes.io/job-completion-index label (PodIndexLabel; getCompletionIndex reads the
 * annotation of the same name, which kprio does not keep: the Job controller sets both). */
static void active_indexes(const kp__expand *x, const kp_workload *w, uint8_t *done,
                           int32_t completions) {
    const kp_cluster *cl = x->cl;
    kp_str key = kp__intern_find(&cl->strs, "batch.kubernetes.io/job-completion-index", 40);
    for (uint32_t i = 0; key != UINT32_MAX && i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->ns != w->ns || kp__pod_is_terminal(p) || p->deletion_ts != KP_TIME_NONE) continue;
        bool mine = false;
        for (uint16_t k = 0; k < p->n_owners; k++)
            mine |= p->owners[k].controller && p->owners[k].name == w->name &&
                    strcmp(kp__s(cl, p->owners[k].kind), "Job") == 0;
        kp_str v;
        if (!mine || !kp__labels_get(&p->labels, key, &v)) continue;
        char *end;
        long idx = strtol(kp__s(cl, v), &end, 10);
        if (!*end && idx >= 0 && idx < completions) done[idx] = 1;
    }
}

/* mirrors Controller.manageJob (pkg/controller/job) at t = 0 for --expand-workloads, over the
 * snapshot's recorded status: wantActive as the sync's (want_active); the pods to create are
 * wantActive less the active pods (and, with podReplacementPolicy Failed, less the terminating
 * ones); an Indexed Job takes the lowest indexes neither completed nor active
 * (firstPendingIndexes). job_name: the Job's name (a CronJob's Job: made up). */
kp_status kp__ctrl_job_expand(kp__expand *x, uint32_t wi, const char *job_name, bool from_cronjob) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    const kp_job_spec *j = &w->job;
    if (j->suspend || j->finished) return KP_OK;
    kp_str jname = kp__expand_intern(cl, job_name), okind = kp__expand_intern(cl, "Job");
    if (jname == UINT32_MAX || okind == UINT32_MAX) return kp__expand_nomem(x);
    int64_t active = 0, terminating = 0, succeeded = from_cronjob ? 0 : j->succeeded;
    if (!from_cronjob) {
        active = kp__expand_count_keys(x, KP_WL_JOB, w->ns, w->name, 0);
        if (w->sel.is_set) active += kp__expand_adopt(x, w, 0);
        terminating = kp__expand_count_keys(x, KP_WL_KINDS, w->ns, w->name, 0);
    }
    uint8_t *done = NULL;
    if (j->indexed) {
        done = kp__calloc((size_t)j->completions + 1, 1);
        if (!done) return kp__expand_nomem(x);
        if (!from_cronjob) {
            succeeded =
                completed_indexes(j->completed_indexes ? kp__s(cl, j->completed_indexes) : NULL,
                                  done, j->completions);
            active_indexes(x, w, done, j->completions);
        }
    }
    int64_t want =
        want_active(j->parallelism, j->has_completions ? j->completions : -1, succeeded, active);
    int64_t diff = want - active - (j->replacement == KP_JOB_REPLACE_FAILED ? terminating : 0);
    kp_status st = diff > 0 ? kp__expand_check_template(x, w) : KP_OK;
    kp_labels labels;
    if (st == KP_OK && diff > 0) {
        labels = w->template->labels;
        /* the API server's Job defaulting labels the template (generateSelector) */
        if (!j->manual_selector &&
            (kp__labels_set(cl, &labels, "batch.kubernetes.io/job-name", job_name) != KP_OK ||
             kp__labels_set(cl, &labels, "job-name", job_name) != KP_OK))
            st = kp__expand_nomem(x);
    }
    int32_t next = 0;
    for (int64_t i = 0; i < diff && st == KP_OK; i++) {
        char base[420], name[480], num[24];
        if (done) {
            while (next < j->completions && done[next]) next++;
            if (next >= j->completions) break;
            snprintf(base, sizeof base, "%s-%d-", job_name, next);
        } else {
            snprintf(base, sizeof base, "%s-", job_name);
        }
        kp__workload_generate_name(cl, w->ns, base, (uint64_t)i, name, sizeof name);
        uint32_t idx;
        st = kp__expand_make_pod(x, w, name, -1, okind, jname, x->s_batch_v1, &idx);
        if (st == KP_ENOMEM) st = kp__expand_nomem(x);
        if (st != KP_OK) break;
        w = &cl->workloads[wi];
        j = &w->job;
        kp_pod *p = &cl->pods[idx];
        p->labels = labels;
        if (done) { /* addCompletionIndexAnnotation, addCompletionIndexLabel */
            snprintf(num, sizeof num, "%d", next);
            if (kp__labels_set(cl, &p->labels, "batch.kubernetes.io/job-completion-index", num) !=
                    KP_OK ||
                kp__labels_set(cl, &p->annotations, "batch.kubernetes.io/job-completion-index",
                               num) != KP_OK)
                st = kp__expand_nomem(x);
            done[next] = 1;
        }
    }
    kp__free(done);
    return st;
}
