/* Kubelet admission predicates and node-pressure admission.
 *
 * Mirrors pkg/kubelet/lifecycle/predicate.go (predicateAdmitHandler.Admit, generalFilter,
 * removeMissingExtendedResources), the parts of pkg/scheduler (AdmissionCheck, noderesources
 * fitsRequest, nodeports, nodename, nodeaffinity) the kubelet calls, pkg/kubelet/eviction
 * managerImpl.Admit, and the classification helpers of pkg/kubelet/types and
 * pkg/api/v1/resource.GetResourceRequest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/host_ports.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/node_conditions.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_state.h"

/* mirrors kubetypes.Preemptable */
bool kp__admit_preemptable(const kp_pod *preemptor, const kp_pod *preemptee) {
    if (kp__admit_is_critical(preemptor) && !kp__admit_is_critical(preemptee)) return true;
    if (kp__admit_priority_set(preemptor) && kp__admit_priority_set(preemptee))
        return preemptor->priority > preemptee->priority;
    return false;
}

static bool is_hugepages(const char *name) { return strncmp(name, "hugepages-", 10) == 0; }

/* ------------------------------------------------------------------------------------------ */
/* resource names (pkg/apis/core/v1/helper)                                                   */

/* IsPrefixedNativeResource */
static bool is_prefixed_native(const char *name) { return strstr(name, "kubernetes.io/") != NULL; }
/* IsNativeResource */
static bool is_native(const char *name) {
    return strchr(name, '/') == NULL || is_prefixed_native(name);
}
/* IsExtendedResourceName (the qualified-name validation is left to the loader) */
static bool is_extended(const char *name) {
    return !is_native(name) && strncmp(name, "requests.", 9) != 0;
}
/* schedutil.IsScalarResourceName */
static bool is_scalar(const char *name) {
    return is_extended(name) || is_hugepages(name) || is_prefixed_native(name) ||
           strncmp(name, "attachable-volumes-", 19) == 0;
}

size_t kp__admit_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

kp__admit_reason *kp__admit_add_reason(kp_admission *a) {
    uint32_t i = a->n_reasons < KP__ADMIT_MAX_REASONS ? a->n_reasons++ : KP__ADMIT_MAX_REASONS - 1;
    kp__admit_reason *r = &a->reasons[i];
    r->reason[0] = r->message[0] = r->resource[0] = '\0';
    r->insufficient = false;
    r->requested = r->used = r->capacity = 0;
    a->reason_unformatted[i] = false;
    return r;
}

/* PredicateFailureError{name, desc}: Error() = "Predicate <name> failed: <desc>" */
static void add_predicate(kp_admission *a, const char *name, const char *desc) {
    kp__admit_reason *r = kp__admit_add_reason(a);
    kp__admit_copy(r->reason, sizeof r->reason, name);
    size_t n = kp__admit_copy(r->message, sizeof r->message, "Predicate ");
    n += kp__admit_copy(r->message + n, sizeof r->message - n, name);
    n += kp__admit_copy(r->message + n, sizeof r->message - n, " failed: ");
    kp__admit_copy(r->message + n, sizeof r->message - n, desc);
}

void kp__admit_format_reason(kp_admission *a, uint32_t i) {
    if (i >= a->n_reasons || !a->reason_unformatted[i]) return;
    kp__admit_reason *r = &a->reasons[i];
    char res[sizeof r->resource];
    memcpy(res, r->resource, sizeof res);
    snprintf(r->message, sizeof r->message,
             "Node didn't have enough resource: %s, requested: %lld, used: %lld, capacity: %lld",
             res, (long long)r->requested, (long long)r->used, (long long)r->capacity);
    a->reason_unformatted[i] = false;
}

/* InsufficientResourceError; the reason is predicateAdmitHandler.Admit's OutOf<resource>. */
static void add_insufficient(kp_admission *a, int ri, const char *res, int64_t requested,
                             int64_t used, int64_t capacity) {
    kp__admit_reason *r = kp__admit_add_reason(a);
    a->reason_res[r - a->reasons] = (uint8_t)ri;
    a->reason_unformatted[r - a->reasons] = true; /* message written on first access */
    r->insufficient = true;
    kp__admit_copy(r->resource, sizeof r->resource, res);
    r->requested = requested;
    r->used = used;
    r->capacity = capacity;
    size_t n = kp__admit_copy(r->reason, sizeof r->reason, "OutOf");
    kp__admit_copy(r->reason + n, sizeof r->reason - n, res);
}

/* ------------------------------------------------------------------------------------------ */
/* eviction manager admit handler                                                             */

unsigned kp__admit_conditions(const kp_cluster *cl, const kp_node *n, const kp_admit_options *o) {
    if (o && o->override_conditions) return o->conditions;
    return kp__node_pressure_conditions(cl, n);
}

/* corev1helpers.TolerationsTolerateTaint for the taint {node.kubernetes.io/memory-pressure,
 * NoSchedule}. When the key was never interned no toleration names it, so a key id no string
 * has stands in for it. */
