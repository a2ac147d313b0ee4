/* Readiness in the simulation (docs/simulate.md "Readiness", docs/scenario.md "Readiness"): the
 * simulated kubelet's prober and status manager as far as the controllers read them. A pod whose
 * containers start becomes Ready (the Ready and ContainersReady conditions, written through
 * kp_cluster_pod_set_ready) after the time the scenario's first matching readiness[] entry
 * gives, else after its probes' initialDelaySeconds (kp_cluster_pod_probe_delay: the prober's
 * first readiness probe runs then and, in the model, succeeds), at once without probes. A
 * container the kubelet restarts (an OOM kill) makes the pod not Ready again for the same time.
 * Each change syncs the pod's controller and recounts the PDBs that select it (the disruption
 * controller counts Ready pods). */
#include <string.h>

#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

const kp_scenario_lifetime *kp__sim_first_match(const kp_sim *s, const kp_scenario_lifetime *l,
                                                size_t n, uint32_t pod) {
    for (size_t i = 0; i < n; i++) {
        if (l[i].ns && *l[i].ns && strcmp(l[i].ns, kp_cluster_pod_namespace(s->cl, pod)) != 0)
            continue;
        if (kp_cluster_pod_matches(s->cl, pod, l[i].reqs, l[i].n_reqs)) return &l[i];
    }
    return NULL;
}

/* ms from the start of the pod's containers to its Ready */
int64_t kp__sim_ready_delay_ms(const kp_sim *s, uint32_t pod) {
    const kp_scenario_lifetime *l =
        s->sc ? kp__sim_first_match(s, s->sc->readiness, s->sc->n_readiness, pod) : NULL;
    if (l) return l->after_ms;
    int64_t sec = kp_cluster_pod_probe_delay(s->cl, (kp_index)pod);
    return sec > INT64_MAX / 1000 ? INT64_MAX : sec * 1000;
}

kp_status kp__sim_ready_plan(kp_sim *s, uint32_t pod, int64_t from_ms, kp_error *err) {
    if (kp__sim_grow_pods(s) != KP_OK) return nomem(err);
    sim_pod *p = &s->pods[pod];
    int64_t d = kp__sim_ready_delay_ms(s, pod),
            at = from_ms > INT64_MAX - d ? INT64_MAX : from_ms + d;
    p->ready_gen++;
    if (at <= s->now) { /* Ready at once */
        kp_status st = kp_cluster_pod_set_ready(s->cl, pod, true, s->epoch + s->now / 1000, err);
        if (st == KP_OK && p->pub.ready_ms < 0) p->pub.ready_ms = s->now;
        return st;
    }
    /* the kubelet's first status: containers started, not ready (ContainersNotReady) */
    kp_status st = kp_cluster_pod_set_ready(s->cl, pod, false, s->epoch + s->now / 1000, err);
    if (st != KP_OK) return st;
    return kp__sim_timer_add(s, at, SIM_EV_READY, pod, p->ready_gen) == KP_OK ? KP_OK : nomem(err);
}

/* t = 0: the snapshot's pods bound to a node, running or about to, and not Ready: Ready the
 * modelled time after their startTime (t = 0 when they have none, or it is later). */
kp_status kp__sim_ready_start(kp_sim *s, kp_error *err) {
    if (kp__sim_grow_pods(s) != KP_OK) return nomem(err);
    for (size_t i = 0; i < s->n_pods; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, (kp_index)i, &pi);
        if (pi.deleted || pi.terminal || pi.node < 0 || pi.ready) continue;
        int64_t started = pi.start_time;
        int64_t from = started == KP_TIME_UNSET || started >= s->epoch
                           ? 0
                           : (started - s->epoch) * 1000; /* before t = 0 */
        kp_status st = kp__sim_ready_plan(s, (uint32_t)i, from, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}
