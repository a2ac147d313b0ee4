/* PDB budgets added up over a run (kp_sched_pdb_uses, src/sched/preempt/pdb_tally.c): each
 * preemption decision counts a PDB from its status (filterPodsWithPDBViolation), so several
 * decisions can take more than the budget together while none violates it alone (issue 29's
 * "pdbViolations: 0 for 140 preemptors"). */
#include "test_sched_util.h"

/* n_nodes nodes of 1 cpu, each with two 500m web pods (app: web, priority 0); `preemptors`
 * pending 1-cpu pods of priority 1000; PDB web (app: web) allowing `allowed`; PDB other selecting
 * nothing the run touches; PDB nil with no selector; PDB nostatus (app: web) with no status. */
static kp_cluster *web_case(int n_nodes, int preemptors, int allowed, bool nostatus) {
    char y[16384];
    size_t off = (size_t)snprintf(y, sizeof y, "apiVersion: v1\nkind: List\nitems:\n");
    for (int n = 0; n < n_nodes; n++) {
        off += (size_t)snprintf(y + off, sizeof y - off,
                                "- {apiVersion: v1, kind: Node, metadata: {name: n%d}, status: "
                                "{allocatable: {cpu: \"1\", memory: 1Gi, pods: \"10\"}}}\n",
                                n);
        for (int k = 0; k < 2; k++)
            off += (size_t)snprintf(
                y + off, sizeof y - off,
                "- {apiVersion: v1, kind: Pod, metadata: {name: web-%d-%d, namespace: default, "
                "labels: {app: web}}, spec: {nodeName: n%d, priority: 0, containers: [{name: c, "
                "resources: {requests: {cpu: 500m}}}]}, status: {phase: Running}}\n",
                n, k, n);
    }
    for (int p = 0; p < preemptors; p++)
        off += (size_t)snprintf(
            y + off, sizeof y - off,
            "- {apiVersion: v1, kind: Pod, metadata: {name: hi-%d, namespace: default, "
            "creationTimestamp: \"2026-01-01T00:00:0%dZ\"}, spec: {priority: 1000, containers: "
            "[{name: c, resources: {requests: {cpu: \"1\"}}}]}, status: {phase: Pending}}\n",
            p, p);
    off += (size_t)snprintf(y + off, sizeof y - off,
                            "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: "
                            "web, namespace: default}, spec: {selector: {matchLabels: {app: "
                            "web}}}, status: {disruptionsAllowed: %d}}\n"
                            "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: "
                            "other, namespace: default}, spec: {selector: {matchLabels: {app: "
                            "db}}}, status: {disruptionsAllowed: 0}}\n"
                            "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: "
                            "nil, namespace: default}, spec: {minAvailable: 1}, status: "
                            "{disruptionsAllowed: 0}}\n",
                            allowed);
    if (nostatus)
        snprintf(y + off, sizeof y - off,
                 "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: "
                 "nostatus, namespace: default}, spec: {selector: {matchLabels: {app: web}}}}\n");
    return ts_load(y);
}

static kp_sched *run(kp_cluster *cl) {
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    if (s && kp_sched_run(s, &err) != KP_OK) {
        kp_sched_free(s);
        return NULL;
    }
    return s;
}

static const char *pdb_name(const kp_cluster *cl, const kp_sched_pdb_use *u) {
    kp_pdb_info pi;
    return kp_cluster_pdb_info(cl, u->pdb, &pi) == KP_OK ? pi.name : "?";
}

/* The case: three decisions of two victims each against a budget of 2: no decision
 * violates (pdbViolations 0 each), the run takes 6, 4 over. */
