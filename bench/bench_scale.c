/* Scaling benchmark (issue 20): one shape of a real cluster (1,000 nodes, 20 bound pods each,
 * 1,000 pending pods of which 5% are large high-priority preemptors), one dimension grown at a
 * time. One process runs one (dimension, size): it builds the snapshot in memory (JSON), loads it,
 * and times kp_sched_run; bench/run.sh --scale runs every size of every dimension in its own
 * process (so the peak RSS is that size's) and prints the growth exponent between the two largest
 * sizes.
 *
 * Usage: bench_scale DIMENSION N [--nodes K]   one run; prints one line
 *        bench_scale --list                    the dimensions and their default sizes
 *        (no arguments: the smallest size of every dimension, a smoke run)
 *
 * Dimensions (N is the size of the grown one):
 *   pdbs-ok          N PDBs, each selecting 20000/N pods, budgets no victim can exhaust
 *   pdbs-unsorted    pdbs-ok with the PDBs in scrambled input order (not namespace/name)
 *   pdbs-covered     N PDBs covering every pod, no disruptions allowed (every victim violates)
 *   pending-preempt  N pending pods, 5% preempting
 *   pending-none     N pending pods, none preempting (the schedule-only reference)
 *   pods-per-node    N bound pods per node (requests scaled: the nodes stay as full)
 *   affinity-terms   N required anti-affinity terms per pending pod
 *   labels           N labels per pod
 *   namespaces       N namespaces (pods spread over them)
 *   priority-classes N PriorityClasses (pods reference them)
 *   nominated        N pending pods nominated to each of 10 nodes
 *   spread-matching  N bound pods (N / nodes per node, requests scaled), every one matching the
 *                    hard zone spread constraint each small pending pod carries (PreFilter counts
 *                    the matching pods of its namespace: N / 20)
 *
 * The `decisions` digest (FNV-1a over every result's outcome and node) compares two builds. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kprio/cluster.h"
#include "kprio/sched.h"

#include "bench_buf.h"

typedef struct {
    int nodes, per_node; /* bound pods per node */
    int pending, pct_preempt; /* pending pods; percent of them large and high-priority */
    int pdbs, pdb_allowed;
    bool pdbs_scrambled; /* PDBs in an input order other than namespace/name */
    int labels; /* labels per pod (app + extra) */
    int terms; /* required anti-affinity terms per pending pod */
    int namespaces, classes;
    int nominated; /* pending pods nominated to each of nodes 0..9 */
    bool spread; /* small pending pods spread over zones; every pod matches their selector */
} shape_t;

static const shape_t base = {.nodes = 1000,
                             .per_node = 20,
                             .pending = 1000,
                             .pct_preempt = 5,
                             .labels = 2,
                             .namespaces = 20,
                             .classes = 4};

typedef struct {
    const char *name;
    int sizes[4];
} dim_t;

static const dim_t dims[] = {
    {"pdbs-ok", {100, 1000, 3000, 10000}},
    {"pdbs-unsorted", {100, 1000, 3000, 10000}},
    {"pdbs-covered", {100, 1000, 3000, 10000}},
    {"pending-preempt", {3000, 10000, 20000, 50000}},
    {"pending-none", {3000, 10000, 20000, 50000}},
    {"pods-per-node", {5, 20, 50, 100}},
    {"affinity-terms", {1, 3, 10, 30}},
    {"labels", {3, 10, 30, 100}},
    {"namespaces", {20, 200, 2000, 10000}},
    {"priority-classes", {10, 100, 1000, 10000}},
    {"nominated", {10, 30, 100, 300}},
    {"spread-matching", {3000, 10000, 30000, 100000}},
};
#define N_DIMS (sizeof dims / sizeof dims[0])

static bool apply(shape_t *s, const char *dim, int n) {
    if (strcmp(dim, "pdbs-ok") == 0) {
        s->pdbs = n;
        s->pdb_allowed = 1000000000;
    } else if (strcmp(dim, "pdbs-unsorted") == 0) {
        s->pdbs = n;
        s->pdb_allowed = 1000000000;
        s->pdbs_scrambled = true;
    } else if (strcmp(dim, "pdbs-covered") == 0) {
        s->pdbs = n;
        s->pdb_allowed = 0;
    } else if (strcmp(dim, "pending-preempt") == 0) {
        s->pending = n;
    } else if (strcmp(dim, "pending-none") == 0) {
        s->pending = n;
        s->pct_preempt = 0;
    } else if (strcmp(dim, "pods-per-node") == 0) {
        s->per_node = n;
    } else if (strcmp(dim, "affinity-terms") == 0) {
        s->terms = n;
    } else if (strcmp(dim, "labels") == 0) {
        s->labels = n < 1 ? 1 : n;
    } else if (strcmp(dim, "namespaces") == 0) {
        s->namespaces = n < 1 ? 1 : n;
    } else if (strcmp(dim, "priority-classes") == 0) {
        s->classes = n < 1 ? 1 : n;
    } else if (strcmp(dim, "nominated") == 0) {
        s->nominated = n;
    } else if (strcmp(dim, "spread-matching") == 0) {
        s->spread = true;
        s->per_node = n / s->nodes > 0 ? n / s->nodes : 1;
    } else {
        return false;
    }
    return true;
}

