/* helper.DefaultSelector (src/sched/plugins/pod_topology_spread_default.c): which Services /
 * controllers contribute, how their selectors merge, and when it is empty (no default constraint
 * applies). */
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/selector.h"
#include "test_sched_util.h"

static const char *cluster_yaml =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, "
    "status: {allocatable: {cpu: '4', pods: '10'}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s-app, namespace: a}, spec: {selector: "
    "{app: web}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s-tier, namespace: a}, spec: {selector: "
    "{tier: fe}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s-other, namespace: a}, spec: {selector: "
    "{app: db}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s-nil, namespace: a}, spec: {type: "
    "ExternalName}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s-elsewhere, namespace: b}, spec: "
    "{selector: {app: web, zone: x}}}\n"
    "- {apiVersion: v1, kind: ReplicationController, metadata: {name: rc, namespace: a}, spec: "
    "{selector: {app: web2, ver: '2'}}}\n"
    "- {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, namespace: a}, spec: "
    "{selector: {matchLabels: {app: other}, matchExpressions: [{key: tier, operator: Exists}]}}}\n"
    "- {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: ss, namespace: a}, spec: {}}\n"
    /* 0: two Services match: {app: web, tier: fe} */
    "- {apiVersion: v1, kind: Pod, metadata: {name: two-svcs, namespace: a, labels: {app: web, "
    "tier: fe}}, spec: {containers: [{name: c}]}}\n"
    /* 1: no Service, no owner: empty */
    "- {apiVersion: v1, kind: Pod, metadata: {name: none, namespace: a, labels: {x: y}}, spec: "
    "{containers: [{name: c}]}}\n"
    /* 2: RC owner overrides the Service's app value */
    "- {apiVersion: v1, kind: Pod, metadata: {name: rc-owned, namespace: a, labels: {app: web}, "
    "ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: rc, uid: u, controller: "
    "true}]}, spec: {containers: [{name: c}]}}\n"
    /* 3: RS owner adds requirements (app=other conflicts with the Service's app=web: matches
       nothing) */
    "- {apiVersion: v1, kind: Pod, metadata: {name: rs-owned, namespace: a, labels: {app: web, "
    "tier: fe}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, "
    "controller: true}]}, spec: {containers: [{name: c}]}}\n"
    /* 4: owner reference without controller: true is not the controller */
    "- {apiVersion: v1, kind: Pod, metadata: {name: not-controller, namespace: a, labels: {q: r}, "
    "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u}]}, spec: "
    "{containers: [{name: c}]}}\n"
    /* 5: an apiVersion DefaultSelector does not know */
    "- {apiVersion: v1, kind: Pod, metadata: {name: old-api, namespace: a, labels: {q: r}, "
    "ownerReferences: [{apiVersion: extensions/v1beta1, kind: ReplicaSet, name: rs, uid: u, "
    "controller: true}]}, spec: {containers: [{name: c}]}}\n"
    /* 6: StatefulSet with a nil selector contributes nothing */
    "- {apiVersion: v1, kind: Pod, metadata: {name: ss-owned, namespace: a, labels: {q: r}, "
    "ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: ss, uid: u, controller: "
    "true}]}, spec: {containers: [{name: c}]}}\n"
    /* 7: the controller is the second reference */
    "- {apiVersion: v1, kind: Pod, metadata: {name: second-ref, namespace: a, labels: {q: r}, "
    "ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: rc, uid: u}, "
    "{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}]}, spec: "
    "{containers: [{name: c}]}}\n";

static long pod_index(kp_cluster *cl, const char *name) {
    for (uint32_t i = 0; i < cl->n_pods; i++)
        if (strcmp(kp__s(cl, cl->pods[i].name), name) == 0) return i;
    return -1;
}

