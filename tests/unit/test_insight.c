/* Findings of a simulation and the what-if comparison (kprio/insight.h, src/sim/insight*.c):
 * small hand-built runs whose findings are checked field by field (kind, subject, turns, period,
 * depth, durations, the events they link to), the thresholds, the order, the comparison, and
 * out-of-memory at every allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/insight.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"
#include "text_buf.h"

#define HEAD "apiVersion: kprio/v1alpha1\nkind: Scenario\n"
#define PC(name, v)                                                                      \
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " name \
    "}\nvalue: " v "\n"
#define NODE(name, cpu, mem, labels)                                                              \
    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " name                                   \
    "\n  labels: {kubernetes.io/hostname: " name labels "}\nstatus:\n  allocatable: {cpu: \"" cpu \
    "\", memory: " mem ", pods: \"110\"}\n"
#define RS(name, pc, mem, sel)                                                                  \
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: " name                        \
    ", namespace: default, uid: uid-rs-" name "}\nspec:\n  replicas: 1\n  selector: "           \
    "{matchLabels: {app: " name "}}\n  template:\n    metadata: {labels: {app: " name           \
    "}}\n    spec:\n      priorityClassName: " pc "\n      nodeSelector: {" sel                 \
    "}\n      containers: [{name: c, image: i, resources: {requests: {cpu: \"1\", memory: " mem \
    "}}}]\n"
#define POD(name, app, pc, node, cpu, mem, sel)                                                   \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                                    \
    "\n  namespace: default\n  uid: uid-" name "\n  labels: {app: " app "}\n"                     \
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: " app ", uid: uid-rs-" app \
    ", controller: true}]\nspec:\n  priorityClassName: " pc "\n  nodeName: " node                 \
    "\n  nodeSelector: {" sel "}\n  containers: [{name: c, image: i, resources: {requests: "      \
    "{cpu: \"" cpu "\", memory: " mem "}}}]\nstatus: {phase: Running}\n"
#define URGENT(at, cpu, sel)                                                                       \
    "actions:\n- at: " at "\n  create:\n    objects:\n    - apiVersion: v1\n      kind: Pod\n"     \
    "      metadata: {name: urgent, namespace: default}\n      spec:\n        priorityClassName: " \
    "urgent\n        nodeSelector: {" sel "}\n        containers: [{name: c, image: i, "           \
    "resources: {requests: {cpu: \"" cpu "\", memory: 10Mi}}}]\n"

/* one node, a leaking pod: evicted, kept off by the pressure taint 5m, back, evicted ... */
static const char *LOOP_CLUSTER = PC("low", "100") NODE("n1", "2", "4Gi", "")
    RS("leaky", "low", "256Mi", "") POD("leaky-a", "leaky", "low", "n1", "1", "256Mi", "");
static const char *LOOP_SCENARIO = HEAD "duration: 20m\nusage:\n- selector: {matchLabels: {app: "
                                        "leaky}}\n  resource: memory\n  ramp: {start: 200Mi, "
                                        "perMinute: 2000Mi}\n";

/* urgent (pinned to n1) preempts a-1; a's replacement may only go to n2 (b-1), b's to n3 (c-1),
 * c's to n4 (d-1) */
static const char *CASCADE_CLUSTER =
    PC("p100", "100") PC("p200", "200") PC("p300", "300") PC("p400", "400") PC("urgent", "1000")
        NODE("n1", "1", "8Gi", ", ab: y") NODE("n2", "1", "8Gi", ", ab: y, bc: y")
            NODE("n3", "1", "8Gi", ", bc: y, cd: y") NODE("n4", "1", "8Gi", ", cd: y")
                RS("a", "p400", "10Mi", "ab: y") RS("b", "p300", "10Mi", "bc: y")
                    RS("c", "p200", "10Mi", "cd: y") RS("d", "p100", "10Mi", "cd: y")
                        POD("a-1", "a", "p400", "n1", "1", "10Mi", "ab: y")
                            POD("b-1", "b", "p300", "n2", "1", "10Mi", "bc: y")
                                POD("c-1", "c", "p200", "n3", "1", "10Mi", "cd: y")
                                    POD("d-1", "d", "p100", "n4", "1", "10Mi", "cd: y");
static const char *CASCADE_SCENARIO =
    HEAD "duration: 3m\n" URGENT("10s", "1", "kubernetes.io/hostname: n1");

