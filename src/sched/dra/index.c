/* The scheduler's index of the cluster's DRA objects (see index.h). */
#include "sched/dra/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/selector.h"

/* ---- the device set (DeviceID -> count) ---- */

static uint32_t dev_hash(kp_dra_devid d) {
    uint64_t h = d.driver * 0x9E3779B97F4A7C15ull;
    h ^= (h >> 29) + d.pool * 0xBF58476D1CE4E5B9ull;
    h ^= (h >> 31) + d.device * 0x94D049BB133111EBull;
    return (uint32_t)(h ^ (h >> 32));
}

static bool dev_eq(kp_dra_devid a, kp_dra_devid b) {
    return a.driver == b.driver && a.pool == b.pool && a.device == b.device;
}

uint32_t kp__dra_devset_get(const kp_dra_devset *s, kp_dra_devid d) {
    if (!s->cap) return 0;
    for (uint32_t i = dev_hash(d) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->keys[i].driver) return 0;
        if (dev_eq(s->keys[i], d)) return s->count[i];
    }
}

static kp_status devset_add(kp_dra_devset *s, kp_dra_devid d) {
    if (2 * (s->used + 1) > s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 64;
        kp_dra_devset n = {kp__calloc(cap, sizeof *n.keys), kp__calloc(cap, sizeof *n.count), cap,
                           0};
        if (!n.keys || !n.count) {
            kp__free(n.keys);
            kp__free(n.count);
            return KP_ENOMEM;
        }
        for (uint32_t i = 0; i < s->cap; i++) {
            if (!s->keys[i].driver) continue;
            uint32_t j = dev_hash(s->keys[i]) & (cap - 1);
            while (n.keys[j].driver) j = (j + 1) & (cap - 1);
            n.keys[j] = s->keys[i];
            n.count[j] = s->count[i];
            n.used++;
        }
        kp__free(s->keys);
        kp__free(s->count);
        *s = n;
    }
    uint32_t i = dev_hash(d) & (s->cap - 1);
    while (s->keys[i].driver && !dev_eq(s->keys[i], d)) i = (i + 1) & (s->cap - 1);
    if (!s->keys[i].driver) {
        s->keys[i] = d;
        s->used++;
    }
    s->count[i]++;
    return KP_OK;
}

static void devset_fini(kp_dra_devset *s) {
    kp__free(s->keys);
    kp__free(s->count);
    memset(s, 0, sizeof *s);
}

/* mirrors foreachAllocatedDevice (allocateddevices.go): a result with admin access, or one
 * sharing a device that allows several allocations (a share ID), does not hold the device */
