/* DefaultPreemption: upstream scenarios of spec §6 (TestPostFilter, TestDryRunPreemption,
 * TestSelectBestCandidate, TestPreempt, TestPodEligibleToPreemptOthers, TestPDBInPreemption).
 * Every scenario runs the three victim-selection paths (arithmetic, incremental, reference) and
 * checks they agree and that the cluster is left exactly as found. */
#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "sched/preempt/preempt.h"
#include "test_preempt_util.h"

/* §6 conventions: small 100m/100, medium 200m/200, large 300m/300, veryLarge 500m/500;
 * neg -100, low 0, mid 100, high 1000, veryHigh 10000. */

/* ---- A. PostFilter ---- */

KT_TEST(postfilter_higher_priority_preempts) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 0, NULL, NULL, -1, NULL);
    tp_pod("p", NULL, 1000, NULL, NULL, -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NOMINATED);
    KT_CHECK_STR(r.node, "node1");
    KT_CHECK_STR(r.victims, "p1");
    KT_CHECK_STR(
        r.message,
        "preemption: found a potential placement for pod on node node1, preempting 1 victims");
    tp_end();
}

KT_TEST(postfilter_tied_priority) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 0, NULL, NULL, -1, NULL);
    tp_pod("p", NULL, 0, NULL, NULL, -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NO_CANDIDATES);
    KT_CHECK_STR(
        r.message,
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
    tp_end();
}

KT_TEST(postfilter_respects_unresolvable_and_absent) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 0, NULL, NULL, -1, NULL);
    tp_pod("p", NULL, 1000, NULL, NULL, -1, NULL);
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[0] = KP_CODE_UNRESOLVABLE;
    tp_run(NULL, &o, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NO_CANDIDATES);
    KT_CHECK_STR(
        r.message,
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    tp_end();
    /* a real unresolvable filter (node selector mismatch) gives the same answer */
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 0, NULL, NULL, -1, NULL);
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\n"
           "spec:\n  priority: 1000\n  nodeSelector: {disk: ssd}\n  containers: [{name: c}]\n");
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(
        r.message,
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    tp_end();
}

KT_TEST(postfilter_pick_lower_priority_victim) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_node("node2", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 1000, NULL, NULL, -1, NULL);
    tp_pod("p2", "node2", 0, NULL, NULL, -1, NULL);
    tp_pod("p", NULL, 100, NULL, NULL, -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node, "node2");
    KT_CHECK_STR(r.victims, "p2");
    tp_end();
}

/* #128307 regression: both nodes 1 violation; node2's highest victim (mid) < node1's (high). */
KT_TEST(postfilter_min_highest_priority_with_pdbs) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_node("node2", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 1000, NULL, NULL, -1, "{app: nonviolating}");
    tp_pod("p2", "node1", 0, NULL, NULL, -1, "{app: violating}");
    tp_pod("p3", "node2", 100, NULL, NULL, -1, "{app: violating}");
    tp_pdb("violating", "{app: violating}", 0, NULL);
    tp_pdb("nonviolating", "{app: nonviolating}", 2147483647, NULL);
    tp_pod("p", NULL, 10000, NULL, NULL, -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node, "node2");
    KT_CHECK_STR(r.victims, "p3");
    KT_CHECK_INT(r.pdb_violations, 1);
    KT_CHECK_STR(r.decided_by, "lowest highest-priority victim");
    /* node1's victims are re-sorted after reprieve: high p1 first although p2 (violating) was
     * tried first */
    KT_CHECK_STR(r.node_victims[0], "p1,p2");
    tp_end();
}

KT_TEST(postfilter_not_enough_even_after_eviction) {
    tp_begin();
    tp_node("node1", "200m", "400", 32, NULL);
    tp_node("node2", "200m", "400", 32, NULL);
    tp_pod("p1", "node1", 0, "0", "0", -1, NULL);
    tp_pod("p2", "node2", 0, "0", "0", -1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[0] = o.codes[1] = KP_CODE_UNSCHEDULABLE; /* as injected upstream */
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.message, "preemption: 0/2 nodes are available: 2 Insufficient cpu.");
    tp_end();
}

