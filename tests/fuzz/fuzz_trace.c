/* libFuzzer harness for trace directories (kp_trace_load, src/io/decode_trace*.c; docs/live.md
 * "Recording a trace"): the input is one watch file of a trace whose manifest and snapshot are
 * fixed. Any input must end in KP_OK or a clean error with a message (crashes, leaks and
 * sanitizer reports are bugs). A trace that loads is checked (actions in time order, every
 * string set, decisions in time order with a kind from the list), then replayed for its minute
 * against the snapshot and compared: the simulation may refuse an action with an error, never
 * crash, and the comparison's counts add up. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprio/cluster.h"
#include "kprio/sim.h"
#include "kprio/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SNAPSHOT[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', "
    "memory: 8Gi, pods: '10'}}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
    "metadata: {name: high}\nvalue: 1000\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, "
    "namespace: default, uid: ua}\nspec: {nodeName: n1, containers: [{name: c, image: i}]}\n";
static const char MANIFEST[] =
    "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"Trace\",\"start\":\"2026-01-01T00:00:00Z\","
    "\"end\":\"2026-01-01T00:01:00Z\",\"watch\":[\"w.json\"]}";

static char dir[64];

static void put(const char *name, const void *p, size_t n) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort();
}

static void cleanup(void) {
    static const char *const files[] = {"w.json", "manifest.json"};
    char path[128];
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/snapshot", dir);
    rmdir(path);
    rmdir(dir);
}

static void check(const kp_trace *tr) {
    const kp_scenario *sc = kp_trace_scenario(tr);
    for (size_t i = 0; i < sc->n_actions; i++) {
        const kp_scenario_action *a = &sc->actions[i];
        if (a->at_ms < 0 || (i && a->at_ms < sc->actions[i - 1].at_ms) || !a->ref.kind ||
            !a->ref.ns || !a->ref.name || !a->taint.key || !a->taint.value || !a->taint.effect)
            abort();
        if (a->type == KP_ACT_CREATE && (a->n_objects != 1 || !a->objects[0].text)) abort();
        if (a->type == KP_ACT_PATCH && !a->patch) abort();
    }
    for (size_t i = 0; i < kp_trace_decision_count(tr); i++) {
        const kp_trace_decision *d = kp_trace_decision_get(tr, i);
        if ((unsigned)d->kind >= KP_TRACE_N_DECISIONS || d->t_ms < 0 || !d->pod.ns ||
            !d->pod.name || !d->node || !d->message ||
            (i && d->t_ms < kp_trace_decision_get(tr, i - 1)->t_ms))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/kprio-fuzz-trace.%ld", (long)getpid());
        char snap[96];
        snprintf(snap, sizeof snap, "%s/snapshot", dir);
        mkdir(dir, 0700);
        mkdir(snap, 0700);
        put("manifest.json", MANIFEST, strlen(MANIFEST));
        atexit(cleanup);
    }
    put("w.json", data, size);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return 0;
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_buffer(cl, "snapshot", SNAPSHOT, strlen(SNAPSHOT), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK)
        abort();
    kp_trace *tr = NULL;
    if (kp_trace_load(dir, cl, &tr, &err) != KP_OK) {
        if (tr || !err.msg[0]) abort();
        kp_cluster_free(cl);
        return 0;
    }
    check(tr);
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.start_unix = kp_trace_start(tr);
    o.has_start = true;
    o.duration_ms = kp_trace_duration_ms(tr);
    o.max_created_pods = 1000;
    kp_sim *sim = NULL;
    kp_error_clear(&err);
    if (kp_sim_new(cl, NULL, kp_trace_scenario(tr), &o, &sim, &err) == KP_OK &&
        kp_sim_run(sim, &err) == KP_OK) {
        kp_trace_comparison *c = NULL;
        if (kp_trace_compare(tr, sim, &c, &err) == KP_OK) {
            uint64_t all = 0, agree = 0, sum = 0;
            kp_trace_agreement(c, KP_TRACE_N_DECISIONS, &all, &agree);
            for (int k = 0; k < KP_TRACE_N_DECISIONS; k++) {
                uint64_t n = 0, a = 0;
                kp_trace_agreement(c, (kp_trace_decision_kind)k, &n, &a);
                sum += n;
            }
            if (agree > all || sum != all || kp_trace_item_count(c) != all) abort();
            kp_trace_comparison_free(c);
        }
    } else if (!err.msg[0]) {
        abort();
    }
    kp_sim_free(sim);
    kp_trace_free(tr);
    kp_cluster_free(cl);
    return 0;
}