/* two pods of app under a PDB (MIN), urgent needs the whole node */
#define PDB_CLUSTER(min)                                                                    \
    PC("low", "100")                                                                        \
    PC("urgent", "1000")                                                                    \
    NODE("n1", "2", "8Gi", "")                                                              \
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: app, namespace: "         \
    "default, "                                                                             \
    "uid: uid-rs-app}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: app}}\n  "     \
    "template:\n    metadata: {labels: {app: app}}\n    spec:\n      priorityClassName: "   \
    "low\n"                                                                                 \
    "      containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]\n"        \
    "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb-app, "     \
    "namespace: default}\nspec:\n  minAvailable: " min "\n  selector: {matchLabels: {app: " \
    "app}}\n" POD("app-1", "app", "low", "n1", "1", "10Mi", "")                             \
        POD("app-2", "app", "low", "n1", "1", "10Mi", "")
static const char *PDB_SCENARIO = HEAD "duration: 2m\n" URGENT("10s", "2", "");

/* batch (bound first) holds n1 for 3m; waiter gets it then; huge never fits */
static const char *STARVE_CLUSTER = PC("low", "100") PC("mid", "200") NODE(
    "n1", "2", "8Gi",
    "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: batch, namespace: default, labels: {app: "
        "batch}}\nspec:\n  priorityClassName: mid\n  containers: [{name: c, image: i, resources: "
        "{requests: {cpu: \"2\"}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: waiter, "
        "namespace: default}\nspec:\n  priorityClassName: low\n  containers: [{name: c, image: i, "
        "resources: {requests: {cpu: \"1\"}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
        "huge, namespace: default}\nspec:\n  priorityClassName: low\n  containers: [{name: c, "
        "image: i, resources: {requests: {cpu: \"8\"}}}]\n";
static const char *STARVE_SCENARIO =
    HEAD "duration: 6m\nlifetimes:\n- selector: {matchLabels: {app: batch}}\n  after: 3m\n";

typedef struct {
    kp_cluster *cl;
    kp_scenario *sc;
    kp_sim *sim;
} run;

static kp_status start(run *r, const char *cl_text, const char *sc_text) {
    kp_error err;
    kp_error_clear(&err);
    memset(r, 0, sizeof *r);
    r->cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(r->cl, "c.yaml", cl_text, strlen(cl_text), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(r->cl, &err), KP_OK);
    KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", sc_text, strlen(sc_text), NULL, &r->sc, &err),
                 KP_OK);
    kp_status st = kp_sim_new(r->cl, NULL, r->sc, NULL, &r->sim, &err);
    if (st == KP_OK) st = kp_sim_run(r->sim, &err);
    if (st != KP_OK) fprintf(stderr, "run: %s\n", err.msg);
    return st;
}

static void stop(run *r) {
    kp_sim_free(r->sim);
    kp_scenario_free(r->sc);
    kp_cluster_free(r->cl);
}

static kp_insight *insight(const run *r, const kp_insight_options *o) {
    kp_insight *in = NULL;
    kp_error err;
    KT_CHECK_INT(kp_insight_new(r->sim, o, &in, &err), KP_OK);
    return in;
}

/* the first finding of kind, NULL */
static const kp_finding *find(const kp_insight *in, kp_finding_kind kind) {
    for (size_t i = 0; i < kp_insight_finding_count(in); i++)
        if (kp_insight_finding_get(in, i)->kind == kind) return kp_insight_finding_get(in, i);
    return NULL;
}

static size_t count_kind(const kp_insight *in, kp_finding_kind kind) {
    size_t n = 0;
    for (size_t i = 0; i < kp_insight_finding_count(in); i++)
        n += kp_insight_finding_get(in, i)->kind == kind;
    return n;
}

static bool links(const kp_finding *f, long ev) {
    for (size_t i = 0; i < f->n_events; i++)
        if (f->events[i] == ev) return true;
    return false;
}

static const char *pod_name(const run *r, kp_index p) { return kp_cluster_pod_name(r->cl, p); }

