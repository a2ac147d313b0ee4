/* Eviction manager benchmark: a node with 250 pods and 10,000 generated Summary API documents.
 *
 * Reports (1) Summary JSON parsing: MB/s and summaries/s; (2) synchronize steps on summaries
 * already parsed: steps/s and per-step cost; (3) both together (what `kprio evict` does).
 * Memory pressure comes and goes so that about half the steps rank all pods and evict one; the
 * manager is recreated when fewer than 100 pods are left. Usage: bench_evict [pods] [steps]. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kprio/cluster.h"
#include "kprio/eviction.h"

#define MI (1024LL * 1024)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf_t *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) { b->len += (size_t)n; return; }
        b->cap = b->cap * 2 + (size_t)n + 1024;
        b->p = realloc(b->p, b->cap);
        if (!b->p) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
}

/* xorshift; deterministic data */
static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv) {
    int n_pods = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 250;
    int n_steps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 10000;
    if (n_pods < 1 || n_steps < 1) return 2;
    buf_t y = {0};
    put(&y, "kind: Node\napiVersion: v1\nmetadata: {name: n1}\nstatus: {allocatable: {memory: 256Gi, cpu: '64', pods: '500'}}\n");
    for (int i = 0; i < n_pods; i++)
        put(&y, "---\nkind: Pod\napiVersion: v1\nmetadata: {name: p%d, namespace: bench, uid: u%d}\n"
                "spec:\n  nodeName: n1\n  priority: %d\n  containers:\n  - name: app\n"
                "    resources: {requests: {memory: %lldMi, cpu: 100m, ephemeral-storage: 1Gi}}\n"
                "  - name: side\n  volumes:\n  - name: scratch\n    emptyDir: {}\n",
            i, i, (int)(next() % 5) * 100 - 200, 64LL + (long long)(next() % 512));
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_load_buffer(cl, "bench.yaml", y.p, y.len, &err) != KP_OK || kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    /* summaries, each followed by 64 zero bytes of padding */
    size_t *off = malloc((size_t)n_steps * sizeof *off), *len = malloc((size_t)n_steps * sizeof *len);
    buf_t s = {0};
    for (int k = 0; k < n_steps; k++) {
        off[k] = s.len;
        long long avail = (k % 4 < 2) ? 512 * MI : 8192 * MI; /* pressure half the time */
        int sec = k * 10;
        put(&s, "{\"node\":{\"nodeName\":\"n1\",\"memory\":{\"time\":\"2025-01-%02dT%02d:%02d:%02dZ\",\"availableBytes\":%lld,"
                "\"workingSetBytes\":%lld,\"usageBytes\":%lld},\"fs\":{\"time\":\"2025-01-%02dT%02d:%02d:%02dZ\","
                "\"availableBytes\":%lld,\"capacityBytes\":%lld,\"inodesFree\":9000000,\"inodes\":10000000},"
                "\"rlimit\":{\"time\":\"2025-01-%02dT%02d:%02d:%02dZ\",\"maxpid\":4194304,\"curproc\":%d}},\"pods\":[",
            1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, avail, 200000 * MI, 210000 * MI,
            1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, 400000 * MI, 500000 * MI,
            1 + sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60, 3000 + (int)(next() % 1000));
        for (int i = 0; i < n_pods; i++) {
            long long ws = (long long)(next() % 1024) * MI, root = (long long)(next() % 2048) * MI;
            put(&s, "%s{\"podRef\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"u%d\"},"
                    "\"memory\":{\"workingSetBytes\":%lld,\"usageBytes\":%lld},"
                    "\"containers\":[{\"name\":\"app\",\"memory\":{\"workingSetBytes\":%lld},\"rootfs\":{\"usedBytes\":%lld,"
                    "\"inodesUsed\":%d},\"logs\":{\"usedBytes\":%lld,\"inodesUsed\":3}},{\"name\":\"side\",\"memory\":"
                    "{\"workingSetBytes\":%lld},\"rootfs\":{\"usedBytes\":1048576},\"logs\":{\"usedBytes\":4096}}],"
                    "\"volume\":[{\"name\":\"scratch\",\"usedBytes\":%lld,\"inodesUsed\":12}],"
                    "\"ephemeral-storage\":{\"usedBytes\":%lld},\"process_stats\":{\"process_count\":%d}}",
                i ? "," : "", i, i, ws, ws + MI, ws - MI > 0 ? ws - MI : 0, root, 100 + i, 4 * MI, MI, 8 * MI,
                root + 13 * MI, 1 + i % 40);
        }
        put(&s, "]}\n");
        len[k] = s.len - off[k];
        for (int z = 0; z < 64; z++) put(&s, " ");
    }
    kp_evict_config *cfg = kp_evict_config_new();
    if (!cfg || kp_evict_config_finish(cfg, &err) != KP_OK) return 1;
    kp_evict_config_set_flag(cfg, "eviction-hard", "memory.available<1Gi,nodefs.available<10%,pid.available<1000", &err);
    kp_evict_config_set_flag(cfg, "eviction-soft", "memory.available<2Gi", &err);
    kp_evict_config_set_flag(cfg, "eviction-soft-grace-period", "memory.available=30s", &err);
    if (kp_evict_config_finish(cfg, &err) != KP_OK) { fprintf(stderr, "bench: %s\n", err.msg); return 1; }

    kp_evict_summary **parsed = calloc((size_t)n_steps, sizeof *parsed);
    double t0 = now_s();
    for (int k = 0; k < n_steps; k++) {
        if (kp_evict_summary_parse("bench.json", s.p + off[k], len[k], &parsed[k], &err) != KP_OK) {
            fprintf(stderr, "bench: summary %d: %s\n", k, err.msg);
            return 1;
        }
    }
    double t_parse = now_s() - t0;
    size_t bytes = 0;
    for (int k = 0; k < n_steps; k++) bytes += len[k];

    kp_evict_manager *m = kp_evict_manager_new(cl, 0, cfg, &err);
    kp_evict_result r;
    long evicted = 0, ranked = 0, resets = 0;
    t0 = now_s();
    for (int k = 0; k < n_steps; k++) {
        if (kp_evict_manager_active_count(m) < 100 || (k > 0 && k % 2000 == 0)) {
            kp_evict_manager_free(m); /* a fresh node; keeps step times monotonic per manager */
            m = kp_evict_manager_new(cl, 0, cfg, &err);
            resets++;
        }
        if (kp_evict_manager_step(m, parsed[k], &r, &err) != KP_OK) { fprintf(stderr, "bench: step: %s\n", err.msg); return 1; }
        evicted += r.n_evicted;
        ranked += r.n_ranking ? 1 : 0;
    }
    double t_step = now_s() - t0;
    printf("bench_evict: %d pods, %d summaries (%.1f MB JSON, %.0f KB each)\n", n_pods, n_steps, (double)bytes / 1e6,
           (double)bytes / n_steps / 1e3);
    printf("parse:   %.3f s  %.0f MB/s  %.0f summaries/s  %.1f us/summary\n", t_parse, (double)bytes / 1e6 / t_parse,
           n_steps / t_parse, t_parse * 1e6 / n_steps);
    printf("steps:   %.3f s  %.0f steps/s  %.2f us/step  (pre-parsed; %ld ranked, %ld evicted, %ld manager resets)\n",
           t_step, n_steps / t_step, t_step * 1e6 / n_steps, ranked, evicted, resets);
    printf("total:   %.0f steps/s parsing included\n", n_steps / (t_parse + t_step));
    for (int k = 0; k < n_steps; k++) kp_evict_summary_free(parsed[k]);
    free(parsed);
    kp_evict_manager_free(m);
    kp_evict_config_free(cfg);
    kp_cluster_free(cl);
    free(s.p);
    free(y.p);
    free(off);
    free(len);
    return 0;
}
