/* Priority-class layouts (include/kprio/priority_layout.h): the decoder's errors, which
 * assignment a pod matches (the first, in file order), and a layout applied at finalize. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/priority_layout.h"

static kp_priority_layout *layout_of(const char *text, kp_error *err) {
    kp_priority_layout *l = NULL;
    kp_error_clear(err);
    if (kp_priority_layout_load_buffer("l.yaml", text, strlen(text), &l, err) != KP_OK) return NULL;
    return l;
}

#define HEAD "apiVersion: kprio/v1alpha1\nkind: PriorityLayout\n"
#define CLASSES                                              \
    "priorityClasses:\n"                                     \
    "- {name: standard, value: 1000, globalDefault: true}\n" \
    "- {name: batch, value: 100, preemptionPolicy: Never}\n"

KT_TEST(decoder_errors) {
    static const struct {
        const char *text, *want;
    } CASES[] = {
        {HEAD "priorityClasses:\n- {name: a, value: 1}\n- {name: a, value: 2}\n",
         "priorityClasses[1].name: Duplicate value: \"a\" (priorityClasses[0])"},
        {HEAD "priorityClasses:\n- {name: a, value: 1000000001}\n",
         "priorityClasses[0].value: Forbidden: maximum allowed value of a user defined priority "
         "is 1000000000"},
        {HEAD "priorityClasses:\n- {name: a, value: 1000000000}\n", NULL}, /* the limit itself */
        {HEAD "priorityClasses:\n- {name: a, value: 3000000000}\n", "priorityClasses[0].value"},
        {HEAD "priorityClasses:\n- {name: system-foo, value: 1}\n",
         "priorityClasses[0].name: Forbidden: priority class names with 'system-' prefix are "
         "reserved for system use only. error: system-foo is not a known system priority class"},
        {HEAD "priorityClasses:\n- {name: system-node-critical, value: 2000001000}\n",
         "priorityClasses[0].name: Forbidden: system-node-critical is a built-in class"},
        {HEAD "priorityClasses:\n- {name: a, value: 1, globalDefault: true}\n"
              "- {name: b, value: 2, globalDefault: true}\n",
         "priorityClasses[1].globalDefault: Forbidden: PriorityClass a is already marked as "
         "default"},
        {HEAD "priorityClasses:\n- {name: a}\n", "priorityClasses[0].value: Required value"},
        {HEAD "priorityClasses:\n- {name: Bad_Name, value: 1}\n",
         "priorityClasses[0].name: Invalid value: \"Bad_Name\""},
        {HEAD "priorityClasses:\n- {name: a, value: 1, preemptionPolicy: Sometimes}\n",
         "priorityClasses[0].preemptionPolicy: Unsupported value: \"Sometimes\""},
        {HEAD "priorityClasses:\n- {name: a, value: 1, prio: 2}\n",
         "priorityClasses[0].prio: unknown field"},
        {HEAD CLASSES "assignments:\n- {priorityClassName: gold}\n",
         "assignments[0].priorityClassName: Not found: \"gold\""},
        {HEAD CLASSES "assignments:\n- {priorityClassName: system-cluster-critical}\n", NULL},
        {HEAD CLASSES "assignments:\n- {priorityClassName: batch, namespace: Data}\n",
         "assignments[0].namespace: Invalid value: \"Data\""},
        {HEAD CLASSES "assignments:\n- {priorityClassName: batch, workload: {kind: Pod}}\n",
         "assignments[0].workload.kind: Unsupported value: \"Pod\""},
        {HEAD CLASSES "assignments:\n- {priorityClassName: batch, workload: {name: x}}\n",
         "assignments[0].workload.kind: required value"},
        {HEAD CLASSES "assignments:\n- priorityClassName: batch\n  selector: {matchExpressions: "
                      "[{key: a, operator: Exists, values: [x]}]}\n",
         "assignments[0].selector.matchExpressions[0].values: Forbidden"},
        {HEAD CLASSES "assignments:\n- priorityClassName: batch\n  selector: {matchLabels: "
                      "{\"a b\": x}}\n",
         "assignments[0].selector.matchLabels: Invalid value: \"a b\""},
        {HEAD CLASSES "assignments:\n- {class: batch}\n", "assignments[0].class: unknown field"},
        {"apiVersion: kprio/v1alpha1\nkind: Scenario\n", "kind: expected PriorityLayout"},
        {"kind: PriorityLayout\n", "apiVersion: expected kprio/v1alpha1"},
        {HEAD "priorityClasses: []\npriorityClasses: []\n", "already set in map"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        kp_error err;
        kp_priority_layout *l = layout_of(CASES[i].text, &err);
        if (!CASES[i].want) {
            KT_CHECK(l != NULL);
            if (!l) fprintf(stderr, "  case %zu: %s\n", i, err.msg);
        } else {
            KT_CHECK(l == NULL);
            KT_CHECK_CONTAINS(err.msg, CASES[i].want);
            KT_CHECK_STR(err.source, "l.yaml");
        }
        kp_priority_layout_free(l);
    }
}

