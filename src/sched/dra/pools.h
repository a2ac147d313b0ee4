/* The devices a node reaches (internal to src/sched/dra/): structured/internal/incubating's
 * GatherPools for the allocator, over the scheduler's index: the ResourceSlices the node
 * reaches, pool by pool at their newest generation, with complete / incomplete / obsolete pools,
 * and (DRAPartitionableDevices) counter slices and invalid pools (counters.h). */
#ifndef KP_SCHED_DRA_POOLS_H
#define KP_SCHED_DRA_POOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "sched/dra/index.h"

/* A device the node reaches, in upstream's search order (pool, slice, device). */
typedef struct {
    uint32_t slice, dev;
    bool usable; /* its pool is complete (ExactCount never takes from an incomplete pool) */
} kp_dra_ndev;

typedef struct {
    kp_dra_ndev *nd;
    uint32_t n_nd, cap_nd;
    uint32_t *cand; /* scratch: candidate slices, then the pools */
    uint32_t cap_cand;
    bool saw_invalid; /* a pool the node reaches is invalid (counters.h) */
} kp_dra_pools;

/* The devices of the pools node reaches into a->nd (partitionable: DRAPartitionableDevices;
 * binding: DRADeviceBindingConditions, the pools without binding conditions first). KP_ENOMEM. */
kp_status kp__dra_gather(kp_dra_pools *a, const kp_cluster *cl, kp_dra_index *ix,
                         bool partitionable, bool binding, uint32_t node);
void kp__dra_pools_fini(kp_dra_pools *a);

#endif
