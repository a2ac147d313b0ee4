/* The controllers' rules the simulator reads through include/kprio/cluster.h (src/core/
 * workload_daemon.c, cluster_create.c): NodeShouldRunDaemonPod against upstream's
 * daemon_controller_test.go cases (node name, node selector, NoSchedule / NoExecute taints, the
 * tolerations the controller adds, network-unavailable with hostNetwork only), a DaemonSet pod
 * pinned to its node and tolerating what the controller tolerates (a cordoned node), an Indexed
 * Job's pod labelled with its completion index, and a Job's backoffLimit (default 6). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"

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

static int should(const kp_cluster *cl, const char *ds, const char *node) {
    bool run = true, cont = true;
    kp_status st = kp_cluster_daemonset_should_run(cl, workload(cl, "DaemonSet", ds),
                                                   kp_cluster_find_node(cl, node), &run, &cont);
    if (st != KP_OK) return -1;
    return (run ? 10 : 0) + (cont ? 1 : 0);
}

/* daemon_controller_test.go TestNodeShouldRunDaemonPod and the taint tests: (shouldRun,
 * shouldContinueRunning) as 10 * run + continue. */
KT_TEST(should_run_upstream_cases) {
    kp_cluster *cl = load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(should(cl, "all", "plain"), 11); /* "simple" */
    KT_CHECK_INT(should(cl, "all", "nosched"), 1); /* untolerated NoSchedule: keeps running */
    KT_CHECK_INT(should(cl, "all", "noexec"), 0); /* untolerated NoExecute: neither */
    KT_CHECK_INT(should(cl, "tol", "nosched"), 11); /* the template tolerates it */
    KT_CHECK_INT(should(cl, "all", "cordoned"), 11); /* unschedulable: the controller's */
    KT_CHECK_INT(should(cl, "all", "pressure"), 11); /* memory-pressure: the controller's */
    KT_CHECK_INT(should(cl, "all", "notready"), 11); /* not-ready NoExecute: the controller's */
    KT_CHECK_INT(should(cl, "all", "nonet"), 1); /* network-unavailable: hostNetwork only */
    KT_CHECK_INT(should(cl, "host", "nonet"), 11);
    KT_CHECK_INT(should(cl, "sel", "plain"), 0); /* "node selector mismatch" */
    KT_CHECK_INT(should(cl, "sel", "zoneb"), 11);
    KT_CHECK_INT(should(cl, "named", "plain"), 11); /* "node name" */
    KT_CHECK_INT(should(cl, "named", "zoneb"), 0); /* "node name mismatch" */
    /* not a DaemonSet, a node out of range */
    bool run, cont;
    KT_CHECK_INT(kp_cluster_daemonset_should_run(cl, -1, 0, &run, &cont), KP_EINVAL);
    KT_CHECK_INT(
        kp_cluster_daemonset_should_run(cl, workload(cl, "DaemonSet", "all"), 99, &run, &cont),
        KP_EINVAL);
    /* a deleted node runs nothing */
    kp_error err;
    kp_index plain = kp_cluster_find_node(cl, "plain");
    KT_CHECK_INT(kp_cluster_delete_node(cl, plain, &err), KP_OK);
    KT_CHECK_INT(
        kp_cluster_daemonset_should_run(cl, workload(cl, "DaemonSet", "all"), plain, &run, &cont),
        KP_OK);
    KT_CHECK(!run && !cont);
    kp_cluster_free(cl);
}

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
    KT_CHECK_INT(kp_cluster_delete_node(cl, zb, &err), KP_OK);
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

KT_MAIN(KT_CASE(should_run_upstream_cases), KT_CASE(daemon_pod_pinned_and_tolerated),
        KT_CASE(job_index_and_backoff_limit))
