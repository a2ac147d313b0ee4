/* `kprio simulate` (kprio/sim.h): the clock, the timed-event heap, the event log and the run
 * loop. Each step plays one instant: every timer due then (scenario actions, grace periods that
 * end, queue flushes, lifetimes), then the controllers' syncs, then the scheduler pops pods
 * until its queue has nothing ready, as kube-scheduler's ScheduleOne loop does between
 * events. Virtual time only: the wall clock is never read. */
#include <stdio.h>
#include <string.h>

#include "base/civil.h"
#include "sim/sim_internal.h"

void kp_sim_options_init(kp_sim_options *o) {
    memset(o, 0, sizeof *o);
    o->pod_initial_backoff_ms = 1000; /* podInitialBackoffSeconds */
    o->pod_max_backoff_ms = 10000; /* podMaxBackoffSeconds */
    o->max_in_unschedulable_ms = 5 * 60 * 1000; /* podMaxInUnschedulablePodsDuration */
    o->flush_unschedulable_every_ms = 30 * 1000; /* flushUnschedulablePodsLeftover period */
    o->flush_backoff_every_ms = 1000; /* flushBackoffQCompleted period */
    o->sample_every_ms = 10000; /* the time series' step (docs/simulate.md "Samples") */
}

/* ---------------------------------------------------------------- create / free */

/* The minor version of a --compat value kp_sched_new has accepted ("[v]1.MINOR[.PATCH]"). */
static int compat_minor(const char *v) {
    if (*v == 'v') v++;
    int minor = 0;
    if (strncmp(v, "1.", 2) != 0) return 0;
    for (v += 2; *v >= '0' && *v <= '9'; v++) minor = minor * 10 + (*v - '0');
    return minor;
}

static int64_t snapshot_epoch(const kp_cluster *cl) {
    int64_t e = 0;
    for (size_t i = 0; i < kp_cluster_pod_count(cl); i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(cl, (kp_index)i, &pi);
        if (pi.creation_ts != KP_TIME_UNSET && pi.creation_ts > e) e = pi.creation_ts;
        if (pi.deletion_ts != KP_TIME_UNSET && pi.deletion_ts > e) e = pi.deletion_ts;
    }
    return e;
}

/* t = 0: pending pods enter the queue, terminating ones end their grace period, the scenario's
 * actions are planned, the controllers look once, every PDB's status is recounted. */
static kp_status start(kp_sim *s, kp_error *err) {
    kp_status st = kp__sim_grow_pods(s);
    for (size_t i = 0; st == KP_OK && i < s->n_pods; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, (kp_index)i, &pi);
        if (pi.deleted || pi.terminal) continue;
        if (pi.deletion_ts != KP_TIME_UNSET) {
            int64_t t = (pi.deletion_ts + pi.grace_seconds - s->epoch) * 1000;
            st = kp__sim_timer_add(s, t, SIM_EV_POD_GONE, (int64_t)i, 0);
        } else if (pi.node < 0 && kp_sched_serves(s->sched, (kp_index)i)) {
            st = kp__sim_enqueue_new(s, (uint32_t)i);
        }
    }
    for (size_t i = 0; st == KP_OK && s->sc && i < s->sc->n_actions; i++)
        st = kp__sim_timer_add(s, s->sc->actions[i].at_ms, SIM_EV_ACTION, (int64_t)i, 0);
    if (st == KP_OK) st = kp__sim_index_workloads(s);
    /* nodeMonitorGracePeriod: 50 s since v1.32, 40 s before */
    if (st == KP_OK && s->o.compat && compat_minor(s->o.compat) < 32)
        kp_ctrl_set_node_monitor_grace(s->ctrl, 40000);
    if (st == KP_OK && (st = kp__sim_node_lifecycle_start(s, err)) != KP_OK) return st;
    if (st == KP_OK && (st = kp__sim_cron_start(s, err)) != KP_OK) return st;
    if (st == KP_OK && (st = kp__sim_claims_start(s, err)) != KP_OK) return st;
    if (st == KP_OK && (st = kp__sim_ready_start(s, err)) != KP_OK) return st;
    /* the disruption controller's view from the first instant: a snapshot's PDB status may be
     * stale (pods listed after it was written); every PDB is recounted from the pods */
    for (size_t i = 0; st == KP_OK && i < kp_cluster_pdb_count(s->cl); i++)
        if ((st = kp__sim_pdb_recount(s, (kp_index)i, err)) != KP_OK) return st;
    if (st != KP_OK) return kp_error_set(err, st, "simulate: out of memory");
    return KP_OK;
}

