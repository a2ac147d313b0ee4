/* The scheduler's index of a cluster's DRA objects (internal to src/sched/): what the structured
 * allocator reads for every pod, kept between pods as upstream's informers and its
 * allocated-devices tracking (dynamicresources/allocateddevices.go, dra_manager.go) keep it:
 * the slices each node can reach, each pool's newest generation and its slice count, the devices
 * in use by allocated claims (admin access and shared devices not counted), claims by name, the
 * compiled selectors and each class's verdict per device. */
#ifndef KP_SCHED_DRA_INDEX_H
#define KP_SCHED_DRA_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cel.h"
#include "core/cluster.h"
#include "sched/pairmap.h"

/* A device by identity (DeviceID: driver, pool, device name). */
typedef struct {
    kp_str driver, pool, device;
} kp_dra_devid;

typedef struct {
    kp_dra_devid *keys; /* open addressing; driver 0 (never a real driver) = empty slot */
    uint32_t *count;
    uint32_t cap, used;
} kp_dra_devset;

/* One counter of a pool: set and counter name, and what is left (milli-units). */
typedef struct {
    kp_str set, name;
    int64_t left;
} kp_dra_ctr;

/* A pool's counters (kp_dra_index.pool_ctr[pool]), built when first needed after a change of
 * the slices or of the claims' allocations (stamp != kp_dra_index.ctr_stamp). */
typedef struct kp_dra_pool_ctr {
    uint64_t stamp;
    bool plain; /* no slice of the pool has counter sets nor a device consuming any: nothing to
                   build (most pools) */
    bool invalid; /* buildPool's invalid pool: why says why (a counter set named twice, a device
                     consuming a set or counter the pool does not have, a value past int64) */
    char why[160];
    uint32_t n, cap;
    kp_dra_ctr *e;
} kp_dra_pool_ctr;

/* An allocated claim's result with a share ID (admin access excluded), by device. */
typedef struct kp_dra_share {
    kp_dra_devid id;
    const kp_dra_result *r;
} kp_dra_share;

typedef struct kp_dra_index {
    /* slices (rebuilt when a slice or a node was added) */
    uint32_t n_slices_seen, n_nodes_seen;
    uint32_t *node_off, *node_slices; /* slices with spec.nodeName, per node (CSR) */
    uint32_t *shared, n_shared; /* slices selecting nodes otherwise (selector, all, per device) */
    uint32_t *dev_base, n_devices; /* global device number of a slice's first device */
    uint32_t *slice_pool; /* pool number of each slice */
    int64_t *pool_gen; /* per pool: the newest generation among its slices */
    uint32_t *pool_count; /* ... and how many slices have it */
    uint32_t n_pools;
    kp_pairmap node_of; /* node name -> node index + 1 */
    /* per class (n_classes_seen): the class selectors' verdict per global device (0 unknown, 1
     * match, 2 no match), allocated on first use */
    uint8_t **class_ok;
    uint32_t n_classes_seen;
    /* compiled selectors by expression (kp_str -> index + 1 into progs) */
    kp_pairmap prog_of;
    kp_cel_program **progs;
    char **prog_err; /* the compile error, NULL when it compiled */
    uint32_t n_progs, cap_progs;
    /* claims by (namespace, name): claim index + 1 */
    kp_pairmap claim_of;
    uint32_t n_claims_seen;
    /* devices in use (allocated claims), as of gen_claims == gen_seen */
    kp_dra_devset in_use;
    uint64_t gen_seen;
    bool in_use_built;
    /* partitionable devices (counters.c): the slices of each pool (CSR over n_pools_ctr pools)
     * and each pool's counters, rebuilt lazily when ctr_stamp moves (slices or allocations) */
    uint32_t *pool_off, *pool_slices, n_pools_ctr;
    struct kp_dra_pool_ctr *pool_ctr;
    uint64_t ctr_stamp;
    /* consumable capacity (capacity.c): allocated results with a share ID, sorted by device */
    struct kp_dra_share *shares;
    uint32_t n_shares, cap_shares;
} kp_dra_index;

/* Brings ix up to date with cl (creating it when *ix is NULL). KP_ENOMEM. */
kp_status kp__dra_index_sync(kp_dra_index **ix, const kp_cluster *cl);
void kp__dra_index_free(kp_dra_index *ix);
/* The claim named name in namespace ns (not deleted), or -1. */
long kp__dra_index_claim(const kp_dra_index *ix, const kp_cluster *cl, kp_str ns, kp_str name);
/* The DeviceClass named name (not deleted), or -1. */
long kp__dra_index_class(const kp_dra_index *ix, const kp_cluster *cl, kp_str name);
/* The scheduler allocated claim (its results now in the cluster): its devices join the in-use
 * set and the index counts the cluster's claim changes so far as seen. KP_ENOMEM. */
kp_status kp__dra_index_allocated(kp_dra_index *ix, const kp_cluster *cl, uint32_t claim);
/* How many allocated claims hold device d (0: free). */
uint32_t kp__dra_devset_get(const kp_dra_devset *s, kp_dra_devid d);
/* The compiled selector for expression expr; NULL with *why (owned by ix) on a compile error
 * or out of memory (*why NULL). */
const kp_cel_program *kp__dra_index_prog(kp_dra_index *ix, const kp_cluster *cl, kp_str expr,
                                         const char **why);
/* The first of the shares of device id (index into ix->shares; n_shares when none) and how
 * many allocated results share it (consumable capacity; foreachAllocatedDevice's shares). */
uint32_t kp__dra_index_first_share(const kp_dra_index *ix, kp_dra_devid id);
uint32_t kp__dra_index_n_shares(const kp_dra_index *ix, kp_dra_devid id);
/* Does the node (index) reach this node selection (pools.go NodeMatches)? */
bool kp__dra_nodes_match(const kp_cluster *cl, const kp_dra_nodes *sel, uint32_t node);

#endif
