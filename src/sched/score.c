/* Score plugins: NodeResourcesFit (LeastAllocated / MostAllocated / RequestedToCapacityRatio),
 * NodeResourcesBalancedAllocation, TaintToleration, NodeAffinity, ImageLocality, plus
 * InterPodAffinity / PodTopologySpread (their own files); with upstream's NormalizeScore.
 * Integer math as upstream except where upstream uses float64 (BalancedAllocation, RTCR's
 * rounding, spread / affinity normalisation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"

/* mirrors helper.DefaultNormalizeScore */
static void default_normalize(int64_t *sc, uint32_t n, bool reverse) {
    int64_t mx = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sc[i] > mx) mx = sc[i];
    if (mx == 0) {
        if (reverse)
            for (uint32_t i = 0; i < n; i++) sc[i] = KP_MAX_NODE_SCORE;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t v = KP_MAX_NODE_SCORE * sc[i] / mx;
        sc[i] = reverse ? KP_MAX_NODE_SCORE - v : v;
    }
}

/* ---- resource allocation scorers ---- */

/* The pod's request for resource r as the scorer sees it (calculatePodResourceRequest):
 * non-zero defaults for cpu/memory unless use_requested. -1 when r is unknown. */
static int64_t pod_req(const kp_pod *p, int r, bool use_requested) {
    if (r < 0) return -1;
    if (!use_requested && r == KP_RES_CPU) return p->nz_cpu;
    if (!use_requested && r == KP_RES_MEM) return p->nz_mem;
    return kp__resv_get(&p->req, r);
}

/* mirrors calculateResourceAllocatableRequest; use_requested selects Requested over
 * NonZeroRequested (BalancedAllocation). skip_scalar: the pod does not request this scalar
 * resource, which bypasses it. */
static inline void alloc_req(const kp_node *n, int r, int64_t preq, bool skip_scalar, bool use_requested,
                             int64_t *alloc, int64_t *req) {
    *alloc = *req = 0;
    if (r < 0 || skip_scalar) return;
    if (r == KP_RES_CPU) {
        *alloc = n->alloc[r];
        *req = (use_requested ? n->requested[r] : n->nz_cpu) + preq;
    } else if (r == KP_RES_MEM) {
        *alloc = n->alloc[r];
        *req = (use_requested ? n->requested[r] : n->nz_mem) + preq;
    } else if (r == KP_RES_EPH) {
        *alloc = n->alloc[r];
        *req = n->requested[r] + preq;
    } else if (r >= KP_RES_FIXED && n->has_alloc[r]) {
        *alloc = n->alloc[r];
        *req = n->requested[r] + preq;
    }
}

/* per-attempt pod request vectors for the configured resources */
typedef struct {
    int64_t req[KP_CFG_MAX_RES];
    bool skip[KP_CFG_MAX_RES];
} pod_vec;

static void pod_vec_init(const kp_sched *s, const kp_pod *p, const int *idx, uint8_t n, bool use_requested, pod_vec *v) {
    for (uint8_t i = 0; i < n; i++) {
        v->req[i] = pod_req(p, idx[i], use_requested);
        v->skip[i] = idx[i] >= KP_RES_FIXED && v->req[i] == 0 && kp__res_is_scalar(kp__s(s->cl, s->cl->res_names[idx[i]]));
    }
}

/* mirrors helper.BuildBrokenLinearFunction */
static int64_t broken_linear(const kp_sched_config *cfg, int64_t p) {
    for (uint8_t i = 0; i < cfg->n_shape; i++) {
        if (p <= cfg->shape[i].utilization) {
            if (i == 0) return cfg->shape[0].score;
            const kp_cfg_shape *a = &cfg->shape[i - 1], *b = &cfg->shape[i];
            return a->score + (b->score - a->score) * (p - a->utilization) / (b->utilization - a->utilization);
        }
    }
    return cfg->shape[cfg->n_shape - 1].score;
}

