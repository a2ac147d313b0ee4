/* `kprio why` (kprio/why.h): the schedule simulated as `kprio schedule` does, then what-ifs with
 * the public preemption API against the snapshot as loaded: the baseline decision, and a
 * PodDisruptionBudget with no disruptions left covering the pod. Public API only. */
#include <string.h>

#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"

struct kp_why {
    kp_why_answer a;
    kp_preemption *names; /* the baseline decision on the snapshot */
    kp_index *victims, *alt_victims;
};

/* The preemptor that makes `pod` a victim in the simulated schedule (none: a stays "not
 * preempted"). KP_ENOMEM. */
static kp_status find_preemptor(const kp_sched *s, kp_index pod, kp_why *w) {
    kp_why_answer *a = &w->a;
    size_t i;
    const kp_sched_pod_result *r;
    if (kp_sched_result_find_preemptor(s, pod, &i) != KP_OK || !(r = kp_sched_result(s, i)))
        return KP_OK;
    a->preempted = true;
    a->preemptor = r->pod;
    a->preemptor_priority = r->priority;
    a->node = r->nominated_node >= 0 ? r->nominated_node : r->node;
    a->pdb_violations = r->pdb_violations;
    /* the answer outlives the scheduler the result borrows from: keep a copy of the victims */
    if (!(w->victims = kp_malloc((r->n_victims ? r->n_victims : 1) * sizeof *w->victims)))
        return KP_ENOMEM;
    for (size_t k = 0; k < r->n_victims; k++) w->victims[k] = r->victims[k];
    a->victims = w->victims;
    a->n_victims = r->n_victims;
    return KP_OK;
}

/* What-if: `pod` covered by a PDB with no disruptions left. An evaluation that fails for another
 * reason than memory leaves the what-if unevaluated. KP_ENOMEM. */
static kp_status what_if_pdb(kp_cluster *cl, kp_index pod, const kp_preempt_options *po,
                             kp_why *w) {
    kp_why_answer *a = &w->a;
    kp_preemption *alt = NULL;
    kp_preempt_options pp = *po;
    pp.protect_pod = pod;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_preemption_new(cl, a->preemptor, &pp, &alt, &err);
    if (st != KP_OK) return st == KP_ENOMEM ? KP_ENOMEM : KP_OK;
    a->pdb_evaluated = true;
    size_t n = kp_preemption_victim_count(alt);
    bool still = false;
    if (!(w->alt_victims = kp_malloc((n ? n : 1) * sizeof *w->alt_victims))) {
        kp_preemption_free(alt);
        return KP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        w->alt_victims[i] = kp_preemption_victim(alt, i);
        if (w->alt_victims[i] == pod) still = true;
    }
    a->pdb_spares = !still;
    a->pdb_alt_node =
        kp_preemption_outcome(alt) == KP_PREEMPTION_NOMINATED ? kp_preemption_node(alt) : -1;
    a->alt_victims = w->alt_victims;
    a->n_alt_victims = n;
    kp_preemption_free(alt);
    return KP_OK;
}

/* The what-ifs on the untouched snapshot (indices are identical: same inputs, same load order). */
static kp_status what_ifs(kp_cluster *snapshot, kp_index pod, const kp_preempt_options *po,
                          kp_why *w, kp_error *err) {
    kp_why_answer *a = &w->a;
    /* the baseline decision on the snapshot (names, cascade step) */
    kp_status st = kp_preemption_new(snapshot, a->preemptor, po, &w->names, err);
    if (st != KP_OK) return st;
    if (kp_preemption_node(w->names) == a->node) a->decided_by = kp_preemption_decided_by(w->names);
    if ((st = what_if_pdb(snapshot, pod, po, w)) != KP_OK)
        return kp_error_set(err, st, "out of memory");
    a->pod_priority = kp_cluster_pod_priority(snapshot, pod);
    return KP_OK;
}

kp_status kp_why_evaluate(kp_cluster *run_cl, kp_cluster *snapshot, kp_index pod,
                          const kp_preempt_options *o, kp_why **out, kp_error *err) {
    *out = NULL;
    kp_preempt_options po;
    if (o) po = *o;
    else kp_preempt_options_init(&po);
    if (kp_cluster_pod_count(snapshot) != kp_cluster_pod_count(run_cl))
        return kp_error_set(err, KP_EINVAL, "why: the snapshot does not hold the pods of the run");
    kp_why *w = kp_malloc(sizeof *w);
    if (!w) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memset(w, 0, sizeof *w);
    w->a.preemptor = w->a.node = w->a.pdb_alt_node = -1;
    w->a.decided_by = "";
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = po.seed;
    so.compat = po.compat;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(run_cl, po.config, &so, &s, err);
    if (st == KP_OK) st = kp_sched_run(s, err);
    if (st == KP_OK && (st = find_preemptor(s, pod, w)) != KP_OK)
        kp_error_set(err, st, "out of memory");
    kp_sched_free(s);
    if (st == KP_OK && w->a.preempted) st = what_ifs(snapshot, pod, &po, w, err);
    if (st != KP_OK) {
        kp_why_free(w);
        return st;
    }
    *out = w;
    return KP_OK;
}

const kp_why_answer *kp_why_get(const kp_why *w) { return &w->a; }

const kp_preemption *kp_why_names(const kp_why *w) { return w->names; }

void kp_why_free(kp_why *w) {
    if (!w) return;
    kp_free(w->victims);
    kp_free(w->alt_victims);
    kp_preemption_free(w->names);
    kp_free(w);
}
