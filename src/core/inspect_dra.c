/* The DRA part of `kprio inspect`: every device of the ResourceSlices with the allocated claim
 * that holds it and the pod it is reserved for, and the claims without an allocation with why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/inspect_dra.h"
#include "kprio/quantity.h"

/* a row while it is built: strings as offsets into the pool (it grows, pointers would move) */
typedef struct {
    size_t node, driver, pool, device, attrs, claim_ns, claim, reserved;
    size_t n_reserved;
    kp_str drv_id, pool_id, dev_id; /* to find a claim's devices */
    uint32_t slice, dev; /* the device (sharing_notes) */
} dev_row;

static size_t put(kp__buf *b, const char *s) {
    size_t off = b->len;
    kp__buf_append(b, s, strlen(s) + 1);
    return off;
}

/* "name=value" of a device's attributes and capacities, unqualified in the driver's domain */
static size_t attr_summary(const kp_cluster *cl, kp__buf *b, kp_str driver,
                           const kp_dra_device *dv) {
    size_t off = b->len;
    for (uint16_t i = 0; i < dv->n_attrs; i++) {
        const kp_dra_attr *a = &dv->attrs[i];
        kp__buf_printf(b, "%s%s%s%s=", i ? "," : "",
                       a->domain == driver ? "" : kp__s(cl, a->domain),
                       a->domain == driver ? "" : "/", kp__s(cl, a->name));
        switch ((kp_dra_attr_type)a->type) {
        case KP_DRA_ATTR_INT: kp__buf_printf(b, "%lld", (long long)a->i); break;
        case KP_DRA_ATTR_BOOL: kp__buf_puts(b, a->b ? "true" : "false"); break;
        case KP_DRA_ATTR_STRING:
        case KP_DRA_ATTR_VERSION: kp__buf_puts(b, kp__s(cl, a->s)); break;
        }
    }
    for (uint16_t i = 0; i < dv->n_caps; i++) {
        const kp_dra_capacity *c = &dv->caps[i];
        kp__buf_printf(b, "%s%s%s%s=%s", i || dv->n_attrs ? "," : "",
                       c->domain == driver ? "" : kp__s(cl, c->domain),
                       c->domain == driver ? "" : "/", kp__s(cl, c->name),
                       kp_quantity_string(&c->value).s);
    }
    kp__buf_putc(b, 0);
    return off;
}

static size_t nodes_text(const kp_cluster *cl, kp__buf *b, const kp_dra_nodes *n) {
    if (n->node_name) return put(b, kp__s(cl, n->node_name));
    return put(b, n->all_nodes ? "<all>" : "<selector>");
}

static int id_cmp(const void *x, const void *y) {
    const dev_row *a = x, *b = y;
    if (a->drv_id != b->drv_id) return a->drv_id < b->drv_id ? -1 : 1;
    if (a->pool_id != b->pool_id) return a->pool_id < b->pool_id ? -1 : 1;
    return a->dev_id < b->dev_id ? -1 : a->dev_id > b->dev_id;
}

static int dev_name_cmp(const void *x, const void *y) {
    const kp_inspect_device *a = x, *b = y;
    int c = strcmp(a->node, b->node);
    if (!c) c = strcmp(a->driver, b->driver);
    if (!c) c = strcmp(a->pool, b->pool);
    return c ? c : strcmp(a->device, b->device);
}

/* mark the devices allocated claims hold (rows sorted by ids) */
static void holders(const kp_cluster *cl, kp__buf *b, dev_row *rows, size_t n) {
    for (uint32_t c = 0; c < cl->dra.n_claims; c++) {
        const kp_dra_claim *cm = &cl->dra.claims[c];
        if (cm->deleted || !cm->allocated) continue;
        for (uint16_t r = 0; r < cm->n_results; r++) {
            dev_row key = {.drv_id = cm->results[r].driver,
                           .pool_id = cm->results[r].pool,
                           .dev_id = cm->results[r].device};
            dev_row *hit = n ? bsearch(&key, rows, n, sizeof *rows, id_cmp) : NULL;
            if (!hit || hit->claim) continue; /* (a shared device: the first claim is shown) */
            hit->claim_ns = put(b, kp__s(cl, cm->ns));
            hit->claim = put(b, kp__s(cl, cm->name));
            hit->n_reserved = cm->n_reserved;
            if (cm->n_reserved) hit->reserved = put(b, kp__s(cl, cm->reserved[0].name));
        }
    }
}

static int64_t milli(const kp_quantity *q) {
    int64_t v = 0;
    return kp_quantity_milli_value(q, &v) == KP_OK ? v : INT64_MAX;
}

