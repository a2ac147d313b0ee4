/* The single copy of the pod's request rules (core/pod_requests.c) and QoS (core/qos.c): the
 * scheduler's PodRequests keeps the container aggregate for resources the pod level does not
 * set, the kubelet's GetResourceRequestQuantity skips the containers once pod-level resources
 * are set (pkg/api/v1/resource/helpers.go: PodRequests with SkipContainerLevelResources). The
 * eviction manager used to take the scheduler's figure; upstream ranks by the kubelet's. */
#include <stdlib.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/qos.h"
#include "core/resources.h"
#include "harness.h"
#include "kprio/cluster.h"

static kp_cluster *load(const char *y) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    if (kp_cluster_load_buffer(cl, "test.yaml", y, strlen(y), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

#define POD(name) \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name "\n  namespace: default\n"

static const char PODS[] = POD(
    "podlevel") "spec:\n  resources:\n    requests:\n      cpu: \"1\"\n  containers:\n  - name: c\n"
                "    resources:\n      requests:\n        cpu: 200m\n        memory: 64Mi\n        "
                "ephemeral-storage: 1Gi\n" POD(
                    "plain") "spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n "
                             "       memory: 64Mi\n"
                             "        ephemeral-storage: 1Gi\n      limits:\n        "
                             "ephemeral-storage: 2Gi\n"
                             "  initContainers:\n  - name: side\n    restartPolicy: Always\n    "
                             "resources:\n      limits:\n"
                             "        ephemeral-storage: 1Gi\n  - name: init\n    resources:\n     "
                             " limits:\n        ephemeral-storage: 5Gi\n";

KT_TEST(kubelet_request_skips_containers_with_pod_level_resources) {
    kp_cluster *cl = load(PODS);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "podlevel")];
    KT_CHECK(kp__pod_level_resources_set(cl, p));
    /* GetResourceRequestQuantity: pod-level cpu; memory and ephemeral-storage 0 (containers
     * skipped, ephemeral-storage is no pod-level resource) */
    KT_CHECK_INT(kp__pod_resource_request(cl, p, KP_RES_CPU), 1000);
    KT_CHECK_INT(kp__pod_resource_request(cl, p, KP_RES_MEM), 0);
    KT_CHECK_INT(kp__pod_resource_request(cl, p, KP_RES_EPH), 0);
    /* PodRequests (the scheduler): pod-level cpu replaces, memory keeps the containers' */
    int64_t req[KP_MAX_RES];
    kp__pod_requests(cl, p, true, false, req);
    KT_CHECK_INT(req[KP_RES_CPU], 1000);
    KT_CHECK_INT(req[KP_RES_MEM], 64 << 20);
    kp_cluster_free(cl);
}

KT_TEST(aggregate_limits_sidecar_aware) {
    kp_cluster *cl = load(PODS);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "plain")];
    bool has = false;
    /* regular 2Gi + sidecar 1Gi = 3Gi; the init container runs beside the sidecar: 5Gi + 1Gi */
    KT_CHECK_INT(kp__pod_aggregate_container(p, KP_RES_EPH, true, &has), INT64_C(6) << 30);
    KT_CHECK(has);
    KT_CHECK_INT(kp__pod_aggregate_container(p, KP_RES_CPU, true, &has), 0);
    KT_CHECK(!has);
    int64_t lim[KP_MAX_RES];
    kp__pod_limits(cl, p, lim);
    KT_CHECK_INT(lim[KP_RES_EPH], INT64_C(6) << 30);
    KT_CHECK_INT(kp__pod_resource_request(cl, p, KP_RES_MEM), 64 << 20);
    KT_CHECK_INT(kp__pod_compute_qos(p), KP_QOS_BURSTABLE);
    KT_CHECK_STR(kp_qos_name(KP_QOS_GUARANTEED), "Guaranteed");
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(kubelet_request_skips_containers_with_pod_level_resources),
        KT_CASE(aggregate_limits_sidecar_aware))
