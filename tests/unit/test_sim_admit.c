/* The kubelets' admission in the simulation (src/sim/sim_admit.c, docs/simulate.md "Kubelets:
 * admission"). Randomised runs where pods reach their node through the scheduler, through a
 * template naming the node (spec.nodeName: the scheduler never sees them) and as critical pods
 * that preempt on the kubelet. At every admission:
 *   - property: an admitted pod's requests fit what is free on its node once its victims are
 *     gone (the node's sums read through kprio/inspect.h, the victims' requests from the test's
 *     own table), and a rejected pod has a reason and a message;
 *   - consistency with `kprio admit`: the simulation's cluster is written out (kprio/encode.h),
 *     loaded into a fresh cluster and the pod admitted there as `kprio admit -f SNAPSHOT --node
 *     NODE --pod POD --node-condition ...` does (kp_admit with the conditions overridden): the
 *     same verdict, reason, message and victims.
 * After the run every pod the kubelet rejected has its Warning event. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"
#include "kprio/inspect.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"
#include "sim_case.h"
#include "text_buf.h"

#define MAX_WL 8

typedef struct {
    unsigned cpu[MAX_WL]; /* millicores per pod of workload w (pods named w<N>-...) */
    bool seen[4096]; /* per pod: its kubelet has seen it (running at the start, or admitted) */
    unsigned admitted, rejected, with_victims, compared, unseen_dropped;
    uint64_t seed;
} admit_ctx;

/* nodes n0..; ReplicaSets w0.. whose pods go through the scheduler, name a node in their
 * template, or run at system-node-critical on a named node; some pods bound at the start. */
static int gen_cluster(sbuf *b, admit_ctx *c) {
    int n_nodes = 2 + (int)rnd(3);
    unsigned free_milli[4];
    put(b, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
           "value: 100\n");
    for (int i = 0; i < n_nodes; i++)
        put(b,
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n%d\n  labels: "
            "{kubernetes.io/hostname: n%d}\nstatus:\n  allocatable: {cpu: \"%u\", memory: 8Gi, "
            "pods: \"%u\"}\n",
            i, i, (free_milli[i] = 2 + rnd(3)), 4 + rnd(8));
    for (int i = 0; i < n_nodes; i++) free_milli[i] *= 1000;
    int n_wl = 3 + (int)rnd(MAX_WL - 3);
    for (int w = 0; w < n_wl; w++) {
        unsigned kind = rnd(6); /* 0-2 scheduled, 3-4 pinned, 5 critical pinned */
        unsigned qos = rnd(3); /* BestEffort, Burstable, Guaranteed */
        unsigned cpu = qos == 0 ? 0 : 250 * (1 + rnd(4));
        c->cpu[w] = cpu;
        char res[160] = "{}", where[64] = "", cls[64] = "priorityClassName: low";
        if (qos == 1) snprintf(res, sizeof res, "{requests: {cpu: %um}}", cpu);
        if (qos == 2)
            snprintf(res, sizeof res,
                     "{requests: {cpu: %um, memory: 64Mi}, limits: {cpu: %um, memory: 64Mi}}", cpu,
                     cpu);
        if (kind >= 3) snprintf(where, sizeof where, "nodeName: n%u", rnd((uint32_t)n_nodes));
        if (kind == 5) snprintf(cls, sizeof cls, "priorityClassName: system-node-critical");
        int reps = 1 + (int)rnd(3);
        put(b,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: w%d, namespace: "
            "default, uid: rs-w%d}\nspec:\n  replicas: %d\n  selector: {matchLabels: {app: "
            "w%d}}\n  template:\n    metadata: {labels: {app: w%d}}\n    spec:\n      %s\n"
            "      %s\n      terminationGracePeriodSeconds: %u\n      containers: [{name: c, "
            "image: x, resources: %s}]\n",
            w, w, reps, w, w, cls, where[0] ? where : "restartPolicy: Always", 2 * rnd(4), res);
        if (kind == 5) continue; /* the critical ones arrive through their ReplicaSet */
        for (int k = 0; k < reps; k++) {
            int node = (int)rnd((uint32_t)n_nodes + 1);
            if (node < n_nodes && free_milli[node] < cpu) node = n_nodes;
            if (node < n_nodes) free_milli[node] -= cpu;
            put(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: w%d-%d\n  namespace: "
                "default\n  uid: u-w%d-%d\n  labels: {app: w%d}\n  creationTimestamp: "
                "\"2026-01-01T00:00:%02dZ\"\n  ownerReferences: [{apiVersion: apps/v1, kind: "
                "ReplicaSet, name: w%d, uid: rs-w%d, controller: true}]\nspec:\n  %s\n  "
                "terminationGracePeriodSeconds: 2\n  containers: [{name: c, image: x, resources: "
                "%s}]\n",
                w, k, w, k, w, k, w, w, cls, res);
            if (node < n_nodes)
                put(b,
                    "  nodeName: n%d\nstatus: {phase: Running, startTime: "
                    "\"2026-01-01T00:01:00Z\"}\n",
                    node);
        }
    }
    return n_nodes;
}