KT_TEST(postfilter_mixed_reasons) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_node("node2", "200m", "400", 32, NULL);
    tp_node("node3", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 1000, NULL, NULL, -1, NULL);
    tp_pod("p2", "node2", 0, "0", "0", -1, NULL);
    tp_pod("p3", "node3", 1000, NULL, NULL, -1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[0] = o.codes[1] = o.codes[2] = KP_CODE_UNSCHEDULABLE;
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.message, "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No "
                            "preemption victims found for incoming pod.");
    tp_end();
}

KT_TEST(postfilter_mixed_unresolvable_absent) {
    tp_begin();
    for (int i = 1; i <= 4; i++) {
        char n[16], p[16];
        snprintf(n, sizeof n, "node%d", i);
        snprintf(p, sizeof p, "p%d", i);
        tp_node(n, "200m", "400", 32, NULL);
        tp_pod(p, n, 0, "0", "0", -1, NULL);
    }
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[0] = o.codes[1] = KP_CODE_UNSCHEDULABLE;
    o.codes[2] = o.codes[3] = KP_CODE_UNRESOLVABLE;
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.message, "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption "
                            "is not helpful for scheduling.");
    tp_end();
}

/* ---- B. Dry run ---- */

KT_TEST(dryrun_both_nodes_candidates) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_pod("p1", "node1", 100, "300m", "300", -1, NULL);
    tp_pod("p2", "node2", 100, "300m", "300", -1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node_victims[0], "p1");
    KT_CHECK_STR(r.node_victims[1], "p2");
    KT_CHECK_INT(r.dry_calls, 4);
    tp_end();
}

KT_TEST(dryrun_higher_priority_residents) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_pod("p1", "node1", 100, "300m", "300", -1, NULL);
    tp_pod("p2", "node2", 100, "300m", "300", -1, NULL);
    tp_pod("p", NULL, 0, "300m", "300", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NO_CANDIDATES);
    KT_CHECK_INT(r.dry_calls, 0);
    tp_end();
}

KT_TEST(dryrun_medium_preempted_small_stays) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_pod("p1.1", "node1", 0, "100m", "100", -1, NULL);
    tp_pod("p1.2", "node1", 100, "300m", "300", -1, NULL);
    tp_pod("p2", "node2", 100, "300m", "300", -1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node_victims[0], "p1.2");
    KT_CHECK_STR(r.node_victims[1], "p2");
    KT_CHECK_INT(r.dry_calls, 5);
    tp_end();
}

KT_TEST(dryrun_mixed_priorities) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_pod("p1.1", "node1", 100, "100m", "100", -1, NULL);
    tp_pod("p1.2", "node1", 0, "100m", "100", -1, NULL);
    tp_pod("p1.3", "node1", 100, "200m", "200", -1, NULL);
    tp_pod("p1.4", "node1", 1000, "100m", "100", -1, NULL);
    tp_pod("p2", "node2", 1000, "300m", "300", -1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node_victims[0], "p1.3,p1.2");
    KT_CHECK_STR(r.node_victims[1], "");
    KT_CHECK_INT(r.dry_calls, 4);
    KT_CHECK_STR(
        r.message,
        "preemption: found a potential placement for pod on node node1, preempting 2 victims");
    tp_end();
}

KT_TEST(dryrun_equal_priority_newest_goes) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_pod("p1.1", "node1", 0, "100m", "100", 5, NULL);
    tp_pod("p1.2", "node1", 0, "100m", "100", 4, NULL);
    tp_pod("p1.3", "node1", 100, "200m", "200", 3, NULL);
    tp_pod("p1.4", "node1", 1000, "100m", "100", 2, NULL);
    tp_pod("p2", "node2", 1000, "300m", "300", 1, NULL);
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node_victims[0], "p1.3,p1.1");
    KT_CHECK_INT(r.dry_calls, 4);
    tp_end();
}

