/* DefaultPreemption node choice (TestSelectBestCandidate), eligibility
 * (TestPodEligibleToPreemptOthers), actuation (TestPreempt), TestPDBInPreemption and --compat. */
#include "core/cluster.h"
#include "core/meta.h"
#include "core/pod.h"
#include "harness.h"
#include "test_preempt_util.h"

/* Each node: pods given as "prio:cpu:start" triples; preemptor high (1000) veryLarge. */
static void sel_node(const char *node, const char *spec) {
    tp_node(node, NULL, NULL, 32, NULL);
    int k = 0;
    const char *p = spec;
    while (*p) {
        int prio, cpu, start;
        int used = 0;
        if (sscanf(p, "%d:%d:%d%n", &prio, &cpu, &start, &used) != 3) break;
        char name[32], cpus[16];
        snprintf(name, sizeof name, "%s-p%d", node, ++k);
        snprintf(cpus, sizeof cpus, "%dm", cpu);
        tp_pod(name, node, prio, cpus, "1", start, NULL);
        p += used;
        while (*p == ' ') p++;
    }
}

static void sel_run(int preemptor_prio, tp_res *r) {
    tp_pod("p", NULL, preemptor_prio, "500m", "1", -1, NULL);
    tp_run(NULL, NULL, r);
}

KT_TEST(select_random_tie) {
    tp_begin();
    sel_node("node1", "100:300:0");
    sel_node("node2", "100:300:0");
    tp_res r;
    sel_run(1000, &r);
    KT_CHECK(strcmp(r.node, "node1") == 0 || strcmp(r.node, "node2") == 0);
    KT_CHECK_STR(r.decided_by, "tie broken by the seeded PRNG");
    tp_end();
    /* injected tie index picks deterministically among the tied nodes (candidate order) */
    for (int t = 0; t < 2; t++) {
        tp_begin();
        sel_node("node1", "100:300:0");
        sel_node("node2", "100:300:0");
        tp_pod("p", NULL, 1000, "500m", "1", -1, NULL);
        tp_opts o = tp_opts_default();
        o.offset = 0;
        o.tie = t;
        tp_run(NULL, &o, &r);
        KT_CHECK_STR(r.node, t == 0 ? "node1" : "node2");
        tp_end();
    }
}

KT_TEST(select_lowest_highest_priority) {
    tp_begin();
    sel_node("node1", "100:200:0 100:300:0");
    sel_node("node2", "100:200:0 0:200:0");
    sel_node("node3", "0:200:0 0:200:0");
    tp_res r;
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node3");
    KT_CHECK_STR(r.decided_by, "lowest highest-priority victim");
    tp_end();
}

KT_TEST(select_smallest_sum) {
    tp_begin();
    sel_node("node1", "100:200:0 100:300:0");
    sel_node("node2", "100:300:0 0:200:0");
    sel_node("node3", "100:200:0 100:200:0");
    tp_res r;
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node2");
    tp_end();
}

KT_TEST(select_offset_sum_negative_priorities) {
    tp_begin();
    sel_node("node1", "100:100:0 -100:100:0 100:100:0 -100:100:0");
    sel_node("node2", "100:300:0 -100:200:0");
    sel_node("node3", "100:200:0 -100:100:0 0:100:0");
    tp_res r;
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node2");
    KT_CHECK_STR(r.decided_by, "smallest sum of victim priorities (+2^31 each)");
    tp_end();
    tp_begin();
    sel_node("node1", "100:100:0 -100:100:0 -100:100:0");
    sel_node("node2", "100:300:0 -100:200:0");
    sel_node("node3", "100:200:0 -100:100:0 0:100:0");
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node2");
    tp_end();
}

KT_TEST(select_many_nodes_veryhigh) {
    tp_begin();
    sel_node("node1", "100:100:0 0:100:0 0:100:0");
    sel_node("node2", "1000:300:0");
    sel_node("node3", "100:200:0 0:100:0 0:100:0 0:200:0");
    sel_node("node4", "100:200:0 100:100:0 100:100:0 -100:100:0");
    tp_res r;
    sel_run(10000, &r);
    KT_CHECK_STR(r.node, "node1");
    tp_end();
}

