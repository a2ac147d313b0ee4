/* The API server's validation of an update (io/patch_validate.h). Each rule names the upstream
 * function it mirrors (pkg/apis/core/validation/validation.go, pkg/apis/scheduling/validation,
 * pkg/apis/apps/validation, pkg/apis/batch/validation). "Everything else unchanged" is checked
 * the way upstream checks it, by munging the fields an update may change back to the old
 * object's and comparing the rest: here the two objects' encodings (io/encode_json.h), which
 * carry every field kprio keeps. Values in messages are printed as upstream prints them for
 * strings; a structured value (a selector, a pod template) is abbreviated to its Go type. */
#include "io/patch_validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/qos.h"
#include "io/encode_json.h"
#include "io/tree_text.h"

void kp__upd_err(kp__upd_errs *e, const char *fmt, ...) {
    char one[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(one, sizeof one, fmt, ap);
    va_end(ap);
    int w = snprintf(e->text + e->len, sizeof e->text - e->len, "%s%s", e->n ? ", " : "", one);
    if (w > 0) e->len += (size_t)w < sizeof e->text - e->len ? (size_t)w : 0;
    e->n++;
}

const char *kp__upd_errs_text(kp__upd_errs *e) {
    if (e->n <= 1) return e->text;
    /* utilerrors.Aggregate: "[a, b]" */
    size_t n = e->len < sizeof e->text - 2 ? e->len : sizeof e->text - 3;
    memmove(e->text + 1, e->text, n);
    e->text[0] = '[';
    e->text[n + 1] = ']';
    e->text[n + 2] = 0;
    e->len = n + 2;
    return e->text;
}

/* ---------------------------------------------------------------- encodings */

static kp_status put(void *ctx, const char *buf, size_t len) {
    kp_tbuf *b = ctx;
    kp__tbuf_put(b, buf, len);
    return b->oom ? KP_ENOMEM : KP_OK;
}

typedef enum { ENC_POD, ENC_WL } enc_kind;

static kp_status encode(const kp_cluster *cl, enc_kind k, const void *obj, kp_tbuf *b) {
    kp__enc e;
    b->n = 0;
    if (kp__enc_init(&e, cl, false, put, b, NULL) == KP_OK) {
        if (k == ENC_POD) kp__enc_pod(&e, obj);
        else kp__enc_workload(&e, obj);
    }
    return kp__enc_finish(&e);
}

/* Whether a and b encode the same (*same). */
static kp_status same(const kp_cluster *cl, enc_kind k, const void *a, const void *b, bool *eq) {
    kp_tbuf x = {0}, y = {0};
    kp_status st = encode(cl, k, a, &x);
    if (st == KP_OK) st = encode(cl, k, b, &y);
    *eq = st == KP_OK && x.n == y.n && (x.n == 0 || memcmp(x.p, y.p, x.n) == 0);
    kp__free(x.p);
    kp__free(y.p);
    return st;
}

static bool labels_eq(const kp_labels *a, const kp_labels *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->items, b->items, a->n * sizeof *a->items) == 0);
}

/* ---------------------------------------------------------------- pods */

/* validateOnlyAddedTolerations: every old toleration is still there (its tolerationSeconds
 * aside). */
static bool tolerations_kept(const kp_pod *old, const kp_pod *nw) {
    for (uint16_t i = 0; i < old->n_tolerations; i++) {
        const kp_toleration *o = &old->tolerations[i];
        bool found = false;
        for (uint16_t j = 0; j < nw->n_tolerations && !found; j++) {
            const kp_toleration *n = &nw->tolerations[j];
            found = n->key == o->key && n->value == o->value && n->op == o->op &&
                    n->effect == o->effect;
        }
        if (!found) return false;
    }
    return true;
}

static bool tolerations_eq(const kp_pod *a, const kp_pod *b) {
    if (a->n_tolerations != b->n_tolerations) return false;
    for (uint16_t i = 0; i < a->n_tolerations; i++) {
        const kp_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
        if (x->key != y->key || x->value != y->value || x->op != y->op || x->effect != y->effect ||
            x->has_seconds != y->has_seconds || x->seconds != y->seconds)
            return false;
    }
    return true;
}

/* Whether gate name[0..n) is in the gate list text "[a b]" (decode_pod_gates.c's spelling). */
static bool has_gate(const char *list, const char *name, size_t n) {
    const char *s = list + (list[0] == '[');
    while (*s && *s != ']') {
        size_t w = strcspn(s, " ]");
        if (w == n && memcmp(s, name, n) == 0) return true;
        s += w;
        if (*s == ' ') s++;
    }
    return false;
}