static unsigned cpu_of(const admit_ctx *c, const kp_cluster *cl, kp_index pod) {
    int w = -1;
    if (sscanf(kp_cluster_pod_name(cl, pod), "w%d-", &w) != 1 || w < 0 || w >= MAX_WL) {
        KT_CHECK(false);
        return 0;
    }
    return c->cpu[w];
}

static char *ref_of(const kp_cluster *cl, kp_index pod, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
    return buf;
}

/* A pod bound to the node that its kubelet has not seen yet (bound within the last second). */
static bool unseen_on_node(const admit_ctx *c, const kp_cluster *cl, kp_index node, size_t i,
                           kp_index self) {
    kp_index q = kp_cluster_node_pod(cl, node, i);
    kp_pod_info qi;
    kp_cluster_pod_info(cl, q, &qi);
    KT_CHECK(q < 4096);
    return q != self && !qi.terminal && q < 4096 && !c->seen[q];
}

/* `kprio admit` on the simulation's cluster written out, less the pods the kubelet had not seen
 * (deleted from the fresh cluster): same verdict, texts and victims. */
static void same_as_admit(admit_ctx *c, const kp_cluster *cl, kp_index node, kp_index pod,
                          unsigned conds, const kp_admission *a) {
    sbuf b = {0};
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err) == KP_OK);
    kp_cluster *fresh = kp_cluster_new();
    kp_admission *fa = kp_admission_new();
    char ref[600], ref2[600];
    if (kp_cluster_load_buffer(fresh, "snapshot.json", b.buf, b.len, &err) != KP_OK ||
        kp_cluster_finalize(fresh, &err) != KP_OK) {
        fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)c->seed, err.msg);
        KT_CHECK(false);
        goto out;
    }
    kp_index fn = kp_cluster_find_node(fresh, kp_cluster_node_name(cl, node));
    kp_index fp = kp_cluster_find_pod(fresh, ref_of(cl, pod, ref, sizeof ref));
    KT_CHECK(fn >= 0 && fp >= 0);
    if (fn < 0 || fp < 0) goto out;
    for (size_t i = 0; i < kp_cluster_node_pod_count(cl, node); i++) {
        if (!unseen_on_node(c, cl, node, i, pod)) continue;
        kp_index q = kp_cluster_find_pod(
            fresh, ref_of(cl, kp_cluster_node_pod(cl, node, i), ref2, sizeof ref2));
        KT_CHECK(q >= 0 && kp_cluster_delete_pod(fresh, q, &err) == KP_OK);
        c->unseen_dropped++;
    }
    kp_admit_options o;
    kp_admit_options_init(&o);
    o.override_conditions = true; /* --node-condition for each condition */
    o.conditions = conds;
    KT_CHECK(kp_admit(fresh, fn, fp, &o, fa, &err) == KP_OK);
    c->compared++;
    KT_CHECK(kp_admission_admitted(fa) == kp_admission_admitted(a));
    KT_CHECK_STR(kp_admission_reason(fa), kp_admission_reason(a));
    KT_CHECK_STR(kp_admission_message(fa), kp_admission_message(a));
    KT_CHECK_INT(kp_admission_victim_count(fa), kp_admission_victim_count(a));
    for (size_t i = 0; i < kp_admission_victim_count(a) && i < kp_admission_victim_count(fa); i++)
        KT_CHECK_STR(ref_of(fresh, kp_admission_victim(fa, i)->pod, ref2, sizeof ref2),
                     ref_of(cl, kp_admission_victim(a, i)->pod, ref, sizeof ref));
