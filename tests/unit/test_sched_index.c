/* The pod index behind the InterPodAffinity / PodTopologySpread PreFilters and scores
 * (src/sched/podindex.c) against the reference scan of every pod on every node
 * (kp_sched.no_index), on randomised clusters (seeded, with Services / ReplicaSets /
 * ReplicationControllers for the default spreading constraints): the PreFilter state and the
 * scores of every pending pod, the same after bindings, and whole runs must agree. */
#include <stdarg.h>

#include "core/cluster.h"
#include "core/sched_config.h"
#include "test_sched_util.h"

typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n >= 0 && b->p && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = b->cap * 2 + (size_t)(n > 0 ? n : 0) + 4096;
        char *np = realloc(b->p, ncap);
        if (!np) abort();
        b->p = np;
        b->cap = ncap;
    }
}

static uint64_t rs;
static uint32_t rnd(uint32_t n) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)((rs >> 11) % n);
}

static const char *apps[] = {"a", "b", "c", "d"};
static const char *tiers[] = {"x", "y"};

/* a random label selector over app / tier */
static void selector(sbuf *b) {
    switch (rnd(8)) {
    case 0: put(b, "{matchLabels: {app: %s}}", apps[rnd(4)]); break;
    case 1: put(b, "{matchLabels: {app: %s, tier: %s}}", apps[rnd(4)], tiers[rnd(2)]); break;
    case 2:
        put(b, "{matchExpressions: [{key: app, operator: In, values: [%s, %s, %s]}]}", apps[rnd(4)],
            apps[rnd(4)], apps[rnd(4)]);
        break;
    case 3:
        put(b, "{matchExpressions: [{key: app, operator: NotIn, values: [%s]}]}", apps[rnd(4)]);
        break;
    case 4: put(b, "{matchExpressions: [{key: tier, operator: Exists}]}"); break;
    case 5: put(b, "{}"); break;
    case 6:
        put(b,
            "{matchLabels: {tier: %s}, matchExpressions: [{key: app, operator: In, values: [%s]}]}",
            tiers[rnd(2)], apps[rnd(4)]);
        break;
    default: put(b, "{matchLabels: {app: nobody}}"); break;
    }
}

static const char *topo_keys[] = {"zone", "kubernetes.io/hostname", "rack"};

static void term(sbuf *b) {
    put(b, "{topologyKey: %s, labelSelector: ", topo_keys[rnd(3)]);
    selector(b);
    switch (rnd(5)) {
    case 0: put(b, ", namespaces: [ns%u, ns%u]", rnd(3), rnd(3)); break;
    case 1: put(b, ", namespaceSelector: {matchLabels: {team: t%u}}", rnd(2)); break;
    case 2: put(b, ", namespaceSelector: {}"); break;
    default: break;
    }
    put(b, "}");
}

static void preferred(sbuf *b) {
    put(b, "preferredDuringSchedulingIgnoredDuringExecution: [");
    uint32_t n = 1 + rnd(2);
    for (uint32_t i = 0; i < n; i++) {
        put(b, "%s{weight: %u, podAffinityTerm: ", i ? ", " : "", 1 + rnd(100));
        term(b);
        put(b, "}");
    }
    put(b, "]");
}

/* the terms of one podAffinity / podAntiAffinity block */
static void terms(sbuf *b, bool required) {
    if (!required) {
        preferred(b);
        return;
    }
    put(b, "requiredDuringSchedulingIgnoredDuringExecution: [");
    term(b);
    if (rnd(3) == 0) {
        put(b, ", ");
        term(b);
    }
    put(b, "]");
}

/* required (anti-)affinity, or else sometimes preferred terms only */
static void affinity(sbuf *b, bool allow_aff) {
    bool aff = allow_aff && rnd(3) == 0, anti = rnd(2) == 0;
    bool pref_aff = rnd(3) == 0, pref_anti = rnd(3) == 0, required = !pref_aff && !pref_anti;
    if (!required) aff = pref_aff, anti = pref_anti;
    if (!aff && !anti) return;
    put(b, ", affinity: {");
    if (aff) {
        put(b, "podAffinity: {");
        terms(b, required);
        put(b, "}%s", anti ? ", " : "");
    }
    if (anti) {
        put(b, "podAntiAffinity: {");
        terms(b, required);
        put(b, "}");
    }
    put(b, "}");
}

