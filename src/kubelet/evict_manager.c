/* The eviction manager: one synchronize step per summary.
 *
 * Upstream: eviction_manager.go (managerImpl.synchronize, reclaimNodeLevelResources,
 * localStorageEviction, emptyDirLimitEviction, podEphemeralStorageLimitEviction,
 * containerEphemeralStorageLimitEviction, evictPod) and helpers.go (evictionMessage,
 * getThresholdMetInfo, byEvictionPriority, buildSignalToNodeReclaimFuncs, thresholdsFirstObservedAt,
 * nodeConditions*, thresholdsMetGracePeriod, thresholdsUpdatedStats, mergeThresholds).
 *
 * Deterministic choices where upstream iterates Go maps (see docs/evict.md):
 *   - thresholds met keep configuration order (hard, soft, allocatable copies, containerfs);
 *   - byEvictionPriority: memory signals first, then hard before soft, then configuration order;
 *   - node conditions are reported as MemoryPressure, DiskPressure, PIDPressure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "kubelet/evict_thresholds.h"

#define MONITOR_NS (10 * KP__NS_PER_SEC) /* evictionMonitoringPeriod, for summaries without time */
#define N_COND 3

typedef struct {
    uint32_t pod;
    int32_t priority;
    int64_t mem_req, eph_req;
    bool critical;
    bool gone;       /* evicted in an earlier step (slots stay put: the join index points at them) */
    bool local_check; /* has an emptyDir sizeLimit or an ephemeral-storage limit: the local-storage
                         checks can evict it; for other pods they are no-ops */
    uint32_t uid_hash;
    uint32_t uid_len;
    const char *uid;  /* the pod's uid bytes: the join compares without touching the pod */
} ev_active;

struct kp_evict_manager {
    const kp_cluster *cl;
    const kp_evict_config *cfg;
    kp__ev_threshold *th;
    uint32_t n_th;
    bool layout_known, imagefs, split;
    ev_active *act;
    uint32_t n_act, n_pods_total; /* live pods / slots */
    uint32_t n_local_check;       /* slots with local_check set (evicted ones included) */
    uint32_t *uid_tab, *nn_tab; /* open addressing over active pods: local index + 1 */
    uint32_t tab_cap;
    /* state carried between steps */
    bool *fo_has;
    int64_t *fo_at;
    bool cond_has[N_COND];
    int64_t cond_at[N_COND];
    uint32_t *met_prev, n_met_prev;
    bool last_has[KP_EVSIG_COUNT];
    int64_t last_time[KP_EVSIG_COUNT];
    bool has_last_step;
    int64_t last_step;
    unsigned conditions;
    /* per-step scratch and results */
    uint32_t *ia, *ib, *ic, *all;
    kp_evict_met *met;
    const kp__ev_pstats **stats_of;
    kp__ev_rank_pod *rank, *rank_tmp;
    kp__ev_rank_key *keys;
    uint32_t *ranking;
    kp_evict_eviction *ev;
    uint32_t n_ev;
    kp_arena arena;
    kp_evict_spec_text_fn spec_fn; /* how spec quantities were written (messages only) */
    void *spec_ctx;
};

/* ---------------------------------------------------------------- small helpers */

static const char *pod_ns(const kp_cluster *cl, const kp_pod *p, size_t *len) {
    if (cl->strs.len[p->ns] == 0) { *len = 7; return "default"; }
    *len = cl->strs.len[p->ns];
    return kp__s(cl, p->ns);
}

static uint32_t nn_hash(const char *ns, size_t nsl, const char *name, size_t nl) {
    return kp__ev_mix(kp__ev_fnv(name, nl, kp__ev_fnv("/", 1, kp__ev_fnv(ns, nsl, KP__EV_FNV_BASIS))));
}

static bool resv_find(const kp_resv *v, int r, int64_t *out) {
    for (uint16_t i = 0; i < v->n; i++)
        if (v->e[i].res == r) { *out = v->e[i].v; return true; }
    return false;
}

/* mirrors v1resource.GetResourceRequestQuantity: PodRequests without overhead, plus the overhead
 * only when the result is non-zero. p->req already holds the overhead. */
static int64_t request_quantity(const kp_pod *p, int r) {
    int64_t total = kp__resv_get(&p->req, r), ov = kp__resv_get(&p->overhead, r);
    return total - ov == 0 ? 0 : total;
}

