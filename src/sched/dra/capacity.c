/* Consumable capacity and the allocator's checks of a partitionable or shareable device (see
 * capacity.h). Mirrors consumable_capacity.go (CmpRequestOverCapacity,
 * requestsContainNonExistCapacity, calculateConsumedCapacity, fillEmptyRequest, roundUpRange,
 * roundUpValidValues, GetConsumedCapacityFromRequest, violatesPolicy, violateValidRange,
 * violateValidValues) and allocateDevice's counter and capacity part (allocator_incubating.go),
 * with the scheduler's GatherAllocatedState (foreachAllocatedDevice's shares). */
#include "sched/dra/capacity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

enum { CAPS_MAX = 32 }; /* rule 8: ResourceSliceMaxAttributesAndCapacitiesPerDevice */

/* ---- policy arithmetic ---- */

static int milli(const kp_quantity *q, int64_t *out) {
    return kp_quantity_milli_value(q, out) == KP_OK ? 1 : KP_ERANGE;
}

/* mirrors requestsContainNonExistCapacity's lookup: an unqualified request names the capacity of
 * the device's driver domain */
static const kp_dra_capacity *requested(kp_str driver, const kp_dra_exact *ex,
                                        const kp_dra_capacity *cap) {
    for (uint16_t i = 0; i < ex->n_cap_requests; i++) {
        const kp_dra_capacity *rq = &ex->cap_requests[i];
        if (rq->name == cap->name && (rq->domain ? rq->domain : driver) == cap->domain) return rq;
    }
    return NULL;
}

/* mirrors roundUpRange (milli-unit arithmetic: DRAFractionalCapacityRange, on in 1.37) */
static int round_up_range(const kp_quantity *req, const kp_dra_cap_policy *p, kp_quantity *out) {
    if (kp_quantity_cmp(req, &p->min) < 0) {
        *out = p->min;
        return 1;
    }
    if (!p->has_step) {
        *out = *req;
        return 1;
    }
    int64_t r, step, min;
    if (milli(req, &r) < 0 || milli(&p->step, &step) < 0 || milli(&p->min, &min) < 0)
        return KP_ERANGE;
    if (step <= 0) {
        *out = *req;
        return 1;
    }
    int64_t added = r - min, n = added / step, v;
    if (added % step) n++;
    if (kp_amount_mul(step, n, &v) != KP_OK || kp_amount_add(min, v, &v) != KP_OK) return KP_ERANGE;
    *out = v % 1000 == 0 ? kp_quantity_from_int(v / 1000, p->step.format)
                         : kp_quantity_from_milli(v, p->step.format);
    return 1;
}

/* mirrors calculateConsumedCapacity (fillEmptyRequest, roundUpValidValues) */
static int consumed_of(const kp_dra_capacity *cap, const kp_dra_capacity *rq, kp_quantity *out) {
    const kp_dra_cap_policy *p = cap->policy;
    if (!rq) { /* fillEmptyRequest */
        *out = p && p->has_default ? p->def : cap->value;
        return 1;
    }
    *out = rq->value;
    if (!p) return 1;
    if (p->has_range) return round_up_range(&rq->value, p, out);
    for (uint16_t i = 0; i < p->n_valid; i++) /* roundUpValidValues */
        if (kp_quantity_cmp(&rq->value, &p->valid[i]) <= 0) {
            *out = p->valid[i];
            break;
        }
    return 1;
}

/* mirrors violatesPolicy (violateValidRange, violateValidValues): 1 violates, 0 not, < 0 error */
static int violates(const kp_quantity *v, const kp_dra_cap_policy *p) {
    if (!p) return 0;
    if (p->has_default && kp_quantity_cmp(v, &p->def) == 0) return 0;
    if (p->has_range) { /* violateValidRange */
        if (p->has_max && kp_quantity_cmp(v, &p->max) > 0) return 1;
        if (!p->has_step) return 0;
        int64_t r, step, min;
        if (milli(v, &r) < 0 || milli(&p->step, &step) < 0 || milli(&p->min, &min) < 0)
            return KP_ERANGE;
        return step > 0 && (r - min) % step != 0;
    }
    if (!p->n_valid) return 0;
    for (uint16_t i = 0; i < p->n_valid; i++) /* violateValidValues */
        if (kp_quantity_cmp(v, &p->valid[i]) == 0) return 0;
    return 1;
}

