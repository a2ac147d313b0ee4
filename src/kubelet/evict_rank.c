/* Pod ranking for eviction.
 *
 * Upstream: helpers.go (orderedBy, priority, exceedMemoryRequests, memory, process,
 * exceedDiskRequests, disk, podDiskUsage, localVolumeNames, rankMemoryPressure,
 * rankPIDPressure, rankDiskPressureFunc, buildSignalToRankFunc). Each comparator chain is turned
 * into a key tuple per pod (computed once per step), then sorted with the input position as the
 * last key. Upstream's sort.Sort is not stable (and its input order is Go-map random); a stable
 * order equals upstream's for <= 12 pods and is a documented deterministic choice beyond. */
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/summary.h"
#include "kubelet/evict_rank.h"
#include "kubelet/evict_thresholds.h"

/* mirrors buildSignalToRankFunc */
kp__ev_rank_fn kp__ev_rank_fn_for(kp_evict_signal sig, bool imagefs, bool split) {
    kp__ev_rank_fn fn = {KP__EVRANK_DISK, 0, false};
    const unsigned all = KP__EVFS_IMAGES | KP__EVFS_ROOT | KP__EVFS_LOGS | KP__EVFS_LOCALVOL;
    bool nodefs = false, image = false;
    switch (sig) {
    case KP_EVSIG_MEMORY_AVAILABLE:
    case KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE: fn.kind = KP__EVRANK_MEMORY; return fn;
    case KP_EVSIG_PID_AVAILABLE: fn.kind = KP__EVRANK_PID; return fn;
    case KP_EVSIG_NODEFS_AVAILABLE: nodefs = true; break;
    case KP_EVSIG_NODEFS_INODES_FREE:
        nodefs = true;
        fn.inodes = true;
        break;
    case KP_EVSIG_IMAGEFS_AVAILABLE: image = true; break;
    case KP_EVSIG_IMAGEFS_INODES_FREE:
        image = true;
        fn.inodes = true;
        break;
    case KP_EVSIG_CONTAINERFS_AVAILABLE: break;
    case KP_EVSIG_CONTAINERFS_INODES_FREE: fn.inodes = true; break;
    case KP_EVSIG_COUNT: break;
    }
    if (imagefs && !split) {
        /* containerfs ranks like imagefs */
        fn.fs_types =
            nodefs ? (KP__EVFS_LOGS | KP__EVFS_LOCALVOL) : (KP__EVFS_ROOT | KP__EVFS_IMAGES);
    } else if (imagefs && split) {
        /* containerfs ranks like nodefs */
        fn.fs_types = image ? KP__EVFS_IMAGES : (KP__EVFS_LOGS | KP__EVFS_LOCALVOL | KP__EVFS_ROOT);
    } else {
        fn.fs_types = all;
    }
    return fn;
}

/* mirrors localVolumeNames: hostPath, gitRepo, configMap and default-medium emptyDir */
static bool volume_is_local(const kp_volume *v) { return v->is_local; }

/* v when bit is in has, else 0 (an absent stat counts as zero) */
static int64_t stat_or_0(uint8_t has, uint8_t bit, uint64_t v) {
    return (has & bit) ? kp__ev_u2i(v) : 0;
}

/* mirrors podDiskUsage (containerUsage + podLocalVolumeUsage) */
int64_t kp__ev_pod_disk_usage(const kp_cluster *cl, const kp_pod *p, const kp_evict_summary *s,
                              const kp__ev_pstats *st, unsigned fs_types, bool inodes) {
    int64_t total = 0;
    const kp__ev_cstats *cs = kp__ev_pod_conts(s, st);
    for (uint32_t i = 0; i < st->n_containers; i++) {
        const kp__ev_cstats *c = &cs[i];
        if (fs_types & KP__EVFS_ROOT)
            total =
                kp__ev_sat_add(total, inodes ? stat_or_0(c->has, KP__EVC_ROOT_IUSED, c->root_iused)
                                             : stat_or_0(c->has, KP__EVC_ROOT_USED, c->root_used));
        if (fs_types & KP__EVFS_LOGS)
            total =
                kp__ev_sat_add(total, inodes ? stat_or_0(c->has, KP__EVC_LOGS_IUSED, c->logs_iused)
                                             : stat_or_0(c->has, KP__EVC_LOGS_USED, c->logs_used));
    }
    if (fs_types & KP__EVFS_LOCALVOL) {
        for (uint16_t v = 0; v < p->n_volumes; v++) {
            const kp_volume *vol = &p->volumes[v];
            if (!volume_is_local(vol)) continue;
            const char *name = kp__s(cl, vol->name);
            size_t nl = cl->strs.len[vol->name];
            const kp__ev_vstats *vols = kp__ev_pod_vols(s, st);
            for (uint32_t j = 0; j < st->n_volumes; j++) {
                const kp__ev_vstats *vs = &vols[j];
                if ((vs->has & KP__EVV_NAME) && vs->name_len == nl &&
                    memcmp(kp__ev_str(s, vs->name), name, nl) == 0) {
                    total =
                        kp__ev_sat_add(total, inodes ? stat_or_0(vs->has, KP__EVV_IUSED, vs->iused)
                                                     : stat_or_0(vs->has, KP__EVV_USED, vs->used));
                    break;
                }
            }
        }
    }
    return total;
}

