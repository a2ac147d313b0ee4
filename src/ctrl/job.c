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

/* indexes [a, b] of an Indexed Job, succeeded (1) or with an active pod (2) */
typedef struct {
    int64_t a, b;
    uint8_t kind;
} job_iv;

/* What syncJob reads of the Job's pods: active ones, succeeded ones (Indexed: distinct succeeded
 * indexes) and failed ones (isPodFailed: phase Failed, or being or been deleted without having
 * succeeded, podReplacementPolicy TerminatingOrFailed). */
typedef struct {
    int64_t active, succeeded, failed;
    int64_t terminating; /* being deleted, not terminal yet */
    int64_t loaded_succeeded; /* Succeeded pods as loaded (not seen succeeding: gone_ms < 0) */
    bool replace_failed; /* podReplacementPolicy Failed */
    bool indexed; /* an Indexed Job with completions: the index intervals below */
    job_iv *iv; /* the indexes succeeded (status.completedIndexes, the pods) or active, as
                 * intervals: as upstream's orderedIntervals, memory follows the pods and the
                 * status, not `completions` (2^31-1 completions cost no 2 GiB bitmap) */
    size_t n_iv, cap_iv;
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

static kp_status iv_add(job_pods *jp, int64_t a, int64_t b, uint8_t kind) {
    if (jp->n_iv == jp->cap_iv &&
        !kp__grow((void **)&jp->iv, &jp->cap_iv, jp->n_iv + 1, sizeof *jp->iv, 16))
        return KP_ENOMEM;
    jp->iv[jp->n_iv++] = (job_iv){a, b, kind};
    return KP_OK;
}

static int iv_cmp(const void *x, const void *y) {
    const job_iv *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : 0;
}

/* How many distinct indexes the succeeded intervals cover (sorted by start). */
static int64_t iv_succeeded(const job_pods *jp) {
    int64_t n = 0, upto = -1; /* indexes <= upto counted */
    for (size_t i = 0; i < jp->n_iv; i++) {
        const job_iv *v = &jp->iv[i];
        if (v->kind != 1 || v->b <= upto) continue;
        n += v->b - (v->a > upto ? v->a : upto + 1) + 1;
        upto = v->b;
    }
    return n;
}

static kp_status count_job_pods(kp_ctrl *c, const ctrl_wl *w, const kp_workload_info *in,
                                job_pods *jp) {
    c->looked += 2 * (uint64_t)w->n; /* the two passes below */
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        ctrl_pod *p = &c->pods[q];
        int64_t ix = jp->indexed ? job_index_of(kp_cluster_pod_name(c->cl, q), in->name) : -1;
        if (ix >= in->completions) ix = -1;
        if (p->state == CTRL_POD_SUCCEEDED) {
            p->replaced = true; /* done: nothing replaces it */
            if (finish_ms(p) > jp->last_success_ms) jp->last_success_ms = finish_ms(p);
            if (!jp->indexed && p->gone_ms < 0) jp->loaded_succeeded++;
            else if (!jp->indexed) jp->succeeded++;
            else if (ix >= 0 && iv_add(jp, ix, ix, 1) != KP_OK) return KP_ENOMEM;
            continue;
        }
        if (kp__ctrl_active(c, q)) {
            jp->active++;
            if (ix >= 0 && iv_add(jp, ix, ix, 2) != KP_OK) return KP_ENOMEM;
            continue;
        }
        if (p->state == CTRL_POD_TERMINATING) jp->terminating++;
        if (p->state == CTRL_POD_TERMINATING && jp->replace_failed) continue; /* isPodFailed */
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
    if (jp->indexed) { /* the distinct succeeded indexes (status and pods) */
        if (jp->n_iv) qsort(jp->iv, jp->n_iv, sizeof *jp->iv, iv_cmp); /* iv NULL when none */
        jp->succeeded = iv_succeeded(jp);
    }
    return KP_OK;
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
    /* podReplacementPolicy Failed: a terminating pod is replaced once it is Failed */
    if (jp->replace_failed) have += jp->terminating;
    int64_t next = 0, left = have < want ? job_backoff_left(c->now, jp) : 0;
    size_t k = 0; /* jp->iv sorted by start: the intervals that start at or before `next` */
    kp_status st = KP_OK;
    if (left > 0 && c->wls[w].resync_at != c->now + left) {
        c->wls[w].resync_at = c->now + left;
        if (sink && sink->resync_at)
            st = sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD, w, c->now + left, err);
    }
    for (; left == 0 && have < want && st == KP_OK; have++) {
        char base[320], name[400];
        if (jp->indexed) { /* firstPendingIndexes: the lowest index in no interval */
            for (; k < jp->n_iv && jp->iv[k].a <= next; k++)
                if (jp->iv[k].b >= next) next = jp->iv[k].b + 1;
            if (next >= in->completions) break;
            snprintf(base, sizeof base, "%s-%lld-", in->name, (long long)next++);
        } else {
            snprintf(base, sizeof base, "%s-", in->name);
        }
        kp_cluster_generate_pod_name(c->cl, in->ns, base, c->wls[w].name_seq++, name, sizeof name);
        st = kp__ctrl_create_pod(c, w, in, name, -1, sink, err);
    }
    return st;
}

/* status.completedIndexes ("1,3-5") as succeeded intervals within [0, completions). */
static kp_status completed_indexes(const char *s, job_pods *jp, int64_t completions) {
    while (s && *s) {
        char *end;
        long long a = strtoll(s, &end, 10), b = a;
        if (end == s) break;
        if (*end == '-') b = strtoll(end + 1, &end, 10);
        if (a < 0) a = 0;
        if (b >= completions) b = completions - 1;
        if (a <= b && iv_add(jp, a, b, 1) != KP_OK) return KP_ENOMEM;
        s = *end == ',' ? end + 1 : NULL;
    }
    return KP_OK;
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
    const kp_job_spec *js = &c->cl->workloads[w].job;
    if (js->finished) cw->done = true; /* a Complete or Failed condition: nothing more */
    if (cw->done || cw->deleted || in.deleted || in.suspend) return KP_OK;
    if (kp__ctrl_claim_pods(c, w) != KP_OK) return kp__ctrl_nomem(err);
    job_pods jp = {0};
    jp.last_success_ms = jp.last_failure_ms = -1;
    jp.replace_failed = js->replacement == KP_JOB_REPLACE_FAILED;
    jp.indexed = in.indexed && in.completions > 0;
    /* the succeeded pods the Job's status counted already (their tracking finalizer removed,
     * the pods maybe gone): status.completedIndexes (Indexed) or status.succeeded, the base
     * syncJob adds the newly succeeded pods to (getNewFinishedPods) */
    if ((jp.indexed && js->completed_indexes &&
         completed_indexes(kp__s(c->cl, js->completed_indexes), &jp, in.completions) != KP_OK) ||
        count_job_pods(c, cw, &in, &jp) != KP_OK) {
        kp__free(jp.iv);
        return kp__ctrl_nomem(err);
    }
    if (!jp.indexed) /* a Succeeded pod as loaded is one status.succeeded counts */
        jp.succeeded += jp.loaded_succeeded > js->succeeded ? jp.loaded_succeeded : js->succeeded;
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
    kp__free(jp.iv);
    return st;
}
