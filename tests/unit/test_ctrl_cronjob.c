/* The CronJob controller (src/ctrl/cronjob.c) driven through kp_ctrl_cronjob_sync with a
 * recording sink, on cases of upstream's pkg/controller/cronjob/cronjob_controllerv2_test.go
 * (TestControllerV2SyncCronJob): never ran and not time yet (a requeue at the next time), is time
 * (a Job NAME-<minutes>, SuccessfulCreate), suspended, concurrencyPolicy Allow / Forbid / Replace
 * with a Job still active or done, an invalid schedule, a timeZone kprio does not apply; the Job
 * it makes is queued for the Job controller; a second sync at the same time makes nothing. */
#include "ctrl_rec.h"

/* 2026-11-26T10:07:00Z, a Thursday */
#define EPOCH 1795687620LL

/* CronJob hello with schedule, policy and extra spec lines; its Jobs complete at once when done
 * (completions 0) */
static kp_cluster *cronjob(const char *schedule, const char *policy, const char *extra,
                           bool done_at_once) {
    char text[4096];
    snprintf(text, sizeof text,
             "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: hello, namespace: default, "
             "uid: u-cj}\nspec:\n  schedule: \"%s\"\n  concurrencyPolicy: %s\n%s  jobTemplate:\n"
             "    spec:\n%s      template:\n        metadata: {labels: {app: hello}}\n"
             "        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n",
             schedule, policy, extra, done_at_once ? "      completions: 0\n" : "");
    return ctrl_load(text);
}

typedef struct {
    kp_cluster *cl;
    kp_ctrl *c;
    kp_index w;
    rec r;
    kp_ctrl_sink sink;
} fix;

static bool setup(fix *f, kp_cluster *cl) {
    memset(f, 0, sizeof *f);
    f->cl = cl;
    KT_CHECK(cl != NULL);
    if (!cl) return false;
    f->c = kp_ctrl_new(cl);
    KT_CHECK(f->c != NULL);
    if (!f->c) return false;
    kp_ctrl_set_epoch(f->c, EPOCH);
    f->w = ctrl_workload(cl, "CronJob", "hello");
    KT_CHECK(f->w >= 0);
    f->sink = rec_sink(&f->r, cl);
    return f->w >= 0;
}

static kp_status sync_at(fix *f, int64_t now_ms) {
    kp_error err;
    kp_error_clear(&err);
    f->sink = rec_sink(&f->r, f->cl);
    return kp_ctrl_cronjob_sync(f->c, f->w, now_ms, &f->sink, &err);
}

/* the Jobs the controller queued run their controller (kp_ctrl_sync) */
static void run_jobs(fix *f, int64_t now_ms) {
    kp_error err;
    rec r2;
    kp_ctrl_sink s2 = rec_sink(&r2, f->cl);
    KT_CHECK_INT(kp_ctrl_sync(f->c, EPOCH, now_ms, &s2, &err), KP_OK);
}

static void teardown(fix *f) {
    kp_ctrl_free(f->c);
    kp_cluster_free(f->cl);
}

/* the Job's name at a scheduled time ms after EPOCH */
static const char *job_name(int64_t at_ms, char *buf, size_t cap) {
    snprintf(buf, cap, "hello-%lld", (long long)((EPOCH + at_ms / 1000) / 60));
    return buf;
}

/* "never ran, not time": the first sync follows the schedule from now and asks for the next
 * time (10:15, 8 minutes on); "never ran, is time": then the Job, and the time after */
