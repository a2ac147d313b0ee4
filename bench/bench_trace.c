/* Trace replay benchmark: a synthetic trace of one hour of an N-node cluster (default 5,000
 * nodes holding 30 pods each, 150,000 pods owned by ReplicaSets of 30 replicas), written as
 * `kubectl kprio record` writes one (docs/live.md "Recording a trace"): the snapshot, and the
 * watches' first listing of every node, ReplicaSet and pod followed by an hour of changes: a
 * user's pod created every second and deleted 5 minutes later (Scheduled, with its node), a
 * ReplicaSet scaled up and down every 30 s, a node cordoned and drained (its pods evicted through
 * the API, replaced by their ReplicaSet) and uncordoned every 6 minutes, and the scheduler's
 * events. Then replays it as `kprio simulate --trace` does: load the snapshot, read the trace,
 * simulate the hour, compare. Prints each phase's CPU time, the total (target: under 10 s for
 * 5,000 nodes), the agreement and a digest of the comparison.
 *
 *     bench_trace [NODES] [DIR]     (default 5000; DIR: where the trace is written, default a
 *                                    new directory under /tmp, removed at the end) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kprio/cluster.h"
#include "kprio/sim.h"
#include "kprio/trace.h"

#define PODS_PER_NODE 30
#define START 1767225600LL /* 2026-01-01T00:00:00Z */

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ts(char *buf, size_t cap, long long s) {
    time_t t = (time_t)s;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static FILE *open_w(const char *dir, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    return f;
}

static void node_obj(FILE *f, int n, int unsched) {
    fprintf(
        f,
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\","
        "\"labels\":{\"kubernetes.io/hostname\":\"node-%d\",\"topology.kubernetes.io/zone\":"
        "\"zone-%d\"}},\"spec\":{%s},\"status\":{\"allocatable\":{\"cpu\":\"16\",\"memory\":"
        "\"64Gi\",\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
        n, n, n % 3, unsched ? "\"unschedulable\":true" : "");
}

static void rs_obj(FILE *f, int r, int replicas) {
    fprintf(f,
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"rs-%d\","
            "\"namespace\":\"app\",\"uid\":\"rs-%d\"},\"spec\":{\"replicas\":%d,\"selector\":"
            "{\"matchLabels\":{\"app\":\"rs-%d\"}},\"template\":{\"metadata\":{\"labels\":"
            "{\"app\":\"rs-%d\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"app\","
            "\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"256Mi\"}}}]}}}}",
            r, r, replicas, r, r);
}

/* a ReplicaSet's pod: name NAME (generated when gen), on node (-1 pending), deleting with
 * reason ("" none, NULL not deleting) */
static void rs_pod(FILE *f, const char *name, int r, int node, bool gen, const char *del) {
    char t[40];
    ts(t, sizeof t, START - 3600);
    fprintf(f,
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",%s\"namespace\":"
            "\"app\",\"uid\":\"%s\",\"creationTimestamp\":\"%s\",\"labels\":{\"app\":\"rs-%d\"},"
            "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":"
            "\"rs-%d\",\"uid\":\"rs-%d\",\"controller\":true}]%s},\"spec\":{",
            name, gen ? "\"generateName\":\"x-\"," : "", name, t, r, r, r,
            del ? ",\"deletionTimestamp\":\"2026-01-01T01:00:00Z\"" : "");
    if (node >= 0) fprintf(f, "\"nodeName\":\"node-%d\",", node);
    fprintf(f, "\"containers\":[{\"name\":\"c\",\"image\":\"app\",\"resources\":{\"requests\":"
               "{\"cpu\":\"200m\",\"memory\":\"256Mi\"}}}]},\"status\":{\"phase\":\"Running\"");
    if (del && del[0])
        fprintf(f,
                ",\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
                "\"reason\":\"%s\"}]",
                del);
    fprintf(f, "}}");
}

static void user_pod(FILE *f, int j, int node, bool del) {
    fprintf(
        f,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"job-%d\",\"namespace\":"
        "\"batch\",\"uid\":\"job-%d\"%s},\"spec\":{",
        j, j, del ? ",\"deletionTimestamp\":\"2026-01-01T01:00:00Z\"" : "");
    if (node >= 0) fprintf(f, "\"nodeName\":\"node-%d\",", node);
    fprintf(f, "\"containers\":[{\"name\":\"c\",\"image\":\"job\",\"resources\":{\"requests\":"
               "{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]},\"status\":{\"phase\":\"Pending\"}}");
}

static void ev_head(FILE *f, long long at, const char *type) {
    char t[40];
    ts(t, sizeof t, START + at);
    fprintf(f, "{\"recorded\":\"%s\",\"type\":\"%s\",\"object\":", t, type);
}

static void sched_event(FILE *f, long long at, const char *ns, const char *name, int node) {
    char t[40];
    ts(t, sizeof t, START + at);
    ev_head(f, at, "ADDED");
    fprintf(f,
            "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"%s.%lld\","
            "\"namespace\":\"%s\"},\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"%s\","
            "\"name\":\"%s\",\"uid\":\"%s\"},\"reason\":\"Scheduled\",\"message\":\"Successfully "
            "assigned %s/%s to node-%d\",\"lastTimestamp\":\"%s\"}}\n",
            name, at, ns, ns, name, name, ns, name, node, t);
}

static void write_trace(const char *dir, int nodes) {
    char p[4096];
    snprintf(p, sizeof p, "%s/snapshot", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/watch", dir);
    mkdir(p, 0755);
    FILE *m = open_w(dir, "manifest.json");
    fprintf(m, "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"Trace\",\"start\":"
               "\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T01:00:00Z\",\"snapshot\":"
               "\"snapshot\",\"watch\":[\"watch/nodes.json\",\"watch/replicasets.json\","
               "\"watch/pods.json\",\"watch/events.json\"]}\n");
    fclose(m);
    int n_rs = nodes; /* PODS_PER_NODE pods each, spread over every node */
    FILE *s = open_w(dir, "snapshot/cluster.json");
    FILE *wn = open_w(dir, "watch/nodes.json"), *wr = open_w(dir, "watch/replicasets.json");
    FILE *wp = open_w(dir, "watch/pods.json"), *we = open_w(dir, "watch/events.json");
    fprintf(s, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int n = 0; n < nodes; n++) {
        fprintf(s, n ? "," : "");
        node_obj(s, n, 0);
        ev_head(wn, 0, "ADDED");
        node_obj(wn, n, 0);
        fprintf(wn, "}\n");
    }
    char name[64];
    for (int r = 0; r < n_rs; r++) {
        fprintf(s, ",");
        rs_obj(s, r, PODS_PER_NODE);
        ev_head(wr, 0, "ADDED");
        rs_obj(wr, r, PODS_PER_NODE);
        fprintf(wr, "}\n");
        for (int k = 0; k < PODS_PER_NODE; k++) {
            snprintf(name, sizeof name, "rs-%d-%d", r, k);
            int node = (r + k * 7) % nodes;
            fprintf(s, ",");
            rs_pod(s, name, r, node, false, NULL);
            ev_head(wp, 0, "ADDED");
            rs_pod(wp, name, r, node, false, NULL);
            fprintf(wp, "}\n");
        }
    }
    fprintf(s, "]}\n");
    fclose(s);
    /* the hour, second by second (each file in time order) */
    int gen = 0;
    for (long long t = 1; t < 3600; t++) {
        int j = (int)t, node = (j * 13) % nodes;
        ev_head(wp, t, "ADDED");
        user_pod(wp, j, -1, false);
        fprintf(wp, "}\n");
        ev_head(wp, t, "MODIFIED");
        user_pod(wp, j, node, false);
        fprintf(wp, "}\n");
        sched_event(we, t, "batch", (snprintf(name, sizeof name, "job-%d", j), name), node);
        if (t > 300) { /* the user deletes the job of 5 minutes ago */
            ev_head(wp, t, "DELETED");
            user_pod(wp, j - 300, ((j - 300) * 13) % nodes, true);
            fprintf(wp, "}\n");
        }
        if (t % 30 == 0) { /* a ReplicaSet scaled up, the one of 30 s ago down */
            int r = (int)(t / 30) % n_rs;
            ev_head(wr, t, "MODIFIED");
            rs_obj(wr, r, PODS_PER_NODE + 1);
            fprintf(wr, "}\n");
            snprintf(name, sizeof name, "rs-%d-g%d", r, gen++);
            ev_head(wp, t, "ADDED");
            rs_pod(wp, name, r, -1, true, NULL);
            fprintf(wp, "}\n");
            if (t > 30) {
                int q = (int)(t / 30 - 1) % n_rs;
                ev_head(wr, t, "MODIFIED");
                rs_obj(wr, q, PODS_PER_NODE);
                fprintf(wr, "}\n");
            }
        }
        if (t % 360 == 60) { /* a node drained: cordoned, its first ReplicaSet pods evicted */
            int n = (int)(t / 360) * 97 % nodes;
            ev_head(wn, t, "MODIFIED");
            node_obj(wn, n, 1);
            fprintf(wn, "}\n");
            for (int r = 0; r < n_rs && r < 40; r++)
                for (int k = 0; k < PODS_PER_NODE; k++)
                    if ((r + k * 7) % nodes == n) {
                        snprintf(name, sizeof name, "rs-%d-%d", r, k);
                        ev_head(wp, t, "MODIFIED");
                        rs_pod(wp, name, r, n, false, "EvictionByEvictionAPI");
                        fprintf(wp, "}\n");
                    }
        }
        if (t % 360 == 300) {
            int n = (int)(t / 360) * 97 % nodes;
            ev_head(wn, t, "MODIFIED");
            node_obj(wn, n, 0);
            fprintf(wn, "}\n");
        }
    }
    fclose(wn);
    fclose(wr);
    fclose(wp);
    fclose(we);
}

static void rm_tree(const char *dir) {
    static const char *const files[] = {"manifest.json",    "snapshot/cluster.json",
                                        "watch/nodes.json", "watch/replicasets.json",
                                        "watch/pods.json",  "watch/events.json"};
    char p[4096];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/snapshot", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/watch", dir);
    rmdir(p);
    rmdir(dir);
}

int main(int argc, char **argv) {
    int nodes = argc > 1 ? atoi(argv[1]) : 5000;
    if (nodes < 1) {
        fprintf(stderr, "usage: bench_trace [NODES] [DIR]\n");
        return 2;
    }
    char tmp[] = "/tmp/kprio-bench-trace.XXXXXX";
    const char *dir = argc > 2 ? argv[2] : mkdtemp(tmp);
    if (!dir) {
        perror("mkdtemp");
        return 1;
    }
    if (argc > 2) mkdir(dir, 0755);
    write_trace(dir, nodes);
    kp_error err;
    kp_error_clear(&err);
    char snap[4096];
    snprintf(snap, sizeof snap, "%s/snapshot", dir);
    double t0 = cpu_now();
    kp_cluster *cl = kp_cluster_new();
    kp_trace *tr = NULL;
    kp_sim *sim = NULL;
    kp_trace_comparison *cmp = NULL;
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_path(cl, snap, true, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "bench_trace: %s: %s\n", err.source, err.msg);
        return 1;
    }
    double t1 = cpu_now();
    if (kp_trace_load(dir, cl, &tr, &err) != KP_OK) {
        fprintf(stderr, "bench_trace: %s: line %ld: %s\n", err.source, err.line, err.msg);
        return 1;
    }
    double t2 = cpu_now();
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.start_unix = kp_trace_start(tr);
    o.has_start = true;
    o.duration_ms = kp_trace_duration_ms(tr);
    if (kp_sim_new(cl, NULL, kp_trace_scenario(tr), &o, &sim, &err) != KP_OK ||
        kp_sim_run(sim, &err) != KP_OK) {
        fprintf(stderr, "bench_trace: %s\n", err.msg);
        return 1;
    }
    double t3 = cpu_now();
    if (kp_trace_compare(tr, sim, &cmp, &err) != KP_OK) {
        fprintf(stderr, "bench_trace: %s\n", err.msg);
        return 1;
    }
    double t4 = cpu_now();
    kp_trace_stats st;
    kp_trace_stats_get(tr, &st);
    uint64_t items = 0, agree = 0, h = 0xcbf29ce484222325ull;
    kp_trace_agreement(cmp, KP_TRACE_N_DECISIONS, &items, &agree);
    for (size_t i = 0; i < kp_trace_item_count(cmp); i++) {
        const kp_trace_item *it = kp_trace_item_get(cmp, i);
        h = (h ^ (uint64_t)it->agree ^ ((uint64_t)it->kind << 1)) * 0x100000001b3ull;
        for (const char *c = it->name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    }
    printf("trace of 1h, %d nodes, %d pods at start: %llu watch events, %llu actions, %llu "
           "recorded decisions\n",
           nodes, nodes * PODS_PER_NODE, (unsigned long long)st.events,
           (unsigned long long)st.actions, (unsigned long long)st.decisions);
    printf("cpu: snapshot %.2fs, trace %.2fs, simulate %.2fs, compare %.2fs, total %.2fs "
           "(target < 10s)\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0);
    printf("agreement %.1f%% (%llu of %llu) digest=%016llx\n",
           items ? 100.0 * (double)agree / (double)items : 0.0, (unsigned long long)agree,
           (unsigned long long)items, (unsigned long long)h);
    kp_trace_comparison_free(cmp);
    kp_sim_free(sim);
    kp_trace_free(tr);
    kp_cluster_free(cl);
    if (argc <= 2) rm_tree(dir);
    return 0;
}
