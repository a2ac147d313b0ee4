/* The StatefulSet controller (src/ctrl/statefulset.c) through kp_ctrl_statefulset_sync, with
 * cases from upstream's pkg/controller/statefulset/stateful_set_control_test.go: CreatesPods and
 * ScalesUp (OrderedReady: one ordinal at a time, each once the one before runs; Parallel: all at
 * once), ScalesDown (the highest ordinal first; OrderedReady one at a time), RecreatesFailedPod
 * (a Failed pod is deleted and made again under its name), spec.ordinals.start; rolling updates
 * (TestStatefulSetControlRollingUpdate, ...WithPartition, ...OnDelete, ...WithMaxUnavailable):
 * a patched template is a new revision, rolled out from the highest ordinal down. */
#include "core/cluster.h"
#include "core/workload_ctrl.h"
#include "ctrl_case.h"
#include "harness.h"
#include "kprio/update.h"

#define STS(name, spec) CC_WL("apps/v1", "StatefulSet", name, spec)

static kp_status run(kp_ctrl *c, kp_cluster *cl, const char *name, cc_rec *r) {
    kp_ctrl_sink s = cc_sink(r, cl);
    kp_error err;
    return kp_ctrl_statefulset_sync(c, cc_workload(cl, "StatefulSet", name), 0, &s, &err);
}

/* CreatesPods, OrderedReady: web-0 first; nothing more while it is not running and ready
 * (kprio: bound); with web-0 running (the snapshot's) web-1 next. */
KT_TEST(ordered_ready_creates_one_at_a_time) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 3\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[0]), "web-0");
    KT_CHECK_STR(r.events[0], "SuccessfulCreate create Pod web-0 in StatefulSet web successful");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 0); /* web-0 pending: wait */
    kp_ctrl_free(c);
    kp_cluster_free(cl);

    cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 3\n")
                     CC_POD("web-0", "StatefulSet", "web", "n1", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    c = kp_ctrl_new(cl);
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    if (r.n_created) KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[0]), "web-1");
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* CreatesPods, Parallel: every ordinal at once; spec.ordinals.start shifts them */
KT_TEST(parallel_creates_all) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS(
        "db", "  replicas: 3\n  podManagementPolicy: Parallel\n  ordinals: {start: 5}\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(run(c, cl, "db", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 3);
    if (r.n_created == 3) {
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[0]), "db-5");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[1]), "db-6");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[2]), "db-7");
    }
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

#define THREE_RUNNING(set)                                \
    CC_POD(set "-0", "StatefulSet", set, "n1", "Running") \
    CC_POD(set "-1", "StatefulSet", set, "n1", "Running") \
    CC_POD(set "-2", "StatefulSet", set, "n1", "Running")

/* ScalesDown: 3 running, replicas 1. OrderedReady: web-2 only ("delete Pod web-2 in StatefulSet
 * web successful"), and nothing more while it terminates; Parallel: web-2 then web-1 at once. */
KT_TEST(scales_down) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 1\n") THREE_RUNNING(
        "web") STS("par", "  replicas: 1\n  podManagementPolicy: Parallel\n") THREE_RUNNING("par"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 1);
    KT_CHECK_INT(r.n_created, 0);
    if (r.n_deleting) KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "web-2");
    KT_CHECK_STR(r.events[0], "SuccessfulDelete delete Pod web-2 in StatefulSet web successful");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 0); /* web-2 still terminating: wait */
    KT_CHECK_INT(run(c, cl, "par", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    if (r.n_deleting == 2) {
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "par-2");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[1]), "par-1");
    }
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* RecreatesFailedPod: web-0 Failed: deleted (no event), then made again under its name, the new
 * pod replacing the old one */
