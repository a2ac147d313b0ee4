/* The Job controller (src/ctrl/job.c) driven through kp_ctrl_job_sync with a recording sink, on
 * cases of upstream's pkg/controller/job/job_controller_test.go (TestControllerSyncJob: job
 * start, pending pods, too few active pods, WQ jobs, job finish, the pod failure backoff,
 * backoffLimit; the Indexed cases' firstPendingIndexes), and suspend. */
#include "base/alloc.h"
#include "ctrl_rec.h"

#define NODE \
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"8\"}}\n"

/* Job foobar (labels foo: bar) with parallelism p, completions c (< 0: nil), backoffLimit b,
 * then extra (pods) */
static kp_cluster *job(int p, int c, int b, bool indexed, bool suspend, const char *pods) {
    char text[8192], comp[64] = "";
    if (c >= 0) snprintf(comp, sizeof comp, "  completions: %d\n", c);
    snprintf(text, sizeof text,
             NODE
             "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: foobar, namespace: "
             "default, uid: u-job}\nspec:\n  parallelism: %d\n%s  backoffLimit: %d\n%s%s"
             "  selector: {matchLabels: {foo: bar}}\n  template:\n    metadata: {labels: "
             "{foo: bar}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, "
             "image: foo/bar}]\n%s",
             p, comp, b, indexed ? "  completionMode: Indexed\n" : "",
             suspend ? "  suspend: true\n" : "", pods);
    return ctrl_load(text);
}

/* a pod of the Job in a phase (Pending: not bound; Running: bound to n1) */
#define POD(name, how)                                                                        \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default, labels: " \
    "{foo: bar}, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: foobar, uid: "     \
    "u-job, controller: true}]}\nspec:\n  containers: [{name: c, image: foo/bar}]\n" how
#define PENDING ""
#define RUNNING "  nodeName: n1\n"
#define SUCCEEDED "  nodeName: n1\nstatus: {phase: Succeeded}\n"
#define FAILED "  nodeName: n1\nstatus: {phase: Failed}\n"

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
    f->w = ctrl_workload(cl, "Job", "foobar");
    KT_CHECK(f->w >= 0);
    f->sink = rec_sink(&f->r, cl);
    return f->c && f->w >= 0;
}

static kp_status sync_at(fix *f, int64_t now_ms) {
    kp_error err;
    kp_error_clear(&err);
    f->sink = rec_sink(&f->r, f->cl);
    return kp_ctrl_job_sync(f->c, f->w, now_ms, &f->sink, &err);
}

static void teardown(fix *f) {
    kp_ctrl_free(f->c);
    kp_cluster_free(f->cl);
}

/* "job start" (2 of 5) and "WQ job start" (completions nil): parallelism pods */
KT_TEST(job_start) {
    fix f;
    if (setup(&f, job(2, 5, 6, false, false, ""))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
        KT_CHECK(strncmp(f.r.created[0], "foobar-", 7) == 0);
        KT_CHECK_INT(f.r.replaces[0], -1); /* a scale-up */
        /* the next sync finds them active (expectations met): nothing more */
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
    }
    teardown(&f);
    if (setup(&f, job(2, -1, 6, false, false, ""))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
    }
    teardown(&f);
}

