/* The resource allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation
 * (pkg/scheduler/framework/plugins/noderesources/resource_allocation.go). */
#ifndef KP_SCHED_PLUGINS_RESOURCE_ALLOCATION_H
#define KP_SCHED_PLUGINS_RESOURCE_ALLOCATION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/framework.h"

/* Resource name is a scalar resource (IsScalarResourceName) / an extended resource
 * (IsExtendedResourceName). */
bool kp__res_is_scalar(const char *name);
bool kp__res_is_extended(const char *name);

/* How calculateResourceAllocatableRequest reads one configured resource from a node, decided once
 * per pod: NONE (unknown resource, the pods count, or a scalar the pod does not request: skipped),
 * the non-zero cpu / memory aggregates, Requested, or Requested of a scalar resource only on
 * nodes that report it allocatable. */
typedef enum { RV_NONE = 0, RV_NZ_CPU, RV_NZ_MEM, RV_REQ, RV_SCALAR } kp_res_via;

/* per-attempt pod request vectors for the configured resources */
typedef struct {
    uint8_t n;
    uint8_t via[KP_CFG_MAX_RES];
    uint8_t r[KP_CFG_MAX_RES];
    int64_t req[KP_CFG_MAX_RES];
    int64_t w[KP_CFG_MAX_RES];
} kp_pod_vec;

/* The pod's request vector over the configured resources res[n] (cluster indices idx[n]);
 * use_requested selects Requested over NonZeroRequested for cpu / memory (BalancedAllocation). */
void kp__pod_vec_init(const kp_sched *s, const kp_pod *p, const int *idx,
                      const kp_cfg_resource *res, uint8_t n, bool use_requested, kp_pod_vec *v);

/* mirrors calculateResourceAllocatableRequest for configured resource i; false when the
 * allocatable amount is 0 (the resource is then left out of the score). Inline: the score loops
 * call it per node and resource. */
static inline bool kp__alloc_req(const kp_pod_vec *v, uint8_t i, const kp_node *n, int64_t *alloc,
                                 int64_t *req) {
    int r = v->r[i];
    switch ((kp_res_via)v->via[i]) {
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

#endif
