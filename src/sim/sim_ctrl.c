/* Pod lifecycle in the simulation, the glue to the controllers (kprio/ctrl.h, src/ctrl/: the
 * simulator tells the manager what changed and implements its sink), and the disruption
 * controller (PDB status recounted after every change of a pod it selects). Controllers act in
 * the instant of the change (their work queues take no virtual time). */
#include <stdio.h>
#include <string.h>

#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

/* ---------------------------------------------------------------- the controllers (src/ctrl/)
 * The simulator runs kprio/ctrl.h's manager: it tells it what changed (pods, nodes, workloads)
 * and plays what the controllers did (the sink below: the event log, grace periods, the queue,
 * resync timers). */

/* the pod whose loss an event follows from: the event that made it inactive */
static long cause_of(const kp_sim *s, kp_index pod) {
    return pod >= 0 && (size_t)pod < s->n_pods ? s->pods[pod].lost_ev : -1;
}

static long log_ctrl(kp_sim *s, const kp_ctrl_event *ev) {
    return kp__sim_log(s, ev->warning ? KP_SIM_WARNING : KP_SIM_NORMAL, ev->reason, ev->kind,
                       ev->ns, ev->name, ev->message, ev->pod, ev->node,
                       cause_of(s, ev->cause_pod));
}

static kp_status sink_event(void *ctx, const kp_ctrl_event *ev, kp_error *err) {
    return log_ctrl(ctx, ev) < 0 ? nomem(err) : KP_OK;
}

static kp_status sink_created(void *ctx, kp_index pod, kp_index replaces, const kp_ctrl_event *ev,
                              kp_error *err) {
    kp_sim *s = ctx;
    uint64_t max = s->o.max_created_pods ? s->o.max_created_pods : KP_SIM_MAX_CREATED_PODS;
    if (++s->ctrl_created > max) /* a scale to a billion replicas: an error, not hours of work */
        return kp_error_set(err, KP_ELIMIT,
                            "simulate: %s %s/%s: the controllers create more than %llu pods in "
                            "the run (KP_SIM_MAX_CREATED_PODS, kprio's limit)",
                            ev ? ev->kind : "?", ev ? ev->ns : "?", ev ? ev->name : "?",
                            (unsigned long long)max);
    if (ev && log_ctrl(s, ev) < 0) return nomem(err);
    return kp__sim_pod_added(s, (uint32_t)pod, replaces) == KP_OK ? KP_OK : nomem(err);
}

static kp_status sink_deleting(void *ctx, kp_index pod, const char *cause, const kp_ctrl_event *ev,
                               kp_error *err) {
    kp_sim *s = ctx;
    /* the taint-eviction controller deletes as the others do; its event names it */
    kp__sim_disrupted(s, pod,
                      ev && strcmp(ev->reason, "TaintManagerEviction") == 0
                          ? KP_SIM_DISRUPT_TAINT
                          : KP_SIM_DISRUPT_DELETION);
    long at = ev ? log_ctrl(s, ev) : -1;
    if (ev && at < 0) return nomem(err);
    return kp__sim_pod_terminating(s, (uint32_t)pod, cause, at, err);
}

static kp_status sink_deleted(void *ctx, kp_index pod, const kp_ctrl_event *ev, kp_error *err) {
    kp_sim *s = ctx;
    kp__sim_disrupted(s, pod, KP_SIM_DISRUPT_DELETION);
    if (ev && log_ctrl(s, ev) < 0) return nomem(err);
    return kp__sim_pod_gone(s, (uint32_t)pod, NULL, err);
}

/* a resync timer: a workload's (a Job's pod failure backoff), a CronJob's next scheduled time
 * (SIM_EV_CRON: it does not keep a run going), a pod's planned taint eviction (its generation:
 * a later plan makes the earlier timer stale) */
