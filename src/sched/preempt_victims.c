/* Victim selection on one node (DefaultPreemption.SelectVictimsOnNode), the victim importance
 * order (MoreImportantVictim / MoreImportantPod) and PDB classification
 * (filterPodsWithPDBViolation).
 *
 * Three interchangeable implementations of SelectVictimsOnNode give identical decisions:
 *  - reference:   upstream step by step, naively: every Filter call starts from the untouched
 *                 node and removes the pods that step needs removed, then puts everything back
 *                 (O(victims^2) pod moves). Kept as an oracle for tests and the benchmark.
 *  - incremental: upstream's sequence of Filter calls (1 + |potential victims|) on the live node,
 *                 removing/adding one pod at a time through the cluster mutators and the cycle's
 *                 PreFilterExtensions, then restoring the node's exact pod order. No node copy.
 *  - arithmetic:  when the only pod-dependent filter that can change its verdict is
 *                 NodeResourcesFit (preemptor without pod (anti-)affinity, spread constraints or
 *                 host ports; no pod in the cluster carrying (anti-)affinity; the node failed in
 *                 NodeResourcesFit), each reprieve is a resource sum instead of a Filter call.
 *                 The first check ("fits with all lower-priority pods gone") that fails still
 *                 runs the real filter to get upstream's exact status text.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/preempt_int.h"

/* ---------------------------------------------------------------- importance order ---- */

int64_t kp__preempt_start_key(const kp_pctx *x, uint32_t pod) {
    int64_t t = x->cl->pods[pod].start_time;
    return t == KP_TIME_NONE ? x->now_key : t;
}

/* mirrors MoreImportantVictim (single pods: priority, start time, UID) and, with --compat 1.35,
 * util.MoreImportantPod (priority, start time; equal keys -> load order, a deterministic stand-in
 * for Go's unstable sort). */
bool kp__preempt_more_important(const kp_pctx *x, uint32_t a, uint32_t b) {
    const kp_pod *pa = &x->cl->pods[a], *pb = &x->cl->pods[b];
    if (pa->priority != pb->priority) return pa->priority > pb->priority;
    int64_t ta = kp__preempt_start_key(x, a), tb = kp__preempt_start_key(x, b);
    if (ta != tb) return ta < tb;
    if (x->o->compat == KP_PREEMPT_COMPAT_NEWEST && pa->uid != pb->uid) {
        int c = strcmp(kp__s(x->cl, pa->uid), kp__s(x->cl, pb->uid));
        if (c != 0) return c < 0;
    }
    return pa->src_index < pb->src_index;
}