KT_TEST(select_start_times) {
    tp_res r;
    tp_begin();
    sel_node("node1", "100:200:2 100:200:2");
    sel_node("node2", "100:200:3 100:200:3");
    sel_node("node3", "100:200:1 100:200:1");
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node2");
    KT_CHECK_STR(r.decided_by, "latest start time among the highest-priority victims");
    tp_end();
    tp_begin();
    sel_node("node1", "100:200:4 100:200:2");
    sel_node("node2", "100:200:5 100:200:1");
    sel_node("node3", "100:200:3 100:200:6");
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node3");
    tp_end();
    tp_begin();
    sel_node("node1", "0:200:4 100:200:2");
    sel_node("node2", "100:200:6 0:200:1");
    sel_node("node3", "0:200:3 100:200:5");
    sel_run(1000, &r);
    KT_CHECK_STR(r.node, "node2");
    tp_end();
}

/* TestPreempt: actuation marks victims, a second attempt is not eligible. */
KT_TEST(preempt_actuate_then_not_eligible) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_node("node2", NULL, NULL, 32, NULL);
    tp_node("node3", NULL, NULL, 32, NULL);
    tp_pod("p1.1", "node1", 0, "100m", "100", -1, NULL);
    tp_pod("p1.2", "node1", 0, "100m", "100", -1, NULL);
    tp_pod("p2.1", "node2", 1000, "300m", "300", -1, NULL);
    tp_pod("p3.1", "node3", 100, "200m", "200", -1, NULL);
    tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
    KT_CHECK(tp_load());
    KT_CHECK(tp_new_sched(NULL));
    uint32_t pod = (uint32_t)kp_cluster_find_pod(tp_cl, "default/p");
    kp_preempt_result r;
    KT_CHECK_INT(tp_attempt(pod, NULL, 0, &r, NULL), KP_OK);
    tp_res out;
    tp_render(&r, 0, &out);
    KT_CHECK_STR(out.node, "node1");
    KT_CHECK_STR(out.victims, "p1.1,p1.2");
    kp_error err;
    KT_CHECK_INT(kp__preempt_actuate(tp_s, pod, &r, &err), KP_OK);
    for (uint32_t i = 0; i < r.n_victims; i++) {
        const kp_pod *v = &tp_cl->pods[r.victims[i]];
        KT_CHECK(v->deletion_ts != KP_TIME_NONE);
        KT_CHECK(
            kp__pod_has_condition(tp_cl, v, "DisruptionTarget", "True", "PreemptionByScheduler"));
        KT_CHECK_STR(kp__s(tp_cl, v->conditions[v->n_conditions - 1].message),
                     "default-scheduler: preempting to accommodate a higher priority pod");
    }
    KT_CHECK_STR(kp__s(tp_cl, tp_cl->pods[pod].nominated_node), "node1");
    char note[128];
    KT_CHECK_STR(kp__preempt_event_note(tp_cl, pod, 0, note, sizeof note),
                 "Preempted by pod uid-p on node node1");
    kp__preempt_result_fini(&r);
    /* second attempt: victims still terminating on the nominated node -> not eligible */
    KT_CHECK_INT(tp_attempt(pod, NULL, 0, &r, NULL), KP_OK);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NOT_ELIGIBLE);
    KT_CHECK_STR(r.message,
                 "preemption: not eligible due to a terminating pod on the nominated node.");
    kp__preempt_result_fini(&r);
    /* nominated node unresolvable -> eligible again */
    tp_opts o = tp_opts_default();
    o.codes[0] = KP_CODE_UNRESOLVABLE;
    KT_CHECK_INT(tp_attempt(pod, &o, 0, &r, NULL), KP_OK);
    KT_CHECK(r.outcome != KP_PREEMPT_NOT_ELIGIBLE);
    kp__preempt_result_fini(&r);
    tp_end();
}

/* PreemptPod: the victim's DisruptionTarget message names the preemptor's schedulerName
 * (executor.go: representative.Spec.SchedulerName), not the victim's. */
