/* Pod index for the inter-pod PreFilters (see podindex.h). */
#include "sched/podindex.h"
#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/selector.h"

#include <stdlib.h>
#include <string.h>

void kp__podindex_fini(kp_podindex *ix) {
    kp__pairmap_fini(&ix->ns_map);
    kp__pairmap_fini(&ix->lbl_map);
    kp__free(ix->ns_off);
    kp__free(ix->ns_pods);
    kp__free(ix->lbl_off);
    kp__free(ix->lbl_pods);
    kp__free(ix->anti_pods);
    kp__pairmap_fini(&ix->t_ns_map);
    kp__pairmap_fini(&ix->t_lbl_map);
    for (uint32_t i = 0; i < ix->n_t_lists; i++) kp__free(ix->t_lists[i].v);
    kp__free(ix->t_lists);
    memset(ix, 0, sizeof *ix);
}

/* The label value kp__labels_get reports for key is this item's (guards duplicate keys). */
static bool label_indexed(const kp_labels *l, uint32_t i) {
    kp_str v;
    if (!kp__labels_get(l, l->items[i].key, &v) || v != l->items[i].val) return false;
    for (uint32_t k = 0; k < i; k++)
        if (l->items[k].key == l->items[i].key && l->items[k].val == l->items[i].val) return false;
    return true;
}

/* Assigns list numbers (map value = number + 1) and counts members; *n_lists grows. */
static kp_status count_into(kp_pairmap *m, uint64_t key, uint32_t **cnt, uint32_t *n_lists,
                            uint32_t *cap) {
    int64_t k = kp__pairmap_get(m, key);
    if (k == 0) {
        if (!kp__grow32((void **)cnt, cap, (size_t)*n_lists + 1, sizeof **cnt, 256))
            return KP_ENOMEM;
        (*cnt)[*n_lists] = 0;
        k = ++*n_lists;
        if (kp__pairmap_add(m, key, k) != KP_OK) return KP_ENOMEM;
    }
    (*cnt)[k - 1]++;
    return KP_OK;
}

/* counts -> CSR offsets (n_lists + 1 entries); cnt becomes the fill cursor */
static uint32_t *offsets(uint32_t *cnt, uint32_t n_lists) {
    uint32_t *off = kp__malloc(((size_t)n_lists + 1) * sizeof *off);
    if (!off) return NULL;
    off[0] = 0;
    for (uint32_t k = 0; k < n_lists; k++) {
        off[k + 1] = off[k] + cnt[k];
        cnt[k] = off[k];
    }
    return off;
}

static kp_status build(kp_podindex *ix, const kp_cluster *cl) {
    uint32_t *ns_cnt = NULL, *lbl_cnt = NULL, n_ns = 0, n_lbl = 0, ns_cap = 0, lbl_cap = 0;
    kp_status st = KP_OK;
    kp__pairmap_init(&ix->ns_map, true);
    kp__pairmap_init(&ix->lbl_map, true);
    ix->n_anti = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if ((st = count_into(&ix->ns_map, p->ns, &ns_cnt, &n_ns, &ns_cap)) != KP_OK) goto out;
        for (uint32_t j = 0; j < p->labels.n; j++) {
            if (!label_indexed(&p->labels, j)) continue;
            const kp_label *l = &p->labels.items[j];
            if ((st = count_into(&ix->lbl_map, kp__pair(l->key, l->val), &lbl_cnt, &n_lbl,
                                 &lbl_cap)) != KP_OK)
                goto out;
        }
        if (p->pod_anti_affinity && p->pod_anti_affinity->n_required) ix->n_anti++;
    }
    ix->ns_off = offsets(ns_cnt ? ns_cnt : (ns_cnt = kp__calloc(1, sizeof *ns_cnt)), n_ns);
    ix->lbl_off = offsets(lbl_cnt ? lbl_cnt : (lbl_cnt = kp__calloc(1, sizeof *lbl_cnt)), n_lbl);
    ix->ns_pods =
        kp__malloc(((size_t)(ix->ns_off ? ix->ns_off[n_ns] : 0) + 1) * sizeof *ix->ns_pods);
    ix->lbl_pods =
        kp__malloc(((size_t)(ix->lbl_off ? ix->lbl_off[n_lbl] : 0) + 1) * sizeof *ix->lbl_pods);
    ix->anti_pods = kp__malloc(((size_t)ix->n_anti + 1) * sizeof *ix->anti_pods);
    if (!ix->ns_off || !ix->lbl_off || !ix->ns_pods || !ix->lbl_pods || !ix->anti_pods) {
        st = KP_ENOMEM;
        goto out;
    }
    ix->n_anti = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        int64_t k = kp__pairmap_get(&ix->ns_map, p->ns);
        ix->ns_pods[ns_cnt[k - 1]++] = i;
        for (uint32_t j = 0; j < p->labels.n; j++) {
            if (!label_indexed(&p->labels, j)) continue;
            const kp_label *l = &p->labels.items[j];
            k = kp__pairmap_get(&ix->lbl_map, kp__pair(l->key, l->val));
            ix->lbl_pods[lbl_cnt[k - 1]++] = i;
        }
        if (p->pod_anti_affinity && p->pod_anti_affinity->n_required)
            ix->anti_pods[ix->n_anti++] = i;
    }
    ix->n_pods = ix->n_built = cl->n_pods;
    ix->cap_anti = ix->n_anti + 1;
    kp__pairmap_init(&ix->t_ns_map, true);
    kp__pairmap_init(&ix->t_lbl_map, true);
    ix->built = true;