static char *arena_printf(kp_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *arena_printf(kp_arena *a, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
    return kp__arena_dup(a, buf, (size_t)n + 1);
}

struct ev_qty;
static bool pod_eph_limit(const kp_evict_manager *m, uint32_t pod, int64_t *out, struct ev_qty *qout);

/* ---------------------------------------------------------------- creation */

static kp_status build_index(kp_evict_manager *m) {
    const kp_cluster *cl = m->cl;
    uint32_t cap = 16;
    while (cap < m->n_act * 2 + 2) cap *= 2;
    m->tab_cap = cap;
    m->uid_tab = kp__calloc(cap, sizeof *m->uid_tab);
    m->nn_tab = kp__calloc(cap, sizeof *m->nn_tab);
    if (!m->uid_tab || !m->nn_tab) return KP_ENOMEM;
    for (uint32_t i = 0; i < m->n_act; i++) {
        const kp_pod *p = &cl->pods[m->act[i].pod];
        size_t nsl, nl = cl->strs.len[p->name];
        const char *ns = pod_ns(cl, p, &nsl);
        uint32_t h = nn_hash(ns, nsl, kp__s(cl, p->name), nl) & (cap - 1);
        while (m->nn_tab[h]) h = (h + 1) & (cap - 1);
        m->nn_tab[h] = i + 1;
        if (cl->strs.len[p->uid]) {
            uint32_t full = kp__ev_hash(kp__s(cl, p->uid), cl->strs.len[p->uid]);
            h = full & (cap - 1);
            while (m->uid_tab[h]) h = (h + 1) & (cap - 1);
            m->uid_tab[h] = i + 1;
            m->act[i].uid_hash = full;
            m->act[i].uid = kp__s(cl, p->uid);
            m->act[i].uid_len = cl->strs.len[p->uid];
        }
    }
    return KP_OK;
}

kp_evict_manager *kp_evict_manager_new(const kp_cluster *cl, long node, const kp_evict_config *cfg,
                                       kp_error *err) {
    if (!cfg->finished) {
        kp_error_set(err, KP_EINVAL, "eviction configuration not finished");
        return NULL;
    }
    if (!cl->finalized || node < 0 || (unsigned long)node >= cl->n_nodes) {
        kp_error_set(err, KP_EINVAL, "node index %ld out of range", node);
        return NULL;
    }
    kp_evict_manager *m = kp__calloc(1, sizeof *m);
    if (!m) goto oom;
    kp__arena_init(&m->arena);
    m->cl = cl;
    m->cfg = cfg;
    const kp_node *n = &cl->nodes[node];
    uint32_t cap_th = cfg->n_th + 4;
    m->th = kp__malloc(cap_th * sizeof *m->th);
    m->fo_has = kp__calloc(cap_th, sizeof *m->fo_has);
    m->fo_at = kp__calloc(cap_th, sizeof *m->fo_at);
    m->met_prev = kp__calloc(cap_th, sizeof *m->met_prev);
    m->ia = kp__calloc(cap_th * 2, sizeof *m->ia);
    m->ib = kp__calloc(cap_th * 2, sizeof *m->ib);
    m->ic = kp__calloc(cap_th * 2, sizeof *m->ic);
    m->all = kp__calloc(cap_th, sizeof *m->all);
    m->met = kp__calloc(cap_th * 2, sizeof *m->met);
    size_t np = n->n_pods ? n->n_pods : 1;
    m->act = kp__calloc(np, sizeof *m->act);
    m->stats_of = kp__calloc(np, sizeof *m->stats_of);
    m->rank = kp__calloc(np, sizeof *m->rank);
    m->rank_tmp = kp__calloc(np, sizeof *m->rank_tmp);
    m->keys = kp__calloc(np * 2, sizeof *m->keys);
    m->ranking = kp__calloc(np, sizeof *m->ranking);
    m->ev = kp__calloc(np, sizeof *m->ev);
    if (!m->th || !m->fo_has || !m->fo_at || !m->met_prev || !m->ia || !m->ib || !m->ic || !m->all ||
        !m->met || !m->act || !m->stats_of || !m->rank || !m->rank_tmp || !m->keys || !m->ranking || !m->ev)
        goto oom;
    if (cfg->n_th) memcpy(m->th, cfg->th, cfg->n_th * sizeof *m->th);
    m->n_th = cfg->n_th;
    for (uint32_t i = 0; i < n->n_pods; i++) {
        const kp_pod *p = &cl->pods[n->pods[i]];
        if (kp__pod_is_terminal(p)) continue; /* GetActivePods drops terminal pods */
        ev_active *a = &m->act[m->n_act++];
        a->pod = n->pods[i];
        a->priority = p->priority;
        a->mem_req = request_quantity(p, KP_RES_MEM);
        a->eph_req = request_quantity(p, KP_RES_EPH);
        a->critical = p->is_critical;
        int64_t lim;
        a->local_check = pod_eph_limit(m, a->pod, &lim, NULL);
        for (uint16_t v = 0; v < p->n_volumes; v++)
            if (p->volumes[v].is_empty_dir && p->volumes[v].has_size_limit && p->volumes[v].size_limit > 0)
                a->local_check = true;
        if (a->local_check) m->n_local_check++;
    }
    m->n_pods_total = m->n_act;
    if (build_index(m) != KP_OK) goto oom;
    return m;
oom:
    kp_evict_manager_free(m);
    kp_error_set(err, KP_ENOMEM, "out of memory");
    return NULL;
}

void kp_evict_manager_free(kp_evict_manager *m) {
    if (!m) return;
    kp__free(m->th); kp__free(m->fo_has); kp__free(m->fo_at); kp__free(m->met_prev);
    kp__free(m->ia); kp__free(m->ib); kp__free(m->ic); kp__free(m->all); kp__free(m->met);
    kp__free(m->act); kp__free(m->stats_of); kp__free(m->rank); kp__free(m->rank_tmp); kp__free(m->keys);
    kp__free(m->ranking); kp__free(m->ev); kp__free(m->uid_tab); kp__free(m->nn_tab);
    kp__arena_fini(&m->arena);
    kp__free(m);
}

size_t kp_evict_manager_threshold_count(const kp_evict_manager *m) { return m->n_th; }

kp_status kp_evict_manager_threshold(const kp_evict_manager *m, size_t i, kp_evict_threshold_info *out) {
    if (i >= m->n_th) return KP_ERANGE;
    const kp__ev_threshold *t = &m->th[i];
    memset(out, 0, sizeof *out);
    out->signal = t->signal;
    out->hard = t->grace_ns == 0;
    out->grace_ns = t->grace_ns;
    memcpy(out->value, t->value_text, sizeof out->value);
    if (t->has_min_reclaim) memcpy(out->min_reclaim, t->mr_text, sizeof out->min_reclaim);
    return KP_OK;
}

size_t kp_evict_manager_active_count(const kp_evict_manager *m) { return m->n_act; }

void kp_evict_manager_set_spec_text(kp_evict_manager *m, kp_evict_spec_text_fn fn, void *ctx) {
    m->spec_fn = fn;
    m->spec_ctx = ctx;
}

/* ---------------------------------------------------------------- per-step pieces */

/* statsFunc: podRef.uid, falling back to namespace/name. Later entries win (map assignment). */
static void join_stats(kp_evict_manager *m, const kp_evict_summary *s) {
    const kp_cluster *cl = m->cl;
    uint32_t mask = m->tab_cap - 1;
    memset(m->stats_of, 0, m->n_pods_total * sizeof *m->stats_of);
    for (uint32_t j = 0; j < s->n_pods; j++) {
        const kp__ev_pstats *ps = &s->pods[j];
        uint32_t hit = 0;
        if (ps->uid_len) {
            const char *uid = kp__ev_str(s, ps->uid);
            for (uint32_t h = ps->uid_hash & mask; m->uid_tab[h]; h = (h + 1) & mask) {
                const ev_active *a = &m->act[m->uid_tab[h] - 1];
                if (a->uid_hash == ps->uid_hash && a->uid_len == ps->uid_len && memcmp(a->uid, uid, ps->uid_len) == 0) {
                    hit = m->uid_tab[h];
                    break;
                }
            }
        }
        if (!hit && ps->name_len) {
            const char *ns = ps->ns_len ? kp__ev_str(s, ps->ns) : "default";
            const char *name = kp__ev_str(s, ps->name);
            size_t nsl = ps->ns_len ? ps->ns_len : 7;
            for (uint32_t h = nn_hash(ns, nsl, name, ps->name_len) & mask; m->nn_tab[h]; h = (h + 1) & mask) {
                const kp_pod *p = &cl->pods[m->act[m->nn_tab[h] - 1].pod];
                size_t pnsl;
                const char *pns = pod_ns(cl, p, &pnsl);
                if (pnsl == nsl && memcmp(pns, ns, nsl) == 0 && cl->strs.len[p->name] == ps->name_len &&
                    memcmp(kp__s(cl, p->name), name, ps->name_len) == 0) {
                    hit = m->nn_tab[h];
                    break;
                }
            }
        }
        if (hit) m->stats_of[hit - 1] = ps;
    }
}

static bool fs_same(const kp__ev_fs *a, const kp__ev_fs *b) {
    const uint8_t bits = KP__EVF_AVAIL | KP__EVF_CAP | KP__EVF_IFREE | KP__EVF_INODES;
    if ((a->has & bits) != (b->has & bits)) return false;
    return a->avail == b->avail && a->cap == b->cap && a->inodes_free == b->inodes_free && a->inodes == b->inodes;
}

/* HasDedicatedImageFs / HasDedicatedContainerFs, from the summary or the forced layout. */
static void detect_layout(kp_evict_manager *m, const kp_evict_summary *s) {
    switch (m->cfg->layout) {
    case KP_EVFS_SHARED: m->imagefs = false; m->split = false; return;
    case KP_EVFS_DEDICATED: m->imagefs = true; m->split = false; return;
    case KP_EVFS_SPLIT: m->imagefs = true; m->split = true; return;
    case KP_EVFS_AUTO: break;
    }
    m->imagefs = (s->imagefs.has & KP__EVF_PRESENT) && !fs_same(&s->imagefs, &s->node_fs);
    m->split = m->imagefs && (s->containerfs.has & KP__EVF_PRESENT) && !fs_same(&s->containerfs, &s->imagefs);
}

static kp_evict_fs_layout layout_of(const kp_evict_manager *m) {
    return !m->imagefs ? KP_EVFS_SHARED : m->split ? KP_EVFS_SPLIT : KP_EVFS_DEDICATED;
}

static bool is_memory_signal(kp_evict_signal s) {
    return s == KP_EVSIG_MEMORY_AVAILABLE || s == KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE;
}

static unsigned condition_of(kp_evict_signal s) {
    if (is_memory_signal(s)) return KP_EVCOND_MEMORY;
    if (s == KP_EVSIG_PID_AVAILABLE) return KP_EVCOND_PID;
    return KP_EVCOND_DISK;
}

/* buildSignalToNodeReclaimFuncs: 1 = container GC, 2 = image GC */
static unsigned reclaim_funcs(const kp_evict_manager *m, kp_evict_signal s) {
    if (is_memory_signal(s) || s == KP_EVSIG_PID_AVAILABLE) return 0;
    bool nodefs = s == KP_EVSIG_NODEFS_AVAILABLE || s == KP_EVSIG_NODEFS_INODES_FREE;
    bool image = s == KP_EVSIG_IMAGEFS_AVAILABLE || s == KP_EVSIG_IMAGEFS_INODES_FREE;
    if (!m->imagefs) return 3;
    if (!m->split) return nodefs ? 0 : 3;
    return image ? 2 : 1;
}

/* Filesystem a disk signal observes, for --reclaimable: 0 nodefs, 1 image filesystem; -1 none. */
static int fs_group(const kp_evict_manager *m, kp_evict_signal s) {
    switch (s) {
    case KP_EVSIG_NODEFS_AVAILABLE:
    case KP_EVSIG_NODEFS_INODES_FREE: return 0;
    case KP_EVSIG_IMAGEFS_AVAILABLE:
    case KP_EVSIG_IMAGEFS_INODES_FREE: return m->imagefs ? 1 : 0;
    case KP_EVSIG_CONTAINERFS_AVAILABLE:
    case KP_EVSIG_CONTAINERFS_INODES_FREE: return (m->imagefs && !m->split) ? 1 : 0;
    default: return -1;
    }
}

static bool is_inode_signal(kp_evict_signal s) {
    return s == KP_EVSIG_NODEFS_INODES_FREE || s == KP_EVSIG_IMAGEFS_INODES_FREE ||
           s == KP_EVSIG_CONTAINERFS_INODES_FREE;
}

/* mirrors reclaimNodeLevelResources; the summary after GC is this step's summary plus what
 * --reclaimable says GC frees on each filesystem. */
static bool reclaim_node_level(kp_evict_manager *m, kp_evict_signal sig, const kp_evict_observation *obs,
                               kp_evict_result *res) {
    unsigned funcs = reclaim_funcs(m, sig);
    res->node_reclaim = funcs;
    if (!funcs) return false;
    kp_evict_observation after[KP_EVSIG_COUNT];
    memcpy(after, obs, sizeof after);
    for (int src = 0; src < KP_EVSIG_COUNT; src++) {
        if (!m->cfg->has_reclaimable[src]) continue;
        int g = fs_group(m, (kp_evict_signal)src);
        for (int s = 0; s < KP_EVSIG_COUNT; s++) {
            if (fs_group(m, (kp_evict_signal)s) != g || is_inode_signal((kp_evict_signal)s) !=
                                                            is_inode_signal((kp_evict_signal)src))
                continue;
            if (after[s].present) after[s].available = kp__ev_sat_add(after[s].available, m->cfg->reclaimable[src]);
        }
    }
    for (uint32_t i = 0; i < m->n_th; i++) m->all[i] = i;
    uint32_t still = kp__ev_thresholds_met(m->th, m->all, m->n_th, after, true, m->ib);
    res->node_reclaim_enough = still == 0;
    return still == 0;
}

static void remove_active(kp_evict_manager *m, uint32_t pod) {
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        if (m->act[i].pod == pod && !m->act[i].gone) {
            m->act[i].gone = true;
            m->n_act--;
            return;
        }
    }
}