kp_status kp_sim_new(kp_cluster *cl, const kp_sched_config *cfg, const kp_scenario *scenario,
                     const kp_sim_options *opt, kp_sim **out, kp_error *err) {
    *out = NULL;
    kp_sim *s = kp_calloc(1, sizeof *s);
    if (!s) return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
    s->cl = cl;
    s->sc = scenario;
    if (opt) s->o = *opt;
    else kp_sim_options_init(&s->o);
    int64_t newest = snapshot_epoch(cl);
    if (s->o.has_start && s->o.start_unix < newest) {
        char a[40], b[40];
        kp__rfc3339_utc(s->o.start_unix, a, sizeof a);
        kp__rfc3339_utc(newest, b, sizeof b);
        kp_free(s);
        return kp_error_set(err, KP_EINVAL,
                            "start: %s is before the snapshot's newest timestamp %s: its pods "
                            "cannot be younger than the simulation",
                            a, b);
    }
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = s->o.has_seed ? s->o.seed : scenario && scenario->has_seed ? scenario->seed : 0;
    so.compat = s->o.compat;
    kp_status st = kp_sched_new(cl, cfg, &so, &s->sched, err);
    if (st != KP_OK) {
        kp_free(s);
        return st;
    }
    /* SchedulerPopFromBackoffQ: beta and on by default since v1.33; the cluster's gate when set */
    bool v133 = !s->o.compat || compat_minor(s->o.compat) >= 33;
    const kp_feature_gates *g = kp_cluster_feature_gates(cl);
    s->pop_from_backoff = g && g->set[KP_GATE_SCHEDULER_POP_FROM_BACKOFF_Q]
                              ? g->on[KP_GATE_SCHEDULER_POP_FROM_BACKOFF_Q]
                              : v133;
    /* kubernetes#129058 (v1.33.0): nomination changes requeue; before, the status update of a
     * pod that lost its nomination was ignored by the queue */
    s->nomination_moves = v133;
    int64_t dur = s->o.duration_ms;
    if (!dur && scenario && scenario->has_duration) dur = scenario->duration_ms;
    s->has_duration = dur > 0;
    s->end = dur > 0 ? dur : KP_SIM_MAX_DURATION_MS;
    s->epoch = s->o.has_start ? s->o.start_unix : newest;
    s->end_reason = "";
    s->c.longest_wait_pod = -1;
    kp_sched_set_time(s->sched, s->epoch);
    if ((st = start(s, err)) != KP_OK) {
        kp_sim_free(s);
        return st;
    }
    if ((st = kp__sim_kubelets_start(s, err)) != KP_OK ||
        (st = kp__sim_admit_start(s, err)) != KP_OK) {
        kp_sim_free(s);
        return st;
    }
    s->started = true;
    *out = s;
    return KP_OK;
}

void kp_sim_free(kp_sim *s) {
    if (!s) return;
    kp__sim_kubelets_free(s);
    kp__sim_admit_free(s);
    kp_sched_free(s->sched);
    kp_free(s->timers);
    kp_free(s->fifo);
    kp__sim_pheap_free(&s->active);
    kp__sim_pheap_free(&s->backoff);
    kp_free(s->unsched);
    kp_free(s->pods);
    kp_ctrl_free(s->ctrl);
    kp_free(s->events);
    for (size_t i = 0; i < s->n_chunks; i++) kp_free(s->chunks[i]);
    kp_free(s->chunks);
    kp__sim_drains_free(s);
    kp_free(s->node_failed);
    kp_free(s->samples);
    kp__sim_pdb_spans_free(s);
    kp__sim_dra_free(s);
    kp_free(s);
}