out:
    kp__free(ns_cnt);
    kp__free(lbl_cnt);
    return st;
}

/* Appends pod to the tail list of key (made on first use). */
static kp_status tail_add(kp_podindex *ix, kp_pairmap *m, uint64_t key, uint32_t pod) {
    int64_t k = kp__pairmap_get(m, key);
    if (k == 0) {
        if (!kp__grow32((void **)&ix->t_lists, &ix->cap_t_lists, (size_t)ix->n_t_lists + 1,
                        sizeof *ix->t_lists, 64))
            return KP_ENOMEM;
        memset(&ix->t_lists[ix->n_t_lists], 0, sizeof *ix->t_lists);
        k = ++ix->n_t_lists;
        if (kp__pairmap_add(m, key, k) != KP_OK) return KP_ENOMEM;
    }
    kp_ix_vec *v = &ix->t_lists[k - 1];
    if (!kp__grow32((void **)&v->v, &v->cap, (size_t)v->n + 1, sizeof *v->v, 8)) return KP_ENOMEM;
    v->v[v->n++] = pod;
    return KP_OK;
}

/* The pods added since the index was built or last grown join the tail. */
static kp_status grow(kp_podindex *ix, const kp_cluster *cl) {
    for (uint32_t i = ix->n_pods; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        kp_status st = tail_add(ix, &ix->t_ns_map, p->ns, i);
        for (uint32_t j = 0; j < p->labels.n && st == KP_OK; j++) {
            if (!label_indexed(&p->labels, j)) continue;
            const kp_label *l = &p->labels.items[j];
            st = tail_add(ix, &ix->t_lbl_map, kp__pair(l->key, l->val), i);
        }
        if (st == KP_OK && p->pod_anti_affinity && p->pod_anti_affinity->n_required) {
            if (!kp__grow32((void **)&ix->anti_pods, &ix->cap_anti, (size_t)ix->n_anti + 1,
                            sizeof *ix->anti_pods, 8))
                st = KP_ENOMEM;
            else ix->anti_pods[ix->n_anti++] = i;
        }
        if (st != KP_OK) return st;
        ix->n_pods = i + 1;
    }
    return KP_OK;
}

kp_status kp__podindex_ensure(kp_podindex *ix, const kp_cluster *cl) {
    if (ix->built && ix->n_pods == cl->n_pods) return KP_OK;
    /* a few added pods: the tail; many (amortised: each pod is rebuilt O(1) times): rebuild */
    if (ix->built && cl->n_pods > ix->n_pods && cl->n_pods - ix->n_built <= ix->n_built / 4 + 64) {
        kp_status st = grow(ix, cl);
        if (st != KP_OK) kp__podindex_fini(ix);
        return st;
    }
    kp__podindex_fini(ix);
    kp_status st = build(ix, cl);
    if (st != KP_OK) kp__podindex_fini(ix);
    return st;
}

static uint32_t csr_list_of(const kp_pairmap *m, const uint32_t *off, const uint32_t *pods,
                            uint64_t key, const uint32_t **out) {
    int64_t k = kp__pairmap_get(m, key);
    if (k == 0) {
        *out = NULL;
        return 0;
    }
    *out = pods + off[k - 1];
    return off[k] - off[k - 1];
}

