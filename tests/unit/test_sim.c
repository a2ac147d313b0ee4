/* The simulator (kprio/sim.h): invariants at every step of randomised runs, determinism, and
 * the dynamics the golden scenarios show end to end (tests/golden/simulate-*). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"
#include "kprio/inspect.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "kprio/sim.h"
#include "render/render_sim.h"

/* ---------------------------------------------------------------- random clusters */

#include "text_buf.h"

/* A hard constraint for workload w's pods (hard: odd workloads keep their pods on separate
 * nodes, even ones spread with maxSkew 1), as YAML at indentation ind. */
static const char *hard_spec(bool hard, int w, int ind) {
    static char t[512];
    if (!hard) return "";
    if (w % 2)
        snprintf(t, sizeof t,
                 "%*saffinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                 "[{labelSelector: {matchLabels: {app: w%d}}, topologyKey: "
                 "kubernetes.io/hostname}]}}\n",
                 ind, "", w);
    else
        snprintf(t, sizeof t,
                 "%*stopologySpreadConstraints: [{maxSkew: 1, topologyKey: "
                 "kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: "
                 "{matchLabels: {app: w%d}}}]\n",
                 ind, "", w);
    return t;
}

/* nodes n0..; ReplicaSets w0.. (some with PDBs) with their pods bound or pending; a few
 * standalone high-priority pods pending. hard: the workloads' pods carry hard anti-affinity or
 * topology spread constraints (hard_spec). */
static void gen_cluster(sbuf *b, int *n_nodes, bool hard) {
    *n_nodes = 3 + (int)rnd(5);
    unsigned free_milli[8]; /* the snapshot's bound pods fit their nodes */
    put(b, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
           "value: 100\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
           "metadata: {name: mid}\nvalue: 500\n---\napiVersion: scheduling.k8s.io/v1\n"
           "kind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n");
    for (int i = 0; i < *n_nodes; i++)
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n%d\n  labels: "
            "{kubernetes.io/hostname: n%d}\nstatus:\n  allocatable: {cpu: \"%u\", memory: 8Gi, "
            "pods: \"110\"}\n",
            i, i, (free_milli[i] = 2 + rnd(4)));
    for (int i = 0; i < *n_nodes; i++) free_milli[i] *= 1000;
    int n_wl = 2 + (int)rnd(4);
    static const char *const cls[] = {"low", "mid", "high"};
    for (int w = 0; w < n_wl; w++) {
        int reps = 1 + (int)rnd(5);
        const char *c = cls[rnd(2)];
        unsigned cpu = 250 * (1 + rnd(4));
        put(b,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: w%d, namespace: "
            "default, uid: rs-w%d}\nspec:\n  replicas: %d\n  selector: {matchLabels: {app: "
            "w%d}}\n  template:\n    metadata: {labels: {app: w%d}}\n    spec:\n      "
            "priorityClassName: %s\n      terminationGracePeriodSeconds: %u\n      containers: "
            "[{name: c, image: x, resources: {requests: {cpu: %um}}}]\n%s",
            w, w, reps, w, w, c, 5 * rnd(8), cpu, hard_spec(hard, w, 6));
        if (rnd(2))
            put(b,
                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p%d, "
                "namespace: default}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: "
                "{app: w%d}}\nstatus: {disruptionsAllowed: 1, currentHealthy: %d, "
                "desiredHealthy: %d, expectedPods: %d}\n",
                w, w, reps, reps - 1, reps);
        for (int k = 0; k < reps; k++) {
            int node = (int)rnd((uint32_t)*n_nodes + 2); /* some start pending */
            if (node < *n_nodes && free_milli[node] < cpu) node = *n_nodes;
            if (node < *n_nodes) free_milli[node] -= cpu;
            put(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: w%d-%d\n  namespace: "
                "default\n  uid: u-w%d-%d\n  labels: {app: w%d}\n  creationTimestamp: "
                "\"2026-01-01T00:00:%02dZ\"\n  ownerReferences: [{apiVersion: apps/v1, kind: "
                "ReplicaSet, name: w%d, uid: rs-w%d, controller: true}]\nspec:\n  "
                "priorityClassName: %s\n  terminationGracePeriodSeconds: %u\n  containers: "
                "[{name: c, image: x, resources: {requests: {cpu: %um}}}]\n%s",
                w, k, w, k, w, k, w, w, c, 5 * rnd(8), cpu, hard_spec(hard, w, 2));
            if (node < *n_nodes)
                put(b,
                    "  nodeName: n%d\nstatus: {phase: Running, startTime: "
                    "\"2026-01-01T00:01:00Z\"}\n",
                    node);
        }
    }
    int n_hi = (int)rnd(4);
    for (int h = 0; h < n_hi; h++)
        put(b,
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: hi-%d, namespace: default, uid: "
            "u-hi-%d, creationTimestamp: \"2026-01-01T00:02:00Z\"}\nspec:\n  priorityClassName: "
            "high\n  containers: [{name: c, image: x, resources: {requests: {cpu: %um}}}]\n",
            h, h, 500 * (1 + rnd(4)));
}

/* ---------------------------------------------------------------- invariants */

static int pods_on_nodes(const kp_cluster *cl, kp_index pod) {
    int seen = 0;
    for (size_t n = 0; n < kp_cluster_node_count(cl); n++)
        for (size_t i = 0; i < kp_cluster_node_pod_count(cl, (kp_index)n); i++)
            seen += kp_cluster_node_pod(cl, (kp_index)n, i) == pod;
    return seen;
}

static void check_invariants(kp_sim *sim, int *checked) {
    kp_cluster *cl = kp_sim_cluster(sim);
    KT_CHECK_INT(kp_sim_pod_count(sim), kp_cluster_pod_count(cl));
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        kp_pod_info pi;
        KT_CHECK(kp_cluster_pod_info(cl, p->pod, &pi) == KP_OK);
        int on = pods_on_nodes(cl, p->pod);
        switch (p->state) {
        case KP_SIM_POD_PENDING:
            KT_CHECK(pi.node < 0 && !pi.deleted && !pi.terminal);
            KT_CHECK_INT(on, 0);
            break;
        case KP_SIM_POD_BOUND:
            KT_CHECK(pi.node >= 0 && !pi.deleted && pi.deletion_ts == KP_TIME_UNSET);
            KT_CHECK_INT(on, 1);
            break;
        case KP_SIM_POD_TERMINATING:
            KT_CHECK(pi.node >= 0 && !pi.deleted && pi.deletion_ts != KP_TIME_UNSET);
            KT_CHECK_INT(on, 1);
            break;
        case KP_SIM_POD_DELETED:
            KT_CHECK(pi.deleted);
            KT_CHECK_INT(on, 0);
            break;
        case KP_SIM_POD_SUCCEEDED:
        case KP_SIM_POD_FAILED:
            KT_CHECK(pi.terminal);
            KT_CHECK_INT(on, 0);
            break;
        }
    }
    /* no node's requests exceed its allocatable */
    kp_inspection *in = NULL;
    KT_CHECK(kp_inspection_new(cl, &in, NULL) == KP_OK);
    for (size_t n = 0; in && n < kp_inspection_node_count(in); n++) {
        const kp_inspect_node *row = kp_inspection_node(in, n);
        KT_CHECK(row->requested_cpu_milli <= row->allocatable_cpu_milli);
        KT_CHECK(row->requested_pods <= row->allocatable_pods);
    }
    kp_inspection_free(in);
    /* every PDB's status equals a recount made here from the pods */
    for (size_t d = 0; d < kp_cluster_pdb_count(cl); d++) {
        kp_pdb_info pd;
        KT_CHECK(kp_cluster_pdb_info(cl, (kp_index)d, &pd) == KP_OK);
        int healthy = 0;
        for (size_t i = 0; i < kp_cluster_pod_count(cl); i++) {
            kp_pod_info pi;
            kp_cluster_pod_info(cl, (kp_index)i, &pi);
            if (!kp_cluster_pdb_selects(cl, (kp_index)d, (kp_index)i)) continue;
            healthy +=
                pi.node >= 0 && !pi.deleted && !pi.terminal && pi.deletion_ts == KP_TIME_UNSET;
        }
        if (pd.expected_pods > 0 || healthy > 0) { /* recounted at least once */
            KT_CHECK_INT(pd.current_healthy, healthy);
            int allowed = healthy - pd.desired_healthy;
            KT_CHECK_INT(pd.disruptions_allowed, allowed > 0 ? allowed : 0);
        }
    }
    (*checked)++;
}

