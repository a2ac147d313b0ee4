/* `kprio why` (kprio/why.h): the schedule simulated as `kprio schedule` does, then the what-if
 * "a PodDisruptionBudget with no disruptions left covers the pod" as the same run replayed on the
 * snapshot with that protection in every preemption: pods bound, nominated or preempted before
 * the preemptor's attempt are there when it decides, as in the run. Both runs stop as soon as
 * the answer is settled (kp_sched_options.stop_when_settled): the first preemptor that makes the
 * pod a victim is found, or no pod left in the queue (priority order) can preempt it; the
 * what-if also waits for the preemptor's own attempt. Public API only. */
#include <string.h>

#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"

struct kp_why {
    kp_why_answer a;
    kp_index *victims, *alt_victims;
    kp_why_attach_block *blocked;
    kp_sched_pdb_use *pdbs;
};

/* The nodes where the preemptor's NodeVolumeLimits count cannot be helped by preemption (the
 * scheduler's rule, kp_sched_attach_slots_get, as --explain prints it). */
static kp_status attach_blocked(const kp_cluster *cl, kp_sched *s, kp_why *w, kp_error *err) {
    size_t nn = kp_cluster_node_count(cl), m = 0;
    kp_sched_attach_slots *slots = kp_malloc((nn ? nn : 1) * sizeof *slots);
    if (!slots) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp_sched_attach_slots_get(s, w->a.preemptor, slots, nn, err);
    for (size_t i = 0; st == KP_OK && i < nn; i++) m += slots[i].cannot_help;
    if (st == KP_OK && m && !(w->blocked = kp_malloc(m * sizeof *w->blocked)))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    m = 0;
    for (size_t i = 0; st == KP_OK && w->blocked && i < nn; i++) {
        if (!slots[i].cannot_help) continue;
        kp_why_attach_block *b = &w->blocked[m++];
        b->node = (kp_index)i;
        b->driver = slots[i].driver;
        b->held = slots[i].held;
        b->limit = slots[i].limit;
    }
    w->a.attach_blocked = w->blocked;
    w->a.n_attach_blocked = st == KP_OK ? m : 0;
    kp_free(slots);
    return st;
}

/* A copy of r's victims (the answer outlives the scheduler the result borrows from). */
static kp_status copy_victims(const kp_sched_pod_result *r, kp_index **out) {
    if (!(*out = kp_malloc((r->n_victims ? r->n_victims : 1) * sizeof **out))) return KP_ENOMEM;
    for (size_t k = 0; k < r->n_victims; k++) (*out)[k] = r->victims[k];
    return KP_OK;
}

/* The preemptor that makes `pod` a victim in the simulated schedule (none: a stays "not
 * preempted"), the node, its victims and the cascade step that chose the node. KP_ENOMEM. */
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
    a->decided_by = r->decided_by ? r->decided_by : "";
    if (copy_victims(r, &w->victims) != KP_OK) return KP_ENOMEM;
    a->victims = w->victims;
    a->n_victims = r->n_victims;
    return KP_OK;
}

/* The preemptor's result in a run (NULL when it was not attempted). */
static const kp_sched_pod_result *result_of(const kp_sched *s, kp_index pod) {
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (r && r->pod == pod) return r;
    }
    return NULL;
}

/* What-if: the same run on the snapshot, `pod` covered by a PDB with no disruptions left in
 * every preemption. The pod is spared when nobody preempts it then; the preemptor's own result
 * says where it goes and whom it preempts instead. */
static kp_status what_if_pdb(kp_cluster *snapshot, kp_index pod, const kp_preempt_options *po,
                             kp_why *w, kp_error *err) {
    kp_why_answer *a = &w->a;
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = po->seed;
    so.compat = po->compat;
    so.protect_pod = pod;
    so.stop_when_settled = true; /* settled: the preemptor attempted, and nobody else can */
    so.settle_pod = pod;
    so.settle_after = a->preemptor;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(snapshot, po->config, &so, &s, err);
    if (st == KP_OK) st = kp_sched_run(s, err);
    const kp_sched_pod_result *r = st == KP_OK ? result_of(s, a->preemptor) : NULL;
    if (r) {
        size_t i;
        a->pdb_evaluated = true;
        kp_sched_run_stats(s, &a->pdb_pods_attempted, NULL);
        a->pdb_spares = kp_sched_result_find_preemptor(s, pod, &i) != KP_OK;
        a->pdb_alt_node = r->outcome == KP_OUTCOME_NOMINATED ? r->nominated_node : -1;
        if ((st = copy_victims(r, &w->alt_victims)) != KP_OK)
            kp_error_set(err, st, "out of memory");
        a->alt_victims = w->alt_victims;
        a->n_alt_victims = w->alt_victims ? r->n_victims : 0;
    }
    kp_sched_free(s);
    return st;
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
    w->a.pod_priority = kp_cluster_pod_priority(snapshot, pod);
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = po.seed;
    so.compat = po.compat;
    so.stop_when_settled = true;
    so.settle_pod = pod;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(run_cl, po.config, &so, &s, err);
    if (st == KP_OK) st = kp_sched_run(s, err);
    if (st == KP_OK)
        w->a.stopped_early = kp_sched_run_stats(s, &w->a.pods_attempted, &w->a.pods_queued);
    if (st == KP_OK && (st = find_preemptor(s, pod, w)) != KP_OK)
        kp_error_set(err, st, "out of memory");
    if (st == KP_OK && w->a.preempted) st = attach_blocked(run_cl, s, w, err);
    if (st == KP_OK && w->a.preempted) { /* the PDBs of the pod, summed over the run so far */
        st = kp_sched_pdb_uses(s, pod, &w->pdbs, &w->a.n_pdbs, err);
        w->a.pdbs = w->pdbs;
    }
    kp_sched_free(s);
    if (st == KP_OK && w->a.preempted) st = what_if_pdb(snapshot, pod, &po, w, err);
    if (st != KP_OK) {
        kp_why_free(w);
        return st;
    }
    *out = w;
    return KP_OK;
}

const kp_why_answer *kp_why_get(const kp_why *w) { return &w->a; }

void kp_why_free(kp_why *w) {
    if (!w) return;
    kp_free(w->victims);
    kp_free(w->alt_victims);
    kp_free(w->blocked);
    kp_sched_pdb_uses_free(w->pdbs);
    kp_free(w);
}