KT_TEST(pdb_uses_sum_exceeds_budget_each_decision_within) {
    kp_cluster *cl = web_case(3, 3, 2, false);
    KT_CHECK(cl != NULL);
    kp_sched *s = cl ? run(cl) : NULL;
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        KT_CHECK_INT(kp_sched_result(s, i)->n_victims, 2);
        KT_CHECK_INT(kp_sched_result(s, i)->pdb_violations, 0);
    }
    kp_sched_pdb_use *u = NULL;
    size_t n = 0;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_pdb_uses(s, -1, &u, &n, &err), KP_OK);
    KT_CHECK_INT(n, 1); /* other, nil: no victim of theirs */
    if (n == 1) {
        KT_CHECK_STR(pdb_name(cl, &u[0]), "web");
        KT_CHECK(u[0].has_status);
        KT_CHECK_INT(u[0].allowed, 2);
        KT_CHECK_INT(u[0].victims, 6);
        KT_CHECK_INT(u[0].decisions, 3);
        KT_CHECK_INT(u[0].decisions_over, 0);
        KT_CHECK_INT(u[0].max_per_decision, 2);
    }
    kp_sched_pdb_uses_free(u);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* One decision alone over the budget (2 victims, 1 allowed): counted in its pdbViolations and in
 * decisions_over; a PDB without a status counts 0 allowed, as preemption reads it. */
KT_TEST(pdb_uses_one_decision_over_and_no_status) {
    kp_cluster *cl = web_case(1, 1, 1, true);
    kp_sched *s = cl ? run(cl) : NULL;
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    KT_CHECK_INT(kp_sched_result(s, 0)->n_victims, 2);
    kp_sched_pdb_use *u = NULL;
    size_t n = 0;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_pdb_uses(s, -1, &u, &n, &err), KP_OK);
    KT_CHECK_INT(n, 2);
    if (n == 2) { /* namespace/name order */
        KT_CHECK_STR(pdb_name(cl, &u[0]), "nostatus");
        KT_CHECK(!u[0].has_status);
        KT_CHECK_INT(u[0].allowed, 0);
        KT_CHECK_INT(u[0].victims, 2);
        KT_CHECK_INT(u[0].decisions_over, 1);
        KT_CHECK_STR(pdb_name(cl, &u[1]), "web");
        KT_CHECK_INT(u[1].allowed, 1);
        KT_CHECK_INT(u[1].victims, 2);
        KT_CHECK_INT(u[1].decisions, 1);
        KT_CHECK_INT(u[1].decisions_over, 1);
    }
    kp_sched_pdb_uses_free(u);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* pod >= 0: only the PDBs that select it; a pod no PDB selects (a preemptor): none; a pod out of
 * range: KP_EINVAL. A run without preemption: none. */
KT_TEST(pdb_uses_filter_by_pod) {
    kp_cluster *cl = web_case(2, 1, 5, false);
    kp_sched *s = cl ? run(cl) : NULL;
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_sched_pdb_use *u = NULL;
    size_t n = 0;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_pdb_uses(s, kp_cluster_find_pod(cl, "default/web-0-0"), &u, &n, &err),
                 KP_OK);
    KT_CHECK_INT(n, 1);
    if (n == 1) {
        KT_CHECK_INT(u[0].victims, 2);
        KT_CHECK_INT(u[0].decisions_over, 0);
    }
    kp_sched_pdb_uses_free(u);
    KT_CHECK_INT(kp_sched_pdb_uses(s, kp_cluster_find_pod(cl, "default/hi-0"), &u, &n, &err),
                 KP_OK);
    KT_CHECK_INT(n, 0);
    KT_CHECK(u == NULL);
    KT_CHECK_INT(kp_sched_pdb_uses(s, 1000, &u, &n, &err), KP_EINVAL);
    kp_sched_free(s);
    kp_cluster_free(cl);
    cl = web_case(2, 0, 0, false);
    s = cl ? run(cl) : NULL;
    KT_CHECK(s != NULL);
    if (s) {
        KT_CHECK_INT(kp_sched_pdb_uses(s, -1, &u, &n, &err), KP_OK);
        KT_CHECK_INT(n, 0);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(pdb_uses_sum_exceeds_budget_each_decision_within),
        KT_CASE(pdb_uses_one_decision_over_and_no_status), KT_CASE(pdb_uses_filter_by_pod))
