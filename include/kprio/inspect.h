/* Inspection of a loaded cluster: the data behind `kprio inspect` (a kubectl-describe-style
 * overview), computed once from a finalized cluster and read through accessors.
 *
 * Typical use:
 *     kp_inspection *in = NULL;
 *     if (kp_inspection_new(cl, &in, &err) != KP_OK) ...;      // KP_ENOMEM, KP_EINVAL
 *     for (size_t i = 0; i < kp_inspection_node_count(in); i++) {
 *         const kp_inspect_node *n = kp_inspection_node(in, i);  // sorted by name
 *         ...
 *     }
 *     kp_inspection_free(in);
 *
 * Rows are sorted deterministically: nodes by name, PriorityClasses by value (highest first) then
 * name, PodDisruptionBudgets by namespace then name, attach limits by node name, claims and
 * warnings in pod load order. Every pointer a
 * row holds (names, the per-class counts) is borrowed: valid until the inspection is freed, and,
 * for names, as long as the cluster is neither freed nor mutated (the inspection borrows the
 * cluster's strings; it is a snapshot of counts, not a live view). */
#ifndef KP_INSPECT_H
#define KP_INSPECT_H

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_inspection kp_inspection;

/* Cluster-wide counts. */
typedef struct {
    size_t nodes, pods;
    size_t pending_pods; /* not bound, not terminal (Succeeded/Failed), not terminating */
    size_t terminating_pods; /* deletionTimestamp set */
    size_t nominated_pods; /* status.nominatedNodeName set (and not terminating) */
    size_t
        class_missing_pods; /* PriorityClass deleted since admission (and neither of the above) */
    size_t priority_classes, pod_disruption_budgets;
    size_t gated_pods; /* pending pods with spec.schedulingGates (also counted in pending_pods) */
} kp_inspect_summary;

/* Pods of one PriorityClass on a node. */
typedef struct {
    const char *priority_class; /* "" = pods without an existing PriorityClass */
    size_t pods;
} kp_inspect_count;

/* One node, as `kubectl describe node` summarises it ("Allocated resources"). Percentages are
 * requested * 100 / allocatable rounded toward zero (0 when allocatable is 0 or less), exact for
 * every int64 amount, and saturate at INT64_MAX / INT64_MIN instead of wrapping. */
typedef struct {
    const char *name;
    bool unschedulable, tainted;
    int64_t allocatable_cpu_milli, allocatable_memory, allocatable_pods;
    int64_t requested_cpu_milli, requested_memory, requested_pods; /* requested_pods = pods bound */
    int64_t percent_cpu, percent_memory, percent_pods;
    size_t pods_guaranteed, pods_burstable, pods_besteffort; /* by QoS class */
    /* Pods by PriorityClass: classes in PriorityClass row order, then "" (no class); classes
     * with no pod on the node are left out. */
    size_t n_by_class;
    const kp_inspect_count *by_class;
} kp_inspect_node;

/* One PriorityClass (built-in ones included). */
typedef struct {
    const char *name;
    int32_t value;
    bool global_default;
    const char *preemption_policy; /* "PreemptLowerPriority" or "Never" */
    size_t pods; /* pods of this class in the whole cluster */
} kp_inspect_class;

/* One PodDisruptionBudget. */
typedef struct {
    const char *ns, *name; /* namespace, name */
    const char *min_available, *max_unavailable; /* int-or-string as written; NULL when unset */
    bool has_status; /* status present: disruptions_allowed is meaningful */
    int32_t disruptions_allowed; /* status.disruptionsAllowed */
    size_t disrupted_pods; /* entries of status.disruptedPods */
} kp_inspect_pdb;

/* Attached volumes of one node against one CSI driver's limit, as NodeVolumeLimits counts them:
 * one row per node and driver with spec.drivers[].allocatable.count in the node's CSINode (rows
 * by node name, then the CSINode's driver order). */
typedef struct {
    const char *node, *driver;
    int64_t limit; /* allocatable.count */
    size_t in_use; /* unique volumes of the driver used by the node's pods */
    size_t held; /* held by the node's VolumeAttachments and used by no pod on the node */
} kp_inspect_attach;

/* One claim (persistentVolumeClaim or generic ephemeral volume) of a pending pod, and where its
 * volume can go (rows in pod load order, then the pod's volume order). */