/* random actions on the generated cluster */
static void gen_scenario(kp_scenario *sc, int n_nodes, int n_actions) {
    memset(sc, 0, sizeof *sc);
    sc->source = "random";
    sc->actions = calloc((size_t)n_actions, sizeof *sc->actions);
    sc->n_actions = (size_t)n_actions;
    static char names[64][32];
    for (int i = 0; i < n_actions; i++) {
        kp_scenario_action *a = &sc->actions[i];
        a->at_ms = (int64_t)rnd(600) * 1000;
        static const kp_action_type types[] = {KP_ACT_CORDON, KP_ACT_UNCORDON, KP_ACT_DRAIN,
                                               KP_ACT_SCALE,  KP_ACT_TAINT,    KP_ACT_UNTAINT};
        a->type = types[rnd(6)];
        char *nm = names[i % 64];
        if (a->type == KP_ACT_SCALE) {
            snprintf(nm, 32, "w%u", rnd(2));
            a->ref = (kp_object_ref){"ReplicaSet", "default", nm};
            a->replicas = (int32_t)rnd(7);
        } else {
            snprintf(nm, 32, "n%u", rnd((uint32_t)n_nodes));
            a->ref = (kp_object_ref){"Node", "", nm};
            a->taint = (kp_scenario_taint){"dedicated", "x", "NoSchedule"};
        }
    }
}

