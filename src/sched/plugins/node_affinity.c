/* NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/plugins/helper.h"
#include "sched/plugins/node_affinity.h"

void kp__filter_node_affinity(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (kp__pod_matches_node_selector_and_affinity(c->s->cl, c->p, n)) return;
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) didn't match Pod's node affinity/selector");
}

static bool sreq_is_name_in(const kp_cluster *cl, const kp_selreq *r) {
    return r->op == KP_OP_IN && strcmp(kp__s(cl, r->key), "metadata.name") == 0;
}

static bool req_has_value(const kp_selreq *r, kp_str v) {
    for (uint16_t w = 0; w < r->n_values; w++)
        if (r->values[w] == v) return true;
    return false;
}

/* mirrors NodeAffinity.PreFilter: terms whose matchFields pin metadata.name In (...) narrow the
 * node set (PreFilterResult: union over terms of the intersection within a term); disjoint pins
 * make the pod unschedulable ("pod affinity terms conflict"). Names that are not nodes are
 * dropped later, as findNodesThatFitPod does. */
kp_status kp__prefilter_node_affinity(kp_cycle *c, kp_node_status *pre) {
    const kp_pod *p = c->p;
    if (!p->node_affinity || !p->node_affinity->has_required) return KP_OK;
    kp_cluster *cl = c->s->cl;
    const kp_node_affinity *na = p->node_affinity;
    /* first pass: does every term pin names? (else every node is allowed) */
    for (uint16_t t = 0; t < na->n_required; t++) {
        const kp_nsterm *term = &na->required[t];
        bool has_names = false;
        for (uint16_t f = 0; f < term->n_fields && !has_names; f++)
            has_names = sreq_is_name_in(cl, &term->fields[f]);
        if (!has_names) return KP_OK;
    }
    uint8_t *set = kp__calloc(cl->n_nodes + 1, 1);
    if (!set) return KP_ENOMEM;
    uint32_t n_names = 0;
    for (uint16_t t = 0; t < na->n_required; t++) {
        const kp_nsterm *term = &na->required[t];
        const kp_selreq *first = NULL;
        for (uint16_t f = 0; f < term->n_fields && !first; f++)
            if (sreq_is_name_in(cl, &term->fields[f])) first = &term->fields[f];
        for (uint16_t v = 0; v < first->n_values; v++) {
            kp_str name = first->values[v];
            bool in_all = true;
            for (uint16_t f = 0; f < term->n_fields && in_all; f++)
                if (sreq_is_name_in(cl, &term->fields[f]))
                    in_all = req_has_value(&term->fields[f], name);
            if (!in_all) continue;
            n_names++;
            long nd = kp_cluster_find_node(cl, kp__s(cl, name));
            if (nd >= 0) set[nd] = 1;
        }
    }
    if (n_names == 0) {
        kp__free(set);
        pre->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(pre, "pod affinity terms conflict");
        return KP_OK;
    }
    c->allowed = set;
    return KP_OK;
}

/* ---- NodeAffinity: sum of matching preferred term weights ---- */
static int64_t node_affinity_score(const kp_cluster *cl, const kp_pod *p, const kp_node *n) {
    int64_t sc = 0;
    const kp_node_affinity *na = p->node_affinity;
    for (uint16_t i = 0; i < na->n_preferred; i++) {
        if (na->preferred[i].weight == 0) continue;
        if (kp__nsterm_matches(cl, &na->preferred[i].term, n)) sc += na->preferred[i].weight;
    }
    return sc;
}

/* mirrors NodeAffinity.PreScore/Score/NormalizeScore; false = PreScore Skip (no preferred terms) */
bool kp__node_affinity_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out) {
    const kp_cluster *cl = s->cl;
    if (!p->node_affinity || p->node_affinity->n_preferred == 0) return false;
    for (uint32_t i = 0; i < n; i++) out[i] = node_affinity_score(cl, p, &cl->nodes[nodes[i]]);
    kp__default_normalize_score(out, n, false);
    return true;
}
