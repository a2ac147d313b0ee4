/* The taint-eviction controller (src/ctrl/taint_eviction.c) driven through
 * kp_ctrl_taint_eviction_pod / _node / _fire with a recording sink, on cases of upstream's
 * pkg/controller/tainteviction/taint_eviction_test.go: TestCreatePod (a pod bound to a tainted
 * node: deleted unless it tolerates the taint; a pod not scheduled: nothing), TestUpdateNode
 * (taint added with pods, a tolerated taint, only one of two taints tolerated, taint removed:
 * the planned deletion cancelled), TestUpdateNodeWithMultipleTaints and the tolerationSeconds
 * cases (deletion after the smallest tolerationSeconds; an earlier plan that ends sooner stays),
 * tolerationSeconds 0. */
#include "ctrl_rec.h"

/* clang-format off */
#define POD(name, extra)                                                                    \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default}\nspec:\n" \
    "  containers: [{name: c, image: x}]\n" extra
static const char *CLUSTER =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '8'}}\n"
    POD("plain", "  nodeName: n1\n")
    POD("forever", "  nodeName: n1\n  tolerations: [{key: k, operator: Exists, effect: NoExecute}]\n")
    POD("thirty", "  nodeName: n1\n  tolerations: [{key: k, operator: Exists, effect: NoExecute, "
                  "tolerationSeconds: 30}, {key: j, operator: Exists, effect: NoExecute, "
                  "tolerationSeconds: 10}]\n")
    POD("zero", "  nodeName: n1\n  tolerations: [{key: k, operator: Exists, effect: NoExecute, "
                "tolerationSeconds: 0}]\n")
    POD("pending", "");
/* clang-format on */

typedef struct {
    kp_cluster *cl;
    kp_ctrl *c;
    kp_index n1, plain, forever, thirty, zero, pending;
    rec r;
    kp_ctrl_sink sink;
    kp_error err;
} fix;

static bool setup(fix *f) {
    memset(f, 0, sizeof *f);
    f->cl = ctrl_load(CLUSTER);
    KT_CHECK(f->cl != NULL);
    if (!f->cl) return false;
    f->c = kp_ctrl_new(f->cl);
    KT_CHECK(f->c != NULL);
    f->n1 = kp_cluster_find_node(f->cl, "n1");
    f->plain = ctrl_pod(f->cl, "default/plain");
    f->forever = ctrl_pod(f->cl, "default/forever");
    f->thirty = ctrl_pod(f->cl, "default/thirty");
    f->zero = ctrl_pod(f->cl, "default/zero");
    f->pending = ctrl_pod(f->cl, "default/pending");
    f->sink = rec_sink(&f->r, f->cl);
    return f->c != NULL;
}

static void teardown(fix *f) {
    kp_ctrl_free(f->c);
    kp_cluster_free(f->cl);
}

static void fresh(fix *f) { f->sink = rec_sink(&f->r, f->cl); }

/* the resync asked for pod, -1 when none */
static int64_t planned_at(const fix *f, kp_index pod) {
    for (size_t i = 0; i < f->r.n_resync; i++)
        if (f->r.resync_kind[i] == KP_CTRL_RESYNC_POD && f->r.resync_obj[i] == pod)
            return f->r.resync_t[i];
    return -1;
}

static bool terminating(const fix *f, kp_index pod) {
    kp_pod_info pi;
    kp_cluster_pod_info(f->cl, pod, &pi);
    return pi.deletion_ts != KP_TIME_UNSET;
}

/* TestUpdateNode "Added taint, with pods" / "Added tolerated taint" and the tolerationSeconds
 * cases: the untolerating pod now, the 0-second one now, the 30-second one in 30s, the one that
 * tolerates forever and the pending one never; firing deletes with the event */
