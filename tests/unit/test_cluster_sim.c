/* The simulator's view of a finalized cluster and the changes it makes (include/kprio/cluster.h,
 * "The simulator's view"; src/core/cluster_sim.c, cluster_create.c, pdb_status.c): pod and node
 * queries, deleting pods (tombstones, the change log), creating pods from a workload's template
 * or a like pod (labels, owner, priority as the class is now, requests, fresh index and name),
 * cordon and taints as a new scheduler sees them, deleting a PDB. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/workload_ctrl.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"
#include "kprio/encode.h"
#include "kprio/sched.h"
#include "text_buf.h"

static kp_cluster *load(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err->msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_index workload(const kp_cluster *cl, const char *kind, const char *name) {
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info w;
        if (kp_cluster_workload_info(cl, (kp_index)i, &w) == KP_OK && strcmp(w.kind, kind) == 0 &&
            strcmp(w.name, name) == 0)
            return (kp_index)i;
    }
    return -1;
}

static const char *label(const kp_cluster *cl, kp_index pod, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(&cl->pods[pod].labels, k, &v) ? kp__s(cl, v) : NULL;
}

/* clang-format off */
#define NODE(name)                                                                     \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {kubernetes.io/hostname: " name "}}\n" \
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"

static const char *BASE =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
    NODE("n1") NODE("n2")
    "---\napiVersion: apps/v1\nkind: ReplicaSet\n"
    "metadata: {name: web-7f, namespace: shop, uid: rs-uid}\n"
    "spec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n"
    "  template:\n    metadata: {labels: {app: web, pod-template-hash: 7f}}\n"
    "    spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 500m, memory: 1Gi}}}]}\n"
    "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: shop, uid: sts-uid}\n"
    "spec:\n  replicas: 2\n  selector: {matchLabels: {app: db}}\n"
    "  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-7f-aaaaa\n  namespace: shop\n"
    "  labels: {app: web, pod-template-hash: 7f}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7f, uid: rs-uid, controller: true}]\n"
    "spec: {nodeName: n1, priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n"
    "status: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: db-0\n  namespace: shop\n  labels: {app: db}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: sts-uid, controller: true}]\n"
    "spec: {nodeName: n2, containers: [{name: c}]}\nstatus: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: lone, namespace: shop, labels: {app: lone}}\n"
    "spec: {containers: [{name: c, resources: {requests: {cpu: '3'}}}]}\n";
/* clang-format on */

KT_TEST(pod_info_and_matches) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index web = kp_cluster_find_pod(cl, "shop/web-7f-aaaaa");
    kp_pod_info pi;
    KT_CHECK_INT(kp_cluster_pod_info(cl, web, &pi), KP_OK);
    KT_CHECK_STR(pi.owner_kind, "ReplicaSet");
    KT_CHECK_STR(pi.owner_name, "web-7f");
    KT_CHECK_INT(pi.priority, 1000);
    KT_CHECK_INT(pi.node, kp_cluster_find_node(cl, "n1"));
    KT_CHECK_INT(pi.phase, KP_POD_PHASE_RUNNING);
    KT_CHECK_INT(pi.grace_seconds, 30);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET && !pi.deleted && !pi.terminal);
    KT_CHECK_INT(kp_cluster_pod_info(cl, 99, &pi), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_pod_workload(cl, web), workload(cl, "ReplicaSet", "web-7f"));
    KT_CHECK_INT(kp_cluster_pod_workload(cl, kp_cluster_find_pod(cl, "shop/lone")), -1);

    char *web_v[] = {"web", "nope"}, *nope_v[] = {"nope"};
    kp_selector_req in = {"app", "In", web_v, 2}, notin = {"app", "NotIn", web_v, 2},
                    ex = {"pod-template-hash", "Exists", NULL, 0},
                    dne = {"unknown-key", "DoesNotExist", NULL, 0},
                    unk = {"unknown-key", "In", nope_v, 1}, bad = {"app", "Gt", web_v, 1},
                    empty_in = {"app", "In", NULL, 0};
    KT_CHECK(kp_cluster_pod_matches(cl, web, &in, 1));
    KT_CHECK(!kp_cluster_pod_matches(cl, web, &notin, 1));
    KT_CHECK(kp_cluster_pod_matches(cl, web, &ex, 1));
    KT_CHECK(kp_cluster_pod_matches(cl, web, &dne, 1));
    KT_CHECK(!kp_cluster_pod_matches(cl, web, &unk, 1));
    KT_CHECK(!kp_cluster_pod_matches(cl, web, &bad, 1));
    KT_CHECK(!kp_cluster_pod_matches(cl, web, &empty_in, 1));
    KT_CHECK(kp_cluster_pod_matches(cl, web, NULL, 0));
    kp_selector_req both[] = {in, ex};
    KT_CHECK(kp_cluster_pod_matches(cl, web, both, 2));
    KT_CHECK(!kp_cluster_pod_matches(cl, kp_cluster_find_pod(cl, "shop/db-0"), both, 2));
    kp_cluster_free(cl);
}

