/* Compatibility umbrella (internal): the whole model plus the derived per-pod values of
 * finalize.c. The construction helpers moved to core/cluster.h. */
#ifndef KP_CORE_CLUSTER_INT_H
#define KP_CORE_CLUSTER_INT_H

#include "core/model.h"

/* Derived per-pod values (finalize.c), exposed for engines and tests. */
kp_qos kp__pod_compute_qos(const kp_cluster *cl, const kp_pod *p);
/* Fills dense out[KP_MAX_RES] with component-helpers PodRequests(pod) incl. overhead when
 * with_overhead; non_zero substitutes 100m cpu / 200Mi memory for missing container requests
 * (scheduler's non-zero requests used for scoring). */
void kp__pod_requests(const kp_cluster *cl, const kp_pod *p, bool with_overhead, bool non_zero, int64_t *out);
void kp__pod_limits(const kp_cluster *cl, const kp_pod *p, int64_t *out);
const char *kp__qos_name(kp_qos q);

#endif
