/* Pod state changes (include/kprio/cluster.h, "Pod state changes"; src/core/pod_state.c): each
 * writer on its own (bind keeps the node's aggregates, nominate, mark terminating writes the
 * DisruptionTarget condition with reason and message once, finish frees the node and keeps a
 * terminal phase final, set running, delete), the scheduler's binding and preemption seen
 * through kp_cluster_pod_info as they were before core wrote them, and the simulator's pod
 * states read from the cluster. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "kprio/sim.h"

static kp_cluster *load(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err->msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* The pod's conditions of type DisruptionTarget (how many), and the last one's fields. */
static int disruption(const kp_cluster *cl, kp_index pod, const char **status, const char **reason,
                      const char **message) {
    const kp_pod *p = &cl->pods[pod];
    int n = 0;
    *status = *reason = *message = NULL;
    for (uint16_t i = 0; i < p->n_conditions; i++) {
        if (strcmp(kp__s(cl, p->conditions[i].type), "DisruptionTarget") != 0) continue;
        n++;
        *status = kp__s(cl, p->conditions[i].status);
        *reason = kp__s(cl, p->conditions[i].reason);
        *message = kp__s(cl, p->conditions[i].message);
    }
    return n;
}

static int64_t cpu_requested(const kp_cluster *cl, kp_index node) {
    return cl->nodes[node].requested[KP_RES_CPU];
}

/* clang-format off */
#define NODE(name)                                                                     \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {kubernetes.io/hostname: " name "}}\n" \
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"

/* on n1: run (1 cpu, running) and old (1 cpu, a DisruptionTarget False condition from the
 * snapshot); pending: free (3 cpu) */
static const char *BASE =
    NODE("n1") NODE("n2") NODE("n3")
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: run, namespace: d}\n"
    "spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n"
    "status: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: old, namespace: d}\n"
    "spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n"
    "status: {phase: Running, conditions: [{type: DisruptionTarget, status: 'False', reason: Was}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: free, namespace: d}\n"
    "spec: {containers: [{name: c, resources: {requests: {cpu: '3'}}}]}\n";
/* clang-format on */

KT_TEST(bind_updates_node_aggregates) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index free_pod = kp_cluster_find_pod(cl, "d/free"), run = kp_cluster_find_pod(cl, "d/run");
    kp_index n1 = kp_cluster_find_node(cl, "n1"), n2 = kp_cluster_find_node(cl, "n2");
    kp_index n3 = kp_cluster_find_node(cl, "n3");
    uint64_t gen = cl->gen_struct;
    uint32_t logged = cl->n_changed_log;
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 0);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n2, &err), KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_INT(pi.node, n2);
    KT_CHECK_STR(kp__s(cl, cl->pods[free_pod].node_name), "n2"); /* spec.nodeName */
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 1);
    KT_CHECK_INT(kp_cluster_node_pod(cl, n2, 0), free_pod);
    KT_CHECK_INT(cpu_requested(cl, n2), 3000);
    KT_CHECK(cl->gen_struct > gen); /* schedulers rebuild */
    KT_CHECK_INT(cl->n_changed_log, logged);
    /* bound there already: no-op; elsewhere: the binding's conflict, nothing changes */
    gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK(cl->gen_struct == gen);
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 1);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n1, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "is already assigned to node \"n2\"");
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 2);
    KT_CHECK_INT(cpu_requested(cl, n1), 2000);
    KT_CHECK_INT(kp_cluster_pod_node(cl, free_pod), n2);
    /* bad indices, a deleted node, an ended pod */
    KT_CHECK_INT(kp_cluster_bind_pod(cl, 99, n1, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, 99, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, -1, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_delete_node(cl, n3, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, free_pod, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err),
                 KP_OK);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n1, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "has ended");
    KT_CHECK_INT(kp_cluster_finish_pod(cl, run, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    const char *another = "apiVersion: v1\nkind: Pod\nmetadata: {name: late, namespace: d}\n"
                          "spec: {containers: [{name: c}]}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "late.yaml", another, strlen(another), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    kp_index late = kp_cluster_find_pod(cl, "d/late");
    KT_CHECK_INT(kp_cluster_bind_pod(cl, late, n3, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "Node n3: it was deleted");
    KT_CHECK_INT(kp_cluster_pod_node(cl, late), -1);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, late, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, late, n1, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "was deleted");
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 1);
    kp_cluster_free(cl);
}

