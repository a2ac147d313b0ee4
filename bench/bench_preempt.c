/* Preemption benchmark (a program, not a test).
 *
 *   build/bench/bench_preempt [--nodes N] [--pods-per-node K] [--decisions D] [--basic-nodes B]
 *                             [--reference R]   (R: decisions also run on the reference path, 50)
 *                             [--rounds K]      (K: rounds of the D decisions, median reported, 5)
 *                             [--pvc PCT]       (PCT % of the pods use a claim, 0)
 *                             [--dra PCT]       (8 GPUs per node, PCT % of the pods with a
 *                                                one-GPU ResourceClaim: bench_dra.h)
 *
 * 1. Decisions: N nodes (cpu 4, 32Gi, 110 pods) each holding K pods of 130m in three priority
 *    bands (0, 100, 1000); D preemptors of priority 500 with requests 600m..2000m. Each decision
 *    is one DefaultPreemption PostFilter (default args: 10 % / 100 candidates) with an injected
 *    offset, run with the optimised path and with the reference path (naive, every Filter from
 *    scratch) on the same input; decisions (node, victims, PDB violations) must be identical.
 *    Prints the median decisions/s over K rounds (each round repeats the same D decisions and
 *    must repeat round 0's results), the reference path's rate (round 0) and the ratio (thread
 *    CPU time of the PostFilter calls only: stable on a shared VM; the Filter pass that produces
 *    the statuses, and the compact code copy the scheduler would keep, is not timed). Target:
 *    >= 10,000 decisions/s at 5,000 nodes / 150,000 pods.
 *    --pvc: every node has a CSINode (ebs.csi.aws.com, 39 volumes); PCT % of the existing pods
 *    and of the preemptors use a claim bound to a CSI PV (an existing pod's with a
 *    VolumeAttachment on its node), so VolumeBinding, VolumeZone, NodeVolumeLimits and
 *    VolumeRestrictions run and the dry run re-runs every Filter for those preemptors.
 *    --dra: every node publishes 8 GPUs in a ResourceSlice; PCT % of the existing pods hold one
 *    (at most 4 per node) and PCT % of the preemptors claim one, so DynamicResources runs in
 *    their Filter and dry runs (no device is freed by a victim: v1.37 has no DRA preemption).
 * 2. PreemptionBasic shape: B nodes (cpu 4, 32Gi, 110 pods), 4 low-priority 900m/500Mi pods each,
 *    B high-priority 3970m/500Mi preemptors scheduled with kp_sched_run (victims terminate,
 *    nominations reserve). Prints pods/s; must complete.
 * Exit 1 if the two paths disagree. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cluster.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "sched/cycle.h"
#include "sched/framework.h"

#include "bench_dra.h"
#include "sched/nominator.h"
#include "sched/preempt/preempt.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this thread: on a shared VM it excludes time the vCPU was not running us. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
bput(buf_t *b, const char *fmt, ...);

static void bput(buf_t *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap * 2 + 4096;
        char *np = realloc(b->p, nc);
        if (!np) {
            fprintf(stderr, "bench_preempt: out of memory\n");
            exit(1);
        }
        b->p = np;
        b->cap = nc;
    }
}

static void node_json(buf_t *b, int i, bool *first) {
    bput(b,
         "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\","
         "\"labels\":{\"kubernetes.io/hostname\":\"node-%05d\"}},\"status\":{\"allocatable\":"
         "{\"cpu\":\"4\",\"memory\":\"32Gi\",\"pods\":\"110\"},\"capacity\":{\"cpu\":\"4\","
         "\"memory\":\"32Gi\",\"pods\":\"110\"}}}",
         *first ? "" : ",", i, i);
    *first = false;
}

static int pct_pvc = 0, pct_dra = -1;

/* Claim data-NAME bound to CSI PV pv-NAME (with a VolumeAttachment on node when node >= 0). */
static void claim_json(buf_t *b, const char *name, int node, bool *first) {
    bput(b,
         "%s{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":"
         "\"pv-%s\"},\"spec\":{\"capacity\":{\"storage\":\"10Gi\"},\"accessModes\":["
         "\"ReadWriteOnce\"],\"claimRef\":{\"namespace\":\"default\",\"name\":\"data-%s\"},"
         "\"csi\":{\"driver\":\"ebs.csi.aws.com\",\"volumeHandle\":\"vol-%s\"}}},"
         "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":"
         "\"data-%s\",\"namespace\":\"default\",\"annotations\":{"
         "\"pv.kubernetes.io/bind-completed\":\"yes\"}},\"spec\":{\"accessModes\":["
         "\"ReadWriteOnce\"],\"volumeName\":\"pv-%s\"},\"status\":{\"phase\":\"Bound\"}}",
         *first ? "" : ",", name, name, name, name, name);
    *first = false;
    if (node >= 0)
        bput(b,
             ",{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"VolumeAttachment\",\"metadata\":"
             "{\"name\":\"csi-%s\"},\"spec\":{\"attacher\":\"ebs.csi.aws.com\",\"nodeName\":"
             "\"node-%05d\",\"source\":{\"persistentVolumeName\":\"pv-%s\"}}}",
             name, node, name);
}

