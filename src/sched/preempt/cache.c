/* The arithmetic path of SelectVictimsOnNode over a per-scheduler, per-node cache (see below). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/node_volume_limits.h"
#include "sched/preempt/cache.h"
#include "sched/preempt/order.h"
#include "sched/preempt/pdb_index.h"

/* ---------------------------------------------------------------- per-node cache ---- */

/* The arithmetic path's view of a node, kept per scheduler across attempts (struct kp_pcache):
 *  - entries: the node's pods sorted most important first (the order SelectVictimsOnNode sorts
 *    victims in) with priority, start key, cpu / memory / ephemeral-storage requests and suffix
 *    sums of the requests (struct of arrays, one block per node). Priority is the first key of
 *    the order, so the lower-priority pods of any preemptor are a suffix of the entries.
 *  - runs: maximal stretches of consecutive entries with equal priority and equal cpu and memory
 *    requests. Greedy reprieve over k identical pods keeps the first m that fit and evicts the
 *    rest, so without PDBs the whole reprieve is one division per run (select_runs) and the
 *    victims are the tail of each run. Replicas of one workload make runs long; up to
 *    PC_MAX_RUNS are kept inline in the header, a node with more takes the per-entry path.
 *  - a header per node in one dense array (the dry run visits nodes nearly in index order, so
 *    headers stream through the cache): size, allocatable, the requested cpu / memory of the pods
 *    the entry was built from, and the runs; and the copy of the node's pod list used to
 *    validate the entry, in one dense arena in node order (own allocation if it outgrows its
 *    slot). The dry run of a node with runs reads only these two, the node's pod list and one
 *    start key; the per-entry block is read by the per-entry path and for the winner's victims.
 * An entry is valid while the node's pod list is the one it was built from (kp_node.pods_gen,
 * bumped by every add and remove, unchanged; the copy of the list serves the dry run): the
 * requested amounts are a function of that list, the pod and node attributes read never change
 * during a run, and now_key / compat are checked per attempt. */
#define PC_MAX_RUNS 4
/* Priority levels summarised in the header: up to PC_MAX_LEVELS distinct priorities, each with
 * one past its last entry and the suffix sums there, so that the per-entry path finds the
 * preemptor's lower-priority suffix and the node's use without it from the header alone (a node
 * that cannot fit then costs no read of its per-entry block or its kp_node). */
#define PC_MAX_LEVELS 4

typedef struct {
    int64_t cpu, mem; /* requests of each pod of the run */
    int32_t prio;
    uint32_t end; /* one past the run's last entry */
} pc_run;

typedef struct {
    _Alignas(64) uint32_t *copy; /* node->pods when built: in a kp_pcache.arena slot or own heap */
    int64_t *start; /* start key per entry: same slot, after copy_cap copy entries */
    void *block; /* the per-entry arrays of pc_view, one allocation */
    uint32_t n, cap; /* entries (= pods when built), capacity of the block */
    uint32_t copy_cap; /* capacity of copy and start */
    uint8_t n_runs; /* runs[0..n_runs); PC_MAX_RUNS + 1 = too many (per-entry path) */
    bool built, copy_owned;
    bool uses_now; /* a pod had no startTime: its start key is the attempt's now_key */
    uint32_t gen; /* the node's pods_gen when built */
    int64_t alloc[3]; /* allocatable cpu, memory, pods */
    int64_t req[2]; /* requested cpu, memory of the n pods */
    pc_run runs[PC_MAX_RUNS];
    uint8_t n_lv; /* levels[0..n_lv); PC_MAX_LEVELS + 1 = too many (binary search the block) */
    int32_t lv_prio[PC_MAX_LEVELS];
    uint32_t lv_end[PC_MAX_LEVELS]; /* one past the level's last entry */
    int64_t lv_used[PC_MAX_LEVELS + 1][3]; /* [L]: requested cpu / memory / ephemeral-storage
                                            * without the entries from lv_end[L - 1] on ([0]:
                                            * without all of them) */
    int64_t alloc_eph; /* allocatable ephemeral-storage */
} pc_node;

/* The per-entry arrays of one block (start keys: pc_node.start). */
typedef struct {
    int64_t *req[3]; /* cpu, memory, ephemeral-storage per entry */
    int64_t *suf; /* suf[i*3+k] = sum of req[k][j] for j >= i; (n+1)*3 values */
    uint32_t *pod; /* pod index per entry */
    int32_t *prio; /* priority per entry */
} pc_view;

