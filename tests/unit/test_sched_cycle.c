/* Scheduling cycle: queue order, node_tree zone order, scores (least_allocated_test.go,
 * balanced_allocation_test.go, taint_toleration_test.go), selectHost determinism, nominated node
 * first, nextStartNodeIndex, --until-settled, configuration. */
#include "core/cluster.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "test_sched_util.h"

#define NODE(name, cpu, mem, labels)                                                      \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {" labels "}}\n" \
    "status: {allocatable: {cpu: " cpu ", memory: \"" mem "\", pods: \"32\"}}\n"
#define POD(name, spec)                                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default}\nspec: " spec \
    "\n"
#define CT(cpu, mem) "{name: c, resources: {requests: {cpu: " cpu ", memory: \"" mem "\"}}}"
#define CFG_HDR "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

static uint32_t nodes_of(kp_sched *s, const char *const *names, uint32_t n, uint32_t *out) {
    for (uint32_t i = 0; i < n; i++) out[i] = (uint32_t)kp_cluster_find_node(s->cl, names[i]);
    return n;
}

KT_TEST(queue_order_priority_then_creation) {
    const char *y = NODE(
        "n1", "10", "10Gi",
        "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: late, namespace: default, "
            "creationTimestamp: \"2024-01-02T00:00:00Z\"}\nspec: {priority: 5, containers: [{name: "
            "c}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: early, namespace: default, "
            "creationTimestamp: \"2024-01-01T00:00:00Z\"}\nspec: {priority: 5, containers: [{name: "
            "c}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: top, namespace: default, "
            "creationTimestamp: \"2024-01-03T00:00:00Z\"}\nspec: {priority: 50, containers: "
            "[{name: c}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: default}\nspec: "
            "{schedulerName: my-sched, priority: 99, containers: [{name: c}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: done, namespace: default}\nspec: "
            "{priority: 99, containers: [{name: c}]}\nstatus: {phase: Succeeded}\n";
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_result_count(s), 3);
    const char *want[] = {"top", "early", "late"};
    for (size_t i = 0; i < 3; i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        KT_CHECK(r != NULL);
        if (!r) continue;
        KT_CHECK_STR(kp_cluster_pod_namespace(cl, r->pod), "default");
        KT_CHECK_STR(kp_cluster_pod_name(cl, r->pod), want[i]);
        if (i == 2) KT_CHECK_INT(r->outcome, KP_OUTCOME_BOUND);
    }
    KT_CHECK(kp_sched_result(s, 3) == NULL);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(node_tree_zone_round_robin) {
    /* node_tree_test.go: zones in first-seen order, one node per zone per round */
    const char *y = NODE("a1", "1", "1Gi", "topology.kubernetes.io/zone: a")
        NODE("a2", "1", "1Gi", "topology.kubernetes.io/zone: a")
            NODE("b1", "1", "1Gi", "topology.kubernetes.io/zone: b")
                NODE("a3", "1", "1Gi", "topology.kubernetes.io/zone: a")
                    NODE("none", "1", "1Gi", "")
                        NODE("b2", "1", "1Gi", "topology.kubernetes.io/zone: b");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    const char *want[] = {"a1", "b1", "none", "a2", "b2", "a3"};
    KT_CHECK_INT(s->n_order, 6);
    for (uint32_t i = 0; i < 6 && i < s->n_order; i++)
        KT_CHECK_STR(kp_cluster_node_name(cl, s->order[i]), want[i]);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(least_allocated_and_balanced_scores) {
    /* "nothing scheduled, resources requested, differently sized nodes" */
    const char *y = NODE("n1", "4000m", "10000", "") NODE("n2", "6000m", "10000", "") POD(
        "p", "{containers: [" CT(
                 "1000m",
                 "2000") ", {name: d, resources: {requests: {cpu: 2000m, memory: \"3000\"}}}]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    const char *names[] = {"n1", "n2"};
    uint32_t nodes[2];
    int64_t out[2];
    nodes_of(s, names, 2, nodes);
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
    KT_CHECK(kp__score_plugin(s, KP_PL_FIT, p, nodes, 2, out));
    KT_CHECK_INT(out[0], 37);
    KT_CHECK_INT(out[1], 50);
    /* v1.36+ (PR #135573): 50 + (50 + with - without) / 2. n1: with cpu 3/4, memory 1/2 ->
     * 87, without 0, 0 -> 100: 50 + 37 / 2 = 68; n2: 1/2, 1/2 -> 100, 100: 75 */
    KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, p, nodes, 2, out));
    KT_CHECK_INT(out[0], 68);
    KT_CHECK_INT(out[1], 75);
    kp_sched_free(s);
    /* --compat 1.35: the balance with the pod only, (1 - std) * 100 */
    s = ts_sched_compat(cl, "1.35");
    KT_CHECK(s != NULL);
    if (s) {
        KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, p, nodes, 2, out));
        KT_CHECK_INT(out[0], 87);
        KT_CHECK_INT(out[1], 100);
        kp_sched_free(s);
    }
    kp_cluster_free(cl);
}

