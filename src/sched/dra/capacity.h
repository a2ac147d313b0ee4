/* Consumable capacity (internal to src/sched/dra/): devices that allow multiple allocations
 * (allowMultipleAllocations, DRAConsumableCapacity) shared by several requests, each consuming
 * a part of the device's capacities as its capacity.requests, rounded by the capacity's
 * requestPolicy, ask; and the allocator's checks of a device for partitionable devices and
 * consumable capacity (allocateDevice's part after the in-use and taint checks), with the share
 * ID and consumed capacity of the allocation result. Mirrors structured/internal/incubating's
 * consumable_capacity.go and those parts of allocator_incubating.go; the scheduler's
 * AllocatedState (AllocatedSharedDeviceIDs, AggregatedCapacity) is the index's list of shares. */
#ifndef KP_SCHED_DRA_CAPACITY_H
#define KP_SCHED_DRA_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "sched/dra/allocator.h"
#include "sched/dra/counters.h"
#include "sched/dra/index.h"

/* ---- policy arithmetic (CmpRequestOverCapacity) ----
 * For each of d's capacities (driver: its slice's), what request ex consumes of it into
 * consumed[i] (calculateConsumedCapacity), given used[i] milli-units consumed already: 1 when
 * every capacity ex names exists, no requestPolicy is violated and each fits; 0 when not;
 * KP_ERANGE when an amount does not fit int64 milli-units. */
int kp__dra_cap_fit(kp_str driver, const kp_dra_device *d, const kp_dra_exact *ex,
                    const int64_t *used, kp_quantity *consumed);

/* ---- one Allocate's state ---- */
typedef struct {
    uint32_t k, slot; /* the allocator's node device and result slot */
    uint32_t off, n; /* consumed capacity: vals[off .. off + n) */
    const kp_dra_device *d;
} kp_dra_cap_take;
typedef struct kp_dra_part {
    kp_dra_ctr_state ctr;
    kp_dra_cap_take *st; /* devices allowing multiple allocations being allocated (a stack) */
    uint32_t n, cap;
    kp_quantity *vals;
    kp_dra_capacity *out; /* results' consumedCapacity, parallel to vals */
    uint32_t n_vals, cap_vals;
} kp_dra_part;

/* Does the allocator treat d as allowing multiple allocations? */
static inline bool kp__dra_part_multi(const kp_dra_features *f, const kp_dra_device *d) {
    return f->consumable_capacity && d->allow_multiple;
}
/* The capacity check alone (validateDeviceRequest's for allocationMode All; alloc_one's before
 * allocateDevice): 1 fits, 0 not, < 0 an error. No state changes. */
int kp__dra_part_fits(kp_dra_part *p, const kp_dra_index *ix, const kp_dra_features *f,
                      kp_dra_devid id, const kp_dra_device *d, const kp_dra_exact *ex, uint32_t k);
/* allocateDevice's checks for device d (node device k, of pool) taken by request ex into result
 * slot: the partitionable devices gate, its capacity, its counters; on 1 the device's counters
 * and (shared) capacity are taken, until kp__dra_part_undo(slot). 0: not allocatable; < 0:
 * KP_ENOMEM, KP_ERANGE. */
int kp__dra_part_take(kp_dra_part *p, kp_dra_index *ix, const kp_cluster *cl,
                      const kp_dra_features *f, uint32_t pool, kp_dra_devid id,
                      const kp_dra_device *d, const kp_dra_exact *ex, uint32_t k, uint32_t slot);
void kp__dra_part_undo(kp_dra_part *p, kp_dra_index *ix, uint32_t slot);
/* The share ID and consumed capacity of slot's result (untouched when slot took no share):
 * share IDs are made from the claim, the slot and the device (deterministic, in UID form; the
 * API server's are random). KP_ENOMEM. */
kp_status kp__dra_part_result(kp_dra_part *p, kp_cluster *cl, const kp_dra_claim *c, uint32_t slot,
                              kp_dra_result *r);
void kp__dra_part_reset(kp_dra_part *p);
void kp__dra_part_fini(kp_dra_part *p);

#endif
