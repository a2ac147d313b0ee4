/* libFuzzer harness for the scenario's actions played (kp_sim over kp_scenario_load_buffer):
 * a scenario that loads runs for at most ten minutes of virtual time on a tiny fixed cluster (two
 * nodes, a ReplicaSet, a Job, a CronJob, a PDB, a PriorityClass, a bare pod), with the run's
 * limits lowered so that a run is quick (KP_SIM_MAX_* errors are answers too). Any input must
 * end in KP_OK or a clean error with a message: crashes, hangs, leaks and sanitizer reports are
 * bugs. After the run every pod names a node that exists and the event log's times never go
 * back. `file:` entries are relative to a directory that does not exist. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {pool: a}}\n"
    "status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {pool: b}}\n"
    "status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n---\n"
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web, namespace: default}\n"
    "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
    "    metadata: {labels: {app: web}}\n"
    "    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}\n---\n"
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
    "spec:\n  completions: 3\n  parallelism: 2\n  template:\n    metadata: {labels: {app: j}}\n"
    "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n---\n"
    "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj, namespace: default}\n"
    "spec:\n  schedule: '*/2 * * * *'\n  jobTemplate:\n    spec:\n      template:\n"
    "        metadata: {labels: {app: cj}}\n"
    "        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n---\n"
    "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: default}\n"
    "spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\n"
    "spec: {nodeName: n1, priorityClassName: high, containers: [{name: c, image: i}]}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 16)) return 0;
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_scenario_load_buffer("fuzz.yaml", (const char *)data, size,
                                           "/nonexistent-kprio-fuzz", &sc, &err);
    if (st != KP_OK && (err.msg[0] == 0 || sc)) abort();
    if (st != KP_OK) return 0;
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        kp_scenario_free(sc);
        return 0;
    }
    if (kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES) != KP_OK ||
        kp_cluster_load_buffer(cl, "base.yaml", BASE, sizeof BASE - 1, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "base cluster: %s\n", err.msg);
        abort();
    }
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 10 * 60 * 1000; /* ten minutes at most, whatever the scenario says */
    o.max_created_pods = 500;
    o.max_rounds_per_instant = 200;
    kp_sim *sim = NULL;
    kp_error_clear(&err);
    st = kp_sim_new(cl, NULL, sc, &o, &sim, &err);
    if (st == KP_OK) st = kp_sim_run(sim, &err);
    if (st != KP_OK && !err.msg[0]) abort();
    if (sim) {
        int64_t last = 0;
        for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
            const kp_sim_event *e = kp_sim_event_get(sim, i);
            if (e->t_ms < last) abort();
            last = e->t_ms;
        }
        for (size_t p = 0; p < kp_cluster_pod_count(cl); p++)
            if (kp_cluster_pod_node(cl, (kp_index)p) >= (kp_index)kp_cluster_node_count(cl))
                abort();
    }
    kp_sim_free(sim);
    kp_cluster_free(cl);
    kp_scenario_free(sc);
    return 0;
}
