/* `kprio simulate`: the cluster played forward in virtual time. A deterministic discrete-event
 * simulation that drives kprio's engines (include/kprio/sched.h) through their public calls:
 * the scheduling queue (activeQ, backoffQ, unschedulable pods), preemption actuated as the
 * newest line does (victims terminate over their grace period, the preemptor waits nominated),
 * controllers that keep their replica counts, the disruption controller's PDB status, and the
 * timed actions of a Scenario (include/kprio/scenario.h). docs/simulate.md documents the model
 * and where it simplifies upstream.
 *
 * Typical use:
 *     kp_sim_options o;
 *     kp_sim_options_init(&o);
 *     o.duration_ms = 3600 * 1000;
 *     kp_sim *sim;
 *     kp_sim_new(cl, cfg, scenario, &o, &sim, &err);   // cl finalized; cfg, scenario may be NULL
 *     kp_sim_run(sim, &err);                           // or kp_sim_run_until(sim, t, &err)
 *     for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
 *         const kp_sim_event *e = kp_sim_event_get(sim, i);
 *         printf("%lld %s %s\n", (long long)e->t_ms, e->reason, e->message);
 *     }
 *     kp_sim_free(sim);
 *
 * The simulation mutates the cluster it was given (it is the simulation's state: read it with
 * kprio/cluster.h at any time). Same inputs and seed give the same events, byte for byte:
 * simulated time is data, never the wall clock. Not thread-safe. */
#ifndef KP_SIM_H
#define KP_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/eviction.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_sim kp_sim;

/* The default and the cap of a run without a duration: until nothing can change, at most 24h. */
#define KP_SIM_MAX_DURATION_MS (24LL * 3600 * 1000)
/* Limits of one run (kp_sim_step fails with KP_ELIMIT naming them): the pods the run's
 * controllers create (a `scale` to a billion replicas ends with an error, not out of memory after
 * hours), and the rounds (timers, controllers, scheduler) played within one instant of virtual
 * time (pods that end the instant they start and are replaced at once, a lifetime of `0s` on a
 * ReplicaSet's pods, would otherwise be recreated for ever while the clock stands still). */
#define KP_SIM_MAX_CREATED_PODS 1000000u
#define KP_SIM_MAX_ROUNDS_PER_INSTANT 10000u
/* The most points of the samples' series (kp_sim_options.sample_every_ms): past it the step
 * doubles. */
#define KP_SIM_MAX_SAMPLES 65536u