static void merge_sort(const kp_pctx *x, uint32_t *a, uint32_t *tmp, uint32_t n) {
    if (n <= 12) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = a[i], j = i;
            while (j > 0 && kp__preempt_more_important(x, v, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint32_t h = n / 2;
    merge_sort(x, a, tmp, h);
    merge_sort(x, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = kp__preempt_more_important(x, a[j], a[i]) ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void kp__preempt_sort(const kp_pctx *x, uint32_t *pods, uint32_t n) {
    if (n <= 12) {
        merge_sort(x, pods, NULL, n);
        return;
    }
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) { /* fall back to insertion sort: same order, slower */
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = pods[i], j = i;
            while (j > 0 && kp__preempt_more_important(x, v, pods[j - 1])) {
                pods[j] = pods[j - 1];
                j--;
            }
            pods[j] = v;
        }
        return;
    }
    merge_sort(x, pods, tmp, n);
    free(tmp);
}

/* ---------------------------------------------------------------- PDB classification ---- */

static bool in_disrupted(const kp_pdb *pdb, kp_str name) {
    for (uint32_t i = 0; i < pdb->n_disrupted; i++)
        if (pdb->disrupted[i] == name) return true;
    return false;
}

/* One pod against every PDB, consuming budget (x->pdb_allowed). Newest: stop at the first PDB
 * whose budget goes negative; --compat 1.35: decrement every matching PDB. */
static bool pod_violates(kp_pctx *x, uint32_t pod) {
    const kp_cluster *cl = x->cl;
    const kp_pod *p = &cl->pods[pod];
    bool viol = false;
    if (p->labels.n > 0) { /* a pod without labels never matches a PDB */
        for (uint32_t k = 0; k < cl->n_pdbs; k++) {
            uint32_t i = x->pdb_order[k];
            const kp_pdb *pdb = &cl->pdbs[i];
            if (pdb->ns != p->ns) continue;
            const kp_label_selector *sel = &pdb->selector;
            if (!sel->is_set || (sel->match_labels.n == 0 && sel->n_exprs == 0)) continue;
            if (!kp__selector_matches(cl, sel, &p->labels)) continue;
            if (in_disrupted(pdb, p->name)) continue; /* already being evicted: no decrement */
            x->pdb_allowed[i]--;
            if (x->pdb_allowed[i] < 0) {
                viol = true;
                if (x->o->compat == KP_PREEMPT_COMPAT_NEWEST) break;
            }
        }
    }
    if ((int64_t)pod == (int64_t)x->o->protect_pod) viol = true; /* what-if PDB, allowed 0 */
    return viol;
}

void kp__preempt_classify_pdb(kp_pctx *x, const uint32_t *pods, uint32_t n, uint32_t *viol,
                              uint32_t *n_viol, uint32_t *nonviol, uint32_t *n_nonviol) {
    *n_viol = *n_nonviol = 0;
    if (x->cl->n_pdbs == 0 && x->o->protect_pod < 0) {
        memcpy(nonviol, pods, n * sizeof *pods);
        *n_nonviol = n;
        return;
    }
    for (uint32_t i = 0; i < x->cl->n_pdbs; i++)
        x->pdb_allowed[i] = x->cl->pdbs[i].has_status ? x->cl->pdbs[i].disruptions_allowed : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (pod_violates(x, pods[i]))
            viol[(*n_viol)++] = pods[i];
        else
            nonviol[(*n_nonviol)++] = pods[i];
    }
}

/* ---------------------------------------------------------------- node mutation ---- */

static void filter(kp_pctx *x, uint32_t node, kp_node_status *st) {
    x->o->filter_calls++;
    kp__cycle_filter(x->c, node, st);
}

static void take_out(kp_pctx *x, uint32_t node, uint32_t pod) {
    kp__node_remove_pod(x->cl, pod);
    kp__cycle_remove_pod(x->c, pod, node);
}

static kp_status put_back(kp_pctx *x, uint32_t node, uint32_t pod, kp_error *err) {
    kp_status rc = kp__node_add_pod(x->cl, node, pod);
    if (rc != KP_OK) return kp_error_set(err, rc, "preemption: cannot re-add pod to node");
    kp__cycle_add_pod(x->c, pod, node);
    return KP_OK;
}

/* Puts node->pods back into the saved order (same set of pods; only positions differ). */
static void restore_order(kp_cluster *cl, uint32_t node, const uint32_t *saved, uint32_t n) {
    kp_node *nd = &cl->nodes[node];
    if (n) memcpy(nd->pods, saved, n * sizeof *saved); /* a node without pods has no array */
    for (uint32_t i = 0; i < n; i++) cl->pods[saved[i]].pos_in_node = i;
}

/* ---------------------------------------------------------------- arithmetic fit ---- */

/* NodeResourcesFit.fitsRequest for the preemptor against `used[k]` (amount of the preemptor's
 * k-th requested resource already taken on the node) and `n_used` pods. */
static bool fits_arith(const kp_pctx *x, const kp_node *nd, const int64_t *used, uint32_t n_used) {
    const kp_pod *p = &x->cl->pods[x->pod];
    if ((int64_t)n_used + 1 > nd->alloc[KP_RES_PODS]) return false;
    for (uint16_t k = 0; k < p->req.n; k++) {
        int r = p->req.e[k].res;
        int64_t v = p->req.e[k].v;
        if (r == KP_RES_PODS) continue;
        int64_t avail = nd->alloc[r] - used[k];
        if (r < KP_RES_FIXED) {
            if (v > 0 && v > avail) return false;
        } else if (v > avail) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- SelectVictimsOnNode ---- */

typedef struct {
    uint32_t *potential, *saved, *viol, *nonviol, *victims;
    uint32_t n_potential, n_saved, n_viol, n_nonviol, n_victims;
    int32_t n_viol_victims;
} work;

/* Orders the chosen victims (upstream re-sorts only when both classes contributed). */
static void finish_victims(kp_pctx *x, work *w, bool both) {
    if (both) kp__preempt_sort(x, w->victims, w->n_victims);
}

/* Reference: each Filter call from the untouched node. */
static kp_status select_reference(kp_pctx *x, uint32_t node, work *w, kp_pvict *out,
                                  kp_error *err) {
    kp_status rc = KP_OK;
    /* step 1: all potential victims removed */
    for (uint32_t i = 0; i < w->n_potential; i++) take_out(x, node, w->potential[i]);
    filter(x, node, &out->st);
    for (uint32_t i = 0; i < w->n_potential && rc == KP_OK; i++)
        rc = put_back(x, node, w->potential[i], err);
    restore_order(x->cl, node, w->saved, w->n_saved);
    if (rc != KP_OK || out->st.code != KP_CODE_SUCCESS) return rc;

    /* naive selection sort by importance */
    for (uint32_t i = 0; i < w->n_potential; i++) {
        uint32_t best = i;
        for (uint32_t j = i + 1; j < w->n_potential; j++)
            if (kp__preempt_more_important(x, w->potential[j], w->potential[best])) best = j;
        uint32_t t = w->potential[i];
        w->potential[i] = w->potential[best];
        w->potential[best] = t;
    }
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    /* reprieve in order: violating, then non-violating. A pod is "kept" when reprieved. */
    uint32_t n_order = w->n_viol + w->n_nonviol;
    bool *kept = calloc(n_order ? n_order : 1, sizeof *kept);
    uint32_t *order = malloc((n_order ? n_order : 1) * sizeof *order);
    if (!kept || !order) {
        free(kept);
        free(order);
        return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    }
    memcpy(order, w->viol, w->n_viol * sizeof *order);
    memcpy(order + w->n_viol, w->nonviol, w->n_nonviol * sizeof *order);
    for (uint32_t i = 0; i < n_order && rc == KP_OK; i++) {
        /* state: everything back except the potential pods not yet reprieved, then pod i back */
        for (uint32_t j = 0; j < n_order; j++)
            if (j != i && !kept[j]) take_out(x, node, order[j]);
        kp_node_status st;
        filter(x, node, &st);
        for (uint32_t j = 0; j < n_order && rc == KP_OK; j++)
            if (j != i && !kept[j]) rc = put_back(x, node, order[j], err);
        restore_order(x->cl, node, w->saved, w->n_saved);
        if (st.code == KP_CODE_SUCCESS) {
            kept[i] = true;
        } else {
            w->victims[w->n_victims++] = order[i];
            if (i < w->n_viol) w->n_viol_victims++;
        }
    }
    free(kept);
    free(order);
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return rc;
}

/* Incremental: upstream's exact sequence of Filter calls on the live node. */
static kp_status select_incremental(kp_pctx *x, uint32_t node, work *w, kp_pvict *out,
                                    kp_error *err) {
    kp_status rc = KP_OK;
    for (uint32_t i = 0; i < w->n_potential; i++) take_out(x, node, w->potential[i]);
    filter(x, node, &out->st);
    if (out->st.code != KP_CODE_SUCCESS) {
        for (uint32_t i = 0; i < w->n_potential && rc == KP_OK; i++)
            rc = put_back(x, node, w->potential[i], err);
        restore_order(x->cl, node, w->saved, w->n_saved);
        return rc;
    }
    kp__preempt_sort(x, w->potential, w->n_potential);
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    for (int pass = 0; pass < 2 && rc == KP_OK; pass++) {
        const uint32_t *list = pass == 0 ? w->viol : w->nonviol;
        uint32_t n = pass == 0 ? w->n_viol : w->n_nonviol;
        for (uint32_t i = 0; i < n && rc == KP_OK; i++) {
            rc = put_back(x, node, list[i], err);
            if (rc != KP_OK) break;
            kp_node_status st;
            filter(x, node, &st);
            if (st.code != KP_CODE_SUCCESS) {
                take_out(x, node, list[i]);
                w->victims[w->n_victims++] = list[i];
                if (pass == 0) w->n_viol_victims++;
            }
        }
    }
    for (uint32_t i = 0; i < w->n_victims && rc == KP_OK; i++)
        rc = put_back(x, node, w->victims[i], err);
    restore_order(x->cl, node, w->saved, w->n_saved);
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return rc;
}

/* Arithmetic: NodeResourcesFit is the only verdict that can change (see file comment). */
static kp_status select_arith(kp_pctx *x, uint32_t node, work *w, kp_pvict *out,
                              kp_error *err) {
    const kp_cluster *cl = x->cl;
    const kp_node *nd = &cl->nodes[node];
    const kp_pod *pre = &cl->pods[x->pod];
    int64_t used[KP_MAX_RES];
    uint32_t n_used = nd->n_pods;
    for (uint16_t k = 0; k < pre->req.n; k++) used[k] = nd->requested[pre->req.e[k].res];
    /* pass 1 of RunFilterPluginsWithNominatedPods: nominated pods of >= priority count too; for
     * resources pass 1 failing is the only way the pair of passes can fail. */
    const uint32_t *nom = NULL;
    uint32_t n_nom = kp__sched_nominated_on(x->s, node, &nom);
    for (uint32_t i = 0; i < n_nom; i++) {
        const kp_pod *q = &cl->pods[nom[i]];
        if (nom[i] == x->pod || q->priority < x->prio) continue;
        n_used++;
        for (uint16_t k = 0; k < pre->req.n; k++) used[k] += kp__resv_get(&q->req, pre->req.e[k].res);
    }
    for (uint32_t i = 0; i < w->n_potential; i++) {
        const kp_pod *v = &cl->pods[w->potential[i]];
        n_used--;
        for (uint16_t k = 0; k < pre->req.n; k++) used[k] -= kp__resv_get(&v->req, pre->req.e[k].res);
    }
    if (!fits_arith(x, nd, used, n_used)) /* exact status text from the real filter */
        return select_incremental(x, node, w, out, err);
    kp__status_reset(&out->st);
    kp__preempt_sort(x, w->potential, w->n_potential);
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *list = pass == 0 ? w->viol : w->nonviol;
        uint32_t n = pass == 0 ? w->n_viol : w->n_nonviol;
        for (uint32_t i = 0; i < n; i++) {
            const kp_pod *v = &cl->pods[list[i]];
            int64_t v_req[KP_MAX_RES];
            for (uint16_t k = 0; k < pre->req.n; k++) {
                v_req[k] = kp__resv_get(&v->req, pre->req.e[k].res);
                used[k] += v_req[k];
            }
            if (fits_arith(x, nd, used, n_used + 1)) {
                n_used++;
                continue;
            }
            for (uint16_t k = 0; k < pre->req.n; k++) used[k] -= v_req[k];
            w->victims[w->n_victims++] = list[i];
            if (pass == 0) w->n_viol_victims++;
        }
    }
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return KP_OK;
}

/* ---------------------------------------------------------------- per-node cache ---- */

/* The arithmetic path's view of a node: its pods sorted most important first (the order
 * SelectVictimsOnNode sorts victims in) with their priority, start key and cpu / memory /
 * ephemeral-storage requests (struct of arrays, one block per node), plus suffix sums of the
 * requests. Because priority is the first key of the order, the lower-priority pods of any
 * preemptor are a suffix of this list starting at a priority-band boundary, and "fits with all
 * of them removed" is one subtraction from the band's suffix sum (kept inline in the header for
 * up to PC_BANDS bands, so a node that cannot fit costs one cache line).
 * Kept per scheduler across attempts; an entry is valid while the node's pod list (indices and
 * order) equals the one it was built from (the pod attributes read never change during a run)
 * and now_key / compat are unchanged. */
#define PC_BANDS 6

typedef struct {
    bool built;
    uint8_t n_bands;            /* distinct priorities, 0 = more than PC_BANDS (use prio[]) */
    uint32_t n, cap;
    int32_t band_prio[PC_BANDS]; /* descending */
    uint32_t band_start[PC_BANDS];
    int64_t band_suf[PC_BANDS][3]; /* requests of the pods from band_start on */
    void *block;                /* the arrays below, one allocation */
    uint32_t *pods;             /* node->pods when built (validation) */
    int32_t *prio;              /* sorted view, most important first */
    uint32_t *pod;
    int64_t *start;
    int64_t *req[3];            /* cpu, memory, ephemeral-storage */
    int64_t *suf;               /* suf[i*3+k] = sum of req[k][j] for j >= i; (n+1)*3 values */
} pc_node;

struct kp_pcache {
    uint32_t n_nodes;
    int64_t now_key;
    kp_preempt_compat compat;
    pc_node *nodes;
};

void kp__preempt_cache_free(void *cache) {
    struct kp_pcache *c = cache;
    if (!c) return;
    for (uint32_t i = 0; i < c->n_nodes; i++) free(c->nodes[i].block);
    free(c->nodes);
    free(c);
}

void kp__preempt_cache_begin(kp_pctx *x) {
    x->cache = NULL;
    if (!x->s) return;
    void **slot = kp__sched_preempt_cache(x->s);
    struct kp_pcache *c = *slot;
    if (c && c->n_nodes != x->cl->n_nodes) {
        kp__preempt_cache_free(c);
        c = *slot = NULL;
    }
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) return;
        c->nodes = calloc(x->cl->n_nodes ? x->cl->n_nodes : 1, sizeof *c->nodes);
        if (!c->nodes) {
            free(c);
            return;
        }
        c->n_nodes = x->cl->n_nodes;
        c->now_key = x->now_key;
        c->compat = x->o->compat;
        *slot = c;
    }
    if (c->now_key != x->now_key || c->compat != x->o->compat) {
        for (uint32_t i = 0; i < c->n_nodes; i++) c->nodes[i].built = false;
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

/* Prefetch hint for a node the dry run visits soon (memory-bound loop). far: header and node
 * only; near: also the arrays the victim selection reads. Never changes results. */
void kp__preempt_prefetch(const kp_pctx *x, uint32_t node, bool far) {
    if (!x->cache) return;
    const kp_node *nd = &x->cl->nodes[node];
    const pc_node *c = &x->cache->nodes[node];
    if (far) {
        PC_PREFETCH(c);
        PC_PREFETCH(&nd->n_pods);
        PC_PREFETCH(&nd->requested[0]);
        PC_PREFETCH(&nd->alloc[0]);
        return;
    }
    PC_PREFETCH(nd->pods);
    if (!c->built) return;
    const char *b = c->block, *e = (const char *)(c->prio + c->n);
    size_t n8 = (size_t)c->n * 8, stride = (size_t)c->cap * 8;
    /* pods, pod, prio (validation, victims) and start / cpu / memory (reprieve, scores) */
    for (const char *q = (const char *)c->pods; q < e; q += 64) PC_PREFETCH(q);
    for (size_t off = 0; off < n8; off += 64) {
        PC_PREFETCH(b + off);          /* start */
        PC_PREFETCH(b + stride + off);     /* cpu */
        PC_PREFETCH(b + 2 * stride + off); /* memory */
    }
}

/* The node's cache entry, (re)built if stale; NULL when out of memory. tmp: n_pods scratch. */
static const pc_node *pc_get(kp_pctx *x, uint32_t node, uint32_t *tmp) {
    pc_node *c = &x->cache->nodes[node];
    const kp_node *nd = &x->cl->nodes[node];
    uint32_t n = nd->n_pods;
    if (c->built && c->n == n && memcmp(c->pods, nd->pods, n * sizeof *nd->pods) == 0) return c;
    c->built = false;
    if (n > c->cap || !c->block) {
        uint32_t cap = n ? n : 1;
        /* 8-byte arrays first, then the 4-byte ones */
        size_t sz = (size_t)cap * 4 * sizeof(int64_t) + ((size_t)cap + 1) * 3 * sizeof(int64_t) +
                    (size_t)cap * 3 * sizeof(uint32_t);
        void *blk = malloc(sz);
        if (!blk) return NULL;
        free(c->block);
        c->block = blk;
        c->cap = cap;
        int64_t *q = blk;
        c->start = q;
        q += cap;
        for (int k = 0; k < 3; k++) {
            c->req[k] = q;
            q += cap;
        }
        c->suf = q;
        q += ((size_t)cap + 1) * 3;
        uint32_t *u = (uint32_t *)q;
        c->pods = u;
        c->pod = u + cap;
        c->prio = (int32_t *)(u + 2 * (size_t)cap);
    }
    if (n) {
        memcpy(c->pods, nd->pods, n * sizeof *nd->pods);
        memcpy(tmp, nd->pods, n * sizeof *nd->pods);
    }
    kp__preempt_sort(x, tmp, n);
    for (uint32_t i = 0; i < n; i++) {
        const kp_pod *q = &x->cl->pods[tmp[i]];
        c->prio[i] = q->priority;
        c->pod[i] = tmp[i];
        c->start[i] = kp__preempt_start_key(x, tmp[i]);
        for (int k = 0; k < 3; k++) c->req[k][i] = kp__resv_get(&q->req, k);
    }
    for (int k = 0; k < 3; k++) c->suf[(size_t)n * 3 + k] = 0;
    for (uint32_t i = n; i-- > 0;)
        for (int k = 0; k < 3; k++) c->suf[(size_t)i * 3 + k] = c->suf[(size_t)(i + 1) * 3 + k] + c->req[k][i];
    uint32_t nb = 0;
    bool over = false;
    for (uint32_t i = 0; i < n && !over; i++) {
        if (i > 0 && c->prio[i] == c->prio[i - 1]) continue;
        if (nb == PC_BANDS) {
            over = true;
            break;
        }
        c->band_prio[nb] = c->prio[i];
        c->band_start[nb] = i;
        for (int k = 0; k < 3; k++) c->band_suf[nb][k] = c->suf[(size_t)i * 3 + k];
        nb++;
    }
    c->n_bands = over ? 0 : (uint8_t)nb;
    c->n = n;
    c->built = true;
    return c;
}

/* fits_arith over the dense cpu / memory / ephemeral-storage vector. */
static inline bool fits3(const kp_pctx *x, const kp_node *nd, const int64_t *used, uint32_t n_used) {
    if ((int64_t)n_used + 1 > nd->alloc[KP_RES_PODS]) return false;
    for (int k = 0; k < 3; k++)
        if (x->pre_req[k] > 0 && x->pre_req[k] > nd->alloc[k] - used[k]) return false;
    return true;
}

/* Arithmetic SelectVictimsOnNode on the cached sorted view (same conditions as select_arith).
 * Returns false when the caller must take the generic path (out of memory, or the node cannot
 * fit and its exact status is needed now). */
static bool select_cached(kp_pctx *x, uint32_t node, work *w, kp_pvict *out, kp_status *rc,
                          kp_error *err) {
    const kp_cluster *cl = x->cl;
    const kp_node *nd = &cl->nodes[node];
    *rc = KP_OK;
    const pc_node *c = pc_get(x, node, w->potential);
    if (!c) return false;
    /* first pod of lower priority: a band boundary (entries sorted by priority, descending) */
    uint32_t first = c->n;
    int64_t used[3];
    if (c->n_bands > 0) {
        uint32_t b = 0;
        while (b < c->n_bands && c->band_prio[b] >= x->prio) b++;
        if (b < c->n_bands) {
            first = c->band_start[b];
            for (int k = 0; k < 3; k++) used[k] = nd->requested[k] - c->band_suf[b][k];
        }
    } else {
        uint32_t lo = 0, hi = c->n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (c->prio[mid] < x->prio) hi = mid;
            else lo = mid + 1;
        }
        first = lo;
        for (int k = 0; k < 3; k++) used[k] = nd->requested[k] - c->suf[(size_t)first * 3 + k];
    }
    uint32_t n_pot = c->n - first;
    if (n_pot == 0) {
        out->st.code = KP_CODE_UNRESOLVABLE;
        out->st.plugin = "DefaultPreemption";
        kp__status_add_reason(&out->st, "No preemption victims found for incoming pod");
        return true;
    }
    uint32_t n_used = c->n - n_pot;
    /* pass 1 of RunFilterPluginsWithNominatedPods (see select_arith) */
    const uint32_t *nom = NULL;
    uint32_t n_nom = kp__sched_nominated_on(x->s, node, &nom);
    for (uint32_t i = 0; i < n_nom; i++) {
        const kp_pod *q = &cl->pods[nom[i]];
        if (nom[i] == x->pod || q->priority < x->prio) continue;
        n_used++;
        for (int k = 0; k < 3; k++) used[k] += kp__resv_get(&q->req, k);
    }
    if (!fits3(x, nd, used, n_used)) {
        if (!x->defer) return false; /* the generic path runs the real filter for the text */
        out->st.code = KP_CODE_UNSCHEDULABLE;
        out->st.plugin = "NodeResourcesFit";
        out->deferred = true;
        return true;
    }
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
    bool pdbs = cl->n_pdbs > 0 || x->o->protect_pod >= 0;
#define PC_TRY(i, on_victim)                                                                  \
    do {                                                                                      \
        uint32_t i_ = (i);                                                                    \
        bool ok_ = pod_slack >= 1;                                                            \
        for (int k = 0; k < 3 && ok_; k++)                                                    \
            if (need[k] && c->req[k][i_] > avail[k]) ok_ = false;                             \
        if (ok_) {                                                                            \
            pod_slack--;                                                                      \
            for (int k = 0; k < 3; k++) avail[k] -= c->req[k][i_];                            \
        } else {                                                                              \
            victims[nv++] = i_;                                                               \
            on_victim;                                                                        \
        }                                                                                     \
    } while (0)
    if (!pdbs) {
        for (uint32_t i = first; i < c->n; i++) PC_TRY(i, (void)0);
    } else {
        uint8_t *viol = (uint8_t *)w->saved; /* n_pot flags */
        uint32_t n_vc = 0;
        for (uint32_t i = 0; i < cl->n_pdbs; i++)
            x->pdb_allowed[i] = cl->pdbs[i].has_status ? cl->pdbs[i].disruptions_allowed : 0;
        for (uint32_t i = 0; i < n_pot; i++) {
            viol[i] = pod_violates(x, c->pod[first + i]);
            n_vc += viol[i];
        }
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < n_pot; i++)
                if (viol[i] == (pass == 0)) PC_TRY(first + i, n_viol_v += pass == 0);
        if (n_vc > 0 && n_vc < n_pot && n_viol_v > 0 && n_viol_v < nv) {
            /* re-sort: importance order is entry order; merge the two ascending runs */
            uint32_t *tmp = w->nonviol, a = 0, b = n_viol_v, k = 0;
            while (a < n_viol_v && b < nv) tmp[k++] = victims[a] < victims[b] ? victims[a++] : victims[b++];
            while (a < n_viol_v) tmp[k++] = victims[a++];
            while (b < nv) tmp[k++] = victims[b++];
            memcpy(victims, tmp, nv * sizeof *victims);
        }
    }
#undef PC_TRY
    kp__status_reset(&out->st);
    out->n_viol = (int32_t)n_viol_v;
    out->n_victims = nv;
    if (nv == 0) return true;
    out->victims = malloc(nv * sizeof *out->victims);
    if (!out->victims) {
        *rc = kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        return true;
    }
    /* node-choice scores (preempt.c kp__preempt_scores), from the cached keys */
    int64_t sum = 0, best = c->start[victims[0]];
    int32_t maxp = c->prio[victims[0]];
    for (uint32_t i = 0; i < nv; i++) {
        uint32_t e = victims[i];
        out->victims[i] = c->pod[e];
        sum += (int64_t)c->prio[e] + ((int64_t)1 << 31);
        if (c->prio[e] == maxp) {
            if (c->start[e] < best) best = c->start[e];
        } else if (c->prio[e] > maxp) {
            maxp = c->prio[e];
            best = c->start[e];
        }
    }
    out->score[0] = -(int64_t)n_viol_v;
    out->score[1] = -(int64_t)c->prio[victims[0]];
    out->score[2] = -sum;
    out->score[3] = -(int64_t)nv;
    out->score[4] = best;
    out->has_scores = true;
    return true;
}