static size_t pc_block_size(uint32_t cap) {
    return (size_t)cap * 3 * sizeof(int64_t) + ((size_t)cap + 1) * 3 * sizeof(int64_t) +
           (size_t)cap * 2 * sizeof(uint32_t);
}

/* A slot of capacity cap: cap pod indices, padded to 8 bytes, then cap start keys (in 8-byte
 * units). */
static size_t pc_slot_words(uint32_t cap) { return ((size_t)cap + 1) / 2 + cap; }

static void pc_slot_set(pc_node *c, int64_t *slot, uint32_t cap) {
    c->copy = (uint32_t *)slot;
    c->start = slot + ((size_t)cap + 1) / 2;
    c->copy_cap = cap;
}

static pc_view pc_arrays(const pc_node *c) {
    pc_view a;
    size_t cap = c->cap;
    int64_t *q = c->block;
    for (int k = 0; k < 3; k++) {
        a.req[k] = q;
        q += cap;
    }
    a.suf = q;
    q += (cap + 1) * 3;
    a.pod = (uint32_t *)q;
    a.prio = (int32_t *)(a.pod + cap);
    return a;
}

struct kp_pcache {
    uint32_t n_nodes;
    int64_t now_key;
    kp_preempt_compat compat;
    pc_node *nodes; /* 64-byte aligned */
    int64_t *arena; /* the copy / start-key slots, node by node */
};

/* What preemption keeps per scheduler (the kp__sched_preempt_cache slot): this cache and the PDB
 * index (pdb_index.c). */
typedef struct {
    struct kp_pcache *pc;
    kp_pdbix *pdb;
} pc_state;

static pc_state *pc_state_get(kp_sched *s) {
    void **slot = kp__sched_preempt_cache(s);
    if (!*slot) *slot = kp__calloc(1, sizeof(pc_state));
    return *slot;
}

static void pc_free(struct kp_pcache *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        kp__free(c->nodes[i].block);
        if (c->nodes[i].copy_owned) kp__free(c->nodes[i].copy);
    }
    kp__free(c->nodes);
    kp__free(c->arena);
    kp__free(c);
}

void kp__preempt_cache_free(void *state) {
    pc_state *st = state;
    if (!st) return;
    pc_free(st->pc);
    kp__pdbix_free(st->pdb);
    kp__free(st);
}

kp_status kp__preempt_pdbix_begin(kp_pctx *x) {
    x->pdbix = NULL;
    x->pdbix_owned = false;
    if (x->cl->n_pdbs == 0) return KP_OK;
    pc_state *st = x->s ? pc_state_get(x->s) : NULL;
    if (st && kp__pdbix_fits(st->pdb, x->cl)) {
        x->pdbix = st->pdb;
        kp__pdbix_refresh(st->pdb, x->cl);
        return KP_OK;
    }
    kp_pdbix *ix = kp__pdbix_new(x->cl);
    if (!ix) return KP_ENOMEM;
    if (st) {
        kp__pdbix_free(st->pdb);
        st->pdb = ix;
    } else {
        x->pdbix_owned = true;
    }
    x->pdbix = ix;
    return KP_OK;
}

/* Headers and copy slots sized from the current pod counts (+ 25 % and 4 for growth). */
static struct kp_pcache *pc_new(const kp_cluster *cl) {
    struct kp_pcache *c = kp__calloc(1, sizeof *c);
    if (!c) return NULL;
    uint32_t n = cl->n_nodes;
    size_t sz = ((size_t)(n ? n : 1) * sizeof(pc_node) + 63) & ~(size_t)63;
    c->nodes = kp__aligned_alloc(64, sz);
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += pc_slot_words(cl->nodes[i].n_pods + cl->nodes[i].n_pods / 4 + 4);
    c->arena = kp__malloc((total ? total : 1) * sizeof *c->arena);
    if (!c->nodes || !c->arena) {
        kp__free(c->nodes);
        kp__free(c->arena);
        kp__free(c);
        return NULL;
    }
    memset(c->nodes, 0, sz);
    int64_t *slot = c->arena;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cap = cl->nodes[i].n_pods + cl->nodes[i].n_pods / 4 + 4;
        pc_slot_set(&c->nodes[i], slot, cap);
        slot += pc_slot_words(cap);
    }
    c->n_nodes = n;
    return c;
}

