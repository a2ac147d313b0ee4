/* The structured allocator (see allocator.h): mirrors structured/internal/incubating
 * allocator_incubating.go (Allocator.Allocate, validateDeviceRequest, allocateOne, isSelectable,
 * selectorsMatch, allocateDevice, createNodeSelector) and pools_incubating.go (GatherPools,
 * checkSlicesInPool), over kprio's model (core/dra.h) and the scheduler's index (index.h). */
#include "sched/dra/allocator.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/taints.h"
#include "sched/dra/capacity.h"
#include "sched/dra/pools.h"

#define RESULTS_MAX 32 /* rule 8: upstream's resourceapi.AllocationResultsMaxSize */
#define FIRST_AVAILABLE_MAX 8 /* rule 8: upstream's FirstAvailableDeviceRequestMaxSize */

enum { R_FAIL = 0, R_DONE = 1, R_MAXSIZE = 2 }; /* errAllocationResultMaxSizeExceeded */

/* A request or one subrequest (requestData). */
typedef struct {
    uint32_t claim_i;
    const kp_dra_exact *ex;
    long cls;
    kp_str base, sub; /* request name, and the subrequest's (0 for `exactly`) */
    kp_str full; /* "req" or "req/sub": the result's request */
    uint32_t num;
    uint32_t *all, n_all, cap_all; /* allocationMode All: the devices, on the current node */
} rq;

typedef struct {
    const kp_dra_constraint *k;
    kp_str dom, id; /* the attribute, split (UINT32_MAX: no device can have it) */
    uint32_t n;
    const kp_dra_attr **vals; /* the attributes of the devices in the set (distinct: all) */
} cons;

typedef struct {
    uint32_t rq, nd;
} res_ent;

struct kp_dra_alloc {
    kp_cluster *cl;
    kp_dra_index *ix;
    kp_dra_features f;
    uint32_t n_claims;
    uint32_t *claims;
    uint32_t *req_base; /* per claim: its first request in the flattened requests */
    uint32_t *req_rq; /* per flattened request: its first rq */
    uint16_t *req_nsub; /* ... and its subrequests (0: exactly) */
    uint32_t *sel_sub; /* ... the subrequest picked */
    rq *rqs;
    uint32_t n_rqs, n_reqs;
    cons *cons;
    uint32_t *cons_base; /* per claim (n_claims + 1 entries) */
    /* the current node */
    uint32_t node;
    kp_dra_pools pl; /* the devices the node reaches (pools.h) */
    uint8_t *sel; /* n_rqs * n_nd: 0 unknown, 1 selectable, 2 not */
    size_t cap_sel;
    res_ent *res; /* RESULTS_MAX per claim */
    uint32_t *n_res;
    res_ent *busy; /* devices being allocated: (claim, node device) */
    uint32_t n_busy, cap_busy;
    kp_dra_claim_alloc *out;
    kp_dra_result *out_res;
    char *msg;
    const kp_dra_claim *virt; /* KP_DRA_VIRTUAL_CLAIM's claim (an extended-resource claim) */
    kp_dra_part *part; /* counters and shared capacity being allocated (capacity.h) */
};

/* ---- messages ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(kp_dra_alloc *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    kp__free(a->msg);
    a->msg = n >= 0 ? kp__malloc((size_t)n + 1) : NULL;
    if (!a->msg) return KP_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(a->msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return KP_EINVAL;
}

static const char *S(const kp_dra_alloc *a, kp_str s) { return kp__s(a->cl, s); }
static const kp_dra_claim *claim_of(const kp_dra_alloc *a, uint32_t ci) {
    if (a->claims[ci] == KP_DRA_VIRTUAL_CLAIM) return a->virt; /* dynamic_resources_ext.c */
    return &a->cl->dra.claims[a->claims[ci]];
}
static const kp_dra_slice *slice_of(const kp_dra_alloc *a, uint32_t k) {
    return &a->cl->dra.slices[a->pl.nd[k].slice];
}
static const kp_dra_device *dev_of(const kp_dra_alloc *a, uint32_t k) {
    return &slice_of(a, k)->devices[a->pl.nd[k].dev];
}

/* ---- setup (NewAllocator and the claim part of Allocate) ---- */

static kp_str intern_join(kp_cluster *cl, kp_str x, kp_str y) {
    size_t lx = strlen(kp__s(cl, x)), ly = strlen(kp__s(cl, y));
    char *b = kp__malloc(lx + ly + 2);
    if (!b) return 0;
    memcpy(b, kp__s(cl, x), lx);
    b[lx] = '/';
    memcpy(b + lx + 1, kp__s(cl, y), ly + 1);
    kp_str s = kp__intern(&cl->strs, b, lx + ly + 1);
    kp__free(b);
    return s;
}

