/* The simulator's state (src/sim/): the clock and the timed-event heap, the scheduling queue,
 * per-pod timelines and the event log; the controllers' bookkeeping is their manager's
 * (kprio/ctrl.h). Public API only below this
 * line: the simulator is a client of include/kprio/ like any program. */
#ifndef KP_SIM_INTERNAL_H
#define KP_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/ctrl.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "kprio/sim.h"

/* timed events of the discrete-event queue */
typedef enum {
    SIM_EV_ACTION = 0, /* scenario action arg */
    SIM_EV_POD_GONE, /* pod arg's grace period ended: the API server deletes it */
    SIM_EV_FLUSH_UNSCHED, /* the 30s leftover flush reaches pod arg (if still there, gen) */
    SIM_EV_BACKOFF_DONE, /* flushBackoffQCompleted reaches pod arg (no PopFromBackoffQ) */
    SIM_EV_LIFETIME, /* pod arg ran its lifetime: it Succeeds */
    SIM_EV_DRAIN_RETRY, /* drain of node arg retries its evictions (kubectl: every 5s) */
    SIM_EV_KUBELET, /* node arg's kubelet runs an eviction pass (sim_kubelet.c) */
    SIM_EV_KUBELET_IDLE, /* the same, when nothing on the node can change by itself: it does not
                          * keep a run without a duration going */
    SIM_EV_WORKLOAD_SYNC, /* workload arg syncs again (a Job's pod failure backoff ended) */
    SIM_EV_ADMIT, /* pod arg's kubelet sees its bind and admits or rejects it (sim_admit.c) */
    SIM_EV_ADMIT_KILLED, /* pod arg, preempted by its kubelet, is killed: Failed (sim_admit.c) */
    SIM_EV_TAINT_EVICT, /* pod arg's NoExecute toleration ran out (gen: still planned) */
    SIM_EV_CRON, /* CronJob arg's next scheduled time (kp_ctrl_cronjob_sync) */
    SIM_EV_READY, /* pod arg's containers are ready (gen: still planned; sim_ready.c) */
    SIM_EV_NODE_MONITOR, /* the node lifecycle controller's monitor pass of node arg */
    SIM_EV_WORKLOAD_CHECK, /* workload arg syncs again for a check (a Deployment's progress
                            * deadline): it does not keep a run without a duration going */
    SIM_EV_CLAIM_RETRY /* the resourceclaim controller retries pod arg (a claim it could not
                        * make): it does not keep a run without a duration going */
} sim_ev_kind;

typedef struct {
    int64_t t;
    uint64_t seq; /* insertion order: equal times play in the order they were planned */
    uint32_t kind;
    uint32_t gen; /* for pod timers: the queue generation they were planned in */
    int64_t arg;
} sim_timer;

/* where a pod is in the scheduling queue */
typedef enum {
    SIM_Q_NONE = 0, /* not queued (bound, gone, not ours) */
    SIM_Q_ACTIVE,
    SIM_Q_BACKOFF,
    SIM_Q_UNSCHED, /* unschedulablePods */
    SIM_Q_GATED /* unschedulablePods, gated by PreEnqueue */
} sim_qstate;

