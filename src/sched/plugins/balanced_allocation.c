/* NodeResourcesBalancedAllocation (pkg/scheduler/framework/plugins/noderesources/
 * balanced_allocation.go); float64 as upstream. */
#include <math.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/plugins/balanced_allocation.h"
#include "sched/plugins/resource_allocation.h"

/* mirrors balancedResourceScorer */
static int64_t balanced_score(const kp_node *n, const kp_pod_vec *v) {
    double fr[KP_CFG_MAX_RES], total = 0;
    int nf = 0;
    for (uint8_t i = 0; i < v->n; i++) {
        int64_t alloc = 0, req = 0;
        if (!kp__alloc_req(v, i, n, &alloc, &req)) continue;
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


/* mirrors BalancedAllocation.PreScore/Score over nodes[n]; false = Skip (best-effort pod) */
bool kp__balanced_allocation_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes,
                                   uint32_t n, int64_t *out) {
    const kp_cluster *cl = s->cl;
    if (balanced_best_effort(s, p)) return false; /* PreScore Skip */
    kp_pod_vec v;
    kp__pod_vec_init(s, p, s->bal_res_idx, s->cfg.bal_res, s->cfg.n_bal_res, true, &v);
    for (uint32_t i = 0; i < n; i++) out[i] = balanced_score(&cl->nodes[nodes[i]], &v);
    return true;
}