/* "pending pods" and "correct # of pods": active pods (pending or running) count */
KT_TEST(pending_pods_count_as_active) {
    fix f;
    if (setup(&f, job(2, 5, 6, false, false, POD("a", PENDING) POD("b", RUNNING)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK_INT(f.r.n_events, 0);
    }
    teardown(&f);
}

/* "too few active pods" (1 active, 1 succeeded of 5, parallelism 2) and "too few active pods
 * with a dynamic job" (WQ, 1 active of parallelism 2): one creation */
KT_TEST(too_few_active_pods) {
    fix f;
    if (setup(&f, job(2, 5, 6, false, false, POD("a", RUNNING) POD("s", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
    }
    teardown(&f);
    if (setup(&f, job(2, -1, 6, false, false, POD("a", RUNNING)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
    }
    teardown(&f);
    /* wantActive never above what completions still need: 4 of 5 succeeded, parallelism 2 */
    if (setup(&f, job(2, 5, 6, false, false,
                      POD("s1", SUCCEEDED) POD("s2", SUCCEEDED) POD("s3", SUCCEEDED)
                          POD("s4", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
    }
    teardown(&f);
}

/* "job finish" (5 of 5 succeeded) and the WQ cases: "WQ job finishing" (one succeeded, one still
 * active: no new pod, not complete), "WQ job all finished" (complete) */
KT_TEST(job_finish) {
    fix f;
    if (setup(&f, job(2, 5, 6, false, false,
                      POD("s1", SUCCEEDED) POD("s2", SUCCEEDED) POD("s3", SUCCEEDED)
                          POD("s4", SUCCEEDED) POD("s5", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK(rec_has(&f.r, "Completed: Job completed"));
        KT_CHECK(kp_ctrl_workload_done(f.c, f.w));
        KT_CHECK_INT(sync_at(&f, 1000), KP_OK); /* done: nothing more */
        KT_CHECK_INT(f.r.n_events, 0);
    }
    teardown(&f);
    if (setup(&f, job(2, -1, 6, false, false, POD("a", RUNNING) POD("s", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK(!kp_ctrl_workload_done(f.c, f.w));
    }
    teardown(&f);
    if (setup(&f, job(2, -1, 6, false, false, POD("s", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK(rec_has(&f.r, "Completed: Job completed"));
    }
    teardown(&f);
}

/* "too few active pods and active back-off" / "... and no back-offs": a pod that failed at
 * t = 5s holds the replacement for 10s (DefaultJobPodFailureBackOff), with a resync asked for
 * then; the second failure doubles it. */
KT_TEST(pod_failure_backoff) {
    fix f;
    if (setup(&f, job(1, 3, 6, false, false, POD("a", RUNNING)))) {
        kp_error err;
        kp_index a = ctrl_pod(f.cl, "default/a");
        KT_CHECK_INT(kp_cluster_finish_pod(f.cl, a, KP_POD_PHASE_FAILED, "Error", "", &err), KP_OK);
        KT_CHECK_INT(kp_ctrl_pod_changed(f.c, a, 5000), KP_OK);
        KT_CHECK_INT(sync_at(&f, 5000), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_kind[0], KP_CTRL_RESYNC_WORKLOAD);
        KT_CHECK_INT(f.r.resync_obj[0], f.w);
        KT_CHECK_INT(f.r.resync_t[0], 15000);
        KT_CHECK_INT(sync_at(&f, 9000), KP_OK); /* the same end: asked once */
        KT_CHECK_INT(f.r.n_resync, 0);
        KT_CHECK_INT(sync_at(&f, 15000), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
        KT_CHECK_INT(f.r.replaces[0], a); /* in the failed pod's place */
        /* its replacement fails too: 20s from that failure */
        kp_index b = f.r.created_idx[0];
        KT_CHECK_INT(kp_cluster_finish_pod(f.cl, b, KP_POD_PHASE_FAILED, "Error", "", &err), KP_OK);
        KT_CHECK_INT(kp_ctrl_pod_changed(f.c, b, 16000), KP_OK);
        KT_CHECK_INT(sync_at(&f, 16000), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK_INT(f.r.n_resync, 1);
        KT_CHECK_INT(f.r.resync_t[0], 36000);
    }
    teardown(&f);
}

/* more failed pods than spec.backoffLimit: the Job fails, its active pods are deleted
 * (deleteActivePods) and BackoffLimitExceeded follows; a failed Job makes no pod again */
KT_TEST(backoff_limit_exceeded) {
    fix f;
    if (setup(&f, job(2, 5, 1, false, false,
                      POD("f1", FAILED) POD("f2", FAILED) POD("a", RUNNING) POD("p", PENDING)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 0);
        KT_CHECK_INT(f.r.n_deleting, 2);
        KT_CHECK(rec_has(&f.r, "SuccessfulDelete: Deleted pod: a"));
        KT_CHECK(rec_has(&f.r, "SuccessfulDelete: Deleted pod: p"));
        KT_CHECK_STR(f.r.events[f.r.n_events - 1],
                     "!BackoffLimitExceeded: Job has reached the specified backoff limit");
        kp_pod_info pi;
        kp_cluster_pod_info(f.cl, ctrl_pod(f.cl, "default/a"), &pi);
        KT_CHECK(pi.deletion_ts != KP_TIME_UNSET); /* through core's mark terminating */
        KT_CHECK(kp_ctrl_workload_done(f.c, f.w));
        KT_CHECK_INT(sync_at(&f, 1000), KP_OK);
        KT_CHECK_INT(f.r.n_created + f.r.n_events, 0);
    }
    teardown(&f);
    /* exactly backoffLimit failures: still running, a replacement made */
    if (setup(&f, job(1, 5, 1, false, false, POD("f1", FAILED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
        KT_CHECK(!kp_ctrl_workload_done(f.c, f.w));
    }
    teardown(&f);
}

/* Indexed: "indexed job start" (indexes 0 and 1), and "indexed job some running and completed
 * pods" (index 0 succeeded, 1 running: the next are 2 and 3); names NAME-INDEX-xxxxx */
KT_TEST(indexed_first_pending_indexes) {
    fix f;
    if (setup(&f, job(2, 5, 6, true, false, ""))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
        KT_CHECK(strncmp(f.r.created[0], "foobar-0-", 9) == 0);
        KT_CHECK(strncmp(f.r.created[1], "foobar-1-", 9) == 0);
    }
    teardown(&f);
    if (setup(&f, job(3, 5, 6, true, false,
                      POD("foobar-0-aaaaa", SUCCEEDED) POD("foobar-1-bbbbb", RUNNING)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
        KT_CHECK(strncmp(f.r.created[0], "foobar-2-", 9) == 0);
        KT_CHECK(strncmp(f.r.created[1], "foobar-3-", 9) == 0);
    }
    teardown(&f);
    /* a failed index is retried under the same index; duplicate successes count once */
    if (setup(&f, job(1, 2, 6, true, false,
                      POD("foobar-0-aaaaa", SUCCEEDED) POD("foobar-0-ccccc", SUCCEEDED)
                          POD("foobar-1-bbbbb", FAILED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 1);
        KT_CHECK(strncmp(f.r.created[0], "foobar-1-", 9) == 0);
        KT_CHECK(!kp_ctrl_workload_done(f.c, f.w));
    }
    teardown(&f);
}

/* a suspended Job makes no pods ("suspending a job with satisfied expectations": its active pods
 * stay, as kprio does not delete them) */
KT_TEST(suspended) {
    fix f;
    if (setup(&f, job(2, 5, 6, false, true, POD("a", RUNNING)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created + f.r.n_deleting + f.r.n_events, 0);
    }
    teardown(&f);
}

KT_TEST(not_a_job) {
    fix f;
    if (setup(&f, job(1, 1, 6, false, false, ""))) {
        kp_error err;
        kp_error_clear(&err);
        KT_CHECK_INT(kp_ctrl_job_sync(f.c, 99, 0, &f.sink, &err), KP_EINVAL);
    }
    teardown(&f);
}

/* every allocation of an Indexed Job's first sync fails in turn: KP_ENOMEM with a message (or
 * KP_OK), and a later sync completes the pods without making one twice */
KT_TEST(alloc_fail) {
    for (unsigned long f = 0;; f++) {
        fix x;
        if (!setup(&x, job(2, 3, 6, true, false, ""))) {
            teardown(&x);
            return;
        }
        kp_error err;
        kp_error_clear(&err);
        x.sink = rec_sink(&x.r, x.cl);
        unsigned long before = kp__alloc_count();
        kp__alloc_fail_after((long)f, false);
        kp_status st = kp_ctrl_job_sync(x.c, x.w, 0, &x.sink, &err);
        kp__alloc_fail_after(-1, false);
        bool done = kp__alloc_count() - before <= f;
        KT_CHECK(st == KP_OK || (st == KP_ENOMEM && err.msg[0]));
        if (st != KP_OK) { /* the Job's pods in the cluster: two */
            KT_CHECK_INT(sync_at(&x, 0), KP_OK);
            int n = 0;
            for (size_t i = 0; i < kp_cluster_pod_count(x.cl); i++) {
                kp_pod_info pi;
                kp_cluster_pod_info(x.cl, (kp_index)i, &pi);
                n += kp_cluster_pod_workload(x.cl, (kp_index)i) == x.w && !pi.deleted;
            }
            KT_CHECK_INT(n, 2);
        }
        teardown(&x);
        if (done || f > 200) break;
    }
}

/* Job foobar with parallelism 4, completions 10, extra spec lines and the status given, then
 * pods */
static kp_cluster *job_status(const char *spec, const char *status, const char *pods) {
    char text[8192];
    snprintf(text, sizeof text,
             NODE "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: foobar, namespace: "
                  "default, uid: u-job}\nspec:\n  parallelism: 4\n  completions: 10\n%s"
                  "  selector: {matchLabels: {foo: bar}}\n  template:\n    metadata: {labels: "
                  "{foo: bar}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: "
                  "c, image: foo/bar}]\nstatus: %s\n%s",
             spec, status, pods);
    return ctrl_load(text);
}

/* syncJob's succeeded count starts from the Job's status (the pods it counted may be gone:
 * getNewFinishedPods adds only the newly finished ones): 8 of 10 succeeded, none left, so
 * wantActive = min(4, 10 - 8) = 2; a Succeeded pod as loaded is one of those 8. A Job with a
 * Complete condition makes nothing. */
KT_TEST(succeeded_from_status) {
    fix f;
    if (setup(&f, job_status("", "{succeeded: 8}", POD("s", SUCCEEDED)))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
    }
    teardown(&f);
    if (setup(&f, job_status("", "{succeeded: 3, conditions: [{type: Complete, status: 'True'}]}",
                             ""))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created + f.r.n_events, 0);
    }
    teardown(&f);
    /* Indexed: status.completedIndexes, and the lowest indexes left */
    if (setup(&f, job_status("  completionMode: Indexed\n", "{completedIndexes: '0-7'}", ""))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 2);
        KT_CHECK(f.r.n_created == 2 && strncmp(f.r.created[0], "foobar-8-", 9) == 0 &&
                 strncmp(f.r.created[1], "foobar-9-", 9) == 0);
    }
    teardown(&f);
}

/* podReplacementPolicy Failed: a terminating pod is replaced once it is Failed (it counts
 * against the creations meanwhile); the default TerminatingOrFailed replaces it now */
KT_TEST(replacement_policy_failed) {
    const char *term =
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: t, namespace: default, labels: {foo: "
        "bar}, deletionTimestamp: '2024-01-01T00:00:00Z', ownerReferences: [{apiVersion: "
        "batch/v1, kind: Job, name: foobar, uid: u-job, controller: true}]}\n"
        "spec: {nodeName: n1, containers: [{name: c, image: foo/bar}]}\n";
    fix f;
    if (setup(&f, job_status("  podReplacementPolicy: Failed\n", "{}", term))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 3);
    }
    teardown(&f);
    if (setup(&f, job_status("", "{}", term))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 4);
    }
    teardown(&f);
}

/* ClaimPods: a pod without a controller that the Job's selector selects is adopted (it counts
 * as active); one of another namespace or being deleted is not */
KT_TEST(orphans_adopted) {
    fix f;
    const char *orphans =
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o1, namespace: default, labels: {foo: "
        "bar}}\nspec: {nodeName: n1, containers: [{name: c, image: foo/bar}]}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o2, namespace: other, labels: {foo: "
        "bar}}\nspec: {nodeName: n1, containers: [{name: c, image: foo/bar}]}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o3, namespace: default, labels: {foo: "
        "bar}, deletionTimestamp: '2024-01-01T00:00:00Z'}\nspec: {nodeName: n1, containers: "
        "[{name: c, image: foo/bar}]}\n";
    if (setup(&f, job_status("", "{}", orphans))) {
        KT_CHECK_INT(sync_at(&f, 0), KP_OK);
        KT_CHECK_INT(f.r.n_created, 3); /* parallelism 4 less o1 */
    }
    teardown(&f);
}

KT_MAIN(KT_CASE(job_start), KT_CASE(pending_pods_count_as_active), KT_CASE(too_few_active_pods),
        KT_CASE(job_finish), KT_CASE(pod_failure_backoff), KT_CASE(backoff_limit_exceeded),
        KT_CASE(indexed_first_pending_indexes), KT_CASE(suspended), KT_CASE(not_a_job),
        KT_CASE(alloc_fail), KT_CASE(succeeded_from_status), KT_CASE(replacement_policy_failed),
        KT_CASE(orphans_adopted))