void kp__preempt_cache_begin(kp_pctx *x) {
    x->cache = NULL;
    if (!x->s) return;
    pc_state *st = pc_state_get(x->s);
    if (!st) return;
    struct kp_pcache **slot = &st->pc;
    struct kp_pcache *c = *slot;
    if (c && c->n_nodes != x->cl->n_nodes) {
        pc_free(c);
        c = *slot = NULL;
    }
    if (!c) {
        c = pc_new(x->cl);
        if (!c) return;
        c->now_key = x->now_key;
        c->compat = x->o->compat;
        *slot = c;
    }
    if (c->now_key != x->now_key || c->compat != x->o->compat) {
        /* a new "now" changes only the entries whose order or start keys read it (a pod without
         * startTime; one never loses its startTime, and setting it moves no pod, so an entry
         * built after it was set stays valid) */
        bool all = c->compat != x->o->compat;
        for (uint32_t i = 0; i < c->n_nodes; i++)
            if (all || c->nodes[i].uses_now) c->nodes[i].built = false;
        c->now_key = x->now_key;
        c->compat = x->o->compat;
    }
    const kp_pod *p = &x->cl->pods[x->pod];
    for (int k = 0; k < 3; k++) x->pre_req[k] = kp__resv_get(&p->req, k);
    x->cache = c;
}

#if defined(__GNUC__)
#define PC_PREFETCH(p) __builtin_prefetch(p)
#else
#define PC_PREFETCH(p) ((void)(p))
#endif

/* Prefetches the cache lines of [p, p + len): the first, the last and (for up to 3 lines) the
 * middle one; longer ranges get the rest from the hardware prefetcher. */
static inline void prefetch_range(const void *p, size_t len) {
    if (len == 0) return;
    const char *b = p;
    PC_PREFETCH(b);
    PC_PREFETCH(b + len - 1);
    if (len > 64) PC_PREFETCH(b + 64);
}

/* Prefetch hint for a node the dry run visits soon (memory-bound loop). far: the cache header,
 * the node's pod-list line and its Filter status; near: the node's pod list and the copy it is
 * validated against (pointers read from the far lines). Never changes results. */
void kp__preempt_prefetch(const kp_pctx *x, uint32_t node, bool far) {
    if (!x->cache) return;
    const kp_node *nd = &x->cl->nodes[node];
    const pc_node *c = &x->cache->nodes[node];
    if (far) {
        prefetch_range(c, sizeof *c);
        PC_PREFETCH(&nd->pods);
        if (x->statuses) PC_PREFETCH(&x->statuses[node].plugin);
        return;
    }
    prefetch_range(nd->pods, (size_t)nd->n_pods * sizeof *nd->pods);
    if (c->built) prefetch_range(c->copy, (size_t)c->n * sizeof *c->copy);
}

