/* The simulation's kubelets (issue 12): the Scenario's usage models (src/io/decode_scenario_usage
 * .c, docs/scenario.md "Usage") decoded with every error naming file, index and field, their
 * values over age, and randomised runs (src/sim/sim_kubelet.c) where every kubelet eviction is
 * checked: never a critical, static or mirror pod, always with a memory threshold met on its
 * node at that instant (recomputed here from the models, independently of the engine). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"
#include "kprio/eviction.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

#define MI (1024LL * 1024)
#define HEAD "apiVersion: kprio/v1alpha1\nkind: Scenario\n"

static kp_scenario *load(const char *text, kp_error *err) {
    kp_scenario *sc = NULL;
    kp_error_clear(err);
    kp_status st = kp_scenario_load_buffer("s.yaml", text, strlen(text), NULL, &sc, err);
    if (st != KP_OK) KT_CHECK(sc == NULL);
    return sc;
}

static char fail_msg[512];
static const char *fails(const char *text, kp_status want) {
    kp_error err;
    kp_scenario *sc = load(text, &err);
    KT_CHECK(sc == NULL);
    kp_scenario_free(sc);
    KT_CHECK_INT(err.code, want);
    KT_CHECK_STR(err.source, "s.yaml");
    snprintf(fail_msg, sizeof fail_msg, "%s", err.msg);
    return fail_msg;
}

KT_TEST(usage_models_decoded) {
    kp_error err;
    kp_scenario *sc = load(HEAD "usage:\n"
                                "- selector: {matchLabels: {app: a}}\n  namespace: team\n"
                                "  resource: memory\n  constant: {value: 1Gi}\n"
                                "- selector: {}\n  resource: memory\n"
                                "  ramp: {start: 100Mi, perMinute: 60Mi, cap: 1Gi}\n"
                                "- selector: {matchExpressions: [{key: x, operator: Exists}]}\n"
                                "  resource: memory\n  ramp: {start: 0, perMinute: 1Mi}\n"
                                "- selector: {}\n  resource: memory\n"
                                "  step: {before: 10Mi, after: 2Gi, at: 90s}\n",
                           &err);
    KT_CHECK(sc != NULL);
    if (!sc) return;
    KT_CHECK_INT(sc->n_usage, 4);
    const kp_scenario_usage *u = sc->usage;
    KT_CHECK_STR(u[0].ns, "team");
    KT_CHECK_STR(u[0].resource, "memory");
    KT_CHECK_INT(u[0].model, KP_USAGE_CONSTANT);
    KT_CHECK_INT(u[0].n_reqs, 1);
    KT_CHECK_STR(u[0].reqs[0].key, "app");
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 0), 1024 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[0], 3600000), 1024 * MI);
    KT_CHECK_INT(u[1].model, KP_USAGE_RAMP);
    KT_CHECK_STR(u[1].ns, "");
    KT_CHECK(u[1].has_cap && u[1].cap == 1024 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 0), 100 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 30000), 130 * MI); /* half a minute: 30Mi */
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 10 * 60000), 700 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], 60 * 60000), 1024 * MI); /* capped */
    KT_CHECK_INT(kp_scenario_usage_at(&u[1], -5), 100 * MI); /* no negative age */
    KT_CHECK(!u[2].has_cap);
    KT_CHECK_INT(kp_scenario_usage_at(&u[2], 1), (1 * MI) / 60000); /* rounded toward zero */
    /* no overflow: a century of a huge leak saturates at int64's largest value */
    kp_scenario_usage big = u[2];
    big.per_minute = INT64_MAX / 2;
    KT_CHECK_INT(kp_scenario_usage_at(&big, 100LL * 365 * 24 * 3600 * 1000), INT64_MAX);
    KT_CHECK_INT(u[3].model, KP_USAGE_STEP);
    KT_CHECK_INT(u[3].at_ms, 90000);
    KT_CHECK_INT(kp_scenario_usage_at(&u[3], 89999), 10 * MI);
    KT_CHECK_INT(kp_scenario_usage_at(&u[3], 90000), 2048 * MI);
    kp_scenario_free(sc);
}

