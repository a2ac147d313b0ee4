/* The pod garbage collector (src/ctrl/podgc.c) driven through kp_ctrl_podgc_sync with a recording
 * sink, on cases of upstream's pkg/controller/podgc/gc_controller_test.go: TestGCOrphaned (pods
 * bound to a node that was deleted go, the others stay; a pod not bound stays) and TestGCTerminated
 * ("threshold = 1, 2 pods": the oldest terminated pod goes; "threshold = 0": nothing; evicted pods
 * first: byEvictionAndCreationTimestamp). */
#include "ctrl_rec.h"

/* clang-format off */
#define NODE(name) "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name "}\nstatus: {allocatable: {cpu: '8'}}\n"
#define POD(name, created, extra)                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default, "      \
    "creationTimestamp: \"" created "\"}\nspec:\n  containers: [{name: c, image: x}]\n" extra
static const char *CLUSTER =
    NODE("gone") NODE("stays")
    POD("a", "2026-01-01T00:00:01Z", "  nodeName: gone\n")
    POD("b", "2026-01-01T00:00:02Z", "  nodeName: gone\n")
    POD("c", "2026-01-01T00:00:03Z", "  nodeName: stays\n")
    POD("pending", "2026-01-01T00:00:04Z", "")
    POD("done-new", "2026-01-01T00:00:09Z", "status: {phase: Succeeded}\n")
    POD("done-old", "2026-01-01T00:00:05Z", "status: {phase: Failed}\n")
    POD("evicted-new", "2026-01-01T00:00:08Z", "status: {phase: Failed, reason: Evicted}\n");
/* clang-format on */

static bool gone(const kp_cluster *cl, const char *ref) { return ctrl_pod(cl, ref) < 0; }

KT_TEST(gc_orphaned) {
    kp_cluster *cl = ctrl_load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 0, &sink, &err), KP_OK); /* no node deleted */
    KT_CHECK_INT(r.n_deleted, 0);
    kp_index a = ctrl_pod(cl, "default/a"), b = ctrl_pod(cl, "default/b");
    KT_CHECK_INT(kp_cluster_delete_node(cl, kp_cluster_find_node(cl, "gone"), &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 0, &sink, &err), KP_OK);
    KT_CHECK_INT(r.n_deleted, 2);
    KT_CHECK_INT(r.deleted[0], b); /* the node's last pod first */
    KT_CHECK_INT(r.deleted[1], a);
    KT_CHECK_INT(r.n_events, 0); /* the collector records no event */
    KT_CHECK(gone(cl, "default/a") && gone(cl, "default/b"));
    KT_CHECK(!gone(cl, "default/c") && !gone(cl, "default/pending"));
    KT_CHECK(!gone(cl, "default/done-old")); /* threshold 0: gcTerminated off */
    /* without a sink core deletes */
    KT_CHECK_INT(kp_cluster_delete_node(cl, kp_cluster_find_node(cl, "stays"), &err), KP_OK);
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 0, NULL, &err), KP_OK);
    KT_CHECK(gone(cl, "default/c"));
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_TEST(gc_terminated) {
    kp_cluster *cl = ctrl_load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    rec r;
    kp_ctrl_sink sink = rec_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 3, &sink, &err), KP_OK); /* 3 terminated: at the limit */
    KT_CHECK_INT(r.n_deleted, 0);
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 2, &sink, &err), KP_OK); /* 1 over: the evicted one */
    KT_CHECK_INT(r.n_deleted, 1);
    KT_CHECK(gone(cl, "default/evicted-new"));
    KT_CHECK(!gone(cl, "default/done-old"));
    KT_CHECK_INT(kp_ctrl_podgc_sync(c, 0, 1, &sink, &err), KP_OK); /* then the oldest */
    KT_CHECK_INT(r.n_deleted, 2);
    KT_CHECK(gone(cl, "default/done-old"));
    KT_CHECK(!gone(cl, "default/done-new"));
    KT_CHECK(!gone(cl, "default/a") && !gone(cl, "default/pending")); /* running, pending stay */
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(gc_orphaned), KT_CASE(gc_terminated))
