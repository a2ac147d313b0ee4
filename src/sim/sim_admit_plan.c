/* Planning the kubelets' admission (docs/simulate.md "Kubelets: admission") and choosing a
 * node's kubelet configuration by node pool: the small part of sim_admit.c the pod lifecycle
 * (sim_ctrl.c) and the eviction managers (sim_kubelet.c) call, kept apart so that no two files
 * call each other. A bound pod is seen by its kubelet KP__SIM_ADMIT_DELAY_MS later: a stand-in
 * for the watch, the config channel and the pod worker; without it a reject -> replace ->
 * schedule -> bind -> reject loop would spin inside one instant, with it the loop turns once
 * per delay (as upstream's does, bounded by the run's duration). */
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_internal.h"

const kp_evict_config *kp__sim_kubelet_config(const kp_sim *s, kp_index node,
                                              const kp_evict_config *dflt) {
    for (size_t i = 0; i < s->o.n_kubelet_pools; i++) {
        const kp_sim_kubelet_pool *p = &s->o.kubelet_pools[i];
        if (kp_cluster_node_matches(s->cl, node, p->reqs, p->n_reqs)) return p->config;
    }
    return dflt;
}

/* The pod is bound but its kubelet has not seen it: left out of other admissions until then. */
static kp_status mark_unseen(kp_sim *s, size_t pod) {
    sim_admit *m = &s->adm;
    if (pod >= m->n_unseen) {
        size_t old = m->n_unseen;
        if (!kp__grow((void **)&m->unseen, &m->n_unseen, pod + 1, 1, 64)) return KP_ENOMEM;
        memset(m->unseen + old, 0, m->n_unseen - old);
    }
    m->unseen[pod] = 1;
    return KP_OK;
}

kp_status kp__sim_admit_bound(kp_sim *s, uint32_t pod) {
    if (!s->kub || pod >= s->n_pods) return KP_OK;
    if (mark_unseen(s, pod) != KP_OK) return KP_ENOMEM;
    sim_pod *p = &s->pods[pod];
    if (p->pub.bound_ms < 0) { /* it named its node at creation */
        p->pub.bound_ms = s->now;
        p->pub.node = kp_cluster_pod_node(s->cl, pod);
    }
    return kp__sim_timer_add(s, s->now + KP__SIM_ADMIT_DELAY_MS, SIM_EV_ADMIT, pod, 0);
}

/* t = 0: pods of the snapshot bound to a node but not started (phase Pending) are the
 * kubelet's to admit; running ones were admitted before the snapshot. */
kp_status kp__sim_admit_start(kp_sim *s, kp_error *err) {
    if (!s->kub) return KP_OK;
    for (size_t i = 0; i < s->n_pods; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, (kp_index)i, &pi);
        if (pi.deleted || pi.terminal || pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET ||
            pi.phase != KP_POD_PHASE_PENDING)
            continue;
        if (mark_unseen(s, i) != KP_OK ||
            kp__sim_timer_add(s, KP__SIM_ADMIT_DELAY_MS, SIM_EV_ADMIT, (int64_t)i, 0) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory");
    }
    return KP_OK;
}