static kp_evict_eviction *add_eviction(kp_evict_manager *m, uint32_t pod, const char *signal, int64_t grace,
                                       char *msg, bool local) {
    kp_evict_eviction *e = &m->ev[m->n_ev++];
    memset(e, 0, sizeof *e);
    e->pod = pod;
    e->signal = signal;
    e->grace_seconds = grace;
    e->message = msg ? msg : "";
    e->local_storage = local;
    return e;
}

/* ---------------------------------------------------------------- local storage */

/* ---------------------------------------------------------------- spec quantities */

/* A spec quantity as upstream holds it: exact value, format, and whether String() returns the
 * text ParseQuantity cached (kept) or the canonical form. */
typedef struct ev_qty {
    kp_quantity q;
    bool kept;
    char str[KP_QUANTITY_STR_MAX];
} ev_qty;

/* The quantity behind a model integer v: parsed from the text the pod was written with when
 * the spec-text source knows it and it agrees with v, else rebuilt from v (an absent quantity
 * is v = 0, Quantity{} upstream, which prints "0"). */
static const kp_resent *resv_entry(const kp_cluster *cl, const kp_resv *rv, const char *res) {
    for (uint16_t i = 0; i < rv->n; i++)
        if (strcmp(kp__s(cl, cl->res_names[rv->e[i].res]), res) == 0) return &rv->e[i];
    return NULL;
}

