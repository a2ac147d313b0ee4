/* The eviction manager end to end through the public API (eviction_manager_test.go scenarios
 * E2-E5, E9, E12-E15 of the spec, byEvictionPriority R10, thresholdsUpdatedStats R13, transition
 * period R14) plus Summary decoding errors and the pod-stats join. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kubelet/evict_thresholds.h"

#define MI (INT64_C(1024) * 1024)
#define GI (INT64_C(1024) * MI)

static char yb[65536];
static size_t yl;
static void y(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void y(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(yb + yl, sizeof yb - yl, fmt, ap);
    va_end(ap);
    if (n > 0) yl += (size_t)n;
}

static kp_cluster *load(void) {
    static const char node[] = "---\nkind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
                               "status: {allocatable: {memory: 8Gi, cpu: '4', pods: '110'}}\n";
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_load_buffer(cl, "node.yaml", node, strlen(node), &err) != KP_OK ||
        kp_cluster_load_buffer(cl, "pods.yaml", yb, yl, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "load: %s\n", err.msg);
        kp_cluster_free(cl);
        cl = NULL;
    }
    yl = 0;
    return cl;
}

/* Pod with one container; res is the YAML of its resources block or "" */
static void pod(const char *name, int prio, const char *res, const char *extra) {
    y("---\nkind: Pod\napiVersion: v1\nmetadata: {name: %s, namespace: default, uid: uid-%s}\n",
      name, name);
    y("spec:\n  nodeName: n1\n  priority: %d\n  containers:\n  - name: %s\n%s%s", prio, name, res,
      extra);
}

static kp_evict_config *cfg(const char *hard, const char *soft, const char *grace, const char *mr) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error err;
    kp_error_clear(&err);
    kp_evict_config_set_flag(c, "eviction-hard", hard, &err);
    kp_evict_config_set_flag(c, "enforce-node-allocatable", "", &err);
    kp_evict_config_set_flag(c, "eviction-max-pod-grace-period", "5", &err);
    if (soft) kp_evict_config_set_flag(c, "eviction-soft", soft, &err);
    if (grace) kp_evict_config_set_flag(c, "eviction-soft-grace-period", grace, &err);
    if (mr) kp_evict_config_set_flag(c, "eviction-minimum-reclaim", mr, &err);
    if (kp_evict_config_finish(c, &err) != KP_OK) fprintf(stderr, "cfg: %s\n", err.msg);
    return c;
}

static kp_evict_summary *summary(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static kp_evict_summary *summary(const char *fmt, ...) {
    char *buf = calloc(1, 65536 + 64);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, 65536, fmt, ap);
    va_end(ap);
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (kp_evict_summary_load_buffer("s.json", buf, (size_t)n, &s, &err) != KP_OK)
        fprintf(stderr, "summary: %s\n", err.msg);
    free(buf);
    return s;
}

static const char *evicted_name(const kp_cluster *cl, const kp_evict_result *r, uint32_t i) {
    static char ref[256];
    long k = (long)r->evicted[i].pod;
    snprintf(ref, sizeof ref, "%ld", k);
    (void)cl;
    return ref;
}

static long pod_index(const kp_cluster *cl, const char *name) {
    char ref[128];
    snprintf(ref, sizeof ref, "default/%s", name);
    return kp_cluster_find_pod(cl, ref);
}

static void check_evicted(const kp_cluster *cl, const kp_evict_result *r, const char *name,
                          int64_t grace) {
    KT_CHECK_INT(r->n_evicted, 1);
    if (r->n_evicted < 1) return;
    KT_CHECK_INT((long)r->evicted[0].pod, pod_index(cl, name));
    KT_CHECK_INT(r->evicted[0].grace_seconds, grace);
    (void)evicted_name;
}

#define MEMPOD(name, ws)                                                               \
    "{\"podRef\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name \
    "\"},\"memory\":{\"workingSetBytes\":%lld}}"