KT_TEST(delete_pod_tombstone_and_log) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index db0 = kp_cluster_find_pod(cl, "shop/db-0"), n2 = kp_cluster_find_node(cl, "n2");
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 1);
    KT_CHECK_INT(kp_cluster_node_pod(cl, n2, 0), db0);
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, db0, 100, "PreemptionByScheduler", &err), KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, db0, &pi);
    KT_CHECK_INT(pi.deletion_ts, 100);
    KT_CHECK(kp__pod_has_condition(cl, &cl->pods[db0], "DisruptionTarget", "True",
                                   "PreemptionByScheduler"));
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 1); /* keeps its resources until deleted */
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_delete_pod(cl, db0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n2), 0);
    KT_CHECK_INT(cl->nodes[n2].requested[KP_RES_CPU], 0);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/db-0"), -1);
    kp_cluster_pod_info(cl, db0, &pi);
    KT_CHECK(pi.deleted && pi.node == -1);
    /* logged twice: marked terminating, then deleted (schedulers catch up with both) */
    KT_CHECK_INT(cl->n_changed_log, 2);
    KT_CHECK_INT(cl->changed_log[0], db0);
    KT_CHECK_INT(cl->changed_log[1], db0);
    KT_CHECK_INT(kp_cluster_delete_pod(cl, db0, &err), KP_OK); /* no-op */
    KT_CHECK_INT(cl->n_changed_log, 2);
    KT_CHECK(cl->gen_struct == gen);

    /* the StatefulSet recreates db-0 under the same name: a new index, the name finds it */
    size_t n = kp_cluster_pod_count(cl);
    kp_index sts = workload(cl, "StatefulSet", "db"), again = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, sts, -1, "db-0", 200, &again, &err), KP_OK);
    KT_CHECK_INT(again, (kp_index)n);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/db-0"), again);
    KT_CHECK(cl->gen_struct == gen + 1);
    KT_CHECK_STR(label(cl, again, "statefulset.kubernetes.io/pod-name"), "db-0");
    KT_CHECK_STR(label(cl, again, "apps.kubernetes.io/pod-index"), "0");
    KT_CHECK(cl->pods[again].uid != cl->pods[db0].uid);
    /* a create (a load after finalize) may use a deleted pod's name: the API server has no such
     * pod any more; a refused load that used it leaves the name free too */
    kp_index lone = kp_cluster_find_pod(cl, "shop/lone");
    KT_CHECK_INT(kp_cluster_delete_pod(cl, lone, &err), KP_OK);
    const char *bad = "apiVersion: v1\nkind: Pod\nmetadata: {name: lone, namespace: shop}\n"
                      "spec: {containers: [{name: c}]}\n---\napiVersion: v1\nkind: Pod\n"
                      "metadata: {name: x, namespace: shop}\nspec: {priority: y}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "bad.yaml", bad, strlen(bad), &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/lone"), -1);
    const char *good = "apiVersion: v1\nkind: Pod\nmetadata: {name: lone, namespace: shop}\n"
                       "spec: {containers: [{name: c}]}\n";
    size_t before = kp_cluster_pod_count(cl);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "good.yaml", good, strlen(good), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/lone"), (kp_index)before);
    KT_CHECK(cl->pods[lone].deleted); /* the tombstone stays where it was */
    /* the name is taken again */
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "again.yaml", good, strlen(good), &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "already exists");
    /* finishing a pod frees its node */
    kp_index web = kp_cluster_find_pod(cl, "shop/web-7f-aaaaa"),
             n1 = kp_cluster_find_node(cl, "n1");
    KT_CHECK_INT(kp_cluster_finish_pod(cl, web, KP_POD_PHASE_RUNNING, NULL, NULL, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, web, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    kp_cluster_pod_info(cl, web, &pi);
    KT_CHECK(pi.terminal && pi.node == -1 && pi.phase == KP_POD_PHASE_SUCCEEDED);
    KT_CHECK_INT(kp_cluster_node_pod_count(cl, n1), 0);
    KT_CHECK_INT(cl->nodes[n1].requested[KP_RES_CPU], 0);
    kp_cluster_free(cl);
}

KT_TEST(create_from_template_and_like) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index rs = workload(cl, "ReplicaSet", "web-7f");
    kp_index old = kp_cluster_find_pod(cl, "shop/web-7f-aaaaa");
    char name[64];
    kp_cluster_generate_pod_name(cl, "shop", "web-7f-", 0, name, sizeof name);
    KT_CHECK_INT(strlen(name), 12);
    KT_CHECK(strncmp(name, "web-7f-", 7) == 0);
    char again[64];
    kp_cluster_generate_pod_name(cl, "shop", "web-7f-", 0, again, sizeof again);
    KT_CHECK_STR(again, name); /* deterministic */
    kp_index p = -1;
    size_t n = kp_cluster_pod_count(cl);
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, name, 500, &p, &err), KP_OK);
    KT_CHECK_INT(p, (kp_index)n);
    KT_CHECK_INT(kp_cluster_pod_count(cl), n + 1);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, p, &pi);
    KT_CHECK_STR(pi.name, name);
    KT_CHECK_STR(pi.ns, "shop");
    KT_CHECK_STR(pi.owner_kind, "ReplicaSet");
    KT_CHECK_STR(pi.owner_name, "web-7f");
    KT_CHECK_INT(pi.priority, 1000);
    KT_CHECK_STR(pi.priority_class, "high");
    KT_CHECK_INT(pi.creation_ts, 500);
    KT_CHECK(pi.node == -1 && pi.phase == KP_POD_PHASE_PENDING && pi.uid[0]);
    KT_CHECK_STR(label(cl, p, "app"), "web");
    KT_CHECK_STR(label(cl, p, "pod-template-hash"), "7f");
    KT_CHECK_INT(cl->pods[p].req.n, 2); /* cpu and memory requests */
    KT_CHECK_STR(kp__s(cl, cl->pods[p].owners[0].uid), "rs-uid");
    KT_CHECK_INT(kp_cluster_pod_workload(cl, p), rs);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/web-7f-aaaaa"), old);
    /* the same name again: the API server's AlreadyExists */
    kp_index dup = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, name, 500, &dup, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "already exists");
    /* a generated name skips the taken one */
    kp_cluster_generate_pod_name(cl, "shop", "web-7f-", 0, again, sizeof again);
    KT_CHECK(strcmp(again, name) != 0);

    /* the class's value changes: the new pod gets the new value, existing pods keep theirs */
    kp_index high = kp_cluster_find_priority_class(cl, "high");
    KT_CHECK(high >= 0);
    KT_CHECK_INT(kp_cluster_priority_class_set_value(cl, high, 5000, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_priority_class_set_value(cl, high, 1000000001, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_priority_class_set_value(
                     cl, kp_cluster_find_priority_class(cl, "system-node-critical"), 1, &err),
                 KP_EINVAL);
    kp_index q = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, -1, old, "web-7f-like1", 600, &q, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, q), 5000);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, p), 1000);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, old), 1000);
    kp_cluster_pod_info(cl, q, &pi);
    KT_CHECK_STR(pi.owner_name, "web-7f");
    KT_CHECK(pi.node == -1 && pi.phase == KP_POD_PHASE_PENDING && pi.creation_ts == 600);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "shop/web-7f-like1"), q);
    /* bad indices, no template */
    KT_CHECK_INT(kp_cluster_create_pod(cl, 99, -1, "x", 0, &q, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_create_pod(cl, -1, 99, "x", 0, &q, &err), KP_EINVAL);
    kp_cluster_free(cl);
}