KT_TEST(preempt_message_names_preemptor_scheduler) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: v, namespace: default, uid: uid-v}\n"
           "spec: {nodeName: node1, schedulerName: batch-scheduler, priority: 0, containers: "
           "[{name: c, resources: {requests: {cpu: \"32\"}}}]}\nstatus: {phase: Running}\n");
    tp_pod("p", NULL, 1000, "500m", "1", -1, NULL);
    KT_CHECK(tp_load());
    KT_CHECK(tp_new_sched(NULL));
    uint32_t pod = (uint32_t)kp_cluster_find_pod(tp_cl, "default/p");
    kp_preempt_result r;
    KT_CHECK_INT(tp_attempt(pod, NULL, 0, &r, NULL), KP_OK);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NOMINATED);
    KT_CHECK_INT(r.n_victims, 1);
    kp_error err;
    KT_CHECK_INT(kp__preempt_actuate(tp_s, pod, &r, &err), KP_OK);
    const kp_pod *v = &tp_cl->pods[kp_cluster_find_pod(tp_cl, "default/v")];
    KT_CHECK(kp__pod_has_condition(tp_cl, v, "DisruptionTarget", "True", "PreemptionByScheduler"));
    KT_CHECK_STR(kp__s(tp_cl, v->conditions[v->n_conditions - 1].message),
                 "default-scheduler: preempting to accommodate a higher priority pod");
    kp__preempt_result_fini(&r);
    tp_end();
}

KT_TEST(eligibility_never_and_plain_terminating) {
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_pod("p1", "node1", 0, NULL, NULL, -1, NULL);
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\n"
           "spec: {priority: 1000, preemptionPolicy: Never, containers: [{name: c}]}\n");
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NOT_ELIGIBLE);
    KT_CHECK_STR(r.message, "preemption: not eligible due to preemptionPolicy=Never.");
    tp_end();
    /* a pod terminating without the scheduler's DisruptionTarget does not block */
    tp_begin();
    tp_node("node1", NULL, NULL, 1, NULL);
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, uid: uid-p1, "
           "deletionTimestamp: \"2024-01-01T00:00:00Z\"}\nspec: {nodeName: node1, priority: 0, "
           "containers: [{name: c}]}\n"
           "status: {phase: Running}\n");
    tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\n"
           "spec: {priority: 1000, containers: [{name: c}]}\nstatus: {nominatedNodeName: node1}\n");
    tp_run(NULL, NULL, &r);
    KT_CHECK_INT(r.outcome, KP_PREEMPT_NOMINATED);
    tp_end();
}

/* TestPDBInPreemption */
KT_TEST(pdb_integration) {
    tp_res r;
    tp_begin();
    tp_node("node-1", NULL, NULL, 32, NULL);
    tp_pod("low-pod1", "node-1", 0, "100m", "100", -1, "{foo: bar}");
    tp_pod("low-pod2", "node-1", 0, "100m", "100", -1, "{foo: bar}");
    tp_pod("mid-pod3", "node-1", 100, "100m", "100", -1, NULL);
    tp_pdb("pdb", "{foo: bar}", 0, NULL);
    tp_pod("p", NULL, 1000, "300m", "200", -1, NULL);
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.victims, "mid-pod3");
    KT_CHECK_INT(r.pdb_violations, 0);
    tp_end();

    tp_begin();
    tp_node("node-1", NULL, NULL, 32, NULL);
    tp_node("node-2", NULL, NULL, 32, NULL);
    tp_pod("low-pod1", "node-1", 0, "100m", "100", -1, "{foo: bar}");
    tp_pod("mid-pod2", "node-2", 100, "100m", "100", -1, NULL);
    tp_pdb("pdb", "{foo: bar}", 0, NULL);
    tp_pod("p", NULL, 1000, "500m", "200", -1, NULL);
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node, "node-2");
    KT_CHECK_STR(r.victims, "mid-pod2");
    tp_end();

    tp_begin();
    tp_node("node-1", NULL, NULL, 32, NULL);
    tp_node("node-2", NULL, NULL, 32, NULL);
    tp_node("node-3", NULL, NULL, 32, NULL);
    tp_pod("low-pod1", "node-1", 0, "100m", "100", -1, "{foo1: bar}");
    tp_pod("mid-pod1", "node-1", 100, "100m", "100", -1, NULL);
    tp_pod("low-pod2", "node-2", 0, "100m", "100", -1, "{foo2: bar}");
    tp_pod("mid-pod2", "node-2", 100, "100m", "100", -1, "{foo2: bar}");
    tp_pod("low-pod4", "node-3", 0, "100m", "100", -1, "{foo2: bar}");
    tp_pod("low-pod5", "node-3", 0, "100m", "100", -1, "{foo2: bar}");
    tp_pod("low-pod6", "node-3", 0, "100m", "100", -1, "{foo2: bar}");
    tp_pdb("pdb1", "{foo1: bar}", 0, NULL);
    tp_pdb("pdb2", "{foo2: bar}", 3, NULL);
    tp_pod("p", NULL, 1000, "500m", "400", -1, NULL);
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.node, "node-3");
    KT_CHECK_INT(r.pdb_violations, 0);
    KT_CHECK_INT(r.node_viol[0], 1);
    tp_end();
}