/* ---------------------------------------------------------------- the run */

static kp_status play_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    switch ((sim_ev_kind)t->kind) {
    case SIM_EV_ACTION: return kp__sim_apply_action(s, (size_t)t->arg, err);
    case SIM_EV_POD_GONE: /* a failed node's kubelet never confirms it (kp__sim_node_kubelet) */
        if (kp__sim_node_failed(s, kp_cluster_pod_node(s->cl, (kp_index)t->arg))) return KP_OK;
        return kp__sim_pod_gone(s, (uint32_t)t->arg, NULL, err);
    case SIM_EV_NODE_MONITOR: return kp__sim_node_monitor(s, (kp_index)t->arg, err);
    case SIM_EV_LIFETIME:
        if (kp__sim_node_failed(s, kp_cluster_pod_node(s->cl, (kp_index)t->arg))) return KP_OK;
        return kp__sim_pod_finished(s, (uint32_t)t->arg, KP_POD_PHASE_SUCCEEDED, "Completed", NULL,
                                    false, err);
    case SIM_EV_DRAIN_RETRY: return kp__sim_drain_step(s, (kp_index)t->arg, err);
    case SIM_EV_WORKLOAD_SYNC:
    case SIM_EV_WORKLOAD_CHECK: return kp__sim_mark_workload(s, t->arg, err);
    case SIM_EV_KUBELET:
    case SIM_EV_KUBELET_IDLE: return kp__sim_kubelet_timer(s, (kp_index)t->arg, err);
    case SIM_EV_ADMIT:
    case SIM_EV_ADMIT_KILLED: return kp__sim_admit_timer(s, t, err);
    case SIM_EV_TAINT_EVICT: return kp__sim_taint_timer(s, t, err);
    case SIM_EV_CRON: return kp__sim_cron_timer(s, t, err);
    case SIM_EV_READY: return kp__sim_ready_timer(s, t, err);
    case SIM_EV_CLAIM_RETRY: return kp__sim_claim_retry(s, (kp_index)t->arg, err);
    case SIM_EV_FLUSH_UNSCHED:
    case SIM_EV_BACKOFF_DONE: {
        kp_status st = kp__sim_queue_timer(s, t);
        return st == KP_OK ? KP_OK : kp_error_set(err, st, "simulate: out of memory");
    }
    }
    return KP_OK;
}

static bool quiet(const kp_sim *s) {
    return s->n_real_timers == 0 && s->active.n == 0 && s->backoff.n == 0 &&
           !kp_ctrl_queued(s->ctrl) && kp__sim_kubelets_settled(s);
}

