/* Inspection (kprio/inspect.h) and its rendering: row order, counts, warnings, percentages that
 * saturate instead of wrapping, and out of memory reaching the caller with nothing written. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/inspect.h"
#include "render/render_inspect.h"

static kp_cluster *load(const char *text) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

#define NODE(name, cpu, mem, extra)                                       \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name "}\n" extra \
    "status:\n  allocatable: {cpu: \"" cpu "\", memory: \"" mem "\", pods: \"10\"}\n"
#define POD(ns, name, spec, status)                                                               \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {namespace: " ns ", name: " name "}\nspec:\n" spec \
    "status:\n" status
#define CLASS(name, value)                                                               \
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " name \
    "}\nvalue: " value "\n"

static const char *CLUSTER = NODE("node-b", "4", "8Gi", "spec: {unschedulable: true}\n") NODE(
    "node-a", "2", "4Gi",
    "spec: {taints: [{key: k, effect: NoSchedule}]}\n") CLASS("low", "10") CLASS("high", "1000")
    POD("ns1", "g",
        "  nodeName: node-a\n  priorityClassName: high\n  containers: [{name: c, resources: "
        "{requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}}]\n",
        "  phase: Running\n") POD("ns1", "b",
                                  "  nodeName: node-a\n  priorityClassName: low\n  containers: "
                                  "[{name: c, resources: "
                                  "{requests: {cpu: 500m}}}]\n",
                                  "  phase: Running\n")
        POD("ns1", "be", "  nodeName: node-a\n  containers: [{name: c}]\n",
            "  phase: Running\n") POD("ns2", "gone",
                                      "  nodeName: node-b\n  priority: 7\n  priorityClassName: "
                                      "deleted\n  containers: [{name: c}]\n",
                                      "  phase: Running\n")
            POD("ns2", "nom", "  priorityClassName: high\n  containers: [{name: c}]\n",
                "  phase: Pending\n  nominatedNodeName: node-b\n") "---\napiVersion: v1\nkind: "
                                                                   "Pod\nmetadata: {namespace: "
                                                                   "ns2, name: term, "
                                                                   "deletionTimestamp: "
                                                                   "\"2024-01-01T00:00:00Z\"}"
                                                                   "\nspec:\n  nodeName: node-b\n  "
                                                                   "containers: [{name: "
                                                                   "c}]\nstatus:\n  phase: "
                                                                   "Running\n"
                                                                   "  conditions: [{type: "
                                                                   "DisruptionTarget, status: "
                                                                   "\"True\", reason: "
                                                                   "PreemptionByScheduler}]\n"
                                                                   "---\napiVersion: "
                                                                   "policy/v1\nkind: "
                                                                   "PodDisruptionBudget\nmetadata: "
                                                                   "{namespace: z, name: a}\n"
                                                                   "spec: {minAvailable: 1, "
                                                                   "selector: {}}\n"
                                                                   "---\napiVersion: "
                                                                   "policy/v1\nkind: "
                                                                   "PodDisruptionBudget\nmetadata: "
                                                                   "{namespace: a, name: z}\n"
                                                                   "spec: {maxUnavailable: 50%, "
                                                                   "selector: {}}\nstatus: "
                                                                   "{disruptionsAllowed: 2, "
                                                                   "currentHealthy: 1, "
                                                                   "desiredHealthy: 1, "
                                                                   "expectedPods: 1}\n";

KT_TEST(rows_sorted_and_counted) {
    kp_cluster *cl = load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_inspection *in = NULL;
    kp_error err;
    KT_CHECK_INT(kp_inspection_new(cl, &in, &err), KP_OK);
    const kp_inspect_summary *s = kp_inspection_summary(in);
    KT_CHECK_INT(s->nodes, 2);
    KT_CHECK_INT(s->pods, 6);
    KT_CHECK_INT(s->pending_pods, 1);
    KT_CHECK_INT(s->terminating_pods, 1);
    KT_CHECK_INT(s->nominated_pods, 1);
    KT_CHECK_INT(s->class_missing_pods, 1);

    const kp_inspect_node *a = kp_inspection_node(in, 0), *b = kp_inspection_node(in, 1);
    KT_CHECK_STR(a->name, "node-a");
    KT_CHECK_STR(b->name, "node-b");
    KT_CHECK(kp_inspection_node(in, 2) == NULL);
    KT_CHECK(a->tainted && !a->unschedulable);
    KT_CHECK(b->unschedulable && !b->tainted);
    KT_CHECK_INT(a->requested_cpu_milli, 1500);
    KT_CHECK_INT(a->percent_cpu, 75);
    KT_CHECK_INT(a->percent_memory, 25);
    KT_CHECK_INT(a->requested_pods, 3);
    KT_CHECK_INT(a->percent_pods, 30);
    KT_CHECK_INT(a->pods_guaranteed, 1);
    KT_CHECK_INT(a->pods_burstable, 1);
    KT_CHECK_INT(a->pods_besteffort, 1);
    /* class order: high, low, then no class */
    KT_CHECK_INT(a->n_by_class, 3);
    KT_CHECK_STR(a->by_class[0].priority_class, "high");
    KT_CHECK_STR(a->by_class[1].priority_class, "low");
    KT_CHECK_STR(a->by_class[2].priority_class, "");
    KT_CHECK_INT(b->n_by_class, 1); /* the deleted class counts as none */
    KT_CHECK_STR(b->by_class[0].priority_class, "");
    KT_CHECK_INT(b->by_class[0].pods, 2);

    KT_CHECK_INT(kp_inspection_class_count(in), 4);
    KT_CHECK_STR(kp_inspection_class(in, 0)->name, "system-node-critical");
    KT_CHECK_STR(kp_inspection_class(in, 2)->name, "high");
    KT_CHECK_INT(kp_inspection_class(in, 2)->pods, 2);
    KT_CHECK_STR(kp_inspection_class(in, 3)->preemption_policy, "PreemptLowerPriority");

    KT_CHECK_INT(kp_inspection_pdb_count(in), 2);
    const kp_inspect_pdb *p0 = kp_inspection_pdb(in, 0), *p1 = kp_inspection_pdb(in, 1);
    KT_CHECK_STR(p0->ns, "a");
    KT_CHECK(p0->min_available == NULL);
    KT_CHECK_STR(p0->max_unavailable, "50%");
    KT_CHECK(p0->has_status && p0->disruptions_allowed == 2);
    KT_CHECK_STR(p1->ns, "z");
    KT_CHECK(!p1->has_status);

    KT_CHECK_INT(kp_inspection_warning_count(in), 3);
    KT_CHECK_STR(kp_inspection_warning(in, 0),
                 "Pod ns2/gone has priority 7 from PriorityClass deleted, which no longer exists");
    KT_CHECK_CONTAINS(kp_inspection_warning(in, 1), "Pod ns2/nom is nominated to node node-b");
    KT_CHECK_CONTAINS(kp_inspection_warning(in, 2),
                      "ns2/term is terminating (deletionTimestamp set): it still holds its "
                      "resources; it is a preemption victim");
    KT_CHECK(kp_inspection_warning(in, 3) == NULL);
    kp_inspection_free(in);
    kp_inspection_free(NULL);
    kp_cluster_free(cl);
}