/* validateOnlyDeletedSchedulingGates */
static void gates_only_deleted(const kp_cluster *cl, const kp_pod *old, const kp_pod *nw,
                               kp__upd_errs *errs) {
    if (!nw->gates) return;
    const char *nl = kp__s(cl, nw->gates), *ol = old->gates ? kp__s(cl, old->gates) : "";
    const char *s = nl + (nl[0] == '[');
    for (unsigned i = 0; *s && *s != ']'; i++) {
        size_t w = strcspn(s, " ]");
        if (!has_gate(ol, s, w))
            kp__upd_err(errs,
                        "spec.schedulingGates[%u].name: Forbidden: only deletion is allowed, but "
                        "found new scheduling gate '%.*s'",
                        i, (int)w, s);
        s += w;
        if (*s == ' ') s++;
    }
}

/* The pod's status and what the API server keeps of its metadata, from old (a main-resource
 * update drops status changes: podStrategy.PrepareForUpdate). */
static void keep_status(kp_pod *m, const kp_pod *old) {
    m->phase = old->phase;
    m->start_time = old->start_time;
    m->deletion_ts = old->deletion_ts;
    m->conditions = old->conditions;
    m->n_conditions = old->n_conditions;
    m->nominated_node = old->nominated_node;
    m->status_qos = old->status_qos;
    m->status_reason = old->status_reason;
    m->status_message = old->status_message;
    m->resize = old->resize;
}

static const char *const UPDATABLE =
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
    "negative)";

/* mirrors ValidatePodUpdate (and ValidateContainerUpdates, ValidateObjectMetaUpdate's uid) */
static kp_status pod_update(kp_cluster *cl, const kp_pod *old, kp_pod *nw, kp__upd_errs *errs,
                            kp_update_result *out) {
    if (nw->uid != old->uid)
        kp__upd_err(errs, "metadata.uid: Invalid value: \"%s\": field is immutable",
                    kp__s(cl, nw->uid));
    if (nw->n_containers != old->n_containers || nw->n_init != old->n_init) {
        kp__upd_err(errs, "%s: Forbidden: pod updates may not add or remove containers",
                    nw->n_containers != old->n_containers ? "spec.containers"
                                                          : "spec.initContainers");
        return KP_OK;
    }
    uint32_t nc = (uint32_t)nw->n_containers + nw->n_init;
    bool images = false;
    for (uint32_t k = 0; k < nc; k++) {
        bool init = k >= nw->n_containers;
        if (!nw->containers[k].image)
            kp__upd_err(errs, "spec.%s[%u].image: Required value",
                        init ? "initContainers" : "containers", init ? k - nw->n_containers : k);
        images = images || nw->containers[k].image != old->containers[k].image;
    }
    if (!tolerations_kept(old, nw))
        kp__upd_err(errs, "spec.tolerations: Forbidden: existing toleration can not be modified "
                          "except its tolerationSeconds");
    gates_only_deleted(cl, old, nw, errs);
    /* everything else of the spec unchanged: the updatable fields munged back */
    kp_pod m = *nw;
    keep_status(&m, old);
    m.uid = old->uid;
    m.labels = old->labels;
    m.annotations = old->annotations;
    m.owners = old->owners;
    m.n_owners = old->n_owners;
    m.tolerations = old->tolerations;
    m.n_tolerations = old->n_tolerations;
    m.gates = old->gates;
    kp_container *cs = nc ? kp__arena_alloc(&cl->arena, nc * sizeof *cs) : NULL;
    if (nc && !cs) return KP_ENOMEM;
    for (uint32_t k = 0; k < nc; k++) {
        cs[k] = nw->containers[k];
        cs[k].image = old->containers[k].image;
    }
    m.containers = cs;
    bool eq = false;
    kp_status st = same(cl, ENC_POD, &m, old, &eq);
    if (st != KP_OK) return st;
    if (!eq)
        kp__upd_err(errs, "spec: Forbidden: pod updates may not change fields other than %s",
                    UPDATABLE);
    if (errs->n) return KP_OK;
    keep_status(nw, old);
    out->labels_changed = !labels_eq(&old->labels, &nw->labels);
    out->spec_changed = images || !tolerations_eq(old, nw) || old->gates != nw->gates;
    out->changed = out->labels_changed || out->spec_changed ||
                   !labels_eq(&old->annotations, &nw->annotations) ||
                   old->n_owners != nw->n_owners ||
                   (old->n_owners &&
                    memcmp(old->owners, nw->owners, old->n_owners * sizeof *old->owners) != 0);
    return KP_OK;
}