typedef struct {
    const char *ns, *pod, *claim;
    /* "Bound" (spec.volumeName and the bind-completed annotation), "Pending", "Lost", or
     * "Missing" (no such claim in the input) */
    const char *phase;
    const char *volume; /* spec.volumeName ("" when none) */
    const char *storage_class; /* "" when none */
    /* nodes the volume can go to: a bound claim, those its PV's nodeAffinity admits (0 when the
     * PV is missing); a claim of a WaitForFirstConsumer class not bound yet, its selected-node (if
     * a node) or the nodes where a PV of its class could bind or its class can provision (its
     * allowedTopologies); other claims not bound yet, 0 (VolumeBinding rejects the pod) */
    size_t nodes;
    const char *first_node; /* the first of them by name ("" when none) */
    /* Storage capacity (VolumeBinding's hasEnoughCapacity) of a claim its class would provision:
     * checked when the claim requests storage and the class's provisioner is a CSIDriver with
     * storageCapacity; then `nodes` counts only nodes some CSIStorageCapacity of the class with a
     * large enough limit (maximumVolumeSize, else capacity) selects. */
    bool capacity_checked;
    int64_t request; /* bytes requested (capacity_checked) */
    int64_t largest_limit; /* the largest limit among the class's CSIStorageCapacity objects */
    size_t capacity_objects; /* how many CSIStorageCapacity objects the class has */
} kp_inspect_claim;

/* One device of a ResourceSlice (Dynamic Resource Allocation) and the claim holding it, rows by
 * node, driver, pool and device. */
typedef struct {
    /* the node the device is on: the slice's (or, per device, the device's) nodeName;
     * "<selector>" for a node selector, "<all>" for allNodes */
    const char *node;
    const char *driver, *pool, *device;
    const char *attributes; /* "name=value,..." (attributes then capacities; names of the
                               driver's own domain unqualified), "" when none */
    const char *claim_ns, *claim; /* the allocated claim holding it ("" when free) */
    const char *reserved_for; /* the first pod in the claim's reservedFor ("" when none) */
    size_t n_reserved; /* how many consumers reserve the claim */
} kp_inspect_device;

/* A ResourceClaim without an allocation, and why (rows by namespace and name). */
typedef struct {
    const char *ns, *name;
    const char *requests; /* "gpu: 1 x gpu.example.com; ..." ("all", "first of a|b") */
    const char *pod; /* the first pod naming it in spec.resourceClaims (or its status), "" none */
    size_t pods; /* how many pods name it */
    /* "waiting for the scheduler", "device class \"X\" does not exist", "not used by any pod" */
    const char *reason;
} kp_inspect_dra_claim;

/* Computes the inspection of a finalized cluster into *out (NULL on error). Errors: KP_EINVAL
 * (cluster not finalized), KP_ENOMEM. */
kp_status kp_inspection_new(const kp_cluster *cl, kp_inspection **out, kp_error *err);
/* Releases the inspection. NULL is a no-op. */
void kp_inspection_free(kp_inspection *in);

const kp_inspect_summary *kp_inspection_summary(const kp_inspection *in);
size_t kp_inspection_node_count(const kp_inspection *in);
const kp_inspect_node *kp_inspection_node(const kp_inspection *in,
                                          size_t i); /* NULL if out of range */
size_t kp_inspection_class_count(const kp_inspection *in);
const kp_inspect_class *kp_inspection_class(const kp_inspection *in, size_t i);
size_t kp_inspection_pdb_count(const kp_inspection *in);
const kp_inspect_pdb *kp_inspection_pdb(const kp_inspection *in, size_t i);
/* Attach limits (kp_inspect_attach): none when no CSINode reports a count. */
size_t kp_inspection_attach_count(const kp_inspection *in);
const kp_inspect_attach *kp_inspection_attach(const kp_inspection *in, size_t i);
/* Claims of pending pods (kp_inspect_claim). */
size_t kp_inspection_claim_count(const kp_inspection *in);
const kp_inspect_claim *kp_inspection_claim(const kp_inspection *in, size_t i);
/* Devices of the ResourceSlices (kp_inspect_device) and claims without an allocation
 * (kp_inspect_dra_claim); none without DRA objects. */
size_t kp_inspection_device_count(const kp_inspection *in);
const kp_inspect_device *kp_inspection_device(const kp_inspection *in, size_t i);
size_t kp_inspection_dra_claim_count(const kp_inspection *in);
const kp_inspect_dra_claim *kp_inspection_dra_claim(const kp_inspection *in, size_t i);
/* Warnings for state that changes decisions: terminating pods (and whether they are preemption
 * victims), nominated pods, pods whose PriorityClass no longer exists, pods held back by
 * scheduling gates. One line each. */
size_t kp_inspection_warning_count(const kp_inspection *in);
const char *kp_inspection_warning(const kp_inspection *in, size_t i);

/* requested * 100 / allocatable as kp_inspect_node reports it (exported for tests and for callers
 * that compute their own rows). */
int64_t kp_inspect_percent(int64_t requested, int64_t allocatable);

#ifdef __cplusplus
}
#endif
#endif
