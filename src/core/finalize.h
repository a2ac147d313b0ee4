/* The per-pod part of kp_cluster_finalize (internal), for pods added after it: the simulator's
 * kp_cluster_create_pod (core/cluster_sim.c) and objects loaded into a finalized cluster. */
#ifndef KP_CORE_FINALIZE_H
#define KP_CORE_FINALIZE_H

#include <stdint.h>

#include "core/cluster.h"
#include "kprio/common.h"

/* Finalizes pod i as kp_cluster_finalize does for every pod: src_index, the Priority admission
 * plugin's priority and preemptionPolicy (against the classes as they are now), static / mirror
 * / critical, QoS, the request vectors; node -1 (binding is the caller's). Errors as
 * kp_cluster_finalize's (KP_ENOTFOUND for an unknown PriorityClass, KP_EINVAL, KP_ERANGE,
 * KP_ENOMEM). */
kp_status kp__pod_finalize(kp_cluster *cl, uint32_t i, kp_error *err);

#endif