static bool resv_find(const kp_resv *v, int r, int64_t *val) {
    for (uint16_t i = 0; i < v->n; i++)
        if (v->e[i].res == r) {
            *val = v->e[i].v;
            return true;
        }
    return false;
}

static bool resv_eq(const kp_resv *a, const kp_resv *b) {
    if (a->n != b->n) return false;
    for (uint16_t i = 0; i < a->n; i++)
        if (a->e[i].res != b->e[i].res || a->e[i].v != b->e[i].v) return false;
    return true;
}

/* resourcesRemoved: a resource the old list names that the new one lacks */
static bool removed(const kp_resv *nw, const kp_resv *old) {
    int64_t v;
    for (uint16_t i = 0; i < old->n; i++)
        if (!resv_find(nw, old->e[i].res, &v)) return true;
    return false;
}

/* Whether the lists differ in a resource other than cpu and memory. */
static bool other_changed(const kp_resv *a, const kp_resv *b) {
    for (int pass = 0; pass < 2; pass++) {
        const kp_resv *x = pass ? b : a, *y = pass ? a : b;
        for (uint16_t i = 0; i < x->n; i++) {
            int r = x->e[i].res;
            int64_t v;
            if (r == KP_RES_CPU || r == KP_RES_MEM) continue;
            if (!resv_find(y, r, &v) || v != x->e[i].v) return true;
        }
    }
    return false;
}

/* mirrors validateContainerResize (resizePolicy is not modelled: memory's is NotRequired) */
static void container_resize(const kp_container *nw, const kp_container *old, const char *path,
                             kp__upd_errs *errs) {
    if (removed(&nw->req, &old->req))
        kp__upd_err(errs, "%s.requests: Forbidden: resource requests cannot be removed", path);
    if (removed(&nw->lim, &old->lim))
        kp__upd_err(errs, "%s.limits: Forbidden: resource limits cannot be removed", path);
    int64_t nl = 0, ol = 0;
    bool has_n = resv_find(&nw->lim, KP_RES_MEM, &nl),
         has_o = resv_find(&old->lim, KP_RES_MEM, &ol);
    if (has_n && has_o && nl < ol)
        kp__upd_err(errs,
                    "%s.limits[memory]: Forbidden: memory limits cannot be decreased unless "
                    "resizePolicy is RestartContainer",
                    path);
    else if (has_n && !has_o)
        kp__upd_err(errs,
                    "%s.limits[memory]: Forbidden: memory limits cannot be added unless "
                    "resizePolicy is RestartContainer",
                    path);
}

static bool has_annotation(const kp_cluster *cl, const kp_pod *p, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(&p->annotations, k, &v);
}

static const char *const QOS_NAMES[] = {"BestEffort", "Burstable", "Guaranteed"}; /* kp_qos */

/* mirrors ValidatePodResize, with the resize subresource's dropNonResizeUpdates: of the patched
 * pod only its containers' requests and limits are taken (containers matched by name) */
