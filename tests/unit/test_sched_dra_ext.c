/* DRA-backed extended resources (DRAExtendedResource): rows after upstream's
 * pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources_test.go
 * (createRequestsAndMappings: one request per long-lived container, init containers reusing
 * them), dynamicresources_test.go (TestPlugin's "extended resource" rows: served by DRA on a
 * node without it, by the device plugin on a node with it), noderesources/fit_test.go (the
 * extended resource backed by DRA skipped on a node that does not advertise it) and the
 * extended resource cache's betterDeviceClass arbitration (extendedresourcecache). */
#include "core/cluster.h"
#include "core/dra.h"
#include "core/pod.h"
#include "test_sched_util.h"

#define CLASS(name, ext, ts)                                                         \
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name \
    ", creationTimestamp: \"" ts "\"}\nspec:\n  selectors:\n  - cel: {expression: "  \
    "'device.driver == \"gpu.example.com\"'}\n" ext
#define SLICE(node, n)                                                                           \
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " node "-gpu}\n" \
    "spec:\n  driver: gpu.example.com\n  nodeName: " node "\n  pool: {name: " node               \
    ", generation: 1, resourceSliceCount: 1}\n  devices: " n "\n"
#define NODE(name, extra)                                                                 \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name "}\nstatus: {allocatable: " \
    "{cpu: \"8\", memory: 8Gi, pods: \"110\"" extra "}}\n"
#define POD(spec)                                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: p-uid}\n" \
    "spec: " spec "\n"
#define GPU_CLASS \
    CLASS("gpu.example.com", "  extendedResourceName: example.com/gpu\n", "2025-01-01T00:00:00Z")

static kp_sched *run(kp_cluster *cl) {
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    if (s && kp_sched_run(s, &err) != KP_OK) fprintf(stderr, "  run: %s\n", err.msg);
    return s;
}

static const kp_dra_claim *ext_claim(kp_cluster *cl) {
    long p = kp_cluster_find_pod(cl, "default/p");
    long c = p >= 0 ? kp__dra_pod_ext_claim(cl, (uint32_t)p) : -1;
    return c >= 0 ? &cl->dra.claims[c] : NULL;
}

/* TestPlugin "extended resource backed by DRA": the node does not advertise example.com/gpu;
 * the claim has one request per container ("container-0-request-0": the resource is the
 * container's only request), allocated, reserved, named in the pod's status */
