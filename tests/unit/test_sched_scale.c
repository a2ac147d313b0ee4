/* Scheduling and preemption at scale (issue 20): the work follows the work, decisions unchanged. */
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

/* The cached path finds the preemptor's lower-priority suffix from the header's priority levels
 * (up to 4; more: a search of the per-entry block): nodes with 3 and 6 distinct priorities,
 * preemptors between them, a PDB (the per-entry path), the three paths agree. */
KT_TEST(preempt_priority_levels_agree) {
    static const int prios[] = {1000, 0, 50, 30, 20, 10};
    for (int pre = 0; pre < 4; pre++) {
        tp_begin();
        tp_node("node1", "3", "1000", 20, NULL);
        tp_node("node2", "3", "1000", 20, NULL);
        char name[16];
        for (int i = 0; i < 6; i++) {
            snprintf(name, sizeof name, "a%d", i);
            tp_pod(name, "node1", prios[i], "500m", "10", i, i % 2 ? "{app: x}" : NULL);
            snprintf(name, sizeof name, "b%d", i);
            tp_pod(name, "node2", prios[i % 3], "500m", "10", i, NULL);
        }
        tp_pdb("pdb", "{app: x}", 1, NULL);
        static const int pre_prio[] = {5, 25, 40, 100};
        static const char *const pre_cpu[] = {"600m", "1200m", "1", "2"};
        tp_pod("p", NULL, pre_prio[pre], pre_cpu[pre], "10", -1, NULL);
        tp_res r;
        tp_run(NULL, NULL, &r); /* checks node, victims, message and candidates agree */
        tp_end();
    }
}

/* InterPodAffinity.PreFilter of a pod without terms of its own, in a cluster where no bound pod
 * has required anti-affinity, has nothing to count (upstream returns Skip): the label index
 * (every label of every pod) is not built for it; a bound pod with required anti-affinity needs
 * it (getExistingAntiAffinityCounts) and gets it. */
KT_TEST(ipa_prefilter_skips_without_the_index) {
    tp_begin();
    tp_node("node1", "4", "4Gi", 10, NULL);
    tp_pod("run1", "node1", 0, "100m", "10", -1, "{app: a, tier: x}");
    tp_pod("p", NULL, 0, "100m", "10", -1, "{app: b}");
    KT_CHECK(tp_load() && tp_new_sched(NULL));
    if (!tp_s) return;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(tp_s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result(tp_s, 0)->outcome, KP_OUTCOME_BOUND);
    KT_CHECK(!tp_s->ix.built);
    tp_end();

    tp_begin();
    tp_node("node1", "4", "4Gi", 10, "{kubernetes.io/hostname: node1}");
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: anti, namespace: default, uid: "
           "u-anti, labels: {app: a}}\nspec:\n  nodeName: node1\n  containers: [{name: c}]\n"
           "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
           "[{labelSelector: {matchLabels: {app: b}}, topologyKey: kubernetes.io/hostname}]}}\n"
           "status: {phase: Running}\n");
    tp_pod("p", NULL, 0, "100m", "10", -1, "{app: b}");
    KT_CHECK(tp_load() && tp_new_sched(NULL));
    if (!tp_s) return;
    KT_CHECK_INT(kp_sched_run(tp_s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result(tp_s, 0)->outcome, KP_OUTCOME_UNSCHEDULABLE);
    KT_CHECK(tp_s->ix.built);
    tp_end();
}

/* Every entry of the scheduler's compact per-pod array (hot.h) equals its pod record. */
static void check_hot_in_step(void) {
    const kp_hot_pod *hot = tp_s->hot;
    KT_CHECK(hot != NULL);
    if (!hot) return;
    KT_CHECK_INT(tp_s->n_hot, tp_cl->n_pods);
    for (uint32_t i = 0; i < tp_cl->n_pods && i < tp_s->n_hot; i++) {
        const kp_pod *p = &tp_cl->pods[i];
        int32_t node = p->node >= 0 && p->deletion_ts == KP_TIME_NONE ? p->node : -1;
        KT_CHECK_INT(hot[i].node, node);
        KT_CHECK_INT(hot[i].ns, p->ns);
        KT_CHECK_INT(hot[i].prio, p->priority);
        KT_CHECK_INT(hot[i].n_labels, p->labels.n);
        KT_CHECK(hot[i].labels == p->labels.items);
    }
}