static void split_attr(kp_cluster *cl, kp_str full, kp_str *dom, kp_str *id) {
    const char *s = kp__s(cl, full), *sl = strchr(s, '/');
    *dom = *id = UINT32_MAX;
    if (!sl) return;
    kp_str d = kp__intern_find(&cl->strs, s, (size_t)(sl - s));
    kp_str i = kp__intern_find(&cl->strs, sl + 1, strlen(sl + 1));
    if (d && i) *dom = d, *id = i;
}

static kp_status setup_requests(kp_dra_alloc *a) {
    kp_cluster *cl = a->cl;
    uint32_t n_reqs = 0, n_rqs = 0, n_cons = 0;
    for (uint32_t ci = 0; ci < a->n_claims; ci++) {
        const kp_dra_claim_spec *sp = &claim_of(a, ci)->spec;
        n_reqs += sp->n_requests;
        n_cons += sp->n_constraints;
        for (uint16_t r = 0; r < sp->n_requests; r++)
            n_rqs += sp->requests[r].first_available ? sp->requests[r].n_subs : 1;
    }
    a->req_base = kp__calloc(a->n_claims + 1, sizeof *a->req_base);
    a->req_rq = kp__calloc(n_reqs + 1, sizeof *a->req_rq);
    a->req_nsub = kp__calloc(n_reqs + 1, sizeof *a->req_nsub);
    a->sel_sub = kp__calloc(n_reqs + 1, sizeof *a->sel_sub);
    a->rqs = kp__calloc(n_rqs + 1, sizeof *a->rqs);
    a->cons = kp__calloc(n_cons + 1, sizeof *a->cons);
    a->cons_base = kp__calloc(a->n_claims + 1, sizeof *a->cons_base);
    a->res = kp__calloc((size_t)a->n_claims * RESULTS_MAX + 1, sizeof *a->res);
    a->n_res = kp__calloc(a->n_claims + 1, sizeof *a->n_res);
    a->out = kp__calloc(a->n_claims + 1, sizeof *a->out);
    a->out_res = kp__calloc((size_t)a->n_claims * RESULTS_MAX + 1, sizeof *a->out_res);
    if (!a->req_base || !a->req_rq || !a->req_nsub || !a->sel_sub || !a->rqs || !a->cons ||
        !a->cons_base || !a->res || !a->n_res || !a->out || !a->out_res)
        return KP_ENOMEM;
    a->cons_base[a->n_claims] = n_cons; /* what kp__dra_alloc_free frees, should this fail */
    uint32_t fr = 0, k = 0;
    for (uint32_t ci = 0; ci < a->n_claims; ci++) {
        const kp_dra_claim_spec *sp = &claim_of(a, ci)->spec;
        a->req_base[ci] = fr;
        a->cons_base[ci] = k;
        for (uint16_t i = 0; i < sp->n_constraints; i++, k++) {
            cons *c = &a->cons[k];
            c->k = &sp->constraints[i];
            kp_str at = c->k->match_attribute ? c->k->match_attribute : c->k->distinct_attribute;
            split_attr(cl, at, &c->dom, &c->id);
            c->vals = kp__calloc(RESULTS_MAX * a->n_claims + 1, sizeof *c->vals);
            if (!c->vals) return KP_ENOMEM;
        }
        for (uint16_t r = 0; r < sp->n_requests; r++, fr++) {
            const kp_dra_request *req = &sp->requests[r];
            a->req_rq[fr] = a->n_rqs;
            a->req_nsub[fr] = req->first_available ? req->n_subs : 0;
            uint16_t n = req->first_available ? req->n_subs : 1;
            for (uint16_t s = 0; s < n; s++) {
                rq *q = &a->rqs[a->n_rqs++];
                q->claim_i = ci;
                q->ex = req->first_available ? &req->subs[s] : &req->exactly;
                q->base = req->name;
                q->sub = req->first_available ? q->ex->name : 0;
                q->full = q->sub ? intern_join(cl, q->base, q->sub) : q->base;
                if (!q->full) return KP_ENOMEM;
                q->cls = kp__dra_index_class(a->ix, cl, q->ex->class_name);
            }
        }
    }
    a->cons_base[a->n_claims] = k;
    a->n_reqs = fr;
    return KP_OK;
}

kp_dra_alloc *kp__dra_alloc_new(kp_cluster *cl, kp_dra_index *ix, const kp_dra_features *f,
                                const uint32_t *claims, uint32_t n) {
    return kp__dra_alloc_new_virtual(cl, ix, f, claims, n, NULL);
}

