/* The scheduler's attempts in the simulation: ScheduleOne over the queue's ready pods at one
 * instant, each through kp_sched_schedule_one, and what follows from its result (the Scheduled
 * and FailedScheduling events, the victims of a preemption, the pod back in the queue). */
#include <string.h>

#include "sim/sim_internal.h"

/* ---------------------------------------------------------------- attempts */

static kp_status on_nominated(kp_sim *s, uint32_t pod, const kp_sched_pod_result *r,
                              size_t first_victim, long ev, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    kp_pod_info pre;
    kp_cluster_pod_info(s->cl, pod, &pre);
    if (p->pub.first_nominated_ms < 0) p->pub.first_nominated_ms = s->now;
    p->pub.nominated_node = r->nominated_node;
    bool any = false;
    for (size_t i = first_victim; i < r->n_victims; i++) {
        uint32_t v = (uint32_t)r->victims[i];
        /* the victims this attempt deleted (prepareCandidate's DeletePod: core's mark terminating,
         * called by the scheduler): terminating now, and not by a deletion the run saw before
         * (its own, which set terminating_ms; the kubelet's kill; one the pod arrived with) */
        if (v >= s->n_pods || kp__sim_pod_state(s, v) != KP_SIM_POD_TERMINATING ||
            s->pods[v].pub.terminating_ms >= 0 || s->pods[v].arrived_terminating)
            continue;
        any = true;
        s->c.victims++;
        /* marked terminating by the attempt already: counted as the bound pod it was */
        kp__sim_disrupted(s, (kp_index)v, KP_SIM_DISRUPT_PREEMPTION);
        long at = kp__sim_logf(s, KP_SIM_NORMAL, "Preempted", (kp_index)v, r->victim_nodes[i], ev,
                               "Preempted by pod %s on node %s", pre.uid,
                               kp_cluster_node_name(s->cl, r->victim_nodes[i]));
        if (at < 0) return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        s->pods[v].pub.preempted_by = (kp_index)pod;
        if (kp__sim_dra_preempted(s, v) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        kp_status st = kp__sim_pod_terminating(s, v, "preempted", at, err);
        if (st != KP_OK) return st;
    }
    if (any) s->c.preemptions++;
    return KP_OK;
}

/* The nominations an attempt changed, as the scheduler's informers see them: a lower-priority
 * pod whose nomination the preemption cleared (a status update, hasNominatedNodeNameChanged), the
 * pod itself nominated elsewhere than before, or bound while it held a nomination (the
 * unscheduled-pod handler's delete of the old object, deletePodFromSchedulingQueue): each moves
 * the unschedulable pods of priority <= that pod's (updatePodInSchedulingQueue). */
static kp_status nominations_changed(kp_sim *s, const char *had, const kp_sched_pod_result *r) {
    if (!s->nomination_moves) return KP_OK; /* --compat 1.32 and older */
    /* each such event moves the pods of priority <= that pod's: one move at the highest of
     * them moves the same pods */
    bool any = false;
    int32_t top = INT32_MIN;
    kp_index top_pod = -1; /* the event's pod: an unassigned pod that held a nomination */
    const kp_index *cleared = NULL;
    size_t n = kp_sched_cleared_nominations(s->sched, &cleared);
    for (size_t i = 0; i < n; i++) {
        int32_t p = kp_cluster_pod_priority(s->cl, cleared[i]);
        if (!any || p > top) {
            top = p;
            top_pod = cleared[i];
        }
        any = true;
    }
    if (*had && (r->outcome == KP_OUTCOME_BOUND ||
                 (r->outcome == KP_OUTCOME_NOMINATED &&
                  strcmp(had, kp_cluster_node_name(s->cl, r->nominated_node)) != 0))) {
        if (!any || r->priority > top) {
            top = r->priority;
            top_pod = r->pod;
        }
        any = true;
    }
    return any ? kp__sim_move_pod_gone(s, top_pod, -1, true, top) : KP_OK;
}

/* The timeline's nominatedNode follows status.nominatedNodeName when the scheduler removes a
 * nomination: the pod's own failed attempt (clearNominatedNode: no node, no preemption candidate;
 * a nomination to a deleted node goes so) and lower-priority pods a preemption un-nominated. A
 * bound pod keeps its last nomination. */
static void timeline_nominations(kp_sim *s, uint32_t pod, const kp_sched_pod_result *r) {
    kp_pod_info pi;
    if (r->outcome != KP_OUTCOME_BOUND && r->outcome != KP_OUTCOME_NOMINATED &&
        kp_cluster_pod_info(s->cl, pod, &pi) == KP_OK && !*pi.nominated_node)
        s->pods[pod].pub.nominated_node = -1;
    const kp_index *cleared = NULL;
    size_t n = kp_sched_cleared_nominations(s->sched, &cleared);
    for (size_t i = 0; i < n; i++)
        if (cleared[i] >= 0 && (size_t)cleared[i] < s->n_pods)
            s->pods[cleared[i]].pub.nominated_node = -1;
}

static kp_status attempt(kp_sim *s, uint32_t pod, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    kp__sim_dequeue(s, pod);
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    const char *nnn = pi.nominated_node; /* status.nominatedNodeName before the attempt */
    const kp_sched_pod_result *r = kp_sched_result_of(s->sched, (kp_index)pod);
    size_t had = r ? r->n_victims : 0; /* victims accumulate over a pod's attempts */
    if (s->o.attempt_hook) s->o.attempt_hook(s->o.attempt_ctx, s, (kp_index)pod, NULL);
    kp_status st = kp_sched_schedule_one(s->sched, (kp_index)pod, err);
    if (st != KP_OK) return st;
    if (!(r = kp_sched_result_of(s->sched, (kp_index)pod))) return KP_OK;
    if (s->o.attempt_hook) s->o.attempt_hook(s->o.attempt_ctx, s, (kp_index)pod, r);
    if (r->outcome == KP_OUTCOME_GATED) {
        /* PreEnqueue rejected it, not attempted: a gated pod waits for its gates' removal, a pod
         * DynamicResources rejected (a claim not there yet) for the claim events' hints */
        p->q = pi.gated ? SIM_Q_GATED : SIM_Q_UNSCHED;
        return kp__sim_unsched_add(s, pod);
    }
    p->pub.attempts++;
    s->c.attempts++;
    if (r->outcome == KP_OUTCOME_BOUND) {
        s->c.scheduled++;
        if (kp__sim_logf(s, KP_SIM_NORMAL, "Scheduled", (kp_index)pod, r->node, -1,
                         "Successfully assigned %s/%s to %s", kp_cluster_pod_namespace(s->cl, pod),
                         kp_cluster_pod_name(s->cl, pod), kp_cluster_node_name(s->cl, r->node)) < 0)
            return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        int64_t since = p->pub.created_ms >= 0 ? p->pub.created_ms : 0;
        if (s->now - since > s->c.longest_wait_ms || s->c.longest_wait_pod < 0) {
            s->c.longest_wait_ms = s->now - since;
            s->c.longest_wait_pod = (kp_index)pod;
        }
        if ((st = kp__sim_pod_bound(s, pod, err)) != KP_OK) return st;
        /* handlePodUpdate: a NoExecute taint it tolerates for tolerationSeconds */
        if ((st = kp__sim_taint_pod(s, pod, err)) != KP_OK) return st;
        /* the scheduler's informer: an assigned pod added (AssignedPodAdd) */
        if ((st = kp__sim_move_pod(s, KP_SCHED_EV_POD_ADD, (kp_index)pod, r->node)) == KP_OK)
            st = nominations_changed(s, nnn, r);
        return st == KP_OK ? KP_OK : kp_error_set(err, st, "simulate: out of memory");
    }
    s->c.unschedulable++;
    s->c.preemption_attempts++; /* DefaultPreemption's PostFilter ran */
    long ev = kp__sim_logf(s, KP_SIM_WARNING, "FailedScheduling", (kp_index)pod, -1, -1, "%s",
                           r->message);
    if (ev < 0) return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
    p->pub.last_message = s->events[ev].message;
    if (r->outcome == KP_OUTCOME_NOMINATED && (st = on_nominated(s, pod, r, had, ev, err)) != KP_OK)
        return st;
    timeline_nominations(s, pod, r);
    /* the status updates reach the queue after the pod is back in it */
    if ((st = kp__sim_add_unschedulable(s, pod)) == KP_OK) st = nominations_changed(s, nnn, r);
    if (st != KP_OK) return kp_error_set(err, st, "simulate: out of memory");
    /* DynamicResources' PostFilter freed a claim: its update event, after the pod is back */
    kp_index freed = kp_sched_deallocated_claim(s->sched);
    return freed >= 0 ? kp__sim_dra_postfilter(s, freed, err) : KP_OK;
}

/* The ScheduleOne loop at this instant: activeQ until empty, then (SchedulerPopFromBackoffQ)
 * backoffQ. A pod becomes ready again only through a later event, so this ends. */
kp_status kp__sim_schedule_pending(kp_sim *s, kp_error *err) {
    for (;;) {
        kp_status st = kp__sim_sync_controllers(s, err); /* replacements join this instant */
        if (st != KP_OK) return st;
        long pod = kp__sim_queue_next(s);
        if (pod < 0) return KP_OK;
        if ((st = attempt(s, (uint32_t)pod, err)) != KP_OK) return st;
    }
}