KT_TEST(unfinalized_cluster_is_rejected) {
    kp_cluster *cl = kp_cluster_new();
    kp_inspection *in = (kp_inspection *)1;
    kp_error err;
    KT_CHECK_INT(kp_inspection_new(cl, &in, &err), KP_EINVAL);
    KT_CHECK(in == NULL);
    kp_cluster_free(cl);
}

KT_TEST(percent_is_exact_and_saturates) {
    KT_CHECK_INT(kp_inspect_percent(3300, 3800), 86);
    KT_CHECK_INT(kp_inspect_percent(5, 0), 0);
    KT_CHECK_INT(kp_inspect_percent(5, -1), 0);
    KT_CHECK_INT(kp_inspect_percent(-29, 100), -29);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX, INT64_MAX), 100);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX, INT64_MAX / 2), 200);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX / 3, INT64_MAX), 33);
    KT_CHECK_INT(kp_inspect_percent(9000000000000000000, 9200000000000000000), 97);
    KT_CHECK_INT(kp_inspect_percent(100000000000000000, 300000000000000000), 33);
    KT_CHECK_INT(kp_inspect_percent(-100000000000000000, 300000000000000000), -33);
    KT_CHECK_INT(kp_inspect_percent(200000000000000000, 3), 6666666666666666666);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX / 100 + 1, 1), INT64_MAX);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX, 1), INT64_MAX);
    KT_CHECK_INT(kp_inspect_percent(INT64_MIN, 1), INT64_MIN);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX, 100), INT64_MAX);
    KT_CHECK_INT(kp_inspect_percent(INT64_MAX - 6, 100), INT64_MAX - 6);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 wide;