KT_TEST(balanced_allocation_scores_the_change_in_balance) {
    /* upstream's balanced_allocation_test.go (PR #135573) "resources requested, pods scheduled
     * with resources, nodes to reach min/max score": both nodes 3000m / 5000, a cpu-only pod
     * (3000m) on n1, the incoming pod asks for memory 5000. n1 goes from imbalanced (cpu 100 %,
     * memory 0 %: 50) to balanced (100): 100; n2 from balanced (100) to imbalanced (50): 50. */
    const char *y = NODE("n1", "3000m", "5000", "") NODE("n2", "3000m", "5000", "")
        POD("on1", "{nodeName: n1, containers: [" CT("3000m", "0") "]}")
            POD("p", "{containers: [{name: c, resources: {requests: {memory: \"5000\"}}}]}")
                POD("q", "{containers: [" CT("1500m", "2500") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    const char *names[] = {"n1", "n2"};
    uint32_t nodes[2];
    int64_t out[2];
    nodes_of(s, names, 2, nodes);
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
    KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, p, nodes, 2, out));
    KT_CHECK_INT(out[0], 100);
    KT_CHECK_INT(out[1], 50);
    /* a pod that keeps each node's balance: no change scores 75 on both */
    const kp_pod *q = &cl->pods[kp_cluster_find_pod(cl, "default/q")];
    KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, q, nodes, 2, out));
    KT_CHECK_INT(out[0], 50 + (50 + 75 - 50) / 2); /* n1: 1, 1/2 after; 1, 0 before */
    KT_CHECK_INT(out[1], 75);
    kp_sched_free(s);
    /* --compat 1.35: the balance after placement, (1 - std) * 100 */
    s = ts_sched_compat(cl, "1.35");
    KT_CHECK(s != NULL);
    if (s) {
        KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, p, nodes, 2, out));
        KT_CHECK_INT(out[0], 100);
        KT_CHECK_INT(out[1], 50);
        KT_CHECK(kp__score_plugin(s, KP_PL_BALANCED, q, nodes, 2, out));
        KT_CHECK_INT(out[0], 75);
        KT_CHECK_INT(out[1], 100);
        kp_sched_free(s);
    }
    kp_cluster_free(cl);
}

KT_TEST(image_locality_counts_image_volumes) {
    /* PR #130231 (v1.36): ImageLocality scores image volumes' images; PR #138951 (v1.37): they
     * count in the maximum threshold too. n1 has the volume's image (500 MB, on 1 of 2 nodes:
     * 250 MB scaled); the container's image is on no node. */
    const char *y =
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: "
        "{cpu: 4, memory: 4Gi, pods: 110}\n  images: [{names: [\"registry.example.com/model:v1\"],"
        " sizeBytes: 524288000}]\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: 4, "
        "memory: 4Gi, pods: 110}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  "
        "containers: [{name: c, image: busybox}]\n  volumes: [{name: model, image: {reference: "
        "registry.example.com/model:v1}}, {name: tmp, emptyDir: {}}]\n";
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
    KT_CHECK_INT(p->n_image_volumes, 1);
    KT_CHECK_INT(p->n_volumes, 1); /* the emptyDir, for eviction; the image volume is apart */
    const char *names[] = {"n1", "n2"};
    const char *compat[] = {NULL, "1.36", "1.35"};
    /* 100 * (250 - 23) / (1000 * images - 23) MB: 2 images (container + volume) in 1.37, the
     * container only in 1.36; 1.35 scores no volume */
    const int64_t want_n1[] = {100 * 227 / 1977, 100 * 227 / 977, 0};
    for (int k = 0; k < 3; k++) {
        kp_sched *s = compat[k] ? ts_sched_compat(cl, compat[k]) : ts_sched(cl, NULL, 0);
        KT_CHECK(s != NULL);
        if (!s) continue;
        uint32_t nodes[2];
        int64_t out[2] = {-1, -1};
        nodes_of(s, names, 2, nodes);
        KT_CHECK(kp__score_plugin(s, KP_PL_IMAGE_LOCALITY, p, nodes, 2, out));
        KT_CHECK_INT(out[0], want_n1[k]);
        KT_CHECK_INT(out[1], 0);
        kp_sched_free(s);
    }
    kp_cluster_free(cl);
}