static bool node_failed_in_fit(const kp_node_status *st) {
    return st && st->plugin && strcmp(st->plugin, "NodeResourcesFit") == 0;
}

/* mirrors DefaultPreemption.SelectVictimsOnNode */
kp_status kp__preempt_select_victims(kp_pctx *x, uint32_t node, const kp_node_status *filter_st,
                                     kp_pvict *out, kp_error *err) {
    kp_cluster *cl = x->cl;
    kp_node *nd = &cl->nodes[node];
    out->victims = NULL;
    out->n_victims = 0;
    out->n_viol = 0;
    out->deferred = false;
    out->has_scores = false;
    kp__status_reset(&out->st);
    uint32_t cap = nd->n_pods ? nd->n_pods : 1;
    if (cap > x->scratch_cap) {
        uint32_t *ns = realloc(x->scratch, (size_t)cap * 5 * sizeof *ns);
        if (!ns) return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        x->scratch = ns;
        x->scratch_cap = cap;
    }
    uint32_t sc = x->scratch_cap;
    work w = {.potential = x->scratch, .saved = x->scratch + sc, .viol = x->scratch + 2 * sc,
              .nonviol = x->scratch + 3 * sc, .victims = x->scratch + 4 * sc};
    if (!x->o->reference && x->fast && x->cache && node_failed_in_fit(filter_st)) {
        kp_status crc;
        if (select_cached(x, node, &w, out, &crc, err)) return crc;
    }
    w.n_saved = nd->n_pods;
    if (nd->n_pods) memcpy(w.saved, nd->pods, nd->n_pods * sizeof *nd->pods);
    for (uint32_t i = 0; i < nd->n_pods; i++)
        if (cl->pods[nd->pods[i]].priority < x->prio) w.potential[w.n_potential++] = nd->pods[i];
    if (w.n_potential == 0) {
        out->st.code = KP_CODE_UNRESOLVABLE;
        out->st.plugin = "DefaultPreemption";
        kp__status_add_reason(&out->st, "No preemption victims found for incoming pod");
        return KP_OK;
    }
    kp_status rc;
    if (x->o->reference)
        rc = select_reference(x, node, &w, out, err);
    else if (x->fast && node_failed_in_fit(filter_st))
        rc = select_arith(x, node, &w, out, err);
    else
        rc = select_incremental(x, node, &w, out, err);
    if (rc != KP_OK || out->st.code != KP_CODE_SUCCESS) return rc;
    out->n_viol = w.n_viol_victims;
    out->n_victims = w.n_victims;
    if (w.n_victims) {
        out->victims = malloc(w.n_victims * sizeof *out->victims);
        if (!out->victims) return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        memcpy(out->victims, w.victims, w.n_victims * sizeof *out->victims);
    }
    return KP_OK;
}