KT_TEST(dryrun_anti_affinity) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, "{kubernetes.io/hostname: node1}");
    tp_node("node2", NULL, NULL, 32, "{kubernetes.io/hostname: node2}");
    tp_raw(
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1.1, namespace: default, uid: uid-p1.1, "
        "labels: {foo: x}}\n"
        "spec:\n  nodeName: node1\n  priority: 0\n  containers: [{name: c, resources: {requests: "
        "{cpu: 100m, memory: \"100\"}}}]\n"
        "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      - labelSelector: {matchExpressions: [{key: foo, operator: Exists}]}\n        "
        "topologyKey: kubernetes.io/hostname\n"
        "status: {phase: Running}\n");
    tp_pod("p1.2", "node1", 100, "100m", "100", -1, NULL);
    tp_pod("p1.3", "node1", 1000, "100m", "100", -1, NULL);
    tp_pod("p2", "node2", 1000, "100m", "100", -1, NULL);
    tp_pod("p", NULL, 1000, "100m", "100", -1, "{foo: x}");
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[1] = KP_CODE_UNSCHEDULABLE; /* upstream gives every node status Unschedulable */
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.node_victims[0], "p1.1");
    KT_CHECK_STR(r.node_victims[1], "");
    KT_CHECK_INT(r.dry_calls, 3);
    tp_end();
}

KT_TEST(dryrun_topology_spread) {
    tp_begin();
    tp_node("node-a", NULL, NULL, 32, "{zone: zone1, kubernetes.io/hostname: node-a}");
    tp_node("node-b", NULL, NULL, 32, "{zone: zone1, kubernetes.io/hostname: node-b}");
    tp_node("node-x", NULL, NULL, 32, "{zone: zone2, kubernetes.io/hostname: node-x}");
    tp_pod("a1", "node-a", 100, NULL, NULL, -1, "{foo: \"\"}");
    tp_pod("a2", "node-a", 0, NULL, NULL, -1, "{foo: \"\"}");
    tp_pod("b1", "node-b", 0, NULL, NULL, -1, "{foo: \"\"}");
    tp_pod("x1", "node-x", 1000, NULL, NULL, -1, "{foo: \"\"}");
    tp_pod("x2", "node-x", 1000, NULL, NULL, -1, "{foo: \"\"}");
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p, "
           "labels: {foo: \"\"}}\n"
           "spec:\n  priority: 1000\n  containers: [{name: c}]\n  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: "
           "{matchExpressions: [{key: foo, operator: Exists}]}}\n"
           "  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
           "DoNotSchedule, labelSelector: {matchExpressions: [{key: foo, operator: Exists}]}}\n");
    tp_res r;
    tp_opts o = tp_opts_default();
    o.codes[0] = o.codes[1] = o.codes[2] = KP_CODE_UNSCHEDULABLE;
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.node_victims[0], "a2");
    KT_CHECK_STR(r.node_victims[1], "b1");
    KT_CHECK_STR(r.node_victims[2], "");
    KT_CHECK_INT(r.dry_calls, 5);
    tp_end();
}

static void pdb_two_pods(const char *disrupted, int n_pods) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    for (int i = 1; i <= n_pods; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "p1.%d", i);
        tp_pod(nm, "node1", 100, "200m", "200", -1, "{app: foo}");
    }
    tp_pdb("pdb", "{app: foo}", 1, disrupted);
    tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
}

KT_TEST(dryrun_pdb_same_budget) {
    tp_res r;
    pdb_two_pods(NULL, 2);
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.victims, "p1.1,p1.2");
    KT_CHECK_INT(r.pdb_violations, 1);
    KT_CHECK_INT(r.dry_calls, 3);
    tp_end();
    pdb_two_pods("p2", 2); /* disruptedPods names another pod */
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.pdb_violations, 1);
    tp_end();
    pdb_two_pods("p1.2", 2); /* a victim already being disrupted: no decrement, not violating */
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.pdb_violations, 0);
    tp_end();
    pdb_two_pods("p1.3", 3);
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.victims, "p1.1,p1.2,p1.3");
    KT_CHECK_INT(r.pdb_violations, 1);
    KT_CHECK_INT(r.dry_calls, 4);
    tp_end();
}

#define BUDGET_CFG(ABS)                                                                         \
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n" \
    "- schedulerName: default-scheduler\n  pluginConfig:\n  - name: DefaultPreemption\n    "    \
    "args:\n"                                                                                   \
    "      minCandidateNodesPercentage: 40\n      minCandidateNodesAbsolute: " ABS "\n"