static void spread(sbuf *b) {
    if (rnd(2)) return;
    put(b, ", topologySpreadConstraints: [");
    uint32_t n = 1 + rnd(2);
    for (uint32_t i = 0; i < n; i++) {
        bool hard = rnd(4) != 0;
        put(b, "%s{maxSkew: %u, topologyKey: %s, whenUnsatisfiable: %s, labelSelector: ",
            i ? ", " : "", 1 + rnd(2), topo_keys[rnd(3)],
            hard ? "DoNotSchedule" : "ScheduleAnyway");
        selector(b);
        if (rnd(3) == 0) put(b, ", matchLabelKeys: [tier]");
        if (hard && rnd(4) == 0) put(b, ", minDomains: %u", 2 + rnd(3));
        if (rnd(4) == 0) put(b, ", nodeAffinityPolicy: Ignore");
        if (rnd(4) == 0) put(b, ", nodeTaintsPolicy: Honor");
        put(b, "}");
    }
    put(b, "]");
}

static void labels(sbuf *b) {
    put(b, "labels: {app: %s", apps[rnd(4)]);
    if (rnd(2)) put(b, ", tier: %s", tiers[rnd(2)]);
    put(b, "}");
}

static char *gen_cluster(uint64_t seed, uint32_t *n_pending) {
    rs = seed * 0x9E3779B97F4A7C15ULL + 7;
    sbuf b = {NULL, 0, 0};
    for (int i = 0; i < 3; i++)
        put(&b,
            "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns%d, labels: {team: t%d}}\n",
            i, i % 2);
    uint32_t n_nodes = 6 + rnd(12);
    for (uint32_t i = 0; i < n_nodes; i++) {
        put(&b,
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%u, labels: "
            "{kubernetes.io/hostname: n%u",
            i, i);
        if (rnd(6)) put(&b, ", zone: z%u", rnd(3));
        if (rnd(3)) put(&b, ", rack: r%u", rnd(4));
        put(&b, "}}\nspec: {%s}\nstatus: {allocatable: {cpu: '8', memory: 16Gi, pods: '40'}}\n",
            rnd(6) == 0 ? "taints: [{key: dedicated, value: x, effect: NoSchedule}]" : "");
    }
    /* a daemon pod on every node (note: preemption on a node without pods trips UBSan in
     * preempt/victims.c, memcpy from a NULL pod list; reported, not this test's subject) */
    for (uint32_t i = 0; i < n_nodes; i++)
        put(&b,
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ds%u, namespace: kube-system, "
            "labels: {app: ds}}\n"
            "spec: {nodeName: n%u, priority: 2000000000, containers: [{name: c}]}\n",
            i, i);
    /* Services / ReplicaSets / ReplicationControllers for the default spreading constraints */
    for (int i = 0; i < 3; i++) {
        if (rnd(2))
            put(&b,
                "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc%d, namespace: "
                "ns%u}\nspec: {selector: {app: %s}}\n",
                i, rnd(3), apps[rnd(4)]);
        if (rnd(4) == 0)
            put(&b,
                "---\napiVersion: v1\nkind: Service\nmetadata: {name: headless%d, namespace: "
                "ns%u}\nspec: {}\n",
                i, rnd(3));
        put(&b,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs%d, namespace: "
            "ns%u}\nspec: {selector: ",
            i, rnd(3));
        selector(&b);
        put(&b,
            "}\n---\napiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc%d, "
            "namespace: ns%u}\nspec: {selector: {tier: %s}}\n",
            i, rnd(3), tiers[rnd(2)]);
    }
    uint32_t n_bound = 10 + rnd(50);
    for (uint32_t i = 0; i < n_bound; i++) {
        put(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e%u, namespace: ns%u, ", i,
            rnd(3));
        labels(&b);
        if (rnd(10) == 0) put(&b, ", deletionTimestamp: '2026-01-01T00:00:00Z'");
        put(&b,
            "}\nspec: {nodeName: n%u, containers: [{name: c, resources: {requests: {cpu: 100m}}}]",
            rnd(n_nodes));
        if (rnd(3) == 0) affinity(&b, true);
        put(&b, "}\n");
    }
    *n_pending = 5 + rnd(25);
    for (uint32_t i = 0; i < *n_pending; i++) {
        put(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%u, namespace: ns%u, ", i,
            rnd(3));
        labels(&b);
        switch (rnd(4)) {
        case 0:
            put(&b,
                ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs%u, uid: u, "
                "controller: true}]",
                rnd(3));
            break;
        case 1:
            put(&b,
                ", ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: rc%u, "
                "uid: u, controller: true}]",
                rnd(3));
            break;
        default: break;
        }
        put(&b,
            "}\nspec: {priority: %u, containers: [{name: c, resources: {requests: {cpu: %um}}}]",
            rnd(3) * 100, 100 + rnd(3000));
        if (rnd(2)) affinity(&b, true);
        spread(&b);
        if (rnd(5) == 0) put(&b, ", tolerations: [{key: dedicated, operator: Exists}]");
        if (rnd(6) == 0) put(&b, ", nodeSelector: {rack: r%u}", rnd(4));
        put(&b, "}\n");
    }
    return b.p;
}