typedef struct {
    int64_t duration_ms; /* 0 = the scenario's, else until quiet (capped at 24h) */
    uint64_t seed; /* used when has_seed; else the scenario's, else 0 */
    bool has_seed;
    const char *compat; /* an older line (kp_sched_options.compat); NULL = newest */
    /* t = 0 as unix seconds when has_start (`kprio simulate --start`); else the snapshot's newest
     * timestamp (kp_sim_epoch). No earlier than that timestamp: the snapshot's pods are never
     * younger than the simulation (KP_EINVAL naming both times). */
    int64_t start_unix;
    bool has_start;
    /* kube-scheduler's queue settings (KubeSchedulerConfiguration defaults) */
    int64_t pod_initial_backoff_ms; /* 1000 */
    int64_t pod_max_backoff_ms; /* 10000 */
    int64_t max_in_unschedulable_ms; /* podMaxInUnschedulablePodsDuration, 300000 */
    int64_t flush_unschedulable_every_ms; /* 30000 */
    int64_t flush_backoff_every_ms; /* 1000 */
    /* Kubelets (docs/simulate.md "Kubelets"): every node's eviction manager runs each 10s on
     * the pods' usage. On when kubelets is set, when kubelet_config is given (a finished
     * kprio/eviction.h configuration, borrowed; NULL = the kubelet's defaults) or when the
     * scenario has usage models. */
    bool kubelets;
    const kp_evict_config *kubelet_config;
    /* Called with the Summary API document (JSON text, len bytes; borrowed for the call) a
     * node's kubelet observed, at each pass that runs a synchronize step, before the step (the
     * time is kp_sim_now; `kprio simulate --dump-summaries`). The kubelets fill their summaries
     * directly; the text is written for this hook only (kp_evict_summary_encode_json). A status
     * other than KP_OK stops the run with it. NULL = none. */
    /* The simulated nodes' filesystems (docs/simulate.md "Kubelets"): KP_EVFS_AUTO / SHARED one
     * disk for everything; DEDICATED images and containers' writable layers on a second disk
     * of the node's size (runtime.imageFs = containerFs); SPLIT images on the second disk,
     * writable layers on the node's (containerFs = node.fs). The kubelets detect it from their
     * summaries, as from the runtime. */
    kp_evict_fs_layout fs_layout;
    kp_status (*summary_hook)(void *ctx, const kp_sim *sim, kp_index node, const char *json,
                              size_t len, kp_error *err);
    void *summary_ctx;
    /* Per node pool (docs/simulate.md "Kubelets: admission"): the first pool whose selector
     * matches a node's labels gives its kubelet's configuration (eviction and admission); a
     * node no pool matches gets kubelet_config. Borrowed. Pools turn the kubelets on. */
    const struct kp_sim_kubelet_pool *kubelet_pools;
    size_t n_kubelet_pools;
    /* Tracing and tests: called right before each scheduling attempt (r NULL; the cluster is the
     * state the attempt sees, at virtual time kp_sim_now) and right after it (r: the scheduler's
     * result for the pod; its victims and pdb_violations add up over the pod's attempts).
     * NULL = none. The hook must not change the simulation or its cluster. */
    void (*attempt_hook)(void *ctx, const kp_sim *sim, kp_index pod, const kp_sched_pod_result *r);
    void *attempt_ctx;
    /* Tests: called at each kubelet admission (a bound pod its node's kubelet sees) right after
     * kp_admit decided and before the decision is applied: `conditions` are the node-pressure
     * conditions it was given (KP_NODE_COND_*), `a` the decision (kprio/admission.h). NULL =
     * none. The hook must not change the simulation or its cluster. */
    void (*admit_hook)(void *ctx, const kp_sim *sim, kp_index node, kp_index pod,
                       unsigned conditions, const kp_admission *a);
    void *admit_ctx;
    /* Samples (kp_sim_sample_get): the queue and the counters every sample_every_ms of virtual
     * time (default 10000; 0 = none). Cost follows the events: an idle stretch copies the last
     * sample. The series is bounded: when it would pass KP_SIM_MAX_SAMPLES points, every other
     * point goes and the step doubles (kp_sim_sample_step gives the step in force). */
    int64_t sample_every_ms;
    /* The run's limits (0: KP_SIM_MAX_CREATED_PODS, KP_SIM_MAX_ROUNDS_PER_INSTANT). */
    uint64_t max_created_pods, max_rounds_per_instant;
    /* A scenario action naming an object the run never had is refused (an ActionFailed event,
     * kubectl's NotFound) instead of ending the run as a bad scenario: a replayed trace
     * (kprio/trace.h), whose objects' creations the simulated cluster may have refused. */
    bool refuse_unknown_refs;
} kp_sim_options;

/* One node pool's kubelet configuration: nodes whose labels satisfy every requirement
 * (kp_cluster_node_matches; none: every node) get `config` (a finished kprio/eviction.h
 * configuration, borrowed). */
typedef struct kp_sim_kubelet_pool {
    const kp_selector_req *reqs;
    size_t n_reqs;
    const kp_evict_config *config;
} kp_sim_kubelet_pool;

/* Defaults as commented above. */
void kp_sim_options_init(kp_sim_options *o);

/* Creates a simulation over a finalized cluster (borrowed; it must outlive the simulation and
 * is changed by it). cfg: the scheduler configuration (NULL = default profile; copied).
 * scenario: timed actions (NULL = none; borrowed, must outlive the simulation). At t = 0 the
 * snapshot's pending pods enter the queue, terminating pods finish their grace period from
 * their deletionTimestamp, nominated pods keep their nominations. Errors: KP_EINVAL (cluster
 * not finalized, bad compat), KP_ENOMEM. */