/* The spelling the cluster model kept from the pod's manifest (the default spec-text source). */
static const char *model_spec_text(const kp_cluster *cl, uint32_t pod, kp_evict_spec_field f, const char *name,
                                   const char *res, size_t *len) {
    const kp_pod *p = &cl->pods[pod];
    const kp_resent *e = NULL;
    kp_str text = 0;
    switch (f) {
    case KP_EVSPEC_REQUEST:
    case KP_EVSPEC_LIMIT:
        for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init && !e; i++) {
            const kp_container *c = &p->containers[i];
            if (strcmp(kp__s(cl, c->name), name) == 0) e = resv_entry(cl, f == KP_EVSPEC_REQUEST ? &c->req : &c->lim, res);
        }
        break;
    case KP_EVSPEC_POD_REQUEST: e = resv_entry(cl, &p->pod_req, res); break;
    case KP_EVSPEC_OVERHEAD: e = resv_entry(cl, &p->overhead, res); break;
    case KP_EVSPEC_SIZE_LIMIT:
        for (uint16_t i = 0; i < p->n_volumes && !text; i++)
            if (strcmp(kp__s(cl, p->volumes[i].name), name) == 0) text = p->volumes[i].size_limit_text;
        break;
    }
    if (e) text = e->text;
    if (!text) return NULL;
    *len = kp__strlen(&cl->strs, text);
    return kp__s(cl, text);
}

static void spec_qty(const kp_evict_manager *m, uint32_t pod, kp_evict_spec_field f, const char *name,
                     const char *res, int64_t v, ev_qty *out) {
    size_t len = 0;
    const char *t = m->spec_fn ? m->spec_fn(m->spec_ctx, pod, f, name, res, &len)
                               : model_spec_text(m->cl, pod, f, name, res, &len);
    int64_t iv;
    if (t && kp_quantity_parse(t, len, &out->q, NULL) == KP_OK && kp_quantity_value(&out->q, &iv) == KP_OK && iv == v) {
        out->kept = len < sizeof out->str && kp_quantity_parse_keeps_string(t, len);
        if (out->kept) {
            memcpy(out->str, t, len);
            out->str[len] = 0;
        }
        return;
    }
    out->q = kp_quantity_from_int(v, (v != 0 && v % 1024 == 0) ? KP_QFMT_BINARY_SI : KP_QFMT_DECIMAL_SI);
    out->kept = false;
}

/* Quantity.String() */
static const char *qty_str(ev_qty *x) {
    if (!x->kept) kp_quantity_format(&x->q, x->str, sizeof x->str);
    return x->str;
}

static int64_t pow10_mul(int64_t v, int32_t n, bool *ok) {
    for (int32_t i = 0; i < n && *ok; i++) {
        if (v > INT64_MAX / 10 || v < INT64_MIN / 10) *ok = false;
        else v *= 10;
    }
    return v;
}

/* mirrors Quantity.Add: exact sum; the cached string is dropped; a zero receiver takes the
 * addend's format. Beyond int64 (upstream switches to inf.Dec) the sum of the model integers
 * is used instead. */
static void qty_add(ev_qty *a, const ev_qty *b, int64_t int_sum) {
    kp_qformat f = a->q.mant == 0 ? b->q.format : a->q.format;
    int32_t sc = a->q.scale < b->q.scale ? a->q.scale : b->q.scale;
    bool ok = true;
    int64_t x = pow10_mul(a->q.mant, a->q.scale - sc, &ok), y = pow10_mul(b->q.mant, b->q.scale - sc, &ok);
    if (ok && ((y > 0 && x > INT64_MAX - y) || (y < 0 && x < INT64_MIN - y))) ok = false;
    if (ok) {
        a->q.mant = x + y;
        a->q.scale = sc;
    } else {
        a->q = kp_quantity_from_int(int_sum, f);
    }
    a->q.format = f;
    a->kept = false;
}