out:
    kp_admission_free(fa);
    kp_cluster_free(fresh);
    free(b.buf);
}

static void admit_hook(void *vc, const kp_sim *sim, kp_index node, kp_index pod, unsigned conds,
                       const kp_admission *a) {
    admit_ctx *c = vc;
    const kp_cluster *cl = kp_sim_cluster(sim);
    KT_CHECK_INT(kp_cluster_pod_node(cl, pod), node);
    if (!kp_admission_admitted(a)) {
        c->rejected++;
        KT_CHECK(kp_admission_reason(a)[0] != '\0');
        KT_CHECK(kp_admission_message(a)[0] != '\0');
    } else {
        c->admitted++;
        c->with_victims += kp_admission_victim_count(a) > 0;
        /* the node's sums (the pod itself is bound there) less the victims' fit allocatable */
        kp_inspection *in = NULL;
        KT_CHECK(kp_inspection_new(cl, &in, NULL) == KP_OK);
        const kp_inspect_node *row = in ? kp_inspection_node(in, (size_t)node) : NULL;
        KT_CHECK(row != NULL);
        if (row) {
            int64_t cpu = row->requested_cpu_milli, pods = row->requested_pods;
            for (size_t i = 0; i < kp_cluster_node_pod_count(cl, node); i++) {
                if (!unseen_on_node(c, cl, node, i, pod)) continue;
                cpu -= cpu_of(c, cl, kp_cluster_node_pod(cl, node, i));
                pods--;
            }
            for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
                cpu -= cpu_of(c, cl, kp_admission_victim(a, i)->pod);
                pods--;
            }
            KT_CHECK(cpu <= row->allocatable_cpu_milli);
            KT_CHECK(pods <= row->allocatable_pods);
        }
        kp_inspection_free(in);
    }
    same_as_admit(c, cl, node, pod, conds, a);
    if (pod < 4096) c->seen[pod] = true;
}

