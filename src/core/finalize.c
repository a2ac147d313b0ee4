/* kp_cluster_finalize: PriorityClass validation, the Priority admission plugin's resolution of
 * each pod's priority and preemptionPolicy, QoS class, criticality, request vectors, and the
 * attachment of bound pods to their nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster_int.h"
#include "core/pod_requests.h"
#include "core/qos.h"
#include "kprio/cluster.h"

#define HIGHEST_USER_PRIORITY 1000000000
#define SYSTEM_CRITICAL_PRIORITY 2000000000

static const kp_priority_class *find_class(const kp_cluster *cl, kp_str name) {
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].name == name) return &cl->classes[i];
    return NULL;
}

static kp_status validate_classes(kp_cluster *cl, kp_error *err) {
    const kp_priority_class *def = NULL;
    for (uint32_t i = 0; i < cl->n_classes; i++) {
        kp_priority_class *pc = &cl->classes[i];
        const char *name = kp__s(cl, pc->name);
        if (strncmp(name, "system-", 7) == 0) {
            /* ValidatePriorityClass: the system- prefix is reserved for the built-in classes */
            bool ok = (strcmp(name, "system-node-critical") == 0 && pc->value == 2000001000) ||
                      (strcmp(name, "system-cluster-critical") == 0 && pc->value == 2000000000);
            if (!pc->builtin || !ok || pc->global_default)
                return kp_error_set(err, KP_EINVAL,
                                    "PriorityClass %s: metadata.name: priority class names with '%s' prefix are reserved for system use only",
                                    name, "system-");
            pc->builtin = true;
            continue;
        }
        if (pc->value > HIGHEST_USER_PRIORITY)
            return kp_error_set(err, KP_EINVAL, "PriorityClass %s: value: %d: must be no greater than %d", name,
                                pc->value, HIGHEST_USER_PRIORITY);
        if (pc->global_default) {
            if (def)
                return kp_error_set(err, KP_EINVAL,
                                    "PriorityClass %s: globalDefault: PriorityClass %s is already marked as default. Only one default can exist",
                                    name, kp__s(cl, def->name));
            def = pc;
        }
    }
    return KP_OK;
}

static const kp_priority_class *default_class(const kp_cluster *cl) {
    /* getDefaultPriorityClass: the lowest value among globalDefault classes */
    const kp_priority_class *def = NULL;
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].global_default && (!def || cl->classes[i].value < def->value)) def = &cl->classes[i];
    return def;
}

/* mirrors plugin/pkg/admission/priority (admitPod, create) for pods without spec.priority.
 * Static pods never pass the API server: the kubelet sees only what their manifest says, so an
 * unset spec.priority stays unset (priority 0, and IsCriticalPod does not count it). */
static kp_status resolve_priority(kp_cluster *cl, kp_pod *p, kp_error *err) {
    char ref[512];
    kp__pod_ref(cl, p, ref, sizeof ref);
    const kp_priority_class *pc = p->priority_class ? find_class(cl, p->priority_class) : NULL;
    if (p->has_priority) {
        /* Already admitted: keep the stored value; a deleted class only warrants a warning. */
        if (p->priority_class && !pc) {
            p->class_missing = true;
            kp__cluster_warn(cl, "Pod %s: spec.priorityClassName: PriorityClass %s no longer exists (keeping spec.priority %d)",
                             ref, kp__s(cl, p->priority_class), p->priority);
        }
        if (!p->has_preemption_policy) p->preemption_policy = pc && pc->has_preemption_policy ? pc->preemption_policy : KP_PREEMPT_LOWER;
        return KP_OK;
    }
    int32_t prio = 0;
    kp_preempt_policy policy = KP_PREEMPT_LOWER;
    if (!p->priority_class) {
        const kp_priority_class *def = default_class(cl);
        if (def) {
            p->priority_class = def->name;
            prio = def->value;
            if (def->has_preemption_policy) policy = def->preemption_policy;
        }
    } else {
        if (!pc)
            return kp_error_set(err, KP_ENOTFOUND, "%s: Pod %s: spec.priorityClassName: no PriorityClass with name %s was found",
                                p->src_file ? p->src_file : "", ref, kp__s(cl, p->priority_class));
        prio = pc->value;
        if (pc->has_preemption_policy) policy = pc->preemption_policy;
    }
    if (p->has_preemption_policy && p->preemption_policy != policy)
        return kp_error_set(err, KP_EINVAL,
                            "%s: Pod %s: spec.preemptionPolicy: the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name",
                            p->src_file ? p->src_file : "", ref,
                            p->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority",
                            policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
    p->priority = prio;
    p->has_priority = true;
    p->preemption_policy = policy;
    p->has_preemption_policy = true;
    return KP_OK;
}

static bool has_annotation(const kp_cluster *cl, const kp_pod *p, const char *key, const char **val) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key));
    if (k == UINT32_MAX) return false;
    kp_str v;
    if (!kp__labels_get(&p->annotations, k, &v)) return false;
    if (val) *val = kp__s(cl, v);
    return true;
}

