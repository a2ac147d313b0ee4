/* Workload expansion (`--expand-workloads`, kp_ctrl_expand in kprio/ctrl.h): the controllers' own
 * sync at t = 0 over the finalized snapshot, nothing else: a manager over the cluster (every
 * workload queued), each CronJob fired once when asked (kp__ctrl_cronjob_fire), then kp_ctrl_sync
 * until no controller is queued. The pods the controllers create through core are the expanded
 * ones; what a controller deletes (surplus pods) is deleted as without a runner.
 *
 * What one instant means: the controllers act, nothing else happens in between. No pod is
 * scheduled, started or Ready during the expansion, so a controller that waits for one of its
 * pods waits: a StatefulSet with podManagementPolicy OrderedReady creates its first missing
 * ordinal and stops there (StatefulSetControl.UpdateStatefulSet: the next ordinal comes once that
 * pod is Running and Ready, which is the statefulset controller's readiness rule, not
 * expansion's). A Parallel one creates every missing ordinal at once.
 *
 * What the controllers cannot do without is checked first (check_workloads): a workload that asks
 * for pods has a pod template, and the PriorityClass its template names exists, each refusal one
 * line naming the workload's file, object and field. A creation the API server would still refuse
 * (the controller's FailedCreate event) stops the expansion with its message. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "ctrl/ctrl_internal.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

static kp_status fail(const kp_cluster *cl, const kp_workload *w, kp_error *err, kp_status code,
                      const char *field, const char *what) {
    kp_status st =
        kp_error_set(err, code, "%s %s/%s: %s%s%s", kp__workload_kind_name(w->kind),
                     kp__s(cl, w->ns), kp__s(cl, w->name), field, *field ? ": " : "", what);
    if (err && w->origin.file) snprintf(err->source, sizeof err->source, "%s", w->origin.file);
    return st;
}

/* Whether w's spec asks its controller for pods (its template is needed then): replicas > 0, a
 * DaemonSet on a cluster with nodes, a Job not suspended nor finished with completions left, a
 * CronJob fired now. */
static bool asks_for_pods(const kp_cluster *cl, const kp_workload *w, unsigned flags) {
    const kp_job_spec *j = &w->job;
    switch (w->kind) {
    case KP_WL_RC:
    case KP_WL_RS:
    case KP_WL_STS:
    case KP_WL_DEPLOY: return w->replicas > 0;
    case KP_WL_DS: return cl->n_nodes > 0;
    case KP_WL_JOB:
        return !j->suspend && !j->finished && j->parallelism > 0 &&
               !(j->has_completions && !j->indexed && j->succeeded >= j->completions);
    case KP_WL_CRONJOB: return (flags & KP_EXPAND_CRONJOBS) && !w->suspend;
    case KP_WL_SERVICE:
    case KP_WL_KINDS: break;
    }
    return false;
}

/* The pre-check: every workload asking for pods has a template whose PriorityClass exists (the
 * API server requires the template; the Priority admission plugin refuses a pod naming a missing
 * class, each pod the controller tries). */
static kp_status check_workloads(const kp_cluster *cl, unsigned flags, kp_error *err) {
    for (uint32_t i = 0; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (w->deleted || !asks_for_pods(cl, w, flags)) continue;
        const char *field =
            w->kind == KP_WL_CRONJOB ? "spec.jobTemplate.spec.template" : "spec.template";
        if (!w->template)
            return fail(cl, w, err, KP_EINVAL, field,
                        "Required value: expanding the workload needs its pod template");
        kp_str pc = w->template->priority_class;
        if (!pc || w->template->has_priority ||
            kp_cluster_find_priority_class(cl, kp__s(cl, pc)) >= 0)
            continue;
        char f[96], what[400];
        snprintf(f, sizeof f, "%s.spec.priorityClassName", field);
        snprintf(what, sizeof what, "no PriorityClass with name %s was found", kp__s(cl, pc));
        return fail(cl, w, err, KP_EINVAL, f, what);
    }
    return KP_OK;
}

