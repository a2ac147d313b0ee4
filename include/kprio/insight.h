/* What a simulation means (`kprio simulate`, docs/simulate.md "Findings"): the run's events and
 * timelines (kprio/sim.h) turned into findings — loops, cascades, starvation, PDB pressure,
 * pressure hot spots —, most severe first, each naming its objects and times and linking back
 * to the events; and the differences between two runs from the same snapshot and seed
 * (`--compare`). Built on the public API only; computed after the run, never during it.
 *
 * Typical use:
 *     kp_sim_run(sim, &err);
 *     kp_insight *in;
 *     kp_insight_new(sim, NULL, &in, &err);
 *     for (size_t i = 0; i < kp_insight_finding_count(in); i++)
 *         puts(kp_insight_finding_get(in, i)->summary);
 *     kp_insight_free(in);   // before the simulation: findings borrow its strings */
#ifndef KP_INSIGHT_H
#define KP_INSIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"
#include "kprio/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KP_FINDING_LOOP = 0, /* a workload's pods preempted or evicted and recreated again and again */
    KP_FINDING_CASCADE, /* one preemption or eviction that led, through replacements, to more */
    KP_FINDING_STARVATION, /* a pod pending longer than the threshold */
    KP_FINDING_PDB_PRESSURE, /* a PDB at zero allowed disruptions / preemptions violating one */
    KP_FINDING_PRESSURE_HOTSPOT, /* a node long under a pressure condition, and what it evicted */
    KP_FINDING_DEVICE_CONTENTION /* a device class's pods waiting for devices, its allocations
                                  * churning, or its holders preempted again and again */
} kp_finding_kind;

typedef enum {
    KP_SEVERITY_INFO = 0,
    KP_SEVERITY_WARNING,
    KP_SEVERITY_CRITICAL
} kp_finding_severity;

/* A cascade's tree: who displaced whom. */
typedef struct {
    long event; /* the preemption / eviction (or the replacement's creation) event, sim index */
    kp_index pod; /* the displaced pod */
    int32_t parent; /* index into kp_finding.tree of what displaced it; -1 for the root */
    uint32_t depth; /* 0 for the root */
} kp_finding_link;

typedef struct {
    kp_finding_kind kind;
    kp_finding_severity severity;
    const char *kind_name; /* "Loop", "Cascade", "Starvation", "PDBPressure", "PressureHotSpot",
                            * "DeviceContention" */
    /* the object it is about: the workload (Loop), the first displaced pod (Cascade), the pod
     * group (Starvation: the top workload of its pods, kp_cluster_workload_top; pods without
     * owner: "PodGroup" namespace / priorityClassName, or the "Pod" when it is alone), the
     * PodDisruptionBudget, the Node, the DeviceClass (DeviceContention) */
    const char *subject_kind, *subject_ns, *subject_name;
    const char *summary; /* one line, e.g. "ReplicaSet default/web: 4 turns of preempt ->
                          * recreate every 40s (pods ..., nodes ...)" */
    const char *detail; /* more lines ("" when none): the reason a starving pod could not be
                         * placed and whether preemption was tried, the condition and its time */
    int64_t first_ms, last_ms; /* virtual times it spans */
    int64_t period_ms; /* Loop: the median time between turns; else 0 */
    uint32_t count; /* Loop: turns; Cascade: pods displaced; Starvation: pods; PDBPressure:
                     * preemption victims that violated it; PressureHotSpot: evictions */
    uint32_t depth; /* Cascade: deepest level (root = 0); else 0 */
    int64_t duration_ms; /* Starvation: time pending; PDBPressure: time at zero allowed;
                          * PressureHotSpot: time under the condition; else 0 */
    const long *events; /* the events it links to (sim indices, time order, each once); for a
                         * Loop the decision that starts each turn comes first in each turn
                         * (docs/simulate.md "Findings" lists what each kind links) */
    size_t n_events;
    const kp_index *pods; /* the pods involved */
    size_t n_pods;
    const kp_index *nodes; /* the nodes involved */
    size_t n_nodes;
    const kp_finding_link *tree; /* Cascade only */
    size_t n_tree;
    const char *condition; /* PressureHotSpot: "MemoryPressure", "DiskPressure" or
                            * "PIDPressure" (one finding per node and condition);
                            * DeviceContention: "Wait" (count: pods that waited longer than the
                            * threshold for devices, duration_ms and pod: the longest),
                            * "Churn" (count: allocations released and made again),
                            * "PreemptionLoop" (count: device holders preempted); else "" */
    kp_index pod; /* Starvation, DeviceContention "Wait": the pod that waited longest (its wait:
                   * duration_ms); else -1 */
    uint32_t never_bound; /* Starvation, DeviceContention "Wait": pods never bound */
    uint32_t blocked; /* PDBPressure: evictions it blocked */
} kp_finding;

