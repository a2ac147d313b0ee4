/* Partitionable devices: shared counters (see counters.h). Mirrors, of
 * structured/internal/incubating, pools_incubating.go buildPool / getAndValidateCounterSets /
 * validateDeviceCounterConsumption (a pool's counter sets and their validation) and
 * allocator_incubating.go checkAvailableCounters / deallocateCountersForDevice. */
#include "sched/dra/counters.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

/* ---- a pool's counters (the index keeps them, index.c) ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
invalid(kp_dra_pool_ctr *pc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pc->why, sizeof pc->why, fmt, ap);
    va_end(ap);
    pc->invalid = true;
}

static long find(const kp_dra_pool_ctr *pc, kp_str set, kp_str name) {
    for (uint32_t i = 0; i < pc->n; i++)
        if (pc->e[i].set == set && pc->e[i].name == name) return (long)i;
    return -1;
}

static bool has_set(const kp_dra_pool_ctr *pc, kp_str set) {
    for (uint32_t i = 0; i < pc->n; i++)
        if (pc->e[i].set == set) return true;
    return false;
}

/* mirrors getAndValidateCounterSets, over the pool's counter slices of its generation */
static kp_status counter_sets(kp_dra_pool_ctr *pc, const kp_cluster *cl, const kp_dra_slice *s) {
    for (uint16_t c = 0; c < s->n_counter_sets && !pc->invalid; c++) {
        const kp_dra_counter_set *cs = &s->counter_sets[c];
        if (has_set(pc, cs->name)) {
            invalid(pc, "duplicate counter set name %s", kp__s(cl, cs->name));
            break;
        }
        for (uint16_t k = 0; k < cs->n_counters; k++) {
            if (pc->n == pc->cap) {
                void *p = pc->e;
                if (!kp__grow32(&p, &pc->cap, (size_t)pc->n + 1, sizeof *pc->e, 16))
                    return KP_ENOMEM;
                pc->e = p;
            }
            int64_t v;
            if (kp_quantity_milli_value(&cs->counters[k].value, &v) != KP_OK) {
                invalid(pc, "counter %s in counter set %s: value past int64 milli-units",
                        kp__s(cl, cs->counters[k].name), kp__s(cl, cs->name));
                break;
            }
            pc->e[pc->n++] = (kp_dra_ctr){cs->name, cs->counters[k].name, v};
        }
    }
    return KP_OK;
}

/* mirrors validateDeviceCounterConsumption for one device; with allocated, what it consumes is
 * taken off what is left (checkAvailableCounters' first part, over every slice of the pool) */
static void device(kp_dra_pool_ctr *pc, const kp_cluster *cl, const kp_dra_device *d,
                   bool allocated) {
    for (uint16_t c = 0; c < d->n_consumes && !pc->invalid; c++) {
        const kp_dra_counter_set *cs = &d->consumes[c];
        if (!has_set(pc, cs->name)) {
            invalid(pc, "counter set %s not found", kp__s(cl, cs->name));
            return;
        }
        for (uint16_t k = 0; k < cs->n_counters; k++) {
            long e = find(pc, cs->name, cs->counters[k].name);
            if (e < 0) {
                invalid(pc, "counter %s not found in counter set %s",
                        kp__s(cl, cs->counters[k].name), kp__s(cl, cs->name));
                return;
            }
            int64_t v;
            if (!allocated) continue;
            if (kp_quantity_milli_value(&cs->counters[k].value, &v) != KP_OK ||
                kp_amount_sub(pc->e[e].left, v, &pc->e[e].left) != KP_OK) {
                invalid(pc, "counter %s in counter set %s: value past int64 milli-units",
                        kp__s(cl, cs->counters[k].name), kp__s(cl, cs->name));
                return;
            }
        }
    }
}

/* mirrors buildPool's counter part: the pool's generation, counter slices before device slices */
const kp_dra_pool_ctr *kp__dra_ctr_pool(kp_dra_index *ix, const kp_cluster *cl, uint32_t pool) {
    kp_dra_pool_ctr *pc = &ix->pool_ctr[pool];
    if (pc->plain || pc->stamp == ix->ctr_stamp) return pc;
    pc->n = 0;
    pc->invalid = false;
    pc->why[0] = 0;
    int64_t gen = ix->pool_gen[pool];
    uint32_t lo = ix->pool_off[pool], hi = ix->pool_off[pool + 1];
    for (uint32_t i = lo; i < hi && !pc->invalid; i++) {
        const kp_dra_slice *s = &cl->dra.slices[ix->pool_slices[i]];
        if (s->generation == gen && s->n_counter_sets && counter_sets(pc, cl, s) != KP_OK)
            return NULL;
    }
    for (uint32_t i = lo; i < hi && !pc->invalid; i++) {
        const kp_dra_slice *s = &cl->dra.slices[ix->pool_slices[i]];
        if (s->generation != gen) continue;
        for (uint32_t d = 0; d < s->n_devices && !pc->invalid; d++) {
            const kp_dra_device *dv = &s->devices[d];
            if (!dv->n_consumes) continue;
            kp_dra_devid id = {s->driver, s->pool, dv->name};
            /* internal.IsDeviceAllocated: held, or shared by some allocation */
            bool held = kp__dra_devset_get(&ix->in_use, id) > 0 || kp__dra_index_n_shares(ix, id);
            device(pc, cl, dv, held);
        }
    }
    pc->stamp = ix->ctr_stamp;
    return pc;
}