KT_TEST(nominate_sets_and_clears) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index free_pod = kp_cluster_find_pod(cl, "d/free"), n2 = kp_cluster_find_node(cl, "n2");
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, n2, &err), KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_STR(pi.nominated_node, "n2");
    KT_CHECK_INT(pi.node, -1); /* a nomination reserves, it does not bind */
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 0);
    KT_CHECK(cl->gen_struct > gen); /* schedulers read nominations again */
    gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK(cl->gen_struct == gen); /* unchanged: nothing to catch up with */
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, 7, &err), KP_EINVAL);
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_STR(pi.nominated_node, "n2");
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, -1, &err), KP_OK);
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_STR(pi.nominated_node, "");
    /* deleting a nominated pod drops its nomination; a deleted pod is not nominated again */
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, free_pod, &err), KP_OK);
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_STR(pi.nominated_node, "");
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, n2, &err), KP_EINVAL);
    kp_cluster_free(cl);
}

KT_TEST(mark_terminating_condition_once) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index run = kp_cluster_find_pod(cl, "d/run"), old = kp_cluster_find_pod(cl, "d/old");
    kp_index n1 = kp_cluster_find_node(cl, "n1");
    const char *st, *why, *msg;
    KT_CHECK_INT(disruption(cl, run, &st, &why, &msg), 0);
    uint32_t logged = cl->n_changed_log;
    KT_CHECK_INT(kp_cluster_mark_terminating_disrupted(cl, run, 100, "PreemptionByScheduler",
                                                       "s1: preempting", &err),
                 KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK_INT(pi.deletion_ts, 100);
    KT_CHECK_INT(pi.node, n1); /* keeps its resources until deleted */
    KT_CHECK_INT(cpu_requested(cl, n1), 2000);
    KT_CHECK_INT(disruption(cl, run, &st, &why, &msg), 1);
    KT_CHECK_STR(st, "True");
    KT_CHECK_STR(why, "PreemptionByScheduler");
    KT_CHECK_STR(msg, "s1: preempting");
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    KT_CHECK_INT(cl->changed_log[logged], run);
    /* terminating already: nothing changes, nothing is logged */
    KT_CHECK_INT(
        kp_cluster_mark_terminating_disrupted(cl, run, 200, "EvictionByEvictionAPI", "other", &err),
        KP_OK);
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK_INT(pi.deletion_ts, 100);
    KT_CHECK_INT(disruption(cl, run, &st, &why, &msg), 1);
    KT_CHECK_STR(why, "PreemptionByScheduler");
    KT_CHECK_STR(msg, "s1: preempting");
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    /* a condition of the snapshot's is replaced, not doubled; without a message none is set */
    KT_CHECK_INT(disruption(cl, old, &st, &why, &msg), 1);
    KT_CHECK_STR(st, "False");
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, old, 300, "DeletionByTaintManager", &err), KP_OK);
    KT_CHECK_INT(disruption(cl, old, &st, &why, &msg), 1);
    KT_CHECK_STR(st, "True");
    KT_CHECK_STR(why, "DeletionByTaintManager");
    KT_CHECK_STR(msg, "");
    /* no reason: a deletion without a condition */
    kp_index free_pod = kp_cluster_find_pod(cl, "d/free");
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, free_pod, 400, NULL, &err), KP_OK);
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_INT(pi.deletion_ts, 400);
    KT_CHECK_INT(disruption(cl, free_pod, &st, &why, &msg), 0);
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, -1, 1, NULL, &err), KP_EINVAL);
    kp_cluster_free(cl);
}

