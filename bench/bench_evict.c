/* Eviction manager benchmark: a node with 250 pods and 10,000 generated Summary API documents.
 *
 * Reports (1) Summary JSON parsing: MB/s, and the same documents walked by the JSON event shim
 * (io/events.h) with a consumer that does nothing, the library's full speed through the shim;
 * then, in a separate pass over the first 1,000 documents regenerated, each is walked and
 * parsed with the result freed at once ("not kept"): that parse reuses warm memory, so it shows
 * the parser's own speed without the page faults that keeping 10,000 parsed summaries costs;
 * (2) synchronize steps on the 10,000 summaries already parsed, repeated REPS times: steps/s
 * per repetition (median and best), the median per-step cost of ranking steps and of quiet
 * steps, and the rate those medians give (less sensitive to other processes' bursts than the
 * per-repetition totals); (3) peak memory. Memory pressure comes and goes so that about half the
 * steps rank all pods and evict one; the manager is recreated when fewer than 100 pods are left.
 * Summaries are generated one at a time into one buffer (generation is not timed), so only the
 * parsed form of the 10,000 documents stays in memory. Times are thread CPU time, which a busy
 * shared machine disturbs less than wall time. Usage: bench_evict [pods] [summaries] [reps]. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "io/decode_summary.h"
#include "io/events.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"

#define MI (1024LL * 1024)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#include "bench_buf.h"

/* xorshift; deterministic data */
static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* the baseline consumer: takes every event, skips nothing */
static int noop_event(void *ctx, kp_ev ev, const char *str, size_t len, uint64_t off) {
    (void)ev;
    (void)str;
    (void)len;
    (void)off;
    ++*(unsigned long *)ctx;
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Summary k (time k*10 s; pressure in steps k%4 < 2) into b, followed by 64 bytes of padding. */
static void gen_summary(buf_t *s, int k, int n_pods) {
    s->len = 0;
    long long avail = (k % 4 < 2) ? 512 * MI : 8192 * MI; /* pressure half the time */
    int sec = k * 10;
    put(s,
        "{\"node\":{\"nodeName\":\"n1\",\"memory\":{\"time\":\"2025-01-%02dT%02d:%02d:%02dZ\","
        "\"availableBytes\":%lld,"
        "\"workingSetBytes\":%lld,\"usageBytes\":%lld},\"fs\":{\"time\":\"2025-01-%02dT%02d:%02d:%"
        "02dZ\","
        "\"availableBytes\":%lld,\"capacityBytes\":%lld,\"inodesFree\":9000000,\"inodes\":10000000}"
        ","
        "\"rlimit\":{\"time\":\"2025-01-%02dT%02d:%02d:%02dZ\",\"maxpid\":4194304,\"curproc\":%d}},"
        "\"pods\":[",
        1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, avail, 200000 * MI, 210000 * MI,
        1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, 400000 * MI, 500000 * MI,
        1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, 3000 + (int)(next() % 1000));
    for (int i = 0; i < n_pods; i++) {
        long long ws = (long long)(next() % 1024) * MI, root = (long long)(next() % 2048) * MI;
        put(s,
            "%s{\"podRef\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"u%d\"},"
            "\"memory\":{\"workingSetBytes\":%lld,\"usageBytes\":%lld},"
            "\"containers\":[{\"name\":\"app\",\"memory\":{\"workingSetBytes\":%lld},\"rootfs\":{"
            "\"usedBytes\":%lld,"
            "\"inodesUsed\":%d},\"logs\":{\"usedBytes\":%lld,\"inodesUsed\":3}},{\"name\":\"side\","
            "\"memory\":"
            "{\"workingSetBytes\":%lld},\"rootfs\":{\"usedBytes\":1048576},\"logs\":{\"usedBytes\":"
            "4096}}],"
            "\"volume\":[{\"name\":\"scratch\",\"usedBytes\":%lld,\"inodesUsed\":12}],"
            "\"network\":{\"time\":\"2025-01-01T00:00:00Z\",\"name\":\"eth0\",\"rxBytes\":%lld,"
            "\"txBytes\":%lld,"
            "\"interfaces\":[{\"name\":\"eth0\",\"rxBytes\":%lld,\"rxErrors\":0,\"txBytes\":%lld,"
            "\"txErrors\":0}]},"
            "\"cpu\":{\"time\":\"2025-01-01T00:00:00Z\",\"usageNanoCores\":%lld,"
            "\"usageCoreNanoSeconds\":%lld},"
            "\"ephemeral-storage\":{\"usedBytes\":%lld},\"process_stats\":{\"process_count\":%d}}",
            i ? "," : "", i, i, ws, ws + MI, ws - MI > 0 ? ws - MI : 0, root, 100 + i, 4 * MI, MI,
            8 * MI, ws * 3, ws * 2, ws * 3, ws * 2, ws / 7, ws * 11, root + 13 * MI, 1 + i % 40);
    }
    put(s, "]}\n");
    size_t len = s->len;
    for (int z = 0; z < 64; z++) put(s, " ");
    s->len = len;
}

int main(int argc, char **argv) {
    int n_pods = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 250;
    int n_steps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 10000;
    int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 5;
    if (n_pods < 1 || n_steps < 1 || reps < 1) return 2;
    buf_t y = {0};
    put(&y, "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nstatus: {allocatable: {memory: "
            "256Gi, cpu: '64', pods: '500'}}\n");
    for (int i = 0; i < n_pods; i++)
        put(&y,
            "---\nkind: Pod\napiVersion: v1\nmetadata: {name: p%d, namespace: bench, uid: u%d}\n"
            "spec:\n  nodeName: n1\n  priority: %d\n  containers:\n  - name: app\n"
            "    resources: {requests: {memory: %lldMi, cpu: 100m, ephemeral-storage: 1Gi}}\n"
            "  - name: side\n  volumes:\n  - name: scratch\n    emptyDir: {}\n",
            i, i, (int)(next() % 5) * 100 - 200, 64LL + (long long)(next() % 512));
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_load_buffer(cl, "bench.yaml", y.p, y.len, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    kp_evict_config *cfg = kp_evict_config_new();
    if (!cfg) return 1;
    kp_evict_config_set_flag(cfg, "eviction-hard",
                             "memory.available<1Gi,nodefs.available<10%,pid.available<1000", &err);
    kp_evict_config_set_flag(cfg, "eviction-soft", "memory.available<2Gi", &err);
    kp_evict_config_set_flag(cfg, "eviction-soft-grace-period", "memory.available=30s", &err);
    if (kp_evict_config_finish(cfg, &err) != KP_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }

    /* (1) parsing, and the no-op walk of the same bytes */
    kp_evict_summary **parsed = calloc((size_t)n_steps, sizeof *parsed);
    double *t_parse = malloc((size_t)n_steps * sizeof *t_parse),
           *t_walk = malloc((size_t)n_steps * sizeof *t_walk);
    double *t_free = malloc((size_t)n_steps * sizeof *t_free);
    if (!parsed || !t_parse || !t_walk || !t_free) return 1;
    double sum_parse = 0, sum_walk = 0, sum_free = 0;
    size_t bytes = 0;
    unsigned long events = 0;
    buf_t s = {0};
    for (int k = 0; k < n_steps; k++) {
        gen_summary(&s, k, n_pods);
        bytes += s.len;
        char msg[256];
        uint64_t eoff;
        double t0 = now_s();
        if (kp__json_events(s.p, s.len, noop_event, &events, msg, sizeof msg, &eoff) != 0) {
            fprintf(stderr, "bench: summary %d: %s\n", k, msg);
            return 1;
        }
        double t1 = now_s();
        if (kp__summary_load_padded("bench.json", s.p, s.len, &parsed[k], &err) != KP_OK) {
            fprintf(stderr, "bench: summary %d: %s\n", k, err.msg);
            return 1;
        }
        double t2 = now_s();
        t_walk[k] = t1 - t0;
        t_parse[k] = t2 - t1;
        sum_walk += t_walk[k];
        sum_parse += t_parse[k];
    }
    double avg_len = (double)bytes / n_steps;
    double med_parse = median(t_parse, (size_t)n_steps), med_walk = median(t_walk, (size_t)n_steps);
    /* the parser's own speed: parsed and freed at once (warm memory), against the walk */
    int n_free = n_steps < 1000 ? n_steps : 1000;
    double *t_walk2 = malloc((size_t)n_free * sizeof *t_walk2);
    if (!t_walk2) return 1;
    double sum_walk2 = 0;
    unsigned long events2 = 0;
    for (int k = 0; k < n_free; k++) {
        gen_summary(&s, k, n_pods);
        char msg[256];
        uint64_t eoff;
        kp_evict_summary *tmp = NULL;
        double t0 = now_s();
        (void)kp__json_events(s.p, s.len, noop_event, &events2, msg, sizeof msg, &eoff);
        double t1 = now_s();
        if (kp__summary_load_padded("bench.json", s.p, s.len, &tmp, &err) != KP_OK) return 1;
        kp_evict_summary_free(tmp);
        double t2 = now_s();
        t_walk2[k] = t1 - t0;
        t_free[k] = t2 - t1;
        sum_walk2 += t_walk2[k];
        sum_free += t_free[k];
    }
    double med_free = median(t_free, (size_t)n_free), med_walk2 = median(t_walk2, (size_t)n_free);
    free(t_walk2);

    /* (2) synchronize steps on the parsed summaries, REPS times */
    double *t_rank = malloc((size_t)n_steps * reps * sizeof *t_rank),
           *t_quiet = malloc((size_t)n_steps * reps * sizeof *t_quiet);
    double *rate = malloc((size_t)reps * sizeof *rate);
    if (!t_rank || !t_quiet || !rate) return 1;
    size_t n_rank = 0, n_quiet = 0;
    long evicted = 0, ranked = 0, resets = 0;
    for (int rep = 0; rep < reps; rep++) {
        kp_evict_manager *m = NULL;
        if (kp_evict_manager_new(cl, 0, cfg, &m, &err) != KP_OK) return 1;
        kp_evict_result r;
        double total = 0;
        for (int k = 0; k < n_steps; k++) {
            if (kp_evict_manager_active_count(m) < 100 || (k > 0 && k % 2000 == 0)) {
                kp_evict_manager_free(m); /* a fresh node; keeps step times monotonic per manager */
                if (kp_evict_manager_new(cl, 0, cfg, &m, &err) != KP_OK) return 1;
                resets++;
            }
            double t0 = now_s();
            if (kp_evict_manager_step(m, parsed[k], &r, &err) != KP_OK) {
                fprintf(stderr, "bench: step: %s\n", err.msg);
                return 1;
            }
            double dt = now_s() - t0;
            total += dt;
            if (r.n_ranking) t_rank[n_rank++] = dt;
            else t_quiet[n_quiet++] = dt;
            evicted += r.n_evicted;
            ranked += r.n_ranking ? 1 : 0;
        }
        rate[rep] = n_steps / total;
        kp_evict_manager_free(m);
    }
    double med_rank = median(t_rank, n_rank), med_quiet = median(t_quiet, n_quiet);
    double best = 0;
    for (int rep = 0; rep < reps; rep++) best = rate[rep] > best ? rate[rep] : best;
    double med_rate = median(rate, (size_t)reps);
    double f_rank = (double)n_rank / (double)(n_rank + n_quiet);
    double med_based = 1 / (f_rank * med_rank + (1 - f_rank) * med_quiet);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    printf("bench_evict: %d pods, %d summaries (%.1f MB JSON, %.0f KB each), %d step repetitions\n",
           n_pods, n_steps, (double)bytes / 1e6, avg_len / 1e3, reps);
    printf("parse:   %.0f MB/s (median %.0f us/summary, %.0f MB/s)  %.0f summaries/s\n",
           (double)bytes / 1e6 / sum_parse, med_parse * 1e6, avg_len / 1e6 / med_parse,
           n_steps / sum_parse);
    printf("walk:    %.0f MB/s (median %.0f us/summary, %.0f MB/s)  no-op consumer over the shim, "
           "%.0f events/summary\n",
           (double)bytes / 1e6 / sum_walk, med_walk * 1e6, avg_len / 1e6 / med_walk,
           (double)events / n_steps);
    printf("ratio:   parse/walk %.2f (medians %.2f)\n", sum_walk / sum_parse, med_walk / med_parse);
    printf("unkept:  parse/walk %.2f (medians %.2f; parse %.0f us, walk %.0f us): %d summaries "
           "parsed and freed at once\n",
           sum_walk2 / sum_free, med_walk2 / med_free, med_free * 1e6, med_walk2 * 1e6, n_free);
    printf("steps:   %.0f steps/s median of %d repetitions (best %.0f); per step median %.2f us "
           "ranking, %.2f us quiet "
           "(pre-parsed; %ld ranked, %ld evicted, %ld manager resets)\n",
           med_rate, reps, best, med_rank * 1e6, med_quiet * 1e6, ranked, evicted, resets);
    printf("         %.0f steps/s from the per-step medians (%.0f%% ranking steps)\n", med_based,
           f_rank * 100);
    printf("total:   %.0f steps/s parsing included\n",
           n_steps / (sum_parse + (double)n_steps / med_rate));
    printf("memory:  peak RSS %.0f MB (%.1f KB per parsed summary)\n", (double)ru.ru_maxrss / 1024,
           (double)ru.ru_maxrss / n_steps);
    for (int k = 0; k < n_steps; k++) kp_evict_summary_free(parsed[k]);
    free(parsed);
    free(t_parse);
    free(t_walk);
    free(t_free);
    free(t_rank);
    free(t_quiet);
    free(rate);
    kp_evict_config_free(cfg);
    kp_cluster_free(cl);
    free(s.p);
    free(y.p);
    return 0;
}
