/* Foundation tests: ingest (JSON, YAML, Lists, multi-doc), priority resolution (Priority admission
 * plugin), QoS (v1qos.ComputePodQOS), request vectors (PodRequests), criticality and every class
 * of bad input. */
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "harness.h"
#include "io/dctx.h"
#include "io/tree.h"
#include "kprio/cluster.h"

static kp_cluster *load(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static const kp_pod *pod(const kp_cluster *cl, const char *ref) {
    long i = kp_cluster_find_pod(cl, ref);
    return i < 0 ? NULL : &cl->pods[i];
}

/* true if loading fails; frees the cluster if it unexpectedly loaded */
static bool load_fails(const char *text, kp_error *err) {
    kp_cluster *cl = load(text, err);
    kp_cluster_free(cl);
    return cl == NULL;
}

#define POD(name, extra)                                     \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name \
    "}\nspec:\n  containers: [{name: c}]\n" extra

KT_TEST(json_list_and_items) {
    const char *j = "{\"apiVersion\":\"v1\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                    "\"metadata\":{\"name\":\"n1\","
                    "\"managedFields\":[{\"x\":{\"y\":1}}]},\"status\":{\"allocatable\":{\"cpu\":"
                    "\"2\",\"memory\":\"1Gi\",\"pods\":110}}},"
                    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\","
                    "\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n1\","
                    "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"250m\","
                    "\"memory\":\"64Mi\"}}}]}}],"
                    "\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}";
    kp_error err;
    kp_cluster *cl = load(j, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp_cluster_node_count(cl), 1);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
    KT_CHECK_INT(cl->nodes[0].alloc[KP_RES_CPU], 2000);
    KT_CHECK_INT(cl->nodes[0].alloc[KP_RES_MEM], 1073741824);
    KT_CHECK_INT(cl->nodes[0].alloc[KP_RES_PODS], 110);
    KT_CHECK_INT(cl->nodes[0].requested[KP_RES_CPU], 250);
    KT_CHECK_INT(cl->nodes[0].n_pods, 1);
    KT_CHECK(pod(cl, "ns/p") != NULL);
    kp_cluster_free(cl);
}

KT_TEST(typed_list_items_without_kind) {
    const char *j = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{"
                    "\"name\":\"a\"},\"spec\":{\"containers\":[]}}]}";
    kp_error err;
    kp_cluster *cl = load(j, &err);
    KT_CHECK(cl != NULL);
    if (cl) KT_CHECK(pod(cl, "default/a") != NULL);
    kp_cluster_free(cl);
}

KT_TEST(top_level_array_and_multidoc_yaml) {
    kp_error err;
    /* a top-level array: kubectl decodes each document into an object and refuses it (issue 10
     * item 9) */
    kp_cluster *cl = load("[{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
                          "\"x\",\"labels\":{\"a\":\"b\"}}}]",
                          &err);
    KT_CHECK(cl == NULL);
    KT_CHECK_CONTAINS(err.msg, "line 1, column 1: the document is an array, not an object");
    kp_cluster_free(cl);
    cl = load(POD("a", "") POD("b", "") "---\n", &err);
    KT_CHECK(cl != NULL);
    if (cl) KT_CHECK_INT(kp_cluster_pod_count(cl), 2);
    kp_cluster_free(cl);
}

KT_TEST(priority_resolution_like_admission) {
    kp_error err;
    const char *classes = "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                          "{name: high}\nvalue: 1000\n"
                          "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                          "{name: def}\nvalue: 5\nglobalDefault: true\n"
                          "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                          "{name: never}\nvalue: 10\npreemptionPolicy: Never\n";
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s%s%s%s%s", classes, POD("a", "  priorityClassName: high\n"),
             POD("b", ""), POD("c", "  priorityClassName: never\n"),
             POD("d", "  priority: 7\n  priorityClassName: gone\n"),
             POD("e", "  priorityClassName: system-node-critical\n"));
    kp_cluster *cl = load(buf, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    KT_CHECK_INT(pod(cl, "default/a")->priority, 1000);
    KT_CHECK_INT(pod(cl, "default/b")->priority, 5); /* global default */
    KT_CHECK_STR(kp__s(cl, pod(cl, "default/b")->priority_class), "def");
    KT_CHECK_INT(pod(cl, "default/c")->preemption_policy, KP_PREEMPT_NEVER);
    KT_CHECK_INT(pod(cl, "default/d")->priority, 7); /* already admitted: kept, class deleted */
    KT_CHECK(pod(cl, "default/d")->class_missing);
    KT_CHECK(kp_cluster_warning_count(cl) >= 1);
    KT_CHECK_INT(pod(cl, "default/e")->priority, 2000001000);
    KT_CHECK(pod(cl, "default/e")->is_critical);
    KT_CHECK(!pod(cl, "default/a")->is_critical);
    kp_cluster_free(cl);
}

KT_TEST(priority_errors) {
    kp_error err;
    KT_CHECK(load_fails(POD("a", "  priorityClassName: nope\n"), &err));
    KT_CHECK_CONTAINS(err.msg, "no PriorityClass with name nope was found");
    KT_CHECK_CONTAINS(err.msg, "Pod default/a");
    /* a pod cannot opt into Never by itself */
    KT_CHECK(load_fails(POD("a", "  preemptionPolicy: Never\n"), &err));
    KT_CHECK_CONTAINS(err.msg, "spec.preemptionPolicy");
    KT_CHECK(load_fails("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                        "system-x}\nvalue: 1\n",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "reserved for system use");
    KT_CHECK_STR(err.source, "in.yaml"); /* issue 10 item 8: the file and the object */
    KT_CHECK_STR(err.msg, "PriorityClass system-x: metadata.name: Forbidden: priority class names "
                          "with 'system-' prefix are reserved for system use only. error: "
                          "system-x is not a known system priority class");
    /* a built-in class redefined with another value (IsKnownSystemPriorityClass) */
    KT_CHECK(load_fails("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                        "system-node-critical}\nvalue: 5\n",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "error: value of system-node-critical PriorityClass must be "
                               "2000001000");
    KT_CHECK(load_fails("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                        "big}\nvalue: 1000000001\n",
                        &err));
    KT_CHECK_STR(err.source, "in.yaml");
    KT_CHECK_STR(err.msg, "PriorityClass big: value: Forbidden: maximum allowed value of a user "
                          "defined priority is 1000000000");
    KT_CHECK(load_fails("---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                        "{name: a}\nvalue: 1\nglobalDefault: true\n"
                        "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                        "{name: b}\nvalue: 2\nglobalDefault: true\n",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "Only one default can exist");
    KT_CHECK_STR(err.source, "in.yaml");
    KT_CHECK_CONTAINS(err.msg, "document 2 (PriorityClass b): globalDefault: Forbidden: "
                               "PriorityClass a is already marked as default");
    KT_CHECK_CONTAINS(err.msg, "(see in.yaml: PriorityClass a)");
    /* the built-in classes as kubectl lists them are accepted */
    kp_cluster *cl = load("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                          "system-node-critical}\nvalue: 2000001000\n",
                          &err);
    KT_CHECK(cl != NULL);
    kp_cluster_free(cl);
}

KT_TEST(qos_classes) {
    kp_error err;
    const char *y = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: g}\nspec:\n  containers:\n  "
                    "- name: a\n    resources: {limits: {cpu: 1, memory: 1Gi}}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers:\n  "
                    "- name: a\n    resources: {requests: {cpu: 100m}}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec:\n  containers:\n  "
                    "- name: a\n    resources: {requests: {ephemeral-storage: 1Gi}}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: m}\nspec:\n  containers:\n  "
                    "- name: a\n    resources: {limits: {cpu: 1, memory: 1Gi}}\n"
                    "  - name: b\n    resources: {requests: {cpu: 1}, limits: {cpu: 1}}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: s}\nspec:\n  containers: "
                    "[{name: a}]\nstatus: {qosClass: Guaranteed}\n";
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(pod(cl, "g")->qos, KP_QOS_GUARANTEED); /* requests defaulted from limits */
    KT_CHECK_INT(pod(cl, "b")->qos, KP_QOS_BURSTABLE);
    KT_CHECK_INT(pod(cl, "e")->qos, KP_QOS_BESTEFFORT); /* only cpu and memory count */
    KT_CHECK_INT(pod(cl, "m")->qos, KP_QOS_BURSTABLE); /* second container lacks a memory limit */
    KT_CHECK_INT(pod(cl, "s")->qos, KP_QOS_GUARANTEED); /* status.qosClass wins (GetPodQOS) */
    kp_cluster_free(cl);
}

KT_TEST(request_vector_with_init_and_sidecars) {
    kp_error err;
    /* upstream doc example: IC1 {2 cpu,1G}, IC2 {2 cpu,3G}, C1 {2,1G}, C2 {1,1G} => {3 cpu, 3G} */
    const char *y =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  initContainers:\n  - {name: i1, resources: {requests: {cpu: 2, memory: 1G}}}\n"
        "  - {name: i2, resources: {requests: {cpu: 2, memory: 3G}}}\n"
        "  containers:\n  - {name: c1, resources: {requests: {cpu: 2, memory: 1G}}}\n"
        "  - {name: c2, resources: {requests: {cpu: 1, memory: 1G}}}\n"
        "  overhead: {cpu: 100m}\n";
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *p = pod(cl, "p");
    KT_CHECK_INT(kp__resv_get(&p->req, KP_RES_CPU), 3100);
    KT_CHECK_INT(kp__resv_get(&p->req, KP_RES_MEM), 3000000000LL);
    KT_CHECK_INT(p->nz_cpu, 3100);
    kp_cluster_free(cl);
    /* sidecar: runs alongside apps and under later init containers */
    y = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  initContainers:\n  - {name: side, restartPolicy: Always, resources: {requests: {cpu: "
        "1}}}\n"
        "  - {name: i2, resources: {requests: {cpu: 3}}}\n"
        "  containers:\n  - {name: c1, resources: {requests: {cpu: 1}}}\n";
    cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp__resv_get(&pod(cl, "p")->req, KP_RES_CPU), 4000); /* max(1+1, 3+1) */
    KT_CHECK_INT(pod(cl, "p")->nz_mem,
                 2 * 200LL * 1024 * 1024); /* non-zero defaults per container */
    kp_cluster_free(cl);
    /* pod-level resources replace cpu/memory */
    y = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources: {requests: {cpu: "
        "500m}}\n"
        "  containers:\n  - {name: c1, resources: {requests: {cpu: 1, memory: 1Mi}}}\n";
    cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp__resv_get(&pod(cl, "p")->req, KP_RES_CPU), 500);
    KT_CHECK_INT(kp__resv_get(&pod(cl, "p")->req, KP_RES_MEM), 1048576);
    kp_cluster_free(cl);
}

KT_TEST(static_and_mirror_pods_are_critical) {
    kp_error err;
    const char *y = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: s, annotations: "
                    "{kubernetes.io/config.source: file}}\nspec: {containers: []}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, annotations: "
                    "{kubernetes.io/config.source: api}}\nspec: {containers: []}\n"
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: m, annotations: "
                    "{kubernetes.io/config.mirror: x}}\nspec: {containers: []}\n";
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK(pod(cl, "s")->is_critical && pod(cl, "s")->is_static);
    KT_CHECK(!pod(cl, "a")->is_critical);
    KT_CHECK(pod(cl, "m")->is_critical && pod(cl, "m")->is_mirror);
    kp_cluster_free(cl);
}

KT_TEST(bad_input_names_object_and_field) {
    kp_error err;
    const char *j = "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[{\"kind\":\"Namespace\","
                    "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"}},"
                    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
                    "\"namespace\":\"team-a\"},\"spec\":{\"containers\":"
                    "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1.2.3\"}}}]}}]}";
    KT_CHECK(load_fails(j, &err));
    KT_CHECK_CONTAINS(err.msg,
                      "items[1] (Pod team-a/web-1): spec.containers[0].resources.requests.cpu: "
                      "invalid quantity \"1.2.3\"");
    KT_CHECK_STR(err.source, "in.yaml");
    /* YAML syntax error with line and column */
    KT_CHECK(load_fails("apiVersion: v1\nkind: Pod\nmetadata: {name: [\n", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK_CONTAINS(err.msg, "line ");
    KT_CHECK(err.line >= 3);
    /* JSON syntax error */
    KT_CHECK(load_fails("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"},}", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK(load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},"
                        "\"spec\":{\"priority\":12x}}",
                        &err));
    KT_CHECK(load_fails("{\"kind\":\"Pod\"} {\"kind\":\"Pod\"}", &err));
    /* wrong types, enums, missing names */
    KT_CHECK(load_fails(POD("a", "  priority: high\n"), &err));
    KT_CHECK_CONTAINS(err.msg, "spec.priority: expected an integer");
    KT_CHECK(load_fails(POD("a", "  priority: 3000000000\n"), &err));
    KT_CHECK_CONTAINS(err.msg, "out of range");
    KT_CHECK(load_fails(
        "apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\nspec: {containers: []}\n", &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.name: required value");
    KT_CHECK(load_fails("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
                        "\"labels\":{\"v\":1}},\"spec\":{}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.labels.v: expected a string value");
    KT_CHECK(load_fails(POD("a", "  tolerations: [{key: k, operator: Maybe}]\n"), &err));
    KT_CHECK_CONTAINS(err.msg, "spec.tolerations[0].operator: unsupported value \"Maybe\"");
    KT_CHECK(load_fails(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {memory: 10Ei}}\n",
        &err));
    KT_CHECK_CONTAINS(err.msg, "status.allocatable.memory");
    KT_CHECK(load_fails("apiVersion: v2\nkind: Pod\nmetadata: {name: a}\nspec: {containers: []}\n",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "unsupported apiVersion");
    KT_CHECK(load_fails("just a string\n", &err));
    KT_CHECK(load_fails("a: &x [1]\nb: *x\n", &err));
    KT_CHECK_CONTAINS(err.msg, "aliases");
    KT_CHECK(load_fails("{\"items\":[1]}", &err));
    KT_CHECK(load_fails("{\"metadata\":{\"name\":\"x\"}}", &err));
    KT_CHECK_CONTAINS(err.msg, "kind: required value");
}

KT_TEST(deep_nesting_is_rejected) {
    char *s = malloc(4096);
    size_t n = 0;
    for (int i = 0; i < 1000; i++) s[n++] = '[';
    for (int i = 0; i < 1000; i++) s[n++] = ']';
    s[n] = 0;
    kp_error err;
    KT_CHECK(load_fails(s, &err));
    free(s);
}

KT_TEST(duplicates_replace_with_warning) {
    kp_error err;
    kp_cluster *cl = load(POD("a", "  priority: 1\n") POD("a", "  priority: 2\n"), &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
    KT_CHECK_INT(pod(cl, "a")->priority, 2);
    KT_CHECK(kp_cluster_warning_count(cl) == 1);
    kp_cluster_free(cl);
}

KT_TEST(terminal_and_unknown_node_pods_hold_nothing) {
    kp_error err;
    const char *y =
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 1}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: done}\nspec: {nodeName: n1, containers: "
        "[{name: a, resources: {requests: {cpu: 1}}}]}\nstatus: {phase: Succeeded}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: lost}\nspec: {nodeName: n9, containers: "
        "[]}\n";
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(cl->nodes[0].n_pods, 0);
    KT_CHECK_INT(cl->nodes[0].requested[KP_RES_CPU], 0);
    KT_CHECK_INT(pod(cl, "lost")->node, -1);
    kp_cluster_free(cl);
}

KT_TEST(selectors_and_affinity) {
    kp_error err;
    const char *y =
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a, gpu: \"4\"}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  "
        "affinity:\n    nodeAffinity:\n"
        "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"
        "        - matchExpressions: [{key: gpu, operator: Gt, values: [\"2\"]}]\n"
        "        - matchFields: [{key: metadata.name, operator: In, values: [n2]}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  nodeSelector: {zone: b}\n  "
        "containers: []\n"
        "  tolerations: [{operator: Exists}]\n";
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK(kp__pod_matches_node_selector_and_affinity(cl, pod(cl, "p"), &cl->nodes[0]));
    KT_CHECK(!kp__pod_matches_node_selector_and_affinity(cl, pod(cl, "q"), &cl->nodes[0]));
    kp_taint t = {1, 2, KP_EFFECT_NOEXECUTE, 0};
    KT_CHECK(kp__tolerations_tolerate(pod(cl, "q"), &t));
    KT_CHECK(!kp__tolerations_tolerate(pod(cl, "p"), &t));
    kp_cluster_free(cl);
}

KT_TEST(time_parsing) {
    int64_t s;
    int32_t ns;
    KT_CHECK_INT(kp__parse_time("1970-01-01T00:00:00Z", 20, &s, &ns), KP_OK);
    KT_CHECK_INT(s, 0);
    KT_CHECK_INT(kp__parse_time("2024-02-29T12:30:15.5+02:00", 27, &s, &ns), KP_OK);
    KT_CHECK_INT(s, 1709202615);
    KT_CHECK_INT(ns, 500000000);
    KT_CHECK(kp__parse_time("2024-13-01T00:00:00Z", 20, &s, NULL) != KP_OK);
    KT_CHECK(kp__parse_time("yesterday", 9, &s, NULL) != KP_OK);
}

/* Identical label maps and resource lists are stored once; different ones keep their values. */
KT_TEST(identical_arrays_are_shared) {
    const char *y =
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, labels: {app: web, tier: fe}}\n"
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m, memory: 1Gi}}}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, labels: {tier: fe, app: web}}\n"
        "spec:\n  containers: [{name: c, resources: {requests: {memory: 1Gi, cpu: 100m}}}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: c, labels: {app: web, tier: be}}\n"
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: 200m, memory: 1Gi}}}]\n";
    kp_error err;
    kp_cluster *cl = load(y, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *a = pod(cl, "a"), *b = pod(cl, "b"), *c = pod(cl, "c");
    KT_CHECK(a && b && c);
    if (!a || !b || !c) {
        kp_cluster_free(cl);
        return;
    }
    KT_CHECK(a->labels.items == b->labels.items);
    KT_CHECK(a->labels.items != c->labels.items);
    KT_CHECK(a->containers[0].req.e == b->containers[0].req.e);
    KT_CHECK(a->containers[0].req.e != c->containers[0].req.e);
    KT_CHECK(a->req.e == b->req.e);
    KT_CHECK_INT(kp__resv_get(&c->req, KP_RES_CPU), 200);
    KT_CHECK_INT(kp__resv_get(&a->req, KP_RES_CPU), 100);
    KT_CHECK_INT(kp__resv_get(&c->req, KP_RES_MEM), (long long)1 << 30);
    kp_str tier = kp__intern_find(&cl->strs, "tier", 4);
    kp_str v;
    KT_CHECK(kp__labels_get(&c->labels, tier, &v) && strcmp(kp__s(cl, v), "be") == 0);
    KT_CHECK(kp__labels_get(&a->labels, tier, &v) && strcmp(kp__s(cl, v), "fe") == 0);
    kp_cluster_free(cl);
}