KT_TEST(taint_added_with_pods) {
    fix f;
    if (setup(&f)) {
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "k", "v", "NoExecute", &f.err), KP_OK);
        KT_CHECK_INT(kp_ctrl_taint_eviction_node(f.c, f.n1, 1000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.plain), 1000);
        KT_CHECK_INT(planned_at(&f, f.zero), 1000);
        KT_CHECK_INT(planned_at(&f, f.thirty), 31000);
        KT_CHECK_INT(planned_at(&f, f.forever), -1);
        KT_CHECK_INT(planned_at(&f, f.pending), -1);
        KT_CHECK_INT(f.r.n_events, 0); /* a plan is no event */
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_fire(f.c, f.plain, 1000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_deleting, 1);
        KT_CHECK_INT(f.r.deleting[0], f.plain);
        KT_CHECK_STR(f.r.deleting_ev[0], "TaintManagerEviction: Marking for deletion Pod "
                                         "default/plain");
        KT_CHECK(terminating(&f, f.plain)); /* core's mark, DeletionByTaintManager */
        /* fired twice (a stale timer): nothing more */
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_fire(f.c, f.plain, 1000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_deleting + f.r.n_events, 0);
        /* a pod never planned: nothing */
        KT_CHECK_INT(kp_ctrl_taint_eviction_fire(f.c, f.forever, 1000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_deleting, 0);
        KT_CHECK(!terminating(&f, f.forever));
    }
    teardown(&f);
}

/* TestUpdateNode "Taint removed": the planned deletion is cancelled with its event and a late
 * firing deletes nothing */
KT_TEST(taint_removed_cancels) {
    fix f;
    if (setup(&f)) {
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "k", "v", "NoExecute", &f.err), KP_OK);
        KT_CHECK_INT(kp_ctrl_taint_eviction_node(f.c, f.n1, 0, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.thirty), 30000);
        size_t removed = 0;
        KT_CHECK_INT(kp_cluster_node_untaint(f.cl, f.n1, "k", NULL, &removed, &f.err), KP_OK);
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_node(f.c, f.n1, 20000, &f.sink, &f.err), KP_OK);
        KT_CHECK(rec_has(&f.r, "TaintManagerEviction: Cancelling deletion of Pod default/thirty"));
        KT_CHECK(rec_has(&f.r, "TaintManagerEviction: Cancelling deletion of Pod default/plain"));
        KT_CHECK(!rec_has(&f.r, "TaintManagerEviction: Cancelling deletion of Pod "
                                "default/forever"));
        KT_CHECK_INT(f.r.n_resync, 0);
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_fire(f.c, f.thirty, 30000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_deleting, 0);
        KT_CHECK(!terminating(&f, f.thirty));
    }
    teardown(&f);
}

/* TestUpdateNodeWithMultipleTaints / "Only one added taint tolerated": a plan made at 0 for 30s;
 * at 5s a second taint the pod tolerates for 10s: counted from the plan's start it ends before
 * 5s + 10s (processPodOnNode: startTime.Add(minTolerationTime).Before(triggerTime)), so the plan
 * stays; a pod that tolerates only the first taint goes at once. */
KT_TEST(multiple_taints) {
    fix f;
    if (setup(&f)) {
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "k", "v", "NoExecute", &f.err), KP_OK);
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.thirty, 0, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.thirty), 30000);
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "j", "v", "NoExecute", &f.err), KP_OK);
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.thirty, 5000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_resync + f.r.n_events, 0); /* 0 + 10s < 5 + 10s: the plan stays */
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.forever, 5000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.forever), 5000); /* tolerates k, not j: now */
    }
    teardown(&f);
}

/* TestCreatePod: a pod bound to a tainted node is processed on its own ("scheduled pod on
 * tainted Node" deleted, "with toleration" kept); "not scheduled pod": nothing */
KT_TEST(create_pod) {
    fix f;
    if (setup(&f)) {
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "k", "v", "NoExecute", &f.err), KP_OK);
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.plain, 7000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.plain), 7000);
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.forever, 7000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.forever), -1);
        KT_CHECK_INT(kp_ctrl_taint_eviction_pod(f.c, f.pending, 7000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(planned_at(&f, f.pending), -1);
        /* a NoSchedule taint evicts nothing */
        size_t removed;
        KT_CHECK_INT(kp_cluster_node_untaint(f.cl, f.n1, "k", NULL, &removed, &f.err), KP_OK);
        KT_CHECK_INT(kp_cluster_node_taint(f.cl, f.n1, "k", "v", "NoSchedule", &f.err), KP_OK);
        fresh(&f);
        KT_CHECK_INT(kp_ctrl_taint_eviction_node(f.c, f.n1, 8000, &f.sink, &f.err), KP_OK);
        KT_CHECK_INT(f.r.n_resync, 0);
        KT_CHECK(rec_has(&f.r, "TaintManagerEviction: Cancelling deletion of Pod default/plain"));
    }
    teardown(&f);
}

KT_MAIN(KT_CASE(taint_added_with_pods), KT_CASE(taint_removed_cancels), KT_CASE(multiple_taints),
        KT_CASE(create_pod))