/* A pod matched by two PDBs: newest stops at the first violated PDB, 1.35 decrements both. */
KT_TEST(compat_pdb_accounting) {
    for (int compat = 0; compat < 2; compat++) {
        tp_begin();
        tp_node("node1", NULL, NULL, 32, NULL);
        tp_pod("a", "node1", 100, "200m", "200", 1, "{x: \"1\", y: \"1\"}");
        tp_pod("b", "node1", 100, "200m", "200", 2, "{y: \"1\"}");
        tp_pdb("pdb-a", "{x: \"1\"}", 0, NULL); /* a violates here first */
        tp_pdb("pdb-b", "{y: \"1\"}", 1, NULL); /* newest: a never consumes it; 1.35: it does */
        tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
        tp_opts o = tp_opts_default();
        o.compat = compat ? KP_PREEMPT_COMPAT_1_35 : KP_PREEMPT_COMPAT_NEWEST;
        tp_res r;
        tp_run(NULL, &o, &r);
        KT_CHECK_STR(r.victims, "a,b");
        KT_CHECK_INT(r.pdb_violations, compat ? 2 : 1);
        tp_end();
    }
}

/* Equal priority and start time: v1.37 and 1.35 both fall back to load order; the UID
 * tie-break (PR #140999) is not in v1.37.0, so the UIDs (zzz before aaa) must not reorder. */
KT_TEST(compat_victim_order_uid) {
    for (int compat = 0; compat < 2; compat++) {
        tp_begin();
        tp_node("node1", NULL, NULL, 32, NULL);
        tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: first, namespace: default, uid: "
               "zzz}\n"
               "spec: {nodeName: node1, priority: 0, containers: [{name: c, resources: {requests: "
               "{cpu: 200m}}}]}\n"
               "status: {phase: Running, startTime: \"1970-01-01T00:00:05Z\"}\n");
        tp_raw("---\napiVersion: v1\nkind: Pod\nmetadata: {name: second, namespace: default, uid: "
               "aaa}\n"
               "spec: {nodeName: node1, priority: 0, containers: [{name: c, resources: {requests: "
               "{cpu: 200m}}}]}\n"
               "status: {phase: Running, startTime: \"1970-01-01T00:00:05Z\"}\n");
        tp_pod("p", NULL, 1000, "300m", "1", -1, NULL);
        tp_opts o = tp_opts_default();
        o.compat = compat ? KP_PREEMPT_COMPAT_1_35 : KP_PREEMPT_COMPAT_NEWEST;
        tp_res r;
        tp_run(NULL, &o, &r);
        /* the more important one is reprieved, the other evicted */
        KT_CHECK_STR(r.victims, "second");
        tp_end();
    }
    kp_preempt_compat c;
    KT_CHECK(kp__preempt_compat_parse("1.35", &c) && c == KP_PREEMPT_COMPAT_1_35);
    KT_CHECK(kp__preempt_compat_parse("v1.29", &c) && c == KP_PREEMPT_COMPAT_1_35);
    KT_CHECK(kp__preempt_compat_parse("1.36", &c) && c == KP_PREEMPT_COMPAT_NEWEST);
    KT_CHECK(!kp__preempt_compat_parse("banana", &c));
}

KT_MAIN(KT_CASE(select_random_tie), KT_CASE(select_lowest_highest_priority),
        KT_CASE(select_smallest_sum), KT_CASE(select_offset_sum_negative_priorities),
        KT_CASE(select_many_nodes_veryhigh), KT_CASE(select_start_times),
        KT_CASE(preempt_actuate_then_not_eligible),
        KT_CASE(preempt_message_names_preemptor_scheduler),
        KT_CASE(eligibility_never_and_plain_terminating), KT_CASE(pdb_integration),
        KT_CASE(compat_pdb_accounting), KT_CASE(compat_victim_order_uid))