KT_TEST(eviction_loop_turns_period_and_events) {
    run r;
    KT_CHECK_INT(start(&r, LOOP_CLUSTER, LOOP_SCENARIO), KP_OK);
    /* the turns, recomputed from the log: the kubelet's evictions and their times */
    long ev[16];
    size_t n_ev = 0;
    for (size_t i = 0; i < kp_sim_event_count(r.sim) && n_ev < 16; i++) {
        const kp_sim_event *e = kp_sim_event_get(r.sim, i);
        if (e->type == KP_SIM_WARNING && strcmp(e->reason, "Evicted") == 0) ev[n_ev++] = (long)i;
    }
    KT_CHECK_INT(n_ev, 3);
    kp_insight *in = insight(&r, NULL);
    const kp_finding *f = find(in, KP_FINDING_LOOP);
    KT_CHECK(f != NULL);
    if (f && n_ev == 3) {
        KT_CHECK(f == kp_insight_finding_get(in, 0)); /* critical: first */
        KT_CHECK_INT(f->severity, KP_SEVERITY_CRITICAL);
        KT_CHECK_STR(f->kind_name, "Loop");
        KT_CHECK_STR(f->subject_kind, "ReplicaSet");
        KT_CHECK_STR(f->subject_ns, "default");
        KT_CHECK_STR(f->subject_name, "leaky");
        KT_CHECK_INT(f->count, 3);
        int64_t t0 = kp_sim_event_get(r.sim, (size_t)ev[0])->t_ms;
        int64_t t1 = kp_sim_event_get(r.sim, (size_t)ev[1])->t_ms;
        int64_t t2 = kp_sim_event_get(r.sim, (size_t)ev[2])->t_ms;
        KT_CHECK_INT(f->period_ms, (t1 - t0 < t2 - t1 ? t1 - t0 : t2 - t1));
        KT_CHECK_INT(f->period_ms, 421000); /* 2m to leak to the threshold, 5m transition, 1s */
        KT_CHECK_INT(f->first_ms, t0);
        KT_CHECK_INT(f->last_ms, t2);
        KT_CHECK_INT(f->n_nodes, 1);
        KT_CHECK_STR(kp_cluster_node_name(r.cl, f->nodes[0]), "n1");
        KT_CHECK_INT(f->n_pods, 4); /* three evicted, the last replacement */
        KT_CHECK_STR(pod_name(&r, f->pods[0]), "leaky-a");
        /* each turn starts with the decision (the eviction itself), then the replacement's
         * SuccessfulCreate; in time order */
        KT_CHECK(f->n_events > 0 && f->events[0] == ev[0]);
        for (size_t k = 0; k < 3; k++) KT_CHECK(links(f, ev[k]));
        for (size_t k = 1; k < f->n_events; k++) KT_CHECK(f->events[k] > f->events[k - 1]);
        size_t creates = 0;
        for (size_t k = 0; k < f->n_events; k++)
            creates += strcmp(kp_sim_event_get(r.sim, (size_t)f->events[k])->reason,
                              "SuccessfulCreate") == 0;
        KT_CHECK_INT(creates, 3);
        KT_CHECK_CONTAINS(f->summary, "3 turns of evict -> recreate every 7m1s");
        KT_CHECK_CONTAINS(f->detail, "turn 3 at 16m2s: default/leaky-lwhl2 evicted from n1");
    }
    /* the pressure hot spot of the same run: every eviction, under MemoryPressure */
    const kp_finding *h = find(in, KP_FINDING_PRESSURE_HOTSPOT);
    KT_CHECK(h != NULL);
    if (h) {
        KT_CHECK_STR(h->condition, "MemoryPressure");
        KT_CHECK_STR(h->subject_name, "n1");
        KT_CHECK_INT(h->count, 3);
        KT_CHECK_INT(h->severity, KP_SEVERITY_WARNING);
        /* pressure from each eviction until the transition period (5m) after it ended; the
         * third spell (from 16m2s) lasts until the end (20m) */
        KT_CHECK_INT(h->duration_ms, 2 * 301000 + (1200000 - 962000));
    }
    kp_insight_free(in);
    kp_insight_options o;
    kp_insight_options_init(&o);
    o.loop_min_turns = 4; /* three turns are not enough then */
    in = insight(&r, &o);
    KT_CHECK_INT(count_kind(in, KP_FINDING_LOOP), 0);
    kp_insight_free(in);
    stop(&r);
}

KT_TEST(cascade_tree_three_deep) {
    run r;
    KT_CHECK_INT(start(&r, CASCADE_CLUSTER, CASCADE_SCENARIO), KP_OK);
    kp_insight *in = insight(&r, NULL);
    KT_CHECK_INT(count_kind(in, KP_FINDING_CASCADE), 1);
    const kp_finding *f = find(in, KP_FINDING_CASCADE);
    KT_CHECK(f != NULL);
    if (f) {
        KT_CHECK_STR(f->subject_kind, "Pod");
        KT_CHECK_STR(f->subject_name, "a-1");
        KT_CHECK_INT(f->depth, 3);
        KT_CHECK_INT(f->count, 4);
        KT_CHECK_INT(f->n_tree, 4);
        static const char *want[4] = {"a-1", "b-1", "c-1", "d-1"};
        for (size_t i = 0; i < f->n_tree && i < 4; i++) {
            const kp_finding_link *l = &f->tree[i];
            KT_CHECK_STR(pod_name(&r, l->pod), want[i]);
            KT_CHECK_INT(l->depth, i);
            KT_CHECK_INT(l->parent, (int32_t)i - 1);
            const kp_sim_event *e = kp_sim_event_get(r.sim, (size_t)l->event);
            KT_CHECK_STR(e->reason, "Preempted");
            KT_CHECK_INT(e->pod, l->pod);
            KT_CHECK(links(f, l->event));
            if (i > 0) { /* the parent's replacement displaced it */
                kp_index by = kp_sim_pod_get(r.sim, (size_t)l->pod)->preempted_by;
                KT_CHECK_INT(kp_sim_pod_get(r.sim, (size_t)by)->replaces, f->tree[i - 1].pod);
            }
        }
        KT_CHECK_INT(f->n_nodes, 4);
        KT_CHECK_INT(f->first_ms, 10000);
    }
    kp_insight_free(in);
    kp_insight_options o;
    kp_insight_options_init(&o);
    o.cascade_min_depth = 4;
    in = insight(&r, &o);
    KT_CHECK_INT(count_kind(in, KP_FINDING_CASCADE), 0);
    kp_insight_free(in);
    stop(&r);
}