static void pod_json(buf_t *b, const char *name, int node, int prio, int cpu_m, const char *mem,
                     int start, bool *first) {
    static unsigned seq;
    bool pvc = pct_pvc && (int)(seq++ * 7 % 100) < pct_pvc;
    if (pvc) claim_json(b, name, node, first);
    bput(b,
         "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
         "\"namespace\":\"default\",\"uid\":\"uid-%s\"},\"spec\":{\"priority\":%d,",
         *first ? "" : ",", name, name, prio);
    *first = false;
    if (pvc)
        bput(b,
             "\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":"
             "\"data-%s\"}}],",
             name);
    if (node >= 0) bput(b, "\"nodeName\":\"node-%05d\",", node);
    bput(b,
         "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"%dm\","
         "\"memory\":\"%s\"}}}]},\"status\":{\"phase\":\"%s\"",
         cpu_m, mem, node >= 0 ? "Running" : "Pending");
    if (start >= 0)
        bput(b, ",\"startTime\":\"2024-01-01T%02d:%02d:%02dZ\"", start / 3600 % 24, start / 60 % 60,
             start % 60);
    bput(b, "}}");
}

static kp_cluster *load(buf_t *b) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (kp_cluster_load_buffer(cl, "bench.json", b->p, b->len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench_preempt: load: %s\n", err.msg);
        exit(1);
    }
    return cl;
}

/* One decision; statuses computed by a Filter pass (not timed). */
typedef struct {
    int32_t node;
    uint32_t n_victims;
    uint32_t victims[128];
    int32_t viol;
} decision;

static double decide(kp_sched *s, kp_cluster *cl, uint32_t pod, long offset, bool reference,
                     kp_node_status *st, uint8_t *codes, decision *d, uint64_t *calls) {
    kp_node_status pre;
    kp_error err;
    kp__status_reset(&pre);
    kp_cycle *c = kp__cycle_new(s, pod, &pre);
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        kp__cycle_filter(c, i, &st[i]);
        if (codes) codes[i] = kp__preempt_status_code(&st[i]);
    }
    kp_preempt_opts o;
    kp__preempt_opts_default(&o);
    o.codes = codes;
    o.reference = reference;
    o.offset = offset;
    o.tie = 0;
    kp_preempt_result r;
    double t0 = cpu_s();
    if (kp__preempt_postfilter_ex(s, c, pod, st, false, &o, &r, &err) != KP_OK) {
        fprintf(stderr, "bench_preempt: %s\n", err.msg);
        exit(1);
    }
    double t = cpu_s() - t0;
    d->node = r.node;
    d->viol = r.pdb_violations;
    d->n_victims = r.n_victims < 128 ? r.n_victims : 128;
    memcpy(d->victims, r.victims, d->n_victims * sizeof *d->victims);
    *calls += o.filter_calls;
    kp__preempt_result_fini(&r);
    kp__cycle_free(c);
    return t;
}

