/* Preemption at scale (issue 20): the work per attempt follows the work, decisions unchanged. */
#include "test_preempt_util.h"

/* A preemptor that fits on no node even with every lower-priority pod gone: the FitError text
 * lists each node's exact NodeResourcesFit status (mirrors DryRunPreemption's statuses and
 * fitsRequest). The arithmetic path computes them from the sums ("Too many pods" counting the
 * nominated pod of pass 1, one or two "Insufficient" reasons in request order) without a single
 * Filter call; the incremental and reference paths run the real Filter and must agree (tp_run
 * checks the three messages are equal). */
KT_TEST(preempt_no_candidates_status_without_filter_calls) {
    tp_begin();
    tp_node("node1", "1", "1000", 10, NULL);
    tp_pod("high1", "node1", 2000, "600m", "100", -1, NULL);
    tp_pod("low1", "node1", 0, "200m", "100", -1, NULL);
    tp_node("node2", "2", "1000", 2, NULL);
    tp_pod("high2", "node2", 2000, "100m", "100", -1, NULL);
    tp_pod("low2", "node2", 0, "100m", "100", -1, NULL);
    tp_node("node3", "1", "1000", 10, NULL);
    tp_pod("high3", "node3", 2000, "900m", "950", -1, NULL);
    tp_pod("low3", "node3", 0, "100m", "10", -1, NULL);
    /* a pending pod of higher priority nominated to node2 counts in pass 1 */
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: nom, namespace: default, uid: u-nom}\n"
           "spec:\n  priority: 1500\n  containers: [{name: c, resources: {requests: {cpu: "
           "\"100m\", memory: \"10\"}}}]\nstatus: {phase: Pending, nominatedNodeName: node2}\n");
    tp_pod("p", NULL, 1000, "500m", "100", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r); /* the three paths agree (the incremental one is returned) */
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NO_CANDIDATES);
    KT_CHECK_STR(r.message, "preemption: 0/3 nodes are available: 1 Insufficient memory, 1 Too "
                            "many pods, 2 Insufficient cpu.");
    KT_CHECK_INT(r.dry_calls, 3); /* the incremental path: one Filter call per node */
    tp_opts o = tp_opts_default();
    o.only_mode = 0; /* the arithmetic (cached) path */
    tp_res a;
    tp_run(NULL, &o, &a);
    KT_CHECK_STR(a.message, r.message);
    KT_CHECK_INT(a.dry_calls, 0);
    tp_end();
}

KT_MAIN(KT_CASE(preempt_no_candidates_status_without_filter_calls))