static bool same_map(const kp_pairmap *a, const kp_pairmap *b) {
    if (a->live != b->live) return false;
    for (uint32_t i = 0; i < a->cap; i++) {
        uint64_t k;
        int64_t v;
        if (!kp__pairmap_slot(a, i, &k, &v)) continue;
        if (!kp__pairmap_has(b, k) || kp__pairmap_get(b, k) != v) return false;
    }
    return true;
}

static int n_compared, n_scored;

/* PreFilter of every pending pod, indexed vs reference, on the cluster's current state. */
static void compare_prefilters(kp_sched *s) {
    kp_cluster *cl = s->cl;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        if (cl->pods[i].node >= 0) continue;
        kp_node_status pre1, pre2;
        s->no_index = false;
        kp_cycle *a = kp__cycle_new(s, i, &pre1);
        s->no_index = true;
        kp_cycle *r = kp__cycle_new(s, i, &pre2);
        s->no_index = false;
        KT_CHECK(a && r);
        if (!a || !r) {
            kp__cycle_free(a);
            kp__cycle_free(r);
            continue;
        }
        KT_CHECK_INT(pre1.code, pre2.code);
        KT_CHECK_INT(a->ipa, r->ipa);
        KT_CHECK(same_map(&a->aff_counts, &r->aff_counts));
        KT_CHECK(same_map(&a->anti_counts, &r->anti_counts));
        KT_CHECK(same_map(&a->existing_anti, &r->existing_anti));
        KT_CHECK_INT(a->n_spread, r->n_spread);
        for (uint16_t k = 0; k < a->n_spread && k < r->n_spread; k++) {
            KT_CHECK(same_map(&a->spread[k].counts, &r->spread[k].counts));
            for (int j = 0; j < 2; j++) {
                KT_CHECK_INT(a->spread[k].paths[j].val, r->spread[k].paths[j].val);
                KT_CHECK_INT(a->spread[k].paths[j].num, r->spread[k].paths[j].num);
            }
        }
        /* and the Filter verdicts on every node */
        for (uint32_t n = 0; n < cl->n_nodes; n++) {
            kp_node_status s1, s2;
            kp__cycle_filter(a, n, &s1);
            kp__cycle_filter(r, n, &s2);
            KT_CHECK_INT(s1.code, s2.code);
        }
        /* InterPodAffinity and PodTopologySpread scores over every node as the feasible set */
        static const kp_plugin pls[] = {KP_PL_INTERPOD, KP_PL_SPREAD};
        for (int k = 0; k < 2; k++) {
            int64_t *o1 = calloc(cl->n_nodes + 1, sizeof *o1),
                    *o2 = calloc(cl->n_nodes + 1, sizeof *o2);
            uint32_t *all = calloc(cl->n_nodes + 1, sizeof *all);
            for (uint32_t n = 0; n < cl->n_nodes; n++) all[n] = n;
            s->no_index = false;
            bool r1 = kp__score_plugin(s, pls[k], &cl->pods[i], all, cl->n_nodes, o1);
            s->no_index = true;
            bool r2 = kp__score_plugin(s, pls[k], &cl->pods[i], all, cl->n_nodes, o2);
            s->no_index = false;
            KT_CHECK_INT(r1, r2);
            for (uint32_t n = 0; r1 && r2 && n < cl->n_nodes; n++) KT_CHECK_INT(o1[n], o2[n]);
            n_scored += r1;
            free(o1);
            free(o2);
            free(all);
        }
        n_compared++;
        kp__cycle_free(a);
        kp__cycle_free(r);
    }
}

KT_TEST(indexed_prefilter_matches_full_scan) {
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint32_t n_pending;
        char *y = gen_cluster(seed, &n_pending);
        kp_cluster *cl = ts_load(y);
        KT_CHECK(cl != NULL);
        if (!cl) {
            fprintf(stderr, "  seed %llu\n", (unsigned long long)seed);
            free(y);
            continue;
        }
        kp_sched *s = ts_sched(cl, NULL, seed);
        KT_CHECK(s != NULL);
        if (s) {
            int before = kt_failed_checks;
            compare_prefilters(s);
            /* bind about half the pending pods (the scheduler's own choices), then compare again */
            kp_error err;
            uint32_t tried = 0;
            for (uint32_t i = 0; i < cl->n_pods && tried < n_pending / 2; i++) {
                if (cl->pods[i].node >= 0) continue;
                tried++;
                KT_CHECK_INT(kp_sched_schedule_one(s, (long)i, &err), KP_OK);
            }
            compare_prefilters(s);
            if (kt_failed_checks != before)
                fprintf(stderr, "  seed %llu\n", (unsigned long long)seed);
            kp_sched_free(s);
        }
        kp_cluster_free(cl);
        free(y);
    }
    KT_CHECK(n_compared > 500);
    KT_CHECK(n_scored > 300);
}