KT_TEST(starvation_reason_and_threshold) {
    run r;
    KT_CHECK_INT(start(&r, STARVE_CLUSTER, STARVE_SCENARIO), KP_OK);
    kp_insight_options o;
    kp_insight_options_init(&o);
    o.starvation_ms = 120000;
    kp_insight *in = insight(&r, &o);
    /* waiter and huge: no owner, one namespace and priorityClassName: one finding for the two */
    KT_CHECK_INT(kp_insight_finding_count(in), 1);
    if (kp_insight_finding_count(in) == 1) {
        const kp_finding *h = kp_insight_finding_get(in, 0);
        KT_CHECK_INT(h->kind, KP_FINDING_STARVATION);
        KT_CHECK_STR(h->subject_kind, "PodGroup");
        KT_CHECK_STR(h->subject_ns, "default");
        KT_CHECK_STR(h->subject_name, "low");
        KT_CHECK_INT(h->severity, KP_SEVERITY_CRITICAL); /* huge never bound */
        KT_CHECK_INT(h->count, 2); /* pods */
        KT_CHECK_INT(h->never_bound, 1);
        KT_CHECK_STR(kp_cluster_pod_name(kp_sim_cluster(r.sim), h->pod), "huge");
        KT_CHECK_INT(h->duration_ms, 360000); /* the longest wait: huge's */
        KT_CHECK_INT(h->first_ms, 0);
        KT_CHECK_INT(h->last_ms, 360000);
        KT_CHECK_INT(h->n_pods, 2);
        KT_CHECK_INT(h->n_nodes, 1); /* where waiter was bound */
        KT_CHECK_CONTAINS(h->summary, "2 pod(s) pending longer than 2m0s (1 never bound); "
                                      "longest 6m0s: default/huge");
        KT_CHECK_CONTAINS(h->detail, "last FailedScheduling (3m0s): 0/1 nodes are available: 1 "
                                     "Insufficient cpu.");
        KT_CHECK_CONTAINS(h->detail, "preemption: tried; no victims found (0/1 nodes are "
                                     "available: 1 Preemption is not helpful for scheduling.)");
        KT_CHECK_CONTAINS(h->detail, "pods: default/waiter, default/huge");
        bool bound_linked = false; /* waiter's binding is linked too */
        for (size_t k = 0; k < h->n_events; k++) {
            const kp_sim_event *e = kp_sim_event_get(r.sim, (size_t)h->events[k]);
            bound_linked |= strcmp(e->reason, "Scheduled") == 0 && e->t_ms == 180000;
        }
        KT_CHECK(bound_linked);
    }
    kp_insight_free(in);
    o.starvation_ms = 180000; /* longer than the threshold: 3m is not */
    in = insight(&r, &o);
    KT_CHECK_INT(count_kind(in, KP_FINDING_STARVATION), 1);
    if (kp_insight_finding_count(in) == 1) { /* alone: the pod itself, as before grouping */
        const kp_finding *h = kp_insight_finding_get(in, 0);
        KT_CHECK_STR(h->subject_kind, "Pod");
        KT_CHECK_STR(h->subject_name, "huge");
        KT_CHECK_INT(h->count, 1);
        KT_CHECK_CONTAINS(h->summary, "Pod default/huge: pending for 6m0s");
    }
    kp_insight_free(in);
    stop(&r);
}