KT_TEST(recreates_failed_pod) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 1\n")
                                 CC_POD("web-0", "StatefulSet", "web", "n1", "Failed"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index old = cc_pod(cl, "web-0");
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleted, 1);
    KT_CHECK_INT(r.deleted[0], old);
    KT_CHECK_INT(r.n_created, 1);
    KT_CHECK(r.n_created && r.created[0] != old);
    KT_CHECK_INT(cc_pod(cl, "web-0"), r.created[0]);
    KT_CHECK_INT(r.replaces[0], old);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* scaleUpStatefulSetControl's loop (stateful_set_control_test.go): each pod is set Running, then
 * Ready, before the next ordinal comes; a Running pod that is not Ready (isRunningAndReady false)
 * holds the ordinals above it, and holds a scale-down (processCondemned waits on an unhealthy
 * pod). */
KT_TEST(ordered_ready_waits_for_ready) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 3\n")
                                 CC_POD("web-0", "StatefulSet", "web", "n1",
                                        "Running, conditions: [{type: Ready, status: 'False'}]"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_error err;
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 0); /* web-0 runs but is not Ready */
    kp_index w0 = kp_cluster_find_pod(cl, "default/web-0");
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, w0, true, 1704067300, &err), KP_OK);
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    if (r.n_created) KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[0]), "web-1");
    kp_ctrl_free(c);
    kp_cluster_free(cl);

    /* scale down 2 -> 1 while web-0 is not Ready: web-1 waits */
    cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 1\n")
                     CC_POD("web-0", "StatefulSet", "web", "n1",
                            "Running, conditions: [{type: Ready, status: 'False'}]")
                         CC_POD("web-1", "StatefulSet", "web", "n1", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    c = kp_ctrl_new(cl);
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_events, 0);
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, kp_cluster_find_pod(cl, "default/web-0"), true,
                                          1704067300, &err),
                 KP_OK);
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_events, 1);
    if (r.n_events)
        KT_CHECK_STR(r.events[0],
                     "SuccessfulDelete delete Pod web-1 in StatefulSet web successful");
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* ---------------------------------------------------------------- rolling updates */

#define IMAGE2 \
    "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"v2\"}]}}}}"
#define READY_POD(set, i) CC_POD(set "-" #i, "StatefulSet", set, "n1", "Running")

static void patch_template(kp_cluster *cl, const char *name) {
    kp_update_result u;
    kp_error err;
    KT_CHECK_INT(
        kp_cluster_patch(cl, "StatefulSet", "default", name, "", IMAGE2, strlen(IMAGE2), &u, &err),
        KP_OK);
    KT_CHECK(u.template_changed);
}

/* pod NAME of set w is at its update revision (carries its controller-revision-hash) */
static bool updated(const kp_cluster *cl, const char *set, const char *name) {
    kp_index w = cc_workload(cl, "StatefulSet", set), p = cc_pod(cl, name);
    if (w < 0 || p < 0) return false;
    return kp__pod_at_revision(cl, &cl->pods[p], &cl->workloads[w], cl->workloads[w].tmpl_rev);
}

/* the terminating pod NAME goes; its successor is made, bound and Ready */
static kp_index replace(kp_ctrl *c, kp_cluster *cl, const char *set, const char *name) {
    cc_rec r;
    kp_error err;
    KT_CHECK_INT(kp_cluster_delete_pod(cl, cc_pod(cl, name), &err), KP_OK);
    KT_CHECK_INT(run(c, cl, set, &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    if (r.n_created != 1) return -1;
    KT_CHECK_STR(kp_cluster_pod_name(cl, r.created[0]), name);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, r.created[0], 0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, r.created[0], true, 1704067300, &err), KP_OK);
    return r.created[0];
}

/* TestStatefulSetControlRollingUpdate: the template changes; the highest ordinal goes first
 * ("delete Pod web-2 ..."), nothing more while it terminates; its successor carries the update
 * revision; once it is Ready web-1 goes, then web-0; with every pod updated and Ready the
 * current revision is the update revision (completeRollingUpdate). */
