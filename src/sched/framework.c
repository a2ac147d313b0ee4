/* The scheduler state's accessors that preemption uses, and the list of bound pods carrying pod
 * (anti-)affinity (upstream's snapshot HavePodsWithAffinityList). */
#include "sched/framework.h"

#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"


void kp__sched_use_profile(kp_sched *s, uint32_t pod) {
    if (s->n_prof == 1) return; /* one profile: always the active one */
    int32_t i = kp__sched_profile_of(s, &s->cl->pods[pod]);
    kp__sched_activate(s, i < 0 ? 0 : (uint32_t)i);
}

void kp__sched_activate(kp_sched *s, uint32_t k) {
    if (k == s->cur) return;
    const kp_sched_profile *p = &s->prof[k];
    s->cur = k;
    s->cfg = p->cfg;
    s->sched_name = p->name;
    s->postfilter_dra = p->postfilter_dra;
    memcpy(s->fit_res_idx, p->fit_res_idx, sizeof s->fit_res_idx);
    memcpy(s->bal_res_idx, p->bal_res_idx, sizeof s->bal_res_idx);
    memcpy(s->ignored_res, p->ignored_res, sizeof s->ignored_res);
    s->def = p->def;
}

kp_cluster *kp__sched_cluster(kp_sched *s) { return s->cl; }
kp_prng *kp__sched_prng(kp_sched *s) { return &s->prng; }

void kp__sched_preemption_args(const kp_sched *s, int32_t *min_pct, int32_t *min_abs) {
    *min_pct = s->cfg.min_candidate_pct;
    *min_abs = s->cfg.min_candidate_abs;
}

uint32_t kp__sched_affinity_pod_bound(const kp_sched *s) { return s->n_aff_pods; }

void **kp__sched_preempt_cache(kp_sched *s) { return &s->preempt_cache; }

kp_status kp__sched_track_affinity_pod(kp_sched *s, uint32_t pod) {
    void *np = s->aff_pods;
    if (!kp__grow32(&np, &s->cap_aff_pods, (size_t)s->n_aff_pods + 1, sizeof *s->aff_pods, 64))
        return KP_ENOMEM;
    s->aff_pods = np;
    s->aff_pods[s->n_aff_pods++] = pod;
    return KP_OK;
}
