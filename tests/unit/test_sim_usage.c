/* Usage beyond memory in the simulation (issue 12): the Scenario's rootfs / logs / emptyDir /
 * inodes / pids and node entries, the periodic and trace models (the trace CSV's one-line
 * errors name file, line and field), OOM kills with restarts, `--dump-summaries` replayed
 * through the same engine `kprio evict` runs (same evictions, pass for pass), and randomised
 * runs where every dumped observation is non-negative and every kubelet eviction is justified by
 * a threshold met in the summary of that pass (or a local-storage limit) and never hits a
 * critical, static or mirror pod. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"
#include "text_buf.h"

#define MI (1024LL * 1024)
#define HEAD "apiVersion: kprio/v1alpha1\nkind: Scenario\n"

static char tmpdir[256];

static const char *tmp_path(const char *name) {
    static char p[512];
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "%s/kprio-test-usage-%ld",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
        mkdir(tmpdir, 0777);
    }
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    KT_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static kp_scenario *load(const char *text, kp_error *err) {
    kp_scenario *sc = NULL;
    kp_error_clear(err);
    kp_status st = kp_scenario_load_buffer("s.yaml", text, strlen(text), tmpdir, &sc, err);
    if (st != KP_OK) KT_CHECK(sc == NULL);
    return sc;
}

static char fail_msg[600];
static const char *fails(const char *text) {
    kp_error err;
    kp_scenario *sc = load(text, &err);
    KT_CHECK(sc == NULL);
    kp_scenario_free(sc);
    KT_CHECK(err.code == KP_EINVAL || err.code == KP_EIO);
    KT_CHECK_STR(err.source, "s.yaml");
    snprintf(fail_msg, sizeof fail_msg, "%.500s", err.msg);
    return fail_msg;
}

/* ---------------------------------------------------------------- decoding */

KT_TEST(resources_periodic_and_trace_decoded) {
    tmp_path("x");
    write_text(tmp_path("t.csv"), "# a trace\ntime,value\n0,100Mi\n30s,200Mi\n1m30s, 50Mi\n"
                                  "\n120,1Gi\r\n");
    kp_error err;
    kp_scenario *sc = load(HEAD "usage:\n"
                                "- selector: {}\n  resource: logs\n  container: app\n"
                                "  periodic: {shape: square, period: 2m, min: 1Mi, max: 3Mi}\n"
                                "- selector: {}\n  resource: emptyDir\n  volume: cache\n"
                                "  periodic: {shape: sine, period: 4m, min: 0, max: 1000}\n"
                                "- node: n1\n  resource: nodefs\n  trace: {file: t.csv}\n"
                                "- node: '*'\n  resource: pids\n  constant: {value: 300}\n",
                           &err);
    KT_CHECK_STR(err.msg, "");
    KT_CHECK(sc != NULL);
    if (!sc) return;
    const kp_scenario_usage *u = sc->usage;
    KT_CHECK_INT(u[0].res, KP_USE_LOGS);
    KT_CHECK_STR(u[0].container, "app");
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 0), 1 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 59999), 1 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 60000), 3 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 120000), 1 * MI); /* the next period */
    KT_CHECK(kp_scenario_usage_moves(&u[0], 10 * 60000));
    KT_CHECK_INT(u[1].res, KP_USE_EMPTYDIR);
    KT_CHECK_STR(u[1].volume, "cache");
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 0), 0);
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 60000), 500); /* a quarter period: halfway */
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 120000), 1000);
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 240000), 0);
    KT_CHECK_INT(u[2].res, KP_USE_NODEFS);
    KT_CHECK_STR(u[2].node, "n1");
    KT_CHECK_INT(u[2].n_trace, 4);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 0), 100 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 29999), 100 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 30000), 200 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 90000), 50 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 10 * 60000), 1024 * MI); /* holds the last */
    KT_CHECK(kp_scenario_usage_moves(&u[2], 119999));
    KT_CHECK(!kp_scenario_usage_moves(&u[2], 120000));
    KT_CHECK_STR(u[3].node, "*");
    KT_CHECK_INT(u[3].res, KP_USE_PIDS);
    kp_scenario_free(sc);
}

