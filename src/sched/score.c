/* Score plugins: NodeResourcesFit (LeastAllocated / MostAllocated / RequestedToCapacityRatio),
 * NodeResourcesBalancedAllocation, TaintToleration, NodeAffinity, ImageLocality, plus
 * InterPodAffinity / PodTopologySpread (their own files); with upstream's NormalizeScore.
 * Integer math as upstream except where upstream uses float64 (BalancedAllocation, RTCR's
 * rounding, spread / affinity normalisation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
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

/* How calculateResourceAllocatableRequest reads one configured resource from a node, decided once
 * per pod: NONE (unknown resource, the pods count, or a scalar the pod does not request: skipped),
 * the non-zero cpu / memory aggregates, Requested, or Requested of a scalar resource only on
 * nodes that report it allocatable. */
typedef enum { RV_NONE = 0, RV_NZ_CPU, RV_NZ_MEM, RV_REQ, RV_SCALAR } res_via;

/* per-attempt pod request vectors for the configured resources */
typedef struct {
    uint8_t n;
    uint8_t via[KP_CFG_MAX_RES];
    uint8_t r[KP_CFG_MAX_RES];
    int64_t req[KP_CFG_MAX_RES];
    int64_t w[KP_CFG_MAX_RES];
} pod_vec;

/* use_requested selects Requested over NonZeroRequested for cpu / memory (BalancedAllocation) */
static void pod_vec_init(const kp_sched *s, const kp_pod *p, const int *idx, const kp_cfg_resource *res, uint8_t n,
                         bool use_requested, pod_vec *v) {
    v->n = n;
    for (uint8_t i = 0; i < n; i++) {
        int r = idx[i];
        v->req[i] = pod_req(p, r, use_requested);
        v->w[i] = res[i].weight;
        v->r[i] = (uint8_t)(r < 0 ? 0 : r);
        bool skip_scalar = r >= KP_RES_FIXED && v->req[i] == 0 && kp__res_is_scalar(kp__s(s->cl, s->cl->res_names[r]));
        if (r < 0 || skip_scalar || r == KP_RES_PODS) v->via[i] = RV_NONE;
        else if (r == KP_RES_CPU) v->via[i] = use_requested ? RV_REQ : RV_NZ_CPU;
        else if (r == KP_RES_MEM) v->via[i] = use_requested ? RV_REQ : RV_NZ_MEM;
        else if (r == KP_RES_EPH) v->via[i] = RV_REQ;
        else v->via[i] = RV_SCALAR;
    }
}

/* mirrors calculateResourceAllocatableRequest for configured resource i; false when the
 * allocatable amount is 0 (the resource is then left out of the score) */
