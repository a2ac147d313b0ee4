/* Simulation benchmark (issue 11): one hour of virtual time on N nodes holding 30 pods each
 * (5,000 nodes = 150,000 pods, owned by ReplicaSets of 30 replicas), with 10,000 pod arrivals
 * spread over the hour (100 every 36 s; one in eight is high-priority and large, so it
 * preempts), their victims' grace periods and the ReplicaSets' replacements. Prints the run's
 * CPU time, events, events/s, the ratio of virtual to CPU time (target >= 1000x) and peak RSS
 * against the loaded model.
 *
 *     bench_sim [NODES] [ARRIVALS]      (default 5000 10000) */
#include <stdarg.h>
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

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PODS_PER_NODE 30

static void snapshot(buf_t *b, int nodes) {
    put(b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"batch\"},\"value\":100},");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"urgent\"},\"value\":100000}");
    for (int n = 0; n < nodes; n++)
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\","
            "\"labels\":{\"kubernetes.io/hostname\":\"node-%d\",\"topology.kubernetes.io/"
            "zone\":\"zone-%d\"}},\"status\":{\"allocatable\":{\"cpu\":\"16\",\"memory\":"
            "\"64Gi\",\"pods\":\"110\"}}}",
            n, n, n % 3);
    /* ReplicaSet r holds pod k of node (r*30+k)/30... spread: replica k on node (r + k*97) */
    for (int r = 0; r < nodes; r++) {
        put(b,
            ",{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":"
            "\"rs-%d\",\"namespace\":\"ns-%d\",\"uid\":\"rs-uid-%d\"},\"spec\":{\"replicas\":"
            "%d,\"selector\":{\"matchLabels\":{\"app\":\"rs-%d\"}},\"template\":{\"metadata\":"
            "{\"labels\":{\"app\":\"rs-%d\"}},\"spec\":{\"priorityClassName\":\"batch\","
            "\"terminationGracePeriodSeconds\":30,\"containers\":[{\"name\":\"c\",\"image\":"
            "\"app:1\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}]}}}}",
            r, r % 50, r, PODS_PER_NODE, r, r);
        for (int k = 0; k < PODS_PER_NODE; k++)
            put(b,
                ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"rs-%d-%d\","
                "\"namespace\":\"ns-%d\",\"uid\":\"p-%d-%d\",\"labels\":{\"app\":\"rs-%d\"},"
                "\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"ownerReferences\":[{"
                "\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs-%d\",\"uid\":"
                "\"rs-uid-%d\",\"controller\":true}]},\"spec\":{\"nodeName\":\"node-%d\","
                "\"priorityClassName\":\"batch\",\"terminationGracePeriodSeconds\":30,"
                "\"containers\":[{\"name\":\"c\",\"image\":\"app:1\",\"resources\":{\"requests\":"
                "{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\","
                "\"startTime\":\"2026-01-01T00:00:%02dZ\"}}",
                r, k, r % 50, r, k, r, r, r, (r + k * 97) % nodes, k % 60);
    }
    put(b, "]}");
}

/* 100 pods every 36 s: seven of eight small batch pods, one large urgent pod (4 cpu) */
static kp_scenario *arrivals(int total) {
    kp_scenario *sc = calloc(1, sizeof *sc);
    int batches = total / 100;
    sc->source = "bench";
    sc->actions = calloc((size_t)batches, sizeof *sc->actions);
    sc->n_actions = (size_t)batches;
    static char src[] = "bench arrivals";
    for (int a = 0; a < batches; a++) {
        kp_scenario_action *act = &sc->actions[a];
        act->at_ms = (int64_t)a * 36000;
        act->type = KP_ACT_CREATE;
        act->objects = calloc(1, sizeof *act->objects);
        act->n_objects = 1;
        buf_t b = {0};
        put(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
        for (int i = 0; i < 100; i++) {
            bool big = i % 8 == 0;
            put(&b,
                "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"arr-%d-%d\","
                "\"namespace\":\"arrivals\"},\"spec\":{\"priorityClassName\":\"%s\","
                "\"containers\":[{\"name\":\"c\",\"image\":\"app:1\",\"resources\":{"
                "\"requests\":{\"cpu\":\"%s\",\"memory\":\"1Gi\"}}}]}}",
                i ? "," : "", a, i, big ? "urgent" : "batch", big ? "4" : "250m");
        }
        put(&b, "]}");
        act->objects[0].source = src;
        act->objects[0].text = b.p;
        act->objects[0].len = b.len;
    }
    return sc;
}

int main(int argc, char **argv) {
    int nodes = argc > 1 ? atoi(argv[1]) : 5000;
    int total = argc > 2 ? atoi(argv[2]) : 10000;
    bool kubelets = argc > 3 && strcmp(argv[3], "kubelets") == 0; /* docs/simulate.md */
    if (nodes < 1 || total < 100 || (argc > 3 && !kubelets)) {
        fprintf(stderr, "usage: bench_sim [NODES] [ARRIVALS >= 100] [kubelets]\n");
        return 2;
    }
    buf_t b = {0};
    snapshot(&b, nodes);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (kp_cluster_load_buffer(cl, "bench", b.p, b.len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    free(b.p);
    size_t model = kp_cluster_model_bytes(cl);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss_loaded = ru.ru_maxrss;
    kp_scenario *sc = arrivals(total);
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 3600 * 1000;
    o.kubelets = kubelets;
    kp_sim *sim = NULL;
    double t0 = cpu_now();
    if (kp_sim_new(cl, NULL, sc, &o, &sim, &err) != KP_OK || kp_sim_run(sim, &err) != KP_OK) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    double cpu = cpu_now() - t0;
    getrusage(RUSAGE_SELF, &ru);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    printf("simulate %d nodes, %zu pods at start, %d arrivals, 1h virtual: cpu=%.2fs events=%llu "
           "(%.0f events/s) attempts=%llu preemptions=%llu victims=%llu created=%llu "
           "x%.0f real time; peak RSS %ld MB after load %ld MB (model %zu MB)\n",
           nodes, (size_t)nodes * PODS_PER_NODE, total, cpu, (unsigned long long)c.events,
           (double)c.events / (cpu > 0 ? cpu : 1e-9), (unsigned long long)c.attempts,
           (unsigned long long)c.preemptions, (unsigned long long)c.victims,
           (unsigned long long)c.pods_created, 3600.0 / (cpu > 0 ? cpu : 1e-9), ru.ru_maxrss / 1024,
           rss_loaded / 1024, model >> 20);
    if (kubelets)
        printf("kubelets: %llu eviction-manager steps, %llu quiet passes skipped, %llu "
               "evictions\n",
               (unsigned long long)c.kubelet_steps, (unsigned long long)c.kubelet_quiet_passes,
               (unsigned long long)c.kubelet_evictions);
    kp_sim_free(sim);
    kp_cluster_free(cl);
    for (size_t a = 0; a < sc->n_actions; a++) {
        free(sc->actions[a].objects[0].text);
        free(sc->actions[a].objects);
    }
    free(sc->actions);
    free(sc);
    return 0;
}