KT_TEST(usage_errors) {
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n", KP_EINVAL),
                 "usage[0]: one model required: constant, ramp, step, periodic or trace");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n  constant: {value: 1}\n"
                            "  step: {before: 1, after: 2, at: 1s}\n",
                       KP_EINVAL),
                 "usage[0]: step: more than one model");
    KT_CHECK_STR(
        fails(HEAD "usage:\n- selector: {}\n  resource: memory\n  constant: {}\n", KP_EINVAL),
        "usage[0]: constant.value: required value");
    KT_CHECK_CONTAINS(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                                 "  constant: {value: 1Gx}\n",
                            KP_EINVAL),
                      "usage[0]: constant.value: invalid quantity \"1Gx\"");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  constant: {value: -1}\n",
                       KP_EINVAL),
                 "usage[0]: constant.value: must not be negative");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  ramp: {start: 1Gi, perMinute: 1Mi, cap: 1Mi}\n",
                       KP_EINVAL),
                 "usage[0]: ramp.cap: must not be below start");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  ramp: {start: 1Gi}\n",
                       KP_EINVAL),
                 "usage[0]: ramp.perMinute: required value");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  ramp: {start: 1, perMinute: 1, rate: 2}\n",
                       KP_EINVAL),
                 "usage[0]: ramp.rate: unknown field");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  step: {before: 1, after: 2}\n",
                       KP_EINVAL),
                 "usage[0]: step.at: required value");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n"
                            "  step: {before: 1, after: 2, at: 5x}\n",
                       KP_EINVAL),
                 "usage[0]: step.at: unknown unit \"x\" in duration \"5x\"");
    KT_CHECK_STR(
        fails(HEAD "usage:\n- selector: {}\n  resource: cpu\n  constant: {value: 1}\n", KP_EINVAL),
        "usage[0]: resource: unsupported resource \"cpu\" (supported: memory, rootfs, logs, "
        "emptyDir, inodes, pids; for a node: memory, nodefs, imagefs, inodes, pids)");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  constant: {value: 1}\n", KP_EINVAL),
                 "usage[0]: resource: required value");
    KT_CHECK_STR(fails(HEAD "usage:\n- resource: memory\n  constant: {value: 1}\n", KP_EINVAL),
                 "usage[0]: selector: required value");
    KT_CHECK_STR(
        fails(HEAD "usage:\n- selector: {}\n  resource: memory\n  constant: 5\n", KP_EINVAL),
        "usage[0]: constant: expected an object");
    KT_CHECK_STR(fails(HEAD "usage:\n- selector: {}\n  resource: memory\n  constant: {value: 1}\n"
                            "- selector: {}\n  resource: memory\n  bursty: {}\n",
                       KP_EINVAL),
                 "usage[1]: bursty: unknown field");
}

/* ---------------------------------------------------------------- the manager's pods */

/* a Summary API document of node n1 at minute `minute` with `avail` bytes available */
static kp_evict_summary *summary_at(int minute, long long avail) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"node\":{\"nodeName\":\"n1\",\"memory\":{\"time\":\"2026-01-01T00:%02d:00Z\","
             "\"availableBytes\":%lld,\"workingSetBytes\":1}},\"pods\":[]}",
             minute, avail);
    kp_evict_summary *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_evict_summary_load_buffer("s.json", buf, strlen(buf), &s, &err), KP_OK);
    return s;
}

/* kp_evict_manager_sync_pods re-reads the node's active pods (an ended pod leaves them) and
 * keeps what the manager carries between steps: MemoryPressure observed at minute 0 holds
 * through the pressure transition period (5m) after the resync, as upstream's managerImpl
 * keeps it across pod changes; a new manager would have forgotten it. */
