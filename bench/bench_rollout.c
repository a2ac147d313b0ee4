/* Rollout benchmark (issue 28): a 5,000-node cluster (16 cpu each) holding 10 background pods per
 * node (ReplicaSets of 10 replicas) and a 2,000-replica Deployment (500m each, RollingUpdate
 * maxSurge 25%, maxUnavailable 0, minReadySeconds 10) under two PodDisruptionBudgets (one on the
 * Deployment's pods, one on the background pods of a namespace), its pods Ready 20 s after they
 * start; at 1m its template changes (a new image) and it rolls out. One hour of virtual time.
 * Prints the run's CPU time, the ratio of virtual to CPU time (target >= 1000x), when the rollout
 * completed (the Deployment's Progressing condition NewReplicaSetAvailable), the events and the
 * decisions digest (as bench_sim's).
 *
 *     bench_rollout [NODES] [REPLICAS]      (default 5000 2000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kprio/cluster.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

#include "bench_buf.h"

#define BG_PER_NODE 10

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;
}
static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s ? s : "", s ? strlen(s) : 0); }

static uint64_t events_digest(const kp_sim *sim) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        int64_t nums[5] = {e->t_ms, (int64_t)e->type, (int64_t)e->pod, (int64_t)e->node,
                           (int64_t)e->cause};
        h = fnv(h, nums, sizeof nums);
        h = fnv_str(fnv_str(fnv_str(fnv_str(fnv_str(h, e->reason), e->kind), e->ns), e->name),
                    e->message);
    }
    return h;
}

#define WEB_TEMPLATE                                                                     \
    "\"spec\":{\"priorityClassName\":\"web\",\"terminationGracePeriodSeconds\":30,"      \
    "\"containers\":[{\"name\":\"app\",\"image\":\"web:1\",\"resources\":{\"requests\":" \
    "{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}]}"

static void snapshot(buf_t *b, int nodes, int replicas) {
    put(b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"batch\"},\"value\":100},");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"web\"},\"value\":1000}");
    put_nodes(b, nodes);
    for (int r = 0; r < nodes; r++) {
        put(b,
            ",{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":"
            "\"rs-%d\",\"namespace\":\"ns-%d\",\"uid\":\"rs-uid-%d\"},\"spec\":{\"replicas\":"
            "%d,\"selector\":{\"matchLabels\":{\"app\":\"rs-%d\"}},\"template\":{\"metadata\":"
            "{\"labels\":{\"app\":\"rs-%d\",\"tier\":\"bg\"}},\"spec\":{\"priorityClassName\":"
            "\"batch\",\"containers\":[{\"name\":\"c\",\"image\":\"app:1\",\"resources\":"
            "{\"requests\":{\"cpu\":\"1\",\"memory\":\"2Gi\"}}}]}}}}",
            r, r % 50, r, BG_PER_NODE, r, r);
        for (int k = 0; k < BG_PER_NODE; k++)
            put(b,
                ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"rs-%d-%d\","
                "\"namespace\":\"ns-%d\",\"uid\":\"p-%d-%d\",\"labels\":{\"app\":\"rs-%d\","
                "\"tier\":\"bg\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
                "\"ReplicaSet\",\"name\":\"rs-%d\",\"uid\":\"rs-uid-%d\",\"controller\":true}]},"
                "\"spec\":{\"nodeName\":\"node-%d\",\"priorityClassName\":\"batch\","
                "\"containers\":[{\"name\":\"c\",\"image\":\"app:1\",\"resources\":{\"requests\":"
                "{\"cpu\":\"1\",\"memory\":\"2Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}",
                r, k, r % 50, r, k, r, r, r, (r + k * 97) % nodes);
    }
    /* the Deployment, its ReplicaSet (the same template plus pod-template-hash) and its pods */
    put(b,
        ",{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
        "\"namespace\":\"shop\",\"uid\":\"uid-web\"},\"spec\":{\"replicas\":%d,"
        "\"minReadySeconds\":10,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"strategy\":"
        "{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%%\",\"maxUnavailable\":"
        "0}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}}," WEB_TEMPLATE "}}}",
        replicas);
    put(b,
        ",{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":"
        "\"web-6b9f8c7d5\",\"namespace\":\"shop\",\"uid\":\"uid-web-rs\",\"ownerReferences\":[{"
        "\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"web\",\"uid\":\"uid-web\","
        "\"controller\":true}]},\"spec\":{\"replicas\":%d,\"minReadySeconds\":10,\"selector\":"
        "{\"matchLabels\":{\"app\":\"web\",\"pod-template-hash\":\"6b9f8c7d5\"}},\"template\":"
        "{\"metadata\":{\"labels\":{\"app\":\"web\",\"pod-template-hash\":\"6b9f8c7d5\"}}"
        "," WEB_TEMPLATE "}}}",
        replicas);
    for (int k = 0; k < replicas; k++)
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-6b9f8c7d5-%d\","
            "\"namespace\":\"shop\",\"uid\":\"w-%d\",\"labels\":{\"app\":\"web\","
            "\"pod-template-hash\":\"6b9f8c7d5\"},\"ownerReferences\":[{\"apiVersion\":"
            "\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web-6b9f8c7d5\",\"uid\":"
            "\"uid-web-rs\",\"controller\":true}]},\"spec\":{\"nodeName\":\"node-%d\","
            "\"priorityClassName\":\"web\",\"terminationGracePeriodSeconds\":30,\"containers\":"
            "[{\"name\":\"app\",\"image\":\"web:1\",\"resources\":{\"requests\":{\"cpu\":"
            "\"500m\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}",
            k, k, (k * 7) % nodes);
    /* two PDBs: the Deployment's pods, the background pods of namespace ns-0 */
    put(b, ",{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{"
           "\"name\":\"web\",\"namespace\":\"shop\"},\"spec\":{\"maxUnavailable\":\"10%%\","
           "\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}}");
    put(b, ",{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{"
           "\"name\":\"bg\",\"namespace\":\"ns-0\"},\"spec\":{\"minAvailable\":\"90%%\","
           "\"selector\":{\"matchLabels\":{\"tier\":\"bg\"}}}}");
    put(b, "]}");
}

