/* Device binding conditions and DynamicResources' PostFilter deallocation, modelled on the rows
 * of upstream's pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go
 * (TestPlugin) for claims with binding conditions (succeeded, failed, timed out: Filter's
 * "resourceclaim not available on the node", PostFilter's "deallocation of ResourceClaim
 * completed" with reservedFor, allocation and devices cleared) and for an allocated claim
 * available on no node; isClaimReadyForBinding / isClaimTimeout on core's view; the allocator's
 * pool order with binding conditions (pools_incubating.go); the binding timeout of
 * DynamicResourcesArgs. */
#include "core/cluster.h"
#include "core/dra.h"
#include "sched/plugins/dynamic_resources.h"
#include "test_sched_util.h"

#define HEAD                                                                          \
    "apiVersion: v1\nkind: Node\nmetadata: {name: worker}\n"                          \
    "status: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"110\"}}\n"               \
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"                        \
    "metadata: {name: gpu.example.com}\nspec: {}\n"                                   \
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n" \
    "spec:\n  driver: gpu.example.com\n  allNodes: true\n"                            \
    "  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"                  \
    "  devices:\n"                                                                    \
    "  - {name: dev-0, bindingConditions: [Ready], bindingFailureConditions: [Failed]}\n"
#define CLAIM(status_devices, ts, reserved)                                                       \
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"                                  \
    "metadata: {name: my-pod-claim, namespace: default}\n"                                        \
    "spec: {devices: {requests: [{name: req-1, exactly: {deviceClassName: gpu.example.com}}]}}\n" \
    "status:\n  allocation:\n    devices:\n      results:\n"                                      \
    "      - {request: req-1, driver: gpu.example.com, pool: fabric, device: dev-0,\n"            \
    "         bindingConditions: [Ready], bindingFailureConditions: [Failed]}\n"                  \
    "    allocationTimestamp: \"" ts "\"\n" reserved status_devices
#define DEVICES(conds)                                                                    \
    "  devices:\n  - {driver: gpu.example.com, pool: fabric, device: dev-0, conditions: " \
    "[" conds "]}\n"
#define POD                                                                                \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: my-pod, namespace: default, uid: "   \
    "my-pod-uid}\nspec:\n  resourceClaims: [{name: c, resourceClaimName: my-pod-claim}]\n" \
    "  containers: [{name: c, resources: {requests: {cpu: \"1\"}, claims: [{name: c}]}}]\n"

static const kp_dra_claim *claim_of(const kp_cluster *cl) {
    long k = kp__cluster_find_dra(cl, KP_DK_CLAIM, kp__intern_find(&cl->strs, "default", 7),
                                  kp__intern_find(&cl->strs, "my-pod-claim", 12));
    return k >= 0 ? &cl->dra.claims[k] : NULL;
}

/* schedule my-pod; its result's message */
static const char *run(kp_sched *s) {
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "default/my-pod");
    KT_CHECK(r != NULL);
    return r ? r->message : "";
}

/* the failure condition True: unavailable everywhere, deallocated by PostFilter (reservedFor
 * held by the pod itself), then free for the next attempt */
