/* The Job controller (pkg/controller/job). TEMPORARY: moved here as it was in the simulator
 * (src/sim/sim_ctrl.c) so that the manager runs every controller; its owner rewrites this file.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "ctrl/ctrl_internal.h"

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
 * was requested) or succeeded. */
static int64_t finish_ms(const ctrl_pod *p) {
    if (p->state != CTRL_POD_FAILED && p->state != CTRL_POD_SUCCEEDED && p->terminating_ms >= 0)
        return p->terminating_ms;
    return p->gone_ms;
}

static void count_job_pods(kp_ctrl *s, const ctrl_wl *w, const kp_workload_info *in, job_pods *c) {
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        int64_t ix = c->done ? job_index_of(kp_cluster_pod_name(s->cl, q), in->name) : -1;
        if (ix >= in->completions) ix = -1;
        if (s->pods[q].state == CTRL_POD_SUCCEEDED) {
            s->pods[q].replaced = true; /* done: nothing replaces it */
            if (finish_ms(&s->pods[q]) > c->last_success_ms)
                c->last_success_ms = finish_ms(&s->pods[q]);
            if (!c->done) c->succeeded++;
            else if (ix >= 0 && c->done[ix] != 1) c->succeeded++, c->done[ix] = 1;
            continue;
        }
        if (kp__ctrl_active(s, q)) {
            c->active++;
            if (ix >= 0 && !c->done[ix]) c->done[ix] = 2;
            continue;
        }
        c->failed++;
    }
    /* newBackoffRecord: the failures after the last success, the latest failure's time */
    for (uint32_t i = 0; i < w->n; i++) {
        const ctrl_pod *p = &s->pods[w->pods[i]];
        if (p->state == CTRL_POD_SUCCEEDED || kp__ctrl_active(s, w->pods[i])) continue;
        int64_t t = finish_ms(p);
        if (t <= c->last_success_ms) continue;
        c->failures_after_success++;
        if (t > c->last_failure_ms) c->last_failure_ms = t;
    }
}

/* mirrors backoffRecord.getRemainingTime: 10s (DefaultJobPodFailureBackOff) doubled per failure
 * after the last success, at most 10 min (MaxJobPodFailureBackOff), from the last failure. */
static int64_t job_backoff_left(const kp_ctrl *s, const job_pods *c) {
    if (c->failures_after_success == 0) return 0;
    int64_t d = 10000;
    for (int64_t i = 1; i < c->failures_after_success && d < 600000; i++) d *= 2;
    if (d > 600000) d = 600000;
    int64_t elapsed = s->now - c->last_failure_ms;
    return d < elapsed ? 0 : d - elapsed;
}

/* The Job failed (pastBackoffLimitOnFailure / exceedsBackoffLimit: more failed pods than
 * spec.backoffLimit): its active pods are deleted (deleteActivePods) and the event Warning
 * BackoffLimitExceeded "Job has reached the specified backoff limit" follows. */
static kp_status fail_job(kp_ctrl *s, size_t wi, const kp_workload_info *in,
                          const kp_ctrl_sink *sink, kp_error *err) {
    s->wls[wi].done = true;
    for (uint32_t i = 0; i < s->wls[wi].n; i++) {
        uint32_t q = s->wls[wi].pods[i];
        if (!kp__ctrl_active(s, q)) continue;
        kp_status st = kp__ctrl_delete_pod(s, in, q, NULL, sink, err);
        if (st != KP_OK) return st;
    }
    return kp__ctrl_event(s, sink, true, "BackoffLimitExceeded", in,
                          "Job has reached the specified backoff limit", -1, -1, -1, err);
}

/* mirrors Controller.syncJob / manageJob (pkg/controller/job): `parallelism` active pods
 * (FilterActivePods) while fewer than `completions` pods succeeded (wantActive: completions -
 * succeeded, at most parallelism; without completions, parallelism until a pod succeeded, then
 * none new); complete once `completions` pods succeeded (without completions: one succeeded and
 * none active), with the event Completed "Job completed"; failed once more pods failed than
 * spec.backoffLimit (fail_job). Indexed (indexed_job_utils.go): one pod per completion index,
 * named NAME-INDEX-xxxxx with the completion-index label and annotation, the lowest indexes
 * neither succeeded nor active first (firstPendingIndexes): a failed index is retried under the
 * same index. After failures, new pods wait for the pod failure backoff (job_backoff_left; the
 * Job syncs again when it ends). Pods Succeed through the scenario's lifetimes; without one they
 * run forever. Not modelled: backoffLimitPerIndex, pod failure policies, activeDeadlineSeconds,
 * deleting pods beyond parallelism or of a suspended Job. */
kp_status kp_ctrl_job_sync(kp_ctrl *s, kp_index w_, int64_t now_ms, const kp_ctrl_sink *sink,
                           kp_error *err) {
    if (kp__ctrl_grow(s) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in_;
    if (w_ < 0 || (size_t)w_ >= s->n_wls || s->wls[w_].kind != CTRL_KIND_JOB ||
        kp_cluster_workload_info(s->cl, w_, &in_) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "job sync: %ld is not a Job", (long)w_);
    s->now = now_ms;
    size_t wi = (size_t)w_;
    const kp_workload_info *in = &in_;
    ctrl_wl *w = &s->wls[wi];
    if (w->done || in->suspend) return KP_OK; /* suspended: no pods (its active ones stay) */
    job_pods c = {0, 0, 0, NULL, -1, -1, 0};
    if (in->indexed && in->completions > 0 && !(c.done = kp__calloc((size_t)in->completions, 1)))
        return kp__ctrl_nomem(err);
    count_job_pods(s, w, in, &c);
    int64_t have = c.active;
    bool complete =
        in->completions >= 0 ? c.succeeded >= in->completions : c.succeeded > 0 && !have;
    kp_status st = KP_OK;
    if (complete) {
        w->done = true;
        st = kp__ctrl_event(s, sink, false, "Completed", in, "Job completed", -1, -1, -1, err);
    } else if (c.failed > in->backoff_limit) {
        st = fail_job(s, wi, in, sink, err);
    } else {
        int64_t want = in->replicas;
        if (in->completions < 0 && c.succeeded > 0) want = have;
        if (in->completions >= 0 && in->completions - c.succeeded < want)
            want = in->completions - c.succeeded;
        int64_t next = 0, left = have < want ? job_backoff_left(s, &c) : 0;
        if (left > 0 && s->wls[wi].resync_at != s->now + left) { /* enqueueSyncJobWithDelay */
            s->wls[wi].resync_at = s->now + left;
            if (sink && sink->resync_at)
                st = sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD, (kp_index)wi,
                                     s->now + left, err);
        }
        for (; left == 0 && have < want && st == KP_OK; have++) {
            char base[320], name[400];
            if (c.done) {
                while (next < in->completions && c.done[next]) next++;
                if (next >= in->completions) break;
                c.done[next] = 2;
                snprintf(base, sizeof base, "%s-%lld-", in->name, (long long)next);
            } else {
                snprintf(base, sizeof base, "%s-", in->name);
            }
            kp_cluster_generate_pod_name(s->cl, in->ns, base, s->wls[wi].name_seq++, name,
                                         sizeof name);
            st = kp__ctrl_create_pod(s, (kp_index)wi, in, name, -1, sink, err);
        }
    }
    kp__free(c.done);
    return st;
}