KT_TEST(starvation_of_a_gated_pod) {
    /* held by a scheduling gate the whole run: pending, never attempted, a Warning */
    run r;
    KT_CHECK_INT(start(&r,
                       NODE("n1", "2", "8Gi", "") "---\napiVersion: v1\nkind: Pod\nmetadata: "
                                                  "{name: gated, namespace: default}\nspec:\n  "
                                                  "schedulingGates: [{name: example.com/hold}]\n  "
                                                  "containers: [{name: c, image: i}]\n",
                       HEAD "duration: 10m\n"),
                 KP_OK);
    kp_insight *in = insight(&r, NULL);
    KT_CHECK_INT(kp_insight_finding_count(in), 1);
    const kp_finding *f = kp_insight_finding_get(in, 0);
    if (f) {
        KT_CHECK_INT(f->kind, KP_FINDING_STARVATION);
        KT_CHECK_INT(f->severity, KP_SEVERITY_WARNING);
        KT_CHECK_INT(f->duration_ms, 600000);
        KT_CHECK_INT(f->count, 1); /* one pod */
        KT_CHECK_INT(f->never_bound, 0); /* never attempted: held, not refused */
        KT_CHECK_CONTAINS(f->detail, "preemption: not tried; never attempted");
    }
    kp_insight_free(in);
    stop(&r);
}

static void pdb_case(const char *cl_text, uint32_t violations, const char *first_violating) {
    run r;
    KT_CHECK_INT(start(&r, cl_text, PDB_SCENARIO), KP_OK);
    kp_insight *in = insight(&r, NULL);
    const kp_finding *f = find(in, KP_FINDING_PDB_PRESSURE);
    KT_CHECK(f != NULL);
    if (f) {
        KT_CHECK_STR(f->subject_kind, "PodDisruptionBudget");
        KT_CHECK_STR(f->subject_name, "pdb-app");
        KT_CHECK_INT(f->count, violations);
        KT_CHECK_INT(f->severity, KP_SEVERITY_CRITICAL);
        /* the victims leave at 10s and their replacements never fit: at zero until the end */
        KT_CHECK_INT(f->last_ms, 120000);
        size_t preempted = 0;
        for (size_t k = 0; k < f->n_events; k++) {
            const kp_sim_event *e = kp_sim_event_get(r.sim, (size_t)f->events[k]);
            if (strcmp(e->reason, "Preempted") != 0) continue;
            if (!preempted) KT_CHECK_STR(e->name, first_violating);
            preempted++;
        }
        KT_CHECK_INT(preempted, violations);
    }
    kp_insight_free(in);
    stop(&r);
}

KT_TEST(pdb_violations_spend_the_budget_per_victim) {
    /* minAvailable 2 of 2: nothing allowed, both victims violate it */
    pdb_case(PDB_CLUSTER("2"), 2, "app-1");
    /* minAvailable 1: one disruption allowed, the second victim violates it
     * (filterPodsWithPDBViolation) */
    pdb_case(PDB_CLUSTER("1"), 1, "app-2");
}

KT_TEST(none_below_the_thresholds) {
    /* a preemption that no PDB protects (minAvailable 0) and replacements pending 1m50s: no
     * finding with the defaults, two starving pods past a 1m threshold */
    run r;
    KT_CHECK_INT(start(&r, PDB_CLUSTER("0"), PDB_SCENARIO), KP_OK);
    kp_sim_counters c;
    kp_sim_counters_get(r.sim, &c);
    KT_CHECK_INT(c.victims, 2);
    kp_insight *in = insight(&r, NULL);
    KT_CHECK_INT(kp_insight_finding_count(in), 0);
    KT_CHECK(kp_insight_finding_get(in, 0) == NULL);
    kp_insight_free(in);
    kp_insight_options o;
    kp_insight_options_init(&o);
    o.starvation_ms = 60000;
    in = insight(&r, &o);
    /* the two replacements are ReplicaSet app's: one finding for the workload */
    KT_CHECK_INT(kp_insight_finding_count(in), 1);
    KT_CHECK_INT(count_kind(in, KP_FINDING_STARVATION), 1);
    const kp_finding *f = kp_insight_finding_get(in, 0);
    if (f) {
        KT_CHECK_STR(f->subject_kind, "ReplicaSet");
        KT_CHECK_STR(f->subject_name, "app");
        KT_CHECK_INT(f->count, 2);
        KT_CHECK_INT(f->never_bound, 2);
        KT_CHECK_INT(f->n_pods, 2);
        KT_CHECK_INT(f->duration_ms, 110000);
        KT_CHECK_INT(f->severity, KP_SEVERITY_CRITICAL);
    }
    kp_insight_totals t;
    kp_insight_totals_get(in, &t);
    KT_CHECK_INT(t.starved_pods, 2);
    KT_CHECK_INT(t.starved_workloads, 1);
    KT_CHECK_INT(t.starved_groups, 0);
    KT_CHECK_INT(t.critical, 1);
    kp_insight_free(in);
    stop(&r);
}

