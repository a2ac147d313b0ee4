/* Scheduling-cycle benchmark (issue 3): builds a synthetic snapshot in memory (JSON), loads it,
 * and times kp_sched_run over the pending pods. Prints pods/s per workload:
 *   basic      N nodes holding 30 pods each, 10,000 pending pods, no inter-pod constraints
 *   affinity   same, 20% of pending pods carry required anti-affinity (hostname) or a
 *              DoNotSchedule topology spread constraint (zone)
 * Usage: bench_sched [NODES...]            basic workload only, at each node count
 *        bench_sched affinity [NODES...]   affinity workload only (default 5000 nodes)
 *        bench_sched --shape basic|affinity --nodes N [--pending P] [--pvc PCT]
 *                                          one shape, one size; --pending shrinks the run (e.g.
 *                                          under callgrind, where instruction counts compare two
 *                                          builds repeatably on a loaded machine); --pvc: PCT %
 *                                          of the pods (existing and pending) use a claim: every
 *                                          node has a CSINode (ebs.csi.aws.com, 39 volumes); an
 *                                          existing pod's claim is bound to a CSI PV with a
 *                                          VolumeAttachment on its node; a pending pod's claim is
 *                                          bound to a PV pinned to one zone (even pods) or not
 *                                          bound yet, of a WaitForFirstConsumer class whose
 *                                          provisioner allows every zone (odd pods)
 *        bench_sched --dra PCT [--nodes N] [--pending P]
 *                                          basic shape (default 5000 nodes) with 8 GPUs per node
 *                                          in ResourceSlices and PCT % of the pods with a one-GPU
 *                                          claim (bench_dra.h); the run is repeated on the
 *                                          literal reference path (the DRA index rebuilt from the
 *                                          cluster for every pod, nothing cached) and the two
 *                                          runs' decisions must be identical
 *        (no arguments: 1000 5000 15000 for basic, 5000 for affinity) */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kprio/cluster.h"
#include "kprio/sched.h"

#include "bench_buf.h"
#include "bench_dra.h"
#include "sched/framework.h"

static int pct_pvc = 0, pct_dra = -1;
static bool dra_reference;

/* A claim NAME in namespace NS, bound to PV pv-NAME (ebs.csi.aws.com, handle vol-NAME; pinned to
 * ZONE when zone >= 0), or not bound yet (class wffc) when pv is false. */
