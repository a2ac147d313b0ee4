/* The disruption controller (src/ctrl/disruption.c) driven through kp_ctrl_disruption_sync on
 * cases of upstream's pkg/controller/disruption/disruption_test.go: TestUnavailable,
 * TestReplicaSet, TestPercentageMaxUnavailableWithScaling, TestIntegerMaxUnavailableWithScaling,
 * TestReplicationController, TestNakedPod, TestStatefulSetController, TestReplicaSetWithDeployment
 * (getPodDeployment), TestUnsupportedControllerPod (failSafe); the status reaches core's readers
 * (gen_pdb_status moves); every allocation failure ends in KP_ENOMEM. */
#include "base/alloc.h"
#include "core/cluster.h"
#include "ctrl_rec.h"

/* clang-format off */
#define NODE(name)                                                                     \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {kubernetes.io/hostname: " name "}}\n" \
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
/* clang-format on */

/* a ReplicaSet rs of rs_replicas, PDB pdb with spec, n_pods running pods of rs and n_naked pods
 * without a controller, all labelled foo: bar in namespace ns */
static const char *pdb_yaml(char *buf, size_t cap, const char *spec, int rs_replicas, int n_pods,
                            int n_naked) {
    int o = snprintf(buf, cap,
                     NODE("n1") "---\napiVersion: apps/v1\nkind: ReplicaSet\n"
                                "metadata: {name: rs, namespace: ns, uid: rs-uid}\n"
                                "spec: {replicas: %d, selector: {matchLabels: {foo: bar}}}\n"
                                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                                "metadata: {name: pdb, namespace: ns}\n"
                                "spec: {selector: {matchLabels: {foo: bar}}, %s}\n",
                     rs_replicas, spec);
    for (int i = 0; i < n_pods + n_naked; i++)
        o += snprintf(buf + o, cap - (size_t)o,
                      "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\n  namespace: ns\n"
                      "  labels: {foo: bar}\n%s"
                      "spec: {nodeName: n1, containers: [{name: c}]}\nstatus: {phase: Running}\n",
                      i,
                      i < n_pods ? "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, "
                                   "name: rs, uid: rs-uid, controller: true}]\n"
                                 : "");
    return buf;
}

static void check_status(kp_cluster *cl, int allowed, int healthy, int desired, int expected,
                         int line) {
    kp_error err;
    kp_pdb_info b;
    kp_ctrl *c = kp_ctrl_new(cl);
    KT_CHECK(c != NULL);
    if (!c) return;
    KT_CHECK_INT(kp_ctrl_disruption_sync(c, 0, &err), KP_OK);
    kp_ctrl_free(c);
    KT_CHECK_INT(kp_cluster_pdb_info(cl, 0, &b), KP_OK);
    if (b.disruptions_allowed != allowed || b.current_healthy != healthy ||
        b.desired_healthy != desired || b.expected_pods != expected)
        fprintf(stderr, "  (case at line %d)\n", line);
    KT_CHECK_INT(b.disruptions_allowed, allowed);
    KT_CHECK_INT(b.current_healthy, healthy);
    KT_CHECK_INT(b.desired_healthy, desired);
    KT_CHECK_INT(b.expected_pods, expected);
}

