/* Kubelet admission predicates (internal): pod classification, the eviction and OS admit
 * handlers, generalFilter and the reasons they record (admit_predicates.c). */
#ifndef KP_KUBELET_ADMIT_PREDICATES_H
#define KP_KUBELET_ADMIT_PREDICATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "kprio/admission.h"
#include "kubelet/admit_state.h"

/* ---- classification (pkg/kubelet/types, pkg/api/v1/resource) ---- */

/* spec.priority is set: given in the input, or resolved by the Priority admission plugin for any
 * pod that went through the API server (everything but a static pod read from a file). */
static inline bool kp__admit_priority_set(const kp_pod *p) { return p->has_priority; }
/* mirrors kubetypes.IsCriticalPod (SystemCriticalPriority = 2000000000) */
static inline bool kp__admit_is_critical(const kp_pod *p) {
    return p->is_static || p->is_mirror || (kp__admit_priority_set(p) && p->priority >= 2000000000);
}
/* mirrors kubetypes.Preemptable */
bool kp__admit_preemptable(const kp_pod *preemptor, const kp_pod *preemptee);
/* Pods the kubelet would count as active on the node (non-terminal), excluding `self`; those
 * not handed to it yet (kp__admit_unseen) are left out by the callers. */
static inline bool kp__admit_active_other(const kp_pod *p, uint32_t idx, uint32_t self) {
    return idx != self && p->phase != KP_PHASE_SUCCEEDED && p->phase != KP_PHASE_FAILED;
}
/* kp_admit_options.unseen of a decision (copied into locals before a loop over the node's
 * pods, so that the loop does not reread it through the result object it writes). */
typedef struct {
    bool (*fn)(const void *, kp_index);
    const void *ctx;
} kp__admit_unseen;
static inline kp__admit_unseen kp__admit_unseen_of(const kp_admission *a) {
    kp__admit_unseen u = {a->unseen, a->unseen_ctx};
    return u;
}
/* Not handed to the kubelet yet (kp_admit_options.unseen). */
static inline bool kp__admit_is_unseen(kp__admit_unseen u, uint32_t idx) {
    return __builtin_expect(u.fn != NULL, 0) && u.fn(u.ctx, (kp_index)idx);
}

/* ---- handlers ---- */

/* Node-pressure conditions in force: the node's *Pressure conditions with status True, unless
 * opts overrides them. */
unsigned kp__admit_conditions(const kp_cluster *cl, const kp_node *n, const kp_admit_options *o);
/* mirrors eviction managerImpl.Admit; returns true when the pod is rejected (reason recorded). */
bool kp__admit_eviction_reject(const kp_cluster *cl, const kp_pod *p, unsigned conds, bool critical,
                               kp_admission *a);
/* mirrors rejectPodAdmissionBasedOnOSSelector / OSField; true when rejected (reason recorded). */
bool kp__admit_os_reject(const kp_cluster *cl, const kp_node *n, const kp_pod *p, kp_admission *a);
/* mirrors lifecycle generalFilter (AdmissionCheck with all failures + NoExecute taints): appends
 * every failure to a->reasons. */
void kp__admit_general_filter(const kp_cluster *cl, uint32_t node, uint32_t pod, kp_admission *a);

/* Appends a reason (at most KP__ADMIT_MAX_REASONS: a bound that cannot be reached). */
kp__admit_reason *kp__admit_add_reason(kp_admission *a);
/* Fills in reasons[i].message if it is still pending (InsufficientResourceError.Error()). */
void kp__admit_format_reason(kp_admission *a, uint32_t i);
/* Copies the NUL-terminated src into dst[cap], truncating; returns the length written. */
size_t kp__admit_copy(char *dst, size_t cap, const char *src);

#endif