KT_TEST(random_admissions_fit_and_equal_kprio_admit) {
    admit_ctx c;
    memset(&c, 0, sizeof c);
    unsigned failed_pods = 0, events_seen = 0;
    for (uint64_t seed = 1; seed <= 120; seed++) {
        rng = seed * 7919;
        c.seed = seed;
        sbuf b = {0};
        gen_cluster(&b, &c);
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES); /* as kprio simulate loads */
        if (kp_cluster_load_buffer(cl, "random.yaml", b.buf, b.len, &err) != KP_OK ||
            kp_cluster_finalize(cl, &err) != KP_OK) {
            fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
            KT_CHECK(false);
            kp_cluster_free(cl);
            free(b.buf);
            continue;
        }
        memset(c.seen, 0, sizeof c.seen); /* the snapshot's running pods were admitted */
        for (size_t i = 0; i < kp_cluster_pod_count(cl) && i < 4096; i++)
            c.seen[i] = kp_cluster_pod_node(cl, (kp_index)i) >= 0;
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.kubelets = true;
        o.duration_ms = 15000;
        o.admit_hook = admit_hook;
        o.admit_ctx = &c;
        kp_sim *sim = NULL;
        KT_CHECK(kp_sim_new(cl, NULL, NULL, &o, &sim, &err) == KP_OK);
        if (sim && kp_sim_run(sim, &err) != KP_OK) {
            fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
            KT_CHECK(false);
        }
        /* every pod its kubelet rejected has the kubelet's Warning event */
        for (size_t i = 0; sim && i < kp_sim_pod_count(sim); i++) {
            const kp_sim_pod *p = kp_sim_pod_get(sim, i);
            if (strcmp(p->cause, "rejected") != 0) continue;
            failed_pods++;
            bool found = false;
            for (size_t e = 0; e < kp_sim_event_count(sim) && !found; e++) {
                const kp_sim_event *ev = kp_sim_event_get(sim, e);
                found = ev->pod == p->pod && ev->type == KP_SIM_WARNING && ev->reason[0] &&
                        ev->message[0];
            }
            events_seen += found;
            KT_CHECK(found);
        }
        kp_sim_free(sim);
        kp_cluster_free(cl);
        free(b.buf);
    }
    fprintf(stderr,
            "  %u admitted (%u by preempting), %u rejected, %u compared (%u unseen pods left "
            "out)\n",
            c.admitted, c.with_victims, c.rejected, c.compared, c.unseen_dropped);
    KT_CHECK(c.admitted > 50);
    KT_CHECK(c.rejected > 20);
    KT_CHECK(c.with_victims > 3);
    KT_CHECK_INT(c.compared, c.admitted + c.rejected);
    KT_CHECK_INT(events_seen, failed_pods);
    KT_CHECK(failed_pods > 0);
    KT_CHECK(c.unseen_dropped > 0);
}

/* The kubelet sees a bind 1s later: the OutOfcpu loop of a template that names a full node
 * turns once a second, bounded by the duration, never inside one instant. */
KT_TEST(reject_loop_unfolds_in_time) {
    static const char y[] =
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"1\", "
        "memory: 1Gi, pods: \"10\"}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: db, "
        "namespace: default}\nspec: {nodeName: n1, containers: [{name: c, resources: {requests: "
        "{cpu: 800m}}}]}\nstatus: {phase: Running}\n---\napiVersion: apps/v1\nkind: ReplicaSet\n"
        "metadata: {name: w, namespace: default, uid: rs-w}\nspec:\n  replicas: 1\n  selector: "
        "{matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec: "
        "{nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n";
    kp_cluster *cl = kp_cluster_new();
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_cluster_load_buffer(cl, "t.yaml", y, strlen(y), &err) == KP_OK);
    KT_CHECK(kp_cluster_finalize(cl, &err) == KP_OK);
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.kubelets = true;
    o.duration_ms = 10500;
    kp_sim *sim = NULL;
    KT_CHECK(kp_sim_new(cl, NULL, NULL, &o, &sim, &err) == KP_OK);
    KT_CHECK(sim && kp_sim_run(sim, &err) == KP_OK);
    kp_sim_counters k;
    kp_sim_counters_get(sim, &k);
    KT_CHECK_INT(k.kubelet_rejections, 10); /* at 1s, 2s, ..., 10s */
    KT_CHECK_INT(k.pods_created, 11);
    int64_t last = -1;
    for (size_t e = 0; e < kp_sim_event_count(sim); e++) {
        const kp_sim_event *ev = kp_sim_event_get(sim, e);
        if (strcmp(ev->reason, "OutOfcpu") != 0) continue;
        KT_CHECK_INT(ev->t_ms, last + (last < 0 ? 1001 : 1000));
        KT_CHECK_STR(ev->message,
                     "Node didn't have enough resource: cpu, requested: 500, used: 800, "
                     "capacity: 1000");
        last = ev->t_ms;
    }
    KT_CHECK_INT(last, 10000);
    kp_sim_free(sim);
    kp_cluster_free(cl);
}

/* The Scenario's kubelets[] (per node pool KubeletConfigurations): decoded, paths joined to
 * the scenario's directory, strict errors naming the entry and field. */
