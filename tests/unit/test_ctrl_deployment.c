/* The Deployment controller (src/ctrl/deployment.c) through kp_ctrl_deployment_sync,
 * kp_ctrl_workload_scaled and the manager, with cases from upstream's pkg/controller/deployment
 * tests: TestSyncDeploymentCreatesReplicaSet (deployment_controller_test.go: a Deployment without
 * a ReplicaSet gets one, its pods follow), TestScale (sync_test.go: the ReplicaSet follows the
 * Deployment's replicas up and down), a Deployment that has its ReplicaSet does nothing, and the
 * garbage collector's cascade (a deleted Deployment takes its ReplicaSet and pods). */
#include "ctrl_case.h"
#include "harness.h"

#define DEPLOY(name, replicas) CC_WL("apps/v1", "Deployment", name, "  replicas: " #replicas "\n")

static bool has_label(const kp_cluster *cl, kp_index pod, const char *key) {
    char *none[] = {NULL};
    kp_selector_req r = {(char *)key, (char *)"Exists", none, 0};
    return kp_cluster_pod_matches(cl, pod, &r, 1);
}

/* TestSyncDeploymentCreatesReplicaSet: the new ReplicaSet NAME-HASH at the Deployment's
 * replicas, controlled by it, ScalingReplicaSet "Scaled up replica set NAME-HASH from 0 to 3";
 * the ReplicaSet then syncs in the same kp_ctrl_sync and makes 3 pods NAME-HASH-xxxxx labelled
 * with pod-template-hash. */
KT_TEST(creates_replicaset) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") DEPLOY("web", 3));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    kp_index d = cc_workload(cl, "Deployment", "web");
    size_t n0 = kp_cluster_workload_count(cl);
    KT_CHECK_INT(kp_ctrl_deployment_sync(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_workload_count(cl), n0 + 1);
    kp_workload_info ri;
    KT_CHECK_INT(kp_cluster_workload_info(cl, (kp_index)n0, &ri), KP_OK);
    KT_CHECK_STR(ri.kind, "ReplicaSet");
    KT_CHECK_STR(ri.owner_kind, "Deployment");
    KT_CHECK_STR(ri.owner_name, "web");
    KT_CHECK_INT(ri.replicas, 3);
    KT_CHECK(strncmp(ri.name, "web-", 4) == 0 && strlen(ri.name) > 4);
    char want[300];
    snprintf(want, sizeof want, "ScalingReplicaSet Scaled up replica set %s from 0 to 3", ri.name);
    KT_CHECK_INT(r.n_events, 1);
    KT_CHECK_STR(r.events[0], want);
    KT_CHECK_INT(r.n_created, 0); /* the ReplicaSet's controller makes the pods */
    KT_CHECK(kp_ctrl_queued(c));
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 3);
    for (int i = 0; i < r.n_created; i++) {
        KT_CHECK_INT(kp_cluster_pod_workload(cl, r.created[i]), (kp_index)n0);
        KT_CHECK(strncmp(kp_cluster_pod_name(cl, r.created[i]), ri.name, strlen(ri.name)) == 0);
        KT_CHECK(has_label(cl, r.created[i], "pod-template-hash"));
    }
    /* synced again: the Deployment has its ReplicaSet, nothing new */
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_deployment_sync(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_workload_count(cl), n0 + 1);
    KT_CHECK_INT(r.n_events + r.n_created, 0);
    KT_CHECK_INT(kp_ctrl_deployment_sync(c, (kp_index)n0, 0, &s, &err), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestScale: the Deployment scaled up then down: its ReplicaSet follows at once with
 * ScalingReplicaSet "Scaled up/down replica set NAME from A to B"; the ReplicaSet syncs. */
KT_TEST(scale_follows) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") DEPLOY(
        "web", 2) "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: "
                  "{name: web-abc, namespace: default, ownerReferences: "
                  "[{apiVersion: apps/v1, kind: Deployment, name: web, "
                  "uid: u-web, controller: true}]}\nspec:\n  replicas: "
                  "2\n  selector: {matchLabels: {app: web}}\n  "
                  "template:\n    metadata: {labels: {app: web}}\n    "
                  "spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: "
                  "10m}}}]\n" CC_POD("web-abc-1", "ReplicaSet", "web-abc", "n1", "Running")
                                 CC_POD("web-abc-2", "ReplicaSet", "web-abc", "n1", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    kp_index d = cc_workload(cl, "Deployment", "web"),
             rs = cc_workload(cl, "ReplicaSet", "web-abc");
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_events + r.n_created, 0); /* has its ReplicaSet: nothing */
    KT_CHECK_INT(kp_cluster_workload_scale(cl, d, 5, &err), KP_OK);
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_workload_scaled(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_events, 1);
    KT_CHECK_STR(r.events[0], "ScalingReplicaSet Scaled up replica set web-abc from 2 to 5");
    kp_workload_info ri;
    kp_cluster_workload_info(cl, rs, &ri);
    KT_CHECK_INT(ri.replicas, 5);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 3);
    KT_CHECK_INT(kp_cluster_workload_scale(cl, d, 1, &err), KP_OK);
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_workload_scaled(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_STR(r.events[0], "ScalingReplicaSet Scaled down replica set web-abc from 5 to 1");
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_deleting, 4);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* The garbage collector's background cascade: the Deployment, its ReplicaSet and its pods go;
 * the pods without an event; a second delete is a no-op; a deleted ReplicaSet makes no pods. */
