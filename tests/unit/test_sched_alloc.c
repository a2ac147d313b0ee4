/* Allocation failures in the scheduler and preemption reach the caller (rule 4 of issue 16):
 * for golden clusters, every allocation of kp_sched_new + kp_sched_run is failed in turn; each
 * run must return KP_ENOMEM, or KP_OK with exactly the decisions of the run without failures
 * (a failure some path tolerates, e.g. the pod index falling back to a scan, must not change an
 * answer). Runs under ASan in `make test`, which also checks nothing leaks on the error paths. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"

static kp_cluster *load(const char *path) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    if (kp_cluster_load_path(cl, path, false, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  %s: %s\n", path, err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* The decisions of a run as text: pod, outcome, node, nominated node, victims. */
static void digest(const kp_sched *s, char *out, size_t cap) {
    size_t off = 0;
    out[0] = 0;
    for (size_t i = 0; i < kp_sched_result_count(s) && off < cap; i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (!r) continue;
        off += (size_t)snprintf(out + off, cap - off, "%ld:%d:%ld:%ld:", r->pod, (int)r->outcome,
                                r->node, r->nominated_node);
        for (size_t v = 0; v < r->n_victims && off < cap; v++)
            off += (size_t)snprintf(out + off, cap - off, "%ld,", r->victims[v]);
        if (off < cap) off += (size_t)snprintf(out + off, cap - off, "|");
    }
}

static kp_status run(const char *path, char *out, size_t cap, long fail_after,
                     unsigned long *n_alloc) {
    kp_cluster *cl = load(path);
    if (!cl) return KP_EINVAL;
    kp_error err;
    kp_error_clear(&err);
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 1;
    kp_sched *s = NULL;
    unsigned long before = kp__alloc_count();
    kp__alloc_fail_after(fail_after, false);
    kp_status st = kp_sched_new(cl, NULL, &o, &s, &err);
    if (st == KP_OK) st = kp_sched_run(s, &err);
    kp__alloc_fail_after(-1, false);
    if (n_alloc) *n_alloc = kp__alloc_count() - before;
    if (st == KP_OK) digest(s, out, cap);
    kp_sched_free(s);
    kp_cluster_free(cl);
    return st;
}

static void every_failure(const char *path) {
    static char ref[16384], got[16384];
    unsigned long total = 0;
    KT_CHECK_INT(run(path, ref, sizeof ref, -1, &total), KP_OK);
    KT_CHECK(total > 10);
    KT_CHECK(strlen(ref) > 0);
    int bad = 0;
    for (unsigned long n = 0; n < total && bad < 3; n++) {
        kp_status st = run(path, got, sizeof got, (long)n, NULL);
        if (st == KP_ENOMEM) continue;
        if (st != KP_OK || strcmp(got, ref) != 0) {
            fprintf(stderr, "  %s: allocation %lu failed: status %d, decisions %s\n", path, n,
                    (int)st, st == KP_OK ? "differ" : "-");
            bad++;
        }
    }
    KT_CHECK_INT(bad, 0);
}

KT_TEST(alloc_failures_preemption_with_anti_affinity) {
    every_failure("tests/golden/preempt-b17-anti-affinity/cluster.yaml");
}
KT_TEST(alloc_failures_preemption_with_pdbs) {
    every_failure("tests/golden/preempt-pdb-fewest-violations/cluster.yaml");
}
KT_TEST(alloc_failures_cascade) {
    every_failure("tests/golden/preempt-cascade-lowest-sum/cluster.yaml");
}

KT_MAIN(KT_CASE(alloc_failures_preemption_with_anti_affinity),
        KT_CASE(alloc_failures_preemption_with_pdbs), KT_CASE(alloc_failures_cascade))