#define HEAD "apiVersion: kprio/v1alpha1\nkind: Scenario\n"
static char msg[512];
static const char *scenario_error(const char *text) {
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_scenario_load_buffer("s.yaml", text, strlen(text), "dir", &sc, &err) != KP_OK);
    KT_CHECK(sc == NULL);
    kp_scenario_free(sc);
    snprintf(msg, sizeof msg, "%s", err.msg);
    return msg;
}

KT_TEST(scenario_kubelet_pools) {
    static const char ok[] = HEAD "kubelets:\n"
                                  "- nodeSelector: {matchLabels: {pool: gpu}}\n"
                                  "  config: gpu.yaml\n"
                                  "- nodeSelector: {matchExpressions: [{key: pool, operator: "
                                  "Exists}]}\n  config: /etc/k.yaml\n";
    kp_scenario *sc = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_scenario_load_buffer("s.yaml", ok, strlen(ok), "dir", &sc, &err) == KP_OK);
    KT_CHECK(sc && sc->n_kubelets == 2);
    if (sc && sc->n_kubelets == 2) {
        KT_CHECK_STR(sc->kubelets[0].config, "dir/gpu.yaml");
        KT_CHECK_INT(sc->kubelets[0].n_reqs, 1);
        KT_CHECK_STR(sc->kubelets[0].reqs[0].key, "pool");
        KT_CHECK_STR(sc->kubelets[0].reqs[0].op, "In");
        KT_CHECK_STR(sc->kubelets[1].config, "/etc/k.yaml"); /* absolute: as written */
        KT_CHECK_STR(sc->kubelets[1].reqs[0].op, "Exists");
    }
    kp_scenario_free(sc);
    KT_CHECK_STR(scenario_error(HEAD "kubelets:\n- config: a.yaml\n"),
                 "kubelets[0]: nodeSelector: required value");
    KT_CHECK_STR(scenario_error(HEAD "kubelets:\n- nodeSelector: {}\n"),
                 "kubelets[0]: config: required value");
    KT_CHECK(strstr(scenario_error(HEAD "kubelets:\n- nodeSelector: {}\n  config: a\n  x: 1\n"),
                    "kubelets[0]") != NULL);
}

/* The kubelet's preemption victims end as evictPodsToFreeRequests' status function writes them:
 * Failed, reason Preempting, "Preempted in order to admit critical pod", and DisruptionTarget
 * (TerminationByKubelet, "Pod was preempted by Kubelet to accommodate a critical pod."), as
 * --final-snapshot writes them (golden simulate-admit-critical-preempts' inputs). */
KT_TEST(kubelet_victims_final_status) {
    kp_error err;
    kp_cluster *cl = NULL;
    kp_scenario *sc = NULL;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.kubelets = true;
    kp_sim *sim =
        sim_case_run("tests/golden/simulate-admit-critical-preempts/", &o, &cl, &sc, &err);
    KT_CHECK(sim != NULL);
    sbuf b = {0};
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, to_sbuf, &b, &err), KP_OK);
    int victims = 0;
    const char *at = b.buf;
    for (char *line; (line = next_line(&at)); free(line))
        if (strstr(line, "\"reason\":\"Preempting\"")) {
            victims++;
            KT_CHECK_CONTAINS(line, "\"phase\":\"Failed\",\"reason\":\"Preempting\",\"message\":"
                                    "\"" KP_ADMIT_VICTIM_MESSAGE "\",\"conditions\":[{\"type\":"
                                    "\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
                                    "\"TerminationByKubelet\",\"message\":"
                                    "\"" KP_ADMIT_VICTIM_CONDITION_MESSAGE "\"}]");
        }
    KT_CHECK_INT(victims, 2); /* web-b and web-c */
    free(b.buf);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(random_admissions_fit_and_equal_kprio_admit), KT_CASE(reject_loop_unfolds_in_time),
        KT_CASE(scenario_kubelet_pools), KT_CASE(kubelet_victims_final_status))
