/* The deployment controller's arithmetic (src/ctrl/deployment_util.c) with the rows of upstream's
 * tests: deployment_util_test.go (TestResolveFenceposts, TestMaxUnavailable, TestNewRSNewReplicas,
 * TestDeploymentComplete, TestDeploymentProgressing, TestDeploymentTimedOut) and rolling_test.go
 * (TestDeploymentController_reconcileNewReplicaSet, _reconcileOldReplicaSets,
 * _scaleDownOldReplicaSetsForRollingUpdate). */
#include <stdint.h>
#include <string.h>

#include "core/workload.h"
#include "ctrl/ctrl_internal.h"
#include "harness.h"

static kp_int_or_percent ip(const char *s) {
    if (!s) return (kp_int_or_percent){false, false, 0};
    size_t n = strlen(s);
    int32_t v = 0;
    for (size_t i = 0; i < n && s[i] != '%'; i++) v = v * 10 + (s[i] - '0');
    return (kp_int_or_percent){true, n && s[n - 1] == '%', v};
}

static kp_workload rolling(int32_t replicas, const char *surge, const char *unavailable) {
    kp_workload d;
    memset(&d, 0, sizeof d);
    d.kind = KP_WL_DEPLOY;
    d.replicas = replicas;
    d.strategy.type = KP_WL_STRATEGY_ROLLING;
    d.strategy.max_surge = ip(surge);
    d.strategy.max_unavailable = ip(unavailable);
    d.progress_deadline_seconds = 600;
    return d;
}

