/* InterPodAffinity: PreFilter state with AddPod/RemovePod, Filter, PreScore/Score/Normalize
 * (pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring}.go). Topology pairs are
 * (key id, value id) in pairmaps that delete entries reaching zero, as upstream's maps do. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/framework.h"
#include "sched/plugins/inter_pod_affinity.h"

const kp_labels *kp__ns_labels(const kp_sched *s, kp_str ns) {
    int64_t i = kp__pairmap_get(&s->ns_index, ns);
    return i > 0 ? &s->cl->namespaces[i - 1].labels : NULL;
}

/* mirrors AffinityTerm.Matches: (namespace listed || namespaceSelector matches the pod's
 * namespace labels) && selector matches the pod's labels. Namespaces default to the owner's. */
bool kp__term_matches(const kp_sched *s, const kp_pod_affinity_term *t, const kp_pod *owner,
                      const kp_pod *pod) {
    bool ns_ok = false;
    if (t->n_namespaces == 0 && !t->ns_selector.is_set) {
        ns_ok = pod->ns == owner->ns;
    } else {
        for (uint16_t i = 0; i < t->n_namespaces && !ns_ok; i++)
            ns_ok = t->namespaces[i] == pod->ns;
        if (!ns_ok && t->ns_selector.is_set) {
            const kp_labels *nl = kp__ns_labels(s, pod->ns);
            static const kp_labels empty = {0, NULL};
            ns_ok = kp__selector_matches(s->cl, &t->ns_selector, nl ? nl : &empty);
        }
    }
    if (!ns_ok) return false;
    /* metav1.LabelSelectorAsSelector: nil selector matches nothing, empty matches everything */
    return kp__selector_matches(s->cl, &t->selector, &pod->labels);
}

/* mirrors topologyToMatchedTermCount.update: only when the node has the topology label */
static void tp_update(kp_cycle *c, kp_pairmap *m, const kp_node *n, kp_str key, int64_t delta) {
    kp_str val;
    if (kp__labels_get(&n->labels, key, &val) &&
        kp__pairmap_add(m, kp__pair(key, val), delta) != KP_OK)
        c->st = KP_ENOMEM;
}

/* mirrors podMatchesAllAffinityTerms (false for no terms) */
static bool matches_all(const kp_sched *s, const kp_pod_affinity_term *terms, uint16_t n,
                        const kp_pod *owner, const kp_pod *pod) {
    if (n == 0) return false;
    for (uint16_t i = 0; i < n; i++)
        if (!kp__term_matches(s, &terms[i], owner, pod)) return false;
    return true;
}

static void existing_anti_update(kp_cycle *c, const kp_pod *existing, const kp_node *n,
                                 int64_t mult) {
    if (!kp__pod_has_required_anti(existing)) return;
    const kp_pod_affinity *a = existing->pod_anti_affinity;
    for (uint16_t t = 0; t < a->n_required; t++)
        if (kp__term_matches(c->s, &a->required[t], existing, c->p))
            tp_update(c, &c->existing_anti, n, a->required[t].topology_key, mult);
}

static void incoming_update(kp_cycle *c, const kp_pod *existing, const kp_node *n, int64_t mult) {
    const kp_pod *p = c->p;
    if (p->pod_affinity && p->pod_affinity->n_required &&
        matches_all(c->s, p->pod_affinity->required, p->pod_affinity->n_required, p, existing)) {
        for (uint16_t t = 0; t < p->pod_affinity->n_required; t++)
            tp_update(c, &c->aff_counts, n, p->pod_affinity->required[t].topology_key, mult);
    }
    if (kp__pod_has_required_anti(p)) {
        const kp_pod_affinity *a = p->pod_anti_affinity;
        for (uint16_t t = 0; t < a->n_required; t++)
            if (kp__term_matches(c->s, &a->required[t], p, existing))
                tp_update(c, &c->anti_counts, n, a->required[t].topology_key, mult);
    }
}

/* PreFilter over the pod index (podindex.h): existing pods' required anti-affinity from the list of
 * pods carrying it, the incoming pod's terms from the candidates of each term's selector /
 * namespaces. Same counts as the scan over every pod on every node (kp_sched.no_index). */
