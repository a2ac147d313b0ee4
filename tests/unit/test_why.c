/* kp_why_evaluate (kprio/why.h): the `kprio why` answer through the public API, on the case of
 * tests/golden/preempt-why; a snapshot with other pods is an error; every allocation failure
 * inside the evaluation ends in KP_ENOMEM (never a different answer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "kprio/why.h"

#define CASE "tests/golden/preempt-why/cluster.yaml"

static kp_cluster *load(const char *path) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    if (kp_cluster_load_path(cl, path, false, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_status evaluate(kp_why **w, kp_cluster **run, kp_cluster **snap, kp_error *err) {
    *run = load(CASE);
    *snap = load(CASE);
    if (!*run || !*snap) return KP_EIO;
    kp_preempt_options po;
    kp_preempt_options_init(&po);
    po.seed = 1;
    return kp_why_evaluate(*run, *snap, kp_cluster_find_pod(*run, "default/mid-pod3"), &po, w, err);
}

KT_TEST(why_answers_the_golden_case) {
    kp_cluster *run, *snap;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(evaluate(&w, &run, &snap, &err), KP_OK);
    if (!w) return;
    const kp_why_answer *a = kp_why_get(w);
    KT_CHECK(a->preempted);
    KT_CHECK_INT(a->preemptor, kp_cluster_find_pod(snap, "default/p"));
    KT_CHECK_INT(a->n_victims, 1);
    KT_CHECK_INT(a->victims[0], kp_cluster_find_pod(snap, "default/mid-pod3"));
    KT_CHECK_STR(a->decided_by, "only candidate");
    KT_CHECK(a->pdb_evaluated && a->pdb_spares);
    KT_CHECK_INT(a->n_alt_victims, 1);
    KT_CHECK_INT(a->alt_victims[0], kp_cluster_find_pod(snap, "default/low-pod2"));
    kp_why_free(w);
    kp_cluster_free(run);
    kp_cluster_free(snap);
}

/* Two preemptors in one run (tests/golden/preempt-why-two-preemptors): the PDB what-if replays
 * the run, so "first"'s nomination and its terminating victim "z" are there when "second"
 * decides. */
KT_TEST(why_what_if_replays_the_run_up_to_the_decision) {
    const char *path = "tests/golden/preempt-why-two-preemptors/cluster.yaml";
    kp_cluster *run = load(path), *snap = load(path);
    KT_CHECK(run && snap);
    if (!run || !snap) return;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_why_evaluate(run, snap, kp_cluster_find_pod(run, "default/t"), NULL, &w, &err),
                 KP_OK);
    const kp_why_answer *a = w ? kp_why_get(w) : NULL;
    KT_CHECK(a && a->preempted);
    if (a) {
        KT_CHECK_INT(a->preemptor, kp_cluster_find_pod(snap, "default/second"));
        KT_CHECK_STR(a->decided_by, "only candidate");
        KT_CHECK_INT(a->n_victims, 2);
        KT_CHECK(a->pdb_evaluated && a->pdb_spares);
        KT_CHECK_INT(a->pdb_alt_node, kp_cluster_find_node(snap, "node-1"));
        KT_CHECK_INT(a->n_alt_victims, 2);
        if (a->n_alt_victims == 2) {
            KT_CHECK_INT(a->alt_victims[0], kp_cluster_find_pod(snap, "default/a"));
            KT_CHECK_INT(a->alt_victims[1], kp_cluster_find_pod(snap, "default/z"));
        }
    }
    kp_why_free(w);
    kp_cluster_free(run);
    kp_cluster_free(snap);
}

KT_TEST(why_snapshot_must_hold_the_same_pods) {
    kp_cluster *run = load(CASE), *other = load("examples/cluster.yaml");
    KT_CHECK(run && other);
    if (!run || !other) return;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_pod_count(run) != kp_cluster_pod_count(other)) {
        KT_CHECK_INT(kp_why_evaluate(run, other, 0, NULL, &w, &err), KP_EINVAL);
        KT_CHECK(w == NULL);
    }
    kp_cluster_free(run);
    kp_cluster_free(other);
}