/* Within a severity a violated PDB comes before what waited (issue 29: the PDB finding was last,
 * after every starving pod); the totals count both. */
KT_TEST(violated_pdb_leads_its_severity) {
    run r;
    KT_CHECK_INT(start(&r, PDB_CLUSTER("2"), PDB_SCENARIO), KP_OK);
    kp_insight_options o;
    kp_insight_options_init(&o);
    o.starvation_ms = 60000;
    kp_insight *in = insight(&r, &o);
    KT_CHECK_INT(kp_insight_finding_count(in), 2);
    const kp_finding *a = kp_insight_finding_get(in, 0), *b = kp_insight_finding_get(in, 1);
    if (a && b) {
        KT_CHECK_INT(a->severity, KP_SEVERITY_CRITICAL);
        KT_CHECK_INT(b->severity, KP_SEVERITY_CRITICAL);
        KT_CHECK_INT(a->kind, KP_FINDING_PDB_PRESSURE);
        KT_CHECK_INT(b->kind, KP_FINDING_STARVATION);
    }
    kp_insight_totals t;
    kp_insight_totals_get(in, &t);
    KT_CHECK_INT(t.pdbs_violated, 1);
    KT_CHECK_INT(t.pdbs_at_zero, 0);
    KT_CHECK_INT(t.starved_pods, 2);
    kp_insight_free(in);
    stop(&r);
}

/* No finding of a higher severity follows one of a lower, and within a severity the kinds go
 * PDBPressure, Loop, Cascade, PressureHotSpot, Starvation; Starvation groups by size. Checked on
 * every run of the random sweep below. */
static void check_order(const kp_insight *in) {
    static const int rank[] = {1, 2, 4, 0, 3}; /* by kp_finding_kind */
    for (size_t i = 1; i < kp_insight_finding_count(in); i++) {
        const kp_finding *p = kp_insight_finding_get(in, i - 1), *f = kp_insight_finding_get(in, i);
        KT_CHECK(p->severity >= f->severity);
        if (p->severity != f->severity) continue;
        KT_CHECK(rank[p->kind] <= rank[f->kind]);
        if (p->kind == KP_FINDING_STARVATION && f->kind == KP_FINDING_STARVATION)
            KT_CHECK(p->count >= f->count);
    }
}

KT_TEST(compare_two_runs) {
    run a, b;
    KT_CHECK_INT(start(&a, PDB_CLUSTER("1"), PDB_SCENARIO), KP_OK);
    KT_CHECK_INT(start(&b, PDB_CLUSTER("1"), HEAD "duration: 2m\n"), KP_OK);
    kp_insight *ia = insight(&a, NULL), *ib = insight(&b, NULL);
    kp_insight_compare *c = NULL;
    kp_error err;
    KT_CHECK_INT(kp_insight_compare_new(a.sim, ia, b.sim, ib, &c, &err), KP_OK);
    const kp_compare *x = kp_insight_compare_get(c);
    KT_CHECK_INT(x->a.victims, 2);
    KT_CHECK_INT(x->b.victims, 0);
    /* app-1, app-2 preempted in a, bound in b; a's urgent and replacements absent from b */
    KT_CHECK_INT(x->n_pods, 5);
    size_t absent_b = 0;
    for (size_t i = 0; i < x->n_pods; i++) {
        const kp_compare_pod *p = &x->pods[i];
        const kp_compare_pod *q = i ? &x->pods[i - 1] : NULL;
        /* pods matched by name first, by name; then the replacements by owner and ordinal */
        if (q && !q->owner_kind[0] && !p->owner_kind[0]) KT_CHECK(strcmp(q->name, p->name) < 0);
        if (q && q->owner_kind[0]) KT_CHECK(p->owner_kind[0] && p->ordinal == q->ordinal + 1);
        if (p->owner_kind[0]) KT_CHECK_STR(p->owner_name, "app");
        if (p->pod_b < 0) absent_b++;
        if (strcmp(p->name, "app-1") == 0) {
            KT_CHECK_INT(p->state_a, KP_SIM_POD_DELETED);
            KT_CHECK_INT(p->state_b, KP_SIM_POD_BOUND);
            KT_CHECK_STR(kp_cluster_node_name(a.cl, p->node_b), "n1");
        }
    }
    KT_CHECK_INT(absent_b, 3);
    /* urgent waited 30s (the victims' grace period); the replacements still wait */
    KT_CHECK_INT(x->pending_a[0], 110000);
    KT_CHECK_INT(x->pending_a[3], 110000);
    KT_CHECK_INT(x->pending_b[3], 0);
    KT_CHECK_INT(x->n_only_a, 1);
    KT_CHECK_INT(x->n_only_b, 0);
    if (x->n_only_a == 1)
        KT_CHECK_INT(kp_insight_finding_get(ia, x->only_a[0])->kind, KP_FINDING_PDB_PRESSURE);
    kp_insight_compare_free(c);
    kp_insight_free(ia);
    kp_insight_free(ib);
    stop(&a);
    stop(&b);
}

