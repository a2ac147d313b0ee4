/* The pod's QoS class (internal): v1qos.ComputePodQOS. The class type is public
 * (include/kprio/qos.h: kp_qos, kp_qos_name). */
#ifndef KP_CORE_QOS_H
#define KP_CORE_QOS_H

#include "core/pod.h"
#include "kprio/qos.h"

/* mirrors v1qos.ComputePodQOS: only cpu and memory count; quantities <= 0 are ignored; pod-level
 * requests and limits, when set, decide instead of the containers'. */
kp_qos kp__pod_compute_qos(const kp_pod *p, bool fix_kubelet_qos_class);

#endif