static inline bool alloc_req(const pod_vec *v, uint8_t i, const kp_node *n, int64_t *alloc, int64_t *req) {
    int r = v->r[i];
    switch ((res_via)v->via[i]) {
    case RV_NONE: return false;
    case RV_NZ_CPU: *req = n->nz_cpu + v->req[i]; break;
    case RV_NZ_MEM: *req = n->nz_mem + v->req[i]; break;
    case RV_SCALAR:
        if (!n->has_alloc[r]) return false;
        *req = n->requested[r] + v->req[i];
        break;
    case RV_REQ: *req = n->requested[r] + v->req[i]; break;
    }
    *alloc = n->alloc[r];
    return *alloc != 0;
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

/* the node score of NodeResourcesFit's strategy (strat is constant in each caller's loop) */
static inline int64_t fit_score(const kp_sched_config *cfg, kp_strategy strat, const kp_node *n, const pod_vec *v) {
    int64_t node_score = 0, weight_sum = 0;
    for (uint8_t i = 0; i < v->n; i++) {
        int64_t alloc = 0, req = 0, rs = 0;
        if (!alloc_req(v, i, n, &alloc, &req)) continue;
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

/* mirrors balancedResourceScorer */
static int64_t balanced_score(const kp_node *n, const pod_vec *v) {
    double fr[KP_CFG_MAX_RES], total = 0;
    int nf = 0;
    for (uint8_t i = 0; i < v->n; i++) {
        int64_t alloc = 0, req = 0;
        if (!alloc_req(v, i, n, &alloc, &req)) continue;
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

/* The pod's images as ImageLocality sees them (normalizedImageName), one entry per container,
 * with the number of nodes having each; images no node has are left out (they score nothing). */
#define POD_IMAGES_INLINE 16
typedef struct {
    uint32_t n, n_ct;
    kp_str *name;
    int64_t *nodes_with;
    kp_str name_buf[POD_IMAGES_INLINE];
    int64_t nodes_with_buf[POD_IMAGES_INLINE];
} pod_images;

static void pod_images_fini(pod_images *pi) {
    if (pi->name != pi->name_buf) kp__free(pi->name);
    if (pi->nodes_with != pi->nodes_with_buf) kp__free(pi->nodes_with);
}

/* false on allocation failure (more containers than the inline buffers hold) */
static bool pod_images_init(const kp_sched *s, const kp_pod *p, pod_images *pi) {
    const kp_cluster *cl = s->cl;
    pi->n = 0;
    pi->n_ct = (uint32_t)p->n_containers + p->n_init;
    pi->name = pi->name_buf;
    pi->nodes_with = pi->nodes_with_buf;
    if (pi->n_ct > POD_IMAGES_INLINE) {
        pi->name = kp__malloc(pi->n_ct * sizeof *pi->name);
        pi->nodes_with = kp__malloc(pi->n_ct * sizeof *pi->nodes_with);
        if (!pi->name || !pi->nodes_with) {
            pod_images_fini(pi);
            return false;
        }
    }
    for (uint32_t i = 0; i < pi->n_ct; i++) {
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
        int64_t nodes_with = kp__pairmap_get(&s->image_nodes, norm);
        if (nodes_with == 0) continue;
        pi->name[pi->n] = norm;
        pi->nodes_with[pi->n++] = nodes_with;
    }
    return true;
}

/* mirrors ImageLocality.Score: sumImageScores scaled by spread, calculatePriority */
static int64_t image_score(const kp_sched *s, const pod_images *pi, const kp_node *n) {
    int64_t sum = 0;
    for (uint32_t i = 0; n && i < pi->n; i++) {
        for (uint32_t j = 0; j < n->n_images; j++) {
            if (n->images[j].name != pi->name[i]) continue;
            /* scaledImageScore: size * (numNodes / totalNumNodes), float as upstream */
            double spread = (double)pi->nodes_with[i] / (double)s->cl->n_nodes;
            sum += (int64_t)((double)n->images[j].size * spread);
            break;
        }
    }
    int64_t max_threshold = 1000 * MB * (int64_t)pi->n_ct, min_threshold = 23 * MB;
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
        pod_vec_init(s, p, s->fit_res_idx, s->cfg.fit_res, s->cfg.n_fit_res, false, &v);
        switch (s->cfg.strategy) { /* one loop per strategy: the switch in fit_score folds away */
        case KP_STRAT_LEAST:
            for (uint32_t i = 0; i < n; i++) out[i] = fit_score(&s->cfg, KP_STRAT_LEAST, &cl->nodes[nodes[i]], &v);
            break;
        case KP_STRAT_MOST:
            for (uint32_t i = 0; i < n; i++) out[i] = fit_score(&s->cfg, KP_STRAT_MOST, &cl->nodes[nodes[i]], &v);
            break;
        case KP_STRAT_RTCR:
            for (uint32_t i = 0; i < n; i++) out[i] = fit_score(&s->cfg, KP_STRAT_RTCR, &cl->nodes[nodes[i]], &v);
            break;
        }
        return true;
    }
    case KP_PL_BALANCED: {
        if (balanced_best_effort(s, p)) return false; /* PreScore Skip */
        pod_vec v;
        pod_vec_init(s, p, s->bal_res_idx, s->cfg.bal_res, s->cfg.n_bal_res, true, &v);
        for (uint32_t i = 0; i < n; i++) out[i] = balanced_score(&cl->nodes[nodes[i]], &v);
        return true;
    }
    case KP_PL_TAINT_TOLERATION:
        for (uint32_t i = 0; i < n; i++) {
            const kp_node *nd = &cl->nodes[nodes[i]];
            out[i] = nd->n_taints ? taint_score(p, nd) : 0;
        }
        default_normalize(out, n, true);
        return true;
    case KP_PL_NODE_AFFINITY:
        if (!p->node_affinity || p->node_affinity->n_preferred == 0) return false;
        for (uint32_t i = 0; i < n; i++) out[i] = node_affinity_score(cl, p, &cl->nodes[nodes[i]]);
        default_normalize(out, n, false);
        return true;
    case KP_PL_IMAGE_LOCALITY: {
        pod_images pi;
        if (!pod_images_init(s, p, &pi)) return false; /* out of memory: plugin skipped */
        if (pi.n == 0) { /* no node has any of the pod's images: the same score everywhere */
            int64_t v = image_score(s, &pi, NULL);
            for (uint32_t i = 0; i < n; i++) out[i] = v;
        } else {
            for (uint32_t i = 0; i < n; i++) out[i] = image_score(s, &pi, &cl->nodes[nodes[i]]);
        }
        pod_images_fini(&pi);
        return true;
    }
    case KP_PL_INTERPOD: return kp__ipa_score(s, p, nodes, n, out);
    case KP_PL_SPREAD: return kp__spread_score(s, p, nodes, n, out);
    default: return false;
    }
}