/* addResourceList for one resource: the first value is a DeepCopy (keeps its string), later
 * ones are added. */
static void qty_accumulate(ev_qty *acc, bool *has, const ev_qty *v, int64_t int_sum) {
    if (!*has) *acc = *v;
    else qty_add(acc, v, int_sum);
    *has = true;
}

/* PodLimits(pod)[ephemeral-storage] (AggregateContainerLimits, sidecar-aware: regular
 * containers and restartable init containers add up, each init container counts with the
 * sidecars started before it, the pod takes the larger of the two; then the overhead when the
 * limit is non-zero). *out gets the integer; qout (optional) the quantity as upstream prints it. */
static bool pod_eph_limit(const kp_evict_manager *m, uint32_t pod, int64_t *out, ev_qty *qout) {
    const kp_pod *p = &m->cl->pods[pod];
    bool has = false, has_init = false, has_restart = false;
    int64_t sum = 0, init_max = 0, restart = 0, v;
    ev_qty qsum, qinit, qrestart, qv, quse;
    memset(&qsum, 0, sizeof qsum);
    qinit = qrestart = qv = quse = qsum;
    for (uint16_t i = 0; i < p->n_containers; i++) {
        const kp_container *c = &p->containers[i];
        if (!resv_find(&c->lim, KP_RES_EPH, &v)) continue;
        sum = kp__ev_sat_add(sum, v);
        if (qout) {
            spec_qty(m, pod, KP_EVSPEC_LIMIT, kp__s(m->cl, c->name), "ephemeral-storage", v, &qv);
            qty_accumulate(&qsum, &has, &qv, sum);
        }
        has = true;
    }
    for (uint16_t i = 0; i < p->n_init; i++) {
        const kp_container *c = &p->containers[p->n_containers + i];
        bool hv = resv_find(&c->lim, KP_RES_EPH, &v);
        if (hv && qout) spec_qty(m, pod, KP_EVSPEC_LIMIT, kp__s(m->cl, c->name), "ephemeral-storage", v, &qv);
        int64_t use;
        bool has_use;
        if (c->is_sidecar) {
            if (hv) {
                sum = kp__ev_sat_add(sum, v);
                restart = kp__ev_sat_add(restart, v);
                if (qout) {
                    qty_accumulate(&qsum, &has, &qv, sum);
                    qty_accumulate(&qrestart, &has_restart, &qv, restart);
                }
                has = has_restart = true;
            }
            use = restart;
            has_use = has_restart;
            quse = qrestart;
        } else {
            use = kp__ev_sat_add(hv ? v : 0, restart);
            has_use = hv || has_restart;
            if (qout && has_use) { /* tmp = copy(own limit) + restartable limits */
                bool h = false;
                if (hv) qty_accumulate(&quse, &h, &qv, use);
                if (has_restart) qty_accumulate(&quse, &h, &qrestart, use);
            }
        }
        if (has_use && (!has_init || use > init_max)) { /* maxResourceList: DeepCopy when larger */
            init_max = use;
            qinit = quse;
            has_init = true;
        }
    }
    if (has_init && (!has || init_max > sum)) {
        sum = init_max;
        qsum = qinit;
        has = true;
    }
    /* PodLimits adds the overhead to non-zero limits only */
    if (has && sum != 0 && resv_find(&p->overhead, KP_RES_EPH, &v)) {
        sum = kp__ev_sat_add(sum, v);
        if (qout) {
            spec_qty(m, pod, KP_EVSPEC_OVERHEAD, "", "ephemeral-storage", v, &qv);
            qty_add(&qsum, &qv, sum);
        }
    }
    *out = sum;
    if (qout) *qout = qsum;
    return has;
}

/* mirrors localStorageEviction (all three checks, in active order, unranked) */
static void local_storage_eviction(kp_evict_manager *m, const kp_evict_summary *s) {
    const kp_cluster *cl = m->cl;
    ev_qty qt;
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        const ev_active *a = &m->act[i];
        if (a->gone || !a->local_check) continue;
        const kp_pod *p = &cl->pods[a->pod];
        const kp__ev_pstats *st = m->stats_of[i];
        const char *why = NULL;
        char *msg = NULL;
        if (!st) continue;
        /* emptyDirLimitEviction */
        for (uint16_t v = 0; v < p->n_volumes && !msg; v++) {
            const kp_volume *vol = &p->volumes[v];
            if (!vol->is_empty_dir || !vol->has_size_limit || vol->size_limit <= 0) continue;
            const char *name = kp__s(cl, vol->name);
            size_t nl = cl->strs.len[vol->name];
            bool found = false;
            int64_t used = 0;
            const kp__ev_vstats *vols = kp__ev_pod_vols(s, st);
            for (uint32_t j = 0; j < st->n_volumes; j++) {
                const kp__ev_vstats *vs = &vols[j];
                if (vs->name_len == nl && (vs->has & KP__EVV_NAME) && memcmp(kp__ev_str(s, vs->name), name, nl) == 0 &&
                    (vs->has & KP__EVV_USED)) {
                    found = true;
                    used = kp__ev_u2i(vs->used);
                }
            }
            if (!found || used <= vol->size_limit) continue;
            if (a->critical) break; /* evictPod refuses; the other checks still run */
            spec_qty(m, a->pod, KP_EVSPEC_SIZE_LIMIT, name, "", vol->size_limit, &qt);
            msg = arena_printf(&m->arena, "Usage of EmptyDir volume \"%s\" exceeds the limit \"%s\". ", name, qty_str(&qt));
            why = "emptydirfs.limit";
        }
        /* podEphemeralStorageLimitEviction */
        int64_t limit;
        if (!msg && pod_eph_limit(m, a->pod, &limit, NULL)) {
            int64_t used = (st->has & KP__EVP_EPH_USED) ? kp__ev_u2i(st->eph_used) : 0;
            if (used > limit && !a->critical) {
                pod_eph_limit(m, a->pod, &limit, &qt);
                msg = arena_printf(&m->arena,
                                   "Pod ephemeral local storage usage exceeds the total limit of containers %s. ",
                                   qty_str(&qt));
                why = "ephemeralpodfs.limit";
            }
        }
        /* containerEphemeralStorageLimitEviction */
        const kp__ev_cstats *conts = kp__ev_pod_conts(s, st);
        for (uint32_t j = 0; j < st->n_containers && !msg; j++) {
            const kp__ev_cstats *cs = &conts[j];
            const char *cs_name = kp__ev_str(s, cs->name);
            int64_t used = (cs->has & KP__EVC_LOGS_USED) ? kp__ev_u2i(cs->logs_used) : 0;
            if (!m->imagefs && (cs->has & KP__EVC_ROOT_USED)) used = kp__ev_sat_add(used, kp__ev_u2i(cs->root_used));
            int64_t lim = 0;
            const char *lim_name = "";
            bool has_lim = false;
            for (uint16_t c = 0; c < p->n_containers; c++) {
                const kp_container *ct = &p->containers[c];
                int64_t v;
                if ((cs->has & KP__EVC_NAME) && cl->strs.len[ct->name] == cs->name_len &&
                    memcmp(kp__s(cl, ct->name), cs_name, cs->name_len) == 0 && resv_find(&ct->lim, KP_RES_EPH, &v) && v != 0) {
                    lim = v;
                    lim_name = kp__s(cl, ct->name);
                    has_lim = true;
                }
            }
            if (!has_lim || lim >= used) continue;
            if (a->critical) break;
            spec_qty(m, a->pod, KP_EVSPEC_LIMIT, lim_name, "ephemeral-storage", lim, &qt);
            msg = arena_printf(&m->arena, "Container %.*s exceeded its local ephemeral storage limit \"%s\". ",
                               (int)cs->name_len, cs_name, qty_str(&qt));
            why = "ephemeralcontainerfs.limit";
        }
        if (!msg) continue;
        add_eviction(m, a->pod, why, 1, msg, true);
        remove_active(m, a->pod);
    }
}