KT_TEST(finish_frees_and_is_final) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index run = kp_cluster_find_pod(cl, "d/run"), n1 = kp_cluster_find_node(cl, "n1");
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, run, n1, &err), KP_OK);
    uint32_t logged = cl->n_changed_log;
    KT_CHECK_INT(kp_cluster_finish_pod(cl, run, KP_POD_PHASE_PENDING, "X", NULL, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_finish_pod_disrupted(cl, run, KP_POD_PHASE_FAILED, "Evicted", "low mem",
                                                 "TerminationByKubelet", "low mem", &err),
                 KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK(pi.terminal && pi.phase == KP_POD_PHASE_FAILED && pi.node == -1);
    KT_CHECK_STR(pi.nominated_node, "");
    KT_CHECK_STR(kp__s(cl, cl->pods[run].status_reason), "Evicted");
    KT_CHECK_STR(kp__s(cl, cl->pods[run].status_message), "low mem");
    const char *st, *why, *msg;
    KT_CHECK_INT(disruption(cl, run, &st, &why, &msg), 1);
    KT_CHECK_STR(why, "TerminationByKubelet");
    KT_CHECK_STR(msg, "low mem");
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 1); /* old stays */
    KT_CHECK_INT(cpu_requested(cl, n1), 1000);
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    /* a terminal phase is final: a second finish changes nothing */
    KT_CHECK_INT(kp_cluster_finish_pod(cl, run, KP_POD_PHASE_SUCCEEDED, "Done", "ok", &err), KP_OK);
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK_INT(pi.phase, KP_POD_PHASE_FAILED);
    KT_CHECK_STR(kp__s(cl, cl->pods[run].status_reason), "Evicted");
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    KT_CHECK_INT(kp_cluster_pod_set_running(cl, run, 5, &err), KP_EINVAL); /* not bound now */
    /* NULL reason and message keep what the status had; Succeeded without a condition */
    kp_index old = kp_cluster_find_pod(cl, "d/old");
    kp_str r0 = cl->pods[old].status_reason;
    KT_CHECK_INT(kp_cluster_finish_pod(cl, old, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    KT_CHECK(cl->pods[old].status_reason == r0);
    KT_CHECK_INT(disruption(cl, old, &st, &why, &msg), 1);
    KT_CHECK_STR(st, "False"); /* the snapshot's condition untouched */
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 0);
    KT_CHECK_INT(cpu_requested(cl, n1), 0);
    /* deleting an ended pod: its tombstone, logged */
    KT_CHECK_INT(kp_cluster_delete_pod(cl, run, &err), KP_OK);
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK(pi.deleted);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "d/run"), -1);
    KT_CHECK_INT(cl->n_changed_log, logged + 3);
    kp_cluster_free(cl);
}

KT_TEST(set_running_and_delete) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index free_pod = kp_cluster_find_pod(cl, "d/free"), n2 = kp_cluster_find_node(cl, "n2");
    KT_CHECK_INT(kp_cluster_pod_set_running(cl, free_pod, 10, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_set_running(cl, free_pod, 10, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_set_running(cl, free_pod, 20, &err), KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK_INT(pi.phase, KP_POD_PHASE_RUNNING);
    KT_CHECK_INT(cl->pods[free_pod].start_time, 10); /* the first start stays */
    uint32_t logged = cl->n_changed_log;
    KT_CHECK_INT(kp_cluster_delete_pod(cl, free_pod, &err), KP_OK);
    kp_cluster_pod_info(cl, free_pod, &pi);
    KT_CHECK(pi.deleted && pi.node == -1);
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 0);
    KT_CHECK_INT(cpu_requested(cl, n2), 0);
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, free_pod, &err), KP_OK); /* no-op */
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, 42, &err), KP_EINVAL);
    kp_cluster_free(cl);
}

/* The scheduler binds and preempts through core's writers: what kp_cluster_pod_info shows is what
 * the scheduler wrote itself before (spec.nodeName, the node's aggregates, no log entry for its
 * own binding; the victims' deletionTimestamp at the scheduler's time and one DisruptionTarget
 * condition with upstream's reason and message; the preemptor's nomination). */
