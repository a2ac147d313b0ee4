/* Kubelet pod admission: the public entry point and the result object.
 *
 * kp_admit mirrors the kubelet's canAdmitPod over its admit handlers in registration order:
 * the eviction manager's handler first (node pressure), then predicateAdmitHandler.Admit, whose
 * admission failure handler is the CriticalPodAdmissionHandler (HandleAdmissionFailure →
 * evictPodsToFreeRequests). The first handler that rejects decides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_preempt.h"
#include "kubelet/admit_state.h"

void kp_admit_options_init(kp_admit_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
}

unsigned kp_admit_node_conditions(const kp_cluster *cl, kp_index node) {
    if (!cl || node < 0 || (size_t)node >= cl->n_nodes) return 0;
    return kp__admit_conditions(cl, &cl->nodes[node], NULL);
}

kp_admission *kp_admission_new(void) {
    kp_admission *a = kp__calloc(1, sizeof(kp_admission));
    if (!a) return NULL;
    a->message_cap = 1024;
    if (!(a->message = kp__malloc(a->message_cap))) {
        kp__free(a);
        return NULL;
    }
    a->message[0] = '\0';
    return a;
}

/* Grows *buf to hold at least need bytes (contents dropped). */
static kp_status reserve_text(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return KP_OK;
    char *p = kp__malloc(need);
    if (!p) return KP_ENOMEM;
    p[0] = '\0';
    kp__free(*buf);
    *buf = p;
    *cap = need;
    return KP_OK;
}

void kp_admission_free(kp_admission *a) {
    if (!a) return;
    kp__free(a->victims);
    kp__free(a->cands);
    kp__free(a->vals);
    kp__free(a->order);
    kp__free(a->picked);
    kp__free(a->message);
    kp__free(a->text);
    kp__free(a);
}

static void reset(kp_admission *a) {
    a->admitted = false;
    a->critical = false;
    a->reason[0] = '\0';
    a->message[0] = '\0';
    a->msg_kind = KP__MSG_TEXT;
    a->n_reasons = 0;
    a->n_reqs = 0;
    a->n_victims = 0;
}

/* Rejection with the reason/message of one PredicateFailureReason (predicateAdmitHandler.Admit
 * reports only the first). */
static void reject_with(kp_admission *a, uint32_t i) {
    a->admitted = false;
    kp__admit_copy(a->reason, sizeof a->reason, a->reasons[i].reason);
    a->msg_kind = KP__MSG_REASON;
    a->msg_reason = i;
}

/* mirrors InsufficientResourceError.GetInsufficientAmount: requested - (capacity - used). Every
 * term is >= 0 and fits an int64 (negative amounts are rejected at load, sums are checked), but
 * the difference need not: Go would wrap; the amount still needed saturates at INT64_MAX instead
 * (no victim set can free more than that, so the decision is the same as with the exact value). */
static int64_t insufficient_amount(int64_t requested, int64_t capacity, int64_t used) {
    int64_t free_amount, need;
    if (__builtin_sub_overflow(capacity, used, &free_amount)) free_amount = INT64_MIN;
    if (__builtin_sub_overflow(requested, free_amount, &need)) need = INT64_MAX;
    return need;
}


/* mirrors CriticalPodAdmissionHandler.HandleAdmissionFailure + evictPodsToFreeRequests and the
 * handling of their result in predicateAdmitHandler.Admit. */
static kp_status handle_failure(const kp_cluster *cl, uint32_t node, uint32_t pod,
                                kp_admission *a) {
    if (!a->critical) {
        reject_with(a, 0);
        return KP_OK;
    }
    /* InsufficientResourceError is not a reason to reject a critical pod, unless other reasons
     * exist: then only those are returned (the first one is reported). */
    for (uint32_t i = 0; i < a->n_reasons; i++) {
        if (!a->reasons[i].insufficient) {
            reject_with(a, i);
            return KP_OK;
        }
    }
    kp__admit_reqlist reqs;
    reqs.n = 0;
    for (uint32_t i = 0; i < a->n_reasons && reqs.n < KP__ADMIT_MAX_REQS; i++) {
        const kp__admit_reason *r = &a->reasons[i];
        reqs.r[reqs.n].res = a->reason_res[i];
        reqs.r[reqs.n].k = (uint8_t)reqs.n;
        reqs.r[reqs.n].q = insufficient_amount(r->requested, r->capacity, r->used);
        kp_admit_requirement *out = &a->reqs[a->n_reqs++];
        out->resource = r->resource;
        out->quantity = reqs.r[reqs.n].q;
        reqs.n++;
    }

    /* the messages name every requirement: room for them, before any is written */
    size_t need = kp__admit_reqs_text_bound(cl, &reqs, 256);
    kp_status st = reserve_text(&a->text, &a->text_cap, need);
    if (st == KP_OK) st = reserve_text(&a->message, &a->message_cap, need + 256);
    if (st != KP_OK) return st;
    if (!kp__admit_pods_to_preempt(cl, node, pod, &reqs, a, a->text, a->text_cap, &st)) {
        if (st != KP_OK) return st;
        a->admitted = false;
        a->n_victims = 0;
        kp__admit_copy(a->reason, sizeof a->reason, "UnexpectedAdmissionError");
        snprintf(a->message, a->message_cap,
                 "Unexpected error while attempting to recover from admission failure: "
                 "preemption: error finding a set of pods to preempt: %s",
                 a->text);
        return KP_OK;
    }
    /* Kill failures are only logged upstream: the pod is admitted once victims are chosen. */
    a->admitted = true;
    a->msg_kind = KP__MSG_PREEMPTED;
    a->msg_reqs.n = reqs.n;
    memcpy(a->msg_reqs.r, reqs.r, reqs.n * sizeof reqs.r[0]);
    return KP_OK;
}