/* The node's cache entry, (re)built if stale; NULL when out of memory. tmp: n_pods scratch. */
static const pc_node *pc_get(kp_pctx *x, uint32_t node, uint32_t *tmp) {
    pc_node *c = &x->cache->nodes[node];
    const kp_node *nd = &x->cl->nodes[node];
    uint32_t n = nd->n_pods;
    /* valid while the node's pod list is unchanged: its generation (bumped by every add and
     * remove) says so in O(1) where comparing the lists cost a memcmp per node per attempt */
    if (c->built && c->gen == nd->pods_gen && c->n == n) return c;
    c->built = false;
    if (n > c->cap || !c->block) {
        uint32_t cap = n ? n : 1;
        void *blk = kp__malloc(pc_block_size(cap));
        if (!blk) return NULL;
        kp__free(c->block);
        c->block = blk;
        c->cap = cap;
    }
    if (n > c->copy_cap) {
        int64_t *slot = kp__malloc(pc_slot_words(n) * sizeof *slot);
        if (!slot) return NULL;
        if (c->copy_owned) kp__free(c->copy);
        pc_slot_set(c, slot, n);
        c->copy_owned = true;
    }
    pc_view a = pc_arrays(c);
    if (n) {
        memcpy(c->copy, nd->pods, n * sizeof *nd->pods);
        memcpy(tmp, nd->pods, n * sizeof *nd->pods);
    }
    kp__preempt_sort(x, tmp, n);
    uint32_t n_runs = 0;
    c->uses_now = false;
    for (uint32_t i = 0; i < n; i++) {
        const kp_pod *q = &x->cl->pods[tmp[i]];
        if (q->start_time == KP_TIME_NONE) c->uses_now = true;
        a.prio[i] = q->priority;
        a.pod[i] = tmp[i];
        c->start[i] = kp__preempt_start_key(x, tmp[i]);
        for (int k = 0; k < 3; k++) a.req[k][i] = kp__resv_get(&q->req, k);
        if (n_runs > PC_MAX_RUNS) continue;
        pc_run *last = n_runs ? &c->runs[n_runs - 1] : NULL;
        if (!last || last->prio != a.prio[i] || last->cpu != a.req[KP_RES_CPU][i] ||
            last->mem != a.req[KP_RES_MEM][i]) {
            if (n_runs++ == PC_MAX_RUNS) continue; /* too many: per-entry path */
            last = &c->runs[n_runs - 1];
            last->cpu = a.req[KP_RES_CPU][i];
            last->mem = a.req[KP_RES_MEM][i];
            last->prio = a.prio[i];
        }
        last->end = i + 1;
    }
    for (int k = 0; k < 3; k++) a.suf[(size_t)n * 3 + k] = 0;
    for (uint32_t i = n; i-- > 0;)
        for (int k = 0; k < 3; k++)
            a.suf[(size_t)i * 3 + k] = a.suf[(size_t)(i + 1) * 3 + k] + a.req[k][i];
    c->n = n;
    c->n_runs = (uint8_t)n_runs;
    c->alloc[0] = nd->alloc[KP_RES_CPU];
    c->alloc[1] = nd->alloc[KP_RES_MEM];
    c->alloc[2] = nd->alloc[KP_RES_PODS];
    c->req[0] = nd->requested[KP_RES_CPU];
    c->req[1] = nd->requested[KP_RES_MEM];
    c->alloc_eph = nd->alloc[KP_RES_EPH];
    uint32_t n_lv = 0;
    for (int k = 0; k < 3; k++) c->lv_used[0][k] = nd->requested[k] - a.suf[k];
    for (uint32_t i = 0; i < n && n_lv <= PC_MAX_LEVELS; i++) {
        if (i + 1 < n && a.prio[i + 1] == a.prio[i]) continue; /* i: a level's last entry */
        if (n_lv == PC_MAX_LEVELS) {
            n_lv++; /* too many: the per-entry path searches the block */
            break;
        }
        c->lv_prio[n_lv] = a.prio[i];
        c->lv_end[n_lv] = i + 1;
        for (int k = 0; k < 3; k++)
            c->lv_used[n_lv + 1][k] = nd->requested[k] - a.suf[(size_t)(i + 1) * 3 + k];
        n_lv++;
    }
    c->n_lv = (uint8_t)n_lv;
    c->built = true;
    c->gen = nd->pods_gen;
    return c;
}

/* fits_arith over the dense cpu / memory / ephemeral-storage vector: alloc[0..2] as the node's
 * first three resources, alloc_pods its pod capacity. */
static inline bool fits3(const kp_pctx *x, const int64_t *alloc, int64_t alloc_pods,
                         const int64_t *used, uint32_t n_used) {
    if ((int64_t)n_used + 1 > alloc_pods) return false;
    for (int k = 0; k < 3; k++)
        if (x->pre_req[k] > 0 && x->pre_req[k] > alloc[k] - used[k]) return false;
    return true;
}


/* pass 1 of RunFilterPluginsWithNominatedPods: nominated pods of >= priority count as on the
 * node; for resources pass 1 failing is the only way the pair of passes can fail. */
static void add_nominated(kp_pctx *x, uint32_t node, int64_t *used, uint32_t *n_used) {
    const uint32_t *nom;
    if (kp__sched_nominated_on(x->s, node, &nom) == 0) return; /* the usual case: one load */
    int64_t sum[KP_MAX_RES];
    *n_used += kp__sched_nominated_sum(x->s, node, x->prio, x->pod, sum);
    for (int k = 0; k < 3; k++) /* saturating, as the filter's pass 1 (fit_check) */
        if (__builtin_add_overflow(used[k], sum[k], &used[k])) used[k] = INT64_MAX;
}

/* The node cannot fit the preemptor even with every lower-priority pod gone (used / n_used: the
 * node so, with the nominated pods of pass 1): defer its exact status (x->defer), or compute it
 * now. Only NodeResourcesFit can have changed its verdict since the Filter pass (the fast path's
 * conditions: every filter before it passed and reads no pod), so the status of the real filter
 * on that node is fitsRequest's over these amounts (kp__fit_status3): no pod is moved. false:
 * the generic path runs the real filter (no cycle, or another resource checked). */
