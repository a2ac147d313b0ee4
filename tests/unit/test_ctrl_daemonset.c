/* The DaemonSet controller (src/ctrl/daemonset.c) through kp_ctrl_daemonset_sync and the
 * manager, with cases from upstream's pkg/controller/daemon/daemon_controller_test.go:
 * TestSimpleDaemonSetLaunchesPods, TestNoNodesDoesNothing, TestDealsWithExistingPods (2 created,
 * 5 deleted), TestSelectorDaemonLaunchesPods, TestNodeNameDaemonLaunchesPods,
 * TestTaintedNodeDaemonDoesNotLaunchIntolerantPods, TestNotReadyNodeDaemonLaunchesPod (the
 * controller's tolerations), TestDaemonKillFailedPods (FailedDaemonPod, the failed pod deleted
 * and replaced), and a node change queueing every DaemonSet; and core's rule the controller and
 * --expand-workloads share (kp__daemon_should_run) against TestNodeShouldRunDaemonPod; rolling
 * updates from pkg/controller/daemon/update_test.go: TestDaemonSetUpdatesPods (maxUnavailable),
 * TestDaemonSetUpdatesPodsWithMaxSurge, TestDaemonSetUpdatesNoTemplateChanged, OnDelete. */
#include "core/cluster.h"
#include "core/node.h"
#include "core/workload_ctrl.h"
#include "ctrl_case.h"
#include "harness.h"
#include "kprio/update.h"

#define NODE_L(name, label)                                                              \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {" label "}}\n" \
    "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
#define FIVE_NODES        \
    CC_NODE("node-0", "") \
    CC_NODE("node-1", "") CC_NODE("node-2", "") CC_NODE("node-3", "") CC_NODE("node-4", "")
#define DS(name, tspec)                                                                    \
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: " name                    \
    ", namespace: default, uid: u-" name "}\nspec:\n  selector: {matchLabels: {app: " name \
    "}}\n  template:\n    metadata: {labels: {app: " name "}}\n    spec:\n" tspec          \
    "      containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]\n"

static int sync_ds(kp_ctrl *c, kp_cluster *cl, const char *name, cc_rec *r) {
    kp_ctrl_sink s = cc_sink(r, cl);
    kp_error err;
    return kp_ctrl_daemonset_sync(c, cc_workload(cl, "DaemonSet", name), 0, &s, &err);
}

/* the node each created pod targets, as a bit set over node indices */
static unsigned targets(const kp_cluster *cl, const cc_rec *r) {
    unsigned bits = 0;
    for (int i = 0; i < r->n_created; i++) {
        kp_index t = kp_cluster_pod_target_node(cl, r->created[i]);
        if (t >= 0 && t < 32) bits |= 1u << t;
    }
    return bits;
}