/* mirrors lifecycle's podFeaturesAdmitHandler (isPodLevelResourcesSupported), which the kubelet
 * runs after the predicate handler (and its critical-pod preemption): a pod that sets pod-level
 * resources is refused while PodLevelResources is off. */
static void pod_features_check(const kp_pod *p, kp_admission *a) {
    if (!a->admitted || !p->pod_level_gated_off) return;
    a->admitted = false;
    a->msg_kind = KP__MSG_TEXT;
    kp__admit_copy(a->reason, sizeof a->reason, "PodLevelResourcesNotSupported");
    kp__admit_copy(a->message, a->message_cap, "PodLevelResources feature gate is disabled");
}

kp_status kp_admit(const kp_cluster *cl, kp_index node, kp_index pod, const kp_admit_options *opts,
                   kp_admission *out, kp_error *err) {
    if (!cl || !out) return kp_error_set(err, KP_EINVAL, "admit: no cluster or result object");
    reset(out);
    if (!cl->finalized) return kp_error_set(err, KP_EINVAL, "admit: cluster is not finalized");
    if (node < 0 || (size_t)node >= cl->n_nodes)
        return kp_error_set(err, KP_EINVAL, "admit: node index %ld out of range", node);
    if (pod < 0 || (size_t)pod >= cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "admit: pod index %ld out of range", pod);

    const kp_node *n = &cl->nodes[node];
    const kp_pod *p = &cl->pods[pod];
    out->cl = cl;
    out->unseen = opts ? opts->unseen : NULL;
    out->unseen_ctx = opts ? opts->unseen_ctx : NULL;
    out->critical = kp__admit_is_critical(p);

    /* eviction manager admit handler (node-pressure conditions) */
    unsigned conds = kp__admit_conditions(cl, n, opts);
    if (kp__admit_eviction_reject(cl, p, conds, out->critical, out)) {
        reject_with(out, 0);
        return KP_OK;
    }

    /* predicateAdmitHandler.Admit: checks preemption cannot help come first */
    if (kp__admit_os_reject(cl, n, p, out)) {
        reject_with(out, 0);
        return KP_OK;
    }
    kp__admit_general_filter(cl, (uint32_t)node, (uint32_t)pod, out);
    if (out->n_reasons == 0) {
        out->admitted = true;
        kp__admit_copy(out->message, out->message_cap, "admitted");
        pod_features_check(p, out);
        return KP_OK;
    }
    kp_status st = handle_failure(cl, (uint32_t)node, (uint32_t)pod, out);
    if (st != KP_OK) {
        reset(out);
        return kp_error_set(err, st, "admit: out of memory");
    }
    pod_features_check(p, out);
    return KP_OK;
}

/* ---- accessors ---- */

bool kp_admission_admitted(const kp_admission *a) { return a && a->admitted; }
bool kp_admission_critical(const kp_admission *a) { return a && a->critical; }
const char *kp_admission_reason(const kp_admission *a) { return a ? a->reason : ""; }
/* The message and the insufficient-resource texts are formatted on first access. The object is
 * always heap-allocated non-const (kp_admission_new), so writing through it here is defined. */
const char *kp_admission_message(const kp_admission *a) {
    if (!a) return "";
    kp_admission *m = (kp_admission *)(uintptr_t)a;
    switch (m->msg_kind) {
    case KP__MSG_TEXT: break;
    case KP__MSG_REASON:
        kp__admit_format_reason(m, m->msg_reason);
        kp__admit_copy(m->message, m->message_cap, m->reasons[m->msg_reason].message);
        break;
    case KP__MSG_PREEMPTED: /* handle_failure made room for the list in text and message */
        kp__admit_reqs_string(m->cl, &m->msg_reqs, m->text, m->text_cap);
        snprintf(m->message, m->message_cap,
                 "admitted after preempting %u pod(s) to free resources: %s", m->n_victims,
                 m->text);
        break;
    }
    m->msg_kind = KP__MSG_TEXT;
    return m->message;
}
size_t kp_admission_failure_count(const kp_admission *a) { return a ? a->n_reasons : 0; }
const kp_admit_reason *kp_admission_failure(const kp_admission *a, size_t i) {
    if (!a || i >= a->n_reasons) return NULL;
    kp_admission *m = (kp_admission *)(uintptr_t)a; /* the message is formatted on first access */
    kp__admit_format_reason(m, (uint32_t)i);
    const kp__admit_reason *r = &m->reasons[i];
    kp_admit_reason *v = &m->pub_reasons[i];
    v->reason = r->reason;
    v->message = r->message;
    v->insufficient = r->insufficient;
    v->resource = r->resource;
    v->requested = r->requested;
    v->used = r->used;
    v->capacity = r->capacity;
    return v;
}
size_t kp_admission_requirement_count(const kp_admission *a) { return a ? a->n_reqs : 0; }
const kp_admit_requirement *kp_admission_requirement(const kp_admission *a, size_t i) {
    return a && i < a->n_reqs ? &a->reqs[i] : NULL;
}
size_t kp_admission_victim_count(const kp_admission *a) { return a ? a->n_victims : 0; }
const kp_admit_victim *kp_admission_victim(const kp_admission *a, size_t i) {
    return a && i < a->n_victims ? &a->victims[i] : NULL;
}

kp_index kp_admit_pod_from_file(const kp_cluster *cl, size_t first_new, const char *path,
                                size_t *n_found) {
    kp_index found = -1;
    size_t n = 0;
    for (size_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (i >= first_new || (p->src_file && strcmp(p->src_file, path) == 0)) {
            if (found < 0) found = (kp_index)i;
            n++;
        }
    }
    if (n_found) *n_found = n;
    return found;
}