static bool tolerates_memory_pressure(const kp_cluster *cl, const kp_pod *p) {
    static const char key[] = "node.kubernetes.io/memory-pressure";
    kp_taint taint;
    memset(&taint, 0, sizeof taint);
    taint.key = kp__intern_find(&cl->strs, key, sizeof key - 1); /* UINT32_MAX if absent */
    taint.effect = KP_EFFECT_NOSCHEDULE;
    return kp__tolerations_tolerate(p, &taint);
}

/* mirrors eviction managerImpl.Admit. The condition list is printed in a fixed order
 * (MemoryPressure, DiskPressure, PIDPressure); upstream prints Go map order. */
bool kp__admit_eviction_reject(const kp_cluster *cl, const kp_pod *p, unsigned conds, bool critical,
                               kp_admission *a) {
    if (conds == 0 || critical) return false;
    if (conds == KP_NODE_COND_MEMORY_PRESSURE) {
        if (p->qos != KP_QOS_BESTEFFORT) return false;
        if (tolerates_memory_pressure(cl, p)) return false;
    }
    char list[64];
    kp__node_conditions_format(conds, " ", list, sizeof list);
    kp__admit_reason *r = kp__admit_add_reason(a);
    kp__admit_copy(r->reason, sizeof r->reason, "Evicted");
    snprintf(r->message, sizeof r->message, "The node had condition: [%s]. ", list);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* OS checks                                                                                  */

static const char *label_text(const kp_cluster *cl, const kp_labels *l, const char *key) {
    kp_str id = kp__intern_find(&cl->strs, key, strlen(key)), v;
    if (id == UINT32_MAX || !kp__labels_get(l, id, &v)) return NULL;
    return kp__s(cl, v);
}

/* mirrors rejectPodAdmissionBasedOnOSSelector and rejectPodAdmissionBasedOnOSField. The kubelet
 * compares with its own runtime.GOOS; a snapshot has no kubelet, so the node's kubernetes.io/os
 * label stands for it ("linux" when absent), which is what that label reports. */
bool kp__admit_os_reject(const kp_cluster *cl, const kp_node *n, const kp_pod *p, kp_admission *a) {
    const char *node_os = label_text(cl, &n->labels, "kubernetes.io/os");
    if (!node_os || !*node_os) node_os = "linux";
    const char *pod_os = label_text(cl, &p->labels, "kubernetes.io/os");
    if (pod_os && strcmp(pod_os, node_os) != 0) {
        kp__admit_reason *r = kp__admit_add_reason(a);
        kp__admit_copy(r->reason, sizeof r->reason, "PodOSSelectorNodeLabelDoesNotMatch");
        kp__admit_copy(
            r->message, sizeof r->message,
            "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label");
        return true;
    }
    if (p->os_name != 0 && strcmp(kp__s(cl, p->os_name), node_os) != 0) {
        kp__admit_reason *r = kp__admit_add_reason(a);
        kp__admit_copy(r->reason, sizeof r->reason, "PodOSNotSupported");
        kp__admit_copy(r->message, sizeof r->message,
                       "Failed to admit pod as the OS field doesn't match node OS");
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------ */
/* generalFilter                                                                              */

typedef struct {
    int res;
    const char *name;
    int64_t req;
} scalar_req;

static int cmp_scalar(const void *x, const void *y) {
    return strcmp(((const scalar_req *)x)->name, ((const scalar_req *)y)->name);
}

/* mirrors noderesources fitsRequest over a NodeInfo built from the active other pods, with the
 * pod's extended-resource requests the node does not advertise removed first
 * (removeMissingExtendedResources). Scalar resources are reported in name order; upstream walks
 * a Go map. */
static void fit_resources(const kp_cluster *cl, const kp_node *n, uint32_t pod, kp_admission *a) {
    const kp_pod *p = &cl->pods[pod];
    /* NodeInfo of the active other pods: the node's aggregates (kept by kp__node_add_pod as
     * NodeInfo.AddPod does) less any attached pod that is terminal or the pod itself */
    int64_t used[KP_MAX_RES];
    memcpy(used, n->requested, sizeof used);
    int64_t n_other = (int64_t)n->n_pods;
    for (uint32_t i = 0; i < n->n_pods; i++) {
        uint32_t qi = n->pods[i];
        const kp_pod *q = &cl->pods[qi];
        if (kp__admit_active_other(q, qi, pod)) continue;
        n_other--;
        for (uint16_t j = 0; j < q->req.n; j++) used[q->req.e[j].res] -= q->req.e[j].v;
    }
    /* and the active ones the kubelet was not handed yet (a pass of its own: none usually) */
    const kp__admit_unseen u = kp__admit_unseen_of(a);
    for (uint32_t i = 0; u.fn && i < n->n_pods; i++) {
        uint32_t qi = n->pods[i];
        const kp_pod *q = &cl->pods[qi];
        if (!kp__admit_active_other(q, qi, pod) || !u.fn(u.ctx, (kp_index)qi)) continue;
        n_other--;
        for (uint16_t j = 0; j < q->req.n; j++) used[q->req.e[j].res] -= q->req.e[j].v;
    }

    int64_t allowed = n->alloc[KP_RES_PODS];
    if (n_other + 1 > allowed) add_insufficient(a, KP_RES_PODS, "pods", 1, n_other, allowed);

    int64_t cpu = 0, mem = 0, eph = 0;
    scalar_req sc[KP_MAX_RES];
    size_t n_sc = 0;
    for (uint16_t j = 0; j < p->req.n; j++) {
        int r = p->req.e[j].res;
        int64_t v = p->req.e[j].v;
        if (r == KP_RES_CPU) cpu = v;
        else if (r == KP_RES_MEM) mem = v;
        else if (r == KP_RES_EPH) eph = v;
        else if (r != KP_RES_PODS) {
            const char *name = kp__s(cl, cl->res_names[r]);
            if (!is_scalar(name)) continue;
            if (is_extended(name) && !n->has_alloc[r])
                continue; /* removeMissingExtendedResources */
            if (!n->has_alloc[r] && cl->gates.on[KP_GATE_DRA_EXTENDED_RESOURCE] &&
                kp__dra_ext_name(name))
                continue; /* served by DRA (shouldDelegateResourceToDRA): an implicit name */
            sc[n_sc].res = r;
            sc[n_sc].name = name;
            sc[n_sc].req = v;
            n_sc++;
        }
    }
    if (cpu == 0 && mem == 0 && eph == 0 && n_sc == 0) return;

    if (cpu > 0 && cpu > n->alloc[KP_RES_CPU] - used[KP_RES_CPU])
        add_insufficient(a, KP_RES_CPU, "cpu", cpu, used[KP_RES_CPU], n->alloc[KP_RES_CPU]);
    if (mem > 0 && mem > n->alloc[KP_RES_MEM] - used[KP_RES_MEM])
        add_insufficient(a, KP_RES_MEM, "memory", mem, used[KP_RES_MEM], n->alloc[KP_RES_MEM]);
    if (eph > 0 && eph > n->alloc[KP_RES_EPH] - used[KP_RES_EPH])
        add_insufficient(a, KP_RES_EPH, "ephemeral-storage", eph, used[KP_RES_EPH],
                         n->alloc[KP_RES_EPH]);
    if (n_sc > 1) qsort(sc, n_sc, sizeof sc[0], cmp_scalar);
    for (size_t i = 0; i < n_sc; i++) {
        int r = sc[i].res;
        if (sc[i].req == 0) continue;
        if (sc[i].req > n->alloc[r] - used[r])
            add_insufficient(a, r, sc[i].name, sc[i].req, used[r], n->alloc[r]);
    }
}

/* mirrors nodeports.Fits (fitsPorts): the pod's host ports against those of every active other
 * pod on the node, with the scheduler's copy of the rule (core/host_ports.h). */
static bool ports_fit(const kp_cluster *cl, const kp_node *n, uint32_t pod, const kp_admission *a) {
    const kp_pod *p = &cl->pods[pod];
    if (!kp__pod_has_host_ports(p)) return true;
    const kp__admit_unseen u = kp__admit_unseen_of(a);
    for (uint32_t i = 0; i < n->n_pods; i++) {
        uint32_t qi = n->pods[i];
        const kp_pod *q = &cl->pods[qi];
        if (kp__admit_active_other(q, qi, pod) && !kp__admit_is_unseen(u, qi) &&
            kp__host_ports_conflict(cl, p, q))
            return false;
    }
    return true;
}

/* mirrors lifecycle generalFilter(pod, nodeInfo, skipIgnorableChecks=false) */
void kp__admit_general_filter(const kp_cluster *cl, uint32_t node, uint32_t pod, kp_admission *a) {
    const kp_node *n = &cl->nodes[node];
    const kp_pod *p = &cl->pods[pod];

    /* scheduler.AdmissionCheck(includeAllFailures=true) */
    fit_resources(cl, n, pod, a);
    if (!kp__pod_matches_node_selector_and_affinity(cl, p, n))
        add_predicate(a, "NodeAffinity", "node(s) didn't match Pod's node affinity/selector");
    if (p->node_name != 0 && p->node_name != n->name)
        add_predicate(a, "NodeName", "node(s) didn't match the requested node name");
    if (!ports_fit(cl, n, pod, a))
        add_predicate(a, "NodePorts", "node(s) didn't have free ports for the requested pod ports");

    /* untolerated NoExecute taints, skipped for static pods */
    if (!p->is_static) {
        for (uint16_t i = 0; i < n->n_taints; i++) {
            if (n->taints[i].effect != KP_EFFECT_NOEXECUTE) continue;
            if (!kp__tolerations_tolerate(p, &n->taints[i])) {
                add_predicate(a, "TaintToleration",
                              "node(s) had taints that the pod didn't tolerate");
                break;
            }
        }
    }
}