KT_TEST(sync_pods_keeps_the_managers_state) {
    static const char *cl_text =
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: "
        "\"4\", memory: 4Gi, pods: \"110\"}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
        "a}\nspec: {nodeName: n1, containers: [{name: c, image: i}]}\nstatus: {phase: "
        "Running}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {nodeName: n1, "
        "containers: [{name: c, image: i}]}\nstatus: {phase: Running}\n";
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", cl_text, strlen(cl_text), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    kp_evict_config *cfg = kp_evict_config_new();
    KT_CHECK_INT(kp_evict_config_finish(cfg, &err), KP_OK);
    kp_evict_manager *m = NULL, *fresh = NULL;
    KT_CHECK_INT(kp_evict_manager_new(cl, 0, cfg, &m, &err), KP_OK);
    if (!m) return;
    KT_CHECK_INT(kp_evict_manager_active_count(m), 2);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, kp_cluster_find_pod(cl, "a"), KP_POD_PHASE_FAILED,
                                       "Evicted", NULL, &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_manager_active_count(m), 2); /* not re-read yet */
    KT_CHECK_INT(kp_evict_manager_sync_pods(m, &err), KP_OK);
    KT_CHECK_INT(kp_evict_manager_active_count(m), 1);
    kp_evict_result res;
    kp_evict_summary *s = summary_at(0, 50 * MI); /* below 100Mi: pressure */
    KT_CHECK_INT(kp_evict_manager_step(m, s, &res, &err), KP_OK);
    kp_evict_summary_free(s);
    KT_CHECK(res.conditions & KP_NODE_COND_MEMORY_PRESSURE);
    KT_CHECK_INT(res.n_evicted, 1); /* b, the only active pod */
    if (res.n_evicted) KT_CHECK_INT(res.evicted[0].pod, kp_cluster_find_pod(cl, "b"));
    KT_CHECK_INT(kp_cluster_finish_pod(cl, kp_cluster_find_pod(cl, "b"), KP_POD_PHASE_FAILED,
                                       "Evicted", NULL, &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_manager_sync_pods(m, &err), KP_OK);
    KT_CHECK_INT(kp_evict_manager_active_count(m), 0);
    s = summary_at(2, 3000 * MI); /* relieved; within the transition period */
    KT_CHECK_INT(kp_evict_manager_step(m, s, &res, &err), KP_OK);
    KT_CHECK(res.conditions & KP_NODE_COND_MEMORY_PRESSURE);
    KT_CHECK_INT(kp_evict_manager_new(cl, 0, cfg, &fresh, &err), KP_OK);
    if (fresh) {
        kp_evict_result r2;
        KT_CHECK_INT(kp_evict_manager_step(fresh, s, &r2, &err), KP_OK);
        KT_CHECK_INT(r2.conditions, 0); /* a new manager has no memory of the pressure */
    }
    kp_evict_summary_free(s);
    s = summary_at(6, 3000 * MI); /* past the 5m transition period */
    KT_CHECK_INT(kp_evict_manager_step(m, s, &res, &err), KP_OK);
    KT_CHECK_INT(res.conditions, 0);
    kp_evict_summary_free(s);
    kp_evict_manager_free(fresh);
    kp_evict_manager_free(m);
    kp_evict_config_free(cfg);
    kp_cluster_free(cl);
}

/* ---------------------------------------------------------------- random runs */

#include "sim_case.h"
#include "text_buf.h"

/* nodes of 2-4Gi; ReplicaSets of leaking, steady and stepping pods, some critical
 * (system-node-critical) and some static (kubernetes.io/config.source: file) */