kp_dra_alloc *kp__dra_alloc_new_virtual(kp_cluster *cl, kp_dra_index *ix, const kp_dra_features *f,
                                        const uint32_t *claims, uint32_t n,
                                        const kp_dra_claim *virt) {
    kp_dra_alloc *a = kp__calloc(1, sizeof *a);
    if (!a) return NULL;
    a->virt = virt;
    a->cl = cl;
    a->ix = ix;
    a->f = *f;
    a->n_claims = n;
    a->claims = kp__malloc((size_t)n * sizeof *a->claims + 1);
    if (!a->claims) {
        kp__free(a);
        return NULL;
    }
    if (n) memcpy(a->claims, claims, (size_t)n * sizeof *claims);
    if (!(a->part = kp__calloc(1, sizeof *a->part)) || setup_requests(a) != KP_OK) {
        kp__dra_alloc_free(a);
        return NULL;
    }
    return a;
}

void kp__dra_alloc_free(kp_dra_alloc *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->n_rqs; i++) kp__free(a->rqs[i].all);
    if (a->cons && a->cons_base) /* a failed setup_requests leaves either NULL */
        for (uint32_t i = 0; i < a->cons_base[a->n_claims]; i++) kp__free(a->cons[i].vals);
    kp__free(a->claims);
    kp__free(a->req_base);
    kp__free(a->req_rq);
    kp__free(a->req_nsub);
    kp__free(a->sel_sub);
    kp__free(a->rqs);
    kp__free(a->cons);
    kp__free(a->cons_base);
    kp__dra_pools_fini(&a->pl);
    kp__free(a->sel);
    kp__free(a->res);
    kp__free(a->n_res);
    kp__free(a->busy);
    kp__free(a->out);
    kp__free(a->out_res);
    kp__free(a->msg);
    if (a->part) kp__dra_part_fini(a->part);
    kp__free(a->part);
    kp__free(a);
}

/* ---- binding conditions (DRADeviceBindingConditions) ---- */

static bool has_binding(const kp_dra_device *d) {
    return d->binds_to_node || d->n_binding_conditions || d->n_binding_failure_conditions;
}

/* ---- selection ---- */

static void dev_name(const kp_dra_alloc *a, uint32_t k, char *b, size_t cap) {
    const kp_dra_slice *s = slice_of(a, k);
    snprintf(b, cap, "%s/%s/%s", S(a, s->driver), S(a, s->pool), S(a, dev_of(a, k)->name));
}

/* mirrors selectorsMatch for one list of selectors: 1 all match, 0 not, < 0 an error */
static int selectors_match(kp_dra_alloc *a, uint32_t k, const kp_str *sel, uint16_t n,
                           const char *who) {
    const kp_dra_slice *s = slice_of(a, k);
    kp_cel_device d = {a->cl, s->driver, dev_of(a, k)};
    for (uint16_t i = 0; i < n; i++) {
        const char *why;
        const kp_cel_program *p = kp__dra_index_prog(a->ix, a->cl, sel[i], &why);
        if (!p && !why) return KP_ENOMEM;
        if (!p) return fail(a, "%s: selector #%u: CEL compile error: %s", who, i, why);
        kp_error err;
        memset(&err, 0, sizeof err);
        bool match = false;
        kp_status st = kp__cel_eval_device(p, &d, &match, &err);
        if (st == KP_ENOMEM) return KP_ENOMEM;
        if (st != KP_OK) {
            char id[768];
            dev_name(a, k, id, sizeof id);
            return fail(a, "%s: selector #%u on device %s: CEL runtime error: %s", who, i, id,
                        err.msg);
        }
        if (!match) return 0;
    }
    return 1;
}

/* mirrors isSelectable: the class's selectors (their verdict per device cached across pods),
 * the request's own, and the device's own node selection */
static int selectable(kp_dra_alloc *a, uint32_t qi, uint32_t k) {
    uint8_t *c = &a->sel[(size_t)qi * a->pl.n_nd + k];
    if (*c) return *c == 1;
    const rq *q = &a->rqs[qi];
    const kp_dra_class *cls = &a->cl->dra.classes[q->cls];
    int r = 1;
    if (cls->n_selectors) {
        uint8_t **cache = &a->ix->class_ok[q->cls];
        uint32_t g = a->ix->dev_base[a->pl.nd[k].slice] + a->pl.nd[k].dev;
        if (!*cache && !(*cache = kp__calloc(a->ix->n_devices + 1, 1))) return KP_ENOMEM;
        if (!(*cache)[g]) {
            char who[600];
            snprintf(who, sizeof who, "class %s", S(a, cls->name));
            r = selectors_match(a, k, cls->selectors, cls->n_selectors, who);
            if (r < 0) return r;
            (*cache)[g] = r ? 1 : 2;
        }
        r = (*cache)[g] == 1;
    }
    if (r && q->ex->n_selectors) {
        const kp_dra_claim *cl = claim_of(a, q->claim_i);
        char who[600];
        snprintf(who, sizeof who, "claim %s/%s", S(a, cl->ns), S(a, cl->name));
        r = selectors_match(a, k, q->ex->selectors, q->ex->n_selectors, who);
        if (r < 0) return r;
    }
    const kp_dra_device *d = dev_of(a, k);
    if (r && slice_of(a, k)->per_device_nodes)
        r = d->has_nodes && kp__dra_nodes_match(a->cl, &d->nodes, a->node);
    *c = r ? 1 : 2;
    return r;
}