static void claim(buf_t *b, const char *name, unsigned ns, bool pv, int zone) {
    if (pv) {
        put(b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":"
            "\"pv-%s\"},\"spec\":{\"capacity\":{\"storage\":\"10Gi\"},\"accessModes\":["
            "\"ReadWriteOnce\"],\"storageClassName\":\"wffc\",\"claimRef\":{\"namespace\":"
            "\"ns-%u\",\"name\":\"%s\"},\"csi\":{\"driver\":\"ebs.csi.aws.com\","
            "\"volumeHandle\":\"vol-%s\"}",
            name, ns, name, name);
        if (zone >= 0)
            put(b,
                ",\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":"
                "[{\"key\":\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":["
                "\"zone-%d\"]}]}]}}",
                zone);
        put(b, "},\"status\":{\"phase\":\"Bound\"}}");
    }
    put(b,
        ",{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":"
        "\"%s\",\"namespace\":\"ns-%u\"%s},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
        "\"storageClassName\":\"wffc\",\"resources\":{\"requests\":{\"storage\":\"10Gi\"}}",
        name, ns, pv ? ",\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}" : "");
    if (pv) put(b, ",\"volumeName\":\"pv-%s\"", name);
    put(b, "},\"status\":{\"phase\":\"%s\"}}", pv ? "Bound" : "Pending");
}

/* Deterministic synthetic snapshot as a JSON List. */
static buf_t gen(int n_nodes, int pods_per_node, int n_pending, int pct_constrained) {
    buf_t b = {NULL, 0, 0};
    put(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    if (pct_pvc) {
        put(&b, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":"
                "{\"name\":\"wffc\"},\"provisioner\":\"ebs.csi.aws.com\","
                "\"volumeBindingMode\":\"WaitForFirstConsumer\"},");
        for (int i = 0; i < n_nodes; i++)
            put(&b,
                "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{"
                "\"name\":\"node-%05d\"},\"spec\":{\"drivers\":[{\"name\":\"ebs.csi.aws.com\","
                "\"nodeID\":\"i-%05d\",\"allocatable\":{\"count\":39}}]}},",
                i, i);
    }
    for (int i = 0; i < n_nodes; i++) {
        put(&b,
            "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\","
            "\"labels\":{"
            "\"kubernetes.io/hostname\":\"node-%05d\",\"topology.kubernetes.io/"
            "zone\":\"zone-%d\"}},"
            "\"status\":{\"allocatable\":{\"cpu\":\"32\",\"memory\":\"128Gi\",\"pods\":\"110\"}}}",
            i ? "," : "", i, i, i % 10);
    }
    unsigned seq = 0;
    char vols[160], cname[32];
    for (int i = 0; i < n_nodes; i++) {
        for (int k = 0; k < pods_per_node; k++, seq++) {
            vols[0] = 0;
            if (pct_pvc && (int)(seq * 7 % 100) < pct_pvc) {
                snprintf(cname, sizeof cname, "data-run-%07u", seq);
                claim(&b, cname, seq % 20, true, -1);
                put(&b,
                    ",{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"VolumeAttachment\","
                    "\"metadata\":{\"name\":\"csi-%s\"},\"spec\":{\"attacher\":"
                    "\"ebs.csi.aws.com\",\"nodeName\":\"node-%05d\",\"source\":{"
                    "\"persistentVolumeName\":\"pv-%s\"}}}",
                    cname, i, cname);
                snprintf(vols, sizeof vols,
                         ",\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{"
                         "\"claimName\":\"%s\"}}]",
                         cname);
            }
            put(&b,
                ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"run-%07u\","
                "\"namespace\":\"ns-%u\","
                "\"labels\":{\"app\":\"svc-%u\"}},\"spec\":{\"nodeName\":\"node-%05d\","
                "\"priority\":%u,"
                "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"%um\","
                "\"memory\":\"%uMi\"}}}]%s},"
                "\"status\":{\"phase\":\"Running\"}}",
                seq, seq % 20, seq % 100, i, (seq % 4) * 100, 200 + (seq % 5) * 100,
                256 + (seq % 4) * 256, vols);
        }
    }
    for (int j = 0; j < n_pending; j++) {
        const char *extra = "";
        char aff[512];
        if (pct_constrained && (j % 100) < pct_constrained) {
            if (j % 2)
                snprintf(aff, sizeof aff,
                         ",\"affinity\":{\"podAntiAffinity\":{"
                         "\"requiredDuringSchedulingIgnoredDuringExecution\":"
                         "[{\"labelSelector\":{\"matchLabels\":{\"app\":\"new-%d\"}},"
                         "\"topologyKey\":\"kubernetes.io/hostname\"}]}}",
                         j % 50);
            else
                snprintf(aff, sizeof aff,
                         ",\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":"
                         "\"topology.kubernetes.io/zone\","
                         "\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{"
                         "\"matchLabels\":{\"app\":\"new-%d\"}}}]",
                         j % 50);
            extra = aff;
        }
        char vol[160];
        if (pct_pvc && (j * 7 % 100) < pct_pvc) {
            snprintf(cname, sizeof cname, "data-new-%06d", j);
            claim(&b, cname, (unsigned)(j % 20), j % 2 == 0, j % 10);
            snprintf(vol, sizeof vol,
                     ",\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{"
                     "\"claimName\":\"%s\"}}]",
                     cname);
            if (!*extra) extra = vol;
        }
        put(&b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"new-%06d\","
            "\"namespace\":\"ns-%d\","
            "\"labels\":{\"app\":\"new-%d\"}},\"spec\":{\"priority\":%d,"
            "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"250m\","
            "\"memory\":\"512Mi\"}}}]%s},"
            "\"status\":{\"phase\":\"Pending\"}}",
            j, j % 20, j % 50, (j % 3) * 100, extra);
    }
    put(&b, "]}");
    return b;
}

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this thread: less disturbed than wall time by other load on a shared machine */
static double cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static int pending = 10000;
static uint64_t last_digest;

static int run(const char *label, int n_nodes, int pct) {
    const int per_node = 30;
    buf_t b = gen(n_nodes, per_node, pending, pct);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl || kp_cluster_load_buffer(cl, "bench.json", b.p, b.len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench_sched: load failed: %s\n", err.msg);
        return 1;
    }
    free(b.p);
    if (pct_dra >= 0) bench_dra_add(cl, pct_dra);
    kp_sched *s = NULL;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 1;
    if (kp_sched_new(cl, NULL, &o, &s, &err) != KP_OK) {
        fprintf(stderr, "bench_sched: %s\n", err.msg);
        return 1;
    }
    s->dra_reference = dra_reference;
    double t0 = now_s(), c0 = cpu_s();
    if (kp_sched_run(s, &err) != KP_OK) {
        fprintf(stderr, "bench_sched: run failed: %s\n", err.msg);
        return 1;
    }
    double dt = now_s() - t0, dc = cpu_s() - c0;
    size_t bound = 0, n = kp_sched_result_count(s);
    uint64_t sum =
        1469598103934665603ULL; /* FNV-1a over (outcome, node) per result: decisions digest */
    for (size_t i = 0; i < n; i++) {
        const kp_sched_pod_result *rp = kp_sched_result(s, i);
        const kp_sched_pod_result r = *rp;
        bound += r.outcome == KP_OUTCOME_BOUND;
        const char *nd = r.node >= 0 ? kp_cluster_node_name(cl, r.node) : "-";
        sum = (sum ^ (uint64_t)r.outcome) * 1099511628211ULL;
        for (; *nd; nd++) sum = (sum ^ (uint8_t)*nd) * 1099511628211ULL;
    }
    printf("%-9s nodes=%-6d existing=%-7d pending=%-6d bound=%-6zu time=%.3fs  %.0f pods/s  "
           "cpu=%.3fs  %.0f pods/cpu-s  decisions=%016llx",
           label, n_nodes, n_nodes * per_node, pending, bound, dt, (double)n / dt, dc,
           (double)n / dc, (unsigned long long)sum);
    if (pct_pvc) printf("  pvc=%d%%", pct_pvc);
    if (pct_dra >= 0) printf("  dra=%d%%%s", pct_dra, dra_reference ? " (reference)" : "");
    printf("\n");
    last_digest = sum;
    kp_sched_free(s);
    kp_cluster_free(cl);
    return 0;
}

int main(int argc, char **argv) {
    int rc = 0;
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
        const char *shape = "basic";
        int nodes = 1000;
        for (int i = 1; i < argc; i++) {
            if (i + 1 < argc && strcmp(argv[i], "--shape") == 0) shape = argv[++i];
            else if (i + 1 < argc && strcmp(argv[i], "--nodes") == 0)
                nodes = (int)strtol(argv[++i], NULL, 10);
            else if (i + 1 < argc && strcmp(argv[i], "--pending") == 0)
                pending = (int)strtol(argv[++i], NULL, 10);
            else if (i + 1 < argc && strcmp(argv[i], "--pvc") == 0)
                pct_pvc = (int)strtol(argv[++i], NULL, 10);
            else if (i + 1 < argc && strcmp(argv[i], "--dra") == 0) {
                pct_dra = (int)strtol(argv[++i], NULL, 10);
                if (nodes == 1000) nodes = 5000;
            } else {
                fprintf(stderr, "usage: bench_sched --shape basic|affinity --nodes N [--pending P] "
                                "[--pvc PCT] [--dra PCT]\n");
                return 2;
            }
        }
        if (strcmp(shape, "basic") != 0 && strcmp(shape, "affinity") != 0) {
            fprintf(stderr, "bench_sched: unknown shape %s (basic, affinity)\n", shape);
            return 2;
        }
        if (pct_dra < 0) return run(shape, nodes, strcmp(shape, "affinity") == 0 ? 20 : 0);
        if (run("dra", nodes, 0)) return 1;
        uint64_t fast = last_digest;
        dra_reference = true;
        if (run("dra", nodes, 0)) return 1;
        printf("identical decisions: %s\n", fast == last_digest ? "yes" : "NO");
        return fast == last_digest ? 0 : 1;
    }
    if (argc > 1 && strcmp(argv[1], "affinity") == 0) {
        if (argc == 2) return run("affinity", 5000, 20);
        for (int i = 2; i < argc; i++) rc |= run("affinity", (int)strtol(argv[i], NULL, 10), 20);
        return rc;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++) rc |= run("basic", (int)strtol(argv[i], NULL, 10), 0);
        return rc;
    }
    rc |= run("basic", 1000, 0);
    rc |= run("basic", 5000, 0);
    rc |= run("basic", 15000, 0);
    rc |= run("affinity", 5000, 20);
    return rc;
}