/* TestResolveFenceposts: maxSurge rounds up, maxUnavailable down; both 0 makes maxUnavailable 1 */
KT_TEST(resolve_fenceposts) {
    static const struct {
        const char *surge, *unavailable;
        int32_t desired, want_surge, want_unavailable;
    } rows[] = {{"0", "0", 0, 0, 1},     {"39%", "39%", 10, 4, 3}, {NULL, "39%", 10, 0, 3},
                {"39%", NULL, 10, 4, 0}, {NULL, NULL, 10, 0, 1},   {"25%", "25%", 2000, 500, 500},
                {"25%", "25%", 3, 1, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kp_int_or_percent s = ip(rows[i].surge), u = ip(rows[i].unavailable);
        int32_t gs = -1, gu = -1;
        kp__deploy_fenceposts(&s, &u, rows[i].desired, &gs, &gu);
        KT_CHECK_INT(gs, rows[i].want_surge);
        KT_CHECK_INT(gu, rows[i].want_unavailable);
    }
}

/* TestMaxUnavailable: capped at spec.replicas; 0 for Recreate and for 0 replicas; 25% of 10 is 2 */
KT_TEST(max_unavailable) {
    kp_workload d = rolling(10, "0", "5");
    KT_CHECK_INT(kp__deploy_max_unavailable(&d), 5);
    d = rolling(10, "0", "20");
    KT_CHECK_INT(kp__deploy_max_unavailable(&d), 10);
    d = rolling(10, "25%", "25%");
    KT_CHECK_INT(kp__deploy_max_unavailable(&d), 2);
    KT_CHECK_INT(kp__deploy_max_surge(&d), 3);
    d = rolling(0, "0", "5");
    KT_CHECK_INT(kp__deploy_max_unavailable(&d), 0);
    d = rolling(10, "0", "5");
    d.strategy.type = KP_WL_STRATEGY_RECREATE;
    KT_CHECK_INT(kp__deploy_max_unavailable(&d), 0);
    KT_CHECK_INT(kp__deploy_max_surge(&d), 0);
}

/* TestNewRSNewReplicas and TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0) */
KT_TEST(new_rs_replicas) {
    kp_workload d = rolling(1, "1", "0");
    KT_CHECK_INT(kp__deploy_new_rs_replicas(&d, 5, 5), 5); /* can not scale up */
    d = rolling(6, "10", "0");
    KT_CHECK_INT(kp__deploy_new_rs_replicas(&d, 2, 2), 6); /* scale up to spec.replicas */
    d = rolling(3, "1", "0");
    d.strategy.type = KP_WL_STRATEGY_RECREATE;
    KT_CHECK_INT(kp__deploy_new_rs_replicas(&d, 1, 1), 3);
    static const struct {
        int32_t replicas;
        const char *surge;
        int32_t old, nw, want;
    } rows[] = {{10, "0", 10, 0, 0}, {10, "2", 10, 0, 2}, {10, "2", 5, 0, 7}, {10, "2", 10, 2, 2}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        d = rolling(rows[i].replicas, rows[i].surge, "0");
        KT_CHECK_INT(kp__deploy_new_rs_replicas(&d, rows[i].old + rows[i].nw, rows[i].nw),
                     rows[i].want);
    }
}

/* TestDeploymentController_reconcileOldReplicaSets (maxSurge 0; a Ready pod is available) and
 * the rows of _scaleDownOldReplicaSetsForRollingUpdate where no pod is unhealthy: the steps
 * and the old ReplicaSet's size after them */
KT_TEST(old_scale_down) {
    static const struct {
        int32_t replicas;
        const char *unavailable;
        int32_t old, nw, ready_old, ready_new;
        size_t n_steps;
        int32_t want_old;
    } rows[] = {
        {10, "0", 10, 0, 10, 0, 1, 9}, /* one available pod may go */
        {10, "2", 10, 0, 10, 0, 1, 8},
        {10, "2", 10, 0, 8, 0, 1, 8}, /* the two unhealthy ones are cleaned up, nothing more */
        {10, "2", 10, 0, 9, 0, 2, 8}, /* one unhealthy cleaned up, then one available */
        {10, "2", 8, 2, 8, 0, 0, 8}, /* the new one's unavailable pods hold the old ones */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kp_workload d = rolling(rows[i].replicas, "0", rows[i].unavailable);
        int32_t spec[1] = {rows[i].old}, avail[1] = {rows[i].ready_old};
        kp_deploy_step steps[2];
        size_t n =
            kp__deploy_old_scale_down(&d, rows[i].nw, rows[i].ready_new, 1, spec, avail, steps);
        KT_CHECK_INT(n, rows[i].n_steps);
        KT_CHECK_INT(spec[0], rows[i].want_old);
        if (n) KT_CHECK_INT(steps[n - 1].to, rows[i].want_old);
    }
    /* two old ReplicaSets: the oldest loses its replicas first */
    kp_workload d = rolling(4, "1", "1");
    int32_t spec[2] = {2, 2}, avail[2] = {2, 2};
    kp_deploy_step steps[4];
    size_t n = kp__deploy_old_scale_down(&d, 1, 1, 2, spec, avail, steps);
    KT_CHECK_INT(n, 1);
    KT_CHECK_INT(spec[0], 0);
    KT_CHECK_INT(spec[1], 2);
    /* no old replicas: nothing */
    int32_t none[1] = {0}, zero[1] = {0};
    KT_CHECK_INT(kp__deploy_old_scale_down(&d, 4, 4, 1, none, zero, steps), 0);
}

static kp_deploy_status st(int32_t replicas, int32_t updated, int32_t ready, int32_t available) {
    kp_deploy_status s;
    memset(&s, 0, sizeof s);
    s.replicas = replicas;
    s.updated = updated;
    s.ready = ready;
    s.available = available;
    return s;
}

/* TestDeploymentComplete */
KT_TEST(deployment_complete) {
    kp_deploy_status s = st(5, 5, 5, 4);
    KT_CHECK(!kp__deploy_complete(5, &s)); /* min but not all pods available */
    s = st(5, 5, 5, 5);
    KT_CHECK(kp__deploy_complete(5, &s));
    s = st(5, 4, 5, 5);
    KT_CHECK(!kp__deploy_complete(5, &s)); /* all available but not updated */
    s = st(2, 1, 1, 1);
    KT_CHECK(!kp__deploy_complete(1, &s)); /* old pods still running */
    s = st(1, 1, 0, 0);
    KT_CHECK(!kp__deploy_complete(1, &s)); /* a one-replica Deployment never comes up */
}

/* TestDeploymentProgressing: more updated, fewer old, more ready or more available pods */
KT_TEST(deployment_progressing) {
    kp_deploy_status old = st(4, 2, 2, 2), nw = old;
    KT_CHECK(!kp__deploy_progressing(&old, &nw));
    nw = st(4, 3, 2, 2);
    KT_CHECK(kp__deploy_progressing(&old, &nw)); /* updated pods */
    nw = st(3, 2, 2, 2);
    KT_CHECK(kp__deploy_progressing(&old, &nw)); /* old pods scaled down */
    nw = st(4, 2, 3, 2);
    KT_CHECK(kp__deploy_progressing(&old, &nw)); /* ready pods */
    nw = st(4, 2, 2, 3);
    KT_CHECK(kp__deploy_progressing(&old, &nw)); /* available pods */
    nw = st(5, 2, 2, 2);
    KT_CHECK(!kp__deploy_progressing(&old, &nw)); /* more old pods: no progress */
}

/* TestDeploymentTimedOut: lastUpdateTime + progressDeadlineSeconds before now; no deadline,
 * NewReplicaSetAvailable never; ProgressDeadlineExceeded stays */
KT_TEST(deployment_timed_out) {
    const int64_t now = 1000;
    KT_CHECK(!kp__deploy_timed_out(10, KP_DEPLOY_RS_UPDATED, now - 9, now));
    KT_CHECK(!kp__deploy_timed_out(10, KP_DEPLOY_RS_UPDATED, now - 10, now));
    KT_CHECK(kp__deploy_timed_out(10, KP_DEPLOY_RS_UPDATED, now - 11, now));
    KT_CHECK(!kp__deploy_timed_out(INT32_MAX, KP_DEPLOY_RS_UPDATED, now - 11, now));
    KT_CHECK(!kp__deploy_timed_out(10, NULL, now - 11, now));
    KT_CHECK(!kp__deploy_timed_out(10, KP_DEPLOY_NEW_RS_AVAILABLE, now - 11, now));
    KT_CHECK(kp__deploy_timed_out(10, KP_DEPLOY_TIMED_OUT, now, now));
}

KT_MAIN(KT_CASE(resolve_fenceposts), KT_CASE(max_unavailable), KT_CASE(new_rs_replicas),
        KT_CASE(old_scale_down), KT_CASE(deployment_complete), KT_CASE(deployment_progressing),
        KT_CASE(deployment_timed_out))
