/* The eviction message (internal): evictionMessage + getThresholdMetInfo. */
#ifndef KP_KUBELET_EVICT_MESSAGE_H
#define KP_KUBELET_EVICT_MESSAGE_H

#include <stdint.h>

#include "core/summary.h"

/* Fills e's message and annotations for evicting pod rp_pod (stats st, NULL when none) to
 * reclaim `resource`; t3[0..n3) are the thresholds acted on, obs this step's observations.
 * KP_ENOMEM when out of memory (e incomplete). */
kp_status kp__ev_eviction_message(kp_evict_manager *m, kp_evict_eviction *e, const char *resource,
                                  uint32_t rp_pod, const kp_evict_summary *s,
                                  const kp__ev_pstats *st, const uint32_t *t3, uint32_t n3,
                                  const kp_evict_observation *obs);

#endif