/* TestSimpleDaemonSetLaunchesPods, TestNoNodesDoesNothing */
KT_TEST(launches_one_per_node) {
    kp_cluster *cl = cc_load(FIVE_NODES DS("foo", ""));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 5);
    KT_CHECK_INT(targets(cl, &r), 0x1f);
    KT_CHECK_INT(cc_count(&r, "SuccessfulCreate Created pod: foo-"), 5);
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK); /* each node has its pod */
    KT_CHECK_INT(r.n_created + r.n_deleting, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
    cl = cc_load(DS("foo", ""));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    c = kp_ctrl_new(cl);
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created + r.n_deleting + r.n_events, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

#define DSPOD(name, node) CC_POD(name, "DaemonSet", "foo", node, "Running")

/* TestDealsWithExistingPods: node-1 has 1 pod, node-2 2, node-3 5, node-4 2 of another
 * DaemonSet: pods for node-0 and node-4 (2 created), the extra ones deleted (1 + 4 = 5), the
 * oldest kept */
KT_TEST(deals_with_existing_pods) {
    kp_cluster *cl = cc_load2(FIVE_NODES DS("foo", "") DS("bar", "") DSPOD("a1", "node-1")
                                  DSPOD("b1", "node-2") DSPOD("b2", "node-2"),
                              DSPOD("c1", "node-3") DSPOD("c2", "node-3") DSPOD("c3", "node-3")
                                  DSPOD("c4", "node-3") DSPOD("c5", "node-3")
                                      CC_POD("x1", "DaemonSet", "bar", "node-4", "Running")
                                          CC_POD("x2", "DaemonSet", "bar", "node-4", "Running"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK_INT(targets(cl, &r), (1u << kp_cluster_find_node(cl, "node-0")) |
                                      (1u << kp_cluster_find_node(cl, "node-4")));
    KT_CHECK_INT(r.n_deleting, 5);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, cc_pod(cl, "a1"), &pi);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET);
    kp_cluster_pod_info(cl, cc_pod(cl, "b1"), &pi); /* same age: the name decides */
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET);
    kp_cluster_pod_info(cl, cc_pod(cl, "c1"), &pi);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET);
    kp_cluster_pod_info(cl, cc_pod(cl, "c5"), &pi);
    KT_CHECK(pi.deletion_ts != KP_TIME_UNSET);
    kp_cluster_pod_info(cl, cc_pod(cl, "x2"), &pi); /* not its pod */
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestSelectorDaemonLaunchesPods, TestNodeNameDaemonLaunchesPods */
KT_TEST(selector_and_node_name) {
    kp_cluster *cl = cc_load(CC_NODE("node-0", "") CC_NODE("node-1", "") NODE_L("node-2", "z: b")
                                 NODE_L("node-3", "z: b") DS("sel", "      nodeSelector: {z: b}\n")
                                     DS("named", "      nodeName: node-1\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "sel", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK_INT(targets(cl, &r), (1u << 2) | (1u << 3));
    KT_CHECK_INT(sync_ds(c, cl, "named", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    KT_CHECK_INT(targets(cl, &r), 1u << 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestTaintedNodeDaemonDoesNotLaunchIntolerantPods, TestNotReadyNodeDaemonLaunchesPod: a
 * NoSchedule taint the template does not tolerate keeps the pod off; not-ready NoExecute is
 * among the controller's tolerations; a tolerating template runs there */
KT_TEST(taints_and_tolerations) {
    kp_cluster *cl = cc_load(
        CC_NODE("tainted", "spec: {taints: [{key: k, value: v, effect: NoSchedule}]}\n")
            CC_NODE("notready",
                    "spec: {taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]}\n")
                DS("plain", "") DS("tol", "      tolerations: [{key: k, operator: Exists}]\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "plain", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 1);
    KT_CHECK_INT(targets(cl, &r), 1u << kp_cluster_find_node(cl, "notready"));
    KT_CHECK_INT(sync_ds(c, cl, "tol", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestDaemonKillFailedPods: a Failed daemon pod: Warning FailedDaemonPod "Found failed daemon pod
 * default/NAME on node NODE, will try to kill it", SuccessfulDelete, deleted at once; the next
 * sync makes its replacement, linked to it. A Succeeded one: Normal SucceededDaemonPod. */
KT_TEST(kills_failed_pods) {
    kp_cluster *cl = cc_load(CC_NODE("node-0", "") CC_NODE("node-1", "") DS("foo", "")
                                 CC_POD("f1", "DaemonSet", "foo", "node-0", "Failed")
                                     CC_POD("s1", "DaemonSet", "foo", "node-1", "Succeeded"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index f1 = cc_pod(cl, "f1");
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    KT_CHECK_INT(r.n_deleted, 2);
    KT_CHECK_INT(r.n_events, 4);
    KT_CHECK_STR(r.events[0],
                 "W FailedDaemonPod Found failed daemon pod default/f1 on node node-0, will try to "
                 "kill it");
    KT_CHECK_STR(r.events[1], "SuccessfulDelete Deleted pod: f1");
    KT_CHECK_STR(r.events[2], "SucceededDaemonPod Found succeeded daemon pod default/s1 on node "
                              "node-1, will try to delete it");
    KT_CHECK_INT(r.event_cause[0], f1);
    KT_CHECK(kp_ctrl_queued(c)); /* its pods are gone: it looks again */
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK(r.n_created == 2 && (r.replaces[0] == f1 || r.replaces[1] == f1));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* A node change queues every DaemonSet (and nothing else); a pod that should no longer run on a
 * node (an untolerated NoExecute taint) is deleted */
KT_TEST(node_changed) {
    kp_cluster *cl = cc_load(CC_NODE("node-0", "") DS("foo", "") DS("bar", "")
                                 CC_WL("apps/v1", "ReplicaSet", "rs", "  replicas: 0\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK(!kp_ctrl_queued(c));
    kp_index n0 = kp_cluster_find_node(cl, "node-0");
    KT_CHECK_INT(kp_cluster_node_taint(cl, n0, "k", "v", "NoExecute", &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_node_changed(c, n0), KP_OK);
    KT_CHECK(kp_ctrl_queued(c));
    s = cc_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    KT_CHECK_INT(cc_count(&r, "SuccessfulDelete Deleted pod: "), 2);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

#define ZNODE(name, extra)                                                                   \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {zone: a}}\n" extra \
    "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
#define TAINT(key, effect) "spec: {taints: [{key: " key ", value: v, effect: " effect "}]}\n"

static const char *SHOULD_CLUSTER = ZNODE("plain", "") ZNODE("nosched", TAINT("k", "NoSchedule"))
    ZNODE("noexec", TAINT("k", "NoExecute"))
        ZNODE("cordoned", "spec: {unschedulable: true, taints: "
                          "[{key: node.kubernetes.io/"
                          "unschedulable, effect: NoSchedule}]}\n")
            ZNODE("pressure", TAINT("node.kubernetes.io/memory-pressure", "NoSchedule"))
                ZNODE("nonet", TAINT("node.kubernetes.io/network-unavailable", "NoSchedule"))
                    ZNODE("notready", TAINT("node.kubernetes.io/not-ready", "NoExecute"))
                        NODE_L("zoneb", "zone: b") DS("all", "")
                            DS("sel", "      nodeSelector: {zone: b}\n")
                                DS("named", "      nodeName: plain\n")
                                    DS("host", "      hostNetwork: true\n")
                                        DS("tol", "      tolerations: [{key: k, operator: Exists, "
                                                  "effect: NoSchedule}]\n");

/* (shouldRun, shouldContinueRunning) as 10 * run + continue */
static int should(const kp_cluster *cl, const char *ds, const char *node) {
    kp_index w = cc_workload(cl, "DaemonSet", ds), n = kp_cluster_find_node(cl, node);
    if (w < 0 || n < 0) return -1;
    bool run = true, cont = true;
    kp__daemon_should_run(cl, &cl->workloads[w], &cl->nodes[n], &run, &cont);
    return (run ? 10 : 0) + (cont ? 1 : 0);
}

/* TestNodeShouldRunDaemonPod and the taint tests, against core's rule */
KT_TEST(should_run_upstream_cases) {
    kp_cluster *cl = cc_load(SHOULD_CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(should(cl, "all", "plain"), 11); /* "simple" */
    KT_CHECK_INT(should(cl, "all", "nosched"), 1); /* untolerated NoSchedule: keeps running */
    KT_CHECK_INT(should(cl, "all", "noexec"), 0); /* untolerated NoExecute: neither */
    KT_CHECK_INT(should(cl, "tol", "nosched"), 11); /* the template tolerates it */
    KT_CHECK_INT(should(cl, "all", "cordoned"), 11); /* unschedulable: the controller's */
    KT_CHECK_INT(should(cl, "all", "pressure"), 11); /* memory-pressure: the controller's */
    KT_CHECK_INT(should(cl, "all", "notready"), 11); /* not-ready NoExecute: the controller's */
    KT_CHECK_INT(should(cl, "all", "nonet"), 1); /* network-unavailable: hostNetwork only */
    KT_CHECK_INT(should(cl, "host", "nonet"), 11);
    KT_CHECK_INT(should(cl, "sel", "plain"), 0); /* "node selector mismatch" */
    KT_CHECK_INT(should(cl, "sel", "zoneb"), 11);
    KT_CHECK_INT(should(cl, "named", "plain"), 11); /* "node name" */
    KT_CHECK_INT(should(cl, "named", "zoneb"), 0); /* "node name mismatch" */
    /* through the sync: a deleted node gets no pod */
    kp_error err;
    KT_CHECK_INT(kp_cluster_delete_node(cl, kp_cluster_find_node(cl, "plain"), &err), KP_OK);
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "named", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* ---------------------------------------------------------------- rolling updates */

#define DSU(name, strategy)                                                                \
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: " name                    \
    ", namespace: default, uid: u-" name "}\nspec:\n  selector: {matchLabels: {app: " name \
    "}}\n  updateStrategy: " strategy "\n  template:\n    metadata: {labels: {app: " name  \
    "}}\n    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]\n"
#define IMAGE2 \
    "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"y\"}]}}}}"

/* the pods just created bound to their nodes and Ready */
static void start_all(kp_cluster *cl, const cc_rec *r) {
    kp_error err;
    for (int i = 0; i < r->n_created; i++) {
        KT_CHECK_INT(kp_cluster_bind_pod(cl, r->created[i],
                                         kp_cluster_pod_target_node(cl, r->created[i]), &err),
                     KP_OK);
        KT_CHECK_INT(kp_cluster_pod_set_ready(cl, r->created[i], true, 1704067200, &err), KP_OK);
    }
}

/* the terminating pods just deleted go */
static void gone_all(kp_cluster *cl, const cc_rec *r) {
    kp_error err;
    for (int i = 0; i < r->n_deleting; i++)
        KT_CHECK_INT(kp_cluster_delete_pod(cl, r->deleting[i], &err), KP_OK);
}

/* five nodes running foo's pods, Ready; then its template patched */
static kp_cluster *rolled(const char *text, kp_ctrl **c) {
    kp_cluster *cl = cc_load(text);
    *c = NULL;
    if (!cl) return NULL;
    *c = kp_ctrl_new(cl);
    cc_rec r;
    KT_CHECK_INT(sync_ds(*c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 5);
    start_all(cl, &r);
    KT_CHECK_INT(sync_ds(*c, cl, "foo", &r), KP_OK); /* no template change: nothing */
    KT_CHECK_INT(r.n_created + r.n_deleting, 0);
    kp_update_result u;
    kp_error err;
    KT_CHECK_INT(
        kp_cluster_patch(cl, "DaemonSet", "default", "foo", "", IMAGE2, strlen(IMAGE2), &u, &err),
        KP_OK);
    return cl;
}

/* TestDaemonSetUpdatesPods: maxUnavailable 2 of 5 nodes: two old pods go; nothing more while
 * they terminate or their successors are not available; then two more, then the last */
KT_TEST(updates_pods_max_unavailable) {
    kp_ctrl *c;
    kp_cluster *cl = rolled(
        FIVE_NODES DSU("foo", "{type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}"), &c);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    cc_rec r;
    int want[] = {2, 2, 1};
    for (int round = 0; round < 3; round++) {
        KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
        KT_CHECK_INT(r.n_deleting, want[round]);
        KT_CHECK_INT(r.n_created, 0);
        cc_rec gone = r;
        KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK); /* terminating: unavailable */
        KT_CHECK_INT(r.n_deleting + r.n_created, 0);
        gone_all(cl, &gone);
        KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK); /* the manage loop's successors */
        KT_CHECK_INT(r.n_created, want[round]);
        KT_CHECK_INT(r.n_deleting, 0);
        start_all(cl, &r);
    }
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestDaemonSetUpdatesPodsWithMaxSurge: maxSurge 2, maxUnavailable 0: two new pods beside the
 * old ones; nothing more until they are available; then the two old pods go (the manage loop)
 * and two more nodes surge */
KT_TEST(updates_pods_max_surge) {
    kp_ctrl *c;
    kp_cluster *cl =
        rolled(FIVE_NODES DSU(
                   "foo", "{type: RollingUpdate, rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}"),
               &c);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK_INT(r.n_deleting, 0);
    cc_rec made = r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK); /* surging: not available yet */
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    start_all(cl, &made);
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting, 2);
    KT_CHECK_INT(r.n_created, 0);
    KT_CHECK(kp_ctrl_queued(c)); /* the update comes at the next sync */
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_created, 2);
    KT_CHECK_INT(r.n_deleting, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* OnDelete: the patch replaces nothing; an old pod deleted by someone else comes back new */
KT_TEST(updates_on_delete) {
    kp_ctrl *c;
    kp_cluster *cl = rolled(FIVE_NODES DSU("foo", "{type: OnDelete}"), &c);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    cc_rec r;
    KT_CHECK_INT(sync_ds(c, cl, "foo", &r), KP_OK);
    KT_CHECK_INT(r.n_deleting + r.n_created, 0);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* a creation the API server refuses (FailedCreate) is no action: the sync does not queue the
 * set again at once (it would retry for ever within one instant) */
KT_TEST(failed_create_does_not_requeue) {
    kp_cluster *cl = cc_load(CC_NODE("node-0", "") DS("foo", "      priorityClassName: nope\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    KT_CHECK_INT(r.n_created, 0);
    KT_CHECK_INT(cc_count(&r, "W FailedCreate"), 1);
    KT_CHECK(!kp_ctrl_queued(c));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(should_run_upstream_cases), KT_CASE(launches_one_per_node),
        KT_CASE(deals_with_existing_pods), KT_CASE(selector_and_node_name),
        KT_CASE(taints_and_tolerations), KT_CASE(kills_failed_pods), KT_CASE(node_changed),
        KT_CASE(updates_pods_max_unavailable), KT_CASE(updates_pods_max_surge),
        KT_CASE(updates_on_delete), KT_CASE(failed_create_does_not_requeue))