static bool cannot_fit(const kp_pctx *x, const kp_node *nd, const int64_t *used, uint32_t n_used,
                       kp_pvict *out) {
    if (x->defer) {
        out->st.code = KP_CODE_UNSCHEDULABLE;
        out->st.plugin = "NodeResourcesFit";
        out->deferred = true;
        return true;
    }
    return x->c && kp__fit_status3(x->c, nd, used, n_used, &out->st) &&
           out->st.code != KP_CODE_SUCCESS;
}

/* Candidate result from the chosen entries (entry indices in importance order): scores from the
 * cached keys, and the victims' pod indices unless x->lazy (postfilter materialises the winner's
 * victims only). */
static void finish_cached(const kp_pctx *x, const pc_node *c, const pc_view *a,
                          const uint32_t *entries, uint32_t nv, int32_t n_viol, kp_pvict *out,
                          kp_status *rc, kp_error *err) {
    kp__status_reset(&out->st);
    out->n_viol = n_viol;
    out->n_victims = nv;
    if (nv == 0) return;
    int64_t sum = 0, best = c->start[entries[0]];
    int32_t maxp = a->prio[entries[0]];
    for (uint32_t i = 0; i < nv; i++) {
        uint32_t e = entries[i];
        sum += (int64_t)a->prio[e] + ((int64_t)1 << 31);
        if (a->prio[e] == maxp) {
            if (c->start[e] < best) best = c->start[e];
        } else if (a->prio[e] > maxp) {
            maxp = a->prio[e];
            best = c->start[e];
        }
    }
    out->score[0] = -(int64_t)n_viol;
    out->score[1] = -(int64_t)a->prio[entries[0]];
    out->score[2] = -sum;
    out->score[3] = -(int64_t)nv;
    out->score[4] = best;
    out->has_scores = true;
    if (x->lazy) return;
    out->victims = kp__malloc(nv * sizeof *out->victims);
    if (!out->victims) {
        *rc = kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        return;
    }
    for (uint32_t i = 0; i < nv; i++) out->victims[i] = a->pod[entries[i]];
}

/* min(keep, avail / req) for req > 0, avail >= 0, keep >= 0: a multiplication instead of the
 * division when the product cannot overflow (keep < 2^31, req < 2^32) and all keep fit. */
static inline int64_t fit_count(int64_t keep, int64_t avail, int64_t req) {
    if (keep < ((int64_t)1 << 31) && req < ((int64_t)1 << 32) && keep * req <= avail) return keep;
    int64_t q = avail / req;
    return q < keep ? q : keep;
}

/* SelectVictimsOnNode over the runs (no PDBs in play, the preemptor requests no ephemeral
 * storage). Per run of k identical pods with slack s: m = min(k, pod slots, s / request) are
 * reprieved, exactly what pod-by-pod greedy reprieve does; the k - m later entries are victims.
 * The victims are in importance order already (entry order; no PDB split to merge). */
