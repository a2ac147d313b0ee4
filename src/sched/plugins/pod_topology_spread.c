/* PodTopologySpread: PreFilter state (per-constraint domain counts + criticalPaths) with
 * AddPod/RemovePod, Filter, PreScore/Score/Normalize
 * (pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring}.go).
 *
 * A pod without constraints of its own is spread by the default constraints
 * (PodTopologySpreadArgs: defaultingType System — hostname maxSkew 3, zone maxSkew 5,
 * ScheduleAnyway — or List) with helper.DefaultSelector built from the Services /
 * ReplicationControllers / ReplicaSets / StatefulSets selecting it (pod_topology_spread_default.c);
 * an empty DefaultSelector means no default constraint applies (buildDefaultConstraints).
 *
 * Matching pods per node come from the pod index (podindex.h): the candidates of the constraint's
 * selector are counted into a per-node array instead of scanning every pod of every node;
 * kp_sched.no_index selects the scan (reference path for the cross-check tests). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"
#include "core/taints.h"
#include "sched/framework.h"
#include "sched/plugins/pod_topology_spread.h"
#include "sched/plugins/pod_topology_spread_default.h"
#include "sched/status.h"

#define MAX_INT32 2147483647

/* selector incl. matchLabelKeys requirements, against labels */
static bool sel_matches(const kp_cluster *cl, const kp_spread_c *c, const kp_labels *l) {
    for (uint16_t i = 0; i < c->n_extra; i++) {
        kp_str v;
        if (!kp__labels_get(l, c->extra[i].key, &v) || v != c->extra[i].val) return false;
    }
    return kp__selector_matches(cl, c->sel, l);
}

bool kp__spread_selector_matches(const kp_cluster *cl, const kp_spread_c *c, const kp_labels *l) {
    return sel_matches(cl, c, l);
}

/* labels.Selector.Empty(): a selector with no requirements */
static bool sel_empty(const kp_spread_c *c) {
    return c->sel->is_set && c->sel->match_labels.n == 0 && c->sel->n_exprs == 0 && c->n_extra == 0;
}

/* mirrors countPodsMatchSelector: skips terminating pods and other namespaces */
static int64_t count_matching(const kp_cluster *cl, const kp_spread_c *c, const kp_node *n,
                              kp_str ns) {
    if (sel_empty(c)) return 0;
    int64_t cnt = 0;
    for (uint32_t i = 0; i < n->n_pods; i++) {
        const kp_pod *q = &cl->pods[n->pods[i]];
        if (q->deletion_ts != KP_TIME_NONE || q->ns != ns) continue;
        if (sel_matches(cl, c, &q->labels)) cnt++;
    }
    return cnt;
}

/* mirrors topologySpreadConstraint.matchNodeInclusionPolicies */
bool kp__spread_node_included(const kp_cluster *cl, const kp_pod *p, kp_inclusion_policy aff,
                              kp_inclusion_policy taint, const kp_node *n) {
    if (aff == KP_POLICY_HONOR && !kp__pod_matches_node_selector_and_affinity(cl, p, n))
        return false;
    if (taint == KP_POLICY_HONOR) {
        for (uint16_t i = 0; i < n->n_taints; i++) {
            const kp_taint *t = &n->taints[i];
            if ((t->effect == KP_EFFECT_NOSCHEDULE || t->effect == KP_EFFECT_NOEXECUTE) &&
                !kp__tolerations_tolerate(p, t))
                return false;
        }
    }
    return true;
}

static bool node_has_all_keys(const kp_spread_c *cs, uint16_t n, const kp_node *node) {
    for (uint16_t i = 0; i < n; i++) {
        kp_str v;
        if (!kp__labels_get(&node->labels, cs[i].key, &v)) return false;
    }
    return true;
}

/* mirrors filterTopologySpreadConstraints (the pod's own constraints with action `when`) or, for a
 * pod without constraints, buildDefaultConstraints (the default ones with the DefaultSelector). */