/* Each sample holds the counters after the last instant at or before its time (recorded after
 * every step of the run in at[] / ev[]), at t = 0, step, 2*step, ... up to the end. */
static void check_samples(const kp_sim *sim, const int64_t *at, const uint64_t *ev,
                          const uint64_t *att, size_t n) {
    int64_t step = kp_sim_sample_step(sim);
    size_t ns = kp_sim_sample_count(sim);
    KT_CHECK(step == 10000 && ns == (size_t)(kp_sim_now(sim) / step) + 1);
    size_t j = 0;
    for (size_t i = 0; i < ns; i++) {
        const kp_sim_sample *x = kp_sim_sample_get(sim, i);
        KT_CHECK(x->t_ms == (int64_t)i * step);
        while (j + 1 < n && at[j + 1] <= x->t_ms) j++;
        KT_CHECK(x->c.events == ev[j] && x->c.attempts == att[j]);
    }
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    const kp_sim_sample *last = kp_sim_sample_get(sim, ns - 1);
    KT_CHECK(last && last->c.events == c.events && last->c.scheduled == c.scheduled);
    KT_CHECK(last->active + last->backoff + last->unschedulable == c.pending_at_end);
    KT_CHECK(last->gated == c.gated_at_end);
}

KT_TEST(random_runs_keep_every_invariant) {
    int checked = 0;
    uint64_t events = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        rng = seed;
        sbuf b = {0};
        int n_nodes;
        gen_cluster(&b, &n_nodes, false);
        kp_cluster *cl = kp_cluster_new();
        kp_error err;
        kp_error_clear(&err);
        if (kp_cluster_load_buffer(cl, "random.yaml", b.buf, b.len, &err) != KP_OK ||
            kp_cluster_finalize(cl, &err) != KP_OK) {
            fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
            KT_CHECK(false);
            kp_cluster_free(cl);
            free(b.buf);
            continue;
        }
        kp_scenario sc;
        gen_scenario(&sc, n_nodes, 12);
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.duration_ms = 20 * 60 * 1000;
        o.seed = seed;
        o.has_seed = true;
        kp_sim *sim = NULL;
        KT_CHECK(kp_sim_new(cl, NULL, &sc, &o, &sim, &err) == KP_OK);
        bool more = sim != NULL;
        size_t n_at = 0, cap_at = 0;
        int64_t *at = NULL;
        uint64_t *ev = NULL, *att = NULL;
        while (more) {
            kp_status st = kp_sim_step(sim, &more, &err);
            if (st != KP_OK) {
                fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
                KT_CHECK(st == KP_OK);
                break;
            }
            check_invariants(sim, &checked);
            if (n_at == cap_at) {
                cap_at = cap_at ? cap_at * 2 : 64;
                at = realloc(at, cap_at * sizeof *at);
                ev = realloc(ev, cap_at * sizeof *ev);
                att = realloc(att, cap_at * sizeof *att);
            }
            kp_sim_counters c;
            kp_sim_counters_get(sim, &c);
            if (n_at && at[n_at - 1] == kp_sim_now(sim)) n_at--;
            at[n_at] = kp_sim_now(sim);
            ev[n_at] = c.events;
            att[n_at++] = c.attempts;
        }
        if (sim && n_at) check_samples(sim, at, ev, att, n_at);
        free(at);
        free(ev);
        free(att);
        if (sim) events += kp_sim_event_count(sim);
        kp_sim_free(sim);
        kp_cluster_free(cl);
        free(sc.actions);
        free(b.buf);
    }
    KT_CHECK(checked > 200);
    KT_CHECK(events > 1000);
}