static kp_status pod_resize(kp_cluster *cl, const kp_pod *old, kp_pod *nw, kp__upd_errs *errs,
                            kp_update_result *out) {
    bool fix = kp_cluster_feature_gates(cl)->on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS];
    uint32_t nc = (uint32_t)old->n_containers + old->n_init;
    kp_pod m = *old;
    kp_container *cs = nc ? kp__arena_alloc(&cl->arena, nc * sizeof *cs) : NULL;
    if (nc && !cs) return KP_ENOMEM;
    for (uint32_t k = 0; k < nc; k++) {
        cs[k] = old->containers[k];
        uint32_t nn = (uint32_t)nw->n_containers + nw->n_init;
        for (uint32_t j = 0; j < nn; j++)
            if (nw->containers[j].name == cs[k].name &&
                nw->containers[j].is_init == cs[k].is_init) {
                cs[k].req = nw->containers[j].req;
                cs[k].lim = nw->containers[j].lim;
                break;
            }
    }
    m.containers = cs;
    bool pod_level = (old->pod_req.n + old->pod_lim.n) > 0;
    if (pod_level) {
        kp__upd_err(errs, ": Forbidden: pods with pod-level resources cannot be resized");
        return KP_OK;
    }
    if (has_annotation(cl, old, "kubernetes.io/config.mirror")) {
        kp__upd_err(errs, ": Forbidden: static pods cannot be resized");
        return KP_OK;
    }
    if (old->os_name && strcmp(kp__s(cl, old->os_name), "windows") == 0) {
        kp__upd_err(errs, ": Forbidden: windows pods cannot be resized");
        return KP_OK;
    }
    /* GetPodQOS(old) (status.qosClass, else computed) against ComputePodQOS(new) */
    const char *oq =
        old->status_qos ? kp__s(cl, old->status_qos) : QOS_NAMES[kp__pod_compute_qos(old, fix)];
    if (strcmp(oq, QOS_NAMES[kp__pod_compute_qos(&m, fix)]) != 0)
        kp__upd_err(errs,
                    "spec: Invalid value: \"%s\": Pod QOS Class may not change as a result of "
                    "resizing",
                    oq); /* status.qosClass, which the API server sets at creation */
    bool other = false, side_other = false, init_changed = false, resized = false;
    for (uint32_t k = 0; k < nc; k++) {
        const kp_container *o = &old->containers[k], *n = &cs[k];
        bool init = k >= old->n_containers;
        bool changed = !resv_eq(&o->req, &n->req) || !resv_eq(&o->lim, &n->lim);
        resized = resized || changed;
        char path[64];
        snprintf(path, sizeof path, "spec.%s[%u].resources", init ? "initContainers" : "containers",
                 init ? k - old->n_containers : k);
        if (init && !o->is_sidecar) {
            init_changed = init_changed || changed;
            continue;
        }
        container_resize(n, o, path, errs);
        bool oc = other_changed(&o->req, &n->req) || other_changed(&o->lim, &n->lim);
        if (init) side_other = side_other || oc;
        else other = other || oc;
    }
    if (other) kp__upd_err(errs, "spec: Forbidden: only cpu and memory resources are mutable");
    if (side_other)
        kp__upd_err(errs, "spec: Forbidden: only cpu and memory resources for sidecar containers "
                          "are mutable");
    if (init_changed)
        kp__upd_err(errs, "spec: Forbidden: resources for non-sidecar init containers are "
                          "immutable");
    if (errs->n) return KP_OK;
    *nw = m;
    out->resized = out->changed = resized;
    return KP_OK;
}

/* ---------------------------------------------------------------- nodes */

/* mirrors ValidateNodeUpdate (uid) and validateNodeTaints (unique by key and effect) */
static void node_update(const kp_cluster *cl, const kp_node *old, kp_node *nw, bool status,
                        kp__upd_errs *errs, kp_update_result *out) {
    if (nw->uid != old->uid)
        kp__upd_err(errs, "metadata.uid: Invalid value: \"%s\": field is immutable",
                    kp__s(cl, nw->uid));
    if (!status)
        for (uint16_t i = 0; i < nw->n_taints; i++)
            for (uint16_t j = 0; j < i; j++)
                if (nw->taints[i].key == nw->taints[j].key &&
                    nw->taints[i].effect == nw->taints[j].effect) {
                    kp__upd_err(errs,
                                "spec.taints[%u]: Duplicate value: \"%s\": taints must be unique "
                                "by key and effect pair",
                                (unsigned)i, kp__s(cl, nw->taints[i].key));
                    j = i;
                }
    if (errs->n) return;
    if (status) {
        out->status_changed =
            memcmp(old->alloc, nw->alloc, sizeof old->alloc) != 0 ||
            memcmp(old->cap, nw->cap, sizeof old->cap) != 0 ||
            memcmp(old->has_alloc, nw->has_alloc, sizeof old->has_alloc) != 0 ||
            old->n_conditions != nw->n_conditions ||
            (old->n_conditions && memcmp(old->conditions, nw->conditions,
                                         old->n_conditions * sizeof *old->conditions) != 0) ||
            old->n_images != nw->n_images ||
            (old->n_images && memcmp(old->images, nw->images, old->n_images * sizeof *old->images));
        out->changed = out->status_changed;
        return;
    }
    out->labels_changed = !labels_eq(&old->labels, &nw->labels);
    out->spec_changed =
        old->unschedulable != nw->unschedulable || old->n_taints != nw->n_taints ||
        (old->n_taints && memcmp(old->taints, nw->taints, old->n_taints * sizeof *old->taints));
    out->changed =
        out->labels_changed || out->spec_changed || !labels_eq(&old->annotations, &nw->annotations);
}

/* ---------------------------------------------------------------- workloads */

/* mirrors the apps and batch update validations: ValidateReplicaSetUpdate,
 * ValidateDeploymentUpdate, ValidateDaemonSetUpdate (spec.selector immutable: apps/v1),
 * ValidateStatefulSetUpdate (only replicas, ordinals, template, updateStrategy, ... may change),
 * ValidateJobUpdate (selector and template immutable) */