/* per-pod queue and timeline state */
typedef struct {
    kp_sim_pod pub;
    int64_t q_ts; /* QueuedPodInfo.Timestamp (ms) */
    int64_t backoff_until;
    uint32_t unsched_count; /* failures: the backoff exponent */
    uint32_t q_gen; /* bumped whenever the pod changes queue: stale timers are ignored */
    uint8_t q; /* sim_qstate */
    int32_t heap_pos; /* position in the active or backoff heap, -1 */
    int32_t unsched_pos; /* position in kp_sim.unsched, -1 */
    long lost_ev; /* the event that made it inactive (preemption, eviction, ...), -1 */
    const char *evict_msg; /* the kubelet's eviction message (an event's text), NULL */
    bool evict_condition; /* a threshold eviction: DisruptionTarget once killed (local-storage
                           * evictions get none: localStorageEviction passes no condition) */
    uint32_t taint_gen; /* the taint-eviction controller's latest plan (its resync timer): an
                         * earlier timer is stale */
    bool drain_blocked; /* a drain was refused for it (logged once) */
    bool has_grace; /* a drain's eviction gave its grace period (DeleteOptions) */
    int64_t grace_s;
    bool arrived_terminating; /* it had a deletionTimestamp when the run first saw it (the
                               * snapshot's, or a created object's): no deletion of this run */
    uint32_t ready_gen; /* its latest readiness plan (SIM_EV_READY): an earlier timer is stale */
    bool disrupted; /* counted in kp_sim_counters.disruptions (once, its first cause) */
    bool was_ready; /* Ready before a node monitor pass (MarkPodsNotReady's changes) */
} sim_pod;

/* a heap of pods ordered by a key (activeQ: PrioritySort; backoffQ: expiry) */
typedef struct {
    uint32_t *v;
    uint32_t n, cap;
    bool backoff; /* key: backoff expiry first */
} sim_pheap;

typedef struct sim_kubelets sim_kubelets;

/* the kubelets' admission (sim_admit_plan.c, sim_admit.c) */
typedef struct {
    struct kp_admission *a; /* the decisions */
    uint8_t *unseen; /* per pod: bound, not yet seen by its node's kubelet */
    size_t n_unseen;
} sim_admit;

struct kp_sim {
    kp_cluster *cl;
    kp_sched *sched;
    const kp_scenario *sc;
    kp_sim_options o;
    bool pop_from_backoff; /* SchedulerPopFromBackoffQ (beta, on since 1.33) */
    bool nomination_moves; /* a nominated pod leaving requeues pods <= its priority (v1.33+) */
    int64_t epoch; /* unix seconds of t = 0 */
    int64_t now; /* ms */
    int64_t end; /* ms: duration, or the 24h cap */
    bool has_duration, ended;
    bool started; /* t = 0 set up: pods made from now on are the run's */
    bool stepped; /* the first instant (t = 0) was played */
    uint64_t rounds; /* the rounds played at `now` (KP_SIM_MAX_ROUNDS_PER_INSTANT) */
    uint64_t ctrl_created; /* pods the controllers created (KP_SIM_MAX_CREATED_PODS) */
    const char *end_reason;
    /* each PDB's lifetime in the run (kp_sim_pdb_span) and the desiredHealthy its recounts wrote
     * (kp_sim_pdb_desired_at), grown as creates add PDBs */
    int64_t *pdb_from, *pdb_to;
    struct sim_pdb_desired *pdb_desired;
    size_t n_pdb_spans;
    uint64_t seq;

    sim_timer *timers; /* binary heap on (t, seq) */
    size_t n_timers, cap_timers;
    /* the kubelets' passes, planned at now + a constant: mostly in (t, seq) order already, so kept
     * in a queue (fifo[fifo_head..n_fifo)) while they come in order, the heap taking the others;
     * the next timer is the earlier of the two heads (kp__sim_timer_next) */
    sim_timer *fifo;
    size_t fifo_head, n_fifo, cap_fifo;
    size_t n_real_timers; /* timers that can change something (not leftover flushes) */

    sim_pheap active, backoff;
    uint32_t *unsched; /* unschedulablePods (gated ones too), unordered */
    size_t n_unsched, cap_unsched;
    sim_pod *pods;
    size_t n_pods, cap_pods;

    kp_ctrl *ctrl; /* the controllers (sim_ctrl.c is the glue) */

    kp_sim_event *events;
    size_t n_events, cap_events;
    char **chunks; /* string storage of the log */
    size_t n_chunks, cap_chunks;
    size_t chunk_used, chunk_cap;

