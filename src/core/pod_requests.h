/* The pod's resource requests and limits (internal): the single copy of the sidecar-aware
 * aggregation (component-helpers resource.AggregateContainerRequests / Limits, PodRequests,
 * PodLimits) and of the kubelet's resource.GetResourceRequest. */
#ifndef KP_CORE_POD_REQUESTS_H
#define KP_CORE_POD_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"

/* The scheduler's requests for containers that set none (schedutil DefaultMilliCPURequest and
 * DefaultMemoryRequest), used for scoring (non-zero requests). */
#define KP_DEFAULT_CPU_REQUEST 100 /* millicores */
#define KP_DEFAULT_MEM_REQUEST ((int64_t)200 << 20) /* bytes */

/* mirrors resourcehelper.IsSupportedPodLevelResource (cpu, memory, hugepages-*) */
bool kp__pod_level_supported(const kp_cluster *cl, int r);
/* mirrors resourcehelper.IsPodLevelResourcesSet: pod-level requests or limits name a supported
 * resource */
bool kp__pod_level_resources_set(const kp_cluster *cl, const kp_pod *p);
/* mirrors AggregateContainerRequests (limits false) / AggregateContainerLimits (limits true) for
 * resource r: regular containers and restartable init containers add up; each init container
 * counts with the sidecars started before it; the pod takes the larger. Saturates at int64.
 * *has (optional): some container names r. */
int64_t kp__pod_aggregate_container(const kp_pod *p, int r, bool limits, bool *has);
/* Fills dense out[KP_MAX_RES] with PodRequests(pod) incl. overhead when with_overhead; non_zero
 * substitutes 100m cpu / 200Mi memory for missing container requests (the scheduler's non-zero
 * requests used for scoring). Pod-level requests replace the aggregate of supported resources. */
void kp__pod_requests(const kp_cluster *cl, const kp_pod *p, bool with_overhead, bool non_zero,
                      int64_t *out);
/* Fills dense out[KP_MAX_RES] with PodLimits(pod). */
void kp__pod_limits(const kp_cluster *cl, const kp_pod *p, int64_t *out);
/* mirrors the kubelet's resource.GetResourceRequest (GetResourceRequestQuantity's value): pods
 * -> 1, cpu in millicores, others in units; the container aggregate, or with pod-level resources
 * set the pod-level request of a supported resource (0 for any other); plus the overhead only
 * when the result is non-zero. Used by admission and by eviction ranking. */
int64_t kp__pod_resource_request(const kp_cluster *cl, const kp_pod *p, int r);

#endif
