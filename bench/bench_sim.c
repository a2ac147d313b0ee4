/* Simulation benchmark (issue 11): one hour of virtual time on N nodes holding 30 pods each
 * (5,000 nodes = 150,000 pods, owned by ReplicaSets of 30 replicas), with 10,000 pod arrivals
 * spread over the hour (100 every 36 s; one in eight is high-priority and large, so it
 * preempts), their victims' grace periods and the ReplicaSets' replacements. Prints the run's
 * CPU time, events, events/s, the ratio of virtual to CPU time (target >= 1000x), peak RSS
 * against the loaded model and the decisions digest (every event of the log hashed: the same
 * digest, the same decisions). `kubelets` adds every node's kubelet (an eviction pass every 10s)
 * and a memory leak on the pods of one ReplicaSet (leak() below), and prints the CPU time per
 * quiet pass, per pass that ran the eviction manager's step and per evicting pass.
 *
 *     bench_sim [NODES] [ARRIVALS] [kubelets]      (default 5000 10000) */
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

/* FNV-1a over the bytes and a separator: the decisions digest */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;
}
static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s ? s : "", s ? strlen(s) : 0); }

/* Every event of the log (time, type, reason, object, message, pod, node, cause) hashed in order:
 * the same digest = the same decisions, event for event. */
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

static void snapshot(buf_t *b, int nodes) {
    put(b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"batch\"},\"value\":100},");
    put(b, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
           "{\"name\":\"urgent\"},\"value\":100000}");
    put_nodes(b, nodes);
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

/* kubelets mode: the pods of ReplicaSet rs-0 (30 pods on 30 nodes, and their replacements) leak
 * memory from 1Gi at 2Gi a minute, so their nodes (64Gi) cross the kubelet's default hard
 * threshold (memory.available < 100Mi) about 32 minutes after each pod started: a few nodes come
 * under pressure and evict, every other node stays quiet. */
static void leak(kp_scenario *sc) {
    static char key[] = "app", op[] = "In", val[] = "rs-0", ns[] = "", mem[] = "memory",
                none[] = "";
    static char *vals[] = {val};
    static kp_selector_req req = {key, op, vals, 1};
    static kp_scenario_usage u;
    u.ns = ns;
    u.reqs = &req;
    u.n_reqs = 1;
    u.node = u.container = u.volume = u.trace_file = none; /* a pod entry, the whole pod */
    u.resource = mem;
    u.res = KP_USE_MEMORY;
    u.model = KP_USAGE_RAMP;
    u.start = (int64_t)1 << 30;
    u.per_minute = (int64_t)2 << 30;
    sc->usage = &u;
    sc->n_usage = 1;
}

/* CPU time per instant, sorted by what the instant's counters say it did (kubelets mode): only
 * kubelet passes that were all skipped (quiet), only passes some of which ran a step, passes with
 * an eviction (and what followed at that instant: the kill, the replacement and its attempt). */
typedef struct {
    double t;
    uint64_t instants, quiet, steps, evictions;
} cls_t;

static kp_status run_timed(kp_sim *sim, cls_t cls[3], kp_error *err) {
    bool more = true;
    kp_sim_counters a, b;
    kp_sim_counters_get(sim, &a);
    while (more) {
        double t0 = cpu_now();
        kp_status st = kp_sim_step(sim, &more, err);
        double dt = cpu_now() - t0;
        if (st != KP_OK) return st;
        kp_sim_counters_get(sim, &b);
        uint64_t q = b.kubelet_quiet_passes - a.kubelet_quiet_passes;
        uint64_t k = b.kubelet_steps - a.kubelet_steps;
        uint64_t ev = b.kubelet_evictions - a.kubelet_evictions;
        bool kubelet_only = b.attempts == a.attempts && b.pods_created == a.pods_created &&
                            b.victims == a.victims && b.pods_deleted == a.pods_deleted;
        int c = ev ? 2 : !kubelet_only || (q + k) == 0 ? -1 : k ? 1 : 0;
        if (c >= 0) {
            cls[c].t += dt;
            cls[c].instants++;
            cls[c].quiet += q;
            cls[c].steps += k;
            cls[c].evictions += ev;
        }
        a = b;
    }
    return KP_OK;
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
    if (kubelets) leak(sc);
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 3600 * 1000;
    o.kubelets = kubelets;
    kp_sim *sim = NULL;
    cls_t cls[3];
    memset(cls, 0, sizeof cls);
    double t0 = cpu_now();
    if (kp_sim_new(cl, NULL, sc, &o, &sim, &err) != KP_OK ||
        (kubelets ? run_timed(sim, cls, &err) : kp_sim_run(sim, &err)) != KP_OK) {
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
    printf("decisions=%016llx\n", (unsigned long long)events_digest(sim));
    if (kubelets) {
        printf("kubelets: %llu passes: %llu eviction-manager steps, %llu quiet passes skipped, "
               "%llu evictions\n",
               (unsigned long long)(c.kubelet_steps + c.kubelet_quiet_passes),
               (unsigned long long)c.kubelet_steps, (unsigned long long)c.kubelet_quiet_passes,
               (unsigned long long)c.kubelet_evictions);
        /* per pass: a quiet-only instant's time over its passes; a stepping instant's time less
         * its quiet passes, over its steps; an evicting instant's time less its quiet passes and
         * its other steps, over its evictions */
        double q = cls[0].quiet ? cls[0].t / (double)cls[0].quiet : 0;
        double k = cls[1].steps ? (cls[1].t - q * (double)cls[1].quiet) / (double)cls[1].steps : 0;
        double e = cls[2].evictions ? (cls[2].t - q * (double)cls[2].quiet -
                                       k * (double)(cls[2].steps - cls[2].evictions)) /
                                          (double)cls[2].evictions
                                    : 0;
        printf("kubelet-only instants: %llu quiet (%llu passes, %.3fs: %.0f ns per quiet pass), "
               "%llu with steps (%llu steps, %.3fs: %.1f us per step); %llu instants with "
               "evictions (%llu, %.3fs: %.1f us per evicting pass incl. kill and replacement)\n",
               (unsigned long long)cls[0].instants, (unsigned long long)cls[0].quiet, cls[0].t,
               q * 1e9, (unsigned long long)cls[1].instants, (unsigned long long)cls[1].steps,
               cls[1].t, k * 1e6, (unsigned long long)cls[2].instants,
               (unsigned long long)cls[2].evictions, cls[2].t, e * 1e6);
    }
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
