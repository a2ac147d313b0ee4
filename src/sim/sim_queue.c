/* kube-scheduler's scheduling queue over virtual time (mirrors PriorityQueue of
 * pkg/scheduler/backend/queue/scheduling_queue.go and backoff_queue.go): activeQ ordered by
 * PrioritySort (priority, then the queue timestamp), backoffQ ordered by backoff expiry,
 * unschedulablePods; the attempts themselves are kp_sched_schedule_one.
 *
 * Each cluster event asks the scheduler's queueing hints (kp_sched_queueing_hint: the plugins
 * that rejected the pod, their QueueingHintFn) whether an unschedulable pod moves.
 *
 * Where kprio simplifies upstream (docs/simulate.md):
 *  - the scheduler takes no virtual time: every pod ready at an instant is attempted then, so
 *    with SchedulerPopFromBackoffQ (on since v1.33) a pod in backoffQ is popped at the same
 *    instant once activeQ is empty; with --compat 1.32 and older it waits for the 1s
 *    flushBackoffQCompleted tick after its backoff expires; so no event arrives while a pod is
 *    in flight (determineSchedulingHintForInFlightPod finds none: the pod goes back to
 *    unschedulablePods, or to backoffQ at once when no plugin rejected it). */
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_internal.h"

/* ---------------------------------------------------------------- pod heaps */

/* PrioritySort.Less: higher priority first, then the older queue timestamp; then the pod
 * index (load and creation order) so equal keys pop in a fixed order. */
static bool active_less(const kp_sim *s, uint32_t a, uint32_t b) {
    int32_t pa = kp_cluster_pod_priority(s->cl, a), pb = kp_cluster_pod_priority(s->cl, b);
    if (pa != pb) return pa > pb;
    if (s->pods[a].q_ts != s->pods[b].q_ts) return s->pods[a].q_ts < s->pods[b].q_ts;
    return a < b;
}

static bool heap_less(const kp_sim *s, const sim_pheap *h, uint32_t a, uint32_t b) {
    if (h->backoff && s->pods[a].backoff_until != s->pods[b].backoff_until)
        return s->pods[a].backoff_until < s->pods[b].backoff_until;
    return active_less(s, a, b);
}

static void heap_set(kp_sim *s, sim_pheap *h, uint32_t i, uint32_t pod) {
    h->v[i] = pod;
    s->pods[pod].heap_pos = (int32_t)i;
}

