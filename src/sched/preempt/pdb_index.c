/* The PDB index of preemption: filterPodsWithPDBViolation (release-1.37) without the scan of
 * every PDB for every victim.
 *
 * Upstream checks each victim against every PDB of the cluster: same namespace, a selector that
 * is neither nil nor empty and matches the pod's labels (a pod without labels matches none), the
 * pod not in the PDB's status.disruptedPods; then the PDB's budget goes down by one and the pod
 * violates when it goes negative (1.36+: the pod's check stops there). The budgets start from the
 * PDBs' status for every node. kprio consults the PDBs in namespace/name order (upstream: the
 * informer's list order, which Go does not fix; docs/preemption.md "Determinism").
 *
 * The index gives the same answers:
 *  - the PDBs are sorted once (namespace, then name: unique, so the order does not depend on the
 *    input order);
 *  - each PDB with matchLabels is filed under one of its (namespace, key, value) pairs, the one
 *    fewest PDBs share (a pod it selects carries that label, so a pod finds it by looking up its
 *    own labels); a PDB with only matchExpressions is filed under its namespace alone; nil and
 *    empty selectors select nothing and are not filed (release-1.37 skips selector.Empty(): the
 *    policy/v1 "empty selects all" reading came with 1.38, kubernetes#141785);
 *  - a pod's list (the PDBs that select it, in namespace/name order, minus those listing it in
 *    disruptedPods) is made on its first check, by the real selector match on the candidates its
 *    labels find, and kept for the scheduler's life;
 *  - budgets carry a generation stamp: a node's start is one increment, and a budget is read from
 *    the PDB's status until the node first touches it. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/preempt/pdb_index.h"

/* A PDB filed under (ns, key, val); key = val = 0 for a matchExpressions-only PDB. */
typedef struct {
    kp_str ns, key, val;
    uint32_t rank; /* the PDB's position in namespace/name order */
} pdbix_key;

struct kp_pdbix {
    uint32_t n_pdbs, n_pods;
    uint64_t status_gen; /* cl->gen_pdb_status that init was read at */
    uint32_t *order; /* PDB indices in namespace/name order */
    int32_t *init; /* status.disruptionsAllowed per rank (0 without a status) */
    int32_t *allowed; /* budget per rank, valid when stamp[rank] == gen */
    uint32_t *stamp, gen;
    pdbix_key *keys; /* sorted by (ns, key, val, rank) */
    uint32_t n_keys;
    /* per pod: its list pool[start .. start + n) of ranks, ascending; start UINT32_MAX = not made
     */
    uint32_t *pod_start, *pod_n;
    uint32_t *pool;
    uint32_t n_pool, cap_pool;
};

static int cmp_str(const kp_cluster *cl, kp_str a, kp_str b) {
    return a == b ? 0 : strcmp(kp__s(cl, a), kp__s(cl, b));
}

static int cmp_pdb(const kp_cluster *cl, uint32_t a, uint32_t b) {
    const kp_pdb *pa = &cl->pdbs[a], *pb = &cl->pdbs[b];
    int c = cmp_str(cl, pa->ns, pb->ns);
    return c ? c : cmp_str(cl, pa->name, pb->name);
}