/* Labels of a pod: app, pdb (when there are PDBs) and labels - 1 more. */
static void put_labels(buf_t *b, const shape_t *s, const char *app, unsigned seq) {
    put(b, "\"labels\":{\"app\":\"%s\"", app);
    if (s->pdbs > 0) put(b, ",\"pdb\":\"p-%u\"", seq % (unsigned)s->pdbs);
    if (s->spread) put(b, ",\"grp\":\"g\"");
    for (int k = 1; k < s->labels; k++) put(b, ",\"l-%d\":\"v-%u\"", k, (seq + (unsigned)k) % 7);
    put(b, "}");
}

static void gen_cluster_objects(buf_t *b, const shape_t *s) {
    int64_t cpu_m = 64000, pods_cap = s->per_node + 150;
    put(b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int i = 0; i < s->nodes; i++)
        put(b,
            "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\","
            "\"labels\":{\"kubernetes.io/hostname\":\"node-%05d\","
            "\"topology.kubernetes.io/zone\":\"zone-%d\"}},"
            "\"status\":{\"allocatable\":{\"cpu\":\"%lldm\",\"memory\":\"256Gi\",\"pods\":\"%lld\"}"
            "}}",
            i ? "," : "", i, i, i % 10, (long long)cpu_m, (long long)pods_cap);
    for (int i = 0; i < s->namespaces; i++)
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns-%d\","
            "\"labels\":{\"team\":\"t-%d\"}}}",
            i, i % 10);
    for (int i = 0; i < s->classes; i++)
        put(b,
            ",{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
            "\"metadata\":{\"name\":\"pc-%d\"},\"value\":%d}",
            i, (i % 4) * 100);
    put(b, ",{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
           "\"metadata\":{\"name\":\"urgent\"},\"value\":1000}");
    /* PDB i selects the pods with seq % pdbs == i, all in ns-(i % namespaces) when pdbs is a
     * multiple of namespaces (the default sizes are) */
    for (int k = 0; k < s->pdbs; k++) {
        /* scrambled: a permutation (7919 is prime, the sizes are not multiples of it) */
        int i = s->pdbs_scrambled ? (int)((int64_t)k * 7919 % s->pdbs) : k;
        put(b,
            ",{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\","
            "\"metadata\":{\"name\":\"pdb-%05d\",\"namespace\":\"ns-%d\"},"
            "\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":{\"pdb\":\"p-%d\"}}},"
            "\"status\":{\"disruptionsAllowed\":%d,\"currentHealthy\":3,\"desiredHealthy\":1,"
            "\"expectedPods\":3}}",
            i, i % s->namespaces, i, s->pdb_allowed);
    }
}

static void gen_bound(buf_t *b, const shape_t *s) {
    int64_t per_pod_m = 30000 / s->per_node; /* ~30 of 64 cpus used whatever the count */
    unsigned seq = 0;
    for (int i = 0; i < s->nodes; i++) {
        for (int k = 0; k < s->per_node; k++, seq++) {
            char app[32];
            snprintf(app, sizeof app, "svc-%u", seq % 2000);
            unsigned cls = seq % (unsigned)s->classes;
            put(b,
                ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"run-%07u\","
                "\"namespace\":\"ns-%u\",",
                seq, seq % (unsigned)s->namespaces);
            put_labels(b, s, app, seq);
            put(b,
                "},\"spec\":{\"nodeName\":\"node-%05d\",\"priorityClassName\":\"pc-%u\","
                "\"priority\":%u,\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{"
                "\"cpu\":\"%lldm\",\"memory\":\"%uMi\"}}}]},"
                "\"status\":{\"phase\":\"Running\",\"startTime\":\"2024-01-01T00:%02u:%02uZ\"}}",
                i, cls, (cls % 4) * 100, (long long)(per_pod_m - (int64_t)(seq % 3) * 10),
                256 + (seq % 4) * 128, seq / 60 % 60, seq % 60);
        }
    }
}

static void gen_terms(buf_t *b, const shape_t *s, int j) {
    if (s->terms <= 0) return;
    put(b, ",\"affinity\":{\"podAntiAffinity\":{"
           "\"requiredDuringSchedulingIgnoredDuringExecution\":[");
    for (int t = 0; t < s->terms; t++)
        put(b,
            "%s{\"labelSelector\":{\"matchLabels\":{\"app\":\"new-%d\"}},"
            "\"topologyKey\":\"kubernetes.io/hostname\"}",
            t ? "," : "", (j + t * 7) % 5000 + 50);
    put(b, "]}}");
}

