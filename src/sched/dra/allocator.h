/* The structured allocator (internal to src/sched/): which devices a pod's unallocated claims
 * would get on one node, as k8s.io/dynamic-resource-allocation/structured's Allocator.Allocate
 * (internal/incubating, the variant v1.37 runs with its beta DRA features on) decides it: the
 * pools the node reaches (GatherPools), each request's class and own selectors, ExactCount and
 * All, firstAvailable subrequests in order, matchAttribute / distinctAttribute constraints,
 * admin access, device taints and the request's tolerations, devices already allocated to other
 * claims; the first solution of the exhaustive search in upstream's order wins.
 *
 * Shared counters (partitionable devices) and consumable capacity live in counters.c and
 * capacity.c. Not mirrored (docs/internals/upstream.md): the allocation's node selector merged
 * from several selectors (the first is kept), a pool with duplicate device names. */
#ifndef KP_SCHED_DRA_ALLOCATOR_H
#define KP_SCHED_DRA_ALLOCATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "sched/dra/index.h"

/* The allocator's features (structured.Features), from the cluster's feature gates. */
typedef struct {
    bool admin_access, prioritized_list, device_taints;
    bool partitionable_devices, consumable_capacity; /* sched/dra/counters.c, capacity.c */
    /* DeviceBindingAndStatus (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus):
     * results carry the devices' binding conditions, bindsToNode pins the allocation to the
     * node, pools without binding conditions are tried first; off, such devices are skipped */
    bool device_binding;
} kp_dra_features;

/* One claim's allocation on the last node allocated for (kp__dra_alloc_node). */
typedef struct {
    uint32_t claim; /* index in cl->dra.claims */
    uint16_t n_results;
    kp_dra_result *results; /* owned by the allocator, valid until the next call */
    bool has_nodes;
    kp_dra_nodes nodes; /* status.allocation.nodeSelector */
} kp_dra_claim_alloc;

typedef struct kp_dra_alloc kp_dra_alloc;

/* An allocator for claims[0..n) (unallocated claims of one pod, in the pod's order) over the
 * cluster as ix indexes it (NewAllocator). NULL: out of memory. */
kp_dra_alloc *kp__dra_alloc_new(kp_cluster *cl, kp_dra_index *ix, const kp_dra_features *f,
                                const uint32_t *claims, uint32_t n);
/* The same with one claim that is not the cluster's: KP_DRA_VIRTUAL_CLAIM in claims[] stands for
 * virt (the in-memory claim of a pod's DRA-backed extended resources, which the scheduler
 * creates only at PreBind; virt is borrowed and must outlive the allocator). Its result's claim
 * is KP_DRA_VIRTUAL_CLAIM. */
#define KP_DRA_VIRTUAL_CLAIM UINT32_MAX
kp_dra_alloc *kp__dra_alloc_new_virtual(kp_cluster *cl, kp_dra_index *ix, const kp_dra_features *f,
                                        const uint32_t *claims, uint32_t n,
                                        const kp_dra_claim *virt);
void kp__dra_alloc_free(kp_dra_alloc *a);
/* Allocate on node: 1 when every claim got its devices (kp__dra_alloc_result), 0 when not on
 * this node, KP_EINVAL when the claims cannot be allocated anywhere as they are (*msg: the
 * reason, upstream's text, owned by a until it is freed), KP_ENOMEM. */
int kp__dra_alloc_node(kp_dra_alloc *a, uint32_t node, const char **msg);
const kp_dra_claim_alloc *kp__dra_alloc_result(const kp_dra_alloc *a, uint32_t i);
/* How many claims a allocates (kp__dra_alloc_result's range). */
uint32_t kp__dra_alloc_count(const kp_dra_alloc *a);
/* The prioritized-list score of the last allocation (dynamicresources.go computeScore): for
 * each firstAvailable request, 8 minus the index of the subrequest picked. */
int64_t kp__dra_alloc_score(const kp_dra_alloc *a);

/* --explain: for each request, the devices of its class the node reaches, how many are free,
 * and the claims holding the others ("request gpu: 0 free of 1 device(s) matching class
 * gpu.example.com, held by default/holder-gpu (reserved by holder)"), into b[cap]. */
void kp__dra_alloc_explain(kp_dra_alloc *a, uint32_t node, char *b, size_t cap);

#endif