static kp_status ipa_prefilter_indexed(kp_cycle *c, bool has_aff, bool has_anti) {
    kp_sched *s = c->s;
    const kp_cluster *cl = s->cl;
    const kp_pod *p = c->p;
    /* nothing to count (no term of its own, no bound pod with required anti-affinity): the
     * PreFilter skips without the index, whose build costs every label of every pod */
    if (!has_aff && !has_anti && !s->n_anti_pods) return c->st;
    kp_status st = kp__podindex_ensure(&s->ix, cl);
    if (st != KP_OK) return st;
    if (s->n_anti_pods) {
        for (uint32_t i = 0; i < s->ix.n_anti; i++) {
            const kp_pod *e = &cl->pods[s->ix.anti_pods[i]];
            if (e->node >= 0) existing_anti_update(c, e, &cl->nodes[e->node], 1);
        }
    }
    kp_ix_plan plan;
    uint32_t q;
    if (has_aff) {
        /* a pod must match every term: the candidates of the most selective term suffice */
        const kp_pod_affinity *a = p->pod_affinity;
        kp_ix_plan best;
        memset(&best, 0, sizeof best);
        uint64_t best_n = UINT64_MAX;
        for (uint16_t t = 0; t < a->n_required; t++) {
            kp__podindex_plan_term(&s->ix, &a->required[t], p, &plan);
            uint64_t n = kp__podindex_plan_size(&plan, cl);
            if (n < best_n) {
                best = plan;
                best_n = n;
            }
        }
        kp_ix_iter it = {&best, cl->n_pods, 0, 0};
        while (kp__ix_next(&it, &q)) {
            const kp_pod *e = &cl->pods[q];
            if (e->node < 0 || !matches_all(s, a->required, a->n_required, p, e)) continue;
            const kp_node *n = &cl->nodes[e->node];
            for (uint16_t t = 0; t < a->n_required; t++)
                tp_update(c, &c->aff_counts, n, a->required[t].topology_key, 1);
        }
    }
    if (has_anti) {
        const kp_pod_affinity *a = p->pod_anti_affinity;
        for (uint16_t t = 0; t < a->n_required; t++) {
            kp__podindex_plan_term(&s->ix, &a->required[t], p, &plan);
            kp_ix_iter it = {&plan, cl->n_pods, 0, 0};
            while (kp__ix_next(&it, &q)) {
                const kp_pod *e = &cl->pods[q];
                if (e->node < 0 || !kp__term_matches(s, &a->required[t], p, e)) continue;
                tp_update(c, &c->anti_counts, &cl->nodes[e->node], a->required[t].topology_key, 1);
            }
        }
    }
    return c->st;
}

/* mirrors InterPodAffinity.PreFilter (Skip when nothing to check) */
kp_status kp__ipa_prefilter(kp_cycle *c) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    bool has_aff = p->pod_affinity && p->pod_affinity->n_required;
    bool has_anti = kp__pod_has_required_anti(p);
    if (!c->s->no_index) {
        kp_status st = ipa_prefilter_indexed(c, has_aff, has_anti);
        if (st != KP_OK) return st;
    } else {
        /* reference path: every pod on every node */
        if (c->s->n_anti_pods) {
            /* getExistingAntiAffinityCounts over the pods with affinity */
            for (uint32_t i = 0; i < c->s->n_aff_pods; i++) {
                const kp_pod *e = &cl->pods[c->s->aff_pods[i]];
                if (e->node >= 0) existing_anti_update(c, e, &cl->nodes[e->node], 1);
            }
        }
        if (has_aff || has_anti) {
            for (uint32_t ni = 0; ni < cl->n_nodes; ni++) {
                const kp_node *n = &cl->nodes[ni];
                for (uint32_t j = 0; j < n->n_pods; j++)
                    incoming_update(c, &cl->pods[n->pods[j]], n, 1);
            }
        }
    }
    c->ipa = c->existing_anti.live || has_aff || has_anti;
    return c->st;
}

/* mirrors preFilterState.updateWithPod (AddPod: +1, RemovePod: -1) */
void kp__ipa_update(kp_cycle *c, const kp_pod *added, const kp_node *n, int64_t mult) {
    existing_anti_update(c, added, n, mult);
    incoming_update(c, added, n, mult);
}

void kp__ipa_fini(kp_cycle *c) { (void)c; }