/* ---- allocating one device (allocateDevice) ---- */

static bool in_use(const kp_dra_alloc *a, uint32_t k) {
    for (uint32_t i = 0; i < a->n_busy; i++)
        if (a->busy[i].nd == k) return true;
    const kp_dra_slice *s = slice_of(a, k);
    kp_dra_devid id = {s->driver, s->pool, dev_of(a, k)->name};
    /* without DRAConsumableCapacity a shared device's allocations hold it (capacity.h) */
    return kp__dra_devset_get(&a->ix->in_use, id) > 0 ||
           (!a->f.consumable_capacity && kp__dra_index_n_shares(a->ix, id));
}

static bool busy_for_claim(const kp_dra_alloc *a, uint32_t k, uint32_t ci) {
    for (uint32_t i = 0; i < a->n_busy; i++)
        if (a->busy[i].nd == k && a->busy[i].rq == ci) return true;
    return false;
}

/* mirrors taintPreventsAllocation: a NoSchedule or NoExecute taint no toleration tolerates */
static bool taint_prevents(const kp_dra_device *d, const kp_dra_exact *ex) {
    for (uint16_t t = 0; t < d->n_taints; t++) {
        if (d->taints[t].effect != KP_EFFECT_NOSCHEDULE &&
            d->taints[t].effect != KP_EFFECT_NOEXECUTE)
            continue;
        bool ok = false;
        for (uint16_t i = 0; i < ex->n_tolerations && !ok; i++)
            ok = kp__toleration_tolerates(&ex->tolerations[i], &d->taints[t]);
        if (!ok) return true;
    }
    return false;
}

static const kp_dra_attr *lookup_attr(const kp_dra_device *d, kp_str dom, kp_str id) {
    for (uint16_t i = 0; i < d->n_attrs; i++)
        if (d->attrs[i].domain == dom && d->attrs[i].name == id) return &d->attrs[i];
    return NULL;
}

static bool attr_eq(const kp_dra_attr *x, const kp_dra_attr *y) {
    if (x->type != y->type) return false;
    switch ((kp_dra_attr_type)x->type) {
    case KP_DRA_ATTR_INT: return x->i == y->i;
    case KP_DRA_ATTR_BOOL: return x->b == y->b;
    case KP_DRA_ATTR_STRING:
    case KP_DRA_ATTR_VERSION: return x->s == y->s;
    }
    return false;
}

static bool cons_applies(const cons *c, const rq *q) {
    if (!c->k->n_requests) return true;
    for (uint16_t i = 0; i < c->k->n_requests; i++)
        if (c->k->requests[i] == q->base || (q->sub && c->k->requests[i] == q->full)) return true;
    return false;
}

/* matchAttributeConstraint.add / distinctAttributeConstraint.add */
static bool cons_add(cons *c, const rq *q, const kp_dra_device *d) {
    if (!cons_applies(c, q)) return true;
    const kp_dra_attr *at = lookup_attr(d, c->dom, c->id);
    if (!at) return false;
    if (c->k->match_attribute) {
        if (c->n && !attr_eq(at, c->vals[0])) return false;
    } else {
        for (uint32_t i = 0; i < c->n; i++)
            if (attr_eq(at, c->vals[i])) return false;
    }
    c->vals[c->n++] = at;
    return true;
}

static void cons_remove(cons *c, const rq *q) {
    if (cons_applies(c, q)) c->n--;
}

/* partitionable devices and consumable capacity (capacity.h): the device's counters and shared
 * capacity for result slot; 1 taken, 0 not, < 0 error */
