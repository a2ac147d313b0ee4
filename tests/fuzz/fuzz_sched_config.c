/* libFuzzer harness for the KubeSchedulerConfiguration decoder (kp_sched_config_load_buffer),
 * for the default profile and for a named one. Any input must end in KP_OK or a clean error
 * with a message; crashes, leaks and sanitizer reports are bugs. A configuration that loads is
 * then used: a scheduler with it runs a small fixed cluster (zones, priorities, a spread
 * constraint, an anti-affinity, a pod that must preempt), so plugin sets, weights and arguments
 * the decoder accepts are exercised too; every pod's result must name nodes that exist and
 * victims of lower priority. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/sched.h"

#define PADDING 64 /* the JSON back end may read up to 64 bytes past the end */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* clang-format off */
#define NODE(n, z) \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " n ", labels: {kubernetes.io/hostname: " \
    n ", topology.kubernetes.io/zone: " z "}}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, " \
    "pods: '4'}}\n"
#define POD(n, prio, node, cpu, extra) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " n ", namespace: default, labels: " \
    "{app: web}}\nspec:\n  priority: " prio "\n" node "  containers: [{name: c, image: x, " \
    "resources: {requests: {cpu: '" cpu "', memory: 1Gi}}}]\n" extra
static const char CLUSTER[] =
    NODE("n1", "a") NODE("n2", "a") NODE("n3", "b")
    POD("low1", "0", "  nodeName: n1\n", "1500m", "")
    POD("low2", "10", "  nodeName: n2\n", "1500m", "")
    POD("mid", "100", "  nodeName: n3\n", "1", "")
    POD("spread", "500", "", "500m",
        "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
        "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n")
    POD("anti", "500", "", "500m",
        "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n")
    POD("big", "1000", "", "2", "")
    POD("other", "1000", "  schedulerName: other\n", "1", "");
/* clang-format on */

static void run_config(const kp_sched_config *cfg, const char *name) {
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return;
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_load_buffer(cl, "cluster.yaml", CLUSTER, sizeof CLUSTER - 1, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "fuzz_sched_config: the fixed cluster does not load: %s\n", err.msg);
        abort();
    }
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.scheduler_name = name;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(cl, cfg, &o, &s, &err);
    if (st == KP_OK) st = kp_sched_run(s, &err);
    if (st != KP_OK && err.msg[0] == 0) abort();
    size_t nn = kp_cluster_node_count(cl);
    for (size_t i = 0; st == KP_OK && i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (!r || !r->message) abort();
        if (r->outcome == KP_OUTCOME_BOUND && (r->node < 0 || (size_t)r->node >= nn)) abort();
        if (r->outcome == KP_OUTCOME_NOMINATED &&
            (r->nominated_node < 0 || (size_t)r->nominated_node >= nn))
            abort();
        for (size_t v = 0; v < r->n_victims; v++)
            if (kp_cluster_pod_priority(cl, r->victims[v]) >= r->priority) abort();
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *buf = calloc(1, size + PADDING);
    if (!buf) return 0;
    memcpy(buf, data, size);
    static const char *const names[] = {NULL, "other"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        kp_sched_config *cfg = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp_sched_config_load_buffer("fuzz.yaml", buf, size, names[i], &cfg, &err);
        if (st != KP_OK && err.msg[0] == 0) abort(); /* every error must carry a message */
        if (st != KP_OK && cfg) abort(); /* no half-built result on error */
        if (st == KP_OK) run_config(cfg, names[i]);
        kp_sched_config_free(cfg);
    }
    free(buf);
    return 0;
}