KT_TEST(dra_binding_failed_deallocated) {
    kp_cluster *cl = ts_load(HEAD CLAIM(DEVICES("{type: Failed, status: \"True\", reason: R, "
                                                "message: gone}"),
                                        "2026-01-01T00:00:00Z",
                                        "  reservedFor: [{resource: pods, name: my-pod, uid: "
                                        "my-pod-uid}]\n") POD);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_dra_claim *c = claim_of(cl);
    char why[200];
    KT_CHECK_INT(kp__dra_claim_binding(cl, c, KP_TIME_NONE, 600, why, sizeof why),
                 KP_DRA_BINDING_FAILED);
    KT_CHECK_STR(why, "claim my-pod-claim binding failed: reason=R, message=\"gone\"");
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "default/my-pod", "worker");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "resourceclaim not available on the node");
    KT_CHECK_CONTAINS(run(s), "deallocation of ResourceClaim completed");
    c = claim_of(cl);
    KT_CHECK(!c->allocated && c->n_reserved == 0 && c->n_device_status == 0 && !c->n_results);
    KT_CHECK(kp_sched_deallocated_claim(s) == (kp_index)(c - cl->dra.claims));
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* reserved by another pod as well: PostFilter leaves it ("still not schedulable") */
KT_TEST(dra_binding_failed_reserved_by_other) {
    kp_cluster *cl =
        ts_load(HEAD CLAIM(DEVICES("{type: Failed, status: \"True\"}"), "2026-01-01T00:00:00Z",
                           "  reservedFor: [{resource: pods, name: other, uid: other-uid}]\n") POD);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_CONTAINS(run(s), "still not schedulable");
    KT_CHECK(claim_of(cl)->allocated);
    KT_CHECK(kp_sched_deallocated_claim(s) == -1);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* every binding condition True: ready, the pod binds without waiting */
KT_TEST(dra_binding_succeeded) {
    kp_cluster *cl = ts_load(HEAD CLAIM(DEVICES("{type: Ready, status: \"True\"}, {type: Failed, "
                                                "status: \"False\"}"),
                                        "2026-01-01T00:00:00Z", "") POD);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp__dra_claim_binding(cl, claim_of(cl), KP_TIME_NONE, 600, NULL, 0),
                 KP_DRA_BINDING_READY);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_STR(run(s), "");
    KT_CHECK_STR(ts_node_of(s, "default/my-pod"), "worker");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* not ready: pending until allocationTimestamp + the timeout, timed out after it (600 s by
 * default, DynamicResourcesArgs.bindingTimeout otherwise); timed out, Filter finds the claim
 * unavailable and PostFilter frees it */
KT_TEST(dra_binding_timeout) {
    kp_cluster *cl = ts_load(HEAD CLAIM("", "2026-01-01T00:00:00Z", "") POD);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_dra_claim *c = claim_of(cl);
    int64_t t0 = c->alloc_ts;
    KT_CHECK_INT(kp__dra_claim_binding(cl, c, t0 + 600, 600, NULL, 0), KP_DRA_BINDING_PENDING);
    KT_CHECK_INT(kp__dra_claim_binding(cl, c, t0 + 601, 600, NULL, 0), KP_DRA_BINDING_TIMEOUT);
    KT_CHECK_INT(kp__dra_claim_binding(cl, c, KP_TIME_NONE, 600, NULL, 0), KP_DRA_BINDING_PENDING);
    kp_sched *s = ts_sched(cl,
                           "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\nprofiles:\n"
                           "- pluginConfig:\n  - name: DynamicResources\n"
                           "    args: {bindingTimeout: 60s}\n",
                           0);
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    KT_CHECK_INT(kp__dra_binding_timeout(s), 60);
    kp_sched_set_time(s, t0 + 30); /* waiting: PreBind waits again */
    KT_CHECK_STR(run(s), "BindingConditionsPending: waiting for binding conditions for device on "
                         "node worker");
    kp_sched_free(s);
    kp_cluster_free(cl);
    cl = ts_load(HEAD CLAIM("", "2026-01-01T00:00:00Z", "") POD);
    s = ts_sched(cl, NULL, 0);
    kp_sched_set_time(s, t0 + 601);
    KT_CHECK_CONTAINS(run(s), "deallocation of ResourceClaim completed");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* a driver's condition (core's writer): the entry made, then updated in place */
KT_TEST(dra_binding_set_condition) {
    kp_cluster *cl = ts_load(HEAD CLAIM("", "2026-01-01T00:00:00Z", "") POD);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    uint32_t k = (uint32_t)(claim_of(cl) - cl->dra.claims);
    KT_CHECK_INT(kp__dra_claim_set_condition(cl, k, 0, "Ready", false, "Attaching", ""), KP_OK);
    KT_CHECK_INT(kp__dra_claim_binding(cl, claim_of(cl), KP_TIME_NONE, 600, NULL, 0),
                 KP_DRA_BINDING_PENDING);
    KT_CHECK_INT(kp__dra_claim_set_condition(cl, k, 0, "Ready", true, "Attached", ""), KP_OK);
    KT_CHECK_INT(claim_of(cl)->n_device_status, 1);
    KT_CHECK_INT(claim_of(cl)->device_status[0].n_conditions, 1);
    KT_CHECK_INT(kp__dra_claim_binding(cl, claim_of(cl), KP_TIME_NONE, 600, NULL, 0),
                 KP_DRA_BINDING_READY);
    KT_CHECK_INT(kp__dra_claim_set_condition(cl, k, 1, "Ready", true, "", ""), KP_EINVAL);
    kp_cluster_free(cl);
}

/* a status.devices entry must name an allocated device (validateDeviceStatus) */
KT_TEST(dra_binding_status_device_not_allocated) {
    const char *y = HEAD CLAIM("  devices:\n  - {driver: gpu.example.com, pool: fabric, device: "
                               "dev-9}\n",
                               "2026-01-01T00:00:00Z", "") POD;
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "test.yaml", y, strlen(y), &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "status.devices[0]");
    KT_CHECK_CONTAINS(err.msg, "must be an allocated device in the claim");
    kp_cluster_free(cl);
}

/* GatherPools with binding conditions: the pool without them first, whatever the input order;
 * with DRADeviceBindingConditions off the device with conditions is never picked */
KT_TEST(dra_binding_pool_order_and_gate) {
    const char *y =
        HEAD "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: l}\n"
             "spec:\n  driver: gpu.example.com\n  allNodes: true\n"
             "  pool: {name: local, generation: 1, resourceSliceCount: 1}\n"
             "  devices: [{name: dev-l}]\n"
             "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
             "metadata: {name: my-pod-claim, namespace: default}\n"
             "spec: {devices: {requests: [{name: req-1, exactly: {deviceClassName: "
             "gpu.example.com}}]}}\n" POD;
    for (int gate = 0; gate < 2; gate++) {
        kp_cluster *cl = ts_load(y);
        KT_CHECK(cl != NULL);
        if (!cl) return;
        if (!gate) cl->gates.on[KP_GATE_DRA_DEVICE_BINDING_CONDITIONS] = false;
        kp_sched *s = ts_sched(cl, NULL, 0);
        KT_CHECK_STR(run(s), "");
        const kp_dra_claim *c = claim_of(cl);
        KT_CHECK(c->allocated && c->n_results == 1);
        if (c->n_results == 1) KT_CHECK_STR(kp__s(cl, c->results[0].device), "dev-l");
        kp_sched_free(s);
        kp_cluster_free(cl);
    }
}

KT_MAIN(KT_CASE(dra_binding_failed_deallocated), KT_CASE(dra_binding_failed_reserved_by_other),
        KT_CASE(dra_binding_succeeded), KT_CASE(dra_binding_timeout),
        KT_CASE(dra_binding_set_condition), KT_CASE(dra_binding_status_device_not_allocated),
        KT_CASE(dra_binding_pool_order_and_gate))