/* Same inputs and seed: the same document, byte for byte. */
static char *run_json(uint64_t seed) {
    rng = seed;
    sbuf b = {0};
    int n_nodes;
    gen_cluster(&b, &n_nodes, false);
    kp_cluster *cl = kp_cluster_new();
    kp_cluster_load_buffer(cl, "random.yaml", b.buf, b.len, NULL);
    kp_cluster_finalize(cl, NULL);
    kp_scenario sc;
    gen_scenario(&sc, n_nodes, 8);
    kp_sim *sim = NULL;
    kp_sim_new(cl, NULL, &sc, NULL, &sim, NULL);
    kp_sim_run(sim, NULL);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    kp_render_simulation(f, sim, KP_OUT_JSON, false);
    fclose(f);
    kp_sim_free(sim);
    kp_cluster_free(cl);
    free(sc.actions);
    free(b.buf);
    return out;
}

KT_TEST(same_inputs_same_output) {
    for (uint64_t seed = 3; seed < 6; seed++) {
        char *a = run_json(seed), *b = run_json(seed);
        KT_CHECK(a && b && strlen(a) > 100 && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
}

/* A preemptor binds only once its victims' grace period has ended; the victim's ReplicaSet
 * replaces it at once (a terminating pod is not active). */
KT_TEST(preemptor_waits_for_grace_period) {
    const char *y =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: "
        "1000\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: "
        "{cpu: \"1\", pods: \"10\"}}\n---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: "
        "{name: web, namespace: default, uid: rs1}\nspec:\n  replicas: 1\n  selector: "
        "{matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: "
        "{terminationGracePeriodSeconds: 45, containers: [{name: c, image: x, resources: "
        "{requests: {cpu: \"1\"}}}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-1, "
        "namespace: default, uid: u1, labels: {app: web}, ownerReferences: [{apiVersion: "
        "apps/v1, kind: ReplicaSet, name: web, uid: rs1, controller: true}]}\nspec: {nodeName: "
        "n1, terminationGracePeriodSeconds: 45, containers: [{name: c, image: x, resources: "
        "{requests: {cpu: \"1\"}}}]}\nstatus: {phase: Running}\n---\napiVersion: v1\nkind: "
        "Pod\nmetadata: {name: urgent, namespace: default, uid: u2}\nspec: {priorityClassName: "
        "high, containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}\n";
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK(kp_cluster_load_buffer(cl, "t.yaml", y, strlen(y), NULL) == KP_OK);
    KT_CHECK(kp_cluster_finalize(cl, NULL) == KP_OK);
    kp_sim *sim = NULL;
    KT_CHECK(kp_sim_new(cl, NULL, NULL, NULL, &sim, NULL) == KP_OK);
    KT_CHECK(kp_sim_run(sim, NULL) == KP_OK);
    kp_index urgent = kp_cluster_find_pod(cl, "default/urgent");
    const kp_sim_pod *u = kp_sim_pod_get(sim, (size_t)urgent);
    KT_CHECK_INT(u->first_nominated_ms, 0);
    KT_CHECK_INT(u->bound_ms, 45000);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "default/web-1"), -1); /* deleted at 45s */
    int replaced = 0;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (strcmp(e->reason, "SuccessfulCreate") == 0) {
            KT_CHECK_INT(e->t_ms, 0);
            KT_CHECK(e->cause >= 0 &&
                     strcmp(kp_sim_event_get(sim, (size_t)e->cause)->reason, "Preempted") == 0);
            replaced++;
        }
    }
    KT_CHECK_INT(replaced, 1);
    KT_CHECK_STR(kp_sim_end_reason(sim), "quiet");
    kp_sim_free(sim);
    kp_cluster_free(cl);
}