static const char SCENARIO[] =
    "apiVersion: kprio/v1alpha1\nkind: Scenario\nduration: 1h\n"
    "readiness:\n- selector: {matchLabels: {app: web}}\n  after: 20s\n"
    "actions:\n- at: 1m\n  patch:\n    kind: Deployment\n    namespace: shop\n    name: web\n"
    "    patch: {spec: {template: {spec: {containers: [{name: app, image: 'web:2', resources: "
    "{requests: {cpu: 500m, memory: 1Gi}}}]}}}}\n";

int main(int argc, char **argv) {
    int nodes = argc > 1 ? atoi(argv[1]) : 5000;
    int replicas = argc > 2 ? atoi(argv[2]) : 2000;
    if (nodes < 1 || replicas < 1) {
        fprintf(stderr, "usage: bench_rollout [NODES] [REPLICAS]\n");
        return 2;
    }
    buf_t b = {0};
    snapshot(&b, nodes, replicas);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    kp_scenario *sc = NULL;
    /* templates are decoded (the simulator's controllers make pods from them) */
    if (kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES) != KP_OK ||
        kp_cluster_load_buffer(cl, "bench", b.p, b.len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK ||
        kp_scenario_load_buffer("bench-scenario", SCENARIO, sizeof SCENARIO - 1, NULL, &sc, &err) !=
            KP_OK) {
        fprintf(stderr, "bench_rollout: %s\n", err.msg);
        return 1;
    }
    free(b.p);
    kp_sim_options o;
    kp_sim_options_init(&o);
    kp_sim *sim = NULL;
    double t0 = cpu_now();
    if (kp_sim_new(cl, NULL, sc, &o, &sim, &err) != KP_OK || kp_sim_run(sim, &err) != KP_OK) {
        fprintf(stderr, "bench_rollout: %s\n", err.msg);
        return 1;
    }
    double cpu = cpu_now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    /* when the rollout completed: the Deployment's Progressing condition */
    const char *reason = "";
    int64_t done = -1;
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(cl, (kp_index)i, &in) == KP_OK &&
            strcmp(in.kind, "Deployment") == 0) {
            reason = in.progressing_reason;
            done = in.progressing_time - kp_sim_epoch(sim);
        }
    }
    double virt = (double)kp_sim_now(sim) / 1000.0;
    printf("rollout %d nodes, %d background pods, %d replicas maxSurge 25%%, 2 PDBs, %.0fs "
           "virtual: cpu=%.2fs x%.0f real time; events=%llu created=%llu deleted=%llu; rollout %s "
           "at %llds; peak RSS %ld MB\n",
           nodes, nodes * BG_PER_NODE, replicas, virt, cpu, virt / (cpu > 0 ? cpu : 1e-9),
           (unsigned long long)c.events, (unsigned long long)c.pods_created,
           (unsigned long long)c.pods_deleted, reason, (long long)done, ru.ru_maxrss / 1024);
    printf("decisions=%016llx\n", (unsigned long long)events_digest(sim));
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
    return 0;
}
