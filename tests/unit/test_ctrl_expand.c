/* `--expand-workloads` (kp_ctrl_expand) is the controllers' own sync at t = 0: for a ReplicaSet,
 * a Deployment without a ReplicaSet, a Parallel and an OrderedReady StatefulSet, a DaemonSet and
 * an Indexed Job, the pods expansion makes are the pods one kp_ctrl_sync at t = 0 creates: as
 * many, in the same order, from the same template (priority, PriorityClass, scheduler,
 * controller, labels, target node), with the same names. An OrderedReady StatefulSet makes one
 * pod at one instant (the next waits for it to be Running and Ready). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "ctrl_case.h"
#include "harness.h"

/* clang-format off */
#define PC "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
#define NODES CC_NODE("n1", "") CC_NODE("n2", "") \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n3}\nspec:\n  taints: [{key: k, value: v, effect: NoSchedule}]\n" \
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n"
#define TEMPLATE(app) \
    "  selector: {matchLabels: {app: " app "}}\n" \
    "  template:\n    metadata: {labels: {app: " app ", tier: x}}\n" \
    "    spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n"
static const char *RS_TEXT = NODES PC
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  replicas: 3\n" TEMPLATE("rs");
static const char *DEPLOY_TEXT = NODES PC
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n" TEMPLATE("web");
static const char *STS_TEXT = NODES PC
    "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 3\n"
    "  podManagementPolicy: Parallel\n" TEMPLATE("db");
static const char *STS_ORDERED_TEXT = NODES PC
    "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 3\n" TEMPLATE("db");
static const char *DS_TEXT = NODES PC
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n" TEMPLATE("agent");
static const char *JOB_TEXT = NODES PC
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: crunch}\n"
    "spec:\n  parallelism: 3\n  completions: 5\n  completionMode: Indexed\n"
    "  template:\n    metadata: {labels: {app: crunch}}\n"
    "    spec: {priorityClassName: high, restartPolicy: Never, containers: [{name: c}]}\n";
/* clang-format on */

/* the cluster of text with --expand-workloads applied */
static kp_cluster *load_expanded(const char *text) {
    kp_error err;
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(&err);
    kp_cluster_set_expand(cl, KP_EXPAND_WORKLOADS);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK || kp_ctrl_expand(cl, &err) != KP_OK) {
        fprintf(stderr, "  expand: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static bool same_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

/* pod a of cluster ca has the labels of pod b of cluster cb */
static bool same_labels(const kp_cluster *ca, kp_index a, const kp_cluster *cb, kp_index b) {
    const kp_labels *la = &ca->pods[a].labels, *lb = &cb->pods[b].labels;
    if (la->n != lb->n) return false;
    for (uint32_t i = 0; i < la->n; i++) {
        const char *key = kp__s(ca, la->items[i].key);
        kp_str k = kp__intern_find(&cb->strs, key, strlen(key)), v;
        if (k == UINT32_MAX || !kp__labels_get(lb, k, &v) ||
            strcmp(kp__s(cb, v), kp__s(ca, la->items[i].val)) != 0)
            return false;
    }
    return true;
}

/* the name up to its generated suffix (the last '-') */
static size_t stem(const char *name) {
    const char *d = strrchr(name, '-');
    return d ? (size_t)(d - name) : strlen(name);
}

/* expansion's pods of text are the pods one sync at t = 0 creates; want: how many;
 * generated: names end in a generated suffix (compared up to it) */
static void check_same(const char *text, int want, bool generated) {
    kp_cluster *ex = load_expanded(text), *cl = cc_load(text);
    KT_CHECK(ex != NULL && cl != NULL);
    if (!ex || !cl) {
        kp_cluster_free(ex);
        kp_cluster_free(cl);
        return;
    }
    kp_ctrl *c = kp_ctrl_new(cl);
    cc_rec r;
    kp_ctrl_sink s = cc_sink(&r, cl);
    kp_error err;
    KT_CHECK_INT(kp_ctrl_sync(c, 0, 0, &s, &err), KP_OK);
    size_t n_ex = kp_cluster_expanded_pod_count(ex);
    KT_CHECK_INT(n_ex, want);
    KT_CHECK_INT(r.n_created, want);
    size_t first = kp_cluster_pod_count(ex) - n_ex;
    for (int i = 0; i < r.n_created && (size_t)i < n_ex; i++) {
        kp_index a = (kp_index)(first + (size_t)i), b = r.created[i];
        kp_pod_info x, y;
        kp_cluster_pod_info(ex, a, &x);
        kp_cluster_pod_info(cl, b, &y);
        KT_CHECK_INT(x.priority, y.priority);
        KT_CHECK(same_str(x.priority_class, y.priority_class));
        KT_CHECK(same_str(x.scheduler_name, y.scheduler_name));
        KT_CHECK(same_str(x.owner_kind, y.owner_kind));
        KT_CHECK(same_str(x.owner_name, y.owner_name));
        KT_CHECK_INT(x.node, -1);
        KT_CHECK_INT(y.node, -1);
        KT_CHECK(same_labels(ex, a, cl, b));
        KT_CHECK(same_labels(cl, b, ex, a));
        KT_CHECK_INT(kp_cluster_pod_target_node(ex, a), kp_cluster_pod_target_node(cl, b));
        if (generated)
            KT_CHECK(stem(x.name) == stem(y.name) && strncmp(x.name, y.name, stem(x.name)) == 0);
        else KT_CHECK_STR(x.name, y.name);
    }
    kp_ctrl_free(c);
    kp_cluster_free(cl);
    kp_cluster_free(ex);
}

/* ReplicaSetController.manageReplicas: spec.replicas pods NAME-xxxxx */
KT_TEST(replicaset_same) { check_same(RS_TEXT, 3, true); }

/* DeploymentController.getNewReplicaSet then manageReplicas: the pods of the new ReplicaSet
 * NAME-HASH, labelled pod-template-hash */
KT_TEST(deployment_same) { check_same(DEPLOY_TEXT, 2, true); }

/* StatefulSetControl.UpdateStatefulSet, Parallel: every ordinal at once, NAME-ORDINAL */
KT_TEST(statefulset_same) { check_same(STS_TEXT, 3, false); }

/* StatefulSetControl.UpdateStatefulSet, OrderedReady: db-0 only, then it waits */
KT_TEST(statefulset_ordered_one) { check_same(STS_ORDERED_TEXT, 1, false); }

/* DaemonSetsController.manage: one pod per node that should run one (n3's taint: none) */
KT_TEST(daemonset_same) { check_same(DS_TEXT, 2, true); }

/* Controller.manageJob, Indexed: parallelism pods for the lowest indexes, NAME-INDEX-xxxxx */
KT_TEST(indexed_job_same) { check_same(JOB_TEXT, 3, true); }

KT_MAIN(KT_CASE(replicaset_same), KT_CASE(deployment_same), KT_CASE(statefulset_same),
        KT_CASE(statefulset_ordered_one), KT_CASE(daemonset_same), KT_CASE(indexed_job_same))