static void sift_up(kp_sim *s, sim_pheap *h, uint32_t i) {
    uint32_t pod = h->v[i];
    while (i > 0 && heap_less(s, h, pod, h->v[(i - 1) / 2])) {
        heap_set(s, h, i, h->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(s, h, i, pod);
}

static void sift_down(kp_sim *s, sim_pheap *h, uint32_t i) {
    uint32_t pod = h->v[i];
    for (;;) {
        uint32_t l = 2 * i + 1, m = i, best = pod;
        if (l < h->n && heap_less(s, h, h->v[l], best)) best = h->v[m = l];
        if (l + 1 < h->n && heap_less(s, h, h->v[l + 1], best)) m = l + 1;
        if (m == i) break;
        heap_set(s, h, i, h->v[m]);
        i = m;
    }
    heap_set(s, h, i, pod);
}

static kp_status heap_push(kp_sim *s, sim_pheap *h, uint32_t pod) {
    void *nv = h->v;
    if (!kp__grow32(&nv, &h->cap, (size_t)h->n + 1, sizeof *h->v, 64)) return KP_ENOMEM;
    h->v = nv;
    h->v[h->n++] = pod;
    sift_up(s, h, h->n - 1);
    return KP_OK;
}

static void heap_remove(kp_sim *s, sim_pheap *h, uint32_t pod) {
    int32_t i = s->pods[pod].heap_pos;
    if (i < 0 || (uint32_t)i >= h->n || h->v[i] != pod) return;
    s->pods[pod].heap_pos = -1;
    uint32_t last = h->v[--h->n];
    if ((uint32_t)i == h->n) return;
    heap_set(s, h, (uint32_t)i, last);
    sift_down(s, h, (uint32_t)i);
    sift_up(s, h, (uint32_t)s->pods[last].heap_pos);
}

void kp__sim_pheap_free(sim_pheap *h) { kp_free(h->v); }

/* ---------------------------------------------------------------- the queues */

kp_status kp__sim_unsched_add(kp_sim *s, uint32_t pod) {
    void *nu = s->unsched;
    if (!kp__grow(&nu, &s->cap_unsched, s->n_unsched + 1, sizeof *s->unsched, 64)) return KP_ENOMEM;
    s->unsched = nu;
    s->pods[pod].unsched_pos = (int32_t)s->n_unsched;
    s->unsched[s->n_unsched++] = pod;
    return KP_OK;
}

static void unsched_remove(kp_sim *s, uint32_t pod) {
    int32_t i = s->pods[pod].unsched_pos;
    if (i < 0) return;
    uint32_t last = s->unsched[--s->n_unsched];
    s->unsched[i] = last;
    s->pods[last].unsched_pos = i;
    s->pods[pod].unsched_pos = -1;
}

void kp__sim_dequeue(kp_sim *s, uint32_t pod) {
    sim_pod *p = &s->pods[pod];
    if (p->q == SIM_Q_ACTIVE) heap_remove(s, &s->active, pod);
    else if (p->q == SIM_Q_BACKOFF) heap_remove(s, &s->backoff, pod);
    else if (p->q == SIM_Q_UNSCHED || p->q == SIM_Q_GATED) unsched_remove(s, pod);
    p->q = SIM_Q_NONE;
    p->q_gen++;
}

kp_status kp__sim_enqueue_new(kp_sim *s, uint32_t pod) {
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    sim_pod *p = &s->pods[pod];
    kp__sim_dequeue(s, pod);
    /* the queue timestamp of the snapshot's pods is their creationTimestamp (kprio schedule's
     * order at t = 0), of the run's pods the instant they were made */
    p->q_ts =
        s->started || pi.creation_ts == KP_TIME_UNSET ? s->now : (pi.creation_ts - s->epoch) * 1000;
    if (pi.gated) { /* SchedulingGates' PreEnqueue: kept in unschedulablePods, never popped */
        p->q = SIM_Q_GATED;
        return kp__sim_unsched_add(s, pod);
    }
    p->q = SIM_Q_ACTIVE;
    return heap_push(s, &s->active, pod);
}

/* mirrors backoffQueue.calculateBackoffDuration: initial, doubled per failure, capped */
static int64_t backoff_ms(const kp_sim *s, uint32_t failures) {
    if (failures == 0) return 0;
    int64_t d = s->o.pod_initial_backoff_ms;
    for (uint32_t i = 1; i < failures; i++) {
        if (d > s->o.pod_max_backoff_ms - d) return s->o.pod_max_backoff_ms;
        d += d;
    }
    return d;
}

/* mirrors movePodsToActiveOrBackoffQueue for one pod: backoffQ while it backs off */
static kp_status to_active_or_backoff(kp_sim *s, uint32_t pod) {
    sim_pod *p = &s->pods[pod];
    kp__sim_dequeue(s, pod);
    p->backoff_until = p->q_ts + backoff_ms(s, p->unsched_count);
    if (p->backoff_until > s->now) {
        p->q = SIM_Q_BACKOFF;
        kp_status st = heap_push(s, &s->backoff, pod);
        if (st != KP_OK || s->pop_from_backoff) return st;
        /* flushBackoffQCompleted runs every second: the first tick at or after the expiry */
        int64_t every = s->o.flush_backoff_every_ms > 0 ? s->o.flush_backoff_every_ms : 1;
        int64_t tick = (p->backoff_until + every - 1) / every * every;
        return kp__sim_timer_add(s, tick, SIM_EV_BACKOFF_DONE, pod, p->q_gen);
    }
    p->q = SIM_Q_ACTIVE;
    return heap_push(s, &s->active, pod);
}

/* mirrors MoveAllToActiveOrBackoffQueue -> movePodsToActiveOrBackoffQueue: each unschedulable
 * pod the pre-check lets through is asked to the scheduler's queueing hints
 * (isPodWorthRequeuing); Queue moves it (requeuePodWithQueueingStrategy: backoffQ while it backs
 * off, else activeQ), QueueSkip leaves it in unschedulablePods. */
static kp_status move(kp_sim *s, const kp_sched_event *ev, bool le, int32_t priority) {
    if (!s->n_unsched || !kp_sched_event_may_queue(s->sched, ev->kind)) return KP_OK;
    /* from the end: to_active_or_backoff removes the entry (swap with the last) */
    for (size_t i = s->n_unsched; i-- > 0;) {
        if (i >= s->n_unsched) continue;
        uint32_t pod = s->unsched[i];
        if (s->pods[pod].q == SIM_Q_GATED) continue;
        if (le && kp_cluster_pod_priority(s->cl, (kp_index)pod) > priority) continue;
        if (kp_sched_queueing_hint(s->sched, (kp_index)pod, ev) == KP_HINT_SKIP) continue;
        kp_status st = to_active_or_backoff(s, pod);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

kp_status kp__sim_move(kp_sim *s, const kp_sched_event *ev) { return move(s, ev, false, 0); }

kp_status kp__sim_move_le(kp_sim *s, const kp_sched_event *ev, int32_t priority) {
    return move(s, ev, true, priority);
}

kp_status kp__sim_move_node(kp_sim *s, kp_sched_event_kind kind, kp_index node) {
    kp_sched_event ev = {.kind = kind, .node = node, .pod = -1, .nominated = false};
    return move(s, &ev, false, 0);
}

kp_status kp__sim_move_pod(kp_sim *s, kp_sched_event_kind kind, kp_index pod, kp_index node) {
    kp_sched_event ev = {.kind = kind, .node = node, .pod = pod, .nominated = false};
    return move(s, &ev, false, 0);
}

kp_status kp__sim_move_pod_gone(kp_sim *s, kp_index pod, kp_index node, bool le, int32_t priority) {
    kp_sched_event ev = {
        .kind = KP_SCHED_EV_POD_DELETE, .node = node, .pod = pod, .nominated = node < 0};
    return move(s, &ev, le, priority);
}

/* mirrors AddUnschedulableIfNotPresent (no move request during the attempt: the attempt takes
 * no virtual time): unschedulablePods, timestamp refreshed, one more failure for the backoff;
 * the leftover flush reaches it at the first 30s tick more than 5 minutes later. */
kp_status kp__sim_add_unschedulable(kp_sim *s, uint32_t pod) {
    sim_pod *p = &s->pods[pod];
    kp__sim_dequeue(s, pod);
    p->unsched_count++;
    p->q_ts = s->now;
    p->q = SIM_Q_UNSCHED;
    kp_status st = kp__sim_unsched_add(s, pod);
    if (st != KP_OK) return st;
    int64_t every = s->o.flush_unschedulable_every_ms > 0 ? s->o.flush_unschedulable_every_ms : 1;
    int64_t tick = (s->now + s->o.max_in_unschedulable_ms) / every * every + every;
    return kp__sim_timer_add(s, tick, SIM_EV_FLUSH_UNSCHED, pod, p->q_gen);
}

kp_status kp__sim_queue_timer(kp_sim *s, const sim_timer *t) {
    uint32_t pod = (uint32_t)t->arg;
    if (pod >= s->n_pods || s->pods[pod].q_gen != t->gen) return KP_OK; /* stale */
    sim_pod *p = &s->pods[pod];
    if (t->kind == SIM_EV_FLUSH_UNSCHED && p->q == SIM_Q_UNSCHED)
        return to_active_or_backoff(s, pod); /* flushUnschedulablePodsLeftover */
    if (t->kind == SIM_EV_BACKOFF_DONE && p->q == SIM_Q_BACKOFF) {
        kp__sim_dequeue(s, pod);
        p->q = SIM_Q_ACTIVE;
        return heap_push(s, &s->active, pod);
    }
    return KP_OK;
}

/* The next pod the ScheduleOne loop pops at this instant: activeQ's head, else (with
 * SchedulerPopFromBackoffQ) backoffQ's; -1 when neither has one. */
long kp__sim_queue_next(const kp_sim *s) {
    if (s->active.n) return (long)s->active.v[0];
    if (s->pop_from_backoff && s->backoff.n) return (long)s->backoff.v[0];
    return -1;
}

/* mirrors PriorityQueue.Update for a pending pod the scenario changed (its tolerations, labels,
 * scheduling gates): a gated pod whose gates are gone passes PreEnqueue and joins activeQ; an
 * unschedulable pod moves to activeQ or backoffQ (kprio's simplified hints: any update may make
 * it schedulable). */
kp_status kp__sim_pod_updated(kp_sim *s, uint32_t pod) {
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (p->q == SIM_Q_GATED && !pi.gated) {
        kp__sim_dequeue(s, pod);
        p->q = SIM_Q_ACTIVE;
        return heap_push(s, &s->active, pod);
    }
    return p->q == SIM_Q_UNSCHED ? to_active_or_backoff(s, pod) : KP_OK;
}