KT_TEST(create_with_unknown_class) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    /* a template naming a class that does not exist (the template is not admitted) */
    kp_index rs = workload(cl, "ReplicaSet", "web-7f");
    cl->workloads[rs].template->priority_class = kp__intern(&cl->strs, "gone", 4);
    size_t n = kp_cluster_pod_count(cl);
    kp_index p = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, "web-7f-x", 0, &p, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg,
                 "pods \"web-7f-x\" is forbidden: no PriorityClass with name gone was found");
    KT_CHECK_INT(kp_cluster_pod_count(cl), n);
    kp_cluster_free(cl);
}

/* A Deployment creates no pod itself: its ReplicaSet does (its template carries the
 * pod-template-hash); a kind kprio does not create pods for one by one is refused. */
KT_TEST(create_from_deployment) {
    kp_error err;
    const char *yaml =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop, uid: d1}\n"
        "spec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n"
        "  template: {metadata: {labels: {app: api}}, spec: {containers: [{name: c}]}}\n"
        "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: api-5d\n  namespace: shop\n"
        "  uid: rs1\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: "
        "d1, controller: true}]\n"
        "spec:\n  replicas: 2\n  selector: {matchLabels: {app: api, pod-template-hash: 5d}}\n"
        "  template: {metadata: {labels: {app: api, pod-template-hash: 5d}}, spec: {containers: "
        "[{name: c}]}}\n"
        "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: shop}\n"
        "spec:\n  selector: {matchLabels: {app: agent}}\n"
        "  template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: c}]}}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index p = -1;
    KT_CHECK_INT(
        kp_cluster_create_pod(cl, workload(cl, "Deployment", "api"), -1, "api-5d-xyz", 1, &p, &err),
        KP_EINVAL);
    KT_CHECK_STR(err.msg, "Deployment shop/api: kprio does not create the pods of a Deployment one "
                          "by one");
    KT_CHECK_INT(kp_cluster_create_pod(cl, workload(cl, "ReplicaSet", "api-5d"), -1, "api-5d-xyz",
                                       1, &p, &err),
                 KP_OK);
    kp_pod_info pi;
    KT_CHECK_INT(kp_cluster_pod_info(cl, p, &pi), KP_OK);
    KT_CHECK_STR(pi.owner_kind, "ReplicaSet");
    KT_CHECK_STR(pi.owner_name, "api-5d");
    KT_CHECK_STR(kp__s(cl, cl->pods[p].owners[0].uid), "rs1");
    KT_CHECK_STR(label(cl, p, "pod-template-hash"), "5d");
    KT_CHECK_INT(kp_cluster_pod_workload(cl, p), workload(cl, "ReplicaSet", "api-5d"));
    kp_workload_info wi;
    KT_CHECK_INT(kp_cluster_workload_info(cl, workload(cl, "ReplicaSet", "api-5d"), &wi), KP_OK);
    KT_CHECK_STR(wi.owner_kind, "Deployment");
    KT_CHECK_STR(wi.owner_name, "api");
    KT_CHECK(wi.replicas == 2 && wi.has_template && wi.completions == -1);
    KT_CHECK_INT(
        kp_cluster_create_pod(cl, workload(cl, "DaemonSet", "agent"), -1, "agent-1", 1, &p, &err),
        KP_EINVAL);
    /* a Deployment without a ReplicaSet gets its new one (getNewReplicaSet): NAME-HASH, the
     * Deployment's replicas and template, pod-template-hash in its selector, owned by it; its
     * pods belong to it; asked again, the same one */
    const char *web =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: "
        "shop, uid: d2}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n"
        "  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: "
        "c}]}}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "web.yaml", web, strlen(web), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    kp_index dep = workload(cl, "Deployment", "web"), rs = -1, rs2 = -1;
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp__cluster_deployment_new_replicaset(cl, dep, &rs, &err), KP_OK);
    KT_CHECK(cl->gen_struct > gen); /* a new selector: schedulers rebuild */
    KT_CHECK_INT(kp_cluster_workload_info(cl, rs, &wi), KP_OK);
    KT_CHECK_STR(wi.kind, "ReplicaSet");
    KT_CHECK(strncmp(wi.name, "web-", 4) == 0 && strlen(wi.name) > 4);
    KT_CHECK_STR(wi.owner_kind, "Deployment");
    KT_CHECK_STR(wi.owner_name, "web");
    KT_CHECK(wi.replicas == 3 && wi.has_template);
    char name[300];
    snprintf(name, sizeof name, "%s-abcde", wi.name);
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, name, 1, &p, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_workload(cl, p), rs);
    KT_CHECK_STR(label(cl, p, "pod-template-hash"), wi.name + 4);
    KT_CHECK_INT(kp__cluster_deployment_new_replicaset(cl, dep, &rs2, &err), KP_OK);
    KT_CHECK_INT(rs2, rs);
    KT_CHECK_INT(kp__cluster_deployment_new_replicaset(cl, rs, &rs2, &err), KP_EINVAL);
    kp_cluster_free(cl);
}