kp_status kp__spread_constraints(kp_sched *s, const kp_pod *p, kp_when_unsat when,
                                 kp_spread_c **out, uint16_t *n_out) {
    const kp_cluster *cl = s->cl;
    const kp_spread *src = p->spread;
    uint16_t n_src = p->n_spread, n = 0;
    const kp_label_selector *dsel = NULL;
    *out = NULL;
    *n_out = 0;
    if (n_src == 0) n_src = kp__spread_defaults_get(s, &src);
    for (uint16_t i = 0; i < n_src; i++) n += src[i].when == when;
    if (n == 0) return KP_OK;
    if (p->n_spread == 0) {
        kp_status st = kp__default_selector(s, (uint32_t)(p - cl->pods), &dsel);
        if (st != KP_OK || !dsel) return st; /* selector.Empty(): no default constraint */
    }
    size_t n_keys =
        0; /* matchLabelKeys of the selected constraints (default ones have none used) */
    for (uint16_t i = 0; !dsel && i < n_src; i++)
        if (src[i].when == when) n_keys += src[i].n_match_label_keys;
    kp_spread_c *cs = kp__calloc(1, n * sizeof *cs + n_keys * sizeof(kp_label));
    if (!cs) return KP_ENOMEM;
    kp_label *keys = (kp_label *)(cs + n);
    n = 0;
    for (uint16_t i = 0; i < n_src; i++) {
        const kp_spread *sp = &src[i];
        if (sp->when != when) continue;
        kp_spread_c *c = &cs[n++];
        c->key = sp->topology_key;
        c->max_skew = sp->max_skew;
        c->has_min_domains = sp->has_min_domains;
        c->min_domains = sp->has_min_domains ? sp->min_domains : 1;
        c->aff_policy = sp->has_node_affinity_policy ? sp->node_affinity_policy : KP_POLICY_HONOR;
        c->taint_policy = sp->has_node_taints_policy ? sp->node_taints_policy : KP_POLICY_IGNORE;
        /* default constraints: the DefaultSelector replaces the selector built with matchLabelKeys
         */
        c->sel = dsel ? dsel : &sp->selector;
        c->extra = keys;
        for (uint16_t k = 0; !dsel && k < sp->n_match_label_keys; k++) {
            kp_str v;
            if (kp__labels_get(&p->labels, sp->match_label_keys[k], &v)) {
                c->extra[c->n_extra].key = sp->match_label_keys[k];
                c->extra[c->n_extra].val = v;
                c->n_extra++;
            }
        }
        keys += c->n_extra;
        c->self_match = sel_matches(cl, c, &p->labels);
        kp__pairmap_init(&c->counts, true);
    }
    *out = cs;
    *n_out = n;
    return KP_OK;
}

/* Matching pods per node for constraint sc (countPodsMatchSelector on every node) into cnt[]
 * (zero on entry); node_counts_clear zeroes it again. */
static kp_status node_counts(kp_sched *s, const kp_spread_c *sc, kp_str ns, uint32_t *cnt) {
    const kp_cluster *cl = s->cl;
    if (s->no_index) {
        for (uint32_t ni = 0; ni < cl->n_nodes; ni++)
            cnt[ni] = (uint32_t)count_matching(cl, sc, &cl->nodes[ni], ns);
        return KP_OK;
    }
    kp_status st = kp__podindex_ensure(&s->ix, cl);
    if (st != KP_OK) return st;
    kp_ix_plan plan;
    memset(&plan, 0, sizeof plan); /* empty selector: count_matching is 0 everywhere */
    if (!sel_empty(sc)) kp__podindex_plan(&s->ix, sc->sel, sc->extra, sc->n_extra, &ns, 1, &plan);
    /* the candidates' node, namespace and labels from the compact array (hot.h): the pod records
     * are not read */
    const kp_hot_pod *hot = kp__sched_hot_ensure(s);
    if (!hot) return KP_ENOMEM;
    kp_ix_iter it = {&plan, cl->n_pods, 0, 0};
    uint32_t q;
    while (kp__ix_next(&it, &q)) {
        const kp_hot_pod *e = &hot[q];
        if (e->node < 0 || e->ns != ns) continue; /* not on a node, terminating, other namespace */
        kp_labels l = {e->n_labels, (kp_label *)e->labels};
        if (sel_matches(cl, sc, &l)) cnt[e->node]++;
    }
    return KP_OK;
}