KT_TEST(not_time_then_is_time) {
    fix f;
    if (setup(&f, cronjob("*/15 * * * *", "Allow", "", false))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_events, 0);
        KT_CHECK_INT(kp_cluster_workload_count(f.cl), 1);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_kind[0], KP_CTRL_RESYNC_CRONJOB);
        KT_CHECK_INT(f.r.resync_obj[0], f.w);
        KT_CHECK_INT(f.r.resync_t[0], 480000);
        KT_CHECK_INT(sync_at(&f, 300000),
                     KP_OK); /* early: nothing, the same time not asked again */
        KT_CHECK_INT(f.r.n_events + f.r.n_resync, 0);
        KT_CHECK_INT(sync_at(&f, 480000), KP_OK);
        char want[200], name[64];
        snprintf(want, sizeof want, "SuccessfulCreate: Created job %s",
                 job_name(480000, name, sizeof name));
        KT_CHECK_INT(f.r.n_events, 1);
        KT_CHECK(rec_has(&f.r, want));
        kp_index j = ctrl_workload(f.cl, "Job", name);
        KT_CHECK(j >= 0);
        kp_workload_info ji;
        KT_CHECK_INT(kp_cluster_workload_info(f.cl, j, &ji), KP_OK);
        KT_CHECK_STR(ji.owner_kind, "CronJob");
        KT_CHECK_STR(ji.owner_name, "hello");
        KT_CHECK(ji.has_template);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_t[0], 480000 + 900000);
        /* the Job is queued: its controller makes its pod */
        rec r2;
        kp_ctrl_sink s2 = rec_sink(&r2, f.cl);
        kp_error err;
        KT_CHECK_INT(kp_ctrl_sync(f.c, EPOCH, 480000, &s2, &err), KP_OK);
        KT_CHECK_INT(r2.n_created, 1);
        /* the same time again: already handled */
        KT_CHECK_INT(sync_at(&f, 480000), KP_OK);
        KT_CHECK_INT(f.r.n_events + f.r.n_resync, 0);
    }
    teardown(&f);
}

/* "never ran, is time, suspended": no Job, the next time still planned */
KT_TEST(suspended) {
    fix f;
    if (setup(&f, cronjob("*/15 * * * *", "Allow", "  suspend: true\n", false))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(sync_at(&f, 480000), KP_OK);
        KT_CHECK_INT(f.r.n_events, 0);
        KT_CHECK_INT(kp_cluster_workload_count(f.cl), 1);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_t[0], 1380000);
    }
    teardown(&f);
}

/* "still active, is time, A": a second Job; "F": JobAlreadyActive, no Job; "R": the active Job
 * deleted (SuccessfulDelete "Deleted job NAME", the cascade), then the new one */
KT_TEST(concurrency_policies_with_an_active_job) {
    static const char *policies[] = {"Allow", "Forbid", "Replace"};
    for (int k = 0; k < 3; k++) {
        fix f;
        if (!setup(&f, cronjob("*/15 * * * *", policies[k], "", false))) {
            teardown(&f);
            continue;
        }
        char first[64], second[64], want[120];
        job_name(480000, first, sizeof first);
        job_name(1380000, second, sizeof second);
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(sync_at(&f, 480000), KP_OK);
        run_jobs(&f, 480000); /* its pod made: the Job runs */
        kp_index j1 = ctrl_workload(f.cl, "Job", first);
        KT_CHECK(j1 >= 0);
        KT_CHECK_INT(sync_at(&f, 1380000), KP_OK);
        kp_index j2 = ctrl_workload(f.cl, "Job", second);
        if (k == 0) {
            KT_CHECK(j2 >= 0);
            KT_CHECK_INT(f.r.n_events, 1);
        } else if (k == 1) {
            KT_CHECK(j2 < 0);
            KT_CHECK(rec_has(&f.r, "JobAlreadyActive: Not starting job because prior execution is "
                                   "running and concurrency policy is Forbid"));
        } else {
            KT_CHECK(j2 >= 0);
            snprintf(want, sizeof want, "SuccessfulDelete: Deleted job %s", first);
            KT_CHECK_STR(f.r.events[0], want);
            snprintf(want, sizeof want, "SuccessfulCreate: Created job %s", second);
            KT_CHECK_STR(f.r.events[1], want);
            kp_workload_info ji;
            kp_cluster_workload_info(f.cl, j1, &ji);
            KT_CHECK(ji.deleted);
            KT_CHECK(kp_ctrl_workload_done(f.c, j1));
            KT_CHECK_INT(f.r.n_deleting, 1); /* its pod */
        }
        KT_CHECK_INT(f.r.n_resync, 1); /* every policy plans the next time */
        teardown(&f);
    }
}

