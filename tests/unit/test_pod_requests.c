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
    KT_CHECK_INT(kp__pod_compute_qos(p, true), KP_QOS_BURSTABLE);
    KT_CHECK_STR(kp_qos_name(KP_QOS_GUARANTEED), "Guaranteed");
    kp_cluster_free(cl);
}

/* One pod per case of upstream's TestPodResourceRequests (component-helpers
 * resource/helpers_test.go, the resize rows), TestAggregateContainerRequestsAndLimits (pod-level
 * status rows) and TestPodRequestsAndLimitsVerticalScalingWrappers: PodRequests with the
 * scheduler's options (UseStatusResources, InPlacePodLevelResourcesVerticalScalingEnabled). */
#define C1(req) "  containers:\n  - name: container-1\n    resources:\n      requests:\n" req
#define CS(body) "  containerStatuses:\n  - name: container-1\n" body
#define INFEASIBLE                                                                  \
    "  conditions:\n  - type: PodResizePending\n    status: \"True\"\n    reason: " \
    "Infeasible\n"
static const char RESIZE[] = POD("infeasible") "spec:\n" C1(
    "        cpu: \"4\"\n") "status:\n" INFEASIBLE CS("    resources:\n      requests:\n        "
                                                      "cpu: \"2\"\n")
    POD("infeasible-in-progress") "spec:\n" C1("        cpu: \"6\"\n") "status:\n" INFEASIBLE CS(
        "    allocatedResources:\n      cpu: \"4\"\n    resources:\n      requests:\n        cpu: "
        "\"2\"\n") POD("no-resize-status") "spec:\n" C1("        cpu: \"4\"\n") "status:\n" CS("   "
                                                                                               " re"
                                                                                               "sou"
                                                                                               "rce"
                                                                                               "s:"
                                                                                               "\n "
                                                                                               "   "
                                                                                               "  "
                                                                                               "req"
                                                                                               "ues"
                                                                                               "ts:"
                                                                                               "\n "
                                                                                               "   "
                                                                                               "   "
                                                                                               " cp"
                                                                                               "u: "
                                                                                               "\"2"
                                                                                               "\""
                                                                                               "\n")
        POD("three-way-max") "spec:\n" C1(
            "        cpu: 30m\n        memory: 20M\n        "
            "ephemeral-storage: 10G\n") "status:\n" CS("    allocatedResources:\n      cpu: 20m\n  "
                                                       "    memory: 10M\n      ephemeral-storage: "
                                                       "30G\n    resources:\n      requests:\n     "
                                                       "   cpu: 10m\n        memory: 30M\n        "
                                                       "ephemeral-storage: 20G\n")
            POD("sidecar-infeasible") "spec:\n  containers:\n  - name: app\n  initContainers:\n  - "
                                      "name: "
                                      "restartable-init-1\n    restartPolicy: Always\n    "
                                      "resources:\n "
                                      "     requests:\n        cpu: \"4\"\n"
                                      "status:\n" INFEASIBLE "  initContainerStatuses:\n  - name: "
                                      "restartable-init-1\n    resources:\n      requests:\n       "
                                      " cpu: "
                                      "\"2\"\n" POD(
                                          "sidecar-no-resize-status") "spec:\n  containers:\n  - "
                                                                      "name: app\n  "
                                                                      "initContainers:\n  - "
                                                                      "name: restartable-init-1\n  "
                                                                      "  restartPolicy: Always\n   "
                                                                      " "
                                                                      "resources:\n      "
                                                                      "requests:\n        cpu: "
                                                                      "\"4\"\n"
                                                                      "status:\n  "
                                                                      "initContainerStatuses:\n  - "
                                                                      "name: "
                                                                      "restartable-init-1\n    "
                                                                      "resources:\n      "
                                                                      "requests:\n      "
                                                                      "  cpu: \"2\"\n" POD(
                                                                          "max-of-sums") "spec:\n  "
                                                                                         "container"
                                                                                         "s:\n  - "
                                                                                         "name: "
                                                                                         "c1\n    "
                                                                                         "resources"
                                                                                         ":\n      "
                                                                                         "requests:"
                                                                                         "\n     "
                                                                                         "   cpu: "
                                                                                         "\"1\"\n  "
                                                                                         "- name: "
                                                                                         "c2\n    "
                                                                                         "resources"
                                                                                         ":\n      "
                                                                                         "requests:"
                                                                                         "\n       "
                                                                                         " cpu: "
                                                                                         "\"2\"\nst"
                                                                                         "atus:\n  "
                                                                                         "container"
                                                                                         "Statuses:"
                                                                                         "\n  - "
                                                                                         "name: "
                                                                                         "c1\n    "
                                                                                         "allocated"
                                                                                         "Resources"
                                                                                         ":\n      "
                                                                                         "cpu: "
                                                                                         "\"2\"\n  "
                                                                                         "- name: "
                                                                                         "c2\n    "
                                                                                         "allocated"
                                                                                         "Resources"
                                                                                         ":\n      "
                                                                                         "cpu: "
                                                                                         "\"1\""
                                                                                         "\n" POD(
                                                                                             "pod-"
                                                                                             "statu"
                                                                                             "s-"
                                                                                             "aggre"
                                                                                             "gate") "spec:\n  containers:\n  - name: c1\n    resources:\n      "
                                                                                                     "requests:\n        cpu: \"1\"\nstatus:\n  allocatedResources:\n "
                                                                                                     "   cpu: \"4\"\n  resources:\n    requests:\n      cpu: \"3\"\n" POD(
                                                                                                         "pod-status-fallback") "spec:\n  containers:\n  - name: c1\n    resources:\n      "
                                                                                                                                "requests:\n        cpu: \"1\"\nstatus:\n  resources:\n    "
                                                                                                                                "requests:\n      cpu: \"3\"\n  containerStatuses:\n  - name: c1\n "
                                                                                                                                "   allocatedResources:\n      cpu: \"6\"\n    resources:\n      "
                                                                                                                                "requests:\n        cpu: \"5\"\n" POD(
                                                                                                                                    "pod-level-status") "spec:\n  resources:\n    requests:\n      cpu: \"2\"\n  containers:\n "
                                                                                                                                                        " - name: c1\n    resources:\n      requests:\n        cpu: \"1\"\n"
                                                                                                                                                        "status:\n  allocatedResources:\n    cpu: \"3\"\n  resources:\n    "
                                                                                                                                                        "requests:\n      cpu: 3500m\n" POD(
                                                                                                                                                            "pod-level-infeasible") "spec:\n  resources:\n    requests:\n      cpu: \"10\"\n  "
                                                                                                                                                                                    "containers:\n  - name: c1\n    resources:\n      requests:\n    "
                                                                                                                                                                                    "    cpu: \"1\"\nstatus:\n" INFEASIBLE
                                                                                                                                                                                    "  allocatedResources:\n  "
                                                                                                                                                                                    "  cpu: \"3\"\n  resources:\n    requests:\n      cpu: \"4\"\n";