static void node_counts_clear(kp_sched *s, const kp_spread_c *sc, kp_str ns, uint32_t *cnt) {
    const kp_cluster *cl = s->cl;
    if (s->no_index || sel_empty(sc)) {
        if (s->no_index) memset(cnt, 0, cl->n_nodes * sizeof *cnt);
        return;
    }
    /* the same candidates again (cheaper than clearing every node) */
    kp_ix_plan plan;
    kp__podindex_plan(&s->ix, sc->sel, sc->extra, sc->n_extra, &ns, 1, &plan);
    /* the nodes node_counts counted on (kp__sched_hot_ensure succeeded there) */
    const kp_hot_pod *hot = s->hot;
    kp_ix_iter it = {&plan, cl->n_pods, 0, 0};
    uint32_t q;
    while (kp__ix_next(&it, &q))
        if (hot[q].node >= 0) cnt[hot[q].node] = 0;
}

static uint32_t *count_scratch(kp_sched *s) {
    if (!s->ix_count) s->ix_count = kp__calloc(s->cl->n_nodes + 1, sizeof *s->ix_count);
    return s->ix_count;
}

/* mirrors criticalPaths.update */
static void paths_update(kp_spread_c *c, kp_str val, int64_t num) {
    int i = -1;
    if (c->paths[0].val == val) i = 0;
    else if (c->paths[1].val == val) i = 1;
    if (i >= 0) {
        c->paths[i].num = num;
        if (c->paths[0].num > c->paths[1].num) {
            kp_str tv = c->paths[0].val;
            int64_t tn = c->paths[0].num;
            c->paths[0] = c->paths[1];
            c->paths[1].val = tv;
            c->paths[1].num = tn;
        }
    } else if (num < c->paths[0].num) {
        c->paths[1] = c->paths[0];
        c->paths[0].val = val;
        c->paths[0].num = num;
    } else if (num < c->paths[1].num) {
        c->paths[1].val = val;
        c->paths[1].num = num;
    }
}

/* mirrors PodTopologySpread.PreFilter / calPreFilterState (hard constraints only) */
kp_status kp__spread_prefilter(kp_cycle *c) {
    kp_sched *s = c->s;
    const kp_cluster *cl = s->cl;
    const kp_pod *p = c->p;
    bool any_deleted = cl->n_nodes_deleted > 0; /* deleted nodes are no domain */
    kp_status st = kp__spread_constraints(s, p, KP_WHEN_DONOTSCHEDULE, &c->spread, &c->n_spread);
    if (st != KP_OK || !c->n_spread) return st; /* no constraint: Skip */
    uint32_t *cnt = count_scratch(s);
    if (!cnt) return KP_ENOMEM;
    for (uint16_t i = 0; i < c->n_spread && st == KP_OK; i++) {
        kp_spread_c *sc = &c->spread[i];
        if ((st = node_counts(s, sc, p->ns, cnt)) != KP_OK) break;
        for (uint32_t ni = 0; ni < cl->n_nodes && st == KP_OK; ni++) {
            const kp_node *n = &cl->nodes[ni];
            if ((any_deleted && n->deleted) || !node_has_all_keys(c->spread, c->n_spread, n))
                continue;
            if (!kp__spread_node_included(cl, p, sc->aff_policy, sc->taint_policy, n)) continue;
            kp_str v;
            kp__labels_get(&n->labels, sc->key, &v);
            st = kp__pairmap_add(&sc->counts, v, cnt[ni]);
        }
        node_counts_clear(s, sc, p->ns, cnt);
    }
    if (st != KP_OK) return st;
    for (uint16_t i = 0; i < c->n_spread; i++) {
        kp_spread_c *sc = &c->spread[i];
        sc->paths[0].val = sc->paths[1].val = UINT32_MAX;
        sc->paths[0].num = sc->paths[1].num = MAX_INT32;
        for (uint32_t k = 0; k < sc->counts.cap; k++) {
            uint64_t key;
            int64_t val;
            if (kp__pairmap_slot(&sc->counts, k, &key, &val)) paths_update(sc, (kp_str)key, val);
        }
    }
    return KP_OK;
}

