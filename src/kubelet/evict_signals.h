/* Signal observations and threshold evaluation (internal): makeSignalObservations and
 * thresholdsMet over a decoded summary (core/summary.h). */
#ifndef KP_KUBELET_EVICT_SIGNALS_H
#define KP_KUBELET_EVICT_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/eviction.h"
#include "kubelet/evict_thresholds.h"

static inline bool kp__ev_is_memory_signal(kp_evict_signal s) {
    return s == KP_EVSIG_MEMORY_AVAILABLE || s == KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE;
}
static inline bool kp__ev_is_inode_signal(kp_evict_signal s) {
    return s == KP_EVSIG_NODEFS_INODES_FREE || s == KP_EVSIG_IMAGEFS_INODES_FREE ||
           s == KP_EVSIG_CONTAINERFS_INODES_FREE;
}

/* Observations from a summary (makeSignalObservations). */
void kp__ev_observe(const kp_evict_summary *s, kp_evict_observation obs[KP_EVSIG_COUNT]);
/* thresholdsMet over th[idx[k]] for k < n; writes met indices into out (capacity n), returns the
 * count. */
uint32_t kp__ev_thresholds_met(const kp__ev_threshold *th, const uint32_t *idx, uint32_t n,
                               const kp_evict_observation obs[KP_EVSIG_COUNT],
                               bool enforce_min_reclaim, uint32_t *out);

#endif