/* mirrors CmpRequestOverCapacity */
int kp__dra_cap_fit(kp_str driver, const kp_dra_device *d, const kp_dra_exact *ex,
                    const int64_t *used, kp_quantity *consumed) {
    for (uint16_t i = 0; i < ex->n_cap_requests; i++) { /* requestsContainNonExistCapacity */
        const kp_dra_capacity *rq = &ex->cap_requests[i];
        bool found = false;
        for (uint16_t c = 0; c < d->n_caps && !found; c++)
            found = d->caps[c].name == rq->name &&
                    d->caps[c].domain == (rq->domain ? rq->domain : driver);
        if (!found) return 0;
    }
    for (uint16_t c = 0; c < d->n_caps; c++) {
        const kp_dra_capacity *cap = &d->caps[c];
        int r = consumed_of(cap, requested(driver, ex, cap), &consumed[c]);
        if (r < 0) return r;
        if ((r = violates(&consumed[c], cap->policy)) != 0) return r < 0 ? r : 0;
        int64_t v, total, value;
        if (milli(&consumed[c], &v) < 0 || milli(&cap->value, &value) < 0 ||
            kp_amount_add(used[c], v, &total) != KP_OK)
            return KP_ERANGE;
        if (total > value) return 0;
    }
    return 1;
}

/* ---- one Allocate ---- */

/* used[i]: what allocated shares (AggregatedCapacity) and the shares being allocated
 * (allocatingCapacity) consume of d's capacity i; *any whether either has an entry for it */
static int used_of(const kp_dra_part *p, const kp_dra_index *ix, kp_dra_devid id,
                   const kp_dra_device *d, uint32_t k, int64_t *used, bool *any) {
    memset(used, 0, (size_t)d->n_caps * sizeof *used);
    *any = false;
    uint32_t n = kp__dra_index_n_shares(ix, id);
    for (uint32_t s = n ? kp__dra_index_first_share(ix, id) : 0, e = s + n; s < e; s++) {
        const kp_dra_result *r = ix->shares[s].r;
        if (r->n_consumed) *any = true; /* AggregatedCapacity has the device */
        for (uint16_t q = 0; q < r->n_consumed; q++)
            for (uint16_t c = 0; c < d->n_caps; c++) {
                if (d->caps[c].name != r->consumed[q].name ||
                    d->caps[c].domain != r->consumed[q].domain)
                    continue;
                int64_t v;
                if (milli(&r->consumed[q].value, &v) < 0 ||
                    kp_amount_add(used[c], v, &used[c]) != KP_OK)
                    return KP_ERANGE;
            }
    }
    for (uint32_t t = 0; t < p->n; t++) {
        if (p->st[t].k != k) continue;
        *any = true;
        for (uint32_t c = 0; c < p->st[t].n && c < d->n_caps; c++) {
            int64_t v;
            if (milli(&p->vals[p->st[t].off + c], &v) < 0 ||
                kp_amount_add(used[c], v, &used[c]) != KP_OK)
                return KP_ERANGE;
        }
    }
    return 1;
}

int kp__dra_part_fits(kp_dra_part *p, const kp_dra_index *ix, const kp_dra_features *f,
                      kp_dra_devid id, const kp_dra_device *d, const kp_dra_exact *ex, uint32_t k) {
    if (!f->consumable_capacity) return 1;
    int64_t used[CAPS_MAX];
    kp_quantity consumed[CAPS_MAX];
    bool any;
    if (d->n_caps > CAPS_MAX) return KP_ERANGE; /* decoding refuses more */
    int r = used_of(p, ix, id, d, k, used, &any);
    return r < 0 ? r : kp__dra_cap_fit(id.driver, d, ex, used, consumed);
}

/* mirrors allocateDevice's part for partitionable and shared devices (in upstream's order the
 * counters come before the capacity; the outcome is the same). Unlike upstream, a device refused
 * after its counters were taken (a taint, a constraint) gives them back: upstream keeps them taken
 * for the rest of that Allocate */
