/* Updates of objects (issue 28 item 2; include/kprio/update.h, src/io/merge_patch.c,
 * src/io/patch_validate.c, src/core/object_update.c, src/kubelet/resize.c): the JSON merge patch
 * (RFC 7386 appendix A), the API server's update validation (rows of upstream's
 * pkg/apis/core/validation/validation_test.go TestValidatePodUpdate / TestValidatePodResize and
 * pkg/apis/scheduling/validation's TestValidatePriorityClassUpdate), what an accepted update
 * changes in the cluster (node aggregates, gen_struct), and the kubelet's resize decision
 * (pkg/kubelet/allocation's canResizePod: applied, Deferred, Infeasible). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "harness.h"
#include "io/merge_patch.h"
#include "io/tree.h"
#include "io/tree_text.h"
#include "kprio/cluster.h"
#include "kprio/scenario.h"
#include "kprio/update.h"

/* ---------------------------------------------------------------- merge patch */

typedef struct {
    const char *patch;
    kp_tbuf *out;
    const kp_tnode *target;
} mctx;

static kp_status on_p(void *ctx, const kp_tnode *p, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    (void)err;
    mctx *m = ctx;
    kp__merge_patch(m->out, m->target, p);
    return KP_OK;
}

static kp_status on_t(void *ctx, const kp_tnode *t, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    mctx *m = ctx;
    m->target = t;
    return kp__tree_parse("p", m->patch, strlen(m->patch), false, on_p, m, err);
}

static void merge_case(const char *target, const char *patch, const char *want) {
    kp_tbuf out = {0};
    mctx m = {patch, &out, NULL};
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp__tree_parse("t", target, strlen(target), false, on_t, &m, &err), KP_OK);
    KT_CHECK_STR(out.p ? out.p : "", want);
    kp__free(out.p);
}

/* RFC 7386 appendix A, every example whose patch is an object or an array */
KT_TEST(merge_patch_rfc7386_examples) {
    merge_case("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\": \"c\"}");
    merge_case("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\": \"b\", \"b\": \"c\"}");
    merge_case("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    merge_case("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\": \"c\"}");
    merge_case("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\": \"c\"}");
    merge_case("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\": [\"b\"]}");
    merge_case("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
               "{\"a\": {\"b\": \"d\"}}");
    merge_case("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\": [1]}");
    /* (a document root is an object here: the examples whose target or patch is an array are
     * taken one level down, where MergePatch recurses the same way) */
    merge_case("{\"x\":[\"a\",\"b\"]}", "{\"x\":[\"c\",\"d\"]}", "{\"x\": [\"c\", \"d\"]}");
    merge_case("{\"x\":{\"a\":\"b\"}}", "{\"x\":[\"c\"]}", "{\"x\": [\"c\"]}");
    merge_case("{\"e\":null}", "{\"a\":1}", "{\"e\": null, \"a\": 1}");
    merge_case("{\"x\":[1,2]}", "{\"x\":{\"a\":\"b\",\"c\":null}}", "{\"x\": {\"a\": \"b\"}}");
    merge_case("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\": {\"bb\": {}}}");
}

/* the examples whose patch is a scalar or null: the patch replaces the target whole */
KT_TEST(merge_patch_scalar_replaces) {
    kp_tnode null_patch, str_patch;
    memset(&null_patch, 0, sizeof null_patch);
    memset(&str_patch, 0, sizeof str_patch);
    null_patch.type = KP_T_NULL;
    str_patch.type = KP_T_STR;
    str_patch.s = "bar";
    str_patch.len = 3;
    kp_tbuf out = {0};
    kp__merge_patch(&out, NULL, &null_patch);
    KT_CHECK_STR(out.p, "null");
    out.n = 0;
    kp__merge_patch(&out, NULL, &str_patch);
    KT_CHECK_STR(out.p, "\"bar\"");
    kp__free(out.p);
}

/* ---------------------------------------------------------------- the cluster */