static kp_status sink_resync(void *ctx, int kind, kp_index obj, int64_t t_ms, kp_error *err) {
    kp_sim *s = ctx;
    kp_status st = KP_OK;
    switch ((kp_ctrl_resync_kind)kind) {
    case KP_CTRL_RESYNC_WORKLOAD:
        st = kp__sim_timer_add(s, t_ms, SIM_EV_WORKLOAD_SYNC, obj, 0);
        break;
    case KP_CTRL_RESYNC_CRONJOB: st = kp__sim_timer_add(s, t_ms, SIM_EV_CRON, obj, 0); break;
    case KP_CTRL_RESYNC_WORKLOAD_IDLE:
        st = kp__sim_timer_add(s, t_ms, SIM_EV_WORKLOAD_CHECK, obj, 0);
        break;
    case KP_CTRL_RESYNC_NODE: st = kp__sim_timer_add(s, t_ms, SIM_EV_NODE_MONITOR, obj, 0); break;
    case KP_CTRL_RESYNC_CLAIMS: st = kp__sim_timer_add(s, t_ms, SIM_EV_CLAIM_RETRY, obj, 0); break;
    case KP_CTRL_RESYNC_POD:
        if (obj < 0 || (size_t)obj >= s->n_pods) return KP_OK;
        st = kp__sim_timer_add(s, t_ms, SIM_EV_TAINT_EVICT, obj, ++s->pods[obj].taint_gen);
        break;
    }
    return st == KP_OK ? KP_OK : nomem(err);
}

static kp_ctrl_sink sink_of(kp_sim *s) {
    kp_ctrl_sink k = {s,           sink_event,           sink_created, sink_deleting, sink_deleted,
                      sink_resync, kp__sim_claim_changed};
    return k;
}

kp_status kp__sim_claims_start(kp_sim *s, kp_error *err) {
    if (kp__sim_dra_start(s) != KP_OK) return nomem(err);
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_resourceclaim_start(s->ctrl, s->now, &k, err);
}

kp_status kp__sim_index_workloads(kp_sim *s) {
    if (!(s->ctrl = kp_ctrl_new(s->cl))) return KP_ENOMEM;
    kp_ctrl_set_epoch(s->ctrl, s->epoch);
    /* generated claim names: the run's seed, a PRNG of their own (the scheduler's draws stay) */
    kp_ctrl_set_seed(s->ctrl, s->o.has_seed              ? s->o.seed
                              : s->sc && s->sc->has_seed ? s->sc->seed
                                                         : 0);
    return KP_OK;
}

kp_status kp__sim_grow_workloads(kp_sim *s) { return kp_ctrl_workload_changed(s->ctrl, -1); }

kp_status kp__sim_mark_workload(kp_sim *s, int64_t wl, kp_error *err) {
    return kp_ctrl_workload_changed(s->ctrl, (kp_index)wl) == KP_OK ? KP_OK : nomem(err);
}

kp_status kp__sim_mark_daemonsets(kp_sim *s, kp_error *err) {
    return kp_ctrl_node_changed(s->ctrl, -1) == KP_OK ? KP_OK : nomem(err);
}

kp_status kp__sim_pod_changed(kp_sim *s, uint32_t pod) {
    kp_status st = kp_ctrl_pod_changed(s->ctrl, (kp_index)pod, s->now);
    if (st != KP_OK || !kp_cluster_pod_claim_count(s->cl, (kp_index)pod)) return st;
    /* the resourceclaim controller: the pod's claims made, or released when it ended */
    kp_ctrl_sink k = sink_of(s);
    kp_error err;
    return kp_ctrl_resourceclaim_pod(s->ctrl, (kp_index)pod, s->now, &k, &err);
}

kp_status kp__sim_claim_retry(kp_sim *s, kp_index pod, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_resourceclaim_pod(s->ctrl, pod, s->now, &k, err);
}

kp_status kp__sim_delete_workload(kp_sim *s, long w, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_delete_workload(s->ctrl, (kp_index)w, s->now, &k, err);
}

kp_status kp__sim_workload_scaled(kp_sim *s, long w, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_workload_scaled(s->ctrl, (kp_index)w, s->now, &k, err);
}

kp_status kp__sim_sync_controllers(kp_sim *s, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_sync(s->ctrl, s->epoch, s->now, &k, err);
}