static kp_status add_claim_devices(kp_dra_devset *s, const kp_dra_claim *c) {
    if (!c->allocated || c->deleted) return KP_OK;
    for (uint16_t i = 0; i < c->n_results; i++) {
        const kp_dra_result *r = &c->results[i];
        if (r->admin_access || r->share_id) continue;
        kp_status st = devset_add(s, (kp_dra_devid){r->driver, r->pool, r->device});
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---- shared devices (consumable capacity): results with a share ID, by device ---- */

static int devid_cmp(kp_dra_devid a, kp_dra_devid b) {
    if (a.driver != b.driver) return a.driver < b.driver ? -1 : 1;
    if (a.pool != b.pool) return a.pool < b.pool ? -1 : 1;
    return a.device < b.device ? -1 : a.device > b.device;
}

static int share_cmp(const void *x, const void *y) {
    const kp_dra_share *a = x, *b = y;
    int c = devid_cmp(a->id, b->id);
    if (c) return c;
    return a->r < b->r ? -1 : a->r > b->r; /* a total order: results are distinct objects */
}

/* mirrors foreachAllocatedDevice's shares (a result with a share ID: AllocatedSharedDeviceIDs,
 * its consumedCapacity added to AggregatedCapacity) */
static kp_status add_claim(kp_dra_index *ix, const kp_dra_claim *c) {
    if (!c->allocated || c->deleted) return KP_OK;
    for (uint16_t i = 0; i < c->n_results; i++) {
        const kp_dra_result *r = &c->results[i];
        if (r->admin_access || !r->share_id) continue; /* foreachAllocatedDevice */
        if (ix->n_shares == ix->cap_shares) {
            void *p = ix->shares;
            if (!kp__grow32(&p, &ix->cap_shares, (size_t)ix->n_shares + 1, sizeof *ix->shares, 16))
                return KP_ENOMEM;
            ix->shares = p;
        }
        ix->shares[ix->n_shares++] = (kp_dra_share){{r->driver, r->pool, r->device}, r};
    }
    return KP_OK;
}

static kp_status build_shares(kp_dra_index *ix, const kp_cluster *cl) {
    ix->n_shares = 0;
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) {
        kp_status st = add_claim(ix, &cl->dra.claims[i]);
        if (st != KP_OK) return st;
    }
    if (ix->n_shares > 1) qsort(ix->shares, ix->n_shares, sizeof *ix->shares, share_cmp);
    ix->ctr_stamp++; /* the devices held changed: the pools' counters too */
    return KP_OK;
}

static kp_status add_shares(kp_dra_index *ix, const kp_cluster *cl, uint32_t claim) {
    uint32_t n0 = ix->n_shares;
    kp_status st = add_claim(ix, &cl->dra.claims[claim]);
    if (st == KP_OK && ix->n_shares != n0 && ix->n_shares > 1)
        qsort(ix->shares, ix->n_shares, sizeof *ix->shares, share_cmp);
    ix->ctr_stamp++;
    return st;
}

static void shares_free(kp_dra_index *ix) {
    kp__free(ix->shares);
    ix->shares = NULL;
    ix->n_shares = ix->cap_shares = 0;
}

uint32_t kp__dra_index_first_share(const kp_dra_index *ix, kp_dra_devid id) {
    uint32_t lo = 0, hi = ix->n_shares;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (devid_cmp(ix->shares[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

uint32_t kp__dra_index_n_shares(const kp_dra_index *ix, kp_dra_devid id) {
    if (!ix->n_shares) return 0;
    uint32_t i = kp__dra_index_first_share(ix, id), n = 0;
    while (i + n < ix->n_shares && devid_cmp(ix->shares[i + n].id, id) == 0) n++;
    return n;
}

static void pools_free(kp_dra_index *ix) {
    if (ix->pool_ctr)
        for (uint32_t p = 0; p < ix->n_pools_ctr; p++) kp__free(ix->pool_ctr[p].e);
    kp__free(ix->pool_ctr);
    kp__free(ix->pool_off);
    kp__free(ix->pool_slices);
    ix->pool_ctr = NULL;
    ix->pool_off = ix->pool_slices = NULL;
    ix->n_pools_ctr = 0;
}

/* the slices of each pool (CSR) and fresh counter caches (counters.c fills them) */
static kp_status build_pool_slices(kp_dra_index *ix, const kp_cluster *cl) {
    pools_free(ix);
    uint32_t np = ix->n_pools, ns = cl->dra.n_slices;
    ix->pool_off = kp__calloc((size_t)np + 2, sizeof *ix->pool_off);
    ix->pool_slices = kp__calloc((size_t)ns + 1, sizeof *ix->pool_slices);
    ix->pool_ctr = kp__calloc((size_t)np + 1, sizeof *ix->pool_ctr);
    if (!ix->pool_off || !ix->pool_slices || !ix->pool_ctr) return KP_ENOMEM;
    ix->n_pools_ctr = np;
    for (uint32_t i = 0; i < ns; i++)
        if (!cl->dra.slices[i].deleted) ix->pool_off[ix->slice_pool[i] + 1]++;
    for (uint32_t p = 1; p <= np; p++) ix->pool_off[p] += ix->pool_off[p - 1];
    uint32_t *fill = kp__calloc((size_t)np + 1, sizeof *fill);
    if (!fill) return KP_ENOMEM;
    for (uint32_t p = 0; p < np; p++) ix->pool_ctr[p].plain = true;
    for (uint32_t i = 0; i < ns; i++) {
        const kp_dra_slice *s = &cl->dra.slices[i];
        if (s->deleted) continue;
        uint32_t p = ix->slice_pool[i];
        ix->pool_slices[ix->pool_off[p] + fill[p]++] = i;
        bool plain = !s->n_counter_sets;
        for (uint32_t d = 0; d < s->n_devices && plain; d++) plain = !s->devices[d].n_consumes;
        if (!plain) ix->pool_ctr[p].plain = false;
    }
    kp__free(fill);
    ix->ctr_stamp++;
    return KP_OK;
}

/* ---- node selection ---- */

bool kp__dra_nodes_match(const kp_cluster *cl, const kp_dra_nodes *sel, uint32_t node) {
    const kp_node *n = &cl->nodes[node];
    if (sel->node_name) return n->name == sel->node_name;
    if (sel->all_nodes) return true;
    if (sel->has_selector) return kp__nsterm_matches(cl, &sel->selector, n);
    return false;
}

/* ---- slices, pools ---- */

static void free_slices(kp_dra_index *ix) {
    kp__free(ix->node_off);
    kp__free(ix->node_slices);
    kp__free(ix->shared);
    kp__free(ix->dev_base);
    kp__free(ix->slice_pool);
    kp__free(ix->pool_gen);
    kp__free(ix->pool_count);
    ix->node_off = ix->node_slices = ix->shared = ix->dev_base = ix->slice_pool = NULL;
    ix->pool_gen = NULL;
    ix->pool_count = NULL;
    ix->n_pools = ix->n_shared = ix->n_devices = 0;
}

static void free_class_cache(kp_dra_index *ix) {
    for (uint32_t i = 0; i < ix->n_classes_seen; i++) kp__free(ix->class_ok[i]);
    kp__free(ix->class_ok);
    ix->class_ok = NULL;
    ix->n_classes_seen = 0;
}

/* pools by (driver, pool name), each with its newest generation and how many slices have it
 * (checkSlicesInPool's count, done once for every pool) */
static kp_status build_pools(kp_dra_index *ix, const kp_cluster *cl) {
    const kp_dra *d = &cl->dra;
    kp_pairmap pool_of;
    kp__pairmap_init(&pool_of, false);
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < d->n_slices && st == KP_OK; i++) {
        uint64_t key = kp__pair(d->slices[i].driver, d->slices[i].pool);
        if (!kp__pairmap_has(&pool_of, key)) st = kp__pairmap_add(&pool_of, key, ++ix->n_pools);
        if (st == KP_OK) ix->slice_pool[i] = (uint32_t)kp__pairmap_get(&pool_of, key) - 1;
    }
    kp__pairmap_fini(&pool_of);
    if (st != KP_OK) return st;
    ix->pool_gen = kp__calloc(ix->n_pools + 1, sizeof *ix->pool_gen);
    ix->pool_count = kp__calloc(ix->n_pools + 1, sizeof *ix->pool_count);
    if (!ix->pool_gen || !ix->pool_count) return KP_ENOMEM;
    for (uint32_t p = 0; p < ix->n_pools; p++) ix->pool_gen[p] = INT64_MIN;
    for (uint32_t i = 0; i < d->n_slices; i++) {
        const kp_dra_slice *s = &d->slices[i];
        if (s->deleted) continue;
        uint32_t p = ix->slice_pool[i];
        if (s->generation > ix->pool_gen[p]) {
            ix->pool_gen[p] = s->generation;
            ix->pool_count[p] = 0;
        }
        if (s->generation == ix->pool_gen[p]) ix->pool_count[p]++;
    }
    return KP_OK;
}

static kp_status build_slices(kp_dra_index *ix, const kp_cluster *cl) {
    const kp_dra *d = &cl->dra;
    uint32_t nn = cl->n_nodes, ns = d->n_slices;
    free_slices(ix);
    kp__pairmap_clear(&ix->node_of);
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < nn && st == KP_OK; i++)
        if (!cl->nodes[i].deleted) st = kp__pairmap_add(&ix->node_of, cl->nodes[i].name, i + 1);
    if (st != KP_OK) return st;
    ix->node_off = kp__calloc((size_t)nn + 2, sizeof *ix->node_off);
    ix->node_slices = kp__calloc((size_t)ns + 1, sizeof *ix->node_slices);
    ix->shared = kp__calloc((size_t)ns + 1, sizeof *ix->shared);
    ix->dev_base = kp__calloc((size_t)ns + 1, sizeof *ix->dev_base);
    ix->slice_pool = kp__calloc((size_t)ns + 1, sizeof *ix->slice_pool);
    if (!ix->node_off || !ix->node_slices || !ix->shared || !ix->dev_base || !ix->slice_pool)
        return KP_ENOMEM;
    /* counting sort of the node-local slices by node (a slice naming an unknown node reaches
     * none) */
    for (uint32_t i = 0; i < ns; i++) {
        const kp_dra_slice *s = &d->slices[i];
        ix->dev_base[i] = ix->n_devices;
        ix->n_devices += s->n_devices;
        if (s->deleted) continue;
        if (!s->nodes.node_name) {
            ix->shared[ix->n_shared++] = i;
            continue;
        }
        int64_t nd = kp__pairmap_get(&ix->node_of, s->nodes.node_name);
        if (nd > 0) ix->node_off[nd]++;
    }
    for (uint32_t i = 1; i <= nn + 1; i++) ix->node_off[i] += ix->node_off[i - 1];
    /* node_off[k] is now the end of node k-1's run: fill backwards to keep slice order */
    for (uint32_t i = ns; i-- > 0;) {
        const kp_dra_slice *s = &d->slices[i];
        if (s->deleted || !s->nodes.node_name) continue;
        int64_t nd = kp__pairmap_get(&ix->node_of, s->nodes.node_name);
        if (nd > 0) ix->node_slices[--ix->node_off[nd]] = i;
    }
    /* node k's run is node_off[k + 1] .. node_off[k + 2]: shift down by one */
    memmove(ix->node_off, ix->node_off + 1, ((size_t)nn + 1) * sizeof *ix->node_off);
    if ((st = build_pools(ix, cl)) != KP_OK) return st;
    if ((st = build_pool_slices(ix, cl)) != KP_OK) return st; /* partitionable devices */
    ix->n_slices_seen = ns;
    ix->n_nodes_seen = nn;
    free_class_cache(ix); /* device numbers moved */
    return KP_OK;
}

/* ---- claims by name ---- */

long kp__dra_index_claim(const kp_dra_index *ix, const kp_cluster *cl, kp_str ns, kp_str name) {
    /* a namespace and a name as one key: the pair of the two ids hashed with the namespace
     * first; collisions cannot occur, each id being below 2^32 */
    int64_t v = kp__pairmap_get(&ix->claim_of, kp__pair(ns, name));
    if (v <= 0) return -1;
    const kp_dra_claim *c = &cl->dra.claims[v - 1];
    return c->deleted ? -1 : (long)(v - 1);
}

long kp__dra_index_class(const kp_dra_index *ix, const kp_cluster *cl, kp_str name) {
    (void)ix; /* a handful of classes: a scan */
    for (uint32_t i = cl->dra.n_classes; i-- > 0;)
        if (cl->dra.classes[i].name == name && !cl->dra.classes[i].deleted) return (long)i;
    return -1;
}

static kp_status index_claims(kp_dra_index *ix, const kp_cluster *cl) {
    for (uint32_t i = ix->n_claims_seen; i < cl->dra.n_claims; i++) {
        const kp_dra_claim *c = &cl->dra.claims[i];
        uint64_t key = kp__pair(c->ns, c->name);
        int64_t old = kp__pairmap_get(&ix->claim_of, key);
        /* a later claim of the same identity replaces the earlier one */
        kp_status st = kp__pairmap_add(&ix->claim_of, key, (int64_t)i + 1 - old);
        if (st != KP_OK) return st;
    }
    ix->n_claims_seen = cl->dra.n_claims;
    return KP_OK;
}

static kp_status build_in_use(kp_dra_index *ix, const kp_cluster *cl) {
    devset_fini(&ix->in_use);
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) {
        kp_status st = add_claim_devices(&ix->in_use, &cl->dra.claims[i]);
        if (st != KP_OK) return st;
    }
    kp_status st = build_shares(ix, cl); /* shared devices (consumable capacity) */
    if (st != KP_OK) return st;
    ix->gen_seen = cl->dra.gen_claims;
    ix->in_use_built = true;
    return KP_OK;
}

kp_status kp__dra_index_allocated(kp_dra_index *ix, const kp_cluster *cl, uint32_t claim) {
    kp_status st = add_claim_devices(&ix->in_use, &cl->dra.claims[claim]);
    if (st == KP_OK) st = add_shares(ix, cl, claim); /* its shares, counters */
    if (st == KP_OK) ix->gen_seen = cl->dra.gen_claims;
    return st;
}

kp_status kp__dra_index_sync(kp_dra_index **pix, const kp_cluster *cl) {
    kp_dra_index *ix = *pix;
    if (!ix) {
        if (!(ix = kp__calloc(1, sizeof *ix))) return KP_ENOMEM;
        kp__pairmap_init(&ix->node_of, false);
        kp__pairmap_init(&ix->prog_of, false);
        kp__pairmap_init(&ix->claim_of, false);
        *pix = ix;
        ix->n_slices_seen = UINT32_MAX;
    }
    kp_status st = KP_OK;
    if (ix->n_slices_seen != cl->dra.n_slices || ix->n_nodes_seen != cl->n_nodes)
        st = build_slices(ix, cl);
    if (st == KP_OK && ix->n_classes_seen != cl->dra.n_classes) {
        uint8_t **np = kp__calloc((size_t)cl->dra.n_classes + 1, sizeof *np);
        if (!np) return KP_ENOMEM;
        if (ix->class_ok) memcpy(np, ix->class_ok, ix->n_classes_seen * sizeof *np);
        kp__free(ix->class_ok);
        ix->class_ok = np;
        ix->n_classes_seen = cl->dra.n_classes;
    }
    if (st == KP_OK && ix->n_claims_seen != cl->dra.n_claims) st = index_claims(ix, cl);
    if (st == KP_OK && (!ix->in_use_built || ix->gen_seen != cl->dra.gen_claims))
        st = build_in_use(ix, cl);
    return st;
}

/* ---- compiled selectors ---- */

const kp_cel_program *kp__dra_index_prog(kp_dra_index *ix, const kp_cluster *cl, kp_str expr,
                                         const char **why) {
    *why = NULL;
    int64_t v = kp__pairmap_get(&ix->prog_of, expr);
    if (v > 0) {
        *why = ix->prog_err[v - 1];
        return ix->progs[v - 1];
    }
    if (ix->n_progs == ix->cap_progs) {
        uint32_t cap = ix->cap_progs ? 2 * ix->cap_progs : 16;
        kp_cel_program **np = kp__calloc(cap, sizeof *np);
        char **ne = kp__calloc(cap, sizeof *ne);
        if (!np || !ne) {
            kp__free(np);
            kp__free(ne);
            return NULL;
        }
        if (ix->n_progs) {
            memcpy(np, ix->progs, ix->n_progs * sizeof *np);
            memcpy(ne, ix->prog_err, ix->n_progs * sizeof *ne);
        }
        kp__free(ix->progs);
        kp__free(ix->prog_err);
        ix->progs = np;
        ix->prog_err = ne;
        ix->cap_progs = cap;
    }
    const char *s = kp__s(cl, expr);
    kp_error err;
    memset(&err, 0, sizeof err);
    kp_cel_program *p = NULL;
    kp_status st = kp__cel_compile(s, strlen(s), &p, &err);
    if (st == KP_ENOMEM) return NULL;
    uint32_t k = ix->n_progs;
    if (st != KP_OK) {
        size_t len = strlen(err.msg) + 1;
        if (!(ix->prog_err[k] = kp__malloc(len))) return NULL;
        memcpy(ix->prog_err[k], err.msg, len);
        p = NULL;
    }
    if (kp__pairmap_add(&ix->prog_of, expr, (int64_t)k + 1) != KP_OK) {
        kp__free(ix->prog_err[k]);
        ix->prog_err[k] = NULL;
        kp__cel_free(p);
        return NULL;
    }
    ix->progs[k] = p;
    ix->n_progs++;
    *why = ix->prog_err[k];
    return p;
}

void kp__dra_index_free(kp_dra_index *ix) {
    if (!ix) return;
    free_slices(ix);
    free_class_cache(ix);
    for (uint32_t i = 0; i < ix->n_progs; i++) {
        kp__cel_free(ix->progs[i]);
        kp__free(ix->prog_err[i]);
    }
    kp__free(ix->progs);
    kp__free(ix->prog_err);
    kp__pairmap_fini(&ix->node_of);
    kp__pairmap_fini(&ix->prog_of);
    kp__pairmap_fini(&ix->claim_of);
    devset_fini(&ix->in_use);
    pools_free(ix);
    shares_free(ix);
    kp__free(ix);
}