kp_status kp_sim_new(kp_cluster *cl, const kp_sched_config *cfg, const kp_scenario *scenario,
                     const kp_sim_options *opt, kp_sim **out, kp_error *err);
void kp_sim_free(kp_sim *sim);

/* Plays every event up to and including virtual time t_ms (relative to the start). Errors: as
 * the engines' (KP_ENOMEM), or a scenario action that cannot be applied (KP_EINVAL, naming
 * the scenario file and action index). */
kp_status kp_sim_run_until(kp_sim *sim, int64_t t_ms, kp_error *err);
/* Plays one event; *more false when the run has ended. */
kp_status kp_sim_step(kp_sim *sim, bool *more, kp_error *err);
/* Plays to the end (the duration, or quiet, or the 24h cap). */
kp_status kp_sim_run(kp_sim *sim, kp_error *err);

/* Virtual time now (ms from the start), and the unix time of the start (the latest timestamp of
 * the snapshot, so the snapshot's pods are never younger than the simulation). */
int64_t kp_sim_now(const kp_sim *sim);
int64_t kp_sim_epoch(const kp_sim *sim);
/* Why the run ended: "duration", "quiet" (nothing pending could change), "cap" (24h without a
 * duration); "" while running. */
const char *kp_sim_end_reason(const kp_sim *sim);
kp_cluster *kp_sim_cluster(const kp_sim *sim);

/* ---- events: a kubectl-events-like log, upstream's reasons and messages ---- */
typedef enum { KP_SIM_NORMAL = 0, KP_SIM_WARNING } kp_sim_event_type;

typedef struct {
    int64_t t_ms; /* virtual time */
    kp_sim_event_type type;
    const char *reason; /* Scheduled, FailedScheduling, Preempted, Killing, SuccessfulCreate,
                         * SuccessfulDelete, Completed, NodeNotSchedulable, Taint, ... */
    const char *kind; /* involved object: "Pod", "Node", "ReplicaSet", ... */
    const char *ns, *name;
    const char *message;
    kp_index pod, node; /* -1 when not a pod / not about a node */
    kp_index cause; /* the event (index) this one follows from, -1: the preemption that
                     * killed a victim, the deletion a controller replaced */
} kp_sim_event;

size_t kp_sim_event_count(const kp_sim *sim);
/* Event i in time order; NULL out of range. Borrowed: valid until the simulation is freed. */
const kp_sim_event *kp_sim_event_get(const kp_sim *sim, size_t i);

/* ---- per-pod timelines (every pod the run saw: the snapshot's and the ones it created) ---- */
typedef enum {
    KP_SIM_POD_PENDING = 0,
    KP_SIM_POD_BOUND,
    KP_SIM_POD_TERMINATING,
    KP_SIM_POD_SUCCEEDED,
    KP_SIM_POD_FAILED,
    KP_SIM_POD_DELETED
} kp_sim_pod_state;

/* Times in virtual ms, -1 when it did not happen. */
typedef struct {
    kp_index pod;
    kp_sim_pod_state state; /* at the end (or now) */
    int64_t created_ms; /* -1 for pods of the snapshot */
    int64_t first_nominated_ms, bound_ms, terminating_ms, gone_ms;
    kp_index node; /* bound node (last one), -1 */
    kp_index nominated_node; /* last nomination, -1 */
    uint32_t attempts; /* scheduling attempts */
    const char *cause; /* why it ended: "preempted", "deleted", "succeeded", "evicted", "" */
    kp_index preempted_by; /* the preemptor, -1 */
    kp_index replaces; /* the pod its controller made it to replace, -1 */
    const char *last_message; /* the last FailedScheduling message, "" */
    uint32_t restarts; /* container restarts after OOM kills (the kubelets) */
    /* readiness (docs/simulate.md "Readiness"): ready_ms, when it first became Ready in the run
     * (0 for a pod of the snapshot Ready at t = 0; a pod Ready as soon as bound has ready_ms ==
     * bound_ms; -1: never); ready, whether it is Ready at the end (or now: kp_cluster_pod_ready) */
    int64_t ready_ms;
    bool ready;
} kp_sim_pod;