static int64_t sched_request(const kp_cluster *cl, const char *name, int r) {
    int64_t req[KP_MAX_RES];
    kp__pod_requests(cl, &cl->pods[kp_cluster_find_pod(cl, name)], true, false, req);
    return req[r];
}

KT_TEST(scheduler_requests_follow_in_place_resize) {
    kp_cluster *cl = load(RESIZE);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    /* infeasible: the spec does not count, only the actuated / allocated values */
    KT_CHECK_INT(sched_request(cl, "infeasible", KP_RES_CPU), 2000);
    KT_CHECK_INT(sched_request(cl, "infeasible-in-progress", KP_RES_CPU), 4000);
    /* otherwise the larger of spec, actuated and allocated, per resource */
    KT_CHECK_INT(sched_request(cl, "no-resize-status", KP_RES_CPU), 4000);
    KT_CHECK_INT(sched_request(cl, "three-way-max", KP_RES_CPU), 30);
    KT_CHECK_INT(sched_request(cl, "three-way-max", KP_RES_MEM), 30000000);
    KT_CHECK_INT(sched_request(cl, "three-way-max", KP_RES_EPH), INT64_C(30000000000));
    KT_CHECK_INT(sched_request(cl, "sidecar-infeasible", KP_RES_CPU), 2000);
    KT_CHECK_INT(sched_request(cl, "sidecar-no-resize-status", KP_RES_CPU), 4000);
    /* the max of the sums, not the sum of per-container maxima (4) */
    KT_CHECK_INT(sched_request(cl, "max-of-sums", KP_RES_CPU), 3000);
    /* pod-level status maps stand for the container aggregates when both are set */
    KT_CHECK_INT(sched_request(cl, "pod-status-aggregate", KP_RES_CPU), 4000);
    KT_CHECK_INT(sched_request(cl, "pod-status-fallback", KP_RES_CPU), 6000);
    /* pod-level requests: max(spec, status requests, allocated); infeasible drops the spec */
    KT_CHECK_INT(sched_request(cl, "pod-level-status", KP_RES_CPU), 3500);
    KT_CHECK_INT(sched_request(cl, "pod-level-infeasible", KP_RES_CPU), 4000);
    /* the derived vector the scheduler and preemption read */
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "infeasible-in-progress")];
    KT_CHECK(p->req.n >= 1 && p->req.e[0].res == KP_RES_CPU && p->req.e[0].v == 4000);
    /* the kubelet's GetResourceRequestQuantity reads the spec only ("don't use status") */
    KT_CHECK_INT(kp__pod_resource_request(cl, p, KP_RES_CPU), 6000);
    KT_CHECK_INT(
        kp__pod_resource_request(cl, &cl->pods[kp_cluster_find_pod(cl, "infeasible")], KP_RES_CPU),
        4000);
    kp_cluster_free(cl);
}

