/* The controllers in the simulator (kprio/ctrl.h run by kp_sim; NodeShouldRunDaemonPod's cases
 * are test_ctrl_daemonset's): a DaemonSet pod
 * pinned to its node and tolerating what the controller tolerates (a cordoned node), an Indexed
 * Job's pod labelled with its completion index, a Job's backoffLimit (default 6), and randomised
 * runs (nodes added, deleted, tainted, drained; preemptions) where after every instant each node
 * that should run the DaemonSet has its pod and none has two running, no pod targets a node that
 * is gone, an Indexed Job never runs two pods of one index nor more than `parallelism`, a Job
 * past its backoffLimit has no running pod and makes none, and a completed Indexed Job had every
 * index succeed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/workload_ctrl.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "kprio/sim.h"
#include "text_buf.h"

static kp_cluster *load(const char *text) {
    kp_error err;
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(&err);
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_index workload(const kp_cluster *cl, const char *kind, const char *name) {
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info w;
        if (kp_cluster_workload_info(cl, (kp_index)i, &w) == KP_OK && strcmp(w.kind, kind) == 0 &&
            strcmp(w.name, name) == 0)
            return (kp_index)i;
    }
    return -1;
}

#define NODE(name, extra)                                                                    \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {zone: a}}\n" extra \
    "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
#define TAINT(key, effect) "spec: {taints: [{key: " key ", value: v, effect: " effect "}]}\n"
#define DS(name, spec)                                                                            \
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: " name ", namespace: default}\n" \
    "spec:\n  selector: {matchLabels: {app: " name "}}\n  template:\n    metadata: {labels: "     \
    "{app: " name "}}\n    spec:\n" spec "      containers: [{name: c, image: x}]\n"

static const char *CLUSTER = NODE("plain", "") NODE("nosched", TAINT("k", "NoSchedule")) NODE(
    "noexec",
    TAINT("k", "NoExecute")) NODE("cordoned",
                                  "spec: {unschedulable: true, taints: [{key: "
                                  "node.kubernetes.io/unschedulable, effect: NoSchedule}]}\n")
    NODE("pressure", TAINT("node.kubernetes.io/memory-pressure", "NoSchedule"))
        NODE("nonet", TAINT("node.kubernetes.io/network-unavailable", "NoSchedule")) NODE(
            "notready",
            TAINT("node.kubernetes.io/not-ready",
                  "NoExecute")) "---\napiVersion: v1\nkind: Node\nmetadata: {name: zoneb, labels: "
                                "{zone: b}}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: "
                                "\"110\"}}\n" DS("all", "")
                                    DS("sel", "      nodeSelector: {zone: b}\n")
                                        DS("named", "      nodeName: plain\n")
                                            DS("host", "      hostNetwork: true\n")
                                                DS("tol", "      tolerations: [{key: k, operator: "
                                                          "Exists, effect: NoSchedule}]\n");

/* The pod the controller makes for a node targets it (ReplaceDaemonSetPodNodeNameNodeAffinity)
 * and, cordoned as that node is, the scheduler binds it there (the controller's unschedulable
 * toleration); the emptier nodes do not take it. */