KT_TEST(scheduler_bind_and_victims_visible) {
    kp_error err;
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000\n" NODE("n1") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, "
                                   "namespace: d}\n"
                                   "spec: {nodeName: n1, containers: [{name: c, resources: "
                                   "{requests: {cpu: '2'}}}]}\nstatus: {phase: Running}\n"
                                   "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: "
                                   "d}\nspec: {containers: [{name: c, resources: {requests: {cpu: "
                                   "'1'}}}]}\n"
                                   "---\napiVersion: v1\nkind: Pod\nmetadata: {name: top, "
                                   "namespace: d}\nspec: {priorityClassName: top, containers: "
                                   "[{name: c, resources: {requests: {cpu: '2'}}}]}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, NULL, NULL, &s, &err), KP_OK);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_index a = kp_cluster_find_pod(cl, "d/a"), b = kp_cluster_find_pod(cl, "d/b");
    kp_index top = kp_cluster_find_pod(cl, "d/top"), n1 = kp_cluster_find_node(cl, "n1");
    uint64_t gen = cl->gen_struct;
    uint32_t logged = cl->n_changed_log;
    KT_CHECK_INT(kp_sched_schedule_one(s, b, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result_of(s, b)->outcome, KP_OUTCOME_BOUND);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, b, &pi);
    KT_CHECK_INT(pi.node, n1);
    KT_CHECK_STR(pi.nominated_node, "");
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET && !pi.terminal);
    KT_CHECK_STR(kp__s(cl, cl->pods[b].node_name), "n1");
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 2);
    KT_CHECK_INT(cpu_requested(cl, n1), 3000);
    KT_CHECK(cl->gen_struct == gen); /* its own binding: no rebuild, no log entry */
    KT_CHECK_INT(cl->n_changed_log, logged);

    kp_sched_set_time(s, 1700000000);
    KT_CHECK_INT(kp_sched_schedule_one(s, top, &err), KP_OK);
    const kp_sched_pod_result *r = kp_sched_result_of(s, top);
    KT_CHECK_INT(r->outcome, KP_OUTCOME_NOMINATED);
    KT_CHECK_INT(r->n_victims, 1);
    kp_index v = r->n_victims ? r->victims[0] : -1;
    KT_CHECK(v == a || v == b);
    if (v < 0) v = a;
    kp_cluster_pod_info(cl, v, &pi);
    KT_CHECK_INT(pi.deletion_ts, 1700000000);
    KT_CHECK_INT(pi.node, n1); /* terminating: it keeps its resources */
    KT_CHECK(!pi.terminal && !pi.deleted);
    const char *st, *why, *msg;
    KT_CHECK_INT(disruption(cl, v, &st, &why, &msg), 1);
    KT_CHECK_STR(st, "True");
    KT_CHECK_STR(why, "PreemptionByScheduler");
    KT_CHECK_STR(msg, "default-scheduler: preempting to accommodate a higher priority pod");
    KT_CHECK_INT(cl->n_changed_log, logged + 1); /* core's mark terminating logged it */
    KT_CHECK_INT(cl->changed_log[logged], v);
    kp_cluster_pod_info(cl, top, &pi);
    KT_CHECK_STR(pi.nominated_node, "n1");
    KT_CHECK_INT(pi.node, -1);
    /* again: the victim terminates already, its condition and deletion stay as they were */
    kp_sched_set_time(s, 1700000100);
    KT_CHECK_INT(kp_sched_schedule_one(s, top, &err), KP_OK);
    kp_cluster_pod_info(cl, v, &pi);
    KT_CHECK_INT(pi.deletion_ts, 1700000000);
    KT_CHECK_INT(disruption(cl, v, &st, &why, &msg), 1);
    KT_CHECK_INT(cl->n_changed_log, logged + 1);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* The simulator's pod state is the cluster's, read when asked: a scheduler's victim is
 * Terminating once its deletionTimestamp is set and Deleted after its grace period; a pod its
 * kubelet preempts at admission (no deletionTimestamp: the kubelet's own kill) is Terminating
 * while its containers stop, then Failed as its status says. */
KT_TEST(sim_state_read_from_cluster) {
    kp_error err;
    /* n1: low (3 cpu) runs, crit (system-node-critical, 2 cpu) names n1: its kubelet preempts
     * low at admission. n2: mid (3 cpu) runs; top (3 cpu) preempts it through the scheduler. */
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000\n" NODE("n1") NODE(
            "n2") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: low, namespace: d}\n"
                  "spec: {nodeName: n1, terminationGracePeriodSeconds: 20, containers: [{name: c, "
                  "resources: {requests: {cpu: '3'}}}]}\nstatus: {phase: Running}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: crit, namespace: kube-system}\n"
                  "spec: {nodeName: n1, priorityClassName: system-node-critical, containers: "
                  "[{name: c, "
                  "resources: {requests: {cpu: '2'}}}]}\nstatus: {phase: Pending}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: mid, namespace: d}\n"
                  "spec: {nodeName: n2, terminationGracePeriodSeconds: 20, containers: [{name: c, "
                  "resources: {requests: {cpu: '3'}}}]}\nstatus: {phase: Running}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: top, namespace: d}\n"
                  "spec: {priorityClassName: top, nodeSelector: {kubernetes.io/hostname: n2}, "
                  "containers: [{name: c, resources: {requests: {cpu: '3'}}}]}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.kubelets = true;
    kp_sim *sim = NULL;
    KT_CHECK_INT(kp_sim_new(cl, NULL, NULL, &o, &sim, &err), KP_OK);
    if (!sim) {
        kp_cluster_free(cl);
        return;
    }
    kp_index low = kp_cluster_find_pod(cl, "d/low"), mid = kp_cluster_find_pod(cl, "d/mid");
    kp_index top = kp_cluster_find_pod(cl, "d/top");
    KT_CHECK_INT(kp_sim_run_until(sim, 5000, &err), KP_OK);
    kp_pod_info pi;
    /* the scheduler's victim: the API's deletion */
    kp_cluster_pod_info(cl, mid, &pi);
    KT_CHECK(pi.deletion_ts != KP_TIME_UNSET && pi.node >= 0);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)mid)->state, KP_SIM_POD_TERMINATING);
    KT_CHECK_STR(kp_sim_pod_get(sim, (size_t)mid)->cause, "preempted");
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)top)->state, KP_SIM_POD_PENDING);
    /* the kubelet's victim: still running as far as the API knows */
    kp_cluster_pod_info(cl, low, &pi);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET && pi.node >= 0 && !pi.terminal);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)low)->state, KP_SIM_POD_TERMINATING);
    KT_CHECK_INT(kp_sim_run_until(sim, 60000, &err), KP_OK);
    kp_cluster_pod_info(cl, low, &pi);
    KT_CHECK(pi.terminal && pi.phase == KP_POD_PHASE_FAILED);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)low)->state, KP_SIM_POD_FAILED);
    kp_cluster_pod_info(cl, mid, &pi);
    KT_CHECK(pi.deleted);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)mid)->state, KP_SIM_POD_DELETED);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)top)->state, KP_SIM_POD_BOUND);
    kp_sim_free(sim);
    kp_cluster_free(cl);
}

