/* bench_ingest: measures snapshot ingest through the public API (kp_cluster_load_path +
 * kp_cluster_finalize) on one core.
 *
 *     bench_ingest FILE [--repeat N]
 *
 * Prints, one figure per line: file size, best load+finalize wall time over N runs (default 3),
 * throughput in MB/s and objects/s, peak RSS (getrusage) and its ratio to the file size, and the
 * resident growth per pod after loading (RSS delta / pods) next to the model's own accounting
 * (kp_cluster_model_bytes / pods). Targets from the foundation issue are printed alongside. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kprio/cluster.h"

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Current resident set size in bytes, from /proc/self/statm (0 if unavailable). */
static size_t rss_now(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    if (n != 2) return 0;
    long page = sysconf(_SC_PAGESIZE);
    return (size_t)resident * (size_t)(page > 0 ? page : 4096);
}

static size_t rss_peak(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (size_t)ru.ru_maxrss * 1024; /* kilobytes on Linux */
}

static double mib(size_t b) { return (double)b / (1024.0 * 1024.0); }

static void usage(FILE *f) { fprintf(f, "usage: bench_ingest FILE [--repeat N]\n"); }

int main(int argc, char **argv) {
    const char *path = NULL;
    long repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            repeat = strtol(argv[++i], &end, 10);
            if (*end || errno || repeat < 1 || repeat > 1000) {
                fprintf(stderr, "bench_ingest: --repeat: expected a count from 1 to 1000\n");
                return 2;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            usage(stderr);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_ingest: %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t file_bytes = (size_t)st.st_size;

    double best = 0;
    size_t pods = 0, nodes = 0, model = 0, rss_before = 0, rss_after = 0;
    uint64_t loaded = 0;
    for (long run = 0; run < repeat; run++) {
        size_t before = rss_now();
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        if (!cl) {
            fprintf(stderr, "bench_ingest: out of memory\n");
            return 1;
        }
        double t0 = now_sec();
        kp_status s = kp_cluster_load_path(cl, path, false, &err);
        if (s == KP_OK) s = kp_cluster_finalize(cl, &err);
        double t = now_sec() - t0;
        if (s != KP_OK) {
            fprintf(stderr, "bench_ingest: %s%s%s\n", err.source, err.source[0] ? ": " : "",
                    err.msg);
            kp_cluster_free(cl);
            return 1;
        }
        if (run == 0 || t < best) best = t;
        if (run == 0) {
            /* resident growth is measured on the first run, before the allocator holds freed
             * memory from earlier runs */
            rss_before = before;
            rss_after = rss_now();
        }
        pods = kp_cluster_pod_count(cl);
        nodes = kp_cluster_node_count(cl);
        model = kp_cluster_model_bytes(cl);
        loaded = kp_cluster_bytes_loaded(cl);
        kp_cluster_free(cl);
    }
    size_t peak = rss_peak();
    double mb = (double)loaded / 1e6;
    /* objects in the model: nodes and pods (PDBs and classes are a rounding error) */
    double objs = (double)(pods + nodes);
    size_t growth = rss_after > rss_before ? rss_after - rss_before : 0;

    printf("file:                    %s\n", path);
    printf("file size:               %zu bytes (%.1f MiB)\n", file_bytes, mib(file_bytes));
    printf("objects:                 %zu nodes, %zu pods\n", nodes, pods);
    printf("load+finalize (best/%ld): %.3f s\n", repeat, best);
    printf("throughput:              %.0f MB/s (target >= 500)\n", best > 0 ? mb / best : 0.0);
    printf("objects/s:               %.0f (nodes+pods)\n", best > 0 ? objs / best : 0.0);
    printf("peak RSS:                %.1f MiB\n", mib(peak));
    printf("peak RSS / file size:    %.2fx (target <= 1.50x)\n",
           file_bytes ? (double)peak / (double)file_bytes : 0.0);
    printf("resident after load:     %.1f MiB (growth over the empty process)\n", mib(growth));
    printf("resident growth per pod: %.0f bytes (target < 1024)\n",
           pods ? (double)growth / (double)pods : 0.0);
    printf("model bytes per pod:     %.0f bytes (kp_cluster_model_bytes %.1f MiB / pods)\n",
           pods ? (double)model / (double)pods : 0.0, mib(model));
    return 0;
}
