/* Label selector and node selector matching (mirrors apimachinery labels.Selector and
 * component-helpers nodeaffinity). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"

static bool parse_i64(const char *s, int64_t *out) {
    if (!*s) return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || errno) return false;
    *out = v;
    return true;
}

bool kp__selreq_matches(const kp_cluster *cl, const kp_selreq *r, const kp_labels *l) {
    kp_str v = 0;
    bool has = kp__labels_get(l, r->key, &v);
    switch (r->op) {
    case KP_OP_IN:
        if (!has) return false;
        for (uint16_t i = 0; i < r->n_values; i++)
            if (r->values[i] == v) return true;
        return false;
    case KP_OP_NOTIN:
        if (!has) return true;
        for (uint16_t i = 0; i < r->n_values; i++)
            if (r->values[i] == v) return false;
        return true;
    case KP_OP_EXISTS: return has;
    case KP_OP_DOESNOTEXIST: return !has;
    case KP_OP_GT:
    case KP_OP_LT: {
        /* labels.Requirement.Matches: both sides must parse as integers */
        int64_t lv, rv;
        if (!has || r->n_values != 1) return false;
        if (!parse_i64(kp__s(cl, v), &lv) || !parse_i64(kp__s(cl, r->values[0]), &rv)) return false;
        return r->op == KP_OP_GT ? lv > rv : lv < rv;
    }
    }
    return false;
}

bool kp__selector_matches(const kp_cluster *cl, const kp_label_selector *sel, const kp_labels *l) {
    if (!sel->is_set) return false;
    for (uint32_t i = 0; i < sel->match_labels.n; i++) {
        kp_str v;
        if (!kp__labels_get(l, sel->match_labels.items[i].key, &v) ||
            v != sel->match_labels.items[i].val)
            return false;
    }
    for (uint16_t i = 0; i < sel->n_exprs; i++)
        if (!kp__selreq_matches(cl, &sel->exprs[i], l)) return false;
    return true;
}

bool kp__nsterm_matches(const kp_cluster *cl, const kp_nsterm *t, const kp_node *n) {
    /* An empty term (no expressions, no fields) matches no objects. */
    if (t->n_exprs == 0 && t->n_fields == 0) return false;
    for (uint16_t i = 0; i < t->n_exprs; i++)
        if (!kp__selreq_matches(cl, &t->exprs[i], &n->labels)) return false;
    for (uint16_t i = 0; i < t->n_fields; i++) {
        const kp_selreq *r = &t->fields[i];
        bool in = false;
        for (uint16_t k = 0; k < r->n_values; k++)
            if (r->values[k] == n->name) in = true;
        if (r->op == KP_OP_IN && !in) return false;
        if (r->op == KP_OP_NOTIN && in) return false;
        if (r->op != KP_OP_IN && r->op != KP_OP_NOTIN) return false;
    }
    return true;
}

bool kp__pod_matches_node_selector_and_affinity(const kp_cluster *cl, const kp_pod *p,
                                                const kp_node *n) {
    for (uint32_t i = 0; i < p->node_selector.n; i++) {
        kp_str v;
        if (!kp__labels_get(&n->labels, p->node_selector.items[i].key, &v) ||
            v != p->node_selector.items[i].val)
            return false;
    }
    const kp_node_affinity *a = p->node_affinity;
    if (!a || !a->has_required) return true;
    for (uint16_t i = 0; i < a->n_required; i++)
        if (kp__nsterm_matches(cl, &a->required[i], n)) return true;
    return false;
}
