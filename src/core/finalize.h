/* kp_cluster_finalize's pieces that other code of core needs (internal). */
#ifndef KP_CORE_FINALIZE_H
#define KP_CORE_FINALIZE_H

#include <stdint.h>

#include "core/cluster.h"
#include "kprio/common.h"

/* Completes pod i as kp_cluster_finalize does: its priority and preemptionPolicy resolved as
 * the Priority admission plugin does at creation (against the PriorityClasses as they are now),
 * static/mirror/critical, QoS, its request vectors; it is left unbound (node -1). For a pod the
 * cluster makes itself after finalize (a controller's copy, kp_cluster_create_pod): call it
 * once, right after appending the pod while every loaded object is finalized; the next
 * incremental kp_cluster_finalize then starts after it. Errors: those of kp_cluster_finalize
 * for a pod (KP_ENOTFOUND an unknown PriorityClass, KP_EINVAL, KP_ERANGE, KP_ENOMEM). */
kp_status kp__pod_finalize(kp_cluster *cl, uint32_t i, kp_error *err);

/* The pod's derived request vectors (kp_pod.req, nz_cpu, nz_mem) from its containers, overhead,
 * pod-level resources and resize status, as finalize computes them: after a change of those
 * (core/object_update.c; the caller takes the pod off its node first). KP_ENOMEM. */
kp_status kp__pod_derive_requests(kp_cluster *cl, struct kp_pod *p, kp_error *err);

/* A uid shaped like the API server's (a version-4 UUID) for a pod the cluster makes after
 * finalize: a hash of the namespace, the name and the pod's index (deterministic, distinct for a
 * pod recreated under the same name). */
void kp__pod_make_uid(const kp_cluster *cl, kp_str ns, const char *name, uint32_t idx, char *out,
                      size_t cap);

#endif