/* "Pending", "Bound", "Terminating", "Succeeded", "Failed", "Deleted" ("?" out of range). */
const char *kp_sim_pod_state_name(kp_sim_pod_state s);

size_t kp_sim_pod_count(const kp_sim *sim);
/* Timeline i (pods in index order); NULL out of range. Borrowed. */
const kp_sim_pod *kp_sim_pod_get(const kp_sim *sim, size_t i);

/* The ranking a node's kubelet evicted a pod from (its latest threshold eviction in the run;
 * local-storage evictions have none): for kp_evict_explain. */
typedef struct {
    kp_index node;
    int64_t t_ms; /* virtual time of the eviction */
    const char *signal; /* the threshold's signal */
    const char *message; /* the pod status message */
    kp_evict_rank_kind kind;
    const kp_evict_rank_entry *ranking; /* n_ranking entries, ranking order (pods: the run's
                                           cluster, kp_sim_cluster) */
    size_t n_ranking;
    size_t position; /* the pod's place */
} kp_sim_eviction_ranking;
/* Fills *out for pod (a kp_sim_cluster pod index) and returns true when a kubelet evicted it by
 * ranking; false otherwise. Borrowed from the simulation (valid until kp_sim_free). */
bool kp_sim_eviction_ranking_get(const kp_sim *sim, kp_index pod, kp_sim_eviction_ranking *out);

/* The field of the scenario's usage entry i (kp_scenario.usage) that matched nothing the run's
 * kubelets observed so far, for a warning (docs/scenario.md "Usage"): "node" (no node of that
 * name), "selector" (no pod on a node matched the selector and namespace), "container" /
 * "volume" (none of the pods it matched had an app container / emptyDir volume of that name).
 * NULL when everything matched, for node "*", or i out of range. */
const char *kp_sim_usage_unmatched(const kp_sim *sim, size_t i);

/* When PodDisruptionBudget `pdb` (a kp_cluster_pdb_* index) existed in the run: from *from_ms (0
 * for the snapshot's) to *to_ms (deleted then; -1: to the end). false for a bad index. */
bool kp_sim_pdb_span(const kp_sim *sim, kp_index pdb, int64_t *from_ms, int64_t *to_ms);
/* PDB pdb's status.desiredHealthy as the disruption controller last wrote it at or before t_ms
 * (its first value before its first sync); 0 for a bad index. */
int32_t kp_sim_pdb_desired_at(const kp_sim *sim, kp_index pdb, int64_t t_ms);
/* The instants at which PDB pdb's desiredHealthy took a new value (*t_ms, in time order; the
 * values in *values), borrowed until the simulation runs again; 0 for a bad index. */
size_t kp_sim_pdb_desired_history(const kp_sim *sim, kp_index pdb, const int64_t **t_ms,
                                  const int32_t **values);

/* ---- counters ---- */

/* What disrupted a running pod (docs/simulate.md "Disruptions"): each pod bound to a node and
 * not finished is counted once, under the first of these that ended it. */
typedef enum {
    KP_SIM_DISRUPT_PREEMPTION = 0, /* the scheduler preempted it (Preempted) */
    KP_SIM_DISRUPT_NODE_PRESSURE, /* its kubelet's eviction manager evicted it (Warning Evicted) */
    KP_SIM_DISRUPT_ADMISSION, /* its kubelet preempted it to admit a critical pod (Preempting) */
    KP_SIM_DISRUPT_EVICTION_API, /* evicted through the Eviction API: a drain (Normal Evicted) */
    KP_SIM_DISRUPT_TAINT, /* the taint-eviction controller: a NoExecute taint
                           * (TaintManagerEviction) */
    KP_SIM_DISRUPT_DELETION, /* deleted: by the scenario, a controller (scale-down, garbage
                              * collector), or with its node */
    KP_SIM_N_DISRUPT
} kp_sim_disruption;

/* "preemption", "nodePressure", "admission", "evictionAPI", "taintManager", "deletion" (the
 * JSON keys and metric label values); "?" out of range. */
