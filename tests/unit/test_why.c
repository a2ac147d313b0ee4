/* kp_why_evaluate (kprio/why.h): the `kprio why` answer through the public API, on the case of
 * tests/golden/preempt-why; a snapshot with other pods is an error; every allocation failure
 * inside the evaluation ends in KP_ENOMEM (never a different answer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/why.h"

#define CASE "tests/golden/preempt-why/cluster.yaml"

static kp_cluster *load(const char *path) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    if (kp_cluster_load_path(cl, path, false, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_status evaluate(kp_why **w, kp_cluster **run, kp_cluster **snap, kp_error *err) {
    *run = load(CASE);
    *snap = load(CASE);
    if (!*run || !*snap) return KP_EIO;
    kp_preempt_options po;
    kp_preempt_options_init(&po);
    po.seed = 1;
    return kp_why_evaluate(*run, *snap, kp_cluster_find_pod(*run, "default/mid-pod3"), &po, w, err);
}

KT_TEST(why_answers_the_golden_case) {
    kp_cluster *run, *snap;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(evaluate(&w, &run, &snap, &err), KP_OK);
    if (!w) return;
    const kp_why_answer *a = kp_why_get(w);
    KT_CHECK(a->preempted);
    KT_CHECK_INT(a->preemptor, kp_cluster_find_pod(snap, "default/p"));
    KT_CHECK_INT(a->n_victims, 1);
    KT_CHECK_INT(a->victims[0], kp_cluster_find_pod(snap, "default/mid-pod3"));
    KT_CHECK_STR(a->decided_by, "only candidate");
    KT_CHECK(a->pdb_evaluated && a->pdb_spares);
    KT_CHECK_INT(a->n_alt_victims, 1);
    KT_CHECK_INT(a->alt_victims[0], kp_cluster_find_pod(snap, "default/low-pod2"));
    kp_why_free(w);
    kp_cluster_free(run);
    kp_cluster_free(snap);
}

/* Two preemptors in one run (tests/golden/preempt-why-two-preemptors): the PDB what-if replays
 * the run, so "first"'s nomination and its terminating victim "z" are there when "second"
 * decides. */
KT_TEST(why_what_if_replays_the_run_up_to_the_decision) {
    const char *path = "tests/golden/preempt-why-two-preemptors/cluster.yaml";
    kp_cluster *run = load(path), *snap = load(path);
    KT_CHECK(run && snap);
    if (!run || !snap) return;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_why_evaluate(run, snap, kp_cluster_find_pod(run, "default/t"), NULL, &w, &err),
                 KP_OK);
    const kp_why_answer *a = w ? kp_why_get(w) : NULL;
    KT_CHECK(a && a->preempted);
    if (a) {
        KT_CHECK_INT(a->preemptor, kp_cluster_find_pod(snap, "default/second"));
        KT_CHECK_STR(a->decided_by, "only candidate");
        KT_CHECK_INT(a->n_victims, 2);
        KT_CHECK(a->pdb_evaluated && a->pdb_spares);
        KT_CHECK_INT(a->pdb_alt_node, kp_cluster_find_node(snap, "node-1"));
        KT_CHECK_INT(a->n_alt_victims, 2);
        if (a->n_alt_victims == 2) {
            KT_CHECK_INT(a->alt_victims[0], kp_cluster_find_pod(snap, "default/a"));
            KT_CHECK_INT(a->alt_victims[1], kp_cluster_find_pod(snap, "default/z"));
        }
    }
    kp_why_free(w);
    kp_cluster_free(run);
    kp_cluster_free(snap);
}

KT_TEST(why_snapshot_must_hold_the_same_pods) {
    kp_cluster *run = load(CASE), *other = load("examples/cluster.yaml");
    KT_CHECK(run && other);
    if (!run || !other) return;
    kp_why *w = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_pod_count(run) != kp_cluster_pod_count(other)) {
        KT_CHECK_INT(kp_why_evaluate(run, other, 0, NULL, &w, &err), KP_EINVAL);
        KT_CHECK(w == NULL);
    }
    kp_cluster_free(run);
    kp_cluster_free(other);
}

KT_TEST(why_allocation_failures_are_enomem) {
    int hit = 0, ok_streak = 0; /* past the last allocation every run succeeds */
    for (long n = 0; n < 100000 && ok_streak < 20; n++) {
        kp_cluster *run = load(CASE), *snap = load(CASE);
        KT_CHECK(run && snap);
        if (!run || !snap) return;
        kp_why *w = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_preempt_options po;
        kp_preempt_options_init(&po);
        po.seed = 1;
        kp_index pod = kp_cluster_find_pod(run, "default/mid-pod3");
        kp__alloc_fail_after(n, true);
        kp_status st = kp_why_evaluate(run, snap, pod, &po, &w, &err);
        kp__alloc_fail_after(-1, false);
        bool done = st == KP_OK;
        if (!done) {
            KT_CHECK_INT(st, KP_ENOMEM);
            KT_CHECK(w == NULL);
            hit++;
        } else {
            KT_CHECK(kp_why_get(w)->preempted && kp_why_get(w)->pdb_spares);
        }
        kp_why_free(w);
        kp_cluster_free(run);
        kp_cluster_free(snap);
        ok_streak = done ? ok_streak + 1 : 0;
        if (!done && st != KP_ENOMEM) break;
    }
    KT_CHECK(hit > 0);
}

KT_MAIN(KT_CASE(why_answers_the_golden_case),
        KT_CASE(why_what_if_replays_the_run_up_to_the_decision),
        KT_CASE(why_snapshot_must_hold_the_same_pods), KT_CASE(why_allocation_failures_are_enomem))
