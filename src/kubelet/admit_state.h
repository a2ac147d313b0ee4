/* Kubelet admission's state (internal, a header of its own below every admission file, as
 * evict_state.h is for eviction): the kp_admission body written by admit.c (the decision,
 * lifecycle's predicateAdmitHandler + admission.go's CriticalPodAdmissionHandler) and read by
 * admit_predicates.c (the handlers' predicates) and admit_preempt.c (getPodsToPreempt), so that
 * they depend on the state and not on the decision that calls them. Types and limits only: no
 * function is declared here.
 *
 * The kp_admission body: the result of one decision plus scratch arrays that are kept between
 * calls so a warm object admits without allocating. */
#ifndef KP_KUBELET_ADMIT_STATE_H
#define KP_KUBELET_ADMIT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/resources.h"
#include "kprio/admission.h"

/* generalFilter yields at most one insufficient-resource reason per resource index (pods, cpu,
 * memory, ephemeral-storage and the scalar resources: at most KP_MAX_RES, itself a limit the
 * decoder reports) + NodeAffinity + NodeName + NodePorts + TaintToleration; the OS and
 * node-condition rejections return before it with one reason. Requirements are the
 * insufficient reasons. rule 8: bounds that cannot be reached, not limits. */
#define KP__ADMIT_MAX_REASONS (KP_MAX_RES + 8)
#define KP__ADMIT_MAX_REQS (KP_MAX_RES + 1) /* rule 8: a bound (above) */

/* One failure reason as the decision writes it (fixed arrays, so that a reason is written
 * without allocating; kp_admission_failure hands out a kp_admit_reason pointing into it). The
 * arrays hold the longest text any reason can have: predicate names and descriptions are fixed
 * strings, and resource names are at most KP_RESOURCE_NAME_MAX (the decoder rejects longer ones
 * as the API server does), so nothing is ever cut. */
#define KP__ADMIT_REASON_CAP (sizeof "OutOf" + KP_RESOURCE_NAME_MAX)
#define KP__ADMIT_MESSAGE_CAP                                                       \
    (sizeof "Node didn't have enough resource: , requested: , used: , capacity: " + \
     KP_RESOURCE_NAME_MAX + 3 * 20)
typedef struct {
    char reason[KP__ADMIT_REASON_CAP];
    char message[KP__ADMIT_MESSAGE_CAP];
    bool insufficient;
    char resource[KP_RESOURCE_NAME_MAX + 1];
    int64_t requested, used, capacity;
} kp__admit_reason;

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
    int64_t mem, cpu; /* for smallerResourceRequest */
    const int64_t *val; /* val[k] = GetResourceRequest(pod, requirement k's resource) */
} kp__admit_cand;

/* How a->message is produced; formatting is deferred to the first kp_admission_message call so
 * that a decision itself does no printf work. */
typedef enum { KP__MSG_TEXT = 0, KP__MSG_REASON, KP__MSG_PREEMPTED } kp__admit_msg;

struct kp_admission {
    bool admitted, critical;
    char reason[KP__ADMIT_REASON_CAP];
    char *message; /* message_cap bytes (kp_admission_new; grown by handle_failure) */
    size_t message_cap;
    char *text; /* scratch for the requirement list (text_cap bytes) */
    size_t text_cap;
    kp__admit_msg msg_kind;
    uint32_t msg_reason; /* KP__MSG_REASON: the reason whose message it is */
    kp__admit_reqlist msg_reqs; /* KP__MSG_PREEMPTED: the requirements freed */
    const kp_cluster *cl; /* for resource names while formatting */
    bool (*unseen)(const void *, kp_index); /* kp_admit_options.unseen of the decision */
    const void *unseen_ctx;
    bool reason_unformatted[KP__ADMIT_MAX_REASONS]; /* insufficient reasons: message pending */
    uint32_t n_reasons;
    kp__admit_reason reasons[KP__ADMIT_MAX_REASONS];
    kp_admit_reason pub_reasons[KP__ADMIT_MAX_REASONS]; /* kp_admission_failure's views */
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

#endif
