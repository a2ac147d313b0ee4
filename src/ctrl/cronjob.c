/* The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go): syncCronJob for one
 * CronJob at a time: at each time spec.schedule names (kprio/cron.h, UTC) a Job from the
 * jobTemplate named NAME-<scheduled time in minutes> (getJobName, getTimeHashInMinutes), Normal
 * SuccessfulCreate "Created job NAME"; concurrencyPolicy Forbid skips a time while a Job of the
 * CronJob is active (Normal JobAlreadyActive), Replace deletes the active Jobs first (Normal
 * SuccessfulDelete "Deleted job NAME", the garbage collector's cascade); suspend skips the time.
 * A schedule that does not parse: Warning UnparseableSchedule "unparseable schedule: \"SCHEDULE\" :
 * ERROR" (the schedule quoted as Go's %q), nothing runs. The Job controller (src/ctrl/job.c) then
 * runs the Job.
 *
 * The controller follows a CronJob from its first sync on (status.lastScheduleTime is that
 * instant: no missed runs from before it, no startingDeadlineSeconds); it asks for a resync at
 * the next scheduled time (the sink's resync_at, once per time). History limits are not applied;
 * a timeZone other than UTC is read as UTC (Warning UnsupportedTimeZone). */
#include <stdio.h>
#include <string.h>

#include "base/gosyntax.h"
#include "core/cluster.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"
#include "kprio/cron.h"

static kp_status cron_event(kp_ctrl *c, const kp_ctrl_sink *sink, bool warning, const char *reason,
                            const kp_workload_info *in, const char *msg, kp_error *err) {
    return kp__ctrl_event(c, sink, warning, reason, in, msg, -1, -1, -1, err);
}

/* syncCronJob's answer to a schedule cron.ParseStandard refuses: Warning UnparseableSchedule
 * "unparseable schedule: %q : ERROR" */
static kp_status unparseable(kp_ctrl *c, const kp_ctrl_sink *sink, const kp_workload_info *in,
                             const char *why, kp_error *err) {
    char msg[KP_ERR_MSG_CAP + 600], q[520];
    kp__go_quote(in->schedule, strlen(in->schedule), q, sizeof q);
    snprintf(msg, sizeof msg, "unparseable schedule: %s : %s", q, why);
    return cron_event(c, sink, true, "UnparseableSchedule", in, msg, err);
}

/* the next scheduled time after now (unix seconds): a resync then, asked once */
static kp_status plan(kp_ctrl *c, kp_index w, const kp_cron *cr, const kp_ctrl_sink *sink,
                      kp_error *err) {
    int64_t next = kp_cron_next(cr, c->epoch, kp__ctrl_now_s(c));
    if (next < 0) return KP_OK; /* never again */
    int64_t at = (next - c->epoch) * 1000;
    if (c->wls[w].resync_at == at) return KP_OK;
    c->wls[w].resync_at = at;
    if (!sink || !sink->resync_at) return KP_OK;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_CRONJOB, w, at, err);
}

/* the CronJob's Jobs still running: not done, not deleted; *first the first of them */
static size_t active_jobs(const kp_ctrl *c, const kp_workload_info *cj, kp_index *first) {
    size_t n = 0;
    *first = -1;
    for (size_t wi = 0; wi < c->n_wls; wi++) {
        kp_workload_info in;
        if (c->wls[wi].kind != CTRL_KIND_JOB || c->wls[wi].done || c->wls[wi].deleted ||
            kp_cluster_workload_info(c->cl, (kp_index)wi, &in) != KP_OK || in.deleted ||
            strcmp(in.ns, cj->ns) != 0 || strcmp(in.owner_kind, "CronJob") != 0 ||
            strcmp(in.owner_name, cj->name) != 0)
            continue;
        if (*first < 0) *first = (kp_index)wi;
        n++;
    }
    return n;
}