KT_TEST(usage_scope_and_trace_errors) {
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- node: n1\n  selector: {}\n  resource: pids\n"
                                 "  constant: {value: 1}\n"),
                      "usage[0]: selector: not allowed with node");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- node: n1\n  resource: rootfs\n"
                                 "  constant: {value: 1}\n"),
                      "usage[0]: resource: \"rootfs\" is a pod resource");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: nodefs\n"
                                 "  constant: {value: 1}\n"),
                      "usage[0]: resource: \"nodefs\" is a node resource: give node");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: logs\n  volume: v\n"
                                 "  constant: {value: 1}\n"),
                      "usage[0]: volume: not allowed with this resource");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: pids\n  container: c\n"
                                 "  constant: {value: 1}\n"),
                      "usage[0]: container: not allowed with this resource");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  periodic: {shape: saw, period: 1m, min: 1, max: 2}\n"),
                      "usage[0]: periodic.shape: unsupported value \"saw\"");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  periodic: {shape: sine, period: 0s, min: 1, max: 2}\n"),
                      "usage[0]: periodic.period: must be greater than 0");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  periodic: {shape: sine, period: 1m, min: 3, max: 2}\n"),
                      "usage[0]: periodic.max: must not be below min");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  trace: {file: missing.csv}\n"),
                      "usage[0]: trace.file: ");
    /* the CSV's own errors: file, line, field */
    char want[600];
    write_text(tmp_path("bad1.csv"), "time,value\n0,1Mi\n10s,lots\n");
    snprintf(want, sizeof want,
             "usage[0]: trace.file: %s: line 3: value: invalid quantity \"lots\"",
             tmp_path("bad1.csv"));
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  trace: {file: bad1.csv}\n"),
                      want);
    write_text(tmp_path("bad2.csv"), "0,1Mi\n\n5x,2Mi\n");
    snprintf(want, sizeof want, "usage[0]: trace.file: %s: line 3: time: unknown unit \"x\"",
             tmp_path("bad2.csv"));
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  trace: {file: bad2.csv}\n"),
                      want);
    write_text(tmp_path("bad3.csv"), "10s,1Mi\n10s,2Mi\n");
    snprintf(want, sizeof want,
             "usage[0]: trace.file: %s: line 2: time: must be after the previous line's",
             tmp_path("bad3.csv"));
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  trace: {file: bad3.csv}\n"),
                 want);
    write_text(tmp_path("bad4.csv"), "10s\n");
    snprintf(want, sizeof want, "usage[0]: trace.file: %s: line 1: time: expected \"time,value\"",
             tmp_path("bad4.csv"));
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  trace: {file: bad4.csv}\n"),
                 want);
    write_text(tmp_path("bad5.csv"), "# nothing\n");
    snprintf(want, sizeof want, "usage[0]: trace.file: %s: no time,value line",
             tmp_path("bad5.csv"));
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  trace: {file: bad5.csv}\n"),
                 want);
    write_text(tmp_path("bad6.csv"), "0,-1\n");
    snprintf(want, sizeof want, "usage[0]: trace.file: %s: line 1: value: must not be negative",
             tmp_path("bad6.csv"));
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  trace: {file: bad6.csv}\n"),
                 want);
}

/* ---------------------------------------------------------------- runs */

static kp_cluster *cluster_of(const char *text) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", text, strlen(text), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_STR(err.msg, "");
    return cl;
}