/* mirrors satisfyPodAffinity / satisfyPodAntiAffinity / satisfyExistingPodsAntiAffinity */
void kp__ipa_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_pod *p = c->p;
    if (p->pod_affinity && p->pod_affinity->n_required) {
        bool pods_exist = true, ok = true;
        for (uint16_t t = 0; t < p->pod_affinity->n_required && ok; t++) {
            kp_str key = p->pod_affinity->required[t].topology_key, val;
            if (!kp__labels_get(&n->labels, key, &val)) ok = false;
            else if (kp__pairmap_get(&c->aff_counts, kp__pair(key, val)) <= 0) pods_exist = false;
        }
        if (ok && !pods_exist) {
            /* the first pod of a series with affinity to itself */
            ok = c->aff_counts.live == 0 &&
                 matches_all(c->s, p->pod_affinity->required, p->pod_affinity->n_required, p, p);
        }
        if (!ok) {
            st->code = KP_CODE_UNRESOLVABLE;
            kp__status_add_reason(st, "node(s) didn't match pod affinity rules");
            return;
        }
    }
    if (kp__pod_has_required_anti(p) && c->anti_counts.live) {
        const kp_pod_affinity *a = p->pod_anti_affinity;
        for (uint16_t t = 0; t < a->n_required; t++) {
            kp_str key = a->required[t].topology_key, val;
            if (kp__labels_get(&n->labels, key, &val) &&
                kp__pairmap_get(&c->anti_counts, kp__pair(key, val)) > 0) {
                st->code = KP_CODE_UNSCHEDULABLE;
                kp__status_add_reason(st, "node(s) didn't match pod anti-affinity rules");
                return;
            }
        }
    }
    if (c->existing_anti.live) {
        for (uint32_t i = 0; i < n->labels.n; i++) {
            const kp_label *l = &n->labels.items[i];
            if (kp__pairmap_get(&c->existing_anti, kp__pair(l->key, l->val)) > 0) {
                st->code = KP_CODE_UNSCHEDULABLE;
                kp__status_add_reason(st,
                                      "node(s) didn't satisfy existing pods anti-affinity rules");
                return;
            }
        }
    }
}

/* ================================================================ scoring */

typedef struct {
    kp_pairmap m; /* (key, value) -> score */
    kp_str *keys; /* topology keys seen (grows) */
    uint32_t n_keys, cap_keys;
    kp_status st; /* KP_ENOMEM once an addition failed */
} topo_score;

static void ts_add(topo_score *ts, const kp_node *n, kp_str key, int64_t w) {
    kp_str val;
    if (!kp__labels_get(&n->labels, key, &val)) return;
    if (kp__pairmap_add(&ts->m, kp__pair(key, val), w) != KP_OK) ts->st = KP_ENOMEM;
    for (uint32_t i = 0; i < ts->n_keys; i++)
        if (ts->keys[i] == key) return;
    void *nk = ts->keys;
    if (!kp__grow32(&nk, &ts->cap_keys, (size_t)ts->n_keys + 1, sizeof *ts->keys, 8)) {
        ts->st = KP_ENOMEM;
        return;
    }
    ts->keys = nk;
    ts->keys[ts->n_keys++] = key;
}

/* processExistingPod, the incoming pod's preferred terms against existing */
static void process_incoming_terms(kp_sched *s, topo_score *ts, const kp_pod *existing,
                                   const kp_node *n, const kp_pod *p) {
    if (p->pod_affinity)
        for (uint16_t i = 0; i < p->pod_affinity->n_preferred; i++) {
            const kp_weighted_pat *w = &p->pod_affinity->preferred[i];
            if (kp__term_matches(s, &w->term, p, existing))
                ts_add(ts, n, w->term.topology_key, w->weight);
        }
    if (p->pod_anti_affinity)
        for (uint16_t i = 0; i < p->pod_anti_affinity->n_preferred; i++) {
            const kp_weighted_pat *w = &p->pod_anti_affinity->preferred[i];
            if (kp__term_matches(s, &w->term, p, existing))
                ts_add(ts, n, w->term.topology_key, -(int64_t)w->weight);
        }
}

/* processExistingPod, the existing pod's own terms against the incoming pod (only pods carrying
 * pod (anti-)affinity contribute) */
static void process_existing_terms(kp_sched *s, topo_score *ts, const kp_pod *existing,
                                   const kp_node *n, const kp_pod *p) {
    int32_t hard = s->cfg.hard_pod_affinity_weight;
    if (existing->pod_affinity) {
        if (hard > 0)
            for (uint16_t i = 0; i < existing->pod_affinity->n_required; i++) {
                const kp_pod_affinity_term *t = &existing->pod_affinity->required[i];
                if (kp__term_matches(s, t, existing, p)) ts_add(ts, n, t->topology_key, hard);
            }
        for (uint16_t i = 0; i < existing->pod_affinity->n_preferred; i++) {
            const kp_weighted_pat *w = &existing->pod_affinity->preferred[i];
            if (kp__term_matches(s, &w->term, existing, p))
                ts_add(ts, n, w->term.topology_key, w->weight);
        }
    }
    if (existing->pod_anti_affinity)
        for (uint16_t i = 0; i < existing->pod_anti_affinity->n_preferred; i++) {
            const kp_weighted_pat *w = &existing->pod_anti_affinity->preferred[i];
            if (kp__term_matches(s, &w->term, existing, p))
                ts_add(ts, n, w->term.topology_key, -(int64_t)w->weight);
        }
}

