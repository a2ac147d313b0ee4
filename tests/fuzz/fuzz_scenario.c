/* libFuzzer harness for Scenario files (kp_scenario_load_buffer, src/io/decode_scenario.c):
 * any input must end in KP_OK or a clean error with a message (crashes, leaks and sanitizer
 * reports are bugs). A scenario that loads is checked: its actions are well-formed (times at
 * least 0, every string set, taint effects and selector operators from their lists), the text
 * of every create object loads on its own (the decoder checked it), and the create actions are
 * played into a small finalized cluster: each load + finalize either succeeds or fails with a
 * message and leaves the cluster's counts as they were (nothing of a refused create is kept).
 * `file:` entries are relative to a directory that does not exist. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', "
    "memory: 8Gi, pods: '10'}}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
    "metadata: {name: high}\nvalue: 1000\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
    "spec: {nodeName: n1, containers: [{name: c, image: i}]}\n";

static void check_action(const kp_scenario_action *a) {
    if (a->at_ms < 0 || !a->ref.kind || !a->ref.ns || !a->ref.name || !a->taint.key ||
        !a->taint.value || !a->taint.effect)
        abort();
    if (a->type == KP_ACT_CREATE && (a->n_objects == 0 || !a->objects)) abort();
    if (a->type != KP_ACT_CREATE && a->type != KP_ACT_SET_PRIORITY_CLASS && !a->ref.name[0])
        abort();
    if (a->type == KP_ACT_TAINT && strcmp(a->taint.effect, "NoSchedule") != 0 &&
        strcmp(a->taint.effect, "PreferNoSchedule") != 0 &&
        strcmp(a->taint.effect, "NoExecute") != 0)
        abort();
    if (a->type == KP_ACT_SCALE && a->replicas < 0) abort();
}

static void check_lifetime(const kp_scenario_lifetime *l) {
    if (l->after_ms < 0 || !l->ns) abort();
    for (size_t i = 0; i < l->n_reqs; i++) {
        const kp_selector_req *r = &l->reqs[i];
        bool in = strcmp(r->op, "In") == 0 || strcmp(r->op, "NotIn") == 0;
        bool ex = strcmp(r->op, "Exists") == 0 || strcmp(r->op, "DoesNotExist") == 0;
        if (!r->key[0] || (!in && !ex) || (in && r->n_values == 0) || (ex && r->n_values)) abort();
    }
}

/* The create actions, played into a finalized cluster. */
static void play(const kp_scenario *sc) {
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return;
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES) != KP_OK ||
        kp_cluster_load_buffer(cl, "base.yaml", BASE, sizeof BASE - 1, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK)
        abort();
    static const char *const kinds[] = {
        "Pod", "Node", "PriorityClass", "PodDisruptionBudget", "ReplicaSet", "Namespace"};
    for (size_t i = 0; i < sc->n_actions; i++) {
        const kp_scenario_action *a = &sc->actions[i];
        for (size_t j = 0; j < a->n_objects; j++) {
            size_t before[6], np = kp_cluster_pod_count(cl), nn = kp_cluster_node_count(cl);
            for (int k = 0; k < 6; k++) before[k] = kp_cluster_object_count(cl, kinds[k]);
            kp_error_clear(&err);
            kp_status st = kp_cluster_load_buffer(cl, a->objects[j].source, a->objects[j].text,
                                                  a->objects[j].len, &err);
            if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
            if (st == KP_ENOMEM) continue;
            if (st != KP_OK) {
                if (!err.msg[0]) abort();
                if (kp_cluster_pod_count(cl) != np || kp_cluster_node_count(cl) != nn) abort();
                for (int k = 0; k < 6; k++)
                    if (kp_cluster_object_count(cl, kinds[k]) != before[k]) abort();
            }
            for (size_t p = 0; p < kp_cluster_pod_count(cl); p++) {
                kp_index node = kp_cluster_pod_node(cl, (kp_index)p);
                if (node >= (kp_index)kp_cluster_node_count(cl)) abort();
            }
        }
    }
    kp_cluster_free(cl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_scenario_load_buffer("fuzz.yaml", (const char *)data, size,
                                           "/nonexistent-kprio-fuzz", &sc, &err);
    if (st != KP_OK && (err.msg[0] == 0 || sc)) abort();
    if (st != KP_OK) return 0;
    for (size_t i = 0; i < sc->n_actions; i++) {
        check_action(&sc->actions[i]);
        for (size_t j = 0; j < sc->actions[i].n_objects; j++) {
            const kp_scenario_object *o = &sc->actions[i].objects[j];
            if (!o->source || !o->text || strlen(o->text) > o->len) abort();
            kp_cluster *cl = kp_cluster_new();
            if (!cl) continue;
            kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
            kp_error e2;
            kp_error_clear(&e2);
            st = kp_cluster_load_buffer(cl, o->source, o->text, o->len, &e2);
            if (st != KP_OK && st != KP_ENOMEM) {
                fprintf(stderr, "an object the decoder accepted does not load: %s\n%s\n", e2.msg,
                        o->text);
                abort();
            }
            kp_cluster_free(cl);
        }
    }
    for (size_t i = 0; i < sc->n_lifetimes; i++) check_lifetime(&sc->lifetimes[i]);
    play(sc);
    kp_scenario_free(sc);
    return 0;
}