/* ---------------------------------------------------------------- a fresh `kprio schedule` */

/* The scheduler inside the simulation carries state from attempt to attempt (kp_sched_sync: the
 * nominator, the PDB index, the compact pod array, the per-node sums). At sampled attempts the
 * simulation's cluster is written out (kprio/encode.h), loaded into a fresh cluster and the pod
 * attempted by a fresh scheduler, as `kprio schedule -f SNAPSHOT` would: the outcome, the
 * FitError text and (when it nominates) the victims' count and PDB violations must be the same.
 * The bound or nominated node is not compared: host ties are broken by the PRNG, whose state a
 * fresh scheduler does not share (the other criteria of pickOneNodeForPreemption come before the
 * victims' count, so the count does not depend on the tie). */
typedef struct {
    uint64_t seed;
    unsigned every, seen, compared, nominated;
    bool have; /* the fresh answer for the pod being attempted */
    kp_sched_outcome outcome;
    char *msg;
    size_t n_victims;
    int32_t pdb;
    size_t *cum_v; /* per pod: the simulation's victims and PDB violations so far (they add up) */
    int32_t *cum_pdb;
    size_t n_cum;
} fresh_ctx;

static void fresh_answer(fresh_ctx *c, const kp_sim *sim, kp_index pod) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    sbuf b = {0};
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err) == KP_OK);
    kp_cluster *fresh = kp_cluster_new();
    kp_sched *s = NULL;
    if (kp_cluster_load_buffer(fresh, "snapshot.json", b.buf, b.len, &err) != KP_OK ||
        kp_cluster_finalize(fresh, &err) != KP_OK) {
        fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)c->seed, err.msg);
        KT_CHECK(false);
        goto out;
    }
    char key[512];
    snprintf(key, sizeof key, "%s/%s", kp_cluster_pod_namespace(cl, pod),
             kp_cluster_pod_name(cl, pod));
    kp_index fp = kp_cluster_find_pod(fresh, key);
    KT_CHECK(fp >= 0);
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = c->seed;
    if (fp < 0 || kp_sched_new(fresh, NULL, &so, &s, &err) != KP_OK) goto out;
    kp_sched_set_time(s, kp_sim_epoch(sim) + kp_sim_now(sim) / 1000);
    KT_CHECK(kp_sched_schedule_one(s, fp, &err) == KP_OK);
    const kp_sched_pod_result *r = kp_sched_result_of(s, fp);
    KT_CHECK(r != NULL);
    if (!r) goto out;
    c->have = true;
    c->outcome = r->outcome;
    free(c->msg);
    c->msg = strdup(r->message);
    c->n_victims = r->n_victims;
    c->pdb = r->pdb_violations;
out:
    kp_sched_free(s);
    kp_cluster_free(fresh);
    free(b.buf);
}

/* The FailedScheduling texts equal, but for the node a preemption names ("... for pod on node
 * NODE, preempting ..."). */
