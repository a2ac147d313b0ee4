/* NodeResourcesBalancedAllocation (pkg/scheduler/framework/plugins/noderesources/
 * balanced_allocation.go); float64 as upstream. */
#include <math.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/compat.h"
#include "sched/plugins/balanced_allocation.h"
#include "sched/plugins/resource_allocation.h"

/* mirrors balancedResourceScore: (1 - std(fractions)) * MaxNodeScore, truncated; each fraction
 * capped at 1; two resources: |f0 - f1| / 2 */
static int64_t std_score(const double *fr, int nf, double total) {
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

/* mirrors balancedResourceScorer. Newest (v1.36+, PR #135573): the change in the node's
 * balance the pod causes, MaxNodeScore/2 + (MaxNodeScore/2 + with - without) / 2 in integer
 * arithmetic over the two truncated scores (no change: 75; balanced to imbalanced: 50;
 * imbalanced to balanced: 100). delta false (--compat 1.35 and older): the score with the pod. */
static int64_t balanced_score(const kp_node *n, const kp_pod_vec *v, bool delta) {
    double fr[KP_CFG_MAX_RES], fr0[KP_CFG_MAX_RES], total = 0, total0 = 0;
    int nf = 0;
    for (uint8_t i = 0; i < v->n; i++) {
        int64_t alloc = 0, req = 0;
        if (!kp__alloc_req(v, i, n, &alloc, &req)) continue;
        double f = (double)req / (double)alloc;
        if (f > 1) f = 1;
        double f0 = delta ? (double)(req - v->req[i]) / (double)alloc : 0; /* without the pod */
        if (f0 > 1) f0 = 1;
        fr[nf] = f;
        fr0[nf++] = f0;
        total += f;
        total0 += f0;
    }
    int64_t with = std_score(fr, nf, total);
    if (!delta) return with;
    int64_t without = std_score(fr0, nf, total0);
    return KP_MAX_NODE_SCORE / 2 + (KP_MAX_NODE_SCORE / 2 + with - without) / 2;
}

static bool balanced_best_effort(const kp_sched *s, const kp_pod *p) {
    for (uint8_t i = 0; i < s->cfg.n_bal_res; i++) {
        int r = s->bal_res_idx[i];
        if (r >= 0 && kp__resv_get(&p->req, r) != 0) return false;
    }
    return true;
}


/* mirrors BalancedAllocation.PreScore/Score over nodes[n]; false = Skip (best-effort pod) */
bool kp__balanced_allocation_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes,
                                   uint32_t n, int64_t *out) {
    const kp_cluster *cl = s->cl;
    if (balanced_best_effort(s, p)) return false; /* PreScore Skip */
    kp_pod_vec v;
    kp__pod_vec_init(s, p, s->bal_res_idx, s->cfg.bal_res, s->cfg.n_bal_res, true, &v);
    bool delta = kp__compat_balance_delta(s->compat);
    for (uint32_t i = 0; i < n; i++) out[i] = balanced_score(&cl->nodes[nodes[i]], &v, delta);
    return true;
}