/* ---------------------------------------------------------------- message */

static void obs_str(kp_evict_signal s, int64_t v, char *buf, size_t cap) {
    bool decimal = is_inode_signal(s) || s == KP_EVSIG_PID_AVAILABLE;
    kp_quantity_format_int(v, decimal ? KP_QFMT_DECIMAL_SI : KP_QFMT_BINARY_SI, buf, cap);
}

/* mirrors evictionMessage + getThresholdMetInfo */
static void eviction_message(kp_evict_manager *m, kp_evict_eviction *e, const char *resource, uint32_t rp_pod,
                             const kp_evict_summary *s, const kp__ev_pstats *st, const uint32_t *t3, uint32_t n3,
                             const kp_evict_observation *obs) {
    const kp_cluster *cl = m->cl;
    const kp_pod *p = &cl->pods[rp_pod];
    ev_qty qt;
    char msg[2048], q[64], a[64];
    size_t o = (size_t)snprintf(msg, sizeof msg, "The node was low on resource: %s. ", resource);
    for (uint32_t k = 0; k < n3; k++) {
        const kp__ev_threshold *t = &m->th[t3[k]];
        if (strcmp(kp_evict_signal_resource(t->signal), resource) != 0 || !obs[t->signal].present) continue;
        kp__ev_threshold_quantity_str(&t->value, obs[t->signal].capacity, q, sizeof q);
        obs_str(t->signal, obs[t->signal].available, a, sizeof a);
        o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0, "Threshold quantity: %s, available: %s. ", q, a);
        break;
    }
    if (!st) {
        e->message = kp__arena_dup(&m->arena, msg, strlen(msg) + 1);
        return;
    }
    const char *keys[5], *vals[5];
    uint32_t na = 0;
    char names[1024] = "", usages[1024] = "";
    size_t nn = 0, nu = 0;
    bool is_mem = strcmp(resource, "memory") == 0, is_eph = strcmp(resource, "ephemeral-storage") == 0;
    const char *pod_name = kp__s(cl, p->name), *pod_usage = NULL;
    int64_t preq;
    if (is_mem && p->has_pod_resources && resv_find(&p->pod_req, KP_RES_MEM, &preq) && (st->has & KP__EVP_MEM)) {
        int64_t ws = (st->has & KP__EVP_WS) ? kp__ev_u2i(st->ws) : 0;
        kp_quantity_format_int(ws, KP_QFMT_BINARY_SI, a, sizeof a);
        spec_qty(m, rp_pod, KP_EVSPEC_POD_REQUEST, "", "memory", preq, &qt);
        o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0,
                              "Pod %s was using %s, request is %s, has larger consumption of memory. ", pod_name, a,
                              qty_str(&qt));
        pod_usage = kp__arena_dup(&m->arena, a, strlen(a) + 1);
    }
    uint32_t n_all = (uint32_t)p->n_containers + p->n_init;
    const kp__ev_cstats *conts = kp__ev_pod_conts(s, st);
    for (uint32_t j = 0; j < st->n_containers; j++) {
        const kp__ev_cstats *cs = &conts[j];
        const char *cs_name = kp__ev_str(s, cs->name);
        if (!(cs->has & KP__EVC_NAME)) continue;
        for (uint32_t c = 0; c < n_all; c++) {
            const kp_container *ct = &p->containers[c];
            if (cl->strs.len[ct->name] != cs->name_len || memcmp(kp__s(cl, ct->name), cs_name, cs->name_len) != 0)
                continue;
            int64_t req = is_mem ? kp__resv_get(&ct->req, KP_RES_MEM) : is_eph ? kp__resv_get(&ct->req, KP_RES_EPH) : 0;
            bool has_usage = false;
            int64_t usage = 0;
            if (is_eph && (cs->has & KP__EVC_ROOT_USED) && (cs->has & KP__EVC_LOGS_USED)) {
                has_usage = true;
                usage = kp__ev_u2i(cs->root_used + cs->logs_used);
            } else if (is_mem && (cs->has & KP__EVC_WS)) {
                has_usage = true;
                usage = kp__ev_u2i(cs->ws);
            }
            if (has_usage && usage > req) {
                kp_quantity_format_int(usage, KP_QFMT_BINARY_SI, a, sizeof a);
                spec_qty(m, rp_pod, KP_EVSPEC_REQUEST, kp__s(cl, ct->name), resource, req, &qt);
                o += (size_t)snprintf(msg + o, o < sizeof msg ? sizeof msg - o : 0,
                                      "Container %s was using %s, request is %s, has larger consumption of %s. ",
                                      kp__s(cl, ct->name), a, qty_str(&qt), resource);
                nn += (size_t)snprintf(names + nn, nn < sizeof names ? sizeof names - nn : 0, "%s%s", nn ? "," : "",
                                       kp__s(cl, ct->name));
                nu += (size_t)snprintf(usages + nu, nu < sizeof usages ? sizeof usages - nu : 0, "%s%s", nu ? "," : "", a);
            }
            break;
        }
    }
    /* annotations, keys sorted as Go's encoding of a map[string]string */
    keys[na] = "offending_containers"; vals[na++] = kp__arena_dup(&m->arena, names, strlen(names) + 1);
    keys[na] = "offending_containers_usage"; vals[na++] = kp__arena_dup(&m->arena, usages, strlen(usages) + 1);
    if (pod_usage) {
        keys[na] = "offending_pod"; vals[na++] = pod_name;
        keys[na] = "offending_pod_usage"; vals[na++] = pod_usage;
    }
    keys[na] = "starved_resource"; vals[na++] = resource;
    const char **kk = kp__arena_alloc(&m->arena, na * sizeof *kk), **vv = kp__arena_alloc(&m->arena, na * sizeof *vv);
    if (kk && vv) {
        memcpy(kk, keys, na * sizeof *kk);
        memcpy(vv, vals, na * sizeof *vv);
        e->n_annotations = na;
        e->ann_keys = kk;
        e->ann_values = vv;
    }
    e->message = kp__arena_dup(&m->arena, msg, strlen(msg) + 1);
}