static bool select_runs(kp_pctx *x, uint32_t node, const pc_node *c, kp_pwork *w, kp_pvict *out,
                        kp_status *rc, kp_error *err) {
    uint32_t r0 = 0;
    while (r0 < c->n_runs && c->runs[r0].prio >= x->prio) r0++;
    if (r0 == c->n_runs) {
        kp__preempt_no_victims(out);
        return true;
    }
    uint32_t first = r0 ? c->runs[r0 - 1].end : 0;
    int64_t used[3] = {c->req[0], c->req[1], 0};
    for (uint32_t r = r0, s = first; r < c->n_runs; s = c->runs[r++].end) {
        int64_t len = c->runs[r].end - s;
        used[0] -= len * c->runs[r].cpu;
        used[1] -= len * c->runs[r].mem;
    }
    uint32_t n_used = first;
    add_nominated(x, node, used, &n_used);
    const int64_t alloc[3] = {c->alloc[0], c->alloc[1], 0};
    if (!fits3(x, alloc, c->alloc[2], used, n_used))
        return cannot_fit(x, &x->cl->nodes[node], used, n_used, out);
    bool need_cpu = x->pre_req[0] > 0, need_mem = x->pre_req[1] > 0;
    int64_t av_cpu = alloc[0] - used[0] - x->pre_req[0],
            av_mem = alloc[1] - used[1] - x->pre_req[1];
    int64_t pod_slack = c->alloc[2] - (int64_t)n_used - 1;
    uint32_t nv = 0, first_victim = 0, *entries = w->victims;
    int64_t sum = 0;
    int32_t top = 0;
    for (uint32_t r = r0, s = first; r < c->n_runs; s = c->runs[r++].end) {
        const pc_run *run = &c->runs[r];
        int64_t len = run->end - s, keep = len < pod_slack ? len : pod_slack;
        if (need_cpu && run->cpu > 0) keep = fit_count(keep, av_cpu, run->cpu);
        if (need_mem && run->mem > 0) keep = fit_count(keep, av_mem, run->mem);
        pod_slack -= keep;
        if (need_cpu) av_cpu -= keep * run->cpu;
        if (need_mem) av_mem -= keep * run->mem;
        if (keep == len) continue;
        if (nv == 0) {
            first_victim = s + (uint32_t)keep;
            top = run->prio;
        }
        nv += (uint32_t)(len - keep);
        sum += (len - keep) * ((int64_t)run->prio + ((int64_t)1 << 31));
        if (!x->lazy)
            for (uint32_t e = s + (uint32_t)keep; e < run->end; e++) *entries++ = e;
    }
    if (!x->lazy) { /* the scores again from the entries: same values, plus the victim list */
        pc_view a = pc_arrays(c);
        finish_cached(x, c, &a, w->victims, nv, 0, out, rc, err);
        return true;
    }
    out->n_victims = nv; /* out->st: Success since kp__preempt_select_victims reset it */
    if (nv == 0) return true;
    /* node-choice scores (preempt.c kp__preempt_scores): the first victim in importance order
     * has the highest victim priority and the earliest start among those; its start key is read
     * only if the cascade gets that far (score4_at) */
    out->score[0] = 0;
    out->score[1] = -(int64_t)top;
    out->score[2] = -sum;
    out->score[3] = -(int64_t)nv;
    out->score4_at = &c->start[first_victim];
    out->has_scores = true;
    return true;
}

/* Arithmetic SelectVictimsOnNode on the cached sorted view (same conditions as select_arith).
 * Returns false when the caller must take the generic path (out of memory, or the node cannot
 * fit and its exact status is needed now). Static, in the file of its one caller, so that it
 * and select_runs are inlined into kp__preempt_select_victims: the dry run's per-node path is
 * one call with the work area in registers. */
static bool select_cached(kp_pctx *x, uint32_t node, kp_pwork *w, kp_pvict *out, kp_status *rc,
                          kp_error *err) {
    const kp_cluster *cl = x->cl;
    const kp_node *nd = &cl->nodes[node];
    *rc = KP_OK;
    const pc_node *c = pc_get(x, node, w->potential);
    if (!c) return false;
    bool pdbs = cl->n_pdbs > 0 || x->o->protect_pod >= 0;
    if (!pdbs && x->pre_req[KP_RES_EPH] <= 0 && c->n_runs <= PC_MAX_RUNS)
        return select_runs(x, node, c, w, out, rc, err);
    /* first pod of lower priority (entries sorted by priority, descending) and the node's use
     * without the pods from there on: from the header's levels, else from the block */
    uint32_t first;
    int64_t used[3];
    if (c->n_lv <= PC_MAX_LEVELS) {
        uint32_t l = 0;
        while (l < c->n_lv && c->lv_prio[l] >= x->prio) l++;
        first = l ? c->lv_end[l - 1] : 0;
        for (int k = 0; k < 3; k++) used[k] = c->lv_used[l][k];
    } else {
        pc_view b = pc_arrays(c);
        uint32_t lo = 0, hi = c->n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (b.prio[mid] < x->prio) hi = mid;
            else lo = mid + 1;
        }
        first = lo;
        for (int k = 0; k < 3; k++) used[k] = nd->requested[k] - b.suf[(size_t)first * 3 + k];
    }
    uint32_t n_pot = c->n - first;
    if (n_pot == 0) {
        kp__preempt_no_victims(out);
        return true;
    }
    uint32_t n_used = first;
    add_nominated(x, node, used, &n_used);
    const int64_t alloc3[3] = {c->alloc[0], c->alloc[1], c->alloc_eph};
    if (!fits3(x, alloc3, c->alloc[2], used, n_used)) return cannot_fit(x, nd, used, n_used, out);
    pc_view a = pc_arrays(c);
    /* reprieve: PDB-violating pods first, then the others, each in importance order. Only the
     * resources the preemptor requests can change the verdict. */
    int64_t avail[3];
    bool need[3];
    for (int k = 0; k < 3; k++) {
        need[k] = x->pre_req[k] > 0;
        avail[k] = nd->alloc[k] - used[k] - x->pre_req[k]; /* slack; reprieve needs req <= slack */
    }
    int64_t pod_slack = nd->alloc[KP_RES_PODS] - (int64_t)n_used - 1;
    uint32_t *victims = w->victims, nv = 0, n_viol_v = 0;