static void gen(sbuf *b, sbuf *s, int *n_nodes) {
    *n_nodes = 2 + (int)rnd(3);
    for (int i = 0; i < *n_nodes; i++)
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: "
            "{kubernetes.io/hostname: n%d}}\nstatus:\n  capacity: {cpu: \"8\", memory: %dGi, "
            "pods: \"110\"}\n  allocatable: {cpu: \"8\", memory: %dGi, pods: \"110\"}\n",
            i, i, 2 + i % 3, 2 + i % 3);
    static const char *const kinds[] = {"leak", "steady", "step"};
    for (int w = 0; w < 4; w++) {
        const char *k = kinds[rnd(3)];
        bool crit = rnd(4) == 0;
        unsigned reps = 1 + rnd(3), mem = 64 + 64 * rnd(4);
        char spec[256], pspec[256];
#define SPEC_FMT \
    "%s%scontainers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: %uMi}}}]\n"
        snprintf(spec, sizeof spec, SPEC_FMT,
                 crit ? "      priorityClassName: system-node-critical\n" : "", "      ", mem);
        snprintf(pspec, sizeof pspec, SPEC_FMT,
                 crit ? "  priorityClassName: system-node-critical\n" : "", "  ", mem);
        put(b,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: w%d, namespace: "
            "default, uid: uid-w%d}\nspec:\n  replicas: %u\n  selector: {matchLabels: {app: "
            "w%d}}\n  template:\n    metadata: {labels: {app: w%d, kind: %s}}\n    spec:\n%s",
            w, w, reps, w, w, k, spec);
        for (unsigned r = 0; r < reps; r++)
            put(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: w%d-%u\n  namespace: "
                "default\n  uid: uid-w%d-%u\n  labels: {app: w%d, kind: %s}\n  "
                "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w%d, uid: "
                "uid-w%d, controller: true}]\nspec:\n  nodeName: n%u\n%sstatus: {phase: "
                "Running}\n",
                w, r, w, r, w, k, w, w, rnd((uint32_t)*n_nodes), pspec);
    }
    for (int i = 0; i < 3; i++) /* static pods: never evicted by the manager */
        put(b,
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: static-%d\n  namespace: "
            "kube-system\n  labels: {kind: leak}\n  annotations: {kubernetes.io/config.source: "
            "file}\nspec:\n  nodeName: n%d\n  containers: [{name: c, image: i, resources: "
            "{requests: {memory: 64Mi}}}]\nstatus: {phase: Running}\n",
            i, i % *n_nodes);
    put(s,
        HEAD "duration: 40m\nusage:\n"
             "- selector: {matchLabels: {kind: leak}}\n  resource: memory\n"
             "  ramp: {start: 50Mi, perMinute: %uMi, cap: %uMi}\n"
             "- selector: {matchLabels: {kind: step}}\n  resource: memory\n"
             "  step: {before: 64Mi, after: %uMi, at: %um}\n",
        20 + rnd(200), 1000 + rnd(3000), 200 + rnd(2000), 1 + rnd(20));
    /* the cluster changes under the kubelets: drains, cordons, scaling, new nodes */
    put(s, "actions:\n");
    for (int i = 0; i < 6; i++) {
        unsigned at = rnd(30), n = rnd((uint32_t)*n_nodes);
        switch (rnd(5)) {
        case 0: put(s, "- at: %um\n  drain: {node: n%u}\n", at, n); break;
        case 1: put(s, "- at: %um\n  uncordon: {node: n%u}\n", at, n); break;
        case 2:
            put(s, "- at: %um\n  scale: {kind: ReplicaSet, name: w%u, replicas: %u}\n", at, rnd(4),
                rnd(5));
            break;
        case 3:
            put(s,
                "- at: %um\n  create:\n    objects:\n    - {apiVersion: v1, kind: Node, "
                "metadata: {name: extra%d}, status: {allocatable: {cpu: \"8\", memory: 3Gi, "
                "pods: \"110\"}}}\n",
                at, i);
            break;
        default: put(s, "- at: %um\n  cordon: {node: n%u}\n", at, n); break;
        }
    }
}

/* The pod's memory now, from the scenario's models as docs/scenario.md states them. */
static int64_t usage_now(const kp_sim *sim, const kp_scenario *sc, kp_index p) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    for (size_t i = 0; i < sc->n_usage; i++) {
        const kp_scenario_usage *u = &sc->usage[i];
        if (!kp_cluster_pod_matches(cl, p, u->reqs, u->n_reqs)) continue;
        int64_t bound = kp_sim_pod_get(sim, (size_t)p)->bound_ms;
        return kp_scenario_usage_at(u, kp_sim_now(sim) - (bound > 0 ? bound : 0));
    }
    return kp_cluster_pod_memory_request(cl, p);
}

static void check_eviction(const kp_sim *sim, const kp_scenario *sc, const kp_sim_event *e,
                           int *justified) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_pod_info pi;
    KT_CHECK_INT(kp_cluster_pod_info(cl, e->pod, &pi), KP_OK);
    KT_CHECK(!pi.is_critical && !pi.is_static && !pi.is_mirror);
    /* the threshold the manager acted on holds now: memory.available or
     * allocatableMemory.available (the default hard thresholds, 100Mi) */
    int64_t cap, alloc, used = 0;
    kp_cluster_node_memory(cl, e->node, &cap, &alloc);
    for (size_t i = 0; i < kp_cluster_node_pod_count(cl, e->node); i++) {
        kp_index p = kp_cluster_node_pod(cl, e->node, i);
        kp_pod_info qi;
        kp_cluster_pod_info(cl, p, &qi);
        if (!qi.deleted && !qi.terminal) used += usage_now(sim, sc, p);
    }
    KT_CHECK(used >= 0);
    bool met = alloc - used < 100 * MI || cap - (used + cap - alloc) < 100 * MI;
    if (!met)
        fprintf(stderr, "eviction of %s at %lld ms not justified: alloc %lld used %lld\n", pi.name,
                (long long)e->t_ms, (long long)alloc, (long long)used);
    KT_CHECK(met);
    KT_CHECK(strstr(e->message, "The node was low on resource: memory.") == e->message);
    (*justified)++;
}