KT_TEST(cascading_delete) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") DEPLOY("web", 2));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    kp_index d = cc_workload(cl, "Deployment", "web");
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    kp_index rs = kp_cluster_pod_workload(cl, r.created[0]);
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_delete_workload(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    KT_CHECK_INT(r.n_events, 0);
    kp_workload_info wi;
    kp_cluster_workload_info(cl, d, &wi);
    KT_CHECK(wi.deleted);
    kp_cluster_workload_info(cl, rs, &wi);
    KT_CHECK(wi.deleted);
    KT_CHECK(kp_ctrl_workload_done(c, rs));
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_delete_workload(c, d, 0, &s, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_workload_changed(c, rs), KP_OK);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created + r.n_events, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* DeploymentController.scale at a sync: the Deployment's ReplicaSet takes spec.replicas less the
 * active pods of its older ReplicaSets (here one the snapshot lacks, web-old, named after the
 * Deployment), with ScalingReplicaSet; the ReplicaSet then makes the pods it lacks. */
KT_TEST(sync_scales_replicaset) {
    kp_cluster *cl = cc_load(CC_NODE("n1", "") DEPLOY(
        "web",
        5) "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-abc, namespace: "
           "default, uid: u-abc, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: "
           "web, "
           "uid: u-web, controller: true}]}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: "
           "web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: "
           "c, image: x, resources: {requests: {cpu: 10m}}}]}\n" CC_POD("web-abc-1", "ReplicaSet",
                                                                        "web-abc", "n1", "Running")
                                 CC_POD("web-abc-2", "ReplicaSet", "web-abc", "n1", "Running")
                                     CC_POD("web-old-1", "ReplicaSet", "web-old", "n1", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    kp_workload_info ri;
    KT_CHECK_INT(kp_cluster_workload_info(cl, cc_workload(cl, "ReplicaSet", "web-abc"), &ri),
                 KP_OK);
    KT_CHECK_INT(ri.replicas, 4); /* 5 - web-old-1 */
    KT_CHECK_INT(cc_count(&r, "ScalingReplicaSet Scaled up replica set web-abc from 2 to 4"), 1);
    KT_CHECK_INT(r.n_created, 2);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* clang-format off */
#define RPOD(name, owner_kind, owner, cond)                                                     \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default, "            \
    "labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: " owner_kind ", name: "  \
    owner ", uid: u-" owner ", controller: true}]}\n"                                          \
    "spec: {nodeName: n1, containers: [{name: c}]}\nstatus: {phase: Running, conditions: [" cond "]}\n"
#define READY_AT(t) "{type: Ready, status: 'True', lastTransitionTime: '2024-01-01T00:00:" t "Z'}"
/* clang-format on */

/* calculateStatus (replica_set_utils.go) and the deployment's sums (GetReadyReplicaCountFor-
 * ReplicaSets, GetAvailableReplicaCountForReplicaSets), the rows of TestCalculateStatus and of
 * IsPodAvailable: with minReadySeconds 10 at 00:00:30, a pod Ready since 00:00:10 is available, one
 * Ready since 00:00:25 is ready only, one not Ready neither, one being deleted is not counted; a
 * Job's status.ready counts its active Ready pods. */
KT_TEST(replica_status_ready_available) {
    const char *y = CC_NODE(
        "n1",
        "") "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default, "
            "uid: u-web}\nspec: {replicas: 3, minReadySeconds: 10, selector: {matchLabels: {app: "
            "web}}}\n"
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-1, namespace: "
            "default, "
            "uid: u-web-1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, "
            "uid: "
            "u-web, controller: true}]}\nspec: {replicas: 3, selector: {matchLabels: {app: web}}}\n"
            "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default, uid: "
            "u-j}\n"
            "spec: {parallelism: 2, template: {spec: {containers: [{name: c}]}}}\n" RPOD(
                "a", "ReplicaSet", "web-1", READY_AT("10"))
                RPOD("b", "ReplicaSet", "web-1", READY_AT("25"))
                    RPOD("c", "ReplicaSet", "web-1", "{type: Ready, status: 'False'}")
                        RPOD("j1", "Job", "j", READY_AT("25"))
                            RPOD("j2", "Job", "j", "{type: Ready, status: 'False'}");
    kp_cluster *cl = cc_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    const int64_t t30 = 1704067230;
    kp_replica_status rs;
    KT_CHECK_INT(kp_ctrl_workload_status(c, cc_workload(cl, "ReplicaSet", "web-1"), t30, &rs),
                 KP_OK);
    KT_CHECK_INT(rs.replicas, 3);
    KT_CHECK_INT(rs.ready, 2);
    KT_CHECK_INT(rs.available, 2); /* the ReplicaSet's own minReadySeconds: 0 */
    kp_index d = cc_workload(cl, "Deployment", "web");
    KT_CHECK_INT(kp_ctrl_workload_status(c, d, t30, &rs), KP_OK);
    KT_CHECK_INT(rs.replicas, 3);
    KT_CHECK_INT(rs.ready, 2);
    KT_CHECK_INT(rs.available, 1);
    KT_CHECK_INT(kp_ctrl_workload_status(c, d, t30 + 5, &rs), KP_OK);
    KT_CHECK_INT(rs.available, 2); /* 00:00:25 + 10 s <= 00:00:35 */
    kp_error err;
    KT_CHECK_INT(
        kp_cluster_mark_terminating(cl, kp_cluster_find_pod(cl, "default/a"), t30, NULL, &err),
        KP_OK);
    KT_CHECK_INT(kp_ctrl_workload_status(c, d, t30 + 5, &rs), KP_OK);
    KT_CHECK_INT(rs.replicas, 2);
    KT_CHECK_INT(rs.available, 1);
    KT_CHECK_INT(kp_ctrl_workload_status(c, cc_workload(cl, "Job", "j"), t30, &rs), KP_OK);
    KT_CHECK_INT(rs.replicas, 2);
    KT_CHECK_INT(rs.ready, 1);
    KT_CHECK_INT(kp_ctrl_workload_status(c, -1, t30, &rs), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(creates_replicaset), KT_CASE(replica_status_ready_available),
        KT_CASE(scale_follows), KT_CASE(cascading_delete), KT_CASE(sync_scales_replicaset))