const char *kp_sim_disruption_name(kp_sim_disruption d);
/* A short phrase for people: "scheduler preemption", "kubelet node pressure", "kubelet
 * admission", "Eviction API (drain)", "taint manager (NoExecute)", "deletion"; "?". */
const char *kp_sim_disruption_title(kp_sim_disruption d);

typedef struct {
    uint64_t events;
    uint64_t attempts; /* scheduling attempts (scheduler_schedule_attempts_total) */
    uint64_t scheduled, unschedulable, errors; /* attempts by result */
    uint64_t preemption_attempts; /* scheduler_preemption_attempts_total */
    uint64_t preemptions; /* attempts that nominated a node */
    uint64_t victims;
    uint64_t pods_created, pods_deleted, pods_succeeded, pods_failed;
    uint64_t pending_at_end, gated_at_end;
    int64_t longest_wait_ms; /* longest time from queueing to binding */
    uint64_t kubelet_steps; /* eviction-manager synchronize steps the kubelets ran */
    uint64_t kubelet_quiet_passes; /* passes skipped: nothing changed since a quiet step */
    uint64_t kubelet_evictions; /* pods the kubelets evicted */
    uint64_t oom_kills; /* containers OOM-killed at their memory limit (and restarted) */
    uint64_t kubelet_rejections; /* bound pods their kubelet refused at admission */
    uint64_t kubelet_preemptions; /* pods a kubelet killed to admit a critical pod */
    kp_index longest_wait_pod;
    /* running pods disrupted, by what disrupted them (kp_sim_disruption; each pod once) */
    uint64_t disruptions[KP_SIM_N_DISRUPT];
} kp_sim_counters;

void kp_sim_counters_get(const kp_sim *sim, kp_sim_counters *out);

/* ---- samples: the state at t = 0, step, 2*step, ... up to the end (the time series of
 * `--metrics` and the report's charts). Each is the state after every event of its instant and
 * before the next instant's; the counters are cumulative. ---- */
typedef struct {
    int64_t t_ms;
    /* scheduler_pending_pods{queue}: activeQ, backoffQ, unschedulablePods (not gated), gated */
    uint32_t active, backoff, unschedulable, gated;
    kp_sim_counters c; /* the counters then (pending_at_end / gated_at_end: 0) */
} kp_sim_sample;

size_t kp_sim_sample_count(const kp_sim *sim);
/* Sample i in time order; NULL out of range. Borrowed: valid until the next step or free. */
const kp_sim_sample *kp_sim_sample_get(const kp_sim *sim, size_t i);
int64_t kp_sim_sample_step(const kp_sim *sim); /* sample_every_ms (0: no samples) */

/* ---- devices (Dynamic Resource Allocation): the run's account per device class (the first
 * request's deviceClassName of a claim), in the order the run first met each class. ---- */
typedef struct {
    const char *device_class; /* borrowed from the cluster */
    uint64_t claims_created; /* claims the resourceclaim controller made from templates */
    uint64_t claims_deleted; /* generated claims deleted with their pods */
    uint64_t allocations; /* claims allocated at a binding (the scheduler's PreBind) */
    uint64_t devices_allocated; /* devices in those allocations */
    uint64_t deallocations; /* allocations cleared when their last consumer ended */
    uint64_t pods_bound; /* pods with a claim of the class bound in the run */
    int64_t wait_ms_sum, wait_ms_max; /* their time from creation (t = 0 for the snapshot's) */
    uint64_t pods_waiting; /* pods with such a claim pending now (not bound, not ended) */
    uint64_t holders_preempted; /* preemption victims holding an allocated claim of the class */
} kp_sim_device_class;
size_t kp_sim_device_class_count(const kp_sim *sim);
/* KP_EINVAL: out of range */
kp_status kp_sim_device_class_get(const kp_sim *sim, size_t i, kp_sim_device_class *out);
/* Whether pod (kp_sim_pod_get index) has a claim of device class i (kp_sim_device_class_get
 * order) now, or was bound with one (its generated claims are deleted when it ends). */
bool kp_sim_pod_device_class(const kp_sim *sim, size_t pod, size_t i);

#ifdef __cplusplus
}
#endif
#endif