KT_TEST(random_runs_evict_only_as_upstream_would) {
    int evictions = 0;
    for (uint64_t seed = 1; seed <= 25; seed++) {
        rng = seed;
        sbuf b = {0}, s = {0};
        int n_nodes;
        gen(&b, &s, &n_nodes);
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        kp_scenario *sc = NULL;
        KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", b.buf, b.len, &err), KP_OK);
        KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", s.buf, s.len, NULL, &sc, &err), KP_OK);
        kp_sim *sim = NULL;
        if (cl && sc && kp_cluster_finalize(cl, &err) == KP_OK)
            KT_CHECK_INT(kp_sim_new(cl, NULL, sc, NULL, &sim, &err), KP_OK);
        size_t seen = 0;
        bool more = sim != NULL;
        while (more) {
            if (kp_sim_step(sim, &more, &err) != KP_OK) {
                KT_CHECK_STR(err.msg, "");
                break;
            }
            for (; seen < kp_sim_event_count(sim); seen++) {
                const kp_sim_event *e = kp_sim_event_get(sim, seen);
                if (e->type == KP_SIM_WARNING && strcmp(e->reason, "Evicted") == 0)
                    check_eviction(sim, sc, e, &evictions);
            }
        }
        if (sim) {
            kp_sim_counters c;
            kp_sim_counters_get(sim, &c);
            KT_CHECK(c.kubelet_steps > 0);
        }
        kp_sim_free(sim);
        kp_scenario_free(sc);
        kp_cluster_free(cl);
        free(b.buf);
        free(s.buf);
    }
    KT_CHECK(evictions > 10); /* the runs do evict: the checks above ran */
}

/* Every allocation of a run with kubelets failing once: KP_ENOMEM reaches the caller, or the run
 * completes with the same evictions (a failed cache allocation changes no answer). */
static const char *OOM_CLUSTER =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"4\", "
    "memory: 2Gi, pods: \"110\"}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
    "status:\n  allocatable: {cpu: \"4\", memory: 2Gi, pods: \"110\"}\n---\napiVersion: "
    "apps/v1\nkind: ReplicaSet\nmetadata: {name: w, namespace: default, uid: uid-w}\nspec:\n  "
    "replicas: 1\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: "
    "{app: w}}\n    spec:\n      containers: [{name: c, image: i, resources: {requests: "
    "{memory: 100Mi}}}, {name: d, image: i}]\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  "
    "name: w-a\n  namespace: default\n  uid: uid-w-a\n  labels: {app: w}\n  ownerReferences: "
    "[{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: uid-w, controller: true}]\nspec:\n  "
    "nodeName: n1\n  containers: [{name: c, image: i, resources: {requests: {memory: "
    "100Mi}}}, {name: d, image: i}]\nstatus: {phase: Running}\n";
static const char *OOM_SCENARIO = HEAD "duration: 6m\nusage:\n- selector: {}\n  resource: "
                                       "memory\n  ramp: {start: 100Mi, perMinute: 1Gi}\n";

/* OOM_CLUSTER finalized and OOM_SCENARIO loaded (*sc the caller's). */
static kp_cluster *oom_inputs(kp_scenario **sc, kp_error *err) {
    kp_error_clear(err);
    kp_cluster *cl = kp_cluster_new();
    *sc = NULL;
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", OOM_CLUSTER, strlen(OOM_CLUSTER), err),
                 KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, err), KP_OK);
    KT_CHECK_INT(
        kp_scenario_load_buffer("s.yaml", OOM_SCENARIO, strlen(OOM_SCENARIO), NULL, sc, err),
        KP_OK);
    return cl;
}

static kp_status oom_run(long fail_after, uint64_t *evictions) {
    kp_error err;
    kp_scenario *sc = NULL;
    kp_cluster *cl = oom_inputs(&sc, &err);
    kp_sim *sim = NULL;
    kp__alloc_fail_after(fail_after, false);
    kp_status st = kp_sim_new(cl, NULL, sc, NULL, &sim, &err);
    if (st == KP_OK) st = kp_sim_run(sim, &err);
    kp__alloc_fail_after(-1, false);
    if (st == KP_OK) {
        kp_sim_counters c;
        kp_sim_counters_get(sim, &c);
        *evictions = c.kubelet_evictions;
    }
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
    return st;
}

