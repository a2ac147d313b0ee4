/* Pod ranking for eviction (internal): buildSignalToRankFunc, podDiskUsage and the rank
 * functions (rankMemoryPressure, rankPIDPressure, rankDiskPressureFunc) as packed sort keys. */
#ifndef KP_KUBELET_EVICT_RANK_H
#define KP_KUBELET_EVICT_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"
#include "core/summary.h"
#include "kprio/eviction.h"

/* What the rank functions need to know about one active pod in one step. */
typedef struct {
    uint32_t pod; /* cluster pod index */
    int32_t priority;
    int64_t mem_req, eph_req; /* GetResourceRequestQuantity */
    const kp__ev_pstats *st; /* NULL when the summary has no stats for it */
} kp__ev_rank_pod;

typedef enum { KP__EVRANK_MEMORY, KP__EVRANK_PID, KP__EVRANK_DISK } kp__ev_rank_kind;
enum { KP__EVFS_ROOT = 1, KP__EVFS_LOGS = 2, KP__EVFS_LOCALVOL = 4, KP__EVFS_IMAGES = 8 };

typedef struct {
    kp__ev_rank_kind kind;
    unsigned fs_types; /* KP__EVFS_* for disk */
    bool inodes; /* disk resource inodes instead of ephemeral-storage */
} kp__ev_rank_fn;

/* buildSignalToRankFunc for a layout. */
kp__ev_rank_fn kp__ev_rank_fn_for(kp_evict_signal sig, bool imagefs, bool split);
/* podDiskUsage for resource bytes (inodes=false) or inodes. */
int64_t kp__ev_pod_disk_usage(const kp_cluster *cl, const kp_pod *p, const kp_evict_summary *s,
                              const kp__ev_pstats *st, unsigned fs_types, bool inodes);
/* Sorts pods (n entries, stats from summary s) into eviction order; stable on the input order.
 * keys (2n entries) and tmp (n entries) are scratch arrays. A key is the rank function's
 * comparator chain packed into two unsigned words compared in order (hi, lo). */
typedef struct {
    uint64_t hi, lo;
    uint32_t pos;
} kp__ev_rank_key;
/* ent (optional, 2n entries): each pod's comparator inputs, in ranking order in ent[0..n). */
void kp__ev_rank(const kp_cluster *cl, const kp_evict_summary *s, const kp__ev_rank_fn *fn,
                 kp__ev_rank_pod *pods, uint32_t n, kp__ev_rank_key *keys, kp__ev_rank_pod *tmp,
                 kp_evict_rank_entry *ent);
/* The public name of a rank function. */
kp_evict_rank_kind kp__ev_rank_public_kind(const kp__ev_rank_fn *fn);

#endif
