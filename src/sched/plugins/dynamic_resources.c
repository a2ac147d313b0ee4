/* DynamicResources (see dynamic_resources.h): mirrors dynamicresources.go PreFilter
 * (podResourceClaims, foreachPodResourceClaim, validateDeviceClass), Filter, Score
 * (computeScore, DefaultNormalizeScore), PostFilter and Reserve / PreBind (bindClaim), with
 * resourceclaim.Name, IsForPod, CanBeReserved and IsReservedForPod of
 * k8s.io/dynamic-resource-allocation/resourceclaim. */
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/dynamic_resources_enqueue.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "sched/dra/allocator.h"
#include "sched/dra/index.h"
#include "sched/plugins/dynamic_resources_ext.h"

#define RESERVED_FOR_MAX 256 /* rule 8: upstream's ResourceClaimReservedForMaxSize */

struct kp_dra_cycle {
    kp_sched *s;
    uint32_t n_claims; /* the pod's claims (cluster indices), in its order */
    uint32_t *claims;
    uint8_t *unavailable; /* per claim: allocated, and not available on some node */
    uint32_t *to_alloc, n_alloc; /* the claims still to allocate (cluster indices) */
    kp_dra_alloc *al; /* NULL when every claim is allocated */
    int64_t *score; /* per node: the prioritized-list score where the claims fit */
    /* per node: the allocator's verdict, kept for the attempt (the claims and devices do not
     * change within it, and removing or adding pods, as preemption's dry runs do, moves no
     * device): 0 not computed, 1 fits, 2 cannot allocate, 3 an error (verdict_text) */
    uint8_t *verdict;
    const char **verdict_text;
    kp_dra_ext *ext; /* DRA-backed extended resources (dynamic_resources_ext.c), NULL: none */
    char **texts; /* reasons formatted for this pod (statuses borrow them) */
    uint32_t n_texts, cap_texts;
    kp_status st;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static const char *
keep_text(struct kp_dra_cycle *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *t = kp__malloc((size_t)n + 1);
    if (!t) return NULL;
    va_start(ap, fmt);
    vsnprintf(t, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (d->n_texts && strcmp(d->texts[d->n_texts - 1], t) == 0) { /* the same as last node */
        kp__free(t);
        return d->texts[d->n_texts - 1];
    }
    if (d->n_texts == d->cap_texts) {
        void *p = d->texts;
        if (!kp__grow32(&p, &d->cap_texts, (size_t)d->n_texts + 1, sizeof *d->texts, 4)) {
            kp__free(t);
            return NULL;
        }
        d->texts = p;
    }
    return d->texts[d->n_texts++] = t;
}

static void cycle_free(struct kp_dra_cycle *d) {
    if (!d) return;
    kp__dra_alloc_free(d->al);
    kp__dra_ext_free(d->ext);
    for (uint32_t i = 0; i < d->n_texts; i++) kp__free(d->texts[i]);
    kp__free(d->texts);
    kp__free(d->claims);
    kp__free(d->unavailable);
    kp__free(d->to_alloc);
    kp__free(d->score);
    kp__free(d->verdict);
    kp__free(d->verdict_text);
    kp__free(d);
}

void kp__dra_fini(kp_cycle *c) {
    if (!c->dra) return;
    if (c->s->dra_cur == c->dra) c->s->dra_cur = NULL;
    cycle_free(c->dra);
    c->dra = NULL;
}

void kp__dra_sched_free(kp_sched *s) {
    kp__dra_index_free(s->dra_ix);
    s->dra_ix = NULL;
}

kp_status kp__dra_cycle_status(const struct kp_dra_cycle *d) { return d ? d->st : KP_OK; }

/* ---- PreFilter ---- */

static kp_status reject(struct kp_dra_cycle *d, kp_node_status *pre, const char *text) {
    if (!text) return KP_ENOMEM;
    pre->code = KP_CODE_UNRESOLVABLE; /* statusUnschedulable */
    kp__status_add_reason(pre, text);
    (void)d;
    return KP_OK;
}

static bool reserved_for(const kp_dra_claim *c, const kp_pod *p) {
    for (uint16_t i = 0; i < c->n_reserved; i++)
        if (c->reserved[i].uid == p->uid) return true;
    return false;
}

/* foreachPodResourceClaim for one entry (kp__dra_sched_pod_claim): the claim's index, -1 when the
 * entry needs none, -2 with *pre set when the pod cannot be scheduled. */
static long pod_claim(struct kp_dra_cycle *d, const kp_cycle *c, const kp_pod_claim *pc,
                      kp_node_status *pre, kp_status *st) {
    char *msg = NULL;
    long k = kp__dra_sched_pod_claim(c->s, c->p, pc, &msg);
    if (k == -2) *st = reject(d, pre, msg ? keep_text(d, "%s", msg) : NULL);
    kp__free(msg);
    return k;
}

/* validateDeviceClass for every request of an unallocated claim: false with *pre set */
static bool classes_exist(struct kp_dra_cycle *d, const kp_cycle *c, const kp_dra_claim *claim,
                          kp_node_status *pre, kp_status *st) {
    const kp_cluster *cl = c->s->cl;
    for (uint16_t r = 0; r < claim->spec.n_requests; r++) {
        const kp_dra_request *q = &claim->spec.requests[r];
        uint16_t n = q->first_available ? q->n_subs : 1;
        for (uint16_t i = 0; i < n; i++) {
            const kp_dra_exact *ex = q->first_available ? &q->subs[i] : &q->exactly;
            if (kp__dra_index_class(c->s->dra_ix, cl, ex->class_name) >= 0) continue;
            const char *rn = kp__s(cl, q->name);
            *st = reject(d, pre,
                         q->first_available
                             ? keep_text(d, "request %s/%s: device class %s does not exist", rn,
                                         kp__s(cl, ex->name), kp__s(cl, ex->class_name))
                             : keep_text(d, "request %s: device class %s does not exist", rn,
                                         kp__s(cl, ex->class_name)));
            return false;
        }
    }
    return true;
}

/* The pod's claims into d (claims_set: upstream's state.claims); false with *pre set. */
static bool gather_claims(struct kp_dra_cycle *d, kp_cycle *c, kp_node_status *pre, kp_status *st) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    for (uint16_t i = 0; i < p->n_claims; i++) {
        long k = pod_claim(d, c, &p->claims[i], pre, st);
        if (k == -2) return false;
        if (k >= 0) d->claims[d->n_claims++] = (uint32_t)k;
    }
    for (uint32_t i = 0; i < d->n_claims; i++) {
        const kp_dra_claim *claim = &cl->dra.claims[d->claims[i]];
        if (claim->allocated) {
            if (claim->n_reserved >= RESERVED_FOR_MAX && !reserved_for(claim, p)) {
                *st = reject(d, pre, "resourceclaim in use");
                return false;
            }
            continue;
        }
        d->to_alloc[d->n_alloc++] = d->claims[i];
        if (!classes_exist(d, c, claim, pre, st)) return false;
    }
    return true;
}

kp_status kp__dra_prefilter(kp_cycle *c, kp_node_status *pre, bool *skip) {
    kp_sched *s = c->s;
    *skip = true;
    if (!c->p->n_claims && !kp__dra_ext_wanted(s->cl, c->p)) return KP_OK;
    if (s->dra_reference) kp__dra_sched_free(s); /* the literal path: nothing kept */
    kp_status st = kp__dra_index_sync(&s->dra_ix, s->cl);
    if (st != KP_OK) return st;
    struct kp_dra_cycle *d = kp__calloc(1, sizeof *d);
    if (!d) return KP_ENOMEM;
    d->s = s;
    uint32_t n = c->p->n_claims;
    d->claims = kp__calloc(n + 1, sizeof *d->claims);
    d->unavailable = kp__calloc(n + 1, 1);
    d->to_alloc = kp__calloc(n + 1, sizeof *d->to_alloc);
    if (!d->claims || !d->unavailable || !d->to_alloc) {
        cycle_free(d);
        return KP_ENOMEM;
    }
    c->dra = d;
    s->dra_cur = d;
    st = KP_OK;
    if (!gather_claims(d, c, pre, &st)) {
        d->n_claims = 0; /* PostFilter sees no claims, as upstream's state */
        *skip = false;
        return st;
    }
    const bool *on = s->cl->gates.on; /* AllocatorFeatures */
    kp_dra_features f = {.admin_access = on[KP_GATE_DRA_ADMIN_ACCESS],
                         .prioritized_list = on[KP_GATE_DRA_PRIORITIZED_LIST],
                         .device_taints = on[KP_GATE_DRA_DEVICE_TAINTS],
                         .partitionable_devices = on[KP_GATE_DRA_PARTITIONABLE_DEVICES],
                         .consumable_capacity = on[KP_GATE_DRA_CONSUMABLE_CAPACITY],
                         .device_binding = on[KP_GATE_DRA_DEVICE_BINDING_CONDITIONS]};
    /* the pod's extended-resource claim (preFilterExtendedResources): it allocates per node */
    if ((st = kp__dra_ext_prefilter(c, d->to_alloc, d->n_alloc, &f, &d->ext)) != KP_OK) return st;
    if (!d->n_claims && !d->ext) return KP_OK; /* Skip */
    *skip = false;
    if (d->n_alloc || d->ext) {
        d->al = d->ext ? NULL : kp__dra_alloc_new(s->cl, s->dra_ix, &f, d->to_alloc, d->n_alloc);
        size_t nn = (size_t)s->cl->n_nodes + 1;
        d->score = kp__calloc(nn, sizeof *d->score);
        d->verdict = kp__calloc(nn, 1);
        d->verdict_text = kp__calloc(nn, sizeof *d->verdict_text);
        if ((!d->al && !d->ext) || !d->score || !d->verdict || !d->verdict_text) return KP_ENOMEM;
    }
    return KP_OK;
}

/* ---- Filter ---- */

void kp__dra_filter(const kp_cycle *c, uint32_t node, kp_node_status *st) {
    struct kp_dra_cycle *d = c->dra;
    if (!d || (!d->n_claims && !d->ext)) return;
    const kp_cluster *cl = c->s->cl;
    kp_dra_alloc *al = d->al;
    if (d->ext && !kp__dra_ext_filter(d->ext, c, node, st, &al, &d->st)) return;
    bool unavailable = false;
    /* an allocated claim's node selector, its binding conditions (dynamic_resources_bind.c) */
    for (uint32_t i = 0; i < d->n_claims && !unavailable; i++)
        unavailable = kp__dra_claim_unavailable(c, &cl->dra.claims[d->claims[i]], node);
    if (al && !d->verdict[node]) {
        const char *msg = NULL;
        int r = kp__dra_alloc_node(al, node, &msg);
        if (r == KP_ENOMEM) {
            d->st = KP_ENOMEM;
            return;
        }
        if (r < 0) { /* statusError: every node gets it, the pod is not scheduled */
            const char *t = keep_text(d, "%s", msg ? msg : "");
            if (!t) {
                d->st = KP_ENOMEM;
                return;
            }
            d->verdict_text[node] = t;
            d->verdict[node] = 3;
        } else if (r == 0) {
            d->verdict[node] = 2;
            /* a node-level reason (an invalid pool: ErrFailedAllocationOnNode) */
            if (msg && !(d->verdict_text[node] = keep_text(d, "%s", msg))) {
                d->st = KP_ENOMEM;
                return;
            }
        } else {
            d->verdict[node] = 1;
            d->score[node] = kp__dra_alloc_score(al);
        }
    }
    if (al && d->verdict[node] != 1) {
        st->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(st, d->verdict_text[node] ? d->verdict_text[node]
                                                        : KP_REASON_DRA_CANNOT_ALLOCATE);
        return;
    }
    if (unavailable) {
        for (uint32_t i = 0; i < d->n_claims; i++)
            if (kp__dra_claim_unavailable(c, &cl->dra.claims[d->claims[i]], node))
                d->unavailable[i] = 1;
        st->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(st, KP_REASON_DRA_NOT_AVAILABLE);
    }
}

bool kp__dra_filter_steady(const kp_cycle *c, uint32_t node) {
    if (!c->dra || !c->run[KP_PL_DYNAMIC_RESOURCES]) return true;
    kp_node_status st;
    kp__status_reset(&st);
    kp__dra_filter(c, node, &st);
    return st.code == KP_CODE_SUCCESS;
}

/* ---- Score ---- */

int kp__dra_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out) {
    (void)p;
    const struct kp_dra_cycle *d = s->dra_cur;
    int64_t max = 0;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = d && d->score ? d->score[nodes[i]] : 0;
        if (out[i] > max) max = out[i];
    }
    if (!max) return d && (d->al || d->ext) ? 1 : 0;
    for (uint32_t i = 0; i < n; i++) out[i] = out[i] * KP_MAX_NODE_SCORE / max;
    return 1;
}