/* Replace: each active Job is deleted (with its pods) */
static kp_status replace(kp_ctrl *c, const kp_workload_info *cj, const kp_ctrl_sink *sink,
                         kp_error *err) {
    kp_index j;
    while (active_jobs(c, cj, &j) > 0) {
        kp_workload_info ji;
        kp_cluster_workload_info(c->cl, j, &ji);
        char msg[400];
        snprintf(msg, sizeof msg, "Deleted job %s", ji.name);
        kp_status st = cron_event(c, sink, false, "SuccessfulDelete", cj, msg, err);
        if (st == KP_OK) st = kp_ctrl_delete_workload(c, j, c->now, sink, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* The scheduled time `t` (unix seconds) came: Forbid / Replace / the new Job. listed: active
 * Jobs counted beyond the cluster's (the snapshot's status.active, kp__ctrl_cronjob_fire). */
static kp_status run_scheduled(kp_ctrl *c, kp_index w, const kp_workload_info *in, int64_t t,
                               size_t listed, const kp_ctrl_sink *sink, kp_error *err) {
    kp_index j;
    kp_status st;
    if (strcmp(in->concurrency, "Forbid") == 0 && active_jobs(c, in, &j) + listed > 0)
        return cron_event(c, sink, false, "JobAlreadyActive", in,
                          "Not starting job because prior execution is running and concurrency "
                          "policy is Forbid",
                          err);
    if (strcmp(in->concurrency, "Replace") == 0 && (st = replace(c, in, sink, err)) != KP_OK)
        return st;
    char name[400], msg[500];
    snprintf(name, sizeof name, "%.250s-%lld", in->name, (long long)(t / 60));
    kp_index job = -1;
    kp_error e;
    kp_error_clear(&e);
    if (kp__cluster_cronjob_new_job(c->cl, w, name, &job, &e) != KP_OK) {
        if (e.code == KP_ENOMEM) return kp__ctrl_nomem(err);
        snprintf(msg, sizeof msg, "Error creating job: %.400s", e.msg);
        return cron_event(c, sink, true, "FailedCreate", in, msg, err);
    }
    /* the Job exists (a schedule firing twice within its minute, @every under a minute: one
     * name): syncCronJob's IsAlreadyExists branch logs and records no event */
    if (job < 0) return KP_OK;
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err); /* the Job is queued */
    snprintf(msg, sizeof msg, "Created job %s", name);
    return cron_event(c, sink, false, "SuccessfulCreate", in, msg, err);
}

/* The CronJob's first sync: its schedule read (UnparseableSchedule, UnsupportedTimeZone) and its
 * next time planned. */
static kp_status start(kp_ctrl *c, kp_index w, const kp_workload_info *in, const kp_cron *cr,
                       const kp_ctrl_sink *sink, kp_error *err) {
    if (*in->time_zone && strcmp(in->time_zone, "UTC") != 0 &&
        strcmp(in->time_zone, "Etc/UTC") != 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "kprio reads the schedule in UTC: timeZone %.200s is not applied",
                 in->time_zone);
        kp_status st = cron_event(c, sink, true, "UnsupportedTimeZone", in, msg, err);
        if (st != KP_OK) return st;
    }
    return plan(c, w, cr, sink, err);
}

/* mirrors ControllerV2.syncCronJob: the most recent scheduled time since the last one handled
 * (getMostRecentScheduleTime, from the first sync on) is run unless suspended, then a resync at
 * the next one (nextScheduleTime). */
kp_status kp_ctrl_cronjob_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                               kp_error *err) {
    kp_workload_info in;
    if (kp_cluster_workload_info(c->cl, w, &in) != KP_OK || strcmp(in.kind, "CronJob") != 0)
        return kp_error_set(err, KP_EINVAL, "workload %ld is not a CronJob", (long)w);
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    c->now = now_ms;
    ctrl_wl *cw = &c->wls[w];
    if (cw->deleted || in.deleted) return KP_OK;
    bool first = !cw->cron_started;
    if (first) {
        cw->cron_started = true;
        cw->cron_last = kp__ctrl_now_s(c);
    }
    kp_cron cr;
    kp_error e;
    kp_error_clear(&e);
    if (kp_cron_parse(in.schedule, &cr, &e) != KP_OK) {
        if (!first) return KP_OK; /* reported at the first sync */
        return unparseable(c, sink, &in, e.msg, err);
    }
    if (first) return start(c, w, &in, &cr, sink, err);
    int64_t now_s = kp__ctrl_now_s(c), t = -1;
    for (int64_t n = kp_cron_next(&cr, c->epoch, cw->cron_last); n >= 0 && n <= now_s;
         n = kp_cron_next(&cr, c->epoch, n))
        t = n;
    if (t >= 0) {
        cw->cron_last = t;
        if (!in.suspend) {
            kp_status st = run_scheduled(c, w, &in, t, 0, sink, err);
            if (st != KP_OK) return st;
            cw = &c->wls[w]; /* a new Job may have moved the array */
        }
    }
    return plan(c, w, &cr, sink, err);
}

kp_status kp_ctrl_cronjobs_added(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    for (size_t w = 0; w < c->n_wls; w++) {
        if (c->wls[w].kind != CTRL_KIND_CRONJOB || c->wls[w].cron_started || c->wls[w].deleted)
            continue;
        kp_status st = kp_ctrl_cronjob_sync(c, (kp_index)w, now_ms, sink, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* --expand-workloads with --expand-cronjobs (src/ctrl/expand.c): CronJob w fires once at now, as
 * syncCronJob runs a scheduled time: the next one its schedule names (none: nothing), the Job
 * named for it (NAME-<time in minutes>, getJobName), unless suspended; concurrencyPolicy Forbid
 * also counts the active Jobs the snapshot's status.active lists (the Jobs themselves may be
 * absent from it). An invalid schedule: Warning UnparseableSchedule, nothing. The Job is queued. */
kp_status kp__ctrl_cronjob_fire(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink, kp_error *err) {
    kp_workload_info in;
    if (kp_cluster_workload_info(c->cl, w, &in) != KP_OK || strcmp(in.kind, "CronJob") != 0)
        return kp_error_set(err, KP_EINVAL, "workload %ld is not a CronJob", (long)w);
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    if (in.deleted || in.suspend) return KP_OK;
    kp_cron cr;
    kp_error e;
    kp_error_clear(&e);
    if (kp_cron_parse(in.schedule, &cr, &e) != KP_OK) {
        return unparseable(c, sink, &in, e.msg, err);
    }
    int64_t t = kp_cron_next(&cr, c->epoch, kp__ctrl_now_s(c));
    if (t < 0) return KP_OK;
    size_t listed = (size_t)c->cl->workloads[w].n_active_jobs;
    return run_scheduled(c, w, &in, t, listed, sink, err);
}