static kp_evict_config *config_of(const char *text) {
    kp_error err;
    kp_error_clear(&err);
    kp_evict_config *cfg = kp_evict_config_new();
    if (text)
        KT_CHECK_INT(kp_evict_config_load_buffer(cfg, "k.yaml", text, strlen(text), &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(cfg, &err), KP_OK);
    return cfg;
}

static const char *OOM_CLUSTER =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"4\", "
    "memory: 8Gi, pods: \"110\"}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: leaky, "
    "namespace: default, labels: {app: leaky}}\nspec:\n  nodeName: n1\n  containers:\n  - {name: "
    "app, image: i, resources: {requests: {memory: 256Mi}, limits: {memory: 512Mi}}}\n  - {name: "
    "proxy, image: i, resources: {limits: {memory: 128Mi}}}\nstatus: {phase: Running}\n";

/* A container past its memory limit is OOM-killed at the next pass and restarted: its usage
 * starts again from the model's start, so a 100Mi/min leak from 200Mi against a 512Mi limit
 * restarts every 3m10s (passes every 10s); the proxy under its limit never restarts. */
KT_TEST(oom_kills_restart_the_container) {
    kp_error err;
    kp_cluster *cl = cluster_of(OOM_CLUSTER);
    kp_scenario *sc = load(HEAD "duration: 10m\nusage:\n"
                                "- selector: {}\n  container: app\n  resource: memory\n"
                                "  ramp: {start: 200Mi, perMinute: 100Mi}\n"
                                "- selector: {}\n  container: proxy\n  resource: memory\n"
                                "  constant: {value: 100Mi}\n",
                           &err);
    kp_sim *sim = NULL;
    KT_CHECK_INT(kp_sim_new(cl, NULL, sc, NULL, &sim, &err), KP_OK);
    if (!sim) return;
    KT_CHECK_INT(kp_sim_run(sim, &err), KP_OK);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    KT_CHECK_INT(c.oom_kills, 3);
    KT_CHECK_INT(c.kubelet_evictions, 0);
    KT_CHECK_INT(kp_sim_pod_get(sim, (size_t)kp_cluster_find_pod(cl, "leaky"))->restarts, 3);
    int64_t want[] = {190000, 380000, 570000};
    size_t k = 0;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "SystemOOM") != 0) continue;
        KT_CHECK(e->type == KP_SIM_WARNING && strcmp(e->kind, "Node") == 0);
        KT_CHECK_CONTAINS(e->message, "System OOM encountered, victim process: app, pid: ");
        if (k < 3) KT_CHECK_INT(e->t_ms, want[k]);
        const kp_sim_event *n = kp_sim_event_get(sim, i + 1);
        KT_CHECK(n && strcmp(n->reason, "Started") == 0 &&
                 strcmp(n->message, "Started container app") == 0 && n->cause == (kp_index)i);
        k++;
    }
    KT_CHECK_INT(k, 3);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

/* ---- --dump-summaries replayed through the engine of `kprio evict` ---- */