static int part_take(kp_dra_alloc *a, uint32_t qi, uint32_t k, uint32_t slot) {
    const kp_dra_slice *s = slice_of(a, k);
    const kp_dra_device *d = dev_of(a, k);
    kp_dra_devid id = {s->driver, s->pool, d->name};
    /* nothing to check: no counters, and a device for one claim with no capacity asked of it
     * (its requestPolicy-free capacities are consumed whole, which always fits) */
    if (!d->n_consumes &&
        !(a->f.consumable_capacity && (d->allow_multiple || a->rqs[qi].ex->n_cap_requests)))
        return 1;
    int r = kp__dra_part_take(a->part, a->ix, a->cl, &a->f, a->ix->slice_pool[a->pl.nd[k].slice],
                              id, d, a->rqs[qi].ex, k, slot);
    return r == KP_ERANGE ? fail(a,
                                 "device %s/%s/%s: a capacity or counter is past int64 "
                                 "milli-units",
                                 S(a, s->driver), S(a, s->pool), S(a, d->name))
                          : r;
}

/* 1 allocated, 0 not, < 0 error */
static int allocate_device(kp_dra_alloc *a, uint32_t ci, uint32_t qi, uint32_t k, bool must) {
    const rq *q = &a->rqs[qi];
    const kp_dra_device *d = dev_of(a, k);
    bool multi = kp__dra_part_multi(&a->f, d);
    if (q->ex->admin_access ? !multi && busy_for_claim(a, k, ci) : in_use(a, k)) return 0;
    if (a->f.device_taints && taint_prevents(d, q->ex)) return 0;
    if (!a->f.device_binding && has_binding(d)) return 0; /* DeviceBindingAndStatus off */
    uint32_t slot = ci * RESULTS_MAX + a->n_res[ci];
    int pr = part_take(a, qi, k, slot);
    if (pr <= 0) return pr;
    cons *cs = &a->cons[a->cons_base[ci]];
    uint32_t n_cs = a->cons_base[ci + 1] - a->cons_base[ci];
    for (uint32_t i = 0; i < n_cs; i++) {
        if (cons_add(&cs[i], q, d)) continue;
        for (uint32_t e = 0; e < i; e++) cons_remove(&cs[e], q);
        kp__dra_part_undo(a->part, a->ix, slot);
        if (!must) return 0;
        const kp_dra_claim *c = claim_of(a, ci);
        char id[768];
        dev_name(a, k, id, sizeof id);
        return fail(a,
                    "claim %s/%s, request %s: cannot add device %s because a claim constraint "
                    "would not be satisfied",
                    S(a, c->ns), S(a, c->name), S(a, q->sub ? q->sub : q->base), id);
    }
    if (a->n_busy == a->cap_busy) {
        void *p = a->busy;
        if (!kp__grow32(&p, &a->cap_busy, (size_t)a->n_busy + 1, sizeof *a->busy, 16)) {
            for (uint32_t i = 0; i < n_cs; i++) cons_remove(&cs[i], q);
            kp__dra_part_undo(a->part, a->ix, slot);
            return KP_ENOMEM;
        }
        a->busy = p;
    }
    if (!multi) a->busy[a->n_busy++] = (res_ent){ci, k}; /* a shared device stays free */
    a->res[(size_t)ci * RESULTS_MAX + a->n_res[ci]++] = (res_ent){qi, k};
    return 1;
}

/* the rollback allocateDevice returns */
static void deallocate(kp_dra_alloc *a, uint32_t ci, uint32_t qi) {
    cons *cs = &a->cons[a->cons_base[ci]];
    for (uint32_t i = 0; i < a->cons_base[ci + 1] - a->cons_base[ci]; i++)
        cons_remove(&cs[i], &a->rqs[qi]);
    uint32_t slot = ci * RESULTS_MAX + --a->n_res[ci];
    if (!kp__dra_part_multi(&a->f, dev_of(a, a->res[slot].nd))) a->n_busy--;
    kp__dra_part_undo(a->part, a->ix, slot);
}

/* ---- the search (allocateOne) ---- */