    kp_sim_counters c;
    struct sim_drain *drains; /* the drain actions played (sim_drain.c) */
    size_t n_drains, cap_drains;
    int32_t *node_drain; /* per node: the drain draining it now, -1 */
    size_t n_node_drain;
    sim_kubelets *kub; /* sim_kubelet.c; NULL when the run has no kubelets */
    sim_admit adm; /* sim_admit.c: the kubelets' admission */

    uint8_t *node_failed; /* per node: its kubelet stopped (the `fail` action; sim_ctrl.c) */
    size_t n_node_failed;

    kp_sim_sample *samples; /* every o.sample_every_ms (sim_log.c) */
    size_t n_samples, cap_samples;
    uint64_t sampled_events; /* s->c.events when the last sample was counted */
    struct sim_dra *dra; /* sim_dra.c: the account per device class (NULL: none yet) */
};

/* sim_dra.c: devices. The resourceclaim controller's start (t = 0) and its sink's claim_changed;
 * a pod bound (its allocations, its wait) or preempted (a device holder) is counted per class */
kp_status kp__sim_dra_start(kp_sim *s); /* the snapshot's claims as they are; KP_ENOMEM */
kp_status kp__sim_claim_changed(void *ctx, kp_index claim, int change, kp_index pod, kp_error *err);
kp_status kp__sim_dra_bound(kp_sim *s, uint32_t pod);
/* the scheduler's PostFilter deallocated claim (kp_sched_deallocated_claim): a claim update
 * (pods waiting for devices may fit now), counted as a deallocation of its class */
kp_status kp__sim_dra_postfilter(kp_sim *s, kp_index claim, kp_error *err);
/* sim_ctrl.c: the resourceclaim controller's work queue retries pod (SIM_EV_CLAIM_RETRY) */
kp_status kp__sim_claim_retry(kp_sim *s, kp_index pod, kp_error *err);
kp_status kp__sim_dra_preempted(kp_sim *s, uint32_t pod);
void kp__sim_dra_free(kp_sim *s);
/* sim_ctrl.c: the resourceclaim controller's start at t = 0 (after kp__sim_dra_start) */
kp_status kp__sim_claims_start(kp_sim *s, kp_error *err);

/* sim_log.c */
sim_timer kp__sim_timer_pop(kp_sim *s);
/* the timer kp__sim_timer_pop returns next, NULL when none is planned */
const sim_timer *kp__sim_timer_next(const kp_sim *s);
kp_status kp__sim_timer_add(kp_sim *s, int64_t t, sim_ev_kind kind, int64_t arg, uint32_t gen);
kp_status kp__sim_grow_pods(kp_sim *s);
/* A pod's state now, derived from the cluster (kp_cluster_pod_info: deleted, terminal phase,
 * deletionTimestamp, node), never stored: the one kept bit is the kubelet's own, a bound pod it
 * is stopping (its eviction with a grace period, its admission preemption: terminating_ms set
 * while the API object has no deletionTimestamp) is Terminating. */
kp_sim_pod_state kp__sim_pod_state(const kp_sim *s, uint32_t pod);
/* The pod's timeline with its state filled in now (kp_sim_pod_get's, for internal reads). */
const kp_sim_pod *kp__sim_pod_view(const kp_sim *s, uint32_t pod);
/* samples for every sample time before `until` (ms) not yet taken: the state now */
kp_status kp__sim_sample_until(kp_sim *s, int64_t until);
/* log: a copy of the texts is kept; returns the event's index or -1 (out of memory) */
long kp__sim_log(kp_sim *s, kp_sim_event_type type, const char *reason, const char *kind,
                 const char *ns, const char *name, const char *message, kp_index pod, kp_index node,
                 long cause);
