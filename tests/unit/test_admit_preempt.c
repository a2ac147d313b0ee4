/* Critical-pod admission preemption (pkg/kubelet/preemption): upstream's preemption_test.go
 * scenarios (spec §18 P1-P15) driven through getPodsToPreempt, and end-to-end through kp_admit.
 * The pods are upstream's test pods; candidate lists keep the order upstream's tests use. */
#include <stdarg.h>
#include <stdlib.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/resources.h"
#include "harness.h"
#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_preempt.h"
#include "kubelet/admit_state.h"

/* ---- building clusters ---------------------------------------------------------------- */

static char yaml[1 << 16];
static size_t yaml_len;

static void y(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void y(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(yaml + yaml_len, sizeof yaml - yaml_len, fmt, ap);
    va_end(ap);
    if (w > 0) yaml_len += (size_t)w;
}

static void node_yaml(const char *name, const char *cpu, const char *mem, const char *pods) {
    y("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\nstatus:\n  allocatable:\n"
      "    cpu: \"%s\"\n    memory: \"%s\"\n    pods: \"%s\"\n  capacity:\n    cpu: \"%s\"\n"
      "    memory: \"%s\"\n    pods: \"%s\"\n",
      name, cpu, mem, pods, cpu, mem, pods);
}

/* Upstream's test pods by kind name; `node` "" leaves the pod unbound. */
static void test_pod(const char *kind, const char *name, const char *node) {
    const char *cpu = NULL, *mem = NULL, *ns = "default";
    bool limits = false;
    long prio = -1;
    if (!strcmp(kind, "tiny")) cpu = "1m", mem = "1Mi";
    else if (!strcmp(kind, "bestEffort"))
        ;
    else if (!strcmp(kind, "burstable")) cpu = "100m", mem = "100Mi";
    else if (!strcmp(kind, "highRequestBurstable")) cpu = "300m", mem = "300Mi";
    else if (!strcmp(kind, "guaranteed")) cpu = "100m", mem = "100Mi", limits = true;
    else if (!strcmp(kind, "highRequestGuaranteed")) cpu = "300m", mem = "300Mi", limits = true;
    else if (!strcmp(kind, "clusterCritical"))
        cpu = "100m", mem = "100Mi", ns = "kube-system", prio = 2000000000;
    else if (!strcmp(kind, "nodeCritical"))
        cpu = "100m", mem = "100Mi", ns = "kube-system", prio = 2000000100;
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n", name, ns);
    if (*node) y("  nodeName: %s\n", node);
    if (prio >= 0) y("  priority: %ld\n", prio);
    y("  containers:\n  - name: c\n    image: x\n");
    if (cpu) {
        y("    resources:\n      requests:\n        cpu: %s\n        memory: %s\n", cpu, mem);
        if (limits) y("      limits:\n        cpu: %s\n        memory: %s\n", cpu, mem);
    }
    y("status:\n  phase: Running\n");
}

static kp_cluster *load(void) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    kp_cluster_set_name_rules(cl, false); /* upstream's rows name pods "bestEffort", ... */
    if (kp_cluster_load_buffer(cl, "test.yaml", yaml, yaml_len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n%s\n", err.msg, yaml);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* Node n1 (ample allocatable) holding pods of the given kinds (named after their kind, with a
 * numeric suffix on repeats) plus an unbound preemptor of kind `preemptor` named "preemptor". */
static kp_cluster *scenario(const char *preemptor, const char *const *kinds, size_t n) {
    yaml_len = 0;
    node_yaml("n1", "64", "256Gi", "110");
    for (size_t i = 0; i < n; i++) test_pod(kinds[i], kinds[i], "n1");
    test_pod(preemptor, "preemptor", "");
    return load();
}

typedef struct {
    int64_t cpu, mem, pods;
    const char *extra; /* a further resource name, NULL for none */
    int64_t extra_q;
} reqspec;

static kp__admit_reqlist reqs_of(kp_cluster *cl, reqspec r) {
    kp__admit_reqlist l;
    l.n = 0;
    if (r.cpu) l.r[l.n] = (kp__admit_req){KP_RES_CPU, (uint8_t)l.n, r.cpu}, l.n++;
    if (r.mem) l.r[l.n] = (kp__admit_req){KP_RES_MEM, (uint8_t)l.n, r.mem}, l.n++;
    if (r.pods) l.r[l.n] = (kp__admit_req){KP_RES_PODS, (uint8_t)l.n, r.pods}, l.n++;
    if (r.extra) {
        int ri = kp__res_index(cl, r.extra, strlen(r.extra));
        l.r[l.n] = (kp__admit_req){(uint8_t)ri, (uint8_t)l.n, r.extra_q}, l.n++;
    }
    return l;
}

#define MI (1024LL * 1024LL)

/* Runs getPodsToPreempt for the scenario and renders the victims as "a,b" (or "error: ..."). */
static void run(const char *preemptor, const char *const *kinds, size_t n, reqspec r, char *out,
                size_t cap) {
    kp_cluster *cl = scenario(preemptor, kinds, n);
    out[0] = '\0';
    if (!cl) {
        snprintf(out, cap, "load failed");
        return;
    }
    kp_admission *a = kp_admission_new();
    long pre = kp_cluster_find_pod(cl, "kube-system/preemptor");
    if (pre < 0) pre = kp_cluster_find_pod(cl, "default/preemptor");
    long node = kp_cluster_find_node(cl, "n1");
    kp__admit_reqlist l = reqs_of(cl, r);
    char err[768];
    kp_status st = KP_OK;
    if (pre < 0 || node < 0) {
        snprintf(out, cap, "lookup failed");
    } else if (!kp__admit_pods_to_preempt(cl, (uint32_t)node, (uint32_t)pre, &l, a, err, sizeof err,
                                          &st)) {
        snprintf(out, cap, "error: %s", err);
    } else {
        size_t len = 0;
        for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
            const kp_pod *p = &cl->pods[kp_admission_victim(a, i)->pod];
            int w = snprintf(out + len, cap - len, "%s%s", i ? "," : "", kp__s(cl, p->name));
            if (w > 0) len += (size_t)w;
        }
    }
    kp_admission_free(a);
    kp_cluster_free(cl);
}

#define KINDS(...)                        \
    ((const char *const[]){__VA_ARGS__}), \
        (sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define NOKINDS ((const char *const[]){""}), 0

/* ---- upstream getPodsToPreempt table -------------------------------------------------- */

KT_TEST(p1_no_requirements_no_pods) {
    char out[1024];
    run("clusterCritical", NOKINDS, (reqspec){0, 0, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "");
}

KT_TEST(p2_pods_requirement_without_pods_fails) {
    char out[1024];
    run("clusterCritical", NOKINDS, (reqspec){0, 0, 1, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out,
                 "error: no set of running pods found to reclaim resources: [(res: pods, q: 1), ]");
}

KT_TEST(p3_single_burstable_exact) {
    char out[1024];
    run("clusterCritical", KINDS("burstable"), (reqspec){100, 100 * MI, 1, NULL, 0}, out,
        sizeof out);
    KT_CHECK_STR(out, "burstable");
}

KT_TEST(p4_insufficient_totals) {
    char out[1024];
    run("clusterCritical", KINDS("burstable"), (reqspec){200, 200 * MI, 2, NULL, 0}, out,
        sizeof out);
    KT_CHECK_STR(out, "error: no set of running pods found to reclaim resources: "
                      "[(res: cpu, q: 100), (res: memory, q: 104857600), (res: pods, q: 1), ]");
}

KT_TEST(p5_besteffort_before_burstable) {
    char out[1024];
    run("clusterCritical", KINDS("burstable", "bestEffort"), (reqspec){0, 0, 1, NULL, 0}, out,
        sizeof out);
    KT_CHECK_STR(out, "bestEffort");
}

KT_TEST(p6_burstable_before_guaranteed) {
    char out[1024];
    run("clusterCritical", KINDS("burstable", "guaranteed"), (reqspec){0, 0, 1, NULL, 0}, out,
        sizeof out);
    KT_CHECK_STR(out, "burstable");
}

KT_TEST(p7_smallest_sufficient_burstable) {
    char out[1024];
    run("clusterCritical", KINDS("bestEffort", "highRequestBurstable", "burstable"),
        (reqspec){100, 100 * MI, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "burstable");
}

KT_TEST(p8_distance_prefers_the_pod_that_covers) {
    char out[1024];
    run("clusterCritical", KINDS("bestEffort", "burstable", "highRequestBurstable"),
        (reqspec){150, 150 * MI, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "highRequestBurstable");
}

KT_TEST(p9_two_burstables_by_distance) {
    char out[1024];
    run("clusterCritical",
        KINDS("bestEffort", "burstable", "highRequestBurstable", "guaranteed",
              "highRequestGuaranteed"),
        (reqspec){350, 350 * MI, 0, NULL, 0}, out, sizeof out);
    /* round 1 picks HB (distance 0.041 vs 1.02), round 2 the remaining (50, 50) picks B */
    KT_CHECK_STR(out, "highRequestBurstable,burstable");
}

KT_TEST(p10_guaranteed_needed_and_no_extra_burstable) {
    char out[1024];
    run("clusterCritical",
        KINDS("bestEffort", "burstable", "highRequestBurstable", "guaranteed",
              "highRequestGuaranteed"),
        (reqspec){0, 550 * MI, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "highRequestBurstable,highRequestGuaranteed");
}

KT_TEST(p11_node_critical_preempts_cluster_critical) {
    char out[1024];
    run("nodeCritical", KINDS("clusterCritical"), (reqspec){100, 0, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "clusterCritical");
}

KT_TEST(p12_cluster_critical_cannot_preempt_node_critical) {
    char out[1024];
    run("clusterCritical", KINDS("nodeCritical"), (reqspec){100, 0, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(
        out, "error: no set of running pods found to reclaim resources: [(res: cpu, q: 100), ]");
}

KT_TEST(p15_evict_to_free_memory) {
    char out[1024];
    run("clusterCritical",
        KINDS("clusterCritical", "bestEffort", "burstable", "highRequestBurstable", "guaranteed",
              "highRequestGuaranteed"),
        (reqspec){0, 550 * MI, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "highRequestBurstable,highRequestGuaranteed");
}

KT_TEST(p15_equal_priority_critical_not_preemptable) {
    char out[1024];
    run("clusterCritical", KINDS("clusterCritical"), (reqspec){0, 0, 1, NULL, 0}, out, sizeof out);
    KT_CHECK_CONTAINS(out, "error: no set of running pods found");
}

KT_TEST(p15_besteffort_frees_no_memory) {
    char out[1024];
    run("clusterCritical", KINDS("bestEffort"), (reqspec){0, 1 * MI, 0, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(
        out,
        "error: no set of running pods found to reclaim resources: [(res: memory, q: 1048576), ]");
}

/* Fully tied candidates: smallerResourceRequest is true on equality, so the LAST tied pod in the
 * current order wins; after the swap-remove the order changes for the next round. */
KT_TEST(ties_pick_last_then_swap_remove) {
    char out[1024];
    yaml_len = 0;
    node_yaml("n1", "64", "256Gi", "110");
    test_pod("burstable", "a", "n1");
    test_pod("burstable", "b", "n1");
    test_pod("burstable", "c", "n1");
    test_pod("burstable", "d", "n1");
    test_pod("clusterCritical", "preemptor", "");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    kp__admit_reqlist l = reqs_of(cl, (reqspec){0, 0, 2, NULL, 0});
    char err[256];
    kp_status st;
    bool ok = kp__admit_pods_to_preempt(cl, (uint32_t)kp_cluster_find_node(cl, "n1"),
                                        (uint32_t)kp_cluster_find_pod(cl, "kube-system/preemptor"),
                                        &l, a, err, sizeof err, &st);
    KT_CHECK(ok);
    size_t len = 0;
    for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
        int w = snprintf(out + len, sizeof out - len, "%s%s", i ? "," : "",
                         kp__s(cl, cl->pods[kp_admission_victim(a, i)->pod].name));
        if (w > 0) len += (size_t)w;
    }
    /* [a b c d]: pick d (last tie) -> [a b c]; pick c. */
    KT_CHECK_STR(out, "d,c");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

/* The pick is removed by swapping the last candidate into its slot, which reorders the rest:
 * [small b1 b2 b3]: small wins round 1 (smaller request), leaving [b3 b1 b2]; the last tie of
 * round 2 is b2 (an order-preserving removal would leave [b1 b2 b3] and pick b3). */
KT_TEST(swap_remove_reorders_candidates) {
    char out[1024];
    yaml_len = 0;
    node_yaml("n1", "64", "256Gi", "110");
    test_pod("tiny", "small", "n1");
    test_pod("burstable", "b1", "n1");
    test_pod("burstable", "b2", "n1");
    test_pod("burstable", "b3", "n1");
    test_pod("clusterCritical", "preemptor", "");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    kp__admit_reqlist l = reqs_of(cl, (reqspec){0, 0, 2, NULL, 0});
    char err[256];
    kp_status st;
    bool ok = kp__admit_pods_to_preempt(cl, (uint32_t)kp_cluster_find_node(cl, "n1"),
                                        (uint32_t)kp_cluster_find_pod(cl, "kube-system/preemptor"),
                                        &l, a, err, sizeof err, &st);
    KT_CHECK(ok);
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
        int w = snprintf(out + len, sizeof out - len, "%s%s", i ? "," : "",
                         kp__s(cl, cl->pods[kp_admission_victim(a, i)->pod].name));
        if (w > 0) len += (size_t)w;
    }
    KT_CHECK_STR(out, "small,b2");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

/* Equal distance, different sizes: the smaller memory request wins, cpu breaks memory ties. */
KT_TEST(ties_prefer_smaller_memory_then_cpu) {
    char out[1024];
    run("clusterCritical", KINDS("highRequestBurstable", "tiny", "burstable"),
        (reqspec){0, 0, 1, NULL, 0}, out, sizeof out);
    KT_CHECK_STR(out, "tiny");
}

KT_TEST(requirement_string_format) {
    yaml_len = 0;
    node_yaml("n1", "1", "1Gi", "10");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp__admit_reqlist l = reqs_of(cl, (reqspec){100, 100 * MI, 1, "example.com/gpu", 2});
    char s[256];
    kp__admit_reqs_string(cl, &l, s, sizeof s);
    KT_CHECK_STR(s, "[(res: cpu, q: 100), (res: memory, q: 104857600), (res: pods, q: 1), "
                    "(res: example.com/gpu, q: 2), ]");
    l.n = 0;
    kp__admit_reqs_string(cl, &l, s, sizeof s);
    KT_CHECK_STR(s, "[]");
    kp_cluster_free(cl);
}

/* ---- end to end through kp_admit ------------------------------------------------------ */

/* Node with 1 cpu / 1Gi holding pods; a critical pod asking 500m/400Mi must preempt. */
KT_TEST(admit_critical_preempts_and_reports_victims) {
    yaml_len = 0;
    node_yaml("n1", "1", "1Gi", "110");
    test_pod("highRequestGuaranteed", "g", "n1"); /* 300m 300Mi */
    test_pod("highRequestBurstable", "hb", "n1"); /* 300m 300Mi */
    test_pod("burstable", "b", "n1"); /* 100m 100Mi */
    test_pod("bestEffort", "be", "n1");
    test_pod("tiny", "t", "n1"); /* 1m 1Mi */
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: crit\n  namespace: kube-system\nspec:\n"
      "  priorityClassName: system-node-critical\n  containers:\n  - name: c\n    resources:\n"
      "      requests:\n        cpu: 500m\n        memory: 400Mi\n");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    kp_error err;
    long pod = kp_cluster_find_pod(cl, "kube-system/crit");
    KT_CHECK(pod >= 0);
    KT_CHECK_INT(kp_admit(cl, kp_cluster_find_node(cl, "n1"), (size_t)pod, NULL, a, &err), KP_OK);
    KT_CHECK(kp_admission_critical(a));
    KT_CHECK(kp_admission_admitted(a));
    /* used: 701m / 701Mi of 1000m / 1024Mi -> short cpu 201m, memory 77Mi */
    KT_CHECK_INT(kp_admission_failure_count(a), 2);
    KT_CHECK_STR(kp_admission_failure(a, 0)->reason, "OutOfcpu");
    KT_CHECK_STR(
        kp_admission_failure(a, 0)->message,
        "Node didn't have enough resource: cpu, requested: 500, used: 701, capacity: 1000");
    KT_CHECK_STR(kp_admission_failure(a, 1)->reason, "OutOfmemory");
    KT_CHECK_INT(kp_admission_requirement_count(a), 2);
    KT_CHECK_INT(kp_admission_requirement(a, 0)->quantity, 201);
    KT_CHECK_INT(kp_admission_requirement(a, 1)->quantity, 77 * MI);
    /* guaranteed need after every BE + Burstable pod (401m, 401Mi): none. Burstable pass over
     * [hb, b, t]: hb covers both (distance 0), b leaves (101/201)^2, t nearly 2 -> hb. */
    KT_CHECK_INT(kp_admission_victim_count(a), 1);
    if (kp_admission_victim_count(a) == 1) {
        const kp_admit_victim *v = kp_admission_victim(a, 0);
        KT_CHECK_STR(kp__s(cl, cl->pods[v->pod].name), "hb");
        KT_CHECK_INT(v->qos, KP_QOS_BURSTABLE);
        KT_CHECK_INT(v->priority, 0);
    }
    KT_CHECK_STR(kp_admission_reason(a), "");
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(admit_critical_not_enough_gives_upstream_error) {
    yaml_len = 0;
    node_yaml("n1", "1", "1Gi", "110");
    test_pod("burstable", "b", "n1");
    test_pod("nodeCritical", "nc", "n1");
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: crit\n  namespace: kube-system\nspec:\n"
      "  priority: 2000000000\n  containers:\n  - name: c\n    resources:\n      requests:\n"
      "        cpu: \"1\"\n");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    KT_CHECK_INT(kp_admit(cl, kp_cluster_find_node(cl, "n1"),
                          kp_cluster_find_pod(cl, "kube-system/crit"), NULL, a, NULL),
                 KP_OK);
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "UnexpectedAdmissionError");
    KT_CHECK_STR(kp_admission_message(a),
                 "Unexpected error while attempting to recover from admission failure: preemption: "
                 "error finding a set of pods to preempt: no set of running pods found to reclaim "
                 "resources: [(res: cpu, q: 100), ]");
    KT_CHECK_INT(kp_admission_victim_count(a), 0);
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(admit_non_critical_preempts_nothing) {
    yaml_len = 0;
    node_yaml("n1", "1", "1Gi", "110");
    test_pod("highRequestBurstable", "hb", "n1");
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  priority: 1000000000\n"
      "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: 800m\n");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    KT_CHECK_INT(kp_admit(cl, 0, kp_cluster_find_pod(cl, "default/web"), NULL, a, NULL), KP_OK);
    KT_CHECK(!kp_admission_critical(a));
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(a), "OutOfcpu");
    KT_CHECK_STR(
        kp_admission_message(a),
        "Node didn't have enough resource: cpu, requested: 800, used: 300, capacity: 1000");
    KT_CHECK_INT(kp_admission_victim_count(a), 0);
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_TEST(admit_critical_with_non_resource_reason_is_rejected) {
    yaml_len = 0;
    node_yaml("n1", "1", "1Gi", "110");
    test_pod("highRequestBurstable", "hb", "n1");
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: crit\n  namespace: kube-system\nspec:\n"
      "  priority: 2000001000\n  nodeSelector:\n    disk: ssd\n  containers:\n  - name: c\n"
      "    resources:\n      requests:\n        cpu: 800m\n");
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    KT_CHECK_INT(kp_admit(cl, 0, kp_cluster_find_pod(cl, "kube-system/crit"), NULL, a, NULL),
                 KP_OK);
    KT_CHECK(!kp_admission_admitted(a));
    KT_CHECK_INT(kp_admission_failure_count(a), 2);
    KT_CHECK_STR(kp_admission_failure(a, 0)->reason, "OutOfcpu");
    /* only non-resource reasons are returned; the first is reported */
    KT_CHECK_STR(kp_admission_reason(a), "NodeAffinity");
    KT_CHECK_STR(
        kp_admission_message(a),
        "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
    KT_CHECK_INT(kp_admission_victim_count(a), 0);
    kp_admission_free(a);
    kp_cluster_free(cl);
}


/* Beyond the old 768-byte requirement list and 1024-byte message: a critical pod short of sixteen
 * extended resources with long names; every requirement is named, the list is closed. */
KT_TEST(long_requirement_lists_are_not_cut) {
    yaml_len = 0;
    y("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: "
      "\"4\"\n"
      "    memory: 8Gi\n    pods: \"110\"\n");
    for (int i = 0; i < 16; i++)
        y("    example.com/a-rather-long-extended-resource-name-%02d: \"1\"\n", i);
    y("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: crit\n  namespace: kube-system\nspec:\n"
      "  priority: 2000000000\n  containers:\n  - name: c\n    resources:\n      requests:\n");
    for (int i = 0; i < 16; i++)
        y("        example.com/a-rather-long-extended-resource-name-%02d: \"2\"\n", i);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_admission *a = kp_admission_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_admit(cl, 0, kp_cluster_find_pod(cl, "kube-system/crit"), NULL, a, &err),
                 KP_OK);
    KT_CHECK(!kp_admission_admitted(a));
    const char *msg = kp_admission_message(a);
    KT_CHECK(strlen(msg) > 1024);
    KT_CHECK(strstr(msg, "(res: example.com/a-rather-long-extended-resource-name-15, q: 1), ]") !=
             NULL);
    kp_admission_free(a);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(long_requirement_lists_are_not_cut), KT_CASE(p1_no_requirements_no_pods),
        KT_CASE(p2_pods_requirement_without_pods_fails), KT_CASE(p3_single_burstable_exact),
        KT_CASE(p4_insufficient_totals), KT_CASE(p5_besteffort_before_burstable),
        KT_CASE(p6_burstable_before_guaranteed), KT_CASE(p7_smallest_sufficient_burstable),
        KT_CASE(p8_distance_prefers_the_pod_that_covers), KT_CASE(p9_two_burstables_by_distance),
        KT_CASE(p10_guaranteed_needed_and_no_extra_burstable),
        KT_CASE(p11_node_critical_preempts_cluster_critical),
        KT_CASE(p12_cluster_critical_cannot_preempt_node_critical),
        KT_CASE(p15_evict_to_free_memory), KT_CASE(p15_equal_priority_critical_not_preemptable),
        KT_CASE(p15_besteffort_frees_no_memory), KT_CASE(ties_pick_last_then_swap_remove),
        KT_CASE(swap_remove_reorders_candidates), KT_CASE(ties_prefer_smaller_memory_then_cpu),
        KT_CASE(requirement_string_format), KT_CASE(admit_critical_preempts_and_reports_victims),
        KT_CASE(admit_critical_not_enough_gives_upstream_error),
        KT_CASE(admit_non_critical_preempts_nothing),
        KT_CASE(admit_critical_with_non_resource_reason_is_rejected))