KT_TEST(why_allocation_failures_are_enomem) {
    int hit = 0, ok_streak = 0; /* past the last allocation every run succeeds */
    for (long n = 0; n < 100000 && ok_streak < 20; n++) {
        kp_cluster *run = load(CASE), *snap = load(CASE);
        KT_CHECK(run && snap);
        if (!run || !snap) return;
        kp_why *w = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_preempt_options po;
        kp_preempt_options_init(&po);
        po.seed = 1;
        kp_index pod = kp_cluster_find_pod(run, "default/mid-pod3");
        kp__alloc_fail_after(n, true);
        kp_status st = kp_why_evaluate(run, snap, pod, &po, &w, &err);
        kp__alloc_fail_after(-1, false);
        bool done = st == KP_OK;
        if (!done) {
            KT_CHECK_INT(st, KP_ENOMEM);
            KT_CHECK(w == NULL);
            hit++;
        } else {
            KT_CHECK(kp_why_get(w)->preempted && kp_why_get(w)->pdb_spares);
        }
        kp_why_free(w);
        kp_cluster_free(run);
        kp_cluster_free(snap);
        ok_streak = done ? ok_streak + 1 : 0;
        if (!done && st != KP_ENOMEM) break;
    }
    KT_CHECK(hit > 0);
}

/* A cluster for the early stop: node-1 (4 cpu) holds v (priority 0, 2 cpu) and m (priority 600,
 * 1 cpu); node-2 (2.5 cpu) has room for the 20 small pending pods (priority 500, 100m); "big"
 * (priority 1000, 3 cpu, first in the queue) fits only on node-1 with v gone. */
static kp_cluster *load_queue(void) {
    static char y[16384];
    size_t len = (size_t)snprintf(
        y, sizeof y,
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: node-1}, status: {allocatable: {cpu: "
        "\"4\", memory: 8Gi, pods: \"110\"}}}\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: node-2}, status: {allocatable: {cpu: "
        "2500m, memory: 8Gi, pods: \"110\"}}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: v, namespace: default}, spec: {nodeName: "
        "node-1, priority: 0, containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]}, "
        "status: {phase: Running}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: m, namespace: default}, spec: {nodeName: "
        "node-1, priority: 600, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}, "
        "status: {phase: Running}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: big, namespace: default}, spec: "
        "{priority: 1000, containers: [{name: c, resources: {requests: {cpu: \"3\"}}}]}, "
        "status: {phase: Pending}}\n");
    for (int i = 0; i < 20; i++)
        len += (size_t)snprintf(y + len, sizeof y - len,
                                "- {apiVersion: v1, kind: Pod, metadata: {name: s%02d, namespace: "
                                "default}, spec: {priority: 500, containers: [{name: c, "
                                "resources: {requests: {cpu: 100m}}}]}, status: {phase: "
                                "Pending}}\n",
                                i);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (cl && (kp_cluster_load_buffer(cl, "queue.yaml", y, len, &err) != KP_OK ||
               kp_cluster_finalize(cl, &err) != KP_OK)) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        cl = NULL;
    }
    return cl;
}

