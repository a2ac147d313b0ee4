/* Kubelet admission internals shared by admit.c, admit_predicates.c and admit_preempt.c.
 *
 * The kp_admission body lives here: the result of one decision plus scratch arrays that are kept
 * between calls so a warm object admits without allocating. */
#ifndef KP_KUBELET_ADMIT_H
#define KP_KUBELET_ADMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"
#include "kprio/admission.h"

/* generalFilter yields at most: pods + cpu + memory + ephemeral + one per scalar resource
 * (< KP_MAX_RES) + NodeAffinity + NodeName + NodePorts + TaintToleration. */
#define KP__ADMIT_MAX_REASONS (KP_MAX_RES + 8)
#define KP__ADMIT_MAX_REQS (KP_MAX_RES + 1)

/* admissionRequirement: resource index (KP_RES_PODS for "pods") and the amount still needed. */
typedef struct {
    uint8_t res;
    uint8_t k; /* position in the original requirement list: column of per-candidate values */
    int64_t q;
} kp__admit_req;

typedef struct {
    uint32_t n;
    kp__admit_req r[KP__ADMIT_MAX_REQS];
} kp__admit_reqlist;

/* A preemption candidate: GetResourceRequest values cached for the decision. */
typedef struct {
    uint32_t pod;
    int64_t mem, cpu;   /* for smallerResourceRequest */
    const int64_t *val; /* val[k] = GetResourceRequest(pod, requirement k's resource) */
} kp__admit_cand;

/* How a->message is produced; formatting is deferred to the first kp_admission_message call so
 * that a decision itself does no printf work. */
typedef enum { KP__MSG_TEXT = 0, KP__MSG_REASON, KP__MSG_PREEMPTED } kp__admit_msg;

struct kp_admission {
    bool admitted, critical;
    char reason[96];
    char message[1024];
    kp__admit_msg msg_kind;
    uint32_t msg_reason;         /* KP__MSG_REASON: the reason whose message it is */
    kp__admit_reqlist msg_reqs;  /* KP__MSG_PREEMPTED: the requirements freed */
    const kp_cluster *cl;        /* for resource names while formatting */
    bool reason_unformatted[KP__ADMIT_MAX_REASONS]; /* insufficient reasons: message pending */
    uint32_t n_reasons;
    kp_admit_reason reasons[KP__ADMIT_MAX_REASONS];
    uint8_t reason_res[KP__ADMIT_MAX_REASONS]; /* resource index of insufficient reasons */
    uint32_t n_reqs;
    kp_admit_requirement reqs[KP__ADMIT_MAX_REQS];
    uint32_t n_victims, cap_victims;
    kp_admit_victim *victims;

    /* scratch, reused between calls */
    kp__admit_cand *cands;
    uint32_t cap_cands;
    int64_t *vals;
    size_t cap_vals;
    uint32_t *order; /* bucket index lists (3 * cap_cands) */
    uint32_t *picked; /* victims as candidate indices (cap_cands) */
};

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
/* mirrors resource.GetResourceRequest: pods -> 1, cpu in millicores, others in units; container
 * requests aggregated sidecar-aware, pod-level requests replacing them when set, overhead added
 * only when the result is non-zero. */
int64_t kp__admit_pod_request(const kp_cluster *cl, const kp_pod *p, int res);
/* Pods the kubelet would count as active on the node (non-terminal), excluding `self`. */
static inline bool kp__admit_active_other(const kp_pod *p, uint32_t idx, uint32_t self) {
    return idx != self && p->phase != KP_PHASE_SUCCEEDED && p->phase != KP_PHASE_FAILED;
}

/* ---- handlers ---- */

/* Node-pressure conditions in force: the node's *Pressure conditions with status True, unless
 * opts overrides them. */
unsigned kp__admit_conditions(const kp_cluster *cl, const kp_node *n, const kp_admit_options *o);
/* mirrors eviction managerImpl.Admit; returns true when the pod is rejected (reason recorded). */
bool kp__admit_eviction_reject(const kp_cluster *cl, const kp_pod *p, unsigned conds,
                               bool critical, kp_admission *a);
/* mirrors rejectPodAdmissionBasedOnOSSelector / OSField; true when rejected (reason recorded). */
bool kp__admit_os_reject(const kp_cluster *cl, const kp_node *n, const kp_pod *p, kp_admission *a);
/* mirrors lifecycle generalFilter (AdmissionCheck with all failures + NoExecute taints): appends
 * every failure to a->reasons. */
void kp__admit_general_filter(const kp_cluster *cl, uint32_t node, uint32_t pod, kp_admission *a);

/* mirrors getPodsToPreempt; victims go to a->victims in upstream order. On failure returns
 * false and writes upstream's error text ("no set of running pods found to reclaim resources:
 * [...]") into errbuf. KP_ENOMEM is reported through *st. */
bool kp__admit_pods_to_preempt(const kp_cluster *cl, uint32_t node, uint32_t pod,
                               const kp__admit_reqlist *reqs, kp_admission *a, char *errbuf,
                               size_t errcap, kp_status *st);
/* admissionRequirementList.toString: "[(res: cpu, q: 100), ]". */
void kp__admit_reqs_string(const kp_cluster *cl, const kp__admit_reqlist *l, char *buf, size_t cap);

/* Appends a reason; silently ignores overflow beyond KP__ADMIT_MAX_REASONS (cannot happen). */
kp_admit_reason *kp__admit_add_reason(kp_admission *a);
/* Fills in reasons[i].message if it is still pending (InsufficientResourceError.Error()). */
void kp__admit_format_reason(kp_admission *a, uint32_t i);
/* Copies the NUL-terminated src into dst[cap], truncating; returns the length written. */
size_t kp__admit_copy(char *dst, size_t cap, const char *src);

#endif