long kp__sim_logf(kp_sim *s, kp_sim_event_type type, const char *reason, kp_index pod,
                  kp_index node, long cause, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* sim_queue.c: the scheduling queue and the attempts */
kp_status kp__sim_enqueue_new(kp_sim *s, uint32_t pod);
/* sim_log.c: the PDBs loaded since the last call exist from now on (kp_sim_pdb_span) */
kp_status kp__sim_pdb_spans_grow(kp_sim *s);
/* The disruption controller's sync of PDB `pdb` (kp_ctrl_disruption_sync), its desiredHealthy
 * recorded when it changed (kp_sim_pdb_desired_at). */
kp_status kp__sim_pdb_recount(kp_sim *s, kp_index pdb, kp_error *err);
void kp__sim_pdb_spans_free(kp_sim *s);
/* mirrors MoveAllToActiveOrBackoffQueue for one cluster event: every unschedulable pod (not
 * gated) the scheduler's queueing hints queue goes to backoffQ or activeQ
 * (kp_sched_queueing_hint). For a NODE_UPDATE, kp_sched_node_before was called before the
 * change. */
kp_status kp__sim_move(kp_sim *s, const kp_sched_event *ev);
/* a pending pod changed by the scenario (PriorityQueue.Update): KP_ENOMEM */
kp_status kp__sim_pod_updated(kp_sim *s, uint32_t pod);
/* The same for the pods of priority <= `priority` only (getLEPriorityPreCheck): a pod that held
 * a nomination lost it, was deleted or bound (the scheduler treated it as assigned to the
 * nominated node for pods of lower or equal priority). */
kp_status kp__sim_move_le(kp_sim *s, const kp_sched_event *ev, int32_t priority);
/* The events themselves: a node added or updated, an assigned pod added, a pod deleted (or
 * finished) from `node` (-1: a pending pod that held a nomination, `nominated`). */
kp_status kp__sim_move_node(kp_sim *s, kp_sched_event_kind kind, kp_index node);
kp_status kp__sim_move_pod(kp_sim *s, kp_sched_event_kind kind, kp_index pod, kp_index node);
kp_status kp__sim_move_pod_gone(kp_sim *s, kp_index pod, kp_index node, bool le, int32_t priority);
kp_status kp__sim_queue_timer(kp_sim *s, const sim_timer *t);
kp_status kp__sim_add_unschedulable(kp_sim *s, uint32_t pod);
kp_status kp__sim_unsched_add(kp_sim *s, uint32_t pod);
long kp__sim_queue_next(const kp_sim *s);
void kp__sim_dequeue(kp_sim *s, uint32_t pod);
void kp__sim_pheap_free(sim_pheap *h);

/* sim_sched.c: the attempts */
kp_status kp__sim_schedule_pending(kp_sim *s, kp_error *err);

/* sim_ctrl.c: pod lifecycle, the glue to the controllers (kprio/ctrl.h), the disruption
 * controller */
kp_status kp__sim_index_workloads(kp_sim *s);
kp_status kp__sim_pod_added(kp_sim *s, uint32_t pod, long replaces);
kp_status kp__sim_pod_terminating(kp_sim *s, uint32_t pod, const char *cause, long cause_ev,
                                  kp_error *err);
kp_status kp__sim_pod_gone(kp_sim *s, uint32_t pod, const char *cause, kp_error *err);
/* Counts a disruption of `pod` by `why` (kp_sim_counters.disruptions), the one definition every
 * actor calls as it acts, before the pod's state changes: a pod bound to a node, not finished,
 * not deleted, not terminating since before the run, counted once under its first cause. */
void kp__sim_disrupted(kp_sim *s, kp_index pod, kp_sim_disruption why);
/* Normal Killing "Stopping container NAME" for each container (KP_ENOMEM) */
kp_status kp__sim_log_killing(kp_sim *s, uint32_t pod, kp_index node, long cause_ev);
kp_status kp__sim_pod_bound(kp_sim *s, uint32_t pod, kp_error *err);
kp_status kp__sim_pod_finished(kp_sim *s, uint32_t pod, kp_pod_phase phase, const char *reason,
                               const char *message, bool by_kubelet, kp_error *err);
kp_status kp__sim_sync_controllers(kp_sim *s, kp_error *err);
kp_status kp__sim_recount_pdbs(kp_sim *s, uint32_t pod, kp_error *err);
/* the controllers that are not workload controllers (src/ctrl/): the CronJobs not followed yet
 * start (their next scheduled time planned) and a scheduled time came (SIM_EV_CRON); taint
 * eviction for the pods of a node whose taints changed, a pod just bound, a planned eviction that
 * came due (SIM_EV_TAINT_EVICT); the node lifecycle controller's pressure taints after the
 * conditions a node's kubelet reports (*untainted: one was removed); the pod garbage collector
 * after a node's deletion (event cause_ev: the cause of its pods' replacements) */
kp_status kp__sim_cron_start(kp_sim *s, kp_error *err);
kp_status kp__sim_cron_timer(kp_sim *s, const sim_timer *t, kp_error *err);
kp_status kp__sim_taint_node(kp_sim *s, kp_index node, kp_error *err);
kp_status kp__sim_taint_pod(kp_sim *s, uint32_t pod, kp_error *err);
kp_status kp__sim_taint_timer(kp_sim *s, const sim_timer *t, kp_error *err);
kp_status kp__sim_node_lifecycle(kp_sim *s, kp_index node, unsigned conditions, bool *untainted,
                                 kp_error *err);
kp_status kp__sim_podgc(kp_sim *s, long cause_ev, kp_error *err);
/* The node lifecycle controller: its start over the snapshot (t = 0), a monitor pass of a node
 * (SIM_EV_NODE_MONITOR), the NoSchedule pass after a cordon or uncordon, and a node's kubelet
 * stopped (`fail`) or posting again (`recover`): a failed node's kubelet evicts nothing, reports
 * nothing and finishes no pod until it recovers (kp__sim_node_failed). */
kp_status kp__sim_node_lifecycle_start(kp_sim *s, kp_error *err);
kp_status kp__sim_node_monitor(kp_sim *s, kp_index node, kp_error *err);
kp_status kp__sim_node_noschedule(kp_sim *s, kp_index node, kp_error *err);
kp_status kp__sim_node_kubelet(kp_sim *s, kp_index node, bool posting, kp_error *err);
bool kp__sim_node_failed(const kp_sim *s, kp_index node);
/* the workloads loaded since the last call join (marked for a sync) */
kp_status kp__sim_grow_workloads(kp_sim *s);
/* The garbage collector's background deletion of workload w: its pods, the workloads it controls */
kp_status kp__sim_delete_workload(kp_sim *s, long w, kp_error *err);
/* workload w's spec.replicas was written: a Deployment scales its ReplicaSet now
 * (kp_ctrl_workload_scaled) */
kp_status kp__sim_workload_scaled(kp_sim *s, long w, kp_error *err);
/* pod was added or its state changed (kp_ctrl_pod_changed): its controller may sync. KP_ENOMEM */
kp_status kp__sim_pod_changed(kp_sim *s, uint32_t pod);
/* workload wl syncs again (a resync it asked for); KP_ENOMEM */
kp_status kp__sim_mark_workload(kp_sim *s, int64_t wl, kp_error *err);
/* every DaemonSet syncs (a node was added, changed or deleted) */
kp_status kp__sim_mark_daemonsets(kp_sim *s, kp_error *err);

/* sim_patch.c: the `patch` action */
kp_status kp__sim_patch(kp_sim *s, size_t i, const kp_scenario_action *a, kp_error *err);

/* sim_resize.c: the kubelets' in-place resizes. The pod's kubelet decides a pending resize now
 * (and logs ResizeCompleted / ResizeDeferred / ResizeInfeasible); the node's kubelet retries its
 * pending resizes (a pod left the node, ...). KP_ENOMEM */
kp_status kp__sim_resize_decide(kp_sim *s, kp_index pod, kp_error *err);
kp_status kp__sim_resize_retry(kp_sim *s, kp_index node, kp_error *err);
/* sim_ready.c: the first entry of a scenario list (lifetimes[], readiness[]) matching pod: its
 * namespace (when given) and its selector; NULL when none */
const kp_scenario_lifetime *kp__sim_first_match(const kp_sim *s, const kp_scenario_lifetime *l,
                                                size_t n, uint32_t pod);

/* sim_ready.c: readiness (docs/simulate.md "Readiness"). A pod whose containers start (bound,
 * named its node at creation: from_ms = now; the snapshot's bound pods not Ready at t = 0: from
 * their startTime) becomes Ready after its readiness[] entry's time, else its probes' delay, at
 * once without either; a restarted container makes it not Ready for that time again. */
int64_t kp__sim_ready_delay_ms(const kp_sim *s, uint32_t pod);
kp_status kp__sim_ready_plan(kp_sim *s, uint32_t pod, int64_t from_ms, kp_error *err);
kp_status kp__sim_ready_start(kp_sim *s, kp_error *err);
/* sim_ctrl.c: a planned Ready came (SIM_EV_READY: event PodReady), a container restarted (event
 * PodNotReady when it was Ready); the pod's controller and PDBs follow */
kp_status kp__sim_ready_timer(kp_sim *s, const sim_timer *t, kp_error *err);
kp_status kp__sim_ready_restart(kp_sim *s, uint32_t pod, const char *container, kp_error *err);

/* sim_actions.c: scenario actions and drains */
/* sim_actions.c: scenario actions */
kp_status kp__sim_apply_action(kp_sim *s, size_t i, kp_error *err);
/* sim_drain.c: kp__sim_cordon sets or clears spec.unschedulable (the kubelet's NodeSchedulable /
 * NodeNotSchedulable event, the node lifecycle controller's taint) */
kp_status kp__sim_cordon(kp_sim *s, kp_index n, bool on, kp_error *err);
/* sim_drain.c: drain action ai over node (-1: the nodes of its nodeSelector); a drain's retry
 * (SIM_EV_DRAIN_RETRY); the drains' memory */
kp_status kp__sim_drain_start(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_index node,
                              kp_error *err);
kp_status kp__sim_drain_step(kp_sim *s, kp_index node, kp_error *err);
void kp__sim_drains_free(kp_sim *s);

/* sim_kubelet.c: the nodes' kubelets (eviction manager, pressure taints) */
kp_status kp__sim_kubelets_start(kp_sim *s, kp_error *err);
kp_status kp__sim_kubelet_timer(kp_sim *s, kp_index node, kp_error *err);
bool kp__sim_kubelets_settled(const kp_sim *s); /* every bind seen by a kubelet pass */
void kp__sim_kubelets_free(kp_sim *s);
/* the node-pressure conditions (KP_NODE_COND_*) its eviction manager reports now */
unsigned kp__sim_kubelet_conditions(const kp_sim *s, kp_index node);

/* sim_admit_plan.c, sim_admit.c: the kubelets' admission of bound pods (docs/simulate.md
 * "Kubelets: admission"), on with the kubelets. A pod bound (by the scheduler, or named its
 * node at creation) is seen by its kubelet KP__SIM_ADMIT_DELAY_MS later and admitted with
 * kp_admit. */
#define KP__SIM_ADMIT_DELAY_MS 1000
kp_status kp__sim_admit_start(kp_sim *s, kp_error *err); /* the snapshot's pods not started */
kp_status kp__sim_admit_bound(kp_sim *s, uint32_t pod); /* plans its admission */
kp_status kp__sim_admit_timer(kp_sim *s, const sim_timer *t, kp_error *err);
/* the configuration of the node's kubelet: its pool's, else dflt */
const kp_evict_config *kp__sim_kubelet_config(const kp_sim *s, kp_index node,
                                              const kp_evict_config *dflt);
void kp__sim_admit_free(kp_sim *s);

#endif