/* "prev ran but done, is time, F": a completed Job is not active, the new one is made */
KT_TEST(forbid_after_done) {
    fix f;
    if (setup(&f, cronjob("*/15 * * * *", "Forbid", "", true))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(sync_at(&f, 480000), KP_OK);
        run_jobs(&f, 480000); /* completions 0: complete at once */
        char first[64], second[64];
        KT_CHECK(
            kp_ctrl_workload_done(f.c, ctrl_workload(f.cl, "Job", job_name(480000, first, 64))));
        KT_CHECK_INT(sync_at(&f, 1380000), KP_OK);
        KT_CHECK(ctrl_workload(f.cl, "Job", job_name(1380000, second, 64)) >= 0);
    }
    teardown(&f);
}

/* "never ran, not valid schedule": Warning UnparseableSchedule with the parser's words, nothing
 * planned, nothing run; a timeZone other than UTC: a Warning, the schedule read in UTC */
KT_TEST(invalid_schedule_and_time_zone) {
    fix f;
    if (setup(&f, cronjob("0 25 * * *", "Allow", "", false))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_events, 1);
        KT_CHECK_STR(f.r.events[0], "!UnparseableSchedule: unparseable schedule: \"0 25 * * *\" : "
                                    "end of range (25) above maximum (23): 25");
        KT_CHECK_INT(f.r.n_resync, 0);
        KT_CHECK_INT(sync_at(&f, 3600000), KP_OK); /* reported once */
        KT_CHECK_INT(f.r.n_events + f.r.n_resync, 0);
    }
    teardown(&f);
    if (setup(&f, cronjob("@hourly", "Allow", "  timeZone: Europe/Paris\n", false))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_STR(f.r.events[0], "!UnsupportedTimeZone: kprio reads the schedule in UTC: "
                                    "timeZone Europe/Paris is not applied");
        KT_CHECK_INT(f.r.resync_t[0], 53 * 60000); /* 11:00 UTC */
    }
    teardown(&f);
}

/* One Job name per scheduled minute: `@every 20s` fires three times in a minute; the second and
 * third find the name taken and, as syncCronJob's IsAlreadyExists branch, create nothing and
 * report nothing (no FailedCreate every 20 s). */
KT_TEST(job_name_taken_is_not_reported) {
    fix f;
    if (setup(&f, cronjob("@every 20s", "Allow", "", false))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        int64_t last_min = -1;
        size_t minutes = 0, created = 0;
        for (int k = 1; k <= 9; k++) {
            KT_CHECK_INT(sync_at(&f, 20000 * k), KP_OK); /* (the recorder starts empty) */
            for (size_t i = 0; i < f.r.n_events; i++) {
                KT_CHECK(strstr(f.r.events[i], "FailedCreate") == NULL);
                if (strncmp(f.r.events[i], "SuccessfulCreate", 16) == 0) created++;
            }
            int64_t m = (EPOCH + 20 * k) / 60;
            if (m != last_min) minutes++, last_min = m;
        }
        KT_CHECK_INT(created, minutes);
    }
    teardown(&f);
}

/* kp_ctrl_cronjobs_added: the first sync of each CronJob not followed yet, once */
KT_TEST(added_once) {
    fix f;
    if (setup(&f, cronjob("@every 90s", "Allow", "", false))) {
        kp_error err;
        KT_CHECK_INT(kp_ctrl_cronjobs_added(f.c, 0, &f.sink, &err), KP_OK);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_t[0], 90000); /* @every counts from the epoch */
        f.sink = rec_sink(&f.r, f.cl);
        KT_CHECK_INT(kp_ctrl_cronjobs_added(f.c, 1000, &f.sink, &err), KP_OK);
        KT_CHECK_INT(f.r.n_resync + f.r.n_events, 0);
        KT_CHECK_INT(kp_ctrl_cronjob_sync(f.c, 0, 0, &f.sink, &err), KP_OK);
        KT_CHECK_INT(kp_ctrl_cronjob_sync(f.c, 5, 0, &f.sink, &err), KP_EINVAL);
    }
    teardown(&f);
}

KT_MAIN(KT_CASE(not_time_then_is_time), KT_CASE(suspended),
        KT_CASE(concurrency_policies_with_an_active_job), KT_CASE(forbid_after_done),
        KT_CASE(invalid_schedule_and_time_zone), KT_CASE(job_name_taken_is_not_reported),
        KT_CASE(added_once))