/* kp_cluster_node_generation: moves with every change of a node's pod list (bind, finish,
 * delete, a victim leaving it) and with nothing else (nominate, running, terminating, a taint,
 * a no-op writer, another node's change). */
KT_TEST(node_generation_follows_pod_list) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index free_pod = kp_cluster_find_pod(cl, "d/free"), run = kp_cluster_find_pod(cl, "d/run");
    kp_index old = kp_cluster_find_pod(cl, "d/old");
    kp_index n1 = kp_cluster_find_node(cl, "n1"), n2 = kp_cluster_find_node(cl, "n2");
    kp_index n3 = kp_cluster_find_node(cl, "n3");
    uint32_t g1 = kp_cluster_node_generation(cl, n1), g2 = kp_cluster_node_generation(cl, n2);
    uint32_t g3 = kp_cluster_node_generation(cl, n3);
    KT_CHECK_INT(kp_cluster_node_generation(cl, -1), 0);
    KT_CHECK_INT(kp_cluster_node_generation(cl, 99), 0);
    /* no change of any list */
    KT_CHECK_INT(kp_cluster_nominate_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_set_running(cl, run, 5, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, old, 10, "EvictionByEvictionAPI", &err), KP_OK);
    KT_CHECK_INT(kp_cluster_node_taint(cl, n1, "k", "", "NoSchedule", &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n1) == g1);
    KT_CHECK(kp_cluster_node_generation(cl, n2) == g2);
    /* bind: the node's list moves, no other; binding again is a no-op */
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n2) != g2);
    g2 = kp_cluster_node_generation(cl, n2);
    KT_CHECK_INT(kp_cluster_bind_pod(cl, free_pod, n2, &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n2) == g2);
    KT_CHECK(kp_cluster_node_generation(cl, n1) == g1);
    /* finish: the pod leaves its node; a second finish is a no-op */
    KT_CHECK_INT(kp_cluster_finish_pod(cl, run, KP_POD_PHASE_SUCCEEDED, "Completed", NULL, &err),
                 KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n1) != g1);
    g1 = kp_cluster_node_generation(cl, n1);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, run, KP_POD_PHASE_FAILED, "X", NULL, &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n1) == g1);
    /* delete: a terminating pod on the node leaves it; an ended one (on no node) changes none */
    KT_CHECK_INT(kp_cluster_delete_pod(cl, old, &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n1) != g1);
    g1 = kp_cluster_node_generation(cl, n1);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, run, &err), KP_OK);
    KT_CHECK(kp_cluster_node_generation(cl, n1) == g1);
    /* a scheduler run's victim leaving at once (kp__pod_unbind) */
    kp__pod_unbind(cl, (uint32_t)free_pod);
    KT_CHECK(kp_cluster_node_generation(cl, n2) != g2);
    KT_CHECK(kp_cluster_node_generation(cl, n1) == g1);
    KT_CHECK(kp_cluster_node_generation(cl, n3) == g3);
    kp_cluster_free(cl);
}