/* The full run without the early stop (kp_sched_run): the first preemptor of pod, or -1. */
static kp_index full_run_preemptor(kp_index pod, size_t *queued) {
    kp_cluster *cl = load_queue();
    kp_index who = -1;
    kp_sched *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (cl && kp_sched_new(cl, NULL, NULL, &s, &err) == KP_OK && kp_sched_run(s, &err) == KP_OK) {
        size_t i;
        if (kp_sched_result_find_preemptor(s, pod, &i) == KP_OK) who = kp_sched_result(s, i)->pod;
        KT_CHECK(!kp_sched_run_stats(s, NULL, queued));
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
    return who;
}

/* `why` stops the simulated schedule as soon as the pod's fate is settled: v is preempted by the
 * first pod of the queue (1 of 21 attempted, in the what-if too: big still needs v gone), m
 * (priority 600) by nobody, which is settled once the queue reaches the priority-500 pods (1 of
 * 21). The answers are the full run's. */
KT_TEST(why_stops_when_the_fate_is_settled) {
    const char *names[2] = {"default/v", "default/m"};
    for (int k = 0; k < 2; k++) {
        kp_cluster *run = load_queue(), *snap = load_queue();
        KT_CHECK(run && snap);
        if (!run || !snap) return;
        kp_index pod = kp_cluster_find_pod(run, names[k]);
        size_t queued = 0;
        kp_index full = full_run_preemptor(pod, &queued);
        KT_CHECK_INT(queued, 21);
        kp_why *w = NULL;
        kp_error err;
        kp_error_clear(&err);
        KT_CHECK_INT(kp_why_evaluate(run, snap, pod, NULL, &w, &err), KP_OK);
        const kp_why_answer *a = w ? kp_why_get(w) : NULL;
        KT_CHECK(a != NULL);
        if (a) {
            KT_CHECK_INT(a->preempted ? a->preemptor : -1, full);
            KT_CHECK_INT(full, k == 0 ? kp_cluster_find_pod(snap, "default/big") : -1);
            KT_CHECK(a->stopped_early);
            KT_CHECK_INT(a->pods_attempted, 1);
            KT_CHECK_INT(a->pods_queued, 21);
            if (k == 0) {
                KT_CHECK(a->pdb_evaluated && !a->pdb_spares);
                KT_CHECK_INT(a->pdb_pods_attempted, 1);
            }
        }
        kp_why_free(w);
        kp_cluster_free(run);
        kp_cluster_free(snap);
    }
}

/* A pod pending for devices (tests/golden/why-dra-device-shortage): the summary names the class,
 * the three nodes without a free device and the two claims holding them; every allocation failure
 * is KP_ENOMEM or an answer, never a crash or a leak (the scheduler's --explain texts the summary
 * is read from may lose their details out of memory: the exact answer is checked without
 * failures). */
#define DRA_CASE "tests/golden/why-dra-device-shortage/cluster.yaml"
KT_TEST(why_device_shortage) {
    const char *want = "no free device matching class gpu.example.com on 3 nodes; devices held "
                       "by ml/training-1-gpu (reserved by training-1), ml/training-2-gpu "
                       "(reserved by training-2)";
    for (int n = -1; n < 200; n++) {
        kp_cluster *run = load(DRA_CASE), *snap = load(DRA_CASE);
        KT_CHECK(run && snap);
        if (!run || !snap) return;
        kp_why *w = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_index pod = kp_cluster_find_pod(run, "ml/inference");
        kp__alloc_fail_after(n, false);
        kp_status st = kp_why_evaluate(run, snap, pod, NULL, &w, &err);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || (n >= 0 && st == KP_ENOMEM));
        if (st == KP_OK) {
            const kp_why_answer *a = kp_why_get(w);
            KT_CHECK(!a->preempted);
            if (n < 0) {
                KT_CHECK_STR(a->device_summary, want);
                KT_CHECK_INT(a->n_device_nodes, 3);
                if (a->n_device_nodes == 3)
                    KT_CHECK_INT(a->device_nodes[1].node, kp_cluster_find_node(snap, "gpu-1"));
            }
        }
        kp_why_free(w);
        kp_cluster_free(run);
        kp_cluster_free(snap);
        if (st == KP_OK && n >= 0) break; /* past the last allocation */
    }
}

KT_MAIN(KT_CASE(why_answers_the_golden_case), KT_CASE(why_device_shortage),
        KT_CASE(why_stops_when_the_fate_is_settled),
        KT_CASE(why_what_if_replays_the_run_up_to_the_decision),
        KT_CASE(why_snapshot_must_hold_the_same_pods), KT_CASE(why_allocation_failures_are_enomem))
