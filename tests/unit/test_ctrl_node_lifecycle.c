/* The node lifecycle controller's pressure taints (src/ctrl/node_lifecycle.c) driven through
 * kp_ctrl_node_lifecycle_sync with a recording sink, after upstream's
 * pkg/controller/nodelifecycle/node_lifecycle_controller_test.go (TestTaintsNodeByCondition: a
 * node with MemoryPressure gets node.kubernetes.io/memory-pressure:NoSchedule, DiskPressure and
 * PIDPressure theirs, several at once in that order, the taint goes with the condition); a taint
 * the node had before the controller looked is left alone; the events TaintAdded / TaintRemoved. */
#include "ctrl_rec.h"
#include "kprio/node_conditions.h"

static const char *CLUSTER =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '8'}}\n"
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: old}\nspec: {taints: [{key: "
    "node.kubernetes.io/memory-pressure, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: "
    "'8'}}\n";

/* how many taints of key with effect NoSchedule the node has: untaint and count, then put them
 * back */
static size_t has_taint(kp_cluster *cl, kp_index node, const char *key) {
    size_t removed = 0;
    kp_error err;
    kp_cluster_node_untaint(cl, node, key, "NoSchedule", &removed, &err);
    for (size_t i = 0; i < removed; i++)
        kp_cluster_node_taint(cl, node, key, "", "NoSchedule", &err);
    return removed;
}

KT_TEST(taints_follow_conditions) {
    kp_cluster *cl = ctrl_load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index n1 = kp_cluster_find_node(cl, "n1");
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    bool untainted = true;
    KT_CHECK_INT(kp_ctrl_node_lifecycle_sync(c, n1, KP_NODE_COND_MEMORY_PRESSURE, 0, &sink,
                                             &untainted, &err),
                 KP_OK);
    KT_CHECK(!untainted);
    KT_CHECK_INT(r.n_events, 1);
    KT_CHECK_STR(r.events[0], "TaintAdded: taint node.kubernetes.io/memory-pressure=:NoSchedule "
                              "added");
    KT_CHECK_INT(has_taint(cl, n1, "node.kubernetes.io/memory-pressure"), 1);
    /* the same conditions again: nothing */
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(
        kp_ctrl_node_lifecycle_sync(c, n1, KP_NODE_COND_MEMORY_PRESSURE, 0, &sink, NULL, &err),
        KP_OK);
    KT_CHECK_INT(r.n_events, 0);
    /* disk and PID pressure join, memory pressure goes: in the pass's order */
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_lifecycle_sync(c, n1,
                                             KP_NODE_COND_DISK_PRESSURE | KP_NODE_COND_PID_PRESSURE,
                                             0, &sink, &untainted, &err),
                 KP_OK);
    KT_CHECK(untainted);
    KT_CHECK_INT(r.n_events, 3);
    KT_CHECK_STR(r.events[0],
                 "TaintRemoved: 1 taint(s) node.kubernetes.io/memory-pressure removed");
    KT_CHECK_STR(r.events[1],
                 "TaintAdded: taint node.kubernetes.io/disk-pressure=:NoSchedule added");
    KT_CHECK_STR(r.events[2],
                 "TaintAdded: taint node.kubernetes.io/pid-pressure=:NoSchedule added");
    KT_CHECK_INT(has_taint(cl, n1, "node.kubernetes.io/memory-pressure"), 0);
    KT_CHECK_INT(has_taint(cl, n1, "node.kubernetes.io/disk-pressure"), 1);
    KT_CHECK_INT(has_taint(cl, n1, "node.kubernetes.io/pid-pressure"), 1);
    KT_CHECK_INT(kp_ctrl_node_lifecycle_sync(c, 9, 0, 0, &sink, NULL, &err), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* a pressure taint the node carried before the controller looked is not the controller's: no
 * condition leaves it in place */
KT_TEST(earlier_taint_left_alone) {
    kp_cluster *cl = ctrl_load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index old = kp_cluster_find_node(cl, "old");
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_node_lifecycle_sync(c, old, 0, 0, &sink, NULL, &err), KP_OK);
    KT_CHECK_INT(r.n_events, 0);
    KT_CHECK_INT(has_taint(cl, old, "node.kubernetes.io/memory-pressure"), 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* ---- health monitoring (node_lifecycle_controller_test.go: TestMonitorNodeHealth*,
 * TestApplyNoExecuteTaints, TestSwapUnreachableNotReadyTaints, TestTaintsNodeByCondition's
 * unschedulable row) ---- */

static const char *HEALTH =
    "apiVersion: v1\nkind: Node\nmetadata: {name: a1, labels: {topology.kubernetes.io/zone: "
    "z1}}\nstatus: {allocatable: {cpu: '8'}, conditions: [{type: Ready, status: 'True'}, {type: "
    "MemoryPressure, status: 'False'}]}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: a2, labels: {topology.kubernetes.io/zone: "
    "z1}}\nstatus: {allocatable: {cpu: '8'}}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: b1, labels: {topology.kubernetes.io/zone: "
    "z2}}\nstatus: {allocatable: {cpu: '8'}}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {nodeName: a1, "
    "containers: [{name: c, image: i}]}\nstatus: {phase: Running}\n";

static bool tainted(kp_cluster *cl, kp_index n, const char *key, const char *effect) {
    return kp_cluster_node_has_taint(cl, n, key, effect, NULL);
}

/* the kubelet stops posting at 10s: nothing until the first pass past the 50s grace period
 * (65s), where Ready and the pressure conditions go Unknown with the NoSchedule taint; the
 * NoExecute taint at the next pass (70s), and the taint-eviction controller's plan for p
 * (DefaultTolerationSeconds: 300s) */
KT_TEST(monitor_node_health_unknown) {
    kp_cluster *cl = ctrl_load(HEALTH);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index a1 = kp_cluster_find_node(cl, "a1");
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_node_lifecycle_start(c, 0, &sink, &err), KP_OK);
    KT_CHECK_INT(r.n_resync, 0);
    KT_CHECK_INT(kp_ctrl_node_kubelet(c, a1, false, 10000, &sink, NULL, &err), KP_OK);
    KT_CHECK_INT(r.n_resync, 1);
    KT_CHECK_INT(r.resync_kind[0], KP_CTRL_RESYNC_NODE);
    KT_CHECK_INT(r.resync_t[0], 65000); /* after(10s + 50s): the pass at 65s */
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 60000, &sink, NULL, &err), KP_OK); /* not after */
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "Ready"), "True");
    KT_CHECK_INT(r.n_resync, 1);
    KT_CHECK_INT(r.resync_t[0], 65000);
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 65000, &sink, NULL, &err), KP_OK);
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "Ready"), "Unknown");
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "MemoryPressure"), "Unknown");
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "DiskPressure"), "Unknown"); /* never posted */
    KT_CHECK(rec_has(&r, "NodeNotReady: Node a1 status is now: NodeNotReady"));
    KT_CHECK(rec_has(&r, "!NodeNotReady: Node is not ready"));
    KT_CHECK(tainted(cl, a1, "node.kubernetes.io/unreachable", "NoSchedule"));
    KT_CHECK(!tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK_INT(r.n_resync, 1);
    KT_CHECK_INT(r.resync_t[0], 70000);
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 70000, &sink, NULL, &err), KP_OK);
    KT_CHECK(tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK_INT(r.n_resync, 1); /* p's deletion, 300s on */
    KT_CHECK_INT(r.resync_kind[0], KP_CTRL_RESYNC_POD);
    KT_CHECK_INT(r.resync_t[0], 370000);
    /* it posts again: Ready True (the kubelet's NodeReady), the NoSchedule taint at once, the
     * NoExecute one at the next pass, and p's planned deletion cancelled */
    sink = rec_sink(&r, cl);
    bool untainted = false;
    KT_CHECK_INT(kp_ctrl_node_kubelet(c, a1, true, 100000, &sink, &untainted, &err), KP_OK);
    KT_CHECK(untainted);
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "Ready"), "True");
    KT_CHECK_STR(kp_cluster_node_condition(cl, a1, "MemoryPressure"), "False");
    KT_CHECK(rec_has(&r, "NodeReady: Node a1 status is now: NodeReady"));
    KT_CHECK(!tainted(cl, a1, "node.kubernetes.io/unreachable", "NoSchedule"));
    KT_CHECK(tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK_INT(r.resync_t[0], 105000);
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 105000, &sink, &untainted, &err), KP_OK);
    KT_CHECK(untainted);
    KT_CHECK(!tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK(rec_has(&r, "TaintManagerEviction: Cancelling deletion of Pod default/p"));
    KT_CHECK_INT(kp_ctrl_node_monitor(c, 9, 0, &sink, NULL, &err), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* MarkPodsNotReady (TestMonitorNodeHealthMarkPodsNotReady): when the node goes Unknown, its
 * Ready pod p gets Ready False and the Warning NodeNotReady "Node is not ready"; q, not Ready
 * already, is not updated and gets no event */
KT_TEST(mark_pods_not_ready) {
    static char text[4096];
    snprintf(text, sizeof text, "%s%s", HEALTH,
             "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: "
             "default}\nspec: {nodeName: a1, containers: [{name: c, image: "
             "i}]}\nstatus: {phase: Running, conditions: [{type: Ready, status: "
             "'False'}]}\n");
    kp_cluster *cl = ctrl_load(text);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index a1 = kp_cluster_find_node(cl, "a1"), p = kp_cluster_find_pod(cl, "default/p");
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK(kp_cluster_pod_ready(cl, p));
    KT_CHECK_INT(kp_ctrl_node_kubelet(c, a1, false, 10000, &sink, NULL, &err), KP_OK);
    sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 65000, &sink, NULL, &err), KP_OK);
    KT_CHECK(!kp_cluster_pod_ready(cl, p));
    size_t n = 0;
    for (size_t i = 0; i < r.n_events; i++)
        n += strcmp(r.events[i], "!NodeNotReady: Node is not ready") == 0;
    KT_CHECK_INT(n, 1);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* two nodes of zone z1 unreachable at once: the zone's rate limiter taints one now, the other
 * 10s later; a node of zone z2 has its own limiter. Ready False swaps unreachable for not-ready
 * at once. */
KT_TEST(apply_noexecute_taints) {
    kp_cluster *cl = ctrl_load(HEALTH);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index a1 = kp_cluster_find_node(cl, "a1"), a2 = kp_cluster_find_node(cl, "a2"),
             b1 = kp_cluster_find_node(cl, "b1");
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    for (kp_index n = 0; n < 3; n++)
        KT_CHECK_INT(kp_cluster_node_set_condition(cl, n, "Ready", "Unknown", "NodeStatusUnknown",
                                                   NULL, &err),
                     KP_OK);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 5000, &sink, NULL, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a2, 5000, &sink, NULL, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, b1, 5000, &sink, NULL, &err), KP_OK);
    KT_CHECK(tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK(!tainted(cl, a2, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK(tainted(cl, b1, "node.kubernetes.io/unreachable", "NoExecute"));
    bool retried = false;
    for (size_t i = 0; i < r.n_resync; i++)
        if (r.resync_kind[i] == KP_CTRL_RESYNC_NODE && r.resync_obj[i] == a2 &&
            r.resync_t[i] == 15000)
            retried = true;
    KT_CHECK(retried);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a2, 15000, &sink, NULL, &err), KP_OK);
    KT_CHECK(tainted(cl, a2, "node.kubernetes.io/unreachable", "NoExecute"));
    /* Ready False: swapped at once, no token needed */
    KT_CHECK_INT(
        kp_cluster_node_set_condition(cl, a1, "Ready", "False", "KubeletNotReady", NULL, &err),
        KP_OK);
    KT_CHECK_INT(kp_ctrl_node_monitor(c, a1, 16000, &sink, NULL, &err), KP_OK);
    KT_CHECK(tainted(cl, a1, "node.kubernetes.io/not-ready", "NoExecute"));
    KT_CHECK(!tainted(cl, a1, "node.kubernetes.io/unreachable", "NoExecute"));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* spec.unschedulable -> node.kubernetes.io/unschedulable:NoSchedule, removed with it; a
 * snapshot's Ready Unknown node gets its NoSchedule and NoExecute taints at the start */
KT_TEST(unschedulable_and_snapshot_taints) {
    kp_cluster *cl = ctrl_load(HEALTH);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_index a2 = kp_cluster_find_node(cl, "a2"), b1 = kp_cluster_find_node(cl, "b1");
    kp_error err;
    bool untainted = true;
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, a2, true, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_node_noschedule_pass(c, a2, &untainted, &err), KP_OK);
    KT_CHECK(!untainted);
    KT_CHECK(tainted(cl, a2, "node.kubernetes.io/unschedulable", "NoSchedule"));
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, a2, false, &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_node_noschedule_pass(c, a2, &untainted, &err), KP_OK);
    KT_CHECK(untainted);
    KT_CHECK(!tainted(cl, a2, "node.kubernetes.io/unschedulable", "NoSchedule"));
    KT_CHECK_INT(kp_cluster_node_set_condition(cl, b1, "Ready", "Unknown", NULL, NULL, &err),
                 KP_OK);
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    KT_CHECK_INT(kp_ctrl_node_lifecycle_start(c, 0, &sink, &err), KP_OK);
    KT_CHECK(tainted(cl, b1, "node.kubernetes.io/unreachable", "NoSchedule"));
    KT_CHECK(tainted(cl, b1, "node.kubernetes.io/unreachable", "NoExecute"));
    KT_CHECK(!tainted(cl, a2, "node.kubernetes.io/unreachable", "NoSchedule"));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* a snapshot node unreachable since 100s before t = 0 (its taint's timeAdded): the pod that
 * tolerates it for 300s is deleted 200s into the run, not 300s */
KT_TEST(snapshot_taint_time_added) {
    kp_cluster *cl = ctrl_load(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: "
        "node.kubernetes.io/unreachable, effect: NoExecute, timeAdded: "
        "'2026-01-01T00:00:00Z'}]}\nstatus: {allocatable: {cpu: '8'}, conditions: [{type: Ready, "
        "status: Unknown}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
        "default, creationTimestamp: '2025-12-31T00:00:00Z'}\nspec: {nodeName: n1, containers: "
        "[{name: c, image: i}]}\nstatus: {phase: Running}\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    kp_ctrl_set_epoch(c, 1767225600 + 100); /* 2026-01-01T00:01:40Z */
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_node_lifecycle_start(c, 0, &sink, &err), KP_OK);
    KT_CHECK_INT(r.n_resync, 1);
    KT_CHECK_INT(r.resync_kind[0], KP_CTRL_RESYNC_POD);
    KT_CHECK_INT(r.resync_t[0], 200000);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(taints_follow_conditions), KT_CASE(earlier_taint_left_alone),
        KT_CASE(monitor_node_health_unknown), KT_CASE(mark_pods_not_ready),
        KT_CASE(apply_noexecute_taints), KT_CASE(unschedulable_and_snapshot_taints),
        KT_CASE(snapshot_taint_time_added))