/* ---- one Allocate: what the devices being allocated consume ---- */

static kp_dra_ctr_used *used_of(kp_dra_ctr_state *s, uint32_t pool, uint32_t n) {
    for (uint32_t i = 0; i < s->n_u; i++)
        if (s->u[i].pool == pool) return &s->u[i];
    if (s->n_u == s->cap_u) {
        void *p = s->u;
        if (!kp__grow32(&p, &s->cap_u, (size_t)s->n_u + 1, sizeof *s->u, 4)) return NULL;
        s->u = p;
    }
    kp_dra_ctr_used *u = &s->u[s->n_u];
    if (!(u->v = kp__calloc((size_t)n + 1, sizeof *u->v))) return NULL;
    u->pool = pool;
    u->n = n;
    s->n_u++;
    return u;
}

/* adds (sign 1) or removes (-1) d's consumption; false when a value does not fit int64 */
static bool apply(kp_dra_ctr_used *u, const kp_dra_pool_ctr *pc, const kp_dra_device *d, int sign) {
    for (uint16_t c = 0; c < d->n_consumes; c++) {
        const kp_dra_counter_set *cs = &d->consumes[c];
        for (uint16_t k = 0; k < cs->n_counters; k++) {
            long e = find(pc, cs->name, cs->counters[k].name);
            int64_t v;
            if (e < 0 || kp_quantity_milli_value(&cs->counters[k].value, &v) != KP_OK) continue;
            kp_status st = sign > 0 ? kp_amount_add(u->v[e], v, &u->v[e])
                                    : kp_amount_sub(u->v[e], v, &u->v[e]);
            if (st != KP_OK) return false;
        }
    }
    return true;
}

/* mirrors checkAvailableCounters (the pool's counters computed once per change, not per
 * Allocate) */
int kp__dra_ctr_take(kp_dra_ctr_state *s, kp_dra_index *ix, const kp_cluster *cl, uint32_t pool,
                     const kp_dra_device *d, uint32_t slot) {
    const kp_dra_pool_ctr *pc = kp__dra_ctr_pool(ix, cl, pool);
    if (!pc) return KP_ENOMEM;
    if (pc->invalid) return 0;
    kp_dra_ctr_used *u = used_of(s, pool, pc->n);
    if (!u) return KP_ENOMEM;
    if (s->n == s->cap) {
        void *p = s->st;
        if (!kp__grow32(&p, &s->cap, (size_t)s->n + 1, sizeof *s->st, 8)) return KP_ENOMEM;
        s->st = p;
    }
    bool ok = apply(u, pc, d, 1);
    /* every counter of the pool, not only d's: one already past its value refuses all */
    for (uint32_t e = 0; e < pc->n && ok; e++) ok = u->v[e] <= pc->e[e].left;
    if (!ok) {
        apply(u, pc, d, -1);
        return 0;
    }
    s->st[s->n++] = (kp_dra_ctr_take){pool, slot, d};
    return 1;
}

/* mirrors deallocateCountersForDevice */
void kp__dra_ctr_undo(kp_dra_ctr_state *s, kp_dra_index *ix, uint32_t slot) {
    if (!s->n || s->st[s->n - 1].slot != slot) return;
    kp_dra_ctr_take t = s->st[--s->n];
    const kp_dra_pool_ctr *pc = &ix->pool_ctr[t.pool];
    for (uint32_t i = 0; i < s->n_u; i++)
        if (s->u[i].pool == t.pool) apply(&s->u[i], pc, t.dev, -1);
}

void kp__dra_ctr_reset(kp_dra_ctr_state *s) {
    for (uint32_t i = 0; i < s->n_u; i++) kp__free(s->u[i].v);
    s->n_u = 0;
    s->n = 0;
}

void kp__dra_ctr_fini(kp_dra_ctr_state *s) {
    kp__dra_ctr_reset(s);
    kp__free(s->u);
    kp__free(s->st);
    memset(s, 0, sizeof *s);
}