bool kp__pod_is_terminal(const kp_pod *p) {
    return p->phase == KP_PHASE_SUCCEEDED || p->phase == KP_PHASE_FAILED;
}

bool kp__pod_has_condition(const kp_cluster *cl, const kp_pod *p, const char *type, const char *status, const char *reason) {
    for (uint16_t i = 0; i < p->n_conditions; i++) {
        const kp_condition *c = &p->conditions[i];
        if (strcmp(kp__s(cl, c->type), type) != 0) continue;
        /* upstream reads the first condition of that type */
        return (!status || strcmp(kp__s(cl, c->status), status) == 0) &&
               (!reason || strcmp(kp__s(cl, c->reason), reason) == 0);
    }
    return false;
}

static kp_status to_resv(kp_cluster *cl, const int64_t *dense, kp_resv *out) {
    kp_resent e[KP_MAX_RES];
    memset(e, 0, sizeof e); /* padding too: stored arrays are compared bytewise */
    uint16_t n = 0;
    for (uint32_t r = 0; r < cl->n_res; r++)
        if (dense[r]) {
            e[n].res = (uint8_t)r;
            e[n++].v = dense[r];
        }
    out->n = n;
    out->e = kp__cluster_store_shared(cl, e, n * sizeof *e);
    return n && !out->e ? KP_ENOMEM : KP_OK;
}

kp_status kp_cluster_finalize(kp_cluster *cl, kp_error *err) {
    if (cl->finalized) return KP_OK;
    kp_status st = validate_classes(cl, err);
    if (st != KP_OK) return st;
    if (cl->n_skipped_kinds)
        kp__cluster_warn(cl, "skipped %u object(s) of kinds kprio does not model: %s", cl->n_skipped_kinds, cl->skipped_kinds);
    uint32_t n_unknown_node = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        kp_pod *p = &cl->pods[i];
        p->src_index = i;
        const char *src = NULL;
        p->is_static = has_annotation(cl, p, "kubernetes.io/config.source", &src) && strcmp(src, "api") != 0;
        if (!p->is_static && (st = resolve_priority(cl, p, err)) != KP_OK) return st;
        if (p->is_static && !p->has_preemption_policy) p->preemption_policy = KP_PREEMPT_LOWER;
        p->is_mirror = has_annotation(cl, p, "kubernetes.io/config.mirror", NULL);
        p->is_critical = p->is_static || p->is_mirror || p->priority >= SYSTEM_CRITICAL_PRIORITY;
        if (p->status_qos) {
            const char *q = kp__s(cl, p->status_qos);
            p->qos = strcmp(q, "Guaranteed") == 0 ? KP_QOS_GUARANTEED : strcmp(q, "Burstable") == 0 ? KP_QOS_BURSTABLE : KP_QOS_BESTEFFORT;
        } else {
            p->qos = kp__pod_compute_qos(p);
        }
        int64_t dense[KP_MAX_RES];
        kp__pod_requests(cl, p, true, false, dense);
        if ((st = to_resv(cl, dense, &p->req)) != KP_OK) return kp_error_set(err, st, "out of memory");
        kp__pod_requests(cl, p, true, true, dense);
        p->nz_cpu = dense[KP_RES_CPU];
        p->nz_mem = dense[KP_RES_MEM];
        p->node = -1;
    }
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        kp_pod *p = &cl->pods[i];
        if (!p->node_name || kp__pod_is_terminal(p)) continue; /* terminal pods hold no resources */
        long n = kp_cluster_find_node(cl, kp__s(cl, p->node_name));
        if (n < 0) {
            if (n_unknown_node++ < 5) {
                char ref[512];
                kp__cluster_warn(cl, "Pod %s is bound to node %s, which is not in the input; it is ignored for placement",
                                 kp__pod_ref(cl, p, ref, sizeof ref), kp__s(cl, p->node_name));
            }
            continue;
        }
        if (kp__node_add_pod(cl, (uint32_t)n, i) != KP_OK) return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    /* The object arrays grew by doubling while loading; give the unused tail back. */
    if (cl->n_pods && cl->n_pods < cl->cap_pods) {
        kp_pod *np = kp__realloc(cl->pods, cl->n_pods * sizeof *np);
        if (np) {
            cl->pods = np;
            cl->cap_pods = cl->n_pods;
        }
    }
    kp__intern_trim(&cl->strs);
    if (n_unknown_node > 5) kp__cluster_warn(cl, "... and %u more pods bound to nodes not in the input", n_unknown_node - 5);
    cl->finalized = true;
    return KP_OK;
}