static int alloc_one(kp_dra_alloc *a, uint32_t ci, uint32_t ri, uint32_t si, uint32_t di,
                     bool in_sub, uint32_t start) {
    if (ci >= a->n_claims) return R_DONE;
    const kp_dra_claim_spec *sp = &claim_of(a, ci)->spec;
    if (ri >= sp->n_requests) {
        int r = alloc_one(a, ci + 1, 0, 0, 0, false, 0);
        return r == R_MAXSIZE ? R_FAIL : r;
    }
    uint32_t fr = a->req_base[ci] + ri;
    if (!in_sub && a->req_nsub[fr]) { /* one of the subrequests, in order */
        bool all_exceeded = true;
        for (uint32_t s = 0; s < a->req_nsub[fr]; s++) {
            int r = alloc_one(a, ci, ri, s, 0, true, 0);
            if (r == R_MAXSIZE) continue;
            all_exceeded = false;
            if (r < 0) return r;
            if (r == R_DONE) {
                a->sel_sub[fr] = s;
                return R_DONE;
            }
        }
        return all_exceeded ? R_MAXSIZE : R_FAIL;
    }
    uint32_t qi = a->req_rq[fr] + si;
    const rq *q = &a->rqs[qi];
    bool all = q->ex->mode == KP_DRA_MODE_ALL;
    if (all && q->n_all == 0) return R_FAIL;
    if (di >= q->num) return alloc_one(a, ci, ri + 1, 0, 0, false, 0);
    if (a->n_res[ci] + q->num - di > RESULTS_MAX) return R_MAXSIZE;
    if (all) { /* the devices are known: each must be usable */
        int r = allocate_device(a, ci, qi, q->all[di], true);
        if (r <= 0) return r;
        r = alloc_one(a, ci, ri, si, di + 1, in_sub, 0);
        if (r != R_DONE) deallocate(a, ci, qi);
        return r;
    }
    for (uint32_t k = start; k < a->pl.n_nd; k++) {
        if (!a->pl.nd[k].usable) continue;
        if (q->ex->admin_access ? busy_for_claim(a, k, ci) : in_use(a, k)) continue;
        int r = selectable(a, qi, k);
        if (r < 0) return r;
        if (!r) continue;
        if ((r = allocate_device(a, ci, qi, k, false)) < 0) return r;
        if (!r) continue;
        r = alloc_one(a, ci, ri, si, di + 1, in_sub, k + 1);
        if (r == R_DONE) return R_DONE;
        deallocate(a, ci, qi);
        if (r != R_FAIL) return r;
    }
    return R_FAIL;
}

/* mirrors validateDeviceRequest for every request on the current node: the device count, and
 * for allocationMode All the devices themselves (an incomplete pool is an error) */
static int validate(kp_dra_alloc *a) {
    for (uint32_t qi = 0; qi < a->n_rqs; qi++) {
        rq *q = &a->rqs[qi];
        const kp_dra_claim *c = claim_of(a, q->claim_i);
        const char *rname = S(a, q->sub ? q->sub : q->base);
        if (q->sub && !a->f.prioritized_list)
            return fail(a,
                        "claim %s/%s, request %s: has subrequests, but the DRAPrioritizedList "
                        "feature is disabled",
                        S(a, c->ns), S(a, c->name), S(a, q->base));
        if (q->ex->n_cap_requests && !a->f.consumable_capacity)
            return fail(a,
                        "claim %s/%s, %s %s: has capacity requests, but the "
                        "DRAConsumableCapacity feature is disabled",
                        S(a, c->ns), S(a, c->name), q->sub ? "subrequest" : "request", rname);
        if (q->ex->admin_access && !a->f.admin_access)
            return fail(a,
                        "claim %s/%s, request %s: admin access is requested, but the feature "
                        "is disabled",
                        S(a, c->ns), S(a, c->name), rname);
        if (q->cls < 0)
            return fail(a,
                        "claim %s/%s, request %s: could not retrieve device class %s: "
                        "deviceclass.resource.k8s.io \"%s\" not found",
                        S(a, c->ns), S(a, c->name), rname, S(a, q->ex->class_name),
                        S(a, q->ex->class_name));
        if (q->ex->mode == KP_DRA_MODE_EXACT) {
            q->num = q->ex->count < 0 ? 0
                                      : (uint32_t)(q->ex->count > UINT32_MAX / 2 ? UINT32_MAX / 2
                                                                                 : q->ex->count);
            continue;
        }
        q->n_all = 0;
        if (q->cap_all < a->pl.n_nd + 1) {
            kp__free(q->all);
            q->cap_all = a->pl.n_nd + 1;
            if (!(q->all = kp__malloc((size_t)q->cap_all * sizeof *q->all))) return KP_ENOMEM;
        }
        for (uint32_t k = 0; k < a->pl.n_nd; k++) {
            if (!a->pl.nd[k].usable) {
                const kp_dra_slice *s = slice_of(a, k);
                return fail(a,
                            "claim %s/%s, request %s: asks for all devices, but resource pool "
                            "%s/%s is currently being updated",
                            S(a, c->ns), S(a, c->name), rname, S(a, s->driver), S(a, s->pool));
            }
            int r = selectable(a, qi, k);
            if (r > 0 && a->f.consumable_capacity &&
                (dev_of(a, k)->allow_multiple || q->ex->n_cap_requests)) { /* see part_take */
                const kp_dra_slice *s = slice_of(a, k);
                kp_dra_devid id = {s->driver, s->pool, dev_of(a, k)->name};
                r = kp__dra_part_fits(a->part, a->ix, &a->f, id, dev_of(a, k), q->ex, k);
                if (r == KP_ERANGE) r = 0;
            }
            if (r < 0) return r;
            if (r) q->all[q->n_all++] = k;
        }
        q->num = q->n_all;
    }
    for (uint32_t ci = 0; ci < a->n_claims; ci++) { /* minDevicesPerClaim */
        uint64_t min = 0;
        for (uint32_t fr = a->req_base[ci];
             fr < (ci + 1 < a->n_claims ? a->req_base[ci + 1] : a->n_reqs); fr++) {
            uint32_t n = a->req_nsub[fr] ? a->req_nsub[fr] : 1, m = UINT32_MAX;
            for (uint32_t s = 0; s < n; s++)
                if (a->rqs[a->req_rq[fr] + s].num < m) m = a->rqs[a->req_rq[fr] + s].num;
            min += m;
        }
        if (min > RESULTS_MAX) {
            const kp_dra_claim *c = claim_of(a, ci);
            return fail(a,
                        "claim %s/%s: number of requested devices %llu exceeds the claim limit of "
                        "%d",
                        S(a, c->ns), S(a, c->name), (unsigned long long)min, RESULTS_MAX);
        }
    }
    return KP_OK;
}