static void five_nodes(const char *high_on, const char *labelled) {
    tp_begin();
    for (int i = 1; i <= 5; i++) {
        char n[16], p[16];
        snprintf(n, sizeof n, "node%d", i);
        snprintf(p, sizeof p, "p%d", i);
        tp_node(n, NULL, NULL, 32, NULL);
        bool high = high_on && strchr(high_on, '0' + i);
        bool lab = labelled && strchr(labelled, '0' + i);
        tp_pod(p, n, high ? 10000 : 100, "300m", "300", -1, lab ? "{app: foo}" : NULL);
    }
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
}

KT_TEST(dryrun_candidate_budget_offsets) {
    const char *cfg = BUDGET_CFG("1");
    const long offsets[3] = {4, 1, 3};
    const char *want[3] = {"node1,node5", "node2,node3", "node4,node5"};
    for (int k = 0; k < 3; k++) {
        five_nodes(NULL, NULL);
        tp_opts o = tp_opts_default();
        o.offset = offsets[k];
        tp_res r;
        tp_run(cfg, &o, &r);
        KT_CHECK_STR(r.candidates, want[k]);
        KT_CHECK_INT(r.dry_calls, 4);
        tp_end();
    }
    /* skipping non-candidates: node2 and node5 hold veryHigh pods */
    five_nodes("25", NULL);
    tp_opts o = tp_opts_default();
    o.offset = 4;
    tp_res r;
    tp_run(cfg, &o, &r);
    KT_CHECK_STR(r.candidates, "node1,node3");
    KT_CHECK_INT(r.dry_calls, 4);
    tp_end();
}

KT_TEST(dryrun_look_past_budget_for_nonviolating) {
    const char *cfg = BUDGET_CFG("2");
    five_nodes(NULL, "125");
    tp_pdb("pdb", "{app: foo}", 0, NULL);
    tp_opts o = tp_opts_default();
    o.offset = 4;
    tp_res r;
    tp_run(cfg, &o, &r);
    KT_CHECK_STR(r.candidates, "node1,node3,node5");
    KT_CHECK_INT(r.node_viol[0], 1);
    KT_CHECK_INT(r.node_viol[2], 0);
    KT_CHECK_INT(r.node_viol[4], 1);
    KT_CHECK_INT(r.dry_calls, 8);
    KT_CHECK_STR(r.node, "node3");
    tp_end();
}

KT_TEST(candidate_budget_formula) {
    /* 250 nodes, defaults (10 %, 100): budget 100 -> stop after 100 non-violating candidates */
    tp_begin();
    for (int i = 0; i < 250; i++) {
        char n[16], p[16];
        snprintf(n, sizeof n, "n%03d", i);
        snprintf(p, sizeof p, "v%03d", i);
        tp_node(n, NULL, NULL, 32, NULL);
        tp_pod(p, n, 0, "300m", "300", -1, NULL);
    }
    tp_pod("p", NULL, 1000, "300m", "300", -1, NULL);
    tp_opts o = tp_opts_default();
    o.offset = 0;
    tp_res r;
    tp_run(NULL, &o, &r);
    KT_CHECK_INT(r.n_candidates, 100);
    tp_end();
}


KT_MAIN(KT_CASE(postfilter_higher_priority_preempts), KT_CASE(postfilter_tied_priority),
        KT_CASE(postfilter_respects_unresolvable_and_absent),
        KT_CASE(postfilter_pick_lower_priority_victim),
        KT_CASE(postfilter_min_highest_priority_with_pdbs),
        KT_CASE(postfilter_not_enough_even_after_eviction), KT_CASE(postfilter_mixed_reasons),
        KT_CASE(postfilter_mixed_unresolvable_absent), KT_CASE(dryrun_both_nodes_candidates),
        KT_CASE(dryrun_higher_priority_residents), KT_CASE(dryrun_medium_preempted_small_stays),
        KT_CASE(dryrun_mixed_priorities), KT_CASE(dryrun_equal_priority_newest_goes),
        KT_CASE(dryrun_anti_affinity), KT_CASE(dryrun_topology_spread),
        KT_CASE(dryrun_pdb_same_budget), KT_CASE(dryrun_candidate_budget_offsets),
        KT_CASE(dryrun_look_past_budget_for_nonviolating), KT_CASE(candidate_budget_formula))