KT_TEST(upstream_cases) {
    static char buf[8192];
    kp_error err;
    /* TestUnavailable: minAvailable 3, four ready pods -> (1, 4, 3, 4); one of them going ->
     * (0, 3, 3, 4) (here: terminating, so not healthy, still expected) */
    kp_cluster *cl = ctrl_load(pdb_yaml(buf, sizeof buf, "minAvailable: 3", 4, 4, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp_cluster_pdb_count(cl), 1);
    check_status(cl, 1, 4, 3, 4, __LINE__);
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, kp_cluster_find_pod(cl, "ns/p3"), 10, NULL, &err),
                 KP_OK);
    check_status(cl, 0, 3, 3, 4, __LINE__);
    /* deleted: no longer listed (TestBasicFinderFunctions' pod removal) */
    kp_cluster_delete_pod(cl, kp_cluster_find_pod(cl, "ns/p3"), &err);
    check_status(cl, 0, 3, 3, 3, __LINE__);
    KT_CHECK(kp_cluster_pdb_selects(cl, 0, kp_cluster_find_pod(cl, "ns/p0")));
    KT_CHECK(!kp_cluster_pdb_selects(cl, 0, 3));
    kp_cluster_free(cl);

    /* TestReplicaSet: minAvailable 20% with a ReplicaSet of 10, one pod -> (0, 1, 2, 10) */
    cl = ctrl_load(pdb_yaml(buf, sizeof buf, "minAvailable: 20%", 10, 1, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 0, 1, 2, 10, __LINE__);
    kp_cluster_free(cl);

    /* TestPercentageMaxUnavailableWithScaling: maxUnavailable 30%, ReplicaSet 7 -> (0, 1, 4, 7);
     * scaled to 3 -> (0, 1, 2, 3) */
    cl = ctrl_load(pdb_yaml(buf, sizeof buf, "maxUnavailable: 30%", 7, 1, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 0, 1, 4, 7, __LINE__);
    KT_CHECK_INT(kp_cluster_workload_scale(cl, ctrl_workload(cl, "ReplicaSet", "rs"), 3, &err),
                 KP_OK);
    check_status(cl, 0, 1, 2, 3, __LINE__);
    KT_CHECK_INT(kp_cluster_workload_scale(cl, ctrl_workload(cl, "ReplicaSet", "rs"), -1, &err),
                 KP_EINVAL);
    kp_cluster_free(cl);

    /* TestIntegerMaxUnavailableWithScaling: maxUnavailable 2, ReplicaSet 7, one pod ->
     * (0, 1, 5, 7); TestReplicationController's shape: 34% of 3 rounds up to 2, three pods ->
     * (1, 3, 2, 3), and a rogue pod without a controller is unmanaged: healthy, allowed 2 */
    cl = ctrl_load(pdb_yaml(buf, sizeof buf, "maxUnavailable: 2", 7, 1, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 0, 1, 5, 7, __LINE__);
    kp_cluster_free(cl);
    cl = ctrl_load(pdb_yaml(buf, sizeof buf, "minAvailable: 34%", 3, 3, 1));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 2, 4, 2, 3, __LINE__);
    kp_cluster_free(cl);

    /* TestNakedPod: 28% and only a pod without a controller -> no disruption (expected 0) */
    cl = ctrl_load(pdb_yaml(buf, sizeof buf, "minAvailable: 28%", 3, 0, 1));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 0, 1, 0, 0, __LINE__);
    kp_cluster_free(cl);
}

/* TestUnsupportedControllerPod: a controller without a scale subresource (here a DaemonSet, or
 * one not in the snapshot) fails the sync: failSafe allows no disruption. */
KT_TEST(unsupported_controller_fails_safe) {
    kp_error err;
    const char *yaml = NODE("n1") "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                                  "metadata: {name: pdb, namespace: ns}\n"
                                  "spec: {selector: {matchLabels: {foo: bar}}, minAvailable: 1%}\n"
                                  "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
                                  "  namespace: ns\n  labels: {foo: bar}\n"
                                  "  ownerReferences: [{apiVersion: apps.test.io/v1, kind: "
                                  "TestWorkload, name: fake, uid: u, controller: true}]\n"
                                  "spec: {nodeName: n1, containers: [{name: c}]}\n"
                                  "status: {phase: Running}\n";
    kp_cluster *cl = ctrl_load(yaml);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_pdb_info b;
    kp_cluster_pdb_info(cl, 0, &b);
    KT_CHECK_INT(b.disruptions_allowed, 0);
    check_status(cl, 0, 0, 0, 0, __LINE__); /* the status stays as it was, none allowed */
    kp_ctrl *c = kp_ctrl_new(cl);
    KT_CHECK_INT(kp_ctrl_disruption_sync(c, 7, &err), KP_EINVAL);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}


/* TestStatefulSetController: minAvailable 34% of a StatefulSet of 3 -> desired 2; and
 * TestReplicaSetWithDeployment: a ReplicaSet a Deployment controls counts with the Deployment's
 * replicas (getPodDeployment), once for all its pods. */