/* a counter's value in the pool's counter slices of generation gen (-1: none) */
static int64_t counter_total(const kp_cluster *cl, const kp_dra_slice *of, kp_str set, kp_str name,
                             kp_qformat *fmt) {
    for (uint32_t s = 0; s < cl->dra.n_slices; s++) {
        const kp_dra_slice *sl = &cl->dra.slices[s];
        if (sl->deleted || sl->driver != of->driver || sl->pool != of->pool ||
            sl->generation != of->generation)
            continue;
        for (uint16_t c = 0; c < sl->n_counter_sets; c++)
            for (uint16_t k = 0;
                 sl->counter_sets[c].name == set && k < sl->counter_sets[c].n_counters; k++)
                if (sl->counter_sets[c].counters[k].name == name) {
                    *fmt = sl->counter_sets[c].counters[k].value.format;
                    return milli(&sl->counter_sets[c].counters[k].value);
                }
    }
    return -1;
}

/* what the held devices of the pool (rows[lo..hi), one pool) consume of set/name */
static int64_t counter_used(const kp_cluster *cl, const dev_row *rows, size_t lo, size_t hi,
                            kp_str set, kp_str name) {
    int64_t used = 0;
    for (size_t i = lo; i < hi; i++) {
        if (!rows[i].claim) continue;
        const kp_dra_device *d = &cl->dra.slices[rows[i].slice].devices[rows[i].dev];
        for (uint16_t c = 0; c < d->n_consumes; c++)
            for (uint16_t k = 0; d->consumes[c].name == set && k < d->consumes[c].n_counters; k++)
                if (d->consumes[c].counters[k].name == name)
                    used += milli(&d->consumes[c].counters[k].value);
    }
    return used;
}

/* what the allocations sharing device r consume of capacity cap (consumedCapacity) */
static int64_t capacity_used(const kp_cluster *cl, const dev_row *r, const kp_dra_capacity *cap) {
    int64_t used = 0;
    for (uint32_t c = 0; c < cl->dra.n_claims; c++) {
        const kp_dra_claim *cm = &cl->dra.claims[c];
        if (cm->deleted || !cm->allocated) continue;
        for (uint16_t i = 0; i < cm->n_results; i++) {
            const kp_dra_result *res = &cm->results[i];
            if (!res->share_id || res->device != r->dev_id || res->pool != r->pool_id ||
                res->driver != r->drv_id)
                continue;
            for (uint16_t q = 0; q < res->n_consumed; q++)
                if (res->consumed[q].name == cap->name && res->consumed[q].domain == cap->domain)
                    used += milli(&res->consumed[q].value);
        }
    }
    return used;
}

/* Partitionable and shared devices: what is left, after the allocated devices, of each counter
 * a device consumes ("gpu-0-counters/memory=10Gi (30Gi of 40Gi left)") and of a shared device's
 * capacities ("memory: 30Gi of 40Gi left"), appended to its attributes (rows sorted by id). */
static void sharing_notes(const kp_cluster *cl, kp__buf *b, dev_row *rows, size_t n) {
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1;
             hi < n && rows[hi].drv_id == rows[lo].drv_id && rows[hi].pool_id == rows[lo].pool_id;
             hi++) {}
        for (size_t i = lo; i < hi; i++) {
            const kp_dra_slice *sl = &cl->dra.slices[rows[i].slice];
            const kp_dra_device *d = &sl->devices[rows[i].dev];
            if (!d->n_consumes && !d->allow_multiple) continue;
            size_t len = strlen(b->p + rows[i].attrs), off = b->len;
            char *old = kp__malloc(len + 1);
            if (!old) {
                b->failed = true;
                return;
            }
            memcpy(old, b->p + rows[i].attrs, len + 1);
            kp__buf_puts(b, old);
            kp__free(old);
            for (uint16_t c = 0; c < d->n_consumes; c++)
                for (uint16_t k = 0; k < d->consumes[c].n_counters; k++) {
                    const kp_dra_counter *ct = &d->consumes[c].counters[k];
                    kp_qformat fmt = ct->value.format;
                    int64_t total = counter_total(cl, sl, d->consumes[c].name, ct->name, &fmt);
                    kp__buf_printf(b, "%s%s/%s=%s", b->len > off ? "," : "",
                                   kp__s(cl, d->consumes[c].name), kp__s(cl, ct->name),
                                   kp_quantity_string(&ct->value).s);
                    if (total >= 0) {
                        int64_t left =
                            total - counter_used(cl, rows, lo, hi, d->consumes[c].name, ct->name);
                        kp__buf_printf(b, " (%s of %s left)", kp_quantity_string_milli(left, fmt).s,
                                       kp_quantity_string_milli(total, fmt).s);
                    }
                }
            for (uint16_t c = 0; d->allow_multiple && c < d->n_caps; c++) {
                const kp_dra_capacity *cap = &d->caps[c];
                int64_t total = milli(&cap->value);
                kp__buf_printf(b, "%s%s: %s of %s left", b->len > off ? "," : "",
                               kp__s(cl, cap->name),
                               kp_quantity_string_milli(total - capacity_used(cl, &rows[i], cap),
                                                        cap->value.format)
                                   .s,
                               kp_quantity_string(&cap->value).s);
            }
            kp__buf_putc(b, 0);
            rows[i].attrs = off;
        }
    }
}