/* mirrors createNodeSelector: a node-local device pins the allocation to the node; else the
 * (first) node selector of the devices' slices; else none (every node) */
static void node_selector(kp_dra_alloc *a, uint32_t ci, kp_dra_claim_alloc *o) {
    o->has_nodes = false;
    for (uint32_t i = 0; i < a->n_res[ci]; i++) {
        uint32_t k = a->res[(size_t)ci * RESULTS_MAX + i].nd;
        const kp_dra_slice *s = slice_of(a, k);
        const kp_dra_nodes *n = s->per_device_nodes ? &dev_of(a, k)->nodes : &s->nodes;
        if (n->node_name || (a->f.device_binding && dev_of(a, k)->binds_to_node)) {
            memset(&o->nodes, 0, sizeof o->nodes);
            o->nodes.node_name = a->cl->nodes[a->node].name;
            o->has_nodes = true;
            return;
        }
        if (n->has_selector && !o->has_nodes) {
            o->nodes = *n;
            o->has_nodes = true;
        }
    }
}

static kp_status fill_results(kp_dra_alloc *a) {
    for (uint32_t ci = 0; ci < a->n_claims; ci++) {
        kp_dra_claim_alloc *o = &a->out[ci];
        o->claim = a->claims[ci];
        o->n_results = (uint16_t)a->n_res[ci];
        o->results = &a->out_res[(size_t)ci * RESULTS_MAX];
        for (uint32_t i = 0; i < a->n_res[ci]; i++) {
            res_ent e = a->res[(size_t)ci * RESULTS_MAX + i];
            const kp_dra_slice *s = slice_of(a, e.nd);
            kp_dra_result *r = &o->results[i];
            memset(r, 0, sizeof *r);
            r->request = a->rqs[e.rq].full;
            r->driver = s->driver;
            r->pool = s->pool;
            r->device = dev_of(a, e.nd)->name;
            r->admin_access = a->rqs[e.rq].ex->admin_access;
            kp_status st = kp__dra_part_result(a->part, a->cl, claim_of(a, ci),
                                               ci * RESULTS_MAX + i, r); /* shareID */
            if (st != KP_OK) return st;
            if (a->f.device_binding) { /* the device's binding conditions travel with it */
                const kp_dra_device *d = dev_of(a, e.nd);
                r->n_binding_conditions = d->n_binding_conditions;
                r->binding_conditions = d->binding_conditions;
                r->n_binding_failure_conditions = d->n_binding_failure_conditions;
                r->binding_failure_conditions = d->binding_failure_conditions;
            }
        }
        node_selector(a, ci, o);
    }
    return KP_OK;
}