static kp_status finish(kp_sim *s, const char *why, kp_error *err) {
    s->ended = true;
    s->end_reason = why;
    kp_sim_counters *c = &s->c;
    c->pending_at_end = c->gated_at_end = 0;
    for (size_t i = 0; i < s->n_pods; i++) {
        if (kp__sim_pod_state(s, (uint32_t)i) != KP_SIM_POD_PENDING) continue;
        if (s->pods[i].q == SIM_Q_GATED) c->gated_at_end++;
        else c->pending_at_end++;
    }
    if (kp__sim_sample_until(s, s->now + 1) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
    return KP_OK;
}

kp_status kp_sim_step(kp_sim *s, bool *more, kp_error *err) {
    char buf[32];
    *more = false;
    if (s->ended) return KP_OK;
    if (s->stepped && quiet(s) && !s->has_duration) return finish(s, "quiet", err);
    if (s->stepped) {
        const sim_timer *nt = kp__sim_timer_next(s);
        int64_t next = !nt || nt->t > s->end ? s->end : nt->t;
        if (kp__sim_sample_until(s, next) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        if (!nt || nt->t > s->end) {
            s->now = s->end;
            return finish(s, s->has_duration ? "duration" : "cap", err);
        }
        if (nt->t != s->now) s->rounds = 0;
        s->now = nt->t;
    }
    s->stepped = true;
    /* a round at the same instant again: something made work due now (a pod that ended as it
     * started and was replaced at once); with the clock standing still that could go on for ever */
    uint64_t max =
        s->o.max_rounds_per_instant ? s->o.max_rounds_per_instant : KP_SIM_MAX_ROUNDS_PER_INSTANT;
    if (++s->rounds > max)
        return kp_error_set(err, KP_ELIMIT,
                            "simulate: at %s: more than %llu rounds within one instant "
                            "(KP_SIM_MAX_ROUNDS_PER_INSTANT, kprio's limit): pods end as they "
                            "start and are replaced at once (a lifetime of 0s on a controller's "
                            "pods?)",
                            (kp_duration_format(s->now * 1000000, buf, sizeof buf), buf),
                            (unsigned long long)max);
    kp_sched_set_time(s->sched, s->epoch + s->now / 1000);
    kp_status st = KP_OK;
    for (const sim_timer *nt; st == KP_OK && (nt = kp__sim_timer_next(s)) && nt->t <= s->now;) {
        sim_timer t = kp__sim_timer_pop(s);
        st = play_timer(s, &t, err);
    }
    if (st == KP_OK) st = kp__sim_sync_controllers(s, err);
    if (st == KP_OK) st = kp__sim_schedule_pending(s, err);
    *more = st == KP_OK;
    return st;
}

kp_status kp_sim_run_until(kp_sim *s, int64_t t_ms, kp_error *err) {
    bool more = true;
    const sim_timer *nt;
    while (more && !s->ended &&
           (!s->stepped || ((nt = kp__sim_timer_next(s)) && nt->t <= t_ms) ||
            (quiet(s) && !s->has_duration))) {
        kp_status st = kp_sim_step(s, &more, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

kp_status kp_sim_run(kp_sim *s, kp_error *err) {
    bool more = true;
    while (more && !s->ended) {
        kp_status st = kp_sim_step(s, &more, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- results */

int64_t kp_sim_now(const kp_sim *s) { return s->now; }
int64_t kp_sim_epoch(const kp_sim *s) { return s->epoch; }
const char *kp_sim_end_reason(const kp_sim *s) { return s->end_reason; }
kp_cluster *kp_sim_cluster(const kp_sim *s) { return s->cl; }
size_t kp_sim_event_count(const kp_sim *s) { return s->n_events; }
const kp_sim_event *kp_sim_event_get(const kp_sim *s, size_t i) {
    return i < s->n_events ? &s->events[i] : NULL;
}
size_t kp_sim_pod_count(const kp_sim *s) { return s->n_pods; }
const char *kp_sim_pod_state_name(kp_sim_pod_state st) {
    static const char *const N[] = {"Pending",   "Bound",  "Terminating",
                                    "Succeeded", "Failed", "Deleted"};
    return (unsigned)st < sizeof N / sizeof N[0] ? N[st] : "?";
}
const char *kp_sim_disruption_name(kp_sim_disruption d) {
    static const char *const N[KP_SIM_N_DISRUPT] = {"preemption",  "nodePressure", "admission",
                                                    "evictionAPI", "taintManager", "deletion"};
    return (unsigned)d < KP_SIM_N_DISRUPT ? N[d] : "?";
}
const char *kp_sim_disruption_title(kp_sim_disruption d) {
    static const char *const N[KP_SIM_N_DISRUPT] = {
        "scheduler preemption", "kubelet node pressure",     "kubelet admission",
        "Eviction API (drain)", "taint manager (NoExecute)", "deletion"};
    return (unsigned)d < KP_SIM_N_DISRUPT ? N[d] : "?";
}
const kp_sim_pod *kp_sim_pod_get(const kp_sim *s, size_t i) {
    return i < s->n_pods ? kp__sim_pod_view(s, (uint32_t)i) : NULL;
}
void kp_sim_counters_get(const kp_sim *s, kp_sim_counters *out) { *out = s->c; }
size_t kp_sim_sample_count(const kp_sim *s) { return s->n_samples; }
const kp_sim_sample *kp_sim_sample_get(const kp_sim *s, size_t i) {
    return i < s->n_samples ? &s->samples[i] : NULL;
}
int64_t kp_sim_sample_step(const kp_sim *s) { return s->o.sample_every_ms; }
