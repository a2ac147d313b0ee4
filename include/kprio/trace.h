/* Traces recorded from a live cluster (`kubectl kprio record`; the format: docs/live.md
 * "Recording a trace"): a snapshot, then the watch events of pods, nodes, workloads,
 * PodDisruptionBudgets, PriorityClasses and Events as kubectl printed them. `kprio simulate
 * --trace DIR` replays it.
 *
 * kp_trace_load reads the watch events and splits them in two: what the cluster's users (and
 * the controllers kprio does not simulate, an autoscaler's scale changes) did, as the actions of
 * a Scenario (include/kprio/scenario.h) played against the snapshot; and the decisions the
 * cluster made (Scheduled with its node, FailedScheduling, Preempted, the kubelets' Evicted),
 * kept to be compared. What kprio's own engines and controllers decide in the run (the pods a
 * ReplicaSet creates, the scheduler's bindings and preemptions) is left to the simulation.
 * kp_trace_compare pairs the simulated pods with the recorded ones and compares the decisions.
 *
 * Typical use:
 *     kp_cluster_load_path(cl, "trace/snapshot", true, &err); kp_cluster_finalize(cl, &err);
 *     kp_trace_load("trace", cl, &tr, &err);
 *     o.start_unix = kp_trace_start(tr); o.has_start = true;
 *     o.duration_ms = kp_trace_duration_ms(tr);
 *     kp_sim_new(cl, NULL, kp_trace_scenario(tr), &o, &sim, &err); kp_sim_run(sim, &err);
 *     kp_trace_compare(tr, sim, &cmp, &err);
 * Not thread-safe per object. */
#ifndef KP_TRACE_H
#define KP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_trace kp_trace;

/* The decisions compared. */
typedef enum {
    KP_TRACE_SCHEDULED = 0, /* bound to a node (the scheduler's Scheduled event, or spec.nodeName
                             * set on a pod the trace saw pending) */
    KP_TRACE_FAILED_SCHEDULING, /* the scheduler found no node (FailedScheduling) */
    KP_TRACE_PREEMPTED, /* the scheduler preempted the pod (Preempted, or the DisruptionTarget
                         * condition PreemptionByScheduler) */
    KP_TRACE_EVICTED, /* its kubelet evicted it (Warning Evicted, or TerminationByKubelet) */
    KP_TRACE_N_DECISIONS
} kp_trace_decision_kind;

/* "Scheduled", "FailedScheduling", "Preempted", "Evicted" ("?" out of range). */
const char *kp_trace_decision_name(kp_trace_decision_kind k);

/* How a recorded pod and a simulated one are paired: by name (the rank-th pod of that
 * namespace and name: 0 the first, 1 a pod created again under the same name, a StatefulSet's)
 * or, for a pod whose name the API server generated under a ReplicaSet, ReplicationController,
 * Job or DaemonSet (the simulated controller generates other names), by its controller and
 * rank (the rank-th pod that controller created in the run). */
typedef struct {
    const char *ns, *name; /* the pod (as recorded) */
    const char *owner_kind, *owner_name; /* "" when paired by name */
    uint32_t rank;
} kp_trace_pod_key;

typedef struct {
    int64_t t_ms; /* virtual time: from the trace's start */
    kp_trace_decision_kind kind;
    kp_trace_pod_key pod;
    const char *node; /* Scheduled: the node; the others: the node the pod was on ("" unknown) */
    const char *message; /* the event's message ("" none) */
} kp_trace_decision;

/* What the watch events became. */
typedef struct {
    uint64_t events; /* watch events read */
    uint64_t actions; /* scenario actions made of them */
    uint64_t controllers; /* pod and workload creations and deletions left to the simulated
                           * controllers and engines */
    uint64_t by_controller; /* deletions and evictions of pods whose name the API server
                             * generated, replayed on the simulated pod of the same controller
                             * and rank (kp_scenario_action.owner) */
    uint64_t decisions; /* decisions recorded (one per pod and kind) */
    uint64_t before_start; /* events the watches listed from before the start (skipped) */
} kp_trace_stats;

/* Loads the trace in directory dir: manifest.json, and the watch files it names. cl is the
 * trace's snapshot (dir/snapshot, loaded and finalized by the caller, with any what-if), used to
 * tell the objects the snapshot has (their first watch event is their state, not a creation)
 * from new ones. Errors: one line naming the file, the line and the field (KP_EINVAL,
 * KP_ESYNTAX, KP_EIO, KP_ELIMIT, KP_ENOMEM). */
kp_status kp_trace_load(const char *dir, const kp_cluster *cl, kp_trace **out, kp_error *err);
void kp_trace_free(kp_trace *tr);

/* The manifest's start (unix seconds; the snapshot's moment) and its end - start in ms. */
int64_t kp_trace_start(const kp_trace *tr);
int64_t kp_trace_duration_ms(const kp_trace *tr);
/* The actions replayed (borrowed; lives as long as tr). */
const kp_scenario *kp_trace_scenario(const kp_trace *tr);
void kp_trace_stats_get(const kp_trace *tr, kp_trace_stats *out);
/* Recorded decisions in time order (borrowed). */
size_t kp_trace_decision_count(const kp_trace *tr);
const kp_trace_decision *kp_trace_decision_get(const kp_trace *tr, size_t i);

/* ---- comparison ---- */

/* One decision of one pod on either side: recorded, simulated or both. */
typedef struct {
    kp_trace_decision_kind kind;
    const char *ns, *name; /* the recorded pod's name, else the simulated one's */
    const char *sim_name; /* the simulated pod's name ("" when none was paired) */
    bool recorded, simulated;
    int64_t rec_t_ms, sim_t_ms; /* -1 on the side that lacks it */
    const char *rec_node, *sim_node; /* "" on the side that lacks it or does not know */
    const char *rec_message, *sim_message;
    bool agree; /* both sides, and for Scheduled the same node */
} kp_trace_item;

typedef struct kp_trace_comparison kp_trace_comparison;

/* Compares the decisions of a finished (or running) simulation of tr's scenario with tr's.
 * Items in time order (the earlier of both sides' times). Errors: KP_ENOMEM. */
kp_status kp_trace_compare(const kp_trace *tr, const kp_sim *sim, kp_trace_comparison **out,
                           kp_error *err);
void kp_trace_comparison_free(kp_trace_comparison *c);
size_t kp_trace_item_count(const kp_trace_comparison *c);
const kp_trace_item *kp_trace_item_get(const kp_trace_comparison *c, size_t i);
/* Items of kind k (KP_TRACE_N_DECISIONS: all) and how many agree. */
void kp_trace_agreement(const kp_trace_comparison *c, kp_trace_decision_kind k, uint64_t *items,
                        uint64_t *agree);
/* Of the replayed actions: how many the simulated cluster refused (ActionFailed events: an
 * object it did not have or no longer had, a create it refused), and of the by_controller
 * deletions, how many found no simulated pod to delete (the run's controller created fewer
 * pods, or that one was gone already): not replayed. */
void kp_trace_refused(const kp_trace_comparison *c, uint64_t *refused, uint64_t *unmapped);

#ifdef __cplusplus
}
#endif
#endif