static const char CLUSTER[] =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
    "value: 1000\n"
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\n"
    "status: {allocatable: {cpu: '4', memory: 4Gi, ephemeral-storage: 10Gi, pods: '10'}}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: run, namespace: default}\n"
    "spec:\n  nodeName: n1\n  tolerations: [{key: k, operator: Equal, value: v, effect: "
    "NoExecute, tolerationSeconds: 60}]\n"
    "  containers: [{name: c, image: app:1, resources: {requests: {cpu: '1', memory: 1Gi},"
    " limits: {cpu: '2', memory: 2Gi}}}]\n"
    "status: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: default}\n"
    "spec:\n  nodeName: n1\n"
    "  containers: [{name: c, image: app:1, resources: {requests: {cpu: '2', memory: 1Gi}}}]\n"
    "status: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: gated, namespace: default}\n"
    "spec:\n  schedulingGates: [{name: a}, {name: b}]\n"
    "  containers: [{name: c, image: app:1}]\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: guaranteed, namespace: default}\n"
    "spec:\n  containers: [{name: c, image: app:1, resources: {requests: {cpu: '1', memory: "
    "1Gi, ephemeral-storage: 1Gi}, limits: {cpu: '1', memory: 1Gi, ephemeral-storage: 1Gi}}}]\n"
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
    "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n"
    "  template:\n    metadata: {labels: {app: web}}\n"
    "    spec: {containers: [{name: c, image: app:1}]}\n";

static kp_cluster *cluster(void) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", CLUSTER, sizeof CLUSTER - 1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    return cl;
}

static kp_status patch(kp_cluster *cl, const char *kind, const char *name, const char *sub,
                       const char *p, kp_update_result *r, kp_error *err) {
    kp_error_clear(err);
    const char *ns =
        strcmp(kind, "Node") == 0 || strcmp(kind, "PriorityClass") == 0 ? "" : "default";
    return kp_cluster_patch(cl, kind, ns, name, sub, p, strlen(p), r, err);
}

#define UPDATABLE                                                                             \
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," \
    "`spec.tolerations` (only additions to existing tolerations),"                            \
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

/* TestValidatePodUpdate rows: image change allowed, tolerations only added (seconds may change),
 * resources, nodeSelector and containers refused */
