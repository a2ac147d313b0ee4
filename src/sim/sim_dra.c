/* Devices in the simulation (docs/simulate.md "Devices"): the resourceclaim controller's start
 * and its reports (kprio/ctrl.h: claims made from templates with their pods, released when the
 * pods end), and the account kept per device class (kp_sim_device_class): devices allocated at
 * bind and released, the time pods waited for their devices, device holders preempted. Nothing is
 * kept for a run whose cluster has no claims. */
#include <string.h>

#include "sim/sim_internal.h"

typedef struct {
    const char *name; /* the cluster's string */
    kp_sim_device_class pub;
} sim_dclass;

struct sim_dra {
    sim_dclass *classes;
    size_t n, cap;
    uint8_t *allocated; /* per claim: allocated when last seen */
    size_t n_allocated;
    /* the classes each pod was bound with (kp_sim_pod_device_class: its claims may be gone
     * since): per pod its first class + 1 (0: none), the others as (pod, class) pairs */
    uint32_t *pod_cls;
    size_t n_pod_cls;
    uint32_t (*extra)[2];
    size_t n_extra, cap_extra;
};

static kp_status grow_seen(struct sim_dra *d, size_t n) {
    if (n <= d->n_allocated) return KP_OK;
    uint8_t *a = kp_realloc(d->allocated, n);
    if (!a) return KP_ENOMEM;
    memset(a + d->n_allocated, 0, n - d->n_allocated);
    d->allocated = a;
    d->n_allocated = n;
    return KP_OK;
}

static struct sim_dra *dra_of(kp_sim *s) {
    if (!s->dra) s->dra = kp_calloc(1, sizeof *s->dra);
    return s->dra;
}

/* the account of class name (created on first use), NULL out of memory */
static kp_sim_device_class *class_of(kp_sim *s, const char *name) {
    struct sim_dra *d = dra_of(s);
    if (!d) return NULL;
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->classes[i].name, name) == 0) return &d->classes[i].pub;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4;
        sim_dclass *c = kp_realloc(d->classes, cap * sizeof *c);
        if (!c) return NULL;
        d->classes = c;
        d->cap = cap;
    }
    sim_dclass *c = &d->classes[d->n++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->pub.device_class = name;
    return &c->pub;
}

void kp__sim_dra_free(kp_sim *s) {
    if (!s->dra) return;
    kp_free(s->dra->classes);
    kp_free(s->dra->allocated);
    kp_free(s->dra->pod_cls);
    kp_free(s->dra->extra);
    kp_free(s->dra);
    s->dra = NULL;
}