/* Pods of three namespaces, one owned by a ReplicaSet of a Deployment. */
static const char CLUSTER[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: standard}, value: "
    "1000, globalDefault: true}\n"
    "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: front, namespace: shop}\n"
    "  spec:\n    selector: {matchLabels: {app: front}}\n"
    "    template:\n      metadata: {labels: {app: front}}\n"
    "      spec: {containers: [{name: c, image: i}]}\n"
    "- apiVersion: apps/v1\n  kind: ReplicaSet\n"
    "  metadata:\n    name: front-1\n    namespace: shop\n"
    "    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: front, uid: d, "
    "controller: true}]\n"
    "  spec:\n    selector: {matchLabels: {app: front}}\n"
    "    template:\n      metadata: {labels: {app: front}}\n"
    "      spec: {containers: [{name: c, image: i}]}\n"
    "- apiVersion: v1\n  kind: Pod\n"
    "  metadata:\n    name: front-1-a\n    namespace: shop\n    labels: {app: front, tier: web}\n"
    "    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: front-1, uid: r, "
    "controller: true}]\n"
    "  spec: {priorityClassName: standard, priority: 1000, containers: [{name: c, image: i}]}\n"
    "- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: shop, labels: {tier: web}}, "
    "spec: {priorityClassName: standard, priority: 1000, preemptionPolicy: PreemptLowerPriority, "
    "containers: [{name: c, image: i}]}}\n"
    "- {apiVersion: v1, kind: Pod, metadata: {name: other, namespace: shop}, spec: {containers: "
    "[{name: c, image: i}]}}\n"
    "- {apiVersion: v1, kind: Pod, metadata: {name: etl, namespace: data, labels: {tier: web}}, "
    "spec: {containers: [{name: c, image: i}]}}\n";

static kp_cluster *cluster_with(const kp_priority_layout *l) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES) == KP_OK);
    KT_CHECK(kp_cluster_load_buffer(cl, "c.yaml", CLUSTER, sizeof CLUSTER - 1, &err) == KP_OK);
    KT_CHECK(kp_cluster_set_priority_layout(cl, l) == KP_OK);
    if (kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  finalize: %s: %s\n", err.source, err.msg);
        KT_CHECK(0);
    }
    return cl;
}

/* The first assignment that matches wins, in file order: the Deployment's pod matches by its
 * ReplicaSet's owner before the namespace rule, a selector needs the namespace too when the
 * assignment gives both, and a catch-all (no criteria) takes the rest. */
KT_TEST(match_order) {
    kp_error err;
    kp_priority_layout *l = layout_of(
        HEAD CLASSES "- {name: gold, value: 5000}\n"
                     "assignments:\n"
                     "- priorityClassName: gold\n  namespace: shop\n"
                     "  selector: {matchLabels: {tier: web}}\n"
                     "- priorityClassName: batch\n  workload: {kind: Deployment, name: front}\n"
                     "- priorityClassName: standard\n  namespace: shop\n"
                     "- priorityClassName: batch\n",
        &err);
    KT_CHECK(l != NULL);
    if (!l) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    KT_CHECK_INT(kp_priority_layout_class_count(l), 3);
    KT_CHECK_INT(kp_priority_layout_assignment_count(l), 4);
    kp_cluster *cl = cluster_with(l);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, kp_cluster_find_pod(cl, "shop/front-1-a")), 0);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, kp_cluster_find_pod(cl, "shop/web")), 0);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, kp_cluster_find_pod(cl, "shop/other")), 2);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, kp_cluster_find_pod(cl, "data/etl")), 3);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, -1), -1);
    /* the priorities finalize resolved from the layout's classes */
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "shop/front-1-a")), 5000);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "shop/other")), 1000);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "data/etl")), 100);
    kp_cluster_free(cl);
    kp_priority_layout_free(l);
}

/* The Deployment's pod matched by its owner once the tier=web rule is gone; a pod no
 * assignment matches keeps its class, whose value is the layout's now (a spec.priority of 1000
 * and a preemptionPolicy the API server stored are resolved again). */
KT_TEST(apply_at_finalize) {
    kp_error err;
    kp_priority_layout *l =
        layout_of(HEAD "priorityClasses:\n- {name: standard, value: 700, globalDefault: true, "
                       "preemptionPolicy: Never}\n- {name: batch, value: 100}\n"
                       "assignments:\n"
                       "- priorityClassName: batch\n  workload: {kind: Deployment}\n",
                  &err);
    KT_CHECK(l != NULL);
    if (!l) return;
    kp_cluster *cl = cluster_with(l);
    KT_CHECK_INT(kp_priority_layout_match_pod(l, cl, kp_cluster_find_pod(cl, "shop/front-1-a")), 0);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "shop/front-1-a")), 100);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "shop/web")), 700);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "data/etl")), 700);
    kp_index pc = kp_cluster_find_priority_class(cl, "standard");
    KT_CHECK_INT(kp_cluster_priority_class_value(cl, pc), 700);
    KT_CHECK(kp_cluster_find_priority_class(cl, "system-node-critical") >= 0);
    KT_CHECK(kp_cluster_set_priority_layout(cl, l) == KP_EINVAL); /* finalized */
    kp_cluster_free(cl);
    kp_priority_layout_free(l);
}

KT_MAIN(KT_CASE(decoder_errors), KT_CASE(match_order), KT_CASE(apply_at_finalize))