/* Stable merge sort of PDB indices by namespace/name (n log n: thousands of PDBs). */
static void sort_pdbs(const kp_cluster *cl, uint32_t *a, uint32_t *tmp, uint32_t n) {
    if (n < 2) return;
    uint32_t h = n / 2;
    sort_pdbs(cl, a, tmp, h);
    sort_pdbs(cl, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = cmp_pdb(cl, a[j], a[i]) < 0 ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static int cmp_key(const void *pa, const void *pb) {
    const pdbix_key *a = pa, *b = pb;
    if (a->ns != b->ns) return a->ns < b->ns ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->val != b->val) return a->val < b->val ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* First entry >= (ns, key, val) in the sorted keys. */
static uint32_t key_lower(const kp_pdbix *ix, kp_str ns, kp_str key, kp_str val) {
    uint32_t lo = 0, hi = ix->n_keys;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const pdbix_key *k = &ix->keys[mid];
        bool less = k->ns != ns ? k->ns < ns : k->key != key ? k->key < key : k->val < val;
        if (less) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool selects_nothing(const kp_label_selector *sel) {
    return !sel->is_set || (sel->match_labels.n == 0 && sel->n_exprs == 0);
}

/* How many PDBs have (ns, key, val) among their matchLabels (all pairs sorted in `all`). */
static uint32_t pair_count(const pdbix_key *all, uint32_t n, kp_str ns, kp_str key, kp_str val) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const pdbix_key *k = &all[mid];
        bool less = k->ns != ns ? k->ns < ns : k->key != key ? k->key < key : k->val < val;
        if (less) lo = mid + 1;
        else hi = mid;
    }
    uint32_t c = 0;
    while (lo + c < n && all[lo + c].ns == ns && all[lo + c].key == key && all[lo + c].val == val)
        c++;
    return c;
}

/* Files every PDB that can select something under its rarest matchLabels pair (or its namespace
 * alone). */
static bool build_keys(kp_pdbix *ix, const kp_cluster *cl) {
    size_t n_pairs = 0;
    for (uint32_t i = 0; i < cl->n_pdbs; i++) n_pairs += cl->pdbs[i].selector.match_labels.n;
    pdbix_key *all = kp__malloc((n_pairs ? n_pairs : 1) * sizeof *all);
    ix->keys = kp__malloc((cl->n_pdbs ? cl->n_pdbs : 1) * sizeof *ix->keys);
    if (!all || !ix->keys) {
        kp__free(all);
        return false;
    }
    size_t k = 0;
    for (uint32_t r = 0; r < cl->n_pdbs; r++) {
        const kp_pdb *b = &cl->pdbs[ix->order[r]];
        for (uint32_t j = 0; j < b->selector.match_labels.n; j++) {
            const kp_label *l = &b->selector.match_labels.items[j];
            all[k++] = (pdbix_key){b->ns, l->key, l->val, r};
        }
    }
    qsort(all, n_pairs, sizeof *all, cmp_key);
    for (uint32_t r = 0; r < cl->n_pdbs; r++) {
        const kp_pdb *b = &cl->pdbs[ix->order[r]];
        const kp_label_selector *sel = &b->selector;
        if (selects_nothing(sel)) continue;
        pdbix_key e = {b->ns, 0, 0, r};
        uint32_t best = UINT32_MAX;
        for (uint32_t j = 0; j < sel->match_labels.n; j++) {
            const kp_label *l = &sel->match_labels.items[j];
            uint32_t c = pair_count(all, (uint32_t)n_pairs, b->ns, l->key, l->val);
            if (c < best) {
                best = c;
                e.key = l->key;
                e.val = l->val;
            }
        }
        ix->keys[ix->n_keys++] = e;
    }
    kp__free(all);
    qsort(ix->keys, ix->n_keys, sizeof *ix->keys, cmp_key);
    return true;
}

/* status.disruptionsAllowed (0 without a status); a deleted PDB protects nothing, also in the
 * pods' lists made before its deletion */
static int32_t initial_budget(const kp_pdb *b) {
    if (b->deleted) return INT32_MAX;
    return b->has_status ? b->disruptions_allowed : 0;
}

kp_pdbix *kp__pdbix_new(const kp_cluster *cl) {
    kp_pdbix *ix = kp__calloc(1, sizeof *ix);
    if (!ix) return NULL;
    uint32_t np = cl->n_pdbs ? cl->n_pdbs : 1, nq = cl->n_pods ? cl->n_pods : 1;
    ix->status_gen = cl->gen_pdb_status;
    ix->n_pdbs = cl->n_pdbs;
    ix->n_pods = cl->n_pods;
    ix->order = kp__malloc(np * sizeof *ix->order);
    uint32_t *tmp = kp__malloc(np * sizeof *tmp);
    ix->init = kp__malloc(np * sizeof *ix->init);
    ix->allowed = kp__malloc(np * sizeof *ix->allowed);
    ix->stamp = kp__calloc(np, sizeof *ix->stamp);
    ix->pod_start = kp__malloc(nq * sizeof *ix->pod_start);
    ix->pod_n = kp__malloc(nq * sizeof *ix->pod_n);
    if (!ix->order || !tmp || !ix->init || !ix->allowed || !ix->stamp || !ix->pod_start ||
        !ix->pod_n) {
        kp__free(tmp);
        kp__pdbix_free(ix);
        return NULL;
    }
    for (uint32_t i = 0; i < cl->n_pdbs; i++) ix->order[i] = i;
    sort_pdbs(cl, ix->order, tmp, cl->n_pdbs);
    kp__free(tmp);
    for (uint32_t r = 0; r < cl->n_pdbs; r++) {
        const kp_pdb *b = &cl->pdbs[ix->order[r]];
        ix->init[r] = initial_budget(b);
    }
    memset(ix->pod_start, 0xff, nq * sizeof *ix->pod_start);
    ix->gen = 1;
    if (!build_keys(ix, cl)) {
        kp__pdbix_free(ix);
        return NULL;
    }
    return ix;
}

void kp__pdbix_free(kp_pdbix *ix) {
    if (!ix) return;
    kp__free(ix->order);
    kp__free(ix->init);
    kp__free(ix->allowed);
    kp__free(ix->stamp);
    kp__free(ix->keys);
    kp__free(ix->pod_start);
    kp__free(ix->pod_n);
    kp__free(ix->pool);
    kp__free(ix);
}

bool kp__pdbix_fits(const kp_pdbix *ix, const kp_cluster *cl) {
    return ix && ix->n_pdbs == cl->n_pdbs && ix->n_pods == cl->n_pods;
}

void kp__pdbix_refresh(kp_pdbix *ix, const kp_cluster *cl) {
    if (ix->status_gen == cl->gen_pdb_status) return;
    for (uint32_t r = 0; r < ix->n_pdbs; r++) {
        const kp_pdb *b = &cl->pdbs[ix->order[r]];
        ix->init[r] = initial_budget(b);
    }
    ix->status_gen = cl->gen_pdb_status;
    kp__pdbix_reset(ix); /* budgets copied from the old values are stale */
}

void kp__pdbix_reset(kp_pdbix *ix) {
    if (++ix->gen == 0) { /* wrapped: every stamp is stale again */
        memset(ix->stamp, 0, (ix->n_pdbs ? ix->n_pdbs : 1) * sizeof *ix->stamp);
        ix->gen = 1;
    }
}

static bool in_disrupted(const kp_pdb *pdb, kp_str name) {
    for (uint32_t i = 0; i < pdb->n_disrupted; i++)
        if (pdb->disrupted[i] == name) return true;
    return false;
}

/* The full test of one filed PDB (by rank) against the pod. */
static bool selects(const kp_pdbix *ix, const kp_cluster *cl, const kp_pod *p, uint32_t rank) {
    const kp_pdb *b = &cl->pdbs[ix->order[rank]];
    return !b->deleted && kp__selector_matches(cl, &b->selector, &p->labels) &&
           !in_disrupted(b, p->name);
}

bool kp__pdbix_selects(const kp_cluster *cl, uint32_t pdb, uint32_t pod) {
    const kp_pdb *b = &cl->pdbs[pdb];
    const kp_pod *p = &cl->pods[pod];
    return p->labels.n > 0 && b->ns == p->ns && !selects_nothing(&b->selector) && !b->deleted &&
           kp__selector_matches(cl, &b->selector, &p->labels) && !in_disrupted(b, p->name);
}

int32_t kp__pdbix_status_allowed(const kp_cluster *cl, uint32_t pdb, bool *has_status) {
    const kp_pdb *b = &cl->pdbs[pdb];
    *has_status = b->has_status;
    return b->has_status ? b->disruptions_allowed : 0;
}

/* Appends the ranks of the keys [i, ...) filed under (ns, key, val) that select the pod. */
static bool collect(kp_pdbix *ix, const kp_cluster *cl, const kp_pod *p, kp_str key, kp_str val) {
    for (uint32_t i = key_lower(ix, p->ns, key, val); i < ix->n_keys; i++) {
        const pdbix_key *k = &ix->keys[i];
        if (k->ns != p->ns || k->key != key || k->val != val) break;
        if (!selects(ix, cl, p, k->rank)) continue;
        if (!kp__grow32((void **)&ix->pool, &ix->cap_pool, (size_t)ix->n_pool + 1, sizeof *ix->pool,
                        64))
            return false;
        ix->pool[ix->n_pool++] = k->rank;
    }
    return true;
}

/* Makes the pod's list (false: out of memory, nothing kept). */
static bool make_list(kp_pdbix *ix, const kp_cluster *cl, uint32_t pod) {
    const kp_pod *p = &cl->pods[pod];
    uint32_t start = ix->n_pool;
    bool ok = true;
    if (p->labels.n > 0) { /* a pod without labels never matches a PDB */
        ok = collect(ix, cl, p, 0, 0);
        for (uint32_t i = 0; ok && i < p->labels.n; i++) {
            const kp_label *lb = &p->labels.items[i];
            if (lb->key || lb->val) ok = collect(ix, cl, p, lb->key, lb->val); /* (0, 0): done */
        }
    }
    if (!ok) {
        ix->n_pool = start;
        return false;
    }
    uint32_t n = ix->n_pool - start;
    uint32_t *l = n ? ix->pool + start : NULL; /* the pool may still be NULL: no NULL + 0 */
    for (uint32_t i = 1; i < n; i++) { /* each PDB is filed once: no duplicates */
        uint32_t v = l[i], j = i;
        for (; j > 0 && l[j - 1] > v; j--) l[j] = l[j - 1];
        l[j] = v;
    }
    ix->pod_start[pod] = start;
    ix->pod_n[pod] = n;
    return true;
}

/* One PDB's budget (by rank), as of this node. */
static inline int32_t *budget(kp_pdbix *ix, uint32_t rank) {
    if (ix->stamp[rank] != ix->gen) {
        ix->stamp[rank] = ix->gen;
        ix->allowed[rank] = ix->init[rank];
    }
    return &ix->allowed[rank];
}

bool kp__pdbix_pod_violates(kp_pdbix *ix, const kp_cluster *cl, uint32_t pod, bool newest,
                            uint64_t *checks) {
    bool viol = false;
    if (ix->pod_start[pod] == UINT32_MAX && !make_list(ix, cl, pod)) {
        /* out of memory for the list: the same loop over every PDB (same answer, slower) */
        const kp_pod *p = &cl->pods[pod];
        if (p->labels.n == 0) return false;
        for (uint32_t r = 0; r < ix->n_pdbs; r++) {
            const kp_pdb *b = &cl->pdbs[ix->order[r]];
            ++*checks;
            if (b->ns != p->ns || selects_nothing(&b->selector) || !selects(ix, cl, p, r)) continue;
            int32_t *a = budget(ix, r);
            if (--*a < 0) {
                viol = true;
                if (newest) break;
            }
        }
        return viol;
    }
    uint32_t n = ix->pod_n[pod];
    const uint32_t *l = n ? ix->pool + ix->pod_start[pod] : NULL;
    for (uint32_t i = 0; i < n; i++) {
        ++*checks;
        int32_t *a = budget(ix, l[i]);
        if (--*a < 0) {
            viol = true;
            if (newest) break;
        }
    }
    return viol;
}