KT_TEST(rolling_update_reverse_ordinal) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS("web", "  replicas: 3\n") READY_POD("web", 0)
                                 READY_POD("web", 1) READY_POD("web", 2));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created + r.n_deleting, 0); /* as loaded: nothing to roll */
    patch_template(cl, "web");
    KT_CHECK(!updated(cl, "web", "web-2"));
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 1);
    if (r.n_events)
        KT_CHECK_STR(r.events[0],
                     "SuccessfulDelete delete Pod web-2 in StatefulSet web successful");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0); /* web-2 terminating */
    replace(c, cl, "web", "web-2");
    KT_CHECK(updated(cl, "web", "web-2"));
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 1);
    if (r.n_deleting) KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "web-1");
    replace(c, cl, "web", "web-1");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    if (r.n_deleting) KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "web-0");
    kp_index w = cc_workload(cl, "StatefulSet", "web");
    KT_CHECK(cl->workloads[w].cur_rev != cl->workloads[w].tmpl_rev);
    replace(c, cl, "web", "web-0");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    KT_CHECK(cl->workloads[w].cur_rev == cl->workloads[w].tmpl_rev);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestStatefulSetControlRollingUpdateWithPartition: partition 2 of 3: only web-2 is updated;
 * web-0, deleted by someone else, comes back at the current revision (newVersionedStatefulSetPod)
 */
KT_TEST(rolling_update_partition) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS(
        "web", "  replicas: 3\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: "
               "2}}\n") READY_POD("web", 0) READY_POD("web", 1) READY_POD("web", 2));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_error err;
    patch_template(cl, "web");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 1);
    if (r.n_deleting) KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "web-2");
    replace(c, cl, "web", "web-2");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0); /* below the partition: kept */
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, cc_pod(cl, "web-0"), 1704067300, NULL, &err),
                 KP_OK);
    replace(c, cl, "web", "web-0");
    KT_CHECK(!updated(cl, "web", "web-0"));
    KT_CHECK(updated(cl, "web", "web-2"));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestStatefulSetControlOnDelete: nothing is deleted for the update; a pod deleted by someone
 * else comes back at the update revision */
KT_TEST(rolling_update_on_delete) {
    kp_cluster *cl =
        cc_load(CC_NODE("n1", "") STS("web", "  replicas: 2\n  updateStrategy: {type: OnDelete}\n")
                    READY_POD("web", 0) READY_POD("web", 1));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    patch_template(cl, "web");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    replace(c, cl, "web", "web-0");
    KT_CHECK(updated(cl, "web", "web-0"));
    KT_CHECK(!updated(cl, "web", "web-1"));
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestStatefulSetControlRollingUpdateWithMaxUnavailable (MaxUnavailableStatefulSet, on by
 * default since v1.35): maxUnavailable 2, Parallel: web-2 and web-1 go at once; with one of
 * them back and not Ready yet, unavailable 2 holds the rest */
KT_TEST(rolling_update_max_unavailable) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") STS(
        "web", "  replicas: 3\n  podManagementPolicy: Parallel\n  updateStrategy: {type: "
               "RollingUpdate, rollingUpdate: {maxUnavailable: 2}}\n") READY_POD("web", 0)
                                 READY_POD("web", 1) READY_POD("web", 2));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_error err;
    patch_template(cl, "web");
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    if (r.n_deleting == 2) {
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "web-2");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[1]), "web-1");
    }
    KT_CHECK_INT(kp_cluster_delete_pod(cl, cc_pod(cl, "web-2"), &err), KP_OK);
    KT_CHECK_INT(run(c, cl, "web", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1); /* web-2 again, pending; web-1 terminating */
    KT_CHECK_INT(r.n_deleting, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(ordered_ready_creates_one_at_a_time), KT_CASE(ordered_ready_waits_for_ready),
        KT_CASE(parallel_creates_all), KT_CASE(scales_down), KT_CASE(recreates_failed_pod),
        KT_CASE(rolling_update_reverse_ordinal), KT_CASE(rolling_update_partition),
        KT_CASE(rolling_update_on_delete), KT_CASE(rolling_update_max_unavailable))