/* the selector as text: "k=v,k=v|key op n" (match labels sorted by key name) */
static void render(kp_cluster *cl, const kp_label_selector *sel, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = 0;
    if (!sel) {
        snprintf(buf, cap, "<empty>");
        return;
    }
    const char *names[16];
    uint32_t n = 0;
    for (uint32_t i = 0; i < sel->match_labels.n && n < 16; i++)
        names[n++] = kp__s(cl, sel->match_labels.items[i].key);
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (uint32_t i = 0; i < n; i++) {
        kp_str k = kp__intern_find(&cl->strs, names[i], strlen(names[i])), v = 0;
        kp__labels_get(&sel->match_labels, k, &v);
        off +=
            (size_t)snprintf(buf + off, cap - off, "%s%s=%s", i ? "," : "", names[i], kp__s(cl, v));
    }
    off += (size_t)snprintf(buf + off, cap - off, "|");
    for (uint16_t i = 0; i < sel->n_exprs; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s op%d %u", i ? "," : "",
                                kp__s(cl, sel->exprs[i].key), (int)sel->exprs[i].op,
                                sel->exprs[i].n_values);
}

static void check_selector(kp_sched *s, const char *pod, const char *want) {
    kp_cluster *cl = s->cl;
    long i = pod_index(cl, pod);
    KT_CHECK(i >= 0);
    if (i < 0) return;
    const kp_label_selector *sel = NULL;
    KT_CHECK_INT(kp__default_selector(s, (uint32_t)i, &sel), KP_OK);
    char buf[256];
    render(cl, sel, buf, sizeof buf);
    KT_CHECK_STR(buf, want);
}

KT_TEST(default_selector_sources_and_merge) {
    kp_cluster *cl = ts_load(cluster_yaml);
    KT_CHECK(cl != NULL);
    kp_sched *s = cl ? ts_sched(cl, NULL, 1) : NULL;
    KT_CHECK(s != NULL);
    if (s) {
        check_selector(s, "two-svcs", "app=web,tier=fe|");
        check_selector(s, "none", "<empty>");
        check_selector(s, "rc-owned", "app=web2,ver=2|");
        check_selector(s, "rs-owned", "app=web,tier=fe|app op0 1,tier op2 0");
        check_selector(s, "not-controller", "<empty>");
        check_selector(s, "old-api", "<empty>");
        check_selector(s, "ss-owned", "<empty>");
        check_selector(s, "second-ref", "|app op0 1,tier op2 0");
        /* the RS requirements conflict with the Service's: the pod does not match its own selector
         */
        long i = pod_index(cl, "rs-owned");
        const kp_label_selector *sel = NULL;
        KT_CHECK_INT(kp__default_selector(s, (uint32_t)i, &sel), KP_OK);
        KT_CHECK(sel && !kp__selector_matches(cl, sel, &cl->pods[i].labels));
        i = pod_index(cl, "two-svcs");
        KT_CHECK_INT(kp__default_selector(s, (uint32_t)i, &sel), KP_OK);
        KT_CHECK(sel && kp__selector_matches(cl, sel, &cl->pods[i].labels));
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* List defaulting without constraints: nothing to build, every selector reads as empty */
KT_TEST(default_selector_unused_without_default_constraints) {
    kp_cluster *cl = ts_load(cluster_yaml);
    kp_sched *s =
        cl ? ts_sched(
                 cl,
                 "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                 "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args: "
                 "{defaultingType: List}\n",
                 1)
           : NULL;
    KT_CHECK(s != NULL);
    if (s) {
        check_selector(s, "two-svcs", "<empty>");
        const kp_spread *d;
        KT_CHECK_INT(kp__spread_defaults_get(s, &d), 0);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* System defaulting: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway (plugin.go) */
KT_TEST(system_default_constraints) {
    kp_cluster *cl = ts_load(cluster_yaml);
    kp_sched *s = cl ? ts_sched(cl, NULL, 1) : NULL;
    KT_CHECK(s != NULL);
    if (s) {
        const kp_spread *d;
        KT_CHECK_INT(kp__spread_defaults_get(s, &d), 2);
        KT_CHECK(kp__spread_defaults_system(s));
        KT_CHECK_STR(kp__s(cl, d[0].topology_key), "kubernetes.io/hostname");
        KT_CHECK_INT(d[0].max_skew, 3);
        KT_CHECK_INT(d[1].max_skew, 5);
        KT_CHECK_INT(d[0].when, KP_WHEN_SCHEDULEANYWAY);
        KT_CHECK_INT(d[1].when, KP_WHEN_SCHEDULEANYWAY);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(default_selector_sources_and_merge),
        KT_CASE(default_selector_unused_without_default_constraints),
        KT_CASE(system_default_constraints))
