/* Workload expansion (`--expand-workloads`, kp_ctrl_expand in kprio/ctrl.h): the controllers'
 * pass at t = 0 over a loaded snapshot, before finalize: the snapshot's pods indexed once
 * (expand_index.c), then each workload's controller makes the pending pods it would create now
 * (kp__ctrl_*_expand in replicaset.c, statefulset.c, daemonset.c; the Job's and the CronJob's
 * below until their controllers' files take them), and the Deployments' new ReplicaSets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "ctrl/expand.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

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

/* mirrors Controller.manageJob (pkg/controller/job): wantActive = parallelism (no completions,
 * none succeeded yet) or min(parallelism, completions - succeeded); the pods to create are
 * wantActive less the active pods (and, with podReplacementPolicy Failed, less the terminating
 * ones); an Indexed Job takes the lowest indexes neither completed nor active
 * (firstPendingIndexes). job_name: the Job's name (a CronJob's Job: made up). */
static kp_status expand_job(kp__expand *x, uint32_t wi, const char *job_name, bool from_cronjob) {
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
    int64_t want = !j->has_completions ? (succeeded > 0 ? active : j->parallelism)
                                       : (int64_t)j->completions - succeeded;
    if (want > j->parallelism) want = j->parallelism;
    if (want < 0) want = 0;
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

/* A CronJob fired now (KP_EXPAND_CRONJOBS): one Job's worth of pods, as syncCronJob would create
 * at a schedule time, unless suspended or concurrencyPolicy Forbid meets an active Job. The
 * Job's name is NAME-next (upstream: NAME-<scheduled time in minutes>). */
static kp_status expand_cronjob(kp__expand *x, uint32_t wi) {
    const kp_workload *w = &x->cl->workloads[wi];
    if (w->suspend || (w->concurrency == KP_CONCURRENCY_FORBID && w->n_active_jobs > 0))
        return KP_OK;
    char job[400];
    snprintf(job, sizeof job, "%.52s-next", kp__s(x->cl, w->name));
    return expand_job(x, wi, job, true);
}

static kp_status expand_all(kp__expand *x, uint32_t *deps, uint32_t *n_deps, uint32_t *n_cron) {
    kp_cluster *cl = x->cl;
    uint32_t n_wl = cl->n_workloads;
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < n_wl && st == KP_OK; i++) {
        bool made = false;
        switch (cl->workloads[i].kind) {
        case KP_WL_RC:
        case KP_WL_RS:
        case KP_WL_DEPLOY: st = kp__ctrl_replicaset_expand(x, i, &made); break;
        case KP_WL_STS: st = kp__ctrl_statefulset_expand(x, i); break;
        case KP_WL_DS: st = kp__ctrl_daemonset_expand(x, i); break;
        case KP_WL_JOB: st = expand_job(x, i, kp__s(cl, cl->workloads[i].name), false); break;
        case KP_WL_CRONJOB:
            if (x->flags & KP_EXPAND_CRONJOBS) st = expand_cronjob(x, i);
            else (*n_cron)++;
            break;
        case KP_WL_SERVICE:
        case KP_WL_KINDS: break;
        }
        if (made) deps[(*n_deps)++] = i;
    }
    return st;
}

kp_status kp_ctrl_expand(kp_cluster *cl, kp_error *err) {
    if (!(cl->expand_flags & (KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS)) || cl->finalized)
        return KP_OK;
    unsigned flags = cl->expand_flags;
    /* once: templates still decode for what is loaded next */
    cl->expand_flags = KP_WORKLOAD_TEMPLATES;
    /* finalize's first check comes first, as when finalize expanded */
    kp_status vst = kp__cluster_validate_classes(cl, err);
    if (vst != KP_OK) return vst;
    kp__expand x;
    memset(&x, 0, sizeof x);
    x.cl = cl;
    x.err = err;
    x.now = KP_TIME_NONE;
    x.flags = flags;
    x.s_apps_v1 = kp__expand_intern(cl, "apps/v1");
    x.s_batch_v1 = kp__expand_intern(cl, "batch/v1");
    x.s_v1 = kp__expand_intern(cl, "v1");
    x.s_rs = kp__expand_intern(cl, "ReplicaSet");
    uint32_t *deps = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *deps), n_deps = 0;
    uint32_t n_cron = 0;
    kp_status st = KP_OK;
    if (!deps || x.s_apps_v1 == UINT32_MAX || x.s_batch_v1 == UINT32_MAX || x.s_v1 == UINT32_MAX ||
        x.s_rs == UINT32_MAX || kp__expand_index_pods(&x) != KP_OK)
        st = kp__expand_nomem(&x);
    if (st == KP_OK) st = expand_all(&x, deps, &n_deps, &n_cron);
    for (uint32_t i = 0; i < n_deps && st == KP_OK; i++) {
        uint32_t rs;
        if (kp__workload_new_replicaset(cl, deps[i], &rs) != KP_OK) st = kp__expand_nomem(&x);
    }
    if (st == KP_OK && n_cron &&
        kp__cluster_warn(cl,
                         "%u CronJob(s) not expanded: a CronJob has no pods until its schedule "
                         "fires (--expand-cronjobs fires each once now)",
                         n_cron) != KP_OK)
        st = kp__expand_nomem(&x);
    kp__free(deps);
    kp__free(x.keys);
    kp__free(x.wl);
    kp__free(x.scaled);
    kp__free(x.orphans);
    kp__free(x.adopted);
    return st;
}
