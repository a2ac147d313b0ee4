/* NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go): Filter (fitsRequest) and
 * Score (LeastAllocated / MostAllocated / RequestedToCapacityRatio). Reason strings are upstream's;
 * integer math as upstream except RequestedToCapacityRatio's float rounding. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/plugins/dynamic_resources_ext.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/resource_allocation.h"

/* The per-pod part of fitsRequest: the requested resources the filter checks, in request order
 * (cpu, memory, ephemeral-storage, then scalar resources; zero requests, the pods count,
 * non-scalar unknown names and ignored extended resources are not checked). */
void kp__fit_prepare(kp_cycle *c) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    c->n_fit = 0;
    c->n_fit_dra = 0;
    for (uint16_t i = 0; i < p->req.n && c->n_fit < KP_MAX_RES; i++) {
        int r = p->req.e[i].res;
        int64_t want = p->req.e[i].v;
        if (want <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED) { /* scalar resources: hugepages, extended, ... */
            const char *rn = kp__s(cl, cl->res_names[r]);
            if (!kp__res_is_scalar(rn)) continue;
            if (kp__res_is_extended(rn) && c->s->ignored_res[r]) continue;
            if (kp__dra_ext_backed(cl, r)) { /* checked per node: dynamic_resources_ext.c */
                c->fit_dra_res[c->n_fit_dra] = (uint8_t)r;
                c->fit_dra_want[c->n_fit_dra++] = want;
                continue;
            }
        }
        c->fit_res[c->n_fit] = (uint8_t)r;
        c->fit_want[c->n_fit++] = want;
    }
}

/* The rejection path of kp__filter_fit: "Insufficient <resource>" for every request bit set in
 * short_mask, in request order (the loop ends with the last set bit), then the code. */
static inline void fit_reject(const kp_cycle *c, uint32_t short_mask, bool unresolvable,
                              kp_node_status *st) {
    char *const *insufficient = c->s->reasons.insufficient;
    for (uint8_t i = 0; short_mask; i++, short_mask >>= 1)
        if (short_mask & 1) kp__status_add_reason(st, insufficient[c->fit_res[i]]);
    st->code = unresolvable ? KP_CODE_UNRESOLVABLE : KP_CODE_UNSCHEDULABLE;
}

#if defined(__GNUC__) /* each copy below specialised: the plain one stays a leaf */
static inline void fit_check(const kp_cycle *c, const kp_node *n, kp_node_status *st,
                             const bool nominated) __attribute__((always_inline));
#endif

/* mirrors fitsRequest: every insufficiency is a reason; any request above allocatable makes
 * the status UnschedulableAndUnresolvable. Nominated pods of pass 1 (c->extra) count as on the
 * node when nominated (a constant: each caller below gets its own copy). The loop only notes
 * which requests do not fit; the reasons are added after it, so that the loop keeps its values
 * in registers (adding them inside made it spill to the stack: 82 instructions per node). */
static inline void fit_check(const kp_cycle *c, const kp_node *n, kp_node_status *st,
                             const bool nominated) {
    bool unresolvable = false;
    uint32_t short_mask = 0; /* requests that do not fit (n_fit <= KP_MAX_RES = 32 bits) */
    uint32_t n_extra = nominated ? c->n_extra : 0;
    int64_t n_pods = n->n_pods + n_extra;
    if (n_pods + 1 > n->alloc[KP_RES_PODS]) kp__status_add_reason(st, "Too many pods");
    for (uint8_t i = 0; i < c->n_fit; i++) { /* the requests kp__fit_prepare selected */
        int r = c->fit_res[i];
        int64_t want = c->fit_want[i];
        int64_t used = n->requested[r];
        /* requests are bounded per pod and per node at load, but a node's sum plus its
         * nominated pods' can still pass int64: saturate (the comparison below then says "does
         * not fit", the answer upstream's sum gives for any amount this large) */
        if (nominated && c->extra_sum) {
            if (__builtin_add_overflow(used, c->extra_sum[r], &used)) used = INT64_MAX;
        } else if (nominated) {
            const kp_cluster *cl = c->s->cl;
            for (uint32_t k = 0; k < n_extra; k++)
                if (__builtin_add_overflow(used, kp__resv_get(&cl->pods[c->extra[k]].req, r),
                                           &used))
                    used = INT64_MAX;
        }
        int64_t alloc = n->alloc[r];
        if (want > alloc - used) {
            short_mask |= UINT32_C(1) << i;
            if (want > alloc) unresolvable = true;
        }
    }
    if (short_mask)
        fit_reject(c, short_mask, unresolvable, st); /* after "Too many pods", as upstream */
    else if (st->n_reasons) st->code = KP_CODE_UNSCHEDULABLE; /* "Too many pods" only */
}

/* One copy without nominated pods (a leaf: no call in its loop) and one with them, out of line
 * so that kp__filter_fit is a dispatch of two tail calls. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
fit_check_plain(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    fit_check(c, n, st, false);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
fit_check_nominated(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    fit_check(c, n, st, true);
}

void kp__filter_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    if (c->n_extra) fit_check_nominated(c, n, st);
    else fit_check_plain(c, n, st);
    if (c->n_fit_dra) kp__dra_ext_fit(c, n, st); /* DRA-backed extended resources */
}