/* E2: message text, no container sentence without container memory stats */
KT_TEST(memory_pressure_verify_pod_status) {
    pod("below-requests", 0, "    resources: {requests: {memory: 1Gi}, limits: {memory: 1Gi}}\n",
        "");
    pod("above-requests", 0, "    resources: {requests: {memory: 100Mi}, limits: {memory: 1Gi}}\n",
        "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<2Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, kp_cluster_find_node(cl, "n1"), c, &m, &err);
    kp_evict_summary *s =
        summary("{\"node\":{\"memory\":{\"availableBytes\":%lld,\"workingSetBytes\":%lld}},"
                "\"pods\":[" MEMPOD("below-requests", 0) "," MEMPOD("above-requests", 0) "]}",
                (long long)(1500 * MI), (long long)(1500 * MI), (long long)(900 * MI),
                (long long)(700 * MI));
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    check_evicted(cl, &r, "above-requests", 1);
    if (r.n_evicted) {
        KT_CHECK_STR(
            r.evicted[0].message,
            "The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. ");
        KT_CHECK_INT(r.evicted[0].n_annotations, 3);
        KT_CHECK_STR(r.evicted[0].ann_keys[2], "starved_resource");
        KT_CHECK_STR(r.evicted[0].ann_values[2], "memory");
    }
    KT_CHECK_INT(r.conditions, KP_NODE_COND_MEMORY_PRESSURE);
    KT_CHECK_INT(kp_evict_manager_active_count(m), 1);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* E3: pid pressure, DecimalSI message */
KT_TEST(pid_pressure_verify_pod_status) {
    pod("pod1", -1, "", "");
    pod("pod2", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("pid.available<1200", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s =
        summary("{\"node\":{\"rlimit\":{\"maxpid\":1500,\"curproc\":1000}},\"pods\":["
                "{\"podRef\":{\"name\":\"pod1\",\"namespace\":\"default\",\"uid\":\"uid-pod1\"},"
                "\"process_stats\":{\"process_count\":2}},"
                "{\"podRef\":{\"name\":\"pod2\",\"namespace\":\"default\",\"uid\":\"uid-pod2\"},"
                "\"process_stats\":{\"process_count\":2}}]}");
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    check_evicted(cl, &r, "pod1", 1);
    if (r.n_evicted)
        KT_CHECK_STR(
            r.evicted[0].message,
            "The node was low on resource: pids. Threshold quantity: 1200, available: 500. ");
    KT_CHECK_INT(r.conditions, KP_NODE_COND_PID_PRESSURE);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

#define DISKPOD(name, root)                                                            \
    "{\"podRef\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name \
    "\"},\"containers\":[{\"name\":\"" name                                            \
    "\",\"rootfs\":{\"usedBytes\":%lld},\"logs\":{\"usedBytes\":0}}]}"

/* E4 (single fs, nodefs) and E5 (dedicated imagefs): container sentence for ephemeral-storage */
KT_TEST(disk_pressure_verify_pod_status) {
    for (int dedicated = 0; dedicated < 2; dedicated++) {
        pod("below-requests", 0,
            "    resources: {requests: {ephemeral-storage: 1Gi}, limits: {ephemeral-storage: "
            "1Gi}}\n",
            "");
        if (dedicated)
            pod("above-requests", 0,
                "    resources: {requests: {ephemeral-storage: 50Gi}, limits: {ephemeral-storage: "
                "50Gi}}\n",
                "");
        else
            pod("above-requests", 0,
                "    resources: {requests: {ephemeral-storage: 100Mi}, limits: {ephemeral-storage: "
                "1Gi}}\n",
                "");
        kp_cluster *cl = load();
        if (!cl) {
            KT_CHECK(0);
            return;
        }
        kp_evict_config *c =
            cfg(dedicated ? "imagefs.available<50Gi" : "nodefs.available<2Gi", NULL, NULL, NULL);
        kp_evict_config_set_fs_layout(c, dedicated ? KP_EVFS_DEDICATED : KP_EVFS_SHARED);
        kp_evict_config_set_flag(c, "local-storage-capacity-isolation", "false", NULL);
        kp_error err;
        kp_evict_config_finish(c, &err);
        kp_evict_manager *m = NULL;
        kp_evict_manager_new(cl, 0, c, &m, &err);
        long long avail = dedicated ? 10 * GI : 1536 * MI;
        kp_evict_summary *s =
            summary("{\"node\":{\"fs\":{\"availableBytes\":%lld,\"capacityBytes\":%lld},"
                    "\"runtime\":{\"imageFs\":"
                    "{\"availableBytes\":%lld,\"capacityBytes\":%lld}}},\"pods\":[" DISKPOD(
                        "below-requests", 0) "," DISKPOD("above-requests", 0) "]}",
                    avail, 2 * avail, avail, 2 * avail, (long long)(900 * MI),
                    (long long)(dedicated ? 80 * GI : 700 * MI));
        kp_evict_result r;
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        check_evicted(cl, &r, "above-requests", 1);
        if (r.n_evicted)
            KT_CHECK_STR(r.evicted[0].message,
                         dedicated ? "The node was low on resource: ephemeral-storage. Threshold "
                                     "quantity: 50Gi, available: 10Gi. "
                                     "Container above-requests was using 80Gi, request is 50Gi, "
                                     "has larger consumption of ephemeral-storage. "
                                   : "The node was low on resource: ephemeral-storage. Threshold "
                                     "quantity: 2Gi, available: 1536Mi. "
                                     "Container above-requests was using 700Mi, request is 100Mi, "
                                     "has larger consumption of ephemeral-storage. ");
        KT_CHECK_INT(r.layout, dedicated ? KP_EVFS_DEDICATED : KP_EVFS_SHARED);
        kp_evict_summary_free(s);
        kp_evict_manager_free(m);
        kp_evict_config_free(c);
        kp_cluster_free(cl);
    }
}

static kp_evict_summary *mem_summary(long long t_sec, long long avail, const char *pods) {
    return summary("{\"node\":{\"memory\":{\"time\":\"2025-01-01T%02lld:%02lld:%02lldZ\","
                   "\"availableBytes\":%lld,"
                   "\"workingSetBytes\":%lld}},\"pods\":[%s]}",
                   t_sec / 3600, t_sec / 60 % 60, t_sec % 60, avail, avail, pods);
}

/* E9: min-reclaim hysteresis keeps the threshold active until available >= 1Gi + 500Mi */
KT_TEST(min_reclaim) {
    pod("a", -1, "", "");
    pod("b", -1, "", "");
    pod("c", -1, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<1Gi", NULL, NULL, "memory.available=500Mi");
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    const long long av[5] = {2 * GI, 500 * MI, (long long)(1.2 * GI), 2 * GI, 2 * GI};
    const long long ts[5] = {0, 60, 120, 180, 480};
    const int evict[5] = {0, 1, 1, 0, 0};
    const unsigned cond[5] = {0, KP_NODE_COND_MEMORY_PRESSURE, KP_NODE_COND_MEMORY_PRESSURE,
                              KP_NODE_COND_MEMORY_PRESSURE, 0};
    for (int i = 0; i < 5; i++) {
        kp_evict_summary *s = mem_summary(ts[i], av[i], "");
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_evicted, evict[i]);
        KT_CHECK_INT(r.conditions, cond[i]);
        if (r.n_evicted) KT_CHECK_INT(r.evicted[0].grace_seconds, 1);
        kp_evict_summary_free(s);
    }
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* E12: a static critical pod is never evicted; pressure still reported */
KT_TEST(static_critical_pods_are_not_evicted) {
    y("---\nkind: Pod\napiVersion: v1\nmetadata: {name: critical, namespace: kube-system, uid: "
      "uid-critical, "
      "annotations: {kubernetes.io/config.source: file}}\nspec:\n  nodeName: n1\n  priority: "
      "2000000000\n"
      "  containers:\n  - name: c\n");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("", "memory.available<2Gi", "memory.available=2m", NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    for (int i = 0; i < 3; i++) {
        kp_evict_summary *s = mem_summary(i * 90, 1500 * MI,
                                          "{\"podRef\":{\"name\":\"critical\",\"namespace\":\"kube-"
                                          "system\"},\"memory\":{\"workingSetBytes\":838860800}}");
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_evicted, 0);
        KT_CHECK_INT(r.conditions, KP_NODE_COND_MEMORY_PRESSURE);
        kp_evict_summary_free(s);
    }
    KT_CHECK_INT(r.n_ranking, 1); /* ranked (the join fell back to namespace/name), then skipped */
    KT_CHECK(r.note != NULL);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* E13 + E15: local storage limits evict every offender in one step, in active order */
KT_TEST(local_storage_limit_evictions) {
    pod("empty-dir", 0, "",
        "  volumes:\n  - name: emptyDirVolume\n    emptyDir: {sizeLimit: 900Mi}\n");
    pod("container-limit", 0, "    resources: {limits: {ephemeral-storage: 800Mi}}\n", "");
    pod("pod-limit", 0, "    resources: {limits: {ephemeral-storage: 800Mi}}\n", "");
    pod("innocent", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("nodefs.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s =
        summary("{\"node\":{\"fs\":{\"availableBytes\":%lld,\"capacityBytes\":%lld}},\"pods\":["
                "{\"podRef\":{\"name\":\"empty-dir\",\"namespace\":\"default\",\"uid\":\"uid-empty-"
                "dir\"},\"volume\":[{\"name\":\"emptyDirVolume\",\"usedBytes\":%lld}]},"
                "{\"podRef\":{\"name\":\"container-limit\",\"namespace\":\"default\",\"uid\":\"uid-"
                "container-limit\"},\"containers\":[{\"name\":\"container-limit\",\"rootfs\":{"
                "\"usedBytes\":%lld},\"logs\":{\"usedBytes\":%lld}}]},"
                "{\"podRef\":{\"name\":\"pod-limit\",\"namespace\":\"default\",\"uid\":\"uid-pod-"
                "limit\"},\"ephemeral-storage\":{\"usedBytes\":%lld}},"
                "{\"podRef\":{\"name\":\"innocent\",\"namespace\":\"default\",\"uid\":\"uid-"
                "innocent\"},\"ephemeral-storage\":{\"usedBytes\":1}}]}",
                (long long)(200 * MI), (long long)(10 * GI), (long long)(1800 * MI),
                (long long)(800 * MI), (long long)(800 * MI), (long long)(1600 * MI));
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 3);
    if (r.n_evicted == 3) {
        KT_CHECK_STR(r.evicted[0].signal, "emptydirfs.limit");
        KT_CHECK_STR(r.evicted[0].message,
                     "Usage of EmptyDir volume \"emptyDirVolume\" exceeds the limit \"900Mi\". ");
        /* no pod-level ephemeral-storage stats: pod usage counts as 0, the container check fires */
        KT_CHECK_STR(r.evicted[1].signal, "ephemeralcontainerfs.limit");
        KT_CHECK_STR(
            r.evicted[1].message,
            "Container container-limit exceeded its local ephemeral storage limit \"800Mi\". ");
        KT_CHECK_STR(r.evicted[2].signal,
                     "ephemeralpodfs.limit"); /* pod limit = sum of container limits */
        KT_CHECK_STR(
            r.evicted[2].message,
            "Pod ephemeral local storage usage exceeds the total limit of containers 800Mi. ");
        for (int i = 0; i < 3; i++) {
            KT_CHECK_INT(r.evicted[i].grace_seconds, 1);
            KT_CHECK(r.evicted[i].local_storage);
            KT_CHECK_INT(r.evicted[i].n_annotations, 0);
        }
    }
    KT_CHECK_INT(kp_evict_manager_active_count(m), 1);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* Container-level check: logs + rootfs against the container's own limit */
KT_TEST(container_ephemeral_limit) {
    pod("p", 0, "    resources: {limits: {ephemeral-storage: 1Gi}}\n", "");
    y("  - name: side\n    resources: {limits: {ephemeral-storage: 10Gi}}\n");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("nodefs.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s = summary(
        "{\"node\":{},\"pods\":[{\"podRef\":{\"uid\":\"uid-p\"},\"ephemeral-storage\":{"
        "\"usedBytes\":%lld},"
        "\"containers\":[{\"name\":\"p\",\"rootfs\":{\"usedBytes\":%lld},\"logs\":{\"usedBytes\":%"
        "lld}}]}]}",
        (long long)(2 * GI), (long long)(1536 * MI), (long long)(512 * MI + 1));
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 1);
    if (r.n_evicted) {
        KT_CHECK_STR(r.evicted[0].signal, "ephemeralcontainerfs.limit");
        KT_CHECK_STR(r.evicted[0].message,
                     "Container p exceeded its local ephemeral storage limit \"1Gi\". ");
    }
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* E14: allocatableMemory.available from the "pods" system container */
KT_TEST(allocatable_memory_pressure) {
    pod("be", -1, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("allocatableMemory.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    const long long av[2] = {4 * GI, 500 * MI};
    for (int i = 0; i < 2; i++) {
        kp_evict_summary *s = summary(
            "{\"node\":{\"systemContainers\":[{\"name\":\"kubelet\"},{\"name\":\"pods\",\"memory\":"
            "{\"availableBytes\":%lld,\"workingSetBytes\":%lld}}]},\"pods\":[]}",
            av[i], av[i]);
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_evicted, i);
        KT_CHECK(r.obs[KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE].present);
        KT_CHECK(!r.obs[KP_EVSIG_MEMORY_AVAILABLE].present);
        kp_evict_summary_free(s);
    }
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* R10: memory is reclaimed first when nodefs, pid and memory are all met */
KT_TEST(eviction_priority_memory_first) {
    pod("p", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c =
        cfg("nodefs.available<1Gi,pid.available<100,memory.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s =
        summary("{\"node\":{\"memory\":{\"availableBytes\":1,\"workingSetBytes\":1},"
                "\"fs\":{\"availableBytes\":1,\"capacityBytes\":10},\"rlimit\":{\"maxpid\":10,"
                "\"curproc\":5}}}");
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK(r.has_reclaim);
    KT_CHECK_STR(r.reclaim_resource, "memory");
    KT_CHECK_INT(r.n_met, 3);
    KT_CHECK_INT(r.conditions, KP_NODE_COND_MEMORY_PRESSURE | KP_NODE_COND_DISK_PRESSURE |
                                   KP_NODE_COND_PID_PRESSURE);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* R13: no eviction when the signal's stats time did not advance */
KT_TEST(stale_stats_are_not_acted_on) {
    pod("a", 0, "", "");
    pod("b", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    kp_evict_summary *s = mem_summary(60, 100 * MI, "");
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 1);
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK); /* same observation time */
    KT_CHECK_INT(r.n_evicted, 0);
    KT_CHECK_INT(r.n_met, 1);
    if (r.n_met) {
        KT_CHECK(r.met[0].grace_met);
        KT_CHECK(!r.met[0].acted);
    }
    kp_evict_summary_free(s);
    s = mem_summary(30, 100 * MI, "");
    KT_CHECK(kp_evict_manager_step(m, s, &r, &err) != KP_OK); /* time goes backwards */
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* R14 + soft grace: conditions come before the grace period and outlive the pressure by the
 * transition period */
KT_TEST(transition_period) {
    pod("a", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("", "memory.available<2Gi", "memory.available=2m", NULL);
    kp_error err;
    kp_evict_config_set_flag(c, "eviction-pressure-transition-period", "2m", &err);
    kp_evict_config_finish(c, &err);
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    const long long ts[4] = {0, 60, 150, 200};
    const long long av[4] = {GI, 3 * GI, 3 * GI, 3 * GI};
    const unsigned want[4] = {KP_NODE_COND_MEMORY_PRESSURE, KP_NODE_COND_MEMORY_PRESSURE, 0, 0};
    for (int i = 0; i < 4; i++) {
        kp_evict_summary *s = mem_summary(ts[i], av[i], "");
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.conditions, want[i]);
        KT_CHECK_INT(r.n_evicted, 0);
        kp_evict_summary_free(s);
    }
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

KT_TEST(summary_errors_name_the_field) {
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    char buf[256 + 64] =
        "{\"node\":{},\"pods\":[{\"containers\":[{\"rootfs\":{\"usedBytes\":-5}}]}]}";
    KT_CHECK(kp_evict_summary_load_buffer("bad.json", buf, strlen(buf), &s, &err) != KP_OK);
    KT_CHECK_STR(err.source, "bad.json");
    KT_CHECK_STR(err.msg,
                 "Summary: pods[0].containers[0].rootfs.usedBytes: expected an unsigned integer");
    char buf2[256 + 64] = "{\"node\":{\"fs\":{\"time\":\"yesterday\"}}}";
    KT_CHECK(kp_evict_summary_load_buffer("bad.json", buf2, strlen(buf2), &s, &err) != KP_OK);
    KT_CHECK_STR(err.msg, "Summary: node.fs.time: invalid RFC 3339 time");
    char buf3[256 + 64] = "{\"node\": [}";
    KT_CHECK(kp_evict_summary_load_buffer("bad.json", buf3, strlen(buf3), &s, &err) != KP_OK);
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    char buf4[256 + 64] = "{\"node\":{\"memory\":{\"time\":\"2025-01-01T00:00:10Z\"},\"fs\":{"
                          "\"time\":\"2025-01-01T00:00:20Z\"}}}";
    KT_CHECK_INT(kp_evict_summary_load_buffer("ok.json", buf4, strlen(buf4), &s, &err), KP_OK);
    int64_t t = 0;
    KT_CHECK(kp_evict_summary_time(s, &t));
    KT_CHECK_INT(t, INT64_C(1735689620) * 1000000000);
    kp_evict_summary_free(s);
}

/* Regression: after an eviction the remaining pods keep their own stats in later steps */
KT_TEST(stats_follow_pods_after_eviction) {
    pod("p1", -1, "", "");
    pod("p2", 0, "", "");
    pod("p3", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_result r;
    const char *want[3] = {"p1", "p3", "p2"};
    for (int i = 0; i < 3; i++) {
        char pods[1024];
        snprintf(pods, sizeof pods, MEMPOD("p1", 0) "," MEMPOD("p2", 0) "," MEMPOD("p3", 0),
                 10LL * MI, 100LL * MI, 500LL * MI);
        kp_evict_summary *s = mem_summary(60 * (i + 1), 100 * MI, pods);
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        check_evicted(cl, &r, want[i], 1);
        KT_CHECK_INT(r.n_ranking, 3 - i);
        kp_evict_summary_free(s);
    }
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* UpdateContainerFsThresholds overwrites a user containerfs threshold in place, and the first
 * synchronize (which keeps the old slice length) already sees the new value: with nodefs<1Gi the
 * user's containerfs.available<10Gi is never evaluated (kprio evaluated it on the first step). */
KT_TEST(containerfs_overwritten_before_first_step) {
    pod("p", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("nodefs.available<1Gi,containerfs.available<10Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s = summary(
        "{\"node\":{\"fs\":{\"availableBytes\":%lld,\"capacityBytes\":%lld},"
        "\"runtime\":{\"containerFs\":{\"availableBytes\":%lld,\"capacityBytes\":%lld}}},\"pods\":["
        "]}",
        (long long)(50 * GI), (long long)(100 * GI), (long long)(5 * GI), (long long)(100 * GI));
    kp_evict_result r;
    for (int step = 0; step < 2; step++) {
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_met, 0);
        KT_CHECK_INT(r.conditions, 0);
    }
    const kp_evict_threshold_info *ti = kp_evict_manager_threshold(m, 1);
    KT_CHECK(ti != NULL);
    KT_CHECK(kp_evict_manager_threshold(m, kp_evict_manager_threshold_count(m)) == NULL);
    if (ti) KT_CHECK_INT(ti->signal, KP_EVSIG_CONTAINERFS_AVAILABLE);
    if (ti) KT_CHECK_STR(ti->value, "1Gi");
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* PodLimits adds spec.overhead only to a non-zero limit: a zero ephemeral-storage limit stays 0 */
KT_TEST(pod_limit_overhead_only_when_non_zero) {
    pod("zero", 0, "    resources: {limits: {ephemeral-storage: '0'}}\n",
        "  overhead: {ephemeral-storage: 1Gi}\n");
    pod("some", 0, "    resources: {limits: {ephemeral-storage: 1Mi}}\n",
        "  overhead: {ephemeral-storage: 1Gi}\n");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("nodefs.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s =
        summary("{\"node\":{},\"pods\":[{\"podRef\":{\"uid\":\"uid-zero\"},\"ephemeral-storage\":{"
                "\"usedBytes\":%lld}},"
                "{\"podRef\":{\"uid\":\"uid-some\"},\"ephemeral-storage\":{\"usedBytes\":%lld}}]}",
                (long long)(100 * MI), (long long)(100 * MI));
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 1);
    if (r.n_evicted) {
        KT_CHECK_INT((long)r.evicted[0].pod, pod_index(cl, "zero"));
        KT_CHECK_STR(r.evicted[0].signal, "ephemeralpodfs.limit");
        KT_CHECK_STR(r.evicted[0].message,
                     "Pod ephemeral local storage usage exceeds the total limit of containers 0. ");
    }
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* GetThresholdQuantity deep-copies the threshold, so "Threshold quantity" prints Quantity.String()
 * with the string ParseQuantity cached: "1.500G" stays "1.500G" (canonical: 1500M) */
KT_TEST(threshold_quantity_keeps_its_spelling) {
    pod("p", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<1.500G", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s = summary("{\"node\":{\"memory\":{\"availableBytes\":%lld,"
                                  "\"workingSetBytes\":%lld}},\"pods\":[" MEMPOD("p", 0) "]}",
                                  (long long)GI, (long long)GI, (long long)MI);
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 1);
    if (r.n_evicted)
        KT_CHECK_STR(
            r.evicted[0].message,
            "The node was low on resource: memory. Threshold quantity: 1.500G, available: 1Gi. ");
    if (r.n_met) KT_CHECK_STR(r.met[0].quantity_str, "1.500G");
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
    const char *bad[] = {"memory.available<-1.500G", "memory.available<0"};
    const char *want[] = {"eviction threshold memory.available must be positive: -1.500G",
                          "eviction threshold memory.available must be positive: 0"};
    for (int i = 0; i < 2; i++) {
        kp_evict_config *b = kp_evict_config_new();
        kp_error_clear(&err);
        kp_evict_config_set_flag(b, "eviction-hard", bad[i], &err);
        KT_CHECK(kp_evict_config_finish(b, &err) != KP_OK);
        KT_CHECK_CONTAINS(err.msg, want[i]);
        kp_evict_config_free(b);
    }
}

static const char *bytes_spelling(void *ctx, kp_index pod, kp_evict_spec_field f, const char *name,
                                  const char *res, size_t *len) {
    (void)pod;
    ++*(int *)ctx;
    if (f != KP_EVSPEC_REQUEST || strcmp(name, "p") != 0 || strcmp(res, "memory") != 0) return NULL;
    *len = 9;
    return "104857600xyz"; /* not NUL-terminated at len */
}

/* kp_evict_manager_set_spec_text: the request prints as written ("104857600"); without a source
 * the integer prints as before ("100Mi") */
KT_TEST(spec_text_source_spells_requests) {
    pod("p", 0, "    resources: {requests: {memory: 100Mi}}\n", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<2Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_summary *s = summary(
        "{\"node\":{\"memory\":{\"availableBytes\":%lld,\"workingSetBytes\":%lld}},\"pods\":["
        "{\"podRef\":{\"uid\":\"uid-p\"},\"containers\":[{\"name\":\"p\",\"memory\":{"
        "\"workingSetBytes\":%lld}}]}]}",
        (long long)GI, (long long)GI, (long long)GI);
    const char *want[] = {
        "Container p was using 1Gi, request is 104857600, has larger consumption of memory. ",
        "Container p was using 1Gi, request is 100Mi, has larger consumption of memory. "};
    for (int round = 0; round < 2; round++) {
        kp_evict_manager *m = NULL;
        kp_evict_manager_new(cl, 0, c, &m, &err);
        int calls = 0;
        if (round == 0) kp_evict_manager_set_spec_text(m, bytes_spelling, &calls);
        kp_evict_result r;
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_evicted, 1);
        if (r.n_evicted) KT_CHECK_CONTAINS(r.evicted[0].message, want[round]);
        KT_CHECK(round == 1 || calls > 0);
        kp_evict_manager_free(m);
    }
    kp_evict_summary_free(s);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}


/* Beyond the old fixed buffers (a 2048-byte message, 1024-byte annotation lists): forty long
 * container names all over their memory requests; every sentence and name is kept. */
KT_TEST(long_messages_are_not_cut) {
    y("---\nkind: Pod\napiVersion: v1\nmetadata: {name: wide, namespace: default, uid: "
      "uid-wide}\n");
    y("spec:\n  nodeName: n1\n  containers:\n");
    for (int i = 0; i < 40; i++)
        y("  - name: container-with-a-rather-long-name-%02d\n    resources: {requests: {memory: "
          "1Mi}}\n",
          i);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<2Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    static char js[16384];
    size_t o = (size_t)snprintf(
        js, sizeof js,
        "{\"node\":{\"memory\":{\"availableBytes\":%lld,\"workingSetBytes\":1}},"
        "\"pods\":[{\"podRef\":{\"name\":\"wide\",\"namespace\":\"default\",\"uid\":\"uid-wide\"},"
        "\"memory\":{\"workingSetBytes\":1},\"containers\":[",
        (long long)MI);
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(js + o, sizeof js - o,
                              "%s{\"name\":\"container-with-a-rather-long-name-%02d\","
                              "\"memory\":{\"workingSetBytes\":%lld}}",
                              i ? "," : "", i, (long long)(2 * MI));
    snprintf(js + o, sizeof js - o, "]}]}");
    kp_evict_summary *sm = summary("%s", js);
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, sm, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_evicted, 1);
    if (r.n_evicted == 1) {
        KT_CHECK(strlen(r.evicted[0].message) > 4000);
        KT_CHECK(strstr(r.evicted[0].message,
                        "Container container-with-a-rather-long-name-39 was using 2Mi, request is "
                        "1Mi, has larger consumption of memory. ") != NULL);
        KT_CHECK(strlen(r.evicted[0].ann_values[0]) > 1400);
        KT_CHECK(strstr(r.evicted[0].ann_values[0], ",container-with-a-rather-long-name-39") !=
                 NULL);
    }
    kp_evict_summary_free(sm);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* Every allocation failure during a step reaches the caller as KP_ENOMEM: never a step that
 * succeeds with a missing message or a skipped eviction. */
KT_TEST(out_of_memory_reaches_the_caller) {
    pod("empty-dir", 0, "", "  volumes:\n  - name: v\n    emptyDir: {sizeLimit: 900Mi}\n");
    pod("hog", 0, "    resources: {requests: {memory: 100Mi}}\n", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<2Gi", NULL, NULL, NULL);
    kp_evict_summary *sm =
        summary("{\"node\":{\"memory\":{\"availableBytes\":%lld,\"workingSetBytes\":1}},\"pods\":["
                "{\"podRef\":{\"name\":\"empty-dir\",\"namespace\":\"default\",\"uid\":\"uid-empty-"
                "dir\"},\"volume\":[{\"name\":\"v\",\"usedBytes\":%lld}]},"
                "{\"podRef\":{\"name\":\"hog\",\"namespace\":\"default\",\"uid\":\"uid-hog\"},"
                "\"memory\":{\"workingSetBytes\":%lld},"
                "\"containers\":[{\"name\":\"hog\",\"memory\":{\"workingSetBytes\":%lld}}]}]}",
                (long long)MI, (long long)GI, (long long)GI, (long long)GI);
    for (int round = 0; round < 2; round++) { /* local storage, then memory ranking */
        bool done = false;
        for (long n = 0; n < 1000 && !done; n++) {
            kp_error err;
            kp_evict_manager *m = NULL;
            kp_evict_manager_new(cl, 0, c, &m, &err);
            if (!m) {
                KT_CHECK(0);
                break;
            }
            kp_evict_result r;
            if (round == 1)
                KT_CHECK_INT(kp_evict_manager_step(m, sm, &r, &err), KP_OK); /* evicts empty-dir */
            kp__alloc_fail_after(n, true);
            kp_status st = kp_evict_manager_step(m, sm, &r, &err);
            kp__alloc_fail_after(-1, false);
            KT_CHECK(st == KP_OK || st == KP_ENOMEM);
            if (st == KP_OK) {
                done = true;
                KT_CHECK_INT(r.n_evicted, 1);
                if (r.n_evicted == 1) {
                    KT_CHECK(r.evicted[0].message != NULL && r.evicted[0].message[0] != 0);
                    KT_CHECK_STR(r.evicted[0].signal,
                                 round == 0 ? "emptydirfs.limit" : "memory.available");
                }
            }
            kp_evict_manager_free(m);
        }
        KT_CHECK(done);
    }
    kp_evict_summary_free(sm);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* issue 18 item 7: cachedStatsFunc keys pod stats by podRef.uid. An entry under the pod's name but
 * another uid (a StatefulSet pod recreated under the same name) gives the pod no stats: it ranks
 * first for memory (exceedMemoryRequests puts pods without stats first) and its message has no
 * container part. The name join stays for entries or pods without a uid. */
KT_TEST(pod_stats_join_by_uid_only) {
    pod("web-0", 0, "    resources: {requests: {memory: 100Mi}}\n", "");
    pod("batch", 0, "    resources: {requests: {memory: 100Mi}}\n", "");
    y("---\nkind: Pod\napiVersion: v1\nmetadata: {name: nouid, namespace: default}\n"
      "spec:\n  nodeName: n1\n  priority: 10\n  containers:\n  - name: nouid\n");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("memory.available<1Gi", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    kp_evict_manager_new(cl, 0, c, &m, &err);
    kp_evict_summary *s = mem_summary(
        0, 900 * MI,
        "{\"podRef\":{\"name\":\"web-0\",\"namespace\":\"default\",\"uid\":\"uid-web-0-old\"},"
        "\"memory\":{\"workingSetBytes\":10485760},\"containers\":[{\"name\":\"web-0\",\"memory\":{"
        "\"workingSetBytes\":10485760}}]},"
        "{\"podRef\":{\"name\":\"batch\",\"namespace\":\"default\",\"uid\":\"uid-batch\"},"
        "\"memory\":{\"workingSetBytes\":524288000},\"containers\":[{\"name\":\"batch\",\"memory\":"
        "{"
        "\"workingSetBytes\":524288000}}]},"
        "{\"podRef\":{\"name\":\"nouid\",\"namespace\":\"default\",\"uid\":\"uid-x\"},"
        "\"memory\":{\"workingSetBytes\":1048576}}");
    kp_evict_result r;
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_ranking, 3);
    if (r.n_ranking == 3) {
        KT_CHECK_INT((long)r.ranking[0], pod_index(cl, "web-0"));
        KT_CHECK_INT((long)r.ranking[1], pod_index(cl, "batch"));
        KT_CHECK_INT((long)r.ranking[2], pod_index(cl, "nouid"));
    }
    KT_CHECK_INT(r.n_evicted, 1);
    if (r.n_evicted) {
        KT_CHECK_INT((long)r.evicted[0].pod, pod_index(cl, "web-0"));
        KT_CHECK_STR(r.evicted[0].message, "The node was low on resource: memory. Threshold "
                                           "quantity: 1Gi, available: 900Mi. ");
    }
    KT_CHECK(r.stats_joined);
    KT_CHECK_INT(r.n_stats_by_uid, 1);
    KT_CHECK_INT(r.n_stats_by_name, 1);
    KT_CHECK_INT(r.n_stats_missing, 1);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* issue 10 item 4: a file that is not a Summary API document is an error, not an empty step */
KT_TEST(not_a_summary_is_an_error) {
    kp_evict_summary *s = NULL;
    kp_error err;
    static const char *const bad[] = {
        "{}", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\"}}",
        "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"items\":[]}", "pods: []\n",
        "{\"node\":null,\"pods\":[]}"};
    static const char *const want[] = {
        "Summary: node: missing: not a kubelet Summary API document",
        "Summary: this is a Pod, not a kubelet Summary API document",
        "Summary: this is a NodeList, not a kubelet Summary API document", "Summary: node: missing",
        "Summary: node: missing"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kp_error_clear(&err);
        KT_CHECK_INT(kp_evict_summary_load_buffer("x.json", bad[i], strlen(bad[i]), &s, &err),
                     KP_EINVAL);
        KT_CHECK(s == NULL);
        KT_CHECK_STR(err.source, "x.json");
        KT_CHECK_CONTAINS(err.msg, want[i]);
    }
    static const char ok[] = "{\"node\":{\"nodeName\":\"n1\",\"memory\":{\"availableBytes\":1}}}";
    KT_CHECK_INT(kp_evict_summary_load_buffer("ok.json", ok, strlen(ok), &s, &err), KP_OK);
    if (s) KT_CHECK_STR(kp_evict_summary_node_name(s), "n1");
    kp_evict_summary_free(s);
}

/* issue 18 item 8: synchronize shadows `thresholds` (the old slice: old length, old backing
 * array) and UpdateContainerFsThresholds appends before it overwrites. With the list
 * [nodefs.available<1Gi hard, containerfs.available<10Gi soft] (len 2 = cap 2), appending the hard
 * containerfs copy reallocates, so the overwrite of the user's soft containerfs threshold lands in
 * the new array: the first synchronize evaluates the user's containerfs.available<10Gi
 * (DiskPressure at 5Gi available), the second the rewritten list (a copy of the absent soft nodefs
 * threshold, never met). */
static kp_evict_summary *cfs_summary(long long t_sec, long long cfs_avail, long long cfs_ifree) {
    return summary(
        "{\"node\":{\"fs\":{\"time\":\"2025-01-01T00:00:%02lldZ\",\"availableBytes\":%lld,"
        "\"capacityBytes\":%lld,\"inodesFree\":900000,\"inodes\":1000000},"
        "\"runtime\":{\"containerFs\":{\"time\":\"2025-01-01T00:00:%02lldZ\","
        "\"availableBytes\":%lld,\"capacityBytes\":%lld,\"inodesFree\":%lld,"
        "\"inodes\":1000000}}},\"pods\":[]}",
        t_sec, (long long)(50 * GI), (long long)(100 * GI), t_sec, cfs_avail, (long long)(100 * GI),
        cfs_ifree);
}

KT_TEST(first_step_sees_user_containerfs_after_regrowth) {
    pod("p", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = kp_evict_config_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-hard", "nodefs.available<1Gi", &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-soft", "containerfs.available<10Gi", &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-soft-grace-period",
                                          "containerfs.available=30s", &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "enforce-node-allocatable", "", &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-pressure-transition-period", "1s", &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(c, &err), KP_OK);
    kp_evict_manager *m = NULL;
    KT_CHECK_INT(kp_evict_manager_new(cl, 0, c, &m, &err), KP_OK);
    kp_evict_result r;
    kp_evict_summary *s = cfs_summary(0, 5 * GI, 900000);
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_met, 1);
    if (r.n_met) {
        KT_CHECK_INT(r.met[0].signal, KP_EVSIG_CONTAINERFS_AVAILABLE);
        KT_CHECK_STR(r.met[0].value, "10Gi");
        KT_CHECK(!r.met[0].grace_met);
    }
    KT_CHECK_INT(r.conditions, KP_NODE_COND_DISK_PRESSURE);
    kp_evict_summary_free(s);
    s = cfs_summary(10, 5 * GI, 900000);
    KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_met, 0);
    KT_CHECK_INT(r.conditions, 0);
    kp_evict_summary_free(s);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* The same with a hard containerfs.inodesFree<1000 (overwritten third, after the hard
 * containerfs.available copy regrew the slice): the first step meets the user's threshold, and
 * as a hard threshold it goes into m.thresholdsMet, whose values the next steps re-evaluate while
 * minimum reclaim is not satisfied: DiskPressure holds in the second step too, although the
 * rewritten list has no such threshold. Node-level reclaim re-checks the rewritten list and
 * finds nothing met, so no pod is evicted. */
KT_TEST(user_containerfs_threshold_met_first_stays_met) {
    pod("p", 0, "", "");
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    kp_evict_config *c = cfg("nodefs.available<1Gi,containerfs.inodesFree<1000", NULL, NULL, NULL);
    kp_error err;
    kp_evict_manager *m = NULL;
    KT_CHECK_INT(kp_evict_manager_new(cl, 0, c, &m, &err), KP_OK);
    kp_evict_result r;
    for (int step = 0; step < 2; step++) {
        kp_evict_summary *s = cfs_summary(step * 10, 50 * GI, 500);
        KT_CHECK_INT(kp_evict_manager_step(m, s, &r, &err), KP_OK);
        KT_CHECK_INT(r.n_met, 1);
        if (r.n_met) {
            KT_CHECK_INT(r.met[0].signal, KP_EVSIG_CONTAINERFS_INODES_FREE);
            KT_CHECK_STR(r.met[0].value, "1k");
        }
        KT_CHECK_INT(r.conditions, KP_NODE_COND_DISK_PRESSURE);
        KT_CHECK(r.has_reclaim && r.node_reclaim_enough);
        KT_CHECK_INT(r.n_evicted, 0);
        kp_evict_summary_free(s);
    }
    /* the rewritten list: containerfs.inodesFree is now a copy of the absent nodefs.inodesFree */
    bool found = false;
    for (size_t i = 0; i < kp_evict_manager_threshold_count(m); i++) {
        const kp_evict_threshold_info *t = kp_evict_manager_threshold(m, i);
        if (t && t->signal == KP_EVSIG_CONTAINERFS_INODES_FREE && t->hard) found = !t->value[0];
    }
    KT_CHECK(found);
    kp_evict_manager_free(m);
    kp_evict_config_free(c);
    kp_cluster_free(cl);
}

/* growslice for 64-byte elements: exact size classes up to 512 bytes, then a malloc header */
KT_TEST(go_slice_capacity) {
    KT_CHECK_INT(kp__ev_go_append_cap(0, 0, 5), 5);
    KT_CHECK_INT(kp__ev_go_append_cap(1, 1, 1), 2);
    KT_CHECK_INT(kp__ev_go_append_cap(2, 2, 1), 4);
    KT_CHECK_INT(kp__ev_go_append_cap(5, 5, 1), 10); /* 640 + 8 -> 704 - 8 = 696 bytes */
    KT_CHECK_INT(kp__ev_go_append_cap(0, 0, 12), 13); /* 768 + 8 -> 896 - 8 = 888 bytes */
    KT_CHECK_INT(kp__ev_go_append_cap(3, 4, 1), 4);
    KT_CHECK_INT(kp__ev_go_append_cap(4, 4, 0), 4);
}

KT_MAIN(KT_CASE(long_messages_are_not_cut), KT_CASE(out_of_memory_reaches_the_caller),
        KT_CASE(memory_pressure_verify_pod_status), KT_CASE(stats_follow_pods_after_eviction),
        KT_CASE(pid_pressure_verify_pod_status), KT_CASE(disk_pressure_verify_pod_status),
        KT_CASE(min_reclaim), KT_CASE(static_critical_pods_are_not_evicted),
        KT_CASE(local_storage_limit_evictions), KT_CASE(container_ephemeral_limit),
        KT_CASE(allocatable_memory_pressure), KT_CASE(eviction_priority_memory_first),
        KT_CASE(stale_stats_are_not_acted_on), KT_CASE(transition_period),
        KT_CASE(summary_errors_name_the_field), KT_CASE(containerfs_overwritten_before_first_step),
        KT_CASE(pod_limit_overhead_only_when_non_zero),
        KT_CASE(threshold_quantity_keeps_its_spelling), KT_CASE(spec_text_source_spells_requests),
        KT_CASE(pod_stats_join_by_uid_only), KT_CASE(not_a_summary_is_an_error),
        KT_CASE(first_step_sees_user_containerfs_after_regrowth),
        KT_CASE(user_containerfs_threshold_met_first_stays_met), KT_CASE(go_slice_capacity))