/* The pod that cannot tolerate a taint avoids the node; a cordoned node takes no new pod. */
static kp_index schedule_lone(kp_cluster *cl) {
    kp_sched_options o;
    kp_sched_options_init(&o);
    kp_sched *s = NULL;
    kp_error err;
    kp_index node = -2;
    if (kp_sched_new(cl, NULL, &o, &s, &err) != KP_OK) return node;
    kp_index lone = kp_cluster_find_pod(cl, "shop/lone");
    if (kp_sched_schedule_one(s, lone, &err) == KP_OK) node = kp_cluster_pod_node(cl, lone);
    kp_sched_free(s);
    return node;
}

KT_TEST(taint_cordon_delete_node) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index n1 = kp_cluster_find_node(cl, "n1"), n2 = kp_cluster_find_node(cl, "n2");
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_node_taint(cl, n2, "dedicated", "gpu", "NoSchedule", &err), KP_OK);
    KT_CHECK(cl->gen_struct > gen);
    KT_CHECK_INT(cl->nodes[n2].n_taints, 1);
    KT_CHECK_INT(kp_cluster_node_taint(cl, n2, "dedicated", "x", "Sometimes", &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "Unsupported value");
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, n1, true, &err), KP_OK);
    KT_CHECK(kp_cluster_node_unschedulable(cl, n1));
    /* n1 cordoned, n2 tainted: the lone pod fits nowhere */
    KT_CHECK_INT(schedule_lone(cl), -1);
    gen = cl->gen_struct;
    size_t removed = 9;
    KT_CHECK_INT(kp_cluster_node_untaint(cl, n2, "dedicated", "NoExecute", &removed, &err), KP_OK);
    KT_CHECK_INT(removed, 0);
    KT_CHECK_INT(kp_cluster_node_untaint(cl, n2, "dedicated", NULL, &removed, &err), KP_OK);
    KT_CHECK_INT(removed, 1);
    KT_CHECK(cl->gen_struct > gen);
    KT_CHECK_INT(schedule_lone(cl), n2);
    kp_index lone = kp_cluster_find_pod(cl, "shop/lone");
    kp_cluster_delete_pod(cl, lone, &err);
    KT_CHECK_INT(kp_cluster_delete_node(cl, n1, &err), KP_OK);
    KT_CHECK(kp_cluster_node_deleted(cl, n1));
    KT_CHECK_INT(kp_cluster_find_node(cl, "n1"), -1);
    KT_CHECK_INT(kp_cluster_node_taint(cl, n1, "k", "", "NoSchedule", &err), KP_EINVAL);
    kp_cluster_free(cl);
}

/* ---- PDBs (the disruption controller's own cases: tests/unit/test_ctrl_disruption.c) ---- */

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

/* the disruption controller's sync of one PDB (kprio/ctrl.h) */
static kp_status recount(kp_cluster *cl, kp_index pdb, kp_error *err) {
    kp_ctrl *c = kp_ctrl_new(cl);
    if (!c) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp_ctrl_disruption_sync(c, pdb, err);
    kp_ctrl_free(c);
    return st;
}

