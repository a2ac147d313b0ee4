/* Kubelet admission predicates and node-pressure admission: cases from upstream's
 * predicate_test.go (TestGeneralPredicates, TestRemoveMissingExtendedResources, OS checks),
 * eviction_manager_test.go (TestAdmitUnderNodeConditions) and resource helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "harness.h"
#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_state.h"

static kp_cluster *load(const char *y) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    kp_cluster_set_name_rules(cl, false); /* upstream's rows: "init_port", ... */
    if (kp_cluster_load_buffer(cl, "test.yaml", y, strlen(y), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* machine1: 10m cpu, 20 bytes memory, 32 pods (upstream's makeAllocatableResources(10, 20, 32)) */
#define NODE_HDR "apiVersion: v1\nkind: Node\nmetadata:\n  name: machine1\n"
#define NODE_STATUS                                                                 \
    "status:\n  allocatable:\n    cpu: 10m\n    memory: \"20\"\n    pods: \"32\"\n" \
    "  capacity:\n    cpu: 10m\n    memory: \"20\"\n    pods: \"32\"\n"
#define NODE NODE_HDR NODE_STATUS
#define POD(name) "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name "\n"

/* Admits default/<pod> on machine1 (or the first node) and returns the result object. */
static kp_admission *admit_opts(kp_cluster *cl, const char *pod, const kp_admit_options *o) {
    kp_admission *a = kp_admission_new();
    long pi = kp_cluster_find_pod(cl, pod);
    KT_CHECK(pi >= 0);
    if (pi < 0) pi = 0;
    kp_error err;
    KT_CHECK_INT(kp_admit(cl, 0, (kp_index)pi, o, a, &err), KP_OK);
    return a;
}
static kp_admission *admit(kp_cluster *cl, const char *pod) { return admit_opts(cl, pod, NULL); }

KT_TEST(no_resources_requested_always_fits) {
    kp_cluster *cl = load(NODE POD(
        "existing") "spec:\n  nodeName: machine1\n  containers:\n"
                    "  - name: c\n    resources:\n      requests:\n        cpu: 9m\n"
                    "        memory: \"19\"\n" POD("p") "spec:\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(kp_admission_admitted(a));
    KT_CHECK_INT(kp_admission_failure_count(a), 0);
    KT_CHECK_STR(kp_admission_reason(a), "");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(not_enough_cpu_and_memory) {
    kp_cluster *cl = load(NODE POD(
        "existing") "spec:\n  nodeName: machine1\n  containers:\n"
                    "  - name: c\n    resources:\n      requests:\n        cpu: 5m\n"
                    "        memory: \"19\"\n" POD("p") "spec:\n  containers:\n  - name: c\n"
                                                        "    resources:\n      requests:\n        "
                                                        "cpu: 8m\n        memory: \"10\"\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_INT(kp_admission_failure_count(a), 2);
    if (kp_admission_failure_count(a) == 2) {
        const kp_admit_reason *r0 = kp_admission_failure(a, 0), *r1 = kp_admission_failure(a, 1);
        KT_CHECK_STR(r0->reason, "OutOfcpu");
        KT_CHECK(r0->insufficient);
        KT_CHECK_INT(r0->requested, 8);
        KT_CHECK_INT(r0->used, 5);
        KT_CHECK_INT(r0->capacity, 10);
        KT_CHECK_STR(r1->reason, "OutOfmemory");
        KT_CHECK_STR(
            r1->message,
            "Node didn't have enough resource: memory, requested: 10, used: 19, capacity: 20");
    }
    KT_CHECK_STR(kp_admission_reason(a), "OutOfcpu");
    KT_CHECK_STR(kp_admission_message(a),
                 "Node didn't have enough resource: cpu, requested: 8, used: 5, capacity: 10");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(too_many_pods) {
    kp_cluster *cl = load(NODE_HDR "status:\n  allocatable:\n    cpu: \"1\"\n    pods: \"1\"\n" POD(
        "existing") "spec:\n  nodeName: machine1\n  containers:\n  - name: "
                    "c\n" POD("p") "spec:\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "OutOfpods");
    KT_CHECK_STR(kp_admission_message(a),
                 "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(terminal_pods_and_the_pod_itself_do_not_count) {
    kp_cluster *cl = load(NODE_HDR "status:\n  allocatable:\n    cpu: 10m\n    pods: \"2\"\n" POD(
        "done") "spec:\n  nodeName: machine1\n  containers:\n  - name: c\n"
                "    resources:\n      requests:\n        cpu: 10m\nstatus:\n  phase: "
                "Succeeded\n" POD(
                    "failed") "spec:\n  nodeName: machine1\n  containers:\n  - name: c\n"
                              "    resources:\n      requests:\n        cpu: 10m\nstatus:\n  "
                              "phase: Failed\n" POD(
                                  "p") "spec:\n  nodeName: machine1\n  containers:\n  - name: c\n"
                                       "    resources:\n      requests:\n        cpu: "
                                       "10m\nstatus:\n  phase: Running\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(host_name_mismatch) {
    kp_cluster *cl = load(NODE "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: machine2\n" POD(
        "p") "spec:\n  nodeName: machine2\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "NodeName");
    KT_CHECK_STR(kp_admission_message(a),
                 "Predicate NodeName failed: node(s) didn't match the requested node name");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(host_port_conflict) {
    kp_cluster *cl = load(NODE POD(
        "existing") "spec:\n  nodeName: machine1\n  containers:\n"
                    "  - name: c\n    ports:\n    - containerPort: 80\n      hostPort: 123\n" POD(
                        "p") "spec:\n  containers:\n  - name: c\n    ports:\n"
                             "    - containerPort: 80\n      hostPort: 123\n" POD(
                                 "udp") "spec:\n  containers:\n  - name: c\n    ports:\n"
                                        "    - containerPort: 80\n      hostPort: 123\n      "
                                        "protocol: UDP\n" POD(
                                            "ip") "spec:\n  containers:\n  - name: c\n    ports:\n"
                                                  "    - containerPort: 80\n      hostPort: 123\n  "
                                                  "    hostIP: 10.0.0.1\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "NodePorts");
    KT_CHECK_STR(
        kp_admission_message(a),
        "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports");
    kp_admission_free(a);
    a = admit(cl, "udp"); /* other protocol: no conflict */
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    a = admit(cl, "ip"); /* a specific address conflicts with 0.0.0.0 */
    KT_CHECK(!kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

/* The kubelet uses the scheduler's copy of the rule (core/host_ports.h): a sidecar init
 * container's host ports count on both sides, a plain init container's do not, and two different
 * specific addresses do not overlap (schedutil.GetHostPorts, HostPortInfo.CheckConflict). */
KT_TEST(host_port_sidecar_and_addresses) {
    kp_cluster *cl = load(NODE POD(
        "existing") "spec:\n  nodeName: machine1\n  initContainers:\n"
                    "  - name: side\n    restartPolicy: Always\n    ports:\n"
                    "    - containerPort: 80\n      hostPort: 123\n      hostIP: 10.0.0.1\n"
                    "  - name: init\n    ports:\n    - containerPort: 80\n      hostPort: 456\n"
                    "  containers:\n  - name: c\n" POD(
                        "side") "spec:\n  initContainers:\n  - name: s\n    restartPolicy: Always\n"
                                "    ports:\n    - containerPort: 80\n      hostPort: 123\n"
                                "  containers:\n  - name: c\n" POD(
                                    "other_ip") "spec:\n  containers:\n  - name: c\n    ports:\n"
                                                "    - containerPort: 80\n      hostPort: 123\n    "
                                                "  hostIP: 10.0.0.2\n" POD(
                                                    "init_port") "spec:\n  containers:\n  - name: "
                                                                 "c\n    ports:\n"
                                                                 "    - containerPort: 80\n      "
                                                                 "hostPort: 456\n" POD(
                                                                     "init_want") "spec:\n  "
                                                                                  "initContainers:"
                                                                                  "\n  - name: i\n "
                                                                                  "   ports:\n"
                                                                                  "    - "
                                                                                  "containerPort: "
                                                                                  "80\n      "
                                                                                  "hostPort: 123\n "
                                                                                  " containers:\n  "
                                                                                  "- name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "side"); /* 0.0.0.0 in a sidecar against 10.0.0.1 in a sidecar */
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "NodePorts");
    kp_admission_free(a);
    a = admit(cl, "other_ip"); /* 10.0.0.2 against 10.0.0.1: no overlap */
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    a = admit(cl, "init_port"); /* the existing pod's plain init container holds no port */
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    a = admit(cl, "init_want"); /* nor does the admitted pod's */
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

#define TAINTED_NODE(taints) NODE_HDR "spec:\n  taints:\n" taints NODE_STATUS

KT_TEST(taints_only_noexecute_matters) {
    kp_cluster *cl = load(
        TAINTED_NODE("  - key: foo\n    effect: NoSchedule\n  - key: bar\n    effect: NoExecute\n")
            POD("tolerant") "spec:\n  tolerations:\n  - key: foo\n  - key: bar\n  containers:\n  - "
                            "name: c\n" POD("plain") "spec:\n  containers:\n  - name: c\n" POD(
                                "static") "  annotations:\n    kubernetes.io/config.source: file\n"
                                          "spec:\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "tolerant");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    a = admit(cl, "plain");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "TaintToleration");
    KT_CHECK_STR(
        kp_admission_message(a),
        "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate");
    kp_admission_free(a);
    a = admit(cl, "static"); /* static pods ignore taints */
    KT_CHECK(kp_admission_admitted(a));
    KT_CHECK(kp_admission_critical(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(noschedule_and_prefer_taints_admit) {
    kp_cluster *cl = load(TAINTED_NODE(
        "  - key: foo\n    effect: NoSchedule\n  - key: baz\n    effect: PreferNoSchedule\n")
                              POD("plain") "spec:\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "plain");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(static_pod_node_affinity_mismatch) {
    kp_cluster *cl = load(NODE POD(
        "p") "  annotations:\n    kubernetes.io/config.source: file\nspec:\n"
             "  affinity:\n    nodeAffinity:\n      "
             "requiredDuringSchedulingIgnoredDuringExecution:\n"
             "        nodeSelectorTerms:\n        - matchExpressions:\n          - key: foo\n"
             "            operator: Exists\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "NodeAffinity");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

/* removeMissingExtendedResources: an extended resource the node does not advertise is dropped;
 * one advertised with 0 is kept (and then does not fit); hugepages are native, never dropped. */
KT_TEST(extended_resources) {
    kp_cluster *cl = load(
        NODE_HDR
        "status:\n  allocatable:\n    cpu: \"1\"\n    pods: \"10\"\n"
        "    example.com/zero: \"0\"\n    example.com/b: \"1\"\n    example.com/a: \"1\"\n" POD(
            "missing") "spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n"
                       "        foo.com/bar: \"1\"\n      limits:\n        foo.com/bar: "
                       "\"1\"\n" POD(
                           "zero") "spec:\n  containers:\n  - name: c\n    resources:\n      "
                                   "requests:\n"
                                   "        example.com/zero: \"1\"\n      limits:\n        "
                                   "example.com/zero: \"1\"\n" POD(
                                       "two") "spec:\n  containers:\n  - name: c\n    resources:\n "
                                              "     requests:\n"
                                              "        example.com/b: \"2\"\n        "
                                              "example.com/a: \"2\"\n      limits:\n"
                                              "        example.com/b: \"2\"\n        "
                                              "example.com/a: \"2\"\n" POD(
                                                  "huge") "spec:\n  containers:\n  - name: c\n    "
                                                          "resources:\n      requests:\n"
                                                          "        hugepages-2Mi: 2Mi\n        "
                                                          "memory: 1Mi\n      limits:\n"
                                                          "        hugepages-2Mi: 2Mi\n        "
                                                          "memory: 1Mi\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "missing");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    a = admit(cl, "zero");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "OutOfexample.com/zero");
    KT_CHECK_STR(
        kp_admission_message(a),
        "Node didn't have enough resource: example.com/zero, requested: 1, used: 0, capacity: 0");
    kp_admission_free(a);
    a = admit(cl, "two"); /* scalar resources reported in name order */
    KT_CHECK_INT(kp_admission_failure_count(a), 2);
    if (kp_admission_failure_count(a) == 2) {
        KT_CHECK_STR(kp_admission_failure(a, 0)->reason, "OutOfexample.com/a");
        KT_CHECK_STR(kp_admission_failure(a, 1)->reason, "OutOfexample.com/b");
    }
    kp_admission_free(a);
    a = admit(cl, "huge");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_INT(kp_admission_failure_count(a), 2); /* memory (0 allocatable) and hugepages */
    KT_CHECK_STR(kp_admission_reason(a), "OutOfmemory");
    if (kp_admission_failure_count(a) == 2)
        KT_CHECK_STR(kp_admission_failure(a, 1)->reason, "OutOfhugepages-2Mi");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(os_checks) {
    kp_cluster *cl = load(NODE_HDR "  labels:\n    kubernetes.io/os: linux\n" NODE_STATUS POD(
        "label") "  labels:\n    kubernetes.io/os: windows\nspec:\n  containers:\n  - name: "
                 "c\n" POD("field") "spec:\n  os:\n    name: windows\n  containers:\n  - name: "
                                    "c\n" POD("ok") "  labels:\n    kubernetes.io/os: "
                                                    "linux\nspec:\n  os:\n    name: linux\n"
                                                    "  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "label");
    KT_CHECK_STR(kp_admission_reason(a), "PodOSSelectorNodeLabelDoesNotMatch");
    KT_CHECK_STR(kp_admission_message(a),
                 "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label");
    kp_admission_free(a);
    a = admit(cl, "field");
    KT_CHECK_STR(kp_admission_reason(a), "PodOSNotSupported");
    KT_CHECK_STR(kp_admission_message(a),
                 "Failed to admit pod as the OS field doesn't match node OS");
    kp_admission_free(a);
    a = admit(cl, "ok");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

#define PRESSURE_PODS                                                                             \
    POD("be")                                                                                     \
    "spec:\n  containers:\n  - name: c\n" POD(                                                    \
        "bu") "spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: " \
              "1m\n" POD("gu") "spec:\n  containers:\n  - name: c\n    resources:\n      "        \
                               "requests:\n        cpu: 1m\n"                                     \
                               "        memory: \"1\"\n      limits:\n        cpu: 1m\n        "  \
                               "memory: \"1\"\n" POD(                                             \
                                   "betol") "spec:\n  tolerations:\n  - key: "                    \
                                            "node.kubernetes.io/memory-pressure\n"                \
                                            "    operator: Exists\n    effect: NoSchedule\n  "    \
                                            "containers:\n  - name: c\n" POD(                     \
                                                "crit") "spec:\n  priority: 2000000000\n  "       \
                                                        "containers:\n  - name: c\n"

static bool admitted_under(kp_cluster *cl, const char *pod, unsigned conds, char *msg, size_t cap) {
    kp_admit_options o;
    kp_admit_options_init(&o);
    o.override_conditions = true;
    o.conditions = conds;
    kp_admission *a = admit_opts(cl, pod, &o);
    bool ok = kp_admission_admitted(a);
    snprintf(msg, cap, "%s|%s", kp_admission_reason(a), kp_admission_message(a));
    kp_admission_free(a);
    return ok;
}

/* eviction_manager_test TestAdmitUnderNodeConditions */
KT_TEST(admit_under_node_conditions) {
    kp_cluster *cl = load(NODE PRESSURE_PODS);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    char m[512];
    const unsigned MEM = KP_NODE_COND_MEMORY_PRESSURE, DISK = KP_NODE_COND_DISK_PRESSURE,
                   PID = KP_NODE_COND_PID_PRESSURE;
    KT_CHECK(admitted_under(cl, "be", 0, m, sizeof m));
    KT_CHECK(!admitted_under(cl, "be", MEM, m, sizeof m));
    KT_CHECK_STR(m, "Evicted|The node had condition: [MemoryPressure]. ");
    KT_CHECK(admitted_under(cl, "bu", MEM, m, sizeof m));
    KT_CHECK(admitted_under(cl, "gu", MEM, m, sizeof m));
    KT_CHECK(admitted_under(cl, "betol", MEM, m, sizeof m));
    KT_CHECK(admitted_under(cl, "crit", MEM, m, sizeof m));
    KT_CHECK(!admitted_under(cl, "gu", DISK, m, sizeof m));
    KT_CHECK_STR(m, "Evicted|The node had condition: [DiskPressure]. ");
    KT_CHECK(!admitted_under(cl, "bu", MEM | DISK, m, sizeof m));
    KT_CHECK_STR(m, "Evicted|The node had condition: [MemoryPressure DiskPressure]. ");
    KT_CHECK(
        !admitted_under(cl, "betol", MEM | PID, m, sizeof m)); /* toleration only helps alone */
    KT_CHECK(!admitted_under(cl, "gu", PID, m, sizeof m));
    KT_CHECK_STR(m, "Evicted|The node had condition: [PIDPressure]. ");
    KT_CHECK(admitted_under(cl, "crit", MEM | DISK | PID, m, sizeof m));
    kp_cluster_free(cl);
}

KT_TEST(conditions_from_node_status) {
    kp_cluster *cl = load(NODE "  conditions:\n  - type: Ready\n    status: \"True\"\n"
                               "  - type: MemoryPressure\n    status: \"True\"\n"
                               "  - type: DiskPressure\n    status: \"False\"\n" PRESSURE_PODS);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "be");
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_message(a), "The node had condition: [MemoryPressure]. ");
    kp_admission_free(a);
    a = admit(cl, "bu");
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_admit_options o; /* override clears them */
    kp_admit_options_init(&o);
    o.override_conditions = true;
    a = admit_opts(cl, "be", &o);
    KT_CHECK(kp_admission_admitted(a));
    kp_admission_free(a);
    kp_cluster_free(cl);
}

/* GetResourceRequest: sidecar-aware init maximum, overhead only on a non-zero total, pods = 1. */
KT_TEST(kubelet_resource_request) {
    kp_cluster *cl = load(NODE POD(
        "init") "spec:\n  initContainers:\n  - name: i1\n    resources:\n      requests:\n"
                "        cpu: 500m\n  - name: side\n    restartPolicy: Always\n    resources:\n"
                "      requests:\n        cpu: 100m\n        memory: 10Mi\n  - name: i2\n"
                "    resources:\n      requests:\n        cpu: 450m\n  containers:\n  - name: c\n"
                "    resources:\n      requests:\n        cpu: 200m\n        memory: 20Mi\n" POD(
                    "ovh") "spec:\n  overhead:\n    cpu: 50m\n    memory: 5Mi\n  containers:\n"
                           "  - name: c\n    resources:\n      requests:\n        cpu: 100m\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *ip = &cl->pods[kp_cluster_find_pod(cl, "init")];
    const kp_pod *op = &cl->pods[kp_cluster_find_pod(cl, "ovh")];
    /* cpu: sum 200 + sidecar 100 = 300; init uses 500, 100 (sidecar), 450+100=550 -> 550 */
    KT_CHECK_INT(kp__pod_resource_request(cl, ip, KP_RES_CPU), 550);
    KT_CHECK_INT(kp__pod_resource_request(cl, ip, KP_RES_MEM), 30 * 1024 * 1024);
    KT_CHECK_INT(kp__pod_resource_request(cl, ip, KP_RES_PODS), 1);
    KT_CHECK_INT(kp__pod_resource_request(cl, op, KP_RES_CPU), 150);
    KT_CHECK_INT(kp__pod_resource_request(cl, op, KP_RES_MEM),
                 0); /* no request: overhead not added */
    /* without overhead or pod-level resources the kubelet's figure is the scheduler's request
     * vector (admit_preempt.c relies on it) */
    KT_CHECK_INT(kp__pod_resource_request(cl, ip, KP_RES_CPU), kp__resv_get(&ip->req, KP_RES_CPU));
    KT_CHECK_INT(kp__pod_resource_request(cl, ip, KP_RES_MEM), kp__resv_get(&ip->req, KP_RES_MEM));
    /* with overhead they differ where the container total is zero */
    KT_CHECK_INT(kp__resv_get(&op->req, KP_RES_MEM), 5 * 1024 * 1024);
    kp_cluster_free(cl);
}

/* clang-format off */
KT_TEST(preemptable_rule) {
    static const char y[] = NODE
        POD("low") "spec:\n  priority: 10\n  containers:\n  - name: c\n"
        POD("high") "spec:\n  priority: 20\n  containers:\n  - name: c\n"
        POD("cc") "spec:\n  priority: 2000000000\n  containers:\n  - name: c\n"
        POD("nc") "spec:\n  priority: 2000001000\n  containers:\n  - name: c\n"
        POD("static") "  annotations:\n    kubernetes.io/config.source: file\n"
                      "spec:\n  containers:\n  - name: c\n"
        POD("mirror") "  annotations:\n    kubernetes.io/config.mirror: abc\n"
                      "spec:\n  priority: 0\n  containers:\n  - name: c\n";
    /* clang-format on */
    kp_cluster *cl = load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
#define PP(n) (&cl->pods[kp_cluster_find_pod(cl, n)])
    KT_CHECK(!kp__admit_is_critical(PP("high")));
    KT_CHECK(kp__admit_is_critical(PP("cc")));
    KT_CHECK(kp__admit_is_critical(PP("static")));
    KT_CHECK(kp__admit_is_critical(PP("mirror")));
    KT_CHECK(kp__admit_preemptable(PP("cc"), PP("high")));
    KT_CHECK(kp__admit_preemptable(
        PP("high"), PP("low"))); /* rule 2 alone (not used: non-critical never preempts) */
    KT_CHECK(!kp__admit_preemptable(PP("low"), PP("high")));
    KT_CHECK(kp__admit_preemptable(PP("nc"), PP("cc")));
    KT_CHECK(!kp__admit_preemptable(PP("cc"), PP("nc")));
    KT_CHECK(!kp__admit_preemptable(PP("cc"), PP("cc")));
    KT_CHECK(
        kp__admit_preemptable(PP("cc"), PP("mirror"))); /* mirror is critical, priority 0 < 2e9 */
    KT_CHECK(!kp__admit_preemptable(PP("mirror"), PP("cc")));
#undef PP
    kp_cluster_free(cl);
}

KT_TEST(bad_arguments) {
    kp_cluster *cl = load(NODE POD("p") "spec:\n  containers:\n  - name: c\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    kp_error err;
    KT_CHECK_INT(kp_admit(cl, 5, 0, NULL, a, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "node index");
    KT_CHECK_INT(kp_admit(cl, 0, 99, NULL, a, &err), KP_EINVAL);
    KT_CHECK_INT(kp_admit(NULL, 0, 0, NULL, a, &err), KP_EINVAL);
    KT_CHECK(kp_admission_failure(a, 0) == NULL);
    KT_CHECK(kp_admission_victim(a, 0) == NULL);
    kp_admission_free(a);
    kp_admission_free(NULL);
    kp_cluster *raw = kp_cluster_new();
    a = kp_admission_new();
    KT_CHECK_INT(kp_admit(raw, 0, 0, NULL, a, &err), KP_EINVAL); /* not finalized */
    kp_admission_free(a);
    kp_cluster_free(raw);
    kp_cluster_free(cl);
}

/* The longest valid resource name (253-character prefix, '/', 63-character name) reaches the
 * reason and the message whole (the decision's text arrays were 64/96/320 bytes and cut it); a
 * longer one is rejected at load time with the API server's IsQualifiedName message. */
KT_TEST(longest_resource_name_is_not_cut) {
    char prefix[254], name[64], res[400];
    memset(prefix, 'a', 253);
    prefix[253] = 0;
    for (int i = 60; i < 253; i += 61) prefix[i] = '.'; /* DNS labels of at most 63 */
    memset(name, 'r', 63);
    name[63] = 0;
    snprintf(res, sizeof res, "%s/%s", prefix, name);
    char *y = kp_malloc(4096);
    KT_CHECK(y != NULL);
    if (!y) return;
    snprintf(y, 4096,
             NODE_HDR
             "status:\n  allocatable:\n    cpu: \"1\"\n    pods: \"10\"\n    %s: \"0\"\n" POD(
                 "p") "spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n"
                      "        %s: \"1\"\n      limits:\n        %s: \"1\"\n",
             res, res, res);
    kp_cluster *cl = load(y);
    KT_CHECK(cl != NULL);
    if (cl) {
        kp_admission *a = admit(cl, "p");
        KT_CHECK(!kp_admission_admitted(a));
        char want[512];
        snprintf(want, sizeof want, "OutOf%s", res);
        KT_CHECK_STR(kp_admission_reason(a), want);
        snprintf(want, sizeof want,
                 "Node didn't have enough resource: %s, requested: 1, used: 0, capacity: 0", res);
        KT_CHECK_STR(kp_admission_message(a), want);
        if (kp_admission_failure_count(a) == 1)
            KT_CHECK_STR(kp_admission_failure(a, 0)->resource, res);
        kp_admission_free(a);
        kp_cluster_free(cl);
    }
    /* one character more in the name part: the API server would reject the pod */
    snprintf(res, sizeof res, "%s/%sr", prefix, name);
    snprintf(y, 4096,
             NODE_HDR "status:\n  allocatable:\n    cpu: \"1\"\n" POD(
                 "p") "spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n"
                      "        %s: \"1\"\n",
             res);
    kp_cluster *bad = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(bad, "test.yaml", y, strlen(y), &err), KP_EINVAL);
    KT_CHECK(strstr(err.msg, "name part must be no more than 63 characters") != NULL);
    KT_CHECK(strstr(err.msg, "spec.containers[0].resources.requests") != NULL);
    kp_cluster_free(bad);
    kp_free(y);
}

/* Issue 17 item 2: the amount a critical pod still needs (GetInsufficientAmount: requested -
 * (capacity - used)) overflowed int64 and printed a wrapped negative value when the node's other
 * pods use far more than its capacity; it saturates now. */
KT_TEST(insufficient_amount_does_not_wrap) {
    kp_cluster *cl = load(
        NODE_HDR "status:\n  allocatable:\n    cpu: \"1\"\n    memory: \"0\"\n"
                 "    pods: \"10\"\n" POD(
                     "other") "spec:\n  nodeName: machine1\n  containers:\n  - name: c\n"
                              "    resources: {requests: {memory: 7Ei}}\n" POD(
                                  "p") "spec:\n  priority: 2000000000\n  containers:\n  - name: c\n"
                                       "    resources: {requests: {memory: 7Ei}}\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = admit(cl, "p");
    KT_CHECK(kp_admission_critical(a));
    KT_CHECK(kp_admission_requirement_count(a) >= 1);
    for (size_t i = 0; i < kp_admission_requirement_count(a); i++)
        KT_CHECK(kp_admission_requirement(a, i)->quantity > 0);
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(no_resources_requested_always_fits), KT_CASE(not_enough_cpu_and_memory),
        KT_CASE(too_many_pods), KT_CASE(terminal_pods_and_the_pod_itself_do_not_count),
        KT_CASE(host_name_mismatch), KT_CASE(host_port_conflict),
        KT_CASE(host_port_sidecar_and_addresses), KT_CASE(taints_only_noexecute_matters),
        KT_CASE(noschedule_and_prefer_taints_admit), KT_CASE(static_pod_node_affinity_mismatch),
        KT_CASE(extended_resources), KT_CASE(os_checks), KT_CASE(admit_under_node_conditions),
        KT_CASE(conditions_from_node_status), KT_CASE(kubelet_resource_request),
        KT_CASE(preemptable_rule), KT_CASE(bad_arguments),
        KT_CASE(longest_resource_name_is_not_cut), KT_CASE(insufficient_amount_does_not_wrap))
