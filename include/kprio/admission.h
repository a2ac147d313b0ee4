/* Kubelet pod admission and critical-pod admission preemption.
 *
 * Reproduces what a kubelet decides when a pod arrives for its node:
 *   1. the eviction manager's admit handler (node-pressure conditions),
 *   2. the predicate admit handler (resource fit incl. pods count and extended resources, node
 *      affinity/selector, node name, host ports, untolerated NoExecute taints, OS checks),
 *   3. when the pod is critical and every predicate failure is a resource shortage, the
 *      CriticalPodAdmissionHandler (pkg/kubelet/preemption) that picks pods to preempt.
 * The cluster is only read; victims are reported, not removed.
 *
 * Typical use:
 *     kp_admission *a = kp_admission_new();
 *     kp_admit_options o;
 *     kp_admit_options_init(&o);
 *     kp_admit(cl, kp_cluster_find_node(cl, "node-1"), kp_cluster_find_pod(cl, "kube-system/dns"),
 * &o, a, &err); if (kp_admission_admitted(a)) for (size_t i = 0; i < kp_admission_victim_count(a);
 * i++) printf("preempts %s\n", kp_cluster_pod_name(cl, kp_admission_victim(a, i)->pod)); else
 *         printf("%s: %s\n", kp_admission_reason(a), kp_admission_message(a));
 *     kp_admission_free(a);
 * A kp_admission can be reused for many calls (no allocation once warm). Not thread-safe per
 * object; distinct objects may be used concurrently on the same finalized cluster. */
#ifndef KP_ADMISSION_H
#define KP_ADMISSION_H

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/node_conditions.h"
#include "kprio/qos.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node-pressure conditions the eviction manager's admit handler looks at: the KP_NODE_COND_*
 * bits of kprio/node_conditions.h. */

typedef struct kp_admit_options {
    /* false: the node's status.conditions decide (type *Pressure with status "True").
     * true: `conditions` (KP_NODE_COND_* bits) replaces them. */
    bool override_conditions;
    unsigned conditions;
    /* Pods bound to the node that the kubelet has not seen yet (in the API server, not yet in
     * its pod manager: HandlePodAdditions counts only the pods it was handed before): when
     * unseen is set, a pod for which unseen(unseen_ctx, pod) is true is left out of the node's
     * pods (resources, host ports, preemption candidates). NULL: every pod bound counts. */
    bool (*unseen)(const void *unseen_ctx, kp_index pod);
    const void *unseen_ctx;
} kp_admit_options;

/* Defaults: conditions from the node. */
void kp_admit_options_init(kp_admit_options *o);

/* The KP_NODE_COND_* bits node `node` reports in its status.conditions (type MemoryPressure,
 * DiskPressure or PIDPressure with status "True"); 0 for a bad index. A starting point for
 * callers that override single conditions. */
unsigned kp_admit_node_conditions(const kp_cluster *cl, kp_index node);

/* One admission failure reason, as the kubelet's PredicateFailureReason / PodAdmitResult.
 * Strings are borrowed from the kp_admission (valid until its next kp_admit or its free). */
typedef struct kp_admit_reason {
    const char *reason; /* "OutOfcpu", "OutOfexample.com/gpu", "NodeAffinity", "Evicted", ... */
    const char *message; /* upstream Error() text */
    bool insufficient; /* an InsufficientResourceError (the fields below are set) */
    const char *resource; /* resource name ("" unless insufficient) */
    int64_t requested, used, capacity; /* cpu in millicores, other resources in units */
} kp_admit_reason;

/* One pod chosen for preemption. */
typedef struct kp_admit_victim {
    kp_index pod;
    kp_qos qos; /* kprio/qos.h */
    int32_t priority; /* effective priority */
} kp_admit_victim;

/* One admissionRequirement: an insufficient amount that preemption must free. */
typedef struct kp_admit_requirement {
    const char *resource; /* borrowed from the kp_admission */
    int64_t quantity; /* Requested - (Capacity - Used) */
} kp_admit_requirement;

typedef struct kp_admission kp_admission;

/* New empty result object. NULL on allocation failure. */
kp_admission *kp_admission_new(void);
/* Releases it. NULL is a no-op. */
void kp_admission_free(kp_admission *a);

/* Decides whether pod `pod` is admitted on node `node` as the kubelet would, against the active
 * (non-terminal) pods bound to that node in the finalized cluster `cl`; the pod itself is never
 * counted among them. Mirrors kubelet canAdmitPod over the eviction admit handler then
 * predicateAdmitHandler.Admit with CriticalPodAdmissionHandler.HandleAdmissionFailure.
 * opts may be NULL (defaults). The result (admitted flag, top-level reason/message, the failure
 * reasons found before any preemption, the insufficient amounts and the victims in upstream
 * order) is written into `out`, replacing what it held. Returns KP_OK whether admitted or not;
 * KP_EINVAL for a non-finalized cluster or an index out of range; KP_ENOMEM. */
kp_status kp_admit(const kp_cluster *cl, kp_index node, kp_index pod, const kp_admit_options *opts,
                   kp_admission *out, kp_error *err);

/* ---- accessors (valid until the next kp_admit on the same object or its free) ---- */

/* True when the pod is admitted (it fits, or it is critical and preemption freed enough). */
bool kp_admission_admitted(const kp_admission *a);
/* True when the pod is critical (static, mirror, or priority >= 2000000000). */
bool kp_admission_critical(const kp_admission *a);
/* PodAdmitResult.Reason of the rejection ("" when admitted). */
const char *kp_admission_reason(const kp_admission *a);
/* PodAdmitResult.Message of the rejection; for an admitted pod a short summary. */
const char *kp_admission_message(const kp_admission *a);
/* Failure reasons found before any preemption (all of them, in upstream order); NULL out of
 * range. */
size_t kp_admission_failure_count(const kp_admission *a);
const kp_admit_reason *kp_admission_failure(const kp_admission *a, size_t i);
/* Insufficient amounts handed to preemption (empty unless preemption ran); NULL out of range. */
size_t kp_admission_requirement_count(const kp_admission *a);
const kp_admit_requirement *kp_admission_requirement(const kp_admission *a, size_t i);
/* Victims in upstream order: BestEffort ones, then Burstable, then Guaranteed (empty unless
 * the pod is admitted through preemption); NULL out of range. */
size_t kp_admission_victim_count(const kp_admission *a);
const kp_admit_victim *kp_admission_victim(const kp_admission *a, size_t i);

/* Status every victim receives from the kubelet (constants, for output). */
#define KP_ADMIT_VICTIM_PHASE "Failed"
#define KP_ADMIT_VICTIM_REASON "Preempting"
#define KP_ADMIT_VICTIM_MESSAGE "Preempted in order to admit critical pod"
#define KP_ADMIT_VICTIM_CONDITION_TYPE "DisruptionTarget"
#define KP_ADMIT_VICTIM_CONDITION_REASON "TerminationByKubelet"
#define KP_ADMIT_VICTIM_CONDITION_MESSAGE \
    "Pod was preempted by Kubelet to accommodate a critical pod."

/* The pod the manifest at `path` added to cl, for `kprio admit --pod FILE`: pods with an index
 * >= first_new (the pod count before the file was loaded) or a pod read from that file that
 * replaced an earlier one. *n_found (optional): how many such pods; returns the first, -1 when
 * none. */
kp_index kp_admit_pod_from_file(const kp_cluster *cl, size_t first_new, const char *path,
                                size_t *n_found);

#ifdef __cplusplus
}
#endif
#endif