static void check_status(kp_cluster *cl, int allowed, int healthy, int desired, int expected,
                         int line) {
    kp_error err;
    kp_pdb_info b;
    KT_CHECK_INT(recount(cl, 0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pdb_info(cl, 0, &b), KP_OK);
    if (b.disruptions_allowed != allowed || b.current_healthy != healthy ||
        b.desired_healthy != desired || b.expected_pods != expected)
        fprintf(stderr, "  (case at line %d)\n", line);
    KT_CHECK_INT(b.disruptions_allowed, allowed);
    KT_CHECK_INT(b.current_healthy, healthy);
    KT_CHECK_INT(b.desired_healthy, desired);
    KT_CHECK_INT(b.expected_pods, expected);
}

/* ---- allocation failures: every change ends in KP_OK or KP_ENOMEM with a message, and leaves
 * the pods and nodes coherent (kp_cluster_free then releases everything: LeakSanitizer) ---- */

static const char *PDB_DOC = "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                             "metadata: {name: web, namespace: shop}\n"
                             "spec: {selector: {matchLabels: {app: web}}, maxUnavailable: 50%}\n";

static int changes(kp_cluster *cl, kp_status *st, char msgs[][64]) {
    kp_error err;
    int n = 0;
    kp_index out, rs = workload(cl, "ReplicaSet", "web-7f"),
                  sts = workload(cl, "StatefulSet", "db");
    kp_index web = kp_cluster_find_pod(cl, "shop/web-7f-aaaaa");
    size_t removed;
#define STEP(call)                               \
    do {                                         \
        kp_error_clear(&err);                    \
        st[n] = (call);                          \
        snprintf(msgs[n], 64, "%.63s", err.msg); \
        n++;                                     \
    } while (0)
    STEP(kp_cluster_delete_pod(cl, kp_cluster_find_pod(cl, "shop/db-0"), &err));
    STEP(kp_cluster_mark_terminating(cl, web, 5, "EvictionByEvictionAPI", &err));
    STEP(kp_cluster_node_taint(cl, 1, "k", "v", "NoExecute", &err));
    STEP(kp_cluster_node_untaint(cl, 1, "k", NULL, &removed, &err));
    for (int i = 0; i < 70; i++) { /* enough to grow cl->pods and the name map */
        char name[64];
        kp_cluster_generate_pod_name(cl, "shop", "web-7f-", (uint64_t)i, name, sizeof name);
        STEP(kp_cluster_create_pod(cl, rs, -1, name, 10, &out, &err));
    }
    STEP(kp_cluster_create_pod(cl, sts, -1, "db-1", 10, &out, &err));
    STEP(kp_cluster_create_pod(cl, -1, web, "web-like", 10, &out, &err));
    STEP(kp_cluster_finish_pod(cl, web, KP_POD_PHASE_FAILED, "Evicted", "", &err));
#undef STEP
    return n;
}

static bool coherent(const kp_cluster *cl) {
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->node < 0) continue;
        if (p->deleted || (uint32_t)p->node >= cl->n_nodes) return false;
        const kp_node *nd = &cl->nodes[p->node];
        if (p->pos_in_node >= nd->n_pods || nd->pods[p->pos_in_node] != i) return false;
    }
    for (uint32_t k = 0; k < cl->n_nodes; k++)
        for (uint32_t j = 0; j < cl->nodes[k].n_pods; j++)
            if (cl->pods[cl->nodes[k].pods[j]].node != (int32_t)k) return false;
    return true;
}

