/* kp_cluster_finalize: PriorityClass validation, the Priority admission plugin's resolution of
 * each pod's priority and preemptionPolicy, QoS class, criticality, request vectors, and the
 * attachment of bound pods to their nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/finalize.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/pod_state.h"
#include "core/priority_class.h"
#include "core/priority_layout.h"
#include "core/qos.h"
#include "core/resources.h"
#include "core/workload_ctrl.h"
#include "kprio/cluster.h"
#include "kprio/quantity.h"

#define HIGHEST_USER_PRIORITY 1000000000
#define SYSTEM_CRITICAL_PRIORITY 2000000000

static const kp_priority_class *find_class(const kp_cluster *cl, kp_str name) {
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].name == name && !cl->classes[i].deleted) return &cl->classes[i];
    return NULL;
}

/* An invalid PriorityClass: "OBJECT: FIELD: Forbidden: what" with err->source its file, as the
 * loader names objects ("items[3] (PriorityClass high)"). */
static kp_status class_error(const kp_cluster *cl, const kp_priority_class *pc, const char *field,
                             const char *what, kp_error *err) {
    char obj[320];
    if (pc->origin.object && pc->origin.object[0])
        snprintf(obj, sizeof obj, "%s", pc->origin.object);
    else snprintf(obj, sizeof obj, "PriorityClass %s", kp__s(cl, pc->name));
    kp_status st = kp_error_set(err, KP_EINVAL, "%s: %s: Forbidden: %s", obj, field, what);
    if (err && pc->origin.file) snprintf(err->source, sizeof err->source, "%s", pc->origin.file);
    return st;
}

/* mirrors ValidatePriorityClass (pkg/apis/scheduling/validation) but its globalDefault rule:
 * the one rule for a class of the input and a layout's (core/priority_layout.h). */
const char *kp__priority_class_check(const char *name, int32_t value, bool global_default,
                                     bool builtin, char *what, size_t cap) {
    if (strncmp(name, "system-", 7) == 0) {
        /* IsKnownSystemPriorityClass: the system- prefix is reserved for the built-in classes,
         * with their values and globalDefault false */
        int32_t want = strcmp(name, "system-node-critical") == 0      ? 2000001000
                       : strcmp(name, "system-cluster-critical") == 0 ? 2000000000
                                                                      : 0;
        const char *pre = "priority class names with 'system-' prefix are reserved for system "
                          "use only. error: ";
        if (!want || !builtin)
            snprintf(what, cap, "%s%s is not a known system priority class", pre, name);
        else if (value != want)
            snprintf(what, cap, "%svalue of %s PriorityClass must be %d", pre, name, want);
        else if (global_default)
            snprintf(what, cap, "%sglobalDefault of %s PriorityClass must be false", pre, name);
        else return NULL;
        return "metadata.name";
    }
    if (value > HIGHEST_USER_PRIORITY) {
        snprintf(what, cap, "maximum allowed value of a user defined priority is %d",
                 HIGHEST_USER_PRIORITY);
        return "value";
    }
    return NULL;
}

/* mirrors ValidatePriorityClass (pkg/apis/scheduling/validation) and, for globalDefault, the
 * Priority admission plugin's validatePriorityClass: a class marked globalDefault while another
 * one is already is forbidden. The classes are created in load order, so the later one fails;
 * kprio adds where the first one is. The classes from `from` on are checked (an incremental
 * finalize: the classes created since the last one), against every class before them. */
static kp_status validate_classes(kp_cluster *cl, uint32_t from, kp_error *err) {
    const kp_priority_class *def = NULL;
    char what[512];
    for (uint32_t i = 0; i < from && !def; i++)
        if (cl->classes[i].global_default && !cl->classes[i].deleted) def = &cl->classes[i];
    for (uint32_t i = from; i < cl->n_classes; i++) {
        kp_priority_class *pc = &cl->classes[i];
        const char *field = kp__priority_class_check(
            kp__s(cl, pc->name), pc->value, pc->global_default, pc->builtin, what, sizeof what);
        if (field) return class_error(cl, pc, field, what, err);
        if (pc->global_default && !pc->deleted) { /* (a class a layout replaced) */
            if (def) {
                snprintf(what, sizeof what,
                         "PriorityClass %s is already marked as default. Only one default can "
                         "exist (see %s%s%s)",
                         kp__s(cl, def->name), def->origin.file ? def->origin.file : "",
                         def->origin.file ? ": " : "",
                         def->origin.object ? def->origin.object : "");
                return class_error(cl, pc, "globalDefault", what, err);
            }
            def = pc;
        }
    }
    return KP_OK;
}