/* mirrors fitsRequest for a node whose cpu, memory and ephemeral-storage in use are used[0..2]
 * and whose pods number n_pods (preemption's arithmetic path: the node with its lower-priority
 * pods removed and the nominated pods of pass 1 added), with the filter's reasons in its order
 * and the plugin's name. false (st untouched) when the pod's Filter checks another resource:
 * the caller then runs the real filter. */
bool kp__fit_status3(const kp_cycle *c, const kp_node *n, const int64_t *used, int64_t n_pods,
                     kp_node_status *st) {
    for (uint8_t i = 0; i < c->n_fit; i++)
        if (c->fit_res[i] > KP_RES_EPH) return false;
    if (c->n_fit_dra) return false;
    kp__status_reset(st);
    bool unresolvable = false;
    uint32_t short_mask = 0;
    if (n_pods + 1 > n->alloc[KP_RES_PODS]) kp__status_add_reason(st, "Too many pods");
    for (uint8_t i = 0; i < c->n_fit; i++) {
        int r = c->fit_res[i];
        int64_t want = c->fit_want[i], alloc = n->alloc[r];
        if (want > alloc - used[r]) {
            short_mask |= UINT32_C(1) << i;
            if (want > alloc) unresolvable = true;
        }
    }
    if (short_mask) fit_reject(c, short_mask, unresolvable, st);
    else if (st->n_reasons) st->code = KP_CODE_UNSCHEDULABLE;
    if (st->code != KP_CODE_SUCCESS) st->plugin = kp__plugin_name(KP_PL_FIT);
    return true;
}

/* mirrors helper.BuildBrokenLinearFunction */
static int64_t broken_linear(const kp_sched_config *cfg, int64_t p) {
    for (uint8_t i = 0; i < cfg->n_shape; i++) {
        if (p <= cfg->shape[i].utilization) {
            if (i == 0) return cfg->shape[0].score;
            const kp_cfg_shape *a = &cfg->shape[i - 1], *b = &cfg->shape[i];
            return a->score +
                   (b->score - a->score) * (p - a->utilization) / (b->utilization - a->utilization);
        }
    }
    return cfg->shape[cfg->n_shape - 1].score;
}

/* the node score of NodeResourcesFit's strategy (strat is constant in each caller's loop) */
static inline int64_t fit_score(const kp_sched_config *cfg, kp_strategy strat, const kp_node *n,
                                const kp_pod_vec *v) {
    int64_t node_score = 0, weight_sum = 0;
    for (uint8_t i = 0; i < v->n; i++) {
        int64_t alloc = 0, req = 0, rs = 0;
        if (!kp__alloc_req(v, i, n, &alloc, &req)) continue;
        switch (strat) {
        case KP_STRAT_LEAST: /* leastRequestedScore */
            rs = req > alloc ? 0 : (alloc - req) * KP_MAX_NODE_SCORE / alloc;
            break;
        case KP_STRAT_MOST: /* mostRequestedScore */
            rs = (req > alloc ? alloc : req) * KP_MAX_NODE_SCORE / alloc;
            break;
        case KP_STRAT_RTCR: { /* requestedToCapacityRatio: only positive resource scores count */
            int64_t util = req > alloc ? 100 : (req <= 0 ? 0 : req * 100 / alloc);
            rs = broken_linear(cfg, util);
            if (rs <= 0) continue;
            break;
        }
        }
        node_score += rs * v->w[i];
        weight_sum += v->w[i];
    }
    if (weight_sum == 0) return 0;
    if (strat == KP_STRAT_RTCR) return (int64_t)llround((double)node_score / (double)weight_sum);
    return node_score / weight_sum;
}


/* mirrors NodeResourcesFit.Score over nodes[n] (the configured scoring strategy) */
void kp__fit_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                   int64_t *out) {
    const kp_cluster *cl = s->cl;
    kp_pod_vec v;
    kp__pod_vec_init(s, p, s->fit_res_idx, s->cfg.fit_res, s->cfg.n_fit_res, false, &v);
    switch (s->cfg.strategy) { /* one loop per strategy: the switch in fit_score folds away */
    case KP_STRAT_LEAST:
        for (uint32_t i = 0; i < n; i++)
            out[i] = fit_score(&s->cfg, KP_STRAT_LEAST, &cl->nodes[nodes[i]], &v);
        break;
    case KP_STRAT_MOST:
        for (uint32_t i = 0; i < n; i++)
            out[i] = fit_score(&s->cfg, KP_STRAT_MOST, &cl->nodes[nodes[i]], &v);
        break;
    case KP_STRAT_RTCR:
        for (uint32_t i = 0; i < n; i++)
            out[i] = fit_score(&s->cfg, KP_STRAT_RTCR, &cl->nodes[nodes[i]], &v);
        break;
    }
}