/* ---------------------------------------------------------------- synchronize */

static int eviction_priority_class(const kp__ev_threshold *t) {
    return (is_memory_signal(t->signal) ? 0 : 2) + (t->grace_ns ? 1 : 0);
}

/* byEvictionPriority with a deterministic tie order: memory signals first, then hard before
 * soft, then configuration order (upstream: Go map order, i.e. random). Insertion sort, n small. */
static void sort_by_eviction_priority(const kp__ev_threshold *th, uint32_t *idx, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        int kv = eviction_priority_class(&th[v]);
        while (j > 0) {
            uint32_t u = idx[j - 1];
            int ku = eviction_priority_class(&th[u]);
            if (ku < kv || (ku == kv && u < v)) break;
            idx[j--] = u;
        }
        idx[j] = v;
    }
}

static bool contains(const uint32_t *a, uint32_t n, uint32_t v) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

static int cond_index(unsigned bit) { return bit == KP_EVCOND_MEMORY ? 0 : bit == KP_EVCOND_DISK ? 1 : 2; }

/* Evicts the first non-critical pod of the ranking (evictPod refuses critical pods). */
static void evict_one(kp_evict_manager *m, const kp_evict_summary *s, const kp__ev_threshold *eval, uint32_t chosen, const char *resource,
                      const uint32_t *t3, uint32_t n3, const kp_evict_observation *obs, kp_evict_result *res) {
    const kp__ev_threshold *t = &eval[chosen];
    for (uint32_t r = 0; r < res->n_ranking; r++) {
        const kp__ev_rank_pod *rp = &m->rank[r];
        const kp_pod *p = &m->cl->pods[rp->pod];
        int64_t grace = 1; /* immediateEvictionGracePeriodSeconds */
        if (t->grace_ns != 0) {
            grace = m->cfg->max_pod_grace;
            if (p->has_termination_grace && p->termination_grace < grace) grace = p->termination_grace;
        }
        if (p->is_critical) continue;
        kp_evict_eviction *e = add_eviction(m, rp->pod, kp_evict_signal_name(t->signal), grace, NULL, false);
        eviction_message(m, e, resource, rp->pod, s, rp->st, t3, n3, obs);
        remove_active(m, rp->pod);
        return;
    }
    res->note = "unable to evict any pods from the node (every candidate is critical)";
}