/* Against 128-bit arithmetic, over amounts of every magnitude: the exact quotient rounded toward
 * zero, or the int64 limit when it does not fit. */
KT_TEST(percent_matches_wide_arithmetic) {
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t a = (int64_t)(x >> (x & 63)) * ((x >> 8) & 1 ? -1 : 1);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t b = (int64_t)((x >> 1) >> (x & 63));
        if (b <= 0) continue;
        wide want = (wide)a * 100 / b;
        if (want > INT64_MAX) want = INT64_MAX;
        if (want < INT64_MIN) want = INT64_MIN;
        if (kp_inspect_percent(a, b) != (int64_t)want) {
            KT_CHECK_INT(kp_inspect_percent(a, b), (int64_t)want);
            break;
        }
    }
}
#else
KT_TEST(percent_matches_wide_arithmetic) {}
#endif

/* A node whose requests dwarf its allocatable: the percentages saturate (the old (int) cast of
 * requested * 100 wrapped) and the table prints them. */
KT_TEST(huge_quantities_saturate) {
    kp_cluster *cl = load(NODE("tiny", "1m", "1", "") POD(
        "d", "huge",
        "  nodeName: tiny\n  containers: [{name: c, "
        "resources: {requests: {cpu: \"9000000000000000\", memory: 7Ei}}}]\n",
        "  phase: Running\n"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_inspection *in = NULL;
    KT_CHECK_INT(kp_inspection_new(cl, &in, NULL), KP_OK);
    const kp_inspect_node *n = kp_inspection_node(in, 0);
    KT_CHECK_INT(n->requested_cpu_milli, 9000000000000000000);
    KT_CHECK_INT(n->percent_cpu, INT64_MAX);
    KT_CHECK_INT(n->percent_memory, INT64_MAX);
    FILE *f = tmpfile();
    KT_CHECK_INT(kp_render_inspection(f, in, KP_OUT_TABLE), KP_OK);
    char buf[4096] = "";
    rewind(f);
    buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
    KT_CHECK_CONTAINS(buf, "9P/1m (9223372036854775807%)");
    KT_CHECK_CONTAINS(buf, "7Ei/1 (9223372036854775807%)");
    fclose(f);
    kp_inspection_free(in);
    kp_cluster_free(cl);
}

/* Every allocation of kp_inspection_new and of the renderer may fail: KP_ENOMEM comes back, no
 * inspection is returned, and nothing is written. */
KT_TEST(out_of_memory_reaches_the_caller) {
    kp_cluster *cl = load(CLUSTER);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    for (int fmt = KP_OUT_TABLE; fmt <= KP_OUT_YAML; fmt++) {
        bool done = false;
        for (long n = 0; n < 10000 && !done; n++) {
            FILE *f = tmpfile();
            kp_inspection *in = NULL;
            kp_error err;
            kp_error_clear(&err);
            unsigned long before = kp__alloc_count();
            kp__alloc_fail_after(n, false);
            kp_status st = kp_inspection_new(cl, &in, &err);
            if (st == KP_OK) st = kp_render_inspection(f, in, (kp_outfmt)fmt);
            kp__alloc_fail_after(-1, false);
            if (kp__alloc_count() - before <= (unsigned long)n) { /* no allocation failed */
                KT_CHECK_INT(st, KP_OK);
                done = true;
            } else {
                KT_CHECK_INT(st, KP_ENOMEM);
                KT_CHECK(in != NULL || err.code == KP_ENOMEM);
                KT_CHECK_INT(ftell(f), 0);
            }
            kp_inspection_free(in);
            fclose(f);
        }
        KT_CHECK(done);
    }
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(rows_sorted_and_counted), KT_CASE(unfinalized_cluster_is_rejected),
        KT_CASE(percent_is_exact_and_saturates), KT_CASE(percent_matches_wide_arithmetic),
        KT_CASE(huge_quantities_saturate), KT_CASE(out_of_memory_reaches_the_caller))