/* ---- fixed limits: a real limit is an error naming it, the file, the object and the field;
 * never a wrapped count or a truncated list ---- */

/* A pod whose spec holds `pre`, then n copies of `elem` separated by commas, then `post`. */
static char *pod_with_repeats(const char *pre, const char *elem, size_t n, const char *post) {
    size_t el = strlen(elem), cap = strlen(pre) + strlen(post) + n * (el + 1) + 256;
    char *s = malloc(cap);
    size_t k = (size_t)snprintf(
        s, cap,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{%s", pre);
    for (size_t i = 0; i < n; i++) {
        if (i) s[k++] = ',';
        memcpy(s + k, elem, el);
        k += el;
    }
    snprintf(s + k, cap - k, "%s}}", post);
    return s;
}

KT_TEST(limit_node_selector_terms_is_an_error) {
    /* 65536 terms wrapped the 16-bit count to 0: the pod then had no required terms at all */
    kp_error err;
    char *s = pod_with_repeats(
        "\"containers\":[{\"name\":\"c\"}],\"affinity\":{\"nodeAffinity\":{"
        "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[",
        "{}", 65536, "]}}}");
    KT_CHECK(load_fails(s, &err));
    KT_CHECK_INT(err.code, KP_ELIMIT);
    KT_CHECK_CONTAINS(err.msg, "Pod default/p");
    KT_CHECK_CONTAINS(err.msg, "nodeSelectorTerms: 65536 entries exceed kprio's limit of 65535");
    KT_CHECK_STR(err.source, "in.yaml");
    free(s);
    s = pod_with_repeats("\"containers\":[{\"name\":\"c\"}],\"affinity\":{\"podAntiAffinity\":{"
                         "\"requiredDuringSchedulingIgnoredDuringExecution\":[",
                         "{\"topologyKey\":\"z\"}", 65536, "]}}");
    KT_CHECK(load_fails(s, &err));
    KT_CHECK_INT(err.code, KP_ELIMIT);
    KT_CHECK_CONTAINS(err.msg, "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                               "65536 entries exceed kprio's limit of 65535");
    free(s);
}

KT_TEST(limit_lists_name_the_limit) {
    kp_error err;
    char *s = pod_with_repeats("\"containers\":[{\"name\":\"c\"}],\"tolerations\":[",
                               "{\"operator\":\"Exists\"}", 65536, "]");
    KT_CHECK(load_fails(s, &err));
    KT_CHECK_INT(err.code, KP_ELIMIT);
    KT_CHECK_CONTAINS(
        err.msg, "Pod default/p: spec.tolerations: 65536 entries exceed kprio's limit of 65535");
    free(s);
    /* 12000 containers were refused by an arbitrary limit of 10000; the model counts to 65535 */
    s = pod_with_repeats("\"containers\":[", "{\"name\":\"c\"}", 12000, "]");
    kp_cluster *cl = load(s, &err);
    KT_CHECK(cl != NULL);
    if (cl) KT_CHECK_INT(pod(cl, "default/p")->n_containers, 12000);
    kp_cluster_free(cl);
    free(s);
    /* 33 distinct resource names in one cluster */
    char *n = malloc(4096);
    size_t k = (size_t)snprintf(n, 4096,
                                "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
                                "\"n\"},\"status\":{\"allocatable\":{");
    for (int i = 0; i < 30; i++)
        k += (size_t)snprintf(n + k, 4096 - k, "%s\"example.com/r%d\":\"1\"", i ? "," : "", i);
    snprintf(n + k, 4096 - k, "}}}");
    KT_CHECK(load_fails(n, &err));
    KT_CHECK_INT(err.code, KP_ELIMIT);
    KT_CHECK_CONTAINS(err.msg, "Node n: status.allocatable.example.com/r28: more than 32 distinct "
                               "resource names in the cluster (kprio's limit)");
    free(n);
}

KT_TEST(limit_skipped_kinds_are_all_listed) {
    /* the list of skipped kinds was cut at 256 bytes without a word */
    char *s = malloc(8192);
    size_t k = 0;
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(
            s + k, 8192 - k, "---\napiVersion: x/v1\nkind: SomeKind%02d\nmetadata: {name: a}\n", i);
    kp_error err;
    kp_cluster *cl = load(s, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_warning_count(cl), 1);
        KT_CHECK_CONTAINS(kp_cluster_warning(cl, 0), "skipped 40 object(s)");
        KT_CHECK_CONTAINS(kp_cluster_warning(cl, 0), "SomeKind00, SomeKind01");
        KT_CHECK_CONTAINS(kp_cluster_warning(cl, 0), "SomeKind38, SomeKind39");
    }
    kp_cluster_free(cl);
    free(s);
}

KT_TEST(limit_long_warnings_are_whole) {
    /* warnings were formatted into 512 bytes: long names lost the end of the message */
    char name[254], cls[254], text[2048];
    memset(name, 'n', 253);
    name[253] = 0;
    memset(cls, 'c', 253);
    cls[253] = 0;
    snprintf(text, sizeof text,
             "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: %s}\n"
             "spec: {priority: 5, priorityClassName: %s, containers: [{name: c}]}\n",
             name, name + 190, cls);
    kp_error err;
    kp_cluster *cl = load(text, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_warning_count(cl), 1);
        KT_CHECK_CONTAINS(kp_cluster_warning(cl, 0), "no longer exists (keeping spec.priority 5)");
    }
    kp_cluster_free(cl);
}

#define PODSPEC(name, spec) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name "}\nspec:\n" spec

/* ---- sums of requests never wrap: KP_ERANGE naming the object and the field ---- */

KT_TEST(request_sums_overflow_is_an_error) {
    kp_error err;
    /* two containers of 7Ei: 14Ei does not fit in int64 bytes */
    KT_CHECK(load_fails(
        PODSPEC("big", "  containers: [{name: a, resources: {requests: {memory: 7Ei}}},\n"
                       "               {name: b, resources: {requests: {memory: 7Ei}}}]\n"),
        &err));
    KT_CHECK_INT(err.code, KP_ERANGE);
    KT_CHECK_CONTAINS(err.msg, "Pod default/big: spec.containers[1].resources.requests.memory: the "
                               "pod's amounts of memory add up");
    /* limits too */
    KT_CHECK(load_fails(PODSPEC("big", "  containers: [{name: c}]\n"
                                       "  initContainers: [{name: a, resources: {requests: "
                                       "{example.com/x: 1}, limits: {example.com/x: 5E}}},\n"
                                       "                   {name: b, resources: {requests: "
                                       "{example.com/x: 1}, limits: {example.com/x: 5E}}}]\n"),
                        &err));
    KT_CHECK_INT(err.code, KP_ERANGE);
    KT_CHECK_CONTAINS(err.msg, "spec.initContainers[1].resources.limits.example.com/x");
    /* overhead added to large requests */
    KT_CHECK(load_fails(PODSPEC("big", "  overhead: {memory: 4Ei}\n  containers: [{name: a, "
                                       "resources: {requests: {memory: 5Ei}}}]\n"),
                        &err));
    KT_CHECK_INT(err.code, KP_ERANGE);
    KT_CHECK_CONTAINS(err.msg, "Pod default/big: spec.overhead.memory");
    /* two such pods on one node */
    KT_CHECK(load_fails(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {memory: "
        "1Gi}}\n" PODSPEC("a", "  nodeName: n1\n  containers: [{name: a, resources: {requests: "
                               "{memory: 5Ei}}}]\n")
            PODSPEC("b", "  nodeName: n1\n  containers: [{name: a, resources: {requests: {memory: "
                         "5Ei}}}]\n"),
        &err));
    KT_CHECK_INT(err.code, KP_ERANGE);
    KT_CHECK_CONTAINS(
        err.msg,
        "Pod default/b: spec.nodeName: the requests of memory of the pods bound to node n1 add up");
    /* a large but representable pod still loads */
    kp_cluster *cl = load(
        PODSPEC("ok", "  containers: [{name: a, resources: {requests: {memory: 7Ei}}}]\n"), &err);
    KT_CHECK(cl != NULL);
    kp_cluster_free(cl);
}

/* Issue 17 item 8: a duplicate key in JSON is Go's encoding/json: the last value wins, with a
 * warning naming the file, the object and the key; in YAML it is an error (sigs.k8s.io/yaml via
 * go-yaml: "key \"x\" already set in map"). Before, the first value was kept: a pod with
 * "priority": 1 then 2000000000 was low-priority to kprio and critical to the cluster. */
KT_TEST(duplicate_keys_last_wins_in_json_error_in_yaml) {
    const char *j = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                    "\"spec\":{\"priority\":1,\"containers\":[{\"name\":\"c\"}],"
                    "\"priority\":2000000000}}";
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "dup.json", j, strlen(j), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    const kp_pod *p = pod(cl, "default/p");
    KT_CHECK(p != NULL);
    if (p) KT_CHECK_INT(p->priority, 2000000000);
    if (p) KT_CHECK(p->is_critical);
    bool warned = false;
    for (size_t i = 0; i < kp_cluster_warning_count(cl); i++) {
        const char *w = kp_cluster_warning(cl, i);
        if (strstr(w, "dup.json") && strstr(w, "Pod default/p") && strstr(w, "\"priority\""))
            warned = true;
    }
    KT_CHECK(warned);
    kp_cluster_free(cl);

    const char *y = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: 1\n"
                    "  containers: [{name: c}]\n  priority: 2000000000\n";
    KT_CHECK(load_fails(y, &err));
    KT_CHECK(strstr(err.msg, "key \"priority\" already set in map") != NULL);
}

KT_MAIN(KT_CASE(identical_arrays_are_shared), KT_CASE(json_list_and_items),
        KT_CASE(typed_list_items_without_kind), KT_CASE(top_level_array_and_multidoc_yaml),
        KT_CASE(priority_resolution_like_admission), KT_CASE(priority_errors), KT_CASE(qos_classes),
        KT_CASE(request_vector_with_init_and_sidecars),
        KT_CASE(static_and_mirror_pods_are_critical), KT_CASE(bad_input_names_object_and_field),
        KT_CASE(deep_nesting_is_rejected), KT_CASE(duplicates_replace_with_warning),
        KT_CASE(terminal_and_unknown_node_pods_hold_nothing), KT_CASE(selectors_and_affinity),
        KT_CASE(time_parsing), KT_CASE(limit_node_selector_terms_is_an_error),
        KT_CASE(limit_lists_name_the_limit), KT_CASE(limit_skipped_kinds_are_all_listed),
        KT_CASE(limit_long_warnings_are_whole), KT_CASE(request_sums_overflow_is_an_error),
        KT_CASE(duplicate_keys_last_wins_in_json_error_in_yaml))