/* A preemption victim: marked terminating it stays in the list (the dry runs that take pods off
 * and put them back may move the generation); once deleted it leaves, and the generation moves. */
KT_TEST(node_generation_victim_gone) {
    kp_error err;
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000\n" NODE("n1") NODE("n2") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, "
                                              "namespace: d}\n"
                                              "spec: {nodeName: n1, containers: [{name: c, "
                                              "resources: {requests: {cpu: '3'}}}]}\n"
                                              "status: {phase: Running}\n"
                                              "---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
                                              "top, namespace: d}\nspec: {priorityClassName: top, "
                                              "nodeName: '', affinity: {nodeAffinity: "
                                              "{requiredDuringSchedulingIgnoredDuringExecution: "
                                              "{nodeSelectorTerms: [{matchFields: [{key: "
                                              "metadata.name, operator: In, values: [n1]}]}]}}}, "
                                              "containers: [{name: c, resources: {requests: "
                                              "{cpu: '2'}}}]}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, NULL, NULL, &s, &err), KP_OK);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_index a = kp_cluster_find_pod(cl, "d/a"), top = kp_cluster_find_pod(cl, "d/top");
    kp_index n1 = kp_cluster_find_node(cl, "n1"), n2 = kp_cluster_find_node(cl, "n2");
    uint32_t g2 = kp_cluster_node_generation(cl, n2);
    kp_sched_set_time(s, 1700000000);
    KT_CHECK_INT(kp_sched_schedule_one(s, top, &err), KP_OK);
    const kp_sched_pod_result *r = kp_sched_result_of(s, top);
    KT_CHECK_INT(r->outcome, KP_OUTCOME_NOMINATED);
    KT_CHECK_INT(r->n_victims, 1);
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 1); /* the victim terminates, still there */
    KT_CHECK(kp_cluster_node_generation(cl, n2) == g2);
    uint32_t g1 = kp_cluster_node_generation(cl, n1);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, a, &err), KP_OK); /* its grace period ended */
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 0);
    KT_CHECK(kp_cluster_node_generation(cl, n1) != g1);
    KT_CHECK(kp_cluster_node_generation(cl, n2) == g2);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(bind_updates_node_aggregates), KT_CASE(nominate_sets_and_clears),
        KT_CASE(mark_terminating_condition_once), KT_CASE(finish_frees_and_is_final),
        KT_CASE(set_running_and_delete), KT_CASE(scheduler_bind_and_victims_visible),
        KT_CASE(sim_state_read_from_cluster), KT_CASE(node_generation_follows_pod_list),
        KT_CASE(node_generation_victim_gone))