/* candidate option: union of lists for distinct values */
typedef struct {
    uint32_t n_lists;
    const uint32_t *pods[2 * KP_IX_MAX_LISTS];
    uint32_t n[2 * KP_IX_MAX_LISTS];
    uint64_t total;
} option;

static void consider(kp_ix_plan *best, uint64_t *best_total, const option *o) {
    if (!best->all && *best_total <= o->total) return;
    best->all = false;
    best->n_lists = o->n_lists;
    for (uint32_t i = 0; i < o->n_lists; i++) {
        best->pods[i] = o->pods[i];
        best->n[i] = o->n[i];
    }
    *best_total = o->total;
}

static bool seen(const kp_str *v, uint16_t i) {
    for (uint16_t k = 0; k < i; k++)
        if (v[k] == v[i]) return true;
    return false;
}

static void add_list(option *o, uint32_t n, const uint32_t *pods) {
    if (n == 0) return;
    o->pods[o->n_lists] = pods;
    o->n[o->n_lists++] = n;
    o->total += n;
}

/* The pods of one key: its built list and its tail list. lbl: a label pair, else a namespace. */
static void add_key(const kp_podindex *ix, option *o, bool lbl, uint64_t key) {
    const uint32_t *pods;
    uint32_t n = lbl ? csr_list_of(&ix->lbl_map, ix->lbl_off, ix->lbl_pods, key, &pods)
                     : csr_list_of(&ix->ns_map, ix->ns_off, ix->ns_pods, key, &pods);
    add_list(o, n, pods);
    if (ix->n_t_lists == 0) return;
    int64_t k = kp__pairmap_get(lbl ? &ix->t_lbl_map : &ix->t_ns_map, key);
    if (k > 0) add_list(o, ix->t_lists[k - 1].n, ix->t_lists[k - 1].v);
}

void kp__podindex_plan(const kp_podindex *ix, const kp_label_selector *sel, const kp_label *extra,
                       uint16_t n_extra, const kp_str *ns, uint16_t n_ns, kp_ix_plan *out) {
    memset(out, 0, sizeof *out);
    if (!sel->is_set) return; /* nil selector: matches nothing */
    out->all = true;
    uint64_t best = UINT64_MAX;
    option o;
    for (uint32_t i = 0; i < sel->match_labels.n; i++) {
        memset(&o, 0, sizeof o);
        const kp_label *l = &sel->match_labels.items[i];
        add_key(ix, &o, true, kp__pair(l->key, l->val));
        consider(out, &best, &o);
    }
    for (uint16_t i = 0; i < n_extra; i++) {
        memset(&o, 0, sizeof o);
        add_key(ix, &o, true, kp__pair(extra[i].key, extra[i].val));
        consider(out, &best, &o);
    }
    for (uint16_t i = 0; i < sel->n_exprs; i++) {
        const kp_selreq *r = &sel->exprs[i];
        if (r->op != KP_OP_IN || r->n_values > KP_IX_MAX_LISTS) continue;
        memset(&o, 0, sizeof o);
        for (uint16_t v = 0; v < r->n_values; v++) {
            if (seen(r->values, v)) continue;
            add_key(ix, &o, true, kp__pair(r->key, r->values[v]));
        }
        consider(out, &best, &o);
    }
    if (n_ns > 0 && n_ns <= KP_IX_MAX_LISTS) {
        memset(&o, 0, sizeof o);
        for (uint16_t v = 0; v < n_ns; v++) {
            if (seen(ns, v)) continue;
            add_key(ix, &o, false, ns[v]);
        }
        consider(out, &best, &o);
    }
}

void kp__podindex_plan_term(const kp_podindex *ix, const kp_pod_affinity_term *t,
                            const kp_pod *owner, kp_ix_plan *out) {
    if (t->n_namespaces == 0 && !t->ns_selector.is_set)
        kp__podindex_plan(ix, &t->selector, NULL, 0, &owner->ns, 1, out);
    else if (!t->ns_selector.is_set)
        kp__podindex_plan(ix, &t->selector, NULL, 0, t->namespaces, t->n_namespaces, out);
    else kp__podindex_plan(ix, &t->selector, NULL, 0, NULL, 0, out); /* any namespace may match */
}

uint64_t kp__podindex_plan_size(const kp_ix_plan *p, const kp_cluster *cl) {
    if (p->all) return cl->n_pods;
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->n_lists; i++) n += p->n[i];
    return n;
}