KT_TEST(alloc_fail_changes) {
    static char text[8192];
    snprintf(text, sizeof text, "%s%s", BASE, PDB_DOC);
    kp_error err;
    kp_status st[128];
    static char msgs[128][64];
    kp_cluster *cl = load(text, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    unsigned long before = kp__alloc_count();
    int n = changes(cl, st, msgs);
    unsigned long total = kp__alloc_count() - before;
    for (int i = 0; i < n; i++) KT_CHECK_INT(st[i], KP_OK);
    KT_CHECK(coherent(cl));
    kp_cluster_free(cl);
    KT_CHECK(total > 5);
    for (int sticky = 0; sticky < 2; sticky++)
        for (unsigned long f = 0; f < total; f++) {
            cl = load(text, &err);
            if (!cl) break;
            kp__alloc_fail_after((long)f, sticky);
            n = changes(cl, st, msgs);
            kp__alloc_fail_after(-1, false);
            for (int i = 0; i < n; i++) {
                if (st[i] != KP_OK && (st[i] != KP_ENOMEM || !msgs[i][0]))
                    fprintf(stderr, "  fail after %lu%s: step %d: %s: %s\n", f,
                            sticky ? " (sticky)" : "", i, kp_status_str(st[i]), msgs[i]);
                KT_CHECK(st[i] == KP_OK || (st[i] == KP_ENOMEM && msgs[i][0]));
            }
            KT_CHECK(coherent(cl));
            kp_cluster_free(cl);
        }
}

/* Deleting a PDB (the scenario's delete): no longer found, selects nobody, not recounted, its
 * name free for a new PDB; kp_cluster_pdb_selected still answers for the time it lived. */
KT_TEST(delete_pdb) {
    static char buf[8192];
    kp_error err;
    kp_cluster *cl = load(pdb_yaml(buf, sizeof buf, "minAvailable: 3", 4, 4, 0), &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    check_status(cl, 1, 4, 3, 4, __LINE__);
    KT_CHECK_INT(kp_cluster_find_pdb(cl, "ns", "pdb"), 0);
    KT_CHECK_INT(kp_cluster_find_pdb(cl, "other", "pdb"), -1);
    uint64_t gen = cl->gen_pdb_status;
    KT_CHECK_INT(kp_cluster_delete_pdb(cl, 0, &err), KP_OK);
    KT_CHECK(cl->gen_pdb_status > gen); /* the preemption's budgets are reread */
    KT_CHECK_INT(kp_cluster_delete_pdb(cl, 0, &err), KP_OK); /* no-op */
    KT_CHECK_INT(kp_cluster_delete_pdb(cl, 5, &err), KP_EINVAL);
    kp_pdb_info b;
    KT_CHECK_INT(kp_cluster_pdb_info(cl, 0, &b), KP_OK);
    KT_CHECK(b.deleted);
    KT_CHECK_INT(kp_cluster_find_pdb(cl, "ns", "pdb"), -1);
    kp_index p0 = kp_cluster_find_pod(cl, "ns/p0");
    KT_CHECK(!kp_cluster_pdb_selects(cl, 0, p0));
    KT_CHECK(kp_cluster_pdb_selected(cl, 0, p0));
    /* a terminating pod no longer changes its status: nothing syncs it */
    KT_CHECK_INT(kp_cluster_mark_terminating(cl, p0, 10, NULL, &err), KP_OK);
    KT_CHECK_INT(recount(cl, 0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pdb_info(cl, 0, &b), KP_OK);
    KT_CHECK_INT(b.current_healthy, 4);
    KT_CHECK_INT(kp_cluster_object_count(cl, "PodDisruptionBudget"), 0);
    /* the name is free: a new PDB of that name is a new object */
    const char *again = "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                        "metadata: {name: pdb, namespace: ns}\n"
                        "spec: {selector: {matchLabels: {foo: bar}}, maxUnavailable: 1}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "again.yaml", again, strlen(again), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pdb_count(cl), 2);
    KT_CHECK_INT(kp_cluster_find_pdb(cl, "ns", "pdb"), 1);
    KT_CHECK(kp_cluster_pdb_selects(cl, 1, kp_cluster_find_pod(cl, "ns/p1")));
    kp_cluster_free(cl);
}

/* Deleting a PriorityClass: admitted pods keep their priority, a pod created later that names it
 * is refused by the Priority admission plugin's rule, a deleted globalDefault class is nobody's
 * default, the system classes cannot be deleted (the registry's Forbidden), the name is free. */
KT_TEST(delete_priority_class) {
    kp_error err;
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: base}\n"
        "value: 7\nglobalDefault: true\n---\n";
    char text[8192];
    snprintf(text, sizeof text, "%s%s", yaml, BASE);
    kp_cluster *cl = load(text, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index high = kp_cluster_find_priority_class(cl, "high");
    KT_CHECK(high >= 0);
    kp_index web = kp_cluster_find_pod(cl, "shop/web-7f-aaaaa");
    KT_CHECK_INT(kp_cluster_pod_priority(cl, web), 1000);
    KT_CHECK_INT(kp_cluster_delete_priority_class(cl, high, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_find_priority_class(cl, "high"), -1);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, web), 1000); /* admitted: kept */
    kp_index rs = workload(cl, "ReplicaSet", "web-7f"), p = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, "web-7f-new", 0, &p, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg,
                 "pods \"web-7f-new\" is forbidden: no PriorityClass with name high was found");
    /* the system classes stay */
    kp_index snc = kp_cluster_find_priority_class(cl, "system-node-critical");
    KT_CHECK_INT(kp_cluster_delete_priority_class(cl, snc, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "priorityclasses.scheduling.k8s.io \"system-node-critical\" is "
                          "forbidden: this is a system priority class and cannot be deleted");
    KT_CHECK(kp_cluster_find_priority_class(cl, "system-node-critical") >= 0);
    /* the default class: a pod without a class gets its value, then nothing once it is gone */
    kp_index lone = kp_cluster_find_pod(cl, "shop/lone");
    KT_CHECK_INT(kp_cluster_create_pod(cl, -1, lone, "lone-2", 0, &p, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, p), 7);
    KT_CHECK_INT(
        kp_cluster_delete_priority_class(cl, kp_cluster_find_priority_class(cl, "base"), &err),
        KP_OK);
    const char *pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: later, namespace: shop}\n"
                      "spec: {containers: [{name: c}]}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "later.yaml", pod, strlen(pod), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "shop/later")), 0);
    /* "high" again, with another value: pods created from now on get it */
    const char *pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                     "metadata: {name: high}\nvalue: 3000\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "pc.yaml", pc, strlen(pc), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK(kp_cluster_find_priority_class(cl, "high") > high);
    KT_CHECK_INT(kp_cluster_create_pod(cl, rs, -1, "web-7f-new", 0, &p, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, p), 3000);
    kp_cluster_free(cl);
}

/* The lower-priority pods a preemption un-nominates (kp_sched_cleared_nominations), for the
 * simulator's queue: a fresh victim taken on the node, the lower pod nominated there loses its
 * nomination; nothing when every victim already terminates. */
KT_TEST(cleared_nominations_reported) {
    kp_error err;
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: mid}\nvalue: 500\n"
        "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000\n" NODE(
            "n1") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: d}\n"
                  "spec: {nodeName: n1, terminationGracePeriodSeconds: 60, containers: [{name: c, "
                  "resources: {requests: {cpu: '2'}}}]}\nstatus: {phase: Running}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: d}\n"
                  "spec: {nodeName: n1, terminationGracePeriodSeconds: 60, containers: [{name: c, "
                  "resources: {requests: {cpu: '2'}}}]}\nstatus: {phase: Running}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: mid, namespace: d}\n"
                  "spec: {priorityClassName: mid, containers: [{name: c, resources: {requests: "
                  "{cpu: '2'}}}]}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: top, namespace: d}\n"
                  "spec: {priorityClassName: top, containers: [{name: c, resources: {requests: "
                  "{cpu: '4'}}}]}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, NULL, NULL, &s, &err), KP_OK);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_index mid = kp_cluster_find_pod(cl, "d/mid"), top = kp_cluster_find_pod(cl, "d/top");
    const kp_index *cleared = NULL;
    KT_CHECK_INT(kp_sched_schedule_one(s, mid, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result_of(s, mid)->outcome, KP_OUTCOME_NOMINATED);
    KT_CHECK_INT(kp_sched_cleared_nominations(s, &cleared), 0);
    KT_CHECK_INT(kp_sched_schedule_one(s, top, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result_of(s, top)->outcome, KP_OUTCOME_NOMINATED);
    KT_CHECK_INT(kp_sched_cleared_nominations(s, &cleared), 1);
    KT_CHECK_INT(cleared ? cleared[0] : -1, mid);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, mid, &pi);
    KT_CHECK_STR(pi.nominated_node, "");
    /* top again: its victims all terminate already, nothing is cleared */
    KT_CHECK_INT(kp_sched_schedule_one(s, top, &err), KP_OK);
    KT_CHECK_INT(kp_sched_cleared_nominations(s, &cleared), 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* A load into a finalized cluster made as an API create (kp_cluster_finalize_create): each new
 * pod is stored as the API server stores a create (rest.BeforeCreate,
 * podStrategy.PrepareForCreate): creationTimestamp the create's time, no deletionTimestamp, and
 * its status replaced by phase Pending, whatever the object carried; spec.nodeName is kept. The
 * encoder writes both, as --final-snapshot does. */
KT_TEST(finalize_create_stores_a_create) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const char *objs =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: fresh, namespace: shop}\n"
        "spec: {containers: [{name: c}]}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: stale, namespace: shop, "
        "creationTimestamp: '2020-01-01T00:00:00Z', deletionTimestamp: '2020-01-01T00:01:00Z'}\n"
        "spec: {nodeName: n2, containers: [{name: c}]}\n"
        "status: {phase: Succeeded, reason: Done, message: over, nominatedNodeName: n1, "
        "startTime: '2020-01-01T00:00:00Z'}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "create.yaml", objs, strlen(objs), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize_create(cl, 1700000000, &err), KP_OK);
    kp_index fresh = kp_cluster_find_pod(cl, "shop/fresh"),
             stale = kp_cluster_find_pod(cl, "shop/stale");
    kp_pod_info pi;
    KT_CHECK_INT(kp_cluster_pod_info(cl, fresh, &pi), KP_OK);
    KT_CHECK(pi.creation_ts == 1700000000 && pi.phase == KP_POD_PHASE_PENDING && pi.node < 0);
    KT_CHECK_INT(kp_cluster_pod_info(cl, stale, &pi), KP_OK);
    KT_CHECK(pi.creation_ts == 1700000000 && pi.phase == KP_POD_PHASE_PENDING && !pi.terminal);
    KT_CHECK(pi.deletion_ts == KP_TIME_UNSET);
    KT_CHECK_STR(pi.nominated_node, "");
    KT_CHECK_INT(pi.node, kp_cluster_find_node(cl, "n2")); /* bound where it names */
    sbuf b = {0};
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err), KP_OK);
    const char *at = b.buf ? strstr(b.buf, "\"name\":\"stale\"") : NULL;
    KT_CHECK(at != NULL);
    const char *end = at ? strchr(at, '\n') : NULL;
    char line[2048] = "";
    if (at) snprintf(line, sizeof line, "%.*s", (int)(end ? end - at : (long)strlen(at)), at);
    KT_CHECK_CONTAINS(line, "\"creationTimestamp\":\"2023-11-14T22:13:20Z\"");
    KT_CHECK_CONTAINS(line, "\"status\":{\"phase\":\"Pending\"}");
    KT_CHECK(!strstr(line, "deletionTimestamp") && !strstr(line, "Done"));
    free(b.buf);
    /* a plain kp_cluster_finalize keeps what the load gave */
    const char *kept =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: kept, namespace: shop, "
        "creationTimestamp: '2020-01-01T00:00:00Z'}\nspec: {containers: [{name: c}]}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "kept.yaml", kept, strlen(kept), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_info(cl, kp_cluster_find_pod(cl, "shop/kept"), &pi), KP_OK);
    KT_CHECK_INT(pi.creation_ts, 1577836800);
    kp_cluster_free(cl);
}