static kp_status device_rows(const kp_cluster *cl, kp__buf *b, kp_inspect_device **out,
                             size_t *n_out) {
    size_t n = 0;
    for (uint32_t s = 0; s < cl->dra.n_slices; s++)
        if (!cl->dra.slices[s].deleted) n += cl->dra.slices[s].n_devices;
    *out = NULL;
    *n_out = 0;
    if (!n) return KP_OK;
    dev_row *rows = kp__calloc(n, sizeof *rows);
    if (!rows) return KP_ENOMEM;
    size_t empty = put(b, ""), k = 0;
    for (uint32_t s = 0; s < cl->dra.n_slices; s++) {
        const kp_dra_slice *sl = &cl->dra.slices[s];
        if (sl->deleted) continue;
        size_t drv = put(b, kp__s(cl, sl->driver)), pool = put(b, kp__s(cl, sl->pool));
        size_t node = sl->per_device_nodes ? empty : nodes_text(cl, b, &sl->nodes);
        for (uint32_t d = 0; d < sl->n_devices; d++, k++) {
            const kp_dra_device *dv = &sl->devices[d];
            rows[k] = (dev_row){.node = dv->has_nodes ? nodes_text(cl, b, &dv->nodes) : node,
                                .driver = drv,
                                .pool = pool,
                                .device = put(b, kp__s(cl, dv->name)),
                                .attrs = attr_summary(cl, b, sl->driver, dv),
                                .claim_ns = empty,
                                .claim = 0,
                                .reserved = empty,
                                .drv_id = sl->driver,
                                .pool_id = sl->pool,
                                .dev_id = dv->name,
                                .slice = s,
                                .dev = d};
        }
    }
    qsort(rows, n, sizeof *rows, id_cmp);
    holders(cl, b, rows, n);
    sharing_notes(cl, b, rows, n);
    kp_inspect_device *o = b->failed ? NULL : kp__calloc(n, sizeof *o);
    if (!o) {
        kp__free(rows);
        return KP_ENOMEM;
    }
    /* pointers are set once the pool stops growing (kp__inspect_dra_rows) */
    for (size_t i = 0; i < n; i++)
        o[i] = (kp_inspect_device){(const char *)rows[i].node,
                                   (const char *)rows[i].driver,
                                   (const char *)rows[i].pool,
                                   (const char *)rows[i].device,
                                   (const char *)rows[i].attrs,
                                   (const char *)rows[i].claim_ns,
                                   (const char *)(rows[i].claim ? rows[i].claim : empty),
                                   (const char *)rows[i].reserved,
                                   rows[i].n_reserved};
    kp__free(rows);
    *out = o;
    *n_out = n;
    return KP_OK;
}

/* "gpu: 1 x class; alt: first of a|b" */
static size_t request_summary(const kp_cluster *cl, kp__buf *b, const kp_dra_claim_spec *sp) {
    size_t off = b->len;
    for (uint16_t r = 0; r < sp->n_requests; r++) {
        const kp_dra_request *q = &sp->requests[r];
        kp__buf_printf(b, "%s%s: ", r ? "; " : "", kp__s(cl, q->name));
        if (q->first_available) {
            kp__buf_puts(b, "first of ");
            for (uint16_t s = 0; s < q->n_subs; s++)
                kp__buf_printf(b, "%s%s", s ? "|" : "", kp__s(cl, q->subs[s].class_name));
        } else if (q->exactly.mode == KP_DRA_MODE_ALL) {
            kp__buf_printf(b, "all %s", kp__s(cl, q->exactly.class_name));
        } else {
            kp__buf_printf(b, "%lld x %s", (long long)q->exactly.count,
                           kp__s(cl, q->exactly.class_name));
        }
    }
    kp__buf_putc(b, 0);
    return off;
}

/* the first class a request names that does not exist, 0 when all do */
static kp_str missing_class(const kp_cluster *cl, const kp_dra_claim_spec *sp) {
    for (uint16_t r = 0; r < sp->n_requests; r++) {
        const kp_dra_request *q = &sp->requests[r];
        uint16_t n = q->first_available ? q->n_subs : 1;
        for (uint16_t s = 0; s < n; s++) {
            kp_str c = q->first_available ? q->subs[s].class_name : q->exactly.class_name;
            if (kp__cluster_find_dra(cl, KP_DK_CLASS, 0, c) < 0) return c;
        }
    }
    return 0;
}