/* the workload an event or a new pod names (kind, namespace, name), NULL when none */
static const kp_workload *find(const kp_cluster *cl, const char *kind, const char *ns,
                               const char *name) {
    for (uint32_t i = 0; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (!w->deleted && strcmp(kp__workload_kind_name(w->kind), kind) == 0 &&
            strcmp(kp__s(cl, w->ns), ns) == 0 && strcmp(kp__s(cl, w->name), name) == 0)
            return w;
    }
    return NULL;
}

/* the sink: a refused creation is an error, new pods are counted */
static kp_status on_event(void *ctx, const kp_ctrl_event *ev, kp_error *err) {
    const kp_cluster *cl = ctx;
    if (!ev->warning || strcmp(ev->reason, "FailedCreate") != 0) return KP_OK;
    const kp_workload *w = find(cl, ev->kind, ev->ns, ev->name);
    if (!w)
        return kp_error_set(err, KP_EINVAL, "%s %s/%s: %s", ev->kind, ev->ns, ev->name,
                            ev->message);
    return fail(cl, w, err, KP_EINVAL, "", ev->message);
}

static kp_status on_created(void *ctx, kp_index pod, kp_index replaces, const kp_ctrl_event *ev,
                            kp_error *err) {
    kp_cluster *cl = ctx;
    (void)pod, (void)replaces;
    if (cl->n_expanded >= KP_EXPAND_MAX_PODS) {
        char what[160];
        snprintf(what, sizeof what,
                 "expanding the workloads makes more than %u pods (KP_EXPAND_MAX_PODS, kprio's "
                 "limit)",
                 KP_EXPAND_MAX_PODS);
        const kp_workload *w = find(cl, ev->kind, ev->ns, ev->name);
        if (!w) return kp_error_set(err, KP_ELIMIT, "%s", what);
        return fail(cl, w, err, KP_ELIMIT, "spec", what);
    }
    cl->n_expanded++;
    return KP_OK;
}

/* t = 0: the newest creationTimestamp of the snapshot's pods (the pods the controllers create
 * come after every pod of the input), 0 when none has one */
static int64_t newest_creation(const kp_cluster *cl) {
    int64_t t = KP_TIME_NONE;
    for (uint32_t i = 0; i < cl->n_pods; i++)
        if (cl->pods[i].creation_ts != KP_TIME_NONE && cl->pods[i].creation_ts > t)
            t = cl->pods[i].creation_ts;
    return t == KP_TIME_NONE ? 0 : t;
}

kp_status kp_ctrl_expand(kp_cluster *cl, kp_error *err) {
    unsigned flags = cl->expand_flags;
    if (!(flags & (KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS))) return KP_OK;
    if (!cl->finalized)
        return kp_error_set(err, KP_EINVAL, "expanding the workloads needs a finalized cluster");
    cl->expand_flags = KP_WORKLOAD_TEMPLATES; /* once; templates still decode for later loads */
    kp_status st = check_workloads(cl, flags, err);
    if (st != KP_OK) return st;
    uint32_t n_cron = 0, n_wl = cl->n_workloads;
    for (uint32_t i = 0; i < n_wl; i++) n_cron += cl->workloads[i].kind == KP_WL_CRONJOB;
    kp_ctrl *c = kp_ctrl_new(cl);
    if (!c) return kp_error_set(err, KP_ENOMEM, "out of memory");
    int64_t epoch = newest_creation(cl);
    kp_ctrl_set_epoch(c, epoch);
    kp_ctrl_sink sink = {cl, on_event, on_created, NULL, NULL, NULL, NULL};
    for (uint32_t i = 0; i < n_wl && st == KP_OK && (flags & KP_EXPAND_CRONJOBS); i++)
        if (cl->workloads[i].kind == KP_WL_CRONJOB)
            st = kp__ctrl_cronjob_fire(c, (kp_index)i, &sink, err);
    if (st == KP_OK) st = kp_ctrl_sync(c, epoch, 0, &sink, err);
    kp_ctrl_free(c);
    if (st == KP_OK && n_cron && !(flags & KP_EXPAND_CRONJOBS) &&
        kp__cluster_warn(cl,
                         "%u CronJob(s) not expanded: a CronJob has no pods until its schedule "
                         "fires (--expand-cronjobs fires each once now)",
                         n_cron) != KP_OK)
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    return st;
}