KT_TEST(pod_update_rules) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    kp_index run = kp_cluster_find_pod(cl, "default/run");
    KT_CHECK_INT(patch(cl, "Pod", "run", "",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"app:2\","
                       "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
                       "\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}}]}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.changed && r.spec_changed && !r.resized);
    /* "added a toleration" / "modified tolerationSeconds" (a merge patch replaces the list: it
     * restates the not-ready / unreachable tolerations DefaultTolerationSeconds added) */
#define DEFAULT_TOLS                                                                              \
    "{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"," \
    "\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/"                                   \
    "unreachable\",\"operator\":\"Exists\","                                                      \
    "\"effect\":\"NoExecute\",\"tolerationSeconds\":300}"
    KT_CHECK_INT(cl->pods[run].n_tolerations, 3); /* k and the two defaults */
    KT_CHECK_INT(
        patch(cl, "Pod", "run", "",
              "{\"spec\":{\"tolerations\":[{\"key\":\"k\",\"operator\":\"Equal\","
              "\"value\":\"v\",\"effect\":\"NoExecute\",\"tolerationSeconds\":10}," DEFAULT_TOLS
              ",{\"key\":\"x\",\"operator\":\"Exists\"}]}}",
              &r, &err),
        KP_OK);
    KT_CHECK_INT(cl->pods[run].n_tolerations, 4);
    /* "removed a toleration" */
    KT_CHECK_INT(patch(cl, "Pod", "run", "",
                       "{\"spec\":{\"tolerations\":[" DEFAULT_TOLS ",{\"key\":\"x\","
                       "\"operator\":\"Exists\"}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"run\" is invalid: spec.tolerations: Forbidden: existing "
                          "toleration can not be modified except its tolerationSeconds");
    KT_CHECK_INT(cl->pods[run].n_tolerations, 4); /* unchanged */
    /* "cpu change" through the pod itself, not the resize subresource */
    KT_CHECK_INT(patch(cl, "Pod", "run", "",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"app:2\","
                       "\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"run\" is invalid: spec: Forbidden: pod updates may not "
                          "change fields other than " UPDATABLE);
    KT_CHECK_INT(
        patch(cl, "Pod", "run", "", "{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}", &r, &err),
        KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "pod updates may not change fields other than");
    KT_CHECK_INT(patch(cl, "Pod", "run", "",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"a\"},"
                       "{\"name\":\"d\",\"image\":\"b\"}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"run\" is invalid: spec.containers: Forbidden: pod updates "
                          "may not add or remove containers");
    /* labels and status: labels change, status is dropped (the pod itself) */
    KT_CHECK_INT(patch(cl, "Pod", "run", "",
                       "{\"metadata\":{\"labels\":{\"tier\":\"x\"}},\"status\":{\"phase\":"
                       "\"Failed\"}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.labels_changed);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, run, &pi);
    KT_CHECK_INT(pi.phase, KP_POD_PHASE_RUNNING);
    /* a patch that changes nothing */
    KT_CHECK_INT(
        patch(cl, "Pod", "run", "", "{\"metadata\":{\"labels\":{\"tier\":\"x\"}}}", &r, &err),
        KP_OK);
    KT_CHECK(!r.changed);
    /* unknown object, renamed object */
    KT_CHECK_INT(patch(cl, "Pod", "nope", "", "{}", &r, &err), KP_ENOTFOUND);
    KT_CHECK_STR(err.msg, "Error from server (NotFound): pods \"nope\" not found");
    KT_CHECK_INT(patch(cl, "Pod", "run", "", "{\"metadata\":{\"name\":\"other2\"}}", &r, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "field is immutable");
    kp_cluster_free(cl);
}

/* validateOnlyDeletedSchedulingGates: a gate removed is allowed, a gate added is not */
KT_TEST(pod_scheduling_gates) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    KT_CHECK_INT(patch(cl, "Pod", "gated", "",
                       "{\"spec\":{\"schedulingGates\":[{\"name\":\"a\"},{\"name\":\"c\"}]}}", &r,
                       &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"gated\" is invalid: spec.schedulingGates[1].name: "
                          "Forbidden: only deletion is allowed, but found new scheduling gate "
                          "'c'");
    KT_CHECK_INT(patch(cl, "Pod", "gated", "", "{\"spec\":{\"schedulingGates\":null}}", &r, &err),
                 KP_OK);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, kp_cluster_find_pod(cl, "default/gated"), &pi);
    KT_CHECK(!pi.gated);
    kp_cluster_free(cl);
}

/* TestValidatePodResize rows: cpu and memory change; requests or limits removed; memory limit
 * decreased (resizePolicy NotRequired); QoS changed; other resources; a resize changes nothing
 * else (dropNonResizeUpdates) */
KT_TEST(pod_resize_rules) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    kp_index run = kp_cluster_find_pod(cl, "default/run");
    /* (a request missing beside a limit is defaulted from it: removed only without one) */
    KT_CHECK_INT(patch(cl, "Pod", "other", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"2\"}}}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"other\" is invalid: spec.containers[0].resources.requests: "
                          "Forbidden: resource requests cannot be removed");
    KT_CHECK_INT(patch(cl, "Pod", "run", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"2\","
                       "\"memory\":\"1Gi\"}}}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"run\" is invalid: spec.containers[0].resources.limits"
                          "[memory]: Forbidden: memory limits cannot be decreased unless "
                          "resizePolicy is RestartContainer");
    KT_CHECK_INT(patch(cl, "Pod", "guaranteed", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"500m\",\"memory\":\"1Gi\",\"ephemeral-storage\":\"1Gi\"},"
                       "\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\",\"ephemeral-storage\":"
                       "\"1Gi\"}}}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg,
                 "The Pod \"guaranteed\" is invalid: spec: Invalid value: \"Guaranteed\": Pod QOS "
                 "Class may not change as a result of resizing");
    KT_CHECK_INT(patch(cl, "Pod", "guaranteed", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"1\",\"memory\":\"1Gi\",\"ephemeral-storage\":\"2Gi\"},"
                       "\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\",\"ephemeral-storage\":"
                       "\"2Gi\"}}}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Pod \"guaranteed\" is invalid: spec: Forbidden: only cpu and "
                          "memory resources are mutable");
    /* accepted: cpu up, and the labels of the same patch dropped */
    int64_t before = cl->nodes[0].requested[KP_RES_CPU];
    KT_CHECK_INT(patch(cl, "Pod", "run", "resize",
                       "{\"metadata\":{\"labels\":{\"dropped\":\"yes\"}},\"spec\":{\"containers\":"
                       "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1500m\",\"memory\":"
                       "\"1Gi\"},\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}}]}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.resized && r.resize_pending && !r.labels_changed);
    KT_CHECK_INT(cl->pods[run].labels.n, 0);
    /* pending: the node still counts what the kubelet allocated (the old request) at least */
    KT_CHECK(cl->nodes[0].requested[KP_RES_CPU] >= before);
    char msg[256];
    KT_CHECK_INT(kp_kubelet_resize_check(cl, run, msg, sizeof msg), KP_RESIZE_APPLIED);
    KT_CHECK_STR(msg, "");
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_pod_resize_set(cl, run, KP_RESIZE_APPLIED, msg, &err), KP_OK);
    KT_CHECK_INT(cl->nodes[0].requested[KP_RES_CPU], before + 500);
    KT_CHECK(cl->gen_struct != gen);
    kp_cluster_free(cl);
}

/* canResizePod: more than the node's allocatable is Infeasible (its message), more than what the
 * other pods leave is Deferred (the admission's InsufficientResourceError) */
KT_TEST(kubelet_resize_decision) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    kp_index run = kp_cluster_find_pod(cl, "default/run");
    char msg[256];
    KT_CHECK_INT(patch(cl, "Pod", "run", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"5\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"5\",\"memory\":"
                       "\"2Gi\"}}}]}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK_INT(kp_kubelet_resize_check(cl, run, msg, sizeof msg), KP_RESIZE_INFEASIBLE);
    KT_CHECK_STR(msg, "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000");
    KT_CHECK_INT(kp_cluster_pod_resize_set(cl, run, KP_RESIZE_INFEASIBLE, msg, &err), KP_OK);
    KT_CHECK(cl->pods[run].resize && cl->pods[run].resize->infeasible);
    /* Infeasible: the scheduler counts what is allocated (1 cpu), not the spec */
    KT_CHECK_INT(cl->nodes[0].requested[KP_RES_CPU], 3000);
    KT_CHECK_INT(patch(cl, "Pod", "run", "resize",
                       "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                       "{\"cpu\":\"3\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"3\",\"memory\":"
                       "\"2Gi\"}}}]}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK_INT(kp_kubelet_resize_check(cl, run, msg, sizeof msg), KP_RESIZE_DEFERRED);
    KT_CHECK_STR(msg, "Node didn't have enough resource: cpu, requested: 3000, used: 2000, "
                      "capacity: 4000");
    kp_cluster_free(cl);
}

/* ValidatePriorityClassUpdate: value and preemptionPolicy are immutable, description is not */
KT_TEST(priority_class_update) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    KT_CHECK_INT(patch(cl, "PriorityClass", "high", "", "{\"value\":2000}", &r, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "The PriorityClass \"high\" is invalid: value: Forbidden: may not be "
                          "changed in an update.");
    KT_CHECK_INT(patch(cl, "PriorityClass", "high", "",
                       "{\"value\":2000,\"preemptionPolicy\":\"Never\"}", &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The PriorityClass \"high\" is invalid: [value: Forbidden: may not be "
                          "changed in an update., preemptionPolicy: Invalid value: \"Never\": "
                          "field is immutable]");
    KT_CHECK_INT(patch(cl, "PriorityClass", "high", "", "{\"description\":\"d\"}", &r, &err),
                 KP_OK);
    KT_CHECK(r.changed);
    kp_cluster_free(cl);
}

/* A node: labels, taints and unschedulable through the node; capacity and allocatable through
 * its status subresource (dropped from a patch of the node itself) */
KT_TEST(node_update) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    uint64_t gen = cl->gen_struct;
    KT_CHECK_INT(patch(cl, "Node", "n1", "",
                       "{\"metadata\":{\"labels\":{\"zone\":null,\"gpu\":\"yes\"}},\"spec\":"
                       "{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}],"
                       "\"unschedulable\":true}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.labels_changed && r.spec_changed && cl->gen_struct != gen);
    KT_CHECK_INT(cl->nodes[0].labels.n, 1);
    KT_CHECK_INT(cl->nodes[0].n_taints, 1);
    KT_CHECK(kp_cluster_node_unschedulable(cl, 0));
    KT_CHECK_INT(patch(cl, "Node", "n1", "",
                       "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"},"
                       "{\"key\":\"k\",\"value\":\"2\",\"effect\":\"NoSchedule\"}]}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "taints must be unique by key and effect pair");
    KT_CHECK_INT(patch(cl, "Node", "n1", "status", "{\"status\":{\"allocatable\":{\"cpu\":\"8\"}}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.status_changed);
    KT_CHECK_INT(cl->nodes[0].alloc[KP_RES_CPU], 8000);
    KT_CHECK_INT(cl->nodes[0].alloc[KP_RES_MEM], 4LL << 30); /* kept */
    KT_CHECK_INT(patch(cl, "Node", "n1", "resize", "{}", &r, &err), KP_ENOTFOUND);
    kp_cluster_free(cl);
}

/* A Deployment's replicas and template change; its selector is immutable (apps/v1) */
KT_TEST(workload_update) {
    kp_cluster *cl = cluster();
    kp_update_result r;
    kp_error err;
    KT_CHECK_INT(patch(cl, "Deployment", "web", "", "{\"spec\":{\"replicas\":5}}", &r, &err),
                 KP_OK);
    KT_CHECK(r.replicas_changed && !r.template_changed);
    kp_workload_info wi;
    kp_cluster_workload_info(cl, r.index, &wi);
    KT_CHECK_INT(wi.replicas, 5);
    KT_CHECK_INT(patch(cl, "Deployment", "web", "",
                       "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                       "\"image\":\"app:2\"}]}}}}",
                       &r, &err),
                 KP_OK);
    KT_CHECK(r.template_changed && !r.replicas_changed);
    KT_CHECK_INT(patch(cl, "Deployment", "web", "",
                       "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"template\":"
                       "{\"metadata\":{\"labels\":{\"app\":\"x\"}}}}}",
                       &r, &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "The Deployment \"web\" is invalid: spec.selector: Invalid value: "
                          "v1.LabelSelector{...}: field is immutable");
    /* a template the selector does not select: the decoder's validation */
    KT_CHECK_INT(patch(cl, "Deployment", "web", "",
                       "{\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}}}}}", &r,
                       &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "`selector` does not match template `labels`");
    kp_cluster_free(cl);
}

/* The scenario's `patch` action: what is statically wrong fails the load with the file, the
 * action index and the field; a good one keeps the patch as text (YAML: "---" first). */
static void scenario_error(const char *action, const char *want) {
    char text[1024];
    snprintf(text, sizeof text,
             "apiVersion: kprio/v1alpha1\nkind: Scenario\nactions:\n- at: 1s\n  patch: %s\n",
             action);
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", text, strlen(text), NULL, &sc, &err), KP_EINVAL);
    KT_CHECK_STR(err.source, "s.yaml");
    KT_CHECK_CONTAINS(err.msg, want);
    kp_scenario_free(sc);
}

KT_TEST(scenario_patch_action) {
    scenario_error("{kind: Secret, name: x, patch: {}}",
                   "actions[0]: patch.kind: Unsupported value: \"Secret\"");
    scenario_error("{kind: Node, name: n1, patch: [1]}",
                   "actions[0]: patch.patch: expected an object (a JSON merge patch, RFC 7386)");
    scenario_error("{kind: Node, name: n1}", "actions[0]: patch.patch: required value");
    scenario_error("{kind: Node, name: n1, patch: {metadata: {name: n2}}}",
                   "actions[0]: patch.patch.metadata.name: may not be changed");
    scenario_error("{kind: Node, name: n1, patch: {status: {allocatable: {cpu: '8'}}}}",
                   "patch.patch.status: the API server drops a node's status");
    scenario_error("{kind: Pod, name: p, subresource: status, patch: {}}",
                   "patch.subresource: Unsupported value: \"status\"");
    scenario_error("{kind: Node, namespace: default, name: n1, patch: {}}",
                   "patch.namespace: a Node has no namespace");
    const char *ok = "apiVersion: kprio/v1alpha1\nkind: Scenario\nactions:\n- at: 1s\n  patch: "
                     "{kind: Pod, name: p, subresource: resize, patch: {spec: {containers: "
                     "[{name: c, resources: {requests: {cpu: 1}}}]}}}\n";
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", ok, strlen(ok), NULL, &sc, &err), KP_OK);
    if (!sc) return;
    KT_CHECK_INT(sc->actions[0].type, KP_ACT_PATCH);
    KT_CHECK_STR(sc->actions[0].ref.ns, "default");
    KT_CHECK_STR(sc->actions[0].subresource, "resize");
    KT_CHECK_STR(sc->actions[0].patch,
                 "--- {\"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": "
                 "{\"requests\": {\"cpu\": 1}}}]}}\n");
    kp_scenario_free(sc);
}

KT_MAIN(KT_CASE(merge_patch_rfc7386_examples), KT_CASE(merge_patch_scalar_replaces),
        KT_CASE(pod_update_rules), KT_CASE(pod_scheduling_gates), KT_CASE(pod_resize_rules),
        KT_CASE(kubelet_resize_decision), KT_CASE(priority_class_update), KT_CASE(node_update),
        KT_CASE(workload_update), KT_CASE(scenario_patch_action))