/* mirrors preFilterState.updateWithPod */
void kp__spread_update(kp_cycle *c, const kp_pod *q, const kp_node *n, int64_t delta) {
    const kp_cluster *cl = c->s->cl;
    if (q->ns != c->p->ns) return;
    if (!node_has_all_keys(c->spread, c->n_spread, n)) return;
    for (uint16_t i = 0; i < c->n_spread; i++) {
        kp_spread_c *sc = &c->spread[i];
        if (!sel_matches(cl, sc, &q->labels)) continue;
        if (!kp__spread_node_included(cl, c->p, sc->aff_policy, sc->taint_policy, n)) continue;
        kp_str v;
        kp__labels_get(&n->labels, sc->key, &v);
        if (kp__pairmap_add(&sc->counts, v, delta) != KP_OK) {
            c->st = KP_ENOMEM;
            return;
        }
        paths_update(sc, v, kp__pairmap_get(&sc->counts, v));
    }
}

void kp__spread_save(kp_cycle *c) {
    for (uint16_t i = 0; i < c->n_spread; i++)
        memcpy(c->spread[i].saved_paths, c->spread[i].paths, sizeof c->spread[i].paths);
}

void kp__spread_restore(kp_cycle *c) {
    for (uint16_t i = 0; i < c->n_spread; i++)
        memcpy(c->spread[i].paths, c->spread[i].saved_paths, sizeof c->spread[i].paths);
}

void kp__spread_fini(kp_cycle *c) {
    for (uint16_t i = 0; i < c->n_spread; i++) kp__pairmap_fini(&c->spread[i].counts);
    kp__free(c->spread);
    c->spread = NULL;
    c->n_spread = 0;
}

/* mirrors PodTopologySpread.Filter */
void kp__spread_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    for (uint16_t i = 0; i < c->n_spread; i++) {
        const kp_spread_c *sc = &c->spread[i];
        kp_str v;
        if (!kp__labels_get(&n->labels, sc->key, &v)) {
            st->code = KP_CODE_UNRESOLVABLE;
            kp__status_add_reason(
                st,
                "node(s) didn't match pod topology spread constraints (missing required label)");
            return;
        }
        int64_t min_match = sc->paths[0].num;
        if ((int64_t)sc->counts.live < sc->min_domains) min_match = 0;
        int64_t skew = kp__pairmap_get(&sc->counts, v) + (sc->self_match ? 1 : 0) - min_match;
        if (skew > sc->max_skew) {
            st->code = KP_CODE_UNSCHEDULABLE;
            kp__status_add_reason(st, "node(s) didn't match pod topology spread constraints");
            return;
        }
    }
}

/* mirrors PodTopologySpread PreScore + Score + NormalizeScore (soft constraints). The score of a
 * node is summed constraint by constraint in constraint order, as Score does per node. */
