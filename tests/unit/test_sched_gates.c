/* SchedulingGates (PreEnqueue): the cases of upstream's scheduling_gates_test.go (TestPreEnqueue:
 * "pod does not carry scheduling gates" passes, "pod carries scheduling gates" is rejected with
 * "waiting for scheduling gates: [foo bar]") through the scheduler, and the queue's consequences:
 * a gated pod is never attempted, never preempts, is reported SchedulingGated after the attempted
 * pods, and a profile without the plugin schedules it like any pod. */
#include "kprio/preempt.h"
#include "test_sched_util.h"

#define NODE(name, cpu)                                             \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name "}\n" \
    "status: {allocatable: {cpu: \"" cpu "\", memory: 8Gi, pods: \"110\"}}\n"
#define POD(name, spec)                                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default}\nspec: " spec \
    "\n"
#define CT(cpu) "{name: c, resources: {requests: {cpu: \"" cpu "\"}}}"

/* n1 (2 cpu) holds "low" (1 cpu, priority 0); "gated" (priority 1000, 2 cpu) would preempt it */
static const char *CLUSTER =
    NODE("n1", "2") POD("low", "{nodeName: n1, priority: 0, containers: [" CT("1") "]}")
        POD("gated", "{priority: 1000, schedulingGates: [{name: foo}, {name: bar}], "
                     "containers: [" CT("2") "]}")
            POD("plain", "{priority: 0, containers: [" CT("1") "]}");

KT_TEST(gates_pod_without_gates_is_queued_pod_with_gates_is_not) {
    kp_cluster *cl = ts_load(CLUSTER);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK(s != NULL);
    if (!s) return;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_explain(s, kp_cluster_find_pod(cl, "default/gated"), &err), KP_OK);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    /* "plain" was attempted (and bound); "gated" comes after it, never attempted */
    KT_CHECK_INT(kp_sched_result_count(s), 2);
    const kp_sched_pod_result *r0 = kp_sched_result(s, 0), *r1 = kp_sched_result(s, 1);
    KT_CHECK(r0 && r0->pod == kp_cluster_find_pod(cl, "default/plain"));
    KT_CHECK(r0 && r0->outcome == KP_OUTCOME_BOUND);
    KT_CHECK(r1 && r1->pod == kp_cluster_find_pod(cl, "default/gated"));
    if (r1) {
        KT_CHECK_INT(r1->outcome, KP_OUTCOME_GATED);
        KT_CHECK_INT(r1->n_victims, 0);
        KT_CHECK_INT(r1->node, -1);
        KT_CHECK_INT(r1->nominated_node, -1);
        KT_CHECK_STR(r1->message, "Scheduling is blocked due to non-empty scheduling gates");
    }
    kp_sched_explanation x;
    KT_CHECK(kp_sched_explanation_get(s, &x));
    KT_CHECK(!x.attempted);
    KT_CHECK_STR(x.pre_enqueue_message, "waiting for scheduling gates: [foo bar]");
    /* nobody was preempted: "low" is still bound and not terminating */
    size_t k;
    KT_CHECK_INT(kp_sched_result_find_preemptor(s, kp_cluster_find_pod(cl, "default/low"), &k),
                 KP_ENOTFOUND);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(gates_schedule_one_does_not_attempt_a_gated_pod) {
    kp_cluster *cl = ts_load(CLUSTER);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK(s != NULL);
    if (!s) return;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_schedule_one(s, kp_cluster_find_pod(cl, "default/gated"), &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "default/gated");
    KT_CHECK(r && r->outcome == KP_OUTCOME_GATED);
    KT_CHECK(r && r->n_victims == 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(gates_profile_without_the_plugin_schedules_gated_pods) {
    kp_cluster *cl = ts_load(CLUSTER);
    kp_sched *s = ts_sched(cl,
                           "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "profiles:\n- plugins: {preEnqueue: {disabled: [{name: "
                           "SchedulingGates}]}}\n",
                           0);
    KT_CHECK(s != NULL);
    if (!s) return;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "default/gated");
    KT_CHECK(r && r->outcome == KP_OUTCOME_NOMINATED);
    KT_CHECK(r && r->n_victims == 1 && r->victims[0] == kp_cluster_find_pod(cl, "default/low"));
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(gates_preemption_what_if_of_a_gated_pod_is_not_eligible) {
    kp_cluster *cl = ts_load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_preemption *p = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_preemption_new(cl, kp_cluster_find_pod(cl, "default/gated"), NULL, &p, &err),
                 KP_OK);
    if (p) {
        KT_CHECK_INT(kp_preemption_outcome(p), KP_PREEMPTION_NOT_ELIGIBLE);
        KT_CHECK_INT(kp_preemption_victim_count(p), 0);
        KT_CHECK_STR(kp_preemption_message(p),
                     "not eligible: waiting for scheduling gates: [foo bar]");
    }
    kp_preemption_free(p);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(gates_pod_without_gates_is_queued_pod_with_gates_is_not),
        KT_CASE(gates_schedule_one_does_not_attempt_a_gated_pod),
        KT_CASE(gates_profile_without_the_plugin_schedules_gated_pods),
        KT_CASE(gates_preemption_what_if_of_a_gated_pod_is_not_eligible))