KT_TEST(indexed_runs_match_full_scan_runs) {
    for (uint64_t seed = 100; seed < 140; seed++) {
        uint32_t n_pending;
        char *y = gen_cluster(seed, &n_pending);
        kp_cluster *c1 = ts_load(y), *c2 = ts_load(y);
        KT_CHECK(c1 && c2);
        kp_sched *s1 = c1 ? ts_sched(c1, NULL, seed) : NULL,
                 *s2 = c2 ? ts_sched(c2, NULL, seed) : NULL;
        if (s1 && s2) {
            s2->no_index = true;
            kp_error err;
            KT_CHECK_INT(kp_sched_run(s1, &err), KP_OK);
            KT_CHECK_INT(kp_sched_run(s2, &err), KP_OK);
            KT_CHECK_INT(s1->n_res, s2->n_res);
            for (uint32_t i = 0; i < s1->n_res && i < s2->n_res; i++) {
                KT_CHECK_INT(s1->res[i].pub.pod, s2->res[i].pub.pod);
                KT_CHECK_INT(s1->res[i].pub.outcome, s2->res[i].pub.outcome);
                KT_CHECK_INT(s1->res[i].pub.node, s2->res[i].pub.node);
                KT_CHECK_INT(s1->res[i].pub.nominated_node, s2->res[i].pub.nominated_node);
                KT_CHECK_INT(s1->res[i].pub.n_victims, s2->res[i].pub.n_victims);
                KT_CHECK_STR(s1->res[i].message ? s1->res[i].message : "",
                             s2->res[i].message ? s2->res[i].message : "");
            }
        }
        kp_sched_free(s1);
        kp_sched_free(s2);
        kp_cluster_free(c1);
        kp_cluster_free(c2);
        free(y);
    }
}

/* Pods created after the index was built join its tail (podindex.h): runs over them decide as
 * the full scan does. */
KT_TEST(indexed_tail_matches_full_scan_runs) {
    uint32_t tails = 0;
    for (uint64_t seed = 200; seed < 230; seed++) {
        uint32_t n_pending;
        char *y = gen_cluster(seed, &n_pending);
        kp_cluster *c1 = ts_load(y), *c2 = ts_load(y);
        KT_CHECK(c1 && c2);
        kp_sched *s1 = c1 ? ts_sched(c1, NULL, seed) : NULL,
                 *s2 = c2 ? ts_sched(c2, NULL, seed) : NULL;
        if (s1 && s2) {
            s2->no_index = true;
            KT_CHECK_INT(kp__podindex_ensure(&s1->ix, c1), KP_OK);
            kp_error err;
            uint32_t made = 0;
            for (uint32_t i = 0; i < c1->n_pods && made < 20; i++) {
                if (c1->pods[i].node >= 0 || c1->pods[i].node_name) continue;
                char name[32];
                snprintf(name, sizeof name, "tail-%u", made++);
                kp_index a, b;
                KT_CHECK_INT(kp_cluster_create_pod(c1, -1, (kp_index)i, name, 0, &a, &err), KP_OK);
                KT_CHECK_INT(kp_cluster_create_pod(c2, -1, (kp_index)i, name, 0, &b, &err), KP_OK);
                KT_CHECK_INT(a, b);
            }
            KT_CHECK_INT(kp_sched_run(s1, &err), KP_OK);
            KT_CHECK_INT(kp_sched_run(s2, &err), KP_OK);
            tails += s1->ix.n_built < s1->ix.n_pods;
            KT_CHECK_INT(s1->n_res, s2->n_res);
            for (uint32_t i = 0; i < s1->n_res && i < s2->n_res; i++) {
                KT_CHECK_INT(s1->res[i].pub.pod, s2->res[i].pub.pod);
                KT_CHECK_INT(s1->res[i].pub.outcome, s2->res[i].pub.outcome);
                KT_CHECK_INT(s1->res[i].pub.node, s2->res[i].pub.node);
                KT_CHECK_INT(s1->res[i].pub.nominated_node, s2->res[i].pub.nominated_node);
                KT_CHECK_INT(s1->res[i].pub.n_victims, s2->res[i].pub.n_victims);
                KT_CHECK_STR(s1->res[i].message ? s1->res[i].message : "",
                             s2->res[i].message ? s2->res[i].message : "");
            }
        }
        kp_sched_free(s1);
        kp_sched_free(s2);
        kp_cluster_free(c1);
        kp_cluster_free(c2);
        free(y);
    }
    KT_CHECK(tails > 10);
}

KT_MAIN(KT_CASE(indexed_prefilter_matches_full_scan), KT_CASE(indexed_runs_match_full_scan_runs),
        KT_CASE(indexed_tail_matches_full_scan_runs))
