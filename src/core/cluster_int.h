/* Compatibility umbrella (internal): the whole model plus the derived per-pod values of
 * finalize.c. The construction helpers moved to core/cluster.h. */
#ifndef KP_CORE_CLUSTER_INT_H
#define KP_CORE_CLUSTER_INT_H

#include "core/model.h"

/* Derived per-pod values: core/pod_requests.h (PodRequests, PodLimits), core/qos.h. */
#include "core/pod_requests.h"
#include "core/qos.h"

#endif
