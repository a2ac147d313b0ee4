/* The resource allocation scorer's per-pod request vector: see resource_allocation.h. */

#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/plugins/resource_allocation.h"

bool kp__res_is_extended(const char *name) {
    /* v1helper.IsExtendedResourceName: not native (has '/', no kubernetes.io/ prefix), and not
     * "requests." prefixed */
    const char *slash = strchr(name, '/');
    if (!slash) return false;
    if (strstr(name, "kubernetes.io/") == name || strstr(name, ".kubernetes.io/") != NULL)
        return false;
    if (strncmp(name, "requests.", 9) == 0) return false;
    return true;
}

bool kp__res_is_scalar(const char *name) {
    /* IsScalarResourceName: extended, hugepages-*, prefixed native, attachable-volume-* */
    if (kp__res_is_extended(name)) return true;
    if (strncmp(name, "hugepages-", 10) == 0) return true;
    if (strncmp(name, "attachable-volumes-", 19) == 0) return true;
    if (strchr(name, '/') &&
        (strstr(name, "kubernetes.io/") == name || strstr(name, ".kubernetes.io/")))
        return true;
    return false;
}


/* The pod's request for resource r as the scorer sees it (calculatePodResourceRequest):
 * non-zero defaults for cpu/memory unless use_requested. -1 when r is unknown. */
static int64_t pod_req(const kp_pod *p, int r, bool use_requested) {
    if (r < 0) return -1;
    if (!use_requested && r == KP_RES_CPU) return p->nz_cpu;
    if (!use_requested && r == KP_RES_MEM) return p->nz_mem;
    return kp__resv_get(&p->req, r);
}

void kp__pod_vec_init(const kp_sched *s, const kp_pod *p, const int *idx,
                      const kp_cfg_resource *res, uint8_t n, bool use_requested, kp_pod_vec *v) {
    v->n = n;
    for (uint8_t i = 0; i < n; i++) {
        int r = idx[i];
        v->req[i] = pod_req(p, r, use_requested);
        v->w[i] = res[i].weight;
        v->r[i] = (uint8_t)(r < 0 ? 0 : r);
        bool skip_scalar = r >= KP_RES_FIXED && v->req[i] == 0 &&
                           kp__res_is_scalar(kp__s(s->cl, s->cl->res_names[r]));
        if (r < 0 || skip_scalar || r == KP_RES_PODS) v->via[i] = RV_NONE;
        else if (r == KP_RES_CPU) v->via[i] = use_requested ? RV_REQ : RV_NZ_CPU;
        else if (r == KP_RES_MEM) v->via[i] = use_requested ? RV_REQ : RV_NZ_MEM;
        else if (r == KP_RES_EPH) v->via[i] = RV_REQ;
        else v->via[i] = RV_SCALAR;
    }
}