typedef struct {
    int64_t starvation_ms; /* a pod pending longer is starving (default 300000, 5 min) */
    uint32_t loop_min_turns; /* turns that make a loop (default 3) */
    uint32_t cascade_min_depth; /* depth that makes a cascade worth reporting (default 2) */
} kp_insight_options;

void kp_insight_options_init(kp_insight_options *o);

typedef struct kp_insight kp_insight;

/* Findings of a run (ended or not). sim borrowed: free the insight first. NULL options =
 * defaults. KP_ENOMEM. */
kp_status kp_insight_new(const kp_sim *sim, const kp_insight_options *opt, kp_insight **out,
                         kp_error *err);
void kp_insight_free(kp_insight *in);
/* Most severe first; within a severity what broke a guarantee before what waited (kinds in the
 * order PDBPressure, Loop, Cascade, PressureHotSpot, DeviceContention, Starvation); Starvation
 * groups by pods, then longest wait; then first_ms, subject (deterministic). */
size_t kp_insight_finding_count(const kp_insight *in);
const kp_finding *kp_insight_finding_get(const kp_insight *in, size_t i);

/* What the findings add up to, for a one-line answer ("2 PDBs violated, 1 loop, 47 pods of 3
 * workloads starved"). */
typedef struct {
    uint32_t pdbs_violated; /* PDBPressure with a preemption violating it */
    uint32_t pdbs_at_zero; /* PDBPressure without one (at zero allowed, evictions blocked) */
    uint32_t evictions_blocked; /* over every PDBPressure */
    uint32_t loops, cascades;
    uint32_t starved_pods; /* over every Starvation finding */
    uint32_t starved_never_bound;
    uint32_t starved_workloads, starved_groups; /* Starvation findings of a workload / without */
    uint32_t starved_owned_pods; /* starved_pods of the workloads' findings */
    uint32_t hotspots, hotspot_evictions; /* PressureHotSpot findings, their evictions */
    uint32_t device_contentions; /* DeviceContention findings */
    uint32_t critical, warning, info; /* findings by severity */
} kp_insight_totals;
void kp_insight_totals_get(const kp_insight *in, kp_insight_totals *out);

/* Time from creation (or t = 0) to binding of the run's pods that were pending at some time
 * (never bound: until they went, or the end): out[0..3] = p50, p90, p99 (nearest rank) and max,
 * ms; 0 when none was. The figures of kp_compare.pending_a. KP_ENOMEM. */
kp_status kp_insight_pending_times(const kp_sim *sim, int64_t out[4]);

/* ---- what-if: two runs from the same snapshot and seed (`kprio simulate --compare`) ---- */

/* A pod that ended differently. Pods are matched by owner and ordinal when a controller
 * created them during the run (the i-th pod an owner created in A against its i-th in B, in
 * creation order: generated names differ between runs), else by namespace/name (the snapshot's
 * pods, the scenario's; the last pod of a name). pod_a / pod_b -1 when only one run has it. */