/* A nomination to a node that is gone (schedulingCycle, v1.37): status.nominatedNodeName keeps
 * the deleted node's name until the pod's next attempt, which clears it when preemption finds no
 * candidate (Evaluator.Preempt: NewPostFilterResultWithNominatedNode("")) or no node is left
 * (ErrNoNodesAvailable: clearNominatedNode), and keeps it when the pod may not preempt
 * (PodEligibleToPreemptOthers false: no PostFilterResult, ModeNoop). */
KT_TEST(nomination_to_deleted_node_cleared) {
    kp_error err;
    const char *yaml =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
        "metadata: {name: meek}\nvalue: 1000\npreemptionPolicy: Never\n" NODE("n1") NODE(
            "n2") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: peer, namespace: d}\n"
                  "spec: {nodeName: n2, priorityClassName: top, containers: [{name: c, resources: "
                  "{requests: {cpu: '4'}}}]}\nstatus: {phase: Running}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: want, namespace: d}\n"
                  "spec: {priorityClassName: top, containers: [{name: c, resources: {requests: "
                  "{cpu: '4'}}}]}\nstatus: {nominatedNodeName: n1}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: never, namespace: d}\n"
                  "spec: {priorityClassName: meek, containers: [{name: c, "
                  "resources: {requests: {cpu: '4'}}}]}\nstatus: {nominatedNodeName: n1}\n"
                  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: last, namespace: d}\n"
                  "spec: {priorityClassName: top, containers: [{name: c, resources: {requests: "
                  "{cpu: '4'}}}]}\nstatus: {nominatedNodeName: n1}\n";
    kp_cluster *cl = load(yaml, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, NULL, NULL, &s, &err), KP_OK);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_index want = kp_cluster_find_pod(cl, "d/want"), never = kp_cluster_find_pod(cl, "d/never"),
             last = kp_cluster_find_pod(cl, "d/last");
    KT_CHECK_INT(kp_cluster_delete_node(cl, kp_cluster_find_node(cl, "n1"), &err), KP_OK);
    KT_CHECK_INT(kp_sched_sync(s, &err), KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, want, &pi);
    KT_CHECK_STR(pi.nominated_node, "n1"); /* nothing clears it before the pod's attempt */
    /* n2 holds a pod of the same priority: no candidate, the nomination goes */
    KT_CHECK_INT(kp_sched_schedule_one(s, want, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result_of(s, want)->outcome, KP_OUTCOME_UNSCHEDULABLE);
    kp_cluster_pod_info(cl, want, &pi);
    KT_CHECK_STR(pi.nominated_node, "");
    /* preemptionPolicy Never: not eligible, the status is not touched */
    KT_CHECK_INT(kp_sched_schedule_one(s, never, &err), KP_OK);
    KT_CHECK_CONTAINS(kp_sched_result_of(s, never)->message, "preemptionPolicy=Never");
    kp_cluster_pod_info(cl, never, &pi);
    KT_CHECK_STR(pi.nominated_node, "n1");
    /* no node left: ErrNoNodesAvailable clears it */
    KT_CHECK_INT(kp_cluster_delete_node(cl, kp_cluster_find_node(cl, "n2"), &err), KP_OK);
    KT_CHECK_INT(kp_sched_sync(s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_schedule_one(s, last, &err), KP_OK);
    KT_CHECK_STR(kp_sched_result_of(s, last)->message, "no nodes available to schedule pods");
    kp_cluster_pod_info(cl, last, &pi);
    KT_CHECK_STR(pi.nominated_node, "");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* Deleting a workload: flagged, no longer found by name, not written by the encoder, its name
 * free for a new one; schedulers rebuild (its selector leaves default spreading). */
KT_TEST(delete_workload) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index rs = workload(cl, "ReplicaSet", "web-7f");
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_delete_workload(cl, rs, &err), KP_OK);
    KT_CHECK(cl->gen_struct > gen);
    KT_CHECK_INT(kp_cluster_delete_workload(cl, rs, &err), KP_OK); /* no-op */
    KT_CHECK_INT(kp_cluster_delete_workload(cl, 999, &err), KP_EINVAL);
    kp_workload_info wi;
    KT_CHECK_INT(kp_cluster_workload_info(cl, rs, &wi), KP_OK);
    KT_CHECK(wi.deleted);
    KT_CHECK_INT(kp_cluster_object_count(cl, "ReplicaSet"), 0);
    const char *again =
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-7f, namespace: "
        "shop}\nspec: {replicas: 1, selector: {matchLabels: {app: web}}}\n";
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "again.yaml", again, strlen(again), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_object_count(cl, "ReplicaSet"), 1);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(pod_info_and_matches), KT_CASE(delete_pod_tombstone_and_log),
        KT_CASE(create_from_template_and_like), KT_CASE(create_with_unknown_class),
        KT_CASE(create_from_deployment), KT_CASE(taint_cordon_delete_node),

        KT_CASE(alloc_fail_changes), KT_CASE(delete_pdb), KT_CASE(delete_priority_class),
        KT_CASE(cleared_nominations_reported), KT_CASE(delete_workload),
        KT_CASE(finalize_create_stores_a_create), KT_CASE(nomination_to_deleted_node_cleared))