int kp__dra_alloc_node(kp_dra_alloc *a, uint32_t node, const char **msg) {
    *msg = NULL;
    a->node = node;
    a->n_busy = 0;
    kp__dra_part_reset(a->part);
    for (uint32_t ci = 0; ci < a->n_claims; ci++) a->n_res[ci] = 0;
    for (uint32_t i = 0; i < a->cons_base[a->n_claims]; i++) a->cons[i].n = 0;
    kp_status st =
        kp__dra_gather(&a->pl, a->cl, a->ix, a->f.partitionable_devices, a->f.device_binding, node);
    if (st != KP_OK) return st;
    size_t need = (size_t)a->n_rqs * a->pl.n_nd + 1;
    if (need > a->cap_sel) {
        kp__free(a->sel);
        if (!(a->sel = kp__malloc(need))) {
            a->cap_sel = 0;
            return KP_ENOMEM;
        }
        a->cap_sel = need;
    }
    memset(a->sel, 0, need);
    int r = validate(a);
    if (r == KP_OK) r = alloc_one(a, 0, 0, 0, 0, false, 0);
    if (r < 0) {
        *msg = a->msg;
        return r;
    }
    if (r != R_DONE) {
        /* allocation on the node failed with an invalid pool seen: upstream's error wrapping
         * ErrFailedAllocationOnNode, the node's reason */
        if (a->pl.saw_invalid && fail(a, "invalid resource pools were encountered") == KP_ENOMEM)
            return KP_ENOMEM;
        if (a->pl.saw_invalid) *msg = a->msg;
        return 0;
    }
    st = fill_results(a);
    return st == KP_OK ? 1 : st;
}

uint32_t kp__dra_alloc_count(const kp_dra_alloc *a) { return a->n_claims; }

const kp_dra_claim_alloc *kp__dra_alloc_result(const kp_dra_alloc *a, uint32_t i) {
    return &a->out[i];
}

int64_t kp__dra_alloc_score(const kp_dra_alloc *a) {
    int64_t score = 0;
    for (uint32_t fr = 0; fr < a->n_reqs; fr++)
        if (a->req_nsub[fr]) score += FIRST_AVAILABLE_MAX - (int64_t)a->sel_sub[fr];
    return score;
}

/* ---- --explain ---- */

/* The claims holding device k (up to 3 named, then a count) appended to b. */
static size_t holders(const kp_dra_alloc *a, uint32_t k, char *b, size_t cap, size_t len,
                      uint32_t *named) {
    const kp_dra_slice *s = slice_of(a, k);
    kp_str dev = dev_of(a, k)->name;
    const kp_dra *d = &a->cl->dra;
    for (uint32_t c = 0; c < d->n_claims; c++) {
        const kp_dra_claim *cl = &d->claims[c];
        if (!cl->allocated || cl->deleted) continue;
        for (uint16_t i = 0; i < cl->n_results; i++) {
            const kp_dra_result *r = &cl->results[i];
            if (r->device != dev || r->pool != s->pool || r->driver != s->driver || r->admin_access)
                continue;
            if (*named < 3 && len < cap) {
                int n = snprintf(b + len, cap - len, "%s%s/%s", *named ? ", " : "", S(a, cl->ns),
                                 S(a, cl->name));
                if (n > 0) len += (size_t)n;
                if (cl->n_reserved && len < cap) {
                    n = snprintf(b + len, cap - len, " (reserved by %s)",
                                 S(a, cl->reserved[0].name));
                    if (n > 0) len += (size_t)n;
                }
            }
            (*named)++;
        }
    }
    return len;
}

void kp__dra_alloc_explain(kp_dra_alloc *a, uint32_t node, char *b, size_t cap) {
    if (!cap) return;
    b[0] = 0;
    a->node = node;
    a->n_busy = 0;
    if (kp__dra_gather(&a->pl, a->cl, a->ix, a->f.partitionable_devices, a->f.device_binding,
                       node) != KP_OK)
        return;
    size_t need = (size_t)a->n_rqs * a->pl.n_nd + 1;
    if (need > a->cap_sel) {
        kp__free(a->sel);
        if (!(a->sel = kp__malloc(need))) {
            a->cap_sel = 0;
            return;
        }
        a->cap_sel = need;
    }
    memset(a->sel, 0, need);
    size_t len = 0;
    for (uint32_t qi = 0; qi < a->n_rqs && len < cap; qi++) {
        const rq *q = &a->rqs[qi];
        uint32_t match = 0, free_n = 0, named = 0;
        char held[512];
        size_t hl = 0;
        held[0] = 0;
        for (uint32_t k = 0; k < a->pl.n_nd; k++) {
            if (q->cls < 0 || selectable(a, qi, k) != 1) continue;
            match++;
            if (!in_use(a, k)) free_n++;
            else hl = holders(a, k, held, sizeof held, hl, &named);
        }
        int n = snprintf(b + len, cap - len,
                         "%srequest %s: %u free of %u device(s) matching class %s", len ? "; " : "",
                         S(a, q->full), free_n, match, q->cls >= 0 ? S(a, q->ex->class_name) : "?");
        if (n > 0) len += (size_t)n;
        if (named && len < cap) {
            n = snprintf(b + len, cap - len, ", held by %s%s", held, named > 3 ? ", ..." : "");
            if (n > 0) len += (size_t)n;
        }
    }
    if (len >= cap) len = cap - 1;
    b[len] = 0;
}