typedef struct {
    const char *ns, *name; /* name: A's (B's when only B has it) */
    kp_index pod_a, pod_b;
    kp_index node_a, node_b; /* last bound node, -1 */
    kp_sim_pod_state state_a, state_b;
    const char *name_b; /* B's name (== name when the same or only one run has it) */
    const char *owner_kind, *owner_name; /* matched by owner: its controller, else "" */
    uint32_t ordinal; /* matched by owner: the pod's place among the owner's pods created in
                         the run (0 = first) */
} kp_compare_pod;

/* One PriorityClass in both runs (kp_insight_compare_by_class, `--compare-priorities`): its
 * value in each run's cluster at the end, and what its pods went through. */
typedef struct {
    const char *name; /* "" for the pods without a class */
    bool has_a, has_b; /* the class exists at the end of run A / B */
    int32_t value_a, value_b;
    uint32_t pods_a, pods_b; /* pods of the class the run saw */
    uint32_t preemptions_a, preemptions_b; /* preemptions its pods made (as preemptors) */
    uint32_t victims_a, victims_b; /* its pods preempted by the scheduler */
    uint32_t findings_a, findings_b; /* findings involving one of its pods (a finding counts for
                                      * every class of its pods) */
    int64_t pending_a[4], pending_b[4]; /* pending-time p50, p90, p99, max (as kp_compare's) */
} kp_compare_class;

typedef struct {
    kp_sim_counters a, b;
    /* time from creation (or t = 0) to binding, over pods that were pending at some time
     * (never bound: counted until the end): percentiles 50, 90, 99 and max, ms */
    int64_t pending_a[4], pending_b[4];
    uint64_t evictions_a, evictions_b; /* pods the kubelets evicted */
    /* when the last Deployment rollout (a new revision: a changed template) completed, ms
     * (NewReplicaSetAvailable); KP_COMPARE_ROLLOUT_NOT_DONE when one was still under way (or
     * past its progress deadline) at the end, KP_COMPARE_NO_ROLLOUT when no Deployment rolled
     * out */
    int64_t rollout_a, rollout_b;
    /* time, summed over the PDBs, a PDB had fewer healthy pods than its desiredHealthy, ms */
    int64_t pdb_below_a, pdb_below_b;
    const kp_compare_pod *pods;
    size_t n_pods;
    /* findings of one run with no finding of the same kind and subject in the other:
     * indices into kp_insight_finding_get of a / b */
    const size_t *only_a, *only_b;
    size_t n_only_a, n_only_b;
    /* per PriorityClass, after kp_insight_compare_by_class (else NULL, 0): the classes whose pods
     * either run saw, highest value first ("" last) */
    const kp_compare_class *classes;
    size_t n_classes;
} kp_compare;

#define KP_COMPARE_ROLLOUT_NOT_DONE (-1)
#define KP_COMPARE_NO_ROLLOUT (-2)

typedef struct kp_insight_compare kp_insight_compare;

/* The differences between run a and run b (each with its insight). All borrowed: free the
 * comparison first. KP_ENOMEM. */
kp_status kp_insight_compare_new(const kp_sim *a, const kp_insight *ia, const kp_sim *b,
                                 const kp_insight *ib, kp_insight_compare **out, kp_error *err);
const kp_compare *kp_insight_compare_get(const kp_insight_compare *c);
/* Adds the per-PriorityClass figures (kp_compare.classes) to a comparison of the same runs: a
 * pod's class is its priorityClassName in its run, a preemption counts for the preemptor's class,
 * a victim for its own. KP_ENOMEM. */
kp_status kp_insight_compare_by_class(kp_insight_compare *c, const kp_sim *a, const kp_insight *ia,
                                      const kp_sim *b, const kp_insight *ib, kp_error *err);
void kp_insight_compare_free(kp_insight_compare *c);

#ifdef __cplusplus
}
#endif
#endif