/* The evicted pod's final status, as the kubelet writes it once its containers stopped
 * (managerImpl.evictPod's status function): phase Failed, reason Evicted, the eviction message,
 * and DisruptionTarget with reason TerminationByKubelet and the same message; it round-trips
 * through --final-snapshot's encoder and loader. */
KT_TEST(evicted_pod_status_and_disruption_target) {
    kp_error err;
    kp_scenario *sc = NULL;
    kp_cluster *cl = oom_inputs(&sc, &err);
    kp_sim *sim = NULL;
    KT_CHECK_INT(kp_sim_new(cl, NULL, sc, NULL, &sim, &err), KP_OK);
    KT_CHECK_INT(sim ? kp_sim_run(sim, &err) : KP_EINVAL, KP_OK);
    const kp_sim_event *ev = NULL;
    for (size_t i = 0; sim && i < kp_sim_event_count(sim) && !ev; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->type == KP_SIM_WARNING && strcmp(e->reason, "Evicted") == 0) ev = e;
    }
    KT_CHECK(ev != NULL);
    sbuf b = {0};
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err), KP_OK);
    char want[1024];
    if (ev && b.buf) {
        /* the evicted pod's item: Failed, Evicted, the event's message, the condition */
        snprintf(want, sizeof want, "\"name\":\"%s\"", kp_cluster_pod_name(cl, ev->pod));
        const char *at = strstr(b.buf, want);
        KT_CHECK(at != NULL);
        char *line = next_line(&at);
        snprintf(want, sizeof want,
                 "\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"%s\",\"conditions\":"
                 "[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
                 "\"TerminationByKubelet\",\"message\":\"%s\"}]",
                 ev->message, ev->message);
        KT_CHECK_CONTAINS(line ? line : "", want);
        free(line);
        /* loaded again: the status and the condition come back */
        kp_cluster *fresh = kp_cluster_new();
        KT_CHECK_INT(kp_cluster_load_buffer(fresh, "final.json", b.buf, b.len, &err), KP_OK);
        KT_CHECK_INT(kp_cluster_finalize(fresh, &err), KP_OK);
        sbuf b2 = {0};
        KT_CHECK_INT(kp_cluster_encode_json(fresh, NULL, to_sbuf, &b2, &err), KP_OK);
        KT_CHECK_CONTAINS(b2.buf ? b2.buf : "", want);
        free(b2.buf);
        kp_cluster_free(fresh);
    }
    free(b.buf);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

/* Local-storage evictions carry no DisruptionTarget (localStorageEviction passes no condition to
 * evictPod): golden simulate-kubelet-emptydir-sizelimit's two evicted pods. */
KT_TEST(local_storage_evictions_have_no_condition) {
    kp_error err;
    kp_cluster *cl = NULL;
    kp_scenario *sc = NULL;
    kp_sim *sim =
        sim_case_run("tests/golden/simulate-kubelet-emptydir-sizelimit/", NULL, &cl, &sc, &err);
    KT_CHECK(sim != NULL);
    sbuf b = {0};
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err), KP_OK);
    int evicted = 0;
    const char *at = b.buf;
    for (char *line; (line = next_line(&at)); free(line))
        if (strstr(line, "\"reason\":\"Evicted\"")) {
            evicted++;
            KT_CHECK(!strstr(line, "DisruptionTarget"));
        }
    KT_CHECK_INT(evicted, 2);
    free(b.buf);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

/* One Evicted event per kubelet eviction: upstream's eviction manager writes the Warning Evicted
 * with the eviction message (managerImpl.evictPod) and no component logs the terminal phase
 * again (tools counting reason=Evicted, as upstream's e2e helpers do, count one per pod); the
 * pod's terminal status stays (evicted_pod_status_and_disruption_target). Golden
 * simulate-kubelet-emptydir-sizelimit evicts two pods. */