static int64_t fit_score(const kp_sched *s, const kp_node *n, const pod_vec *v) {
    const kp_sched_config *cfg = &s->cfg;
    int64_t node_score = 0, weight_sum = 0;
    for (uint8_t i = 0; i < cfg->n_fit_res; i++) {
        int64_t alloc, req;
        alloc_req(n, s->fit_res_idx[i], v->req[i], v->skip[i], false, &alloc, &req);
        if (alloc == 0) continue;
        int64_t w = cfg->fit_res[i].weight, rs = 0;
        switch (cfg->strategy) {
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
        node_score += rs * w;
        weight_sum += w;
    }
    if (weight_sum == 0) return 0;
    if (cfg->strategy == KP_STRAT_RTCR) return (int64_t)llround((double)node_score / (double)weight_sum);
    return node_score / weight_sum;
}

/* mirrors balancedResourceScorer */
static int64_t balanced_score(const kp_sched *s, const kp_node *n, const pod_vec *v) {
    double fr[KP_CFG_MAX_RES], total = 0;
    int nf = 0;
    for (uint8_t i = 0; i < s->cfg.n_bal_res; i++) {
        int64_t alloc, req;
        alloc_req(n, s->bal_res_idx[i], v->req[i], v->skip[i], true, &alloc, &req);
        if (alloc == 0) continue;
        double f = (double)req / (double)alloc;
        if (f > 1) f = 1;
        fr[nf++] = f;
        total += f;
    }
    double sd = 0;
    if (nf == 2) {
        sd = fabs((fr[0] - fr[1]) / 2);
    } else if (nf > 2) {
        double mean = total / nf, sum = 0;
        for (int i = 0; i < nf; i++) sum += (fr[i] - mean) * (fr[i] - mean);
        sd = sqrt(sum / nf);
    }
    return (int64_t)((1 - sd) * (double)KP_MAX_NODE_SCORE);
}

static bool balanced_best_effort(const kp_sched *s, const kp_pod *p) {
    for (uint8_t i = 0; i < s->cfg.n_bal_res; i++) {
        int r = s->bal_res_idx[i];
        if (r >= 0 && kp__resv_get(&p->req, r) != 0) return false;
    }
    return true;
}

/* ---- TaintToleration: intolerable PreferNoSchedule taints, reversed ---- */
static int64_t taint_score(const kp_pod *p, const kp_node *n) {
    int64_t cnt = 0;
    for (uint16_t i = 0; i < n->n_taints; i++) {
        const kp_taint *t = &n->taints[i];
        if (t->effect != KP_EFFECT_PREFERNOSCHEDULE) continue;
        bool tol = false;
        for (uint16_t j = 0; j < p->n_tolerations && !tol; j++) {
            const kp_toleration *to = &p->tolerations[j];
            if (to->effect != KP_EFFECT_NONE && to->effect != KP_EFFECT_PREFERNOSCHEDULE) continue;
            tol = kp__toleration_tolerates(to, t);
        }
        if (!tol) cnt++;
    }
    return cnt;
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

/* ---- ImageLocality ---- */
#define MB (1024LL * 1024LL)

/* The container's image. The cluster model does not record spec.containers[].image yet (asked of
 * the loader's owner), so no image is known and every node gets the same (minimum) score: the
 * plugin then never changes a decision. */
static kp_str container_image(const kp_container *ct) { return ct->image; }

/* mirrors ImageLocality.Score: sumImageScores scaled by spread, calculatePriority */
static int64_t image_score(const kp_sched *s, const kp_pod *p, const kp_node *n) {
    const kp_cluster *cl = s->cl;
    int64_t sum = 0;
    uint32_t n_ct = (uint32_t)p->n_containers + p->n_init;
    for (uint32_t i = 0; i < n_ct; i++) {
        kp_str img = container_image(&p->containers[i]);
        if (!img) continue;
        /* normalizedImageName: append ":latest" when the last path element has no tag */
        const char *name = kp__s(cl, img);
        const char *slash = strrchr(name, '/'), *colon = strrchr(name, ':');
        kp_str norm = img;
        bool needs_tag = !colon || (slash && colon < slash);
        if (needs_tag && !strchr(name, '@')) {
            char buf[512];
            int len = snprintf(buf, sizeof buf, "%s:latest", name);
            norm = len > 0 && (size_t)len < sizeof buf ? kp__intern_find(&cl->strs, buf, (size_t)len) : UINT32_MAX;
        }
        if (norm == UINT32_MAX) continue;
        for (uint32_t j = 0; j < n->n_images; j++) {
            if (n->images[j].name != norm) continue;
            int64_t nodes_with = kp__pairmap_get(&s->image_nodes, norm);
            /* scaledImageScore: size * (numNodes / totalNumNodes), float as upstream */
            double spread = (double)nodes_with / (double)cl->n_nodes;
            sum += (int64_t)((double)n->images[j].size * spread);
            break;
        }
    }
    int64_t max_threshold = 1000 * MB * (int64_t)n_ct, min_threshold = 23 * MB;
    if (sum < min_threshold) sum = min_threshold;
    else if (sum > max_threshold) sum = max_threshold;
    if (max_threshold == min_threshold) return 0;
    return KP_MAX_NODE_SCORE * (sum - min_threshold) / (max_threshold - min_threshold);
}

bool kp__score_plugin(kp_sched *s, kp_plugin pl, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                      int64_t *out) {
    const kp_cluster *cl = s->cl;
    switch (pl) {
    case KP_PL_FIT: {
        pod_vec v;
        pod_vec_init(s, p, s->fit_res_idx, s->cfg.n_fit_res, false, &v);
        for (uint32_t i = 0; i < n; i++) out[i] = fit_score(s, &cl->nodes[nodes[i]], &v);
        return true;
    }
    case KP_PL_BALANCED: {
        if (balanced_best_effort(s, p)) return false; /* PreScore Skip */
        pod_vec v;
        pod_vec_init(s, p, s->bal_res_idx, s->cfg.n_bal_res, true, &v);
        for (uint32_t i = 0; i < n; i++) out[i] = balanced_score(s, &cl->nodes[nodes[i]], &v);
        return true;
    }
    case KP_PL_TAINT_TOLERATION:
        for (uint32_t i = 0; i < n; i++) out[i] = taint_score(p, &cl->nodes[nodes[i]]);
        default_normalize(out, n, true);
        return true;
    case KP_PL_NODE_AFFINITY:
        if (!p->node_affinity || p->node_affinity->n_preferred == 0) return false;
        for (uint32_t i = 0; i < n; i++) out[i] = node_affinity_score(cl, p, &cl->nodes[nodes[i]]);
        default_normalize(out, n, false);
        return true;
    case KP_PL_IMAGE_LOCALITY:
        for (uint32_t i = 0; i < n; i++) out[i] = image_score(s, p, &cl->nodes[nodes[i]]);
        return true;
    case KP_PL_INTERPOD: return kp__ipa_score(s, p, nodes, n, out);
    case KP_PL_SPREAD: return kp__spread_score(s, p, nodes, n, out);
    default: return false;
    }
}