/* RESIZE on a release line (--compat) with extra gates: kp_feature_gates_init_compat, then
 * kube-scheduler's --feature-gates syntax. */
static kp_cluster *load_line(const char *y, const char *line, const char *gates) {
    kp_error err;
    kp_error_clear(&err);
    kp_feature_gates g;
    kp_cluster *cl = kp_cluster_new();
    if (!cl || kp_feature_gates_init_compat(&g, line, &err) != KP_OK ||
        kp_feature_gates_parse(&g, gates, &err) != KP_OK ||
        kp_cluster_set_feature_gates(cl, &g) != KP_OK ||
        kp_cluster_load_buffer(cl, "test.yaml", y, strlen(y), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* The resize accounting follows its gates, as calculateResource / the resource-allocation
 * scorer pass them to PodRequests: UseStatusResources = InPlacePodVerticalScaling (beta on in
 * 1.33-1.34, where it may be turned off; GA locked from 1.35),
 * InPlacePodLevelResourcesVerticalScalingEnabled = its gate (alpha off in 1.35, beta on from
 * 1.36; a 1.34 line does not have it). Rows of the resize table above. */
KT_TEST(resize_accounting_follows_gates_per_line) {
    kp_cluster *l35 = load_line(RESIZE, "1.35", ""), *l34 = load_line(RESIZE, "1.34", ""),
               *l34off = load_line(RESIZE, "1.34", "InPlacePodVerticalScaling=false"),
               *l35on = load_line(RESIZE, "1.35", "InPlacePodLevelResourcesVerticalScaling=true");
    KT_CHECK(l35 && l34 && l34off && l35on);
    if (l35 && l34 && l34off && l35on) {
        /* 1.35: container status values count, the pod-level status maps do not */
        KT_CHECK_INT(sched_request(l35, "infeasible", KP_RES_CPU), 2000);
        KT_CHECK_INT(sched_request(l35, "pod-status-aggregate", KP_RES_CPU), 1000);
        KT_CHECK_INT(sched_request(l35, "pod-status-fallback", KP_RES_CPU), 6000);
        KT_CHECK_INT(sched_request(l35, "pod-level-status", KP_RES_CPU), 2000);
        KT_CHECK_INT(sched_request(l35, "pod-level-infeasible", KP_RES_CPU), 10000);
        /* ... unless the alpha gate is turned on: the 1.37 figures */
        KT_CHECK_INT(sched_request(l35on, "pod-status-aggregate", KP_RES_CPU), 4000);
        KT_CHECK_INT(sched_request(l35on, "pod-level-status", KP_RES_CPU), 3500);
        KT_CHECK_INT(sched_request(l35on, "pod-level-infeasible", KP_RES_CPU), 4000);
        /* 1.34 with the defaults: as 1.35 */
        KT_CHECK_INT(sched_request(l34, "infeasible-in-progress", KP_RES_CPU), 4000);
        KT_CHECK_INT(sched_request(l34, "pod-level-status", KP_RES_CPU), 2000);
        /* InPlacePodVerticalScaling=false: the spec alone */
        KT_CHECK_INT(sched_request(l34off, "infeasible", KP_RES_CPU), 4000);
        KT_CHECK_INT(sched_request(l34off, "infeasible-in-progress", KP_RES_CPU), 6000);
        KT_CHECK_INT(sched_request(l34off, "three-way-max", KP_RES_MEM), 20000000);
        KT_CHECK_INT(sched_request(l34off, "pod-status-fallback", KP_RES_CPU), 1000);
    }
    kp_cluster_free(l35);
    kp_cluster_free(l34);
    kp_cluster_free(l34off);
    kp_cluster_free(l35on);
}

/* ComputePodQOS (pkg/apis/core/v1/helper/qos, v1.37 with PodLevelResourcesFixKubeletQOSClass on
 * by default, kubernetes PR #137150): pod-level resources decide alone once they name a request
 * or limit; empty ones ({}, {requests: {}}) leave the containers to decide. Rows after upstream's
 * qos_test.go pod-level cases. */
#define GUAR_CTR                                                                                   \
    "  containers:\n  - name: c\n    resources:\n      requests: {cpu: 100m, memory: 50Mi}\n     " \
    " "                                                                                            \
    "limits: {cpu: 100m, memory: 50Mi}\n"
static const char QOS
    [] = POD("plr-guaranteed") "spec:\n  resources:\n    requests: {cpu: \"1\", memory: 1Gi}\n    "
                               "limits: {cpu: \"1\", memory: 1Gi}\n  containers:\n  - name: c\n    "
                               "resources:\n      requests: {cpu: 100m}\n" POD("plr-cpu-request") "spec:\n  resources:\n    requests: {cpu: \"1\"}\n" GUAR_CTR
                                   POD("plr-empty") "spec:\n  resources: {}\n" GUAR_CTR POD(
                                       "plr-"
                                       "empty-"
                                       "reques"
                                       "ts") "spec:\n  resources:\n    requests: {}\n" GUAR_CTR
                                       POD("plr-hugepages-only") "spec:\n  resources:\n    "
                                                                 "requests: {hugepages-2Mi: 4Mi}\n "
                                                                 "   "
                                                                 "limits: {hugepages-2Mi: "
                                                                 "4Mi}\n" GUAR_CTR POD(
                                                                     "mixed-containers") "spec:\n  "
                                                                                         "container"
                                                                                         "s:\n  - "
                                                                                         "name: "
                                                                                         "be\n  - "
                                                                                         "name: "
                                                                                         "g\n    "
                                                                                         "resources"
                                                                                         ":\n      "
                                                                                         "requests:"
                                                                                         " {cpu: "
                                                                                         "100m, "
                                                                                         "memory: "
                                                                                         "50Mi}\n  "
                                                                                         "    "
                                                                                         "limits: "
                                                                                         "{cpu: "
                                                                                         "100m, "
                                                                                         "memory: "
                                                                                         "50Mi}"
                                                                                         "\n" POD(
                                                                                             "zero-"
                                                                                             "reque"
                                                                                             "sts") "spec:\n  containers:\n  - name: c\n    resources:\n      requests: "
                                                                                                    "{cpu: \"0\", memory: \"0\"}\n";

KT_TEST(qos_of_pod_level_resources) {
    kp_cluster *cl = load(QOS);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    static const struct {
        const char *pod;
        kp_qos want;
    } rows[] = {
        {"plr-guaranteed", KP_QOS_GUARANTEED}, /* the containers' lone cpu request is ignored */
        {"plr-cpu-request", KP_QOS_BURSTABLE}, /* Guaranteed containers, pod level decides */
        {"plr-empty",
         KP_QOS_GUARANTEED}, /* {}: the containers decide (BestEffort before #137150) */
        {"plr-empty-requests", KP_QOS_GUARANTEED},
        {"plr-hugepages-only", KP_QOS_BESTEFFORT}, /* only cpu and memory count */
        {"mixed-containers", KP_QOS_BURSTABLE},
        {"zero-requests", KP_QOS_BESTEFFORT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, rows[i].pod)];
        KT_CHECK_STR(kp_qos_name(kp__pod_compute_qos(p, true)), kp_qos_name(rows[i].want));
        KT_CHECK_STR(kp_qos_name((kp_qos)p->qos), kp_qos_name(rows[i].want));
    }
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(kubelet_request_skips_containers_with_pod_level_resources),
        KT_CASE(aggregate_limits_sidecar_aware), KT_CASE(scheduler_requests_follow_in_place_resize),
        KT_CASE(resize_accounting_follows_gates_per_line), KT_CASE(qos_of_pod_level_resources))