static const kp_priority_class *default_class(const kp_cluster *cl) {
    /* getDefaultPriorityClass: the lowest value among globalDefault classes */
    const kp_priority_class *def = NULL;
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].global_default && !cl->classes[i].deleted &&
            (!def || cl->classes[i].value < def->value))
            def = &cl->classes[i];
    return def;
}

/* mirrors plugin/pkg/admission/priority (admitPod, create) for pods without spec.priority.
 * Static pods never pass the API server: the kubelet sees only what their manifest says, so an
 * unset spec.priority stays unset (priority 0, and IsCriticalPod does not count it). */
static kp_status resolve_priority(kp_cluster *cl, kp_pod *p, kp_error *err) {
    const char *ns = kp__s(cl, p->ns), *name = kp__s(cl, p->name); /* "%s/%s": whole names */
    const kp_priority_class *pc = p->priority_class ? find_class(cl, p->priority_class) : NULL;
    if (p->has_priority) {
        /* Already admitted: keep the stored value; a deleted class only warrants a warning. */
        if (p->priority_class && !pc) {
            p->class_missing = true;
            if (kp__cluster_warn(cl,
                                 "Pod %s/%s: spec.priorityClassName: PriorityClass %s no longer "
                                 "exists (keeping spec.priority %d)",
                                 ns, name, kp__s(cl, p->priority_class), p->priority) != KP_OK)
                return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory storing a warning",
                                    ns, name);
        }
        if (!p->has_preemption_policy)
            p->preemption_policy =
                pc && pc->has_preemption_policy ? pc->preemption_policy : KP_PREEMPT_LOWER;
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
            return kp_error_set(
                err, KP_ENOTFOUND,
                "%s: Pod %s/%s: spec.priorityClassName: no PriorityClass with name %s was found",
                p->src_file ? p->src_file : "", ns, name, kp__s(cl, p->priority_class));
        prio = pc->value;
        if (pc->has_preemption_policy) policy = pc->preemption_policy;
    }
    if (p->has_preemption_policy && p->preemption_policy != policy)
        return kp_error_set(err, KP_EINVAL,
                            "%s: Pod %s/%s: spec.preemptionPolicy: the string value of "
                            "PreemptionPolicy (%s) must not be provided in pod spec; priority "
                            "admission controller computed %s from the given PriorityClass name",
                            p->src_file ? p->src_file : "", ns, name,
                            p->preemption_policy == KP_PREEMPT_NEVER ? "Never"
                                                                     : "PreemptLowerPriority",
                            policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
    p->priority = prio;
    p->has_priority = true;
    p->preemption_policy = policy;
    p->has_preemption_policy = true;
    return KP_OK;
}

static bool has_annotation(const kp_cluster *cl, const kp_pod *p, const char *key,
                           const char **val) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key));
    if (k == UINT32_MAX) return false;
    kp_str v;
    if (!kp__labels_get(&p->annotations, k, &v)) return false;
    if (val) *val = kp__s(cl, v);
    return true;
}

/* Where an amount of a pod comes from, for the error message (formatted only on error). */
typedef struct {
    const char *list; /* "containers", "initContainers", NULL for a pod-level field */
    uint32_t index;
    const char *field; /* "resources.requests", "resources.limits", "spec.overhead", ... */
} amount_src;