/* The compact array the spread counting reads is kept in step with the cluster through a run
 * that binds pods counted by a spread constraint and preempts (the victims become terminating
 * and stop counting; with until_settled they leave their node), and the counts it gives are the
 * walk's: the spread-constrained pod goes to the zone with fewer matching pods. */
static void hot_run(bool settled) {
    tp_begin();
    tp_node("node1", "1", "4Gi", 10, "{topology.kubernetes.io/zone: a}");
    tp_node("node2", "1", "4Gi", 10, "{topology.kubernetes.io/zone: b}");
    tp_pod("a1", "node1", 0, "300m", "10", -1, "{grp: g}");
    tp_pod("a2", "node1", 0, "300m", "10", -1, "{grp: g}");
    tp_pod("b1", "node2", 0, "900m", "10", -1, "{grp: g}");
    /* t (first: highest priority) has the array built, then is bound; p evicts; s counts */
    for (int k = 0; k < 2; k++)
        tp_add("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default, uid: "
               "u-%s, labels: {grp: g}}\nspec:\n  priority: %d\n  containers: [{name: c, "
               "resources: {requests: {cpu: 100m}}}]\n  topologySpreadConstraints: [{maxSkew: 1, "
               "topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, "
               "labelSelector: {matchLabels: {grp: g}}}]\nstatus: {phase: Pending}\n",
               k ? "s" : "t", k ? "s" : "t", k ? 0 : 2000);
    tp_pod("p", NULL, 1000, "800m", "10", -1, NULL);
    KT_CHECK(tp_load());
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = 1;
    so.until_settled = settled;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_new(tp_cl, NULL, &so, &tp_s, &err), KP_OK);
    if (!tp_s) return;
    KT_CHECK_INT(kp_sched_run(tp_s, &err), KP_OK);
    /* t goes to zone b (1 matching pod against zone a's 2): node2. p evicts b1 on node2 (one
     * victim: t has a higher priority; two on node1); b1 then counts no more (terminating), so
     * zone b has 1 matching pod (t) against zone a's 2 and s may only go to node2: with b1 gone
     * (until_settled) it fits beside t and p, else b1's 900m and p's nominated 800m leave no
     * room. A stale array (b1 still counted) would let s go to node1. */
    const kp_sched_pod_result *rs = NULL, *rp = NULL;
    for (size_t i = 0; i < kp_sched_result_count(tp_s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(tp_s, i);
        if (r->pod == kp_cluster_find_pod(tp_cl, "default/s")) rs = r;
        if (r->pod == kp_cluster_find_pod(tp_cl, "default/p")) rp = r;
    }
    KT_CHECK(rs && rp);
    if (!rs || !rp) return;
    KT_CHECK_INT(rp->n_victims, 1);
    KT_CHECK_STR(rp->n_victims ? kp_cluster_pod_name(tp_cl, rp->victims[0]) : "-", "b1");
    KT_CHECK_INT(rs->outcome, settled ? KP_OUTCOME_BOUND : KP_OUTCOME_UNSCHEDULABLE);
    if (settled) KT_CHECK_STR(rs->node >= 0 ? kp_cluster_node_name(tp_cl, rs->node) : "-", "node2");
    check_hot_in_step();
    tp_end();
}

KT_TEST(hot_array_in_step_after_preemption) { hot_run(false); }

KT_TEST(hot_array_in_step_until_settled) { hot_run(true); }

KT_MAIN(KT_CASE(preempt_no_candidates_status_without_filter_calls),
        KT_CASE(preempt_priority_levels_agree), KT_CASE(ipa_prefilter_skips_without_the_index),
        KT_CASE(hot_array_in_step_after_preemption), KT_CASE(hot_array_in_step_until_settled))