KT_TEST(daemon_pod_pinned_and_tolerated) {
    kp_cluster *cl = load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_error err;
    kp_index ds = workload(cl, "DaemonSet", "all"), node = kp_cluster_find_node(cl, "cordoned");
    kp_index p = -1;
    KT_CHECK_INT(kp_cluster_create_daemon_pod(cl, ds, node, "all-x1", 7, &p, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_target_node(cl, p), node);
    kp_pod_info pi;
    kp_cluster_pod_info(cl, p, &pi);
    KT_CHECK_STR(pi.owner_kind, "DaemonSet");
    KT_CHECK_STR(pi.owner_name, "all");
    KT_CHECK(pi.node == -1 && pi.creation_ts == 7);
    kp_sched_options o;
    kp_sched_options_init(&o);
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, NULL, &o, &s, &err), KP_OK);
    if (s) {
        KT_CHECK_INT(kp_sched_schedule_one(s, p, &err), KP_OK);
        KT_CHECK_INT(kp_cluster_pod_node(cl, p), node);
        kp_sched_free(s);
    }
    /* the plain create refuses a DaemonSet (its pod is made for a node); a deleted node */
    kp_index q = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, ds, -1, "all-x2", 7, &q, &err), KP_EINVAL);
    kp_index zb = kp_cluster_find_node(cl, "zoneb");
    kp_index pz = -1;
    KT_CHECK_INT(kp_cluster_create_daemon_pod(cl, ds, zb, "all-x5", 7, &pz, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_target_node(cl, pz), zb);
    KT_CHECK_INT(kp_cluster_delete_node(cl, zb, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_target_node(cl, pz), -2); /* names a node that is gone */
    KT_CHECK_INT(kp_cluster_pod_target_node(cl, kp_cluster_find_pod(cl, "default/nope")), -1);
    KT_CHECK_INT(kp_cluster_create_daemon_pod(cl, ds, zb, "all-x3", 7, &q, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_create_daemon_pod(cl, workload(cl, "DaemonSet", "sel") - 100, 0,
                                              "all-x4", 7, &q, &err),
                 KP_EINVAL);
    kp_cluster_free(cl);
}

static bool has_label(const kp_cluster *cl, kp_index pod, const char *key, const char *val) {
    char *values[] = {(char *)val};
    kp_selector_req r = {(char *)key, (char *)"In", values, 1};
    return kp_cluster_pod_matches(cl, pod, &r, 1);
}

/* An Indexed Job's pod NAME-INDEX-xxxxx carries its completion index (addCompletionIndexLabel)
 * and the job-name labels; the Job's completionMode and backoffLimit reach the simulator. */
KT_TEST(job_index_and_backoff_limit) {
    kp_cluster *cl =
        load(NODE("plain", "") "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: r, "
                               "namespace: default}\nspec:\n  completionMode: Indexed\n  "
                               "completions: 12\n  backoffLimit: 2\n  template:\n    spec:\n"
                               "      restartPolicy: Never\n      containers: [{name: c, image: "
                               "x}]\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: q, "
                               "namespace: default}\nspec:\n  template:\n    spec:\n"
                               "      restartPolicy: Never\n      containers: [{name: c, image: "
                               "x}]\n");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_workload_info wi;
    kp_index r = workload(cl, "Job", "r"), q = workload(cl, "Job", "q");
    KT_CHECK_INT(kp_cluster_workload_info(cl, r, &wi), KP_OK);
    KT_CHECK(wi.indexed && wi.backoff_limit == 2 && wi.completions == 12);
    KT_CHECK_INT(kp_cluster_workload_info(cl, q, &wi), KP_OK);
    KT_CHECK(!wi.indexed && wi.backoff_limit == 6); /* SetDefaults_Job */
    kp_error err;
    kp_index p = -1;
    KT_CHECK_INT(kp_cluster_create_pod(cl, r, -1, "r-10-abcde", 1, &p, &err), KP_OK);
    KT_CHECK(has_label(cl, p, "batch.kubernetes.io/job-completion-index", "10"));
    KT_CHECK(has_label(cl, p, "batch.kubernetes.io/job-name", "r"));
    KT_CHECK(has_label(cl, p, "job-name", "r"));
    KT_CHECK_INT(kp_cluster_create_pod(cl, q, -1, "q-7-abcde", 1, &p, &err), KP_OK);
    KT_CHECK(!has_label(cl, p, "batch.kubernetes.io/job-completion-index", "7")); /* NonIndexed */
    kp_cluster_free(cl);
}

/* ---------------------------------------------------------------- randomised runs */

static kp_scenario_object *object(const char *text) {
    kp_scenario_object *o = calloc(1, sizeof *o);
    char *t = malloc(strlen(text) + 1);
    if (!o || !t) abort();
    memcpy(t, text, strlen(text) + 1);
    *o = (kp_scenario_object){(char *)"random", t, strlen(t)};
    return o;
}

/* Nodes n0.. (4 cpu), the DaemonSet agent (100m, priority 0; tolerates nothing), the Indexed Job
 * r (1 cpu per pod) and random actions: nodes created, deleted, tainted NoSchedule / NoExecute,
 * untainted, cordoned, drained; high-priority pods (2 cpu) that preempt. */
static void gen(sbuf *b, kp_scenario *sc, int *parallelism, int *completions) {
    int n_nodes = 2 + (int)rnd(3);
    *parallelism = 1 + (int)rnd(4);
    *completions = *parallelism + (int)rnd(6);
    put(b, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
           "value: 1000\n");
    for (int i = 0; i < n_nodes; i++)
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: "
            "{kubernetes.io/hostname: n%d}}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, "
            "pods: \"110\"}}\n",
            i, i);
    put(b, DS("agent", "      terminationGracePeriodSeconds: %u\n"), rnd(20));
    put(b,
        "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: r, namespace: default}\nspec:\n"
        "  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n  backoffLimit: %u\n"
        "  template:\n    metadata: {labels: {app: r}}\n    spec:\n      restartPolicy: Never\n"
        "      terminationGracePeriodSeconds: %u\n      containers: [{name: c, image: x, "
        "resources: {requests: {cpu: \"1\"}}}]\n",
        *completions, *parallelism, rnd(4), rnd(15));
    memset(sc, 0, sizeof *sc);
    sc->source = (char *)"random";
    static kp_selector_req req;
    static char *app_r[] = {(char *)"r"};
    req = (kp_selector_req){(char *)"app", (char *)"In", app_r, 1};
    sc->lifetimes = calloc(1, sizeof *sc->lifetimes);
    if (!sc->lifetimes) abort();
    sc->lifetimes[0] = (kp_scenario_lifetime){(char *)"", &req, 1, 20000 + (int64_t)rnd(40) * 1000};
    sc->n_lifetimes = 1;
    int n = 6 + (int)rnd(8);
    sc->actions = calloc((size_t)n, sizeof *sc->actions);
    if (!sc->actions) abort();
    sc->n_actions = (size_t)n;
    static char names[16][16];
    bool deleted = false;
    for (int i = 0; i < n; i++) {
        kp_scenario_action *a = &sc->actions[i];
        a->at_ms = (int64_t)rnd(300) * 1000;
        char *nm = names[i];
        /* the last node is only ever deleted (once): an action on a deleted node fails */
        bool del = !deleted && rnd(5) == 0;
        deleted |= del;
        snprintf(nm, sizeof names[i], "n%u",
                 del ? (unsigned)n_nodes - 1 : rnd((uint32_t)n_nodes - 1));
        a->ref = (kp_object_ref){(char *)"Node", (char *)"", nm};
        a->taint = (kp_scenario_taint){(char *)"k", (char *)"v",
                                       rnd(2) ? (char *)"NoExecute" : (char *)"NoSchedule"};
        static const kp_action_type types[] = {KP_ACT_CREATE,  KP_ACT_CREATE, KP_ACT_TAINT,
                                               KP_ACT_UNTAINT, KP_ACT_CORDON, KP_ACT_DRAIN};
        a->type = del ? KP_ACT_DELETE : types[rnd(6)];
        if (a->type != KP_ACT_CREATE) continue;
        a->n_objects = 1;
        char text[512];
        if (rnd(2))
            snprintf(text, sizeof text,
                     "apiVersion: v1\nkind: Node\nmetadata: {name: x%d, labels: "
                     "{kubernetes.io/hostname: x%d}}\nstatus: {allocatable: {cpu: \"4\", memory: "
                     "8Gi, pods: \"110\"}}\n",
                     i, i);
        else
            snprintf(text, sizeof text,
                     "apiVersion: v1\nkind: Pod\nmetadata: {name: u%d, namespace: default}\n"
                     "spec:\n  priorityClassName: high\n  containers: [{name: c, image: x, "
                     "resources: {requests: {cpu: \"2\"}}}]\n",
                     i);
        a->objects = object(text);
        a->ref.kind = (char *)"Pod"; /* unused by create */
    }
}

static void free_scenario(kp_scenario *sc) {
    for (size_t i = 0; i < sc->n_actions; i++)
        if (sc->actions[i].objects) {
            free(sc->actions[i].objects->text);
            free(sc->actions[i].objects);
        }
    free(sc->actions);
    free(sc->lifetimes);
}

static int64_t index_of(const char *name) { /* r-INDEX-xxxxx */
    if (strncmp(name, "r-", 2) != 0) return -1;
    char *end;
    long v = strtol(name + 2, &end, 10);
    return end > name + 2 && *end == '-' ? v : -1;
}

/* The invariants after an instant (see the file's comment); *failed: the Job hit its limit. */
static void check_instant(kp_sim *sim, int parallelism, int completions, bool failed) {
    kp_cluster *cl = kp_sim_cluster(sim);
    kp_index ds = workload(cl, "DaemonSet", "agent"), job = workload(cl, "Job", "r");
    size_t nn = kp_cluster_node_count(cl);
    int *pods = calloc(nn + 1, sizeof *pods), *running = calloc(nn + 1, sizeof *running);
    int *by_index = calloc((size_t)completions + 1, sizeof *by_index), active = 0;
    if (!pods || !running || !by_index) abort();
    for (size_t i = 0; i < kp_cluster_pod_count(cl); i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(cl, (kp_index)i, &pi);
        if (pi.deleted) continue;
        kp_index w = kp_cluster_pod_workload(cl, (kp_index)i);
        bool live = !pi.terminal && pi.deletion_ts == KP_TIME_UNSET;
        if (w == ds) {
            kp_index t = pi.node >= 0 ? pi.node : kp_cluster_pod_target_node(cl, (kp_index)i);
            KT_CHECK(t >= 0); /* never a pod for a node that is gone */
            if (t < 0) continue;
            pods[t]++;
            running[t] += live;
        } else if (w == job && live) {
            active++;
            int64_t ix = index_of(pi.name);
            KT_CHECK(ix >= 0 && ix < completions);
            if (ix >= 0 && ix < completions) by_index[ix]++;
        }
    }
    for (size_t n = 0; n < nn; n++) {
        bool run, cont;
        if (kp_cluster_node_deleted(cl, (kp_index)n)) continue;
        kp__daemon_should_run(cl, &cl->workloads[ds], &cl->nodes[n], &run, &cont); /* core's */
        if (run) KT_CHECK(pods[n] >= 1);
        if (!cont) KT_CHECK_INT(running[n], 0);
        KT_CHECK(running[n] <= 1);
    }
    KT_CHECK(active <= parallelism);
    for (int i = 0; i < completions; i++) KT_CHECK(by_index[i] <= 1);
    if (failed) KT_CHECK_INT(active, 0);
    free(pods), free(running), free(by_index);
}

KT_TEST(random_runs_keep_the_controllers_rules) {
    int runs = 0, completed = 0, failed_runs = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        rng = seed;
        sbuf b = {0};
        kp_scenario sc;
        int parallelism, completions;
        gen(&b, &sc, &parallelism, &completions);
        kp_cluster *cl = load(b.buf);
        KT_CHECK(cl != NULL);
        kp_sim *sim = NULL;
        kp_sim_options o;
        kp_sim_options_init(&o);
        kp_error err;
        if (cl) KT_CHECK_INT(kp_sim_new(cl, NULL, &sc, &o, &sim, &err), KP_OK);
        bool more = sim != NULL, failed = false;
        size_t seen = 0;
        while (more) {
            kp_status st = kp_sim_step(sim, &more, &err);
            KT_CHECK_INT(st, KP_OK);
            if (st != KP_OK) break;
            for (; seen < kp_sim_event_count(sim); seen++) {
                const kp_sim_event *e = kp_sim_event_get(sim, seen);
                if (strcmp(e->kind, "Job") != 0) continue;
                if (strcmp(e->reason, "SuccessfulCreate") == 0) KT_CHECK(!failed);
                if (strcmp(e->reason, "BackoffLimitExceeded") == 0) failed = true;
                if (strcmp(e->reason, "Completed") == 0) {
                    completed++;
                    /* every index succeeded */
                    int *ok = calloc((size_t)completions, sizeof *ok);
                    if (!ok) abort();
                    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
                        const kp_sim_pod *tp = kp_sim_pod_get(sim, i);
                        int64_t ix = index_of(kp_cluster_pod_name(cl, tp->pod));
                        if (tp->state == KP_SIM_POD_SUCCEEDED && ix >= 0 && ix < completions)
                            ok[ix] = 1;
                    }
                    for (int k = 0; k < completions; k++) KT_CHECK(ok[k]);
                    free(ok);
                }
            }
            check_instant(sim, parallelism, completions, failed);
        }
        failed_runs += failed;
        runs++;
        kp_sim_free(sim);
        kp_cluster_free(cl);
        free_scenario(&sc);
        free(b.buf);
    }
    fprintf(stderr, "  %d runs: %d Jobs completed, %d failed their backoffLimit\n", runs, completed,
            failed_runs);
    KT_CHECK(completed > 0 && failed_runs > 0); /* both ends were reached */
}

KT_MAIN(KT_CASE(daemon_pod_pinned_and_tolerated), KT_CASE(job_index_and_backoff_limit),
        KT_CASE(random_runs_keep_the_controllers_rules))