static bool same_but_node(const char *a, const char *b) {
    static const char on[] = " on node ";
    const char *x = strstr(a, on), *y = strstr(b, on);
    if (!x || !y) return strcmp(a, b) == 0;
    if (x - a != y - b || strncmp(a, b, (size_t)(x - a)) != 0) return false;
    x = strchr(x + sizeof on - 1, ',');
    y = strchr(y + sizeof on - 1, ',');
    return x && y ? strcmp(x, y) == 0 : x == y;
}

static void fresh_hook(void *vc, const kp_sim *sim, kp_index pod, const kp_sched_pod_result *r) {
    fresh_ctx *c = vc;
    if (!r) { /* before the attempt: the state it sees */
        c->have = false;
        if (c->seen++ % c->every == 0) fresh_answer(c, sim, pod);
        return;
    }
    if ((size_t)pod >= c->n_cum) {
        size_t n = (size_t)pod * 2 + 16;
        c->cum_v = realloc(c->cum_v, n * sizeof *c->cum_v);
        c->cum_pdb = realloc(c->cum_pdb, n * sizeof *c->cum_pdb);
        memset(c->cum_v + c->n_cum, 0, (n - c->n_cum) * sizeof *c->cum_v);
        memset(c->cum_pdb + c->n_cum, 0, (n - c->n_cum) * sizeof *c->cum_pdb);
        c->n_cum = n;
    }
    size_t dv = r->n_victims - c->cum_v[pod];
    int32_t dp = r->pdb_violations - c->cum_pdb[pod];
    c->cum_v[pod] = r->n_victims;
    c->cum_pdb[pod] = r->pdb_violations;
    if (!c->have) return;
    c->compared++;
    const kp_cluster *cl = kp_sim_cluster(sim);
    bool same = r->outcome == KP_OUTCOME_BOUND || same_but_node(r->message, c->msg);
    if (r->outcome != c->outcome || !same)
        fprintf(stderr, "  seed %llu, %lldms, pod %s: simulation %d \"%s\", fresh %d \"%s\"\n",
                (unsigned long long)c->seed, (long long)kp_sim_now(sim),
                kp_cluster_pod_name(cl, pod), (int)r->outcome, r->message, (int)c->outcome, c->msg);
    KT_CHECK_INT(r->outcome, c->outcome);
    if (r->outcome == KP_OUTCOME_UNSCHEDULABLE) KT_CHECK_STR(r->message, c->msg);
    if (r->outcome == KP_OUTCOME_NOMINATED) {
        c->nominated++;
        KT_CHECK(same);
        KT_CHECK_INT(dv, c->n_victims);
        KT_CHECK_INT(dp, c->pdb);
    }
}

/* Deletes some of the standalone pods early (preemptors, often while nominated: the nominator
 * must forget them) and some workload pods (their controllers replace them). */
static void add_deletes(kp_scenario *sc, const kp_cluster *cl) {
    static char names[16][32];
    size_t k = 0;
    for (size_t i = 0; i < kp_cluster_pod_count(cl) && k < 16; i++) {
        const char *nm = kp_cluster_pod_name(cl, (kp_index)i);
        if (rnd(3) || (strncmp(nm, "hi-", 3) && strncmp(nm, "w2-", 3))) continue;
        snprintf(names[k], sizeof names[k], "%s", nm);
        sc->actions = realloc(sc->actions, (sc->n_actions + 1) * sizeof *sc->actions);
        kp_scenario_action *a = &sc->actions[sc->n_actions++];
        memset(a, 0, sizeof *a);
        a->type = KP_ACT_DELETE;
        a->at_ms = (int64_t)rnd(40) * 1000;
        a->ref = (kp_object_ref){"Pod", "default", names[k++]};
    }
}

/* The deletion of node n (its pods go, their controllers replace them). */
static void add_node_delete(kp_scenario *sc, int n) {
    static char name[16];
    snprintf(name, sizeof name, "n%d", n);
    sc->actions = realloc(sc->actions, (sc->n_actions + 1) * sizeof *sc->actions);
    kp_scenario_action *a = &sc->actions[sc->n_actions++];
    memset(a, 0, sizeof *a);
    a->type = KP_ACT_DELETE;
    a->at_ms = (int64_t)rnd(120) * 1000;
    a->ref = (kp_object_ref){"Node", "", name};
}