KT_TEST(one_evicted_event_per_eviction) {
    kp_error err;
    kp_cluster *cl = NULL;
    kp_scenario *sc = NULL;
    kp_sim *sim =
        sim_case_run("tests/golden/simulate-kubelet-emptydir-sizelimit/", NULL, &cl, &sc, &err);
    KT_CHECK(sim != NULL);
    size_t n_events = sim ? kp_sim_event_count(sim) : 0;
    int evicted = 0;
    for (size_t i = 0; i < n_events; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "Evicted") != 0) continue;
        evicted++;
        KT_CHECK(e->type == KP_SIM_WARNING);
        for (size_t j = i + 1; j < n_events; j++) { /* no second Evicted for the same pod */
            const kp_sim_event *f = kp_sim_event_get(sim, j);
            KT_CHECK(strcmp(f->reason, "Evicted") != 0 || f->pod != e->pod);
        }
    }
    KT_CHECK_INT(evicted, 2);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

/* A usage entry's node, selector, container or volume that matched nothing the kubelets observed
 * is named (kp_sim_usage_unmatched; the tool warns with it, docs/scenario.md "Usage"); one that
 * matched, and node "*", are not. */
KT_TEST(usage_entries_matching_nothing_are_named) {
    static const char *CL =
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"4\", "
        "memory: 2Gi, pods: \"110\"}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, "
        "namespace: default, labels: {app: w}}\nspec:\n  nodeName: n1\n  containers: [{name: c, "
        "image: i}]\n  volumes: [{name: v, emptyDir: {}}]\nstatus: {phase: Running}\n";
    static const char *const ENTRIES[][2] = {
        {"{selector: {matchLabels: {app: w}}, resource: memory, container: c", NULL},
        {"{selector: {matchLabels: {app: w}}, resource: rootfs, container: cc", "container"},
        {"{selector: {matchLabels: {app: x}}, resource: memory, container: c", "selector"},
        {"{selector: {matchLabels: {app: w}}, namespace: other, resource: logs", "selector"},
        {"{selector: {}, resource: emptyDir, volume: v", NULL},
        {"{selector: {}, resource: emptyDir, volume: vv", "volume"},
        {"{node: n1, resource: nodefs", NULL},
        {"{node: n2, resource: nodefs", "node"},
        {"{node: \"*\", resource: imagefs", NULL},
    };
    size_t n = sizeof ENTRIES / sizeof ENTRIES[0];
    char text[4096];
    int len = snprintf(text, sizeof text, "%s", HEAD "duration: 30s\nusage:\n");
    for (size_t i = 0; i < n; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "- %s, constant: {value: 1Mi}}\n",
                        ENTRIES[i][0]);
    kp_error err;
    kp_scenario *sc = load(text, &err);
    KT_CHECK(sc != NULL);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", CL, strlen(CL), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    kp_sim *sim = NULL;
    KT_CHECK_INT(kp_sim_new(cl, NULL, sc, NULL, &sim, &err), KP_OK);
    KT_CHECK_INT(sim ? kp_sim_run(sim, &err) : KP_EINVAL, KP_OK);
    for (size_t i = 0; sim && i < n; i++) {
        const char *got = kp_sim_usage_unmatched(sim, i);
        if (!ENTRIES[i][1]) KT_CHECK(got == NULL);
        else KT_CHECK_STR(got ? got : "(null)", ENTRIES[i][1]);
    }
    KT_CHECK(!sim || kp_sim_usage_unmatched(sim, n) == NULL); /* out of range */
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

KT_TEST(alloc_fail_sweep) {
    uint64_t want = 0, got = 0;
    KT_CHECK_INT(oom_run(-1, &want), KP_OK);
    KT_CHECK(want >= 2); /* the leak is evicted, its replacement too */
    int runs = 0;
    for (long n = 0; n < 200000; n++) {
        kp_status st = oom_run(n, &got);
        runs++;
        if (st == KP_OK) {
            KT_CHECK_INT(got, want);
            break;
        }
        KT_CHECK_INT(st, KP_ENOMEM);
    }
    KT_CHECK(runs > 50);
}

KT_MAIN(KT_CASE(usage_models_decoded), KT_CASE(usage_errors), KT_CASE(alloc_fail_sweep),
        KT_CASE(usage_entries_matching_nothing_are_named),
        KT_CASE(evicted_pod_status_and_disruption_target),
        KT_CASE(local_storage_evictions_have_no_condition), KT_CASE(one_evicted_event_per_eviction),
        KT_CASE(sync_pods_keeps_the_managers_state),
        KT_CASE(random_runs_evict_only_as_upstream_would))