static kp_status workload_update(kp_cluster *cl, const kp_workload *old, kp_workload *nw,
                                 kp__upd_errs *errs, kp_update_result *out) {
    bool eq = true;
    kp_workload m;
    kp_status st = KP_OK;
    switch (old->kind) {
    case KP_WL_STS:
        m = *nw;
        m.replicas = old->replicas;
        m.template = old->template;
        m.template_host_network = old->template_host_network;
        m.strategy = old->strategy;
        m.ordinals_start = old->ordinals_start;
        if ((st = same(cl, ENC_WL, &m, old, &eq)) != KP_OK) return st;
        if (!eq)
            kp__upd_err(errs, "spec: Forbidden: updates to statefulset spec for fields other than "
                              "'replicas', 'ordinals', 'template', 'updateStrategy', "
                              "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                              "forbidden");
        break;
    case KP_WL_RS:
    case KP_WL_DEPLOY:
    case KP_WL_DS:
    case KP_WL_JOB:
        m = *old;
        m.sel = nw->sel;
        if ((st = same(cl, ENC_WL, &m, old, &eq)) != KP_OK) return st;
        if (!eq)
            kp__upd_err(errs, "spec.selector: Invalid value: v1.LabelSelector{...}: field is "
                              "immutable");
        if (old->kind == KP_WL_JOB) {
            m = *old;
            m.template = nw->template;
            if ((st = same(cl, ENC_WL, &m, old, &eq)) != KP_OK) return st;
            if (!eq)
                kp__upd_err(errs, "spec.template: Invalid value: core.PodTemplateSpec{...}: "
                                  "field is immutable");
        }
        break;
    case KP_WL_SERVICE:
    case KP_WL_RC:
    case KP_WL_CRONJOB:
    case KP_WL_KINDS: break;
    }
    if (errs->n) return KP_OK;
    m = *old;
    m.template = nw->template;
    m.template_host_network = nw->template_host_network;
    if ((st = same(cl, ENC_WL, &m, old, &eq)) != KP_OK) return st;
    out->template_changed = !eq;
    out->replicas_changed =
        old->replicas != nw->replicas || old->job.parallelism != nw->job.parallelism;
    if ((st = same(cl, ENC_WL, nw, old, &eq)) != KP_OK) return st;
    out->spec_changed = out->changed = !eq;
    return KP_OK;
}

/* ---------------------------------------------------------------- entry */

kp_status kp__validate_update(kp_cluster *cl, const char *kind, const char *sub,
                              const kp__upd_obj *old, kp__upd_obj *nw, kp__upd_errs *errs,
                              kp_update_result *out) {
    if (strcmp(kind, "Pod") == 0)
        return strcmp(sub, "resize") == 0 ? pod_resize(cl, &old->pod, &nw->pod, errs, out)
                                          : pod_update(cl, &old->pod, &nw->pod, errs, out);
    if (strcmp(kind, "Node") == 0) {
        node_update(cl, &old->node, &nw->node, strcmp(sub, "status") == 0, errs, out);
        return KP_OK;
    }
    if (strcmp(kind, "PriorityClass") == 0) {
        /* mirrors ValidatePriorityClassUpdate */
        const kp_priority_class *o = &old->pc, *n = &nw->pc;
        if (n->value != o->value)
            kp__upd_err(errs, "value: Forbidden: may not be changed in an update.");
        if (n->has_preemption_policy != o->has_preemption_policy ||
            n->preemption_policy != o->preemption_policy)
            kp__upd_err(errs, "preemptionPolicy: Invalid value: \"%s\": field is immutable",
                        n->preemption_policy == KP_PREEMPT_NEVER ? "Never"
                                                                 : "PreemptLowerPriority");
        out->changed = !errs->n &&
                       (n->description != o->description || n->global_default != o->global_default);
        out->spec_changed = out->changed;
        return KP_OK;
    }
    if (strcmp(kind, "PodDisruptionBudget") == 0 || strcmp(kind, "Namespace") == 0) {
        /* a PDB's spec is mutable (policy/v1); a namespace's labels */
        out->changed = out->spec_changed = true;
        out->labels_changed =
            strcmp(kind, "Namespace") == 0 && !labels_eq(&old->ns.labels, &nw->ns.labels);
        return KP_OK;
    }
    return workload_update(cl, &old->wl, &nw->wl, errs, out);
}