/* mirrors processExistingPod (nodes without labels contribute nothing) */
static void process_existing(kp_sched *s, topo_score *ts, const kp_pod *existing, const kp_node *n,
                             const kp_pod *p) {
    if (n->labels.n == 0) return;
    process_incoming_terms(s, ts, existing, n, p);
    process_existing_terms(s, ts, existing, n, p);
}

/* The incoming pod's preferred terms over the pod index: per term, its candidates (a pod can only
 * match a term it is a candidate of). Adds the same amounts as the scan of every pod, in another
 * order (sums commute). */
static void incoming_terms_indexed(kp_sched *s, topo_score *ts, const kp_pod *p) {
    const kp_cluster *cl = s->cl;
    for (int anti = 0; anti < 2; anti++) {
        const kp_pod_affinity *a = anti ? p->pod_anti_affinity : p->pod_affinity;
        for (uint16_t i = 0; a && i < a->n_preferred; i++) {
            const kp_weighted_pat *w = &a->preferred[i];
            kp_ix_plan plan;
            kp__podindex_plan_term(&s->ix, &w->term, p, &plan);
            kp_ix_iter it = {&plan, cl->n_pods, 0, 0};
            uint32_t q;
            while (kp__ix_next(&it, &q)) {
                const kp_pod *e = &cl->pods[q];
                if (e->node < 0 || !kp__term_matches(s, &w->term, p, e)) continue;
                ts_add(ts, &cl->nodes[e->node], w->term.topology_key,
                       anti ? -(int64_t)w->weight : w->weight);
            }
        }
    }
}

static int ts_fini(topo_score *ts, int ret) {
    kp__pairmap_fini(&ts->m);
    kp__free(ts->keys);
    return ts->st != KP_OK ? ts->st : ret;
}

/* mirrors InterPodAffinity PreScore + Score + NormalizeScore over the feasible nodes: 1 scored,
 * 0 Skip, KP_ENOMEM. */
int kp__ipa_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n_nodes,
                  int64_t *out) {
    const kp_cluster *cl = s->cl;
    bool has_constraints = (p->pod_affinity && p->pod_affinity->n_preferred) ||
                           (p->pod_anti_affinity && p->pod_anti_affinity->n_preferred);
    if (s->cfg.ignore_preferred_terms_of_existing_pods && !has_constraints) return 0;
    /* only pods with (anti-)affinity can contribute: skip the scan when there are none */
    if (!has_constraints && s->n_aff_pods == 0) return 0;
    topo_score ts;
    memset(&ts, 0, sizeof ts);
    kp__pairmap_init(&ts.m, true);
    bool indexed = has_constraints && !s->no_index && kp__podindex_ensure(&s->ix, cl) == KP_OK;
    if (has_constraints && !indexed) {
        /* reference path: every pod on every node */
        for (uint32_t ni = 0; ni < cl->n_nodes; ni++) {
            const kp_node *n = &cl->nodes[ni];
            for (uint32_t j = 0; j < n->n_pods; j++)
                process_existing(s, &ts, &cl->pods[n->pods[j]], n, p);
        }
    } else {
        if (indexed) incoming_terms_indexed(s, &ts, p);
        for (uint32_t i = 0; i < s->n_aff_pods; i++) {
            const kp_pod *e = &cl->pods[s->aff_pods[i]];
            if (e->node >= 0) process_existing_terms(s, &ts, e, &cl->nodes[e->node], p);
        }
    }
    if (ts.st != KP_OK || ts.m.live == 0) return ts_fini(&ts, 0);
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (uint32_t i = 0; i < n_nodes; i++) {
        const kp_node *n = &cl->nodes[nodes[i]];
        int64_t sc = 0;
        for (uint32_t k = 0; k < ts.n_keys; k++) {
            kp_str val;
            if (kp__labels_get(&n->labels, ts.keys[k], &val))
                sc += kp__pairmap_get(&ts.m, kp__pair(ts.keys[k], val));
        }
        out[i] = sc;
        if (sc > mx) mx = sc;
        if (sc < mn) mn = sc;
    }
    int64_t diff = mx - mn;
    for (uint32_t i = 0; i < n_nodes; i++) {
        double f = 0;
        if (diff > 0) f = (double)KP_MAX_NODE_SCORE * ((double)(out[i] - mn) / (double)diff);
        out[i] = (int64_t)f;
    }
    return ts_fini(&ts, 1);
}