static void gen_pending(buf_t *b, const shape_t *s) {
    int total = s->pending + s->nominated * 10;
    for (int j = 0; j < total; j++) {
        bool nominated = j >= s->pending;
        bool big = !nominated && s->pct_preempt > 0 && (j % 100) < s->pct_preempt;
        char app[32];
        snprintf(app, sizeof app, "new-%d", j % 50);
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"new-%06d\","
            "\"namespace\":\"ns-%d\",",
            j, j % s->namespaces);
        put_labels(b, s, app, (unsigned)j);
        put(b, "},\"spec\":{");
        if (big) put(b, "\"priorityClassName\":\"urgent\",\"priority\":1000,");
        else put(b, "\"priority\":%d,", (j % 3) * 100);
        put(b,
            "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"%s\","
            "\"memory\":\"128Mi\"}}}]",
            big ? "40" : "100m");
        if (!big) gen_terms(b, s, j);
        if (!big && s->spread)
            put(b, ",\"topologySpreadConstraints\":[{\"maxSkew\":1000000,"
                   "\"topologyKey\":\"topology.kubernetes.io/zone\","
                   "\"whenUnsatisfiable\":\"DoNotSchedule\","
                   "\"labelSelector\":{\"matchLabels\":{\"grp\":\"g\"}}}]");
        put(b, "},\"status\":{\"phase\":\"Pending\"");
        if (nominated) put(b, ",\"nominatedNodeName\":\"node-%05d\"", (j - s->pending) % 10);
        put(b, "}}");
    }
    put(b, "]}");
}

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(const char *dim, int n, int nodes) {
    shape_t s = base;
    if (nodes > 0) s.nodes = nodes;
    if (!apply(&s, dim, n)) {
        fprintf(stderr, "bench_scale: unknown dimension %s (bench_scale --list)\n", dim);
        return 2;
    }
    buf_t b = {NULL, 0, 0};
    gen_cluster_objects(&b, &s);
    gen_bound(&b, &s);
    gen_pending(&b, &s);
    kp_error err;
    kp_error_clear(&err);
    double l0 = clock_s(CLOCK_MONOTONIC);
    kp_cluster *cl = kp_cluster_new();
    if (!cl || kp_cluster_load_buffer(cl, "scale.json", b.p, b.len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench_scale: load failed: %s\n", err.msg);
        return 1;
    }
    double load_s = clock_s(CLOCK_MONOTONIC) - l0;
    free(b.p);
    kp_sched *sc = NULL;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 1;
    if (kp_sched_new(cl, NULL, &o, &sc, &err) != KP_OK) {
        fprintf(stderr, "bench_scale: %s\n", err.msg);
        return 1;
    }
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (kp_sched_run(sc, &err) != KP_OK) {
        fprintf(stderr, "bench_scale: run failed: %s\n", err.msg);
        return 1;
    }
    double dt = clock_s(CLOCK_MONOTONIC) - t0, dc = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    size_t bound = 0, nom = 0, nr = kp_sched_result_count(sc);
    uint64_t sum = 1469598103934665603ULL;
    for (size_t i = 0; i < nr; i++) {
        const kp_sched_pod_result *r = kp_sched_result(sc, i);
        bound += r->outcome == KP_OUTCOME_BOUND;
        nom += r->outcome == KP_OUTCOME_NOMINATED;
        const char *nd = r->node >= 0 ? kp_cluster_node_name(cl, r->node) : "-";
        sum = (sum ^ (uint64_t)r->outcome) * 1099511628211ULL;
        for (; *nd; nd++) sum = (sum ^ (uint8_t)*nd) * 1099511628211ULL;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("dim=%s n=%d nodes=%d pods=%zu results=%zu bound=%zu nominated=%zu load=%.3fs "
           "run=%.3fs cpu=%.3fs maxrss=%ldkB decisions=%016llx\n",
           dim, n, s.nodes, kp_cluster_pod_count(cl), nr, bound, nom, load_s, dt, dc,
           (long)ru.ru_maxrss, (unsigned long long)sum);
    kp_sched_free(sc);
    kp_cluster_free(cl);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t d = 0; d < N_DIMS; d++)
            printf("%s %d %d %d %d\n", dims[d].name, dims[d].sizes[0], dims[d].sizes[1],
                   dims[d].sizes[2], dims[d].sizes[3]);
        return 0;
    }
    if (argc == 1) { /* smoke: smallest size of each dimension, on 100 nodes */
        int rc = 0;
        for (size_t d = 0; d < N_DIMS; d++) rc |= run(dims[d].name, dims[d].sizes[0], 100);
        return rc;
    }
    int nodes = 0;
    if (argc == 5 && strcmp(argv[3], "--nodes") == 0) nodes = (int)strtol(argv[4], NULL, 10);
    else if (argc != 3) {
        fprintf(stderr, "usage: bench_scale DIMENSION N [--nodes K] | --list\n");
        return 2;
    }
    return run(argv[1], (int)strtol(argv[2], NULL, 10), nodes);
}