static inline bool key_less(const kp__ev_rank_key *x, const kp__ev_rank_key *y) {
    return x->hi != y->hi ? x->hi < y->hi : x->lo < y->lo;
}

/* Sorts keys[0..n) by key_less, stably (equal keys keep their input order, as pos would
 * order them): insertion sort on runs of 16 moving an entry only past strictly greater ones,
 * then bottom-up merges through tmp (n entries) taking from the right run only when strictly
 * less. */
static void sort_keys(kp__ev_rank_key *keys, kp__ev_rank_key *tmp, uint32_t n) {
    const uint32_t run = 16;
    for (uint32_t s = 0; s < n; s += run) {
        uint32_t e = s + run < n ? s + run : n;
        for (uint32_t i = s + 1; i < e; i++) {
            kp__ev_rank_key v = keys[i];
            uint32_t j = i;
            while (j > s && key_less(&v, &keys[j - 1])) {
                keys[j] = keys[j - 1];
                j--;
            }
            keys[j] = v;
        }
    }
    kp__ev_rank_key *src = keys, *dst = tmp;
    for (uint32_t w = run; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) dst[o++] = key_less(&src[b], &src[a]) ? src[b++] : src[a++];
            while (a < mid) dst[o++] = src[a++];
            while (b < hi) dst[o++] = src[b++];
        }
        kp__ev_rank_key *t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) memcpy(keys, src, (size_t)n * sizeof *keys);
}

static int64_t neg_sat(int64_t v) { return v == INT64_MIN ? INT64_MAX : -v; }

/* Order-preserving maps of signed integers to unsigned ones. */
static uint64_t ord64(int64_t v) { return (uint64_t)v ^ (UINT64_C(1) << 63); }
static uint64_t ord32(int32_t v) { return (uint64_t)((uint32_t)v ^ UINT32_C(0x80000000)); }

kp_evict_rank_kind kp__ev_rank_public_kind(const kp__ev_rank_fn *fn) {
    switch (fn->kind) {
    case KP__EVRANK_MEMORY: return KP_EVRANK_MEMORY;
    case KP__EVRANK_PID: return KP_EVRANK_PID;
    case KP__EVRANK_DISK: return fn->inodes ? KP_EVRANK_DISK_INODES : KP_EVRANK_DISK;
    }
    return KP_EVRANK_MEMORY;
}

const char *kp_evict_rank_kind_name(kp_evict_rank_kind k) {
    switch (k) {
    case KP_EVRANK_MEMORY: return "rankMemoryPressure";
    case KP_EVRANK_DISK:
    case KP_EVRANK_DISK_INODES: return "rankDiskPressureFunc";
    case KP_EVRANK_PID: return "rankPIDPressure";
    }
    return "";
}

const char *kp_evict_rank_key_name(kp_evict_rank_key k) {
    switch (k) {
    case KP_EVKEY_ORDER: return "order";
    case KP_EVKEY_STATS: return "stats";
    case KP_EVKEY_EXCEEDS: return "exceedsRequests";
    case KP_EVKEY_PRIORITY: return "priority";
    case KP_EVKEY_USAGE: return "usage";
    }
    return "";
}

/* The one packing of the comparator chains (ascending = evicted first), (k1, k2, k3) as hi, lo:
 *   memory / disk: k1 = 0 no stats (cmpBool(!found1, !found2) puts them first), 1 usage exceeds
 *                  the request, 2 within it; k2 = priority; k3 = -(usage - request).
 *                  hi = k1 << 32 | priority, lo = k3.
 *   pid:           k1 = priority; k2 = 0 no stats, 1 stats; k3 = -process count.
 *                  hi = priority << 1 | k2, lo = k3.
 * The sort (kp__ev_rank) and kp_evict_rank_compare both read it. */
