/* The ReplicaSet controller (src/ctrl/replicaset.c) through kp_ctrl_replicaset_sync and the
 * manager's queue, with cases from upstream's pkg/controller/replicaset/replica_set_test.go:
 * TestSyncReplicaSetCreates, TestSyncReplicaSetDoesNothing, TestSyncReplicaSetDeletes (and
 * getPodsToDelete's ranking), TestSyncReplicaSetCreateFailures, a ReplicationController, and the
 * manager: a lost pod queues its controller, whose replacement links to it. */
#include "ctrl_case.h"
#include "harness.h"

#define RS(name, replicas) CC_WL("apps/v1", "ReplicaSet", name, "  replicas: " #replicas "\n")

/* TestSyncReplicaSetCreates: no pods, 2 replicas: 2 created, named NAME-xxxxx, owned by it */
KT_TEST(sync_creates) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") RS("foo", 2));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    kp_index rs = cc_workload(cl, "ReplicaSet", "foo");
    KT_CHECK_INT(kp_ctrl_replicaset_sync(c, rs, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK_INT(r.n_deleting + r.n_deleted, 0);
    KT_CHECK_INT(cc_count(&r, "SuccessfulCreate Created pod: foo-"), 2);
    for (int i = 0; i < r.n_created; i++) {
        KT_CHECK_INT(kp_cluster_pod_workload(cl, r.created[i]), rs);
        KT_CHECK_INT(r.replaces[i], -1); /* a scale-up */
        KT_CHECK(strncmp(kp_cluster_pod_name(cl, r.created[i]), "foo-", 4) == 0);
        KT_CHECK_INT(strlen(kp_cluster_pod_name(cl, r.created[i])), 9); /* foo- + 5 */
    }
    KT_CHECK(r.n_created == 2 && r.created[0] != r.created[1]);
    /* a second sync: the pods are there */
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_replicaset_sync(c, rs, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created + r.n_events, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestSyncReplicaSetDoesNothing: as many active pods as replicas */
KT_TEST(sync_does_nothing) {
    kp_cluster *cl =
        cc_load(CC_NODE("n1", "") RS("foo", 2) CC_POD("foo-a", "ReplicaSet", "foo", "n1", "Running")
                    CC_POD("foo-b", "ReplicaSet", "foo", "", "Pending"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created + r.n_deleting + r.n_deleted + r.n_events, 0);
    KT_CHECK(!kp_ctrl_queued(c));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestSyncReplicaSetDeletes with getPodsToDelete's ranking: 1 replica, 3 pods: the unassigned
 * pod goes first, then the newer of the two assigned ones; each with SuccessfulDelete "Deleted
 * pod: NAME", a running one marked terminating (deletionTimestamp) and left to the runner. */
KT_TEST(sync_deletes_ranked) {
    kp_cluster *cl =
        cc_load(CC_NODE("n1", "") RS("foo", 1) CC_POD("foo-a", "ReplicaSet", "foo", "n1", "Running")
                    CC_POD("foo-b", "ReplicaSet", "foo", "n1", "Running")
                        CC_POD("foo-c", "ReplicaSet", "foo", "", "Pending"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_ctrl_set_epoch(c, 1000);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_replicaset_sync(c, cc_workload(cl, "ReplicaSet", "foo"), 5000, &s, &err),
                 KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    KT_CHECK_INT(r.n_deleting, 2);
    if (r.n_deleting == 2) {
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[0]), "foo-c");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r.deleting[1]), "foo-b");
    }
    KT_CHECK(cc_pod(cl, "foo-c") < 0); /* on no node: deleted at once */
    KT_CHECK_INT(r.n_events, 2);
    KT_CHECK_STR(r.events[0], "SuccessfulDelete Deleted pod: foo-c");
    KT_CHECK_STR(r.events[1], "SuccessfulDelete Deleted pod: foo-b");
    kp_pod_info pi;
    kp_cluster_pod_info(cl, cc_pod(cl, "foo-b"), &pi);
    KT_CHECK_INT(pi.deletion_ts, 1005); /* epoch + now */
    kp_cluster_pod_info(cl, cc_pod(cl, "foo-a"), &pi);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET); /* the oldest assigned pod stays */
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* The manager: a pod that stops being active queues its ReplicaSet; the replacement names the
 * lost pod (the cause of its SuccessfulCreate); a new pod the controller expected queues
 * nothing. */
KT_TEST(lost_pod_replaced) {
    kp_cluster *cl =
        cc_load(CC_NODE("n1", "") RS("foo", 2) CC_POD("foo-a", "ReplicaSet", "foo", "n1", "Running")
                    CC_POD("foo-b", "ReplicaSet", "foo", "n1", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK(!kp_ctrl_queued(c));
    kp_index a = cc_pod(cl, "foo-a");
    KT_CHECK_INT(kp_cluster_finish_pod(cl, a, KP_POD_PHASE_FAILED, "Evicted", "gone", &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_pod_changed(c, a, 1000), KP_OK);
    KT_CHECK(kp_ctrl_queued(c));
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 1000, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    KT_CHECK_INT(r.replaces[0], a);
    KT_CHECK_INT(r.event_cause[0], a);
    /* the runner reports the new pod: expected, nothing queued */
    KT_CHECK_INT(kp_ctrl_pod_changed(c, r.created[0], 1000), KP_OK);
    KT_CHECK(!kp_ctrl_queued(c));
    /* replaced once: a later sync makes no second replacement linked to it */
    KT_CHECK_INT(kp_ctrl_workload_changed(c, cc_workload(cl, "ReplicaSet", "foo")), KP_OK);
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 2000, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestSyncReplicaSetCreateFailures: a pod the API server refuses (its PriorityClass does not
 * exist): Warning FailedCreate with the refusal, no pod; the next sync tries again. */
KT_TEST(create_failure) {
    kp_cluster *cl = cc_load(
        CC_NODE("n1", "") "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: foo, "
                          "namespace: default}\nspec:\n  replicas: 1\n  selector: {matchLabels: "
                          "{app: foo}}\n  template:\n    metadata: {labels: {app: foo}}\n    "
                          "spec:\n      priorityClassName: nope\n      containers: [{name: c, "
                          "image: x}]\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    KT_CHECK_INT(r.n_events, 1);
    KT_CHECK_INT(cc_count(&r, "W FailedCreate "), 1);
    KT_CHECK(strstr(r.events[0], "nope") != NULL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* A ReplicationController runs through the same controller (replication_controller.go) */
KT_TEST(replication_controller) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") "---\napiVersion: v1\nkind: "
                                               "ReplicationController\nmetadata: {name: rc, "
                                               "namespace: default}\nspec:\n  replicas: 3\n  "
                                               "selector: {app: rc}\n  template:\n    metadata: "
                                               "{labels: {app: rc}}\n    spec:\n      "
                                               "containers: [{name: c, image: x}]\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    kp_index rc = cc_workload(cl, "ReplicationController", "rc");
    KT_CHECK_INT(kp_ctrl_replicaset_sync(c, rc, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 3);
    KT_CHECK_INT(cc_count(&r, "SuccessfulCreate Created pod: rc-"), 3);
    /* scaled to 1: the two newest (all unassigned) go */
    KT_CHECK_INT(kp_cluster_workload_scale(cl, rc, 1, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_workload_scaled(c, rc, 0, &s, &err), KP_OK);
    KT_CHECK(kp_ctrl_queued(c));
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    /* not a ReplicaSet: refused */
    KT_CHECK_INT(kp_ctrl_replicaset_sync(c, -1, 0, &s, &err), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* ClaimPods: an orphan (no controller reference) the selector selects is adopted and counts
 * (2 replicas: one creation); one of another namespace, or being deleted, is not */
KT_TEST(orphans_adopted) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") RS(
        "foo",
        2) "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o1, namespace: default, labels: {app: "
           "foo}}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\n"
           "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o2, namespace: other, labels: {app: "
           "foo}}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\n"
           "---\napiVersion: v1\nkind: Pod\nmetadata: {name: o3, namespace: default, labels: {app: "
           "foo}, deletionTimestamp: '2024-01-01T00:00:00Z'}\nspec: {nodeName: n1, containers: "
           "[{name: c, image: x}]}\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(sync_creates), KT_CASE(sync_does_nothing), KT_CASE(sync_deletes_ranked),
        KT_CASE(lost_pod_replaced), KT_CASE(create_failure), KT_CASE(replication_controller),
        KT_CASE(orphans_adopted))