/* ---------------------------------------------------------------- the other controllers
 * (src/ctrl/cronjob.c, taint_eviction.c, node_lifecycle.c, podgc.c): called when their inputs
 * change, their timers played here */

kp_status kp__sim_cron_start(kp_sim *s, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_cronjobs_added(s->ctrl, s->now, &k, err);
}

kp_status kp__sim_cron_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    kp_workload_info in;
    if (kp_cluster_workload_info(s->cl, (kp_index)t->arg, &in) != KP_OK) return KP_OK;
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_cronjob_sync(s->ctrl, (kp_index)t->arg, s->now, &k, err);
}

kp_status kp__sim_taint_node(kp_sim *s, kp_index node, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_taint_eviction_node(s->ctrl, node, s->now, &k, err);
}

kp_status kp__sim_taint_pod(kp_sim *s, uint32_t pod, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_taint_eviction_pod(s->ctrl, (kp_index)pod, s->now, &k, err);
}

kp_status kp__sim_taint_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    uint32_t pod = (uint32_t)t->arg;
    if (pod >= s->n_pods || s->pods[pod].taint_gen != t->gen) return KP_OK; /* replaced */
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_taint_eviction_fire(s->ctrl, (kp_index)pod, s->now, &k, err);
}

kp_status kp__sim_node_lifecycle(kp_sim *s, kp_index node, unsigned conditions, bool *untainted,
                                 kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_node_lifecycle_sync(s->ctrl, node, conditions, s->now, &k, untainted, err);
}

/* the node lifecycle controller's health monitoring; a taint it removed may let pods fit */
static kp_status moved_if(kp_sim *s, kp_index node, bool untainted, kp_error *err) {
    if (!untainted) return KP_OK;
    return kp__sim_move_node(s, KP_SCHED_EV_NODE_UPDATE, node) == KP_OK ? KP_OK : nomem(err);
}

kp_status kp__sim_node_lifecycle_start(kp_sim *s, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    return kp_ctrl_node_lifecycle_start(s->ctrl, s->now, &k, err);
}

static kp_status ready_changed(kp_sim *s, uint32_t pod, kp_error *err);

/* A monitor pass; the pods whose readiness the controller took (MarkPodsNotReady) lose their
 * readiness plan, sync their controllers and recount their PDBs. */
kp_status kp__sim_node_monitor(kp_sim *s, kp_index node, kp_error *err) {
    kp_ctrl_sink k = sink_of(s);
    bool untainted = false;
    if (kp__sim_grow_pods(s) != KP_OK) return nomem(err);
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    for (size_t i = 0; i < n; i++) {
        kp_index pod = kp_cluster_node_pod(s->cl, node, i);
        s->pods[pod].was_ready = kp_cluster_pod_ready(s->cl, pod);
    }
    kp_sched_node_before(s->sched, node); /* the NodeUpdate's old object */
    kp_status st = kp_ctrl_node_monitor(s->ctrl, node, s->now, &k, &untainted, err);
    for (size_t i = 0; st == KP_OK && i < n && i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_index pod = kp_cluster_node_pod(s->cl, node, i);
        if (!s->pods[pod].was_ready || kp_cluster_pod_ready(s->cl, pod)) continue;
        s->pods[pod].ready_gen++;
        st = ready_changed(s, (uint32_t)pod, err);
    }
    return st == KP_OK ? moved_if(s, node, untainted, err) : st;
}

/* A node's kubelet posts again: its status manager reports each running pod's readiness as its
 * prober kept it meanwhile (the containers ran on): Ready at once (PodReady) when the modelled
 * time since the pod started has passed, else at that time. */