KT_TEST(dra_ext_served_by_dra) {
    kp_cluster *cl = ts_load(NODE("worker", "") GPU_CLASS SLICE("worker", "[{name: gpu-0}]") POD(
        "{containers: [{name: c, resources: {requests: "
        "{example.com/gpu: \"1\"}, limits: {example.com/gpu: \"1\"}}}]}"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = run(cl);
    KT_CHECK_STR(ts_node_of(s, "default/p"), "worker");
    const kp_dra_claim *c = ext_claim(cl);
    KT_CHECK(c != NULL);
    if (c) {
        KT_CHECK(c->extended && c->allocated);
        KT_CHECK_INT(c->spec.n_requests, 1);
        KT_CHECK_STR(kp__s(cl, c->spec.requests[0].name), "container-0-request-0");
        KT_CHECK_STR(kp__s(cl, c->spec.requests[0].exactly.class_name), "gpu.example.com");
        KT_CHECK_INT(c->n_reserved, 1);
        KT_CHECK(strncmp(kp__s(cl, c->name), "p-extended-resources-", 21) == 0);
        KT_CHECK_INT((long)strlen(kp__s(cl, c->name)), 26);
        const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
        KT_CHECK(p->ext_claim && p->ext_claim->claim == c->name);
        KT_CHECK_INT(p->ext_claim->n_mappings, 1);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* createRequestsAndMappings "init container reuses the long-lived container's request": the init
 * container (index 0) wants 2, the app container (index 1) 1: the app's request serves 1 of the
 * init container's 2 and a request of its own the other */
KT_TEST(dra_ext_init_container_reuses) {
    kp_cluster *cl =
        ts_load(NODE("worker", "") GPU_CLASS SLICE("worker", "[{name: gpu-0}, {name: gpu-1}]") POD(
            "{initContainers: [{name: i, resources: {requests: {example.com/gpu: \"2\"}, "
            "limits: {example.com/gpu: \"2\"}}}], containers: [{name: c, resources: "
            "{requests: {example.com/gpu: \"1\"}, limits: {example.com/gpu: \"1\"}}}]}"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = run(cl);
    KT_CHECK_STR(ts_node_of(s, "default/p"), "worker");
    const kp_dra_claim *c = ext_claim(cl);
    KT_CHECK(c != NULL);
    if (c && c->spec.n_requests == 2) {
        KT_CHECK_STR(kp__s(cl, c->spec.requests[0].name), "container-0-request-0");
        KT_CHECK_INT(c->spec.requests[0].exactly.count, 1);
        KT_CHECK_STR(kp__s(cl, c->spec.requests[1].name), "container-1-request-0");
        KT_CHECK_INT(c->spec.requests[1].exactly.count, 1);
        const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
        KT_CHECK_INT(p->ext_claim->n_mappings, 3); /* c; then i twice (reused, its own) */
        KT_CHECK_STR(kp__s(cl, p->ext_claim->mappings[0].container), "c");
        KT_CHECK_STR(kp__s(cl, p->ext_claim->mappings[1].request), "container-1-request-0");
        KT_CHECK_STR(kp__s(cl, p->ext_claim->mappings[2].request), "container-0-request-0");
    } else {
        KT_CHECK(0);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* TestPlugin "extended resource backed by device plugin" and fit_test.go: a node advertising the
 * resource serves it through its device plugin (no claim); when it has too few, NodeResourcesFit
 * says "Insufficient example.com/gpu" and DRA does not step in there */
KT_TEST(dra_ext_device_plugin_node) {
    kp_cluster *cl = ts_load(NODE("worker", ", example.com/gpu: \"1\"") GPU_CLASS SLICE(
        "worker", "[{name: gpu-0}]") POD("{containers: [{name: c, resources: {requests: "
                                         "{example.com/gpu: \"2\"}, limits: {example.com/gpu: "
                                         "\"2\"}}}]}"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "default/p", "worker");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK(st.n_reasons == 1 && strcmp(st.reasons[0], "Insufficient example.com/gpu") == 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* the implicit name deviceclass.resource.kubernetes.io/<class> is served by that class; with
 * DRAExtendedResource off it is an ordinary resource the node lacks */
KT_TEST(dra_ext_implicit_name_and_gate) {
    const char *y = NODE("worker", "") CLASS("gpu.example.com", "", "2025-01-01T00:00:00Z")
        SLICE("worker", "[{name: gpu-0}]")
            POD("{containers: [{name: c, resources: {requests: "
                "{deviceclass.resource.kubernetes.io/gpu.example.com: \"1\"}, limits: "
                "{deviceclass.resource.kubernetes.io/gpu.example.com: \"1\"}}}]}");
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = run(cl);
    KT_CHECK_STR(ts_node_of(s, "default/p"), "worker");
    KT_CHECK(ext_claim(cl) != NULL);
    kp_sched_free(s);
    kp_cluster_free(cl);
    cl = ts_load(y);
    if (!cl) return;
    cl->gates.on[KP_GATE_DRA_EXTENDED_RESOURCE] = false;
    s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "default/p", "worker");
    KT_CHECK(st.n_reasons == 1 &&
             strcmp(st.reasons[0],
                    "Insufficient deviceclass.resource.kubernetes.io/gpu.example.com") == 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* extendedresourcecache betterDeviceClass: of the classes naming one extendedResourceName the
 * newest wins, the lower name on a tie */
KT_TEST(dra_ext_class_arbitration) {
#define EXT "  extendedResourceName: example.com/gpu\n"
    kp_cluster *cl = ts_load(NODE("worker", "") CLASS("b-old", EXT, "2025-01-01T00:00:00Z") CLASS(
        "c-new", EXT, "2025-06-01T00:00:00Z") CLASS("a-new", EXT, "2025-06-01T00:00:00Z"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    long k = kp__dra_ext_class(cl, "example.com/gpu");
    KT_CHECK(k >= 0 && strcmp(kp__s(cl, cl->dra.classes[k].name), "a-new") == 0);
    KT_CHECK_INT(kp__dra_ext_class(cl, "example.com/other"), -1);
    k = kp__dra_ext_class(cl, "deviceclass.resource.kubernetes.io/b-old");
    KT_CHECK(k >= 0 && strcmp(kp__s(cl, cl->dra.classes[k].name), "b-old") == 0);
    KT_CHECK(kp__dra_ext_name("example.com/gpu"));
    KT_CHECK(!kp__dra_ext_name("kubernetes.io/gpu"));
    KT_CHECK(!kp__dra_ext_name("cpu"));
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(dra_ext_served_by_dra), KT_CASE(dra_ext_init_container_reuses),
        KT_CASE(dra_ext_device_plugin_node), KT_CASE(dra_ext_implicit_name_and_gate),
        KT_CASE(dra_ext_class_arbitration))