static void pack(kp_evict_rank_kind kind, const kp_evict_rank_entry *e, kp__ev_rank_key *k) {
    switch (kind) {
    case KP_EVRANK_MEMORY: /* mirrors rankMemoryPressure */
    case KP_EVRANK_DISK: /* mirrors rankDiskPressureFunc */
    case KP_EVRANK_DISK_INODES: {
        if (!e->has_stats) {
            k->hi = ord32(e->priority);
            k->lo = ord64(0);
            return;
        }
        /* exceedDiskRequests compares with the request of the measured resource (none for
         * inodes); disk subtracts the ephemeral-storage request even for inodes */
        int64_t exceed_req = kind == KP_EVRANK_DISK_INODES ? 0 : e->request;
        k->hi = (uint64_t)(e->usage > exceed_req ? 1 : 2) << 32 | ord32(e->priority);
        k->lo = ord64(neg_sat(kp__ev_sat_add(e->usage, neg_sat(e->request))));
        return;
    }
    case KP_EVRANK_PID: /* mirrors rankPIDPressure */
        k->hi = ord32(e->priority) << 1 | (e->has_stats ? 1 : 0);
        k->lo = ord64(e->has_stats ? neg_sat(e->usage) : 0);
        return;
    }
}

int kp_evict_rank_compare(kp_evict_rank_kind kind, const kp_evict_rank_entry *a,
                          const kp_evict_rank_entry *b, kp_evict_rank_key *decisive) {
    kp__ev_rank_key x, y;
    pack(kind, a, &x);
    pack(kind, b, &y);
    kp_evict_rank_key d = KP_EVKEY_ORDER;
    int c = 0;
    if (x.hi != y.hi) {
        c = x.hi < y.hi ? -1 : 1;
        if (kind == KP_EVRANK_PID)
            d = (x.hi >> 1) != (y.hi >> 1) ? KP_EVKEY_PRIORITY : KP_EVKEY_STATS;
        else if ((x.hi >> 32) != (y.hi >> 32))
            d = (x.hi >> 32) == 0 || (y.hi >> 32) == 0 ? KP_EVKEY_STATS : KP_EVKEY_EXCEEDS;
        else d = KP_EVKEY_PRIORITY;
    } else if (x.lo != y.lo) {
        c = x.lo < y.lo ? -1 : 1;
        d = KP_EVKEY_USAGE;
    } else if (a->order != b->order) {
        c = a->order < b->order ? -1 : 1;
    }
    if (decisive) *decisive = d;
    return c;
}

/* What the rank function reads of one pod (its comparators' inputs). */
static void entry_of(const kp_cluster *cl, const kp_evict_summary *s, const kp__ev_rank_fn *fn,
                     const kp__ev_rank_pod *rp, uint32_t order, kp_evict_rank_entry *e) {
    const kp__ev_pstats *st = rp->st;
    memset(e, 0, sizeof *e);
    e->pod = (kp_index)rp->pod;
    e->order = order;
    e->has_stats = st != NULL;
    e->critical = cl ? cl->pods[rp->pod].is_critical : false;
    e->priority = rp->priority;
    switch (fn->kind) {
    case KP__EVRANK_MEMORY:
        e->request = rp->mem_req;
        if (st) e->usage = stat_or_0(st->has, KP__EVP_WS, st->ws);
        break;
    case KP__EVRANK_PID:
        if (st) e->usage = stat_or_0(st->has, KP__EVP_PROCS, st->procs);
        break;
    case KP__EVRANK_DISK:
        e->request = rp->eph_req;
        if (st)
            e->usage =
                kp__ev_pod_disk_usage(cl, &cl->pods[rp->pod], s, st, fn->fs_types, fn->inodes);
        break;
    }
}

/* Ties keep the input order (the sort is stable). ent (optional, 2n entries): the pods'
 * comparator inputs in ranking order in ent[0..n), ent[n..2n) scratch. */
void kp__ev_rank(const kp_cluster *cl, const kp_evict_summary *s, const kp__ev_rank_fn *fn,
                 kp__ev_rank_pod *pods, uint32_t n, kp__ev_rank_key *keys, kp__ev_rank_pod *tmp,
                 kp_evict_rank_entry *ent) { /* keys: 2n entries */
    kp_evict_rank_kind kind = kp__ev_rank_public_kind(fn);
    for (uint32_t i = 0; i < n; i++) {
        kp_evict_rank_entry e;
        entry_of(cl, s, fn, &pods[i], i, &e);
        keys[i].pos = i;
        pack(kind, &e, &keys[i]);
        if (ent) ent[n + i] = e;
    }
    sort_keys(keys, keys + n, n);
    for (uint32_t i = 0; i < n; i++) tmp[i] = pods[keys[i].pos];
    memcpy(pods, tmp, (size_t)n * sizeof *tmp);
    if (ent)
        for (uint32_t i = 0; i < n; i++) ent[i] = ent[n + keys[i].pos];
}