/* ---------------------------------------------------------------- random runs */

/* The scheduler's own count, through the attempt hook: per pod, victims and PDB violations grow
 * over its attempts. */
typedef struct {
    int32_t *viol;
    size_t *victims, cap;
    int64_t violations, n_victims;
} hook_count;

static void count_hook(void *ctx, const kp_sim *sim, kp_index pod, const kp_sched_pod_result *r) {
    (void)sim;
    hook_count *h = ctx;
    if (!r) return;
    if ((size_t)pod >= h->cap) {
        size_t cap = (size_t)pod * 2 + 16;
        h->viol = realloc(h->viol, cap * sizeof *h->viol);
        h->victims = realloc(h->victims, cap * sizeof *h->victims);
        if (!h->viol || !h->victims) abort();
        for (size_t i = h->cap; i < cap; i++) h->viol[i] = 0, h->victims[i] = 0;
        h->cap = cap;
    }
    h->violations += r->pdb_violations - h->viol[pod];
    h->n_victims += (int64_t)(r->n_victims - h->victims[pod]);
    h->viol[pod] = r->pdb_violations;
    h->victims[pod] = r->n_victims;
}

/* nodes n0..; ReplicaSets w0.. each under its own PDB (maxUnavailable 1, or minAvailable from
 * 0 to all its replicas), their pods bound where they fit; urgent pods arriving */
static void gen_run(sbuf *b, sbuf *sc) {
    int nodes = 2 + (int)rnd(3), wls = 1 + (int)rnd(3);
    unsigned free_m[4];
    put(b, "%s%s%s", PC("low", "100"), PC("mid", "500"), PC("urgent", "1000"));
    for (int i = 0; i < nodes; i++) {
        free_m[i] = 2000 + 1000 * rnd(3);
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: "
            "{kubernetes.io/hostname: n%d}}\nstatus: {allocatable: {cpu: %um, memory: 8Gi, "
            "pods: \"110\"}}\n",
            i, i, free_m[i]);
    }
    for (int w = 0; w < wls; w++) {
        int reps = 1 + (int)rnd(4);
        unsigned cpu = 500 * (1 + rnd(2));
        const char *pc = rnd(2) ? "low" : "mid";
        put(b,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: w%d, namespace: "
            "default, uid: uid-w%d}\nspec:\n  replicas: %d\n  selector: {matchLabels: {app: "
            "w%d}}\n  template:\n    metadata: {labels: {app: w%d}}\n    spec:\n      "
            "priorityClassName: %s\n      terminationGracePeriodSeconds: %u\n      "
            "containers: [{name: c, image: i, resources: {requests: {cpu: %um}}}]\n",
            w, w, reps, w, w, pc, 10 * rnd(4), cpu);
        if (rnd(3))
            put(b,
                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: "
                "p%d, namespace: default}\nspec:\n  minAvailable: %u\n  selector: "
                "{matchLabels: {app: w%d}}\n",
                w, rnd((uint32_t)reps + 1), w);
        else
            put(b,
                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: "
                "p%d, namespace: default}\nspec:\n  maxUnavailable: 1\n  selector: "
                "{matchLabels: {app: w%d}}\n",
                w, w);
        for (int k = 0; k < reps; k++) {
            int node = (int)rnd((uint32_t)nodes);
            bool fits = free_m[node] >= cpu;
            if (fits) free_m[node] -= cpu;
            char where[32] = "";
            if (fits) snprintf(where, sizeof where, "  nodeName: n%d\n", node);
            put(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: w%d-%d\n  namespace: "
                "default\n  uid: uid-w%d-%d\n  labels: {app: w%d}\n  ownerReferences: "
                "[{apiVersion: apps/v1, kind: ReplicaSet, name: w%d, uid: uid-w%d, controller: "
                "true}]\nspec:\n  priorityClassName: %s\n%s  containers: [{name: c, image: i, "
                "resources: {requests: {cpu: %um}}}]\nstatus: {phase: %s}\n",
                w, k, w, k, w, w, w, pc, where, cpu, fits ? "Running" : "Pending");
        }
    }
    put(sc, HEAD "duration: 10m\nactions:\n");
    int arrivals = 1 + (int)rnd(4);
    for (int a = 0; a < arrivals; a++)
        put(sc,
            "- at: %us\n  create:\n    objects:\n    - apiVersion: v1\n      kind: Pod\n      "
            "metadata: {name: urgent-%d, namespace: default}\n      spec:\n        "
            "priorityClassName: urgent\n        containers: [{name: c, image: i, resources: "
            "{requests: {cpu: %um}}}]\n",
            10 + 60 * (unsigned)a, a, 1000 + 500 * rnd(4));
}