static kp_status ready_resume(kp_sim *s, kp_index node, kp_error *err) {
    for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_index pod = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, pod, &pi);
        if (pi.deleted || pi.terminal || pi.ready || pi.deletion_ts != KP_TIME_UNSET) continue;
        int64_t from = pi.start_time == KP_TIME_UNSET ? s->now : (pi.start_time - s->epoch) * 1000;
        int64_t d = kp__sim_ready_delay_ms(s, (uint32_t)pod);
        kp_status st;
        if (from > s->now || d > s->now - from) {
            st = kp__sim_ready_plan(s, (uint32_t)pod, from, err);
        } else {
            s->pods[pod].ready_gen++;
            st = kp_cluster_pod_set_ready(s->cl, pod, true, s->epoch + s->now / 1000, err);
            if (st == KP_OK && kp__sim_logf(s, KP_SIM_NORMAL, "PodReady", pod, node, -1,
                                            "Pod is Ready: its containers are ready") < 0)
                return nomem(err);
            if (st == KP_OK) st = ready_changed(s, (uint32_t)pod, err);
        }
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

kp_status kp__sim_node_noschedule(kp_sim *s, kp_index node, kp_error *err) {
    bool untainted = false;
    kp_sched_node_before(s->sched, node); /* the NodeUpdate's old object */
    kp_status st = kp_ctrl_node_noschedule_pass(s->ctrl, node, &untainted, err);
    return st == KP_OK ? moved_if(s, node, untainted, err) : st;
}

bool kp__sim_node_failed(const kp_sim *s, kp_index node) {
    return node >= 0 && (size_t)node < s->n_node_failed && s->node_failed[node];
}

/* A node's kubelet stops (it evicts, reports and finishes nothing: the pods deleted meanwhile
 * stay Terminating) or posts again: the deletions it missed are carried out from now (each
 * container stopped, the pod gone after its grace period). */
kp_status kp__sim_node_kubelet(kp_sim *s, kp_index node, bool posting, kp_error *err) {
    if (!posting && (size_t)node >= s->n_node_failed) {
        size_t n = kp_cluster_node_count(s->cl);
        uint8_t *f = kp_realloc(s->node_failed, n);
        if (!f) return nomem(err);
        memset(f + s->n_node_failed, 0, n - s->n_node_failed);
        s->node_failed = f;
        s->n_node_failed = n;
    }
    if (kp__sim_node_failed(s, node) == !posting) return KP_OK;
    s->node_failed[node] = !posting;
    kp_ctrl_sink k = sink_of(s);
    bool untainted = false;
    kp_sched_node_before(s->sched, node); /* the NodeUpdate's old object */
    kp_status st = kp_ctrl_node_kubelet(s->ctrl, node, posting, s->now, &k, &untainted, err);
    if (st != KP_OK || !posting) return st;
    if ((st = ready_resume(s, node, err)) != KP_OK) return st;
    for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_index pod = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, pod, &pi);
        if (pi.deleted || pi.terminal || pi.deletion_ts == KP_TIME_UNSET) continue;
        int64_t end = (pi.deletion_ts + pi.grace_seconds - s->epoch) * 1000;
        if (kp__sim_log_killing(s, (uint32_t)pod, node, s->pods[pod].lost_ev) != KP_OK ||
            kp__sim_timer_add(s, end > s->now ? end : s->now, SIM_EV_POD_GONE, pod, 0) != KP_OK)
            return nomem(err);
    }
    return moved_if(s, node, untainted, err);
}

/* the pod garbage collector's deletions: at once, the node's removal (event cause_ev) the cause
 * of each pod's replacement */
typedef struct {
    kp_sim *s;
    long cause_ev;
} podgc_ctx;

static kp_status podgc_deleted(void *ctx, kp_index pod, const kp_ctrl_event *ev, kp_error *err) {
    podgc_ctx *g = ctx;
    (void)ev; /* the collector records none */
    if (pod < 0 || (size_t)pod >= g->s->n_pods) return KP_OK;
    if (g->s->pods[pod].lost_ev < 0) g->s->pods[pod].lost_ev = g->cause_ev;
    kp__sim_disrupted(g->s, pod, KP_SIM_DISRUPT_DELETION);
    return kp__sim_pod_gone(g->s, (uint32_t)pod, "deleted", err);
}