typedef struct {
    size_t ns, name, requests, pod, reason, pods;
} claim_row;

static int claim_cmp(const void *x, const void *y) {
    const kp_inspect_dra_claim *a = x, *b = y;
    int c = strcmp(a->ns, b->ns);
    return c ? c : strcmp(a->name, b->name);
}

static kp_status claim_rows(const kp_cluster *cl, kp__buf *b, kp_inspect_dra_claim **out,
                            size_t *n_out) {
    size_t n = 0;
    *out = NULL;
    *n_out = 0;
    for (uint32_t c = 0; c < cl->dra.n_claims; c++)
        n += !cl->dra.claims[c].deleted && !cl->dra.claims[c].allocated;
    if (!n) return KP_OK;
    claim_row *rows = kp__calloc(n, sizeof *rows);
    if (!rows) return KP_ENOMEM;
    size_t k = 0, empty = put(b, "");
    for (uint32_t c = 0; c < cl->dra.n_claims; c++) {
        const kp_dra_claim *cm = &cl->dra.claims[c];
        if (cm->deleted || cm->allocated) continue;
        claim_row *r = &rows[k++];
        r->ns = put(b, kp__s(cl, cm->ns));
        r->name = put(b, kp__s(cl, cm->name));
        r->requests = request_summary(cl, b, &cm->spec);
        r->pod = empty;
        for (uint32_t p = 0; p < cl->n_pods; p++) {
            const kp_pod *pd = &cl->pods[p];
            if (pd->deleted || pd->ns != cm->ns) continue;
            bool uses = false;
            for (uint16_t j = 0; j < pd->n_claims && !uses; j++)
                uses =
                    pd->claims[j].claim_name == cm->name || pd->claims[j].status_claim == cm->name;
            if (uses && !r->pods++) r->pod = put(b, kp__s(cl, pd->name));
        }
        kp_str miss = missing_class(cl, &cm->spec);
        if (miss) {
            r->reason = b->len;
            kp__buf_printf(b, "device class \"%s\" does not exist", kp__s(cl, miss));
            kp__buf_putc(b, 0);
        } else {
            r->reason = put(b, r->pods ? "waiting for the scheduler" : "not used by any pod");
        }
    }
    kp_inspect_dra_claim *o = b->failed ? NULL : kp__calloc(n, sizeof *o);
    if (!o) {
        kp__free(rows);
        return KP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        o[i] = (kp_inspect_dra_claim){(const char *)rows[i].ns,
                                      (const char *)rows[i].name,
                                      (const char *)rows[i].requests,
                                      (const char *)rows[i].pod,
                                      rows[i].pods,
                                      (const char *)rows[i].reason};
    kp__free(rows);
    *out = o;
    *n_out = n;
    return KP_OK;
}

#define FIX(f) (f) = pool + (size_t)(uintptr_t)(f)

kp_status kp__inspect_dra_rows(const kp_cluster *cl, kp_inspect_device **devs, size_t *n_devs,
                               kp_inspect_dra_claim **claims, size_t *n_claims, char **pool_out) {
    kp__buf b;
    kp__buf_init(&b);
    *devs = NULL, *claims = NULL, *pool_out = NULL;
    *n_devs = *n_claims = 0;
    kp_status st = device_rows(cl, &b, devs, n_devs);
    if (st == KP_OK) st = claim_rows(cl, &b, claims, n_claims);
    if (st == KP_OK && b.failed) st = KP_ENOMEM;
    if (st != KP_OK) {
        kp__free(*devs);
        kp__free(*claims);
        *devs = NULL, *claims = NULL;
        *n_devs = *n_claims = 0;
        kp__buf_free(&b);
        return st;
    }
    char *pool = b.p; /* the rows' offsets become pointers into the final block */
    for (size_t i = 0; i < *n_devs; i++) {
        kp_inspect_device *d = &(*devs)[i];
        FIX(d->node), FIX(d->driver), FIX(d->pool), FIX(d->device), FIX(d->attributes);
        FIX(d->claim_ns), FIX(d->claim), FIX(d->reserved_for);
    }
    for (size_t i = 0; i < *n_claims; i++) {
        kp_inspect_dra_claim *c = &(*claims)[i];
        FIX(c->ns), FIX(c->name), FIX(c->requests), FIX(c->pod), FIX(c->reason);
    }
    if (*n_devs) qsort(*devs, *n_devs, sizeof **devs, dev_name_cmp);
    if (*n_claims) qsort(*claims, *n_claims, sizeof **claims, claim_cmp);
    *pool_out = pool; /* (b.p moves to the caller; NULL when nothing was written) */
    return KP_OK;
}