static const char *DUMP_CLUSTER =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {cpu: \"8\", memory: "
    "6Gi, ephemeral-storage: 20Gi, pods: \"110\"}\n  allocatable: {cpu: \"8\", memory: 6Gi, "
    "ephemeral-storage: 19Gi, pods: \"110\"}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: "
    "n2}\nstatus:\n  allocatable: {cpu: \"8\", memory: 6Gi, pods: \"110\"}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: mem, namespace: default, uid: u-mem, "
    "labels: {app: mem}}\nspec: {nodeName: n1, priority: 10, containers: [{name: c, image: i, "
    "resources: {requests: {memory: 1Gi}}}]}\nstatus: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: logs, namespace: default, uid: u-logs, "
    "labels: {app: logs}}\nspec: {nodeName: n1, containers: [{name: c, image: i}]}\n"
    "status: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: scratch, namespace: default, uid: "
    "u-scratch, labels: {app: scratch}}\nspec:\n  nodeName: n1\n  containers: [{name: c, image: "
    "i, resources: {requests: {memory: 512Mi}}}]\n  volumes: [{name: tmp, emptyDir: {sizeLimit: "
    "2Gi}}]\nstatus: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: quiet, namespace: default, uid: u-quiet, "
    "labels: {app: quiet}}\nspec: {nodeName: n1, priority: 1000, containers: [{name: c, image: "
    "i, resources: {requests: {memory: 2Gi}}}]}\nstatus: {phase: Running}\n";
static const char *DUMP_KUBELET =
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  "
    "memory.available: 500Mi\n  nodefs.available: 10%\nevictionSoft:\n  memory.available: "
    "1Gi\nevictionSoftGracePeriod:\n  memory.available: 1m\nevictionMaxPodGracePeriod: 20\n";
static const char *DUMP_SCENARIO =
    HEAD "duration: 30m\nusage:\n- selector: {matchLabels: {app: mem}}\n  resource: memory\n"
         "  ramp: {start: 1Gi, perMinute: 200Mi}\n- selector: {matchLabels: {app: logs}}\n  "
         "resource: logs\n  ramp: {start: 0, perMinute: 1Gi}\n- selector: {matchLabels: {app: "
         "scratch}}\n  resource: emptyDir\n  periodic: {shape: sine, period: 20m, min: 0, max: "
         "3Gi}\n- node: n1\n  resource: memory\n  periodic: {shape: square, period: 6m, min: "
         "100Mi, max: 900Mi}\n";

typedef struct {
    kp_index node;
    char dir[512];
    size_t n;
} dump_ctx;

static kp_status dump_hook(void *ctx, const kp_sim *sim, kp_index node, const char *json,
                           size_t len, kp_error *err) {
    dump_ctx *d = ctx;
    if (node != d->node) return KP_OK;
    d->n++;
    return kp_evict_summary_write_dir(d->dir, "n1", kp_sim_now(sim), json, len, err);
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_layout(kp_evict_fs_layout layout) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = cluster_of(DUMP_CLUSTER);
    kp_evict_config *cfg = config_of(DUMP_KUBELET);
    kp_scenario *sc = load(DUMP_SCENARIO, &err);
    dump_ctx d;
    memset(&d, 0, sizeof d);
    d.node = kp_cluster_find_node(cl, "n1");
    snprintf(d.dir, sizeof d.dir, "%s", tmp_path("dump"));
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.kubelet_config = cfg;
    o.fs_layout = layout;
    o.summary_hook = dump_hook;
    o.summary_ctx = &d;
    kp_sim *sim = NULL;
    KT_CHECK_INT(kp_sim_new(cl, NULL, sc, &o, &sim, &err), KP_OK);
    if (!sim) return;
    KT_CHECK_INT(kp_sim_run(sim, &err), KP_OK);
    /* the simulation's evictions on n1: time and pod */
    char sim_ev[64][80], rep_ev[64][80];
    size_t n_sim = 0, n_rep = 0;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->type != KP_SIM_WARNING || strcmp(e->reason, "Evicted") != 0 || e->node != d.node)
            continue;
        if (n_sim < 64) snprintf(sim_ev[n_sim++], 80, "%lld %s", (long long)e->t_ms, e->name);
    }
    KT_CHECK(n_sim >= 3); /* a memory (soft, then hard), a disk and an emptyDir eviction */
    /* the replay: a fresh cluster and manager, one step per file in name order */
    kp_cluster *cl2 = cluster_of(DUMP_CLUSTER);
    kp_evict_config *cfg2 = config_of(DUMP_KUBELET);
    kp_evict_manager *m = NULL;
    KT_CHECK_INT(kp_evict_manager_new(cl2, kp_cluster_find_node(cl2, "n1"), cfg2, &m, &err), KP_OK);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/n1", d.dir);
    DIR *dh = opendir(dir);
    KT_CHECK(dh != NULL);
    char *names[4096];
    size_t n_names = 0;
    for (struct dirent *de; dh && (de = readdir(dh)) && n_names < 4096;)
        if (de->d_name[0] != '.') names[n_names++] = strdup(de->d_name);
    if (dh) closedir(dh);
    KT_CHECK_INT(n_names, d.n);
    qsort(names, n_names, sizeof *names, name_cmp);
    for (size_t i = 0; i < n_names && m; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        kp_evict_summary *s = NULL;
        KT_CHECK_INT(kp_evict_summary_load_path(path, &s, &err), KP_OK);
        kp_evict_result res;
        if (s) KT_CHECK_INT(kp_evict_manager_step(m, s, &res, &err), KP_OK);
        for (size_t j = 0; s && j < res.n_evicted && n_rep < 64; j++)
            snprintf(rep_ev[n_rep++], 80, "%lld %s", atoll(names[i]),
                     kp_cluster_pod_name(cl2, res.evicted[j].pod));
        kp_evict_summary_free(s);
    }
    KT_CHECK_INT(n_rep, n_sim);
    for (size_t i = 0; i < n_sim && i < n_rep; i++) KT_CHECK_STR(rep_ev[i], sim_ev[i]);
    for (size_t i = 0; i < n_names; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
        free(names[i]);
    }
    rmdir(dir);
    rmdir(d.dir);
    kp_evict_manager_free(m);
    kp_evict_config_free(cfg2);
    kp_cluster_free(cl2);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_evict_config_free(cfg);
    kp_cluster_free(cl);
}