KT_TEST(random_runs_pdb_violations_equal_the_schedulers) {
    int checked = 0, violating = 0;
    for (uint64_t seed = 1; seed <= 80; seed++) {
        rng = seed;
        sbuf b = {0}, sc = {0};
        gen_run(&b, &sc);
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        kp_scenario *scen = NULL;
        KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", b.buf, b.len, &err), KP_OK);
        KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
        KT_CHECK_INT(kp_scenario_load_buffer("s.yaml", sc.buf, sc.len, NULL, &scen, &err), KP_OK);
        hook_count h = {0};
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.attempt_hook = count_hook;
        o.attempt_ctx = &h;
        kp_sim *sim = NULL;
        KT_CHECK_INT(kp_sim_new(cl, NULL, scen, &o, &sim, &err), KP_OK);
        KT_CHECK_INT(kp_sim_run(sim, &err), KP_OK);
        kp_sim_counters c;
        kp_sim_counters_get(sim, &c);
        kp_insight *in = NULL;
        KT_CHECK_INT(kp_insight_new(sim, NULL, &in, &err), KP_OK);
        check_order(in);
        int64_t mine = 0;
        for (size_t i = 0; i < kp_insight_finding_count(in); i++) {
            const kp_finding *f = kp_insight_finding_get(in, i);
            if (f->kind == KP_FINDING_PDB_PRESSURE) mine += f->count;
        }
        /* every victim the scheduler chose was preempted (none had left meanwhile): the
         * rebuilt PDB counts must find the scheduler's violations, victim for victim */
        if ((int64_t)c.victims == h.n_victims) {
            checked++;
            violating += h.violations > 0;
            if (mine != h.violations)
                fprintf(stderr, "  seed %llu: insight %lld, scheduler %lld violations\n",
                        (unsigned long long)seed, (long long)mine, (long long)h.violations);
            KT_CHECK_INT(mine, h.violations);
        }
        kp_insight_free(in);
        kp_sim_free(sim);
        kp_scenario_free(scen);
        kp_cluster_free(cl);
        free(h.viol);
        free(h.victims);
        free(b.buf);
        free(sc.buf);
    }
    KT_CHECK(checked >= 60);
    KT_CHECK(violating >= 5);
    if (getenv("KP_TEST_VERBOSE"))
        fprintf(stderr, "  %d runs checked, %d with violations\n", checked, violating);
}

KT_TEST(alloc_fail_sweep) {
    run r;
    KT_CHECK_INT(start(&r, CASCADE_CLUSTER, CASCADE_SCENARIO), KP_OK);
    kp_error err;
    int runs = 0;
    for (long n = 0; n < 100000; n++) {
        kp_insight *in = NULL;
        kp__alloc_fail_after(n, false);
        kp_status st = kp_insight_new(r.sim, NULL, &in, &err);
        kp_insight_compare *c = NULL;
        if (st == KP_OK) st = kp_insight_compare_new(r.sim, in, r.sim, in, &c, &err);
        kp__alloc_fail_after(-1, false);
        runs++;
        if (st == KP_OK) {
            KT_CHECK_INT(kp_insight_finding_count(in), 1);
            KT_CHECK_INT(kp_insight_compare_get(c)->n_pods, 0);
            kp_insight_compare_free(c);
            kp_insight_free(in);
            break;
        }
        KT_CHECK_INT(st, KP_ENOMEM);
        kp_insight_free(in);
    }
    KT_CHECK(runs > 20);
    stop(&r);
}

KT_MAIN(KT_CASE(eviction_loop_turns_period_and_events), KT_CASE(cascade_tree_three_deep),
        KT_CASE(starvation_reason_and_threshold), KT_CASE(starvation_of_a_gated_pod),
        KT_CASE(pdb_violations_spend_the_budget_per_victim), KT_CASE(none_below_the_thresholds),
        KT_CASE(violated_pdb_leads_its_severity), KT_CASE(compare_two_runs),
        KT_CASE(random_runs_pdb_violations_equal_the_schedulers), KT_CASE(alloc_fail_sweep))