#define PC_TRY(i, on_victim)                                      \
    do {                                                          \
        uint32_t i_ = (i);                                        \
        bool ok_ = pod_slack >= 1;                                \
        for (int k = 0; k < 3 && ok_; k++)                        \
            if (need[k] && a.req[k][i_] > avail[k]) ok_ = false;  \
        if (ok_) {                                                \
            pod_slack--;                                          \
            for (int k = 0; k < 3; k++) avail[k] -= a.req[k][i_]; \
        } else {                                                  \
            victims[nv++] = i_;                                   \
            on_victim;                                            \
        }                                                         \
    } while (0)
    if (!pdbs) {
        for (uint32_t i = first; i < c->n; i++) PC_TRY(i, (void)0);
    } else {
        uint8_t *viol = (uint8_t *)w->saved; /* n_pot flags */
        uint32_t n_vc = 0;
        if (x->pdbix) kp__pdbix_reset(x->pdbix);
        for (uint32_t i = 0; i < n_pot; i++) {
            viol[i] = kp__preempt_pod_violates(x, a.pod[first + i]);
            n_vc += viol[i];
        }
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < n_pot; i++)
                if (viol[i] == (pass == 0)) PC_TRY(first + i, n_viol_v += pass == 0);
        if (n_vc > 0 && n_vc < n_pot && n_viol_v > 0 && n_viol_v < nv) {
            /* re-sort: importance order is entry order; merge the two ascending runs */
            uint32_t *tmp = w->nonviol, i = 0, j = n_viol_v, k = 0;
            while (i < n_viol_v && j < nv)
                tmp[k++] = victims[i] < victims[j] ? victims[i++] : victims[j++];
            while (i < n_viol_v) tmp[k++] = victims[i++];
            while (j < nv) tmp[k++] = victims[j++];
            memcpy(victims, tmp, nv * sizeof *victims);
        }
    }
#undef PC_TRY
    finish_cached(x, c, &a, victims, nv, (int32_t)n_viol_v, out, rc, err);
    return true;
}

/* mirrors DefaultPreemption.SelectVictimsOnNode: the cached arithmetic path when it applies,
 * else the reference / incremental / arithmetic paths of victims.c. */
kp_status kp__preempt_select_victims(kp_pctx *x, uint32_t node, const kp_node_status *filter_st,
                                     kp_pvict *out, kp_error *err) {
    const kp_node *nd = &x->cl->nodes[node];
    out->victims = NULL;
    out->n_victims = 0;
    out->n_viol = 0;
    out->deferred = false;
    out->has_scores = false;
    out->score4_at = NULL;
    kp__status_reset(&out->st);
    uint32_t cap = nd->n_pods ? nd->n_pods : 1;
    if (cap > x->scratch_cap) {
        uint32_t *ns = kp__realloc(x->scratch, (size_t)cap * 5 * sizeof *ns);
        if (!ns) return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        x->scratch = ns;
        x->scratch_cap = cap;
    }
    uint32_t sc = x->scratch_cap;
    kp_pwork w = {.potential = x->scratch,
                  .saved = x->scratch + sc,
                  .viol = x->scratch + 2 * sc,
                  .nonviol = x->scratch + 3 * sc,
                  .victims = x->scratch + 4 * sc};
    if (!x->o->reference && x->fast && x->cache && kp__preempt_failed_in_fit(x, node, filter_st) &&
        kp__volume_filters_steady(x->c, node) && kp__dra_filter_steady(x->c, node)) {
        kp_status crc;
        if (select_cached(x, node, &w, out, &crc, err)) return crc;
    }
    return kp__preempt_select_generic(x, node, filter_st, &w, out, err);
}