static bool same_decision(const decision *a, const decision *b) {
    return a->node == b->node && a->n_victims == b->n_victims && a->viol == b->viol &&
           memcmp(a->victims, b->victims, a->n_victims * sizeof *a->victims) == 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bench_decisions(int n_nodes, int per_node, int n_dec, int n_ref_max, int rounds) {
    buf_t b = {0};
    bool first = true;
    bput(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int i = 0; i < n_nodes; i++) node_json(&b, i, &first);
    for (int i = 0; pct_pvc && i < n_nodes; i++)
        bput(&b,
             ",{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{"
             "\"name\":\"node-%05d\"},\"spec\":{\"drivers\":[{\"name\":\"ebs.csi.aws.com\","
             "\"nodeID\":\"i-%05d\",\"allocatable\":{\"count\":39}}]}}",
             i, i);
    char name[64];
    for (int i = 0; i < n_nodes; i++)
        for (int k = 0; k < per_node; k++) {
            snprintf(name, sizeof name, "r-%05d-%03d", i, k);
            int prio = k % 3 == 0 ? 0 : k % 3 == 1 ? 100 : 1000;
            pod_json(&b, name, i, prio, 130, "100Mi", (i * 31 + k * 17) % 86400, &first);
        }
    for (int d = 0; d < n_dec; d++) {
        snprintf(name, sizeof name, "pre-%05d", d);
        pod_json(&b, name, -1, 500, 600 + (d * 97) % 1400, "200Mi", -1, &first);
    }
    bput(&b, "]}");
    double t0 = now_s();
    kp_cluster *cl = load(&b);
    free(b.p);
    if (pct_dra >= 0) bench_dra_add(cl, pct_dra);
    printf("decisions: %d nodes, %zu pods loaded in %.2f s", n_nodes, kp_cluster_pod_count(cl),
           now_s() - t0);
    if (pct_pvc) printf(" (claims: %d%% of the pods)", pct_pvc);
    if (pct_dra >= 0) printf(" (8 GPUs per node, resource claims: %d%% of the pods)", pct_dra);
    printf("\n");

    kp_sched_options so;

    kp_sched_options_init(&so);
    kp_sched *s = NULL;
    kp_error err;
    if (kp_sched_new(cl, NULL, &so, &s, &err) != KP_OK) {
        fprintf(stderr, "bench_preempt: %s\n", err.msg);
        return 1;
    }
    kp_node_status *st = calloc(cl->n_nodes, sizeof *st);
    uint8_t *codes = calloc(cl->n_nodes, 1);
    decision *round0 = calloc((size_t)n_dec, sizeof *round0);
    double *rates = calloc((size_t)rounds, sizeof *rates);
    if (!st || !codes || !round0 || !rates) {
        fprintf(stderr, "bench_preempt: out of memory\n");
        exit(1);
    }
    double t_fast = 0, t_ref = 0;
    uint64_t c_fast = 0, c_ref = 0;
    int n_ref = n_dec < n_ref_max ? n_dec : n_ref_max, bad = 0;
    /* round 0 also runs the reference path; every round must repeat round 0's decisions */
    for (int round = 0; round < rounds; round++) {
        double t_round = 0;
        for (int d = 0; d < n_dec; d++) {
            snprintf(name, sizeof name, "default/pre-%05d", d);
            kp_index pod = kp_cluster_find_pod(cl, name);
            long offset = (long)((d * 7919L) % n_nodes);
            decision a, r;
            t_round += decide(s, cl, (uint32_t)pod, offset, false, st, codes, &a, &c_fast);
            if (round > 0) {
                if (!same_decision(&a, &round0[d])) {
                    fprintf(stderr, "bench_preempt: round %d decision %d differs from round 0\n",
                            round, d);
                    bad++;
                }
                continue;
            }
            round0[d] = a;
            if (d < n_ref) {
                t_ref += decide(s, cl, (uint32_t)pod, offset, true, st, codes, &r, &c_ref);
                if (!same_decision(&a, &r)) {
                    fprintf(
                        stderr,
                        "bench_preempt: decision %d differs (node %d vs %d, %u vs %u victims)\n", d,
                        a.node, r.node, a.n_victims, r.n_victims);
                    bad++;
                }
            }
        }
        rates[round] = n_dec / t_round;
        t_fast += t_round;
    }
    qsort(rates, (size_t)rounds, sizeof *rates, cmp_double);
    double fast_rate = rates[rounds / 2], ref_rate = n_ref / t_ref;
    printf("optimised: %d rounds of %d decisions (%.3f s CPU), median %.0f decisions/s (min %.0f, "
           "max %.0f; %.1f filter calls/decision)\n",
           rounds, n_dec, t_fast, fast_rate, rates[0], rates[rounds - 1],
           (double)c_fast / ((double)n_dec * rounds));
    if (n_ref > 0) {
        printf(
            "reference: %d decisions in %.3f s = %.0f decisions/s (%.1f filter calls/decision)\n",
            n_ref, t_ref, ref_rate, (double)c_ref / n_ref);
        printf("identical decisions: %s; speed ratio optimised/reference: %.1fx\n",
               bad ? "NO" : "yes", fast_rate / ref_rate);
    }
    free(rates);
    free(round0);
    free(codes);
    free(st);
    kp_sched_free(s);
    kp_cluster_free(cl);
    return bad ? 1 : 0;
}

static int bench_basic(int n_nodes) {
    buf_t b = {0};
    bool first = true;
    char name[64];
    bput(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int i = 0; i < n_nodes; i++) node_json(&b, i, &first);
    for (int i = 0; i < n_nodes; i++)
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "init-%05d-%d", i, k);
            pod_json(&b, name, i, 0, 900, "500Mi", i % 86400, &first);
        }
    for (int d = 0; d < n_nodes; d++) {
        snprintf(name, sizeof name, "high-%05d", d);
        pod_json(&b, name, -1, 10000, 3970, "500Mi", -1, &first);
    }
    bput(&b, "]}");
    kp_cluster *cl = load(&b);
    free(b.p);
    kp_sched_options so;
    kp_sched_options_init(&so);
    kp_sched *s = NULL;
    kp_error err;
    if (kp_sched_new(cl, NULL, &so, &s, &err) != KP_OK) {
        fprintf(stderr, "bench_preempt: %s\n", err.msg);
        return 1;
    }
    double t0 = now_s(), c0 = cpu_s();
    if (kp_sched_run(s, &err) != KP_OK) {
        fprintf(stderr, "bench_preempt: %s\n", err.msg);
        return 1;
    }
    double t = now_s() - t0, tc = cpu_s() - c0;
    size_t nominated = 0, victims = 0;
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *rp = kp_sched_result(s, i);
        const kp_sched_pod_result r = *rp;
        if (r.outcome == KP_OUTCOME_NOMINATED) nominated++;
        victims += r.n_victims;
    }
    printf("PreemptionBasic shape: %d nodes, %d preemptors through kp_sched_run: completed in "
           "%.2f s wall / %.2f s CPU (%.0f pods/s wall, %.0f pods/s CPU), %zu nominated, %zu "
           "victims\n",
           n_nodes, n_nodes, t, tc, n_nodes / t, n_nodes / tc, nominated, victims);
    kp_sched_free(s);
    kp_cluster_free(cl);
    return 0;
}

int main(int argc, char **argv) {
    int nodes = 5000, per_node = 30, dec = 2000, basic = 5000, ref = 50, rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = (int)strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--nodes") == 0) nodes = v;
        else if (strcmp(argv[i], "--pods-per-node") == 0) per_node = v;
        else if (strcmp(argv[i], "--decisions") == 0) dec = v;
        else if (strcmp(argv[i], "--basic-nodes") == 0) basic = v;
        else if (strcmp(argv[i], "--reference") == 0) ref = v;
        else if (strcmp(argv[i], "--rounds") == 0) rounds = v > 0 ? v : 1;
        else if (strcmp(argv[i], "--pvc") == 0) pct_pvc = v;
        else if (strcmp(argv[i], "--dra") == 0) pct_dra = v;
    }
    int rc = nodes > 0 ? bench_decisions(nodes, per_node, dec, ref, rounds) : 0;
    if (basic > 0 && bench_basic(basic) != 0) rc = 1;
    return rc;
}
