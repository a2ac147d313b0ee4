/* The CronJob controller in the simulation (pkg/controller/cronjob/cronjob_controllerv2.go,
 * syncCronJob): at each time the schedule names (kprio/cron.h, UTC), a Job from the jobTemplate
 * named NAME-<scheduled time in minutes> (getJobName, getTimeHashInMinutes), Normal
 * SuccessfulCreate "Created job NAME"; concurrencyPolicy Forbid skips a time while a Job of the
 * CronJob is active (Normal JobAlreadyActive), Replace deletes the active Jobs first (Normal
 * SuccessfulDelete "Deleted job NAME"). The Job controller then runs the Job. A schedule that
 * does not parse: Warning InvalidSchedule "invalid schedule: SCHEDULE : ERROR", nothing runs.
 * Simplified (docs/simulate.md): times from the start of the run on (no missed runs from before
 * it, no startingDeadlineSeconds), history limits not applied, timeZone other than UTC read as
 * UTC (with a Warning). */
#include <stdio.h>
#include <string.h>

#include "kprio/cron.h"
#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

static kp_status cron_event(kp_sim *s, kp_sim_event_type type, const char *reason,
                            const kp_workload_info *in, const char *msg, kp_error *err) {
    return kp__sim_log(s, type, reason, "CronJob", in->ns, in->name, msg, -1, -1, -1) < 0
               ? nomem(err)
               : KP_OK;
}

/* plans the CronJob's next scheduled time after now (virtual ms from the run's epoch) */
static kp_status plan(kp_sim *s, size_t wi, const kp_cron *c, kp_error *err) {
    int64_t now_unix = s->epoch + s->now / 1000;
    int64_t next = kp_cron_next(c, s->epoch, now_unix);
    if (next < 0) return KP_OK; /* never again */
    int64_t at = (next - s->epoch) * 1000;
    return kp__sim_timer_add(s, at, SIM_EV_CRON, (int64_t)wi, 0) == KP_OK ? KP_OK : nomem(err);
}

static bool parse(kp_sim *s, const kp_workload_info *in, kp_cron *c, kp_error *err, kp_status *st) {
    kp_error e;
    kp_error_clear(&e);
    *st = KP_OK;
    if (kp_cron_parse(in->schedule, c, &e) == KP_OK) return true;
    char msg[KP_ERR_MSG_CAP + 300];
    snprintf(msg, sizeof msg, "invalid schedule: %s : %s", in->schedule, e.msg);
    *st = cron_event(s, KP_SIM_WARNING, "InvalidSchedule", in, msg, err);
    return false;
}

kp_status kp__sim_cron_start(kp_sim *s, kp_error *err) {
    size_t n = kp_cluster_workload_count(s->cl);
    if (n > s->n_cron_started) {
        if (n > s->cap_cron_started) {
            uint8_t *v = kp_realloc(s->cron_started, n);
            if (!v) return nomem(err);
            s->cron_started = v;
            s->cap_cron_started = n;
        }
        memset(s->cron_started + s->n_cron_started, 0, n - s->n_cron_started);
        s->n_cron_started = n;
    }
    for (size_t wi = 0; wi < n; wi++) {
        kp_workload_info in;
        if (s->cron_started[wi] || kp_cluster_workload_info(s->cl, (kp_index)wi, &in) != KP_OK ||
            in.deleted || strcmp(in.kind, "CronJob") != 0)
            continue;
        s->cron_started[wi] = 1;
        kp_cron c;
        kp_status st;
        if (!parse(s, &in, &c, err, &st)) {
            if (st != KP_OK) return st;
            continue;
        }
        if (*in.time_zone && strcmp(in.time_zone, "UTC") != 0 &&
            strcmp(in.time_zone, "Etc/UTC") != 0) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "kprio reads the schedule in UTC: timeZone %.200s is not applied",
                     in.time_zone);
            if ((st = cron_event(s, KP_SIM_WARNING, "UnsupportedTimeZone", &in, msg, err)) != KP_OK)
                return st;
        }
        if ((st = plan(s, wi, &c, err)) != KP_OK) return st;
    }
    return KP_OK;
}

/* the CronJob's Jobs still running: not done, not deleted */
static size_t active_jobs(const kp_sim *s, const kp_workload_info *cj, long *first) {
    size_t n = 0;
    *first = -1;
    for (size_t wi = 0; wi < kp_cluster_workload_count(s->cl); wi++) {
        kp_workload_info in;
        if (kp_ctrl_workload_done(s->ctrl, (kp_index)wi) ||
            kp_cluster_workload_info(s->cl, (kp_index)wi, &in) != KP_OK || in.deleted ||
            strcmp(in.kind, "Job") != 0 || strcmp(in.ns, cj->ns) != 0 ||
            strcmp(in.owner_kind, "CronJob") != 0 || strcmp(in.owner_name, cj->name) != 0)
            continue;
        if (*first < 0) *first = (long)wi;
        n++;
    }
    return n;
}

/* Replace: each active Job is deleted (with its pods) */
static kp_status replace(kp_sim *s, const kp_workload_info *cj, kp_error *err) {
    long j;
    while (active_jobs(s, cj, &j) > 0) {
        kp_workload_info ji;
        kp_cluster_workload_info(s->cl, (kp_index)j, &ji);
        char msg[400];
        snprintf(msg, sizeof msg, "Deleted job %s", ji.name);
        kp_status st = cron_event(s, KP_SIM_NORMAL, "SuccessfulDelete", cj, msg, err);
        if (st == KP_OK) st = kp__sim_delete_workload(s, j, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

kp_status kp__sim_cron_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    size_t wi = (size_t)t->arg;
    kp_workload_info in;
    if (kp_cluster_workload_info(s->cl, (kp_index)wi, &in) != KP_OK || in.deleted) return KP_OK;
    kp_cron c;
    kp_status st;
    if (!parse(s, &in, &c, err, &st)) return st;
    if (!in.suspend) {
        long j;
        if (strcmp(in.concurrency, "Forbid") == 0 && active_jobs(s, &in, &j) > 0) {
            st = cron_event(s, KP_SIM_NORMAL, "JobAlreadyActive", &in,
                            "Not starting job because prior execution is running and concurrency "
                            "policy is Forbid",
                            err);
            if (st != KP_OK) return st;
            return plan(s, wi, &c, err);
        }
        if (strcmp(in.concurrency, "Replace") == 0 && (st = replace(s, &in, err)) != KP_OK)
            return st;
        char name[400], msg[500];
        snprintf(name, sizeof name, "%.250s-%lld", in.name,
                 (long long)((s->epoch + s->now / 1000) / 60));
        kp_index job = -1;
        kp_error e;
        kp_error_clear(&e);
        if (kp_cluster_cronjob_new_job(s->cl, (kp_index)wi, name, &job, &e) != KP_OK) {
            if (e.code == KP_ENOMEM) return nomem(err);
            snprintf(msg, sizeof msg, "Error creating job: %.400s", e.msg);
            st = cron_event(s, KP_SIM_WARNING, "FailedCreate", &in, msg, err);
        } else {
            if (kp__sim_grow_workloads(s) != KP_OK) return nomem(err);
            snprintf(msg, sizeof msg, "Created job %s", name);
            st = cron_event(s, KP_SIM_NORMAL, "SuccessfulCreate", &in, msg, err);
        }
        if (st != KP_OK) return st;
    }
    return plan(s, wi, &c, err);
}
