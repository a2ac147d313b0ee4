/* Filter plugins: cases ported from upstream's fit_test.go (TestEnoughRequests),
 * node_unschedulable_test.go, taint_toleration_test.go, node_affinity_test.go (incl. PreFilter
 * matchFields), node_ports_test.go, interpodaffinity filtering_test.go and podtopologyspread
 * filtering_test.go, plus the FitError text and numFeasibleNodesToFind. */
#include "core/cluster.h"
#include "core/node.h"
#include "test_sched_util.h"

/* node with cpu (millis) / memory (bytes) / pods allocatable */
#define NODE(name, cpu, mem, pods, labels, extra)                                               \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {" labels "}}\n" extra \
    "status: {allocatable: {cpu: " cpu ", memory: \"" mem "\", pods: \"" pods "\"}}\n"
#define POD(name, spec)                                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default}\nspec: " spec \
    "\n"
#define CT(cpu, mem) "{name: c, resources: {requests: {cpu: " cpu ", memory: \"" mem "\"}}}"

/* ---- NodeResourcesFit (TestEnoughRequests) ---- */

KT_TEST(fit_no_resources_fits) {
    kp_cluster *cl =
        ts_load(NODE("n1", "10m", "20", "32", "", "") POD("p", "{containers: [{name: c}]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(fit_too_many_resources_fails_with_all_reasons) {
    /* upstream: node 10m/20, used 10m/20, pod 1m/1 -> "Insufficient cpu", "Insufficient memory" */
    kp_cluster *cl = ts_load(NODE("n1", "10m", "20", "32", "", "")
                                 POD("old", "{nodeName: n1, containers: [" CT("10m", "20") "]}")
                                     POD("p", "{containers: [" CT("1m", "1") "]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_INT(st.n_reasons, 2);
    KT_CHECK_STR(st.reasons[0], "Insufficient cpu");
    KT_CHECK_STR(st.reasons[1], "Insufficient memory");
    KT_CHECK_STR(st.plugin, "NodeResourcesFit");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(fit_exactly_full_fits_and_over_allocatable_is_unresolvable) {
    kp_cluster *cl = ts_load(NODE("n1", "10m", "20", "32", "", "")
                                 POD("old", "{nodeName: n1, containers: [" CT("5m", "5") "]}")
                                     POD("exact", "{containers: [" CT("5m", "15") "]}")
                                         POD("huge", "{containers: [" CT("11m", "1") "]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_INT(ts_filter(s, "exact", "n1").code, KP_CODE_SUCCESS);
    kp_node_status st = ts_filter(s, "huge", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "Insufficient cpu");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(fit_too_many_pods_even_without_requests) {
    /* spec §6 H.49: a zero-request pod still fails "Too many pods" */
    kp_cluster *cl = ts_load(NODE("n1", "10m", "20", "1", "", "") POD(
        "old", "{nodeName: n1, containers: [{name: c}]}") POD("p", "{containers: [{name: c}]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.reasons[0], "Too many pods");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(fit_extended_resource_missing_and_ignored) {
    const char *y = NODE("n1", "10m", "20", "32", "", "")
        POD("p", "{containers: [{name: c, resources: {requests: {example.com/foo: 1}, limits: "
                 "{example.com/foo: 1}}}]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "Insufficient example.com/foo");
    kp_sched_free(s);
    s = ts_sched(
        cl,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- pluginConfig:\n  - name: NodeResourcesFit\n    args: {ignoredResourceGroups: "
        "[example.com]}\n",
        0);
    KT_CHECK(s != NULL);
    if (s) KT_CHECK_INT(ts_filter(s, "p", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- NodeUnschedulable / TaintToleration ---- */

KT_TEST(unschedulable_node_and_toleration) {
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "",
             "spec: {unschedulable: true}\n") POD("p", "{containers: [{name: c}]}")
            POD("t", "{containers: [{name: c}], tolerations: [{key: "
                     "node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) were unschedulable");
    KT_CHECK_INT(ts_filter(s, "t", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(taints_first_untolerated_is_reported) {
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "",
             "spec: {taints: [{key: soft, value: x, effect: PreferNoSchedule}, {key: dedicated, "
             "value: gpu, effect: NoSchedule}, {key: other, effect: NoExecute}]}\n")
            POD("p", "{containers: [{name: c}]}")
                POD("eq", "{containers: [{name: c}], tolerations: [{key: dedicated, operator: "
                          "Equal, value: gpu, effect: NoSchedule}]}")
                    POD("all", "{containers: [{name: c}], tolerations: [{operator: Exists}]}"));
    /* newest line (PR #134740, v1.35): the reason names no taint */
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_INT(st.n_reasons, 1);
    KT_CHECK_STR(st.reasons[0], "node(s) had untolerated taint(s)");
    st = ts_filter(s, "eq", "n1");
    KT_CHECK_STR(st.reasons[0], "node(s) had untolerated taint(s)");
    KT_CHECK_INT(ts_filter(s, "all", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    /* --compat 1.34: the first untolerated taint is named */
    s = ts_sched_compat(cl, "1.34");
    KT_CHECK(s != NULL);
    if (s) {
        st = ts_filter(s, "p", "n1");
        KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
        KT_CHECK_STR(st.reasons[0], "node(s) had untolerated taint {dedicated: gpu}");
        st = ts_filter(s, "eq", "n1");
        KT_CHECK_STR(st.reasons[0], "node(s) had untolerated taint {other: }");
        KT_CHECK_INT(ts_filter(s, "all", "n1").code, KP_CODE_SUCCESS);
        kp_sched_free(s);
    }
    kp_cluster_free(cl);
}

KT_TEST(taint_named_in_explain_only) {
    /* the FitError says "node(s) had untolerated taint(s)"; --explain names the taint */
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "",
             "spec: {taints: [{key: soft, value: x, effect: PreferNoSchedule}, {key: dedicated, "
             "value: gpu, effect: NoSchedule}]}\n")
            NODE("n2", "1", "1Gi", "32", "", "spec: {taints: [{key: other, effect: NoExecute}]}\n")
                POD("p", "{containers: [{name: c}]}"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_explain(s, kp_cluster_find_pod(cl, "default/p"), &err), KP_OK);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "p");
    KT_CHECK(r != NULL);
    if (r)
        KT_CHECK_STR(r->message, "0/2 nodes are available: 2 node(s) had untolerated taint(s). "
                                 "no new claims to deallocate, preemption: 0/2 nodes are "
                                 "available: 2 Preemption is not helpful for scheduling.");
    const char *want[] = {"node(s) had untolerated taint(s) (dedicated=gpu:NoSchedule)",
                          "node(s) had untolerated taint(s) (other:NoExecute)"};
    for (kp_index n = 0; n < 2; n++) {
        kp_sched_explain_node en;
        KT_CHECK_INT(kp_sched_explain_node_get(s, n, &en), KP_OK);
        KT_CHECK_STR(kp_sched_explain_node_reason(s, n, 0), "node(s) had untolerated taint(s)");
        bool found = false;
        for (size_t i = 0; i < en.n_filters; i++) {
            kp_sched_explain_filter f;
            KT_CHECK_INT(kp_sched_explain_filter_get(s, n, i, &f), KP_OK);
            if (strcmp(f.plugin, "TaintToleration") != 0) continue;
            found = true;
            KT_CHECK_STR(f.reason, want[n]);
        }
        KT_CHECK(found);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- NodeAffinity ---- */

KT_TEST(node_selector_and_required_affinity) {
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "zone: a, gen: \"5\"", "") NODE("n2", "1", "1Gi", "32",
                                                                     "zone: b", "")
            POD("sel", "{containers: [{name: c}], nodeSelector: {zone: a}}")
                POD("gt", "{containers: [{name: c}], affinity: {nodeAffinity: "
                          "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                          "[{matchExpressions: [{key: gen, operator: Gt, values: [\"4\"]}]}]}}}}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_INT(ts_filter(s, "sel", "n1").code, KP_CODE_SUCCESS);
    kp_node_status st = ts_filter(s, "sel", "n2");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) didn't match Pod's node affinity/selector");
    KT_CHECK_INT(ts_filter(s, "gt", "n1").code, KP_CODE_SUCCESS);
    KT_CHECK_INT(ts_filter(s, "gt", "n2").code, KP_CODE_UNRESOLVABLE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(node_affinity_prefilter_match_fields) {
    /* TestNodeAffinityPreFilter: metadata.name In [...] narrows the node set; disjoint terms
     * within a term conflict */
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "", "") NODE("n2", "1", "1Gi", "32", "", "") POD(
            "pin", "{containers: [{name: c}], affinity: {nodeAffinity: "
                   "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                   "[{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}}")
            POD("conflict", "{containers: [{name: c}], affinity: {nodeAffinity: "
                            "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                            "[{matchFields: [{key: metadata.name, operator: In, values: [n1]}, "
                            "{key: metadata.name, operator: In, values: [n2]}]}]}}}}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "pin"), "n2");
    const kp_sched_pod_result *r = ts_result(s, "conflict");
    KT_CHECK(r && r->outcome == KP_OUTCOME_UNSCHEDULABLE);
    if (r)
        KT_CHECK_STR(r->message,
                     "0/2 nodes are available: pod affinity terms conflict. no new claims to "
                     "deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
                     "helpful for scheduling.");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- NodePorts ---- */

KT_TEST(node_ports_conflicts) {
    /* TestNodePorts: same port and protocol conflicts; 0.0.0.0 conflicts with any IP; other
     * protocol does not */
    kp_cluster *cl = ts_load(
        NODE("n1", "1", "1Gi", "32", "", "") POD(
            "old", "{nodeName: n1, containers: [{name: c, ports: [{containerPort: 80, hostPort: "
                   "8080}, {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 127.0.0.1}]}]}")
            POD("same", "{containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080}]}]}")
                POD("udp", "{containers: [{name: c, ports: [{containerPort: 80, hostPort: 8080, "
                           "protocol: UDP}]}]}")
                    POD("anyip", "{containers: [{name: c, ports: [{containerPort: 53, hostPort: "
                                 "53, protocol: UDP}]}]}")
                        POD("otherip", "{containers: [{name: c, ports: [{containerPort: 53, "
                                       "hostPort: 53, protocol: UDP, hostIP: 127.0.0.2}]}]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "same", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) didn't have free ports for the requested pod ports");
    KT_CHECK_INT(ts_filter(s, "udp", "n1").code, KP_CODE_SUCCESS);
    KT_CHECK_INT(ts_filter(s, "anyip", "n1").code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_INT(ts_filter(s, "otherip", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- InterPodAffinity ---- */

#define ANTI(key)                                                                   \
    "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: " \
    "[{labelSelector: {matchLabels: {app: web}}, topologyKey: " key "}]}}"
#define AFF(key)                                                                                 \
    "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: " \
    "{matchLabels: {app: db}}, topologyKey: " key "}]}}"

KT_TEST(interpod_anti_affinity_incoming_and_existing) {
    const char *y = NODE("n1", "1", "1Gi", "32", "zone: a, kubernetes.io/hostname: n1", "")
        NODE("n2", "1", "1Gi", "32", "zone: a, kubernetes.io/hostname: n2", "")
            NODE("n3", "1", "1Gi", "32", "zone: b, kubernetes.io/hostname: n3",
                 "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web1, namespace: "
                     "default, labels: {app: web}}\nspec: {nodeName: n1, containers: [{name: "
                     "c}], " ANTI("zone") "}\n"
                                          "---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
                                          "web2, namespace: default, labels: {app: "
                                          "web}}\nspec: {containers: [{name: c}], " ANTI(
                                              "kubernetes.io/hostname") "}\n"
                                                                        "---\napiVersion: "
                                                                        "v1\nkind: "
                                                                        "Pod\nmetadata: {name: "
                                                                        "plainweb, namespace: "
                                                                        "default, labels: "
                                                                        "{app: web}}\nspec: "
                                                                        "{containers: [{name: "
                                                                        "c}]}\n";
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    /* web2's own anti-affinity (hostname) rejects n1 only; but web1's anti-affinity on zone
     * rejects all of zone a for any app=web pod */
    kp_node_status st = ts_filter(s, "web2", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) didn't match pod anti-affinity rules");
    st = ts_filter(s, "web2", "n2");
    KT_CHECK_STR(st.reasons[0], "node(s) didn't satisfy existing pods anti-affinity rules");
    KT_CHECK_INT(ts_filter(s, "web2", "n3").code, KP_CODE_SUCCESS);
    st = ts_filter(s, "plainweb", "n2");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_INT(ts_filter(s, "plainweb", "n3").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(interpod_affinity_first_pod_of_series) {
    /* satisfyPodAffinity: no matching pod anywhere, but the pod matches its own term */
    const char *y = NODE("n1", "1", "1Gi", "32", "zone: a", "")
        NODE("n2", "1", "1Gi", "32", "",
             "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: db1, namespace: "
                 "default, labels: {app: db}}\nspec: {containers: [{name: "
                 "c}], " AFF("zone") "}\n"
                                     "---\napiVersion: v1\nkind: Pod\nmetadata: "
                                     "{name: client, namespace: default}\nspec: "
                                     "{containers: [{name: c}], " AFF("zone") "}\n";
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_INT(ts_filter(s, "db1", "n1").code, KP_CODE_SUCCESS);
    kp_node_status st = ts_filter(s, "db1", "n2"); /* topology label missing */
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) didn't match pod affinity rules");
    KT_CHECK_INT(ts_filter(s, "client", "n1").code, KP_CODE_UNRESOLVABLE);
    /* once db1 is bound, client follows it */
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_STR(ts_node_of(s, "db1"), "n1");
    KT_CHECK_STR(ts_node_of(s, "client"), "n1");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- PodTopologySpread ---- */

KT_TEST(spread_max_skew_and_missing_label) {
    /* filtering_test.go "pods spread across zones as 3/3, all nodes fit" style: zone a has 2
     * matching pods, zone b 0 -> maxSkew 1 rejects zone a */
    const char *y =
        NODE("a1", "1", "1Gi", "32", "zone: a", "") NODE("b1", "1", "1Gi", "32", "zone: b", "")
            NODE("x", "1", "1Gi", "32", "",
                 "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e1, namespace: default, "
                     "labels: {app: foo}}\nspec: {nodeName: a1, containers: [{name: c}]}\n"
                     "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e2, namespace: default, "
                     "labels: {app: foo}}\nspec: {nodeName: a1, containers: [{name: c}]}\n"
                     "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, "
                     "labels: {app: foo}}\n"
                     "spec: {containers: [{name: c}], topologySpreadConstraints: [{maxSkew: 1, "
                     "topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: "
                     "{matchLabels: {app: foo}}}]}\n"
                     "---\napiVersion: v1\nkind: Pod\nmetadata: {name: md, namespace: default, "
                     "labels: {app: foo}}\n"
                     "spec: {containers: [{name: c}], topologySpreadConstraints: [{maxSkew: 1, "
                     "minDomains: 3, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, "
                     "labelSelector: {matchLabels: {app: foo}}}]}\n";
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "a1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.reasons[0], "node(s) didn't match pod topology spread constraints");
    KT_CHECK_INT(ts_filter(s, "p", "b1").code, KP_CODE_SUCCESS);
    st = ts_filter(s, "p", "x");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.reasons[0],
                 "node(s) didn't match pod topology spread constraints (missing required label)");
    /* minDomains 3 > 2 domains: global minimum is 0, so zone b (0 + 1 - 0 = 1) still fits, a not */
    KT_CHECK_INT(ts_filter(s, "md", "b1").code, KP_CODE_SUCCESS);
    KT_CHECK_INT(ts_filter(s, "md", "a1").code, KP_CODE_UNSCHEDULABLE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(spread_incremental_add_remove_matches_fresh_state) {
    const char *y = NODE("a1", "1", "1Gi", "32", "zone: a", "") NODE(
        "b1", "1", "1Gi", "32", "zone: b",
        "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e1, namespace: default, labels: "
            "{app: foo}}\nspec: {nodeName: a1, containers: [{name: c}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: "
            "foo}}\n"
            "spec: {containers: [{name: c}], topologySpreadConstraints: [{maxSkew: 1, topologyKey: "
            "zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: foo}}}]}\n";
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    long p = kp_cluster_find_pod(cl, "default/p"), e1 = kp_cluster_find_pod(cl, "default/e1");
    long a1 = kp_cluster_find_node(cl, "a1");
    kp_node_status pre, st;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)p, &pre);
    kp__cycle_filter(c, (uint32_t)a1, &st);
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE); /* 1 + 1 - 0 = 2 > 1 */
    kp__node_remove_pod(cl, (uint32_t)e1);
    kp__cycle_remove_pod(c, (uint32_t)e1, (uint32_t)a1);
    kp__cycle_filter(c, (uint32_t)a1, &st);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
    kp__node_add_pod(cl, (uint32_t)a1, (uint32_t)e1);
    kp__cycle_add_pod(c, (uint32_t)e1, (uint32_t)a1);
    kp__cycle_filter(c, (uint32_t)a1, &st);
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    kp__cycle_free(c);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- nominated pods: two-pass filtering ---- */

KT_TEST(nominated_pod_reserves_against_lower_priority_only) {
    const char *y =
        NODE("n1", "1", "1Gi", "32", "",
             "") "---\napiVersion: v1\nkind: Pod\nmetadata: {name: nom, namespace: default}\nspec: "
                 "{priority: 100, containers: [" CT(
                     "800m", "1") "]}\nstatus: {nominatedNodeName: "
                                  "n1}\n" POD("low", "{priority: 10, containers: "
                                                     "[" CT("500m", "1") "]}")
                                      POD("high", "{priority: 1000, containers: "
                                                  "[" CT("500m", "1") "]}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "low", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.reasons[0], "Insufficient cpu");
    KT_CHECK_INT(ts_filter(s, "high", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* ---- FitError text, numFeasibleNodesToFind ---- */

KT_TEST(fit_error_histogram_sorted_as_strings) {
    kp_cluster *cl = ts_load(NODE("n1", "1", "1Gi", "32", "", ""));
    kp_sched *s = ts_sched(cl, NULL, 0);
    /* fake statuses: 10 x "B reason" would need 10 nodes; use counts via one node each */
    memset(s->has_status, 0, s->cl->n_nodes + 1);
    s->has_status[0] = true;
    kp__status_reset(&s->statuses[0]);
    kp__status_add_reason(&s->statuses[0], "Insufficient memory");
    kp__status_add_reason(&s->statuses[0], "Insufficient cpu");
    char *buf = NULL;
    KT_CHECK_INT(kp__fit_error_message(s, NULL, &buf), KP_OK);
    KT_CHECK_STR(buf, "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.");
    kp_free(buf);
    kp_node_status pre;
    kp__status_reset(&pre);
    KT_CHECK_INT(kp__fit_error_message(s, &pre, &buf), KP_OK); /* no reason: the histogram */
    KT_CHECK_STR(buf, "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.");
    kp_free(buf);
    kp__status_add_reason(&pre, "pod affinity terms conflict");
    KT_CHECK_INT(kp__fit_error_message(s, &pre, &buf), KP_OK);
    KT_CHECK_STR(buf, "0/1 nodes are available: pod affinity terms conflict.");
    kp_free(buf);
    /* PreFilterMsg is never cut, however long its reasons (it was a 256-byte buffer once) */
    char longr[400];
    memset(longr, 'x', sizeof longr - 1);
    longr[sizeof longr - 1] = 0;
    kp__status_add_reason(&pre, longr);
    KT_CHECK_INT(kp__fit_error_message(s, &pre, &buf), KP_OK);
    KT_CHECK(buf && strlen(buf) ==
                        strlen("0/1 nodes are available: pod affinity terms conflict, .") + 399);
    KT_CHECK(buf && strstr(buf, "conflict, xxx") && strcmp(buf + strlen(buf) - 4, "xxx.") == 0);
    kp_free(buf);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(fit_error_ten_sorts_before_two) {
    char y[8192];
    size_t off = 0;
    for (int i = 0; i < 12; i++)
        off +=
            (size_t)snprintf(y + off, sizeof y - off,
                             "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%02d}\n%sstatus: "
                             "{allocatable: {cpu: 100m, memory: 1Gi, pods: \"32\"}}\n",
                             i, i < 10 ? "spec: {unschedulable: true}\n" : "");
    snprintf(y + off, sizeof y - off, POD("p", "{containers: [" CT("1", "1") "]}"));
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "p");
    KT_CHECK(r != NULL);
    if (r)
        KT_CHECK_CONTAINS(
            r->message,
            "0/12 nodes are available: 10 node(s) were unschedulable, 2 Insufficient cpu.");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(num_feasible_nodes_to_find_table) {
    /* spec §4.4 examples */
    KT_CHECK_INT(kp__num_feasible_to_find(0, 50), 50);
    KT_CHECK_INT(kp__num_feasible_to_find(0, 100), 100);
    KT_CHECK_INT(kp__num_feasible_to_find(0, 500), 230);
    KT_CHECK_INT(kp__num_feasible_to_find(0, 1000), 420);
    KT_CHECK_INT(kp__num_feasible_to_find(0, 5000), 500);
    KT_CHECK_INT(kp__num_feasible_to_find(0, 6000), 300);
    KT_CHECK_INT(kp__num_feasible_to_find(40, 1000), 400);
    KT_CHECK_INT(kp__num_feasible_to_find(1, 1000), 100);
    KT_CHECK_INT(kp__num_feasible_to_find(100, 1000), 1000);
}

KT_MAIN(KT_CASE(fit_no_resources_fits), KT_CASE(fit_too_many_resources_fails_with_all_reasons),
        KT_CASE(fit_exactly_full_fits_and_over_allocatable_is_unresolvable),
        KT_CASE(fit_too_many_pods_even_without_requests),
        KT_CASE(fit_extended_resource_missing_and_ignored),
        KT_CASE(unschedulable_node_and_toleration), KT_CASE(taints_first_untolerated_is_reported),
        KT_CASE(taint_named_in_explain_only), KT_CASE(node_selector_and_required_affinity),
        KT_CASE(node_affinity_prefilter_match_fields), KT_CASE(node_ports_conflicts),
        KT_CASE(interpod_anti_affinity_incoming_and_existing),
        KT_CASE(interpod_affinity_first_pod_of_series), KT_CASE(spread_max_skew_and_missing_label),
        KT_CASE(spread_incremental_add_remove_matches_fresh_state),
        KT_CASE(nominated_pod_reserves_against_lower_priority_only),
        KT_CASE(fit_error_histogram_sorted_as_strings), KT_CASE(fit_error_ten_sorts_before_two),
        KT_CASE(num_feasible_nodes_to_find_table))