int kp__spread_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n_nodes,
                     int64_t *out) {
    const kp_cluster *cl = s->cl;
    kp_spread_c *cs = NULL;
    uint16_t nc = 0;
    if (!n_nodes) return 0;
    kp_status rc = kp__spread_constraints(s, p, KP_WHEN_SCHEDULEANYWAY, &cs, &nc);
    if (rc != KP_OK) return rc;
    if (!nc) return 0;
    double *acc = kp__calloc(n_nodes, sizeof *acc);
    uint32_t *cnt = count_scratch(s);
    uint8_t *ignored = s->ignored_nodes;
    bool ok = acc && cnt;
    /* requireAllTopologies: only system-default spreading scores nodes lacking a topology key */
    bool require_all = p->n_spread > 0 || !kp__spread_defaults_system(s);
    kp_str host = cl->s_hostname_key;
    bool any_deleted = cl->n_nodes_deleted > 0; /* deleted nodes are no domain */
    uint32_t n_ignored = 0;
    /* initPreScoreState: domains of the feasible nodes */
    for (uint32_t i = 0; i < n_nodes && ok; i++) {
        const kp_node *n = &cl->nodes[nodes[i]];
        ignored[i] = require_all && !node_has_all_keys(cs, nc, n);
        if (ignored[i]) {
            n_ignored++;
            continue;
        }
        for (uint16_t k = 0; k < nc; k++) {
            if (cs[k].key == host) continue;
            kp_str v = 0; /* a missing label reads as "" (Go map lookup) */
            kp__labels_get(&n->labels, cs[k].key, &v);
            if (!kp__pairmap_has(&cs[k].counts, v) && kp__pairmap_add(&cs[k].counts, v, 0) != KP_OK)
                ok = false;
        }
    }
    for (uint16_t k = 0; k < nc && ok; k++) {
        kp_spread_c *sc = &cs[k];
        uint32_t sz = sc->key == host ? n_nodes - n_ignored : sc->counts.live;
        double weight = log((double)sz + 2); /* topologyNormalizingWeight */
        if (node_counts(s, sc, p->ns, cnt) != KP_OK) {
            ok = false;
            break;
        }
        if (sc->key != host) {
            /* PreScore's processAllNode: domain counts over every node, for domains of feasible
             * nodes */
            for (uint32_t ni = 0; ni < cl->n_nodes; ni++) {
                const kp_node *n = &cl->nodes[ni];
                if ((any_deleted && n->deleted) || (require_all && !node_has_all_keys(cs, nc, n)))
                    continue;
                if (!kp__spread_node_included(cl, p, sc->aff_policy, sc->taint_policy, n)) continue;
                kp_str v = 0;
                kp__labels_get(&n->labels, sc->key, &v);
                if (cnt[ni] && kp__pairmap_has(&sc->counts, v))
                    (void)kp__pairmap_add(&sc->counts, v, cnt[ni]);
            }
        }
        /* Score: per-node counts for the hostname key, domain counts otherwise; scoreForCount */
        for (uint32_t i = 0; i < n_nodes; i++) {
            kp_str v;
            if (ignored[i] || !kp__labels_get(&cl->nodes[nodes[i]].labels, sc->key, &v)) continue;
            int64_t c = sc->key == host ? cnt[nodes[i]] : kp__pairmap_get(&sc->counts, v);
            acc[i] += (double)c * weight + (double)(sc->max_skew - 1);
        }
        node_counts_clear(s, sc, p->ns, cnt);
    }
    if (ok) {
        int64_t mn = INT64_MAX, mx = 0;
        for (uint32_t i = 0; i < n_nodes; i++) {
            if (ignored[i]) continue;
            out[i] = (int64_t)llround(acc[i]);
            if (out[i] < mn) mn = out[i];
            if (out[i] > mx) mx = out[i];
        }
        for (uint32_t i = 0; i < n_nodes; i++) {
            if (ignored[i]) out[i] = 0;
            else if (mx == 0) out[i] = KP_MAX_NODE_SCORE;
            else out[i] = KP_MAX_NODE_SCORE * (mx + mn - out[i]) / mx;
        }
    }
    for (uint16_t k = 0; k < nc; k++) kp__pairmap_fini(&cs[k].counts);
    kp__free(cs);
    kp__free(acc);
    return ok ? 1 : KP_ENOMEM; /* every failure above is an allocation failure */
}
