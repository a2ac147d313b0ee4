/* Local ephemeral storage eviction (internal): localStorageEviction and PodLimits of
 * ephemeral-storage. */
#ifndef KP_KUBELET_EVICT_LOCAL_STORAGE_H
#define KP_KUBELET_EVICT_LOCAL_STORAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "kubelet/evict_spec.h"

/* PodLimits(pod)[ephemeral-storage] (sidecar-aware, overhead added to a non-zero limit): *out
 * the integer, qout (optional) the quantity as upstream prints it; false when no container
 * sets the limit. */
bool kp__ev_pod_eph_limit(const kp__ev_spec_src *src, uint32_t pod, int64_t *out, kp__ev_qty *qout);
/* mirrors localStorageEviction: the pods over a local-storage limit are evicted (m->ev).
 * KP_ENOMEM when out of memory. */
kp_status kp__ev_local_storage_eviction(kp_evict_manager *m, const kp_evict_summary *s);

#endif
