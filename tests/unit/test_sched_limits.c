/* Fixed limits that used to change answers (issue 16): each case fails on the code that had the
 * limit. Host ports beyond 512, more than 64 distinct FitError reasons, more than 256 nominated
 * pods on a node, more than 8 matchLabelKeys, more than 32 spread constraints, a plugin
 * MultiPoint enables many times, more than 6 reasons in a status, reasons over 111 characters. */
#include <stdarg.h>
#include <stdio.h>

#include "core/cluster.h"
#include "core/sched_config.h"
#include "sched/diagnosis.h"
#include "sched/plugins/image_locality.h"
#include "sched/plugins/pod_topology_spread.h"
#include "test_sched_util.h"

typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->p && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
}

#define NODE_HDR "---\napiVersion: v1\nkind: Node\n"
#define POD_HDR "---\napiVersion: v1\nkind: Pod\n"

KT_TEST(host_ports_beyond_512_still_conflict) {
    sbuf b = {0};
    put(&b,
        NODE_HDR "metadata: {name: n1}\nstatus: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n");
    put(&b,
        POD_HDR "metadata: {name: old, namespace: default}\nspec:\n  nodeName: n1\n  containers:\n"
                "  - name: c\n    ports:\n");
    for (int i = 0; i < 600; i++)
        put(&b, "    - {containerPort: %d, hostPort: %d}\n", 1000 + i, 1000 + i);
    put(&b, POD_HDR "metadata: {name: p, namespace: default}\nspec:\n  containers:\n  - name: c\n"
                    "    ports: [{containerPort: 1599, hostPort: 1599}]\n");
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.plugin, "NodePorts");
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(fit_error_keeps_more_than_64_reasons) {
    sbuf b = {0};
    for (int i = 0; i < 70; i++)
        put(&b,
            NODE_HDR
            "metadata: {name: n%02d}\nstatus: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n",
            i);
    kp_cluster *cl = ts_load(b.p);
    kp_sched *s = ts_sched(cl, NULL, 0);
    char reasons[70][16];
    for (uint32_t i = 0; i < 70; i++) {
        s->has_status[i] = true;
        kp__status_reset(&s->statuses[i]);
        snprintf(reasons[i], sizeof reasons[i], "r%02u", i);
        kp__status_add_reason(&s->statuses[i], reasons[i]);
    }
    char *msg = NULL;
    KT_CHECK_INT(kp__fit_error_message(s, NULL, &msg), KP_OK);
    KT_CHECK(msg && strstr(msg, "1 r00, ") != NULL);
    KT_CHECK(msg && strstr(msg, ", 1 r69.") != NULL);
    kp_free(msg);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(diagnosis_grows_and_sorts) {
    kp_diagnosis d;
    kp__diagnosis_init(&d);
    char reasons[100][16];
    for (int i = 99; i >= 0; i--) {
        snprintf(reasons[i], sizeof reasons[i], "r%02d", i);
        KT_CHECK_INT(kp__diagnosis_add(&d, reasons[i], 2), KP_OK);
    }
    KT_CHECK_INT(d.n, 100);
    char msg[4096];
    KT_CHECK_INT(kp__diagnosis_message(&d, "x: ", 5, true, msg, sizeof msg), KP_OK);
    KT_CHECK(strncmp(msg, "x: 0/5 nodes are available: 2 r00, 2 r01, ", 42) == 0);
    kp__diagnosis_fini(&d);
    kp__diagnosis_init(&d);
    KT_CHECK_INT(kp__diagnosis_message(&d, "", 3, false, msg, sizeof msg), KP_OK);
    KT_CHECK_STR(msg, "0/3 nodes are available:");
    KT_CHECK_INT(kp__diagnosis_message(&d, "preemption: ", 3, true, msg, sizeof msg), KP_OK);
    KT_CHECK_STR(msg, "preemption: 0/3 nodes are available.");
}

KT_TEST(every_nominated_pod_reserves_beyond_256) {
    /* 300 pending pods nominated to n1 (1 cpu each, 300 cpu): the 301st pod of equal priority
     * finds no room; with the old 256 cap it saw 44 cpu free */
    sbuf b = {0};
    put(&b, NODE_HDR
        "metadata: {name: n1}\nstatus: {allocatable: {cpu: 300, memory: 400Gi, pods: 1000}}\n");
    for (int i = 0; i < 300; i++)
        put(&b,
            POD_HDR "metadata: {name: nom%03d, namespace: default}\nspec: {containers: [{name: c, "
                    "resources: {requests: {cpu: 1}}}]}\nstatus: {nominatedNodeName: n1}\n",
            i);
    put(&b, POD_HDR "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c, "
                    "resources: {requests: {cpu: 1}}}]}\n");
    kp_cluster *cl = ts_load(b.p);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_INT(s->nom_n[0], 300);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.plugin, "NodeResourcesFit");
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(match_label_keys_beyond_8_all_count) {
    /* the 9th key tells the existing pods (k9: x) apart from the incoming one (k9: y): they do
     * not match, so n1 (2 such pods) is as good as n2 for maxSkew 1 */
    sbuf b = {0};
    const char *labels8 = "app: w, k1: a, k2: a, k3: a, k4: a, k5: a, k6: a, k7: a, k8: a";
    put(&b, NODE_HDR "metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
                     "status: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n");
    put(&b, NODE_HDR "metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}\n"
                     "status: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n");
    for (int i = 0; i < 2; i++)
        put(&b,
            POD_HDR "metadata: {name: old%d, namespace: default, labels: {%s, k9: x}}\n"
                    "spec: {nodeName: n1, containers: [{name: c}]}\n",
            i, labels8);
    put(&b,
        POD_HDR
        "metadata: {name: p, namespace: default, labels: {%s, k9: y}}\n"
        "spec:\n  containers: [{name: c}]\n  topologySpreadConstraints:\n"
        "  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,\n"
        "     labelSelector: {matchLabels: {app: w}},\n"
        "     matchLabelKeys: [k1, k2, k3, k4, k5, k6, k7, k8, k9]}\n",
        labels8);
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched(cl, NULL, 0);
    KT_CHECK_INT(ts_filter(s, "p", "n1").code, KP_CODE_SUCCESS);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(spread_state_restored_for_every_constraint_beyond_32) {
    /* 40 hard constraints on distinct zone-like keys; a nominated pod on n1 makes the Filter run
     * its nominated pass (AddPod, then restore). Every constraint's criticalPaths must be back
     * to their state before the pass, the 40th included. */
    sbuf b = {0};
    for (int n = 1; n <= 2; n++) {
        put(&b, NODE_HDR "metadata: {name: n%d, labels: {", n);
        for (int k = 0; k < 40; k++) put(&b, "%sz%02d: v%d", k ? ", " : "", k, n);
        put(&b, "}}\nstatus: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n");
    }
    put(&b, POD_HDR "metadata: {name: old, namespace: default, labels: {app: w}}\n"
                    "spec: {nodeName: n2, containers: [{name: c}]}\n");
    put(&b,
        POD_HDR "metadata: {name: nom, namespace: default, labels: {app: w}}\n"
                "spec: {priority: 10, containers: [{name: c}]}\nstatus: {nominatedNodeName: n1}\n");
    put(&b, POD_HDR "metadata: {name: p, namespace: default, labels: {app: w}}\nspec:\n"
                    "  containers: [{name: c}]\n  topologySpreadConstraints:\n");
    for (int k = 0; k < 40; k++)
        put(&b,
            "  - {maxSkew: 1, topologyKey: z%02d, whenUnsatisfiable: DoNotSchedule, "
            "labelSelector: {matchLabels: {app: w}}}\n",
            k);
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched(cl, NULL, 0);
    long p = kp_cluster_find_pod(cl, "default/p");
    KT_CHECK(p >= 0);
    kp_node_status pre, st;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)p, &pre);
    KT_CHECK(c != NULL && c->n_spread == 40);
    if (c && c->n_spread == 40) {
        kp_str val[40][2];
        int64_t num[40][2];
        for (int k = 0; k < 40; k++)
            for (int j = 0; j < 2; j++)
                val[k][j] = c->spread[k].paths[j].val, num[k][j] = c->spread[k].paths[j].num;
        kp__cycle_filter(c, 0, &st);
        KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
        /* the save / restore pair itself, with every path disturbed in between */
        kp__spread_save(c);
        for (int k = 0; k < 40; k++) c->spread[k].paths[0].num = 999, c->spread[k].paths[1].val = 7;
        kp__spread_restore(c);
        int same = 0;
        for (int k = 0; k < 40; k++)
            for (int j = 0; j < 2; j++)
                same += val[k][j] == c->spread[k].paths[j].val &&
                        num[k][j] == c->spread[k].paths[j].num;
        KT_CHECK_INT(same, 80);
    }
    kp__cycle_free(c);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(multipoint_enabling_a_plugin_many_times_is_a_set) {
    /* MultiPoint enables NodePorts 20 times and the filter point enables it again: upstream's
     * overridePlugins is a set (NodePorts filters once); the old code wrote past the
     * extension point's list */
    sbuf b = {0};
    put(&b,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled:\n");
    for (int i = 0; i < 20; i++) put(&b, "      - name: NodePorts\n");
    put(&b, "    preFilter:\n      enabled:\n      - name: NodePorts\n    filter:\n      "
            "enabled:\n      - name: NodePorts\n");
    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    KT_CHECK_INT(kp_sched_config_load_buffer("cfg.yaml", b.p, b.len, NULL, &cfg, &err), KP_OK);
    if (!cfg) fprintf(stderr, "  %s\n", err.msg);
    if (cfg) {
        int n_ports = 0;
        for (uint8_t i = 0; i < cfg->n_filter; i++) n_ports += cfg->filter[i] == KP_PL_NODE_PORTS;
        KT_CHECK_INT(n_ports, 1);
        KT_CHECK(cfg->n_filter <= KP_PL_COUNT);
    }
    kp_sched_config_free(cfg);
    free(b.p);
}

KT_TEST(status_keeps_every_reason_beyond_6) {
    /* a full node short of 7 resources: "Too many pods" and 7 "Insufficient" reasons, all kept
     * (the old status kept 6) */
    const char *y = NODE_HDR
        "metadata: {name: n1}\nstatus: {allocatable: {cpu: 1, memory: 1Gi, pods: 1, "
        "ephemeral-storage: 1Gi, hugepages-2Mi: 2Mi, hugepages-1Gi: 1Gi, example.com/a: 1, "
        "example.com/b: 1}}\n" POD_HDR "metadata: {name: old, namespace: default}\nspec: "
        "{nodeName: n1, containers: [{name: c}]}\n" POD_HDR
        "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c, resources: "
        "{requests: {cpu: 2, memory: 2Gi, ephemeral-storage: 2Gi, hugepages-2Mi: 4Mi, "
        "hugepages-1Gi: 2Gi, "
        "example.com/a: 2, example.com/b: 2}, limits: {hugepages-2Mi: 4Mi, hugepages-1Gi: 2Gi, "
        "example.com/a: 2, example.com/b: 2}}}]}\n";
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "p", "n1");
    KT_CHECK_INT(st.n_reasons, 8);
    KT_CHECK_STR(st.reasons[0], "Too many pods");
    KT_CHECK_STR(st.reasons[7], "Insufficient example.com/b");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(taint_reason_is_not_truncated) {
    /* a 100-character taint key: the reason is longer than the old 111-character buffer */
    char key[101];
    memset(key, 'k', 100);
    key[100] = 0;
    sbuf b = {0};
    put(&b,
        NODE_HDR "metadata: {name: n1}\nspec: {taints: [{key: %s, value: v, effect: NoSchedule}]}\n"
                 "status: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n",
        key);
    put(&b, POD_HDR "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n");
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched_compat(cl, "1.34"); /* the line whose reason names the taint */
    kp_node_status st = ts_filter(s, "p", "n1");
    char want[256];
    snprintf(want, sizeof want, "node(s) had untolerated taint {%s: v}", key);
    KT_CHECK_INT(st.n_reasons, 1);
    KT_CHECK_STR(st.reasons[0], want);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(config_names_beyond_the_buffers_are_errors) {
    /* an ignoredResources name longer than kprio keeps is an error naming the limit, not a
     * truncated name that silently matches nothing */
    char name[80];
    memset(name, 'x', 70);
    memcpy(name, "example.com/", 12);
    name[70] = 0;
    sbuf b = {0};
    put(&b,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    "
        "args:\n"
        "      ignoredResources: [%s]\n",
        name);
    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    KT_CHECK_INT(kp_sched_config_load_buffer("cfg.yaml", b.p, b.len, NULL, &cfg, &err), KP_ELIMIT);
    KT_CHECK(strstr(err.msg, "longer than 63 characters") != NULL);
    kp_sched_config_free(cfg);
    cfg = NULL;
    /* one entry more than KP_CFG_MAX_RES: the error names the limit */
    b.len = 0;
    put(&b,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    "
        "args:\n"
        "      ignoredResources: [");
    for (int i = 0; i <= KP_CFG_MAX_RES; i++) put(&b, "%sexample.com/r%d", i ? ", " : "", i);
    put(&b, "]\n");
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_config_load_buffer("cfg.yaml", b.p, b.len, NULL, &cfg, &err), KP_ELIMIT);
    char want[64];
    snprintf(want, sizeof want, "more than %d entries (kprio's limit)", KP_CFG_MAX_RES);
    KT_CHECK(strstr(err.msg, want) != NULL);
    kp_sched_config_free(cfg);
    free(b.p);
}

KT_TEST(messages_are_not_truncated) {
    /* 60 nodes with distinct 60-character taint keys: the FitError and the preemption message
     * list all 60 (the old buffers held 2048 and 512 characters) */
    sbuf b = {0};
    for (int i = 0; i < 60; i++)
        put(&b,
            NODE_HDR "metadata: {name: n%02d}\nspec: {taints: [{key: %057d%03d, value: v, effect: "
                     "NoSchedule}]}\n"
                     "status: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n",
            i, 0, i);
    put(&b, POD_HDR "metadata: {name: p, namespace: default}\nspec: {priority: 100, containers: "
                    "[{name: c}]}\n");
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched_compat(cl, "1.34"); /* the line whose reason names the taint */
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    const kp_sched_pod_result *r = ts_result(s, "p");
    KT_CHECK(r && r->message);
    int n = 0;
    for (const char *m = r && r->message ? r->message : ""; (m = strstr(m, "untolerated taint"));
         m++)
        n++;
    KT_CHECK_INT(n, 60);
    KT_CHECK(r && r->message &&
             strstr(r->message,
                    "preemption: 0/60 nodes are available: 60 Preemption is not helpful") != NULL);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(explain_reasons_are_not_truncated) {
    /* a 200-character taint key: --explain's per-filter reason names it whole (the record held
     * 112 characters once) */
    sbuf b = {0};
    put(&b,
        NODE_HDR
        "metadata: {name: n1}\nspec: {taints: [{key: k%0199d, value: v, effect: NoSchedule}]}\n"
        "status: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n",
        7);
    put(&b, POD_HDR "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n");
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sched_explain(s, kp_cluster_find_pod(cl, "default/p"), &err), KP_OK);
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    kp_sched_explain_node n;
    KT_CHECK_INT(kp_sched_explain_node_get(s, 0, &n), KP_OK);
    bool found = false;
    for (size_t i = 0; i < n.n_filters; i++) {
        kp_sched_explain_filter f;
        KT_CHECK_INT(kp_sched_explain_filter_get(s, 0, i, &f), KP_OK);
        if (strcmp(f.plugin, "TaintToleration") != 0) continue;
        found = true;
        KT_CHECK(strstr(f.reason, "0000007=v:NoSchedule)") != NULL);
        KT_CHECK(strlen(f.reason) > 200);
    }
    KT_CHECK(found);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_TEST(image_locality_long_untagged_name_counts) {
    /* an untagged image name of 600 characters is normalised to NAME:latest like any other (a
     * 512-byte buffer once made it score nothing) */
    char img[601];
    memset(img, 'a', 600);
    memcpy(img, "registry.example.com/", 21);
    img[600] = 0;
    sbuf b = {0};
    put(&b,
        NODE_HDR "metadata: {name: n1}\nstatus:\n  allocatable: {cpu: 4, memory: 4Gi, pods: 110}\n"
                 "  images: [{names: [\"%s:latest\"], sizeBytes: 500000000}]\n",
        img);
    put(&b,
        NODE_HDR "metadata: {name: n2}\nstatus: {allocatable: {cpu: 4, memory: 4Gi, pods: 110}}\n");
    put(&b,
        POD_HDR
        "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: \"%s\"}]}\n",
        img);
    kp_cluster *cl = ts_load(b.p);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    uint32_t nodes[2] = {0, 1};
    int64_t out[2] = {0, 0};
    KT_CHECK_INT(
        kp__image_locality_score(s, &cl->pods[kp_cluster_find_pod(cl, "default/p")], nodes, 2, out),
        1);
    KT_CHECK(out[0] > 0);
    KT_CHECK_INT(out[1], 0);
    kp_sched_free(s);
    kp_cluster_free(cl);
    free(b.p);
}

KT_MAIN(KT_CASE(host_ports_beyond_512_still_conflict),
        KT_CASE(fit_error_keeps_more_than_64_reasons), KT_CASE(diagnosis_grows_and_sorts),
        KT_CASE(every_nominated_pod_reserves_beyond_256),
        KT_CASE(match_label_keys_beyond_8_all_count),
        KT_CASE(spread_state_restored_for_every_constraint_beyond_32),
        KT_CASE(multipoint_enabling_a_plugin_many_times_is_a_set),
        KT_CASE(status_keeps_every_reason_beyond_6), KT_CASE(taint_reason_is_not_truncated),
        KT_CASE(config_names_beyond_the_buffers_are_errors), KT_CASE(messages_are_not_truncated),
        KT_CASE(explain_reasons_are_not_truncated),
        KT_CASE(image_locality_long_untagged_name_counts))