KT_TEST(most_allocated_and_rtcr_from_config) {
    const char *y = NODE("n1", "4000m", "10000", "") NODE("n2", "6000m", "10000", "")
        POD("p", "{containers: [" CT("3000m", "5000") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl,
                           CFG_HDR "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    "
                                   "args: {scoringStrategy: {type: MostAllocated}}\n",
                           0);
    const char *names[] = {"n1", "n2"};
    uint32_t nodes[2];
    int64_t out[2];
    nodes_of(s, names, 2, nodes);
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
    KT_CHECK(kp__score_plugin(s, KP_PL_FIT, p, nodes, 2, out));
    KT_CHECK_INT(out[0], (75 + 50) / 2); /* mostRequestedScore: 3000*100/4000, 5000*100/10000 */
    KT_CHECK_INT(out[1], (50 + 50) / 2);
    kp_sched_free(s);
    s = ts_sched(cl,
                 CFG_HDR
                 "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      "
                 "scoringStrategy:\n        type: RequestedToCapacityRatio\n"
                 "        resources: [{name: cpu, weight: 1}]\n        requestedToCapacityRatio: "
                 "{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}\n",
                 0);
    KT_CHECK(s != NULL);
    if (s) {
        KT_CHECK(kp__score_plugin(s, KP_PL_FIT, p, nodes, 2, out));
        KT_CHECK_INT(out[0], 75);
        KT_CHECK_INT(out[1], 50);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(taint_toleration_score_reversed) {
    /* taint_toleration_test.go: more intolerable PreferNoSchedule taints -> lower score */
    const char *y =
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n0}\nstatus: {allocatable: {cpu: 1, "
        "memory: 1Gi, pods: \"32\"}}\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: a, value: x, "
        "effect: PreferNoSchedule}]}\nstatus: {allocatable: {cpu: 1, memory: 1Gi, pods: \"32\"}}\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nspec: {taints: [{key: a, value: x, "
        "effect: PreferNoSchedule}, {key: b, value: y, effect: PreferNoSchedule}]}\nstatus: "
        "{allocatable: {cpu: 1, memory: 1Gi, pods: \"32\"}}\n" POD("p",
                                                                   "{containers: [{name: c}]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    const char *names[] = {"n0", "n1", "n2"};
    uint32_t nodes[3];
    int64_t out[3];
    nodes_of(s, names, 3, nodes);
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "default/p")];
    KT_CHECK(kp__score_plugin(s, KP_PL_TAINT_TOLERATION, p, nodes, 3, out));
    KT_CHECK_INT(out[0], 100);
    KT_CHECK_INT(out[1], 50);
    KT_CHECK_INT(out[2], 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(preferred_node_affinity_picks_heaviest) {
    const char *y = NODE("n1", "1", "1Gi", "zone: a") NODE("n2", "1", "1Gi", "zone: b")
        POD("p", "{containers: [{name: c}], affinity: {nodeAffinity: "
                 "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: "
                 "{matchExpressions: [{key: zone, operator: In, values: [b]}]}}]}}}");
    kp_cluster *cl = ts_load(y);
    for (uint64_t seed = 0; seed < 4; seed++) {
        kp_cluster *c2 = ts_load(y);
        kp_sched *s = ts_sched(c2, NULL, seed);
        kp_error err;
        KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
        KT_CHECK_STR(ts_node_of(s, "p"), "n2");
        kp_sched_free(s);
        kp_cluster_free(c2);
    }
    kp_cluster_free(cl);
}

KT_TEST(select_host_ties_follow_seed) {
    /* identical nodes: the winner depends only on the seed; same seed -> same answer */
    const char *y = NODE("n1", "1", "1Gi", "") NODE("n2", "1", "1Gi", "") NODE("n3", "1", "1Gi", "")
        NODE("n4", "1", "1Gi", "") POD("p", "{containers: [{name: c}]}");
    char first[8][16];
    bool differs = false;
    for (uint64_t seed = 0; seed < 8; seed++) {
        for (int rep = 0; rep < 2; rep++) {
            kp_cluster *cl = ts_load(y);
            kp_sched *s = ts_sched(cl, NULL, seed);
            kp_error err;
            kp_sched_run(s, &err);
            if (rep == 0) snprintf(first[seed], sizeof first[seed], "%s", ts_node_of(s, "p"));
            else KT_CHECK_STR(ts_node_of(s, "p"), first[seed]);
            kp_sched_free(s);
            kp_cluster_free(cl);
        }
        if (seed && strcmp(first[seed], first[0]) != 0) differs = true;
    }
    KT_CHECK(differs);
}

KT_TEST(bindings_visible_to_later_pods) {
    const char *y =
        NODE("n1", "1", "1Gi", "") POD("a", "{priority: 10, containers: [" CT("600m", "1") "]}")
            POD("b", "{priority: 5, containers: [" CT("600m", "1") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "a"), "n1");
    const kp_sched_pod_result *r = ts_result(s, "b");
    KT_CHECK(r && r->outcome == KP_OUTCOME_UNSCHEDULABLE);
    if (r)
        KT_CHECK_STR(r->message,
                     "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                     "preemption: 0/1 nodes are available: 1 No preemption victims found for "
                     "incoming pod.");
    KT_CHECK_STR(kp__s(cl, cl->pods[kp_cluster_find_pod(cl, "default/a")].node_name), "n1");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(nominated_node_is_tried_first) {
    /* the pod carries status.nominatedNodeName=n2; n1 would score higher (emptier) */
    const char *y = NODE("n1", "4", "4Gi", "")
        NODE("n2", "1", "1Gi", "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
                                   "default}\nspec: {containers: [" CT(
                                       "100m",
                                       "1") "]}\nstatus: {nominatedNodeName: "
                                            "n2}\n" POD("q", "{containers: [" CT("100m", "1") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "p"), "n2");
    KT_CHECK_STR(ts_node_of(s, "q"), "n1");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(next_start_index_advances_by_processed_nodes) {
    /* 3 nodes, all feasible: numNodesToFind = 3, processed 3 -> index back to 0; with one
     * unschedulable node and a pod that fails everywhere, processed = 3 as well */
    const char *y = NODE("n1", "1", "1Gi", "") NODE("n2", "1", "1Gi", "") NODE("n3", "1", "1Gi", "")
        POD("big", "{priority: 1, containers: [" CT("2", "1") "]}")
            POD("p", "{containers: [{name: c}]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_schedule_one(s, kp_cluster_find_pod(cl, "default/big"), &err), KP_OK);
    KT_CHECK_INT(s->next_start, 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(until_settled_binds_preemptor) {
    const char *y = NODE("n1", "1", "1Gi", "")
        POD("low", "{nodeName: n1, priority: 1, containers: [" CT("800m", "1") "]}")
            POD("high", "{priority: 100, containers: [" CT("500m", "1") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "high");
    KT_CHECK(r && r->outcome == KP_OUTCOME_NOMINATED && r->n_victims == 1);
    kp_sched_free(s);
    kp_cluster_free(cl);

    cl = ts_load(y);
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.until_settled = true;
    KT_CHECK_INT(kp_sched_new(cl, NULL, &o, &s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    r = ts_result(s, "high");
    KT_CHECK(r && r->outcome == KP_OUTCOME_BOUND && r->n_victims == 1);
    KT_CHECK_STR(ts_node_of(s, "high"), "n1");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- configuration ---- */

KT_TEST(config_default_weights_and_lists) {
    kp_sched_config c;
    kp__sched_config_defaults(&c);
    KT_CHECK_INT(c.score_weight[KP_PL_TAINT_TOLERATION], 3);
    KT_CHECK_INT(c.score_weight[KP_PL_NODE_AFFINITY], 2);
    KT_CHECK_INT(c.score_weight[KP_PL_FIT], 1);
    KT_CHECK_INT(c.score_weight[KP_PL_SPREAD], 2);
    KT_CHECK_INT(c.score_weight[KP_PL_INTERPOD], 2);
    KT_CHECK_INT(c.score_weight[KP_PL_BALANCED], 1);
    KT_CHECK_INT(c.score_weight[KP_PL_IMAGE_LOCALITY], 1);
    KT_CHECK_INT(c.filter[0], KP_PL_NODE_UNSCHEDULABLE);
    KT_CHECK_INT(c.filter[5], KP_PL_FIT);
    KT_CHECK(c.postfilter_preemption);
    KT_CHECK_INT(c.min_candidate_pct, 10);
    KT_CHECK_INT(c.min_candidate_abs, 100);
}

KT_TEST(config_disable_star_and_weights) {
    kp_sched_config *c = NULL;
    kp_error err;
    const char *y = CFG_HDR
        "percentageOfNodesToScore: 30\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n"
        "    score:\n      disabled: [{name: \"*\"}]\n      enabled: [{name: NodeResourcesFit, "
        "weight: 7}]\n"
        "    postFilter:\n      disabled: [{name: DefaultPreemption}]\n"
        "  pluginConfig:\n  - name: DefaultPreemption\n    args: {minCandidateNodesPercentage: 20, "
        "minCandidateNodesAbsolute: 5}\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y, strlen(y), NULL, &c, &err), KP_OK);
    if (c) {
        KT_CHECK_INT(c->n_score, 1);
        KT_CHECK_INT(c->score[0], KP_PL_FIT);
        KT_CHECK_INT(c->score_weight[KP_PL_FIT], 7);
        KT_CHECK_INT(c->pct_nodes_to_score, 30);
        KT_CHECK(!c->postfilter_preemption);
        KT_CHECK_INT(c->min_candidate_pct, 20);
        KT_CHECK_INT(c->min_candidate_abs, 5);
    }
    kp_sched_config_free(c);
}

KT_TEST(config_errors_name_file_and_field) {
    kp_sched_config *c = NULL;
    kp_error err;
    const char *y1 =
        CFG_HDR "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NoSuchPlugin}]\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y1, strlen(y1), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_STR(err.source, "s.yaml");
    KT_CHECK_CONTAINS(err.msg, "profiles[0].plugins.filter.enabled[0].name");
    KT_CHECK_CONTAINS(err.msg, "NoSuchPlugin");
    const char *y2 = CFG_HDR
        "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: {}}\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y2, strlen(y2), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "pluginConfig[0].args.addedAffinity");
    const char *y3 = CFG_HDR "extenders: []\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y3, strlen(y3), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "extenders");
    const char *y4 =
        CFG_HDR "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeName}]\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y4, strlen(y4), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "does not extend");
    const char *y5 =
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y5, strlen(y5), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "apiVersion");
    KT_CHECK(c == NULL);
}

KT_TEST(config_selects_profile_by_scheduler_name) {
    kp_sched_config *c = NULL;
    kp_error err;
    const char *y = CFG_HDR "profiles:\n- schedulerName: default-scheduler\n- schedulerName: "
                            "batch\n  percentageOfNodesToScore: 70\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y, strlen(y), "batch", &c, &err), KP_OK);
    if (c) {
        KT_CHECK_STR(c->scheduler_name, "batch");
        KT_CHECK_INT(c->pct_nodes_to_score, 70);
    }
    kp_sched_config_free(c);
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y, strlen(y), "nope", &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "no profile has schedulerName \"nope\"");
}

KT_MAIN(KT_CASE(queue_order_priority_then_creation), KT_CASE(node_tree_zone_round_robin),
        KT_CASE(least_allocated_and_balanced_scores),
        KT_CASE(balanced_allocation_scores_the_change_in_balance),
        KT_CASE(image_locality_counts_image_volumes), KT_CASE(most_allocated_and_rtcr_from_config),
        KT_CASE(taint_toleration_score_reversed), KT_CASE(preferred_node_affinity_picks_heaviest),
        KT_CASE(select_host_ties_follow_seed), KT_CASE(bindings_visible_to_later_pods),
        KT_CASE(nominated_node_is_tried_first),
        KT_CASE(next_start_index_advances_by_processed_nodes),
        KT_CASE(until_settled_binds_preemptor), KT_CASE(config_default_weights_and_lists),
        KT_CASE(config_disable_star_and_weights), KT_CASE(config_errors_name_file_and_field),
        KT_CASE(config_selects_profile_by_scheduler_name))