/* Arrivals: standalone pods of every class created over the run (they preempt). */
static void add_arrivals(kp_scenario *sc, int n) {
    static const char *const cls[] = {"low", "mid", "high"};
    for (int i = 0; i < n; i++) {
        sc->actions = realloc(sc->actions, (sc->n_actions + 1) * sizeof *sc->actions);
        kp_scenario_action *a = &sc->actions[sc->n_actions++];
        memset(a, 0, sizeof *a);
        a->type = KP_ACT_CREATE;
        a->at_ms = (int64_t)rnd(900) * 1000;
        a->objects = calloc(1, sizeof *a->objects);
        a->n_objects = 1;
        sbuf t = {0};
        put(&t,
            "apiVersion: v1\nkind: Pod\nmetadata: {name: arr-%d, namespace: default, uid: "
            "u-arr-%d}\nspec:\n  priorityClassName: %s\n  terminationGracePeriodSeconds: %u\n  "
            "containers: [{name: c, image: x, resources: {requests: {cpu: %um}}}]\n",
            i, i, cls[rnd(3)], 5 * rnd(4), 250 * (1 + rnd(6)));
        a->objects->source = "arrival";
        a->objects->text = t.buf;
        a->objects->len = t.len;
    }
}

static void free_arrivals(kp_scenario *sc) {
    for (size_t i = 0; i < sc->n_actions; i++)
        if (sc->actions[i].type == KP_ACT_CREATE) {
            free(sc->actions[i].objects->text);
            free(sc->actions[i].objects);
        }
}

KT_TEST(decisions_equal_a_fresh_schedule) {
    fresh_ctx c = {0};
    c.every = 1;
    for (uint64_t seed = 1; seed <= 120; seed++) {
        rng = seed + 1000;
        sbuf b = {0};
        int n_nodes;
        gen_cluster(&b, &n_nodes, seed % 2 == 0);
        kp_cluster *cl = kp_cluster_new();
        kp_error err;
        kp_error_clear(&err);
        KT_CHECK(kp_cluster_load_buffer(cl, "random.yaml", b.buf, b.len, &err) == KP_OK);
        KT_CHECK(kp_cluster_finalize(cl, &err) == KP_OK);
        kp_scenario sc;
        bool del_node = seed % 3 == 0; /* the last node is deleted: no other action names it */
        gen_scenario(&sc, del_node ? n_nodes - 1 : n_nodes, 12);
        if (del_node) add_node_delete(&sc, n_nodes - 1); /* its pods go: none deleted by name */
        else add_deletes(&sc, cl);
        add_arrivals(&sc, 8);
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.duration_ms = 20 * 60 * 1000;
        o.seed = seed;
        o.has_seed = true;
        o.attempt_hook = fresh_hook;
        o.attempt_ctx = &c;
        c.seed = seed;
        c.n_cum = 0;
        kp_sim *sim = NULL;
        KT_CHECK(kp_sim_new(cl, NULL, &sc, &o, &sim, &err) == KP_OK);
        if (sim && kp_sim_run(sim, &err) != KP_OK) {
            fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
            KT_CHECK(false);
        }
        kp_sim_free(sim);
        kp_cluster_free(cl);
        free_arrivals(&sc);
        free(sc.actions);
        free(b.buf);
    }
    fprintf(stderr, "  %u attempts compared, %u nominations\n", c.compared, c.nominated);
    KT_CHECK(c.compared > 100);
    KT_CHECK(c.nominated > 20);
    free(c.msg);
    free(c.cum_v);
    free(c.cum_pdb);
}

KT_MAIN(KT_CASE(random_runs_keep_every_invariant), KT_CASE(same_inputs_same_output),
        KT_CASE(preemptor_waits_for_grace_period), KT_CASE(decisions_equal_a_fresh_schedule))
