/* NodeResourcesBalancedAllocation plugin. */
#ifndef KP_SCHED_PLUGINS_BALANCED_ALLOCATION_H
#define KP_SCHED_PLUGINS_BALANCED_ALLOCATION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"
#include "sched/framework.h"

/* PreScore + Score over nodes[n]; false = Skip */
bool kp__balanced_allocation_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes,
                                   uint32_t n, int64_t *out);

#endif