/* mirrors managerImpl.synchronize */
kp_status kp_evict_manager_step(kp_evict_manager *m, const kp_evict_summary *s, kp_evict_result *res,
                                kp_error *err) {
    const kp_evict_config *cfg = m->cfg;
    int64_t now;
    if (!kp_evict_summary_time(s, &now)) now = m->has_last_step ? m->last_step + MONITOR_NS : 0;
    if (m->has_last_step && now < m->last_step)
        return kp_error_set(err, KP_EINVAL, "summary time goes backwards (summaries must be given in time order)");
    m->has_last_step = true;
    m->last_step = now;
    kp__arena_reset(&m->arena);
    memset(res, 0, sizeof *res);
    m->n_ev = 0;
    res->time_ns = now;
    kp_evict_observation *obs = res->obs;
    kp__ev_observe(s, obs);
    res->met = m->met;
    res->ranking = m->ranking;
    res->evicted = m->ev;
    res->layout = m->layout_known ? layout_of(m) : KP_EVFS_SHARED;

    if (cfg->n_th == 0 && !cfg->local_storage_isolation) {
        res->conditions = m->conditions;
        res->note = "no eviction thresholds configured";
        return KP_OK;
    }
    /* Layout and containerfs thresholds, once. The first step still evaluates only the entries
     * from before the derivation: upstream's synchronize shadows its `thresholds` variable, which
     * keeps the old length but shares the backing array, so user containerfs thresholds that
     * UpdateContainerFsThresholds overwrote in place are evaluated with their new values while
     * the appended copies are not evaluated until the next step. */
    uint32_t n_eval = m->n_th;
    if (!m->layout_known) {
        m->layout_known = true;
        detect_layout(m, s);
        if (kp__ev_update_containerfs(&m->th, &m->n_th, m->imagefs, m->split, NULL, 0) != KP_OK)
            return kp_error_set(err, KP_ENOMEM, "out of memory");
        res->layout = layout_of(m);
    }
    const kp__ev_threshold *eval = m->th;
    /* statsFunc: the join runs only when something reads pod stats (the local-storage checks of
     * pods that have limits, ranking); a quiet step reads none */
    bool joined = false;

    /* thresholds met, then those previously met whose min-reclaim is not yet satisfied */
    uint32_t *T = m->ia, nT, i;
    for (i = 0; i < n_eval; i++) m->all[i] = i;
    nT = kp__ev_thresholds_met(eval, m->all, n_eval, obs, false, T);
    if (m->n_met_prev > 0) {
        uint32_t nb = kp__ev_thresholds_met(m->th, m->met_prev, m->n_met_prev, obs, true, m->ib);
        for (uint32_t k = 0; k < nb; k++) { /* mirrors mergeThresholds */
            bool dup = false;
            for (uint32_t j = 0; j < nT && !dup; j++) dup = kp__ev_threshold_same(&eval[T[j]], &m->th[m->ib[k]]);
            if (!dup) T[nT++] = m->ib[k];
        }
    }
    /* thresholdsFirstObservedAt: entries not met now are forgotten */
    for (i = 0; i < n_eval || i < m->n_th; i++) {
        if (!contains(T, nT, i)) { m->fo_has[i] = false; continue; }
        if (!m->fo_has[i]) { m->fo_has[i] = true; m->fo_at[i] = now; }
    }
    /* node conditions from every threshold met (before grace periods) */
    unsigned observed = 0;
    for (i = 0; i < nT; i++) observed |= condition_of(eval[T[i]].signal);
    m->conditions = 0;
    for (unsigned bit = 1; bit <= KP_EVCOND_PID; bit <<= 1) {
        int c = cond_index(bit);
        if (observed & bit) { m->cond_has[c] = true; m->cond_at[c] = now; }
        if (m->cond_has[c] && now - m->cond_at[c] < cfg->transition_ns) m->conditions |= bit;
    }
    res->conditions = m->conditions;
    /* thresholdsMetGracePeriod, then thresholdsUpdatedStats */
    uint32_t n2 = 0, n3 = 0, *T3 = m->ic;
    for (i = 0; i < nT; i++) {
        const kp__ev_threshold *t = &eval[T[i]];
        kp_evict_met *me = &m->met[i];
        memset(me, 0, sizeof *me);
        me->index = T[i];
        me->signal = t->signal;
        me->hard = t->grace_ns == 0;
        me->grace_ns = t->grace_ns;
        me->grace_met = now - m->fo_at[T[i]] >= t->grace_ns;
        me->value = t->value_text;
        char q[64];
        kp__ev_threshold_quantity_str(&t->value, obs[t->signal].capacity, q, sizeof q);
        me->quantity_str = kp__arena_dup(&m->arena, q, strlen(q) + 1);
        me->quantity = kp__ev_value_amount(&t->value, obs[t->signal].capacity).whole;
        if (!me->grace_met) continue;
        m->ib[n2++] = T[i];
        const kp_evict_observation *o = &obs[t->signal];
        if (o->present && (!m->last_has[t->signal] || o->time_ns == 0 || o->time_ns > m->last_time[t->signal])) {
            me->acted = true;
            T3[n3++] = T[i];
        }
    }
    res->n_met = nT;
    memcpy(m->met_prev, m->ib, n2 * sizeof *m->met_prev);
    m->n_met_prev = n2;
    for (int sg = 0; sg < KP_EVSIG_COUNT; sg++) {
        m->last_has[sg] = obs[sg].present;
        m->last_time[sg] = obs[sg].time_ns;
    }

    if (cfg->local_storage_isolation) {
        if (m->n_local_check) {
            join_stats(m, s);
            joined = true;
            local_storage_eviction(m, s);
        }
        if (m->n_ev > 0) { res->n_evicted = m->n_ev; return KP_OK; }
    }
    if (n3 == 0) {
        res->note = nT ? "thresholds met, but none past its grace period with updated stats" : NULL;
        return KP_OK;
    }
    sort_by_eviction_priority(eval, T3, n3);
    uint32_t chosen = T3[0]; /* getReclaimableThreshold: every supported signal has a resource */
    const char *resource = kp_evict_signal_resource(eval[chosen].signal);
    res->has_reclaim = true;
    res->reclaim_threshold = chosen;
    res->reclaim_resource = resource;
    if (reclaim_node_level(m, eval[chosen].signal, obs, res)) {
        res->note = "node-level reclaim (garbage collection) relieved the pressure";
        return KP_OK;
    }
    if (m->n_act == 0) {
        res->note = "eviction thresholds have been met, but no pods are active to evict";
        return KP_OK;
    }
    if (!joined) join_stats(m, s);
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(eval[chosen].signal, m->imagefs, m->split);
    uint32_t n_live = 0;
    for (i = 0; i < m->n_pods_total; i++) {
        if (m->act[i].gone) continue;
        kp__ev_rank_pod *rp = &m->rank[n_live++];
        rp->pod = m->act[i].pod;
        rp->priority = m->act[i].priority;
        rp->mem_req = m->act[i].mem_req;
        rp->eph_req = m->act[i].eph_req;
        rp->st = m->stats_of[i];
    }
    kp__ev_rank(m->cl, s, &fn, m->rank, m->n_act, m->keys, m->rank_tmp);
    res->n_ranking = m->n_act;
    for (i = 0; i < m->n_act; i++) m->ranking[i] = m->rank[i].pod;
    evict_one(m, s, eval, chosen, resource, T3, n3, obs, res);
    res->n_evicted = m->n_ev;
    return KP_OK;
}