int kp__dra_part_take(kp_dra_part *p, kp_dra_index *ix, const kp_cluster *cl,
                      const kp_dra_features *f, uint32_t pool, kp_dra_devid id,
                      const kp_dra_device *d, const kp_dra_exact *ex, uint32_t k, uint32_t slot) {
    if (!f->partitionable_devices && d->n_consumes) return 0;
    bool multi = kp__dra_part_multi(f, d), in_use = false;
    kp_quantity consumed[CAPS_MAX];
    if (f->consumable_capacity) {
        int64_t used[CAPS_MAX];
        if (d->n_caps > CAPS_MAX) return KP_ERANGE;
        int r = used_of(p, ix, id, d, k, used, &in_use);
        if (r > 0) r = kp__dra_cap_fit(id.driver, d, ex, used, consumed);
        if (r <= 0) return r;
    }
    /* a shared device whose capacity is in use already counts against its counters */
    if (d->n_consumes && !(multi && in_use)) {
        int r = kp__dra_ctr_take(&p->ctr, ix, cl, pool, d, slot);
        if (r <= 0) return r;
    }
    if (!multi) return 1;
    if (p->n == p->cap) {
        void *q = p->st;
        if (!kp__grow32(&q, &p->cap, (size_t)p->n + 1, sizeof *p->st, 8)) goto nomem;
        p->st = q;
    }
    if (p->n_vals + d->n_caps > p->cap_vals) {
        uint32_t cap = p->cap_vals;
        void *v = p->vals, *o = p->out;
        if (!kp__grow32(&v, &cap, (size_t)p->n_vals + d->n_caps, sizeof *p->vals, 32)) goto nomem;
        p->vals = v;
        cap = p->cap_vals;
        if (!kp__grow32(&o, &cap, (size_t)p->n_vals + d->n_caps, sizeof *p->out, 32)) goto nomem;
        p->out = o;
        p->cap_vals = cap;
    }
    if (d->n_caps) memcpy(&p->vals[p->n_vals], consumed, d->n_caps * sizeof *consumed);
    p->st[p->n++] = (kp_dra_cap_take){k, slot, p->n_vals, d->n_caps, d};
    p->n_vals += d->n_caps;
    return 1;
nomem:
    kp__dra_ctr_undo(&p->ctr, ix, slot);
    return KP_ENOMEM;
}

void kp__dra_part_undo(kp_dra_part *p, kp_dra_index *ix, uint32_t slot) {
    if (p->n && p->st[p->n - 1].slot == slot) p->n_vals = p->st[--p->n].off;
    kp__dra_ctr_undo(&p->ctr, ix, slot);
}

/* mirrors GenerateShareID's place (a UID per shared result): 128 bits of FNV-1a over the claim, the
 * slot and the device, in UID form */
static void share_uid(const kp_cluster *cl, const kp_dra_claim *c, const kp_dra_cap_take *t,
                      char out[37]) {
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    char b[96];
    const char *parts[4] = {kp__s(cl, c->ns), kp__s(cl, c->name), kp__s(cl, t->d->name), b};
    snprintf(b, sizeof b, "%u", t->slot);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 4; i++)
            for (const unsigned char *s = (const unsigned char *)parts[i]; *s; s++)
                h[j] = (h[j] ^ *s) * (j ? 0x100000001b3ull : 0x100000001b3ull + 2);
    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(h[0] >> 32),
             (unsigned)(h[0] >> 16) & 0xffffu, (unsigned)h[0] & 0xfffu,
             0x8000u | ((unsigned)(h[1] >> 48) & 0x3fffu),
             (unsigned long long)(h[1] & 0xffffffffffffull));
}

kp_status kp__dra_part_result(kp_dra_part *p, kp_cluster *cl, const kp_dra_claim *c, uint32_t slot,
                              kp_dra_result *r) {
    for (uint32_t t = 0; t < p->n; t++) {
        const kp_dra_cap_take *e = &p->st[t];
        if (e->slot != slot) continue;
        char uid[37];
        share_uid(cl, c, e, uid);
        if (!(r->share_id = kp__intern(&cl->strs, uid, 36))) return KP_ENOMEM;
        for (uint32_t i = 0; i < e->n; i++)
            p->out[e->off + i] = (kp_dra_capacity){e->d->caps[i].domain, e->d->caps[i].name,
                                                   p->vals[e->off + i], NULL};
        r->n_consumed = (uint16_t)e->n;
        r->consumed = e->n ? &p->out[e->off] : NULL;
        return KP_OK;
    }
    return KP_OK;
}

void kp__dra_part_reset(kp_dra_part *p) {
    kp__dra_ctr_reset(&p->ctr);
    p->n = p->n_vals = 0;
}

void kp__dra_part_fini(kp_dra_part *p) {
    kp__dra_ctr_fini(&p->ctr);
    kp__free(p->st);
    kp__free(p->vals);
    kp__free(p->out);
    memset(p, 0, sizeof *p);
}