kp_status kp__sim_podgc(kp_sim *s, long cause_ev, kp_error *err) {
    podgc_ctx g = {s, cause_ev};
    kp_ctrl_sink k = {&g, NULL, NULL, NULL, podgc_deleted, NULL, NULL};
    return kp_ctrl_podgc_sync(s->ctrl, s->now, 0, &k, err);
}

/* ---------------------------------------------------------------- the disruption controller */

kp_status kp__sim_recount_pdbs(kp_sim *s, uint32_t pod, kp_error *err) {
    size_t n = kp_cluster_pdb_count(s->cl);
    for (size_t i = 0; i < n; i++) {
        if (!kp_cluster_pdb_selects(s->cl, (kp_index)i, (kp_index)pod)) continue;
        kp_status st = kp__sim_pdb_recount(s, (kp_index)i, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- pod lifecycle */

kp_status kp__sim_pod_added(kp_sim *s, uint32_t pod, long replaces) {
    kp_status st = kp__sim_grow_pods(s);
    if (st != KP_OK) return st;
    sim_pod *p = &s->pods[pod];
    p->pub.created_ms = s->now;
    p->pub.replaces = replaces;
    s->c.pods_created++;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    /* named its node: with no kubelet modelled it starts at once, as a pod the scheduler binds
     * (kp__sim_pod_bound); a modelled kubelet admits it first (kp__sim_admit_bound) */
    if (pi.node >= 0 && !pi.terminal && !s->kub && pi.phase == KP_POD_PHASE_PENDING &&
        (st = kp_cluster_pod_set_running(s->cl, pod, s->epoch + s->now / 1000, NULL)) != KP_OK)
        return st;
    if ((st = kp__sim_pod_changed(s, pod)) != KP_OK) return st; /* its controller's pod list */
    /* DisruptionController.addPod: the PDBs that select it sync (expectedPods counts it; a
     * percentage follows its controller's scale) */
    if ((st = kp__sim_recount_pdbs(s, pod, NULL)) != KP_OK) return st;
    if (pi.node < 0 && !pi.terminal && kp_sched_serves(s->sched, pod))
        return kp__sim_enqueue_new(s, pod);
    if (pi.node >= 0 && !pi.terminal) { /* named its node: its containers start now */
        if ((st = kp__sim_ready_plan(s, pod, s->now, NULL)) != KP_OK) return st;
        if ((st = kp__sim_recount_pdbs(s, pod, NULL)) != KP_OK) return st;
        return kp__sim_admit_bound(s, pod);
    }
    return KP_OK;
}

/* The kubelet stops each container of a pod it kills (a deletion it sees, its own eviction or
 * admission preemption: killPodFunc): Normal Killing "Stopping container NAME" per container
 * (mirrors kubeGenericRuntimeManager.killContainer). */
kp_status kp__sim_log_killing(kp_sim *s, uint32_t pod, kp_index node, long cause_ev) {
    for (size_t c = 0; c < kp_cluster_pod_container_count(s->cl, pod); c++)
        if (kp__sim_logf(s, KP_SIM_NORMAL, "Killing", pod, node, cause_ev, "Stopping container %s",
                         kp_cluster_pod_container_name(s->cl, pod, c)) < 0)
            return KP_ENOMEM;
    return KP_OK;
}

/* A deletion request for a pod: deletionTimestamp set; a bound pod keeps its resources until its
 * grace period ends, and its kubelet stops each container at once with the event Normal Killing
 * "Stopping container NAME" (mirrors kubeGenericRuntimeManager.killContainer); a pod not bound
 * goes at once. */
kp_status kp__sim_pod_terminating(kp_sim *s, uint32_t pod, const char *cause, long cause_ev,
                                  kp_error *err) {
    sim_pod *p = &s->pods[pod];
    if (p->lost_ev < 0) p->lost_ev = cause_ev;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal) return KP_OK;
    if (pi.node < 0) { /* not running anywhere: the API server deletes it at once */
        p->pub.cause = cause;
        return kp__sim_pod_gone(s, pod, cause, err);
    }
    kp_status st = KP_OK;
    if (pi.deletion_ts == KP_TIME_UNSET) {
        st = kp_cluster_mark_terminating(s->cl, pod, s->epoch + s->now / 1000, NULL, err);
        if (st != KP_OK) return st;
        kp_cluster_pod_info(s->cl, pod, &pi);
    }
    p->pub.terminating_ms = s->now;
    p->pub.cause = cause;
    /* the kubelet sees the deletion and stops each container (killContainer) within the grace
     * period; the pod object goes then. A failed node's kubelet sees nothing: the pod stays
     * Terminating until it recovers (kp__sim_node_kubelet) */
    if (!kp__sim_node_failed(s, pi.node) &&
        (kp__sim_log_killing(s, pod, pi.node, cause_ev) != KP_OK ||
         kp__sim_timer_add(s, s->now + (p->has_grace ? p->grace_s : pi.grace_seconds) * 1000,
                           SIM_EV_POD_GONE, pod, 0) != KP_OK))
        return nomem(err);
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err); /* no longer active */
    return kp__sim_recount_pdbs(s, pod, err);
}

void kp__sim_disrupted(kp_sim *s, kp_index pod, kp_sim_disruption why) {
    if (pod < 0 || (size_t)pod >= s->n_pods || (unsigned)why >= KP_SIM_N_DISRUPT) return;
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    if (p->disrupted || p->arrived_terminating || kp_cluster_pod_info(s->cl, pod, &pi) != KP_OK ||
        pi.deleted || pi.terminal || pi.node < 0)
        return;
    p->disrupted = true;
    s->c.disruptions[why]++;
}

kp_status kp__sim_pod_gone(kp_sim *s, uint32_t pod, const char *cause, kp_error *err) {
    if (pod >= s->n_pods) return KP_OK;
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted) return KP_OK;
    bool was_bound = pi.node >= 0;
    kp_status st = kp_cluster_delete_pod(s->cl, pod, err);
    if (st != KP_OK) return st;
    kp__sim_dequeue(s, pod);
    if (cause) p->pub.cause = cause;
    if (!*p->pub.cause) p->pub.cause = "deleted";
    p->pub.gone_ms = s->now;
    s->c.pods_deleted++;
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err);
    if ((st = kp__sim_recount_pdbs(s, pod, err)) != KP_OK) return st;
    /* AssignedPodDelete: resources freed, unschedulable pods may fit now */
    if (was_bound && (st = kp__sim_move_pod_gone(s, pod, pi.node, false, 0)) != KP_OK)
        return nomem(err);
    if (was_bound && (st = kp__sim_resize_retry(s, pi.node, err)) != KP_OK) return st;
    /* deletePodFromSchedulingQueue: a pending pod that held a nomination was counted on its node
     * by the pods of lower or equal priority */
    if (!was_bound && *pi.nominated_node && s->nomination_moves &&
        (st = kp__sim_move_pod_gone(s, pod, -1, true, pi.priority)) != KP_OK)
        return nomem(err);
    return KP_OK;
}

