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

KT_MAIN(KT_CASE(taints_follow_conditions), KT_CASE(earlier_taint_left_alone))