/* ---- PostFilter ---- */

const char *kp__dra_postfilter(const kp_cycle *c) {
    const struct kp_dra_cycle *d = c->dra;
    if (!d || (!d->n_claims && !d->ext)) return "no new claims to deallocate";
    const kp_cluster *cl = c->s->cl;
    for (uint32_t i = 0; i < d->n_claims; i++) {
        if (!d->unavailable[i]) continue;
        const kp_dra_claim *claim = &cl->dra.claims[d->claims[i]];
        if (claim->n_reserved == 0 ||
            (claim->n_reserved == 1 && claim->reserved[0].uid == c->p->uid)) {
            kp__dra_deallocate(c, d->claims[i]); /* its UpdateStatus, through core */
            return "deallocation of ResourceClaim completed";
        }
    }
    if (kp__dra_ext_stale(d->ext)) return "deletion of ResourceClaim completed";
    return "still not schedulable";
}

/* ---- Reserve + PreBind ---- */

kp_status kp__dra_bind(kp_cycle *c, uint32_t node) {
    struct kp_dra_cycle *d = c->dra;
    if (!d || (!d->n_claims && !d->ext)) return KP_OK;
    kp_sched *s = c->s;
    kp_cluster *cl = s->cl;
    kp_dra_alloc *al = d->al;
    if (d->ext) { /* the node's claims, the extended-resource claim's variant among them */
        kp_node_status ns;
        kp__status_reset(&ns);
        kp_status est = KP_OK;
        if (!kp__dra_ext_filter(d->ext, c, node, &ns, &al, &est) || est != KP_OK)
            return est != KP_OK ? est : KP_EINVAL;
    }
    if (al) { /* the allocation Filter found on this node, found again */
        const char *msg;
        int r = kp__dra_alloc_node(al, node, &msg);
        if (r != 1) return r < 0 ? (kp_status)r : KP_EINVAL;
        for (uint32_t i = 0; i < kp__dra_alloc_count(al); i++) {
            const kp_dra_claim_alloc *a = kp__dra_alloc_result(al, i);
            if (a->claim == KP_DRA_VIRTUAL_CLAIM) { /* created, allocated and reserved */
                kp_status st = kp__dra_ext_bind(d->ext, c, node, a);
                if (st != KP_OK) return st;
                continue;
            }
            kp_status st = kp__dra_claim_allocate(cl, a->claim, a->results, a->n_results,
                                                  a->has_nodes ? &a->nodes : NULL, s->now);
            if (st == KP_OK) st = kp__dra_index_allocated(s->dra_ix, cl, a->claim);
            if (st != KP_OK) return st;
        }
    }
    for (uint32_t i = 0; i < d->n_claims; i++) {
        kp_status st = kp__dra_claim_reserve(cl, d->claims[i], c->pod);
        if (st != KP_OK) return st;
    }
    s->dra_ix->gen_seen = cl->dra.gen_claims; /* reservations move no device */
    return KP_OK;
}

/* ---- --explain ---- */

void kp__dra_note(const kp_cycle *c, const kp_node *n, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    if (!c->dra) return;
    uint32_t node = (uint32_t)(n - c->s->cl->nodes);
    kp_dra_alloc *al = c->dra->al;
    if (c->dra->ext) { /* the node's variant of the extended-resource claim */
        kp_node_status ns;
        kp__status_reset(&ns);
        kp_status st = KP_OK;
        if (!kp__dra_ext_filter(c->dra->ext, c, node, &ns, &al, &st)) al = NULL;
    }
    if (!al) return;
    kp__dra_alloc_explain(al, node, buf, cap);
}