/* One node's dumped summaries, fed in file-name order to a fresh manager over the same cluster
 * and kubelet configuration (what `kprio evict --summary DIR/n1` runs), evict the same pods at
 * the same passes as the simulation did; for each filesystem layout the nodes may have (the
 * manager detects it from the first summary in both). */
KT_TEST(dumped_summaries_replay_to_the_same_evictions) {
    replay_layout(KP_EVFS_SHARED);
    replay_layout(KP_EVFS_DEDICATED);
    replay_layout(KP_EVFS_SPLIT);
}

/* ---- random runs: every observation non-negative, every eviction justified ---- */

static const char *PROP_KUBELET =
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  "
    "memory.available: 100Mi\n  nodefs.available: 10%\n  nodefs.inodesFree: 5%\n  "
    "imagefs.available: 15%\n  pid.available: 10%\n";

static void gen(sbuf *b, sbuf *s, int *n_nodes) {
    *n_nodes = 2 + (int)rnd(3);
    for (int i = 0; i < *n_nodes; i++)
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: "
            "{kubernetes.io/hostname: n%d}}\nstatus:\n  capacity: {cpu: \"8\", memory: %dGi, "
            "ephemeral-storage: %dGi, pods: \"110\"}\n  allocatable: {cpu: \"8\", memory: %dGi, "
            "ephemeral-storage: %dGi, pods: \"110\"}\n",
            i, i, 3 + i % 3, 10 + i, 3 + i % 3, 9 + i);
    static const char *const kinds[] = {"mem", "logs", "rootfs", "scratch", "pids", "inodes"};
    for (int w = 0; w < 6; w++) {
        const char *k = kinds[rnd(6)];
        bool crit = rnd(4) == 0;
        unsigned reps = 1 + rnd(3);
        char spec[512];
        snprintf(spec, sizeof spec,
                 "%scontainers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: "
                 "%uMi}, limits: {memory: %uMi%s}}}]\n  volumes: [{name: tmp, emptyDir: "
                 "{sizeLimit: %uGi}}]\n",
                 crit ? "priorityClassName: system-node-critical\n  " : "", 64 + 64 * rnd(4),
                 rnd(2) ? 4096 : 1024 + 512 * rnd(4), rnd(3) ? "" : ", ephemeral-storage: 3Gi",
                 1 + rnd(3));
        for (unsigned r = 0; r < reps; r++)
            put(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: w%d-%u\n  namespace: "
                "default\n  uid: uid-w%d-%u\n  labels: {app: w%d, kind: %s}\nspec:\n  nodeName: "
                "n%u\n  %sstatus: {phase: Running}\n",
                w, r, w, r, w, k, rnd((uint32_t)*n_nodes), spec);
    }
    for (int i = 0; i < 3; i++) /* static pods: never evicted by the manager */
        put(b,
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: static-%d\n  namespace: "
            "kube-system\n  labels: {kind: %s}\n  annotations: {kubernetes.io/config.source: "
            "file}\nspec:\n  nodeName: n%d\n  containers: [{name: c, image: i, resources: "
            "{requests: {memory: 64Mi}}}]\nstatus: {phase: Running}\n",
            i, kinds[rnd(6)], i % *n_nodes);
    put(s,
        HEAD "duration: 40m\nusage:\n"
             "- selector: {matchLabels: {kind: mem}}\n  resource: memory\n"
             "  ramp: {start: 50Mi, perMinute: %uMi}\n"
             "- selector: {matchLabels: {kind: logs}}\n  resource: logs\n"
             "  ramp: {start: 0, perMinute: %uMi}\n"
             "- selector: {matchLabels: {kind: rootfs}}\n  resource: rootfs\n"
             "  periodic: {shape: sine, period: %um, min: 0, max: %uGi}\n"
             "- selector: {matchLabels: {kind: scratch}}\n  resource: emptyDir\n"
             "  step: {before: 1Mi, after: %uGi, at: %um}\n"
             "- selector: {matchLabels: {kind: pids}}\n  resource: pids\n"
             "  ramp: {start: 5, perMinute: %u}\n"
             "- selector: {matchLabels: {kind: inodes}}\n  resource: inodes\n"
             "  ramp: {start: 5, perMinute: %u}\n"
             "- node: n0\n  resource: nodefs\n  periodic: {shape: square, period: 7m, min: 1Gi, "
             "max: %uGi}\n",
        20 + rnd(300), 50 + rnd(1000), 2 + rnd(10), 1 + rnd(6), 1 + rnd(4), 1 + rnd(20),
        100 + rnd(3000), 1000 + rnd(40000), 1 + rnd(8));
}