kp_status kp__sim_claim_changed(void *ctx, kp_index claim, int change, kp_index pod,
                                kp_error *err) {
    kp_sim *s = ctx;
    (void)pod;
    kp_claim_info ci;
    if (kp_cluster_claim_info(s->cl, claim, &ci) != KP_OK) return KP_OK;
    kp_sim_device_class *c = class_of(s, ci.device_class);
    struct sim_dra *d = s->dra;
    if (!c || grow_seen(d, kp_cluster_claim_count(s->cl)) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
    switch ((kp_ctrl_claim_change)change) {
    case KP_CTRL_CLAIM_CREATED: {
        c->claims_created++;
        /* a ResourceClaim added: a pod waiting for its claim may be scheduled now */
        kp_sched_event ev = {KP_SCHED_EV_CLAIM_CHANGE, -1, -1, false, claim, false};
        if (kp__sim_move(s, &ev) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        break;
    }
    case KP_CTRL_CLAIM_DEALLOCATED: {
        if (d->allocated[claim]) c->deallocations++;
        d->allocated[claim] = 0;
        /* a ResourceClaim update: pods waiting for devices may fit now */
        kp_sched_event ev = {KP_SCHED_EV_CLAIM_CHANGE, -1, -1, false, claim, true};
        if (kp__sim_move(s, &ev) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
        break;
    }
    case KP_CTRL_CLAIM_DELETED: c->claims_deleted++; break;
    case KP_CTRL_CLAIM_UNRESERVED: break;
    }
    return KP_OK;
}

kp_status kp__sim_dra_postfilter(kp_sim *s, kp_index claim, kp_error *err) {
    return kp__sim_claim_changed(s, claim, KP_CTRL_CLAIM_DEALLOCATED, -1, err);
}

kp_status kp__sim_dra_start(kp_sim *s) {
    size_t n = kp_cluster_claim_count(s->cl);
    struct sim_dra *d = n ? dra_of(s) : NULL;
    if (n && (!d || grow_seen(d, n) != KP_OK)) return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) { /* the snapshot's allocations are not the run's */
        kp_claim_info ci;
        if (kp_cluster_claim_info(s->cl, (kp_index)i, &ci) == KP_OK)
            d->allocated[i] = ci.allocated && !ci.deleted;
    }
    return KP_OK;
}

/* each distinct class of pod's claims, once: fn(class, claim info) */
static kp_status each_class(kp_sim *s, uint32_t pod, bool allocated_only,
                            kp_status (*fn)(kp_sim *, kp_sim_device_class *, kp_index, void *),
                            void *arg) {
    size_t n = kp_cluster_pod_claim_count(s->cl, (kp_index)pod);
    for (size_t i = 0; i < n; i++) {
        kp_index claim = kp_cluster_pod_claim(s->cl, (kp_index)pod, i);
        kp_claim_info ci;
        if (claim < 0 || kp_cluster_claim_info(s->cl, claim, &ci) != KP_OK) continue;
        if (allocated_only && !ci.allocated) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            kp_index o = kp_cluster_pod_claim(s->cl, (kp_index)pod, j);
            kp_claim_info oi;
            seen = o >= 0 && kp_cluster_claim_info(s->cl, o, &oi) == KP_OK &&
                   (!allocated_only || oi.allocated) &&
                   strcmp(oi.device_class, ci.device_class) == 0;
        }
        kp_sim_device_class *c = class_of(s, ci.device_class);
        if (!c) return KP_ENOMEM;
        kp_status st = fn(s, seen ? NULL : c, claim, arg);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

typedef struct {
    int64_t wait;
    uint32_t pod;
} bound_arg;

/* remembers that pod was bound with a claim of class c */
static kp_status note_class(kp_sim *s, uint32_t pod, const kp_sim_device_class *c) {
    struct sim_dra *d = s->dra;
    uint32_t ci = 0;
    while (ci < d->n && &d->classes[ci].pub != c) ci++;
    if (pod >= d->n_pod_cls) {
        size_t n = s->n_pods > pod ? s->n_pods : (size_t)pod + 1;
        uint32_t *a = kp_realloc(d->pod_cls, n * sizeof *a);
        if (!a) return KP_ENOMEM;
        memset(a + d->n_pod_cls, 0, (n - d->n_pod_cls) * sizeof *a);
        d->pod_cls = a;
        d->n_pod_cls = n;
    }
    if (!d->pod_cls[pod] || d->pod_cls[pod] == ci + 1) {
        d->pod_cls[pod] = ci + 1;
        return KP_OK;
    }
    for (size_t i = 0; i < d->n_extra; i++)
        if (d->extra[i][0] == pod && d->extra[i][1] == ci) return KP_OK;
    if (d->n_extra == d->cap_extra) {
        size_t cap = d->cap_extra ? 2 * d->cap_extra : 8;
        uint32_t(*e)[2] = kp_realloc(d->extra, cap * sizeof *e);
        if (!e) return KP_ENOMEM;
        d->extra = e;
        d->cap_extra = cap;
    }
    d->extra[d->n_extra][0] = pod;
    d->extra[d->n_extra++][1] = ci;
    return KP_OK;
}

static kp_status on_bound(kp_sim *s, kp_sim_device_class *c, kp_index claim, void *arg) {
    struct sim_dra *d = s->dra;
    if (grow_seen(d, kp_cluster_claim_count(s->cl)) != KP_OK) return KP_ENOMEM;
    kp_claim_info ci;
    kp_cluster_claim_info(s->cl, claim, &ci);
    if (ci.allocated && !d->allocated[claim]) { /* allocated by this binding's PreBind */
        d->allocated[claim] = 1;
        kp_sim_device_class *cc = class_of(s, ci.device_class);
        if (!cc) return KP_ENOMEM;
        cc->allocations++;
        cc->devices_allocated += ci.n_devices;
    }
    if (c) {
        const bound_arg *b = arg;
        int64_t wait = b->wait;
        if (note_class(s, b->pod, c) != KP_OK) return KP_ENOMEM;
        c->pods_bound++;
        c->wait_ms_sum += wait;
        if (wait > c->wait_ms_max) c->wait_ms_max = wait;
    }
    return KP_OK;
}

kp_status kp__sim_dra_bound(kp_sim *s, uint32_t pod) {
    if (!kp_cluster_pod_claim_count(s->cl, (kp_index)pod)) return KP_OK;
    if (!dra_of(s)) return KP_ENOMEM;
    const sim_pod *p = &s->pods[pod];
    bound_arg b = {s->now - (p->pub.created_ms < 0 ? 0 : p->pub.created_ms), pod};
    return each_class(s, pod, false, on_bound, &b);
}

static kp_status on_preempted(kp_sim *s, kp_sim_device_class *c, kp_index claim, void *arg) {
    (void)s, (void)claim, (void)arg;
    if (c) c->holders_preempted++;
    return KP_OK;
}

kp_status kp__sim_dra_preempted(kp_sim *s, uint32_t pod) {
    if (!kp_cluster_pod_claim_count(s->cl, (kp_index)pod)) return KP_OK;
    if (!dra_of(s)) return KP_ENOMEM;
    return each_class(s, pod, true, on_preempted, NULL);
}

/* ---------------------------------------------------------------- the public view */

size_t kp_sim_device_class_count(const kp_sim *sim) { return sim->dra ? sim->dra->n : 0; }

/* the pods with a claim of class c not bound now: those still waiting for their devices */
static uint64_t waiting(const kp_sim *s, const char *c) {
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_pods; i++) {
        size_t nc = kp_cluster_pod_claim_count(s->cl, (kp_index)i);
        if (!nc) continue;
        kp_pod_info pi;
        if (kp_cluster_pod_info(s->cl, (kp_index)i, &pi) != KP_OK || pi.deleted || pi.terminal ||
            pi.node >= 0)
            continue;
        bool match = false;
        for (size_t j = 0; j < nc && !match; j++) {
            kp_index claim = kp_cluster_pod_claim(s->cl, (kp_index)i, j);
            kp_claim_info ci;
            match = claim >= 0 && kp_cluster_claim_info(s->cl, claim, &ci) == KP_OK &&
                    strcmp(ci.device_class, c) == 0;
        }
        n += match;
    }
    return n;
}

kp_status kp_sim_device_class_get(const kp_sim *sim, size_t i, kp_sim_device_class *out) {
    if (!sim->dra || i >= sim->dra->n) return KP_EINVAL;
    *out = sim->dra->classes[i].pub;
    out->pods_waiting = waiting(sim, out->device_class);
    return KP_OK;
}

bool kp_sim_pod_device_class(const kp_sim *sim, size_t pod, size_t i) {
    const struct sim_dra *d = sim->dra;
    if (!d || i >= d->n || pod >= sim->n_pods) return false;
    if (pod < d->n_pod_cls && d->pod_cls[pod] == i + 1) return true;
    for (size_t k = 0; k < d->n_extra; k++)
        if (d->extra[k][0] == pod && d->extra[k][1] == i) return true;
    size_t n = kp_cluster_pod_claim_count(sim->cl, (kp_index)pod); /* its claims now */
    for (size_t j = 0; j < n; j++) {
        kp_index claim = kp_cluster_pod_claim(sim->cl, (kp_index)pod, j);
        kp_claim_info ci;
        if (claim >= 0 && kp_cluster_claim_info(sim->cl, claim, &ci) == KP_OK &&
            strcmp(ci.device_class, d->classes[i].name) == 0)
            return true;
    }
    return false;
}