KT_TEST(statefulset_and_deployment_scale) {
    const char *sts =
        NODE("n1") "---\napiVersion: apps/v1\nkind: StatefulSet\n"
                   "metadata: {name: db, namespace: ns, uid: sts-uid}\n"
                   "spec: {replicas: 3, selector: {matchLabels: {foo: bar}}}\n"
                   "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, "
                   "namespace: "
                   "ns}\nspec: {selector: {matchLabels: {foo: bar}}, minAvailable: 34%}\n"
                   "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: db-0\n  namespace: ns\n  "
                   "labels: {foo: "
                   "bar}\n  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, "
                   "uid: sts-uid, "
                   "controller: true}]\nspec: {nodeName: n1, containers: [{name: c}]}\n"
                   "status: {phase: Running}\n";
    kp_cluster *cl = ctrl_load(sts);
    KT_CHECK(cl != NULL);
    if (cl) check_status(cl, 0, 1, 2, 3, __LINE__);
    kp_cluster_free(cl);
    const char *dep = NODE(
        "n1") "---\napiVersion: apps/v1\nkind: Deployment\n"
              "metadata: {name: web, namespace: ns, uid: d-uid}\n"
              "spec: {replicas: 4, selector: {matchLabels: {foo: bar}}}\n"
              "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-1, namespace: ns, "
              "uid: "
              "rs-uid, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: "
              "d-uid, "
              "controller: true}]}\nspec: {replicas: 10, selector: {matchLabels: {foo: bar}}}\n"
              "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, "
              "namespace: "
              "ns}\nspec: {selector: {matchLabels: {foo: bar}}, maxUnavailable: 25%}\n"
              "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  namespace: ns\n  labels: "
              "{foo: "
              "bar}\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: "
              "rs-uid, "
              "controller: true}]\nspec: {nodeName: n1, containers: [{name: c}]}\n"
              "status: {phase: Running}\n"
              "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  namespace: ns\n  labels: "
              "{foo: "
              "bar}\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: "
              "rs-uid, "
              "controller: true}]\nspec: {nodeName: n1, containers: [{name: c}]}\n"
              "status: {phase: Running}\n";
    cl = ctrl_load(dep);
    KT_CHECK(cl != NULL);
    if (cl) check_status(cl, 0, 2, 3, 4, __LINE__); /* 4 - 25% of 4 rounded up */
    kp_cluster_free(cl);
}

/* The status reaches the readers of budgets (preemption's PDB index rereads on gen_pdb_status),
 * and a deleted PDB is not synced. */
KT_TEST(status_written_through_core) {
    static char buf[8192];
    kp_error err;
    kp_cluster *cl = ctrl_load(pdb_yaml(buf, sizeof buf, "minAvailable: 1", 2, 2, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    uint64_t gen = cl->gen_pdb_status;
    KT_CHECK_INT(kp_ctrl_disruption_sync(c, 0, &err), KP_OK);
    KT_CHECK(cl->gen_pdb_status > gen);
    KT_CHECK_INT(kp_cluster_delete_pdb(cl, 0, &err), KP_OK);
    gen = cl->gen_pdb_status;
    KT_CHECK_INT(kp_ctrl_disruption_sync(c, 0, &err), KP_OK);
    KT_CHECK(cl->gen_pdb_status == gen);
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* every allocation of a sync that reads the controllers' scale fails in turn: KP_ENOMEM with a
 * message, or KP_OK */
KT_TEST(alloc_fail) {
    static char buf[8192];
    kp_error err;
    kp_cluster *cl = ctrl_load(pdb_yaml(buf, sizeof buf, "maxUnavailable: 30%", 7, 3, 0));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_ctrl *c = kp_ctrl_new(cl);
    unsigned long before = kp__alloc_count();
    KT_CHECK_INT(kp_ctrl_disruption_sync(c, 0, &err), KP_OK);
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK(total >= 1);
    for (unsigned long f = 0; f < total; f++) {
        kp_error_clear(&err);
        kp__alloc_fail_after((long)f, false);
        kp_status st = kp_ctrl_disruption_sync(c, 0, &err);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || (st == KP_ENOMEM && err.msg[0]));
    }
    kp_ctrl_free(c);
    kp_cluster_free(cl);
}

/* TestUnavailable (disruption_test.go): minAvailable 3 over four pods of which the fourth is not
 * Ready (countHealthyPods reads IsPodReady): 3 healthy, no disruption allowed; once it is Ready,
 * one; a Ready pod being deleted does not count. */
KT_TEST(unready_pods_not_healthy) {
    char buf[8192];
    pdb_yaml(buf, sizeof buf, "minAvailable: 3", 4, 4, 0);
    char *at = strstr(buf, "name: p3\n");
    KT_CHECK(at != NULL);
    if (!at) return;
    at = strstr(at, "status: {phase: Running}");
    char tail[4096];
    snprintf(tail, sizeof tail, "%s", at + strlen("status: {phase: Running}"));
    snprintf(at, sizeof buf - (size_t)(at - buf),
             "status: {phase: Running, conditions: [{type: Ready, status: 'False'}]}%s", tail);
    kp_cluster *cl = ctrl_load(buf);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 0, 3, 3, 4, __LINE__);
    kp_error err;
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, kp_cluster_find_pod(cl, "ns/p3"), true, 1, &err),
                 KP_OK);
    check_status(cl, 1, 4, 3, 4, __LINE__);
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, kp_cluster_find_pod(cl, "ns/p0"), 2, NULL, &err),
                 KP_OK);
    check_status(cl, 0, 3, 3, 4, __LINE__);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(upstream_cases), KT_CASE(unready_pods_not_healthy),
        KT_CASE(unsupported_controller_fails_safe), KT_CASE(statefulset_and_deployment_scale),
        KT_CASE(status_written_through_core), KT_CASE(alloc_fail))