/* Adds |v| to bound[r], or fails naming the pod, the field and the resource. */
static kp_status bound_add(kp_cluster *cl, const kp_pod *p, int64_t *bound, int r, int64_t v,
                           const amount_src *src, kp_error *err) {
    if (kp_amount_add(bound[r], v < 0 ? -v : v, &bound[r]) == KP_OK) return KP_OK;
    char what[96];
    if (src->list) snprintf(what, sizeof what, "spec.%s[%u].%s", src->list, src->index, src->field);
    else snprintf(what, sizeof what, "%s", src->field);
    const char *res = kp__s(cl, cl->res_names[r]);
    return kp_error_set(
        err, KP_ERANGE,
        "%s: Pod %s/%s: %s.%s: the pod's amounts of %s add up to more than %lld (kprio's limit)",
        p->src_file ? p->src_file : "", kp__s(cl, p->ns), kp__s(cl, p->name), what, res, res,
        (long long)INT64_MAX);
}

static kp_status bound_list(kp_cluster *cl, const kp_pod *p, int64_t *bound, const kp_resv *v,
                            const amount_src *src, kp_error *err) {
    for (uint16_t k = 0; k < v->n; k++) {
        kp_status st = bound_add(cl, p, bound, v->e[k].res, v->e[k].v, src, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* Every sum the pod's request and limit vectors are built from (PodRequests, PodLimits, QoS, with
 * the non-zero defaults and overhead) is bounded by the sum of the absolute amounts of all its
 * containers, overhead and pod-level resources: checked here once, so those sums cannot wrap. */
static kp_status check_pod_sums(kp_cluster *cl, const kp_pod *p, kp_error *err) {
    int64_t req[KP_MAX_RES] = {0}, lim[KP_MAX_RES] = {0};
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init && st == KP_OK; i++) {
        const kp_container *c = &p->containers[i];
        bool init = i >= p->n_containers;
        amount_src src = {init ? "initContainers" : "containers", init ? i - p->n_containers : i,
                          "resources.requests"};
        st = bound_list(cl, p, req, &c->req, &src, err);
        /* the scheduler's non-zero defaults for a missing cpu / memory request */
        if (st == KP_OK) st = bound_add(cl, p, req, KP_RES_CPU, KP_DEFAULT_CPU_REQUEST, &src, err);
        if (st == KP_OK) st = bound_add(cl, p, req, KP_RES_MEM, KP_DEFAULT_MEM_REQUEST, &src, err);
        src.field = "resources.limits";
        if (st == KP_OK) st = bound_list(cl, p, lim, &c->lim, &src, err);
    }
    static const amount_src pod_req = {NULL, 0, "spec.resources.requests"},
                            pod_lim = {NULL, 0, "spec.resources.limits"},
                            overhead = {NULL, 0, "spec.overhead"};
    if (st == KP_OK) st = bound_list(cl, p, req, &p->pod_req, &pod_req, err);
    if (st == KP_OK) st = bound_list(cl, p, lim, &p->pod_lim, &pod_lim, err);
    if (st == KP_OK) st = bound_list(cl, p, req, &p->overhead, &overhead, err);
    return st;
}

/* The node's requested amount that adding pod p would take past int64 (kp__node_add_pod said
 * KP_ERANGE): reported with the pod and the node. */
static kp_status node_sum_error(kp_cluster *cl, const kp_pod *p, const kp_node *n, kp_error *err) {
    const char *res = NULL;
    int64_t unused;
    for (uint16_t i = 0; i < p->req.n && !res; i++)
        if (kp_amount_add(n->requested[p->req.e[i].res], p->req.e[i].v, &unused) != KP_OK)
            res = kp__s(cl, cl->res_names[p->req.e[i].res]);
    if (!res)
        res = kp_amount_add(n->nz_cpu, p->nz_cpu, &unused) != KP_OK ? "cpu (non-zero)"
                                                                    : "memory (non-zero)";
    return kp_error_set(err, KP_ERANGE,
                        "%s: Pod %s/%s: spec.nodeName: the requests of %s of the pods bound to "
                        "node %s add up to more than %lld (kprio's limit)",
                        p->src_file ? p->src_file : "", kp__s(cl, p->ns), kp__s(cl, p->name), res,
                        kp__s(cl, n->name), (long long)INT64_MAX);
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

/* mirrors the DefaultTolerationSeconds admission plugin (plugin/pkg/admission/
 * defaulttolerationseconds, Admit): a pod with no toleration of node.kubernetes.io/not-ready
 * (or unreachable) NoExecute (key that taint's or empty, effect NoExecute or empty) gets one,
 * operator Exists, tolerationSeconds 300. The lists are stored shared (most pods get the same
 * two). */
#define DEFAULT_TOLERATION_SECONDS 300
static kp_status default_tolerations(kp_cluster *cl, kp_pod *p) {
    static const char *const KEYS[2] = {"node.kubernetes.io/not-ready",
                                        "node.kubernetes.io/unreachable"};
    kp_str keys[2];
    bool has[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        keys[k] = kp__intern(&cl->strs, KEYS[k], strlen(KEYS[k]));
        if (keys[k] == UINT32_MAX) return KP_ENOMEM;
    }
    for (uint16_t i = 0; i < p->n_tolerations; i++) {
        const kp_toleration *t = &p->tolerations[i];
        bool effect = t->effect == KP_EFFECT_NOEXECUTE || t->effect == KP_EFFECT_NONE;
        for (int k = 0; k < 2; k++)
            if (effect && (t->key == keys[k] || !t->key)) has[k] = true;
    }
    if (has[0] && has[1]) return KP_OK;
    if (p->n_tolerations > UINT16_MAX - 2) return KP_OK; /* (the decoder's limit leaves room) */
    size_t n = p->n_tolerations;
    kp_toleration *v = kp__malloc((n + 2) * sizeof *v);
    if (!v) return KP_ENOMEM;
    if (n) memcpy(v, p->tolerations, n * sizeof *v);
    for (int k = 0; k < 2; k++)
        if (!has[k]) {
            memset(&v[n], 0, sizeof v[n]);
            v[n].key = keys[k];
            v[n].op = KP_TOL_EXISTS;
            v[n].effect = KP_EFFECT_NOEXECUTE;
            v[n].has_seconds = true;
            v[n++].seconds = DEFAULT_TOLERATION_SECONDS;
        }
    kp_toleration *stored = kp__cluster_store_shared(cl, v, n * sizeof *v);
    kp__free(v);
    if (!stored) return KP_ENOMEM;
    p->tolerations = stored;
    p->n_tolerations = (uint16_t)n;
    return KP_OK;
}

static kp_status pod_finalize(kp_cluster *cl, uint32_t i, kp_error *err) {
    kp_pod *p = &cl->pods[i];
    kp_status st;
    p->src_index = i;
    /* PodLevelResources off: every request helper and ComputePodQOS ignore spec.resources
     * (PodResourcesOptions.SkipPodLevelResources, v1qos.ComputePodQOS's gate check) */
    if (!cl->gates.on[KP_GATE_POD_LEVEL_RESOURCES]) {
        p->pod_level_gated_off = kp__pod_level_resources_set(cl, p);
        p->has_pod_resources = false;
    }
    const char *src = NULL;
    p->is_static =
        has_annotation(cl, p, "kubernetes.io/config.source", &src) && strcmp(src, "api") != 0;
    kp__layout_apply_pod(cl, p); /* kp_cluster_set_priority_layout: the class it assigns */
    if (!p->is_static && (st = resolve_priority(cl, p, err)) != KP_OK) return st;
    if (p->is_static && !p->has_preemption_policy) p->preemption_policy = KP_PREEMPT_LOWER;
    if (default_tolerations(cl, p) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory", kp__s(cl, p->ns),
                            kp__s(cl, p->name));
    /* the requests first: their sums are checked there, before QoS adds limits up */
    if ((st = kp__pod_derive_requests(cl, p, err)) != KP_OK) return st;
    p->is_mirror = has_annotation(cl, p, "kubernetes.io/config.mirror", NULL);
    p->is_critical = p->is_static || p->is_mirror || p->priority >= SYSTEM_CRITICAL_PRIORITY;
    if (p->status_qos) {
        const char *q = kp__s(cl, p->status_qos);
        p->qos = strcmp(q, "Guaranteed") == 0  ? KP_QOS_GUARANTEED
                 : strcmp(q, "Burstable") == 0 ? KP_QOS_BURSTABLE
                                               : KP_QOS_BESTEFFORT;
    } else {
        p->qos =
            kp__pod_compute_qos(p, cl->gates.on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS]);
    }
    p->node = -1;
    return KP_OK;
}

kp_status kp__pod_derive_requests(kp_cluster *cl, kp_pod *p, kp_error *err) {
    kp_status st = check_pod_sums(cl, p, err);
    if (st != KP_OK) return st;
    int64_t dense[KP_MAX_RES];
    kp__pod_requests(cl, p, true, false, dense);
    if (to_resv(cl, dense, &p->req) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory", kp__s(cl, p->ns),
                            kp__s(cl, p->name));
    kp__pod_requests(cl, p, true, true, dense);
    p->nz_cpu = dense[KP_RES_CPU];
    p->nz_mem = dense[KP_RES_MEM];
    return KP_OK;
}

kp_status kp__pod_finalize(kp_cluster *cl, uint32_t i, kp_error *err) {
    kp_status st = pod_finalize(cl, i, err);
    /* a pod the cluster makes itself after finalize (a controller's copy) is finalized here
     * once: a later incremental finalize starts after it */
    kp__cluster_mark *m = kp__cluster_final_mark(cl);
    if (st == KP_OK && cl->finalized && m->n_pods == i) m->n_pods = i + 1;
    return st;
}

/* Attaches pods [from, n_pods) that name a node to it; *n_bound counts those attached (the
 * caller detaches them again, last first, when a later one fails). */
static kp_status bind_pods(kp_cluster *cl, uint32_t from, uint32_t *n_bound, kp_error *err) {
    uint32_t n_unknown_node = 0;
    for (uint32_t i = from; i < cl->n_pods; i++) {
        kp_pod *p = &cl->pods[i];
        if (!p->node_name || kp__pod_is_terminal(p)) continue; /* terminal pods hold no resources */
        long n = kp_cluster_find_node(cl, kp__s(cl, p->node_name));
        if (n < 0) {
            if (n_unknown_node++ < 5) {
                if (kp__cluster_warn(cl,
                                     "Pod %s/%s is bound to node %s, which is not in the input; it "
                                     "is ignored for placement",
                                     kp__s(cl, p->ns), kp__s(cl, p->name),
                                     kp__s(cl, p->node_name)) != KP_OK)
                    return kp_error_set(err, KP_ENOMEM,
                                        "Pod %s/%s: out of memory storing a warning",
                                        kp__s(cl, p->ns), kp__s(cl, p->name));
            }
            continue;
        }
        kp_status st = kp__node_add_pod(cl, (uint32_t)n, i);
        if (st == KP_ERANGE) return node_sum_error(cl, p, &cl->nodes[n], err);
        if (st != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory adding it to node %s",
                                kp__s(cl, p->ns), kp__s(cl, p->name), kp__s(cl, p->node_name));
        (*n_bound)++;
    }
    if (n_unknown_node > 5 &&
        kp__cluster_warn(cl, "... and %u more pods bound to nodes not in the input",
                         n_unknown_node - 5) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "out of memory storing a warning");
    return KP_OK;
}

/* The objects loaded since the last finalize (include/kprio/cluster.h, "Loading objects into a
 * finalized cluster"): new PriorityClasses validated as the API server validates a create,
 * new pods resolved against the classes as they are now and bound when they name a node; no
 * workload expansion. On an error those objects are dropped again and the cluster is as it was
 * after the last finalize. */
/* fnv-1a 64 of s from h. */
static uint64_t fnv(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* A uid shaped like the API server's (a version-4 UUID), here a hash of the namespace, the name
 * and the pod's index: deterministic, and distinct for a pod recreated under the same name. */
void kp__pod_make_uid(const kp_cluster *cl, kp_str ns, const char *name, uint32_t idx, char *out,
                      size_t cap) {
    char num[16];
    snprintf(num, sizeof num, "#%u", idx);
    uint64_t a = fnv(fnv(fnv(0xcbf29ce484222325ULL, kp__s(cl, ns)), "/"), name);
    a = fnv(a, num);
    uint64_t b = fnv(a ^ 0x9E3779B97F4A7C15ULL, num);
    snprintf(out, cap, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)(0x8000 | ((b >> 48) & 0x3fff)),
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* A pod created after finalize (the simulator's `create`) gets a uid as the API server gives
 * one on create (metadata.uid); the Preempted event names the preemptor by it. */
static kp_status assign_uid(kp_cluster *cl, uint32_t i, kp_error *err) {
    char uid[48];
    kp_pod *p = &cl->pods[i];
    kp__pod_make_uid(cl, p->ns, kp__s(cl, p->name), i, uid, sizeof uid);
    kp_str id = kp__intern(&cl->strs, uid, strlen(uid));
    if (id == UINT32_MAX) return kp_error_set(err, KP_ENOMEM, "out of memory");
    cl->pods[i].uid = id;
    return KP_OK;
}

/* created: the new objects are the API server's create at unix time now (the pods' metadata and
 * status as the server stores them, kp__pod_prepare_create); otherwise kept as loaded. */
static kp_status finalize_more(kp_cluster *cl, bool created, int64_t now, kp_error *err) {
    kp__cluster_mark *m = kp__cluster_final_mark(cl);
    uint32_t n_bound = 0;
    kp__layout_apply_templates(cl, m->n_workloads);
    kp_status st = validate_classes(cl, m->n_classes, err);
    if (st == KP_OK && cl->n_skipped_kinds > m->n_skipped_kinds &&
        kp__cluster_warn(cl, "skipped %u object(s) of kinds kprio does not model: %s",
                         cl->n_skipped_kinds - m->n_skipped_kinds,
                         cl->skipped_kinds ? cl->skipped_kinds : "") != KP_OK)
        st = kp_error_set(err, KP_ENOMEM, "out of memory storing a warning");
    for (uint32_t i = m->n_pods; i < cl->n_pods && st == KP_OK; i++) {
        if (created) kp__pod_prepare_create(&cl->pods[i], now);
        st = pod_finalize(cl, i, err);
        if (st == KP_OK && !cl->pods[i].uid) st = assign_uid(cl, i, err);
    }
    if (st == KP_OK) st = bind_pods(cl, m->n_pods, &n_bound, err);
    if (st != KP_OK) {
        /* detach the pods bound above, last first: each node's list is as it was */
        for (uint32_t i = cl->n_pods; i-- > m->n_pods && n_bound;)
            if (cl->pods[i].node >= 0) {
                kp__node_remove_pod(cl, i);
                n_bound--;
            }
        kp__cluster_rollback(cl, m);
        return st;
    }
    if (cl->n_pods > m->n_pods || cl->n_nodes > m->n_nodes) {
        cl->gen_struct++;
        cl->gen_pods++;
    }
    kp__cluster_mark_get(cl, m);
    return KP_OK;
}

kp_status kp_cluster_finalize(kp_cluster *cl, kp_error *err) {
    if (cl->finalized) return finalize_more(cl, false, 0, err);
    kp_status st = kp__layout_apply_classes(cl, err);
    if (st == KP_OK) st = validate_classes(cl, 0, err);
    if (st != KP_OK) return st;
    if (cl->n_skipped_kinds)
        if (kp__cluster_warn(cl, "skipped %u object(s) of kinds kprio does not model: %s",
                             cl->n_skipped_kinds,
                             cl->skipped_kinds ? cl->skipped_kinds : "") != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "out of memory storing a warning");
    for (uint32_t i = 0; i < cl->n_pods; i++)
        if ((st = pod_finalize(cl, i, err)) != KP_OK) return st;
    uint32_t n_bound = 0;
    if ((st = bind_pods(cl, 0, &n_bound, err)) != KP_OK) return st;
    /* The object arrays grew by doubling while loading; give the unused tail back. */
    if (cl->n_pods && cl->n_pods < cl->cap_pods) {
        kp_pod *np = kp__realloc(cl->pods, cl->n_pods * sizeof *np);
        if (np) {
            cl->pods = np;
            cl->cap_pods = cl->n_pods;
        }
    }
    kp__intern_trim(&cl->strs);
    cl->finalized = true;
    kp__cluster_mark_get(cl, kp__cluster_final_mark(cl));
    return KP_OK;
}

kp_status kp_cluster_finalize_create(kp_cluster *cl, int64_t now, kp_error *err) {
    return cl->finalized ? finalize_more(cl, true, now, err) : kp_cluster_finalize(cl, err);
}
