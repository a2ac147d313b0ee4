/* The Eviction API's PDB checks (kp_cluster_evict_check, src/core/pdb_status.c), with the rows of
 * upstream's pkg/registry/core/pod/storage/eviction_test.go: TestEviction (a PDB with no
 * disruption left refuses a Ready pod, 429; one with some allows it; no PDB allows it),
 * TestEvictionIgnorePDB (canIgnorePDB: a Pending, Succeeded or Failed pod, or one being deleted,
 * goes whatever the PDB), TestEvictionPDBStatus / the unhealthyPodEvictionPolicy cases (a pod that
 * is not Ready goes without spending a disruption under IfHealthyBudget while currentHealthy >=
 * desiredHealthy > 0, under AlwaysAllow always), more than one PDB (500), an empty selector
 * (matches nothing here), and the policy's strict decoding. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"

/* clang-format off */
#define NODE "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" \
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
/* a PDB over app=a with the given spec fields and status */
#define PDB(name, spec, status) \
    "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: " name \
    ", namespace: d}\nspec: {" spec "}\nstatus: {" status "}\n"
#define POD(name, labels, extra, status) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: d, labels: {" labels "}" \
    extra "}\nspec: {nodeName: n1, containers: [{name: c}]}\nstatus: " status "\n"
#define READY "{phase: Running}"
#define UNREADY "{phase: Running, conditions: [{type: Ready, status: 'False'}]}"
/* clang-format on */

static kp_evict_verdict check(const char *yaml, const char *pod, const char **pdb_name) {
    kp_error err;
    kp_cluster *cl = kp_cluster_new();
    kp_evict_verdict v = (kp_evict_verdict)-1;
    *pdb_name = "";
    if (kp_cluster_load_buffer(cl, "in.yaml", yaml, strlen(yaml), &err) == KP_OK &&
        kp_cluster_finalize(cl, &err) == KP_OK) {
        kp_index pdb;
        char ref[64];
        snprintf(ref, sizeof ref, "d/%s", pod);
        v = kp_cluster_evict_check(cl, kp_cluster_find_pod(cl, ref), &pdb);
        kp_pdb_info in;
        static char name[64];
        name[0] = 0;
        if (pdb >= 0 && kp_cluster_pdb_info(cl, pdb, &in) == KP_OK)
            snprintf(name, sizeof name, "%s", in.name);
        *pdb_name = name;
    } else {
        fprintf(stderr, "  load: %s\n", err.msg);
    }
    kp_cluster_free(cl);
    return v;
}

#define ZERO "disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2"
#define ONE "disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3"
#define SHORT "disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2, expectedPods: 3"

KT_TEST(eviction_rows) {
    const char *name;
    /* TestEviction: matching pdbs with no disruptions allowed / with some / no pdb */
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}", ZERO)
                           POD("x", "app: a", "", READY),
                       "x", &name),
                 KP_EVICT_TOO_MANY_REQUESTS);
    KT_CHECK_STR(name, "p");
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}", ONE)
                           POD("x", "app: a", "", READY),
                       "x", &name),
                 KP_EVICT_ALLOWED);
    KT_CHECK_INT(check(NODE POD("x", "app: a", "", READY), "x", &name), KP_EVICT_ALLOWED);
    KT_CHECK_STR(name, "");
    /* TestEvictionIgnorePDB: pending, succeeded, failed, terminating pods ignore the PDB */
    static const char *const ignored[] = {"{phase: Pending}", "{phase: Succeeded}",
                                          "{phase: Failed}"};
    for (int i = 0; i < 3; i++) {
        char y[2048];
        snprintf(
            y, sizeof y, "%s%s%s%s%s", NODE, PDB("p", "selector: {matchLabels: {app: a}}", ZERO),
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: d, labels: {app: a}}\n"
            "spec: {",
            i ? "" : "nodeName: n1, ", "containers: [{name: c}]}\nstatus: ");
        size_t n = strlen(y);
        snprintf(y + n, sizeof y - n, "%s\n", ignored[i]);
        KT_CHECK_INT(check(y, "x", &name), KP_EVICT_ALLOWED);
    }
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}", ZERO)
                           POD("x", "app: a", ", deletionTimestamp: '2024-01-01T00:00:00Z'", READY),
                       "x", &name),
                 KP_EVICT_ALLOWED);
    /* unhealthyPodEvictionPolicy: IfHealthyBudget (default and explicit) */
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}", ZERO)
                           POD("x", "app: a", "", UNREADY),
                       "x", &name),
                 KP_EVICT_ALLOWED_UNHEALTHY);
    KT_CHECK_INT(check(NODE PDB("p",
                                "selector: {matchLabels: {app: a}}, "
                                "unhealthyPodEvictionPolicy: IfHealthyBudget",
                                SHORT) POD("x", "app: a", "", UNREADY),
                       "x", &name),
                 KP_EVICT_TOO_MANY_REQUESTS);
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}",
                                "disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0")
                           POD("x", "app: a", "", UNREADY),
                       "x", &name),
                 KP_EVICT_TOO_MANY_REQUESTS); /* desiredHealthy 0: no free pass */
    /* AlwaysAllow: an unready pod goes even when the budget is short; a Ready one does not */
    KT_CHECK_INT(check(NODE PDB("p",
                                "selector: {matchLabels: {app: a}}, "
                                "unhealthyPodEvictionPolicy: AlwaysAllow",
                                SHORT) POD("x", "app: a", "", UNREADY),
                       "x", &name),
                 KP_EVICT_ALLOWED_UNHEALTHY);
    KT_CHECK_INT(check(NODE PDB("p",
                                "selector: {matchLabels: {app: a}}, "
                                "unhealthyPodEvictionPolicy: AlwaysAllow",
                                SHORT) POD("x", "app: a", "", READY),
                       "x", &name),
                 KP_EVICT_TOO_MANY_REQUESTS);
    /* two PDBs: 500; an empty selector matches nothing here */
    KT_CHECK_INT(check(NODE PDB("p", "selector: {matchLabels: {app: a}}", ONE)
                           PDB("q", "selector: {matchLabels: {app: a}}", ONE)
                               POD("x", "app: a", "", READY),
                       "x", &name),
                 KP_EVICT_MULTIPLE_PDBS);
    KT_CHECK_INT(
        check(NODE PDB("p", "selector: {}", ZERO) POD("x", "app: a", "", READY), "x", &name),
        KP_EVICT_ALLOWED);
}

KT_TEST(policy_decoding) {
    const char *y = NODE PDB(
        "p", "selector: {matchLabels: {app: a}}, unhealthyPodEvictionPolicy: Sometimes", ZERO);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "in.yaml", y, strlen(y), &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": "
                               "supported values: \"AlwaysAllow\", \"IfHealthyBudget\"");
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(eviction_rows), KT_CASE(policy_decoding))