static kp_status plan_lifetime(kp_sim *s, uint32_t pod) {
    if (!s->sc) return KP_OK;
    const kp_scenario_lifetime *l =
        kp__sim_first_match(s, s->sc->lifetimes, s->sc->n_lifetimes, pod);
    return l ? kp__sim_timer_add(s, s->now + l->after_ms, SIM_EV_LIFETIME, pod, 0) : KP_OK;
}

kp_status kp__sim_pod_bound(kp_sim *s, uint32_t pod, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    p->pub.bound_ms = s->now;
    p->pub.node = kp_cluster_pod_node(s->cl, pod);
    kp_status st = kp_cluster_pod_set_running(s->cl, pod, s->epoch + s->now / 1000, err);
    if (st != KP_OK) return st;
    if (plan_lifetime(s, pod) != KP_OK || kp__sim_admit_bound(s, pod) != KP_OK ||
        kp__sim_dra_bound(s, pod) != KP_OK)
        return nomem(err);
    /* Ready at once, or planned: its controller and PDBs see it either way */
    if ((st = kp__sim_ready_plan(s, pod, s->now, err)) != KP_OK) return st;
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err);
    return kp__sim_recount_pdbs(s, pod, err);
}

kp_status kp__sim_pod_finished(kp_sim *s, uint32_t pod, kp_pod_phase phase, const char *reason,
                               const char *message, bool by_kubelet, kp_error *err) {
    if (pod >= s->n_pods) return KP_OK;
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal || pi.node < 0) return KP_OK;
    kp_index node = pi.node;
    /* a pod the kubelet evicted also gets DisruptionTarget (TerminationByKubelet, the eviction
     * message), with its terminal status (managerImpl.evictPod's status function) */
    bool failed = phase == KP_POD_PHASE_FAILED; /* a Succeeded pod's status has no reason */
    kp_status st = kp_cluster_finish_pod_disrupted(
        s->cl, pod, phase, failed ? reason : NULL, message,
        by_kubelet ? "TerminationByKubelet" : NULL, by_kubelet ? message : NULL, err);
    if (st != KP_OK) return st;
    bool ok = phase == KP_POD_PHASE_SUCCEEDED;
    p->pub.gone_ms = s->now;
    p->pub.cause = ok ? "succeeded" : "failed";
    if (ok) s->c.pods_succeeded++;
    else s->c.pods_failed++;
    /* A pod that failed already has its event: the kubelet's eviction writes only its Warning
     * Evicted (managerImpl.evictPod); no upstream component logs the terminal phase. A pod whose
     * scenario lifetime ended gets kprio's own Completed. */
    if (ok && kp__sim_logf(s, KP_SIM_NORMAL, reason, pod, node, -1,
                           "Pod succeeded (its scenario lifetime ended)") < 0)
        return nomem(err);
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err);
    if ((st = kp__sim_recount_pdbs(s, pod, err)) != KP_OK) return st;
    if ((st = kp__sim_resize_retry(s, node, err)) != KP_OK) return st; /* freed room */
    /* its node's resources are freed: the queueing hints see it as the assigned pod deleted */
    return kp__sim_move_pod_gone(s, pod, node, false, 0) == KP_OK ? KP_OK : nomem(err);
}

