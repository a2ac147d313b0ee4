/* Partitionable devices (internal to src/sched/dra/): the shared counters of a pool
 * (ResourceSlice sharedCounters) and what its devices consume of them (consumesCounters), as
 * the structured allocator's checkAvailableCounters / deallocateCountersForDevice keep them
 * (structured/internal/incubating, DRAPartitionableDevices): per pool, each counter's value
 * minus what the allocated devices of the pool consume (every slice of the pool's generation,
 * those on other nodes too); during one Allocate, what the devices being allocated consume. */
#ifndef KP_SCHED_DRA_COUNTERS_H
#define KP_SCHED_DRA_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "sched/dra/index.h"

/* The counters of pool (built if stale); NULL when out of memory. */
const kp_dra_pool_ctr *kp__dra_ctr_pool(kp_dra_index *ix, const kp_cluster *cl, uint32_t pool);

/* What the devices being allocated consume, in allocation order (a stack: the search undoes
 * in reverse). */
typedef struct {
    uint32_t pool, slot; /* slot: the allocator's result slot that took it */
    const kp_dra_device *dev;
} kp_dra_ctr_take;
typedef struct {
    uint32_t pool, n;
    int64_t *v; /* parallel to the pool's counters: consumed by the devices being allocated */
} kp_dra_ctr_used;
typedef struct {
    kp_dra_ctr_take *st;
    uint32_t n, cap;
    kp_dra_ctr_used *u;
    uint32_t n_u, cap_u;
} kp_dra_ctr_state;

/* mirrors checkAvailableCounters: takes device d's consumption (of pool) for result slot when
 * every counter of the pool stays within what is left: 1 taken, 0 not (nothing changes),
 * KP_ENOMEM. */
int kp__dra_ctr_take(kp_dra_ctr_state *s, kp_dra_index *ix, const kp_cluster *cl, uint32_t pool,
                     const kp_dra_device *d, uint32_t slot);
/* mirrors deallocateCountersForDevice: gives back what slot took (no-op when it took none). */
void kp__dra_ctr_undo(kp_dra_ctr_state *s, kp_dra_index *ix, uint32_t slot);
void kp__dra_ctr_reset(kp_dra_ctr_state *s);
void kp__dra_ctr_fini(kp_dra_ctr_state *s);

#endif