typedef struct {
    char **last; /* per node: the summary of its latest pass */
    int64_t *last_t;
    size_t n;
    int negative;
} prop_ctx;

static kp_status prop_hook(void *ctx, const kp_sim *sim, kp_index node, const char *json,
                           size_t len, kp_error *err) {
    (void)err;
    prop_ctx *p = ctx;
    if ((size_t)node >= p->n) {
        size_t n = (size_t)node + 8;
        p->last = realloc(p->last, n * sizeof *p->last);
        p->last_t = realloc(p->last_t, n * sizeof *p->last_t);
        for (size_t i = p->n; i < n; i++) p->last[i] = NULL;
        p->n = n;
    }
    free(p->last[node]);
    p->last[node] = malloc(len + 1);
    memcpy(p->last[node], json, len);
    p->last[node][len] = 0;
    p->last_t[node] = kp_sim_now(sim);
    for (const char *q = json; (q = strstr(q, ":-")) != NULL; q++) p->negative++;
    return KP_OK;
}

/* the number after "key": at or after from (-1 when absent) */
static long long num(const char *from, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *q = from ? strstr(from, k) : NULL;
    return q ? atoll(q + strlen(k)) : -1;
}

static bool justified(const char *sum, const char *msg) {
    if (strncmp(msg, "Usage of EmptyDir volume", 24) == 0 ||
        strncmp(msg, "Pod ephemeral local storage usage exceeds", 41) == 0 ||
        (strncmp(msg, "Container ", 10) == 0 && strstr(msg, "local ephemeral storage limit")))
        return true; /* local storage limits: the engine's own checks, by their messages */
    const char *node = strstr(sum, "\"node\":{");
    const char *mem = node ? strstr(node, "\"memory\":") : NULL;
    const char *fs = node ? strstr(node, "\"fs\":") : NULL;
    const char *img = node ? strstr(node, "\"imageFs\":") : NULL;
    const char *rl = node ? strstr(node, "\"rlimit\":") : NULL;
    const char *pods = node ? strstr(node, "\"systemContainers\":") : NULL;
    if (num(mem, "availableBytes") < 100 * MI || num(pods, "availableBytes") < 100 * MI)
        return strstr(msg, "low on resource: memory") != NULL;
    long long cap = num(fs, "capacityBytes");
    if (num(fs, "availableBytes") * 10 < cap || num(img, "availableBytes") * 100 < cap * 15 ||
        num(fs, "inodesFree") * 100 < num(fs, "inodes") * 5)
        return strstr(msg, "low on resource: ephemeral-storage") ||
               strstr(msg, "low on resource: inodes");
    long long maxpid = num(rl, "maxpid");
    if ((maxpid - num(rl, "curproc")) * 10 < maxpid)
        return strstr(msg, "low on resource: pids") != NULL;
    return false;
}