/* ---------------------------------------------------------------- readiness (sim_ready.c plans
 * it): a pod's containers became ready, or a restarted container made it not Ready; either way
 * its controller syncs and the PDBs that select it are recounted */

static kp_status ready_changed(kp_sim *s, uint32_t pod, kp_error *err) {
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err);
    return kp__sim_recount_pdbs(s, pod, err);
}

kp_status kp__sim_ready_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    uint32_t pod = (uint32_t)t->arg;
    if (pod >= s->n_pods || s->pods[pod].ready_gen != t->gen) return KP_OK; /* replanned */
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal || pi.node < 0 || pi.ready) return KP_OK;
    if (kp__sim_node_failed(s, pi.node))
        return KP_OK; /* its kubelet posts nothing: resumed,
                       * it reports the pod (ready_resume) */
    kp_status st = kp_cluster_pod_set_ready(s->cl, pod, true, s->epoch + s->now / 1000, err);
    if (st != KP_OK) return st;
    sim_pod *p = &s->pods[pod];
    if (p->pub.ready_ms < 0) p->pub.ready_ms = s->now;
    if (kp__sim_logf(s, KP_SIM_NORMAL, "PodReady", pod, pi.node, -1,
                     "Pod is Ready: its containers are ready") < 0)
        return nomem(err);
    return ready_changed(s, pod, err);
}

kp_status kp__sim_ready_restart(kp_sim *s, uint32_t pod, const char *container, kp_error *err) {
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal || pi.node < 0 || kp__sim_ready_delay_ms(s, pod) <= 0)
        return KP_OK;
    bool was = pi.ready;
    kp_status st = kp__sim_ready_plan(s, pod, s->now, err);
    if (st != KP_OK || !was) return st;
    if (kp__sim_logf(s, KP_SIM_NORMAL, "PodNotReady", pod, pi.node, -1,
                     "Pod is not Ready: container %s restarted", container) < 0)
        return nomem(err);
    return ready_changed(s, pod, err);
}
