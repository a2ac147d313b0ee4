/* Nodes (internal): decoded fields and the per-node aggregates of the pods bound to them. */
#ifndef KP_CORE_NODE_H
#define KP_CORE_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/resources.h"
#include "core/taints.h"
#include "kprio/cluster.h"

typedef struct {
    kp_str name;
    int64_t size;
} kp_image;

typedef struct kp_node {
    kp_str name, uid;
    kp_labels labels, annotations;
    uint16_t n_taints;
    kp_taint *taints;
    bool unschedulable;
    bool deleted; /* kp_cluster_delete_node (padding room: no growth) */
    int64_t alloc[KP_MAX_RES], cap[KP_MAX_RES];
    bool has_alloc[KP_MAX_RES];
    uint32_t n_images;
    kp_image *images; /* each name of status.images[].names, with the image's size */
    uint16_t n_conditions;
    kp_condition *conditions;
    int64_t creation_ts;

    /* aggregates, maintained by kp__node_add_pod / kp__node_remove_pod */
    uint32_t *pods; /* heap-owned; order as upstream NodeInfo (append, swap-remove) */
    uint32_t n_pods, cap_pods;
    int64_t requested[KP_MAX_RES];
    int64_t nz_cpu, nz_mem;
    uint32_t n_affinity_pods; /* pods with (anti-)affinity, for fast skip */
    uint32_t n_attachable; /* its pods' volumes NodeVolumeLimits may count (kp__pod_attachable) */
    uint32_t src_index;
    /* bumped by every change of `pods` (kp__node_add_pod / kp__node_remove_pod): a cache built
     * from the list is valid while it is unchanged (sched/preempt/cache.c) */
    uint32_t pods_gen;
} kp_node;

/* NodeInfo mutation mirrors (keep aggregates exact): framework.NodeInfo.AddPod / RemovePod,
 * including the swap-with-last removal order. kp__node_add_pod: KP_ENOMEM, or KP_ERANGE when a sum
 * of the node's requests would not fit in int64 (the node is then unchanged). */
kp_status kp__node_add_pod(kp_cluster *cl, uint32_t node, uint32_t pod);
void kp__node_remove_pod(kp_cluster *cl, uint32_t pod);

#endif