KT_TEST(random_runs_observe_and_evict_as_upstream_would) {
    int evictions = 0, kinds_local = 0, kinds_disk = 0, kinds_pid = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        rng = seed;
        sbuf b = {0}, s = {0};
        int n_nodes;
        gen(&b, &s, &n_nodes);
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        kp_scenario *sc = NULL;
        kp_evict_config *cfg = config_of(PROP_KUBELET);
        KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", b.buf, b.len, &err), KP_OK);
        KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", s.buf, s.len, NULL, &sc, &err), KP_OK);
        prop_ctx pc;
        memset(&pc, 0, sizeof pc);
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.kubelet_config = cfg;
        o.summary_hook = prop_hook;
        o.summary_ctx = &pc;
        kp_sim *sim = NULL;
        if (cl && sc && kp_cluster_finalize(cl, &err) == KP_OK)
            KT_CHECK_INT(kp_sim_new(cl, NULL, sc, &o, &sim, &err), KP_OK);
        size_t seen = 0;
        bool more = sim != NULL;
        while (more) {
            if (kp_sim_step(sim, &more, &err) != KP_OK) {
                KT_CHECK_STR(err.msg, "");
                break;
            }
            for (; seen < kp_sim_event_count(sim); seen++) {
                const kp_sim_event *e = kp_sim_event_get(sim, seen);
                if (e->type != KP_SIM_WARNING || strcmp(e->reason, "Evicted") != 0) continue;
                kp_pod_info pi;
                KT_CHECK_INT(kp_cluster_pod_info(cl, e->pod, &pi), KP_OK);
                KT_CHECK(!pi.is_critical && !pi.is_static && !pi.is_mirror);
                /* the summary of this very pass */
                bool have =
                    (size_t)e->node < pc.n && pc.last[e->node] && pc.last_t[e->node] == e->t_ms;
                KT_CHECK(have);
                if (!have) continue;
                bool ok = justified(pc.last[e->node], e->message);
                if (!ok) fprintf(stderr, "not justified: %s\n", e->message);
                KT_CHECK(ok);
                evictions++;
                kinds_local += strstr(e->message, "low on resource") == NULL;
                kinds_disk += strstr(e->message, "ephemeral-storage") != NULL;
                kinds_pid += strstr(e->message, "resource: pids") != NULL;
            }
        }
        KT_CHECK_INT(pc.negative, 0); /* no usage, capacity or availability below zero */
        for (size_t i = 0; i < pc.n; i++) free(pc.last[i]);
        free(pc.last);
        free(pc.last_t);
        kp_sim_free(sim);
        kp_scenario_free(sc);
        kp_evict_config_free(cfg);
        kp_cluster_free(cl);
        free(b.buf);
        free(s.buf);
    }
    /* the runs evict, for every kind of reason: the checks above ran */
    KT_CHECK(evictions > 20);
    KT_CHECK(kinds_local > 0 && kinds_disk > 0 && kinds_pid > 0);
}

KT_MAIN(KT_CASE(resources_periodic_and_trace_decoded), KT_CASE(usage_scope_and_trace_errors),
        KT_CASE(oom_kills_restart_the_container),
        KT_CASE(dumped_summaries_replay_to_the_same_evictions),
        KT_CASE(random_runs_observe_and_evict_as_upstream_would))
